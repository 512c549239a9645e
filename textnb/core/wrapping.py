"""One way to look inside wrapped models, and the capabilities a model declares.

textnb's models wrap one another: a :class:`~textnb.TextClassifier` holds its count model in
``model_``; :class:`~textnb.APNBC`, :class:`~textnb.CalibratedNB`, ``Discretized`` and
:class:`~textnb.SmoothingCV` hold theirs in ``estimator_`` (``SmoothingCV`` also in
``best_estimator_``); a scikit-learn ``Pipeline`` ends in its model. Code that asks "is there a
lazy rule model in here?" or "are these probabilities calibrated?" walks that chain with
:func:`chain` and asks each model for a *capability* (an attribute or method the class
declares), never for its class name.

Capabilities read here (each defaults to "no" on a class that does not declare it):

``explains_by_rules``
    class attribute, True on the lazy rule models (LBR, LazyTextNB): ``predict_explain`` of
    the outermost model that has one gives, per row, the rule used.
``probabilities_calibrated()``
    method, True when the model's probabilities have been calibrated (CalibratedNB; a
    DiscriminativeNB with a fitted temperature).
``reads_documents``
    class attribute, True on the models that take raw documents (TextClassifier and its
    fast-path scorer), not table rows.
``merges_exactly``
    class attribute, False where merging two fitted models does not give the model trained
    on the union (discriminatively learned sums); ``inexact_merge``, beside it, the words of
    the warning such a merge gives (:func:`checked_merge`).
``merge_refusal``
    class attribute on a model that has no ``merge``: a phrase saying why (what it learns
    from all the data at once, or how such models are combined instead), which ``textnb
    merge`` puts in its one-line refusal (:func:`merge_refusal`).
``sample_weight`` in ``fit``'s signature
    the model learns from weighted rows (:func:`takes_sample_weight`, as scikit-learn's
    ``has_fit_parameter``).
``terms`` in ``fit``'s signature
    the model takes the names of the columns of a document-term matrix (:func:`takes_terms`).
``fold_counts`` in ``fit``'s signature, ``uses_fold_counts()`` and ``hands_on_fold_counts``
    the model chooses a setting by cross-validation on per-fold vocabularies (SmoothingCV),
    scores folds of its own on them (``uses_fold_counts()``: APNBC with ``fit_on="cv"``), or
    a wrapper hands them on to the model it wraps (:func:`takes_fold_counts`).
``groups`` in ``fit``'s signature
    the model makes cross-validation folds of its rows (SmoothingCV, CalibratedNB, APNBC,
    DiscriminativeNB) and keeps the rows of one group on one side of each (:func:`takes_groups`:
    the copies of a document in a multi-label copy model); a Pipeline hands them on to its
    last step as ``<step>__groups`` (:func:`groups_kwargs`, :func:`fit_route`).
``with_choices()``
    method of a fitted model that makes choices from its training data (DiscriminativeNB's
    ``event_model="auto"``, SmoothingCV's smoothing): the model, unfitted, with those choices
    fixed, or None when it made none. A model fitted on a fold to threshold, calibrate or
    adjust a final model (MultiLabelNB's out-of-fold models, CalibratedNB's, APNBC's with
    ``fit_on="cv"``) is the final model's answer, so that it scores on the final model's
    scale (:func:`textnb.naive_bayes.base.with_choices` walks wrappers and Pipelines to it).

Standard library only (the mail client imports nothing heavy).
"""

__all__ = ["INNER_ATTRIBUTES", "calibrated", "chain", "checked_merge", "declared_attributes", "find", "inexact_merge",
           "merge_refusal", "merges_exactly",
           "fit_route", "fit_weighted", "groups_kwargs", "reads_documents", "rule_model", "table_attributes",
           "takes_fold_counts", "takes_groups", "takes_sample_weight", "takes_terms", "text_vectorizer", "weight_kwargs",
           "store_max_bytes", "stored_max_bytes", "keep_in_vectorizer", "kept_in_vectorizer"]

#: Fitted attributes that hold the model a wrapper wraps, in the order they are looked at.
INNER_ATTRIBUTES = ("model_", "estimator_", "best_estimator_")

#: The deepest nesting walked (a model file is checked for depth when read; this guards
#: against a cycle made in memory).
_MAX_DEPTH = 50


