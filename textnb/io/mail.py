"""Mail for the classifier: RFC 5322 messages to one text string, mailboxes as streams.

:func:`message_text` turns the bytes of one message into a single string that the
default tokenizer of :class:`textnb.text.vectorizer.Vectorizer` (``(?u)\\b\\w\\w+\\b``, lowercase)
splits into the right terms:

* selected header fields as prefixed tokens (word characters and underscores survive
  the default pattern): ``subject_cheap`` for each word of the Subject,
  ``fromdomain_example_com`` / ``todomain_...`` for the domains of From and To/Cc,
  ``received_hops_3`` for the number of Received fields, ``ctype_text_html`` for the
  content type of the message and of each part, ``charset_gb2312``, ``cte_base64``,
  ``mimedefect_...`` for each MIME defect the parser found;
* the text of every text part: MIME multipart walked, quoted-printable and base64
  decoded (bad base64: what can be decoded is kept), the declared charset honoured
  (an unknown or lying charset falls back to UTF-8, then Latin-1), HTML reduced to its
  text (plus ``urlhost_...`` tokens for link hosts and ``html_img`` per image);
* attachments named but not tokenised: ``attach_invoice_pdf`` for the file name
  ``invoice.pdf`` and ``attachtype_application_pdf`` for its content type.

Parsing uses the standard :mod:`email` package with a bounded ``compat32`` policy (header
values are kept as raw strings and decoded here: RFC 2047 words and 8-bit bytes, UTF-8
first, then Latin-1), and falls back to the raw bytes when the parser raises, so no
input makes it fail. (``policy.default`` gives the same text for 1,511 of 1,512
SpamAssassin messages but costs several times as much, and far more on hostile input:
it builds a header object for every field it is asked for; ``scripts/bench_mail_bounds.py``.)

Bounds (hostile mail)
---------------------
The time to turn a message into text is at most a small constant times its size: no
step is quadratic in the input, and these caps hold whatever the message says:

* :data:`MAX_PARTS` (1,000) MIME parts: the message is cut before its 1,001st line
  that starts with ``--`` (a boundary needs one), before it is parsed;
* :data:`MAX_MULTIPART` (8) ``multipart/*`` containers, which bounds the nesting
  depth (the parser's work per line grows with it): cut before the 9th
  ``Content-Type: multipart/...`` field;
* :data:`MAX_HEADERS` (512) header fields per part; later ones are ignored;
* :data:`MAX_HEADER_BYTES` (16 KiB) per header field: a longer value is cut;
* :data:`MAX_PARAMS` (100) parameters in a ``Content-Type`` / ``Content-Disposition``
  field (the standard parameter parser is quadratic in their number): the rest dropped;
* :data:`MAX_ENCODED_WORDS` (100) RFC 2047 encoded words decoded per header field (the
  standard decoder is quadratic in their number): later ones stay as raw text;
* :data:`MAX_HTML_TAGS` (100,000) tags per HTML part; the rest of the part is dropped.
  HTML is reduced to text by a single forward scan (:func:`html_to_text`), linear in
  its length (the standard ``html.parser`` takes minutes on 75 KB of ``<a ``).

A cap that cuts something adds the token ``mimedefect_toomany<what>`` (``parts``,
``multipart``, ``headers``, ``headerbytes``, ``params``, ``encodedwords``, ``htmltags``),
so the classifier can learn that hostile shape too.

Size cap: only the first ``max_bytes`` bytes of a message are read
(:data:`DEFAULT_MAX_BYTES`, 10 MiB); the rest is skipped without being held in memory
and the text gets the token ``textnb_truncated``. A 50 MB attachment therefore costs
at most 10 MiB of memory and is never decoded.

:func:`iter_messages` reads a file, a folder of files (recursively), an mbox file or a
Maildir folder as a stream of ``(source, message_bytes)`` pairs. Mailboxes are opened
read-only and never modified. Only regular files (or links to them) are read: a FIFO,
socket or device met in a folder, or a link to one (``/dev/zero``), is skipped without
being opened for reading, so it cannot block or never end; given by name, it is an
error.
"""

