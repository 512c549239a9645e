"""A data scientist's trial of the library against scikit-learn's, fastText's and NLTK's
conventions (session 26): each test here failed before its fix."""

import pickle

import numpy as np
import pytest
from sklearn.metrics import f1_score
from sklearn.preprocessing import MultiLabelBinarizer

from textnb import MultiLabelNB, MultinomialNB, TextClassifier

DOCS = ["win cash now", "free prize claim now", "see you at noon", "lunch at noon today",
        "claim your free cash", "meeting moved to noon", "cash prize winner", "call me later today"] * 3
LABELS = ["spam", "spam", "ham", "ham", "spam", "ham", "spam", "ham"] * 3


def test_text_classifier_partial_fit_empty_batch_default_model():
    # scikit-learn's streaming habit: a batch may come out empty; the count models
    # already took it as nothing to learn, the default DiscriminativeNB raised a numpy
    # UFuncTypeError (and an empty FIRST batch fixed the event model on no data)
    clf = TextClassifier().partial_fit(DOCS[:12], LABELS[:12], classes=["ham", "spam"])
    before = clf.predict_proba(DOCS)
    clf.partial_fit([], [])
    np.testing.assert_array_equal(clf.predict_proba(DOCS), before)
    first_empty = TextClassifier().partial_fit([], [], classes=["ham", "spam"]).partial_fit(DOCS[:12], LABELS[:12])
    np.testing.assert_array_equal(first_empty.predict_proba(DOCS), before)
    assert pickle.loads(pickle.dumps(first_empty)).predict(DOCS).tolist() == clf.predict(DOCS).tolist()


def test_multilabel_score_honours_sample_weight():
    # ClassifierMixin.score(X, y, sample_weight): MultiLabelNB's multi-label score (micro-F1)
    # dropped the weights without a word
    rng = np.random.RandomState(0)
    X = rng.poisson(1.0, size=(90, 8))
    sets = [tuple(sorted(set(rng.choice(["x", "y", "z"], rng.randint(1, 3))))) for _ in range(90)]
    Y = MultiLabelBinarizer().fit_transform(sets)
    weights = rng.randint(0, 4, 90).astype(float)
    model = MultiLabelNB().fit(X, Y)
    expected = f1_score(Y, model.predict(X), average="micro", sample_weight=weights)
    assert model.score(X, Y, sample_weight=weights) == pytest.approx(expected, abs=1e-12)
    assert model.score(X, Y) == pytest.approx(f1_score(Y, model.predict(X), average="micro"), abs=1e-12)
    assert MultiLabelNB().fit(X, sets).score(X, sets, sample_weight=weights) == pytest.approx(expected, abs=1e-12)
    with pytest.raises(ValueError, match="sample_weight"):
        model.score(X, Y, sample_weight=np.ones(3))


def test_fasttext_predict_and_get_labels_take_on_unicode_error(tmp_path):
    # fastText's signatures: predict(text, k=1, threshold=0.0, on_unicode_error='strict'),
    # get_labels(include_freq=False, on_unicode_error='strict'); get_words took it, these
    # two raised TypeError "unexpected keyword argument 'on_unicode_error'"
    from textnb.fasttext import train_supervised

    path = tmp_path / "train.txt"
    path.write_text("".join(f"__label__{lab} {doc}\n" for doc, lab in zip(DOCS, LABELS)), encoding="utf-8")
    model = train_supervised(input=str(path))
    labels, probas = model.predict("win cash", k=2, threshold=0.0, on_unicode_error="replace")
    assert labels == model.predict("win cash", k=2)[0] and len(probas) == 2
    assert model.predict(["win cash", "noon"], on_unicode_error="strict")[0] == [["__label__spam"], ["__label__ham"]]
    assert model.get_labels(on_unicode_error="replace") == model.get_labels()
    assert model.get_labels(True, "strict")[0] == model.get_labels()
    with pytest.raises(TypeError, match="predict takes a str or a list of str; got int"):
        model.predict(5)


@pytest.mark.parametrize("name", ["EqualWidthDiscretizer", "EqualFrequencyDiscretizer", "MDLDiscretizer"])
def test_discretizers_name_their_output_columns_and_take_set_output(name):
    # scikit-learn's one-to-one transformers (KBinsDiscretizer(encode="ordinal")) have
    # get_feature_names_out and set_output; the discretizers raised AttributeError for both,
    # so a Pipeline or ColumnTransformer around them could not name its columns
    import pandas as pd
    from sklearn.pipeline import make_pipeline

    import textnb

    rng = np.random.RandomState(0)
    y = np.array(["a", "b", "c"] * 20)
    X = rng.normal(size=(60, 3))
    X[y == "a", 0] += 2
    frame = pd.DataFrame(X, columns=["x", "y", "z"])
    cls = getattr(textnb, name)
    fitted = cls().fit(X, y)
    assert fitted.get_feature_names_out().tolist() == ["x0", "x1", "x2"]
    assert cls().fit(frame, y).get_feature_names_out().tolist() == ["x", "y", "z"]
    out = cls().set_output(transform="pandas").fit(frame, y).transform(frame)
    assert list(out.columns) == ["x", "y", "z"]
    np.testing.assert_array_equal(out.to_numpy(), cls().fit(frame, y).transform(frame))
    pipe = make_pipeline(cls(), textnb.CategoricalNB()).fit(frame, y)
    assert pipe[:-1].get_feature_names_out().tolist() == ["x", "y", "z"]


