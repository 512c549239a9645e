"""Why a document got its class: per-term contributions, and per-class informative terms.

Every textnb count model is linear in its input row ``x`` (counts, weighted counts or
presence): ``score_c(x) = Σ_w x_w W_cw + b_c`` with ``W = log θ`` for the multinomial
model, the complement weights for :class:`~textnb.naive_bayes.complement.ComplementNB` and the
log-odds ``log θ − log(1 − θ)`` of present words for Bernoulli. So the margin between
the predicted class and the runner-up splits exactly into one term per word,

    contribution_w = x_w (W_pred,w − W_runner-up,w),

plus the difference of the biases (class priors). :func:`explain` lists the words with
the largest contributions either way, through any Pipeline of textnb transformers
(:class:`~textnb.text.weighting.TermWeighting`, :class:`~textnb.text.selection.SelectTerms`)
and a :class:`~textnb.meta.calibration.CalibratedNB` wrapper. :func:`informative_terms`
gives NLTK-style most-informative terms per class for the same wrapped models, using
:func:`textnb.evaluation.inspection.informative_terms`. :func:`explain_table` does the same for a
mixed table (:class:`~textnb.text.mixed.MixedNB`): one contribution per attribute, and per
term inside the text attributes; :func:`explain_by_leaving_out` for any other table model
(TabularNB, TAN, AODE, networks): what each value adds to the margin.

The table explanations take a model's kernel as well as its estimator
(:data:`textnb.core.registry.KERNEL_MODULES`: ``predict --explain`` of a table model with a
kernel imports no scikit-learn); the text ones import scikit-learn and scipy when they run.
"""

import sys
from types import SimpleNamespace

import numpy as np

from textnb.core.errors import InputError
from textnb.core.labels import label_names
from textnb.core.registry import KERNEL_MODULES
from textnb.core.wrapping import chain, find, rule_model, table_attributes
from textnb.io.uncertain import column_slices

__all__ = ["apnbc_weights", "describe_mixed", "model_chain", "describe_text_classifier", "describe_text_file", "explain", "explain_by_leaving_out",
           "explain_scored", "explain_rows",
           "explain_table", "informative_terms", "linear_weights", "multilabel_informative_terms", "unwrap"]


def check_is_fitted(model):
    """A kernel's own check (no scikit-learn), else scikit-learn's ``check_is_fitted``."""
    if (type(model).__module__, type(model).__name__) in KERNEL_MODULES.values():
        return model._check_fitted()
    from sklearn.utils.validation import check_is_fitted as fitted

    return fitted(model)


def unwrap(model):
    """``(steps, final)``: the transformers in front of the count model, and the model.

    Looks through :class:`~textnb.meta.calibration.CalibratedNB` and
    :class:`~textnb.meta.smoothing.SmoothingCV` (their fitted ``estimator_``) and
    :class:`sklearn.pipeline.Pipeline`.
    """
    from sklearn.pipeline import Pipeline

    steps = []
    while True:
        if hasattr(model, "estimator_") and (hasattr(model, "calibrated_classes_")
                                              or hasattr(model, "best_params_")):
            model = model.estimator_  # CalibratedNB, SmoothingCV: the fitted inner model
        elif isinstance(model, Pipeline):
            steps.extend(step for _, step in model.steps[:-1] if step not in (None, "passthrough"))
            model = model.steps[-1][1]
        else:
            return steps, model


def _columns(steps, n_terms):
    """Vocabulary column of each input column of the final model."""
    cols = np.arange(n_terms)
    for step in steps:
        if hasattr(step, "get_support"):
            cols = cols[step.get_support()]
    return cols


def linear_weights(model):
    """``(W, b, binarize)`` with ``joint_log_likelihood = x' @ W.T + b`` (up to a per-row constant).

    ``binarize`` is the threshold applied to x first (Bernoulli), or None.
    """
    import scipy.sparse as sp

    check_is_fitted(model)
    form = model.linear_form() if hasattr(model, "linear_form") else None
    if form is not None:  # a count model's kernel (DiscriminativeNB: weights of its document features)
        return form.weights, form.bias, form.threshold
    if not hasattr(model, "feature_log_prob_"):
        raise TypeError(
            f"cannot explain a {type(model).__name__}: explanations need a linear count model "
            "(MultinomialNB, BernoulliNB or ComplementNB)"
        )
    W = model.feature_log_prob_
    jll0 = np.asarray(model.predict_joint_log_proba(sp.csr_matrix((1, W.shape[1])))).ravel()
    return W, jll0, None


def _presence_weights(model):
    """The weights over the terms' presence of a count model's linear form (a DiscriminativeNB's
    residual layer over presence), or None."""
    form = model.linear_form() if hasattr(model, "linear_form") else None
    return None if form is None else form.presence


