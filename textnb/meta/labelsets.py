"""The multi-label kernel: label sets, folds, thresholds, decisions and measures, without scikit-learn.

What :class:`textnb.meta.multilabel.MultiLabelNB` is made of, as functions of arrays
(numpy only), so that the estimator (a thin scikit-learn adapter) and the
scikit-learn-free trainer of ``textnb train`` / ``evaluate`` on a multi-label corpus
(:mod:`textnb.meta.multilabel_training`) run the same code:

* label sets as a 0/1 indicator matrix (:func:`label_indicator`, :func:`indicator`) and
  the copy transformation (:func:`copies`: a row per document and label);
* the folds of the out-of-fold scores (:func:`kfold`, scikit-learn's shuffled ``KFold``
  splits, the same numbers) and :func:`copy_out_of_fold`: the copy model's out-of-fold
  log-odds from one training;
* the thresholding strategies of Yang (2001), chosen on out-of-fold scores
  (:func:`decide`), and the decisions of new documents (:func:`decision`);
* the measures of the literature (:func:`multilabel_report`, :func:`break_even_point`,
  :func:`test_report`, :func:`cross_validated_report`).
"""

from contextlib import contextmanager

import numpy as np

from textnb.core.errors import ParameterError, TooFewObjects
from textnb.core.folds import class_wide_groups, fewer_folds_note, groups_note, kfold, kfold_groups
from textnb.core.logspace import log_odds
from textnb.core.stats import issparse
from textnb.text.wrappers import threshold_for_f1, threshold_for_fpr  # (their home: the trainer uses them)

__all__ = ["FBR_GRID", "MULTILABEL_DEFAULTS", "PCUT_GRID", "RANK_GRID", "SMALL", "STRATEGIES", "break_even_point",
           "RankTooHigh", "check_rank", "copies", "copy_out_of_fold", "copy_scores", "cross_validated_report", "decide", "decision", "indicator", "rank_candidates",
           "assigned_labels", "document_folds", "kfold", "label_indicator", "label_log_odds", "label_probabilities", "multilabel_model", "label_support", "multilabel_report", "naming_the_label",
           "precision_recall_f1", "test_report", "threshold_for_f1", "threshold_for_fpr"]

#: Thresholding strategies (Yang 2001); "f1" is the name model files of textnb <= 0.x
#: give to "scut".
STRATEGIES = ("scutfbr", "scut", "rcut", "pcut", "f1")
#: Candidate values of the inner choices (made on out-of-fold scores of the training documents).
FBR_GRID = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5)
RANK_GRID = (1, 2, 3)
PCUT_GRID = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0)
#: Below this many training documents the thresholds come from 5 folds, else from 2 (``cv=None``).
SMALL = 5000

#: MultiLabelNB's keyword parameters and their defaults, written once (the estimator takes
#: them through :func:`textnb.naive_bayes.kernels.takes_defaults`, the command line's trainer
#: :mod:`textnb.meta.multilabel_training` reads them here).
MULTILABEL_DEFAULTS = {"cv": None, "fbr": None, "method": "copy", "min_labels": 1, "random_state": 0, "rank": None,
                       "threshold": "scutfbr"}


def label_probabilities(S):
    """Each label's own probability ``P(l | d) = 1 / (1 + exp(-S))`` from its log-odds ``S``:
    the one rule of :meth:`MultiLabelNB.predict_proba <textnb.meta.multilabel.MultiLabelNB.predict_proba>`
    and of ``textnb predict`` on a multi-label model file (its scorer gives the log-odds), so
    that every path prints the same floats."""
    from scipy.special import expit

    return expit(np.asarray(S, dtype=np.float64))


def multilabel_model(model):
    """The multi-label estimator at the end of a multi-label text model (a ``Pipeline``
    ending in a :class:`~textnb.meta.multilabel.MultiLabelNB` fitted on label sets, or the
    :class:`~textnb.meta.multilabel_training.MultiLabelScorer` of its file), or None: how
    ``textnb predict``, ``test``, ``inspect`` and ``textnb serve`` tell a multi-label model."""
    steps = getattr(model, "steps", None)
    if not steps:
        return None
    last = steps[-1][1]
    return last if getattr(last, "multilabel_", False) else None


