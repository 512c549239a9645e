"""Reading mail from files, folders, mbox files and Maildirs, and decoding bytes: the parts
of :mod:`textnb.io.mail` that need only the standard library's core modules (no
:mod:`email` package), so the spam filter's batch and one-message paths start fast.

:mod:`textnb.io.mail` re-exports every name defined here; see it for the reading rules
(mailboxes are never modified, the size cap, mbox ``From`` lines).
"""

import codecs
import io  # (loaded by Python at start: no cost)
import os
import stat

from textnb.core.errors import InputError, lone_surrogate, missing_input
from textnb.core.regular import NotRegularFile, open_regular_stat
from textnb.core.forkmap import can_fork_here, fork_map, jobs_count, spare_cpus
from textnb.io.files import (BOM, MAILBOX_STARTS, MAILDIR_PARTS, Prefixed, decode_cut, first_bytes, folder_files, is_maildir,
                             is_named_pipe, noting_empty_folder, refuse_device, regular_reader)
from textnb.io.files import read_regular_file as _read_file

__all__ = ["DEFAULT_MAX_BYTES", "decode_bytes", "read_capped", "is_special", "is_maildir", "is_mbox", "mailbox_format",
           "refuse_babyl",
           "looks_like_mail", "is_empty_message", "refuse_empty_message", "iter_messages", "message_files", "read_messages",
           "file_messages", "split_messages", "PIPE", "is_named_pipe", "map_messages"]

#: Bytes of one message that are read and parsed; the rest is skipped.
DEFAULT_MAX_BYTES = 10 * 1024 * 1024

_CHUNK = 1 << 16

#: :func:`map_messages`: files per forked process at least (fewer are read by the calling
#: process alone), files per chunk at most (a chunk is at most a quarter of what is left
#: per process), messages per call of its ``func``
_FORK_FILES, _CHUNK_FILES, _BATCH = 64, 16, 500

#: Regular expressions, compiled on first use (``import re`` costs a fast start more than
#: reading a folder of short messages): module attributes through :func:`__getattr__`.
_SOURCES = {
    # "From " separator line of an mbox: "From <sender> <date>", the date at the line's end. The
    # sender is any text, even none (a Mailman archive's "john at example.com", SpamAssassin's
    # "x@[1086695621] [ufa]", a quoted local part, an empty one), as Python's mailbox, mutt and
    # bogofilter split there; the date asctime's "[Mon ]Sep  2 [2002 ]11:00[:00]", RFC 5322's
    # "[Mon, ]2 Sep 2002 11:00[:00]" or ISO 8601's "2002-09-02[T]11:00[:00]", then up to three
    # time zones or years ("+0200", "MET DST 1995", "2002"), and UUCP's "remote from <host>"
    "_FROM_LINE": rb"^From [ \t]*(?:[^ \t\r\n]+[ \t]+)*?(?=[A-Z\d])"  # (the date tried at each word)
                  rb"(?:(?:[A-Z][a-z]{2},?[ \t]+)?(?:[A-Z][a-z]{2}[ \t]+\d{1,2}|\d{1,2}[ \t]+[A-Z][a-z]{2})"
                  rb"[ \t]+(?:\d{4}[ \t]+)?|\d{4}-\d\d-\d\d(?:T|[ \t]+))"
                  rb"\d{1,2}:\d\d(?::\d\d(?:[.,]\d+)?)?(?:Z|[+-]\d\d:?\d\d)?"
                  rb"(?:[ \t]+(?:[A-Z]{1,5}|[+-]\d{4}|\d{2,4})){0,3}(?:[ \t]+remote from [^\s]+)?"
                  rb"[ \t]*(?:\r?\n|\r|\Z)",
    "_HEADER_LINE": rb"^[!-9;-~]+:",
    "_B64_JUNK": rb"[^A-Za-z0-9+/]",
    "_B64_CLEAN": rb"(?:[A-Za-z0-9+/]{4}|\r?\n)*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?\s*",
}


def __getattr__(name):
    """``_FROM_LINE``, ``_HEADER_LINE``, ``_B64_JUNK``, ``_B64_CLEAN``: compiled when first used."""
    source = _SOURCES.get(name)
    if source is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import re

    value = globals()[name] = re.compile(source)
    return value


def _pattern(name):
    return globals().get(name) or __getattr__(name)


#: Codecs never used to decode mail, whatever a message declares: Python's ``punycode``
#: (and ``idna``, built on it) takes time quadratic in the input (about 1 MB of it holds
#: a filter for minutes); a declared one falls back as an unknown charset does.
REFUSED_CODECS = frozenset({"punycode", "idna"})


def _codec(charset):
    """The codec name for a declared charset, or None (unknown, not a text encoding, or
    one of :data:`REFUSED_CODECS`)."""
    if not charset:
        return None
    charset = str(charset).strip().strip('"').lower()[:64]
    try:
        info = codecs.lookup(charset)
    except (LookupError, ValueError):
        return None
    if info.name in REFUSED_CODECS or not getattr(info, "_is_text_encoding", True):
        return None
    return info.name


def decode_bytes(data, charset=None, cut=False):
    """Decode ``data`` with ``charset``; unknown or wrong: UTF-8, then Latin-1. Never raises.
    A decoding that holds a lone surrogate (UTF-7's ``+2AA-`` is U+D800 alone: no
    character, :func:`~textnb.core.errors.lone_surrogate`) is wrong as one that fails is
    (found by a user trial: an HTML mail in UTF-7 made a term no model file takes, and
    ``spamfilter --train-*`` stopped on an internal error).

    ``cut``: the message was cut at ``max_bytes``, which may split a multi-byte character
    at the end of ``data``: that character is left out and the rest decoded as it is (not
    the whole part as Latin-1 for one broken character at the cut), as
    :func:`textnb.io.corpus.decode_bytes` reads a cut document.
    """
    name = _codec(charset)
    if name is not None:
        try:
            text = decode_cut(data, name, cut)
        except (UnicodeDecodeError, LookupError, ValueError, TypeError):
            pass
        else:
            if lone_surrogate(text) is None:
                return text
    try:
        return decode_cut(data, "utf-8", cut)
    except UnicodeDecodeError:
        return data.decode("latin-1")



def _lenient_b64decode(data):
    """Decode base64, keeping every whole 3-byte group: junk characters and
    padding are dropped, a short tail is padded (never raises). Returns
    ``(bytes, clean)``; ``clean`` is False when something had to be dropped or padded."""
    import base64

    clean = _pattern("_B64_CLEAN").fullmatch(data) is not None
    data = _pattern("_B64_JUNK").sub(b"", data.rstrip(b"=\r\n\t "))
    tail = len(data) % 4
    if tail == 1:
        data = data[:-1]
    elif tail:
        data += b"=" * (4 - tail)
    return base64.b64decode(data), clean



def read_capped(stream, max_bytes=DEFAULT_MAX_BYTES):
    """Read at most ``max_bytes`` from a binary stream; skip (not keep) the rest.

    Returns ``(data, truncated)``. The bytes past the cap are read in chunks and
    dropped, so memory stays bounded whatever the input's size.
    """
    if max_bytes is None:
        return stream.read(), False
    data = stream.read(max_bytes)
    truncated = False
    while stream.read(_CHUNK):
        truncated = True
    return data, truncated