def chain(model):
    """``model`` and every model it wraps, outermost first.

    Follows :data:`INNER_ATTRIBUTES` and the last step of a ``Pipeline``-like object
    (``steps``); at most 50 levels.
    """
    seen = 0
    while model is not None and seen < _MAX_DEPTH:
        yield model
        seen += 1
        inner = next((getattr(model, a) for a in INNER_ATTRIBUTES if getattr(model, a, None) is not None), None)
        if inner is None:
            steps = getattr(model, "steps", None)
            if isinstance(steps, list) and steps and isinstance(steps[-1], tuple) and len(steps[-1]) == 2:
                inner = steps[-1][1]
        model = inner if inner is not model else None


def find(model, predicate):
    """The outermost model in :func:`chain` for which ``predicate`` is true, or None."""
    return next((m for m in chain(model) if predicate(m)), None)


def rule_model(model):
    """The lazy rule model inside ``model`` (one that explains by rules), or None."""
    return find(model, lambda m: getattr(type(m), "explains_by_rules", False) is True)


def calibrated(model):
    """Whether the probabilities of ``model`` are calibrated by some model in its chain."""
    return find(model, lambda m: callable(getattr(m, "probabilities_calibrated", None))
                and m.probabilities_calibrated()) is not None


def merges_exactly(model):
    """False when some model in the chain declares that merging is not exact."""
    return find(model, lambda m: getattr(type(m), "merges_exactly", True) is False) is None


def inexact_merge(model):
    """The warning a merge of ``model`` gives (one line), or None when it is exact: the
    ``inexact_merge`` words of the outermost model in its chain that declares
    ``merges_exactly = False`` (without words, that its kind does not merge exactly)."""
    found = find(model, lambda m: getattr(type(m), "merges_exactly", True) is False)
    if found is None:
        return None
    kind = getattr(found, "kind", None) or type(found).__name__
    return getattr(type(found), "inexact_merge", None) or (f"{kind} models do not merge exactly: the result is not "
                                                           f"the model trained on all the parts")


def checked_merge(merge):
    """Decorate a model's ``merge(other)`` with the checks every merge makes, the one rule of
    the library and of ``textnb merge`` (which loads each file once and refuses a file given
    twice): a model merged with itself (``m.merge(m)``), or with a model that holds the same
    fitted model (two text classifiers around one count model: the mergeable models of
    :func:`chain`), is refused with :class:`~textnb.core.errors.ParameterError` before any
    change, as its counts would be added twice; a merge that goes ahead and is not exact
    (:func:`inexact_merge`) warns with :class:`~textnb.core.errors.InexactMergeWarning` (a
    :class:`~textnb.core.errors.DataWarning`)."""
    import functools

    @functools.wraps(merge)
    def checked(self, other, *args, **kwargs):
        mine = {id(m): m for m in chain(self) if callable(getattr(m, "merge", None))}
        shared = next((m for m in chain(other) if id(m) in mine), None)
        if shared is not None:
            from textnb.core.errors import ParameterError

            what = "a model with itself" if other is self else \
                f"two models that hold the same fitted {type(shared).__name__}"
            raise ParameterError(f"cannot merge {what}: its counts would be added twice (to count its training "
                                 f"data twice on purpose, merge a copy: copy.deepcopy(model))")
        merged = merge(self, other, *args, **kwargs)
        text = inexact_merge(self)
        if text is not None:
            import warnings

            from textnb.core.errors import InexactMergeWarning

            warnings.warn(text, InexactMergeWarning, stacklevel=2)
        return merged

    return checked


def merge_refusal(model):
    """``(kind, reason)`` of the outermost model in the chain of ``model`` that declares why
    it cannot be merged (``merge_refusal``; ``kind`` its class name, or its ``kind`` for a
    kernel), or None when none declares it."""
    found = find(model, lambda m: isinstance(getattr(type(m), "merge_refusal", None), str))
    if found is None:
        return None
    return getattr(found, "kind", None) or type(found).__name__, type(found).merge_refusal


def reads_documents(model):
    """Whether ``model`` itself takes raw documents (not table rows)."""
    return getattr(type(model), "reads_documents", False) is True


def takes_sample_weight(model):
    """Whether ``model.fit`` takes ``sample_weight`` (a parameter of that name, or ``**kwargs``)."""
    return any(p.name == "sample_weight" or p.kind is p.VAR_KEYWORD for p in _fit_parameters(model))


