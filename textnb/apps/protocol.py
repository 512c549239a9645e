"""The daemon's wire formats, written once for the daemon and its clients.

Standard library only and nothing imported at module level: the mail client
(:mod:`textnb.apps.spamclient`) imports this module on a path where every millisecond of
start-up counts. Two protocols:

**textnb's own** (``textnb serve --socket PATH``; the client is ``spamfilter --socket``
and its C twin ``spamclient.c``, which must follow any change here): a request line
``SPAM <n> [key=value]...`` (:func:`spam_request`) then ``n`` message bytes; the reply
``OK <exit code> <label> <score> <log-odds> <m>`` (:func:`spam_reply`) then ``m`` bytes,
or ``ERR <one line>`` (:func:`error_reply`). A client takes a reply only as
:func:`parse_spam_reply` and :func:`head_length_possible` allow (exit code 0, 1 or 2, a
printable label, a count that can be the processed message); anything else is a broken
reply: one line, exit 3, with ``-p`` the message written unchanged. The reply has room for
one label: a multi-label model (a set of labels per text) is refused there (``ERR the served
model is multi-label: ...``; its label sets are answered by ``CLASSIFY``, whose reply is
JSON, and by HTTP's ``POST /classify``), as by spamd below (``--spamd`` needs a spam model).

**SpamAssassin's spamd** (SPAMC/1.5, ``textnb serve --spamd ADDRESS``), as the
``spamd`` script of SpamAssassin 4.0 speaks it: a request line ``<METHOD> SPAMC/<version>``,
header lines ``Name: value`` (``Content-length``, ``User``, ``Message-class``, ``Set``,
``Remove``; at most 255) and an empty line, all ending in CRLF, then the message; the
reply ``SPAMD/1.1 <status> <EX_ name>`` then headers, or on an error the single line
``SPAMD/1.0 <status> <text>`` (:func:`spamd_error`). The score line ``Spam: True ;
<score> / <threshold>`` uses the scale of :func:`spamd_score`.
"""

__all__ = [
    "EX", "SPAMD_METHODS", "SPAMD_THRESHOLD", "MAX_HEADER_LINES", "MAX_LINE",
    "ProtocolError", "spam_request", "spam_reply", "parse_spam_reply", "head_length_possible", "MAX_HEAD_GROWTH",
    "error_reply",
    "parse_spamd_request_line", "parse_spamd_header", "spamd_score", "spamd_score_text", "spamd_reply",
    "spamd_error", "parse_spamd_status", "one_line", "failure_text",
]

#: Longest request or header line read (bytes, line end included).
MAX_LINE = 4096
#: Header lines a spamd request may carry (spamd's own limit).
MAX_HEADER_LINES = 255

# -- textnb's protocol ---------------------------------------------------------------------


def spam_request(n, *, spam_cutoff=None, ham_cutoff=None, max_bytes=None, headers=False):
    """The request line for a message of ``n`` bytes (options sent only when given)."""
    opts = []
    for key, value in (("spam_cutoff", spam_cutoff), ("ham_cutoff", ham_cutoff), ("max_bytes", max_bytes)):
        if value is not None:
            opts.append(f" {key}={value!r}")
    if headers:
        opts.append(" headers=1")
    return f"SPAM {n}{''.join(opts)}\n".encode("ascii")


def spam_reply(code, verdict, head=b""):
    """The daemon's answer to a ``SPAM`` request: the line, then ``head`` (may be empty)."""
    return f"OK {code} {verdict.label} {verdict.score!r} {verdict.log_odds!r} {len(head)}\n".encode() + head


#: Characters of a score or log-odds field (``repr`` of a float: digits, sign, point,
#: exponent, ``inf``, ``nan``); spamclient.c parses the same set.
_NUMBER_CHARS = frozenset(b"0123456789+-.eEinfaINFA")