import email
import email.header
import email.message
import email.policy
import email.utils
import html
import re

from textnb.io.mailread import (  # noqa: F401 (re-exported: the reading half of this module)
    _B64_CLEAN,
    _B64_JUNK,
    _CHUNK,
    _FROM_LINE,
    _HEADER_LINE,
    _SMALL_MBOX,
    DEFAULT_MAX_BYTES,
    _codec,
    _iter_file,
    _iter_maildir,
    _iter_mbox,
    _iter_one,
    _lenient_b64decode,
    _open_regular,
    _read_file,
    _reported,
    _split_small_mbox,
    _strip_last_newline,
    decode_bytes,
    is_maildir,
    is_mbox,
    is_special,
    iter_messages,
    looks_like_mail,
    read_capped,
)

__all__ = [
    "DEFAULT_MAX_BYTES",
    "MAX_PARTS",
    "MAX_MULTIPART",
    "MAX_HEADERS",
    "MAX_HEADER_BYTES",
    "MAX_PARAMS",
    "MAX_ENCODED_WORDS",
    "MAX_HTML_TAGS",
    "is_special",
    "message_text",
    "decode_bytes",
    "html_to_text",
    "iter_messages",
    "read_capped",
    "is_mbox",
    "is_maildir",
]

#: MIME parts parsed per message (lines starting with ``--`` before the cut).
MAX_PARTS = 1000
#: ``multipart/*`` containers per message (bounds the nesting depth).
MAX_MULTIPART = 8
#: Header fields kept per part.
MAX_HEADERS = 512
#: Characters kept of one header field's value.
MAX_HEADER_BYTES = 16 * 1024
#: Parameters kept in one Content-Type / Content-Disposition field.
MAX_PARAMS = 100
#: RFC 2047 encoded words decoded in one header field.
MAX_ENCODED_WORDS = 100
#: Tags read per HTML part.
MAX_HTML_TAGS = 100_000

_NON_WORD = re.compile(r"[\W_]+")
_WORD = re.compile(r"(?u)\b\w\w+\b")
#: Longer runs of word characters (base64 debris, encoded URLs) become one short
#: ``skip_<first char>_<length rounded down to 10>`` token, as in SpamBayes.
MAX_WORD = 40
_LONG_WORD = re.compile(r"(?u)\w{%d,}" % (MAX_WORD + 1))
_URL_HOST = re.compile(r"(?i)^\s*(?:https?|ftp)://([^/\s:?#]+)")


# -- decoding --------------------------------------------------------------------------
def _fix_8bit(value):
    """Header strings keep raw 8-bit bytes as surrogate escapes: decode them properly."""
    value = str(value)
    if any("\udc80" <= ch <= "\udcff" for ch in value):
        return decode_bytes(value.encode("ascii", "surrogateescape"))
    return value


def _nth(text, needle, n):
    """Index of the ``n``-th (from 1) occurrence of ``needle`` in ``text``, or -1."""
    i = -1
    for _ in range(n):
        i = text.find(needle, i + 1)
        if i < 0:
            return -1
    return i


def _decode_header(value, defects=None):
    """One raw header value to text: RFC 2047 encoded words and 8-bit bytes decoded.

    At most :data:`MAX_ENCODED_WORDS` encoded words are decoded; the rest of the value
    is kept as it is (``defects``, a set, gets ``'encodedwords'``).
    """
    text = _fix_8bit(value)
    rest = ""
    cut = _nth(text, "=?", MAX_ENCODED_WORDS + 1)
    if cut >= 0:
        text, rest = text[:cut], text[cut:]
        if defects is not None:
            defects.add("encodedwords")
    try:
        parts = email.header.decode_header(text)
    except Exception:  # malformed encoded words: keep the raw text
        return text + rest
    out = []
    for chunk, charset in parts:
        if isinstance(chunk, bytes):
            chunk = decode_bytes(chunk, charset)
        out.append(chunk)
    return ("".join(out) if len(parts) > 1 or parts[0][1] else text) + rest


