"""Spam verdicts, locked atomic model updates and topic routing: textnb.apps.filtering."""

import hashlib
import io
import multiprocessing
import os
import shutil
import random
from pathlib import Path

import numpy as np
import pytest

import textnb
from textnb.core.errors import InputError, ModelFileError
from textnb.io.mailread import _bare_cr_lines
from textnb.apps.filtering import (
    HAM,
    SPAM,
    UNSURE,
    Mailboxes,
    SpamFilter,
    Verdict,
    add_headers,
    apply_route,
    check_cutoffs,
    default_model_path,
    model_lock,
    plan_routes,
    spam_text,
    train_model,
    update_model,
    verdict_of,
)

SPAM_WORDS = "viagra cheap offer winner prize casino pills discount".split()
HAM_WORDS = "meeting project schedule report review agenda budget minutes".split()


def make_mail(words, rng, n=12, subject=None):
    body = " ".join(rng.choice(words) for _ in range(n))
    subject = subject or " ".join(rng.choice(words) for _ in range(3))
    return (f"From: someone@example.com\nTo: me@example.org\nSubject: {subject}\n"
            f"Content-Type: text/plain\n\n{body}\n").encode()


def write_maildir(folder, messages):
    for sub in ("cur", "new", "tmp"):
        os.makedirs(os.path.join(folder, sub), exist_ok=True)
    for i, m in enumerate(messages):
        with open(os.path.join(folder, "cur", f"{i:04d}.host:2,S"), "wb") as f:
            f.write(m)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    rng = random.Random(0)
    root = tmp_path_factory.mktemp("mail")
    spam = [make_mail(SPAM_WORDS, rng) for _ in range(30)]
    ham = [make_mail(HAM_WORDS, rng) for _ in range(30)]
    write_maildir(root / "spam", spam)
    with open(root / "ham.mbox", "wb") as f:  # ham as an mbox
        for m in ham:
            f.write(b"From me@example.org Mon Jan  1 00:00:00 2024\n" + m + b"\n")
    return root


