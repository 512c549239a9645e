"""Tokenising and term numbering: the per-token work, kept free of scikit-learn imports.

Worker processes (joblib, Dask) unpickle an :class:`Analyzer` and run
:func:`batch_term_ids`; importing this module costs only numpy and the standard
library, so starting workers is cheap.

ASCII documents under the default token pattern are tokenised by numpy, with no
Python work per token (:mod:`textnb.text.ascii_tokens`). Elsewhere speed comes from
keeping per-token work in C: tokens are found by ``re.findall``,
filtered with ``itertools.filterfalse(stop_words.__contains__, ...)``, stemmed through
a dict cache whose ``__missing__`` calls the stemmer once per distinct word, and
mapped to column numbers with ``map(vocabulary.__getitem__, ...)`` over a whole batch.
"""

import codecs
import re
import unicodedata
from itertools import filterfalse, repeat

import numpy as np

from textnb.io import files
from textnb.text.ascii_tokens import TermKeys, ascii_term_ids, supports
from textnb.text.stemmers import STEMMERS
from textnb.text.stop_words import ENGLISH_STOP_WORDS
from textnb.core.model_schema import MAX_NGRAM, pattern_problem
from textnb.core.errors import DataError, InputError, ParameterError, not_text, short_repr

__all__ = ["TOKEN_PATTERN", "ANALYZERS", "Analyzer", "Decoder", "Preprocessor", "accent_function", "char_ngrams",
           "analyzer_from_params", "check_stop_words", "fitting_analyzer", "char_wb_ngrams", "reader_decoding", "model_decoding", "compile_token_pattern", "stop_word_set", "strip_accents_ascii", "strip_accents_unicode", "TermKeys", "batch_term_ids", "cell_counts", "count_batch", "csr_counts", "text_parts", "StoredVocabulary", "decode_terms", "encode_terms", "growing_vocabulary",
           "regex_tokenize"]

TOKEN_PATTERN = r"(?u)\b\w\w+\b"
# Same matches as TOKEN_PATTERN, 1.5x faster: a greedy run of two or more word
# characters can only start after a non-word character or at a failed one-character
# run, and always ends before a non-word character, so the \b anchors add nothing.
_FAST_EQUIVALENT = {TOKEN_PATTERN: r"\w\w+", r"\b\w\w+\b": r"\w\w+"}
_DEFAULT_TOKEN = re.compile(_FAST_EQUIVALENT[TOKEN_PATTERN])


def regex_tokenize(text):
    """Lowercase ``text`` and return its tokens under the default pattern."""
    return _DEFAULT_TOKEN.findall(text.lower())


class _StemCache(dict):
    """token -> stem, computing each distinct token's stem once."""

    def __init__(self, stem):
        super().__init__()
        self._stem = stem

    def __missing__(self, token):
        stem = self[token] = self._stem(token)
        return stem

    def __reduce__(self):  # pickles without its (large) cache, e.g. for joblib workers
        return (_StemCache, (self._stem,))


def _make_stemmer(name):
    if name is None:
        return None
    if isinstance(name, str) and name in STEMMERS:
        return STEMMERS[name]
    raise ParameterError(f"stemmer must be None, 'porter' or 'snowball'; got {name!r}")


def stop_word_set(stop_words):
    if stop_words is None:
        return None
    if stop_words == "english":
        return ENGLISH_STOP_WORDS
    if isinstance(stop_words, str):
        raise ParameterError(f"stop_words must be None, 'english' or a list of words; got {stop_words!r}")
    return frozenset(stop_words)


def strip_accents_unicode(s):
    """``s`` with combining marks removed after NFKD normalisation (scikit-learn's
    ``strip_accents_unicode``: ASCII text is returned as is)."""
    if s.isascii():
        return s
    normalized = unicodedata.normalize("NFKD", s)
    return "".join([c for c in normalized if not unicodedata.combining(c)])


