"""Prediction straight from a model file: no estimator is built, scikit-learn is never imported.

The count models of a text classifier -- multinomial, Bernoulli and complement naive
Bayes -- score a document linearly in its (possibly binarised) term counts::

    jll(d) = f(x_d) @ W.T + b          f = identity, or x > threshold (Bernoulli, binary=True)

:func:`scorer_from_file` reads a model file with :func:`textnb.core.model_io.read_nodes`
(the same checks as :func:`textnb.core.model_io.load`), asks the model's kernel
(:mod:`textnb.naive_bayes.kernels`, which the estimators are adapters of) for its linear
form ``W``, ``b`` from the stored counts, and tokenises with the same :class:`~textnb.text.tokenize.Analyzer`
and vocabulary. So it predicts what ``load(path).predict(...)`` predicts, while the
process imports only numpy: a mail filter or ``textnb predict`` on one document starts in
a fraction of the time ``import sklearn`` takes.

The wrappers of a text model that ``textnb train`` writes are read too, each through the
function its estimator calls (:mod:`textnb.text.wrappers`): a ``Pipeline`` of term selection
(:class:`~textnb.text.selection.SelectTerms`: a column subset) and term weighting
(:class:`~textnb.text.weighting.TermWeighting`: a row-wise transform of the counts) in front
of the count model, :class:`~textnb.meta.smoothing.SmoothingCV` (its refitted model) and
:class:`~textnb.meta.calibration.CalibratedNB` (a map on the model's log-odds) around it.

:class:`~textnb.semi_naive.apnbc.APNBC` (``--adjust``) around any of these adds its learned
log class weights to the scores (:meth:`~textnb.semi_naive.apnbc_kernel.APNBCKernel.adjusted`,
the formula its kernel scores with).

Models of other shapes (lazy rules, tables) are not linear in the counts;
:func:`scorer_from_file` returns None for them and callers load the estimator, or
:func:`load_for_prediction` the scorer their model's module provides
(:data:`textnb.core.registry.SCORER_MODULES`, on the same :class:`DocumentCounts`: the
lazy rules of :mod:`textnb.semi_naive.lbr_text_io`), or the model's kernel. It also
returns None for any state it does not recognise as consistent, so that
:func:`~textnb.core.model_io.load` reports the problem in its own words.
"""

import importlib

import numpy as np

from textnb.core.csr import CSR
from textnb.core.dfe import doc_features
from textnb.core.errors import InputError, ModelFileError, refuse_single_string
from textnb.core.logspace import log_odds, log_proba_from_jll, prior_where_empty, proba_from_jll, proba_from_log_proba
from textnb.core.model_io import ModelNode, build, read_nodes
from textnb.core.model_schema import Any, check_declared
from textnb.core.registry import SCORER_MODULES
from textnb.naive_bayes.kernels import KERNELS
from textnb.io.files import cut_text
from textnb.text.ascii_tokens import TermKeys
from textnb.text.defaults import (TEXT_CLASSIFIER_DEFAULTS, TEXT_CLASSIFIER_OWN_PARAMS, TEXT_CLASSIFIER_OWN_STATE,
                                  VECTORIZER_DEFAULTS, VECTORIZER_PARAMS, VECTORIZER_STATE)
from textnb.text.tokenize import StoredVocabulary, analyzer_from_params, batch_term_ids, cell_counts
from textnb.text.wrappers import (CALIBRATED_PARAMS, CALIBRATED_STATE, PIPELINE_PARAMS, SELECT_DEFAULTS, SELECT_PARAMS,
                                  SELECT_STATE, SMOOTHING_PARAMS, SMOOTHING_STATE, WEIGHTING_DEFAULTS, WEIGHTING_PARAMS,
                                  WEIGHTING_STATE, calibrated_log_proba, support_mask, term_scores, weigh_cells)

__all__ = ["CountScorer", "DocumentCounts", "TextScorer", "document_model", "load_for_prediction", "reads_mail",
           "known_template", "scored_count_model", "scored_node", "scorer_from_file", "scorer_from_node", "scorer_from_tree", "text_model_root",
           "tree_scorer"]

#: Fewer documents than this are looked up in a dict (building TermKeys costs more).
_FEW_DOCUMENTS = 64


