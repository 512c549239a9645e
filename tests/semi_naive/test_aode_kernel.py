"""AODE's kernel (textnb.semi_naive.aode_kernel): the same model as the estimator without
scikit-learn; ``textnb train --model aode`` / ``predict`` use it."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from textnb.io.tables import Attribute
from textnb.semi_naive.aode import AODE
from textnb.semi_naive.aode_kernel import AODEKernel
from conftest import assert_kernel_is_the_estimator

REPO = Path(__file__).resolve().parents[2]
WEATHER = REPO / "corpora" / "weather.numeric.arff"
ENV = dict(os.environ, PYTHONPATH=str(REPO), OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
ATTS = (Attribute("a", "nominal", ["x", "y", "z"]), Attribute("b", "nominal", ["p", "q"]),
        Attribute("t", "numeric", []), Attribute("c", "nominal", ["u", "v", "w", "s"]))


def _table(seed=0, n=80):
    rng = np.random.default_rng(seed)
    y = rng.choice(["k", "l", "m"], n)
    X = np.column_stack([rng.integers(0, 3, n), (y == "k") | (rng.uniform(0, 1, n) < 0.3),
                         rng.normal((y == "l") * 2.0, 1.0), rng.integers(0, 4, n)]).astype(float)
    X[rng.uniform(0, 1, X.shape) < 0.1] = np.nan
    return X, y


def test_defaults_are_the_estimators():
    assert dict(AODEKernel.defaults) == AODE().get_params()


@pytest.mark.parametrize("params", [{}, {"m": 2.0}, {"frequency_limit": 5}])
def test_kernel_and_estimator_write_the_same_file_and_scores(tmp_path, params):
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


@pytest.mark.skipif(not WEATHER.exists(), reason="bundled weather table missing")
def test_cli_train_and_predict_aode_import_no_sklearn(tmp_path):
    code = ("import sys, io\n"
            "from textnb.cli.commands import main\n"
            "out = io.StringIO()\n"
            "rc = main(sys.argv[1:], stdout=out, stderr=io.StringIO())\n"
            "print(rc, 'sklearn' in sys.modules)\n"
            "print(out.getvalue(), end='')\n")
    model = tmp_path / "w.tnb"
    for args in (["train", WEATHER, "--model", "aode", "-o", model], ["predict", model, WEATHER]):
        proc = subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True,
                              env=ENV, timeout=300)
        assert proc.returncode == 0, proc.stderr
        status, out = proc.stdout.split("\n", 1)
        assert status == "0 False"
    assert len(out.splitlines()) == 14  # one line per row
