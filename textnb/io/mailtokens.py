"""A fast header- and MIME-aware tokenizer for raw mail: :func:`message_tokens`.

The tokens of the spam scorer (:class:`textnb.apps.spamscore.SpamScorer`): every header
field gives tokens prefixed by its name (``subject:cheap``, ``from:example.com``,
``rcvd:mx1.example.com``, ``list-id:python.org``, and ``hname:<field>`` for the field's
presence), RFC 2047 words decoded; each MIME part gives ``ctype:``, ``charset:``,
``cte:`` and, for an attachment, ``attach:`` tokens; text parts are decoded
(quoted-printable, base64, declared charset with UTF-8 / Latin-1 fall-backs), HTML is
stripped to its text with ``url:<host>`` tokens for its links. Every token is listed once
(word presence), in order of first appearance.

It has its own small MIME reader, several times faster than the :mod:`email` parser, and
imports only ``binascii`` (``re`` when a message has a header or text beyond Latin-1,
``email.header`` and ``html`` on first need), so a mail filter that uses it starts fast:
the words of a text without a header (an SMS) are found with ``bytes.translate``,
``str.split`` and ``str.strip`` alone.
"""

import binascii

from textnb.io.mailread import DEFAULT_MAX_BYTES, _lenient_b64decode, decode_bytes

__all__ = ["Tokens", "message_tokens", "MAX_TOKEN"]

#: The regular expressions of the tokenizer, compiled on first use (:data:`_P`; as module
#: attributes ``_WORD``, ``_URL``, ... through :func:`__getattr__`): ``import re`` and the
#: compiling cost a short mail filter run more than classifying a text message.
_SOURCES = {
    "WORD": r"(?u)[\w$][\w$'.\-]*[\w$]",  # a token (the definition; _pieces finds the same faster)
    "SCRIPT": r"(?is)<(script|style)\b.*?</\1\s*>",
    "TAG": r"(?s)<[^>]*>",
    "URL": r"://([^/\s\"'<>:?#=]+)",  # on lowercased text: link hosts
    "MID_DOMAIN": r"@([^>\s]+)",
    "LEAD": rb" ['.\-]+",  # the ends of runs that are not part of a token (the definition of _strip_ends)
    "TRAIL": rb"['.\-]+ ",
    "FIELDS": r"(?m)^([!-9;-~]+):[ \t]*(.*?)\r?$",  # header fields (the definition _split_message follows)
    "FIRST_FIELD": r"[!-9;-~]+:[ \t]",  # (the definition of _starts_with_field)
    "FOLD": r"\r?\n[ \t]+",
    "BLANK_LINE": r"\r?\n[ \t]*\r?\n",
    "HEAD_END": r"\n[ \t]*\r?\n",  # BLANK_LINE without its leading \r? (a literal prefix: fast search)
    "PARAM": r"""(?i)([a-z][\w*-]*)\s*=\s*(?:"([^"]*)"|([^\s;]+))""",
}


class _Patterns:
    """``_P.URL`` & co.: each pattern of :data:`_SOURCES` compiled when first used."""

    def __getattr__(self, name):
        import re

        value = re.compile(_SOURCES[name])
        setattr(self, name, value)
        return value


_P = _Patterns()


def __getattr__(name):
    """``_WORD``, ``_URL``, ...: the compiled patterns under their module-level names."""
    if name[:1] == "_" and name[1:] in _SOURCES:
        return getattr(_P, name[1:])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# -- tokenizer ---------------------------------------------------------------------------
MAX_TOKEN = 40
#: fields whose words are noise: dates, ids, bookkeeping of mail clients, our own headers
_SKIP_FIELDS = frozenset({
    "date", "content-length", "lines", "status", "x-status", "x-keywords", "x-uid",
    "x-textnb-class", "x-textnb-score", "x-textnb-log-odds", "x-mozilla-status",
    "x-mozilla-status2", "x-mozilla-keys", "delivery-date", "x-bogosity", "x-spam-status",
    "x-spam-level", "x-spam-flag", "x-spam-checker-version", "x-spam-score", "x-spam-report",
})
_ADDRESS_FIELDS = {"from": "from:", "to": "to:", "cc": "to:", "reply-to": "reply-to:",
                   "sender": "from:", "return-path": "return-path:", "delivered-to": "to:"}
_MAX_VALUE = 4000


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
    return [w for w in map(str.strip, words, [_ENDS] * len(words)) if w]