class DocumentCounts:
    """The documents' term counts under a model file's vocabulary: what every scorer of a
    ``TextClassifier`` file shares (:class:`TextScorer`; the scorers of
    :data:`textnb.core.registry.SCORER_MODULES`).

    Parameters
    ----------
    analyzer : Analyzer
        Document -> terms.
    terms : list of str or StoredVocabulary
        The vocabulary, in column order (a model file's, decoded only when needed).
    binary : bool
        Every term present counts once (the vectorizer's ``binary``).
    max_bytes : int or None
        Bytes read at most from one document file (the ``TextClassifier``'s ``max_bytes``).
    """

    #: capability (:mod:`textnb.core.wrapping`): scores raw documents
    reads_documents = True
    #: the kind of model file it scores (as the kernels' ``kind``)
    kind = "TextClassifier"

    def __init__(self, analyzer, terms, binary=False, max_bytes=None):
        self.analyzer = analyzer
        self._vocab = terms if isinstance(terms, StoredVocabulary) else None
        self._terms = None if self._vocab is not None else list(terms)
        self.binary = binary
        self.max_bytes = TEXT_CLASSIFIER_DEFAULTS["max_bytes"] if max_bytes is None else max_bytes
        self._dict = None
        self._keys = None

    @property
    def terms(self):
        """The vocabulary (list of str), in column order."""
        if self._terms is None:
            self._terms = self._vocab.terms()
        return self._terms

    def _vocabulary(self, n_docs):
        if n_docs < _FEW_DOCUMENTS:
            if self._dict is None:
                self._dict = dict(zip(self.terms, range(len(self.terms))))
            return self._dict
        if self._keys is None:
            self._keys = self._vocab.term_keys() if self._vocab is not None else TermKeys(self.terms)
        return self._keys

    def _cells(self, docs):
        """The CSR arrays ``(data, indices, indptr)`` of the documents' term counts."""
        max_bytes = self.max_bytes  # (a text cut where training cut it: to_tokenizable's rule)
        docs = [cut_text(d, max_bytes) if isinstance(d, str) else d[:max_bytes] for d in docs]
        n_cols = len(self._vocab) if self._vocab is not None else len(self._terms)
        rows, ids = batch_term_ids(docs, self.analyzer, self._vocabulary(len(docs)), grow=False)
        return cell_counts(rows, ids, len(docs), n_cols)

    def counted(self, data):
        """The vectorizer's counts of term counts ``data``: 1 for every term present with a
        binary vectorizer, else the counts as floats."""
        return np.ones(data.shape) if self.binary else data.astype(np.float64)


