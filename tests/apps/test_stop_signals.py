"""A second stop signal while a program stops is the same request, in every entry point
(``spamfilter``: the cold path, ``-p``, ``--batch`` with its forked helpers, training,
registering, the ``--socket`` client; ``topicfilter``; ``textnb serve``): the one rule of
:func:`textnb.core.signals.stop_on_signals` (``textnb``'s own: tests/cli/test_program.py).

Each test runs the program in a child whose code sends the signals itself at set points
(the first one while the work is under way, the next ones while it stops and as the
interpreter exits), as a user pressing Ctrl-C twice would send them."""

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from textnb.apps.filtering import train_model

ROOT = Path(__file__).resolve().parents[2]
SPAM_WORDS = "viagra cheap offer winner prize casino pills discount".split()
HAM_WORDS = "meeting project schedule report review agenda budget minutes".split()

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX signals and forked helpers")


def _mail(words, rng, n=12):
    body = " ".join(rng.choice(words) for _ in range(n))
    return f"From: x@example.com\nSubject: {rng.choice(words)}\n\n{body}\n".encode()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    rng = random.Random(0)
    root = tmp_path_factory.mktemp("stops")
    for label, words in (("spam", SPAM_WORDS), ("ham", HAM_WORDS)):
        (root / label).mkdir()
        for i in range(130):  # (2 x 64 files or more of a kind: -j 2 forks a helper)
            (root / label / f"{i:03d}.eml").write_bytes(_mail(words, rng))
    model = root / "spam.tnb"
    train_model(model, [root / "spam"], [root / "ham"])
    return root, model


#: the head of each child: ``kill(SIG)`` sends a signal to itself; ``at_exit`` one more as the
#: interpreter exits (after the program's answer, before the process ends)
_HEAD = """
import atexit, os, signal, sys
def kill(name="SIGINT"):
    os.kill(os.getpid(), getattr(signal, name))
atexit.register(kill)
"""


def _run(code, argv, at_exit=True, **kw):
    env = dict(os.environ, PYTHONPATH=str(ROOT), OPENBLAS_NUM_THREADS="1")
    head = _HEAD if at_exit else _HEAD.replace("atexit.register(kill)", "")
    return subprocess.run([sys.executable, "-c", head + code, *map(str, argv)], capture_output=True, env=env,
                          timeout=120, **kw)


_SPAMFILTER = "from textnb.cli.mailcli import spamfilter\nsys.argv = ['spamfilter', *sys.argv[1:]]\n"

#: -p: the first signal while the model is loaded, a second one as the message is passed
#: through unchanged (it stopped the copy: the message was cut after its first bytes)
_PASSTHROUGH = _SPAMFILTER + """
from textnb.cli import mailfilters
load, copy_rest = mailfilters._load, mailfilters.copy_rest
def first(*args, **kwargs):
    kill(FIRST)
    return load(*args, **kwargs)
def second(*args, **kwargs):
    kill()
    return copy_rest(*args, **kwargs)
mailfilters._load, mailfilters.copy_rest = first, second
raise SystemExit(spamfilter())
"""


@pytest.mark.parametrize("first, status, line", [("SIGINT", 130, b"spamfilter: interrupted\n"),
                                                 ("SIGTERM", 3, b"spamfilter: terminated by signal 15\n")])
def test_spamfilter_p_passes_the_whole_message_through_a_second_ctrl_c(corpus, first, status, line):
    _, model = corpus
    message = b"From: a@b.example\nSubject: cheap\n\n" + b"viagra pills now " * 2000 + b"\nthe end\n"
    done = _run(f"FIRST = {first!r}\n" + _PASSTHROUGH, ["-m", model, "-p", "--max-bytes", "1k"], input=message)
    assert (done.returncode, done.stderr) == (status, line)
    assert done.stdout == message


#: the daemon client (``--socket``, no daemon needed): the first signal as the message is
#: sent, a second one as it is passed through
_CLIENT = """
from textnb.apps import spamclient
copy_rest = spamclient.copy_rest
def first(*args, **kwargs):
    kill()
    raise AssertionError("not interrupted")
def second(*args, **kwargs):
    kill()
    return copy_rest(*args, **kwargs)
spamclient.classify_message, spamclient.copy_rest = first, second
raise SystemExit(spamclient.main())
"""


