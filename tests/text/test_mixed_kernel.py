"""MixedKernel (tables with text attributes without scikit-learn) against MixedNB, the CLI
on such tables in a fresh process, and the table bugs fixed with it (issue #26)."""

import csv
import json

import numpy as np
import pytest

from conftest import SMS_TSV, assert_kernel_is_the_estimator, cli, cli_subprocesses, one_error_line
from textnb.core.model_io import ModelNode, load
from textnb.io.tables import Attribute
from textnb.naive_bayes.discrete import BernoulliNB, MultinomialNB
from textnb.text.mixed import MixedNB
from textnb.text.mixed_kernel import MixedKernel, TextPart
from textnb.text.vectorizer import Vectorizer

ATTS = (Attribute("text", "text"), Attribute("length", "numeric"), Attribute("caps", "nominal", ["none", "some", "many"]),
        Attribute("note", "text"))


def _sms(n=1200, offset=0):
    """Rows of the bundled SMS corpus as a mixed table: the message, its length (some
    missing), a nominal of its capitals (some missing), a second text (some missing)."""
    lines = SMS_TSV.read_text(encoding="utf-8").splitlines()[offset:offset + n]
    X = np.empty((len(lines), 4), dtype=object)
    y = []
    for i, line in enumerate(lines):
        label, text = line.split("\t", 1)
        caps = sum(c.isupper() for c in text)
        X[i] = [text, float(len(text)) if i % 11 else float("nan"),
                float(0 if caps == 0 else 1 if caps < 10 else 2) if i % 7 else float("nan"),
                None if i % 5 == 0 else " ".join(text.split()[:3])]
        y.append(label)
    return X, np.array(y)


CASES = [
    {},
    {"nominal": "m-estimate", "m": 3.0},
    {"numeric": "kde"},
    {"numeric": "mdl", "alpha": 0.5},
    {"numeric": "equal-frequency", "bins": 4, "class_prior": [0.5, 0.5]},
    {"vectorizer": "binary", "text_model": "bernoulli"},
    {"vectorizer": {"note": "ngram"}, "text_model": {"text": "alpha"}},
]


def _templates(case, kernel):
    """The case's templates: estimators for MixedNB, model-file nodes for the kernel."""
    made = {"binary": (Vectorizer, "Vectorizer", {"binary": True, "min_df": 2}),
            "ngram": (Vectorizer, "Vectorizer", {"ngram_range": (1, 2)}),
            "bernoulli": (BernoulliNB, "BernoulliNB", {"alpha": 0.5}),
            "alpha": (MultinomialNB, "MultinomialNB", {"alpha": 0.3})}

    def one(key):
        cls, kind, params = made[key]
        return ModelNode(kind, cls(**params).get_params(), {}) if kernel else cls(**params)

    out = dict(case)
    for name in ("vectorizer", "text_model"):
        if isinstance(case.get(name), str):
            out[name] = one(case[name])
        elif isinstance(case.get(name), dict):
            out[name] = {k: one(v) for k, v in case[name].items()}
    return out


@pytest.mark.parametrize("case", CASES, ids=[str(c) for c in CASES])
def test_kernel_is_the_estimator(case, tmp_path):
    X, y = _sms(600)  # (mdl finds three cuts of the length here too)
    Xt, _ = _sms(300, offset=2000)
    est = MixedNB(attributes=ATTS, **_templates(case, kernel=False)).fit(X, y)
    ker = MixedKernel(attributes=ATTS, **_templates(case, kernel=True)).fit(X, y)
    assert all(isinstance(p, TextPart) for p in ker.text_models_)
    assert_kernel_is_the_estimator(ker, est, Xt, tmp_path)
    prior_k, terms_k = ker.predict_attribute_terms(Xt)
    prior_e, terms_e = est.predict_attribute_terms(Xt)
    np.testing.assert_array_equal(prior_k, prior_e)
    assert terms_k.keys() == terms_e.keys()
    for name in terms_k:
        np.testing.assert_array_equal(terms_k[name], terms_e[name])


def test_kernel_takes_sample_weights_and_text_only_tables(tmp_path):
    X, y = _sms(600)
    w = np.where(np.arange(len(y)) % 3 == 0, 2.0, 0.5)
    atts = ATTS[:1] + ATTS[3:]
    est = MixedNB(attributes=atts).fit(X[:, [0, 3]], y, sample_weight=w)
    ker = MixedKernel(attributes=atts).fit(X[:, [0, 3]], y, sample_weight=w)
    assert ker.tabular_ is None
    assert_kernel_is_the_estimator(ker, est, X[:50, [0, 3]], tmp_path)


