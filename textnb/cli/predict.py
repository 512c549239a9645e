"""``textnb predict``: classify files, folders, standard input, TSV/CSV rows or lines with a
saved model (a linear text model is scored from its arrays, without scikit-learn)."""

import os
import re

import numpy as np

from textnb.cli.argtypes import jobs
from textnb.cli.argtypes import threshold as threshold_type
from textnb.cli.options import (add_csv_table_options, add_fasttext_options, add_ignore, add_model_command,
                                multilabel_model, refuse_spam_model, top_labels)
from textnb.cli.options import max_bytes as max_bytes_type
from textnb.core.registry import kind_of
from textnb.cli.output import cell, dumps
from textnb.cli.predict_inputs import (binary_skipped, document_bytes, explanations, file_bar, predict_documents,
                                       predict_lines, read_as, rows_of)
from textnb.cli.predictions import Accuracy, format_proba, print_predictions, print_ranked, ranked
from textnb.evaluation.topk import label_names, proba_and_odds, threaded_scoring
from textnb.cli.streams import label_list
from textnb.core.errors import InputError, RowError, input_name, missing_input
from textnb.core.wrapping import reads_documents, table_attributes
from textnb.io.corpus import stdin_stream
from textnb.text.tokenize import model_decoding
from textnb.io.sources import (as_fasttext, as_rows, check_paths, document_batches, line_chunks, some_file)

__all__ = ["add_parser", "run"]


def add_parser(sub):
    p = add_model_command(sub, "predict", help="classify documents with a saved model",
                               description="Classify files, folders (recursively) or standard input (-).")
    p.add_argument("paths", metavar="PATH", nargs="*", help="files, folders or - (default: stdin)")
    p.add_argument("--proba", action="store_true",
                   help="also print the class probabilities (and log-odds with --json: a --calibrate model's are "
                        "those of the model inside it, before calibration); with --top / --threshold each "
                        "ranked label already carries its probability ('label P'; --json: proba, log_odds)")
    p.add_argument("--json", action="store_true", help="one JSON object per document")
    p.add_argument("--max-bytes", type=max_bytes_type,
                   help=f"read at most this many bytes of a document: a size such as 4096, 64k or 16M (default: "
                        f"the model's train --max-bytes; {max_bytes_type.range})")
    p.add_argument("--explain", action="store_true",
                   help="also print why: the terms that moved the decision most, what each attribute of a "
                        "table added to the margin, or the rule of a lazy model")
    p.add_argument("--top", type=top_labels, metavar="N",
                   help=f"print the N most probable labels with their probabilities (as fastText's predict k); "
                        f"with --explain: terms per explanation (default 10) ({top_labels.range})")
    p.add_argument("--lines", nargs="?", const="-", metavar="FILE|-",
                   help="one document per line of FILE (default: stdin), output in input order, "
                        "as fastText's predict")
    p.add_argument("--threshold", type=threshold_type, metavar="P",
                   help=f"print the labels of probability >= P with their probabilities (as fastText's "
                        f"predict-prob; {threshold_type.range}: 0 prints every label); the default single-label model's probabilities "
                        "are calibrated when it is trained (one temperature fitted on held-out documents), so of "
                        "the labels kept at 0.8 about 8 in 10 or more are right; a multi-label model's (the "
                        "default --method copy) are shares of one distribution over the labels, summing to 1: "
                        "a threshold of 0.5 or more keeps at most one label")
    add_fasttext_options(p, lines=True)
    p.add_argument("--rows", action="store_true",
                   help="read each PATH (or stdin) as a TSV/CSV or JSON Lines file, one document per row as train "
                        "reads it (automatic for *.tsv, *.csv, *.tab, *.jsonl, *.ndjson and *.json files, unless one "
                        "is a fastText file, read one document per line as train reads it); output PATH:ROW in row "
                        "order (ROW: the data rows from 1; an error about a row says PATH:ROW (line N), N the file's "
                        "line), and the accuracy on stderr when the file has a label column")
    p.add_argument("--text-column", action="append", metavar="NAME",
                   help="the text column of a TSV/CSV file or the text field of a JSON Lines file read by rows "
                        "(name or 1-based number), as train's --text-column named it (default: found by name: "
                        "text, message, ...)")
    p.add_argument("--label-column", metavar="NAME",
                   help="the label column (or field) of a file read by rows, for the accuracy on stderr (name or "
                        "1-based number; default: found by name: label, class, ...)")
    p.add_argument("--jobs", type=jobs, default=1,
                   help=f"threads that tokenise and score batches of documents, rows or lines with a linear text "
                        f"model once the input makes four batches (default 1; -1: this one plus one per idle CPU: "
                        f"a large input's wall time a fifth shorter for a tenth more CPU time; {jobs.range})")
    add_ignore(p)
    add_csv_table_options(p, predict=True)
    p.set_defaults(handler=run)
    return p


