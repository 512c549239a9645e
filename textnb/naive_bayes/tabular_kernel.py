"""The kernel of :class:`~textnb.naive_bayes.tabular.TabularNB`: naive Bayes for tabular data, numpy only.

:class:`TabularKernel` is the model itself -- its parameters and their defaults
(written once, :data:`TabularKernel.defaults`), what a model file may hold
(``_param_schema``, ``_state_schema``), its fitted statistics (the core's
:class:`~textnb.core.stats.CountTable` and :class:`~textnb.core.stats.GaussianMoments`
sums), its scoring and its model-file state -- without scikit-learn, so ``textnb train``
and ``textnb predict`` on a table fit and score with it directly
(:meth:`TabularKernel.save`, :meth:`TabularKernel.from_node`). The estimator
:class:`~textnb.naive_bayes.tabular.TabularNB` is a thin scikit-learn adapter over it
(input validation, tags); both write the same model file, byte for byte. Fitting and
scoring import no scipy (the count tables are summed by :meth:`CountTable.add_cells
<textnb.core.stats.CountTable.add_cells>` and :meth:`GaussianMoments.add_rows
<textnb.core.stats.GaussianMoments.add_rows>`, scipy's floats; the log-sum-exps of KDE and uncertain nominal
attributes are :func:`~textnb.core.logspace.logsumexp_max_apart`, scipy's floats too); scipy.special
is imported only by uncertain numeric attributes (``ndtr``, ``erfcx``).

The model: nominal, numeric and missing attributes in one naive Bayes.

``P(c | x) ∝ P(c) · Π_k P(x_k | c)``, summed in log space, with a missing value left
out of the counts at training time and out of the product at prediction time
(Witten & Frank, *Data Mining* §4.2; ``../shared/design/algorithms.md`` §1).

* Nominal attributes (and discretised numerics) are one-hot blocks of one
  :class:`textnb.core.stats.CountTable`; the estimator of ``P(v | c)`` is chosen with
  ``nominal=``: additive / Laplace, the m-estimate with per-value priors, or the APNBC
  paper's eq. 4 (Webb & Pazzani).
* Numeric attributes are either Gaussian (per-class mean and n−1 variance from
  :class:`textnb.core.stats.GaussianMoments`), a Gaussian kernel density (John & Langley
  1995, "Estimating continuous distributions in Bayesian classifiers", UAI), or
  discretised inside ``fit`` (Fayyad & Irani's MDL, equal frequency, equal width;
  :mod:`textnb.naive_bayes.discretize`).

* Uncertain attributes (Qin, Xia & Li, "A Bayesian classifier for uncertain data";
  ``algorithms.md`` §4; representation and cell syntax in :mod:`textnb.io.uncertain`):
  an ``"uncertain-numeric"`` attribute (interval ``[L, R]`` in two columns) is Gaussian
  with the paper's Theorem 1 estimates, ``μ = E[L + R] / 2`` and
  ``σ² = (Var(L + R) − Var(R − L)) / 4``, i.e. the variance of the interval midpoints
  minus that of the half-widths (``interval_fit="theorem1"``), or with the
  maximum-likelihood Gaussian of interval-censored data, fitted by EM
  (``interval_fit="censored"``, :func:`censored_gaussian_em`; the default, chosen on
  held-out data across the shared numeric sets: ``docs/uncertain.md``, "Choice of the
  default"); an
  ``"uncertain-nominal"`` attribute (a probability vector in k columns) adds its
  probabilities to the value counts (the paper's probabilistic cardinalities
  ``PC(v, c) = Σ_j w_j p_j(v)``). On certain cells (``L = R``, one-hot vectors) all of
  them are exactly the ordinary estimates.

The fitted state is sums (counts, moments, kernel centres), so ``fit``, chunked
``partial_fit``, :meth:`TabularNB.merge` and model files agree exactly. The one
exception is ``interval_fit="censored"`` (the default) with uncertain numeric attributes:
EM needs all the intervals at once, so such a model is fitted with ``fit`` only
(``interval_fit="theorem1"`` keeps uncertain models incremental).
"""


from types import MappingProxyType

import numpy as np

from textnb.core.labels import label_names
from textnb.naive_bayes.kernels import TableKernel, all_or_nothing
from textnb.naive_bayes.cut_points import (
    apply_cut_points,
    check_same_cut_points,
    equal_frequency_cut_points,
    equal_width_cut_points,
    mdl_cut_points,
)
from textnb.naive_bayes.scoring import (check_partial_fit_labels, check_sample_weight, class_positions, fit_classes,
                                        partial_fit_classes)
from textnb.core.csr import CSR, row_pointers
from textnb.core.logspace import logsumexp_max_apart
from textnb.core.estimates import LOG_FLOOR, nominal_log_prob, smoothed_class_prior
from textnb.core.model_schema import (CLASS_VALUES, TABLE_CLASS_PRIOR, check_params, MAX_DIM, MAX_REAL, SMOOTHING, Array,
                                      Attributes, Choice, Classes, Counts, Float, Int, ListOf, MayBeAbsent, Optional,
                                      Reals)
from textnb.core.stats import CountTable, GaussianMoments, merge_aligned
from textnb.core.errors import DataError
from textnb.core.wrapping import checked_merge
from textnb.io.tables import Attribute
from textnb.io.frames import encodable, encode_frame, frame_attributes, is_frame, with_values_of
from textnb.io.uncertain import (
    UNCERTAIN_KINDS,
    UNCERTAIN_NOMINAL,
    UNCERTAIN_NUMERIC,
    check_uncertain_block,
    column_slices,
    log_interval_mass,
)

__all__ = ["EM_MAX_ITER", "EM_TOL", "TabularKernel", "censored_gaussian_em", "merged_attributes",
           "truncated_normal_moments"]


_NOMINAL = ("additive", "laplace", "m-estimate", "eq4")
_NUMERIC = ("gaussian", "kde", "mdl", "equal-frequency", "equal-width")
_DISCRETE = ("mdl", "equal-frequency", "equal-width")
_INTERVAL_FIT = ("theorem1", "censored")
_LOG_2PI = np.log(2 * np.pi)
_LOG_SQRT_2PI = 0.5 * _LOG_2PI
#: Distances (in standard deviations) beyond this have a square that overflows float64.
_MAX_SD = 1e154
_SQRT2 = np.sqrt(2.0)
_SQRT_2_OVER_PI = np.sqrt(2.0 / np.pi)
#: EM of ``interval_fit="censored"``: at most this many EM steps per fit (a SQUAREM
#: cycle is three) ...
EM_MAX_ITER = 1000
#: ... a (class, attribute) Gaussian is done when an EM step moves its mean by at most
#: this many standard deviations and its variance by at most this fraction.
EM_TOL = 1e-9
#: Standardised interval bounds are clipped here (their squares stay finite).
_Z_CLIP = 1e150
_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(16)
_NOT_INCREMENTAL = (
    "interval_fit='censored' fits uncertain numeric attributes by EM over the whole training set, "
    "not from sums: {what}; train with fit, or use interval_fit='theorem1'"
)


def truncated_normal_moments(a, b):
    """Mean and variance of the standard normal truncated to ``[a, b]`` (``a < b``).

    With ``r_a = φ(a)/Z``, ``r_b = φ(b)/Z`` and ``Z = Φ(b) − Φ(a)`` the mean is
    ``m = r_a − r_b`` and the variance ``1 + (a − m) r_a − (b − m) r_b`` (this form, not
    ``E[z²] − m²``). Three regimes keep the digits:

    * narrow intervals (``(b − a)·max(1, |a|, |b|) < 1``), where ``r_a`` and ``r_b``
      grow like ``1/(b − a)`` and their difference would cancel: 16-point
      Gauss–Legendre quadrature of ``φ`` relative to its value at the midpoint (mean and
      variance to full precision; they tend to ``(a + b)/2`` and ``(b − a)²/12``);
    * intervals across 0: :func:`scipy.special.ndtr` (``Z`` is at least about 0.34);
    * intervals in a tail (``a >= 0``; ``b <= 0`` is reflected): through the scaled
      complementary error function :func:`scipy.special.erfcx`, never forming ``φ`` or
      ``Φ`` themselves: ``φ(a)/(1 − Φ(a)) = sqrt(2/π)/erfcx(a/√2)`` and
      ``ρ = (1 − Φ(b))/(1 − Φ(a)) = exp(−(b − a)(b + a)/2)·erfcx(b/√2)/erfcx(a/√2)``, so
      ``r_a = λ(a)/(1 − ρ)`` and ``r_b = λ(b) ρ/(1 − ρ)``. The mean keeps full
      precision however far out; the variance (about ``1/a²`` there) an absolute
      error of about ``1e-16·a²`` (1e-13 at 40 deviations, 1e-10 at 1000), which is
      what the EM's M-step, a sum of such terms in units of ``σ²``, sees.

    The mean is clipped to ``[a, b]`` and the variance to ``[0, (b − a)²/4]``.

    Parameters
    ----------
    a, b : ndarray of shape (n,)
        Standardised bounds, ``a < b`` (infinite values are clipped to ±1e150).

    Returns
    -------
    mean, var : ndarray of shape (n,)
    """
    from scipy.special import erfcx, ndtr  # uncertain numeric attributes only

    a = np.clip(np.asarray(a, dtype=np.float64), -_Z_CLIP, _Z_CLIP)
    b = np.clip(np.asarray(b, dtype=np.float64), -_Z_CLIP, _Z_CLIP)
    h = b - a
    mean = np.empty_like(a)
    var = np.empty_like(a)
    narrow = h * np.maximum(1.0, np.maximum(np.abs(a), np.abs(b))) < 1.0
    if narrow.any():
        c, half = 0.5 * (a[narrow] + b[narrow]), 0.5 * h[narrow]
        t = half[:, None] * _GL_NODES[None, :]  # offsets from the midpoint
        f = _GL_WEIGHTS[None, :] * np.exp(-c[:, None] * t - 0.5 * t * t)  # φ(c + t) / φ(c)
        s0 = f.sum(axis=1)
        mt = (f * t).sum(axis=1) / s0
        mean[narrow] = c + mt
        var[narrow] = (f * (t - mt[:, None]) ** 2).sum(axis=1) / s0
    across = ~narrow & (a < 0) & (b > 0)
    if across.any():
        aw, bw = a[across], b[across]
        z = ndtr(bw) - ndtr(aw)
        ra = np.exp(-0.5 * aw * aw - _LOG_SQRT_2PI) / z
        rb = np.exp(-0.5 * bw * bw - _LOG_SQRT_2PI) / z
        m = ra - rb
        mean[across] = m
        var[across] = 1.0 + (aw - m) * ra - (bw - m) * rb
    tail = ~narrow & ~across
    if tail.any():
        flip = b[tail] <= 0  # lower tail: reflect to the upper one
        aw = np.where(flip, -b[tail], a[tail])
        bw = np.where(flip, -a[tail], b[tail])
        ea, eb = erfcx(aw / _SQRT2), erfcx(bw / _SQRT2)
        rho = np.exp(-0.5 * (bw - aw) * (bw + aw)) * (eb / ea)
        one_m_rho = 1.0 - rho  # rho <= exp(-1/2) for a tail interval that is not narrow
        ra = _SQRT_2_OVER_PI / ea / one_m_rho
        rb = _SQRT_2_OVER_PI / eb * rho / one_m_rho
        m = ra - rb
        v = 1.0 + (aw - m) * ra - (bw - m) * rb
        mean[tail] = np.where(flip, -m, m)
        var[tail] = v
    mean = np.clip(mean, a, b)
    var = np.clip(var, 0.0, 0.25 * h * h)
    return mean, var


