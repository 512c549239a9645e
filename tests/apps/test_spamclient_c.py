"""The compiled daemon client (textnb/apps/spamclient.c): the Python client's twin.

Every answer is compared with the Python client's (textnb.apps.spamclient.client_main)
and the cold command's, byte for byte: exit status, standard output and standard error.
The tests skip when no C compiler works (the `spamfilter_c` fixture, tests/conftest.py).
"""

import io
import os
import random
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from textnb.apps.serve import Server
from textnb.apps.spamclient import client_main
from textnb.apps.spamclient_build import FALLBACK_SCRIPT, ClientBuildError, build_client, installed_fallback
from textnb.cli.mailfilters import filter_main

from conftest import FakeServer, wait_in_syscall, wait_reading_stdin
from test_serve import HAM_WORDS, SPAM_WORDS, mail_bytes, spam_model  # noqa: F401 (spam_model: a fixture)

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture()
def sock_dir(tmp_path_factory):
    import shutil
    import tempfile

    d = tempfile.mkdtemp(prefix="tnbc")  # AF_UNIX paths are short; pytest's tmp_path may not be
    yield Path(d)
    shutil.rmtree(d, ignore_errors=True)


def env(**extra):
    e = dict(os.environ)
    e["PYTHONPATH"] = str(REPO) + (os.pathsep + e["PYTHONPATH"] if e.get("PYTHONPATH") else "")
    e.update(extra)
    return e


def c_client(exe, argv, stdin, **kw):
    r = subprocess.run([str(exe), *map(str, argv)], input=stdin, capture_output=True, env=kw.pop("env", env()),
                       timeout=120, **kw)
    return r.returncode, r.stdout, r.stderr.decode()


