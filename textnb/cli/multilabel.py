"""The multi-label parts of ``textnb train`` and ``textnb evaluate`` (``--multilabel``, ``--labels FILE``).

The library does the work (:mod:`textnb.meta.multilabel`, and for the default model
:mod:`textnb.meta.multilabel_training`, which imports no scikit-learn): this module reads the options,
shows progress on a terminal and prints the summary or the report.
"""

import functools
import time

from textnb.cli.argtypes import bounded
from textnb.cli.output import (counted, dumps, figure_text, name_column, one_line, print_summary, save_model_file,
                               skipped_line, terms_kind)
from textnb.cli.progress import Progress
from textnb.core.errors import InputError, input_name
from textnb.core.labels import label_names

__all__ = ["add_options", "evaluate", "refuse_unsupported", "refuse_unused", "train"]

STRATEGIES = ("scutfbr", "scut", "rcut", "pcut")
#: folds of ``evaluate``'s cross-validation when ``--cv`` is not given (fewer on fewer documents)
DEFAULT_FOLDS = 10


#: labels a document gets at least (checked when parsed: a usage error outside the range)
min_labels = bounded(int, low=0, high=1_000_000)

def add_options(p):
    """The multi-label options of ``train`` and ``evaluate``."""
    g = p.add_argument_group("multi-label corpora")
    g.add_argument("--multilabel", action="store_true",
                   help="multi-label corpus: one folder per label, a document in each of its labels' folders "
                        "(files of the same relative path in several folders are one document with several labels "
                        "when their bytes are equal); train saves a model whose predict prints every label the "
                        "document gets")
    g.add_argument("--labels", metavar="FILE",
                   help="multi-label corpus: PATH is a folder of documents and FILE says their labels, one "
                        "line per document 'docid<TAB>label1,label2' (docid: the path under PATH or under its "
                        "train/ or test/ part, with or without its extension; no labels after the TAB: a document "
                        "with none; blank lines and '#' lines skipped); ids with no file (another part's "
                        "documents) are counted and ignored")
    g.add_argument("--strict", action="store_true",
                   help="with --labels: a file with no line, or an id with no file in PATH, is an error")
    g.add_argument("--separate-documents", action="store_true",
                   help="with --multilabel: files of the same name but different bytes in several label folders "
                        "are separate documents (by default an error)")
    g.add_argument("--strategy", choices=STRATEGIES, default="scutfbr",
                   help="how labels are decided from their scores (Yang 2001), chosen inside the training "
                        "documents: scutfbr (default) a threshold per label with a fallback for rare labels, scut "
                        "a threshold per label, rcut the best labels of each document, pcut each label to a share "
                        "of the documents predicted together")
    g.add_argument("--min-labels", type=min_labels, default=1, metavar="N",
                   help=f"a document gets at least its N best labels (default 1; 0: a document may get none; "
                        f"{min_labels.range})")
    g.add_argument("--method", choices=("copy", "ovr"), default="copy",
                   help="copy (default): one model over the documents copied once per label; ovr: one binary "
                        "model per label")


#: the options only a multi-label corpus reads, and their defaults (given otherwise: refused)
_MULTILABEL_ONLY = (("--strict", "strict", False), ("--separate-documents", "separate_documents", False),
                    ("--strategy", "strategy", "scutfbr"), ("--min-labels", "min_labels", 1),
                    ("--method", "method", "copy"))


def refuse_unused(args):
    """One line when the corpus of ``args`` was read single-label (text or table) and a
    multi-label option was given (other than its default): it would be left unused."""
    given = [flag for flag, name, default in _MULTILABEL_ONLY if getattr(args, name, default) != default]
    if given:
        raise InputError(f"{input_name(args.path)}: {', '.join(given)} {'is' if len(given) == 1 else 'are'} for "
                         f"multi-label corpora (--multilabel, --labels FILE, or a fastText file with several labels "
                         f"on a line); this one is read single-label, so {'it' if len(given) == 1 else 'they'} "
                         f"would be left unused")


def refuse_unsupported(args, opts):
    """``--lazy`` and ``--scheduler`` have no multi-label form: one line, raised before the
    corpus is read or a model module imported when the multi-label options are given (and
    by :func:`_model` when a fastText file turns out to have several labels on a line)."""
    if opts.lazy or getattr(args, "scheduler", None):
        raise InputError("a multi-label corpus (--multilabel, --labels, or a fastText or JSON Lines file with several "
                         "labels a document): no --lazy, no --scheduler")


