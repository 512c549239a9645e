"""Mail parsing and mailbox streams: textnb.io.mail."""

import base64
import hashlib
import io
import mailbox
import os
import random
from email.message import EmailMessage

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import quick_first

from textnb.core.errors import InputError
from textnb.io.mail import (
    DEFAULT_MAX_BYTES,
    html_to_text,
    is_maildir,
    is_mbox,
    iter_messages,
    message_text,
    read_capped,
)
from textnb.text.vectorizer import regex_tokenize


def tokens(data, **kw):
    return regex_tokenize(message_text(data, **kw))


def tree_hash(path):
    """SHA-256 over every file (name and bytes) below path, or of one file."""
    h = hashlib.sha256()
    if os.path.isfile(path):
        h.update(open(path, "rb").read())
        return h.hexdigest()
    for root, dirs, files in sorted(os.walk(path)):
        dirs.sort()
        for name in sorted(files):
            full = os.path.join(root, name)
            h.update(os.path.relpath(full, path).encode())
            h.update(open(full, "rb").read())
        h.update(("dirs:" + ",".join(dirs)).encode())
    return h.hexdigest()


SIMPLE = (
    b"Received: from a by b; Mon, 1 Jan 2024 00:00:00 +0000\n"
    b"Received: from c by a; Mon, 1 Jan 2024 00:00:00 +0000\n"
    b"Received: from d by c; Mon, 1 Jan 2024 00:00:00 +0000\n"
    b"From: Bob Seller <bob@Mail.Example.COM>\n"
    b"To: alice@example.org, Carol <carol@other-site.net>\n"
    b"Subject: Cheap watches NOW\n"
    b"Content-Type: text/plain; charset=us-ascii\n"
    b"\n"
    b"Buy our cheap watches today.\n"
)


def test_header_tokens():
    toks = tokens(SIMPLE)
    for t in ["received_hops_3", "subject_cheap", "subject_watches", "subject_now",
              "fromdomain_mail_example_com", "todomain_example_org", "todomain_other_site_net",
              "ctype_text_plain", "charset_us_ascii", "buy", "today"]:
        assert t in toks, t
    # the subject words are prefixed, not mixed into the body words
    assert "subject_today" not in toks


def test_rfc2047_and_8bit_headers():
    data = (b"Subject: =?utf-8?q?caf=C3=A9?= cr\xc3\xa8me\n"
            b"From: =?iso-8859-1?q?Andr=E9?= <andre@exemple.fr>\n\nbody\n")
    toks = tokens(data)
    assert "subject_café" in toks and "subject_crème" in toks
    assert "fromdomain_exemple_fr" in toks
    latin1 = b"Subject: cr\xe8me br\xfbl\xe9e\n\nbody\n"  # raw Latin-1: not UTF-8
    assert "subject_crème" in tokens(latin1)


def test_multipart_html_attachment():
    msg = EmailMessage()
    msg["Subject"] = "Your invoice"
    msg["From"] = "billing@shop.example"
    msg.set_content("Plain part: please pay.")
    msg.add_alternative(
        "<html><head><style>p {color: red}</style><script>var secretcode = 1;</script></head>"
        "<body><p>Click <a href='http://evil.example.net/x'>here</a> &amp; win</p>"
        "<img src='https://img.example.org/a.png' alt='bigprize'></body></html>",
        subtype="html")
    msg.add_attachment(b"%PDF-1.4 pdfsecretword" * 100, maintype="application", subtype="pdf",
                       filename="Invoice 2024.pdf")
    toks = tokens(msg.as_bytes())
    for t in ["plain", "please", "click", "here", "win", "bigprize",
              "urlhost_evil_example_net", "urlhost_img_example_org", "html_img",
              "attach_invoice_2024_pdf", "attachtype_application_pdf", "ctype_multipart_mixed",
              "ctype_text_html", "cte_base64"]:
        assert t in toks, t
    # scripts, styles and attachment contents are not tokenised
    for t in ["secretcode", "color", "pdfsecretword"]:
        assert t not in toks, t


