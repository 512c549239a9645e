"""Lazy Bayesian rules (LBR) and heuristic LBR (HLBR) for nominal tabular data.

For each test object LBR grows a rule antecedent ``A_j = v_j & ...`` (the ``v_j`` are the
test object's own values) and classifies with a *local* naive Bayes trained on the training
objects that satisfy the antecedent, over the attributes not in it (Zheng & Webb 2000,
"Lazy learning of Bayesian rules", Machine Learning 41(1)). HLBR (Wang & Webb,
"A heuristic lazy Bayesian rule algorithm", ``../shared/papers/001_369ca1d5a7c3aed3.txt``)
restricts the attributes that may enter an antecedent to those chosen at training time.
``../shared/design/algorithms.md`` §3 restates both.

Decision for decision this follows Weka 3.6's ``weka.classifiers.lazy.LBR`` (the reference
implementation the papers' authors wrote), including its details:

* estimates: ``P(c) = (N_c + 1) / (N + C)`` and ``P(a = v | c) = (N_cav + 1) / (N_c + k_a)``
  with ``C`` the *declared* number of classes and ``k_a`` the declared number of values;
* a training object's missing value is counted as the attribute's first value (Weka casts
  the missing marker NaN to int, which is 0), while a missing value of the object being
  classified (or left out) is skipped;
* the loop: start from the leave-one-out (LOO) error flags of naive Bayes on all the data;
  while ``errors >= min_errors``, for each attribute still in the local model whose test
  value is known, take the objects of the current subset with that value (only when that
  is a strict subset), compute the LOO flags of naive Bayes on it without the attribute,
  ``tempErrors`` = its LOO errors + the old errors of the subset objects outside it;
  the attribute is eligible when ``tempErrors`` is the lowest so far and a one-tailed sign
  test (new-correct-old-wrong against new-wrong-old-correct) gives ``p < significance``;
  the best eligible attribute (first in attribute order on ties) joins the antecedent,
  its subset and flags become current and ``errors`` becomes its ``tempErrors``;
* every argmax takes the first class among equals, class products are formed in attribute
  order, exactly as Weka multiplies them.

To reproduce Weka's decisions bit for bit the class scores are products of the estimates
taken in Weka's order; to keep them from underflowing they are rescaled by exact powers of
two every few attributes (which changes no comparison), and the log of the result is what
``predict_log_proba`` reports.

Speed: leave-one-out never retrains (an object's own counts are subtracted from the subset
counts, vectorised over all objects of the subset and all attributes at once: one gather
of the count table, one division, one ordered product); subset counts are one
``bincount`` over precomputed (class, attribute, value) cell indices; the LOO flags of a
subset and the verdict of each step (child ``tempErrors``, sign test) depend only on the
antecedents, so both are cached and shared across candidate attributes, steps and test
objects (all one-condition subsets are computed once at ``fit``); test objects are spread
over processes with joblib (``n_jobs``).
"""

from functools import lru_cache
from numbers import Integral, Real

import numpy as np
from scipy.special import bdtr
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.parallel import Parallel, delayed
from sklearn.utils.validation import check_is_fitted, validate_data

from textnb.base import BaseNB
from textnb.model_io import register

__all__ = ["LBR", "sign_test_p"]

_RESCALE_EVERY = 8
_ROW_BLOCK = 1 << 21  # bound on C * rows * attributes elements per LOO block
_SAFE_LOG2 = -1000.0  # products whose smallest possible log2 stays above this need no rescaling


@lru_cache(maxsize=65536)
def sign_test_p(wins_for_old, n):
    """One-tailed sign test: ``P(X <= wins_for_old)`` for ``X ~ Binomial(n, 1/2)``.

    ``wins_for_old`` is the number of objects the new model gets wrong and the old one
    right, ``n`` the number of objects on which they differ. ``1.0`` when
    ``wins_for_old == n`` (including ``n == 0``), as Weka's ``LBR.binomP``.
    """
    if wins_for_old >= n:
        return 1.0
    return float(bdtr(wins_for_old, n, 0.5))


