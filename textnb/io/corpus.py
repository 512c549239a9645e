"""Reading labelled corpora as streams of documents.

Layouts
-------
* a folder with one sub-folder per class, ``corpus/<label>/<files>`` (the layout of
  20 Newsgroups and of scikit-learn's ``load_files``); files below a class folder are
  found recursively, hidden files and folders are skipped, symbolic links to folders
  are not followed (so a link loop cannot trap the reader), and FIFOs, sockets and
  devices are skipped (reading one could block forever or never end); a symbolic-link
  loop is skipped and counted (:attr:`Corpus.skipped`); a broken symbolic link is
  listed and reported as unreadable when it is read;
* the same, split: ``corpus/train/<label>/...`` and ``corpus/test/<label>/...``;
* a TSV or CSV file with a label column and a text column: with a header naming them
  (``label``/``class``/``category``/``target`` and ``text``/``message``/``document``/
  ``body``/``content``), or chosen with ``label_column`` / ``text_column``; a file
  without a header of exactly two columns is read as ``label<TAB>text`` (the SMS Spam
  Collection's layout).

Decoding policy
---------------
Files are read as bytes. A document with a NUL byte in its first 8 KiB is *binary*:
it is skipped and counted. Otherwise it is decoded as UTF-8 (a BOM is dropped); if
that fails, as Windows-1252; if that fails too, as Latin-1, which maps every byte, so
decoding never fails and never loses a document. At most ``max_bytes`` (default
16 MiB, :data:`MAX_DOCUMENT_BYTES`; ``--max-bytes`` on the command line) of a file are
read: a longer document is truncated there, so one huge file (a 1 GB log, say) costs
at most ``max_bytes`` of input and never exhausts memory. A TSV/CSV corpus file is read
whole (it holds many documents), but a binary one is refused after its first 8 KiB.

Nothing here reads the whole corpus at once: listing a folder yields ``(path, label)``
pairs, and the text of a file is read only when it is needed (in a worker process
when training is parallel).
"""

import contextvars
import csv
import io
import itertools
import os
import re
import stat
import warnings
from array import array
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path

from textnb.core.errors import (STDIN_NAME, DataWarning, InputError, ModelGivenAsData, NotATextCorpus, RowError, check_input,
                                 counted, empty_input, input_name, missing_input, missing_reason, short_repr)
from textnb.io.files import (BOM, DEFAULT_LABEL_PREFIX, MAILBOX_STARTS, MAILDIR_PARTS, PipeReader, Prefixed, cut_text, decode_cut, document_head, file_identity, first_bytes, folder_files,
                             is_maildir, is_named_pipe, noting_empty_folder, open_regular_binary, read_regular_file, refuse_device,
                             read_rest, spill_input, spill_stream, SpilledInput)
from textnb.io.jsonlines import (JSON_LINES_EXTENSIONS, check_json_cells, head_of, is_json_lines, is_listed,
                                json_fields, json_head, json_rows, label_set, line_cap)
from textnb.io.numbers import is_number

__all__ = [
    "JSON_EXTENSIONS",
    "json_refusal",
    "read_word_list",
    "RowTexts",
    "spilled_pipe",
    "check_unchanged",
    "MAX_DOCUMENT_BYTES",
    "model_max_bytes",
    "table_label",
    "Corpus",
    "decode_bytes",
    "document_size",
    "text_bytes",
    "TEXT_SHORTER_BY",
    "decode_lines",
    "read_text_file",
    "open_input",
    "stdin_stream",
    "read_piped",
    "document_text",
    "checked_rows",
    "CsvReader",
    "row_width_error",
    "delimiter_of",
    "DELIMITERS",
    "documents_in_several_classes",
    "iter_rows",
    "read_progress",
    "read_rows",
    "is_binary",
    "wide_encoding",
    "binary_message",
    "binary_refusal",
    "skipped_reason",
    "binary_document",
    "open_corpus",
    "read_bytes",
    "read_document",
    "iter_input_documents",
    "input_documents",
    "input_file_count",
    "to_text",
    "to_tokenizable",
    "MessageStream",
    "Messages",
    "Skipped",
    "gather_documents",
    "document_texts",
    "OneMessage",
    "mbox_documents",
    "table_format_by_name",
]

MAX_DOCUMENT_BYTES = 16 * 1024 * 1024
_SNIFF = 8192
_LABEL_NAMES = ("label", "class", "category", "target", "labels", "y")
_TEXT_NAMES = ("text", "message", "document", "body", "content", "sms", "doc")


#: the names of CSV / TSV tables (``.arff``: ARFF); a table file named otherwise is read by
#: its content (:func:`table_format_by_name`), as a text corpus is whatever its name
CSV_EXTENSIONS = (".csv", ".tsv", ".tab", ".txt")

#: spreadsheet, binary and compressed formats a table is not read from: a file named so is
#: refused by its name, one line saying what to do (export or unpack it), not parsed as text
NOT_TEXT_TABLE_EXTENSIONS = frozenset({
    ".xls", ".xlsx", ".xlsm", ".xlsb", ".ods", ".numbers", ".parquet", ".feather", ".arrow", ".orc", ".avro",
    ".sav", ".dta", ".sas7bdat", ".xpt", ".rds", ".rdata", ".h5", ".hdf5", ".mat", ".npy", ".npz", ".pkl",
    ".pickle", ".db", ".sqlite", ".gz", ".bz2", ".xz", ".zst", ".zip", ".7z", ".tar"})


#: Names of JSON files: JSON Lines (:mod:`textnb.io.jsonlines`) is read as a text corpus; a
#: JSON array is refused (:func:`json_refusal`), and so is any JSON as a table.
JSON_EXTENSIONS = (".json",) + JSON_LINES_EXTENSIONS


def json_refusal(path, head=None, *, table=False):
    """The one-line InputError for a JSON file that textnb does not read, or None: as a
    corpus (``table`` False) a JSON array (named ``.json``, or whose first bytes ``head`` are
    one), which textnb reads as JSON Lines (one object a line: :mod:`textnb.io.jsonlines`);
    as a table (``table``) any JSON file (named ``.json``, ``.jsonl`` or ``.ndjson``, or
    whose first bytes are an array or a line holding an object), whose attributes are read
    from ARFF or CSV. Read as CSV, such a file failed on a quote or a row's width ("row has
    2 cells, expected 3"), many lines in, or was taken for a table. None for anything else."""
    name = os.fspath(path)
    lines = name.lower().endswith(JSON_LINES_EXTENSIONS) or (head is not None and is_json_lines(name, head))
    if not lines:
        start = b"" if head is None else head.removeprefix(BOM).lstrip(b" \t\r\n")
        array = start[:1] == b"[" and start[1:].lstrip()[:1] in (b"{", b"[", b'"', b"]")
        if not (array or name.lower().endswith(JSON_EXTENSIONS)):
            return None
    elif not table:
        return None
    if table:
        how = "lines=True" if lines else "orient='records'"
        return InputError(f"{name}: JSON{' Lines' if lines else ''}, which textnb reads as a text corpus (a label and "
                          f"a text field{'' if lines else ', one object a line'}), not as a table (ARFF, CSV or TSV): "
                          f"convert it, e.g. pandas.read_json({name!r}, {how}).to_csv('data.csv', index=False)")
    return InputError(f"{name}: JSON that is not JSON Lines (one object a line, a label and a text field: what "
                      f"textnb reads as a corpus): convert it, e.g. pandas.read_json({name!r}, orient='records')"
                      f".to_json('data.jsonl', orient='records', lines=True)")


def table_format_by_name(path):
    """What the name of the table file ``path`` says: ``"arff"`` (``.arff``), ``"csv"``
    (``.csv``, ``.tsv``, ``.tab``, ``.txt``), ``None`` for any other name (``data``,
    ``data.dat``, ``iris.data``: read by its content); InputError for a spreadsheet, binary
    or compressed format (:data:`NOT_TEXT_TABLE_EXTENSIONS`: ``.xls``, ``.parquet``, ``.gz``)."""
    lower = os.fspath(path).lower()
    if lower.endswith(".arff"):
        return "arff"
    if lower.endswith(CSV_EXTENSIONS):
        return "csv"
    ext = os.path.splitext(os.path.basename(lower))[1]
    if ext in NOT_TEXT_TABLE_EXTENSIONS:
        raise InputError(f"{path}: unknown table format {ext!r} (a spreadsheet, binary or compressed file; "
                         f"tables are ARFF, CSV or TSV text: export or unpack it to .arff, .csv or .tsv)")
    return None


def is_binary(data):
    """True when ``data`` (bytes) looks binary: a NUL byte in its first 8 KiB."""
    return b"\x00" in data[:_SNIFF]


def wide_encoding(data):
    """``"UTF-16"`` or ``"UTF-32"`` when ``data`` (bytes, a file's start) is text in one of
    them (its byte-order mark, or ASCII letters with NUL bytes between them), else None:
    such a file is not read (its NUL bytes make it binary to this reader), and saying
    so names the fix."""
    head = bytes(data[:64])
    if head.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        return "UTF-32"
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "UTF-16"
    even, odd = head[0::2], head[1::2]
    if len(head) >= 8 and (set(odd) == {0} and even.isascii() and 0 not in even
                           or set(even) == {0} and odd.isascii() and 0 not in odd):
        return "UTF-16"
    return None


def skipped_reason(path):
    """Why the document file ``path`` that reads as binary is skipped: ``"binary file"``,
    or ``"UTF-16 text (convert it to UTF-8)"`` (:func:`wide_encoding`); for a symbolic link
    that cannot be followed (a loop), why (:func:`~textnb.core.errors.missing_reason`)."""
    if os.path.islink(path) and not os.path.exists(path):
        return missing_reason(path, "file")
    try:
        return _binary_reason(read_regular_file(path, 64))
    except InputError:
        return _binary_reason(b"")


def _binary_reason(data):
    """Why a document whose bytes start with ``data`` is skipped (:func:`skipped_reason`)."""
    wide = wide_encoding(bytes(data[:64]))
    if wide is None and _model_file(data):  # (a model given as a document: said so, as binary_message says it)
        return "a textnb model file"
    return "binary file" if wide is None else f"{wide} text (convert it to UTF-8)"


def _model_file(data):
    """Whether the binary ``data`` starts a textnb model file
    (:func:`textnb.core.model_io.looks_like_model`: imported on this error path only)."""
    from textnb.core.model_io import looks_like_model

    return looks_like_model(data)


def binary_message(path, data, what):
    """The one line for a file given as ``what`` (e.g. "a TSV/CSV corpus") that looks
    binary (:func:`is_binary`): a UTF-16 / UTF-32 text is called so, with the fix."""
    path = input_name(path)  # (standard input: stdin)
    wide = wide_encoding(data)
    if wide is None and _model_file(data):  # (its first bytes: nothing loaded)
        return f"{path}: a textnb model file, not {what}"
    if wide is not None:
        return (f"{path}: {wide} text; textnb reads UTF-8, Windows-1252 or Latin-1: convert it first "
                f"(iconv -f {wide} -t UTF-8)")
    return f"{path}: binary file, not {what}"


def binary_refusal(path, data, what):
    """The InputError of :func:`binary_message`: a :class:`~textnb.core.errors.ModelGivenAsData`
    for a textnb model file (``looks_like_model``), so the command line can say how to use it."""
    message = binary_message(path, data, what)
    if _model_file(data):
        return ModelGivenAsData(message, input_name(path))
    return InputError(message)


def binary_document(doc):
    """The one InputError for a document given to the library (a :class:`~pathlib.Path` or
    bytes) that reads as binary (:func:`to_tokenizable` None), as :func:`binary_message` says
    it of a file: a path named, bytes shown by their start (at most 80 characters: one line,
    whatever their size), a UTF-16 / UTF-32 text called so, with the fix."""
    if isinstance(doc, Path):
        try:
            data = read_regular_file(doc, _SNIFF)
        except InputError:
            data = b""
        return binary_refusal(os.fspath(doc), data, "a text document")
    return binary_refusal(short_repr(bytes(doc[:100])), bytes(doc[:_SNIFF]), "a text document")


def decode_bytes(data, cut=False, max_bytes=None, codec=None):
    """Decode document bytes: UTF-8, else Windows-1252, else Latin-1 (never fails); or with
    ``codec``, the ``(encoding, errors)`` of a Vectorizer given its own
    (:func:`textnb.text.tokenize.reader_decoding`), which may raise UnicodeDecodeError as
    ``bytes.decode`` does.

    ``cut``: ``data`` was cut at a byte limit (``--max-bytes``), which may split the last
    UTF-8 character: that character is left out, and the rest read as the UTF-8 it is
    (not the whole text as Windows-1252 for one broken character at the cut).

    ``max_bytes``: ``data`` is a document's first ``max_bytes`` bytes, and its text is cut
    at ``max_bytes`` UTF-8 bytes (:func:`textnb.io.files.cut_text`): a document's size is
    its text's UTF-8 bytes whatever holds it (a file, a row, a line, a str), and a
    Windows-1252 or Latin-1 text is longer in UTF-8 than in its file (found by a user
    trial: ``--max-bytes 14`` kept 14 characters of a Latin-1 file and 14 bytes of the same
    text as a TSV row, and ``predict`` cut the file's text again, where the row was cut; and
    a Vectorizer's own Latin-1 likewise).
    """
    if codec is not None:
        encoding, errors = codec
        text = decode_cut(data, encoding, cut, errors)
        return text if max_bytes is None else cut_text(text, max_bytes)
    try:  # (UTF-8 less a leading byte-order mark: "utf-8-sig", without its codec's Python-level call)
        return decode_cut(data[3:] if data[:3] == BOM else data, "utf-8", cut)
    except UnicodeDecodeError:
        pass
    try:
        text = data.decode("cp1252")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return text if max_bytes is None else cut_text(text, max_bytes)