def test_the_daemon_client_passes_the_whole_message_through_a_second_ctrl_c(tmp_path):
    message = b"From: a@b.example\nSubject: cheap\n\n" + b"viagra pills now " * 2000 + b"\nthe end\n"
    done = _run(_CLIENT, ["--socket", tmp_path / "none", "-p", "--max-bytes", "1k"], input=message)
    assert (done.returncode, done.stderr) == (130, b"spamfilter: interrupted\n")
    assert done.stdout == message


#: the forked helpers of --batch, training and registering (-j 2): the first Ctrl-C once the
#: first value came back, a second one as the helpers are reaped
_HELPERS = _SPAMFILTER + """
from textnb.core import forkmap
values, reap = forkmap._Shared.values, forkmap._reap
def first(self):
    for k, value in enumerate(values(self)):
        if k == 1:
            kill()
        yield value
def second(pid):
    kill()
    return reap(pid)
forkmap._Shared.values, forkmap._reap = first, second
raise SystemExit(spamfilter())
"""


@pytest.mark.parametrize("mode", ["batch", "train", "register"])
def test_spamfilter_helpers_a_second_ctrl_c_while_stopping_is_the_same_request(corpus, tmp_path, mode):
    root, model = corpus
    trained = tmp_path / "m.tnb"
    if mode == "register":
        trained.write_bytes(model.read_bytes())
    before = trained.read_bytes() if trained.exists() else None
    argv = {"batch": ["-m", model, "--batch", root / "spam", root / "ham"],
            "train": ["-m", trained, "--train-spam", root / "spam", "--train-ham", root / "ham"],
            "register": ["-m", trained, "--register-spam", root / "spam", root / "ham"]}[mode]
    done = _run(_HELPERS, [*argv, "-j", "2"])
    assert (done.returncode, done.stderr.decode()) == (130, "spamfilter: interrupted\n")
    assert (trained.read_bytes() if trained.exists() else None) == before
    assert not list(tmp_path.glob("*.tmp*"))


#: spamfilter sent a stop signal once its model file replaced the model: while the folder is
#: synced after the replace (``folder``), or while the journal's rewrite that follows a
#: registration is synced (``rewrite``)
_AFTER_THE_REPLACE = _SPAMFILTER + """
import stat
real_fsync, sent = os.fsync, []
def fsync(fd):
    name = os.readlink(f"/proc/self/fd/{fd}")
    at = stat.S_ISDIR(os.fstat(fd).st_mode) if WHERE == "folder" else ".learned" in name and name.endswith(".part")
    if at and not sent:
        sent.append(SIGNAL)
        kill(SIGNAL)
    return real_fsync(fd)
os.fsync = fsync
raise SystemExit(spamfilter())
"""


@pytest.mark.parametrize("mode, where, signal_name", [("register", "rewrite", "SIGTERM"),
                                                       ("register", "folder", "SIGTERM"),
                                                       ("register", "rewrite", "SIGHUP"),
                                                       ("train", "folder", "SIGTERM")])
def test_spamfilter_stopped_once_the_model_is_replaced_reports_the_update_done(corpus, tmp_path, mode, where,
                                                                              signal_name):
    """A user trial: a SIGTERM while ``--register-spam`` rewrote the journal after the new
    model file had replaced the model (a message registered a second time forces the
    rewrite) said ``spamfilter: terminated by signal 15``, exit 3, though the model counted
    the message: a mail system's retry counted it twice. So did one during the model's
    save after its replace (the folder's sync), and ``--train-*``'s. Once the model is
    replaced the stop signals are held to the end of the update and the run reports it
    done: exit 0, nothing said, the message counted once more."""
    import textnb

    root, _ = corpus
    model = tmp_path / "m.tnb"
    train_model(model, [root / "spam"], [root / "ham"])
    before = textnb.load(model).class_count_.tolist()
    if mode == "register":
        argv, said = ["-m", model, "--register-spam", root / "spam" / "000.eml"], b""
    else:
        argv, said = (["-m", model, "--train-spam", root / "spam", "--train-ham", root / "ham"],
                      f"spamfilter: trained {model} on 130 spam and 130 ham messages\n".encode())
    done = _run(f"WHERE, SIGNAL = {where!r}, {signal_name!r}\n" + _AFTER_THE_REPLACE, argv, at_exit=False)
    assert (done.returncode, done.stderr) == (0, said)
    after = textnb.load(model).class_count_.tolist()
    assert after == ([before[0], before[1] + 1] if mode == "register" else before)  # (ham, spam)
    assert not list(tmp_path.glob(".tmp*"))