def censored_gaussian_em(lo, hi, group, weight, n_groups, mean, var, floor):
    """Per-group Gaussians of interval-censored data by EM (all groups and columns at once).

    Each known cell is an interval ``[L, R]`` that contains the true value (``L = R``: an
    exact observation). Each group's Gaussian in each column maximises
    ``Σ_i w_i log(Φ((R_i − μ)/σ) − Φ((L_i − μ)/σ))`` over its intervals plus
    ``Σ_i w_i log N(x_i; μ, σ²)`` over its points (a weight of k counts as k copies).

    EM (Dempster, Laird & Rubin 1977): the E-step replaces each interval by the first
    two moments ``E_i``, ``V_i`` of the current Gaussian truncated to it
    (:func:`truncated_normal_moments`); the M-step sets ``μ = Σ w_i E_i / W`` and
    ``σ² = Σ w_i (V_i + (E_i − μ)²) / W``, floored at ``floor``. Heavily censored data
    make plain EM crawl (the fraction of missing information is close to 1), so the
    iterations are accelerated with SQUAREM (Varadhan & Roland 2008, scheme S3): two
    EM steps, an extrapolation along them in ``(μ/σ, log σ)``, one more EM step from
    there, kept only if the likelihood is not below that of the two plain steps
    (else the plain steps are kept: the likelihood never decreases). All
    (group, column) pairs are separate problems, iterated together and retired one by
    one once an EM step moves the mean by at most :data:`EM_TOL` deviations and the
    variance by at most that fraction; :data:`EM_MAX_ITER` EM steps at most.

    The maximum-likelihood variance is returned times ``W / (W − 1)``, TabularNB's
    sample-variance convention, so a group of points only gets exactly the ordinary
    n−1 variance. Pairs with no interval of positive weight (points only) are not
    touched at all: on certain data the start values come back bit for bit. A group
    whose weight is 1 or less keeps its start variance (only the mean is fitted). When
    all of a group's intervals and points share a value the likelihood has no
    maximum (it grows as ``σ → 0``): a variance that ends on the floor is returned as
    0, which TabularNB treats as the zero variance of equal points (pooled variance).

    Parameters
    ----------
    lo, hi : ndarray of shape (n_samples, n_columns)
        Bounds; NaN in both is missing.
    group : ndarray of int of shape (n_samples,)
        Group (class) index of each row, ``0 .. n_groups − 1``.
    weight : ndarray of shape (n_samples,)
        Instance weights (>= 0).
    n_groups : int
    mean, var : ndarray of shape (n_groups, n_columns)
        Start values (TabularNB: the interval midpoints' mean and n−1 variance).
    floor : float
        Smallest variance (> 0).

    Returns
    -------
    mean, var : ndarray of shape (n_groups, n_columns)
    n_iter : int
        EM steps run (0 when no group has an interval).
    """
    lo = np.asarray(lo, dtype=np.float64)
    hi = np.asarray(hi, dtype=np.float64)
    n_cols = lo.shape[1]
    weight = np.asarray(weight, dtype=np.float64)
    group = np.asarray(group, dtype=np.intp)
    mean0 = np.array(mean, dtype=np.float64).reshape(n_groups, n_cols)
    var0 = np.array(var, dtype=np.float64).reshape(n_groups, n_cols)
    # one entry per known cell of positive weight; pairs = (group, column), flattened
    r, c = np.nonzero(~np.isnan(lo) & (weight[:, None] > 0))
    pair = group[r] * n_cols + c
    n_pairs = n_groups * n_cols
    w, L, R = weight[r], lo[r, c], hi[r, c]
    wide = R > L
    active = np.bincount(pair[wide], minlength=n_pairs) > 0
    if not active.any():
        return mean0, var0, 0
    W = np.bincount(pair, w, minlength=n_pairs)
    W_safe = np.where(W > 0, W, 1.0)
    fix_var = W <= 1
    mu = mean0.ravel().copy()
    v = np.where(active, np.maximum(var0.ravel(), floor), var0.ravel())  # the E-step needs σ > 0

    def em_step(mu, v, todo, sel):
        p, ww, wd = pair[sel], w[sel], wide[sel]
        E, V = L[sel].copy(), np.zeros(sel.size)
        pw = p[wd]
        sd = np.sqrt(v[pw])
        tm, tv = truncated_normal_moments((L[sel][wd] - mu[pw]) / sd, (R[sel][wd] - mu[pw]) / sd)
        E[wd] = mu[pw] + sd * tm
        V[wd] = sd * sd * tv
        mu_new = np.where(todo, np.bincount(p, ww * E, minlength=n_pairs) / W_safe, mu)
        v_new = np.bincount(p, ww * ((E - mu_new[p]) ** 2 + V), minlength=n_pairs) / W_safe
        v_new = np.where(todo & ~fix_var, np.maximum(v_new, floor), v)
        return mu_new, v_new

    def log_likelihood(mu, v, sel):
        p, wd = pair[sel], wide[sel]
        sd = np.sqrt(v[p])
        a = np.clip((L[sel] - mu[p]) / sd, -_Z_CLIP, _Z_CLIP)
        b = np.clip((R[sel] - mu[p]) / sd, -_Z_CLIP, _Z_CLIP)
        ll = -0.5 * a * a - np.log(sd)  # points: the log density, up to a constant
        ll[wd] = log_interval_mass(a[wd], b[wd])
        return np.bincount(p, w[sel] * ll, minlength=n_pairs)

    todo = active.copy()
    alpha_max = np.ones(n_pairs)
    n_iter = 0
    with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
        while True:
            sel = np.flatnonzero(todo[pair])
            mu1, v1 = em_step(mu, v, todo, sel)
            n_iter += 1
            sd0 = np.sqrt(v)
            step = np.maximum(np.abs(mu1 - mu) / sd0, np.abs(v1 - v) / v)
            done = todo & ~(step > EM_TOL)
            last = n_iter + 3 > EM_MAX_ITER
            take = done | (todo & last)
            mu, v = np.where(take, mu1, mu), np.where(take, v1, v)
            todo &= ~take
            if not todo.any():
                break
            sel = np.flatnonzero(todo[pair])
            mu2, v2 = em_step(mu1, v1, todo, sel)
            # SQUAREM S3 in (μ/σ0, log σ)
            s0, s1, s2 = 0.5 * np.log(v), 0.5 * np.log(v1), 0.5 * np.log(v2)
            r_m, r_s = (mu1 - mu) / sd0, s1 - s0
            q_m, q_s = (mu2 - 2 * mu1 + mu) / sd0, s2 - 2 * s1 + s0
            rr, qq = r_m * r_m + r_s * r_s, q_m * q_m + q_s * q_s
            alpha = np.where(qq > 0, -np.sqrt(rr / np.where(qq > 0, qq, 1.0)), -1.0)
            alpha = np.clip(np.nan_to_num(alpha, nan=-1.0), -alpha_max, -1.0)
            mu_x = mu + sd0 * (-2 * alpha * r_m + alpha * alpha * q_m)
            v_x = np.exp(2 * np.minimum(s0 - 2 * alpha * r_s + alpha * alpha * q_s, 700.0))
            v_x = np.where(fix_var, v, np.maximum(v_x, floor))
            mu3, v3 = em_step(mu_x, v_x, todo, sel)
            n_iter += 2
            l2, l3 = log_likelihood(mu2, v2, sel), log_likelihood(mu3, v3, sel)
            good = (np.isfinite(l3) & np.isfinite(mu3) & np.isfinite(v3)
                    & (l3 >= l2 - 1e-12 * (1.0 + np.abs(l2))))
            alpha_max = np.where(good, np.where(alpha <= -alpha_max, 4 * alpha_max, alpha_max),
                                 np.maximum(1.0, alpha_max / 4))
            mu = np.where(todo, np.where(good, mu3, mu2), mu)
            v = np.where(todo, np.where(good, v3, v2), v)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(W > 1, v * W / np.where(W > 1, W - 1.0, 1.0), v)
    out = np.where(active & ~fix_var & (v <= 2.0 * floor), 0.0, out)  # collapsed
    out = np.where(active & ~fix_var, out, var0.ravel())
    return mu.reshape(n_groups, n_cols), out.reshape(n_groups, n_cols), n_iter