def strip_accents_ascii(s):
    """``s`` NFKD-normalised with every non-ASCII character dropped (scikit-learn's
    ``strip_accents_ascii``)."""
    return unicodedata.normalize("NFKD", s).encode("ASCII", "ignore").decode("ASCII")


_ACCENTS = {"ascii": strip_accents_ascii, "unicode": strip_accents_unicode}
_INPUTS = ("content", "file", "filename")
_DECODE_ERRORS = ("strict", "ignore", "replace")
ANALYZERS = ("word", "char", "char_wb")


def accent_function(strip_accents):
    """The function ``strip_accents`` names ('ascii', 'unicode', a callable; None or
    False: no stripping)."""
    if not strip_accents:
        return None
    if callable(strip_accents):
        return strip_accents
    if isinstance(strip_accents, str) and strip_accents in _ACCENTS:
        return _ACCENTS[strip_accents]
    raise ParameterError(f'Invalid value for "strip_accents": {strip_accents}')


def invalid_document(doc):
    """The error for a document the default analysis cannot read (None, a number: a
    custom ``preprocessor`` or ``analyzer`` may read anything)."""
    # (its repr on one line, cut with "..." at 80 characters: a cut at 40 lost a path's end and its quote)
    return InputError(f"{type(doc).__name__} {short_repr(doc)} is an invalid document, expected byte or unicode string.")


class Preprocessor:
    """Document -> document before tokenising: lowercase, then strip accents (in
    scikit-learn's order). Picklable."""

    def __init__(self, lowercase=True, strip_accents=None):
        self.lowercase = lowercase
        self.strip = accent_function(strip_accents)

    def __call__(self, doc):
        if not isinstance(doc, str):
            raise invalid_document(doc)
        if self.lowercase:
            doc = doc.lower()
        if self.strip is not None:
            doc = self.strip(doc)
        return doc


class Decoder:
    """Raw input -> str, as scikit-learn's ``decode``: ``input`` is 'content' (str or
    bytes documents), 'file' (objects with ``read``) or 'filename' (paths); bytes are
    decoded with ``encoding`` and ``decode_error``."""

    def __init__(self, input="content", encoding="utf-8", decode_error="strict"):
        if input not in _INPUTS:
            raise ParameterError(f"input must be one of {_INPUTS}; got {input!r}")
        if decode_error not in _DECODE_ERRORS:
            raise ParameterError(f"decode_error must be one of {_DECODE_ERRORS}; got {decode_error!r}")
        try:  # an unknown encoding now, not per document
            codecs.lookup(encoding)
        except (LookupError, TypeError):
            raise ParameterError(f"unknown encoding: {encoding!r}") from None
        self.input, self.encoding, self.decode_error = input, encoding, decode_error

    def __call__(self, doc):
        if self.input == "filename":
            with open(doc, "rb") as fh:
                doc = fh.read()
        elif self.input == "file":
            doc = doc.read()
        if isinstance(doc, bytes):
            doc = doc.decode(self.encoding, self.decode_error)
        if isinstance(doc, float) and np.isnan(doc):
            raise InputError("np.nan is an invalid document, expected byte or unicode string.")
        return doc  # anything else as it is: a custom preprocessor may read it (a dict, say)

    @property
    def plain(self):
        """True when str documents pass unchanged and ASCII bytes decode to themselves."""
        return self.input == "content" and codecs.lookup(self.encoding).name in ("utf-8", "ascii", "latin-1",
                                                                                 "cp1252", "iso8859-15")


def reader_decoding(analyzer):
    """How the document readers decode bytes for ``analyzer`` (their ``decode``:
    :func:`textnb.io.corpus.to_tokenizable`): True, their UTF-8 / Windows-1252 / Latin-1 guess;
    for a Vectorizer given an ``encoding`` or ``decode_error`` other than the defaults
    ('utf-8', 'strict'), its ``(encoding, decode_error)``, with which the readers decode a
    file's or bytes' content, and cut its text at ``max_bytes`` UTF-8 bytes as every text is
    (found by a user trial: the vectorizer was handed the first ``max_bytes`` bytes to decode,
    so a Latin-1 file kept more of its text than the same text as a str)."""
    decoder = getattr(analyzer, "decoder", None)
    return True if decoder is None else _decoding(decoder.encoding, decoder.decode_error)


