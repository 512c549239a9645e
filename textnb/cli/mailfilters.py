"""The ``spamfilter`` and ``topicfilter`` programs: argument parsing and printing over
:mod:`textnb.apps.filtering` (the filters themselves live there)."""

import io  # (loaded by Python's start-up: free)
import os  # (the same)
import sys

from textnb.apps.spamclient import (EXIT_INTERRUPTED, EXIT_ZERO_UNUSED, SURROGATES, Terminated, asks_batch, client_main,
                                    copy_rest, drain, read_head, write_whole)
from textnb.cli.filterbase import add_version, full_library, parser_class, progress_bar, say, say_failure, warnings_as_lines
from textnb.cli.streams import cell  # (textnb.cli.output re-exports it: no json/re import here)
from textnb.core.errors import InputError
from textnb.io import mailread as mail
from textnb.apps.spamlite import (
    HAM,
    SPAM,
    DEFAULT_HAM_CUTOFF,
    DEFAULT_KIND,
    DEFAULT_SPAM_ALPHA,
    DEFAULT_SPAM_CUTOFF,
    EXIT_CODES,
    EXIT_ERROR,
    MODEL_KINDS,
    SPAM_KINDS,
    LiteFilter,
    add_headers,
    check_cutoffs,
    default_model_file,
    proba_text,
    score_text,
)

# Heavier modules (numpy, the model loader, the estimators) are imported by the modes
# that need them: the default spam model classifies one message or a folder through
# textnb.apps.spamlite without numpy (docs/spam.md, "Speed").


__all__ = ["filter_main"]


# -- command line ---------------------------------------------------------------------
# argparse (with gettext and shutil) is imported only when a parser is built: the common
# calls of a mail filter are read by _fast_spam_args without it. The argument types
# (textnb.cli.argtypes, which imports argparse) are imported by the parser builders.


class _Args:
    """The namespace :func:`_spam_parser` gives when no option but those listed is used."""

    def __init__(self, **given):
        self.model = self.socket = self.batch = None
        self.passthrough = self.exit_zero = self.log_odds = False
        self.spam_cutoff, self.ham_cutoff = DEFAULT_SPAM_CUTOFF, DEFAULT_HAM_CUTOFF
        self.max_bytes = mail.DEFAULT_MAX_BYTES
        self.train_spam = self.train_ham = self.alpha = None
        self.kind = DEFAULT_KIND
        self.jobs = None
        self.register_spam = self.register_ham = self.unregister_spam = self.unregister_ham = None
        self.__dict__.update(given)


_FAST_FLAGS = {"-p": "passthrough", "--passthrough": "passthrough", "-e": "exit_zero", "--exit-zero": "exit_zero",
               "--log-odds": "log_odds"}


def _fast_spam_args(argv):
    """The parse of ``argv`` when it holds only ``-m/--model FILE``, ``-B/--batch PATH...``,
    ``-j/--jobs 1..4`` and the flags ``-p``, ``-e``, ``--log-odds`` (each at most once, long forms included,
    values not starting with ``-``): exactly what :func:`_spam_parser` would give. None
    for anything else (abbreviations, ``=`` forms, other options, errors, help), which
    the argparse parser reads."""
    given, i = {}, 0
    while i < len(argv):
        a = argv[i]
        if a in _FAST_FLAGS:
            if _FAST_FLAGS[a] in given:
                return None
            given[_FAST_FLAGS[a]] = True
            i += 1
        elif a in ("-j", "--jobs"):  # 1 to 4: what argparse's type accepts on any machine (4 per CPU)
            if "jobs" in given or i + 1 >= len(argv) or argv[i + 1] not in ("1", "2", "3", "4"):
                return None
            given["jobs"] = int(argv[i + 1])
            i += 2
        elif a in ("-m", "--model", "-B", "--batch"):
            key = "model" if a in ("-m", "--model") else "batch"
            values = []
            i += 1
            while i < len(argv) and argv[i] and not argv[i].startswith("-") and (key == "batch" or not values):
                values.append(argv[i])
                i += 1
            if not values or key in given:
                return None
            given[key] = values if key == "batch" else values[0]
        else:
            return None
    return _Args(**given)