def _predict_multilabel(args, model, out, err):
    """``predict`` of a multi-label model: the labels its decision rule gives each document
    (chosen at training time; a PCut model, which ranks the documents, decides over the
    whole input: the log-odds of every batch are kept, then decided together, so a
    document's labels do not depend on where it falls in the input; the other strategies
    stream), or, as fastText's ``predict`` / ``predict-prob`` and as for a single-label
    model, the ``--top K`` most probable labels and / or those whose probability is >=
    ``--threshold``; the same in every mode (files, ``--lines``, ``--rows``)."""
    from textnb.meta.labelsets import assigned_labels, label_log_odds, label_probabilities

    ml = multilabel_model(model)
    names = label_names(ml)
    max_bytes = document_bytes(args, model)
    failed = [0]  # binary files skipped (binary_skipped counts them)
    # PCut ranks the documents: decided over the whole input, once every batch is scored
    whole = getattr(ml, "strategy_", None) == "pcut" and not ranked(args)
    pending = []  # (sources, log-odds) of the batches scored, for PCut

    def emit(sources, texts, tally=None, labels=None):
        if not texts:
            return
        lo = label_log_odds(model, texts)  # (a file's scorer reads them from its arrays)
        if tally is not None:  # a fastText or rows file's P@1, as for one label: the top label one of the line's
            top = [names[k] for k in np.argmax(lo, axis=1)]
            tally.add(names, lo, [t if t in labs else (labs[0] if labs else None) for t, labs in zip(top, labels)])
        if whole:
            pending.append((list(sources), lo))
            return
        decide(sources, lo)

    def flush():
        if pending:
            sources = [src for part, _ in pending for src in part]
            lo = np.vstack([part for _, part in pending])
            pending.clear()
            decide(sources, lo)

    def decide(sources, lo):
        proba = label_probabilities(lo)  # (MultiLabelNB.predict_proba's floats)
        if ranked(args):  # --top K / --threshold P: ranked with their probabilities, as for one label
            print_ranked(sources, names, proba, lo, args, out)
            out.flush()
            return
        assigned = assigned_labels(lo, ml.decision_from_log_odds(lo))  # most probable first
        for src, row_lo, row_p, chosen in zip(sources, lo, proba, assigned):
            if args.json:
                rec = {"source": src, "labels": [names[k] for k in chosen]}
                if args.proba:
                    rec["proba"] = {c: float(v) for c, v in zip(names, row_p)}
                    rec["log_odds"] = {c: float(v) for c, v in zip(names, row_lo)}
                print(dumps(rec), file=out)
            else:
                cols = [cell(src), label_list(names[k] for k in chosen)]
                if args.proba:
                    cols.append(format_proba([cell(c) for c in names], row_p))
                print("\t".join(cols), file=out)
        out.flush()  # (a batch handed over as its input stalls: answered at once)

    if args.lines is not None:
        if args.paths:
            raise InputError("--lines reads one file (or stdin): give it as --lines FILE, without PATH")
        name = input_name(args.lines)
        start = 0
        with file_bar(out, err) as bar:
            for chunk in line_chunks(args.lines, args.label_prefix, document_bytes(args, model), progress=bar,
                                     decode=model_decoding(model)):
                emit([f"{name}:{start + i + 1}" for i in range(len(chunk))], chunk)
                start += len(chunk)
            flush()
        return 0
    check_paths(args.paths or ["-"], rows=args.rows)
    for path in args.paths or ["-"]:
        if as_fasttext(path, args.label_prefix, args.rows):  # one document per line, as train reads it
            start = 0
            tally = Accuracy(path, "label", unit="line")  # (its accuracy on stderr, as a single-label model's)
            with file_bar(out, err) as bar:
                for chunk, labels in line_chunks(path, args.label_prefix, max_bytes, with_labels=True, progress=bar,
                                                 decode=model_decoding(model)):
                    emit([f"{path}:{start + i + 1}" for i in range(len(chunk))], chunk, tally, labels)
                    start += len(chunk)
            tally.report(err)
            continue
        if as_rows(path, args.rows):
            name = input_name(path)
            start = 0  # the rows as a single-label model's are read (row_chunks: line by line)
            tally = Accuracy(name, "label column")  # (P@1 against each row's labels, as a fastText file's)
            with file_bar(out, err) as bar:
                for chunk, labels in rows_of(args, model, path, max_bytes, bar, label_sets=True):
                    emit([f"{name}:{start + i + 1}" for i in range(len(chunk))], chunk,
                         None if labels is None else tally, labels)
                    start += len(chunk)
            tally.report(err)
            continue
        for sources, batch in document_batches([path], max_bytes, binary_skipped(err, failed),
                                               decode=model_decoding(model)):
            emit(sources, batch)
    flush()
    return 1 if failed[0] else 0



