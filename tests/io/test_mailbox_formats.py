"""Mailbox files as other mail tools write them, read into the messages Python's
:mod:`mailbox` finds, on every path that splits a mailbox (session 49): an mbox whose From
lines' senders hold spaces (Mailman archives, SpamAssassin's own corpus, a quoted local part,
an empty sender), an MMDF mailbox, an mbox after a UTF-8 byte-order mark or blank lines;
a Babyl (Emacs RMAIL) file is refused in one line naming it. Each of them was read as ONE
message without a word (or, with the spaced sender, merged into its neighbour)."""

import io
import json
import mailbox

import pytest

from conftest import SMS_TSV, cli, run_spamfilter, run_topicfilter, tiny_mail
from textnb.core.errors import InputError
from textnb.io import mailread
from textnb.io.mailtokens import message_tokens

#: From lines that Python's mailbox, bogofilter -M and mutt (most of them) split at
SEPARATORS = {
    "pipermail": b"From john at example.com  Mon Sep  2 11:00:00 2002",
    "spamassassin": b"From zvfjenphuq@[1086695621] [ufa]  Sun Aug  5 09:51:15 2001",
    "quoted": b'From "John Doe"@example.com Mon Sep  2 11:00:00 2002',
    "empty": b"From  Mon Sep  2 11:00:00 2002",
    "timezone": b"From a@example.com Mon Sep  2 11:00:00 +0200 2002",
    "two zones": b"From a@example.com Wed Aug  2 00:39:12 MET DST 1995",
    "no seconds": b"From a@example.com Mon Sep  2 11:00 2002",
    "uucp": b"From a@example.com Mon Sep  2 11:00:00 2002 remote from xyz",
    "rfc 5322": b"From a@example.com Mon, 2 Sep 2002 11:00:00 +0200",
    "iso": b"From a@example.com 2002-09-02T11:00:00Z",
}
PLAIN = b"From alice@example.com Mon Sep  2 10:00:00 2002"


def _message(i):
    return b"From: sender%d@example.com\nSubject: message %d\n\nhello number %d\n" % (i, i, i)


def _box(separators):
    """An mbox of one message after each From line of ``separators``."""
    return b"".join(line + b"\n" + _message(i) + b"\n" for i, line in enumerate(separators))


def _python(path, kind=mailbox.mbox):
    box = kind(str(path))
    return [box.get_bytes(key) for key in box.keys()]


def _readers(path, monkeypatch):
    """The messages of the mailbox file ``path`` as each reader that splits one reads it:
    the file held in memory, the line reader, in pieces (a piece at each separator), in
    pieces shared with a forked helper, and from a pipe as it comes."""
    data = path.read_bytes()
    got = {"memory": list(mailread.iter_messages(path)),
           "lines": list(mailread._iter_mbox(str(path), None))}
    with monkeypatch.context() as m:
        m.setattr(mailread, "_PIECE_BYTES", 1)
        m.setattr(mailread, "_PIECE_FROM", 1)
        assert len(mailread._mbox_pieces(str(path), len(data))) > 1
        got["pieces"] = list(mailread._mbox_in_pieces(str(path), None))
        got["forked"] = list(mailread.map_messages([path], lambda ms: list(ms), n_jobs=2))
        m.setattr(mailread, "_SMALL_MBOX", 10)
        got["pieces by lines"] = list(mailread._mbox_in_pieces(str(path), None))
    got["pipe"] = list(mailread.file_messages(str(path), data[:mailread._PIPE_HEAD], pipe=io.BytesIO(data[mailread._PIPE_HEAD:])))
    return got


def _assert_read_as(path, expected, monkeypatch):
    for reader, messages in _readers(path, monkeypatch).items():
        assert [m for _, m in messages] == expected, reader
        assert [s for s, _ in messages] == [f"{path}:{n}" for n in range(1, len(expected) + 1)], reader


@pytest.mark.parametrize("form", list(SEPARATORS))
def test_a_from_line_whose_sender_holds_spaces_separates_messages_on_every_path(tmp_path, monkeypatch, form):
    """The From line of each form (a sender with spaces, quoted, empty; a date with time
    zones, a year, UUCP's "remote from") starts a message, as Python's mailbox, bogofilter
    -M and mutt split there: the mbox reads into Python's messages on every reader (the
    spaced senders merged the message into the one before it: 1 message for 3)."""
    path = tmp_path / "box.mbox"
    path.write_bytes(_box([PLAIN, SEPARATORS[form], PLAIN]))
    expected = _python(path)
    assert len(expected) == 3
    _assert_read_as(path, expected, monkeypatch)
    first = tmp_path / "first.mbox"  # (the file's first line: the test of a file being an mbox)
    first.write_bytes(_box([SEPARATORS[form], PLAIN]))
    assert mailread.is_mbox(first)
    assert [m for _, m in mailread.iter_messages(first)] == _python(first)


