"""What ``textnb predict`` reads from each of its PATHs, as ``train`` reads the same file:
the rows of a TSV/CSV file, the lines of a fastText file (one document each), or documents
(files, folders, standard input), in chunks that are scored as they come.

Standard input is ``-``; the readers take it from ``stdin`` (default :data:`sys.stdin`;
closed or absent: ``stdin: standard input is closed``) and name it
:data:`~textnb.core.errors.STDIN_NAME` in what they yield and in their errors.
"""

import os

from textnb.core.errors import InputError, check_input, input_name

__all__ = ["ROW_SUFFIXES", "STDIN_PATHS", "as_fasttext", "as_rows", "check_file", "check_paths", "document_batches", "line_chunks", "reading",
           "row_chunks", "some_file"]

#: the names of files read as rows of documents, as ``train`` reads them: TSV/CSV and JSON
#: (JSON Lines, :mod:`textnb.io.jsonlines`; a JSON array is refused in one line)
ROW_SUFFIXES = (".tsv", ".csv", ".tab", ".jsonl", ".ndjson", ".json")


#: the PATHs that name standard input: ``-`` and ``/dev/stdin``, one stream, read once
STDIN_PATHS = ("-", "/dev/stdin")


def check_paths(paths, rows=False):
    """InputError, before any PATH is read, for PATHs of ``paths`` that cannot all be read:
    standard input given twice (``-`` or ``/dev/stdin``, :data:`STDIN_PATHS`: it can be read
    once, the second would be read empty and an empty document scored) and a PATH that is not
    there, or with ``rows`` (``--rows``: each PATH a TSV/CSV file) not a file
    (:func:`~textnb.core.errors.check_input`, as :func:`check_file` says it), so that what
    ``predict`` prints does not depend on how far it got or on how it batches."""
    paths = [os.fspath(path) for path in paths or ()]
    given = [path for path in paths if path in STDIN_PATHS]
    if len(given) > 1:
        raise InputError("standard input (-) given twice: it can be read once" if set(given) == {"-"} else
                         f"standard input given twice (as {' and as '.join(given)}): it can be "
                         f"read once")
    for path in paths:
        if path != "-":
            check_input(path, "file" if rows else "file or folder")


def check_file(path):
    """InputError for a rows or lines input that is missing or a folder (a pipe is read):
    :func:`~textnb.core.errors.check_input` of a ``"file"``."""
    check_input(path, "file")


def as_rows(path, rows=False):
    """Whether ``path`` is read as a file of rows of documents: ``rows`` (``--rows``), or a
    regular file named ``*.tsv``, ``*.csv``, ``*.tab`` or JSON (``*.jsonl``, ``*.ndjson``,
    ``*.json``) (:data:`ROW_SUFFIXES`, as train reads it)."""
    if rows:
        return True
    return path != "-" and path.lower().endswith(ROW_SUFFIXES) and os.path.isfile(path)


def some_file(paths):
    """Whether a PATH of ``paths`` names a regular file (one that may be a fastText file)."""
    return any(path != "-" and os.path.isfile(path) for path in paths or ())


def as_fasttext(path, label_prefix=None, rows=False):
    """Whether ``path`` is read as a fastText file, one document per line as train reads it:
    a regular file whose first non-blank line starts with ``label_prefix`` (the model's or the
    user's; None: ``__label__``), whatever its name (``*.csv`` and ``*.tsv`` too), as train,
    evaluate and test tell one by its content; unless ``rows`` (``--rows``) asks for its rows."""
    from textnb.io.fasttext import DEFAULT_LABEL_PREFIX, is_fasttext_file

    return (path != "-" and not rows and os.path.isfile(path)
            and is_fasttext_file(path, label_prefix or DEFAULT_LABEL_PREFIX))


def reading(path, *, rows=False, label_prefix=None):
    """How ``path`` is read: ``"lines"`` (a fastText file, :func:`as_fasttext`: by its content,
    before its name), ``"rows"`` (TSV/CSV, :func:`as_rows`) or ``""`` (a document, a folder of
    documents, standard input)."""
    return "lines" if as_fasttext(path, label_prefix, rows) else "rows" if as_rows(path, rows) else ""


def row_chunks(path, max_bytes, stdin=None, header=True, progress=None, label_column=None, text_column=None,
               label_sets=False, decode=True):
    """``(texts, labels)`` chunks of the rows of the TSV/CSV file ``path`` (``-``: ``stdin``),
    read as they come (:func:`textnb.io.corpus.iter_rows`: ``labels`` None without a label
    column); the rows are numbered from 1 in file order under the name ``input_name(path)``.
    ``header`` False (``--no-header``): the first row is a row, as train reads such a file.
    ``progress(done, total)``: the bytes read of the file's size (none for a pipe).
    ``label_column`` / ``text_column``: the columns (or JSON fields) by name or 1-based
    number, as ``train --label-column / --text-column`` names them (None: found by name);
    ``label_sets``: each row's labels a tuple, a multi-label model's (a JSON list's labels,
    a TSV/CSV label a set of one); ``decode``: the readers' guess (True) or a model's
    vectorizer's own ``(encoding, errors)``, with which a TSV/CSV file's lines are decoded
    (:func:`textnb.io.corpus.iter_rows`' ``codec``)."""
    from textnb.io.corpus import iter_rows, stdin_stream

    stream = None
    if path == "-":
        stream = stdin_stream(stdin)
    else:
        check_file(path)
    yield from iter_rows(input_name(path), stream=stream, max_bytes=max_bytes, header=header, progress=progress,
                         label_column=label_column, text_column=text_column, label_sets=label_sets,
                         codec=None if decode is True else decode)


