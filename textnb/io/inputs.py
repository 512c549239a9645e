"""What a training or evaluation PATH is: a corpus of documents or a table of attributes.

One decision for ``train`` and ``evaluate`` (and any other caller): a folder is a corpus; an
ARFF file, a file with ``--class`` / ``--numeric`` / ``--ignore``, or a CSV/TSV with text
columns beside others is a table; a CSV/TSV with label and text columns is a corpus, and one
without them (:class:`~textnb.core.errors.NotATextCorpus`) is read as a table.
"""

import os
import warnings
from functools import partial
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

from textnb.core.errors import DataWarning, InputError, NotATextCorpus, empty_input, input_name, unknown_to_leave_out
from textnb.io.corpus import (MAX_DOCUMENT_BYTES, NOT_TEXT_TABLE_EXTENSIONS, decode_bytes, document_texts, open_corpus,
                              read_piped, table_format_by_name)
from textnb.io.files import read_regular_file

__all__ = ["InputOptions", "load_input", "open_text_corpus", "fasttext_corpus", "is_table_input", "check_classes",
           "check_table_classes", "check_binary_classes", "learned_counts", "read_texts", "default_model_path",
           "refuse_unread_options", "READ_AS", "OPTION_USES",
           "multilabel_from_fasttext", "open_multilabel_input"]


@dataclass(frozen=True)
class InputOptions:
    """How to read a PATH: the corpus and table options of the command line."""

    label_column: Optional[str] = None
    text_columns: Sequence[str] = ()
    class_name: Optional[str] = None
    numeric: Optional[str] = None
    ignore: Optional[Sequence[str]] = None
    max_bytes: Optional[int] = None
    #: fastText files (textnb.io.fasttext): the label prefix (given: PATH is one), or
    #: ``fasttext`` True to read PATH as one with the default prefix
    label_prefix: Optional[str] = None
    fasttext: bool = False
    #: CSV/TSV tables: columns to read as nominal (names, 1-based numbers, ranges: Weka's
    #: CSVLoader -N; :func:`textnb.io.csvtable.column_refs`), and a file without a header row
    nominal_columns: Optional[Sequence[str]] = None
    no_header: bool = False
    #: the other options of :data:`OPTION_USES` given on the command line (the model's and the
    #: tokenizer's: ``--bins``, ``--ngram``, ...), for :func:`refuse_unread_options`
    given: Sequence[str] = ()

    @classmethod
    def from_namespace(cls, ns):
        return cls(label_column=getattr(ns, "label_column", None), text_columns=tuple(getattr(ns, "text_column", None) or ()),
                   class_name=getattr(ns, "class_name", None), numeric=getattr(ns, "numeric", None),
                   ignore=getattr(ns, "ignore", None) or None, max_bytes=getattr(ns, "max_bytes", None),
                   label_prefix=getattr(ns, "label_prefix", None), fasttext=bool(getattr(ns, "fasttext", False)),
                   nominal_columns=getattr(ns, "nominal_columns", None) or None,
                   no_header=bool(getattr(ns, "no_header", False)),
                   given=tuple(flag for flag, (name, _) in OPTION_USES.items()
                               if getattr(ns, name, None) not in (None, False, [], ())))

    @property
    def flags_given(self):
        """Every option of :data:`OPTION_USES` given, in its order: those of :attr:`given` and
        those set on these options themselves (the library's callers set no ``given``)."""
        own = {flag for flag, name in _OWN_FLAGS if getattr(self, name) not in (None, False, [], ())}
        return [flag for flag in OPTION_USES if flag in own or flag in self.given]

    @property
    def table_only(self):
        """Whether an option given reads PATH as a table, never as a text corpus:
        ``--nominal-columns`` (a table's column types). (``--no-header`` alone does not: a
        headerless ``label<TAB>text`` file is the text corpus it is, its first row a document.)"""
        return bool(self.nominal_columns)

    @property
    def csv_options(self):
        """The keywords of :func:`textnb.io.tables.read_table` these options give (on every
        table path: plain and mixed)."""
        return {"nominal": self.nominal_columns, "header": not self.no_header}

    @property
    def table_class(self):
        """The class attribute of a table: ``class_name``, or its alias ``label_column``."""
        return self.class_name or self.label_column


