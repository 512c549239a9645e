"""Evaluation: seeded stratified cross-validation, held-out tests, metrics.

For documents, every document is tokenised once into one count matrix over all the
terms seen; each fold then prunes the vocabulary with its *training* documents only
(``min_df`` / ``max_df`` / ``max_features``) and fits a fresh model on those columns.
That gives exactly the predictions of fitting a :class:`~textnb.TextClassifier` on
each training fold (terms absent from the training fold are dropped, as unseen
words are), without tokenising every document K times.

Tables need neither scipy nor the text modules: ``scipy.sparse`` and the tokenizer, the
document counting and the text kernels are imported by the functions of documents (the
start-up of ``textnb evaluate`` on a table is most of its time on a small one).
"""

import copy
import time
from collections.abc import Mapping

import numpy as np

from textnb.core.errors import InputError, ParameterError
from textnb.core.folds import class_wide_groups, fewer_folds_note, given_splits, groups_note, stratified_kfold
from textnb.core.logspace import proba_from_jll
from textnb.core.model_io import model_class
from textnb.core.wrapping import fit_weighted, takes_fold_counts, takes_terms
from textnb.meta.labelsets import precision_recall_f1

__all__ = ["KERNEL_FITTED",  # noqa: F822 (defined by __getattr__)
           "classification_report", "confusion_matrix", "count_text", "cross_validate", "evaluate_split",
           "expected_calibration_error", "log_loss", "reliability", "roc", "unfitted_copy", "vectorize_all"]


def __getattr__(name):
    """``KERNEL_FITTED``: the text models that a fold fits from their kernel
    (:mod:`textnb.naive_bayes.kernels`), given as ``(kind, params)`` instead of an estimator
    (no scikit-learn imported); read on first use, so that tables do not import the text
    kernels."""
    if name == "KERNEL_FITTED":
        from textnb.naive_bayes.kernels import KERNELS

        return tuple(KERNELS)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: Confidence bins of the expected calibration error (Guo et al. 2017 use 15).
ECE_BINS = 15


def _weights(sample_weight, n):
    """``sample_weight`` as float64 of shape (n,), or None (every object weighs 1)."""
    if sample_weight is None:
        return None
    w = np.asarray(sample_weight, dtype=np.float64)
    if w.shape != (n,):
        raise ValueError(f"sample_weight has shape {w.shape}; expected ({n},)")
    return w


def _confidence_bins(y_true, proba, classes, n_bins, sample_weight=None):
    """``(documents, summed confidence, right answers)`` per equal-width bin of (0, 1] of
    each document's top-label confidence (its largest probability in ``proba``, columns in
    the order of ``classes``); with ``sample_weight``, each document counted by its weight
    (the documents' weights then, floats)."""
    confidence = proba.max(axis=1)
    correct = (np.asarray(classes)[proba.argmax(axis=1)] == y_true).astype(np.float64)
    bins = np.clip(np.ceil(confidence * n_bins).astype(np.intp) - 1, 0, n_bins - 1)
    w = _weights(sample_weight, len(bins))
    if w is None:
        return (np.bincount(bins, minlength=n_bins), np.bincount(bins, weights=confidence, minlength=n_bins),
                np.bincount(bins, weights=correct, minlength=n_bins))
    return (np.bincount(bins, weights=w, minlength=n_bins), np.bincount(bins, weights=w * confidence, minlength=n_bins),
            np.bincount(bins, weights=w * correct, minlength=n_bins))


def expected_calibration_error(y_true, proba, classes, n_bins=ECE_BINS, sample_weight=None):
    """The expected calibration error of the top label (Naeini, Cooper & Hauskrecht 2015;
    Guo, Pleiss, Sun & Weinberger 2017, eq. 3).

    Each document's confidence (its largest class probability in ``proba``, columns in
    the order of ``classes``) falls into one of ``n_bins`` equal-width bins of (0, 1];
    the ECE is the mean over bins, weighted by their documents, of
    ``|accuracy in the bin - mean confidence in the bin|``: 0 when "0.8" means right 8
    times in 10 at every confidence. ``sample_weight``: each document counted by its weight
    (the bins weighted by their documents' weights).
    """
    y_true, proba = np.asarray(y_true), np.asarray(proba, dtype=np.float64)
    w = _weights(sample_weight, len(y_true))
    n = len(y_true) if w is None else float(w.sum())
    if n == 0:
        return 0.0
    _, confidence, correct = _confidence_bins(y_true, proba, classes, n_bins, w)
    return float(np.abs(correct - confidence).sum() / n)


