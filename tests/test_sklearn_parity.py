"""textnb's scikit-learn drop-ins give scikit-learn's output: Vectorizer (CountVectorizer's
options), TfidfVectorizer, GaussianNB, CategoricalNB, and the count models' force_alpha.

scikit-learn's own test files run against these classes in tests/test_sklearn_suites.py;
this file compares outputs on random input, and checks the paths textnb adds (model files,
TextClassifier, the scikit-learn-free scorer) give the same answers.
"""

import random

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn import naive_bayes as skl
from sklearn.feature_extraction import text as skt
from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB
from sklearn.pipeline import make_pipeline

import textnb
from textnb import CategoricalNB, GaussianNB, MultinomialNB, TextClassifier, TfidfVectorizer, Vectorizer

WORDS = ["café", "naïve", "Über", "résumé", "spam", "ham", "cheap", "pills", "meeting", "noon", "a", "I",
         "don't", "e-mail", "x2", "ÆSIR", "ﬁne", "12", "the", "and", "you've"]


def _docs(seed, n=40):
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) + rng.choice(["", "", ",", ".", "  ", "\t"]) for _ in range(rng.randint(0, 12)))
            for _ in range(n)]


def _split_words(doc):
    return doc.split()


def _upper(doc):
    return doc.upper()


def _words_and_pairs(doc):
    words = doc.split()
    return words + [a + b for a, b in zip(words, words[1:])]


SETTINGS = [
    {},
    {"analyzer": "char", "ngram_range": (1, 3)},
    {"analyzer": "char_wb", "ngram_range": (2, 4)},
    {"analyzer": "char_wb", "ngram_range": (3, 3), "lowercase": False},
    {"analyzer": _words_and_pairs},
    {"strip_accents": "unicode"},
    {"strip_accents": "ascii", "ngram_range": (1, 2)},
    {"preprocessor": _upper, "lowercase": False},
    {"tokenizer": _split_words, "token_pattern": None},
    {"stop_words": "english", "ngram_range": (1, 2), "min_df": 2},
    {"binary": True, "max_features": 7},
    {"dtype": np.float32, "max_df": 0.5},
    {"vocabulary": ["spam", "ham", "café", "cheap", "absent"]},
    {"vocabulary": {"noon": 2, "meeting": 0, "pills": 1}},
    {"token_pattern": r"(?u)\b\w+\b", "strip_accents": "unicode"},
]


@pytest.mark.parametrize("params", SETTINGS, ids=lambda p: ",".join(f"{k}" for k in p) or "defaults")
@pytest.mark.parametrize("seed", [0, 1])
def test_vectorizer_matches_count_vectorizer(params, seed):
    train, test = _docs(seed), _docs(seed + 100, 15)
    ours, theirs = Vectorizer(**params), skt.CountVectorizer(**params)
    A, B = ours.fit_transform(train), theirs.fit_transform(train)
    assert ours.vocabulary_ == theirs.vocabulary_
    assert ours.fixed_vocabulary_ == theirs.fixed_vocabulary_
    assert A.dtype == B.dtype
    assert_array_equal(A.toarray(), B.toarray())
    assert_array_equal(ours.transform(test).toarray(), theirs.transform(test).toarray())
    assert_array_equal(ours.get_feature_names_out(), theirs.get_feature_names_out())
    for a, b in zip(ours.inverse_transform(A), theirs.inverse_transform(B)):
        assert sorted(a.tolist()) == sorted(b.tolist())
    if not callable(params.get("analyzer")):
        assert ours.build_analyzer()(test[0]) == theirs.build_analyzer()(test[0])
        assert ours.build_preprocessor()(test[1]) == theirs.build_preprocessor()(test[1])


def test_bytes_and_files_are_decoded_as_scikit_learn(tmp_path):
    texts = ["café crème brûlée", "naïve résumé", "plain ascii words"]
    raw = [t.encode("latin-1") for t in texts]
    for params in ({"encoding": "latin-1"}, {"decode_error": "ignore"}, {"decode_error": "replace"}):
        ours, theirs = Vectorizer(**params).fit(raw), skt.CountVectorizer(**params).fit(raw)
        assert ours.vocabulary_ == theirs.vocabulary_
    with pytest.raises(UnicodeDecodeError):
        Vectorizer().fit(raw)
    paths = []
    for i, b in enumerate(raw):
        paths.append(tmp_path / f"{i}.txt")
        paths[-1].write_bytes(b)
    ours = Vectorizer(input="filename", encoding="latin-1").fit([str(p) for p in paths])
    assert ours.vocabulary_ == skt.CountVectorizer(input="filename", encoding="latin-1").fit(
        [str(p) for p in paths]).vocabulary_
    with open(paths[0], "rb") as f:
        assert Vectorizer(input="file", encoding="latin-1").fit([f]).get_feature_names_out().tolist() == \
            ["brûlée", "café", "crème"]


