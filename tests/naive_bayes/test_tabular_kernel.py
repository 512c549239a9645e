"""TabularNB's kernel (textnb.naive_bayes.tabular_kernel): the same model as the estimator
without scikit-learn; ``textnb train`` / ``predict`` on a table use it."""

from pathlib import Path

import numpy as np
import pytest

from textnb.core.errors import ModelFileError
from textnb.core.model_io import build, load, read_nodes, save
from textnb.io.tables import Attribute, read_table
from textnb.naive_bayes.tabular import TabularNB
from textnb.naive_bayes.tabular_kernel import TabularKernel
from textnb.text.scorer import load_for_prediction
from conftest import assert_kernel_is_the_estimator, cli_subprocess, cli_subprocesses

REPO = Path(__file__).resolve().parents[2]
WEATHER = REPO / "corpora" / "weather.numeric.arff"

_ATTS = (Attribute("colour", "nominal", ["red", "green", "blue"]), Attribute("size", "numeric", []),
         Attribute("span", "uncertain-numeric", []), Attribute("shape", "uncertain-nominal", ["round", "flat"]),
         Attribute("weight", "numeric", []))


def _table(seed=0, n=60):
    """Rows of every attribute kind, with missing cells, intervals and distributions."""
    rng = np.random.default_rng(seed)
    y = rng.choice(["a", "b", "c"], n)
    shift = (y == "a") * 1.0 + (y == "c") * -1.5
    lo = rng.normal(shift, 1.0)
    p = rng.uniform(0, 1, n)
    X = np.column_stack([rng.integers(0, 3, n).astype(float), rng.normal(2 * shift, 1.0),
                         lo, lo + rng.uniform(0, 1, n) * (rng.uniform(0, 1, n) < 0.5),
                         p, 1 - p, rng.exponential(1 + shift ** 2)])
    X[rng.uniform(0, 1, X.shape) < 0.1] = np.nan
    X[:, 3] = np.where(np.isnan(X[:, 2]), np.nan, np.where(np.isnan(X[:, 3]), X[:, 2], X[:, 3]))
    X[:, 5] = np.where(np.isnan(X[:, 4]), np.nan, 1 - X[:, 4])
    return X, y


_PARAMS = [{}, {"interval_fit": "theorem1"}, {"nominal": "m-estimate", "m": 3.0}, {"nominal": "eq4"},
           {"alpha": 0.0}, {"class_prior": [0.2, 0.3, 0.5]}, {"var_smoothing": 0.01}]
_NUMERIC_ONLY = [{"numeric": "kde"}, {"numeric": "mdl"}, {"numeric": "equal-frequency", "bins": 4},
                 {"numeric": "equal-width", "nominal": "laplace"}]


def test_defaults_are_the_estimators():
    assert dict(TabularKernel.defaults) == TabularNB().get_params()
    assert TabularKernel().params() == TabularNB().get_params()


@pytest.mark.parametrize("params", _PARAMS + _NUMERIC_ONLY)
def test_kernel_and_estimator_write_the_same_file_and_scores(tmp_path, params):
    X, y = _table()
    atts = _ATTS if params.get("numeric") in (None, "gaussian") else (_ATTS[0], _ATTS[1], _ATTS[4])
    if atts is not _ATTS:
        X = X[:, [0, 1, 6]]
    w = np.linspace(0.5, 2.0, len(y))
    est = TabularNB(attributes=atts, **params).fit(X, y, sample_weight=w)
    ker = TabularKernel(attributes=atts, **params).fit(X, y, sample_weight=w)
    Xt, _ = _table(seed=1, n=25)
    assert_kernel_is_the_estimator(ker, est, Xt if atts is _ATTS else Xt[:, [0, 1, 6]], tmp_path)


def test_partial_fit_and_merge_as_the_estimator():
    X, y = _table()
    atts = _ATTS
    halves = (slice(0, 30), slice(30, None))
    est = TabularNB(attributes=atts, interval_fit="theorem1")
    ker = TabularKernel(attributes=atts, interval_fit="theorem1")
    for part in halves:
        est.partial_fit(X[part], y[part], classes=["a", "b", "c"])
        ker.partial_fit(X[part], y[part], classes=["a", "b", "c"])
    a = TabularKernel(attributes=atts, interval_fit="theorem1").fit(X[halves[0]], y[halves[0]])
    a.merge(TabularKernel(attributes=atts, interval_fit="theorem1").fit(X[halves[1]], y[halves[1]]))
    for model in (ker, a):
        np.testing.assert_array_equal(model.predict_joint_log_proba(X), est.predict_joint_log_proba(X))