def is_special(path):
    """True for a FIFO, socket, device or folder, or a link to one: never read as mail
    inside a folder (a pipe named by the user is read: :func:`is_named_pipe`).

    A missing, broken or looping link is not special (reading it reports the error).
    """
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def _open_regular(path):
    """Open ``path`` for reading without blocking, as a binary file object; OSError, or
    InputError when it is not a regular file (a FIFO opened this way does not block)."""
    try:
        fd = open_regular_stat(path)[0]
    except NotRegularFile:
        raise InputError(f"{path}: not a regular file (a FIFO, socket, device or folder)") from None
    return regular_reader(fd)  # (a read that would block, /proc/kmsg's, is an error, not a wait)


def is_mbox(path):
    """True for a mailbox file that the reader splits into its messages (:func:`_box_head`):
    its first line (after a UTF-8 byte-order mark and blank lines) an mbox ``From <sender>
    <date>`` line or an MMDF mailbox's ``^A^A^A^A`` line."""
    return mailbox_format(path) in ("mbox", "mmdf")


def mailbox_format(path):
    """The kind of mailbox the file ``path`` is, by its first 4096 bytes (:func:`_box_head`):
    ``"mbox"``, ``"mmdf"`` (both split into their messages), ``"babyl"`` (refused:
    :func:`refuse_babyl`) or None (one message, or it cannot be read: reading it reports
    that)."""
    try:
        with _open_regular(path) as f:
            return _box_head(os.pread(f.fileno(), 4096, 0))[0]
    except (OSError, InputError):
        return None


#: the line that opens and closes each message of an MMDF mailbox (as Python's
#: :class:`mailbox.MMDF` and the MMDF and SCO mailers write it)
_MMDF = b"\x01\x01\x01\x01"


def _box_head(head):
    """``(kind, at)`` of a file whose first bytes (at most 4096 of them are looked at) are
    ``head``: ``at`` the offset of its first line after a UTF-8 byte-order mark and blank
    lines (Python's :mod:`mailbox` skips both; a Windows editor adds the mark), ``kind``
    what that line opens: ``"mbox"`` (an mbox ``From <sender> <date>`` line), ``"mmdf"``
    (an MMDF mailbox's ``^A^A^A^A`` line), ``"babyl"`` (an Emacs RMAIL file's ``BABYL
    OPTIONS:``), or None (one message; ``at`` 0). The one test of every reader of a file,
    a piece of one or a pipe."""
    if head.startswith(b"From "):  # (the common case: no copy of the bytes)
        return ("mbox", 0) if _starts_with_from_line(head) else (None, 0)
    if not head.startswith(MAILBOX_STARTS):
        return None, 0
    at = 3 if head.startswith(BOM) else 0
    if head.startswith((b"\n", b"\r", b" ", b"\t"), at):
        rest = head[at:4096]
        text = rest.lstrip(b" \t\r\n")
        gap = rest[:len(rest) - len(text)]
        at += max(gap.rfind(b"\n"), gap.rfind(b"\r")) + 1  # (the start of the line that is not blank)
    if head.startswith(b"From ", at):
        return ("mbox", at) if _starts_with_from_line(head[at:at + 4096]) else (None, 0)
    if head.startswith(_MMDF, at) and head[at + 4:at + 5] in (b"", b"\n", b"\r"):
        return "mmdf", at
    if head.startswith(b"BABYL OPTIONS:", at):
        return "babyl", at
    return None, 0


def refuse_babyl(path):
    """Raise the one-line refusal (InputError) of the Babyl (Emacs RMAIL) mailbox ``path``:
    every reader refuses one, never reading it as one message."""
    raise InputError(f"{path}: a Babyl (Emacs RMAIL) mailbox: not read; convert it to mbox, e.g. with "
                     f"Emacs's M-x unrmail or Python's mailbox module (mailbox.Babyl to mailbox.mbox)")


def _is_mmdf_line(line):
    """Whether ``line`` (a line with its end) is an MMDF mailbox's ``^A^A^A^A`` line."""
    return line.startswith(_MMDF) and line[4:] in (b"", b"\n", b"\r\n", b"\r")


def _lf(data):
    """The bytes as a Latin-1 string (one character per byte) with LF line ends: CRLF as LF,
    and a bare CR too in a text of bare-CR lines (:func:`_bare_cr_lines`, an old Mac message);
    in a text of LF or CRLF lines a bare CR is a character of its line, as mail servers and
    LF tools (procmail, grep) read it (a bare CR inside a header field had ended the header
    for scoring, and the verdict fields were written inside that field's line)."""
    text = data.decode("latin-1")
    return lf_text(text) if "\r" in text else text


def lf_text(text):
    """The str ``text`` with LF line ends, as :func:`_lf` ends them."""
    text = text.replace("\r\n", "\n")
    return text.replace("\r", "\n") if "\r" in text and _bare_cr_lines(text[:4096]) else text


def _is_name(name):
    """A header field name: printable ASCII characters but space (and colon), not opening
    with ``--`` (a MIME delimiter line, ``--<boundary>``, whose boundary may hold a colon)."""
    return bool(name) and name.isascii() and name.isprintable() and " " not in name and name[:2] != "--"


def _starts_with_field(text):
    """Whether the first line of ``text`` opens a header: a field line (a name of
    ``[!-9;-~]`` characters, printable ASCII but space and colon, then a colon: RFC 5322,
    the value may start at once) whose value starts with a space or TAB, or, for a mail
    field (:func:`_known_field`), right after the colon: ``From:alice@example.com`` and
    ``Subject:hi`` open a header, ``Hi:)``, ``http://x``, ``Note:this``, ``TimH:`` and
    ``Summary:`` alone on its line do not. With string methods: a match of
    ``_FIRST_FIELD`` whose second group matched, or whose first is a mail field and is
    followed by a character other than LF."""
    i = text.find(":")
    if i <= 0 or not _is_name(text[:i]):
        return False
    after = text[i + 1:i + 2]
    return after in (" ", "\t") or (after not in ("", "\n") and _known_field(text[:i].lower()))


#: Header fields of mail and news (RFC 5322, 2045, 2369, 3834, 5536, ...): a block of
#: ``Name: value`` lines that is not ended by a blank line is a header only when it holds
#: one of them (or an ``X-``, ``List-``, ``Content-``, ``Resent-``, ... field).
_MAIL_FIELDS = frozenset({
    "from", "to", "cc", "bcc", "subject", "date", "received", "message-id", "return-path",
    "reply-to", "sender", "in-reply-to", "references", "mime-version", "delivered-to",
    "envelope-to", "status", "user-agent", "organization", "precedence", "priority", "importance",
    "errors-to", "comments", "keywords", "path", "newsgroups", "lines", "thread-topic",
    "thread-index", "authentication-results", "received-spf", "sensitivity", "followup-to",
    "approved", "xref", "nntp-posting-host", "mail-followup-to", "disposition-notification-to",
    "delivery-date", "envelope-from", "apparently-to", "return-receipt-to", "errors-to", "mailing-list",
    "face", "openpgp", "autocrypt", "cancel-lock", "supersedes", "expires", "distribution", "summary",
    "followup-to", "archived-at", "feedback-id", "accept-language", "bounces-to", "encoding",
    "message-id", "mail-reply-to", "nntp-posting-date", "injection-info", "injection-date", "user-agent",
})
_MAIL_PREFIXES = ("x-", "x_", "list-", "content-", "resent-", "arc-", "dkim-", "domainkey-", "original-",
                  "auto-", "thread-", "mime-", "nntp-", "return-", "reply-", "in-reply", "require-")