def _token(text):
    """``'text/HTML'`` -> ``'text_html'``: lowercase, non-word runs to one underscore."""
    return _NON_WORD.sub("_", str(text).lower()).strip("_")


# -- HTML ------------------------------------------------------------------------------
_SKIP_TAGS = frozenset({"head", "title"})
_RAW_TAGS = frozenset({"script", "style"})  # their content is not HTML: skipped whole
_BLOCK_TAGS = frozenset({"p", "br", "div", "tr", "td", "li", "h1", "h2", "h3", "table"})
_TAG_NAME = re.compile(r"[a-zA-Z][^\s/>]*")
# name, then an optional value: "..." / '...' (the closing quote may be missing) or bare;
# every branch consumes what it matched and cannot fail after a long scan: linear
_ATTR = re.compile(r"""([^\s/>"'=][^\s/>=]*)(?:\s*=\s*(?:"([^"]*)"?|'([^']*)'?|([^\s>]*)))?""")


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


def _attr_tokens(tag, attrs, text, tokens):
    for m in _ATTR.finditer(attrs):
        name = m.group(1).lower()
        value = m.group(2) if m.group(2) is not None else m.group(3) if m.group(3) is not None else m.group(4)
        if not value:
            continue
        value = html.unescape(value)
        if name in ("href", "src", "action"):
            url = _URL_HOST.match(value)
            if url:
                tokens.append("urlhost_" + _token(url.group(1)))
        elif name in ("alt", "title"):
            text.append(" " + value + " ")


_OPEN = re.compile(r"<[a-zA-Z!?/]")
_VALUE_GAP = re.compile(r"[=\s]*")
_BARE_VALUE = re.compile(r"[^>\s]*")


def _tag_end(src, i, find):
    """Index of the ``>`` that ends the tag whose attributes start at ``i``, or -1.

    A quote right after ``=`` opens a value that may hold ``>``; an unclosed one ends at
    the next ``>`` (as ``html.parser``'s tolerant rule does). Every search goes through
    ``find``, so the scan is linear over a whole document.
    """
    while True:
        gt, eq = find(">", i), find("=", i)
        if gt < 0 or eq < 0 or gt < eq:
            return gt
        j = _VALUE_GAP.match(src, eq + 1).end()
        q = src[j:j + 1]
        if q not in ("'", '"'):
            i = _BARE_VALUE.match(src, j).end()  # a bare value holds quotes and '=' as is
            continue
        close = find(q, j + 1)
        if close < 0:
            return find(">", j + 1)
        i = close + 1