def reliability(y_true, proba, classes, n_bins=ECE_BINS, sample_weight=None):
    """The reliability diagram's data (DeGroot & Fienberg 1983; Niculescu-Mizil & Caruana
    2005) over the bins of :func:`expected_calibration_error`: per bin of top-label
    confidence ``((k - 1) / n_bins, k / n_bins]``, its ``count`` of documents, their mean
    ``confidence`` and the share of them answered right (``accuracy``); None for both in
    an empty bin. A calibrated model has accuracy equal to confidence in every bin.
    ``sample_weight``: each document counted by its weight (``count`` is then the bin's
    summed weight)."""
    y_true, proba = np.asarray(y_true), np.asarray(proba, dtype=np.float64)
    count, confidence, correct = _confidence_bins(y_true, proba, classes, n_bins, sample_weight)
    mean = [None if k == 0 else float(v / k) for v, k in zip(confidence, count)]
    right = [None if k == 0 else float(v / k) for v, k in zip(correct, count)]
    return {"bins": int(n_bins), "count": count.tolist(), "confidence": mean, "accuracy": right}


#: Most points of the ROC curve a report keeps (the curve's own corners, thinned evenly).
ROC_POINTS = 201


def roc(y_true, score, positive, max_points=ROC_POINTS, sample_weight=None):
    """The ROC curve and its area of the scores ``score`` for the class ``positive``.

    Returns ``{"positive", "auc", "fpr", "tpr"}``, or None when one of the two kinds is
    missing from ``y_true``. ``auc`` is the probability that a positive document scores
    above a negative one, ties counted half (the Mann-Whitney statistic over midranks:
    the area under the curve through the corners of the distinct scores, straight across
    a tie, as scikit-learn's ``roc_auc_score``); ``fpr`` / ``tpr`` are the curve's corners from (0, 0) to (1, 1),
    thinned to at most ``max_points`` evenly spaced ones (the ends kept), for a plot.
    ``sample_weight``: each document counted by its weight (the curve's rates are shares of
    the classes' weights, ``auc`` the weighted probability; None when a kind weighs 0).
    """
    y_true, score = np.asarray(y_true), np.asarray(score, dtype=np.float64)
    if sample_weight is not None:
        return _weighted_roc(y_true == positive, score, str(positive), max_points, _weights(sample_weight, len(score)))
    pos = y_true == positive
    n_pos = int(pos.sum())
    n_neg = len(pos) - n_pos
    if n_pos == 0 or n_neg == 0:
        return None
    order = np.argsort(-score, kind="stable")
    s, p = score[order], pos[order]
    last = np.r_[np.flatnonzero(s[1:] != s[:-1]), len(s) - 1]  # the last document of each distinct score
    tps = np.cumsum(p)[last]
    fps = (last + 1) - tps
    # midranks from the bottom: a group of tied scores shares the mean of its ranks
    first = np.r_[0, last[:-1] + 1]
    rank = (len(s) - last + len(s) - first) / 2.0  # ranks counted from the lowest score (1 = lowest)
    pos_in_group = np.diff(np.r_[0, tps])
    auc = (float(np.dot(pos_in_group, rank)) - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg)
    fpr = np.r_[0.0, fps / n_neg]
    tpr = np.r_[0.0, tps / n_pos]
    return _curve(str(positive), auc, fpr, tpr, max_points)


def _curve(positive, auc, fpr, tpr, max_points):
    if len(fpr) > max_points:
        keep = np.unique(np.round(np.linspace(0, len(fpr) - 1, max_points)).astype(np.intp))
        fpr, tpr = fpr[keep], tpr[keep]
    return {"positive": positive, "auc": float(auc), "fpr": fpr.tolist(), "tpr": tpr.tolist()}


def _weighted_roc(pos, score, positive, max_points, w):
    """:func:`roc` with each document counted by its weight ``w``: the corners of the
    distinct scores from the summed weights of the positives and negatives above each, the
    area by the trapezoids between them (straight across a tie: the weighted Mann-Whitney
    statistic, ties counted half); a document of weight 0 is not there (no corner of its own)."""
    keep = w > 0
    pos, score, w = pos[keep], score[keep], w[keep]
    if not len(w):
        return None
    order = np.argsort(-score, kind="stable")
    s, p, w = score[order], pos[order], w[order]
    last = np.r_[np.flatnonzero(s[1:] != s[:-1]), len(s) - 1]
    tps, fps = np.cumsum(np.where(p, w, 0.0))[last], np.cumsum(np.where(p, 0.0, w))[last]
    w_pos, w_neg = tps[-1], fps[-1]
    if not (w_pos > 0 and w_neg > 0):
        return None
    fpr, tpr = np.r_[0.0, fps / w_neg], np.r_[0.0, tps / w_pos]
    auc = float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2.0))
    return _curve(positive, auc, fpr, tpr, max_points)


