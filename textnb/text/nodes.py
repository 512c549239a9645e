"""A text classifier of a count model read as its model file's nodes, without the estimators.

A :class:`~textnb.text.classifier.TextClassifier` whose model is a count model
(DiscriminativeNB, MultinomialNB, BernoulliNB, ComplementNB: :data:`textnb.naive_bayes.kernels.KERNELS`)
is, in its model file, a vocabulary and the kernel's state. :class:`CountTextModel` holds
those (:meth:`CountTextModel.from_root` checks them as :func:`textnb.core.model_io.load`
would, or returns None so that ``load`` reports the problem in its own words), so that
``textnb inspect`` describes and ``textnb merge`` adds up such models without importing
scikit-learn. :func:`merge_count_models` is the merge itself, which
:meth:`TextClassifier.merge <textnb.text.classifier.TextClassifier.merge>` uses too.
:func:`adjusted_text_model` reads a text classifier of APNBC (``--adjust``) the same way, and
:func:`wrapped_text_model` one of the wrappers ``textnb train`` writes around a count model
(``--weighting``, ``--select``, ``--calibrate``, ``--model auto``), and :func:`node_count_model`
the count model inside a multi-label model's score model.
"""

import numpy as np

from textnb.core.errors import ModelFileError, SettingsDiffer
from textnb.core.model_io import ModelNode, build, save
from textnb.core.model_schema import check_declared, check_same_settings, dimension_axes
from textnb.core.wrapping import checked_merge
from textnb.naive_bayes.kernels import KERNELS
from textnb.text.defaults import TEXT_CLASSIFIER_DEFAULTS, VECTORIZER_DEFAULTS
from textnb.text.tokenize import decode_terms, encode_terms
from textnb.text.wrappers import term_scores

__all__ = ["CountTextModel", "adjusted_text_model", "keep_terms", "merge_count_models", "merged_label_prefix", "merged_term_counts",
           "node_count_model", "term_goodness", "wrapped_text_model"]


def merge_count_models(first, second):
    """Two text models of count models added up: each a tuple ``(kind, settings,
    vectorizer parameters, terms in column order, the model's state)``, ``settings`` the
    count model's parameters and the classifier's ``max_bytes``; returns the united
    vocabulary (sorted) and the merged state (the kernel's ``merge_states``).

    Raises ValueError (TextClassifier.merge's words) when the kinds differ, and
    :class:`~textnb.core.errors.SettingsDiffer` when two DiscriminativeNB models chose
    another event model or smoothing (the kernel's ``check_same_choices``) or naming the
    parameter when the settings
    (other than execution-only ones, ``n_jobs``, and the kernel's ``merge_ignores``:
    DiscriminativeNB's parameters, whose choices are compared) or the tokenizer settings differ: the
    merged model would keep the first one's, so merging in the other order would give
    another model.
    """
    kind, settings, vec, terms_a, a = first
    other_kind, other_settings, other_vec, terms_b, b = second
    if other_kind != kind:
        raise ValueError(f"cannot merge a {other_kind} model into a {kind}")
    kernel = KERNELS.get(kind)
    ignored = getattr(kernel, "execution_params", ()) + getattr(kernel, "merge_ignores", ())
    check_same_settings(settings, other_settings, skip=ignored)
    if callable(getattr(kernel, "check_same_choices", None)):  # DiscriminativeNB's event model and smoothing
        kernel.check_same_choices(a, b)
    check_same_settings(vec, other_vec, what="tokenizer settings")
    terms = sorted(set(terms_a) | set(terms_b))
    index = {t: i for i, t in enumerate(terms)}
    columns = [np.fromiter((index[t] for t in part), dtype=np.int64, count=len(part)) for part in (terms_a, terms_b)]
    return terms, KERNELS[kind].merge_states(a, b, columns=columns, n_features=len(terms))


def merged_label_prefix(mine, theirs):
    """The fastText label prefix (``--label-prefix``) a merge of two text models keeps: the one
    either part was trained with (None: none kept, the default ``__label__``, or a part not read
    from a fastText file), so that ``textnb test`` and ``predict`` read the merged model's
    fastText files as its parts' (a merge dropped it). Two different prefixes are refused
    with :class:`~textnb.core.errors.SettingsDiffer`: the model keeps one, and ``merge(a, b)``
    would differ from ``merge(b, a)``."""
    from textnb.io.fasttext import DEFAULT_LABEL_PREFIX

    mine, theirs = (None if p == DEFAULT_LABEL_PREFIX else p for p in (mine, theirs))
    if mine is None or theirs is None or mine == theirs:
        return mine if mine is not None else theirs
    raise SettingsDiffer("fastText label prefixes", "label_prefix", mine, theirs,
                         remedy="train the parts from files whose labels start with the same prefix")


