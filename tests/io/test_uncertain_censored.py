"""TabularNB(interval_fit="censored"): the interval-censored maximum-likelihood Gaussian (EM).

The estimator of an uncertain numeric attribute's class Gaussian that matches NBU's
prediction rule (the class-conditional probability mass of the test interval), next
to the paper's Theorem 1 (``interval_fit="theorem1"``; censored is the default).
"""

import io
import warnings

import numpy as np
import pytest
from scipy import integrate
from scipy.optimize import minimize

from textnb.cli.commands import main
from textnb.core.model_io import load
from textnb.io.tables import Attribute
from textnb.naive_bayes.tabular import (
    EM_MAX_ITER,
    TabularNB,
    censored_gaussian_em,
    truncated_normal_moments,
)
from textnb.io.uncertain import log_interval_mass, make_uncertain

IV = Attribute("x", "uncertain-numeric")
COLOURS = ["red", "blue", "green"]


def censored_sample(rng, n, mu, sigma, mean_width, exact=0.0):
    """True values N(mu, sigma²) hidden in intervals of Exp(mean_width) width whose position
    (where the true value sits inside) is uniform and independent of the value; a fraction
    ``exact`` of the cells stays a point."""
    x = rng.normal(mu, sigma, n)
    width = rng.exponential(mean_width, n)
    width[rng.random(n) < exact] = 0.0
    u = rng.random(n)
    return x - u * width, x + (1 - u) * width


def mixed_table(n=240, seed=0, uncertain=True):
    """Two uncertain numeric attributes, an uncertain nominal one, a certain numeric one;
    three classes, missing values."""
    rng = np.random.default_rng(seed)
    y = rng.choice(["p", "q", "r"], n)
    shift = (y == "p") * 1.5 - (y == "r")
    a = rng.normal(size=n) + shift
    b = rng.normal(size=n) * 2 - shift
    col = np.where(y == "q", rng.integers(0, 2, n), rng.integers(0, 3, n))
    c = rng.normal(size=n) + 0.5 * shift
    P = np.zeros((n, 3))
    P[np.arange(n), col] = 1.0
    wa = rng.exponential(1.0, n) if uncertain else np.zeros(n)
    wb = rng.exponential(2.0, n) if uncertain else np.zeros(n)
    ua, ub = rng.random(n), rng.random(n)
    X = np.column_stack([a - ua * wa, a + (1 - ua) * wa, b - ub * wb, b + (1 - ub) * wb, P, c])
    X[[3, 17], 0:2] = np.nan
    X[[5, 17], 2:4] = np.nan
    X[[8], 4:7] = np.nan
    atts = (IV, Attribute("z", "uncertain-numeric"), Attribute("colour", "uncertain-nominal", COLOURS),
            Attribute("c", "numeric"))
    return X, y, rng.random(n) + 0.2, atts


def log_likelihood(L, R, mu, sigma):
    """Log likelihood of interval-censored data: log mass of intervals, log density of points."""
    point = L == R
    a, b = (L - mu) / sigma, (R - mu) / sigma
    ll = np.where(point, -0.5 * a * a - np.log(sigma) - 0.5 * np.log(2 * np.pi), 0.0)
    ll[~point] = log_interval_mass(a[~point], b[~point])
    return ll.sum()