class TextScorer(DocumentCounts):
    """Scores documents with a linear text model: ``f(counts) @ W.T + b``.

    Parameters
    ----------
    analyzer, terms, binary, max_bytes
        As :class:`DocumentCounts` takes them.
    weights : ndarray of shape (n_classes, n_terms)
    bias : ndarray of shape (n_classes,)
    classes : ndarray of shape (n_classes,)
    threshold : float or None
        Then counts above it become 1 and the others 0 (Bernoulli's ``binarize``); None
        keeps them.
    features : str or None
        A :class:`~textnb.naive_bayes.discriminative.DiscriminativeNB` event model: the
        counts become its document features (:func:`textnb.core.dfe.doc_features`).
    empty : ndarray of shape (n_classes,) or None
        The joint log-likelihood of a document with no known term, where it is not
        ``bias``: the class prior of the complement models
        (:func:`textnb.core.logspace.prior_where_empty`).
    steps : sequence of :class:`SelectColumns` or :class:`WeighCells`
        Transforms of the counts, in order, before the model's features (a ``Pipeline``'s);
        kept as ``transforms`` (``steps`` names a Pipeline's steps in :mod:`textnb.core.wrapping`).
    calibration : :class:`CalibrationMap` or None
        A map of the model's log-odds to calibrated probabilities (``CalibratedNB``).
    wrapped : bool
        The count model is wrapped (a ``Pipeline``, ``SmoothingCV``, ``CalibratedNB``):
        its log-odds are then computed from ``log P(c | d)``, as the wrappers compute them.
    calibrated : bool
        The probabilities are calibrated (:mod:`textnb.core.wrapping`): by ``calibration``,
        or by a DiscriminativeNB's fitted temperature.
    adjustment : ndarray of shape (n_classes,) or None
        APNBC's log class weights, added to the joint log-likelihoods
        (:meth:`~textnb.semi_naive.apnbc_kernel.APNBCKernel.adjusted`); its log-odds then come
        from the adjusted joint log-likelihoods, as APNBC's.
    presence : ndarray of shape (n_classes, n_terms) or None
        Weights of the terms' presence (after the transforms), added to the scores: a
        DiscriminativeNB's residual layer over presence
        (:class:`~textnb.naive_bayes.kernels.LinearForm`'s ``presence``).
    """

    def __init__(self, analyzer, terms, weights, bias, classes, binary=False, threshold=None, features=None,
                 empty=None, *, steps=(), calibration=None, wrapped=False, max_bytes=None, calibrated=False,
                 adjustment=None, presence=None):
        super().__init__(analyzer, terms, binary, max_bytes)
        self._weights_t = np.ascontiguousarray(np.asarray(weights, dtype=np.float64).T)  # (terms, classes)
        self._presence_t = None if presence is None else \
            np.ascontiguousarray(np.asarray(presence, dtype=np.float64).T)  # a residual layer over presence
        self.bias = np.asarray(bias, dtype=np.float64)
        self.classes_ = np.asarray(classes)
        self.threshold = threshold
        self.features = features
        self.empty = empty
        self.transforms = tuple(steps)
        self.calibration = calibration
        self.wrapped = wrapped or calibration is not None
        self._calibrated = calibrated or calibration is not None
        self.adjustment = None if adjustment is None else np.asarray(adjustment, dtype=np.float64)

    def probabilities_calibrated(self):
        """Whether the probabilities are calibrated (:mod:`textnb.core.wrapping`)."""
        return self._calibrated

    def predict_joint_log_proba(self, docs):
        """Joint log-likelihoods of the count model, shape (n_docs, n_classes); ``docs`` are
        str (or ASCII bytes)."""
        refuse_single_string(docs)
        data, indices, indptr = self._cells(docs)
        return self._joint(data, indices, indptr)

    def model_features(self, data, indices, indptr):
        """The CSR arrays the linear model weighs, from the vectorizer's counts
        (:meth:`counted`): the transforms (term selection, weighting), then ``binarize``
        or DiscriminativeNB's document features; columns as :meth:`feature_columns`."""
        return self._features(*self._transformed(data, indices, indptr))

    def _transformed(self, data, indices, indptr):
        """The CSR arrays of the counts after the transforms (term selection, weighting)."""
        for step in self.transforms:
            data, indices, indptr = step(data, indices, indptr)
        return data, indices, indptr

    def _features(self, data, indices, indptr):
        """The model's features of transformed counts: ``binarize`` or DiscriminativeNB's."""
        if self.threshold is not None:
            data = (data > self.threshold).astype(np.float64)
        if self.features is not None:
            data = doc_features(self.features, data, indptr)
        return data, indices, indptr

    def feature_columns(self):
        """The vocabulary column of each of the model's features (term selection keeps a subset)."""
        columns = np.arange(len(self._vocab) if self._vocab is not None else len(self._terms))
        for step in self.transforms:
            if isinstance(step, SelectColumns):
                columns = columns[step.remap >= 0]
        return columns

    def _joint(self, data, indices, indptr):
        """The joint log-likelihoods of documents of term counts ``(data, indices, indptr)``."""
        data, indices, indptr = self._transformed(self.counted(data), indices, indptr)
        present = None if self._presence_t is None else (data != 0).astype(np.float64)  # (a stored 0: absent)
        data, indices, indptr = self._features(data, indices, indptr)
        # the estimator's products, by the same kernels (textnb.core.csr: no scipy.sparse import)
        X = CSR((data, indices, indptr), (len(indptr) - 1, self._weights_t.shape[0]))
        jll = X @ self._weights_t + self.bias
        if present is not None:  # the layer over presence, as dfe.joint_log_likelihood adds it
            jll += CSR((present, X.indices, X.indptr), X.shape) @ self._presence_t
        if self.empty is not None:  # no known term: the class prior
            jll = prior_where_empty(jll, X.empty_rows(), self.empty)
        return self.adjust(jll)

    def adjust(self, jll):
        """The joint log-likelihoods ``jll`` of the count model (rows of shape (n_classes,))
        with APNBC's log class weights added (its kernel's
        :meth:`~textnb.semi_naive.apnbc_kernel.APNBCKernel.adjusted`), or as they are
        without an APNBC."""
        return jll if self.adjustment is None else _apnbc().adjusted(jll, self.adjustment)

    def _model_log_proba(self, docs):
        jll = self.predict_joint_log_proba(docs)
        return jll, log_proba_from_jll(jll)

    def log_proba_and_odds(self, docs):
        """``(predict_log_proba(docs), predict_log_odds(docs))`` in one pass over the documents."""
        jll, logp = self._model_log_proba(docs)
        odds = self._odds(jll, logp)
        if self.calibration is not None:
            logp = self.calibration(odds)
        return logp, odds

    def proba_and_odds(self, docs):
        """``(predict_proba(docs), predict_log_odds(docs))`` in one pass over the documents:
        the probabilities to the last bit as :meth:`predict_proba` gives them (what
        ``textnb predict`` prints, as ``textnb serve`` and ``topicfilter`` do)."""
        jll, logp = self._model_log_proba(docs)
        odds = self._odds(jll, logp)
        if self.calibration is not None:
            return np.exp(self.calibration(odds)), odds
        return proba_from_log_proba(logp), odds  # (proba_from_jll(jll), log P computed once)

    def _odds(self, jll, logp):
        # a bare count model's log-odds come from its joint log-likelihood; a wrapper's
        # (Pipeline, SmoothingCV, CalibratedNB's raw odds) from log P(c | d)
        if len(self.classes_) == 1 and self.calibration is not None:
            return np.zeros_like(logp)
        return log_odds(logp if self.wrapped else jll)

    def predict_log_proba(self, docs):
        """``log P(c | d)``, normalised with log-sum-exp (calibrated, with a calibration map)."""
        return self.log_proba_and_odds(docs)[0] if self.calibration is not None else self._model_log_proba(docs)[1]

    def predict_proba(self, docs):
        """``P(c | d)``, each row renormalised to sum to 1, as the estimators'
        (:meth:`textnb.naive_bayes.base.BaseNB.predict_proba`) are: the same floats; with a
        calibration map, ``exp`` of the calibrated log-probabilities, as ``CalibratedNB``'s."""
        if self.calibration is not None:
            return np.exp(self.predict_log_proba(docs))
        return proba_from_jll(self.predict_joint_log_proba(docs))

    def predict_log_odds(self, docs):
        """Per-class log-odds (keeps its resolution where probabilities round to 0 or 1); a
        calibrated model's are its count model's, not calibrated (as ``CalibratedNB``'s)."""
        jll, logp = self._model_log_proba(docs)
        return self._odds(jll, logp)

    def predict(self, docs):
        if self.calibration is not None:
            return self.classes_[np.argmax(self.predict_log_proba(docs), axis=1)]
        return self.classes_[np.argmax(self.predict_joint_log_proba(docs), axis=1)]


