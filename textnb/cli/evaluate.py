"""``textnb evaluate``: cross-validate a model, or train and test it, and print the report."""

import time

import numpy as np

from textnb.cli.argtypes import file_name
from textnb.cli.options import (add_model_and_input_options, folds, input_options, model_options, naming_the_corpus,
                                read_path, refuse_stdin_twice, repeats, seed, structure_errors,
                                warn_multilabel)
from textnb.cli.output import dumps, figure_text, name_column, skipped_line
from textnb.cli.progress import Progress
from textnb.cli.streams import cell, one_line
from textnb.core.errors import InputError
from textnb.io.pictures import plot_target

__all__ = ["add_parser", "run"]


def add_parser(sub):
    p = sub.add_parser("evaluate", help="cross-validate or test a model",
                       description="Stratified, seeded K-fold cross-validation (a multi-label corpus: shuffled, "
                                   "seeded K-fold, its documents having several labels), or train/test when the "
                                   "corpus has train/ and test/ parts or --test is given.")
    p.add_argument("path", metavar="PATH", help="the corpus or table (as train reads it), or - for stdin")
    p.add_argument("--cv", type=folds, metavar="K", help=f"K-fold cross-validation (default 10, fewer when no "
                   f"class has 10 objects; {folds.range}; "
                   "the default for a corpus with train/ and test/ parts is the split; the messages of an mbox "
                   "file share a fold, unless it holds all of its class's)")
    p.add_argument("--repeat", type=repeats, default=1, metavar="R",
                   help=f"repeat the CV R times, its folds dealt with seeds S, S+1, ... (training draws with --seed S "
                        f"in every repeat: the model train makes; {repeats.range}); prints the mean accuracy and "
                        f"its std")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="with --repeat R (R above 1): the accuracy of each repeat too (refused without it)")
    p.add_argument("--seed", type=seed, default=0, metavar="S",
                   help=f"seed of the folds (with --repeat R: the folds of S, S+1, ...) and of what training draws, as "
                        f"textnb train --seed S gives it (the default model's sample and folds, the folds of "
                        f"--model auto, --calibrate and --adjust-on cv), so the report is of the model train makes "
                        f"with it (default 0; {seed.range})")
    p.add_argument("--test", metavar="PATH", help="a separate test corpus or table, or - for stdin")
    p.add_argument("--json", action="store_true", help="print one JSON object (the classes in the model's order: "
                   "an ARFF header's, else sorted; roc, for two classes with rows: the second of them positive)")
    p.add_argument("--plot", metavar="FILE.png", type=file_name, help="draw the confusion matrix, the reliability diagram of the "
                   "probabilities and, for two classes, the ROC curve (the second of the classes with rows, in the "
                   "model's order, positive: its classes_[1] unless a declared class without rows comes first), "
                   "as a PNG (or SVG, PDF, JPEG: by the name's suffix)")
    add_model_and_input_options(p)
    p.set_defaults(handler=run)
    return p