def _model(args, opts, extra=None):
    """(vectorizer, MultiLabelNB) the options describe; ``extra``: vectorizer parameters the
    default pipeline adds (:func:`_short_texts`)."""
    refuse_unsupported(args, opts)
    from textnb.meta.multilabel import MultiLabelNB
    from textnb.meta.registry import make_text_classifier

    clf = make_text_classifier(opts)
    return clf.vectorizer.set_params(**(extra or {})), MultiLabelNB(clf.model, method=args.method, threshold=args.strategy,
                                        min_labels=args.min_labels)


def _kernel(args, opts):
    """``(vectorizer params, (model kind, params), pipeline steps)`` when the options ask
    for a model :mod:`textnb.meta.multilabel_training` fits without scikit-learn (what
    :func:`textnb.meta.registry.streaming_model` describes), else None."""
    from textnb.meta.registry import streaming_model

    if opts.lazy or getattr(args, "scheduler", None):
        return None
    return streaming_model(opts, steps=True)


def _short_texts(kernel, texts, max_bytes):
    """``kernel`` (:func:`_kernel`) with the vectorizer parameters the default pipeline adds
    for the training ``texts`` (short texts: words and the word bigrams of two documents or
    more, :func:`textnb.text.training.default_vectorizer`) when no vectorizer option was
    given and the labels' model is the default one (a DiscriminativeNB, no step in front):
    the rule of single-label training, decided once on every text read (never a label).
    Also the parameters added, for the estimators' vectorizer (``{}``: none)."""
    from textnb.text.training import default_pipeline, default_vectorizer

    if kernel is None or kernel[0] or not default_pipeline(kernel[1][0], kernel[2]):
        return kernel, {}
    extra = default_vectorizer(texts, max_bytes)[0]
    return ((dict(extra), *kernel[1:]) if extra else kernel), extra


def _multilabel_params(args):
    return {"method": args.method, "threshold": args.strategy, "min_labels": args.min_labels}


def _read(args, test=True, path=None):
    import os

    from textnb.io.inputs import InputOptions, open_multilabel_input

    # --labels lists a folder's documents: a --test file (fastText, JSON Lines, a label file's TSV) carries
    # its own labels (found by a user trial: 'X.ft: not a folder', where --test X.ft without --labels works)
    labels = args.labels if path is None or os.path.isdir(path) else None
    return open_multilabel_input(path or args.path, InputOptions.from_namespace(args), label_file=labels,
                                 strict=args.strict, separate_documents=args.separate_documents, test=test)


def _texts(corpus, max_bytes, label, err):
    """``(texts, label sets, documents skipped: a :class:`textnb.io.corpus.Skipped`, groups)`` of a multi-label corpus, read as training
    reads a corpus (:func:`textnb.io.corpus.document_texts`: an mbox file its messages, each
    with the file's labels; a binary file, or a binary or empty message, skipped); ``groups``
    None, or when an mbox file was read as its messages the position of each text's file
    (cross-validation keeps a file's messages in one fold, as for a single-label corpus)."""
    from functools import partial

    from textnb.io.corpus import Skipped, document_texts
    from textnb.io.mailread import split_messages

    split = partial(split_messages, max_bytes=max_bytes)
    bar = Progress(label, total=len(corpus), stream=err, unit="doc")
    texts, labels, skipped, files = [], [], Skipped(), []
    docs, sets = corpus.documents, corpus.labels
    try:
        for start in range(0, len(docs), 500):
            read, kept, left_out, _ = document_texts(docs[start:start + 500], split, max_bytes)
            texts += read
            labels += [tuple(sets[start + k]) for k in kept]
            files += [start + k for k in kept]
            skipped.merge(left_out)
            bar(min(start + 500, len(docs)))
    finally:
        bar.close()
    return texts, labels, skipped, (files if skipped.messages else None)


def _count(vectorizer, texts, err, fit=True):
    """The count matrix, a status line on a terminal while the terms are counted
    (``vectorizer`` a Vectorizer, or a function of the texts)."""
    bar = Progress("counting terms", total=1, stream=err)
    try:
        bar(0)
        if callable(vectorizer) and not hasattr(vectorizer, "fit_transform"):
            X = vectorizer(texts)
        else:
            X = vectorizer.fit_transform(texts) if fit else vectorizer.transform(texts)
        bar(1)
        return X
    finally:
        bar.close()