def fit_weighted(model, X, y, sample_weight=None, **fit_params):
    """``model.fit(X, y, **fit_params)``, with ``sample_weight`` when it is not None: the one
    way ``textnb train`` and every fold of ``textnb evaluate`` fit a model, so that both
    learn from the same weights. Raises ValueError for weights given to a model whose
    ``fit`` does not take them (:func:`takes_sample_weight`; the command line refuses them
    first, naming the option)."""
    if sample_weight is None:
        return model.fit(X, y, **fit_params)
    if not takes_sample_weight(model):
        raise ValueError(f"{type(model).__name__} does not learn from sample weights")
    return model.fit(X, y, sample_weight=sample_weight, **fit_params)


def takes_terms(model):
    """Whether ``model.fit`` takes ``terms``, the names of the columns (lazy rules on
    documents, and APNBC, which hands them on to a model that takes them)."""
    return any(p.name == "terms" for p in _fit_parameters(model))


def takes_fold_counts(model):
    """Whether ``model.fit`` takes ``fold_counts``, each cross-validation fold's counts over
    the vocabulary of its training part, and uses them: a SmoothingCV, a model whose
    ``uses_fold_counts()`` says it scores folds of its own on them (APNBC with
    ``fit_on="cv"``), or a wrapper that hands them on (``hands_on_fold_counts``:
    CalibratedNB, APNBC) around a model that takes them (its ``estimator``; None, the
    wrapper's default model, takes none)."""
    if not any(p.name == "fold_counts" for p in _fit_parameters(model)):
        return False
    uses = getattr(model, "uses_fold_counts", None)
    if uses is not None and uses():  # (APNBC with fit_on="cv": its own folds)
        return True
    if getattr(type(model), "hands_on_fold_counts", False):
        inner = getattr(model, "estimator", None)
        return inner is not None and inner is not model and takes_fold_counts(inner)
    return True


def takes_groups(model):
    """Whether ``model.fit`` takes ``groups``, one value per row: the rows of a group (the
    copies of one document, one per label, that :class:`~textnb.meta.multilabel.MultiLabelNB`'s
    copy model is fitted on) are kept on one side of each fold the model makes of its rows
    (:func:`textnb.core.folds.stratified_kfold`), so a held-out row is never scored by a
    model that learned the same text under another label."""
    return any(p.name == "groups" for p in _fit_parameters(model))


def _fit_parameters(model):
    """The parameters of ``model.fit`` (an empty list when it has no inspectable ``fit``)."""
    import inspect

    try:
        return list(inspect.signature(model.fit).parameters.values())
    except (AttributeError, TypeError, ValueError):
        return []


def fit_route(model, name, *, any_keyword=False):
    """The ``fit`` keyword that brings the fit parameter ``name`` to the model that takes it,
    or None when none does: ``name`` when ``model.fit`` has a parameter of that name (with
    ``any_keyword``, also when it takes ``**kwargs`` and is not a Pipeline); for a
    Pipeline-like model (a ``steps`` list of ``(name, model)`` pairs, whose ``fit`` takes
    ``**params``) that of its last step, prefixed with the step's name and ``__`` -- how
    scikit-learn's ``Pipeline.fit`` hands ``<step>__<parameter>`` on to a step (nested
    Pipelines alike: ``outer__inner__groups``). The one rule by which a wrapper gives the
    model it wraps a parameter of its rows (:func:`groups_kwargs`, :func:`weight_kwargs`),
    whatever Pipeline steps stand in front of it."""
    route = []
    while len(route) < _MAX_DEPTH:
        params = _fit_parameters(model)
        if any(p.name == name and p.kind is not p.VAR_KEYWORD for p in params):
            return "__".join(route + [name])
        steps = getattr(model, "steps", None)
        keywords = any(p.kind is p.VAR_KEYWORD for p in params)
        if not (keywords and isinstance(steps, list) and steps and isinstance(steps[-1], tuple)
                and len(steps[-1]) == 2):
            return "__".join(route + [name]) if any_keyword and keywords else None
        step, model = steps[-1]
        route.append(step)
    return None


def groups_kwargs(model, groups):
    """The ``fit`` keywords that give ``model`` the rows' ``groups`` (one value per row, see
    :func:`takes_groups`): ``{"groups": groups}`` for a model whose ``fit`` takes them,
    ``{"<step>__groups": groups}`` for a Pipeline whose last step does (:func:`fit_route`),
    ``{}`` when ``groups`` is None or no model on that route takes them. Every wrapper that
    hands a document's copies on to the model it wraps (MultiLabelNB's copy model,
    CalibratedNB, APNBC, SmoothingCV) gives them through here, so that the folds the model
    makes of its rows keep the copies together behind Pipeline steps (``textnb train
    --weighting`` / ``--select``) too."""
    if groups is None:
        return {}
    route = fit_route(model, "groups")
    return {} if route is None else {route: groups}


