import csv
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose
from sklearn import naive_bayes as skl
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.utils.estimator_checks import parametrize_with_checks

from textnb import BernoulliNB, ComplementNB, MultinomialNB

ESTIMATORS = [MultinomialNB, BernoulliNB]
SKLEARN = {MultinomialNB: skl.MultinomialNB, BernoulliNB: skl.BernoulliNB}


# the defaults are checked with every export (tests/test_sklearn_cases.py); here the variants
@pytest.mark.slow
@parametrize_with_checks([MultinomialNB(m=2.0), BernoulliNB(m=1.0)])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


@pytest.fixture(scope="module")
def sms_counts(sms_tsv):
    with open(sms_tsv, encoding="utf-8") as f:
        rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    X = CountVectorizer().fit_transform([r[1] for r in rows])
    return X, np.array([r[0] for r in rows])


@pytest.mark.parametrize("Estimator", ESTIMATORS)
@pytest.mark.parametrize("alpha", [1.0, 0.1, 0.01])
def test_probabilities_match_sklearn_on_a_real_corpus(Estimator, alpha, sms_counts):
    X, y = sms_counts
    ours = Estimator(alpha=alpha).fit(X[:4000], y[:4000])
    ref = SKLEARN[Estimator](alpha=alpha).fit(X[:4000], y[:4000])
    assert_allclose(ours.predict_proba(X[4000:]), ref.predict_proba(X[4000:]), atol=1e-9, rtol=0)
    assert_allclose(ours.predict_log_proba(X[4000:]), ref.predict_log_proba(X[4000:]), atol=1e-8, rtol=1e-9)
    assert np.array_equal(ours.predict(X[4000:]), ref.predict(X[4000:]))


def test_multinomial_worked_example_from_witten_and_frank():
    # P(yellow|H)=0.75, P(blue|H)=0.25: "blue yellow blue" has likelihood 3 * 0.25^2 * 0.75 = 9/64
    nb = MultinomialNB(alpha=1e-10).fit(np.array([[3, 1], [1, 9]]), ["H", "H'"])
    log_theta = nb.feature_log_prob_
    doc = np.array([1, 2])  # yellow once, blue twice
    coef = 3  # multinomial coefficient 3! / (1! 2!)
    assert coef * np.exp(doc @ log_theta[0]) == pytest.approx(9 / 64, rel=1e-6)
    assert coef * np.exp(doc @ log_theta[1]) == pytest.approx(3 * 0.9**2 * 0.1, rel=1e-6)
    assert coef * np.exp(doc @ log_theta[1]) == pytest.approx(0.243, rel=1e-6)


