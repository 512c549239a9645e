"""Tests of textnb.semi_naive.aode.AODE (Webb, Boughton & Wang 2005; Weka 3.6.14's estimates)."""

import io
import json
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.utils.estimator_checks import parametrize_with_checks

from textnb import AODE
from textnb.cli import main
from textnb.core.errors import ModelFileError
from textnb.core.model_io import load, save
from textnb.io.tables import Attribute, read_table

CORPORA = Path(__file__).resolve().parents[2] / "corpora"
WEATHER_NOMINAL = CORPORA / "weather.nominal.arff"
WEATHER_NUMERIC = CORPORA / "weather.numeric.arff"
WEATHER_QUERY = CORPORA / "weather.query.arff"
WEKA_JAR = "/usr/share/java/weka.jar"


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = main(list(map(str, argv)), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def weka_reference(X, y, n_values, classes, Xq, w=None, limit=1, m=None):
    """Weka 3.6.14's ``AODE.distributionForInstance``, transcribed loop for loop.

    An independent oracle: it works on the raw rows (NaN = missing) with Weka's own
    arrays (m_CondiCounts with a missing slot per attribute, m_SumForCounts,
    m_Frequencies) and multiplies probabilities as Weka does.
    """
    n, d = X.shape
    C = len(classes)
    w = np.ones(n) if w is None else w
    start = np.concatenate([[0], np.cumsum(np.asarray(n_values) + 1)])[:-1]
    T = int(sum(v + 1 for v in n_values))
    condi = np.zeros((C, T, T))
    class_counts = np.zeros(C)
    sum_for_counts = np.zeros((C, d))
    freq = np.zeros(T)
    total = 0.0
    for row, label, weight in zip(X, y, w):
        c = list(classes).index(label)
        class_counts[c] += weight
        total += weight
        idx = [start[a] + (n_values[a] if np.isnan(row[a]) else int(row[a])) for a in range(d)]
        for a1 in range(d):
            freq[idx[a1]] += weight
            if not np.isnan(row[a1]):
                sum_for_counts[c, a1] += weight
            for a2 in range(d):
                condi[c, idx[a1], idx[a2]] += weight
    out = []
    for row in Xq:
        att = [-1 if np.isnan(row[a]) else start[a] + int(row[a]) for a in range(d)]
        probs = np.zeros(C)
        for c in range(C):
            parents = 0
            for p in range(d):
                if att[p] == -1 or freq[att[p]] < limit:
                    continue
                pi = att[p]
                att[p] = -1
                parents += 1
                cpf = condi[c, pi, pi]
                miss_p = freq[start[p] + n_values[p]]
                if m is None:
                    x = (cpf + 1.0) / ((total - miss_p) + C * n_values[p])
                else:
                    x = (cpf + m / (C * n_values[p])) / ((total - miss_p) + m)
                for a in range(d):
                    if att[a] == -1:
                        continue
                    miss_pa = condi[c, pi, start[a] + n_values[a]]
                    if m is None:
                        x *= (condi[c, pi, att[a]] + 1.0) / (cpf - miss_pa + n_values[a])
                    else:
                        x *= (condi[c, pi, att[a]] + m / n_values[a]) / (cpf - miss_pa + m)
                probs[c] += x
                att[p] = pi
            if parents < 1:
                if m is None:
                    prob = (class_counts[c] + 1.0) / (total + C)
                else:
                    prob = (class_counts[c] + m / C) / (total + m)
                for a in range(d):
                    if np.isnan(row[a]):
                        continue
                    ai = start[a] + int(row[a])
                    if m is None:
                        prob *= (condi[c, ai, ai] + 1.0) / (sum_for_counts[c, a] + n_values[a])
                    else:
                        prob *= (condi[c, ai, ai] + m / n_values[a]) / (sum_for_counts[c, a] + m)
                probs[c] = prob
            else:
                probs[c] /= parents
        out.append(probs / probs.sum())
    return np.array(out)


def random_table(seed, n=60, n_values=(3, 2, 4, 2), n_classes=3, missing=0.15):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, size=n)
    X = np.column_stack([(rng.integers(0, k, size=n) + y * (j % 2)) % k for j, k in enumerate(n_values)])
    X = X.astype(float)
    X[rng.random(X.shape) < missing] = np.nan
    labels = np.array(["c0", "c1", "c2", "c3"])[:n_classes]
    return X, labels[y]