def _spam_parser():
    from textnb.cli.argtypes import MAX_ALPHA, bounded, jobs
    from textnb.cli.argtypes import size as _size

    _probability = bounded(float, low=0.0, high=1.0)
    _smoothing = bounded(float, low=0.0, high=MAX_ALPHA)
    p = parser_class()(
        prog="spamfilter",
        description="Classify mail as spam / ham / unsure with a textnb model (bogofilter-style). "
                    "Without a mode option: read one message from stdin; the exit status is the "
                    "verdict (0 spam, 1 ham, 2 unsure, 3 error).",
    )
    add_version(p)
    p.add_argument("--model", "-m", metavar="FILE",
                   help="model file (default: $XDG_DATA_HOME/textnb/spam.tnb or "
                        "~/.local/share/textnb/spam.tnb)")
    p.add_argument("--socket", metavar="PATH",
                   help="classify the message on stdin through the daemon listening at PATH "
                        "(`textnb serve MODEL --socket PATH`) instead of loading a model; with -p, -e, "
                        "the cut-offs and --max-bytes only. Daemon down: exit 3 (-p: message unchanged)")
    p.add_argument("--passthrough", "-p", action="store_true",
                   help="write the message to stdout with X-TextNB-Class/-Score/-Log-Odds headers added; "
                        "with --register-*/--unregister-*/--train-*: the message on stdin, unchanged")
    p.add_argument("--exit-zero", "-e", action="store_true",
                   help="with -p: exit 0 whatever the verdict (3 still means error)")
    p.add_argument("--spam-cutoff", type=_probability, default=DEFAULT_SPAM_CUTOFF, metavar="P",
                   help=f"P(spam) at or above which a message is spam (default {DEFAULT_SPAM_CUTOFF}; {_probability.range})")
    p.add_argument("--ham-cutoff", type=_probability, default=DEFAULT_HAM_CUTOFF, metavar="P",
                   help=f"P(spam) at or below which a message is ham (default {DEFAULT_HAM_CUTOFF}; {_probability.range}); "
                        "between the two: unsure")
    p.add_argument("--max-bytes", type=_size, default=mail.DEFAULT_MAX_BYTES, metavar="SIZE",
                   help=f"bytes of each message that are read (default 10M; {_size.range}); the rest is skipped")
    p.add_argument("--batch", "-B", nargs="+", metavar="PATH",
                   help="classify every message of these files / folders / mbox / Maildir; print "
                        "source<TAB>verdict<TAB>score per message (score: the spam log-odds, full "
                        "precision)")
    p.add_argument("--log-odds", action="store_true",
                   help="with --batch: add P(spam) = 1 / (1 + exp(-score)) as a fourth column, full "
                        "precision (bogofilter -b's spamicity; the score column is the log-odds already)")
    p.add_argument("--jobs", "-j", type=jobs, default=None, metavar="N",
                   help=f"with --batch, --train-* and --(un)register-*: processes that read and tokenise the mail ({jobs.range}; "
                        "default: this one plus one per CPU idle at the start, with at least 64 files, or a "
                        "piece of a large mbox file, per process); the output is the same")
    p.add_argument("--train-spam", nargs="+", metavar="PATH", help="spam to train a new model on")
    p.add_argument("--train-ham", nargs="+", metavar="PATH", help="ham to train a new model on")
    p.add_argument("--kind", default=DEFAULT_KIND, choices=sorted(MODEL_KINDS),
                   help=f"model for --train and for a model created by --register-* (default {DEFAULT_KIND}; "
                        "discriminative: the documents' default model, made by --train-* only)")
    p.add_argument("--alpha", type=_smoothing, default=None, metavar="A",
                   help=f"smoothing of a new multinomial/bernoulli/complement/discriminative model (default "
                        f"{DEFAULT_SPAM_ALPHA} for multinomial, 1 for bernoulli and complement; discriminative takes 1 "
                        f"for its complement event model and 0.1 for Bernoulli as cross-validation chooses between "
                        f"them, and a given --alpha for both; {_smoothing.range})")
    for op in ("register-spam", "register-ham", "unregister-spam", "unregister-ham"):
        p.add_argument(f"--{op}", nargs="*", metavar="PATH",
                       help=f"{op.replace('-', ' ')}: messages from PATHs, or one from stdin")
    return p