def test_input_errors_are_value_errors():
    X, y = _table()
    ker = TabularKernel(attributes=_ATTS).fit(X, y)
    with pytest.raises(ValueError, match="X has 3 features, but TabularNB is expecting 7"):
        ker.predict(X[:, :3])
    with pytest.raises(ValueError, match="infinity"):
        TabularKernel().fit([[1.0], [np.inf]], ["a", "b"])
    with pytest.raises(ValueError, match="one class label per row"):
        TabularKernel().fit([[1.0], [2.0]], ["a"])
    with pytest.raises(ValueError, match="not fitted"):
        TabularKernel().predict([[1.0]])
    with pytest.raises(ValueError, match="alpha must be"):
        TabularKernel(alpha=-1.0).fit([[1.0], [2.0]], ["a", "b"])
    with pytest.raises(TypeError, match="takes no parameter 'beta'"):
        TabularKernel(beta=1)


def test_an_inconsistent_file_is_the_same_error_on_both_paths(tmp_path):
    X, y = _table()
    model = TabularNB(attributes=_ATTS).fit(X, y)
    root = read_nodes(_save(model, tmp_path / "m.tnb"))
    disc = root.state["discretized_"].copy()
    disc[1] = True  # a Gaussian column said to be cut: the declared schema passes, _set_state refuses
    root.state["discretized_"] = disc
    save(root, tmp_path / "bad.tnb", check=False)
    with pytest.raises(ModelFileError) as by_load:
        load(tmp_path / "bad.tnb")
    with pytest.raises(ModelFileError) as by_kernel:
        load_for_prediction(tmp_path / "bad.tnb")
    assert str(by_kernel.value) == str(by_load.value)
    assert "inconsistent model file (TabularNB: ValueError" in str(by_load.value)
    assert isinstance(build(read_nodes(tmp_path / "m.tnb"), tmp_path / "m.tnb"), TabularNB)


def _save(model, path):
    model.save(path)
    return path


@pytest.mark.skipif(not WEATHER.exists(), reason="bundled weather table missing")
def test_cli_train_and_predict_on_a_table_import_no_sklearn(tmp_path):
    """``textnb train`` and ``textnb predict`` on an ARFF and a CSV table with the default
    table model import neither scikit-learn nor (no uncertain or KDE attributes)
    scipy.special; the file and the predictions are the estimator's."""
    csv = tmp_path / "t.csv"
    csv.write_text("outlook,temp,windy,play\n" + "\n".join(
        f"{o},{t},{w},{p}" for o, t, w, p in [("sunny", 30, "yes", "no"), ("rainy", 12, "no", "yes"),
                                               ("sunny", 25, "no", "yes"), ("overcast", 15, "yes", "no"),
                                               ("rainy", "?", "no", "yes"), ("overcast", 22, "yes", "yes")]) + "\n")
    for table in (WEATHER, csv):
        model = tmp_path / f"{table.stem}.tnb"
        (status, summary), (status2, out) = cli_subprocesses(("train", table, "-o", model),
                                                             ("predict", model, table, "--proba"))
        assert status == "0 False" and "model: TabularNB ->" in summary
        assert status2 == "0 False"
        data = read_table(table)
        est = TabularNB(attributes=tuple(data.attributes), class_values=data.classes).fit(data.X, data.y)
        est.save(tmp_path / "est.tnb")
        assert (tmp_path / "est.tnb").read_bytes() == model.read_bytes()
        labels = [line.split("\t")[1] for line in out.splitlines()]
        assert labels == [str(c) for c in est.predict(data.X)]


