"""Word n-grams in the numpy tokenizer: exactly the general path's terms, counts and
(for a growing vocabulary) column order, and scikit-learn's CountVectorizer."""

import random
from collections import Counter

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from sklearn.feature_extraction.text import CountVectorizer

from textnb.text import ascii_tokens
from textnb.text.ascii_tokens import TermKeys, supports
from textnb.text.tokenize import (Analyzer, StoredVocabulary, _python_term_ids, batch_term_ids, encode_terms,
                                  growing_vocabulary)
from textnb.text.vectorizer import Vectorizer

from conftest import quick_first
from test_ascii_tokens import random_docs

RANGES = [(1, 2), (2, 2), (1, 3), (2, 4), (3, 3), (1, 6)]
UNICODE = ["Größe café naïve ÉCOLE déjà vu ab", "日本語 テキスト ab_cd", "x" * 30 + " é " + "y" * 30 + " ab"]


def general(docs, analyzer):
    vocab = growing_vocabulary()
    rows, ids = _python_term_ids(docs, analyzer, vocab, True)
    terms = list(vocab)
    return Counter((int(r), terms[i]) for r, i in zip(rows, ids)), terms


def fast(docs, analyzer):
    keys = TermKeys()
    rows, ids = batch_term_ids(docs, analyzer, keys, grow=True)
    terms = keys.terms()
    assert len(set(terms)) == len(terms) == len(keys)
    return Counter((int(r), terms[i]) for r, i in zip(rows, ids)), terms


@pytest.mark.parametrize("seed", quick_first(range(4), keep=2))  # (two sets of random documents in the quick subset)
@pytest.mark.parametrize("ngram_range", RANGES)
@pytest.mark.parametrize("kw", [{}, {"lowercase": False}, {"stop_words": "english"},
                                {"stop_words": ["ab", "bb", "a0"]}])
def test_ngrams_equal_the_general_path(seed, ngram_range, kw):
    """Same terms and counts, and new terms in the same column order (first occurrence),
    also for n-grams of long tokens (> 24 bytes) and of more than 56 bytes."""
    analyzer = Analyzer(ngram_range=ngram_range, **kw)
    assert supports(analyzer)
    docs = random_docs(seed)
    assert fast(docs, analyzer) == general(docs, analyzer)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("ngram_range", [(1, 1), (1, 2), (2, 3)])
def test_batches_with_non_ascii_documents_equal_the_general_path(seed, ngram_range):
    docs = random_docs(seed, 80) + UNICODE
    random.Random(seed).shuffle(docs)
    analyzer = Analyzer(ngram_range=ngram_range)
    (c1, t1), (c2, t2) = fast(docs, analyzer), general(docs, analyzer)
    assert c1 == c2
    if ngram_range != (1, 1):  # (single words: the numpy path numbers them by hash)
        assert t1 == t2
    # into a vocabulary that already holds terms: the new ones numbered alike
    start = ["ab", "x" * 30, "ab ab", "zz zz zz"]
    keys, vocab = TermKeys(start), growing_vocabulary(start)
    r1, i1 = batch_term_ids(docs, analyzer, keys, grow=True)
    r2, i2 = _python_term_ids(docs, analyzer, vocab, True)
    t1, t2 = keys.terms(), list(vocab)
    assert Counter((r, t1[i]) for r, i in zip(r1.tolist(), i1.tolist())) == \
        Counter((r, t2[i]) for r, i in zip(r2.tolist(), i2.tolist()))
    assert keys.terms() == list(vocab) if ngram_range != (1, 1) else sorted(keys.terms()) == sorted(vocab)


@pytest.mark.parametrize("seed", range(3))
def test_a_fixed_vocabulary_drops_unknown_ngrams(seed):
    analyzer = Analyzer(ngram_range=(1, 3), stop_words="english")
    train, test = random_docs(seed), random_docs(seed + 50) + UNICODE
    _, terms = general(train, analyzer)
    terms = terms[::3] + ["absent term", "q" * 40 + " " + "r" * 10]
    vocab = {t: j for j, t in enumerate(terms)}
    for index in (TermKeys(terms), StoredVocabulary(encode_terms(terms)).term_keys()):
        r1, i1 = batch_term_ids(test, analyzer, index, grow=False)
        r2, i2 = _python_term_ids(test, analyzer, vocab, False)
        assert len(i2) > 0
        assert Counter(zip(r1.tolist(), i1.tolist())) == Counter(zip(r2.tolist(), i2.tolist()))


