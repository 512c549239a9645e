"""One document input, one reading on every path (session 30, "mail"): an mbox file, a file of
one message that starts with a ``From`` line, an empty message and a named pipe, fed alike to
``textnb predict``, ``topicfilter``, ``spamfilter --batch``, ``textnb serve --http`` and the
library (``textnb.apps.SpamFilter``)."""

import io
import json
import math
import os
import threading

import pytest

from conftest import SMS_TSV, cli, one_error_line, post, watchdog
from textnb.cli.mailfilters import filter_main
from textnb.cli.topicfilter import topic_main
from textnb.core.errors import InputError

FROM = "From alice@example.com Sat Jan  1 00:00:00 2000\n"
SPAMMY = "Subject: prize\n\nWINNER! You have won a free prize, call now to claim your cash award\n"
HAMMY = "Subject: lunch\n\nsee you at lunch tomorrow, I will bring the notes from the meeting ok\n"
MBOX = f"{FROM}{SPAMMY}\n{FROM}{HAMMY}"
ONE = f"{FROM}{HAMMY}"


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    """The SMS model: a plain text model whose classes are ham and spam, which every path
    takes (spamfilter gives it verdicts, predict / topicfilter / serve its probabilities)."""
    path = tmp_path_factory.mktemp("one_reader") / "sms.tnb"
    assert cli("train", SMS_TSV, "-o", path)[0] == 0
    return path


def _predict(model, *paths):
    """{source: P(spam)} of ``textnb predict --json --proba``, and its exit status and stderr."""
    rc, out, err = cli("predict", model, "--json", "--proba", *paths)
    return {r["source"]: r["proba"]["spam"] for r in map(json.loads, out.splitlines())}, rc, err


def _topicfilter(model, out, *paths):
    """{source: P(spam)} of ``topicfilter -n`` (the confidence is the largest class's)."""
    stdout, stderr = io.StringIO(), io.StringIO()
    rc = topic_main(["-m", str(model), "-o", str(out), "-n", "--uncalibrated", *map(str, paths)],
                    stdout=stdout, stderr=stderr)
    got = {}
    for line in stdout.getvalue().splitlines():
        source, label, conf, _ = line.split("\t")
        got[source] = float(conf) if label == "spam" else 1.0 - float(conf)
    return got, rc, stderr.getvalue()


def _spamfilter(model, *argv, stdin=b""):
    out, err = io.BytesIO(), io.StringIO()
    rc = filter_main(["-m", str(model), *map(str, argv)], stdin=io.BytesIO(stdin), stdout=out, stderr=err)
    return rc, out.getvalue().decode(), err.getvalue()


def _batch(model, *paths):
    """{source: P(spam)} of ``spamfilter --batch --log-odds``."""
    rc, out, err = _spamfilter(model, "--batch", *paths, "--log-odds")
    return {line.split("\t")[0]: float(line.split("\t")[3]) for line in out.splitlines()}, rc, err


def _close(got, want, printed=False):
    """The same sources and P(spam); ``printed``: topicfilter's confidence, 6 significant
    digits (``cli.output.proba_text``)."""
    assert got.keys() == want.keys(), (got, want)
    for source in want:
        assert got[source] == pytest.approx(want[source], rel=1e-6, abs=2e-6 if printed else 1e-9), source


