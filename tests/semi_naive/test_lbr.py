"""Tests of textnb.semi_naive.lbr: LBR / HLBR against a plain re-implementation of Weka 3.6's loop,
leave-one-out without retraining, model files, explanations, and Weka itself when present."""

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from textnb.naive_bayes.discretized import Discretized
from textnb.semi_naive.lbr import LBR, sign_test_p
from textnb.core.model_io import load

SHARED = Path(__file__).resolve().parents[3] / "shared"
WEKA_JAR = Path("/usr/share/java/weka.jar")


# -- a slow, literal reference: Weka's LBR.distributionForInstance, retraining every time --
def _nb_scores(X, y, rows, attrs, x, n_values, n_classes, leave_out=None):
    """Class products of NB trained on rows (minus leave_out), attrs in order, for x."""
    rows = [r for r in rows if r != leave_out]
    counts = np.zeros((n_classes, X.shape[1], max(n_values)))
    prior = np.zeros(n_classes)
    for r in rows:
        prior[y[r]] += 1
        for a in attrs:
            v = 0 if np.isnan(X[r, a]) else int(X[r, a])  # Weka counts missing as value 0
            counts[y[r], a, v] += 1
    out = np.empty(n_classes)
    for c in range(n_classes):
        p = (prior[c] + 1) / (len(rows) + n_classes)
        for a in attrs:
            if not np.isnan(x[a]):
                p *= (counts[c, a, int(x[a])] + 1) / (prior[c] + n_values[a])
        out[c] = p
    return out


def _loo_flags(X, y, rows, attrs, n_values, n_classes):
    return {r: int(np.argmax(_nb_scores(X, y, rows, attrs, X[r], n_values, n_classes, r))) == y[r]
            for r in rows}


def _reference_lbr(X, y, x, n_values, n_classes, candidates):
    rows = list(range(X.shape[0]))
    attrs = list(range(X.shape[1]))
    flags = _loo_flags(X, y, rows, attrs, n_values, n_classes)
    errors = sum(not f for f in flags.values())
    conds = []
    while errors >= 5:
        best, best_err = None, len(rows) + 1
        for a in attrs:
            if a not in candidates or np.isnan(x[a]):
                continue
            sub = [r for r in rows if X[r, a] == x[a]]
            if len(sub) == len(rows) or not sub:
                continue
            new = _loo_flags(X, y, sub, [b for b in attrs if b != a], n_values, n_classes)
            rem = sum(not flags[r] for r in rows if X[r, a] != x[a])
            nno = sum((not new[r]) and flags[r] for r in sub)
            onn = sum(new[r] and not flags[r] for r in sub)
            temp = sum(not f for f in new.values()) + rem
            if temp < best_err and sign_test_p(nno, nno + onn) < 0.05:
                best, best_err = (a, sub, new), temp
        if best is None:
            break
        a, rows, flags = best
        attrs.remove(a)
        conds.append((a, int(x[a])))
        errors = best_err
    scores = _nb_scores(X, y, rows, attrs, x, n_values, n_classes)
    return int(np.argmax(scores)), conds, len(rows)


def _interacting_data(n, seed, missing=0.0):
    """Nominal data whose class is an XOR of two attributes plus noise: LBR must condition."""
    rng = np.random.default_rng(seed)
    n_values = [2, 2, 3, 2, 3]
    X = np.column_stack([rng.integers(0, k, n) for k in n_values]).astype(float)
    y = ((X[:, 0] != X[:, 1]) ^ (rng.random(n) < 0.1)).astype(int)
    y[X[:, 2] == 2] = 2 * (rng.random((X[:, 2] == 2).sum()) < 0.3)
    if missing:
        X[rng.random(X.shape) < missing] = np.nan
    return X, y, n_values


@pytest.mark.slow
@pytest.mark.parametrize("candidates", ["all", "heuristic"])
@pytest.mark.parametrize("seed,missing", [(0, 0.0), (1, 0.05), (2, 0.1)])
def test_lbr_matches_literal_reference(candidates, seed, missing):
    X, y, n_values = _interacting_data(80, seed, missing)
    Xt, _, _ = _interacting_data(12, seed + 100, missing)
    model = LBR(candidates=candidates).fit(X, y, attributes=n_values, class_values=[0, 1, 2])
    cand = set(model.candidates_.tolist())
    pred = model.predict(Xt)
    rules = model.predict_rules(Xt)
    for i, x in enumerate(Xt):
        c, conds, size = _reference_lbr(X, y, x, n_values, 3, cand)
        assert pred[i] == c
        assert rules[i] == (conds, size)
    if candidates == "all":
        assert any(conds for conds, _ in rules)  # the search really conditions here