def _known_field(name):
    return name in _MAIL_FIELDS or name.startswith(_MAIL_PREFIXES)


def looks_like_mail(data):
    """True when ``data`` starts like an RFC 5322 message: a From line, or a first line
    that opens a header as the mail reader reads it
    (:func:`_starts_with_field`: ``Name: value``, or ``Name:value`` of a mail field)."""
    head = data[:4096].lstrip(b"\r\n")
    return _starts_with_from_line(head) or _starts_with_field(_lf(head))


def _iter_mbox(path, max_bytes, start=0, stop=None):
    """Messages of an mbox file, streamed line by line; the file is opened read-only.

    A message starts at a ``From <sender> <date>`` line at the start of the file or
    after an empty line; the ``From`` line itself is not part of the message. Bytes
    past ``max_bytes`` in one message are skipped.

    With ``start`` (the offset of such a From line, :func:`_mbox_separator`), reading
    starts there, and with ``stop`` it ends before the first From line at or after
    ``stop``: the messages whose From line lies in ``[start, stop)``, numbered from 1 (a
    large mbox read in pieces, :func:`map_messages`).
    """
    with _open_regular(path) as f:
        head = os.pread(f.fileno(), 4096, 0)
        cr = _bare_cr_lines(head)
        kind, first = _box_head(head)
        start = start or first  # (the file's first line after a byte-order mark and blank lines)
        if start:
            f.seek(start)
        yield from _mbox_messages(f, cr, path, max_bytes, start, stop, kind == "mmdf")


def _mbox_messages(f, cr, path, max_bytes, at=0, stop=None, mmdf=False):
    """:func:`_iter_mbox`'s messages, read line by line from the open binary stream ``f``
    (a file at offset ``at``, or a pipe as it comes: :func:`_pipe_messages`), ``cr`` whether
    its lines end with a bare CR (:func:`_bare_cr_lines`): the one mbox splitter of every
    reader that streams. Memory holds one message (its first ``max_bytes``) at a time.

    ``mmdf``: an MMDF mailbox (:func:`_box_head`), whose messages are split at its
    ``^A^A^A^A`` lines (where they are, not only after an empty line; a From line is text),
    what lies between a closing line and the next opening one (nothing, or white space) is
    no message, and a From line just after an opening line is its sender's line (Python's
    :class:`mailbox.MMDF` writes one), not part of the message, as an mbox's is not."""
    from_line = _pattern("_FROM_LINE")
    number = 0
    parts, size, started = [], 0, False
    prev_blank, at_line_start = True, True  # (at ``start`` too: it follows an empty line)
    envelope = False  # (MMDF: the line after an opening line, a From line dropped there)
    for line, raw in _mbox_lines(f, cr):
        at += len(raw)
        if (_is_mmdf_line(line) if mmdf else prev_blank and line.startswith(b"From ") and from_line.match(line)) \
                and at_line_start:
            if stop is not None and at - len(raw) >= stop:
                break  # the next piece's first message
            if started and not (mmdf and _blank_parts(parts)):
                number += 1
                yield f"{path}:{number}", _strip_last_newline(b"".join(parts), cr)
            parts, size, started, envelope = [], 0, True, mmdf
            at_line_start = line.endswith(b"\n")
            prev_blank = False
            continue
        if envelope:
            envelope = False
            if line.startswith(b"From ") and from_line.match(line):
                at_line_start = line.endswith(b"\n")
                continue
        if line.endswith(b"\n"):
            prev_blank = at_line_start and line.strip(b"\r\n") == b""
            at_line_start = True
        else:
            prev_blank = False
            at_line_start = False
        if not started:
            started = True  # no From line at the start: one message anyway
        if max_bytes is None or size < max_bytes:
            parts.append(raw)
            size += len(raw)
    if started and not (mmdf and _blank_parts(parts)):
        number += 1
        yield f"{path}:{number}", _strip_last_newline(b"".join(parts), cr)


def _blank_parts(parts):
    """Whether the lines ``parts`` hold nothing but white space (none at all, too)."""
    return all(not part or part.isspace() for part in parts)


def _bare_cr_lines(head):
    """Whether a file or message whose first 4096 bytes are ``head`` (bytes, or a str of
    one character per byte) ends its lines with a bare CR (an old Mac file): it holds more
    bare CRs (not followed by a LF) than LFs. The one rule of every reader: a text of LF or
    CRLF lines with a stray CR in a line keeps it as a character of that line."""
    cr, lf = (b"\r", b"\n") if isinstance(head, (bytes, bytearray)) else ("\r", "\n")
    bare = head.count(cr)
    if not bare:
        return False
    lfs = head.count(lf)
    return bare - head.count(cr + lf) > lfs


def _as_lf(data):
    """``data`` with each bare CR (one not followed by a LF) as a LF: the same length and
    offsets, the lines as :func:`_lf` ends them (CRLF, LF or CR)."""
    if b"\r" not in data:
        return data
    import re

    return re.sub(rb"\r(?!\n)", b"\n", data)


def _mbox_lines(f, cr):
    """``(line, raw)`` pairs of the open mbox file ``f`` from where it stands, as one
    ``readline(_CHUNK)`` at a time reads them: ``raw`` the bytes of the file, ``line``
    the same with a bare CR at its end as a LF when ``cr`` (a file of bare-CR lines,
    :func:`_bare_cr_lines`, whose lines then end at a CR, a CRLF or a LF)."""
    if not cr:
        while True:
            line = f.readline(_CHUNK)
            if not line:
                return
            yield line, line
    import io

    text = io.TextIOWrapper(f, encoding="latin-1", newline="")  # (lines end at CR, LF or CRLF, kept as they are)
    while True:
        piece = text.readline(_CHUNK)
        if not piece:
            return
        raw = piece.encode("latin-1")
        yield (raw[:-1] + b"\n" if raw[-1:] == b"\r" else raw), raw


#: :func:`map_messages` reads an mbox file of at least :data:`_PIECE_FROM` bytes in pieces
#: of at least :data:`_PIECE_BYTES` (at most :data:`_MAX_PIECES` pieces a file), which
#: the processes share; :data:`_WINDOW` bytes are read at a time to find where one starts.
#: A piece of 256 KiB is some 10 ms of work, so the processes end close together
_PIECE_FROM, _PIECE_BYTES, _MAX_PIECES, _WINDOW = 1 << 19, 1 << 18, 256, 1 << 18


