"""Shared fixtures: the bundled corpora, and the shared corpora / data sets when present.

``../shared`` (next to the repository) holds large read-only archives; tests that need
them skip cleanly when it is absent, so the suite passes from a fresh clone with only
what ``corpora/`` ships.
"""

import contextlib
import hashlib
import io
import json
import os
import shutil
import signal
import socket
import sys
import tarfile
import tempfile
import threading
import zipfile
from pathlib import Path

import numpy as np
import pytest

# a library error that is not a TextnbError is a bug: the command line shows its traceback
# (in this process and in the commands the tests start) instead of one polite line
os.environ["TEXTNB_DEBUG"] = "1"

# one BLAS thread in the test processes and in every Python the tests start, as the programs
# set for themselves (textnb.cli.program.one_blas_thread, whose tests give their commands an
# environment without these variables): OpenBLAS starts a thread per CPU when numpy is
# imported, 0.06 s of CPU a process, in the ~200 processes of the quick subset, and xdist's
# workers already use every CPU. A number the user chose stands.
if not any(os.environ.get(name) for name in ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS",
                                             "MKL_NUM_THREADS")):
    os.environ["OPENBLAS_NUM_THREADS"] = os.environ["MKL_NUM_THREADS"] = "1"

# the commands the tests start (some 200 `python -m textnb ...` and `python -c` processes):
# with PYTHONDONTWRITEBYTECODE set, each would compile every module it imports again (about
# 0.3 s a command). They cache their bytecode for the session in one temporary directory
# instead (as scripts/bench_text.py does), never in the source tree. The pytest processes
# keep their own settings (they read the installed packages' bytecode as before); the first
# one (xdist's controller, or the only one) makes the directory and removes it at the end.
@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    if not sys.dont_write_bytecode or sys.pycache_prefix or os.environ.get("PYTHONPYCACHEPREFIX"):
        return
    if "TEXTNB_TESTS_PYCACHE" not in os.environ:
        os.environ["TEXTNB_TESTS_PYCACHE"] = tempfile.mkdtemp(prefix="textnb-tests-pycache-")
        config.stash[_PYCACHE_OWNER] = os.environ["TEXTNB_TESTS_PYCACHE"]
    if not config.pluginmanager.has_plugin("dsession"):  # this process runs tests (not the controller)
        os.environ["PYTHONPYCACHEPREFIX"] = os.environ["TEXTNB_TESTS_PYCACHE"]
        del os.environ["PYTHONDONTWRITEBYTECODE"]


_PYCACHE_OWNER = pytest.StashKey[str]()


def pytest_unconfigure(config):
    if _PYCACHE_OWNER in config.stash:
        shutil.rmtree(config.stash[_PYCACHE_OWNER], ignore_errors=True)


REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
CORPORA = REPO / "corpora"
SMS_TSV = CORPORA / "sms_spam" / "SMSSpamCollection.tsv"
#: a small multi-label fastText file (three labels, documents with one or two of them)
MULTI = ("__label__a __label__b cheap pills now\n__label__b lunch at noon\n__label__a cheap offer\n"
         "__label__c meeting at noon\n__label__a __label__b cheap lunch\n__label__c agenda\n") * 4


def quick_first(params, keep=1, unpack=False):
    """``params`` for ``pytest.mark.parametrize`` with all but the first ``keep`` marked
    slow: the quick subset (``-m "not slow"``) runs a parity check on a few option sets,
    the full suite on every one. ``unpack``: each entry holds the values of several
    argument names."""
    slow = pytest.mark.slow
    return [p if i < keep else pytest.param(*p, marks=slow) if unpack else pytest.param(p, marks=slow)
            for i, p in enumerate(params)]


def quick_cover(cases, quick):
    """``cases`` (test id -> the tuple of its argument values, e.g. a grid of settings) as
    ``pytest.param``s, every one whose id is not in ``quick`` marked slow: the quick subset
    runs the ``quick`` cases (say, a cover of the grid in which every setting of each
    parameter, or every pair of two parameters' settings, appears), the full suite every one."""
    assert set(quick) <= set(cases), set(quick) - set(cases)
    return [pytest.param(*values, id=name, marks=() if name in quick else pytest.mark.slow)
            for name, values in cases.items()]