@pytest.mark.parametrize("params", _PARAMS + _NUMERIC_ONLY[:2])
def test_prediction_product_is_scipys_without_scipy(params):
    """The nominal cells' product of prediction (``_one_hot_dot``: numpy, the CSR cells in
    canonical order multiplied by :class:`textnb.core.csr.CSR`) is scipy's sparse product,
    float for float, with uncertain nominal rows, missing cells and cut numerics."""
    X, y = _table(seed=5, n=300)
    atts = _ATTS if params not in _NUMERIC_ONLY else tuple(a for a in _ATTS if a.kind in ("nominal", "numeric"))
    if params in _NUMERIC_ONLY:
        X = X[:, [0, 1, 6]]
    model = TabularKernel(attributes=atts, **params).fit(X, y)
    if not model.feature_log_prob_.shape[1]:
        pytest.skip("no counted columns")
    import scipy.sparse as sp

    r, c, v, shape = model._one_hot_cells(X, uncertain=False)
    scipy_product = np.asarray(sp.csr_matrix((v, (r, c)), shape=shape) @ model.feature_log_prob_.T)
    ours = model._one_hot_dot(X, model.feature_log_prob_)
    assert ours.dtype == scipy_product.dtype and np.array_equal(ours.view(np.int64), scipy_product.view(np.int64))