def _pieces(text):
    r"""The matches of :data:`_WORD` in ``text``, plus 1-character ones, in order.

    A match of :data:`_WORD` is a maximal run of ``[\w$'.-]`` characters with its leading
    and trailing ``'.-`` removed, when at least 2 characters are left. For Latin-1 text
    the runs are found without the backtracking pattern: one ``bytes.translate`` turns
    every other character into a space, ``str.split`` returns the runs and
    :func:`_strip_ends` removes the ``'.-`` at their ends, several times faster; the
    1-character runs this leaves are removed by the caller (:func:`_words` with a prefix,
    or :func:`message_tokens` once repeats are gone). Other text goes through the pattern.
    """
    try:
        raw = text.encode("latin-1")
    except UnicodeEncodeError:  # the same with a str.translate table; no 1-character pieces
        words = text.translate(_TOKEN_MAP).split()
        if "." in text or "-" in text or "'" in text:
            words = _strip_ends(words)
        return [w for w in words if len(w) > 1]
    raw = raw.translate(_TOKEN_TABLE)
    words = raw.decode("latin-1").split()
    if b"." in raw or b"-" in raw or b"'" in raw:
        return _strip_ends(words)
    return words


def _words(text, prefix="", lowered=False):
    """Lowercase word tokens of ``text`` (longer than 40: ``skip:<c><len>``), repeats allowed;
    without a prefix the list may also hold 1-character pieces (see :func:`_pieces`)."""
    words = _pieces(text if lowered else text.lower())
    if max(map(len, words), default=0) > MAX_TOKEN:
        words = [w if len(w) <= MAX_TOKEN else f"skip:{w[0]}{len(w) // 10 * 10}" for w in words]
    if prefix:
        return [prefix + w for w in words if len(w) > 1]
    return words


_MAX_PARTS = 200
_MAX_DEPTH = 8


def _starts_with_field(text):
    """``_FIRST_FIELD.match(text)`` as a bool: a name of ``[!-9;-~]`` characters (printable
    ASCII but space and colon), a colon, a space or TAB, with string methods."""
    i = text.find(":")
    if i <= 0 or text[i + 1:i + 2] not in (" ", "\t"):
        return False
    name = text[:i]
    return name.isascii() and name.isprintable() and " " not in name


#: Texts up to this length are split with string methods only (see :func:`_head_end`).
_SHORT = 1024


def _head_end(text):
    """``(start, end)`` of the first match of :data:`_HEAD_END` (a newline, spaces or TABs,
    at most one CR, a newline) in ``text``, or None, with ``str.find``: the first
    ``\\n\\n`` or ``\\n\\r\\n``, unless a line of blanks comes before it."""
    best = None
    for blank in ("\n\n", "\n\r\n"):
        i = text.find(blank)
        if i >= 0 and (best is None or i < best[0]):
            best = (i, i + len(blank))
    limit = best[0] if best else len(text)
    n = len(text)
    for lead in ("\n ", "\n\t"):  # a line of spaces / TABs (or a continuation line: checked)
        pos = 0
        while True:
            i = text.find(lead, pos, limit)
            if i < 0:
                break
            j = i + 1
            while j < n and text[j] in " \t":
                j += 1
            if text[j:j + 1] == "\r":
                j += 1
            if text[j:j + 1] == "\n":
                best, limit = (i, j + 1), i
                break
            pos = i + 1
    return best


def _split_message(text):
    """``(list of (name, value), body)`` of a message held as a Latin-1 string (one char per byte).

    The header ends at the first :data:`_BLANK_LINE`; its lines are unfolded as
    ``_FOLD.sub(" ", head)`` would and read as ``_FIELDS.findall`` would (a field name of
    ``[!-9;-~]`` characters, a colon, the value without its leading blanks and one
    trailing CR), line by line with string methods instead of the two patterns.
    """
    if not _starts_with_field(text):
        return [], text
    if len(text) <= _SHORT:  # a text message: no pattern (nor ``import re``) for it
        m = _head_end(text)
    else:  # a mail header: the pattern is faster
        m = _P.HEAD_END.search(text)
        m = m and m.span()
    if m:
        start = m[0] - 1 if m[0] and text[m[0] - 1] == "\r" else m[0]
        head, body = text[:start], text[m[1]:]
    else:
        head, body = text, ""
    lines = []
    for line in head.split("\n"):
        if line[:1] in (" ", "\t") and line and lines:  # a continuation line: \r?\n[ \t]+ -> " "
            prev = lines[-1]
            lines[-1] = (prev[:-1] if prev[-1:] == "\r" else prev) + " " + line.lstrip(" \t")
        else:
            lines.append(line)
    fields = []
    for line in lines:
        name, colon, value = line.partition(":")
        if colon and name and name.isascii() and name.isprintable() and " " not in name:
            value = value.lstrip(" \t")
            fields.append((name.lower(), value[:-1] if value[-1:] == "\r" else value))
    return fields, body


