"""The numpy tokenizer for ASCII documents gives exactly the general path's terms."""

import functools
import random
from collections import Counter

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from sklearn.feature_extraction.text import CountVectorizer

from textnb.text import ascii_tokens
from textnb.text.ascii_tokens import TermKeys, ascii_term_ids, supports
from textnb.text.vectorizer import Vectorizer
from textnb.text.tokenize import (Analyzer, StoredVocabulary, _python_term_ids, batch_term_ids, decode_terms,
                                  encode_terms, growing_vocabulary)

ALPHABET = "abcXYZ019_" + " .,;:-'\"\t\n!?()[]{}<>/\\|@#$%^&*+=~`"


def random_docs(seed, n=200):
    """``n`` random documents of mostly ASCII word and separator characters (a list of the
    test's own; made once a process for each ``seed`` and ``n``)."""
    return list(_random_docs(seed, n))


@functools.lru_cache(maxsize=None)
def _random_docs(seed, n):
    rng = random.Random(seed)
    docs = []
    for _ in range(n):
        parts = []
        for _ in range(rng.randrange(0, 40)):
            kind = rng.random()
            if kind < 0.15:  # lengths around the 8 / 16 / 24 byte word edges
                k = rng.choice([1, 2, 7, 8, 9, 15, 16, 17, 23, 24, 25, 26, 40, 100])
                parts.append("".join(rng.choice("aAbB0_") for _ in range(k)))
            else:
                parts.append("".join(rng.choice(ALPHABET) for _ in range(rng.randrange(0, 12))))
        docs.append(rng.choice([" ", "", "\n", "."]).join(parts))
    return tuple(docs)


def pairs_general(docs, analyzer):
    vocab = growing_vocabulary()
    rows, ids = _python_term_ids(docs, analyzer, vocab, True)
    terms = list(vocab)
    return Counter((int(r), terms[i]) for r, i in zip(rows, ids))


def pairs_fast(docs, analyzer):
    keys = TermKeys()
    rows, ids = ascii_term_ids([d.encode("ascii") for d in docs], analyzer, keys, grow=True)
    terms = keys.terms()
    assert len(set(terms)) == len(terms) == len(keys)
    return Counter((int(r), terms[i]) for r, i in zip(rows, ids))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("kw", [{}, {"lowercase": False}, {"stop_words": "english"},
                                {"stop_words": ["ab", "bb", "a0"]}])
def test_fast_path_equals_the_general_path(seed, kw):
    analyzer = Analyzer(**kw)
    assert supports(analyzer)
    docs = random_docs(seed)
    assert pairs_fast(docs, analyzer) == pairs_general(docs, analyzer)


def test_a_hash_collision_never_merges_two_terms(monkeypatch):
    # a hash of 4 values: almost every pair of distinct terms collides
    monkeypatch.setattr(ascii_tokens, "_hash", lambda words: words[0] & np.uint64(3))
    analyzer = Analyzer()
    docs = random_docs(7)
    assert pairs_fast(docs, analyzer) == pairs_general(docs, analyzer)
    vocab = dict(growing_vocabulary(["ab", "bb", "abc", "a" * 30, "b0", "0b"]))
    index = TermKeys(vocab)
    assert index.terms() == list(vocab)
    assert index._strings  # colliding terms went to the dict
    r1, i1 = batch_term_ids(docs, analyzer, index, grow=False)
    r2, i2 = _python_term_ids(docs, analyzer, vocab, False)
    assert Counter(zip(r1.tolist(), i1.tolist())) == Counter(zip(r2.tolist(), i2.tolist()))


@pytest.mark.parametrize("seed", range(4))
def test_term_index_lookup_equals_the_dict(seed):
    analyzer = Analyzer()
    train, test = random_docs(seed), random_docs(seed + 100)
    vocab = growing_vocabulary()
    _python_term_ids(train, analyzer, vocab, True)
    vocab = dict(vocab)
    r1, i1 = batch_term_ids(test, analyzer, TermKeys(vocab), grow=False)
    r2, i2 = _python_term_ids(test, analyzer, vocab, False)
    assert len(i2) > 0
    assert Counter(zip(r1.tolist(), i1.tolist())) == Counter(zip(r2.tolist(), i2.tolist()))


def test_group_matches_numpy_unique():
    rng = np.random.default_rng(0)
    for n in (1, 2, 3, 1000, 70_000):
        h = rng.integers(0, 50, n).astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
        first, inverse = ascii_tokens._group(h)
        assert np.array_equal(h[first][inverse], h)
        u, f = np.unique(h, return_index=True)
        assert np.array_equal(np.sort(h[first]), u)
        assert np.array_equal(np.sort(first), np.sort(f))  # the first occurrence of each