def _positions(labels, values):
    """``(at, known)``: the index in ``labels`` (distinct, in any order: sorted, or a model's
    ``classes_`` in a table's declared order) of each of ``values``, and whether it is one of
    them (``at`` is 0 where it is not)."""
    labels, values = np.asarray(labels), np.asarray(values)
    if not len(labels):
        return np.zeros(len(values), dtype=np.intp), np.zeros(len(values), dtype=bool)
    order = np.argsort(labels, kind="stable")
    ordered = labels[order]
    at = np.minimum(np.searchsorted(ordered, values), len(labels) - 1)
    known = ordered[at] == values
    return np.where(known, order[at], 0), known


def confusion_matrix(y_true, y_pred, labels, sample_weight=None):
    """Counts (int64, ``len(labels)`` square; rows: true, columns: predicted, in the order of
    ``labels``), as scikit-learn's ``confusion_matrix(y_true, y_pred, labels=labels)``: rows
    whose true or predicted label is not in ``labels`` are left out. ``sample_weight``: the
    summed weights of the rows instead (float64), as scikit-learn's with ``sample_weight``."""
    labels = np.asarray(labels)
    n_labels = len(labels)
    (t, t_known), (p, p_known) = _positions(labels, y_true), _positions(labels, y_pred)
    keep = t_known & p_known
    w = _weights(sample_weight, len(keep))
    cells = np.bincount(t[keep] * n_labels + p[keep], weights=None if w is None else w[keep],
                        minlength=n_labels * n_labels)
    return cells.astype(np.int64 if w is None else np.float64).reshape(n_labels, n_labels)


def count_text(value, repeats=1):
    """A confusion-matrix cell (or a support) as the reports write it, in text and in a
    plot alike: a count as it is (``12``), a sum of instance weights to 6 significant
    digits (``2.5``), the mean over ``repeats`` > 1 repeated cross-validations to one
    decimal (``4.3``)."""
    if repeats > 1:
        return f"{float(value):.1f}"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    return f"{float(value):g}"


def log_loss(y_true, proba, labels, sample_weight=None):
    """Mean negative log probability of the true labels, as scikit-learn's
    ``log_loss(y_true, proba, labels=labels)``: ``proba``'s columns are the sorted
    ``labels``, clipped to ``[eps, 1 - eps]`` (float64 ``eps``), not renormalised;
    ``sample_weight``: the weighted mean (scikit-learn's with ``sample_weight``).

    Raises
    ------
    ValueError
        A true label not in ``labels``, or ``proba`` with another number of columns.
    """
    classes = np.unique(np.asarray(labels))
    y_true, proba = np.asarray(y_true), np.asarray(proba, dtype=np.float64)
    if proba.ndim != 2 or proba.shape[1] != len(classes) or len(classes) < 2:
        raise ValueError(f"proba needs one column per label ({len(classes)}, at least 2); got shape {proba.shape}")
    at = np.minimum(np.searchsorted(classes, y_true), len(classes) - 1)
    if not np.all(classes[at] == y_true):
        raise ValueError("y_true holds labels that are not in labels")
    eps = np.finfo(np.float64).eps
    losses = -np.log(np.clip(proba[np.arange(len(y_true)), at], eps, 1 - eps))
    w = _weights(sample_weight, len(y_true))
    return float(np.mean(losses) if w is None else np.sum(w * losses) / np.sum(w))


