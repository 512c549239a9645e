"""Cut points of numeric attributes (numpy only): equal width, equal frequency and
Fayyad & Irani's MDL, and binning values with them.

The discretisers of :mod:`textnb.naive_bayes.discretize` (scikit-learn transformers) and
:class:`textnb.naive_bayes.tabular_kernel.TabularKernel` (``numeric="mdl"`` and the
others, without scikit-learn) both cut with these functions. A value ``v`` falls into bin
``#{cut points < v}`` (a value equal to a cut point goes to the lower bin), as in Weka.
"""

import numpy as np

from textnb.core.errors import CUT_POINTS, SettingsDiffer
from textnb.core.wrapping import declared_attributes
from textnb.io.frames import frame_for_predict
from textnb.naive_bayes.scoring import check_nominal_codes

__all__ = ["apply_cut_points", "check_same_cut_points", "equal_frequency_cut_points", "equal_width_cut_points", "mdl_cut_points", "nominal_rows"]


def apply_cut_points(X, cut_points):
    """Bin indices of ``X`` by per-column ``cut_points`` (None: column passed through)."""
    X = np.array(X, dtype=np.float64, copy=True)
    for j, cuts in enumerate(cut_points):
        if cuts is None:
            continue
        col = X[:, j]
        known = ~np.isnan(col)
        col[known] = np.searchsorted(cuts, col[known], side="left")
    return X


def _sorted_groups(values, weights, y_index=None, n_classes=0):
    """Distinct sorted values of the known ``values`` with their summed weights.

    With ``y_index``: also per-class summed weights (n_distinct, n_classes) and the
    unweighted object count per distinct value.
    """
    known = ~np.isnan(values) & (weights > 0)  # a zero-weight object is not there
    v, w = values[known], weights[known]
    uniq, inv = np.unique(v, return_inverse=True)
    wsum = np.bincount(inv, weights=w, minlength=uniq.size)
    if y_index is None:
        return uniq, wsum
    yk = y_index[known]
    counts = np.zeros((uniq.size, n_classes))
    np.add.at(counts, (inv, yk), w)
    n_obj = np.bincount(inv, minlength=uniq.size).astype(np.float64)
    return uniq, counts, n_obj


def equal_width_cut_points(values, n_bins, weights=None):
    """``n_bins - 1`` evenly spaced cuts between the minimum and maximum known value."""
    keep = ~np.isnan(values)
    if weights is not None:
        keep &= np.asarray(weights) > 0
    v = values[keep]
    if v.size == 0 or n_bins < 2:
        return np.empty(0)
    lo, hi = v.min(), v.max()
    if not hi > lo:
        return np.empty(0)
    with np.errstate(over="ignore"):
        span = hi - lo
    if not np.isfinite(span):  # a span past the float range: the same cuts, computed without it
        f = np.arange(1, n_bins) / n_bins
        return lo * (1.0 - f) + hi * f
    width = span / n_bins
    cuts = lo + width * np.arange(1, n_bins)
    # a range of a few float steps (1e16 to 1e16 + 2) makes equal cuts: each once, the intervals between
    # equal cuts being empty (found by a session-52 hunt: train wrote a model it then refused to read,
    # 'cut_points_[0]: values are not strictly increasing', where evaluate ran)
    return cuts[np.concatenate(([True], np.diff(cuts) > 0))]


def equal_frequency_cut_points(values, n_bins, weights=None):
    """Cuts putting about ``total / n_bins`` weight in each bin (Weka ``-F``).

    Walks the distinct values in order; once a bin holds at least the target weight
    it is closed, either here or at the previous boundary if that one was closer to
    the target; the target is then recomputed from the remaining weight. Cuts are the
    midpoints between neighbouring distinct values.
    """
    weights = np.ones_like(values) if weights is None else np.asarray(weights, dtype=np.float64)
    uniq, w = _sorted_groups(values, weights)
    if n_bins < 2 or uniq.size < 2:
        return np.empty(0)
    remaining = w.sum()
    freq = remaining / n_bins
    n_cuts_max = n_bins - 1
    cuts = []
    counter = last = 0.0
    last_index = -1
    for k in range(uniq.size - 1):
        if len(cuts) >= n_cuts_max:
            break
        counter += w[k]
        remaining -= w[k]
        if counter >= freq:
            if (freq - last) < (counter - freq) and last_index != -1:
                cuts.append((uniq[last_index] + uniq[last_index + 1]) / 2)
                counter -= last
                last = counter
                last_index = k
            else:
                cuts.append((uniq[k] + uniq[k + 1]) / 2)
                counter = last = 0.0
                last_index = -1
            freq = (remaining + counter) / (n_cuts_max + 1 - len(cuts))
        else:
            last_index = k
            last = counter
    if len(cuts) < n_cuts_max and last_index != -1:
        cuts.append((uniq[last_index] + uniq[last_index + 1]) / 2)
    return np.array(cuts, dtype=np.float64)


_LOG2 = np.log(2.0)


def _xlogx(a):
    a = np.asarray(a, dtype=np.float64)
    out = np.zeros_like(a)
    pos = a > 0
    out[pos] = a[pos] * np.log(a[pos])
    return out


def _entropy(counts):
    """Entropy in bits of a count vector (Weka's ``ContingencyTables.entropy``)."""
    total = counts.sum()
    if total <= 1e-6 and total >= -1e-6:
        return 0.0
    return float((-_xlogx(counts).sum() + _xlogx(total)) / (total * _LOG2))


