"""The kernels of the semi-naive table models (AODE: textnb.semi_naive.aode_kernel; TAN and
BayesNetClassifier: textnb.semi_naive.bayesnet_kernel): the same models as the estimators
without scikit-learn; ``textnb train --model aode/tan/bn`` and ``predict`` use them."""

from pathlib import Path

import numpy as np
import pytest

from textnb.io.tables import Attribute
from textnb.semi_naive.aode import AODE
from textnb.semi_naive.aode_kernel import AODEKernel
from textnb.semi_naive.bayesnet import TAN, BayesNetClassifier
from textnb.semi_naive.bayesnet_kernel import BayesNetKernel, TANKernel
from conftest import assert_kernel_is_the_estimator, cli, cli_subprocess, cli_subprocesses, one_error_line, quick_first

REPO = Path(__file__).resolve().parents[2]
WEATHER = REPO / "corpora" / "weather.numeric.arff"
ATTS = (Attribute("a", "nominal", ["x", "y", "z"]), Attribute("b", "nominal", ["p", "q"]),
        Attribute("t", "numeric", []), Attribute("c", "nominal", ["u", "v", "w", "s"]))


def _table(seed=0, n=80):
    rng = np.random.default_rng(seed)
    y = rng.choice(["k", "l", "m"], n)
    X = np.column_stack([rng.integers(0, 3, n), (y == "k") | (rng.uniform(0, 1, n) < 0.3),
                         rng.normal((y == "l") * 2.0, 1.0), rng.integers(0, 4, n)]).astype(float)
    X[rng.uniform(0, 1, X.shape) < 0.1] = np.nan
    return X, y


def test_aode_defaults_are_the_estimators():
    assert dict(AODEKernel.defaults) == AODE().get_params()


@pytest.mark.parametrize("params", [{}, {"m": 2.0}, {"frequency_limit": 5}])
def test_aode_kernel_and_estimator_write_the_same_file_and_scores(tmp_path, params):
    X, y = _table()
    w = np.linspace(0.5, 2.0, len(y))
    est = AODE(attributes=ATTS, **params).fit(X, y, sample_weight=w)
    ker = AODEKernel(attributes=ATTS, **params).fit(X, y, sample_weight=w)
    Xt, _ = _table(seed=1, n=30)
    assert_kernel_is_the_estimator(ker, est, Xt, tmp_path)
    a = AODEKernel(attributes=ATTS, **params).partial_fit(X[:40], y[:40], classes=["k", "l", "m"])
    a.partial_fit(X[40:], y[40:])
    e = AODE(attributes=ATTS, **params).partial_fit(X[:40], y[:40], classes=["k", "l", "m"]).partial_fit(X[40:], y[40:])
    np.testing.assert_array_equal(a.predict_joint_log_proba(Xt), e.predict_joint_log_proba(Xt))


def test_input_errors_name_the_model():
    with pytest.raises(ValueError, match="Negative values in data passed to AODE"):
        AODEKernel().fit([[0.0], [-1.0]], ["a", "b"])
    with pytest.raises(ValueError, match="X has 2 features, but AODE is expecting 4"):
        AODEKernel(attributes=ATTS).fit(*_table()).predict(np.zeros((1, 2)))


def test_network_defaults_are_the_estimators():
    assert dict(TANKernel.defaults) == TAN().get_params()
    assert dict(BayesNetKernel.defaults) == BayesNetClassifier().get_params()


@pytest.mark.parametrize("kernel, estimator, params", [
    (TANKernel, TAN, {}), (TANKernel, TAN, {"m": 2.0, "missing": "mode", "root": "c"}),
    (BayesNetKernel, BayesNetClassifier, {"parents": {"b": ["class", "a"], "c": ["t"]}, "alpha": 0.5}),
])
def test_network_kernels_and_estimators_write_the_same_file_and_scores(tmp_path, kernel, estimator, params):
    X, y = _table()
    w = np.linspace(0.5, 2.0, len(y))
    common = dict(attributes=ATTS, numeric="mdl", **params)
    est = estimator(**common).fit(X, y, sample_weight=w)
    ker = kernel(**common).fit(X, y, sample_weight=w)
    assert ker.structure_text() == est.structure_text()
    assert_kernel_is_the_estimator(ker, est, _table(seed=1, n=30)[0], tmp_path)