def test_iir_china_example():
    # Manning, Raghavan & Schuetze, Introduction to IR, example 13.1
    # columns: chinese, beijing, shanghai, macao, tokyo, japan
    X = np.array([[2, 1, 0, 0, 0, 0], [2, 0, 1, 0, 0, 0], [1, 0, 0, 1, 0, 0], [1, 0, 0, 0, 1, 1]])
    y = ["c", "c", "c", "j"]
    nb = MultinomialNB().fit(X, y)
    assert np.exp(nb.feature_log_prob_[0, 0]) == pytest.approx(3 / 7)
    assert np.exp(nb.feature_log_prob_[1, 4]) == pytest.approx(2 / 9)
    test = np.array([[3, 0, 0, 0, 1, 1]])
    joint = np.exp(nb.predict_joint_log_proba(test))[0]
    assert joint[0] == pytest.approx(3 / 4 * (3 / 7) ** 3 * 1 / 14 * 1 / 14, rel=1e-9)
    assert joint[1] == pytest.approx(1 / 4 * (2 / 9) ** 3 * 2 / 9 * 2 / 9, rel=1e-9)
    assert nb.predict(test)[0] == "c"
    # Bernoulli version (IIR example 13.2): P(c|d5) ~ 0.005 vs P(j|d5) ~ 0.022
    bnb = BernoulliNB().fit(X, y)
    joint = np.exp(bnb.predict_joint_log_proba(test))[0]
    assert joint[0] == pytest.approx(0.005, abs=5e-4)
    assert joint[1] == pytest.approx(0.022, abs=5e-4)
    assert bnb.predict(test)[0] == "j"


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_partial_fit_in_chunks_equals_fit(Estimator, sms_counts):
    X, y = sms_counts
    full = Estimator().fit(X[:1000], y[:1000])
    inc = Estimator()
    for start in range(0, 1000, 137):
        stop = min(start + 137, 1000)
        inc.partial_fit(X[start:stop], y[start:stop], classes=["ham", "spam"])
    assert_allclose(inc.feature_count_, full.feature_count_)
    assert_allclose(inc.predict_log_proba(X[1000:1200]), full.predict_log_proba(X[1000:1200]))


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_partial_fit_rejects_unknown_labels(Estimator):
    nb = Estimator().partial_fit([[1, 0], [0, 1]], [0, 1], classes=[0, 1])
    with pytest.raises(ValueError, match=r"label\(s\) \[5\] in y do not exist in the initial classes"):
        nb.partial_fit([[1, 1]], [5])
    with pytest.raises(ValueError, match="first call"):
        Estimator().partial_fit([[1, 1]], [0])


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_merge_equals_fit_on_union(Estimator, sms_counts):
    X, y = sms_counts
    a = Estimator().fit(X[:700], y[:700])
    b = Estimator().fit(X[700:1500], y[700:1500])
    whole = Estimator().fit(X[:1500], y[:1500])
    a.merge(b)
    assert_allclose(a.feature_count_, whole.feature_count_)
    assert_allclose(a.predict_log_proba(X[2000:2100]), whole.predict_log_proba(X[2000:2100]))


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_no_nan_or_inf_for_huge_or_unseen_documents(Estimator, sms_counts):
    X, y = sms_counts
    nb = Estimator().fit(X, y)
    huge = sp.csr_matrix(X[0].toarray() * 10**6)  # a document of ~10^7 tokens
    empty = sp.csr_matrix((1, X.shape[1]))  # every word unseen: no known term at all
    for doc in (huge, empty):
        for method in (nb.predict_proba, nb.predict_log_proba, nb.predict_joint_log_proba, nb.predict_log_odds):
            out = method(doc)
            assert np.all(np.isfinite(out))
        assert_allclose(nb.predict_proba(doc).sum(), 1.0)


def test_log_odds_keep_resolution_where_probabilities_round_to_one(sms_counts):
    X, y = sms_counts
    nb = MultinomialNB().fit(X, y)
    spam = X[np.flatnonzero(y == "spam")[:50]]
    docs = sp.vstack([spam * 40, spam * 80])
    proba = nb.predict_proba(docs)[:, 1]
    odds = nb.predict_log_odds(docs)[:, 1]
    assert np.sum(proba == 1.0) > 10  # probabilities saturate
    assert len(np.unique(odds)) == len(odds)  # log-odds still rank every document
    assert np.all(np.diff(odds[:50]) != 0)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_sample_weight_equals_repetition(Estimator):
    X = np.array([[1, 2, 0], [0, 1, 3], [2, 0, 1]])
    y = np.array(["a", "b", "a"])
    weighted = Estimator().fit(X, y, sample_weight=[2, 1, 3])
    repeated = Estimator().fit(np.repeat(X, [2, 1, 3], axis=0), np.repeat(y, [2, 1, 3]))
    assert_allclose(weighted.predict_log_proba(X), repeated.predict_log_proba(X))


@pytest.mark.parametrize("Estimator", [MultinomialNB, BernoulliNB, ComplementNB])
@pytest.mark.parametrize("weight", [2.0, 3, 0.25, np.float32(1.5)])
def test_a_number_as_sample_weight_weighs_every_sample_as_in_scikit_learn(Estimator, weight):
    """``fit(X, y, sample_weight=2.0)`` was refused ('sample_weight has shape (); expected (4,)');
    scikit-learn's ``_check_sample_weight`` takes a number as every sample's weight: the fitted
    model is scikit-learn's with the same number, and textnb's with that weight for each sample."""
    X = np.array([[1, 2, 0], [0, 1, 3], [2, 0, 1], [0, 0, 4]])
    y = np.array(["a", "b", "a", "b"])
    ours = Estimator().fit(X, y, sample_weight=weight)
    theirs = getattr(skl, Estimator.__name__)().fit(X, y, sample_weight=weight)
    for name in ("class_count_", "feature_count_", "feature_log_prob_", "class_log_prior_"):
        assert_allclose(getattr(ours, name), getattr(theirs, name), rtol=1e-12, err_msg=name)
    assert_allclose(ours.predict_log_proba(X), theirs.predict_log_proba(X), rtol=1e-12)
    each = Estimator().fit(X, y, sample_weight=np.full(len(y), float(weight)))
    assert_allclose(ours.feature_log_prob_, each.feature_log_prob_, rtol=0)