def test_cli_predict_on_a_nominal_table_imports_no_scipy(tmp_path):
    """``textnb predict`` with a TabularNB of nominal and Gaussian attributes reads the model
    and scores with numpy alone (scipy.sparse's import is about 0.1 s of CPU)."""
    import subprocess
    import sys

    model = tmp_path / "w.tnb"
    status, _ = cli_subprocess("train", WEATHER, "-o", model)
    assert status == "0 False"
    probe = ("import sys\nfrom textnb.cli.commands import main\n"
             f"rc = main(['predict', {str(model)!r}, {str(WEATHER)!r}, '--proba'])\n"
             "print(rc, 'scipy' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "0 False"


@pytest.mark.parametrize("params", [{}, {"numeric": "mdl"}, {"numeric": "equal-width", "bins": 3}])
@pytest.mark.parametrize("uncertain", [True, False])
def test_one_hot_cells_attribute_by_attribute(params, uncertain):
    """The indicator cells come attribute by attribute, each one's rows ascending (the
    order the counts are summed in), certain, cut numeric and uncertain nominal
    attributes interleaved, as a walk over the attributes one at a time gives them."""
    from textnb.naive_bayes.cut_points import apply_cut_points

    X, y = _table(seed=2, n=80)
    atts = _ATTS
    if params:  # discretised numerics: no interval attribute (it needs numeric="gaussian")
        atts, X = _ATTS[:2] + _ATTS[3:], X[:, [0, 1, 4, 5, 6]]
    model = TabularKernel(attributes=atts, **params).fit(X, y)
    offsets = np.concatenate([[0], np.cumsum(model.n_values_)])
    starts = np.concatenate([[0], np.cumsum([2 if a.kind == "uncertain-numeric" else
                                             len(a.values) if a.kind == "uncertain-nominal" else 1
                                             for a in atts])])
    expected = []
    for j in np.flatnonzero(model.n_values_ > 0):
        if atts[j].kind == "uncertain-nominal":
            P = X[:, starts[j]:starts[j + 1]]
            for i in range(len(X)):
                if np.isnan(P[i, 0]) or (not uncertain and P[i].max() != 1.0):
                    continue
                expected += [(i, offsets[j] + c, P[i, c]) for c in range(P.shape[1]) if P[i, c] != 0]
            continue
        col = X[:, starts[j]]
        if model.cut_points_[j] is not None:
            col = apply_cut_points(col[:, None], [model.cut_points_[j]])[:, 0]
        expected += [(i, offsets[j] + int(col[i]), 1.0) for i in range(len(X)) if not np.isnan(col[i])]
    r, c, v, shape = model._one_hot_cells(X, uncertain=uncertain)
    assert shape == (len(X), offsets[-1])
    assert list(zip(r.tolist(), c.tolist(), v.tolist())) == [(i, int(cc), float(vv)) for i, cc, vv in expected]


def test_one_hot_cells_name_a_bad_code():
    X, y = _table(seed=2, n=30)
    model = TabularKernel(attributes=_ATTS).fit(X, y)
    X[4, 0] = 7.0
    with pytest.raises(ValueError, match=r"column 0 \('colour'\) is nominal with 3 values; cell .*7"):
        model._one_hot_cells(X)


def _nominal_table(seed=0, n=120):
    """A table of nominal attributes of 1 to 5 values, with missing cells."""
    rng = np.random.default_rng(seed)
    atts = tuple(Attribute(f"a{j}", "nominal", [f"v{k}" for k in range(k_j)])
                 for j, k_j in enumerate([3, 1, 5, 2, 4, 2]))
    X = np.column_stack([rng.integers(0, len(a.values), n) for a in atts]).astype(float)
    X[rng.uniform(0, 1, X.shape) < 0.2] = np.nan
    return atts, X, rng.choice(["x", "y", "z"], n)


@pytest.mark.parametrize("params", [{}, {"alpha": 0.0}, {"alpha": 0.5}, {"nominal": "m-estimate", "m": 3.0},
                                    {"nominal": "eq4"}, {"class_prior": [0.2, 0.3, 0.5]}])
@pytest.mark.parametrize("cls", [TabularNB, TabularKernel])
def test_fit_counts_is_fit_on_a_nominal_table(params, cls):
    """``fit_counts`` of the sums ``fit`` takes is the model ``fit`` makes: the same state and
    scores, float for float (NLTK's feature dicts are counted sparsely and fitted so)."""
    atts, X, y = _nominal_table()
    w = np.linspace(0.5, 2.0, len(y))
    fitted = cls(attributes=atts, **params).fit(X, y, sample_weight=w)
    counted = cls(attributes=atts, **params).fit_counts(fitted.classes_, fitted.class_count_, fitted.feature_count_)
    state, expected = counted._get_state(), fitted._get_state()
    assert state.keys() == expected.keys()
    for name, value in expected.items():
        assert repr(state[name]) == repr(value), name
    assert np.array_equal(counted.predict_log_proba(X), fitted.predict_log_proba(X))
    assert np.array_equal(counted.feature_log_prob_, fitted.feature_log_prob_)


def test_fit_counts_refuses_what_it_cannot_fit_and_keeps_the_model():
    atts, X, y = _nominal_table()
    fitted = TabularNB(attributes=atts).fit(X, y)
    with pytest.raises(ValueError, match="have shapes"):
        TabularNB(attributes=atts).fit_counts(fitted.classes_, fitted.class_count_, fitted.feature_count_[:, 1:])
    with pytest.raises(ValueError, match="all nominal"):
        TabularNB(attributes=atts + (Attribute("n", "numeric", []),)).fit_counts(
            fitted.classes_, fitted.class_count_, fitted.feature_count_)
    with pytest.raises(ValueError, match="all nominal"):
        TabularNB().fit_counts(fitted.classes_, fitted.class_count_, fitted.feature_count_)
    model = TabularKernel(attributes=atts)
    with pytest.raises(ValueError):
        model.fit_counts(fitted.classes_, fitted.class_count_[:2], fitted.feature_count_)
    assert not hasattr(model, "classes_")  # (all or nothing: still unfitted)


@pytest.mark.parametrize("alpha", [0.0, 0.5])
def test_joint_log_likelihood_of_cells_is_the_dense_tables(alpha):
    """The joint log likelihood of rows given by their known nominal cells, in any order (and
    in canonical order), is that of the dense table with the other cells missing, float for
    float: with more cells than columns (each column read once) and fewer (each cell its own)."""
    atts, X, y = _nominal_table(seed=3, n=200)
    model = TabularKernel(attributes=atts, alpha=alpha).fit(X, y)
    for rows in (X, X[:2]):
        r, c, _, _ = model._one_hot_cells(rows, uncertain=False)
        dense = model._joint_log_likelihood(rows)
        for order in (np.random.default_rng(0).permutation(r.size), np.lexsort((c, r))):
            ours = model._joint_log_likelihood_of_cells(r[order], c[order], len(rows))
            assert np.array_equal(ours.view(np.int64), dense.view(np.int64))
    empty = model._joint_log_likelihood_of_cells(np.zeros(0, np.intp), np.zeros(0, np.intp), 2)
    assert np.array_equal(empty, np.tile(model.class_log_prior_, (2, 1)))