def test_lbr_conditions_on_interaction():
    X, y, n_values = _interacting_data(400, 3)
    model = LBR().fit(X, y, attributes=n_values)
    nb = LBR(min_errors=10**9).fit(X, y, attributes=n_values)
    assert model.nb_loo_errors_ == nb.nb_loo_errors_
    assert all(not conds for conds, _ in nb.predict_rules(X[:40]))
    assert any(conds for conds, _ in model.predict_rules(X[:40]))
    assert np.mean(model.predict(X) == y) > np.mean(nb.predict(X) == y) + 0.1


def test_hlbr_candidates_follow_the_filter():
    X, y, n_values = _interacting_data(200, 4)
    model = LBR(candidates="heuristic").fit(X, y, attributes=n_values)
    expect = np.flatnonzero(model.attribute_loo_errors_ < model.nb_loo_errors_)
    assert model.candidates_.tolist() == expect.tolist()
    # one-attribute antecedent errors, recomputed by literal leave-one-out
    a = 0
    errs = 0
    for r in range(X.shape[0]):
        sub = [s for s in range(X.shape[0]) if X[s, a] == X[r, a]]
        attrs = [b for b in range(X.shape[1]) if b != a]
        sc = _nb_scores(X, y, sub, attrs, X[r], n_values, 3, leave_out=r)
        errs += int(np.argmax(sc)) != y[r]
    assert model.attribute_loo_errors_[a] == errs


def test_missing_test_value_never_enters_the_antecedent():
    X, y, n_values = _interacting_data(300, 5)
    x = X[:5].copy()
    x[:, 0] = np.nan
    for conds, _ in LBR().fit(X, y, attributes=n_values).predict_rules(x):
        assert all(a != 0 for a, _ in conds)


def test_explain_names_attributes_and_values():
    from textnb.io.tables import Attribute

    X, y, n_values = _interacting_data(300, 6)
    atts = [Attribute(f"att{a}", "nominal", [f"v{v}" for v in range(k)])
            for a, k in enumerate(n_values)]
    model = LBR().fit(X, y, attributes=atts)
    pred, rules = model.predict_explain(X[:20])
    assert len(rules) == 20 and pred.shape == (20,)
    pat = re.compile(r"^((att\d=v\d)( & att\d=v\d)*|\(no conditions\)) -> local NB on \d+ objects?$")
    assert all(pat.match(r) for r in rules), rules
    assert any("&" in r or "=" in r for r in rules)


def test_numeric_attribute_is_refused():
    from textnb.io.tables import Attribute

    with pytest.raises(ValueError, match="nominal"):
        LBR().fit([[0.5], [1.5]], ["a", "b"], attributes=[Attribute("t", "numeric")])
    with pytest.raises(ValueError, match="value index"):
        LBR().fit([[0.5], [1.0]], ["a", "b"], attributes=[2])


@pytest.mark.slow
def test_parallel_equals_serial():
    X, y, n_values = _interacting_data(120, 7)
    a = LBR().fit(X, y, attributes=n_values)
    b = LBR(n_jobs=2).fit(X, y, attributes=n_values)
    assert a.predict_rules(X[:30]) == b.predict_rules(X[:30])
    np.testing.assert_allclose(a.predict_log_proba(X[:30]), b.predict_log_proba(X[:30]))


@pytest.mark.parametrize("candidates", ["all", "heuristic"])
def test_save_load_roundtrip(tmp_path, candidates):
    X, y, n_values = _interacting_data(150, 8, missing=0.05)
    y = np.array(["no", "yes", "maybe"])[y]
    model = LBR(candidates=candidates).fit(X, y, attributes=n_values)
    model.save(tmp_path / "m.tnb")
    again = load(tmp_path / "m.tnb")
    assert type(again) is LBR and again.get_params() == model.get_params()
    np.testing.assert_array_equal(again.candidates_, model.candidates_)
    assert again.explain(X[:20]) == model.explain(X[:20])
    np.testing.assert_allclose(again.predict_log_proba(X[:20]), model.predict_log_proba(X[:20]))


