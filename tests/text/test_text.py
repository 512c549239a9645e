import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.feature_extraction.text import CountVectorizer

from textnb.io.corpus import to_text
from textnb.text.vectorizer import TOKEN_PATTERN, Analyzer, Vectorizer, regex_tokenize

DOCS = [
    "The quick brown fox jumps over the lazy dog, the DOG!",
    "Ünïcode wörds: ça va, état — naïve café; 東京 タワー",
    "a b cc dd cc e_f 42 4x4 x",
    "the and of",
    "",
    "running runs runner ran run",
]

SETTINGS = [
    {},
    {"stop_words": "english"},
    {"ngram_range": (1, 3)},
    {"ngram_range": (2, 2), "stop_words": "english"},
    {"min_df": 2},
    {"max_df": 0.5},
    {"min_df": 0.1, "max_df": 10},
    {"max_features": 5},
    {"binary": True},
    {"lowercase": False},
    {"token_pattern": r"(?u)\b\w+\b"},
]


@pytest.mark.parametrize("kw", SETTINGS, ids=[str(s) for s in SETTINGS])
def test_vectorizer_matches_sklearn_count_vectorizer(kw):
    docs = DOCS * 3
    ref = CountVectorizer(**kw)
    expected = ref.fit_transform(docs)
    ours = Vectorizer(**kw)
    got = ours.fit_transform(docs)
    assert ours.vocabulary_ == ref.vocabulary_
    assert (expected != got).nnz == 0
    assert (ref.transform(DOCS) != ours.transform(DOCS)).nnz == 0


def test_vectorizer_matches_sklearn_on_real_corpus(sms_tsv):
    import csv

    with open(sms_tsv, encoding="utf-8") as f:
        docs = [row[1] for row in csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE)]
    for kw in ({}, {"stop_words": "english", "ngram_range": (1, 2), "min_df": 2}):
        ref, ours = CountVectorizer(**kw), Vectorizer(**kw)
        assert (ref.fit_transform(docs) != ours.fit_transform(docs)).nnz == 0
        assert ref.vocabulary_ == ours.vocabulary_


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_fast_default_pattern_equals_sklearn_pattern(text):
    import re

    assert regex_tokenize(text) == re.findall(TOKEN_PATTERN, text.lower())


def test_the_white_space_pattern_is_split_as_the_regex_splits_it():
    """``token_pattern=r"\\S+"`` (spamfilter's ``--kind discriminative`` reads its tokens so)
    is found by ``str.split`` (0.6 of the regex's time): the same tokens, every code point
    that is white space to either being white space to both, with lowercasing, n-grams and
    through the non-plain path (an accent stripping) alike."""
    import re
    import sys

    chars = [chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF]
    text = "a".join(chars)  # every code point between two tokens
    assert Analyzer(token_pattern=r"\S+", lowercase=False).split
    assert Analyzer(token_pattern=r"\S+", lowercase=False)(text) == re.findall(r"\S+", text)
    for kw in ({}, {"ngram_range": (1, 2)}, {"strip_accents": "unicode"}, {"token_pattern": r"(?u)\S+"}):
        ours = Analyzer(**{"token_pattern": r"\S+", **kw})
        ref = Analyzer(**{"token_pattern": r"(\S+)", **{k: v for k, v in kw.items() if k != "token_pattern"}})
        assert ours.split and not ref.split
        sample = "Subject:Cheap  PILLS\tnow\u00a0caf\u00e9 \x1cx\u2028y " + text[:5000]
        assert ours(sample) == ref(sample)


@settings(max_examples=100, deadline=None)
@given(data=st.binary())
def test_arbitrary_bytes_never_crash_the_tokenizer(data):
    text = to_text(data)
    assert text is None or isinstance(Analyzer(stop_words="english", stemmer="porter", ngram_range=(1, 2))(text), list)


def test_stemming_merges_word_forms():
    vec = Vectorizer(stemmer="porter").fit(["running runs", "run"])
    assert list(vec.vocabulary_) == ["run"]
    X = vec.transform(["runs running ran"])
    assert X.toarray().tolist() == [[2]]
    vec = Vectorizer(stemmer="snowball", stop_words="english").fit(["the generously generous"])
    assert "the" not in vec.vocabulary_


def test_analyzer_pickles_for_worker_processes():
    an = Analyzer(stop_words="english", stemmer="porter", ngram_range=(1, 2))
    an("warm the cache")
    clone = pickle.loads(pickle.dumps(an))
    assert clone("Running dogs") == an("Running dogs") == ["run", "dog", "run dog"]


def test_single_string_is_rejected_with_a_hint():
    with pytest.raises(TypeError, match="string object received; wrap it in a list"):
        Vectorizer().fit("just one string")


def test_empty_vocabulary_is_a_clear_error():
    with pytest.raises(ValueError, match="empty vocabulary"):
        Vectorizer(stop_words="english").fit(["the and of", "a"])


@pytest.mark.parametrize("kw", [{"min_df": -1}, {"max_df": 1.5}, {"max_features": 0}, {"stemmer": "lancaster"},
                                {"ngram_range": (2, 1)}])
def test_bad_parameters_are_rejected(kw):
    with pytest.raises(ValueError):
        Vectorizer(**kw).fit(DOCS)


def test_unknown_terms_are_dropped_at_transform():
    vec = Vectorizer().fit(["alpha beta"])
    X = vec.transform(["gamma delta", "alpha alpha gamma"])
    assert X.shape == (2, 2)
    assert X.toarray().tolist() == [[0, 0], [2, 0]]
    assert np.array_equal(vec.get_feature_names_out(), np.array(["alpha", "beta"], dtype=object))