def classification_report(y_true, y_pred, classes, proba=None, unseen=(), sample_weight=None,
                          unseen_by="the model"):
    """Accuracy, macro-F1, per-class precision / recall / F1 / support and the confusion matrix.

    ``classes`` holds every label of ``y_true`` and ``y_pred``, in the order the report names
    them (``textnb evaluate``: the model's, :func:`_report_classes`). Returns a JSON-ready dict.
    ``proba`` (n, n_classes), its columns in the order of ``classes``, if given, adds ``log_loss``,
    ``ece`` (:func:`expected_calibration_error`) and ``reliability`` (:func:`reliability`),
    and for two classes ``roc_auc`` and ``roc`` (:func:`roc`, ``classes[1]`` positive: a
    two-class model's ``classes_[1]``, as scikit-learn takes it; of a model that declares more
    classes, the second of those the data have; with more ``classes`` because a class only
    predicted joined them, the second of the two the truth has: :func:`_roc_positive`).
    ``unseen``: true classes the model never saw (it gave them no probability): no
    ``log_loss`` then, but ``log_loss_omitted`` saying why (``unseen_by``: which model, in
    its words: "the model", or "their fold's model" in a cross-validation). Macro-F1 averages over the
    classes of the truth and the predictions, as scikit-learn's ``f1_score`` does.

    ``sample_weight`` (one per object, >= 0): every figure weighs each object by its weight,
    as Weka's evaluation weighs its test instances -- accuracy, the confusion matrix and the
    supports are sums of weights (floats), precision, recall, F1, log-loss, ECE, the
    reliability bins and the ROC curve weighted likewise; ``n`` stays the number of objects.
    An object of weight 2 counts as two copies of it.
    """
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    classes = list(classes)
    w = _weights(sample_weight, len(y_true))
    matrix = confusion_matrix(y_true, y_pred, classes, w)
    tp = np.diag(matrix)
    p, r, f = precision_recall_f1(tp, matrix.sum(axis=0) - tp, matrix.sum(axis=1) - tp)
    s = matrix.sum(axis=1)
    # macro-F1 over the labels of the truth or the predictions (scikit-learn's f1_score
    # without labels=; ``classes`` holds every one of them): a class neither in the test
    # part nor predicted is left out; a class there whose objects weigh 0 is in (as
    # scikit-learn's unique_labels: found by a user trial, weight 0 dropped it, 0.67 -> 1.0)
    counts = matrix if w is None else confusion_matrix(y_true, y_pred, classes, None)
    present = (counts.sum(axis=1) > 0) | (counts.sum(axis=0) > 0)
    averaged = int(present.sum())
    # the sums over the classes are taken in the classes' sorted order, as scikit-learn's: the
    # figures do not depend on the order the report names them in, to the last bit
    by_name = np.argsort(np.asarray(classes), kind="stable")
    if w is None:
        accuracy = float(np.mean(y_true == y_pred)) if len(y_true) else 0.0
    else:
        total = float(w.sum())
        accuracy = float(np.sum(w[y_true == y_pred]) / total) if total > 0 else 0.0
    support = (lambda v: int(v)) if w is None else (lambda v: float(v))
    report = {
        "n": int(len(y_true)),
        "accuracy": accuracy,
        "macro_f1": float(np.sum(f[by_name][present[by_name]]) / averaged) if averaged else 0.0,
        "classes": [str(c) for c in classes],
        "per_class": {
            str(c): {"precision": float(p[i]), "recall": float(r[i]), "f1": float(f[i]), "support": support(s[i])}
            for i, c in enumerate(classes)
        },
        "confusion_matrix": matrix.tolist(),
    }
    if proba is not None and len(y_true):
        if unseen:
            report["log_loss_omitted"] = (f"test classes {unseen_by} never saw ({', '.join(map(str, unseen[:5]))}"
                                          f"{', ...' if len(unseen) > 5 else ''}): no probability for them")
        else:  # (log_loss takes the columns of the sorted labels, as scikit-learn's)
            report["log_loss"] = float(log_loss(y_true, np.asarray(proba)[:, by_name], classes, w))
        report["ece"] = expected_calibration_error(y_true, proba, classes, sample_weight=w)
        report["reliability"] = reliability(y_true, proba, classes, sample_weight=w)
        positive = _roc_positive(y_true, classes)
        if positive is not None:
            curve = roc(y_true, np.asarray(proba, dtype=np.float64)[:, positive], classes[positive], sample_weight=w)
            if curve is not None:
                report["roc_auc"] = curve["auc"]
                report["roc"] = curve
    return report


def _roc_positive(y_true, classes):
    """The column of ``classes`` whose class is the ROC's positive, or None (no ROC).

    Two classes: the second. More (a class only predicted: a declared class without rows that
    won a row, a class of the model the test part lacks): the second of the two classes the
    truth has, when it has two, in the order of ``classes`` -- the ROC of a two-class truth
    does not depend on what else was predicted."""
    if len(classes) == 2:
        return 1
    truth = [i for i, c in enumerate(classes) if np.any(y_true == c)]
    return truth[1] if len(truth) == 2 else None


def _vectorizer_params(vectorizer):
    """The parameters of ``vectorizer``: a :class:`~textnb.text.vectorizer.Vectorizer`, or
    a dict of the parameters given (the others default)."""
    if isinstance(vectorizer, Mapping):
        from textnb.text.defaults import VECTORIZER_DEFAULTS

        return {**VECTORIZER_DEFAULTS, **vectorizer}
    return vectorizer.get_params(deep=False)