def py_client(argv, stdin):
    out, err = io.BytesIO(), io.StringIO()
    code = client_main([str(a) for a in argv], stdin=io.BytesIO(stdin), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def cold(argv, stdin):
    out, err = io.BytesIO(), io.StringIO()
    code = filter_main([str(a) for a in argv], stdin=io.BytesIO(stdin), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


OPTION_SETS = [[], ["-p"], ["-p", "-e"], ["-pe"], ["-e"], ["--passthrough", "--exit-zero"],
               ["--spam-cutoff", "0.7", "--ham-cutoff", "0.3"], ["-p", "--spam-cutoff=1", "--ham-cutoff=0"],
               ["-p", "--max-bytes", "40"], ["-p", "--max-bytes=1k"], ["--max-bytes", "2MB", "-p"],
               ["-p", "--spam-cutoff", ".95", "--ham-cutoff", "5e-2"]]


@pytest.mark.slow
def test_same_answers_as_the_python_client_and_the_cold_command(spamfilter_c, spam_model, sock_dir):
    sock = sock_dir / "s"
    rng = random.Random(7)
    messages = [mail_bytes(SPAM_WORDS, rng) for _ in range(3)] + [mail_bytes(HAM_WORDS, rng) for _ in range(3)]
    messages += [b"Subject: cheap meeting\r\n\r\nviagra agenda\r\n", b"no header block at all, cheap agenda",
                 b"Subject: big\n\n" + b"pills agenda " * 30000, b"Subject: \xff\xfe\x00\n\n\x00bin\xe9ary\n"]
    with Server(spam_model, socket_path=sock):
        codes = set()
        for msg in messages:
            for extra in OPTION_SETS:
                got = c_client(spamfilter_c, ["--socket", sock, *extra], msg)
                assert got == py_client(["--socket", sock, *extra], msg), (msg[:40], extra)
                want = cold(["-m", spam_model, *extra], msg)
                assert got == want, (msg[:40], extra)
                codes.add(got[0])
        assert codes == {0, 1, 2}  # spam, ham and (with the wide cut-offs) unsure


def test_exit_zero_without_passthrough_is_one_warning_on_every_client(spamfilter_c, spam_model, sock_dir):
    """``-e`` without ``-p`` was taken without a word by the compiled client, the Python
    client and the cold command (session 28): now each writes the same warning line first
    (stderr: procmail's log), and the exit status is the verdict's, as without ``-e``."""
    sock = sock_dir / "s"
    msg = mail_bytes(SPAM_WORDS, random.Random(3))
    with Server(spam_model, socket_path=sock):
        for flag in ("-e", "--exit-zero"):
            plain = c_client(spamfilter_c, ["--socket", sock], msg)
            got = c_client(spamfilter_c, ["--socket", sock, flag], msg)
            assert got == py_client(["--socket", sock, flag], msg) == cold(["-m", spam_model, flag], msg)
            assert got == (plain[0], b"", "spamfilter: warning: -e has no effect without -p\n")
        got = c_client(spamfilter_c, ["--socket", sock, "-e"], b" \n")  # (said before the message is read)
        assert got == py_client(["--socket", sock, "-e"], b" \n")
        assert got[2] == "spamfilter: warning: -e has no effect without -p\nspamfilter: stdin: empty message\n"


@pytest.mark.parametrize("msg", [b"", b" \n\t\r\n"])
def test_empty_message(spamfilter_c, spam_model, sock_dir, msg):
    sock = sock_dir / "s"
    with Server(spam_model, socket_path=sock):
        for extra in ([], ["-p"]):
            got = c_client(spamfilter_c, ["--socket", sock, *extra], msg)
            assert got == py_client(["--socket", sock, *extra], msg)
            assert got[0] == 3 and got[2] == "spamfilter: stdin: empty message\n"


def test_daemon_down_exit_3_and_the_message_unchanged(spamfilter_c, sock_dir):
    msg = b"Subject: hi\n\nbody \x00\xff\n"
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(sock_dir / "stale"))
    stale.close()
    for path in (sock_dir / "nobody", sock_dir / "stale", sock_dir / ("x" * 120)):
        for extra in ([], ["-p"], ["-p", "-e"]):
            got = c_client(spamfilter_c, ["--socket", path, *extra], msg)
            assert got == py_client(["--socket", path, *extra], msg)
            assert got[0] == 3 and got[1] == (msg if extra else b"") and got[2].count("\n") == 1
    assert "Connection refused" in c_client(spamfilter_c, ["--socket", sock_dir / "stale"], msg)[2]


def test_the_daemons_errors_and_limit(spamfilter_c, spam_model, sock_dir):
    sock = sock_dir / "s"
    big = b"Subject: cheap\n\n" + b"viagra pills " * 20000
    with Server(spam_model, socket_path=sock, max_request=1000):
        for extra in ([], ["-p"]):
            got = c_client(spamfilter_c, ["--socket", sock, *extra], big)
            assert got == py_client(["--socket", sock, *extra], big)
            assert got[0] == 3 and "over the limit of 1000 bytes" in got[2] and got[2].count("\n") == 1
            assert got[1] == (big if extra else b"")


def fake_daemon(path, reply):
    """A foreign server on the socket (conftest's FakeServer): reads the request, answers
    ``reply``, closes."""
    def answer(conn):
        with conn:
            conn.settimeout(10)
            try:  # the whole request first (SPAM <n> ...\n + n bytes), so that no send can fail
                data = b""
                while b"\n" not in data:
                    data += conn.recv(1 << 16)
                line, _, rest = data.partition(b"\n")
                need = int(line.split()[1]) - len(rest)
                while need > 0:
                    need -= len(conn.recv(1 << 16))
                conn.sendall(reply)
            except (OSError, ValueError, IndexError):
                pass

    return FakeServer(answer, path)


#: Replies no textnb daemon sends: an exit code that is not a verdict's (0, 1, 2), a count
#: that cannot be (too big for the message: an OverflowError and a traceback in the Python
#: client before), a label with a control character or NUL, numbers Python and C would read
#: differently.
BROKEN_REPLIES = [b"OK 1 ham 0.5 -0.1 99999999999999999999\n", b"OK 1 ham 0.5 -0.1 70000\n" + b"x" * 70000,
                  b"OK 7 spam 1 2 0\n", b"OK 255 spam 1 2 0\n", b"OK -1 spam 1 2 0\n",
                  b"OK 99999999999999999999 s 1 2 0\n", b"OK 0 sp\x01am 1 2 0\n", b"OK 0 sp\x00am 1 2 0\n",
                  b"OK 0 spam 1 2 0\x00\n", b"OK 0 spam\x7f 1 2 0\n", b"OK 0 spam 1_0 2 0\n", b"OK 0 spam 0x1p3 2 0\n",
                  b"OK 0 spam 1 2 +0\n"]
#: Replies to a -p request whose count cannot be the processed message (0; fewer bytes than
#: the message, which holds no X-TextNB field): the client wrote nothing, or a cut message.
BROKEN_WITH_P = [b"OK 1 ham -3.5 -3.5 0\n", b"OK 0 spam 9.25 9.25 5\nHEAD!"]


def _reply_id(reply):
    return repr(reply[:40])


@pytest.mark.parametrize("reply", BROKEN_REPLIES + BROKEN_WITH_P, ids=_reply_id)
def test_a_broken_reply_is_one_line_exit_3_and_the_message_unchanged(sock_dir, reply):
    """The Python client (the C client gives the same bytes: test_a_foreign_or_broken_daemon)."""
    path = sock_dir / "f"
    fake = fake_daemon(path, reply)
    msg = b"Subject: hi\n\nbody\n"
    try:
        for extra in ([], ["-p"], ["-p", "-e"]):
            code, out, err = py_client(["--socket", path, *extra], msg)
            if not extra and reply in BROKEN_WITH_P:  # (no -p: no message is asked for)
                assert code == int(reply.split()[1]) and out == b"" and err == ""
                continue
            assert (code, out) == (3, msg if extra else b""), (reply, extra)
            assert err.startswith(f"spamfilter: {path}: not a textnb daemon (reply b") and err.count("\n") == 1, err
    finally:
        fake.close()


def test_a_message_whose_old_textnb_fields_are_longer_is_still_processed(spamfilter_c, spam_model, sock_dir):
    """A message that carries long X-TextNB-* fields gets a shorter answer (they are
    replaced): the count is then under the message's size and still taken."""
    sock = sock_dir / "s"
    msg = b"From: a@b.example\nX-TextNB-Class: " + b"x" * 300 + b"\nSubject: cheap\n\nviagra pills\n"
    with Server(spam_model, socket_path=sock):
        for extra in (["-p"], ["-p", "-e"], []):
            want = cold(["-m", spam_model, *extra], msg)
            assert py_client(["--socket", sock, *extra], msg) == want
            assert c_client(spamfilter_c, ["--socket", sock, *extra], msg) == want
            if extra:
                assert want[0] in (0, 1, 2) and len(want[1]) < len(msg) and b"x" * 300 not in want[1]


@pytest.mark.parametrize("reply", [
    b"HELLO there, I'm not it\n", b'say "no"\n', b"OK 0 spam 1.0 2.0\n", b"OK x spam 1 2 0\n",
    b"OK 0 sp\xc3\xa9m 1 2 0\n", b"OK 0 spam 1 2 50\nonly a few bytes", b"", b"no newline at all",
    b"ERR the model is being replaced\n", b"OK 1 ham -3.5 -3.5 0\n", b"OK 0 spam 9.25 9.25 5\nHEAD!",
    b"\x00\xff\t\\weird'\n",
    *BROKEN_REPLIES,
], ids=_reply_id)
def test_a_foreign_or_broken_daemon(spamfilter_c, sock_dir, reply):
    path = sock_dir / "f"
    fake = fake_daemon(path, reply)
    msg = b"Subject: hi\n\nbody\n"
    try:
        for extra in ([], ["-p"]):
            got = c_client(spamfilter_c, ["--socket", path, *extra], msg)
            assert got == py_client(["--socket", path, *extra], msg), reply
            assert got[2].count("\n") <= 1
    finally:
        fake.close()


def test_a_daemon_that_hangs_up_while_the_message_is_sent(spamfilter_c, sock_dir):
    # it reads nothing and closes: the send fails (EPIPE or ECONNRESET, whichever comes first)
    path = sock_dir / "h"
    server = FakeServer(lambda conn: conn.close(), path)
    msg = b"Subject: big\n\n" + b"x" * (4 << 20)
    try:
        for extra in ([], ["-p"]):
            for got in (c_client(spamfilter_c, ["--socket", path, *extra], msg),
                        py_client(["--socket", path, *extra], msg)):
                assert got[0] == 3 and got[1] == (msg if extra else b"")
                assert got[2].count("\n") == 1 and (
                    "cannot send the message" in got[2] or "without a reply" in got[2]), got[2]
    finally:
        server.close()


def test_argument_errors_are_the_python_commands(spamfilter_c, spam_model, sock_dir):
    sock = sock_dir / "s"
    msg = b"Subject: x\n\ny\n"
    with Server(spam_model, socket_path=sock):
        for argv in (["--batch", "x"], ["-m", spam_model], ["--spam-cutoff", "nan"], ["--spam-cutoff", "2"],
                     ["--spam-cutoff", "0.3", "--ham-cutoff", "0.6"], ["--max-bytes", "-3"],
                     ["--max-bytes", "1e400"], ["-px"], ["--max-bytes", "1e3"], ["--spam-cutoff", " 0.9 "]):
            got = c_client(spamfilter_c, ["--socket", sock, "-p", *argv], msg)
            assert got == py_client(["--socket", sock, "-p", *argv], msg), argv
            assert "Traceback" not in got[2]
        got = c_client(spamfilter_c, ["--socket"], msg)
        assert got[0] == 3 and got[2] == "spamfilter: argument --socket: expected one argument (see --help)\n"


@pytest.mark.slow
def test_everything_but_the_client_is_the_python_command(spamfilter_c, spam_model):
    code, out, err = c_client(spamfilter_c, ["--help"], b"")
    assert code == 0 and out.startswith(b"usage: spamfilter")
    assert c_client(spamfilter_c, ["--socket", "/x", "-h"], b"")[1].startswith(b"usage: spamfilter")
    msg = mail_bytes(SPAM_WORDS, random.Random(2))
    for extra in ([], ["-p"], ["--log-odds", "-p"]):
        assert c_client(spamfilter_c, ["-m", spam_model, *extra], msg) == cold(["-m", spam_model, *extra], msg)


@pytest.mark.slow
def test_the_client_runs_no_python(tmp_path, spam_model, sock_dir):
    try:
        exe = build_client(tmp_path / "spamfilter", fallback=["/nonexistent/python3", "-S", "x"])
    except ClientBuildError as exc:
        pytest.skip(str(exc).splitlines()[0])
    sock = sock_dir / "s"
    msg = mail_bytes(SPAM_WORDS, random.Random(5))
    bare = {"PATH": "/nonexistent", "LANG": "C"}
    with Server(spam_model, socket_path=sock):
        got = c_client(exe, ["--socket", sock, "-p"], msg, env=bare)
        assert got == cold(["-m", spam_model, "-p"], msg)
    # a mode that needs Python, and Python is gone: one line, 3, the message goes on with -p
    code, out, err = c_client(exe, ["-m", spam_model, "-p"], msg, env=bare)
    assert (code, out) == (3, msg) and err.startswith("spamfilter: cannot run Python (/nonexistent/python3)")
    assert err.count("\n") == 1


@pytest.mark.slow
def test_the_installed_client_runs_the_python_command_beside_it_and_no_other(tmp_path, spam_model):
    """The client pip installs runs its Python command, the console script
    ``textnb-spamfilter-python``, from its own folder (links resolved). It named the
    building interpreter instead, then ran ``python3`` from PATH (another textnb or none:
    exit 1, "ham", the message lost); a missing script is one line naming the file, 3,
    and with ``-p`` the message goes on unchanged."""
    try:
        exe = build_client(tmp_path / "bin" / "spamfilter", fallback=installed_fallback())
    except ClientBuildError as exc:
        pytest.skip(str(exc).splitlines()[0])
    other = tmp_path / "other"
    other.mkdir()
    (other / "python3").write_text("#!/bin/sh\necho another python3\nexit 1\n")
    (other / "python3").chmod(0o755)
    bare = {"PATH": f"{other}:/usr/bin:/bin", "LANG": "C"}
    msg = mail_bytes(SPAM_WORDS, random.Random(6))
    missing = f"spamfilter: cannot run Python ({tmp_path / 'bin' / FALLBACK_SCRIPT}): No such file or directory\n"
    assert c_client(exe, ["-m", spam_model, "-p"], msg, env=bare) == (3, msg, missing)
    assert c_client(exe, ["--version"], msg, env=bare) == (3, b"", missing)
    beside = tmp_path / "bin" / FALLBACK_SCRIPT
    beside.write_text('#!/bin/sh\nfor a in "$@"; do printf "[%s]" "$a"; done\n')
    beside.chmod(0o755)
    os.symlink(exe, tmp_path / "link")
    for run in (exe, tmp_path / "link"):
        assert c_client(run, ["-m", spam_model, "-p", "a b"], msg, env=bare) == (0, f"[-m][{spam_model}][-p][a b]".encode(), "")


@pytest.mark.slow
def test_with_batch_no_python_copies_nothing_to_stdout(tmp_path, spam_model):
    """Python gone, ``-p`` given with ``--batch`` (where -p has no effect: the batch's stdout
    is verdict lines): the C client copied stdin to stdout, as for a message (session 28);
    now one line and 3, stdout empty, as spamclient.asks_batch has the Python commands do."""
    try:
        exe = build_client(tmp_path / "spamfilter", fallback=["/nonexistent/python3", "-S", "x"])
    except ClientBuildError as exc:
        pytest.skip(str(exc).splitlines()[0])
    bare = {"PATH": "/nonexistent", "LANG": "C"}
    msg = b"Subject: not for stdout\n\nbody\n"
    for batch in (["--batch", tmp_path], ["-pB", tmp_path], ["--bat=" + str(tmp_path)]):
        code, out, err = c_client(exe, ["-m", spam_model, "-p", *batch], msg, env=bare)
        assert (code, out) == (3, b""), batch
        assert err.startswith("spamfilter: cannot run Python (/nonexistent/python3)") and err.count("\n") == 1
    assert c_client(exe, ["-p", "-mB"], msg, env=bare)[:2] == (3, msg)  # (-m's value "B": the message goes on)


@pytest.mark.parametrize("sig,code,line", [(signal.SIGINT, 130, "spamfilter: interrupted\n"),
                                           (signal.SIGTERM, 3, "spamfilter: terminated by signal 15\n"),
                                           (signal.SIGHUP, 3, "spamfilter: terminated by signal 1\n")])
@pytest.mark.parametrize("passthrough", [False, True])
def test_a_signal_while_reading_is_never_a_verdict(spamfilter_c, spam_model, sock_dir, sig, code, line, passthrough):
    sock = sock_dir / "s"
    first = b"From: a@b.example\nSubject: cheap\n"
    with Server(spam_model, socket_path=sock):
        proc = subprocess.Popen([str(spamfilter_c), "--socket", str(sock), *(["-p"] if passthrough else [])],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env())
        proc.stdin.write(first)
        proc.stdin.flush()
        wait_reading_stdin(proc)
        proc.send_signal(sig)
        out, err = proc.communicate(input=b"\nviagra pills\n", timeout=120)
    assert (proc.returncode, err.decode()) == (code, line)
    assert out == (first + b"\nviagra pills\n" if passthrough else b"")


@pytest.mark.skipif(not Path("/proc/self/syscall").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize("client", ["c", "python"])
def test_a_second_ctrl_c_while_the_message_is_passed_through_is_the_same_request(request, sock_dir, client):
    """``-p``, a Ctrl-C while the message is read (no daemon needed), then a second one while
    the client, passing the message through, waits to write it (its reader is slow): the
    second stopped the copy ("a second Ctrl-C stops the copy, silently"), and the mail
    system got the message cut after 64 KiB. Now the first signal is the only one answered
    (textnb.core.signals.stop_on_signals; spamclient.c's on_signal): the whole message."""
    import threading

    argv = ([str(request.getfixturevalue("spamfilter_c"))] if client == "c" else
            [sys.executable, "-S", str(REPO / "scripts" / "spamfilter")])
    first, rest = b"From: a@b.example\nSubject: cheap\n", b"\nviagra pills now\n" * 20000
    proc = subprocess.Popen([*argv, "--socket", str(sock_dir / "none"), "-p"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env())
    try:
        proc.stdin.write(first)
        proc.stdin.flush()
        wait_reading_stdin(proc)
        proc.send_signal(signal.SIGINT)

        def feed():
            try:
                proc.stdin.write(rest)
                proc.stdin.close()
            except OSError:  # (cut off: the test fails below)
                pass

        feeder = threading.Thread(target=feed)
        feeder.start()
        wait_in_syscall(proc, "1 ")  # write(): the pipe to this test is full (the Python client writes a dup of fd 1)
        proc.send_signal(signal.SIGINT)
        out = proc.stdout.read()
        feeder.join(60)
        err = proc.stderr.read()
        proc.wait(60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(60)
    assert (proc.returncode, err.decode()) == (130, "spamfilter: interrupted\n")
    assert out == first + rest


def _sh(cmd, **kw):
    return subprocess.run(["sh", "-c", cmd], capture_output=True, env=env(), timeout=120, **kw)


def test_closed_standard_streams(spamfilter_c, spam_model, sock_dir):
    sock = sock_dir / "s"
    msg = mail_bytes(HAM_WORDS, random.Random(1))
    with Server(spam_model, socket_path=sock):
        for extra in ("", "-p"):
            r = _sh(f"exec '{spamfilter_c}' --socket '{sock}' {extra} <&-")
            assert (r.returncode, r.stderr) == (3, b"spamfilter: stdin: standard input is closed\n")
        r = _sh(f"exec '{spamfilter_c}' --socket '{sock}' -p >&-", input=msg)
        assert (r.returncode, r.stderr) == (3, b"spamfilter: stdout: standard output is closed\n")
        r = _sh(f"exec '{spamfilter_c}' --socket '{sock}' >&-", input=msg)  # the verdict needs no stdout
        assert (r.returncode, r.stderr) == (1, b"")
        r = _sh(f"exec '{spamfilter_c}' --socket '{sock}' -p 2>&-", input=msg)
        assert r.returncode == 1 and b"X-TextNB-Class: ham" in r.stdout


def test_a_folder_as_standard_input_is_an_error_not_a_verdict(spamfilter_c, spam_model, sock_dir, tmp_path):
    """``spamfilter < FOLDER``: Python cannot start with a folder as stdin (a fatal error,
    exit 1, which is the ham verdict); the compiled client says so in one line, exit 3,
    whether it hands over to Python (no --socket) or asks the daemon."""
    sock = sock_dir / "s"
    folder = tmp_path / "afolder"
    folder.mkdir()
    with Server(spam_model, socket_path=sock):
        for extra in (f"-m '{spam_model}'", f"-m '{spam_model}' -p", f"--socket '{sock}'", f"--socket '{sock}' -p"):
            r = _sh(f"exec '{spamfilter_c}' {extra} < '{folder}'")
            assert (r.returncode, r.stderr, r.stdout) == (3, b"spamfilter: stdin: Is a directory\n", b""), extra


def test_a_reader_that_leaves_is_an_error_not_a_verdict(spamfilter_c, spam_model, sock_dir):
    sock = sock_dir / "s"
    msg = b"Subject: agenda\n\n" + b"meeting agenda budget\n" * 100000
    results = []
    with Server(spam_model, socket_path=sock):
        for argv in ([str(spamfilter_c)], [sys.executable, "-S", str(REPO / "scripts" / "spamfilter")]):
            proc = subprocess.Popen([*argv, "--socket", str(sock), "-p"], stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env())
            proc.stdout.close()  # the reader is gone before the first byte
            _, err = proc.communicate(input=msg, timeout=120)
            results.append((proc.returncode, err))
    assert results[0] == results[1] == (3, b"spamfilter: i/o: Broken pipe\n")


def test_a_file_size_limit_is_the_same_error_line_on_both_clients(spamfilter_c, spam_model, sock_dir, tmp_path):
    """Under ``ulimit -f`` (a file size limit) the compiled client was killed by SIGXFSZ
    writing ``-p``'s message: exit 153, the output cut, nothing on stderr; the Python client
    (Python ignores SIGXFSZ at start-up) said ``spamfilter: i/o: File too large``, exit 3.
    The compiled client ignores it too: the same line, exit status and bytes written. The
    line is the cold command's (``spamfilter -m MODEL -p``, no daemon), ``stdout: File too
    large``, and so on a full disk (``> /dev/full``): a write that finds no room is standard
    output's on every path (:func:`textnb.core.signals.os_error_text`; *was*: both clients
    said ``i/o: ...``, the cold command ``stdout: ...``)."""
    import resource

    limit = 20 * 1024

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    sock = sock_dir / "s"
    msg = b"Subject: hi\n\n" + b"".join(b"filler line of text %d\n" % i for i in range(3000))  # (70 kB)
    script = [sys.executable, "-S", str(REPO / "scripts" / "spamfilter")]
    paths = ([str(spamfilter_c), "--socket", str(sock)], [*script, "--socket", str(sock)], [*script, "-m", str(spam_model)])
    results, full = [], []
    quiet = env(PYTHONDONTWRITEBYTECODE="1")  # (a .pyc written under the limit is cut: every later import fails)
    with Server(spam_model, socket_path=sock):
        for n, argv in enumerate(paths):
            out = tmp_path / f"out{n}"
            with open(out, "wb") as f:
                r = subprocess.run([*argv, "-p"], input=msg, stdout=f, stderr=subprocess.PIPE, env=quiet,
                                   preexec_fn=small_files, timeout=120)
            results.append((r.returncode, r.stderr, out.read_bytes()))
            if os.path.exists("/dev/full"):
                with open("/dev/full", "wb") as f:
                    r = subprocess.run([*argv, "-p"], input=msg, stdout=f, stderr=subprocess.PIPE, env=quiet, timeout=120)
                full.append((r.returncode, r.stderr))
    assert results[0] == results[1]
    code, err, written = results[0]
    assert (code, err, len(written)) == (3, b"spamfilter: stdout: File too large\n", limit)  # (written up to the limit)
    assert written.startswith(b"X-TextNB-") or b"\nX-TextNB-" in written  # (the verdict's copy, cut)
    assert results[2][:2] == (3, b"spamfilter: stdout: File too large\n") and len(results[2][2]) == limit
    assert full in ([], [(3, b"spamfilter: stdout: No space left on device\n")] * 3)


def test_build_errors_are_one_line_and_leave_nothing(tmp_path):
    out = tmp_path / "spamfilter"
    with pytest.raises(ClientBuildError, match="compiling spamclient.c failed|cannot run the C compiler"):
        build_client(out, fallback=["/usr/bin/python3"], cc="false")
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ClientBuildError, match="cannot run the C compiler"):
        build_client(out, fallback=["/usr/bin/python3"], cc="/nonexistent/cc")
    with pytest.raises(ClientBuildError, match="fallback"):
        build_client(out, fallback=[])
    with pytest.raises(ClientBuildError, match="fallback: bin/python3: expected an absolute path or a bare name"):
        build_client(out, fallback=["bin/python3"])
    (tmp_path / "d").mkdir()
    os.symlink(tmp_path / "elsewhere", tmp_path / "link")
    for taken in (tmp_path / "d", tmp_path / "link"):
        with pytest.raises(ClientBuildError, match="not a regular file"):
            build_client(taken, fallback=["/usr/bin/python3"])
    assert not (tmp_path / "elsewhere").exists()


@pytest.mark.slow
def test_fallback_strings_reach_the_program_intact(tmp_path):
    odd = str(tmp_path / 'py "th\\on" ??= é\tx')
    script = tmp_path / "echo.sh"
    script.write_text('#!/bin/sh\nfor a in "$@"; do printf "[%s]" "$a"; done\n')
    script.chmod(0o755)
    try:
        exe = build_client(tmp_path / "spamfilter", fallback=["/bin/sh", str(script), odd])
    except ClientBuildError as exc:
        pytest.skip(str(exc).splitlines()[0])
    r = subprocess.run([str(exe), "--model", "m", "a b"], capture_output=True, timeout=60)
    assert r.stdout.decode() == f"[{odd}][--model][m][a b]"


@pytest.mark.skipif(not Path("/proc/self/syscall").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize("sig,code", [(signal.SIGTERM, 3), (signal.SIGINT, 130)])
def test_a_signal_while_the_message_is_written_leaves_it_whole(spamfilter_c, spam_model, sock_dir, sig, code):
    """The Python filter's twin (tests/apps/test_mail_tools.py): a stop while ``-p`` writes a
    large message to a slow reader; the compiled client gave up the part of the verdict's
    copy not yet written and went on with the rest of stdin (the message cut in its middle)."""
    sock = sock_dir / "w"
    msg = b"From: a@b.example\nSubject: huge\n\n" + b"".join(b"line %07d padding padding padding\n" % i
                                                             for i in range(60000))
    with Server(spam_model, socket_path=sock):
        whole = subprocess.run([str(spamfilter_c), "--socket", str(sock), "-p"], input=msg, capture_output=True,
                               env=env(), timeout=120)
        assert whole.returncode in (0, 1, 2) and len(whole.stdout) > len(msg), whole.stderr
        proc = subprocess.Popen([str(spamfilter_c), "--socket", str(sock), "-p"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env())
        proc.stdin.write(msg)
        proc.stdin.close()
        wait_in_syscall(proc, "1 0x1 ")
        proc.send_signal(sig)
        out, err = proc.stdout.read(), proc.stderr.read()
        proc.wait(timeout=120)
    assert proc.returncode == code and err.count(b"\n") == 1, err
    assert out == whole.stdout


def test_abbreviated_options_with_socket_are_taken_as_argparse_takes_them(spamfilter_c, spam_model, sock_dir, tmp_path):
    """``spamfilter --socket S --pass`` (``--passth``, ``--exit`` for ``--exit-zero``, ``--sock``
    for ``--socket``): the compiled client, the Python client and the cold command give the
    same answer as with the whole names, argparse's rule (*was*: ``--pass: not available with
    --socket``, exit 3, the message lost); the spamfilter options the client knows are its
    parser's; with Python gone, the compiled client copies the message for ``--pass`` too."""
    from textnb.apps.spamclient import SPAMFILTER_LONG_OPTIONS, long_option
    from textnb.cli.mailfilters import _spam_parser

    assert SPAMFILTER_LONG_OPTIONS == tuple(sorted(o for a in _spam_parser()._actions for o in a.option_strings
                                                   if o.startswith("--")))
    assert [long_option(a) for a in ("--pass", "--exit", "--sock", "--s", "--x", "-p")] == [
        "--passthrough", "--exit-zero", "--socket", "--s", "--x", "-p"]
    sock = sock_dir / "s"
    msg = mail_bytes(SPAM_WORDS, random.Random(9))
    with Server(spam_model, socket_path=sock):
        want = c_client(spamfilter_c, ["--socket", sock, "--passthrough", "--exit-zero"], msg)
        assert want[0] == 0 and b"X-TextNB-Class: spam" in want[1]
        for argv in (["--socket", sock, "--pass", "--exit"], ["--socket", sock, "--passth", "--exit-z"],
                     ["--sock", sock, "--pass", "--exit"]):
            assert c_client(spamfilter_c, argv, msg) == want, argv
            assert py_client(argv, msg) == want, argv
        assert cold(["-m", spam_model, "--pass", "--exit"], msg) == want
    try:
        exe = build_client(tmp_path / "spamfilter", fallback=["/nonexistent/python3", "-S", "x"])
    except ClientBuildError as exc:
        pytest.skip(str(exc).splitlines()[0])
    code, out, err = c_client(exe, ["--socket", sock, "--pass"], msg, env={"PATH": "/nonexistent", "LANG": "C"})
    assert (code, out) == (3, msg) and "cannot run Python" in err