#: what each option is for (where an input that does not read it refuses it):
_TABLES = "tables (ARFF, CSV/TSV attributes)"
_COLUMNS = "TSV/CSV files"
_DOCUMENTS = "documents (and a table's --text-column attributes)"
_DOCUMENTS_ONLY = ("documents, not tables (a table's text attributes take the tokenizer options: --ngram, --min-df, "
                   "--stop-words, ...)")
_WHOLE = "documents (a table's cells are read whole)"
_LABELS = "fastText files (a table's class is its class attribute)"

#: the options an input may leave unused: flag -> (command-line attribute, what it is for).
#: Every one has the default None or False, so a value given is told from none given.
OPTION_USES = {
    "--class": ("class_name", _TABLES), "--ignore": ("ignore", _TABLES),
    "--nominal-columns": ("nominal_columns", _TABLES), "--no-header": ("no_header", _TABLES),
    "--numeric": ("numeric", _TABLES), "--bins": ("bins", _TABLES), "--nominal": ("nominal", _TABLES),
    "--interval-fit": ("interval_fit", _TABLES), "--missing": ("missing", _TABLES),
    "--structure": ("structure", _TABLES),
    "--label-column": ("label_column", _COLUMNS), "--text-column": ("text_column", _COLUMNS),
    "--no-lowercase": ("no_lowercase", _DOCUMENTS), "--token-pattern": ("token_pattern", _DOCUMENTS),
    "--stop-words": ("stop_words", _DOCUMENTS), "--stem": ("stem", _DOCUMENTS), "--ngram": ("ngram", _DOCUMENTS),
    "--min-df": ("min_df", _DOCUMENTS), "--max-df": ("max_df", _DOCUMENTS),
    "--max-features": ("max_features", _DOCUMENTS), "--binary": ("binary", _DOCUMENTS),
    "--norm": ("norm", _DOCUMENTS_ONLY), "--weighting": ("weighting", _DOCUMENTS_ONLY),
    "--select": ("select", _DOCUMENTS_ONLY),
    "--max-bytes": ("max_bytes", _WHOLE), "--label-prefix": ("label_prefix", _LABELS),
}
#: the options :class:`InputOptions` holds itself: (flag, field)
_OWN_FLAGS = (("--class", "class_name"), ("--ignore", "ignore"), ("--nominal-columns", "nominal_columns"),
              ("--no-header", "no_header"), ("--numeric", "numeric"), ("--label-column", "label_column"),
              ("--text-column", "text_columns"), ("--max-bytes", "max_bytes"), ("--label-prefix", "label_prefix"))

_TABLE_FLAGS = tuple(f for f, (_, use) in OPTION_USES.items() if use == _TABLES)
_COLUMN_FLAGS = ("--label-column", "--text-column")
_DOCUMENT_FLAGS = tuple(f for f, (_, use) in OPTION_USES.items() if use in (_DOCUMENTS, _DOCUMENTS_ONLY))