def _predict_table(args, model, out, err=None):
    from textnb.io.tables import read_table

    paths = args.paths or ["-"]
    check_paths(paths)
    attributes = table_attributes(model)
    if attributes is None:
        raise InputError(f"{args.model}: a {type(model).__name__} model does not record its table attributes")
    classes = label_names(model)
    for path in paths:
        data = None
        if path == "-":  # an ARFF or CSV / TSV table on standard input, told by its content, as /dev/stdin
            data = stdin_stream().read()
        table = read_table(path, like=attributes, drop=(args.ignore or None), classes=classes, data=data,
                           nominal=args.nominal_columns, header=not args.no_header)  # DataWarnings: main
        name = input_name(path)  # (standard input: stdin, as the text rows and lines name it)
        sources = [f"{name}:{i + 1}" for i in range(table.X.shape[0])]
        scores = proba_and_odds(model, table.X)
        print_predictions(sources, classes, scores, args, out, explanations(args, model, table.X, scores))
        if table.y is not None:  # the file carries the class: its accuracy, as for a text TSV/CSV
            tally = Accuracy(name, "class value")
            tally.add(classes, scores[0], table.y, table.sample_weight)
            tally.report(err)
    return 0


def run(args, out, err):
    """``textnb predict``: every error about a row of a TSV/CSV or JSON Lines file names it as
    its prediction is named, by its data row, with the file's line where it is another
    (``FILE:ROW (line N)``; :meth:`~textnb.core.errors.RowError.by_row`)."""
    try:
        return _predict(args, out, err)
    except RowError as exc:
        raise exc.by_row() from None


