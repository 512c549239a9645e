"""What the ``spamfilter`` and ``topicfilter`` programs share: the parser class, ``--version``,
progress bars and error lines. Standard library only until a parser is built (the cold
``spamfilter`` path imports this module)."""

import sys

from textnb.cli.progress import Progress, write_line
from textnb.core.errors import InputError, TextnbError, os_error_text
from textnb.core.signals import Terminated, memory_refused

__all__ = ["FILTER_MEMORY_OPTIONS", "add_version", "full_library", "out_of_memory", "parser_class", "progress_bar", "say",
           "say_failure", "warnings_as_lines"]

#: the options of ``spamfilter`` and ``topicfilter`` that lower the memory a run takes
FILTER_MEMORY_OPTIONS = ("--max-bytes",)


def full_library():
    """Make installed packages importable before numpy & co. are: ``scripts/spamfilter``
    starts Python without the site module (-S), which only the numpy-free paths can do
    without."""
    if sys.flags.no_site and "site" not in sys.modules:
        import site

        site.main()


class progress_bar:
    """``with progress_bar(stream, desc) as update:`` the command line's progress bar
    (:class:`textnb.cli.progress.Progress`) on ``stream`` when it is a terminal (``update``
    is then ``bar(done)``), else None; None too when ``results``, where the command writes
    a line per message, is a terminal as well (its lines would run into the bar). A class,
    not a contextlib generator: contextlib imports collections, functools & co., which a
    short batch run pays for."""

    def __init__(self, stream, desc, unit="msg", results=None):
        self.stream, self.desc, self.unit, self.bar = stream, desc, unit, None
        self.results = results

    def __enter__(self):
        if hasattr(self.stream, "isatty") and self.stream.isatty():
            full_library()  # tqdm, when installed, lives in site-packages
        bar = Progress(self.desc, stream=self.stream, unit=self.unit, results=self.results)
        if not bar.enabled:
            return None
        self.bar = bar
        return bar

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.close()
        return False


def parser_class():
    import argparse

    class _Parser(argparse.ArgumentParser):
        """argparse that raises instead of exiting, so errors map to our exit codes."""

        def error(self, message):
            raise InputError(f"{message} (see --help)")

    return _Parser


def add_version(p):
    """``--version`` in the help (``textnb.cli.mailcli`` answers it before the parser runs)."""
    from textnb.core.version import __version__

    p.add_argument("--version", action="version", version=f"{p.prog} {__version__}",
                   help="print the program's version and exit")


class warnings_as_lines:
    """A context in which warnings are one line each, ``PROG: warning: ...``, each message
    once: the library's DataWarnings (input used, but probably not as meant) and any other
    (a scikit-learn-style UserWarning, numpy's): a user of a command line is not shown
    Python's file and source lines, nor the same warning fold after fold. The one rule of
    every program (``textnb``, ``spamfilter``, ``topicfilter``); ``warnings`` is imported
    when it is entered (the cold ``spamfilter`` path imports this module), and not at all
    when ``active`` is False (spamfilter's numpy-free path, which warns of nothing)."""

    def __init__(self, err, prog, active=True):
        self.err, self.prog, self.seen, self.active = err, prog, set(), active

    def __enter__(self):
        if not self.active:
            return self
        import warnings

        from textnb.core.errors import DataWarning

        self._caught = warnings.catch_warnings()
        self._caught.__enter__()
        warnings.simplefilter("always", DataWarning)
        warnings.showwarning = self._show
        return self

    def __exit__(self, *exc):
        return self._caught.__exit__(*exc) if self.active else None

    def _show(self, message, category, filename, lineno, file=None, line=None):
        from textnb.cli.output import flag_words
        from textnb.core.errors import DataWarning

        # (a DataWarning's words as they are, a file name's newline escaped by say; another warning's
        # text, numpy's or scikit-learn's, wrapped over lines in its source: its white space one space)
        text = str(message) if issubclass(category, DataWarning) else " ".join(str(message).split())
        text = flag_words(text)
        if text not in self.seen:
            self.seen.add(text)
            say(self.err, self.prog, f"warning: {text}")


def say(stream, prog, message):
    """Write ``PROG: MESSAGE`` as one line to ``stream`` (a program's standard error), above
    the progress bar drawn there, if any (:func:`textnb.cli.progress.write_line`: a control
    character in it, of a file name it names, escaped); a stream that cannot be written is
    passed over."""
    try:
        write_line(stream, f"{prog}: {message}")
    except (OSError, ValueError):  # a closed stderr must not hide the exit status
        pass


def out_of_memory(options):
    """The line every program (``textnb``, ``spamfilter``, ``topicfilter``) says when memory
    runs out, naming its ``options`` that lower what a run takes: ``out of memory (try a
    smaller --max-bytes)``. The one rule of ``textnb``'s table of stops
    (:data:`textnb.cli.commands._STOPS`) and :func:`say_failure`."""
    named = ", ".join(options[:-1]) + " or " + options[-1] if len(options) > 1 else options[0]
    return f"out of memory (try a smaller {named})"


#: The exceptions that stop a program without being a problem of the input or a bug
#: (:func:`stop_message` says each)
STOPS = (KeyboardInterrupt, Terminated, MemoryError, OverflowError, RecursionError)


def stop_message(exc, memory_options):
    """What every program (``textnb``, ``spamfilter``, ``topicfilter``) says when ``exc``
    stops it without being a problem of the input or a bug, or None for any other exception:
    ``interrupted`` (Ctrl-C), a :class:`Terminated`'s ``terminated by signal N``, the
    :func:`out_of_memory` line naming ``memory_options`` (a MemoryError, or an ImportError
    for want of memory: :func:`textnb.core.signals.memory_refused`), ``a number is too large (...)``
    (OverflowError), ``input nested too deeply`` (RecursionError). The one rule of ``textnb``'s
    table of stops (:func:`textnb.cli.commands._stop`) and :func:`say_failure`."""
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted"
    if isinstance(exc, Terminated):
        return str(exc)
    if memory_refused(exc):  # (a MemoryError, or an ImportError for want of memory: numpy's under ``ulimit -v``)
        return out_of_memory(memory_options)
    if isinstance(exc, OverflowError):
        return f"a number is too large ({exc})"
    if isinstance(exc, RecursionError):
        return "input nested too deeply"
    return None


def say_failure(stream, prog, exc):
    """Say why ``prog`` stops on ``exc``, the exception its command line caught (a mail
    filter must not die with a traceback): a :class:`TextnbError`'s message, an OSError's
    text (:func:`os_error_text`), the :func:`stop_message` of a stop (its memory options
    :data:`FILTER_MEMORY_OPTIONS`), else ``internal error: TYPE: message``."""
    if isinstance(exc, TextnbError):
        message = str(exc)
    elif isinstance(exc, OSError):
        message = os_error_text(exc)
    else:
        message = stop_message(exc, FILTER_MEMORY_OPTIONS) or f"internal error: {type(exc).__name__}: {exc}"
    say(stream, prog, message)
