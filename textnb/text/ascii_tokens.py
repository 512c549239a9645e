"""Vectorised tokenising of ASCII documents: the default analyzer's fast path.

For ASCII text Python's ``\\w`` is ``[A-Za-z0-9_]``, so the default token pattern
``(?u)\\b\\w\\w+\\b`` matches exactly the maximal runs of two or more such bytes. Those
runs are found with numpy over a whole batch at once (the batch joined by newlines,
a 256-entry lookup table, a difference), with no Python work per token:

* each token of at most 24 bytes is read as three little-endian 64-bit words through
  an unaligned, overlapping ``uint64`` view of the batch, masked to the token's
  length. The words identify the token exactly (a token holds no NUL byte);
* tokens are numbered by a 64-bit mix of the words, grouped in a vectorised hash
  table (:func:`_group`; one value sort when the table would be too full), and the
  words of every token are then compared with those of its group's first token, so a
  hash collision can never merge two terms (it falls back to exact numbering on the
  words);
* longer tokens (rare: 0.02 % of 20 Newsgroups' tokens) go through a dict.

:class:`TermKeys` is the vocabulary in the same terms: looked up, grown, merged and
sorted a batch at a time, by the words' hashes.

Word n-grams (``ngram_range``) are formed from the numbered tokens, after stop-word
removal and within a document, as scikit-learn forms them: each n-gram is numbered by
the pair (its (n - 1)-gram's number, its last token's number), exactly, and keyed by
the words of its string (``w1 w2``, composed by shifts, :func:`_join`) when it has at
most 56 bytes and no token over 24; the others are joined as str, once per distinct
n-gram of a batch. :class:`TermKeys` then holds terms of up to 56 bytes in seven words.
New n-grams get their columns in order of first occurrence, as the general path gives
them (a batch's rows list their cells in column order, which the model files of
DiscriminativeNB depend on to the last bit).

The output is the same as :class:`textnb.text.tokenize.Analyzer` followed by a dict lookup,
term for term (tests check it against scikit-learn's ``CountVectorizer``). Analyzers
with a custom token pattern or stemming, and non-ASCII documents, take the general path
in :mod:`textnb.text.tokenize`.
"""

from itertools import repeat

import numpy as np

__all__ = ["TermKeys", "ascii_term_ids", "supports"]

