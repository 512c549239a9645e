"""Prediction straight from a model file: no estimator is built, scikit-learn is never imported.

The count models of a text classifier -- multinomial, Bernoulli and complement naive
Bayes -- score a document linearly in its (possibly binarised) term counts::

    jll(d) = f(x_d) @ W.T + b          f = identity, or x > threshold (Bernoulli, binary=True)

:func:`scorer_from_file` reads a model file with :func:`textnb.core.model_io.read_nodes`
(the same checks as :func:`textnb.core.model_io.load`), recomputes ``W`` and ``b`` from
the stored counts with the functions the estimators themselves use
(:mod:`textnb.core.logspace`), and tokenises with the same :class:`~textnb.text.tokenize.Analyzer`
and vocabulary. So it predicts what ``load(path).predict(...)`` predicts, while the
process imports only numpy: a mail filter or ``textnb predict`` on one document starts in
a fraction of the time ``import sklearn`` takes.

Models of other shapes (wrappers such as calibration, APNBC or term weighting, lazy
rules, tables) are not linear in the counts; :func:`scorer_from_file` returns None for
them and callers load the estimator. It also returns None for any state it does not
recognise as consistent, so that :func:`~textnb.core.model_io.load` reports the problem
in its own words.
"""

import math

import numpy as np

from textnb.core.dfe import FAMILIES, SCALE_RANGE, doc_features, model_weights, no_evidence_log_prior
from textnb.core.logspace import (ALPHA_FLOOR, proba_from_jll, bernoulli_log_prob, class_log_prior, complement_log_prob,
                                  log_odds, logsumexp, multinomial_log_prob, prior_where_empty)
from textnb.core.model_io import ModelNode, build, read_nodes
from textnb.core.signatures import init_defaults
from textnb.text.ascii_tokens import TermKeys
from textnb.text.tokenize import StoredVocabulary, analyzer_from_params, batch_term_ids, cell_counts

__all__ = ["TextScorer", "linear_form", "load_for_prediction", "scorer_from_file"]

#: Fewer documents than this are looked up in a dict (building TermKeys costs more) and
#: scored in numpy alone; more are scored with scipy's sparse product.
_FEW_DOCUMENTS = 64


class TextScorer:
    """Scores documents with a linear text model: ``f(counts) @ W.T + b``.

    Parameters
    ----------
    analyzer : Analyzer
        Document -> terms.
    terms : list of str or StoredVocabulary
        The vocabulary, in column order (a model file's, decoded only when needed).
    weights : ndarray of shape (n_classes, n_terms)
    bias : ndarray of shape (n_classes,)
    classes : ndarray of shape (n_classes,)
    binary : bool
        Every term present counts once (the vectorizer's ``binary``).
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
    """

    def __init__(self, analyzer, terms, weights, bias, classes, binary=False, threshold=None, features=None,
                 empty=None):
        self.analyzer = analyzer
        self._vocab = terms if isinstance(terms, StoredVocabulary) else None
        self._terms = None if self._vocab is not None else list(terms)
        self._weights_t = np.ascontiguousarray(np.asarray(weights, dtype=np.float64).T)  # (terms, classes)
        self.bias = np.asarray(bias, dtype=np.float64)
        self.classes_ = np.asarray(classes)
        self.binary = binary
        self.threshold = threshold
        self.features = features
        self.empty = empty
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

    def predict_joint_log_proba(self, docs):
        """Joint log-likelihoods, shape (n_docs, n_classes); ``docs`` are str (or ASCII bytes)."""
        if isinstance(docs, (str, bytes)):
            raise TypeError("expected an iterable of documents, got a single string; wrap it in a list")
        docs = list(docs)
        n_terms, n_classes = self._weights_t.shape
        rows, ids = batch_term_ids(docs, self.analyzer, self._vocabulary(len(docs)), grow=False)
        data, indices, indptr = cell_counts(rows, ids, len(docs), n_terms)
        data = np.ones(data.shape) if self.binary else data.astype(np.float64)
        if self.threshold is not None:
            data = (data > self.threshold).astype(np.float64)
        if self.features is not None:
            data = doc_features(self.features, data, indptr)
        if len(docs) < _FEW_DOCUMENTS:
            jll = _sparse_dot(data, indices, indptr, self._weights_t) + self.bias
        else:
            # a batch: scipy's CSR product (the same arithmetic, in compiled code); importing
            # scipy.sparse costs less than the batch takes
            import scipy.sparse as sp

            X = sp.csr_matrix((data, indices, indptr), shape=(len(docs), n_terms))
            jll = np.asarray(X @ self._weights_t) + self.bias
        if self.empty is not None:  # no known term: the class prior (counts are never 0)
            jll = prior_where_empty(jll, np.diff(indptr) == 0, self.empty)
        return jll

    def predict_log_proba(self, docs):
        """``log P(c | d)``, normalised with log-sum-exp."""
        jll = self.predict_joint_log_proba(docs)
        return jll - logsumexp(jll, axis=1, keepdims=True)

    def predict_proba(self, docs):
        """``P(c | d)``, each row renormalised to sum to 1, as the estimators'
        (:meth:`textnb.naive_bayes.base.BaseNB.predict_proba`) are: the same floats."""
        return proba_from_jll(self.predict_joint_log_proba(docs))

    def predict_log_odds(self, docs):
        """Per-class log-odds (keeps its resolution where probabilities round to 0 or 1)."""
        return log_odds(self.predict_joint_log_proba(docs))

    def predict(self, docs):
        return self.classes_[np.argmax(self.predict_joint_log_proba(docs), axis=1)]