def _decoding(encoding, decode_error):
    """:func:`reader_decoding` of a decoder of ``encoding`` and ``decode_error``."""
    if codecs.lookup(encoding).name == "utf-8" and decode_error == "strict":
        return True
    return encoding, decode_error


def model_decoding(model):
    """:func:`reader_decoding` of a fitted text model's analyzer: a model-file scorer's
    (``analyzer``), a TextClassifier's or a text Pipeline's vectorizer's; True (the readers'
    guess) for any other model. The readers of documents for that model (``predict``,
    ``topicfilter``, ``spamfilter``) then decode a file's bytes as the library's ``predict``
    of a Path does."""
    from textnb.core.wrapping import text_vectorizer

    analyzer = getattr(model, "analyzer", None)
    if analyzer is not None:
        return reader_decoding(analyzer)
    # a vectorizer's parameters, which its analyzer's decoder is built of (the mail tools ask
    # it once a message, and building the analyzer took 56 µs)
    vectorizer = text_vectorizer(model)
    try:
        return _decoding(getattr(vectorizer, "encoding", "utf-8"), getattr(vectorizer, "decode_error", "strict"))
    except (LookupError, TypeError):  # (not a codec: the vectorizer refuses it where it decodes)
        return True


_WHITE_SPACES = re.compile(r"\s\s+")


def char_ngrams(text, lo, hi):
    """Character n-grams of ``text`` (runs of white space first made one space), as
    scikit-learn's ``analyzer='char'``."""
    text = _WHITE_SPACES.sub(" ", text)
    n_chars = len(text)
    out = list(text) if lo == 1 else []
    for n in range(max(lo, 2), min(hi, n_chars) + 1):
        out.extend(text[i:i + n] for i in range(n_chars - n + 1))
    return out


def char_wb_ngrams(text, lo, hi):
    """Character n-grams inside words, each word padded with one space on each side,
    as scikit-learn's ``analyzer='char_wb'`` (a word shorter than n counts once)."""
    out = []
    append = out.append
    for w in _WHITE_SPACES.sub(" ", text).split():
        w = " " + w + " "
        w_len = len(w)
        for n in range(lo, hi + 1):
            offset = 0
            append(w[offset:offset + n])
            while offset + n < w_len:
                offset += 1
                append(w[offset:offset + n])
            if offset == 0:  # a word shorter than n: counted once
                break
    return out


