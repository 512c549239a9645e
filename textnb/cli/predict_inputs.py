"""How ``textnb predict`` reads a text model's inputs and prints their predictions: files
and folders of documents, TSV/CSV or JSON Lines rows, fastText lines, ``--lines``, and a
spamfilter model's messages (each read as ``train``, or ``spamfilter --batch``, reads it),
with the explanations of ``--explain`` and the bars of long inputs."""

import itertools
from operator import itemgetter

import numpy as np

from textnb.cli.argtypes import MAX_TOP
from textnb.cli.options import ALL_LABELS
from textnb.cli.output import explanation_text
from textnb.cli.predictions import Accuracy, print_predictions
from textnb.cli.progress import Progress, write_line
from textnb.core.errors import input_name
from textnb.evaluation.topk import label_names, scored_batches
from textnb.io.corpus import input_file_count
from textnb.io.sources import as_rows, check_paths, document_batches, line_chunks, reading, row_chunks
from textnb.text.tokenize import model_decoding

__all__ = ["binary_skipped", "document_bytes", "explanations", "file_bar", "predict_documents", "predict_lines",
           "read_as"]


def explanations(args, model, X, scores):
    """Per-row explanations for ``predict --explain`` (one line each, or the JSON object), or
    None; each explains the label printed (the largest probability of ``scores``, which a
    calibration may give another class than the model's largest score)."""
    if not getattr(args, "explain", False):
        return None
    from textnb.evaluation.explain import explain_rows

    classes = label_names(model)
    predicted = [classes[k] for k in np.argmax(scores[0], axis=1)]
    rows = explain_rows(model, X, top=MAX_TOP if args.top == ALL_LABELS else args.top or 10, predicted=predicted)
    return rows if args.json else [explanation_text(info) for info in rows]


def read_as(args, model, path):
    """How ``predict`` reads ``path`` with ``model``: ``"rows"`` (a TSV/CSV file, one document per
    row), ``"lines"`` (a fastText file, one per line) or ``""`` (a document, a folder; for a
    spamfilter model, messages): :func:`textnb.io.sources.reading`, but a spamfilter model reads a
    fastText file as a message (as spamfilter --batch does). The one rule of the paths'
    dispatch and of the options it leaves unused (``predict``'s refusal of them)."""
    from textnb.text.scorer import reads_mail

    if reads_mail(model):
        return "rows" if as_rows(path, args.rows) else ""
    return reading(path, rows=args.rows, label_prefix=args.label_prefix)


def predict_documents(args, model, out, err):
    """``predict`` of a text model's PATHs (standard input without one): runs of files and
    folders of documents batched together, each TSV/CSV or JSON Lines file by its rows and
    each fastText file by its lines, as ``train`` reads them; a spamfilter model's inputs as
    messages. A binary file is reported and left out (exit 1 at the end)."""
    from textnb.text.scorer import reads_mail

    paths = args.paths or ["-"]
    classes = label_names(model)
    failed = [0]
    max_bytes = document_bytes(args, model)
    # silent unless stderr is a terminal and the labels go elsewhere (a file, a pipe)
    bar = Progress("classifying", stream=err, unit="doc", results=out)
    done = 0
    if reads_mail(model):  # a spamfilter model: its inputs are messages, read as spamfilter reads them
        return _predict_messages(args, model, paths, classes, max_bytes, out, err, bar)
    check_paths(paths, rows=args.rows)
    decode = model_decoding(model)  # (the guess, or the encoding of a vectorizer given its own)
    if bar.enabled:  # the bar's total, when the files of the documents read (not rows nor lines) are known
        total = input_file_count([path for path in paths if read_as(args, model, path) == ""])
        if total:
            bar(0, total)

    def tick():
        nonlocal done
        done += 1
        bar(done)

    try:
        # runs of consecutive PATHs: TSV/CSV and fastText files one by one, other files batched together
        for how, run in itertools.groupby(paths, key=lambda path: read_as(args, model, path)):
            if how == "rows":  # one document per row, as train reads it
                for path in run:
                    _predict_rows(args, model, path, classes, max_bytes, out, err)
                continue
            if how == "lines":  # a fastText file: one document per line, as train reads it
                for path in run:
                    _predict_fasttext(args, model, path, classes, max_bytes, out, err)
                continue
            batches = document_batches(list(run), max_bytes, binary_skipped(err, failed), tick, decode=decode)
            for (sources, batch), scores in scored_batches(model, batches, itemgetter(1), n_jobs=args.jobs):
                print_predictions(sources, classes, scores, args, out, explanations(args, model, batch, scores))
    finally:
        bar.close()
    return 1 if failed[0] else 0