def explain(classifier, document, top=10, *, predicted=None):
    """The terms that moved the decision most for one document.

    Parameters
    ----------
    classifier : TextClassifier
        Fitted; its ``model_`` may be a count model, a Pipeline of textnb transformers
        ending in one, or a CalibratedNB around either.
    document : str, bytes or pathlib.Path
    top : int, default=10
        Terms listed on each side.
    predicted : label, optional
        The class to explain (the label ``predict`` prints: a calibration may choose
        another than the model's largest score); None: the largest score's.

    Raises
    ------
    TypeError
        ``classifier`` is not a text classifier (a table model, a bare count model: see
        :func:`explain_rows`), or its model is not a linear count model.

    Returns
    -------
    dict
        ``predicted`` and ``runner_up`` (the two classes with the largest model score; with
        ``predicted`` given, it and the other class of largest score: the margin is then
        negative where the scores favour the runner-up),
        ``margin`` (score difference, = ``prior`` + the sum of every contribution),
        ``prior`` (difference of the bias terms), ``for`` (terms pushing towards
        ``predicted``, largest first) and ``against`` (towards ``runner_up``), each a
        list of ``{"term", "count", "value", "contribution"}`` where ``value`` is what
        the model saw (weighted count or presence).
    """
    import scipy.sparse as sp

    from textnb.naive_bayes.discriminative import DiscriminativeNB

    check_is_fitted(classifier)
    if not (callable(getattr(classifier, "transform", None)) and hasattr(classifier, "model_")
            and hasattr(getattr(classifier, "vectorizer_", None), "vocabulary_")):
        raise TypeError(
            f"cannot explain a {type(classifier).__name__}: explain needs a text classifier (a fitted "
            "TextClassifier: its vectorizer's terms and its count model); explain_rows explains any model's "
            "rows (a table model's by explain_table or explain_by_leaving_out)"
        )
    X = classifier.transform([document])
    steps, model = unwrap(classifier.model_)
    terms = np.array(list(classifier.vectorizer_.vocabulary_), dtype=object)
    cols = _columns(steps, X.shape[1])
    counts = X[:, cols].toarray().ravel() if sp.issparse(X) else np.asarray(X)[:, cols].ravel()
    Xm = X
    for step in steps:
        Xm = step.transform(Xm)
    Xm = sp.csr_matrix(Xm, dtype=np.float64)
    present = (Xm.toarray().ravel() != 0).astype(np.float64)
    if isinstance(model, DiscriminativeNB):
        Xm = model._features(Xm)  # log(1 + tf) / length, or presence
    W, b, binarize = linear_weights(model)
    if binarize is not None:
        Xm.data = (Xm.data > binarize).astype(np.float64)
    x = Xm.toarray().ravel()
    if not x.any():  # no known term: the model's score of an empty document (the complement models' prior)
        b = np.asarray(model.predict_joint_log_proba(sp.csr_matrix((1, W.shape[1])))).ravel()
    return _term_explanation(terms[cols], counts, x, W, b, model.classes_, top,
                             _presence_weights(model), present, predicted=predicted)


def explain_scored(scorer, document, top=10, *, predicted=None):
    """:func:`explain` of a :class:`~textnb.text.scorer.TextScorer` (a linear count model
    read from its file: :func:`textnb.text.scorer.load_for_prediction`), without
    scikit-learn: the document's counts under the scorer's analyzer and vocabulary, its
    features as the scorer makes them (presence, ``binarize``, DiscriminativeNB's document
    features), and the scorer's weights; the same numbers as :func:`explain` of the
    estimator. An APNBC's log class weights (``--adjust``) are added to the biases: they
    count in the margin and the ``prior``, not in any term's contribution."""
    from textnb.io.corpus import to_text

    text = document if isinstance(document, str) else to_text(document)
    data, indices, indptr = scorer._cells([text if text is not None else ""])
    data = scorer.counted(data)
    counts = np.zeros(len(scorer.terms))
    counts[indices] = data
    columns = scorer.feature_columns()
    data, indices, indptr = scorer._transformed(data, indices, indptr)
    present = np.zeros(columns.size)
    present[indices[data != 0]] = 1.0
    data, indices, indptr = scorer._features(data, indices, indptr)
    x = np.zeros(columns.size)
    x[indices] = data
    W = np.ascontiguousarray(scorer._weights_t.T)  # the model's (n_classes, n_features) weights
    P = None if scorer._presence_t is None else scorer._presence_t.T
    b = scorer.bias
    if not x.any() and scorer.empty is not None:  # no known term: the complement models' prior
        b = scorer.empty
    b = scorer.adjust(b)  # APNBC's log class weights (``--adjust``): part of the bias
    return _term_explanation(np.array(scorer.terms, dtype=object)[columns], counts[columns], x, W, b,
                             scorer.classes_, top, P, present, predicted=predicted)


