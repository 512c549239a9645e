"""The one mail reader and tokenizer: raw RFC 5322 messages to tokens, on every path.

:func:`read_message` splits one message (bytes) as mail servers read it and returns a
:class:`Mail`: its header fields and, in order, what its MIME parts hold (content types,
charsets, transfer encodings, attachment names, decoded text, link hosts, defects).
Two thin renderings read that one result:

* :func:`message_tokens`: the distinct tokens of the spam models, the daemon and
  ``spamfilter`` (``subject:cheap``, ``from:example.com``, ``rcvd:mx1.example.com``,
  ``hname:<field>``, ``ctype:``, ``charset:``, ``cte:``, ``attach:``, ``url:<host>``,
  body words as they are);
* :func:`message_text` (also :func:`textnb.io.mail.message_text`): one string for the
  default tokenizer of :class:`textnb.text.vectorizer.Vectorizer`, used by ``textnb
  train`` on mail, the mixed mail tables, ``topicfilter`` and the older spam kinds
  (``subject_cheap``, ``fromdomain_example_com``, ``received_hops_3``, ...).

So a message's body words reach every model the same way: a test checks that each
rendering's words are those of the other.

Reading rules (those of Python's :mod:`email` parser, bogofilter and SpamAssassin):

* CRLF and bare CR line ends are read as LF;
* first lines ``From <sender> <date>`` (mbox separators) are dropped; a text whose
  first word is ``From`` otherwise is text;
* the header block is the run of header fields at the start (RFC 5322 field syntax: a
  name of printable ASCII but ``:`` and space, a colon; folded continuation lines start
  with a space or TAB). It ends at a blank line (dropped) or at the first line that is
  not a field (kept as the first line of the body, and ``mimedefect:noseparator``
  noted): header fields followed directly by body text lose nothing. A text whose first
  line is not ``Name: value`` has no header (an SMS, pasted text);
* multipart bodies are split on their boundary lines, ``message/rfc822`` parts read as
  messages (their header fields give tokens too), base64 and quoted-printable decoded
  (bad base64: what can be decoded), the declared charset honoured (unknown, lying, or
  without a linear-time decoder -- ``punycode``, ``idna`` -- : UTF-8, then Latin-1),
  HTML reduced to its text by one linear scan (:func:`html_text`).

Bounds (hostile mail): every step is linear in the message's size, and

* :data:`MAX_PARTS` (1,000) MIME parts and :data:`MAX_MULTIPART` (8) nested
  ``multipart`` / ``message`` levels are read; the rest is dropped;
* :data:`MAX_HEADERS` (512) header fields per entity are kept, each value cut to
  :data:`MAX_HEADER_BYTES` (16 KiB) characters, with at most :data:`MAX_PARAMS` (100)
  ``;`` parameters in a content field and :data:`MAX_ENCODED_WORDS` (100) RFC 2047
  words decoded per field (the standard decoder is quadratic in their number);
* :data:`MAX_HTML_TAGS` (100,000) tags per HTML part;
* only the first ``max_bytes`` bytes are read (``textnb:truncated``).

A cap that cuts something adds ``mimedefect:toomany<what>`` (``mimedefect_toomany<what>``
in :func:`message_text`). The reader needs only the standard library's core modules:
``re`` only for header fields or HTML, ``email.header`` only for RFC 2047 words, so a
batch of text messages starts fast.

The reader never fails on any input: a step that meets something it cannot read falls
back to the bytes as text (``mimedefect:unparsable``); that fallback catches only the
errors a parsing step can raise, never ``KeyboardInterrupt`` or the termination
exception of ``spamfilter``'s signal handler (exit codes 130 / 3).
"""

import binascii
from itertools import islice as _islice, repeat as _repeat
try:
    from _operator import is_not as _is_not  # (the C function: operator imports more)
except ImportError:  # pragma: no cover - not CPython
    from operator import is_not as _is_not

from textnb.io.mailread import (DEFAULT_MAX_BYTES, _bare_cr_lines, _codec, _is_name, _known_field, _lenient_b64decode, _lf, _pattern,
                                 _starts_with_field, _strip_from_line, decode_bytes, lf_text)

__all__ = ["Tokens", "Mail", "header_end", "read_message", "message_tokens", "message_text", "html_text", "MAX_TOKEN",
           "MAX_PARTS", "MAX_MULTIPART", "MAX_HEADERS", "MAX_HEADER_BYTES", "MAX_PARAMS", "MAX_ENCODED_WORDS",
           "MAX_HTML_TAGS"]

#: MIME parts read per message.
MAX_PARTS = 1000
#: Nested ``multipart/*`` and ``message/rfc822`` levels read.
MAX_MULTIPART = 8
#: Header fields kept per entity.
MAX_HEADERS = 512
#: Characters kept of one header field's value.
MAX_HEADER_BYTES = 16 * 1024
#: Parameters read in one Content-Type / Content-Disposition field.
MAX_PARAMS = 100
#: RFC 2047 encoded words decoded in one header field.
MAX_ENCODED_WORDS = 100
#: Tags read per HTML part.
MAX_HTML_TAGS = 100_000
#: Longer words become ``skip:<first char><length rounded down to 10>``.
MAX_TOKEN = 40

#: The regular expressions, compiled on first use (:data:`_P`; as module attributes
#: ``_WORD``, ``_URL``, ... through :func:`__getattr__`): ``import re`` and the compiling
#: cost a short mail filter run more than classifying a text message.
_SOURCES = {
    "WORD": r"(?u)[\w$][\w$'.\-]*[\w$]",  # a token (the definition; _pieces finds the same faster)
    "URL": r"://([^/\s\"'<>:?#=]+)",  # on lowercased text: link hosts
    "MID_DOMAIN": r"@([^>\s]+)",
    "LEAD": rb" ['.\-]+",  # the ends of runs that are not part of a token (the definition of _strip_ends)
    "TRAIL": rb"['.\-]+ ",
    # a first line that opens a header, with _known_field (the definition of _starts_with_field)
    "FIRST_FIELD": r"(?!--)([!-9;-~]+):([ \t])?",
    "FIELD": r"(?!--)[!-9;-~]+:",  # a header field line, RFC 5322 (the definition of _split_message's field lines)
    "BLANK_LINE": r"\n[ \t]+(?:\n|\Z)",  # a line of blanks after the first (ends a header)
    "EMPTY_FOLD": r":[ \t]*\n[ \t]",  # a line ending in a colon (and blanks), then a fold
    "UNFOLD": r"\n[ \t]+",  # a fold and the blanks after it
    "TAG_NAME": r"[a-zA-Z][^\s/>]*",
    "ATTR": r"""([^\s/>"'=][^\s/>=]*)(?:\s*=\s*(?:"([^"]*)"?|'([^']*)'?|([^\s>]*)))?""",
    "OPEN": r"<[a-zA-Z!?/]",
    # a start or end tag with no '<' or '>' inside (quoted values without them either): an
    # attempt stops at the next '<' or '>', so every character is scanned by one attempt
    "SIMPLE_TAG": r"""<(/?)([a-zA-Z][^\s/<>"'=]*)((?:[^<>"']+|"[^"<>]*"|'[^'<>]*')*+)>""",
    "NEXT_TAG": r"""<(/?)([a-zA-Z][^\s/<>"'=]*)((?:[^<>"']+|"[^"<>]*"|'[^'<>]*')*+)>|<[a-zA-Z!?/]""",
    "VALUE_GAP": r"[=\s]*",
    "BARE_VALUE": r"[^>\s]*",
    "DOMAIN": r"@([^\s>,;\"'()<\]\[]+)",
    "NON_WORD": r"[\W_]+",
    "TEXT_WORD": r"(?u)\b\w\w+\b",
    "LONG_WORD": r"(?u)\w{%d,}" % (MAX_TOKEN + 1),
    "LONG_RUN": r"(?u)[\w$'.\-]{%d,}" % (MAX_TOKEN + 1),
    # a <meta> tag's charset: charset="koi8-r", or content="text/html; charset=koi8-r" (_meta_charset)
    "META_CHARSET": rb"""(?i)<meta\b[^<>]*?charset\s*=\s*["']?\s*([a-z0-9_.:\-]+)""",
}

