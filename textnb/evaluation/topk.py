"""Precision and recall at k, as fastText's ``test`` command measures and prints them.

For each example with at least one label the model knows, the model's k most probable
labels whose probability is at least ``threshold`` are its predictions; over the
examples,

* ``P@k`` = (predictions that are among the example's labels) / (predictions made),
* ``R@k`` = (the same count) / (the examples' labels),

NaN when a denominator is 0 (fastText's ``Meter``, ``src/meter.{h,cc}``). As fastText's
``Meter::log`` counts them, a label an example gives twice (``__label__a __label__a text``)
is two of its labels to recall (``gold += labels.size()``), and a prediction is correct
once however often its label is given (``utils::contains``): predicting ``a`` for that line
scores P@1 = 1, R@1 = 1/2. As fastText, an
example's labels that the model does not know are not counted, and an example with none
it knows is not an example (fastText's dictionary drops unknown labels). For a
single-label model with k = 1 and no threshold, P@1 = R@1 = accuracy on the examples.
A multi-label model (:class:`textnb.meta.multilabel.MultiLabelNB`) ranks its labels by
their one-vs-rest probabilities.
"""

import math
import os

import numpy as np

from textnb.core.labels import label_names  # (re-exported: the rule lives in the core, for every layer)

__all__ = ["MAX_K", "best_labels", "best_labels_of_rows", "check_k", "check_threshold", "check_top", "fasttext_test", "fasttext_test_label", "format_test_result",
           "label_names", "label_scores_at_k", "precision_recall_at_k", "proba_and_odds", "scored_batches",
           "threaded_scoring"]


def check_k(k):
    """``k`` as fastText takes it (an integer >= 1, or -1 for every label); ValueError otherwise."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or (k < 1 and k != -1):
        raise ValueError(f"k must be an integer >= 1, or -1 for every label; got {k!r}")
    return int(k)


#: The largest k one may ask for where a value is given rather than a whole ranking (``textnb
#: predict --top``'s bound, :data:`textnb.cli.argtypes.MAX_TOP`, and ``textnb serve``'s ``"top"``).
MAX_K = 10**6


def check_top(k):
    """``k`` as ``textnb predict --top`` takes it: :func:`check_k` (an integer >= 1, or -1 for
    every label; a bool is no integer) and at most :data:`MAX_K`; ValueError otherwise."""
    k = check_k(k)
    if k > MAX_K:
        raise ValueError(f"k must be an integer >= 1 and <= {MAX_K}, or -1 for every label; got {k!r}")
    return k


def check_threshold(threshold):
    """``threshold`` as a float in [0, 1] (a probability: fastText's ``predict`` and ``test``);
    ValueError otherwise (NaN, a negative number, a string that is no number, None)."""
    try:
        value = float(threshold)
    except (TypeError, ValueError):
        raise ValueError(f"threshold must be a number in [0, 1]; got {threshold!r}") from None
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"threshold must be in [0, 1]; got {threshold!r}")
    return value


def best_labels(scores, k, floor, ties=None):
    """Positions of the ``k`` largest ``scores`` of one example (-1: all of them), largest
    first, those at least ``floor``: the labels fastText's ``predict`` and ``test`` keep for
    ``k`` and a threshold. ``ties`` (e.g. log-odds beside probabilities that round to one
    float) orders equal scores, larger first; then the label order. The one rule of
    ``textnb predict --top / --threshold``, ``textnb test`` and :mod:`textnb.fasttext`, each
    given the model's ``predict_proba`` (compared with the threshold as probabilities, as
    fastText compares them) and its log-odds (:func:`proba_and_odds`), so a label one prints
    is a prediction the other counts."""
    scores = np.asarray(scores, dtype=np.float64)
    order = np.argsort(-scores, kind="stable") if ties is None else \
        np.lexsort((-np.asarray(ties, dtype=np.float64), -scores))
    order = order[:None if k == -1 else k]
    return order[scores[order] >= floor]


def best_labels_of_rows(proba, odds, top=None, threshold=None):
    """:func:`best_labels` of every row of ``proba`` (``odds`` breaking ties), as ``textnb
    predict --top K --threshold P`` ranks them and ``textnb serve`` answers a request's
    ``"top"`` / ``"threshold"``: ``top`` None is one label, or every label when a
    ``threshold`` is given; -1 is every label; ``threshold`` None is 0 (fastText's
    ``predict`` defaults). A list of arrays of positions, best first."""
    k = top if top is not None else (-1 if threshold is not None else 1)
    floor = threshold if threshold is not None else 0.0
    return [best_labels(p, k, floor, ties=lo) for p, lo in zip(proba, odds)]


def proba_and_odds(model, X):
    """``(proba, log_odds)`` of the documents or rows ``X``: the probabilities the model's
    own ``predict_proba`` gives (the floats of the library, ``textnb predict``, ``textnb
    serve`` and ``topicfilter``, to the last bit) and per-label log-odds (which keep their
    resolution where probabilities round to one float). The scores every ranking of labels
    reads (:func:`best_labels`, with the log-odds as ``ties``): ``textnb predict --top / --threshold``, ``textnb test``,
    :class:`textnb.fasttext.FastTextModel`'s ``predict`` and ``test``."""
    from textnb.core.logspace import log_odds

    if hasattr(model, "proba_and_odds"):  # a file's scorer or a kernel: one pass over the rows for both
        return model.proba_and_odds(X)
    logp = model.predict_log_proba(X)
    odds = model.predict_log_odds(X) if hasattr(model, "predict_log_odds") else log_odds(logp)
    return (model.predict_proba(X) if hasattr(model, "predict_proba") else np.exp(logp)), odds