def _term_explanation(terms, counts, x, W, b, classes, top, P=None, present=None, *, predicted=None):
    """:func:`explain`'s result for a document whose features ``x`` (and counts ``counts``)
    over the columns ``terms`` a linear model ``W``, ``b`` of ``classes`` scores, plus
    ``P`` (weights of the terms' presence, a residual layer's) times ``present`` (1 for
    each term the document holds) when given: a term's contribution is both of its parts.
    ``predicted``: the class explained (:func:`_told_apart`)."""
    score = W @ x + b
    if P is not None:
        score = score + P @ present
    if len(classes) < 2:
        return {"predicted": str(classes[0]), "runner_up": None, "margin": 0.0, "prior": 0.0,
                "for": [], "against": []}
    p, r = _told_apart(score, classes, predicted)
    contrib = x * (W[p] - W[r])
    scale = np.maximum(np.abs(x * W[p]), np.abs(x * W[r]))
    if P is not None:
        contrib = contrib + present * (P[p] - P[r])
        scale = scale + np.maximum(np.abs(present * P[p]), np.abs(present * P[r]))
    contrib[np.abs(contrib) <= _ROUNDING * scale] = 0.0  # (two classes' equal weights, summed in another order)
    nz = np.flatnonzero(contrib)

    def listing(idx):
        return [{"term": str(terms[j]), "count": float(counts[j]), "value": float(x[j]),
                 "contribution": float(contrib[j])} for j in idx]

    pos = nz[contrib[nz] > 0]
    neg = nz[contrib[nz] < 0]
    pos = pos[np.lexsort((terms[pos].astype(str), -contrib[pos]))][:top]
    neg = neg[np.lexsort((terms[neg].astype(str), contrib[neg]))][:top]
    return {
        "predicted": str(classes[p]),
        "runner_up": str(classes[r]),
        "margin": _beyond_rounding(score[p] - score[r], score[p], score[r]),
        "prior": _beyond_rounding(b[p] - b[r], b[p], b[r]),
        "for": listing(pos),
        "against": listing(neg),
        # the document's terms the model knows, those weighing 0 between the two classes too (found by a
        # user trial: a document of known terms that balance out was said to hold none)
        "known_terms": int(np.count_nonzero(x if present is None else (x != 0) | (present != 0))),
    }


def _told_apart(score, classes, predicted=None):
    """``(p, r)``: the class a decision is explained for and the one it is told apart from,
    by the scores ``score`` of ``classes``: the largest score's class and the next (ranked
    stably), or, with ``predicted`` (the label printed, which a calibration or a threshold
    may have chosen against the scores: found by a user trial, ``predict --explain`` of a
    ``--calibrate`` model said "ham ... vs ham" and listed the terms of spam), that class and
    the other of largest score."""
    order = np.argsort(-score, kind="stable")
    if predicted is None:
        return order[0], order[1]
    names = [str(c) for c in classes]
    p = names.index(str(predicted))
    return p, next(k for k in order if k != p)


def informative_terms(classifier, top=10):
    """Most informative terms per class (NLTK style) for any wrapped count model.

    Same as :func:`textnb.evaluation.inspection.informative_terms` (log-odds of the term in the
    class against the other classes, from the model's counts and smoothing), but looks
    through Pipelines (feature selection maps columns back to terms), CalibratedNB and
    SmoothingCV.
    Returns ``{class: [(term, log_odds), ...]}``.
    """
    from textnb.evaluation.inspection import term_log_odds

    check_is_fitted(classifier)
    steps, model = unwrap(classifier.model_)
    terms = list(classifier.vectorizer_.vocabulary_)
    cols = _columns(steps, len(terms))
    # the count model (inside APNBC: its estimator_) over the terms of its columns
    return term_log_odds(getattr(model, "estimator_", model), [terms[c] for c in cols], top)


def multilabel_informative_terms(multilabel, terms, top=10):
    """Most informative terms per label of a fitted
    :class:`~textnb.meta.multilabel.MultiLabelNB`, or of the fit a multi-label model file's
    scorer reads (:class:`~textnb.meta.multilabel_training.MultiLabelFit`: its score models
    as model-file nodes), whose columns are the vocabulary ``terms``: the copy model's
    log-odds of a term in a label's copies against the other labels'
    (:func:`textnb.evaluation.inspection.term_log_odds`; its classes are label indices), or,
    one-vs-rest, of a term in the label's documents against the others, each over the terms
    its count model sees (:func:`_label_count_model`). A label with no model of its own
    (every or no training document has it) has none.
    Returns ``{label: [(term, log_odds), ...]}``."""
    from textnb.evaluation.inspection import term_log_odds

    labels = label_names(multilabel)
    out = {name: [] for name in labels}
    per_label = getattr(multilabel, "estimators_", None)
    if per_label is None:  # the copy method: one model over the documents copied per label
        found = _label_count_model(getattr(multilabel, "estimator_", None), len(terms))
        if found is not None:
            model, columns = found
            by_index = term_log_odds(model, [terms[c] for c in columns], top)
            for c in model.classes_:
                if int(c) < len(labels):  # (index n_labels: the documents without a label)
                    out[labels[int(c)]] = by_index[str(c)]
        return out
    for name, est in zip(labels, per_label):
        found = _label_count_model(est, len(terms))
        if found is not None and len(found[0].classes_) == 2:
            model, columns = found
            out[name] = term_log_odds(model, [terms[c] for c in columns], top)[label_names(model)[1]]
    return out


def _label_count_model(model, n_terms):
    """``(count model, columns)``: the count model inside a multi-label model's score model
    ``model`` over ``n_terms`` vocabulary columns, and the columns it sees -- of a fitted
    estimator as :func:`unwrap` looks through it (term selection: :func:`_columns`), of a
    model file's node from its kernel (:func:`textnb.text.nodes.node_count_model`: its
    fitted attributes, no scikit-learn) -- or None (a constant label's None, a model
    without counts of its own)."""
    from textnb.core.model_io import ModelNode

    if model is None:
        return None
    if isinstance(model, ModelNode):
        from textnb.text.nodes import node_count_model

        found = node_count_model(model, n_terms)
        return None if found is None else (SimpleNamespace(**found[0]), found[1])
    steps, final = unwrap(model)
    return (final, _columns(steps, n_terms)) if hasattr(final, "feature_count_") else None


