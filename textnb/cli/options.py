"""The options ``train``, ``evaluate`` and ``predict`` share, and their translation into
the library's option objects (:class:`~textnb.meta.registry.ModelOptions`,
:class:`~textnb.io.inputs.InputOptions`)."""

import argparse
from contextlib import contextmanager

from textnb.cli.argtypes import (MAX_ALPHA, MAX_BINS, MAX_NGRAM, MAX_TERMS, MAX_TOP, bounded, df_value, jobs,
                                 select_spec, size)
from textnb.cli.progress import write_line
from textnb.core.errors import DataError, InputError, StructureError, input_name
from textnb.io.sources import STDIN_PATHS  # (the names of standard input a file option can have: read once)

__all__ = ["add_model_command", "add_corpus_options", "add_fasttext_options", "add_model_and_input_options",
           "add_model_options", "add_ignore", "add_csv_table_options", "add_multilabel_options", "model_options",
           "input_options", "read_path", "scheduler", "structure_errors", "max_bytes", "top", "top_labels",
           "ALL_LABELS", "probability", "folds", "repeats", "seed", "naming_the_corpus", "refuse_stdin_twice"]

max_features = bounded(int, low=1, high=MAX_TERMS)
top = bounded(int, low=1, high=MAX_TOP)
#: ``--top`` / ``test``'s K of -1: every label, as fastText's ``predict`` and ``test`` take k = -1.
ALL_LABELS = -1


def top_labels(text):
    """:data:`top`, or -1 (:data:`ALL_LABELS`) for every label."""
    if str(text).strip() == "-1":
        return ALL_LABELS
    try:
        return top(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1 and <= {MAX_TOP}, or -1 for every label, "
                                         f"got {text!r}") from None


top_labels.__name__ = "int_in_range"
top_labels.range = f"{top.range}, or -1 for every label"
smoothing = bounded(float, low=0.0, high=MAX_ALPHA)
bins = bounded(int, low=1, high=MAX_BINS)
ngram = bounded(int, low=1, high=MAX_NGRAM)
max_bytes = size  # (spamfilter's and topicfilter's own: 1000, 64k, 16M)
folds = bounded(int, low=2, high=10_000)
repeats = bounded(int, low=1, high=1_000)
seed = bounded(int, low=0, high=2**32 - 1)
probability = bounded(float, low=0.0, high=1.0, low_open=True)


def model_options(args):
    """The model the parsed arguments ask for, as the registry takes it."""
    from textnb.meta.registry import ModelOptions, check_adjust_options

    opts = ModelOptions.from_namespace(args)
    check_adjust_options(opts)  # (at argument time: before any data is read)
    return opts


def input_options(args):
    """How the parsed arguments say to read a PATH."""
    from textnb.io.inputs import InputOptions

    return InputOptions.from_namespace(args)


def read_path(args, inputs, err, **load):
    """What ``train`` and ``evaluate`` read at ``args.path``: ``(kind, data)`` as
    :func:`textnb.io.inputs.load_input` reads it (``load``: its keywords), or
    ``("multilabel", None)`` without reading when ``--multilabel`` or ``--labels`` asks for the
    multi-label command (which reads the path itself). Every option given that the input
    would leave unused is refused in one line (:func:`textnb.io.inputs.refuse_unread_options`).
    A TSV/CSV or JSON Lines corpus's first pass (its labels; a file of hundreds of megabytes
    takes seconds) shows its bytes read of the file's size on ``err``, the command's standard
    error, when it is a terminal (:class:`~textnb.cli.progress.Progress`)."""
    if args.multilabel or args.labels:
        from textnb.io.inputs import refuse_unread_options

        refuse_unread_options(args.path, inputs, "multilabel")
        return "multilabel", None
    from textnb.cli.progress import Progress
    from textnb.io.inputs import load_input

    with Progress("reading labels" if load.get("stream") else "reading", stream=err, unit="B") as bar:
        # (an option PATH would leave unused: refused there)
        return load_input(args.path, inputs, progress=bar if bar.enabled else None, **load)


def add_model_command(sub, name, **kwargs):
    """The parser of command ``name`` that reads a saved model (``predict``, ``test``,
    ``inspect``, ``serve``): ``sub.add_parser(name, **kwargs)`` with the MODEL argument first."""
    p = sub.add_parser(name, **kwargs)
    p.add_argument("model", metavar="MODEL")
    return p


def add_model_and_input_options(p):
    """The option groups ``train`` and ``evaluate`` share, in their ``--help`` order: the
    multi-label options, the model, the corpus."""
    add_multilabel_options(p)
    add_model_options(p)
    add_corpus_options(p)


