"""Tests of textnb.semi_naive.bayesnet: BayesNetClassifier (given DAG) and TAN."""

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import logsumexp
from sklearn.utils.estimator_checks import parametrize_with_checks

from textnb.semi_naive.bayesnet import (
    TAN,
    BayesNetClassifier,
    conditional_mutual_information,
    read_structure,
)
from textnb.core.errors import InputError
from textnb.core.model_io import load, save
from textnb.core.stats import class_indicator

# Weka's weather data (nominal): outlook, temperature, humidity, windy -> play.
OUTLOOK = ["sunny", "overcast", "rainy"]
TEMPERATURE = ["hot", "mild", "cool"]
HUMIDITY = ["high", "normal"]
WINDY = ["FALSE", "TRUE"]
WEATHER = """sunny hot high FALSE no
sunny hot high TRUE no
overcast hot high FALSE yes
rainy mild high FALSE yes
rainy cool normal FALSE yes
rainy cool normal TRUE no
overcast cool normal TRUE yes
sunny mild high FALSE no
sunny cool normal FALSE yes
rainy mild normal FALSE yes
sunny mild normal TRUE yes
overcast mild high TRUE yes
overcast hot normal FALSE yes
rainy mild high TRUE no"""
WEATHER_NAMES = ["outlook", "temperature", "humidity", "windy"]


def weather():
    X, y = [], []
    for line in WEATHER.splitlines():
        o, t, h, w, p = line.split()
        X.append([OUTLOOK.index(o), TEMPERATURE.index(t), HUMIDITY.index(h), WINDY.index(w)])
        y.append(p)
    return np.array(X, dtype=float), np.array(y)


# ------------------------------------------------------------------------------
# scikit-learn conventions

# Both models take nominal value indices (integers >= 0) only; these two checks feed
# raw uniform floats (no categorical / positive_only tag applied) and so get the
# "discretise first" ValueError by design.
EXPECTED_FAILED = {
    "check_sample_weight_equivalence_on_dense_data": "nominal value indices only: rejects non-integer X",
    "check_classifiers_one_label_sample_weights": "nominal value indices only: rejects non-integer X",
}