@pytest.mark.parametrize("bad", [np.nan, None, 3, 2.5])
def test_a_document_that_is_not_text_is_a_value_error(bad):
    """scikit-learn: ``np.nan is an invalid document``; every other non-text document is
    refused the same way (a ValueError, not an AttributeError from inside the tokenizer),
    on fit and transform, on the ASCII fast path and the Python one."""
    for kw in ({}, {"ngram_range": (1, 2)}, {"analyzer": "char"}, {"stemmer": "porter"}):
        v = Vectorizer(**kw)
        with pytest.raises(ValueError, match="invalid document, expected byte or unicode string"):
            v.fit(["good words", bad, "more words"])
        v.fit(["good words", "more words"])
        with pytest.raises(ValueError, match="invalid document"):
            v.transform([bad])
    with pytest.raises(ValueError, match="np.nan is an invalid document"):
        CountVectorizer().fit([np.nan])  # the message is scikit-learn's


def test_an_invalid_documents_repr_is_cut_with_an_ellipsis_not_mid_word():
    """The repr of a document that is not text is said whole up to 80 characters, else cut
    with "..." (``core.errors.short_repr``; it was cut at 40, mid-path, without its quote)."""
    from pathlib import PurePosixPath

    doc = PurePosixPath("/data/corpora/goemotions/train/a_document.txt")
    with pytest.raises(ValueError) as caught:
        Vectorizer().fit([doc, "more words"])
    assert f"{doc!r} is an invalid document" in str(caught.value)
    with pytest.raises(ValueError, match=r"\('x+\.\.\. is an invalid document"):
        Vectorizer().fit([PurePosixPath("x" * 200), "more words"])


def test_no_documents_is_an_empty_vocabulary_as_sklearn():
    for docs in ([], ["a b"], [""]):
        with pytest.raises(ValueError, match="empty vocabulary") as ours:
            Vectorizer().fit(docs)
        assert "min_df" not in str(ours.value).split(";")[0]
        with pytest.raises(ValueError, match="empty vocabulary"):
            CountVectorizer().fit(docs)


def test_a_single_string_is_a_value_error_on_every_document_path(tmp_path):
    """One string where documents are expected: scikit-learn's ValueError (a TypeError too)
    from the vectorizer, the text estimators and the prediction scorer alike (the last two
    raised a bare TypeError)."""
    from textnb import TextClassifier
    from textnb.text.scorer import load_for_prediction

    docs, y = ["cheap pills now", "meeting at noon", "cheap offer", "lunch at noon"], ["s", "h", "s", "h"]
    clf = TextClassifier().fit(docs, y)
    clf.save(tmp_path / "m.tnb")
    scorer = load_for_prediction(tmp_path / "m.tnb")
    calls = [lambda: Vectorizer().fit("one string"), lambda: clf.predict("cheap"), lambda: clf.predict_proba(b"x"),
             lambda: TextClassifier().fit("cheap pills", ["s"]), lambda: clf.partial_fit("cheap", ["s"]),
             lambda: scorer.predict_joint_log_proba("cheap")]
    for call in calls:
        with pytest.raises(ValueError, match="string object received"):
            call()
    with pytest.raises(TypeError):
        clf.predict("cheap")


@pytest.mark.parametrize("dtype, name", [(np.int64, "int64"), (np.float32, "float32"), (np.dtype("float32"), "float32"),
                                         (float, "float64"), ("int32", "int32")])
def test_a_vectorizer_given_a_numpy_dtype_saves_its_model(tmp_path, dtype, name):
    """``Vectorizer(dtype=np.int64)`` (scikit-learn's CountVectorizer default, as
    ``get_params`` gives it) or ``np.float32``: the model file stores the dtype by its name and
    loads to the same predictions, the same bytes as the name given (*was*: TypeError,
    'cannot store a type in a model file')."""
    from textnb import MultinomialNB, TextClassifier, Vectorizer, load

    docs, y = ["free prize now", "hi there", "win cash prize", "see you soon"], ["s", "h", "s", "h"]
    a, b = tmp_path / "a.tnb", tmp_path / "b.tnb"
    TextClassifier(vectorizer=Vectorizer(dtype=dtype), model=MultinomialNB()).fit(docs, y).save(a)
    TextClassifier(vectorizer=Vectorizer(dtype=name), model=MultinomialNB()).fit(docs, y).save(b)
    assert a.read_bytes() == b.read_bytes()
    model = load(a)
    assert model.vectorizer_.dtype == name
    assert list(model.predict(["free cash", "see you"])) == ["s", "h"]


def test_numpy_booleans_as_parameters_save_as_booleans(tmp_path):
    """``Vectorizer(binary=np.bool_(True))``, ``MultinomialNB(fit_prior=np.bool_(False))``
    (what a parameter grid of ``np.array([True, False])`` gives; scikit-learn takes them):
    saved as the booleans they are, the same bytes (*was*: TypeError, 'cannot store a bool in a
    model file')."""
    from textnb import MultinomialNB, TextClassifier, Vectorizer, load

    docs, y = ["good great fine", "bad awful poor", "great good nice", "poor bad terrible"], ["p", "n", "p", "n"]
    a, b = tmp_path / "a.tnb", tmp_path / "b.tnb"
    TextClassifier(vectorizer=Vectorizer(binary=np.bool_(True)),
                   model=MultinomialNB(fit_prior=np.bool_(False))).fit(docs, y).save(a)
    TextClassifier(vectorizer=Vectorizer(binary=True), model=MultinomialNB(fit_prior=False)).fit(docs, y).save(b)
    assert a.read_bytes() == b.read_bytes()
    assert list(load(a).predict(["good", "bad"])) == ["p", "n"]