@pytest.fixture(scope="module")
def model_file(corpus, tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "spam.tnb"
    counts = train_model(path, [corpus / "spam"], [corpus / "ham.mbox"])
    assert counts == {SPAM: 30, HAM: 30}
    return path


# -- verdicts ---------------------------------------------------------------------
def test_verdict_cutoffs():
    logit = lambda p: np.log(p) - np.log1p(-p)  # noqa: E731
    assert verdict_of(logit(0.995), 0.99, 0.45) == SPAM
    assert verdict_of(logit(0.99), 0.99, 0.45) == SPAM  # at the cut-off: spam
    assert verdict_of(logit(0.7), 0.99, 0.45) == UNSURE
    assert verdict_of(logit(0.45) - 1e-9, 0.99, 0.45) == HAM
    # the defaults: spam from P(spam) 0.999 on, ham up to 0.45
    assert verdict_of(logit(0.9995)) == SPAM and verdict_of(logit(0.995)) == UNSURE
    assert verdict_of(logit(0.45) - 1e-9) == HAM
    assert verdict_of(800.0) == SPAM and verdict_of(-800.0) == HAM  # beyond float probabilities
    # equal cut-offs: two verdicts only
    assert {verdict_of(x, 0.5, 0.5) for x in np.linspace(-5, 5, 101)} == {SPAM, HAM}
    assert verdict_of(0.0, 1.0, 0.0) == UNSURE


def test_check_cutoffs():
    check_cutoffs(0.99, 0.45)
    with pytest.raises(InputError, match="above the spam cut-off"):
        check_cutoffs(0.4, 0.6)
    with pytest.raises(InputError, match="between 0 and 1"):
        check_cutoffs(1.5, 0.2)


def test_default_model_path(tmp_path):
    assert default_model_path(environ={"XDG_DATA_HOME": "/x/data"}) == \
        default_model_path(environ={"XDG_DATA_HOME": "/x/data"})
    assert str(default_model_path(environ={"XDG_DATA_HOME": "/x/data"})) == "/x/data/textnb/spam.tnb"
    assert str(default_model_path(environ={})).endswith(os.path.join(".local", "share", "textnb", "spam.tnb"))


# -- headers ----------------------------------------------------------------------------
V = Verdict(SPAM, 0.999, 6.9)


def test_add_headers_lf_and_crlf():
    msg = b"Subject: x\nX-TextNB-Class: ham\n  continued\nFrom: a@b\n\nbody\nX-TextNB-Class: body\n"
    out = add_headers(msg, V)
    head, body = out.split(b"\n\n", 1)
    assert body == b"body\nX-TextNB-Class: body\n"  # the body is untouched
    assert head.count(b"X-TextNB-Class") == 1 and b"continued" not in head
    assert head.endswith(b"X-TextNB-Class: spam\nX-TextNB-Score: 6.9\nX-TextNB-Log-Odds: 6.9000")
    crlf = b"Subject: x\r\nFrom: a@b\r\n\r\nbody\r\n"
    out = add_headers(crlf, V)
    assert out.startswith(b"Subject: x\r\nFrom: a@b\r\nX-TextNB-Class: spam\r\n")
    assert out.endswith(b"\r\n\r\nbody\r\n")


def test_add_headers_without_header_block():
    out = add_headers(b"no headers at all", V)
    assert out.startswith(b"X-TextNB-Class: spam\n") and out.endswith(b"6.9000\n\nno headers at all")
    out = add_headers(b"From a@b Mon Jan  1 00:00:00 2024\nplain text", V)
    assert out.startswith(b"From a@b Mon Jan  1 00:00:00 2024\nX-TextNB-Class: spam\n")
    assert out.endswith(b"\n\nplain text")
    out = add_headers(b"From a@b Mon Jan  1 00:00:00 2024\nSubject: x", V)  # a header to its end
    assert out.startswith(b"From a@b Mon Jan  1 00:00:00 2024\nX-TextNB-Class: spam\n")
    assert out.endswith(b"6.9000\nSubject: x")



def test_add_headers_to_a_bare_cr_message_with_a_from_line():
    """A bare-CR message (old Mac) starting with an mbox From line was all From line to the
    reader: the fields went after its body. They go at the end of its header, with its
    line end, and come off again."""
    msg = b"From a@b Mon Jan  1 00:00:00 2024\rSubject: x\rFrom: a@b\r\rbody\r"
    out = add_headers(msg, V)
    assert out == (b"From a@b Mon Jan  1 00:00:00 2024\rSubject: x\rFrom: a@b\rX-TextNB-Class: spam\r"
                   b"X-TextNB-Score: 6.9\rX-TextNB-Log-Odds: 6.9000\r\rbody\r")
    assert add_headers(out, Verdict(HAM, 0.1, -2.0)).count(b"X-TextNB-Class") == 1
    from textnb.apps.spamlite import remove_headers

    assert remove_headers(out) == msg



def test_add_headers_after_name_value_fields_and_forged_ones_removed():
    """A field ``Name:value`` (no blank after the colon) ended the header even before a
    blank line: the fields went before it, and forged X-TextNB-* fields after it stayed;
    a first line ``From:alice@...`` made the message header-less (the fields went first,
    then a blank line, pushing the header into the body)."""
    msg = b"Subject: x\nFoo:bar\nX-TextNB-Class: ham\nX-TextNB-Score:-9\n\nbody\nNote:this\n"
    out = add_headers(msg, V)
    assert out == (b"Subject: x\nFoo:bar\nX-TextNB-Class: spam\nX-TextNB-Score: 6.9\nX-TextNB-Log-Odds: 6.9000\n"
                   b"\nbody\nNote:this\n")
    out = add_headers(b"From:alice@example.com\nSubject:hi\n\nbody\n", V)
    assert out.startswith(b"From:alice@example.com\nSubject:hi\nX-TextNB-Class: spam\n")
    assert out.endswith(b"6.9000\n\nbody\n")


_CUT_MESSAGE = (b"From: Alice <alice@example.com>\nTo: bob@example.org\nSubject: lunch\n tomorrow at noon\n"
                b"Received: from mx.example.com\n\tby relay.example.org with ESMTP\n\tfor <bob@example.org>; Tue\n"
                b"Message-ID: <a1@example.com>\n\nSee you then.\n")


@pytest.mark.parametrize("eol", [b"\n", b"\r\n", b"\r"], ids=["LF", "CRLF", "CR"])
@pytest.mark.parametrize("cut", range(len(b"From: "), len(_CUT_MESSAGE.replace(b"\n", b"\r\n"))))  # (a cut in the
def test_fields_never_go_into_a_line_of_a_header_cut_by_max_bytes(cut, eol):  # first name: no header to read)
    """``-p --max-bytes N`` (and the daemon with the same limit) read a message cut inside
    its header: the fields go before the last field read, which may go on past the cut
    (a folded line too), so the delivered message (what was read with the fields, then the
    rest) has every field of the original intact and the body unchanged. A cut just after
    a line end and the white space of a continuation line (``"\\n\\t"``) put them after the
    first line of a field folded over three lines (the reader takes the lone white space
    for the blank line): the rest of the field then continued our last field, and a second
    pass, removing our fields with their continuation lines, deleted it."""
    import email
    import email.policy

    from textnb.apps.spamlite import remove_headers

    msg = _CUT_MESSAGE.replace(b"\n", eol)
    if cut >= len(msg):
        return
    delivered = add_headers(msg[:cut], V) + msg[cut:]
    parsed = email.message_from_bytes(delivered, policy=email.policy.compat32)
    original = email.message_from_bytes(msg, policy=email.policy.compat32)
    assert not parsed.defects
    assert [(k, v) for k, v in parsed.items() if not k.startswith("X-TextNB")] == list(original.items())
    assert parsed["X-TextNB-Log-Odds"] == "6.9000" and parsed.get_payload() == "See you then." + eol.decode()
    assert remove_headers(delivered) == msg  # (a second filter's pass starts by removing them)


#: the shapes of a message's start that the fields must be placed in as the reader reads them
SHAPES = {
    "blank line": b"Subject: hi\nFrom: a@b.example\n\nbody words here\n",
    "no blank line": b"From: a@b.example\nSubject: hi\nFirst body line.\n\nSecond para.\n",
    "broken header": b"Received: from mx\nthis is a broken header line\nSubject: hi\n\nbody\n",
    "header-less": b"Hello Bob, lunch tomorrow?\n\nCheers, Al\n",
    "From as a first word": b"From the desk of the director: win money free offer\nVisit now\n",
    "one line": b"Ok lar... Joking wif u oni",
    "CRLF": b"From: a@b.example\r\nSubject: hi\r\n\r\nbody\r\n",
    "bare CR": b"Subject: a\rFrom: b@c\r\rbody words\r",
    "a stray CR in a field of LF lines": b"From: a@b.example\nSubject: win money\nX-Junk: a\rb\n\nbuy now\n",
    "a stray CR in the subject, CRLF": b"Subject: 4\rHealth\r\nFrom: a@b.example\r\n\r\nbody\r\n",
    "a stray CR in the last field, header only": b"From: a@b.example\nX-Junk: a\rb\n",
    "LF header, CRLF body": b"From: a@b.example\nSubject: hi\n\r\nbody\r\n\r\npara2\r\n",
    "folded": b"Subject: a long\n subject line\nX-Other: y\n\nbody\n",
    "mbox": b"From a@b Mon Jan  1 00:00:00 2024\nSubject: x\n\nbody here\n",
    "mbox, no header": b"From a@b Mon Jan  1 00:00:00 2024\nplain text here\n",
    "HTML without header": b"<html><body>cheap <b>pills</b> http://x.example/a</body></html>",
    "MIME without header": b"--XYZ\nContent-Type: text/plain\n\nhello there\n--XYZ--\n",
    "byte-order mark": b"\xef\xbb\xbfSubject: hi\n\nbody words\n",
    "leading blank line": b"\nSubject: hi\n\nbody words\n",
    "empty": b"",
}


def _archive_messages(name, n=400):
    """The first ``n`` messages of a shared mail archive (the test skips without it)."""
    import tarfile

    from conftest import shared_path

    with tarfile.open(shared_path("corpora", f"{name}.tar.gz")) as tar:
        for member in tar:
            if member.isfile():
                yield member.name, tar.extractfile(member).read()
                n -= 1
                if n == 0:
                    return


@pytest.mark.parametrize("source", ["shapes", pytest.param("spamassassin_public_corpus", marks=pytest.mark.slow),
                                    pytest.param("csdmc2010_spam", marks=pytest.mark.slow)])
def test_added_fields_sit_where_the_reader_ends_the_header_and_change_no_token(source):
    """``-p``, the daemon's -p and spamd's PROCESS (all add_headers) put the fields at the
    end of the header the mail reader finds (they went to the first blank line, into the
    body of a message without one, and became tokens); a second pass replaces them
    (stale X-TextNB-Class lines stayed for procmail to match); remove_headers (the
    daemon's message digest) gives the message back. The quick subset: the shapes above;
    the full suite: the first messages of the shared mail archives as well."""
    from textnb.apps.filtering import remove_headers
    from textnb.io.mailtokens import message_tokens

    other = Verdict(HAM, 0.1, -2.0)
    n = 0
    for name, msg in SHAPES.items() if source == "shapes" else _archive_messages(source):
        out = add_headers(msg, V)
        assert set(message_tokens(out)) == set(message_tokens(msg)), name
        assert add_headers(out, other) == add_headers(msg, other), name
        assert remove_headers(out) == msg, name
        assert out.count(b"X-TextNB-Class: spam") == 1
        # each field starts a line as procmail and every LF tool read the lines (a stray CR in
        # a field of LF lines is no line end: the fields went inside that field's line)
        ends = b"\r" if _bare_cr_lines(out[:4096]) else b"\n"
        assert any(line.lstrip(b"\n").startswith(b"X-TextNB-Class: spam") for line in out.split(ends)), name
        n += 1
    assert n == len(SHAPES) if source == "shapes" else n == 400


# -- classifying --------------------------------------------------------------------------
def test_spam_filter_classifies(model_file):
    rng = random.Random(1)
    sf = SpamFilter.load(model_file)
    verdicts = sf.classify([make_mail(SPAM_WORDS, rng), make_mail(HAM_WORDS, rng)])
    assert [v.label for v in verdicts] == [SPAM, HAM]
    assert verdicts[0].score > 0.99 and verdicts[1].score < 0.45
    assert verdicts[0].log_odds > 0 > verdicts[1].log_odds
    # the log-odds keep their order where the probability has rounded to 1
    long_spam = make_mail(SPAM_WORDS * 50, rng, n=400)
    assert sf.classify([long_spam])[0].score == pytest.approx(1.0)
    assert [s for s, _ in sf.classify_stream([("a", long_spam), ("b", b"x")])] == ["a", "b"]
    with pytest.raises(InputError, match=r"^b: empty message$"):  # (refused as every command refuses it)
        list(sf.classify_stream([("a", long_spam), ("b", b"")]))


def test_not_a_spam_model(tmp_path):
    clf = textnb.TextClassifier().fit(["aa bb", "cc dd"], ["x", "y"])
    clf.save(tmp_path / "m.tnb")
    with pytest.raises(ModelFileError, match="not a spam model"):
        SpamFilter.load(tmp_path / "m.tnb")
    with pytest.raises(ModelFileError, match="no such model file"):
        SpamFilter.load(tmp_path / "missing.tnb")


def test_spam_text_lists_each_token_once():
    text = spam_text(b"Subject: cheap cheap\n\ncheap pills cheap\n")
    toks = text.split()
    assert len(toks) == len(set(toks)) and "cheap" in toks and "subject_cheap" in toks


# -- updates -------------------------------------------------------------------------------
def counts(path):
    """(messages per class, count per token) of a model file (SpamScorer: ``subject:w`` tokens
    are given as ``subject_w``, the name the older TextClassifier models use)."""
    m = textnb.load(path)
    if hasattr(m, "model_"):
        return m.model_.class_count_.copy(), dict(zip(m.vectorizer_.get_feature_names_out(),
                                                      m.model_.feature_count_.sum(axis=0)))
    return m.class_count_.astype(float), dict(zip((t.replace(":", "_") for t in m.vocabulary_.tolist()),
                                                  m.feature_count_.sum(axis=0)))


@pytest.mark.slow
def test_register_and_unregister_exact(model_file, tmp_path):
    path = tmp_path / "m.tnb"
    path.write_bytes(model_file.read_bytes())
    cc0, fc0 = counts(path)
    msg = b"Subject: brandnewword\n\nzyzzyva brandnewword\n"
    assert update_model(path, register=[(SPAM, msg)]) == {"registered": 1, "unregistered": 0}
    cc1, fc1 = counts(path)
    assert cc1[list(textnb.load(path).classes_).index(SPAM)] == cc0[1] + 1
    assert fc1["zyzzyva"] == 1 and fc1["subject_brandnewword"] == 1
    # a mistake corrected in one call: off spam, onto ham
    update_model(path, unregister=[(SPAM, msg)], register=[(HAM, msg)])
    cc2, fc2 = counts(path)
    assert cc2.tolist() == [cc0[0] + 1, cc0[1]]
    update_model(path, unregister=[(HAM, msg)])
    cc3, fc3 = counts(path)
    assert cc3.tolist() == cc0.tolist()
    assert all(fc3[t] == v for t, v in fc0.items())
    with pytest.raises(InputError, match="cannot unregister"):
        update_model(path, unregister=[(HAM, b"Subject: never seen\n\nqwertyuiop\n")])
    assert counts(path)[0].tolist() == cc0.tolist()  # a refused update changes nothing
    # (the journal the first registration started, as TELL starts it, and its lock)
    leftovers = [p for p in os.listdir(tmp_path) if p not in ("m.tnb", "m.tnb.lock", "m.tnb.learned",
                                                              "m.tnb.learned.lock")]
    assert leftovers == []


def test_register_creates_and_unregister_needs_model(tmp_path):
    path = tmp_path / "new.tnb"
    update_model(path, register=[(SPAM, b"Subject: a\n\ncheap pills\n"), (HAM, b"Subject: b\n\nmeeting\n")])
    assert counts(path)[0].tolist() == [1, 1]
    with pytest.raises(ModelFileError, match="no such model"):
        update_model(tmp_path / "none.tnb", unregister=[(SPAM, b"x")])
    with pytest.raises(InputError, match="unknown label"):
        update_model(path, register=[("eggs", b"x")])


def test_register_takes_messages_as_it_goes_and_an_error_changes_nothing(tmp_path, monkeypatch):
    """update_model takes the messages one batch at a time under the lock (``--register-*``
    of a large mailbox does not hold it in memory); a bad label or an unreadable path met
    on the way leaves the model file byte for byte as it was."""
    from textnb.apps import filtering

    monkeypatch.setattr(filtering, "_BATCH", 4)
    path = tmp_path / "m.tnb"
    update_model(path, register=[(SPAM, b"Subject: a\n\ncheap pills\n"), (HAM, b"Subject: b\n\nmeeting\n")])
    before = path.read_bytes()
    taken = []

    def messages():
        for i in range(10):
            taken.append(i)
            assert len(taken) <= 4 * (len(fed) + 1)  # never more than a batch ahead of learning
            yield SPAM, b"Subject: m%d\n\ncheap pills %d\n" % (i, i)

    fed = []
    model = textnb.load(path)
    learn = type(model).partial_fit
    monkeypatch.setattr(type(model), "partial_fit", lambda self, *a, **k: fed.append(1) or learn(self, *a, **k))
    assert update_model(path, register=messages()) == {"registered": 10, "unregistered": 0}
    assert len(fed) == 3  # (10 messages in batches of 4)
    after = path.read_bytes()
    for bad in ([(SPAM, b"x"), ("eggs", b"y")], filtering.Mailboxes([(SPAM, [tmp_path / "nowhere"])]),
                filtering.Mailboxes([(SPAM, ["-"]), (HAM, [tmp_path / "nowhere"])], b"Subject: c\n\npills\n"),
                filtering.Mailboxes([("eggs", ["-"])], b"x")):
        with pytest.raises(InputError):
            update_model(path, register=bad)
        assert path.read_bytes() == after != before


def _register_worker(args):
    path, worker, n = args
    for i in range(n):
        msg = f"Subject: w{worker}\n\ntoken{worker}x{i} common\n".encode()
        update_model(path, register=[(SPAM if i % 2 else HAM, msg)])
    return worker


@pytest.mark.slow
def test_concurrent_registrations_lose_nothing(model_file, tmp_path):
    path = tmp_path / "shared.tnb"
    path.write_bytes(model_file.read_bytes())
    cc0, _ = counts(path)
    n_proc, n_each = 4, 10
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(n_proc) as pool:
        done = pool.map(_register_worker, [(str(path), w, n_each) for w in range(n_proc)])
    assert sorted(done) == list(range(n_proc))
    cc, fc = counts(path)
    assert cc.sum() == cc0.sum() + n_proc * n_each
    assert cc.tolist() == [cc0[0] + n_proc * n_each / 2, cc0[1] + n_proc * n_each / 2]
    for w in range(n_proc):
        for i in range(n_each):
            assert fc[f"token{w}x{i}"] == 1
    assert fc["common"] == n_proc * n_each
    assert textnb.load(path)  # a whole, valid file


def test_model_lock_is_exclusive(tmp_path):
    import fcntl

    path = tmp_path / "m.tnb"
    with model_lock(path):
        fd = os.open(str(path) + ".lock", os.O_RDWR)
        with pytest.raises(BlockingIOError):
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.close(fd)
    fd = os.open(str(path) + ".lock", os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # free again
    os.close(fd)


def test_only_the_default_model_folder_is_created(tmp_path, corpus, monkeypatch):
    mail = [(SPAM, b"Subject: a\n\ncheap pills\n"), (HAM, b"Subject: b\n\nmeeting\n")]
    for make in (lambda p: update_model(p, register=mail),
                 lambda p: train_model(p, [corpus / "spam"], [corpus / "ham.mbox"])):
        with pytest.raises(InputError, match=r"sub/new\.tnb: cannot write \(no such folder: .*sub\)$"):
            make(tmp_path / "sub" / "new.tnb")
        assert not (tmp_path / "sub").exists()
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    update_model(default_model_path(), register=mail)
    assert counts(default_model_path())[0].tolist() == [1, 1]
    assert default_model_path().parent == tmp_path / "data" / "textnb"


def test_train_needs_both_classes(tmp_path, corpus):
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no ham"):
        train_model(tmp_path / "m.tnb", [corpus / "spam"], [tmp_path / "empty"])
    assert not (tmp_path / "m.tnb").exists()


def test_a_model_that_is_a_fifo_or_inside_a_mail_folder_is_refused_before_any_lock_file(tmp_path, corpus):
    """Found by a user trial: a FIFO given as the model was refused after its .lock and
    .learned.lock files were made (left beside it), and a model made inside a training
    folder put its lock files there, read as empty messages by the next training (exit 3).
    Both are refused before anything is made; a hidden name inside the folder (never read as
    mail) is taken."""
    fifo = tmp_path / "p"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="is a FIFO, not a regular file; refusing to write over it"):
        train_model(fifo, [corpus / "spam"], [corpus / "ham.mbox"])
    with pytest.raises(InputError, match="is a FIFO"):
        update_model(fifo, register=Mailboxes([("spam", [corpus / "spam"])]))
    mail = tmp_path / "mail"
    (mail / "spam").mkdir(parents=True)
    for k, path in enumerate(sorted((corpus / "spam" / "cur").iterdir())):
        shutil.copy(path, mail / "spam" / f"{k}.eml")
    inside = mail / "spam" / "model.tnb"
    with pytest.raises(InputError, match="is inside the mail folder .*spam; the model, its journal and its lock files"):
        train_model(inside, [mail / "spam"], [corpus / "ham.mbox"])
    with pytest.raises(InputError, match="is inside the mail folder"):
        update_model(inside, register=Mailboxes([("spam", [mail / "spam"])]))
    assert sorted(os.listdir(tmp_path)) == ["mail", "p"] and not inside.exists()
    hidden = mail / "spam" / ".model.tnb"
    train_model(hidden, [mail / "spam"], [corpus / "ham.mbox"])
    train_model(hidden, [mail / "spam"], [corpus / "ham.mbox"])  # (again: its files are never read as mail)
    maildir = tmp_path / "Maildir"  # a Maildir reads new/ and cur/ only: a model beside them is no mail
    shutil.copytree(corpus / "spam", maildir)
    train_model(maildir / "spam.tnb", [maildir], [corpus / "ham.mbox"])
    train_model(maildir / "spam.tnb", [maildir], [corpus / "ham.mbox"])
    with pytest.raises(InputError, match="is inside the mail folder"):
        train_model(maildir / "new" / "spam.tnb", [maildir], [corpus / "ham.mbox"])


# -- topic routing ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def topic_model(tmp_path_factory):
    rng = random.Random(2)
    docs = [" ".join(rng.choice(SPAM_WORDS) for _ in range(10)) for _ in range(20)]
    docs += [" ".join(rng.choice(HAM_WORDS) for _ in range(10)) for _ in range(20)]
    clf = textnb.TextClassifier().fit(docs, ["shop"] * 20 + ["work"] * 20)
    path = tmp_path_factory.mktemp("topic") / "topic.tnb"
    clf.save(path)
    return textnb.load(path)


def tree_hash(root):
    h = hashlib.sha256()
    for dirpath, dirs, files in sorted(os.walk(root)):
        dirs.sort()
        for name in sorted(files):
            full = os.path.join(dirpath, name)
            h.update(full.encode() + open(full, "rb").read())
    return h.hexdigest()


def test_routes_copy_never_overwrite(topic_model, tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.txt").write_text("cheap pills casino prize")
    (src / "b.txt").write_text("meeting agenda budget review")
    (src / "c.txt").write_text("cheap casino offer")
    out = tmp_path / "out"
    (out / "shop").mkdir(parents=True)
    (out / "shop" / "a.txt").write_text("already here")
    before = tree_hash(src)
    plan = list(plan_routes(topic_model, [src], out, threshold=0.5))
    assert [(os.path.basename(r.source), r.label) for r in plan] == \
        [("a.txt", "shop"), ("b.txt", "work"), ("c.txt", "shop")]
    assert plan[0].destination == str(out / "shop" / "a-1.txt")
    assert tree_hash(src) == before and not (out / "work").exists()  # planning writes nothing
    for r in plan:
        apply_route(r)
    assert (out / "shop" / "a.txt").read_text() == "already here"
    assert (out / "shop" / "a-1.txt").read_text() == "cheap pills casino prize"
    assert (out / "work" / "b.txt").exists()
    assert tree_hash(src) == before  # copied, not moved
    # a second run picks fresh names again
    again = [apply_route(r) for r in plan_routes(topic_model, [src / "a.txt"], out)]
    assert again == [str(out / "shop" / "a-2.txt")]


def test_a_fresh_name_keeps_a_names_bytes_that_are_not_utf8(topic_model, tmp_path):
    """Found by a user trial: ``caf\\xe9.txt`` routed a second time became ``caf-1.txt`` (the
    stem's bytes that are not UTF-8 dropped); now ``caf\\xe9-1.txt``, and a stem cut to fit
    255 bytes is still cut at whole characters."""
    src, out = tmp_path / "in", tmp_path / "out"
    src.mkdir()
    name = os.fsdecode(b"caf\xe9.txt")
    (src / name).write_text("cheap pills casino prize")
    first = [apply_route(r) for r in plan_routes(topic_model, [src], out)]
    second = [apply_route(r) for r in plan_routes(topic_model, [src], out)]
    assert [os.fsencode(os.path.basename(p)) for p in first + second] == [b"caf\xe9.txt", b"caf\xe9-1.txt"]
    from textnb.apps.filtering import _fresh_name

    stem = "\u00e9" * 125  # 250 bytes: with '-1.txt' one character too long, cut whole (not half of one)
    got = os.path.basename(_fresh_name(str(out), stem + ".txt", {str(out / (stem + ".txt"))}))
    assert got == stem[:124] + "-1.txt" and len(got.encode()) == 254


def test_a_label_folder_that_is_a_file_is_said_so(topic_model, tmp_path):
    """Found by a user trial: OUT/<label> a file (or a link to nothing) gave 'cannot write
    OUT/shop/a.txt (File exists)', of a name that is free."""
    src, out = tmp_path / "in", tmp_path / "out"
    src.mkdir()
    out.mkdir()
    (src / "a.txt").write_text("cheap pills casino prize")
    (out / "shop").write_text("keep")
    route = next(iter(plan_routes(topic_model, [src], out)))
    with pytest.raises(InputError, match=r"cannot write .*a\.txt \(.*shop is a file, not a folder\)"):
        apply_route(route)
    (out / "shop").unlink()
    (out / "shop").symlink_to(tmp_path / "nothing")
    with pytest.raises(InputError, match=r"shop is a symbolic link to nothing, not a folder\)"):
        apply_route(route)
    assert (out / "shop").is_symlink() and not (tmp_path / "nothing").exists()
    # found by a user trial (session 49): a link to /dev/null or to a file was 'a symbolic link to nothing',
    # a FIFO 'a file': what it is said
    (tmp_path / "t.txt").write_text("keep")
    for make, said in ((lambda p: p.symlink_to("/dev/null"), "a symbolic link to a character device (/dev/null)"),
                       (lambda p: p.symlink_to(tmp_path / "t.txt"), f"a symbolic link to a file ({tmp_path / 't.txt'})"),
                       (os.mkfifo, "a FIFO")):
        (out / "shop").unlink()
        make(out / "shop")
        with pytest.raises(InputError) as info:
            apply_route(route)
        assert str(info.value) == f"{src / 'a.txt'}: cannot write {out / 'shop' / 'a.txt'} ({out / 'shop'} is {said}, " \
                                  "not a folder)"
    assert (tmp_path / "t.txt").read_text() == "keep" and os.listdir(src) == ["a.txt"]


def test_routes_threshold_and_move(topic_model, tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    (src / "vague.txt").write_text("cheap meeting")
    (src / "clear.txt").write_text("meeting agenda budget review minutes")
    plan = {os.path.basename(r.source): r for r in plan_routes(topic_model, [src], tmp_path / "o",
                                                                threshold=0.9999)}
    assert plan["vague.txt"].label == "unsorted"
    dest = apply_route(plan["clear.txt"], move=True)
    assert not (src / "clear.txt").exists() and open(dest).read().startswith("meeting")
    with pytest.raises(InputError, match="threshold"):
        list(plan_routes(topic_model, [src], tmp_path / "o", threshold=2))


def test_routes_leave_nothing_behind_and_refuse_what_they_would_lose(topic_model, tmp_path):
    """Found by a user trial: a move whose source is gone left an empty file in OUT (and
    blamed the destination); a moved relative link left a dangling link in OUT; a missing
    PATH stopped the run after the first batch had been routed; OUT named as the input,
    or a file inside OUT named, was skipped without a word."""
    src = tmp_path / "in"
    (src / "docs").mkdir(parents=True)
    (src / "a.txt").write_text("meeting agenda budget review minutes")
    (src / "docs" / "real.txt").write_text("cheap pills cheap offer")
    os.symlink("docs/real.txt", src / "link.txt")
    out = tmp_path / "o"
    plan = {os.path.basename(r.source): r for r in plan_routes(topic_model, [src], out, threshold=0.0)}
    assert sorted(plan) == ["a.txt", "real.txt"]  # (the file itself, not the link listed before it)
    os.unlink(src / "a.txt")
    with pytest.raises(InputError, match=r"a\.txt: cannot read \(No such file or directory\); nothing written"):
        apply_route(plan["a.txt"], move=True)
    assert not list(out.rglob("a*"))
    dest = apply_route(next(plan_routes(topic_model, [src / "link.txt"], out, threshold=0.0)), move=True)
    assert not os.path.islink(dest) and open(dest).read() == "cheap pills cheap offer"
    assert not os.path.lexists(src / "link.txt") and (src / "docs" / "real.txt").exists()
    with pytest.raises(InputError, match="nonexist: no such file or folder"):
        next(plan_routes(topic_model, [src, tmp_path / "nonexist"], out))
    errors = []
    assert list(plan_routes(topic_model, [out, dest], out, on_error=errors.append)) == []
    assert errors == [f"{out}: the output folder or inside it; not routed",
                      f"{dest}: the output folder or inside it; not routed"]


def test_routes_mail_from_mbox_untouched(topic_model, tmp_path):
    box = tmp_path / "box.mbox"
    box.write_bytes(b"From a@b Mon Jan  1 00:00:00 2024\nSubject: casino prize\n\ncheap pills offer\n\n"
                    b"From a@b Mon Jan  1 00:00:01 2024\nSubject: agenda\n\nmeeting budget review\n")
    before = box.read_bytes()
    routes = list(plan_routes(topic_model, [box], tmp_path / "out", threshold=0))
    assert [r.label for r in routes] == ["shop", "work"]
    assert [os.path.basename(r.destination) for r in routes] == ["box.mbox-1.eml", "box.mbox-2.eml"]
    for r in routes:
        apply_route(r, move=True)  # messages inside an mbox are copied out, never removed
    assert (tmp_path / "out" / "shop" / "box.mbox-1.eml").read_bytes().startswith(b"Subject: casino")
    assert box.read_bytes() == before  # the mailbox is never modified, even with --move


def test_routes_binary_file_reported(topic_model, tmp_path):
    (tmp_path / "bin.dat").write_bytes(b"\x00\x01\x02" * 100)
    (tmp_path / "ok.txt").write_text("meeting agenda")
    errors = []
    routes = list(plan_routes(topic_model, [tmp_path], tmp_path / "out", on_error=errors.append))
    assert [os.path.basename(r.source) for r in routes] == ["ok.txt"]
    assert len(errors) == 1 and "bin.dat" in errors[0] and "binary" in errors[0]


def test_routes_into_something_that_is_not_a_folder_are_refused_before_any_document(topic_model, tmp_path):
    """``topicfilter --out in/a.txt in`` (OUT an input file): each document failed on its own
    ('cannot write in/a.txt/tech/b.txt (Not a directory)'), and a.txt, skipped as OUT, got
    no line at all. Now one line before anything is read, for a file, a dangling link and a
    FIFO; the command exits 1 with that line only."""
    from textnb.cli.topicfilter import topic_main

    inputs = tmp_path / "in"
    inputs.mkdir()
    (inputs / "a.txt").write_text("meeting agenda")
    (inputs / "b.txt").write_text("cheap pills")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    os.mkfifo(tmp_path / "fifo")
    for out in (inputs / "a.txt", tmp_path / "dangling", tmp_path / "fifo"):
        with pytest.raises(InputError, match="cannot route documents into it: not a folder"):
            next(plan_routes(topic_model, [inputs], out))
    model = tmp_path / "m.tnb"
    topic_model.save(model)
    stdout, stderr = io.StringIO(), io.StringIO()
    assert topic_main(["--model", str(model), "--uncalibrated", "--out", str(inputs / "a.txt"), str(inputs)],
                      stdout=stdout, stderr=stderr) == 1
    assert stdout.getvalue() == ""
    assert stderr.getvalue() == f"topicfilter: {inputs / 'a.txt'}: cannot route documents into it: not a folder\n"
    assert sorted(p.name for p in inputs.iterdir()) == ["a.txt", "b.txt"]


@pytest.mark.parametrize("move", [False, True])
def test_a_document_listed_twice_is_routed_once(topic_model, tmp_path, move):
    """``topicfilter --out OUT in in/a.txt link-to-b``: a.txt and b.txt were routed twice
    (copied as a.txt and a-1.txt; with ``--move`` the second move failed, 'cannot read (No
    such file or directory)', exit 1). Each file is routed once; an mbox given twice too."""
    inputs = tmp_path / "in"
    inputs.mkdir()
    (inputs / "a.txt").write_text("meeting agenda")
    (inputs / "b.txt").write_text("cheap pills")
    (tmp_path / "link.txt").symlink_to(inputs / "b.txt")
    box = tmp_path / "box.mbox"
    box.write_bytes(b"From a@b Sat Jan  1 00:00:00 2000\nSubject: s\n\ncheap pills\n")
    errors = []
    out = tmp_path / "out"
    routes = list(plan_routes(topic_model, [inputs, inputs / "a.txt", tmp_path / "link.txt", inputs, box, box], out,
                              on_error=errors.append))
    # (a file of one message is FILE, as on every path: it was box.mbox:1, copied out as box.mbox-1.eml)
    assert [os.path.basename(r.source) for r in routes] == ["a.txt", "b.txt", "box.mbox"] and not errors
    for route in routes:
        apply_route(route, move=move)
    assert sorted(p.name for p in out.rglob("*") if p.is_file()) == ["a.txt", "b.txt", "box.mbox"]


def test_move_takes_a_document_s_file_not_a_link_to_it_and_one_hard_link_name(topic_model, tmp_path):
    """Found by a user trial: with ``--move``, a folder holding ``a_link.txt -> b.txt`` (the
    link sorting first) had the link "moved" (deleted, b's bytes in OUT as a_link.txt) while
    b.txt stayed and was routed again by the next run: the document twice in OUT. Among the
    names of one document in the sources, the file itself is routed and moved, the links to it
    left alone, wherever they are listed (a link given before the folder too); of two hard
    links, the first name is moved and the other stays (docs/spam.md)."""
    inputs = tmp_path / "in"
    inputs.mkdir()
    (inputs / "b.txt").write_text("cheap pills casino prize")
    (inputs / "a_link.txt").symlink_to("b.txt")
    (tmp_path / "outside_link.txt").symlink_to(inputs / "b.txt")
    (inputs / "c.txt").write_text("meeting agenda budget")
    os.link(inputs / "c.txt", inputs / "d.txt")
    out = tmp_path / "out"
    routes = list(plan_routes(topic_model, [tmp_path / "outside_link.txt", inputs], out, threshold=0.0))
    assert [r.source for r in routes] == [str(inputs / "b.txt"), str(inputs / "c.txt")]
    for route in routes:
        apply_route(route, move=True)
    assert sorted(p.name for p in out.rglob("*") if p.is_file()) == ["b.txt", "c.txt"]
    assert sorted(os.listdir(inputs)) == ["a_link.txt", "d.txt"] and os.readlink(inputs / "a_link.txt") == "b.txt"
    assert os.path.islink(tmp_path / "outside_link.txt")
    # the next run: b.txt not routed again (the links, left, lead nowhere); d.txt, the other name, is a document
    routes = list(plan_routes(topic_model, [inputs], out, threshold=0.0, on_error=[].append))
    assert [r.source for r in routes] == [str(inputs / "d.txt")]


_MOVE_KILLED = """
import os, sys
sys.path.insert(0, {root!r})
real = os.unlink
def unlink(path, *args, **kwargs):
    if os.fspath(path) == {source!r}:
        os.kill(os.getpid(), 9)  # (killed between the document's link into OUT and its source's removal)
    return real(path, *args, **kwargs)
os.unlink = unlink
from textnb.cli.topicfilter import topic_main
topic_main(["--model", {model!r}, "--out", {out!r}, "--move", "--uncalibrated", {inputs!r}])
"""


def _killed_move(model, inputs, out, source):
    """``topicfilter --move`` of ``inputs`` into ``out`` killed (SIGKILL) as it removes ``source``."""
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(textnb.__file__))
    code = _MOVE_KILLED.format(root=root, model=str(model), out=str(out), inputs=str(inputs), source=str(source))
    return subprocess.run([sys.executable, "-c", code], capture_output=True).returncode


def _documents_in(*folders):
    """``{path: inode}`` of every file in ``folders`` (and below)."""
    return {str(p): os.stat(p).st_ino for folder in folders for p in sorted(Path(folder).rglob("*")) if p.is_file()}


def test_a_move_killed_between_its_link_and_the_sources_removal_is_finished_by_the_next_run(topic_model, tmp_path):
    """Found by a user trial: ``topicfilter --move`` killed (``kill -9``) after the document's
    hard link into OUT and before its source's removal left it in both places, and the next
    run routed it again: ``OUT/shop/a.txt`` and ``OUT/shop/a-1.txt``, one file. The next run
    finds the source's file under its name in the folder it is routed to: it removes the
    source and reports the document where it is (the line the killed run never wrote); the
    document is once in OUT. Another name of the file (row 882's hard links) stays a document
    of its own, and an unrelated file of the same name is not taken for it."""
    from conftest import run_topicfilter

    model, inputs, out = tmp_path / "t.tnb", tmp_path / "in", tmp_path / "out"
    topic_model.save(model)
    inputs.mkdir()
    (inputs / "a.txt").write_text("cheap pills casino prize")
    (inputs / "b.txt").write_text("meeting agenda budget")
    (out / "work").mkdir(parents=True)
    (out / "work" / "b.txt").write_text("another document of that name")
    assert _killed_move(model, inputs, out, inputs / "a.txt") == -9
    assert os.stat(inputs / "a.txt").st_ino == os.stat(out / "shop" / "a.txt").st_ino  # (in both places)
    # the dry run's plan names where the run puts each document (it showed shop/a-1.txt)
    code, plan, err = run_topicfilter(["--model", model, "--out", out, "--move", "--uncalibrated", "--dry-run", inputs])
    assert (code, err) == (0, "")
    code, report, err = run_topicfilter(["--model", model, "--out", out, "--move", "--uncalibrated", inputs])
    assert (code, err) == (0, "")
    assert [line.split("\t")[::3] for line in report.splitlines()] == [[str(inputs / "a.txt"), str(out / "shop" / "a.txt")],
                                                                      [str(inputs / "b.txt"), str(out / "work" / "b-1.txt")]]
    assert plan == report
    assert os.listdir(inputs) == []
    assert sorted(_documents_in(out)) == sorted([str(out / "shop" / "a.txt"), str(out / "work" / "b.txt"),
                                                 str(out / "work" / "b-1.txt")])
    assert os.stat(out / "shop" / "a.txt").st_nlink == 1


def test_a_move_across_file_systems_killed_before_the_sources_removal_is_finished_by_the_next_run(topic_model,
                                                                                                  tmp_path):
    """The same cut across file systems, where a move is a copy and the source's removal: the
    next run finds the copy (the same size, modification time and bytes) under the source's
    name in its folder, removes the source, and reports it there: no second copy."""
    import shutil
    import tempfile

    from conftest import run_topicfilter

    if not os.path.isdir("/dev/shm") or os.stat("/dev/shm").st_dev == os.stat(tmp_path).st_dev:
        pytest.skip("no second file system (/dev/shm) beside the temporary folder")
    model, out = tmp_path / "t.tnb", tmp_path / "out"
    topic_model.save(model)
    inputs = Path(tempfile.mkdtemp(dir="/dev/shm"))
    try:
        (inputs / "a.txt").write_text("cheap pills casino prize")
        assert _killed_move(model, inputs, out, inputs / "a.txt") == -9
        assert (out / "shop" / "a.txt").read_text() == "cheap pills casino prize" and (inputs / "a.txt").exists()
        code, report, err = run_topicfilter(["--model", model, "--out", out, "--move", "--uncalibrated", inputs])
        assert (code, err) == (0, "") and report.split("\t")[3] == f"{out / 'shop' / 'a.txt'}\n"
        assert os.listdir(inputs) == [] and sorted(_documents_in(out)) == [str(out / "shop" / "a.txt")]
    finally:
        shutil.rmtree(inputs, ignore_errors=True)


def test_routes_list_a_folder_as_the_mail_reader_does(topic_model, tmp_path):
    """topicfilter's folder listing is the mail reader's (message_files): files sorted, then
    subfolders; hidden files skipped; a Maildir inside read as mail (its messages routed
    by path); an mbox inside split; a link leading outside reported and not read; the
    output folder inside the input never read."""
    src = tmp_path / "in"
    (src / "sub").mkdir(parents=True)
    (src / "a.txt").write_text("cheap pills casino prize")
    (src / ".hidden.txt").write_text("meeting agenda")
    (src / "sub" / "b.txt").write_text("meeting agenda budget review")
    for part in ("cur", "new", "tmp"):
        (src / "sub" / "box" / part).mkdir(parents=True)
    (src / "sub" / "box" / "new" / "1.eml").write_bytes(b"Subject: agenda\n\nmeeting budget review\n")
    (src / "m.mbox").write_bytes(b"From a@b Mon Jan  1 00:00:00 2024\nSubject: casino\n\ncheap pills\n\n"
                                 b"From a@b Mon Jan  1 00:00:01 2024\nSubject: agenda\n\nmeeting review\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("cheap casino")
    (src / "link.txt").symlink_to(outside)
    out = src / "routed"
    (out / "shop").mkdir(parents=True)
    (out / "shop" / "old.txt").write_text("cheap casino prize")
    errors = []
    routes = list(plan_routes(topic_model, [src], out, threshold=0, on_error=errors.append))
    assert [os.path.relpath(r.source, src) for r in routes] == [
        "a.txt", "m.mbox:1", "m.mbox:2", "sub/b.txt", "sub/box/new/1.eml"]
    assert [r.label for r in routes] == ["shop", "shop", "work", "work", "work"]
    assert routes[-1].path == str(src / "sub" / "box" / "new" / "1.eml") and routes[1].path is None
    assert len(errors) == 1 and "link.txt" in errors[0] and "outside" in errors[0]


def test_register_from_mailboxes_is_training_in_one_or_two_processes(tmp_path, monkeypatch, forked_pids):
    """``--register-*`` of folders reads and tokenises its mail as ``--train-*`` does (a
    helper process shares a large folder): the model file is byte for byte the trained
    one, with one process or two; ``-`` is the message read from stdin, in its place."""
    from conftest import SMS_TSV

    from textnb.apps import filtering
    from textnb.core import forkmap
    from textnb.io import mailread

    rows = [line.split("\t", 1) for line in SMS_TSV.read_text(encoding="utf-8").splitlines()[:600] if "\t" in line]
    for label in (SPAM, HAM):
        (tmp_path / label).mkdir()
    for i, (label, text) in enumerate(rows):
        (tmp_path / label / f"{i:04d}.txt").write_bytes(f"Subject: {label} {i}\n\n{text}".encode())
    assert len(list((tmp_path / HAM).iterdir())) >= 128  # enough files for a helper
    extra = b"Subject: typed\n\ncheap pills on stdin\n"
    (tmp_path / "stdin").mkdir()
    (tmp_path / "stdin" / "m").write_bytes(extra)
    trained = tmp_path / "trained.tnb"
    train_model(trained, [tmp_path / SPAM, tmp_path / "stdin"], [tmp_path / HAM], n_jobs=1)
    monkeypatch.setattr(forkmap, "cpu_count", lambda: 2)
    for spare in (0, 1):
        monkeypatch.setattr(mailread, "spare_cpus", lambda now=False, spare=spare: spare)
        path = tmp_path / f"r{spare}.tnb"
        boxes = filtering.Mailboxes([(SPAM, [tmp_path / SPAM, "-"]), (HAM, [tmp_path / HAM])], extra)
        assert update_model(path, register=boxes) == {"registered": len(rows) + 1, "unregistered": 0}
        assert bool(forked_pids) == bool(spare)
        assert path.read_bytes() == trained.read_bytes()
        forked_pids.clear()
    # forgetting the stdin message and the spam folder again through Mailboxes
    update_model(path, unregister=filtering.Mailboxes([(SPAM, ["-", tmp_path / SPAM])], extra))
    alone = tmp_path / "ham-only-start.tnb"
    update_model(alone, register=filtering.Mailboxes([(HAM, [tmp_path / HAM])]))
    assert textnb.load(path).feature_count_.sum() == textnb.load(alone).feature_count_.sum()
    with pytest.raises(ValueError, match="stdin_data"):
        filtering.Mailboxes([(SPAM, ["-"])])


def test_an_empty_message_is_refused_on_every_path(tmp_path, model_file):
    """Standard input and the daemons refused an empty (white-space) message; files did
    not: --batch scored it, --train-* and --register-* counted it. Now every path gives
    one error naming it; the model file is left as it was."""
    from textnb.apps import filtering
    from textnb.apps.serve import classify_texts

    folder = tmp_path / "spam"
    folder.mkdir()
    (folder / "a.eml").write_bytes(b"Subject: win\n\ncheap pills now\n")
    (folder / "z.eml").write_bytes(b" \n\n")
    with pytest.raises(InputError, match="z.eml: empty message"):
        train_model(tmp_path / "new.tnb", [folder], [folder])
    assert not (tmp_path / "new.tnb").exists()
    before = model_file.read_bytes()
    for boxes in (filtering.Mailboxes([(SPAM, [folder])]), filtering.Mailboxes([(SPAM, ["-"])], b"\n \n")):
        with pytest.raises(InputError, match="(z.eml|stdin): empty message"):
            update_model(model_file, register=boxes)
        assert model_file.read_bytes() == before
    errors = []
    got = SpamFilter.load(model_file).classify_paths([folder], on_error=errors.append)
    assert [s for s, _ in got] == [str(folder / "a.eml")] and errors == [f"{folder / 'z.eml'}: empty message"]
    with pytest.raises(InputError, match=r"^texts\[1\]: empty message$"):
        classify_texts(textnb.load(model_file), {"texts": ["Subject: hi\n\nlunch", "  "], "mail": True})


def test_registering_nothing_into_a_missing_model_names_the_problem(tmp_path):
    """It said 'the spam scorer is not fitted' (a new model with nothing learnt)."""
    from textnb.apps import filtering

    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="^no messages found to register$"):
        update_model(tmp_path / "new.tnb", register=filtering.Mailboxes([(SPAM, [tmp_path / "empty"])]))
    assert not (tmp_path / "new.tnb").exists()


def test_an_update_of_a_missing_model_it_cannot_make_leaves_no_file(tmp_path):
    """Unregistering from a model that does not exist, updating one without ``create`` and
    creating a discriminative one by registration are refused before the locks are taken:
    no model and no lock file is left (the first two left the model's and its journal's
    lock files)."""
    message = b"Subject: x\n\ncheap pills\n"
    with pytest.raises(ModelFileError, match="no such model file \\(nothing to unregister from\\)$"):
        update_model(tmp_path / "a.tnb", unregister=[(SPAM, message)])
    with pytest.raises(ModelFileError, match="no such model file$"):
        update_model(tmp_path / "b.tnb", register=[(SPAM, message)], create=False)
    with pytest.raises(InputError, match="a discriminative model is made from spam and ham together"):
        update_model(tmp_path / "c.tnb", register=[(SPAM, message)], kind="discriminative")
    assert list(tmp_path.iterdir()) == []


def test_routes_refuse_classes_that_would_share_a_folder(tmp_path):
    """A class named ``unsorted`` shared OUT/unsorted with the documents below the
    threshold, and ``a/b`` and ``a_b`` shared ``a_b``: their documents could not be told
    apart (found by a user trial)."""
    for names, message in ((["unsorted", "other"], "class 'unsorted' would share the folder 'unsorted' with the "
                                                   "documents below the threshold"),
                           (["a/b", "a_b"], "class 'a_b' would share the folder 'a_b' with class 'a/b'")):
        clf = textnb.TextClassifier(model=textnb.MultinomialNB()).fit(
            ["eta theta iota", "alpha beta gamma"] * 3, [names[0], names[1]] * 3)
        with pytest.raises(InputError, match=message):
            next(plan_routes(clf, [tmp_path], tmp_path / "out", threshold=0.5))
    routes = list(plan_routes(textnb.TextClassifier(model=textnb.MultinomialNB()).fit(
        ["eta theta", "alpha beta"] * 3, ["unsorted", "other"] * 3), [tmp_path], tmp_path / "out", threshold=0.0))
    assert routes == []  # (nothing to route; -t 0 sends nothing to unsorted: no clash)


def test_unregistering_a_message_never_counted_names_it(tmp_path):
    """``--unregister-ham FOLDER`` with one message that was never counted as ham names that
    message (the error said 'these messages were not all counted before', of 1,200), and the
    model is left as it was."""
    from textnb.apps import filtering

    path = tmp_path / "m.tnb"
    folder = tmp_path / "box"
    folder.mkdir()
    msgs = {f"{i}.eml": f"Subject: lunch {i}\n\nmeeting at noon number{i}\n".encode() for i in range(5)}
    for name, data in msgs.items():
        (folder / name).write_bytes(data)
    update_model(path, register=[(HAM, data) for name, data in msgs.items() if name != "3.eml"]
                 + [(SPAM, b"Subject: x\n\ncheap pills\n")])
    before = path.read_bytes()
    with pytest.raises(InputError, match=r"3\.eml: cannot unregister as ham"):
        update_model(path, unregister=filtering.Mailboxes([(HAM, [folder])]))
    with pytest.raises(InputError, match=r"^stdin: cannot unregister as ham"):
        update_model(path, unregister=filtering.Mailboxes([(HAM, ["-"])], b"Subject: q\n\nnever seen words\n"))
    assert path.read_bytes() == before


def test_a_folder_given_as_the_model_leaves_no_lock_file(tmp_path):
    from textnb.apps.filtering import train_model

    folder = tmp_path / "afolder"
    folder.mkdir()
    (tmp_path / "s.eml").write_bytes(b"Subject: x\n\ncheap pills\n")
    (tmp_path / "h.eml").write_bytes(b"Subject: y\n\nlunch at noon\n")
    with pytest.raises(ModelFileError, match="is a folder; give the model file's name"):
        train_model(folder, [tmp_path / "s.eml"], [tmp_path / "h.eml"])
    with pytest.raises(ModelFileError, match="is a folder"):
        update_model(folder, register=[(SPAM, b"Subject: x\n\npills\n")])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afolder", "h.eml", "s.eml"]


def test_a_discriminative_spam_model_is_fitted_on_all_its_messages_at_once(corpus, tmp_path):
    """``--kind discriminative`` is the documents' default model (DiscriminativeNB) over
    rendered messages. Its passes score each partial_fit batch under the model of the
    batches before it, so the trainer's batches (500 spam, then the ham) would give another
    model: it is fitted on every message at once, the model ``fit`` makes of them. It is made
    by training only (a first registration would be one class's batch), registers more
    messages (each batch's passes) and cannot forget one: one InputError each, the model
    file unchanged."""
    from textnb.apps.filtering import TOKEN_VECTORIZER, learns_in_batches, new_spam_model, token_text
    from textnb.io.mailread import iter_messages
    from textnb.text.vectorizer import Vectorizer
    from textnb.naive_bayes import DiscriminativeNB

    model = tmp_path / "d.tnb"
    told = []
    assert train_model(model, [corpus / "spam"], [corpus / "ham.mbox"], kind="discriminative",
                       progress=told.append) == {SPAM: 30, HAM: 30}
    assert told == [60]  # (every 500 messages read, then all of them once fitted)
    got = textnb.load(model)
    assert isinstance(got.model_, DiscriminativeNB) and got.input_ == "mail-tokens"
    assert not learns_in_batches(got) and learns_in_batches(new_spam_model("multinomial"))
    assert learns_in_batches(new_spam_model("fisher"))
    assert [learns_in_batches(kind) for kind in ("discriminative", "fisher", "complement")] == [False, True, True]
    spam = [m for _, m in iter_messages(corpus / "spam")]
    ham = [m for _, m in iter_messages(corpus / "ham.mbox")]
    texts = [token_text(m) for m in spam + ham]  # the SpamScorer kinds' tokens: subject:cheap, ...
    assert "subject:" in texts[0] and "hname:from" in texts[0].split()
    labels = [SPAM] * len(spam) + [HAM] * len(ham)
    once = textnb.TextClassifier(vectorizer=Vectorizer(**TOKEN_VECTORIZER), model=DiscriminativeNB()).fit(texts, labels)
    probe = [token_text(make_mail(SPAM_WORDS + HAM_WORDS, random.Random(k))) for k in range(8)]
    assert got.predict_log_odds(probe).ravel().tolist() == pytest.approx(once.predict_log_odds(probe).ravel().tolist(),
                                                                         rel=1e-12)
    batches = textnb.TextClassifier(vectorizer=Vectorizer(**TOKEN_VECTORIZER), model=DiscriminativeNB())
    batches.partial_fit(texts[:30], labels[:30], classes=[HAM, SPAM]).partial_fit(texts[30:], labels[30:])
    assert batches.predict_log_odds(probe).ravel().tolist() != pytest.approx(
        once.predict_log_odds(probe).ravel().tolist(), rel=1e-6)
    before = model.read_bytes()
    message = b"Subject: lunch\n\nmeeting at noon about the budget\n"
    with pytest.raises(InputError, match="cannot unregister as spam: forget needs a model of plain sums"):
        update_model(model, unregister=[(SPAM, spam[0])])
    assert model.read_bytes() == before
    assert update_model(model, register=[(HAM, message)]) == {"registered": 1, "unregistered": 0}
    assert textnb.load(model).model_.class_documents_.tolist() == [31, 30]
    with pytest.raises(InputError, match="a discriminative model is made from spam and ham together: train it first"):
        update_model(tmp_path / "new.tnb", register=[(SPAM, spam[0])], kind="discriminative")
    assert not (tmp_path / "new.tnb").exists()


@pytest.mark.parametrize("kind", ["multinomial", "complement", "discriminative"])
def test_predict_reads_a_spamfilter_model_s_inputs_as_spamfilter_does(corpus, tmp_path, kind):
    """A spamfilter model of kind multinomial / bernoulli / complement is a TextClassifier
    of rendered messages: textnb predict fed it the raw files and disagreed with spamfilter
    on 29 of 100 SpamAssassin messages. The model records it (input_ = "mail") and predict
    reads files, folders and mbox files as spamfilter does: the same sources and log-odds."""
    import io
    import json

    from textnb.cli.commands import main

    model = tmp_path / f"{kind}.tnb"
    train_model(model, [corpus / "spam"], [corpus / "ham.mbox"], kind=kind)
    assert textnb.load(model).input_ == ("mail-tokens" if kind == "discriminative" else "mail")
    expected = {src: v.log_odds for src, v in SpamFilter.load(model).classify_paths([corpus], n_jobs=1)}
    out, err = io.StringIO(), io.StringIO()
    assert main(["predict", str(model), str(corpus), "--json", "--proba"], stdout=out, stderr=err) == 0, err.getvalue()
    got = {r["source"]: r["log_odds"]["spam"] for r in map(json.loads, out.getvalue().splitlines())}
    assert got.keys() == expected.keys() and len(got) == 60
    assert all(got[s] == pytest.approx(expected[s], rel=1e-9, abs=1e-9) for s in got)
    # a message as a line: the header-less text spamfilter reads from stdin
    line = tmp_path / "line.txt"
    line.write_text("cheap pills casino winner prize\n")
    out = io.StringIO()
    assert main(["predict", str(model), "--lines", str(line), "--json", "--proba"], stdout=out, stderr=io.StringIO()) == 0
    lite = SpamFilter.load(model)
    assert json.loads(out.getvalue())["log_odds"]["spam"] == pytest.approx(
        lite.log_odds([b"cheap pills casino winner prize\n"])[0], rel=1e-9)
    # registering keeps the mark; a plain textnb model has none
    update_model(model, register=[(SPAM, b"Subject: x\n\ncheap\n")])
    assert textnb.load(model).input_ == ("mail-tokens" if kind == "discriminative" else "mail")
    assert not hasattr(textnb.TextClassifier().fit(["aa bb", "cc dd"], ["x", "y"]), "input_")



@pytest.mark.parametrize("size", [250, 255])
def test_the_messages_of_an_mbox_with_a_long_name_are_routed_under_names_that_fit(topic_model, tmp_path, size):
    """Found by a user trial: the messages of an mbox named with 250-255 bytes could never be
    routed ('cannot write OUT/<label>/mmm...-1.eml (File name too long)', and --dry-run planned
    those names): the name of a message of an mbox was not fitted to 255 bytes as a file's
    was. Every fresh name, the first too, fits; the message's -N is kept."""
    src = tmp_path / "in"
    src.mkdir()
    (src / ("m" * size)).write_bytes(b"From a@b Mon Jan  1 00:00:00 2024\nSubject: x\n\ncheap pills casino prize\n\n"
                                     b"From c@d Mon Jan  1 00:00:00 2024\nSubject: y\n\nmeeting agenda budget\n")
    names = []
    for _ in range(2):  # the second run: the names taken, -N-1
        for route in plan_routes(topic_model, [src], tmp_path / "out", threshold=0.0):
            assert len(os.path.basename(route.destination).encode()) <= 255
            names.append(os.path.basename(apply_route(route)))
    keep = 255 - len("-1.eml")
    assert names == ["m" * keep + "-1.eml", "m" * keep + "-2.eml",
                     "m" * (keep - 2) + "-1-1.eml", "m" * (keep - 2) + "-2-1.eml"]


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="no /proc/self/fd")
@pytest.mark.parametrize("named", ["like /dev/stdin", "/proc/self/fd/N"])
def test_standard_input_fed_by_a_file_is_copied_never_moved(topic_model, tmp_path, named):
    """Found by a user trial: ``topicfilter --move ... /dev/stdin < FILE`` (standard input a
    regular file, not a pipe) took /dev/stdin for a link to a document: the file's bytes were
    copied, then the link removed (run as root: the system's /dev/stdin deleted; another user:
    'cannot move (...); left in place', nothing routed). A name of an open descriptor
    (``/dev/stdin``, ``/dev/fd/N``, ``/proc/self/fd/N``) is the process's: its document is
    copied out, the name and the file behind it left. (Here a link named ``stdin`` to
    /proc/self/fd/N stands for /dev/stdin, whose link is the same, without touching /dev.)"""
    from textnb.io.files import names_a_descriptor

    src = tmp_path / "in"
    src.mkdir()
    (src / "a.txt").write_text("cheap pills casino prize")
    with open(src / "a.txt", "rb") as redirected:
        descriptor = f"/proc/self/fd/{redirected.fileno()}"
        path = descriptor
        if named == "like /dev/stdin":
            path = tmp_path / "stdin"
            path.symlink_to(descriptor)
        assert names_a_descriptor(path) and names_a_descriptor("/dev/stdin") and not names_a_descriptor(src / "a.txt")
        routes = list(plan_routes(topic_model, [path], tmp_path / "out"))
        dest = apply_route(routes[0], move=True)
        assert os.path.lexists(path) and os.readlink(path) == os.fspath(src / "a.txt" if path == descriptor
                                                                            else descriptor)
    assert open(dest).read() == (src / "a.txt").read_text() == "cheap pills casino prize"


@pytest.mark.parametrize("meanwhile", ["removed", "replaced"])
def test_a_source_removed_or_replaced_during_its_copy_is_copied_with_its_own_times(topic_model, tmp_path,
                                                                                   monkeypatch, meanwhile):
    """Found by a user trial: a source removed while it was copied was reported as the copy's
    write error ('cannot write OUT/tech/huge.txt (No such file or directory)'): its times
    were read by its name once the bytes were copied. They are read from the file read (its
    descriptor): the copy is whole, with that file's times and mode, whatever the name holds
    now."""
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.txt").write_text("cheap pills casino prize")
    os.chmod(src / "a.txt", 0o640)
    os.utime(src / "a.txt", ns=(10**18, 10**18))
    route = next(plan_routes(topic_model, [src / "a.txt"], tmp_path / "out"))
    real_copy = shutil.copyfileobj

    def copy_then_change(source, target, *args):
        real_copy(source, target, *args)
        os.unlink(src / "a.txt")
        if meanwhile == "replaced":
            (src / "a.txt").write_text("meeting agenda")

    monkeypatch.setattr(shutil, "copyfileobj", copy_then_change)
    dest = apply_route(route)
    st = os.stat(dest)
    assert open(dest).read() == "cheap pills casino prize"
    assert (st.st_mtime_ns, st.st_mode & 0o777) == (10**18, 0o640)


@pytest.mark.parametrize("by", ["another run", "a removal"])
def test_a_move_whose_source_went_meanwhile_says_what_happened(topic_model, tmp_path, monkeypatch, by):
    """Found by a user trial of two ``topicfilter --move`` runs at once: the run whose source
    the other one had moved said 'cannot move (No such file or directory); left in place' of
    a document no longer there. Its source gone as it was moved: when another name holds the
    document (the other run's, in OUT) this run's copy is removed and that is said; else (the
    source removed) this run's copy, now the only one, stays: the move is done."""
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.txt").write_text("cheap pills casino prize")
    route = next(plan_routes(topic_model, [src / "a.txt"], tmp_path / "out"))
    real_unlink = os.unlink

    def the_other_run_first(path, *args, **kwargs):
        if os.fspath(path) == os.fspath(route.path) and os.path.exists(path):
            if by == "another run":
                os.link(path, tmp_path / "out" / route.label / "a-other.txt")
            real_unlink(path)
        return real_unlink(path, *args, **kwargs)

    monkeypatch.setattr(os, "unlink", the_other_run_first)
    if by == "another run":
        with pytest.raises(InputError, match=r"a.txt: gone from its source as it was moved \(another run may have "
                                             r"moved it: it is under another name\); not routed again$"):
            apply_route(route, move=True)
        assert os.listdir(tmp_path / "out" / route.label) == ["a-other.txt"]
    else:
        dest = apply_route(route, move=True)
        assert open(dest).read() == "cheap pills casino prize"
        assert os.listdir(tmp_path / "out" / route.label) == ["a.txt"]
    assert not (src / "a.txt").exists()


def test_a_name_with_a_long_extension_is_routed_again_under_a_name_that_fits(topic_model, tmp_path):
    """Found by a user trial: a 255-byte name with a 254-byte extension ('a.' and 253 'e') was
    routed once, never again ('cannot write OUT/<label>/a-1.eee... (File name too long)'): only
    the stem was shortened, and never below one character. The extension is cut too (at its
    end, whole characters) when the stem alone cannot make room."""
    src = tmp_path / "in"
    src.mkdir()
    ext = "." + "\u00e9" * 126 + "e"  # 254 bytes, its characters two bytes each but the last
    (src / ("a" + ext)).write_text("cheap pills casino prize")
    got = []
    for _ in range(3):
        got += [os.path.basename(apply_route(r)) for r in plan_routes(topic_model, [src], tmp_path / "out")]
    assert got == ["a" + ext, "a-1" + ext[:-2], "a-2" + ext[:-2]]  # (an 'e' and half an 'é' too many: both cut)
    assert [len(name.encode()) for name in got] == [255, 254, 254]



@pytest.mark.parametrize("kind", ["multinomial", "complement", "discriminative"])
def test_serve_and_topicfilter_read_a_spamfilter_model_s_inputs_as_predict_does(corpus, tmp_path, kind):
    """A spamfilter model of rendered messages (input_ = "mail") scores a message one way on
    every path. The daemon's plain texts (HTTP {"texts": [...]}, the socket's CLASSIFY) were
    fed raw where predict --lines reads each as a header-less message; topicfilter read a
    plain file as plain text (without --mail) or rendered mail with message_text, not the
    spam_text the model learnt: three scores for one message. Now all are spamfilter's."""
    from textnb.apps.serve import classify_texts
    from textnb.text.scorer import load_for_prediction

    model = tmp_path / f"{kind}.tnb"
    train_model(model, [corpus / "spam"], [corpus / "ham.mbox"], kind=kind)
    sf = SpamFilter.load(model)
    line = "cheap pills casino winner prize meeting"
    served = classify_texts(load_for_prediction(model), {"texts": [line]})
    assert served["log_odds"][0][1] == pytest.approx(sf.log_odds([line.encode()])[0], rel=1e-9)
    files = sorted(p for p in (corpus / "spam").rglob("*") if p.is_file())[:3]
    plain = tmp_path / "line.txt"
    plain.write_text(line + "\n")
    files.append(plain)
    expected = {str(f): sf.classify([f.read_bytes()])[0].score for f in files}
    for mail_mode in (False, True):
        routes = list(plan_routes(load_for_prediction(model), files, tmp_path / "out", threshold=0.0,
                                  mail_mode=mail_mode))
        got = {r.source: r.confidence for r in routes}
        assert got.keys() == expected.keys()
        for source, p in expected.items():
            assert got[source] == pytest.approx(max(p, 1.0 - p), rel=1e-9, abs=1e-12), (mail_mode, source)



def test_the_daemon_s_plain_texts_are_header_less_messages_for_the_default_spam_model(model_file):
    """HTTP {"texts": [...]} (and the socket's CLASSIFY) to a served SpamScorer split each text
    on white space, the library's token lists, where spamfilter and "mail": true read the
    same text as a header-less message: two log-odds for one text. A text is now the message
    spamfilter reads (the scores of "mail": true, without its verdicts)."""
    from textnb.apps.serve import _load_text_model, classify_texts

    model = _load_text_model(model_file)
    assert type(model).__name__ == "SpamScorer"
    texts = ["cheap pills casino winner prize!", "Lunch at noon? The meeting agenda is attached."]
    plain = classify_texts(model, {"texts": texts})
    as_mail = classify_texts(model, {"texts": texts, "mail": True})
    expected = SpamFilter.load(model_file).log_odds([t.encode() for t in texts])
    assert [row[1] for row in plain["log_odds"]] == pytest.approx(list(expected), rel=1e-12)
    assert plain["log_odds"] == as_mail["log_odds"] and "verdicts" not in plain



def test_predict_max_bytes_cuts_a_spamfilter_model_s_message_not_its_rendering(corpus, tmp_path):
    """`textnb predict MODEL --lines FILE --max-bytes N` of a spamfilter model of rendered
    messages set N on the model too, which then cut the text rendered from the line (its
    header tokens first) where spamfilter --max-bytes N cuts only the raw message: -0.90 for
    spamfilter, 0.62 for predict on a 34-byte line with N = 50. N cuts the message alone."""
    import json

    from textnb.cli.commands import main

    model = tmp_path / "multinomial.tnb"
    train_model(model, [corpus / "spam"], [corpus / "ham.mbox"], kind="multinomial")
    text = "cheap pills casino winner prize meeting agenda lunch noon tomorrow"
    (tmp_path / "line.txt").write_text(text + "\n")
    (tmp_path / "rows.tsv").write_text(f"label\ttext\nspam\t{text}\n")
    for n in (20, 50):
        expected = SpamFilter.load(model, max_bytes=n).log_odds([text.encode() + b"\n"])[0]
        for args in (["--lines", str(tmp_path / "line.txt")], [str(tmp_path / "rows.tsv")]):
            out = io.StringIO()
            assert main(["predict", str(model), *args, "--max-bytes", str(n), "--json", "--proba"], stdout=out,
                        stderr=io.StringIO()) == 0
            assert json.loads(out.getvalue())["log_odds"]["spam"] == pytest.approx(expected, rel=1e-9), (n, args)


# -- session 18: the topicfilter trial ---------------------------------------------------
@pytest.mark.parametrize("step", ["link", "unlink", "unlink after a copy"])
def test_an_interrupt_during_a_move_never_loses_the_document(topic_model, tmp_path, monkeypatch, step):
    """A Ctrl-C right after --move's link of the document into OUT (or after the source's
    unlink, of a move by a hard link or of one across file systems, copied then deleted)
    deleted the only copy once: the clean-up ran on the moved file. The signal waits for the
    step's end; the document is whole in OUT."""
    import signal

    src = tmp_path / "in"
    src.mkdir()
    (src / "a.txt").write_text("cheap pills casino prize")
    route = next(plan_routes(topic_model, [src / "a.txt"], tmp_path / "out"))
    name = "link" if step == "link" else "unlink"
    real, real_link = getattr(os, name), os.link

    def interrupted(*args, **kwargs):
        result = real(*args, **kwargs)
        if name == "unlink" or os.fspath(args[0]) == os.fspath(route.path):
            signal.raise_signal(signal.SIGINT)
        return result

    def cross_device(path, *args, **kwargs):  # the source on another file system: no hard link of it
        if os.fspath(path) == os.fspath(route.path):
            raise OSError(18, "Invalid cross-device link")
        return real_link(path, *args, **kwargs)

    monkeypatch.setattr(os, name, interrupted)
    if step == "unlink after a copy":
        monkeypatch.setattr(os, "link", cross_device)
    with pytest.raises(KeyboardInterrupt):
        apply_route(route, move=True)
    monkeypatch.undo()
    moved = tmp_path / "out" / route.label / "a.txt"
    assert moved.read_text() == "cheap pills casino prize" and not (src / "a.txt").exists()
    assert sorted(os.listdir(moved.parent)) == ["a.txt"]  # (no temporary file left)


@pytest.mark.parametrize("move", [False, True], ids=["copy", "move"])
def test_a_document_routed_as_an_interrupt_comes_has_its_line(topic_model, tmp_path, monkeypatch, move):
    """topicfilter interrupted (Ctrl-C, SIGTERM) while a document was put in place: the
    document was in OUT (with ``--move``, gone from its source) and its line was never
    printed, the held interrupt acting before the command wrote it. The line is written
    with the document in place, before the interrupt acts: every document in OUT is listed."""
    import signal

    from textnb.cli.topicfilter import topic_main

    src = tmp_path / "in"
    src.mkdir()
    for i in range(5):
        (src / f"{i}.txt").write_text(["cheap pills casino prize", "meeting agenda budget", "goal match team"][i % 3])
    real_link = os.link
    linked = []

    def link(path, dest, *args, **kwargs):  # the interrupt comes as the third document is put in place
        real_link(path, dest, *args, **kwargs)
        linked.append(dest)
        if len(linked) == 3:
            signal.raise_signal(signal.SIGINT)

    topic_model.save(tmp_path / "topic.tnb")
    monkeypatch.setattr(os, "link", link)
    out, err = io.StringIO(), io.StringIO()
    status = topic_main(["--model", str(tmp_path / "topic.tnb"), "--uncalibrated", "--out", str(tmp_path / "out"),
                         *(["--move"] if move else []), str(src)], stdout=out, stderr=err)
    monkeypatch.undo()
    placed = sorted(str(p) for p in (tmp_path / "out").rglob("*.txt"))
    listed = sorted(line.split("\t")[3] for line in out.getvalue().splitlines())
    assert status == 130 and "interrupted" in err.getvalue(), err.getvalue()
    assert len(placed) == 3 and listed == placed
    assert len(list(src.iterdir())) == (2 if move else 5)


def test_a_copy_is_never_under_its_final_name_until_whole(topic_model, tmp_path, monkeypatch):
    """Found by a user trial: kill -9 of topicfilter copying a 400 MB document left 88-240 MB
    of it under its final name (a rerun copied the document beside it). The copy is written
    to a hidden temporary file, then linked to its name: cut short, the name is never made."""
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.txt").write_text("cheap pills casino prize " * 1000)
    route = next(plan_routes(topic_model, [src / "a.txt"], tmp_path / "out"))
    seen = []

    def cut_short(source, target, *args):  # the process dies in the middle of the copy
        target.write(source.read(100))
        seen.append(sorted(os.listdir(os.path.dirname(route.destination))))
        raise KeyboardInterrupt

    monkeypatch.setattr(shutil, "copyfileobj", cut_short)
    with pytest.raises(KeyboardInterrupt):
        apply_route(route)
    assert len(seen) == 1 and len(seen[0]) == 1 and seen[0][0].startswith(".textnb-")  # (while copying)
    assert os.listdir(os.path.dirname(route.destination)) == []  # (nothing left)
    monkeypatch.undo()
    dest = apply_route(route)
    assert open(dest).read() == (src / "a.txt").read_text() and os.path.basename(dest) == "a.txt"


def test_a_large_mbox_message_is_copied_whole_and_long_names_stay_routable(topic_model, tmp_path):
    """An mbox message longer than --max-bytes was copied out cut at that size; a name
    collision on a 251-character name gave 'File name too long' on every run."""
    big = b"cheap pills casino prize " * 2000
    (tmp_path / "box.mbox").write_bytes(b"From a@b Mon Jan  1 00:00:00 2024\nSubject: offer\n\n" + big
                                        + b"\n\nFrom c@d Mon Jan  1 00:00:00 2024\nSubject: x\n\nmeeting agenda\n")
    routes = list(plan_routes(topic_model, [tmp_path / "box.mbox"], tmp_path / "out", threshold=0.0, max_bytes=1000))
    first = apply_route(routes[0])
    assert open(first, "rb").read().rstrip(b"\n") == b"Subject: offer\n\n" + big
    long_dir = tmp_path / "long"
    long_dir.mkdir()
    (long_dir / ("a" * 251 + ".txt")).write_text("cheap pills casino prize")
    for _ in range(3):
        for route in plan_routes(topic_model, [long_dir], tmp_path / "out2", threshold=0.0):
            dest = apply_route(route)
            assert len(os.path.basename(dest).encode()) <= 255
    assert len(list((tmp_path / "out2" / route.label).iterdir())) == 3


def test_predict_of_a_spamfilter_model_reads_rows_and_goes_on_past_a_bad_message(corpus, tmp_path):
    """With a spamfilter model, predict --rows printed one line for a file of 40 rows (the
    rows went to the mail reader as one message), and one empty message stopped predict
    and lost the predictions of its batch; merging two such models dropped the mark."""
    import io

    from textnb.cli.commands import main

    model = tmp_path / "m.tnb"
    train_model(model, [corpus / "spam"], [corpus / "ham.mbox"], kind="multinomial")
    rows = tmp_path / "r.tsv"
    rows.write_text("".join(f"{'spam' if i % 2 else 'ham'}\tcheap pills casino {i}\n" for i in range(40)))
    out = io.StringIO()
    assert main(["predict", str(model), "--rows", str(rows), "--json"], stdout=out, stderr=io.StringIO()) == 0
    assert len(out.getvalue().splitlines()) == 40
    folder = tmp_path / "w"
    folder.mkdir()
    spam_files = sorted(p for p in (corpus / "spam").rglob("*") if p.is_file())
    for i, path in enumerate(spam_files[:4]):
        (folder / f"{i}.eml").write_bytes(path.read_bytes())
    (folder / "zz.eml").write_bytes(b"")
    out, err = io.StringIO(), io.StringIO()
    assert main(["predict", str(model), str(folder), "--json"], stdout=out, stderr=err) == 1
    assert len(out.getvalue().splitlines()) == 4 and "zz.eml: empty message" in err.getvalue()
    other = tmp_path / "m2.tnb"
    train_model(other, [corpus / "spam"], [corpus / "ham.mbox"], kind="multinomial")
    assert main(["merge", str(model), str(other), "-o", str(tmp_path / "mm.tnb")], stdout=io.StringIO(),
                stderr=io.StringIO()) == 0
    assert textnb.load(tmp_path / "mm.tnb").input_ == "mail"


@pytest.mark.parametrize("kind", ["fisher", "multinomial"])
def test_unregistering_a_message_never_registered_is_refused(tmp_path, kind):
    """``spamfilter --unregister-spam MSG`` of a message never registered as spam is refused,
    one line naming it, exit 3, the model unchanged, also when all its words were counted in
    spam by other messages (it lowered their counts); the model's journal
    (``MODEL.learned``, the one the daemon's TELL keeps) lists the messages it counts, from
    training on. A message registered is unregistered once.
    A model without a complete journal (a copied file) falls back to the counts: only what
    would take a count below zero is refused; so does a model with a message registered
    twice (counted twice, as always)."""
    import io as _io

    from textnb.apps.filtering import EXIT_ERROR
    from textnb.cli.mailfilters import filter_main

    def run(argv, stdin=b""):
        err = _io.StringIO()
        code = filter_main(argv, stdin=_io.BytesIO(stdin), stdout=_io.BytesIO(), stderr=err)
        return code, err.getvalue()

    for label, words in (("spam", "cheap pills viagra offer"), ("ham", "lunch meeting noon agenda")):
        (tmp_path / label).mkdir()
        for i in range(3):
            (tmp_path / label / f"{i}.eml").write_bytes(f"Subject: {words}\n\n{words} number{i}\n".encode())
    model = tmp_path / "m.tnb"
    train_model(model, [tmp_path / "spam"], [tmp_path / "ham"], kind=kind)
    before = model.read_bytes()
    sub = tmp_path / "sub.eml"  # its words all counted as spam, by 0.eml; never registered itself
    sub.write_bytes(b"Subject: cheap pills viagra offer\n\ncheap pills number0\n")
    code, err = run(["-m", str(model), "--unregister-spam", str(sub)])
    assert code == EXIT_ERROR and err.count("\n") == 1, err
    assert f"{sub}: cannot unregister as spam: never registered" in err
    assert model.read_bytes() == before
    code, err = run(["-m", str(model), "--unregister-ham", str(tmp_path / "spam" / "1.eml")])
    assert code == EXIT_ERROR and "1.eml: cannot unregister as ham: registered as spam, not ham" in err
    assert model.read_bytes() == before
    # a trained message: unregistered once (and moved to ham), not twice
    one = tmp_path / "spam" / "1.eml"
    assert run(["-m", str(model), "--unregister-spam", str(one), "--register-ham", str(one)])[0] == 0
    assert counts(model)[0].tolist() == [4, 2]
    code, err = run(["-m", str(model), "--unregister-spam", str(one)])
    assert code == EXIT_ERROR and "cannot unregister as spam: registered as ham, not spam" in err
    assert run(["-m", str(model), "--unregister-ham"], one.read_bytes())[0] == 0
    assert counts(model)[0].tolist() == [3, 2]
    # a copied model has no journal: the counts alone decide
    copy = tmp_path / "copy.tnb"
    copy.write_bytes(model.read_bytes())
    code, err = run(["-m", str(copy), "--unregister-spam"], b"Subject: x\n\nqwertyuiop\n")
    assert code == EXIT_ERROR and "cannot unregister as spam" in err
    twin = tmp_path / "twin.eml"  # 0.eml's words with a space more: another message, never registered
    twin.write_bytes(b"Subject: cheap pills viagra offer\n\ncheap pills viagra offer number0 \n")
    assert run(["-m", str(model), "--unregister-spam", str(twin)])[0] == EXIT_ERROR
    code, err = run(["-m", str(copy), "--unregister-spam", str(twin)])
    assert code == 0, err
    assert counts(copy)[0].tolist() == [3, 1]
    # a message registered twice is counted twice, as always: the journal then no longer
    # lists the model's messages, and the counts decide
    from textnb.apps.filtering import journal_path, read_journal

    assert read_journal(journal_path(model))[3]
    for _ in range(2):
        assert run(["-m", str(model), "--register-spam", str(sub)])[0] == 0
    assert counts(model)[0].tolist() == [3, 4] and not read_journal(journal_path(model))[3]
    assert run(["-m", str(model), "--unregister-spam", str(twin)])[0] == 0


def test_topicfilter_reads_an_mbox_on_past_an_empty_message(tmp_path, topic_model):
    """An mbox file with a message of nothing but white space: that message is reported
    in its place and the later ones are routed. Before, the error ended the file's
    reading: the messages after it were neither routed nor reported."""
    from_line = b"From a@b.example Mon Jan  1 00:00:00 2024\n"
    box = tmp_path / "in.mbox"
    box.write_bytes(from_line + b"Subject: a\n\ncheap pills casino\n\n" + from_line + b" \n\n"
                    + from_line + b"Subject: b\n\nmeeting agenda budget\n\n" + from_line + b"Subject: c\n\ncasino offer\n")
    errors = []
    plan = list(plan_routes(topic_model, [box], tmp_path / "out", on_error=errors.append))
    assert [r.source for r in plan] == [f"{box}:{n}" for n in (1, 3, 4)]
    assert errors == [f"{box}:2: empty message"]
    with pytest.raises(InputError, match=r"in\.mbox:2: empty message"):
        list(plan_routes(topic_model, [box], tmp_path / "out"))


def test_the_journal_gets_a_new_files_mode_and_keeps_the_one_it_is_given(corpus, tmp_path):
    """The journal (``MODEL.learned``) was written 0644 whatever the umask (the model file
    0600 beside it under ``umask 077``), and a ``chmod 600`` of it was undone by the next
    ``--train-*``: it gets a model file's rule now (the mode of the journal it replaces, else
    ``0666 & ~umask``)."""
    import stat

    model = tmp_path / "m.tnb"
    old = os.umask(0o077)
    try:
        train_model(model, [corpus / "spam"], [corpus / "ham.mbox"])
    finally:
        os.umask(old)
    journal = tmp_path / "m.tnb.learned"
    assert stat.S_IMODE(os.stat(model).st_mode) == 0o600 and stat.S_IMODE(os.stat(journal).st_mode) == 0o600
    os.chmod(journal, 0o640)
    train_model(model, [corpus / "spam"], [corpus / "ham.mbox"])
    update_model(model, register=[(SPAM, b"Subject: new one\n\nprize casino winner\n")])
    assert stat.S_IMODE(os.stat(journal).st_mode) == 0o640


def test_a_routed_message_of_an_mbox_gets_a_new_files_mode(topic_model, tmp_path):
    """topicfilter's document cut from an mbox file (no file of its own to take a mode from)
    was written 0644 whatever the umask; it gets a new file's mode, ``0666 & ~umask``; a
    document file keeps its own mode, as before."""
    import stat

    box = tmp_path / "in.mbox"
    box.write_bytes(b"From a@b Mon Jan  1 00:00:00 2024\nSubject: x\n\ncheap pills casino\n\n"
                    b"From a@b Mon Jan  1 00:00:00 2024\nSubject: y\n\nmeeting agenda budget\n")
    (tmp_path / "doc.txt").write_text("cheap pills casino prize")
    os.chmod(tmp_path / "doc.txt", 0o640)
    old = os.umask(0o077)
    try:
        placed = [apply_route(r) for r in plan_routes(topic_model, [box, tmp_path / "doc.txt"], tmp_path / "out")]
    finally:
        os.umask(old)
    modes = {os.path.basename(p): stat.S_IMODE(os.stat(p).st_mode) for p in placed}
    assert modes == {"in.mbox-1.eml": 0o600, "in.mbox-2.eml": 0o600, "doc.txt": 0o640}, modes


def test_a_journal_that_cannot_be_written_is_named(tmp_path, monkeypatch):
    """A full disk while the journal was written said ``spamfilter: stdout: No space left on
    device`` (its error named no file); it is written as a model file is, and named."""
    import errno

    from textnb.apps.filtering import write_journal

    journal = tmp_path / "m.tnb.learned"

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError) as exc:
        write_journal(str(journal), {"a" * 64: "spam"}, "identity")
    assert exc.value.filename == str(journal) and exc.value.errno == errno.ENOSPC
    assert os.listdir(tmp_path) == []  # (no temporary file left)


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user takes root")
def test_a_replaced_model_and_journal_keep_their_owner(corpus, tmp_path):
    """Root retraining a user's model (or a daemon's) left it root's, 0600: unreadable to its
    user. The model file and its journal keep the owner and group of the files they replace."""
    model = tmp_path / "m.tnb"
    train_model(model, [corpus / "spam"], [corpus / "ham.mbox"])
    journal = tmp_path / "m.tnb.learned"
    for p in (model, journal):
        os.chown(p, 65534, 65534)
        os.chmod(p, 0o600)
    update_model(model, register=[(SPAM, b"Subject: new one\n\nprize casino winner\n")])
    for p in (model, journal):
        st = os.stat(p)
        assert (st.st_uid, st.st_gid, st.st_mode & 0o777) == (65534, 65534, 0o600), p


