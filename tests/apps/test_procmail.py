"""A real mail delivery agent: procmail pipes each message through `spamfilter -p` (cold,
and through the daemon with the Python and the compiled client) into mbox and Maildir
folders (the recipe of docs/spam.md)."""

import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from textnb.apps.filtering import train_model
from textnb.apps.serve import Server

REPO = Path(__file__).resolve().parents[2]
SPAMFILTER = REPO / "scripts" / "spamfilter"
SPAM_WORDS = "viagra cheap offer winner prize casino pills discount".split()
HAM_WORDS = "meeting project schedule report review agenda budget minutes".split()


def _procmail():
    exe = shutil.which("procmail")
    if exe is None:
        pytest.skip("procmail is not installed (apt-get install procmail)")
    try:
        r = subprocess.run([exe, "-v"], capture_output=True, timeout=30)
    except OSError as exc:
        pytest.skip(f"procmail cannot run: {exc}")
    if b"procmail" not in (r.stdout + r.stderr).lower():
        pytest.skip("procmail cannot run")
    return exe


def message(words, rng, i):
    body = " ".join(rng.choice(words) for _ in range(15))
    return (f"From: sender{i}@example.com\nTo: me@example.org\nSubject: {rng.choice(words)} {i}\n"
            f"Message-ID: <{i}@example.com>\n\n{body}\n\xe9t\xe9 \x00 tab\there\n").encode("latin-1")


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    rng = random.Random(0)
    root = tmp_path_factory.mktemp("pm")
    for label, words in (("spam", SPAM_WORDS), ("ham", HAM_WORDS)):
        (root / label).mkdir()
        for i in range(25):
            (root / label / f"{i}.eml").write_bytes(message(words, rng, i))
    path = root / "spam.tnb"
    train_model(path, [root / "spam"], [root / "ham"])
    return path


RECIPE = """\
SHELL=/bin/sh
MAILDIR={maildir}
DEFAULT={inbox}
LOGFILE={maildir}/procmail.log
PYTHONPATH={pythonpath}

# the filter adds X-TextNB-* headers; if it fails, procmail delivers the message unchanged
:0 fw
| {command} -p -e {how}

:0{lock}
* ^X-TextNB-Class: spam
{spam}
"""


def body(data):
    return data.split(b"\n\n", 1)[1]


def delivered(path):
    """The messages in a Maildir (new/) or an mbox file, as bytes."""
    if os.path.isdir(path):
        return [Path(path, "new", n).read_bytes() for n in sorted(os.listdir(os.path.join(path, "new")))]
    if not os.path.exists(path):
        return []
    out = []
    for chunk in Path(path).read_bytes().split(b"\n\nFrom ")[0:]:
        lines = chunk.split(b"\n", 1)
        out.append(lines[1].rstrip(b"\n") + b"\n")
    return out


LAYOUTS = {"maildir inbox, mbox spam": ("inbox/", "spam.mbox", ":"),
           "mbox inbox, maildir spam": ("inbox.mbox", "spam/", "")}


@pytest.mark.slow
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("mode", ["cold", "daemon", "daemon-compiled-client"])
def test_procmail_delivers_through_spamfilter(model, tmp_path, layout, mode, request):
    exe = _procmail()
    # the compiled client is what `pip install .` installs as spamfilter when a C compiler works
    command = request.getfixturevalue("spamfilter_c") if mode == "daemon-compiled-client" \
        else f"{sys.executable} {SPAMFILTER}"
    inbox, spam, lock = LAYOUTS[layout]
    maildir = tmp_path / "mail"
    maildir.mkdir()
    sock_dir = Path(tempfile.mkdtemp(prefix="tnbp"))
    sock = sock_dir / "s"
    how = f"--model {model}" if mode == "cold" else f"--socket {sock}"
    rc = tmp_path / "procmailrc"

    def write_rc(how):
        rc.write_text(RECIPE.format(maildir=maildir, inbox=maildir / inbox, pythonpath=REPO, command=command,
                                    how=how, lock=lock, spam=maildir / spam))
        rc.chmod(0o600)

    def deliver(msg):
        # -f: the envelope sender, as an MTA passes it (procmail then writes the mbox From_ line)
        r = subprocess.run([exe, "-f", "sender@example.com", "-m", str(rc)], input=msg, capture_output=True, timeout=300)
        assert r.returncode == 0, r.stderr

    rng = random.Random(1)
    spam_msgs = [message(SPAM_WORDS, rng, 100 + i) for i in range(2)]
    ham_msgs = [message(HAM_WORDS, rng, 200 + i) for i in range(2)]
    server = Server(model, socket_path=sock).start() if mode != "cold" else None
    try:
        write_rc(how)
        for m in spam_msgs + ham_msgs:
            deliver(m)
    finally:
        if server is not None:
            server.stop()
    got_spam, got_ham = delivered(maildir / spam), delivered(maildir / inbox)
    assert len(got_spam) == 2 and len(got_ham) == 2, (maildir / "procmail.log").read_text("latin-1")
    def by_id(msgs):
        return sorted(msgs, key=lambda m: m[m.index(b"Message-ID:"):].split(b"\n", 1)[0])

    for got, sent, label in [(g, s, "spam") for g, s in zip(by_id(got_spam), by_id(spam_msgs))] + \
                            [(g, s, "ham") for g, s in zip(by_id(got_ham), by_id(ham_msgs))]:
        head = got.split(b"\n\n", 1)[0]
        assert f"\nX-TextNB-Class: {label}\n".encode() in head
        assert b"\nX-TextNB-Score: " in head and b"\nX-TextNB-Log-Odds: " in head
        assert body(got) == body(sent)  # byte for byte
        assert head.startswith(sent.split(b"\n\n", 1)[0])

    # the filter fails (cold: no model; daemon: nobody listening): delivered unchanged to the inbox
    failing = "--model /nonexistent/spam.tnb" if mode == "cold" else f"--socket {sock}"
    assert not sock.exists()
    write_rc(failing)
    before = len(delivered(maildir / inbox))
    deliver(spam_msgs[0])
    after = delivered(maildir / inbox)
    assert len(after) == before + 1 and after[-1] == spam_msgs[0]
    assert len(delivered(maildir / spam)) == 2
    shutil.rmtree(sock_dir, ignore_errors=True)
