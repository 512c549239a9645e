"""The map step of training and prediction, run in threads or worker processes.

Only numpy and textnb's light modules are imported here (no scikit-learn), so a
worker process starts quickly.
"""

import zlib
from contextlib import contextmanager
from functools import partial
from pathlib import PurePath

import numpy as np

from textnb.io.corpus import MessageStream, Skipped, document_size, gather_documents, to_tokenizable
from textnb.io import files
from textnb.io.files import bounded_runs
from textnb.io.mailread import is_mbox, split_messages
from textnb.text.tokenize import TermKeys, batch_term_ids, csr_counts, reader_decoding

__all__ = ["count_parts", "count_read", "count_shard", "inherited", "read_batch", "read_items", "sized_items",
           "score_batch", "term_ids"]

#: State handed to forked worker processes by inheritance (see :func:`inherited`).
_INHERITED = {}


def count_shard(docs, y_index, weights, analyzer, n_classes, max_bytes, rows=False):
    """Per-class term sums of one batch: the map step of training. A list of
    :func:`count_read` results (:func:`count_parts`: one for a batch of files, a large
    mbox file's messages a part at a time).

    Each is ``(terms, (cells, tf, df, term_tf, term_df), class_count, skipped, n_docs)``,
    ``terms`` a :class:`textnb.text.ascii_tokens.TermKeys` of the batch's terms, the non-zero
    cells ``class * len(terms) + term`` of the per-class summed weighted counts and
    document frequencies, and the per-term *unweighted* counts and document frequencies
    (pruning by ``min_df`` / ``max_df`` / ``max_features`` ignores sample weights, as a
    ``CountVectorizer`` in a Pipeline does).

    With ``rows`` the per-class sums are left empty and a sixth element holds the
    documents themselves, for models that re-score them (:class:`~textnb.naive_bayes.discriminative.DiscriminativeNB`):
    ``(y_index, weights, lengths, terms, counts, hashes)`` -- the class index and weight of
    each document read (an mbox file's messages each with the file's), each one's number of distinct terms, its (term, count) pairs in term order,
    and a CRC-32 of its text (a content key for sampling that does not depend on the
    batches).
    """
    return count_parts(read_batch(docs, max_bytes, reader_decoding(analyzer)), y_index, weights, analyzer, n_classes,
                       rows)


def count_parts(read, y_index, weights, analyzer, n_classes, rows=False):
    """:func:`count_read` of a batch read already (:func:`read_batch`'s ``read``), a part of
    its texts at a time (:func:`text_spans`: one part for a batch of files; the messages of a
    large mbox file in it in parts, so the counting's memory stays a batch's): a list of
    results, the skipped names with the first, the batch's documents with the last."""
    texts, keep, skipped, n_docs = read
    spans = text_spans(texts, max(n_docs, _PART_TEXTS))
    return [count_read((texts[lo:hi], keep[lo:hi], skipped if lo == 0 else Skipped(), n_docs if hi == len(texts) else 0),
                       y_index, weights, analyzer, n_classes, rows) for lo, hi in spans]


#: Texts counted at once by :func:`count_shard` at least (the default batch's documents)
_PART_TEXTS = 2000


def text_spans(texts, most):
    """``(start, stop)`` spans of ``texts`` in order, each of at most ``most`` texts and ending
    with the text that brings it to :data:`textnb.io.files.BATCH_BYTES` of text (one span,
    ``(0, 0)``, for none): :func:`textnb.io.files.bounded_runs`' rule over texts read."""
    spans, start = [], 0
    for run in bounded_runs(texts, most, len):
        spans.append((start, start + len(run)))
        start += len(run)
    return spans or [(0, 0)]