class CountScorer(TextScorer):
    """A :class:`TextScorer` of count matrices instead of documents: its ``predict*``
    methods take a CSR matrix of term counts (float64, sorted indices) over the model's
    terms, as the estimator of the model takes it (:func:`scorer_from_node`)."""

    reads_documents = False

    def _cells(self, X):
        return X.data, X.indices, X.indptr


def scorer_from_node(node, n_features):
    """A :class:`CountScorer` of a fitted model node over ``n_features`` count columns (a
    count model, a Pipeline ending in one, SmoothingCV, CalibratedNB: what the scorer of a
    file reads), or None; what ``textnb evaluate`` scores a fold's model with."""
    found = scored_node(node, n_features)
    return None if found is None else found[0]


def scored_node(node, n_features):
    """``(scorer, count model node)``: the :class:`CountScorer` of a fitted model node
    (:func:`scorer_from_node`) and the node of the count model it scores with (inside any
    wrappers), or None; what ``textnb inspect`` describes a multi-label model's score models
    from (:func:`textnb.text.nodes.node_count_model`), as :func:`scored_count_model` gives a
    text classifier's."""
    try:
        chain = _unwrap(node, n_features)
    except (ModelFileError, ValueError, TypeError, KeyError, IndexError):
        return None
    if chain is None:
        return None
    transforms, final, n_final, calibration, adjustment = chain
    form = _linear_form(final, n_final)
    if form is None:
        return None
    return CountScorer(None, range(n_features), form.weights, form.bias, form.classes, False, form.threshold,
                       form.event_model, form.empty, steps=transforms, calibration=calibration,
                       wrapped=_wrapped(node), adjustment=adjustment, presence=form.presence), final


def _wrapped(node):
    """Whether the log-odds of the model of ``node`` come from ``log P(c | d)`` (a wrapper's:
    :class:`TextScorer`'s ``wrapped``): not for a count model, nor for APNBC (from its
    adjusted joint log-likelihoods)."""
    return node.kind not in KERNELS and node.kind != "APNBC"


def _apnbc():
    """The APNBC kernel class (a higher layer's: :func:`textnb.core.registry.kernel_class`)."""
    from textnb.core.registry import kernel_class

    return kernel_class("APNBC")


class SelectColumns:
    """A column subset of CSR arrays: ``remap[column]`` is the new column, -1 to drop it
    (:class:`~textnb.text.selection.SelectTerms`' ``transform``; kept columns stay in order)."""

    def __init__(self, mask):
        self.remap = np.full(mask.size, -1, dtype=np.int64)
        self.remap[mask] = np.arange(int(mask.sum()))

    def __call__(self, data, indices, indptr):
        new = self.remap[indices]
        keep = new >= 0
        if keep.all():
            return data, new, indptr
        lengths = np.diff(indptr)
        kept = np.bincount(np.repeat(np.arange(lengths.size), lengths)[keep], minlength=lengths.size)
        out = np.zeros(indptr.size, dtype=np.int64)
        np.cumsum(kept, out=out[1:])
        return data[keep], new[keep], out


class WeighCells:
    """:func:`textnb.text.wrappers.weigh_cells` with a fitted weighting's settings and idf
    (:class:`~textnb.text.weighting.TermWeighting`' ``transform``)."""

    def __init__(self, idf, *, binary, sublinear_tf, length_norm):
        self.idf, self.settings = idf, dict(binary=binary, sublinear_tf=sublinear_tf, length_norm=length_norm)

    def __call__(self, data, indices, indptr):
        return weigh_cells(data, indices, indptr, self.idf, **self.settings), indices, indptr


class CalibrationMap:
    """:func:`textnb.text.wrappers.calibrated_log_proba` with a fitted ``CalibratedNB``'s maps."""

    def __init__(self, method, classes_calibrated, sigmoid, isotonic_x, isotonic_y):
        self.args = (method, classes_calibrated, sigmoid, isotonic_x, isotonic_y)

    def __call__(self, log_odds):
        return calibrated_log_proba(log_odds, *self.args)


