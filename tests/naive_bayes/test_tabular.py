"""TabularNB: the textbook numbers, estimators, partial_fit / merge / model files, checks."""

import json
from pathlib import Path

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from textnb.core.errors import InputError
from textnb.core.model_io import load
from textnb.io.tables import Attribute, encode_like, read_table
from textnb.naive_bayes.tabular import TabularNB

REPO = Path(__file__).resolve().parents[2]
UCI = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "uci"
NUMERIC_MODES = ["gaussian", "kde", "mdl", "equal-frequency", "equal-width"]


def weather(kind="nominal"):
    return read_table(REPO / "corpora" / f"weather.{kind}.arff")


def model_for(table, **params):
    return TabularNB(attributes=tuple(table.attributes), **params).fit(table.X, table.y)


# -- the worked numbers of algorithms.md §1 -------------------------------------------------
def test_weather_nominal_textbook():
    t = weather()
    m = model_for(t, alpha=0)
    q = encode_like([["sunny", "cool", "high", "TRUE"]], m.attributes_)
    joint = dict(zip(m.classes_, np.exp(m.predict_joint_log_proba(q))[0]))
    assert round(joint["yes"], 4) == 0.0053  # 2/9·3/9·3/9·3/9·9/14
    assert round(joint["no"], 4) == 0.0206  # 3/5·1/5·4/5·3/5·5/14
    np.testing.assert_allclose(joint["yes"], 2 / 9 * 3 / 9 * 3 / 9 * 3 / 9 * 9 / 14)
    proba = dict(zip(m.classes_, m.predict_proba(q)[0]))
    assert round(proba["yes"], 3) == 0.205


def test_weather_query_file():
    m = model_for(weather(), alpha=0)
    q = read_table(REPO / "corpora" / "weather.query.arff", like=m.attributes_)
    assert round(dict(zip(m.classes_, m.predict_proba(q.X)[0]))["yes"], 3) == 0.205


def test_weather_outlook_missing():
    m = model_for(weather(), alpha=0)
    q = encode_like([["?", "cool", "high", "TRUE"]], m.attributes_)
    joint = dict(zip(m.classes_, np.exp(m.predict_joint_log_proba(q))[0]))
    assert round(joint["yes"], 4) == 0.0238 and round(joint["no"], 4) == 0.0343
    proba = dict(zip(m.classes_, m.predict_proba(q)[0]))
    assert round(100 * proba["yes"]) == 41 and round(100 * proba["no"]) == 59


def test_weather_numeric_textbook():
    m = model_for(weather("numeric"), alpha=0)
    d = m.describe()
    temp = d["attributes"][1]
    assert temp["model"] == "gaussian" and temp["mean"]["yes"] == pytest.approx(73)
    assert round(temp["std"]["yes"], 1) == 6.2
    q = encode_like([["sunny", 66, 90, "TRUE"]], m.attributes_)
    yes = list(m.classes_).index("yes")
    # the densities: f(66 | yes) ≈ 0.0340, f(90 | yes) ≈ 0.0221
    g = {a["name"]: a for a in d["attributes"]}
    def f(x, a):
        mu, sd = g[a]["mean"]["yes"], g[a]["std"]["yes"]
        return np.exp(-0.5 * ((x - mu) / sd) ** 2) / (np.sqrt(2 * np.pi) * sd)
    assert round(f(66, "temperature"), 4) == 0.0340 and round(f(90, "humidity"), 4) == 0.0221
    assert round(100 * m.predict_proba(q)[0, yes], 1) == 20.8


BUYS = [
    ("youth", "high", "no", "fair", "no"), ("youth", "high", "no", "excellent", "no"),
    ("middle_aged", "high", "no", "fair", "yes"), ("senior", "medium", "no", "fair", "yes"),
    ("senior", "low", "yes", "fair", "yes"), ("senior", "low", "yes", "excellent", "no"),
    ("middle_aged", "low", "yes", "excellent", "yes"), ("youth", "medium", "no", "fair", "no"),
    ("youth", "low", "yes", "fair", "yes"), ("senior", "medium", "yes", "fair", "yes"),
    ("youth", "medium", "yes", "excellent", "yes"), ("middle_aged", "medium", "no", "excellent", "yes"),
    ("middle_aged", "high", "yes", "fair", "yes"), ("senior", "medium", "no", "excellent", "no"),
]


