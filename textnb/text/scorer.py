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

Models of other shapes (wrappers such as calibration, APNBC or term weighting, lazy
rules, tables) are not linear in the counts; :func:`scorer_from_file` returns None for
them and callers load the estimator. It also returns None for any state it does not
recognise as consistent, so that :func:`~textnb.core.model_io.load` reports the problem
in its own words.
"""

import numpy as np

from textnb.core.csr import csr_dot
from textnb.core.dfe import doc_features
from textnb.core.errors import ModelFileError
from textnb.core.logspace import log_odds, logsumexp, prior_where_empty, proba_from_jll
from textnb.core.model_io import ModelNode, build, read_nodes
from textnb.naive_bayes.kernels import KERNELS
from textnb.text.ascii_tokens import TermKeys
from textnb.text.defaults import VECTORIZER_DEFAULTS
from textnb.text.tokenize import StoredVocabulary, analyzer_from_params, batch_term_ids, cell_counts

__all__ = ["TextScorer", "load_for_prediction", "scorer_from_file"]

#: Fewer documents than this are looked up in a dict (building TermKeys costs more).
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

    #: capability (:mod:`textnb.core.wrapping`): scores raw documents
    reads_documents = True
    #: the kind of model file it scores (as the kernels' ``kind``)
    kind = "TextClassifier"

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
        # scipy's CSR product to the last bit, in numpy: importing scipy.sparse would cost
        # more than the products of a file of documents
        jll = csr_dot(data, indices, indptr, self._weights_t) + self.bias
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
    form = _linear_form(model, len(terms))
    vec_params = {**VECTORIZER_DEFAULTS, **vec.params}
    analyzer = _analyzer(vec_params)
    if form is None or analyzer is None:
        return None
    return TextScorer(analyzer, terms, form.weights, form.bias, form.classes, bool(vec_params["binary"]),
                      form.threshold, form.event_model, form.empty)


def load_for_prediction(path):
    """What predicting from ``path`` needs: a :class:`TextScorer` where the model is a
    linear text model, the model's kernel where it has one (a table model:
    :data:`textnb.core.registry.KERNEL_MODULES`; neither imports scikit-learn), else the
    loaded estimator."""
    root = read_nodes(path)  # read once: the scorer, else the kernel or the estimator, from the same tree
    scorer = _scorer(root)
    return scorer if scorer is not None else build(root, path, kernel=True)