def _sparse_dot(data, indices, indptr, weights_t):
    """``X @ weights_t`` for the CSR matrix ``X = (data, indices, indptr)``.

    Each row accumulates its products in index order, one term at a time, as
    scipy's CSR product does, so the result is the estimators' to the last bit. Step
    ``j`` adds the ``j``-th term of every row that has one: as many vectorised steps as
    the longest document has distinct terms.
    """
    n_rows = indptr.size - 1
    out = np.zeros((n_rows, weights_t.shape[1]))
    lengths = np.diff(indptr)
    order = np.argsort(-lengths, kind="stable")  # rows by length: step j uses a prefix
    starts = indptr[:-1][order]
    sorted_lengths = lengths[order]
    for j in range(int(sorted_lengths[0]) if n_rows else 0):
        active = int(np.searchsorted(-sorted_lengths, -j, side="left"))  # rows longer than j
        rows, cells = order[:active], starts[:active] + j
        out[rows] += weights_t[indices[cells]] * data[cells, None]
    return out


def _number(v, low=0.0):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= low


def _counts(state, n_terms):
    """(classes, class_count, feature_count) when consistent with ``n_terms``, else None."""
    classes = state.get("classes_")
    cc, fc = state.get("class_count_"), state.get("feature_count_")
    if not all(isinstance(a, np.ndarray) for a in (classes, cc, fc)):
        return None
    if classes.ndim != 1 or len(set(classes.tolist())) != classes.size or cc.shape != classes.shape \
            or fc.shape != (classes.size, n_terms) or state.get("n_features_in_") != n_terms:
        return None
    if fc.dtype.kind not in "iuf" or cc.dtype.kind not in "iuf":
        return None
    fc, cc = fc.astype(np.float64), cc.astype(np.float64)
    if not (np.isfinite(fc).all() and np.isfinite(cc).all() and fc.min(initial=0) >= 0 and cc.min(initial=0) >= 0):
        return None
    return classes, cc, fc


def _prior(params, cc):
    class_prior = params["class_prior"]
    if class_prior is not None:
        class_prior = np.asarray(class_prior, dtype=np.float64)
        if class_prior.shape != cc.shape or not np.isfinite(class_prior).all():
            return None
    try:
        return class_log_prior(cc, fit_prior=bool(params["fit_prior"]), class_prior=class_prior)
    except ValueError:
        return None


