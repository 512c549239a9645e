"""Training on a Dask cluster: shards go to workers, per-class sums come back and add up.

A naive Bayes model is nothing but sums of counts, so training maps each shard of
documents to its per-class term sums (:func:`textnb.text.counting.count_shard`) and
reduces by adding them: on one machine with joblib processes, on many with Dask
workers (``distributed``). The sums are the same whichever way they were computed, so
the model file is byte-identical to single-process training. The default
:class:`~textnb.naive_bayes.discriminative.DiscriminativeNB` also needs the documents'
sparse rows (its passes re-score them): the workers send them back with the sums and
the passes run where the model is assembled, on the same rows in the same order, so
its file is byte-identical too.

Documents given as file paths are read by the workers: on a real cluster the corpus
must be on a file system every worker sees at the same path (NFS, a shared volume),
or pass the texts themselves (str), or use :func:`fit_bag` on a ``dask.bag``.
"""

import numpy as np

from textnb.core.workers import connect, map_ordered
from textnb.naive_bayes.discriminative import DiscriminativeNB
from textnb.text.classifier import _per_class, _row_budget
from textnb.text.counting import count_shard
from textnb.text.training import Accumulator, sample_sizes, short_text_params, spread
from textnb.text.vectorizer import Vectorizer

__all__ = ["connect", "map_ordered", "fit_bag"]


def _count_partition(pairs, classes, analyzer, max_bytes, rows=False):
    pairs = list(pairs)
    docs = [p[0] for p in pairs]
    # by exact label: a search in the classes cast to their string width put a label
    # outside them on a class ("maybe" as "may", or the next one up)
    position = {c: i for i, c in enumerate(classes.tolist())}
    try:
        y_index = np.array([position[p[1]] for p in pairs], dtype=np.intp)
    except KeyError:
        raise ValueError("the bag holds labels that are not in classes") from None
    return [(part, y_index) for part in count_shard(docs, y_index, np.ones(len(docs)), analyzer, len(classes), max_bytes,
                                                      rows)]


def _default_params(bag, max_bytes):
    """:func:`textnb.text.training.default_vectorizer`'s parameters for the bag's documents,
    as for an iterator: the sizes of its first documents, worked out where they live."""
    from textnb.io.corpus import MAX_DOCUMENT_BYTES, text_bytes
    from textnb.text.defaults import SHORT_TEXT_DOCUMENTS

    cap = MAX_DOCUMENT_BYTES if max_bytes is None else max_bytes

    n = 0

    def measure(below):  # (sample_sizes' rule: files measured by their sizes first)
        nonlocal n
        sizes = bag.pluck(0).map(text_bytes, cap, below).take(SHORT_TEXT_DOCUMENTS, npartitions=-1, warn=False)
        n = len(sizes)
        return [sizes[i] for i in spread(n)]

    sizes = sample_sizes(measure)
    return short_text_params(sizes, n)


def fit_bag(classifier, bag, classes=None):
    """Fit a :class:`~textnb.TextClassifier` on a ``dask.bag`` of ``(document, label)`` pairs.

    Each partition is counted where it lives; only the per-class sums travel (and, for the
    default :class:`~textnb.naive_bayes.discriminative.DiscriminativeNB`, the documents'
    sparse rows, which its passes re-score on the client). With
    ``classes=None`` the labels are found by one pass over the bag first.
    Returns the fitted classifier.
    """
    from sklearn.base import clone


    if classes is None:
        classes = bag.pluck(1).distinct().compute()
    classes = np.unique(np.asarray(classes))
    model = clone(classifier.model) if classifier.model is not None else DiscriminativeNB()
    if classifier.vectorizer is not None:
        vectorizer = clone(classifier.vectorizer)
    elif isinstance(model, DiscriminativeNB):  # the default pipeline: short texts get their bigrams (as fit)
        vectorizer = Vectorizer(**_default_params(bag, classifier.max_bytes))
    else:
        vectorizer = Vectorizer()
    if not classifier._streams(model, vectorizer):
        raise ValueError("fit_bag needs a count model (MultinomialNB, BernoulliNB, ComplementNB, "
                         "DiscriminativeNB) over counts or binary counts (not a wrapper, a fixed vocabulary or "
                         "tf-idf weighting)")
    vectorizer._check_params()
    rows = isinstance(model, DiscriminativeNB)  # its passes need the documents' rows: they travel too
    results = bag.map_partitions(_count_partition, classes, vectorizer.build_analyzer(),
                                 classifier.max_bytes, rows).compute()
    acc = Accumulator(len(classes), per_class=_per_class(model), rows=rows,
                      max_row_nnz=_row_budget(model, len(classes)), binary=bool(vectorizer.binary))
    n_docs = 0
    for (terms, sums, class_count, skipped, n, *batch_rows), _ in results:
        acc.add(terms, sums, class_count, skipped, rows=batch_rows[0] if batch_rows else None)
        n_docs += n
    unknown = acc.skipped.learnt(n_docs) - acc.class_count.sum()
    if unknown > 1e-9:
        raise ValueError("the bag holds labels that are not in classes")
    classifier.skipped_ = acc.skipped
    classifier._fit_from_sums(acc, classes, vectorizer, model, n_docs)
    classifier.vectorizer_, classifier.model_, classifier.classes_ = vectorizer, model, model.classes_
    return classifier