def test_a_model_that_would_not_load_is_not_written(tmp_path, monkeypatch):
    """The kernel's file is checked as load checks the estimator's: a fitted table that a
    model file may not hold (a NaN mode, as an all-missing column with ``--missing mode``
    had before it got its first value, as Weka's) is one line, nothing written."""
    table = tmp_path / "t.arff"
    table.write_text("@relation t\n@attribute a {x,y}\n@attribute b {p,q}\n@attribute class {k,l}\n@data\n"
                     + "".join(f"{'xy'[i % 2]},?,{'kl'[i % 3 == 0]}\n" for i in range(12)))
    rc, _, err = cli("train", table, "--model", "tan", "--missing", "mode", "-o", tmp_path / "ok.tnb")
    assert rc == 0 and (tmp_path / "ok.tnb").exists(), err  # the all-missing column's mode: its first value
    from textnb.semi_naive import bayesnet_kernel

    real = bayesnet_kernel._BaseBayesNetKernel._modes
    monkeypatch.setattr(bayesnet_kernel._BaseBayesNetKernel, "_modes",
                        lambda self, X, w: np.where(np.arange(X.shape[1]) == 1, np.nan, real(self, X, w)))
    rc, _, err = cli("train", table, "--model", "tan", "--missing", "mode", "-o", tmp_path / "m.tnb")
    assert rc == 1
    one_error_line(err, "modes_", "not written")
    assert not (tmp_path / "m.tnb").exists()


@pytest.mark.skipif(not WEATHER.exists(), reason="bundled weather table missing")
@pytest.mark.parametrize("model, name", [("aode", "AODE"), ("tan", "TAN")])
def test_cli_train_and_predict_import_no_sklearn(tmp_path, model, name):
    path = tmp_path / "w.tnb"
    (status, out), (status2, out2) = cli_subprocesses(("train", WEATHER, "--model", model, "-o", path),
                                                      ("predict", path, WEATHER))
    assert status == "0 False" and f"model: {name} ->" in out
    assert status2.startswith("0 False") and len(out2.splitlines()) == 14  # one line per row


def test_lbr_defaults_are_the_estimators():
    from textnb.semi_naive.lbr import LBR
    from textnb.semi_naive.lbr_kernel import LBRKernel

    assert dict(LBRKernel.defaults) == LBR().get_params()


def _nominal_table(seed=0, n=120):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, (n, 5)).astype(float)
    y = np.where((X[:, 0] == X[:, 1]) ^ (rng.uniform(0, 1, n) < 0.15), "k", "l")
    X[rng.uniform(0, 1, X.shape) < 0.05] = np.nan
    return X, y


@pytest.mark.parametrize("params", [{}, {"candidates": "heuristic", "alpha": 0.5}])
def test_lbr_kernel_and_estimator_write_the_same_file_and_scores(tmp_path, params):
    from textnb.semi_naive.lbr import LBR
    from textnb.semi_naive.lbr_kernel import LBRKernel

    X, y = _nominal_table()
    kw = dict(attributes=[3] * 5, class_values=["l", "k"])
    est = LBR(**params).fit(X, y, **kw)
    ker = LBRKernel(**params).fit(X, y, **kw)
    Xt = _nominal_table(seed=1, n=40)[0]
    assert_kernel_is_the_estimator(ker, est, Xt, tmp_path)
    assert ker.predict_explain(Xt)[1] == est.predict_explain(Xt)[1]