def add_corpus_options(p):
    g = p.add_argument_group("corpus")
    g.add_argument("--label-column", help="label column of a TSV/CSV corpus (name or 1-based number); "
                                          "for a mixed table the same as --class")
    g.add_argument("--text-column", action="append", metavar="NAME",
                   help="text column of a TSV/CSV corpus (name or 1-based number); repeat it, or give it "
                        "for a file with other columns too, for a mixed table: text columns beside "
                        "nominal and numeric ones, one naive Bayes (class: --class, default the last column)")
    g.add_argument("--max-bytes", type=max_bytes,
                   help=f"read at most this many bytes of a document: a size such as 4096, 64k or 16M "
                        f"(default 16M; {max_bytes.range})")
    add_fasttext_options(g)


def add_fasttext_options(group, lines=False, note=None):
    """``--fasttext`` and ``--label-prefix`` (fastText's ``-label``); ``lines``: for
    ``predict --lines`` and ``test``, where they only say which words are labels (``note``:
    what the command does with them; default: ``predict --lines``'s)."""
    if not lines:
        group.add_argument("--fasttext", action="store_true",
                           help="read PATH as a fastText file: one document per line, its labels as words "
                                "starting with the label prefix ('__label__spam some text'; several labels: "
                                "a multi-label corpus); automatic for a file whose first line starts with it")
    group.add_argument("--label-prefix", metavar="PREFIX",
                       help="fastText's -label: words starting with PREFIX are labels (default __label__"
                            + ("; for a model: the prefix it was trained with, as fastText's model keeps it)"
                               if lines else "; the model keeps it)")
                            + ((note or "; with --lines, and in a fastText file given as PATH (a file whose "
                                "first line starts with the prefix: one document per line, the accuracy on "
                                "stderr), they are left out of the text") if lines else
                               "; implies --fasttext"))