def test_buys_computer_han_kamber():
    atts = (
        Attribute("age", "nominal", ["youth", "middle_aged", "senior"]),
        Attribute("income", "nominal", ["low", "medium", "high"]),
        Attribute("student", "nominal", ["yes", "no"]),
        Attribute("credit_rating", "nominal", ["fair", "excellent"]),
    )
    X = encode_like([r[:4] for r in BUYS], atts)
    y = np.array([r[4] for r in BUYS])
    m = TabularNB(attributes=atts, alpha=0).fit(X, y)
    q = encode_like([("youth", "medium", "yes", "fair")], atts)
    joint = dict(zip(m.classes_, np.exp(m.predict_joint_log_proba(q))[0]))
    assert round(joint["yes"], 3) == 0.028 and round(joint["no"], 3) == 0.007
    assert m.predict(q)[0] == "yes"


# -- estimators ---------------------------------------------------------------------------
def _toy():
    atts = (Attribute("a", "nominal", ["u", "v", "w"]),)
    X = np.array([[0], [0], [1], [np.nan], [1], [1], [0]], dtype=float)
    y = np.array(["p", "p", "p", "p", "q", "q", "q"])
    return atts, X, y


def test_laplace_and_additive():
    atts, X, y = _toy()
    m = TabularNB(attributes=atts).fit(X, y)  # additive, alpha=1 = Laplace
    # class p: known counts u=2, v=1, w=0 (the missing row left out): (n+1)/(3+3)
    np.testing.assert_allclose(np.exp(m.feature_log_prob_[0]), [3 / 6, 2 / 6, 1 / 6])
    np.testing.assert_allclose(np.exp(m.class_log_prior_), [5 / 9, 4 / 9])  # (n_c+1)/(n+C)
    assert np.array_equal(
        TabularNB(attributes=atts, nominal="laplace", alpha=5).fit(X, y).feature_log_prob_,
        m.feature_log_prob_,
    )
    m2 = TabularNB(attributes=atts, alpha=0.5).fit(X, y)
    np.testing.assert_allclose(np.exp(m2.feature_log_prob_[1]), [1.5 / 4.5, 2.5 / 4.5, 0.5 / 4.5])


def test_m_estimate_and_eq4():
    atts, X, y = _toy()
    p = np.array([3, 3, 0]) / 6  # value frequencies among known values
    m = TabularNB(attributes=atts, nominal="m-estimate", m=3).fit(X, y)
    np.testing.assert_allclose(np.exp(m.feature_log_prob_[0, :2]), (np.array([2, 1]) + 3 * p[:2]) / (3 + 3))
    e = TabularNB(attributes=atts, nominal="eq4").fit(X, y)
    np.testing.assert_allclose(np.exp(e.feature_log_prob_[1, :2]), (np.array([1, 2]) + 2 * p[:2]) / (3 + 2))
    np.testing.assert_allclose(np.exp(e.class_log_prior_), [(4 + 1) / (7 + 2), (3 + 1) / (7 + 2)])
    assert np.all(np.isfinite(e.predict_log_proba([[2.0]])))  # p_w = 0: floored, not -inf


def test_alpha_zero_never_nan():
    atts, X, y = _toy()
    m = TabularNB(attributes=atts, alpha=0).fit(X, y)
    out = m.predict_proba([[2.0], [np.nan], [0.0]])
    assert np.all(np.isfinite(out)) and np.allclose(out.sum(axis=1), 1)
    np.testing.assert_allclose(out[1], [4 / 7, 3 / 7])  # all missing: the prior
    # a value unseen in every class: both classes floored equally -> the prior decides
    np.testing.assert_allclose(out[0], [4 / 7, 3 / 7])