def test_discretized_kernel_over_lbr_is_the_estimator(tmp_path):
    """Discretized(LBR), what ``--lazy`` trains: the kernel over LBR's kernel writes the
    estimator's file byte for byte, and the kernel built from it scores as the estimator."""
    from textnb.naive_bayes.discretized import Discretized
    from textnb.naive_bayes.discretized_kernel import DiscretizedKernel
    from textnb.semi_naive.lbr import LBR
    from textnb.semi_naive.lbr_kernel import LBRKernel
    from textnb.text.scorer import load_for_prediction

    X, y = _table()
    est = Discretized(LBR(candidates="heuristic"), attributes=ATTS, class_values=("k", "l", "m")).fit(X, y)
    ker = DiscretizedKernel(LBRKernel(candidates="heuristic"), attributes=ATTS, class_values=("k", "l", "m")).fit(X, y)
    est.save(tmp_path / "e.tnb")
    ker.save(tmp_path / "k.tnb")
    assert (tmp_path / "e.tnb").read_bytes() == (tmp_path / "k.tnb").read_bytes()
    from_file = load_for_prediction(tmp_path / "e.tnb")
    assert type(from_file) is DiscretizedKernel and type(from_file.estimator_) is LBRKernel
    Xt = _table(seed=1, n=30)[0]
    for model in (ker, from_file):
        assert not hasattr(model, "predict_log_odds") and not hasattr(est, "predict_log_odds")
        for method in ("predict_joint_log_proba", "predict_log_proba", "predict_proba", "predict"):
            np.testing.assert_array_equal(getattr(model, method)(Xt), getattr(est, method)(Xt))
        assert model.predict_explain(Xt)[1] == est.predict_explain(Xt)[1]


@pytest.mark.skipif(not WEATHER.exists(), reason="bundled weather table missing")
@pytest.mark.parametrize("lazy", ["lbr", "hlbr"])
def test_cli_lazy_train_and_predict_import_no_sklearn(tmp_path, lazy):
    path = tmp_path / "w.tnb"
    trained, predicted, explained = cli_subprocesses(("train", WEATHER, "--lazy", lazy, "-o", path),
                                                     ("predict", path, WEATHER),
                                                     ("predict", path, WEATHER, "--explain"))  # the kernels' rules
    name = {"lbr": "LBR", "hlbr": "HLBR"}[lazy]  # (hlbr was named LBR in the summary, HLBR by inspect)
    assert trained[0].startswith("0 False") and f"model: {name} on mdl-discretised attributes ->" in trained[1]
    assert predicted[0].startswith("0 False") and len(predicted[1].splitlines()) == 14  # one line per row
    assert explained[0].startswith("0 False") and "local NB on" in explained[1]


def test_discretized_kernel_default_is_tabular_nb(tmp_path):
    """``Discretized()`` (naive Bayes over the cut table): its kernel holds a TabularKernel,
    writes the same file and is what a reader of that file builds."""
    from textnb.naive_bayes.discretized import Discretized
    from textnb.naive_bayes.discretized_kernel import DiscretizedKernel
    from textnb.naive_bayes.tabular_kernel import TabularKernel
    from textnb.text.scorer import load_for_prediction

    X, y = _table()
    est, ker = Discretized(attributes=ATTS).fit(X, y), DiscretizedKernel(attributes=ATTS).fit(X, y)
    est.save(tmp_path / "e.tnb")
    ker.save(tmp_path / "k.tnb")
    assert (tmp_path / "e.tnb").read_bytes() == (tmp_path / "k.tnb").read_bytes()
    from_file = load_for_prediction(tmp_path / "e.tnb")
    assert type(from_file.estimator_) is TabularKernel
    Xt = _table(seed=1, n=30)[0]
    for model in (ker, from_file):
        np.testing.assert_array_equal(model.predict_proba(Xt), est.predict_proba(Xt))