def describe_text_classifier(classifier, top=10):
    """A JSON-ready summary of a fitted :class:`~textnb.TextClassifier`.

    Looks through wrappers (APNBC, calibration, pipelines, smoothing search) to the
    count model for class counts and informative terms.
    """
    check_is_fitted(classifier)
    model = getattr(classifier.model_, "estimator_", classifier.model_)
    if not hasattr(model, "class_count_"):
        model = unwrap(classifier.model_)[1]
    terms = (informative_terms(classifier, top) if hasattr(model, "feature_count_")
             else {c: [] for c in label_names(classifier)})
    n_terms = len(classifier.vectorizer_.vocabulary_)
    documents = _documents_per_class(model)
    if not len(documents):  # (lazy rules inside APNBC: their training rows' classes)
        documents = _documents_per_class(getattr(classifier.model_, "estimator_", model))
    info = _text_description(type(classifier.model_).__name__, model, model.get_params(deep=False),
                             classifier.vectorizer_.get_params(), n_terms, terms, documents)
    used = len(_columns(unwrap(classifier.model_)[0], n_terms))
    if used < n_terms:  # a feature selection (--select) keeps these for the model
        info["selected_terms"] = int(used)
    return _with_input(_with_calibration(info, calibration_method(classifier.model_)),
                       getattr(classifier, "input_", None))


def calibration_method(model):
    """The method (``"sigmoid"``, ``"isotonic"``) of the ``--calibrate`` calibration in
    ``model`` (a fitted estimator, a wrapper around one, or a model file's node,
    :class:`textnb.core.model_io.ModelNode`), the map that gives its probabilities; None for
    a model not calibrated so."""
    if hasattr(model, "state"):  # a node: it and the estimators it wraps, outermost first
        while hasattr(model, "state") and isinstance(model.params, dict):
            if model.kind == "CalibratedNB":
                return str(model.params.get("method"))
            model = model.params.get("estimator")
        return None
    calibrated = find(model, lambda m: type(m).__name__ == "CalibratedNB")
    return None if calibrated is None else str(calibrated.method)


def _with_input(info, input_):
    """``info`` with ``input``: what a spamfilter model's documents are (its ``input_``:
    ``"mail"``, messages rendered by ``spam_text``; ``"mail-tokens"``, the mail reader's
    tokens), when it has one (a model of plain documents has none)."""
    if info is not None and input_ is not None:
        info["input"] = str(input_)
    return info


def _with_calibration(info, method):
    """``info`` with ``calibration``: ``method``, when the model is calibrated."""
    if method is not None:
        info["calibration"] = method
    return info


def model_chain(root):
    """``(wrappers, model)`` of a read text model file's classifier (``root``, a
    ``TextClassifier`` node): what is around or in front of the model that scores the terms,
    outermost first -- each ``{"kind", "params"}`` (a wrapper's own settings: CalibratedNB's
    method and folds, APNBC's significance and ``fit_on``), a Pipeline's steps with their
    ``"step"`` name (term selection, weighting) -- and the model inside. ``([], node)`` for a
    bare model; ``(wrappers, None)`` for any other tree. What ``textnb inspect`` says
    of a wrapped model besides the inner model's settings (found by a user trial: it gave the
    inner model's settings under the wrapper's name, and never the wrapper's own). The
    inner model is returned as its node (``.kind``, ``.params``)."""
    from textnb.core.model_io import ModelNode

    node = root.state.get("model_") if isinstance(root, ModelNode) else None
    wrappers = []
    for _ in range(50):  # (a model file's depth is bounded when read; this guards a cycle)
        if not isinstance(node, ModelNode):
            return wrappers, None
        steps = node.params.get("steps") if node.kind == "Pipeline" else None
        if isinstance(steps, (list, tuple)) and steps:
            for name, step in steps[:-1]:
                if isinstance(step, ModelNode):
                    wrappers.append({"kind": step.kind, "params": dict(sorted(step.params.items())), "step": name})
            node = steps[-1][1]
            continue
        inner = node.state.get("estimator_") if isinstance(node.state.get("estimator_"), ModelNode) else \
            node.params.get("estimator")
        if not isinstance(inner, ModelNode):
            return wrappers, node
        wrappers.append({"kind": node.kind, "params": {k: v for k, v in sorted(node.params.items())
                                                      if not isinstance(v, ModelNode)}})
        node = inner
    return wrappers, None


def describe_text_file(root, top=10):
    """:func:`describe_text_classifier` of the model a model file holds, from its nodes
    (:func:`textnb.core.model_io.read_nodes`), when it is a text classifier of a count model
    (:class:`textnb.text.nodes.CountTextModel`), of the wrappers ``textnb train`` writes
    around one (:func:`textnb.text.nodes.wrapped_text_model`: ``--weighting``, ``--select``,
    ``--calibrate``, ``--model auto``; described by the count model inside, over the terms
    it sees, as the estimator path looks through them), or of APNBC around one or around
    ``--model auto`` (:func:`textnb.text.nodes.adjusted_text_model`; then with
    ``apnbc_weights``, :func:`apnbc_weights`, as ``textnb inspect`` adds them for the
    estimator): the kernel's state and estimates stand in for the estimator, so nothing
    imports scikit-learn. None for any other model, or a state the kernel does not take as
    consistent (:func:`~textnb.core.model_io.load` then reports it in its own words). Lazy
    rules on documents, with or without APNBC, are described from their kernels
    (:func:`_lazy_description`). A spamfilter model's ``input`` is added (:func:`_with_input`)."""
    return _with_input(_describe_text_file(root, top), root.state.get("input_"))