def _linear_form(node, n_terms):
    """The kernel's :class:`~textnb.naive_bayes.kernels.LinearForm` of a model node over
    ``n_terms`` terms; None for a model without one, or an inconsistent node (which
    :func:`~textnb.core.model_io.load` then reports in its own words)."""
    kernel = KERNELS.get(node.kind) if isinstance(node, ModelNode) else None
    if kernel is None:
        return None
    try:
        return kernel.node_form(node, n_terms)
    except ModelFileError:
        return None


def _analyzer(params):
    try:
        return analyzer_from_params({**params, "lowercase": bool(params["lowercase"])})
    except (ValueError, TypeError, LookupError):
        return None


def scorer_from_file(path):
    """A :class:`TextScorer` for the text model in ``path``, or None for other models.

    Raises :class:`~textnb.core.errors.ModelFileError` for a file that is not a valid model
    file, exactly as :func:`~textnb.core.model_io.load` does.
    """
    return _scorer(read_nodes(path))


def scorer_from_tree(root):
    """:func:`scorer_from_file` of a model tree already read
    (:func:`~textnb.core.model_io.read_nodes`) or built by
    :func:`textnb.text.training.train_text_model` (the text attributes of a mixed table,
    :class:`textnb.text.mixed_kernel.MixedKernel`): its :class:`TextScorer`, or None."""
    return _scorer(root)


def _scorer(root):
    """The :class:`TextScorer` of a read model tree, or None."""
    found = scored_count_model(root)
    return None if found is None else found[0]


def scored_count_model(root):
    """``(scorer, count model node)``: the :class:`TextScorer` of a read model tree and the
    node of the count model it scores with (inside any wrappers: checked as
    :func:`~textnb.core.model_io.load` checks it), or None where :func:`scorer_from_tree`
    gives None; what ``textnb inspect`` describes a wrapped text model from
    (:func:`textnb.text.nodes.wrapped_text_model`)."""
    parts = document_model(root)
    if parts is None:
        return None
    model, terms, analyzer, vec_params, max_bytes = parts
    try:
        chain = _unwrap(model, len(terms))
    except (ModelFileError, ValueError, TypeError, KeyError, IndexError):
        return None  # load reports it in its own words
    if chain is None:
        return None
    steps, final, n_features, calibration, adjustment = chain
    form = _linear_form(final, n_features)
    if form is None or not _same(root.state.get("classes_"), form.classes):
        return None
    calibrated = final.kind == "DiscriminativeNB" and final.state.get("scale_") is not None
    return TextScorer(analyzer, terms, form.weights, form.bias, form.classes, bool(vec_params["binary"]),
                      form.threshold, form.event_model, form.empty, steps=steps, calibration=calibration,
                      wrapped=_wrapped(model), max_bytes=max_bytes, calibrated=calibrated,
                      adjustment=adjustment, presence=form.presence), final


def document_model(root, template_known=None):
    """``(model node, terms, analyzer, vectorizer parameters, max_bytes)`` of a read
    ``TextClassifier`` tree: its fitted model's node (not checked here), the vocabulary
    (:class:`~textnb.text.tokenize.StoredVocabulary`), the analyzer of its vectorizer and
    the root's ``max_bytes``, with the root, its vectorizer and its templates checked as
    :func:`~textnb.core.model_io.load` checks them (``template_known(node)``: whether the
    model template is one the caller reads; by default the models this module reads);
    None for any other tree, or an inconsistent one (``load`` then reports it in its own
    words)."""
    if root.kind != "TextClassifier":
        return None
    vec, model = root.state.get("vectorizer_"), root.state.get("model_")
    if not isinstance(vec, ModelNode) or vec.kind != "Vectorizer" or not isinstance(model, ModelNode):
        return None
    try:
        terms = StoredVocabulary(vec.state)  # checked now, decoded only if a few documents need it
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        return None
    if not len(terms):  # an empty vocabulary: building the estimator reports it in one line
        return None
    try:
        _check_text_classifier(root, vec, template_known or known_template)
    except (ModelFileError, ValueError, TypeError, KeyError, IndexError):
        return None  # load reports it in its own words
    vec_params = {**VECTORIZER_DEFAULTS, **vec.params}
    analyzer = _analyzer(vec_params)
    if analyzer is None:
        return None
    return model, terms, analyzer, vec_params, root.params.get("max_bytes", TEXT_CLASSIFIER_DEFAULTS["max_bytes"])


def _check_text_classifier(root, vec, template_known):
    """The root's own parameters and state (but for its two models), its unfitted vectorizer
    and model (``template_known``), and the fitted vectorizer's parameters and state, as
    :func:`~textnb.core.model_io.load` checks them."""
    own = {k: v for k, v in root.params.items() if k not in ("vectorizer", "model")}
    check_declared(root.kind, TEXT_CLASSIFIER_OWN_PARAMS, _TEXT_CLASSIFIER_STATE, own, dict(root.state))
    check_declared(vec.kind, VECTORIZER_PARAMS, VECTORIZER_STATE, vec.params, vec.state)
    template = root.params.get("vectorizer")
    if template is not None:
        if not isinstance(template, ModelNode) or template.kind != "Vectorizer" or template.state:
            raise ValueError("not a Vectorizer template")
        check_declared(template.kind, VECTORIZER_PARAMS, VECTORIZER_STATE, template.params, {})
    template = root.params.get("model")
    if template is not None and not (isinstance(template, ModelNode) and template_known(template)):
        raise ValueError("a model template of a kind not read here")