#: what an input is read as -> (how a message says it, the options it leaves unused)
READ_AS = {
    "folder": ("read as a folder corpus (a subfolder per class, a file per document)", _TABLE_FLAGS + _COLUMN_FLAGS),
    "fasttext": ("read as a fastText file (one document per line, its labels as words)", _TABLE_FLAGS + _COLUMN_FLAGS),
    "multilabel": ("read as a multi-label corpus (--multilabel / --labels)", _TABLE_FLAGS + _COLUMN_FLAGS),
    # (a TSV/CSV corpus reads its label and text columns: --ignore of another column keeps it one)
    # (--no-header: its first row a document, as a headerless label<TAB>text file's is)
    "text": ("read as a text corpus", tuple(f for f in _TABLE_FLAGS if f not in ("--ignore", "--no-header"))),
    # (JSON Lines: the first object's fields are always its header)
    "json lines": ("read as a JSON Lines text corpus (the first object's fields its header)",
                   tuple(f for f in _TABLE_FLAGS if f != "--ignore")),
    # (predict: --no-header reads a TSV/CSV file's first row as a document, as train's "text" does)
    "text model": ("a text model, which reads documents", tuple(f for f in _TABLE_FLAGS if f != "--no-header")),
    "text model of documents": ("a text model, which reads documents", _TABLE_FLAGS + _COLUMN_FLAGS),  # (no rows)
    "table": ("read as a table without text attributes", _DOCUMENT_FLAGS + ("--max-bytes", "--label-prefix")),
    "mixed table": ("read as a table", ("--norm", "--weighting", "--select", "--max-bytes", "--label-prefix")),
    # (predict: a table model knows its columns, its text attributes' too)
    "table model": ("a table model, which reads tables", ("--max-bytes", "--label-prefix") + _COLUMN_FLAGS),
    # (--label-column names its class as --class does; --nominal-columns and --no-header: io.tables refuses them)
    "arff": ("read as an ARFF file (its header declares each attribute's type, a text attribute as string)",
             ("--text-column",)),
}


def refuse_unread_options(source, opts, read_as):
    """THE rule for options an input does not read: one InputError line naming ``source``
    (the input, or the model of ``predict``), what it is read as and the options given
    (:attr:`InputOptions.flags_given`) that it would leave unused, with what each is for.
    ``read_as``: a key of :data:`READ_AS` (a table-only option with a folder, a fastText file,
    a multi-label or text corpus or a text model; a document option with a table). Such
    options were accepted and changed nothing."""
    what, unread = READ_AS[read_as]
    given = [flag for flag in opts.flags_given if flag in unread]
    if not given:
        return
    uses = {}
    for flag in given:
        uses.setdefault(OPTION_USES[flag][1], []).append(flag)
    parts = [f"{', '.join(flags)} {'is' if len(flags) == 1 else 'are'} for {use}" for use, flags in uses.items()]
    one = len(given) == 1
    raise InputError(f"{input_name(source)}: {what}; {'; '.join(parts)}: {'it' if one else 'they'} would be "
                     f"left unused")


def table_read_as(table):
    """:data:`READ_AS`'s key for ``table``: with text attributes or without."""
    return "mixed table" if any(a.is_text for a in table.attributes) else "table"


def is_arff(path, data=None):
    """Whether the file ``path`` is ARFF: named ``*.arff``, or, named neither so nor as a
    CSV / TSV file (``/dev/stdin``, a pipe, ``data``, ``data.dat``), starting with
    ``@relation``, as :func:`textnb.io.tables.table_format` reads it
    (:func:`textnb.io.arff.is_arff_text`; ``data``: the content of a pipe, read already)."""
    path = os.fspath(path)
    if os.path.splitext(os.path.basename(path.lower()))[1] in NOT_TEXT_TABLE_EXTENSIONS:
        return False  # (refused as a table when read as one; a text corpus is read whatever its name)
    fmt = table_format_by_name(path)
    if fmt is not None:
        return fmt == "arff"
    if data is None:
        try:
            if not os.path.isfile(path):
                return False
            data = read_regular_file(path, 8192)
        except InputError:
            return False
    from textnb.io.arff import is_arff_text

    return is_arff_text(decode_bytes(bytes(data[:8192])))


