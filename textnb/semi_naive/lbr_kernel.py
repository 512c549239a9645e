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

Speed: leave-one-out never retrains, and nothing is computed per test object in Python.
For a left-out object of class ``y`` the factor of an attribute value for class ``c`` depends
only on the subset, the value, ``y`` and ``c`` (the object's own counts are subtracted only
when ``c == y``), so a batch of subsets gets small tables of factors, formed by the same
floating-point operations as a direct computation, and each object's class products are
one gather and one ordered product over the attributes; classes absent from a batch have
bit for bit equal products and are represented by one. All one-condition subsets are one
batch at ``fit`` (which also gives the root's step verdicts and HLBR's filter). Test
objects go through Weka's loop together, level by level: the verdict of a step (child
``tempErrors``, sign test) depends only on the two antecedents, so each antecedent reached
keeps a table of verdicts shared by every object that reaches it; the children that the
objects at all the nodes of a level need are one batch; an object decides by one
``argmin`` over its candidate attributes; the final local naive Bayes is one product per
distinct rule. Test objects can be spread over processes with joblib (``n_jobs``).
"""

import math
from functools import lru_cache
from numbers import Integral
from types import MappingProxyType

import numpy as np

from textnb.core.labels import label_names
from textnb.core.model_schema import (FEATURE_NAMES, MAX_DIM, N_FEATURES, N_JOBS, POSITIVE_SMOOTHING, Array,
                                      Attributes, Choice, Classes, Float, Int, ListOf, MayBeAbsent, Optional, Reals,
                                      Str, check_params)
from textnb.core.stats import CountTable
from textnb.core.wrapping import declared_attributes
from textnb.io.frames import frame_for_fit, frame_for_predict
from textnb.io.tables import Attribute, check_plain_attributes
from textnb.naive_bayes.kernels import TableKernel, all_or_nothing
from textnb.naive_bayes.scoring import check_class_labels, fit_classes

__all__ = ["LBRKernel", "cached_flags", "sign_test_below", "sign_test_p"]

_RESCALE_EVERY = 8
_ROW_BLOCK = 1 << 21  # bound on C * rows * attributes elements per LOO block
_SAFE_LOG2 = -1000.0  # products whose smallest possible log2 stays above this need no rescaling
_BATCH_BLOCK = 1 << 16  # bound on the count-table elements of one batched LOO group
_BATCH_ROWS = 1 << 17  # bound on the factor-array elements of one batched LOO block
_MATCH_BLOCK = 1 << 22  # bound on the (subset rows x children) flags of one node expansion


@lru_cache(maxsize=65536)
def sign_test_p(wins_for_old, n):
    """One-tailed sign test: ``P(X <= wins_for_old)`` for ``X ~ Binomial(n, 1/2)``.

    ``wins_for_old`` is the number of objects the new model gets wrong and the old one
    right, ``n`` the number of objects on which they differ. ``1.0`` when
    ``wins_for_old == n`` (including ``n == 0``), as Weka's ``LBR.binomP``.
    """
    if wins_for_old >= n:
        return 1.0
    from scipy.special import bdtr  # (sign_test_below decides the tests without it)

    return float(bdtr(wins_for_old, n, 0.5))


#: Relative distance of the exact p-value from the significance level within which
#: :func:`sign_test_below` asks scipy's ``bdtr`` (accurate to ~1e-14 relative) for the decision.
_NEAR_LEVEL = 10 ** 9


def _log_tail_estimate(k, n):
    """``log P(X <= k)`` for ``X ~ Binomial(n, 1/2)`` in floats (``0 <= k < n``), to ~1e-9:
    the terms ``C(n, i) / 2**n`` from ``math.lgamma``, relative to the first, summed from
    ``i = k`` down until they no longer count (past ``n / 2``, one minus the upper tail)."""
    if 2 * k > n - 1:  # (then n - k - 1 < k)
        return math.log1p(-math.exp(_log_tail_estimate(n - k - 1, n)))
    top = math.lgamma(n + 1) - n * math.log(2.0)
    first = top - math.lgamma(k + 1) - math.lgamma(n - k + 1)
    total = 0.0
    for i in range(k, -1, -1):
        term = math.exp(top - math.lgamma(i + 1) - math.lgamma(n - i + 1) - first)
        total += term
        if term < total * 1e-18:
            break
    return first + math.log(total)


@lru_cache(maxsize=65536)
def sign_test_below(wins_for_old, n, significance):
    """``sign_test_p(wins_for_old, n) < significance``: the decision of LBR's sign test,
    the same as with scipy's float, without importing scipy (~0.15 s of a process's start).

    A float estimate of its log (:func:`_log_tail_estimate`) decides when it lies further
    than ``1e-6`` from the level's; else the p-value ``T / 2**n``, ``T = Σ_{i <= wins_for_old} C(n, i)``,
    is summed exactly in integers (the shorter tail) and compared exactly with
    ``significance``; only when that lies within a relative ``1e-9`` of the level, where the
    rounding of scipy's ``bdtr`` (:func:`sign_test_p`) could decide otherwise, is that float
    compared instead.
    """
    if wins_for_old >= n:
        return 1.0 < significance
    k = int(wins_for_old)
    gap = _log_tail_estimate(k, n) - math.log(significance)
    if abs(gap) > 1e-6:
        return gap < 0
    m = min(k, n - k - 1)  # terms of the shorter tail
    term = total = 1
    for i in range(1, m + 1):
        term = term * (n - i + 1) // i
        total += term
    tail = total if m == k else (1 << n) - total
    num, den = float(significance).as_integer_ratio()
    gap = tail * den - (num << n)  # the sign of p - significance, times den * 2**n
    if abs(gap) * _NEAR_LEVEL > (num << n):
        return gap < 0
    return sign_test_p(wins_for_old, n) < significance


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


class _Node:
    """One antecedent reached by some test objects: its conditions in the order they were
    added, the frozenset key, the subset ``rows``, the attributes still in the local model
    ``attrs``, the subset's LOO ``flags`` and Weka's current ``errors`` (the ``tempErrors``
    of the step that led here, which depends on the path, hence nodes are told apart by
    ``conds``, not by ``key``)."""

    __slots__ = ("attrs", "conds", "errors", "flags", "key", "rows")

    def __init__(self, conds, key, rows, attrs, flags, errors):
        self.conds = conds
        self.key = key
        self.rows = rows
        self.attrs = attrs
        self.flags = flags
        self.errors = errors


class _Engine:
    """The LBR search over one training set; shared by fit, predict and the workers.

    ``codes`` (n, A) int: value index, -1 for missing. ``y`` (n,) class index.

    Two caches keyed by the antecedent (a frozenset of ``(attribute, value)``), bounded
    together by ``max_cache`` entries: ``cache`` holds the LOO flags of the subsets test
    objects moved into; ``steps`` holds, per antecedent reached, the verdicts of adding
    one more condition ``a = v`` as two (A, max k) tables: ``elig[a, v]`` = the child's
    ``tempErrors`` when it passes the sign test, else ``_never`` (also when the child is
    not a strict non-empty subset), and ``done[a, v]`` whether that verdict is known. A
    verdict depends only on the two antecedents, so after the first test objects that
    reach a node the others decide there by table look-up. The one-condition subsets'
    flags (``level1``) and the root's table are built at ``fit`` and kept.

    :meth:`loo_correct` (one subset, rescaling when needed) is the general path that
    :meth:`loo_many` (many subsets per array operation) must equal bit for bit;
    ``tests/semi_naive/test_lbr_speed_equivalence.py`` checks it.
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
        C = n_classes
        self.offsets = np.concatenate([[0], np.cumsum(self.n_values)[:-1]]).astype(np.intp)
        counted = np.where(codes < 0, 0, codes)  # Weka counts a missing value as value 0
        self.cols = counted + self.offsets[None, :]
        self.n_cols = int(self.n_values.sum())
        # the same cells value-major (column * C + class): counts as the (F, C) gather table
        self.cells_fc = self.cols * C + y[:, None]
        self.ak = self.alpha * self.n_values  # a * k_a, as _scores forms it
        self.attr_of_col = np.repeat(np.arange(A), self.n_values)
        self.ak_col = self.ak[self.attr_of_col]  # the same per value column
        self.missing = codes < 0
        # value columns for gathering factors: a missing value points past the last column
        self.gcols_t = np.ascontiguousarray(np.where(self.missing, self.n_cols, self.cols).T)
        self.has_missing = bool(self.missing.any())
        self.all_rows = np.arange(n)
        self.all_attrs = np.arange(A)
        self.base_flags = self.loo_correct(self.all_rows, self.all_attrs)
        self.base_errors = int(n - self.base_flags.sum())
        self.cache = {}
        self.steps = {}
        self.cached = 0
        self.level1 = {}
        self.k_max = int(self.n_values.max()) if A else 1
        self._never = n + 2  # larger than any tempErrors (<= n)
        self.root_table = None
        self.candidates = self.all_attrs if candidates is None else np.asarray(candidates)

    # -- counting ---------------------------------------------------------------------
    def counts(self, rows):
        """(class counts (C,), feature counts (C, F)) of the objects ``rows``: the
        core's count table of their one-hot value columns."""
        table = CountTable(self.n_classes, self.n_cols).add_codes(self.cols[rows], self.y[rows])
        return table.class_count, table.feature_count

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
        rows. This is the general path (any size, rescaling when needed);
        :meth:`loo_many` batches many subsets and falls back to it.
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

    def loo_many(self, R, sid, sizes, skip, products=None):
        """Leave-one-out flags of many subsets at once, concatenated.

        Subset ``s`` is ``R[starts[s]:starts[s + 1]]`` (``sid`` = its subset index per row,
        ``sizes`` (S,) its size) with the attributes ``skip[s]`` (S, A) left out. The result
        equals ``loo_correct`` on each subset bit for bit: every factor is formed by the
        same floating-point operations on the same numbers and multiplied in the same
        order (see :meth:`_loo_group`). A subset goes through ``loo_correct`` itself when
        its products could need rescaling: a lower bound on its smallest product (from its
        largest class count, never above ``loo_correct``'s) within 1 of ``_SAFE_LOG2``.
        ``products`` (len(R), C), if given, receives the class products of the batched
        rows (those of ``loo_correct``'s subsets are left as they are), for the tests.
        """
        C, F = self.n_classes, self.n_cols
        a = self.alpha
        out = np.empty(R.shape[0], dtype=bool)
        S = sizes.shape[0]
        if R.shape[0] == 0:
            return out
        starts = np.zeros(S + 1, dtype=np.intp)
        np.cumsum(sizes, out=starts[1:])
        cc = np.bincount(self.y[R] + sid * C, minlength=S * C).astype(np.float64).reshape(S, C)
        with np.errstate(all="ignore"):
            lf = np.log2(a / (cc.max(axis=1)[:, None] + self.ak[None, :]))
            lf[skip] = 0.0
            floor = np.log2(a / ((sizes - 1.0) + C * a)) + lf.sum(axis=1)
        general = ~(floor > _SAFE_LOG2 + 1.0) & (sizes > 0)
        per_group = max(1, _BATCH_BLOCK // max(1, F * C))  # subsets whose tables fit a block
        s0 = 0
        for s in range(S + 1):
            if s < S and not general[s] and s - s0 < per_group:
                continue
            if s > s0:
                self._loo_group(R, sid, sizes, skip, cc, starts, s0, s, out, products)
            if s == S:
                break
            if general[s]:
                lo, hi = starts[s], starts[s + 1]
                out[lo:hi] = self.loo_correct(R[lo:hi], np.flatnonzero(~skip[s]))
                s0 = s + 1
            else:
                s0 = s
        return out

    def _loo_group(self, R, sid, sizes, skip, cc, starts, s0, s1, out, products=None):
        """``loo_many`` for the subsets ``s0 .. s1 - 1`` (contiguous rows), no rescaling.

        ``loo_correct`` forms the factor of attribute ``a`` (value column ``f``) for a
        left-out object of class ``y`` and a class ``c`` as ``(N_cf + alpha) / (N_c + ak)``
        when ``c != y`` and ``((N_cf - 1) + alpha) / ((N_c - 1) + ak)`` when ``c == y``,
        with the subset's counts, and 1.0 for a left-out attribute (antecedent, or missing
        value of the object). Those depend on (subset, f, y, c) only, so they are computed
        once by exactly these operations, in a table ``B`` per subset (c != y) and a row
        ``D`` per (subset, y) pair present (c == y), with 1.0 in the columns of left-out
        attributes and in an extra column that missing values point to, and gathered per
        object: from one table per pair (``B`` with ``D`` as its column ``y``) when
        building those costs less than the gathers; otherwise the products are taken over
        ``B`` and each object's own class is redone over ``D``. Either way each class
        product is the same sequence of multiplications as in ``_scores``
        (``np.multiply.reduce`` over the prior and the attributes in order): Weka's order.

        Classes absent from all these subsets have count 0 in each, hence the same prior
        and factors, hence bit for bit the same product: only the first of them is kept
        (with the others, in class order), and the first maximum over the kept classes is
        the first maximum over all.
        """
        C, F, A = self.n_classes, self.n_cols, self.codes.shape[1]
        a = self.alpha
        lo, hi = starts[s0], starts[s1]
        if hi == lo:
            return
        S = s1 - s0
        m = hi - lo
        r = R[lo:hi]
        local = sid[lo:hi] - s0
        yr = self.y[r]
        fc = np.bincount((self.cells_fc[r] + (local * (F * C))[:, None]).ravel(),
                         minlength=S * F * C).astype(np.float64).reshape(S, F, C)
        ccs = cc[s0:s1]
        keep = np.zeros(C, dtype=bool)
        keep[yr] = True
        if keep.all():
            W, yk, fck, ccsk = C, yr, fc, ccs
        else:
            first = np.argmin(keep)  # the first absent class stands for all of them
            keep[first] = True
            kept = np.flatnonzero(keep)
            W = kept.shape[0]
            col = np.cumsum(keep) - 1  # class -> kept column (absent ones: first's)
            col[~keep] = col[first]
            yk = col[yr]
            fck, ccsk = fc[:, :, kept], ccs[:, kept]
        left_out = skip[s0:s1][:, self.attr_of_col]  # (S, F)
        B = np.empty((S, F + 1, W))
        np.divide(fck + a, ccsk[:, None, :] + self.ak_col[None, :, None], out=B[:, :F])
        B[:, :F][left_out] = 1.0
        B[:, F] = 1.0
        # (subset, y) pairs present: the prior and the own-class factors D of each
        code = local * W + yk
        present = np.bincount(code, minlength=S * W) > 0
        pair = np.flatnonzero(present)
        pid = (np.cumsum(present) - 1)[code]
        ps, py = pair // W, pair % W
        P = pair.shape[0]
        ap = np.arange(P)
        Nc = ccsk[ps]
        Nc[ap, py] -= 1.0
        prior = (Nc + a) / ((sizes[s0:s1][ps] - 1.0) + C * a)[:, None]
        D = np.empty((P, F + 1))
        np.divide((fck[ps, :, py] - 1.0) + a, Nc[ap, py][:, None] + self.ak_col[None, :],
                  out=D[:, :F])
        D[:, :F][left_out[ps]] = 1.0
        D[:, F] = 1.0
        use_pairs = P * (F + 1) <= m * A and P * (F + 1) * W <= 4 * _BATCH_BLOCK
        if use_pairs:
            T = B[ps]  # (P, F + 1, W)
            T[ap, :, py] = D
            tab = T.reshape(-1, W)
            base = pid * (F + 1)
        else:
            tab = B.reshape(-1, W)
            base = local * (F + 1)
            dflat = D.reshape(-1)
            dbase = pid * (F + 1)
        gT = self.gcols_t
        block = max(1, _BATCH_ROWS // max(1, W * (A + 1)))
        for b in range(0, m, block):
            e = min(b + block, m)
            mb = e - b
            gb = gT[:, r[b:e]]  # (A, mb)
            H = np.empty((A + 1, mb, W))
            np.take(prior, pid[b:e], axis=0, out=H[0])
            np.take(tab, gb + base[b:e], axis=0, out=H[1:])
            p = np.multiply.reduce(H, axis=0)
            yb = yk[b:e]
            if not use_pairs:
                ar = np.arange(mb)
                own = np.empty((A + 1, mb))
                own[0] = H[0][ar, yb]
                np.take(dflat, gb + dbase[b:e], out=own[1:])
                p[ar, yb] = np.multiply.reduce(own, axis=0)
            if products is not None:
                products[lo + b:lo + e] = p if W == C else p[:, col]
            out[lo + b:lo + e] = np.argmax(p, axis=1) == yb

    def flags_for(self, conds, rows, attrs):
        """LOO flags of the subset defined by the frozenset ``conds`` (cached)."""
        hit = self.level1.get(conds)
        if hit is not None:
            return hit
        return cached_flags(self, conds, lambda: self.loo_correct(rows, attrs))

    def _verdicts(self, old, old_wrong, sid, sizes, new):
        """(tempErrors (S,), passes sign test (S,)) of S children from their LOO flags
        ``new`` and their parents' flags ``old`` on the same rows (concatenated, grouped by
        ``sid``), and ``old_wrong`` (S,) = the number of LOO errors of each one's parent."""
        S = sizes.shape[0]
        cnt = np.bincount(sid * 4 + (new * 2 + old), minlength=4 * S).reshape(S, 4)
        # columns: 0 new wrong & old wrong, 1 new wrong & old right, 2 new right & old wrong,
        # 3 both right. tempErrors = the child's LOO errors + the parent's errors outside it
        temp = (cnt[:, 0] + cnt[:, 1]) + (old_wrong - (cnt[:, 0] + cnt[:, 2]))
        ok = np.zeros(S, dtype=bool)
        sig = self.significance
        for s, (nno, onn) in enumerate(zip(cnt[:, 1].tolist(), cnt[:, 2].tolist())):
            ok[s] = sign_test_below(nno, nno + onn, sig)
        return temp, ok

    def build_level1(self):
        """LOO flags of every one-condition subset ``A = v``; HLBR's per-attribute errors;
        the root's step table.

        Returns ``errors`` (A,): LOO errors on the training data of "LBR with ``a`` as the
        only antecedent attribute" (an object whose ``a`` is missing keeps its naive Bayes
        LOO flag).
        """
        n, A = self.codes.shape
        F = self.n_cols
        # every subset A = v at once: the rows with a known value, grouped by cell (a, v),
        # ascending within each cell (a stable sort of the column-major cells)
        known = ~self.missing.T  # (A, n)
        cell = self.cols.T[known]
        row = np.broadcast_to(self.all_rows, (A, n))[known]
        order = np.argsort(cell, kind="stable")
        R = row[order]
        sid = cell[order]
        sizes = np.bincount(cell, minlength=F)
        attr_of = self.attr_of_col
        value_of = np.arange(F) - self.offsets[attr_of]
        skip = np.zeros((F, A), dtype=bool)
        skip[np.arange(F), attr_of] = True
        flags = self.loo_many(R, sid, sizes, skip)
        starts = np.concatenate([[0], np.cumsum(sizes)])
        for f in np.flatnonzero(sizes).tolist():
            self.level1[frozenset([(int(attr_of[f]), int(value_of[f]))])] = \
                flags[starts[f]:starts[f + 1]]
        wrong = np.bincount(sid, weights=~flags, minlength=F)
        errors = np.add.reduceat(wrong, self.offsets).astype(np.int64)  # every k_a >= 1
        errors += np.count_nonzero(self.missing & ~self.base_flags[:, None], axis=0)
        # the root's verdicts: a strict non-empty subset, its tempErrors and sign test
        temp, ok = self._verdicts(self.base_flags[R], np.full(F, self.base_errors), sid, sizes,
                                  flags)
        elig = np.full((A, self.k_max), self._never, dtype=np.int64)
        good = ok & (sizes > 0) & (sizes < n)
        elig[attr_of[good], value_of[good]] = temp[good]
        self.root_table = (elig, np.ones((A, self.k_max), dtype=bool))
        return errors

    # -- classification ---------------------------------------------------------------
    def _charge(self, n):
        """Count ``n`` more cached entries against ``max_cache`` (as ``cached_flags`` does
        for flags); past the bound both caches start afresh."""
        if self.cached + n > self.max_cache:
            self.cache.clear()
            self.steps.clear()
            self.cached = 0
        self.cached += n

    def _table(self, node):
        """The node's step table ``(elig, done)``, (A, max k) each; see the class doc."""
        if not node.conds:
            return self.root_table
        t = self.steps.get(node.key)
        if t is None:
            A = self.codes.shape[1]
            self._charge(A * self.k_max)
            t = (np.full((A, self.k_max), self._never, dtype=np.int64),
                 np.zeros((A, self.k_max), dtype=bool))
            self.steps[node.key] = t
        return t

    def _expand(self, jobs):
        """Fill the step tables of several nodes: ``jobs`` lists (node, attributes, values,
        table), the children ``a = v`` whose verdicts are wanted. The LOO flags of all the
        children (strict non-empty subsets) of all the nodes come from :meth:`loo_many`,
        in batches of about ``_MATCH_BLOCK`` rows. Returns, per job, {attribute * max k +
        value: the child's LOO flags} for the children that pass the sign test."""
        fresh = [{} for _ in jobs]
        batch, n_rows = [], 0
        for ji, (node, pa, pv, table) in enumerate(jobs):
            rows = node.rows
            n_s = rows.shape[0]
            step = max(1, _MATCH_BLOCK // max(1, n_s))
            for i in range(0, pa.shape[0], step):
                a_, v_ = pa[i:i + step], pv[i:i + step]
                match = self.codes[rows[:, None], a_[None, :]] == v_[None, :]  # (n_s, P)
                sizes = np.count_nonzero(match, axis=0)
                table[1][a_, v_] = True
                real = (sizes > 0) & (sizes < n_s)  # else never eligible
                if not real.any():
                    continue
                sid, pos = np.nonzero(match[:, real].T)  # by child, ascending rows in each
                batch.append((ji, a_[real], v_[real], sizes[real], sid, pos))
                n_rows += pos.shape[0]
                if n_rows >= _MATCH_BLOCK:
                    self._expand_batch(jobs, batch, fresh)
                    batch, n_rows = [], 0
        if batch:
            self._expand_batch(jobs, batch, fresh)
        return fresh

    def _expand_batch(self, jobs, batch, fresh):
        A = self.codes.shape[1]
        sizes = np.concatenate([b[3] for b in batch])
        P = sizes.shape[0]
        first = np.cumsum([0] + [b[1].shape[0] for b in batch])
        R = np.concatenate([jobs[b[0]][0].rows[b[5]] for b in batch])
        sid = np.concatenate([b[4] + first[k] for k, b in enumerate(batch)])
        old = np.concatenate([jobs[b[0]][0].flags[b[5]] for b in batch])
        old_wrong = np.empty(P, dtype=np.int64)
        skip = np.ones((P, A), dtype=bool)
        for k, b in enumerate(batch):
            node = jobs[b[0]][0]
            old_wrong[first[k]:first[k + 1]] = node.flags.shape[0] - np.count_nonzero(node.flags)
            skip[first[k]:first[k + 1], node.attrs] = False
        pa = np.concatenate([b[1] for b in batch])
        skip[np.arange(P), pa] = True
        new = self.loo_many(R, sid, sizes, skip)
        temp, ok = self._verdicts(old, old_wrong, sid, sizes, new)
        starts = np.zeros(P + 1, dtype=np.intp)
        np.cumsum(sizes, out=starts[1:])
        for k, b in enumerate(batch):
            ji, a_, v_ = b[0], b[1], b[2]
            lo, hi = first[k], first[k + 1]
            okk = ok[lo:hi]
            jobs[ji][3][0][a_[okk], v_[okk]] = temp[lo:hi][okk]
            f = fresh[ji]
            for s, j in zip((a_[okk] * self.k_max + v_[okk]).tolist(),
                            (np.flatnonzero(okk) + lo).tolist()):
                f[s] = new[starts[j]:starts[j + 1]]

    def classify_many(self, X):
        """(log-scores (m, C), predicted class indices (m,), rules [(antecedent
        [(a, v), ...], subset size)]) for the objects ``X`` (m, A) of value codes.

        Weka's loop, run for all objects together level by level: the objects at the same
        node decide there from the node's step table (lowest ``tempErrors`` among the
        children passing the sign test, first attribute on ties: one ``argmin`` over the
        candidate attributes in order), after the children none of them had looked up yet
        were computed in one batch. The class is the first maximum of the unlogged scores,
        one batched product per final antecedent.
        """
        m, A = X.shape
        C = self.n_classes
        if m == 0:
            return np.empty((0, C)), np.empty(0, dtype=np.intp), []
        cand = np.zeros(A, dtype=bool)
        cand[self.candidates] = True
        never = self._never
        root = _Node((), frozenset(), self.all_rows, self.all_attrs, self.base_flags,
                     self.base_errors)
        frontier = [(root, np.arange(m))]
        finals = []
        while frontier:
            nxt = []
            jobs, looks = [], []
            for node, objs in frontier:
                ca = node.attrs[cand[node.attrs]]
                if node.errors < self.min_errors or ca.shape[0] == 0:
                    finals.append((node, objs))
                    continue
                V = X[objs[:, None], ca[None, :]]
                known = V >= 0
                Vc = np.where(known, V, 0)
                table = self._table(node)
                need = known & ~table[1][ca[None, :], Vc]
                job = -1
                if need.any():
                    i, j = np.nonzero(need)
                    pair = np.unique(ca[j] * self.k_max + V[i, j])
                    job = len(jobs)
                    jobs.append((node, pair // self.k_max, pair % self.k_max, table))
                looks.append((node, objs, ca, V, known, Vc, table, job))
            fresh = self._expand(jobs) if jobs else []
            for node, objs, ca, V, known, Vc, table, job in looks:
                if job >= 0 and node.conds:
                    self.steps[node.key] = table  # (again, if a cache reset dropped it)
                T = np.where(known, table[0][ca[None, :], Vc], never)
                j = np.argmin(T, axis=1)
                best = T[np.arange(objs.shape[0]), j]
                go = best < never
                if not go.all():
                    finals.append((node, objs[~go]))
                if not go.any():
                    continue
                objs, j, best = objs[go], j[go], best[go]
                ba = ca[j]
                bv = V[go][np.arange(objs.shape[0]), j]
                step = ba * self.k_max + bv
                for s in np.unique(step).tolist():
                    a, v = divmod(s, self.k_max)
                    pick = step == s
                    sub = node.rows[self.codes[node.rows, a] == v]
                    key = node.key | {(a, v)}
                    attrs = node.attrs[node.attrs != a]
                    flags = fresh[job].get(s) if job >= 0 else None
                    if flags is None:
                        flags = self.flags_for(key, sub, attrs)
                    elif node.conds:  # (the root's children are all in level1)
                        flags = cached_flags(self, key, lambda f=flags: f.copy())
                    child = _Node(node.conds + ((a, v),), key, sub, attrs, flags,
                                  int(best[pick][0]))
                    nxt.append((child, objs[pick]))
            frontier = nxt
        jll = np.empty((m, C))
        pred = np.empty(m, dtype=np.intp)
        rules = [None] * m
        groups = {}
        for node, objs in finals:
            groups.setdefault(node.key, []).append((node, objs))
            size = int(node.rows.shape[0])
            for o in objs.tolist():
                rules[o] = (list(node.conds), size)
        with np.errstate(divide="ignore"):
            for items in groups.values():
                node = items[0][0]
                objs = np.concatenate([o for _, o in items])
                attrs = node.attrs
                cc, fc = self.counts(node.rows)
                block = max(1, _ROW_BLOCK // max(1, C * (attrs.shape[0] + 1)))
                for start in range(0, objs.shape[0], block):
                    o = objs[start:start + block]
                    xa = X[o[:, None], attrs[None, :]]
                    missing = xa < 0
                    cols = np.where(missing, 0, xa) + self.offsets[attrs]
                    p, scale = self._scores(cc, fc, cols, self.n_values[attrs], missing,
                                            np.full(o.shape[0], -1), float(node.rows.shape[0]))
                    jll[o] = np.log(p) + (scale * np.log(2.0))[:, None]
                    pred[o] = np.argmax(p, axis=1)
        return jll, pred, rules


def _classify_block(engine, block):
    return engine.classify_many(block)




class LBRKernel(TableKernel):
    """The model of :class:`~textnb.semi_naive.lbr.LBR` without scikit-learn: the same
    parameters (``LBRKernel.defaults``), fitted attributes, ``fit``, ``predict*``,
    ``predict_explain`` / ``explain`` / ``predict_rules`` and model file (:meth:`save`,
    :meth:`from_node`); numpy input checks. The documentation is the estimator's.

    Examples
    --------
    >>> import numpy as np
    >>> from textnb.semi_naive.lbr_kernel import LBRKernel
    >>> X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 5, dtype=float)
    >>> LBRKernel().fit(X, np.array(["a", "b", "b", "a"] * 5)).explain([[0, 1]])
    ['x0=0 -> local NB on 10 objects']
    """

    #: capability (:mod:`textnb.core.wrapping`): why there is no ``merge`` (``textnb merge`` says it)
    merge_refusal = ("it keeps its training rows with their leave-one-out errors under naive Bayes trained on all of "
                     "them, and grows each rule from them")

    kind = "LBR"
    defaults = MappingProxyType({"candidates": "all", "alpha": 1.0, "min_errors": 5, "significance": 0.05,
                                 "n_jobs": None, "max_cache": 20_000_000})

    #: capability (:mod:`textnb.core.wrapping`): ``predict_explain`` gives the rule used per row
    explains_by_rules = True

    _param_schema = {
        "candidates": Choice("all", "heuristic"), "alpha": POSITIVE_SMOOTHING,
        "min_errors": Int(0, MAX_DIM), "significance": Float(0.0, 1.0, lo_open=True), "n_jobs": N_JOBS,
        "max_cache": Int(0, 2**40),
    }
    _state_schema = {
        "frame_attributes_": MayBeAbsent(Attributes(length=None)),  # fitted on a DataFrame
        "classes_": Classes(),
        "n_features_in_": N_FEATURES,
        "n_values_": Array("iu", ("n_features",), lo=1, hi=MAX_DIM, elem_dims="n_values"),
        "X_codes_": Array("iu", ("n_train", "n_features"), lo=-1, lt="n_values_"),  # -1: missing
        "y_index_": Array("iu", ("n_train",), index="n_classes"),
        "attribute_loo_errors_": Array("iu", ("n_features",), lo=0, hi=MAX_DIM),
        "attribute_names_": ListOf(Str(10_000), length="n_features"),
        "candidates_": Array("iu", (None,), index="n_features", distinct=True),
        "categories_": Optional(ListOf(Reals(("n_values[]",), increasing=True), length="n_features")),
        "nb_loo_errors_": Int(0, MAX_DIM),
        "value_names_": ListOf(ListOf(Str(10_000), length="n_values[]"), length="n_features"),
        "feature_names_in_": FEATURE_NAMES,
    }

    @property
    def attributes_(self):
        """The attributes of the columns (fitted): nominal ones of ``attribute_names_`` with
        the values ``value_names_`` (those declared to ``fit``, a DataFrame's, or the value
        indices of a number of values), or numeric ones where ``X`` held the numbers
        themselves (nothing declared: each column's distinct training values are its
        categories, ``categories_``). Derived from the fitted state, so every model file has them."""
        kind = "nominal" if self.categories_ is None else "numeric"
        return [Attribute(str(name), kind, list(values) if kind == "nominal" else [])
                for name, values in zip(self.attribute_names_, self.value_names_)]

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

    @all_or_nothing
    def fit(self, X, y, attributes=None, class_values=None):
        """Store the training data and prepare the shared caches; returns self.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Nominal value indices (NaN = missing), or any numbers when ``attributes`` is
            None (each column's distinct values become its categories).
        y : array-like of shape (n_samples,)
        attributes : list of textnb.io.tables.Attribute or of int, default=None
            The attributes of ``X`` (all nominal) or their numbers of values.
        class_values : list of str, default=None
            Declared class values in order (Weka's class index order; ties go to the
            first). Default: the sorted distinct labels of ``y``.
        """
        check_params(self)
        X = frame_for_fit(self, X, attributes, integers_nominal=True)  # a DataFrame: textnb.io.frames
        if attributes is None:
            attributes = declared_attributes(self)
        check_plain_attributes(attributes, "LBR")
        X, y = self._validate_xy(X, y, reset=True)
        n_features = X.shape[1]
        self.classes_, y_index = fit_classes(y, class_values)
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

    def _validate_xy(self, X, y, *, reset):
        """The table checks of :class:`~textnb.naive_bayes.scoring.TableInput` and labels
        that are classes (not continuous numbers), as scikit-learn's
        ``check_classification_targets`` requires of the estimator."""
        X, y = super()._validate_xy(X, y, reset=reset)
        check_class_labels(y)
        return X, y

    def _set_state(self, state):
        for k, v in state.items():
            setattr(self, k, v)
        if "frame_attributes_" in state:
            self.frame_attributes_ = [
                a if isinstance(a, Attribute) else Attribute(a["name"], a["kind"], list(a["values"]))
                for a in self.frame_attributes_]
        self._engine = None

    def _check_X(self, X):
        X = frame_for_predict(self, X, None)
        return self._encode(self._validate_x(X, reset=False))

    # -- prediction -------------------------------------------------------------------------
    def _lazy(self, codes):
        engine = self._get_engine()
        n = codes.shape[0]
        n_jobs = self.n_jobs
        if n_jobs is None or n_jobs == 1 or n < 2:
            jll, pred, rules = _classify_block(engine, codes)
        else:
            from joblib import Parallel, delayed, effective_n_jobs

            k = max(1, min(effective_n_jobs(n_jobs), n))
            blocks = np.array_split(codes, k)
            parts = Parallel(n_jobs=k)(delayed(_classify_block)(engine, b) for b in blocks)
            jll = np.concatenate([p[0] for p in parts]).reshape(n, len(self.classes_))
            pred = np.concatenate([p[1] for p in parts]).astype(np.intp)
            rules = [r for p in parts for r in p[2]]
        return jll, pred, rules

    def _joint_log_likelihood(self, codes):
        return self._lazy(codes)[0]

    def predict(self, X):
        """The class of each row: the first maximum of its local naive Bayes scores."""
        self._check_fitted()
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

    # -- inspection ------------------------------------------------------------------------
    def describe(self):
        """The fitted model as plain data (JSON-serialisable), for ``textnb inspect``.

        LBR keeps its training objects and builds a rule per test object, so what it holds
        is the data the rules are drawn from: ``model`` (``"LBR"``, or ``"HLBR"`` for
        ``candidates="heuristic"``), its parameters, ``classes`` and ``class_count``,
        ``class_prior`` (the prior of the rule without conditions, the local naive Bayes of
        every training object: ``(n_c + alpha) / (n + C alpha)``, as every table model's
        description has one), ``n_train``, ``nb_loo_errors`` (naive Bayes' leave-one-out errors on the training
        objects, the figure a rule must improve on) and ``attributes``: per attribute its
        ``values`` with the per-class ``counts`` of the training objects, ``missing``,
        ``loo_errors`` (leave-one-out errors of LBR with this attribute as the only one
        allowed in a rule, HLBR's filter) and ``candidate`` (whether rules may use it).
        """
        self._check_fitted()
        classes = label_names(self)
        y = np.asarray(self.y_index_, dtype=np.intp)
        codes = np.asarray(self.X_codes_, dtype=np.intp)
        candidates = {int(j) for j in self.candidates_}
        class_count = np.bincount(y, minlength=len(classes)).astype(np.float64)
        attributes = []
        for j, name in enumerate(self.attribute_names_):
            k = int(self.n_values_[j])
            present = codes[:, j] >= 0
            counts = CountTable(len(classes), k).add_codes(codes[present, j:j + 1], y[present]).feature_count
            values = [str(v) for v in self.value_names_[j]]
            values += [f"#{i}" for i in range(len(values), k)]  # an attribute with no value seen
            attributes.append({
                "name": str(name), "kind": "nominal",
                "model": "nominal" + ("" if j in candidates else ", not a rule candidate"),
                "values": values, "counts": {c: [int(v) for v in counts[i]] for i, c in enumerate(classes)},
                "missing": int(np.count_nonzero(~present)),
                "loo_errors": int(self.attribute_loo_errors_[j]), "candidate": j in candidates,
            })
        return {
            "model": "LBR" if self.candidates == "all" else "HLBR",
            "alpha": float(self.alpha), "min_errors": int(self.min_errors), "significance": float(self.significance),
            "classes": classes,
            "class_count": [float(n) for n in class_count],
            "class_prior": ((class_count + self.alpha) / (len(y) + len(classes) * self.alpha)).tolist(),
            "n_train": int(len(y)),
            "nb_loo_errors": int(self.nb_loo_errors_),
            "attributes": attributes,
        }

    def predict_explain(self, X):
        """Predictions and, per object, the rule used.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        rules : list of str
            e.g. ``"outlook=sunny & humidity=high -> local NB on 3 objects"``.
        """
        self._check_fitted()
        _, pred, rules = self._lazy(self._check_X(X))
        return self.classes_[pred], [self._rule_text(c, s) for c, s in rules]

    def explain(self, X):
        """The rule used for each object (see :meth:`predict_explain`)."""
        return self.predict_explain(X)[1]

    def predict_rules(self, X):
        """Per object: (antecedent as a list of (attribute index, value index), subset size)."""
        self._check_fitted()
        return self._lazy(self._check_X(X))[2]


def _fmt(v):
    v = float(v)
    return str(int(v)) if v.is_integer() else repr(v)