def _describe_text_file(root, top):
    """:func:`describe_text_file` without the input."""
    from textnb.text.nodes import CountTextModel, adjusted_text_model, wrapped_text_model

    text = CountTextModel.from_root(root)
    if text is not None:
        return _count_description(text.kind, text, top)
    wrapped = wrapped_text_model(root)
    if wrapped is not None:  # the count model inside, as describe_text_classifier looks through wrappers
        name, text, vocabulary_size = wrapped
        return _with_calibration(_count_description(name, text, top, vocabulary_size),
                                 calibration_method(root.state["model_"]))
    adjusted = adjusted_text_model(root)
    if adjusted is None:
        return _lazy_description(root)
    text, node = adjusted
    classes = node.state["classes_"]
    if text is not None:  # the count model inside, as describe_text_classifier looks through APNBC
        info = _count_description(node.kind, text, top)
    else:  # APNBC around SmoothingCV: the estimator path describes APNBC itself (no terms)
        from textnb.text.defaults import VECTORIZER_DEFAULTS
        from textnb.text.tokenize import StoredVocabulary

        vec = root.state["vectorizer_"]
        info = _text_description(node.kind, SimpleNamespace(classes_=classes),
                                 {k: v for k, v in sorted(node.params.items()) if k != "estimator"},
                                 dict(sorted({**VECTORIZER_DEFAULTS, **vec.params}.items())),
                                 len(StoredVocabulary(vec.state)), {str(c): [] for c in classes})
    info["apnbc_weights"] = apnbc_weights(SimpleNamespace(classes_=classes,
                                                          class_log_weight_=node.state["class_log_weight_"]))
    return info


def _lazy_description(root):
    """:func:`describe_text_classifier` of lazy rules on documents (``LazyTextNB``, or APNBC
    around it: :func:`textnb.semi_naive.lbr_text_io.lazy_model` builds their kernels from the
    nodes): the model itself, no informative terms (it has no global counts), as the
    estimator path describes it; None for any other tree."""
    if root.state.get("model_") is None:  # (not a text classifier: a table model imports no scipy here)
        return None
    from textnb.semi_naive.lbr_text_io import lazy_model
    from textnb.text.defaults import VECTORIZER_DEFAULTS

    parts = lazy_model(root)
    if parts is None:
        return None
    kernel, adjusted, terms, _, vec_params, _ = parts
    model = kernel if adjusted is None else adjusted
    params = {name: getattr(model, name) for name in sorted(model.defaults) if name != "estimator"}
    # its training rows' classes give the documents per class, as every other model shows them (found by a user
    # trial: 'classes: 2' alone, and "class_count": [] in --json)
    info = _text_description(model.kind, SimpleNamespace(classes_=model.classes_, y_index_=kernel.y_index_), params,
                             dict(sorted({**VECTORIZER_DEFAULTS, **vec_params}.items())), len(terms),
                             {c: [] for c in label_names(model)})
    if adjusted is not None:
        info["apnbc_weights"] = apnbc_weights(adjusted)
    return info


def _count_description(name, text, top, vocabulary_size=None):
    """:func:`_text_description` of a :class:`~textnb.text.nodes.CountTextModel`, named
    ``name``; ``vocabulary_size`` when its terms are not the whole vocabulary (term selection)."""
    from textnb.evaluation.inspection import term_log_odds

    model = SimpleNamespace(**text.fitted())
    info = _text_description(name, model, dict(sorted(text.params.items())),
                             dict(sorted(text.vectorizer_params.items())),
                             len(text.terms()) if vocabulary_size is None else vocabulary_size,
                             term_log_odds(model, text.terms(), top))
    if vocabulary_size is not None and len(text.terms()) < vocabulary_size:
        info["selected_terms"] = len(text.terms())  # (--select: the terms the model sees)
    return info


def apnbc_weights(model):
    """APNBC's learned class weights (``classes_``, ``class_log_weight_``) as ``textnb
    inspect`` shows them, ``{class: {"log_weight", "weight"}}``; None for a model without them."""
    if not hasattr(model, "class_log_weight_"):
        return None
    return {str(c): {"log_weight": float(w), "weight": float(np.exp(w)) if w < 700 else float("inf")}
            for c, w in zip(model.classes_, model.class_log_weight_)}


def _documents_per_class(model):
    """The documents per class of a text model's count model (``class_documents_``, else
    ``class_count_``) or, for lazy rules, of its training rows (``y_index_``); [] without."""
    counts = getattr(model, "class_documents_", getattr(model, "class_count_", None))
    if counts is None and getattr(model, "y_index_", None) is not None:
        counts = np.bincount(np.asarray(model.y_index_, dtype=np.intp), minlength=len(model.classes_))
    return [] if counts is None else counts