def merged_term_counts(terms, first, second):
    """The training occurrences of each of the merged vocabulary's ``terms`` (sorted): the
    sums of two parts' ``(terms, counts)`` (:func:`textnb.fasttext.train_supervised` keeps them,
    fastText's ``get_words(include_freq=True)``); None when a part keeps none (a merge
    kept the first part's counts, wrong for the merged model)."""
    if any(counts is None or len(counts) != len(part) for part, counts in (first, second)):
        return None
    index = {t: i for i, t in enumerate(terms)}
    out = np.zeros(len(terms), dtype=np.float64)
    for part, counts in (first, second):
        np.add.at(out, np.fromiter((index[t] for t in part), dtype=np.int64, count=len(part)),
                  np.asarray(counts, dtype=np.float64))
    return out


def _text_parts(root):
    """``(vectorizer node, model node, rebuild)`` of a text model tree: a TextClassifier, or
    the multi-label Pipeline of a Vectorizer and a MultiLabelNB (``textnb train``'s);
    ``rebuild(vectorizer, model)`` the tree of the same shape with those parts. ValueError for
    another tree."""
    if isinstance(root, ModelNode) and root.kind == "TextClassifier":
        return (root.state.get("vectorizer_"), root.state.get("model_"),
                lambda v, m: ModelNode(root.kind, root.params, {**root.state, "vectorizer_": v, "model_": m}))
    steps = root.params.get("steps") if isinstance(root, ModelNode) and root.kind == "Pipeline" else None
    if isinstance(steps, list) and len(steps) == 2 and all(isinstance(s, tuple) and len(s) == 2 for s in steps):
        (vname, vec), (mname, model) = steps
        return vec, model, lambda v, m: ModelNode(root.kind, {**root.params, "steps": [(vname, v), (mname, m)]},
                                                  root.state)
    raise ValueError(f"not a text model of a count model: a {getattr(root, 'kind', type(root).__name__)}")


def _count_models(node):
    """The count-model nodes a text model's model node scores with: itself (a count model of
    :data:`~textnb.naive_bayes.kernels.KERNELS`), or a MultiLabelNB's (its copy model, or its
    model per label; None for a constant label). ValueError for another model."""
    if isinstance(node, ModelNode) and node.kind in KERNELS:
        return [node]
    if isinstance(node, ModelNode) and node.kind == "MultiLabelNB":
        inner = node.state.get("estimators_") or [node.state.get("estimator_")]
        models = [m for m in inner if m is not None]
        if all(isinstance(m, ModelNode) and m.kind in KERNELS for m in models):
            return models
    kind = getattr(node, "kind", type(node).__name__)
    raise ValueError(f"a {kind} model: not a count model ({', '.join(sorted(KERNELS))}) or a MultiLabelNB of them")


def term_goodness(root, score="ig"):
    """Each vocabulary term's goodness in the text model ``root`` (:func:`keep_terms`' models):
    :func:`textnb.text.wrappers.term_scores` (``"ig"``: information gain, Yang & Pedersen's
    measure that ``--select ig`` ranks by) of the count model's per-class counts of the term
    taken as the documents of the class that hold it (each at most the class's documents: the
    2x2 tables of the measure; short texts seldom hold a term twice), the largest over the
    count models of a multi-label model (its copy model, or its model per label). ValueError
    for a model :func:`keep_terms` does not take."""
    vec, model, _ = _text_parts(root)
    goodness = np.zeros(len(decode_terms(vec.state)))
    for node in _count_models(model):
        documents = np.asarray(node.state.get("class_documents_", node.state["class_count_"]), dtype=np.float64)
        counts = np.minimum(np.asarray(node.state["feature_count_"], dtype=np.float64), documents[:, None])
        np.maximum(goodness, term_scores(counts, documents, score), out=goodness)
    return goodness