def test_quoted_printable_and_base64_decoded():
    qp = (b"Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable\n\n"
          b"soft=\nbreak caf=C3=A9\n")
    assert {"softbreak", "café"} <= set(tokens(qp))
    b64 = (b"Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n\n"
           + base64.encodebytes("hidden message in base64".encode()))
    assert {"hidden", "message", "base64"} <= set(tokens(b64))


def test_bad_base64_decodes_what_it_can():
    data = (b"Content-Type: text/plain\nContent-Transfer-Encoding: base64\n\n"
            + base64.b64encode(b"hello world from base64")[:-3] + b"!!*&^%\n")
    toks = tokens(data)
    assert "hello" in toks and "world" in toks
    assert any(t.startswith("mimedefect_invalidbase64") for t in toks)


def test_unknown_and_lying_charsets():
    unknown = b"Content-Type: text/plain; charset=x-no-such-charset\n\ncaf\xc3\xa9 ol\xc3\xa9\n"
    assert {"café", "olé"} <= set(tokens(unknown))
    latin = b"Content-Type: text/plain; charset=x-no-such-charset\n\ncaf\xe9\n"
    assert "café" in tokens(latin)
    lying = b"Content-Type: text/plain; charset=us-ascii\n\ncaf\xc3\xa9\n"  # says ASCII, is UTF-8
    assert "café" in tokens(lying)
    koi8 = "Content-Type: text/plain; charset=koi8-r\n\n".encode() + "привет".encode("koi8-r")
    assert "привет" in tokens(koi8)


def test_broken_mime_boundary():
    data = (b"Content-Type: multipart/mixed; boundary=\"XYZ\"\n\n"
            b"--WRONG\nContent-Type: text/plain\n\nsome text here\n--WRONG--\n")
    text = message_text(data)
    assert isinstance(text, str)
    toks = regex_tokenize(text)
    assert any(t.startswith("mimedefect_") for t in toks)
    no_boundary = b"Content-Type: multipart/alternative\n\nbody without parts\n"
    assert isinstance(message_text(no_boundary), str)
    unterminated = (b"Content-Type: multipart/mixed; boundary=B\n\n--B\nContent-Type: text/plain\n\n"
                    b"first part\n--B\nContent-Type: text/html\n\n<p>second <b>part")
    assert {"first", "second", "part"} <= set(tokens(unterminated))


def test_binary_garbage_and_empty():
    rng = random.Random(0)
    for n in (0, 1, 100, 10_000):
        garbage = bytes(rng.randrange(256) for _ in range(n))
        assert isinstance(message_text(garbage), str)
    assert isinstance(message_text(b"\x00" * 1000), str)
    assert isinstance(message_text("already text: Subject: x\n\nhi"), str)


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=2000))
def test_never_raises_on_any_bytes(data):
    assert isinstance(message_text(data), str)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from([
    b"Content-Type: multipart/mixed; boundary=b\n", b"Subject: =?x?q?=ZZ?=\n", b"\n", b"--b\n",
    b"--b--\n", b"Content-Transfer-Encoding: base64\n", b"Content-Type: text/html; charset=\xff\n",
    b"<p>hi</p>\n", b"=?utf-8?b?!!!?=\n", b"From: <@@>\n", b"To: \"unterminated\n", b"\xff\xfe\n",
    b"Content-Disposition: attachment; filename*=bad''%ZZ\n",
]), max_size=30))
def test_never_raises_on_mime_soup(lines):
    assert isinstance(message_text(b"".join(lines)), str)


def test_long_words_become_skip_tokens():
    toks = tokens(b"Subject: x\n\nshort " + b"Q" * 123 + b" tail\n")
    assert "skip_q_120" in toks and "short" in toks and "tail" in toks
    assert max(len(t) for t in toks) <= 48


def test_html_to_text_malformed():
    text, extra = html_to_text("<p>unclosed <b>bold <a href='ftp://files.example.com/'>link")
    assert "unclosed" in text and "link" in text and extra == ["urlhost_files_example_com"]


def test_cap_truncates_and_marks():
    body = b"Subject: big\n\n" + b"word " * 1000
    toks = tokens(body, max_bytes=100)
    assert "textnb_truncated" in toks and toks.count("word") < 30
    assert "textnb_truncated" not in tokens(body)