def test_kernel_merge_and_partial_fit_of_the_estimator_agree(tmp_path):
    X, y = _sms(800)
    whole = MixedKernel(attributes=ATTS).fit(X, y)
    a = MixedKernel(attributes=ATTS).fit(X[:500], y[:500])
    b = MixedKernel(attributes=ATTS).fit(X[500:], y[500:])
    a.merge(b)
    est = MixedNB(attributes=ATTS).partial_fit(X[:500], y[:500], classes=["ham", "spam"]).partial_fit(X[500:], y[500:])
    Xt, _ = _sms(100, offset=3000)
    np.testing.assert_allclose(a.predict_log_proba(Xt), whole.predict_log_proba(Xt), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(est.predict_log_proba(Xt), whole.predict_log_proba(Xt), rtol=1e-9, atol=1e-9)
    a.save(tmp_path / "merged.tnb")
    np.testing.assert_array_equal(load(tmp_path / "merged.tnb").predict_log_proba(Xt), a.predict_log_proba(Xt))


@pytest.mark.parametrize("cls", [MixedKernel, MixedNB])
def test_merge_matches_nominal_values_by_name(cls):
    """Parts that list a nominal attribute's values in another order (a CSV part numbers
    them as it meets them) were refused ('cannot merge MixedNB models with different
    attributes'); merged by value name, they are the model of the whole, as TabularNB's."""
    X, y = _sms(800)
    order = ["many", "none", "some"]  # the second part's order of ATTS' caps values
    recode = np.array([order.index(v) for v in ATTS[2].values], dtype=float)
    Xb = X[500:].copy()
    known = ~np.isnan(Xb[:, 2].astype(float))
    Xb[known, 2] = recode[Xb[known, 2].astype(int)]
    atts_b = ATTS[:2] + (Attribute("caps", "nominal", order),) + ATTS[3:]
    whole = cls(attributes=ATTS).fit(X, y)
    a = cls(attributes=ATTS).fit(X[:500], y[:500])
    a.merge(cls(attributes=atts_b).fit(Xb, y[500:]))
    assert list(a.attributes_) == list(ATTS)
    Xt, _ = _sms(100, offset=3000)
    np.testing.assert_allclose(a.predict_proba(Xt), whole.predict_proba(Xt), rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(a.predict(Xt), whole.predict(Xt))
    with pytest.raises(ValueError, match="attribute 'length' is numeric in one and nominal in the other"):
        a.merge(cls(attributes=ATTS[:1] + (Attribute("length", "nominal", ["x"]),) + ATTS[2:]).fit(
            np.column_stack([X[:, :1], np.zeros(len(y)), X[:, 2:]]), y))


def test_cli_merge_of_csv_parts_with_nominal_values_in_another_order(tmp_path):
    """``textnb train`` on two CSV parts of a mixed table whose nominal values come in another
    order (and one value only in the second) + ``textnb merge``: the model of the whole file."""
    head = "subject,colour,size,class\n"
    a = ["cheap pills now,red,5.1,spam", "meeting at noon,blue,3.0,ham", "win cash prize,red,4.8,spam",
         "lunch today,green,2.9,ham", "cheap offer,blue,5.5,spam"]
    b = ["lunch at noon,green,3.2,ham", "see you soon,blue,2.7,ham", "free prize cash,yellow,5.0,spam",
         "noon meeting moved,red,3.1,ham", "buy cheap now,red,4.9,spam"]
    for name, rows in (("a", a), ("b", b), ("whole", a + b)):
        (tmp_path / f"{name}.csv").write_text(head + "\n".join(rows) + "\n")
        assert cli("train", tmp_path / f"{name}.csv", "--text-column", "subject", "-o", tmp_path / f"{name}.tnb")[0] == 0
    code, out, err = cli("merge", tmp_path / "a.tnb", tmp_path / "b.tnb", "-o", tmp_path / "ab.tnb")
    assert code == 0 and err == "", err
    answers = []
    for model in ("ab", "whole"):
        code, out, err = cli("predict", tmp_path / f"{model}.tnb", tmp_path / "whole.csv", "--proba", "--json")
        assert code == 0, err
        answers.append([json.loads(line) for line in out.splitlines()])
    assert len(answers[0]) == 10
    for x, y in zip(*answers):
        assert x["label"] == y["label"]
        assert all(abs(x["proba"][c] - y["proba"][c]) < 1e-12 for c in y["proba"])


def test_kernel_refuses_what_the_estimator_refuses():
    X, y = _sms(100)
    for params, match in (({"text_model": ModelNode("ComplementNB", {}, {})}, "MultinomialNB or BernoulliNB"),
                          ({"vectorizer": {"nope": ModelNode("Vectorizer", {}, {})}}, "not text attributes"),
                          ({"alpha": -1.0}, "alpha")):
        with pytest.raises(ValueError, match=match):
            MixedKernel(attributes=ATTS, **params).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        MixedKernel(attributes=ATTS).fit(X, y).predict(X[:, :3])


def _mixed_csv(path, n=800):
    X, y = _sms(n)
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "text", "length", "caps", "note", "label"])
        for i, (row, label) in enumerate(zip(X, y)):
            w.writerow([i, row[0], "?" if np.isnan(row[1]) else repr(row[1]),
                        "?" if np.isnan(row[2]) else ["none", "some", "many"][int(row[2])], row[3] or "", label])
    return path