def fasttext_corpus(path, opts, stream=False, data=None):
    """The :class:`~textnb.io.fasttext.FastTextCorpus` at ``path`` when it is a fastText file
    (``opts.fasttext``, ``opts.label_prefix`` given, or a file whose first line starts with
    the prefix, ``__label__`` by default), else None. ``data``: the content of ``path`` read
    already; a pipe (``/dev/stdin``) is read here else (:func:`textnb.io.corpus.read_piped`)."""
    from textnb.io.fasttext import DEFAULT_LABEL_PREFIX, is_fasttext_file, read_fasttext

    path = os.fspath(path)
    prefix = opts.label_prefix if opts.label_prefix is not None else DEFAULT_LABEL_PREFIX
    explicit = opts.fasttext or opts.label_prefix is not None
    if os.path.isdir(path):
        if explicit:
            raise InputError(f"{path}: a folder; --fasttext and --label-prefix read a fastText file")
        return None
    if data is None:
        data = read_piped(path)
    path = input_name(path)  # (read: ``-`` is named stdin from here on)
    if not (explicit or is_fasttext_file(path, prefix, data=data)):
        return None
    return read_fasttext(path, data=data, label_prefix=prefix, max_bytes=opts.max_bytes or MAX_DOCUMENT_BYTES,
                         stream=stream)


def open_text_corpus(path, opts, test=True, stream=False, header_table=True, data=None, progress=None):
    """The :class:`~textnb.io.corpus.Corpus` at ``path`` (a folder, a label + text file or a
    fastText file with one label per line); ``stream``: a TSV/CSV file's documents read
    again from it when iterated; ``header_table`` False: a TSV/CSV file is known to be a text
    corpus (a text model's test file), a first row that looks like a header is skipped
    (:func:`~textnb.io.corpus.open_corpus`); ``opts.no_header``: a TSV/CSV file has no header
    row (read as headerless ``label<TAB>text``, or NotATextCorpus). ``data``: the content of
    ``path`` read already; a pipe (``/dev/stdin``) is read here else, once. ``progress``: the
    bytes of a TSV/CSV or JSON Lines file read (:func:`~textnb.io.corpus.open_corpus`)."""
    if data is None:
        data = read_piped(path)
    path = input_name(path)  # (read: ``-`` is named stdin from here on)
    fasttext = fasttext_corpus(path, opts, stream, data=data)
    if fasttext is not None:
        return fasttext.single_label()
    texts = opts.text_columns
    if len(texts) > 1:
        raise InputError(f"{path}: several --text-column options make a mixed table, not a text corpus")
    return open_corpus(path, label_column=opts.label_column, text_column=texts[0] if texts else None,
                       max_bytes=opts.max_bytes or MAX_DOCUMENT_BYTES, test=test, stream=stream,
                       header_table=header_table, data=data, header=not opts.no_header, progress=progress)


def _mixed_table(path, opts, data=None):
    """The table of a CSV/TSV with text columns beside others, or None for a label + text
    file (a text corpus); ``data``: the content of a pipe, read already."""
    texts = opts.text_columns
    if not texts or os.path.isdir(path) or is_arff(path, data):
        return None
    from textnb.io.csvtable import read_header
    from textnb.io.tables import read_table

    header = read_header(path, data=data, header=not opts.no_header)

    def name(ref, what):
        if ref.isdigit() and ref not in header:
            i = int(ref) - 1
            if not 0 <= i < len(header):
                raise InputError(f"{path}: {what} column {ref} out of range 1..{len(header)}")
            return header[i]
        if ref not in header:
            raise InputError(f"{path}: no {what} column {ref!r} (columns: {', '.join(header)})")
        return ref

    names = [name(t, "text") for t in texts]
    cls = opts.table_class
    cls = name(cls, "class") if cls is not None else None
    if opts.class_name and opts.label_column and name(opts.label_column, "label") != cls:
        # (the two name one class column of a mixed table: different columns, one would be left unused)
        raise InputError(_two_class_columns(path, opts, cls, name(opts.label_column, "label")))
    if _label_and_text(names, header, opts, _json_lines(path, data)):
        return None  # label + text: a text corpus
    if len(set(names)) != len(names):
        raise InputError(f"{path}: a column is named twice with --text-column")
    if cls in names:
        raise InputError(f"{path}: the class column {cls!r} cannot also be a text column")
    return read_table(path, class_name=cls, types={t: "text" for t in names}, drop=opts.ignore, data=data,
                      **opts.csv_options)