def add_model_options(p):
    from textnb.meta.registry import MODELS

    g = p.add_argument_group("model")
    documents = "; ".join(f"{s.name}: {s.summary}" for s in MODELS.values() if s.input == "documents")
    tables = "; ".join(f"{s.name}: {s.summary}" for s in MODELS.values() if s.input == "tables")
    g.add_argument("--model", choices=list(MODELS),
                   help=f"documents: {documents}; without --model, --m, --uniform-prior, --weighting or --lazy "
                        f"select multinomial; tables: {tables}")
    g.add_argument("--norm", action="store_true", help="complement: normalise the weights (Rennie et al.)")
    g.add_argument("--weighting", action="store_true",
                   help="sublinear tf, idf and length normalisation (Rennie et al.) before the model "
                        "(not bernoulli, which keeps only presence)")
    g.add_argument("--select", metavar="CRITERION:K", type=select_spec,
                   help=f"keep the K best terms by chi2, ig (information gain) or df, learned in each fit "
                        f"({select_spec.range})")
    g.add_argument("--calibrate", choices=["sigmoid", "isotonic"],
                   help="calibrate probabilities on out-of-fold log-odds (not with --adjust)")
    g.add_argument("--structure", metavar="FILE.json",
                   help='Bayesian network structure for --model bn: {"parents": {"A": ["C", "B"]}, "class": "C"} '
                        '(A\'s parents the class C and B; an attribute not listed has the class as its only parent; '
                        '"class": the class node\'s name in the file, default the table\'s class attribute)')
    # (the defaults the models take: tests/cli/test_cli_messages.py holds these words to them)
    g.add_argument("--alpha", type=smoothing,
                   help="additive smoothing (default 1; the default model for documents, discriminative, takes 1 for "
                        "its complement event model and 0.1 for Bernoulli as cross-validation chooses between them, "
                        "and a given --alpha for both, which can change that choice; "
                        f"{smoothing.range}; tan, bn and lazy models: above 0; "
                        "tables: not aode, nor nb's m-estimate / eq4 / laplace)")
    g.add_argument("--m", type=smoothing, dest="m_estimate",
                   help=f"use the m-estimate with this m ({smoothing.range}; document models, tan, bn and aode: above 0) "
                        "instead of additive smoothing (tables: nb, tan, bn, aode; not --lazy); nb's --nominal "
                        "m-estimate without --m takes m 2")
    g.add_argument("--uniform-prior", action="store_true",
                   help="uniform class priors (count models; tables: --model nb only)")
    t = p.add_argument_group("tokenizer")
    t.add_argument("--no-lowercase", action="store_true",
                   help="keep case (not with --stem: the stemmers lowercase every word)")
    t.add_argument("--token-pattern", help=r"regex for a token (default (?u)\b\w\w+\b)")
    t.add_argument("--stop-words", metavar="english|FILE",
                   help="drop English stop words, or the words listed in FILE (one per line)")
    t.add_argument("--stem", choices=["porter", "snowball"], help="stem words: Porter or Snowball English (NLTK's stems)")
    t.add_argument("--ngram", type=ngram, metavar="N", help=f"word n-grams from 1 to N (default 1; when no option of this group is given, a corpus of "
                   f"short texts under the default model gets 2 and --min-df 2; N {ngram.range})")
    t.add_argument("--min-df", type=df_value,
                   help=f"keep terms in at least this many (or this fraction of) documents ({df_value.range})")
    t.add_argument("--max-df", type=df_value,
                   help=f"keep terms in at most this many (or this fraction of) documents ({df_value.range})")
    t.add_argument("--max-features", type=max_features,
                   help=f"keep the most frequent terms only ({max_features.range})")
    t.add_argument("--binary", action="store_true",
                   help="count each term once per document (--model bernoulli keeps only presence anyway: there it "
                        "changes only which terms --max-features keeps, ranked by document frequency)")
    p.add_argument("--jobs", type=jobs, default=-1,
                   help=f"worker processes (default -1: all cores; -k: all but k - 1; {jobs.range})")
    p.add_argument("--lazy", choices=["lbr", "hlbr"],
                   help="lazy Bayesian rules (Zheng & Webb). Tables: lbr (every attribute a candidate condition) or "
                        "hlbr (candidates chosen at training time); documents: lbr and hlbr are one model (the same "
                        "file): LBR on key terms, its candidates chosen at training time by hlbr's filter (every term "
                        "of a vocabulary would be too many)")
    adj = p.add_argument_group("APNBC class weights (Webb & Pazzani)")
    adj.add_argument("--adjust", action="store_true",
                     help="learn one weight per class (APNBC); not with --calibrate, --weighting or --select "
                          "(APNBC weighs the model's joint log probabilities, which they do not keep)")
    adj.add_argument("--significance", type=probability, metavar="P",
                     help=f"binomial test level for accepting a weight change (default 0.05; {probability.range}; "
                          "1 disables the test)")
    adj.add_argument("--adjust-on", choices=["resubstitution", "cv"],
                     help="learn the weights from the training data itself (default) or out-of-fold scores")
    tab = p.add_argument_group("tables (ARFF, CSV/TSV with a header)")
    tab.add_argument("--class", dest="class_name", metavar="NAME", help="class attribute (default: the last one)")
    add_ignore(tab)
    add_csv_table_options(tab)
    tab.add_argument("--numeric", choices=["gaussian", "kde", "mdl", "equal-frequency", "equal-width"],
                     help="numeric attributes: Gaussian (default), kernel density, or discretised")
    tab.add_argument("--bins", type=bins,
                     help=f"bins for --numeric equal-frequency / equal-width (default 10; {bins.range})")
    tab.add_argument("--nominal", choices=["additive", "laplace", "m-estimate", "eq4"],
                     help="--model nb: estimator of P(value | class) (default additive with --alpha, i.e. Laplace; "
                          "m-estimate with --m; laplace and eq4 take neither)")
    tab.add_argument("--interval-fit", choices=["theorem1", "censored"],
                     help="uncertain numeric attributes ([L,R] cells), --model nb: the interval-censored "
                          "maximum-likelihood Gaussian, fitted by EM (default; chosen on held-out data, "
                          "docs/uncertain.md) or the paper's Theorem 1 (incremental)")
    tab.add_argument("--missing", choices=["ignore", "mode"],
                     help="tan / bn: leave missing values out (default) or replace them by the mode (Weka)")


def _names(value):
    """``NAME[,NAME...]`` as a list of names: split at commas, except inside a name quoted
    as ARFF quotes one (``'temp, F'`` or ``"temp, F"``: a name with a comma; a quote
    elsewhere is part of the name, as in ``O'Brien``)."""
    names, rest = [], value
    while True:
        item = rest.lstrip()
        quote = item[:1]
        if quote in ("'", '"') and (end := item.find(quote, 1)) > 0 and (
                (after := item[end + 1:].lstrip()) == "" or after.startswith(",")):
            names.append(item[1:end])
            rest = after[1:] if after else None
        else:
            name, comma, rest = item.partition(",")
            names.append(name.strip())
            rest = rest if comma else None
        if rest is None:
            break
    if not all(names):
        raise argparse.ArgumentTypeError(f"expected NAME[,NAME...]; got {value!r}")
    return names


def add_ignore(group):
    group.add_argument("--ignore", type=_names, action="extend", metavar="NAME[,NAME...]",
                       help="table attributes to leave out (an ID column, say), as Weka's Remove filter; "
                            "repeat it or give a comma-separated list: all of them are left out (a name with a comma "
                            "quoted: \"'temp, F'\"; a TSV/CSV text "
                            "corpus reads its label and text columns only: it stays one unless one of those "
                            "is left out)")