def filter_main(argv=None, *, stdin=None, stdout=None, stderr=None):
    """``spamfilter`` command line; returns the exit status (0 spam, 1 ham, 2 unsure, 3 error).

    ``stdin``/``stdout`` are binary streams, ``stderr`` a text stream (defaults: the
    process's). Training, registering and batch mode exit 0 on success, 3 on error.
    With ``-p`` every mode but ``--batch`` writes the message on stdin to stdout: with
    its verdict headers when classifying, unchanged when training or registering (so a
    procmail ``:0 fw`` recipe never replaces a message with nothing).
    """
    stdin = stdin if stdin is not None else sys.stdin.buffer
    stdout = stdout if stdout is not None else sys.stdout.buffer
    stderr = stderr if stderr is not None else sys.stderr
    head, written, parts = None, False, []
    argv = list(sys.argv[1:] if argv is None else argv)
    # (-p has no effect with --batch, whose stdout is the verdict lines: an error there copies nothing)
    passthrough = ("-p" in argv or "--passthrough" in argv) and not asks_batch(argv)
    code = EXIT_ERROR
    try:
        args = _fast_spam_args(argv)
        if args is None:  # argparse's parser: its argument types import numpy (site-packages under -S)
            full_library()
            args = _spam_parser().parse_args(argv)
        if args.socket is not None:
            return client_main(argv, stdin=stdin, stdout=stdout, stderr=stderr)
        passthrough = args.passthrough and args.batch is None
        model_path = args.model or default_model_file()
        ops = {op: getattr(args, op.replace("-", "_")) for op in
               ("register_spam", "register_ham", "unregister_spam", "unregister_ham")}
        ops = {k: v for k, v in ops.items() if v is not None}
        training = args.train_spam is not None or args.train_ham is not None
        modes = sum([bool(ops), training, args.batch is not None])
        if modes > 1:
            raise InputError("choose one of --batch, --train-*, --register-*/--unregister-*")
        exists = bool(ops) and os.path.exists(model_path)
        for warning in _unused_options(args, training, ops, exists):  # (first, as the daemon clients say them)
            say(stderr, "spamfilter", warning)
        check_cutoffs(args.spam_cutoff, args.ham_cutoff)
        learn_stdin = stdin
        if passthrough and (training or ops):
            # -p passes the message through in every mode (a procmail `:0 fw` recipe keeps it):
            # read it first, learn from that copy, then write it out unchanged
            head = read_head(stdin, args.max_bytes, parts)
            learn_stdin = io.BytesIO(head)
        if training:
            if not args.train_spam or not args.train_ham:
                raise InputError("training needs both --train-spam PATH and --train-ham PATH")
            full_library()
            from textnb.apps.filtering import train_model

            with warnings_as_lines(stderr, "spamfilter"), progress_bar(stderr, "training") as progress:
                counts = train_model(model_path, args.train_spam, args.train_ham, kind=args.kind,
                                     alpha=args.alpha, max_bytes=args.max_bytes, progress=progress,
                                     n_jobs=args.jobs, on_warning=_warner(stderr))
            say(stderr, "spamfilter", f"trained {model_path} on {counts[SPAM]} spam and "
                                       f"{counts[HAM]} ham messages")
            if passthrough:
                written = True
                return _pass_unchanged(head, stdin, stdout)
            return 0
        if ops:
            with warnings_as_lines(stderr, "spamfilter"):
                code = _register(ops, model_path, args, learn_stdin, stderr)
            if passthrough:
                written = True
                return _pass_unchanged(head, stdin, stdout)
            return code
        if args.batch is None:  # read first: in -p mode the message must survive any error
            head = read_head(stdin, args.max_bytes, parts)
        cutoffs = dict(spam_cutoff=args.spam_cutoff, ham_cutoff=args.ham_cutoff, max_bytes=args.max_bytes)
        if args.batch is not None:
            return _batch(model_path, cutoffs, args, stdin, stdout, stderr)
        sf = _load(model_path, cutoffs)
        mail.refuse_empty_message("stdin", head)
        v = sf.classify([head])[0]
        if passthrough:
            written = True  # from here on the message is (being) written: never twice
            write_whole(stdout, add_headers(head, v, args.max_bytes))  # (head: the first max_bytes)
            copy_rest(stdin, stdout)
            return 0 if args.exit_zero else EXIT_CODES[v.label]
        drain(stdin)  # the sender is not cut off
        return EXIT_CODES[v.label]
    except (Exception, KeyboardInterrupt, Terminated) as exc:
        say_failure(stderr, "spamfilter", exc)
        if isinstance(exc, KeyboardInterrupt):
            code = EXIT_INTERRUPTED
    if passthrough:  # never lose the message: as it came, or the rest of the verdict's copy
        try:
            if not written:
                write_whole(stdout, head if head is not None else b"".join(parts))
            copy_rest(stdin, stdout)
        except (OSError, ValueError, KeyboardInterrupt, Terminated):
            pass
    return code


