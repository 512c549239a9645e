"""``spamfilter --socket PATH``: classify one message through a running ``textnb serve``.

This module imports only the standard library, and only its cheapest parts: the C
modules ``_socket`` and ``_signal`` (the latter through :mod:`textnb.core.signals`, whose
stop handlers every textnb program shares) instead of :mod:`socket` and :mod:`signal`, whose
enum set-up alone costs more than a bogofilter run. So a message classified through
the daemon pays for Python's start-up and one round trip, never for numpy, scipy or
scikit-learn (``tests/apps/test_serve.py`` checks that none of them is imported). Its twin in C,
``spamclient.c`` (built by :mod:`textnb.apps.spamclient_build`; ``pip install .``
installs it as ``spamfilter`` when a C compiler works), gives the same answers without
Python's start-up; a change to the protocol or to what this client prints must be made
in both (``tests/apps/test_spamclient_c.py`` compares them byte for byte).

Protocol (one request per connection; written once in :mod:`textnb.apps.protocol`, which
the daemon uses too; see :mod:`textnb.apps.serve`): the client sends ::

    SPAM <n> [spam_cutoff=<p>] [ham_cutoff=<p>] [max_bytes=<n>] [headers=1]\\n<n bytes>

and reads back ``OK <exit code> <label> <score> <log-odds> <m>\\n`` followed by ``m``
bytes (with ``headers=1``: the message's first bytes with the ``X-TextNB-*`` headers
added, exactly as the cold ``spamfilter -p`` writes them), or ``ERR <one line>\\n``.

Behaviour of the client, the same as the cold command's: the exit status is the
verdict (0 spam, 1 ham, 2 unsure), 3 on any error, 130 when interrupted; with ``-p``
the message is always written to standard output, unchanged when anything failed.
**When the daemon is down** (no socket, nobody listening, a timeout) the client does
not fall back to loading the model itself: it reports the error and exits 3 (with
``-p``: the message unchanged), so a stopped daemon is seen at once instead of every
message silently costing a cold start.
"""

import codecs  # (loaded by Python at start: no cost)
import sys
import time

from textnb.apps.protocol import head_length_possible, parse_spam_reply, spam_request
from textnb.core.signals import (Terminated, ignore_stop_signals, os_error_text, stop_on_signals, stops_blocked,  # (Terminated: a public name here too)
                                 stops_unmasked)

try:  # the C module that os wraps: importing os (posixpath, stat, collections.abc) costs a client ~2 ms
    import posix as _os
except ImportError:  # pragma: no cover - not POSIX
    import os as _os



def _socket_module():
    """The C module ``_socket`` (``socket`` would import enum, selectors and collections
    first), imported when a message is sent: the cold paths import this module too."""
    try:
        import _socket
    except ImportError:  # pragma: no cover - not CPython
        import socket as _socket
    return _socket

__all__ = [
    "DEFAULT_MAX_BYTES",
    "EXIT_ERROR",
    "EXIT_INTERRUPTED",
    "ClientError",
    "Terminated",
    "parse_size",
    "read_head",
    "copy_rest",
    "write_whole",
    "drain",
    "classify_message",
    "client_main",
    "asks_batch",
    "EXIT_ZERO_UNUSED",
]

#: Bytes of a message that are read (:data:`textnb.io.mail.DEFAULT_MAX_BYTES`; a test
#: checks that the two agree, this module may not import :mod:`textnb.io.mail`).
DEFAULT_MAX_BYTES = 10 * 1024 * 1024
EXIT_ERROR = 3
EXIT_INTERRUPTED = 130
#: What the mail tools say when memory runs out while their command's modules load (numpy's,
#: under a small ``ulimit -v``: :func:`process_main`): the line of their commands,
#: ``textnb.cli.filterbase.out_of_memory(FILTER_MEMORY_OPTIONS)`` (a test checks that the two
#: agree; this module may not import the command line's).
OUT_OF_MEMORY = "out of memory (try a smaller --max-bytes)"
#: The warning (after ``warning: ``) for ``-e`` without ``-p`` (it exits 0 in place of a verdict written with -p): the
#: cold ``spamfilter``, this client and spamclient.c say it in these words, on stderr, the exit
#: status unchanged (a procmail recipe's stderr goes to its log).
EXIT_ZERO_UNUSED = "-e has no effect without -p"
#: Seconds the client waits for the daemon (connect, send, reply).
DEFAULT_TIMEOUT = 60.0
_CHUNK = 1 << 16
_MAX_REPLY_LINE = 64 * 1024