def test_rescaling_changes_no_decision(monkeypatch):
    """Products are rescaled by powers of two only when they could leave the normal range;
    forcing the rescaling everywhere gives the same rules, classes and scores."""
    import textnb.semi_naive.lbr_kernel as lbr

    X, y, n_values = _interacting_data(150, 9, missing=0.05)
    Xw = np.hstack([X] * 3)  # 15 attributes: two rescaling blocks
    kw = dict(attributes=n_values * 3, class_values=[0, 1, 2])
    plain = LBR().fit(Xw, y, **kw)
    want = (plain.predict_rules(Xw[:40]), plain.predict(Xw[:40]), plain.predict_log_proba(Xw[:40]))
    monkeypatch.setattr(lbr, "_SAFE_LOG2", np.inf)
    forced = LBR().fit(Xw, y, **kw)
    assert forced.nb_loo_errors_ == plain.nb_loo_errors_
    assert forced.predict_rules(Xw[:40]) == want[0]
    np.testing.assert_array_equal(forced.predict(Xw[:40]), want[1])
    np.testing.assert_allclose(forced.predict_log_proba(Xw[:40]), want[2], atol=1e-9)


def test_sign_test():
    assert sign_test_p(0, 0) == 1.0
    assert sign_test_p(3, 3) == 1.0
    assert sign_test_p(0, 5) == pytest.approx(1 / 32)
    assert sign_test_p(1, 6) == pytest.approx(7 / 64)


@parametrize_with_checks([LBR(candidates="heuristic")])
def test_sklearn_compatible(estimator, check):
    check(estimator)


# -- Weka 3.6 itself, on a nominal UCI split -------------------------------------------------
def _weka_predictions(train, test):
    out = subprocess.run(
        ["java", "-cp", str(WEKA_JAR), "weka.classifiers.lazy.LBR", "-t", str(train),
         "-T", str(test), "-p", "0"], capture_output=True, text=True, timeout=300,
    ).stdout
    return [int(m.group(1)) - 1 for m in
            (re.match(r"\s*\d+\s+\S+\s+(\d+):", line) for line in out.splitlines()) if m]


@pytest.mark.skipif(not (SHARED / "datasets" / "uci" / "breast-cancer.arff").exists()
                    or not WEKA_JAR.exists() or shutil.which("java") is None,
                    reason="needs ../shared UCI data and Weka 3.6")
def test_same_predictions_as_weka(tmp_path):
    from textnb.io.tables import read_table

    src = (SHARED / "datasets" / "uci" / "breast-cancer.arff").read_text().splitlines()
    at = next(i for i, line in enumerate(src) if line.strip().lower().startswith("@data"))
    rows = [line for line in src[at + 1:] if line.strip() and not line.startswith("%")]
    rng = np.random.default_rng(0)
    order = rng.permutation(len(rows))
    cut = 190
    for name, part in (("train", order[:cut]), ("test", order[cut:])):
        (tmp_path / f"{name}.arff").write_text("\n".join(src[:at + 1] + [rows[i] for i in part]) + "\n")
    train, test = read_table(tmp_path / "train.arff"), read_table(tmp_path / "test.arff")
    model = LBR().fit(train.X, train.y, attributes=train.attributes,
                      class_values=train.class_attribute.values)
    ours = model.predict(test.X)
    weka = [train.class_attribute.values[i] for i in
            _weka_predictions(tmp_path / "train.arff", tmp_path / "test.arff")]
    assert len(weka) == len(ours)
    assert list(ours) == weka


@pytest.mark.parametrize("lazy", ["lbr", "hlbr"])
def test_inspect_of_a_lazy_table_model_shows_its_training_data(tmp_path, lazy):
    """``textnb inspect`` of ``train --lazy`` on a table (LBR inside the discretiser) was
    refused ('cannot inspect a Discretized model'): it describes the objects the rules are
    drawn from, as counted from the ARFF file, and the numeric attributes' intervals."""
    import io
    import json

    from textnb.cli.commands import main

    repo = Path(__file__).resolve().parents[2]
    data = repo / "corpora" / "weather.numeric.arff"
    model = tmp_path / "m.tnb"

    def cli(*argv):
        out, err = io.StringIO(), io.StringIO()
        return main([str(a) for a in argv], stdout=out, stderr=err), out.getvalue(), err.getvalue()

    assert cli("train", data, "--lazy", lazy, "-o", model)[0] == 0
    rc, out, err = cli("inspect", model, "--json")
    assert rc == 0, err
    info = json.loads(out)
    text = data.read_text()
    rows = [line.split(",") for line in text[text.lower().index("@data") + 5:].split("\n")
            if line.strip() and not line.startswith("%")]
    labels = [r[-1].strip() for r in rows]
    assert info["model"] == lazy.upper() and info["n_train"] == len(labels) == 14
    assert dict(zip(info["classes"], info["class_count"])) == {c: labels.count(c) for c in set(labels)}
    outlook = next(a for a in info["attributes"] if a["name"] == "outlook")
    column = [r[0].strip() for r in rows]
    for c in info["classes"]:
        assert outlook["counts"][c] == [sum(1 for v, y in zip(column, labels) if v == value and y == c)
                                        for value in outlook["values"]]
    temperature = next(a for a in info["attributes"] if a["name"] == "temperature")
    assert temperature["kind"] == "numeric" and "cut_points" in temperature
    assert len(temperature["values"]) == len(temperature["cut_points"]) + 1
    assert sum(sum(v) for v in temperature["counts"].values()) + temperature["missing"] == 14
    assert [a["candidate"] for a in info["attributes"]] == [
        lazy == "lbr" or a["loo_errors"] < info["nb_loo_errors"] for a in info["attributes"]]
    rc, text, err = cli("inspect", model)
    assert rc == 0, err
    assert text.startswith(f"model: {lazy.upper()}\n")
    assert f"training objects: 14; naive Bayes leave-one-out errors: {info['nb_loo_errors']}" in text
    assert "outlook [nominal, nominal" in text and "temperature [numeric, mdl-discretised" in text