def vectorize_all(texts, vectorizer, *, batch_size=2000):
    """Count matrix of all documents over every term seen (no pruning) and the terms, in
    the (alphabetical) column order ``textnb train`` gives them, so that a fold's pruning
    and selection break ties as training does; ``vectorizer`` is a
    :class:`~textnb.text.vectorizer.Vectorizer` or a dict of its parameters
    (:func:`textnb.text.tokenize.fitting_analyzer`: the stop words checked as a
    Vectorizer's fit checks them)."""
    import scipy.sparse as sp

    from textnb.text.tokenize import TermKeys, count_batch, fitting_analyzer

    analyzer = (fitting_analyzer(_vectorizer_params(vectorizer)) if isinstance(vectorizer, Mapping)
                else vectorizer.build_analyzer())
    vocab = TermKeys()
    blocks = [count_batch(texts[i:i + batch_size], analyzer, vocab, grow=True)
              for i in range(0, len(texts), batch_size)]
    n_terms = len(vocab)
    X = sp.vstack([sp.csr_matrix((b.data, b.indices, b.indptr), shape=(b.shape[0], n_terms))
                   for b in blocks]).tocsr() if blocks else sp.csr_matrix((0, 0))
    order = vocab.sorted_columns()  # column -> its alphabetical place
    rank = np.empty(n_terms, dtype=X.indices.dtype)
    rank[order] = np.arange(n_terms, dtype=X.indices.dtype)
    X.indices = rank[X.indices]
    X.has_sorted_indices = False
    X.sort_indices()
    return X, vocab.terms(order)


def unfitted_copy(model):
    """A new, unfitted model with ``model``'s parameters.

    An estimator (a model with ``get_params``) is copied by scikit-learn's ``clone``; a
    kernel (:class:`~textnb.naive_bayes.kernels.TableKernel`: its parameters are its
    ``defaults``' names) is its class called with deep copies of its parameters, which is
    what ``clone`` does with parameters that are not estimators, without importing
    scikit-learn.
    """
    if hasattr(model, "get_params"):
        from sklearn.base import clone

        return clone(model)
    return type(model)(**{name: copy.deepcopy(getattr(model, name)) for name in model.defaults})


def _fit_predict(model, X_train, y_train, X_test, vectorizer=None, terms=None, sample_weight=None):
    folds = None  # the folds inside a fit (SmoothingCV's, APNBC's): each with the vocabulary of its training part
    if vectorizer is not None:
        from textnb.text.training import fold_counts, fold_vocabularies

        if _smoothing(model):
            folds = fold_vocabularies(X_train, _vectorizer_params(vectorizer), terms)
        X_train, X_test, cols = fold_counts(X_train, X_test, _vectorizer_params(vectorizer))
        if terms is not None:  # the fold's columns' names
            terms = [terms[c] for c in cols]
    if isinstance(model, tuple):
        if sample_weight is not None:
            raise ValueError("a fold fitted from a text model's kernel takes no sample weights")
        return _kernel_fit_predict(model, X_train, y_train, X_test, folds)
    # a model that takes the terms' names (lazy rules) is fitted with them, as textnb train fits it
    fit_params = {"terms": terms} if terms is not None and takes_terms(model) else {}
    if folds is not None:
        fit_params["fold_counts"] = folds
    fitted = fit_weighted(unfitted_copy(model), X_train, y_train, sample_weight, **fit_params)
    return fitted.predict_proba(X_test), fitted.classes_


def _smoothing(model):
    """Whether ``model`` (an estimator, or a kernel's tuple) cross-validates on its training
    matrix (SmoothingCV choosing its smoothing, APNBC's ``fit_on="cv"``, or CalibratedNB or
    APNBC around a SmoothingCV): its ``fit`` takes ``fold_counts``."""
    if isinstance(model, tuple):
        from textnb.text.training import takes_fold_counts_spec

        return takes_fold_counts_spec(model)
    return takes_fold_counts(model)


def _kernel_fit_predict(model, X_train, y_train, X_test, fold_counts=None):
    """What ``Kind(**params).fit(X_train, y_train)`` then ``predict_proba(X_test)`` give
    (``Kind, params = model``, one of :data:`KERNEL_FITTED`; the sparse counts as float64
    as the estimator's input check makes them), fitted by the model's kernel without the
    estimator: ``(proba, classes)``."""
    if len(model) == 3:  # (kind, params, Pipeline steps): wrapped, fitted as textnb train fits it
        return _wrapped_fit_predict(model, X_train, y_train, X_test, fold_counts)
    import scipy.sparse as sp

    from textnb.naive_bayes.kernels import KERNELS

    kind, given = model
    if kind not in KERNELS:
        raise ValueError(f"a fold fits {list(KERNELS)} from the kernel, not {kind}")
    kernel = KERNELS[kind]
    params = kernel.params(given)
    kernel.check_params(params)
    classes, y_index = np.unique(np.asarray(y_train), return_inverse=True)
    state = kernel.fit(params, classes, sp.csr_matrix(X_train, dtype=np.float64), y_index)
    jll = kernel.joint_log_likelihood(params, state, kernel.estimate(params, state),
                                      sp.csr_matrix(X_test, dtype=np.float64))
    if jll is None:  # not a linear model (BernoulliNB with alpha=0): the estimator scores it
        fitted = model_class(kind)(**given).fit(X_train, y_train)
        return fitted.predict_proba(X_test), fitted.classes_
    return proba_from_jll(jll), classes