def test_read_capped_skips_the_rest():
    data, truncated = read_capped(io.BytesIO(b"x" * 1000), 10)
    assert data == b"x" * 10 and truncated
    assert read_capped(io.BytesIO(b"abc"), 10) == (b"abc", False)
    assert read_capped(io.BytesIO(b"abc"), None) == (b"abc", False)


def _mbox_bytes():
    return (b"From alice@example.org Mon Jan  1 00:00:00 2024\n"
            b"Subject: first\n\nhello one\n\n"
            b"From bob@example.org Tue Jan  2 10:20:30 2024\n"
            b"Subject: second\n\nline\n>From the escaped line\nFrom the desk of Bob at 10:30\n\n"
            b"From carol@example.org Wed Jan  3 11:22:33 2024\n"
            b"Subject: third\n\nhello three\n")


def test_mbox_stream_and_untouched(tmp_path):
    path = tmp_path / "inbox.mbox"
    path.write_bytes(_mbox_bytes())
    before = tree_hash(tmp_path)
    assert is_mbox(path)
    got = list(iter_messages(path))
    assert [s for s, _ in got] == [f"{path}:{i}" for i in (1, 2, 3)]
    assert got[0][1] == b"Subject: first\n\nhello one\n"
    assert b"From the desk of Bob" in got[1][1]  # not a separator: no date
    assert "subject_third" in tokens(got[2][1])
    assert tree_hash(tmp_path) == before  # nothing changed, no lock or temp file left


def test_mbox_written_by_stdlib(tmp_path):
    path = str(tmp_path / "std.mbox")
    box = mailbox.mbox(path)
    bodies = [b"Subject: s%d\n\nbody %d\nFrom here on, trouble\n" % (i, i) for i in range(5)]
    for b in bodies:
        box.add(b)
    box.flush()
    expected = [box.get_bytes(k) for k in box.keys()]
    box.close()
    before = tree_hash(path)
    got = [data for _, data in iter_messages(path)]
    assert got == expected
    assert tree_hash(path) == before



def test_an_mbox_with_bare_cr_line_ends_is_read_as_its_messages(tmp_path, monkeypatch, forked_pids):
    """An mbox file of bare-CR lines (old Mac) was one message: its From lines were looked
    for after a LF only. Every reader (in memory, by lines, in pieces) now finds them and
    gives each message as the file holds it; CRLF lines inside read as one line end."""
    from textnb.io import mailread

    path = tmp_path / "mac.mbox"
    path.write_bytes(_mbox_bytes().replace(b"\n", b"\r")
                     + b"\rFrom dan@example.org Thu Jan  4 12:00:00 2024\rSubject: crlf\r\n\r\nfour\r\n")
    unix = tmp_path / "unix.mbox"
    unix.write_bytes(_mbox_bytes() + b"\n")
    expected = [(f"{path}:{k}", data.replace(b"\n", b"\r")) for k, (_, data) in enumerate(iter_messages(unix), 1)]
    expected.append((f"{path}:4", b"Subject: crlf\r\n\r\nfour\r\n"))
    assert len(expected) == 4 and is_mbox(path)
    before = tree_hash(tmp_path)
    assert list(iter_messages(path)) == expected
    assert "subject_third" in tokens(expected[2][1]) and "hello" in tokens(expected[2][1])
    monkeypatch.setattr(mailread, "_SMALL_MBOX", 10)  # by lines
    assert list(iter_messages(path)) == expected
    monkeypatch.setattr(mailread, "_CHUNK", 64)  # long lines read in steps
    assert list(iter_messages(path)) == expected
    monkeypatch.setattr(mailread, "_PIECE_FROM", 1)  # in pieces shared with a forked helper
    monkeypatch.setattr(mailread, "_PIECE_BYTES", 1)
    assert len(mailread._mbox_pieces(str(path), path.stat().st_size)) == 4
    got = list(mailread.map_messages([path], lambda ms: [hashlib.sha1(m).hexdigest() for m in ms], n_jobs=2))
    assert got == [(s, hashlib.sha1(m).hexdigest()) for s, m in expected]
    assert tree_hash(tmp_path) == before