def _text_description(name, model, params, tokenizer, vocabulary_size, terms, documents=None):
    """The summary of :func:`describe_text_classifier`: the model's kind ``name``, its count
    model's fitted attributes ``model`` and parameters ``params``, the vectorizer's
    parameters ``tokenizer`` and vocabulary size, the informative ``terms``; ``documents``: the
    documents per class when not the model's own (:func:`_documents_per_class`)."""
    extra = {}
    if hasattr(model, "event_model_"):  # DiscriminativeNB: the event model it chose, and its smoothing
        extra = {"event_model": str(model.event_model_), "alpha": float(model.alpha_)}
        if getattr(model, "step_", None) is not None:  # its pass weight (absent in files before 2026-12-06)
            extra["step"] = float(model.step_)
        if getattr(model, "ratios_", None) is not None:  # its log-count ratios (absent in files before 2026-12-07)
            extra["ratios"] = bool(model.ratios_)
        if getattr(model, "scale_", None) is not None:  # its calibration temperature
            extra["calibration_scale"] = float(model.scale_)
            if getattr(model, "scale_merged_", False):  # a merge's average of the parts' scales
                extra["calibration_merged"] = True
        if getattr(model, "residual_strength_", None) is not None:  # its residual layer (dfe.fit_residual)
            extra["residual_strength"] = float(model.residual_strength_)
        elif any(getattr(model, f, None) is not None for f in ("residual_", "residual_presence_")):  # (merged: no strength)
            extra["residual_strength"] = None
        if "residual_strength" in extra:  # what the layer weighs (dfe.layer_features): the terms' presence, a
            # second weight matrix; or the model's own features, folded into its weights
            extra["residual_over"] = "presence" if getattr(model, "residual_presence_", None) is not None \
                else "features"
    return {
        **extra,
        "kind": "text",
        "model": name,
        "params": {k: v for k, v in params.items() if not hasattr(v, "get_params")},
        "tokenizer": tokenizer,
        "classes": label_names(model),
        # documents per class, aligned with classes, as tables (DiscriminativeNB's class_count_
        # also holds its passes' weights)
        "class_count": [float(n) for n in (_documents_per_class(model) if documents is None else documents)],
        "vocabulary_size": vocabulary_size,
        "informative_terms": terms,
    }


def explain_rows(model, X, *, top=10, predicted=None):
    """Why ``model`` decided as it did, one entry per row of ``X``: what ``predict --explain`` shows.

    * a lazy rule model (LBR, LazyTextNB, also inside a wrapper; see
      :mod:`textnb.core.wrapping`): the rule used, a string;
    * a :class:`~textnb.text.classifier.TextClassifier`: :func:`explain` of each document;
      its :class:`~textnb.text.scorer.TextScorer`: :func:`explain_scored` (the same);
    * a mixed table: :func:`explain_table` (attributes, and terms inside text attributes);
    * any other table model: :func:`explain_by_leaving_out` over its training attributes.

    ``predicted``: the label printed for each row (a calibration's may differ from the largest
    score's), the class each explanation is for; None: the largest score's.
    """
    text = sys.modules.get("textnb.text.classifier")  # loaded with any text model
    scorer = sys.modules.get("textnb.text.scorer")
    if rule_model(model) is not None:
        return find(model, lambda m: hasattr(m, "predict_explain")).predict_explain(X)[1]
    labels = [None] * len(X) if predicted is None else list(predicted)
    if text is not None and isinstance(model, text.TextClassifier):
        return [explain(model, doc, top=top, predicted=label) for doc, label in zip(X, labels)]
    if scorer is not None and isinstance(model, scorer.TextScorer):
        return [explain_scored(model, doc, top=top, predicted=label) for doc, label in zip(X, labels)]
    attributes = None
    if find(model, lambda m: hasattr(m, "predict_attribute_terms")) is None:
        attributes = table_attributes(model)
        if attributes is None:
            raise InputError(f"a {type(model).__name__} model does not record its table attributes")
    return explain_table(model, X, top=top, attributes=attributes, predicted=predicted)