# ------------------------------------------------------------------------------
# scikit-learn conventions

# Nominal value indices only (like TAN): these two checks feed raw uniform floats.
EXPECTED_FAILED = {
    "check_sample_weight_equivalence_on_dense_data": "nominal value indices only: rejects non-integer X",
    "check_classifiers_one_label_sample_weights": "nominal value indices only: rejects non-integer X",
}


# the default is checked with every export (tests/test_sklearn_cases.py); here a variant
@parametrize_with_checks([AODE(frequency_limit=3, m=2.0)],
                         expected_failed_checks=lambda est: EXPECTED_FAILED)
def test_sklearn_compatible(estimator, check):
    check(estimator)


# ------------------------------------------------------------------------------
# the estimates


def test_hand_computed_example():
    # N = 4, C = 2, k = 2 for both attributes. For x = (0, 1):
    #   parent x0=0: a: (2+1)/(4+4) * (1+1)/(2+2) = 3/16;  b: (0+1)/8 * (0+1)/(0+2) = 1/16
    #   parent x1=1: a: (1+1)/8 * (1+1)/(1+2) = 1/6;       b: (1+1)/8 * (0+1)/(1+2) = 1/12
    #   mean over the 2 parents: a 17/96, b 7/96, so P(a | x) = 17/24.
    X = np.array([[0, 0], [0, 1], [1, 1], [1, 0]], dtype=float)
    y = np.array(["a", "a", "b", "b"])
    aode = AODE().fit(X, y)
    assert_allclose(aode.predict_joint_log_proba([[0, 1]]), np.log([[17 / 96, 7 / 96]]))
    assert_allclose(aode.predict_proba([[0, 1]]), [[17 / 24, 7 / 24]])
    # x1 missing: only x0 = 0 is a super-parent and there is no child: 3/8 vs 1/8
    assert_allclose(aode.predict_joint_log_proba([[0, np.nan]]), np.log([[3 / 8, 1 / 8]]))
    # every value occurs twice: frequency_limit=3 leaves no super-parent, so naive Bayes:
    # a: (2+1)/(4+2) * (2+1)/(2+2) * (1+1)/(2+2) = 3/16; b: 1/2 * 1/4 * 1/2 = 1/16
    nb = AODE(frequency_limit=3).fit(X, y)
    assert_allclose(nb.predict_joint_log_proba([[0, 1]]), np.log([[3 / 16, 1 / 16]]))
    # the statistics are the pair counts with a missing slot per attribute
    assert_array_equal(aode.slot_offsets_, [0, 3, 6])
    assert aode.pair_count_.shape == (2, 6, 6)
    assert_array_equal(aode.pair_count_[0].diagonal(), [2, 0, 0, 1, 1, 0])
    assert aode.pair_count_[0, 0, 4] == 1 and aode.pair_count_[1, 1, 4] == 1 and aode.pair_count_[1, 0, 4] == 0
    assert_array_equal(aode.class_count_, [2, 2])


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("limit, m", [(1, None), (4, None), (1, 1.0), (6, 3.5), (0, None)])
def test_matches_wekas_loops(seed, limit, m):
    n_values = (3, 2, 4, 2)
    X, y = random_table(seed, n_values=n_values)
    rng = np.random.default_rng(100 + seed)
    w = rng.choice([0.5, 1.0, 2.0, 3.0], size=len(y))
    attrs = [Attribute(f"a{j}", "nominal", [str(v) for v in range(k)]) for j, k in enumerate(n_values)]
    aode = AODE(frequency_limit=limit, m=m, attributes=attrs).fit(X, y, sample_weight=w)
    Xq, _ = random_table(seed + 50, n=40, n_values=n_values, missing=0.3)
    Xq[0] = np.nan  # every value missing: the class prior alone
    expected = weka_reference(X, y, n_values, aode.classes_, Xq, w=w, limit=limit, m=m)
    assert_allclose(aode.predict_proba(Xq), expected, rtol=1e-10, atol=1e-13)