# -- the model and its journal change together (session 48) ------------------------------
def _filter(argv, stdin=b""):
    """``spamfilter ARGV``: (exit status, standard error)."""
    from textnb.cli.mailfilters import filter_main

    err = io.StringIO()
    code = filter_main([str(a) for a in argv], stdin=io.BytesIO(stdin), stdout=io.BytesIO(), stderr=err)
    return code, err.getvalue()


def _trained(tmp_path, corpus):
    """A model trained on ``corpus`` (60 messages) in ``tmp_path``: (model, journal, model bytes, journal bytes)."""
    model, journal = tmp_path / "m.tnb", tmp_path / "m.tnb.learned"
    train_model(model, [corpus / "spam"], [corpus / "ham.mbox"])
    return model, journal, model.read_bytes(), journal.read_bytes()


def test_training_refuses_a_journal_that_is_a_fifo_before_the_model_changes(tmp_path, corpus):
    """A user trial: ``--train-*`` with ``MODEL.learned`` a FIFO said ``... is a FIFO, not a
    regular file; refusing to write over it``, exit 3, but the model had been replaced. The
    journal is checked before the model changes: refused, the model as it was."""
    model, journal, before, _ = _trained(tmp_path, corpus)
    journal.unlink()
    os.mkfifo(journal)
    code, err = _filter(["-m", model, "--train-spam", corpus / "spam", "--train-ham", corpus / "spam"])
    assert code == 3 and "m.tnb.learned" in err and "not a regular file" in err, err
    assert model.read_bytes() == before and os.path.exists(journal) and not journal.is_file()
    assert sorted(os.listdir(tmp_path)) == ["m.tnb", "m.tnb.learned", "m.tnb.learned.lock", "m.tnb.lock"]