def decode_lines(data):
    """The text of ``data``, the bytes of a file of lines (a TSV/CSV corpus or table, an ARFF
    file): each line decoded as a document is (:func:`decode_bytes`: UTF-8, else Windows-1252,
    else Latin-1), so one Windows-1252 line leaves the UTF-8 lines as they are."""
    try:
        return data.decode("utf-8-sig")  # (each line valid UTF-8: the same text)
    except UnicodeDecodeError:
        return "".join(decode_bytes(line) for line in data.splitlines(keepends=True))


def model_max_bytes(model, max_bytes=None):
    """Bytes read at most of a document that ``model`` classifies: ``max_bytes`` when given
    (``--max-bytes``), else where the model's training cut a document (``train --max-bytes``:
    a ``TextClassifier``'s ``max_bytes``, or what
    :func:`textnb.core.wrapping.store_max_bytes` kept in a multi-label model's vectorizer),
    else :data:`MAX_DOCUMENT_BYTES`. The one rule of ``textnb predict``, ``textnb test``,
    ``textnb serve``, ``topicfilter``, ``spamfilter`` (a plain text model's messages) and
    :mod:`textnb.fasttext`, so a document is cut at one place whichever reads it."""
    from textnb.core.wrapping import stored_max_bytes

    return max_bytes or getattr(model, "max_bytes", None) or stored_max_bytes(model) or MAX_DOCUMENT_BYTES


def read_bytes(path, max_bytes=MAX_DOCUMENT_BYTES):
    """The first ``max_bytes`` bytes of the regular file at ``path``
    (:func:`textnb.io.files.read_regular_file`), a UTF-8 byte-order mark besides when it starts
    with one (:func:`textnb.io.files.document_head`: not text).

    Raises InputError (one line naming the file) when it cannot be read.
    """
    return document_head(read_regular_file(path, _head_read(max_bytes)), max_bytes)[0]


def _head_read(max_bytes):
    """The bytes to read of a document for :func:`textnb.io.files.document_head` of
    ``max_bytes`` (None: all): ``max_bytes`` and a byte-order mark's 3."""
    return None if max_bytes is None else max_bytes + len(BOM)


MAX_LIST_BYTES = 64 * 1024 * 1024


def read_small_text(path, *, what="file", max_bytes=MAX_LIST_BYTES):
    """The UTF-8 text of a small side file (a stop-word list, a label file, a network
    structure), read safely; a leading UTF-8 byte-order mark (Windows editors write one) is
    dropped, so the first word, id or JSON brace is read as written.

    A regular file is opened without blocking and checked with ``fstat`` on the open
    descriptor, so a socket or a device other than a pipe (or a link to one) is refused
    before anything is read, and the file read is the one checked. A pipe (``-``, standard
    input; ``/dev/stdin`` fed by a pipe; ``<(...)``; a FIFO) is read by the one pipe reader
    (:func:`_read_stream`, as a PATH given so is), once: inside :func:`read_once` (a command
    of the command line) a second read of it gets the same text. At most ``max_bytes``
    (:data:`MAX_LIST_BYTES`, 64 MiB) are accepted. Every problem is one
    :class:`~textnb.core.errors.InputError` line naming the file (``-``:
    :func:`~textnb.core.errors.input_name`) and ``what`` it is.
    """
    path = os.fspath(path)
    name = input_name(path)
    if path == STDIN or _special_kind(path) == "pipe":  # (a terminal, /dev/zero and the like: refused)
        data = _read_piped_once(path, max_bytes + 1)
    else:
        if not os.path.exists(path):  # (as every named input that is not there: 'no such stop-word file')
            raise missing_input(path, what)
        try:
            data = read_regular_file(path, max_bytes + 1, what=what)
        except InputError:
            if _special_kind(path) == "device":  # (a pipe is read: the message says what is refused)
                raise InputError(f"{name}: {what} is a device or socket, not a regular file or a pipe") from None
            raise
    if len(data) > max_bytes:  # read one byte past the limit to know
        raise InputError(f"{name}: {what} is larger than {max_bytes} bytes")
    try:
        return data.decode("utf-8-sig")  # (a byte-order mark dropped, as every reader of user files drops it)
    except UnicodeDecodeError:
        raise InputError(f"{name}: {what} is not UTF-8") from None


def _special_kind(path):
    """``"pipe"`` for a pipe (``/dev/stdin`` fed by one, ``<(...)``, a FIFO), ``"device"``
    for a device or socket (or a link to one), else None (a regular file, a folder, nothing)."""
    import stat

    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    if stat.S_ISFIFO(mode):
        return "pipe"
    return "device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISSOCK(mode) else None


#: the pipes read so far in this :func:`read_once` scope: {path: bytes}; None outside one
_PIPES_READ = contextvars.ContextVar("textnb_pipes_read", default=None)


@contextmanager
def read_once():
    """A scope (one command of the command line) in which a pipe given as a side file
    (:func:`read_small_text`: ``--stop-words -``, ``--labels /dev/stdin``, a FIFO) is read
    once, whatever the number of times its text is asked for (the options are read where
    the model is built, and a command may build it more than once); the text is forgotten
    at the end of the scope."""
    token = _PIPES_READ.set({})
    try:
        yield
    finally:
        _PIPES_READ.reset(token)


def _read_piped_once(path, limit):
    """The bytes of the pipe ``path`` (its first ``limit``), read by :func:`_read_stream`,
    or those read before in this :func:`read_once` scope."""
    seen = _PIPES_READ.get()
    if seen is not None and path in seen:
        return seen[path]
    data = _read_stream(path, limit)
    if seen is not None:
        seen[path] = data
    return data


def read_word_list(path, *, what="word list", max_bytes=MAX_LIST_BYTES):
    """The distinct non-blank lines of a small UTF-8 file (a stop-word list), sorted,
    read by :func:`read_small_text` (regular files only, at most ``max_bytes``)."""
    text = read_small_text(path, what=what, max_bytes=max_bytes)
    return sorted({w.strip() for w in text.replace("\r", "\n").split("\n") if w.strip()})


def read_document(path, max_bytes=MAX_DOCUMENT_BYTES):
    """Text of the file at ``path``, or None when it is binary.

    Raises InputError (one line naming the file) when it cannot be read.
    """
    return document_text(read_bytes(path, max_bytes), max_bytes)


def document_text(data, max_bytes=MAX_DOCUMENT_BYTES, decode=True):
    """The text of a document given as bytes, as textnb reads a document file (``textnb
    train`` and ``predict``, :func:`read_document`; the filters for a model of plain
    documents): its first ``max_bytes`` bytes decoded by :func:`decode_bytes`, the text cut
    at ``max_bytes`` UTF-8 bytes, or None when they look binary (:func:`is_binary`). A leading
    UTF-8 byte-order mark is not counted (:func:`textnb.io.files.document_head`). ``decode``:
    True, the guess; a Vectorizer's own ``(encoding, errors)`` (:func:`to_tokenizable`)."""
    data, cut = document_head(data, max_bytes)
    if is_binary(data):
        return None
    return decode_bytes(data, cut, max_bytes, None if decode is True else decode)


def _hidden(name):
    return name.startswith(".")


def _unlistable(folder, message):
    """A folder that cannot be listed is an error naming it (a class folder the user
    cannot read must not silently vanish from the corpus)."""
    raise InputError(message)


def _walk_files(folder, loops=None):
    """The regular files below ``folder``, in ``os.walk``'s order, as
    :func:`textnb.io.files.folder_files` lists them (hidden names, FIFOs, sockets,
    devices and links to folders left out; a broken link listed, reading it reports it).
    A link that loops can never be read and is left out, its path appended to ``loops``
    when given. Raises InputError naming a folder that cannot be listed.
    """
    return [path for path, _ in _walk_pairs(folder, loops)]


def _walk_pairs(folder, loops=None, unlistable=None):
    """:func:`_walk_files`' files as ``(path, whole)`` pairs, as the walk goes: a Maildir
    (``folder`` itself or a folder below it) is read as the mail reader reads one, the
    files of its ``new`` and ``cur`` (:data:`~textnb.io.files.MAILDIR_PARTS`; not ``tmp``,
    whose messages are being delivered), each one message (``whole`` True: never split as
    an mbox). Only folders are stat'ed to tell a Maildir: no file is opened at listing.
    A folder that cannot be listed raises InputError naming it (a class folder must not
    vanish from a corpus), or, ``unlistable`` a list, is left out and appended to it as
    ``(folder, message)`` when met, before the walk's next file is yielded (``predict``
    reports it and reads on: :func:`input_documents`)."""
    on_loop = loops.append if loops is not None else (lambda path: None)
    on_unlistable = _unlistable if unlistable is None else (lambda path, message: unlistable.append((path, message)))

    def maildir(top):
        for part in MAILDIR_PARTS:
            for path, _ in folder_files(os.path.join(top, part), on_unlistable=on_unlistable, on_loop=on_loop,
                                        subfolder=lambda sub: ()):
                yield path, True

    if is_maildir(folder):
        return maildir(folder)
    return folder_files(folder, on_unlistable=on_unlistable, on_loop=on_loop,
                        subfolder=lambda sub: maildir(sub) if is_maildir(sub) else None)


def _walk_reported(folder, loops):
    """:func:`_walk_pairs` of ``folder`` as ``(path, reason, whole)`` triples, as the walk
    goes: a file listed (``reason`` None), or a folder that cannot be listed, left out
    (``reason``: ``"cannot list folder (<why>)"``), where the walk met it; then the links
    that loop (appended to ``loops``; ``reason`` None, ``whole`` True), known once the walk
    is done. What ``predict`` reads of a folder: every file listed is read, every folder
    left out said so (:func:`input_documents`)."""
    unlisted = []

    def left_out():
        while unlisted:
            path, message = unlisted.pop(0)
            name = f"{path}: "
            yield path, message[len(name):] if message.startswith(name) else message, False

    for f, whole in _walk_pairs(folder, loops, unlisted):
        yield from left_out()
        yield f, None, whole
    yield from left_out()


@dataclass
class Corpus:
    """A labelled corpus: parallel lists of documents and labels, read lazily.

    ``documents`` holds :class:`pathlib.Path` objects (files read when needed) or
    ``str`` texts (rows of a TSV/CSV file).
    """

    source: str
    documents: list
    labels: list
    test: "Corpus | None" = None
    #: paths left out when the folder was listed: symbolic-link loops (never readable)
    skipped: list = field(default_factory=list)
    #: lines of a fastText file left out because they carry no label
    unlabeled: int = 0

    def __len__(self):
        return len(self.documents)

    def class_counts(self):
        counts = {}
        for label in self.labels:
            counts[label] = counts.get(label, 0) + 1
        return dict(sorted(counts.items()))


def open_corpus(path, *, label_column=None, text_column=None, max_bytes=MAX_DOCUMENT_BYTES, test=True,
                stream=False, header_table=True, data=None, header=True, progress=None):
    """List a corpus at ``path`` (folder, split folder, TSV or CSV file).

    Returns a :class:`Corpus`; for a split folder its ``test`` attribute holds the
    test part. Raises InputError for an empty corpus, a missing path, a class folder
    that cannot be listed or a table without recognisable label and text columns.
    In a TSV/CSV file a field may be of any length (beyond the ``csv`` module's
    131,072-character limit); a text field longer than ``max_bytes`` bytes (UTF-8) is cut
    there, as a document file is (:func:`textnb.io.files.cut_text`). A quoted CSV field that is never closed is an error
    (not a field that swallows the rows after it). ``test=False`` does not list a split
    folder's test part (training needs only the training part). ``stream=True``: the
    documents of a TSV/CSV file larger than :data:`STREAM_ROWS_BYTES` are a :class:`RowTexts`,
    read from the file again each time they are iterated (training, one pass: memory does not
    grow with the file), its labels read by a first pass; else a list. ``header_table``: a first row that looks like
    a header without label and text columns (:func:`_header_like`, any delimiter) makes the
    file a table (:class:`~textnb.core.errors.NotATextCorpus`); False: the file is known to
    be a text corpus (the test file of a text model) and that row is skipped as its header.
    ``data`` (bytes): the content of ``path`` when it was read already (a pipe,
    :func:`read_piped`; ``path`` then only names it). ``header`` False (``--no-header``): a
    TSV/CSV file has no header row, its first row a document: a text corpus only as
    headerless ``label<TAB>text`` (no column named, no first row taken for a header), else
    :class:`~textnb.core.errors.NotATextCorpus` (a table's). ``progress(done, total)``: the
    bytes of a TSV/CSV or JSON Lines file read, of its size, as they are read (the pass that
    reads its labels: seconds for a file of hundreds of megabytes; :func:`iter_rows`).
    """
    path = os.fspath(path)
    if data is None:  # (data given: ``path`` only names it, ``-`` say)
        check_input(path)
    if data is None and os.path.isdir(path):
        subdirs = _class_folders(path)
        names = {os.path.basename(d) for d in subdirs}
        if "train" in names and _class_folders(os.path.join(path, "train")):
            test_dir = os.path.join(path, "test")
            _warn_split_leftovers(path, names, test_dir if test else None)
            train = _open_folder(os.path.join(path, "train"))
            if test and os.path.isdir(test_dir) and _class_folders(test_dir):
                train.test = _open_folder(test_dir)
            train.source = path
            return train
        return _open_folder(path)
    return _open_table(path, label_column=label_column, text_column=text_column, max_bytes=max_bytes, stream=stream,
                       header_table=header_table, data=data, header=header, progress=progress)