@pytest.mark.slow  # (Weka's JVM: the quick subset has test_matches_wekas_loops, Weka's loops transcribed)
@pytest.mark.skipif(shutil.which("java") is None or not os.path.exists(WEKA_JAR), reason="needs Weka 3.6")
def test_matches_weka_itself(tmp_path):
    """Weka's printed distributions (3 decimals) on weather and on a table with missing values."""
    from textnb.io.arff import write_arff

    X, y = random_table(7, n=80, n_values=(3, 2, 4), n_classes=2, missing=0.2)
    attrs = [Attribute(f"a{j}", "nominal", [f"v{v}" for v in range(k)]) for j, k in enumerate((3, 2, 4))]
    cls = Attribute("class", "nominal", ["c0", "c1"])
    data = tmp_path / "missing.arff"
    write_arff(data, attrs + [cls], np.column_stack([X, (y == "c1").astype(float)]), relation="m")
    for path in (WEATHER_NOMINAL, data):
        table = read_table(path)
        aode = AODE(attributes=tuple(table.attributes)).fit(table.X, table.y)
        out = subprocess.run(["java", "-cp", WEKA_JAR, "weka.classifiers.bayes.AODE", "-t", str(path),
                              "-T", str(path), "-p", "0", "-distribution"],
                             capture_output=True, text=True, check=True).stdout
        rows = [line.split()[-1].replace("*", "") for line in out.splitlines()
                if line.strip()[:1].isdigit()]
        weka = np.array([[float(v) for v in r.split(",")] for r in rows])
        order = [list(table.class_attribute.values).index(c) for c in aode.classes_]
        assert weka.shape == (len(table.y), len(aode.classes_))
        assert_allclose(aode.predict_proba(table.X), weka[:, order], atol=5e-4 + 1e-9)


# ------------------------------------------------------------------------------
# sums: partial_fit, merge, weights


def nominal_attrs(n_values=(3, 2, 4, 2)):
    return [Attribute(f"a{j}", "nominal", [str(v) for v in range(k)]) for j, k in enumerate(n_values)]


def test_partial_fit_equals_fit():
    X, y = random_table(1, n=90)
    full = AODE(attributes=nominal_attrs()).fit(X, y)
    inc = AODE(attributes=nominal_attrs())
    for part in np.array_split(np.arange(len(y)), 4):
        inc.partial_fit(X[part], y[part], classes=np.unique(y))
    assert_array_equal(inc.pair_count_, full.pair_count_)
    assert_array_equal(inc.class_count_, full.class_count_)
    Xq, _ = random_table(9, n=30)
    assert_allclose(inc.predict_log_proba(Xq), full.predict_log_proba(Xq))


def test_partial_fit_contract():
    X, y = random_table(2)
    with pytest.raises(ValueError, match="classes must be passed"):
        AODE().partial_fit(X, y)
    aode = AODE(attributes=nominal_attrs()).partial_fit(X[:10], y[:10], classes=np.unique(y))
    big = X[10:20].copy()
    big[0, 0] = 7  # past the declared values (undeclared columns widen: tests/io/test_frames.py)
    with pytest.raises(ValueError, match="holds value index 7 but its attribute declares 3 values"):
        aode.partial_fit(big, y[10:20])
    with pytest.raises(ValueError, match="not in classes"):
        aode.partial_fit(X[10:12], ["zz", "zz"])


def test_merge_equals_fit_on_union():
    X, y = random_table(3, n=100)
    a, b = np.arange(60), np.arange(60, 100)
    b = b[y[b] != "c2"]  # one part lacks a class: merge aligns classes by name
    union = np.concatenate([a, b])
    left = AODE(attributes=nominal_attrs()).fit(X[a], y[a])
    right = AODE(attributes=nominal_attrs()).fit(X[b], y[b])
    assert len(right.classes_) == 2
    whole = AODE(attributes=nominal_attrs()).fit(X[union], y[union])
    merged = right.merge(left)
    assert_array_equal(merged.classes_, whole.classes_)
    assert_allclose(merged.pair_count_, whole.pair_count_)
    assert_allclose(merged.predict_log_proba(X), whole.predict_log_proba(X))
    with pytest.raises(ValueError, match="different attributes"):
        left.merge(AODE().fit(X[:, :2], y))