@pytest.mark.parametrize("model", ["MultinomialNB", "BernoulliNB", None])
def test_text_classifier_decodes_bytes_with_its_vectorizers_encoding(tmp_path, model):
    # make_pipeline(Vectorizer(encoding="cp1251"), model) decodes bytes documents with the
    # encoding given, as CountVectorizer does; TextClassifier(vectorizer=Vectorizer(encoding=...))
    # ignored it and guessed UTF-8 / Windows-1252, so a cp1251 corpus became mojibake terms
    import textnb
    from textnb import Vectorizer

    texts = ["привет мир", "пока мир", "привет друг", "пока друг"]
    docs = [t.encode("cp1251") for t in texts]
    labels = ["a", "b", "a", "b"]
    estimator = None if model is None else getattr(textnb, model)()
    clf = TextClassifier(vectorizer=Vectorizer(encoding="cp1251"), model=estimator).fit(docs, labels)
    assert sorted(clf.vectorizer_.vocabulary_) == ["друг", "мир", "пока", "привет"]
    path = tmp_path / "doc.txt"
    path.write_bytes(docs[0])
    strings = TextClassifier(model=estimator).fit(texts, labels)  # the same texts given as str
    np.testing.assert_allclose(clf.predict_proba(docs + [path]), strings.predict_proba(texts + texts[:1]), atol=1e-12)
    clf.save(tmp_path / "m.tnb")
    np.testing.assert_allclose(textnb.load(tmp_path / "m.tnb").predict_proba(docs), clf.predict_proba(docs), atol=1e-12)
    # an explicit Latin-1 reads UTF-8 bytes as Latin-1 (CountVectorizer's 'cafã'); the default still guesses
    utf8 = [b"caf\xc3\xa9 noir", b"th\xc3\xa9 vert"]
    latin = TextClassifier(vectorizer=Vectorizer(encoding="latin-1"), model=MultinomialNB()).fit(utf8, ["a", "b"])
    assert sorted(latin.vectorizer_.vocabulary_) == ["cafã", "noir", "thã", "vert"]
    guessed = TextClassifier(model=MultinomialNB()).fit([b"caf\xe9 noir", b"th\xc3\xa9 vert"], ["a", "b"])
    assert sorted(guessed.vectorizer_.vocabulary_) == ["café", "noir", "thé", "vert"]


def test_fasttext_load_model_of_a_table_model_says_it_is_no_text_model(tmp_path):
    # fastText's load_model reads its supervised models; textnb.fasttext.load_model took a
    # table model and failed at predict with numpy's "could not convert string to float"
    from textnb import ModelFileError, TabularNB
    from textnb.fasttext import load_model

    path = tmp_path / "table.tnb"
    TabularNB().fit(np.eye(3), [0, 1, 2]).save(path)
    with pytest.raises(ModelFileError, match=r"table\.tnb: a TabularNB model, not a text model; .*textnb\.load"):
        load_model(path)
    text = tmp_path / "text.tnb"
    TextClassifier(model=MultinomialNB()).fit(DOCS, LABELS).save(text)
    assert load_model(text).predict("win cash")[0] == ("__label__spam",)


@pytest.mark.parametrize("name", ["TabularNB", "AODE", "TAN", "LBR"])
def test_table_model_given_text_cells_in_an_array_says_what_to_pass(name):
    # df.to_numpy() after fitting on the DataFrame, or raw rows: numpy's "could not convert
    # string to float: 'x'" named neither the cell nor the fix
    import pandas as pd

    import textnb

    frame = pd.DataFrame({"c": ["x", "y", "x", "y"] * 5, "k": ["p", "q", "q", "p"] * 5})
    y = ["A", "B", "A", "B"] * 5
    cls = getattr(textnb, name)
    with pytest.raises(ValueError, match=rf"^{name}: cell 'x' \(row 1, column 1\) of an array is text; .*pass a "
                                         r"pandas DataFrame"):
        cls().fit(frame.to_numpy(), y)
    model = cls().fit(frame, y)
    with pytest.raises(ValueError, match=r"pass the DataFrame it was fitted on \(columns c, k\)"):
        model.predict(frame.to_numpy())
    assert model.predict(frame).tolist() == model.predict(frame.copy()).tolist()
    with pytest.raises(ValueError, match="Input X contains infinity"):  # not text: scikit-learn's own message
        cls().fit(np.array([[1.0, np.inf], [0.0, 1.0]]).astype(object), [0, 1])