#: the most lines a list of :func:`line_chunks` holds (those of
#: :func:`textnb.io.fasttext.line_documents`)
LINES_A_LIST = 1000


def line_chunks(source, label_prefix, max_bytes, with_labels=False, stdin=None, progress=None, decode=True):
    """The documents of ``source`` (a path, or ``-``: ``stdin``), one per line, in lists
    (:func:`textnb.io.fasttext.line_documents`; lines cut at ``max_bytes`` bytes, the words
    of ``label_prefix`` left out); ``with_labels``: ``(texts, labels)`` pairs of lists.
    ``progress(done, total)``: the bytes read of the file's size (none for a pipe). A pipe's
    or a terminal's list is given as soon as its next line has not come
    (:class:`~textnb.io.files.PipeReader`: ``predict --lines -`` behind ``tail -f``), when
    ``label_prefix`` is given (as predict gives it: the lines are then read alike in lists of
    any length). ``decode``: the readers' guess (True) or a model's vectorizer's own
    ``(encoding, errors)`` (:func:`textnb.text.tokenize.model_decoding`), as
    :func:`document_batches` reads a document."""
    from textnb.io.corpus import open_input, read_progress, stdin_stream
    from textnb.io.fasttext import line_documents
    from textnb.io.files import PipeReader

    name = input_name(source)
    codec = None if decode is True else decode
    if source == "-":
        stream, close = stdin_stream(stdin), False
    else:  # (a pipe or a FIFO is read as it comes; one that no process writes to is refused, not waited for)
        check_file(source)
        stream, close = open_input(source), True
    try:
        pipe = PipeReader.of(stream) if label_prefix is not None else None
        if pipe is not None:  # (each line read as it comes, then listed: lists of any length read alike)
            lines = line_documents(pipe, max_bytes=max_bytes, label_prefix=label_prefix, name=name,
                                   with_labels=with_labels, size=1, codec=codec)
            yield from _as_they_come(lines, pipe.line_ready, with_labels)
            return
        chunks = line_documents(stream, max_bytes=max_bytes, label_prefix=label_prefix, name=name,
                                with_labels=with_labels, size=LINES_A_LIST, codec=codec)
        yield from chunks if progress is None else read_progress(chunks, stream, progress)
    except OSError as exc:  # (a read that fails: named, as every reader names its input)
        raise InputError(f"{name}: cannot read ({exc.strerror or exc})") from None
    finally:
        if close:
            stream.close()


def _as_they_come(lines, ready, with_labels):
    """Lists of at most :data:`LINES_A_LIST` of ``lines`` (lists of one line each: texts, or
    ``(texts, labels)`` pairs of lists with ``with_labels``), each given once it is full or
    ``ready()`` says the next line has not come."""
    texts, labels = [], []
    for line in lines:
        if with_labels:
            texts += line[0]
            labels += line[1]
        else:
            texts += line
        if len(texts) >= LINES_A_LIST or not ready():
            yield (texts, labels) if with_labels else texts
            texts, labels = [], []
    if texts:
        yield (texts, labels) if with_labels else texts


def document_batches(paths, max_bytes, on_binary, tick=None, size=1000, stdin=None, decode=True):
    """``(sources, texts)`` batches of at most ``size`` documents (and about
    :data:`~textnb.io.files.BATCH_BYTES` of text) of the files, folders and
    ``-`` (``stdin``) of ``paths`` (a batch spans paths); a binary file is left out with
    ``on_binary(source, reason)`` called; ``tick()`` after each document read when given;
    ``decode``: the guess (True) or a model's vectorizer's own ``(encoding, errors)``
    (:func:`textnb.io.corpus.input_documents`).
    An mbox file (named, in a folder, or in a pipe named, read as it comes; ``-`` is one
    document) is split into its messages as ``topicfilter`` and ``spamfilter --batch`` split
    it (:func:`textnb.io.mailread.file_messages`: ``FILE:N`` each, its first ``max_bytes``,
    a file of one message ``FILE``), each read as a document; an empty one is left out
    with ``on_binary(source, "empty message")``."""
    from textnb.io.corpus import input_documents
    from textnb.io.files import source_batches
    from textnb.io.mailread import split_messages

    def split(source, data, pipe):
        return split_messages(source, data, max_bytes, pipe)

    def readable():
        for src, text, reason in input_documents(paths, max_bytes=max_bytes, stdin=stdin, decode=decode,
                                                 split=split):
            if tick is not None:
                tick()
            if text is None:
                on_binary(src, reason)
                continue
            yield src, text

    return source_batches(readable(), size, len)