def test_single_message_file_with_from_line(tmp_path):
    path = tmp_path / "00001.eml"
    path.write_bytes(b"From x@y.org  Mon Jul 29 11:28:02 2002\nSubject: one\n\nbody\n")
    (src, data), = iter_messages(path)
    # the file as it is (what textnb predict reads from it); the mail reader drops the From line
    assert src == str(path) and data == path.read_bytes()
    from textnb.io.mailtokens import message_tokens

    assert message_tokens(data) == message_tokens(b"Subject: one\n\nbody\n")


def test_maildir_stream_and_untouched(tmp_path):
    md = mailbox.Maildir(str(tmp_path / "Mail"), create=True)
    md.add(b"Subject: new one\n\nfresh\n")
    key = md.add(b"Subject: seen one\n\nold\n")
    msg = md[key]
    msg.set_subdir("cur")
    md[key] = msg
    md.close()
    root = tmp_path / "Mail"
    before = tree_hash(root)
    assert is_maildir(root)
    got = list(iter_messages(root))
    assert len(got) == 2
    assert {os.path.basename(os.path.dirname(s)) for s, _ in got} == {"new", "cur"}
    assert tree_hash(root) == before


def test_folder_recursive_with_mbox_and_hidden(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "m1.eml").write_bytes(b"Subject: one\n\nx\n")
    (tmp_path / "a" / ".hidden").write_bytes(b"Subject: hidden\n\nx\n")
    (tmp_path / "box").write_bytes(_mbox_bytes())
    got = [s for s, _ in iter_messages(tmp_path)]
    assert got == [str(tmp_path / "box") + f":{i}" for i in (1, 2, 3)] + [str(tmp_path / "a" / "m1.eml")]


def test_an_mh_folders_deleted_messages_and_backups_are_not_mail(tmp_path):
    """Found by a user trial: an MH folder's deleted messages (,N and #N) and backups (N~)
    were classified by --batch and learned by --train-* / --register-*. Only the folder's
    messages are read; names that merely look alike are mail as before."""
    for name in ("1", ",2", "#3", "4~", "5", "notes,6", "7~x", ",", "~"):
        (tmp_path / name).write_bytes(b"Subject: " + name.encode() + b"\n\nbody\n")
    got = sorted(os.path.basename(s) for s, _ in iter_messages(tmp_path))
    assert got == sorted(["1", "5", "notes,6", "7~x", ",", "~"])