def run(args, out, err):
    from textnb.io.inputs import check_classes, open_text_corpus
    from textnb.meta.registry import make_text_classifier

    if not (args.multilabel or args.labels):  # (the default multi-label model needs no scikit-learn)
        from textnb.evaluation.runs import evaluate_documents
    start = time.perf_counter()
    if args.test is not None and (args.cv is not None or args.repeat != 1):
        given = "--cv" if args.cv is not None else "--repeat"
        raise InputError(f"{given} and --test do not go together: cross-validation of PATH, or training on PATH and "
                         "testing on --test")
    if args.verbose and args.repeat == 1:  # (a multi-label corpus takes no --repeat: refused with it)
        raise InputError("-v goes with --repeat R (R above 1: the accuracy of each repeat); a single run (one "
                         "cross-validation, or training on PATH and testing) would leave it unused")
    refuse_stdin_twice(args)  # (PATH, --test and the side files: standard input is read once)
    opts, inputs = model_options(args), input_options(args)
    if args.multilabel or args.labels:
        from textnb.cli.multilabel import refuse_unsupported

        refuse_unsupported(args, opts)
    if args.plot:
        # (an input, a missing folder too, or no matplotlib: said before the evaluation, not after it)
        plot_target(args.plot, inputs=[args.path, args.test, args.labels, args.structure, args.stop_words])
    kind, data = read_path(args, inputs, err)
    if kind != "multilabel":
        from textnb.cli.multilabel import refuse_unused

        refuse_unused(args)
    if kind == "table":
        with naming_the_corpus(args.path):
            return _evaluate_table(args, opts, inputs, data, start, out, err)
    if kind == "multilabel":  # the multi-label options, or a fastText file with several labels on a line
        from textnb.cli.multilabel import evaluate

        with naming_the_corpus(args.path):
            return evaluate(args, opts, start, out, err, corpus=data)
    classifier = _kernel_fitted(opts) or make_text_classifier(opts)
    check_classes(data)
    if args.repeat != 1 and args.cv is None and getattr(data, "test", None) is not None:
        raise InputError(f"{args.path}: --repeat repeats a cross-validation, and this corpus is evaluated on its own "
                         "test part; give --cv K to cross-validate its training part instead")
    warn_multilabel(data, err)
    # (a text model's test file: a header row without label and text columns is skipped, as predict skips it)
    test = open_text_corpus(args.test, inputs, header_table=False) if args.test else None
    bar = Progress("folds", stream=err)
    try:
        with naming_the_corpus(args.path):
            report = evaluate_documents(data, classifier, test=test, cv=args.cv, repeat=args.repeat, seed=args.seed,
                                        max_bytes=args.max_bytes, progress=bar)
    finally:
        bar.close()
    report["seconds"] = time.perf_counter() - start
    _print_report(report, args, out)
    return 0


def _kernel_fitted(opts):
    """``(vectorizer params, (kind, params))`` when the options ask for a model that each
    fold fits from its kernel (no estimator, no scikit-learn), ``(vectorizer params, (kind,
    params, steps))`` for a wrapped one (Pipeline steps, SmoothingCV, CalibratedNB: fitted by
    the trainer's functions), ``(vectorizer params, LazyTextKernel)`` for lazy rules (``--lazy``:
    each fold fits a copy of the kernel, with the fold's terms; with ``--adjust``, an
    ``APNBCKernel`` around it), else None."""
    from textnb.evaluation.evaluate import KERNEL_FITTED
    from textnb.meta.registry import lazy_text_model, streaming_model

    streaming = streaming_model(opts, steps=True)
    if streaming is None:
        lazy = lazy_text_model(opts)
        if lazy is None:
            return None
        from textnb.semi_naive.lbr_text_kernel import LazyTextKernel

        vectorizer, params, adjust = lazy
        if adjust is None:
            return vectorizer, LazyTextKernel(**params)
        from textnb.semi_naive.apnbc_kernel import APNBCKernel

        return vectorizer, APNBCKernel(LazyTextKernel(**params), **adjust)
    vectorizer, model, steps = streaming
    if steps or model[0] not in KERNEL_FITTED:  # wrapped: (kind, params, steps), fitted as train fits it
        return vectorizer, (model[0], model[1], steps)
    return vectorizer, model


def _evaluate_table(args, opts, inputs, table, start, out, err):
    from textnb.evaluation.runs import evaluate_table
    from textnb.io.inputs import check_table_classes
    from textnb.io.tables import read_table
    from textnb.meta.registry import make_table_model

    check_table_classes(table)
    model = make_table_model(opts, table, kernel=True)  # (a kernel is fitted fold by fold without scikit-learn)
    # (the test file is read against the model's attributes: its columns that --ignore left out of the
    # training file are not among them, so they are left out whether the test file has them or not)
    # (and as PATH was read: a CSV/TSV test file without a header row when PATH had none, an ARFF one as it
    # declares itself; its columns typed as the model's attributes, the --nominal-columns among them)
    from textnb.io.inputs import is_arff

    test = (read_table(args.test, like=table.attributes, class_name=table.class_attribute.name,
                       header=not (inputs.no_header and not is_arff(args.test))) if args.test else None)
    bar = Progress("folds", stream=err)
    try:
        with structure_errors(args):
            report = evaluate_table(table, model, test=test, cv=args.cv, repeat=args.repeat, seed=args.seed,
                                    progress=bar)
    finally:
        bar.close()
    report["seconds"] = time.perf_counter() - start
    weighted = table.sample_weight is not None if test is None else test.sample_weight is not None
    _print_report(report, args, out, weighted=weighted, rows=True)
    return 0