def _wrapped_fit_predict(model, X_train, y_train, X_test, fold_counts=None):
    """``(proba, classes)`` of ``model`` = ``(kind, params, steps)`` (what
    :func:`textnb.meta.registry.streaming_model` gives ``textnb train``: Pipeline steps, a
    SmoothingCV, a CalibratedNB) fitted on the fold by :func:`textnb.text.training.fit_model`
    and scored by the scorer of its node (:func:`textnb.text.scorer.scorer_from_node`): what
    the estimators' ``fit`` and ``predict_proba`` give, without them."""
    import scipy.sparse as sp

    from textnb.text.scorer import scorer_from_node
    from textnb.text.training import fit_model

    kind, given, steps = model
    classes, y_index = np.unique(np.asarray(y_train), return_inverse=True)
    X_train = sp.csr_matrix(X_train, dtype=np.float64)
    X_train.sort_indices()
    fitted, _ = fit_model((kind, given), steps, classes, X_train, y_index, fold_counts=fold_counts)
    scorer = scorer_from_node(fitted, X_train.shape[1])
    if scorer is None:
        raise ValueError(f"a {kind} fold model that the scorer does not read")
    X_test = sp.csr_matrix(X_test, dtype=np.float64)
    X_test.sort_indices()
    return scorer.predict_proba(X_test), scorer.classes_


def _is_sorted(values):
    values = np.asarray(values)
    return bool(np.all(values[1:] >= values[:-1])) if len(values) > 1 else True


def _report_classes(classes, fitted):
    """The classes a report names: ``classes`` (the data's, distinct) in the order of the
    models' ``classes_`` (``fitted``: one list per fitted model, the folds'), as ``predict``
    and ``inspect`` name them and Weka reports them.

    A table model keeps the class values an ARFF header declares, in their order (the same for
    every fold): the report names the data's classes in that order (a declared class the data
    does not have is left out). Models whose classes are sorted (scikit-learn's ``classes_``:
    every text model, a CSV / TSV table's) give the sorted ``classes``, a class no model has
    (a test class the training part lacks) in its sorted place; in any other order, such a
    class comes after the models' classes, sorted."""
    classes = np.asarray(classes)
    fitted = [np.asarray(f) for f in fitted]
    if all(_is_sorted(f) for f in fitted):
        return np.sort(classes, kind="stable")
    rank = {}
    for f in fitted:  # (first seen, first named: the folds of a declared order all have the same)
        for c in f.tolist():
            rank.setdefault(c, len(rank))
    names = classes.tolist()
    order = sorted(range(len(names)), key=lambda i: (rank.get(names[i], len(rank)), names[i]))
    return classes[np.asarray(order, dtype=np.intp)]


def _model_predictions(p, fitted_classes):
    """The classes a model predicts from its probabilities ``p`` (columns: ``fitted_classes``): the
    first most probable, as its ``predict`` (and ``textnb predict``) decides, a class of its own that
    the data lacks (a declared class no row has) included."""
    fitted_classes = np.asarray(fitted_classes)
    return fitted_classes[np.argmax(np.asarray(p), axis=1)] if len(p) else fitted_classes[:0]


def _collect(y_true, parts, classes):
    """The probabilities of ``parts`` (rows ``idx``, the model's columns ``fitted_classes``)
    in the columns of ``classes`` (in any order: :func:`_report_classes`): a class the data does
    not hold, which a model fitted with declared class values may have (LBR takes an ARFF
    header's), gets no column (the reports name the classes of the data, whatever the model),
    nor does a class the model has no column for get any probability."""
    proba = np.zeros((len(y_true), len(classes)))
    for idx, p, fitted_classes in parts:
        at, known = _positions(classes, fitted_classes)
        proba[np.ix_(idx, at[known])] = np.asarray(p)[:, known]
    return proba


#: The folds of a cross-validation when none are asked for (fewer when no class has as many objects).
DEFAULT_FOLDS = 10


