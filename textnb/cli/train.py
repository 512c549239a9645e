"""``textnb train``: read a corpus or a table, fit the model the options describe, save it."""

import contextlib
import importlib
import time

import numpy as np

from textnb.cli.argtypes import file_name
from textnb.cli.argtypes import scheduler as scheduler_address
from textnb.cli.options import (add_model_and_input_options, input_options, model_options, naming_the_corpus, read_path,
                                refuse_stdin_twice, scheduler, seed, structure_errors, warn_multilabel)
from textnb.cli.output import counted, print_summary, save_model_file, skipped_line, terms_kind
from textnb.cli.progress import Progress, write_line
from textnb.core.errors import InputError, StructureError, input_name
from textnb.core.wrapping import fit_weighted
from textnb.core.model_io import output_target, refuse_folder

__all__ = ["add_parser", "run"]


def add_parser(sub):
    p = sub.add_parser("train", help="train a model on a corpus and save it",
                       description="Train on a corpus folder (corpus/<label>/<files>, or its train/ part), "
                                   "a TSV/CSV or JSON Lines file with label and text columns, or a table: ARFF, "
                                   "CSV/TSV with a header (.arff, .csv, .tsv, .tab, .txt; another name is "
                                   "read by its content; not spreadsheets: export them to .csv).")
    p.add_argument("path", metavar="PATH", help="the corpus or table, or - for stdin (read once; its format told by "
                                                "its content, as for /dev/stdin)")
    p.add_argument("-o", "--output", metavar="MODEL", type=file_name, help="model file to write (default: <PATH name>.tnb; stdin.tnb for -)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--scheduler", metavar="ADDRESS", type=scheduler_address,
                   help="train on a Dask cluster: a scheduler address (tcp://host:8786), or local:N "
                        f"to start N local worker processes ({scheduler_address.range}); the model is the same as "
                        f"without. Text corpora only: a table is refused (it is read and fitted here)")
    p.add_argument("--seed", type=seed, default=0, metavar="S",
                   help=f"seed of what training draws (random_state): the default model's sample and folds, "
                        f"the folds of --model auto, --calibrate and --adjust-on cv; the other models draw "
                        f"nothing, so it changes none of them (default 0; {seed.range})")
    add_model_and_input_options(p)
    p.set_defaults(handler=run)
    return p


def _preload(args, opts, inputs):
    """Import the modules this run will use before its clock starts, so that ``seconds``
    measures reading the data, fitting and writing the model, not Python's imports. A table
    told by its name or options with ``--scheduler`` is refused here, before it is read."""
    from textnb.io.inputs import is_table_input
    from textnb.meta.registry import MODELS, modules_for

    spec = MODELS.get(args.model or "")
    table = is_table_input(args.path, inputs, table_model=spec is not None and spec.input == "tables")
    if table:
        _refuse_scheduler(args)
    for name in modules_for(opts, table=table, multilabel=(args.multilabel or args.labels) and args.method):
        importlib.import_module(name)


def _refuse_scheduler(args):
    """One line for ``--scheduler`` with a table: the Dask path counts the documents of a text
    corpus where the workers read them; a table is read whole by this process, and its
    model (discretisation, trees, kernels over all its rows) fitted here. Training it
    locally while a cluster was named said nothing (session 28)."""
    if getattr(args, "scheduler", None):
        raise InputError(f"{input_name(args.path)}: --scheduler counts the documents of a text corpus on a Dask "
                         "cluster; this is a table (ARFF, or CSV/TSV with attribute columns), read and fitted by "
                         "this process: train it without --scheduler")


