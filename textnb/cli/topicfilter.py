"""The ``topicfilter`` program: argument parsing and printing over
:func:`textnb.apps.filtering.plan_routes` / :func:`~textnb.apps.filtering.apply_route`."""

import sys

from textnb.apps.spamclient import EXIT_INTERRUPTED, Terminated
from textnb.cli.filterbase import add_version, full_library, parser_class, say, say_failure, warnings_as_lines
from textnb.cli.output import proba_text
from textnb.cli.streams import cell
from textnb.core.errors import InputError, ModelFileError
from textnb.core.wrapping import calibrated, reads_documents
from textnb.io import mailread as mail

__all__ = ["topic_main"]


def _topic_parser():
    from textnb.cli.argtypes import size as _size
    from textnb.cli.argtypes import threshold as _probability

    p = parser_class()(
        prog="topicfilter",
        description="Route documents (files or mail) into OUT/<predicted label>/ with a textnb model; "
                    "documents whose confidence is below --threshold go to OUT/unsorted/. Copies "
                    "unless --move; never overwrites (a fresh name is chosen). Prints "
                    "source<TAB>label<TAB>confidence<TAB>destination per document.",
    )
    add_version(p)
    p.add_argument("--model", "-m", metavar="FILE", required=True, help="model file (.tnb)")
    p.add_argument("--out", "-o", metavar="OUT", required=True, help="output folder")
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="files, folders, mbox files, Maildir folders or pipes (a FIFO, <(...): read once, its "
                        "documents copied out)")
    p.add_argument("--threshold", "-t", type=_probability, default=0.5, metavar="P",
                   help=f"confidence (largest class probability) below which a document is "
                        f"unsorted (default 0.5; {_probability.range}); needs a calibrated model, whose "
                        "probabilities mean what they say: textnb train's default model is (one temperature "
                        "fitted on held-out documents at training time), as is any model trained with "
                        "--calibrate sigmoid|isotonic")
    p.add_argument("--uncalibrated", action="store_true",
                   help="threshold an uncalibrated model's raw posterior anyway (e.g. --model multinomial: "
                        "its probabilities are close to 0 or 1 even for misrouted documents, so few go to "
                        "unsorted)")
    p.add_argument("--dry-run", "-n", action="store_true", help="print the plan, change nothing")
    p.add_argument("--move", action="store_true",
                   help="move files instead of copying (the messages of an mbox of several are always copied; "
                        "a file of one message is moved as any file)")
    p.add_argument("--mail", action="store_true",
                   help="read every document as a mail message, as textnb serve's \"mail\": true reads it: parsed "
                        "(headers and MIME parts decoded) for a plain text model that is not a spam model, as "
                        "spamfilter feeds it for a spam model (classes ham and spam); without it a plain text model "
                        "reads each document, and each message of an mbox or Maildir, as textnb predict reads it (a "
                        "spamfilter model always reads mail)")
    p.add_argument("--max-bytes", type=_size, default=None, metavar="SIZE",
                   help=f"bytes of each message (default 10M) and of each plain document (default: where the "
                        f"model cuts its documents, as textnb predict) that are read ({_size.range})")
    p.add_argument("--quiet", "-q", action="store_true", help="print nothing but errors")
    return p


def topic_main(argv=None, *, stdout=None, stderr=None):
    """``topicfilter`` command line; returns 0 when every document was routed, 1 otherwise.
    Warnings are one line each (:class:`~textnb.cli.filterbase.warnings_as_lines`)."""
    stdout = stdout if stdout is not None else sys.stdout
    stderr = stderr if stderr is not None else sys.stderr
    with warnings_as_lines(stderr, "topicfilter"):
        return _topic_main(argv, stdout, stderr)


def _topic_main(argv, stdout, stderr):
    failed = 0

    def on_error(message):
        nonlocal failed
        failed += 1
        say(stderr, "topicfilter", message)

    try:
        full_library()
        from textnb.apps.filtering import apply_route, plan_routes
        from textnb.cli.options import refuse_spam_model
        from textnb.core.dfe import MIN_CALIBRATION_DOCUMENTS
        from textnb.core.registry import kind_of
        from textnb.text.scorer import load_for_prediction

        args = _topic_parser().parse_args(argv)
        model = load_for_prediction(args.model)  # as textnb predict loads it: no scikit-learn for a text model
        refuse_spam_model(args.model, kind_of(model))  # (the line predict says: it was "not a text model")
        if getattr(model, "multilabel_", False):
            raise ModelFileError(f"{args.model}: a multi-label model; topicfilter routes each document to one "
                                 "folder (a single-label text model is needed)")
        if not hasattr(model, "predict_proba") or not reads_documents(model):
            raise ModelFileError(f"{args.model}: not a text model (a TextClassifier is needed)")
        if args.threshold > 0 and not args.uncalibrated and not calibrated(model):
            raise InputError(f"{args.model}: the model's probabilities are not calibrated (a count model such as "
                             f"--model multinomial, the default model trained on fewer than "
                             f"{MIN_CALIBRATION_DOCUMENTS} documents, too few to calibrate, or one an older textnb "
                             f"wrote, before the default model was calibrated), so -t {args.threshold:g} "
                             f"would route by numbers that do not mean what they say; train the default model "
                             f"('textnb train CORPUS -o MODEL') on {MIN_CALIBRATION_DOCUMENTS} documents or more, or "
                             f"use --calibrate sigmoid (or pass --uncalibrated)")
        quiet = args.quiet

        def report(route, dest):  # (called with the document in place, before an interrupt that came acts)
            nonlocal quiet
            if not quiet:
                try:
                    stdout.write(f"{cell(route.source)}\t{cell(route.label)}\t{proba_text(route.confidence, args.threshold)}\t{cell(dest)}\n")
                except BrokenPipeError:  # the reader went away (| head): the routing goes on
                    quiet = True

        # a plain document is cut where textnb predict cuts it (--max-bytes given, else the model's limit)
        for route in plan_routes(model, args.paths, args.out, threshold=args.threshold, mail_mode=args.mail,
                                 max_bytes=args.max_bytes or mail.DEFAULT_MAX_BYTES, on_error=on_error,
                                 document_bytes=args.max_bytes, dry_run=args.dry_run, move=args.move,
                                 on_warning=lambda message: say(stderr, "topicfilter", f"warning: {message}")):
            if args.dry_run:
                report(route, route.destination)
                continue
            try:
                apply_route(route, move=args.move, placed=lambda dest, route=route: report(route, dest))
            except InputError as exc:
                on_error(str(exc))
        if not quiet:
            try:
                stdout.flush()
            except BrokenPipeError:
                pass
        return 1 if failed else 0
    except BrokenPipeError:  # the reader went away (| head): stop quietly
        return 0
    except (Exception, KeyboardInterrupt, Terminated) as exc:
        say_failure(stderr, "topicfilter", exc)
        if isinstance(exc, KeyboardInterrupt):
            return EXIT_INTERRUPTED
    return 1