def _fit(model, X, labels, err, label="fitting", fold_counts=None):
    bar = Progress(label, stream=err)  # fit tells it the number of models
    try:
        return model.fit(X, labels, progress=bar, fold_counts=fold_counts)
    finally:
        bar.close()


def _layout_counts(corpus):
    counts = {"not_in_folder": len(corpus.not_found), "unlisted": len(corpus.unlisted)}
    if corpus.unlabeled:  # fastText lines without a label
        counts["skipped_unlabeled"] = corpus.unlabeled
    return counts


def _layout_lines(corpus, args):
    """The lines on what a multi-label corpus's layout left out: ids of the label file with no
    file, files with no line in it, fastText lines without a label."""
    lines = []
    if corpus.not_found:
        lines.append(f"ignored {counted(len(corpus.not_found), 'id')} of {input_name(args.labels)} with no file in "
                     f"{corpus.source} (first: {corpus.not_found[0]})")
    if corpus.unlisted:
        lines.append(f"left out {counted(len(corpus.unlisted), 'file')} with no line in {input_name(args.labels)} "
                     f"(first: {corpus.unlisted[0]})")
    if corpus.unlabeled:
        from textnb.io.fasttext import unlabeled_line

        lines.append(unlabeled_line(corpus.unlabeled))
    return lines


def train(args, opts, start, out, err, corpus=None):
    """``train --multilabel`` / ``--labels FILE`` / a multi-label fastText file (``corpus``,
    a :class:`~textnb.io.fasttext.FastTextCorpus`): the vectorizer and a
    :class:`~textnb.meta.multilabel.MultiLabelNB`, saved as a Pipeline."""
    return _train(args, opts, start, out, err, corpus)


def evaluate(args, opts, start, out, err, corpus=None):
    """Train on the training part and test on the test part (a split corpus, or
    ``--test PATH``), else K-fold cross-validation; the literature's measures (``corpus``:
    a multi-label fastText file already read)."""
    return _evaluate(args, opts, start, out, err, corpus)


def _train(args, opts, start, out, err, corpus=None):
    """:func:`train`'s work."""
    from textnb.core.wrapping import store_max_bytes
    from textnb.io.corpus import MAX_DOCUMENT_BYTES
    from textnb.io.fasttext import store_label_prefix
    from textnb.io.inputs import default_model_path, multilabel_from_fasttext

    kernel = _kernel(args, opts)
    if kernel is None:
        vectorizer, model = _model(args, opts)
    corpus = multilabel_from_fasttext(corpus) if corpus is not None else _read(args, test=False)
    max_bytes = args.max_bytes or MAX_DOCUMENT_BYTES
    texts, labels, skipped, _ = _texts(corpus, max_bytes, "reading", err)
    kernel, extra = _short_texts(kernel, texts, max_bytes)
    names = sorted({lab for labs in labels for lab in labs})
    if not texts:
        raise InputError(f"{corpus.source}: no text documents (every file is binary)")
    if not names:
        raise InputError(f"{input_name(args.labels) if args.labels else corpus.source}: no document has a label")
    model_path = args.output or default_model_path(args.path)
    if kernel is not None and _kernel_fits(kernel, args, labels):  # no scikit-learn imported
        from textnb.meta import multilabel_training as training

        X, terms, folds = _count(lambda t: training.count(t, kernel[0], folds=True), texts, err)
        bar = Progress("fitting", stream=err)
        try:
            model = training.fit(X, terms, labels, vectorizer=kernel[0], model=kernel[1], steps=kernel[2],
                                 multilabel=_multilabel_params(args), progress=bar, fold_counts=folds)
        finally:
            bar.close()
        save_model_file(store_max_bytes(store_label_prefix(training.model_node(model), getattr(args, "label_prefix", None)),
                                        args.max_bytes), model_path, err)
        n_terms, name = len(terms), model.template.kind  # (the estimator's unfitted base)
        tokenizer = kernel[0]
    else:
        from sklearn.pipeline import Pipeline

        from textnb.meta.registry import model_name
        from textnb.text.classifier import document_fold_counts  # (the folds' vocabularies, as TextClassifier's)

        if kernel is not None:
            vectorizer, model = _model(args, opts, extra)
        X = _count(vectorizer, texts, err)
        _fit(model, X, labels, err, fold_counts=document_fold_counts(vectorizer, texts, X))
        save_model_file(store_max_bytes(store_label_prefix(Pipeline([("vectorizer", vectorizer), ("model", model)]),
                                                           getattr(args, "label_prefix", None)), args.max_bytes),
                        model_path, err)
        n_terms, name = len(vectorizer.vocabulary_), model_name(model._base())
        tokenizer = vectorizer.get_params(deep=False)
    seconds = time.perf_counter() - start
    per_label = {c: int(n) for c, n in zip(label_names(model), model.train_support_)}
    summary = {
        "source": corpus.source,
        "documents": len(texts),
        "per_label": per_label,
        "skipped_binary": len(skipped),
        **_layout_counts(corpus),
        "vocabulary_size": n_terms,
        "strategy": model.strategy_,
        "model": model_path,
        "seconds": round(seconds, 3),
    }
    details = [*_layout_lines(corpus, args), skipped_line(len(skipped), skipped.empty) if skipped else None,
               f"vocabulary: {counted(summary['vocabulary_size'], 'term')}{terms_kind(tokenizer)}"]
    return print_summary(summary, args.json, out, read=counted(summary["documents"], "document"), details=details,
                         name=f"MultiLabelNB({name}, method {model.method}, {_decisions(model)})", seconds=seconds,
                         counts="per_label", note=f" ({counted(len(names), 'label')})")