def mdl_cut_points(values, y_index, n_classes, weights=None):
    """Fayyad & Irani's recursive entropy splitting with their MDL acceptance test.

    Follows Weka 3.6's supervised ``Discretize`` (default options): missing values
    are ignored; in a subset the boundary with the lowest class entropy (the first
    one on ties) is the candidate; it is accepted when ::

        gain > (log2(N - 1) + log2(3^k - 2) - [k E - k1 E1 - k2 E2]) / W

    with ``N - 1`` the number of candidate cut points counted as Weka's default
    "worse encoding" does (one per object, not per distinct value) and ``W`` the
    summed weight of the subset; ``N = W`` too, so that an instance weight of 2 is
    the same as a repeated object (with unit weights this is exactly Weka), ``E`` the subset's
    class entropy, ``E1, E2`` those of the two sides, ``k, k1, k2`` the numbers of
    classes present; then both sides are split recursively.
    """
    weights = np.ones_like(values) if weights is None else np.asarray(weights, dtype=np.float64)
    uniq, counts, n_obj = _sorted_groups(values, weights, np.asarray(y_index, dtype=np.intp), n_classes)
    cuts = []
    # explicit stack instead of recursion: (first, last_plus_one) over distinct values
    stack = [(0, uniq.size)]
    while stack:
        first, stop = stack.pop()
        sub = counts[first:stop]
        n_objects = n_obj[first:stop].sum()
        if n_objects < 2 or stop - first < 2:
            continue
        prior = sub.sum(axis=0)
        total = prior.sum()
        prior_entropy = _entropy(prior)
        left = np.cumsum(sub, axis=0)[:-1]  # boundary after distinct value i
        right = prior - left
        lt, rt = left.sum(axis=1), right.sum(axis=1)
        # Weka's entropyConditionedOnRows, one value per boundary
        ent = (-(_xlogx(left).sum(axis=1) - _xlogx(lt) + _xlogx(right).sum(axis=1) - _xlogx(rt))
               / (total * _LOG2))
        better = np.flatnonzero(ent < prior_entropy)
        if better.size == 0:
            continue
        # first minimum, and only among boundaries that improve on the prior
        b = better[np.argmin(ent[better])]
        best_entropy = ent[b]
        gain = prior_entropy - best_entropy
        if gain <= 0:
            continue
        k = np.count_nonzero(prior > 0)
        k1 = np.count_nonzero(left[b] > 0)
        k2 = np.count_nonzero(right[b] > 0)
        with np.errstate(over="ignore"):  # (3^k is infinite past k = 646, as Weka's Math.pow: no cut, and no warning)
            delta = np.log2(3.0**k - 2) - (k * prior_entropy - k2 * _entropy(right[b]) - k1 * _entropy(left[b]))
        if gain > (np.log2(max(total - 1.0, 1.0)) + delta) / total:
            cuts.append((uniq[first + b] + uniq[first + b + 1]) / 2)
            stack.append((first, first + b + 1))
            stack.append((first + b + 1, stop))
    return np.sort(np.array(cuts, dtype=np.float64))


def nominal_rows(model, X):
    """``X`` as a fitted nominal model (TAN, networks, AODE) reads it for prediction: a
    DataFrame encoded with the declared attributes (:mod:`textnb.io.frames`), checked
    (``n_features_in_``, NaN allowed), numeric columns cut at the fitted ``cut_points_``,
    value indices checked, and a value index the model has not seen (``>= n_values_``)
    made missing (NaN). A new array."""
    X = frame_for_predict(model, X, declared_attributes(model))
    X = model._validate_x(X, reset=False)  # the estimator's validate_data, or a kernel's numpy checks
    if model.cut_points_ is not None:
        X = apply_cut_points(X, model.cut_points_)
    check_nominal_codes(X, type(model).__name__ if hasattr(model, "get_params") else model.kind)  # a kernel: its model's
    X = X.copy()
    X[X >= model.n_values_] = np.nan  # unseen / undeclared value = missing
    return X


def check_same_cut_points(names, mine, theirs, remedy):
    """Refuse to merge two models whose numeric attributes were discretised at other cut
    points (each part chose them on its own rows): the counts of their bins do not add up.

    The one check of :meth:`TabularKernel.merge <textnb.naive_bayes.tabular_kernel.TabularKernel.merge>`
    and :meth:`AODEKernel.merge <textnb.semi_naive.aode_kernel.AODEKernel.merge>`.

    Parameters
    ----------
    names : sequence of str
        The attributes' names.
    mine, theirs : list or None
        The two models' ``cut_points_``: per attribute an array of cut points, or None
        (not discretised); None for a model with no discretised attribute.
    remedy : str
        What to do, in the library's words (the end of the message).

    Raises
    ------
    SettingsDiffer
        With ``what`` :data:`~textnb.core.errors.CUT_POINTS`, naming the first attribute
        whose cut points differ and both lists of them.
    """
    n = len(names)
    mine = list(mine) if mine is not None else [None] * n
    theirs = list(theirs) if theirs is not None else [None] * n
    for name, a, b in zip(names, mine, theirs):
        if (a is None) != (b is None) or (a is not None and not np.array_equal(a, b)):
            def shown(cuts):
                return None if cuts is None else [float(f"{x:.6g}") for x in cuts]

            raise SettingsDiffer(CUT_POINTS, str(name), shown(a), shown(b), remedy=remedy)
