"""Differential fuzzing against scikit-learn (hypothesis).

Where textnb says it computes what scikit-learn computes, random inputs must give the
same result: the count models against ``sklearn.naive_bayes`` (weights, ``partial_fit``
in chunks, dense and sparse input), the :class:`~textnb.text.vectorizer.Vectorizer` against
``CountVectorizer`` (and the streaming :class:`~textnb.TextClassifier` against a
Pipeline of the two), and :class:`~textnb.naive_bayes.tabular.TabularNB`'s Gaussian path against
``GaussianNB`` and its nominal path against ``CategoricalNB``.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from sklearn import naive_bayes as sknb
from sklearn.feature_extraction.text import CountVectorizer

from textnb import BernoulliNB, ComplementNB, MultinomialNB, TabularNB, TextClassifier, Vectorizer
from textnb.io.tables import Attribute

_SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _same_predictions(a, b, log_proba):
    """Equal labels wherever the best class is not tied (to rounding) with another."""
    top2 = np.sort(log_proba, axis=1)[:, -2:]
    clear = top2[:, 1] - top2[:, 0] > 1e-9
    assert np.array_equal(np.asarray(a)[clear], np.asarray(b)[clear])


@st.composite
def count_problems(draw):
    n = draw(st.integers(2, 14))
    d = draw(st.integers(1, 6))
    X = np.array(draw(st.lists(st.lists(st.integers(0, 5), min_size=d, max_size=d), min_size=n, max_size=n)),
                 dtype=float)
    y = np.array(draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n)))
    assume(len(np.unique(y)) >= 2)
    weighted = draw(st.booleans())
    w = np.array(draw(st.lists(st.floats(0.05, 4.0), min_size=n, max_size=n))) if weighted else None
    cut = draw(st.integers(1, n - 1))
    sparse = draw(st.booleans())
    alpha = draw(st.sampled_from([0.01, 0.5, 1.0, 2.0]))
    return X, y, w, cut, sparse, alpha


_COUNT_MODELS = [
    (lambda a: MultinomialNB(alpha=a), lambda a: sknb.MultinomialNB(alpha=a)),
    (lambda a: BernoulliNB(alpha=a), lambda a: sknb.BernoulliNB(alpha=a)),
    (lambda a: BernoulliNB(alpha=a, binarize=1.5), lambda a: sknb.BernoulliNB(alpha=a, binarize=1.5)),
    (lambda a: ComplementNB(alpha=a), lambda a: sknb.ComplementNB(alpha=a)),
    (lambda a: ComplementNB(alpha=a, norm=True), lambda a: sknb.ComplementNB(alpha=a, norm=True)),
]


@pytest.mark.slow
@pytest.mark.parametrize("k", range(len(_COUNT_MODELS)))
@_SETTINGS
@given(problem=count_problems())
def test_count_models_match_sklearn(k, problem):
    X, y, w, cut, sparse, alpha = problem
    ours_f, theirs_f = _COUNT_MODELS[k]
    if k == 4:
        assume(X.shape[1] >= 2)  # one feature: sklearn's normalisation divides 0 by 0
    data = sp.csr_matrix(X) if sparse else X
    classes = np.unique(y)
    ref = theirs_f(alpha).fit(X, y, sample_weight=w)
    fitted = ours_f(alpha).fit(data, y, sample_weight=w)
    w1, w2 = (None, None) if w is None else (w[:cut], w[cut:])
    chunked = ours_f(alpha).partial_fit(data[:cut], y[:cut], classes=classes, sample_weight=w1)
    chunked.partial_fit(data[cut:], y[cut:], sample_weight=w2)
    ref_chunked = theirs_f(alpha).partial_fit(X[:cut], y[:cut], classes=classes, sample_weight=w1)
    ref_chunked.partial_fit(X[cut:], y[cut:], sample_weight=w2)
    # ComplementNB gives an all-zero row (no evidence) the class prior, where scikit-learn's
    # scores are equal; every other row gets scikit-learn's numbers
    empty = (X.sum(axis=1) == 0) if isinstance(fitted, ComplementNB) else np.zeros(len(X), dtype=bool)
    for ours, theirs in ((fitted, ref), (chunked, ref_chunked), (chunked, ref)):
        assert np.allclose(ours.feature_count_, theirs.feature_count_)
        assert np.allclose(ours.feature_log_prob_, theirs.feature_log_prob_)
        assert np.allclose(ours.predict_log_proba(data)[~empty], theirs.predict_log_proba(X)[~empty], atol=1e-9)
        _same_predictions(ours.predict(data)[~empty], theirs.predict(X)[~empty], theirs.predict_log_proba(X)[~empty])
        prior = theirs.class_log_prior_ - np.logaddexp.reduce(theirs.class_log_prior_)
        assert np.allclose(ours.predict_log_proba(data)[empty], prior, atol=1e-9)
        assert set(ours.predict(data)[empty]) <= set(classes[np.flatnonzero(prior == prior.max())])


_WORDS = ["apple", "Apple", "banana", "the", "and", "über", "naïve", "x", "42", "b2b", "can't", "APPLE",
          "café", "of", "zebra", "yo-yo"]


@st.composite
def text_problems(draw):
    n = draw(st.integers(1, 8))
    docs = [" ".join(draw(st.lists(st.sampled_from(_WORDS), max_size=9))) + draw(st.sampled_from(["", ".", "!"]))
            for _ in range(n)]
    params = {
        "binary": draw(st.booleans()),
        "lowercase": draw(st.booleans()),
        "stop_words": draw(st.sampled_from([None, "english"])),
        "ngram_range": draw(st.sampled_from([(1, 1), (1, 2), (2, 2), (1, 3)])),
        "max_features": draw(st.sampled_from([None, 1, 2, 3, 5])),
        "min_df": draw(st.sampled_from([1, 2, 0.0, 0.3])),
        "max_df": draw(st.sampled_from([1.0, 0.7, 3, 1])),
    }
    return docs, params


def _fit_or_error(vec, docs):
    try:
        return vec.fit_transform(docs), None
    except ValueError as e:
        return None, e


@pytest.mark.slow  # the quick subset: test_sklearn_parity.py's test_vectorizer_matches_count_vectorizer
@_SETTINGS
@given(problem=text_problems())
def test_vectorizer_matches_count_vectorizer(problem):
    docs, params = problem
    ours, theirs = Vectorizer(**params), CountVectorizer(**params)
    A, ea = _fit_or_error(ours, docs)
    B, eb = _fit_or_error(theirs, docs)
    assert (ea is None) == (eb is None), (ea, eb)
    if ea is not None:
        return
    assert ours.vocabulary_ == {k: int(v) for k, v in theirs.vocabulary_.items()}
    assert A.shape == B.shape and (A != B).nnz == 0
    other = docs[::-1] + ["apple banana zebra", ""]
    assert (ours.transform(other) != theirs.transform(other)).nnz == 0


@pytest.mark.slow  # the quick subset: test_sklearn_parity.py's vectorizer and test_sklearn_cases.py's weighted pipeline
@_SETTINGS
@given(problem=text_problems(), weights=st.lists(st.floats(0.05, 5.0), min_size=8, max_size=8),
       labels=st.lists(st.sampled_from(["ham", "spam"]), min_size=8, max_size=8))
def test_streaming_text_classifier_matches_pipeline(problem, weights, labels):
    docs, params = problem
    params["binary"] = False  # the streaming path (binary vectorizers take the matrix path)
    y = np.array(labels[: len(docs)])
    assume(len(np.unique(y)) == 2)
    w = np.array(weights[: len(docs)])
    theirs = CountVectorizer(**params)
    B, eb = _fit_or_error(theirs, docs)
    if eb is not None:
        with pytest.raises(ValueError):
            TextClassifier(vectorizer=Vectorizer(**params), model=MultinomialNB()).fit(docs, y, sample_weight=w)
        return
    clf = TextClassifier(vectorizer=Vectorizer(**params), model=MultinomialNB(), batch_size=3).fit(
        docs, y, sample_weight=w)
    ref = sknb.MultinomialNB().fit(B, y, sample_weight=w)
    assert clf.vectorizer_.vocabulary_ == {k: int(v) for k, v in theirs.vocabulary_.items()}
    assert np.allclose(clf.predict_log_proba(docs), ref.predict_log_proba(theirs.transform(docs)))


@st.composite
def gaussian_problems(draw):
    n = draw(st.integers(4, 16))
    d = draw(st.integers(1, 3))
    scale = draw(st.sampled_from([1e-3, 1.0, 1e4]))
    X = np.array(draw(st.lists(st.lists(st.floats(-100, 100), min_size=d, max_size=d),
                               min_size=n, max_size=n))) * scale
    y = np.array(draw(st.lists(st.sampled_from([0, 1, 2]), min_size=n, max_size=n)))
    classes = np.unique(y)
    assume(len(classes) >= 2)
    # every class needs spread in every column (a constant class borrows the pooled variance)
    for c in classes:
        assume(np.all(np.ptp(X[y == c], axis=0) > 1e-3 * scale) and np.sum(y == c) >= 2)
    kind = draw(st.sampled_from(["none", "integer", "normalised"]))
    if kind == "none":
        w = None
    elif kind == "integer":
        w = np.array(draw(st.lists(st.integers(1, 4), min_size=n, max_size=n)), dtype=float)
    else:
        w = np.array(draw(st.lists(st.floats(0.1, 1.0), min_size=n, max_size=n)))
        w = w / (1.01 * w.sum())  # every class weight below 1 (AdaBoost's normalisation)
    cut = draw(st.integers(1, n - 1))
    return X, y, w, cut


@pytest.mark.slow  # the quick subset: test_sklearn_cases.py's test_gnb_* cases (TabularNB against GaussianNB)
@_SETTINGS
@given(problem=gaussian_problems())
def test_tabular_gaussian_matches_gaussiannb(problem):
    X, y, w, cut = problem
    classes = np.unique(y)
    prior = np.full(len(classes), 1.0 / len(classes))
    ref = sknb.GaussianNB(priors=prior).fit(X, y, sample_weight=w)
    ours = TabularNB(class_prior=prior).fit(X, y, sample_weight=w)
    w1, w2 = (None, None) if w is None else (w[:cut], w[cut:])
    chunked = TabularNB(class_prior=prior).partial_fit(X[:cut], y[:cut], classes=classes, sample_weight=w1)
    chunked.partial_fit(X[cut:], y[cut:], sample_weight=w2)
    W = np.bincount(np.searchsorted(classes, y), weights=w, minlength=len(classes))[:, None]
    # GaussianNB's variance is the population one (ddof=0): textnb's sample variance is
    # it times W / (W - 1) for frequency weights, and it exactly below a class weight of 2
    raw_ref = ref.var_ - ref.epsilon_
    expected = np.where(W >= 2, raw_ref * W / np.where(W >= 2, W - 1, 1), raw_ref)
    for m in (ours, chunked):
        assert np.allclose(m.theta_, ref.theta_, rtol=1e-9, atol=1e-9 * np.abs(X).max())
        eps = m.var_ - expected
        assert np.allclose(eps, eps.flat[0], rtol=1e-6, atol=1e-7 * expected.max())  # one floor for all
        if w is None:  # the floor: var_smoothing x the largest variance of the data
            assert np.isclose(eps.flat[0], ref.epsilon_, rtol=1e-6, atol=1e-7 * expected.max())
    if w is not None and np.all(W < 2):
        # normalised weights: the same model. (The floor differs by design with weights:
        # textnb takes the weighted data variance, so weights equal repeated rows and
        # partial_fit chunks equal one fit; GaussianNB the unweighted one of each batch.)
        ref0 = sknb.GaussianNB(priors=prior, var_smoothing=0.0).fit(X, y, sample_weight=w)
        ours0 = TabularNB(class_prior=prior, var_smoothing=0.0).fit(X, y, sample_weight=w)
        assert np.allclose(ours0.var_, ref0.var_, rtol=1e-7)
        assert np.allclose(ours0.predict_proba(X), ref0.predict_proba(X), atol=1e-7)
        _same_predictions(ours0.predict(X), ref0.predict(X), ref0.predict_log_proba(X))


@st.composite
def nominal_problems(draw):
    n = draw(st.integers(2, 16))
    ks = draw(st.lists(st.integers(2, 4), min_size=1, max_size=3))
    X = np.array([[draw(st.integers(0, k - 1)) for k in ks] for _ in range(n)], dtype=float)
    y = np.array(draw(st.lists(st.sampled_from(["p", "q", "r"]), min_size=n, max_size=n)))
    assume(len(np.unique(y)) >= 2)
    w = draw(st.one_of(st.none(), st.lists(st.floats(0.05, 3.0), min_size=n, max_size=n).map(np.array)))
    alpha = draw(st.sampled_from([0.5, 1.0, 2.0]))
    cut = draw(st.integers(1, n - 1))
    return X, y, ks, w, alpha, cut


@pytest.mark.slow  # the quick subset: test_sklearn_parity.py's test_categorical_nb_matches_scikit_learn
@_SETTINGS
@given(problem=nominal_problems())
def test_tabular_nominal_matches_categoricalnb(problem):
    X, y, ks, w, alpha, cut = problem
    classes = np.unique(y)
    prior = np.full(len(classes), 1.0 / len(classes))
    attrs = tuple(Attribute(f"a{j}", "nominal", [str(v) for v in range(k)]) for j, k in enumerate(ks))
    ref = sknb.CategoricalNB(alpha=alpha, min_categories=ks, class_prior=prior).fit(X, y, sample_weight=w)
    ours = TabularNB(attributes=attrs, alpha=alpha, class_prior=prior).fit(X, y, sample_weight=w)
    w1, w2 = (None, None) if w is None else (w[:cut], w[cut:])
    chunked = TabularNB(attributes=attrs, alpha=alpha, class_prior=prior)
    chunked.partial_fit(X[:cut], y[:cut], classes=classes, sample_weight=w1)
    chunked.partial_fit(X[cut:], y[cut:], sample_weight=w2)
    flp = np.hstack(ref.feature_log_prob_)
    for m in (ours, chunked):
        assert np.allclose(m.feature_log_prob_, flp)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert np.allclose(m.predict_log_proba(X), ref.predict_log_proba(X), atol=1e-9)