def run(args, out, err):
    from textnb.io.inputs import check_binary_classes, check_classes, default_model_path, learned_counts
    from textnb.meta.registry import lazy_text_model, make_text_classifier, model_name, streaming_model

    refuse_stdin_twice(args)  # (PATH and the side files: standard input is read once)
    opts, inputs = model_options(args), input_options(args)
    stop_words = args.stop_words if args.stop_words != "english" else None
    model_path = args.output or default_model_path(args.path)
    refuse_folder(model_path)  # -o naming an input, a folder, a FIFO, a missing folder: said before the work
    output_target(model_path, inputs=[args.path, args.labels, args.structure, stop_words])
    if args.multilabel or args.labels:
        from textnb.cli.multilabel import refuse_unsupported

        refuse_unsupported(args, opts)
    _preload(args, opts, inputs)
    start = time.perf_counter()  # `seconds`: read, fit, write (imports done above)
    # training reads the training part only, a TSV/CSV corpus's documents streamed from the file
    kind, data = read_path(args, inputs, err, test=False, stream=True)
    if kind != "multilabel":
        from textnb.cli.multilabel import refuse_unused

        refuse_unused(args)
    if kind == "table":
        _refuse_scheduler(args)  # (a CSV/TSV found to be a table when read)
        with naming_the_corpus(args.path):
            return _train_table(args, opts, data, start, out, err)
    if kind == "multilabel":  # the multi-label options, or a fastText file with several labels on a line
        from textnb.cli.multilabel import train

        with naming_the_corpus(args.path):
            return train(args, opts, start, out, err, corpus=data)
    corpus = data
    check_classes(corpus)
    warn_multilabel(corpus, err)
    streaming = streaming_model(opts, steps=True)
    lazy = lazy_text_model(opts) if streaming is None else None
    if args.scheduler and args.jobs != -1:  # (given: the default, every core, is no one's choice)
        write_line(err, f"textnb: warning: {_jobs_unused(args, streaming)}")
    bar = Progress("reading", total=len(corpus), stream=err)
    try:
        with scheduler(args) as client, naming_the_corpus(args.path):
            if streaming is not None:  # no estimator built: no scikit-learn imported
                from textnb.text.training import train_text_model

                vectorizer, model, steps = streaming
                fitted, skipped = train_text_model(
                    corpus.documents, corpus.labels, vectorizer=vectorizer, model=model, steps=steps,
                    n_jobs=args.jobs, max_bytes=args.max_bytes, progress=bar, client=client,
                    short_texts=not vectorizer)  # (no vectorizer option: the default pipeline's choice)
                n_terms = len(fitted.state["vectorizer_"].state["terms_offsets"]) - 1
                tokenizer = fitted.state["vectorizer_"].params
                name = _model_name(model, steps)
            elif lazy is not None:  # lazy rules fitted by their kernel: no scikit-learn either
                from textnb.semi_naive.lbr_text_io import train_lazy_text_model

                vectorizer, params, adjust = lazy
                fitted, skipped = train_lazy_text_model(
                    corpus.documents, corpus.labels, vectorizer=vectorizer, model=params, adjust=adjust,
                    n_jobs=args.jobs, max_bytes=args.max_bytes, progress=bar, client=client)
                n_terms = len(fitted.state["vectorizer_"].state["terms_offsets"]) - 1
                tokenizer = fitted.state["vectorizer_"].params
                node = fitted.state["model_"]
                name = node.kind if adjust is None else f"{node.kind}({node.state['estimator_'].kind})"
            else:
                fitted = make_text_classifier(opts)
                fitted.fit(corpus.documents, corpus.labels, progress=bar, client=client)
                skipped, n_terms = fitted.skipped_, len(fitted.vectorizer_.vocabulary_)
                tokenizer = fitted.vectorizer_.get_params()
                name = model_name(fitted.model_)
    finally:
        bar.close()
    per_class = learned_counts(corpus, skipped)  # (an mbox file: its messages learnt)
    check_binary_classes(corpus, per_class)
    model_path = args.output or default_model_path(args.path)
    from textnb.io.fasttext import store_label_prefix, unlabeled_line

    save_model_file(store_label_prefix(fitted, getattr(args, "label_prefix", None)), model_path, err)  # (a fastText file's)
    seconds = time.perf_counter() - start
    summary = {
        "source": corpus.source,
        "documents": sum(per_class.values()),
        "per_class": per_class,
        "skipped_binary": len(skipped),
        "vocabulary_size": n_terms,
        "model": model_path,
        "seconds": round(seconds, 3),
    }
    if corpus.skipped:  # symbolic-link loops left out when the folder was listed
        summary["skipped_links"] = len(corpus.skipped)
    if corpus.unlabeled:  # fastText lines without a label
        summary["skipped_unlabeled"] = corpus.unlabeled
    details = [skipped_line(len(skipped), getattr(skipped, "empty", 0)) if skipped else None,
               f"skipped {counted(len(corpus.skipped), 'symbolic-link loop')} (first: {corpus.skipped[0]})"
               if corpus.skipped else None,
               unlabeled_line(corpus.unlabeled) if corpus.unlabeled else None,
               f"vocabulary: {counted(summary['vocabulary_size'], 'term')}{terms_kind(tokenizer)}"]
    return print_summary(summary, args.json, out, read=f"{summary['documents']} documents", details=details, name=name,
                         seconds=seconds)


