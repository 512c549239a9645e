"""Entry points of the ``spamfilter`` and ``topicfilter`` commands.

Used by the console scripts that ``pip install .`` puts on PATH and by ``scripts/``.
Only the standard library is imported until the mode is known: ``spamfilter --socket``
runs the daemon client (:mod:`textnb.apps.spamclient`) without ever importing numpy,
scipy or scikit-learn; everything else runs :func:`textnb.apps.filtering.filter_main` /
:func:`~textnb.apps.filtering.topic_main`.

Process-level conventions (the same for both commands):

* Ctrl-C (SIGINT): ``PROG: interrupted``, exit **130**, no traceback; a model being
  written is left as it was (saves are atomic);
* SIGTERM / SIGHUP: ``PROG: terminated by signal N``, exit 3 (``spamfilter``) / 1
  (``topicfilter``); with ``spamfilter -p`` the message is still written, unchanged;
* a closed standard input or output (the descriptor itself closed, not a pipe at
  EOF) is an error reported in one line, exit 3 / 1; the descriptor is first pointed
  at ``/dev/null`` so that no file opened later can take its number and receive
  output meant for it;
* a reader that goes away (``spamfilter --batch DIR | head``) ends the run quietly.
"""

import os
import sys

from textnb.apps.spamclient import EXIT_ERROR, EXIT_INTERRUPTED, Terminated
from textnb.cli.streams import tolerant

__all__ = ["spamfilter", "topicfilter"]


class _Closed:
    """Stands for a standard stream whose descriptor was closed when the process started."""

    def __init__(self, name):
        self.name = name

    def _fail(self, *args, **kwargs):
        raise OSError(9, f"standard {'input' if self.name == 'stdin' else 'output'} is closed", self.name)

    read = readline = write = _fail

    def flush(self):
        pass

    def isatty(self):
        return False


def _standard_streams():
    """(stdin, stdout) binary streams, or :class:`_Closed` stand-ins; stderr text stream."""
    closed = []
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            closed.append(fd)
    for fd in closed:  # keep 0-2 taken, lowest first, so a later open() cannot get them
        try:
            got = os.open(os.devnull, os.O_RDWR)
            if got != fd:
                os.dup2(got, fd)
                os.close(got)
        except OSError:
            pass
    stdin = _Closed("stdin") if 0 in closed or sys.stdin is None else sys.stdin.buffer
    stdout = _Closed("stdout") if 1 in closed or sys.stdout is None else sys.stdout.buffer
    stderr = tolerant(sys.stderr, "backslashreplace") if 2 not in closed and sys.stderr is not None \
        else open(os.devnull, "w")
    return stdin, stdout, stderr


def _on_signal(signum, frame):
    raise Terminated(signum)


def _install_handlers():
    try:
        import _signal as sig
    except ImportError:  # pragma: no cover - not CPython
        import signal as sig
    for name in ("SIGTERM", "SIGHUP"):
        num = getattr(sig, name, None)
        if num is not None:
            try:
                sig.signal(num, _on_signal)
            except (OSError, ValueError):
                pass


def _quiet_exit_on_closed_pipe():
    """At exit, Python flushes stdout: if the reader left, do not print a complaint."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError, AttributeError):
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
        except OSError:
            pass


def _say(stderr, prog, message):
    try:
        stderr.write(f"{prog}: {message}\n")
        stderr.flush()
    except (OSError, ValueError):
        pass


def spamfilter(argv=None):
    """The ``spamfilter`` command; returns its exit status (see ``spamfilter --help``)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    stderr = sys.stderr
    try:
        _install_handlers()
        stdin, stdout, stderr = _standard_streams()
        client = any(a == "--socket" or a.startswith("--socket=") for a in argv) and not (
            "-h" in argv or "--help" in argv)
        if client:
            from textnb.apps.spamclient import client_main

            code = client_main(argv, stdin=stdin, stdout=stdout, stderr=stderr)
        else:
            from textnb.cli.mailfilters import filter_main

            code = filter_main(argv, stdin=stdin, stdout=stdout, stderr=stderr)
    except KeyboardInterrupt:  # during start-up, before filter_main could take it
        _say(stderr, "spamfilter", "interrupted")
        code = EXIT_INTERRUPTED
    except Terminated as exc:
        _say(stderr, "spamfilter", str(exc))
        code = EXIT_ERROR
    _quiet_exit_on_closed_pipe()
    return code


def topicfilter(argv=None):
    """The ``topicfilter`` command; returns its exit status (see ``topicfilter --help``)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    stderr = sys.stderr
    try:
        _install_handlers()
        _, stdout, stderr = _standard_streams()
        from textnb.cli.mailfilters import topic_main

        text_out = tolerant(sys.stdout, "surrogateescape") if not isinstance(stdout, _Closed) else _Closed("stdout")
        code = topic_main(argv, stdout=text_out, stderr=stderr)
    except KeyboardInterrupt:
        _say(stderr, "topicfilter", "interrupted")
        code = EXIT_INTERRUPTED
    except Terminated as exc:
        _say(stderr, "topicfilter", str(exc))
        code = 1
    _quiet_exit_on_closed_pipe()
    return code