def html_to_text(html_text):
    """Text of an HTML document (scripts and styles dropped) and its extra tokens.

    Returns ``(text, tokens)``: ``tokens`` holds ``urlhost_<host>`` for each link or
    image host and ``html_img`` for each image. Never raises on malformed HTML.

    One forward scan, linear in the length of ``html_text`` whatever it holds, that
    follows ``html.parser``'s tolerant rules: a start tag ends at the first ``>`` not
    inside a quoted attribute value; the content of ``script`` and ``style`` is
    skipped up to its end tag, that of ``head`` and ``title`` is not text; comments,
    ``<!...>``, ``<?...>`` and ``</`` + junk are dropped up to their end; character
    references are decoded; a ``<`` that starts no tag is text, and a construct never
    closed is text up to the next ``>`` (or ``<``). At most :data:`MAX_HTML_TAGS`
    tags are read (the rest is dropped, with the token ``mimedefect_toomanyhtmltags``).
    On SpamAssassin's 1,229 HTML messages the text equals ``html.parser``'s for 1,223
    (the others differ in white space and one unclosed ``<!--``; ``scripts/bench_mail_bounds.py``).
    """
    src = html_text
    lower = src.lower()
    find, find_lower = _Finder(src), _Finder(lower)
    text, tokens, skip = [], [], 0
    pos, n, tags = 0, len(src), 0

    def data(chunk):
        if chunk and not skip:
            text.append(html.unescape(chunk) if "&" in chunk else chunk)

    def unclosed(lt):
        """A construct at ``lt`` never closed: text up to the next '>' (or '<')."""
        gt = find(">", lt + 1)
        end = gt + 1 if gt >= 0 else (find("<", lt + 1) if find("<", lt + 1) >= 0 else lt + 1)
        data(src[lt:end])
        return end

    while pos < n:
        m = _OPEN.search(src, pos)  # a '<' that starts no construct is text: skipped over here
        if m is None:
            break
        lt = m.start()
        data(src[pos:lt])
        if find(">", lt + 1) < 0:  # nothing after can close: the rest is text (one step, not one per '<')
            data(src[lt:])
            pos = n
            break
        if tags >= MAX_HTML_TAGS:
            tokens.append("mimedefect_toomanyhtmltags")
            pos = n
            break
        nxt = src[lt + 1:lt + 2]
        if src.startswith("<!--", lt):
            end = find("-->", lt + 4)
            pos = unclosed(lt) if end < 0 else end + 3
            tags += 1
            continue
        if nxt in ("!", "?", "/"):
            m = _TAG_NAME.match(src, lt + 2) if nxt == "/" else None
            gt = _tag_end(src, m.end(), find) if m else find(">", lt + 1)
            if gt < 0:
                pos = unclosed(lt)
                continue
            tags += 1
            pos = gt + 1
            if m:  # an end tag; '</' + junk, '<!...>', '<?...>' are dropped
                tag = m.group().lower()
                if tag in _SKIP_TAGS and skip:
                    skip -= 1
            continue
        m = _TAG_NAME.match(src, lt + 1)
        gt = _tag_end(src, m.end(), find)
        if gt < 0:
            pos = unclosed(lt)
            continue
        tags += 1
        pos = gt + 1
        tag = m.group().lower()
        _attr_tokens(tag, src[m.end():gt], text, tokens)
        if tag == "img":
            tokens.append("html_img")
        if tag in _RAW_TAGS:
            end = find_lower("</" + tag, pos)
            close = find(">", end) if end >= 0 else -1
            pos = n if close < 0 else close + 1
        elif tag in _SKIP_TAGS:
            skip += 1
        elif tag in _BLOCK_TAGS:
            text.append("\n")
    if pos < n:
        data(src[pos:])
    return "".join(text), tokens


# -- one message -----------------------------------------------------------------------
_PARAM_FIELDS = frozenset({"content-type", "content-disposition"})