def test_missing_values_left_out():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 2))
    y = np.where(X[:, 0] > 0, "a", "b")
    Xm = X.copy()
    Xm[::3, 1] = np.nan
    m = TabularNB().fit(Xm, y)
    ref = TabularNB().fit(X[~np.isnan(Xm[:, 1])][:, 1:], y[~np.isnan(Xm[:, 1])])
    np.testing.assert_allclose(m.theta_[:, 1], ref.theta_[:, 0])
    np.testing.assert_allclose(m.class_count_, [np.sum(y == "a"), np.sum(y == "b")])
    q = np.array([[0.3, np.nan]])
    only_first = TabularNB().fit(X[:, :1], y)
    np.testing.assert_allclose(m.predict_proba(q), only_first.predict_proba(q[:, :1]))


def test_mixed_table_all_numeric_modes():
    t = weather("numeric")
    for mode in NUMERIC_MODES:
        m = model_for(t, numeric=mode, bins=3)
        p = m.predict_proba(t.X)
        assert p.shape == (14, 2) and np.all(np.isfinite(p))
        json.dumps(m.describe())


def test_kde_bandwidth():
    X = np.array([[0.0], [1.0], [2.0], [3.0], [10.0], [12.0]])
    y = np.array(["a", "a", "a", "a", "b", "b"])
    m = TabularNB(numeric="kde").fit(X, y)
    d = m.describe()["attributes"][0]
    assert d["bandwidth"]["a"] == pytest.approx(3 / 2) and d["bandwidth"]["b"] == pytest.approx(2 / np.sqrt(2))
    # density of class a at 1.5: mean of N(1.5; v, 1.5) over v in 0..3
    from scipy.stats import norm

    expect = np.mean(norm.pdf(1.5, [0, 1, 2, 3], 1.5))
    jll = m.predict_joint_log_proba([[1.5]])[0]
    assert jll[0] - m.class_log_prior_[0] == pytest.approx(np.log(expect))


def test_kde_class_without_values_uses_all_classes_kernels():
    """A class with no value of a KDE attribute (a declared class no row has; a class whose
    values are all missing) gets the density of all classes' kernels pooled, as a Gaussian
    attribute gets the pooled mean and variance; its term was log 1 = 0, which outweighed
    every real density (the declared empty class took 74 % on weather.numeric)."""
    from scipy.stats import norm

    X = np.array([[0.0], [1.0], [2.0], [3.0], [10.0], [12.0]])
    y = np.array(["a", "a", "a", "a", "b", "b"])
    m = TabularNB(numeric="kde", class_values=("a", "b", "c")).fit(X, y)
    assert m.describe()["attributes"][0]["bandwidth"]["c"] == pytest.approx(12 / np.sqrt(6))
    expect = np.mean(norm.pdf(1.5, X.ravel(), 12 / np.sqrt(6)))
    jll = m.predict_joint_log_proba([[1.5]])[0]
    assert jll[2] - m.class_log_prior_[2] == pytest.approx(np.log(expect))
    assert m.predict_proba([[1.5]])[0, 2] < m.predict_proba([[1.5]])[0, 0]
    # all of a class's values missing: the same pooled kernels (the other classes' values)
    Xm = np.vstack([X, [[np.nan], [np.nan]]])
    m = TabularNB(numeric="kde").fit(Xm, np.append(y, ["c", "c"]))
    jll = m.predict_joint_log_proba([[1.5]])[0]
    assert jll[2] - m.class_log_prior_[2] == pytest.approx(np.log(expect))


def test_sample_weight_equals_repetition():
    t = weather("numeric")
    w = np.array([1, 2, 0, 1, 3, 1, 1, 2, 1, 1, 1, 0, 2, 1], dtype=float)
    rep = np.repeat(np.arange(14), w.astype(int))
    for mode in NUMERIC_MODES:
        a = TabularNB(attributes=tuple(t.attributes), numeric=mode, bins=3).fit(t.X, t.y, sample_weight=w)
        b = TabularNB(attributes=tuple(t.attributes), numeric=mode, bins=3).fit(t.X[rep], t.y[rep])
        np.testing.assert_allclose(a.predict_proba(t.X), b.predict_proba(t.X), err_msg=mode)