def test_hash_collisions_never_merge_two_ngrams(monkeypatch):
    # tokens and n-gram pairs that almost all share a hash: exact numbering on the words / pairs
    monkeypatch.setattr(ascii_tokens, "_hash", lambda words: words[0] & np.uint64(3))
    monkeypatch.setattr(ascii_tokens, "_hash_ids", lambda key: key.astype(np.uint64) & np.uint64(3))
    for ngram_range in [(1, 2), (1, 3)]:
        analyzer = Analyzer(ngram_range=ngram_range)
        docs = random_docs(8)
        assert fast(docs, analyzer) == general(docs, analyzer)


@pytest.mark.parametrize("kw", [{}, {"stop_words": "english"}, {"min_df": 2}, {"max_features": 150},
                                {"lowercase": False, "ngram_range": (2, 2)}, {"ngram_range": (1, 3), "min_df": 2}])
def test_vectorizer_ngrams_match_scikit_learn(kw):
    kw = {"ngram_range": (1, 2), **kw}
    docs = random_docs(4, 150) + UNICODE
    ours = Vectorizer(**kw).fit(docs)
    ref = CountVectorizer(**kw).fit(docs)
    assert list(ours.vocabulary_) == list(ref.get_feature_names_out())
    test = random_docs(12, 40) + ["café ab ABC", ""]
    assert (ours.transform(test) != ref.transform(test)).nnz == 0
    assert (ours.fit_transform(docs) != ref.fit_transform(docs)).nnz == 0


def test_term_keys_widen_for_long_ngrams():
    """Terms of 25 to 56 bytes go to the dict until n-gram words widen the keys; then they
    move to the words, and every lookup, the order and the model-file arrays stay the same."""
    mid = ["a" * 20 + " " + "b" * 10, "c" * 30, "d" * 57]
    keys = TermKeys(["ab"] + mid)
    assert keys._width == 3 and set(mid) <= set(keys._strings)
    words = ascii_tokens._encode(["ab cd", "e" * 24 + " " + "f" * 24], ascii_tokens._WIDE)
    assert keys.add_words(words).tolist() == [4, 5]
    assert keys._width == ascii_tokens._WIDE and set(keys._strings) == {"d" * 57}
    terms = ["ab"] + mid + ["ab cd", "e" * 24 + " " + "f" * 24]
    assert keys.terms() == terms
    assert keys.add_strings(terms + ["zz"], grow=False).tolist() == list(range(6)) + [-1]
    assert [terms[c] for c in keys.sorted_columns()] == sorted(terms)
    state = encode_terms(keys, np.arange(6))
    assert_array_equal(state["terms_utf8"], encode_terms(terms)["terms_utf8"])
    stored, _ = TermKeys.from_utf8(state["terms_utf8"], state["terms_offsets"])
    assert stored._width == ascii_tokens._WIDE and stored.terms() == terms
    assert_array_equal(stored.add_words(words, grow=False), [4, 5])
    narrow = TermKeys(["ab", "ab cd"])  # without grow, a wide term is looked up in the dict
    assert narrow.add_words(words, grow=False).tolist() == [1, -1]
    sub = keys.subset([5, 0])
    assert sub.terms() == [terms[5], "ab"] and sub.add_words(words, grow=False).tolist() == [-1, 0]


@pytest.mark.parametrize("seed", range(3))
def test_merged_batches_number_ngrams_as_the_general_path(seed):
    """A batch vocabulary of n-grams (seven-word keys) merged into a growing one numbers the
    new terms as a batch vocabulary built from the general path's strings (three-word keys,
    longer terms in the dict) does: partial_fit's model files keep their column order."""
    analyzer = Analyzer(ngram_range=(1, 3))
    merged_fast, merged_general = TermKeys(["ab", "ab ab"]), TermKeys(["ab", "ab ab"])
    for part in range(3):
        docs = random_docs(seed * 10 + part, 60)
        fast_keys = TermKeys()
        batch_term_ids(docs, analyzer, fast_keys, grow=True)
        vocab = growing_vocabulary()
        _python_term_ids(docs, analyzer, vocab, True)
        general_keys = TermKeys(list(vocab))
        assert fast_keys.terms() == general_keys.terms()
        merged_fast.merge_columns(fast_keys)
        merged_general.merge_columns(general_keys)
        assert merged_fast.terms() == merged_general.terms()
