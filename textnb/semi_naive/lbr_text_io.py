"""Lazy Bayesian rules on documents without scikit-learn: training from documents, scoring documents.

:func:`train_lazy_text_model` is what ``TextClassifier(vectorizer=Vectorizer(**vectorizer),
model=LazyTextNB(**params)).fit(docs, labels)`` saves, byte for byte, computed without the
estimators: the documents are counted by the one text pipeline of :mod:`textnb.text.training`
(:func:`~textnb.text.training.count_documents`, keeping every document's row, the vocabulary
pruned by :func:`~textnb.text.training.select_columns`), and the model is fitted by its kernel
(:class:`~textnb.semi_naive.lbr_text_kernel.LazyTextKernel`; with ``adjust``, inside APNBC's
kernel, :class:`~textnb.semi_naive.apnbc_kernel.APNBCKernel`, which hands it the terms' names).
``textnb train DOCS --lazy`` (and ``--lazy ... --adjust``) calls it.

:class:`LazyTextScorer` is what :func:`textnb.text.scorer.load_for_prediction` returns for
such a file, also with APNBC around the lazy model (:data:`textnb.core.registry.SCORER_MODULES`):
the kernel built from the model's node (APNBC's log class weights added to its scores), and
the documents' counts under the stored vocabulary
(:class:`~textnb.text.scorer.DocumentCounts`), scored in batches of ``batch_size`` documents
as ``TextClassifier`` scores them (the local tables of a batch's rules depend on the terms of
the documents in it, so the batches are the estimator's for the same floats). ``textnb
predict``, ``serve`` and ``topicfilter`` use it.

Both import numpy and scipy, not scikit-learn (see :mod:`textnb.semi_naive.lbr_text_kernel`
for why ``scipy.sparse`` stays).
"""

import numpy as np
import scipy.sparse as sp

from textnb.core.errors import ModelFileError, refuse_single_string
from textnb.core.logspace import log_odds, log_proba_from_jll
from textnb.core.model_io import ModelNode, build
from textnb.core.model_schema import check_declared
from textnb.core.wrapping import takes_fold_counts
from textnb.naive_bayes.scoring import Scores
from textnb.semi_naive.apnbc_kernel import APNBCKernel
from textnb.semi_naive.lbr_text_kernel import LazyTextKernel
from textnb.text.defaults import TEXT_CLASSIFIER_DEFAULTS, VECTORIZER_DEFAULTS
from textnb.text.scorer import DocumentCounts, document_model
from textnb.text.tokenize import encode_terms
from textnb.text.training import (check_vocabulary_params, count_labelled, fold_vocabularies, text_classifier_node,
                                  vectorized_rows)

__all__ = ["LazyTextScorer", "lazy_model", "lazy_text_scorer", "train_lazy_text_model"]


def train_lazy_text_model(X, y, *, vectorizer=None, model=None, adjust=None, given_vectorizer=True, n_jobs=None,
                          batch_size=2000, max_bytes=None, progress=None, client=None):
    """Fit lazy Bayesian rules on documents; return the model file's tree and the skipped files.

    The result is what ``TextClassifier(vectorizer=Vectorizer(**vectorizer),
    model=LazyTextNB(**model), ...).fit(X, y)`` saves, exactly (``given_vectorizer`` False
    means ``vectorizer=None``), computed without building the estimators; with ``adjust``,
    what it saves with ``model=APNBC(LazyTextNB(**model), **adjust)`` (``textnb train
    --lazy ... --adjust``): APNBC's kernel
    (:class:`~textnb.semi_naive.apnbc_kernel.APNBCKernel`) around the lazy model's, both
    fitted with the terms' names.

    Parameters
    ----------
    X : iterable of str, bytes or pathlib.Path
        The documents.
    y : array-like of shape (n_documents,)
        Their labels.
    vectorizer : dict, default=None
        The :class:`~textnb.text.vectorizer.Vectorizer` parameters given (the others default).
    model : dict, default=None
        The :class:`~textnb.semi_naive.lbr_text.LazyTextNB` parameters given.
    adjust : dict, default=None
        The :class:`~textnb.semi_naive.apnbc.APNBC` parameters given (but ``estimator``),
        to adjust the lazy model; None: not adjusted.
    n_jobs, batch_size, max_bytes, progress, client
        As :func:`textnb.text.training.train_text_model` takes them (counting only).

    Returns
    -------
    root, skipped
        As :func:`textnb.text.training.train_text_model` returns them: the
        ``TextClassifier`` node to save, the binary documents left out.
    """
    vec_params = {**VECTORIZER_DEFAULTS, **(vectorizer or {})}
    kernel = LazyTextKernel(**(model or {}))
    kernel._check_params()
    if adjust is not None:
        kernel = APNBCKernel(kernel, **adjust)
        kernel._check_params()
    check_vocabulary_params(vec_params["min_df"], vec_params["max_df"], vec_params["max_features"])
    # the estimator fits the model on the whole document-term matrix: every row is kept
    classes, acc, cols, max_bytes = count_labelled(X, y, vec_params, n_jobs=n_jobs, batch_size=batch_size,
                                                   max_bytes=max_bytes, progress=progress, client=client, rows=True)
    X_rows, y_rows, _ = vectorized_rows(acc, cols, vec_params["binary"])
    fit_params = {}
    if takes_fold_counts(kernel):  # (APNBC's fit_on="cv": its folds' vocabularies, as TextClassifier gives them)
        every = acc.vocab.sorted_columns()
        fit_params["fold_counts"] = fold_vocabularies(vectorized_rows(acc, every, vec_params["binary"])[0],
                                                      vec_params, acc.vocab.terms(every))
    kernel.fit(X_rows, classes[y_rows], terms=acc.vocab.terms(cols), **fit_params)
    fitted = kernel.to_node()
    template = type(fitted)(fitted.kind, dict(fitted.params), {})
    root = text_classifier_node(vec_params, encode_terms(acc.vocab, cols), fitted, template, kernel.classes_,
                                max_bytes=max_bytes, given_vectorizer=given_vectorizer)
    return root, acc.skipped