def keep_terms(root, columns):
    """The text model tree ``root`` (a TextClassifier of a count model or of a MultiLabelNB of
    count models; the multi-label Pipeline ``textnb train`` writes) restricted to the vocabulary
    ``columns`` (increasing): the vocabulary and its training counts taken at them, and so each
    count model's arrays over the terms (those of dimension ``n_features`` in its kernel's state
    schema). A term left out is then one the model does not know; the count models re-estimate
    their weights from the counts kept (a multinomial or complement model normalises over the
    kept terms only). ValueError for another model, or a vectorizer of a fixed ``vocabulary``."""
    vec, model, rebuild = _text_parts(root)
    columns = np.asarray(columns, dtype=np.int64)
    if not (isinstance(vec, ModelNode) and vec.kind == "Vectorizer") or vec.params.get("vocabulary") is not None:
        raise ValueError("not a Vectorizer that learned its vocabulary")
    terms = decode_terms(vec.state)
    state = {k: v for k, v in vec.state.items() if k not in ("terms", "terms_utf8", "terms_offsets")}
    if state.get("term_counts") is not None:
        state["term_counts"] = np.asarray(state["term_counts"])[columns]
    state.update(encode_terms([terms[j] for j in columns]))
    return rebuild(ModelNode(vec.kind, vec.params, state), _model_kept(model, columns))


def _model_kept(node, columns):
    """:func:`keep_terms` of a model node: a count model's arrays over the terms taken at
    ``columns``, a MultiLabelNB's models likewise."""
    _count_models(node)  # (ValueError for another model)
    if node.kind == "MultiLabelNB":
        state = {**node.state, "n_features_in_": len(columns)}
        for name in ("estimator_", "estimators_"):
            inner = node.state.get(name)
            if isinstance(inner, list):
                state[name] = [m if m is None else _model_kept(m, columns) for m in inner]
            elif inner is not None:
                state[name] = _model_kept(inner, columns)
        return ModelNode(node.kind, node.params, state)
    axes = dimension_axes(KERNELS[node.kind].state_schema, "n_features")
    state = {name: np.take(value, columns, axis=axes[name]) if name in axes and value is not None else value
             for name, value in node.state.items()}
    state["n_features_in_"] = len(columns)
    return ModelNode(node.kind, node.params, state)


def pruning_of(vectorizer_params):
    """``--min-df`` / ``--max-df`` / ``--max-features`` as set in ``vectorizer_params``,
    those away from their defaults (``VECTORIZER_DEFAULTS``), as ``["--max-features 500"]``."""
    params = {**VECTORIZER_DEFAULTS, **vectorizer_params}
    return [f"--{name.replace('_', '-')} {params[name]}" for name in ("min_df", "max_df", "max_features")
            if params[name] != VECTORIZER_DEFAULTS[name]]


def _same_classes(a, b):
    """Whether the root's ``classes_`` ``a`` are its count model's ``b`` (load's check)."""
    return a is not None and np.shape(a) == np.shape(b) and np.array_equal(np.asarray(a), np.asarray(b))


def _count_state(node):
    """``(kernel, parameters, state)`` of a count model's node, checked as
    :func:`~textnb.core.model_io.load` checks it (declared schema, ``from_state``,
    ``estimate``), or None."""
    kernel = KERNELS.get(node.kind) if isinstance(node, ModelNode) and node.state else None
    if kernel is None:
        return None
    try:
        check_declared(kernel.kind, kernel.param_schema, kernel.state_schema, node.params, node.state)
        params = kernel.params(node.params)
        state = kernel.from_state(node.state)
        kernel.estimate(params, state)
    except (ModelFileError, ValueError, TypeError, KeyError, LookupError):
        return None
    return kernel, params, state


def _fitted(kernel, params, state):
    """A count model's fitted attributes, as its estimator has them: its parameters, its
    state and its kernel's estimates."""
    return {**params, **state, **kernel.estimate(params, state)}