#: Bytes at the start of an HTML part looked through for a ``<meta>`` charset (the WHATWG
#: encoding sniffing algorithm's prescan reads 1,024).
_META_PRESCAN = 1024


class _Patterns:
    """``_P.URL`` & co.: each pattern of :data:`_SOURCES` compiled when first used."""

    def __getattr__(self, name):
        import re

        if name not in _SOURCES:  # (hasattr, copy, doctest, ... ask for names such as __wrapped__)
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        value = re.compile(_SOURCES[name])
        setattr(self, name, value)
        return value


_P = _Patterns()


def __getattr__(name):
    """``_WORD``, ``_URL``, ...: the compiled patterns under their module-level names."""
    if name[:1] == "_" and name[1:] in _SOURCES:
        return getattr(_P, name[1:])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# -- words --------------------------------------------------------------------------------
#: Latin-1 translation table for :func:`_pieces`: the characters of :data:`_WORD`'s
#: classes (``[\w$'.-]``: ``\w`` is what :meth:`str.isalnum` accepts, and ``_``) map to
#: themselves, every other byte to a space (a test checks it against the pattern).
_TOKEN_TABLE = bytes(i if chr(i).isalnum() or chr(i) in "_$'.-" else 0x20 for i in range(256))
_ENDS = "'.-"


class _TokenMap(dict):
    """:data:`_TOKEN_TABLE` for any text (a :meth:`str.translate` table): each character
    maps to itself when it is one of ``[\\w$'.-]``, else to a space; filled as characters
    are met."""

    __slots__ = ()

    def __missing__(self, code):
        c = chr(code)
        value = self[code] = c if c.isalnum() or c in "_$'.-" else " "
        return value


_TOKEN_MAP = _TokenMap()
#: the 1-character strings :func:`_pieces` can return (dropped by :func:`message_tokens`)
_SINGLES = frozenset(map(chr, range(256)))


def _strip_ends(words):
    r"""``words`` (runs of ``[\w$'.-]``) without their leading and trailing ``'.-``, empty
    ones dropped: what substituting :data:`_LEAD` and then :data:`_TRAIL` with a space in
    the space-separated runs gives, without a regular expression (and faster)."""
    return list(filter(None, map(str.strip, words, [_ENDS] * len(words))))


#: with ``distinct``, :func:`_pieces` drops repeated runs only from texts of more runs than
#: this (a short text has few repeats: dropping them costs more than it saves)
_DEDUP_FROM = 100


def _pieces(text, distinct=False):
    r"""The matches of :data:`_WORD` in ``text``, plus 1-character ones, in order (with
    ``distinct``, repeats of a run may be dropped before its ends are stripped: the same
    pieces in the same order of first appearance, some still repeated).

    A match of :data:`_WORD` is a maximal run of ``[\w$'.-]`` characters with its leading
    and trailing ``'.-`` removed, when at least 2 characters are left. For Latin-1 text
    the runs are found without the backtracking pattern: one ``bytes.translate`` turns
    every other character into a space, ``str.split`` returns the runs and
    :func:`_strip_ends` removes the ``'.-`` at their ends; the 1-character runs this
    leaves are removed by the caller. Other text goes through a ``str.translate`` table.
    """
    try:
        raw = text.encode("latin-1")
    except UnicodeEncodeError:  # the same with a str.translate table; no 1-character pieces
        words = text.translate(_TOKEN_MAP).split()
        if distinct and len(words) > _DEDUP_FROM:
            words = list(dict.fromkeys(words))
        if "." in text or "-" in text or "'" in text:
            words = _strip_ends(words)
        return [w for w in words if len(w) > 1]
    raw = raw.translate(_TOKEN_TABLE)
    words = raw.decode("latin-1").split()
    if distinct and len(words) > _DEDUP_FROM:
        words = list(dict.fromkeys(words))
    if b"." in raw or b"-" in raw or b"'" in raw:
        return _strip_ends(words)
    return words


def _skip_long(words):
    if max(map(len, words), default=0) > MAX_TOKEN:
        return [w if len(w) <= MAX_TOKEN else f"skip:{w[0]}{len(w) // 10 * 10}" for w in words]
    return words


def _words(text, prefix="", lowered=False, distinct=False):
    """Lowercase word tokens of ``text`` (longer than 40: ``skip:<c><len>``), repeats allowed
    (``distinct``: fewer, the same in order of first appearance); without a prefix the list
    may also hold 1-character pieces (see :func:`_pieces`)."""
    words = _skip_long(_pieces(text if lowered else text.lower(), distinct))
    if prefix:
        return [prefix + w for w in words if len(w) > 1]
    return words


_SEP = "\x01"
_SEP_TABLE = _TOKEN_TABLE[:1] + _SEP.encode() + _TOKEN_TABLE[2:]


def _grouped_pieces(groups):
    r"""``_words(group)`` of every group (lowercased), in one pass, the groups' pieces
    separated by :data:`_SEP` entries; None when a group holds ``\x01`` or lowercases to
    text beyond Latin-1 (then each group is tokenised on its own, with the same result)."""
    if any(_SEP in g for g in groups):
        return None
    try:
        raw = (" " + _SEP + " ").join(groups).lower().encode("latin-1")
    except UnicodeEncodeError:
        return None
    raw = raw.translate(_SEP_TABLE)
    words = raw.decode("latin-1").split()
    if b"." in raw or b"-" in raw or b"'" in raw:
        words = _strip_ends(words)
    return _skip_long(words)


_HOST_END = frozenset("/\"'<>:?#=")


def _link_hosts(text):
    """``_URL.findall(text)`` with string methods: after each ``://``, the characters up to
    the first whitespace or one of ``/"'<>:?#=``, when there is at least one."""
    if len(text) > 2048 or "URL" in _P.__dict__:  # the pattern (linear: a literal, then one
        return _P.URL.findall(text)  # character class), on a long text or once compiled
    hosts, pos, n = [], 0, len(text)
    while True:
        i = text.find("://", pos)
        if i < 0:
            return hosts
        start = j = i + 3
        while j < n and text[j] not in _HOST_END and not text[j].isspace():
            j += 1
        if j > start:
            hosts.append(text[start:j])
        pos = j if j > start else i + 1


# -- header ---------------------------------------------------------------------------------
def _lines(text):
    """The lines of ``text`` (without their LF) up to and including the first empty one,
    or all of them: split at once when the first blank line is near (a mail header), else
    one at a time (a long text without a blank line is never held twice)."""
    b = text.find("\n\n", 0, 1 << 16)
    if b >= 0:
        yield from text[:b + 1].split("\n")
        return
    pos, n = 0, len(text)
    while pos < n:
        end = text.find("\n", pos)
        end = n if end < 0 else end
        yield text[pos:end]
        pos = end + 1


#: header field names met (as written) -> lowercase: :func:`_split_message` checks and
#: lowercases a name once (at most :data:`_MAX_NAMES` names of up to 80 characters are kept)
_FIELD_NAMES = {}
_MAX_NAMES = 4096


def _field_name(field):
    """``field.lower()`` when ``field`` is a field name (:func:`_is_name`), else None;
    remembered in :data:`_FIELD_NAMES`."""
    if not _is_name(field):
        return None
    lower = field.lower()
    if len(field) <= 80 and len(_FIELD_NAMES) < _MAX_NAMES:
        _FIELD_NAMES[field] = lower
    return lower