def _warn_split_leftovers(path, names, test_dir):
    """A DataWarning naming what a folder read as split into ``train/`` and ``test/`` parts
    leaves unread: its other folders (``names``: all of them; a class named ``train`` that
    holds subfolders, beside the other classes, made the whole corpus that class's subfolders,
    without a word), and a ``test/`` (``test_dir``, when the test part is wanted) that holds
    no class folders."""
    others = sorted(n for n in names if n not in ("train", "test"))
    if others:
        many = len(others) > 1
        shown = ", ".join(map(repr, others[:5])) + (f" and {len(others) - 5} more" if len(others) > 5 else "")
        warnings.warn(f"{path}: read as a split corpus (train/ holds class folders, so its subfolders are the "
                      f"classes); the folder{'s' if many else ''} {shown} beside train/ {'are' if many else 'is'} "
                      f"not read (a split corpus reads train/ and test/ only; a class named 'train' must hold its "
                      f"documents, not folders of them)", DataWarning, stacklevel=3)
    if test_dir is not None and os.path.isdir(test_dir) and not _class_folders(test_dir):
        warnings.warn(f"{path}: test/ holds no class folders (expected {test_dir}/<label>/<files>); it is not "
                      f"read as the test part", DataWarning, stacklevel=3)


def _class_folders(path, warn_hidden=False):
    """The class folders (or ``train`` / ``test`` parts) of the folder ``path``, sorted by
    name: its subfolders, a symbolic link to a folder among them (a class linked in from
    elsewhere is a class; inside a class folder, links to folders are not descended, as
    ``os.walk`` does not). ``warn_hidden``: a DataWarning names the hidden subfolders (a
    leading dot) left out, tools' own folders aside (a class ``.net`` was left out without
    a word)."""
    try:
        entries = sorted(os.scandir(path), key=lambda e: e.name)
    except OSError as exc:
        raise InputError(f"{path}: cannot list folder ({exc.strerror or exc})") from None
    if warn_hidden:
        hidden = [e.name for e in entries if _hidden(e.name) and e.name not in _TOOL_FOLDERS and _is_folder(e)]
        if hidden:
            many = len(hidden) > 1
            warnings.warn(f"{path}: hidden folder{'s' if many else ''} {', '.join(map(repr, hidden))} not read "
                          f"as {'classes' if many else 'a class'} (a name starting with a dot is hidden; "
                          f"rename it to read it)", DataWarning, stacklevel=3)
    return [e.path for e in entries if not _hidden(e.name) and _is_folder(e)]


def _mbox_files_hint(path):
    """What to do with a folder of mbox files and no class folders (``spam.mbox``,
    ``ham.mbox``: a class per file), for the refusal of :func:`_open_folder`; '' otherwise.
    A file is an mbox file by :func:`to_tokenizable`'s rule (its first 5 bytes ``From ``;
    this module does not import the mail reader, which imports it): only those of the
    first 20 files are read."""
    try:
        with os.scandir(path) as it:
            files = sorted(e.name for e in it if not _hidden(e.name) and e.is_file())[:20]
    except OSError:
        return ""
    boxes = []
    for name in files:
        try:
            if read_regular_file(os.path.join(path, name), 5) == b"From ":
                boxes.append(name)
        except InputError:
            continue
    if not boxes:
        return ""
    first = boxes[0]
    stem = first.rsplit(".", 1)[0] if "." in first[1:] else first
    return (f"; {path} holds mbox files ({', '.join(boxes[:3])}{', ...' if len(boxes) > 3 else ''}): put each in a "
            f"folder named by its class ({os.path.join(path, stem, first)}), each message a document of it "
            f"(a spam filter: spamfilter --train-spam FILE --train-ham FILE)")


def _is_folder(entry):
    try:
        return entry.is_dir()  # (follows a link; a broken or looping one is no folder)
    except OSError:
        return False


#: hidden folders of tools (version control, notebooks) that no one means as a class
_TOOL_FOLDERS = frozenset({".git", ".svn", ".hg", ".ipynb_checkpoints", ".cache", ".venv", ".idea", ".vscode"})


def _child_path(base):
    """A function of a file name (no separator) giving the Path ``base / name``: the same
    Path, built without parsing ``name`` again where pathlib offers that
    (``_make_child_relpath``, the way ``Path.iterdir`` builds its paths: a quarter of the
    CPU time of ``/`` for each of a large corpus's files), else ``base / name``."""
    child = getattr(base, "_make_child_relpath", None)
    if child is None or child("a") != base / "a":
        return base.__truediv__
    return child


class OneMessage(type(Path())):
    """The path of a file that is one message whatever its first line (a Maildir's, as
    :func:`textnb.io.mailread.message_files` lists it): never split as an mbox
    (:func:`to_tokenizable` with ``split``). Told when the folder is listed, by the
    folder's name: no file is opened."""

    __slots__ = ()


def _open_folder(path):
    folders = _class_folders(path, warn_hidden=True)
    if not folders:
        raise InputError(f"{path}: no class folders (expected {path}/<label>/<files>){_mbox_files_hint(path)}")
    documents, labels, loops, empty = [], [], [], []
    for folder in folders:
        label = folder_label(folder)
        base, prefix = Path(folder), folder + os.sep
        child = _child_path(base)
        before = len(documents)
        for f, whole in _walk_pairs(folder, loops):
            if whole:  # a Maildir's file: one message, never split as an mbox (io.mailread.message_files)
                documents.append(OneMessage(f))
                labels.append(label)
                continue
            rest = f[len(prefix):] if f.startswith(prefix) else None
            documents.append(Path(f) if rest is None else child(rest) if os.sep not in rest else base / rest)
            labels.append(label)
        if len(documents) == before:
            empty.append(label)
    if not documents:
        raise InputError(f"{path}: empty corpus (the class folders hold no files)")
    if empty:  # (a class folder whose files are all binary is an error: check_binary_classes)
        many = len(empty) > 1
        warnings.warn(f"{path}: class folder{'s' if many else ''} {', '.join(map(repr, empty))} "
                      f"hold{'' if many else 's'} no files; not read as {'classes' if many else 'a class'} "
                      f"(no documents of {'them' if many else 'it'})", DataWarning, stacklevel=3)
    return Corpus(source=path, documents=documents, labels=labels, skipped=loops)


def _read_first(first, stream):
    """``read_first(n)`` for :func:`~textnb.io.jsonlines.json_head` of a stream whose first
    bytes ``first`` were read: the first ``n`` bytes, read on from ``stream`` as asked."""
    got = [first]

    def read_first(n):
        while len(got[0]) < n:
            more = stream.read(n - len(got[0]))
            if not more:
                break
            got[0] += more
        return got[0]

    return read_first


def corpus_columns(path, *, label_column=None, text_column=None, data=None):
    """``(header, used)`` of the TSV/CSV text corpus ``path``: its header row (empty for a
    headerless ``label<TAB>text`` file; a JSON Lines file's fields) and the names of the label and text columns
    :func:`open_corpus` reads (by ``label_column`` / ``text_column``, else by name);
    ``data``: the content already read (a pipe, :func:`read_piped`)."""
    head = head_of(path, data, 1 << 16)  # (a first line that starts like an object: read whole)
    if is_json_lines(path, head):
        header = json_fields(head)
    else:
        text = read_text_file(path, "a TSV/CSV corpus", data=head)  # (the header's lines)
        first = next((line for line in text.splitlines() if line.strip()), "")
        delimiter = delimiter_of(path, text)  # (the lines read: the one rule sees them as every reader does)
        quoting = csv_quoting(delimiter)
        header = next(CsvReader([first], delimiter=delimiter, quoting=quoting), [])
    li = _pick_column(header, label_column, _LABEL_NAMES, "label", path)
    ti = _pick_column(header, text_column, _TEXT_NAMES, "text", path)
    if li is None or ti is None:
        return [], []
    return header, [header[li], header[ti]]


def _pick_column(header, wanted, names, what, path):
    if wanted is not None:
        if isinstance(wanted, int) or (isinstance(wanted, str) and wanted.isdigit()):
            i = int(wanted) - 1
            if not 0 <= i < len(header):
                raise InputError(f"{path}: {what} column {wanted} out of range 1..{len(header)}")
            return i
        lowered = [h.strip().lower() for h in header]
        if wanted.lower() not in lowered:
            raise InputError(f"{path}: no {what} column {wanted!r} (columns: {', '.join(header)})")
        return lowered.index(wanted.lower())
    lowered = [h.strip().lower() for h in header]
    for n in names:
        if n in lowered:
            return lowered.index(n)
    return None


def row_width_error(path, line, cells, expected, *, at_least=False, hint="", row=None):
    """The one message for a row of a TSV/CSV file (a text corpus or a table) with the
    wrong number of cells: ``PATH:LINE: row has N cells, expected [at least] M`` (a
    :class:`~textnb.core.errors.RowError`; ``row``: its number among the data rows)."""
    s = "" if cells == 1 else "s"
    return RowError(path, line, f"row has {cells} cell{s}, expected {'at least ' if at_least else ''}{expected}{hint}",
                    row)


def csv_quoting(delimiter):
    """How a file of ``delimiter``-separated cells quotes them: a TSV file's not at all
    (``csv.QUOTE_NONE``: a cell holds no TAB nor line break, and a quote is text), any other
    (comma, and the semicolon or bar a table's delimiter may be) as RFC 4180 does
    (``csv.QUOTE_MINIMAL``): the one rule of the corpus and table readers (found by a user
    trial: the table reader quoted TSV cells, so the SMS collection, which a text corpus
    reads, was refused as a mixed table at its line 283)."""
    return csv.QUOTE_NONE if delimiter == "\t" else csv.QUOTE_MINIMAL


#: the csv module's field size limit while a :class:`CsvReader` reads a row (its own is 131,072 characters)
_FIELD_LIMIT = 2**31 - 1


class CsvReader:
    """A ``csv.reader(lines, **fmtparams)`` whose fields may be of any length: the csv
    module's field size limit (131,072 characters, module-wide) is raised while a row is
    read and put back after it, so a long cell (a document in a text column) is read
    whole and the limit of other code in the process is left as it was, whatever readers
    are open at once. The one way textnb reads delimited text (the text corpus and
    table readers, their headers, :func:`delimiter_of`); :attr:`line_num` is the
    reader's."""

    def __init__(self, lines, **fmtparams):
        self._reader = csv.reader(lines, **fmtparams)

    def __iter__(self):
        return self

    def __next__(self):
        old = csv.field_size_limit(max(csv.field_size_limit(), _FIELD_LIMIT))
        try:
            return next(self._reader)
        finally:
            csv.field_size_limit(old)

    @property
    def line_num(self):
        return self._reader.line_num


def checked_rows(path, reader, counted=None):
    """``(line, row)`` for the rows of a ``csv.reader``, ``line`` the number of the row's
    first line in the file (blank lines counted: the reader's ``line_num``, or ``counted``'s
    when its strings may hold several lines, :class:`_CountedLines`); a malformed row is
    one :class:`~textnb.core.errors.RowError` naming ``path:LINE``."""
    start = 1
    counted = reader if counted is None else counted
    try:
        for row in reader:
            yield start, row
            start = counted.line_num + 1
    except csv.Error as exc:
        msg = str(exc)
        if "unexpected end of data" in msg:
            msg = "a quoted field is never closed (unterminated '\"')"
        elif "new-line character seen in unquoted field" in msg:  # (the csv module's words)
            msg = ("a line ends with CR alone (classic Mac line ends), which this reader does not take for a "
                   "line end; convert the file's line ends to LF or CRLF")
        raise RowError(path, start, msg) from None


def _until_row_error(rows, errors):
    """The ``(line, row)`` pairs of ``rows`` up to a :class:`~textnb.core.errors.RowError`
    of its reader, which is appended to ``errors`` instead of raised: raised by the rows'
    reader (:func:`_table_chunks`) once the rows before it are taken, when the number of
    that row among the data rows is known."""
    try:
        yield from rows
    except RowError as exc:
        errors.append(exc)


def read_text_file(path, what, *, data=None, max_bytes=None):
    """The text of the file ``path`` (its first ``max_bytes`` bytes; None: all), or of ``data``
    (bytes or str: standard input, which ``path`` then only names), decoded line by line
    (:func:`decode_lines`): every file of rows (TSV/CSV corpora and tables, ARFF) is read so.
    A binary file is refused, as one InputError line saying it is not ``what`` (e.g. "a
    TSV/CSV file"; a UTF-16 one is called so, with the fix), after reading its first 8 KiB."""
    if data is None and _named_stream(path):  # a pipe (/dev/stdin, <(...), a FIFO with a writer): read once
        data = _read_stream(path, max_bytes, binary_what=what)
    elif isinstance(data, SpilledInput):  # (a pipe written to a file as it came: read whole, as a file)
        data = data[:max_bytes] if max_bytes is not None else bytes(data)
    if data is None:
        try:
            with open_regular_binary(path) as f:
                data = f.read(_SNIFF if max_bytes is None else min(_SNIFF, max_bytes))
                if is_binary(data):  # refused before the rest is read: a huge binary file costs 8 KiB
                    raise binary_refusal(path, data, what)
                data += f.read(-1 if max_bytes is None else max_bytes - len(data))
        except OSError as exc:
            raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if isinstance(data, (bytes, bytearray)):
        if is_binary(bytes(data[:_SNIFF])):
            raise binary_refusal(path, bytes(data[:_SNIFF]), what)
        data = decode_lines(bytes(data))
    return data