class Analyzer:
    """Turns one document into its list of terms.

    Order, as in scikit-learn: decode (``input``, ``encoding``, ``decode_error``), then
    with a callable ``analyzer`` just that; else preprocess (``preprocessor``, or
    lowercase then ``strip_accents``), and for ``analyzer='word'`` find tokens
    (``tokenizer``, or ``token_pattern``), drop stop words, stem (textnb's addition), form
    word n-grams (joined by one space); for 'char' / 'char_wb' character n-grams.
    Picklable (when the callables given are), so it travels to worker processes.

    ``plain`` is True for the default word analysis of str documents, which
    :mod:`textnb.text.ascii_tokens` can do with numpy for ASCII documents.
    """

    def __init__(self, *, lowercase=True, token_pattern=TOKEN_PATTERN, stop_words=None,
                 stemmer=None, ngram_range=(1, 1), analyzer="word", strip_accents=None, preprocessor=None,
                 tokenizer=None, input="content", encoding="utf-8", decode_error="strict"):
        self.lowercase = lowercase
        self.decoder = Decoder(input, encoding, decode_error)
        self.custom = analyzer if callable(analyzer) else None
        if self.custom is None and analyzer not in ANALYZERS:
            raise ParameterError(f"{analyzer} is not a valid tokenization scheme/analyzer")
        self.kind = "custom" if self.custom is not None else analyzer
        self.preprocess = preprocessor if preprocessor is not None else Preprocessor(lowercase, strip_accents)
        self.tokenizer = tokenizer
        if self.kind == "word" and tokenizer is None:
            self.pattern = compile_token_pattern(token_pattern)
        else:  # not used to find tokens (a pattern for ascii_tokens.supports to reject)
            self.pattern = re.compile("")
        # the runs of non-white-space (spamfilter's token_text): str.split finds the same
        # tokens, white space being str.isspace for both, in 0.6 of findall's time
        self.split = self.kind == "word" and tokenizer is None and token_pattern in _SPLIT_PATTERNS
        self.stop_words = stop_word_set(stop_words)
        stem = _make_stemmer(stemmer)
        self.stems = _StemCache(stem) if stem is not None else None
        try:
            lo, hi = ngram_range
            ok = 1 <= lo <= hi <= MAX_NGRAM
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise ParameterError(f"Invalid value for ngram_range={ngram_range!r}: must be (min_n, max_n) with "
                             f"1 <= min_n <= max_n <= {MAX_NGRAM}")
        self.ngram_range = (int(lo), int(hi))
        self.plain = (self.kind == "word" and tokenizer is None and preprocessor is None
                      and accent_function(strip_accents) is None and self.decoder.plain)

    def __call__(self, doc):
        if not isinstance(doc, str) or not self.plain:
            doc = self.decoder(doc)
            if self.plain and not isinstance(doc, str):
                raise invalid_document(doc)
        if self.custom is not None:
            return self.custom(doc)
        if self.plain:
            if self.lowercase:
                doc = doc.lower()
            tokens = doc.split() if self.split else self.pattern.findall(doc)
        else:
            doc = self.preprocess(doc)
            lo, hi = self.ngram_range
            if self.kind == "char":
                return char_ngrams(doc, lo, hi)
            if self.kind == "char_wb":
                return char_wb_ngrams(doc, lo, hi)
            tokens = (self.tokenizer(doc) if self.tokenizer is not None else doc.split() if self.split
                      else self.pattern.findall(doc))
        if self.stop_words is not None:
            tokens = list(filterfalse(self.stop_words.__contains__, tokens))
        if self.stems is not None:
            tokens = list(map(self.stems.__getitem__, tokens))
        if not isinstance(tokens, list):
            tokens = list(tokens)
        lo, hi = self.ngram_range
        if hi == 1:
            return tokens
        return _word_ngrams(tokens, lo, hi)


#: Vectorizer parameters that define how a document becomes terms (Analyzer's arguments)
ANALYZER_PARAMS = ("lowercase", "token_pattern", "stop_words", "stemmer", "ngram_range", "analyzer",
                   "strip_accents", "preprocessor", "tokenizer", "input", "encoding", "decode_error")


def check_stop_words(stop_words, preprocess, tokenize, *, stacklevel=2):
    """Warn (a UserWarning, scikit-learn's words) when preprocessing and tokenizing the stop
    words gives tokens that are not stop words: those are never removed (``Call`` with
    ``lowercase=True``: documents give ``call``). The list is left as it is, as scikit-learn
    leaves it. The one check of every fit that learns a vocabulary (the Vectorizer's
    ``build_analyzer``, :func:`fitting_analyzer`). Returns True (consistent), False, or
    ``"error"`` when the check could not run (a custom preprocessor or tokenizer that takes
    other documents), as scikit-learn's ``_check_stop_words_consistency``."""
    import warnings

    try:
        inconsistent = {token for w in stop_words or () for token in tokenize(preprocess(w))
                        if token not in stop_words}
    except Exception:  # a custom preprocessor or tokenizer that takes other documents
        return "error"
    if inconsistent:
        warnings.warn("Your stop_words may be inconsistent with your preprocessing. Tokenizing the stop "
                      f"words generated tokens {sorted(inconsistent)!r} not in stop_words.", UserWarning,
                      stacklevel=stacklevel + 1)
    return not inconsistent