# the defaults are checked with every export (tests/test_sklearn_cases.py); here variants
@parametrize_with_checks(
    [TAN(missing="mode"), BayesNetClassifier(alpha=0.5)], expected_failed_checks=lambda est: EXPECTED_FAILED
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_rejects_non_integer_values():
    with pytest.raises(ValueError, match="Discretise numeric attributes first"):
        TAN().fit([[0.5, 1], [1, 0]], ["a", "b"])
    with pytest.raises(ValueError, match="Negative values"):
        BayesNetClassifier().fit([[-1, 1], [1, 0]], ["a", "b"])
    tan = TAN().fit([[0, 1], [1, 0]], ["a", "b"])
    with pytest.raises(ValueError, match="nominal value indices"):
        tan.predict([[0.5, 1]])


def test_rejects_numeric_attribute():
    from textnb.io.tables import Attribute

    attrs = [Attribute("a", "nominal", ["x", "y"]), Attribute("b", "numeric")]
    with pytest.raises(ValueError, match="discretise it first"):
        TAN(attributes=attrs).fit([[0, 1.0], [1, 2.0]], ["p", "q"])


# ------------------------------------------------------------------------------
# naive Bayes as the special case: a hand computation


def test_naive_bayes_special_case_by_hand():
    # Witten & Frank's weather day (sunny, cool, high, true), Laplace everywhere:
    # class prior (n_c + 1) / (14 + 2): yes 10/16, no 6/16;
    # yes: (2+1)/(9+3) (3+1)/(9+3) (3+1)/(9+2) (3+1)/(9+2)
    # no:  (3+1)/(5+3) (1+1)/(5+3) (4+1)/(5+2) (3+1)/(5+2)
    X, y = weather()
    nb = BayesNetClassifier(attributes=WEATHER_NAMES, class_name="play").fit(X, y)
    assert nb.structure_ == {
        "outlook": ("play",), "temperature": ("play",), "humidity": ("play",),
        "windy": ("play",), "play": (),
    }
    p_yes = 10 / 16 * 3 / 12 * 4 / 12 * 4 / 11 * 4 / 11
    p_no = 6 / 16 * 4 / 8 * 2 / 8 * 5 / 7 * 4 / 7
    proba = nb.predict_proba([[0, 2, 0, 1]])
    assert_array_equal(nb.classes_, ["no", "yes"])
    assert_allclose(proba[0], [p_no / (p_no + p_yes), p_yes / (p_no + p_yes)])
    # outlook missing: its factor is left out
    p_yes_m, p_no_m = p_yes / (3 / 12), p_no / (4 / 8)
    proba = nb.predict_proba([[np.nan, 2, 0, 1]])
    assert_allclose(proba[0], [p_no_m / (p_no_m + p_yes_m), p_yes_m / (p_no_m + p_yes_m)])
    # joint log likelihood is the log of the unnormalised products
    assert_allclose(nb.predict_joint_log_proba([[0, 2, 0, 1]])[0], np.log([p_no, p_yes]))


def weather_attributes():
    from textnb.io.tables import Attribute

    values = [OUTLOOK, TEMPERATURE, HUMIDITY, WINDY]
    return [Attribute(n, "nominal", v) for n, v in zip(WEATHER_NAMES, values)]


@pytest.mark.parametrize("alpha", [1.0, 0.5])
def test_naive_bayes_special_case_matches_tabular_nb(alpha):
    from textnb.naive_bayes import tabular

    X, y = weather()
    X[[1, 5, 9, 12], [0, 2, 3, 0]] = np.nan
    attrs = weather_attributes()
    bn = BayesNetClassifier(attributes=attrs, alpha=alpha).fit(X, y)
    nb = tabular.TabularNB(attributes=attrs, alpha=alpha).fit(X, y)
    Xq = np.vstack([X, [[np.nan, 2, 0, 1], [0, np.nan, np.nan, np.nan]]])
    assert_allclose(bn.predict_joint_log_proba(Xq), nb.predict_joint_log_proba(Xq), atol=1e-12)


# ------------------------------------------------------------------------------
# TAN


def test_cmi_by_hand():
    # two attributes, equal within each class for class a; independent for class b
    X = np.array([[0, 0], [1, 1], [0, 0], [1, 1], [0, 0], [0, 1], [1, 0], [1, 1]], float)
    y = np.array(["a"] * 4 + ["b"] * 4)
    Y = class_indicator(np.searchsorted(["a", "b"], y), 2)
    cmi = conditional_mutual_information(X, Y, [2, 2])
    # class a: X1 = X2, each uniform -> I = log 2; class b: I = 0; weighted 1/2 each
    assert_allclose(cmi, [[0, np.log(2) / 2], [np.log(2) / 2, 0]])
    # a missing value drops the object from the pair's counts only
    X[0, 1] = np.nan
    cmi = conditional_mutual_information(X, Y, [2, 2])
    # class a now: (1,1),(0,0),(1,1): I = H(X1) = -(1/3 log 1/3 + 2/3 log 2/3); weight 3/7
    h = -(1 / 3 * np.log(1 / 3) + 2 / 3 * np.log(2 / 3))
    assert_allclose(cmi[0, 1], 3 / 7 * h)


def test_tan_weather_tree_matches_weka():
    # Weka 3.6.14: BayesNet -Q ...search.local.TAN -- -S ENTROPY gives the arcs
    # outlook-temperature, temperature-humidity, outlook-windy
    X, y = weather()
    tan = TAN(attributes=WEATHER_NAMES, class_name="play").fit(X, y)
    edges = {frozenset((n, p)) for n, pa in tan.structure_.items() for p in pa if p != "play"}
    assert edges == {
        frozenset(("outlook", "temperature")),
        frozenset(("temperature", "humidity")),
        frozenset(("outlook", "windy")),
    }
    assert all(pa[0] == "play" for n, pa in tan.structure_.items() if n != "play")
    assert tan.structure_["outlook"] == ("play",)  # default root: the first attribute
    text = tan.structure_text()
    assert "outlook" in text and "└── windy" in text


def test_weka_probabilities_with_weka_structure():
    # Weka's network for the weather data (rooted at humidity), SimpleEstimator -A 0.5:
    # its training-set distributions (printed by -p 0 -distribution) for rows 1..5
    X, y = weather()
    parents = {
        "outlook": ["play", "temperature"],
        "temperature": ["play", "humidity"],
        "humidity": ["play"],
        "windy": ["play", "outlook"],
    }
    bn = BayesNetClassifier(parents=parents, alpha=0.5, attributes=WEATHER_NAMES, class_name="play")
    p_no = bn.fit(X, y).predict_proba(X[:5])[:, 0]
    assert_allclose(p_no, [0.914, 0.864, 0.253, 0.154, 0.089], atol=5e-4)


def test_tan_equals_bayes_net_with_its_structure():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(200, 6)).astype(float)
    X[:, 1] = (X[:, 0] + rng.integers(0, 2, size=200)) % 3
    y = np.where(X[:, 0] + X[:, 2] > 2, "p", "q")
    X[rng.random(X.shape) < 0.1] = np.nan
    for missing in ("ignore", "mode"):
        tan = TAN(missing=missing, root=2).fit(X, y)
        bn = BayesNetClassifier(parents=dict(tan.structure_), missing=missing).fit(X, y)
        assert bn.structure_ == tan.structure_
        assert_allclose(bn.predict_log_proba(X), tan.predict_log_proba(X))
    assert tan.structure_["x2"] == ("class",)
    # a spanning tree: d - 1 attribute arcs, every attribute reached
    assert sum(len(pa) - 1 for n, pa in tan.structure_.items() if n != "class") == 5


def test_tan_sample_weight_is_repetition():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 3, size=(40, 4)).astype(float)
    y = rng.choice(["a", "b", "c"], size=40)
    w = rng.integers(0, 3, size=40)
    a = TAN().fit(X, y, sample_weight=w)
    b = TAN().fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    assert a.structure_ == b.structure_
    assert_allclose(a.predict_log_proba(X), b.predict_log_proba(X))