def label_log_odds(model, texts):
    """Per-label log-odds ``S`` (n, n_labels) of the documents ``texts`` (str) by the
    multi-label text model ``model`` (:func:`multilabel_model`): a file's scorer reads them
    from its arrays, a fitted Pipeline transforms then scores. What ``textnb predict`` and
    ``textnb serve`` rank and decide (:func:`label_probabilities`, :func:`assigned_labels`)."""
    ml = multilabel_model(model)
    if ml is None:
        raise TypeError(f"not a multi-label text model: {type(model).__name__}")
    if hasattr(ml, "document_log_odds"):  # a file's scorer
        return ml.document_log_odds(texts)
    return ml.predict_log_odds(model[:-1].transform(texts))


def assigned_labels(S, decisions):
    """Each row's labels assigned by the model's decision rule (positions where
    ``decisions`` > 0: :meth:`MultiLabelNB.decision_from_log_odds
    <textnb.meta.multilabel.MultiLabelNB.decision_from_log_odds>` of ``S``), most probable
    first (log-odds ``S`` descending, ties in label order): a list of lists of positions,
    the labels ``textnb predict`` prints and ``textnb serve`` answers."""
    S = np.asarray(S, dtype=np.float64)
    passed = np.asarray(decisions) > 0
    return [[int(k) for k in np.argsort(-row, kind="stable") if ok[k]] for row, ok in zip(S, passed)]


# -- label sets and folds ----------------------------------------------------------------------
def label_indicator(label_sets):
    """``(Y, classes)``: the 0/1 matrix (int64, n x n_labels) of label collections and the
    label names (str, sorted; an object array), as scikit-learn's ``MultiLabelBinarizer``
    gives for the labels as str."""
    label_sets = [tuple(str(x) for x in v) for v in label_sets]
    names = sorted({x for v in label_sets for x in v})
    classes = np.empty(len(names), dtype=object)
    classes[:] = names
    return indicator(classes, label_sets), classes


def indicator(classes, y):
    """0/1 matrix (n, n_labels) over ``classes`` of label collections, or an indicator
    matrix as given (labels not in ``classes`` are left out)."""
    if issparse(y) or (isinstance(y, np.ndarray) and y.ndim == 2):
        return np.asarray(y.toarray() if issparse(y) else y).astype(np.int64)
    names = {str(c): j for j, c in enumerate(classes)}
    Y = np.zeros((len(y), len(names)), dtype=np.int64)
    for i, labs in enumerate(y):
        for lab in labs:
            j = names.get(str(lab))
            if j is not None:
                Y[i, j] = 1
    return Y


def label_support(Y):
    """``(train_support, constant)`` of an indicator matrix: documents per label, and per
    label 1 when on every row, 0 when on none, else -1 (int64)."""
    n_pos = Y.sum(axis=0)
    constant = np.where(n_pos == 0, 0, np.where(n_pos == Y.shape[0], 1, -1)).astype(np.int64)
    return n_pos.astype(np.int64), constant


# -- thresholds -------------------------------------------------------------------------------
# -- measures ---------------------------------------------------------------------------------
def break_even_point(scores, positive):
    """Precision-recall break-even point of one ranking.

    The documents are ranked by score and cut after as many documents as there are
    positives, ``R``: there precision and recall are both ``tp / R`` (R-precision, the
    usual estimate of the break-even point). Documents of equal score are in no order: the
    tie group the cut goes through gives its share, ``tp`` being the mean over every order of
    that group (McSherry & Najork 2008, "Computing information retrieval performance
    measures efficiently in the presence of tied scores", ECIR), so the result does not
    depend on the documents' order, and a label scored alike on every document gets
    ``R / n``, chance. Returns NaN when there is no positive.
    """
    scores = np.asarray(scores, dtype=np.float64).ravel()
    positive = np.asarray(positive, dtype=bool).ravel()
    r = int(positive.sum())
    if r == 0:
        return float("nan")
    cut = np.partition(-scores, r - 1)[r - 1]  # minus the R-th highest score
    above, tied = -scores < cut, -scores == cut
    slots = r - int(above.sum())  # of the tie group, these many are inside the cut
    tp = positive[above].sum() + positive[tied].sum() * slots / tied.sum()
    return float(tp / r)