def test_an_mbox_and_a_file_of_one_message_read_alike_by_every_path(model, tmp_path):
    """``textnb predict MODEL FILE.mbox`` read an mbox of two messages as ONE document (one
    line, ``FILE.mbox``), where ``topicfilter`` and ``spamfilter --batch`` split it
    (``FILE.mbox:1``, ``FILE.mbox:2``); and topicfilter rendered a file of one message that
    starts with a From line (and every message of an mbox) with ``message_text`` for a plain
    text model, where predict, spamfilter and ``serve --http`` read the document's text
    (P(ham) 0.999895 against 0.975556 here; the mbox's messages 0.999995 / 0.999895 against
    0.999999 / 0.999561, and predict's one line P(spam) 0.999996). Now one split and one text on every path: the same
    sources, the same probabilities."""
    box, one = tmp_path / "in.mbox", tmp_path / "one.eml"
    box.write_text(MBOX)
    one.write_text(ONE)
    want = {f"{box}:1", f"{box}:2", str(one)}
    predicted, rc, err = _predict(model, box, one)
    assert (rc, err) == (0, "") and predicted.keys() == want
    assert predicted[f"{box}:1"] > 0.5 > predicted[f"{box}:2"]
    routed, rc, err = _topicfilter(model, tmp_path / "out", box, one)
    assert (rc, err) == (0, "")
    _close(routed, predicted, printed=True)
    batch, rc, err = _batch(model, box, one)
    assert (rc, err) == (0, "")
    _close(batch, predicted)
    # the text output names the messages alike
    rc, out, _ = cli("predict", model, box)
    assert [line.split("\t")[0] for line in out.splitlines()] == [f"{box}:1", f"{box}:2"]
    # textnb serve --http (no "mail": the text of the document): the file of one message
    from textnb.apps.serve import Server

    with Server(model, http=("127.0.0.1", 0)) as server:
        status, answer = post(server.http_address[1], {"texts": [ONE]})
    assert status == 200
    spam = answer["classes"].index("spam")
    assert answer["probabilities"][0][spam] == pytest.approx(predicted[str(one)], rel=1e-6, abs=1e-9)


def test_topicfilter_mail_still_parses_every_document_as_mail(model, tmp_path):
    """``topicfilter --mail`` reads each document as a message, as ``serve``'s ``"mail": true``
    reads it (``apps.filtering.mail_features``): a topic model (no class spam) gets
    ``message_text``; a spam model, this plain SMS model of ham and spam too, what spamfilter
    feeds it (the text predict reads of the file), so its one message has one score (it got
    ``message_text``, P(spam) other than the daemon's verdict and spamfilter's)."""
    import textnb
    from textnb.io.mail import message_text
    from textnb.text.scorer import load_for_prediction

    one = tmp_path / "one.eml"
    one.write_text(ONE)
    topic = tmp_path / "topic.tnb"
    textnb.TextClassifier().fit(["see you at lunch tomorrow notes"] * 3 + ["call now to claim your prize"] * 3,
                                ["work"] * 3 + ["shop"] * 3).save(topic)
    stdout = io.StringIO()
    assert topic_main(["-m", str(topic), "-o", str(tmp_path / "out"), "-n", "--uncalibrated", "--mail", str(one)],
                      stdout=stdout, stderr=io.StringIO()) == 0
    _, label, conf, _ = stdout.getvalue().split("\t")
    scorer = load_for_prediction(topic)
    proba = scorer.predict_proba([message_text(ONE.encode())])[0]
    assert float(conf) == pytest.approx(proba[[str(c) for c in scorer.classes_].index(label)], rel=1e-6, abs=2e-6)
    assert float(conf) != pytest.approx(max(scorer.predict_proba([ONE])[0]), rel=1e-6)  # a parse, not the text
    stdout = io.StringIO()
    assert topic_main(["-m", str(model), "-o", str(tmp_path / "out"), "-n", "--uncalibrated", "--mail", str(one)],
                      stdout=stdout, stderr=io.StringIO()) == 0
    _, label, conf, _ = stdout.getvalue().split("\t")
    as_mail = float(conf) if label == "spam" else 1 - float(conf)
    batch, rc, _ = _batch(model, one)
    assert rc == 0
    _close({str(one): as_mail}, batch, printed=True)  # spamfilter --batch: its P(spam)
    assert as_mail == pytest.approx(_topicfilter(model, tmp_path / "out", one)[0][str(one)], rel=1e-6, abs=2e-6)