def _unused_options(args, training, ops, model_exists=False):
    """One warning line for each option given that the mode leaves unused (``--log-odds``
    without ``--batch``, ``-e`` without ``-p``, ``--alpha`` with a kind it does not smooth,
    ``--kind`` / ``--alpha`` registering into a model that exists, which keeps its own, ...):
    taken without a word until session 28. Not refused: a procmail recipe that passes
    one must go on delivering; the line goes to stderr (procmail's log), the exit status is
    unchanged. ``training``: ``--train-*`` given; ``ops``: the ``--(un)register-*`` given;
    ``model_exists``: the model file exists (a registration then updates it as it is)."""
    learning = training or bool(ops)
    mode = ("--batch" if args.batch is not None else "--train-*" if training else
            f"--{next(iter(ops)).replace('_', '-')}" if ops else None)
    out = []
    if args.log_odds and args.batch is None:
        out.append("--log-odds has no effect without --batch")
    if args.exit_zero and not args.passthrough:
        out.append(EXIT_ZERO_UNUSED)
    elif args.exit_zero and mode is not None:  # (-p passes the message on, with no verdict to exit with)
        out.append(f"-e has no effect with {mode}")
    if args.passthrough and args.batch is not None:
        out.append("-p has no effect with --batch")
    if args.jobs is not None and mode is None:
        out.append("-j has no effect without --batch, --train-* or --register-*")
    for flag, value, default in (("--spam-cutoff", args.spam_cutoff, DEFAULT_SPAM_CUTOFF),
                                 ("--ham-cutoff", args.ham_cutoff, DEFAULT_HAM_CUTOFF)):
        if learning and value != default:
            out.append(f"{flag} has no effect with {mode}")
    settings = [flag for flag, given in (("--kind", args.kind != DEFAULT_KIND), ("--alpha", args.alpha is not None))
                if given]  # (what a new model is set up with)
    for flag in settings:
        if not learning:
            out.append(f"{flag} has no effect without --train-* or --register-*")
        elif ops and model_exists:
            out.append(f"{flag} has no effect with {mode} into a model that exists (it keeps its own; "
                       "they set up a new one)")
    existing = bool(ops) and model_exists  # (its settings are its own: said above)
    if args.alpha is not None and learning and not existing and args.kind in SPAM_KINDS:
        out.append(f"--alpha has no effect with --kind {args.kind} (it smooths the multinomial, bernoulli, "
                   "complement and discriminative kinds)")
    return [f"warning: {line}" for line in out]


def _pass_unchanged(head, stdin, stdout):
    """``-p`` in a mode that does not classify: the message, unchanged, to stdout; exit 0."""
    write_whole(stdout, head)
    copy_rest(stdin, stdout)
    return 0