#: TextClassifier's state schema, its two models taken as they are (the callers check them)
_TEXT_CLASSIFIER_STATE = {**TEXT_CLASSIFIER_OWN_STATE, "vectorizer_": Any(), "model_": Any()}


def _same(a, b):
    return a is not None and np.shape(a) == np.shape(b) and np.array_equal(np.asarray(a), np.asarray(b))


def _check(node, template=False):
    """A wrapper's ``node`` checked against its declared schemas as
    :func:`~textnb.core.model_io.load` checks it, but for the fields that hold fitted
    models (the caller checks those); the unfitted models it holds must be of kinds read
    here (``template``: the node is one)."""
    pschema, sschema, nested, templates = _wrapper(node.kind)
    if template:  # its models are all unfitted: templates (a template Pipeline's steps too)
        templates = templates + tuple(k for k in nested if not k.endswith("_"))
    params = {k: v for k, v in node.params.items() if k not in nested}
    state = {k: v for k, v in node.state.items() if k not in nested}
    check_declared(node.kind, {k: v for k, v in pschema.items() if k not in nested},
                   {k: v for k, v in sschema.items() if k not in nested}, params, state)
    for name in nested:  # what the schemas' Model specs require of the values themselves
        if template and name.endswith("_"):
            continue
        value = node.state.get(name) if name.endswith("_") else node.params.get(name)
        if name == "steps":
            if not isinstance(value, list) or not value or len(value) > 100 or any(
                    not isinstance(s, tuple) or len(s) != 2 or not isinstance(s[0], str) or len(s[0]) > 1000
                    or not isinstance(s[1], ModelNode) for s in value):
                raise ValueError("Pipeline steps that are not (name, model) pairs")
        elif name in ("estimator", "estimator_") and not isinstance(value, ModelNode) and not (
                value is None and name == "estimator"):
            raise ValueError(f"{node.kind}.{name} is not a model")
    for value in _nested_values([node.params.get(k) for k in templates]):
        if not known_template(value):
            raise ValueError(f"a {value.kind} template")  # load builds (and checks) it


def _nested_values(values):
    for value in values:
        if isinstance(value, ModelNode):
            yield value
        elif isinstance(value, (list, tuple)):
            yield from _nested_values(value)
        elif isinstance(value, dict):
            yield from _nested_values(value.values())


#: the wrappers this module reads: kind -> (param schema, state schema, fields that hold
#: fitted models, parameters that hold unfitted ones)
_WRAPPERS = {
    "Pipeline": (PIPELINE_PARAMS, {}, ("steps",), ()),
    "SelectTerms": (SELECT_PARAMS, SELECT_STATE, (), ()),
    "TermWeighting": (WEIGHTING_PARAMS, WEIGHTING_STATE, (), ()),
    "SmoothingCV": (SMOOTHING_PARAMS, SMOOTHING_STATE, ("estimator", "estimator_"), ("estimator", "param_grid")),
    "CalibratedNB": (CALIBRATED_PARAMS, CALIBRATED_STATE, ("estimator", "estimator_"), ("estimator",)),
}


def _wrapper(kind):
    """The :data:`_WRAPPERS` entry of ``kind``; APNBC's from its kernel's schemas (not
    imported until a file of it is read), or None."""
    if kind == "APNBC":
        cls = _apnbc()
        return cls._param_schema, cls._state_schema, ("estimator", "estimator_"), ("estimator",)
    return _WRAPPERS.get(kind)


def known_template(node):
    """An unfitted model of a kind read here, its parameters as their schemas want them
    (raises what :func:`~textnb.core.model_schema.check_declared` raises; False: another kind)."""
    if node.state:
        return False
    if node.kind in KERNELS:
        kernel = KERNELS[node.kind]
        check_declared(node.kind, kernel.param_schema, kernel.state_schema, node.params, {})
        return True
    if _wrapper(node.kind) is None:
        return False
    _check(node, template=True)
    return True


