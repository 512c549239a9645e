"""A data scientist's trial of the library against scikit-learn's, fastText's and NLTK's
conventions (session 26): each test here failed before its fix."""

import pickle

import numpy as np
import pytest
from sklearn.metrics import f1_score
from sklearn.preprocessing import MultiLabelBinarizer

from textnb import MultiLabelNB, TextClassifier

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