def threaded_scoring(model):
    """Whether :func:`scored_batches` scores ``model``'s batches in threads: a linear text
    model's scorer (:class:`~textnb.text.scorer.TextScorer`), whose tokenising and products
    release the GIL."""
    from textnb.text.scorer import TextScorer

    return type(model) is TextScorer


def scored_batches(model, batches, text_of=None, *, n_jobs=1):
    """``(batch, (proba, log_odds))`` of each of ``batches`` (read as they are asked for;
    ``text_of(batch)``: what :func:`proba_and_odds` scores, else the batch itself), in order:
    the one scoring loop of every input ``textnb predict`` reads (files and folders, TSV/CSV
    rows, ``--lines``, fastText files, messages). With a linear text model's scorer
    (:class:`~textnb.text.scorer.TextScorer`: numpy's tokenising and products release the GIL)
    and ``n_jobs`` not 1 (-1: this thread plus one per idle CPU,
    :func:`~textnb.core.workers.automatic_threads`), the batches after the first are scored in
    threads once they are at least four (:func:`~textnb.core.workers.parallel_if_long`) while
    the calling thread reads the next ones; the first is scored in the calling thread, so the
    scorer's term look-up is built once. The scores do not depend on ``n_jobs``."""
    from textnb.core.workers import ordered_map, parallel_if_long

    def score(batch):
        return batch, proba_and_odds(model, batch if text_of is None else text_of(batch))

    batches = iter(batches)
    if n_jobs == 1 or not threaded_scoring(model):
        yield from map(score, batches)
        return
    first = next(batches, None)
    if first is None:
        return
    yield score(first)
    rest, n_jobs = parallel_if_long(((batch,) for batch in batches), n_jobs)
    yield from ordered_map(score, rest, n_jobs, threads=True)