def test_training_on_a_full_disk_leaves_the_model_and_its_journal_as_they_were(tmp_path, corpus, monkeypatch):
    """A user trial: a full disk while ``--train-*`` wrote the journal said ``No space left
    on device``, exit 3, yet the new model was in place with no journal. The journal's
    temporary file is written before the model is replaced: a failure to write it changes
    neither file."""
    import errno

    model, journal, before, listing = _trained(tmp_path, corpus)
    real_fsync = os.fsync

    def full_for_the_journal(fd):
        if ".learned" in os.readlink(f"/proc/self/fd/{fd}"):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_fsync(fd)

    monkeypatch.setattr(os, "fsync", full_for_the_journal)
    with pytest.raises(OSError) as exc:  # (the classes swapped: another model)
        train_model(model, [corpus / "ham.mbox"], [corpus / "spam"])
    assert exc.value.errno == errno.ENOSPC and exc.value.filename == str(journal)
    assert model.read_bytes() == before and journal.read_bytes() == listing
    assert not [name for name in os.listdir(tmp_path) if name.endswith(".part")]


def test_training_never_writes_through_a_journal_that_is_a_symbolic_link(tmp_path, corpus):
    """A user trial: ``MODEL.learned`` a symbolic link to a precious file, ``--train-*``
    exited 0 and overwrote that file with the journal (registering refused the link). Training
    refuses it as registering does, before the model changes."""
    model, journal, before, _ = _trained(tmp_path, corpus)
    precious = tmp_path / "p.txt"
    precious.write_bytes(b"precious\n")
    journal.unlink()
    journal.symlink_to("p.txt")
    code, err = _filter(["-m", model, "--train-spam", corpus / "spam", "--train-ham", corpus / "spam"])
    assert code == 3 and "m.tnb.learned" in err and "a symbolic link, not followed" in err, err
    assert precious.read_bytes() == b"precious\n" and journal.is_symlink() and model.read_bytes() == before


