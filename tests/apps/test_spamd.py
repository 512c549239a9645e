"""The spamd protocol of `textnb serve` (textnb.apps.spamd): Debian's spamc as the client,
raw requests for the errors, per-user models, learning through TELL."""

import errno
import io
import os
import random
import shutil
import socket
import stat
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest

from textnb.apps import protocol
from textnb.apps.filtering import add_headers, update_model
from textnb.apps.serve import Server
from textnb.apps.spamclient import client_main
from textnb.apps import filtering, spamd
from textnb.apps.filtering import digest_key, listed, message_digest
from textnb.apps.spamd import check_user_name, parse_address, shown_user, tell
from textnb.apps.verdict import spamd_fields
from textnb.cli.mailfilters import filter_main
from textnb.core.errors import InputError, TextnbError
from textnb.core.model_io import load

from test_serve import HAM_WORDS, SPAM_WORDS, mail_bytes, make_spam_model
from test_serve import raw_request as raw
from test_serve import trickle

SPAMC = shutil.which("spamc")
needs_spamc = pytest.mark.skipif(SPAMC is None, reason="spamc is not installed (apt-get install spamc)")


@pytest.fixture(scope="module")
def spam_model(tmp_path_factory):
    return make_spam_model(tmp_path_factory.mktemp("spamd"))


@pytest.fixture()
def sock_dir():
    d = tempfile.mkdtemp(prefix="tnbd")
    yield Path(d)
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture()
def model_copy(spam_model, sock_dir):
    """A private copy of the spam model (learning writes to it)."""
    path = sock_dir / "m.tnb"
    shutil.copyfile(spam_model, path)
    return path