def add_csv_table_options(group, predict=False):
    """``--nominal-columns`` and ``--no-header``: how a CSV/TSV table's columns are read, on
    every command that reads one (``predict``: the query files, which a model reads as it was
    trained)."""
    group.add_argument("--nominal-columns", type=_names, action="extend", metavar="COLS",
                       help="CSV/TSV table: read these columns as nominal (number codes such as 1,2,3 become "
                            "categories, as Weka's CSVLoader -N): names, 1-based numbers or ranges, comma-separated "
                            "or repeated (2-4, first, last, 5-last); a model keeps them nominal"
                            + ("; predict reads the model's columns as it was trained without it (naming one the "
                               "model has as numeric is an error)" if predict else "") + "; an ARFF file declares its types")
    group.add_argument("--no-header", action="store_true",
                       help="CSV/TSV table without a header row: every row is data, the columns named att1, att2, "
                            "... as Weka names them (--class att5, --ignore att1); a first row that looks like "
                            "data read as a header is a warning (a headerless label<TAB>text file stays the text "
                            "corpus it is, its first row a document)"
                            + (" (a model trained with --no-header reads its query files so too: give it here; a text "
                               "model reads a TSV/CSV file's rows so, its first row a document)"
                               if predict else ""))


def add_multilabel_options(p):
    """The multi-label options (:func:`textnb.cli.multilabel.add_options`)."""
    from textnb.cli.multilabel import add_options

    add_options(p)


@contextmanager
def scheduler(args):
    """A Dask client for ``--scheduler``, else None."""
    if not getattr(args, "scheduler", None):
        yield None
        return
    from textnb.core.workers import connect

    with connect(args.scheduler) as client:
        yield client


#: the options of ``train`` and ``evaluate`` that read a file (read through the one pipe reader,
#: :mod:`textnb.io.corpus`, when standard input or a pipe): (how a message names it, attribute)
INPUT_FILE_OPTIONS = (("PATH", "path"), ("--test", "test"), ("--labels", "labels"), ("--stop-words", "stop_words"),
                      ("--structure", "structure"))


def refuse_stdin_twice(args):
    """One InputError line when standard input (``-`` or ``/dev/stdin``) is given to two of
    the options that read a file (PATH, ``--test``, ``--labels``, ``--stop-words``,
    ``--structure``): it can be read once. ``--stop-words english`` names no file."""
    given = [name for name, attr in INPUT_FILE_OPTIONS if getattr(args, attr, None) in STDIN_PATHS]
    if len(given) > 1:
        raise InputError(f"standard input given as {', as '.join(given[:-1])} and as {given[-1]}: it can be read once")


@contextmanager
def structure_errors(args):
    """Every problem of the network structure (a :class:`~textnb.core.errors.StructureError`, most
    found at fit time, where the library knows the parents but not their file) as one line
    naming the structure file ``--structure``, and never the data file."""
    try:
        yield
    except StructureError as exc:
        where = getattr(args, "structure", None)
        where = where and input_name(where)
        if where and not str(exc).startswith(f"{where}:"):
            raise StructureError(f"{where}: {exc}") from None
        raise


def warn_multilabel(corpus, err):
    """One stderr line when a folder corpus looks multi-label (the same document in
    several class folders) and is about to be read single-label."""
    from textnb.io.corpus import documents_in_several_classes

    n = documents_in_several_classes(corpus)
    if n:
        write_line(err, f"textnb: warning: {corpus.source}: {n} document{'s' if n > 1 else ''} in several class "
                        f"folders (a multi-label corpus?) counted once per folder; use --multilabel for one document "
                        f"with several labels")


def refuse_spam_model(path, kind):
    """One line for a spam filter's model (``kind`` SpamScorer) given to ``predict`` (or
    ``test``, ``topicfilter``): the programs that read it. (It said 'does not record its
    table attributes'; ``inspect`` describes it.)"""
    if kind == "SpamScorer":
        raise InputError(f"{path}: a spam filter's model (SpamScorer), which spamfilter and textnb serve read: "
                         f"classify mail with 'spamfilter --model {path}' or 'textnb serve {path}'")


def multilabel_model(model):
    """The MultiLabelNB at the end of a multi-label text Pipeline (or its file's scorer), or
    None: :func:`textnb.meta.labelsets.multilabel_model` (imported when asked: the options
    load no numpy)."""
    from textnb.meta.labelsets import multilabel_model as find

    return find(model)


@contextmanager
def naming_the_corpus(path):
    """A problem of the training data as a whole (the library's
    :class:`~textnb.core.errors.DataError`: an empty vocabulary, a class too small to
    calibrate) said of the corpus ``path``: one line naming it, as every other input error."""
    try:
        yield
    except DataError as exc:
        exc.args = (f"{input_name(path)}: {exc}",)  # (its own class kept)
        raise