def read_batch(docs, max_bytes, decode=True):
    """``(texts, keep, skipped, n_docs)`` of a batch of documents (str, bytes or paths):
    the tokenizable texts (:func:`textnb.io.corpus.to_tokenizable`, ``decode`` passed on;
    an mbox file its messages, ``split``), their positions in the batch, the names of the
    documents left out (a :class:`textnb.io.corpus.Skipped`: binary files, binary or empty
    messages), and the batch's length."""
    split = partial(split_messages, max_bytes=max_bytes)
    return gather_documents([(doc, to_tokenizable(doc, max_bytes, decode, split)) for doc in docs])


def read_items(docs, max_bytes, decode=True):
    """``(position, (document, tokenizable text, None or Messages), bytes)`` of each of
    ``docs`` (an mbox file its messages, as :func:`read_batch` reads it), read one at a
    time as they are asked for (a batch that ends by its bytes reads no document past it).
    An mbox file longer than ``max_bytes`` comes a piece of its messages at a time
    (:meth:`~textnb.io.corpus.MessageStream.pieces`, each of about
    :data:`~textnb.io.files.BATCH_BYTES`, all at the file's ``position``), read from the
    file as the pieces are asked for: the memory of training is a batch's, not the file's."""
    split = partial(split_messages, max_bytes=max_bytes)
    for i, doc in enumerate(docs):
        text = to_tokenizable(doc, max_bytes, decode, split, True)
        if type(text) is MessageStream:
            for piece in text.pieces(files.BATCH_BYTES):
                yield i, (doc, piece), len(piece)
        else:
            yield i, (doc, text), 0 if text is None else len(text)


def sized_items(docs, max_bytes, decode=True):
    """``(position, document, bytes)`` of each of ``docs`` for workers that read them
    (:func:`count_shard`): the bytes a document brings to a batch before it is read
    (:func:`~textnb.io.corpus.document_size`); an mbox file longer than ``max_bytes`` is read
    here, a piece of its messages at a time, each piece (a :class:`~textnb.io.corpus.Messages`)
    a document of its own for the worker, as :func:`read_items` gives them."""
    split = partial(split_messages, max_bytes=max_bytes)
    for i, doc in enumerate(docs):
        size = document_size(doc, max_bytes)
        if max_bytes is not None and size >= max_bytes and isinstance(doc, PurePath) and is_mbox(doc):
            text = to_tokenizable(doc, max_bytes, decode, split, True)
            if type(text) is MessageStream:
                for piece in text.pieces(files.BATCH_BYTES):
                    yield i, piece, len(piece)
                continue
        yield i, doc, size


def count_read(read, y_index, weights, analyzer, n_classes, rows=False):
    """:func:`count_shard` of a batch already read (:func:`read_batch`'s ``read``). When
    training counts in threads, the calling thread reads the files and the threads count
    (:func:`textnb.text.training.count_documents`): a thread reading files releases the
    GIL at each of its system calls and waits to take it back from the other: on 20
    Newsgroups, two threads reading cost 1.31 s of CPU and 0.76 s of wall time, the calling
    thread reading 1.05 s and 0.62 s (docs/bench_text.md, session 22)."""
    texts, keep, skipped, n_docs = read
    keep = np.asarray(keep, dtype=np.int64)
    y_index, weights = y_index[keep], weights[keep]
    want_rows = rows
    vocab = TermKeys()
    rows, ids = batch_term_ids(texts, analyzer, vocab, grow=True)
    n_terms = len(vocab)
    # document frequency: each (document, term) pair once (a plain sort, much faster
    # here than np.unique's hashing; numpy's default sort: on numpy 2 with AVX2 or
    # AVX-512 its vectorised quicksort takes a fifth of the stable sort's time on these
    # pairs, 2-3 ms against 14-16 ms for a batch of 20 Newsgroups, docs/bench_text.md;
    # a value sort of integers gives one order whatever the kind)
    pairs = rows * n_terms + ids
    pairs.sort()
    starts = None
    if pairs.size:
        starts = np.flatnonzero(np.concatenate(([True], pairs[1:] != pairs[:-1])))
        n_tokens = pairs.size
        pairs = pairs[starts]
    first = pairs // n_terms
    if want_rows:  # the rows hold everything the model needs: no per-class sums
        nz = tf = df = np.zeros(0)
    else:
        nz, tf, df = _class_sums(rows, ids, pairs, first, y_index, weights, n_classes, n_terms)
    class_count = np.bincount(y_index, weights=weights, minlength=n_classes)
    term_tf = np.bincount(ids, minlength=n_terms).astype(np.float64)
    term_df = np.bincount(pairs % max(n_terms, 1), minlength=n_terms).astype(np.float64)
    out = vocab, (nz, tf, df, term_tf, term_df), class_count, skipped, n_docs
    if not want_rows:
        return out
    counts = np.diff(np.append(starts, n_tokens)) if starts is not None else np.zeros(0, dtype=np.int64)
    lengths = np.bincount(first, minlength=len(keep))
    hashes = np.fromiter((zlib.crc32(t if isinstance(t, bytes) else t.encode("utf-8", "surrogatepass"))
                          for t in texts), dtype=np.uint64, count=len(texts))
    # compact (4 bytes a number): the rows travel back from the worker, each with its label and weight
    return out + ((y_index, weights, lengths.astype(np.int32), (pairs % max(n_terms, 1)).astype(np.int32),
                   counts.astype(np.int32), hashes),)


