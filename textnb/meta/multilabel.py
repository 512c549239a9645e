"""Multi-label text classification: one-vs-rest naive Bayes with per-label thresholds.

A document may carry several labels (Reuters-21578 topics: ``grain`` and ``wheat``).
The standard treatment (Lewis 1992; Yang 1999; Joachims 1998) is one binary classifier
per label, each with its own decision threshold: a label is assigned when its
log-odds exceed the label's threshold, chosen on out-of-fold scores to maximise that
label's F1 (the "SCut" strategy of Yang 2001). Evaluation uses micro- and macro-averaged
F1 and the precision-recall break-even point.

Corpus layouts read by :func:`read_multilabel_corpus`:

* a label file, one line per document: ``docid<TAB>label1,label2`` (``docid`` the
  path of the document relative to the corpus folder, with or without its extension;
  an empty label list is allowed; blank lines and lines starting with ``#`` skipped);
* one folder per label, the same document (same relative path) in the folder of each
  of its labels: ``corpus/grain/0001.txt`` and ``corpus/wheat/0001.txt``.
"""

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy.special import log_expit, logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.preprocessing import MultiLabelBinarizer
from sklearn.utils import get_tags
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from textnb.meta.calibration import estimator_log_odds, threshold_for_f1
from textnb.io.corpus import _walk_files, open_corpus
from textnb.core.errors import InputError
from textnb.core.model_io import register
from textnb.core.stats import seen_columns
from textnb.core.model_schema import (FOLDS, N_FEATURES, SEED, TEMPLATE, Array, Bool, Choice, Classes, Float,
                                 ListOf, MayBeAbsent, Model, OneOf, Optional)

__all__ = [
    "MultiLabelCorpus",
    "MultiLabelNB",
    "break_even_point",
    "cross_validate_multilabel",
    "multilabel_report",
    "read_label_file",
    "read_multilabel_corpus",
]


# -- corpora -------------------------------------------------------------------------
@dataclass
class MultiLabelCorpus:
    """Documents (paths) and their label sets, in parallel lists.

    ``ids`` are the document ids (relative paths), ``labels`` tuples of str (sorted),
    ``label_names`` every label that occurs, sorted.
    """

    source: str
    ids: list
    documents: list
    labels: list

    @property
    def label_names(self):
        return sorted({lab for labs in self.labels for lab in labs})

    def __len__(self):
        return len(self.documents)

    def label_counts(self):
        counts = {}
        for labs in self.labels:
            for lab in labs:
                counts[lab] = counts.get(lab, 0) + 1
        return dict(sorted(counts.items()))


def read_label_file(path):
    """Read ``docid<TAB>label1,label2`` lines into ``{docid: (labels...)}``.

    Raises InputError (``path:line: problem``) for a line without a TAB, an empty
    document id or a document id given twice.
    """
    path = os.fspath(path)
    out = {}
    try:
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                line = line.rstrip("\r\n")
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                if "\t" not in line:
                    raise InputError(f"{path}:{n}: expected 'docid<TAB>label1,label2'; no TAB in the line")
                doc, labels = line.split("\t", 1)
                doc = doc.strip()
                if not doc:
                    raise InputError(f"{path}:{n}: empty document id")
                if doc in out:
                    raise InputError(f"{path}:{n}: document {doc!r} is listed twice")
                out[doc] = tuple(sorted({lab.strip() for lab in labels.split(",") if lab.strip()}))
    except OSError as exc:
        raise InputError(f"{path}: cannot read label file ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: label file is not UTF-8 text") from None
    return out


