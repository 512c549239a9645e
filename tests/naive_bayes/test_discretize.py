"""Discretisers (textnb.naive_bayes.discretize): Weka's cut points, NaN handling, weights."""

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from textnb.naive_bayes.discretize import (
    EqualFrequencyDiscretizer,
    EqualWidthDiscretizer,
    MDLDiscretizer,
    apply_cut_points,
    mdl_cut_points,
)
from textnb.io.tables import read_table

UCI = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "uci"
WEKA = Path("/usr/share/java/weka.jar")
needs_uci = pytest.mark.skipif(not UCI.is_dir(), reason="../shared/datasets/uci not available")


def test_equal_width():
    X = np.array([[0.0], [10.0], [5.0], [np.nan], [2.5]])
    d = EqualWidthDiscretizer(n_bins=4).fit(X)
    np.testing.assert_allclose(d.cut_points_[0], [2.5, 5.0, 7.5])
    # a value equal to a cut point goes to the lower bin (Weka: value <= cut)
    np.testing.assert_array_equal(d.transform(X).ravel(), [0, 3, 1, np.nan, 0])


def test_equal_frequency_simple_and_ties():
    X = np.arange(1.0, 101.0)[:, None]
    d = EqualFrequencyDiscretizer(n_bins=10).fit(X)
    np.testing.assert_allclose(d.cut_points_[0], np.arange(10.5, 100, 10))
    assert np.bincount(d.transform(X).ravel().astype(int)).tolist() == [10] * 10
    # heavy ties: no cut inside a run of equal values
    X = np.array([0.0] * 50 + list(range(1, 51)))[:, None]
    cuts = EqualFrequencyDiscretizer(n_bins=10).fit(X).cut_points_[0]
    assert cuts[0] == 0.5 and np.all(np.diff(cuts) > 0)


def test_nominal_columns_pass_through_and_nan_stays():
    X = np.array([[0, 1.0], [1, 2.0], [2, np.nan], [np.nan, 4.0]])
    d = EqualWidthDiscretizer(n_bins=2, nominal_mask=(True, False)).fit(X)
    out = d.transform(X)
    np.testing.assert_array_equal(out[:, 0], X[:, 0])
    np.testing.assert_array_equal(out[:, 1], [0, 0, np.nan, 1])
    assert d.n_bins_.tolist() == [0, 2]
    assert d.cut_points_[0].size == 0


def test_mdl_separable_and_noise():
    x = np.array([1.0, 2, 3, 4, 5, 6, 7, 8, 9, 10] * 3)
    y = np.where(x <= 5, "a", "b")
    np.testing.assert_array_equal(mdl_cut_points(x, (y == "b").astype(int), 2), [5.5])
    rng = np.random.default_rng(0)
    noise = rng.normal(size=200)
    labels = rng.integers(0, 2, size=200)
    assert mdl_cut_points(noise, labels, 2).size == 0  # MDL rejects a split of noise
    assert mdl_cut_points(x, np.zeros(30, dtype=int), 2).size == 0  # one class: nothing to gain


def test_mdl_weights_equal_repetition():
    rng = np.random.default_rng(1)
    x = np.round(rng.normal(size=60), 1)
    y = (x + rng.normal(scale=0.5, size=60) > 0).astype(int)
    w = rng.integers(0, 3, size=60).astype(float)
    rep = np.repeat(np.arange(60), w.astype(int))
    np.testing.assert_array_equal(mdl_cut_points(x, y, 2, w), mdl_cut_points(x[rep], y[rep], 2))


def test_apply_cut_points_none_passes_through():
    X = np.array([[0.5, 7.0], [3.0, 8.0]])
    np.testing.assert_array_equal(apply_cut_points(X, [np.array([1.0, 2.0]), None]), [[0, 7], [2, 8]])


def test_discretizer_in_pipeline_cv():
    from sklearn.model_selection import cross_val_score
    from sklearn.pipeline import make_pipeline

    from textnb.io.tables import Attribute
    from textnb.naive_bayes.tabular import TabularNB

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 2))
    y = np.where(X[:, 0] > 0, "p", "n")
    atts = tuple(Attribute(f"b{j}", "nominal", [str(i) for i in range(10)]) for j in range(2))
    pipe = make_pipeline(EqualFrequencyDiscretizer(n_bins=10), TabularNB(attributes=atts))
    assert cross_val_score(pipe, X, y, cv=3).mean() > 0.8