class ClientError(Exception):
    """The daemon could not be reached or answered with an error (one line)."""


#: The largest size parse_size accepts (``textnb.cli.argtypes.MAX_BYTES``, the same 4 GiB).
MAX_SIZE = 4 * 1024**3


def parse_size(text):
    """``'10M'`` -> 10485760 (suffixes k, m, g; a trailing ``b`` is ignored).

    Raises ValueError with a one-line message for anything else, a size that is not
    positive, or one that is not finite.
    """
    units = {"k": 1024, "m": 1024**2, "g": 1024**3}
    t = str(text).strip().lower().rstrip("b")
    mult = units.get(t[-1:], 1)
    try:
        value = float(t[:-1] if t[-1:] in units else t) * mult
        v = int(value)
    except (ValueError, OverflowError):
        raise ValueError(f"not a size: {text!r} (e.g. 10M)") from None
    if v <= 0:
        raise ValueError(f"must be positive: {text}")
    if v > MAX_SIZE:
        raise ValueError(f"at most 4G: {text}")
    return v


def _fd(stream):
    try:
        return stream.fileno()
    except (AttributeError, OSError, ValueError):  # io.BytesIO and the like
        return None


def _reader(stream):
    """``read(n)`` for ``stream``: on a real descriptor, wait with ``select`` and then
    ``os.read``, so that a signal (Ctrl-C) arrives while waiting, never between a read
    that returned bytes and the caller keeping them (a blocking read is restarted after
    a handler that does not interrupt it, and its bytes would be lost when the handler
    raises on return; ``select`` is never restarted); else the stream's own read1/read."""
    fd = _fd(stream)
    if fd is None:
        return getattr(stream, "read1", stream.read)
    import select

    def read(n):
        select.select([fd], [], [])  # interrupted here: the bytes are still in the pipe
        return _os.read(fd, n)

    return read


def read_head(stdin, max_bytes, parts):
    """Read up to ``max_bytes`` from ``stdin``, appending every chunk to ``parts`` as it
    arrives (so the caller still has what was read if a signal interrupts), and return
    the bytes read."""
    read = _reader(stdin)
    size = 0
    while size < max_bytes:
        chunk = read(min(_CHUNK * 16, max_bytes - size))
        if not chunk:
            break
        parts.append(chunk)
        size += len(chunk)
    return b"".join(parts)


def copy_rest(stdin, stdout):
    """Copy what is left of ``stdin`` to ``stdout`` (resumable after an interrupt: each
    chunk read is written whole, :func:`write_whole`)."""
    read = _reader(stdin)
    while True:
        chunk = read(_CHUNK)
        if not chunk:
            break
        write_whole(stdout, chunk)
    write_whole(stdout, b"", flush=True)


def write_whole(stdout, data, *, flush=False):
    """Write every byte of ``data`` to ``stdout`` (then flush it, with ``flush``), the stop
    signals (SIGINT, SIGTERM, SIGHUP) blocked until it is written: they act as it returns
    (:class:`~textnb.core.signals.stops_blocked`). ``-p``'s copy of a message is written by it,
    so a stop is never a message cut in two (found by a user trial: a SIGTERM while a 4.8 MB
    message went to a slow reader left 64 KiB of it, the rest never written: the write's
    exception lost the count of what it had written). A raw stream (``PYTHONUNBUFFERED=1``,
    ``python -u``: ``sys.stdout.buffer`` is a FileIO) writes what it can and returns the
    count: the rest is written on, and a full disk is the OSError of the next write (the
    same trial: the message cut at 4,096 bytes, the exit status the verdict's)."""
    with stops_blocked():  # (a stop that comes meanwhile is delivered as the block ends)
        view = memoryview(data)
        while view:
            n = stdout.write(view)
            if n is None:  # (a non-blocking stream that took nothing: wait for it)
                time.sleep(0.001)
                continue
            view = view[n:]
        if flush:
            stdout.flush()


def drain(stdin):
    """Read and drop what is left of ``stdin`` (the sender is not cut off)."""
    read = _reader(stdin)
    while read(_CHUNK):
        pass