#: Spread below this fraction of ``mean**2`` is the rounding residue of the one-pass
#: moment sums (relative error about 1e-16 per term): values that are all equal.
_SPREAD_RTOL = 1e-13


def _weighted_variance(count, m2):
    """Per-cell variance from the weighted count ``W`` and centred sum of squares ``M2``.

    Sample weights are frequency weights (a weight of k counts as k rows, the
    equivalence scikit-learn's checks test): the sample variance ``M2 / (W - 1)``,
    TabularNB's convention with unit weights (Weka 3.6's ``NormalEstimator`` takes the
    population deviation of values rounded to a precision instead: docs/weka_parity.md). Below ``W = 2`` the weights
    cannot be counts of rows (AdaBoost's sum to 1 over all rows) and ``W - 1`` would
    collapse the variance or turn it negative: there it is the weighted population
    variance ``M2 / W`` of scikit-learn's ``GaussianNB``, which does not depend on the
    scale of the weights. With unit weights that case is a single value, whose variance
    is 0 either way.
    """
    count = np.asarray(count, dtype=np.float64)
    den = np.where(count >= 2, count - 1.0, count)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, m2 / np.where(den > 0, den, 1.0), 0.0)


def _no_spread(var, mean):
    """True where a variance is 0 up to the rounding of the moment sums."""
    return var <= _SPREAD_RTOL * np.asarray(mean) ** 2


def merged_attributes(mine, theirs, kind):
    """The attributes of the merge of a ``kind`` model of attributes ``theirs`` into one of
    ``mine`` (the one alignment of :meth:`TabularKernel.merge` and
    :meth:`~textnb.text.mixed_kernel.MixedKernel.merge`).

    Each nominal attribute's values are matched by name: this model's first, then those only
    the other saw (a CSV part lists its values in the order it met them, and may meet values
    the other part did not: training on the whole file has them all).

    Parameters
    ----------
    mine, theirs : sequence of Attribute
        The attributes of the two models.
    kind : str
        The models' kind, for the messages (``"TabularNB"``, ``"MixedNB"``).

    Returns
    -------
    attributes : list or tuple of Attribute
        The merged attributes (a tuple when ``mine`` is one).
    values : list
        Per attribute, for a nominal one ``(my positions, their positions)``: where each
        model's values are in the merged attribute's values; None for the others.

    Raises
    ------
    ValueError
        When the names, a kind or another attribute differ, naming them.
    """
    if [a.name for a in mine] != [a.name for a in theirs]:
        raise ValueError(f"cannot merge {kind} models with different attributes "
                         f"({[a.name for a in mine]} and {[a.name for a in theirs]})")
    attributes, values = [], []
    for a, b in zip(mine, theirs):
        if a.kind != b.kind:
            raise ValueError(f"cannot merge {kind} models: attribute {a.name!r} is {a.kind} in one and "
                             f"{b.kind} in the other")
        if a.kind in ("nominal", UNCERTAIN_NOMINAL):
            mine_values = set(a.values)
            merged = list(a.values) + [v for v in b.values if v not in mine_values]
            where = {v: i for i, v in enumerate(merged)}
            values.append(([where[v] for v in a.values], [where[v] for v in b.values]))
            attributes.append(Attribute(a.name, a.kind, merged))
            continue
        if a != b:
            raise ValueError(f"cannot merge {kind} models: attribute {a.name!r} differs ({a} and {b})")
        values.append(None)
        attributes.append(a)
    return (tuple(attributes) if isinstance(mine, tuple) else attributes), values


def _canonical_order(rows, columns, n_columns):
    """The permutation that puts cells in canonical order, row then column (cells at the same
    place keep their order, as ``np.lexsort((columns, rows))`` orders them), or None when they
    are in it already (a check of one pass: NLTK's feature dicts built alike come so)."""
    rows, columns = np.asarray(rows, dtype=np.int64), np.asarray(columns, dtype=np.int64)
    if rows.size and (int(rows.max()) + 1) * max(int(n_columns), 1) >= 2**62:
        return np.lexsort((columns, rows))  # (a key that would not fit in int64)
    key = rows * n_columns + columns
    if bool(np.all(key[1:] >= key[:-1])):
        return None
    return np.argsort(key, kind="stable")


def _cells_dot(rows, columns, values, shape, weights):
    """``M @ weights.T``, ``M`` the CSR matrix of ``shape`` with the cells ``(rows, columns,
    values)``, taken in canonical order (row, then column) and multiplied by scipy.sparse's own
    kernels (:class:`textnb.core.csr.CSR`): the floats of the scipy product, without scipy."""
    order = _canonical_order(rows, columns, shape[1])
    if order is not None:
        rows, columns, values = rows[order], columns[order], values[order]
    indptr = row_pointers(np.bincount(rows, minlength=shape[0]))
    return CSR((values, columns, indptr), shape) @ weights.T