def _predict_fasttext(args, model, path, classes, max_bytes, out, err):
    """Predictions for the lines of the fastText file ``path`` (``path:LINE``, every line
    as ``--lines`` reads it, the label words left out), in file order; the lines' labels
    give the accuracy on stderr, a prediction counted right when it is one of its line's
    labels (fastText's ``test`` P@1)."""
    tally = Accuracy(path, "label", unit="line")
    start = 0
    messages = lambda batch: _as_messages(model, batch[0], args)  # noqa: E731
    with file_bar(out, err) as bar:
        chunks = line_chunks(path, args.label_prefix, max_bytes, with_labels=True, progress=bar,
                             decode=model_decoding(model))
        for (chunk, labels), scores in scored_batches(model, chunks, messages, n_jobs=args.jobs):
            sources = [f"{path}:{start + i + 1}" for i in range(len(chunk))]
            start += len(chunk)
            print_predictions(sources, classes, scores, args, out, explanations(args, model, chunk, scores))
            predicted = [classes[k] for k in np.argmax(scores[0], axis=1)]
            tally.add(classes, scores[0], [p if p in labs else (labs[0] if labs else None)
                                           for p, labs in zip(predicted, labels)])
    tally.report(err)


def _predict_messages(args, model, paths, classes, max_bytes, out, err, bar):
    """``predict`` with a spamfilter model: TSV/CSV rows (``--rows``, ``*.tsv``) as
    header-less messages, other PATHs as ``spamfilter --batch`` reads them (a message that
    cannot be read reported and left out, exit 1 at the end)."""
    from textnb.apps.filtering import message_batches

    failed, done = [0], 0

    def report(message):
        write_line(err, f"textnb: error: {message}")  # (above the bar, when one is drawn)
        failed[0] += 1

    try:
        for how, run in itertools.groupby(paths, key=lambda path: read_as(args, model, path)):
            if how == "rows":
                for path in run:
                    _predict_rows(args, model, path, classes, max_bytes, out, err)
                continue
            batches = message_batches(model, list(run), args.max_bytes, on_error=report)
            for (sources, batch), scores in scored_batches(model, batches, itemgetter(1), n_jobs=args.jobs):
                print_predictions(sources, classes, scores, args, out, explanations(args, model, batch, scores))
                done += len(batch)
                bar(done)
    finally:
        bar.close()
    return 1 if failed[0] else 0


def _as_messages(model, texts, args):
    """Lines or rows as ``model`` reads them (a spamfilter model: as messages)."""
    from textnb.text.scorer import reads_mail

    if not reads_mail(model):
        return texts
    from textnb.apps.filtering import as_messages

    return as_messages(model, texts, args.max_bytes)


def document_bytes(args, model):
    """Bytes read at most of a document: ``--max-bytes``, else what the model was trained
    with (``train --max-bytes``, kept in the model as the library's ``TextClassifier``
    uses it for every document), else 16 MiB: a document is cut where training cut its
    documents. A ``--max-bytes`` given is also set on the loaded ``model``, which cuts the
    texts it is given there (:func:`textnb.io.corpus.to_tokenizable`)."""
    from textnb.io.corpus import model_max_bytes
    from textnb.text.scorer import reads_mail

    # (a spamfilter model's --max-bytes cuts the raw message, as spamfilter's does, not the text rendered from
    # it: the rendering's header tokens took a line's place, and predict --lines disagreed with spamfilter)
    if args.max_bytes and getattr(model, "max_bytes", None) is not None and not reads_mail(model):
        model.max_bytes = args.max_bytes
    return model_max_bytes(model, args.max_bytes)  # (the rule of every reader: serve, topicfilter, ...)