_CRASH = """
import os, sys
sys.path.insert(0, {root!r})
from textnb.apps.filtering import update_model
model, when = os.path.realpath({model!r}), {when!r}
real = os.replace
def replace(src, dst, *args, **kwargs):
    if os.fspath(dst) == model and when == "before":
        os._exit(137)
    real(src, dst, *args, **kwargs)
    if os.fspath(dst) == model:
        os._exit(137)
os.replace = replace
update_model({model!r}, register=[("spam", {message!r})])
"""


def _killed_registration(model, message, when):
    """Register ``message`` into ``model`` in a process that dies (status 137, as by SIGKILL)
    right ``when`` ("before", "after") its new model file replaces the model."""
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(textnb.__file__))
    code = _CRASH.format(root=root, model=str(model), when=when, message=message)
    return subprocess.run([sys.executable, "-c", code], capture_output=True).returncode


def test_a_registration_killed_after_its_model_is_written_loses_nothing_of_the_journal(tmp_path, corpus):
    """A user trial: a registration killed (SIGKILL) just after its model file replaced the
    model made the next registration start the journal anew, as for a file copied over the
    model: the listing of the trained messages and its completeness were lost. An update
    notes its lines, naming the new model file, before that file replaces the model: the
    journal lists the killed registration's message too, and stays complete."""
    from textnb.apps.filtering import journal_path, message_digest, read_journal

    model, journal, _, _ = _trained(tmp_path, corpus)
    trained, _, _, complete = read_journal(journal_path(model))
    assert len(trained) == 60 and complete
    killed, after = b"Subject: killed\n\ncasino prize killed\n", b"Subject: after\n\nagenda budget after\n"
    assert _killed_registration(model, killed, "after") == 137
    assert update_model(model, register=[(HAM, after)]) == {"registered": 1, "unregistered": 0}
    seen, _, identity, complete = read_journal(journal_path(model))
    assert complete and seen == {**trained, message_digest(killed): SPAM, message_digest(after): HAM}
    assert update_model(model, unregister=[(SPAM, killed)]) == {"registered": 0, "unregistered": 1}
    assert read_journal(journal_path(model))[3]