# Cut points printed by Weka 3.6.14 (weka.filters.supervised.attribute.Discretize -c last,
# and weka.filters.unsupervised.attribute.Discretize -F -B 10) on the full files.
WEKA_IRIS_MDL = [[5.55, 6.15], [2.95, 3.35], [2.45, 4.75], [0.8, 1.75]]
WEKA_GLASS_EF_RI = [1.51591, 1.5163, 1.516685, 1.517335, 1.51767, 1.518095, 1.518645, 1.520315, 1.52212]


@needs_uci
def test_mdl_matches_weka_on_iris():
    t = read_table(UCI / "iris.arff")
    d = MDLDiscretizer().fit(t.X, t.y)
    for mine, weka in zip(d.cut_points_, WEKA_IRIS_MDL):
        np.testing.assert_allclose(mine, weka)


@needs_uci
def test_equal_frequency_matches_weka_on_glass():
    t = read_table(UCI / "glass.arff")
    d = EqualFrequencyDiscretizer(n_bins=10).fit(t.X)
    np.testing.assert_allclose(d.cut_points_[0], WEKA_GLASS_EF_RI, rtol=1e-5)


def _weka_cuts(path):
    import re

    cuts = []
    for line in path.read_text().splitlines():
        if line.lower().startswith("@attribute"):
            cuts.append([float(b) for b in re.findall(r"-(-?[\d.]+(?:[eE]-?\d+)?)\]", line)])
    return cuts


@needs_uci
@pytest.mark.skipif(not (WEKA.exists() and shutil.which("java")), reason="Weka not installed")
def test_mdl_matches_weka_run_live(tmp_path):
    """Heart-c: nominal and numeric attributes, missing values; Weka run here."""
    src = UCI / "heart-c.arff"
    out = tmp_path / "out.arff"
    subprocess.run(["java", "-cp", str(WEKA), "weka.filters.supervised.attribute.Discretize",
                    "-c", "last", "-R", "first-last", "-i", str(src), "-o", str(out)],
                   check=True, capture_output=True)
    weka = _weka_cuts(out)[:-1]
    t = read_table(src)
    d = MDLDiscretizer(nominal_mask=tuple(t.nominal_mask)).fit(t.X, t.y)
    for j, a in enumerate(t.attributes):
        if not a.is_nominal:
            np.testing.assert_allclose(d.cut_points_[j], weka[j], rtol=1e-5, err_msg=a.name)


def test_mdl_of_many_classes_says_no_numpy_warning():
    """Found by a hunt (session 52): with 647 classes or more MDL's 3^k overflows (as Weka's
    Math.pow, to infinity: no cut) and numpy's 'overflow encountered in power' reached the
    user as a warning line of train, evaluate, TAN and AODE."""
    import warnings

    from textnb.naive_bayes.cut_points import mdl_cut_points

    x = np.repeat(np.arange(700) * 10.0, 2) + np.tile([0.0, 1.0], 700)
    y = np.repeat(np.arange(700), 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cuts = mdl_cut_points(x, y, 700)
    assert cuts.size == 0


def test_equal_width_cuts_of_a_range_of_a_few_float_steps_are_each_once(tmp_path):
    """Found by a hunt (session 52): a column from 1e16 to 1e16 + 2 (a few float steps) made
    nine equal equal-width cuts; ``train`` then refused to write its own model ('values are not
    strictly increasing', blaming the model file) while ``evaluate`` ran. Each cut once now."""
    from conftest import cli
    from textnb.naive_bayes.cut_points import equal_width_cut_points

    cuts = equal_width_cut_points(np.array([1e16, 1e16, 10000000000000002.0, 10000000000000002.0]), 10)
    assert cuts.size >= 1 and np.all(np.diff(cuts) > 0)
    table = tmp_path / "ew.csv"
    table.write_text("x,class\n1e16,yes\n1e16,yes\n10000000000000002,no\n10000000000000002,no\n")
    code, out, err = cli("train", table, "--numeric", "equal-width", "-o", tmp_path / "ew.tnb")
    assert code == 0, err
    code, out, err = cli("predict", tmp_path / "ew.tnb", table)
    assert code == 0 and "accuracy 1.0000" in err, (out, err)