class CountTextModel:
    """A text classifier of a count model as its file's nodes: the vectorizer's parameters
    and vocabulary, the count model's kind, parameters and state (its kernel's).

    It has what ``textnb merge`` asks of a model (``classes_``, :meth:`merge`, :meth:`save`,
    the wrapped model in ``model_``: the kernel, which declares ``merges_exactly``) and
    what ``textnb inspect`` describes (:func:`textnb.evaluation.explain.describe_text_file`).
    """

    def __init__(self, root, kernel, params, state, terms):
        # (the file's root node; the kernel, its parameters and state; the terms, or a vocabulary to list them)
        self.root, self.model_, self.params, self.state, self._terms = root, kernel, params, state, terms

    @classmethod
    def from_root(cls, root):
        """The model of a read model file (:func:`textnb.core.model_io.read_nodes`), or None
        when it is not a text classifier of a count model, or not one ``load`` reads: the
        root, its vectorizer and its templates checked as the scorer checks them
        (:func:`textnb.text.scorer.document_model`, load's checks), the count model as its
        kernel takes it (its declared schema, ``from_state``, ``estimate``), its classes the
        root's. So ``textnb merge`` and ``inspect`` read a file exactly where load does (merge
        took a model whose template load refuses, and wrote a merged model nothing loaded)."""
        from textnb.text.scorer import document_model

        parts = document_model(root) if isinstance(root, ModelNode) else None
        if parts is None:
            return None
        node, vocabulary = parts[0], parts[1]
        if node.kind not in KERNELS or not node.state:
            return None
        checked = _count_state(node)
        if checked is None or checked[2]["n_features_in_"] != len(vocabulary) \
                or not _same_classes(root.state.get("classes_"), checked[2]["classes_"]):
            return None
        return cls(root, *checked, vocabulary)

    @property
    def kind(self):
        """The count model's kind (``MultinomialNB``, ...)."""
        return self.model_.kind

    @property
    def classes_(self):
        return self.state["classes_"]

    @property
    def vectorizer_params(self):
        """Every parameter of the vectorizer (its defaults where the file leaves one out)."""
        return {**VECTORIZER_DEFAULTS, **self.root.state["vectorizer_"].params}

    def pruning(self):
        """The vocabulary's pruning options this model was trained with (``min_df``,
        ``max_df``, ``max_features`` away from their defaults): merged models that carry
        any are not the model trained on all the parts (pruning needs the whole corpus)."""
        return pruning_of(self.vectorizer_params)

    def terms(self):
        """The vocabulary, in column order."""
        if not isinstance(self._terms, list):
            self._terms = self._terms.terms()
        return self._terms

    def fitted(self):
        """The count model's fitted attributes: parameters, state and the kernel's estimates."""
        return _fitted(self.model_, self.params, self.state)

    @property
    def settings(self):
        """The count model's parameters, the classifier's ``max_bytes`` and its input
        (``input_``: a spamfilter model's rendered messages): what :func:`merge_count_models`
        compares."""
        return {**self.params, "max_bytes": self.root.params.get("max_bytes", TEXT_CLASSIFIER_DEFAULTS["max_bytes"]),
                "input_": self.root.state.get("input_")}

    @property
    def label_prefix(self):
        """The fastText label prefix the model keeps (``--label-prefix``; after a merge, the
        one a part kept), or None."""
        if not hasattr(self, "_label_prefix"):
            self._label_prefix = self.root.state["vectorizer_"].state.get("label_prefix")
        return self._label_prefix

    @checked_merge
    def merge(self, other):
        """Add the counts of ``other`` (:func:`merge_count_models`), keeping the label prefix
        either part keeps (:func:`merged_label_prefix`); returns self."""
        prefix = merged_label_prefix(self.label_prefix, other.label_prefix)  # (refused before any change)
        parts = [(m.terms(), m.term_counts) for m in (self, other)]
        self._terms, self.state = merge_count_models(
            (self.kind, self.settings, self.vectorizer_params, self.terms(), self.state),
            (other.kind, other.settings, other.vectorizer_params, other.terms(), other.state))
        self._label_prefix = prefix
        self._term_counts = merged_term_counts(self._terms, *parts)
        return self

    @property
    def term_counts(self):
        """Each term's training occurrences (:func:`merged_term_counts`), or None."""
        if not hasattr(self, "_term_counts"):
            self._term_counts = self.root.state["vectorizer_"].state.get("term_counts")
        return self._term_counts

    def to_node(self):
        """The model file's tree, as the estimator writes it."""
        root, vec, node = self.root, self.root.state["vectorizer_"], self.root.state["model_"]
        terms = encode_terms(self.terms())
        prefix = self.label_prefix
        if prefix is not None:  # (textnb.io.fasttext.store_label_prefix)
            terms["label_prefix"] = prefix
        if self.term_counts is not None:  # (textnb.fasttext.train_supervised)
            terms["term_counts"] = np.asarray(self.term_counts, dtype=np.float64)
        state = {"vectorizer_": ModelNode(vec.kind, vec.params, terms),
                 "model_": ModelNode(node.kind, node.params, self.model_.to_state(self.state)),
                 "classes_": self.classes_}
        if "input_" in root.state:  # (a spamfilter model: its documents are rendered messages)
            state["input_"] = root.state["input_"]
        return ModelNode(root.kind, root.params, state)

    def save(self, path):
        """Write the model file (what the estimator's ``save`` writes, byte for byte), checked
        first as :meth:`from_root` reads it (load's checks, which the file-level checks of
        :func:`~textnb.core.model_io.save` for a tree of nodes are not), so that a model load
        would refuse is never written: then refused in load's own words (:func:`build`)."""
        node = self.to_node()
        if CountTextModel.from_root(node) is None:
            try:
                build(node, path)
            except ModelFileError as exc:
                raise ModelFileError(f"{exc}; the model would not load, so it was not written") from None
        save(node, path)