def linear_form(node, n_terms):
    """``(classes, W, b, threshold)`` of a fitted count-model node, or None if it is not one.

    ``threshold`` is None for counts, else the value above which a count means presence.
    A DiscriminativeNB node gives ``(classes, W, b, None, event_model)``: ``W`` applies to
    its document features.
    """
    if isinstance(node, ModelNode) and node.kind == "DiscriminativeNB":
        return _discriminative_form(node, n_terms)
    if not isinstance(node, ModelNode) or node.kind not in ("MultinomialNB", "BernoulliNB", "ComplementNB"):
        return None
    params = {**init_defaults(node.kind), **node.params}
    alpha, m = params["alpha"], params["m"]
    if not _number(alpha) or (m is not None and not (_number(m) and m > 0)):
        return None
    alpha = float(alpha) if params.get("force_alpha", True) is True else max(float(alpha), ALPHA_FLOOR)
    counts = _counts(node.state, n_terms)
    if counts is None:
        return None
    classes, cc, fc = counts
    prior = _prior(params, cc)
    if prior is None:
        return None
    threshold = None
    if node.kind == "MultinomialNB":
        weights, bias = multinomial_log_prob(fc, alpha, m), prior
    elif node.kind == "BernoulliNB":
        binarize = params["binarize"]
        if binarize is not None and not _number(binarize, low=-math.inf):
            return None
        log_prob, log_neg = bernoulli_log_prob(fc, cc, alpha, m)
        weights, bias, threshold = log_prob - log_neg, prior + log_neg.sum(axis=1), binarize
    else:
        _, weights = complement_log_prob(fc, alpha, m, bool(params["norm"]))
        bias = prior if classes.size == 1 else np.zeros(classes.size)
    return classes, weights, bias, threshold


def _discriminative_form(node, n_terms):
    """:func:`linear_form` of a DiscriminativeNB node, plus its event model; None if inconsistent."""
    family, alpha = node.state.get("event_model_"), node.state.get("alpha_")
    counts = _counts(node.state, n_terms)
    if family not in FAMILIES or not _number(alpha) or counts is None:
        return None
    classes, cc, fc = counts
    scale = node.state.get("scale_", 1.0)
    if not (_number(scale) and SCALE_RANGE[0] <= scale <= SCALE_RANGE[1]):
        return None
    weights, bias = model_weights(family, fc, cc, max(float(alpha), ALPHA_FLOOR), scale)
    if not (np.isfinite(weights).all() and np.isfinite(bias).all()):
        return None
    return classes, weights, bias, None, family


def _no_evidence(node, n_terms):
    """The joint log-likelihood of a document without a known term for a node
    :func:`linear_form` accepted, when it is not the bias (the complement models' class
    prior, as the estimators give it), else None; ValueError for an inconsistent state."""
    if node.kind == "ComplementNB":
        prior = _prior({**init_defaults(node.kind), **node.params}, _counts(node.state, n_terms)[1])
        if prior is None:
            raise ValueError("inconsistent class prior")
        return prior
    if node.kind == "DiscriminativeNB":
        docs = node.state.get("class_documents_")
        n_classes = node.state["classes_"].size
        if not isinstance(docs, np.ndarray) or docs.shape != (n_classes,) or docs.dtype.kind not in "iuf" \
                or not np.isfinite(docs).all() or docs.min(initial=0) < 0:
            raise ValueError("inconsistent class_documents_")
        return no_evidence_log_prior(node.state["event_model_"], docs.astype(np.float64))
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


def _scorer(root):
    """The :class:`TextScorer` of a read model tree, or None."""
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
    form = linear_form(model, len(terms))
    vec_params = {**init_defaults("Vectorizer"), **vec.params}
    analyzer = _analyzer(vec_params)
    if form is None or analyzer is None:
        return None
    try:
        empty = _no_evidence(model, len(terms))
    except ValueError:
        return None
    classes, weights, bias, threshold, *features = form
    return TextScorer(analyzer, terms, weights, bias, classes, bool(vec_params["binary"]), threshold,
                      features[0] if features else None, empty)


def load_for_prediction(path):
    """What predicting from ``path`` needs: a :class:`TextScorer` where the model is a
    linear text model (no scikit-learn imported), else the loaded estimator."""
    root = read_nodes(path)  # read once: the scorer, else the estimator, from the same tree
    scorer = _scorer(root)
    return scorer if scorer is not None else build(root, path)