def _split_message(text, cut=None):
    """``(fields, body, separated)`` of a message held as a string with LF line ends.

    ``fields`` lists ``(lowercase name, value)`` with folded lines unfolded (each line
    break and the blanks after it become one space) and the value's leading blanks
    removed; ``separated`` is True when a blank line ended the header (False: it ended
    at a line that is not a field, which starts the body, or at the end of the text). A
    text whose first line does not open a header (:func:`_starts_with_field`) has no
    fields. A field line is a name, then a colon (RFC 5322: ``Name:value`` too; a link,
    ``http://...``, is not one); in a header ended by a blank line that holds a mail
    field every one is a field. Else the header ends at the first ``Name:value`` line (no
    blank after the colon) of a field that is not mail's and, without a blank line, with
    its last mail field (:func:`_known_field`): ``URGENT: call now`` is a text, and
    ``Subject: x`` + ``Note: see below`` keeps the note as body. At most
    :data:`MAX_HEADERS` fields, each cut to :data:`MAX_HEADER_BYTES` (``cut``, a set,
    gets ``'headers'`` / ``'headerbytes'``). One pass over the header's lines.
    """
    if not _starts_with_field(text):
        return [], text, True
    b = text.find("\n\n", 0, 1 << 16)
    if b >= 0:
        fields = _plain_header(text, b)
        if fields is not None:
            return fields, text[b + 2:], True
    fields, starts, pos, n = [], [], 0, len(text)
    name = parts = None
    size = 0
    separated = False
    loose = None  # (fields before, offset) of the first "Name:value" line of a field that is not mail's
    blanks = (" ", "\t")
    # (_lines(text); a list when the blank line is near)
    for line in (text[:b + 1].split("\n") if b >= 0 else _lines(text)):
        first = line[:1]
        if first in blanks:
            if not line.strip(" \t"):  # a line of blanks ends the header, as a blank line
                pos, separated = pos + len(line) + 1, True
                break
            if parts is not None:
                if size < MAX_HEADER_BYTES:
                    piece = line.lstrip(" \t")
                    parts.append(piece)
                    size += len(piece) + 1
                elif cut is not None:
                    cut.add("headerbytes")
            pos += len(line) + 1
            continue
        if not first:
            pos, separated = pos + 1, True
            break
        field, colon, rest = line.partition(":")  # a field name (``_FIELD.match``: a name, then a colon)
        lower = _FIELD_NAMES.get(field) if colon else None
        if lower is None:  # not a name met before: as _is_name (an empty or no name: None)
            lower = _field_name(field) if colon else None
            if lower is None:
                break  # the first line that is not a field: the body
        if rest[:2] == "//":
            break  # nor a link, "http://example.com"
        if parts is not None:
            fields.append((name, " ".join(parts)))
        if loose is None and rest[:1] not in ("", " ", "\t") and not _known_field(lower):
            loose = (len(fields), pos)  # the body's first line, unless a blank line ends the header
        if len(fields) >= MAX_HEADERS:
            name = parts = None
            if cut is not None:
                cut.add("headers")
        else:
            name, parts = lower, [rest.lstrip(" \t")]
            size = len(parts[0])
            starts.append(pos)
        pos += len(line) + 1
    else:  # the text ends inside the header (no body)
        pos = n
    pos = min(pos, n)
    if parts is not None:
        fields.append((name, " ".join(parts)))
    if loose is not None and (not separated or not any(_known_field(k) for k, _ in fields)):
        # no blank line, or no mail field: "Name:value" of another field is the body's first line
        fields, pos, separated = fields[:loose[0]], loose[1], False
    if not separated:  # no blank line: the header ends with its last mail field
        known = [i for i, (k, _) in enumerate(fields) if _known_field(k)]
        if not known:
            return [], text, True  # "URGENT: call now": a text, not a header
        if known[-1] + 1 < len(fields):  # "Subject: x" then "Note: the body's first line"
            fields, pos = fields[:known[-1] + 1], starts[known[-1] + 1]
    out = []
    for k, v in fields:
        if len(v) > MAX_HEADER_BYTES:
            v = v[:MAX_HEADER_BYTES]
            if cut is not None:
                cut.add("headerbytes")
        out.append((k, v))
    return out, text[pos:], separated


def _plain_header(text, b):
    """The fields :func:`_split_message` finds in ``text`` when its header is the plain
    kind, ended by the blank line at ``b`` (the first ``\\n\\n``): every line up to it
    a field line (``Name:value`` too, when the block holds a mail field) or a continuation
    line holding more than blanks, no field whose value starts on a continuation line, at
    most :data:`MAX_HEADERS` fields, shorter than
    :data:`MAX_HEADER_BYTES` in all; else None (the line-by-line reading decides). The
    same fields, from a few passes over the whole block (folds joined by one pattern
    substitution, the lines split at their first colon by ``map``) instead of one loop
    step per line."""
    head = text[:b]
    if len(head) >= MAX_HEADER_BYTES or _P.BLANK_LINE.search(head) is not None:
        return None
    if "\n " in head or "\n\t" in head:
        if _P.EMPTY_FOLD.search(head) is not None:
            return None
        head = _P.UNFOLD.sub(" ", head)  # each fold and the blanks after it: one space
    lines = head.split("\n")
    if len(lines) > MAX_HEADERS:
        return None
    names, colons, rests = zip(*map(str.partition, lines, _repeat(":")))
    if "" in colons or (":/" in head and any(rest[:2] == "//" for rest in rests)):
        return None
    lowers = list(map(_FIELD_NAMES.get, names))
    if None in lowers:
        lowers = [low if low is not None else _field_name(name) for low, name in zip(lowers, names)]
        if None in lowers:
            return None
    values = list(map(str.lstrip, rests, _repeat(" \t")))
    if not all(map(_is_not, values, rests)) and not any(map(_known_field, lowers)):
        for rest in rests:  # (no mail field: "Name:value" is a body's line, as the line reading finds)
            if rest[:1] not in ("", " ", "\t"):
                return None
    return list(zip(lowers, values))


def _nth(text, needle, n):
    """Index of the ``n``-th (from 1) occurrence of ``needle`` in ``text``, or -1."""
    i = -1
    for _ in range(n):
        i = text.find(needle, i + 1)
        if i < 0:
            return -1
    return i


def _text_of(latin1):
    """A header value or payload held as Latin-1 text, decoded as UTF-8 when it is."""
    if latin1.isascii():
        return latin1
    return decode_bytes(latin1.encode("latin-1", "replace"))


def decode_header(value, cut=None):
    """A raw header value (bytes as Latin-1 text) as text: 8-bit bytes decoded (UTF-8,
    else Latin-1) and the first :data:`MAX_ENCODED_WORDS` RFC 2047 words decoded (the
    rest kept as it is; ``cut`` gets ``'encodedwords'``)."""
    if "=?" not in value:
        return _text_of(value)
    rest = ""
    i = _nth(value, "=?", MAX_ENCODED_WORDS + 1)
    if i >= 0:
        value, rest = value[:i], value[i:]
        if cut is not None:
            cut.add("encodedwords")
    try:
        import email.header  # only for RFC 2047 words: the package costs a fast start

        parts = email.header.decode_header(value)
        text = "".join(decode_bytes(c, cs) if isinstance(c, bytes) else _text_of(c) for c, cs in parts)
    except (ValueError, LookupError, TypeError, IndexError, UnicodeError, binascii.Error, AssertionError):
        text = _text_of(value)  # malformed encoded words: the raw value
    return text + _text_of(rest)