def precision_recall_at_k(log_proba, classes, gold, k=1, threshold=0.0):
    """Counts and ratios of fastText's ``test``.

    Parameters
    ----------
    log_proba : ndarray of shape (n_examples, n_classes)
        Log probabilities of the labels, columns in the order of ``classes``.
    classes : sequence of str
        The model's labels.
    gold : sequence of sequences of str
        Each example's true labels; a label given more than once is counted as often
        (fastText's meter; :meth:`textnb.io.fasttext.FastTextCorpus.gold_labels`).
    k : int, default=1
        Predictions per example (at most); -1: every label (fastText's ``test`` k = -1).
    threshold : float, default=0.0
        Predictions need a probability of at least this.

    Returns
    -------
    dict
        ``n`` (examples counted), ``k``, ``threshold``, ``precision``, ``recall``,
        ``predicted``, ``gold``, ``correct`` (the counts behind them).
    """
    k, threshold = check_k(k), check_threshold(threshold)
    return _result(*_meter(*_from_log(log_proba), classes, gold, k, threshold), k, threshold)


def _result(n, predicted, gold_counts, correct, k, threshold):
    n_predicted, n_gold, n_correct = int(predicted.sum()), int(gold_counts.sum()), int(correct.sum())
    return {
        "n": n, "k": int(k), "threshold": threshold,
        "precision": n_correct / n_predicted if n_predicted else math.nan,
        "recall": n_correct / n_gold if n_gold else math.nan,
        "predicted": n_predicted, "gold": n_gold, "correct": n_correct,
    }


def label_scores_at_k(log_proba, classes, gold, k=1, threshold=0.0):
    """Each label's precision, recall and F1 at ``k``, as fastText's ``test-label`` and its
    Python ``test_label`` give them (``Meter::precision(i)``, ``recall(i)``, ``f1Score(i)``):
    ``{label: {"precision": ..., "recall": ..., "f1score": ...}}`` for every label of
    ``classes``, in their order, counted over the examples :func:`precision_recall_at_k`
    counts (the same arguments). For a label, precision = its correct predictions / its
    predictions, recall = the same / the times it is a true label (repeats counted), F1 =
    2 correct / (predictions + true); NaN where the denominator is 0 (fastText's)."""
    k, threshold = check_k(k), check_threshold(threshold)
    return _label_scores(*_meter(*_from_log(log_proba), classes, gold, k, threshold)[1:], classes)


def _label_scores(predicted, gold_counts, correct, classes):
    out = {}
    for j, c in enumerate(classes):
        p, g, tp = int(predicted[j]), int(gold_counts[j]), int(correct[j])
        out[str(c)] = {"precision": tp / p if p else math.nan, "recall": tp / g if g else math.nan,
                       "f1score": 2 * tp / (p + g) if p + g else math.nan}
    return out


def _from_log(log_proba):
    """``(proba, ties)`` of log probabilities (what :func:`precision_recall_at_k` is given)."""
    log_proba = np.asarray(log_proba, dtype=np.float64)
    return np.exp(log_proba), log_proba


def _meter(proba, odds, classes, gold, k, threshold):
    """fastText's ``Meter::log`` over the examples: ``(n, predicted, gold, correct)``, the
    examples counted and per label (arrays in the order of ``classes``) its predictions,
    the times it is a true label (a label given twice on an example: twice) and its
    predictions that are among the example's labels (once each). Each example's
    predictions are :func:`best_labels` of its ``proba``, ``odds`` breaking ties."""
    proba = np.asarray(proba, dtype=np.float64)
    index = {str(c): j for j, c in enumerate(classes)}
    if proba.shape != (len(gold), len(index)):
        raise ValueError(f"log_proba has shape {proba.shape}; expected ({len(gold)}, {len(index)})")
    n = 0
    predicted, gold_counts, correct = (np.zeros(len(index), dtype=np.int64) for _ in range(3))
    for row, ties, labels in zip(proba, odds, gold):
        known = [index[str(lab)] for lab in labels if str(lab) in index]  # (repeats counted: fastText's)
        if not known:
            continue
        n += 1
        np.add.at(gold_counts, known, 1)
        chosen = best_labels(row, k, threshold, ties=ties)
        predicted[chosen] += 1
        correct[chosen[np.isin(chosen, known)]] += 1
    return n, predicted, gold_counts, correct