def _probability(name, text):
    try:
        v = float(text)
    except ValueError:
        raise ClientError(f"argument {name}: invalid float value: {text!r} (see --help)") from None
    if not 0.0 <= v <= 1.0:  # also refuses nan
        raise ClientError(f"argument {name}: must be >= 0.0 and <= 1.0 (see --help)")
    return v


def _recv_line(sock, buf, limit):
    """Read from ``sock`` into ``buf`` until a newline; returns (line, rest)."""
    while True:
        i = buf.find(b"\n")
        if i >= 0:
            return bytes(buf[:i]), buf[i + 1:]
        if len(buf) > limit:
            raise ClientError("the daemon's reply line is too long")
        chunk = sock.recv(_CHUNK)
        if not chunk:
            raise ClientError("the daemon closed the connection without a reply")
        buf += chunk


def _recv_exact(sock, buf, n):
    while len(buf) < n:
        chunk = sock.recv(max(_CHUNK, n - len(buf)))
        if not chunk:
            raise ClientError("the daemon closed the connection in the middle of its reply")
        buf += chunk
    return bytes(buf[:n])


def _error_reply(sock):
    """After a failed send: the daemon's ERR line if it wrote one, else None."""
    try:
        line, _ = _recv_line(sock, bytearray(), _MAX_REPLY_LINE)
    except (ClientError, OSError):
        return None
    return line[4:].decode("utf-8", "replace") if line.startswith(b"ERR ") else None