def fitting_analyzer(params):
    """:func:`analyzer_from_params` for a fit that learns a vocabulary from documents: the
    stop words checked first (:func:`check_stop_words`), as the Vectorizer's ``fit`` checks
    them (the command line's trainer, ``textnb evaluate``'s folds and the multi-label trainer
    build their analyzer from parameters, without a Vectorizer)."""
    analyzer = analyzer_from_params(params)
    if analyzer.kind == "word" and analyzer.stop_words:
        check_stop_words(analyzer.stop_words, analyzer.preprocess,
                         analyzer.tokenizer if analyzer.tokenizer is not None else analyzer.pattern.findall,
                         stacklevel=2)
    return analyzer


def analyzer_from_params(params):
    """The :class:`Analyzer` of a Vectorizer's parameters (a dict: ``get_params()`` or a
    model file's, defaults filled in). The one place a Vectorizer's settings become an
    analyzer: the estimator, the command line's trainer and the scikit-learn-free scorer
    all call it."""
    kw = {name: params[name] for name in ANALYZER_PARAMS if name in params}
    if "ngram_range" in kw:
        kw["ngram_range"] = tuple(kw["ngram_range"])
    return Analyzer(**kw)


def _word_ngrams(tokens, lo, hi):
    n_tokens = len(tokens)
    out = list(tokens) if lo == 1 else []
    for n in range(max(lo, 2), min(hi, n_tokens) + 1):
        out.extend(map(" ".join, zip(*(tokens[i:] for i in range(n)))))
    return out


#: Token patterns whose tokens are ``str.split``'s (:class:`Analyzer`'s ``split``)
_SPLIT_PATTERNS = (r"\S+", r"(?u)\S+")


def compile_token_pattern(token_pattern):
    """``token_pattern`` compiled (its fast equivalent for the default), after the checks
    model files are loaded by; ValueError for a pattern that does not compile, captures
    more than one group or is refused."""
    try:
        pattern = re.compile(_FAST_EQUIVALENT.get(token_pattern, token_pattern))
    except (re.error, TypeError) as exc:
        raise ParameterError(f"token_pattern {token_pattern!r} is not a valid regular expression ({exc})") from None
    if pattern.groups > 1:
        raise ParameterError("token_pattern may capture at most one group (More than 1 capturing group in token "
                         "pattern. Only a single group should be captured.)")
    problem = pattern_problem(token_pattern)  # the rule model files are loaded by
    if problem:
        raise ParameterError(f"token_pattern: {problem}")
    return pattern