#: The word characters (``\w`` in ASCII) by byte value: what :func:`_word_bytes` computes
_WORD = np.zeros(256, dtype=bool)
_WORD[np.frombuffer(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_", np.uint8)] = True
_N_WORDS = 3  # 64-bit words per token key: tokens of up to 24 bytes
_KEY_BYTES = 8 * _N_WORDS
#: 64-bit words per n-gram key: n-grams of up to 56 bytes (two tokens of 24 and a space)
_WIDE = 7
_PAD = _KEY_BYTES + 8
_MASK = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
#: One odd multiplier per word: a key's trailing zero words add nothing, so a term hashes
#: alike in 3 words and in 7
_MIX = tuple(np.uint64(m) for m in (0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9,
                                     0xD6E8FEB86659FD93, 0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53,
                                     0x94D049BB133111EB))
_SHIFT = np.uint64(31)


def supports(analyzer):
    """True when ``analyzer`` (a :class:`textnb.text.tokenize.Analyzer`) is a plain word
    analyzer (no custom analyzer, preprocessor, tokenizer, accent stripping or input
    decoding) with the default token pattern and no stemmer (stop words, ``lowercase``
    and word n-grams are fine)."""
    return analyzer.plain and analyzer.pattern.pattern == r"\w\w+" and analyzer.stems is None


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
    step = np.diff(_word_bytes(buf).view(np.int8), prepend=np.int8(0))
    # a run of word bytes starts (+1) and ends (-1, the byte after it) in turn, and the
    # padding ends the last one: one pass over the bytes finds both
    edges = np.flatnonzero(step != 0)
    starts = edges[0::2]
    lengths = edges[1::2] - starts
    keep = lengths >= 2
    starts, lengths = starts[keep], lengths[keep]
    sizes = np.fromiter(map(len, blobs), dtype=np.int64, count=len(blobs)) + 1
    doc_starts = np.cumsum(sizes) - sizes
    # each document's tokens are a run of ``starts`` (no token spans the newline between
    # two): its row repeated, instead of a binary search per token
    per_doc = np.diff(np.searchsorted(starts, doc_starts), append=len(starts))
    rows = np.repeat(np.arange(len(blobs), dtype=np.int64), per_doc)
    return joined, rows, starts, lengths


def _word_bytes(buf):
    """The bytes of ``buf`` (uint8) that are word characters, ``[A-Za-z0-9_]`` (what
    ``_WORD`` looks up), by byte arithmetic: a 256-entry lookup would first widen every
    byte to a 64-bit index (four times faster on 20 Newsgroups' batches)."""
    t = buf | np.uint8(0x20)  # A-Z to a-z (other bytes land outside a-z)
    t -= np.uint8(ord("a"))  # wraps around: a-z become 0-25, all else 26 or more
    word = t < 26
    np.subtract(buf, np.uint8(ord("0")), out=t)
    word |= t < 10
    word |= buf == ord("_")
    return word


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


#: Slots of :func:`_group`'s hash table: at most 2**19 (2 MiB, it stays in the cache).
_TABLE_BITS = (8, 19)
#: Probing rounds before :func:`_group` gives up on the table (too many distinct values).
_MAX_PROBES = 12


def _group(h):
    """``(first, inverse)`` grouping equal values of the uint64 array ``h``, exactly as
    :func:`_sort_group` does: groups in order of their values, ``first`` the first
    position of each, ``inverse`` each value's group (``h[first][inverse] == h``).

    Found with an open-addressing hash table filled by numpy, all positions at once:
    every value looks at its slot (its top bits, then the next slots: linear probing);
    the values that find it free write their position there, the smallest last so that
    it stays, and each value whose slot holds an equal value is done. Each round is a
    few vectorised gathers over the values still pending, few rounds with the table at
    most half full. Only the distinct values are then sorted (about a tenth of a
    batch's tokens), not every token. :func:`_sort_group` itself when the values are
    too many distinct ones for the table, when two distinct values would fall in one of
    its groups (equal top bits), or if the smallest position did not stay.
    """
    n = len(h)
    if n == 0 or n >= 1 << 31:  # (positions are held as int32)
        return _sort_group(h)
    bits = min(max((2 * n - 1).bit_length(), _TABLE_BITS[0]), _TABLE_BITS[1])
    mask = np.int64((1 << bits) - 1)
    table = np.full(1 << bits, -1, dtype=np.int32)  # a position of the value held, or -1
    slot = (h >> np.uint64(64 - bits)).astype(np.int64)
    positions = np.arange(n)
    # the first round: every slot is free, every position writes (in reverse: of a slot's
    # writers, the first stays)
    table[slot[::-1]] = positions[::-1]
    rep = table[slot].astype(np.int64)  # the position whose value each one equals
    pending = np.flatnonzero(h[rep] != h)
    for probe in range(1, _MAX_PROBES + 1):
        if not pending.size:
            break
        where = (slot[pending] + probe) & mask
        held = table[where]
        free = np.flatnonzero(held < 0)[::-1]
        if free.size:
            table[where[free]] = pending[free]
            held = table[where]
        same = h[held] == h[pending]
        rep[pending[same]] = held[same]
        pending = pending[~same]
    if pending.size:
        return _sort_group(h)
    if np.any(rep > positions):  # a later position stayed: not the first of its group
        return _sort_group(h)
    is_first = rep == positions
    first = np.flatnonzero(is_first)
    values = h[first]
    order = np.argsort(values)  # (distinct values: one order whatever the kind; the default is vectorised)
    low = np.uint64(max(1, (n - 1).bit_length()))  # _sort_group's grouping bits
    tops = values[order] >> low
    if np.any(tops[1:] == tops[:-1]):
        return _sort_group(h)
    rank = np.empty(first.size, dtype=np.int64)
    rank[order] = np.arange(first.size)
    number = np.cumsum(is_first) - 1
    return first[order], rank[number[rep]]


def _sort_group(h):
    """``(first, inverse)`` grouping equal values of the uint64 array ``h`` (as :func:`_group`).

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


def _decode(words):
    """Strings of an (n, k) uint64 array of token words."""
    if len(words) == 0:
        return []
    raw = np.ascontiguousarray(words, dtype=np.uint64).view(f"S{8 * words.shape[1]}").ravel().tolist()
    return b"\0".join(raw).decode("ascii").split("\0")  # keyed terms hold no NUL


def _long_terms(joined, starts, lengths):
    return [joined[s:s + n].decode("ascii") for s, n in zip(starts.tolist(), lengths.tolist())]


def _keyable(term, width=_N_WORDS):
    return term.isascii() and 0 < len(term) <= 8 * width and "\0" not in term


def _encode(terms, width=_N_WORDS):
    """(n, width) uint64 words of ASCII terms of 1 to ``8 * width`` characters without NUL."""
    if not terms:
        return np.zeros((0, width), dtype=np.uint64)
    encoded = np.array([t.encode("ascii") for t in terms], dtype=f"S{8 * width}")
    return encoded.view("<u8").reshape(-1, width)


class TermKeys:
    """A vocabulary (term -> column) looked up and grown by token words, in bulk.

    ASCII terms of at most 24 characters are held as their three 64-bit words, with a
    sorted array of their hashes: a batch of terms is looked up with one
    ``searchsorted`` and checked word for word, and new terms are appended with no
    Python work per term. Other terms (non-ASCII, longer, or sharing a hash with a
    different term) live in a dict. Columns are numbered in order of addition.
    Picklable (arrays and a dict), so it travels to worker processes.

    A vocabulary of word n-grams holds terms of up to 56 characters as words: given
    words of n-grams longer than 24 characters (:meth:`add_words`), its words widen to
    seven (``_width``), and the ASCII terms of 25 to 56 characters it held in the dict
    move to the words. A term's hash does not depend on the width.
    """

    _width = _N_WORDS  # 64-bit words per term held as words: 3, or _WIDE

    def __init__(self, terms=()):
        self._hashes = np.zeros(0, dtype=np.uint64)      # sorted
        self._hash_cols = np.zeros(0, dtype=np.int64)    # column of each sorted hash
        self._words = np.zeros((0, _N_WORDS), dtype=np.uint64)  # by column (capacity)
        self._keyed = np.zeros(0, dtype=bool)            # by column: held as words
        self._strings = {}
        self._n = 0
        terms = list(terms)
        if len(set(terms)) != len(terms):
            raise ValueError("TermKeys: the terms are not distinct")
        if terms:
            self.add_strings(terms)

    @classmethod
    def from_utf8(cls, data, offsets):
        """The TermKeys of a model file's vocabulary (:func:`textnb.text.tokenize.encode_terms`):
        term ``j`` is ``data[offsets[j]:offsets[j + 1]]`` (UTF-8), column ``j``.

        ASCII terms are cut into their words with numpy, with no Python work per term;
        only the others are decoded. Returns ``(keys, others)``: ``others`` maps the
        position of every term not held as words to its str. Raises ValueError for a term
        held twice; the caller checks the offsets and the UTF-8. A vocabulary of n-grams
        (an ASCII term of 25 to 56 bytes holding a space) is held in seven words a term,
        as :meth:`add_words` of n-grams grows one.
        """
        data = np.asarray(data, dtype=np.uint8)
        offsets = np.asarray(offsets, dtype=np.int64)
        n = len(offsets) - 1
        lengths = np.diff(offsets)
        odd = np.concatenate(([0], np.cumsum((data >= 128) | (data == 0))))  # non-ASCII or NUL bytes
        ascii = (odd[offsets[1:]] == odd[offsets[:-1]]) & (lengths > 0)
        blob = data.tobytes()
        wide = np.flatnonzero(ascii & (lengths > _KEY_BYTES) & (lengths <= 8 * _WIDE)).tolist()
        width = _WIDE if any(b" " in blob[offsets[i]:offsets[i + 1]] for i in wide) else _N_WORDS
        keyable = ascii & (lengths <= 8 * width)
        keyed_at, other_at = np.flatnonzero(keyable), np.flatnonzero(~keyable)
        padded = np.concatenate((data, np.zeros(8 * width + 8, dtype=np.uint8))).tobytes()
        view = np.ndarray((len(padded) - 7,), dtype="<u8", buffer=padded, strides=(1,))  # as _words reads tokens
        starts, lengths = offsets[keyed_at], lengths[keyed_at]
        words = np.empty((len(keyed_at), width), dtype=np.uint64)
        for k in range(width):
            words[:, k] = view[starts + 8 * k] & _MASK[np.clip(lengths - 8 * k, 0, 8)]
        others = [blob[a:b].decode("utf-8") for a, b in zip(offsets[other_at].tolist(), offsets[other_at + 1].tolist())]
        h = _hash([words[:, k] for k in range(width)])
        order = np.argsort(h, kind="stable")
        hs = h[order]
        same = np.flatnonzero(hs[1:] == hs[:-1])
        sharing = np.zeros(len(order), dtype=bool)  # terms sharing a hash (np.unique would import numpy.ma)
        sharing[same] = sharing[same + 1] = True
        shared = order[sharing]
        if len(set(others)) != len(others) or len({words[i].tobytes() for i in shared.tolist()}) != len(shared):
            raise ValueError("the vocabulary holds a term twice")
        # as _register files them into an empty table: the first term of a hash by its
        # words, any later one with the same hash in the dict
        to_dict = np.zeros(len(order), dtype=bool)
        to_dict[same + 1] = True
        keys = cls()
        keys._width, keys._words = width, np.zeros((0, width), dtype=np.uint64)
        keys._reserve(n)
        keys._n = n
        held = order[~to_dict]
        keys._words[keyed_at[held]] = words[held]
        keys._keyed[keyed_at[held]] = True
        keys._hashes, keys._hash_cols = hs[~to_dict], keyed_at[held]
        rest = order[to_dict]
        keys._strings = dict(zip(others, other_at.tolist()))
        keys._strings.update(zip(_decode(words[rest]), keyed_at[rest].tolist()))
        return keys, dict(zip(other_at.tolist(), others))

    def __len__(self):
        return self._n

    def __getstate__(self):  # without the spare capacity
        state = dict(self.__dict__)
        state["_words"], state["_keyed"] = self._words[: self._n], self._keyed[: self._n]
        return state

    def _reserve(self, n):
        if n > len(self._keyed):
            cap = max(n, 2 * len(self._keyed), 1024)
            words = np.zeros((cap, self._width), dtype=np.uint64)
            words[: len(self._words)] = self._words
            keyed = np.zeros(cap, dtype=bool)
            keyed[: len(self._keyed)] = self._keyed
            self._words, self._keyed = words, keyed

    def _widen(self, width):
        """Hold terms of up to ``8 * width`` bytes as words (see the class docstring)."""
        if width <= self._width:
            return
        words = np.zeros((len(self._words), width), dtype=np.uint64)
        words[:, : self._width] = self._words
        self._words, self._width = words, width
        # the dict's ASCII terms that now fit the words move there (the others, and any
        # whose hash a term held as words has, stay)
        move = [t for t in self._strings if len(t) > _KEY_BYTES and _keyable(t, width)]
        if move:
            cols = np.fromiter(map(self._strings.pop, move), dtype=np.int64, count=len(move))
            moved = _encode(move, width)
            h = _hash([moved[:, k] for k in range(width)])
            at = np.minimum(np.searchsorted(self._hashes, h), max(len(self._hashes) - 1, 0))
            collided = (self._hashes[at] == h) if len(self._hashes) else np.zeros(len(h), dtype=bool)
            self._register(moved, h, cols, collided)

    def _lookup(self, words, h):
        """Columns of terms given by words (-1: absent). Terms whose hash belongs to
        another term are looked up in the dict; returns ``(cols, collided)``."""
        cols = np.full(len(h), -1, dtype=np.int64)
        collided = np.zeros(len(h), dtype=bool)
        if len(self._hashes):
            # the hashes searched in sorted order: each binary search starts where the last
            # ended, in the cache (seven times faster for a batch in a large vocabulary)
            order = np.argsort(h)
            pos = np.empty(len(h), dtype=np.int64)
            pos[order] = np.searchsorted(self._hashes, h[order])
            np.minimum(pos, len(self._hashes) - 1, out=pos)
            hit = np.flatnonzero(self._hashes[pos] == h)
            found = self._hash_cols[pos[hit]]
            # (np.take: rows of three words gathered many times faster than by fancy indexing)
            same = (np.take(self._words, found, axis=0) == np.take(words, hit, axis=0)).all(axis=1)
            cols[hit[same]] = found[same]
            collided[hit[~same]] = True
        if collided.any() and self._strings:
            at = np.flatnonzero(collided)
            cols[at] = np.fromiter(map(self._strings.get, _decode(words[at]), repeat(-1)),
                                   dtype=np.int64, count=len(at))
        return cols, collided

    def _register(self, words, h, cols, collided):
        """Record new terms (distinct words) at their given new columns ``cols``."""
        self._reserve(int(cols.max()) + 1)
        order = np.argsort(h, kind="stable")
        hs = h[order]
        dup = np.zeros(len(order), dtype=bool)  # equal hashes of distinct words: dict
        dup[1:] = hs[1:] == hs[:-1]
        to_dict = collided[order] | dup
        keyed = order[~to_dict]
        held = np.ones(len(h), dtype=bool)
        held[order[to_dict]] = False
        held = np.flatnonzero(held)  # (in the given order: the columns ascend)
        self._words[cols[held]] = np.take(words, held, axis=0)
        self._keyed[cols[held]] = True
        at = np.searchsorted(self._hashes, h[keyed])  # h[keyed] is sorted: stays sorted
        self._hashes = np.insert(self._hashes, at, h[keyed])
        self._hash_cols = np.insert(self._hash_cols, at, cols[keyed])
        if to_dict.any():
            rest = order[to_dict]
            self._strings.update(zip(_decode(words[rest]), cols[rest].tolist()))

    def _add(self, words, other_terms, keyed_at, other_at, n, grow):
        """Columns of ``n`` distinct terms: ``words`` at positions ``keyed_at``, the str
        ``other_terms`` at ``other_at``; new ones numbered in position order."""
        h = _hash([words[:, k] for k in range(words.shape[1])])
        cols = np.empty(n, dtype=np.int64)
        kcols, collided = self._lookup(words, h)
        cols[keyed_at] = kcols
        if len(other_at):
            cols[other_at] = np.fromiter(map(self._strings.get, other_terms, repeat(-1)),
                                         dtype=np.int64, count=len(other_at))
        if grow:
            new = np.flatnonzero(cols < 0)
            if len(new):
                cols[new] = np.arange(self._n, self._n + len(new))
                self._n += len(new)
                knew = np.flatnonzero(kcols < 0)
                if len(knew):
                    self._register(words[knew], h[knew], cols[keyed_at[knew]], collided[knew])
                onew = np.flatnonzero(cols[other_at] >= len(self) - len(new)) if len(other_at) else []
                if len(onew):
                    self._reserve(self._n)
                    self._strings.update(zip(map(other_terms.__getitem__, onew.tolist()),
                                             cols[other_at[onew]].tolist()))
        return cols

    def add_terms(self, words, word_at, strings, string_at, grow=True):
        """Columns of ``n`` distinct terms, some given by their words (rows of ``words``,
        (k, 3) or (k, 7) uint64: ASCII terms without NUL, zero padded) at positions
        ``word_at``, the others as str (``strings``) at positions ``string_at``; with
        ``grow`` new terms get the next columns, in position order, else -1."""
        words = np.asarray(words, dtype=np.uint64)
        word_at = np.asarray(word_at, dtype=np.int64)
        strings, string_at = list(strings), np.asarray(string_at, dtype=np.int64)
        n = len(word_at) + len(strings)
        width = words.shape[1]
        if width > self._width:
            long = words[:, self._width:].any(axis=1)
            if grow and long.any():
                self._widen(width)
            else:
                if long.any():  # longer than the terms held as words: in the dict, if at all
                    strings += _decode(words[long])
                    string_at = np.concatenate((string_at, word_at[long]))
                    words, word_at = words[~long], word_at[~long]
                words = np.ascontiguousarray(words[:, : self._width])
        elif width < self._width:
            padded = np.zeros((len(words), self._width), dtype=np.uint64)
            padded[:, :width] = words
            words = padded
        if strings:  # the str terms that fit in words are held as words
            keyable = np.fromiter(map(_keyable, strings, repeat(self._width)), dtype=bool, count=len(strings))
            if keyable.any():
                at = np.flatnonzero(keyable)
                words = np.concatenate((words, _encode([strings[i] for i in at.tolist()], self._width)))
                word_at = np.concatenate((word_at, string_at[at]))
                strings = [strings[i] for i in np.flatnonzero(~keyable).tolist()]
                string_at = string_at[~keyable]
        return self._add(words, strings, word_at, string_at, n, grow)

    def add_words(self, words, grow=True):
        """Columns of the distinct terms given by their words (see :meth:`add_terms`)."""
        words = np.asarray(words, dtype=np.uint64)
        return self.add_terms(words, np.arange(len(words)), [], [], grow)

    def add_strings(self, terms, grow=True):
        """Columns of the distinct str ``terms`` (see :meth:`add_terms`)."""
        terms = list(terms)
        return self.add_terms(np.zeros((0, self._width), dtype=np.uint64), [], terms, np.arange(len(terms)), grow)

    def terms(self, columns=None):
        """All terms, in column order (or the terms of ``columns``, in their order)."""
        if columns is None:
            out = np.empty(self._n, dtype=object)
            keyed = np.flatnonzero(self._keyed[: self._n])
            out[keyed] = _decode(self._words[keyed])
            if self._strings:
                out[np.fromiter(self._strings.values(), dtype=np.int64, count=len(self._strings))] = \
                    list(self._strings)
            return out.tolist()
        cols = np.asarray(columns, dtype=np.int64)
        out = np.empty(len(cols), dtype=object)
        keyed = self._keyed[cols]
        at = np.flatnonzero(keyed)
        out[at] = _decode(np.take(self._words, cols[at], axis=0))
        rest = np.flatnonzero(~keyed)
        if rest.size:
            name = {c: t for t, c in self._strings.items()}
            out[rest] = [name[c] for c in cols[rest].tolist()]
        return out.tolist()

    def utf8(self, columns):
        """``(data, offsets)``: the UTF-8 bytes of the terms of ``columns`` one after the
        other (uint8) and the offset of each (int64, one more than the terms), the model
        file's layout of a vocabulary (:meth:`from_utf8` reads it). The ASCII terms held as
        words are cut out of their words by numpy, with no Python string per term."""
        cols = np.asarray(columns, dtype=np.int64)
        keyed = self._keyed[cols]
        at, rest = np.flatnonzero(keyed), np.flatnonzero(~keyed)
        size = 8 * self._width
        raw = np.take(self._words, cols[at], axis=0).astype("<u8").view(np.uint8).reshape(-1, size)
        lengths = np.zeros(len(cols), dtype=np.int64)
        lengths[at] = np.count_nonzero(raw, axis=1)  # zero padded, and a keyed term holds no NUL
        others = []
        if rest.size:
            name = {c: t for t, c in self._strings.items()}
            others = [name[c].encode("utf-8") for c in cols[rest].tolist()]
            lengths[rest] = [len(b) for b in others]
        offsets = np.zeros(len(cols) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        klen = lengths[at]
        chars = raw[np.arange(size) < klen[:, None]]  # the keyed terms' bytes, in order
        if not rest.size:
            return chars, offsets
        data = np.empty(int(offsets[-1]), dtype=np.uint8)
        data[np.repeat(offsets[at] - (np.cumsum(klen) - klen), klen) + np.arange(chars.size)] = chars
        for i, b in zip(rest.tolist(), others):
            data[offsets[i]:offsets[i + 1]] = np.frombuffer(b, dtype=np.uint8)
        return data, offsets

    def sorted_columns(self):
        """Column numbers ordered by term, as Python sorts str (by code point).

        By code point is by UTF-8 bytes, so a term's first 24 UTF-8 bytes as three
        big-endian words (56 in seven, in a vocabulary of n-grams) sort it with one
        ``np.lexsort``; terms whose first bytes are equal (possible only beside a
        longer, dict-held term) are then put in order by Python.
        """
        n, width = self._n, self._width
        words = self._words[:n].copy()
        if self._strings:
            at = np.fromiter(self._strings.values(), dtype=np.int64, count=len(self._strings))
            prefix = np.array([t.encode("utf-8", "surrogatepass")[: 8 * width] for t in self._strings],
                              dtype=f"S{8 * width}")
            words[at] = prefix.view("<u8").reshape(-1, width)
        big = words.byteswap()  # as numbers, big-endian words compare like their bytes
        order = np.lexsort(tuple(big[:, k] for k in reversed(range(width))))
        ranked = big[order]
        tie = (ranked[1:] == ranked[:-1]).all(axis=1)
        if tie.any():
            name = {c: t for t, c in self._strings.items()}
            keyed = self._keyed
            edges = np.flatnonzero(np.diff(np.concatenate(([0], tie.view(np.int8), [0]))))
            for a, b in zip(edges[0::2].tolist(), edges[1::2].tolist()):  # tied runs a..b
                run = order[a:b + 1].tolist()
                text = {c: (_decode(self._words[[c]])[0] if keyed[c] else name[c]) for c in run}
                order[a:b + 1] = sorted(run, key=text.__getitem__)
        return order

    def subset(self, columns):
        """A new TermKeys whose column ``j`` is this one's column ``columns[j]``."""
        columns = np.asarray(columns, dtype=np.int64)
        out = TermKeys()
        out._width, out._words = self._width, np.zeros((0, self._width), dtype=np.uint64)
        out._reserve(len(columns))
        out._n = len(columns)
        keyed = self._keyed[columns]
        k = np.flatnonzero(keyed)
        out._words[k] = np.take(self._words, columns[k], axis=0)
        out._keyed[k] = True
        h = _hash([out._words[k, i] for i in range(self._width)])
        order = np.argsort(h, kind="stable")
        out._hashes, out._hash_cols = h[order], k[order]
        if self._strings:
            rest = np.flatnonzero(~keyed)
            name = {c: t for t, c in self._strings.items()}
            out._strings = {name[c]: j for j, c in zip(rest.tolist(), columns[rest].tolist())}
        return out

    def reorder(self, order):
        """Renumber the columns in place: column ``j`` becomes the term of column ``order[j]``
        (``order`` a permutation of all columns). No term is hashed or looked up again."""
        order = np.asarray(order, dtype=np.int64)
        new = np.empty(self._n, dtype=np.int64)
        new[order] = np.arange(self._n)
        self._words[: self._n] = np.take(self._words, order, axis=0)
        self._keyed[: self._n] = self._keyed[order]
        self._hash_cols = new[self._hash_cols]
        self._strings = {t: int(c) for t, c in zip(self._strings, new[list(self._strings.values())].tolist())}
        return new

    def merge_columns(self, other, order=None):
        """Add ``other``'s terms (a TermKeys); returns the column here of each of its columns.

        New terms are numbered in the order of ``other``'s columns ``order`` (all of them),
        or by default first the terms of up to 24 bytes held as words, then the others (in
        ``other``'s column order when it holds n-grams in seven words: the order in which
        three-word keys, with every longer term in the dict, number them)."""
        if order is None and other._width > _N_WORDS:
            n = other._n
            short = other._keyed[:n] & ~other._words[:n, _N_WORDS:].any(axis=1)
            order = np.concatenate((np.flatnonzero(short), np.flatnonzero(~short)))
        if order is not None:
            order = np.asarray(order, dtype=np.int64)
            keyed = other._keyed[order]
            at, rest = np.flatnonzero(keyed), np.flatnonzero(~keyed)
            name = {c: t for t, c in other._strings.items()}
            put = self.add_terms(np.take(other._words, order[at], axis=0), at,
                                 [name[c] for c in order[rest].tolist()], rest)
            cols = np.empty(len(other), dtype=np.int64)
            cols[order] = put
            return cols
        cols = np.empty(len(other), dtype=np.int64)
        keyed = np.flatnonzero(other._keyed[: other._n])
        cols[keyed] = self.add_words(other._words[keyed])
        if other._strings:
            at = np.fromiter(other._strings.values(), dtype=np.int64, count=len(other._strings))
            cols[at] = self.add_strings(list(other._strings))
        return cols


_STOP_KEYS = {}


def _stop_keys(stop_words):
    keys = _STOP_KEYS.get(stop_words)
    if keys is None:
        keys = _STOP_KEYS[stop_words] = TermKeys(sorted(stop_words))
    return keys


def _hash_ids(key):
    """A 64-bit mix of int64 keys (one to one: an odd multiplier, then a shift), for :func:`_group`."""
    h = key.astype(np.uint64) * _MIX[0]
    return h ^ (h >> _SHIFT)


def _number_ids(key):
    """``(first, inverse)``: an exact numbering of the distinct values of the int64 array ``key``."""
    first, inverse = _group(_hash_ids(key))
    if np.array_equal(key[first][inverse], key):
        return first, inverse
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    return first, inverse.ravel()


class _Terms:
    """The distinct terms of one n-gram order in a batch, numbered ``0 .. n - 1``: the
    words of those held as words (``keyed``; the others' rows are zero), the length
    of each (bytes) and the str of the others (number -> str)."""

    def __init__(self, words, sizes, keyed, strings):
        self.words, self.sizes, self.keyed, self.strings = words, sizes, keyed, strings

    def text(self, numbers):
        """The str of the terms ``numbers`` (int64 array)."""
        out = np.empty(len(numbers), dtype=object)
        keyed = self.keyed[numbers]
        out[keyed] = _decode(self.words[numbers[keyed]])
        out[~keyed] = [self.strings[i] for i in numbers[~keyed].tolist()]
        return out.tolist()

def _join(a, a_sizes, b):
    """Words (k, 7) of the strings ``a + " " + b``: ``a`` (k, w) words of strings of
    ``a_sizes`` bytes, ``b`` (k, 3) words; each joined string fits in 56 bytes. The
    space and ``b`` are shifted into place word by word (little-endian: byte ``p`` is
    bits ``8 * (p % 8)`` of word ``p // 8``)."""
    k = len(a)
    width = _WIDE + _N_WORDS + 1  # room for the shifted words' spill
    out = np.zeros((k, width), dtype=np.uint64)
    out[:, : a.shape[1]] = a
    flat = out.reshape(-1)
    base = np.arange(0, k * width, width)
    q, s = np.divmod(a_sizes, 8)
    flat[base + q] |= np.uint64(ord(" ")) << (8 * s).astype(np.uint64)
    q, s = np.divmod(a_sizes + 1, 8)
    up, down = (8 * s).astype(np.uint64), ((64 - 8 * s) % 64).astype(np.uint64)
    spill = s > 0  # (a shift by 64 would not give 0)
    at = base + q
    for j in range(b.shape[1]):
        w = b[:, j]
        flat[at] |= w << up
        at += 1
        flat[at] |= np.where(spill, w >> down, np.uint64(0))
    return out[:, :_WIDE]


def _tokens_numbered(joined, rows, starts, lengths, stop):
    """The batch's tokens other than stop words, numbered.

    Returns ``(rows, tokens, terms)``: each token's document and number, in the
    documents' order, and the :class:`_Terms` of the numbers: first the distinct tokens
    of up to 24 bytes (in :func:`_number`'s order), then the longer ones (in order of
    appearance; a dict numbers them, they are rare).
    """
    long = lengths > _KEY_BYTES
    short = np.flatnonzero(~long) if long.any() else None
    if short is not None:
        words = _words(joined, starts[short], lengths[short])
    else:
        words = _words(joined, starts, lengths)
    first, tokens = _number(words)
    distinct = np.stack([w[first] for w in words], axis=1)
    sizes = lengths[first] if short is None else lengths[short][first]
    names = []
    if short is not None:
        at = np.flatnonzero(long)
        local = {}
        long_numbers = np.array([local.setdefault(t, len(local)) for t in _long_terms(joined, starts[at], lengths[at])],
                                dtype=np.int64)
        names = list(local)
        numbers = np.empty(len(rows), dtype=np.int64)
        numbers[short] = tokens
        numbers[at] = len(distinct) + long_numbers
        tokens = numbers
    if stop is not None and len(tokens):
        is_stop = np.zeros(len(distinct) + len(names), dtype=bool)
        if len(distinct):
            is_stop[: len(distinct)] = _stop_keys(stop).add_words(distinct, grow=False) >= 0
        is_stop[len(distinct):] = [t in stop for t in names]
        if is_stop.any():
            keep = ~is_stop[tokens]
            rows, tokens = rows[keep], (np.cumsum(~is_stop) - 1)[tokens[keep]]
            distinct, sizes = distinct[~is_stop[: len(distinct)]], sizes[~is_stop[: len(sizes)]]
            names = [t for t, s in zip(names, is_stop[len(is_stop) - len(names):].tolist()) if not s]
    m = len(distinct)
    keyed = np.arange(m + len(names)) < m
    words = np.zeros((m + len(names), _N_WORDS), dtype=np.uint64)
    words[:m] = distinct
    sizes = np.concatenate((sizes, np.array([len(t) for t in names], dtype=np.int64)))
    return rows, tokens, _Terms(words, sizes, keyed, dict(enumerate(names, m)))


def _next_order(rows, tokens, unigrams, grams, at, n):
    """The ``n``-grams of the batch (``n >= 2``) from its ``(n - 1)``-grams.

    ``rows``, ``tokens``: each token's document and number (in ``unigrams``, a
    :class:`_Terms`); ``at = (starts, numbers)``: the token position where each
    ``(n - 1)``-gram of the batch starts and its number in ``grams``. Returns the same
    ``(starts, numbers), terms`` of the n-grams, numbered exactly by the pair (their
    ``(n - 1)``-gram's number, their last token's number).
    """
    prefix_starts, prefix_numbers = at
    last = prefix_starts + n - 1
    ok = last < len(tokens)
    ok[ok] = rows[last[ok]] == rows[prefix_starts[ok]]  # within one document
    at = np.flatnonzero(ok)
    starts, last = prefix_starts[at], last[at]
    prefix = prefix_numbers[at]
    first, numbers = _number_ids(prefix * np.int64(len(unigrams.sizes)) + tokens[last])
    p, t = prefix[first], tokens[last[first]]
    sizes = grams.sizes[p] + 1 + unigrams.sizes[t]
    keyed = grams.keyed[p] & unigrams.keyed[t] & (sizes <= 8 * _WIDE)
    words = np.zeros((len(first), _WIDE), dtype=np.uint64)
    k = np.flatnonzero(keyed)
    words[k] = _join(grams.words[p[k]], grams.sizes[p[k]], unigrams.words[t[k]])
    rest = np.flatnonzero(~keyed)
    strings = {}
    if rest.size:
        strings = dict(zip(rest.tolist(), map(" ".join, zip(grams.text(p[rest]), unigrams.text(t[rest])))))
    return (starts, numbers), _Terms(words, sizes, keyed, strings)


def _first_keys(rows, numbers, count):
    """Per number ``0 .. count - 1`` the position of its first occurrence in ``numbers``
    (each number occurs)."""
    first = np.empty(count, dtype=np.int64)
    positions = np.arange(len(numbers))
    first[numbers[::-1]] = positions[::-1]  # of a number's positions, the first written last
    if not np.all(first[numbers] <= positions):  # (numpy does not promise the order of the writes)
        first = np.unique(numbers, return_index=True)[1]
    return first


def ascii_term_ids(blobs, analyzer, keys, *, grow, first=False):
    """Term columns in ``keys`` (a :class:`TermKeys`) of a batch of ASCII documents
    (bytes), without Python work per token. Returns ``(rows, ids)``; with ``grow`` new
    terms are added to ``keys``, else unknown ones are dropped.

    Word n-grams (``analyzer.ngram_range``) are formed after stop-word removal, within
    a document, as scikit-learn does: the n-grams of a batch are numbered by the pair of
    their (n - 1)-gram's and last token's numbers (exact), and those of at most 56 bytes
    made of tokens of at most 24 are keyed by their words (:func:`_join`); the others
    are joined as str (one per distinct n-gram of the batch). New n-gram terms get their
    columns in order of first occurrence (the documents' order, each one's terms in the
    analyzer's order: words, then 2-grams, ...), as the general path numbers them; new
    single words (``ngram_range == (1, 1)``) in the order of their hashes.

    ``first`` (with ``grow``): also return, per column of ``keys``, the first occurrence
    of its term in the batch, ``row << 32 | position in the row's terms`` (-1: none).
    """
    joined, rows, starts, lengths = _tokens(blobs, analyzer.lowercase)
    rows, tokens, unigrams = _tokens_numbered(joined, rows, starts, lengths, analyzer.stop_words)
    lo, hi = analyzer.ngram_range
    levels = []  # per order kept: (rows, numbers, terms, the first occurrence's row and position in the row's terms)
    per_row = np.bincount(rows, minlength=len(blobs))
    row_start = np.cumsum(per_row) - per_row
    if lo == 1:
        at = _first_keys(rows, tokens, len(unigrams.sizes)) if hi > 1 or first else None
        levels.append((rows, tokens, unigrams, at))
    grams, at = unigrams, (np.arange(len(tokens)), tokens)
    before = np.zeros(len(blobs), dtype=np.int64)  # terms of the orders below n in each row (from lo)
    for n in range(2, hi + 1):
        if n - 1 >= lo:
            before += np.maximum(per_row - (n - 2), 0)
        at, grams = _next_order(rows, tokens, unigrams, grams, at, n)
        if n >= lo:
            levels.append((rows[at[0]], at[1], grams, (at[0], before.copy())))
        if not len(at[0]):
            break
    if not levels:  # (no n-gram of the lowest order wanted)
        none = np.zeros(0, dtype=np.int64)
        return (none, none, np.full(len(keys), -1, dtype=np.int64)) if first else (none, none)
    if hi > 1 or first:  # each term's first occurrence
        keys_of = []
        for level_rows, numbers, terms, where in levels:
            if isinstance(where, tuple):  # an n-gram order: the first of its starts
                gram_starts, base = where
                f = gram_starts[_first_keys(level_rows, numbers, len(terms.sizes))]
                r = rows[f]
                keys_of.append((r << 32) | (base[r] + f - row_start[r]))
            else:
                r = rows[where]
                keys_of.append((r << 32) | (where - row_start[r]))
        order_keys = np.concatenate(keys_of)
    words = np.concatenate([t.words if t.words.shape[1] == _WIDE
                            else np.pad(t.words, ((0, 0), (0, _WIDE - t.words.shape[1]))) for _, _, t, _ in levels]) \
        if len(levels) > 1 else levels[0][2].words
    keyed = np.concatenate([t.keyed for _, _, t, _ in levels])
    offsets = np.cumsum([0] + [len(t.sizes) for _, _, t, _ in levels])
    strings = [s for _, _, t, _ in levels for s in t.text(np.flatnonzero(~t.keyed))]
    if hi > 1 and grow:  # the call's positions: the terms by first occurrence
        rank = np.empty(len(keyed), dtype=np.int64)
        rank[np.argsort(order_keys, kind="stable")] = np.arange(len(keyed))
    else:
        rank = np.arange(len(keyed))
    k, rest = np.flatnonzero(keyed), np.flatnonzero(~keyed)
    cols = keys.add_terms(words[k], rank[k], strings, rank[rest], grow)[rank]
    out_rows = np.concatenate([r for r, _, _, _ in levels]) if len(levels) > 1 else levels[0][0]
    ids = np.concatenate([cols[o:][n] for (_, n, _, _), o in zip(levels, offsets)]) if len(levels) > 1 \
        else cols[levels[0][1]]
    if not grow:
        keep = ids >= 0
        out_rows, ids = out_rows[keep], ids[keep]
    if not first:
        return out_rows, ids
    firsts = np.full(len(keys), -1, dtype=np.int64)
    firsts[cols] = order_keys
    return out_rows, ids, firsts