def precision_recall_f1(tp, fp, fn):
    """Per-class ``(precision, recall, f1)`` (float64 arrays) from true positives, false
    positives and false negatives (arrays of counts or weights): ``tp / (tp + fp)``,
    ``tp / (tp + fn)`` and ``2 tp / (2 tp + fp + fn)``, 0 where the denominator is 0 (as
    scikit-learn's ``precision_recall_fscore_support(..., zero_division=0)``)."""
    tp, fp, fn = (np.asarray(v, dtype=np.float64) for v in (tp, fp, fn))

    def ratio(num, den):
        out = np.zeros_like(num)
        np.divide(num, den, out=out, where=den != 0)
        return out

    return ratio(tp, tp + fp), ratio(tp, tp + fn), ratio(2 * tp, 2 * tp + fp + fn)


def multilabel_report(Y_true, Y_pred, labels, scores=None, train_support=None):
    """Micro / macro precision, recall, F1 (and break-even points when ``scores`` given).

    Parameters
    ----------
    Y_true, Y_pred : array-like of shape (n_documents, n_labels), 0/1
    labels : sequence of str
        Label names (columns).
    scores : array-like of shape (n_documents, n_labels), default=None
        Scores (larger = more likely), e.g. ``MultiLabelNB.predict_log_odds`` (what ``textnb
        evaluate`` ranks: break-even points of the model, whatever its decision rule).
        Adds per-label ``bep``, ``macro_bep`` (mean over labels with a positive) and
        ``micro_bep`` (one ranking of all document-label pairs).
    train_support : array-like of shape (n_labels,), default=None
        Training documents per label: adds per-label ``train_support``.

    Returns
    -------
    dict (JSON-ready)
        ``n``, ``labels``, ``micro_precision``, ``micro_recall``, ``micro_f1``,
        ``macro_precision``, ``macro_recall``, ``macro_f1`` (means over the labels),
        ``subset_accuracy`` (documents whose label set is exactly right),
        ``hamming_loss`` (wrong document-label cells), ``labels_per_document`` (true and
        predicted means), ``per_label`` {label: precision, recall, f1, support, ...}.
    """
    T = np.asarray(Y_true.toarray() if issparse(Y_true) else Y_true).astype(bool)
    P = np.asarray(Y_pred.toarray() if issparse(Y_pred) else Y_pred).astype(bool)
    tp = (T & P).sum(axis=0).astype(float)
    fp = (~T & P).sum(axis=0).astype(float)
    fn = (T & ~P).sum(axis=0).astype(float)

    precision, recall, f1 = precision_recall_f1(tp, fp, fn)
    per = {}
    for j, lab in enumerate(labels):
        per[str(lab)] = {"precision": float(precision[j]), "recall": float(recall[j]), "f1": float(f1[j]),
                         "support": int(T[:, j].sum())}
        if train_support is not None:
            per[str(lab)]["train_support"] = int(train_support[j])
    mp, mr, mf = (float(v[0]) for v in precision_recall_f1([tp.sum()], [fp.sum()], [fn.sum()]))
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
        "labels_per_document": {"true": float(T.sum(axis=1).mean()) if T.shape[0] else 0.0,
                                "predicted": float(P.sum(axis=1).mean()) if T.shape[0] else 0.0},
        "per_label": per,
    }
    if scores is not None:
        S = np.nan_to_num(np.asarray(scores, dtype=np.float64), posinf=1e300, neginf=-1e300)
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


def _micro_f1(T, P):
    tp = np.count_nonzero(T & P)
    den = np.count_nonzero(T) + np.count_nonzero(P)
    return 2 * tp / den if den else 0.0


# -- decisions (Yang 2001) -------------------------------------------------------------------
def _finite(S):
    return np.nan_to_num(S, posinf=1e300, neginf=-1e300)


def _top(col):
    """The top-ranked score of a column (SCutFBR.1's threshold: no document of the column
    passes it), ``+inf`` when the column is empty or has no finite top (a label never
    scored above ``-inf`` is then never assigned, instead of on every document)."""
    top = col.max() if col.size else np.inf
    return top if np.isfinite(top) else np.inf