def batch_term_ids(docs, analyzer, vocabulary, *, grow):
    """Column numbers of every term of a batch of documents, and their row.

    ``docs`` holds str documents, or bytes ones that are known to be ASCII.
    ``vocabulary`` maps term -> column: a :class:`textnb.text.ascii_tokens.TermKeys`
    (fastest) or a dict (with ``grow``, a :func:`growing_vocabulary`). With ``grow``
    new terms get the next columns; otherwise unknown terms are dropped.
    Returns ``(rows, ids)``, int64 arrays (in no particular order).

    ASCII documents under an analyzer :func:`textnb.text.ascii_tokens.supports` are
    tokenised by numpy (:mod:`textnb.text.ascii_tokens`); the others term by term here.
    """
    keys = vocabulary if isinstance(vocabulary, TermKeys) else None
    fast = keys is not None and supports(analyzer)
    blobs, where, texts, text_where = [], [], [], []
    for i, doc in enumerate(docs):
        if fast and isinstance(doc, (str, bytes)) and doc.isascii():  # others: the decoder's error
            blobs.append(doc if isinstance(doc, bytes) else doc.encode("ascii"))
            where.append(i)
        else:
            texts.append(doc)  # bytes: decoded by the analyzer (its encoding)
            text_where.append(i)
    if keys is None:
        return _python_term_ids(texts, analyzer, vocabulary, grow)
    if blobs and texts and grow and analyzer.ngram_range[1] > 1:
        return _mixed_ngram_ids(blobs, where, texts, text_where, analyzer, vocabulary)
    parts = []
    if blobs:
        rows, ids = ascii_term_ids(blobs, analyzer, vocabulary, grow=grow)
        parts.append((np.asarray(where, dtype=np.int64)[rows], ids))
    if texts:
        local = growing_vocabulary()  # the batch's distinct terms, then all at once
        rows, ids = _python_term_ids(texts, analyzer, local, True)
        columns = vocabulary.add_strings(list(local), grow)[ids]
        keep = columns >= 0
        parts.append((np.asarray(text_where, dtype=np.int64)[rows[keep]], columns[keep]))
    if not parts:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    if len(parts) == 1:
        return parts[0]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def _mixed_ngram_ids(blobs, where, texts, text_where, analyzer, keys):
    """batch_term_ids with ``grow`` of ASCII documents ``blobs`` and others ``texts`` (at
    ``where`` / ``text_where`` in the batch) under an n-gram analyzer: new terms get their
    columns in order of first occurrence in the batch, as the general path numbers them
    (a batch's rows list their cells in that order)."""
    local = keys if not len(keys) else TermKeys()  # (an empty vocabulary is renumbered in place)
    rows, ids, firsts = ascii_term_ids(blobs, analyzer, local, grow=True, first=True)
    where, text_where = np.asarray(where, dtype=np.int64), np.asarray(text_where, dtype=np.int64)
    firsts = (where[firsts >> 32] << 32) | (firsts & 0xFFFFFFFF)  # (every column of local occurs)
    text_vocab = growing_vocabulary()
    text_rows, text_ids = _python_term_ids(texts, analyzer, text_vocab, True)  # in the documents' order
    at = np.unique(text_ids, return_index=True)[1]  # each term's first occurrence
    row_start = np.searchsorted(text_rows, np.arange(len(texts)))
    text_firsts = (text_where[text_rows[at]] << 32) | (at - row_start[text_rows[at]])
    text_cols = local.add_strings(list(text_vocab))
    order = np.full(len(local), np.iinfo(np.int64).max, dtype=np.int64)
    order[: len(firsts)] = firsts
    order[text_cols] = np.minimum(order[text_cols], text_firsts)
    order = np.argsort(order, kind="stable")
    cols = keys.reorder(order) if local is keys else keys.merge_columns(local, order)
    return (np.concatenate((where[rows], text_where[text_rows])),
            cols[np.concatenate((ids, text_cols[text_ids]))])


def _python_term_ids(docs, analyzer, vocabulary, grow):
    """batch_term_ids for str documents, one analyzer call per document."""
    tokens = []
    lengths = np.empty(len(docs), dtype=np.int64)
    extend = tokens.extend
    for i, doc in enumerate(docs):
        terms = analyzer(doc)
        lengths[i] = len(terms)
        extend(terms)
    if grow:
        ids = np.fromiter(map(vocabulary.__getitem__, tokens), dtype=np.int64, count=len(tokens))
    else:
        ids = np.fromiter(map(vocabulary.get, tokens, repeat(-1)), dtype=np.int64, count=len(tokens))
    rows = np.repeat(np.arange(len(docs), dtype=np.int64), lengths)
    if not grow:
        keep = ids >= 0
        ids, rows = ids[keep], rows[keep]
    return rows, ids