def _label_and_text(texts, header, opts, json_lines=False):
    """Whether ``--text-column`` names the one text column of a label + text file (a text
    corpus), not text columns beside others (a mixed table); of a JSON Lines file
    (``json_lines``), whatever its other fields: it is never a table
    (:mod:`textnb.io.jsonlines`)."""
    return (len(texts) == 1 and (len(header) == 2 or json_lines) and not opts.class_name and not opts.numeric
            and not opts.table_only
            and not opts.no_header)  # (--text-column with --no-header: a mixed table's column att1, att2, ...)


def _json_multilabel(path, opts, data=None, *, multilabel=False):
    """The :class:`~textnb.io.multilabel.MultiLabelCorpus` of a JSON Lines file whose first
    object's label field holds a list (:func:`textnb.io.multilabel.json_label_lists`), or of
    any JSON Lines file with ``multilabel`` (``--multilabel``: a label string a set of one),
    else None; ``data``: the content of a pipe, read already."""
    from textnb.io.multilabel import json_label_lists, read_json_multilabel

    if os.path.isdir(path) or not _json_lines(path, data):
        return None
    if not multilabel:  # (the first line whole: a first document may be long)
        from textnb.io.jsonlines import head_of

        try:
            head = head_of(path, data)
        except InputError:  # (reported when the file is read)
            return None
        if not json_label_lists(path, head, opts.label_column):
            return None
    refuse_unread_options(path, opts, "json lines")
    texts = opts.text_columns
    if len(texts) > 1:
        raise InputError(f"{path}: several --text-column options: a JSON Lines corpus reads one text field")
    return read_json_multilabel(path, label_column=opts.label_column, text_column=texts[0] if texts else None,
                                max_bytes=opts.max_bytes, data=data)


def _json_lines(path, data=None):
    """Whether the file ``path`` (``data``: its content, read already) is JSON Lines."""
    from textnb.io.jsonlines import head_of, is_json_lines

    try:
        head = head_of(path, data)  # (a first line that starts like an object: read whole)
    except InputError:  # (reported when the file is read)
        return False
    return is_json_lines(path, head)


def is_table_input(path, opts, table_model=False):
    """Whether ``path`` will be read as a table, as far as can be told without reading its
    rows (a CSV/TSV without label and text columns is found to be a table only when read;
    one with ``--text-column`` beside other columns is a mixed table from its header line);
    ``table_model``: a table model was asked for."""
    path = os.fspath(path)
    if os.path.isdir(path):
        return False
    if is_arff(path) or opts.table_class or opts.numeric or opts.ignore or opts.table_only or table_model:
        return True
    if not opts.text_columns or not os.path.isfile(path):  # (a pipe is read once: by load_input)
        return False
    from textnb.io.csvtable import read_header

    try:
        header = read_header(path, header=not opts.no_header)
    except InputError:  # reported when the file is read
        return False
    return not _label_and_text(opts.text_columns, header, opts, _json_lines(path))


