"""Vectorised tokenising of ASCII documents: the default analyzer's fast path.

For ASCII text Python's ``\\w`` is ``[A-Za-z0-9_]``, so the default token pattern
``(?u)\\b\\w\\w+\\b`` matches exactly the maximal runs of two or more such bytes. Those
runs are found with numpy over a whole batch at once (the batch joined by newlines,
a 256-entry lookup table, a difference), with no Python work per token:

* each token of at most 24 bytes is read as three little-endian 64-bit words through
  an unaligned, overlapping ``uint64`` view of the batch, masked to the token's
  length. The words identify the token exactly (a token holds no NUL byte);
* tokens are numbered by ``np.unique`` over a 64-bit mix of the words, and the words
  of every token are then compared with those of its group's first token, so a hash
  collision can never merge two terms (it falls back to exact numbering on the words);
* longer tokens (rare: 0.02 % of 20 Newsgroups' tokens) go through a dict.

The output is the same as :class:`textnb.tokenize.Analyzer` followed by a dict lookup,
term for term (tests check it against scikit-learn's ``CountVectorizer``). Analyzers
with a custom token pattern, stemming or n-grams, and non-ASCII documents, take the
general path in :mod:`textnb.tokenize`.
"""

import numpy as np

__all__ = ["TermIndex", "ascii_term_ids", "supports"]

_WORD = np.zeros(256, dtype=bool)
_WORD[np.frombuffer(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_", np.uint8)] = True
_N_WORDS = 3  # 64-bit words per token key: tokens of up to 24 bytes
_KEY_BYTES = 8 * _N_WORDS
_PAD = _KEY_BYTES + 8
_MASK = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
_MIX = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F), np.uint64(0x165667B19E3779F9))
_SHIFT = np.uint64(31)


def supports(analyzer):
    """True when ``analyzer`` (a :class:`textnb.tokenize.Analyzer`) has the default
    token pattern, single words and no stemmer (stop words and ``lowercase`` are fine)."""
    return (analyzer.pattern.pattern == r"\w\w+" and analyzer.ngram_range == (1, 1)
            and analyzer.stems is None)


def _hash(words):
    h = words[0] * _MIX[0]
    for w, m in zip(words[1:], _MIX[1:]):
        h += w * m
    return h ^ (h >> _SHIFT)


def _tokens(blobs, lowercase):
    """Token positions of a batch of ASCII bytes documents.

    Returns ``(joined, rows, starts, lengths)``: the joined batch (padded) and, per
    token, its document, start offset in ``joined`` and length.
    """
    joined = b"\n".join(blobs)
    if lowercase:
        joined = joined.lower()
    joined += b"\0" * _PAD
    buf = np.frombuffer(joined, dtype=np.uint8)
    step = np.diff(_WORD[buf].view(np.int8), prepend=np.int8(0))
    starts = np.flatnonzero(step == 1)
    lengths = np.flatnonzero(step == -1) - starts
    keep = lengths >= 2
    starts, lengths = starts[keep], lengths[keep]
    sizes = np.fromiter(map(len, blobs), dtype=np.int64, count=len(blobs)) + 1
    doc_starts = np.cumsum(sizes) - sizes
    rows = np.searchsorted(doc_starts, starts, side="right") - 1
    return joined, rows, starts, lengths


def _words(joined, starts, lengths):
    """The three masked 64-bit words of each token (tokens longer than 24 bytes: a prefix)."""
    n = len(joined) - 7
    view = np.ndarray((n,), dtype="<u8", buffer=joined, strides=(1,))
    out = [view[starts] & _MASK[np.minimum(lengths, 8)]]
    for k in range(1, _N_WORDS):  # most tokens fit in one word: gather the rest sparsely
        w = np.zeros(len(starts), dtype=np.uint64)
        on = np.flatnonzero(lengths > 8 * k)
        w[on] = view[starts[on] + 8 * k] & _MASK[np.minimum(lengths[on] - 8 * k, 8)]
        out.append(w)
    return out


def _group(h):
    """``(first, inverse)`` grouping equal values of the uint64 array ``h``.

    One value sort, no argsort: each value's top bits and its position share one
    64-bit key, ``(h >> b) << b | position``; sorting the keys groups equal tops and
    yields the permutation. ``np.sort`` is several times faster than ``np.argsort``.
    Values equal in their top ``64 - b`` bits are grouped together, which the caller
    checks against the tokens' words like any hash collision.
    """
    n = len(h)
    bits = max(1, (n - 1).bit_length())
    if bits > 40:  # keep at least 24 hash bits
        _, first, inverse = np.unique(h, return_index=True, return_inverse=True)
        return first, inverse
    low = np.uint64((1 << bits) - 1)
    keys = np.sort((h & ~low) | np.arange(n, dtype=np.uint64))
    perm = (keys & low).astype(np.int64)
    tops = keys >> np.uint64(bits)
    starts = np.empty(n, dtype=bool)
    starts[:1] = True
    np.not_equal(tops[1:], tops[:-1], out=starts[1:])
    group = np.cumsum(starts) - 1
    inverse = np.empty(n, dtype=np.int64)
    inverse[perm] = group
    return perm[starts], inverse