def _predict(args, out, err):
    from textnb.text.scorer import load_for_prediction

    if args.label_prefix is not None and args.lines is None and not args.paths:
        raise InputError("--label-prefix applies to --lines and to fastText files given as PATH")
    # a linear text model predicts and explains from its arrays, a table model from its kernels
    model = load_for_prediction(args.model)
    _refuse_fasttext_k(args.paths, args.rows)
    label_prefix = args.label_prefix  # (given; a text model's own is set below)
    text = reads_documents(model) or multilabel_model(model) is not None  # (a multi-label scorer's too)
    if args.label_prefix is None and (args.lines is not None or some_file(args.paths)) and text:
        from textnb.io.fasttext import stored_label_prefix

        # the model's fastText prefix (given: it wins), for --lines and the fastText files among PATHs:
        # a scorer keeps it from the file it was read from, an estimator in its vectorizer
        args.label_prefix = stored_label_prefix(model)
    refuse_spam_model(args.model, kind_of(model))
    _refuse_unread(args, model, label_prefix)
    if args.jobs != 1 and not threaded_scoring(model):
        raise InputError(f"{args.model}: --jobs applies to a linear text model (its documents scored in threads); "
                         f"this {kind_of(model)} model predicts in one thread")
    if multilabel_model(model) is not None:
        if args.explain:
            raise InputError(f"{args.model}: --explain does not apply to a multi-label model")
        if args.rows and args.lines is not None:
            raise InputError("--lines and --rows do not go together: one document per line, or per TSV/CSV row")
        return _predict_multilabel(args, model, out, err)
    if args.lines is not None:
        if not reads_documents(model):
            raise InputError(f"{args.model}: --lines needs a text model; a table model reads a table file")
        if args.paths:
            raise InputError("--lines reads one file (or stdin): give it as --lines FILE, without PATH")
        if args.rows:
            raise InputError("--lines and --rows do not go together: one document per line, or per TSV/CSV row")
        return predict_lines(args, model, out, err)
    if not reads_documents(model):
        return _predict_table(args, model, out, err)
    return predict_documents(args, model, out, err)


#: a PATH that reads as fastText's ``predict MODEL FILE K TH``: K (a count of labels, or -1), TH (a probability)
_FASTTEXT_K = re.compile(r"-1|[1-9][0-9]*")
_FASTTEXT_TH = re.compile(r"0?\.[0-9]+|1\.0*")


def _refuse_fasttext_k(paths, rows):
    """fastText's ``predict MODEL FILE K [TH]`` habit: a PATH that is not there and reads as K
    (``2``, ``-1``) or TH (``0.5``) is said missing with the option it stands for
    (``2: no such file or folder (for the 2 best labels: --top 2)``), before any other PATH is
    read (it said ``2: no such file or folder`` alone)."""
    for path in paths:
        if path == "-" or os.path.lexists(path):
            continue
        if _FASTTEXT_K.fullmatch(path):
            best = {"-1": "every label", "1": "the best label"}.get(path, f"the {path} best labels")
            hint = f"for {best}: --top {path}"
        elif _FASTTEXT_TH.fullmatch(path):
            hint = f"for the labels of probability {path} or more: --threshold {path}"
        else:
            continue
        raise InputError(f"{missing_input(path, 'file' if rows else 'file or folder')} ({hint})")


def _refuse_unread(args, model, label_prefix):
    """The options ``model`` would leave unused refused in one line, by the rule of
    ``train`` and ``evaluate`` (:func:`textnb.io.inputs.refuse_unread_options`): a table's
    (``--ignore``, ``--nominal-columns``, ``--no-header``) with a text model, a document's
    (``--max-bytes``, ``--label-prefix``: ``label_prefix``, the one given) with a table model."""
    from dataclasses import replace

    from textnb.io.inputs import InputOptions, refuse_unread_options

    text = reads_documents(model) or multilabel_model(model) is not None
    opts = replace(InputOptions.from_namespace(args), label_prefix=label_prefix)
    # (--no-header: a TSV/CSV file read by rows has its first row a document, as train reads it; the rows
    # read_as says are read, a spamfilter model's too: it was refused for one, whose rows predict reads)
    rows = text and args.lines is None and any(read_as(args, model, p) == "rows" for p in args.paths or ["-"])
    refuse_unread_options(args.model, opts, ("text model" if rows else "text model of documents") if text
                          else "table model")