class TabularKernel(TableKernel):
    """The model of :class:`~textnb.naive_bayes.tabular.TabularNB` without scikit-learn.

    Takes the same keyword parameters (``TabularKernel.defaults``, whose values are the
    estimator's defaults) and has the same fitted attributes, ``fit``, ``partial_fit``,
    ``merge``, ``predict*``, ``describe`` and model-file state; its input checks are
    numpy's (2-D float tables, NaN missing). :meth:`save` writes the file the estimator
    writes; :meth:`from_node` reads one (``kind`` ``"TabularNB"``). The documentation of
    the parameters and the model is the estimator's.

    Examples
    --------
    >>> from textnb.io.tables import Attribute
    >>> from textnb.naive_bayes.tabular_kernel import TabularKernel
    >>> atts = (Attribute("outlook", "nominal", ["sunny", "rainy"]), Attribute("temp", "numeric"))
    >>> model = TabularKernel(attributes=atts).fit([[0, 30.0], [1, 12.0], [0, 25.0], [1, 15.0]],
    ...                                            ["yes", "no", "yes", "no"])
    >>> model.predict([[0, float("nan")]])
    array(['yes'], dtype='<U3')
    """

    #: the model kind model files name (the estimator's class name)
    kind = "TabularNB"
    #: every parameter and its default, written once (the estimator's ``__init__`` takes these)
    defaults = MappingProxyType({"attributes": None, "nominal": "additive", "alpha": 1.0, "m": 2.0,
                                 "numeric": "gaussian", "bins": 10, "var_smoothing": 1e-9, "class_prior": None,
                                 "interval_fit": "censored", "class_values": None})

    _param_schema = {
        "attributes": Optional(Attributes(length=None)), "nominal": Choice(*_NOMINAL), "alpha": SMOOTHING,
        "m": SMOOTHING, "numeric": Choice(*_NUMERIC), "bins": Int(1, 10**6),
        "var_smoothing": Float(0.0, 1.0), "class_prior": TABLE_CLASS_PRIOR, "interval_fit": Choice(*_INTERVAL_FIT),
        "class_values": CLASS_VALUES,
    }
    _state_schema = {
        "classes_": Classes(),
        "n_features_in_": Int(0, MAX_DIM),  # X columns (an uncertain attribute spans several)
        "attributes_": Attributes(length="n_attributes"),
        "discretized_": Array("b", ("n_attributes",)),
        "cut_points_": ListOf(Reals((None,), increasing=True), length="n_attributes"),
        "n_values_": Array("iu", ("n_attributes",), lo=0, hi=MAX_DIM, sum_dim="width"),
        "class_count_": Counts(("n_classes",)),
        "feature_count_": Counts(("n_classes", "width")),
        "moment_count_": Counts(("n_classes", "n_gauss")),
        "theta_": Reals(("n_classes", "n_gauss")),
        "moment_m2_": Array("f", ("n_classes", "n_gauss"), lo=0.0, hi=MAX_REAL),
        "halfwidth_count_": MayBeAbsent(Counts(("n_classes", "n_interval"))),
        "halfwidth_mean_": MayBeAbsent(Reals(("n_classes", "n_interval"))),
        "halfwidth_m2_": MayBeAbsent(Array("f", ("n_classes", "n_interval"), lo=0.0, hi=MAX_REAL)),
        "censored_theta_": MayBeAbsent(Reals(("n_classes+1", "n_censored"))),
        "censored_var_": MayBeAbsent(Array("f", ("n_classes+1", "n_censored"), lo=0.0, hi=MAX_REAL)),
        "kde_values_": ListOf(Reals(("n_kde[]",)), length="n_kde"),
        "kde_class_": ListOf(Array("iu", ("n_kde[]",), index="n_classes"), length="n_kde"),
        "kde_weight_": ListOf(Counts(("n_kde[]",)), length="n_kde"),
        "feature_names_in_": MayBeAbsent(Array("U", (None,))),
    }

    def _resolve_attributes(self, n_features, frame=None, *, first_batch=False):
        """The fitted attributes: ``frame``'s (a DataFrame's), ``attributes``' (checked) or
        numeric ``x0, x1, ...``. A declared nominal attribute without values is refused but
        in ``partial_fit``'s first batch (``first_batch``: MixedNB's tabular part of a
        DataFrame column with no known value yet, which its later batches widen)."""
        if self.attributes is None and frame is not None:
            return [Attribute(a.name, a.kind, list(a.values)) for a in frame]
        if self.attributes is None:
            names = getattr(self, "feature_names_in_", None)
            names = [str(n) for n in names] if names is not None else [f"x{j}" for j in range(n_features)]
            return [Attribute(n, "numeric", []) for n in names]
        atts = list(self.attributes)
        out = []
        for a in atts:
            if not isinstance(a, Attribute):
                raise ValueError(f"attributes must hold textnb.io.tables.Attribute objects; got {a!r}")
            if a.kind not in ("nominal", "numeric") + UNCERTAIN_KINDS:
                raise ValueError(
                    f"attribute {a.name!r} has kind {a.kind!r}; expected one of "
                    f"{('nominal', 'numeric') + UNCERTAIN_KINDS}"
                )
            if a.kind in ("nominal", UNCERTAIN_NOMINAL) and not a.values and not (first_batch and a.kind == "nominal"):
                raise ValueError(f"{a.kind} attribute {a.name!r} declares no values")
            if a.kind == UNCERTAIN_NUMERIC and self.numeric != "gaussian":
                raise ValueError(
                    f"uncertain numeric attribute {a.name!r} needs numeric='gaussian'; got {self.numeric!r}"
                )
            out.append(Attribute(a.name, a.kind, list(a.values)))
        width = column_slices(out)[-1].stop if out else 0
        if width != n_features:
            if width == len(out):
                raise ValueError(f"attributes describes {len(atts)} columns but X has {n_features}")
            raise ValueError(
                f"attributes describe {width} columns ({len(atts)} attributes, uncertain ones spanning "
                f"several columns) but X has {n_features}"
            )
        return out

    # -- fitting ----------------------------------------------------------------------
    @all_or_nothing
    def fit(self, X, y, sample_weight=None):
        """Fit from ``X`` (tabular convention, NaN = missing) and class labels ``y``."""
        check_params(self)
        X, frame = self._frame_in(X, first=True)
        X, y = self._validate_xy(X, y, reset=True)
        self.classes_, y_index = fit_classes(y, getattr(self, "class_values", None))  # (GaussianNB's: none)
        w = self._check_weight(sample_weight, X.shape[0])
        self._init_state(X, y_index, w, frame)
        self._count(X, y_index, w)
        if self._censored():
            self._fit_censored(X, y_index, w)
        self._update()
        return self

    @all_or_nothing
    def fit_counts(self, classes, class_count, feature_count):
        """Fit from precomputed sums, as the count models' ``fit_counts``, for ``attributes``
        that are all nominal: the model :meth:`fit` gives on data with these sums.

        Parameters
        ----------
        classes : array-like of shape (n_classes,)
            The classes, in the order of the counts' rows (they become ``classes_``).
        class_count : array-like of shape (n_classes,)
            The weighted objects of each class.
        feature_count : array-like of shape (n_classes, sum of the attributes' numbers of values)
            The weighted count of each value of each attribute in each class, one block per
            attribute in the order of ``attributes`` (a missing value counts nowhere):
            ``feature_count_`` as :meth:`fit` sums it. A caller that counts sparsely (NLTK's
            feature dicts: :mod:`textnb.naive_bayes.nltk_compat`) never builds the table of
            n_samples x n_attributes cells.

        Returns
        -------
        self
        """
        check_params(self)
        atts = list(self.attributes or ())
        if not atts or any(getattr(a, "kind", None) != "nominal" for a in atts):
            raise ValueError("fit_counts needs attributes that are all nominal (value counts); "
                             "fit a model with numeric or uncertain attributes from its table")
        vars(self).pop("feature_names_in_", None)
        self.n_features_in_ = len(atts)
        self.classes_ = np.asarray(classes)
        self._init_state(np.empty((0, len(atts))), np.empty(0, dtype=np.intp), np.empty(0))
        class_count = np.array(class_count, dtype=np.float64)
        feature_count = np.array(feature_count, dtype=np.float64)
        if class_count.shape != self.class_count_.shape or feature_count.shape != self.feature_count_.shape:
            raise ValueError(f"class_count and feature_count have shapes {class_count.shape} and "
                             f"{feature_count.shape}; {len(self.classes_)} classes and the attributes' values "
                             f"make {self.class_count_.shape} and {self.feature_count_.shape}")
        self.class_count_, self.feature_count_ = class_count, feature_count
        self._update()
        return self

    @all_or_nothing
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add a batch. ``classes`` is required on the first call.

        A DataFrame's later batch adds its new nominal values to the attributes the first
        batch gave (:mod:`textnb.io.frames`), also to a string column the first batch had no
        known value of (until one comes, the model cannot be saved).
        With a discretising ``numeric`` the cut points are fixed on the first call.
        ``interval_fit="censored"`` with uncertain numeric attributes raises
        ``ValueError`` (its EM fit is not a sum of per-batch statistics; use ``fit``).
        """
        all_classes, first = partial_fit_classes(self, classes)
        check_params(self)
        if self.interval_fit == "censored" and self._declares_intervals():
            raise ValueError(_NOT_INCREMENTAL.format(what="partial_fit cannot add a batch"))
        X, frame = self._frame_in(X, first=first, batch=True)
        X, y = self._validate_xy(X, y, reset=first)
        self.classes_ = all_classes
        check_partial_fit_labels(y, self.classes_)
        y_index = class_positions(self.classes_, y)
        w = self._check_weight(sample_weight, X.shape[0])
        if first:
            self._init_state(X, y_index, w, frame, first_batch=True)
        self._count(X, y_index, w)
        self._update()
        return self

    @staticmethod
    def _check_weight(sample_weight, n):
        w = check_sample_weight(sample_weight, n)
        return np.ones(n) if w is None else w

    def _frame_in(self, X, *, first, batch=False):
        """A pandas DataFrame as value indices and numbers (:mod:`textnb.io.frames`), and
        the attributes it declares when fitting without ``attributes`` (else None).

        ``first``: ``fit`` or a first ``partial_fit``; ``batch``: a ``partial_fit`` (a later
        batch not ``first``: else prediction, where an unseen value is missing). In training
        a value declared ``attributes`` lack is refused; a later batch of a model whose
        attributes a DataFrame gave widens them with its new values (:meth:`_widen`), also
        those of a nominal column the first batch had no known value of (a nominal
        attribute without values yet, :func:`~textnb.io.frames.frame_attributes`)."""
        if not is_frame(X):
            return X, None
        if not first:
            if batch and self.attributes is None:
                self._widen(with_values_of(X, self.attributes_))
            unknown = "error" if batch else "missing"
            return (encode_frame(X, self.attributes_, unknown=unknown) if encodable(self.attributes_) else X), None
        if self.attributes is not None:
            attrs = list(self.attributes)
            return (encode_frame(X, attrs, unknown="error") if encodable(attrs) else X), None
        frame = frame_attributes(X, first_batch=batch)
        return encode_frame(X, frame), frame

    def _widen(self, attributes):
        """Take ``attributes``: ``attributes_`` with values added to nominal ones (a later
        batch's). Their blocks of ``feature_count_`` grow by zero columns (the count
        table's :meth:`~textnb.core.stats.CountTable.aligned`); the rest stays."""
        if attributes is self.attributes_:
            return
        old = np.asarray(self.n_values_, dtype=np.int64)
        self.attributes_ = list(attributes)
        new = self._expected_n_values()
        starts = np.concatenate([[0], np.cumsum(new)[:-1]]).astype(np.int64)
        columns = np.concatenate([starts[j] + np.arange(k) for j, k in enumerate(old)] + [np.empty(0, np.int64)])
        table = CountTable.from_arrays(self.class_count_, self.feature_count_).aligned(
            self.classes_, self.classes_, columns=columns, n_features=int(new.sum()))
        self.feature_count_ = table.feature_count
        self.n_values_ = new

    def _init_state(self, X, y_index, w, frame=None, *, first_batch=False):
        """Column roles, cut points (discretising modes) and empty statistics
        (``first_batch``: of a ``partial_fit``, :meth:`_resolve_attributes`)."""
        n_classes = len(self.classes_)
        self.attributes_ = self._resolve_attributes(X.shape[1], frame, first_batch=first_batch)
        numeric = np.array([a.kind == "numeric" for a in self.attributes_], dtype=bool)
        self.cut_points_ = [None] * len(self.attributes_)
        self._check_uncertain(X)
        if self.numeric in _DISCRETE:
            for j in np.flatnonzero(numeric):
                col = X[:, self._slices()[j].start]
                if self.numeric == "mdl":
                    cuts = mdl_cut_points(col, y_index, n_classes, w)
                elif self.numeric == "equal-frequency":
                    cuts = equal_frequency_cut_points(col, self.bins, w)
                else:
                    cuts = equal_width_cut_points(col, self.bins, w)
                self.cut_points_[j] = cuts
        self.n_values_ = self._expected_n_values()
        width = int(self.n_values_.sum())
        table = CountTable(n_classes, width)
        self.class_count_, self.feature_count_ = table.class_count, table.feature_count
        n_gauss = len(self._gaussian_columns())
        mom = GaussianMoments(n_classes, n_gauss)
        self.moment_count_, self.theta_, self.moment_m2_ = mom.count, mom.mean, mom.m2
        half = GaussianMoments(n_classes, len(self._interval_columns()))
        self.halfwidth_count_, self.halfwidth_mean_, self.halfwidth_m2_ = half.count, half.mean, half.m2
        n_censored = len(self._interval_columns()) if self.interval_fit == "censored" else 0
        self.censored_theta_ = np.zeros((n_classes + 1, n_censored))
        self.censored_var_ = np.zeros((n_classes + 1, n_censored))
        n_kde = len(self._kde_columns())
        self.kde_values_ = [np.empty(0) for _ in range(n_kde)]
        self.kde_class_ = [np.empty(0, dtype=np.int64) for _ in range(n_kde)]
        self.kde_weight_ = [np.empty(0) for _ in range(n_kde)]

    def _discretised_columns(self):
        """Per attribute: whether it is cut into bins (numeric, in a discretising mode)."""
        return [a.kind == "numeric" and self.numeric in _DISCRETE for a in self.attributes_]

    def _expected_n_values(self):
        """One-hot width of each attribute: its values, its bins, or 0 (Gaussian / KDE)."""
        return np.array(
            [
                len(a.values) if a.kind in ("nominal", UNCERTAIN_NOMINAL)
                else (len(self.cut_points_[j]) + 1 if self.cut_points_[j] is not None else 0)
                for j, a in enumerate(self.attributes_)
            ],
            dtype=np.int64,
        )

    def _check_layout(self):
        """A loaded state's arrays have the sizes its attributes imply (as fit makes them)."""
        if [c is not None for c in self.cut_points_] != self._discretised_columns():
            raise ValueError("cut points do not match the numeric attributes")
        if not np.array_equal(self.n_values_, self._expected_n_values()):
            raise ValueError("n_values_ does not match the attributes and cut points")
        if sum(s.stop - s.start for s in self._slices()) != self.n_features_in_:
            raise ValueError("n_features_in_ does not match the attributes")
        n_interval = len(self._interval_columns())
        sizes = {"theta_": len(self._gaussian_columns()), "halfwidth_mean_": n_interval,
                 "censored_theta_": n_interval if self.interval_fit == "censored" else 0}
        for name, n in sizes.items():
            if getattr(self, name).shape[1] != n:
                raise ValueError(f"{name} has {getattr(self, name).shape[1]} columns; the attributes imply {n}")
        if len(self.kde_values_) != len(self._kde_columns()):
            raise ValueError("kde_values_ does not match the numeric attributes")

    def _layout(self):
        """What the fitted attributes fix about ``X``'s columns, computed once per
        ``attributes_`` (and ``numeric``): prediction asks for it on every call, and a
        table of thousands of attributes (NLTK's feature dicts) would otherwise walk them
        in Python each time. A dict: ``slices`` (each attribute's ``X`` columns),
        ``starts`` (their first columns), ``uncertain`` (whether any attribute is),
        ``uncertain_nominal`` (a mask), ``gaussian`` and ``interval`` (see
        :meth:`_gaussian_columns`, :meth:`_interval_columns`), ``kde``."""
        attributes, numeric = self.attributes_, self.numeric
        cached = self.__dict__.get("_layout_cache")
        if cached is not None and cached[0] is attributes and cached[1] == numeric:
            return cached[2]
        kinds = [a.kind for a in attributes]
        slices = column_slices(attributes)
        gaussian = np.flatnonzero([(k == "numeric" and numeric == "gaussian") or k == UNCERTAIN_NUMERIC
                                   for k in kinds])
        layout = {
            "slices": slices,
            "starts": np.array([sl.start for sl in slices], dtype=np.intp),
            "uncertain": any(k in UNCERTAIN_KINDS for k in kinds),
            "uncertain_nominal": np.array([k == UNCERTAIN_NOMINAL for k in kinds], dtype=bool),
            "gaussian": gaussian,
            "interval": np.flatnonzero([kinds[j] == UNCERTAIN_NUMERIC for j in gaussian]),
            "kde": (np.flatnonzero([k == "numeric" for k in kinds]) if numeric == "kde"
                    else np.empty(0, dtype=np.intp)),
        }
        self.__dict__["_layout_cache"] = (attributes, numeric, layout)
        return layout

    def _cut_mask(self):
        """Which attributes have cut points (discretised numeric ones), once per ``cut_points_``."""
        cuts = self.cut_points_
        cached = self.__dict__.get("_cut_mask_cache")
        if cached is None or cached[0] is not cuts:
            cached = (cuts, np.array([c is not None for c in cuts], dtype=bool))
            self.__dict__["_cut_mask_cache"] = cached
        return cached[1]

    def _slices(self):
        """The ``X`` columns of each attribute (uncertain ones span several)."""
        return self._layout()["slices"]

    def _check_uncertain(self, X):
        if not self._layout()["uncertain"]:
            return
        for a, sl in zip(self.attributes_, self._slices()):
            if a.kind in UNCERTAIN_KINDS:
                check_uncertain_block(X[:, sl], a)

    def _counted_columns(self):
        """Attributes counted in one-hot blocks (nominal, discretised, uncertain nominal)."""
        return np.flatnonzero(self.n_values_ > 0)

    def _gaussian_columns(self):
        """Gaussian attributes: numeric ones (``numeric="gaussian"``) and uncertain numeric ones."""
        return self._layout()["gaussian"]

    def _interval_columns(self):
        """Positions among :meth:`_gaussian_columns` of the uncertain numeric attributes."""
        return self._layout()["interval"]

    def _declares_intervals(self):
        """Whether the model has (or, before the first fit, its ``attributes`` declare)
        uncertain numeric attributes."""
        atts = self.attributes_ if hasattr(self, "attributes_") else (self.attributes or ())
        return any(getattr(a, "kind", None) == UNCERTAIN_NUMERIC for a in atts)

    def _censored(self):
        """Whether uncertain numeric attributes are fitted by the censored EM."""
        return self.interval_fit == "censored" and self._interval_columns().size > 0

    def _kde_columns(self):
        return self._layout()["kde"]

    def _column(self, X, j):
        """The single ``X`` column of certain attribute ``j``."""
        return X[:, self._slices()[j].start]

    def _gaussian_values(self, X):
        """Bounds of the Gaussian attributes: ``(L, R)``, each (n_samples, n_gaussian).

        A certain numeric attribute has ``L = R`` (the same array).
        """
        starts = self._layout()["starts"]
        lo = X[:, starts[self._gaussian_columns()]]
        hi = lo.copy()
        for g in self._interval_columns():
            hi[:, g] = X[:, starts[self._gaussian_columns()[g]] + 1]
        return lo, hi

    def _one_hot_dot(self, X, weights):
        """``M @ weights.T`` without importing scipy.sparse (prediction), ``M`` the CSR matrix
        of ``_one_hot_cells(X, uncertain=False)``: the cells in its canonical order (row, then
        column), multiplied by scipy.sparse's own kernels (:class:`textnb.core.csr.CSR`), so the
        floats are those of the scipy product the estimator computes."""
        r, c, v, shape = self._one_hot_cells(X, uncertain=False)
        return _cells_dot(r, c, v, shape, np.asarray(weights))

    def _joint_log_likelihood_of_cells(self, rows, columns, n_rows):
        """:meth:`_joint_log_likelihood` of ``n_rows`` rows given by their known cells of
        nominal attributes, every other cell missing, at the cost of the cells (NLTK's feature
        dicts name a few of thousands of attributes: :mod:`textnb.naive_bayes.nltk_compat`).

        ``rows`` are the cells' rows, ``columns`` their columns of ``feature_log_prob_`` (the
        attribute's block offset plus the value code). The floats are those of the dense
        table's: the class prior plus the same product, the cells in row, then column order.
        Only the columns the cells name are read: fewer cells than columns each read their
        own, more read the columns named once each."""
        flp = self.feature_log_prob_
        rows, columns = np.asarray(rows, dtype=np.intp), np.asarray(columns, dtype=np.intp)
        order = _canonical_order(rows, columns, flp.shape[1])
        if order is not None:
            rows, columns = rows[order], columns[order]
        if columns.size <= flp.shape[1]:
            local, weights = np.arange(columns.size), flp[:, columns]
        else:
            named = np.zeros(flp.shape[1], dtype=bool)
            named[columns] = True
            local, weights = (np.cumsum(named) - 1)[columns], flp[:, named]
        jll = np.tile(self.class_log_prior_, (n_rows, 1))
        jll += _cells_dot(rows, local, np.ones(columns.size), (n_rows, weights.shape[1]), weights)
        return jll

    def _one_hot_cells(self, X, uncertain=True):
        """``(rows, columns, values, shape)`` of the (n_samples, sum(n_values_)) indicator of
        the counted columns' values, attribute by attribute, each one's cells in row order
        (the order scipy's sums take).

        Uncertain nominal attributes add their probability vectors (``uncertain=True``,
        training: probabilistic cardinalities); with ``uncertain=False`` (prediction) only
        their one-hot (certain) rows, the others being left to the expected likelihood.
        The certain attributes are read in one step, whatever their number (NLTK's
        feature dicts make thousands of them).
        """
        offsets = np.concatenate([[0], np.cumsum(self.n_values_)]).astype(np.intp)
        layout = self._layout()
        sl = layout["slices"]
        counted = self._counted_columns()
        is_uncertain = layout["uncertain_nominal"][counted]
        certain = counted[~is_uncertain]
        rows, cols, vals, blocks = [], [], [], []
        if certain.size:
            sub = X[:, layout["starts"][certain]]
            if self._cut_mask()[certain].any():
                sub = apply_cut_points(sub, [self.cut_points_[j] for j in certain])
            at, r = np.nonzero(~np.isnan(sub).T)  # attribute by attribute, rows ascending
            codes = sub[r, at]
            k = self.n_values_[certain][at]
            bad = (codes != np.floor(codes)) | (codes < 0) | (codes >= k)
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                j = int(certain[at[i]])
                raise ValueError(
                    f"column {j} ({self.attributes_[j].name!r}) is nominal with {k[i]} values; "
                    f"cell {float(codes[i])!r} is not a value index 0..{k[i] - 1}"
                )
            rows.append(r)
            cols.append(offsets[certain][at] + codes.astype(np.intp))
            vals.append(np.ones(codes.size))
            blocks.append(certain[at])
        for j in counted[is_uncertain]:
            P = X[:, sl[j]]
            known = ~np.isnan(P[:, 0])
            if not uncertain:
                known &= P.max(axis=1, initial=0.0, where=~np.isnan(P)) == 1.0
            r, c = np.nonzero(np.where(known[:, None], P, 0.0))
            rows.append(r)
            cols.append(offsets[j] + c)
            vals.append(P[r, c])
            blocks.append(np.full(r.size, j))
        shape = (X.shape[0], int(offsets[-1]))
        if not rows:
            return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp), np.zeros(0), shape
        rows, cols, vals = np.concatenate(rows), np.concatenate(cols).astype(np.intp), np.concatenate(vals)
        if len(blocks) > 1:  # back in attribute order
            order = np.argsort(np.concatenate(blocks), kind="stable")
            rows, cols, vals = rows[order], cols[order], vals[order]
        return rows, cols, vals, shape

    def _count(self, X, y_index, w):
        # numbers near the float limit overflow the moments; _check_magnitudes names the column
        with np.errstate(over="ignore", invalid="ignore"):
            self._count_batch(X, y_index, w)
        self._check_magnitudes()

    def _check_magnitudes(self):
        """Refuse, naming the attribute, a numeric attribute whose statistics a model file
        cannot hold: a cut point, mean, sum of squared deviations or stored value that is
        not finite or exceeds :data:`~textnb.core.model_schema.MAX_REAL` in magnitude
        (values of about 1e75 and above for a Gaussian, 1e150 for the others)."""
        def too_large(a):
            a = np.asarray(a, dtype=np.float64)
            return a.size > 0 and not bool(np.all(np.abs(a) <= MAX_REAL))  # NaN and inf fail too

        bad = [j for j, cuts in enumerate(self.cut_points_) if cuts is not None and too_large(cuts)]
        for k, j in enumerate(self._gaussian_columns()):
            stats = [self.theta_[:, k], self.moment_m2_[:, k]]
            g = np.flatnonzero(self._interval_columns() == k)
            if g.size:
                stats += [self.halfwidth_mean_[:, g[0]], self.halfwidth_m2_[:, g[0]]]
            if any(too_large(a) for a in stats):
                bad.append(j)
        bad += [j for k, j in enumerate(self._kde_columns()) if too_large(self.kde_values_[k])]
        if bad:
            name = self.attributes_[min(bad)].name
            raise DataError(  # (of the training data as a whole: train and evaluate name its file)
                f"numeric attribute {name!r} holds numbers too large to model (a mean, variance or "
                f"cut point beyond {MAX_REAL:g} in magnitude); rescale it or leave it out")

    def _count_batch(self, X, y_index, w):
        n_classes = len(self.classes_)
        self._check_uncertain(X)
        table = CountTable.from_arrays(self.class_count_, self.feature_count_)
        r, c, v, _ = self._one_hot_cells(X)  # (each column's cells in row order: scipy's sums)
        table.add_cells(r, c, v, y_index, w)
        self.class_count_, self.feature_count_ = table.class_count, table.feature_count
        gauss = self._gaussian_columns()
        if gauss.size:
            lo, hi = self._gaussian_values(X)
            mid = lo.copy()
            iv = self._interval_columns()
            if iv.size:
                mid[:, iv] = lo[:, iv] + 0.5 * (hi[:, iv] - lo[:, iv])
                half = GaussianMoments.from_arrays(self.halfwidth_count_, self.halfwidth_mean_, self.halfwidth_m2_)
                half.add_rows(0.5 * (hi[:, iv] - lo[:, iv]), y_index, n_classes, w)
                self.halfwidth_count_, self.halfwidth_mean_, self.halfwidth_m2_ = half.count, half.mean, half.m2
            mom = GaussianMoments.from_arrays(self.moment_count_, self.theta_, self.moment_m2_)
            mom.add_rows(mid, y_index, n_classes, w)
            self.moment_count_, self.theta_, self.moment_m2_ = mom.count, mom.mean, mom.m2
        for k, j in enumerate(self._kde_columns()):
            col = self._column(X, j)
            keep = ~np.isnan(col) & (w > 0)
            self.kde_values_[k] = np.concatenate([self.kde_values_[k], col[keep]])
            self.kde_class_[k] = np.concatenate([self.kde_class_[k], y_index[keep]]).astype(np.int64)
            self.kde_weight_[k] = np.concatenate([self.kde_weight_[k], w[keep]])

    def _fit_censored(self, X, y_index, w):
        """``interval_fit="censored"``: EM per class and pooled, from the midpoint moments."""
        iv = self._interval_columns()
        lo, hi = self._gaussian_values(X)
        lo, hi = lo[:, iv], hi[:, iv]
        n, mean, m2 = self._pooled_moments()
        floor = self._variance_floor(n, m2)
        var0 = GaussianMoments.from_arrays(self.moment_count_, self.theta_, self.moment_m2_).variance(ddof=1)
        pooled_var0 = np.where(n > 1, m2 / np.where(n > 1, n - 1, 1), 0.0)
        n_classes = len(self.classes_)
        mu_c, var_c, _ = censored_gaussian_em(
            lo, hi, y_index, w, n_classes, self.theta_[:, iv], var0[:, iv], floor
        )
        mu_p, var_p, _ = censored_gaussian_em(
            lo, hi, np.zeros_like(y_index), w, 1, mean[None, iv], pooled_var0[None, iv], floor
        )
        self.censored_theta_ = np.vstack([mu_c, mu_p])
        self.censored_var_ = np.vstack([var_c, var_p])

    # -- derived parameters ------------------------------------------------------------
    def _update(self):
        self._update_feature_log_prob()
        self._update_class_log_prior()
        self._update_gaussian()
        self._update_kde()

    def _smoothing(self):
        if self.nominal == "laplace":
            return "additive", 1.0
        if self.nominal == "additive":
            return "additive", float(self.alpha)
        return "m", 2.0 if self.nominal == "eq4" else float(self.m)

    def _update_feature_log_prob(self):
        kind, a = self._smoothing()
        fc = self.feature_count_
        out = np.empty_like(fc)
        offsets = np.concatenate([[0], np.cumsum(self.n_values_)])
        for j in self._counted_columns():
            sl = slice(offsets[j], offsets[j + 1])
            out[:, sl] = nominal_log_prob(fc[:, sl], kind, a)
        self.feature_log_prob_ = out

    def _update_class_log_prior(self):
        self.class_log_prior_ = self._class_log_prior(self.class_count_)

    def _class_log_prior(self, class_count):
        """``log P(c)`` from weighted class counts, with this model's smoothing (or
        ``class_prior``); also the shared prior of :class:`textnb.text.mixed.MixedNB`."""
        kind, a = self._smoothing()
        return smoothed_class_prior(class_count, a if kind == "additive" else 1.0, self.class_prior)

    def _pooled_moments(self):
        """Count, mean and M2 of every Gaussian column over all classes together."""
        n = self.moment_count_.sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(n > 0, (self.moment_count_ * self.theta_).sum(axis=0) / np.where(n > 0, n, 1), 0.0)
        m2 = self.moment_m2_.sum(axis=0) + (self.moment_count_ * (self.theta_ - mean) ** 2).sum(axis=0)
        return n, mean, m2

    def _variance_floor(self, n, m2):
        """``var_smoothing`` times the largest overall (midpoint) variance, > 0."""
        with np.errstate(invalid="ignore", divide="ignore"):
            overall_var = np.where(n > 0, m2 / np.where(n > 0, n, 1), 0.0)
        top = overall_var.max() if overall_var.size else 0.0
        eps = self.var_smoothing * top if top > 0 else float(self.var_smoothing)
        return max(eps, np.finfo(np.float64).tiny)

    def _update_gaussian(self):
        if self.moment_count_.shape[1] == 0:
            self.var_ = np.zeros_like(self.theta_)
            self._mean = self.theta_
            return
        n, mean, m2 = self._pooled_moments()
        eps = self._variance_floor(n, m2)
        var = _weighted_variance(self.moment_count_, self.moment_m2_)
        pooled_var = _weighted_variance(n, m2)
        theta = self.theta_
        iv = self._interval_columns()
        if iv.size and self.interval_fit == "censored":
            # the EM fit of fit(): per class, last row all classes pooled
            shape = (len(self.classes_) + 1, iv.size)
            if self.censored_theta_.shape != shape or self.censored_var_.shape != shape:
                raise ValueError(
                    f"censored_theta_ / censored_var_ have shapes {self.censored_theta_.shape} / "
                    f"{self.censored_var_.shape}; expected {shape}"
                )
            theta = self.theta_.copy()
            theta[:, iv] = self.censored_theta_[:-1]
            mean = mean.copy()
            mean[iv] = self.censored_theta_[-1]
            var[:, iv] = self.censored_var_[:-1]
            pooled_var[iv] = self.censored_var_[-1]
        elif iv.size:
            # Theorem 1 (Qin, Xia & Li): σ² = (Var(L+R) − Var(R−L)) / 4
            #                               = Var(midpoint) − Var(half-width), both n−1.
            # Exactly the midpoint variance when every interval is a point (zero widths).
            half = GaussianMoments.from_arrays(self.halfwidth_count_, self.halfwidth_mean_, self.halfwidth_m2_)
            var[:, iv] = var[:, iv] - half.variance(ddof=1)
            hn = half.count.sum(axis=0)
            with np.errstate(invalid="ignore", divide="ignore"):
                hmean = np.where(hn > 0, (half.count * half.mean).sum(axis=0) / np.where(hn > 0, hn, 1), 0.0)
            hm2 = half.m2.sum(axis=0) + (half.count * (half.mean - hmean) ** 2).sum(axis=0)
            pooled_t1 = pooled_var[iv] - np.where(hn > 1, hm2 / np.where(hn > 1, hn - 1, 1), 0.0)
            # the difference can be <= 0 when the widths vary more than the midpoints
            # (Theorem 1's assumptions fail): fall back to the midpoints' variance
            pooled_var[iv] = np.where(pooled_t1 > 0, pooled_t1, pooled_var[iv])
        empty = self.moment_count_ <= 0
        self._mean = np.where(empty, mean, theta)
        # no known value in a class, or all of them equal (one value; for intervals: a
        # Theorem 1 variance <= 0): no idea of the scale (a zero variance would make
        # every other value impossible); borrow the pooled variance, as Weka falls back
        # to its default when the deviation is ~0; the floor eps is added to all
        degenerate = (self.moment_count_ <= 0) | _no_spread(var, theta)
        self.var_ = np.where(degenerate, pooled_var, var) + eps

    def _update_kde(self):
        self._kde_sigma = []
        n_classes = len(self.classes_)
        for k in range(len(self.kde_values_)):
            v, c, w = self.kde_values_[k], self.kde_class_[k], self.kde_weight_[k]
            sigma = np.ones(n_classes)
            if v.size:
                uniq = np.unique(v)
                rng = uniq[-1] - uniq[0]
                floor = rng / uniq.size / 6.0 if rng > 0 else 1.0
                W_all = w.sum()
                pooled = max(rng / np.sqrt(W_all), floor) if W_all > 0 else floor
                for ci in range(n_classes):
                    sel = c == ci
                    W = w[sel].sum()
                    r = np.ptp(v[sel]) if sel.any() else 0.0
                    # a class with no value (a declared class no row has): the kernels of
                    # all classes pooled, as a Gaussian takes the pooled mean and variance
                    sigma[ci] = max(r / np.sqrt(W), floor) if W > 0 else pooled
            self._kde_sigma.append(sigma)

    # -- prediction ----------------------------------------------------------------
    def _check_X(self, X):
        X, _ = self._frame_in(X, first=False)
        X = self._validate_x(X, reset=False)
        self._check_uncertain(X)
        return X

    def _joint_log_likelihood(self, X):
        jll = np.tile(self.class_log_prior_, (X.shape[0], 1))
        if self.feature_log_prob_.shape[1]:
            jll += self._one_hot_dot(X, self.feature_log_prob_)
        gauss = self._gaussian_columns()
        if gauss.size:
            Xg, Rg = self._gaussian_values(X)
            iv = self._interval_columns()
            wide = (Rg[:, iv] > Xg[:, iv]) if iv.size else None
            for ci in range(len(self.classes_)):
                var, mu = self.var_[ci], self._mean[ci]
                with np.errstate(over="ignore", invalid="ignore"):
                    lp = -0.5 * (_LOG_2PI + np.log(var)) - 0.5 * (Xg - mu) ** 2 / var
                    far = np.isneginf(lp) & np.isfinite(Xg)
                    if far.any():  # a square that overflows (|x - mu| > 1e154 sd): the same
                        # density with the distance in units of sd capped there, so every
                        # class keeps a finite score and the farthest still scores lowest
                        z = np.clip((Xg - mu) / np.sqrt(var), -_MAX_SD, _MAX_SD)
                        lp = np.where(far, -0.5 * (_LOG_2PI + np.log(var)) - 0.5 * z * z, lp)
                if iv.size and wide.any():
                    # an interval L < R: the class-conditional probability mass of [L, R]
                    sd = np.sqrt(var[iv])
                    r, c = np.nonzero(wide)
                    with np.errstate(over="ignore"):  # bounds ~1e308 away: ±inf, a mass of 0 or 1
                        za = (Xg[r, iv[c]] - mu[iv[c]]) / sd[c]
                        zb = (Rg[r, iv[c]] - mu[iv[c]]) / sd[c]
                    lp[r, iv[c]] = log_interval_mass(za, zb)
                # no floor: a value far from every class mean keeps its evidence
                # (GaussianNB's log density, which decides by the nearest class)
                lp = np.where(np.isnan(Xg), 0.0, lp)
                jll[:, ci] += lp.sum(axis=1)
        for k, j in enumerate(self._kde_columns()):
            jll += self._kde_log_density(self._column(X, j), k)
        jll += self._expected_log_likelihood(X)
        return jll

    def _expected_log_likelihood(self, X):
        """``log Σ_v p(v) P(v | c)`` of the uncertain (not one-hot) nominal cells, summed per row."""
        out = np.zeros((X.shape[0], len(self.classes_)))
        offsets = np.concatenate([[0], np.cumsum(self.n_values_)])
        layout = self._layout()
        sl, counted = layout["slices"], self._counted_columns()
        for j in counted[layout["uncertain_nominal"][counted]]:
            P = X[:, sl[j]]
            known = ~np.isnan(P[:, 0])
            rows = np.flatnonzero(known & (np.where(known[:, None], P, 0.0).max(axis=1) < 1.0))
            if not rows.size:
                continue
            flp = self.feature_log_prob_[:, offsets[j]:offsets[j + 1]]  # (n_classes, k)
            with np.errstate(divide="ignore"):
                logp = np.log(P[rows])  # (n_rows, k); -inf where p(v) = 0
            terms = logp[:, None, :] + flp[None, :, :]
            out[rows] += np.maximum(logsumexp_max_apart(terms, axis=2), LOG_FLOOR)
        return out

    def _kde_log_density(self, x, k):
        """Per-class log kernel density of column values ``x`` (0 where missing)."""
        n_classes = len(self.classes_)
        out = np.zeros((x.shape[0], n_classes))
        known = np.flatnonzero(~np.isnan(x))
        v, c, w = self.kde_values_[k], self.kde_class_[k], self.kde_weight_[k]
        for ci in range(n_classes):
            sel = c == ci
            vc, wc = v[sel], w[sel]
            W = wc.sum()
            if W <= 0:  # no training value in this class: the kernels of all classes pooled
                vc, wc = v, w
                W = wc.sum()
                if W <= 0:
                    continue  # no training value at all: the attribute carries no information
            s = self._kde_sigma[k][ci]
            logw = np.log(wc / W) - np.log(s) - 0.5 * _LOG_2PI
            step = max(1, 4_000_000 // max(vc.size, 1))
            for start in range(0, known.size, step):
                rows = known[start:start + step]
                with np.errstate(over="ignore"):  # a value ~1e154 kernel widths away: density 0, floored
                    z = (x[rows, None] - vc[None, :]) / s
                    terms = logw[None, :] - 0.5 * z * z
                out[rows, ci] = np.maximum(logsumexp_max_apart(terms, axis=1), LOG_FLOOR)
        return out

    # -- merge, inspection, model files ---------------------------------------------
    @checked_merge
    def merge(self, other):
        """Add the statistics of ``other`` (same parameters, attributes and cut points;
        a parameter that differs is :class:`~textnb.core.errors.SettingsDiffer`, naming it).

        Training on two halves and merging gives the model trained on the whole (for
        discretising modes: when both halves used the same cut points). Classes are
        aligned by name. Models with ``interval_fit="censored"`` and uncertain numeric
        attributes cannot be merged (ValueError): their EM fit is not a sum.
        """
        self._check_fitted()
        other._check_fitted()
        if type(other) is not type(self):
            raise ValueError(f"cannot merge a {type(other).__name__} into a {type(self).__name__}")
        if other.numeric != self.numeric:
            raise ValueError(f"cannot merge TabularNB models with different numeric models "
                             f"({self.numeric!r} and {other.numeric!r})")
        attributes, columns, width = self._merged_layout(other)
        if other.interval_fit != self.interval_fit:
            raise ValueError(
                f"cannot merge TabularNB models with different interval_fit "
                f"({self.interval_fit!r} and {other.interval_fit!r})"
            )
        self._check_same_settings(other)
        if self._censored():
            raise ValueError(_NOT_INCREMENTAL.format(what="merge cannot combine two fits"))
        check_same_cut_points([a.name for a in self.attributes_], self.cut_points_, other.cut_points_,
                              "numeric='gaussian' or 'kde' merge exactly; else fit the discretisation once "
                              "(partial_fit on a common first batch) before training the parts")
        models = (self, other)

        def widened(m, cols):  # m's feature counts in the merged layout of values
            counts = np.zeros((len(m.classes_), width))
            counts[:, cols] = m.feature_count_
            return counts

        classes, counts = merge_aligned(
            [(m.classes_, CountTable.from_arrays(m.class_count_, widened(m, cols))) for m, cols in zip(models, columns)])
        _, merged = merge_aligned(
            [(m.classes_, GaussianMoments.from_arrays(m.moment_count_, m.theta_, m.moment_m2_)) for m in models])
        _, merged_half = merge_aligned([
            (m.classes_, GaussianMoments.from_arrays(m.halfwidth_count_, m.halfwidth_mean_, m.halfwidth_m2_))
            for m in models])
        kde = [([], [], []) for _ in self.kde_values_]
        for model in models:
            idx = class_positions(classes, model.classes_)
            for k in range(len(kde)):
                kde[k][0].append(model.kde_values_[k])
                kde[k][1].append(idx[model.kde_class_[k]])
                kde[k][2].append(model.kde_weight_[k])
        self.attributes_ = attributes
        self.n_values_ = self._expected_n_values()
        self.classes_, self.class_count_, self.feature_count_ = classes, counts.class_count, counts.feature_count
        self.moment_count_, self.theta_, self.moment_m2_ = merged.count, merged.mean, merged.m2
        self.halfwidth_count_, self.halfwidth_mean_, self.halfwidth_m2_ = (
            merged_half.count, merged_half.mean, merged_half.m2
        )
        self.kde_values_ = [np.concatenate(v) for v, _, _ in kde]
        self.kde_class_ = [np.concatenate(c).astype(np.int64) for _, c, _ in kde]
        self.kde_weight_ = [np.concatenate(w) for _, _, w in kde]
        self.censored_theta_ = np.zeros((len(classes) + 1, 0))  # only used with censored intervals: none here
        self.censored_var_ = np.zeros((len(classes) + 1, 0))
        self._update()
        return self

    def _merged_layout(self, other):
        """``(attributes, (my columns, other's columns), width)`` of the merge of ``other`` into this
        model: the attributes of :func:`merged_attributes` (nominal values matched by name),
        where each model's feature-count columns go, and the merged number of columns. Any
        other difference is a ValueError naming the attribute."""
        attributes, values = merged_attributes(self.attributes_, other.attributes_, "TabularNB")
        mine, theirs, start = [], [], 0
        for j, (a, where) in enumerate(zip(attributes, values)):
            if where is not None:
                mine += [start + i for i in where[0]]
                theirs += [start + i for i in where[1]]
                start += len(a.values)
                continue
            n = int(self.n_values_[j])  # (the same bins in both: cut points checked)
            mine += range(start, start + n)
            theirs += range(start, start + n)
            start += n
        return attributes, (np.array(mine, dtype=np.int64), np.array(theirs, dtype=np.int64)), start

    def describe(self):
        """The fitted model as plain data (JSON-serialisable), for ``textnb inspect``.

        Returns a dict with ``classes``, ``class_count``, ``class_prior`` and
        ``attributes``: one dict per column with ``name``, ``kind`` and ``model``
        (``"nominal"``, ``"discretized"``, ``"gaussian"`` or ``"kde"``) and, by
        model, ``values`` with per-class ``counts`` and ``probabilities``,
        ``cut_points``, or per-class ``count`` / ``mean`` / ``std``. Uncertain nominal
        attributes are ``"nominal"`` (counts are probabilistic cardinalities); uncertain
        numeric ones ``"gaussian"`` with the Theorem 1 (or censored EM) mean and deviation.
        """
        self._check_fitted()
        classes = label_names(self)
        offsets = np.concatenate([[0], np.cumsum(self.n_values_)])
        gauss = {j: g for g, j in enumerate(self._gaussian_columns())}
        kde = {j: k for k, j in enumerate(self._kde_columns())}
        atts = []
        for j, a in enumerate(self.attributes_):
            d = {"name": a.name, "kind": a.kind}
            if self.n_values_[j] > 0:
                sl = slice(offsets[j], offsets[j + 1])
                cuts = self.cut_points_[j]
                if cuts is None:
                    d["model"], d["values"] = "nominal", list(a.values)
                else:
                    d["model"], d["cut_points"] = "discretized", [float(x) for x in cuts]
                    edges = ["-inf"] + [f"{x:.6g}" for x in cuts] + ["inf"]
                    d["values"] = [f"({edges[i]}, {edges[i + 1]}]" for i in range(len(edges) - 1)]
                d["counts"] = {c: self.feature_count_[i, sl].tolist() for i, c in enumerate(classes)}
                # the log floor stands for a zero relative frequency (alpha=0): show 0
                flp = self.feature_log_prob_[:, sl]
                prob = np.where(flp <= LOG_FLOOR, 0.0, np.exp(flp))
                d["probabilities"] = {
                    c: prob[i].tolist() for i, c in enumerate(classes)
                }
            elif j in gauss:
                g = gauss[j]
                d["model"] = "gaussian"
                d["count"] = {c: float(self.moment_count_[i, g]) for i, c in enumerate(classes)}
                d["mean"] = {c: float(self._mean[i, g]) for i, c in enumerate(classes)}
                d["std"] = {c: float(np.sqrt(self.var_[i, g])) for i, c in enumerate(classes)}
            else:
                k = kde[j]
                d["model"] = "kde"
                d["count"] = {
                    c: float(self.kde_weight_[k][self.kde_class_[k] == i].sum()) for i, c in enumerate(classes)
                }
                d["bandwidth"] = {c: float(self._kde_sigma[k][i]) for i, c in enumerate(classes)}
            atts.append(d)
        return {
            "model": "TabularNB",
            "classes": classes,
            "class_count": self.class_count_.tolist(),
            "class_prior": np.exp(self.class_log_prior_).tolist(),
            "nominal": self.nominal,
            "numeric": self.numeric,
            "attributes": atts,
        }

    _STATE = (
        "classes_", "class_count_", "attributes_", "cut_points_", "n_values_", "feature_count_",
        "moment_count_", "theta_", "moment_m2_", "kde_values_", "kde_class_", "kde_weight_",
        "n_features_in_", "halfwidth_count_", "halfwidth_mean_", "halfwidth_m2_",
        "censored_theta_", "censored_var_",
    )

    def _get_state(self):
        state = {k: getattr(self, k) for k in self._STATE}
        state["cut_points_"] = [np.empty(0) if c is None else c for c in self.cut_points_]
        state["discretized_"] = np.array([c is not None for c in self.cut_points_], dtype=bool)
        state["attributes_"] = list(self.attributes_)
        if hasattr(self, "feature_names_in_"):
            state["feature_names_in_"] = self.feature_names_in_
        return state

    def _set_state(self, state):
        disc = np.asarray(state.pop("discretized_"), dtype=bool)
        n_classes = len(state["classes_"])
        for k in ("halfwidth_count_", "halfwidth_mean_", "halfwidth_m2_"):
            state.setdefault(k, np.zeros((n_classes, 0)))  # files from before NBU
        for k in ("censored_theta_", "censored_var_"):
            state.setdefault(k, np.zeros((n_classes + 1, 0)))  # files from before interval_fit
        for k, v in state.items():
            setattr(self, k, v)
        self.cut_points_ = [np.asarray(c, dtype=np.float64) if d else None for c, d in zip(self.cut_points_, disc)]
        self.attributes_ = [
            a if isinstance(a, Attribute) else Attribute(a["name"], a["kind"], list(a["values"]))
            for a in self.attributes_
        ]
        self.n_values_ = np.asarray(self.n_values_, dtype=np.int64)
        for k in ("class_count_", "feature_count_", "moment_count_", "theta_", "moment_m2_",
                  "halfwidth_count_", "halfwidth_mean_", "halfwidth_m2_", "censored_theta_", "censored_var_"):
            setattr(self, k, np.array(getattr(self, k), dtype=np.float64))
        n_classes = len(self.classes_)
        for k in ("halfwidth_count_", "halfwidth_mean_", "halfwidth_m2_"):
            setattr(self, k, getattr(self, k).reshape(n_classes, -1))
        for k in ("censored_theta_", "censored_var_"):
            setattr(self, k, getattr(self, k).reshape(n_classes + 1, -1))
        self.kde_values_ = [np.asarray(v, dtype=np.float64) for v in self.kde_values_]
        self.kde_class_ = [np.asarray(v, dtype=np.int64) for v in self.kde_class_]
        self.kde_weight_ = [np.asarray(v, dtype=np.float64) for v in self.kde_weight_]
        self._check_layout()
        self._update()