def test_an_empty_message_is_refused_by_the_library_as_by_every_command(model, tmp_path):
    """``textnb.apps.SpamFilter(...).classify([b""])`` scored an empty message (log-odds
    -4.20, ham, on the SMS model; the lite filter too) where every command refuses it: now one
    test (``io.mailread.refuse_empty_message``) gives the library a typed InputError naming
    the message, nothing printed, nothing scored; the commands' lines are unchanged."""
    from textnb.apps import SpamFilter
    from textnb.apps.spamlite import LiteFilter

    sf = SpamFilter.load(model)
    for empty in (b"", b" \n", FROM.encode()):
        with pytest.raises(InputError, match=r"^messages\[1\]: empty message$"):
            sf.classify([SPAMMY.encode(), empty])
        with pytest.raises(InputError, match=r"^x\.eml: empty message$"):
            list(sf.classify_stream([("x.eml", empty)]))
    assert sf.classify([SPAMMY.encode()])[0].label in ("spam", "unsure", "ham")
    spam_model = tmp_path / "spam.tnb"
    for label in ("spam", "ham"):
        (tmp_path / label).mkdir()
        (tmp_path / label / "1.eml").write_text(SPAMMY if label == "spam" else HAMMY)
    assert _spamfilter(spam_model, "--train-spam", tmp_path / "spam", "--train-ham", tmp_path / "ham")[0] == 0
    lite = LiteFilter.load(spam_model)
    assert lite is not None
    with pytest.raises(InputError, match=r"^messages\[0\]: empty message$"):
        lite.classify([b""])
    # the commands, unchanged: stdin and a --batch file
    assert _spamfilter(model, stdin=b"") == (3, "", "spamfilter: stdin: empty message\n")
    (tmp_path / "empty.eml").write_bytes(b"")
    assert _spamfilter(model, "--batch", tmp_path / "empty.eml") == (
        3, "", f"spamfilter: {tmp_path / 'empty.eml'}: empty message\n")


def _fed_fifo(path, data):
    """A FIFO at ``path`` that a thread writes ``data`` into once a reader opens it."""
    if not os.path.exists(path):
        os.mkfifo(path)

    def write():
        with open(path, "wb") as f:
            f.write(data)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


def test_a_named_pipe_is_read_by_predict_topicfilter_and_spamfilter_alike(model, tmp_path):
    """``textnb predict M <(cat doc)`` read the pipe; ``topicfilter ... PIPE`` and
    ``spamfilter --batch PIPE`` refused it, ``not a regular file (a FIFO, socket or device)``.
    Now each reads a pipe named on the command line once, as the regular file it holds
    (an mbox in it split): the same sources and probabilities; topicfilter copies its bytes
    out under its name. Inside a folder a FIFO is still skipped unopened."""
    box = tmp_path / "in.mbox"
    box.write_text(MBOX)
    pipe = tmp_path / "pipe"
    from_file, _, _ = _predict(model, box)
    want = {source.replace(str(box), str(pipe)): p for source, p in from_file.items()}
    with watchdog(60):
        _fed_fifo(pipe, MBOX.encode())
        predicted, rc, err = _predict(model, pipe)
        assert (rc, err) == (0, "")
        _close(predicted, want)
        _fed_fifo(pipe, MBOX.encode())
        routed, rc, err = _topicfilter(model, tmp_path / "out", pipe)
        assert (rc, err) == (0, "")
        _close(routed, want, printed=True)
        _fed_fifo(pipe, MBOX.encode())
        batch, rc, err = _batch(model, pipe)
        assert (rc, err) == (0, "")
        _close(batch, want)
        # a document in a pipe, routed for real: its bytes copied out under the pipe's name
        _fed_fifo(pipe, HAMMY.encode())
        stdout = io.StringIO()
        assert topic_main(["-m", str(model), "-o", str(tmp_path / "routed"), "--uncalibrated", str(pipe)],
                          stdout=stdout, stderr=io.StringIO()) == 0
        dest = stdout.getvalue().split("\t")[3].strip()
        assert os.path.basename(dest) == "pipe" and open(dest).read() == HAMMY
        assert os.path.exists(pipe)  # (never moved)
    # a FIFO inside a folder: skipped unopened by every path (no writer: nothing waits)
    folder = tmp_path / "folder"
    folder.mkdir()
    os.mkfifo(folder / "fifo")
    (folder / "a.txt").write_text(HAMMY)
    with watchdog(60):
        assert set(_predict(model, folder)[0]) == {str(folder / "a.txt")}
        assert set(_topicfilter(model, tmp_path / "out", folder)[0]) == {str(folder / "a.txt")}
        assert set(_batch(model, folder)[0]) == {str(folder / "a.txt")}