def _parts_in_other_value_orders(tmp_path, green=True):
    """Two parts that declare the values of their nominal attributes in other orders (ARFF
    files declaring them as the rows meet them: o1 red then blue, o2 blue then red; with
    ``green``, a value only o2 has; a numeric attribute with the same MDL cut points in both;
    the CSV copies, o1.csv and o2.csv, list them sorted), and the whole file (CSV): o1's rows,
    then o2's."""
    one = ["red,big,1,yes", "blue,small,1,no", "red,small,9,yes", "blue,big,9,no", "red,big,1,yes",
           "red,small,1,yes", "blue,big,9,no"]
    two = ["blue,small,1,yes", "red,big,9,no", "blue,big,1,yes", "red,small,9,no", "blue,small,9,no",
           "green,big,1,yes" if green else "blue,big,1,yes", "red,big,9,yes"]
    head = "colour,size,weight,class\n"
    paths = []
    for name, rows in (("o1", one), ("o2", two), ("whole", one + two)):
        (tmp_path / f"{name}.csv").write_text(head + "\n".join(rows) + "\n")
        paths.append(tmp_path / f"{name}.csv")
        cells = [r.split(",") for r in rows]
        declared = ["{" + ",".join(dict.fromkeys(c[j] for c in cells)) + "}" for j in (0, 1)]
        (tmp_path / f"{name}.arff").write_text(
            f"@relation {name}\n@attribute colour {declared[0]}\n@attribute size {declared[1]}\n"
            "@attribute weight numeric\n@attribute class {yes,no}\n@data\n" + "\n".join(rows) + "\n")
    return [tmp_path / "o1.arff", tmp_path / "o2.arff", paths[2]]


def test_merge_aligns_nominal_values_by_name(tmp_path):
    """AODE kept its value counts by position: parts listing red, blue and blue, red merged
    without error into a wrong model (0.5/0.5 where the whole file's model says 0.714/0.286).
    The pair table is laid out on the merged values (TabularNB's alignment), which the merged
    model declares: it is the model trained on the whole file, either way round, for
    declared attributes and for a DataFrame's; columns of value indices merge by index."""
    import pandas as pd

    for green in (False, True):  # the same values in another order (merged silently, wrong), a value more
        (tmp_path / str(green)).mkdir()
        one, two, whole_csv = _parts_in_other_value_orders(tmp_path / str(green), green)
        a, b, t = (read_table(p) for p in (one, two, whole_csv))
        assert a.attributes[0].values == ["red", "blue"] and b.attributes[0].values[:2] == ["blue", "red"]
        whole = AODE(attributes=tuple(t.attributes)).fit(t.X, t.y)
        for first, second in ((a, b), (b, a)):
            merged = AODE(attributes=tuple(first.attributes)).fit(first.X, first.y)
            merged.merge(AODE(attributes=tuple(second.attributes)).fit(second.X, second.y))
            assert isinstance(merged.attributes, tuple)
            assert sorted(merged.attributes[0].values) == sorted(t.attributes[0].values)
            query = read_table(whole_csv, like=merged.attributes)
            assert_array_equal(merged.predict(query.X), whole.predict(t.X))
            assert_allclose(merged.predict_proba(query.X), whole.predict_proba(t.X), rtol=0, atol=1e-9)
    # a DataFrame's values, recorded in frame_attributes_
    frames = [pd.read_csv(p, dtype={"colour": str, "size": str}) for p in (one.with_suffix(".csv"),
                                                                          two.with_suffix(".csv"), whole_csv)]
    fitted = [AODE().fit(f.drop(columns=["weight", "class"]), f["class"]) for f in frames]
    merged = fitted[0].merge(fitted[1])  # (blue, red and blue, green, red: sorted in each part)
    assert merged.frame_attributes_[0].values == ["blue", "red", "green"]
    X = frames[2].drop(columns=["weight", "class"])
    assert_allclose(merged.predict_proba(X), fitted[2].predict_proba(X), rtol=0, atol=1e-9)
    # value indices (nothing declared): by index, a part that saw fewer values widened
    X, y = random_table(5, n=80)
    low = np.where(np.nan_to_num(X[:, 0], nan=0) < 2)[0][:30]
    rest = np.setdiff1d(np.arange(80), low)
    merged = AODE().fit(X[low], y[low]).merge(AODE().fit(X[rest], y[rest]))
    whole = AODE().fit(X[np.concatenate([low, rest])], y[np.concatenate([low, rest])])
    assert_array_equal(merged.n_values_, whole.n_values_)
    assert_allclose(merged.pair_count_, whole.pair_count_)
    assert_allclose(merged.predict_proba(X), whole.predict_proba(X), rtol=0, atol=1e-9)
    with pytest.raises(ValueError, match="the values of attribute 'colour' are declared in one and not in the other"):
        AODE(attributes=tuple(a.attributes)).fit(a.X, a.y).merge(
            AODE(attributes=("colour", "size", a.attributes[2])).fit(a.X, a.y))