def _params(value, cut=None):
    """``(type, {parameter: value})`` of a Content-Type / Content-Disposition value (the
    first of a repeated parameter wins); at most :data:`MAX_PARAMS` parameters are read.
    One scan: ``;`` inside a quoted value does not end it."""
    kind, _, rest = value.partition(";")
    params = {}
    if not rest:
        return kind.strip().lower(), params
    pieces, start, i, n, quote = [], 0, 0, len(rest), -1
    while i < n and len(pieces) < MAX_PARAMS:
        semi = rest.find(";", i)
        if semi < 0:
            break
        if quote < i:
            quote = rest.find('"', i)
            if quote < 0:
                quote = n
        if quote < semi:
            close = rest.find('"', quote + 1)
            if close < 0:
                break
            i = close + 1
            continue
        pieces.append(rest[start:semi])
        start = i = semi + 1
    if len(pieces) >= MAX_PARAMS:
        if cut is not None and rest[start:].strip():
            cut.add("params")
    else:
        pieces.append(rest[start:])
    for piece in pieces:
        key, eq, val = piece.partition("=")
        key = key.strip().lower()
        if not eq or not key:
            continue
        val = val.strip(" \t\n")
        if val[:1] == '"':
            end = val.find('"', 1)
            val = val[1:] if end < 0 else val[1:end]
        else:
            val = val.split(None, 1)[0] if val.split(None, 1) else ""
        params.setdefault(key, val)
    return kind.strip().lower(), params


def _filename(params, disposition_params):
    name = disposition_params.get("filename")
    if name is None:
        star = disposition_params.get("filename*")
        if star is not None:  # RFC 2231: charset'language'percent-encoded, decoded as any declared charset is
            from urllib.parse import unquote_to_bytes

            parts = star.split("'", 2)
            name = decode_bytes(unquote_to_bytes(parts[-1]), parts[0] if len(parts) == 3 else None)
    if name is None:
        name = params.get("name")
    return name


# -- body -----------------------------------------------------------------------------------
def _payload(body, cte):
    """``(bytes, clean)`` of a part's body (Latin-1 text) after its transfer encoding."""
    raw = body.encode("latin-1", "replace")
    if cte == "base64":
        try:
            return binascii.a2b_base64(raw, strict_mode=False), _clean_b64(raw)
        except (binascii.Error, ValueError):
            return _lenient_b64decode(raw)
    if cte == "quoted-printable":
        return binascii.a2b_qp(raw), True
    return raw, True


def _clean_b64(raw):
    """Whether ``raw`` is well-formed base64 (lines of 4-character groups, then padding)."""
    return _pattern("_B64_CLEAN").fullmatch(raw) is not None


def _split_parts(body, boundary):
    r"""``re.split(r"(?m)^--" + re.escape(boundary) + r"(--)?[ \t]*\r?$", body)`` with string
    methods: no pattern compiled per boundary (most messages have their own).

    The result alternates the text between delimiters and ``"--"`` / None for each
    delimiter (a test compares it with the pattern's split).
    """
    marker = "--" + boundary
    out, last, pos, n = [], 0, 0, len(body)
    while True:
        i = body.find(marker, pos)
        if i < 0:
            break
        if i == 0 or body[i - 1] == "\n":
            after = i + len(marker)
            end = body.find("\n", after)
            end = n if end < 0 else end
            rest = body[after:end]
            closing = "--" if rest[:2] == "--" else None
            if closing:
                rest = rest[2:]
            if rest[-1:] == "\r":
                rest = rest[:-1]
            if not rest.strip(" \t"):
                out += (body[last:i], closing)
                last = pos = end
                continue
        pos = i + 1
    out.append(body[last:])
    return out


# -- HTML -----------------------------------------------------------------------------------
_SKIP_TAGS = frozenset({"head", "title"})
_RAW_TAGS = frozenset({"script", "style"})  # their content is not HTML: skipped whole
#: elements that set their text apart (a line break in the text, at their start and end
#: tags): a browser never runs the words on both sides together, as it does across an
#: inline one (``<b>``, ``<font>``, ``<span>``, ``<a>``)
_BLOCK_TAGS = frozenset({"p", "br", "div", "tr", "td", "th", "li", "h1", "h2", "h3", "h4", "h5", "h6", "table",
                         "caption", "hr", "ul", "ol", "dl", "dt", "dd", "blockquote", "pre", "center", "address",
                         "form", "fieldset", "legend", "select", "option", "textarea", "button", "section",
                         "article", "header", "footer", "nav", "aside", "main", "figure", "figcaption"})
#: characters of an HTML document :func:`html_text` splits at once (see there)
_HTML_WINDOW = 1 << 16
#: after this many stops of the bulk reading in a window, averaging under 2 simple tags
#: each, :func:`html_text` reads the rest of the window one construct at a time
_HTML_DENSE = 32
#: the other start tags :func:`html_text`'s ``opened`` acts on
_OPENED_TAGS = frozenset({"img"}) | _RAW_TAGS | _SKIP_TAGS
#: start tags of a document's head (HTML's "in head" insertion mode): any other one starts
#: the body, closing a head (and its title) left without an end tag, as a browser does
_HEAD_TAGS = frozenset({"html", "head", "title", "base", "basefont", "bgsound", "link", "meta", "noscript",
                        "noframes", "style", "script", "template"})


class _Finder:
    """``str.find`` that remembers a miss, so asking again and again for a string that
    is not there (``<a <a <a ...`` has no ``>``) costs one scan, not one per ask."""

    def __init__(self, text):
        self.text, self.cache = text, {}

    def __call__(self, needle, start):
        hit = self.cache.get(needle)
        if hit is None or (hit != -1 and hit < start):
            hit = self.text.find(needle, start)
            self.cache[needle] = hit
        return hit


def _tag_end(src, i, find):
    """Index of the ``>`` that ends the tag whose attributes start at ``i``, or -1: a quote
    right after ``=`` opens a value that may hold ``>``; an unclosed one ends at the next
    ``>``. Every search goes through ``find``, so the scan is linear over a document."""
    while True:
        gt, eq = find(">", i), find("=", i)
        if gt < 0 or eq < 0 or gt < eq:
            return gt
        j = _P.VALUE_GAP.match(src, eq + 1).end()
        q = src[j:j + 1]
        if q not in ("'", '"'):
            i = _P.BARE_VALUE.match(src, j).end()  # a bare value holds quotes and '=' as is
            continue
        close = find(q, j + 1)
        if close < 0:
            return find(">", j + 1)
        i = close + 1


def html_text(src):
    """``(text, hosts, images, capped)`` of an HTML document: its text (scripts, styles,
    head and title dropped; ``alt`` / ``title`` attributes kept), the hosts of its links
    and images (``href``, ``src``, ``action``), the number of ``<img>`` tags, and whether
    :data:`MAX_HTML_TAGS` cut it. Never raises on malformed HTML.

    One forward scan, linear in the length of ``src`` whatever it holds (``<<<<``,
    ``<a <a``, ``<script>`` repeated, unclosed comments), that follows ``html.parser``'s
    tolerant rules: a tag ends at the first ``>`` not inside a quoted attribute value;
    the content of ``script`` and ``style`` is skipped up to its end tag; comments,
    ``<!...>``, ``<?...>`` and ``</`` + junk are dropped; character references are
    decoded; a ``<`` that starts no tag is text, and a construct never closed is text up
    to the next ``>`` (or ``<``).
    """
    return _html_text(src, True)