# -- APNBC (textnb.semi_naive.apnbc_kernel) --------------------------------------------------
def test_apnbc_defaults_are_the_estimators():
    from textnb.semi_naive.apnbc import APNBC
    from textnb.semi_naive.apnbc_kernel import APNBCKernel

    assert dict(APNBCKernel.defaults) == APNBC().get_params(deep=False)


def _apnbc_pair(base):
    """(kernel, estimator) of the base model ``base`` (with ATTS)."""
    from textnb.naive_bayes.discretized import Discretized
    from textnb.naive_bayes.discretized_kernel import DiscretizedKernel
    from textnb.naive_bayes.tabular import TabularNB
    from textnb.naive_bayes.tabular_kernel import TabularKernel
    from textnb.semi_naive.lbr import LBR
    from textnb.semi_naive.lbr_kernel import LBRKernel

    if base == "nb":
        return TabularKernel(attributes=ATTS, alpha=0.5), TabularNB(attributes=ATTS, alpha=0.5)
    if base == "aode":
        return AODEKernel(attributes=ATTS), AODE(attributes=ATTS)
    if base == "tan":
        return TANKernel(attributes=ATTS, numeric="mdl"), TAN(attributes=ATTS, numeric="mdl")
    return (DiscretizedKernel(LBRKernel(candidates="heuristic"), attributes=ATTS, class_values=("k", "l", "m")),
            Discretized(LBR(candidates="heuristic"), attributes=ATTS, class_values=("k", "l", "m")))


@pytest.mark.parametrize("base", ["nb", "aode", "tan", "lbr"])
@pytest.mark.parametrize("params", [{}, {"significance": 1.0},
                                    {"fit_on": "cv", "cv": 3, "random_state": 0, "significance": 1.0}])
def test_apnbc_kernel_and_estimator_write_the_same_file_and_scores(tmp_path, base, params):
    """APNBCKernel over a table kernel learns the estimator's weights (the same search,
    one binomial test), writes its file byte for byte and scores as it does; the file
    reads back as the kernels."""
    from textnb.semi_naive.apnbc import APNBC
    from textnb.semi_naive.apnbc_kernel import APNBCKernel

    X, y = _table(n=120)
    inner_kernel, inner_estimator = _apnbc_pair(base)
    ker = APNBCKernel(inner_kernel, **params).fit(X, y)
    est = APNBC(inner_estimator, **params).fit(X, y)
    np.testing.assert_array_equal(ker.class_log_weight_, est.class_log_weight_)
    assert ker.search_history_ == est.search_history_
    if params.get("significance") == 1.0:
        assert ker.search_history_  # the search accepted a step: the test sees a weight
    assert_kernel_is_the_estimator(ker, est, _table(seed=1, n=30)[0], tmp_path)
    from textnb.text.scorer import load_for_prediction

    assert type(load_for_prediction(tmp_path / "estimator.tnb").estimator_) is type(inner_kernel)


def test_apnbc_kernel_refuses_what_the_estimator_refuses():
    from textnb.naive_bayes.tabular_kernel import TabularKernel
    from textnb.semi_naive.apnbc_kernel import APNBCKernel

    X, y = _table()
    for params, match in (({"significance": 0}, "significance must be"), ({"fit_on": "x"}, "fit_on must be"),
                          ({"cv": 1}, "cv must be at least 2"), ({"epsilon": -1.0}, "epsilon must be")):
        with pytest.raises(ValueError, match=match):
            APNBCKernel(TabularKernel(attributes=ATTS), **params).fit(X, y)
    with pytest.raises(ValueError, match="X has 2 features, but APNBC is expecting 4"):
        APNBCKernel(TabularKernel(attributes=ATTS)).fit(X, y).predict(np.zeros((1, 2)))