def test_weights_equal_repeated_rows():
    X, y = random_table(4, n=50)
    w = np.random.default_rng(0).integers(0, 4, size=50)
    weighted = AODE(attributes=nominal_attrs()).fit(X, y, sample_weight=w)
    rep = np.repeat(np.arange(50), w)
    repeated = AODE(attributes=nominal_attrs()).fit(X[rep], y[rep])
    assert_allclose(weighted.pair_count_, repeated.pair_count_)
    Xq, _ = random_table(5, n=30)
    assert_allclose(weighted.predict_log_proba(Xq), repeated.predict_log_proba(Xq))


# ------------------------------------------------------------------------------
# missing values, numerics, bad input


def test_missing_values_left_out():
    X, y = random_table(6, n=80, missing=0.0)
    aode = AODE(attributes=nominal_attrs()).fit(X, y)
    Xm = X.copy()
    Xm[:5, 1] = np.nan
    with_missing = AODE(attributes=nominal_attrs()).fit(Xm, y)
    # the missing cells go to attribute 1's missing slot; nothing else moves
    miss = with_missing.slot_offsets_[2] - 1
    assert with_missing.pair_count_[:, miss, miss].sum() == 5
    assert_array_equal(with_missing.class_count_, aode.class_count_)
    # a query value never seen (index beyond the values) counts as missing
    q = np.array([[0, 1, 3, 1]], dtype=float)
    unseen = q.copy()
    unseen[0, 2] = 9
    q_missing = q.copy()
    q_missing[0, 2] = np.nan
    assert_allclose(aode.predict_log_proba(unseen), aode.predict_log_proba(q_missing))
    assert np.all(np.isfinite(aode.predict_log_odds(q_missing)))


def test_numeric_attributes_discretised_with_mdl():
    from textnb.naive_bayes.discretize import MDLDiscretizer

    rng = np.random.default_rng(3)
    y = rng.choice(["p", "q"], size=150)
    X = np.column_stack([rng.normal(size=150) + (y == "p") * 2, rng.integers(0, 3, size=150),
                         rng.normal(size=150) - (y == "p")])
    attrs = [Attribute("u", "numeric"), Attribute("v", "nominal", ["a", "b", "c"]), Attribute("w", "numeric")]
    aode = AODE(attributes=attrs).fit(X, y)
    disc = MDLDiscretizer(nominal_mask=[False, True, False]).fit(X, y)
    assert_allclose(aode.cut_points_[0], disc.cut_points_[0])
    assert aode.cut_points_[1] is None
    pre = AODE(attributes=[Attribute(a.name, "nominal", ["x"] * k) for a, k in zip(attrs, aode.n_values_)])
    pre.fit(disc.transform(X), y)
    assert_allclose(aode.predict_log_proba(X), pre.predict_log_proba(disc.transform(X)))
    with pytest.raises(ValueError, match="numeric='mdl'"):
        AODE(attributes=attrs, numeric="error").fit(X, y)


def test_bad_input_and_parameters():
    with pytest.raises(ValueError, match="Discretise numeric attributes first"):
        AODE().fit([[0.5, 1], [1, 0]], ["a", "b"])
    with pytest.raises(ValueError, match="Negative values"):
        AODE().fit([[-1, 1], [1, 0]], ["a", "b"])
    for bad in (dict(frequency_limit=-1), dict(m=0), dict(m=float("nan")), dict(numeric="kde")):
        with pytest.raises(ValueError):
            AODE(**bad).fit([[0, 1], [1, 0]], ["a", "b"])
    with pytest.raises(ValueError, match="declares 2 values"):
        AODE(attributes=[Attribute("a", "nominal", ["x", "y"])]).fit([[2], [0]], ["a", "b"])