@pytest.mark.parametrize("weight, message", [(-1.0, "finite and >= 0"), (float("nan"), "finite and >= 0"),
                                             (float("inf"), "finite and >= 0"), (0, "zero for every object"),
                                             (1e300, "sums to 4e\\+300"), ("2", "shape \\(\\); expected \\(4,\\)")])
def test_a_number_as_sample_weight_is_checked_as_an_array_is(weight, message):
    X, y = np.array([[1, 2], [0, 1], [2, 0], [0, 3]]), np.array(["a", "b", "a", "b"])
    with pytest.raises(ValueError, match=message):
        MultinomialNB().fit(X, y, sample_weight=weight)


def _every_weighted_export():
    """Every exported estimator whose ``fit`` takes ``sample_weight``: the ones that use
    :func:`textnb.naive_bayes.scoring.check_sample_weight`, or pass it to a model that does."""
    import inspect

    import textnb
    from sklearn.base import BaseEstimator

    return [name for name in textnb.__all__ if isinstance(getattr(textnb, name), type)
            and issubclass(getattr(textnb, name), BaseEstimator)
            and "sample_weight" in inspect.signature(getattr(textnb, name).fit).parameters]


@pytest.mark.parametrize("name", _every_weighted_export())
def test_every_estimator_takes_a_number_as_sample_weight(name):
    """Each estimator fitted with one number as ``sample_weight`` is the one fitted with that
    number for every sample (CalibratedNB checked the shape itself and still refused it)."""
    import textnb

    rng = np.random.RandomState(0)
    X = ["cheap pills now", "meeting at noon", "cheap lunch"] * 10 if name == "TextClassifier" else rng.randint(0, 4, (30, 5)) * 1.0
    y = np.array(["a", "b", "c"] * 10)
    weight = 2.0 if name == "APNBC" else 2.5  # (APNBC's weight search counts objects: whole numbers)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (a discretizer's or a small table's warnings: the same for both)
        fitted = [getattr(textnb, name)().fit(X, y, sample_weight=w) for w in (weight, np.full(30, weight))]
    if hasattr(fitted[0], "predict_proba"):
        outputs = [model.predict_proba(X[:6]) for model in fitted]
    else:
        outputs = [model.transform(X[:6]) for model in fitted]
    assert_allclose(outputs[0], outputs[1], rtol=0)


def test_bernoulli_never_densifies_and_uses_count_complements():
    X = sp.random(200, 5000, density=0.01, format="csr", random_state=0)
    X.data[:] = 1
    y = np.arange(200) % 3
    nb = BernoulliNB(alpha=1e-10).fit(X, y)
    expected = np.log(nb.class_count_[:, None] - nb.feature_count_ + 1e-10) - np.log(nb.class_count_[:, None] + 2e-10)
    assert_allclose(nb.feature_log_neg_prob_, expected)
    ref = skl.BernoulliNB(alpha=1.0).fit(X, y)
    assert_allclose(BernoulliNB().fit(X, y).predict_log_proba(X), ref.predict_log_proba(X), atol=1e-9)


def test_m_estimate_uses_background_frequency():
    X = np.array([[4, 0], [0, 4]])
    nb = MultinomialNB(m=2.0).fit(X, ["a", "b"])
    p = (np.array([4, 4]) + 1) / (8 + 2)  # Laplace-smoothed background, 0.5 each
    assert_allclose(np.exp(nb.feature_log_prob_[0]), (np.array([4, 0]) + 2 * p) / (4 + 2))


def test_tiny_alpha_is_floored_with_a_warning_without_force_alpha():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        nb = MultinomialNB(alpha=0, force_alpha=False).fit([[1, 0], [0, 1]], [0, 1])
    assert any("alpha too small" in str(x.message) for x in w)
    assert np.all(np.isfinite(nb.feature_log_prob_))


