"""Standard streams that never fail on a character their encoding lacks.

Its own module, importing nothing, because the ``spamfilter --socket`` client imports it
before anything else and must start in milliseconds (docs/spam.md, "Speed").
"""

__all__ = ["tolerant"]


def tolerant(stream, errors):
    """The process's text stream, set never to fail on a character its encoding lacks:
    on a UTF-8 stream with ``errors`` (file names that are not valid UTF-8 written back
    as their own bytes with ``surrogateescape``), on any other (``ascii:strict``, say)
    as a backslash escape. So a strict stdout cannot make ``train`` fail after it has
    written the model, nor a label cut a ``topicfilter`` run short."""
    try:
        utf8 = (stream.encoding or "").lower().replace("_", "-") in ("utf-8", "utf8")
        stream.reconfigure(errors=errors if utf8 else "backslashreplace")
    except (AttributeError, ValueError, OSError):
        pass
    return stream