def test_hash_table_group_equals_sort_group():
    """The hash-table grouping gives exactly the sort's groups, order and first positions
    (the vocabulary's column order, hence partial_fit's model files, depend on them),
    also where it falls back: many distinct values, distinct values with equal top bits."""
    rng = np.random.default_rng(1)
    cases = [rng.integers(0, k, n).astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
             for n in (1, 2, 3, 100, 1000, 70_000, 1_200_000) for k in (2, 50, n, 2**40)]
    docs = [d.encode("ascii") for d in random_docs(11, 400)]
    joined, _, starts, lengths = ascii_tokens._tokens(docs, True)
    short = lengths <= 24
    cases.append(ascii_tokens._hash(ascii_tokens._words(joined, starts[short], lengths[short])))
    cases.append(np.array([5 << 40, (5 << 40) + 1, 5 << 40, 7], dtype=np.uint64))  # equal top bits
    for h in cases:
        ours, ref = ascii_tokens._group(h), ascii_tokens._sort_group(h)
        assert np.array_equal(ours[0], ref[0]) and np.array_equal(ours[1], ref[1])


def test_mixed_ascii_and_unicode_documents_match_sklearn():
    docs = random_docs(3, 50) + ["Größe café naïve ÉCOLE déjà vu ab", "日本語 テキスト ab_cd", "x" * 30]
    random.Random(1).shuffle(docs)
    for kw in ({}, {"lowercase": False}, {"stop_words": "english"}):
        ours = Vectorizer(**kw).fit(docs)
        ref = CountVectorizer(**kw).fit(docs)
        assert list(ours.vocabulary_) == list(ref.get_feature_names_out())
        test = random_docs(9, 30) + ["café ab ABC", ""]
        assert (ours.transform(test) != ref.transform(test)).nnz == 0


def test_bytes_and_str_documents_count_alike():
    analyzer = Analyzer()
    docs = random_docs(5)
    v1, v2 = growing_vocabulary(), TermKeys()
    r1, i1 = batch_term_ids(docs, analyzer, v1, grow=True)
    r2, i2 = batch_term_ids([d.encode("ascii") for d in docs], analyzer, v2, grow=True)
    t1, t2 = list(v1), v2.terms()
    assert Counter((r, t1[i]) for r, i in zip(r1.tolist(), i1.tolist())) == \
        Counter((r, t2[i]) for r, i in zip(r2.tolist(), i2.tolist()))


def test_documents_without_tokens():
    analyzer = Analyzer()
    keys = TermKeys()
    rows, ids = ascii_term_ids([b"", b"a b c", b"...", b""], analyzer, keys, grow=True)
    assert len(rows) == len(ids) == 0 and keys.terms() == []
    rows, ids = ascii_term_ids([b"", b"a"], analyzer, TermKeys(["ab"]), grow=False)
    assert len(rows) == 0


def test_other_analyzers_take_the_general_path():
    assert supports(Analyzer(ngram_range=(1, 2)))  # (word n-grams: tests/text/test_ascii_ngrams.py)
    assert not supports(Analyzer(token_pattern=r"(?u)\b\w+\b"))
    assert not supports(Analyzer(stemmer="porter"))
    docs = random_docs(2, 40)
    for kw in ({"token_pattern": r"(?u)\b\w+\b"},):
        ours = Vectorizer(**kw).fit(docs)
        ref = CountVectorizer(**kw).fit(docs)
        assert list(ours.vocabulary_) == list(ref.get_feature_names_out())


def test_term_keys_columns_follow_insertion_order_and_merge():
    terms = ["ab", "café", "x" * 30, "b", "ab cd", "0", "Zz"]
    keys = TermKeys(terms)
    assert keys.terms() == terms
    assert keys.add_strings(["zz", "ab", "naïve"]).tolist() == [7, 0, 8]
    assert keys.add_strings(["nope", "x" * 30], grow=False).tolist() == [-1, 2]
    other = TermKeys(["naïve", "new", "ab", "y" * 40])
    cols = keys.merge_columns(other)
    assert [keys.terms()[c] for c in cols] == other.terms()
    with pytest.raises(ValueError):
        TermKeys(["a", "a"])


@pytest.mark.parametrize("seed", range(3))
def test_term_keys_under_collisions_equal_a_dict(seed, monkeypatch):
    monkeypatch.setattr(ascii_tokens, "_hash", lambda words: words[0] & np.uint64(7))
    rng = random.Random(seed)
    ref, keys = {}, TermKeys()
    for _ in range(20):
        batch = list({"".join(rng.choice("abc_9") for _ in range(rng.randrange(1, 30)))
                      for _ in range(rng.randrange(1, 15))})
        cols = keys.add_strings(batch, grow=rng.random() < 0.7)
        for t, c in zip(batch, cols.tolist()):
            if c >= 0:
                ref.setdefault(t, c)
                assert ref[t] == c
            else:
                assert t not in ref
    assert keys.terms() == sorted(ref, key=ref.get)