def parse_spam_reply(line):
    """``(exit_code, label, score, log_odds, m)`` of a reply line (without its newline).

    Raises ValueError when the line is not an ``OK`` reply of six fields as
    :func:`spam_reply` writes them: an exit code 0, 1 or 2 and a count ``m`` in decimal
    digits, a label of printable ASCII (no control character, no NUL anywhere in the
    line), two numbers. (An ``ERR`` line is the caller's to recognise first;
    spamclient.c's ``parse_ok`` is the same rule.)
    """
    fields = line.split()
    if len(fields) != 6 or fields[0] != b"OK" or b"\0" in line:
        raise ValueError("not a reply")
    code, label, score, log_odds, n = fields[1:]
    if not (code.isdigit() and n.isdigit()) or int(code) not in (0, 1, 2):
        raise ValueError("not a verdict's exit code and byte count")
    if not all(0x21 <= c <= 0x7E for c in label):
        raise ValueError("not a label")
    if not (set(score) <= _NUMBER_CHARS and set(log_odds) <= _NUMBER_CHARS):
        raise ValueError("not a number")
    return int(code), label.decode("ascii"), float(score), float(log_odds), int(n)


#: Most bytes the verdict headers may add to a message: a reply's count over the message's
#: size by more than this is not the processed message.
MAX_HEAD_GROWTH = 64 * 1024


def head_length_possible(m, message, headers):
    """Whether a reply's count ``m`` can be that of the daemon's answer to ``message``.

    With ``headers`` (``-p``) the answer is the message with its ``X-TextNB-*`` fields
    added, so it is longer than the message; it may be shorter only when the message
    holds ``x-textnb-`` (in any case), whose earlier fields are replaced, and it is never
    empty. Without ``headers`` nothing is needed. In both cases the message's size plus
    :data:`MAX_HEAD_GROWTH` is the most. A count that fails this is a broken reply (the
    client writes the message unchanged rather than trust it); spamclient.c's
    ``head_length_possible`` is the same rule.
    """
    if m > len(message) + MAX_HEAD_GROWTH:
        return False
    if not headers:
        return True
    if b"x-textnb-" in message.lower():
        return m > 0
    return m > len(message)


def error_reply(message):
    """``ERR <message>`` on one line (whitespace runs folded, at most 1000 characters)."""
    return ("ERR " + " ".join(str(message).split())[:1000] + "\n").encode("utf-8", "replace")


# -- spamd ---------------------------------------------------------------------------------
#: sysexits(3) codes as spamd names them in its status line.
EX = {"EX_OK": 0, "EX_USAGE": 64, "EX_DATAERR": 65, "EX_NOINPUT": 66, "EX_NOUSER": 67, "EX_NOHOST": 68,
      "EX_UNAVAILABLE": 69, "EX_SOFTWARE": 70, "EX_OSERR": 71, "EX_OSFILE": 72, "EX_CANTCREAT": 73,
      "EX_IOERR": 74, "EX_TEMPFAIL": 75, "EX_PROTOCOL": 76, "EX_NOPERM": 77, "EX_CONFIG": 78, "EX_TIMEOUT": 79}
#: The methods of SPAMC/1.5 (spamd's dispatch).
SPAMD_METHODS = ("CHECK", "SYMBOLS", "REPORT", "REPORT_IFSPAM", "PROCESS", "HEADERS", "PING", "SKIP", "TELL")
#: The threshold reported in the ``Spam:`` line (SpamAssassin's default ``required_score``).
SPAMD_THRESHOLD = 5.0
_LN10 = 2.302585092994046


class ProtocolError(Exception):
    """A request the protocol does not allow: ``status`` is the ``EX_`` name to answer with."""

    def __init__(self, message, status="EX_PROTOCOL"):
        super().__init__(message)
        self.status = status


def parse_length(text):
    """A byte count as every transport of the daemon reads it (``SPAM <n>``, ``CLASSIFY <n>``,
    HTTP's ``Content-Length``, spamd's ``Content-length``): ASCII digits only, else None.
    (Python's ``int()`` also takes ``+15``, ``1_5``, ``-0`` and other scripts' digits: a
    proxy or client that reads those otherwise would frame the request differently.)"""
    if not text or not text.isascii() or not text.isdigit():
        return None
    return int(text)


def request_text(line):
    """A spamd request's line (bytes) as text, its line end removed: UTF-8, a byte that is not
    UTF-8 kept by ``surrogateescape`` (a user name's bytes go on unchanged; an error line that
    quotes the line writes such a byte ``\\xNN``, :func:`one_line`). Read as Latin-1, the
    bytes 0xA0-0xFF were printable characters, echoed raw in the error line."""
    return line.rstrip(b"\r\n").decode("utf-8", "surrogateescape")


