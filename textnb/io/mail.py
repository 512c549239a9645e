"""Mail for the classifier: RFC 5322 messages to one text string, mailboxes as streams.

This module is a front door, not a second reader: :func:`message_text`,
:func:`html_to_text` and the caps (:data:`MAX_PARTS`, ...) are those of the one mail
reader, :mod:`textnb.io.mailtokens` (see it for the reading rules and the bounds), and
:func:`iter_messages` & co. those of :mod:`textnb.io.mailread`.

:func:`message_text` turns the bytes of one message into a single string that the
default tokenizer of :class:`textnb.text.vectorizer.Vectorizer` (``(?u)\\b\\w\\w+\\b``,
lowercase) splits into the right terms: header fields as prefixed tokens
(``subject_cheap``, ``fromdomain_example_com``, ``received_hops_3``, ``ctype_text_html``,
``charset_gb2312``, ``cte_base64``, ``attach_invoice_pdf``, ``urlhost_...``,
``mimedefect_...``), then the text of every text part. It reads the message exactly as
the spam models' :func:`textnb.io.mailtokens.message_tokens` does.

:func:`iter_messages` reads a file, a folder of files (recursively), an mbox file, an MH
folder (numbered files) or a Maildir folder as a stream of ``(source, message_bytes)``
pairs. Mailboxes are opened read-only and never modified. Only regular files (or links
to them) are read: a FIFO, socket or device met in a folder, or a link to one, is
skipped without being opened for reading; given by name, it is an error.
"""

from textnb.io.mailread import (  # noqa: F401 (re-exported: the reading half of this module)
    _B64_CLEAN,
    _B64_JUNK,
    _CHUNK,
    _FROM_LINE,
    _HEADER_LINE,
    _SMALL_MBOX,
    DEFAULT_MAX_BYTES,
    _codec,
    _mbox_in_pieces,
    _lenient_b64decode,
    _open_regular,
    _read_file,
    _split_small_mbox,
    _strip_last_newline,
    decode_bytes,
    is_empty_message,
    is_maildir,
    is_mbox,
    is_special,
    mailbox_format,
    refuse_babyl,
    iter_messages,
    looks_like_mail,
    map_messages,
    message_files,
    read_messages,
    read_capped,
    file_messages,
    is_named_pipe,
    PIPE,
    refuse_empty_message,
)

from textnb.io.mailtokens import (  # noqa: F401 (the one reader: re-exported)
    MAX_ENCODED_WORDS,
    MAX_HEADER_BYTES,
    MAX_HEADERS,
    MAX_HTML_TAGS,
    MAX_MULTIPART,
    MAX_PARAMS,
    MAX_PARTS,
    _token,
    html_text,
    message_text,
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
    "map_messages",
    "message_files",
    "read_messages",
    "read_capped",
    "file_messages",
    "is_named_pipe",
    "PIPE",
    "refuse_empty_message",
    "is_empty_message",
    "is_mbox",
    "is_maildir",
    "mailbox_format",
    "refuse_babyl",
]


def html_to_text(html_text_):
    """Text of an HTML document and its extra tokens: ``(text, tokens)`` with
    ``urlhost_<host>`` for each link or image host, ``html_img`` for each image and
    ``mimedefect_toomanyhtmltags`` when :data:`MAX_HTML_TAGS` cut it
    (:func:`textnb.io.mailtokens.html_text`, linear in the length of the document)."""
    text, hosts, images, capped = html_text(html_text_)
    tokens = ["urlhost_" + _token(h) for h in hosts] + ["html_img"] * images
    if capped:
        tokens.append("mimedefect_toomanyhtmltags")
    return text, tokens
