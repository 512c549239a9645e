"""scikit-learn's own test cases, run against textnb's classes.

The cases of ``sklearn/tests/test_naive_bayes.py`` and
``sklearn/feature_extraction/tests/test_text.py`` that concern behaviour textnb claims
to share (written here from those tests' intent, not copied), ``check_estimator`` on
every exported estimator, and the API checks that apply to estimators over raw
documents (whose ``input_tags`` exclude the numeric checks, as scikit-learn's own
``CountVectorizer`` declares).
"""

import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import naive_bayes as sknb
from sklearn.base import BaseEstimator, clone
from sklearn.datasets import load_iris
from sklearn.ensemble import AdaBoostClassifier
from sklearn.exceptions import NotFittedError
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.utils import estimator_checks as ec
from sklearn.utils.estimator_checks import parametrize_with_checks

import textnb
from textnb import (
    BernoulliNB,
    ComplementNB,
    MultinomialNB,
    TabularNB,
    TextClassifier,
    Vectorizer,
)

# -- check_estimator on every exported estimator -----------------------------------------

#: known, explained failures (the estimators take nominal value indices only)
_EXPECTED = {
    "TAN": {
        "check_sample_weight_equivalence_on_dense_data": "nominal value indices only",
        "check_classifiers_one_label_sample_weights": "nominal value indices only",
    },
    "BayesNetClassifier": {
        "check_sample_weight_equivalence_on_dense_data": "nominal value indices only",
        "check_classifiers_one_label_sample_weights": "nominal value indices only",
    },
    "AODE": {
        "check_sample_weight_equivalence_on_dense_data": "nominal value indices only",
        "check_classifiers_one_label_sample_weights": "nominal value indices only",
    },
    "MultiLabelNB": {
        "check_decision_proba_consistency": "the check feeds negative values; naive Bayes needs counts",
    },
}


def _exported_estimators():
    out = []
    for name in textnb.__all__:
        obj = getattr(textnb, name)
        if isinstance(obj, type) and issubclass(obj, BaseEstimator):
            out.append(obj())
    return out


def test_every_exported_estimator_is_listed():
    names = {type(e).__name__ for e in _exported_estimators()}
    for name in ("Vectorizer", "TextClassifier", "SmoothingCV", "Discretized", "MDLDiscretizer",
                 "EqualWidthDiscretizer", "EqualFrequencyDiscretizer", "TabularNB", "LBR", "APNBC"):
        assert name in names
    assert set(_EXPECTED) <= names


@pytest.mark.slow
@parametrize_with_checks(_exported_estimators() + [textnb.Discretized(textnb.LBR())],
                         expected_failed_checks=lambda est: _EXPECTED.get(type(est).__name__, {}))
def test_check_estimator_every_export(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(estimator)


# -- estimators over raw documents: the API checks that apply to them --------------------

_DOCS = ["the cheap pills now", "meeting at noon today", "cheap cheap pills", "lunch meeting at one",
         "pills for cheap", "noon lunch today"]
_Y = np.array(["spam", "ham", "spam", "ham", "spam", "ham"])
_TEXT_ESTIMATORS = [Vectorizer(), Vectorizer(binary=True, ngram_range=(1, 2)), TextClassifier(),
                    TextClassifier(model=BernoulliNB()), TextClassifier(vectorizer=Vectorizer(binary=True))]
_API_CHECKS = [ec.check_estimator_cloneable, ec.check_estimator_repr, ec.check_no_attributes_set_in_init,
               ec.check_get_params_invariance, ec.check_set_params, ec.check_parameters_default_constructible,
               ec.check_estimator_tags_renamed, ec.check_valid_tag_types, ec.check_mixin_order,
               ec.check_do_not_raise_errors_in_init_or_set_params]


@pytest.mark.parametrize("estimator", _TEXT_ESTIMATORS, ids=repr)
def test_text_estimators_declare_string_input(estimator):
    tags = estimator.__sklearn_tags__()
    cv_tags = CountVectorizer().__sklearn_tags__()
    assert tags.input_tags.string is cv_tags.input_tags.string is True
    assert tags.input_tags.two_d_array is cv_tags.input_tags.two_d_array is False


@pytest.mark.parametrize("check", _API_CHECKS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("estimator", _TEXT_ESTIMATORS, ids=repr)
def test_text_estimators_api_checks(estimator, check):
    check(type(estimator).__name__, clone(estimator))


def _output(est, docs):
    if isinstance(est, Vectorizer):
        return est.transform(docs).toarray()
    return est.predict_proba(docs)


@pytest.mark.parametrize("estimator", _TEXT_ESTIMATORS, ids=repr)
def test_text_estimators_fit_contract(estimator):
    est = clone(estimator)
    with pytest.raises(NotFittedError):
        _output(est, _DOCS)
    params = est.get_params()
    assert est.fit(_DOCS, _Y) is est
    assert est.get_params() == params  # fit does not change the parameters
    first = _output(est, _DOCS)
    # idempotent fit; pickling round trip
    assert np.array_equal(_output(clone(estimator).fit(_DOCS, _Y), _DOCS), first)
    assert np.array_equal(_output(pickle.loads(pickle.dumps(est)), _DOCS), first)
    # sample order and subset invariance of the outputs
    order = np.arange(len(_DOCS))[::-1]
    assert np.allclose(_output(est, [_DOCS[i] for i in order]), first[order])
    assert np.allclose(_output(est, _DOCS[:2]), first[:2])
    with pytest.raises(TypeError, match="string object received; wrap it in a list"):
        est.fit("one string", _Y[:1])


def test_text_classifier_length_mismatch_is_sklearns_value_error():
    for clf in (TextClassifier(), TextClassifier(vectorizer=Vectorizer(binary=True))):
        with pytest.raises(ValueError, match="inconsistent numbers of samples"):
            clf.fit(_DOCS, _Y[:-1])
    # a generator: its length is only known once consumed
    with pytest.raises(ValueError, match="labels"):
        TextClassifier().fit((d for d in _DOCS), _Y[:-1])


# -- sklearn/feature_extraction/tests/test_text.py ---------------------------------------

_JUNK = ("the pizza pizza beer copyright", "the pizza burger beer copyright",
         "the the pizza beer beer copyright", "the burger beer beer copyright",
         "the coke burger coke copyright", "the coke burger burger")
_NOTJUNK = ("the salad celeri copyright", "the salad salad sparkling water copyright",
            "the the celeri celeri copyright", "the tomato tomato salad water",
            "the tomato salad water copyright")
_FOOD = _JUNK + _NOTJUNK


def _same_as_count_vectorizer(docs, **params):
    ours, theirs = Vectorizer(**params), CountVectorizer(**params)
    A, B = ours.fit_transform(list(docs)), theirs.fit_transform(list(docs))
    assert ours.vocabulary_ == {k: int(v) for k, v in theirs.vocabulary_.items()}
    assert (A != B).nnz == 0
    assert (ours.transform(list(docs)) != theirs.transform(list(docs))).nnz == 0
    return ours


def test_vectorizer_max_features_case():
    v = _same_as_count_vectorizer(_FOOD, max_df=0.6, max_features=4)
    assert set(v.vocabulary_) == {"burger", "beer", "salad", "pizza"}


def test_count_vectorizer_max_features_case():
    for k in (1, 3, None):
        v = _same_as_count_vectorizer(_JUNK, max_features=k)
        counts = np.asarray(v.transform(_JUNK).sum(axis=0)).ravel()
        assert counts.max() == 7
        assert v.get_feature_names_out()[np.argmax(counts)] == "the"


def test_max_df_and_min_df_cases():
    docs = ["abc dea", "dea eat abc", "eat abc xyz"]
    for params in ({"max_df": 1.0}, {"max_df": 0.5}, {"max_df": 1}, {"min_df": 2}, {"min_df": 0.8},
                   {"min_df": 1, "max_df": 2}):
        _same_as_count_vectorizer(docs, **params)
    with pytest.raises(ValueError):
        Vectorizer(min_df=3, max_df=1).fit(docs)


def test_binary_occurrences_case():
    docs = ["aa aa aa bb cc", "aa bb bb dd ee"]
    v = _same_as_count_vectorizer(docs)
    assert v.transform(docs).toarray().tolist() == [[3, 1, 1, 0, 0], [1, 2, 0, 1, 1]]
    v = _same_as_count_vectorizer(docs, binary=True)
    assert v.transform(docs).toarray().tolist() == [[1, 1, 1, 0, 0], [1, 1, 0, 1, 1]]


def test_binary_max_features_ranks_clipped_counts():
    # issue 19: CountVectorizer clips to 1 before max_features ranks the terms
    docs = ["apple apple apple", "banana", "banana"]
    v = _same_as_count_vectorizer(docs, binary=True, max_features=1)
    assert list(v.vocabulary_) == ["banana"]
    assert list(Vectorizer(max_features=1).fit(docs).vocabulary_) == ["apple"]
    clf = TextClassifier(vectorizer=Vectorizer(binary=True, max_features=1)).fit(docs, ["a", "b", "b"])
    assert list(clf.vectorizer_.vocabulary_) == ["banana"]


def test_tie_breaking_sample_order_invariance_case():
    a = Vectorizer(max_features=1).fit(["hello", "world"]).vocabulary_
    b = Vectorizer(max_features=1).fit(["world", "hello"]).vocabulary_
    assert a == b == {k: int(v) for k, v in CountVectorizer(max_features=1).fit(["hello", "world"])
                      .vocabulary_.items()}


def test_stop_words_ngrams_unicode_and_empty_vocabulary_cases():
    _same_as_count_vectorizer(_FOOD, stop_words="english", ngram_range=(1, 2))
    _same_as_count_vectorizer(["Машинное обучение — интересная область", "обучение Область"])
    _same_as_count_vectorizer(_FOOD, token_pattern=r"(?u)\b\w+\b", lowercase=False)
    with pytest.raises(ValueError, match="empty vocabulary"):
        Vectorizer(stop_words="english").fit(["the", "a an"])


def test_fit_twice_and_pickling_cases():
    v = Vectorizer()
    a = v.fit(_JUNK).get_feature_names_out()
    b = v.fit(_NOTJUNK).get_feature_names_out()
    assert set(a) != set(b) and list(b) == sorted(b)
    again = pickle.loads(pickle.dumps(v))
    assert again.vocabulary_ == v.vocabulary_
    assert (again.transform(_FOOD) != v.transform(_FOOD)).nnz == 0


def test_vectorizer_pipeline_grid_and_cross_validation_cases():
    docs = list(_FOOD) * 2
    y = ([1] * len(_JUNK) + [0] * len(_NOTJUNK)) * 2
    pipe = Pipeline([("vect", Vectorizer()), ("nb", MultinomialNB())])
    grid = GridSearchCV(pipe, {"vect__ngram_range": [(1, 1), (1, 2)], "nb__alpha": [0.1, 1.0]}, cv=3)
    grid.fit(docs, y)
    assert grid.best_score_ == 1.0
    assert np.all(cross_val_score(pipe, docs, y, cv=3) == 1.0)


# -- sklearn/tests/test_naive_bayes.py ----------------------------------------------------

_X = np.array([[-2, -1], [-1, -1], [-1, -2], [1, 1], [1, 2], [2, 1]], dtype=float)
_y = np.array([1, 1, 1, 2, 2, 2])
_COUNT_PAIRS = [(MultinomialNB, sknb.MultinomialNB), (BernoulliNB, sknb.BernoulliNB),
                (ComplementNB, sknb.ComplementNB)]


def test_gnb_case():
    clf = TabularNB().fit(_X, _y)
    assert np.array_equal(clf.predict(_X), _y)
    assert np.allclose(np.log(clf.predict_proba(_X)), clf.predict_log_proba(_X))
    with pytest.raises(ValueError):
        TabularNB().partial_fit(_X, _y, classes=[0, 1])


def test_gnb_sample_weight_case():
    rng = np.random.RandomState(0)
    clf, clf_sw = TabularNB().fit(_X, _y), TabularNB().fit(_X, _y, sample_weight=np.ones(6))
    assert np.allclose(clf.theta_, clf_sw.theta_) and np.allclose(clf.var_, clf_sw.var_)
    sw = rng.rand(6)
    one = TabularNB().fit(_X, _y, sample_weight=sw)
    two = TabularNB().partial_fit(_X, _y, classes=[1, 2], sample_weight=sw / 2)
    two.partial_fit(_X, _y, sample_weight=sw / 2)
    assert np.allclose(one.theta_, two.theta_) and np.allclose(one.var_, two.var_)
    ind = rng.randint(0, 6, 20)
    dup = TabularNB().fit(_X[ind], _y[ind])
    rep = TabularNB().fit(_X, _y, sample_weight=np.bincount(ind, minlength=6))
    assert np.allclose(dup.theta_, rep.theta_) and np.allclose(dup.var_, rep.var_)
    TabularNB().fit(_X, _y, sample_weight=(_y == 1).astype(float))  # one class with weight


def test_gnb_small_weight_sums_do_not_collapse():
    # issue 19: weights 1/6 on six rows gave variances of 2.6e-08 and one class
    X = np.array([[-1.0], [0.0], [1.0], [9.0], [10.0], [11.0]])
    y = np.array(list("aaabbb"))
    ours = TabularNB().fit(X, y, sample_weight=np.full(6, 1 / 6))
    gnb = sknb.GaussianNB().fit(X, y, sample_weight=np.full(6, 1 / 6))
    assert np.array_equal(ours.predict(X), y)
    assert np.allclose(ours.var_, gnb.var_, rtol=1e-6)  # normalised weights: GaussianNB's variance
    assert np.allclose(ours.predict_proba(X), gnb.predict_proba(X))
    # the weights' scale does not matter below a class weight of 2
    small = TabularNB().fit(X, y, sample_weight=np.full(6, 1e-6))
    assert np.allclose(small.var_, ours.var_)


def test_gnb_no_log_density_floor():
    # issue 19: a point 38 sigma from every class mean kept no evidence
    X = np.array([[-1.0], [0.0], [1.0], [9.0], [10.0], [11.0]])
    y = np.array(list("aaabbb"))
    ours, gnb = TabularNB().fit(X, y), sknb.GaussianNB().fit(X, y)
    for x in (50.0, 200.0, -60.0):
        assert ours.predict([[x]])[0] == gnb.predict([[x]])[0]
    assert ours.predict_proba([[50.0]])[0, 1] > 0.999
    assert np.all(np.isfinite(ours.predict_log_proba([[1e3]])))


def test_adaboost_over_tabularnb_on_iris():
    X, y = load_iris(return_X_y=True)
    ada = AdaBoostClassifier(TabularNB(), n_estimators=10, random_state=0).fit(X, y)
    assert ada.score(X, y) > 0.9
    assert len(ada.estimators_) > 1


def test_gnb_scale_invariance_case():
    X, y = load_iris(return_X_y=True)
    labels = [TabularNB().fit(f * X, y).predict(f * X) for f in (1e-10, 1.0, 1e10)]
    assert np.array_equal(labels[0], labels[1]) and np.array_equal(labels[1], labels[2])


def test_gnb_partial_fit_case():
    clf = TabularNB().fit(_X, _y)
    pf = TabularNB().partial_fit(_X[0::2], _y[0::2], classes=np.unique(_y)).partial_fit(_X[1::2], _y[1::2])
    for attr in ("class_log_prior_", "theta_", "var_"):
        assert np.allclose(getattr(clf, attr), getattr(pf, attr))


@pytest.mark.parametrize("ours, theirs", _COUNT_PAIRS)
def test_discretenb_prior_and_partial_fit_cases(ours, theirs):
    rng = np.random.RandomState(0)
    X2, y2 = rng.randint(5, size=(6, 100)), np.array([1, 1, 2, 2, 3, 3])
    if ours is not ComplementNB:
        assert np.allclose(ours().fit(X2, y2).class_log_prior_, np.log(np.full(3, 1 / 3)))
    X, y = [[0, 1], [1, 0], [1, 1]], [0, 1, 1]
    a = ours().fit(X, y)
    b = ours().partial_fit(X, y, classes=[0, 1])
    c = ours().partial_fit(X[:2], y[:2], classes=[0, 1]).partial_fit(X[2:], y[2:])
    for m in (b, c):
        assert np.array_equal(a.class_count_, m.class_count_)
        assert np.array_equal(a.feature_count_, m.feature_count_)
    ref = theirs().fit(X, y)
    assert np.allclose(a.feature_log_prob_, ref.feature_log_prob_)
    assert np.allclose(a.predict_proba(X), ref.predict_proba(X))


@pytest.mark.parametrize("ours, theirs", _COUNT_PAIRS)
def test_discretenb_priors_cases(ours, theirs):
    X = np.array([[1, 0], [1, 1], [0, 1], [2, 3]])
    y = np.array([0, 0, 1, 1])
    if ours is ComplementNB:
        return
    uniform = ours(fit_prior=False).fit(X, y)
    assert np.allclose(np.exp(uniform.class_log_prior_), [0.5, 0.5])
    given = ours(class_prior=[0.3, 0.7]).fit(X, y)
    assert np.allclose(np.exp(given.class_log_prior_), [0.3, 0.7])
    pf = ours(class_prior=[0.3, 0.7]).partial_fit(X[:2], y[:2], classes=[0, 1]).partial_fit(X[2:], y[2:])
    assert np.allclose(pf.class_log_prior_, given.class_log_prior_)
    with pytest.raises(ValueError):
        ours(class_prior=[0.1, 0.2, 0.7]).fit(X, y)
    assert np.allclose(given.predict_proba(X), theirs(class_prior=[0.3, 0.7]).fit(X, y).predict_proba(X))


@pytest.mark.parametrize("ours, theirs", _COUNT_PAIRS)
def test_discretenb_sample_weight_multiclass_case(ours, theirs):
    X, y, sw = [[0, 0, 1], [0, 1, 1], [0, 1, 1], [1, 0, 0]], [0, 0, 1, 2], np.array([1, 1, 2, 2], float)
    sw /= sw.sum()
    a = ours().fit(X, y, sample_weight=sw)
    assert np.array_equal(a.predict(X), [0, 1, 1, 2])
    b = ours().partial_fit(X[:2], y[:2], classes=[0, 1, 2], sample_weight=sw[:2])
    b.partial_fit(X[2:3], y[2:3], sample_weight=sw[2:3]).partial_fit(X[3:], y[3:], sample_weight=sw[3:])
    assert np.array_equal(b.predict(X), [0, 1, 1, 2])
    assert np.allclose(a.predict_proba(X), theirs().fit(X, y, sample_weight=sw).predict_proba(X))


def test_mnb_prior_unobserved_targets_case():
    X, y = np.array([[0, 1], [1, 0]]), np.array([0, 1])
    clf = MultinomialNB()
    clf.partial_fit(X, y, classes=[0, 1, 2])
    assert clf.predict([[0, 1]])[0] == 0 and clf.predict([[1, 0]])[0] == 1 and clf.predict([[1, 1]])[0] == 0
    clf.partial_fit([[1, 1]], [2])
    assert clf.predict([[0, 1]])[0] == 0 and clf.predict([[1, 0]])[0] == 1 and clf.predict([[1, 1]])[0] == 2


def test_bnb_manning_example_case():
    # Manning, Raghavan & Schuetze (2008), Introduction to IR, the Chinese example
    X = np.array([[1, 1, 0, 0, 0, 0], [0, 1, 0, 0, 1, 0], [0, 1, 0, 1, 0, 0], [0, 1, 1, 0, 0, 1]])
    Y = np.array([0, 0, 0, 1])
    clf = BernoulliNB(alpha=1.0).fit(X, Y)
    assert np.allclose(np.exp(clf.class_log_prior_), [0.75, 0.25])
    assert np.allclose(np.exp(clf.feature_log_prob_),
                       [[0.4, 0.8, 0.2, 0.4, 0.4, 0.2], [1 / 3, 2 / 3, 2 / 3, 1 / 3, 1 / 3, 2 / 3]])
    unnorm = np.array([[0.005183999999999999, 0.02194787379972565]])
    assert np.allclose(clf.predict_proba([[0, 1, 1, 0, 0, 1]]), unnorm / unnorm.sum())


def test_bnb_binarize_negative_rejected():
    # issue 19: a negative threshold made dense and sparse input disagree
    X = np.array([[0, 1], [1, 0], [0, 0]])
    for bad in (-1, -0.5):
        for data in (X, sp.csr_matrix(X)):
            with pytest.raises(ValueError, match="binarize"):
                BernoulliNB(binarize=bad).fit(data, [0, 1, 1])
    dense = BernoulliNB(binarize=0.5).fit(X, [0, 1, 1]).predict_proba(X)
    sparse = BernoulliNB(binarize=0.5).fit(sp.csr_matrix(X), [0, 1, 1]).predict_proba(sp.csr_matrix(X))
    assert np.allclose(dense, sparse)


def test_alpha_cases():
    X, y = np.array([[1, 0], [1, 1]]), np.array([0, 1])
    for ours, theirs in _COUNT_PAIRS:
        with pytest.warns(UserWarning, match="alpha too small"):
            a = ours(alpha=0.0, force_alpha=False).fit(X, y)
        with pytest.warns(UserWarning):
            b = theirs(alpha=0.0, force_alpha=False).fit(X, y)
        assert np.allclose(a.predict_proba(X), b.predict_proba(X))
        with pytest.raises(ValueError):
            ours(alpha=-0.1).fit(X, y)


def test_predict_joint_proba_case():
    rng = np.random.RandomState(0)
    X, y = rng.randint(5, size=(6, 20)), np.array([1, 1, 2, 2, 3, 3])
    for est in (MultinomialNB(), BernoulliNB(), TabularNB()):
        est.fit(X, y)
        jll = est.predict_joint_log_proba(X)
        log_prob_x = np.logaddexp.reduce(jll, axis=1)
        assert np.allclose(est.predict_log_proba(X), jll - log_prob_x[:, None])


def test_weighted_min_df_matches_pipeline():
    # issue 19: min_df / max_df counted weighted document frequencies
    docs = ["a1 b1 cc", "cc dd", "ee dd cc", "ff ff"]
    y = [0, 1, 0, 1]
    for w, params in ((3.0, {}), (0.5, {"min_df": 2}), (0.25, {"max_df": 0.5}), (7.0, {"max_features": 2})):
        sw = np.full(4, w)
        clf = TextClassifier(vectorizer=Vectorizer(**params), model=MultinomialNB()).fit(docs, y, sample_weight=sw)
        pipe = Pipeline([("v", Vectorizer(**params)), ("nb", MultinomialNB())]).fit(docs, y, nb__sample_weight=sw)
        assert clf.vectorizer_.vocabulary_ == pipe.named_steps["v"].vocabulary_
        assert np.allclose(clf.predict_proba(docs), pipe.predict_proba(docs))


def test_package_namespace_exports_only_its_names():
    # issue 19: ``textnb.importlib`` was reachable
    assert not hasattr(textnb, "importlib") and "importlib" not in dir(textnb)
    assert textnb.TabularNB is TabularNB  # the lazy exports still work