def _params(value):
    kind, _, rest = value.partition(";")
    if not rest:
        return kind.strip().lower(), {}
    return kind.strip().lower(), {k.lower(): (q or u) for k, q, u in _P.PARAM.findall(rest)}


def _text_of(latin1):
    """A header value or payload held as Latin-1 text, decoded as UTF-8 when it is."""
    if latin1.isascii():
        return latin1
    return decode_bytes(latin1.encode("latin-1"))


def _decode(value):
    """A header value (raw bytes as Latin-1 text) as text, RFC 2047 words decoded."""
    value = value[:_MAX_VALUE]
    if "=?" in value:
        try:
            import email.header  # only for RFC 2047 words: the package costs a fast start

            parts = email.header.decode_header(value)
            return "".join(decode_bytes(c, cs) if isinstance(c, bytes) else _text_of(c) for c, cs in parts)
        except Exception:  # malformed encoded words: keep the raw value
            pass
    return _text_of(value)


def _header_tokens(fields, out):
    n_received = 0
    texts = {}  # prefix -> values: one tokenizer pass per prefix
    for name, value in fields:
        if name in _SKIP_FIELDS:
            continue
        out.append("hname:" + name)
        if name == "received":
            n_received += 1
            texts.setdefault("rcvd:", []).append(value.split(";", 1)[0][:_MAX_VALUE])
        elif name == "message-id":
            m = _P.MID_DOMAIN.search(value)
            out.append("mid:" + (m.group(1).lower() if m else "none"))
        elif name.startswith("content-") or name == "mime-version":
            continue  # MIME structure: tokenised per part
        else:
            prefix = "subject:" if name == "subject" else _ADDRESS_FIELDS.get(name) or name + ":"
            texts.setdefault(prefix, []).append(_decode(value))
    groups = [" \n ".join(values) for values in texts.values()]
    words = _grouped_pieces(groups)
    if words is None:  # text beyond Latin-1 (or a \x01): one pass per prefix
        for prefix, text in zip(texts, groups):
            out += _words(text, prefix)
    else:
        start = 0
        for prefix in texts:  # the pieces of each group end at a separator
            try:
                end = words.index(_SEP, start)
            except ValueError:
                end = len(words)
            out += [prefix + w for w in words[start:end] if len(w) > 1]
            start = end + 1
    out.append(f"received:{min(n_received, 12)}")


_SEP = "\x01"
_SEP_TABLE = _TOKEN_TABLE[:1] + _SEP.encode() + _TOKEN_TABLE[2:]


def _grouped_pieces(groups):
    r"""``_words(group)`` of every group (lowercased), in one pass, the groups' pieces
    separated by :data:`_SEP` entries; None when a group holds ``\x01`` or lowercases to
    text beyond Latin-1 (then each group is tokenised on its own, with the same result).

    One translate, two substitutions and one split for all header fields of a message
    instead of one series per field name: the pieces of each group are those
    :func:`_pieces` gives for it, since the separator (a non-token character kept as its
    own piece by ``_SEP_TABLE``, between spaces) ends every run and is never a run of
    ``[\w$'.-]``.
    """
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
    if max(map(len, words), default=0) > MAX_TOKEN:
        words = [w if len(w) <= MAX_TOKEN else f"skip:{w[0]}{len(w) // 10 * 10}" for w in words]
    return words


def _payload(body, cte):
    """Bytes of a part's body (Latin-1 text) after its transfer encoding."""
    raw = body.encode("latin-1")
    if cte == "base64":
        try:
            return binascii.a2b_base64(raw)
        except (binascii.Error, ValueError):
            return _lenient_b64decode(raw)[0]
    if cte == "quoted-printable":
        return binascii.a2b_qp(raw)
    return raw


_HOST_END = frozenset("/\"'<>:?#=")


def _link_hosts(text):
    """``_URL.findall(text)`` with string methods: after each ``://``, the characters up to
    the first whitespace or one of ``/"'<>:?#=``, when there is at least one."""
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


