"""Training on a Dask cluster: shards go to workers, per-class sums come back and add up.

A naive Bayes model is nothing but sums of counts, so training maps each shard of
documents to its per-class term sums (:func:`textnb.counting.count_shard`) and
reduces by adding them: on one machine with joblib processes, on many with Dask
workers (``distributed``). The sums are the same whichever way they were computed, so
the model file is byte-identical to single-process training.

Documents given as file paths are read by the workers: on a real cluster the corpus
must be on a file system every worker sees at the same path (NFS, a shared volume),
or pass the texts themselves (str), or use :func:`fit_bag` on a ``dask.bag``.
"""

from collections import deque
from contextlib import contextmanager

import numpy as np

from textnb.errors import TextnbError

__all__ = ["connect", "map_ordered", "fit_bag"]


@contextmanager
def connect(scheduler):
    """A ``distributed.Client`` for ``scheduler``, closed on exit.

    ``scheduler`` is a scheduler address (``tcp://10.0.0.5:8786``) or ``local:N`` to
    start a ``LocalCluster`` of N single-threaded worker processes on 127.0.0.1 (stopped
    on exit).
    """
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise TextnbError("Dask is needed for --scheduler; pip install 'textnb[dask]'") from None
    if scheduler.startswith("local:"):
        try:
            n = int(scheduler.split(":", 1)[1])
        except ValueError:
            raise TextnbError(f"--scheduler {scheduler!r}: expected local:N with N workers") from None
        if n < 1:
            raise TextnbError(f"--scheduler {scheduler!r}: need at least one worker")
        cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, host="127.0.0.1",
                               dashboard_address=None)
        client = Client(cluster)
        try:
            yield client
        finally:
            client.close()
            cluster.close()
    else:
        try:
            client = Client(scheduler, timeout="5s")
        except (OSError, TimeoutError) as exc:
            raise TextnbError(f"cannot reach the Dask scheduler at {scheduler} ({exc})") from None
        try:
            yield client
        finally:
            client.close()


def map_ordered(client, func, arg_tuples, *, window=None):
    """``func(*args)`` for each tuple on the cluster, results in submission order.

    At most ``window`` tasks (default: twice the number of worker threads) are in
    flight, so the documents of only that many shards are held at once.
    """
    if window is None:
        window = max(2, 2 * sum(client.nthreads().values()))
    pending = deque()
    for args in arg_tuples:
        pending.append(client.submit(func, *args, pure=False))
        if len(pending) >= window:
            future = pending.popleft()
            yield future.result()
            future.release()
    while pending:
        future = pending.popleft()
        yield future.result()
        future.release()


def _count_partition(pairs, classes, analyzer, max_bytes):
    from textnb.counting import count_shard

    pairs = list(pairs)
    docs = [p[0] for p in pairs]
    y_index = np.searchsorted(classes, np.asarray([p[1] for p in pairs], dtype=classes.dtype))
    return [count_shard(docs, y_index, np.ones(len(docs)), analyzer, len(classes), max_bytes)]


def fit_bag(classifier, bag, classes=None):
    """Fit a :class:`~textnb.TextClassifier` on a ``dask.bag`` of ``(document, label)`` pairs.

    Each partition is counted where it lives; only the per-class sums travel. With
    ``classes=None`` the labels are found by one pass over the bag first.
    Returns the fitted classifier.
    """
    from sklearn.base import clone

    from textnb.classifier import _Accumulator, _per_class
    from textnb.naive_bayes import MultinomialNB
    from textnb.text import Vectorizer

    if classes is None:
        classes = bag.pluck(1).distinct().compute()
    classes = np.unique(np.asarray(classes))
    vectorizer = clone(classifier.vectorizer) if classifier.vectorizer is not None else Vectorizer()
    model = clone(classifier.model) if classifier.model is not None else MultinomialNB()
    if not classifier._streams(model, vectorizer):
        raise ValueError("fit_bag needs a MultinomialNB or BernoulliNB model over counts")
    vectorizer._check_params()
    results = bag.map_partitions(_count_partition, classes, vectorizer.build_analyzer(),
                                 classifier.max_bytes).compute()
    acc = _Accumulator(len(classes), per_class=_per_class(model))
    n_docs = 0
    for terms, sums, class_count, skipped, n in results:
        acc.add(terms, sums, class_count, skipped)
        n_docs += n
    unknown = n_docs - len(acc.skipped) - acc.class_count.sum()
    if unknown > 1e-9:
        raise ValueError("the bag holds labels that are not in classes")
    classifier.skipped_ = acc.skipped
    classifier._fit_from_sums(acc, classes, vectorizer, model, n_docs)
    classifier.vectorizer_, classifier.model_, classifier.classes_ = vectorizer, model, model.classes_
    return classifier