class _BoundedMessage(email.message.Message):
    """A ``compat32`` message that keeps at most :data:`MAX_HEADERS` fields, each cut to
    :data:`MAX_HEADER_BYTES` characters and :data:`MAX_PARAMS` parameters; what was cut
    is named in ``textnb_cut``."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.textnb_cut = set()

    def set_raw(self, name, value):
        if len(self._headers) >= MAX_HEADERS:
            self.textnb_cut.add("headers")
            return
        if isinstance(value, str):
            if len(value) > MAX_HEADER_BYTES:
                value = value[:MAX_HEADER_BYTES]
                self.textnb_cut.add("headerbytes")
            if str(name).lower() in _PARAM_FIELDS:
                cut = _nth(value, ";", MAX_PARAMS + 1)
                if cut >= 0:
                    value = value[:cut]
                    self.textnb_cut.add("params")
        self._headers.append((name, value))


_POLICY = email.policy.compat32.clone(message_factory=_BoundedMessage)
_DASH_LINE = re.compile(rb"(?m)^--")
_MULTIPART_FIELD = re.compile(rb"(?im)^content-type:[ \t]*(?:\r?\n[ \t]+)?\"?multipart/")


def _nth_match(pattern, data, n):
    """Start of the ``n``-th (from 1) match of ``pattern`` in ``data``, or -1."""
    for k, m in enumerate(pattern.finditer(data), start=1):
        if k == n:
            return m.start()
    return -1


def _precut(data):
    """Cut the raw message before its (MAX_PARTS + 1)-th ``--`` line and before its
    (MAX_MULTIPART + 1)-th multipart Content-Type field; returns (data, what was cut)."""
    cut = set()
    for pattern, limit, what in ((_DASH_LINE, MAX_PARTS, "parts"), (_MULTIPART_FIELD, MAX_MULTIPART, "multipart")):
        i = _nth_match(pattern, data, limit + 1)
        if i >= 0:
            data = data[:i]
            cut.add(what)
    return data, cut

def _domains(values):
    out = []
    try:
        pairs = email.utils.getaddresses(values)
    except Exception:
        return out
    for _name, addr in pairs:
        if "@" in addr:
            domain = _token(addr.rsplit("@", 1)[1])
            if domain:
                out.append(domain)
    return out


# fields whose words are noise (dates, ids, mailbox bookkeeping) or tokenised elsewhere
_OWN_FIELDS = frozenset({
    "subject", "from", "to", "cc", "received", "date", "message-id", "content-type",
    "content-transfer-encoding", "content-length", "lines", "status", "x-status", "x-keywords",
    "x-uid", "x-textnb-class", "x-textnb-score", "x-textnb-log-odds", "mime-version",
})
_DIGITS = re.compile(r"\d+")


def _words(text, prefix):
    return [prefix + w for w in _WORD.findall(text.lower()) if not _DIGITS.fullmatch(w)]


def _header_tokens(msg, all_headers=True, cut=None):
    headers = {}
    try:
        items = msg.raw_items()
    except Exception:
        items = []
    for name, value in items:
        headers.setdefault(str(name).lower(), []).append(value)
    received = headers.get("received", [])
    tokens = [f"received_hops_{len(received)}"]
    for value in headers.get("subject", [])[:1]:
        tokens += ["subject_" + w for w in _WORD.findall(_decode_header(value, cut).lower())]
    for field, prefix in (("from", "fromdomain_"), ("to", "todomain_"), ("cc", "todomain_")):
        decoded = [_decode_header(v, cut) for v in headers.get(field, [])]
        tokens += [prefix + d for d in _domains(decoded)]
        if all_headers:
            tokens += [w for v in decoded for w in _words(v, field + "_")]
    if all_headers:
        for value in received:  # hosts and addresses, not the date after ';'
            tokens += _words(_fix_8bit(value).split(";", 1)[0], "rcvd_")
        for name, values in headers.items():
            if name in _OWN_FIELDS:
                continue
            tokens.append("hname_" + _token(name))
            for value in values:
                tokens += _words(_decode_header(value, cut), "hdr_")
    return tokens


def _part_filename(part, cut=None):
    try:
        name = part.get_filename()
    except Exception:
        name = None
    if name is None:
        return None
    return _decode_header(name, cut)


def _payload(part, cte):
    """``(decoded bytes, clean)`` of a leaf part (base64 decoded leniently)."""
    if cte is not None and str(cte).strip().lower() == "base64":
        raw = part.get_payload(decode=False)
        if isinstance(raw, str):
            return _lenient_b64decode(raw.encode("ascii", "ignore"))
    return part.get_payload(decode=True), True


def _extract(msg, all_headers=True, cut=None):
    """(tokens, texts) of a parsed message; may raise on pathological headers.

    ``cut`` (a set) collects the bounds that cut something (see the module docstring).
    """
    cut = set() if cut is None else cut
    tokens = _header_tokens(msg, all_headers, cut)
    texts = []
    seen = set()

    def once(tok):
        if tok and tok not in seen:
            seen.add(tok)
            tokens.append(tok)

    once("ctype_" + _token(msg.get_content_type()))
    for defect in getattr(msg, "defects", []):
        once("mimedefect_" + _token(type(defect).__name__))
    for part in msg.walk():
        cut.update(getattr(part, "textnb_cut", ()))
        for defect in getattr(part, "defects", []) if part is not msg else []:
            once("mimedefect_" + _token(type(defect).__name__))
        if part.is_multipart():
            once("ctype_" + _token(part.get_content_type()))
            continue
        ctype = part.get_content_type()
        once("ctype_" + _token(ctype))
        charset = part.get_content_charset()
        if charset:
            once("charset_" + _token(charset))
        cte = part.get("Content-Transfer-Encoding")
        if cte:
            once("cte_" + _token(_fix_8bit(cte)))
        filename = _part_filename(part, cut)
        disposition = (part.get_content_disposition() or "") if filename is None else "attachment"
        if filename is not None:
            tokens.append("attach_" + (_token(filename) or "unnamed"))
        if part.get_content_maintype() != "text" or disposition == "attachment":
            if part is not msg or filename is not None:
                tokens.append("attachtype_" + _token(ctype))
            continue
        payload, clean = _payload(part, cte)
        if not clean:
            once("mimedefect_invalidbase64")
        if payload is None:
            payload = part.get_payload()
            payload = payload.encode("utf-8", "surrogateescape") if isinstance(payload, str) else b""
        text = decode_bytes(payload, charset)
        if ctype == "text/html":
            text, extra = html_to_text(text)
            tokens.extend(extra)
        texts.append(text)
    tokens.extend("mimedefect_toomany" + what for what in sorted(cut))
    return tokens, texts


def _skip_long(match):
    word = match.group()
    return f"skip_{_token(word[0]) or 'x'}_{len(word) // 10 * 10}"


def _cap_words(text):
    return _LONG_WORD.sub(_skip_long, text)


def _raw_text(data):
    """Last resort: the bytes as text, headers and body alike."""
    return decode_bytes(data)


def message_text(data, *, max_bytes=DEFAULT_MAX_BYTES, all_headers=True, unique=False):
    """One message (bytes) as one string for the default tokenizer. Never raises.

    Parameters
    ----------
    data : bytes
        The raw message (an mbox ``From`` line at the start is ignored).
    max_bytes : int or None
        Only this many bytes are parsed (``None``: all); a longer message gets the
        token ``textnb_truncated``.
    all_headers : bool
        Also tokenise the other header fields (as bogofilter does): words of From /
        To / Cc as ``from_<w>`` / ``to_<w>`` / ``cc_<w>``, the hosts and addresses of
        Received fields (before the date) as ``rcvd_<w>``, and for every other field
        (but dates, ids and mailbox bookkeeping) its name as ``hname_<field>`` and its
        words as ``hdr_<w>``. Numbers are left out of these. When False, only the
        selected fields listed in the module docstring. Header tokens are listed
        once each.
    unique : bool
        List every token of the message once, in order of first appearance: counts
        become presence (the "multinomial NB with Boolean attributes" of Metsis,
        Androutsopoulos & Paliouras, 2006), which works better for spam, while the
        model still learns from plain counts (so ``partial_fit`` and ``forget``
        work). The text is then tokens separated by spaces.

    Returns
    -------
    str
        Header tokens on the first line, then the text of the message's text parts.
    """
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    extra = []
    if max_bytes is not None and len(data) > max_bytes:
        data = data[:max_bytes]
        extra.append("textnb_truncated")
    if data.startswith(b"From ") and _FROM_LINE.match(data):
        data = data.split(b"\n", 1)[1] if b"\n" in data else b""
    data, cut = _precut(data)
    result = None
    try:
        msg = email.message_from_bytes(data, policy=_POLICY)
        tokens, texts = _extract(msg, all_headers, cut)
    except Exception:  # includes RecursionError: the parser cannot fail the caller
        pass
    else:
        result = " ".join(dict.fromkeys(tokens + extra)) + "\n" + "\n".join(texts)
    if result is None:
        result = " ".join(extra + ["mimedefect_unparsable"]) + "\n" + _raw_text(data)
    result = _cap_words(result)
    if unique:
        result = " ".join(dict.fromkeys(_WORD.findall(result.lower())))
    return result


# -- reading ---------------------------------------------------------------------------
