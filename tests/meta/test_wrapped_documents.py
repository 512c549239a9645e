"""The wrappers pass raw documents through to a model of documents (a TextClassifier, a Pipeline
starting with a vectorizer), as scikit-learn's ``CalibratedClassifierCV(make_pipeline(
CountVectorizer(), MultinomialNB()))`` does; around a model of a count matrix they say what
to pass instead, in one line."""

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline

import textnb
from textnb.core.errors import InputError
from tests.conftest import SMS_TSV

pytestmark = pytest.mark.skipif(not SMS_TSV.exists(), reason="bundled SMS collection missing")


@pytest.fixture(scope="module")
def docs():
    corpus = textnb.open_corpus(SMS_TSV)
    return list(corpus.documents)[:600], np.asarray(corpus.labels)[:600]


WRAPPERS = {
    "calibrated-text": lambda: textnb.CalibratedNB(textnb.TextClassifier(), cv=3),
    "calibrated-pipeline": lambda: textnb.CalibratedNB(make_pipeline(CountVectorizer(), textnb.MultinomialNB()), cv=3),
    "apnbc-text": lambda: textnb.APNBC(textnb.TextClassifier()),
    "apnbc-text-cv": lambda: textnb.APNBC(textnb.TextClassifier(), fit_on="cv", cv=3),
    "smoothing-text": lambda: textnb.SmoothingCV(textnb.TextClassifier(model=textnb.MultinomialNB()),
                                                 param_grid={"model__alpha": [0.1, 1.0]}, cv=3),
    "smoothing-pipeline": lambda: textnb.SmoothingCV(make_pipeline(textnb.Vectorizer(), textnb.MultinomialNB()),
                                                     param_grid={"multinomialnb__alpha": [0.1, 1.0]}, cv=3),
}


@pytest.mark.parametrize("name", list(WRAPPERS))
def test_a_wrapper_of_a_model_of_documents_takes_raw_documents(docs, name, tmp_path):
    # before: scikit-learn's "Expected 2D array, got 1D array instead: ... Reshape your data"
    X, y = docs
    model = WRAPPERS[name]().fit(X, y)
    pred = model.predict(X[:50])
    assert (pred == model.estimator_.predict(X[:50])).mean() > 0.9  # (APNBC, calibration: may move a few)
    proba = model.predict_proba(X[:50])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(model)).predict(X[:50]), pred)
    assert clone(model).get_params().keys() == model.get_params().keys()
    if name != "calibrated-pipeline":  # (scikit-learn's CountVectorizer cannot be stored in a model file)
        model.save(tmp_path / "m.tnb")
        np.testing.assert_array_equal(textnb.load(tmp_path / "m.tnb").predict(X[:50]), pred)
    scores = cross_val_score(WRAPPERS[name](), X, y, cv=3, error_score="raise")
    assert scores.min() > 0.9


@pytest.mark.parametrize("make, wrapper", [
    (lambda: textnb.CalibratedNB(textnb.MultinomialNB(), cv=3), "CalibratedNB"),
    (lambda: textnb.SmoothingCV(textnb.MultinomialNB(), cv=3), "SmoothingCV"),
    (lambda: textnb.SmoothingCV(cv=3), "SmoothingCV"),  # (its default, TermWeighting and a count model)
    (lambda: textnb.APNBC(textnb.MultinomialNB()), "APNBC"),
], ids=["calibrated", "smoothing", "smoothing-default", "apnbc"])
def test_documents_given_to_a_wrapper_of_a_count_model_say_what_to_pass(docs, make, wrapper):
    X, y = docs
    with pytest.raises(InputError, match=rf"^{wrapper} was given raw documents, .* takes a count matrix: "
                                         rf".*TextClassifier\(model={wrapper}\("):
        make().fit(X, y)
    fitted = make().fit(textnb.Vectorizer().fit_transform(X), y)
    with pytest.raises(InputError, match="raw documents"):
        fitted.predict(X[:3])


def test_smoothingcv_default_grid_over_a_text_classifier():
    """SmoothingCV(TextClassifier(model=MultinomialNB())) without a grid tunes the count model's
    m (``model__m``); over a model with no m it says to give a grid (before: scikit-learn's
    'Invalid parameter m')."""
    from textnb import DiscriminativeNB, MultinomialNB, SmoothingCV, TextClassifier

    docs = ["cheap pills now", "win money now", "meeting at noon", "lunch at noon"] * 5
    y = ["spam", "spam", "ham", "ham"] * 5
    cv = SmoothingCV(TextClassifier(model=MultinomialNB()), cv=2).fit(docs, y)
    assert set(cv.best_params_) == {"model__m"}
    assert list(cv.predict(["cheap money", "noon lunch"])) == ["spam", "ham"]
    with pytest.raises(ValueError, match="give param_grid"):
        SmoothingCV(TextClassifier(model=DiscriminativeNB()), cv=2).fit(docs, y)


def test_calibratednb_of_a_pipeline_takes_sample_weight():
    """CalibratedNB(make_pipeline(Vectorizer(), MultinomialNB())) with sample_weight: the
    weights reach the Pipeline's last step (``multinomialnb__sample_weight``), in each fold
    and in the final fit; weight 2 is the document twice (before: scikit-learn's 'Pipeline.fit
    does not accept the sample_weight parameter')."""
    from textnb import CalibratedNB, MultinomialNB, Vectorizer

    docs = ["cheap pills now", "win money now", "meeting at noon", "lunch at noon", "cheap lunch"] * 6
    y = ["spam", "spam", "ham", "ham", "spam"] * 6
    w = np.array([2.0, 1.0, 1.0, 1.0, 1.0] * 6)
    weighted = CalibratedNB(make_pipeline(Vectorizer(), MultinomialNB()), cv=3).fit(docs, y, sample_weight=w)
    inner = weighted.estimator_.steps[-1][1]
    plain = make_pipeline(Vectorizer(), MultinomialNB()).fit(docs + docs[0::5], y + y[0::5]).steps[-1][1]
    assert np.allclose(inner.feature_count_, plain.feature_count_)
    assert weighted.predict_proba(["cheap money"]).shape == (1, 2)