class LazyTextScorer(DocumentCounts, Scores):
    """Scores documents with a fitted :class:`~textnb.semi_naive.lbr_text_kernel.LazyTextKernel`
    (and APNBC's log class weights around it).

    What a ``TextClassifier`` whose model is a ``LazyTextNB``, or an ``APNBC`` around one
    (``adjustment``), predicts, float for float:
    ``predict``, ``predict_proba``, ``predict_log_proba``, ``predict_joint_log_proba``,
    ``predict_log_odds`` (:class:`~textnb.naive_bayes.scoring.Scores`' formulas, as the
    estimator's), ``log_proba_and_odds`` (both in one pass) and ``predict_explain`` /
    ``explain`` (the rule of each document), over documents (str, or ASCII bytes).

    Parameters
    ----------
    kernel : LazyTextKernel
        The fitted model (``model_``).
    analyzer, terms, binary, max_bytes
        As :class:`~textnb.text.scorer.DocumentCounts` takes them: the file's vectorizer.
    batch_size : int, default=2000
        Documents scored together (the ``TextClassifier``'s ``batch_size``, which a model
        file does not store: its default).
    adjustment : ndarray of shape (n_classes,), default=None
        APNBC's log class weights (``class_log_weight_``), added to the lazy model's joint
        log scores (:meth:`~textnb.semi_naive.apnbc_kernel.APNBCKernel.adjusted`); None: no
        APNBC.
    """

    #: capability (:mod:`textnb.core.wrapping`): ``predict_explain`` gives the rule used per document
    explains_by_rules = True

    def __init__(self, kernel, analyzer, terms, binary=False, max_bytes=None, batch_size=None, adjustment=None):
        super().__init__(analyzer, terms, binary, max_bytes)
        self.model_ = kernel
        self.classes_ = kernel.classes_
        self.batch_size = TEXT_CLASSIFIER_DEFAULTS["batch_size"] if batch_size is None else batch_size
        self.adjustment = None if adjustment is None else np.asarray(adjustment, dtype=np.float64)

    def _adjusted(self, jll):
        return jll if self.adjustment is None else APNBCKernel.adjusted(jll, self.adjustment)

    def probabilities_calibrated(self):
        """Whether the probabilities are calibrated (:mod:`textnb.core.wrapping`): never."""
        return False

    def _check_X(self, docs):
        refuse_single_string(docs)
        return list(docs)

    def _batches(self, docs):
        """The count matrices (float64 CSR over the vocabulary) of the documents, batch by batch."""
        n_cols = len(self.terms) if self._vocab is None else len(self._vocab)
        for start in range(0, max(len(docs), 1), int(self.batch_size)):
            batch = docs[start:start + int(self.batch_size)]
            data, indices, indptr = self._cells(batch)
            yield sp.csr_matrix((self.counted(data), indices, indptr), shape=(len(batch), n_cols))

    def _joint_log_likelihood(self, docs):
        parts = [self._adjusted(self.model_.predict_joint_log_proba(X)) for X in self._batches(docs) if X.shape[0]]
        return np.concatenate(parts) if parts else np.zeros((0, len(self.classes_)))

    def log_proba_and_odds(self, docs):
        """``(predict_log_proba(docs), predict_log_odds(docs))`` in one pass over the documents."""
        jll = self._joint_log_likelihood(self._check_X(docs))
        return log_proba_from_jll(jll), log_odds(jll)

    def predict_explain(self, docs):
        """Predictions (adjusted by APNBC's weights, if any) and, per document, the rule of
        the lazy model (the kernel's ``joint_log_proba_and_rules``)."""
        labels, rules = [], []
        for X in self._batches(self._check_X(docs)):
            if X.shape[0]:
                jll, rule = self.model_.joint_log_proba_and_rules(X)
                labels.append(self.classes_[np.argmax(self._adjusted(jll), axis=1)])
                rules.extend(rule)
        return (np.concatenate(labels) if labels else np.array([])), rules

    def explain(self, docs):
        """The rule used for each document (see :meth:`predict_explain`)."""
        return self.predict_explain(docs)[1]


