"""One message, one treatment on every mail path (session 27, "mailseam"): ``spamfilter``
(stdin, ``--batch`` over a file and an mbox, ``--register-*``), ``textnb serve`` (its socket,
HTTP ``"mail": true``, spamd CHECK / PROCESS / TELL) and ``topicfilter``."""

import io
import json
import random
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest

import textnb
from textnb.apps.filtering import plan_routes, train_model
from textnb.apps.serve import Server
from textnb.cli.mailfilters import filter_main
from textnb.io.mailread import is_empty_message

from conftest import post
from test_serve import HAM_WORDS, SPAM_WORDS, raw_request

FROM_LINE = b"From alice@example.com Sat Jan  1 00:00:00 2000\n"
#: messages that are only an mbox From line, or its quoted form (the lines the mail reader drops)
ENVELOPE_ONLY = {"from": FROM_LINE, "quoted": b">" + FROM_LINE, "from+blank": FROM_LINE + b"\r\n \n",
                 "two": FROM_LINE + b">>" + FROM_LINE}


def _mail(words, rng):
    return (f"From: x@example.com\nSubject: {' '.join(rng.choice(words) for _ in range(3))}\n\n"
            f"{' '.join(rng.choice(words) for _ in range(12))}\n").encode()


@pytest.fixture(scope="module")
def spam_model(tmp_path_factory):
    root = tmp_path_factory.mktemp("seams")
    rng = random.Random(0)
    for label, words in (("spam", SPAM_WORDS), ("ham", HAM_WORDS)):
        (root / label).mkdir()
        for i in range(25):
            (root / label / f"{i}.eml").write_bytes(_mail(words, rng))
    train_model(root / "spam.tnb", [root / "spam"], [root / "ham"])
    return root / "spam.tnb"


@pytest.fixture()
def sock_dir():
    d = tempfile.mkdtemp(prefix="tnbm")  # (AF_UNIX paths are short: not pytest's tmp_path)
    yield Path(d)
    shutil.rmtree(d, ignore_errors=True)


