"""What ``textnb predict`` reads from each of its PATHs, as ``train`` reads the same file:
the rows of a TSV/CSV file, the lines of a fastText file (one document each), or documents
(files, folders, standard input), in chunks that are scored as they come.

Standard input is ``-``; the readers take it from ``stdin`` (default :data:`sys.stdin`) and
name it :data:`~textnb.core.errors.STDIN_NAME` in what they yield and in their errors.
"""

import os
import sys

from textnb.core.errors import InputError, input_name, missing_reason

__all__ = ["ROW_SUFFIXES", "as_fasttext", "as_rows", "check_file", "document_batches", "line_chunks", "reading",
           "row_chunks", "some_file"]

#: the names of files read as TSV/CSV rows of documents (as ``train`` reads them)
ROW_SUFFIXES = (".tsv", ".csv", ".tab")


def check_file(path):
    """InputError for a rows or lines input that is missing or a folder (a pipe is read)."""
    if os.path.isdir(path):
        raise InputError(f"{path}: a folder, not a file")
    if not os.path.exists(path):
        raise InputError(f"{path}: {missing_reason(path, 'file')}")  # (a broken link said so)


def as_rows(path, rows=False):
    """Whether ``path`` is read as a TSV/CSV file of documents: ``rows`` (``--rows``), or a
    regular file named ``*.tsv``, ``*.csv`` or ``*.tab`` (as train reads it)."""
    if rows:
        return True
    return path != "-" and path.lower().endswith(ROW_SUFFIXES) and os.path.isfile(path)


def some_file(paths):
    """Whether a PATH of ``paths`` names a regular file (one that may be a fastText file)."""
    return any(path != "-" and os.path.isfile(path) for path in paths or ())


def as_fasttext(path, label_prefix=None, rows=False):
    """Whether ``path`` is read as a fastText file, one document per line as train reads it:
    a regular file (not read as rows, :func:`as_rows`) whose first non-blank line starts
    with ``label_prefix`` (the model's or the user's; None: ``__label__``), as train and
    evaluate tell one."""
    from textnb.io.fasttext import DEFAULT_LABEL_PREFIX, is_fasttext_file

    return (path != "-" and not as_rows(path, rows) and os.path.isfile(path)
            and is_fasttext_file(path, label_prefix or DEFAULT_LABEL_PREFIX))


def reading(path, *, rows=False, label_prefix=None):
    """How ``path`` is read: ``"rows"`` (TSV/CSV, :func:`as_rows`), ``"lines"`` (a fastText
    file, :func:`as_fasttext`) or ``""`` (a document, a folder of documents, standard input)."""
    return "rows" if as_rows(path, rows) else "lines" if as_fasttext(path, label_prefix, rows) else ""


def _binary_stream(stdin):
    stdin = sys.stdin if stdin is None else stdin
    return stdin.buffer if hasattr(stdin, "buffer") else stdin


def row_chunks(path, max_bytes, stdin=None):
    """``(texts, labels)`` chunks of the rows of the TSV/CSV file ``path`` (``-``: ``stdin``),
    read as they come (:func:`textnb.io.corpus.iter_rows`: ``labels`` None without a label
    column); the rows are numbered from 1 in file order under the name ``input_name(path)``."""
    from textnb.io.corpus import iter_rows

    stream = None
    if path == "-":
        stream = _binary_stream(stdin)
    else:
        check_file(path)
    yield from iter_rows(input_name(path), stream=stream, max_bytes=max_bytes)


def line_chunks(source, label_prefix, max_bytes, with_labels=False, stdin=None):
    """The documents of ``source`` (a path, or ``-``: ``stdin``), one per line, in lists
    (:func:`textnb.io.fasttext.line_documents`; lines cut at ``max_bytes`` bytes, the words
    of ``label_prefix`` left out); ``with_labels``: ``(texts, labels)`` pairs of lists."""
    from textnb.io.fasttext import line_documents

    if source == "-":
        yield from line_documents(_binary_stream(stdin), max_bytes=max_bytes, label_prefix=label_prefix,
                                  name=input_name(source), with_labels=with_labels)
        return
    check_file(source)
    try:
        stream = open(source, "rb")
    except OSError as exc:
        raise InputError(f"{source}: cannot read ({exc.strerror or exc})") from None
    with stream:
        yield from line_documents(stream, max_bytes=max_bytes, label_prefix=label_prefix, name=source,
                                  with_labels=with_labels)


def document_batches(paths, max_bytes, on_binary, tick=None, size=1000, stdin=None):
    """``(sources, texts)`` batches of at most ``size`` documents of the files, folders and
    ``-`` (``stdin``) of ``paths`` (a batch spans paths); a binary file is left out with
    ``on_binary(source, reason)`` called; ``tick()`` after each document read when given."""
    from textnb.io.corpus import iter_input_documents, skipped_reason
    from textnb.io.files import source_batches

    def readable():
        for src, text in iter_input_documents(paths, max_bytes=max_bytes, stdin=sys.stdin if stdin is None else stdin):
            if tick is not None:
                tick()
            if text is None:
                on_binary(src, skipped_reason(src))
                continue
            yield src, text

    return source_batches(readable(), size)