# ------------------------------------------------------------------------------
# model files


def test_save_load_round_trip(tmp_path):
    table = read_table(WEATHER_NUMERIC)
    aode = AODE(attributes=tuple(table.attributes), frequency_limit=2).fit(table.X, table.y)
    path = tmp_path / "a.tnb"
    save(aode, path)
    back = load(path)
    assert type(back) is AODE and back.get_params()["frequency_limit"] == 2
    assert_array_equal(back.pair_count_, aode.pair_count_)
    assert_allclose(back.predict_log_proba(table.X), aode.predict_log_proba(table.X))
    for a, b in zip(back.cut_points_, aode.cut_points_):
        assert (a is None and b is None) or np.array_equal(a, b)
    # a loaded model keeps learning
    back.partial_fit(table.X[:3], table.y[:3])
    assert back.class_count_.sum() == aode.class_count_.sum() + 3


def _rewrite(path, edit):
    """Rewrite a model file's header with ``edit(header)`` (arrays kept)."""
    with zipfile.ZipFile(path) as z:
        members = {n: z.read(n) for n in z.namelist()}
    header = json.loads(members["header.json"])
    edit(header)
    members["header.json"] = json.dumps(header).encode()
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as z:
        for n, data in members.items():
            z.writestr(n, data)


@pytest.mark.parametrize("edit", [
    lambda h: h["model"]["state"].update(n_features_in_=7),
    lambda h: h["model"]["state"].update(n_features_in_="x"),
    lambda h: h["model"]["params"].update(frequency_limit=-3),
    lambda h: h["model"]["params"].update(m=[1]),
    lambda h: h["model"]["state"].pop("pair_count_"),
    lambda h: h["model"]["state"].update(pair_count_=h["model"]["state"]["class_count_"]),
    lambda h: h["model"]["state"].update(cut_points_=[]),
])
def test_crafted_model_file_is_one_line_error(tmp_path, edit):
    table = read_table(WEATHER_NUMERIC)
    path = tmp_path / "a.tnb"
    AODE(attributes=tuple(table.attributes)).fit(table.X, table.y).save(path)
    _rewrite(path, edit)
    with pytest.raises(ModelFileError) as info:
        load(path)
    assert str(path) in str(info.value) and "\n" not in str(info.value)


def test_crafted_negative_counts(tmp_path):
    X, y = random_table(8)
    aode = AODE().fit(X, y)
    aode.pair_count_ = -aode.pair_count_
    path = tmp_path / "neg.tnb"
    save(aode, path, check=False)  # crafted: save itself refuses it
    with pytest.raises(ModelFileError, match="inconsistent model file"):
        load(path)


# ------------------------------------------------------------------------------
# command line