# -- partial_fit, merge, model files ------------------------------------------------------
@pytest.mark.parametrize("mode", ["gaussian", "kde"])
def test_fit_equals_chunked_partial_fit(mode):
    t = weather("numeric")
    full = model_for(t, numeric=mode)
    part = TabularNB(attributes=tuple(t.attributes), numeric=mode)
    for chunk in np.array_split(np.arange(14), 4):
        part.partial_fit(t.X[chunk], t.y[chunk], classes=["no", "yes"])
    np.testing.assert_allclose(part.predict_joint_log_proba(t.X), full.predict_joint_log_proba(t.X))
    np.testing.assert_allclose(part.feature_count_, full.feature_count_)


def test_partial_fit_fixes_cut_points_on_first_call():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 1))
    y = np.where(X[:, 0] > 0.2, "a", "b")
    m = TabularNB(numeric="mdl").partial_fit(X[:100], y[:100], classes=["a", "b"])
    cuts = m.cut_points_[0].copy()
    m.partial_fit(X[100:], y[100:])
    np.testing.assert_array_equal(m.cut_points_[0], cuts)
    assert m.class_count_.sum() == 200


def test_partial_fit_errors():
    m = TabularNB()
    with pytest.raises(ValueError, match="classes must be passed"):
        m.partial_fit([[1.0]], ["a"])
    m.partial_fit([[1.0], [2.0]], ["a", "b"], classes=["a", "b"])
    with pytest.raises(ValueError, match="not in classes"):
        m.partial_fit([[1.0]], ["c"])


@pytest.mark.parametrize("mode", ["gaussian", "kde"])
def test_merge_equals_fit_on_union(mode):
    t = weather("numeric")
    first, second = np.arange(6), np.arange(6, 14)
    atts = tuple(t.attributes)
    a = TabularNB(attributes=atts, numeric=mode).fit(t.X[first], t.y[first])
    b = TabularNB(attributes=atts, numeric=mode).fit(t.X[second], t.y[second])
    a.merge(b)
    full = model_for(t, numeric=mode)
    np.testing.assert_array_equal(a.classes_, full.classes_)
    np.testing.assert_allclose(a.predict_joint_log_proba(t.X), full.predict_joint_log_proba(t.X))


def test_merge_aligns_classes_and_checks_cut_points():
    atts, X, y = _toy()
    a = TabularNB(attributes=atts).fit(X[:4], np.array(["p", "p", "r", "r"]))
    b = TabularNB(attributes=atts).fit(X[4:], y[4:])
    a.merge(b)
    assert a.classes_.tolist() == ["p", "q", "r"] and a.class_count_.tolist() == [2, 3, 2]
    rng = np.random.default_rng(0)
    Xn = rng.normal(size=(40, 1))
    yn = np.where(Xn[:, 0] > 0, "a", "b")
    c = TabularNB(numeric="equal-width", bins=3).fit(Xn[:20], yn[:20])
    d = TabularNB(numeric="equal-width", bins=3).fit(Xn[20:], yn[20:])
    with pytest.raises(ValueError, match="numeric attributes' cut points differ \\(x0: .*numeric='gaussian'"):
        c.merge(d)


@pytest.mark.parametrize("mode", NUMERIC_MODES)
def test_save_load_identical(tmp_path, mode):
    t = weather("numeric")
    m = model_for(t, numeric=mode, bins=4, nominal="eq4" if mode == "mdl" else "additive")
    path = tmp_path / "m.tnb"
    m.save(path)
    back = load(path)
    assert type(back) is TabularNB and back.get_params()["numeric"] == mode
    assert back.attributes_ == m.attributes_
    np.testing.assert_array_equal(back.predict_joint_log_proba(t.X), m.predict_joint_log_proba(t.X))
    assert back.describe() == m.describe()


