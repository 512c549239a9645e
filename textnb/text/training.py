"""Training a text model from a stream of documents: per-class sums, then the vocabulary.

A multinomial, Bernoulli or complement model needs only per-class term sums, not the
document-term matrix (``../shared/design/architecture.md``). Documents are cut into
batches; each batch is tokenised and counted (:func:`textnb.text.counting.count_shard`,
in threads of the process for numpy's tokenizer, else in worker processes, or on Dask
workers); the per-class sums of each batch come back and are added (:class:`Accumulator`).
Peak memory is ``O(n_classes x vocabulary)`` plus one batch per worker. The vocabulary
is then sorted and pruned exactly as scikit-learn's ``CountVectorizer`` does
(:func:`select_vocabulary`), so the result does not depend on the batch size, ``n_jobs``
or the cluster.

This is the one fit path of the count text models: :class:`textnb.text.classifier.TextClassifier`
fits through it, and :func:`train_text_model` builds the same fitted model as a tree of
:class:`~textnb.core.model_io.ModelNode` -- the model file's content, byte for byte --
from the model's kernel (:mod:`textnb.naive_bayes.kernels`: its defaults, checks and
model-file state) without constructing an estimator, so ``textnb train`` does not
import scikit-learn.
"""

from itertools import chain, islice
from operator import itemgetter
from pathlib import PurePath
from numbers import Integral
from typing import NamedTuple

import numpy as np

from textnb.core.errors import EmptyVocabulary, InputError, ParameterError
from textnb.core.csr import CSR
from textnb.core.dfe import pass_budget
from textnb.core.logspace import log_odds, log_proba_from_jll
from textnb.core.model_io import ModelNode
from textnb.core.workers import can_fork, map_ordered, ordered_map, parallel_if_long
from textnb.io import files
from textnb.io.corpus import MAX_DOCUMENT_BYTES, Skipped, gather_documents
from textnb.naive_bayes.kernels import KERNELS
from textnb.naive_bayes.scoring import fit_classes
from textnb.text.ascii_tokens import TermKeys, supports
from textnb.text.counting import count_parts, count_shard, read_items, sized_items
from textnb.text.defaults import TEXT_CLASSIFIER_DEFAULTS, VECTORIZER_DEFAULTS
from textnb.text.tokenize import (Analyzer, analyzer_from_params, count_batch, reader_decoding, encode_terms,  # noqa: F401
                                  fitting_analyzer)  # (analyzer_from_params: imported from here by callers)

__all__ = ["Accumulator", "FoldVocabularies", "PER_CLASS", "RowFoldCounts", "batches", "check_vocabulary_params", "count_documents", "default_pipeline", "default_vectorizer", "finish_counts",
           "fit_model", "fold_vocabularies", "takes_fold_counts_spec", "with_choices",
           "learn_counts", "min_parallel", "prune_mask", "sample_sizes", "select_columns", "select_vocabulary", "short_text_params", "spread", "text_classifier_node", "vectorizer_prunes",
           "train_text_model"]

#: The per-class table each streamable model needs: term counts, or document frequencies
#: (DiscriminativeNB learns from the documents' rows; its table only prunes the vocabulary).
PER_CLASS = {kind: kernel.per_class for kind, kernel in KERNELS.items()}

#: Below this many documents training runs in one process whatever ``n_jobs`` says,
#: when workers cannot be forked (a fresh loky worker costs about a second to start).
_MIN_PARALLEL_DOCUMENTS = 30_000
def min_parallel(spawned, batch_size, threads=False):
    """Fewest documents worth parallel workers: four batches with ``threads`` or when
    workers fork (they start in milliseconds; with fewer, measured on SMS and
    20 Newsgroups' test part, the pool costs what it saves), else ``spawned``."""
    return 4 * int(batch_size) if threads or can_fork() else spawned


def batches(docs, y_index, weights, size, measure=None):
    """``(batch, y_index part, weights part)`` of at most ``size`` of ``docs`` each, in
    order (``docs`` read as the batches are asked for). ``measure``: a batch also ends
    with the document whose ``measure(doc)`` brings its total to
    :data:`textnb.io.files.BATCH_BYTES` (:func:`textnb.io.files.bounded_runs`;
    :func:`textnb.io.corpus.document_size`, or the text's length for documents read already)."""
    start = 0
    for batch in files.bounded_runs(docs, size, measure):
        stop = start + len(batch)
        yield batch, y_index[start:stop], weights[start:stop]
        start = stop