def parse_spamd_request_line(line):
    """``(method, version)`` of ``b'CHECK SPAMC/1.5\\r\\n'``; ProtocolError otherwise (the line
    read as :func:`request_text` reads it)."""
    text = request_text(line)
    parts = text.split(" ")
    if len(parts) != 2 or parts[0] not in SPAMD_METHODS or not parts[1].startswith("SPAMC/"):
        raise ProtocolError(f"({text[:80]})")
    number = parts[1][6:]
    # ASCII digits and a point only: float() also takes white space around them (Unicode's,
    # U+00A0 or U+2028, and the ASCII separators 0x1C-0x1F), other scripts' digits, '1_5'
    if not (number.isascii() and number.replace(".", "", 1).isdigit()):
        raise ProtocolError(f"(bad protocol version {parts[1][:20]!r})")
    version = float(number)
    if not 1.0 <= version < 2.0:
        raise ProtocolError(f"(unsupported protocol version {parts[1][:20]})")
    return parts[0], version


#: The white space taken off the start of a spamd header's value: ASCII's, as spamd's
#: ``split /:\s*/`` on the request's bytes takes it (``str.lstrip()`` also took Unicode's,
#: U+00A0, U+2028, NEL, and the ASCII separators 0x1C-0x1F, which spamd keeps).
SPAMD_SPACE = " \t\r\n\v\f"


def parse_spamd_header(line, headers):
    """Add one header line (CRLF or LF ended, not empty) to the dict ``headers``.

    Names are spamd's (case as sent: spamd ignores other spellings, so does this). The
    value starts after the colon and the ASCII white space after it (:data:`SPAMD_SPACE`).
    ``Content-length`` must be digits (given twice, the same number); ``User`` may hold no control characters;
    ``Message-class`` is ``spam`` or ``ham``; ``Set`` / ``Remove`` name ``local`` and/or
    ``remote``; ``Compress`` is refused (this daemon reads plain messages only).
    """
    text = request_text(line)
    name, sep, value = text.partition(":")
    if not sep:
        raise ProtocolError("(header not in 'Name: value' format)")
    value = value.lstrip(SPAMD_SPACE)
    if name == "Content-length":
        n = parse_length(value)
        if n is None:
            raise ProtocolError("(Content-Length contains non-numeric bytes)")
        if headers.get("content_length", n) != n:  # (request smuggling's way in)
            raise ProtocolError("(more than one Content-Length, with different values)")
        headers["content_length"] = n
    elif name == "User":
        if any(ord(c) < 0x20 or c == "\x7f" for c in value):
            raise ProtocolError("(User header contains control chars)")
        # the name's bytes, as spamc sends the user's (UTF-8) name: they become the per-user
        # model file's name unchanged (a byte that is not UTF-8 kept by surrogateescape). An
        # empty one is no user (Exim's `spam = $local_part` in the DATA ACL, where the variable
        # is empty, sends `User: `): the served model, as without the header; it was refused
        # (67), and Exim then deferred the condition and delivered spam unscanned. Only ASCII
        # white space is taken off (SPAMD_SPACE): a name of U+2028 or NEL is a name, and
        # "\u00a0alice" is not alice (str.lstrip took them off: no user, and alice's model)
        if value:
            headers["user"] = value
    elif name == "Message-class":
        if value.lower() not in ("spam", "ham"):
            raise ProtocolError("(Message-class header contains invalid class)")
        headers["message_class"] = value.lower()
    elif name in ("Set", "Remove"):
        v = value.lower()
        headers[name.lower()] = {w for w in ("local", "remote") if w in v}
    elif name == "Compress":
        raise ProtocolError(f"(compression type not supported: {value[:40]})")
    return headers