def test_a_pipe_no_process_writes_to_is_refused_by_the_mail_reader_not_waited_for(tmp_path, monkeypatch):
    """The mail reader reads a named pipe through the one pipe reader of named inputs, so a
    FIFO without a writer is one line after ``PIPE_WAIT``, never a hang."""
    import textnb.io.corpus
    from textnb.io import mailread

    monkeypatch.setattr(textnb.io.corpus, "PIPE_WAIT", 0.2)
    os.mkfifo(tmp_path / "fifo")
    with watchdog(20), pytest.raises(InputError, match=r"fifo: a FIFO that no process writes to"):
        list(mailread.iter_messages(tmp_path / "fifo"))
    assert not mailread.is_mbox(tmp_path / "fifo")


def test_predict_reports_an_empty_message_of_an_mbox_as_the_mail_tools_do(model, tmp_path):
    """A message of an mbox that is only white space: ``FILE:N: empty message`` in its place,
    the later messages scored, exit 1 (spamfilter and topicfilter say the same line)."""
    box = tmp_path / "in.mbox"
    box.write_text(f"{FROM}{SPAMMY}\n{FROM}\n\n{FROM}{HAMMY}")
    predicted, rc, err = _predict(model, box)
    assert rc == 1 and set(predicted) == {f"{box}:1", f"{box}:3"}
    one_error_line(err, f"{box}:2: empty message")
    assert _batch(model, box)[2] == f"spamfilter: {box}:2: empty message\n"
    assert _topicfilter(model, tmp_path / "out", box)[2] == f"topicfilter: {box}:2: empty message\n"
    assert not math.isnan(predicted[f"{box}:3"])


# -- session 30, "mail3": a Maildir, a device (carved from "mail2", without its mbox training) ---------
SPAMS = ["WINNER free prize cash now claim", "claim your free cash award today", "cheap pills offer now winner"]
HAMS = [HAMMY, "Subject: notes\n\nthe meeting notes are attached, see the plan\n",
        "Subject: call\n\ncall me about the project plan tomorrow\n"]


def _maildir(root, messages, stray):
    """A Maildir at ``root``: ``messages`` in new/ and cur/, ``stray`` in tmp/ (being delivered)."""
    for part in ("new", "cur", "tmp"):
        (root / part).mkdir(parents=True)
    for k, data in enumerate(messages):
        (root / ("new" if k % 2 else "cur") / f"{k}.msg").write_text(data)
    (root / "tmp" / "partial.msg").write_text(stray)