def load_input(path, opts, test=True, stream=False, progress=None):
    """``("table", Table)`` for ARFF and attribute tables (mixed tables too),
    ``("multilabel", FastTextCorpus)`` for a fastText file with several labels on a line, else
    ``("text", Corpus)`` (``test=False``: without a split folder's test part; ``stream``: a
    TSV/CSV corpus's documents read again from the file when iterated, for one pass;
    ``progress``: the bytes of a TSV/CSV or JSON Lines corpus read, :func:`open_text_corpus`). An
    option of ``opts`` that what ``path`` is read as would leave unused is refused
    (:func:`refuse_unread_options`)."""
    path = os.fspath(path)
    if os.path.isdir(path):
        refuse_unread_options(path, opts, "folder")
        return "text", open_text_corpus(path, opts, test)
    # (a pipe, /dev/stdin: read once, here; its format sniffed from its content; for training,
    # one over the bound of a corpus kept in memory written to a temporary file as it comes)
    data = read_piped(path, spill=stream)
    if data is None and os.path.splitext(os.path.basename(path.lower()))[1] in NOT_TEXT_TABLE_EXTENSIONS:
        from textnb.io.corpus import is_binary

        if is_binary(read_regular_file(path, 8192)):  # a spreadsheet (not a TSV corpus named .xls)
            table_format_by_name(path)  # (raises: the one line for a spreadsheet, binary or compressed name)
    path = input_name(path)  # (read: ``-`` is named stdin from here on, by every reader and message)
    fasttext = fasttext_corpus(path, opts, stream, data=data)
    if fasttext is not None:
        refuse_unread_options(path, opts, "fasttext")
        return ("multilabel", fasttext) if fasttext.multilabel else ("text", fasttext.single_label())
    listed = _json_multilabel(path, opts, data)
    if listed is not None:
        return "multilabel", listed
    mixed = _mixed_table(path, opts, data)
    if mixed is not None:
        refuse_unread_options(path, opts, table_read_as(mixed))
        return "table", mixed
    if not (is_arff(path, data) or opts.class_name or opts.table_only):
        try:
            with warnings.catch_warnings():
                if opts.ignore:  # the user has named the columns to leave out: no word on those not read
                    warnings.simplefilter("ignore", DataWarning)
                corpus = open_text_corpus(path, opts, test, stream, data=data, progress=progress)
        except NotATextCorpus:
            corpus = None
        if corpus is not None and not ((opts.ignore or opts.numeric) and _read_as_table(path, opts, data)):
            refuse_unread_options(path, opts, "json lines" if opts.no_header and _json_lines(path, data) else "text")
            # (--numeric: refused here)
            return "text", corpus
    from textnb.io.tables import read_table  # tables import scipy: only for tables

    if opts.class_name and opts.label_column and opts.label_column != opts.class_name:
        raise InputError(_two_class_columns(path, opts, opts.class_name, opts.label_column))
    if is_arff(path, data):
        refuse_unread_options(path, opts, "arff")
    table = read_table(path, class_name=opts.table_class, drop=opts.ignore, data=data, **opts.csv_options)
    refuse_unread_options(path, opts, table_read_as(table))
    return "table", table


def _two_class_columns(path, opts, cls, label):
    """The refusal of ``--class`` and ``--label-column`` naming different columns of a table
    (``cls``, ``label``: the columns they name), which would leave ``--label-column`` unused."""
    return (f"{path}: --class {opts.class_name} and --label-column {opts.label_column} name different columns "
            f"({cls!r}, {label!r}); for a table they are the same option: give one")


def _read_as_table(path, opts, data=None):
    """Whether a file that reads as a text corpus is read as a table after all, as
    ``--ignore`` or ``--numeric`` ask: always for a file without a header (two columns
    guessed to be ``label<TAB>text``, which a small numeric table may look like too); for
    one whose header names its label and text columns, only when ``--ignore`` leaves out
    one of those two. Ignoring other columns changes nothing in a text corpus, which
    reads only those two: it stays one (and ``--numeric`` is refused for it). An ignored
    name the header does not have is an error, as for a table."""
    from textnb.io.corpus import corpus_columns

    header, used = corpus_columns(path, label_column=opts.label_column,
                                  text_column=opts.text_columns[0] if opts.text_columns else None, data=data)
    if not header:
        return True
    unknown = [name for name in opts.ignore or () if name not in header]
    if unknown:
        raise unknown_to_leave_out(path, unknown, header)
    return bool(set(opts.ignore or ()) & set(used))