def test_a_registration_killed_before_its_model_is_written_leaves_both_as_they_were(tmp_path, corpus):
    """The other side of the crash: a registration killed just before its new model file
    replaced the model (its journal lines written) leaves the model as it was, and its
    journal reads as it was: the message it was registering is not listed (never
    registered), the trained ones are, and the journal is still complete."""
    from textnb.apps.filtering import journal_path, model_identity, read_journal

    model, journal, before, _ = _trained(tmp_path, corpus)
    trained, _, identity, _ = read_journal(journal_path(model))
    killed = b"Subject: killed\n\ncasino prize killed\n"
    assert _killed_registration(model, killed, "before") == 137
    assert model.read_bytes() == before and identity == model_identity(model)
    assert read_journal(journal_path(model), model_identity(model)) == (trained, 63, identity, True)
    with pytest.raises(InputError, match="never registered"):
        update_model(model, unregister=[(SPAM, killed)])
    assert update_model(model, register=[(SPAM, killed)]) == {"registered": 1, "unregistered": 0}
    assert update_model(model, unregister=[(SPAM, killed)]) == {"registered": 0, "unregistered": 1}
    seen, _, _, complete = read_journal(journal_path(model))
    assert seen == trained and complete


def _full_for(monkeypatch, which):
    """``os.fsync`` refusing, as a full disk does (ENOSPC, naming no file), the journal's
    temporary file of a rewrite (``which`` "rewrite") or the journal itself (an appended line, "append")."""
    import errno

    real_fsync = os.fsync

    def fsync(fd):
        name = os.readlink(f"/proc/self/fd/{fd}")
        if ".learned" in name and (name.endswith(".part") == (which == "rewrite")):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)