def _html_text(src, links):
    """:func:`html_text`; without ``links`` the hosts are not looked for (an empty list):
    ``_leaf`` takes them from the whole document when it holds ``://``."""
    import html

    lower = src.lower()
    find, find_lower = _Finder(src), _Finder(lower)
    text, hosts, images, skip, titles = [], [], 0, 0, 0  # (titles: those open, inside skip's count)
    pos, n, tags, capped = 0, len(src), 0, False
    unescape = html.unescape
    split, next_tag, attr, link_host = _P.NEXT_TAG.split, _P.NEXT_TAG.search, _P.ATTR.findall, _P.URL.search

    def data(chunk):
        if chunk and not skip:
            text.append(unescape(chunk) if "&" in chunk else chunk)

    def attributes(attrs):
        """Read a tag's attributes ``attrs``: an ``alt`` / ``title`` value's text, and with
        ``links`` the host of an ``href`` / ``src`` / ``action`` URL. A quick look first
        (every tag's attributes pass here): none of those names, or no ``=``, nothing to read."""
        if "=" not in attrs:
            return
        low = attrs.lower()
        if not ("alt" in low or "title" in low or links and ("href" in low or "src" in low or "action" in low)):
            return
        for name, double, single, bare in attr(attrs):  # (findall: "" for a value not there)
            value = double or single or bare
            if not value:
                continue
            name = name.lower()
            if name in ("href", "src", "action"):
                if not links:
                    continue
                value = unescape(value).strip().lower()
                if value.startswith(("http://", "https://", "ftp://")):
                    host = link_host(value, 0, 300)  # the first of _link_hosts(value[:300])
                    if host:
                        hosts.append(host.group(1))
            elif name in ("alt", "title"):
                text.append(" " + unescape(value) + " ")

    def opened(tag, pos):
        """After the start tag ``tag`` that ends before ``pos``: where reading goes on."""
        nonlocal images, skip, titles
        if skip and not titles and tag not in _HEAD_TAGS:  # the body's first tag: a head left open ends
            skip = 0  # here (inside a title a tag is its text, as a browser reads one)
        if tag == "img":
            images += 1
        if tag in _RAW_TAGS:  # skipped up to its end tag
            end = find_lower("</" + tag, pos)
            close = find(">", end) if end >= 0 else -1
            return n if close < 0 else close + 1
        if tag in _SKIP_TAGS:
            skip += 1
            titles += tag == "title"
        elif tag in _BLOCK_TAGS:
            text.append("\n")
        return pos

    def ended(name):
        """After the end tag ``name`` (lowercase): a head or title closed, a block's break."""
        nonlocal skip, titles
        if skip and name in _SKIP_TAGS:
            skip -= 1
            if name == "title" and titles:
                titles -= 1
        elif name in _BLOCK_TAGS:
            text.append("\n")

    def unclosed(lt):
        gt = find(">", lt + 1)
        nxt = find("<", lt + 1)
        end = gt + 1 if gt >= 0 else (nxt if nxt >= 0 else lt + 1)
        data(src[lt:end])
        return end

    def step(pos):
        """Read the text from ``pos`` and the construct after it; where reading goes on."""
        nonlocal tags, capped
        m = next_tag(src, pos)  # a simple tag (SIMPLE_TAG), or where another construct opens
        if m is None:
            data(src[pos:])
            return n
        lt, after = m.span()
        data(src[pos:lt])
        if tags >= MAX_HTML_TAGS:
            capped = True
            return n
        end_tag, tag, attrs = m.groups()
        if tag is not None:  # a simple tag (as in the bulk reading)
            tags += 1
            if end_tag:
                ended(tag.lower())
                return after
            if "=" in attrs:  # (most tags have none: no call)
                attributes(attrs)
            return opened(tag.lower(), after)
        if find(">", lt + 1) < 0:  # nothing after can close: the rest is text
            data(src[lt:])
            return n
        nxt = src[lt + 1:lt + 2]
        if src.startswith("<!--", lt):
            end = find("-->", lt + 4)
            tags += 1
            return unclosed(lt) if end < 0 else end + 3
        if nxt in ("!", "?", "/"):
            m = _P.TAG_NAME.match(src, lt + 2) if nxt == "/" else None
            gt = _tag_end(src, m.end(), find) if m else find(">", lt + 1)
            if gt < 0:
                return unclosed(lt)
            tags += 1
            if m:
                ended(m.group().lower())
            return gt + 1
        m = _P.TAG_NAME.match(src, lt + 1)
        gt = _tag_end(src, m.end(), find)
        if gt < 0:
            return unclosed(lt)
        tags += 1
        attributes(src[m.end():gt])
        return opened(m.group().lower(), gt + 1)

    # The simple tags (most of a document) are read in bulk: NEXT_TAG.split of a window of
    # the document gives, per match, (text before it, "/" or "", name, attributes) for a
    # simple tag and None groups where another construct opens (its '<' and next character).
    # Such a construct, and a script or style start tag, stop the bulk reading: `step`
    # (or `opened`) reads it on the whole document, then the bulk reading goes on in the same
    # split from the first match at or after where that left off, when no match of the
    # split straddles that point (a straddled window is split again from there). The last
    # text of a window that does not reach the end may hold the start of a tag the window
    # cut: it is read again with the next window (a window without any match goes to
    # `step`, which searches the whole document once). Every character is split at most
    # twice, so the reading stays linear.
    window = _HTML_WINDOW
    while pos < n:
        base = pos
        parts = split(src[base:base + window])
        last = base + window >= n
        count = len(parts)
        it = iter(parts)
        i = off = 0  # the index in parts of the next match's text, and where that text starts
        rounds = bulk = 0  # bulk readings stopped in this window, and the simple tags they read
        while True:
            done, stopped, jump = tags, False, None
            for chunk, end_tag, tag, attrs in zip(it, it, it, it):
                if chunk and not skip:  # data(chunk), inline: this loop runs once per tag
                    text.append(unescape(chunk) if "&" in chunk else chunk)
                if tag is None or tags >= MAX_HTML_TAGS:
                    stopped = True  # another construct (or the cap): step() from its '<'
                    break
                tags += 1
                if end_tag:
                    ended(tag.lower())
                    continue
                tag = tag.lower()
                if skip and not titles and tag not in _HEAD_TAGS:  # (as opened(): the body's first tag
                    skip = 0  # ends an open head)
                if "=" in attrs:  # (most tags have none: no call)
                    attributes(attrs)
                if tag in _BLOCK_TAGS:  # opened(tag, pos) for the common tags, inline
                    text.append("\n")
                elif tag in _OPENED_TAGS:
                    if tag in _RAW_TAGS:  # its content is skipped by opened(), from the tag's end
                        stopped, jump = True, tag
                        break
                    if tag == "img":
                        images += 1
                    else:
                        skip += 1
                        titles += tag == "title"
            k = tags - done  # the simple tags read (each 2 characters more than its groups)
            if not stopped:  # the window's matches are read
                if last:
                    data(parts[-1])
                    pos = n
                elif k or i:
                    pos = base + off + sum(map(len, parts[i:-1])) + 2 * k
                else:  # no match in the window: the text up to the next construct, and that
                    pos = step(pos)
                break
            rounds, bulk = rounds + 1, bulk + k
            if jump is None:  # the '<' of the construct; the next match's text after its 2 characters
                e = off + sum(map(len, parts[i:i + 4 * k + 1])) + 2 * k
                pos, e, j = step(base + e), e + 2, i + 4 * k + 4
            else:  # the end of the script or style start tag
                e = off + sum(map(len, parts[i:i + 4 * k])) + 2 * k
                pos, j = opened(jump, base + e), i + 4 * k
            # go on in this split from the first match at or after pos
            while pos < n:
                y = pos - base
                while j + 3 < count:
                    start = e + len(parts[j])
                    if start >= y or e > y:
                        break
                    e = start + 2 + (len(parts[j + 1]) + len(parts[j + 2]) + len(parts[j + 3])
                                     if parts[j + 2] is not None else 0)
                    j += 4
                if e > y or j + 3 >= count or parts[j + 2] is not None:
                    break
                if rounds >= _HTML_DENSE and bulk < 2 * rounds:  # (step by step below)
                    break
                # another construct at once: its text, then step() (no bulk round for it)
                start = e + len(parts[j])
                data(parts[j][y - e:])
                pos, e, j, rounds = step(base + start), start + 2, j + 4, rounds + 1
            if pos >= n or e > y or j + 3 >= count:  # (a match straddles pos, or none is left: split again)
                break
            if rounds >= _HTML_DENSE and bulk < 2 * rounds:  # other constructs every tag or two:
                end = min(base + window, n)
                while pos < end:  # step by step to the window's end (cheaper there)
                    pos = step(pos)
                break
            parts[j] = parts[j][y - e:]  # the text from pos to the match
            consumed = (j - i) - 4 * (k + (jump is None))  # parts the loop above has not taken yet
            next(_islice(it, consumed, consumed), None)
            i, off = j, y
    return "".join(text), hosts, images, capped