def _unwrap(node, n_features):
    """``(steps, count model node, its number of features, calibration map, APNBC log
    weights)`` of a fitted model node over ``n_features`` term columns, or None where it is
    not a (wrapped) linear count model; raises ModelFileError or ValueError for an
    inconsistent node."""
    if not isinstance(node, ModelNode):
        return None
    if node.kind in KERNELS:
        return (), node, n_features, None, None
    if _wrapper(node.kind) is None or node.kind in ("SelectTerms", "TermWeighting"):
        return None
    _check(node)
    if node.kind == "Pipeline":
        if node.state:
            return None
        steps, transforms = list(node.params.get("steps") or ()), []
        if not steps or any(not isinstance(s, (list, tuple)) or len(s) != 2 for s in steps):
            return None
        for _, step in steps[:-1]:
            if step is None or step == "passthrough":
                continue
            transform = _transform(step, n_features)
            if transform is None:
                return None
            transforms.append(transform[0])
            n_features = transform[1]
        inner = _unwrap(steps[-1][1], n_features)
        if inner is None or inner[4] is not None:
            return None  # (an APNBC in a Pipeline: not what textnb writes)
        return tuple(transforms) + tuple(inner[0]), inner[1], inner[2], inner[3], None
    # SmoothingCV, CalibratedNB, APNBC: the fitted model inside, over the same columns and classes
    state = node.state
    inner_node = state.get("estimator_")
    if state.get("n_features_in_") != n_features or not isinstance(inner_node, ModelNode):
        return None
    inner = _unwrap(inner_node, n_features)
    if inner is None or not _same(state.get("classes_"), _classes(inner_node)):
        return None
    if inner[4] is not None:
        return None  # a wrapper around an adjustment: not what textnb writes
    if node.kind == "SmoothingCV":
        return inner
    if inner[3] is not None:
        return None  # a calibration of a calibration, or adjusted: the estimator does it
    if node.kind == "APNBC":  # its weights, one per class (checked against classes_ by its schema)
        return inner[0], inner[1], inner[2], None, np.asarray(state["class_log_weight_"], dtype=np.float64)
    method = node.params.get("method", "sigmoid")
    calibration = CalibrationMap(method, np.asarray(state["calibrated_classes_"], dtype=np.int64),
                                 np.asarray(state["sigmoid_"], dtype=np.float64),
                                 [np.asarray(x, dtype=np.float64) for x in state["isotonic_x_"]],
                                 [np.asarray(y, dtype=np.float64) for y in state["isotonic_y_"]])
    return inner[0], inner[1], inner[2], calibration, None


def _classes(node):
    """The ``classes_`` of a fitted model node (a Pipeline's: its last step's)."""
    if node.kind == "Pipeline":
        steps = node.params.get("steps") or ()
        return _classes(steps[-1][1]) if steps and isinstance(steps[-1][1], ModelNode) else None
    return node.state.get("classes_")


def _transform(node, n_features):
    """``(transform, columns out)`` of a fitted Pipeline step over ``n_features`` columns, or None."""
    if not isinstance(node, ModelNode) or node.kind not in ("SelectTerms", "TermWeighting"):
        return None
    _check(node)
    state, params = node.state, node.params
    if state.get("n_features_in_") != n_features:
        return None
    if node.kind == "SelectTerms":
        params = {**SELECT_DEFAULTS, **params}
        mask = support_mask(term_scores(state["class_df_"], state["class_count_"], params["criterion"]), params["k"])
        return SelectColumns(mask), int(mask.sum())
    params = {**WEIGHTING_DEFAULTS, **params}
    idf = np.asarray(state["idf_"], dtype=np.float64) if params["idf"] is not None else None
    return WeighCells(idf, binary=params["binary"], sublinear_tf=params["sublinear_tf"],
                      length_norm=params["length_norm"]), n_features


#: The ``input_`` of a spamfilter model of rendered messages: ``"mail"`` (rendered by
#: :func:`textnb.apps.filtering.spam_text`), ``"mail-tokens"`` (the mail reader's tokens, as
#: the SpamScorer kinds read them: :func:`textnb.apps.filtering.token_text`).
MAIL_INPUTS = ("mail", "mail-tokens")


def reads_mail(model):
    """Whether ``model`` (a :class:`~textnb.TextClassifier` or its file's scorer) is a
    spamfilter model of rendered messages (``input_`` one of :data:`MAIL_INPUTS`): its inputs
    are then read as messages, as spamfilter reads them
    (:func:`textnb.apps.filtering.message_batches`)."""
    return getattr(model, "input_", None) in MAIL_INPUTS