#: topicfilter copying a document: the first Ctrl-C while its bytes are copied, a second as
#: the partial copy is being removed (it was left in OUT, half copied)
_TOPIC = """
import contextlib, shutil
from textnb.apps import filtering
from textnb.cli.mailcli import topicfilter
copy = shutil.copyfileobj
class Second:
    def suppress(*exceptions):
        kill()
        return contextlib.suppress(*exceptions)
def first(src, dst, *args):
    dst.write(src.read(10))
    kill()
    return copy(src, dst, *args)
filtering.shutil = type("Shutil", (), {"copyfileobj": staticmethod(first), "copystat": staticmethod(shutil.copystat)})
filtering.contextlib = Second
sys.argv = ["topicfilter", *sys.argv[1:]]
raise SystemExit(topicfilter())
"""


@pytest.fixture(scope="module")
def text_model(tmp_path_factory):
    from textnb.cli.commands import main

    root = tmp_path_factory.mktemp("topics")
    corpus = root / "c.tsv"
    corpus.write_text("".join(f"{'sport' if i % 2 else 'news'}\t{'ball goal match' if i % 2 else 'vote law tax'} "
                              f"w{i}\n" for i in range(40)))
    model = root / "t.tnb"
    assert main(["train", str(corpus), "-o", str(model)]) == 0
    return model


@pytest.mark.parametrize("move", [False, True])
def test_topicfilter_a_second_ctrl_c_leaves_no_half_copy(text_model, tmp_path, move):
    docs = tmp_path / "in"
    docs.mkdir()
    text = "ball goal match " * 500
    (tmp_path / "target.txt").write_text(text)
    doc = docs / "a.txt"
    if move:  # (a link is not renamed into OUT: its target's bytes are copied, then the link removed)
        doc.symlink_to(tmp_path / "target.txt")
    else:
        doc.write_text(text)
    out = tmp_path / "out"
    done = _run(_TOPIC, ["-m", text_model, "--uncalibrated", "-o", out, *(["--move"] if move else []), doc])
    assert (done.returncode, done.stderr.decode()) == (130, "topicfilter: interrupted\n")
    assert [p for p in out.rglob("*") if p.is_file()] == []  # no half copy in OUT
    assert doc.read_text() == text  # the document where it was


#: textnb serve: stopped by SIGTERM once it listens; then a Ctrl-C once the server stopped,
#: before the program exits (it was a second line, "textnb: interrupted", and status 130)
_SERVE = """
from textnb.apps import serve
run = serve.run
def stopped(server, *, ready=None, **kwargs):
    def listening(server):
        ready(server)
        kill("SIGTERM")
    signum = run(server, ready=listening, **kwargs)
    kill()
    return signum
serve.run = stopped
from textnb.cli.program import main
sys.argv = ["textnb", *sys.argv[1:]]
raise SystemExit(main())
"""


def test_textnb_serve_a_ctrl_c_after_the_stop_is_the_same_request(corpus, tmp_path):
    _, model = corpus
    done = _run(_SERVE, ["serve", model, "--socket", tmp_path / "s"])
    lines = done.stderr.decode().splitlines()
    assert (done.returncode, len(lines), lines[-1]) == (0, 2, "textnb serve: stopped (signal 15)"), lines
    assert not (tmp_path / "s").exists()


#: the caller ignores SIGHUP (nohup); one arrives while the model is loaded
_NOHUP = _SPAMFILTER + """
signal.signal(signal.SIGHUP, signal.SIG_IGN)
from textnb.cli import mailfilters
load = mailfilters._load
def hangup(*args, **kwargs):
    kill("SIGHUP")
    return load(*args, **kwargs)
mailfilters._load = hangup
raise SystemExit(spamfilter())
"""


def test_a_signal_the_caller_ignores_stays_ignored(corpus):
    """Under ``nohup`` a hangup was answered anyway (the mail tools put their handler in place
    of the ignored SIGHUP): ``terminated by signal 1``, exit 3, no verdict. Now it stays
    ignored, as ``textnb`` leaves it (textnb.core.signals.stop_on_signals)."""
    _, model = corpus
    message = b"From: a@b.example\nSubject: cheap\n\nviagra pills casino prize\n"
    done = _run(_NOHUP, ["-m", model], at_exit=False, input=message)
    assert (done.returncode, done.stderr) == (0, b"")  # the verdict: spam