def _kernel_fits(kernel, args, labels):
    from textnb.meta.multilabel_training import fits

    return fits(kernel[1], _multilabel_params(args), labels, kernel[2])


def _decisions(model):
    """The fitted decision rule in words."""
    s = model.strategy_
    rule = {"scutfbr": f"SCutFBR (fbr {getattr(model, 'fbr_', 0.0):g})", "scut": "SCut",
            "rcut": f"RCut (rank {getattr(model, 'rank_', 0)})", "pcut": "PCut",
            "fixed": f"log-odds > {model.threshold}"}[s]
    return rule + (f", at least {model.min_labels} label{'s' if model.min_labels > 1 else ''}"
                   if model.min_labels else "")


def _evaluate(args, opts, start, out, err, corpus=None):
    """:func:`evaluate`'s work."""
    from textnb.io.corpus import MAX_DOCUMENT_BYTES
    from textnb.io.inputs import multilabel_from_fasttext

    if args.repeat != 1:
        raise InputError("multi-label evaluation takes no --repeat")
    kernel = _kernel(args, opts)
    if kernel is None:
        vectorizer, model = _model(args, opts)
    max_bytes = args.max_bytes or MAX_DOCUMENT_BYTES
    corpus = multilabel_from_fasttext(corpus) if corpus is not None else _read(args, test=args.cv is None and not args.test)
    test = corpus.test
    if args.test:
        test = _read(args, test=False, path=args.test)
    texts, labels, skipped, groups = _texts(corpus, max_bytes, "reading", err)
    kernel, extra = _short_texts(kernel, texts, max_bytes)
    if not any(labels):
        raise InputError(f"{input_name(args.labels) if args.labels else corpus.source}: no document has a label")
    folds, folds_note = None, None
    if test is None:  # K-fold cross-validation: 10 folds by default, fewer on fewer documents
        folds = args.cv or min(DEFAULT_FOLDS, len(texts))
        if len(texts) < 2:
            raise InputError(f"{corpus.source}: {counted(len(texts), 'document')}; cross-validation needs 2 at least")
        if folds > len(texts):
            raise InputError(f"{corpus.source}: {counted(len(texts), 'document')}, so there cannot be {folds} folds; "
                             "use a smaller --cv")
        if args.cv is None and folds < DEFAULT_FOLDS:
            folds_note = f"fewer than the default {DEFAULT_FOLDS}: only {counted(len(texts), 'document')}"
    if test is not None:
        test_texts, test_labels, skipped_test, _ = _texts(test, max_bytes, "reading test", err)
        if not test_texts:
            raise InputError(f"{test.source}: no test documents with labels"
                             + (f" in {input_name(args.labels)}" if args.labels else "") + " (use --cv K on the training part)")
        if kernel is not None and _kernel_fits(kernel, args, labels):  # no scikit-learn imported
            from textnb.meta import multilabel_training as training

            X, terms, folds = _count(lambda t: training.count(t, kernel[0], folds=True), texts, err)
            X_test = _count(lambda t: training.transform(t, terms, kernel[0]), test_texts, err)
            split = functools.partial(training.evaluate_split, X, terms, labels, X_test, test_labels,
                                      vectorizer=kernel[0], model=kernel[1], steps=kernel[2],
                                      multilabel=_multilabel_params(args), fold_counts=folds)
        else:
            from textnb.meta.multilabel import evaluate_multilabel_split
            from textnb.text.classifier import document_fold_counts

            if kernel is not None:
                vectorizer, model = _model(args, opts, extra)
            X = _count(vectorizer, texts, err)
            X_test = _count(vectorizer, test_texts, err, fit=False)
            split = functools.partial(evaluate_multilabel_split, X, labels, X_test, test_labels, model,
                                      fold_counts=document_fold_counts(vectorizer, texts, X))
        bar = Progress("fitting", stream=err)  # fit tells it the number of models
        try:
            report = split(progress=bar)
        finally:
            bar.close()
        report["protocol"] = "train/test"
        report["n_train"] = len(texts)
        skipped.merge(skipped_test)
    else:
        from textnb.evaluation.evaluate import vectorize_all

        if kernel is not None and _kernel_fits(kernel, args, labels):  # no scikit-learn imported
            from textnb.meta.multilabel_training import cross_validate

            X, _ = vectorize_all(texts, kernel[0])
            folds_run = functools.partial(cross_validate, X, labels, model=kernel[1], steps=kernel[2],
                                      multilabel=_multilabel_params(args), vectorizer=kernel[0], groups=groups)
        else:
            from textnb.meta.multilabel import cross_validate_multilabel

            if kernel is not None:
                vectorizer, model = _model(args, opts, extra)
            X, _ = vectorize_all(texts, vectorizer)
            folds_run = functools.partial(cross_validate_multilabel, X, labels, model,
                                      vectorizer=vectorizer.get_params(deep=False), groups=groups)
        bar = Progress("folds", total=folds, stream=err)
        try:
            report = folds_run(cv=folds, seed=args.seed, progress=bar)
        finally:
            bar.close()
        if folds_note:  # (beside the folds' own note: fewer mbox files than folds)
            report["folds_note"] = "; ".join(filter(None, (folds_note, report.get("folds_note"))))
        report["protocol"] = f"{report['folds']}-fold cross-validation"
    report.update(skipped_binary=len(skipped), **_layout_counts(corpus), seconds=time.perf_counter() - start)
    if args.json:
        print(dumps(report), file=out)
    else:
        _print_evaluation(report, args, corpus, skipped, test is not None, out)
    if args.plot:  # (drawn once the report is printed: a picture that cannot be written loses no report)
        from textnb.evaluation.plots import plot_label_f1

        out.flush()
        plot_label_f1(report["per_label"], args.plot, folds=report.get("folds"))
        if not args.json:
            print("\n" + one_line(f"per-label F1 plot: {args.plot}"), file=out)
    return 0