@pytest.mark.slow
def test_cli_train_predict_evaluate_of_a_mixed_csv_import_no_sklearn(tmp_path):
    table = _mixed_csv(tmp_path / "mixed.csv")
    model = tmp_path / "m.tnb"
    args = ["--text-column", "text", "--text-column", "note", "--ignore", "id", "--nominal", "m-estimate"]
    (status, out), predicted, evaluated = cli_subprocesses(("train", table, *args, "-o", model, "--json"),
                                                           ("predict", model, table, "--proba", "--json"),
                                                           ("evaluate", table, *args, "--cv", "3", "--json"))
    assert status.split()[:2] == ["0", "False"], status
    assert json.loads(out)["text_attributes"] == 2
    # the file is the estimators' (make_table_model without kernel=True), byte for byte
    from textnb.io.inputs import InputOptions, load_input
    from textnb.meta.registry import ModelOptions, make_table_model

    _, t = load_input(str(table), InputOptions(text_columns=("text", "note"), ignore=["id"]))
    est = make_table_model(ModelOptions(nominal="m-estimate"), t)
    assert isinstance(est, MixedNB)
    est.fit(t.X, t.y).save(tmp_path / "est.tnb")
    assert (tmp_path / "est.tnb").read_bytes() == model.read_bytes()
    status, out = predicted
    assert status.split()[:2] == ["0", "False"], status
    rc, expected, _ = cli("predict", tmp_path / "est.tnb", table, "--proba", "--json")
    assert rc == 0 and out == expected
    status, out = evaluated
    assert status.split()[:2] == ["0", "False"], status
    assert json.loads(out)["n"] == 800


def test_a_csv_with_text_columns_beside_others_is_a_table_input(tmp_path):
    from textnb.io.inputs import InputOptions, is_table_input

    table = _mixed_csv(tmp_path / "mixed.csv", n=20)
    assert is_table_input(table, InputOptions(text_columns=("text",)))
    assert not is_table_input(SMS_TSV, InputOptions(text_columns=("2",)))  # label + text: a corpus
    assert not is_table_input(tmp_path / "absent.csv", InputOptions(text_columns=("text",)))


def test_an_all_missing_nominal_column_is_one_line_naming_file_and_column(tmp_path):
    path = tmp_path / "t.csv"
    lines = ["text,n,nom,label"] + [f"w{i} x{i % 3},{i},?,{'ab'[i % 2]}" for i in range(20)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for args in (["--text-column", "text"], ["--ignore", "text"], ["--ignore", "text", "--model", "aode"]):
        rc, _, err = cli("train", path, "--class", "label", *args, "-o", tmp_path / "m.tnb")
        assert rc == 1
        one_error_line(err, str(path), "'nom'", "no known value")
    rc, _, err = cli("train", path, "--class", "label", "--ignore", "text", "--ignore", "nom", "-o", tmp_path / "m.tnb")
    assert rc == 0, err


def test_repeated_ignore_options_all_apply_to_plain_and_mixed_tables(tmp_path):
    table = _mixed_csv(tmp_path / "mixed.csv", n=60)
    for extra in (["--text-column", "text"], ["--ignore", "text"]):
        out = {}
        for ignore in (["--ignore", "id", "--ignore", "caps,note"], ["--ignore", "id,caps,note"]):
            model = tmp_path / "m.tnb"
            rc, text, err = cli("train", table, "--class", "label", *extra, *ignore, "-o", model, "--json")
            assert rc == 0, err
            out[len(ignore)] = (json.loads(text)["attributes"], model.read_bytes())
            names = [a.name for a in load(model).attributes_]
            assert not {"id", "caps", "note"} & set(names)
        assert out[4] == out[2]
        rc, text, err = cli("predict", tmp_path / "m.tnb", table, "--ignore", "id", "--ignore", "caps,note")
        assert rc == 0, err


def test_a_tfidf_vectorizer_template_is_fitted_and_read_by_the_estimator(tmp_path):
    from textnb.text.scorer import load_for_prediction
    from textnb.text.weighting import TfidfVectorizer

    X, y = _sms(300)
    est = MixedNB(attributes=ATTS, vectorizer={"note": TfidfVectorizer()}).fit(X, y)
    assert type(est.text_models_[1].vectorizer_).__name__ == "TfidfVectorizer"
    with pytest.raises(ValueError, match="must be a textnb Vectorizer"):
        MixedKernel(attributes=ATTS, vectorizer={"note": ModelNode("TfidfVectorizer", {}, {})}).fit(X, y)
    est.save(tmp_path / "m.tnb")
    read = load_for_prediction(tmp_path / "m.tnb")
    assert isinstance(read, MixedNB)  # a part the scorer does not read: the estimator
    np.testing.assert_array_equal(read.predict_joint_log_proba(X[:40]), est.predict_joint_log_proba(X[:40]))