def cross_validate(X, y, model, *, cv=None, repeat=1, seed=0, vectorizer=None, progress=None, terms=None,
                   source=None, sample_weight=None, groups=None):
    """Stratified K-fold cross-validation, ``repeat`` times with seeds ``seed, seed+1, ...``.

    ``X`` is a count matrix (with ``vectorizer`` giving the pruning rules) or a
    tabular array. ``cv`` is a number of stratified, shuffled folds (None: :data:`DEFAULT_FOLDS`,
    or as many as the largest class has objects when it has fewer), or what
    scikit-learn's ``check_cv`` accepts (a splitter, or an iterable of (train, test) index
    arrays: used as given, once, so ``repeat`` must be 1; a row in no test part is not
    predicted, a row in several is predicted once per split and counted each time).
    Returns the report of :func:`classification_report` on the pooled out-of-fold
    predictions, plus ``accuracy_per_repeat`` and ``seconds`` (no ``log_loss`` when a held-out
    object's class is one its fold's model never saw, a class of one object without declared class
    values: ``log_loss_omitted`` says so, as for a test part). ``terms``: the names of the
    columns of a count matrix, handed (those of a fold's columns) to a model whose ``fit``
    takes them (:func:`textnb.core.wrapping.takes_terms`). ``source`` names the file of the
    objects in an error about them.

    ``sample_weight`` (one per object): each fold's model is fitted with its training
    objects' weights (:func:`~textnb.core.wrapping.fit_weighted`, as ``textnb train`` fits
    it), and the report weighs each held-out object by its weight
    (:func:`classification_report`), as Weka's cross-validation does.

    ``groups`` (one value per object; None: each its own): the objects of one group are
    held out in one fold (:func:`textnb.core.folds.stratified_kfold`): the messages of one
    mbox file of a corpus folder (``textnb evaluate``: the messages of a thread quote each
    other, so none is scored by a model that learnt another message of its file). Except
    where one group holds every object of a class (one mbox file per class): held out
    whole, it would leave its fold's model without the class, so those objects are dealt
    to the folds one by one (:func:`~textnb.core.folds.class_wide_groups`) and
    ``groups_note`` names their classes.
    """
    y = np.asarray(y)
    w = _weights(sample_weight, len(y))
    classes = np.unique(y)
    if len(classes) < 2:
        raise InputError(f"only one class ({classes[0]!r}); evaluation needs at least two")
    given = given_splits(cv, X, y)
    if given is not None and repeat != 1:
        raise ParameterError(f"repeat must be 1 with given splits (they are used as given); got {repeat}")
    default = None
    if given is None:
        largest = max(int(np.sum(y == c)) for c in classes)
        if cv is None:  # the default: 10 folds, or as many as the largest class has objects (as Weka's CV runs)
            default = DEFAULT_FOLDS
            cv = max(2, min(DEFAULT_FOLDS, largest))
        cv = int(cv)
        if largest < cv:
            where = f"{source}: " if source else ""  # (the file the objects come from, when given)
            if largest < 2:  # (no number of folds works: the default's, or a smaller --cv, is 2 at least)
                raise InputError(f"{where}every class has one object, so cross-validation cannot run; evaluate on a "
                                 "test file with --test FILE")
            raise InputError(f"{where}no class has {cv} objects, so there cannot be {cv} folds; use a smaller --cv")
    whole_classes = []
    if groups is not None and given is None:
        groups, whole_classes = class_wide_groups(y, groups)
    start = time.perf_counter()
    accuracies, y_all, pred_all, proba_all, w_all, unseen, parts_all = [], [], [], [], [], set(), []
    # (a class with fewer objects than folds is spread over as many folds as it has; with groups, a fold
    # left without a row to test is dropped: fewer groups than folds)
    every = [given] if given is not None else [stratified_kfold(y, cv, seed + r, groups=groups,
                                                                spread=groups is not None) for r in range(repeat)]
    done, total = 0, sum(map(len, every))
    if progress is not None:
        progress(0, total)  # (a bar shows its length from the start)
    for r in range(repeat):
        splits = every[r] if given is None else given
        parts = []
        for train, test in splits:
            if w is not None and not np.any(w[train] > 0):
                where = f"{source}: " if source else ""
                raise InputError(f"{where}the training objects of a fold all weigh 0 (instance weights); give "
                                 "more objects a weight above 0 or use fewer folds")
            p, fitted = _fit_predict(model, X[train], y[train], X[test], vectorizer, terms,
                                     None if w is None else w[train])
            parts.append((test, p, fitted))
            # a held-out class its fold's model never saw (a class of one object, or one of a fold's given
            # training part lacks) has no probability: no log-loss, as a test part's (evaluate_split)
            unseen.update(set(np.unique(y[test]).tolist()) - set(np.asarray(fitted).tolist()))
            done += 1
            if progress is not None:
                progress(done, total)
        if given is None:  # every row held out once
            truth, weight = y, w
            pred = np.empty(len(y), dtype=np.result_type(*[np.asarray(f).dtype for _, _, f in parts]))
            for test, p, f in parts:
                pred[test] = _model_predictions(p, f)
        else:  # each split's test rows, as given
            truth = np.concatenate([y[test] for test, _, _ in parts])
            weight = None if w is None else np.concatenate([w[test] for test, _, _ in parts])
            pred = np.concatenate([_model_predictions(p, f) for _, p, f in parts])
        accuracies.append(float(np.mean(pred == truth)) if weight is None else
                          float(np.sum(weight[pred == truth]) / np.sum(weight)))
        y_all.append(truth)
        pred_all.append(pred)
        parts_all.append(parts)
        w_all.append(weight)
    # the report's classes: the data's and those the models predicted (a declared class no row has, which a
    # table model may predict), in the models' order (a table's declared one)
    classes = _report_classes(np.union1d(classes, np.concatenate(pred_all)),
                              [f for parts in parts_all for _, _, f in parts])
    for parts in parts_all:
        if given is None:
            proba_all.append(_collect(y, parts, classes))
        else:
            proba_all.append(np.vstack([_collect(y[test], [(np.arange(len(test)), p, f)], classes)
                                        for test, p, f in parts]))
    report = classification_report(np.concatenate(y_all), np.concatenate(pred_all), classes,
                                   np.vstack(proba_all), sample_weight=None if w is None else np.concatenate(w_all),
                                   unseen=sorted(unseen), unseen_by="their fold's model")
    if repeat > 1:  # the rates are those of the pooled predictions (each repeat predicts every row once);
        # the counts are each repeat's: supports exact, the confusion matrix its mean over the repeats
        for c in report["per_class"].values():
            c["support"] = c["support"] // repeat if w is None else c["support"] / repeat
        report["confusion_matrix"] = (np.asarray(report["confusion_matrix"]) / repeat).tolist()
    report["n"] = int(len(y))
    report["folds"] = cv if given is None else len(given)
    if default is not None and cv < default:
        report["folds_note"] = f"fewer than the default {default}: no class has {default} objects"
    ran = min(map(len, every))
    fewer = None if given is not None else fewer_folds_note(ran, cv)
    if fewer:  # (grouped: fewer mbox files than folds)
        report["folds"] = ran
        report["folds_note"] = "; ".join(filter(None, (report.get("folds_note"), fewer)))
    if whole_classes:
        report["groups_note"] = groups_note(whole_classes)
    report["repeat"] = repeat
    report["seed"] = seed
    report["accuracy_per_repeat"] = accuracies
    report["seconds"] = time.perf_counter() - start
    return report