def test_missing_path_is_one_line_error(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        list(iter_messages(tmp_path / "nope"))


def test_huge_attachment_is_capped(tmp_path):
    """A 50 MB attachment: read up to the cap, never decoded, the next message intact."""
    big = tmp_path / "big.mbox"
    with open(big, "wb") as f:
        f.write(b"From a@b.c Mon Jan  1 00:00:00 2024\n")
        f.write(b"Subject: huge\nContent-Type: multipart/mixed; boundary=B\n\n--B\n"
                b"Content-Type: text/plain\n\nsee attachment\n--B\nContent-Type: application/zip\n"
                b"Content-Disposition: attachment; filename=big.zip\nContent-Transfer-Encoding: base64\n\n")
        line = b"QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAxMjM0\n"
        block = line * 10_000
        for _ in range(50 * 1024 * 1024 // len(block) + 1):
            f.write(block)
        f.write(b"--B--\n\nFrom a@b.c Tue Jan  2 00:00:00 2024\nSubject: after\n\nsmall\n")
    assert big.stat().st_size > 50 * 1024 * 1024
    cap = 1024 * 1024
    got = list(iter_messages(big, max_bytes=cap))
    assert len(got) == 2
    assert len(got[0][1]) <= cap + 4096
    toks = tokens(got[0][1], max_bytes=cap)
    assert {"subject_huge", "see", "attachment", "attach_big_zip"} <= set(toks)
    assert "subject_after" in tokens(got[1][1])
    # the same message as a plain file (no From line) is capped the same way
    plain = tmp_path / "big.eml"
    with open(big, "rb") as src, open(plain, "wb") as dst:
        src.readline()
        dst.write(src.read(12 * 1024 * 1024))
    (src, data), = iter_messages(plain)
    assert len(data) == DEFAULT_MAX_BYTES
    assert "textnb_truncated" in tokens(data + b"x")


def test_folder_reads_small_from_files_once(tmp_path, monkeypatch):
    """In a folder, a small file starting with ``From `` (an mbox of one or more messages,
    or a text whose first word is From) gives what reading it alone gives, from the bytes
    read once."""
    from textnb.io import mailread

    (tmp_path / "multi").write_bytes(b"From a@b Mon Sep  2 13:13:38 2002\nSubject: one\n\nbody1\n\n"
                                     b"From c@d Mon Sep  2 13:13:39 2002\nSubject: two\n\nbody2\n")
    (tmp_path / "single").write_bytes(b"From a@b Mon Sep  2 13:13:38 2002\nSubject: one\n\nbody1\n")
    (tmp_path / "text").write_bytes(b"From me to you: hello\n")
    (tmp_path / "line").write_bytes(b"From a@b Mon Sep  2 13:13:38 2002\n")
    alone = [m for name in ("line", "multi", "single", "text")
             for m in mailread.iter_messages(str(tmp_path / name))]
    reads = []
    real = mailread._read_file
    monkeypatch.setattr(mailread, "_read_file", lambda path, cap: reads.append(path) or real(path, cap))
    assert list(mailread.iter_messages(str(tmp_path))) == alone
    assert sorted(reads) == sorted(str(tmp_path / n) for n in ("line", "multi", "single", "text"))
    assert [s.rsplit("/", 1)[-1] for s, _ in alone] == ["line", "multi:1", "multi:2", "single", "text"]
    reads.clear()  # a cap that may cut a file: read again as before
    assert list(mailread.iter_messages(str(tmp_path), max_bytes=40)) == [
        m for name in ("line", "multi", "single", "text")
        for m in mailread.iter_messages(str(tmp_path / name), max_bytes=40)]


# -- a large mbox file read in pieces by the processes of map_messages ----------------------
def _tricky_mbox(rng, n):
    """An mbox of ``n`` messages with what a separator search can trip on: From lines inside
    bodies (no empty line before them, no date), long lines and long From lines, empty
    lines of CRs only (some longer than a read chunk), CRLF messages, a last message
    without its empty line."""
    parts = []
    for i in range(n):
        r = rng.random()
        sep = b"From a@b.example Tue Dec  1 10:00:%02d 2026\n" % (i % 60)
        body = b"Subject: m%d\n\n" % i + b"line of text\n" * rng.randint(0, 30)
        if r < 0.1:  # (after a line of text: after an empty one such a line is a separator)
            body += b"text\nFrom inside the body Tue Dec  1 10:00:00 2026\n"
        elif r < 0.2:
            body += b"\nFrom not a separator line\n"
        elif r < 0.3:
            body += b"x" * rng.randint(50, 300) + b"\n"
        elif r < 0.4:
            body += b"\r" * rng.choice([2, 70, 200]) + b"\n"  # (longer than a read chunk of the tests)
        elif r < 0.45:
            body = body.replace(b"\n", b"\r\n")
        elif r < 0.5:
            sep = b"From " + b"y" * rng.randint(60, 200) + b" Tue Dec  1 10:00:00 2026\n"
        parts.append(sep + body + (b"\n" if rng.random() > 0.05 else b""))
    return b"".join(parts)


@pytest.mark.parametrize("seed", quick_first(range(6), keep=2))
def test_large_mbox_in_pieces_gives_the_readers_messages(tmp_path, monkeypatch, forked_pids, seed):
    """map_messages reads a large mbox file in pieces (From line offsets found by the
    parent) shared with forked helpers: the same (source, message) sequence as the one
    reader gives, whatever the pieces' size, the read chunk (long lines read in steps)
    and the cap, against the line reader and the reader of a small mbox held in memory."""
    from textnb.io import mailread

    rng = random.Random(seed)
    path = tmp_path / "big.mbox"
    path.write_bytes(_tricky_mbox(rng, rng.randint(50, 300)))
    monkeypatch.setattr(mailread, "_CHUNK", rng.choice([64, 128, 1 << 16]))
    monkeypatch.setattr(mailread, "_SMALL_MBOX", rng.choice([10, 1 << 30]))  # the one reader: by lines, or in memory
    monkeypatch.setattr(mailread, "_PIECE_FROM", 1)
    monkeypatch.setattr(mailread, "_PIECE_BYTES", rng.choice([1, 300, 2000]))
    pieces = mailread._mbox_pieces(str(path), path.stat().st_size)
    assert len(pieces) > 5 and pieces[0][0] == 0 and pieces[-1][1] is None
    for max_bytes in (None, 200, DEFAULT_MAX_BYTES):
        expected = list(iter_messages(path, max_bytes=max_bytes))
        assert len(expected) > 40
        for n_jobs in (2, 3):
            got = list(mailread.map_messages([path], lambda ms: [hashlib.sha1(m).hexdigest() for m in ms],
                                             max_bytes=max_bytes, n_jobs=n_jobs))
            assert got == [(s, hashlib.sha1(m).hexdigest()) for s, m in expected]
    assert forked_pids


@pytest.mark.parametrize("seed", quick_first(range(6), keep=2))
def test_a_large_mbox_read_in_pieces_gives_the_line_reader_s_messages(tmp_path, monkeypatch, seed):
    """Every reader of an mbox file larger than :data:`_SMALL_MBOX` (``read_messages``: predict,
    topicfilter, spamfilter with one process, training's :class:`MessageStream`) reads it a
    piece at a time, each piece split in memory (``mailread._mbox_in_pieces``, the pieces of
    ``map_messages``' processes): the same (source, message) sequence as the line reader
    (``_iter_mbox``), whatever the pieces' size, the read chunk, the cap, CRLF and bare-CR
    line ends, quoted and unquoted From lines in bodies, long lines and long From lines."""
    from textnb.io import mailread

    rng = random.Random(seed)
    path = tmp_path / "big.mbox"
    data = _tricky_mbox(rng, rng.randint(50, 300))
    path.write_bytes(data.replace(b"\n", b"\r") if seed == 5 else data)  # (one file of bare-CR lines)
    monkeypatch.setattr(mailread, "_CHUNK", rng.choice([64, 128, 1 << 16]))
    monkeypatch.setattr(mailread, "_SMALL_MBOX", rng.choice([10, 4096]))
    monkeypatch.setattr(mailread, "_PIECE_BYTES", rng.choice([1, 300, 2000]))
    assert len(mailread._mbox_pieces(str(path), path.stat().st_size)) > 5
    for max_bytes in (None, 200, DEFAULT_MAX_BYTES):
        expected = list(mailread._iter_mbox(str(path), max_bytes))
        assert len(expected) > 40
        assert list(mailread._mbox_in_pieces(str(path), max_bytes)) == expected
        assert [m for _, m in mailread.read_messages(str(path), max_bytes)] == [m for _, m in expected]


def test_large_mbox_piece_that_fails_stops_the_file_there(tmp_path, monkeypatch, forked_pids):
    """A piece that cannot be read is reported after the messages read before it, and the
    file's later pieces are not read: what the one reader does at such an error."""
    from textnb.io import mailread

    path = tmp_path / "big.mbox"
    path.write_bytes(_tricky_mbox(random.Random(7), 120) + b"From z@b.example Tue Dec  1 10:00:00 2026\n\nlast\n")
    other = tmp_path / "after.eml"
    other.write_bytes(b"Subject: after\n\nbody\n")
    monkeypatch.setattr(mailread, "_PIECE_FROM", 1)
    monkeypatch.setattr(mailread, "_PIECE_BYTES", 1500)
    pieces = mailread._mbox_pieces(str(path), path.stat().st_size)
    assert len(pieces) > 3
    real, bad = mailread._mbox_piece, pieces[2][0]

    def failing(file, max_bytes, start, stop):
        for k, pair in enumerate(real(file, max_bytes, start, stop)):
            if start == bad and k == 1:
                raise InputError(f"{file}: cannot read (Input/output error)")
            yield pair

    monkeypatch.setattr(mailread, "_mbox_piece", failing)
    errors = []
    got = list(mailread.map_messages([path, other], lambda ms: ms, n_jobs=2, on_error=errors.append))
    before = sum(1 for p in pieces[:2] for _ in real(str(path), None, *p)) + 1  # (one message of the bad piece)
    assert got[:-1] == list(iter_messages(path))[:before] and got[-1] == (str(other), other.read_bytes())
    assert errors == [f"{path}: cannot read (Input/output error)"] and forked_pids


@pytest.mark.parametrize("n_jobs", [1, None])
def test_one_process_map_reads_and_maps_as_it_goes(tmp_path, monkeypatch, n_jobs):
    """With one process (``-j 1``, or no CPU idle) map_messages reads and maps a batch at a
    time as the pairs are taken, even inside one large mbox file: memory does not grow
    with the file (it held every value of a file before)."""
    from textnb.io import mailread

    monkeypatch.setattr(mailread, "spare_cpus", lambda now=False: 0)
    monkeypatch.setattr(mailread, "_BATCH", 10)
    path = tmp_path / "big.mbox"
    path.write_bytes(_tricky_mbox(random.Random(3), 200))
    calls = []
    pairs = mailread.map_messages([path], lambda ms: calls.append(len(ms)) or [len(m) for m in ms], n_jobs=n_jobs)
    first = next(pairs)
    assert calls == [10] and first[0] == f"{path}:1"
    rest = list(pairs)
    expected = [(s, len(m)) for s, m in iter_messages(path)]
    assert [first] + rest == expected and sum(calls) == len(expected) > 100


def test_a_named_large_mbox_is_cut_beside_many_files(tmp_path, monkeypatch, forked_pids):
    """With 256 files or more the folders' files are not looked at one by one (no stat per
    file), but an mbox file named in the paths is still cut into pieces; the pairs are the
    one reader's."""
    from textnb.io import mailread

    folder = tmp_path / "many"
    folder.mkdir()
    for i in range(300):
        (folder / f"{i:03d}.eml").write_bytes(b"Subject: m%d\n\nbody %d\n" % (i, i))
    box = tmp_path / "big.mbox"
    box.write_bytes(_tricky_mbox(random.Random(5), 150))
    monkeypatch.setattr(mailread, "_PIECE_FROM", 1)
    monkeypatch.setattr(mailread, "_PIECE_BYTES", 2000)
    looked = []
    real = mailread._mbox_pieces
    monkeypatch.setattr(mailread, "_mbox_pieces", lambda path, size: looked.append(path) or real(path, size))
    got = list(mailread.map_messages([folder, box], lambda ms: [hashlib.sha1(m).hexdigest() for m in ms], n_jobs=2))
    expected = [(s, hashlib.sha1(m).hexdigest()) for p in (folder, box) for s, m in iter_messages(p)]
    assert got == expected and looked == [str(box)] and forked_pids


def test_an_mbox_named_twice_is_numbered_from_1_each_time(tmp_path, monkeypatch, forked_pids):
    """Each naming of a file read in pieces is numbered on its own (``FILE:1`` ... again),
    as the one reader numbers it."""
    from textnb.io import mailread

    box = tmp_path / "big.mbox"
    box.write_bytes(_tricky_mbox(random.Random(6), 120))
    monkeypatch.setattr(mailread, "_PIECE_FROM", 1)
    monkeypatch.setattr(mailread, "_PIECE_BYTES", 1500)
    got = list(mailread.map_messages([box, box], lambda ms: [len(m) for m in ms], n_jobs=2))
    expected = [(s, len(m)) for p in (box, box) for s, m in iter_messages(p)]
    assert got == expected and got[len(got) // 2][0] == f"{box}:1" and forked_pids


def test_a_large_single_message_file_is_the_file_as_it_is(tmp_path):
    """A file of one message with its From line, over the 1 MiB of the in-memory split (read
    by the streaming mbox reader): the file as it is, From line too, as a small one is and as
    ``textnb predict`` reads it; capped at max_bytes as a file is."""
    path = tmp_path / "big.eml"
    path.write_bytes(b"From x@y.org  Mon Jul 29 11:28:02 2002\nSubject: big\n\n" + b"word " * 300_000 + b"\n")
    (src, data), = iter_messages(path)
    assert src == str(path) and data == path.read_bytes()
    (src, data), = iter_messages(path, max_bytes=1000)
    assert data == path.read_bytes()[:1000]
