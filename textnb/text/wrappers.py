"""The kernels of the wrappers around a text model: term selection, term weighting,
calibration maps, smoothing choice (numpy only).

A text model file's count model may be wrapped: a ``Pipeline`` of
:class:`~textnb.text.selection.SelectTerms` (a column subset) and
:class:`~textnb.text.weighting.TermWeighting` (a row-wise transform of the counts) in front
of it, a :class:`~textnb.meta.smoothing.SmoothingCV` (the chosen model, refitted) or a
:class:`~textnb.meta.calibration.CalibratedNB` (a map on the model's log-odds) around it.
What each of these computes, and what its model-file node may hold, is written here once:
the scikit-learn estimators are adapters that call these functions, and the
scikit-learn-free scorer (:mod:`textnb.text.scorer`) reads the same nodes and calls the
same functions, so both give the same floats.

* selection: :func:`term_scores` (chi-square, information gain, document frequency),
  :func:`presence_counts` (what it sums) and :func:`support_mask` (the ``k`` best terms,
  ties by column);
* weighting: :func:`document_frequency`, :func:`idf_weights` and :func:`weigh_cells`
  (binary, ``log(1 + x)``, idf, L2 length norm on CSR arrays);
* calibration: :func:`calibrated_log_proba` (Platt's sigmoid or an isotonic step
  function on the log-odds, one-vs-rest normalised), :func:`finite_scores`,
  :func:`calibrated_classes`, and the fitting of the maps and thresholds:
  :func:`fit_sigmoid`, :func:`fit_isotonic`, :func:`threshold_for_f1`,
  :func:`threshold_for_fpr`;
* smoothing: :func:`held_out_predictions` (SmoothingCV's out-of-fold predictions from
  summed counts), :func:`fold_predictions` (the same with a matrix per fold) and its grid;
* the model-file schemas and defaults of all four (and the schema of scikit-learn's ``Pipeline``).

numpy only at import; :func:`fit_sigmoid`, :func:`fit_isotonic` and
:func:`held_out_predictions` (training) import scipy when they run.
"""

from types import MappingProxyType

import numpy as np

from textnb.core.logspace import log_proba_from_jll
from textnb.core.model_schema import (CV_SCHEMA, MAX_COUNT, MAX_DIM, N_FEATURES, SEED, TEMPLATE, Any, Array, Bool, Choice,
                                      Classes, Counts, DictOf, Exactly, Float, Int, ListOf, MayBeAbsent, Model,
                                      OneOf, Optional, Reals, Str, TupleOf, When)

__all__ = ["fit_isotonic", "fit_sigmoid", "threshold_for_f1", "threshold_for_fpr", "SMOOTHING_GRID", "fold_predictions", "held_out_predictions", "SELECT_DEFAULTS", "WEIGHTING_DEFAULTS", "document_frequency", "presence_counts", "CALIBRATION_METHODS", "CALIBRATED_PARAMS", "CALIBRATED_STATE", "IDF", "PIPELINE_PARAMS", "SCORES",
           "SELECT_PARAMS", "SELECT_STATE", "SMOOTHING_PARAMS", "SMOOTHING_STATE", "WEIGHTING_PARAMS",
           "WEIGHTING_STATE", "calibrated_classes", "calibrated_log_proba", "finite_scores", "idf_weights",
           "log_expit", "support_mask", "term_scores", "weigh_cells"]

# -- term selection (SelectTerms) ----------------------------------------------------------

SCORES = ("chi2", "ig", "df")

#: SelectTerms' parameters and their defaults
SELECT_DEFAULTS = MappingProxyType({"criterion": "chi2", "k": 10000})
SELECT_PARAMS = {"criterion": Choice(*sorted(SCORES)), "k": OneOf(Choice("all"), Int(0, MAX_DIM))}
SELECT_STATE = {
    "classes_": Classes(),
    "n_features_in_": N_FEATURES,
    "class_count_": Counts(("n_classes",)),
    "class_df_": Counts(("n_classes", "n_features"), le="class_count_"),
}