# -- certain data: exactly the ordinary estimates ---------------------------------------------
def test_certain_data_censored_equals_theorem1_and_plain_nb():
    X, y, w, atts = mixed_table(uncertain=False)
    t1 = TabularNB(attributes=atts, interval_fit="theorem1").fit(X, y, sample_weight=w)
    cens = TabularNB(attributes=atts, interval_fit="censored").fit(X, y, sample_weight=w)
    plain_atts = (Attribute("x", "numeric"), Attribute("z", "numeric"),
                  Attribute("colour", "nominal", COLOURS), Attribute("c", "numeric"))
    Xp = np.column_stack([X[:, 0], X[:, 2], np.where(np.isnan(X[:, 4]), np.nan, np.argmax(X[:, 4:7], axis=1)),
                          X[:, 7]])
    plain = TabularNB(attributes=plain_atts).fit(Xp, y, sample_weight=w)
    for model in (t1, cens):
        np.testing.assert_array_equal(model.var_, plain.var_)
        np.testing.assert_array_equal(model._mean, plain._mean)
        np.testing.assert_array_equal(model.predict_joint_log_proba(X), plain.predict_joint_log_proba(Xp))
    # the EM was not run (no interval anywhere): the stored fit is the midpoint moments
    np.testing.assert_array_equal(cens.censored_theta_[:-1], t1.theta_[:, :2])
    assert cens.censored_theta_.shape == (4, 2) and t1.censored_theta_.shape == (4, 0)


def test_classes_of_points_keep_the_plain_estimates():
    """Class a has exact values only, class b intervals: a is untouched, b is refitted."""
    rng = np.random.default_rng(1)
    xa = rng.normal(0.0, 1.0, 50)
    Lb, Rb = censored_sample(rng, 60, 5.0, 1.0, 4.0)
    X = np.column_stack([np.r_[xa, Lb], np.r_[xa, Rb]])
    y = np.array(["a"] * 50 + ["b"] * 60)
    t1 = TabularNB(attributes=(IV,), var_smoothing=0.0, interval_fit="theorem1").fit(X, y)
    cens = TabularNB(attributes=(IV,), interval_fit="censored", var_smoothing=0.0).fit(X, y)
    assert cens.var_[0, 0] == t1.var_[0, 0] == np.var(xa, ddof=1)
    assert cens._mean[0, 0] == t1._mean[0, 0]
    assert abs(cens.var_[1, 0] - t1.var_[1, 0]) > 0.1
    assert abs(cens._mean[1, 0] - t1._mean[1, 0]) > 1e-6


# -- recovery on simulated interval-censored data ---------------------------------------------
def test_recovers_mu_and_sigma_where_midpoints_are_biased():
    rng = np.random.default_rng(2)
    L, R = censored_sample(rng, 20000, 3.0, 2.0, 3.0, exact=0.1)
    X = np.column_stack([L, R])
    y = np.zeros(len(L))
    cens = TabularNB(attributes=(IV,), interval_fit="censored").fit(X, y)
    t1 = TabularNB(attributes=(IV,), interval_fit="theorem1").fit(X, y)
    sd_cens, sd_t1 = np.sqrt(cens.var_[0, 0]), np.sqrt(t1.var_[0, 0])
    sd_mid = np.std((L + R) / 2, ddof=1)
    assert cens._mean[0, 0] == pytest.approx(3.0, abs=0.05)
    assert sd_cens == pytest.approx(2.0, abs=0.05)
    # the midpoints carry the spread of the interval positions: sigma ~ 2.3 here
    assert sd_mid - 2.0 > 0.25
    # Theorem 1's variance Var(mid) - Var(half-width) misses as well (its errors are not
    # symmetric with equal means here): ~ 1.85
    assert abs(sd_t1 - 2.0) > 0.1


def test_recovery_for_several_classes_and_attributes_at_once():
    rng = np.random.default_rng(3)
    params = {"a": [(0.0, 1.0, 2.0), (10.0, 3.0, 1.0)], "b": [(4.0, 0.5, 3.0), (-5.0, 2.0, 6.0)]}
    blocks, labels = [], []
    for label, cols in params.items():
        n = 8000
        cells = [censored_sample(rng, n, mu, s, wmean, exact=0.05) for mu, s, wmean in cols]
        blocks.append(np.column_stack([cells[0][0], cells[0][1], cells[1][0], cells[1][1]]))
        labels += [label] * n
    X, y = np.vstack(blocks), np.array(labels)
    X[::97, 0:2] = np.nan  # missing values are left out
    atts = (IV, Attribute("z", "uncertain-numeric"))
    m = TabularNB(attributes=atts, interval_fit="censored").fit(X, y)
    for ci, label in enumerate(m.classes_):
        for j, (mu, s, _) in enumerate(params[label]):
            assert m._mean[ci, j] == pytest.approx(mu, abs=0.06 * s)
            assert np.sqrt(m.var_[ci, j]) == pytest.approx(s, rel=0.04)