def adjusted_text_model(root):
    """``(count model, APNBC node)`` of a read model file whose text classifier's model is
    :class:`~textnb.semi_naive.apnbc.APNBC` (``textnb train --adjust``) around a model the
    scorer reads (:func:`textnb.text.scorer.scorer_from_tree`: checked as
    :func:`~textnb.core.model_io.load` checks it): the :class:`CountTextModel` of the
    vocabulary and the count model inside (None when APNBC wraps another model, as
    ``--model auto``'s SmoothingCV) and APNBC's node; None for any other file (``load``
    then builds the estimators and reports a problem in its own words)."""
    from textnb.text.scorer import scorer_from_tree

    node = root.state.get("model_") if isinstance(root, ModelNode) and root.kind == "TextClassifier" else None
    if not isinstance(node, ModelNode) or node.kind != "APNBC" or scorer_from_tree(root) is None:
        return None
    inner = node.state["estimator_"]
    count = None
    if inner.kind in KERNELS:
        count = CountTextModel.from_root(ModelNode(root.kind, root.params, {**root.state, "model_": inner}))
        if count is None:
            return None
    return count, node


def wrapped_text_model(root):
    """``(wrapper kind, count model, vocabulary size)`` of a read model file whose text
    classifier's model wraps a count model as ``textnb train`` writes it and the scorer
    reads it (:func:`textnb.text.scorer.scored_count_model`: a Pipeline of term selection
    and weighting, ``--model auto``'s SmoothingCV, CalibratedNB, checked as
    :func:`~textnb.core.model_io.load` checks them): the kind of the classifier's model
    (``Pipeline``, ``SmoothingCV``, ``CalibratedNB``) and the :class:`CountTextModel` of the
    count model inside, whose terms are the vocabulary columns it sees (term selection keeps
    a subset; for describing only: it is not the file's model to merge or save). None for
    any other file, an APNBC (:func:`adjusted_text_model`) or a plain count model
    (:meth:`CountTextModel.from_root`)."""
    from textnb.text.scorer import scored_count_model

    node = root.state.get("model_") if isinstance(root, ModelNode) and root.kind == "TextClassifier" else None
    if not isinstance(node, ModelNode) or node.kind in KERNELS or node.kind == "APNBC":
        return None
    found = _checked_count_model(scored_count_model(root))
    if found is None:
        return None
    checked, columns, scorer = found
    terms = scorer.terms
    return node.kind, CountTextModel(root, *checked, [terms[c] for c in columns]), len(terms)


def node_count_model(node, n_features):
    """``(fitted attributes, columns)`` of the count model a fitted model node over
    ``n_features`` term columns scores with, as :func:`wrapped_text_model` finds a text
    classifier's: the node itself, or the count model inside the wrappers ``textnb train``
    writes (a Pipeline of term selection and weighting, SmoothingCV, CalibratedNB; read as
    the scorer reads them, :func:`textnb.text.scorer.scored_node`, and checked as
    :func:`~textnb.core.model_io.load` checks them): its fitted attributes (:meth:`CountTextModel.fitted`)
    and the columns it sees (term selection keeps a subset). None for any other node (APNBC,
    as :func:`wrapped_text_model`: :func:`adjusted_text_model` reads it). What ``textnb inspect``
    describes a multi-label model's score models from, without the estimators."""
    from textnb.text.scorer import scored_node

    found = _checked_count_model(scored_node(node, n_features))
    if found is None:
        return None
    checked, columns, _ = found
    return _fitted(*checked), columns


def _checked_count_model(found):
    """``(kernel, parameters, state)`` of the count model a scorer's ``(scorer, final node)``
    ``found`` ends in, checked as load checks it (:func:`_count_state`), the term columns it
    sees, and the scorer; None for no scorer, an adjusted one (APNBC) or a count model over
    other columns."""
    if found is None or found[0].adjustment is not None:
        return None
    scorer, final = found
    checked = _count_state(final)
    columns = scorer.feature_columns()
    if checked is None or checked[2]["n_features_in_"] != columns.size:
        return None
    return checked, columns, scorer
