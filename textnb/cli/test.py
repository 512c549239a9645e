"""``textnb test MODEL FILE [K] [TH]``: precision and recall at K on a labelled fastText file,
printed as ``fasttext test`` prints them (``N``, ``P@K``, ``R@K``)."""

from textnb.cli.argtypes import threshold as threshold_type
from textnb.cli.options import add_fasttext_options, add_model_command, multilabel_model, refuse_spam_model, top_labels
from textnb.cli.output import dumps
from textnb.cli.progress import write_line
from textnb.core.errors import InputError

__all__ = ["add_parser", "run"]


#: what ``textnb test --help`` says first (argparse reflows it)
_DESCRIPTION = """\
Score a labelled fastText file (one document per line, its labels as '__label__NAME' words)
with a text model, single- or multi-label, and print N (lines with a label the model knows),
P@K and R@K as 'fasttext test MODEL FILE [K] [TH]' does: each line's K most probable labels
of probability >= TH are its predictions, and a label given twice on a line is two labels to
recall (fastText's counting).
"""


def add_parser(sub):
    p = add_model_command(sub, "test", description=_DESCRIPTION,
                          help="precision and recall at K on a fastText file, as fasttext test")
    p.add_argument("file", metavar="FILE", help="the labelled fastText file, or - for stdin")
    p.add_argument("k", metavar="K", nargs="?", type=top_labels, default=1,
                   help=f"predictions per line (default 1; {top_labels.range})")
    p.add_argument("threshold", metavar="TH", nargs="?", type=threshold_type, default=0.0,
                   help=f"probability a prediction needs (default 0; {threshold_type.range})")
    p.add_argument("--json", action="store_true",
                   help="one JSON object: n, k, threshold, precision, recall and the counts behind them")
    add_fasttext_options(p, lines=True, note="; they are each line's true labels, left out of its text")
    p.set_defaults(handler=run)
    return p


def run(args, out, err):
    from textnb.core.model_io import build, read_nodes
    from textnb.core.wrapping import reads_documents
    from textnb.evaluation.topk import fasttext_test, format_test_result
    from textnb.text.scorer import text_model_root

    from textnb.io.fasttext import stored_label_prefix

    root = text_model_root(read_nodes(args.model), args.model)
    refuse_spam_model(args.model, root.kind)  # (as predict and inspect: it said "a SpamScorer reads tables")
    model = build(root, args.model)  # a text model as its readers take it
    prefix = args.label_prefix if args.label_prefix is not None else stored_label_prefix(root)
    if multilabel_model(model) is None and not reads_documents(model):
        raise InputError(f"{args.model}: test needs a text model (single- or multi-label); "
                         f"a {type(model).__name__} reads tables")
    # (a pipe, - or /dev/stdin or <(...) or a FIFO, is read once by fasttext_test, - named stdin)
    result = fasttext_test(model, args.file, k=args.k, threshold=args.threshold, label_prefix=prefix)
    if not result["n"]:  # (fastText's figures, nan; said why: found by a user trial, nothing on stderr)
        from textnb.io.corpus import input_name
        from textnb.core.labels import label_names

        names = [str(c) for c in label_names(multilabel_model(model) or model)]
        shown = ", ".join(names[:10]) + (f", ... ({len(names)} in all)" if len(names) > 10 else "")
        write_line(err, f"textnb: warning: {input_name(args.file)}: no line has a label the model knows (its labels: "
                        f"{shown}), so P@K and R@K are not defined")
    if args.json:
        print(dumps(result), file=out)
    else:
        out.write(format_test_result(result))
    return 0