def test_em_reaches_the_likelihood_maximum():
    """The EM fit equals a direct numerical maximisation of the censored likelihood."""
    rng = np.random.default_rng(4)
    L, R = censored_sample(rng, 300, 1.0, 1.5, 2.5, exact=0.2)
    mean0 = np.array([[np.mean((L + R) / 2)]])
    var0 = np.array([[np.var((L + R) / 2, ddof=1)]])
    mu, var, n_iter = censored_gaussian_em(L[:, None], R[:, None], np.zeros(300, int), np.ones(300), 1,
                                           mean0, var0, 1e-12)
    assert 0 < n_iter < EM_MAX_ITER
    res = minimize(lambda p: -log_likelihood(L, R, p[0], np.exp(p[1])), [mean0[0, 0], 0.5 * np.log(var0[0, 0])],
                   method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 10000})
    mle_mu, mle_sd = res.x[0], np.exp(res.x[1])
    em_sd = np.sqrt(var[0, 0] * 299 / 300)  # returned times W / (W - 1)
    assert mu[0, 0] == pytest.approx(mle_mu, abs=1e-6 * mle_sd)
    assert em_sd == pytest.approx(mle_sd, rel=1e-6)
    assert log_likelihood(L, R, mu[0, 0], em_sd) >= -res.fun - 1e-9


def test_censored_fit_has_the_higher_interval_likelihood_on_the_paper_protocol():
    """What the prediction rule scores (the mass of each interval) is what the censored fit
    maximises: on the paper's uncertain data it beats Theorem 1 and the midpoints."""
    rng = np.random.default_rng(5)
    x = np.r_[rng.normal(0, 1, 400), rng.normal(2, 1.5, 400)]
    y = np.array(["a"] * 400 + ["b"] * 400)
    Xu, au = make_uncertain(x[:, None], [Attribute("x", "numeric")], 1.0, rng)
    scores = {}
    for fit in ("theorem1", "censored"):
        m = TabularNB(attributes=tuple(au), interval_fit=fit, var_smoothing=0.0).fit(Xu, y)
        scores[fit] = sum(log_likelihood(Xu[y == c, 0], Xu[y == c, 1], m._mean[i, 0], np.sqrt(m.var_[i, 0]))
                          for i, c in enumerate(m.classes_))
    mid = (Xu[:, 0] + Xu[:, 1]) / 2
    scores["midpoints"] = sum(log_likelihood(Xu[y == c, 0], Xu[y == c, 1], mid[y == c].mean(),
                                             mid[y == c].std(ddof=1)) for c in "ab")
    assert scores["censored"] > scores["theorem1"] + 10
    assert scores["censored"] > scores["midpoints"] + 10