@pytest.mark.parametrize("cls", [MultinomialNB, BernoulliNB])
def test_force_alpha_keeps_alpha_zero_and_never_gives_nan(cls):
    """scikit-learn's default since 1.4: alpha is used as given; a zero of X against a
    log probability of -inf adds nothing (no nan), dense or sparse."""
    X, y = np.array([[1, 0], [1, 1]]), np.array([0, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nb = cls(alpha=0).fit(X, y)
    assert nb.force_alpha is True
    for Xp in (X, sp.csr_matrix(X)):
        proba = nb.predict_proba(Xp)
        assert not np.any(np.isnan(proba))
    ref = cls(alpha=1e-300).fit(X, y)  # the limit alpha -> 0 (scikit-learn's BernoulliNB gives nan here)
    assert_allclose(nb.predict_proba(X), ref.predict_proba(X), atol=1e-12)


@pytest.mark.parametrize("cls", [MultinomialNB, BernoulliNB, ComplementNB])
def test_alpha_per_feature_matches_scikit_learn(cls):
    rng = np.random.RandomState(0)
    X, y = rng.randint(4, size=(30, 5)), rng.randint(3, size=30)
    alpha = np.array([0.1, 1.0, 2.0, 0.5, 3.0])
    ours = cls(alpha=alpha).fit(X, y)
    if cls is BernoulliNB:  # scikit-learn's own BernoulliNB fails on an array alpha (shapes do not broadcast)
        fc, cc = ours.feature_count_, ours.class_count_[:, None]
        assert_allclose(np.exp(ours.feature_log_prob_), (fc + alpha) / (cc + 2 * alpha), rtol=1e-12)
        assert_allclose(np.exp(ours.feature_log_neg_prob_), (cc - fc + alpha) / (cc + 2 * alpha), rtol=1e-12)
    else:
        theirs = getattr(skl, cls.__name__)(alpha=alpha).fit(X, y)
        assert_allclose(ours.feature_log_prob_, theirs.feature_log_prob_, rtol=1e-12)
        assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=1e-10)
    with pytest.raises(ValueError, match="When alpha is an array, it should contains `n_features`"):
        cls(alpha=alpha[:3]).fit(X, y)
    with pytest.raises(ValueError, match="All values in alpha must be greater than 0"):
        cls(alpha=-alpha).fit(X, y)


@pytest.mark.parametrize("cls", [MultinomialNB, BernoulliNB, ComplementNB])
@pytest.mark.parametrize("params, message", [
    ({"alpha": "x"}, "alpha must be a finite number >= 0 or an array of one per feature; got 'x'"),
    ({"alpha": None}, "alpha must be a finite number >= 0 or an array of one per feature; got None"),
    ({"class_prior": "x"}, "class_prior must be None or one probability per class; got 'x'"),
])
def test_alpha_or_class_prior_that_is_no_number_is_named(cls, params, message):
    # was numpy's "could not convert string to float: 'x'", and for alpha=None
    # "When alpha is an array, it should contains `n_features`. Got 1 elements instead of 2."
    import re

    from textnb.core.errors import ParameterError

    with pytest.raises(ParameterError, match=re.escape(message)):
        cls(**params).fit([[1, 0], [0, 1]], ["a", "b"])


def test_class_prior_and_uniform_prior():
    X, y = [[1, 0], [1, 0], [0, 1]], ["a", "a", "b"]
    assert_allclose(np.exp(MultinomialNB(fit_prior=False).fit(X, y).class_log_prior_), [0.5, 0.5])
    assert_allclose(np.exp(MultinomialNB(class_prior=[0.1, 0.9]).fit(X, y).class_log_prior_), [0.1, 0.9])
    with pytest.raises(ValueError, match="priors"):
        MultinomialNB(class_prior=[1.0]).fit(X, y)


@pytest.mark.parametrize("to", [np.asarray, sp.csr_matrix])
def test_bernoulli_without_binarizing_refuses_what_is_not_a_presence(to):
    """Found by a user trial: BernoulliNB(binarize=None) fitted on counts had probabilities
    over 1 and predicted NaN (as scikit-learn's does); the README promises no NaN. Counts
    are refused with a ValueError; presences in [0, 1] (fractions: uncertain ones) are taken."""
    X = np.array([[0, 2, 1], [1, 0, 3], [2, 1, 0], [0, 0, 1]], dtype=float)
    with pytest.raises(ValueError, match=r"binarize=None\) takes presence values in \[0, 1\]"):
        BernoulliNB(binarize=None).fit(to(X), [0, 1, 0, 1])
    half = to((X > 0) * 0.5)
    proba = BernoulliNB(binarize=None).fit(half, [0, 1, 0, 1]).predict_proba(half)
    assert np.all(np.isfinite(proba)) and np.allclose(proba.sum(axis=1), 1)
    expected = skl.BernoulliNB(binarize=None).fit(half, [0, 1, 0, 1]).predict_proba(half)
    assert_allclose(proba, expected, rtol=1e-9)