def count_batch(docs, analyzer, vocabulary, *, grow):
    """CSR counts (n_docs, len(vocabulary)) of a batch of documents (see batch_term_ids).

    Tokenising holds some 20 times its text in arrays, so the documents are tokenised in
    parts of about :data:`textnb.io.files.BATCH_BYTES` of text each (:func:`text_parts`),
    each part's counts kept: a Vectorizer fitted on a few hundred long documents peaks at
    the memory of one part, not twenty times the corpus. The same matrix either way (a
    term's column is the one the vocabulary gives it, whichever part meets it first)."""
    parts = text_parts(docs)
    if len(parts) == 1:
        rows, ids = batch_term_ids(docs, analyzer, vocabulary, grow=grow)
        return csr_counts(rows, ids, len(docs), len(vocabulary))
    import scipy.sparse as sp

    data, indices, indptr = [], [], [np.zeros(1, dtype=np.int64)]
    for lo, hi in parts:
        rows, ids = batch_term_ids(docs[lo:hi], analyzer, vocabulary, grow=grow)
        d, i, p = cell_counts(rows, ids, hi - lo, len(vocabulary))
        data.append(d)
        indices.append(i)
        indptr.append(p[1:] + indptr[-1][-1])
    return sp.csr_matrix((np.concatenate(data), np.concatenate(indices), np.concatenate(indptr)),
                         shape=(len(docs), len(vocabulary)))


def text_parts(docs):
    """``(start, stop)`` of consecutive parts of the documents ``docs`` (a sequence), each
    ending with the document whose text brings it to :data:`textnb.io.files.BATCH_BYTES`
    (a str's characters, bytes' length: :func:`textnb.io.files.bounded_runs`), the last
    with the last document."""
    def length(i):
        doc = docs[i]
        return len(doc) if isinstance(doc, (str, bytes, bytearray)) else 0

    parts = [(run[0], run[-1] + 1) for run in files.bounded_runs(range(len(docs)), len(docs) or 1, length)]
    return parts or [(0, 0)]


def encode_terms(terms, columns=None):
    """The model-file form of a vocabulary: ``{"terms_utf8": bytes, "terms_offsets": ...}``
    (a fixed-width unicode array would cost 4 bytes x the longest term for every term).

    ``terms``: the terms in column order (str), or a :class:`TermKeys` and its ``columns``
    in the vocabulary's order (encoded from its words by numpy: the same arrays).

    Raises :class:`~textnb.core.errors.DataError` for a term holding a lone surrogate
    (``\\ud800``: no character, no UTF-8 bytes), which only documents given to the library
    as str can hold (every reader of files refuses them or decodes around them:
    :func:`~textnb.core.errors.lone_surrogate`): no model file is written that its reader
    would refuse (*was*: Python's UnicodeEncodeError).
    """
    try:
        if isinstance(terms, TermKeys):
            data, offsets = terms.utf8(columns)
            return {"terms_utf8": data, "terms_offsets": offsets}
        encoded = [t.encode("utf-8") for t in terms]
    except UnicodeEncodeError as exc:
        raise DataError(f"the term {exc.object!r}: {not_text(exc.object, exc.start)}, which a model "
                        "file cannot hold (decode the documents to text: bytes.decode(..., errors='replace'))") from None
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(b) for b in encoded], out=offsets[1:])
    return {"terms_utf8": np.frombuffer(b"".join(encoded), dtype=np.uint8).copy(), "terms_offsets": offsets}


def decode_terms(state):
    """The vocabulary (list of str, in column order) from :func:`encode_terms`'s arrays.

    Raises ValueError for inconsistent offsets or a term held twice, UnicodeDecodeError
    for bad bytes.
    """
    if "terms" in state:  # model files written before the UTF-8 layout
        terms = [str(t) for t in np.asarray(state["terms"]).tolist()]
    else:
        terms = _decode_utf8_terms(state)
    if len(set(terms)) != len(terms):
        raise ValueError("the vocabulary holds a term twice")
    return terms