def test_a_maildir_is_read_by_its_new_and_cur_on_every_path(model, tmp_path):
    """``textnb predict M MAILDIR`` read a Maildir as any folder (``tmp/`` too: messages being
    delivered, half written; a message that is an mbox split), where ``topicfilter`` and
    ``spamfilter --batch`` read ``new/`` and ``cur/`` only; ``train`` read a class folder that
    is a Maildir so too. Now every path reads ``new/`` then ``cur/`` (a Maildir inside a folder
    as well), and a Maildir's file is one message, never split as an mbox."""
    box = tmp_path / "Maildir"
    _maildir(box, [SPAMMY, HAMMY, MBOX], "Subject: half\n\nwritten")
    want = {str(box / "new" / "1.msg"), str(box / "cur" / "0.msg"), str(box / "cur" / "2.msg")}
    for path, names in ((box, want), (tmp_path, want)):
        predicted, rc, err = _predict(model, path)
        assert (rc, err) == (0, "") and set(predicted) == names
        assert set(_topicfilter(model, tmp_path / "out", path)[0]) == names
        assert set(_batch(model, path)[0]) == names
    # a class folder that is a Maildir: its new/ and cur/ messages, one document each
    corpus = tmp_path / "corpus"
    _maildir(corpus / "ham", [HAMMY, HAMS[1], MBOX], "Subject: half\n\nwritten")
    (corpus / "spam").mkdir()
    for i, s in enumerate(SPAMS):
        (corpus / "spam" / f"{i}.txt").write_text(s)
    rc, out, _ = cli("train", corpus, "-o", tmp_path / "m.tnb")
    assert rc == 0 and "read 6 documents" in out and "ham 3" in out


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null"])
def test_a_device_named_is_refused_by_every_path_in_one_line(model, tmp_path, device):
    """``textnb predict M /dev/zero`` read the device (``binary file, skipped``; ``/dev/null``
    an empty document scored, exit 0; a terminal waited for typing), where the mail tools
    refused it (``spamfilter --batch``: ``not a regular file (a FIFO, socket or device)``,
    wrong about a FIFO, which it reads). Now one rule (``io.files.refuse_device``): every
    command names the device in the same line, non-zero exit, nothing read."""
    line = f"{device}: not a regular file or a pipe (a socket or device)"
    predicted, rc, err = _predict(model, device)
    assert rc != 0 and predicted == {}
    one_error_line(err, line)
    for command in (("train", device, "-o", tmp_path / "x.tnb"), ("evaluate", device)):
        rc, out, err = cli(*command)
        assert rc != 0 and out == ""
        one_error_line(err, line)
    assert _topicfilter(model, tmp_path / "out", device)[1:] == (1, f"topicfilter: {line}\n")
    assert _batch(model, device)[1:] == (3, f"spamfilter: {line}\n")


def test_standard_input_is_still_read_when_devices_are_refused(model):
    """``-`` is standard input whatever feeds it: never refused as a device."""
    rc, out, err = cli("predict", model, "-", stdin=SPAMMY.encode())
    assert (rc, err) == (0, "") and out.strip()


def test_a_line_is_cut_at_max_bytes_as_the_same_text_in_a_file(tmp_path):
    """Found by a user trial: ``predict --lines`` single-spaced a line before cutting it at the
    model's --max-bytes, so more words fitted than in the same text given as a file, a row or
    standard input (spam 0.8 against 0.667). A line without label words is its text as it is."""
    corpus = tmp_path / "cut.tsv"
    corpus.write_text("ham\tgoing to buy mum something\nspam\tfree prize winner call\n", encoding="utf-8")
    model = tmp_path / "m.tnb"
    assert cli("train", corpus, "--model", "multinomial", "--max-bytes", "10", "-o", model)[0] == 0
    text = "      free prize"
    (tmp_path / "ws.lines").write_text(text + "\n", encoding="utf-8")
    (tmp_path / "ws.txt").write_text(text, encoding="utf-8")
    probas = set()
    for args in (["--lines", tmp_path / "ws.lines"], [tmp_path / "ws.txt"]):
        rc, out, err = cli("predict", model, *args, "--proba")
        assert rc == 0, err
        probas.add(out.split("\t", 2)[2])
    rc, out, err = cli("predict", model, "-", "--proba", stdin=text.encode())
    probas.add(out.split("\t", 2)[2])
    assert len(probas) == 1, probas
