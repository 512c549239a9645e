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
from conftest import assert_kernel_is_the_estimator, cli, cli_subprocess, one_error_line

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


def test_a_model_that_would_not_load_is_not_written(tmp_path):
    """The kernel's file is checked as load checks the estimator's: an all-missing column
    with ``--missing mode`` has no mode, one line, nothing written."""
    table = tmp_path / "t.arff"
    table.write_text("@relation t\n@attribute a {x,y}\n@attribute b {p,q}\n@attribute class {k,l}\n@data\n"
                     + "".join(f"{'xy'[i % 2]},?,{'kl'[i % 3 == 0]}\n" for i in range(12)))
    rc, _, err = cli("train", table, "--model", "tan", "--missing", "mode", "-o", tmp_path / "m.tnb")
    assert rc == 1
    one_error_line(err, "modes_", "not written")
    assert not (tmp_path / "m.tnb").exists()


@pytest.mark.skipif(not WEATHER.exists(), reason="bundled weather table missing")
@pytest.mark.parametrize("model, name", [("aode", "AODE"), ("tan", "TAN")])
def test_cli_train_and_predict_import_no_sklearn(tmp_path, model, name):
    path = tmp_path / "w.tnb"
    status, out = cli_subprocess("train", WEATHER, "--model", model, "-o", path)
    assert status == "0 False" and f"model: {name} ->" in out
    status, out = cli_subprocess("predict", path, WEATHER)
    assert status.startswith("0 False") and len(out.splitlines()) == 14  # one line per row


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
    status, out = cli_subprocess("train", WEATHER, "--lazy", lazy, "-o", path)
    assert status.startswith("0 False") and "model: LBR on mdl-discretised attributes ->" in out
    status, out = cli_subprocess("predict", path, WEATHER)
    assert status.startswith("0 False") and len(out.splitlines()) == 14  # one line per row
    status, out = cli_subprocess("predict", path, WEATHER, "--explain")  # the estimator's path
    assert status.startswith("0 True") and "local NB on" in out


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