# -- the reader -----------------------------------------------------------------------------
class Mail:
    """What :func:`read_message` found in one message.

    Attributes
    ----------
    items : list of tuple
        In the order met: ``("header", fields)`` for the message's header and that of each
        ``message/rfc822`` part (``fields``: ``(lowercase name, raw value)`` pairs);
        ``("ctype", type, is_container, is_top)``; ``("charset", name)``; ``("cte", name)``;
        ``("attach", file name or None, type, is_top)`` for a part that is not read as text;
        ``("text", text, type, hosts, images)`` for a text part (``hosts``: link hosts;
        ``images``: ``<img>`` tags of an HTML part); ``("defect", name)``.
    cut : set of str
        The bounds that cut something (``parts``, ``multipart``, ``headers``, ...).
    truncated : bool
        Only the first ``max_bytes`` bytes were read.
    unparsable : str or None
        The whole message as text when a step failed (then ``items`` may be partial).
    """

    __slots__ = ("items", "cut", "truncated", "unparsable")

    def __init__(self):
        self.items, self.cut, self.truncated, self.unparsable = [], set(), False, None


#: What the fallback catches: the errors a parsing step can raise on odd input. Never
#: KeyboardInterrupt, SystemExit or a signal handler's exception (issue 30.4).
_PARSE_ERRORS = (ValueError, LookupError, TypeError, IndexError, AttributeError, UnicodeError,
                 binascii.Error, RecursionError, OverflowError, AssertionError)


def header_end(data):
    """Where the header block of the raw message ``data`` (bytes) ends, as this reader
    finds it (:func:`read_message`'s rules: the first line that is not a header field
    ends it, a blank line or not): ``(offset, eol, separated)``, ``offset`` the byte just
    after the header's last field line (before the blank line when ``separated``, else
    before the first body line), or None for a message without a header; ``eol`` the
    message's line ending (``b"\r\n"`` or ``b"\n"``). The offset counts an mbox ``From``
    line before the header. Never raises.
    """
    rest = _strip_from_line(data)
    start = len(data) - len(rest)
    bare_cr = _bare_cr_lines(rest[:4096])
    eol = _line_end(rest, 0, bare_cr)
    try:
        text = _lf(rest)
        fields, body, separated = _split_message(text)
    except _PARSE_ERRORS:
        return None, eol, False
    if not fields:
        return None, eol, False
    if not body and not text.endswith("\n"):
        # the header runs to the end, its last line unended; a last line of white space alone
        # too: the reader takes it for the blank line, but it may be a field's continuation
        # cut short (``--max-bytes`` just after ``"\n\t"``), and it has no line break of its own
        return len(data), eol, False
    lines = text.count("\n", 0, len(text) - len(body))  # line breaks of the header (and its blank line)
    if separated:
        lines -= 1  # the blank line's own
    end = _after_line_breaks(data, lines, start, bare_cr)
    return end, _line_end(data, max(start, end - 2), bare_cr) if end > start else eol, separated


def _line_end(data, pos, bare_cr):
    """The line ending of the line of ``data`` at ``pos`` (CRLF, LF, or CR in a text of
    bare-CR lines, ``bare_cr``; LF when none)."""
    n = data.find(b"\n", pos, pos + 4096)
    r = data.find(b"\r", pos, pos + 4096) if bare_cr else -1
    if r >= 0 and (n < 0 or r < n):
        return b"\r\n" if data[r + 1:r + 2] == b"\n" else b"\r"
    return b"\r\n" if n > pos and data[n - 1:n] == b"\r" else b"\n"


def _after_line_breaks(data, k, pos, bare_cr=None):
    """The offset just after the ``k``-th line ending (CRLF, LF, or CR in a text of bare-CR
    lines, ``bare_cr``, None: as :func:`~textnb.io.mailread._bare_cr_lines` tells of
    ``data``; as :func:`_lf` counts them) of ``data`` from ``pos``."""
    if bare_cr is None:
        bare_cr = _bare_cr_lines(data[:4096])
    for _ in range(k):
        n, r = data.find(b"\n", pos), data.find(b"\r", pos) if bare_cr else -1
        if r >= 0 and (n < 0 or r < n):
            pos = r + 2 if data[r + 1:r + 2] == b"\n" else r + 1
        elif n >= 0:
            pos = n + 1
        else:
            return len(data)
    return pos