def _jobs_unused(args, streaming):
    """What ``--jobs`` given with ``--scheduler`` does (found by a user trial: taken without a
    word): it counts no documents, the cluster's workers do (their number: ``local:N``'s N, or
    the scheduler's); of a model whose own fit takes it (``streaming``'s parameters hold
    ``n_jobs``: DiscriminativeNB's passes), it sets only that fit's threads here."""
    n = args.scheduler[len("local:"):] if args.scheduler.startswith("local:") else None
    one = n == "1"
    workers = (f"its {n} worker process{'' if one else 'es'} count{'s' if one else ''} the documents (local:N sets "
               f"their number)" if n is not None else "the scheduler's workers count the documents")
    if streaming is not None and "n_jobs" in streaming[1][1]:
        return (f"--jobs {args.jobs} with --scheduler {args.scheduler} counts no documents: {workers}; it sets only "
                f"the threads of the {_model_name(streaming[1], streaming[2])} fit in this process")
    return f"--jobs {args.jobs} is unused with --scheduler {args.scheduler}: {workers}"


def _model_name(model, steps):
    """What :func:`textnb.meta.registry.model_name` calls the estimator of a streamed ``model``."""
    kind, params = model
    if kind in ("CalibratedNB", "APNBC"):
        return f"{kind}({_model_name(params.get('estimator') or ('MultinomialNB', {}), steps)})"
    return "Pipeline" if steps else "SmoothingCV(Pipeline)" if kind == "SmoothingCV" else kind


@contextlib.contextmanager
def _naming(source):
    """An :class:`InputError` about the data (e.g. a column too large to model) as one
    line that names the file it came from (a :class:`StructureError` names the structure
    file instead: :func:`~textnb.cli.options.structure_errors`)."""
    try:
        yield
    except InputError as exc:
        if isinstance(exc, StructureError) or str(exc).startswith(f"{source}:"):
            raise
        raise InputError(f"{source}: {exc}") from None


def _train_table(args, opts, table, start, out, err):
    from textnb.io.fasttext import unlabeled_line
    from textnb.io.inputs import check_table_classes, default_model_path
    from textnb.meta.registry import make_table_model, model_name

    check_table_classes(table)
    # (a table with instance weights and a model that does not learn from them: refused here)
    model = make_table_model(opts, table, kernel=True)  # no scikit-learn where the model has a kernel
    with _naming(table.source), structure_errors(args):
        fit_weighted(model, table.X, table.y, table.sample_weight)  # as each fold of textnb evaluate
    model_path = args.output or default_model_path(args.path)
    save_model_file(model, model_path, err)
    seconds = time.perf_counter() - start
    classes, counts = np.unique(table.y, return_counts=True)
    # in the model's class order (an ARFF header's declared one), as predict, inspect and evaluate
    rank = {c: i for i, c in enumerate(np.asarray(getattr(model, "classes_", classes)).tolist())}
    names = classes.tolist()
    order = sorted(range(len(names)), key=lambda i: (rank.get(names[i], len(rank)), i))
    classes, counts = classes[order], counts[order]
    summary = {
        "source": table.source,
        "rows": int(len(table.y)),
        "per_class": {str(c): int(n) for c, n in zip(classes, counts)},
        "attributes": len(table.attributes),
        "nominal_attributes": int(table.nominal_mask.sum()),
        "numeric_attributes": sum(a.kind == "numeric" for a in table.attributes),
        "model": model_path,
        "seconds": round(seconds, 3),
    }
    n_text = sum(a.is_text for a in table.attributes)
    if n_text:
        summary["text_attributes"] = n_text
    n_uncertain = sum(a.is_uncertain for a in table.attributes)  # (nominal or numeric, counted apart)
    if n_uncertain:
        summary["uncertain_attributes"] = n_uncertain
    if table.unlabeled:  # rows of an unknown class: left out (read_table), as evaluate and predict
        summary["skipped_unlabeled"] = table.unlabeled
    text_note = (f", {n_text} text" if n_text else "") + (f", {n_uncertain} uncertain" if n_uncertain else "")
    details = [unlabeled_line(table.unlabeled, rows=True) if table.unlabeled else None,
               f"attributes: {summary['attributes']} ({summary['nominal_attributes']} nominal, "
               f"{summary['numeric_attributes']} numeric{text_note})"]
    return print_summary(summary, args.json, out, read=f"{summary['rows']} rows", details=details, name=model_name(model),
                         seconds=seconds)
