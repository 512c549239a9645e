"""``n_jobs=0`` has no meaning (joblib, scikit-learn): every estimator with ``n_jobs`` refuses it
at fit in one line, from the one parameter schema (``N_JOBS``); a model file of an earlier
version holding 0 still loads, as 1."""

import numpy as np
import pytest

import textnb
from conftest import read_model_file, write_model_file
from textnb.core.errors import ParameterError
from textnb.semi_naive.lbr_text import LazyTextNB

COUNTS = np.array([[1, 0, 2], [0, 3, 1], [2, 1, 0], [0, 2, 2]] * 5)
NOMINAL = np.array([[0, 1], [1, 0], [0, 0], [1, 1]] * 5)
DOCS = ["spam offer now", "hello friend", "win money now", "see you later"] * 5
LABELS = np.array(["a", "b", "a", "b"] * 5)


@pytest.mark.parametrize("make, X", [
    (lambda n: textnb.DiscriminativeNB(n_jobs=n), COUNTS),
    (lambda n: textnb.TextClassifier(n_jobs=n), DOCS),
    (lambda n: textnb.LBR(n_jobs=n), NOMINAL),
    (lambda n: LazyTextNB(n_jobs=n), COUNTS),
], ids=["DiscriminativeNB", "TextClassifier", "LBR", "LazyTextNB"])
def test_n_jobs_0_is_refused_at_fit_by_every_estimator(make, X):
    # before: DiscriminativeNB and TextClassifier took 0 as 1; LBR and LazyTextNB fitted and then
    # failed at predict with joblib's "n_jobs == 0 in Parallel has no meaning"
    with pytest.raises(ParameterError, match=r"^n_jobs must be .*0 has no meaning\); got 0$"):
        make(0).fit(X, LABELS)
    make(-1).fit(X, LABELS).predict(X)  # every CPU, and None, stay
    make(None).fit(X, LABELS).predict(X)


def _set_n_jobs(path, value):
    """Rewrite the model file's n_jobs parameter (as an earlier version could write it)."""
    header, arrays = read_model_file(path)

    def walk(node):
        if isinstance(node, dict):
            if "n_jobs" in node:
                node["n_jobs"] = value
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(header)
    write_model_file(path, header, arrays)


@pytest.mark.parametrize("make, X", [
    (lambda: textnb.LBR(n_jobs=2), NOMINAL),
    (lambda: LazyTextNB(n_jobs=2), COUNTS),
], ids=["LBR", "LazyTextNB"])
def test_a_model_file_holding_n_jobs_0_still_loads_as_1(tmp_path, make, X):
    # (the models that store n_jobs; DiscriminativeNB and TextClassifier do not store it)
    path = tmp_path / "m.tnb"
    model = make().fit(X, LABELS)
    model.save(path)
    _set_n_jobs(path, 0)
    back = textnb.load(path)
    assert back.n_jobs == 1
    np.testing.assert_array_equal(back.predict(X), model.predict(X))
    back.fit(X, LABELS)  # and it can be refitted