def weight_kwargs(model, sample_weight):
    """The ``fit`` keyword that gives ``model`` the rows' ``sample_weight``, by the rule of
    :func:`groups_kwargs` (:func:`fit_route`): ``sample_weight`` for a model whose ``fit``
    takes it (a parameter of that name or ``**kwargs``, as :func:`takes_sample_weight`),
    ``<step>__sample_weight`` for a Pipeline whose last step does (nested Pipelines alike);
    ``sample_weight`` itself when no model on that route takes it (its ``fit`` then says so)."""
    return {fit_route(model, "sample_weight", any_keyword=True) or "sample_weight": sample_weight}


def declared_attributes(model):
    """The attributes ``model`` works with: its ``attributes`` parameter, else those a
    DataFrame given to ``fit`` declared (``frame_attributes_``: the table models over
    nominal value indices record them there, :func:`textnb.io.frames.frame_for_fit`), else
    None."""
    if getattr(model, "attributes", None) is not None:
        return model.attributes
    return getattr(model, "frame_attributes_", None)


def table_attributes(model):
    """The attributes of a table model, looking inside wrappers: the fitted ``attributes_``
    (TabularNB, Discretized), else :func:`declared_attributes` (those declared to it, or
    found in the DataFrame it was fitted on: TAN, AODE, the networks, LBR); None when no
    model in the chain records them."""
    for m in chain(model):
        found = getattr(m, "attributes_", None)
        if found is None:
            found = declared_attributes(m)
        if found is not None:
            return found
    return None


def keep_in_vectorizer(model, name, value):
    """Keep ``value`` in the vectorizer of the text ``model`` (a fitted estimator: its
    attribute ``<name>_``; a model-file node: its state's ``name``), so that the model's
    file holds it (:func:`text_vectorizer`; nothing for a model without one). The one way a
    text model keeps what its vectorizer's parameters do not say: the fastText label prefix
    (:func:`textnb.io.fasttext.store_label_prefix`), ``train --max-bytes`` of a multi-label
    model (:func:`store_max_bytes`). Returns ``model``."""
    vectorizer = text_vectorizer(model)
    if vectorizer is not None:
        if hasattr(vectorizer, "kind"):
            vectorizer.state[name] = value
        else:
            setattr(vectorizer, name + "_", value)
    return model


def kept_in_vectorizer(model, name):
    """What :func:`keep_in_vectorizer` kept as ``name`` in ``model``'s vectorizer, else None."""
    vectorizer = text_vectorizer(model)
    if vectorizer is None:
        return None
    if hasattr(vectorizer, "kind"):
        return vectorizer.state.get(name)
    return getattr(vectorizer, name + "_", None)


def store_max_bytes(model, max_bytes):
    """Keep ``max_bytes`` (``train --max-bytes``: where training cut each document) in the
    vectorizer of the text ``model`` (a fitted estimator or model-file node) whose file has no
    other place for it (a multi-label Pipeline; a single-label ``TextClassifier`` keeps its own
    ``max_bytes``), so that ``predict`` and ``serve`` cut documents there too. None (not given)
    writes nothing: such a file, and one written before it was kept, reads as 16 MiB, the
    default. Returns ``model``."""
    return model if max_bytes is None else keep_in_vectorizer(model, "max_bytes", int(max_bytes))


def stored_max_bytes(model):
    """The ``max_bytes`` :func:`store_max_bytes` kept in ``model``'s vectorizer, else None."""
    value = kept_in_vectorizer(model, "max_bytes")
    return None if value is None else int(value)


def text_vectorizer(model):
    """The vectorizer of a text model, an estimator or a read model-file node (a
    ``TextClassifier``'s ``vectorizer_``, a ``Pipeline``'s first step), or None for any other
    model. The one walk to it (the fastText facade, the label prefix a file keeps, the
    readers that ask whether it decodes bytes itself)."""
    state = getattr(model, "state", None)
    if isinstance(state, dict) and hasattr(model, "kind"):  # a model-file node
        if model.kind == "TextClassifier":
            return state.get("vectorizer_")
        steps = model.params.get("steps") if model.kind == "Pipeline" else None
        first = steps[0][1] if steps else None
        return first if getattr(first, "kind", None) in ("Vectorizer", "TfidfVectorizer") else None
    vectorizer = getattr(model, "vectorizer_", None)
    if vectorizer is None and getattr(model, "steps", None):
        vectorizer = model.steps[0][1]
    return vectorizer if hasattr(vectorizer, "_get_state") else None