def _print_report(report, args, out, weighted=False, rows=False):
    """The report, as text or ``--json``; then its picture (``--plot``), drawn once the
    report is printed: a picture that cannot be written loses no report (its line, last,
    is printed once it is written)."""
    if args.json:
        print(dumps(report), file=out)
    else:
        _print_text(report, args, out, weighted=weighted, rows=rows)
    if args.plot:
        from textnb.evaluation.plots import plot_evaluation

        out.flush()
        plot_evaluation(report, args.plot)
        if not args.json:
            drawn = ["confusion matrix"] + ["reliability diagram"] * ("reliability" in report) + ["ROC curve"] * (
                "roc" in report)
            print("\n" + one_line(f"{', '.join(drawn)} plot: {args.plot}"), file=out)


def _print_text(report, args, out, weighted=False, rows=False):
    from textnb.evaluation.evaluate import count_text

    print(f"{report['protocol']} on {report['n']} objects ({report['seconds']:.2f} s)", file=out)
    if weighted:
        print("every figure weighs each test object by its instance weight (as Weka's evaluation)", file=out)
    if report.get("skipped_binary"):  # (binary files in a class folder: left out, as train says)
        print(skipped_line(report["skipped_binary"], report.get("skipped_empty", 0)), file=out)
    if report.get("skipped_unlabeled"):
        from textnb.io.fasttext import unlabeled_line

        print(unlabeled_line(report["skipped_unlabeled"], rows=rows), file=out)
    per_repeat = report.get("accuracy_per_repeat") or []
    if len(per_repeat) > 1:  # mean over the repeats and their spread
        print(f"accuracy  {figure_text(np.mean(per_repeat))} (std {figure_text(np.std(per_repeat, ddof=1))} over "
              f"{len(per_repeat)} repeats)", file=out)
        if getattr(args, "verbose", False):
            for r, acc in enumerate(per_repeat):
                print(f"  repeat {r + 1} (folds of seed {report.get('seed', 0) + r})  {figure_text(acc)}", file=out)
    else:
        print(f"accuracy  {figure_text(report['accuracy'])}", file=out)
    print(f"macro-F1  {figure_text(report['macro_f1'])}", file=out)
    if "log_loss" in report:
        print(f"log-loss  {figure_text(report['log_loss'])}", file=out)
    elif "log_loss_omitted" in report:
        print(f"log-loss  none: {report['log_loss_omitted']}", file=out)
    if "ece" in report:
        print(f"ECE       {figure_text(report['ece'])}  (expected calibration error of the top label)", file=out)
    if "roc_auc" in report:
        print(f"ROC AUC   {figure_text(report['roc_auc'])}  (positive class: {cell(report['roc']['positive'])})", file=out)
    head, names = name_column(report["classes"], header="class")  # (long names cut, wide characters counted)
    print(f"\n{head}  precision  recall      f1  support", file=out)
    for c, name in zip(report["classes"], names):
        pc = report["per_class"][c]
        print(f"{name}  {figure_text(pc['precision']):>9}  {figure_text(pc['recall']):>6}  {figure_text(pc['f1']):>6}  "
              f"{count_text(pc['support']):>7}", file=out)
    repeats = len(per_repeat)
    print("\nconfusion matrix (rows: true, columns: predicted" + (f"; the mean over the {repeats} repeats"
                                                                  if repeats > 1 else "") + ")", file=out)
    labels = [str(i) for i in range(len(report["classes"]))]
    texts = [[count_text(v, repeats) for v in row] for row in report["confusion_matrix"]]
    width = max(5, max(len(v) for row in texts for v in row) + 1)
    index = max(2, len(labels[-1]) + 1)  # (100 classes and more: their numbers keep the column)
    print(" " * (len(head) + index) + "".join(f"{lab:>{width}}" for lab in labels), file=out)
    for i, (name, row) in enumerate(zip(names, texts)):
        print(f"{name}{i:>{index}}" + "".join(f"{v:>{width}}" for v in row), file=out)