def test_stop_word_warning_and_parameter_checks():
    with pytest.warns(UserWarning, match=r"tokens \['ll', 've'\] not in stop_words"):
        Vectorizer(stop_words=["you've", "you", "you'll"]).fit(["hello world"])
    with pytest.warns(UserWarning, match="'stop_words' will not be used since 'analyzer' != 'word'"):
        Vectorizer(analyzer="char", stop_words=["x"]).fit(["hello world"])
    with pytest.raises(ValueError, match="lower boundary larger than the upper boundary"):
        Vectorizer(ngram_range=(2, 1)).fit(["a b"])
    with pytest.raises(ValueError, match="not a valid tokenization scheme"):
        Vectorizer(analyzer="sentence").fit(["a b"])
    with pytest.raises(ValueError, match="Duplicate term in vocabulary"):
        Vectorizer(vocabulary=["a", "a"]).fit(["a b"])
    with pytest.raises(ValueError, match="Iterable over raw text documents expected"):
        Vectorizer().fit("one string")
    # a fixed vocabulary transforms without fit, as scikit-learn's
    assert Vectorizer(vocabulary=["bb", "aa"]).transform(["aa bb bb"]).toarray().tolist() == [[2, 1]]


def test_default_analysis_keeps_the_ascii_fast_path():
    """The plain word analyzer is the one tokenising ASCII documents in numpy; the new
    options turn it off (they are done per document in Python)."""
    from textnb.text.ascii_tokens import supports

    assert supports(Vectorizer().build_analyzer())
    assert supports(Vectorizer(stop_words="english").build_analyzer())
    for params in ({"analyzer": "char"}, {"strip_accents": "ascii"}, {"preprocessor": _upper},
                   {"tokenizer": _split_words}, {"input": "filename"}, {"encoding": "utf-16"}):
        assert not supports(Vectorizer(**params).build_analyzer())


@pytest.mark.parametrize("params", [{}, {"norm": "l1", "sublinear_tf": True}, {"use_idf": False},
                                    {"smooth_idf": False, "analyzer": "char_wb", "ngram_range": (2, 3)},
                                    {"norm": None, "binary": True, "dtype": np.float32}])
def test_tfidf_vectorizer_matches_scikit_learn(params, tmp_path):
    train, test = _docs(3), _docs(4, 10)
    ours, theirs = TfidfVectorizer(**params), skt.TfidfVectorizer(**params)
    A, B = ours.fit_transform(train), theirs.fit_transform(train)
    assert ours.vocabulary_ == theirs.vocabulary_ and A.dtype == B.dtype
    assert_allclose(A.toarray(), B.toarray(), rtol=1e-6)
    assert_allclose(ours.transform(test).toarray(), theirs.transform(test).toarray(), rtol=1e-6)
    if params.get("use_idf", True):
        assert_allclose(ours.idf_, theirs.idf_)
    if params.get("dtype") is None and "analyzer" not in params:  # model files hold dtype names, no callables
        y = np.arange(len(train)) % 2
        clf = TextClassifier(vectorizer=TfidfVectorizer(**params), model=MultinomialNB()).fit(train, y)
        ref = make_pipeline(skt.TfidfVectorizer(**params), SkMultinomialNB()).fit(train, y)
        assert_allclose(clf.predict_proba(test), ref.predict_proba(test), rtol=1e-9)
        clf.save(tmp_path / "m.tnb")
        assert_allclose(textnb.load(tmp_path / "m.tnb").predict_proba(test), clf.predict_proba(test))


def test_saved_char_ngram_model_scores_the_same_without_scikit_learn(tmp_path):
    """A TextClassifier with a character analyzer: the scikit-learn-free scorer (what
    `textnb predict` uses) builds the same analyzer from the model file."""
    from textnb.text.scorer import load_for_prediction

    train, test = _docs(5), _docs(6, 12)
    y = np.arange(len(train)) % 3
    clf = TextClassifier(vectorizer=Vectorizer(analyzer="char_wb", ngram_range=(2, 4), strip_accents="unicode"),
                         model=MultinomialNB(alpha=0.5)).fit(train, y)
    clf.save(tmp_path / "m.tnb")
    scorer = load_for_prediction(tmp_path / "m.tnb")
    assert type(scorer).__name__ == "TextScorer"
    assert_allclose(scorer.predict_proba(test), clf.predict_proba(test), rtol=1e-9)