def read_message(data, max_bytes=DEFAULT_MAX_BYTES):
    """Read one raw message (bytes, or str); never raises on any input. See the module
    docstring for the rules and bounds; returns a :class:`Mail`."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    mail = Mail()
    if max_bytes is not None and len(data) > max_bytes:
        data = data[:max_bytes]
        mail.truncated = True
    data = _strip_from_line(data)
    try:
        text = _lf(data)
        fields, body, separated = _split_message(text, mail.cut)
        if fields:
            mail.items.append(("header", fields))
            if not separated and body:
                mail.items.append(("defect", "noseparator"))
        _entity(fields, body, mail, 0, [MAX_PARTS], True)
    except _PARSE_ERRORS:
        mail.unparsable = decode_bytes(data, cut=mail.truncated)
    return mail


def _entity(fields, body, mail, depth, budget, top=False):
    """The items of one MIME entity (its content fields and body), recursively."""
    items, cut = mail.items, mail.cut
    header = dict(reversed(fields)) if fields else {}  # the first of a repeated field
    ctype, params = _params(header.get("content-type", "text/plain"), cut)
    if "/" not in ctype or " " in ctype:
        ctype = "text/plain"
    if top and (not fields or fields[0][0].startswith("x-textnb-")
                and all(name.startswith("x-textnb-") for name, _ in fields)):
        # a message body pasted or saved without its header (or with only the fields a
        # filter added to it: textnb.apps.spamlite.add_headers)
        ctype, params = _sniff(body, ctype, params)
    if ctype.startswith("multipart/"):
        items.append(("ctype", ctype, True, top))
        boundary = params.get("boundary")
        if depth >= MAX_MULTIPART:
            cut.add("multipart")
            return
        if not boundary:
            items.append(("defect", "noboundary"))
            _leaf("text/plain", {}, header, body, mail, top)
            return
        pieces = _split_parts(body, boundary)
        if len(pieces) == 1:
            items.append(("defect", "nodelimiter"))
            _leaf("text/plain", {}, header, body, mail, top)
            return
        for k in range(2, len(pieces), 2):  # preamble, then (closing marker, part) pairs
            if pieces[k - 1] == "--":
                break  # the epilogue after the closing delimiter
            if budget[0] <= 0:
                cut.add("parts")
                return
            budget[0] -= 1
            part = pieces[k]
            part = part[1:] if part.startswith("\n") else part
            sub_fields, sub_body, _ = _split_message(part, cut) if _starts_with_field(part) else ([], part, True)
            _entity(sub_fields, sub_body, mail, depth + 1, budget)
        return
    if ctype == "message/rfc822":
        items.append(("ctype", ctype, True, top))
        if depth >= MAX_MULTIPART:
            cut.add("multipart")
            return
        inner = body.lstrip("\n")
        cte = header.get("content-transfer-encoding", "").strip().lower()
        if cte in ("base64", "quoted-printable"):
            inner = _payload(inner, cte)[0].decode("latin-1")
            inner = lf_text(inner)
        sub_fields, sub_body, _ = _split_message(inner, cut)
        if sub_fields:
            items.append(("header", sub_fields))
        _entity(sub_fields, sub_body, mail, depth + 1, budget)
        return
    _leaf(ctype, params, header, body, mail, top)


_HTML_MARKS = ("<html", "<body", "<!doctype html", "<table", "<font", "<div", "<a href", "<br>", "<p>")


def _sniff(body, ctype, params):
    """The content type of a body whose header did not say (a body without its header):
    ``multipart/mixed`` when a line ``--<boundary>`` followed by a header field line opens
    a MIME part within its first 64 KiB, ``text/html`` when it starts like HTML, else as
    given. Reads at most 64 KiB."""
    head = body[:1 << 16]
    i = 0 if head.startswith("--") else head.find("\n--")
    while i >= 0:
        start = i if head.startswith("--", i) else i + 1
        end = head.find("\n", start)
        if end < 0:
            break
        boundary = head[start + 2:end].rstrip(" \t")
        nxt = head[end + 1:end + 200]
        if 0 < len(boundary) <= 200 and " " not in boundary and _starts_with_field(nxt):
            return "multipart/mixed", {"boundary": boundary}
        i = head.find("\n--", end)
    low = head[:4096].lstrip()
    if low.startswith("<"):
        low = low.lower()
        if any(mark in low for mark in _HTML_MARKS):
            return "text/html", params
    return ctype, params


def _meta_charset(payload):
    """The charset an HTML part declares in a ``<meta>`` tag of its first
    :data:`_META_PRESCAN` bytes (``<meta charset="koi8-r">``, or ``http-equiv`` with
    ``content="text/html; charset=koi8-r"``: the two forms of the WHATWG prescan), or None:
    what a mail client decodes the part by when its Content-Type names no charset it knows
    (the HTML spam of SpamAssassin's corpus written in KOI8-R, GB2312 or Big5 declares it
    there only; read as UTF-8, then Latin-1, its words were mojibake)."""
    head = payload[:_META_PRESCAN]
    if b"<meta" not in head.lower():
        return None
    match = _P.META_CHARSET.search(head)
    return match.group(1).decode("ascii").lower() if match is not None else None


def _leaf(ctype, params, header, body, mail, top):
    items, cut = mail.items, mail.cut
    items.append(("ctype", ctype, False, top))
    charset = params.get("charset")
    if charset:
        items.append(("charset", charset.strip().lower()[:40]))
    cte = header.get("content-transfer-encoding", "").strip().lower()[:40]
    if cte:
        items.append(("cte", cte))
    disposition, dparams = _params(header.get("content-disposition", ""), cut)
    filename = _filename(params, dparams)
    if filename is not None:
        filename = decode_header(filename, cut)
    if not ctype.startswith("text/") or filename is not None or disposition == "attachment":
        items.append(("attach", filename, ctype, top))
        return
    payload, clean = _payload(body, cte)
    if not clean:
        items.append(("defect", "invalidbase64"))
    if ctype == "text/html" and _codec(charset) is None:  # none declared (or none known): the page's own
        charset = _meta_charset(payload) or charset
    text = decode_bytes(payload, charset, mail.truncated)  # (the cut may split the last character)
    hosts, images = [], 0
    if ctype == "text/html":
        raw = text
        links = "://" not in raw  # else the hosts of the whole document (links written as text too)
        text, hosts, images, capped = _html_text(raw, links)
        if capped:
            cut.add("htmltags")
        if not links:
            hosts = _link_hosts(raw.lower())
    elif "://" in text:
        hosts = _link_hosts(text.lower())
    items.append(("text", text, ctype, hosts, images))


# -- rendering 1: the spam models' tokens ------------------------------------------------------
_SKIP_FIELDS = frozenset({
    "date", "content-length", "lines", "status", "x-status", "x-keywords", "x-uid",
    "x-textnb-class", "x-textnb-score", "x-textnb-log-odds", "x-mozilla-status",
    "x-mozilla-status2", "x-mozilla-keys", "delivery-date", "x-bogosity", "x-spam-status",
    "x-spam-level", "x-spam-flag", "x-spam-checker-version", "x-spam-score", "x-spam-report",
})
_ADDRESS_FIELDS = {"from": "from:", "to": "to:", "cc": "to:", "reply-to": "reply-to:",
                   "sender": "from:", "return-path": "return-path:", "delivered-to": "to:"}
#: characters of a header value that are tokenised (spam tokens)
_MAX_VALUE = 4000


#: what :func:`_header_tokens` does with a field: skip it, or give its ``hname:`` token
#: and then read it as a Received field, a Message-ID, a MIME field (nothing more) or words
_SKIP, _RECEIVED, _MESSAGE_ID, _MIME, _TEXT = range(5)
#: lowercase field name -> ``(what, hname token, word prefix)``, filled as names are met
#: (names of up to 80 characters, at most :data:`_MAX_NAMES` of them)
_FIELD_KINDS = {}


def _field_kind(name):
    if name in _SKIP_FIELDS:
        kind = (_SKIP, None, None)
    elif name == "received":
        kind = (_RECEIVED, "hname:received", "rcvd:")
    elif name == "message-id":
        kind = (_MESSAGE_ID, "hname:message-id", None)
    elif name.startswith("content-") or name == "mime-version":
        kind = (_MIME, "hname:" + name[:MAX_TOKEN], None)  # MIME structure: tokenised per part
    else:
        prefix = "subject:" if name == "subject" else _ADDRESS_FIELDS.get(name) or name[:MAX_TOKEN] + ":"
        kind = (_TEXT, "hname:" + name[:MAX_TOKEN], prefix)
    if len(name) <= 80 and len(_FIELD_KINDS) < _MAX_NAMES:
        _FIELD_KINDS[name] = kind
    return kind


def _header_tokens(fields, out):
    n_received = 0
    texts = {}  # prefix -> values: one tokenizer pass per prefix
    kinds = _FIELD_KINDS
    for name, value in fields:
        kind, hname, prefix = kinds.get(name) or _field_kind(name)
        if kind == _TEXT:
            out.append(hname)
            value = value[:_MAX_VALUE]  # decode_header(value), inline for a plain ASCII value
            texts.setdefault(prefix, []).append(
                value if "=?" not in value and value.isascii() else decode_header(value))
        elif kind == _SKIP:
            continue
        elif kind == _RECEIVED:
            out.append(hname)
            n_received += 1
            texts.setdefault(prefix, []).append(value.split(";", 1)[0][:_MAX_VALUE])
        elif kind == _MESSAGE_ID:
            out.append(hname)
            i = value.find("@")
            dom = value[i + 1:].split(">", 1)[0].split()[:1] if i >= 0 else []
            out.append("mid:" + (dom[0].lower()[:MAX_TOKEN] if dom else "none"))
        else:
            out.append(hname)
    keys = [(prefix, " \n ".join(values)) for prefix, values in texts.items()]
    found = list(map(_GROUP_TOKENS.get, keys))
    if None in found:
        missing = [key for key, tokens in zip(keys, found) if tokens is None]
        made = dict(zip(missing, _group_tokens(missing)))
        if len(_GROUP_TOKENS) >= _MAX_GROUPS:
            _GROUP_TOKENS.clear()  # full: start again with the groups of the messages now read
        if _MAX_GROUPS:
            _GROUP_TOKENS.update((key, tokens) for key, tokens in made.items() if len(key[1]) <= _MAX_GROUP_TEXT)
        found = [made[key] if tokens is None else tokens for key, tokens in zip(keys, found)]
    for tokens in found:
        out += tokens
    out.append(f"received:{min(n_received, 12)}")


#: (prefix, a header group's text) -> its tokens: the same groups (``List-Id``,
#: ``Precedence``, ``Sender``, ...) recur from message to message of a batch. Groups of
#: up to :data:`_MAX_GROUP_TEXT` characters are kept; when :data:`_MAX_GROUPS` are held
#: the cache is emptied and fills again from the messages read next (so it follows a
#: long mailbox; longer texts are mostly unique: Received chains, long subjects)
_GROUP_TOKENS = {}
_MAX_GROUPS = 4096
_MAX_GROUP_TEXT = 400


def _group_tokens(groups):
    """The tokens of each ``(prefix, text)`` group: ``prefix`` + each word of ``text``
    (:func:`_words`), the groups tokenised in one pass."""
    words = _grouped_pieces([text for _, text in groups])
    if words is None:  # text beyond Latin-1 (or a \x01): one pass per group
        return [_words(text, prefix) for prefix, text in groups]
    out, start = [], 0
    for prefix, _ in groups:  # the pieces of each group end at a separator
        try:
            end = words.index(_SEP, start)
        except ValueError:
            end = len(words)
        out.append([prefix + w for w in words[start:end] if len(w) > 1])
        start = end + 1
    return out


class Tokens(list):
    """A list of distinct tokens (what :func:`message_tokens` returns): the scorer can
    skip removing repeats."""

    __slots__ = ()


def _spam_tokens(mail, out):
    if not mail.items or mail.items[0][0] != "header":
        out.append("received:0")  # no header: what one without Received fields gives
    for item in mail.items:
        kind = item[0]
        if kind == "text":
            _, text, ctype, hosts, images = item
            if hosts:
                out += ["url:" + h[:MAX_TOKEN] for h in hosts]
            if images:
                out.append(f"html:img{min(images, 5)}")
            out += _words(text, distinct=True)  # (message_tokens keeps each token once)
        elif kind == "header":
            _header_tokens(item[1], out)
        elif kind == "ctype":
            out.append("ctype:" + item[1][:MAX_TOKEN])
        elif kind == "charset":
            out.append("charset:" + item[1])
        elif kind == "cte":
            out.append("cte:" + item[1])
        elif kind == "attach":
            if item[1] is not None:
                out += _words(item[1], "attach:")
        else:
            out.append("mimedefect:" + item[1])
    out += ["mimedefect:toomany" + what for what in sorted(mail.cut)]


def message_tokens(data, max_bytes=DEFAULT_MAX_BYTES):
    """The distinct tokens of one raw message (bytes), in order of first appearance: what
    the spam models see. Never raises (see :func:`read_message`); a longer message than
    ``max_bytes`` gets ``textnb:truncated``."""
    mail = read_message(data, max_bytes)
    out = ["textnb:truncated"] if mail.truncated else []
    if mail.unparsable is not None:
        out.append("mimedefect:unparsable")
        out += _words(mail.unparsable, distinct=True)
    else:
        _spam_tokens(mail, out)
    tokens = dict.fromkeys(out)
    for single in _SINGLES.intersection(tokens):  # see _pieces
        del tokens[single]
    return Tokens(tokens)


# -- rendering 2: one text for the default tokenizer ------------------------------------------
#: fields whose words are noise (dates, ids, mailbox bookkeeping) or tokenised elsewhere
_OWN_FIELDS = frozenset({
    "subject", "from", "to", "cc", "received", "date", "message-id", "content-type",
    "content-transfer-encoding", "content-length", "lines", "status", "x-status", "x-keywords",
    "x-uid", "x-textnb-class", "x-textnb-score", "x-textnb-log-odds", "mime-version",
})


def _token(text):
    """``'text/HTML'`` -> ``'text_html'``: lowercase, non-word runs to one underscore."""
    return _P.NON_WORD.sub("_", str(text).lower()).strip("_")


def _text_words(text, prefix):
    return [prefix + w for w in _P.TEXT_WORD.findall(text.lower()) if not w.isdigit()]


def _text_header(fields, cut, all_headers, top):
    by_name = {}
    for name, value in fields:
        by_name.setdefault(name, []).append(value)
    received = by_name.get("received", [])
    tokens = [f"received_hops_{len(received)}"] if top else []
    for value in by_name.get("subject", [])[:1]:
        tokens += ["subject_" + w for w in _P.TEXT_WORD.findall(decode_header(value, cut).lower())]
    for field, prefix in (("from", "fromdomain_"), ("to", "todomain_"), ("cc", "todomain_")):
        decoded = [decode_header(v, cut) for v in by_name.get(field, [])]
        tokens += [prefix + d for v in decoded for d in map(_token, _P.DOMAIN.findall(v)) if d]
        if all_headers:
            tokens += [w for v in decoded for w in _text_words(v, field + "_")]
    if all_headers:
        for value in received:  # hosts and addresses, not the date after ';'
            tokens += _text_words(_text_of(value.split(";", 1)[0]), "rcvd_")
        for name, values in by_name.items():
            if name in _OWN_FIELDS:
                continue
            tokens.append("hname_" + _token(name))
            for value in values:
                tokens += _text_words(decode_header(value, cut), "hdr_")
    return tokens


def _skip_text(match):
    word = match.group()
    return f"skip_{_token(word[0]) or 'x'}_{len(word) // 10 * 10}"


def _skip_run(match):
    """A run of token characters whose token (:func:`_pieces`: its ends ``'.-`` stripped)
    is longer than :data:`MAX_TOKEN` becomes one ``skip_<c>_<len>`` word, as
    :func:`message_tokens` makes it one ``skip:`` token: both renderings keep the same
    words of a body."""
    run = match.group()
    word = run.strip(_ENDS)
    if len(word) <= MAX_TOKEN:
        return run
    return f" skip_{_token(word[0].lower()) or 'x'}_{len(word) // 10 * 10} "


def message_text(data, *, max_bytes=DEFAULT_MAX_BYTES, all_headers=True, unique=False):
    """One message (bytes) as one string for the default tokenizer. Never raises.

    Parameters
    ----------
    data : bytes
        The raw message (an mbox ``From`` line at the start is ignored).
    max_bytes : int or None
        Only this many bytes are read (``None``: all); a longer message gets the token
        ``textnb_truncated``.
    all_headers : bool
        Also tokenise the other header fields (as bogofilter does): words of From / To /
        Cc as ``from_<w>`` / ``to_<w>`` / ``cc_<w>``, the hosts and addresses of Received
        fields (before the date) as ``rcvd_<w>``, and for every other field (but dates,
        ids and mailbox bookkeeping) its name as ``hname_<field>`` and its words as
        ``hdr_<w>``. Numbers are left out of these. When False: ``received_hops_<n>``,
        ``subject_<w>``, ``fromdomain_<d>`` and ``todomain_<d>`` only.
    unique : bool
        List every token of the message once, in order of first appearance: counts become
        presence (the "multinomial NB with Boolean attributes" of Metsis,
        Androutsopoulos & Paliouras, 2006).

    Returns
    -------
    str
        Header and structure tokens (``ctype_``, ``charset_``, ``cte_``, ``attach_``,
        ``attachtype_``, ``urlhost_``, ``html_img``, ``mimedefect_``) on the first line,
        then the text of the message's text parts: the same reading as
        :func:`message_tokens` (:func:`read_message`).
    """
    mail = read_message(data, max_bytes)
    tokens = ["textnb_truncated"] if mail.truncated else []
    texts = []
    if mail.unparsable is not None:
        tokens.append("mimedefect_unparsable")
        texts.append(mail.unparsable)
    else:
        top_header = True
        for item in mail.items:
            kind = item[0]
            if kind == "text":
                _, text, ctype, hosts, images = item
                tokens += ["urlhost_" + _token(h) for h in hosts]
                tokens += ["html_img"] * images
                texts.append(text)
            elif kind == "header":
                tokens += _text_header(item[1], mail.cut, all_headers, top_header)
                top_header = False
            elif kind == "ctype":
                tokens.append("ctype_" + _token(item[1]))
            elif kind == "charset":
                tokens.append("charset_" + _token(item[1]))
            elif kind == "cte":
                tokens.append("cte_" + _token(item[1]))
            elif kind == "attach":
                _, name, ctype, top = item
                if name is not None:
                    tokens.append("attach_" + (_token(name) or "unnamed"))
                if name is not None or not top:  # a message that is one non-text part: its ctype_ says it
                    tokens.append("attachtype_" + _token(ctype))
            else:
                tokens.append("mimedefect_" + item[1])
        if top_header:
            tokens.insert(0, "received_hops_0")
        tokens += ["mimedefect_toomany" + what for what in sorted(mail.cut)]
    head = _P.LONG_WORD.sub(_skip_text, " ".join(dict.fromkeys(tokens)))
    result = head + "\n" + _P.LONG_RUN.sub(_skip_run, "\n".join(texts))
    if unique:
        result = " ".join(dict.fromkeys(_P.TEXT_WORD.findall(result.lower())))
    return result