# -- weights ------------------------------------------------------------------------------------
def test_weights_behave_like_repetition():
    X, y, _, atts = mixed_table(150, seed=6)
    reps = np.random.default_rng(6).integers(0, 4, len(y))  # 0: dropped
    weighted = TabularNB(attributes=atts, interval_fit="censored").fit(X, y, sample_weight=reps.astype(float))
    idx = np.repeat(np.arange(len(y)), reps)
    repeated = TabularNB(attributes=atts, interval_fit="censored").fit(X[idx], y[idx])
    np.testing.assert_allclose(weighted.censored_theta_, repeated.censored_theta_, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(weighted.censored_var_, repeated.censored_var_, rtol=1e-7)
    np.testing.assert_allclose(weighted.predict_joint_log_proba(X), repeated.predict_joint_log_proba(X),
                               rtol=1e-7)
    # and the weights matter: unweighted is a different fit
    unweighted = TabularNB(attributes=atts, interval_fit="censored").fit(X, y)
    assert np.max(np.abs(unweighted.censored_var_ - weighted.censored_var_)) > 1e-3


# -- numerics -----------------------------------------------------------------------------------
def _reference_moments(a, b):
    """Mean and variance of N(0,1) truncated to [a, b] by adaptive quadrature, the density
    taken relative to its value at the point of [a, b] nearest 0 (no underflow)."""
    z0 = min(max(0.0, a), b)
    def f(z):
        return np.exp(-0.5 * (z - z0) * (z + z0))

    kw = {"epsabs": 0.0, "epsrel": 1e-13, "limit": 200}
    pts = [z0] if a < z0 < b else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", integrate.IntegrationWarning)  # a mean of 0 has no relative error
        s0 = integrate.quad(f, a, b, points=pts, **kw)[0]
        m = integrate.quad(lambda z: (z - z0) * f(z), a, b, points=pts, **kw)[0] / s0 + z0
        v = integrate.quad(lambda z: (z - m) ** 2 * f(z), a, b, points=pts, **kw)[0] / s0
    return m, v


@pytest.mark.parametrize("a, b", [
    (-1.0, 1.0), (-3.0, 30.0), (-0.3, 0.99), (0.0, 0.5), (0.0, 4.0), (8.0, 9.0), (5.0, 60.0),
    (-2.0, -1.999), (40.0, 40.01), (40.0, 41.0), (-41.0, -40.0), (100.0, 100.1), (1000.0, 1001.0),
])
def test_truncated_normal_moments_against_quadrature(a, b):
    m, v = truncated_normal_moments(np.array([a]), np.array([b]))
    rm, rv = _reference_moments(a, b)
    z0 = min(abs(a), abs(b)) if a * b > 0 else 0.0
    assert m[0] == pytest.approx(rm, rel=1e-12, abs=1e-14)
    # the variance: relative precision in the body, absolute ~1e-16 z0^2 far in a tail
    assert abs(v[0] - rv) <= 1e-11 * rv + 1e-14 * max(1.0, z0 * z0)


def test_truncated_normal_moments_narrow_and_extreme():
    for c in (0.0, 3.0, -50.0, 2000.0):
        a = c - np.array([1e-6, 1e-9, 1e-12]) / 2  # (c·h)² small: the variance is h²/12 to 1e-6
        b = np.nextafter(np.nextafter(a, np.inf), np.inf) if c == 2000.0 else c + (c - a)
        h = b - a  # the width in floating point
        m, v = truncated_normal_moments(a, b)
        np.testing.assert_allclose(v, h * h / 12, rtol=1e-5)
        assert np.all((m >= a) & (m <= b))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = np.array([-np.inf, -1e300, 1e200, -np.inf, 3.0, -1e10])
        b = np.array([np.inf, 1e300, np.inf, -1e200, 3.0 + 1e-300, 1e10])
        m, v = truncated_normal_moments(a, b)
    assert np.all(np.isfinite(m)) and np.all(np.isfinite(v)) and np.all(v >= 0)
    assert m[0] == m[1] == 0.0 and v[0] == pytest.approx(1.0) and v[1] == pytest.approx(1.0)


def test_em_stable_with_wide_narrow_and_far_tail_intervals():
    rng = np.random.default_rng(7)
    x = rng.normal(2.0, 1.0, 200)
    L, R = x.copy(), x.copy()
    L[:20], R[:20] = -1e8, 1e8                                    # no information at all
    L[20:40], R[20:40] = x[20:40], x[20:40] * (1 + 1e-12) + 1e-12  # narrower than rounding
    L[40:45], R[40:45] = 2e4, 2e4 + 1.0                          # 20000 deviations out
    L[45:50], R[45:50] = -3e4 - 1e-6, -3e4                       # the other tail, narrow
    y = np.zeros(200)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = TabularNB(attributes=(IV,), interval_fit="censored").fit(np.column_stack([L, R]), y)
        jll = m.predict_joint_log_proba(np.column_stack([L, R]))
    assert np.all(np.isfinite(m.var_)) and np.all(m.var_ > 0) and np.all(np.isfinite(m._mean))
    assert np.all(np.isfinite(jll))
    # the unbounded intervals change nothing but the count W in the n-1 correction
    keep = np.arange(20, 200)
    ref = TabularNB(attributes=(IV,), interval_fit="censored").fit(np.column_stack([L[keep], R[keep]]), y[keep])
    assert m._mean[0, 0] == pytest.approx(ref._mean[0, 0], abs=1e-6 * np.sqrt(ref.var_[0, 0]))
    # (maximum-likelihood variance times W / (W - 1): 200 / 199 here, 180 / 179 there)
    assert m.var_[0, 0] == pytest.approx(ref.var_[0, 0] * (179 / 180) * (200 / 199), rel=1e-6)


def test_em_from_a_start_far_in_the_tail():
    rng = np.random.default_rng(8)
    L, R = censored_sample(rng, 500, 0.0, 1.0, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for mean0, var0 in [(1e6, 1e-6), (-1e4, 1e-10), (0.0, 1e12)]:
            mu, var, n_iter = censored_gaussian_em(L[:, None], R[:, None], np.zeros(500, int), np.ones(500), 1,
                                                   np.array([[mean0]]), np.array([[var0]]), 1e-12)
            assert np.isfinite(mu[0, 0]) and np.isfinite(var[0, 0]) and n_iter <= EM_MAX_ITER
            assert mu[0, 0] == pytest.approx(0.0, abs=0.15) and np.sqrt(var[0, 0]) == pytest.approx(1.0, abs=0.15)


def test_intervals_sharing_a_point_fall_back_to_the_pooled_variance():
    """All of class a's intervals contain 1.3: the likelihood grows without bound as sigma -> 0;
    the class gets the pooled variance, as equal points do."""
    La, Ra = np.array([0.0, 1.0, 0.5, 1.2, 1.3]), np.array([2.0, 3.0, 1.5, 4.0, 1.3])
    rng = np.random.default_rng(9)
    Lb, Rb = censored_sample(rng, 40, 6.0, 2.0, 1.0)
    X = np.column_stack([np.r_[La, Lb], np.r_[Ra, Rb]])
    y = np.array(["a"] * 5 + ["b"] * 40)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = TabularNB(attributes=(IV,), interval_fit="censored").fit(X, y)
    assert m.censored_var_[0, 0] == 0.0
    assert m._mean[0, 0] == pytest.approx(1.3, abs=1e-3)
    assert m.var_[0, 0] == pytest.approx(m.censored_var_[-1, 0], rel=1e-6) and m.var_[0, 0] > 1.0
    assert np.all(np.isfinite(m.predict_joint_log_proba(X)))


# -- partial_fit, merge, model files, parameters, CLI ------------------------------------------
def test_partial_fit_and_merge_are_refused_with_intervals():
    X, y, w, atts = mixed_table()
    model = TabularNB(attributes=atts, interval_fit="censored")
    with pytest.raises(ValueError, match=r"interval_fit='censored'.*partial_fit.*train with fit") as exc:
        model.partial_fit(X, y, classes=["p", "q", "r"])
    assert "\n" not in str(exc.value)
    assert not hasattr(model, "classes_")
    model.fit(X, y, sample_weight=w)
    with pytest.raises(ValueError, match="partial_fit cannot add a batch"):
        model.partial_fit(X[:10], y[:10])
    other = TabularNB(attributes=atts, interval_fit="censored").fit(X[:100], y[:100])
    with pytest.raises(ValueError, match="merge cannot combine two fits"):
        model.merge(other)
    t1 = TabularNB(attributes=atts, interval_fit="theorem1").fit(X, y)
    with pytest.raises(ValueError, match="different interval_fit"):
        t1.merge(other)


def test_partial_fit_and_merge_without_uncertain_numeric_attributes():
    """The option concerns intervals only: without them the model stays incremental."""
    X, y, w, atts = mixed_table()
    X, atts = X[:, 4:], atts[2:]  # uncertain nominal + certain numeric
    full = TabularNB(attributes=atts, interval_fit="censored").fit(X, y, sample_weight=w)
    part = TabularNB(attributes=atts, interval_fit="censored")
    for chunk in np.array_split(np.arange(len(y)), 4):
        part.partial_fit(X[chunk], y[chunk], classes=["p", "q", "r"], sample_weight=w[chunk])
    np.testing.assert_allclose(part.predict_joint_log_proba(X), full.predict_joint_log_proba(X), rtol=1e-9)
    a = TabularNB(attributes=atts, interval_fit="censored").fit(X[:100], y[:100], sample_weight=w[:100])
    b = TabularNB(attributes=atts, interval_fit="censored").fit(X[100:], y[100:], sample_weight=w[100:])
    a.merge(b)
    np.testing.assert_allclose(a.predict_joint_log_proba(X), full.predict_joint_log_proba(X), rtol=1e-9)
    t1 = TabularNB(attributes=atts, interval_fit="theorem1").fit(X, y, sample_weight=w)
    np.testing.assert_array_equal(t1.predict_joint_log_proba(X), full.predict_joint_log_proba(X))


def test_model_file_round_trip(tmp_path):
    X, y, w, atts = mixed_table()
    m = TabularNB(attributes=atts, interval_fit="censored").fit(X, y, sample_weight=w)
    m.save(tmp_path / "c.tnb")
    back = load(tmp_path / "c.tnb")
    assert back.interval_fit == "censored"
    np.testing.assert_array_equal(back.censored_var_, m.censored_var_)
    np.testing.assert_array_equal(back.predict_joint_log_proba(X), m.predict_joint_log_proba(X))
    t1 = TabularNB(attributes=atts, interval_fit="theorem1").fit(X, y, sample_weight=w)
    assert np.max(np.abs(t1.predict_joint_log_proba(X) - m.predict_joint_log_proba(X))) > 1e-3


def test_invalid_interval_fit():
    X, y, _, atts = mixed_table(30)
    with pytest.raises(ValueError, match="interval_fit must be one of"):
        TabularNB(attributes=atts, interval_fit="mle").fit(X, y)
    # the default is the estimator that won on held-out data (docs/uncertain.md, "Choice of the default")
    assert TabularNB().get_params()["interval_fit"] == "censored"


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = main([str(a) for a in argv], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_cli_interval_fit(tmp_path):
    rng = np.random.default_rng(10)
    rows = ["temp,size,class"]
    for i in range(60):
        c = "yes" if i % 2 else "no"
        t, h = rng.normal(5 if c == "yes" else 3), 2 * rng.random()
        rows.append(f'"[{t - h:.3f},{t + h * rng.random():.3f}]",{rng.normal():.3f},{c}')
    data = tmp_path / "u.csv"
    data.write_text("\n".join(rows) + "\n")
    for fit in ("censored", "theorem1"):
        code, _, err = run("train", data, "-o", tmp_path / f"{fit}.tnb", "--interval-fit", fit)
        assert code == 0, err
        assert load(tmp_path / f"{fit}.tnb").interval_fit == fit
    assert load(tmp_path / "censored.tnb").censored_var_.shape == (3, 1)
    code, _, err = run("train", data, "-o", tmp_path / "default.tnb")  # no flag: the held-out winner
    assert code == 0, err
    assert load(tmp_path / "default.tnb").interval_fit == "censored"
    code, _, err = run("train", data, "-o", tmp_path / "x.tnb", "--interval-fit", "censored", "--model", "tan")
    assert code == 1 and "--interval-fit goes with --model nb" in err and err.count("\n") == 1
    code, _, err = run("train", data, "-o", tmp_path / "x.tnb", "--interval-fit", "mle")
    assert code != 0