def read_multilabel_corpus(path, *, label_file=None):
    """List a multi-label corpus: a folder with a label file, or one folder per label.

    Parameters
    ----------
    path : str or Path
        The corpus folder.
    label_file : str or Path, default=None
        ``docid<TAB>labels`` file; document ids are paths relative to ``path`` (with
        or without the file extension). When None, ``path`` must hold one folder per
        label, and documents with the same relative path in several label folders
        are one document with several labels.

    Returns
    -------
    MultiLabelCorpus
    """
    path = os.fspath(path)
    if not os.path.isdir(path):
        raise InputError(f"{path}: not a folder")
    if label_file is not None:
        table = read_label_file(label_file)
        files = {}
        for f in _walk_files(path):
            rel = Path(os.path.relpath(f, path)).as_posix()
            if os.path.abspath(f) == os.path.abspath(os.fspath(label_file)):
                continue
            files[rel] = f
            stem = rel.rsplit(".", 1)[0] if "." in os.path.basename(rel) else rel
            files.setdefault(stem, f)
        ids, documents, labels = [], [], []
        for doc, labs in table.items():
            f = files.get(doc)
            if f is None:
                raise InputError(f"{label_file}: document {doc!r} is not in {path}")
            ids.append(doc)
            documents.append(Path(f))
            labels.append(labs)
        if not ids:
            raise InputError(f"{label_file}: no documents listed")
        return MultiLabelCorpus(source=path, ids=ids, documents=documents, labels=labels)
    corpus = open_corpus(path)
    if not all(isinstance(d, Path) for d in corpus.documents):
        raise InputError(f"{path}: expected one folder per label")
    by_id = {}
    for doc, label in zip(corpus.documents, corpus.labels):
        rel = Path(os.path.relpath(doc, os.path.join(path, label))).as_posix()
        entry = by_id.setdefault(rel, [doc, set()])
        entry[1].add(label)
    ids = sorted(by_id)
    return MultiLabelCorpus(source=path, ids=ids, documents=[by_id[i][0] for i in ids],
                            labels=[tuple(sorted(by_id[i][1])) for i in ids])


# -- metrics -----------------------------------------------------------------------------
def break_even_point(scores, positive):
    """Precision-recall break-even point of one ranking.

    The documents are ranked by score and cut after as many documents as there are
    positives, ``R``: there precision and recall are both ``tp / R`` (R-precision, the
    usual estimate of the break-even point). Returns NaN when there is no positive.
    """
    scores = np.asarray(scores, dtype=np.float64).ravel()
    positive = np.asarray(positive, dtype=bool).ravel()
    r = int(positive.sum())
    if r == 0:
        return float("nan")
    order = np.argsort(-scores, kind="stable")
    return float(positive[order[:r]].sum() / r)


def multilabel_report(Y_true, Y_pred, labels, scores=None):
    """Micro / macro precision, recall, F1 (and break-even points when ``scores`` given).

    Parameters
    ----------
    Y_true, Y_pred : array-like of shape (n_documents, n_labels), 0/1
    labels : sequence of str
        Label names (columns).
    scores : array-like of shape (n_documents, n_labels), default=None
        Decision scores (larger = more likely), e.g. ``MultiLabelNB.decision_function``.
        Adds per-label ``bep``, ``macro_bep`` (mean over labels with a positive) and
        ``micro_bep`` (one ranking of all document-label pairs).

    Returns
    -------
    dict (JSON-ready)
    """
    T = np.asarray(Y_true.toarray() if sp.issparse(Y_true) else Y_true).astype(bool)
    P = np.asarray(Y_pred.toarray() if sp.issparse(Y_pred) else Y_pred).astype(bool)
    tp = (T & P).sum(axis=0).astype(float)
    fp = (~T & P).sum(axis=0).astype(float)
    fn = (T & ~P).sum(axis=0).astype(float)

    def prf(tp, fp, fn):
        p = tp / (tp + fp) if tp + fp else 0.0
        r = tp / (tp + fn) if tp + fn else 0.0
        f = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0
        return float(p), float(r), float(f)

    per = {}
    for j, lab in enumerate(labels):
        p, r, f = prf(tp[j], fp[j], fn[j])
        per[str(lab)] = {"precision": p, "recall": r, "f1": f, "support": int(T[:, j].sum())}
    mp, mr, mf = prf(tp.sum(), fp.sum(), fn.sum())
    report = {
        "n": int(T.shape[0]),
        "labels": [str(lab) for lab in labels],
        "micro_precision": mp,
        "micro_recall": mr,
        "micro_f1": mf,
        "macro_precision": float(np.mean([v["precision"] for v in per.values()])) if per else 0.0,
        "macro_recall": float(np.mean([v["recall"] for v in per.values()])) if per else 0.0,
        "macro_f1": float(np.mean([v["f1"] for v in per.values()])) if per else 0.0,
        "subset_accuracy": float(np.mean(np.all(T == P, axis=1))) if T.shape[0] else 0.0,
        "hamming_loss": float(np.mean(T != P)) if T.size else 0.0,
        "per_label": per,
    }
    if scores is not None:
        S = np.asarray(scores, dtype=np.float64)
        beps = []
        for j, lab in enumerate(labels):
            b = break_even_point(S[:, j], T[:, j])
            per[str(lab)]["bep"] = None if np.isnan(b) else b
            if not np.isnan(b):
                beps.append(b)
        report["macro_bep"] = float(np.mean(beps)) if beps else None
        micro = break_even_point(S.ravel(), T.ravel())
        report["micro_bep"] = None if np.isnan(micro) else micro
    return report