def test_single_attribute_and_root_name():
    tan = TAN(root="x0").fit([[0], [1], [1]], ["a", "b", "b"])
    assert tan.structure_ == {"x0": ("class",), "class": ()}
    with pytest.raises(ValueError, match="root 'nope'"):
        TAN(root="nope").fit([[0], [1]], ["a", "b"])


def test_missing_parent_uses_the_childs_own_counts():
    # x1 <- class, x0. Rows with x0 missing still count in P(x1 | c); when x0 is
    # missing at prediction the factor is that naive Bayes factor, as for NB itself
    X = np.array([[0, 0], [0, 0], [1, 1], [np.nan, 1], [np.nan, 1], [1, 0], [0, 1], [np.nan, 0]])
    y = np.array(["a", "a", "a", "a", "b", "b", "b", "b"])
    bn = BayesNetClassifier(parents={"x1": ["class", "x0"]}).fit(X, y)
    nb = BayesNetClassifier().fit(X, y)
    q = [[np.nan, 1], [np.nan, 0]]
    assert_allclose(bn.predict_log_proba(q), nb.predict_log_proba(q))
    # by hand: P(c) = 5/10 each; P(x1=1 | a) = (2+1)/(4+2), P(x1=1 | b) = (2+1)/(4+2)
    assert_allclose(bn.predict_proba(q), 0.5)
    # with x0 known the full CPT is used. P(x0=1 | a) = (1+1)/(3+2), b: (1+1)/(2+2);
    # P(x1=1 | a, x0=1) = (1+1)/(1+2), b: (0+1)/(1+2) -> a: 1/2·2/5·2/3, b: 1/2·1/2·1/3
    assert_allclose(bn.predict_proba([[1, 1]])[0], [8 / 13, 5 / 13])


def test_m_estimate_by_hand():
    X = np.array([[0, 0], [0, 0], [1, 1], [np.nan, 1], [np.nan, 1], [1, 0], [0, 1], [np.nan, 0]])
    y = np.array(["a", "a", "a", "a", "b", "b", "b", "b"])
    bn = BayesNetClassifier(parents={"x1": ["class", "x0"]}, m=4).fit(X, y)
    # x0 has no attribute parent: Laplace, P(x0=1 | a) = 2/5, b: 1/2.
    # x1 | class, x0: m-estimate towards P(x1 | c) = (2+1)/(4+2) = 1/2 for both classes:
    # a: (1 + 4·1/2)/(1 + 4) = 3/5, b: (0 + 4·1/2)/(1 + 4) = 2/5
    p_a, p_b = 1 / 2 * 2 / 5 * 3 / 5, 1 / 2 * 1 / 2 * 2 / 5
    assert_allclose(bn.predict_proba([[1, 1]])[0], [p_a / (p_a + p_b), p_b / (p_a + p_b)])
    probs, axes = bn.cpt("x1")
    assert axes == ("class", "x0", "x1")
    assert_allclose(probs.sum(axis=-1), 1)
    with pytest.raises(ValueError, match="m must be"):
        TAN(m=-1).fit(X, y)


def test_unseen_value_counts_as_missing():
    X, y = weather()
    tan = TAN().fit(X, y)
    row = X[:1].copy()
    row_unseen = row.copy()
    row_unseen[0, 3] = 7
    row_missing = row.copy()
    row_missing[0, 3] = np.nan
    assert_allclose(tan.predict_log_proba(row_unseen), tan.predict_log_proba(row_missing))


# ------------------------------------------------------------------------------
# the textbook's lung-cancer network (Han, Kamber & Pei §9.1), made-up counts

FH_S_LC = (
    # (FamilyHistory, Smoker, LungCancer, number of objects)
    ("yes", "yes", "yes", 7), ("yes", "yes", "no", 1),
    ("yes", "no", "yes", 6), ("yes", "no", "no", 2),
    ("no", "yes", "yes", 4), ("no", "yes", "no", 4),
    ("no", "no", "yes", 0), ("no", "no", "no", 8),
)
LUNG_NAMES = ["FamilyHistory", "Smoker", "Emphysema", "PositiveXRay", "Dyspnea"]
LUNG_PARENTS = {
    "FamilyHistory": [],
    "Smoker": [],
    "LungCancer": ["FamilyHistory", "Smoker"],
    "Emphysema": ["Smoker"],
    "PositiveXRay": ["LungCancer"],
    "Dyspnea": ["LungCancer", "Emphysema"],
}


def lung_data():
    """32 patients; values are indices into ["yes", "no"]; class LungCancer.

    LungCancer = yes (17): PositiveXRay yes 14 / no 3; (Emphysema, Dyspnea):
    (no, yes) 9, (no, no) 3, (yes, yes) 5.
    LungCancer = no (15): PositiveXRay yes 2 / no 13; (Emphysema, Dyspnea):
    (no, yes) 2, (no, no) 10, (yes, no) 3.
    """
    yn = {"yes": 0, "no": 1}
    rows, labels = [], []
    for lc, px, ed in (
        ("yes", ["yes"] * 14 + ["no"] * 3, [("no", "yes")] * 9 + [("no", "no")] * 3 + [("yes", "yes")] * 5),
        ("no", ["yes"] * 2 + ["no"] * 13, [("no", "yes")] * 2 + [("no", "no")] * 10 + [("yes", "no")] * 3),
    ):
        fs = [(f, s) for f, s, c, n in FH_S_LC if c == lc for _ in range(n)]
        for (f, s), p, (e, d) in zip(fs, px, ed, strict=True):
            rows.append([yn[f], yn[s], yn[e], yn[p], yn[d]])
            labels.append(lc)
    return np.array(rows, dtype=float), np.array(labels)