def _scut(S, T):
    """Per-label F1-best thresholds on scores ``S`` and their F1 there.

    A label whose best threshold finds none of its positives (F1 0) gets the top-ranked
    score as threshold (:func:`_top`, SCutFBR.1's fallback) instead of a threshold that
    passes every document: so a label with no positive, or on one training document only
    (whose out-of-fold score is ``-inf``: its fold's model never saw the label), is
    assigned to a new document only when it scores above every training document, as
    SCutFBR assigns it, never to every document.

    A label whose F1-best cut takes every document (on a few documents, or a label on most
    of them) gets a threshold just below the lowest out-of-fold score, the largest
    threshold with that F1 (ties go to the largest threshold, as everywhere else), not
    ``-inf``: a new document then gets it only when it scores as high as a training
    document did, not whatever its text. ``-inf`` stays only when that lowest score is
    ``-inf`` itself.
    """
    thr = np.empty(S.shape[1])
    f1 = np.zeros(S.shape[1])
    for j in range(S.shape[1]):
        t = T[:, j]
        thr[j] = np.clip(threshold_for_f1(S[:, j], t), -1e300, 1e300)  # (a cut taking every document: below the lowest)
        pred = S[:, j] > thr[j]
        tp = np.count_nonzero(pred & t)
        if tp == 0:
            thr[j] = min(max(thr[j], _top(S[:, j])), 1e300)
            pred = S[:, j] > thr[j]
        den = pred.sum() + t.sum()
        f1[j] = 2 * tp / den if den else 0.0
    return thr, f1


def _fallback(thr, f1, S, fbr):
    """SCutFBR.1: a label whose F1 is below ``fbr`` gets its top-ranked score as threshold
    (:func:`_top`)."""
    out = thr.copy()
    for j in np.flatnonzero(f1 < fbr):
        out[j] = _top(S[:, j])
    return out


def _at_least(D, min_labels, ranks=None):
    """Decisions ``D`` (positive: assigned) with a row that has fewer than ``min_labels``
    positive values shifted down by the cut midway between its ``min_labels``-th and next
    best values: its best-ranked labels are then the positive ones (a shift per row, so
    the ranking inside a row is kept). ``ranks`` (the log-odds, for PCut, whose
    per-label cuts can leave a row's decisions all equal, e.g. a batch of one document)
    ranks such rows instead: their best-scored labels are the positive ones."""
    if min_labels <= 0 or not D.shape[1]:
        return D
    short = np.flatnonzero((D > 0).sum(axis=1) < min_labels)
    if short.size:
        R = D if ranks is None else ranks
        D = np.array(D, dtype=np.float64)
        D[short] = _rank_cut(_finite(R[short]), min(min_labels, D.shape[1]))
    return D


def _rank_cut(S, k):
    """RCut: each row's ``k`` best labels get a positive decision (the cut midway between
    the k-th and the next score). A row whose k-th and next scores are equal (labels of
    the same training frequency scored on a document of unknown words, or every label at
    the ``-1e300`` of a label its model never saw) has the cut below that tie group: its
    tied labels are all positive, so a row never gets fewer than ``k``. The differences
    are taken before the halves, so scores near ``±1e300`` do not cancel to 0."""
    m = S.shape[1]
    if k >= m:
        return (S - np.min(S, axis=1, keepdims=True)) + 1.0
    part = -np.partition(-S, [k - 1, k], axis=1)
    hi, lo = part[:, [k - 1]], part[:, [k]]
    D = (S - hi) + (hi - lo) / 2
    for i in np.flatnonzero(hi[:, 0] == lo[:, 0]):  # a tie at the cut: below the whole tie group
        below = S[i][S[i] < hi[i, 0]]
        D[i] = (S[i] - hi[i, 0]) + ((hi[i, 0] - below.max()) / 2 if below.size else 1.0)
    return D


def _proportional_cut(S, rate):
    """PCut: label ``j`` goes to the ``round(rate[j] * n)`` best-ranked rows of the batch."""
    n = S.shape[0]
    D = np.empty_like(S)
    for j in range(S.shape[1]):
        k = int(min(n, round(rate[j] * n)))
        col = S[:, j]
        if k <= 0:
            D[:, j] = col - (col.max() + 1.0)
        elif k >= n:
            D[:, j] = col - (col.min() - 1.0)
        else:
            part = -np.partition(-col, [k - 1, k])
            D[:, j] = col - (part[k - 1] + part[k]) / 2
    return D