# -- the classifier --------------------------------------------------------------------------
@register
class MultiLabelNB(ClassifierMixin, BaseEstimator):
    """One-vs-rest naive Bayes with a decision threshold per label.

    ``fit(X, Y)`` with ``Y`` a 0/1 indicator matrix (n_documents, n_labels) or a list of
    label collections (``[("grain", "wheat"), ("earn",), ()]``) trains one binary
    classifier per label. ``predict`` returns the indicator matrix of the labels
    whose log-odds exceed their threshold. A 1-D ``y`` (one label per document) is
    treated as multi-class one-vs-rest: ``predict`` then returns the label with the
    largest log-odds.

    Parameters
    ----------
    estimator : classifier, default=None
        The binary model per label (a textnb model or Pipeline; it is cloned);
        ``textnb.MultinomialNB()`` when None.
    threshold : "f1" or float, default="f1"
        ``"f1"``: per-label thresholds on the log-odds chosen on out-of-fold scores to
        maximise each label's F1 (Yang 2001, SCut); a number: that log-odds threshold
        for every label (0 means ``P > 0.5``).
    cv : int, default=5
        Folds for the out-of-fold scores behind ``"f1"`` thresholds.
    random_state : int, default=0
        Seed of the folds.

    Attributes
    ----------
    classes_ : ndarray of shape (n_labels,)
        Label names (columns of ``Y``).
    estimators_ : list of classifiers
        One binary classifier per label (classes 0 and 1); None for a label that is
        always or never present (its log-odds are then ±inf).
    constant_ : ndarray of shape (n_labels,)
        For such labels, 1 (always) or 0 (never); -1 otherwise.
    thresholds_ : ndarray of shape (n_labels,)
        Log-odds thresholds.
    multilabel_ : bool
        Whether ``Y`` was multi-label (indicator / label sets) or 1-D.

    References
    ----------
    Y. Yang (2001). A study of thresholding strategies for text categorization. SIGIR.

    Examples
    --------
    >>> from textnb.meta.multilabel import MultiLabelNB
    >>> X = [[3, 0, 0], [0, 3, 0], [2, 2, 0], [0, 0, 3]] * 3
    >>> Y = [("grain",), ("wheat",), ("grain", "wheat"), ()] * 3
    >>> MultiLabelNB(threshold=0.0).fit(X, Y).predict([[2, 2, 0]]).tolist()
    [[1, 1]]
    """

    _param_schema = {
        "estimator": TEMPLATE, "threshold": OneOf(Choice("f1"), Float()), "cv": FOLDS, "random_state": SEED,
    }
    _state_schema = {
        "classes_": Classes("n_labels"),
        "estimators_": ListOf(Optional(Model(dims={"n_features_in_": "n_features"}, equal={"classes_": (0, 1)})),
                              length="n_labels"),
        "constant_": Array("iu", ("n_labels",), lo=-1, hi=1),
        "thresholds_": Array("f", ("n_labels",), finite="no-nan"),
        "multilabel_": Bool(),
        "n_features_in_": N_FEATURES,
        "feature_names_in_": MayBeAbsent(Array("U", (None,))),
    }

    def __init__(self, estimator=None, *, threshold="f1", cv=5, random_state=0):
        self.estimator = estimator
        self.threshold = threshold
        self.cv = cv
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        inner = get_tags(self._base())
        tags.input_tags.sparse = inner.input_tags.sparse
        tags.input_tags.positive_only = inner.input_tags.positive_only
        tags.classifier_tags.multi_label = True
        tags.classifier_tags.poor_score = True
        tags.target_tags.multi_output = True
        return tags

    def _base(self):
        if self.estimator is not None:
            return self.estimator
        from textnb.naive_bayes.discrete import MultinomialNB

        return MultinomialNB()

    def _indicator(self, y):
        """(Y, classes, multilabel) from an indicator matrix, label sets or 1-D labels."""
        if y is None:
            raise ValueError("MultiLabelNB requires y to be passed, but the target y is None")
        if sp.issparse(y):
            y = y.toarray()
        if isinstance(y, np.ndarray) and y.ndim == 2 and y.shape[1] == 1:
            y = y.ravel()  # a column vector: one label per document
        if isinstance(y, np.ndarray) and y.ndim == 2:
            Y = y
            if not np.isin(Y, (0, 1)).all():
                raise ValueError("a 2-D Y must be a 0/1 indicator matrix")
            return Y.astype(np.int64), np.arange(Y.shape[1]), True
        if isinstance(y, (list, tuple)) and y and all(
                isinstance(v, (list, tuple, set, frozenset)) for v in y):
            lengths = {len(v) for v in y}
            if len(lengths) > 1 or not all(isinstance(x, (int, np.integer)) for v in y for x in v):
                mlb = MultiLabelBinarizer()
                Y = mlb.fit_transform([tuple(str(x) for x in v) for v in y])
                return Y.astype(np.int64), mlb.classes_, True
        y = np.asarray(y)
        if y.ndim == 2:
            return self._indicator(y)
        check_classification_targets(y)
        classes, idx = np.unique(y, return_inverse=True)
        Y = np.zeros((len(y), len(classes)), dtype=np.int64)
        Y[np.arange(len(y)), idx] = 1
        return Y, classes, False

    def fit(self, X, y):
        """Train one binary classifier per label and choose the thresholds; returns self."""
        if not (self.threshold == "f1" or isinstance(self.threshold, (int, float))):
            raise ValueError(f"threshold must be 'f1' or a number; got {self.threshold!r}")
        Y, classes, multilabel = self._indicator(y)
        X = validate_data(self, X, accept_sparse="csr", reset=True)
        if Y.shape[0] != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but y has {Y.shape[0]}")
        if not multilabel and len(classes) < 2:
            raise ValueError(f"only 1 class ({classes.tolist()}); need at least two")
        base = self._base()
        self.classes_, self.multilabel_ = classes, multilabel
        self.estimators_, constant, thresholds = [], [], []
        for j in range(Y.shape[1]):
            t = Y[:, j]
            n_pos = int(t.sum())
            if n_pos == 0 or n_pos == len(t):
                self.estimators_.append(None)
                constant.append(1 if n_pos else 0)
                thresholds.append(0.0)
                continue
            constant.append(-1)
            thresholds.append(self._threshold(base, X, t))
            self.estimators_.append(clone(base).fit(X, t))
        self.constant_ = np.array(constant, dtype=np.int64)
        self.thresholds_ = np.array(thresholds, dtype=np.float64)
        return self

    def _threshold(self, base, X, t):
        if self.threshold != "f1":
            return float(self.threshold)
        n_splits = int(min(self.cv, t.sum(), len(t) - t.sum()))
        if n_splits < 2:
            return 0.0
        scores = np.empty(len(t))
        folds = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=self.random_state)
        for train, test in folds.split(np.zeros(len(t)), t):
            cols = seen_columns(X[train])
            fitted = clone(base).fit(X[train][:, cols], t[train])
            scores[test] = estimator_log_odds(fitted, X[test][:, cols], np.array([0, 1]))[:, 1]
        thr = threshold_for_f1(np.nan_to_num(scores, posinf=1e300, neginf=-1e300), t == 1)
        return float(np.clip(thr, -1e300, 1e300))

    def predict_log_odds(self, X):
        """Per-label log-odds ``log P(label | x) − log P(no label | x)``, (n_samples, n_labels)."""
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", reset=False)
        out = np.empty((X.shape[0], len(self.classes_)))
        for j, est in enumerate(self.estimators_):
            if est is None:
                out[:, j] = np.inf if self.constant_[j] == 1 else -np.inf
            else:
                out[:, j] = estimator_log_odds(est, X, np.array([0, 1]))[:, 1]
        return out

    def decision_function(self, X):
        """Log-odds minus the label's threshold: positive means the label is assigned.

        With a 1-D ``y`` (multi-class) the log-odds themselves (those of ``classes_[1]``
        when there are two classes), as scikit-learn's classifiers do.
        """
        check_is_fitted(self)
        if not self.multilabel_:
            lo = self.predict_log_odds(X)
            return lo[:, 1] if lo.shape[1] == 2 else lo
        return self.predict_log_odds(X) - self.thresholds_

    def predict(self, X):
        """Indicator matrix of assigned labels (multi-label), or one label per row (1-D y)."""
        check_is_fitted(self)
        if self.multilabel_:
            return (self.decision_function(X) > 0).astype(np.int64)
        return self.classes_[np.argmax(self.predict_log_odds(X), axis=1)]

    def predict_labels(self, X):
        """The assigned labels of each row as a list of tuples of label names."""
        check_is_fitted(self)
        D = (self.predict_log_odds(X) - self.thresholds_) > 0
        return [tuple(str(c) for c in self.classes_[row]) for row in D]

    def predict_log_proba(self, X):
        """Per-label ``log P(label | x)`` of the binary models (multi-label), or these
        normalised over the labels (1-D y)."""
        check_is_fitted(self)
        lp = log_expit(self.predict_log_odds(X))
        if self.multilabel_:
            return lp
        return lp - logsumexp(lp, axis=1, keepdims=True)

    def predict_proba(self, X):
        check_is_fitted(self)
        return np.exp(self.predict_log_proba(X))

    def score(self, X, y, sample_weight=None):
        """Mean accuracy (1-D y) or micro-F1 (multi-label, over ``classes_``)."""
        check_is_fitted(self)
        if not self.multilabel_:
            return super().score(X, y, sample_weight=sample_weight)
        return multilabel_report(self.indicator(y), self.predict(X), self.classes_)["micro_f1"]

    def indicator(self, y):
        """0/1 matrix (n, n_labels) over ``classes_`` of label sets or an indicator matrix."""
        check_is_fitted(self)
        if sp.issparse(y) or (isinstance(y, np.ndarray) and y.ndim == 2):
            return np.asarray(y.toarray() if sp.issparse(y) else y).astype(np.int64)
        mlb = MultiLabelBinarizer(classes=[str(c) for c in self.classes_])
        return mlb.fit_transform([tuple(str(x) for x in v) for v in y]).astype(np.int64)

    def save(self, path):
        """Write the fitted model to a ``.tnb`` file (see :mod:`textnb.core.model_io`)."""
        from textnb.core.model_io import save

        check_is_fitted(self)
        save(self, path)