def read_piped(path, what="a corpus or a table", *, spill=False):
    """The bytes of ``path`` when it is a pipe, not a file: ``-`` (standard input),
    ``/dev/stdin`` fed by a pipe, a process substitution (``<(...)``), a FIFO; None for a regular file, a folder or a missing
    path (read by name, as often as needed). A pipe can be read once only, so a PATH given as
    one is read here, once and whole, and its content handed to the reader its format asks
    for (sniffed from the content: a pipe's name tells no format). A binary stream (a NUL
    byte in its first 8 KiB: ``/dev/zero``, say) is refused before more is read, as not
    ``what``.

    ``spill`` (training, whose corpus is streamed): a pipe over :data:`STREAM_ROWS_BYTES` is
    written to a temporary file as it comes, and its content is that file, a
    :class:`~textnb.io.files.SpilledInput` (read by slices as bytes are, its texts streamed
    from the file): ``cat big.tsv | textnb train -`` holds at most the bound of the pipe in
    memory, not the whole of it (the readers of a table read it whole, as they read a table
    file)."""
    path = os.fspath(path)
    refuse_device(path)
    if not _named_stream(path):
        return None
    if not spill:
        return _read_stream(path, binary_what=what)
    try:
        with _open_stream(path) as f:
            first = f.read(_SNIFF)
            if is_binary(first):
                raise binary_refusal(path, first, what)
            data = read_rest(f, first, STREAM_ROWS_BYTES + 1)
            return data if len(data) <= STREAM_ROWS_BYTES else spill_stream(data, f)
    except OSError as exc:
        raise InputError(f"{input_name(path)}: cannot read ({exc.strerror or exc})") from None


PIPE_WAIT = 5.0
"""Seconds a FIFO that no writer has opened is waited for (:func:`_read_stream`)."""


def _open_stream(path):
    """A binary file object reading the pipe or character device ``path``
    (:func:`_named_stream`). Opened without blocking, so a FIFO that no process writes to is
    not waited for without end: when nothing is there, its writer is waited for
    :data:`PIPE_WAIT` seconds, then it is refused (one InputError naming it). A pipe with a
    writer (``/dev/stdin``, ``<(...)``, a FIFO a process has opened) is then read as before,
    in blocking mode, as it comes."""
    import select
    import stat

    if os.fspath(path) == STDIN:
        return _open_stdin()
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        first = b""
        if stat.S_ISFIFO(os.fstat(fd).st_mode):
            try:
                first = os.read(fd, _SNIFF)
            except BlockingIOError:  # a writer, nothing written yet: it is waited for
                pass
            else:
                if not first:  # no writer has opened it (or one closed it empty)
                    poll = select.poll()
                    poll.register(fd, select.POLLIN | select.POLLHUP)
                    if not poll.poll(int(PIPE_WAIT * 1000)):
                        raise InputError(f"{path}: a FIFO that no process writes to (nothing came in "
                                         f"{PIPE_WAIT:g} s; start its writer first, or give a regular file)")
        os.set_blocking(fd, True)
        f = os.fdopen(fd, "rb")
    except OSError as exc:
        os.close(fd)
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except BaseException:
        os.close(fd)
        raise
    return io.BufferedReader(Prefixed(first, f, close=True)) if first else f


#: the PATH that names standard input (:func:`_named_stream`)
STDIN = "-"


def stdin_stream(stdin=None):
    """The stream standard input (``-``) is read from: ``stdin`` (default :data:`sys.stdin`)'s
    bytes (its ``buffer``), or ``stdin`` itself (a binary stream, or a text one without bytes
    under it). One InputError, ``stdin: standard input is closed``, when there is none
    (``<&-``: Python sets :data:`sys.stdin` to None) or it is closed: no reader of ``-`` then
    fails on None, or opens a file named like standard input."""
    import sys

    stdin = sys.stdin if stdin is None else stdin
    if stdin is None or getattr(stdin, "closed", False):
        raise InputError(f"{STDIN_NAME}: standard input is closed")
    return getattr(stdin, "buffer", stdin)


def open_input(path):
    """A binary file object reading the input ``path`` by name, as every reader of a PATH
    opens one: ``-`` is standard input (:func:`stdin_stream`, left open when it is closed),
    a pipe or device (``/dev/stdin``, ``<(...)``, a FIFO) is read as it comes, a FIFO that
    no process writes to refused after :data:`PIPE_WAIT` seconds (never a wait without end),
    else the regular file (:func:`~textnb.io.files.open_regular_binary`)."""
    return _open_stream(path) if _named_stream(path) else open_regular_binary(path)


def _open_stdin():
    """A binary file object reading standard input (``-``), which closing it leaves open:
    ``sys.stdin``'s bytes, or a text ``sys.stdin`` (one set in its place) read as UTF-8."""
    import sys

    stdin = sys.stdin
    stdin_stream(stdin)  # (refused when closed)
    stream = getattr(stdin, "buffer", None)
    if stream is None:  # a text stream without bytes under it (io.StringIO)
        return io.BytesIO(stdin.read().encode("utf-8", "surrogateescape"))
    return io.BufferedReader(Prefixed(b"", stream))


def _read_stream(path, limit=None, *, binary_what=None):
    """The bytes of the pipe or character device ``path`` (:func:`_open_stream`), its first
    ``limit`` (None: all). ``binary_what``: a binary stream is refused after its first
    8 KiB, as not that (:func:`binary_message`)."""
    try:
        with _open_stream(path) as f:
            if binary_what is None:
                return read_rest(f, b"", limit)
            first = f.read(_SNIFF if limit is None else min(_SNIFF, limit))
            if is_binary(first):
                raise binary_refusal(path, first, binary_what)
            return read_rest(f, first, limit)
    except OSError as exc:
        raise InputError(f"{input_name(path)}: cannot read ({exc.strerror or exc})") from None


def _open_table(path, *, label_column=None, text_column=None, max_bytes=MAX_DOCUMENT_BYTES, stream=False,
                header_table=True, data=None, header=True, progress=None):
    """The :class:`Corpus` of a TSV/CSV file, read by :func:`iter_rows` (line by line: each
    line decoded as a document is); ``stream``: its documents a :class:`RowTexts`;
    ``header_table``, ``data``, ``header``, ``progress``: as :func:`open_corpus`'s."""
    how = {"label_column": label_column, "text_column": text_column, "max_bytes": max_bytes,
           "header_table": header_table, "header": header}
    # a regular file over STREAM_ROWS_BYTES is read again for its texts; a smaller one is read
    # once, its documents kept; so is a pipe's content (``data``), unless it is over the bound
    # too: then it is written to a temporary file, read again as a file is (spill_input)
    identity = file_identity(path) if stream and data is None and os.path.isfile(path) \
        and os.path.getsize(path) > STREAM_ROWS_BYTES else None
    spilled = spilled_pipe(data, stream)
    if spilled is not None:
        identity = spilled.identity
    documents, labels = [], []
    sizes = None if identity is None else array("L")  # (streamed: each text's bytes, for the short-text rule)
    # (a pipe written to a file as it came is read from that file, as a corpus file is)
    rows = None if data is None else open(spilled.path, "rb") if data is spilled else io.BytesIO(data)
    with rows if rows is not None else nullcontext():
        for docs, labs in iter_rows(path, stream=rows, need_label=True, size=_STREAM_ROWS, progress=progress, **how):
            labels.extend(labs)
            if identity is None:
                documents.extend(docs)
            else:
                sizes.extend(text_bytes(d) for d in docs)
    if identity is not None:
        documents = RowTexts(path, len(labels), identity=identity, source=spilled, sizes=sizes, **how)
    return Corpus(source=path, documents=documents, labels=labels)


def spilled_pipe(data, stream):
    """The :class:`~textnb.io.files.SpilledInput` of a pipe's content ``data`` (bytes) that a
    reader of a corpus to be streamed (``stream``: training) reads again for its texts, as
    it does a corpus file over :data:`STREAM_ROWS_BYTES`, or None: ``data`` is kept (none,
    not bytes, not over the bound, or the temporary folder could not take it); ``data``
    itself when the pipe was written to a file as it came (:func:`read_piped`'s ``spill``).
    The one rule of the TSV/CSV and JSON Lines reader and the fastText one."""
    if isinstance(data, SpilledInput):
        return data
    if not stream or not isinstance(data, (bytes, bytearray)) or len(data) <= STREAM_ROWS_BYTES:
        return None
    return spill_input(data)


def check_unchanged(path, identity, what, name=None):
    """InputError when the file ``path`` is no longer the one of ``identity``
    (:func:`textnb.io.files.file_identity`): replaced, grown or rewritten between two passes
    (``name``: what the message calls it, when not ``path``)."""
    if file_identity(path) != identity:
        raise InputError(f"{path if name is None else name}: changed while it was read ({what})")


#: rows per list when a TSV/CSV corpus is read as a stream
_STREAM_ROWS = 2000
#: A TSV/CSV or JSON Lines corpus file larger than this is streamed for training (``stream``:
#: its texts a :class:`RowTexts`, read again from the file, in memory one list of rows at a
#: time); a smaller one is read once and its texts kept, as a pipe's content of this size or less
#: is (a larger one is written to a temporary file and streamed from it: :func:`spilled_pipe`): its texts in memory
#: (about the file's size for a Latin-1 text, up to four times for other scripts) cost less
#: than a second pass over its rows (20 Newsgroups' training part as a 22 MB CSV file: 2.60 ->
#: 2.02 s of CPU to train, peak RSS 268 -> 281 MB; docs/bench_text.md, session 40).
STREAM_ROWS_BYTES = 64 << 20


#: How many bytes a file's text may be shorter in UTF-8 than the file (:func:`text_bytes`'s
#: ``read_below``): a byte-order mark (3), and a UTF-8 character split at ``max_bytes`` (3).
TEXT_SHORTER_BY = 6


def text_bytes(doc, max_bytes=MAX_DOCUMENT_BYTES, read_below=None):
    """The size of a document: the UTF-8 bytes of its text as :func:`to_tokenizable` reads
    it (decoded, cut at ``max_bytes``), at most ``max_bytes``; one measure for a str, bytes,
    a file, a TSV/CSV/JSON Lines row and a fastText line, as the cut is one: what the default
    pipeline's rule for short texts measures (:func:`textnb.text.training.default_vectorizer`),
    the same number for a text and for its file (found by user trials: a str's characters,
    so a Cyrillic corpus got its bigrams from a TSV file and not from its folder; a file's
    bytes, so a folder of Latin-1 texts got them and the TSV of the same texts did not).

    A file is read for it (a binary one, or one that cannot be read: its size, as
    :func:`document_size` says it). ``read_below``: a file of at least ``read_below`` bytes
    (``os.stat``) is measured by its size, nothing read; its text is as long at least in
    UTF-8 (each byte of an ASCII or UTF-8 file is one byte of its text, of a Windows-1252
    one a character of 1 to 3), but for :data:`TEXT_SHORTER_BY` bytes."""
    if isinstance(doc, str):
        return min(len(doc) if doc.isascii() else len(doc.encode("utf-8", "surrogatepass")), max_bytes)
    size = document_size(doc, max_bytes)
    if isinstance(doc, (bytes, bytearray)) and doc[:max_bytes].isascii() \
            or isinstance(doc, Path) and read_below is not None and size >= read_below:
        return size
    try:
        text = to_text(doc, max_bytes) if isinstance(doc, (bytes, bytearray, Path)) else None
    except InputError:
        text = None
    return size if text is None else text_bytes(text, max_bytes)


class Rereadable:
    """What a corpus read again from its file each time it is iterated (:class:`RowTexts`,
    :class:`textnb.io.fasttext.LineTexts`) gives beside its documents."""

    def sizes_at(self, positions, max_bytes=MAX_DOCUMENT_BYTES):
        """The :func:`text_bytes` of the documents at ``positions`` (ascending): those the pass
        that read the labels measured (a TSV/CSV/JSON Lines file's), else read again from the
        file (a fastText file's, whose first pass reads the labels alone): the sizes :func:`textnb.text.training.default_vectorizer` looks at
        spread over the whole corpus, as over a list (found by a user trial: a fastText
        file named on the command line was decided on its first 1,000 lines, the same
        bytes from standard input on all of them)."""
        known = getattr(self, "_sizes", None)
        if known is not None and len(known) == len(self):  # (measured by the pass that read the labels:
            # a TSV of 342 MB read once more for them took 1.7 s)
            return [min(known[i], max_bytes) for i in positions]
        wanted, out = iter(positions), []
        at = next(wanted, None)
        for i, text in enumerate(self):
            if at is None:
                break
            while at is not None and at == i:
                out.append(text_bytes(text, max_bytes))
                at = next(wanted, None)
        return out