def _lazy_template(node):
    """An unfitted ``LazyTextNB`` node, its parameters as the schema wants them."""
    if node.kind != LazyTextKernel.kind or node.state:
        return False
    check_declared(node.kind, LazyTextKernel._param_schema, LazyTextKernel._state_schema, node.params, {})
    return True


def _adjusted_lazy_template(node):
    """An unfitted ``APNBC`` node around an unfitted ``LazyTextNB`` node, its parameters as
    the schemas want them."""
    if node.kind != APNBCKernel.kind or node.state or not isinstance(node.params.get("estimator"), ModelNode):
        return False
    params = {k: v for k, v in node.params.items() if k != "estimator"}
    schema = {k: v for k, v in APNBCKernel._param_schema.items() if k != "estimator"}
    check_declared(node.kind, schema, {}, params, {})
    return _lazy_template(node.params["estimator"])


def _known_template(node):
    return _lazy_template(node) or _adjusted_lazy_template(node)


def lazy_model(root):
    """``(lazy kernel, APNBC kernel or None, terms, analyzer, vectorizer parameters,
    max_bytes)`` of a read ``TextClassifier`` tree whose model is a ``LazyTextNB`` or an
    ``APNBC`` around one (:func:`textnb.core.model_io.read_nodes`), the kernels built from
    the nodes and checked as :func:`~textnb.core.model_io.load` checks the estimators; None
    for any other tree, or one that is not consistent (``load`` then reports it in its own
    words)."""
    parts = document_model(root, _known_template)
    if parts is None:
        return None
    model, terms, analyzer, vec_params, max_bytes = parts
    if model.kind == APNBCKernel.kind:
        inner = model.state.get("estimator_")
        if not isinstance(inner, ModelNode) or inner.kind != LazyTextKernel.kind:
            return None
        try:
            adjusted = build(model, "model_", kernel=True)  # APNBC's kernel, the lazy kernel inside
        except ModelFileError:
            return None
        kernel = adjusted.estimator_
        if not isinstance(adjusted, APNBCKernel) or not isinstance(kernel, LazyTextKernel):
            return None
    elif model.kind == LazyTextKernel.kind:
        adjusted = None
        try:
            kernel = LazyTextKernel.from_node(model)
        except ModelFileError:
            return None
    else:
        return None
    classes = root.state.get("classes_")
    if (kernel.n_features_in_ != len(terms) or classes is None or np.shape(classes) != np.shape(kernel.classes_)
            or not np.array_equal(classes, kernel.classes_)):
        return None
    return kernel, adjusted, terms, analyzer, vec_params, max_bytes


def lazy_text_scorer(root):
    """The :class:`LazyTextScorer` of a read ``TextClassifier`` tree whose model is a
    ``LazyTextNB`` or an ``APNBC`` around one (:func:`lazy_model`), or None where the tree
    is not one, or not consistent (:func:`~textnb.core.model_io.load` then reports it in its
    own words)."""
    parts = lazy_model(root)
    if parts is None:
        return None
    kernel, adjusted, terms, analyzer, vec_params, max_bytes = parts
    return LazyTextScorer(kernel, analyzer, terms, bool(vec_params["binary"]), max_bytes,
                          adjustment=None if adjusted is None else adjusted.class_log_weight_)