def _choose(S, T, candidates, decide, min_labels, ranks=None):
    """The candidate whose decisions have the best micro-F1 on ``S`` (ties: the first)."""
    best, best_f = candidates[0], -1.0
    for c in candidates:
        f = _micro_f1(T, _at_least(decide(S, c), min_labels, ranks) > 0)
        if f > best_f + 1e-12:
            best, best_f = c, f
    return best


def _choose_fbr(S, T, min_labels, seed):
    """``fbr`` for micro-F1, by cross-fitting the out-of-fold scores: thresholds from one
    half of the documents are judged on the other half (and the other way round), so
    the SCut thresholds are not judged on the scores they were fitted to."""
    n = S.shape[0]
    if n < 4:
        return FBR_GRID[0]
    halves = np.array_split(np.random.RandomState(seed).permutation(n), 2)
    scores = np.zeros(len(FBR_GRID))
    for a, b in (halves, halves[::-1]):
        thr, f1 = _scut(S[a], T[a])
        for i, fbr in enumerate(FBR_GRID):
            D = S[b] - _fallback(thr, f1, S[a], fbr)
            scores[i] += _micro_f1(T[b], _at_least(D, min_labels) > 0)
    return FBR_GRID[int(np.argmax(scores))]


def _constant(Y):
    """Per label: 1 on every row of ``Y``, 0 on none, else -1."""
    return label_support(Y)[1]


@contextmanager
def naming_the_label(names, j=None, Y=None):
    """A calibration inside a multi-label model that lacks documents
    (:class:`~textnb.core.errors.TooFewObjects`) said of the label: the copy model's classes
    are the label columns (``names`` gives their labels); label ``j``'s one-vs-rest model
    has the classes 0 (without it) and 1 (with it). ``Y``: the label indicator of the
    documents the model is fitted on, whose numbers the message gives: they may be a fold's
    training part (the out-of-fold models behind the thresholds, ``evaluate --cv``), where a
    label of two documents can have one (found by a user trial: "is on one document only"
    said of a label on two)."""
    try:
        yield
    except TooFewObjects as exc:
        if exc.need is None and Y is not None:
            col = j if j is not None else int(exc.label)
            n, k = int(Y.shape[0]), int(np.asarray(Y[:, col]).sum())
            raise TooFewObjects(f"label {str(names[col])!r} is on {k} of the {n} documents a model is fitted on "
                                "(the training documents, or the training part of a cross-validation fold): a "
                                "calibration (--calibrate) needs out-of-fold scores of two documents at least with and "
                                "without each label there; give the label more documents, or drop --calibrate",
                                label=names[col]) from None
        if exc.need is not None:  # every class of the model has one document (APNBC's folds)
            message = (f"every label is on one document only: {exc.need} needs a label on two documents at least"
                       if j is None else f"label {str(names[j])!r} is on one of two documents: {exc.need} needs "
                                         f"two documents at least with it or without it")
            raise TooFewObjects(message, label=None if j is None else names[j], need=exc.need) from None
        if j is None:
            name, what = names[int(exc.label)], "is on one document only"
        else:
            name = names[j]
            what = "is on one document only" if int(exc.label) == 1 else "is on every document but one"
        raise TooFewObjects(f"label {str(name)!r} {what}: a calibration (--calibrate) needs out-of-fold scores "
                            f"of two documents at least with and without each label", label=name) from None


def copies(Y, live):
    """The copy transformation of the ``live`` labels of ``Y``: ``(rows, codes)``, a row
    per document and label (the document's index) in the documents' order, its code the
    label's index, or ``n_labels`` for a document with none of them."""
    Yl = Y[:, live]
    rows, cols = np.nonzero(Yl)
    empty = np.flatnonzero(Yl.sum(axis=1) == 0)
    rows = np.concatenate([rows, empty])
    codes = np.concatenate([live[cols], np.full(empty.size, Y.shape[1])])
    order = np.argsort(rows, kind="stable")  # the documents' order, a document's labels in order
    return rows[order], codes[order]


def _each_row_once(splits, n):
    """Whether the test parts of ``splits`` hold every one of ``n`` rows exactly once."""
    tested = np.concatenate([np.asarray(test) for _, test in splits]) if splits else np.zeros(0, dtype=np.intp)
    return tested.size == n and np.array_equal(np.sort(tested), np.arange(n))