def test_gaussian_nb_matches_scikit_learn(tmp_path):
    rng = np.random.RandomState(0)
    y = rng.randint(3, size=80)
    X = rng.normal(size=(80, 4)) * [1, 10, 0.1, 1] + y[:, None]
    X[:, 3] = np.where(y == 0, 5.0, X[:, 3])  # one class constant on a feature: variance epsilon_
    w = rng.rand(80)
    for params in ({}, {"var_smoothing": 1e-3}, {"priors": [0.2, 0.3, 0.5]}):
        ours = GaussianNB(**params).fit(X, y, sample_weight=w)
        theirs = skl.GaussianNB(**params).fit(X, y, sample_weight=w)
        for name in ("theta_", "var_", "class_prior_", "class_count_", "epsilon_"):
            assert_allclose(getattr(ours, name), getattr(theirs, name), rtol=1e-9, atol=1e-12, err_msg=name)
        assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=1e-7, atol=1e-12)
    inc = GaussianNB()
    for part in np.array_split(np.arange(80), 4):
        inc.partial_fit(X[part], y[part], classes=[0, 1, 2])
    assert_allclose(inc.theta_, GaussianNB().fit(X, y).theta_, rtol=1e-12)
    ours.save(tmp_path / "g.tnb")
    assert_allclose(textnb.load(tmp_path / "g.tnb").predict_proba(X), ours.predict_proba(X))
    with pytest.raises(ValueError, match="The sum of the priors should be 1"):
        GaussianNB(priors=[0.5, 0.6, 0.1]).fit(X, y)


def test_categorical_nb_matches_scikit_learn(tmp_path):
    rng = np.random.RandomState(1)
    X, y, w = rng.randint(5, size=(60, 3)), rng.randint(3, size=60), rng.rand(60)
    for params in ({}, {"alpha": 0.3, "fit_prior": False}, {"class_prior": [0.5, 0.25, 0.25]},
                   {"min_categories": [6, 5, 7]}):
        ours = CategoricalNB(**params).fit(X, y, sample_weight=w)
        theirs = skl.CategoricalNB(**params).fit(X, y, sample_weight=w)
        assert_array_equal(ours.n_categories_, theirs.n_categories_)
        for a, b in zip(ours.category_count_, theirs.category_count_):
            assert_allclose(a, b)
        for a, b in zip(ours.feature_log_prob_, theirs.feature_log_prob_):
            assert_allclose(a, b, rtol=1e-12)
        assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=1e-9)
    inc = CategoricalNB().partial_fit(X[:10] % 2, y[:10], classes=[0, 1, 2]).partial_fit(X[10:], y[10:])
    assert_allclose(inc.predict_proba(X), CategoricalNB().fit(np.vstack([X[:10] % 2, X[10:]]), y).predict_proba(X))
    ours.save(tmp_path / "c.tnb")
    assert_allclose(textnb.load(tmp_path / "c.tnb").predict_proba(X), ours.predict_proba(X))
    with pytest.raises(ValueError, match="is nominal with 7 values"):
        ours.predict([[0, 0, 9]])
    with pytest.raises(ValueError, match=r"Negative values in data passed to CategoricalNB \(input X\)"):
        ours.predict([[0, -1, 0]])


@pytest.mark.parametrize("cls", ["MultinomialNB", "BernoulliNB", "ComplementNB"])
def test_force_alpha_as_scikit_learn(cls):
    X, y = np.array([[1, 0, 2], [1, 1, 0], [0, 3, 1]]), np.array([0, 1, 1])
    for alpha, force in ((1e-12, True), (1e-12, False), (0.5, True)):
        ours = getattr(textnb, cls)(alpha=alpha, force_alpha=force)
        theirs = getattr(skl, cls)(alpha=alpha, force_alpha=force)
        with pytest.warns(UserWarning, match="alpha too small") if not force else _no_warning():
            ours.fit(X, y)
        with pytest.warns(UserWarning) if not force else _no_warning():
            theirs.fit(X, y)
        assert_allclose(ours.feature_log_prob_, theirs.feature_log_prob_, rtol=1e-9)


class _no_warning:
    def __enter__(self):
        import warnings

        self._ctx = warnings.catch_warnings()
        self._ctx.__enter__()
        warnings.simplefilter("error")

    def __exit__(self, *exc):
        return self._ctx.__exit__(*exc)