def test_text_lines_starting_with_from_still_do_not_separate(tmp_path, monkeypatch):
    """The documented non-splits hold: "From the desk of Bob" after an empty line (no date),
    a From line with a date that does not follow an empty line, a date that does not end
    its line."""
    body = (b"From: a@example.com\nSubject: one\n\nFrom the desk of Bob\n\nFrom here on Mon Sep  2 "
            b"11:00:00 2002 we meet\ntext\nFrom x@example.com Mon Sep  2 11:00:00 2002\n")
    path = tmp_path / "box.mbox"
    path.write_bytes(PLAIN + b"\n" + body + b"\n" + PLAIN + b"\n" + _message(2))
    assert [m for _, m in mailread.iter_messages(path)] == [body, _message(2)]
    _assert_read_as(path, [body, _message(2)], monkeypatch)


@pytest.mark.parametrize("form", ["pipermail", "spamassassin", "quoted", "empty"])
def test_a_message_file_starting_with_such_a_from_line_keeps_its_header(form):
    """A message file whose first line is such a From line (every SpamAssassin file, some
    with a spaced sender) is read with its header: the line is dropped as the mbox
    separator it is (its header was read as body text: no from: or subject: tokens)."""
    data = SEPARATORS[form] + b"\n" + _message(7)
    tokens = set(message_tokens(data))
    assert tokens == set(message_tokens(_message(7)))
    assert {"subject:message", "from:example.com"} <= tokens
    assert mailread._strip_from_line(data) == _message(7)


def test_spamassassin_s_files_with_a_spaced_sender_read_as_messages(shared_corpora, tmp_path):
    """SpamAssassin's spam_2.00135 and 00136 start with ``From zvfjenphuq@[1086695621] [ufa]
    ...``: each file is read with its header, and the two in one mbox are two messages."""
    root = shared_corpora("spamassassin_public_corpus")
    files = [next((root / "spam").glob(f"spam_2.{n}.*")) for n in ("00135", "00136")]
    box = b""
    for f in files:
        data = f.read_bytes()
        assert b" " in data.split(b"\n", 1)[0][5:].split(b"  ")[0]  # (a sender with a space)
        assert any(t.startswith("subject:") for t in message_tokens(data)), f
        box += data.rstrip(b"\n") + b"\n\n"
    (tmp_path / "two.mbox").write_bytes(box)
    assert len(list(mailread.iter_messages(tmp_path / "two.mbox"))) == len(_python(tmp_path / "two.mbox")) == 2


def _python_box(path, kind, n=4):
    box = kind(str(path))
    for i in range(n):
        box.add(_message(i))
    box.flush()
    box.close()
    return _python(path, kind)


def test_an_mmdf_mailbox_reads_into_its_messages_on_every_path(tmp_path, monkeypatch):
    """An MMDF mailbox (messages between ``^A^A^A^A`` lines, as Python's mailbox.MMDF writes
    it, with a From line after each opening line) reads into Python's messages, the same as
    the mbox of those messages, on every reader (it was one message); a From line in an
    MMDF message's body is text, not a separator; an MMDF file of one message is that
    message."""
    path = tmp_path / "box.mmdf"
    expected = _python_box(path, mailbox.MMDF)
    assert len(expected) == 4 and expected == _python_box(tmp_path / "box.mbox", mailbox.mbox)
    _assert_read_as(path, expected, monkeypatch)
    assert mailread.is_mbox(path) and mailread.mailbox_format(path) == "mmdf"
    body = b"Subject: x\n\ntext\n\n" + PLAIN + b"\nmore\n"
    raw = b"\x01\x01\x01\x01\n" + body + b"\x01\x01\x01\x01\n\x01\x01\x01\x01\n" + _message(1) + b"\x01\x01\x01\x01\n"
    (tmp_path / "hand.mmdf").write_bytes(raw)
    _assert_read_as(tmp_path / "hand.mmdf", [body, _message(1)], monkeypatch)
    one = tmp_path / "one.mmdf"
    one.write_bytes(b"\x01\x01\x01\x01\n" + _message(3) + b"\x01\x01\x01\x01\n")
    assert list(mailread.iter_messages(one)) == [(str(one), _message(3))]


def test_a_babyl_mailbox_is_refused_in_one_line_on_every_path(tmp_path):
    """A Babyl (Emacs RMAIL) file is refused by every reader, one line naming the file and
    the format (it was read as one message without a word)."""
    path = tmp_path / "RMAIL"
    _python_box(path, mailbox.Babyl)
    data = path.read_bytes()
    for read in (lambda: list(mailread.iter_messages(path)), lambda: mailread.read_messages(str(path), 100),
                 lambda: mailread.file_messages(str(path), data),
                 lambda: list(mailread.file_messages(str(path), data[:mailread._PIPE_HEAD], pipe=io.BytesIO(data[mailread._PIPE_HEAD:])))):
        with pytest.raises(InputError, match=r"RMAIL: a Babyl \(Emacs RMAIL\) mailbox: not read; convert it to mbox"):
            read()
    errors = []
    assert list(mailread.map_messages([path], lambda ms: list(ms), on_error=errors.append)) == []
    assert len(errors) == 1 and "\n" not in errors[0] and errors[0].startswith(f"{path}: a Babyl")


