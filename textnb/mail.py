"""Mail for the classifier: RFC 5322 messages to one text string, mailboxes as streams.

:func:`message_text` turns the bytes of one message into a single string that the
default tokenizer of :class:`textnb.text.Vectorizer` (``(?u)\\b\\w\\w+\\b``, lowercase)
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

Parsing uses the standard :mod:`email` package with ``policy.default`` and falls back to
``policy.compat32`` (then to the raw bytes) when the modern policy raises, so no input
makes it fail. Header fields are decoded here from the raw values (RFC 2047 words and
8-bit bytes, UTF-8 first, then Latin-1), the same under either policy.

Size cap: only the first ``max_bytes`` bytes of a message are read
(:data:`DEFAULT_MAX_BYTES`, 10 MiB); the rest is skipped without being held in memory
and the text gets the token ``textnb_truncated``. A 50 MB attachment therefore costs
at most 10 MiB of memory and is never decoded.

:func:`iter_messages` reads a file, a folder of files (recursively), an mbox file or a
Maildir folder as a stream of ``(source, message_bytes)`` pairs. Mailboxes are opened
read-only and never modified.
"""

import base64
import codecs
import email
import email.header
import email.policy
import email.utils
import os
import re
from html.parser import HTMLParser

from textnb.errors import InputError

__all__ = [
    "DEFAULT_MAX_BYTES",
    "message_text",
    "decode_bytes",
    "html_to_text",
    "iter_messages",
    "read_capped",
    "is_mbox",
    "is_maildir",
]

#: Bytes of one message that are read and parsed; the rest is skipped.
DEFAULT_MAX_BYTES = 10 * 1024 * 1024

_CHUNK = 1 << 16
_NON_WORD = re.compile(r"[\W_]+")
_WORD = re.compile(r"(?u)\b\w\w+\b")
#: Longer runs of word characters (base64 debris, encoded URLs) become one short
#: ``skip_<first char>_<length rounded down to 10>`` token, as in SpamBayes.
MAX_WORD = 40
_LONG_WORD = re.compile(r"(?u)\w{%d,}" % (MAX_WORD + 1))
_URL_HOST = re.compile(r"(?i)^\s*(?:https?|ftp)://([^/\s:?#]+)")
# "From " separator line of an mbox: "From <sender> <asctime date>"
_FROM_LINE = re.compile(
    rb"^From \S+\s+(?:[A-Z][a-z]{2},?\s+)?(?:[A-Z][a-z]{2}\s+\d{1,2}|\d{1,2}\s+[A-Z][a-z]{2})"
    rb"\s+(?:\d{4}\s+)?\d{1,2}:\d\d"
)
_HEADER_LINE = re.compile(rb"^[!-9;-~]+:")


# -- decoding --------------------------------------------------------------------------
def _codec(charset):
    if not charset:
        return None
    charset = str(charset).strip().strip('"').lower()
    try:
        return codecs.lookup(charset).name
    except (LookupError, ValueError):
        return None


def decode_bytes(data, charset=None):
    """Decode ``data`` with ``charset``; unknown or wrong: UTF-8, then Latin-1. Never raises."""
    name = _codec(charset)
    if name is not None:
        try:
            return data.decode(name)
        except (UnicodeDecodeError, LookupError, ValueError, TypeError):
            pass
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _fix_8bit(value):
    """Header strings keep raw 8-bit bytes as surrogate escapes: decode them properly."""
    value = str(value)
    if any("\udc80" <= ch <= "\udcff" for ch in value):
        return decode_bytes(value.encode("ascii", "surrogateescape"))
    return value


def _decode_header(value):
    """One raw header value to text: RFC 2047 encoded words and 8-bit bytes decoded."""
    text = _fix_8bit(value)
    try:
        parts = email.header.decode_header(text)
    except Exception:  # malformed encoded words: keep the raw text
        return text
    out = []
    for chunk, charset in parts:
        if isinstance(chunk, bytes):
            chunk = decode_bytes(chunk, charset)
        out.append(chunk)
    return "".join(out) if len(parts) > 1 or parts[0][1] else text


def _token(text):
    """``'text/HTML'`` -> ``'text_html'``: lowercase, non-word runs to one underscore."""
    return _NON_WORD.sub("_", str(text).lower()).strip("_")


# -- HTML ------------------------------------------------------------------------------
class _HTMLText(HTMLParser):
    _SKIP = frozenset({"script", "style", "head", "title"})
    _BLOCK = frozenset({"p", "br", "div", "tr", "td", "li", "h1", "h2", "h3", "table"})

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.text, self.tokens, self._skip = [], [], 0

    def handle_starttag(self, tag, attrs):
        if tag in self._SKIP:
            self._skip += 1
        elif tag in self._BLOCK:
            self.text.append("\n")
        for name, value in attrs:
            if value and name in ("href", "src", "action"):
                m = _URL_HOST.match(value)
                if m:
                    self.tokens.append("urlhost_" + _token(m.group(1)))
            elif value and name in ("alt", "title"):
                self.text.append(" " + value + " ")
        if tag == "img":
            self.tokens.append("html_img")

    def handle_endtag(self, tag):
        if tag in self._SKIP and self._skip:
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip:
            self.text.append(data)