def check_table_classes(table):
    """A training table of fewer than two classes, or whose rows all weigh 0 (ARFF instance
    weights ``{0}``: nothing to learn from), is one InputError line naming it; what ``train``
    and ``evaluate`` check before fitting (found by a user trial: all-zero weights were the
    estimator's ValueError, an internal error, exit 70)."""
    classes = np.unique(table.y)
    if len(classes) < 2:
        raise InputError(f"{table.source}: only one class ({classes[0]!r}); need at least two")
    weights = getattr(table, "sample_weight", None)
    if weights is not None and len(weights) and not np.any(np.asarray(weights) > 0):
        raise InputError(f"{table.source}: every row weighs 0 (instance weights): there is nothing to learn from; "
                         "give some rows a weight above 0")


def check_classes(corpus):
    """The documents per class of ``corpus``; fewer than two classes is an error."""
    counts = corpus.class_counts()
    if len(counts) < 2:
        only = next(iter(counts))
        raise InputError(f"{corpus.source}: only one class ({only!r}); need at least two")
    return counts


def check_binary_classes(corpus, learned):
    """A class all of whose files are binary (skipped) is an error, not a class of 0
    documents; ``learned``: documents read per class. (Binary files in a class that has
    text files are skipped and counted, as always.)"""
    empty = [c for c in dict.fromkeys(corpus.labels) if not learned.get(c)]
    if empty:
        where = corpus.source
        first = next(d for d, c in zip(corpus.documents, corpus.labels) if c == empty[0])
        if isinstance(first, Path):  # the class folder (of a split corpus: under train/)
            where = next((str(q) for q in first.parents if q.name == empty[0]), where)
        n = sum(1 for c in corpus.labels if c == empty[0])
        more = f" (and {len(empty) - 1} more classes)" if len(empty) > 1 else ""
        why = "binary"
        if isinstance(first, Path):  # a UTF-16 / UTF-32 text said so, with the fix, as predict says it of a file
            from textnb.io.corpus import skipped_reason

            reason = skipped_reason(first)
            if reason != "binary file":
                why = f"binary or not UTF-8 (the first, {first}: {reason})"
        raise InputError(f"{where}: every file of class {empty[0]!r} is {why} ({n} skipped){more}; "
                         f"no documents to learn it from")


def learned_counts(corpus, skipped):
    """Documents per class that training used: binary files left out, an mbox file read
    as its messages counted as the messages learnt (``skipped``'s ``messages``,
    :class:`textnb.io.corpus.Skipped`), each of its file's class."""
    messages = getattr(skipped, "messages", None) or {}  # (an mbox file read as its messages: their count)
    skipped = set(skipped)
    counts = {}
    if not skipped and not messages:  # (the documents are not read again: a streamed corpus would be)
        for label in corpus.labels:
            counts[label] = counts.get(label, 0) + 1
        return dict(sorted(counts.items()))
    # a Dask cluster is sent (and names) a file by its absolute path: a document whose name a
    # skipped one has is looked up that way too (not every document: abspath costs)
    names = {os.path.basename(s) for s in skipped.union(messages)}
    for doc, label in zip(corpus.documents, corpus.labels):
        text = str(doc)
        if isinstance(doc, Path) and text not in skipped and text not in messages and os.path.basename(text) in names:
            text = os.path.abspath(text)
        if text in messages:
            counts[label] = counts.get(label, 0) + messages[text][1]
        elif text not in skipped:
            counts[label] = counts.get(label, 0) + 1
    return dict(sorted(counts.items()))


def read_texts(corpus, max_bytes, labels=None):
    """``(texts, labels, skipped, groups)`` of a corpus's documents as training reads them
    (:func:`textnb.io.corpus.document_texts`: binary files left out, an mbox file read as
    its messages, each of its file's class; a binary or empty message left out);
    ``skipped`` the :class:`~textnb.io.corpus.Skipped` names; ``labels`` (default the
    corpus's) are returned as an array unless given. ``groups``: None, or when an mbox
    file was read as its messages, the position in the corpus of each text's file (its
    messages are kept in one fold: :func:`textnb.core.folds.stratified_kfold`)."""
    given = labels is not None
    labels = corpus.labels if labels is None else labels
    from textnb.io.mailread import split_messages

    split = partial(split_messages, max_bytes=max_bytes)
    texts, kept, skipped, _ = document_texts(corpus.documents, split, max_bytes)
    chosen = [labels[i] for i in kept]
    groups = np.asarray(kept, dtype=np.int64) if skipped.messages else None
    return texts, (chosen if given else np.asarray(chosen)), skipped, groups