# -- the copy model's scores ------------------------------------------------------------------
def copy_out_of_fold(X, Y, splits, fit_out_of_fold):
    """The copy model of every document and the out-of-fold log-odds of the documents of
    each ``(train, test)`` split's test part (every document in one test part), from one
    training: ``fit_out_of_fold(X_rows, codes, fold_rows, document)`` fits the model on
    the copies (:func:`copies`) and returns ``(model, model_classes, log_proba)``, the
    out-of-fold ``log P(code | document)`` of each document with its fold's rows taken
    out of the sums (:func:`textnb.core.dfe.fit_out_of_fold`). A label constant in the
    training part of a split gets ±inf, as in a model trained on that part.

    Returns ``((model, constant), S)``; ``model`` None when every label is constant.
    """
    n, m = Y.shape
    fold = np.full(n, -1)
    for k, (_, test) in enumerate(splits):
        fold[test] = k
    constant = _constant(Y)
    live = np.flatnonzero(constant == -1)
    S = np.zeros((n, m))
    model = None
    if live.size:
        rows, codes = copies(Y, live)
        model, model_classes, log_proba = fit_out_of_fold(X[rows], codes, fold[rows], rows)
        full = np.full((n, m + 1), -np.inf)
        full[:, model_classes] = log_proba
        S = log_odds(full)[:, :m]
    for k in np.unique(fold):
        rest = Y[fold != k]
        n_pos = rest.sum(axis=0)
        S[np.ix_(fold == k, n_pos == 0)] = -np.inf
        S[np.ix_(fold == k, n_pos == rest.shape[0])] = np.inf
    return (model, constant), S


def copy_scores(model_classes, log_proba, constant):
    """Per-label log-odds (n, n_labels) of documents whose ``log P(code | document)``
    under the copy model (classes ``model_classes``: label indices, ``n_labels`` for no
    label) is ``log_proba``; ±inf for a constant label. ``log_proba`` None: no model
    (every label constant)."""
    m = len(constant)
    lp = np.asarray(log_proba, dtype=np.float64)
    full = np.full((lp.shape[0], m + 1), -np.inf)
    full[:, np.searchsorted(np.arange(m + 1), model_classes)] = lp
    S = (np.zeros_like(full) if m == 0 else log_odds(full))[:, :m]
    S[:, constant == 1] = np.inf
    S[:, constant == 0] = -np.inf
    return S


# -- choosing and applying the decisions ------------------------------------------------------
def _labels_with_documents(Y):
    """How many labels (columns of ``Y``) have a document."""
    Y = np.asarray(Y)
    return int(np.count_nonzero(Y.any(axis=0))) if Y.ndim == 2 else 0


class RankTooHigh(ParameterError):
    """An RCut ``rank`` not below the number of labels with training documents
    (:func:`check_rank`); ``rank`` and ``have`` (that number) tell the case."""

    def __init__(self, message, rank, have):
        super().__init__(message)
        self.rank, self.have = rank, have


def check_rank(rank, Y):
    """Raise ParameterError (:class:`RankTooHigh`), in one line, for an RCut ``rank`` that is
    not below the number of labels with training documents (columns of ``Y`` with a
    document): every document would get every one of them, the rare ones included, whatever
    its text (rank 1 is always accepted). ``rank`` None (chosen) passes."""
    have = _labels_with_documents(Y)
    if rank is not None and rank > 1 and rank >= have:
        raise RankTooHigh(f"rank={rank}: only {have} label{'s have' if have != 1 else ' has'} training documents, so "
                          f"RCut would give every document all of them; give a rank of at most {max(1, have - 1)}",
                          rank, have)


def rank_candidates(Y):
    """The ranks RCut's automatic choice tries: those of :data:`RANK_GRID` below the number
    of labels with training documents (columns of ``Y`` with a document), 1 always (with
    two labels, 1 only; with three, 1 or 2), so that the choice never gives every document
    every label, as an explicit rank may not (:func:`check_rank`)."""
    have = _labels_with_documents(Y)
    return [r for r in RANK_GRID if r == 1 or r < have]