def text_model_root(root, path=None):
    """A read model tree in the shape the readers of text models take (``textnb predict``,
    ``test``, ``inspect``, ``serve``): ``root`` itself, or one of two shapes of the same model
    saved from the library:

    * a single-label scikit-learn ``Pipeline`` whose first step is a textnb ``Vectorizer`` or
      ``TfidfVectorizer`` (``make_pipeline`` step names or any) as the ``TextClassifier``
      tree it is equivalent to: that vectorizer as ``vectorizer_``, the other steps as
      ``model_`` (the one model, or a ``Pipeline`` of them, as ``textnb train`` writes term
      weighting and selection) and the last step's ``classes_`` (it was taken for a table
      model); read through the scorer where its model is linear;
    * (a ``CalibratedNB`` or ``APNBC`` wrapped around a ``TextClassifier`` is refused with one
      line saying which shape to save: the library reads it, the command line does not;)
    * a ``TextClassifier`` of a multi-label model (``TextClassifier(model=MultiLabelNB())``)
      as the multi-label ``Pipeline`` of its vectorizer and that model, which ``textnb train
      --labels`` writes and the multi-label readers take.
    """
    if not isinstance(root, ModelNode):
        return root
    inner = root.state.get("estimator_")
    if root.kind in _DOCUMENT_WRAPPERS and isinstance(inner, ModelNode) and inner.kind == "TextClassifier":
        raise InputError(f"{path or 'the model file'}: {root.kind}(TextClassifier(...)), saved from the library, is "
                         f"not read by the command line; save TextClassifier(model={root.kind}(...)) instead (the "
                         "shape `textnb train --calibrate` / `--adjust` writes), or load it with textnb.load")
    if root.kind == "TextClassifier":
        vectorizer, model = root.state.get("vectorizer_"), root.state.get("model_")
        if isinstance(model, ModelNode) and model.kind == "MultiLabelNB" and model.state.get("multilabel_") is True:
            return ModelNode("Pipeline", {"memory": None, "steps": [("vectorizer", vectorizer), ("model", model)],
                                          "transform_input": None, "verbose": False}, {})
        return root
    steps = root.params.get("steps") if root.kind == "Pipeline" else None
    if root.state or not isinstance(steps, list) or len(steps) < 2 or not all(
            isinstance(s, tuple) and len(s) == 2 for s in steps):
        return root
    vectorizer, last = steps[0][1], steps[-1][1]
    if not (isinstance(vectorizer, ModelNode) and vectorizer.kind in ("Vectorizer", "TfidfVectorizer")
            and isinstance(last, ModelNode) and last.kind != "MultiLabelNB" and "classes_" in last.state):
        return root
    model = last if len(steps) == 2 else ModelNode("Pipeline", {**root.params, "steps": steps[1:]}, {})
    return ModelNode("TextClassifier", {}, {"vectorizer_": vectorizer, "model_": model,
                                            "classes_": last.state["classes_"]})


#: wrappers the library fits around a model of raw documents (``CalibratedNB(TextClassifier())``)
_DOCUMENT_WRAPPERS = ("CalibratedNB", "APNBC", "SmoothingCV")


def load_for_prediction(path):
    """What predicting from ``path`` needs: a :class:`TextScorer` where the model is a
    linear text model, the scorer of a text model whose model has one
    (:data:`textnb.core.registry.SCORER_MODULES`: lazy rules), the model's kernel where it has one (a table model:
    :data:`textnb.core.registry.KERNEL_MODULES`; neither imports scikit-learn), else the
    loaded estimator. A text model saved in another shape is read as its readers take it (:func:`text_model_root`)."""
    return prediction_model(text_model_root(read_nodes(path), path), path)  # (read once)


def prediction_model(root, path):
    """:func:`load_for_prediction` of the model file ``path`` already read as ``root`` (its
    readers' shape, :func:`text_model_root`): every check a prediction makes of it, so that
    ``textnb inspect`` describes no file that ``predict`` refuses (found by a user trial: a
    text model file whose classes were emptied was described as a healthy model)."""
    scorer = tree_scorer(root)
    if scorer is None:
        return build(root, path, kernel=True)
    if root.kind == "TextClassifier" and "input_" in root.state:  # a spamfilter model: it reads messages
        scorer.input_ = root.state["input_"]
    # the fastText label prefix it was trained with: predict reads labelled lines with it
    from textnb.io.fasttext import stored_label_prefix

    scorer.label_prefix = stored_label_prefix(root)
    return scorer


def tree_scorer(root):
    """The scorer of a model tree in its readers' shape (:func:`text_model_root`): the
    :class:`TextScorer` of a linear text model, or the scorer its model's module provides
    (:data:`textnb.core.registry.SCORER_MODULES`: lazy rules, a multi-label model); None
    for any other tree. What :func:`load_for_prediction` reads a file with, and
    :class:`textnb.fasttext.FastTextModel` a fitted model with
    (:func:`textnb.core.model_io.model_tree`)."""
    return _scorer(root) or _model_scorer(root)


def _model_scorer(root):
    """The scorer of a ``TextClassifier`` tree (or a ``Pipeline``: its last step) whose model has a scorer of its own
    (:data:`textnb.core.registry.SCORER_MODULES`: ``function(root)`` gives it, or None), or None."""
    model = root.state.get("model_") if root.kind == "TextClassifier" else None
    if root.kind == "Pipeline":  # a Pipeline's last step (a multi-label model)
        steps = root.params.get("steps")
        model = steps[-1][1] if isinstance(steps, list) and steps and isinstance(steps[-1], tuple) \
            and len(steps[-1]) == 2 else None
    if not isinstance(model, ModelNode) or model.kind not in SCORER_MODULES:
        return None
    module, function = SCORER_MODULES[model.kind]
    return getattr(importlib.import_module(module), function)(root)