def test_a_registration_whose_journal_rewrite_fails_after_the_model_is_replaced_is_done_with_a_warning(
        tmp_path, corpus, monkeypatch):
    """A user trial: on a full disk, ``--register-spam`` of a message registered before said
    ``spamfilter: /real/folder/m.tnb.learned: No space left on device``, exit 3, though its
    model file had replaced the model and counted the message: a retry counted it twice.
    The failure was the journal's rewrite after the replace (forced by a message counted
    twice, or the superseded lines piling up). The registration is done: exit 0, one warning
    line naming the model and the journal by the path given, the journal as the update left
    it (its lines appended: it reads as the model, no longer complete), and a later
    ``--unregister-spam`` of the message works as documented."""
    from textnb.apps.filtering import journal_path, message_digest, model_identity, read_journal

    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to("real")
    model = tmp_path / "link" / "m.tnb"
    train_model(model, [corpus / "spam"], [corpus / "ham.mbox"])
    trained = read_journal(journal_path(model))[0]
    first = sorted((corpus / "spam" / "cur").iterdir())[0]
    before = textnb.load(model).class_count_.tolist()
    _full_for(monkeypatch, "rewrite")
    code, err = _filter(["-m", model, "--register-spam", first])
    assert code == 0, err
    assert err == (f"spamfilter: warning: {model}: updated, and recorded in its journal; rewriting the journal "
                   f"without its superseded lines failed ({model}.learned: No space left on device): they are kept\n")
    assert textnb.load(model).class_count_.tolist() == [before[0], before[1] + 1]  # (ham, spam: counted twice now)
    seen, _, identity, complete = read_journal(journal_path(model), model_identity(model))
    assert identity == model_identity(model) and not complete and seen == trained
    assert not [name for name in os.listdir(tmp_path / "real") if name.endswith(".part")]
    monkeypatch.undo()
    assert _filter(["-m", model, "--unregister-spam", first]) == (0, "")
    assert textnb.load(model).class_count_.tolist() == before
    assert message_digest(first.read_bytes()) not in read_journal(journal_path(model))[0]


def test_a_journal_line_that_cannot_be_appended_is_named_and_leaves_both_files_as_they_were(
        tmp_path, corpus, monkeypatch):
    """The other side: a registration whose journal line could not be written (a full disk)
    said ``spamfilter: stdout: No space left on device`` (the write of a descriptor names no
    file). It names the journal by the path given; the model is not replaced, and the
    journal is cut back to what it was."""
    model, journal, before, listing = _trained(tmp_path, corpus)
    _full_for(monkeypatch, "append")
    code, err = _filter(["-m", model, "--register-spam", "-"], b"Subject: new\n\ncasino prize new\n")
    assert (code, err) == (3, f"spamfilter: {journal}: No space left on device\n")
    assert model.read_bytes() == before and journal.read_bytes() == listing


#: the system call of a process waiting for a lock (the first field of /proc/PID/syscall: flock)
_FLOCK = {"x86_64": "73 ", "aarch64": "32 "}.get(__import__("platform").machine())

#: a registration paused once it holds the model's locks and has read the old model, until a
#: line comes on its standard input
_PAUSED_REGISTRATION = """
import sys
sys.path.insert(0, {root!r})
from textnb.apps import filtering
learn, paused = filtering._learn, []
def learn_when_told(*args, **kwargs):
    if not paused:
        paused.append(True)
        print("loaded", flush=True)
        sys.stdin.readline()
    return learn(*args, **kwargs)
filtering._learn = learn_when_told
print(filtering.update_model(sys.argv[1], register=[("spam", b"Subject: new\\n\\ncasino prize new\\n")]))
"""