class RowTexts(Rereadable):
    """The texts of a TSV/CSV corpus file, in row order, read from the file each time
    they are iterated (:func:`iter_rows`, its warnings said once, by the pass that read
    the labels): a corpus as large as the disk, in memory one list of rows at a time.
    ``len()`` is the number of rows; a file whose rows changed in number meanwhile is an
    InputError. ``source``: the :class:`~textnb.io.files.SpilledInput` of a pipe's content,
    read instead of ``path``, which then only names it (kept while these texts are)."""

    def __init__(self, path, n, *, identity=None, source=None, label_column=None, text_column=None,
                 max_bytes=MAX_DOCUMENT_BYTES, header_table=True, header=True, sizes=None):
        self.path, self.n, self.source = os.fspath(path), n, source
        self._sizes = sizes  # (each text's bytes, read by the pass that read the labels: sizes_at)
        self._file = self.path if source is None else source.path
        self.identity = file_identity(self._file) if identity is None else identity
        self._how = {"label_column": label_column, "text_column": text_column, "max_bytes": max_bytes,
                     "header_table": header_table, "header": header}

    def __len__(self):
        return self.n

    def __iter__(self):
        seen = 0
        check_unchanged(self._file, self.identity, "its labels were read from another file", self.path)
        with (open_regular_binary(self._file) if self.source is not None else nullcontext()) as stream:
            chunks = iter_rows(self.path, stream=stream, need_label=True, size=_STREAM_ROWS, **self._how)
            while True:
                with warnings.catch_warnings():  # (each list read with them off, not the caller's work)
                    warnings.simplefilter("ignore", DataWarning)
                    chunk = next(chunks, None)
                if chunk is None:
                    break
                seen += len(chunk[0])
                if seen > self.n:
                    break
                yield from chunk[0]
        if seen != self.n:
            raise InputError(f"{self.path}: changed while it was read ({seen} rows, were {self.n})")
        check_unchanged(self._file, self.identity, "its rows were rewritten meanwhile", self.path)

    def __repr__(self):
        return f"RowTexts({self.path!r}, {self.n} rows)"


def read_rows(path, *, data=None, label_column=None, text_column=None, max_bytes=MAX_DOCUMENT_BYTES):
    """The documents of a TSV/CSV file read as rows, as :func:`open_corpus` reads them,
    for prediction: ``(documents, labels)``, ``labels`` None when the file has a header
    with a text column and no label column (a headerless file is ``label<TAB>text``);
    a row with an empty label has the label None (training refuses it).

    ``data`` (bytes or str) is the file's content when it does not come from ``path``
    (standard input: ``path`` then only names it in errors).
    """
    path = os.fspath(path)
    stream = None
    if data is not None:
        stream = io.BytesIO(data.encode("utf-8", "surrogateescape") if isinstance(data, str) else bytes(data))
    documents, labels = [], None
    for docs, labs in iter_rows(path, stream=stream, label_column=label_column, text_column=text_column,
                                max_bytes=max_bytes, size=_STREAM_ROWS):
        documents.extend(docs)
        if labs is not None:
            labels = (labels or []) + labs
    return documents, labels


def _header_like(head):
    """Whether the first of the ``(line, row)`` pairs ``head`` of a two-column CSV or TSV file
    (one rule for every delimiter) is a header: its second cell is a name (one word: a
    document's text after its label seldom is, ``spam<TAB>win cash now``), its first cell is
    never a first cell of the rows below, and those repeat (a
    headerless corpus's first label comes back, as every label of a corpus does), or are
    all numbers where it is not (``x,play`` above ``1,yes``), or are all different while
    the second cells repeat (a table's attribute and class: ``x,cls`` above ``1_000,a``,
    ``?,b``, ``3,a``; a corpus's texts seldom repeat, its labels do). A first cell whose labels
    (split at commas: ``spam,ham``, a list a corpus's row may hold) are all labels of the rows
    below, whole or in such a list, is a label too: ``ham<TAB>hello`` above ``spam,ham<TAB>x``,
    or ``spam,ham<TAB>x`` above ``spam`` and ``ham`` rows, begins a corpus."""
    first, cells = head[0][1][0].strip(), [r[0].strip() for _, r in head[1:]]
    if len(cells) < 2 or first in cells or not _name_like(head[0][1][1:]):
        return False
    below = {part.strip() for cell in cells for part in cell.split(",")}
    if {part.strip() for part in first.split(",")} <= below:
        return False
    second = [r[1].strip() for _, r in head[1:] if len(r) > 1]
    return (len(set(cells)) < len(cells) or (all(map(is_number, cells)) and not is_number(first))
            or (len(set(cells)) == len(cells) and len(set(second)) < len(second)))


def _name_like(rest):
    """Whether the cells ``rest`` after a row's first are one column name: a single cell of
    one word of at most 64 characters."""
    return len(rest) == 1 and 0 < len(rest[0].strip()) <= 64 and len(rest[0].split()) == 1


def _same_columns(head):
    """Whether every row of ``head`` (at least two) has the same number of cells, more than
    two: a table's rows, as a CSV's are (a TSV corpus's text after the label may hold TABs,
    but not the same number in every document)."""
    widths = {len(r) for _, r in head}
    return len(head) >= 2 and len(widths) == 1 and widths.pop() > 2


#: The cell delimiters of a CSV file, in the order :func:`delimiter_of` tries them on its first
#: line, and their names: a comma; a semicolon, as spreadsheets write CSV where the decimal mark
#: is a comma; a bar.
DELIMITERS = {",": "comma", ";": "semicolon", "|": "bar"}


def delimiter_of(path, head):
    """The cell delimiter of the TSV/CSV file ``path`` whose text starts with ``head`` (str:
    its first line or more; its first line that is not blank is looked at): a TAB for a
    ``.tsv`` / ``.tab`` file or a first line that holds one; else the first of
    :data:`DELIMITERS` that cuts the first line into cells as the csv module reads it (a
    quoted cell may hold it), a comma when none does; when several do, the one that cuts the
    first lines into as many cells each, of several the one met first in the first line. The one rule of the text corpus reader
    and the table reader: a ``label;text`` file was not a corpus to the first (a comma or a
    TAB only), and a table to the second (its delimiter sniffed), its texts the classes."""
    lines = [line for line in head.splitlines() if line.strip()]
    first_line = lines[0] if lines else ""
    if path.lower().endswith((".tsv", ".tab")) or "\t" in first_line:
        return "\t"
    cuts = [d for d in DELIMITERS if _cells(first_line, d) > 1]
    if len(cuts) < 2:
        return cuts[0] if cuts else ","
    # several cut the first line (a headerless label;text row whose text holds a comma: found by a user
    # trial, its classes were 'ham;see you at noon'): the one that cuts the first lines alike, of several
    # the one met first in the first line (a label before its text)
    whole = lines[:_DELIMITER_LINES] if head.endswith(("\n", "\r")) or len(lines) < 2 \
        else lines[:-1][:_DELIMITER_LINES]  # (the head's last line may be cut short)
    alike = [d for d in cuts if len({_cells(line, d) for line in whole}) == 1]
    return min(alike or cuts, key=first_line.find)


#: lines of a file's start whose cells tell its delimiter apart (:func:`delimiter_of`)
_DELIMITER_LINES = 10


def _cells(line, delimiter):
    """How many cells ``delimiter`` cuts ``line`` into, as the csv module reads it (0: it cannot)."""
    try:
        return len(next(CsvReader([line], delimiter=delimiter), []))
    except csv.Error:
        return 0


def _row_layout(path, head, delimiter, label_column, text_column, need_label, header_table, header, label_sets):
    """``(header, li, ti, skip)`` of a TSV/CSV or JSON Lines file whose first non-blank
    ``(line, row)`` pairs are ``head``: its header (or first row), the label and text
    columns' indices (``li`` None: no label column) and the rows of ``head`` that are no
    documents (1: a header); the rules and arguments of :func:`_table_chunks`."""
    json_lines = delimiter is None
    first_row_is_data = not header and not json_lines
    header = head[0][1]
    li = None if first_row_is_data else _pick_column(header, label_column, _LABEL_NAMES, "label", path)
    ti = None if first_row_is_data else _pick_column(header, text_column, _TEXT_NAMES, "text", path)
    if li is not None and ti is not None:
        skip = 1
        others = [h for k, h in enumerate(header) if k not in (li, ti) and h.strip()]
        if need_label and others and label_column is None and text_column is None:
            table = "" if json_lines else " (--class NAME reads the file as a table)"
            warnings.warn(f"{path}: read as a {'multi-label' if label_sets else 'text'} corpus of its "
                          f"{'fields' if json_lines else 'columns'} "
                          f"{header[li]!r} (label) and {header[ti]!r} (text); {', '.join(map(repr, others))} not "
                          f"read{table}", DataWarning, stacklevel=3)
    elif not need_label and ti is not None and label_column is None:
        skip = 1  # a header with a text column and no labels: prediction input
    elif json_lines:
        fields = f"its fields are {', '.join(map(repr, header))}"
        missing = "label and a text field" if need_label and li is None else "text field"  # (only what is missing:
        # found by a user trial, 'without a label and a text field' of a file with a 'label' field)
        how = (f"name {'them' if need_label and li is None else 'it'} with "
               f"{'--label-column and ' if need_label and li is None else ''}--text-column" if need_label else
               f"a text field is one named {', '.join(_TEXT_NAMES)}, or name it with --text-column")
        table = (f"; a table (attributes, no text) is read from CSV: convert it, e.g. pandas.read_json({path!r}, "
                 "lines=True).to_csv('data.csv', index=False)") if need_label else ""
        raise InputError(f"{path}: JSON Lines without a {missing} ({fields}): {how}{table}")
    elif li is None and ti is None and label_column is None and text_column is None and all(
        len(r) == 2 or (delimiter == "\t" and len(r) > 2) for _, r in (head if need_label else head[:1])
    ) and not (need_label and _same_columns(head)):
        # headerless label<TAB>text (prediction: its documents are a text model's, so a
        # short row further down is that row's error, not a sign of another layout)
        li, ti, skip = 0, 1, 0
        header = [header[0], "\t".join(header[1:])] if delimiter == "\t" else header  # (the text: all after the label)
        if not first_row_is_data and _header_like(head):
            if need_label and header_table:  # a table's header (README: a CSV/TSV file with a header is a table)
                raise NotATextCorpus(f"{path}: its first row ({', '.join(header)}) is a header without label and "
                                     "text columns: read as a table")
            skip = 1  # prediction, or a text model's test file: the header is not a document
    else:
        # training takes --label-column / --text-column; prediction reads the header only
        # (prediction: the text column alone will do; a file of plain lines is --lines's input)
        names = ("(label, text) or pass --label-column / --text-column" if need_label else
                 "(text; label too for an accuracy) or pass --text-column, or read one document per line with "
                 "--lines FILE")
        raise NotATextCorpus(f"{path}: cannot find the label and text columns; name them in a header {names}")
    return header, li, ti, skip


def _table_chunks(path, rows, delimiter, label_column, text_column, max_bytes, need_label=True, size=None,
                  header_table=True, header=True, label_sets=False, ready=None):
    """``(documents, labels)`` of the rows of a TSV/CSV corpus (``(line, row)`` pairs of
    :func:`checked_rows`), in lists of at most ``size`` documents (None: one list);
    ``labels`` None when the file has no label column. The layout is decided on the
    first 50 non-blank rows. A row with too few cells is an error naming its line; so is
    one with more cells than the header's in a CSV file, where text holding a comma is
    quoted (TSV has no quoting: TABs after the last column, the text, belong to it). A first
    row that looks like a header (:func:`_header_like`, CSV or TSV alike) makes a training
    file a table (``header_table``, NotATextCorpus); otherwise it is skipped. ``header`` False:
    the file has no header row (``--no-header``): headerless ``label<TAB>text``, every row a
    document, or NotATextCorpus. ``delimiter`` None: the rows of a JSON Lines file
    (:func:`textnb.io.jsonlines.json_rows`), whose first row is always its fields' names and
    whose label and text cells are checked to be strings or numbers; ``label_sets``: its
    labels are each row's label set (:func:`textnb.io.jsonlines.label_set`), a multi-label
    corpus's. ``ready()``: whether the next row's line has come; when not, the list is given
    at once (a pipe's that stalls: :meth:`~textnb.io.files.PipeReader.line_ready`), not before
    the layout's rows are all in it."""
    json_lines = delimiter is None
    errors = []  # a row its reader could not read: raised once the rows before it are taken (its row number known)
    rows = ((n, r) for n, r in _until_row_error(rows, errors) if r and any(c.strip() for c in r))
    head = list(itertools.islice(rows, 50))
    if not head:
        raise errors[0] if errors else InputError(empty_input(path))
    try:
        header, li, ti, skip = _row_layout(path, head, delimiter, label_column, text_column, need_label, header_table,
                                           header, label_sets)
    except InputError:
        if errors:  # (a row among the first 50 could not be read: that is said, not the layout of the rows above it)
            raise errors[0] from None
        raise
    documents, labels, done = [], [], 0  # (done: the documents of the lists given already)
    listed = []  # (line, label) of the labels holding a comma: a label list? (training: one warning)
    last = ti if li is None else max(li, ti)
    width = len(header) if delimiter in DELIMITERS else None  # (a headerless CSV file: rows of 2)
    ahead = len(head) - skip  # (rows read already, for the layout: given together)
    for n, row in itertools.chain(head[skip:], rows):
        number = done + len(documents) + 1  # (the row's number among the data rows: predict's PATH:ROW)
        if len(row) <= last:
            raise row_width_error(path, n, len(row), last + 1, at_least=True, row=number)
        if width is not None and len(row) > width:
            raise row_width_error(path, n, len(row), width, hint=f" (quote a text that holds a {DELIMITERS[delimiter]})",
                                  row=number)
        if json_lines:
            check_json_cells(path, n, header, row, (li, ti) if need_label and not label_sets else (ti,), number)
            if not need_label and not label_sets and li is not None and is_listed(row[li]):
                row[li] = ""  # (prediction: a label list is a multi-label corpus's, not counted in an accuracy)
        if label_sets and li is None:
            label = None
        elif label_sets and not json_lines:  # (prediction of a multi-label model: a TSV/CSV row's label, a set of one)
            label = table_label(row[li].strip())
            label = (label,) if label else ()
        elif label_sets:  # (a multi-label JSON Lines corpus: each row's label set)
            label = label_set(row[li])
            if label is None:
                raise RowError(path, n, f"field {header[li]!r} holds a JSON object or a list of lists, not a label "
                                        f"or a list of labels", number)
        else:
            label = table_label(row[li].strip()) if li is not None else None
            if li is not None and not label:
                if need_label:
                    raise RowError(path, n, "empty label", number)
                label = None  # prediction: the row is classified, and left out of the accuracy
            if need_label and "," in label:
                listed.append((n, label))
        if delimiter == "\t" and ti == len(header) - 1:
            doc = "\t".join(row[ti:])  # a TAB inside the last (text) column
        else:
            doc = row[ti]
        documents.append(cut_text(doc, max_bytes))
        labels.append(label)
        ahead -= 1
        if size is not None and (len(documents) >= size or (ready is not None and ahead <= 0 and not ready())):
            yield documents, (labels if li is not None else None)
            done += len(documents)
            documents, labels = [], []
    if errors:  # (the row its reader could not read: the rows before it taken)
        errors[0].row = done + len(documents) + 1
        raise errors[0]
    if not documents and not done:
        raise InputError(f"{path}: empty corpus (header only)")
    if listed:
        _warn_label_lists(path, listed)
    if documents:
        yield documents, (labels if li is not None else None)