def test_sign_test_below_decides_as_scipys_bdtr():
    """LBR's sign tests are decided without scipy (an lgamma estimate, the exact integer
    tail near the level): the decisions of ``sign_test_p(k, n) < level`` with scipy's
    ``bdtr``, also at dyadic levels that some p-values equal exactly."""
    from textnb.semi_naive.lbr_kernel import sign_test_below, sign_test_p

    for n in range(0, 120):
        for k in range(0, n + 1):
            for level in (0.05, 0.01, 0.5, 0.0625, 1.0):
                assert sign_test_below(k, n, level) == (sign_test_p(k, n) < level), (k, n, level)
    rng = np.random.default_rng(0)
    for _ in range(300):
        n = int(rng.integers(120, 30000))
        k = int(n / 2 - rng.integers(0, 4 * int(np.sqrt(n)))) if rng.random() < 0.7 else int(rng.integers(0, n + 1))
        assert sign_test_below(k, n, 0.05) == (sign_test_p(k, n) < 0.05), (k, n)


def test_evaluate_lazy_on_a_header_declaring_a_class_no_row_has(tmp_path):
    """LBR takes the ARFF header's class values (Weka's order), so its models have a column
    for a declared class no row holds (glass, heart-c): ``evaluate --lazy`` was an internal
    error (exit 70); the report names the data's classes, as for every other model."""
    import io
    import json

    from textnb.cli.commands import main

    rows = "".join(f"{'xyz'[i % 3]},{'pq'[(i // 3) % 2]},{'ab'[(i % 3 == 0) ^ (i % 7 == 0)]}\n" for i in range(60))
    arff = tmp_path / "t.arff"
    arff.write_text("@relation t\n@attribute u {x,y,z}\n@attribute v {p,q}\n@attribute class {a,b,never}\n"
                    f"@data\n{rows}")
    test = tmp_path / "test.arff"
    test.write_text(arff.read_text())
    for extra in (["--cv", "3"], ["--test", str(test)]):
        for lazy in (["--lazy", "lbr"], ["--lazy", "hlbr", "--adjust"]):
            out, err = io.StringIO(), io.StringIO()
            assert main(["evaluate", str(arff), *lazy, *extra, "--json"], stdout=out, stderr=err) == 0, err.getvalue()
            report = json.loads(out.getvalue())
            assert report["classes"] == ["a", "b"] and sum(map(sum, report["confusion_matrix"])) == 60


def test_discretized_keeps_its_feature_names_in_the_model_file(tmp_path):
    """A Discretized fitted on a DataFrame keeps ``feature_names_in_`` through save and
    load (it came back None, and predicting on the DataFrame warned 'X has feature names,
    but Discretized was fitted without feature names'); a file without them (older files,
    array input) loads as before."""
    import warnings

    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"x": [1., 2, 1.5, 2.5, 1.2, 2.2], "c": list("ababab"), "y": list("pnpnpn")})
    X = df[["x", "c"]]
    model = Discretized(LBR()).fit(X, df["y"])
    model.save(tmp_path / "d.tnb")
    loaded = load(tmp_path / "d.tnb")
    assert list(loaded.feature_names_in_) == ["x", "c"]
    expected = model.predict_proba(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_allclose(loaded.predict_proba(X), expected)
    del model.feature_names_in_  # as an older file holds it
    model.save(tmp_path / "old.tnb")
    old = load(tmp_path / "old.tnb")
    assert not hasattr(old, "feature_names_in_")
    codes = np.column_stack([df["x"], [0.0, 1.0] * 3])  # "c" as value indices: a, b
    np.testing.assert_allclose(old.predict_proba(codes), expected)