def _register(ops, model_path, args, stdin, stderr):
    full_library()
    from textnb.apps.filtering import Mailboxes, update_model

    groups = {"register": [], "unregister": []}  # kind -> (label, paths), in the options' order
    for op, paths in ops.items():
        kind, label = op.split("_")
        groups[kind].append((label, paths or ["-"]))
    stdin_data = None
    if any("-" in paths for kind in groups.values() for _, paths in kind):  # read once, used by every op
        stdin_data = mail.read_capped(stdin, args.max_bytes)[0]
        mail.refuse_empty_message("stdin", stdin_data)
    done = update_model(model_path, register=Mailboxes(groups["register"], stdin_data),
                        unregister=Mailboxes(groups["unregister"], stdin_data),
                        kind=args.kind, alpha=args.alpha, max_bytes=args.max_bytes, n_jobs=args.jobs,
                        on_warning=_warner(stderr))
    if not done["registered"] and not done["unregistered"]:
        raise InputError("no messages found to register")
    return 0


def _warner(stderr):
    """What a mode that forks helpers reports a failed helper with (``-j``; the library's
    ``on_warning``): one line, ``spamfilter: warning: ...``; its work is done here, so the
    output is complete and the exit status is not changed."""
    return lambda message: say(stderr, "spamfilter", f"warning: {message}")


def _load(model_path, cutoffs):
    sf = LiteFilter.load(model_path, **cutoffs)
    if sf is None:  # another kind of model, or a file the full loader must judge
        full_library()
        from textnb.apps.filtering import SpamFilter

        sf = SpamFilter.load(model_path, **cutoffs)
    return sf


#: lines of ``--batch`` output written at once
_BATCH_LINES = 256


def _isatty(stream):
    try:
        return stream.isatty()
    except (AttributeError, OSError, ValueError):
        return False


def _write_lines(stdout, lines):
    if lines:
        stdout.write(("\n".join(lines) + "\n").encode("utf-8", SURROGATES))
        lines.clear()


def _batch(model_path, cutoffs, args, stdin, stdout, stderr):
    """One line per message; a message that cannot be read is reported on stderr (one
    line naming it) and the run goes on: exit 3 at the end if any was, else 0. A reader
    that goes away (``| head``) ends the run quietly (exit 0).

    The model is loaded first; the files are then listed and the helper processes forked
    (:meth:`classify_paths`), so each helper holds the model and sends back verdicts, not
    token lists (docs/spam.md, "Session 25")."""
    failed = 0

    def on_error(message):
        nonlocal failed
        failed += 1
        say(stderr, "spamfilter", message)

    sf = _load(model_path, cutoffs)

    # lines go out in blocks of _BATCH_LINES (one line at a time on a terminal), as a
    # buffered stream writes them whether or not PYTHONUNBUFFERED is set
    block = 1 if _isatty(stdout) else _BATCH_LINES
    try:  # (the numpy filter's and estimators' warnings one line each; the numpy-free path warns of nothing)
        with warnings_as_lines(stderr, "spamfilter", active=not isinstance(sf, LiteFilter)), \
                progress_bar(stderr, "classifying", results=stdout) as progress:
            verdicts = sf.classify_paths(args.batch, max_bytes=args.max_bytes, on_error=on_error, n_jobs=args.jobs,
                                         stdin=stdin, on_warning=_warner(stderr))
            lines = []
            for n, (source, v) in enumerate(verdicts, 1):
                line = f"{cell(source)}\t{cell(v.label)}\t{score_text(v)}"
                if args.log_odds:  # (the score column is the log-odds: the flag adds the probability)
                    line += f"\t{proba_text(v)}"
                lines.append(line)
                if len(lines) >= block:
                    _write_lines(stdout, lines)
                if progress is not None:
                    progress(n)
            _write_lines(stdout, lines)
        stdout.flush()
    except BrokenPipeError:  # (textnb.cli.mailcli keeps the flush at exit quiet too)
        return 0
    return EXIT_ERROR if failed else 0