def shared_path(*parts):
    """A path under ../shared, or skip the test when it is not there."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is not available")
    return path


@pytest.fixture(scope="session")
def shared_corpora(tmp_path_factory):
    """Extract a shared corpus archive once per session: ``shared_corpora("20news-bydate")``."""
    root = tmp_path_factory.mktemp("shared_corpora")
    done = {}

    def extract(name):
        if name not in done:
            archive = shared_path("corpora", f"{name}.tar.gz")
            with tarfile.open(archive) as tar:
                tar.extractall(root, filter="data")
            done[name] = root
        members = [p for p in root.iterdir() if p.name.startswith(name.split("_")[0][:6])]
        return members[0] if members else root

    return extract


@pytest.fixture(scope="session")
def sms_tsv():
    return SMS_TSV


# --------------------------------------------------------------------------- CLI helpers
def cli(*args, stdin=None):
    """Run ``textnb`` in-process: (exit status, stdout, stderr); ``stdin`` (bytes): what
    standard input holds meanwhile."""
    import sys

    from textnb.cli.commands import main

    out, err = io.StringIO(), io.StringIO()
    old = sys.stdin
    if stdin is not None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin))
    try:
        rc = main([str(a) for a in args], stdout=out, stderr=err)
    finally:
        sys.stdin = old
    return rc, out.getvalue(), err.getvalue()


def one_error_line(err, *fragments):
    """stderr is exactly one ``textnb: error:`` line holding every fragment."""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("textnb: error: "), err
    for f in fragments:
        assert f in lines[0], (f, lines[0])
    return lines[0]


def tsv(path, rows, header=True):
    """Write a label<TAB>text file of ``rows`` (with a header line) and return its path."""
    text = ("label\ttext\n" if header else "") + "".join(f"{a}\t{b}\n" for a, b in rows)
    Path(path).write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def spamfilter_c(tmp_path_factory):
    """The compiled ``spamfilter`` (textnb/apps/spamclient.c), built as ``pip install .``
    builds it but falling back to this checkout's scripts/spamfilter; skips without a
    working C compiler."""
    from textnb.apps.spamclient_build import ClientBuildError, build_client, checkout_fallback

    try:
        return build_client(tmp_path_factory.mktemp("cc") / "spamfilter",
                            fallback=checkout_fallback(Path(__file__).resolve().parents[1]))
    except ClientBuildError as exc:
        pytest.skip(f"no C client: {str(exc).splitlines()[0]}")


@contextlib.contextmanager
def watchdog(seconds=60):
    """Fail (TimeoutError) instead of hanging when the body has not returned in time: the
    structure checks of hostile input, with no timing assert (speed is for the benchmarks)."""
    def expire(signum, frame):
        raise TimeoutError(f"not finished after {seconds} s: a quadratic path is back")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class FakeServer:
    """A server that is not the one a client expects, for the client's error paths: listens
    on the Unix socket ``path`` (None: a TCP port of 127.0.0.1, :attr:`port`) and hands each
    connection it accepts (in a thread of its own) to ``handle(conn)``, which answers, closes
    it or leaves it open; :meth:`close` (or the end of a ``with``) stops listening, wakes and
    joins the thread, and closes every connection left open."""

    def __init__(self, handle, path=None):
        self.handle, self.conns = handle, []
        self.sock = socket.socket(socket.AF_UNIX if path is not None else socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(str(path) if path is not None else ("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = None if path is not None else self.sock.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(conn)
            self.handle(conn)

    def close(self):
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)  # (wakes the accept: no thread is left behind)
        self.sock.close()
        self.thread.join(10)
        for conn in self.conns:
            conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


@pytest.fixture(scope="module")
def sms():
    """The bundled SMS collection: (documents, labels)."""
    import numpy as np

    import textnb

    corpus = textnb.open_corpus(SMS_TSV)
    return list(corpus.documents), np.asarray(corpus.labels)


@pytest.fixture(scope="module")
def sms_counts(sms):
    """Counts of the first 4,000 SMS messages (train) and the rest (test), one vocabulary."""
    from textnb import Vectorizer

    docs, y = sms
    vec = Vectorizer().fit(docs[:4000])
    return vec.transform(docs[:4000]), y[:4000], vec.transform(docs[4000:]), y[4000:]


def assert_kernel_is_the_estimator(kernel, estimator, X_test, tmp_path):
    """A fitted model kernel (``textnb.core.registry.KERNEL_MODULES``) and its fitted
    estimator: the same model file, byte for byte; the kernel built from that file by
    ``load_for_prediction``; both kernels score ``X_test`` bit for bit as the estimator;
    the same ``describe``."""
    import numpy as np

    from textnb.text.scorer import load_for_prediction

    estimator.save(tmp_path / "estimator.tnb")
    kernel.save(tmp_path / "kernel.tnb")
    assert (tmp_path / "estimator.tnb").read_bytes() == (tmp_path / "kernel.tnb").read_bytes()
    from_file = load_for_prediction(tmp_path / "estimator.tnb")
    assert type(from_file) is type(kernel)
    for model in (kernel, from_file):
        for method in ("predict_joint_log_proba", "predict_log_proba", "predict_proba", "predict_log_odds",
                       "predict"):
            np.testing.assert_array_equal(getattr(model, method)(X_test), getattr(estimator, method)(X_test))
    if hasattr(estimator, "describe"):
        assert kernel.describe() == estimator.describe()


def cli_subprocess(*args):
    """Run ``textnb ARGS`` in a fresh interpreter: (exit status, whether scikit-learn was
    imported, stdout)."""
    return cli_subprocesses(args)[0]


def cli_subprocesses(*commands):
    """Run several ``textnb`` commands (each a sequence of arguments) one after the other in
    one fresh interpreter (one start-up, 0.2 s, for them all): for each, what
    :func:`cli_subprocess` gives, its status taken as it returns (so a module one command
    imported shows in its status and in every later one's)."""
    import subprocess
    import sys

    code = ("import io, json, sys\n"
            "from textnb.cli.commands import main\n"
            "results = []\n"
            "for args in json.loads(sys.argv[1]):\n"
            "    out = io.StringIO()\n"
            "    rc = main(args, stdout=out, stderr=io.StringIO())\n"
            "    seen = sorted(m for m in ('scipy.special',) if m in sys.modules)\n"
            "    results.append([' '.join(map(str, [rc, 'sklearn' in sys.modules, *seen])), out.getvalue()])\n"
            "print(json.dumps(results))\n")
    env = dict(os.environ, PYTHONPATH=str(REPO), OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    argv = json.dumps([[str(a) for a in command] for command in commands])
    proc = subprocess.run([sys.executable, "-c", code, argv], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return [tuple(r) for r in json.loads(proc.stdout)]


@pytest.fixture()
def forked_pids(monkeypatch):
    """The pids that :mod:`textnb.core.forkmap` forks during the test (``os.fork``
    recorded). Idle threads of earlier tests (Dask's offload pool stays for the session)
    would turn the helpers off; the children of these tests touch no lock, so they fork
    as a single-threaded process does."""
    import threading

    from textnb.core import forkmap

    pids, fork = [], os.fork

    def recording_fork():
        pid = fork()
        if pid:
            pids.append(pid)
        return pid

    monkeypatch.setattr(forkmap.os, "fork", recording_fork)
    monkeypatch.setattr(threading, "active_count", lambda: 1)
    return pids


def tiny_mail(root):
    """Folders ``root/spam`` and ``root/ham`` of three short messages each: ``(spam, ham)``."""
    spam, ham = root / "spam", root / "ham"
    for folder, words in ((spam, "cheap pills offer"), (ham, "meeting at noon")):
        folder.mkdir()
        for i in range(3):
            (folder / f"{i}.eml").write_bytes(f"Subject: {words}\n\n{words} {i}\n".encode())
    return spam, ham


def read_model_file(path):
    """``(header, arrays)`` of a model file, as it is stored (arrays by member name)."""
    with zipfile.ZipFile(path) as z:
        header = json.loads(z.read("header.json"))
        arrays = {n: np.load(io.BytesIO(z.read(f"arrays/{n}.npy")), allow_pickle=False) for n in header["arrays"]}
    return header, arrays


def write_model_file(path, header, arrays):
    """A model file with valid checksums for whatever ``header`` and ``arrays`` say."""
    header = json.loads(json.dumps(header))
    header["arrays"] = {}
    members = []
    for name, a in arrays.items():
        buf = io.BytesIO()
        np.save(buf, a, allow_pickle=False)
        data = buf.getvalue()
        header["arrays"][name] = {"sha256": hashlib.sha256(data).hexdigest(), "nbytes": len(data)}
        members.append((f"arrays/{name}.npy", data))
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as z:
        z.writestr("header.json", json.dumps(header))
        for member, data in members:
            z.writestr(member, data)


class InProcessClient:
    """A Dask client stand-in that runs each task here (what
    :func:`textnb.core.workers.map_ordered` calls), recording the arguments a worker would
    be sent in ``sent``."""

    class _Future:
        def __init__(self, value, error=None):
            self.value, self.error = value, error

        def result(self, timeout=None):
            if self.error is not None:  # (raised where a Dask future raises its task's error)
                raise self.error
            return self.value

        def release(self):
            pass

    def __init__(self):
        self.sent = []

    def nthreads(self):
        return {"w": 1}

    def submit(self, func, *args, pure=False):
        self.sent.append(args)
        try:
            return self._Future(func(*args))
        except Exception as exc:
            return self._Future(None, exc)


def post(port, body, path="/classify", headers=None):
    """``(status, JSON answer)`` of a POST to a ``textnb serve --http`` on 127.0.0.1:``port``;
    ``body`` a JSON text (str or bytes, sent as it is) or an object (sent as JSON)."""
    import http.client
    import json

    if not isinstance(body, (str, bytes)):
        body = json.dumps(body)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("POST", path, body=body, headers=headers or {"Content-Type": "application/json"})
        r = conn.getresponse()
        return r.status, json.loads(r.read())
    finally:
        conn.close()


def wait_in_syscall(proc, call, limit=60.0):
    """Wait (without asserting on time) until ``proc`` is blocked in the system call
    ``call`` (the start of its /proc/PID/syscall line: ``"1 0x1 "`` a write to stdout);
    gives up quietly after ``limit`` or without /proc."""
    import time
    from pathlib import Path

    end = time.monotonic() + limit
    while time.monotonic() < end and proc.poll() is None:
        try:
            if Path(f"/proc/{proc.pid}/syscall").read_text().startswith(call):
                return
        except OSError:
            return
        time.sleep(0.02)


def wait_reading_stdin(proc, limit=120.0):
    """Wait (without asserting on time) until ``proc`` is blocked reading a pipe (``read(0,
    ...)``, or waiting in ``poll``/``select`` on it, as the Python client does), so a signal
    lands where the filter holds the message; gives up quietly after ``limit``."""
    import time
    from pathlib import Path

    end = time.monotonic() + limit
    while time.monotonic() < end and proc.poll() is None:
        try:
            wchan = Path(f"/proc/{proc.pid}/wchan").read_text()
            syscall = Path(f"/proc/{proc.pid}/syscall").read_text()
        except OSError:
            return
        if "pipe" in wchan or "poll" in wchan or "select" in wchan or syscall.startswith("0 0x0 "):
            return
        time.sleep(0.02)


#: the signals whose disposition a program run in this process may leave changed (the mail
#: tools ignore a stop signal once their command has returned: robustness row 880)
_KEPT_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGXFSZ")
                      if hasattr(signal, name))


@pytest.fixture(autouse=True)
def _signal_dispositions_restored():
    """Every test leaves this process's stop-signal dispositions as it found them: a program
    run in process (``mailcli.topicfilter``) that ended ignoring SIGINT left the test worker so,
    and every later test's child process inherited it (an ignored signal stays ignored across
    ``exec``): the stop-signal tests' children then ignored their Ctrl-C (exit 0)."""
    saved = {signum: signal.getsignal(signum) for signum in _KEPT_SIGNALS}
    yield
    if threading.current_thread() is not threading.main_thread():
        return
    for signum, handler in saved.items():
        if handler is not None and signal.getsignal(signum) is not handler:
            signal.signal(signum, handler)


def run_spamfilter(argv, stdin=b""):
    """``(exit status, stdout text, stderr text)`` of ``spamfilter ARGV`` run in this process
    (:func:`textnb.cli.mailfilters.filter_main`), ``stdin`` its standard input."""
    import io

    from textnb.cli.mailfilters import filter_main

    out, err = io.BytesIO(), io.StringIO()
    code = filter_main([str(a) for a in argv], stdin=io.BytesIO(stdin), stdout=out, stderr=err)
    return code, out.getvalue().decode(), err.getvalue()


def run_topicfilter(argv):
    """``(exit status, stdout, stderr)`` of ``topicfilter ARGV`` run in this process."""
    import io

    from textnb.cli.topicfilter import topic_main

    out, err = io.StringIO(), io.StringIO()
    code = topic_main([str(a) for a in argv], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def big_tsv(path, rows=120_000):
    """Write a seeded ``label<TAB>text`` corpus of ``rows`` 20-word lines (3,000 words, two
    classes) at ``path``: enough for training to run a while with its workers (the stop-signal
    tests send their signals then). Returns ``path``."""
    import random

    rng = random.Random(0)
    words = [f"w{i}x" for i in range(3000)]
    with open(path, "w") as f:
        for i in range(rows):
            f.write(("spam" if i % 2 else "ham") + "\t" + " ".join(rng.choices(words, k=20)) + "\n")
    return path


@pytest.fixture()
def unwritable_folder(tmp_path):
    """A folder no file can be made in: mode 0555 for a user; for root (whom the mode does
    not stop) a read-only tmpfs mounted there, unmounted after the test (skips when it
    cannot be mounted)."""
    import subprocess

    folder = tmp_path / "unwritable"
    folder.mkdir()
    if os.geteuid() != 0:
        folder.chmod(0o555)
        yield folder
        folder.chmod(0o755)
        return
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k,ro", "tmpfs", str(folder)],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot mount a read-only file system here")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], capture_output=True)