def _rescale(p, scale):
    """Divide each row of ``p`` (objects x classes) by a power of two near its maximum."""
    top = p.max(axis=1)
    _, e = np.frexp(top)
    e = np.where(top > 0, e, 0)
    p *= np.ldexp(1.0, -e)[:, None]
    scale += e


def cached_flags(engine, conds, compute):
    """The leave-one-out flags of the subset ``conds``, from ``engine.cache`` or ``compute()``.

    Shared by the tabular and the text engine. The cache holds at most
    ``engine.max_cache`` flags; past that it starts afresh, together with
    ``engine.steps`` (whose verdicts were derived from the dropped flags).
    """
    hit = engine.cache.get(conds)
    if hit is None:
        hit = compute()
        if engine.cached + hit.shape[0] > engine.max_cache:
            engine.cache.clear()
            engine.steps.clear()
            engine.cached = 0
        engine.cache[conds] = hit
        engine.cached += hit.shape[0]
    return hit


class _Engine:
    """The LBR search over one training set; shared by fit, predict and the workers.

    ``codes`` (n, A) int: value index, -1 for missing. ``y`` (n,) class index.

    Two caches, both keyed by the antecedent as a frozenset of ``(attribute, value)``:
    ``cache`` holds the LOO flags of a subset; ``steps`` holds, for a parent antecedent
    and one more condition, the child's ``tempErrors`` and whether it passes the sign
    test (``None`` when the child is not a strict non-empty subset). A step's verdict
    depends only on the two antecedents, so after the first test object that reaches
    a node the others decide there by table look-up.
    """

    def __init__(self, codes, y, n_values, n_classes, alpha, candidates, min_errors,
                 significance, max_cache):
        self.codes = codes
        self.y = y
        self.n_values = np.asarray(n_values, dtype=np.intp)
        self.n_classes = n_classes
        self.alpha = float(alpha)
        self.min_errors = min_errors
        self.significance = significance
        self.max_cache = max_cache
        n, A = codes.shape
        self.offsets = np.concatenate([[0], np.cumsum(self.n_values)[:-1]]).astype(np.intp)
        counted = np.where(codes < 0, 0, codes)  # Weka counts a missing value as value 0
        self.cols = counted + self.offsets[None, :]
        self.n_cols = int(self.n_values.sum())
        # class-major cell index of every (object, attribute): one bincount gives counts
        self.cells = self.cols + (y * self.n_cols)[:, None]
        self.missing = codes < 0
        self.has_missing = bool(self.missing.any())
        self.all_rows = np.arange(n)
        self.all_attrs = np.arange(A)
        self.base_flags = self.loo_correct(self.all_rows, self.all_attrs)
        self.base_errors = int(n - self.base_flags.sum())
        self.cache = {}
        self.steps = {}
        self.cached = 0
        self.level1 = {}
        self.candidates = self.all_attrs if candidates is None else np.asarray(candidates)

    # -- counting ---------------------------------------------------------------------
    def counts(self, rows):
        """(class counts (C,), feature counts (C, F)) of the objects ``rows``."""
        C, F = self.n_classes, self.n_cols
        cells = self.cells[rows]
        fc = np.bincount(cells.ravel(), minlength=C * F).astype(np.float64).reshape(C, F)
        cc = np.bincount(self.y[rows], minlength=C).astype(np.float64)
        return cc, fc

    def _scores(self, cc, fc, cols, k, missing, y_out, prior_den, skip=None):
        """Scaled class products for objects with one-hot columns ``cols`` (m, u).

        ``y_out`` (m,) is the class of each object to take out (LOO) or -1 for none.
        ``skip`` (u,) bool: attributes whose factor is 1 (left out of the model).
        Returns (p, scale) with p (m, C) and scale (m,) such that score = p * 2**scale.

        The factors of all attributes are formed in one array ``H`` (u + 1, m, C) whose
        row 0 is the prior; the product is a reduction over axis 0, which numpy performs
        row after row (``((p * f0) * f1) * ...``, Weka's order), in blocks of
        ``_RESCALE_EVERY`` attributes with a power-of-two rescaling in between.
        """
        C = self.n_classes
        a = self.alpha
        m, u = cols.shape
        take = y_out >= 0
        H = np.empty((u + 1, m, C))
        Nc = np.broadcast_to(cc, (m, C)).copy()
        Nc[take, y_out[take]] -= 1.0
        H[0] = (Nc + a) / (prior_den + C * a)
        G = H[1:]
        np.take(np.ascontiguousarray(fc.T), cols.T, axis=0, out=G)  # (u, m, C)
        if take.any():
            r = np.flatnonzero(take)
            G[:, r, y_out[r]] -= 1.0
        G += a
        G /= Nc[None, :, :] + (a * k)[:, None, None]
        if missing is not None and missing.any():
            G[missing.T] = 1.0
        if skip is not None:
            G[skip] = 1.0
            k = k[~skip]
        scale = np.zeros(m, dtype=np.int64)
        # Rescaling by powers of two changes no comparison unless a product would leave the
        # normal range; when even the smallest possible factors cannot get there, skip it.
        floor = np.log2(a / (prior_den + C * a)) + np.sum(np.log2(a / (Nc.max() + a * k)))
        if floor > _SAFE_LOG2:
            return np.multiply.reduce(H, axis=0), scale
        start = 0
        while True:
            stop = min(start + _RESCALE_EVERY + 1, u + 1)
            p = np.multiply.reduce(H[start:stop], axis=0)
            if stop == u + 1:
                if (stop - 1) % _RESCALE_EVERY == 0 and stop > 1:
                    _rescale(p, scale)
                return p, scale
            _rescale(p, scale)
            start = stop - 1
            H[start] = p

    def loo_correct(self, rows, attrs):
        """Leave-one-out flags (True = correct) of naive Bayes on ``rows`` over ``attrs``.

        The factors of the attributes not in ``attrs`` are set to exactly 1.0, which leaves
        every product bit for bit as if they were absent, and lets the gathers take whole
        rows.
        """
        n_s = rows.shape[0]
        if n_s == 0:
            return np.zeros(0, dtype=bool)
        cc, fc = self.counts(rows)
        A = self.codes.shape[1]
        skip = None
        if attrs.shape[0] != A:
            skip = np.ones(A, dtype=bool)
            skip[attrs] = False
        yr = self.y[rows]
        out = np.empty(n_s, dtype=bool)
        block = max(1, _ROW_BLOCK // max(1, self.n_classes * A))
        for start in range(0, n_s, block):
            r = rows[start:start + block]
            missing = self.missing[r] if self.has_missing else None
            p, _ = self._scores(cc, fc, self.cols[r], self.n_values, missing,
                                yr[start:start + block], n_s - 1.0, skip)
            out[start:start + block] = np.argmax(p, axis=1) == yr[start:start + block]
        return out

    def flags_for(self, conds, rows, attrs):
        """LOO flags of the subset defined by the frozenset ``conds`` (cached)."""
        hit = self.level1.get(conds)
        if hit is not None:
            return hit
        return cached_flags(self, conds, lambda: self.loo_correct(rows, attrs))

    def build_level1(self):
        """LOO flags of every one-condition subset ``A = v``; HLBR's per-attribute errors.

        Returns ``errors`` (A,): LOO errors on the training data of "LBR with ``a`` as the
        only antecedent attribute" (an object whose ``a`` is missing keeps its naive Bayes
        LOO flag).
        """
        A = self.codes.shape[1]
        errors = np.zeros(A, dtype=np.int64)
        for a in range(A):
            attrs = np.delete(self.all_attrs, a)
            col = self.codes[:, a]
            errors[a] = int((~self.base_flags[col < 0]).sum())
            for v in range(self.n_values[a]):
                rows = np.flatnonzero(col == v)
                if rows.shape[0] == 0:
                    continue
                flags = self.loo_correct(rows, attrs)
                self.level1[frozenset([(a, v)])] = flags
                errors[a] += int((~flags).sum())
        return errors

    # -- classification ---------------------------------------------------------------
    def _step(self, key, rows, flags, old_wrong_total, attrs, a, v):
        """(tempErrors, passes sign test) of adding ``a = v`` to antecedent ``key``,
        or None when that is not a strict non-empty subset (never eligible in Weka)."""
        match = self.codes[rows, a] == v
        size = int(match.sum())
        if size == rows.shape[0] or size == 0:
            return None
        new = self.flags_for(key | {(a, v)}, rows[match], attrs[attrs != a])
        old = flags[match]
        new_not_old = int(np.count_nonzero(~new & old))
        old_not_new = int(np.count_nonzero(new & ~old))
        # tempErrors = the child's LOO errors + the parent's errors outside the child
        temp = int(new.shape[0] - np.count_nonzero(new)) + old_wrong_total \
            - int(np.count_nonzero(~old))
        ok = sign_test_p(new_not_old, new_not_old + old_not_new) < self.significance
        return temp, ok

    def classify(self, xt):
        """Return (log-score (C,), predicted class index, antecedent [(a, v), ...], subset
        size) for one object; the class is the first maximum of the unlogged scores.

        Weka takes, among the candidates that pass the sign test, the lowest
        ``tempErrors``, first in attribute order on ties. Here candidates whose step is
        cached are read first; the others are tried in increasing order of a lower bound
        on their ``tempErrors`` (the current errors outside the child) and the search
        stops when the bound cannot beat the best so far: the same choice, fewer
        leave-one-out passes.
        """
        rows = self.all_rows
        attrs = self.all_attrs
        flags = self.base_flags
        errors = self.base_errors
        key = frozenset()
        conds = []
        cand_set = self.cand_set
        while errors >= self.min_errors:
            best = (rows.shape[0] + 1, -1)  # (tempErrors, attribute)
            todo = []
            for a in attrs.tolist():
                v = int(xt[a])
                if v < 0 or a not in cand_set:
                    continue
                st = self.steps.get((key, a, v), False)
                if st is False:
                    todo.append(a)
                elif st is not None and st[1] and (st[0], a) < best:
                    best = (st[0], a)
            if todo:
                todo = np.array(todo)
                wrong = rows[~flags]
                bound = np.count_nonzero(self.codes[np.ix_(wrong, todo)] != xt[todo][None, :],
                                         axis=0)
                old_wrong_total = int(wrong.shape[0])
                for j in np.lexsort((todo, bound)).tolist():
                    a = int(todo[j])
                    if (int(bound[j]), a) > best:
                        break
                    v = int(xt[a])
                    st = self._step(key, rows, flags, old_wrong_total, attrs, a, v)
                    self.steps[(key, a, v)] = st
                    if st is not None and st[1] and (st[0], a) < best:
                        best = (st[0], a)
            if best[1] < 0:
                break
            best_err, a = best
            v = int(xt[a])
            sub = rows[self.codes[rows, a] == v]
            new_key = key | {(a, v)}
            flags = self.flags_for(new_key, sub, attrs[attrs != a])
            rows, key = sub, new_key
            conds.append((a, v))
            attrs = attrs[attrs != a]
            errors = best_err
        cc, fc = self.counts(rows)
        cols = (np.where(xt[attrs] < 0, 0, xt[attrs]) + self.offsets[attrs])[None, :]
        missing = (xt[attrs] < 0)[None, :]
        p, scale = self._scores(cc, fc, cols, self.n_values[attrs], missing, np.array([-1]),
                                float(rows.shape[0]))
        with np.errstate(divide="ignore"):
            log_score = np.log(p[0]) + scale[0] * np.log(2.0)
        return log_score, int(np.argmax(p[0])), conds, int(rows.shape[0])

    @property
    def cand_set(self):
        cs = getattr(self, "_cand_set", None)
        if cs is None or cs[0] is not self.candidates:
            cs = (self.candidates, frozenset(int(a) for a in self.candidates))
            self._cand_set = cs
        return cs[1]


def _classify_block(engine, block):
    out = [engine.classify(xt) for xt in block]
    return out


@register
class LBR(BaseNB):
    """Lazy Bayesian rules (``candidates="all"``) and heuristic LBR (``"heuristic"``).

    Works on nominal attributes: ``X`` holds value indices ``0 .. k-1`` (the textnb
    tabular convention, :mod:`textnb.tables`), ``NaN`` for missing. Discretise numeric
    attributes first (``textnb.discretize.MDLDiscretizer``). Pass ``attributes`` (and
    ``class_values``) to ``fit`` to use the declared value counts and class order, which
    is what makes the decisions identical to Weka 3.6's ``weka.classifiers.lazy.LBR``;
    without them each column's distinct training values are its categories (a value
    unseen in training counts as missing) and the classes are the sorted labels.

    Parameters
    ----------
    candidates : {"all", "heuristic"}, default="all"
        ``"all"``: every attribute may enter an antecedent (LBR, Zheng & Webb 2000).
        ``"heuristic"``: HLBR (Wang & Webb): only attributes ``a`` whose leave-one-out
        error on the training data of "LBR with ``a`` as the only antecedent attribute"
        is below naive Bayes' leave-one-out error (see ``candidates_``).
    alpha : float, default=1.0
        Additive smoothing; ``1`` is Weka's Laplace estimate.
    min_errors : int, default=5
        Keep growing the antecedent while the leave-one-out error count is at least this.
    significance : float, default=0.05
        Level of the one-tailed sign test a new condition must pass.
    n_jobs : int, default=None
        Processes for classifying test objects. ``None`` means 1 unless in a
        :obj:`joblib.parallel_backend` context; ``-1`` means all processors.
    max_cache : int, default=20_000_000
        Bound on the number of cached leave-one-out flags per process (1 byte each).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_values_ : ndarray of shape (n_features_in_,)
        Number of values of each attribute.
    candidates_ : ndarray of int
        Attributes that may enter an antecedent.
    attribute_loo_errors_ : ndarray of shape (n_features_in_,)
        LOO errors of "LBR with only this attribute in the antecedent" (HLBR's filter).
    nb_loo_errors_ : int
        Leave-one-out errors of naive Bayes on the training data.
    attribute_names_, value_names_ : list of str, list of list of str
        Names used by :meth:`explain`.

    Examples
    --------
    >>> import numpy as np
    >>> from textnb.lbr import LBR
    >>> X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 5, dtype=float)
    >>> y = np.array(["a", "b", "b", "a"] * 5)
    >>> model = LBR().fit(X, y)
    >>> model.predict([[0, 1], [1, 1]]).tolist()
    ['b', 'a']
    >>> model.explain([[0, 1]])
    ['x0=0 -> local NB on 10 objects']
    """

    def __init__(self, *, candidates="all", alpha=1.0, min_errors=5, significance=0.05,
                 n_jobs=None, max_cache=20_000_000):
        self.candidates = candidates
        self.alpha = alpha
        self.min_errors = min_errors
        self.significance = significance
        self.n_jobs = n_jobs
        self.max_cache = max_cache

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.non_deterministic = False
        return tags

    # -- validation ------------------------------------------------------------------------
    def _check_params(self):
        if self.candidates not in ("all", "heuristic"):
            raise ValueError(f"candidates must be 'all' or 'heuristic'; got {self.candidates!r}")
        if not isinstance(self.alpha, Real) or not self.alpha > 0 or not np.isfinite(self.alpha):
            raise ValueError(f"alpha must be a finite number > 0; got {self.alpha!r}")
        if not isinstance(self.min_errors, Integral) or self.min_errors < 0:
            raise ValueError(f"min_errors must be an int >= 0; got {self.min_errors!r}")
        if not isinstance(self.significance, Real) or not 0 < self.significance <= 1:
            raise ValueError(f"significance must be in (0, 1]; got {self.significance!r}")
        if not isinstance(self.max_cache, Integral) or self.max_cache < 0:
            raise ValueError(f"max_cache must be an int >= 0; got {self.max_cache!r}")

    def _encode(self, X):
        """Value indices (int, -1 = missing) from validated float X."""
        if self.categories_ is not None:
            codes = np.full(X.shape, -1, dtype=np.intp)
            for a in range(X.shape[1]):
                cats = np.asarray(self.categories_[a], dtype=np.float64)
                col = X[:, a]
                pos = np.searchsorted(cats, col)
                pos_c = np.minimum(pos, max(len(cats) - 1, 0))
                found = (~np.isnan(col)) & (len(cats) > 0)
                if len(cats):
                    found &= cats[pos_c] == col
                codes[found, a] = pos_c[found]
            return codes
        known = ~np.isnan(X)
        vals = X[known]
        k = np.broadcast_to(self.n_values_, X.shape)[known]
        if np.any(vals != np.floor(vals)) or np.any(vals < 0) or np.any(vals >= k):
            bad = np.argwhere(known & ((X != np.floor(np.nan_to_num(X))) | (np.nan_to_num(X) < 0)
                                       | (np.nan_to_num(X) >= self.n_values_[None, :])))[0]
            raise ValueError(
                f"X[{bad[0]}, {bad[1]}] = {X[bad[0], bad[1]]!r} is not a value index of "
                f"attribute {self.attribute_names_[bad[1]]!r} (0..{self.n_values_[bad[1]] - 1}); "
                "LBR needs nominal (discretised) attributes"
            )
        return np.where(known, X, -1).astype(np.intp)

    def fit(self, X, y, attributes=None, class_values=None):
        """Store the training data and prepare the shared caches; returns self.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Nominal value indices (NaN = missing), or any numbers when ``attributes`` is
            None (each column's distinct values become its categories).
        y : array-like of shape (n_samples,)
        attributes : list of textnb.tables.Attribute or of int, default=None
            The attributes of ``X`` (all nominal) or their numbers of values.
        class_values : list of str, default=None
            Declared class values in order (Weka's class index order; ties go to the
            first). Default: the sorted distinct labels of ``y``.
        """
        self._check_params()
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_all_finite="allow-nan",
                             reset=True)
        check_classification_targets(y)
        n_features = X.shape[1]
        if class_values is None:
            self.classes_ = np.unique(y)
        else:
            self.classes_ = np.asarray(list(class_values))
            unknown = np.setdiff1d(y, self.classes_)
            if unknown.size:
                raise ValueError(f"y contains labels {unknown.tolist()} not in class_values")
        order = np.argsort(self.classes_, kind="stable")
        y_index = order[np.searchsorted(self.classes_[order], y)]
        names = [f"x{a}" for a in range(n_features)]
        if hasattr(self, "feature_names_in_"):
            names = [str(s) for s in self.feature_names_in_]
        if attributes is None:
            cats = [np.unique(X[~np.isnan(X[:, a]), a]) for a in range(n_features)]
            self.n_values_ = np.array([max(len(c), 1) for c in cats], dtype=np.int64)
            value_names = [[_fmt(v) for v in c] for c in cats]
            self.categories_ = cats
        else:
            if len(attributes) != n_features:
                raise ValueError(
                    f"attributes lists {len(attributes)} attributes but X has {n_features} columns"
                )
            self.categories_ = None
            n_values, value_names = [], []
            for a, att in enumerate(attributes):
                if isinstance(att, Integral):
                    n_values.append(int(att))
                    value_names.append([str(v) for v in range(int(att))])
                    continue
                if not getattr(att, "is_nominal", False):
                    raise ValueError(
                        f"attribute {att.name!r} is {att.kind}; LBR needs nominal attributes "
                        "(discretise numeric ones first, e.g. with MDLDiscretizer)"
                    )
                names[a] = att.name
                n_values.append(len(att.values))
                value_names.append([str(v) for v in att.values])
            self.n_values_ = np.maximum(np.array(n_values, dtype=np.int64), 1)
        self.attribute_names_ = names
        self.value_names_ = value_names
        codes = self._encode(X)
        self.X_codes_ = codes.astype(np.int32)
        self.y_index_ = y_index.astype(np.int32)
        self._engine = None
        engine = self._get_engine(build_candidates=True)
        self.nb_loo_errors_ = engine.base_errors
        return self

    def _get_engine(self, build_candidates=False):
        engine = getattr(self, "_engine", None)
        if engine is not None:
            return engine
        engine = _Engine(self.X_codes_.astype(np.intp), self.y_index_.astype(np.intp),
                         self.n_values_, len(self.classes_), self.alpha, None, self.min_errors,
                         self.significance, self.max_cache)
        errors = engine.build_level1()
        if build_candidates:
            self.attribute_loo_errors_ = errors
            if self.candidates == "heuristic":
                self.candidates_ = np.flatnonzero(errors < engine.base_errors)
            else:
                self.candidates_ = np.arange(self.X_codes_.shape[1])
        engine.candidates = np.asarray(self.candidates_, dtype=np.intp)
        self._engine = engine
        return engine

    def _set_state(self, state):
        for k, v in state.items():
            setattr(self, k, v)
        self._engine = None

    def _check_X(self, X):
        X = validate_data(self, X, dtype=np.float64, ensure_all_finite="allow-nan", reset=False)
        return self._encode(X)

    # -- prediction -------------------------------------------------------------------------
    def _lazy(self, codes):
        engine = self._get_engine()
        n = codes.shape[0]
        n_jobs = self.n_jobs
        if n_jobs is None or n_jobs == 1 or n < 2:
            results = _classify_block(engine, codes)
        else:
            from joblib import effective_n_jobs

            k = max(1, min(effective_n_jobs(n_jobs), n))
            blocks = np.array_split(codes, k)
            parts = Parallel(n_jobs=k)(delayed(_classify_block)(engine, b) for b in blocks)
            results = [r for part in parts for r in part]
        jll = np.array([r[0] for r in results]).reshape(n, len(self.classes_))
        pred = np.array([r[1] for r in results], dtype=np.intp)
        rules = [(r[2], r[3]) for r in results]
        return jll, pred, rules

    def _joint_log_likelihood(self, codes):
        return self._lazy(codes)[0]

    def predict(self, X):
        """The class of each row: the first maximum of its local naive Bayes scores."""
        check_is_fitted(self)
        return self.classes_[self._lazy(self._check_X(X))[1]]

    def _rule_text(self, conds, size):
        if conds:
            lhs = " & ".join(
                f"{self.attribute_names_[a]}={self.value_names_[a][v]}" for a, v in conds
            )
        else:
            lhs = "(no conditions)"
        noun = "object" if size == 1 else "objects"
        return f"{lhs} -> local NB on {size} {noun}"

    def predict_explain(self, X):
        """Predictions and, per object, the rule used.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        rules : list of str
            e.g. ``"outlook=sunny & humidity=high -> local NB on 3 objects"``.
        """
        check_is_fitted(self)
        _, pred, rules = self._lazy(self._check_X(X))
        return self.classes_[pred], [self._rule_text(c, s) for c, s in rules]

    def explain(self, X):
        """The rule used for each object (see :meth:`predict_explain`)."""
        return self.predict_explain(X)[1]

    def predict_rules(self, X):
        """Per object: (antecedent as a list of (attribute index, value index), subset size)."""
        check_is_fitted(self)
        return self._lazy(self._check_X(X))[2]


def _fmt(v):
    v = float(v)
    return str(int(v)) if v.is_integer() else repr(v)