def spamd_score(log_odds, spam_log_odds):
    """The spamd score of a spam log-odds: ``5 + (log_odds - spam_log_odds) / ln 10``.

    ``spam_log_odds`` is the spam cut-off as a log-odds (``logit(spam_cutoff)``), so the
    score reaches :data:`SPAMD_THRESHOLD` (5.0) exactly where textnb says spam, and one
    point is a factor of 10 in the odds. Infinite log-odds map to +-1000.
    """
    if log_odds != log_odds:
        raise ValueError("NaN log-odds")
    if spam_log_odds == float("inf"):  # a cut-off of 1: nothing is spam
        return -1000.0 if log_odds != float("inf") else SPAMD_THRESHOLD
    if spam_log_odds == float("-inf"):
        return 1000.0
    score = SPAMD_THRESHOLD + (log_odds - spam_log_odds) / _LN10
    return max(-1000.0, min(1000.0, score))


def spamd_score_text(score, is_spam):
    """The score as spamd prints it (one decimal; a message that is not spam never shows
    a score at or above the threshold: SpamAssassin's ``get_tag_value_for_score``)."""
    shown = f"{score:.1f}"
    if not is_spam and float(shown) >= SPAMD_THRESHOLD:
        shown = f"{SPAMD_THRESHOLD - 0.1:.1f}"
    return shown


def spamd_reply(headers=(), body=b"", status="EX_OK"):
    """``SPAMD/1.1 <n> <status>`` then each ``(name, value)`` header, an empty line and ``body``."""
    lines = [f"SPAMD/1.1 {EX[status]} {status}"] + [f"{k}: {v}" for k, v in headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1", "replace") + body


_ASCII_SPACE = str.maketrans("\t\n\r\v\f", "     ")


def _escape(ch):
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that is not UTF-8, kept by surrogateescape: the byte
        return f"\\x{code - 0xDC00:02x}"
    return repr(ch)[1:-1]


def one_line(text):
    r"""``text`` as one line of printable characters: the rule of every line the daemon
    writes that quotes untrusted text (its spamd error lines, its log). Runs of ASCII
    whitespace (space, TAB, CR, LF, VT, FF) are folded to one space; any other character
    that is not printable is written as ``repr`` writes it (a control character ``\x1b``,
    ``\x85``, a line separator ``\u2028``, a direction override ``\u202e``), a byte that
    is not UTF-8 (kept as a lone surrogate by ``surrogateescape``) as ``\xNN``. So nothing
    in it can end or rewrite the line."""
    text = " ".join(word for word in str(text).translate(_ASCII_SPACE).split(" ") if word)
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else _escape(ch) for ch in text)


def spamd_error(status, text):
    """spamd's one-line error answer (``SPAMD/1.0 76 Bad header line: ...``), ``text`` as
    :func:`one_line` writes it: a control character of the request echoed in it is
    written ``\\xNN``, never sent as is; a character Latin-1 lacks, as its backslash
    escape (``\\u2028``), never as a ``?``."""
    text = one_line(text)[:1000]
    return f"SPAMD/1.0 {EX[status]} {text}\r\n".encode("latin-1", "backslashreplace")


def parse_spamd_status(line):
    """``(protocol version, status number, text)`` of a ``SPAMD/x.y n TEXT`` line (for clients and tests)."""
    text = line.rstrip(b"\r\n").decode("latin-1")
    proto, _, rest = text.partition(" ")
    if not proto.startswith("SPAMD/"):
        raise ValueError(f"not a spamd reply: {text[:60]!r}")
    number, _, message = rest.partition(" ")
    return proto[6:], int(number), message


def failure_text(exc, path):
    """Why a model file ``path`` could not be loaded or changed, ``exc`` the error, as the
    daemon's log, its replies and ``GET /model``'s ``last_error`` say it: a TextnbError's
    message (it names its file), an OSError's file (else ``path``) and the system's words
    (not ``[Errno 13] ...``), ``PATH: out of memory`` for a MemoryError, whose ``str`` is
    empty (a reload that ran out of memory was logged ``not reloaded, still serving the
    previous model ()``, and ``last_error`` was ``""``, which reads as no error); another
    error without words its type."""
    if isinstance(exc, MemoryError):
        return f"{path}: out of memory"
    if isinstance(exc, OSError):
        return f"{exc.filename or path}: {exc.strerror or exc}"
    return str(exc) or f"{path}: {type(exc).__name__}"