def _class_sums(rows, ids, pairs, first, y_index, weights, n_classes, n_terms):
    """The non-zero cells ``class * n_terms + term`` of a batch's per-class summed weighted
    counts and document frequencies, and those sums."""
    w = weights[rows]
    cells = y_index[rows] * n_terms + ids
    df_cells = y_index[first] * n_terms + pairs % n_terms
    size = n_classes * n_terms
    if size <= 4 * len(cells) + (1 << 20):  # few classes: dense per-class sums are fastest
        tf = np.bincount(cells, weights=w, minlength=size)
        df = np.bincount(df_cells, weights=weights[first], minlength=size)
        nz = np.flatnonzero(df)  # a term of the batch has df > 0 wherever tf > 0
        return nz, tf[nz], df[nz]
    # many classes: sum over the cells that occur only (memory O(tokens), not O(classes x terms))
    nz, inv = np.unique(cells, return_inverse=True)
    tf = np.bincount(inv, weights=w, minlength=len(nz))
    df = np.bincount(np.searchsorted(nz, df_cells), weights=weights[first], minlength=len(nz))
    return nz, tf, df


def term_ids(docs, analyzer, vocabulary, max_bytes):
    """``(rows, ids, n_docs)`` of a batch under a fixed vocabulary (prediction's tokenising).

    ``vocabulary``: a term -> column dict or, faster, a :class:`textnb.text.ascii_tokens.TermKeys`.
    """
    texts = []
    decode = reader_decoding(analyzer)
    for doc in docs:
        text = to_tokenizable(doc, max_bytes, decode)
        if text is None:
            from textnb.io.corpus import binary_document

            raise binary_document(doc)
        texts.append(text)
    rows, ids = batch_term_ids(texts, analyzer, vocabulary, grow=False)
    return rows, ids, len(texts)


@contextmanager
def inherited(state):
    """Make ``state`` reachable by key in worker processes forked inside the block
    (they inherit it: nothing is pickled). Yields the key."""
    key = id(state)
    _INHERITED[key] = state
    try:
        yield key
    finally:
        _INHERITED.pop(key, None)


def score_batch(docs, key, state=None):
    """Scores of a batch of documents: the map step of prediction.

    ``state`` = ``(analyzer, vocabulary, finish, score, max_bytes)``, or None to use
    the one registered under ``key`` by :func:`inherited`. ``finish`` prepares the
    counts (e.g. binary), ``score`` is the model's bound ``predict*`` method.
    """
    analyzer, vocabulary, finish, score, max_bytes = _INHERITED[key] if state is None else state
    rows, ids, n_docs = term_ids(docs, analyzer, vocabulary, max_bytes)
    return score(finish(csr_counts(rows, ids, n_docs, len(vocabulary))))
