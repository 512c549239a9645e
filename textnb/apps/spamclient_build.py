"""Build the compiled ``spamfilter`` (``spamclient.c``): the daemon client without Python's start-up.

A mail delivery agent runs the filter once per message. Through the daemon
(``textnb serve MODEL --socket PATH``) the model is already loaded, so what is left per
message is the client's own start-up, and Python's alone (``python -S -c pass``,
11-14 ms on our machines) is several bogofilter runs. ``spamclient.c`` is the client of
:mod:`textnb.apps.spamclient` in C: the same request, verdict, exit status, ``-p`` output
and error lines, in about a millisecond. For everything else (no ``--socket``, ``--help``,
an argument it does not recognise exactly) it replaces itself with the Python
``spamfilter`` before reading the message, so it is the whole command.

``pip install .`` builds it when a C compiler works (``setup.py``) and installs it as
``spamfilter``, with the console script ``textnb-spamfilter-python`` (:data:`FALLBACK_SCRIPT`)
beside it: the Python ``spamfilter`` it hands over to (:func:`installed_fallback`). The
client holds only that name and runs the file of that name in its own folder, so the
interpreter is the one pip writes into the script at install time, wherever the wheel
was built. Without a compiler, ``spamfilter`` is the Python console script, the same
command at Python's speed. From a checkout::

    python scripts/build_spamclient.py -o ~/bin/spamfilter

builds one that falls back to this checkout's ``scripts/spamfilter`` (that script is the
command line of :func:`build_client`, which returns the executable or raises).

This module imports only the standard library and nothing of textnb, so ``setup.py``
can load it from its file before textnb is installed.
"""

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

__all__ = ["SOURCE", "FALLBACK_SCRIPT", "ClientBuildError", "installed_fallback", "python_fallback",
           "checkout_fallback", "build_client"]

#: The C source, next to this file.
SOURCE = Path(__file__).with_name("spamclient.c")

#: The console script (entry point ``textnb.cli.mailcli:spamfilter``, the Python
#: ``spamfilter``) that ``setup.py`` installs beside the compiled client, which runs it
#: for everything that is not the daemon client.
FALLBACK_SCRIPT = "textnb-spamfilter-python"

#: What :func:`python_fallback` runs: the console script's entry point with the site
#: module on, so an installed textnb is found. ``-c`` would put the working directory
#: first on sys.path; it is taken off, as a console script's path never has it.
_BOOT = ("import sys\n"
         "if sys.path and sys.path[0] == '': del sys.path[0]\n"
         "sys.argv[0] = 'spamfilter'\n"
         "from textnb.cli.mailcli import spamfilter\n"
         "raise SystemExit(spamfilter())\n")


class ClientBuildError(Exception):
    """The C compiler is missing or failed (one line, then the compiler's own output)."""


def installed_fallback():
    """The Python command of an installed ``spamfilter``: :data:`FALLBACK_SCRIPT`, in the
    client's own folder.

    A bare name, not an interpreter's path: a wheel is built by one Python (``python -m
    build``'s throwaway environment, pip's build for its wheel cache) and installed for
    another, so the path of the building interpreter is not the installed one's (it ran
    whatever ``python3`` was on PATH, or none). pip writes the console script for the
    interpreter it installs with, as it does every script.
    """
    return [FALLBACK_SCRIPT]


def python_fallback(python=None):
    """The Python command of ``python``'s installed textnb: ``python -c BOOT`` (a client
    built for one interpreter, ``scripts/build_spamclient.py --installed``)."""
    return [python or sys.executable, "-c", _BOOT]


def checkout_fallback(repo, python=None):
    """The Python command of a checkout: ``python -S REPO/scripts/spamfilter`` (its ``#!`` line)."""
    return [python or sys.executable, "-S", str(Path(repo).resolve() / "scripts" / "spamfilter")]


def _c_string(text):
    """``text`` as a C string literal (UTF-8 bytes; quotes, backslashes and controls escaped)."""
    out = []
    for b in str(text).encode("utf-8", "surrogateescape"):
        c = chr(b)
        if c in '"\\':
            out.append("\\" + c)
        elif 32 <= b < 127 and c != "?":  # '?' too: no trigraphs
            out.append(c)
        else:
            out.append(f"\\{b:03o}")
    return '"' + "".join(out) + '"'


def _compiler(cc=None):
    if cc:
        return shlex.split(cc) if isinstance(cc, str) else list(cc)
    env = os.environ.get("CC", "").strip()
    if env:
        return shlex.split(env)
    for name in ("cc", "gcc", "clang"):
        if shutil.which(name):
            return [name]
    raise ClientBuildError("no C compiler found (set CC, or install one: apt-get install gcc)")


def build_client(output, *, fallback, cc=None, timeout=120):
    """Compile ``spamclient.c`` into the executable ``output``.

    Parameters
    ----------
    output : path
        The executable to write; written beside its final name and renamed into place,
        so a failed build never leaves a half-written file, and only a regular file (or
        nothing) is ever replaced.
    fallback : list of str
        The argv prefix of the Python ``spamfilter`` it runs for everything but the
        client (:func:`installed_fallback`, :func:`python_fallback`,
        :func:`checkout_fallback`). Its program is an absolute path, or a bare name: the
        file of that name in the client's own folder (links resolved).
    cc : str or list, optional
        The compiler command (default ``$CC``, else ``cc``, ``gcc`` or ``clang``).

    Returns
    -------
    Path
        ``output``.

    Raises
    ------
    ClientBuildError
        No compiler, or the compilation failed (the message ends with its output).
    """
    output = Path(output)
    if not fallback or not all(isinstance(a, str) and a and "\0" not in a for a in fallback):
        raise ClientBuildError("fallback: expected a non-empty list of non-empty strings")
    if "/" in fallback[0] and not os.path.isabs(fallback[0]):
        raise ClientBuildError(f"fallback: {fallback[0]}: expected an absolute path or a bare name")
    if output.is_symlink() or (output.exists() and not output.is_file()):
        raise ClientBuildError(f"{output}: not a regular file, not replaced")
    command = _compiler(cc)
    with tempfile.TemporaryDirectory(prefix="tnbcc") as tmp:
        header = Path(tmp) / "spamclient_config.h"
        header.write_text("/* written by textnb/apps/spamclient_build.py */\n#define TEXTNB_FALLBACK "
                          + ", ".join(_c_string(a) for a in fallback) + "\n", encoding="ascii")
        output.parent.mkdir(parents=True, exist_ok=True)
        partial = output.with_name(f".{output.name}.build{os.getpid()}")
        argv = command + ["-O2", "-std=c99", "-I", tmp, "-o", str(partial), str(SOURCE)]
        try:
            r = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                               errors="replace", timeout=timeout)
        except OSError as exc:
            raise ClientBuildError(f"{command[0]}: cannot run the C compiler ({exc.strerror or exc})") from None
        except subprocess.TimeoutExpired:
            partial.unlink(missing_ok=True)
            raise ClientBuildError(f"{command[0]}: the C compiler took over {timeout} s") from None
        if r.returncode != 0 or not partial.is_file():
            partial.unlink(missing_ok=True)
            raise ClientBuildError(f"{command[0]}: compiling {SOURCE.name} failed (exit {r.returncode})\n"
                                   + (r.stderr or r.stdout)[-4000:])
        os.chmod(partial, 0o755)
        os.replace(partial, output)
    return output