def _split_parts(body, boundary):
    r"""``re.split(r"(?m)^--" + re.escape(boundary) + r"(--)?[ \t]*\r?$", body)`` with string
    methods: no pattern compiled per boundary (most messages have their own).

    A delimiter is a line (a start of ``body`` or after ``\n``, up to the next ``\n`` or
    the end) that is ``--`` + ``boundary``, then ``--`` for the closing one, then spaces
    or TABs and at most one CR. The result alternates the text between delimiters and
    ``"--"`` / None for each delimiter (a test compares it with the pattern's split).
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


def _part_tokens(fields, body, out, depth, budget):
    """Tokens of one MIME entity (its content headers and body), recursively."""
    header = dict(fields)
    ctype, params = _params(header.get("content-type", "text/plain"))
    if "/" not in ctype:
        ctype = "text/plain"
    out.append("ctype:" + ctype)
    if ctype.startswith("multipart/"):
        boundary = params.get("boundary")
        if not boundary or depth >= _MAX_DEPTH:
            out.append("mimedefect:noboundary")
            _leaf_tokens("text/plain", {}, header, body, out)
            return
        pieces = _split_parts(body, boundary)
        # split() gives: preamble, then (closing marker, part) pairs
        for k in range(2, len(pieces), 2):
            if pieces[k - 1] is not None and pieces[k - 1] == "--":
                break  # the epilogue after the closing delimiter
            if budget[0] <= 0:
                return
            budget[0] -= 1
            part = pieces[k]
            part = part[1:] if part.startswith("\n") else (part[2:] if part.startswith("\r\n") else part)
            sub_fields, sub_body = _split_message(part) if _starts_with_field(part) else ([], part)
            _part_tokens(sub_fields, sub_body, out, depth + 1, budget)
        if len(pieces) == 1:
            out.append("mimedefect:nodelimiter")
            _leaf_tokens("text/plain", {}, header, body, out)
        return
    if ctype == "message/rfc822" and depth < _MAX_DEPTH:
        sub_fields, sub_body = _split_message(body.lstrip("\r\n"))
        _header_tokens(sub_fields, out)
        _part_tokens(sub_fields, sub_body, out, depth + 1, budget)
        return
    _leaf_tokens(ctype, params, header, body, out)


def _leaf_tokens(ctype, params, header, body, out):
    cte = header.get("content-transfer-encoding", "").strip().lower()[:40]
    if cte:
        out.append("cte:" + cte)
    filename = _params(header.get("content-disposition", ""))[1].get("filename") or params.get("name")
    if filename is not None:
        out += _words(_decode(filename), "attach:")
        return
    if not ctype.startswith("text/"):
        return
    charset = params.get("charset")
    if charset:
        out.append("charset:" + charset.lower()[:40])
    text = decode_bytes(_payload(body, cte), charset).lower()
    if "://" in text:
        out += ["url:" + h for h in _link_hosts(text)]
    if ctype == "text/html":
        n_img = text.count("<img")
        if n_img:
            out.append(f"html:img{min(n_img, 5)}")
        import html  # only for HTML parts

        text = html.unescape(_P.TAG.sub(" ", _P.SCRIPT.sub(" ", text)))
    out += _words(text, lowered=True)


#: the tokens of a message without a header before its words: no Received line, a
#: text/plain body (what _header_tokens and _part_tokens give for it)
_NO_HEADER = ("received:0", "ctype:text/plain")


class Tokens(list):
    """A list of distinct tokens (what :func:`message_tokens` returns): the scorer can
    skip removing repeats."""

    __slots__ = ()


def message_tokens(data, max_bytes=DEFAULT_MAX_BYTES):
    """The distinct tokens of one raw message (bytes), in order of first appearance.

    The message is split by a small MIME reader of its own (header fields unfolded,
    multipart bodies split on their boundaries, at most 200 parts and 8 levels,
    base64 and quoted-printable decoded by :mod:`binascii`): several times faster than
    the :mod:`email` parser, which matters for a mail filter. Never raises: a message
    it cannot read is tokenised as raw text (with ``mimedefect:unparsable``). Only the
    first ``max_bytes`` bytes are read (a longer message gets ``textnb:truncated``).
    """
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    out = []
    if max_bytes is not None and len(data) > max_bytes:
        data = data[:max_bytes]
        out.append("textnb:truncated")
    if data.startswith(b"From "):
        data = data.split(b"\n", 1)[1] if b"\n" in data else b""
    text = data.decode("latin-1")
    try:
        if _starts_with_field(text):
            fields, body = _split_message(text)
            _header_tokens(fields, out)
            _part_tokens(fields, body, out, 0, [_MAX_PARTS])
        else:  # no header (a text message): what the two calls above give for it, directly
            out += _NO_HEADER
            text = decode_bytes(data).lower()
            if "://" in text:
                out += ["url:" + h for h in _link_hosts(text)]
            out += _words(text, lowered=True)
    except Exception:  # a last resort: the bytes as text
        out.append("mimedefect:unparsable")
        out += _words(decode_bytes(data))
    tokens = dict.fromkeys(out)
    for single in _SINGLES.intersection(tokens):  # see _pieces
        del tokens[single]
    return Tokens(tokens)