def format_test_result(result):
    """fastText's ``test`` output: ``N``, ``P@k`` and ``R@k``, TAB-separated, the ratios
    with 3 significant digits (C++ ``std::setprecision(3)``)."""
    k = result["k"]
    return f"N\t{result['n']}\nP@{k}\t{result['precision']:.3g}\nR@{k}\t{result['recall']:.3g}\n"


def fasttext_test(model, path, k=1, threshold=0.0, *, label_prefix=None, data=None, batch_size=1000):
    """fastText's ``test`` of a fitted text model on a fastText file.

    Parameters
    ----------
    model : TextClassifier or Pipeline ending in a MultiLabelNB
        A fitted text model with ``classes_`` and ``predict_log_proba`` over texts.
    path : str or Path
        The labelled fastText file (``__label__x text`` lines).
    k, threshold : see :func:`precision_recall_at_k`.
    label_prefix : str, default=None
        fastText's ``-label`` (None: ``__label__``).
    data : bytes or str, default=None
        The file's content when it is not read from ``path``; None: a pipe ``path`` (``-``,
        standard input, ``/dev/stdin``, ``<(...)``, a FIFO) is read once here, as ``train`` reads
        one (:func:`textnb.io.corpus.read_piped`), and ``-`` is named ``stdin``.
    batch_size : int
        Lines scored at a time.

    Returns
    -------
    dict
        As :func:`precision_recall_at_k`, plus ``source`` and ``unlabeled`` (lines
        without a label, skipped).
    """
    k, threshold = check_k(k), check_threshold(threshold)  # (before the file is read)
    corpus, classes, proba, odds = _scored(model, path, label_prefix, data, batch_size)
    n, predicted, gold_counts, correct = _meter(proba, odds, classes, corpus.gold_labels(), k, threshold)
    result = _result(n, predicted, gold_counts, correct, k, threshold)
    result.update(source=corpus.source, unlabeled=corpus.unlabeled)
    return result


def fasttext_test_label(model, path, k=1, threshold=0.0, *, label_prefix=None, data=None, batch_size=1000):
    """fastText's ``test-label`` of a fitted text model on a fastText file: each label's
    precision, recall and F1 at ``k`` (:func:`label_scores_at_k`, the labels without their
    prefix, in the order of ``model.classes_``); the arguments are :func:`fasttext_test`'s."""
    k, threshold = check_k(k), check_threshold(threshold)
    corpus, classes, proba, odds = _scored(model, path, label_prefix, data, batch_size)
    return _label_scores(*_meter(proba, odds, classes, corpus.gold_labels(), k, threshold)[1:], classes)


def _scored(model, path, label_prefix, data, batch_size):
    """``(corpus, classes, proba, odds)``: the fastText file read (:func:`fasttext_test`'s
    ``path`` / ``data``) and its documents scored by ``model`` (:func:`proba_and_odds`, the
    scores ``textnb predict`` ranks)."""
    from textnb.core.errors import input_name
    from textnb.io.corpus import model_max_bytes, read_piped
    from textnb.io.fasttext import DEFAULT_LABEL_PREFIX, read_fasttext
    from textnb.io.sources import check_file

    if data is None:
        if os.fspath(path) != "-":  # (missing, or a folder: said as predict --lines and --rows say it)
            check_file(os.fspath(path))
        data = read_piped(path, "a fastText file")
        path = input_name(path)
    # (each line's text cut where textnb predict --lines cuts it: where the model's training cut a document)
    corpus = read_fasttext(path, data=data, label_prefix=label_prefix or DEFAULT_LABEL_PREFIX,
                           max_bytes=model_max_bytes(model))
    classes = label_names(model)
    parts = [proba_and_odds(model, corpus.documents[i:i + batch_size]) for i in range(0, len(corpus), batch_size)]
    if not parts:
        return corpus, classes, np.empty((0, len(classes))), np.empty((0, len(classes)))
    return (corpus, classes, np.concatenate([np.asarray(p, dtype=np.float64) for p, _ in parts]),
            np.concatenate([np.asarray(o, dtype=np.float64) for _, o in parts]))