def folder_label(folder):
    """The label of the class folder ``folder``: its name without surrounding white space, the
    one rule of every container (a TSV/CSV/JSON Lines label cell, a label file's and a JSON
    list's labels are read so: :func:`table_label`, :func:`textnb.io.jsonlines.label_set`), so
    that a corpus as class folders and as rows trains the same classes (a folder ``"spam "``
    made a class the rows' ``spam`` never matched: accuracy 0). A name of white space alone is
    no label: InputError naming the folder."""
    # (the name's bytes read as UTF-8, as a file's text is: the locale's file-system encoding, Latin-1 say,
    # made another class of the same folder, a session-52 hunt; in a UTF-8 locale the name as listed)
    label = os.fsencode(os.path.basename(folder)).decode("utf-8", "surrogateescape").strip()
    if not label:
        raise InputError(f"{folder}: a class folder whose name is blank (no label to learn; rename it)")
    return label


def table_label(label):
    """A label of a TSV/CSV corpus's label column (its cell without surrounding white space, as
    every container's label: :func:`folder_label`) as it is learnt and compared: without fastText's
    label prefix ``__label__`` when it starts with it (``__label__spam`` is ``spam``), as a fastText
    file's label word is read (:func:`textnb.io.fasttext.parse_line`). The one rule of every read
    path, so that the same corpus as a TSV file and as a fastText file trains the same classes and
    scores the same (a model trained on the TSV file predicted ``__label__spam`` where the fastText
    file's true label was ``spam``: accuracy 0). The prefix alone is an empty label."""
    return label[len(DEFAULT_LABEL_PREFIX):] if label.startswith(DEFAULT_LABEL_PREFIX) else label


def _warn_label_lists(path, listed):
    """One DataWarning for the rows of a TSV/CSV corpus read single-label whose label holds
    a comma (``spam,ham``: a list of labels, as a multi-label label file writes them?),
    naming the first row's line: each such label is read as one class of that name, as a
    folder corpus's document in several class folders is read once per folder
    (``textnb.cli.options.warn_multilabel``)."""
    (line, label), n = listed[0], len(listed)
    others = f" and {counted(n - 1, 'other row')}" if n > 1 else ""
    warnings.warn(f"{path}:{line}: the label {label!r} holds a comma (a list of labels?){others}: read as one "
                  f"class of that name; for several labels per document use --multilabel (one folder per label), "
                  f"--labels FILE, or a fastText file ('__label__a __label__b text')", DataWarning, stacklevel=3)


#: the fewest bytes of a TSV/CSV field :func:`iter_rows` keeps (a label is never cut)
_MIN_FIELD_CAP = 1 << 16

#: bytes :func:`_capped_fields` looks ahead at once inside a quoted field
_PEEK = 1 << 16

# the states of :class:`_FieldCap` (the csv module's, for one field at a time)
_START, _FIELD, _QUOTED, _QUOTE_SEEN = range(4)


def _capped_fields(raw, cap, delimiter=b"\t", quote=None):
    """The lines of the binary stream ``raw`` (a TSV file: ``delimiter`` TAB, no quoting; a
    CSV file: ``delimiter`` b",", b";" or b"|", ``quote`` b'"', as the csv module reads it), each field cut
    at ``cap`` bytes (the start of the UTF-8 character there): a row of any length is read
    a block at a time, and memory holds its fields' first ``cap`` bytes, not the whole line
    (a 200 MB row took 1.6 GB whatever ``--max-bytes``). The one rule of both delimiters;
    in a CSV file a quoted field may span lines (its line ends are its text), and is cut at
    ``cap`` bytes of its text however many lines it spans. Every line is yielded (an empty
    one where all its bytes were past the cut), so a row's line number stays the file's
    (:class:`_CountedLines` counts them), whole lines inside a quoted field that hold no
    quote and fit under the cap together, as one piece, found in the read-ahead by one
    search for the next quote (a mail's body in one CSV cell is hundreds of them: one
    read, one decoding and one look of the csv module for them all; ``raw`` is an
    ``io.BufferedReader``). ``cap`` is above ``max_bytes``, so every document, cut at
    ``max_bytes`` UTF-8 bytes, is the same as from the whole row. A line within ``cap``
    bytes with no quote (and not inside a quoted field) is yielded as read."""
    scan = _FieldCap(cap, delimiter, quote)
    readline, peek, read = raw.readline, raw.peek, raw.read
    whole_row = scan.record.fullmatch if quote is not None else None
    line = readline(cap)
    while line:
        # (the test of :meth:`_FieldCap.plain`, written out: it runs for every line)
        if scan.state == _START and (len(line) < cap or line.endswith(b"\n")) and (
                whole_row is None or quote not in line or whole_row(line) is not None):
            yield line
            line = readline(cap)
            continue
        if scan.state == _QUOTED and line.endswith(b"\n") and quote not in line and scan.kept + len(line) <= cap:
            run = [line]  # (whole lines of a quoted field's text, under the cap: kept as feed keeps them)
            scan.kept += len(line)
            while True:  # and the whole lines the read-ahead holds before its next quote
                block = peek(_PEEK)
                stop = block.find(quote)
                end = block.rfind(b"\n", 0, len(block) if stop < 0 else stop) + 1
                if not end or scan.kept + end > cap:
                    break
                run.append(read(end))
                scan.kept += end
            yield b"".join(run)
            line = readline(cap)
            continue
        while True:
            scan.feed(line)
            if line.endswith(b"\n"):
                break
            line = readline(cap)
            if not line:
                break
        yield scan.take()
        line = readline(cap)


#: the escape character the csv module is given to read a CR inside a line as text (:func:`_cr_as_text`)
_ESCAPE = "\\"


def _mac_line_ends(head):
    """Whether ``head``, the first line of a TSV/CSV file as :func:`_capped_fields` gives it,
    is the whole file without an LF and holds a CR before its end: a file of CR-only line
    ends (classic Mac), which the reader refuses (:func:`checked_rows`), as the lines
    reader does (:func:`textnb.io.fasttext._lf_ended`)."""
    return not head.endswith("\n") and "\r" in head.rstrip("\r\n")


def _cr_as_text(piece):
    """The line (or lines) ``piece`` of a file whose lines end with LF or CRLF, written for
    a ``csv.reader`` of escape character :data:`_ESCAPE`: a CR before the line ends (a
    stray CR inside a cell) escaped, so it is read as text, as the lines reader reads it
    (the csv module refuses it: "new-line character seen in unquoted field"), and the
    escape character doubled, so it is read as itself."""
    if _ESCAPE in piece:
        piece = piece.replace(_ESCAPE, _ESCAPE * 2)
    if "\r" in piece:
        body = piece.rstrip("\r\n")
        if "\r" in body:
            piece = body.replace("\r", _ESCAPE + "\r") + piece[len(body):]
    return piece


class _CountedLines:
    """The text of :func:`_capped_fields`' pieces, each decoded as its lines are
    (:func:`decode_bytes`, line by line when a piece of several lines is not all UTF-8, or
    holds a byte-order mark), and :attr:`line_num`, the file's lines given so far: the
    ``csv.reader``'s own count is of pieces, several lines of a quoted field being one."""

    def __init__(self, pieces, codec=None, path=None):
        self.pieces, self.line_num = pieces, 0
        self.codec, self.path = codec, path  # (a model's own encoding: every line decoded with it)

    def __iter__(self):
        return self

    def __next__(self):
        raw = next(self.pieces)
        lines = raw.count(b"\n")
        self.line_num += lines or 1
        if self.codec is not None:
            try:
                return decode_bytes(raw, codec=self.codec)
            except UnicodeDecodeError as exc:
                raise InputError(f"{self.path}:{self.line_num - (lines or 1) + 1}: "
                                 f"{undecodable_reason(exc, self.codec)}") from None
        if lines < 2:
            return decode_bytes(raw)
        if BOM not in raw:
            try:
                return raw.decode("utf-8")  # (every line valid UTF-8: each decoded alone gives the same)
            except UnicodeDecodeError:
                pass
        return "\n".join(map(decode_bytes, raw.split(b"\n")))


class _FieldCap:
    """The state of :func:`_capped_fields` across the blocks and lines it reads: where the
    scan is in a row (a field's start, inside a field, inside a quoted field, after a quote
    in one), how many bytes of the current field are kept, and the bytes kept of the line
    being read."""

    def __init__(self, cap, delimiter, quote):
        self.cap, self.quote = cap, quote
        ends = re.escape(delimiter) + (b"\r\n" if quote is not None else b"\n")
        self.field_end = re.compile(b"[" + ends + b"]")
        self.record = None
        if quote is not None:  # a row on one line: quoted fields ("" inside) and unquoted ones, then its end
            d, q = re.escape(delimiter), re.escape(quote)
            field = (b"(?:" + q + b"[^" + q + b"]*(?:" + q + q + b"[^" + q + b"]*)*" + q + b"|[^" + d + q + b"\r\n][^"
                     + d + b"\r\n]*|)")
            self.record = re.compile(field + b"(?:" + d + field + b")*\r?\n?")
        self.state, self.kept, self.out, self.start = _START, 0, bytearray(), 0

    def plain(self, line):
        """Whether the whole line ``line`` (within the cap) needs no cut: it starts a row,
        outside a quoted field, and ends it (no quote in it, or a CSV row of well-formed
        fields): its fields are shorter than the line."""
        return self.state == _START and (self.quote is None or self.quote not in line
                                         or self.record.fullmatch(line) is not None)

    def take(self):
        """The bytes kept of the line fed since the last call."""
        if self.state == _QUOTE_SEEN:  # (the file ends after a quote)
            self.out += self.quote
            self.state = _FIELD
        out, self.out, self.start = bytes(self.out), bytearray(), 0
        return out

    def _text(self, data, doubled=False):
        """Keep what of the field's text ``data`` fits under the cap (``doubled``: a doubled
        quote, one byte of text kept whole or not at all)."""
        if not data or self.kept > self.cap:  # (a field cut already: its text is dropped)
            return
        room, size = self.cap - self.kept, 1 if doubled else len(data)
        if size <= room:
            self.out += data
            self.kept += size
            return
        if not doubled:
            self.out += data[:room]
        cut = _utf8_start(self.out[self.start:])  # (never a character split at the cut)
        del self.out[self.start + len(cut):]
        self.kept = self.cap + 1

    def _begin(self):
        self.start, self.kept = len(self.out), 0

    def feed(self, data):
        """Scan the bytes ``data`` (a block of a line, or a whole line)."""
        i, n, q = 0, len(data), self.quote
        while i < n:
            if self.state == _START:
                if q is not None and data[i] == q[0]:
                    self.out += q
                    self.state = _QUOTED
                    i += 1
                else:
                    self.state = _FIELD
                self._begin()
            elif self.state == _FIELD:
                m = self.field_end.search(data, i)
                j = n if m is None else m.start()
                self._text(data[i:j])
                if m is not None:  # a delimiter or a line end: the next field starts
                    self.out += data[j:j + 1]
                    self.state = _START
                    j += 1
                i = j
            elif self.state == _QUOTED:
                j = data.find(q, i)
                self._text(data[i:n if j < 0 else j])
                if j < 0:
                    break
                self.state = _QUOTE_SEEN  # (a quote doubled, or the field's end)
                i = j + 1
            else:  # _QUOTE_SEEN
                if data[i] == q[0]:  # a doubled quote: one character of text, two bytes kept together
                    self._text(q + q, doubled=True)
                    self.state = _QUOTED
                    i += 1
                else:  # the closing quote: what follows is the delimiter or a line end, else the csv
                    self.out += q  # module's error there (so kept: counted afresh)
                    self.state = _FIELD
                    self.start, self.kept = len(self.out), 0