def test_subset_keeps_the_chosen_columns_in_order():
    terms = ["ab", "café", "x" * 30, "b", "ab cd", "0", "Zz", "naïve"]
    keys = TermKeys(terms)
    cols = [7, 2, 0, 5, 1]
    sub = keys.subset(cols)
    assert sub.terms() == [terms[c] for c in cols]
    assert sub.add_strings(["ab", "naïve", "b", "x" * 30], grow=False).tolist() == [2, 0, -1, 1]


@pytest.mark.parametrize("seed", range(4))
def test_sorted_columns_sort_like_python(seed):
    rng = random.Random(seed)
    alphabet = "ab_Z09" + "éß日\U0001F600"
    terms = set()
    while len(terms) < 300:
        n = rng.choice([1, 2, 8, 23, 24, 25, 30])
        stem = "x" * rng.choice([0, 20, 24])  # many long terms sharing 24-byte prefixes
        terms.add(stem + "".join(rng.choice(alphabet) for _ in range(n)))
    terms = list(terms)
    rng.shuffle(terms)
    keys = TermKeys(terms)
    assert [terms[c] for c in keys.sorted_columns()] == sorted(terms)


def _vocab_terms(seed):
    rng = random.Random(seed)
    terms = {"".join(rng.choice("abAB_9é\0") for _ in range(rng.choice([1, 2, 8, 9, 16, 17, 24, 25, 40])))
             for _ in range(300)}
    return sorted(terms) + [""]


@pytest.mark.parametrize("collide", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_term_keys_from_a_model_file_equal_term_keys_of_the_terms(seed, collide, monkeypatch):
    if collide:  # most terms share a hash: the later ones go to the dict, as add_strings files them
        monkeypatch.setattr(ascii_tokens, "_hash", lambda words: words[0] & np.uint64(7))
    terms = _vocab_terms(seed)
    state = encode_terms(terms)
    keys, others = TermKeys.from_utf8(state["terms_utf8"], state["terms_offsets"])
    ref = TermKeys(terms)
    assert keys.terms() == terms and len(keys) == len(terms)
    assert others == {j: t for j, t in enumerate(terms) if not ascii_tokens._keyable(t)}
    probe = terms[::-1] + ["absent", "zz" * 13]
    assert_array_equal(keys.add_strings(probe, grow=False), ref.add_strings(probe, grow=False))
    assert_array_equal(keys.sorted_columns(), ref.sorted_columns())


def test_stored_vocabulary_refuses_what_decode_terms_refuses():
    for terms in (["ab", "ab"], ["é", "é"], ["x" * 30, "x" * 30]):
        with pytest.raises(ValueError, match="twice"):
            StoredVocabulary(encode_terms(terms))
    state = encode_terms(["é", "a"])
    state["terms_offsets"][1] = 1  # the first term ends inside "é"
    with pytest.raises(ValueError):
        decode_terms(state)
    with pytest.raises(ValueError, match="inside a UTF-8 character"):
        StoredVocabulary(state)
    state = encode_terms(["ab", "cd"])
    state["terms_offsets"][-1] = 3
    with pytest.raises(ValueError, match="offsets"):
        StoredVocabulary(state)
    state = encode_terms(["ab"])
    state["terms_utf8"][0] = 0xFF
    with pytest.raises(UnicodeDecodeError):
        StoredVocabulary(state)
    vocab = StoredVocabulary(encode_terms(["ab", "é", ""]))
    assert vocab.terms() == ["ab", "é", ""] and len(vocab) == 3
    assert StoredVocabulary({"terms": np.array(["b", "a"])}).term_keys().terms() == ["b", "a"]


@pytest.mark.parametrize("collide", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_encoding_term_keys_equals_encoding_their_terms(seed, collide, monkeypatch):
    """A vocabulary encoded for a model file from its TermKeys (words cut by numpy) gives
    the arrays of encoding its str terms, for any subset of columns in any order;
    ``terms(columns)`` decodes the same terms."""
    if collide:  # terms held in the dict beside the keyed ones
        monkeypatch.setattr(ascii_tokens, "_hash", lambda words: words[0] & np.uint64(7))
    terms = _vocab_terms(seed) + ["x" * 30, "café", "日本"]
    keys = TermKeys(terms)
    rng = random.Random(seed)
    for cols in (list(range(len(terms))), keys.sorted_columns().tolist(),
                 rng.sample(range(len(terms)), 40), [len(terms) - 1], [0]):
        want = encode_terms([terms[c] for c in cols])
        got = encode_terms(keys, np.asarray(cols))
        for name in ("terms_utf8", "terms_offsets"):
            assert got[name].dtype == want[name].dtype
            assert_array_equal(got[name], want[name])
        assert keys.terms(cols) == [terms[c] for c in cols]


def test_word_bytes_are_the_lookup_tables_word_characters():
    every_byte = np.arange(256, dtype=np.uint8)
    assert_array_equal(ascii_tokens._word_bytes(every_byte), ascii_tokens._WORD)