def html_to_text(html):
    """Text of an HTML document (scripts and styles dropped) and its extra tokens.

    Returns ``(text, tokens)``: ``tokens`` holds ``urlhost_<host>`` for each link or
    image host and ``html_img`` for each image. Never raises on malformed HTML.
    """
    parser = _HTMLText()
    try:
        parser.feed(html)
        parser.close()
    except Exception:  # html.parser is lenient; this is a last resort
        return re.sub(r"<[^>]*>", " ", html), parser.tokens
    return "".join(parser.text), parser.tokens


# -- one message -----------------------------------------------------------------------
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


def _header_tokens(msg, all_headers=True):
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
        tokens += ["subject_" + w for w in _WORD.findall(_decode_header(value).lower())]
    for field, prefix in (("from", "fromdomain_"), ("to", "todomain_"), ("cc", "todomain_")):
        decoded = [_decode_header(v) for v in headers.get(field, [])]
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
                tokens += _words(_decode_header(value), "hdr_")
    return tokens


def _part_filename(part):
    try:
        name = part.get_filename()
    except Exception:
        name = None
    if name is None:
        return None
    return _decode_header(name)


_B64_JUNK = re.compile(rb"[^A-Za-z0-9+/]")
_B64_CLEAN = re.compile(rb"(?:[A-Za-z0-9+/]{4}|\r?\n)*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?\s*")


def _lenient_b64decode(data):
    """Decode base64, keeping every whole 3-byte group: junk characters and
    padding are dropped, a short tail is padded (never raises). Returns
    ``(bytes, clean)``; ``clean`` is False when something had to be dropped or padded."""
    clean = _B64_CLEAN.fullmatch(data) is not None
    data = _B64_JUNK.sub(b"", data.rstrip(b"=\r\n\t "))
    tail = len(data) % 4
    if tail == 1:
        data = data[:-1]
    elif tail:
        data += b"=" * (4 - tail)
    return base64.b64decode(data), clean


def _payload(part, cte):
    """``(decoded bytes, clean)`` of a leaf part (base64 decoded leniently)."""
    if cte is not None and str(cte).strip().lower() == "base64":
        raw = part.get_payload(decode=False)
        if isinstance(raw, str):
            return _lenient_b64decode(raw.encode("ascii", "ignore"))
    return part.get_payload(decode=True), True


def _extract(msg, all_headers=True):
    """(tokens, texts) of a parsed message; may raise on pathological headers."""
    tokens = _header_tokens(msg, all_headers)
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
        filename = _part_filename(part)
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
    result = None
    for policy in (email.policy.default, email.policy.compat32):
        try:
            msg = email.message_from_bytes(data, policy=policy)
            tokens, texts = _extract(msg, all_headers)
        except Exception:
            continue
        result = " ".join(dict.fromkeys(tokens + extra)) + "\n" + "\n".join(texts)
        break
    if result is None:
        result = " ".join(extra + ["mimedefect_unparsable"]) + "\n" + _raw_text(data)
    result = _cap_words(result)
    if unique:
        result = " ".join(dict.fromkeys(_WORD.findall(result.lower())))
    return result


# -- reading ---------------------------------------------------------------------------
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


def is_maildir(path):
    """True for a folder with ``cur``/``new`` (and usually ``tmp``) subfolders."""
    return os.path.isdir(os.path.join(path, "cur")) and os.path.isdir(os.path.join(path, "new"))


def is_mbox(path):
    """True for a file whose first line is an mbox ``From <sender> <date>`` line."""
    try:
        with open(path, "rb") as f:
            return bool(_FROM_LINE.match(f.readline(4096)))
    except OSError:
        return False


def looks_like_mail(data):
    """True when ``data`` starts like an RFC 5322 message (a header field or From line)."""
    head = data[:4096].lstrip(b"\r\n")
    return bool(_HEADER_LINE.match(head) or _FROM_LINE.match(head))