def _cold(argv, stdin=b""):
    out, err = io.BytesIO(), io.StringIO()
    code = filter_main(argv, stdin=io.BytesIO(stdin), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


# -- 1. an empty message: white space only, once the mbox From lines are left out ------------
def test_is_empty_message_leaves_out_the_from_lines_the_reader_drops():
    for data in (b"", b" \n\t", *ENVELOPE_ONLY.values(), FROM_LINE.replace(b"\n", b"\r")):
        assert is_empty_message(data), data
    for data in (b"From the desk of Bob\n", b"Subject: hi\n", FROM_LINE + b"x", b">From here on\n",
                 b">" + FROM_LINE + b"\n" + b" " * 5000 + b"x", b"x" + b" " * 10):
        assert not is_empty_message(data), data


@pytest.mark.parametrize("name", list(ENVELOPE_ONLY))
def test_a_message_of_only_a_from_line_is_empty_on_every_path(name, spam_model, sock_dir, tmp_path):
    """Such a message was ``FILE:N: empty message`` inside an mbox, but scored (ham or
    unsure, from no evidence) on stdin, as a file of --batch (the quoted form), through the
    daemon's three protocols and by topicfilter: now it is an empty message everywhere."""
    message = ENVELOPE_ONLY[name]
    before = spam_model.read_bytes()
    # spamfilter: stdin, -p (the message written back unchanged), --register-*
    assert _cold(["-m", str(spam_model)], message) == (3, b"", "spamfilter: stdin: empty message\n")
    assert _cold(["-m", str(spam_model), "-p"], message) == (3, message, "spamfilter: stdin: empty message\n")
    assert _cold(["-m", str(spam_model), "--register-spam"], message)[0::2] == (
        3, "spamfilter: stdin: empty message\n")
    assert spam_model.read_bytes() == before
    # --batch: the message as a file, and inside an mbox between two messages
    one = tmp_path / "one.eml"
    one.write_bytes(message)
    box = tmp_path / "in.mbox"
    rng = random.Random(1)
    in_box = message if message.startswith(b"From ") else FROM_LINE + message  # (its own From line first)
    box.write_bytes(FROM_LINE + _mail(SPAM_WORDS, rng) + b"\n" + in_box + b"\n" + FROM_LINE + _mail(HAM_WORDS, rng))
    code, out, err = _cold(["-m", str(spam_model), "--batch", str(one), str(box)])
    assert code == 3 and [line.split(b"\t")[:2] for line in out.splitlines()] == [
        [f"{box}:1".encode(), b"spam"], [f"{box}:3".encode(), b"ham"]]
    assert err == f"spamfilter: {one}: empty message\nspamfilter: {box}:2: empty message\n"
    # the daemon: its socket, HTTP "mail": true, spamd CHECK, PROCESS and TELL
    with Server(spam_model, socket_path=sock_dir / "s", http=("127.0.0.1", 0), spamd=("127.0.0.1", 0),
                allow_tell=True) as srv:
        assert raw_request(sock_dir / "s", f"SPAM {len(message)}\n".encode() + message) == (
            b"ERR stdin: empty message\n")
        assert post(srv.http_address[1], {"texts": [message.decode()], "mail": True}) == (
            400, {"error": "texts[0]: empty message"})
        for method, extra in (("CHECK", ""), ("PROCESS", ""), ("TELL", "Message-class: spam\r\nSet: local\r\n")):
            reply = raw_request(srv.spamd_address, f"{method} SPAMC/1.5\r\n{extra}Content-length: {len(message)}"
                                                f"\r\n\r\n".encode() + message)
            assert reply == b"SPAMD/1.0 65 Bad message: empty message\r\n", method
    assert spam_model.read_bytes() == before
    # topicfilter (a text model, the message read as mail)
    topic = tmp_path / "t.tnb"
    textnb.TextClassifier().fit(["cheap pills casino"] * 3 + ["meeting agenda budget"] * 3,
                                ["shop"] * 3 + ["work"] * 3).save(topic)
    errors = []
    routes = list(plan_routes(textnb.load(topic), [one, box], tmp_path / "out", mail_mode=True,
                              on_error=errors.append))
    assert [r.source for r in routes] == [f"{box}:1", f"{box}:3"]
    # (a file of one message is FILE here too, as for --batch: topicfilter said FILE:1 until session 28)
    assert errors == [f"{one}: empty message", f"{box}:2: empty message"]


# -- 2. cut-offs over HTTP (and the socket's CLASSIFY): applied, or refused ------------------
def test_http_cutoffs_without_a_verdict_are_refused_as_the_socket_refuses_them(spam_model, sock_dir, tmp_path):
    """``POST /classify`` took ``spam_cutoff`` / ``ham_cutoff`` without ``"mail": true`` (or
    for a model that is not a spam model) and dropped them without a word, even 7: now one
    400 line says why; with ``"mail": true`` they set the verdict, as ``SPAM ... spam_cutoff=``."""
    message = _mail(SPAM_WORDS, random.Random(2))
    topic = tmp_path / "t.tnb"
    textnb.TextClassifier().fit(["cheap pills casino"] * 3 + ["meeting agenda budget"] * 3,
                                ["shop"] * 3 + ["work"] * 3).save(topic)
    cutoffs = {"spam_cutoff": 1.0, "ham_cutoff": 0.2}
    with Server(spam_model, socket_path=sock_dir / "s", http=("127.0.0.1", 0)) as srv:
        port = srv.http_address[1]
        status, got = post(port, {"texts": [message.decode()], "mail": True, **cutoffs})
        reply = raw_request(sock_dir / "s", f"SPAM {len(message)} spam_cutoff=1 ham_cutoff=0.2\n".encode()
                         + message)
        assert status == 200 and reply.split()[:3] == [b"OK", b"2", got["verdicts"][0]["label"].encode()]
        assert got["verdicts"][0]["label"] == "unsure"  # (spam with the default cut-offs)
        for body, error in (
                ({"texts": ["cheap pills"], "spam_cutoff": 0.5},
                 '"spam_cutoff" applies only with "mail": true (each text a message, given a verdict)'),
                ({"texts": ["cheap pills"], "mail": False, **cutoffs},
                 '"spam_cutoff" and "ham_cutoff" apply only with "mail": true (each text a message, given a verdict)'),
                ({"texts": [], "ham_cutoff": 0.2},
                 '"ham_cutoff" applies only with "mail": true (each text a message, given a verdict)'),
                ({"texts": ["x"], "spam_cutoff": 7}, "spam_cutoff must be a probability between 0 and 1; got 7")):
            assert post(port, body) == (400, {"error": error})
            data = json.dumps(body).encode()
            assert raw_request(sock_dir / "s", f"CLASSIFY {len(data)}\n".encode() + data) == f"ERR {error}\n".encode()
    with Server(topic, http=("127.0.0.1", 0)) as srv:
        for mail in (False, True):
            assert post(srv.http_address[1], {"texts": ["cheap pills"], "mail": mail, "spam_cutoff": 0.5}) == (
                400, {"error": "\"spam_cutoff\" applies only to a spam model's verdicts; the served model is not a "
                               "spam model (classes ham and spam)"})


# -- 3. TELL and --(un)register-* on a model whose journal does not list every message ------
def _counts(path):
    model = textnb.load(path)
    return dict(zip(model.vocabulary_.tolist(), model.feature_count_.T.tolist())), model.class_count_.tolist()


def test_tell_and_unregister_agree_on_a_journal_that_is_not_complete(spam_model, tmp_path):
    """With ``MODEL.learned`` not complete (a message registered twice), ``--unregister-*``
    and ``--register-*`` left the journal's listing as it was: TELL then forgot a message
    spamfilter had unregistered already (refused, or counted off twice), did not find one
    spamfilter had registered (``already un/learned``), and ``-L ham`` of a message registered
    as spam counted it in both classes. Now both paths keep one listing."""
    from textnb.apps.spamd import tell
    from textnb.apps.filtering import read_journal

    model = tmp_path / "m.tnb"
    shutil.copyfile(spam_model, model)
    rng = random.Random(5)
    x, y, z = (_mail(SPAM_WORDS + HAM_WORDS, rng) for _ in range(3))
    files = {}
    for name, data in (("x", x), ("y", y), ("z", z)):
        files[name] = tmp_path / f"{name}.eml"
        files[name].write_bytes(data)

    def spamfilter(*argv):
        code, _, err = _cold(["-m", str(model), *argv])
        return code, err

    assert spamfilter("--register-spam", str(files["x"])) == (0, "")
    assert spamfilter("--register-spam", str(files["x"])) == (0, "")  # counted twice: the journal is not complete
    assert read_journal(str(model) + ".learned")[3] is False
    # TELL learns y, spamfilter unregisters it: TELL has nothing left to forget
    start = _counts(model)
    assert tell(model, y, set_class="spam")
    assert spamfilter("--unregister-spam", str(files["y"])) == (0, "")
    assert _counts(model) == start
    assert not tell(model, y, remove=True)  # ('Message was already un/learned')
    assert _counts(model) == start
    # spamfilter registers z: TELL finds it, and forgets it as spamfilter would
    assert spamfilter("--register-spam", str(files["z"])) == (0, "")
    assert tell(model, z, remove=True)
    assert _counts(model) == start
    # registered as spam, told ham: moved, as --unregister-spam --register-ham moves it
    assert spamfilter("--register-spam", str(files["z"])) == (0, "")
    assert tell(model, z, set_class="ham")
    moved = _counts(model)
    zf = str(files["z"])
    assert spamfilter("--unregister-ham", zf, "--register-spam", zf) == (0, "")
    assert spamfilter("--unregister-spam", zf, "--register-ham", zf) == (0, "")
    assert _counts(model) == moved
    # what neither may forget is refused in the same words (the default kind says what others say)
    code, err = spamfilter("--unregister-spam", str(files["y"]))
    assert code == 3 and err.startswith(f"spamfilter: {files['y']}: cannot unregister as spam: cannot forget "
                                        "documents that were never learned (")


# -- 4. a --batch / --train-* helper process killed: said, and its work done here -----------
@pytest.mark.slow
def test_a_helper_killed_by_sigkill_is_said_and_the_output_stays_complete(spam_model, tmp_path, monkeypatch,
                                                                          forked_pids):
    """``spamfilter --batch -j 2`` whose helper is killed (SIGKILL: the OOM killer, a user)
    gave every line and exit 0 but said nothing; now one line on stderr says it (the output
    and the exit status unchanged). ``--train-*`` reads its mail through the same helpers."""
    import os

    from textnb.apps import filtering, spamlite

    folder = tmp_path / "box"
    folder.mkdir()
    rng = random.Random(7)
    for i in range(200):
        (folder / f"{i:03}.eml").write_bytes(_mail(SPAM_WORDS if i % 2 else HAM_WORDS, rng))
    expected = _cold(["-m", str(spam_model), "--batch", str(folder), "-j", "1"])
    assert expected[0] == 0 and len(expected[1].splitlines()) == 200 and not forked_pids
    said = "spamfilter: warning: helper process {} was killed by signal 9 (SIGKILL) before it was done; this " \
           "process did what it left undone (nothing is missing)\n"
    monkeypatch.setattr(spamlite.LiteFilter, "classify", _killing(spamlite.LiteFilter.classify, os.getpid()))
    code, out, err = _cold(["-m", str(spam_model), "--batch", str(folder), "-j", "2"])
    assert len(forked_pids) == 1
    assert (code, out, err) == (*expected[:2], said.format(forked_pids[0]))
    # training reads its mail through the same helpers: the same line, the model of one process
    forked_pids.clear()
    monkeypatch.setattr(filtering, "_features_digest_list", _killing(filtering._features_digest_list, os.getpid()))
    one, two = tmp_path / "one.tnb", tmp_path / "two.tnb"
    ham = spam_model.parent / "ham"
    assert _cold(["-m", str(one), "--train-spam", str(folder), "--train-ham", str(ham), "-j", "1"])[0] == 0
    code, _, err = _cold(["-m", str(two), "--train-spam", str(folder), "--train-ham", str(ham), "-j", "2"])
    assert code == 0 and len(forked_pids) == 1 and one.read_bytes() == two.read_bytes()
    assert err.startswith(said.format(forked_pids[0]))


def _killing(func, parent):
    """``func`` that kills the process it runs in (SIGKILL) unless it is ``parent``."""
    import os
    import time

    def wrapper(*args):
        if os.getpid() != parent:
            os.kill(os.getpid(), 9)
        time.sleep(0.01)  # (the helper starts and claims its share meanwhile)
        return func(*args)
    return wrapper


# -- per-user models (--user-models DIR/%u.tnb), found by the user trial ---------------------
def test_a_user_name_too_long_for_its_model_file_is_refused_and_a_no_op_tell_leaves_no_file(spam_model, sock_dir):
    """A name that fits the 255-byte check but not a file name (``NAME.tnb.learned.lock``)
    was served the served model on CHECK and failed TELL with 69 and the whole path
    (``File name too long``); now both are 67 ``Unknown user`` as for any name not allowed
    in a model path. A ``-L forget`` (no class) of a message for a user without a model
    changes nothing, but left ``NAME.tnb.learned.lock`` behind for any name sent."""
    users = sock_dir / "users"
    users.mkdir()
    message = _mail(SPAM_WORDS, random.Random(9))
    tell = "Message-class: spam\r\nSet: local\r\n"
    with Server(spam_model, spamd=("127.0.0.1", 0), user_models=str(users / "%u.tnb"), allow_tell=True) as srv:
        for name, method in (("a" * 239, "CHECK"), ("a" * 239, "TELL"), ("b" * 238, "CHECK")):
            extra = tell if method == "TELL" else ""
            reply = raw_request(srv.spamd_address, f"{method} SPAMC/1.5\r\nUser: {name}\r\n{extra}Content-length: "
                                                f"{len(message)}\r\n\r\n".encode() + message)
            if len(name) == 238:  # (238 + '.tnb.learned.lock' = 255 bytes: allowed)
                assert reply.startswith(b"SPAMD/1.1 0 EX_OK\r\n"), reply
            else:
                assert reply == (f"SPAMD/1.0 67 Unknown user: user name {'a' * 40!r}... not allowed in a model path (a "
                                 "file name of its model would be over 255 bytes)\r\n").encode()
        for user in ("carol", "dave"):
            reply = raw_request(srv.spamd_address, f"TELL SPAMC/1.5\r\nUser: {user}\r\nRemove: local\r\nContent-length: "
                                                f"{len(message)}\r\n\r\n".encode() + message)
            assert reply == b"SPAMD/1.1 0 EX_OK\r\n\r\n"  # ('Message was already un/learned')
    assert list(users.iterdir()) == []


def test_http_cutoffs_in_the_wrong_order_are_refused_without_a_message(spam_model, sock_dir):
    """``POST /classify`` of ``{"texts": [], "mail": true, "ham_cutoff": 0.9, "spam_cutoff": 0.5}``
    answered 200: the cut-offs' order was only checked once there was a message. Now it is
    checked first, in the words of the socket's ``SPAM`` (which checks it before the message)."""
    error = "the ham cut-off 0.9 is above the spam cut-off 0.5"
    with Server(spam_model, socket_path=sock_dir / "s", http=("127.0.0.1", 0)) as srv:
        port = srv.http_address[1]
        assert raw_request(sock_dir / "s", b"SPAM 0 spam_cutoff=0.5 ham_cutoff=0.9\n") == f"ERR {error}\n".encode()
        for body in ({"texts": [], "mail": True, "ham_cutoff": 0.9, "spam_cutoff": 0.5},
                     {"texts": ["cheap pills"], "mail": True, "ham_cutoff": 0.9, "spam_cutoff": 0.5}):
            assert post(port, body) == (400, {"error": error})
            data = json.dumps(body).encode()
            assert raw_request(sock_dir / "s", f"CLASSIFY {len(data)}\n".encode() + data) == f"ERR {error}\n".encode()
        # one cut-off given: the other at its default (spam 0.999), as the socket's SPAM takes it
        assert post(port, {"texts": [], "mail": True, "ham_cutoff": 1.0}) == (
            400, {"error": "the ham cut-off 1.0 is above the spam cut-off 0.999"})
        assert post(port, {"texts": [], "mail": True, "ham_cutoff": 0.2, "spam_cutoff": 0.5})[0] == 200


def test_register_into_a_model_without_a_journal_starts_one_that_tell_reads(spam_model, tmp_path):
    """``spamfilter --register-*`` into a model with no ``MODEL.learned`` (trained by an older
    textnb) started none, while TELL starts one: TELL's ``forget`` then found nothing of what
    spamfilter had registered (``already un/learned``). Now both start the same journal, one
    that records the changes and does not claim to list every message; a registration that
    fails leaves none behind."""
    from textnb.apps.filtering import read_journal, update_model
    from textnb.apps.spamd import tell

    model = tmp_path / "old.tnb"
    shutil.copyfile(spam_model, model)  # (no journal: as an earlier textnb left it)
    journal = Path(str(model) + ".learned")
    assert not journal.exists()
    start = _counts(model)
    message = tmp_path / "x.eml"
    message.write_bytes(_mail(SPAM_WORDS + HAM_WORDS, random.Random(7)))
    with pytest.raises(textnb.core.errors.InputError, match="no messages found to register"):
        update_model(model, register=[])
    assert not journal.exists()
    assert _cold(["-m", str(model), "--register-spam", str(message)])[:1] == (0,)
    seen, _, identity, complete = read_journal(journal)
    assert list(seen.values()) == ["spam"] and identity is not None and complete is False
    assert tell(model, message.read_bytes(), remove=True)  # TELL finds and forgets it
    assert _counts(model) == start
    # the other order: TELL starts the journal, spamfilter's unregistration reads it
    other = tmp_path / "other.tnb"
    shutil.copyfile(spam_model, other)
    assert tell(other, message.read_bytes(), set_class="ham")
    assert _cold(["-m", str(other), "--unregister-ham", str(message)])[:1] == (0,)
    assert read_journal(str(other) + ".learned")[0] == {}
    assert not tell(other, message.read_bytes(), remove=True)


def test_a_request_of_no_texts_has_the_keys_of_any_answer(spam_model, sock_dir, tmp_path):
    """``POST /classify`` (and the socket's ``CLASSIFY``, the same answer) of ``{"texts": []}``
    answered 200 with empty lists, but for a spam model with ``"mail": true`` without the
    ``"verdicts"`` that every other answer of that request has, and for a model without
    log-odds with a ``"log_odds"`` that no other answer has (session 28). Now the keys of a
    one-text answer, each list empty."""
    from textnb.apps.serve import classify_texts

    topic = tmp_path / "t.tnb"
    textnb.TextClassifier().fit(["cheap pills casino"] * 3 + ["meeting agenda budget"] * 3,
                                ["shop"] * 3 + ["work"] * 3).save(topic)
    for model, extra in ((spam_model, {"mail": True}), (spam_model, {}), (topic, {"mail": True}), (topic, {})):
        with Server(model, socket_path=sock_dir / "s", http=("127.0.0.1", 0)) as srv:
            one = post(srv.http_address[1], {"texts": ["Subject: hi\n\ncheap pills"], **extra})
            none = post(srv.http_address[1], {"texts": [], **extra})
            data = json.dumps({"texts": [], **extra}).encode()
            reply = raw_request(sock_dir / "s", f"CLASSIFY {len(data)}\n".encode() + data)
        assert one[0] == none[0] == 200 and set(none[1]) == set(one[1]), (model, extra, one, none)
        assert all(v == [] for k, v in none[1].items() if k != "classes")
        head, _, body = reply.partition(b"\n")
        assert head.startswith(b"OK ") and json.loads(body) == none[1]
        if model == spam_model and extra:
            assert none[1]["verdicts"] == []

    class NoLogOdds:  # (a served model without predict_log_odds: its answers have no "log_odds")
        classes_ = np.array(["a", "b"])

        def predict_proba(self, texts):
            return np.full((len(texts), 2), 0.5)

    assert set(classify_texts(NoLogOdds(), {"texts": []})) == set(classify_texts(NoLogOdds(), {"texts": ["x"]})) \
        == {"classes", "labels", "probabilities"}


def test_a_message_saved_with_a_byte_order_mark_keeps_its_header():
    """A message file a Windows editor saved with a UTF-8 byte-order mark: the mark hid the
    first field, so the whole header was read as body text (-60 where the same message
    without the mark scored -161 on the SpamAssassin model), on every path alike. The mark
    goes as the mbox From line goes (every other reader of a file drops it too): the same
    tokens, the verdict fields at the end of the header with the mark kept in place, and a
    mark alone is an empty message."""
    from textnb.apps.spamlite import Verdict, add_headers
    from textnb.io.mailtokens import message_tokens

    msg = (b"From: Alice <alice@example.org>\nSubject: cheap pills now\nContent-Type: text/plain\n\n"
           b"buy cheap pills today\n")
    bom = b"\xef\xbb\xbf"
    for shape in (msg, b"From alice@example.org Mon Jan  1 00:00:00 2024\n" + msg, msg.replace(b"\n", b"\r\n")):
        assert message_tokens(bom + shape) == message_tokens(shape)
    out = add_headers(bom + msg, Verdict("spam", 0.99, 4.6))
    assert out.startswith(bom + b"From: Alice") and b"Content-Type: text/plain\nX-TextNB-Class: spam\n" in out
    assert out.endswith(b"\n\nbuy cheap pills today\n")
    assert is_empty_message(bom) and is_empty_message(bom + b" \n") and not is_empty_message(bom + b"x")