@pytest.mark.skipif(_FLOCK is None or not os.path.exists("/proc/self/syscall"),
                    reason="tells a process waiting for a lock by /proc/PID/syscall")
@pytest.mark.parametrize("command", ["train", "merge"])
def test_train_and_merge_replace_a_registered_model_under_its_registrations_lock(tmp_path, corpus, command):
    """A user trial: ``textnb train ... -o M`` and ``textnb merge ... -o M`` of a spam model
    that ``spamfilter --register-*`` updates did not take the model's lock, so a
    registration running meanwhile wrote its update of the old model over the new one.
    Two processes: a registration holding the locks (the old model read), then ``textnb``
    writing M. It now waits for the registration (blocked on the lock), then replaces the
    model (its bytes those of the same command writing a new file) and removes its journal,
    as ``spamfilter --train-*`` replaces it; the next registration starts one anew."""
    import subprocess
    import sys

    from conftest import cli, tsv, wait_in_syscall
    from textnb.apps.filtering import journal_path, model_identity, read_journal

    rows = [(SPAM, "cheap pills now"), (HAM, "meeting at noon"), (SPAM, "cheap offer casino"), (HAM, "lunch agenda")]
    if command == "train":
        args = ["train", tsv(tmp_path / "d.tsv", rows), "--model", "multinomial"]
    else:
        for name, part in (("a", rows[:2]), ("b", rows[2:])):
            assert cli("train", tsv(tmp_path / f"{name}.tsv", part), "--model", "multinomial", "-o",
                       tmp_path / f"{name}.tnb")[0] == 0
        args = ["merge", tmp_path / "a.tnb", tmp_path / "b.tnb"]
    assert cli(*args, "-o", tmp_path / "fresh.tnb")[0] == 0
    model, journal, _, _ = _trained(tmp_path, corpus)
    root = os.path.dirname(os.path.dirname(textnb.__file__))
    env = dict(os.environ, PYTHONPATH=root, OPENBLAS_NUM_THREADS="1")
    registration = subprocess.Popen([sys.executable, "-c", _PAUSED_REGISTRATION.format(root=root), str(model)],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
    writer = None
    try:
        assert registration.stdout.readline() == b"loaded\n"
        writer = subprocess.Popen([sys.executable, "-m", "textnb", *map(str, args), "-o", str(model)],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        wait_in_syscall(writer, _FLOCK)
        assert writer.poll() is None, writer.communicate()  # waiting for the registration's locks
        out, _ = registration.communicate(b"go\n", timeout=120)
        assert registration.returncode == 0 and b"'registered': 1" in out
        out, err = writer.communicate(timeout=120)
        assert writer.returncode == 0 and err == b"", err
    finally:
        for proc in (registration, writer):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.communicate()
    assert model.read_bytes() == (tmp_path / "fresh.tnb").read_bytes()  # the new model, not the registration's
    assert not journal.exists()
    update_model(model, register=[(SPAM, b"Subject: later\n\ncasino prize later\n")])
    seen, _, identity, complete = read_journal(journal_path(model), model_identity(model))
    assert len(seen) == 1 and identity == model_identity(model) and not complete


def test_a_model_no_registration_used_is_replaced_without_a_lock_file(tmp_path):
    """``textnb train -o`` over a model file that registrations never used (no lock file, no
    journal beside it) leaves no lock file there."""
    from conftest import cli, tsv

    data = tsv(tmp_path / "d.tsv", [(SPAM, "cheap pills now"), (HAM, "meeting at noon")])
    for _ in range(2):
        assert cli("train", data, "--model", "multinomial", "-o", tmp_path / "m.tnb")[0] == 0
    assert sorted(os.listdir(tmp_path)) == ["d.tsv", "m.tnb"]


def _journal_replace_fails(monkeypatch, model):
    """``os.replace`` refusing (EACCES) to move a file over the journal of ``model``, and
    ``os.unlink`` to remove it: the journal's step after the model's replace fails."""
    import errno

    from textnb.apps.filtering import journal_path

    journal = os.path.realpath(journal_path(model))
    real_replace, real_unlink = os.replace, os.unlink

    def refuse(real):
        def call(*args, **kwargs):
            if os.path.realpath(args[-1]) == journal:
                raise OSError(errno.EACCES, "Permission denied", args[-1])
            return real(*args, **kwargs)
        return call

    monkeypatch.setattr(os, "replace", refuse(real_replace))
    monkeypatch.setattr(os, "unlink", refuse(real_unlink))


@pytest.mark.parametrize("journal", ["written", "removed"])
def test_a_training_whose_journal_cannot_be_replaced_after_the_model_is_done_with_a_warning(
        tmp_path, corpus, monkeypatch, journal):
    """Found by a review: ``spamfilter --train-*`` whose journal's replace (or removal, when
    a message is given twice and the journal cannot list the model's messages) failed after
    the new model had replaced the old one said the error, exit 3, though the model was
    trained. As a journal's rewrite after a registration (robustness row 898), it is done:
    exit 0 and one warning line; the journal left names the old model file, so the next
    registration starts it anew, not complete."""
    from textnb.apps.filtering import journal_path, model_identity, read_journal

    model, journal_file, _, listing = _trained(tmp_path, corpus)
    before = model_identity(model)
    ham = corpus / "ham.mbox" if journal == "written" else corpus / "spam"  # (spam twice: no journal)
    _journal_replace_fails(monkeypatch, model)
    code, err = _filter(["-m", model, "--train-spam", corpus / "spam", "--train-ham", ham])
    what = "replacing" if journal == "written" else "removing"
    assert code == 0, err
    assert err == (f"spamfilter: warning: {model}: written; {what} its journal failed ({journal_file}: Permission "
                   "denied): the next registration starts the journal anew, not listing the messages the model was "
                   f"written with\nspamfilter: trained {model} on 30 spam and 30 ham messages\n")
    assert model_identity(model) != before and journal_file.read_bytes() == listing  # (the model replaced)
    assert not [name for name in os.listdir(tmp_path) if name.endswith(".part")]
    monkeypatch.undo()
    assert _filter(["-m", model, "--register-spam", "-"], b"Subject: new\n\ncasino prize new\n") == (0, "")
    seen, _, identity, complete = read_journal(journal_path(model), model_identity(model))
    assert len(seen) == 1 and identity == model_identity(model) and not complete


def test_a_first_registration_whose_journal_cannot_be_written_after_the_model_is_done_with_a_warning(
        tmp_path, monkeypatch):
    """The same step of a registration that makes the model (its journal started with it):
    the model is made, one warning, no journal left."""
    model = tmp_path / "m.tnb"
    _journal_replace_fails(monkeypatch, model)
    code, err = _filter(["-m", model, "--register-spam", "-"], b"Subject: new\n\ncasino prize new\n")
    assert code == 0 and err.startswith(f"spamfilter: warning: {model}: written; replacing its journal failed ("), err
    assert err.count("\n") == 1 and textnb.load(model).class_count_.sum() == 1
    assert sorted(os.listdir(tmp_path)) == ["m.tnb", "m.tnb.learned.lock", "m.tnb.lock"]


def test_a_message_registered_from_its_file_is_found_as_an_mbox_saved_it(tmp_path, corpus):
    """A user trial: a message registered from its file was 'never registered' when
    unregistered from an mbox that held it alone (an mbox keeps a blank separator line after
    its last message), or when it had no final newline (the mbox writer adds one), or had
    CRLF line ends. The digest reads a message's end as one line end."""
    import mailbox

    model = tmp_path / "m.tnb"
    train_model(model, [corpus / "spam"], [corpus / "ham.mbox"])
    messages = {"alone": b"From: a@example.com\nSubject: alone\n\ncasino prize alone\n",
                "nonl": b"From: b@example.com\nSubject: no newline\n\ncheap pills, no final newline",
                "crlf": b"From: c@example.com\r\nSubject: crlf\r\n\r\nwinner offer crlf\r\n"}
    other = b"From: d@example.com\nSubject: other\n\nmeeting agenda\n"
    for name, data in {**messages, "other": other}.items():
        (tmp_path / f"{name}.eml").write_bytes(data)
    names = [*messages, "other"]
    assert _filter(["-m", model, "--register-spam"] + [tmp_path / f"{n}.eml" for n in names]) == (0, "")
    for name, held in (("alone", ["alone"]), ("both", ["nonl", "other"]), ("crlf", ["crlf"])):
        box = mailbox.mbox(str(tmp_path / f"{name}.mbox"))
        for n in held:
            box.add(messages.get(n, other))
        box.flush()
        box.close()
    assert (tmp_path / "alone.mbox").read_bytes().endswith(b"alone\n\n")  # (the mbox's separator line)
    assert b"no final newline\n" in (tmp_path / "both.mbox").read_bytes()
    for name in ("alone", "both", "crlf"):
        assert _filter(["-m", model, "--unregister-spam", tmp_path / f"{name}.mbox"]) == (0, "")
    from textnb.apps.filtering import journal_path, read_journal

    assert len(read_journal(journal_path(model))[0]) == 60
    code, err = _filter(["-m", model, "--unregister-spam", tmp_path / "alone.eml"])
    assert code == 3 and "never registered" in err


def test_a_journal_of_the_digests_before_session_48_still_finds_its_messages():
    """A message without a final newline was listed, before the digest read a message's
    end as one line end, by the digest of its text as it was: a journal written then still
    finds it (digest_key, listed)."""
    from textnb.apps.filtering import _mbox_digest, digest_key, listed, message_digest

    msg = b"Subject: no newline\n\ncheap pills"
    key = digest_key(msg)
    assert message_digest(msg) == message_digest(msg + b"\n") == message_digest(msg + b"\r\n\r\n")
    assert _mbox_digest(msg) != message_digest(msg) and _mbox_digest(msg) in key.split(" ")
    assert listed({_mbox_digest(msg): "spam"}, key) == (_mbox_digest(msg), "spam")
    assert listed({}, key) == (message_digest(msg), None)


def test_registering_into_a_small_discriminative_spam_model_gives_no_library_advice(corpus, tmp_path):
    """A registration is a partial_fit batch of a few messages: DiscriminativeNB's warning
    (a batch under 50 documents fits no calibration scale; give partial_fit batches of 50)
    reached every ``spamfilter --register-*`` into a discriminative model of fewer than 50
    messages, advice a spamfilter user cannot act on. The spam path says nothing."""
    import warnings

    from textnb.io.mailread import iter_messages

    for label, source in (("s", corpus / "spam"), ("h", corpus / "ham.mbox")):
        (tmp_path / label).mkdir()
        for i, (_, m) in zip(range(10), iter_messages(source)):  # (20 messages: too few to calibrate on)
            (tmp_path / label / f"{i}.eml").write_bytes(m)
    model = tmp_path / "d.tnb"
    train_model(model, [tmp_path / "s"], [tmp_path / "h"], kind="discriminative")
    assert getattr(textnb.load(model).model_, "scale_", None) is None
    message = (tmp_path / "s" / "0.eml").read_bytes()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        update_model(model, register=[(SPAM, message + b"\nmore words here\n")])
    assert not [w for w in caught if "partial_fit batch" in str(w.message)], [str(w.message) for w in caught]


def test_a_discriminative_model_is_fitted_on_messages_read_back_from_a_file(corpus, tmp_path, monkeypatch):
    """``--kind discriminative`` fits on all its messages at once; it held every message's
    tokens in a list meanwhile (found by a memory trial: 393 / 559 / 1,035 MB for a mailbox
    1 / 4 / 16 times over, the other kinds flat). The renderings are written to a temporary
    file as they come and the fit reads them back, as a streamed corpus file is read: the
    model file is the same bytes as the fit of the list."""
    from textnb.apps import filtering
    from textnb.core.model_io import save

    seen = []
    fitted = filtering._fitted_at_once

    def spy(rendered, texts, labels):
        seen.append(type(texts))
        listed = list(texts)
        assert len(listed) == len(texts) == len(labels) == 60 and list(texts) == listed  # (read again, the same)
        save(fitted(rendered, listed, labels), tmp_path / "from_list.tnb")
        return fitted(rendered, texts, labels)

    monkeypatch.setattr(filtering, "_fitted_at_once", spy)
    model = tmp_path / "d.tnb"
    assert train_model(model, [corpus / "spam"], [corpus / "ham.mbox"], kind="discriminative") == {SPAM: 30, HAM: 30}
    assert seen and not issubclass(seen[0], (list, tuple))
    assert model.read_bytes() == (tmp_path / "from_list.tnb").read_bytes()


def test_a_model_of_spam_and_another_class_classifies_and_refuses_to_learn_in_one_line(tmp_path):
    """Found by a model-file fuzz (session 52): a model whose classes are 'spam' and 'xam' (a
    `textnb train` model of folders spam/ and xam/) classified mail, the other class counting
    as ham, and its `--register-spam` stopped on `internal error: ValueError: classes=['ham',
    'spam'] is not the same as on last call to partial_fit`. Registering is refused in one
    line naming the file, the model unchanged; classifying works as before."""
    from conftest import cli

    corpus = tmp_path / "c"
    for label, words in (("spam", "win free cash prize now"), ("xam", "hello see you at lunch")):
        (corpus / label).mkdir(parents=True)
        for i in range(4):
            (corpus / label / f"{i}.eml").write_text(f"Subject: {label} {i}\n\n{words} {i}\n")
    model = tmp_path / "m.tnb"
    assert cli("train", corpus, "--model", "multinomial", "-o", model)[0] == 0
    before = model.read_bytes()
    message = b"Subject: hi\n\nwin free cash prize\n"
    code, err = _filter(["-m", model], message)
    assert code in (0, 1, 2) and err == "", err
    for option in ("--register-spam", "--register-ham", "--unregister-spam"):
        code, err = _filter(["-m", model, option], message)
        assert code == 3 and len(err.strip().splitlines()) == 1, err
        assert str(model) in err and "'ham' and 'spam'" in err and "internal error" not in err
    assert model.read_bytes() == before
    with pytest.raises(ModelFileError, match="learns only as a model of 'ham' and 'spam'"):
        update_model(model, register=[(SPAM, message)])
