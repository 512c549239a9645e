"""Tables with text attributes: reading (ARFF, CSV, DataFrame), MixedNB, the CLI."""

import csv
import io
import json
import pickle
import zipfile

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import cross_val_score
from sklearn.utils.estimator_checks import parametrize_with_checks

from textnb import APNBC, LBR, TAN, CalibratedNB, MixedNB, TabularNB, TextClassifier, load
from textnb.io.arff import read_arff, write_arff
from textnb.cli.commands import main
from textnb.naive_bayes.discretized import Discretized
from textnb.core.errors import InputError, ModelFileError
from textnb.naive_bayes.discrete import BernoulliNB, MultinomialNB
from textnb.io.tables import Attribute, encode_like, read_table, table_from_frame
from textnb.text.vectorizer import Vectorizer

SPAM_WORDS = "cheap pills win money offer free prize click viagra deal".split()
HAM_WORDS = "meeting lunch report project noon agenda team review notes call".split()
SHARED = "the a and of to you".split()


def _rows(n=120, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        spam = i % 3 == 0
        words = SPAM_WORDS if spam else HAM_WORDS
        subject = " ".join(rng.choice(words + SHARED, size=3))
        body = " ".join(rng.choice(words + SHARED + (HAM_WORDS if spam else SPAM_WORDS)[:2], size=12))
        size = float(rng.normal(5.0 if spam else 3.0, 0.8))
        colour = str(rng.choice(["red", "blue"] if spam else ["blue", "green"]))
        if i % 17 == 5:
            body = None  # missing text: an empty document
        if i % 13 == 4:
            size = float("nan")
        rows.append((subject, body, size, colour, "spam" if spam else "ham"))
    return rows


ATTS = (Attribute("subject", "text"), Attribute("body", "text"), Attribute("size", "numeric"),
        Attribute("colour", "nominal", ["red", "blue", "green"]))


def _xy(rows):
    X = np.empty((len(rows), 4), dtype=object)
    for i, (s, b, z, c, _) in enumerate(rows):
        X[i] = [s, b, z, float(["red", "blue", "green"].index(c))]
    return X, np.array([r[-1] for r in rows])


def _write_csv(path, rows, header=("subject", "body", "size", "colour", "class")):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(header)
        for s, b, z, c, y in rows:
            w.writerow([s, "" if b is None else b, "" if np.isnan(z) else repr(z), c, y])
    return path


def _write_arff(path, rows):
    X, y = _xy(rows)
    codes = np.searchsorted(["ham", "spam"], y).astype(float)
    write_arff(path, list(ATTS) + [Attribute("class", "nominal", ["ham", "spam"])],
               np.column_stack([X, codes.astype(object)]))
    return path


def run(*argv, stdin=None):
    out, err = io.StringIO(), io.StringIO()
    code = main(list(map(str, argv)), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


# -- reading --------------------------------------------------------------------------
def test_arff_string_attributes_dense_and_sparse(tmp_path):
    p = tmp_path / "m.arff"
    p.write_text("@relation m\n@attribute subject string\n@attribute size numeric\n"
                 "@attribute class {ham,spam}\n@data\n'cheap pills, now',3.5,spam\n"
                 "meeting,1,ham\n?,2,ham\n{0 'win money', 2 spam}\n{1 4}\n", encoding="utf-8")
    t = read_table(p)
    assert [a.kind for a in t.attributes] == ["text", "numeric"]
    assert t.X.dtype == object and t.has_text
    assert t.X[:, 0].tolist() == ["cheap pills, now", "meeting", None, "win money", None]
    assert t.X[:, 1].tolist() == [3.5, 1.0, 2.0, 0.0, 4.0]
    assert t.y.tolist() == ["spam", "ham", "ham", "spam", "ham"]
    # written back and read again: the same cells (a quoted '?' stays a string)
    d = read_arff(p)
    d.X[1, 0] = "?"
    out = tmp_path / "w.arff"
    write_arff(out, d.attributes, d.X)
    again = read_arff(out)
    assert "@attribute subject string" in out.read_text()
    assert again.X[:, 0].tolist() == d.X[:, 0].tolist()


def test_csv_text_columns_and_missing(tmp_path):
    p = _write_csv(tmp_path / "m.csv", _rows(30))
    t = read_table(p, types={"subject": "text", "body": "text"})
    assert [a.kind for a in t.attributes] == ["text", "text", "numeric", "nominal"]
    assert t.X[5, 1] is None  # the empty body cell
    assert isinstance(t.X[0, 0], str) and isinstance(t.X[0, 2], float)
    q = read_table(p, like=t.attributes)
    assert q.X[:, :2].tolist() == t.X[:, :2].tolist()
    assert np.allclose(q.X[:, 2:].astype(float), t.X[:, 2:].astype(float), equal_nan=True)


def test_csv_bad_cells_are_one_line_errors(tmp_path):
    p = _write_csv(tmp_path / "m.csv", _rows(10))
    with pytest.raises(InputError, match="class column 'class' cannot be text"):
        read_table(p, types={"class": "text"})
    t = read_table(p, types={"subject": "text", "body": "text"})
    bad = tmp_path / "bad.csv"
    text = p.read_text().splitlines()
    cells = next(csv.reader([text[3]]))
    cells[2] = "very large"
    bad.write_text("\n".join(text[:3] + [",".join(f'"{c}"' for c in cells)] + text[4:]) + "\n")
    with pytest.raises(InputError) as info:
        read_table(bad, like=t.attributes)
    assert str(info.value) == f"{bad}:4: value 'very large' in numeric column 'size' is not a number"
    with pytest.raises(InputError, match=r"bad.csv:2: value '.*' in numeric column 'subject' is not a number"):
        read_table(bad, like=[Attribute("subject", "numeric")])
    arff = tmp_path / "t.arff"
    arff.write_text("@relation t\n@attribute subject string\n@attribute c {a,b}\n@data\n'x y',a\n")
    with pytest.raises(InputError, match="attribute 'subject' is text here but numeric in the model"):
        read_table(arff, like=[Attribute("subject", "numeric")])


def test_dataframe_text_columns():
    rows = _rows(40)
    df = pd.DataFrame(rows, columns=["subject", "body", "size", "colour", "class"])
    df["body"] = df["body"].astype("string")
    t = table_from_frame(df, types={"subject": "text", "body": "text"})
    assert [a.kind for a in t.attributes] == ["text", "text", "numeric", "nominal"]
    assert t.X[5, 1] is None
    model = MixedNB(attributes=tuple(t.attributes)).fit(t.X, t.y)
    assert model.score(t.X, t.y) > 0.9
    with pytest.raises(InputError, match="has dtype float64; only string / object columns can be text"):
        table_from_frame(df, types={"size": "text"})
    df["subject"] = df["subject"].astype(object)
    df.loc[3, "subject"] = 7
    with pytest.raises(InputError, match="row 4: value 7 of text column 'subject' is not a string"):
        table_from_frame(df, types={"subject": "text"})


def test_encode_like_rows_with_text():
    X = encode_like([["free prize", None, "3.5", "red"], {"subject": "hi", "size": 2}], ATTS)
    assert X.dtype == object
    assert X[0].tolist() == ["free prize", None, 3.5, 0.0]
    assert X[1, 0] == "hi" and X[1, 1] is None and X[1, 2] == 2.0 and np.isnan(X[1, 3])
    with pytest.raises(InputError, match="value 5 of text attribute 'subject' is not a string"):
        encode_like([[5, None, 1, "red"]], ATTS)


# -- the model ------------------------------------------------------------------------
def test_terms_add_up_and_text_term_is_multinomial():
    X, y = _xy(_rows())
    model = MixedNB(attributes=ATTS).fit(X, y)
    prior, terms = model.predict_attribute_terms(X)
    assert set(terms) == {"subject", "body", "size", "colour"}
    np.testing.assert_allclose(prior + sum(terms.values()), model.predict_joint_log_proba(X), rtol=1e-12)
    # the body term is the multinomial log-likelihood of a TextClassifier on the body alone
    docs = ["" if b is None else b for b in X[:, 1]]
    text = TextClassifier(model=MultinomialNB()).fit(docs, y)
    expected = text.predict_joint_log_proba(docs) - text.model_.class_log_prior_
    np.testing.assert_allclose(terms["body"], expected, rtol=1e-12)
    missing = [i for i, b in enumerate(X[:, 1]) if b is None]
    assert missing and np.all(terms["body"][missing] == 0.0)
    nan_size = [i for i, z in enumerate(X[:, 2]) if np.isnan(z)]
    assert nan_size and np.all(terms["size"][nan_size] == 0.0)
    # the tabular attributes' terms are TabularNB's, and the prior is TabularNB's rule
    tab = TabularNB(attributes=ATTS[2:]).fit(X[:, 2:].astype(float), y)
    np.testing.assert_allclose(prior, tab.class_log_prior_)
    np.testing.assert_allclose(terms["size"] + terms["colour"],
                               tab.predict_joint_log_proba(X[:, 2:].astype(float)) - tab.class_log_prior_)
    assert model.score(X, y) > 0.95


def test_without_text_it_is_tabular_nb():
    X, y = _xy(_rows())
    Xt = X[:, 2:].astype(float)
    a = MixedNB(attributes=ATTS[2:], numeric="kde").fit(Xt, y)
    b = TabularNB(attributes=ATTS[2:], numeric="kde").fit(Xt, y)
    np.testing.assert_allclose(a.predict_joint_log_proba(Xt), b.predict_joint_log_proba(Xt), rtol=1e-12)


def test_text_only_table_and_bernoulli_and_per_attribute_settings(tmp_path):
    X, y = _xy(_rows())
    model = MixedNB(attributes=ATTS[:2], text_model={"body": BernoulliNB()},
                    vectorizer={"subject": Vectorizer(ngram_range=(1, 2))}).fit(X[:, :2], y)
    model.save(tmp_path / "t.tnb")
    again = load(tmp_path / "t.tnb")
    assert again.get_params()["vectorizer"]["subject"].ngram_range == (1, 2)
    np.testing.assert_array_equal(again.predict_joint_log_proba(X[:, :2]), model.predict_joint_log_proba(X[:, :2]))
    assert model.tabular_ is None
    assert isinstance(model.text_models_[1].model_, BernoulliNB)
    assert any(" " in t for t in model.text_models_[0].vectorizer_.get_feature_names_out())
    assert model.score(X[:, :2], y) > 0.9
    with pytest.raises(ValueError, match="not text attributes"):
        MixedNB(attributes=ATTS, vectorizer={"size": Vectorizer()}).fit(X, y)
    with pytest.raises(ValueError, match="must be a MultinomialNB or BernoulliNB"):
        MixedNB(attributes=ATTS, text_model=TabularNB()).fit(X, y)


def test_partial_fit_grows_vocabularies_and_equals_fit():
    X, y = _xy(_rows())
    full = MixedNB(attributes=ATTS).fit(X, y)
    inc = MixedNB(attributes=ATTS)
    sizes = []
    order = np.argsort(y == "spam", kind="stable")  # the ham first: the spam words come later
    for part in np.array_split(order, 4):
        inc.partial_fit(X[part], y[part], classes=["ham", "spam"])
        sizes.append(len(inc.text_models_[1].vectorizer_.vocabulary_))
    assert sizes == sorted(sizes) and sizes[0] < sizes[-1]
    np.testing.assert_allclose(inc.predict_joint_log_proba(X), full.predict_joint_log_proba(X), rtol=1e-10)
    with pytest.raises(ValueError, match="classes must be passed"):
        MixedNB(attributes=ATTS).partial_fit(X, y)


def test_merge_of_halves_equals_fit_on_the_whole():
    X, y = _xy(_rows())
    full = MixedNB(attributes=ATTS).fit(X, y)
    a = MixedNB(attributes=ATTS).fit(X[::2], y[::2])
    b = MixedNB(attributes=ATTS).fit(X[1::2], y[1::2])
    a.merge(b)
    np.testing.assert_allclose(a.class_count_, full.class_count_)
    np.testing.assert_allclose(a.predict_joint_log_proba(X), full.predict_joint_log_proba(X), rtol=1e-10)
    with pytest.raises(ValueError, match="different attributes"):
        a.merge(MixedNB(attributes=ATTS[:2]).fit(X[:, :2], y))


def test_sample_weight_two_is_a_duplicate():
    X, y = _xy(_rows(60))
    w = np.where(np.arange(len(y)) % 4 == 0, 2.0, 1.0)
    dup = np.concatenate([np.arange(len(y)), np.flatnonzero(w == 2.0)])
    a = MixedNB(attributes=ATTS).fit(X, y, sample_weight=w)
    b = MixedNB(attributes=ATTS).fit(X[dup], y[dup])
    np.testing.assert_allclose(a.predict_joint_log_proba(X), b.predict_joint_log_proba(X), rtol=1e-10)


def test_bad_cells_in_x():
    X, y = _xy(_rows(30))
    model = MixedNB(attributes=ATTS).fit(X, y)
    bad = X.copy()
    bad[2, 2] = "big"
    with pytest.raises(ValueError, match="row 3: cell 'big' of numeric attribute 'size' is not a number"):
        model.predict(bad)
    bad = X.copy()
    bad[4, 0] = 3.0
    with pytest.raises(ValueError, match="row 5: cell 3.0 of text attribute 'subject' is not a string"):
        model.predict(bad)
    with pytest.raises(ValueError, match="attributes describe 4 columns"):
        MixedNB(attributes=ATTS).fit(X[:, :3], y)


def test_save_load_and_load_time_checks(tmp_path):
    X, y = _xy(_rows())
    model = MixedNB(attributes=ATTS, numeric="mdl").fit(X, y)
    path = tmp_path / "m.tnb"
    model.save(path)
    again = load(path)
    assert isinstance(again, MixedNB) and again.attributes_ == model.attributes_
    np.testing.assert_array_equal(again.predict_joint_log_proba(X), model.predict_joint_log_proba(X))
    # a file whose state lost a text model is refused with one line
    with zipfile.ZipFile(path) as z:
        members = {n: z.read(n) for n in z.namelist()}
    header = json.loads(members["header.json"])
    header["model"]["state"]["text_models_"] = header["model"]["state"]["text_models_"][:1]
    members["header.json"] = json.dumps(header).encode()
    bad = tmp_path / "bad.tnb"
    with zipfile.ZipFile(bad, "w", zipfile.ZIP_STORED) as z:
        for n, data in members.items():
            z.writestr(n, data)
    with pytest.raises(ModelFileError, match="1 text models for 2 text attributes"):
        load(bad)
    state = model._get_state()
    state["class_count_"] = np.ones(3)
    with pytest.raises(ValueError, match="do not fit 2 classes"):
        MixedNB()._set_state(state)


def test_wrappers_and_semi_naive_models():
    X, y = _xy(_rows())
    adj = APNBC(MixedNB(attributes=ATTS)).fit(X, y)
    assert adj.score(X, y) > 0.95
    cal = CalibratedNB(MixedNB(attributes=ATTS), cv=3).fit(X, y)
    p = cal.predict_proba(X)
    assert p.shape == (len(y), 2) and np.allclose(p.sum(axis=1), 1)
    assert cal.score(X, y) > 0.9
    for model in (TAN(attributes=ATTS), Discretized(LBR(), attributes=ATTS)):
        with pytest.raises(ValueError, match="attribute 'subject' is text; .* does not support text attributes"):
            model.fit(X, y)


def test_sklearn_contract_on_mixed_data():
    X, y = _xy(_rows())
    est = MixedNB(attributes=ATTS, alpha=0.5)
    with pytest.raises(NotFittedError):
        est.predict(X)
    assert est.fit(X, y) is est
    c = clone(est)
    assert c.get_params() == est.get_params() and not hasattr(c, "classes_")
    with pytest.raises(ValueError, match="X has 3 features, but MixedNB is expecting 4"):
        est.predict(X[:, :3])
    scores = cross_val_score(MixedNB(attributes=ATTS), X, y, cv=3)
    assert scores.min() > 0.9
    again = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(again.predict_proba(X), est.predict_proba(X))
    df = pd.DataFrame(X, columns=["subject", "body", "size", "colour"])
    fitted = MixedNB(attributes=ATTS).fit(df, y)
    assert list(fitted.feature_names_in_) == ["subject", "body", "size", "colour"]


# the default is checked with every export (tests/test_sklearn_cases.py); here a variant
@parametrize_with_checks([MixedNB(numeric="kde")])
def test_sklearn_check_estimator(estimator, check):
    check(estimator)


# -- command line -----------------------------------------------------------------------
@pytest.mark.slow
def test_cli_train_predict_evaluate_inspect_merge(tmp_path):
    rows = _rows()
    data = _write_csv(tmp_path / "mail.csv", rows)
    model = tmp_path / "m.tnb"
    code, out, err = run("train", data, "--text-column", "subject", "--text-column", "body", "-o", model,
                         "--json")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["text_attributes"] == 2 and summary["attributes"] == 4 and summary["rows"] == len(rows)
    assert isinstance(load(model), MixedNB)
    code, out, err = run("predict", model, data, "--proba", "--json", "--explain", "--top", "2")
    assert code == 0, err
    recs = [json.loads(line) for line in out.splitlines()]
    assert len(recs) == len(rows)
    assert np.mean([r["label"] == row[-1] for r, row in zip(recs, rows)]) > 0.95
    why = recs[0]["explanation"]
    assert {a["name"] for a in why["attributes"]} == {"subject", "body", "size", "colour"}
    body = next(a for a in why["attributes"] if a["name"] == "body")
    assert len(body["for"]) <= 2 and body["for"][0]["term"] in SPAM_WORDS + HAM_WORDS + SHARED
    total = why["prior"] + sum(a["contribution"] for a in why["attributes"])
    assert total == pytest.approx(why["margin"])
    code, out, _ = run("predict", model, data, "--explain")
    assert code == 0 and ("body +" in out.splitlines()[0] or "body -" in out.splitlines()[0])
    code, out, err = run("evaluate", data, "--text-column", "subject", "--text-column", "body", "--cv", "5",
                         "--json")
    assert code == 0, err
    assert json.loads(out)["accuracy"] > 0.9 and json.loads(out)["folds"] == 5
    code, out, _ = run("evaluate", data, "--text-column", "subject", "--text-column", "body", "--cv", "3",
                       "--adjust", "--json")
    assert code == 0 and json.loads(out)["n"] == len(rows)
    code, out, _ = run("inspect", model, "--top", "3")
    assert code == 0 and "subject [text, multinomial]" in out and "size [numeric, gaussian]" in out
    code, out, _ = run("inspect", model, "--json")
    info = json.loads(out)
    assert info["model"] == "MixedNB" and info["attributes"][1]["informative_terms"]["spam"]
    # two models on the halves, merged: the model of the whole (ARFF: declared nominal values,
    # so both halves have the same attributes)
    whole = tmp_path / "whole.tnb"
    assert run("train", _write_arff(tmp_path / "whole.arff", rows), "-o", whole)[0] == 0
    parts = [tmp_path / f"h{i}.tnb" for i in range(2)]
    for i, m in enumerate(parts):
        assert run("train", _write_arff(tmp_path / f"h{i}.arff", rows[i::2]), "-o", m)[0] == 0
    merged = tmp_path / "merged.tnb"
    assert run("merge", *parts, "-o", merged)[0] == 0
    X = read_table(tmp_path / "whole.arff").X
    np.testing.assert_allclose(load(merged).predict_joint_log_proba(X), load(whole).predict_joint_log_proba(X),
                               rtol=1e-10)
    # CSV halves see the nominal values in different orders: matched by name, the model of the whole
    for i, m in enumerate(parts):
        assert run("train", _write_csv(tmp_path / f"h{i}.csv", rows[i::2]), "--text-column", "subject",
                   "--text-column", "body", "-o", m)[0] == 0
    assert run("train", data, "--text-column", "subject", "--text-column", "body", "-o", whole)[0] == 0
    code, _, err = run("merge", *parts, "-o", merged)
    assert code == 0, err
    out = [run("predict", m, data, "--proba", "--json")[1] for m in (merged, whole)]
    for x, y in zip(*([json.loads(line) for line in o.splitlines()] for o in out)):
        assert x["label"] == y["label"] and x["proba"] == pytest.approx(y["proba"], abs=1e-12)


def test_cli_class_alias_arff_and_errors(tmp_path):
    rows = _rows(60)
    data = _write_csv(tmp_path / "m.csv", rows, header=("subject", "body", "size", "colour", "label"))
    # put the class first: --label-column names it, as --class would
    moved = tmp_path / "first.csv"
    with open(data, newline="") as f, open(moved, "w", newline="") as g:
        w = csv.writer(g)
        for r in csv.reader(f):
            w.writerow([r[-1]] + r[:-1])
    m = tmp_path / "a.tnb"
    code, out, err = run("train", moved, "--text-column", "body", "--label-column", "label", "-o", m)
    assert code == 0 and "(2 nominal, 1 numeric, 1 text)" in out, err
    assert [a.kind for a in load(m).attributes_] == ["nominal", "text", "numeric", "nominal"]
    # a label + text file stays a text corpus
    lt = tmp_path / "lt.csv"
    lt.write_text("label,text\n" + "".join(f"{r[-1]},{r[0]}\n" for r in rows))
    assert run("train", lt, "--text-column", "text", "-o", tmp_path / "t.tnb")[0] == 0
    assert isinstance(load(tmp_path / "t.tnb"), TextClassifier)
    # an ARFF file with string attributes trains one mixed model
    arff = _write_arff(tmp_path / "m.arff", rows)
    code, out, err = run("train", arff, "-o", tmp_path / "arff.tnb")
    assert code == 0 and "(1 nominal, 1 numeric, 2 text)" in out, err
    assert isinstance(load(tmp_path / "arff.tnb"), MixedNB)
    # one-line errors
    code, _, err = run("train", data, "--text-column", "subject", "--model", "tan", "-o", tmp_path / "x")
    assert code == 1 and err.count("\n") == 1 and "--model tan does not support text attributes (subject)" in err
    code, _, err = run("train", data, "--text-column", "subject", "--lazy", "lbr", "-o", tmp_path / "x")
    assert code == 1 and "does not support text attributes" in err
    code, _, err = run("train", data, "--text-column", "nope", "-o", tmp_path / "x")
    assert code == 1 and "no text column 'nope'" in err
    code, _, err = run("train", data, "--text-column", "label", "-o", tmp_path / "x")
    assert code == 1 and "the class column 'label' cannot be text" in err
    code, _, err = run("train", data, "--text-column", "label", "--class", "label", "-o", tmp_path / "x")
    assert code == 1 and "the class column 'label' cannot also be a text column" in err
    q = tmp_path / "q.csv"
    q.write_text("subject,body,size,colour\nfree prize,,lots,red\n")
    code, _, err = run("predict", tmp_path / "arff.tnb", q)
    assert code == 1 and err.strip() == f"textnb: error: {q}:1 (line 2): value 'lots' in numeric column 'size' is not a number"
    q.write_text("subject,body,size,colour\nfree prize,,4.5,red\n")
    code, out, err = run("predict", tmp_path / "arff.tnb", q, "--json")
    assert code == 0 and json.loads(out)["label"] == "spam"


def test_a_dataframe_of_string_and_category_columns_is_read_as_tabularnb_reads_it(tmp_path):
    # MixedNB read a DataFrame's string columns as numeric ("cell 'sunny' of numeric attribute
    # 'outlook' is not a number"); now it takes TabularNB's rule (textnb.io.frames): object,
    # string and category columns nominal, numbers numeric
    df = pd.DataFrame({"outlook": ["sunny", "rain", "overcast", "sunny", "rain", "overcast"] * 3,
                       "windy": pd.Categorical(["yes", "no", "no", "yes", "yes", "no"] * 3),
                       "hot": ["a", "b", "b", "a", "b", "b"] * 3})
    y = ["no", "yes", "yes", "yes", "no", "yes"] * 3
    tab, mixed = TabularNB().fit(df, y), MixedNB().fit(df, y)
    assert [(a.name, a.kind, a.values) for a in mixed.attributes_] == \
        [(a.name, a.kind, a.values) for a in tab.attributes_]
    new = pd.DataFrame({"outlook": ["rain", "fog"], "windy": pd.Categorical(["no", "yes"]), "hot": ["a", "a"]})
    for X in (df, new):  # (an unseen value, "fog", is missing in both)
        np.testing.assert_array_equal(mixed.predict(X), tab.predict(X))
        np.testing.assert_allclose(mixed.predict_proba(X), tab.predict_proba(X))
    mixed.save(tmp_path / "m.tnb")
    np.testing.assert_array_equal(load(tmp_path / "m.tnb").predict(new), tab.predict(new))


def test_a_later_partial_fit_batch_of_a_dataframe_widens_its_nominal_values_as_tabularnb(tmp_path):
    # a DataFrame's second partial_fit batch holding a value the first lacked was refused
    # ("column 'outlook' holds 'overcast', not one of the 2 values its attribute declares")
    # while TabularNB widens the attribute; now MixedNB widens it too: two batches == one fit
    df = pd.DataFrame({"outlook": ["sunny", "rain", "sunny", "rain", "overcast", "fog", "overcast", "rain"],
                       "windy": [True, False, False, True, True, False, True, False],
                       "temp": [30.0, 12.5, 25.0, 14.0, 20.0, 9.0, 22.0, 11.0]})
    y = np.array(["no", "yes", "yes", "no", "yes", "no", "yes", "yes"])
    whole, tab = MixedNB().fit(df, y), TabularNB().fit(df, y)
    mixed = MixedNB().partial_fit(df[:4], y[:4], classes=["no", "yes"]).partial_fit(df[4:], y[4:])
    # (the first batch's values sorted, a later batch's new ones after them; fit sorts them all)
    assert [(a.name, a.kind, sorted(a.values)) for a in mixed.attributes_] == \
        [(a.name, a.kind, a.values) for a in whole.attributes_]
    assert mixed.attributes_[0].values == ["rain", "sunny", "fog", "overcast"]  # (each batch's sorted)
    np.testing.assert_allclose(mixed.predict_proba(df), whole.predict_proba(df))
    np.testing.assert_allclose(mixed.predict_proba(df), tab.predict_proba(df))
    mixed.save(tmp_path / "m.tnb")
    np.testing.assert_allclose(load(tmp_path / "m.tnb").predict_proba(df), whole.predict_proba(df))
    declared = MixedNB(attributes=tuple(whole.attributes_[:1]) + (Attribute("windy", "nominal", ["True"]),
                                                                   whole.attributes_[2]))
    declared.partial_fit(df[:1], y[:1], classes=["no", "yes"])
    with pytest.raises(ValueError, match="windy"):  # declared attributes still refuse a new value
        declared.partial_fit(df[1:], y[1:])
