"""NBU (Qin, Xia & Li): uncertain attributes in TabularNB, the cell syntax, the CLI."""

import io
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import logsumexp, ndtr
from scipy.stats import norm

from textnb.io.arff import read_arff, write_arff
from textnb.cli.commands import main
from textnb.core.errors import DataWarning, InputError
from textnb.core.model_io import load
from textnb.io.tables import Attribute, encode_like, read_table
from textnb.naive_bayes.tabular import TabularNB
from textnb.io.uncertain import (
    column_slices,
    log_interval_mass,
    make_uncertain,
    parse_distribution,
    parse_interval,
    to_certain,
)

UCI = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "uci"
COLOURS = ["red", "blue", "green"]
PLAIN = (Attribute("a", "numeric"), Attribute("b", "nominal", COLOURS), Attribute("c", "numeric"))
UNCERTAIN = (
    Attribute("a", "uncertain-numeric"),
    Attribute("b", "uncertain-nominal", COLOURS),
    Attribute("c", "numeric"),
)


def certain_data(n=150, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.choice(["p", "q", "r"], n)
    a = rng.normal(size=n) + (y == "p")
    b = np.where(y == "q", rng.integers(0, 2, n), rng.integers(0, 3, n)).astype(float)
    c = rng.normal(size=n) * 3 - (y == "r")
    a[[3, 9]] = np.nan
    b[[4, 9]] = np.nan
    return np.column_stack([a, b, c]), y, rng.random(n) + 0.1


def as_uncertain(X):
    """The certain table in the uncertain representation: L = R, one-hot vectors."""
    n = X.shape[0]
    P = np.full((n, 3), np.nan)
    known = ~np.isnan(X[:, 1])
    P[known] = 0.0
    P[np.flatnonzero(known), X[known, 1].astype(int)] = 1.0
    return np.column_stack([X[:, 0], X[:, 0], P, X[:, 2]])


def noisy(X, seed=1):
    """Make the uncertain representation really uncertain (wider intervals, spread vectors)."""
    rng = np.random.default_rng(seed)
    Xu = as_uncertain(X)
    Xu[:, 0] -= rng.random(len(Xu))
    Xu[:, 1] += rng.random(len(Xu))
    rows = np.flatnonzero(~np.isnan(Xu[:, 2]))[::2]
    p = rng.dirichlet(np.ones(3), rows.size)
    Xu[rows, 2:5] = p / p.sum(axis=1, keepdims=True)
    return Xu


# -- certain data: exactly plain naive Bayes -----------------------------------------------
@pytest.mark.parametrize("nominal", ["additive", "m-estimate"])
def test_certain_data_equals_plain_nb_exactly(nominal):
    X, y, w = certain_data()
    plain = TabularNB(attributes=PLAIN, nominal=nominal).fit(X, y, sample_weight=w)
    nbu = TabularNB(attributes=UNCERTAIN, nominal=nominal).fit(as_uncertain(X), y, sample_weight=w)
    np.testing.assert_array_equal(nbu.feature_count_, plain.feature_count_)
    np.testing.assert_array_equal(nbu.var_, plain.var_)
    np.testing.assert_array_equal(nbu.theta_, plain.theta_)
    np.testing.assert_array_equal(
        nbu.predict_joint_log_proba(as_uncertain(X)), plain.predict_joint_log_proba(X)
    )


def test_certain_data_equals_plain_nb_through_files(tmp_path):
    """A CSV whose uncertain columns hold only points / one-hot vectors: same predictions."""
    X, y, _ = certain_data(60)
    rows = ["a,b,c,class"]
    for (a, b, c), label in zip(X.tolist(), y):
        ta = "" if np.isnan(a) else f'"[{a!r},{a!r}]"'
        tb = "" if np.isnan(b) else f'"{{{COLOURS[int(b)]}:1}}"'
        rows.append(f"{ta},{tb},{c!r},{label}")
    (tmp_path / "u.csv").write_text("\n".join(rows) + "\n")
    t = read_table(tmp_path / "u.csv")
    assert [a.kind for a in t.attributes] == ["uncertain-numeric", "uncertain-nominal", "numeric"]
    nbu = TabularNB(attributes=tuple(t.attributes)).fit(t.X, t.y)
    order = [COLOURS.index(v) for v in t.attributes[1].values]  # file order of the values
    Xp = X.copy()
    known = ~np.isnan(X[:, 1])
    Xp[known, 1] = np.argsort(order)[X[known, 1].astype(int)]
    plain = TabularNB(attributes=(PLAIN[0], Attribute("b", "nominal", t.attributes[1].values), PLAIN[2]))
    plain.fit(Xp, y)
    np.testing.assert_array_equal(nbu.predict_joint_log_proba(t.X), plain.predict_joint_log_proba(Xp))


# -- the estimates: Theorem 1 and probabilistic cardinalities -------------------------------
def test_theorem1_estimates():
    L = np.array([1.0, 2.0, 2.5, 4.0, 10.0, 11.0, 13.0])
    R = np.array([2.0, 3.5, 3.0, 6.0, 10.0, 12.0, 13.5])
    y = np.array(["a", "a", "a", "a", "b", "b", "b"])
    w = np.array([1.0, 2.0, 1.0, 0.5, 1.0, 1.0, 3.0])
    m = TabularNB(attributes=(Attribute("x", "uncertain-numeric"),), var_smoothing=0.0, interval_fit="theorem1")
    m.fit(np.column_stack([L, R]), y, sample_weight=w)
    for ci, c in enumerate("ab"):
        s, d, wc = (L + R)[y == c], (R - L)[y == c], w[y == c]
        mean_s = np.average(s, weights=wc)
        var_s = np.sum(wc * (s - mean_s) ** 2) / (wc.sum() - 1)
        var_d = np.sum(wc * (d - np.average(d, weights=wc)) ** 2) / (wc.sum() - 1)
        assert m.theta_[ci, 0] == pytest.approx(mean_s / 2)
        assert m.var_[ci, 0] == pytest.approx((var_s - var_d) / 4)


def test_theorem1_negative_variance_falls_back():
    """Equal midpoints, varying widths: Var(L+R) - Var(R-L) < 0 -> pooled variance, finite."""
    L = np.array([4.0, 3.0, 2.0, 4.5, 14.0, 13.0, 12.5, 14.5])
    R = np.array([6.0, 7.0, 8.0, 5.5, 16.0, 17.0, 17.5, 15.5])
    y = np.array(list("aaaabbbb"))
    m = TabularNB(attributes=(Attribute("x", "uncertain-numeric"),), interval_fit="theorem1")
    m.fit(np.column_stack([L, R]), y)
    assert np.all(np.isfinite(m.var_)) and np.all(m.var_ > 0)
    mid = (L + R) / 2
    assert m.var_[0, 0] == pytest.approx(np.var(mid, ddof=1) - np.var((R - L) / 2, ddof=1), rel=1e-6) \
        or m.var_[0, 0] == pytest.approx(np.var(mid, ddof=1), rel=1e-6)
    assert np.all(np.isfinite(m.predict_joint_log_proba(np.column_stack([L, R]))))


def test_probabilistic_cardinality():
    P = np.array([[0.7, 0.3, 0.0], [0.0, 1.0, 0.0], [0.2, 0.5, 0.3], [1 / 3, 1 / 3, 1 / 3]])
    y = np.array(["x", "x", "z", "z"])
    w = np.array([2.0, 1.0, 1.0, 3.0])
    m = TabularNB(attributes=(Attribute("b", "uncertain-nominal", COLOURS),), alpha=0.0).fit(P, y, sample_weight=w)
    np.testing.assert_allclose(m.feature_count_[0], 2 * P[0] + P[1])
    np.testing.assert_allclose(m.feature_count_[1], P[2] + 3 * P[3])
    np.testing.assert_allclose(np.exp(m.feature_log_prob_[0]), (2 * P[0] + P[1]) / 3, atol=1e-300)
    np.testing.assert_allclose(m.class_count_, [3.0, 4.0])


# -- prediction ------------------------------------------------------------------------------
def test_prediction_expected_likelihood_and_interval_mass():
    X, y, w = certain_data()
    m = TabularNB(attributes=UNCERTAIN, interval_fit="theorem1").fit(noisy(X), y, sample_weight=w)
    q = np.array([[0.2, 1.1, 0.1, 0.6, 0.3, 2.0], [0.5, 0.5, 0.0, 0.0, 1.0, -1.0]])
    jll = m.predict_joint_log_proba(q)
    flp = m.feature_log_prob_  # one block: the colours
    for r in range(2):
        for ci in range(3):
            mu, sd = m.theta_[ci], np.sqrt(m.var_[ci])
            a_term = (np.log(ndtr((q[r, 1] - mu[0]) / sd[0]) - ndtr((q[r, 0] - mu[0]) / sd[0])) if r == 0
                      else norm.logpdf(q[r, 0], mu[0], sd[0]))
            with np.errstate(divide="ignore"):
                b_term = logsumexp(np.log(q[r, 2:5]) + flp[ci])
            c_term = norm.logpdf(q[r, 5], mu[1], sd[1])
            expected = m.class_log_prior_[ci] + a_term + b_term + c_term
            assert jll[r, ci] == pytest.approx(expected, rel=1e-10)


def test_log_interval_mass_tails_and_narrow_intervals():
    np.testing.assert_allclose(log_interval_mass(-1.0, 2.0), np.log(ndtr(2.0) - ndtr(-1.0)))
    # far upper tail: 1 - Φ(40) underflows in the naive form
    far = log_interval_mass(40.0, 41.0)
    assert np.isfinite(far) and far == pytest.approx(norm.logsf(40.0), rel=1e-9)
    far_low = log_interval_mass(-41.0, -40.0)
    assert far_low == pytest.approx(norm.logcdf(-40.0), rel=1e-9)
    # a very narrow interval ≈ width x density
    assert log_interval_mass(0.3, 0.3 + 1e-12) == pytest.approx(np.log(1e-12) + norm.logpdf(0.3), rel=1e-6)
    # the upper tail is reflected: symmetric to the lower one
    assert log_interval_mass(100.0, 100.5) == pytest.approx(log_interval_mass(-100.5, -100.0), rel=1e-15)
    assert np.isfinite(log_interval_mass(1e3, 1e3 + 1e-5))
    assert log_interval_mass(1.0, 1.0) == -np.inf


@settings(max_examples=200, deadline=None)
@given(st.floats(-8, 8), st.floats(1e-3, 10))
def test_log_interval_mass_matches_cdf_difference(a, width):
    b = a + width
    direct = np.log(norm.cdf(b) - norm.cdf(a)) if a <= 0 else np.log(norm.sf(a) - norm.sf(b))
    assert log_interval_mass(a, b) == pytest.approx(direct, rel=1e-9, abs=1e-12)


def test_wider_interval_never_less_likely():
    X, y, _ = certain_data()
    m = TabularNB(attributes=UNCERTAIN).fit(noisy(X), y)
    base = np.array([0.0, 0.5, np.nan, np.nan, np.nan, np.nan])
    wider = base.copy()
    wider[:2] = [-1.0, 1.5]
    assert np.all(m.predict_joint_log_proba(wider[None]) >= m.predict_joint_log_proba(base[None]))


# -- incremental, merge, model files, validation ---------------------------------------------
def test_partial_fit_and_merge_equal_fit(tmp_path):
    X, y, w = certain_data()
    Xu = noisy(X)
    T1 = dict(attributes=UNCERTAIN, interval_fit="theorem1")  # the incremental estimator
    full = TabularNB(**T1).fit(Xu, y, sample_weight=w)
    part = TabularNB(**T1)
    for chunk in np.array_split(np.arange(len(y)), 5):
        part.partial_fit(Xu[chunk], y[chunk], classes=["p", "q", "r"], sample_weight=w[chunk])
    np.testing.assert_allclose(part.predict_joint_log_proba(Xu), full.predict_joint_log_proba(Xu), rtol=1e-9)
    half = len(y) // 2
    a = TabularNB(**T1).fit(Xu[:half], y[:half], sample_weight=w[:half])
    b = TabularNB(**T1).fit(Xu[half:], y[half:], sample_weight=w[half:])
    a.merge(b)
    np.testing.assert_allclose(a.halfwidth_m2_, full.halfwidth_m2_, rtol=1e-9)
    np.testing.assert_allclose(a.predict_joint_log_proba(Xu), full.predict_joint_log_proba(Xu), rtol=1e-9)
    full.save(tmp_path / "u.tnb")
    back = load(tmp_path / "u.tnb")
    assert back.attributes_ == full.attributes_
    np.testing.assert_array_equal(back.predict_joint_log_proba(Xu), full.predict_joint_log_proba(Xu))


def test_invalid_uncertain_arrays():
    X, y, _ = certain_data(30)
    Xu = as_uncertain(X)
    bad = Xu.copy()
    bad[0, :2] = [2.0, 1.0]
    with pytest.raises(ValueError, match="L > R"):
        TabularNB(attributes=UNCERTAIN).fit(bad, y)
    bad = Xu.copy()
    bad[0, 2:5] = [0.5, 0.2, 0.2]
    with pytest.raises(ValueError, match="sum to 1"):
        TabularNB(attributes=UNCERTAIN).fit(bad, y)
    with pytest.raises(ValueError, match="numeric='gaussian'"):
        TabularNB(attributes=UNCERTAIN, numeric="kde").fit(Xu, y)
    with pytest.raises(ValueError, match="describe 6 columns"):
        TabularNB(attributes=UNCERTAIN).fit(X, y)
    m = TabularNB(attributes=UNCERTAIN).fit(Xu, y)
    bad = Xu[:2].copy()
    bad[1, 1] = np.nan  # R missing, L known
    with pytest.raises(ValueError, match="some of its columns"):
        m.predict(bad)


def test_discretising_modes_keep_uncertain_nominal():
    X, y, _ = certain_data()
    atts = (PLAIN[0], UNCERTAIN[1], PLAIN[2])
    Xu = noisy(X)[:, [0, 2, 3, 4, 5]]
    m = TabularNB(attributes=atts, numeric="mdl").fit(Xu, y)
    assert np.all(np.isfinite(m.predict_joint_log_proba(Xu)))
    assert m.describe()["attributes"][1]["model"] == "nominal"


# -- file syntax ------------------------------------------------------------------------------
CSV_TEXT = """temp,colour,size,class
"[3.1,4.2]","{red:0.7,blue:0.3}",1.5,yes
5.0,red,2.5,yes
"[1,2]",blue,0.5,no
?,"{blue:1}",0.7,no
"[4,4.5]",?,2.0,yes
"[0.5,1.5]","{red:0.2,blue:0.5,green:0.3}",0.4,no
"""

ARFF_TEXT = """@relation u
@attribute temp numeric
@attribute colour {red,blue,green}
@attribute size numeric
@attribute class {yes,no}
@data
'[3.1,4.2]',"{red:0.7,blue:0.3}",1.5,yes
5.0,red,2.5,yes
'[1,2]',blue,0.5,no
?,'{blue:1}',0.7,no
'[4,4.5]',?,2.0,yes
'[0.5,1.5]','{red:0.2,blue:0.5,green:0.3}',0.4,no
"""

EXPECTED_X = np.array([
    [3.1, 4.2, 0.7, 0.3, 0.0, 1.5],
    [5.0, 5.0, 1.0, 0.0, 0.0, 2.5],
    [1.0, 2.0, 0.0, 1.0, 0.0, 0.5],
    [np.nan, np.nan, 0.0, 1.0, 0.0, 0.7],
    [4.0, 4.5, np.nan, np.nan, np.nan, 2.0],
    [0.5, 1.5, 0.2, 0.5, 0.3, 0.4],
])


@pytest.mark.parametrize("name,text", [("u.csv", CSV_TEXT), ("u.arff", ARFF_TEXT)])
def test_read_uncertain_files(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    t = read_table(path)
    colours = COLOURS if name.endswith(".arff") else sorted(COLOURS)  # (declared; a CSV's sorted)
    assert [(a.kind, a.values) for a in t.attributes] == [
        ("uncertain-numeric", []), ("uncertain-nominal", colours), ("numeric", [])]
    assert t.has_uncertain and t.X.shape == (6, 6)
    np.testing.assert_array_equal(t.X, EXPECTED_X[:, [0, 1] + [2 + COLOURS.index(c) for c in colours] + [5]])
    assert t.y.tolist() == ["yes", "yes", "no", "no", "yes", "no"]
    m = TabularNB(attributes=tuple(t.attributes)).fit(t.X, t.y)
    q = read_table(path, like=m.attributes_)
    np.testing.assert_array_equal(q.X, t.X)


def test_write_arff_round_trip(tmp_path):
    atts = [Attribute("temp", "uncertain-numeric"), Attribute("colour", "uncertain-nominal", COLOURS),
            Attribute("size", "numeric"), Attribute("class", "nominal", ["yes", "no"])]
    X = np.column_stack([EXPECTED_X, [0, 0, 1, 1, 0, 1]])
    write_arff(tmp_path / "w.arff", atts, X)
    data = read_arff(tmp_path / "w.arff")
    assert data.attributes == atts
    np.testing.assert_array_equal(data.X, X)


def test_query_with_certain_cells_for_uncertain_model(tmp_path):
    (tmp_path / "u.csv").write_text(CSV_TEXT)
    t = read_table(tmp_path / "u.csv")
    m = TabularNB(attributes=tuple(t.attributes)).fit(t.X, t.y)
    (tmp_path / "q.arff").write_text(
        "@relation q\n@attribute temp numeric\n@attribute colour {green,red}\n@attribute size numeric\n"
        "@data\n3.5,red,1.0\n?,green,?\n")
    q = read_table(tmp_path / "q.arff", like=m.attributes_)
    assert m.attributes_[1].values == ["blue", "green", "red"]  # (a CSV's values, sorted)
    np.testing.assert_array_equal(q.X, [[3.5, 3.5, 0, 0, 1, 1.0], [np.nan, np.nan, 0, 1, 0, np.nan]])
    with pytest.warns(DataWarning, match=r"<rows>: attribute 'colour': 2 cells with values the model never saw "
                                         r"\('pink', 'purple'\) count as missing"):
        rows = encode_like([["[3,4]", {"red": 0.5, "blue": 0.5}, 1.0], [(3, 4), "purple", "?"],
                            {"temp": 2.0, "colour": "{green:1}"}, ["[3,4]", "{pink:1}", 1.0]], m.attributes_)
    np.testing.assert_array_equal(rows, [[3, 4, 0.5, 0, 0.5, 1.0], [3, 4] + [np.nan] * 4,
                                         [2, 2, 0, 1, 0, np.nan], [3, 4, np.nan, np.nan, np.nan, 1.0]])
    with pytest.raises(InputError, match="unknown category 'purple'"):  # (mass on a value it has too: no reading)
        encode_like([["[3,4]", "{purple:0.5,red:0.5}", 1.0]], m.attributes_)


@pytest.mark.parametrize("suffix", ["csv", "arff"])
def test_a_value_the_model_never_saw_in_an_uncertain_column_counts_as_missing(tmp_path, suffix):
    """A query file's plain value the model never saw, in a column the model holds as
    uncertain nominal: missing, with the one warning a plain nominal column gives. A CSV
    query was refused whole (``row 2: unknown category 'green' in a distribution``, the
    plain cell read as one); an ARFF query took it as missing without a word. The rows
    given to the library follow the same rule (above)."""
    (tmp_path / "train.csv").write_text('t,colour,class\n1,"{red:0.7,blue:0.3}",yes\n2,red,yes\n5,blue,no\n'
                                        '6,"{blue:0.9,red:0.1}",no\n')
    query = {"csv": "t,colour,class\n1,red,yes\n5,green,no\n",
             "arff": "@relation u\n@attribute t numeric\n@attribute colour {red,blue,green}\n"
                     "@attribute class {yes,no}\n@data\n1,red,yes\n5,green,no\n"}[suffix]
    (tmp_path / f"q.{suffix}").write_text(query)
    train = read_table(tmp_path / "train.csv")
    assert train.attributes[1].kind == "uncertain-nominal"
    with pytest.warns(DataWarning, match=r"attribute 'colour': 1 cell with values the model never saw \('green'\) "
                                         r"count as missing"):
        q = read_table(tmp_path / f"q.{suffix}", like=train.attributes)
    assert np.isnan(q.X[1, 1:3]).all() and list(q.X[0, 1:3]) == [0.0, 1.0]


@pytest.mark.parametrize("cell,message", [
    ('"[4.2,3.1]"', "L > R"),
    ('"[1,x]"', "not a number"),
    ('"{red:0.7,blue:0.2}"', "sum to 0.9"),
    ('"{red:0.7,red:0.3}"', "appears twice"),
    ('"{red:1.5,blue:-0.5}"', r"not in \[0, 1\]"),
    ('"{red:0.5,blue:0.5"', "cannot read"),
])
def test_malformed_csv_cells(tmp_path, cell, message):
    good = '"[1,2]"' if cell.startswith('"[') else '"{red:1}"'
    path = tmp_path / "bad.csv"
    path.write_text(f"a,class\n{good},x\n{cell},y\n")
    with pytest.raises(InputError, match=message) as exc:
        read_table(path)
    text = str(exc.value)
    assert "\n" not in text and text.startswith(f"{path}:3: column 'a'")


@pytest.mark.parametrize("cell,message", [
    ("'{red:0.5,pink:0.5}'", "unknown category 'pink'"),
    ("'[3,2]'", "L > R"),
    ("'{red:0.5,blue:0.4}'", "sum to"),
])
def test_malformed_arff_cells(tmp_path, cell, message):
    kind = "{red,blue}" if cell.startswith("'{") else "numeric"
    path = tmp_path / "bad.arff"
    path.write_text(f"@relation r\n@attribute a {kind}\n@attribute c {{x,y}}\n@data\n?,x\n{cell},y\n")
    with pytest.raises(InputError, match=message) as exc:
        read_table(path)
    assert str(exc.value).startswith(f"{path}:6: attribute 'a'")


def test_cell_parsers():
    assert parse_interval(" [ -1.5 , 2e3 ] ") == (-1.5, 2000.0)
    assert parse_distribution("{a:0.25, b:0.75}") == {"a": 0.25, "b": 0.75}
    d = parse_distribution("{a:0.3333333,b:0.6666667}")
    assert sum(d.values()) == pytest.approx(1.0, abs=1e-15)
    with pytest.raises(ValueError, match="unknown category"):
        parse_distribution("{a:1}", values=["b"])


# -- the paper's protocol ----------------------------------------------------------------------
def test_make_uncertain_protocol():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=500), rng.integers(0, 4, 500).astype(float)])
    X[0] = np.nan
    atts = [Attribute("x", "numeric"), Attribute("v", "nominal", list("abcd"))]
    X0, a0 = make_uncertain(X, atts, 0.0, rng)
    back, _ = to_certain(X0, a0)
    np.testing.assert_array_equal(back, X)
    Xu, au = make_uncertain(X, atts, 1.0, rng, p=0.4)
    sl = column_slices(au)
    lo, hi = Xu[1:, 0], Xu[1:, 1]
    assert np.all(lo <= X[1:, 0]) and np.all(X[1:, 0] <= hi)
    assert lo.min() >= np.nanmin(X[:, 0]) and hi.max() <= np.nanmax(X[:, 0])
    P = Xu[1:, sl[1]]
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_allclose(P[np.arange(499), X[1:, 1].astype(int)], 0.4)
    Xh, _ = make_uncertain(X, atts, 0.5, rng)
    frac = np.mean(Xh[1:, sl[1]].max(axis=1) < 1.0)
    assert 0.4 < frac < 0.6