def classify_message(socket_path, data, *, spam_cutoff=None, ham_cutoff=None, max_bytes=None,
                     headers=False, timeout=DEFAULT_TIMEOUT):
    """Classify one raw message through the daemon at ``socket_path``.

    Parameters
    ----------
    socket_path : str
        The daemon's Unix socket (``textnb serve MODEL --socket PATH``).
    data : bytes
        The message (its first ``max_bytes`` bytes).
    spam_cutoff, ham_cutoff, max_bytes : optional
        Sent when given; the daemon uses the cold command's defaults otherwise.
    headers : bool
        Also return ``data`` with the verdict headers added (for ``-p``).

    Returns
    -------
    tuple
        ``(exit_code, label, score, log_odds, head)``; ``head`` is b"" unless ``headers``.

    Raises
    ------
    ClientError
        One line: nobody listens at ``socket_path``, a timeout, the daemon's error, or a
        reply that is not one (:func:`textnb.apps.protocol.parse_spam_reply`,
        :func:`~textnb.apps.protocol.head_length_possible`: 'not a textnb daemon').
    """
    request = spam_request(len(data), spam_cutoff=spam_cutoff, ham_cutoff=ham_cutoff, max_bytes=max_bytes,
                           headers=headers)
    _sock = _socket_module()
    sock = _sock.socket(_sock.AF_UNIX, _sock.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        deadline = time.monotonic() + timeout
        while True:
            try:
                sock.connect(socket_path)
                break
            except BlockingIOError:  # the daemon's backlog is full: it is busy, wait for it
                if time.monotonic() > deadline:
                    raise ClientError(f"{socket_path}: the daemon is too busy (no connection "
                                      f"within {timeout:g} s)") from None
                time.sleep(0.005)
            except OSError as exc:
                raise ClientError(f"{socket_path}: no daemon listening ({exc.strerror or exc}); "
                                  "start one with `textnb serve MODEL --socket PATH`") from None
        try:
            sock.sendall(request)
            sock.sendall(data)
        except OSError as exc:
            reply = _error_reply(sock)
            if reply is not None:
                raise ClientError(reply) from None
            raise ClientError(f"{socket_path}: cannot send the message ({exc.strerror or exc})") from None
        try:
            line, buf = _recv_line(sock, bytearray(), _MAX_REPLY_LINE)
            if line.startswith(b"ERR "):
                raise ClientError(line[4:].decode("utf-8", "replace"))
            code, label, score, log_odds, n = parse_spam_reply(line)
            if not head_length_possible(n, data, headers):  # (-p would write what is not the message)
                raise ValueError("not the length of the processed message")
            head = _recv_exact(sock, buf, n) if n else b""
        except OSError as exc:
            raise ClientError(f"{socket_path}: no reply from the daemon ({exc.strerror or exc})") from None
        except ValueError:
            raise ClientError(f"{socket_path}: not a textnb daemon (reply {line[:60]!r})") from None
        return code, label, score, log_odds, head
    finally:
        sock.close()


# -- the process conventions of the mail tools (textnb.cli.mailcli uses them too) -------------
_DEVNULL = "/dev/null" if _os.__name__ == "posix" else _os.devnull


def _escape_surrogates(exc):
    """The encoding error handler :data:`SURROGATES`: a lone surrogate ``\\udc80``-``\\udcff``
    (a byte that is not UTF-8, kept so by ``surrogateescape``: a file or folder name) written
    as that byte, any other (no character and no byte: a label a library caller gave a
    model, a term of a spam model written before mail decodings were checked for them)
    as its escape ``\\ud800``, as stderr's ``backslashreplace`` writes it."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    out = bytearray()
    for ch in exc.object[exc.start:exc.end]:
        code = ord(ch)
        if 0xDC80 <= code <= 0xDCFF:
            out.append(code - 0xDC00)
        elif 0xD800 <= code <= 0xDFFF:
            out += b"\\u%04x" % code
        else:
            raise exc
    return bytes(out), exc.end


#: The error handler of the tools' standard output (:func:`tolerant`): ``surrogateescape``,
#: and every other lone surrogate escaped (*was*: ``surrogateescape``, which stopped
#: ``textnb predict`` and ``inspect`` with an internal error on a label holding ``\\ud800``).
SURROGATES = "textnb.surrogateescape"
codecs.register_error(SURROGATES, _escape_surrogates)


def tolerant(stream, errors):
    """The process's text stream, set never to fail on a character its encoding lacks:
    on a UTF-8 stream with ``errors`` (file names that are not valid UTF-8 written back
    as their own bytes with :data:`SURROGATES`), on any other (``ascii:strict``, say)
    as a backslash escape. So a strict stdout cannot make ``train`` fail after it has
    written the model, nor a label cut a ``topicfilter`` run short. (Defined here, the
    lowest module that needs it, so that the client imports nothing more;
    :mod:`textnb.cli.streams` re-exports it.)"""
    try:
        utf8 = (stream.encoding or "").lower().replace("_", "-") in ("utf-8", "utf8")
        stream.reconfigure(errors=errors if utf8 else "backslashreplace")
    except (AttributeError, ValueError, OSError):
        pass
    return stream


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
            _os.fstat(fd)
        except OSError:
            closed.append(fd)
    for fd in closed:  # keep 0-2 taken, lowest first, so a later open() cannot get them
        try:
            got = _os.open(_DEVNULL, _os.O_RDWR)
            if got != fd:
                _os.dup2(got, fd)
                _os.close(got)
        except OSError:
            pass
    stdin = _Closed("stdin") if 0 in closed or sys.stdin is None else sys.stdin.buffer
    stdout = _Closed("stdout") if 1 in closed or sys.stdout is None else sys.stdout.buffer
    stderr = tolerant(sys.stderr, "backslashreplace") if 2 not in closed and sys.stderr is not None \
        else open(_DEVNULL, "w")
    return stdin, stdout, stderr


def _quiet_exit_on_closed_pipe():
    """At exit, Python flushes stdout: if the reader left, do not print a complaint."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError, AttributeError):
        try:
            devnull = _os.open(_DEVNULL, _os.O_WRONLY)
            _os.dup2(devnull, 1)
        except OSError:
            pass


def process_main(argv, run, prog="spamfilter", terminated=EXIT_ERROR):
    """``run(argv, stdin=..., stdout=..., stderr=...)`` under the mail tools' process
    conventions (``textnb.cli.mailcli``'s docstring), the one implementation of both commands
    (``prog``: ``spamfilter``, ``topicfilter``): the stop signals answered once
    (:func:`textnb.core.signals.stop_on_signals`: a second Ctrl-C while stopping is the
    same request), closed standard streams stood in for, Ctrl-C before ``run`` could take
    it -> ``PROG: interrupted`` and 130, SIGTERM / SIGHUP then -> ``PROG: terminated by signal
    N`` and ``terminated`` (spamfilter's 3, topicfilter's 1), a closed pipe quiet at exit, and
    once ``run`` has returned the stop signals ignored (the interpreter's exit, its ``atexit``
    clean-up, is not cut by a late Ctrl-C into a traceback, nor by a late SIGTERM into a death
    by the signal without a word: found by a user trial of topicfilter, which had its own copy
    of these steps without this one). Memory that runs out before ``run`` could take it (its
    modules loading: a MemoryError, or numpy's ImportError for want of memory,
    :func:`textnb.core.signals.stops_unmasked`) is :data:`OUT_OF_MEMORY` and ``terminated``
    too, the command's error status (it was a traceback). Returns the exit status."""
    stderr = sys.stderr
    try:
        stop_on_signals()
        stdin, stdout, stderr = _standard_streams()
        with stops_unmasked():  # (an error of an import that stands for a stop, or for memory refused)
            code = run(argv, stdin=stdin, stdout=stdout, stderr=stderr)
    except KeyboardInterrupt:  # during start-up, before run could take it
        _say(stderr, "interrupted", prog)
        code = EXIT_INTERRUPTED
    except Terminated as exc:
        _say(stderr, str(exc), prog)
        code = terminated
    except MemoryError:
        _say(stderr, OUT_OF_MEMORY, prog)
        code = terminated
    ignore_stop_signals()  # (the work is done: a Ctrl-C during the exit's clean-up is no traceback)
    _quiet_exit_on_closed_pipe()
    return code


#: arguments that the Python ``spamfilter`` answers even with ``--socket`` (the C client
#: hands them over too: spamclient.c's main)
NOT_CLIENT = ("-h", "--help", "--version")


def is_client(argv):
    """Whether ``spamfilter``'s ``argv`` asks for this client (``--socket``, and none of
    :data:`NOT_CLIENT`). ``scripts/spamfilter`` and ``textnb.cli.mailcli`` ask it; the C
    client (spamclient.c) follows the same rule."""
    return any(long_option(a.partition("=")[0]) == "--socket" for a in argv) and not any(
        long_option(a) in NOT_CLIENT for a in argv)  # (abbreviations as argparse takes them: --sock, --vers)


def main(argv=None):
    """``spamfilter --socket ...`` as a whole process (``scripts/spamfilter`` runs it without
    importing the command-line package); the exit status."""
    return process_main(list(sys.argv[1:] if argv is None else argv), client_main)


_VALUE_OPTIONS = {"--socket", "--spam-cutoff", "--ham-cutoff", "--max-bytes"}
_FLAGS = {"-p": "passthrough", "--passthrough": "passthrough", "-e": "exit_zero", "--exit-zero": "exit_zero"}
#: every long option of ``spamfilter`` (its argparse parser's: a test holds them equal), for
#: the abbreviations argparse takes (``--pass`` for ``--passthrough``), which the client takes alike
SPAMFILTER_LONG_OPTIONS = ("--alpha", "--batch", "--exit-zero", "--ham-cutoff", "--help", "--jobs", "--kind",
                           "--log-odds", "--max-bytes", "--model", "--passthrough", "--register-ham",
                           "--register-spam", "--socket", "--spam-cutoff", "--train-ham", "--train-spam",
                           "--unregister-ham", "--unregister-spam", "--version")


def long_option(name):
    """The spamfilter long option ``name`` stands for, as argparse reads it: itself, or the one
    option it is an abbreviation of (``--pass``: ``--passthrough``); ``name`` as it is when it
    is no option's or several's (then refused in their words). Found by a user trial:
    ``spamfilter --socket S --pass`` was refused, the message lost, where the command without
    ``--socket`` took ``--pass`` for ``--passthrough``."""
    if name[:2] != "--" or len(name) <= 2 or name in SPAMFILTER_LONG_OPTIONS:
        return name
    found = [o for o in SPAMFILTER_LONG_OPTIONS if o.startswith(name)]
    return found[0] if len(found) == 1 else name


def _parse(argv):
    """The few options of client mode (argparse would cost its import)."""
    opts = {"passthrough": False, "exit_zero": False}
    i = 0
    while i < len(argv):
        arg = argv[i]
        name, eq, value = arg.partition("=")
        name = long_option(name)
        arg = name + eq + value if arg[:2] == "--" else arg
        if name in _VALUE_OPTIONS and name.startswith("--"):
            if not eq:
                i += 1
                if i >= len(argv):
                    raise ClientError(f"argument {name}: expected one argument (see --help)")
                value = argv[i]
            opts[name[2:].replace("-", "_")] = value
        elif arg in _FLAGS:
            opts[_FLAGS[arg]] = True
        elif len(arg) > 2 and arg[0] == "-" and arg[1] != "-" and all(f"-{c}" in _FLAGS for c in arg[1:]):
            for c in arg[1:]:  # -pe
                opts[_FLAGS[f"-{c}"]] = True
        else:
            raise ClientError(f"{arg}: not available with --socket (the daemon serves its own model; "
                              "--socket classifies one message from stdin) (see --help)")
        i += 1
    return opts


def asks_batch(argv):
    """Whether ``spamfilter``'s ``argv``, before it is parsed, asks for ``--batch``: the
    option (``-B``, ``--batch``, an abbreviation as argparse takes it, ``--batch=PATH``), or
    ``B`` in a cluster of short options before one that takes a value (``-pB``, ``-Bpath``).
    ``-p`` has no effect with ``--batch`` (its stdout is the verdict lines), so an error of
    such a command, even one in its arguments, never copies stdin to stdout. The C client
    (spamclient.c's ``asks_batch``) follows the same rule."""
    for a in argv:
        if a[:2] == "--":
            name = a.partition("=")[0]
            if len(name) > 2 and "--batch".startswith(name):
                return True
        elif a[:1] == "-":
            for c in a[1:]:
                if c == "B":
                    return True
                if c not in "peh":  # (-m, -j and the like: the rest is their value)
                    break
    return False


def _finish_passthrough(stdout, head, stdin, written):
    """After an error or a signal in ``-p`` mode: the message as it came (or, when the
    verdict's copy was under way, the rest of it), never lost."""
    try:
        if not written:
            write_whole(stdout, head)
        copy_rest(stdin, stdout)
    except (OSError, ValueError, KeyboardInterrupt, Terminated):
        pass


def client_main(argv, *, stdin, stdout, stderr):
    """``spamfilter --socket PATH [-p [-e]] [--spam-cutoff P] [--ham-cutoff P] [--max-bytes SIZE]``.

    ``stdin``/``stdout`` binary streams, ``stderr`` a text stream. Returns the exit
    status: the verdict's (0 spam, 1 ham, 2 unsure; with ``-e`` 0), 3 on an error,
    130 when interrupted.
    """
    head, written, parts = None, False, []
    passthrough = any(a == "-p" or long_option(a) == "--passthrough" or (a[:1] == "-" and a[1:2] != "-" and "p" in a)
                      for a in argv) and not asks_batch(argv)
    try:
        try:
            opts = _parse(argv)
            passthrough = opts["passthrough"]
            if opts["exit_zero"] and not passthrough:
                _say(stderr, f"warning: {EXIT_ZERO_UNUSED}")
            spam_cutoff = _probability("--spam-cutoff", opts["spam_cutoff"]) if "spam_cutoff" in opts else None
            ham_cutoff = _probability("--ham-cutoff", opts["ham_cutoff"]) if "ham_cutoff" in opts else None
            try:
                max_bytes = parse_size(opts["max_bytes"]) if "max_bytes" in opts else None
            except ValueError as exc:
                raise ClientError(f"argument --max-bytes: {exc} (see --help)") from None
            socket_path = opts.get("socket") or ""
            if not socket_path:
                raise ClientError("argument --socket: expected a path (see --help)")
            head = read_head(stdin, max_bytes or DEFAULT_MAX_BYTES, parts)  # first: -p keeps the message
            if not head.strip():
                raise ClientError("stdin: empty message")
            code, _label, _score, _lo, new_head = classify_message(
                socket_path, head, spam_cutoff=spam_cutoff, ham_cutoff=ham_cutoff, max_bytes=max_bytes,
                headers=passthrough)
            if passthrough:
                written = True  # from here on the message is (being) written: never twice
                write_whole(stdout, new_head)
                copy_rest(stdin, stdout)
                return 0 if opts["exit_zero"] else code
            drain(stdin)
            return code
        except ClientError as exc:
            _say(stderr, str(exc))
        except Terminated as exc:
            _say(stderr, str(exc))
        except OSError as exc:
            _say(stderr, os_error_text(exc))  # (a write that found no room: stdout's, as the cold command says)
        code = EXIT_ERROR
    except KeyboardInterrupt:
        _say(stderr, "interrupted")
        code = EXIT_INTERRUPTED
    if passthrough:
        _finish_passthrough(stdout, head if head is not None else b"".join(parts), stdin, written)
    return code


def _say(stderr, message, prog="spamfilter"):
    try:
        stderr.write(f"{prog}: {message}\n")
        stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass

