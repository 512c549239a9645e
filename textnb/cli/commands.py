"""The ``textnb`` command: parses the arguments, dispatches to one module per command
(``textnb.cli.train``, ``predict``, ``evaluate``, ``inspect``, ``merge``, ``serve``, ``test``) and
turns the library's errors into one line.

Exit status: 0 success; 1 a user error (bad input, bad model file, bad value: the library
raises a :class:`~textnb.core.errors.TextnbError`, or an OSError), printed as one line
``textnb: error: ...`` on stderr; 2 bad usage (argparse); 70 an internal error (any other
exception: a bug, printed as one line, or raised with its traceback when the environment
has ``TEXTNB_DEBUG``, as the test suite does); 130 interrupted (SIGINT); 128 + N ended by
signal N (SIGTERM 143, SIGHUP 129: ``textnb: terminated by signal N``, worker processes
stopped as at a Ctrl-C; :func:`textnb.core.signals.stop_on_signals`, :class:`textnb.core.signals.Terminated`).
Run as the program, the first stop signal is the only one answered: those that follow while it
stops (a second Ctrl-C) are ignored (:func:`textnb.core.signals.interrupt_once`).
"""

import argparse
import gc
import os
import re
import sys

import textnb.cli.evaluate
import textnb.cli.inspect
import textnb.cli.merge
import textnb.cli.predict
import textnb.cli.serve
import textnb.cli.test
import textnb.cli.train
from textnb.cli.filterbase import STOPS, say, stop_message, warnings_as_lines
from textnb.cli.output import flag_words, one_line, tolerant
from textnb.apps.spamclient import SURROGATES, Terminated
from textnb.core.errors import ModelGivenAsData, TextnbError, os_error_text
from textnb.core.signals import stops_unmasked
from textnb.core.version import __version__

__all__ = ["main", "build_parser"]

EX_SOFTWARE = 70  # sysexits.h: internal software error

#: The options that lower what a command takes, named by its out-of-memory line
_MEMORY_OPTIONS = ("--ngram", "--bins", "--max-features", "--max-bytes")


def _stop(exc):
    """``(line after "textnb: ", exit status)`` of a stop that is neither an error of the input
    nor a bug (:func:`textnb.cli.filterbase.stop_message`, the filters' rule too): 130 at
    Ctrl-C, 128 + N at signal N, else 1 and an ``error:`` line; None for any other exception."""
    message = stop_message(exc, _MEMORY_OPTIONS)
    if message is None:
        return None
    if isinstance(exc, KeyboardInterrupt):
        return message, 130
    if isinstance(exc, Terminated):
        return message, 128 + exc.signum
    return f"error: {message}", 1


COMMANDS = (textnb.cli.train, textnb.cli.predict, textnb.cli.evaluate, textnb.cli.inspect, textnb.cli.merge,
            textnb.cli.serve, textnb.cli.test)


class _Parser(argparse.ArgumentParser):
    """Usage errors in two lines: the error of the (sub)command that was given, with a
    "did you mean" for a mistyped option, and where the help is (not the whole usage)."""

    def error(self, message):
        import difflib  # (a usage error only)

        if message.startswith("unrecognized arguments:"):
            options = [o for a in self._actions for o in a.option_strings]
            hints = []
            for word in message.split(":", 1)[1].split():
                close = _close_option(word, options)
                if close:
                    hints.append(f"{word} -> {close}")
            if hints:
                message += f" (did you mean: {', '.join(hints)}?)"
        bad = re.match(r"argument (\S+): invalid choice: '([^']*)' \(choose from (.*)\)$", message)
        if bad:
            choices = re.findall(r"'([^']*)'", bad.group(3))
            close = difflib.get_close_matches(bad.group(2), choices, n=1, cutoff=0.5)
            if close:
                message += f"; did you mean {close[0]!r}?"
        self.exit(2, f"{self.prog}: error: {one_line(message)}\n(see '{self.prog} --help')\n")  # (an argument named in it)


def _close_option(word, options):
    """The option of ``options`` that ``word`` (an unknown option, ``--name`` or
    ``--name=value``) is a close misspelling of, or None: names compared without their
    dashes (``--bogus`` and ``--rows`` share their ``--``, which made them look alike), a
    long option only with long ones, and only a genuine near-miss (``--modle``, ``--probaa``,
    ``--jsno``), not any word that shares a few letters."""
    import difflib

    if not word.startswith("-") or word == "-":
        return None
    name = word.split("=", 1)[0]
    dashes = "--" if name.startswith("--") else "-"
    stems = {o[len(dashes):]: o for o in options if o.startswith(dashes) and (dashes == "--") == o.startswith("--")}
    close = difflib.get_close_matches(name[len(dashes):], list(stems), n=1, cutoff=0.75)
    return stems[close[0]] if close else None


def build_parser():
    parser = _Parser(prog="textnb", description="Naive Bayes for text and tabular data.")
    parser.add_argument("--version", action="version", version=f"textnb {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for command in COMMANDS:
        command.add_parser(sub)
    return parser


_PARSERS = []


def _parser():
    """The parser of build_parser(), built once a process: a parse keeps nothing in it (each
    makes its own namespace; the handlers, types and defaults are read, never changed), and
    a process that runs several commands (the tests run some 2,000 in theirs) builds its
    three hundred arguments once instead of each time (3 ms)."""
    if not _PARSERS:
        _PARSERS.append(build_parser())
    return _PARSERS[0]


def _subparser(parser, command):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices.get(command)
    return None


def _model_use(exc):
    """What to do with a textnb model file given as data (:class:`ModelGivenAsData`, from
    ``train`` / ``evaluate`` / ``test`` of a ``.tnb`` file), said after the error."""
    if not isinstance(exc, ModelGivenAsData):
        return ""
    # (predict --rows scores every kind that reads rows, tables too; test takes text models only)
    return (f" (to score it on labelled data: textnb predict {exc.path} --rows FILE prints its accuracy; "
            f"for a text model on a fastText file, textnb test {exc.path} FILE)")


def _option_words(exc):
    """The message of ``exc``; a model parameter's value refused (a ParameterError that begins
    with the parameter's name) named by the option that sets it: ``--alpha must be a finite
    number in (0, 1e+12]; got 0.0`` (found by a user trial: ``train --model tan --alpha 0`` said
    ``alpha must be ...``, no option named)."""
    from textnb.core.errors import ParameterError
    from textnb.meta.registry import PARAMETER_FLAGS, SWITCHES

    import re

    text, name = str(exc), getattr(exc, "parameter", None)
    flag = PARAMETER_FLAGS.get(name) if isinstance(exc, ParameterError) and name else None
    if flag is None or flag in SWITCHES or not text.startswith(f"{name} must be "):
        return text
    # in the option's words: its absence is the library's None, and its upper bound is the
    # option's own (argparse checks it first), so a value refused here is below the model's
    # lower bound (found by a user trial: 'train --model tan --m 0' said '--m must be None or a
    # finite number in (0, 1e+12]', where the option takes 0 to 1e+06)
    rest = text[len(name):].replace(" must be None or ", " must be ", 1)
    rest = re.sub(r"a finite number in \((\S+), [^\]]+\]", r"above \1 for this model", rest, count=1)
    return flag + re.sub(r"a finite number in \[(\S+), [^\]]+\]", r"at least \1 for this model", rest, count=1)


def main(argv=None, *, stdout=None, stderr=None):
    """Run the command line; returns the exit status.

    Run as the program (``argv`` None: the arguments are ``sys.argv``), the objects of
    the modules imported so far are frozen out of the garbage collector (``gc.freeze``)
    before the command runs: they live as long as the process, and the collections that
    the command's allocations trigger would otherwise walk them all again (on 20
    Newsgroups' training, the one full collection took 14 ms). The objects left are
    frozen again as the command returns: the process is about to exit, and the
    collections of the interpreter's shutdown would otherwise walk every object of numpy
    and scipy once more (about 0.1 s of CPU; atexit handlers still run, and every file
    the commands write is closed before they return).
    """
    if argv is None:
        gc.freeze()
    code = _main(argv, stdout=stdout, stderr=stderr)
    if argv is None:
        gc.freeze()
    return code


def _main(argv, *, stdout, stderr):
    from textnb.core.workers import keep_freed_memory

    keep_freed_memory()  # this process is ours: reuse freed memory (see its docstring)
    out = stdout if stdout is not None else tolerant(sys.stdout, SURROGATES)
    err = stderr if stderr is not None else tolerant(sys.stderr, "backslashreplace")
    parser = _parser()
    try:
        args, extra = parser.parse_known_args(argv)
        if extra and isinstance(getattr(args, "paths", None), list):
            # PATHs after an option (`predict MODEL --rows a.tsv`): argparse ends a "*"
            # positional at the first option; the leftover non-options are more PATHs
            args.paths += [e for e in extra if not e.startswith("-") or e == "-"]
            extra = [e for e in extra if e.startswith("-") and e != "-"]
        if extra:  # reported by the subcommand, which knows its own options
            sub = _subparser(parser, getattr(args, "command", None)) or parser
            sub.error(f"unrecognized arguments: {' '.join(extra)}")
    except SystemExit as exc:  # argparse: --help (0) or bad usage (2)
        return int(exc.code or 0)
    if out is None and getattr(args, "command", None) != "serve":
        # file descriptor 1 closed (`textnb ... >&-`): whatever the command prints would be
        # lost, so it is an error before any work, never a silent success
        say(err, "textnb", "error: stdout: standard output is closed")
        return 1
    try:
        from textnb.io.corpus import read_once

        # (a pipe given as a side file: read once by the command; an error that stands for a
        # stop signal, raised by an import it cut, is that stop)
        with warnings_as_lines(err, "textnb"), read_once(), stops_unmasked():
            code = args.handler(args, out, err)
            if out is not None:
                out.flush()  # a write that fails now (EIO, ENOSPC) is an error, not a success
            return code
    except TextnbError as exc:
        say(err, "textnb", f"error: {flag_words(_option_words(exc))}{_model_use(exc)}")
        return 1
    except BrokenPipeError:
        # the reader went away (e.g. `| head`): stop quietly, like other Unix tools
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 0
    except OSError as exc:
        say(err, "textnb", f"error: {os_error_text(exc, None)}")
        return 1
    except STOPS as exc:
        line, code = _stop(exc)
        say(err, "textnb", line)
        return code
    except Exception as exc:  # not a TextnbError: a bug in textnb, not a problem with the input
        if os.environ.get("TEXTNB_DEBUG"):
            raise  # the test suite sets it: a bug shows its traceback
        say(err, "textnb", f"internal error: {type(exc).__name__}: {exc} (a bug in textnb; run with "
                           f"TEXTNB_DEBUG=1 for the traceback)")
        return EX_SOFTWARE