def _xlogx(p):
    """``p log p``, 0 where ``p`` is 0 (scipy's ``xlogy(p, p)``)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(p == 0, 0.0, p * np.log(p))


def _entropy_terms(counts, totals):
    """Σ_c -p log p of the rows of ``counts`` (p = counts / totals), 0 for empty rows."""
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(totals > 0, counts / np.where(totals > 0, totals, 1.0), 0.0)
    return -_xlogx(p).sum(axis=0)


def term_scores(class_df, class_count, score="chi2"):
    """Goodness of every term from per-class document frequencies.

    Parameters
    ----------
    class_df : ndarray of shape (n_classes, n_features)
        Documents of each class that contain each term (weighted).
    class_count : ndarray of shape (n_classes,)
        Documents of each class (weighted).
    score : {"chi2", "ig", "df"}
        ``"chi2"``: the largest over classes of the 2x2 chi-square statistic
        ``N (AD − CB)² / ((A+C)(B+D)(A+B)(C+D))`` (Yang & Pedersen's χ²_max);
        ``"ig"``: information gain (expected entropy reduction of the class when the
        presence of the term is known), in nats; ``"df"``: document frequency.

    Returns
    -------
    ndarray of shape (n_features,)
    """
    class_df = np.asarray(class_df, dtype=np.float64)
    nc = np.asarray(class_count, dtype=np.float64)[:, None]
    n = nc.sum()
    df = class_df.sum(axis=0)
    if score == "df":
        return df
    if score == "chi2":
        a = class_df            # in class, has term
        b = df - a              # other classes, has term
        c = nc - a              # in class, lacks term
        d = n - nc - b          # other classes, lacks term
        den = (a + c) * (b + d) * (a + b) * (c + d)
        with np.errstate(divide="ignore", invalid="ignore"):
            chi = np.where(den > 0, n * (a * d - c * b) ** 2 / np.where(den > 0, den, 1.0), 0.0)
        return chi.max(axis=0) if chi.shape[0] else np.zeros(class_df.shape[1])
    if score == "ig":
        prior = _entropy_terms(nc, n)  # H(C), shape (1,)
        present = _entropy_terms(class_df, df[None, :])           # H(C | w)
        absent = _entropy_terms(nc - class_df, (n - df)[None, :])  # H(C | not w)
        pw = df / n if n > 0 else np.zeros_like(df)
        return prior - pw * present - (1 - pw) * absent
    raise ValueError(f"score must be one of {SCORES}; got {score!r}")


def presence_counts(data, indices, indptr, y_index, n_classes, n_features):
    """``(class_count, class_df)``: the documents of each class and, per class and term,
    those of them in which the term occurs (a cell > 0), of the CSR matrix ``(data,
    indices, indptr)`` whose rows are documents of the classes ``y_index``."""
    lengths = np.diff(indptr)
    row_class = np.repeat(np.asarray(y_index, dtype=np.int64), lengths)
    present = np.asarray(data) > 0
    class_df = np.bincount(row_class[present] * n_features + np.asarray(indices)[present],
                           minlength=n_classes * n_features).astype(np.float64).reshape(n_classes, n_features)
    return np.bincount(y_index, minlength=n_classes).astype(np.float64), class_df


def support_mask(scores, k):
    """Boolean mask of the ``k`` best ``scores`` (all of them for ``k="all"`` or more than
    there are), ties broken by column order (the first kept)."""
    n = scores.shape[0]
    k = n if k == "all" else min(int(k), n)
    mask = np.zeros(n, dtype=bool)
    if k:
        order = np.lexsort((np.arange(n), -scores))  # best first, ties by column
        mask[order[:k]] = True
    return mask


# -- term weighting (TermWeighting) ----------------------------------------------------------

IDF = ("smooth", "plain", None)

#: TermWeighting's parameters and their defaults
WEIGHTING_DEFAULTS = MappingProxyType({"sublinear_tf": True, "idf": "smooth", "length_norm": True, "binary": False})

WEIGHTING_PARAMS = {"sublinear_tf": Bool(), "idf": Optional(Choice("smooth", "plain")), "length_norm": Bool(),
                    "binary": Bool()}
WEIGHTING_STATE = {
    "n_features_in_": N_FEATURES,
    "n_documents_": Float(0.0, MAX_COUNT),
    "document_frequency_": Counts(("n_features",)),
    "idf_": Reals(("n_features",), lo=0.0),
}


def idf_weights(n_documents, document_frequency, idf):
    """The idf weight of every term: ``"smooth"`` ``log((1 + n) / (1 + df)) + 1``,
    ``"plain"`` ``log(n / df)`` (an unseen term counted as seen once), None ones."""
    n, df = n_documents, document_frequency
    if idf == "smooth":
        return np.log((1.0 + n) / (1.0 + df)) + 1.0
    if idf == "plain":
        # an unseen term (df 0) is treated as seen once: log n, the largest weight
        return np.log(max(n, 1.0)) - np.log(np.maximum(df, 1.0))
    return np.ones_like(df)


def document_frequency(data, indices, n_features):
    """Documents in which each term has a non-zero cell, of the CSR arrays ``data``,
    ``indices`` (no duplicate cells), as float64."""
    return np.bincount(np.asarray(indices)[np.asarray(data) != 0], minlength=n_features).astype(np.float64)


def weigh_cells(data, indices, indptr, idf, *, binary=False, sublinear_tf=True, length_norm=True):
    """The weighted values of the cells ``data`` (float64) of a CSR matrix with
    ``indices`` and ``indptr`` (no duplicate cells): ``binary`` (presence), ``log(1 + x)``,
    times ``idf[column]`` (``idf`` None: none), each row divided by its L2 norm. Returns a
    new array; a zero row stays zero."""
    data = np.array(data, dtype=np.float64)
    if binary:
        data = (data > 0).astype(np.float64)
    if sublinear_tf:
        data = np.log1p(data)
    if idf is not None:
        data *= idf[indices]
    if length_norm:
        lengths = np.diff(indptr)
        sq = np.bincount(np.repeat(np.arange(lengths.size), lengths), weights=data * data, minlength=lengths.size)
        norms = np.sqrt(sq)
        norms[norms == 0] = 1.0
        data /= np.repeat(norms, lengths)
    return data


# -- calibration maps (CalibratedNB) ---------------------------------------------------------

CALIBRATION_METHODS = ("sigmoid", "isotonic")


def calibrated_classes(dims):
    """The classes :class:`CalibratedNB` calibrates: the positive class of two (the other
    is its complement), every class of more (one-vs-rest), none of one."""
    n = dims["n_classes"]
    return np.array([1] if n == 2 else list(range(n)) if n > 2 else [], dtype=np.int64)


CALIBRATED_PARAMS = {
    "estimator": TEMPLATE, "method": Choice(*CALIBRATION_METHODS), "cv": CV_SCHEMA,
    "target_fpr": Optional(Float(0.0, 1.0)), "random_state": SEED,
}
CALIBRATED_STATE = {
    "classes_": Classes(),
    "estimator_": Model(dims={"classes_": "n_classes", "n_features_in_": "n_features"}, equal={"classes_": "classes_"},
                        optional=("n_features_in_",)),  # (a model of raw documents has none)
    # one map per calibrated class, and which classes those are is fixed by the number
    # of classes: the positive class of two, every class of more, none of one
    "calibrated_classes_": Exactly(Array("iu", ("n_calibrated",), index="n_classes", distinct=True),
                                   calibrated_classes, "[1] for 2 classes, [0 .. n-1] for n > 2, [] for 1"),
    "sigmoid_": When("method", "sigmoid", Reals(("n_calibrated", 2)), Reals((0, 2))),
    "isotonic_x_": When("method", "isotonic",
                        ListOf(Reals(("n_steps[]",), increasing=True, min_size=1), length="n_calibrated"),
                        ListOf(Any(), length=0)),
    "isotonic_y_": When("method", "isotonic",
                        ListOf(Array("f", ("n_steps[]",), lo=0.0, hi=1.0), length="n_calibrated"),
                        ListOf(Any(), length=0)),
    "thresholds_": Array("f", ("n_classes",), finite="no-nan"),
    "n_features_in_": MayBeAbsent(N_FEATURES),  # (none around a model of raw documents)
    "feature_names_in_": MayBeAbsent(Array("U", (None,))),
}


def fit_sigmoid(s, t, w):
    """Platt scaling: (a, b) minimising the log loss of ``sigmoid(a s + b)``.

    Uses Platt's (1999) smoothed targets ``(N+ + 1) / (N+ + 2)`` and ``1 / (N- + 2)``
    so that a separable training set does not push ``a`` to infinity.
    """
    from scipy.special import expit, log_expit  # (the maps stay those of earlier versions, bit for bit)

    pos = np.sum(w[t == 1])
    neg = np.sum(w[t == 0])
    target = np.where(t == 1, (pos + 1.0) / (pos + 2.0), 1.0 / (neg + 2.0))
    total = np.sum(w)
    mean = np.sum(w * s) / total if total > 0 else 0.0
    scale = np.sqrt(np.sum(w * (s - mean) ** 2) / total) if total > 0 else 1.0
    scale = scale if scale > 0 else 1.0
    z = s / scale

    def loss(ab):
        u = ab[0] * z + ab[1]
        return -np.sum(w * (target * log_expit(u) + (1 - target) * log_expit(-u)))

    # Newton's method with backtracking (Lin, Lin & Weng 2007): two parameters,
    # exact Hessian, converges to machine precision in a few steps
    ab = np.array([1.0, np.log((pos + 1.0) / (neg + 1.0))])
    f = loss(ab)
    for _ in range(100):
        u = ab[0] * z + ab[1]
        p = expit(u)
        r = w * (p - target)
        g = np.array([np.sum(r * z), np.sum(r)])
        if np.max(np.abs(g)) <= 1e-11 * max(total, 1.0):
            break
        d = w * p * (1 - p)
        H = np.array([[np.sum(d * z * z), np.sum(d * z)], [np.sum(d * z), np.sum(d)]])
        H += 1e-12 * max(total, 1.0) * np.eye(2)
        step = np.linalg.solve(H, g)
        t = 1.0
        while t > 1e-10:
            new = ab - t * step
            f_new = loss(new)
            if f_new <= f + 1e-4 * t * (g @ -step):
                break
            t /= 2
        else:
            break
        ab, f = new, f_new
    a, b = ab
    return float(a / scale), float(b)


def threshold_for_fpr(scores, positive, fpr):
    """The smallest threshold ``t`` with false-positive rate ``P(score > t | negative) <= fpr``.

    Parameters
    ----------
    scores : array-like of shape (n_samples,)
        Scores of the positive class (e.g. log-odds), larger = more positive.
    positive : array-like of bool of shape (n_samples,)
    fpr : float in [0, 1]

    Returns
    -------
    float
        Predict positive when ``score > t``. ``-inf`` when every negative may be
        flagged; a score of some negative otherwise.
    """
    scores = np.asarray(scores, dtype=np.float64)
    positive = np.asarray(positive, dtype=bool)
    if not 0.0 <= float(fpr) <= 1.0:
        raise ValueError(f"fpr must be in [0, 1]; got {fpr!r}")
    neg = np.sort(scores[~positive])[::-1]
    n, fpr = len(neg), float(fpr)
    allowed = int(np.floor(fpr * n))  # the most negatives above t: allowed / n <= fpr, as a rate is computed
    if allowed < n and (allowed + 1) / n <= fpr:  # fpr * n rounded below a whole number
        allowed += 1
    elif allowed > 0 and allowed / n > fpr:
        allowed -= 1
    if allowed >= len(neg):
        return float("-inf")
    return float(neg[allowed])


def threshold_for_f1(scores, positive):
    """The threshold ``t`` (predict positive when ``score > t``) with the best F1.

    Ties go to the largest threshold: midway between the last score flagged and the next,
    and when the best cut flags every score, just below the lowest (``nextafter``), so a new
    score is flagged only when it is as high as one seen, not whatever it is (``-inf`` only
    when the lowest score is ``-inf``). Returns ``+inf`` if there is no positive.
    """
    scores = np.asarray(scores, dtype=np.float64)
    positive = np.asarray(positive, dtype=bool)
    n_pos = positive.sum()
    if n_pos == 0:
        return float("inf")
    order = np.argsort(-scores, kind="stable")
    s, p = scores[order], positive[order]
    tp = np.cumsum(p)
    k = np.arange(1, len(s) + 1)
    # only cut between distinct scores
    last = np.r_[s[1:] != s[:-1], True]
    f1 = np.where(last, 2 * tp / (k + n_pos), -1.0)
    best = int(np.argmax(f1))
    if best + 1 == len(s):  # every score flagged: the largest threshold that still flags them all
        return float(np.nextafter(s[best], -np.inf)) if np.isfinite(s[best]) else -np.inf
    nxt = s[best + 1]
    if np.isfinite(nxt) and np.isfinite(s[best]):
        return float((s[best] + nxt) / 2)  # midway between the last flagged score and the next
    return float(nxt)


def fit_isotonic(x, y, w, y_min, y_max):
    """``(x steps, y steps)`` of the weighted isotonic (non-decreasing) regression of ``y``
    on ``x`` with values clipped to ``[y_min, y_max]``: what scikit-learn's
    ``IsotonicRegression(y_min=y_min, y_max=y_max).fit(x, y, sample_weight=w)`` keeps as
    ``X_thresholds_`` / ``y_thresholds_``, float for float -- zero weights dropped, the
    points sorted, those whose ``x`` are within float64 resolution of a run's first merged
    (weighted mean of ``y``), scipy's pool-adjacent-violators fit, and the steps equal to both
    neighbours dropped."""
    from scipy.optimize import isotonic_regression

    x, y, w = (np.asarray(a, dtype=np.float64).reshape(-1) for a in (x, y, w))
    keep = w > 0
    x, y, w = x[keep], y[keep], w[keep]
    order = np.lexsort((y, x))
    x, y, w = x[order].tolist(), y[order].tolist(), w[order].tolist()
    eps = float(np.finfo(np.float64).resolution)
    xs, ys, ws = [], [], []
    cx, cy, cw = x[0], 0.0, 0.0
    for xj, yj, wj in zip(x, y, w):  # (scikit-learn's _make_unique, in the same order of operations)
        if xj - cx >= eps:
            xs.append(cx)
            ws.append(cw)
            ys.append(cy / cw)
            cx, cw, cy = xj, wj, yj * wj
        else:
            cw += wj
            cy += yj * wj
    xs.append(cx)
    ws.append(cw)
    ys.append(cy / cw)
    fitted = np.asarray(isotonic_regression(np.asarray(ys), weights=np.asarray(ws), increasing=True).x,
                        dtype=np.float64)
    np.clip(fitted, y_min, y_max, fitted)
    steps = np.ones(len(fitted), dtype=bool)
    steps[1:-1] = np.logical_or(np.not_equal(fitted[1:-1], fitted[:-2]), np.not_equal(fitted[1:-1], fitted[2:]))
    return np.asarray(xs)[steps], fitted[steps]


def log_expit(u):
    """``log(1 / (1 + exp(-u)))`` without overflow or loss: ``u - log1p(exp(u))`` for
    ``u < 0``, ``-log1p(exp(-u))`` otherwise."""
    u = np.asarray(u, dtype=np.float64)
    neg = u < 0
    with np.errstate(over="ignore"):
        return np.where(neg, u - np.log1p(np.exp(np.where(neg, u, 0.0))), -np.log1p(np.exp(-np.where(neg, 0.0, u))))


def finite_scores(s):
    """Replace ±inf scores by the most extreme finite ones plus / minus 1 (or ±1), NaN by 0."""
    s = np.asarray(s, dtype=np.float64)
    fin = s[np.isfinite(s)]
    hi = fin.max() if fin.size else 0.0
    lo = fin.min() if fin.size else 0.0
    return np.nan_to_num(s, nan=0.0, posinf=hi + 1.0, neginf=lo - 1.0)


def calibrated_log_proba(s, method, classes_calibrated, sigmoid, isotonic_x, isotonic_y):
    """Calibrated ``log P(c | x)`` from raw per-class log-odds ``s`` (n_samples, n_classes).

    One map per calibrated class (``classes_calibrated``; :func:`calibrated_classes`):
    ``"sigmoid"`` ``σ(a s + b)`` with ``(a, b)`` the rows of ``sigmoid``, ``"isotonic"``
    the step function ``isotonic_x`` -> ``isotonic_y`` (linear between steps, clipped).
    Two classes: the positive class's map and its complement; more: the one-vs-rest maps
    normalised, all-zero rows uniform. Rows log-sum-exp to 0.
    """
    s = finite_scores(s)
    n, k = s.shape
    if k == 1:
        return np.zeros((n, 1))
    cal = np.empty((n, len(classes_calibrated)))
    comp = np.empty_like(cal)  # log(1 - p) of each map, computed directly
    for j, c in enumerate(classes_calibrated):
        if method == "sigmoid":
            a, b = sigmoid[j]
            u = a * s[:, c] + b
            cal[:, j], comp[:, j] = log_expit(u), log_expit(-u)
        else:
            p = np.interp(s[:, c], isotonic_x[j], isotonic_y[j])
            with np.errstate(divide="ignore"):
                cal[:, j], comp[:, j] = np.log(p), np.log1p(-p)
    if k == 2:
        return np.column_stack([comp[:, 0], cal[:, 0]])
    # one-vs-rest maps normalised; all-zero rows (isotonic) become uniform
    known = np.isfinite(np.max(cal, axis=1, keepdims=True))
    with np.errstate(invalid="ignore"):  # (a row of only -inf: NaN, replaced)
        return np.where(known, log_proba_from_jll(cal), -np.log(k))


# -- smoothing chosen by cross-validation (SmoothingCV) and Pipelines ----------------------------

SMOOTHING_PARAMS = {
    "estimator": TEMPLATE, "param_grid": Optional(DictOf(Str(1000), ListOf(Any(), max_len=10_000))),
    "cv": CV_SCHEMA, "scoring": Choice("accuracy", "macro_f1"), "random_state": SEED,
}
SMOOTHING_STATE = {
    "classes_": Classes(),
    "estimator_": Model(dims={"classes_": "n_classes", "n_features_in_": "n_features"}, equal={"classes_": "classes_"},
                        optional=("n_features_in_",)),  # (a model of raw documents has none)
    "best_params_": DictOf(Str(1000), Any()),
    "cv_results_": ListOf(Any(), max_len=10**6),
    "n_features_in_": MayBeAbsent(N_FEATURES),  # (none around a model of raw documents)
    "feature_names_in_": MayBeAbsent(Array("U", (None,))),
}

#: the m-estimate grid SmoothingCV tries when given none
SMOOTHING_GRID = (30, 100, 300, 1000, 3000, 10000, 30000)


def held_out_predictions(X, y_index, n_classes, classes, splits, finals, sample_weight=None):
    """Out-of-fold predictions of count models from summed counts, without refitting.

    ``X`` is the CSR matrix (float64) the models learn, ``y_index`` the documents'
    class indices into ``classes``, ``splits`` ``(train, test)`` index arrays whose
    training part is the rest of the data, ``finals`` ``(kernel, params)`` pairs
    (:mod:`textnb.naive_bayes.kernels`). A fold's model is the totals minus the held-out
    fold's sums, over the terms its training part has; it predicts the fold's documents.
    Returns ``(predictions, tested)``: per final, the predicted class indices of the
    test parts one after the other, and the documents they are of
    (:class:`~textnb.meta.smoothing.SmoothingCV`'s fast path, and ``textnb train --model auto``).
    ``sample_weight``: each document's weight in the sums (None: 1 each).
    """
    import scipy.sparse as sp

    from textnb.core.stats import class_indicator

    preds = [[] for _ in finals]
    sums = {}

    def key(kernel, params):
        return kernel.kind, params.get("binarize")

    for kernel, params in finals:
        if key(kernel, params) not in sums:
            Xc = sp.csr_matrix(kernel.fit_features(params, X))
            Y = class_indicator(y_index, n_classes, sample_weight)
            sums[key(kernel, params)] = (Xc, np.asarray((Y.T @ Xc).todense()),
                                         np.bincount(y_index, weights=sample_weight, minlength=n_classes))
    for train, test in splits:
        held = {}
        for k, (Xc, fc_all, cc_all) in sums.items():
            w = None if sample_weight is None else sample_weight[test]
            Yt = class_indicator(y_index[test], n_classes, w)
            fc = fc_all - np.asarray((Yt.T @ Xc[test]).todense())
            cc = (cc_all - np.bincount(y_index[test], weights=w, minlength=n_classes)).astype(np.float64)
            if w is None:
                cols = np.flatnonzero(fc.sum(axis=0) > 0)  # terms seen in the training part
            else:  # (of its documents that weigh something; no rounding residue of the subtraction)
                kept = train[sample_weight[train] > 0]
                cols = np.flatnonzero(np.asarray((Xc[kept] != 0).sum(axis=0)).ravel() > 0)
                fc = np.maximum(fc, 0.0)
            held[k] = (cc, fc[:, cols], X[test][:, cols])
        for i, (kernel, params) in enumerate(finals):
            cc, fc, Xtest = held[key(kernel, params)]
            state = {"classes_": np.asarray(classes), "class_count_": np.array(cc, dtype=np.float64, order="C"),
                     "feature_count_": np.array(fc, dtype=np.float64, order="C")}
            state["n_features_in_"] = state["feature_count_"].shape[1]
            fitted = kernel.estimate(params, state)
            preds[i].append(np.argmax(kernel.joint_log_likelihood(params, state, fitted, Xtest), axis=1))
    return [np.concatenate(p) for p in preds], np.concatenate([test for _, test in splits])


def fold_predictions(fold_matrix, y_index, n_classes, classes, splits, finals, sample_weight=None):
    """:func:`held_out_predictions` with a matrix per fold: ``fold_matrix(train)`` is the
    CSR matrix (float64) of every document over the columns, and with the weights, that the
    documents ``train`` alone give (a vocabulary and document frequencies learnt from the
    fold's training part, so no word of its held-out part enters its model); each fold's
    model is scored on it. Returns ``(predictions, tested)`` as :func:`held_out_predictions`.
    The one per-fold loop of :class:`~textnb.meta.smoothing.SmoothingCV` and of
    ``textnb train --model auto`` (:func:`textnb.text.training.fit_model`)."""
    parts = [held_out_predictions(fold_matrix(train), y_index, n_classes, classes, [(train, test)], finals,
                                  sample_weight=sample_weight) for train, test in splits]
    return ([np.concatenate([p[i] for p, _ in parts]) for i in range(len(finals))],
            np.concatenate([t for _, t in parts]))


#: scikit-learn's Pipeline in model files: its parameters are its steps
PIPELINE_PARAMS = {"memory": Choice(None), "steps": ListOf(TupleOf(Str(1000), Model(fitted=False)), max_len=100),
                   "transform_input": Choice(None), "verbose": Bool()}