def decide(S, T, strategy, *, fbr=None, rank=None, min_labels=1, seed=0):
    """The decisions chosen on out-of-fold scores ``S`` of documents with labels ``T``
    (bool): ``(thresholds, choices)``, the log-odds thresholds (SCut, SCutFBR; 0 else)
    and the strategy's fitted choice, ``{"fbr_": ...}``, ``{"rank_": ...}`` or
    ``{"pcut_rate_": ...}`` (``fbr`` / ``rank`` None: chosen for micro-F1; a rank chosen
    so is below the number of labels with documents in ``T``, :func:`rank_candidates`)."""
    if 0 < S.shape[1] <= min_labels:  # (e.g. a corpus of one label and unlabelled documents)
        import warnings

        from textnb.core.errors import DataWarning, counted

        warnings.warn(DataWarning(
            f"{counted(S.shape[1], 'label')} and at least {counted(min_labels, 'label')} per document "
            "(min_labels / --min-labels): every document gets every label; min_labels=0 (--min-labels 0) lets "
            "the model leave a document without one"), stacklevel=2)
    thresholds = np.zeros(S.shape[1])
    choices = {}
    if strategy in ("scut", "scutfbr"):
        thresholds, f1 = _scut(S, T)
        if strategy == "scutfbr":
            fbr = fbr if fbr is not None else _choose_fbr(S, T, min_labels, seed)
            choices["fbr_"] = float(fbr)
            thresholds = _fallback(thresholds, f1, S, fbr)
    elif strategy == "rcut":
        check_rank(rank, T)
        choices["rank_"] = int(rank if rank is not None else _choose(S, T, rank_candidates(T), _rank_cut, min_labels))
    elif strategy == "pcut":
        prevalence = T.mean(axis=0)
        x = _choose(S, T, PCUT_GRID, lambda s, x: _proportional_cut(s, prevalence * x), min_labels, _finite(S))
        choices["pcut_rate_"] = np.minimum(prevalence * x, 1.0)
    return np.clip(thresholds, -1e300, 1e300), choices


def decision(S, strategy, thresholds, min_labels, rank=None, pcut_rate=None):
    """Decision values of documents with log-odds ``S``: positive where a label is
    assigned (log-odds minus the threshold, or minus the row's RCut / the batch's PCut
    cut), a row with fewer than ``min_labels`` positive values shifted down so that its
    best-ranked ones are positive."""
    if strategy == "rcut":
        D = _rank_cut(_finite(S), rank)
    elif strategy == "pcut":
        D = _proportional_cut(_finite(S), pcut_rate)
        return _at_least(D, min_labels, _finite(S))
    else:
        D = S - thresholds
    return _at_least(D, min_labels)


def test_report(classes, train_support, D, labels_test, n_train, scores=None):
    """:func:`multilabel_report` of test documents with decision values ``D`` (columns
    ``classes``) and true label collections ``labels_test``: per-label ``train_support``
    included; labels of the test part that training never had are columns of their own,
    never predicted (a document with one is not exactly right, its cell is wrong, the
    label counts in the macro means with F1 0: scikit-learn's metrics over the union of
    the labels); plus ``n_train`` and ``test_labels_unseen``. ``scores`` (default ``D``):
    the model's log-odds, whose rankings give the break-even points, so that they do not
    depend on the decision rule (its thresholds, RCut / PCut cuts and ``min_labels`` shifts)."""
    known = {str(c) for c in classes}
    unseen = sorted({str(lab) for labs in labels_test for lab in labs} - known)
    D = np.asarray(D, dtype=np.float64)
    S = D if scores is None else _finite(np.asarray(scores, dtype=np.float64))
    labels = list(classes) + unseen
    Y = indicator(labels, labels_test)
    P = np.zeros(Y.shape, dtype=bool)
    P[:, :len(classes)] = D > 0
    low = float(np.min(_finite(S))) - 1.0 if S.size else -1.0  # ranked below every score given
    scores = np.hstack([S, np.full((S.shape[0], len(unseen)), low)])
    support = np.concatenate([np.asarray(train_support, dtype=np.int64), np.zeros(len(unseen), dtype=np.int64)])
    report = multilabel_report(Y, P, labels, scores, train_support=support)
    report["n_train"] = int(n_train)
    report["test_labels_unseen"] = unseen
    return report