def _iter_mbox(path, max_bytes):
    """Messages of an mbox file, streamed line by line; the file is opened read-only.

    A message starts at a ``From <sender> <date>`` line at the start of the file or
    after an empty line; the ``From`` line itself is not part of the message. Bytes
    past ``max_bytes`` in one message are skipped.
    """
    number = 0
    parts, size, started = [], 0, False
    prev_blank, at_line_start = True, True
    with open(path, "rb") as f:
        while True:
            line = f.readline(_CHUNK)
            if not line:
                break
            if at_line_start and prev_blank and line.startswith(b"From ") and _FROM_LINE.match(line):
                if started:
                    number += 1
                    yield f"{path}:{number}", _strip_last_newline(b"".join(parts))
                parts, size, started = [], 0, True
                at_line_start = line.endswith(b"\n")
                prev_blank = False
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
                parts.append(line)
                size += len(line)
    if started:
        number += 1
        yield f"{path}:{number}", _strip_last_newline(b"".join(parts))


#: mbox files up to this size are read at once and split in memory (the same messages
#: as :func:`_iter_mbox`, several times faster than line by line)
_SMALL_MBOX = 1 << 20


def _split_small_mbox(path, data):
    """The messages :func:`_iter_mbox` yields, from the whole (small) file ``data``;
    None when a From line is longer than a read chunk (then the streaming reader is used)."""
    starts = []  # (start of the From line, start of the message after it)
    candidates = [0] if data.startswith(b"From ") else []
    i = data.find(b"\nFrom ")
    while i >= 0:
        candidates.append(i + 1)
        i = data.find(b"\nFrom ", i + 1)
    for here in candidates:
        if here:
            q = here - 2  # data[here - 1] ends the previous line: is that line blank?
            while q >= 0 and data[q] == 13:
                q -= 1
            if q >= 0 and data[q] != 10:
                continue
        end = data.find(b"\n", here)
        end = len(data) if end < 0 else end + 1
        if end - here > _CHUNK:
            return None
        if _FROM_LINE.match(data[here:end]):
            starts.append((here, end))
    out = []
    for k, (_, body) in enumerate(starts):
        stop = starts[k + 1][0] if k + 1 < len(starts) else len(data)
        out.append((f"{path}:{k + 1}", _strip_last_newline(data[body:stop])))
    return out


def _strip_last_newline(data):
    # the empty line before the next "From " belongs to the mbox, not the message
    if data.endswith(b"\r\n\r\n"):
        return data[:-2]
    if data.endswith(b"\n\n"):
        return data[:-1]
    return data


def _read_file(path, max_bytes):
    try:
        with open(path, "rb") as f:
            return read_capped(f, max_bytes)[0]
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None


def _iter_maildir(path, max_bytes):
    for sub in ("new", "cur"):
        folder = os.path.join(path, sub)
        for name in sorted(os.listdir(folder)):
            full = os.path.join(folder, name)
            if name.startswith(".") or not os.path.isfile(full):
                continue
            yield full, _read_file(full, max_bytes)


def iter_messages(path, *, max_bytes=DEFAULT_MAX_BYTES):
    """Stream ``(source, message_bytes)`` from a file, folder, mbox or Maildir.

    * a Maildir folder (``cur``/``new``): each file of ``new`` then ``cur``, sorted;
      source = the file's path;
    * an mbox file (first line ``From <sender> <date>``): each message; source =
      ``<path>:<n>`` (n from 1);
    * any other file: one message; source = the path;
    * any other folder: its files recursively, sorted, hidden files and folders
      skipped, each read as above (so mbox files inside folders are split).

    Nothing is ever written; files are opened read-only.

    Raises
    ------
    InputError
        If ``path`` does not exist or a file cannot be read.
    """
    path = os.fspath(path)
    if is_maildir(path):
        yield from _iter_maildir(path, max_bytes)
    elif os.path.isdir(path):
        for root, dirs, files in os.walk(path):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            if is_maildir(root):
                dirs[:] = []
                yield from _iter_maildir(root, max_bytes)
                continue
            for name in sorted(files):
                if not name.startswith("."):
                    yield from _iter_file(os.path.join(root, name), max_bytes)
    elif os.path.exists(path):
        yield from _iter_file(path, max_bytes)
    else:
        raise InputError(f"{path}: no such file or folder")


def _iter_file(path, max_bytes):
    if is_mbox(path):
        try:
            # a file holding one message (with its From line) keeps its plain name
            stream = None
            if os.path.getsize(path) <= min(_SMALL_MBOX, max_bytes or _SMALL_MBOX):
                with open(path, "rb") as f:
                    data = f.read(_SMALL_MBOX + 1)
                if len(data) <= _SMALL_MBOX:
                    split = _split_small_mbox(path, data)
                    stream = iter(split) if split is not None else None
            if stream is None:
                stream = _iter_mbox(path, max_bytes)
            first = next(stream, None)
            second = next(stream, None)
            if first is not None and second is None:
                yield path, first[1]
            elif first is not None:
                yield first
                yield second
                yield from stream
        except OSError as exc:
            raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None
    else:
        yield path, _read_file(path, max_bytes)