@pytest.mark.parametrize("n", [1, 2, 7, 40, 301])
def test_binomial_cdf_is_the_correctly_rounded_sum(n):
    """The binomial test without scipy: the exact rational sum (p as the float's exact
    value), rounded once; scipy's binom.cdf agrees to about 1e-13 relative."""
    from fractions import Fraction
    from math import comb

    from scipy.stats import binom

    from textnb.semi_naive.apnbc_kernel import binomial_cdf

    rng = np.random.default_rng(n)
    for current in sorted({1, n, *rng.integers(1, n + 1, 6).tolist()}):
        p = current / n
        a, b = p.as_integer_ratio()  # (p = a / b exactly: the sum over b**n in integers, one Fraction)
        for k in sorted({0, current - 1, *rng.integers(0, current, 4).tolist()}):
            exact = Fraction(sum(comb(n, j) * a**j * (b - a)**(n - j) for j in range(k + 1)), b**n)
            assert binomial_cdf(k, n, p) == exact.numerator / exact.denominator
            assert binomial_cdf(k, n, p) == pytest.approx(binom.cdf(k, n, p), rel=1e-11, abs=1e-300)
    assert binomial_cdf(-1, n, 0.5) == 0.0 and binomial_cdf(n, n, 0.5) == 1.0
    assert binomial_cdf(3, 5000, 0.9) == 0.0  # below the smallest float, as scipy's


@pytest.mark.skipif(not WEATHER.exists(), reason="bundled weather table missing")
@pytest.mark.parametrize("extra", quick_first([(), ("--model", "aode"), ("--model", "tan"), ("--lazy", "hlbr")], keep=2))
def test_cli_adjust_train_and_predict_import_no_sklearn(tmp_path, extra):
    path = tmp_path / "w.tnb"
    trained, predicted = cli_subprocesses(("train", WEATHER, "--adjust", "--significance", "1", *extra, "-o", path),
                                          ("predict", path, WEATHER, "--proba"))
    assert trained[0].startswith("0 False") and "model: APNBC(" in trained[1]
    assert predicted[0].startswith("0 False") and len(predicted[1].splitlines()) == 14  # one line per row


def _write_arff(path, X, y):
    """The table ``X, y`` (ATTS, classes k l m) as an ARFF file."""
    lines = ["@relation t"]
    for a in ATTS:
        lines.append(f"@attribute {a.name} " + ("numeric" if a.kind == "numeric" else "{" + ",".join(a.values) + "}"))
    lines += ["@attribute class {k,l,m}", "@data"]
    for row, label in zip(X, y):
        cells = ["?" if np.isnan(v) else (repr(float(v)) if a.kind == "numeric" else a.values[int(v)])
                 for a, v in zip(ATTS, row)]
        lines.append(",".join(cells + [str(label)]))
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("extra, base", [((), "nb"), (("--model", "aode"), "aode")])
def test_cli_adjust_file_is_the_estimators(tmp_path, extra, base):
    """``textnb train TABLE --adjust`` (the kernels) writes the file the APNBC estimator
    around the table model writes, byte for byte, and predicts as it does."""
    from textnb.io.tables import read_table
    from textnb.naive_bayes.tabular import TabularNB
    from textnb.semi_naive.apnbc import APNBC

    _write_arff(tmp_path / "t.arff", *_table(n=150))
    assert cli("train", tmp_path / "t.arff", "--adjust", "--significance", "1", *extra,
               "-o", tmp_path / "cli.tnb")[0] == 0
    table = read_table(tmp_path / "t.arff")
    inner = TabularNB if base == "nb" else AODE
    est = APNBC(inner(attributes=tuple(table.attributes), class_values=table.classes),
                significance=1.0).fit(table.X, table.y)
    assert est.search_history_
    est.save(tmp_path / "est.tnb")
    assert (tmp_path / "cli.tnb").read_bytes() == (tmp_path / "est.tnb").read_bytes()
    status, out = cli_subprocess("predict", tmp_path / "cli.tnb", tmp_path / "t.arff", "--proba")
    assert status.startswith("0 False")
    assert out == cli("predict", tmp_path / "est.tnb", tmp_path / "t.arff", "--proba")[1]