def document_folds(n, cv, seed, Y, classes, groups=None):
    """``(splits, notes)``: the ``cv`` shuffled folds (:func:`kfold`, ``seed``) of a
    multi-label cross-validation of ``n`` documents with labels ``Y`` (indicator matrix
    over ``classes``): the documents of a group (``groups``, one value per document: the
    messages of one mbox file; None: each its own) held out together, as ``textnb
    evaluate`` holds them out for a single-label corpus, except where one group holds every
    document of a label (:func:`~textnb.core.folds.class_wide_groups`: dealt one by one);
    ``notes`` the report's ``groups_note`` naming those labels
    (:func:`~textnb.core.folds.groups_note`) and ``folds_note`` when fewer folds than ``cv``
    hold documents (:func:`~textnb.core.folds.fewer_folds_note`), for
    :func:`cross_validated_report`. What :func:`textnb.meta.multilabel.cross_validate_multilabel`
    and the trainer without scikit-learn (:mod:`textnb.meta.multilabel_training`)
    cross-validate on."""
    if groups is None:
        return kfold(n, cv, seed), {}
    codes, whole = class_wide_groups(np.asarray(Y), groups)
    splits = kfold_groups(n, cv, seed, codes, spread=np.asarray(Y))
    notes = {"groups_note": groups_note([classes[j] for j in whole], "label") if whole else None,
             "folds_note": fewer_folds_note(len(splits), cv)}
    return splits, {k: v for k, v in notes.items() if v}


def cross_validated_report(X, Y, classes, splits, fold_decisions, seed, progress=None, notes=None):
    """:func:`multilabel_report` of the pooled out-of-fold decisions of K-fold
    cross-validation, plus ``folds`` and ``seed``: for each ``(train, test)`` of
    ``splits``, ``fold_decisions(X_train, Y_train, X_test, labels)`` fits a model on the training
    rows of ``X`` (CSR) restricted to the columns they have (:func:`textnb.core.stats.seen_columns`)
    and to the labels they have (``labels``: their positions in ``classes``, ``Y_train`` their
    columns), as ``textnb train`` makes the model of those documents, and returns its decision
    values of the test rows (positive: label assigned) over those labels, or ``(decision
    values, log-odds)``; a label no training document of the fold has is never assigned (its
    decision and log-odds -inf: fitted beside such an empty column, the thresholds' search
    chose other cut-offs, found by a session-52 hunt). The log-odds' rankings
    then give the break-even points (as :func:`test_report`'s ``scores``); ``progress(done,
    total)`` after each fold; ``notes`` (:func:`document_folds`') added to the report. What
    :func:`textnb.meta.multilabel.cross_validate_multilabel` and the trainer without
    scikit-learn (:mod:`textnb.meta.multilabel_training`) report."""
    from textnb.core.stats import seen_columns

    truth, pred, scores = [], [], []
    for k, (train, test) in enumerate(splits, 1):
        cols = seen_columns(X[train])
        labels = np.flatnonzero(np.asarray(Y[train].sum(axis=0)).ravel() > 0)
        D = np.full((len(test), Y.shape[1]), -np.inf)
        S = D.copy()
        try:
            if labels.size:
                found = fold_decisions(X[train][:, cols], Y[train][:, labels], X[test][:, cols], labels)
                # (and the log-odds, ranked for the break-even points)
                found = found if isinstance(found, tuple) else (found, found)
                D[:, labels], S[:, labels] = found  # (what predict thresholds at 0)
        except RankTooHigh as exc:  # (all the data has more labels: it is this fold's training part)
            total = _labels_with_documents(Y)
            raise RankTooHigh(
                f"rank={exc.rank}: in fold {k} of {len(splits)} of the cross-validation, only {exc.have} of the "
                f"{total} labels have documents in the fold's training part (the others' few documents are all "
                f"in its held-out part), so RCut would give every document all of them; give a rank of at most "
                f"{max(1, exc.have - 1)}, or fewer folds", exc.rank, exc.have) from None
        truth.append(Y[test])
        pred.append((D > 0).astype(Y.dtype))
        scores.append(_finite(S))
        if progress is not None:
            progress(k, len(splits))
    report = multilabel_report(np.vstack(truth), np.vstack(pred), classes, np.vstack(scores),
                               train_support=Y.sum(axis=0))
    report["folds"], report["seed"] = len(splits), seed
    report.update(notes or {})
    return report