def evaluate_split(X_train, y_train, X_test, y_test, model, *, vectorizer=None, terms=None, sample_weight=None,
                   test_weight=None):
    """Train on one part, test on the other; the same report as :func:`cross_validate`
    (``terms`` as it takes them). ``sample_weight``: the training objects' weights, fitted
    with as ``textnb train`` fits them; ``test_weight``: the test objects', which weigh the
    report (:func:`classification_report`; their sum must be above 0)."""
    start = time.perf_counter()
    y_train, y_test = np.asarray(y_train), np.asarray(y_test)
    if len(np.unique(y_train)) < 2:
        raise InputError("only one class in the training data; need at least two")
    test_weight = _weights(test_weight, len(y_test))
    if test_weight is not None and len(y_test) and not np.any(test_weight > 0):
        raise InputError("every test object weighs 0 (instance weights): there is nothing to measure")
    p, fitted = _fit_predict(model, X_train, y_train, X_test, vectorizer, terms, sample_weight)
    pred = _model_predictions(p, fitted)  # (what predict prints)
    # the data's and those predicted (a model may declare more), in the model's order
    classes = _report_classes(np.union1d(np.union1d(np.unique(y_train), np.unique(y_test)), pred), [fitted])
    proba = _collect(y_test, [(np.arange(len(y_test)), p, fitted)], classes)
    unseen = sorted(set(np.unique(y_test).tolist()) - set(np.asarray(fitted).tolist()))
    report = classification_report(y_test, pred, classes, proba, unseen=unseen, sample_weight=test_weight)
    report["seconds"] = time.perf_counter() - start
    return report