def test_lung_cancer_network_by_hand():
    X, y = lung_data()
    bn = BayesNetClassifier(parents=LUNG_PARENTS, attributes=LUNG_NAMES, class_name="LungCancer")
    bn.fit(X, y)
    assert bn.structure_["LungCancer"] == ("FamilyHistory", "Smoker")
    assert bn.structure_["Emphysema"] == ("Smoker",)
    # Markov blanket of LungCancer: its parents, its children, and Dyspnea's other parent
    assert bn.markov_blanket() == LUNG_NAMES
    # Laplace CPT of LungCancer = the textbook's figure: (7+1)/(8+2) = 0.8,
    # (6+1)/(8+2) = 0.7, (4+1)/(8+2) = 0.5, (0+1)/(8+2) = 0.1 for LungCancer = yes
    probs, axes = bn.cpt("LungCancer")
    assert axes == ("FamilyHistory", "Smoker", "LungCancer")
    yes = list(bn.classes_).index("yes")
    assert_allclose(probs[..., yes], [[0.8, 0.7], [0.5, 0.1]])
    # patient: FamilyHistory yes, Smoker yes, Emphysema no, PositiveXRay yes, Dyspnea yes
    # P(LC=yes, x) ∝ 0.8 · P(PX=yes | LC=yes) · P(D=yes | LC=yes, E=no)
    #             = 0.8 · (14+1)/(17+2) · (9+1)/(12+2)
    # P(LC=no, x)  ∝ 0.2 · (2+1)/(15+2) · (2+1)/(12+2)
    p_yes = 0.8 * 15 / 19 * 10 / 14
    p_no = 0.2 * 3 / 17 * 3 / 14
    x = [[0, 0, 1, 0, 0]]
    assert_allclose(bn.predict_proba(x)[0, yes], p_yes / (p_yes + p_no))
    assert bn.predict(x)[0] == "yes"
    # Dyspnea missing: its factor is left out
    x = [[0, 0, 1, 0, np.nan]]
    q_yes, q_no = 0.8 * 15 / 19, 0.2 * 3 / 17
    assert_allclose(bn.predict_proba(x)[0, yes], q_yes / (q_yes + q_no))
    # FamilyHistory missing: summed out of LungCancer's counts,
    # P(LC=yes | S=yes) = (7+4+1)/(16+2) = 2/3
    x = [[np.nan, 0, 1, 0, 0]]
    r_yes = 12 / 18 * 15 / 19 * 10 / 14
    r_no = 6 / 18 * 3 / 17 * 3 / 14
    assert_allclose(bn.predict_proba(x)[0, yes], r_yes / (r_yes + r_no))
    # Emphysema is only in the blanket as Dyspnea's co-parent: it changes the answer
    x_e = [[0, 0, 0, 0, 0]]  # Emphysema yes: D=yes | LC=yes,E=yes (5+1)/(5+2); LC=no (0+1)/(3+2)
    s_yes = 0.8 * 15 / 19 * 6 / 7
    s_no = 0.2 * 3 / 17 * 1 / 5
    assert_allclose(bn.predict_proba(x_e)[0, yes], s_yes / (s_yes + s_no))


def test_lung_cancer_structure_text_and_file(tmp_path):
    X, y = lung_data()
    path = tmp_path / "lung.json"
    path.write_text(json.dumps({"parents": LUNG_PARENTS, "class": "LungCancer"}))
    structure = read_structure(path)
    assert structure["class"] == "LungCancer"
    bn = BayesNetClassifier(
        parents=structure["parents"], attributes=LUNG_NAMES, class_name=structure["class"]
    ).fit(X, y)
    text = bn.structure_text()
    assert "LungCancer" in text and "Dyspnea" in text
    assert "<- LungCancer, Emphysema" in text
    assert "FamilyHistory" in text.splitlines()[1] and "(no parents)" in text.splitlines()[1]


# ------------------------------------------------------------------------------
# bad structures


@pytest.mark.parametrize(
    "parents, message",
    [
        ({"x0": ["x1"], "x1": ["x0"]}, r"cycle: x\d <- x\d <- x\d"),
        ({"x0": ["class"], "class": ["x0"]}, "cycle"),
        ({"x0": ["x1"], "x1": ["x2"], "x2": ["x0", "class"]}, "cycle"),
        ({"x9": ["class"]}, "unknown node 'x9'"),
        ({"x0": ["nope"]}, "parent 'nope' of 'x0' is not a known node"),
        ({"x0": ["x0"]}, "its own parent"),
        ({"x0": ["x1", "x1"]}, "twice"),
        (["x0"], "must be a dict"),
    ],
)
def test_bad_structures(parents, message):
    X = [[0, 1, 0], [1, 0, 1]]
    with pytest.raises(InputError, match=message) as info:
        BayesNetClassifier(parents=parents).fit(X, ["a", "b"])
    assert "\n" not in str(info.value)
    assert isinstance(info.value, ValueError)


