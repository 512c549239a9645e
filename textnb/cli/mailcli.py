"""Entry points of the ``spamfilter`` and ``topicfilter`` commands.

Used by the console scripts that ``pip install .`` puts on PATH and by ``scripts/``.
Only the standard library is imported until the mode is known: ``spamfilter --socket``
runs the daemon client (:mod:`textnb.apps.spamclient`) without ever importing numpy,
scipy or scikit-learn; everything else runs :func:`textnb.cli.mailfilters.filter_main` /
:func:`textnb.cli.topicfilter.topic_main`.

Process-level conventions (the same for both commands):

* Ctrl-C (SIGINT): ``PROG: interrupted``, exit **130**, no traceback; a model being
  written is left as it was (saves are atomic);
* SIGTERM / SIGHUP: ``PROG: terminated by signal N``, exit 3 (``spamfilter``) / 1
  (``topicfilter``); with ``spamfilter -p`` the message is still written, unchanged;
* the first of these signals is the only one answered (the rule of every textnb program,
  :func:`textnb.core.signals.stop_on_signals`): those that follow while the command stops
  (a second Ctrl-C) are ignored, so the one line and the exit status stay those of the
  first, ``-p`` still writes the whole message, a partial copy is still removed; a
  signal the caller ignores (``nohup``) stays ignored;
* a closed standard input or output (the descriptor itself closed, not a pipe at
  EOF) is an error reported in one line, exit 3 / 1; the descriptor is first pointed
  at ``/dev/null`` so that no file opened later can take its number and receive
  output meant for it;
* a reader that goes away (``spamfilter --batch DIR | head``) ends the run quietly.
"""

import sys

from textnb.apps.spamclient import (  # the process conventions live with the client, which runs
    # them without this package (scripts/spamfilter)
    SURROGATES,
    _Closed,
    is_client,
    process_main,
    tolerant,
)
from textnb.cli.program import prepare_process

__all__ = ["spamfilter", "topicfilter"]


def _filter(argv, **streams):
    from textnb.cli.mailfilters import filter_main  # (inside process_main: Ctrl-C during the import is handled)

    return filter_main(argv, **streams)


def _version(prog, argv):
    """``PROG --version``: print ``PROG VERSION`` (as argparse's version action); True if asked."""
    if "--version" not in argv[:argv.index("--") if "--" in argv else len(argv)]:
        return False
    from textnb.core.version import __version__

    print(f"{prog} {__version__}")
    return True


def _arguments(prog, argv):
    """The arguments of ``prog`` (``argv`` None: run as the program, its process prepared
    first, :func:`textnb.cli.program.prepare_process`), or None when ``--version`` was
    answered."""
    if argv is None:
        prepare_process()
    argv = list(sys.argv[1:] if argv is None else argv)
    return None if _version(prog, argv) else argv


def spamfilter(argv=None):
    """The ``spamfilter`` command; returns its exit status (see ``spamfilter --help``)."""
    argv = _arguments("spamfilter", argv)
    if argv is None:
        return 0
    if is_client(argv):
        from textnb.apps.spamclient import client_main

        return process_main(argv, client_main)
    return process_main(argv, _filter)


def _topic(argv, stdin, stdout, stderr):
    from textnb.cli.topicfilter import topic_main  # (inside process_main: Ctrl-C during the import is handled)

    # (its report is text: the names' bytes that are not UTF-8 written back as they came)
    text_out = tolerant(sys.stdout, SURROGATES) if not isinstance(stdout, _Closed) else _Closed("stdout")
    return topic_main(argv, stdout=text_out, stderr=stderr)


def topicfilter(argv=None):
    """The ``topicfilter`` command; returns its exit status (see ``topicfilter --help``)."""
    argv = _arguments("topicfilter", argv)
    if argv is None:
        return 0
    return process_main(argv, _topic, "topicfilter", terminated=1)