def binary_skipped(err, failed):
    """``on_binary`` for :func:`textnb.io.sources.document_batches`: a binary file reported
    on ``err`` (above the bar drawn there, if any) and counted in ``failed[0]`` (exit 1 at
    the end)."""
    def report(source, reason):
        write_line(err, f"textnb: error: {source}: {reason}, skipped")
        failed[0] += 1

    return report


def rows_of(args, model, path, max_bytes, bar, label_sets=False):
    """:func:`~textnb.io.sources.row_chunks` of ``path`` as ``predict`` reads a file by rows
    for ``model`` (a TSV/CSV file's lines decoded as its documents are,
    :func:`~textnb.text.tokenize.model_decoding`): its ``--no-header``, ``--label-column``
    and ``--text-column`` (one text column: a text model reads one; a mixed table's are its
    model's own)."""
    from textnb.core.errors import InputError

    texts = args.text_column or []
    if len(texts) > 1:
        raise InputError(f"--text-column given {len(texts)} times: a text model reads one text column of a "
                         f"file read by rows (a mixed table's text columns are its model's)")
    return row_chunks(path, max_bytes, header=not args.no_header, progress=bar, label_column=args.label_column,
                      text_column=texts[0] if texts else None, label_sets=label_sets, decode=model_decoding(model))


def _predict_rows(args, model, path, classes, max_bytes, out, err):
    """Predictions for the rows of a TSV/CSV file (``path:ROW``, ROW counting data rows
    from 1), in file order, read as they come (:func:`textnb.io.sources.row_chunks`); a
    label column gives the accuracy on stderr."""
    name = input_name(path)
    tally = Accuracy(name, "label column")
    start = 0
    with file_bar(out, err) as bar:
        chunks = ((_as_messages(model, chunk, args), labels)
                  for chunk, labels in rows_of(args, model, path, max_bytes, bar))
        for (chunk, labels), scores in scored_batches(model, chunks, itemgetter(0), n_jobs=args.jobs):
            sources = [f"{name}:{start + i + 1}" for i in range(len(chunk))]
            start += len(chunk)
            print_predictions(sources, classes, scores, args, out, explanations(args, model, chunk, scores))
            if labels is not None:
                tally.add(classes, scores[0], labels)
    tally.report(err)


def predict_lines(args, model, out, err):
    """``predict --lines``: one prediction per input line, in order (with ``--top`` /
    ``--threshold``, ranked: :func:`print_ranked`)."""
    name = input_name(args.lines)
    classes = label_names(model)
    start = 0
    with file_bar(out, err) as bar:
        chunks = (_as_messages(model, chunk, args) for chunk in line_chunks(
            args.lines, args.label_prefix, document_bytes(args, model), progress=bar, decode=model_decoding(model)))
        for chunk, scores in scored_batches(model, chunks, n_jobs=args.jobs):
            sources = [f"{name}:{start + i + 1}" for i in range(len(chunk))]
            start += len(chunk)
            print_predictions(sources, classes, scores, args, out, explanations(args, model, chunk, scores))
    return 0


def file_bar(out, err):
    """The bar of a file read by rows or lines (a TSV/CSV, JSON Lines or fastText file,
    ``--lines``): its bytes read of its size (its number of rows is known at its end only; a
    pipe's size not at all: no bar), on ``err`` when it is a terminal and the predictions,
    ``out``, go elsewhere."""
    return Progress("classifying", stream=err, unit="B", results=out)