def cold(argv, stdin):
    out, err = io.BytesIO(), io.StringIO()
    code = filter_main(argv, stdin=io.BytesIO(stdin), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def cold_verdict(model, msg):
    """The cold spamfilter's verdict (label, log-odds) from its X-TextNB headers."""
    code, out, _ = cold(["-m", str(model), "-p"], msg)
    fields = dict(line.split(": ", 1) for line in out.decode("latin-1").splitlines() if line.startswith("X-TextNB-"))
    return code, fields["X-TextNB-Class"], float(fields["X-TextNB-Score"]), out


def spamc(port, args, msg, timeout=60):
    return subprocess.run([SPAMC, "-d", "127.0.0.1", "-p", str(port)] + args, input=msg, capture_output=True,
                          timeout=timeout)


def request(method, msg=b"", headers=(), version="1.5"):
    lines = [f"{method} SPAMC/{version}"] + [f"{k}: {v}" for k, v in headers]
    if msg is not None:
        lines.append(f"Content-length: {len(msg)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + (msg or b"")


def counts(path):
    m = load(path)
    return np.asarray(m.feature_count_).copy(), np.asarray(m.class_count_).copy(), list(m.vocabulary_)


def messages(seed=3):
    rng = random.Random(seed)
    return mail_bytes(SPAM_WORDS, rng), mail_bytes(HAM_WORDS, rng)


# -- spamc against the daemon ---------------------------------------------------------------
@needs_spamc
def test_spamc_check_exit_code_and_score(spam_model):
    spam, ham = messages()
    unsure = b"Subject: cheap meeting\n\nviagra agenda\n"
    with Server(spam_model, spamd=("127.0.0.1", 0)) as srv:
        port = srv.spamd_address[1]
        for msg in (spam, ham, unsure):
            code, label, log_odds, _ = cold_verdict(spam_model, msg)
            r = spamc(port, ["-c"], msg)
            is_spam = label == "spam"
            assert (code == 0) == is_spam  # the cold command's exit code: 0 = spam
            assert r.returncode == (1 if is_spam else 0), (label, r)
            score, threshold = r.stdout.decode().strip().split("/")
            assert threshold == "5.0"
            from textnb.apps.spamlite import Verdict
            want = spamd_fields(Verdict(label, 0.5, log_odds))
            assert (is_spam, score) == want[:2]
            assert (float(score) >= 5.0) == is_spam


@needs_spamc
def test_spamc_process_adds_the_headers_and_keeps_the_body(spam_model):
    spam, ham = messages(4)
    crlf = spam.replace(b"\n", b"\r\n") + b"\r\n-- \r\nsig\xff\r\n"
    with Server(spam_model, spamd=("127.0.0.1", 0)) as srv:
        port = srv.spamd_address[1]
        for msg in (spam, ham, crlf):
            _, _, _, cold_out = cold_verdict(spam_model, msg)
            r = spamc(port, [], msg)
            assert r.returncode == 0
            assert r.stdout == cold_out  # the cold `spamfilter -p`, byte for byte
            body = msg.split(b"\r\n\r\n" if b"\r\n\r\n" in msg else b"\n\n", 1)[1]
            assert r.stdout.endswith(body)
            assert b"X-TextNB-Class: " in r.stdout


def test_process_headers_and_the_socket_place_the_fields_as_cold_p_in_a_header_over_max_bytes(spam_model, sock_dir):
    """A header longer than ``--max-bytes`` (10 MiB by default; 2,000 bytes here): cold
    ``spamfilter -p`` reads the first ``max_bytes``, puts the fields before the last field
    read and copies the rest; spamd's PROCESS and HEADERS put them at the end of the whole
    header (the message past the cut was read to find its end), elsewhere than docs/spam.md
    says. Now all go through ``add_headers(data, verdict, max_bytes)``: the same bytes from
    the cold command, ``spamfilter --socket -p`` (which sends the first ``max_bytes``), a
    socket request holding the whole message, PROCESS and HEADERS."""
    n = 2000
    spam, _ = messages(24)
    fields = b"".join(b"X-Relay-%d: hop %d of a long trail of relays\n" % (i, i) for i in range(100))
    msg = spam.replace(b"\n\n", b"\n" + fields + b"\n", 1)
    assert msg.index(b"\n\n") > 2 * n
    code, want, _ = cold(["-m", str(spam_model), "-p", "--max-bytes", str(n)], msg)
    assert code == 0 and want.count(b"X-TextNB-Class: spam") == 1
    assert want.index(b"X-TextNB-Class") < n < msg.index(b"\n\n")  # (before the last field read)
    assert filtering.remove_headers(want) == msg
    sock = sock_dir / "s"
    with Server(spam_model, socket_path=sock, spamd=("127.0.0.1", 0)) as srv:
        srv.mail_options = {"max_bytes": n}  # (the library's setting of the spamd cut: the CLI has the default's)
        out = io.BytesIO()
        assert client_main(["--socket", str(sock), "-p", "--max-bytes", str(n)], stdin=io.BytesIO(msg), stdout=out,
                           stderr=io.StringIO()) == 0
        assert out.getvalue() == want  # the daemon's own client
        reply = raw(str(sock), b"SPAM %d max_bytes=%d headers=1\n" % (len(msg), n) + msg)  # a client sending it all
        line, _, head = reply.partition(b"\n")
        assert line.startswith(b"OK 0 spam ") and head == want
        a = srv.spamd_address
        for method, expected in (("PROCESS", want), ("HEADERS", want[:want.index(b"\n\n") + 2])):
            out = raw(a, request(method, msg))
            status, _, body = out.partition(b"\r\n\r\n")
            assert status.startswith(b"SPAMD/1.1 0 EX_OK") and body == expected, method


@needs_spamc
def test_spamc_report_and_symbols(spam_model):
    spam, ham = messages(5)
    with Server(spam_model, spamd=("127.0.0.1", 0)) as srv:
        port = srv.spamd_address[1]
        r = spamc(port, ["-R"], spam)
        lines = r.stdout.decode().splitlines()
        assert r.returncode == 0 and float(lines[0].split("/")[0]) >= 5.0
        assert "Content analysis details" in lines[1] and "TEXTNB_SPAM" in r.stdout.decode()
        assert spamc(port, ["-y"], ham).stdout == b"TEXTNB_HAM"
        assert spamc(port, ["-r"], ham).stdout == b""  # REPORT_IFSPAM: nothing for ham
        assert b"TEXTNB_SPAM" in spamc(port, ["-r"], spam).stdout
        assert spamc(port, ["-K"], b"").returncode == 0


@needs_spamc
def test_spamc_learn_and_forget_change_the_model_exactly(model_copy, sock_dir):
    spam, ham = messages(6)
    before = counts(model_copy)
    reference = sock_dir / "ref.tnb"
    shutil.copyfile(model_copy, reference)
    with Server(model_copy, spamd=("127.0.0.1", 0), allow_tell=True) as srv:
        port = srv.spamd_address[1]
        r = spamc(port, ["-L", "spam"], ham)
        assert (r.returncode, r.stdout) == (0, b"Message successfully un/learned\n")
        update_model(reference, register=[("spam", ham)])
        after = counts(model_copy)
        assert all(np.array_equal(a, b) for a, b in zip(after[:2], counts(reference)[:2]))
        assert after[2] == counts(reference)[2]
        # the same message again: nothing to do (as SpamAssassin's Bayes)
        assert spamc(port, ["-L", "spam"], ham).stdout == b"Message was already un/learned\n"
        # as the other class: moved (unregistered as spam, registered as ham)
        assert spamc(port, ["-L", "ham"], ham).stdout == b"Message successfully un/learned\n"
        update_model(reference, unregister=[("spam", ham)], register=[("ham", ham)])
        assert np.array_equal(counts(model_copy)[0], counts(reference)[0])
        # forget sends no class: the journal knows it was learned as ham
        assert spamc(port, ["-L", "forget"], ham).stdout == b"Message successfully un/learned\n"
        got = counts(model_copy)
        assert np.array_equal(got[1], before[1])
        assert spamc(port, ["-L", "forget"], ham).stdout == b"Message was already un/learned\n"
        # the daemon serves the model it learned into
        _, label, _, _ = cold_verdict(model_copy, spam)
        assert spamc(port, ["-c"], spam).returncode == (1 if label == "spam" else 0)


def test_journal_appends_a_line_per_tell_and_is_rewritten_when_superseded_lines_pile_up(model_copy, monkeypatch):
    monkeypatch.setattr(filtering, "JOURNAL_SLACK", 4)
    journal = Path(str(os.path.realpath(model_copy)) + ".learned")
    spam, ham = messages(11)
    assert tell(model_copy, spam, set_class="spam") and tell(model_copy, ham, set_class="ham")
    assert [line.rsplit(" ", 1)[0] for line in journal.read_text().splitlines()] == [
        f"{message_digest(spam)} spam", f"{message_digest(ham)} ham"]
    assert not tell(model_copy, spam, set_class="spam")  # already learned: nothing written
    assert len(journal.read_text().splitlines()) == 2
    reference = counts(model_copy)
    for _ in range(5):  # moved back and forth: superseded lines are dropped by a rewrite
        assert tell(model_copy, ham, set_class="spam") and tell(model_copy, ham, set_class="ham")
        assert len(journal.read_text().splitlines()) <= 2 * 2 + 4
    assert np.array_equal(counts(model_copy)[0], reference[0])
    assert spamd._read_journal(journal)[0] == {message_digest(spam): "spam", message_digest(ham): "ham"}
    assert tell(model_copy, spam, remove=True)  # a forget appends "-" (or the rewrite leaves the message out)
    assert spamd._read_journal(journal)[0] == {message_digest(ham): "ham"}
    assert not tell(model_copy, spam, remove=True)
    # a line cut short by a crash is skipped and does not swallow the next one
    with open(journal, "ab") as f:
        f.write(b"0123abc")
    assert tell(model_copy, spam, set_class="spam")
    assert spamd._read_journal(journal)[0] == {message_digest(spam): "spam", message_digest(ham): "ham"}


def test_a_tell_whose_journal_rewrite_fails_after_the_model_is_replaced_is_done_with_a_warning(model_copy,
                                                                                                monkeypatch):
    """The TELL twin of ``spamfilter --register-*``'s (test_filtering): a journal rewrite
    that failed after the model was replaced (a full disk) refused the TELL, though the
    model had learned the message. The TELL is done (True), the failure goes to
    ``on_warning``, and the journal, its line appended, lists the message."""
    import errno

    monkeypatch.setattr(filtering, "JOURNAL_SLACK", -10**6)  # (every TELL rewrites the journal)
    spam, _ = messages(13)
    before = counts(model_copy)[1]
    real_fsync = os.fsync

    def fsync(fd):
        if os.readlink(f"/proc/self/fd/{fd}").endswith(".part") and ".learned" in os.readlink(f"/proc/self/fd/{fd}"):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    said = []
    assert tell(model_copy, spam, set_class="spam", on_warning=said.append)
    assert said == [f"{model_copy}: updated, and recorded in its journal; rewriting the journal without its "
                    f"superseded lines failed ({model_copy}.learned: No space left on device): they are kept"]
    assert counts(model_copy)[1].sum() == before.sum() + 1
    journal = filtering.journal_path(model_copy)
    assert spamd._read_journal(journal, filtering.model_identity(model_copy))[0] == {message_digest(spam): "spam"}
    assert not tell(model_copy, spam, set_class="spam")  # (learned: a retry changes nothing)


def test_journal_that_is_not_a_regular_file_is_never_written_through(model_copy, tmp_path):
    journal = Path(str(os.path.realpath(model_copy)) + ".learned")
    target = tmp_path / "elsewhere"
    target.write_bytes(b"")
    journal.symlink_to(target)
    spam, _ = messages(12)
    before = model_copy.read_bytes()
    with pytest.raises(OSError):
        tell(model_copy, spam, set_class="spam")
    assert target.read_bytes() == b"" and journal.is_symlink()
    assert model_copy.read_bytes() == before  # refused before the model was changed


@needs_spamc
def test_spamc_learning_refused_without_allow_tell(model_copy):
    spam, _ = messages(7)
    before = model_copy.read_bytes()
    with Server(model_copy, spamd=("127.0.0.1", 0)) as srv:
        r = spamc(srv.spamd_address[1], ["-L", "spam"], spam)
        assert r.returncode != 0
    assert model_copy.read_bytes() == before


@needs_spamc
def test_spamc_when_the_daemon_is_down():
    spam, _ = messages(8)
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    quick = ["--connect-retries", "1"]
    r = spamc(port, quick, spam)
    assert (r.returncode, r.stdout) == (0, spam)  # passes the message unchanged
    r = spamc(port, quick + ["-c"], spam)
    assert r.returncode == 0 and r.stdout == b"0/0\n"
    r = spamc(port, quick + ["-x"], spam)  # -x: an error instead (the MTA tempfails)
    assert r.returncode == 69 and r.stdout == b""  # EX_UNAVAILABLE


@needs_spamc
def test_spamc_over_a_unix_socket_created_private(spam_model, sock_dir):
    path = sock_dir / "spamd.sock"
    spam, _ = messages(9)
    with Server(spam_model, spamd=str(path)) as srv:
        assert srv.spamd_address == str(path)
        assert stat.S_IMODE(os.lstat(path).st_mode) == 0o600
        r = subprocess.run([SPAMC, "-U", str(path), "-c"], input=spam, capture_output=True, timeout=60)
        assert r.returncode == 1
    assert not os.path.lexists(path)


# -- the protocol itself (no spamc needed) ------------------------------------------------------
def test_raw_methods(spam_model):
    spam, ham = messages(10)
    with Server(spam_model, spamd=("127.0.0.1", 0)) as srv:
        a = srv.spamd_address
        assert raw(a, b"PING SPAMC/1.5\r\n\r\n") == b"SPAMD/1.5 0 PONG\r\n"
        with socket.create_connection(a, timeout=30) as s:  # before 1.5: no header block after PING
            s.sendall(b"PING SPAMC/1.2\r\n")
            assert s.recv(100) == b"SPAMD/1.5 0 PONG\r\n"
        assert raw(a, b"SKIP SPAMC/1.5\r\n\r\n") == b""
        out = raw(a, request("CHECK", spam))
        assert out.startswith(b"SPAMD/1.1 0 EX_OK\r\nSpam: True ; ") and out.endswith(b" / 5.0\r\n\r\n")
        out = raw(a, request("HEADERS", ham))
        head = add_headers(ham, cold_verdict_obj(spam_model, ham)).split(b"\n\n")[0] + b"\n\n"
        assert out.endswith(b"\r\n\r\n" + head)
        assert b"Spam: No ; " in raw(a, request("REPORT_IFSPAM", ham))
        # protocol 1.2: PROCESS without the Spam header
        out = raw(a, request("PROCESS", ham, version="1.2"))
        assert out.startswith(b"SPAMD/1.1 0 EX_OK\r\nContent-length: ") and b"Spam:" not in out.split(b"\r\n\r\n")[0]
        # a message without Content-length is read to the end, as spamd does
        assert raw(a, b"CHECK SPAMC/1.5\r\nUser: x\r\n\r\n" + spam).startswith(b"SPAMD/1.1 0 EX_OK\r\nSpam: True")
        # bare-CR line ends and a From line: the fields at the end of the header, not after the body
        mac = b"From a@b Mon Jan  1 00:00:00 2024\r" + ham.replace(b"\n", b"\r")
        out = raw(a, request("PROCESS", mac)).split(b"\r\n\r\n", 1)[1]
        assert out == add_headers(mac, cold_verdict_obj(spam_model, mac))
        head, body = out.split(b"\r\r", 1)
        assert b"\rX-TextNB-Class: ham\r" in head and body == ham.split(b"\n\n", 1)[1].replace(b"\n", b"\r")


def cold_verdict_obj(model, msg):
    from textnb.apps.verdict import message_verdict

    return message_verdict(load(model), msg)


@pytest.mark.slow
@pytest.mark.parametrize("data,status", [
    (b"HELLO SPAMC/1.5\r\n\r\n", 76),
    (b"CHECK SPAMD/1.5\r\n\r\n", 76),
    (b"CHECK SPAMC/x\r\n\r\n", 76),
    (b"CHECK SPAMC/1.5\r\nno colon here\r\n\r\n", 76),
    (b"CHECK SPAMC/1.5\r\nContent-length: 12a\r\n\r\n", 76),
    (b"CHECK SPAMC/1.5\r\nContent-length: 500\r\n\r\nshort", 76),
    (b"CHECK SPAMC/1.5\r\nCompress: zlib\r\n\r\n", 76),
    (b"TELL SPAMC/1.5\r\nMessage-class: eggs\r\nSet: local\r\n\r\n", 76),
    (b"CHECK SPAMC/1.5\r\n" + b"X: y\r\n" * 300 + b"\r\n", 76),
    (b"CHECK SPAMC/1.5\r\n" + b"X" * 10000 + b"\r\n\r\n", 76),
    (b"CHECK SPAMC/1.5\r\nContent-length: 99999999\r\n\r\n", 65),
    (b"CHECK SPAMC/1.5\r\nContent-length: 2\r\n\r\n\r\n", 65),  # an empty message
    (b"TELL SPAMC/1.5\r\nMessage-class: spam\r\nSet: local\r\nContent-length: 3\r\n\r\nabc", 69),
    (b"CHECK SPAMC/1.5\r\nUser: ../etc\r\nContent-length: 3\r\n\r\nabc", 0),  # no --user-models: ignored
    (b"", 76),
])
def test_malformed_requests_get_the_protocols_error_and_the_daemon_goes_on(spam_model, data, status):
    spam, _ = messages(11)
    with Server(spam_model, spamd=("127.0.0.1", 0), max_request=100_000) as srv:
        a = srv.spamd_address
        out = raw(a, data)
        version, number, _ = protocol.parse_spamd_status(out.split(b"\r\n")[0] + b"\r\n")
        assert number == status, out
        if status:
            assert out.count(b"\r\n") == 1 and version == "1.0"
        assert raw(a, request("CHECK", spam)).startswith(b"SPAMD/1.1 0 EX_OK")


def test_idle_spamd_client_times_out(spam_model):
    with Server(spam_model, spamd=("127.0.0.1", 0), timeout=0.5) as srv:
        with socket.create_connection(srv.spamd_address, timeout=30) as s:
            s.sendall(b"CHECK SPAMC/1.5\r\n")
            out = s.recv(1000)
        assert out.startswith(b"SPAMD/1.0 79 Timeout")


@pytest.mark.slow  # (it waits out the request deadline)
def test_a_trickling_spamd_client_is_cut_off_at_the_request_deadline(spam_model, sock_dir):
    """--timeout is a deadline for the whole request (request line, headers, body), not for
    each read: a client sending a byte every 0.2 s gets EX_TIMEOUT and the connection is
    closed at about the 0.5 s timeout (the bound checked is 10x that), over TCP and a Unix
    socket; a large message sent at once is answered."""
    spam, _ = messages(11)
    big = mail_bytes(SPAM_WORDS, random.Random(3), 400_000)
    for where in (("127.0.0.1", 0), str(sock_dir / "spamd.sock")):
        with Server(spam_model, spamd=where, timeout=0.5) as srv:
            out, took = trickle(srv.spamd_address, request("CHECK", spam))
            assert out.startswith(b"SPAMD/1.0 79 Timeout") and out.count(b"\r\n") == 1 and took < 5, out
            out = raw(srv.spamd_address, request("CHECK", big))
            assert out.startswith(b"SPAMD/1.1 0 EX_OK") and b"Spam: True" in out, out


def test_parse_address_and_user_names():
    assert parse_address("783") == ("tcp", ("127.0.0.1", 783))
    assert parse_address("0.0.0.0:10783") == ("tcp", ("0.0.0.0", 10783))
    assert parse_address("./s.sock") == ("unix", "./s.sock")
    with pytest.raises(InputError):
        parse_address("nonsense")
    for bad in ("", "..", ".x", "a/b", "a\\b", "a\0b", "x" * 300):
        with pytest.raises(InputError):
            check_user_name(bad)
    assert check_user_name("bob@example.com") == "bob@example.com"


def test_digest_ignores_the_headers_textnb_added_and_the_line_ends():
    msg = b"Subject: hi\n\nbody\n"
    from textnb.apps.spamlite import Verdict

    assert message_digest(add_headers(msg, Verdict("spam", 0.9, 2.0))) == message_digest(msg)
    assert message_digest(msg.replace(b"\n", b"\r\n")) == message_digest(msg)
    # a bare-CR copy (old Mac line ends) is the same message, as the mail reader reads it
    assert message_digest(msg.replace(b"\n", b"\r")) == message_digest(msg)
    assert message_digest(add_headers(msg.replace(b"\n", b"\r"), Verdict("ham", 0.1, -2.0))) == message_digest(msg)
    assert message_digest(b"Subject: hi\n\nbody!\n") != message_digest(msg)


def test_digest_reads_the_message_whatever_mailbox_it_was_saved_in():
    """Found by a user trial: a message registered as its mbox held it (its From line, a
    quoted >From line) was 'never registered' when unregistered as a mail client saves it
    (and counted twice when registered again), through spamfilter and spamc -L alike. The
    digest drops the From lines and unquotes >From, as the mbox reader reads the message;
    a stray CR of LF text stays a character (the reader's rule). A journal written before
    still finds its messages (digest_key, listed)."""
    msg = b"From: a@example.com\nSubject: cheap pills\n\nbuy now\n\nFrom here on, prices rise\n"
    in_mbox = b"From a@example.com Mon Jan  1 00:00:00 2024\n" + msg.replace(b"\nFrom here", b"\n>From here")
    assert message_digest(in_mbox) == message_digest(msg)
    assert message_digest(msg.replace(b"\nFrom here", b"\n>>From here")) == message_digest(msg)
    assert message_digest(msg.replace(b"buy now", b"buy\rnow")) != message_digest(msg.replace(b"buy now", b"buy\nnow"))
    key = digest_key(in_mbox)
    new, earlier = key.split(" ")
    assert new == message_digest(in_mbox) and digest_key(msg) == message_digest(msg)
    assert listed({earlier: "spam"}, key) == (earlier, "spam")  # a journal of the earlier digests
    assert listed({new: "ham", earlier: "spam"}, key) == (new, "ham")
    assert listed({}, key) == (new, None)


def test_a_message_registered_from_its_mbox_is_unregistered_as_saved(tmp_path):
    from textnb.apps.filtering import Mailboxes, update_model

    spam = b"From: a@example.com\nSubject: cheap pills\n\nbuy cheap pills now\nFrom here on, prices rise\n"
    ham = b"From: b@example.com\nSubject: lunch\n\nlunch at noon?\n"
    other = b"Subject: other\n\nwin a prize\n"
    mbox = tmp_path / "in.mbox"
    mbox.write_bytes(b"From x@y Mon Jan  1 00:00:00 2024\n" + spam.replace(b"\nFrom here", b"\n>From here")
                     + b"\nFrom x@y Mon Jan  1 00:00:01 2024\n" + other)
    model, without = tmp_path / "m.tnb", tmp_path / "w.tnb"
    update_model(model, register=[("ham", ham)])
    update_model(model, register=Mailboxes([("spam", [mbox])]))
    update_model(model, unregister=[("spam", spam)])  # as a mail client saves it: listed, forgotten
    update_model(without, register=[("ham", ham), ("spam", other)])
    from textnb import load

    learned, expected = load(model), load(without)
    assert sorted(learned.vocabulary_) == sorted(expected.vocabulary_)
    assert learned.class_count_.tolist() == expected.class_count_.tolist()
    with pytest.raises(InputError, match="never registered"):
        update_model(model, unregister=[("spam", spam)])


# -- per-user models ---------------------------------------------------------------------------
def _user_setup(spam_model, sock_dir):
    users = sock_dir / "users"
    users.mkdir()
    shutil.copyfile(spam_model, users / "bob.tnb")
    return users


def test_user_models_select_fall_back_or_refuse(spam_model, sock_dir):
    users = _user_setup(spam_model, sock_dir)
    # bob's model learns the spam words as ham: his verdicts differ from the served model's
    spam, _ = messages(12)
    rng = random.Random(1)
    update_model(users / "bob.tnb", register=[("ham", mail_bytes(SPAM_WORDS, rng)) for _ in range(200)])
    for policy, alice_status in (("fallback", 0), ("refuse", 67)):
        with Server(spam_model, spamd=("127.0.0.1", 0), user_models=str(users / "%u.tnb"),
                    unknown_user=policy) as srv:
            a = srv.spamd_address
            bob = raw(a, request("CHECK", spam, [("User", "bob")]))
            assert bob.startswith(b"SPAMD/1.1 0 EX_OK\r\nSpam: False"), bob
            alice = raw(a, request("CHECK", spam, [("User", "alice")]))
            assert protocol.parse_spamd_status(alice.split(b"\r\n")[0])[1] == alice_status
            if alice_status == 0:
                assert b"Spam: True" in alice
            for bad in ("../bob", "a/b", ".bob"):
                out = raw(a, request("CHECK", spam, [("User", bad)]))
                assert out.startswith(b"SPAMD/1.0 67 "), out
            # no User header: the served model
            assert b"Spam: True" in raw(a, request("CHECK", spam))


def test_user_learning_changes_only_that_users_model_and_is_reloaded(spam_model, sock_dir):
    users = _user_setup(spam_model, sock_dir)
    served = sock_dir / "served.tnb"
    shutil.copyfile(spam_model, served)
    served_bytes, bob_before = served.read_bytes(), counts(users / "bob.tnb")
    spam, ham = messages(13)
    tell = [("Message-class", "ham"), ("Set", "local")]
    with Server(served, spamd=("127.0.0.1", 0), user_models=str(users / "%u.tnb"), allow_tell=True) as srv:
        a = srv.spamd_address
        for _ in range(3):  # warm: bob's model is loaded
            raw(a, request("CHECK", spam, [("User", "bob")]))
        for i in range(3):
            msg = mail_bytes(SPAM_WORDS, random.Random(100 + i))
            out = raw(a, request("TELL", msg, tell + [("User", "bob")]))
            assert b"DidSet: local" in out, out
        bob_after = counts(users / "bob.tnb")
        assert list(bob_after[1]) == [bob_before[1][0] + 3, bob_before[1][1]]  # three more ham
        assert served.read_bytes() == served_bytes  # the served model is untouched
        # the daemon reloaded bob's replaced file: it answers with what he taught it
        raw(a, request("CHECK", spam, [("User", "bob")]))
        assert list(srv.user_models.holder("bob").get().class_count_) == list(bob_after[1])
        assert b"Spam: True" in raw(a, request("CHECK", spam, [("User", "carol")]))
        # a user without a model learns into a copy of the served model
        out = raw(a, request("TELL", ham, [("Message-class", "spam"), ("Set", "local"), ("User", "carol")]))
        assert b"DidSet: local" in out
        assert (users / "carol.tnb").exists() and served.read_bytes() == served_bytes
        assert counts(users / "carol.tnb")[1].sum() == counts(served)[1].sum() + 1


# -- spamfilter -p never loses the message (issue 30.3) ------------------------------------------
@pytest.mark.parametrize("mode", [["--register-spam"], ["--register-ham", "-"], ["--unregister-spam"], "train"])
def test_spamfilter_p_passes_the_message_through_when_learning(model_copy, sock_dir, mode):
    spam, ham = messages(20)
    msg = spam + b"\n" + b"x" * 100_000 + b"\n"  # longer than --max-bytes below: the rest passes too
    if mode == "train":
        (sock_dir / "s").mkdir()
        (sock_dir / "h").mkdir()
        (sock_dir / "s" / "1").write_bytes(spam)
        (sock_dir / "h" / "1").write_bytes(ham)
        mode = ["--train-spam", str(sock_dir / "s"), "--train-ham", str(sock_dir / "h")]
    if mode[0] == "--unregister-spam":
        assert cold(["-m", str(model_copy), "--register-spam", "--max-bytes", "4096"], msg)[0] == 0
    before = model_copy.read_bytes()
    code, out, err = cold(["-m", str(model_copy), "-p", "--max-bytes", "4096"] + mode, msg)
    assert (code, out) == (0, msg), err
    assert model_copy.read_bytes() != before  # and the model was updated
    # a failure still passes the message through (exit 3)
    code, out, err = cold(["-m", str(sock_dir / "nodir" / "x" / "m.tnb"), "-p", "--unregister-ham"], msg)
    assert (code, out) == (3, msg) and err.count("\n") == 1


# -- the load test, small (scripts/serve_load.py; the full run's figures are in docs/robustness.md) --
@pytest.mark.slow
def test_load_mixed_and_malformed_requests_every_answer_the_cold_ones():
    import importlib.util

    spec = importlib.util.spec_from_file_location("serve_load", Path(__file__).resolve().parents[2]
                                                  / "scripts" / "serve_load.py")
    serve_load = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(serve_load)
    r = serve_load.run_load(clients=5, requests=20, big=100_000, seed=1)
    assert r["mismatches"] == []
    assert r["requests"] == 100 and r["daemon_alive"] and r["exit_code"] == 0
    assert r["socket_removed"] and not r["traceback"]


# -- the command line ---------------------------------------------------------------------------
@pytest.mark.slow
def test_textnb_serve_spamd_command_line(model_copy, sock_dir):
    import signal
    import sys

    from test_serve import _start_daemon

    from textnb.apps import serve
    from textnb.cli import serve as serve_cli

    assert (serve_cli.DEFAULT_MAX_TEXTS, serve_cli.DEFAULT_MAX_TOKENS) == (serve.DEFAULT_MAX_TEXTS,
                                                                         serve.DEFAULT_MAX_TOKENS)
    users = sock_dir / "u"
    users.mkdir()
    path = sock_dir / "spamd.sock"
    proc, line = _start_daemon(model_copy, ["--spamd", str(path), "--allow-tell", "--user-models",
                                            str(users / "%u.tnb"), "--unknown-user", "refuse"])
    try:
        assert f"spamd:{path}" in line
        spam, _ = messages(30)
        out = raw(path, request("CHECK", spam, [("User", "nobody")]))
        assert out.startswith(b"SPAMD/1.0 67 ")  # refused: no model for this user
        shutil.copyfile(model_copy, users / "bob.tnb")
        out = raw(path, request("TELL", spam, [("User", "bob"), ("Message-class", "spam"), ("Set", "local")]))
        assert b"DidSet: local" in out
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert not os.path.lexists(path)
    r = subprocess.run([sys.executable, "-m", "textnb", "serve", str(model_copy), "--spamd", "x" * 130 + "/s"],
                       capture_output=True, text=True, timeout=120, env=os.environ | {"PYTHONPATH": str(Path(
                           __file__).resolve().parents[2])})
    assert r.returncode == 1 and "over the system's limit" in r.stderr and r.stderr.count("\n") == 1


def test_exims_spam_condition_request_and_parse(spam_model):
    """Exim's spam.c sends ``REPORT SPAMC/1.2`` with User and Content-length and parses the
    answer with ``sscanf("SPAMD/%7s 0 EX_OK\\r\\nSpam: %*s ; %lf / %lf\\r\\n\\r\\n%n")``; its
    condition is true when score >= threshold."""
    import re

    spam, ham = messages(31)
    with Server(spam_model, spamd=("127.0.0.1", 0)) as srv:
        for msg, want in ((spam, True), (ham, False)):
            req = b"REPORT SPAMC/1.2\r\nUser: nobody\r\nContent-length: %d\r\n\r\n" % len(msg) + msg
            out = raw(srv.spamd_address, req)
            m = re.match(rb"SPAMD/(\S{1,7}) 0 EX_OK\r\nSpam: \S+ ; (\S+) / (\S+)\r\n\r\n", out)
            assert m, out
            assert (float(m.group(2)) >= float(m.group(3))) == want
            assert b"Content analysis details" in out[m.end():]


def _exim_with_content_scanning():
    exim = shutil.which("exim4") or shutil.which("exim")
    if exim is None:
        return None
    try:
        r = subprocess.run([exim, "-bV"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return exim if "Content_Scanning" in r.stdout else None


EXIM = _exim_with_content_scanning()


def _exim_session(sock_dir, port, acl_data, message, recipients=("b",)):
    """Exim's output for one SMTP session in its test mode (``exim -bh``: nothing delivered)
    that sends ``message`` to ``recipients`` (local parts at test.example), with a
    configuration of its own under ``sock_dir`` whose DATA ACL is ``acl_data`` and whose
    spamd is the daemon on 127.0.0.1:``port``."""
    root = sock_dir / "exim"  # under /tmp: Exim may drop to its own user with -C, which must reach it
    for p in (root / "spool", root / "log"):
        p.mkdir(parents=True, exist_ok=True)
    for p in (sock_dir, root, root / "spool", root / "log"):
        os.chmod(p, 0o777)
    conf = root / "exim.conf"
    conf.write_text(f"""
primary_hostname = test.example
spool_directory = {root}/spool
log_file_path = {root}/log/%slog
spamd_address = 127.0.0.1 {port}
acl_smtp_rcpt = acl_rcpt
acl_smtp_data = acl_data
begin acl
acl_rcpt:
  accept
acl_data:
{acl_data}
  accept
begin routers
begin transports
""")
    os.chmod(conf, 0o644)
    rcpt = b"".join(b"RCPT TO:<%s@test.example>\r\n" % r.encode() for r in recipients)
    smtp = (b"EHLO client.example\r\nMAIL FROM:<a@example.com>\r\n" + rcpt + b"DATA\r\n"
            + message.replace(b"\n", b"\r\n") + b".\r\nQUIT\r\n")
    r = subprocess.run([EXIM, "-C", str(conf), "-bh", "127.0.0.1"], input=smtp, capture_output=True, timeout=120)
    return r.stdout.decode("latin-1") + r.stderr.decode("latin-1")


@pytest.mark.skipif(EXIM is None, reason="no Exim with content scanning (apt-get install exim4-daemon-heavy)")
def test_exim_spam_acl_through_textnb_serve(spam_model, sock_dir):
    """Exim's own `spam =` ACL condition against `textnb serve --spamd`, in Exim's SMTP
    test mode (`exim -bh`: a whole SMTP session on stdin, nothing delivered): the spam
    message is rejected after DATA with textnb's score, the ham message accepted."""
    from textnb.apps.verdict import message_verdict

    spam, ham = messages(40)
    acl = """  warn    spam       = nobody:true
          logwrite   = textnb-score $spam_score report ${if match{$spam_report}{(TEXTNB_[A-Z]+)}{$1}}
  deny    spam       = nobody
          message    = spam: $spam_score points"""
    with Server(spam_model, spamd=("127.0.0.1", 0)) as srv:
        model = load(spam_model)
        for msg in (spam, ham):
            out = _exim_session(sock_dir, srv.spamd_address[1], acl, msg)
            # Exim scans its spool copy (its own Received: field added), so the score is
            # that message's; the verdict is the one textnb gives the message as sent
            v = message_verdict(model, msg)
            found = [line for line in out.splitlines() if line.startswith("LOG: ") and "textnb-score " in line]
            assert len(found) == 1, out[-2000:]
            score, rule = found[0].split("textnb-score ", 1)[1].split(" report ")
            assert rule == f"TEXTNB_{v.label.upper()}" and (float(score) >= 5.0) == (v.label == "spam")
            if v.label == "spam":
                assert f"550 spam: {score} points" in out
            else:
                assert "250 OK id=" in out and "rejected" not in out
        assert {message_verdict(model, m).label for m in (spam, ham)} == {"spam", "ham"}


@pytest.mark.skipif(EXIM is None, reason="no Exim with content scanning (apt-get install exim4-daemon-heavy)")
def test_exim_delivers_a_message_over_the_daemons_limit_with_the_docs_size_condition(spam_model, sock_dir):
    """Found by a user trial: with docs/spam.md's ACL as it was, a message over the daemon's
    ``--max-request`` got the daemon's refusal (65), which Exim cannot read: ``451 Temporary
    local problem`` on every retry, until the message bounced. The ACL now keeps such a
    message away from the daemon (the docs' condition, its size made small here)."""
    docs = (Path(__file__).resolve().parents[2] / "docs" / "spam.md").read_text()
    guard = "  accept  condition  = ${if >{$message_size}{15M}}"
    assert guard in docs
    spam, _ = messages(40)
    big = spam + b"\n" + b"cheap pills now\n" * 400  # (about 6 KB: over the limit below)
    acl = guard.replace("15M", "2K") + """
  deny    spam       = nobody
          message    = spam: $spam_score points"""
    with Server(spam_model, spamd=("127.0.0.1", 0), max_request=4096) as srv:
        out = _exim_session(sock_dir, srv.spamd_address[1], acl, big)
        assert "250 OK id=" in out and "451" not in out, out[-2000:]
        without = _exim_session(sock_dir, srv.spamd_address[1], acl.split("\n", 1)[1], big)
        assert "451" in without, without[-2000:]  # (the refusal Exim cannot read: why the guard is there)


@pytest.mark.skipif(EXIM is None, reason="needs Exim with content scanning (apt-get install exim4-daemon-heavy)")
def test_exim_per_user_acl_as_docs_spam_md_writes_it(spam_model, sock_dir):
    """docs/spam.md's per-recipient ACL for ``--user-models``: ``$local_part`` is empty in
    the DATA ACL, so the doc's ``spam = $local_part`` scanned nothing (Exim 4.96 here: the
    condition fails at once) or sent ``User: `` (empty), which the daemon refused (67): Exim
    deferred the condition and delivered the spam unscanned (a user trial's Exim). The
    doc's expression now names the one recipient's local part (the served model for a
    message to several), and an empty ``User:`` is no user (the served model)."""
    users = _user_setup(spam_model, sock_dir)
    spam, _ = messages(12)
    rng = random.Random(1)
    update_model(users / "bob.tnb", register=[("ham", mail_bytes(SPAM_WORDS, rng)) for _ in range(200)])
    with Server(spam_model, spamd=("127.0.0.1", 0), user_models=str(users / "%u.tnb")) as srv:
        def session(user_expression, *recipients):
            acl = f"  deny    spam       = {user_expression}\n          message    = spam: $spam_score points"
            return _exim_session(sock_dir, srv.spamd_address[1], acl, spam, recipients)

        per_user = "${if eq{$recipients_count}{1}{${local_part:$recipients}}{nobody}}"
        assert "250 OK id=" in session(per_user, "bob")  # bob's model: ham
        assert "550 spam:" in session(per_user, "alice")  # no model of hers: the served model's verdict
        assert "550 spam:" in session(per_user, "bob", "alice")  # several recipients: the served model
        # an empty User: (what the doc's `spam = $local_part` sent): the served model, as no header
        out = raw(srv.spamd_address, request("CHECK", spam, [("User", "")]))
        assert out.startswith(b"SPAMD/1.1 0 EX_OK\r\nSpam: True"), out
    assert per_user in (Path(__file__).resolve().parents[2] / "docs" / "spam.md").read_text()


def test_user_models_held_are_bounded_by_count_and_bytes(spam_model, sock_dir):
    from textnb.apps.serve import ModelHolder
    from textnb.apps.spamd import UserModels

    users = sock_dir / "users"
    users.mkdir()
    for name in "abcdef":
        shutil.copyfile(spam_model, users / f"{name}.tnb")
    size = os.path.getsize(spam_model)
    um = UserModels(str(users / "%u.tnb"), holder_factory=ModelHolder, max_users=4, max_bytes=3 * size)
    for name in "abcdef":
        assert um.holder(name) is not None
    assert um.held_users() == ["d", "e", "f"] and um.held_bytes() <= 3 * size  # bytes bind first
    um = UserModels(str(users / "%u.tnb"), holder_factory=ModelHolder, max_users=2, max_bytes=100 * size)
    for name in "abca":
        um.holder(name)
    assert um.held_users() == ["c", "a"]  # least recently used dropped first
    assert um.holder("nobody") is None


def test_spamd_needs_a_spam_model(sock_dir):
    import textnb

    path = sock_dir / "topic.tnb"
    textnb.TextClassifier().fit(["cheap pills casino"] * 3 + ["meeting agenda budget"] * 3,
                                ["shop"] * 3 + ["work"] * 3).save(path)
    with pytest.raises(textnb.ModelFileError, match="--spamd needs a spam model"):
        Server(path, spamd=("127.0.0.1", 0)).start()


def test_spamd_beyond_loopback_is_logged(spam_model):
    from textnb.apps.serve import is_loopback

    assert all(map(is_loopback, ["127.0.0.1", "127.1.2.3", "::1", "localhost"]))
    assert not any(map(is_loopback, ["0.0.0.0", "::", "192.168.1.5", ""]))
    logs = []
    with Server(spam_model, spamd=("127.0.0.1", 0), log=logs.append):  # never bound beyond loopback here
        pass
    assert not any("not authenticated" in line for line in logs)


def test_a_journal_or_user_model_that_cannot_be_used_is_refused_at_once_naming_it(model_copy, tmp_path):
    """A FIFO journal hung TELL (and SIGTERM with it); a folder or a link there was
    reported under the model's name ('L.tnb: Is a directory', '... Too many levels of
    symbolic links' for a link that does not loop), and not logged; a user model that is a
    link to a missing file was refused with its name twice, after lock and journal files
    were created at the link's target."""
    import threading

    journal = Path(str(os.path.realpath(model_copy)) + ".learned")
    spam, ham = messages(13)
    before = model_copy.read_bytes()
    target = tmp_path / "elsewhere"
    target.write_bytes(b"")
    for make, why in ((os.mkfifo, "not a regular file (a FIFO, socket or device)"), (os.mkdir, "Is a directory"),
                      (lambda p: p.symlink_to(target), "a symbolic link, not followed")):
        make(journal)
        done = []
        worker = threading.Thread(target=lambda: done.append(pytest.raises(OSError, tell, model_copy, spam,
                                                                          set_class="spam")))
        worker.start()
        worker.join(timeout=60)
        assert done, "TELL blocked on the journal"
        assert done[0].value.filename == str(journal) and done[0].value.strerror == why
        assert model_copy.read_bytes() == before
        with Server(model_copy, spamd=("127.0.0.1", 0), allow_tell=True) as srv:
            out = raw(srv.spamd_address, request("TELL", ham, [("Message-class", "ham"), ("Set", "local")]))
        assert out.startswith(f"SPAMD/1.0 69 Service Unavailable: {journal}: {why}".encode()), out
        journal.rmdir() if journal.is_dir() and not journal.is_symlink() else journal.unlink()
    users = tmp_path / "users"
    users.mkdir()
    (users / "dang.tnb").symlink_to(tmp_path / "x.tnb")
    with Server(model_copy, spamd=("127.0.0.1", 0), allow_tell=True, user_models=str(users / "%u.tnb")) as srv:
        out = raw(srv.spamd_address, request("TELL", ham, [("Message-class", "ham"), ("Set", "local"),
                                                          ("User", "dang")]))
    assert out.startswith(f"SPAMD/1.0 69 Service Unavailable: {users / 'dang.tnb'}: a symbolic link to a "
                          f"missing file; not followed".encode()), out
    assert not list(tmp_path.glob("x.tnb*"))  # (x.tnb.lock, .learned, .learned.lock were made)


def test_a_refused_first_tell_leaves_no_user_model_and_copies_only_the_served_model(spam_model, sock_dir):
    """Found by a user trial (session 16): a first TELL of a user copied the model file on
    disk, even a replacement that had failed to load, and a refused TELL left the copy (the
    user then got 'not a textnb model file' for good, or a frozen snapshot); a journal that
    is a link had a lock file made where it points."""
    served = sock_dir / "served.tnb"
    shutil.copyfile(spam_model, served)
    users = sock_dir / "users"
    users.mkdir()
    spam, ham = messages(21)
    tell = [("Message-class", "ham"), ("Set", "local")]
    with Server(served, spamd=("127.0.0.1", 0), user_models=str(users / "%u.tnb"), allow_tell=True) as srv:
        a = srv.spamd_address
        good = served.read_bytes()
        (sock_dir / "bad").write_bytes(b"garbage\n")
        os.replace(sock_dir / "bad", served)  # a bad deploy: the daemon keeps serving the old model
        assert b"Spam: True" in raw(a, request("CHECK", spam, [("User", "gina")]))
        out = raw(a, request("TELL", ham, tell + [("User", "gina")]))
        assert out.startswith(b"SPAMD/1.0 69 Service Unavailable: ") and b"not the model being served" in out, out
        assert not (users / "gina.tnb").exists()
        (sock_dir / "good").write_bytes(good)
        os.replace(sock_dir / "good", served)  # fixed: gina falls back to the served model, and learns
        assert b"Spam: True" in raw(a, request("CHECK", spam, [("User", "gina")]))
        assert b"DidSet: local" in raw(a, request("TELL", ham, tell + [("User", "gina")]))
        assert counts(users / "gina.tnb")[1].sum() == counts(served)[1].sum() + 1
        elsewhere = sock_dir / "elsewhere"
        elsewhere.mkdir()
        (users / "bob.tnb.learned").symlink_to(elsewhere / "passwd")
        out = raw(a, request("TELL", ham, tell + [("User", "bob")]))
        assert b"a symbolic link, not followed" in out, out
        assert not list(elsewhere.iterdir()) and not (users / "bob.tnb").exists()


def test_a_first_tell_refused_after_the_copy_leaves_neither_model_nor_journal(spam_model, sock_dir, monkeypatch):
    """A first TELL copies the served model and starts the copy's journal; when the update
    then fails (here a full disk), the copy was removed but its journal (``.learned``) was
    left behind beside no model. Both go now; a later TELL starts them again."""
    served = sock_dir / "served.tnb"
    shutil.copyfile(spam_model, served)
    users = sock_dir / "users"
    users.mkdir()
    spam, ham = messages(21)
    tell_ham = [("Message-class", "ham"), ("Set", "local"), ("User", "gina")]
    real_tell = spamd.tell

    def full_disk(model_path, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(model_path))

    with Server(served, spamd=("127.0.0.1", 0), user_models=str(users / "%u.tnb"), allow_tell=True) as srv:
        monkeypatch.setattr(spamd, "tell", full_disk)
        out = raw(srv.spamd_address, request("TELL", ham, tell_ham))
        assert out.startswith(b"SPAMD/1.0 69 Service Unavailable: ") and b"No space left" in out, out
        assert not (users / "gina.tnb").exists()
        assert not (users / "gina.tnb.learned").exists()
        monkeypatch.setattr(spamd, "tell", real_tell)
        assert b"DidSet: local" in raw(srv.spamd_address, request("TELL", ham, tell_ham))
        assert counts(users / "gina.tnb")[1].sum() == counts(served)[1].sum() + 1
        assert (users / "gina.tnb.learned").exists()


def test_a_model_trained_anew_starts_a_new_journal(model_copy):
    """The journal outlived a rebuild of its model: a message TELL had taught the old model
    was 'already un/learned' for the new one, which never learned it. The new journal lists
    what the new model was trained on (all of it), and nothing else."""
    from textnb.apps.filtering import journal_path, read_journal, train_model
    from textnb.apps.spamd import tell

    spam, ham = messages(23)
    assert tell(model_copy, ham, set_class="spam")
    assert not tell(model_copy, ham, set_class="spam")  # already learned
    folder = model_copy.parent
    (folder / "s.eml").write_bytes(spam)
    (folder / "h.eml").write_bytes(ham)
    train_model(model_copy, [folder / "s.eml"], [folder / "h.eml"])
    seen, _, _, complete = read_journal(journal_path(model_copy))
    assert seen == {message_digest(spam): "spam", message_digest(ham): "ham"} and complete
    assert tell(model_copy, ham, set_class="spam")  # learned by the new model (moved from ham)
    assert not tell(model_copy, spam, set_class="spam")  # trained on: already learned


def test_a_model_replaced_by_a_copy_starts_a_new_journal(model_copy, tmp_path):
    """A file copied over the served model (not a TELL, not ``--register-*``, not a
    rebuild): what the journal says was learned was learned into another model, so a
    message TELL learned before is learned into this one ('already learned' before);
    ``--register-*`` learns into the same model and keeps the journal."""
    from textnb.apps.filtering import update_model

    spam, ham = messages(21)
    original = tmp_path / "original.tnb"
    original.write_bytes(model_copy.read_bytes())
    assert tell(model_copy, spam, set_class="spam")
    assert not tell(model_copy, spam, set_class="spam")  # already learned
    update_model(model_copy, register=[("ham", ham)])  # learned into the same model: the journal stands
    assert not tell(model_copy, spam, set_class="spam")
    shutil.copyfile(original, model_copy)  # the administrator puts another model in place
    before = counts(model_copy)
    assert tell(model_copy, spam, set_class="spam")  # learned into this model, once
    after = counts(model_copy)
    assert after[1].sum() == before[1].sum() + 1  # one more message counted
    assert not tell(model_copy, spam, set_class="spam")
    assert not tell(model_copy, ham, remove=True)  # taught to the old model only: nothing to forget here


# -- defects of the user trial (session 18) -----------------------------------------------------
def _topic_model(path):
    import textnb

    textnb.TextClassifier().fit(["cheap pills casino"] * 3 + ["meeting agenda budget"] * 3 + ["goal match"] * 3,
                                ["shop"] * 3 + ["work"] * 3 + ["sport"] * 3).save(path)
    return path


def _status(out):
    return protocol.parse_spamd_status(out.split(b"\r\n")[0] + b"\r\n")[1]


def test_a_model_that_is_not_spam_moved_over_the_served_file_is_not_swapped_in(spam_model, sock_dir):
    """--spamd refuses a model without the classes ham and spam at start; a file moved
    over the served one is held to the same check: the previous model goes on, the
    failure is logged and shown in GET /model (it answered 69 to every request before)."""
    import http.client
    import json

    served = sock_dir / "spam.tnb"
    shutil.copyfile(spam_model, served)
    spam, _ = messages(30)
    logs = []
    with Server(served, spamd=("127.0.0.1", 0), http=("127.0.0.1", 0), log=logs.append) as srv:
        a = srv.spamd_address
        assert raw(a, request("CHECK", spam)).startswith(b"SPAMD/1.1 0 EX_OK\r\nSpam: True")
        os.replace(_topic_model(sock_dir / "topic.tnb"), served)
        for method in ("CHECK", "PROCESS"):
            out = raw(a, request(method, spam))
            assert out.startswith(b"SPAMD/1.1 0 EX_OK\r\n") and b"Spam: True" in out, out
        assert any("--spamd needs a spam model" in line and "not reloaded" in line for line in logs), logs
        conn = http.client.HTTPConnection(*srv.http_address, timeout=30)
        conn.request("GET", "/model")
        described = json.loads(conn.getresponse().read())
        conn.close()
        assert described["classes"] == ["ham", "spam"] and described["reloads"] == 0
        assert "--spamd needs a spam model" in described["last_error"]


def test_a_user_whose_model_path_is_the_served_model_never_writes_it(spam_model, sock_dir):
    """The docs' own set-up (serving DIR/spam.tnb with --user-models DIR/%u.tnb): the user
    'spam' is served the served model as a user without a file, never learns into it (69,
    logged), and the daemon warns at start; so does a user whose file is a link to it."""
    served = sock_dir / "spam.tnb"
    shutil.copyfile(spam_model, served)
    os.symlink(served, sock_dir / "sym.tnb")
    os.link(served, sock_dir / "hard.tnb")
    before = served.read_bytes()
    spam, ham = messages(31)
    learn = [("Message-class", "ham"), ("Set", "local")]
    logs = []
    with Server(served, spamd=("127.0.0.1", 0), allow_tell=True, user_models=str(sock_dir / "%u.tnb"),
                log=logs.append) as srv:
        a = srv.spamd_address
        assert any("user 'spam' maps to the served model" in line for line in logs), logs
        for user in ("spam", "sym", "hard"):
            assert raw(a, request("CHECK", spam, [("User", user)])).startswith(b"SPAMD/1.1 0 EX_OK\r\nSpam: True")
            out = raw(a, request("TELL", spam, learn + [("User", user)]))
            assert _status(out) == 69 and b"is the served model" in out and out.count(b"\r\n") == 1, out
            forget = raw(a, request("TELL", spam, [("Remove", "local"), ("User", user)]))
            assert _status(forget) == 69, forget
        assert served.read_bytes() == before and not os.path.exists(str(served) + ".learned")
        assert sum("TELL refused" in line and "is the served model" in line for line in logs) == 6
        # another user learns as before, into a copy
        assert b"DidSet: local" in raw(a, request("TELL", spam, learn + [("User", "carol")]))
        assert (sock_dir / "carol.tnb").exists() and served.read_bytes() == before
    with Server(served, spamd=("127.0.0.1", 0), user_models=str(sock_dir / "%u.tnb"), unknown_user="refuse") as srv:
        out = raw(srv.spamd_address, request("CHECK", spam, [("User", "spam")]))
        assert _status(out) == 67 and b"the served model" in out  # as a user without a model of their own
    logs = []
    with Server(served, spamd=("127.0.0.1", 0), user_models=str(sock_dir / "u" / "%u.tnb"), log=logs.append):
        assert not any("maps to the served model" in line for line in logs)


def test_a_user_whose_model_would_be_a_file_kept_beside_a_model_is_refused(spam_model, sock_dir):
    """With a template without an extension (``DIR/%u``), user ``carol.learned``'s model file
    was user carol's journal: carol's first TELL wrote its journal over that user's model
    (lost), and ``carol.lock`` / ``carol.learned.lock`` were carol's lock files. A user
    whose model file would be named as a file textnb keeps beside a model (a journal, a lock
    file, a temporary file of the folder) is refused as other bad names are (67, the reason
    said), nothing made; and, the other way, a user one of whose files would be the served
    model. The default ``DIR/%u.tnb`` makes no such name: ``carol.learned`` is a user there."""
    users = sock_dir / "users"
    users.mkdir()
    served = sock_dir / "served.tnb"
    shutil.copyfile(spam_model, served)
    spam, ham = messages(33)
    learn = [("Message-class", "spam"), ("Set", "local")]
    logs = []
    with Server(served, spamd=("127.0.0.1", 0), user_models=str(users / "%u"), allow_tell=True,
                log=logs.append) as srv:
        a = srv.spamd_address
        out = raw(a, request("TELL", ham, learn + [("User", "carol.learned")]))
        assert _status(out) == 67 and b"not allowed in a model path" in out and b"journal" in out, out
        assert b"DidSet: local" in raw(a, request("TELL", ham, learn + [("User", "carol")]))
        made = {p.name: p.read_bytes() for p in users.iterdir()}
        assert {"carol", "carol.learned", "carol.lock", "carol.learned.lock"} <= set(made), made
        for user, why in (("carol.learned", b"journal"), ("carol.lock", b"lock file"),
                          ("carol.learned.lock", b"lock file"), ("carol.tnb.learned", b"journal")):
            for method, headers in (("CHECK", []), ("TELL", learn), ("TELL", [("Remove", "local")])):
                out = raw(a, request(method, spam, headers + [("User", user)]))
                assert _status(out) == 67 and why in out and out.count(b"\r\n") == 1, (user, out)
        assert {p.name: p.read_bytes() for p in users.iterdir()} == made  # carol's journal and locks as they were
        assert b"DidSet: local" in raw(a, request("TELL", spam, learn + [("User", "carol")]))  # carol goes on
    # a template putting a dot before the name: the folder's temporary files (a save's, swept when stale)
    with Server(served, spamd=("127.0.0.1", 0), user_models=str(users / ".%u")) as srv:
        for user in ("tmp-.carol.x1y2.part", "tnbq8w7e6", "textnb-probe-abc"):
            out = raw(srv.spamd_address, request("CHECK", spam, [("User", user)]))
            assert _status(out) == 67 and b"temporary file" in out, (user, out)
        assert raw(srv.spamd_address, request("CHECK", spam, [("User", "tmp-carol")])).startswith(b"SPAMD/1.1 0 ")
    # the other way: the served model named as a model's journal is no user's journal
    site = users / "site.learned"
    shutil.copyfile(spam_model, site)
    before = site.read_bytes()
    logs = []
    with Server(site, spamd=("127.0.0.1", 0), user_models=str(users / "%u"), allow_tell=True,
                log=logs.append) as srv:
        assert not any("maps to the served model" in line for line in logs), logs  # (site.learned: no user)
        out = raw(srv.spamd_address, request("TELL", ham, learn + [("User", "site")]))
        assert _status(out) == 67 and b"would be the served model" in out, out
        assert site.read_bytes() == before and not (users / "site").exists()
    # the default template: such names are users' as any other
    with Server(served, spamd=("127.0.0.1", 0), user_models=str(users / "%u.tnb"), allow_tell=True) as srv:
        assert b"DidSet: local" in raw(srv.spamd_address, request("TELL", ham, learn + [("User", "carol.learned")]))
        assert (users / "carol.learned.tnb").exists()


def test_a_content_length_that_does_not_match_the_body_is_refused(spam_model):
    """More body than Content-length says was scored by its first bytes (PROCESS answered the
    message cut); two Content-length headers that disagree were taken, the last winning."""
    spam, _ = messages(32)
    with Server(spam_model, spamd=("127.0.0.1", 0)) as srv:
        a = srv.spamd_address
        for method in ("CHECK", "PROCESS", "SYMBOLS"):
            short = f"{method} SPAMC/1.5\r\nContent-length: 20\r\n\r\n".encode() + spam
            out = raw(a, short)
            assert _status(out) == 76 and b"Content-Length mismatch" in out and out.count(b"\r\n") == 1, out
        with socket.create_connection(a, timeout=30) as s:  # the same, the connection kept open
            s.sendall(b"PROCESS SPAMC/1.5\r\nContent-length: 20\r\n\r\n" + spam)
            out = s.recv(1 << 16)
        assert _status(out) == 76, out
        twice = b"CHECK SPAMC/1.5\r\nContent-length: %d\r\nContent-length: 20\r\n\r\n" % len(spam) + spam
        out = raw(a, twice)
        assert _status(out) == 76 and b"more than one Content-Length" in out, out
        same = b"CHECK SPAMC/1.5\r\nContent-length: %d\r\nContent-length: %d\r\n\r\n" % (len(spam), len(spam))
        assert raw(a, same + spam).startswith(b"SPAMD/1.1 0 EX_OK\r\nSpam: True")
        # a client that keeps the connection open and sends nothing more is answered, not refused
        with socket.create_connection(a, timeout=30) as s:
            s.sendall(request("PROCESS", spam))
            out = b""
            while not out.endswith(spam.split(b"\n\n", 1)[1]):
                chunk = s.recv(1 << 16)
                assert chunk, out
                out += chunk
        assert out.startswith(b"SPAMD/1.1 0 EX_OK\r\n")


def test_an_unterminated_request_or_header_line_is_called_so(spam_model):
    """A short line cut by the end of input was reported as 'line over 4096 bytes'."""
    with Server(spam_model, spamd=("127.0.0.1", 0)) as srv:
        a = srv.spamd_address
        for data in (b"CHECK SPAMC/1.5", b"CHECK SPAMC/1.5\r\nContent-length: 5", b"CHECK SPAMC/1.5\r\nUser: bob"):
            out = raw(a, data)
            assert _status(out) == 76 and b"unterminated line" in out and b"4096" not in out, out
        out = raw(a, b"CHECK SPAMC/1.5\r\n" + b"X" * 10000)
        assert _status(out) == 76 and b"line over 4096 bytes" in out, out


# -- s23-serve: a mail administrator's checks --------------------------------------------------
def test_a_utf8_user_name_selects_the_model_file_of_that_name(spam_model, sock_dir):
    """spamc sends the user's name as its bytes (UTF-8): the per-user model file is named
    with those bytes, not with their Latin-1 reading ('josé' -> josé.tnb, never josÃ©.tnb)."""
    users = sock_dir / "users"
    users.mkdir()
    spam, ham = messages(21)
    name = "josé"
    with Server(spam_model, spamd=("127.0.0.1", 0), user_models=str(users / "%u.tnb"), allow_tell=True) as srv:
        a = srv.spamd_address
        head = f"TELL SPAMC/1.5\r\nUser: {name}\r\nMessage-class: ham\r\nSet: local\r\nContent-length: {len(spam)}\r\n\r\n"
        out = raw(a, head.encode("utf-8") + spam)
        assert b"DidSet: local" in out, out
        assert sorted(p.name for p in users.glob("*.tnb")) == [f"{name}.tnb"]
        # a byte that is not UTF-8 is kept as it is in the file's name
        out = raw(a, b"TELL SPAMC/1.5\r\nUser: x\xff\r\nMessage-class: ham\r\nSet: local\r\n"
                     b"Content-length: %d\r\n\r\n" % len(spam) + spam)
        assert b"DidSet: local" in out, out
        assert os.path.exists(os.path.join(os.fsencode(users), b"x\xff.tnb"))
        # the user's own model answers the user's CHECK
        check = f"CHECK SPAMC/1.5\r\nUser: {name}\r\nContent-length: {len(spam)}\r\n\r\n".encode("utf-8") + spam
        raw(a, check)
        assert name in srv.user_models.held_users()


def test_only_ascii_white_space_is_taken_off_a_spamd_header_value(spam_model, sock_dir):
    r"""spamd takes the ASCII white space after a header's colon off (its ``split /:\s*/`` on
    bytes), no other: a ``User:`` name of Unicode white space (U+2028, NEL, NO-BREAK SPACE)
    is a user's name, and ``"\u00a0alice"`` is not alice. ``str.lstrip()`` took them off:
    the name U+2028 was no user (the served model, its TELL learned into the served model,
    even with ``--unknown-user refuse``) and ``"\u00a0alice"`` taught alice's model. The
    same for the other headers and the request line's version (``\u00a015`` was 15)."""
    users = sock_dir / "users"
    users.mkdir()
    served = sock_dir / "served.tnb"
    shutil.copyfile(spam_model, served)
    shutil.copyfile(spam_model, users / "alice.tnb")
    served_bytes, alice_bytes = served.read_bytes(), (users / "alice.tnb").read_bytes()
    spam, ham = messages(23)
    learn = [("Message-class", "ham"), ("Set", "local")]
    with Server(served, spamd=("127.0.0.1", 0), user_models=str(users / "%u.tnb"), unknown_user="refuse",
                allow_tell=True) as srv:
        a = srv.spamd_address
        for name in ("\u2028", "\x85", "\xa0", "\u3000", "\xa0alice", "alice\u2028"):
            for method, headers in (("CHECK", []), ("TELL", learn)):
                out = raw(a, request(method, ham, headers + [("User", name)]))
                assert _status(out) == 67, (name, method, out)  # a user without a model: refused
                assert shown_user(name).encode() in out, out
        assert served.read_bytes() == served_bytes and (users / "alice.tnb").read_bytes() == alice_bytes
        assert sorted(p.name for p in users.iterdir()) == ["alice.tnb"]
        # ASCII white space before the name is no part of it, as spamd's (and an empty name is no user)
        for value in (" \t alice", "\x0b\x0calice"):
            check = f"CHECK SPAMC/1.5\r\nUser:{value}\r\nContent-length: {len(spam)}\r\n\r\n".encode()
            assert raw(a, check + spam).startswith(b"SPAMD/1.1 0 EX_OK\r\nSpam: True"), value
        assert srv.user_models.held_users() == ["alice"]
        # the ASCII separators 0x1C-0x1F (white space to str.lstrip) are control characters: refused
        out = raw(a, f"CHECK SPAMC/1.5\r\nUser: \x1calice\r\nContent-length: {len(spam)}\r\n\r\n".encode() + spam)
        assert _status(out) == 76 and b"control chars" in out, out
        # the other headers and the version: a number or a class after Unicode white space is refused
        for head in (f"CHECK SPAMC/1.5\r\nContent-length: \xa0{len(spam)}\r\n\r\n",
                     f"CHECK SPAMC/1.5\r\nContent-length:\u2028{len(spam)}\r\n\r\n",
                     f"TELL SPAMC/1.5\r\nMessage-class: \xa0spam\r\nSet: local\r\nContent-length: {len(spam)}\r\n\r\n",
                     f"CHECK SPAMC/\xa01.5\r\nContent-length: {len(spam)}\r\n\r\n",
                     f"CHECK SPAMC/1.5\u2028\r\nContent-length: {len(spam)}\r\n\r\n"):
            out = raw(a, head.encode() + spam)
            assert _status(out) == 76, (head, out)
        assert served.read_bytes() == served_bytes
        # without a User: header the served model, as before
        assert b"Spam: True" in raw(a, request("CHECK", spam))


def test_a_request_cut_by_the_daemon_stopping_is_not_blamed_on_the_client(spam_model):
    """SIGTERM while a client is sending: it gets 69 EX_UNAVAILABLE ("stopping", a temporary
    failure an MTA retries), not 76 "Bad header line: Content-Length mismatch"."""
    spam, _ = messages(22)
    srv = Server(spam_model, spamd=("127.0.0.1", 0)).start()
    try:
        s = socket.create_connection(srv.spamd_address, timeout=30)
        s.sendall(f"CHECK SPAMC/1.5\r\nContent-length: {len(spam)}\r\n\r\n".encode() + spam[:10])
        assert raw(srv.spamd_address, request("PING", None)).startswith(b"SPAMD/1.5 0 PONG")  # (it is being read)
    finally:
        srv.stop()
    with s:
        out = s.recv(1 << 16)
    assert out.startswith(b"SPAMD/1.0 69 Service Unavailable: textnb serve is stopping"), out
    assert out.count(b"\r\n") == 1


def test_an_error_line_never_echoes_the_requests_control_bytes(spam_model):
    """A TLS hello (or any binary) sent to the spamd port: one printable error line, its
    control bytes written \\xNN (before: a NUL and other control bytes inside the reply line)."""
    with Server(spam_model, spamd=("127.0.0.1", 0)) as srv:
        out = raw(srv.spamd_address, b"\x16\x03\x01\x00\x05hello\x7f\r\n\r\n")
    assert out == b"SPAMD/1.0 76 Bad header line: (\\x16\\x03\\x01\\x00\\x05hello\\x7f)\r\n", out


@pytest.mark.parametrize("request_line, echoed", [
    (b"CH\xe9CK SPAMC/1.5", b"(CH\\xe9CK SPAMC/1.5)"),  # Latin-1 bytes: not UTF-8
    (b"\xff\xfe", b"(\\xff\\xfe)"),
    (b"CH\xc3\xa9CK SPAMC/1.5", b"(CH\xe9CK SPAMC/1.5)"),  # UTF-8: the character, in Latin-1
    (b"CHECK\xe2\x80\xa8 SPAMC/1.5", b"(CHECK\\u2028 SPAMC/1.5)"),
])
def test_an_error_line_writes_the_bytes_that_are_not_utf8_escaped(spam_model, request_line, echoed):
    """The bytes 0xA0-0xFF of a request line that is not UTF-8 were echoed raw in the error
    line (the line read as Latin-1, where they are printable), 0x80-0x9F escaped: every byte
    that is not UTF-8 is now written ``\\xNN``, as the docs say."""
    with Server(spam_model, spamd=("127.0.0.1", 0)) as srv:
        out = raw(srv.spamd_address, request_line + b"\r\n\r\n")
    assert out == b"SPAMD/1.0 76 Bad header line: " + echoed + b"\r\n", out


# -- defects of session 24: a user's first TELL, a broken user model, forgetting what was never learned ----
def _trained_served(root):
    """A served spam model with its journal (trained by ``spamfilter --train-*``: the journal
    lists its 50 messages) and one of the spam messages it was trained on."""
    root.mkdir()
    served = make_spam_model(root)
    return served, (root / "spam" / "0.eml").read_bytes()


def test_a_users_first_tell_starts_with_the_served_models_journal(sock_dir):
    """A user's first TELL copied the served model without its journal: a message the
    served model was trained on was counted twice in the user's copy (DidSet), and
    forgetting it there left it counted once. The copy now starts with the served
    journal: the user's model learns, moves and forgets as the served one would (the
    same counts as the same TELLs into an identical trained model), and a TELL that would
    change nothing makes no copy."""
    from textnb.apps.filtering import journal_path, read_journal

    served, trained = _trained_served(sock_dir / "served")
    reference, _ = _trained_served(sock_dir / "ref")  # the same training: the same model and journal
    served_bytes = served.read_bytes()
    users = sock_dir / "users"
    users.mkdir()
    learn = [("Message-class", "spam"), ("Set", "local")]
    with Server(served, spamd=("127.0.0.1", 0), user_models=str(users / "%u.tnb"), allow_tell=True) as srv:
        a = srv.spamd_address
        # learned by the served model already: nothing to do, and no copy
        assert raw(a, request("TELL", trained, learn + [("User", "carol")])) == b"SPAMD/1.1 0 EX_OK\r\n\r\n"
        assert not (users / "carol.tnb").exists()
        # as the other class: moved in the user's copy, as in the served model
        out = raw(a, request("TELL", trained, [("Message-class", "ham"), ("Set", "local"), ("User", "carol")]))
        assert b"DidSet: local" in out, out
        assert tell(reference, trained, set_class="ham")
        assert all(np.array_equal(x, y) for x, y in zip(counts(users / "carol.tnb")[:2], counts(reference)[:2]))
        seen, _, _, complete = read_journal(journal_path(users / "carol.tnb"))
        assert complete and len(seen) == 50 and seen[message_digest(trained)] == "ham"
        # forgotten in the user's copy: no longer counted at all
        out = raw(a, request("TELL", trained, [("Remove", "local"), ("User", "carol")]))
        assert b"DidRemove: local" in out, out
        assert tell(reference, trained, remove=True)
        assert all(np.array_equal(x, y) for x, y in zip(counts(users / "carol.tnb")[:2], counts(reference)[:2]))
        assert raw(a, request("TELL", trained, [("Remove", "local"), ("User", "carol")])) == \
            b"SPAMD/1.1 0 EX_OK\r\n\r\n"
        # a user without a model forgets a message the model they are served learned: in their copy
        out = raw(a, request("TELL", trained, [("Remove", "local"), ("User", "dave")]))
        assert b"DidRemove: local" in out, out
        assert all(np.array_equal(x, y) for x, y in zip(counts(users / "dave.tnb")[:2], counts(reference)[:2]))
        # a message nobody learned: nothing to forget, no copy
        spam, _ = messages(40)
        assert raw(a, request("TELL", spam, [("Remove", "local"), ("User", "erin")])) == b"SPAMD/1.1 0 EX_OK\r\n\r\n"
        assert not (users / "erin.tnb").exists()
    assert served.read_bytes() == served_bytes


def test_a_users_copy_of_a_served_model_replaced_by_hand_starts_an_empty_journal(sock_dir):
    """The served journal is copied only when it is the served file's: a file copied
    over the served model makes it another model's, so the user's copy learns the
    message (once) as any model without a journal."""
    served, trained = _trained_served(sock_dir / "served")
    (sock_dir / "other.tnb").write_bytes(served.read_bytes())
    os.replace(sock_dir / "other.tnb", served)  # the same counts, but not the file the journal was written for
    users = sock_dir / "users"
    users.mkdir()
    with Server(served, spamd=("127.0.0.1", 0), user_models=str(users / "%u.tnb"), allow_tell=True) as srv:
        out = raw(srv.spamd_address, request("TELL", trained, [("Message-class", "spam"), ("Set", "local"),
                                                               ("User", "carol")]))
        assert b"DidSet: local" in out, out
    assert counts(users / "carol.tnb")[1].sum() == counts(served)[1].sum() + 1
    assert spamd._read_journal(filtering.journal_path(users / "carol.tnb"))[0] == {message_digest(trained): "spam"}


@needs_spamc
def test_spamc_learn_and_forget_for_a_user_start_from_the_served_journal(sock_dir):
    served, trained = _trained_served(sock_dir / "served")
    users = sock_dir / "users"
    users.mkdir()
    with Server(served, spamd=("127.0.0.1", 0), user_models=str(users / "%u.tnb"), allow_tell=True) as srv:
        port = srv.spamd_address[1]
        assert spamc(port, ["-L", "spam", "-u", "carol"], trained).stdout == b"Message was already un/learned\n"
        assert not (users / "carol.tnb").exists()
        assert spamc(port, ["-L", "forget", "-u", "carol"], trained).stdout == b"Message successfully un/learned\n"
        assert counts(users / "carol.tnb")[1].sum() == counts(served)[1].sum() - 1
        assert spamc(port, ["-L", "forget", "-u", "carol"], trained).stdout == b"Message was already un/learned\n"
        assert spamc(port, ["-L", "spam", "-u", "carol"], trained).stdout == b"Message successfully un/learned\n"
        assert all(np.array_equal(x, y) for x, y in zip(counts(users / "carol.tnb")[:2], counts(served)[:2]))


def test_a_broken_user_model_is_logged_once_naming_it_and_the_daemon_goes_on(spam_model, sock_dir):
    """A user's model file that is not a model (truncated, another format, empty) was
    answered 69 without a word in the daemon's log. One line names the file and the
    problem, once for each version of the file; the other users are served as before."""
    users = sock_dir / "users"
    users.mkdir()
    whole = spam_model.read_bytes()
    (users / "cut.tnb").write_bytes(whole[:len(whole) // 2])
    (users / "text.tnb").write_bytes(b"not a model\n")
    spam, _ = messages(41)
    logs = []
    with Server(spam_model, spamd=("127.0.0.1", 0), user_models=str(users / "%u.tnb"), allow_tell=True,
                log=logs.append) as srv:
        a = srv.spamd_address
        for user in ("cut", "text", "cut", "text"):
            for method, extra in (("CHECK", []), ("TELL", [("Message-class", "spam"), ("Set", "local")])):
                out = raw(a, request(method, spam, extra + [("User", user)]))
                assert out.startswith(f"SPAMD/1.0 69 Service Unavailable: user '{user}': {users / user}.tnb: "
                                      "not a textnb model file".encode()), out
        for user in ("cut", "text"):
            lines = [line for line in logs if f"{users / user}.tnb" in line]
            assert len(lines) == 1, logs
            assert lines[0].startswith(f"spamd: user '{user}': {users / user}.tnb: not a textnb model file"), lines
        assert b"Spam: True" in raw(a, request("CHECK", spam, [("User", "nobody")]))  # the daemon goes on
        (users / "cut.tnb").write_bytes(b"still not a model\n")  # another broken version: logged again
        raw(a, request("CHECK", spam, [("User", "cut")]))
        assert len([line for line in logs if f"{users / 'cut'}.tnb" in line]) == 2, logs
        shutil.copyfile(spam_model, users / "cut.tnb")  # fixed: served
        assert b"Spam: True" in raw(a, request("CHECK", spam, [("User", "cut")]))


@pytest.mark.parametrize("failure, said", [(MemoryError, "out of memory"),
                                           (PermissionError(13, "Permission denied"), "Permission denied")])
def test_a_user_model_that_fails_without_words_is_logged_naming_the_problem(spam_model, sock_dir, failure, said):
    """The user models' twin of ``textnb serve``'s reload (test_serve): a user's model that
    ran out of memory as it loaded was not logged at all (only a TextnbError or an OSError
    was), and an OSError was logged as ``[Errno 13] ...`` when it named no file. The line
    names the file and the problem; the request is still refused (the error raised on)."""
    from textnb.apps.spamd import UserModels

    users = sock_dir / "users"
    users.mkdir()
    shutil.copyfile(spam_model, users / "a.tnb")

    def factory(path):
        raise failure

    logs = []
    um = UserModels(str(users / "%u.tnb"), holder_factory=factory, log=logs.append)
    with pytest.raises(type(failure) if isinstance(failure, BaseException) else failure):
        um.holder("a")
    assert logs == [f"spamd: user 'a': {users / 'a.tnb'}: {said}; the user's requests are answered 69 (Service "
                    "Unavailable) until the file is replaced"]


@pytest.mark.parametrize("kind", ["bernoulli", "boolean"])
def test_forgetting_a_message_never_learned_is_a_no_op_and_never_touches_the_counts(sock_dir, kind):
    """TELL Remove of a message the journal does not list (with a journal, and without
    one: the counts alone do not decide for TELL) answers without DidRemove and leaves
    the model's bytes as they were; ``spamfilter --unregister-*`` of such a message into a
    model without a journal is refused when its counts cannot hold it (a count below
    zero, or for presence counts, above its class's), the model unchanged."""
    from textnb.apps.filtering import journal_path

    model = make_spam_model(sock_dir, per_class=10, name="m.tnb", kind=kind)
    never = mail_bytes(SPAM_WORDS, random.Random(99))
    for with_journal in (True, False):
        if not with_journal:
            os.unlink(journal_path(model))
        before = model.read_bytes()
        with Server(model, spamd=("127.0.0.1", 0), allow_tell=True) as srv:
            out = raw(srv.spamd_address, request("TELL", never, [("Remove", "local")]))
        assert out == b"SPAMD/1.1 0 EX_OK\r\n\r\n", out
        assert model.read_bytes() == before
    w = SPAM_WORDS[0]
    for msg in (b"Subject: hello\n\nunseen words\n", f"Subject: {w}\n\n{w}\n".encode()):
        with pytest.raises(InputError):
            update_model(model, unregister=[("spam", msg)])
        assert model.read_bytes() == before


def test_a_tell_refused_on_a_damaged_model_leaves_no_journal(tmp_path):
    """Found by a user trial: a TELL refused because the model file was damaged left an empty
    MODEL.learned beside it (update_model's own refusals leave none)."""
    from textnb.apps.filtering import journal_path

    model = tmp_path / "m.tnb"
    model.write_bytes(b"PK\x03\x04 not a model at all")
    with pytest.raises(TextnbError):
        tell(model, b"Subject: hi\n\nbody\n", set_class="spam")
    assert not os.path.lexists(journal_path(model))
    assert model.read_bytes() == b"PK\x03\x04 not a model at all"


# -- session 44's user trial: a User: name that is not UTF-8, or holds a line separator --------------------
def test_a_user_name_is_named_by_its_bytes_escaped_in_error_lines_and_in_the_log(spam_model, sock_dir):
    """spamc -u with a name that is not UTF-8 (``\\xff\\xfe..``): the error line named it
    ``'\\udcff\\udcfe..'`` (Python's surrogates), a UTF-8 ``josé`` as the Latin-1 byte
    ``\\xe9`` and a Cyrillic name as ``?``, and a name holding a line separator (U+2028, NEL)
    put it raw into the daemon's log through its model path. Now a name is its bytes,
    escaped (``'\\xff\\xfe..'``, ``'jos\\xc3\\xa9'``), a name over 40 bytes marked cut, and
    every reply and log line is one line of printable ASCII."""
    users = sock_dir / "users"
    users.mkdir()
    broken = b"a\xe2\x80\xa8b\xff"  # a user model file that does not load
    with open(os.path.join(os.fsencode(users), broken + b".tnb"), "wb") as f:
        f.write(b"not a model\n")
    spam, _ = messages(44)
    logs = []

    def check(server, user, method="CHECK", extra=b""):
        out = raw(server.spamd_address, b"%s SPAMC/1.5\r\nUser: %s\r\n%sContent-length: %d\r\n\r\n"
                  % (method.encode(), user, extra, len(spam)) + spam)
        assert out.isascii() and out.endswith(b"\r\n"), out
        if out.startswith(b"SPAMD/1.0 "):
            assert out.count(b"\r\n") == 1 and out[:-2].decode().isprintable(), out
        return out

    with Server(spam_model, spamd=("127.0.0.1", 0), user_models=str(users / "%u.tnb"), unknown_user="refuse",
                log=logs.append) as srv:
        assert check(srv, b"\xff\xfe..") == b"SPAMD/1.0 67 Unknown user: no model for user '\\xff\\xfe..'\r\n"
        assert check(srv, "josé".encode()) == b"SPAMD/1.0 67 Unknown user: no model for user 'jos\\xc3\\xa9'\r\n"
        assert check(srv, "ж/x".encode()) == (b"SPAMD/1.0 67 Unknown user: user name '\\xd0\\xb6/x' not allowed in "
                                              b"a model path\r\n")
        assert check(srv, b"a\\b") == b"SPAMD/1.0 67 Unknown user: user name 'a\\\\b' not allowed in a model path\r\n"
        assert check(srv, b"x" * 41 + b"/") == (b"SPAMD/1.0 67 Unknown user: user name '" + b"x" * 40 + b"'... not "
                                                b"allowed in a model path\r\n")
        out = check(srv, broken)
        assert out == (b"SPAMD/1.0 69 Service Unavailable: user 'a\\xe2\\x80\\xa8b\\xff': "
                       + os.fsencode(users) + b"/a\\u2028b\\xff.tnb: not a textnb model file (truncated, or another "
                       b"format)\r\n"), out
    with Server(spam_model, spamd=("127.0.0.1", 0), user_models=str(users / "%u.tnb"), allow_tell=True,
                log=logs.append) as srv:  # a TELL logs the user's new model file, whose name holds a NEL
        out = check(srv, b"n\xc2\x85x", "TELL", b"Message-class: spam\r\nSet: local\r\n")
        assert out == b"SPAMD/1.1 0 EX_OK\r\nDidSet: local\r\n\r\n", out
    assert os.path.exists(os.path.join(os.fsencode(users), b"n\xc2\x85x.tnb"))
    assert any(line.startswith("spamd: user 'a\\xe2\\x80\\xa8b\\xff': ") and "/a\\u2028b\\xff.tnb: " in line
               for line in logs), logs
    assert any(line.endswith("/n\\x85x.tnb") and line.startswith("spamd: TELL set spam in ") for line in logs), logs
    assert all(line.isascii() and line.isprintable() for line in logs), logs
    assert protocol.one_line("a\tb\r\n\u2028c\x85\x1b[2J\udcff\u202e") == "a b \\u2028c\\x85\\x1b[2J\\xff\\u202e"


@pytest.mark.parametrize("umask, served_mode, expected", [(0o077, 0o644, 0o600), (0o022, 0o600, 0o600),
                                                          (0o022, 0o644, 0o644), (0o022, 0o444, 0o644)])
def test_a_users_copy_and_journal_are_no_wider_than_the_umask_and_the_served_model(spam_model, sock_dir, umask,
                                                                                   served_mode, expected):
    """A user's first TELL copies the served model: the copy and its journal were 0644
    whatever the daemon's umask and the served file's mode (a private model's copies,
    a user's mail statistics, readable by all). They get a new file's mode (``0666 &
    ~umask``), no wider than the served model's; and the daemon may write them (session 49: a
    read-only served model's copies were 0444, a file textnb no longer replaces, so the user's
    next TELL would have been refused)."""
    users = sock_dir / "users"
    users.mkdir()
    served = sock_dir / "served.tnb"
    shutil.copyfile(spam_model, served)
    os.chmod(served, served_mode)
    _, ham = messages(14)
    old = os.umask(umask)
    try:
        with Server(served, spamd=("127.0.0.1", 0), user_models=str(users / "%u.tnb"), allow_tell=True) as srv:
            out = raw(srv.spamd_address, request("TELL", ham, [("Message-class", "spam"), ("Set", "local"),
                                                               ("User", "carol")]))
    finally:
        os.umask(old)
    assert b"DidSet: local" in out, out
    for name in ("carol.tnb", "carol.tnb.learned"):
        assert stat.S_IMODE(os.stat(users / name).st_mode) == expected, name