def _print_evaluation(report, args, corpus, skipped, tested, out):
    """A multi-label evaluation's report as text (``tested``: on a --test file, not cross-validated)."""
    where = f"{report['n_train']} training and {report['n']} test documents" if tested \
        else f"{report['n']} documents"
    notes = "; ".join(report[k] for k in ("folds_note", "groups_note") if report.get(k))
    note = f" ({notes})" if notes else ""
    print(f"{report['protocol']}{note} on {where}, {counted(len(report['labels']), 'label')} "
          f"({report['seconds']:.2f} s)", file=out)
    for line in _layout_lines(corpus, args):
        print(one_line(line), file=out)
    if skipped:
        print(skipped_line(len(skipped), skipped.empty), file=out)
    for key in ("micro_f1", "macro_f1", "micro_precision", "micro_recall", "macro_precision", "macro_recall",
                "micro_bep", "macro_bep", "subset_accuracy", "hamming_loss"):
        if report.get(key) is not None:
            print(f"{key:<16}{figure_text(report[key])}", file=out)
    lpd = report["labels_per_document"]
    print(f"labels/document {lpd['predicted']:.2f} predicted, {lpd['true']:.2f} true", file=out)
    head, names = name_column(report["per_label"], header="label")  # (long names cut, wide characters counted)
    # (cross-validated: each document is held out once, so a label's support is its documents; no training part)
    train_column = tested
    print(f"\n{head}  precision  recall      f1     bep  support" + ("  train" if train_column else ""),
          file=out)
    for name, pl in zip(names, report["per_label"].values()):
        bep = pl.get("bep")
        bep = "-" if bep is None else figure_text(bep)
        print(f"{name}  {figure_text(pl['precision']):>9}  {figure_text(pl['recall']):>6}  {figure_text(pl['f1']):>6}  "
              f"{bep:>6}  "
              f"{pl['support']:7d}" + (f"  {pl.get('train_support', 0):5d}" if train_column else ""), file=out)