def _utf8_start(data):
    """``data`` without a UTF-8 character its end cuts in two (``data``: a field cut at a byte
    count; other bytes, Windows-1252 ones, lose at most 3 bytes, a cut field's tail)."""
    i = len(data) - 1
    while i > 0 and len(data) - i < 4 and data[i] & 0xC0 == 0x80:  # (continuation bytes)
        i -= 1
    lead = data[i] if data else 0
    width = 2 if 0xC0 <= lead < 0xE0 else 3 if 0xE0 <= lead < 0xF0 else 4 if 0xF0 <= lead < 0xF8 else 1
    return bytes(data[:i] if len(data) - i < width else data)


def iter_rows(path, *, stream=None, label_column=None, text_column=None, max_bytes=MAX_DOCUMENT_BYTES, size=1000,
              need_label=False, header_table=True, header=True, label_sets=False, progress=None, codec=None):
    """:func:`read_rows` as it reads: ``(documents, labels)`` in lists of at most ``size``
    rows, the file (or the binary ``stream``, e.g. standard input; ``path`` then only
    names it) read as they are needed, so memory holds one list whatever the input's
    size. Each line is decoded as a document is (UTF-8, else Windows-1252, else
    Latin-1); the layout is decided on the first 50 rows, as :func:`read_rows` decides
    it; a field may be of any length. Errors as :func:`read_rows`'s. ``need_label``: the
    rules of a training corpus (:func:`open_corpus`: every row labelled); ``header_table``,
    ``header``: as :func:`open_corpus`'s; ``label_sets``: a multi-label JSON Lines corpus,
    each row's labels a tuple (:func:`textnb.io.jsonlines.label_set`; in prediction, without
    ``need_label``, a TSV/CSV row's label too, a tuple of one). ``progress(done,
    total)``: called with the bytes read and the input's size before each list is given,
    when its size is known (a file, bytes in memory; not a pipe): the number of rows is
    known only at the end. A pipe's or a terminal's list is given as soon as its next line
    has not come (:class:`~textnb.io.files.PipeReader`), once the rows its layout is decided
    on are read: what is read is answered while the input stalls, the rows and their order
    the same. ``codec``: the ``(encoding, errors)`` of a model whose vectorizer decodes its
    documents with its own (:func:`textnb.text.tokenize.model_decoding`): a TSV/CSV file's
    lines are decoded with it, as that model's document files are (a line it does not decode:
    InputError naming ``path:LINE``); a JSON Lines file's texts are JSON strings, decoded as
    JSON is, whatever the model."""
    path = os.fspath(path)
    close = stream is None
    if stream is None:
        stream = open_input(path)
    if progress is not None:
        chunks = iter_rows(path, stream=stream, label_column=label_column, text_column=text_column,
                           max_bytes=max_bytes, size=size, need_label=need_label, header_table=header_table,
                           header=header, label_sets=label_sets, codec=codec)
        try:
            yield from read_progress(chunks, stream, progress)
        finally:
            if close:
                stream.close()
        return
    try:
        pipe = PipeReader.of(stream)  # (a pipe, a terminal: a list handed over when its next line has not come)
        # (a first line that starts like an object: read whole, :func:`textnb.io.jsonlines.json_head`)
        if pipe is not None:
            first, raw_lines, ready = json_head(pipe.head(_SNIFF), pipe.head), pipe, pipe.line_ready
        else:
            first, ready = stream.read(_SNIFF), None
            first = json_head(first, _read_first(first, stream))
            raw_lines = io.BufferedReader(Prefixed(first, stream), buffer_size=_PEEK)
        if is_binary(first):
            raise binary_refusal(path, first, f"a TSV/CSV {'corpus' if need_label else 'file'}")
        if is_json_lines(path, first):  # (one object a line: its fields the header)
            rows = json_rows(path, raw_lines, line_cap(max_bytes), decode_bytes)
            yield from _table_chunks(path, rows, None, label_column, text_column, max_bytes, need_label=need_label,
                                     size=size, header_table=header_table, label_sets=label_sets, ready=ready)
            return
        if label_sets and need_label:
            raise InputError(f"{path}: not JSON Lines: a multi-label corpus in one file is a fastText or JSON Lines file")
        refused = json_refusal(path, first)
        if refused is not None:
            raise refused
        delimiter = delimiter_of(path, first.decode("latin-1"))  # (its ASCII bytes where they are)
        cap = max(max_bytes + 8, _MIN_FIELD_CAP)
        if delimiter == "\t":  # TSV: a row is a line
            raw_lines = _capped_fields(raw_lines, cap)
        else:  # CSV: a quoted field may hold the delimiter and line ends
            raw_lines = _capped_fields(raw_lines, cap, delimiter.encode(), b'"')
        lines = _CountedLines(raw_lines, codec, path)
        head = next(lines, "")
        quoting = csv_quoting(delimiter)
        pieces, escape = itertools.chain([head], lines), {}
        if not _mac_line_ends(head):  # (a file of CR-only line ends: the csv module's error says it, checked_rows)
            pieces, escape = map(_cr_as_text, pieces), {"escapechar": _ESCAPE}
        reader = CsvReader(pieces, delimiter=delimiter, quoting=quoting, strict=True, **escape)
        yield from _table_chunks(path, checked_rows(path, reader, lines), delimiter, label_column, text_column, max_bytes,
                                 need_label=need_label, size=size, header_table=header_table, header=header,
                                 label_sets=label_sets, ready=ready)
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None
    finally:
        if close:
            stream.close()


def read_progress(chunks, stream, progress):
    """The items of ``chunks``, read from ``stream``, each after ``progress(bytes read,
    size)`` (the position of ``stream``: its read-ahead counted) when the size of ``stream``
    is known: a regular file's, or bytes in memory. A pipe's is not: no call. The progress of
    a file whose number of rows or lines is unknown until its end (:func:`iter_rows`,
    :func:`textnb.io.sources.line_chunks`)."""
    try:
        info = os.fstat(stream.fileno())
        size = info.st_size if stat.S_ISREG(info.st_mode) else None
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        size = stream.getbuffer().nbytes if isinstance(stream, io.BytesIO) else None
    for chunk in chunks:
        if size is not None:
            progress(min(stream.tell(), size), size)
        yield chunk


def documents_in_several_classes(corpus, limit=1000):
    """How many documents of a folder corpus are in several class folders: the same
    path under two or more ``<label>/`` folders with the same bytes (the layout of a
    multi-label corpus, which single-label training would count once per folder).
    At most ``limit`` candidate paths are compared byte for byte, and none after the
    first 100 when none of those matched; 0 for a TSV/CSV corpus."""
    if not isinstance(corpus.documents, list) or not corpus.documents or not isinstance(corpus.documents[0], Path):
        return 0
    by_rel = {}
    sep = os.sep
    for doc, label in zip(corpus.documents, corpus.labels):
        # the path under the class folder (string operations: Path arithmetic on every
        # document of a large corpus cost 0.2 s on 20 Newsgroups)
        head, found_label, rel = os.fspath(doc).rpartition(f"{sep}{label}{sep}")
        if not found_label:
            continue
        by_rel.setdefault(rel, []).append(doc)
    found = checked = 0
    for docs in by_rel.values():
        if len(docs) < 2:
            continue
        if limit <= 0 or (checked == 100 and not found):  # a single-label corpus whose
            break  # file names repeat across folders (20 Newsgroups' message numbers)
        limit -= 1
        checked += 1
        try:
            sizes = {os.stat(d).st_size for d in docs}
            if len(sizes) == 1 and len({Path(d).read_bytes() for d in docs}) < len(docs):
                found += 1
        except OSError:
            continue
    return found


def iter_input_documents(paths, *, max_bytes=MAX_DOCUMENT_BYTES, stdin=None):
    """Yield ``(source, text_or_None)`` for files, folders (recursively) and ``-`` (stdin,
    named :data:`~textnb.core.errors.STDIN_NAME`).

    ``None`` marks a document that is skipped: a binary file, or a symbolic link inside a
    folder that loops (left out when the folder is listed, as training counts it; yielded
    after the folder's files, so it is reported, not lost without a word);
    :func:`input_documents` says why. Used by ``predict``.
    """
    for source, text, _ in input_documents(paths, max_bytes=max_bytes, stdin=stdin):
        yield source, text


def input_documents(paths, *, max_bytes=MAX_DOCUMENT_BYTES, stdin=None, decode=True, split=None):
    """:func:`iter_input_documents` with why each skipped document is skipped: ``(source,
    text, None)`` or ``(source, None, reason)`` (:func:`skipped_reason` of a file; of
    standard input or a pipe, read once, the same words from the bytes read: ``"binary
    file"`` or ``"UTF-16 text (convert it to UTF-8)"``). ``decode``: True, a document's
    bytes are decoded by the guess (:func:`decode_bytes`); ``(encoding, errors)``, by those
    of a model whose vectorizer was given its own (:func:`textnb.text.tokenize.model_decoding`),
    its text cut alike. ``split(source, data, pipe)``:
    the ``(source, bytes)`` documents a file whose bytes are ``data`` holds (``pipe``
    False), or a pipe named (never ``-``) whose first bytes (8 KiB, or all there is) are
    ``data`` and whose rest ``pipe`` (an open binary stream) gives as it comes, the bytes
    None for one that is refused as empty (``"empty message"``), or None when it is one
    document (``textnb predict`` splits an mbox so, a pipe's as it comes, each message
    capped, not the pipe: :func:`textnb.io.sources.document_batches`); a pipe of one
    document is its first ``max_bytes``."""

    def text_of(data):
        if isinstance(data, str):
            return data
        try:
            return document_text(data, max_bytes, decode)
        except UnicodeDecodeError as exc:  # (a model's own strict encoding: the document is left out, said so)
            raise _Undecodable(undecodable_reason(exc, decode)) from None

    def documents(source, data, reason=None, pipe=False, splits=True):
        """The document a file's bytes are, or the messages of an mbox file (each read as a
        document; an empty one refused), as ``split`` splits it; standard input (``-``) is
        one document; ``pipe``: the stream the rest of a pipe named comes from (``data``
        its first bytes)."""
        messages = split(source, data, pipe) if split is not None and splits else None
        if messages is None:
            if pipe:  # a pipe of one document: its first max_bytes (the rest is not read)
                data = first_bytes(data, pipe, _head_read(max_bytes))
            text, why = _decoded(text_of, data)
            yield source, text, why or (None if text is not None else (reason() if reason else _binary_reason(data)))
            return
        for name, message in messages:
            yield message_document(name, message, text_of)

    paths = list(paths)
    for p in paths:  # a PATH not there (a typo) is refused before any document is read or predicted
        if p != "-" and not os.path.exists(p):
            raise missing_input(p)
    for p in paths:
        refuse_device(p)  # (/dev/zero, a terminal: refused by name, as by every reader)
        if p == "-":
            yield from documents(input_name(p), stdin_stream(stdin).read(_head_read(max_bytes)), splits=False)
        elif _named_stream(p):  # read once, as it comes (an mbox in it split as it comes: nothing lost past a cap)
            try:
                with _open_stream(p) as f:
                    yield from documents(input_name(p), f.read(_SNIFF), pipe=f)
            except OSError as exc:
                raise InputError(f"{input_name(p)}: cannot read ({exc.strerror or exc})") from None
        elif os.path.isdir(p):
            loops = []

            def listed(p=p, loops=loops):  # (as the walk goes: a folder of millions is not listed first)
                yield from ((f, reason, False, whole) for f, reason, whole in _walk_reported(p, loops))
                yield from ((f, None, True, True) for f in loops)  # (the walk's loops, known once it is done)

            for f, unlisted, loop, whole in noting_empty_folder(p, listed()):  # (nothing listed: a warning)
                if unlisted:  # a folder that cannot be listed: left out, said so, as an unreadable file is
                    yield f, None, unlisted
                    continue
                if loop:
                    yield f, None, skipped_reason(f)
                    continue
                try:
                    data = read_bytes(f, max_bytes)
                except InputError as exc:  # (a broken link, a file of no permission: left out, said so, as
                    yield f, None, _unread_reason(f, exc)  # a binary one is; the folder's other files read)
                    continue
                # a document at once unless it may be a mailbox to split (what split splits begins with a
                # From line, a byte-order mark, a blank line or an MMDF line: MAILBOX_STARTS); a Maildir's
                # file is one message, never split as an mbox
                if split is None or whole or not data.startswith(MAILBOX_STARTS):
                    text, why = _decoded(text_of, data)
                    yield f, text, why or (None if text is not None else skipped_reason(f))
                    continue
                yield from documents(f, data, lambda f=f: skipped_reason(f))
        elif os.path.exists(p):
            try:
                data = read_bytes(p, max_bytes)
            except InputError as exc:
                yield p, None, _unread_reason(p, exc)
                continue
            yield from documents(p, data, lambda p=p: skipped_reason(p))
        else:  # (a link that broke since the check)
            yield p, None, missing_reason(os.fspath(p), "file or folder")


def _unread_reason(path, exc):
    """Why the document file ``path`` whose reading raised the InputError ``exc`` is left
    out: the error's words after the file's name (``"cannot read (Permission denied)"``); a
    link to nothing said so (:func:`~textnb.core.errors.missing_reason`)."""
    if os.path.islink(path) and not os.path.exists(path):
        return missing_reason(os.fspath(path), "file")
    message, name = str(exc), f"{os.fspath(path)}: "
    return message[len(name):] if message.startswith(name) else message