# -- bad input --------------------------------------------------------------------------
def test_bad_inputs():
    atts, X, y = _toy()
    with pytest.raises(ValueError, match="not a value index"):
        TabularNB(attributes=atts).fit(np.array([[3.0], [0.0]]), ["p", "q"])
    with pytest.raises(ValueError, match="not a value index"):
        TabularNB(attributes=atts).fit(np.array([[0.5], [0.0]]), ["p", "q"])
    with pytest.raises(ValueError, match="describes 1 columns but X has 2"):
        TabularNB(attributes=atts).fit(np.zeros((2, 2)), ["p", "q"])
    with pytest.raises(ValueError, match="nominal must be one of"):
        TabularNB(nominal="magic").fit(np.zeros((2, 1)), ["p", "q"])
    with pytest.raises(ValueError, match="numeric must be one of"):
        TabularNB(numeric="magic").fit(np.zeros((2, 1)), ["p", "q"])
    with pytest.raises(ValueError, match="bins"):
        TabularNB(bins=0).fit(np.zeros((2, 1)), ["p", "q"])
    with pytest.raises(ValueError, match="Input X contains infinity"):
        TabularNB().fit(np.array([[np.inf], [0.0]]), ["p", "q"])
    m = TabularNB(attributes=atts).fit(X, y)
    with pytest.raises(ValueError, match="not a value index"):
        m.predict([[7.0]])
    with pytest.raises(InputError):
        read_table(REPO / "corpora" / "weather.nominal.arff", class_name="nope")


# -- every UCI file trains (kept fast: at most 2000 rows each) ---------------------------------
CLASS_FIRST = {"lung-cancer", "promoters", "wine"}  # per SOURCES.md


@pytest.mark.slow
@pytest.mark.skipif(not UCI.is_dir(), reason="../shared/datasets/uci not available")
def test_every_uci_file_trains():
    from textnb.io.arff import read_arff

    for path in sorted(UCI.glob("*.arff")):
        first = path.stem in CLASS_FIRST or path.stem.startswith("monks-problems")
        cls = read_arff(path).attributes[0].name if first else None
        t = read_table(path, class_name=cls, drop="instance" if path.stem == "promoters" else None)
        if len(np.unique(t.y)) < 2:
            continue
        rows = np.random.default_rng(0).permutation(len(t.y))[:2000]
        for mode in ("gaussian", "mdl"):
            m = model_for(type(t)(t.attributes, t.X[rows], t.y[rows], t.class_attribute), numeric=mode)
            p = m.predict_proba(t.X[rows[:200]])
            assert np.all(np.isfinite(p)), (path.name, mode)
            assert (m.predict(t.X[rows]) == t.y[rows]).mean() > 0.3, (path.name, mode)


# the default is checked with every export (tests/test_sklearn_cases.py); here the variants
@pytest.mark.slow
@parametrize_with_checks([TabularNB(numeric="kde"), TabularNB(numeric="mdl")])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_probabilities_sum_to_one_far_from_a_tiny_variance():
    """A class with one known value (variance epsilon) and a query far from it: joint log
    likelihoods of ~1e10 once left rows summing to 1 + 5e-7 (found by test_properties)."""
    X = np.array([[np.nan], [np.nan], [np.nan], [0.0]])
    model = TabularNB().fit(X, np.array(["c0", "c1", "c0", "c1"]))
    p = model.predict_proba(np.array([[3.0], [0.0], [np.nan]]))
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=0, atol=1e-12)