def explain_table(model, X, top=10, *, attributes=None, predicted=None):
    """Which attributes, and within text attributes which terms, moved each decision.

    For a :class:`~textnb.text.mixed.MixedNB` (or a wrapper with a fitted ``estimator_``
    around one: APNBC's class weights are added to the prior, a CalibratedNB is
    explained by the model it calibrates). Naive Bayes adds one term per attribute,
    so the margin between the predicted class and the runner-up splits exactly into
    the prior difference plus one contribution per attribute,
    ``log P(x_k | pred) − log P(x_k | runner-up)`` (0 for a missing value); a text
    attribute's contribution splits further into its terms, ``n_w (W_pred,w −
    W_runner-up,w)`` as in :func:`explain` (for a Bernoulli word model the absent words
    make up the rest).

    Any other table model (:class:`~textnb.TabularNB`, TAN, AODE, a Bayesian network,
    their wrappers) is explained by :func:`explain_by_leaving_out`; ``attributes`` (the
    model's training attributes) then name the columns and show their values.

    Returns
    -------
    list of dict
        One per row: ``predicted``, ``runner_up``, ``margin``, ``prior`` and
        ``attributes``, a list of ``{"name", "kind", "value", "contribution"}``
        (largest absolute contribution first; of a model explained by leaving values out, the
        ``top`` largest); text attributes add ``for`` /
        ``against`` term lists (``{"term", "count", "contribution"}``, at most ``top``
        each).
    """
    inner, weight = model, None
    while not hasattr(inner, "predict_attribute_terms"):
        w = getattr(inner, "class_log_weight_", None)
        if w is not None:
            weight = np.asarray(w, dtype=np.float64) + (0.0 if weight is None else weight)
        inner = getattr(inner, "estimator_", None)
        if inner is None:
            return explain_by_leaving_out(model, X, attributes=attributes, predicted=predicted, top=top)
    check_is_fitted(inner)
    prior, terms = inner.predict_attribute_terms(X)
    if weight is not None:
        prior = prior + weight
    X_tab, docs = inner._check_X(X)
    tab_atts = inner.tabular_.attributes_ if inner.tabular_ is not None else []
    tab_sl = column_slices(tab_atts)
    tab_pos = {a.name: k for k, a in enumerate(tab_atts)}
    text_pos = {inner.attributes_[j].name: k for k, j in enumerate(inner._text_positions())}
    names = [a.name for a in inner.attributes_]
    classes = inner.classes_
    n = len(docs[0]) if docs else X_tab.shape[0]
    total = prior[None, :] + sum(terms.values())
    text_models = _text_parts(inner)
    weights = {k: part.linear_weights() for k, part in enumerate(text_models)}
    vocabularies = {k: np.array(part.word_model()[2], dtype=object) for k, part in enumerate(text_models)}

    def attributes_of(i, p, r):
        atts = []
        for name in names:
            a = inner.attributes_[names.index(name)]
            rec = {"name": name, "kind": a.kind, "contribution": float(terms[name][i, p] - terms[name][i, r])}
            if name in text_pos:
                k = text_pos[name]
                doc = docs[k][i]
                rec["value"] = doc[:60] + ("..." if len(doc) > 60 else "")
                rec.update(_text_terms(text_models[k], doc, weights[k], vocabularies[k], p, r, top))
            else:
                rec["value"] = _cell_text(a, X_tab[i, tab_sl[tab_pos[name]]])
            atts.append(rec)
        return atts

    return _explanations(n, total, prior, classes, attributes_of, predicted)  # (top: the terms of text attributes)


def _explanations(n, scores, prior, classes, attributes_of, predicted=None, top=None):
    """The explanations of ``n`` rows from their joint log scores ``scores`` (a row per
    row) and those of the prior ``prior``: the predicted class and the runner-up (ranked
    stably), the margins between them, and the attributes' records that
    ``attributes_of(row, predicted, runner_up)`` gives, largest absolute contribution
    first (ties by name). With fewer than two classes every row is the class, with no
    runner-up and no attributes."""
    out = []
    for i in range(n):
        if len(classes) < 2:
            out.append({"predicted": str(classes[0]), "runner_up": None, "margin": 0.0, "prior": 0.0,
                        "attributes": []})
            continue
        p, r = _told_apart(scores[i], classes, None if predicted is None else predicted[i])
        atts = attributes_of(i, p, r)
        atts.sort(key=lambda d: (-abs(d["contribution"]), d["name"]))
        if top is not None:  # (the --top largest, as a text model's terms are capped: found by a user trial)
            atts = atts[:top]
        out.append({"predicted": str(classes[p]), "runner_up": str(classes[r]),
                    "margin": float(scores[i, p] - scores[i, r]), "prior": float(prior[p] - prior[r]),
                    "attributes": atts})
    return out


#: how far apart, relative to the log scores, two sums of the same terms may be by rounding alone
#: (a few units in the last place of each score: what an explanation takes for 0)
_ROUNDING = 16 * np.finfo(np.float64).eps


def _beyond_rounding(difference, *values):
    """``difference`` (of sums among ``values``, log scores or weights) as a float, 0 when it
    is within their rounding (:data:`_ROUNDING` of the largest, at least 1): two classes'
    equal scores summed in another order differ in their last bits (found by user trials:
    ``m=u +1.11e-16``, ``by 1.78e-15 (prior +8.88e-16)`` of equal classes)."""
    scale = max([abs(float(v)) for v in values] + [1.0])
    return 0.0 if abs(difference) <= _ROUNDING * scale else float(difference)