def default_model_path(path):
    """``<PATH name>.tnb``: the model file ``train`` writes when no ``-o`` is given
    (``stdin.tnb`` for ``-``, standard input, as for ``/dev/stdin``). The name is of the
    folder the path names: ``.`` and ``..`` are the current folder and its parent
    (``news.tnb`` inside ``news/``: until session 49 ``..tnb`` and ``...tnb``); ``model.tnb``
    for ``/``."""
    if os.fspath(path) == "-":
        return "stdin.tnb"
    base = os.path.basename(os.path.abspath(path)) or "model"
    base = os.path.splitext(base)[0] or "model"
    return base + ".tnb"


def multilabel_from_fasttext(corpus):
    """The :class:`~textnb.io.multilabel.MultiLabelCorpus` of a fastText corpus (None stays None)."""
    from textnb.io.multilabel import MultiLabelCorpus

    if corpus is None:
        return None
    return MultiLabelCorpus(source=corpus.source, ids=list(corpus.ids), documents=list(corpus.documents),
                            labels=[tuple(sorted(labs)) for labs in corpus.labels], unlabeled=corpus.unlabeled)


def open_multilabel_input(path, opts, *, label_file=None, strict=False, separate_documents=False, test=True):
    """The multi-label corpus at ``path``: a fastText or JSON Lines file (without
    ``label_file``; a regular file), a folder with a folder per label, or a folder and its ``label_file``
    (:func:`textnb.io.multilabel.read_multilabel_corpus`: ``strict``; ``separate_documents``,
    a document in several label folders read once per folder; ``test``, a split folder's
    test part listed). ``opts``: :class:`InputOptions` (the options a multi-label corpus does not
    read are refused: :func:`refuse_unread_options`)."""
    from textnb.io.multilabel import read_multilabel_corpus

    path = os.fspath(path)
    # a pipe (``-``, /dev/stdin, ``<(...)``): read once, here, and its content handed to the
    # reader its format asks for, as load_input does for a single-label corpus
    data = None if label_file is not None or os.path.isdir(path) else read_piped(path)
    name = input_name(path)
    if label_file is None and not separate_documents and not strict and (data is not None or os.path.isfile(path)):
        listed = _json_multilabel(name, opts, data, multilabel=True)  # (JSON Lines)
        if listed is not None:
            return listed
    # (--label-column, --class and the like: no columns in a folder or a fastText file)
    refuse_unread_options(name, opts, "multilabel")
    if label_file is None:
        fasttext = multilabel_from_fasttext(fasttext_corpus(name, opts, data=data))
        if fasttext is not None:
            return fasttext
        if data is not None and not bytes(data).strip():
            raise InputError(empty_input(path))
        if data is not None:
            raise InputError(f"{name}: not a multi-label corpus (from a pipe, a fastText or JSON Lines file; a "
                             f"folder per label, or a folder and its --labels file, by name)")
        if os.path.isfile(path):  # (found by a user trial: a TSV file was said to be "not a folder")
            if os.path.getsize(path) == 0:
                raise InputError(empty_input(path))
            raise InputError(f"{name}: not a multi-label corpus (a file is read as one when it is fastText, "
                             f"__label__ words before each text, or JSON Lines with a list of labels: a TSV/CSV "
                             f"file holds one label a row; else a folder per label, or a folder and its --labels file)")
        if strict:
            raise InputError("--strict applies to a label file (--labels FILE)")
    elif separate_documents:
        raise InputError("--separate-documents applies to one folder per label (--multilabel)")
    return read_multilabel_corpus(path, label_file=label_file, strict=strict,
                                  same_name="separate" if separate_documents else "error", test=test)