def test_log_odds_of_a_value_far_from_every_class_agree_with_the_probabilities():
    """A query value ~1e200 sd from both classes' means: the capped Gaussian distance gives
    both classes a joint log likelihood of about -5e307. ``predict_proba`` says 0.5 / 0.5;
    ``predict_log_odds`` (``predict --proba --json``'s ``log_odds``) says 0 / 0 and
    ``proba_and_odds`` alike (before: the log-sum-exp absorbed the log(2) of the tie and the
    log-odds were 0 and +inf, printed 1.8e308); a kernel density (``numeric="kde"``) predicts
    such a value without a numpy overflow warning (before: ``overflow encountered in multiply``
    on stderr)."""
    import warnings

    X = np.array([[1.0], [2.0], [3.0], [11.0], [12.0], [13.0]])
    y = np.array(["a", "a", "a", "b", "b", "b"])
    query = np.array([[1e200], [-1e300], [2.0]])
    model = TabularNB().fit(X, y)
    p = model.predict_proba(query)
    odds = model.predict_log_odds(query)
    assert np.all(np.isfinite(odds))
    np.testing.assert_allclose(p[:2], 0.5)
    np.testing.assert_array_equal(odds[:2], 0.0)  # a tie: 0.5 / 0.5
    assert odds[2, 0] == -odds[2, 1] > 40  # near a's mean: p rounds to 1, its log-odds do not
    np.testing.assert_array_equal(model.proba_and_odds(query)[1], odds)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p = TabularNB(numeric="kde").fit(X, y).predict_proba(query)
    assert np.all(np.isfinite(p)) and np.allclose(p.sum(axis=1), 1.0)


@pytest.mark.parametrize("kernel", [False, True], ids=["estimator", "kernel"])
def test_uniform_class_prior_is_over_the_classes_with_rows(tmp_path, kernel):
    """``class_prior="uniform"`` (train --uniform-prior) shares the prior among the classes
    with training rows: a declared class (``class_values``, an ARFF header's) that no row
    has gets none and is never predicted, however the counts came (fit, partial_fit,
    merge, a model file). The CLI gave ``[1/5] * 5`` over heart-c's 5 declared classes,
    2 with rows: predict chose an empty class for 20 rows."""
    from textnb.naive_bayes.tabular_kernel import TabularKernel

    cls = TabularKernel if kernel else TabularNB
    atts = (Attribute("x", "nominal", ["p", "q", "r"]),)
    X, y = [[0], [0], [0], [2], [1], [1]], ["a", "a", "a", "a", "b", "b"]

    def uniform(**kw):
        return cls(attributes=atts, class_prior="uniform", **kw)

    m = uniform(class_values=("a", "b", "c")).fit(X, y)
    assert list(m.classes_) == ["a", "b", "c"]
    assert np.allclose(np.exp(m.class_log_prior_), [0.5, 0.5, 0.0])
    assert list(m.predict([[0], [1], [2]])) == ["a", "b", "a"]  # x=r: 1/3 under c's empty counts
    m.save(tmp_path / "u.tnb")
    back = load(tmp_path / "u.tnb")
    assert back.class_prior == "uniform" and np.allclose(back.predict_proba([[2]]), m.predict_proba([[2]]))
    inc = uniform().partial_fit(X[:4], y[:4], classes=["a", "b", "c"])
    assert np.allclose(np.exp(inc.class_log_prior_), [1.0, 0.0, 0.0])
    inc.partial_fit(X[4:], y[4:])
    assert np.allclose(np.exp(inc.class_log_prior_), [0.5, 0.5, 0.0])
    merged = uniform().fit(X, y).merge(uniform().fit([[2]], ["c"]))
    assert np.allclose(np.exp(merged.class_log_prior_), [1 / 3] * 3)
    with pytest.raises(ValueError, match="class_prior"):
        cls(attributes=atts, class_prior="even").fit(X, y)


def test_a_model_file_with_the_old_uniform_prior_list_still_loads(tmp_path):
    """Model files of --uniform-prior before class_prior="uniform" hold the list the CLI
    computed ([1/n] * n over the declared classes): they load, and predict as they did."""
    atts = (Attribute("x", "nominal", ["p", "q", "r"]),)
    old = TabularNB(attributes=atts, class_prior=[1 / 3] * 3, class_values=("a", "b", "c"))
    old.fit([[0], [0], [0], [2], [1], [1]], ["a", "a", "a", "a", "b", "b"]).save(tmp_path / "old.tnb")
    back = load(tmp_path / "old.tnb")
    assert back.class_prior == [1 / 3] * 3 and list(back.predict([[2]])) == ["c"]