class StoredVocabulary:
    """A model file's vocabulary for prediction: checked when read, decoded only on demand.

    The checks are :func:`decode_terms`'s (offsets, UTF-8, no term twice), done on the
    arrays; :meth:`term_keys` cuts the ASCII terms into :class:`TermKeys` words with
    numpy, so a batch is scored without a Python string per vocabulary term, and
    :meth:`terms` decodes them all (for a dict lookup of a few documents).
    """

    def __init__(self, state):
        self._terms = self._keys = None
        if "terms" in state:  # model files written before the UTF-8 layout
            self._terms = decode_terms(state)
            self._n = len(self._terms)
            return
        data, offsets = np.asarray(state["terms_utf8"]), np.asarray(state["terms_offsets"])
        if data.dtype != np.uint8 or offsets.dtype.kind not in "iu":  # (no cast of floats: numpy warned of a NaN's,
            raise ValueError("the vocabulary arrays are not UTF-8 bytes and integer offsets")  # a line before the error)
        offsets = offsets.astype(np.int64)
        _check_offsets(offsets, len(data))
        data.tobytes().decode("utf-8")  # valid as a whole, and no term starts inside a character:
        inner = offsets[:-1][offsets[:-1] < len(data)]
        if np.any((data[inner] & 0xC0) == 0x80):
            raise ValueError("a vocabulary term starts inside a UTF-8 character")
        self._keys, self._others = TermKeys.from_utf8(data, offsets)  # raises for a term twice
        self._n = len(offsets) - 1

    def __len__(self):
        return self._n

    def terms(self):
        """All terms (list of str), in column order."""
        if self._terms is None:
            self._terms = self._keys.terms()
        return self._terms

    def term_keys(self):
        """The vocabulary as :class:`TermKeys` (column ``j`` = term ``j``)."""
        if self._keys is None:
            self._keys = TermKeys(self._terms)
        return self._keys


def _check_offsets(offsets, n_bytes):
    if offsets.ndim != 1 or offsets.size == 0 or offsets[0] != 0 or offsets[-1] != n_bytes \
            or np.any(np.diff(offsets) < 0):
        raise ValueError("vocabulary offsets are inconsistent")


def _decode_utf8_terms(state):
    data = np.asarray(state["terms_utf8"], dtype=np.uint8).tobytes()
    offsets = np.asarray(state["terms_offsets"], dtype=np.int64)
    _check_offsets(offsets, len(data))
    return [data[a:b].decode("utf-8") for a, b in zip(offsets[:-1].tolist(), offsets[1:].tolist())]


def cell_counts(rows, ids, n_rows, n_cols):
    """``(data, indices, indptr)`` of the (n_rows, n_cols) CSR matrix counting each
    ``(rows[i], ids[i])`` pair, with sorted indices and no duplicates: one value sort of
    the pairs' cell numbers (faster than a COO -> CSR conversion followed by
    ``sum_duplicates``; numpy's default sort, vectorised on numpy 2 with AVX2 or AVX-512,
    four to five times faster than its stable sort here). numpy only."""
    cells = np.sort(rows * max(n_cols, 1) + ids)
    if cells.size:
        new = np.empty(cells.size, dtype=bool)
        new[0] = True
        np.not_equal(cells[1:], cells[:-1], out=new[1:])
        starts = np.flatnonzero(new)
        counts = np.diff(np.append(starts, cells.size))
        cells = cells[starts]
    else:
        counts = np.zeros(0, dtype=np.int64)
    row_of, indices = np.divmod(cells, max(n_cols, 1))
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(row_of, minlength=n_rows), out=indptr[1:])
    return counts.astype(np.int64), indices, indptr


def csr_counts(rows, ids, n_rows, n_cols):
    """The int64 CSR matrix of :func:`cell_counts`."""
    import scipy.sparse as sp  # the scikit-learn-free scorer uses cell_counts and never needs it

    return sp.csr_matrix(cell_counts(rows, ids, n_rows, n_cols), shape=(n_rows, n_cols))


class _GrowingVocabulary(dict):
    """term -> column; looking up a new term gives it the next free column.

    A dict subclass with ``__missing__`` rather than a ``defaultdict`` whose factory
    is its own ``__len__``: that bound method is a reference cycle, and one batch
    vocabulary per batch then waited for the cyclic garbage collector (RSS grew by
    about 25 MB per 10,000 documents).
    """

    __slots__ = ()

    def __missing__(self, term):
        column = self[term] = len(self)
        return column


def growing_vocabulary(terms=()):
    """A term -> column dict that gives each new term the next free column."""
    vocab = _GrowingVocabulary()
    for t in terms:
        vocab[t]
    return vocab