def test_cli_train_predict_evaluate_inspect(tmp_path):
    model = tmp_path / "w.tnb"
    code, out, err = run("train", WEATHER_NOMINAL, "--model", "aode", "-o", model, "--json")
    assert code == 0, err
    assert json.loads(out)["rows"] == 14
    code, out, err = run("predict", model, WEATHER_NOMINAL, "--proba", "--json")
    assert code == 0, err
    recs = [json.loads(line) for line in out.splitlines()]
    assert len(recs) == 14
    table = read_table(WEATHER_NOMINAL)
    expected = AODE(attributes=tuple(table.attributes)).fit(table.X, table.y).predict_proba(table.X)
    classes = sorted(set(table.y))
    got = np.array([[r["proba"][c] for c in classes] for r in recs])
    assert_allclose(got, expected, rtol=1e-9)
    assert [r["label"] for r in recs] == list(np.array(classes)[expected.argmax(axis=1)])
    code, out, err = run("predict", model, WEATHER_QUERY, "--json")
    assert code == 0 and json.loads(out)["label"] in ("yes", "no")
    code, out, err = run("evaluate", WEATHER_NOMINAL, "--model", "aode", "--cv", "3", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["n"] == 14 and 0 <= report["accuracy"] <= 1
    code, out, err = run("inspect", model)
    assert code == 0 and "AODE" in out and "outlook" in out
    code, out, err = run("evaluate", WEATHER_NUMERIC, "--model", "aode", "--cv", "3", "--json")
    assert code == 0 and json.loads(out)["n"] == 14


def _numeric_parts(tmp_path):
    """Two CSV parts whose numeric attribute MDL cuts once (the first) and twice (the second)."""
    one = [(f"{1 + i / 20:.2f}", "a") for i in range(20)] + [(f"{5 + i / 20:.2f}", "b") for i in range(20)]
    two = one + [(f"{9 + i / 20:.2f}", "a") for i in range(20)]
    for name, rows in (("one", one), ("two", two)):
        (tmp_path / f"{name}.csv").write_text("size,colour,class\n" + "".join(
            f"{x},{'red' if i % 3 else 'blue'},{c}\n" for i, (x, c) in enumerate(rows)))
    return tmp_path / "one.csv", tmp_path / "two.csv"


def test_merge_of_parts_with_other_cut_points_names_them_and_the_remedy(tmp_path):
    """MDL cut a numeric attribute once in one part and twice in the other: the merge blamed
    'different attributes or numbers of values'; it says the numeric attributes' cut points
    differ, which and where, and what to do (library: SettingsDiffer; command line: AODE has no
    fixed bins, so discretise the attribute the same way in every part)."""
    from textnb.core.errors import SettingsDiffer

    one, two = _numeric_parts(tmp_path)
    a, b = (read_table(p) for p in (one, two))
    part_a = AODE(attributes=tuple(a.attributes)).fit(a.X, a.y)
    part_b = AODE(attributes=tuple(b.attributes)).fit(b.X, b.y)
    assert len(part_a.cut_points_[0]) == 1 and len(part_b.cut_points_[0]) == 2
    with pytest.raises(SettingsDiffer, match="numeric attributes' cut points differ \\(size: \\[.*\\] in this model, "
                                             "\\[.*, .*\\] in the other\\); fit the discretisation once"):
        part_a.merge(part_b)
    for name in ("one", "two"):
        assert run("train", tmp_path / f"{name}.csv", "--model", "aode", "-o", tmp_path / f"{name}.tnb")[0] == 0
    code, out, err = run("merge", tmp_path / "one.tnb", tmp_path / "two.tnb", "-o", tmp_path / "m.tnb")
    assert code == 1 and out == "" and not (tmp_path / "m.tnb").exists()
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"textnb: error: {tmp_path / 'two.tnb'}: cannot merge into "), err
    for fragment in ("their numeric attributes' cut points differ (size is [", "has no fixed bins",
                     "discretised the same way"):
        assert fragment in lines[0], (fragment, lines[0])
    assert "different attributes" not in lines[0]


def test_cli_merge_and_bad_flags(tmp_path):
    halves = []
    table = read_table(WEATHER_NOMINAL)
    for k, rows in enumerate((slice(0, 7), slice(7, 14))):
        path = tmp_path / f"h{k}.arff"
        text = WEATHER_NOMINAL.read_text().split("@data")
        lines = [ln for ln in text[1].splitlines() if ln.strip() and not ln.startswith("%")]
        path.write_text(text[0] + "@data\n" + "\n".join(lines[rows]) + "\n")
        model = tmp_path / f"h{k}.tnb"
        assert run("train", path, "--model", "aode", "-o", model)[0] == 0
        halves.append(model)
    merged = tmp_path / "m.tnb"
    assert run("merge", *halves, "-o", merged)[0] == 0
    whole = AODE(attributes=tuple(table.attributes), class_values=table.classes).fit(table.X, table.y)
    assert list(load(merged).classes_) == ["yes", "no"]  # the header's order, kept by merge
    assert_allclose(load(merged).predict_log_proba(table.X), whole.predict_log_proba(table.X))
    code, _, err = run("train", WEATHER_NOMINAL, "--model", "aode", "--alpha", "0.5", "-o", tmp_path / "x.tnb")
    assert code == 1 and "--model aode" in err and err.count("\n") == 1
    code, _, err = run("train", WEATHER_NUMERIC, "--model", "aode", "--numeric", "kde", "-o", tmp_path / "x.tnb")
    assert code == 1 and "MDL" in err