def _mbox_pieces(path, size):
    """``[(start, stop), ...]`` of the mbox file ``path`` (``size`` bytes): offsets of From
    lines that :func:`_iter_mbox` starts a message at, about ``size / pieces`` apart (the
    last stop None: the end of the file). One piece when no From line follows the first
    piece's length."""
    step = max(_PIECE_BYTES, -(-size // _MAX_PIECES))
    starts = [0]
    with _open_regular(path) as f:
        for target in range(step, size, step):
            if target <= starts[-1]:
                continue  # (the From line found last lies past this target)
            at = _mbox_separator(f.fileno(), target)
            if at is None:
                break
            starts.append(at)
    return list(zip(starts, starts[1:] + [None]))


def _mbox_separator(fd, pos):
    """The offset of the first line at or after ``pos`` (> 0) of the open mbox file ``fd``
    at which :func:`_iter_mbox` starts a message (:func:`_from_line_at`), or None."""
    head = os.pread(fd, 4096, 0)
    cr, mmdf = _bare_cr_lines(head), _box_head(head)[0] == "mmdf"
    separator = b"\n" + _MMDF if mmdf else b"\nFrom "

    def read(size, offset):
        if not cr:
            return os.pread(fd, size, offset)
        return _as_lf(os.pread(fd, size + 1, offset))[:size]  # (one byte more: a CR's LF)

    off = pos - 1  # (the newline before a line starting at pos)
    while True:
        data = read(_WINDOW, off)
        i = data.find(separator)
        while i >= 0:
            at = off + i + 1
            line = read(_CHUNK, at)  # what readline(_CHUNK) reads there
            nl = line.find(b"\n")
            if _from_line_at(line if nl < 0 else line[:nl + 1], read, at, mmdf):
                return at
            i = data.find(separator, i + 1)
        if len(data) < _WINDOW:
            return None
        off += len(data) - 5  # (a "\nFrom " or "\n^A^A^A^A" across the edge is found in the next window)


def _from_line_at(line, read, at, mmdf=False):
    """Whether :func:`_iter_mbox` starts a message at the line that begins at offset ``at``
    of a file (0, or just after a newline): ``line`` (what one ``readline(_CHUNK)`` reads
    there) is a From line, and there is no line before it or that line is empty (CRs
    only before its LF) and read as one (at most :data:`_CHUNK` bytes). ``read(size,
    offset)`` gives the file's bytes. The one test of a separator line that the readers
    of an mbox held in memory and of one read in pieces share with the line reader.
    ``mmdf``: an MMDF mailbox's, whose separator is a ``^A^A^A^A`` line wherever it is."""
    if mmdf:
        return _is_mmdf_line(line)
    if not (line.startswith(b"From ") and _pattern("_FROM_LINE").match(line)):
        return False
    if not at:
        return True
    span = min(at, 64)
    back = read(span, at - span)[:-1]  # (without the newline at at - 1)
    body = back.rstrip(b"\r")
    if not body and span < at:  # a long run of CRs: read back as far as one line can go
        span = min(at, _CHUNK + 1)
        back = read(span, at - span)[:-1]
        body = back.rstrip(b"\r")
    if len(back) - len(body) + 1 > _CHUNK:
        return False
    return body.endswith(b"\n") or (not body and span == at)


#: mbox files up to this size are read at once and split in memory (the same messages
#: as :func:`_iter_mbox`, several times faster than line by line)
_SMALL_MBOX = 1 << 20


def _split_small_mbox(path, data, cr=None, box=None):
    """The messages :func:`_iter_mbox` yields, from the whole (small) file ``data`` (or a
    piece of the file, from one of its From lines: then ``cr``, whether the *file* ends
    its lines with a bare CR, as :func:`_iter_mbox` tells it from the file's first bytes,
    not the piece's); None when a From line is longer than a read chunk (then the
    streaming reader is used). ``box``: :func:`_box_head` of ``data``, when known."""
    starts = []  # (start of the From line, start of the message after it)
    raw, cr = data, _bare_cr_lines(data[:4096]) if cr is None else cr
    if cr:  # (bare-CR lines: found as LF ones, the same offsets; the messages as they are)
        data = _as_lf(data)
    kind, first = box or _box_head(data)  # (a piece starts at a separator: its own first line tells the kind)
    if kind not in ("mbox", "mmdf"):
        return None  # (a first From line longer than _box_head looks at: the line reader's)
    mmdf = kind == "mmdf"
    separator = b"\n" + _MMDF if mmdf else b"\nFrom "
    candidates = [first]
    i = data.find(separator, first)
    while i >= 0:
        candidates.append(i + 1)
        i = data.find(separator, i + 1)

    def read(size, offset):
        return data[offset:offset + size]

    for here in candidates:
        end = data.find(b"\n", here)
        end = len(data) if end < 0 else end + 1
        if end - here > _CHUNK:
            return None  # (the line reader reads such a line in steps)
        if here == first or _from_line_at(data[here:end], read, here, mmdf):  # (the first: _box_head's)
            starts.append((here, end))
    out = []
    for k, (_, body) in enumerate(starts):
        stop = starts[k + 1][0] if k + 1 < len(starts) else len(data)
        if mmdf:  # (as _mbox_messages reads one: a From line opening a message dropped, a blank gap none)
            if data.startswith(b"From ", body) and _starts_with_from_line(data[body:body + 4096]):
                nl = data.find(b"\n", body, stop)
                body = stop if nl < 0 else nl + 1
            if not raw[body:stop].strip():
                continue
        out.append((f"{path}:{len(out) + 1}", _strip_last_newline(raw[body:stop], cr)))
    return out


def _strip_last_newline(data, cr=False):
    # the empty line before the next "From " belongs to the mbox, not the message
    if data.endswith(b"\r\n\r\n"):
        return data[:-2]
    if data.endswith(b"\n\n") or (cr and data.endswith(b"\r\r")):
        return data[:-1]
    return data


def _outside(link, root_real, on_error):
    """Whether the symbolic link ``link`` leads outside the folder whose real path is
    ``root_real`` (reported to ``on_error``; without it an InputError): such a link is not
    followed, so a mail folder cannot make a filter read (or learn, or move) a file
    elsewhere."""
    target = os.path.realpath(link)
    if not os.path.exists(target):
        return False  # a broken link: reading it reports it
    if target == root_real or target.startswith(root_real.rstrip(os.sep) + os.sep):
        return False
    message = f"{link}: a symbolic link to a file outside {root_real}; not followed"
    if on_error is None:  # (training and registering: as for a file that cannot be read)
        raise InputError(message)
    on_error(message)
    return True


def _maildir_files(path, on_error=None, root_real=None):
    """The files of the Maildir ``path`` as ``(file, True)`` pairs: those of ``new``, then
    of ``cur`` (:data:`~textnb.io.files.MAILDIR_PARTS`; sorted; not their subfolders)."""
    root_real = root_real or os.path.realpath(path)
    for sub in MAILDIR_PARTS:
        for full, _ in _walk(os.path.join(path, sub), on_error, root_real, lambda folder: ()):
            yield full, True


def _walk(top, on_error, root_real, subfolder):
    """:func:`textnb.io.files.folder_files` as the mail reader walks a folder: a link to
    a file outside ``root_real`` is not listed, and it and a folder that cannot be listed
    are reported to ``on_error`` (without it, the latter raises InputError)."""

    def unlistable(folder, message):
        if on_error is None:
            raise InputError(message)
        on_error(message)

    return folder_files(top, on_unlistable=unlistable, subfolder=subfolder,
                        follow=lambda link: not _outside(link, root_real, on_error))


def iter_messages(path, *, max_bytes=DEFAULT_MAX_BYTES, on_error=None):
    """Stream ``(source, message_bytes)`` from a file, folder, mbox or Maildir.

    * a Maildir folder (``cur``/``new``): each file of ``new`` then ``cur``, sorted;
      source = the file's path;
    * an mbox file (first line ``From <sender> <date>``): each message; source =
      ``<path>:<n>`` (n from 1);
    * any other file: one message; source = the path;
    * a pipe named as ``path`` (a FIFO, ``<(...)``: :func:`is_named_pipe`): read once, as it
      comes, as a file (an mbox in it split as it comes, each message its first
      ``max_bytes``; any other pipe its first ``max_bytes``);
    * any other folder: its files recursively, sorted, hidden files and folders
      skipped, each read as above (so mbox files inside folders are split);
      FIFOs, sockets and devices (and links to them) are skipped unopened.

    Inside a folder or Maildir, a symbolic link to a file outside it is not followed
    (reported to ``on_error`` when given). Nothing is ever written; files are opened read-only. With ``on_error``, a file
    that cannot be read is passed to ``on_error(one-line message)`` and skipped, and
    the stream goes on with the next file.

    Raises
    ------
    InputError
        If ``path`` does not exist, is not a regular file or a pipe (a device or socket
        given by name), or (without ``on_error``) a file cannot be read.
    """
    for file, whole in message_files(path, on_error):
        try:
            yield from read_messages(file, max_bytes, whole=whole)
        except InputError as exc:
            if on_error is None:
                raise
            on_error(str(exc))


def map_messages(paths, func, *, max_bytes=DEFAULT_MAX_BYTES, on_error=None, n_jobs=None, pack=None,
                 unpack=None, stdin=None, on_warning=None):
    """``(source, value)`` for each message of the files, folders, mbox files and Maildirs
    ``paths``, in :func:`iter_messages`'s order, ``func`` giving the values of up to 500
    messages at a time (``func(list of message bytes)`` -> a list, one value each), with
    ``on_error`` called where :func:`iter_messages` calls it (without ``on_error`` a path
    or file that cannot be read raises InputError there). With ``stdin`` (a binary
    stream), a path ``-`` is one message read from it (source ``-``), in its place. A
    message of an mbox file that is empty (:func:`is_empty_message`) is not mapped: it is an
    error (``FILE:N: empty message``) in its place, as an empty file is, and the file's
    later messages are read on.

    The files are listed and the helpers forked when this is called (so the caller may
    load a model meanwhile); the files are then read and mapped in chunks that the forked
    helper processes share (:func:`textnb.core.forkmap.fork_map`; a helper
    sends ``pack(values)``, which must be :mod:`marshal`-able, and it comes out as
    ``unpack(...)``): ``n_jobs`` processes in all, with at least 64 files each (None or
    negative: this one plus one per CPU idle when the run starts). When the files are
    few (or for a file named in ``paths``), an mbox file of 512 KiB or more is read in
    pieces that the processes share, each
    piece the messages whose From line lies in a byte range (the ranges start at From
    lines this process finds), numbered on here. With one process (or when this one
    cannot fork) the files are read and mapped a batch at a time as the pairs are taken,
    so memory does not grow with a file. The pairs, their order and the errors are the
    same however many processes compute them; a helper that fails (killed by a signal, say)
    leaves its messages to this process and is reported to ``on_warning`` (one line; None:
    a :class:`RuntimeWarning`), not to ``on_error``: nothing is missing.
    """
    files = []  # (file, whole), (None, error) where the listing reports one, or ("-", the message on stdin)
    named = set()  # the paths that name a file (not a folder)
    for path in paths:
        if stdin is not None and os.fspath(path) == "-":
            data = read_capped(stdin, max_bytes)[0]  # (read here: never by a helper)
            files.append(("-", data) if not is_empty_message(data) else (None, "stdin: empty message"))
            continue
        if not os.path.isdir(path):
            named.add(os.fspath(path))
        try:
            listed = message_files(path, None if on_error is None else lambda e: files.append((None, e)))
            for entry in noting_empty_folder(path, listed, on_warning):  # (a folder of none: a warning)
                files.append(entry)
        except InputError as exc:
            if on_error is None:
                raise
            files.append((None, str(exc)))
    limit = None  # processes allowed, read only when there may be work for more than one

    def allowed():
        if n_jobs is None or n_jobs < 0:
            return min(jobs_count(-1 if n_jobs is None else n_jobs), 1 + spare_cpus(now=True))
        return n_jobs

    few = len(files) < 4 * _FORK_FILES  # (else only the files named are looked at: no stat per file)
    if n_jobs != 1 and (few or named) and can_fork_here():
        limit = allowed()
        if limit > 1:
            files = _in_pieces(files, None if few else named)
    units = sum(_FORK_FILES if type(whole) is tuple else 1 for _, whole in files)  # (a piece: work for a process)
    processes = units // _FORK_FILES
    if processes > 1:
        processes = min(processes, allowed() if limit is None else limit) if can_fork_here() else 1
    if processes <= 1:  # one process: read and map as the files come, a batch at a time
        return _in_order(_mapped(files, func, max_bytes), on_error)
    chunks, start = [], 0
    while start < len(files):  # smaller towards the end, so that the processes finish together
        size = max(1, min(_CHUNK_FILES, (len(files) - start) // (4 * processes)))
        chunk = files[start:start + size]
        k = next((k for k, (_, whole) in enumerate(chunk) if type(whole) is tuple), None)
        if k is not None:  # a piece of an mbox file is a chunk of its own
            chunk = chunk[:k] or chunk[:1]
        chunks.append(chunk)
        start += len(chunk)
    mapped = fork_map(_chunk_mapper(func, max_bytes), chunks, processes - 1,
                      pack=None if pack is None else lambda v: (v[0], pack(v[1]), v[2], v[3]),
                      unpack=None if unpack is None else lambda v: (v[0], unpack(v[1]), v[2], v[3]), on_lost=on_warning)
    return _in_order(_from_chunks(mapped), on_error)


def _in_pieces(files, only=None):
    """``files`` (:func:`message_files`' pairs) with each mbox file of at least
    :data:`_PIECE_FROM` bytes (among ``only``, when given) replaced by its pieces,
    ``(file, (start, stop, key))`` (:func:`_mbox_pieces`; ``key`` tells one naming of the
    file from another), when it has more than one."""
    out = []
    for file, whole in files:
        if file is None or whole is not False or (only is not None and file not in only):
            out.append((file, whole))
            continue
        try:
            st = os.stat(file)
            big = stat.S_ISREG(st.st_mode) and st.st_size >= _PIECE_FROM and is_mbox(file)
            pieces = _mbox_pieces(file, st.st_size) if big else ()
        except (OSError, ValueError, InputError):
            pieces = ()  # (reading the file reports it)
        if len(pieces) > 1:
            out += [(file, (start, stop, len(out))) for start, stop in pieces]  # (len(out): which naming of the file)
        else:
            out.append((file, whole))
    return out


def _mapped(files, func, max_bytes):
    """What reading ``files`` (:func:`map_messages`' entries) and mapping ``func`` over
    their messages meets, in order: ``(sources, values)`` for each batch of at most
    :data:`_BATCH` messages, and an error message (str) where the reading reports one
    (the messages read before it come first). The messages of a piece of an mbox file
    have their numbers in the piece as sources."""
    def mapped(batch):
        return [s for s, _ in batch], func([d for _, d in batch])

    batch = []
    for file, whole in files:
        if file is None:  # an error of the listing, reported in its place
            if batch:
                yield mapped(batch)
                batch = []
            yield whole
            continue
        try:
            if file == "-" and isinstance(whole, bytes):  # the message read from stdin
                messages = [(file, whole)]
            elif type(whole) is tuple:
                messages = enumerate((data for _, data in _mbox_piece(file, max_bytes, *whole[:2])), 1)
            else:
                messages = read_messages(file, max_bytes, whole=whole)
            for pair in messages:
                if is_empty_message(pair[1]):  # (an mbox file's message: a file is refused as it is read)
                    if batch:
                        yield mapped(batch)
                        batch = []
                    yield _Empty(pair[0])
                    continue
                batch.append(pair)
                if len(batch) == _BATCH:
                    yield mapped(batch)
                    batch = []
        except InputError as exc:  # (the messages read before it are kept, as iter_messages does)
            if batch:
                yield mapped(batch)
                batch = []
            yield str(exc)
    if batch:
        yield mapped(batch)


class _Empty:
    """An empty message (:func:`is_empty_message`) met by :func:`_mapped` (an mbox file's: an
    empty file is refused as it is read): reported as ``SOURCE: empty message`` in its
    place and not mapped, as an empty file, stdin or a daemon's request is; the messages
    after it are read on. ``source`` is the message's number in its piece for a piece of
    an mbox file."""

    __slots__ = ("source",)

    def __init__(self, source):
        self.source = source

    def __str__(self):
        return f"{self.source}: empty message"


def _chunk_mapper(func, max_bytes):
    def map_chunk(files):
        """``(sources, values, [(position, error)...], file or None)`` of a chunk of files
        (:func:`_mapped` gathered): each error with the number of messages read before
        it; for a piece of an mbox file (a chunk of its own), ``(file, key)``, and an empty
        message's error its number in the piece (an int: the file's number is the
        parent's)."""
        piece_of = (files[0][0], files[0][1][2]) if len(files) == 1 and type(files[0][1]) is tuple else None
        sources, values, errors = [], [], []
        for got in _mapped(files, func, max_bytes):
            if isinstance(got, _Empty):
                errors.append((len(sources), got.source if piece_of is not None else str(got)))
            elif isinstance(got, str):
                errors.append((len(sources), got))
            else:
                sources += got[0]
                values += got[1]
        return sources, values, errors, piece_of

    return map_chunk


def _from_chunks(mapped):
    """:func:`_mapped`'s events again from the chunks' tuples, in order. The messages of an
    mbox file read in pieces are numbered on from the pieces before; after an error in a
    piece the file's later pieces are not read on (as the one-at-a-time reader stops at
    the error; an empty message is reported in its place and the reading goes on)."""
    numbered, failed = {}, set()  # (file, key) read in pieces -> its messages so far; those that failed
    for sources, values, errors, piece_of in mapped:
        if piece_of is not None:
            if piece_of in failed:
                continue
            base = numbered.get(piece_of, 0)
            sources = [f"{piece_of[0]}:{base + n}" for n in sources]
            empty = sum(type(e) is int for _, e in errors)  # (empty messages: numbered, read on)
            numbered[piece_of] = base + len(sources) + empty
            if empty < len(errors):
                failed.add(piece_of)
            errors = [(at, f"{piece_of[0]}:{base + e}: empty message" if type(e) is int else e) for at, e in errors]
        done = 0
        for at, message in errors:
            if at > done:
                yield sources[done:at], values[done:at]
            done = at
            yield message
        if done < len(sources):
            yield sources[done:], values[done:]


def _in_order(events, on_error):
    """The ``(source, value)`` pairs of :func:`_mapped`'s events, each error passed to
    ``on_error`` in its place (None: raised there as InputError)."""
    for got in events:
        if isinstance(got, (str, _Empty)):
            if on_error is None:
                raise InputError(str(got))
            on_error(str(got))
        else:
            yield from zip(*got)


def _mbox_piece(path, max_bytes, start, stop):
    """The messages of a piece of an mbox file (:func:`_iter_mbox` with ``start`` and
    ``stop``), its errors as InputError. A piece that ends at a From line and is small
    (as :func:`_iter_mbox_file` tells) is read at once and split in memory."""
    try:
        if stop is not None and stop - start <= min(_SMALL_MBOX, max_bytes or _SMALL_MBOX):
            with _open_regular(path) as f:
                data = os.pread(f.fileno(), stop - start, start)
                cr = _bare_cr_lines(os.pread(f.fileno(), 4096, 0))  # (the file's line ends, as _iter_mbox's)
            split = _split_small_mbox(path, data, cr) if len(data) == stop - start else None
            if split is not None:
                yield from split
                return
        yield from _iter_mbox(path, max_bytes, start, stop)
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None


#: ``whole`` of a pipe named by the user in :func:`message_files`' pairs (:func:`is_named_pipe`):
#: :func:`read_messages` reads it once, as it comes (:func:`_pipe_messages`).
PIPE = "pipe"


def message_files(path, on_error=None):
    """The files :func:`iter_messages` reads for ``path``, in its order, as ``(file,
    whole)`` pairs (``whole``: a Maildir's file, always one message; :data:`PIPE` for a
    pipe named as ``path``; otherwise the file is split when it is an mbox), without
    opening any of them: ``read_messages(file,
    max_bytes, whole=whole)`` gives each one's messages. A symbolic link that leads
    outside a folder is reported to ``on_error`` and left out.

    Raises
    ------
    InputError
        If ``path`` does not exist.
    """
    path = os.fspath(path)
    if is_maildir(path):
        yield from _maildir_files(path, on_error)
    elif os.path.isdir(path):
        yield from _tree_files(path, on_error)
    elif os.path.exists(path):
        refuse_device(path)  # (as every reader of a PATH refuses one)
        yield path, PIPE if is_named_pipe(path) else False  # (a pipe only by name: no stat of a folder's files)
    else:
        raise missing_input(path)


def read_messages(path, max_bytes=DEFAULT_MAX_BYTES, *, whole=False):
    """The ``(source, bytes)`` messages of the file ``path`` as :func:`iter_messages`
    reads it: each message of an mbox file (``<path>:<n>``), else the file as one
    message (always so with ``whole`` True). ``whole`` :data:`PIPE`: ``path`` is a pipe
    named by the user (:func:`is_named_pipe`: a FIFO, ``<(...)``, ``/dev/stdin`` fed by a
    pipe, as :func:`message_files` finds it), read once, as it comes: an mbox in it split
    as a file is, each message its first ``max_bytes`` (:func:`_pipe_messages`: every
    message read, however long the pipe), else the pipe is one message, its first
    ``max_bytes``. Raises InputError when it cannot be read or is not a regular file or a
    pipe."""
    if whole is PIPE:  # (named by the user, a FIFO: read once; opened and closed, its writer's data were lost)
        return _pipe_messages(path, max_bytes)
    if whole:
        return [(path, refuse_empty_message(path, _read_file(path, max_bytes)))]
    if max_bytes is not None and max_bytes < 4096:  # the first line may pass the cap
        kind = mailbox_format(path)
        if kind == "babyl":
            refuse_babyl(path)
        return _iter_mbox_file(path, max_bytes) if kind is not None else [
            (path, refuse_empty_message(path, _read_file(path, max_bytes)))]
    data = _read_file(path, max_bytes)
    split = file_messages(path, data, max_bytes)
    return [(path, refuse_empty_message(path, data))] if split is None else split


def file_messages(path, data, max_bytes=DEFAULT_MAX_BYTES, *, pipe=False):
    """The ``(source, bytes)`` messages of the file ``path`` whose first ``max_bytes``
    bytes are ``data``, when it is an mbox (its first line an mbox ``From`` line) or an MMDF
    mailbox (a ``^A^A^A^A`` line), after a UTF-8 byte-order mark and blank lines
    (:func:`_box_head`; a Babyl file, Emacs RMAIL's, is refused, InputError): the one
    rule of every command that reads a file of documents or mail (``textnb predict``,
    ``topicfilter``, ``spamfilter --batch``): a file of several messages is split,
    ``<path>:<n>``; a file of one message is that message, named ``path``, the file as it
    is (its ``From`` line too, :func:`_one_or_many`); an empty message stays so (the
    caller refuses it, :func:`is_empty_message`). None when ``data`` is not an mbox (the
    file is one document, ``data``). The messages are split from ``data`` when it holds
    the whole file, else the file is read on in steps; ``pipe`` (a binary stream): ``data``
    is the first bytes of a pipe (at least 4096, :data:`_PIPE_HEAD`, or all there is) and the
    rest comes from ``pipe``: the messages are read from it as they come (:func:`_pipe_mbox`:
    each one's first ``max_bytes``, memory bounded by one message)."""
    if not data.startswith(MAILBOX_STARTS):
        return None
    kind, first = _box_head(data)
    if kind is None:
        return None
    if kind == "babyl":
        refuse_babyl(path)
    if pipe:
        return _pipe_mbox(path, data, pipe, max_bytes, first, kind == "mmdf")
    # an mbox: split from these bytes when they hold the whole file, else read in steps
    split = None if len(data) > _SMALL_MBOX or (max_bytes is not None and len(data) >= max_bytes) \
        else _split_small_mbox(path, data, box=(kind, first))
    return _iter_mbox_file(path, max_bytes) if split is None else list(_one_or_many(path, iter(split), lambda: data))


def split_messages(source, data, max_bytes=DEFAULT_MAX_BYTES, pipe=False):
    """:func:`file_messages` as every reader of documents takes it (``textnb predict``,
    ``train``, ``evaluate``: :func:`textnb.io.corpus.input_documents`,
    :func:`textnb.io.corpus.to_tokenizable`): its ``(source, bytes)`` messages, the bytes
    None for an empty message (:func:`is_empty_message`: left out and reported as
    ``empty message``); None when ``data`` is not an mbox."""
    messages = file_messages(source, data, max_bytes, pipe=pipe)
    return None if messages is None else ((name, None if is_empty_message(message) else message)
                                          for name, message in messages)


#: the bytes of a pipe read before it is known to hold an mbox (:func:`file_messages`'s test
#: of a first line reads as much of it as :func:`is_mbox` reads of a file's)
_PIPE_HEAD = 4096


def _pipe_messages(path, max_bytes):
    """:func:`read_messages` of the pipe ``path`` named by the user: opened once
    (:func:`textnb.io.corpus.open_input`), an mbox in it split as it comes
    (:func:`_pipe_mbox`), else its first ``max_bytes`` one message (an empty one refused);
    InputError naming it when it cannot be read."""
    from textnb.io.corpus import open_input

    try:
        with open_input(path) as f:
            head = f.read(_PIPE_HEAD)
            messages = file_messages(path, head, max_bytes, pipe=f)
            if messages is None:
                yield path, refuse_empty_message(path, first_bytes(head, f, max_bytes))
            else:
                yield from messages
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None


def _pipe_mbox(path, head, stream, max_bytes, first=0, mmdf=False):
    """The ``(source, bytes)`` messages of an mbox in a pipe whose first bytes are ``head``
    and whose rest comes from ``stream``, read line by line as it comes, by the splitter
    of a large mbox file (:func:`_mbox_messages`): ``<path>:<n>`` each, its first
    ``max_bytes`` (every message read, however long the pipe: memory holds one message),
    a pipe of one message that message, named ``path``, the pipe's first ``max_bytes``
    with its From line (:func:`_one_or_many`), as for a file. ``max_bytes`` None: each
    message whole (``topicfilter`` copies them out); the pipe's bytes kept for a pipe of
    one message are dropped once a message is out (memory: two messages at most). ``first``:
    the offset in ``head`` of its first line (after a byte-order mark and blank lines),
    ``mmdf``: an MMDF mailbox (:func:`_box_head`)."""
    reader = Prefixed(head[first:] if first else head, stream, keep=max_bytes)
    messages = _mbox_messages(io.BufferedReader(reader, _CHUNK), _bare_cr_lines(head[:4096]), path, max_bytes,
                              mmdf=mmdf)
    for pair in _one_or_many(path, messages, reader.kept):
        reader.forget()  # (the pipe's first bytes make a pipe of one message: decided once one is out)
        yield pair


def is_empty_message(data):
    """Whether the raw message ``data`` (bytes) is empty: nothing but white space once its
    first lines ``From <sender> <date>`` (mbox separators, quoted ``>From ...`` too, the
    lines the mail reader drops: :func:`_strip_from_line`) are left out. Such a message is
    not scored or learnt on any path (a file, an mbox file's message, standard input, the
    daemon's three protocols, topicfilter): it is reported ``SOURCE: empty message``, as
    the message of an mbox file that is only its From line always was. Reads no more of
    ``data`` than its first byte that is not white space (no copy of the message)."""
    if not data or data.isspace():  # (isspace stops at the first other byte: no copy)
        return True
    if not data.startswith((b"From ", b">", BOM)):
        return False
    pos, size = _from_lines_end(data), 256
    while pos < len(data):  # (a slice per step, growing: a message's first bytes decide)
        if not data[pos:pos + size].isspace():
            return False
        pos, size = pos + size, size * 4
    return True


def refuse_empty_message(source, data):
    """``data``, or :class:`~textnb.core.errors.InputError` ``"SOURCE: empty message"``
    (``source`` None: ``"empty message"``) when it is an empty message
    (:func:`is_empty_message`): the one test by which every path refuses one (a file,
    an mbox file's message, standard input, the daemon's three protocols, topicfilter, and
    the library's :meth:`textnb.apps.filtering.SpamFilter.classify`), never scored or
    learnt."""
    if is_empty_message(data):
        raise InputError(f"{source}: empty message" if source is not None else "empty message")
    return data




def _from_lines_end(data):
    """The offset in ``data`` just after its first lines ``From <sender> <date>`` (and
    quoted ones), 0 when it has none: :func:`_strip_from_line`'s cut. A leading UTF-8
    byte-order mark (a message saved by a Windows editor) goes with them, as every reader
    of a file drops it (its header was read as body text)."""
    pos = 3 if data.startswith(BOM) else 0  # (an offset, not a slice per line: many such lines stay linear)
    bare_cr = None
    while data.startswith((b"From ", b">"), pos):
        head = data[pos:pos + 4096]
        quotes = len(head) - len(head.lstrip(b">"))
        if not data.startswith(b"From ", pos + quotes):
            break
        nl = data.find(b"\n", pos)  # its line end: CRLF, LF, or a bare CR in bare-CR text, as _lf reads them
        end = len(data) if nl < 0 else nl + 1
        if bare_cr is None:
            bare_cr = _bare_cr_lines(data[:4096])
        cr = data.find(b"\r", pos, len(data) if nl < 0 else nl) if bare_cr else -1
        if cr >= 0:
            end = cr + 2 if data[cr + 1:cr + 2] == b"\n" else cr + 1
        line = data[pos + quotes:min(end, pos + quotes + 4096)]
        if not (_has_time(line) and _pattern("_FROM_LINE").match(line)):
            break
        pos = end
    return pos


def _strip_from_line(data):
    """``data`` without its first lines ``From <sender> <date>`` (mbox separators: a
    message may carry several, and an mbox reader has taken the first of them already, so
    every one is dropped, that the message read from a file, a folder or an mbox is the
    same); a text whose first word is ``From`` keeps it. A line ends as :func:`_lf` ends
    it (CRLF, LF or a bare CR), so an old Mac message keeps its header and body.

    Such a line quoted (``>From <sender> <date>``, ``>>From ...``) is dropped too: an mbox
    writer (mboxo or mboxrd) quotes the From line a message file starts with when it
    appends the file to an mbox, and the mbox reader keeps the quote, so the message read
    from the mbox is the file's (bogofilter skips it too)."""
    pos = _from_lines_end(data)
    return data[pos:] if pos else data


def _starts_with_from_line(data):
    """Whether the first line of ``data`` (at most 4096 bytes of it) is an mbox ``From``
    line (:func:`is_mbox`'s test)."""
    nl = data.find(b"\n", 0, 4096)
    line = data[:nl + 1] if nl >= 0 else data[:4096]
    return _has_time(line) and bool(_pattern("_FROM_LINE").match(line))


def _tree_files(top, on_error):
    """The files of the folder ``top`` (not a Maildir) as :func:`textnb.io.files.folder_files`
    lists them (``os.walk``'s order; hidden names, FIFOs, sockets, devices and links to
    folders left out), a Maildir inside read as one (``(file, True)`` pairs). An MH folder's
    deleted messages (``,N``, ``#N``) and backups (``N~``) are left out (:func:`_mh_leftover`)."""
    root_real = os.path.realpath(top)
    files = _walk(top, on_error, root_real,
                  lambda sub: _maildir_files(sub, on_error, root_real) if is_maildir(sub) else None)
    return ((f, whole) for f, whole in files if whole or not _mh_leftover(os.path.basename(f)))


def _mh_leftover(name):
    """Whether the file name ``name`` is what MH / nmh leave of a message number N in its
    folder: a deleted message (``,N``; ``#N`` with some back-ends) or a backup (``N~``):
    not mail to read or learn (found by a user trial: they were classified and learned)."""
    if name[:1] in (",", "#"):
        number = name[1:]
    elif name[-1:] == "~":
        number = name[:-1]
    else:
        return False
    return number.isascii() and number.isdigit()


def _has_time(line):
    """Whether ``line`` holds ``<digit>:<digit><digit>``, as every match of ``_FROM_LINE``
    does: a text that starts with "From " but not with an mbox line is told without the
    pattern (nor ``import re``)."""
    i = line.find(b":")
    while i >= 0:
        if line[i - 1:i].isdigit() and line[i + 1:i + 3].isdigit() and len(line[i + 1:i + 3]) == 2:
            return True
        i = line.find(b":", i + 1)
    return False


def _iter_mbox_file(path, max_bytes):
    try:
        # a file holding one message (with its From line) keeps its plain name
        stream = None
        whole = None
        if os.path.getsize(path) <= min(_SMALL_MBOX, max_bytes or _SMALL_MBOX):
            data = _read_file(path, _SMALL_MBOX + 1)
            if len(data) <= _SMALL_MBOX:
                split = _split_small_mbox(path, data)
                stream = iter(split) if split is not None else None
                whole = lambda: data  # noqa: E731
        if stream is None:
            stream = _mbox_in_pieces(path, max_bytes)
        yield from _one_or_many(path, stream, whole or (lambda: _read_file(path, max_bytes)))
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None


def _mbox_in_pieces(path, max_bytes):
    """:func:`_iter_mbox`'s messages of the mbox file ``path``, read a piece at a time, in
    order: the pieces :func:`map_messages`' processes share (:func:`_mbox_pieces`, at most
    about a MiB each between two From lines, each read at once and split in memory by
    :func:`_mbox_piece`, several times faster than line by line; a piece larger than that,
    or than ``max_bytes``, line by line), the messages numbered on across the pieces."""
    number = 0
    for start, stop in _mbox_pieces(path, os.path.getsize(path)):
        for _, data in _mbox_piece(path, max_bytes, start, stop):
            number += 1
            yield f"{path}:{number}", data


def _one_or_many(path, stream, file_bytes):
    """The ``(source, bytes)`` pairs of an mbox file's ``stream`` of messages: a file
    holding one message keeps its plain name as the source, and is the file as it is,
    its From line too (``file_bytes()``: what ``textnb predict`` reads from it; the mail
    reader drops the line again, so the spam models see no change) when it starts with
    that line (else, an MMDF file or one with a byte-order mark or blank lines first, the
    message as the splitter reads it); an empty message (:func:`is_empty_message`) stays
    so (refused as empty where it is used)."""
    first = next(stream, None)
    second = next(stream, None)
    if first is not None and second is None:
        if is_empty_message(first[1]):
            yield path, first[1]
        else:
            data = file_bytes()
            yield path, data if data.startswith(b"From ") else first[1]
    elif first is not None:
        yield first
        yield second
        yield from stream
