import csv

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose
from sklearn import naive_bayes as skl
from sklearn.utils.estimator_checks import parametrize_with_checks

from textnb import TextClassifier, Vectorizer, load
from textnb.naive_bayes.complement import ComplementNB

RNG = np.random.RandomState(0)
X_RAND = sp.csr_matrix(RNG.poisson(0.6, (120, 25)).astype(float))
Y_RAND = RNG.choice(["a", "b", "c"], 120)


# the default is checked with every export (tests/test_sklearn_cases.py); here the variants
@pytest.mark.slow
@parametrize_with_checks([ComplementNB(norm=True), ComplementNB(m=5.0)])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


@pytest.mark.parametrize("norm", [False, True])
@pytest.mark.parametrize("alpha", [1.0, 0.3, 0.01])
def test_complement_matches_sklearn_on_random_counts(norm, alpha):
    ours = ComplementNB(alpha=alpha, norm=norm).fit(X_RAND, Y_RAND)
    ref = skl.ComplementNB(alpha=alpha, norm=norm).fit(X_RAND, Y_RAND)
    assert_allclose(ours.feature_log_prob_, ref.feature_log_prob_, rtol=1e-12, atol=1e-12)
    assert_allclose(ours.predict_log_proba(X_RAND), ref.predict_log_proba(X_RAND), atol=1e-10)
    assert np.array_equal(ours.predict(X_RAND), ref.predict(X_RAND))


def test_complement_weights_closed_form():
    # two classes: the complement of "a" is class "b" (Rennie et al. eq. 6)
    X = np.array([[2, 0, 1], [0, 3, 1]], dtype=float)
    m = ComplementNB(alpha=1.0).fit(X, ["a", "b"])
    theta_not_a = (np.array([0, 3, 1]) + 1.0) / (4 + 3.0)
    assert_allclose(m.feature_log_prob_[0], -np.log(theta_not_a))
    norm = ComplementNB(alpha=1.0, norm=True).fit(X, ["a", "b"])
    w = np.log(theta_not_a)
    assert_allclose(norm.feature_log_prob_[0], w / w.sum())


def test_complement_m_estimate_closed_form():
    X = np.array([[2, 0, 1], [0, 3, 1], [1, 1, 0]], dtype=float)
    m = ComplementNB(m=2.0).fit(X, ["a", "b", "c"])
    total = X.sum(axis=0)
    p = (total + 1) / (total.sum() + 3)
    comp = total - X[0] + 2.0 * p
    assert_allclose(m.feature_log_prob_[0], -(np.log(comp) - np.log(comp.sum())))


def test_partial_fit_merge_and_fit_counts_equal_fit():
    full = ComplementNB(alpha=0.5).fit(X_RAND, Y_RAND)
    classes = np.unique(Y_RAND)
    inc = ComplementNB(alpha=0.5).partial_fit(X_RAND[:50], Y_RAND[:50], classes=classes)
    inc.partial_fit(X_RAND[50:], Y_RAND[50:])
    merged = ComplementNB(alpha=0.5).fit(X_RAND[:70], Y_RAND[:70]).merge(
        ComplementNB(alpha=0.5).fit(X_RAND[70:], Y_RAND[70:]))
    counts = ComplementNB(alpha=0.5).fit_counts(full.classes_, full.class_count_, full.feature_count_)
    for other in (inc, merged, counts):
        assert_allclose(other.predict_log_proba(X_RAND), full.predict_log_proba(X_RAND), atol=1e-12)


def test_single_class_uses_the_prior():
    m = ComplementNB().fit(X_RAND[:5], ["x"] * 5)
    assert m.predict(X_RAND[:3]).tolist() == ["x"] * 3
    assert_allclose(m.predict_proba(X_RAND[:3]), 1.0)


def test_model_file_round_trip(tmp_path):
    m = ComplementNB(alpha=0.3, norm=True).fit(X_RAND, Y_RAND)
    m.save(tmp_path / "c.tnb")
    back = load(tmp_path / "c.tnb")
    assert isinstance(back, ComplementNB) and back.get_params() == m.get_params()
    assert_allclose(back.predict_log_proba(X_RAND), m.predict_log_proba(X_RAND))


@pytest.fixture(scope="module")
def sms(sms_tsv):
    with open(sms_tsv, encoding="utf-8") as f:
        rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    return [r[1] for r in rows], np.array([r[0] for r in rows])


def assert_sklearn_or_prior(ours, ref, X, y_train, atol=1e-9):
    """scikit-learn's probabilities for every document with a known term; the training
    class frequencies for the others (scikit-learn gives them 1/2 each)."""
    empty = np.asarray(X.sum(axis=1)).ravel() == 0
    assert 0 < empty.sum() < len(empty)  # both kinds are tested
    assert_allclose(ours[~empty], ref[~empty], atol=atol)
    _, counts = np.unique(y_train, return_counts=True)
    assert_allclose(ours[empty], np.tile(counts / counts.sum(), (empty.sum(), 1)), atol=1e-12)


@pytest.mark.parametrize("norm", [False, True])
def test_matches_sklearn_on_sms(sms, norm):
    texts, y = sms
    v = Vectorizer()
    X_train, X_test = v.fit_transform(texts[:4000]), v.transform(texts[4000:])
    ours = ComplementNB(norm=norm).fit(X_train, y[:4000])
    ref = skl.ComplementNB(norm=norm).fit(X_train, y[:4000])
    assert_sklearn_or_prior(ours.predict_proba(X_test), ref.predict_proba(X_test), X_test, y[:4000])
    empty = np.asarray(X_test.sum(axis=1)).ravel() == 0
    assert np.array_equal(ours.predict(X_test)[~empty], ref.predict(X_test)[~empty])
    assert set(ours.predict(X_test)[empty]) == {"ham"}  # the most frequent class


def test_text_classifier_streams_complement(sms):
    texts, y = sms
    clf = TextClassifier(model=ComplementNB()).fit(texts[:3000], y[:3000])
    v = Vectorizer()
    ref = skl.ComplementNB().fit(v.fit_transform(texts[:3000]), y[:3000])
    X_test = v.transform(texts[3000:])
    assert_sklearn_or_prior(clf.predict_proba(texts[3000:]), ref.predict_proba(X_test), X_test, y[:3000])


@pytest.mark.slow
def test_matches_sklearn_on_20newsgroups(shared_corpora):
    from textnb import open_corpus
    from textnb.io.corpus import read_document

    corpus = open_corpus(shared_corpora("20news-bydate"))
    # a quarter of the training split, to keep the test fast
    texts = [read_document(p) for p in corpus.documents[::4]]
    y = np.array(corpus.labels[::4])
    v = Vectorizer()
    X = v.fit_transform(texts[::2] + texts[1::2])
    y = np.concatenate([y[::2], y[1::2]])
    half = len(texts[::2])
    for norm in (False, True):
        ours = ComplementNB(norm=norm).fit(X[:half], y[:half])
        ref = skl.ComplementNB(norm=norm).fit(X[:half], y[:half])
        known = np.asarray(X[half:].sum(axis=1)).ravel() > 0  # the others get the prior
        assert np.array_equal(ours.predict(X[half:])[known], ref.predict(X[half:])[known])
        assert_allclose(ours.predict_log_proba(X[half:])[known], ref.predict_log_proba(X[half:])[known], atol=1e-7)