def test_class_name_clash():
    with pytest.raises(InputError, match="like the class node"):
        BayesNetClassifier(attributes=["class", "b"]).fit([[0, 1], [1, 0]], ["a", "b"])


def test_read_structure_errors(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(InputError, match="bad.json: not a JSON"):
        read_structure(bad)
    bad.write_text(json.dumps({"parents": {"a": "b"}}))
    with pytest.raises(InputError, match="must be a list"):
        read_structure(bad)
    bad.write_text(json.dumps({"edges": []}))
    with pytest.raises(InputError, match="expected"):
        read_structure(bad)
    with pytest.raises(InputError, match="missing.json: no such structure file"):
        read_structure(tmp_path / "missing.json")


@pytest.mark.parametrize("structure, field", [
    ('{"parents": {}, "class": "\\ud800"}', "class"),
    ('{"parents": {"a": ["b", "x\\udfff"]}}', "parents"),
    ('{"parents": {"\\ud800": []}}', "parents"),
])
def test_a_lone_surrogate_in_a_structure_file_is_refused_as_every_reader_refuses_it(tmp_path, structure, field):
    """A JSON ``\\ud800`` escape without its pair in a ``--structure`` file is refused in the
    words of every reader of text (a JSON Lines row's: :func:`~textnb.core.errors.not_text`),
    naming the file and its field, one line, exit 1, no model written (*was*: read, and a class
    node named ``'\\ud800'`` written into the model file; the other names by chance refused as
    unknown nodes)."""
    import io
    import re

    from textnb.cli.commands import main

    path = tmp_path / "s.json"
    path.write_text(structure + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=rf"^{re.escape(str(path))}: field '{field}': '\\ud[89a-f][0-9a-f]{{2}}' at "
                                         r"character \d+ is a lone surrogate, not text \(JSON's"):
        read_structure(path)
    data = tmp_path / "t.csv"
    data.write_text("a,b,class\nx,y,p\nx,z,q\ny,y,p\ny,z,q\n", encoding="utf-8")
    for cmd in (["train", data, "-o", tmp_path / "m.tnb"], ["evaluate", data, "--cv", "2"]):
        out, err = io.StringIO(), io.StringIO()
        rc = main([str(a) for a in (*cmd, "--class", "class", "--model", "bn", "--structure", path)], stdout=out, stderr=err)
        assert rc == 1 and err.getvalue().startswith(f"textnb: error: {path}: field '{field}': ") \
            and "lone surrogate, not text" in err.getvalue() and err.getvalue().count("\n") == 1, err.getvalue()
    assert not (tmp_path / "m.tnb").exists()


# ------------------------------------------------------------------------------
# model files and pictures


@pytest.mark.parametrize(
    "model",
    [TAN(alpha=0.5, missing="mode"), TAN(root=1), BayesNetClassifier(parents={"x1": ["class", "x0"]})],
)
def test_save_load(tmp_path, model):
    X, y = weather()
    X[2, 1] = np.nan
    model.fit(X, y)
    path = tmp_path / "m.tnb"
    save(model, path)
    back = load(path)
    assert type(back) is type(model)
    assert back.structure_ == model.structure_
    assert back.get_params() == model.get_params()
    Xq = X.copy()
    Xq[0, 0] = Xq[3, 2] = np.nan
    assert_allclose(back.predict_log_proba(Xq), model.predict_log_proba(Xq))
    assert back.structure_text() == model.structure_text()


@pytest.mark.parametrize("model", [TAN(alpha=0.5, missing="mode"),
                                   BayesNetClassifier(parents={"temperature": ["class", "outlook"]}, missing="mode")])
def test_missing_mode_of_a_column_with_no_known_value_saves(tmp_path, model):
    # anneal.ORIG's training parts have such columns: the mode was NaN, the model
    # predicted but its file was refused ("TAN.modes_: holds NaN"); Weka's
    # ReplaceMissingValues gives such a column its first value
    from sklearn.base import clone

    from textnb.io.tables import Attribute

    X, y = weather()
    X[:, 3] = np.nan
    attrs = [Attribute(n, "nominal", v) for n, v in zip(WEATHER_NAMES, [OUTLOOK, TEMPERATURE, HUMIDITY, WINDY])]
    model.set_params(attributes=attrs).fit(X, y)
    assert_array_equal(model.modes_[3], 0.0)
    filled = X.copy()
    filled[:, 3] = 0.0
    reference = clone(model).fit(filled, y)
    assert_allclose(model.predict_log_proba(X), reference.predict_log_proba(filled))
    path = tmp_path / "m.tnb"
    save(model, path)
    assert_allclose(load(path).predict_log_proba(X), model.predict_log_proba(X))


def test_save_load_with_attributes(tmp_path):
    from textnb.io.tables import Attribute

    attrs = [Attribute(n, "nominal", v) for n, v in zip(WEATHER_NAMES, [OUTLOOK, TEMPERATURE, HUMIDITY, WINDY])]
    X, y = weather()
    tan = TAN(attributes=attrs, class_name="play").fit(X, y)
    path = tmp_path / "w.tnb"
    tan.save(path)
    back = load(path)
    assert back.structure_ == tan.structure_
    assert_array_equal(back.n_values_, [3, 3, 2, 2])
    assert list(back.attributes) == attrs
    assert_allclose(back.predict_log_proba(X), tan.predict_log_proba(X))


def test_numeric_mdl_inside_fit(tmp_path):
    from textnb.naive_bayes.discretize import MDLDiscretizer
    from textnb.io.tables import Attribute

    rng = np.random.default_rng(3)
    y = rng.choice(["p", "q"], size=120)
    X = np.column_stack([
        rng.normal(size=120) + (y == "p") * 2,  # numeric, informative
        rng.integers(0, 3, size=120),  # nominal
        rng.normal(size=120) - (y == "p"),  # numeric
    ])
    attrs = [Attribute("u", "numeric"), Attribute("v", "nominal", ["a", "b", "c"]), Attribute("w", "numeric")]
    with pytest.raises(ValueError, match="numeric='mdl'"):
        TAN(attributes=attrs).fit(X, y)
    tan = TAN(attributes=attrs, numeric="mdl").fit(X, y)
    # the same as discretising first with MDLDiscretizer
    disc = MDLDiscretizer(nominal_mask=[False, True, False]).fit(X, y)
    Xd = disc.transform(X)
    ref = TAN().fit(Xd, y)
    assert_allclose(tan.predict_log_proba(X), ref.predict_log_proba(Xd))
    path = tmp_path / "n.tnb"
    tan.save(path)
    assert_allclose(load(path).predict_log_proba(X), tan.predict_log_proba(X))


def test_plot_structure(tmp_path):
    pytest.importorskip("matplotlib")
    X, y = lung_data()
    bn = BayesNetClassifier(parents=LUNG_PARENTS, attributes=LUNG_NAMES, class_name="LungCancer").fit(X, y)
    path = tmp_path / "lung.png"
    bn.plot_structure(path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    Xw, yw = weather()
    TAN().fit(Xw, yw).plot_structure(tmp_path / "tan.png")
    assert (tmp_path / "tan.png").stat().st_size > 1000


def test_plot_structure_never_replaces_a_file_that_is_not_a_png(tmp_path):
    pytest.importorskip("matplotlib")
    Xw, yw = weather()
    model = tmp_path / "tan.tnb"
    tan = TAN().fit(Xw, yw)
    tan.save(model)
    before = model.read_bytes()
    with pytest.raises(ValueError, match="cannot write a picture as '.tnb'"):
        tan.plot_structure(model)
    named_png = tmp_path / "model.png"
    model_bytes = model.read_bytes()
    named_png.write_bytes(model_bytes)
    with pytest.raises(ValueError, match="exists and is not a picture"):
        tan.plot_structure(named_png)
    assert model.read_bytes() == before == named_png.read_bytes()


def test_plot_structure_without_matplotlib(tmp_path, monkeypatch):
    import sys

    from textnb.core.errors import TextnbError

    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    X, y = weather()
    with pytest.raises(TextnbError, match="matplotlib is needed"):
        TAN().fit(X, y).plot_structure(tmp_path / "x.png")
    assert not (tmp_path / "x.png").exists()


def test_predict_log_proba_normalised():
    X, y = weather()
    X[[0, 4, 7], [1, 2, 3]] = np.nan
    tan = TAN().fit(X, y)
    lp = tan.predict_log_proba(X)
    assert_allclose(logsumexp(lp, axis=1), 0, atol=1e-12)


# ------------------------------------------------------------------------------
# properties


@st.composite
def nominal_data(draw):
    n = draw(st.integers(4, 30))
    d = draw(st.integers(1, 5))
    X = draw(arrays(np.float64, (n, d), elements=st.sampled_from([0.0, 1.0, 2.0, np.nan])))
    y = draw(arrays(np.int64, n, elements=st.integers(0, 2)))
    y[:2] = [0, 1]
    return X, np.array(["a", "b", "c"])[y]


@settings(max_examples=25, deadline=None)
@given(nominal_data(), st.sampled_from([0.5, 1.0]))
def test_property_tan_is_a_bayes_net_and_normalised(data, alpha):
    X, y = data
    tan = TAN(alpha=alpha).fit(X, y)
    bn = BayesNetClassifier(parents=dict(tan.structure_), alpha=alpha).fit(X, y)
    lp = tan.predict_log_proba(X)
    assert np.all(np.isfinite(lp))
    assert_allclose(logsumexp(lp, axis=1), 0, atol=1e-10)
    assert_allclose(bn.predict_log_proba(X), lp, atol=1e-10)
    assert np.all(tan.cmi_ >= 0)


@settings(max_examples=25, deadline=None)
@given(nominal_data())
def test_property_naive_bayes_structure_matches_tabular_nb(data):
    from textnb.naive_bayes import tabular

    from textnb.io.tables import Attribute

    X, y = data
    attrs = [Attribute(f"a{j}", "nominal", ["0", "1", "2"]) for j in range(X.shape[1])]
    bn = BayesNetClassifier(attributes=attrs).fit(X, y)
    nb = tabular.TabularNB(attributes=attrs).fit(X, y)
    assert_allclose(bn.predict_joint_log_proba(X), nb.predict_joint_log_proba(X), atol=1e-10)


def test_tan_tree_is_scipys_minimum_spanning_tree():
    """The maximum spanning tree is found without scipy (Kruskal, a stable sort): the tree
    scipy's ``minimum_spanning_tree`` and ``breadth_first_order`` give, ties included."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import breadth_first_order, minimum_spanning_tree

    from textnb.semi_naive.bayesnet_kernel import TANKernel

    rng = np.random.default_rng(0)
    for _ in range(400):
        d = int(rng.integers(1, 16))
        cmi = rng.choice([0.0, 0.1, 0.5], size=(d, d)) if rng.random() < 0.6 else rng.random((d, d))
        cmi = np.triu(cmi, 1)
        cmi = cmi + cmi.T
        root = int(rng.integers(0, d))
        want = np.array([-1])
        if d > 1:
            mst = minimum_spanning_tree(sp.csr_matrix(-np.triu(cmi + 1.0, k=1)))
            want = breadth_first_order(mst, root, directed=False, return_predecessors=True)[1]
        assert np.array_equal(TANKernel._tree(cmi, root), np.where(want < 0, -1, want))


def test_cmi_takes_a_dense_or_sparse_weighted_indicator():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, (60, 4)).astype(float)
    X[rng.random(X.shape) < 0.1] = np.nan
    y_index = rng.integers(0, 2, 60)
    Y = class_indicator(y_index, 2, rng.uniform(0, 2, 60))
    sparse = conditional_mutual_information(X, Y, [3] * 4)
    dense = conditional_mutual_information(X, Y.toarray(), [3] * 4)
    assert np.array_equal(sparse, dense) and np.all(sparse >= 0) and sparse[0, 1] > 0


def test_cli_structure_error_names_the_structure_file_once_and_inspect_reads_apnbc_around_tan(tmp_path):
    """A structure naming an unknown node: one line naming the structure file (train named
    the ARFF file too: 's.json: data.arff: ...'); ``inspect`` of ``--model tan --adjust``
    shows the tree and the class weights (was 'cannot inspect an APNBC model')."""
    import io

    from textnb.cli.commands import main

    def cli(*argv):
        out, err = io.StringIO(), io.StringIO()
        return main([str(a) for a in argv], stdout=out, stderr=err), out.getvalue(), err.getvalue()

    arff = Path(__file__).resolve().parents[2] / "corpora" / "weather.nominal.arff"
    structure = tmp_path / "s.json"
    structure.write_text(json.dumps({"parents": {"nosuch": ["class"]}}))
    for cmd in (["train", arff, "-o", tmp_path / "b.tnb"], ["evaluate", arff, "--cv", "2"]):
        rc, _, err = cli(*cmd, "--model", "bn", "--structure", structure)
        assert rc == 1 and err.startswith(f"textnb: error: {structure}: structure names an unknown node 'nosuch'")
        assert str(arff) not in err and err.count("\n") == 1
    assert cli("train", arff, "--model", "tan", "--adjust", "-o", tmp_path / "a.tnb")[0] == 0
    rc, text, err = cli("inspect", tmp_path / "a.tnb")
    assert rc == 0, err
    assert text.startswith("model: APNBC(TAN)\nclasses: yes (9), no (5)\nTAN tree") and "APNBC class weights" in text
    rc, out, err = cli("inspect", tmp_path / "a.tnb", "--json")
    info = json.loads(out)
    assert info["model"] == "APNBC(TAN)" and set(info["apnbc_weights"]) == {"yes", "no"}
    assert {"outlook", "temperature", "humidity", "windy"} <= set(info["structure"])


def test_failed_fit_on_a_bad_structure_leaves_the_model_unfitted():
    from sklearn.exceptions import NotFittedError
    from sklearn.utils.validation import check_is_fitted

    model = BayesNetClassifier(parents={"nosuch": ["class"]})
    with pytest.raises(InputError):
        model.fit(np.array([[0, 1], [1, 0]]), ["a", "b"])
    with pytest.raises(NotFittedError):
        check_is_fitted(model)


@pytest.mark.parametrize("case", ["own_parent", "twice", "unknown_parent", "unknown_child", "cycle", "class",
                                  "too_large"])
def test_every_problem_of_a_structure_file_is_one_line_naming_that_file(tmp_path, case):
    """A node its own parent, a parent listed twice and an unknown parent named the data file
    ('weather.nominal.arff: node 'outlook' cannot be its own parent': the prefix was given to
    messages holding the word 'structure'); a structure whose "class" is an attribute of the
    data said 'pass another class_name'; a CPT too large was an internal error (exit 70). Every
    problem of the structure is a StructureError, which train and evaluate prefix with the
    structure file, one rule."""
    import io

    from textnb.cli.commands import main

    def cli(*argv):
        out, err = io.StringIO(), io.StringIO()
        return main([str(a) for a in argv], stdout=out, stderr=err), out.getvalue(), err.getvalue()

    data = Path(__file__).resolve().parents[2] / "corpora" / "weather.nominal.arff"
    structure, message = {
        "own_parent": ({"parents": {"outlook": ["outlook"]}}, "node 'outlook' cannot be its own parent"),
        "twice": ({"parents": {"outlook": ["windy", "windy"]}}, "parents of 'outlook' list a node twice"),
        "unknown_parent": ({"parents": {"outlook": ["wind"]}},
                           "parent 'wind' of 'outlook' is not a known node; known: outlook, temperature, humidity, "
                           "windy and the class 'play'"),
        "unknown_child": ({"parents": {"wind": ["play"]}}, "structure names an unknown node 'wind'"),
        "cycle": ({"parents": {"outlook": ["windy"], "windy": ["outlook"]}}, "structure has a cycle"),
        "class": ({"class": "windy", "parents": {}},
                  "its class node 'windy' is an attribute of the data, whose class is 'play'; to learn 'windy', "
                  "add --class windy"),
        "too_large": ({"parents": {"a0": [f"a{i}" for i in range(1, 8)]}}, "the CPT of 'a0' would have"),
    }[case]
    if case == "too_large":  # 8 attributes of 10 values: a node with the 7 others as parents
        rng = np.random.default_rng(0)
        head = "".join(f"@attribute a{i} {{{','.join(map(str, range(10)))}}}\n" for i in range(8))
        rows = "".join(",".join(map(str, rng.integers(0, 10, 8))) + f",{'pn'[i % 2]}\n" for i in range(20))
        data = tmp_path / "big.arff"
        data.write_text(f"@relation r\n{head}@attribute class {{p,n}}\n@data\n{rows}")
    path = tmp_path / "s.json"
    path.write_text(json.dumps(structure))
    for cmd in (["train", data, "-o", tmp_path / "b.tnb"], ["evaluate", data, "--cv", "2"]):
        rc, _, err = cli(*cmd, "--model", "bn", "--structure", path)
        assert rc == 1 and err.startswith(f"textnb: error: {path}: {message}"), err
        assert str(data) not in err and err.count("\n") == 1


@pytest.mark.parametrize("names", [
    [f"installment_commitment_{i}" for i in range(10)],  # one wide layer of long names
    ["employment", "installment_commitment", "residence_since", "age", "existing_credits", "num_dependents",
     "own_telephone", "static_normal", "waveform_ItoV_prolonged", "x"],
])
def test_plot_structure_node_names_do_not_overlap(tmp_path, monkeypatch, names):
    """A layer's nodes were 1.6 inches apart whatever their names: on credit-g's TAN
    'installment_commitment' covered 'employment' and 'residence_since', on audiology's
    'waveform_ItoV_prolonged' covered 'static_normal'. A layer is now as wide as its names."""
    pytest.importorskip("matplotlib")
    import textnb.core.model_io as model_io

    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(40, len(names)))
    y = rng.integers(0, 2, size=40)
    parents = {**{n: ["class"] for n in names}, "class": []}
    bn = BayesNetClassifier(parents=parents, attributes=names, class_name="class").fit(X, y)
    figures = []
    monkeypatch.setattr(model_io, "write_picture", lambda fig, path, dpi=110: figures.append(fig))
    bn.plot_structure(tmp_path / "bn.png")
    (fig,) = figures
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = [(t.get_text(), t.get_bbox_patch().get_window_extent(renderer)) for t in fig.axes[0].texts
             if t.get_text()]
    assert sorted(n for n, _ in boxes) == sorted(names + ["class"])
    assert not [(a, b) for i, (a, box) in enumerate(boxes) for b, other in boxes[i + 1:] if box.overlaps(other)]
    assert all(fig.bbox.x0 <= box.x0 and box.x1 <= fig.bbox.x1 for _, box in boxes)


def test_a_numeric_column_given_as_codes_is_a_data_error_not_terabytes():
    """Numbers passed as value codes (no ``attributes`` to say they are numeric): TAN's table
    of value pairs would have had ``2 x 1.5e6 x 74`` cells, and numpy failed to allocate
    2.28 TiB (a MemoryError: adult's age and fnlwgt columns, found by a session 39 survey).
    Now a DataError naming the column of most values, before anything is allocated; the
    same columns declared numeric and discretised are fitted."""
    from textnb.core.errors import DataError
    from textnb.io.tables import Attribute

    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(17, 91, 600), rng.integers(10_000, 1_500_000, 600)]).astype(float)
    y = np.where(X[:, 0] + rng.normal(0, 10, 600) > 50, "old", "young")
    with pytest.raises(DataError, match=r"attribute 'x1' has \d+ values.*numeric='mdl'"):
        TAN().fit(X, y)
    with pytest.raises(DataError, match=r"attribute 'fnlwgt' has \d+ values"):
        TAN(attributes=["age", "fnlwgt"]).fit(X, y)
    model = TAN(attributes=[Attribute("age", "numeric"), Attribute("fnlwgt", "numeric")], numeric="mdl").fit(X, y)
    assert model.score(X, y) > 0.8