class Accumulator:
    """Adds per-batch (terms, sums) into global sums over a growing vocabulary.

    Keeps one (classes x terms) table, ``per_class``: the (weighted) term counts ("tf",
    what a multinomial model needs) or document frequencies ("df", Bernoulli), and the
    unweighted per-term totals of both (pruning by min_df / max_df / max_features needs
    only those, and ignores sample weights as a CountVectorizer does). ``sums`` is that
    table.

    ``binary``: the counts are a presence vectorizer's (each term once per document), so
    the "tf" table holds document frequencies, the kept rows presence, and max_features
    ranks terms by document frequency: the sums of the matrix a ``binary`` Vectorizer
    gives, batch by batch.
    """

    def __init__(self, n_classes, terms=(), per_class="tf", rows=False, max_row_nnz=None, binary=False):
        self.vocab = TermKeys(terms)
        # a presence vectorizer: the per-term "counts" that max_features ranks by are
        # document frequencies (scikit-learn clips to 1 first)
        self.binary = binary
        # the documents' (term, count) pairs, for DiscriminativeNB: at most about
        # max_row_nnz of them are kept (a content-keyed sample, :meth:`_shrink`); the
        # documents dropped leave their feature sums in ``dropped``
        self.rows = [] if rows else None
        self.max_row_nnz = max_row_nnz
        self.row_nnz = 0
        self.n_rows = 0  # documents whose rows were added: the next one's position in the stream
        # (content key, position) of the first document in that order the sample dropped (None: none
        # yet): every document after it in that order is left out too (:meth:`_shrink`)
        self.cut = None
        self.settled = True  # no document added since the last :meth:`_shrink`
        self.dropped = None  # {family: (cells, feature sums)} (:meth:`_shrink`), "weight": per-class weights
        self.per_class = per_class
        # start small when there are many classes (the tables grow by doubling)
        cap = max(len(self.vocab), min(1024, max(16, (1 << 22) // max(n_classes, 1))))
        self.sums = np.zeros((n_classes, cap if not rows else 0))
        self.tf_total = np.zeros(cap)
        self.df_total = np.zeros(cap)
        self.class_count = np.zeros(n_classes)
        self.skipped = Skipped()  # (and the mbox files read as their messages)

    def add(self, terms, sums, class_count, skipped, rows=None):
        ids = self.vocab.merge_columns(terms)
        if rows is not None:
            y_index, weights, lengths, local, counts, hashes = rows
            if self.binary:  # (presence: each of a document's terms once)
                counts = np.ones_like(counts)
            position = np.arange(self.n_rows, self.n_rows + len(lengths), dtype=np.int64)
            self.rows.append((y_index, weights, lengths.astype(np.int32), ids[local].astype(np.int32),
                              counts.astype(np.float32), hashes, position))  # 8 bytes a cell (counts: < 2**24)
            self.n_rows += len(lengths)
            self.row_nnz += int(lengths.sum())
            self.settled = False
            if self.max_row_nnz is not None and self.row_nnz > 1.5 * self.max_row_nnz:
                self._shrink()  # amortised: at most 1.5 times the kept cells are held
        cap = self.tf_total.shape[0]
        if len(self.vocab) > cap:
            new_cap = max(2 * cap, len(self.vocab))
            if self.rows is None:  # with rows the per-class table stays empty (the rows hold it all)
                grown = np.zeros((self.sums.shape[0], new_cap))
                grown[:, :cap] = self.sums
                self.sums = grown
            for name in ("tf_total", "df_total"):
                total = np.zeros(new_cap)
                total[:cap] = getattr(self, name)
                setattr(self, name, total)
        cells, tf, df, term_tf, term_df = sums
        if cells.size:  # (empty when the batch came with its rows instead)
            cls, cols = np.divmod(cells, len(terms))
            cols = ids[cols]
            flat = cls * self.sums.shape[1] + cols  # each (class, term) cell once per batch
            self.sums.reshape(-1)[flat] += tf if self.per_class == "tf" and not self.binary else df
        self.tf_total[ids] += term_df if self.binary else term_tf  # ids: distinct columns, one per batch term
        self.df_total[ids] += term_df
        self.class_count += class_count
        self.skipped.merge(skipped)

    def terms(self):
        return self.vocab.terms()

    def _rows(self, free=False):
        """The kept rows' arrays, concatenated; ``free``: drop the batches' parts, each field's
        as soon as it is concatenated (never two copies of all the rows at once)."""
        fields = [list(p) for p in zip(*self.rows)]
        if free:
            self.rows = None
        out = []
        for i in range(len(fields)):
            out.append(np.concatenate(fields[i]))
            fields[i] = None
        y, w, lengths, ids, counts, hashes, position = out
        indptr = np.concatenate(([0], np.cumsum(lengths, dtype=np.int64)))
        return y, w, lengths, ids, counts, indptr, hashes, position

    def _unsettled(self):
        """Whether the kept rows are not yet the sample (:meth:`_shrink`): more cells than
        ``max_row_nnz``, or documents added since a sample dropped some (they may come after
        the cut)."""
        return self.max_row_nnz is not None and (
            self.row_nnz > self.max_row_nnz or (self.cut is not None and not self.settled))

    def _shrink(self):
        """Keep the documents first in the order of their content keys (a hash of the text's
        CRC-32 and the class; equal keys, copies of a text, by their position in the stream)
        whose cells add up to at most ``max_row_nnz``; add the others' document features,
        for both event models, to ``dropped``. A document after the first one dropped in
        that order (``cut``) is never kept, even if it arrives when there is room: the kept
        documents are always the first of all seen so far, so the sample is the same
        whatever the batches. (It was not: documents added after a sample, while the cells
        stayed under the bound, were kept whatever their keys: with word bigrams on the SMS
        collection and a 5,000-cell bound, one document more or less by batch size.)

        ``dropped[family]`` holds the sums over the (class, term) cells the dropped documents
        touch only, ``dropped["cells"]`` (:func:`textnb.core.dfe.class_cell_sums`), not a
        (classes x all terms) table: with word n-grams the vocabulary before pruning is
        millions of terms."""
        from textnb.core.dfe import FAMILIES, class_cell_sums, content_keys, doc_features, sample_rows

        y, w, lengths, ids, counts, _, hashes, position = self._rows(free=True)
        keys = content_keys(hashes, y, 0)
        allowed = np.flatnonzero(np.ones(len(keys), dtype=bool) if self.cut is None else
                                 (keys < self.cut[0]) | ((keys == self.cut[0]) & (position < self.cut[1])))
        keep = np.zeros(len(lengths), dtype=bool)
        keep[allowed[sample_rows(lengths[allowed], keys[allowed], self.max_row_nnz)]] = True
        self.settled = True
        if keep.all():
            self.rows = [(y, w, lengths, ids, counts, hashes, position)]
            return
        gone = np.flatnonzero(~keep)
        first = gone[np.lexsort((position[gone], keys[gone]))[0]]  # the first dropped, in key order
        if self.cut is None or (keys[first], position[first]) < self.cut:
            self.cut = (keys[first], position[first])
        cells = np.repeat(keep, lengths)
        n_classes = len(self.class_count)
        if self.dropped is None:
            self.dropped = {"cells": np.zeros(0, dtype=np.int64), "weight": np.zeros(n_classes),
                            **{f: np.zeros(0) for f in FAMILIES}}
        # the dropped documents' features, in blocks of at most max_row_nnz / 4 cells (never
        # all the rows at double precision)
        gone = np.flatnonzero(~keep)
        gone_cells = np.flatnonzero(~cells)  # in document order
        ends = np.concatenate(([0], np.cumsum(lengths[gone], dtype=np.int64)))  # of each in gone_cells
        block = max(1, self.max_row_nnz // 4)
        lo = 0
        while lo < gone.size:
            hi = max(lo + 1, int(np.searchsorted(ends, ends[lo] + block, side="right")) - 1)
            docs = gone[lo:hi]
            sel = gone_cells[ends[lo]:ends[hi]]
            indptr = np.concatenate(([0], np.cumsum(lengths[docs], dtype=np.int64)))
            data = counts[sel].astype(np.float64)
            # (both event models' features are stored in the same cells)
            touched, sums = class_cell_sums(ids[sel], indptr, y[docs], n_classes, w[docs],
                                            [doc_features(family, data, indptr) for family in FAMILIES])
            self.dropped["cells"], totals = _add_cells(self.dropped["cells"], [self.dropped[f] for f in FAMILIES],
                                                       touched, sums)
            self.dropped.update(zip(FAMILIES, totals))
            lo = hi
        self.dropped["weight"] += np.bincount(y[~keep], weights=w[~keep], minlength=n_classes)
        self.rows = [(y[keep], w[keep], lengths[keep], ids[cells], counts[cells], hashes[keep], position[keep])]
        self.row_nnz = int(lengths[keep].sum())

    def dropped_sums(self, cols):
        """``{family: (feature sums, class weights)}`` of the documents the row sample left
        out, over the columns ``cols`` (a (classes x ``len(cols)``) table each); None when
        every document was kept."""
        if self._unsettled():
            self._shrink()
        if self.dropped is None:
            return None
        n_classes = len(self.class_count)
        position = np.full(max(len(self.vocab), 1), -1, dtype=np.int64)
        position[np.asarray(cols, dtype=np.int64)] = np.arange(len(cols))
        cells = self.dropped["cells"]
        column = position[cells // n_classes]
        kept = column >= 0
        where = (cells[kept] % n_classes, column[kept])
        out = {}
        for family, values in self.dropped.items():
            if family in ("cells", "weight"):
                continue
            table = np.zeros((n_classes, len(cols)))
            table[where] = values[kept]
            out[family] = (table, self.dropped["weight"].copy())
        return out

    def row_matrix(self, cols):
        """``(X, y_index, weights)`` of the documents read (binary ones skipped), in
        order: ``X`` their CSR counts over the columns ``cols`` (in that order; the others
        dropped), with sorted indices: a :class:`~textnb.core.csr.CSR` (no scipy.sparse
        imported; :func:`vectorized_rows` gives the estimators scipy's)."""
        if not self.rows:
            return (CSR((np.zeros(0), np.zeros(0, dtype=np.int32), np.zeros(1, dtype=np.int64)), (0, len(cols))),
                    np.zeros(0, dtype=np.intp), np.zeros(0))
        if self._unsettled():
            self._shrink()
        y, w, lengths, ids, counts, _, _, _ = self._rows()
        counts = counts.astype(np.float64)
        remap = np.full(max(len(self.vocab), 1), -1, dtype=np.int64)
        remap[np.asarray(cols, dtype=np.int64)] = np.arange(len(cols))
        new = remap[ids]
        keep = new >= 0
        if not keep.all():
            row = np.repeat(np.arange(len(lengths)), lengths)
            lengths = np.bincount(row[keep], minlength=len(lengths))
            new, counts = new[keep], counts[keep]
        indptr = np.concatenate(([0], np.cumsum(lengths, dtype=np.int64)))
        _sort_rows(new, counts, indptr, len(cols))
        X = CSR((counts, new, indptr), (len(lengths), len(cols)))
        return X, y.astype(np.intp), w.astype(np.float64)


def _add_cells(cells, values, more_cells, more_values):
    """Sums over sorted cells (:func:`textnb.core.dfe.class_cell_sums`) added up:
    ``(union, totals)``, ``union`` the sorted cells of both and each of ``totals`` an array
    of ``values`` plus the ``more_values`` at the same position, cell by cell (a value plus
    the other's, as a table adds them; a cell of one only keeps its value)."""
    at = np.searchsorted(cells, more_cells)
    new = (at == cells.size) | (cells[np.minimum(at, max(cells.size - 1, 0))] != more_cells) if cells.size \
        else np.ones(more_cells.size, dtype=bool)
    union = np.insert(cells, at[new], more_cells[new])
    where = np.searchsorted(union, more_cells)
    totals = []
    for old, add in zip(values, more_values):
        total = np.insert(old, at[new], 0.0)
        total[where] += add
        totals.append(total)
    return union, totals


def _sort_rows(indices, data, indptr, n_cols):
    """Sort each CSR row's cells by column, in place (the columns of a row are distinct).

    One value sort of the cells' numbers ``row * n_cols + column``, with the count packed
    in the low bits when the counts are whole numbers that leave room for it (the rows'
    counts always are: integers < 2**24), so the counts travel with their cells; else an
    argsort of the cell numbers. (It replaces scipy's per-row sort: the same order, for
    less CPU time: the rows' matrix of 20 Newsgroups' training, 0.07 -> 0.06 s. numpy's default
    sort, vectorised on numpy 2 with AVX2 or AVX-512: a quarter of its stable sort's time,
    which sees that the rows come in order, 0.03 s of sorting; the cells are distinct, so
    the argsort's order is one whatever the kind.)"""
    n = len(indptr) - 1
    if not len(indices):
        return
    cells = np.repeat(np.arange(n, dtype=np.int64) * n_cols, np.diff(indptr)) + indices
    whole = bool(data.min() >= 0 and data.max() < 1 << 24 and np.array_equal(data, np.floor(data)))
    bits = max(1, int(data.max()).bit_length()) if whole else 0
    if whole and n * n_cols < 1 << (62 - bits):
        packed = np.left_shift(cells, bits, out=cells)  # (in place: one array of the cells at a time)
        packed |= data.astype(np.int64)
        packed.sort()
        data[:] = packed & ((1 << bits) - 1)
        np.right_shift(packed, bits, out=packed)
        np.remainder(packed, n_cols, out=packed)
        indices[:] = packed
    else:
        order = np.argsort(cells)
        indices[:] = indices[order]
        data[:] = data[order]


def fold_counts(X_train, X_test, vectorizer):
    """The counts of a cross-validation fold as a vectorizer fitted on its training part
    alone makes them: ``X_train`` and ``X_test`` (CSR counts over every term of the corpus,
    :func:`textnb.evaluation.evaluate.vectorize_all`) restricted to the terms
    ``vectorizer``'s ``min_df`` / ``max_df`` / ``max_features`` keep in the training part
    (:func:`prune_mask`; with ``binary``, ``max_features`` ranks the terms by document
    frequency), and presence (1) for every count with ``binary``; and the kept
    columns (``X_train, X_test, columns``).
    ``vectorizer``: the vectorizer's parameters (missing ones: the defaults). The one fold
    step of single-label and multi-label cross-validation.

    Raises InputError when no term of the training part is kept.
    """
    vectorizer = {**VECTORIZER_DEFAULTS, **vectorizer}
    df = np.bincount(X_train.indices, minlength=X_train.shape[1])
    # a presence vectorizer ranks terms by their presences (document frequency), as
    # scikit-learn's binary CountVectorizer and training (:class:`Accumulator`) do
    tf = df if vectorizer["binary"] else np.asarray(X_train.sum(axis=0)).ravel()
    cols = np.flatnonzero(prune_mask(df, tf, X_train.shape[0], min_df=vectorizer["min_df"],
                                     max_df=vectorizer["max_df"], max_features=vectorizer["max_features"]))
    if cols.size == 0:
        # (the training documents of a fold, of evaluate --test's training part or of a train/ part: found by a
        # user trial, a train/test evaluation was said to have an empty "training fold")
        raise EmptyVocabulary("empty vocabulary: the training documents have no term left (empty, only stop words, "
                              "or pruned by min_df / max_df)")
    X_train, X_test = X_train[:, cols], X_test[:, cols]
    if vectorizer["binary"]:
        X_train, X_test = X_train.copy(), X_test.copy()
        X_train.data[:] = 1
        X_test.data[:] = 1
    return X_train, X_test, cols


class FoldVocabularies:
    """``counts(train)``: the CSR counts of every document of ``X`` (counts over every term
    of the corpus, in scikit-learn's column order; presence with a ``binary`` vectorizer) over
    the terms that the documents ``train`` alone keep, as :func:`fold_counts` prunes them
    (``vectorizer``: its parameters); ``counts.with_terms(train)``: those counts and the
    names of their columns (``terms``: the names of ``X``'s columns; None: None). What a
    cross-validation inside a fit is scored on (the ``fold_counts`` of SmoothingCV and of
    APNBC's ``fit_on="cv"``), so no held-out word enters a fold's vocabulary."""

    def __init__(self, X, vectorizer, terms=None):
        self.X, self.vectorizer = X, vectorizer
        self.terms = None if terms is None else np.asarray(terms, dtype=object)

    def __call__(self, train):
        return fold_counts(self.X[train], self.X, self.vectorizer)[1]

    def with_terms(self, train):
        _, counts, cols = fold_counts(self.X[train], self.X, self.vectorizer)
        return counts, None if self.terms is None else self.terms[cols]


    @property
    def prunes(self):
        """Whether a fold's vocabulary may be other than the terms its training part has
        (the vectorizer's ``min_df`` / ``max_df`` / ``max_features`` prune some)."""
        return vectorizer_prunes({**VECTORIZER_DEFAULTS, **self.vectorizer})


def vectorizer_prunes(vectorizer):
    """Whether the vectorizer parameters ``vectorizer`` (all of them) may leave out a term
    that its training documents have (``min_df`` / ``max_df`` / ``max_features``)."""
    min_df, max_df = vectorizer["min_df"], vectorizer["max_df"]
    keeps_all = (isinstance(min_df, Integral) and min_df <= 1 and not isinstance(max_df, Integral)
                 and max_df >= 1.0 and vectorizer["max_features"] is None)
    return not keeps_all


class RowFoldCounts:
    """The ``fold_counts`` of a matrix whose row ``i`` is the row ``rows[i]`` of the matrix
    of ``fold_counts`` (a :class:`FoldVocabularies`, or another such): a part of its
    documents (a cross-validation fold's training part, whose model cross-validates on
    them again), or copies of them (the copy transformation of a multi-label model,
    :func:`textnb.meta.labelsets.copies`). ``self(train)``: the counts of every row over
    the vocabulary of the documents the rows ``train`` are (each counted once, as a
    vectorizer fitted on them counts it); ``with_terms`` likewise."""

    def __init__(self, fold_counts, rows):
        self.fold_counts, self.rows = fold_counts, np.asarray(rows)

    def _documents(self, train):
        return np.unique(self.rows[np.asarray(train)])

    def __call__(self, train):
        return self.fold_counts(self._documents(train))[self.rows]

    def with_terms(self, train):
        X, terms = self.fold_counts.with_terms(self._documents(train))
        return X[self.rows], terms

    @property
    def prunes(self):
        return getattr(self.fold_counts, "prunes", True)


def fold_vocabularies(X, vectorizer, terms=None):
    """The :class:`FoldVocabularies` of the counts ``X`` over every term (named ``terms``)
    under the vectorizer parameters ``vectorizer``."""
    return FoldVocabularies(X, vectorizer, terms)


def prune_mask(df, tf, n_docs, *, min_df=1, max_df=1.0, max_features=None):
    """Boolean mask of the terms kept, applying scikit-learn's rules in its order.

    ``df`` and ``tf`` are per-term document and total frequencies, in the final
    (alphabetical) column order.
    """
    high = max_df if isinstance(max_df, Integral) else max_df * n_docs
    low = min_df if isinstance(min_df, Integral) else min_df * n_docs
    if high < low:
        raise ParameterError(f"max_df corresponds to < documents than min_df: min_df keeps terms in at least "
                             f"{low:g} documents, max_df in at most {high:g}, of {n_docs} (a larger min_df than "
                             "the documents, or a smaller max_df: no term can be kept)")
    mask = (df <= high) & (df >= low) & (df > 0)
    if max_features is not None and mask.sum() > max_features:
        # (scikit-learn's CountVectorizer line, so that the vocabulary is its own: terms that tie at the cut
        # are ordered by numpy's default sort, which orders ties by the CPU's instruction set, on both sides)
        order = (-tf[mask]).argsort()[:max_features]
        keep = np.zeros(len(df), dtype=bool)
        keep[np.where(mask)[0][order]] = True
        mask = keep
    return mask


def labelled_batches(items, y_index, weights, size):
    """``(batch, y_index part, weights part)`` of the ``(position, item, bytes)`` triples
    ``items`` (:func:`textnb.text.counting.read_items`, :func:`~textnb.text.counting.sized_items`),
    each batch at most ``size`` items ending with the item that brings its bytes to
    :data:`textnb.io.files.BATCH_BYTES` (:func:`textnb.io.files.bounded_runs`), each item
    labelled as the document at its position (a large mbox file's pieces all as the file);
    ValueError when there are more documents than labels (``items`` may come from a
    generator)."""
    n = len(y_index)
    for run in files.bounded_runs(items, size, itemgetter(2)):
        at = np.fromiter(map(itemgetter(0), run), dtype=np.intp, count=len(run))
        if at[-1] >= n:
            raise ValueError(f"got more than {n} documents but {n} labels")
        yield list(map(itemgetter(1), run)), y_index[at], weights[at]


def check_vocabulary_params(min_df, max_df, max_features):
    """Raise ValueError for a ``min_df`` / ``max_df`` / ``max_features`` out of range."""
    for name, v in (("min_df", min_df), ("max_df", max_df)):
        if isinstance(v, Integral):
            if v < 0:
                raise ParameterError(f"{name} must be >= 0; got {v}")
        elif not (0.0 <= float(v) <= 1.0):
            raise ParameterError(f"{name} as a fraction must be in [0, 1]; got {v}")
    if max_features is not None and (not isinstance(max_features, Integral) or max_features <= 0):
        raise ParameterError(f"max_features must be a positive int or None; got {max_features!r}")


def learn_counts(docs, analyzer, *, min_df=1, max_df=1.0, max_features=None, binary=False):
    """``(X, terms)``: the CSR counts of the texts ``docs`` over the vocabulary they give
    (``analyzer``'s terms, in scikit-learn's alphabetical column order, pruned by
    ``min_df`` / ``max_df`` / ``max_features``) and those terms, before
    :func:`finish_counts`. What :meth:`Vectorizer.fit_transform
    <textnb.text.vectorizer.Vectorizer.fit_transform>` computes, for callers that build
    no estimator (:mod:`textnb.meta.multilabel_training`)."""
    vocab = TermKeys()
    X = count_batch(docs, analyzer, vocab, grow=True)
    terms = np.array(vocab.terms(), dtype=object)
    order = vocab.sorted_columns()
    X = X[:, order]
    terms = terms[order]
    if binary:  # scikit-learn clips to 1 first: max_features then ranks by df
        X.data[:] = 1
    df = np.bincount(X.indices, minlength=X.shape[1])
    tf = np.asarray(X.sum(axis=0)).ravel()
    mask = prune_mask(df, tf, len(docs), min_df=min_df, max_df=max_df, max_features=max_features) \
        if len(terms) else np.zeros(0, dtype=bool)  # no term at all: nothing for min_df / max_df to blame
    if not mask.any():
        raise EmptyVocabulary()
    return X[:, np.where(mask)[0]].tocsr(), terms[mask]


def finish_counts(X, *, binary=False, dtype="int64"):
    """The Vectorizer's output of raw CSR counts ``X``: sorted indices, 1 for presence
    when ``binary``, ``dtype``."""
    X.sort_indices()
    if binary:
        X.data[:] = 1
    if np.dtype(dtype) != X.dtype:
        X = X.astype(dtype)
    return X


def count_documents(X, y_index, weights, n_classes, analyzer, *, terms=(), per_class="tf", n_jobs=None,
                    batch_size=2000, max_bytes=MAX_DOCUMENT_BYTES, progress=None, client=None, rows=False,
                    max_row_nnz=None, binary=False):
    """The :class:`Accumulator` of documents ``X`` (str, bytes or paths) with class
    indices ``y_index`` and ``weights``; ``terms`` start the vocabulary (partial_fit).
    ``rows``: keep the documents' (term, count) pairs too (:meth:`Accumulator.row_matrix`),
    about ``max_row_nnz`` of them at most. ``binary``: a presence vectorizer's (pruning ranks
    terms by document frequency)."""
    acc = Accumulator(n_classes, terms, per_class, rows=rows, max_row_nnz=max_row_nnz, binary=binary)
    if client is not None:  # a worker would read a relative path from its own folder
        X = (d.absolute() if isinstance(d, PurePath) else d for d in X)
    # numpy's tokenizer releases the GIL for its work (and the file reads for theirs): it
    # runs in threads, with no worker process to start and no batch result to pickle
    threads = isinstance(analyzer, Analyzer) and supports(analyzer)
    few = len(y_index) < min_parallel(_MIN_PARALLEL_DOCUMENTS, batch_size, threads)
    if few and not (threads or can_fork()):
        n_jobs = 1
    decode = reader_decoding(analyzer)
    if threads and client is None:  # this thread reads, the threads count (see count_read)
        read = read_items(X, max_bytes, decode)  # (batches bounded by the text read)
        parts = labelled_batches(read, y_index, weights, int(batch_size))
        tasks = ((gather_documents(b), yi, w, analyzer, n_classes, rows) for b, yi, w in parts)
        if few:
            tasks, n_jobs = parallel_if_long(tasks, n_jobs)
        shards = ordered_map(count_parts, tasks, n_jobs, threads=True)
    else:
        parts = labelled_batches(sized_items(X, max_bytes, decode), y_index, weights, int(batch_size))
        tasks = ((b, yi, w, analyzer, n_classes, max_bytes, rows) for b, yi, w in parts)
        if few and n_jobs != 1:
            tasks, n_jobs = parallel_if_long(tasks, n_jobs)
        shards = (map_ordered(client, count_shard, tasks) if client is not None
                  else ordered_map(count_shard, tasks, n_jobs))
    results = (part for parts_of_batch in shards for part in parts_of_batch)  # (a large mbox: in parts)
    done = 0
    for batch_terms, sums, class_count, skipped, n_docs, *batch_rows in results:
        acc.add(batch_terms, sums, class_count, skipped, rows=batch_rows[0] if batch_rows else None)
        done += n_docs  # (a piece of a large mbox file: its share of the file, a Fraction)
        if progress is not None:
            progress(int(done) if done == int(done) else round(float(done), 2))
    if done != len(y_index):
        raise ValueError(f"got {done} documents but {len(y_index)} labels")
    return acc


def select_vocabulary(acc, n_docs, *, min_df=1, max_df=1.0, max_features=None):
    """``(terms, columns)``: the kept terms in scikit-learn's (alphabetical) column order
    and their columns in ``acc``. Pruning looks at per-term totals only (with sample
    weights, weighted ones)."""
    cols = select_columns(acc, n_docs, min_df=min_df, max_df=max_df, max_features=max_features)
    terms = np.empty(len(cols), dtype=object)
    terms[:] = acc.vocab.terms(cols)
    return terms, cols


def select_columns(acc, n_docs, *, min_df=1, max_df=1.0, max_features=None):
    """The columns in ``acc`` of the terms :func:`select_vocabulary` keeps, in its order
    (no term decoded)."""
    n = len(acc.vocab)
    order = acc.vocab.sorted_columns()  # scikit-learn's column order
    n_kept_docs = acc.skipped.learnt(n_docs)  # (an mbox file: its messages)
    if n_kept_docs == 0:
        raise InputError("no documents to learn from (all were binary or the corpus is empty)")
    mask = prune_mask(acc.df_total[:n][order], acc.tf_total[:n][order], n_kept_docs, min_df=min_df,
                      max_df=max_df, max_features=max_features)
    if not mask.any():
        raise EmptyVocabulary()
    return order[mask]


def train_text_model(X, y, *, vectorizer=None, model=("MultinomialNB", {}), steps=(), given_vectorizer=True,
                     n_jobs=None, batch_size=2000, max_bytes=None, progress=None, client=None, sample_weight=None,
                     classes=None, short_texts=False):
    """Fit a count text model and return it as the model file's tree, plus skipped files.

    The result is what ``TextClassifier(vectorizer=Vectorizer(**vectorizer),
    model=Kind(**params), ...).fit(X, y)`` saves, exactly (``Kind, params = model``;
    ``given_vectorizer`` False means ``vectorizer=None``), computed by the same
    functions without building the estimators. ``Kind`` is one of :data:`PER_CLASS`.

    ``steps``: ``(name, (kind, params))`` pairs of transforms in front of the model,
    ``kind`` ``"SelectTerms"`` or ``"TermWeighting"``: the model is then
    ``Pipeline(steps + [("model", Kind(**params))])``, as ``textnb train --select`` /
    ``--weighting`` build it. With steps the estimators fit on
    the whole document-term matrix; so does this (the documents' rows, kept as they are
    counted), through the same functions (:mod:`textnb.text.wrappers`, the kernels' ``fit``).
    ``model`` may also be ``("CalibratedNB", {..., "estimator": model})`` or ``("APNBC",
    {..., "estimator": model})`` (``textnb train --adjust``: its weight search on the
    rows, :func:`fit_model`).

    ``sample_weight``: one weight per document (None: ones), as ``TextClassifier.fit``
    takes it (a count model, without steps; the text attributes of a mixed table).

    ``classes``: the model's classes in their order (the declared class values of a mixed
    table's text attribute, some of which no document may have); None: the sorted labels.

    ``short_texts``: no vectorizer option was given (``textnb train``): a DiscriminativeNB
    without steps then counts what :func:`default_vectorizer` says of ``X`` (short texts:
    words and word bigrams), as ``TextClassifier(vectorizer=None)`` (``given_vectorizer``
    False) does, and the model file records that Vectorizer as given.

    Returns
    -------
    root : ModelNode
        ``TextClassifier`` node, for :func:`textnb.core.model_io.save`.
    skipped : list of str
        Documents skipped because they are binary.
    """
    kind, given = model
    if (short_texts or not given_vectorizer) and not vectorizer and default_pipeline(kind, steps):
        # the default pipeline: short texts get their word bigrams too
        vectorizer, X = default_vectorizer(X, max_bytes)
    adjust = kind == "APNBC"
    if adjust:  # APNBC(estimator, **params): fitted on the documents' rows (fit_model)
        kind, given = given.get("estimator") or ("MultinomialNB", {})
    calibration = None
    if kind == "CalibratedNB":  # CalibratedNB(estimator, **calibration): the estimator fitted as below
        calibration = {k: v for k, v in given.items() if k != "estimator"}
        kind, given = given["estimator"]
    smoothing = kind == "SmoothingCV"
    if kind not in KERNELS and not smoothing:
        raise ValueError(f"train_text_model fits {sorted(KERNELS)}, SmoothingCV, and CalibratedNB and APNBC "
                         f"around them, not {kind}")
    if smoothing and steps:
        raise ValueError("train_text_model fits a SmoothingCV without Pipeline steps around it")
    kernel = KERNELS["MultinomialNB" if smoothing else kind]
    vec_params = {**VECTORIZER_DEFAULTS, **(vectorizer or {})}
    model_params = kernel.params({} if smoothing else given)
    steps = [(name, (step_kind, _step_params(step_kind, step_params))) for name, (step_kind, step_params) in steps]
    binary = bool(vec_params["binary"])
    # the estimators fit these on the whole document-term matrix: every row is kept (a
    # binary vectorizer's presence sums stream as counts do: the Accumulator sums presence)
    whole = bool(steps) or smoothing or calibration is not None or adjust
    check_vocabulary_params(vec_params["min_df"], vec_params["max_df"], vec_params["max_features"])
    rows = kernel.rows or whole
    kernel.check_params(model_params)
    if calibration is not None:
        calibration = _calibration_params(calibration)
    budget = (lambda n_classes: pass_budget(model_params["max_nnz"], n_classes)) if kernel.rows and not whole else None
    classes, acc, cols, max_bytes = count_labelled(
        X, y, vec_params, sample_weight=sample_weight, per_class=kernel.per_class, n_jobs=n_jobs,
        batch_size=batch_size, max_bytes=max_bytes, progress=progress, client=client, rows=rows, budget=budget,
        classes=classes)
    # how the model was computed (worker count) is not part of it
    saved_params = {k: v for k, v in model_params.items() if k not in kernel.execution_params}
    if whole:
        X_rows, y_rows, w_rows = vectorized_rows(acc, cols, binary)
        folds = None
        if takes_fold_counts_spec(model):  # its folds' vocabularies: from every term, pruned on each training part
            folds = fold_vocabularies(vectorized_rows(acc, acc.vocab.sorted_columns(), binary)[0], vec_params)
        fitted_model, template = fit_model(model, steps, classes, X_rows, y_rows,
                                           weights=None if sample_weight is None else w_rows, fold_counts=folds)
    else:
        if rows:  # what DiscriminativeNB.fit_rows computes, by the same function (the kernel's fit)
            dropped = acc.dropped_sums(cols)
            X_rows, y_rows, w_rows = acc.row_matrix(cols)
            state = kernel.fit(model_params, classes, X_rows, y_rows, w_rows, dropped=dropped)
        else:
            kernel.check_params(model_params, len(cols))  # (an alpha per term must have one per kept term)
            state = kernel.to_state({"classes_": classes, "n_features_in_": len(cols),
                                     "class_count_": acc.class_count, "feature_count_": acc.sums[:, cols]})
        fitted_model, template = ModelNode(kind, saved_params, state), ModelNode(kind, saved_params, {})
    root = text_classifier_node(vec_params, encode_terms(acc.vocab, cols), fitted_model, template, classes,
                                max_bytes=max_bytes, given_vectorizer=given_vectorizer)
    return root, acc.skipped


def default_pipeline(kind, steps=()):
    """Whether a model of ``kind`` (its name) with pipeline ``steps`` in front is the default
    pipeline, whose short texts get their word bigrams (:func:`default_vectorizer`): the
    default model with no step (``--select`` and ``--weighting`` keep words alone). The one
    rule of ``textnb train`` (:func:`train_text_model`) and ``textnb evaluate``."""
    return kind == "DiscriminativeNB" and not steps


#: documents whose sizes :func:`default_vectorizer` looks at (evenly spaced over the list)
_SIZE_SAMPLE = 201


def default_vectorizer(docs, max_bytes=None):
    """The vectorizer parameters the default pipeline adds for the training documents
    ``docs`` (str, bytes or paths), and ``docs`` to count: ``(params, docs)``.

    ``params`` is :data:`~textnb.text.defaults.SHORT_TEXT_VECTORIZER` (words and the word
    bigrams of two documents or more) for short texts (:func:`short_text_params`), else
    ``{}`` (words alone). The sizes looked at are those of up to 201 documents evenly
    spaced over a list (:func:`sample_sizes`: a file's ``os.stat``, a text's UTF-8 bytes; no
    label is looked at), so a folder corpus listed class by class is seen in every class; over
    the first :data:`~textnb.text.defaults.SHORT_TEXT_DOCUMENTS` documents of an iterator
    (a TSV corpus streamed from its file), which are read ahead: the ``docs`` returned
    then yields them first, then the rest. Used wherever the default model is fitted with
    no vectorizer given (``TextClassifier(vectorizer=None)`` with a DiscriminativeNB, and
    so :func:`textnb.text.distributed.fit_bag`; ``textnb train`` and ``textnb evaluate``
    without a vectorizer option): one rule for every path.
    """
    from textnb.text.defaults import SHORT_TEXT_DOCUMENTS

    from textnb.io.corpus import Rereadable, text_bytes

    if isinstance(docs, (str, bytes)) or (hasattr(docs, "__len__") and len(docs) < SHORT_TEXT_DOCUMENTS):
        return {}, docs  # (one document, refused by the caller; or too few: nothing looked at, nothing read)
    cap = MAX_DOCUMENT_BYTES if max_bytes is None else max_bytes
    if isinstance(docs, Rereadable):  # a corpus file streamed: its documents spread over it, read once more
        n = len(docs)
        return short_text_params(docs.sizes_at(spread(n), cap), n), docs
    try:
        n = len(docs)
        at = getattr(docs, "iloc", docs)  # (a pandas Series by position, whatever its index)
        sample = [at[i] for i in spread(n)]
    except (TypeError, AttributeError, LookupError, ValueError):  # (an iterator; a mapping)
        docs = iter(docs)
        head = list(islice(docs, SHORT_TEXT_DOCUMENTS))
        n = len(head)
        sample, docs = [head[i] for i in spread(n)], chain(head, docs)
    return short_text_params(sample_sizes(lambda below: [text_bytes(doc, cap, below) for doc in sample]), n), docs


def sample_sizes(measure):
    """The sizes of the documents :func:`default_vectorizer` looks at, for
    :func:`short_text_params`: ``measure(read_below)``, the
    :func:`~textnb.io.corpus.text_bytes` of each (its text's UTF-8 bytes, as a TSV row of
    the same text is measured), files measured by their sizes first (``read_below`` 0:
    nothing read). Only when those make the texts short are the files under
    :data:`~textnb.text.defaults.SHORT_TEXT_BYTES` (and
    :data:`~textnb.io.corpus.TEXT_SHORTER_BY`) read and measured by their text (a
    Windows-1252 or Latin-1 file's text is longer in UTF-8 than the file); a file's text
    is never shorter but for that margin, so the rule's answer is its texts' with nothing
    read for long texts (20 Newsgroups' median file is 1,178 bytes)."""
    from textnb.io.corpus import TEXT_SHORTER_BY
    from textnb.text.defaults import SHORT_TEXT_BYTES, SHORT_TEXT_DOCUMENTS

    sizes = measure(0)
    if short_text_params(sizes, SHORT_TEXT_DOCUMENTS):  # (short by the files' sizes: their texts may be longer)
        sizes = measure(SHORT_TEXT_BYTES + TEXT_SHORTER_BY)
    return sizes


def spread(n):
    """Up to :data:`_SIZE_SAMPLE` positions evenly spaced over ``range(n)``."""
    k = min(n, _SIZE_SAMPLE)
    return [i * n // k for i in range(k)]


def short_text_params(sizes, n):
    """The rule of :func:`default_vectorizer`: :data:`~textnb.text.defaults.SHORT_TEXT_VECTORIZER`
    when the ``n`` training documents are at least
    :data:`~textnb.text.defaults.SHORT_TEXT_DOCUMENTS` and the median of the known ``sizes``
    (:func:`textnb.io.corpus.text_bytes`; 0: unknown, a file that cannot be stat'ed or an
    empty one) of those spread over them is under :data:`~textnb.text.defaults.SHORT_TEXT_BYTES`,
    half of them known at least; else ``{}``."""
    from textnb.text.defaults import SHORT_TEXT_BYTES, SHORT_TEXT_DOCUMENTS, SHORT_TEXT_VECTORIZER

    known = [s for s in sizes if s]
    if n < SHORT_TEXT_DOCUMENTS or not known or 2 * len(known) < len(sizes) \
            or np.median(known) >= SHORT_TEXT_BYTES:
        return {}
    return dict(SHORT_TEXT_VECTORIZER)


def count_labelled(X, y, vec_params, *, sample_weight=None, per_class="tf", n_jobs=None, batch_size=2000,
                   max_bytes=None, progress=None, client=None, rows=False, budget=None, classes=None):
    """What every trainer of documents starts with: ``(classes, accumulator, columns,
    max_bytes)`` of the documents ``X`` labelled ``y`` (one label each), counted by
    :func:`count_documents` under the analyzer of the vectorizer parameters ``vec_params``
    (all of them), the columns its ``min_df`` / ``max_df`` / ``max_features`` keep
    (:func:`select_columns`) and ``max_bytes`` (None: the TextClassifier default).
    ``budget(n_classes)``: the rows' cell budget (None: every row kept, with ``rows``).
    ``classes``: the classes in their order (declared ones; None: the sorted labels of ``y``)."""
    y = one_label_each(y)
    classes, y_index = fit_classes(y, classes)
    weights = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    if weights.shape != y.shape:
        raise ValueError(f"sample_weight has shape {weights.shape}; expected {y.shape}")
    max_bytes = TEXT_CLASSIFIER_DEFAULTS["max_bytes"] if max_bytes is None else max_bytes
    acc = count_documents(X, y_index, weights, len(classes), fitting_analyzer(vec_params), per_class=per_class,
                          n_jobs=n_jobs, batch_size=batch_size, max_bytes=max_bytes, progress=progress,
                          client=client, rows=rows, max_row_nnz=None if budget is None else budget(len(classes)),
                          binary=bool(vec_params["binary"]))
    cols = select_columns(acc, len(y), min_df=vec_params["min_df"], max_df=vec_params["max_df"],
                          max_features=vec_params["max_features"])
    return classes, acc, cols, max_bytes


def one_label_each(y):
    """``y`` as an array of one label per document; an InputError (a ValueError) for
    anything else, pointing label sets (a list of labels per document) to MultiLabelNB.

    ``y`` may be any iterable of labels, read once, as the documents may be (a generator,
    ``map``, ``zip(*pairs)[1]``...): one without a length is read into a list first (numpy
    would take it for a single object)."""
    if not hasattr(y, "__len__") and not isinstance(y, (str, bytes)) and hasattr(y, "__iter__"):
        y = list(y)
    try:
        labels = np.asarray(y)
    except ValueError:  # label lists of different lengths
        labels = None
    if labels is not None and labels.ndim == 2 and labels.shape[1] == 1 and labels.dtype != object:
        from sklearn.utils.validation import column_or_1d  # (only here: training imports no scikit-learn)

        labels = column_or_1d(labels, warn=True)  # raveled with its warning, as its estimators and ours take it
    sets = labels is None or labels.ndim != 1 or (
        labels.dtype == object and any(isinstance(v, (list, tuple, set, frozenset)) for v in labels))
    if sets:
        got = "" if labels is None else f"; got shape {labels.shape}"
        raise InputError(f"y must be one label per document{got}; for several labels per document "
                         "use MultiLabelNB (TextClassifier(model=MultiLabelNB()); textnb train --labels / --multilabel)")
    return labels


def vectorized_rows(acc, cols, binary):
    """``(X, y_index, weights)`` of every document kept by ``acc`` over the columns ``cols``:
    the Vectorizer's output (presence with ``binary``, a scipy.sparse CSR matrix), which the
    estimators fit on."""
    X_rows, y_rows, w_rows = acc.row_matrix(cols)
    X_rows = X_rows.to_scipy()
    if binary:
        X_rows.data[:] = 1.0
    return X_rows, y_rows, w_rows


def text_classifier_node(vec_params, terms, fitted_model, template, classes, *, max_bytes, given_vectorizer=True):
    """The ``TextClassifier`` node of a fitted model: what its ``save`` writes, with the
    vectorizer's parameters ``vec_params`` (all of them), its stored vocabulary ``terms``
    (:func:`~textnb.text.tokenize.encode_terms`), the fitted model's node and its unfitted
    ``template`` (``given_vectorizer`` False: the ``vectorizer`` parameter was None)."""
    params = {"max_bytes": max_bytes,
              "vectorizer": ModelNode("Vectorizer", vec_params, {}) if given_vectorizer else None,
              "model": template}
    return ModelNode("TextClassifier", params, {"vectorizer_": ModelNode("Vectorizer", vec_params, terms),
                                               "model_": fitted_model, "classes_": classes})


def takes_fold_counts_spec(model):
    """Whether the model ``model`` (``(kind, params)`` as :func:`fit_model` takes it) uses
    ``fold_counts`` (:func:`textnb.core.wrapping.takes_fold_counts` of the estimator it
    describes): a SmoothingCV, an APNBC with ``fit_on="cv"``, or a CalibratedNB or APNBC
    around a SmoothingCV."""
    kind, given = model[:2]
    while True:
        if kind in ("SmoothingCV", "CalibratedNB") or (kind == "APNBC" and given.get("fit_on") == "cv"):
            return True
        if kind not in ("CalibratedNB", "APNBC") or not given.get("estimator"):
            return False
        kind, given = given["estimator"][:2]


def with_choices(model, steps, fitted):
    """``(model, steps)`` as :func:`fit_model` takes them: the model ``model`` with the
    Pipeline ``steps`` in front of it, whose node :func:`fit_model` ``fitted`` on all the
    data, with the choices that fit made from the data fixed -- a SmoothingCV: the model it
    chose (its term weighting a step, its ``m``); a DiscriminativeNB with
    ``event_model="auto"``: the event model and smoothing (the kernel's
    :meth:`~textnb.naive_bayes.kernels.CountKernel.chosen_params`); a CalibratedNB or APNBC:
    the model it wraps so -- or None when it made none. What
    :func:`textnb.naive_bayes.base.with_choices` gives the estimators: the model that the
    folds fitted to threshold, calibrate or adjust ``fitted`` fit, so that their scores are
    on its scale (a fold choosing again may choose otherwise)."""
    kind, given = model
    if kind in ("CalibratedNB", "APNBC"):
        chosen = with_choices(given.get("estimator") or ("MultinomialNB", {}), steps, fitted.state["estimator_"])
        if chosen is None:
            return None
        inner, steps = chosen
        return (kind, {**given, "estimator": inner}), steps
    if kind == "SmoothingCV":
        m = fitted.state["best_params_"]["multinomialnb__m"]
        return ("MultinomialNB", {"m": m}), _smoothing_steps()
    kernel = KERNELS.get(kind)
    if kernel is None:
        return None
    chosen = kernel.chosen_params(kernel.params(given), _last_node(fitted, steps).state)
    return None if chosen is None else ((kind, chosen), steps)


def _last_node(fitted, steps):
    """The model's node in the node ``fitted`` of a model with Pipeline ``steps`` in front
    of it (``fitted`` itself without steps)."""
    return fitted.params["steps"][-1][1] if steps else fitted


def _chosen_spec(spec, fitted):
    """``spec`` (:class:`_Spec`) with the choices its model, ``fitted`` on all the data (its
    node, a Pipeline's with steps), made fixed in its parameters (:func:`with_choices`), or
    ``spec`` itself when it made none: what CalibratedNB's folds fit."""
    chosen = spec.kernel.chosen_params(spec.params, _last_node(fitted, spec.steps).state)
    if chosen is None:
        return spec
    saved = {k: v for k, v in chosen.items() if k not in spec.kernel.execution_params}
    return spec._replace(params=chosen, saved_params=saved)


def _smoothing_steps():
    """The Pipeline steps in front of the count model of a SmoothingCV's default estimator."""
    from textnb.text.wrappers import WEIGHTING_DEFAULTS

    return [("termweighting", ("TermWeighting", dict(WEIGHTING_DEFAULTS)))]


def fit_model(model, steps, classes, X, y_index, weights=None, fold_counts=None, groups=None):
    """``(fitted node, template node)`` of ``model`` (``(kind, params)`` as
    :func:`train_text_model` takes it: a count model, ``SmoothingCV``, or ``CalibratedNB``
    or ``APNBC`` around one) with the Pipeline ``steps`` in front of the count model, fitted
    on the CSR matrix ``X`` (float64, sorted indices) of documents of ``classes[y_index]``:
    what the estimators' ``fit`` computes on that matrix, through the same functions (the
    trainer's and ``textnb evaluate``'s folds' fit). ``weights``: the documents' weights
    (None: ones), for a count model without steps or wrappers. ``fold_counts``: what a
    SmoothingCV's or an APNBC's ``fit`` takes (:func:`fold_vocabularies`; None: their folds
    on ``X``'s columns). ``groups`` (one value per row): what their ``fit`` takes
    (:func:`textnb.core.wrapping.takes_groups`), the folds they make keeping a group's rows
    (the copies of a multi-label document) on one side."""
    return _fit_scored(model, steps, classes, X, y_index, weights, fold_counts, groups)[:2]


def _fit_scored(model, steps, classes, X, y_index, weights=None, fold_counts=None, groups=None):
    """:func:`fit_model`'s ``(fitted node, template node)`` and ``joint(X_test)``, the
    fitted model's ``predict_joint_log_proba`` of CSR counts (None for a ``CalibratedNB``,
    which has none)."""
    kind, given = model
    if kind == "APNBC":
        if weights is not None:
            raise ValueError("document weights are taken by a count model without wrappers")
        return _fit_adjusted(given, steps, classes, X, y_index, fold_counts, groups)
    calibration = None
    if kind == "CalibratedNB":
        calibration = _calibration_params({k: v for k, v in given.items() if k != "estimator"})
        kind, given = given["estimator"]
    steps = [(name, (step_kind, _step_params(step_kind, step_params))) for name, (step_kind, step_params) in steps]
    if weights is not None and (calibration is not None or kind == "SmoothingCV"):
        raise ValueError("document weights are taken by a count model without wrappers")
    if kind == "SmoothingCV":
        if steps:
            raise ValueError("a SmoothingCV is fitted without Pipeline steps around it")
        fitted, template, spec, joint = _fit_smoothing(given, classes, X, y_index, fold_counts, groups)
        chosen = fitted.state["estimator_"]  # (the node of the model it chose, ``spec``)
    else:
        kernel = KERNELS[kind]
        params = kernel.params(given)
        kernel.check_params(params)
        saved = {k: v for k, v in params.items() if k not in kernel.execution_params}
        spec = _Spec(kind, kernel, params, saved, steps, "model")
        fitted, template, joint = _fit_spec(spec, classes, X, y_index, weights, groups)
        chosen = fitted
    if calibration is not None:  # (its folds fit the model with the choices made on all of X)
        fitted, template = _fit_calibrated(calibration, _chosen_spec(spec, chosen), fitted, template, classes, X,
                                           y_index, fold_counts, groups)
        joint = None
    return fitted, template, joint


def _fit_adjusted(given, steps, classes, X, y_index, fold_counts=None, groups=None):
    """The fitted node, the template and ``joint`` of ``APNBC(estimator, **params)``
    (``given``: its parameters, ``estimator`` the ``(kind, params)`` of the model it wraps,
    as :func:`fit_model` takes it; None: ``MultinomialNB()``) on the CSR matrix ``X`` of
    documents of ``classes[y_index]``: what its ``fit`` computes, through its kernel
    (:class:`~textnb.semi_naive.apnbc_kernel.APNBCKernel`, reached through
    :func:`textnb.core.registry.kernel_class`): the wrapped model fitted on every row, the
    weight search (``learn_weights``) on its joint log-likelihoods of those rows, or with
    ``fit_on="cv"`` on the out-of-fold ones of models refitted on each fold's rows
    (``out_of_fold_scores``; the wrapped model with the choices it made on every row kept,
    :func:`with_choices`). ``fold_counts`` (:func:`fold_vocabularies`): handed on to a
    wrapped SmoothingCV's fit on every row, and with ``fit_on="cv"`` each fold's model is
    fitted on the fold's own vocabulary (``APNBCKernel.fold_input``), as the estimator fits
    it; None: on every column of ``X``. ``groups``: the folds keep a group's rows on one
    side, and the wrapped model (each fold's, those of its rows) gets them, as the estimator's."""
    from textnb.core.registry import kernel_class

    apnbc = kernel_class("APNBC")
    inner = given.get("estimator") or ("MultinomialNB", {})
    params = apnbc.params({k: v for k, v in given.items() if k != "estimator"})
    apnbc.check_params(params)
    if not isinstance(params["cv"], int):
        raise ValueError("train_text_model adjusts on a number of folds")
    if inner[0] in ("CalibratedNB", "APNBC"):
        raise ValueError(f"APNBC needs a model that gives joint log probabilities, not a {inner[0]}")
    groups = None if groups is None else np.asarray(groups)
    fitted, template, joint = _fit_scored(inner, steps, classes, X, y_index, fold_counts=fold_counts, groups=groups)
    if params["fit_on"] == "cv":
        # the folds fit the model with the choices it made on every row (as the estimator's fit)
        fold_model, fold_steps = with_choices(inner, steps, fitted) or (inner, steps)

        def fit_score(train, test):
            fold = np.unique(y_index[train])  # (sorted: the fold model's classes)
            Xf, inner_folds = X, None
            if fold_counts is not None:  # the fold's own vocabulary, as the estimator's fit (fold_input)
                import scipy.sparse as sp

                Xf, _, inner_folds = apnbc.fold_input(fold_counts, train)
                Xf = sp.csr_matrix(Xf, dtype=np.float64)
                Xf.sort_indices()
            _, _, fold_joint = _fit_scored(fold_model, fold_steps, classes[fold], Xf[train],
                                           np.searchsorted(fold, y_index[train]), fold_counts=inner_folds,
                                           groups=None if groups is None else groups[train])
            return classes[fold], fold_joint(Xf[test])

        jll = apnbc.out_of_fold_scores(fit_score, classes[y_index], classes, params["cv"], params["random_state"],
                                       groups=groups)
    else:
        jll = joint(X)
    # the fitted attributes in the order the estimator's fit sets them
    state = {"n_features_in_": X.shape[1], "estimator_": fitted, "classes_": classes,
             **apnbc.learn_weights(jll, y_index, classes, significance=params["significance"],
                                   epsilon=params["epsilon"])}
    node_params = {name: template if name == "estimator" else params[name] for name in sorted(apnbc.defaults)}
    weights = state["class_log_weight_"]

    def adjusted_joint(X_test):
        return apnbc.adjusted(joint(X_test), weights)

    return ModelNode("APNBC", node_params, state), ModelNode("APNBC", node_params, {}), adjusted_joint


class _Spec(NamedTuple):
    """A count model (``kind``, its kernel and parameters, those saved) with Pipeline
    ``steps`` in front of it, its step named ``name`` (what the estimators would build)."""

    kind: str
    kernel: object
    params: dict
    saved_params: dict
    steps: list
    name: str


def _fit_spec(spec, classes, X, y_index, weights=None, groups=None):
    """``(fitted node, template node, joint)`` of the model ``spec`` fitted on the CSR
    matrix ``X`` (float64, sorted indices) of documents of ``classes[y_index]`` (weighted
    by ``weights``, None: ones), as the estimators' ``fit``; ``joint(X_test)`` is the fitted
    model's ``predict_joint_log_proba`` (through its Pipeline steps). ``groups``: the rows'
    groups, for a DiscriminativeNB (its folds keep a group's rows together, as its
    ``fit(..., groups=)``), behind the steps too (the steps keep the rows: as a Pipeline's
    ``fit(..., model__groups=)``, :func:`textnb.core.wrapping.groups_kwargs`)."""
    if weights is not None and spec.steps:
        raise ValueError("document weights are taken by a count model without Pipeline steps")
    fitted_steps, transforms, Xt = _fit_steps(spec.steps, classes, X, y_index)
    kernel, params = spec.kernel, spec.params
    if kernel.rows:  # what DiscriminativeNB.fit computes on a matrix, by the same function
        state = kernel.fit(params, classes, Xt, y_index, np.ones(Xt.shape[0]) if weights is None else weights,
                           groups=groups)
    else:
        kernel.check_params(params, Xt.shape[1])
        state = kernel.fit(params, classes, Xt, y_index, weights)
    fitted, template = ModelNode(spec.kind, spec.saved_params, state), ModelNode(spec.kind, spec.saved_params, {})
    if spec.steps:
        fitted = _pipeline(fitted_steps + [(spec.name, fitted)])
        template = _pipeline([(name, ModelNode(k, p, {})) for name, (k, p) in spec.steps] + [(spec.name, template)])

    def joint(X_test):
        for transform in transforms:
            X_test = transform(X_test)
        return kernel.joint_log_likelihood(params, state, kernel.estimate(params, state), X_test)

    return fitted, template, joint


def _calibration_params(given):
    """Every parameter of a CalibratedNB but its estimator, checked (a number of folds: what
    :func:`_fit_calibrated` computes)."""
    from textnb.core.model_schema import check_param_values
    from textnb.text.wrappers import CALIBRATED_PARAMS

    params = {"method": "sigmoid", "cv": 5, "target_fpr": None, "random_state": 0, **given}
    check_param_values({k: v for k, v in CALIBRATED_PARAMS.items() if k != "estimator"}, params)
    if not isinstance(params["cv"], int):
        raise ValueError("train_text_model calibrates on a number of folds")
    return params


def _fit_calibrated(params, spec, fitted, template, classes, X, y_index, fold_counts=None, groups=None):
    """The fitted node and template of ``CalibratedNB(estimator, **params)`` (sigmoid or
    isotonic maps) around a model already ``fitted`` on all of ``X``, ``spec`` that model with
    the choices it made there fixed (:func:`_chosen_spec`): what its ``fit``
    computes -- out-of-fold log-odds of ``spec`` refitted on each fold's training part
    (on the terms that part has, or with ``fold_counts`` (:func:`fold_vocabularies`) on the
    vocabulary it keeps; :func:`textnb.core.folds.stratified_kfold`), Platt's maps
    or the isotonic steps, and the per-class thresholds on them (:func:`textnb.text.wrappers.fit_sigmoid`,
    :func:`~textnb.text.wrappers.fit_isotonic`, :func:`~textnb.text.wrappers.threshold_for_f1`) -- through
    the kernels. ``groups``: the folds keep a group's rows on one side."""
    from textnb.core.folds import calibration_folds
    from textnb.core.stats import seen_columns
    from textnb.text.wrappers import (calibrated_classes, finite_scores, fit_isotonic, fit_sigmoid, threshold_for_f1,
                                      threshold_for_fpr)

    n = len(classes)
    calibrated = calibrated_classes({"n_classes": n})
    if n >= 2:
        scores = np.empty((X.shape[0], n))
        for train, test in calibration_folds(classes[y_index], params["cv"], params["random_state"], groups=groups):
            if fold_counts is not None:  # the fold's own vocabulary, as CalibratedNB's fit (out_of_fold_log_odds)
                import scipy.sparse as sp

                Xf = sp.csr_matrix(fold_counts(train), dtype=np.float64)
                Xf.sort_indices()
                X_train, X_test = Xf[train], Xf[test]
            else:
                cols = seen_columns(X[train])
                X_train, X_test = X[train][:, cols], X[test][:, cols]
            fold_classes = np.unique(y_index[train])
            _, _, joint = _fit_spec(spec, classes[fold_classes], X_train, np.searchsorted(fold_classes, y_index[train]),
                                    groups=None if groups is None else np.asarray(groups)[train])
            jll = joint(X_test)
            lp = log_proba_from_jll(jll)  # its predict_log_proba
            full = np.full((lp.shape[0], n), -np.inf)
            full[:, fold_classes] = lp
            scores[test] = log_odds(full)
        scores = finite_scores(scores)
        w = np.ones(len(y_index))
        sig, iso_x, iso_y = [], [], []
        for c in calibrated:
            t = (y_index == c).astype(np.float64)
            if params["method"] == "sigmoid":
                sig.append(fit_sigmoid(scores[:, c], t, w))
            else:  # floor / ceiling 1 / (n + 2), as CalibratedNB
                eps = 1.0 / (np.sum(w) + 2.0)
                steps_x, steps_y = fit_isotonic(scores[:, c], t, w, eps, 1.0 - eps)
                iso_x.append(steps_x)
                iso_y.append(steps_y)
        sigmoid = np.array(sig, dtype=np.float64).reshape(-1, 2)
        thresholds = np.array([
            threshold_for_f1(scores[:, c], y_index == c) if params["target_fpr"] is None
            else threshold_for_fpr(scores[:, c], y_index == c, params["target_fpr"]) for c in range(n)])
    else:
        sigmoid, iso_x, iso_y, thresholds = np.zeros((0, 2)), [], [], np.array([-np.inf])
    node_params = {"cv": params["cv"], "estimator": template, "method": params["method"],
                   "random_state": params["random_state"], "target_fpr": params["target_fpr"]}
    state = {"n_features_in_": X.shape[1], "classes_": classes, "calibrated_classes_": calibrated,
             "sigmoid_": sigmoid, "isotonic_x_": iso_x, "isotonic_y_": iso_y, "thresholds_": thresholds,
             "estimator_": fitted}
    return ModelNode("CalibratedNB", node_params, state), ModelNode("CalibratedNB", node_params, {})


def _fit_smoothing(given, classes, X, y_index, fold_counts=None, groups=None):
    """The fitted node and the template of ``SmoothingCV(**given)`` with its default
    estimator (``Pipeline([("termweighting", TermWeighting()), ("multinomialnb",
    MultinomialNB())])``) and grid (the m-estimate over
    :data:`textnb.text.wrappers.SMOOTHING_GRID`, scored by accuracy), fitted on the CSR
    matrix ``X`` of documents of classes ``y_index``: what its ``fit`` computes, through its
    fast path's function (:func:`textnb.text.wrappers.held_out_predictions`), its folds
    (:func:`textnb.core.folds.stratified_kfold`) and the kernels; the :class:`_Spec` of
    the model it chose (a CalibratedNB around it calibrates that) and its ``joint``
    (:func:`_fit_spec`: SmoothingCV's ``predict_joint_log_proba``). ``fold_counts``: as its
    ``fit`` takes it (each fold scored on the columns of its training part's vocabulary,
    :func:`textnb.text.wrappers.fold_predictions`); ``groups``: its folds keep a group's rows
    on one side."""
    from textnb.core.folds import stratified_kfold
    from textnb.text.wrappers import SMOOTHING_GRID, fold_predictions, held_out_predictions

    params = {"cv": 5, "estimator": None, "param_grid": None, "random_state": 0, "scoring": "accuracy", **given}
    if params["estimator"] is not None or params["param_grid"] is not None or params["scoring"] != "accuracy" \
            or not isinstance(params["cv"], int):
        raise ValueError("train_text_model fits a SmoothingCV with its default estimator, grid and scoring "
                         "and a number of folds")
    grid = [{"multinomialnb__m": m} for m in SMOOTHING_GRID]
    counts = np.bincount(y_index, minlength=len(classes))
    n_splits = int(min(params["cv"], counts.max()))
    steps = _smoothing_steps()
    mn = KERNELS["MultinomialNB"]
    if len(classes) < 2 or n_splits < 2:
        scores = [float("nan")] * len(grid)
    else:
        splits = stratified_kfold(np.asarray(classes)[y_index], n_splits, params["random_state"], groups=groups)
        finals = [(mn, mn.params({"m": p["multinomialnb__m"]})) for p in grid]
        if fold_counts is None:  # the steps fitted once, on every row
            Xt = _fit_steps(steps, classes, X, y_index)[2]
            preds, tested = held_out_predictions(Xt, y_index, len(classes), classes, splits, finals)
        else:
            import scipy.sparse as sp

            def fold_matrix(train):  # the steps fitted on the fold's training rows, applied to all
                Xf = sp.csr_matrix(fold_counts(train), dtype=np.float64)
                _, transforms, _ = _fit_steps(steps, classes, Xf[train], y_index[train])
                for transform in transforms:
                    Xf = transform(Xf)
                return Xf

            preds, tested = fold_predictions(fold_matrix, y_index, len(classes), classes, splits, finals)
        scores = [float(np.mean(y_index[tested] == p)) for p in preds]  # (SmoothingCV's accuracy)
    best = int(np.argmax([v if np.isfinite(v) else -np.inf for v in scores]))
    model_params = mn.params({"m": grid[best]["multinomialnb__m"]})
    spec = _Spec("MultinomialNB", mn, model_params, model_params, steps, "multinomialnb")
    estimator, _, joint = _fit_spec(spec, classes, X, y_index)
    state = {"n_features_in_": X.shape[1], "classes_": classes,
             "cv_results_": [(dict(p), v) for p, v in zip(grid, scores)], "best_params_": dict(grid[best]),
             "estimator_": estimator}
    return ModelNode("SmoothingCV", params, state), ModelNode("SmoothingCV", params, {}), spec, joint


def _step_params(kind, given):
    """Every parameter of a Pipeline step of ``kind`` (its defaults, updated with ``given``), checked."""
    from textnb.core.model_schema import check_param_values
    from textnb.text.wrappers import SELECT_DEFAULTS, SELECT_PARAMS, WEIGHTING_DEFAULTS, WEIGHTING_PARAMS

    defaults, schema = {"SelectTerms": (SELECT_DEFAULTS, SELECT_PARAMS),
                        "TermWeighting": (WEIGHTING_DEFAULTS, WEIGHTING_PARAMS)}[kind]
    unknown = sorted(set(given) - set(defaults))
    if unknown:
        raise TypeError(f"{kind} takes no parameter {unknown[0]!r}")
    params = {**defaults, **given}
    check_param_values(schema, params)
    return params


def _fit_steps(steps, classes, X, y_index):
    """The fitted nodes of the Pipeline ``steps`` fitted in turn on the CSR matrix ``X``
    (float64, sorted indices) of documents of classes ``y_index``, their ``transform``
    functions, and the matrix the model then learns: what ``SelectTerms`` and
    ``TermWeighting`` ``fit_transform``, by their functions (:mod:`textnb.text.wrappers`)."""
    from textnb.text.wrappers import (document_frequency, idf_weights, presence_counts, support_mask, term_scores,
                                      weigh_cells)

    fitted, transforms = [], []
    for name, (kind, params) in steps:
        n = X.shape[1]
        if kind == "SelectTerms":
            class_count, class_df = presence_counts(X.data, X.indices, X.indptr, y_index, len(classes), n)
            kept = np.flatnonzero(support_mask(term_scores(class_df, class_count, params["criterion"]), params["k"]))
            state = {"classes_": classes, "class_count_": class_count, "class_df_": class_df, "n_features_in_": n}

            def transform(M, kept=kept):  # scikit-learn's SelectorMixin.transform: the same column indexing
                return M[:, kept]
        else:
            n_documents = float(X.shape[0])
            df = document_frequency(X.data, X.indices, n)
            idf = idf_weights(n_documents, df, params["idf"])
            state = {"n_features_in_": n, "n_documents_": n_documents, "document_frequency_": df, "idf_": idf}

            def transform(M, idf=idf if params["idf"] is not None else None, params=params):
                M = M.astype(np.float64)  # (a copy)
                M.sum_duplicates()
                M.data = weigh_cells(M.data, M.indices, M.indptr, idf, binary=params["binary"],
                                     sublinear_tf=params["sublinear_tf"], length_norm=params["length_norm"])
                return M
        X = transform(X)
        fitted.append((name, ModelNode(kind, params, state)))
        transforms.append(transform)
    return fitted, transforms, X


def _pipeline(steps):
    """A scikit-learn ``Pipeline``'s model-file node with these ``(name, node)`` steps."""
    return ModelNode("Pipeline", {"memory": None, "steps": [tuple(s) for s in steps], "transform_input": None,
                                  "verbose": False}, {})