def input_file_count(paths):
    """How many files :func:`input_documents` reads of ``paths``, known before any is read:
    a file named is one, a folder the files its walk lists (:func:`_walk_pairs`, the links
    that loop and the folders that cannot be listed included: each is reported as a
    document left out). Each is a document, but an mbox file, whose messages are told only
    by reading it. None when it cannot be known: standard input or a pipe among ``paths``,
    or a PATH not there (reading them says why). What a progress bar of the documents read
    takes as its total (``textnb predict``)."""
    n = 0
    for p in paths:
        if _named_stream(p) or not os.path.exists(p):
            return None
        if not os.path.isdir(p):
            n += 1
            continue
        loops = []
        n += sum(1 for _ in _walk_reported(p, loops)) + len(loops)
    return n


def _named_stream(path):
    """Whether ``path``, named by the user, is a pipe (``/dev/stdin`` fed by a pipe,
    ``<(...)``, a FIFO) or ``-`` (standard input, whatever it is fed by): read once (a
    document by ``predict``, a corpus or table by :func:`read_piped`). A folder's walk never
    meets one (:func:`_walk_files` lists regular files). A device or socket is not one: it
    is refused by name (:func:`~textnb.io.files.refuse_device`)."""
    return os.fspath(path) == STDIN or is_named_pipe(path)


def document_size(doc, max_bytes=MAX_DOCUMENT_BYTES):
    """How much text a document brings to a batch (:data:`textnb.io.files.BATCH_BYTES`),
    before it is read: a str's characters, bytes' length, a file's size (``os.stat``; 0
    when it cannot be stat'ed, as its read will report), at most ``max_bytes``."""
    if isinstance(doc, (str, bytes, bytearray)):
        return min(len(doc), max_bytes)
    try:
        return min(os.stat(doc).st_size, max_bytes)
    except (OSError, TypeError, ValueError):
        return 0


def message_document(name, message, text_of):
    """``(name, text, None)`` of one message of an mbox read as a document (``text_of`` its
    bytes: the text, None when binary), or ``(name, None, reason)``: ``"empty message"``
    (``message`` None, or empty: :func:`textnb.io.mailread.is_empty_message`), a binary
    message's reason as a binary file's (:func:`skipped_reason`: ``"binary file"``, UTF-16
    text). The one rule of every command that reads an mbox file's messages as documents
    (``predict``, ``train``, ``evaluate``); the splitter gives an empty message as None
    (:func:`textnb.io.mailread.split_messages`)."""
    if message is None:
        return name, None, "empty message"
    text, why = _decoded(text_of, message)
    return name, text, why or (None if text is not None else _binary_reason(message))


class _Undecodable(Exception):
    """A document's bytes that the model's own strict encoding does not decode (its reason)."""


def _decoded(text_of, data):
    """``(text_of(data), None)``, or ``(None, reason)`` for bytes the model's own encoding
    does not decode (:class:`_Undecodable`)."""
    try:
        return text_of(data), None
    except _Undecodable as exc:
        return None, str(exc)


def undecodable_reason(exc, codec):
    """Why a document is left out: its bytes are not text of the ``(encoding, errors)``
    ``codec`` a model's vectorizer decodes with (the UnicodeDecodeError ``exc``), as a
    binary file's reason is said (found by a user trial: ``textnb predict`` and
    ``topicfilter`` of such a file with a ``Vectorizer(encoding="cp1251")`` model ended in
    ``internal error: UnicodeDecodeError``)."""
    encoding, errors = codec
    byte = exc.object[exc.start:exc.start + 1].hex() if isinstance(exc.object, (bytes, bytearray)) else "?"
    return (f"not {encoding} text (byte 0x{byte} at offset {exc.start}), the encoding the model's vectorizer "
            f"decodes its documents with (decode_error={errors!r})")


class Messages:
    """The messages of an mbox file read as training documents (:func:`to_tokenizable`
    with ``split``): ``items``, a ``(source, text or None, reason)`` triple each
    (:func:`message_document`; ``FILE:N``). Its ``len`` is the text it brings to a batch
    (:data:`textnb.io.files.BATCH_BYTES`), as a text's is."""

    __slots__ = ("source", "items", "size", "share")

    def __init__(self, source, items, share=1):
        self.source, self.items, self.share = source, items, share
        self.size = sum(len(text) for _, text, _ in items if text is not None)

    def __len__(self):
        return self.size


class MessageStream:
    """The messages of an mbox file too large to hold (its first ``max_bytes`` are not all
    of it), read from the file as they are asked for (:func:`to_tokenizable` with
    ``stream``): ``items``, an iterator of :class:`Messages`' triples; ``file_size``, the
    file's bytes (None: unknown). Training takes it a piece at a time (:meth:`pieces`), so
    its memory is a batch's, not the file's."""

    __slots__ = ("source", "items", "file_size")

    def __init__(self, source, items, file_size=None):
        self.source, self.items, self.file_size = source, items, file_size

    def pieces(self, limit):
        """:class:`Messages` of consecutive messages, each ending with the message whose
        text brings it to ``limit`` (:func:`textnb.io.files.bounded_runs`' rule). The file is
        one listed document: each piece's ``share`` of it is the share of the file's bytes
        its messages' text has read so far (a :class:`~fractions.Fraction`, at most 99/100
        before the last piece, which brings the sum to exactly 1), so training's progress
        moves while the file is read and its count of documents stays whole."""
        from fractions import Fraction

        from textnb.io.files import bounded_runs

        runs = bounded_runs(self.items, float("inf"), lambda item: 0 if item[1] is None else len(item[1]))
        run, read, counted = next(runs, []), 0, Fraction(0)
        for following in runs:
            piece = Messages(self.source, run, share=0)
            read += piece.size
            if self.file_size:
                reached = min(Fraction(read, self.file_size), Fraction(99, 100))
                piece.share, counted = reached - counted, max(reached, counted)
            yield piece
            run = following
        yield Messages(self.source, run, share=1 - counted)


class Skipped(list):
    """The names of the documents a reading of a corpus left out (binary files; binary or
    empty messages of an mbox file, ``FILE:N``), and what it read past the corpus's list:
    ``messages``, ``{file: (messages, messages learnt)}`` of each mbox file read as its
    messages (:class:`Messages`; a file of one message is one document, as it is listed),
    ``empty`` the empty messages among the names. The documents learnt from ``n`` listed
    ones are :meth:`learnt` (``len(corpus)``, ``class_counts`` are counts of the list)."""

    def __init__(self, names=()):
        super().__init__(names)
        self.messages, self.empty = {}, 0

    def merge(self, other):
        """Add the names (and messages) of another reading's :class:`Skipped` (or list)."""
        self.extend(other)
        if isinstance(other, Skipped):
            for source, (total, learnt) in other.messages.items():
                self.add_messages(source, total, learnt)
            self.empty += other.empty

    def add_messages(self, source, total, learnt):
        """Count ``total`` messages of the mbox file ``source`` read, ``learnt`` of them learnt."""
        before = self.messages.get(source, (0, 0))
        self.messages[source] = (before[0] + total, before[1] + learnt)

    def learnt(self, n):
        """The documents learnt from ``n`` listed ones: each mbox file read as its messages
        counts them, each name left out none."""
        return n - len(self) + sum(total - 1 for total, _ in self.messages.values())


def gather_documents(read):
    """``(texts, keep, skipped, n_docs)`` of the ``(document, tokenizable text, None or
    Messages)`` pairs of a batch (:func:`to_tokenizable` with ``split``): the texts read,
    the position in the batch of each (a file's messages share its position, so they take
    its label and weight), the :class:`Skipped` names left out, and the batch's length in
    listed documents (a piece of a large mbox file counts its ``share`` of the file, a
    Fraction: :meth:`MessageStream.pieces`; the pieces of a file sum to exactly 1)."""
    texts, keep, skipped, unread = [], [], Skipped(), 0
    for i, (doc, text) in enumerate(read):
        if text is None:
            skipped.append(str(doc))
        elif type(text) is Messages:
            if text.share != 1:
                unread += 1 - text.share
            learnt = 0
            for name, message, reason in text.items:
                if message is None:
                    skipped.append(name)
                    skipped.empty += reason == "empty message"
                else:
                    texts.append(message)
                    keep.append(i)
                    learnt += 1
            skipped.add_messages(text.source, len(text.items), learnt)
        else:
            texts.append(text)
            keep.append(i)
    return texts, keep, skipped, len(read) - unread


def mbox_documents(source, data, split, max_bytes=MAX_DOCUMENT_BYTES, decode=True, stream=False):
    """The :class:`Messages` of the file ``source`` whose first ``max_bytes`` are ``data``
    when it is an mbox of several messages, as ``textnb predict`` splits it (``split``:
    :func:`textnb.io.mailread.split_messages`, ``FILE:N`` each, its first ``max_bytes``;
    :func:`message_document`), else None (a file of one message is that one document; an
    empty one is a :class:`Messages` of it, left out as empty). ``stream``: a file longer
    than ``data`` (whose messages the splitter reads from the file in steps) is a
    :class:`MessageStream`, its messages read as they are asked for."""
    messages = split(source, data)
    if messages is None:
        return None
    items = (message_document(name, message, lambda m: to_tokenizable(m, max_bytes, decode))
             for name, message in messages)
    first = list(itertools.islice(items, 2))
    if len(first) == 1 and first[0][1] is not None:
        return None  # (one message: the file, From line and all, as it is listed)
    if stream and max_bytes is not None and len(data) >= max_bytes:
        try:
            size = os.path.getsize(source)
        except OSError:
            size = None  # (the reading reports it)
        return MessageStream(source, itertools.chain(first, items), size)
    return Messages(source, first + list(items))


def to_tokenizable(doc, max_bytes=MAX_DOCUMENT_BYTES, decode=True, split=None, stream=False):
    """A document for :func:`textnb.text.tokenize.batch_term_ids`: str, or bytes when it is
    ASCII (no decoding needed: ASCII bytes are their own text), None if binary. Whatever its
    container, a document is cut at ``max_bytes`` UTF-8 bytes of its text
    (:func:`textnb.io.files.cut_text`, as a TSV row or a ``--lines`` line is): a str's first
    ones; a file's or bytes' first ``max_bytes`` bytes decoded and their text cut there (a
    Windows-1252 or Latin-1 text takes more bytes in UTF-8 than in its file: :func:`decode_bytes`),
    so the library, ``train``, ``predict`` and ``serve`` read the same text from a file, a row or a str.

    ``decode``: True, non-ASCII bytes are decoded by :func:`decode_bytes` (UTF-8,
    Windows-1252, Latin-1); ``(encoding, errors)``, the ``encoding`` and ``decode_error`` of a
    Vectorizer given other ones than the defaults (:func:`textnb.text.tokenize.reader_decoding`):
    a file's or bytes' content is decoded with them, and its text cut at ``max_bytes`` UTF-8
    bytes all the same (a str, whatever the bytes were).

    ``split`` (the readers of a corpus for training and evaluation give
    :func:`textnb.io.mailread.split_messages` of ``max_bytes``): a file whose first bytes
    are an mbox ``From`` line and that holds several messages is returned as its
    :class:`Messages` (:func:`mbox_documents`), each message one document, as ``textnb
    predict``, ``topicfilter`` and ``spamfilter --batch`` read it; no other file is looked
    at twice (the test is on the bytes read). ``stream``: such a file longer than
    ``max_bytes`` is a :class:`MessageStream` (training's reading: :meth:`MessageStream.pieces`);
    a piece of one, :class:`Messages`, is its own tokenizable text (a worker process is
    given the pieces its parent read)."""
    if type(doc) is Messages:
        return doc
    if isinstance(doc, str):
        return cut_text(doc, max_bytes)
    if isinstance(doc, Path):
        data = read_bytes(doc, max_bytes)
        if split is not None and data.startswith(MAILBOX_STARTS) and type(doc) is not OneMessage:  # (the bytes in hand: an mbox file's messages, as predict reads them)
            messages = mbox_documents(str(doc), data, split, max_bytes, decode, stream)
            if messages is not None:
                return messages
    elif isinstance(doc, (bytes, bytearray)):
        data = document_head(doc, max_bytes)[0]  # (a byte-order mark not counted: not text; a file's: read_bytes)
    else:
        raise TypeError(f"a document must be str, bytes or pathlib.Path; got {type(doc).__name__}")
    if decode is True and data.isascii() and not is_binary(data):
        return data  # (ASCII bytes are their own text)
    return document_text(data, max_bytes, decode)


def document_texts(docs, split, max_bytes=MAX_DOCUMENT_BYTES, decode=True):
    """``(texts, kept, skipped, n_docs)`` of ``docs`` read as training reads them
    (:func:`gather_documents` of :func:`to_tokenizable` with ``split``,
    :func:`textnb.io.mailread.split_messages`: an mbox file its messages), each text a str as :func:`to_text` gives it;
    ``kept`` the position in ``docs`` of each text (an mbox file's messages share its own):
    what the estimators and ``textnb evaluate`` fit on."""
    texts, kept, skipped, n_docs = gather_documents([(doc, to_tokenizable(doc, max_bytes, decode, split))
                                                     for doc in docs])
    texts = [t.decode("ascii") if isinstance(t, bytes) else t for t in texts]
    return texts, kept, skipped, n_docs


def to_text(doc, max_bytes=MAX_DOCUMENT_BYTES, decode=True):
    """A document as str: str as is (cut at ``max_bytes`` UTF-8 bytes), bytes decoded, a Path
    read (None if binary); ``decode``: the guess (True) or a Vectorizer's own ``(encoding,
    errors)`` (:func:`to_tokenizable`)."""
    text = to_tokenizable(doc, max_bytes, decode)
    return text.decode("ascii") if isinstance(text, bytes) else text