def explain_by_leaving_out(model, X, *, attributes=None, predicted=None, top=None):
    """Per-attribute contributions of a table model's decisions, by leaving each value out.

    A table model reads NaN as a missing value, which it leaves out of its score (naive
    Bayes drops the attribute's term; TAN, AODE and Bayesian networks marginalise it).
    So the contribution of attribute ``k`` to the margin between the predicted class and
    the runner-up is how much the margin falls when ``x_k`` is made missing,
    ``(s_pred(x) - s_run(x)) - (s_pred(x without x_k) - s_run(x without x_k))`` on the
    joint log scores ``s``, and ``prior`` is the margin of a row with every value missing.
    For naive Bayes (:class:`~textnb.TabularNB`, and APNBC around it) the attribute terms
    are additive, so ``margin = prior + Σ contributions`` exactly, as in
    :func:`explain_table`; for TAN, AODE and networks an attribute also acts through the
    attributes that depend on it, and the contributions need not add up to the margin.

    Parameters
    ----------
    model : fitted table model
        Anything with ``predict_joint_log_proba`` (else ``predict_log_proba``) that
        accepts NaN as missing.
    X : ndarray of shape (n_samples, n_columns)
        Rows as the model reads them (value indices and numbers, NaN = missing).
    attributes : list of Attribute, optional
        The model's training attributes, to name the columns (uncertain attributes take
        several columns) and show the values; without them, columns are ``x0, x1, ...``.

    Returns
    -------
    list of dict
        As :func:`explain_table` (no text attributes).
    """
    check_is_fitted(model)
    model = _before_calibration(model)
    X = np.array(X, dtype=np.float64)
    score = getattr(model, "predict_joint_log_proba", None) or model.predict_log_proba
    if attributes is None:
        names, slices = [f"x{j}" for j in range(X.shape[1])], [slice(j, j + 1) for j in range(X.shape[1])]
        kinds = ["numeric"] * X.shape[1]
    else:
        attributes = list(attributes)
        names, kinds, slices = [a.name for a in attributes], [a.kind for a in attributes], column_slices(attributes)
    classes = model.classes_
    full = np.asarray(score(X), dtype=np.float64)
    base = np.asarray(score(np.full((1, X.shape[1]), np.nan)), dtype=np.float64)[0]
    without = []
    for sl in slices:
        Xm = X.copy()
        Xm[:, sl] = np.nan
        without.append(np.asarray(score(Xm), dtype=np.float64))

    def attributes_of(i, p, r):
        margin = full[i, p] - full[i, r]
        atts = []
        for k, sl in enumerate(slices):
            value = "?" if np.isnan(X[i, sl]).all() else (
                _cell_text(attributes[k], X[i, sl]) if attributes is not None else f"{X[i, sl][0]:g}")
            # a difference within the four scores' rounding is none (found by a user trial: a value equally
            # likely in both classes was shown as +1.11e-16, the scores' last bit)
            change = _beyond_rounding(margin - (without[k][i, p] - without[k][i, r]), full[i, p], full[i, r],
                                      without[k][i, p], without[k][i, r])
            atts.append({"name": str(names[k]), "kind": kinds[k], "value": value, "contribution": change})
        return atts

    return _explanations(X.shape[0], full, base, classes, attributes_of, predicted, top)


def _before_calibration(model):
    """The model a calibration wraps (CalibratedNB's ``estimator_``: the one that declares its
    probabilities calibrated, :func:`textnb.core.wrapping.calibrated`), whose scores leaving a
    value out moves; an isotonic calibration's steps hide them (found by a user trial: every
    attribute of a calibrated TabularNB was credited 0.0). The label explained stays the one
    printed (``predicted``)."""
    for inner in chain(model):  # (the wrappers' walk: the first model whose probabilities are its own)
        if not (callable(getattr(inner, "probabilities_calibrated", None)) and inner.probabilities_calibrated()):
            return inner if hasattr(inner, "classes_") else model
    return model


def _text_parts(model):
    """The text parts of a mixed table model as :class:`~textnb.text.mixed_kernel.TextPart`
    (a kernel's are; the estimator's ``TextClassifier`` are wrapped): what explaining and
    describing them ask, from the model file's nodes or from the estimators alike."""
    from textnb.text.mixed_kernel import TextPart

    return [TextPart.from_estimator(m) for m in model.text_models_]


def _text_terms(part, doc, lw, terms, p, r, top):
    """A text attribute's ``for`` / ``against`` terms in one document: the counts of the
    text part ``part``, its linear weights ``lw`` over the vocabulary ``terms``."""
    W, _, binarize = lw
    counts = part.document_counts(doc)
    x = counts.copy()
    if binarize is not None:
        x = (x > binarize).astype(np.float64)
    contrib = x * (W[p] - W[r])
    nz = np.flatnonzero(contrib)
    pos, neg = nz[contrib[nz] > 0], nz[contrib[nz] < 0]
    pos = pos[np.lexsort((terms[pos].astype(str), -contrib[pos]))][:top]
    neg = neg[np.lexsort((terms[neg].astype(str), contrib[neg]))][:top]

    def listing(idx):
        return [{"term": str(terms[j]), "count": float(counts[j]), "contribution": float(contrib[j])} for j in idx]

    return {"for": listing(pos), "against": listing(neg)}


def _cell_text(attribute, cells):
    """A table cell as the user wrote it (``?`` when missing)."""
    cells = np.asarray(cells, dtype=np.float64)
    if np.isnan(cells[0]):
        return "?"
    if attribute.kind == "nominal":
        return str(attribute.values[int(cells[0])])
    if attribute.kind == "uncertain-numeric":
        return f"[{cells[0]:g},{cells[1]:g}]"
    if attribute.kind == "uncertain-nominal":
        return "{" + ",".join(f"{v}:{q:g}" for v, q in zip(attribute.values, cells) if q > 0) + "}"
    return f"{cells[0]:g}"


def describe_mixed(model, top=10):
    """:meth:`textnb.text.mixed.MixedNB.describe` plus, for every text attribute, its most
    informative terms per class (:func:`informative_terms` of its word model)."""
    from textnb.evaluation.inspection import term_log_odds

    check_is_fitted(model)
    info = model.describe()
    texts = iter(_text_parts(model))
    for a in info["attributes"]:
        if a["kind"] == "text":
            _, fitted, terms, _ = next(texts).word_model()
            a["informative_terms"] = term_log_odds(fitted, terms, top)
    return info