@pytest.mark.parametrize("lead", [b"\xef\xbb\xbf", b"\n", b"\r\n\n", b"\xef\xbb\xbf\n \n"])
@pytest.mark.parametrize("kind", [mailbox.mbox, mailbox.MMDF])
def test_a_byte_order_mark_or_blank_lines_before_a_mailbox_are_dropped(tmp_path, monkeypatch, lead, kind):
    """An mbox or MMDF file after a UTF-8 byte-order mark or blank lines reads into the
    messages of the same file without them, on every reader (it was one message)."""
    path = tmp_path / "box"
    expected = _python_box(path, kind)
    path.write_bytes(lead + path.read_bytes())
    _assert_read_as(path, expected, monkeypatch)
    assert mailread.is_mbox(path)


def test_the_commands_read_such_mailboxes_into_their_messages(tmp_path):
    """spamfilter --batch and --train-spam, textnb predict, topicfilter and textnb train (a
    mailbox in a class folder) read a spaced-sender mbox, an MMDF box and an mbox after a
    byte-order mark into their messages, and refuse a Babyl file in one line (exit 3)."""
    spam, ham = tiny_mail(tmp_path)
    model, text_model = tmp_path / "spam.tnb", tmp_path / "text.tnb"
    assert run_spamfilter(["-m", model, "--train-spam", spam, "--train-ham", ham])[0] == 0
    assert cli("train", SMS_TSV, "-o", text_model)[0] == 0
    spaced = tmp_path / "spaced.mbox"
    spaced.write_bytes(_box([PLAIN, SEPARATORS["pipermail"], SEPARATORS["spamassassin"]]))
    mmdf = tmp_path / "box.mmdf"
    _python_box(mmdf, mailbox.MMDF, 3)
    bom = tmp_path / "bom.mbox"
    bom.write_bytes(b"\xef\xbb\xbf" + spaced.read_bytes())
    boxes = [spaced, mmdf, bom]
    sources = [f"{box}:{n}" for box in boxes for n in (1, 2, 3)]
    rc, out, err = run_spamfilter(["-m", model, "--batch", *boxes])
    assert rc == 0 and [line.split("\t")[0] for line in out.splitlines()] == sources, err
    rc, out, err = run_spamfilter(["-m", tmp_path / "m2.tnb", "--train-spam", *boxes, "--train-ham", ham])
    assert rc == 0 and "on 9 spam" in err + out, err
    rc, out, err = cli("predict", text_model, *boxes)
    assert rc == 0 and [line.split("\t")[0] for line in out.splitlines()] == sources, err
    rc, out, err = run_topicfilter(["-m", text_model, "-o", tmp_path / "out", "-n", *boxes])
    assert rc == 0 and [line.split("\t")[0] for line in out.splitlines()] == sources, err
    corpus = tmp_path / "corpus"
    for label, box in (("spam", spaced), ("ham", mmdf)):
        (corpus / label).mkdir(parents=True)
        (corpus / label / "box").write_bytes(box.read_bytes())
    (corpus / "ham" / "bom").write_bytes(bom.read_bytes())
    rc, out, err = cli("train", corpus, "-o", tmp_path / "c.tnb", "--json")
    assert rc == 0 and json.loads(out)["per_class"] == {"ham": 6, "spam": 3}, err
    babyl = tmp_path / "RMAIL"
    _python_box(babyl, mailbox.Babyl)
    rc, out, err = run_spamfilter(["-m", model, "--batch", babyl, spaced])
    assert rc == 3 and len(out.splitlines()) == 3
    assert err.splitlines() == [f"spamfilter: {babyl}: a Babyl (Emacs RMAIL) mailbox: not read; convert it to "
                                "mbox, e.g. with Emacs's M-x unrmail or Python's mailbox module (mailbox.Babyl "
                                "to mailbox.mbox)"]


def test_the_verdict_fields_of_p_go_into_the_header_after_a_spaced_from_line(tmp_path):
    """``spamfilter -p`` of a message file starting with SpamAssassin's spaced From line adds
    its fields at the end of the header (they went before the From line, and the real
    header was read as body)."""
    spam, ham = tiny_mail(tmp_path)
    model = tmp_path / "spam.tnb"
    assert run_spamfilter(["-m", model, "--train-spam", spam, "--train-ham", ham])[0] == 0
    data = SEPARATORS["spamassassin"] + b"\n" + _message(1)
    rc, out, err = run_spamfilter(["-m", model, "-p"], stdin=data)
    assert rc in (0, 1, 2), err
    head, _, body = out.partition("\n\n")
    lines = head.splitlines()
    assert lines[:3] == [SEPARATORS["spamassassin"].decode(), "From: sender1@example.com", "Subject: message 1"]
    assert lines[3].startswith("X-TextNB-") and body == "hello number 1\n"