def _number(words):
    """``(first, inverse)``: an exact numbering of the distinct word triples."""
    if len(words[0]) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    first, inverse = _group(_hash(words))
    if all(np.array_equal(w, w[first][inverse]) for w in words):
        return first, inverse
    # tokens that differ share a hash: number the words themselves
    _, first, inverse = np.unique(np.stack(words, axis=1), axis=0, return_index=True,
                                  return_inverse=True)
    return first, inverse.ravel()


def _decode(words, index):
    """Term strings of the tokens at ``index`` (from their words)."""
    triples = np.stack([w[index] for w in words], axis=1)
    return [b.decode("ascii") for b in np.ascontiguousarray(triples).view(f"S{_KEY_BYTES}").ravel().tolist()]


def _long_terms(joined, starts, lengths):
    return [joined[s:s + n].decode("ascii") for s, n in zip(starts.tolist(), lengths.tolist())]


def ascii_term_ids(blobs, analyzer, index=None):
    """Term numbers of a batch of ASCII documents (bytes), without per-token Python.

    With ``index`` None the batch numbers its own terms: returns ``(rows, ids, terms)``,
    ``terms[i]`` being the string of term ``i``. With a :class:`TermIndex` returns
    ``(rows, ids)`` under its fixed vocabulary, unknown terms dropped.
    """
    joined, rows, starts, lengths = _tokens(blobs, analyzer.lowercase)
    long = lengths > _KEY_BYTES
    long_terms = None
    if long.any():
        long_terms = _long_terms(joined, starts[long], lengths[long])
        short = ~long
        long_rows = rows[long]
        rows, starts, lengths = rows[short], starts[short], lengths[short]
    words = _words(joined, starts, lengths)
    stop = analyzer.stop_words
    if index is not None:
        ids = index.lookup(words)
        if long_terms is not None:
            get = index.vocabulary.get
            long_ids = np.fromiter((get(t, -1) for t in long_terms), dtype=np.int64, count=len(long_terms))
            rows, ids = np.concatenate((rows, long_rows)), np.concatenate((ids, long_ids))
        # stop words need no filter here: they never enter a vocabulary built by this analyzer
        keep = ids >= 0
        return rows[keep], ids[keep]
    if len(starts) == 0:
        first, inverse, terms = np.zeros(0, np.int64), np.zeros(0, np.int64), []
    else:
        first, inverse = _number(words)
        terms = _decode(words, first)
    ids = inverse.astype(np.int64, copy=False)
    if long_terms is not None:
        vocab = {}
        for t in long_terms:
            vocab.setdefault(t, len(terms) + len(vocab))
        terms = terms + list(vocab)
        rows = np.concatenate((rows, long_rows))
        ids = np.concatenate((ids, np.fromiter(map(vocab.__getitem__, long_terms), dtype=np.int64,
                                               count=len(long_terms))))
    if stop is not None:
        is_stop = np.fromiter(map(stop.__contains__, terms), dtype=bool, count=len(terms))
        if is_stop.any():
            new = np.cumsum(~is_stop) - 1
            keep = ~is_stop[ids]
            rows, ids = rows[keep], new[ids[keep]]
            terms = [t for t, s in zip(terms, is_stop.tolist()) if not s]
    return rows, ids, terms


class TermIndex:
    """A fixed vocabulary (term -> column) searchable by token words, for prediction.

    Holds the 64-bit hashes of the ASCII terms of at most 24 bytes, sorted, with their
    words and columns; other terms are looked up in ``vocabulary`` (a dict).
    """

    def __init__(self, vocabulary):
        self.vocabulary = vocabulary
        terms = list(vocabulary)
        cols = np.fromiter(vocabulary.values(), dtype=np.int64, count=len(terms))
        fits = np.fromiter((t.isascii() and 0 < len(t) <= _KEY_BYTES for t in terms), dtype=bool,
                           count=len(terms))
        encoded = np.array([t.encode("ascii") for t, f in zip(terms, fits.tolist()) if f],
                           dtype=f"S{_KEY_BYTES}")
        words = encoded.view("<u8").reshape(-1, _N_WORDS) if len(encoded) else np.zeros((0, _N_WORDS), np.uint64)
        h = _hash([words[:, k] for k in range(_N_WORDS)])
        order = np.argsort(h, kind="stable")
        self.hashes = h[order]
        self.words = words[order]
        self.columns = cols[fits][order]
        self.unique = bool(len(h) < 2 or (self.hashes[1:] != self.hashes[:-1]).all())

    def __len__(self):
        return len(self.vocabulary)

    def lookup(self, words):
        """Column of each token given by its words (-1 when not in the vocabulary)."""
        n = len(words[0])
        if n == 0 or len(self.hashes) == 0:
            return np.full(n, -1, dtype=np.int64)
        if not self.unique:  # two terms share a hash: look the distinct tokens up in the dict
            first, inverse = _number(words)
            get = self.vocabulary.get
            cols = np.fromiter((get(t, -1) for t in _decode(words, first)), dtype=np.int64, count=len(first))
            return cols[inverse]
        h = _hash(words)
        uniq, inverse = np.unique(h, return_inverse=True)
        pos = np.minimum(np.searchsorted(self.hashes, uniq), len(self.hashes) - 1)[inverse]
        found = self.hashes[pos] == h
        for k in range(_N_WORDS):  # every token against its term's words: exact
            found &= self.words[pos, k] == words[k]
        return np.where(found, self.columns[pos], -1)