def cross_validate_multilabel(X, labels, model=None, *, cv=10, seed=0):
    """K-fold cross-validation of a multi-label model on a count matrix.

    Parameters
    ----------
    X : sparse matrix (n_documents, n_terms)
        Counts over every term (:func:`textnb.evaluation.evaluate.vectorize_all`); each fold uses
        the terms of its training part only.
    labels : list of label collections, or 0/1 indicator matrix
    model : MultiLabelNB, default=None
        ``MultiLabelNB()`` when None (cloned per fold).
    cv : int, default=10
        Folds (shuffled with ``seed``).

    Returns
    -------
    dict
        :func:`multilabel_report` of the pooled out-of-fold predictions and decision
        scores, plus ``folds`` and ``seed``.
    """
    
    model = MultiLabelNB() if model is None else model
    X = sp.csr_matrix(X)
    names = MultiLabelNB()._indicator(labels if not isinstance(labels, list) else list(labels))
    Y, classes, multilabel = names
    if not multilabel:
        raise InputError("cross_validate_multilabel needs label sets or an indicator matrix")
    if cv < 2 or cv > X.shape[0]:
        raise InputError(f"cv must be between 2 and the number of documents ({X.shape[0]}); got {cv}")
    pred = np.zeros_like(Y)
    scores = np.zeros(Y.shape, dtype=np.float64)
    for train, test in KFold(n_splits=cv, shuffle=True, random_state=seed).split(X):
        cols = seen_columns(X[train])
        fitted = clone(model).fit(X[train][:, cols], Y[train])
        pred[test] = fitted.predict(X[test][:, cols])
        scores[test] = np.nan_to_num(fitted.decision_function(X[test][:, cols]),
                                     posinf=1e300, neginf=-1e300)
    report = multilabel_report(Y, pred, classes, scores)
    report["folds"], report["seed"] = cv, seed
    return report