# -- the command line --------------------------------------------------------------------------
def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = main([str(a) for a in argv], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_cli_train_predict_evaluate_uncertain_csv(tmp_path):
    rng = np.random.default_rng(3)
    rows = ["temp,colour,size,class"]
    for i in range(45):
        c = "yes" if i % 2 else "no"
        t, h = rng.normal(5 if c == "yes" else 3), rng.random()
        col = rng.choice(COLOURS, p=[0.6, 0.3, 0.1] if c == "yes" else [0.1, 0.3, 0.6])
        cell = f'"{{{col}:0.6,{[v for v in COLOURS if v != col][0]}:0.4}}"' if i % 3 else col
        rows.append(f'"[{t - h:.3f},{t + h:.3f}]",{cell},{rng.normal():.3f},{c}')
    data = tmp_path / "u.csv"
    data.write_text("\n".join(rows) + "\n")
    model = tmp_path / "u.tnb"
    code, out, err = run("train", data, "-o", model, "--json")
    assert code == 0, err
    assert json.loads(out)["rows"] == 45
    (tmp_path / "q.csv").write_text(CSV_TEXT)
    code, out, err = run("predict", model, tmp_path / "q.csv", "--json", "--proba")
    assert code == 0, err
    recs = [json.loads(line) for line in out.splitlines()]
    assert len(recs) == 6 and all(r["label"] in ("yes", "no") for r in recs)
    assert all(sum(r["proba"].values()) == pytest.approx(1.0) for r in recs)
    code, out, err = run("evaluate", data, "--cv", "3", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["n"] == 45 and report["accuracy"] > 0.6
    code, out, _ = run("inspect", model)
    assert code == 0 and "uncertain-numeric" in out
    (tmp_path / "bad.csv").write_text('temp,class\n"[2,1]",yes\n"[1,2]",no\n')
    code, _, err = run("train", tmp_path / "bad.csv", "--class", "class", "-o", tmp_path / "x.tnb")
    assert code == 1 and "bad.csv:2: column 'temp'" in err and err.count("\n") == 1


def test_uci_iris_nbu_at_u0_equals_nb():
    path = UCI / "iris.arff"
    if not path.exists():
        pytest.skip(f"{path} is not available")
    t = read_table(path)
    Xu, au = make_uncertain(t.X, t.attributes, 0.0, np.random.default_rng(0))
    plain = TabularNB(attributes=tuple(t.attributes)).fit(t.X, t.y)
    nbu = TabularNB(attributes=tuple(au)).fit(Xu, t.y)
    np.testing.assert_array_equal(nbu.predict_joint_log_proba(Xu), plain.predict_joint_log_proba(t.X))


def test_intervals_far_beyond_every_class_give_finite_scores_and_no_numpy_warning(tmp_path):
    """Query intervals ~1e200 to 1e308 deviations out (``[1e300,1e301]``, ``[-1e301,-1e300]``,
    ``[-1e308,1e308]``): ``log_interval_mass`` is finite (the tail at the nearer bound,
    capped as a point's distance is), so ``predict`` gives probabilities as for the point
    1e300 (uniform here), with both ``interval_fit`` estimators, and prints no numpy warning
    (before: ``overflow encountered in divide`` / ``invalid value encountered in subtract``
    lines, then ``the model gives NaN scores (its parameters are inconsistent)``, exit 1)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = log_interval_mass(np.array([3e300, -3e301, -np.inf, 1e150, 2.0]),
                              np.array([3e301, -3e300, np.inf, 1e160, 1e300]))
    assert np.all(np.isfinite(m)) and m[2] == 0.0 and m[0] == m[1] < -1e307
    assert m[3] > m[0] and m[4] == pytest.approx(np.log(norm.sf(2.0)))
    train = tmp_path / "train.csv"
    train.write_text("x,y,class\n\"[1,2]\",1,a\n1.5,2,a\n\"[2,3]\",1,a\n\"[8,9]\",5,b\n9,6,b\n\"[9.5,10]\",5,b\n")
    query = tmp_path / "q.csv"
    query.write_text("x,y,class\n\"[1e300,1e301]\",3,a\n\"[-1e301,-1e300]\",3,b\n\"[-1e308,1e308]\",1,a\n1e300,3,a\n")
    for fit in ("censored", "theorem1"):
        model = tmp_path / f"{fit}.tnb"
        assert main(["train", str(train), "-o", str(model), "--interval-fit", fit]) == 0
        out, err = io.StringIO(), io.StringIO()
        code = main(["predict", str(model), str(query), "--proba", "--json"], stdout=out, stderr=err)
        assert code == 0 and "warning" not in err.getvalue() and "NaN" not in err.getvalue(), err.getvalue()
        rows = [json.loads(line)["proba"] for line in out.getvalue().splitlines()]
        assert rows[0] == rows[1] == rows[3] and rows[0]["a"] == pytest.approx(0.5)
        assert rows[2]["a"] > 0.99  # the whole line: the certain y = 1 decides
