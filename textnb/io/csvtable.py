"""Reading CSV / TSV files, with a header row or without, into typed columns.

Types are inferred per column: a column is *numeric* when every non-missing cell is a
number (:func:`textnb.io.numbers.parse_number`: ASCII digits, sign, point, exponent; not
``1_000`` or ``١٢``) and one is finite, otherwise *nominal*: its values sorted, as the classes
of a CSV are (:func:`textnb.core.attributes.found_values`: one order whatever the order of the
rows, the order of an ARFF header declaring the same values sorted; Weka's CSV loader keeps the
order of first appearance). An empty cell or ``?`` is missing. ``types={name: "nominal" |
"numeric"}`` overrides the inference; a cell that is not a number in a column forced
numeric is an :class:`~textnb.core.errors.InputError` naming the file, row and column. In a
file of semicolons, a column of numbers written with a decimal comma (``1,5``) is numeric, the
comma read as the point (:func:`decimal_comma_numbers`).
``nominal=`` names columns by name, 1-based number or range (``"2-4"``, ``"first"``,
``"last"``; Weka's CSVLoader ``-N``) to read as nominal: number codes (``1``, ``2``, ``3``)
become categories, their cells kept as written.

Header: the first row names the columns. ``header=False`` reads a file without one (Weka's
CSVLoader ``-H``): every row is data, the columns are named ``att1``, ``att2``, ... as Weka
names them. A first row that looks like data (:func:`looks_like_data`: numbers, and cells that
recur in their column below) read as a header is a :class:`~textnb.core.errors.DataWarning`
naming the file: that row is not read as data (Weka drops it without a word).

Uncertain values (:mod:`textnb.io.uncertain`): a column with a cell ``"[3.1,4.2]"`` is
read as ``"uncertain-numeric"`` (two ``X`` columns, L and R), one with a cell
``"{red:0.7,blue:0.3}"`` as ``"uncertain-nominal"`` (one ``X`` column per value, the
probabilities); plain cells in such columns are certain values. ``types`` may also
force these two kinds. Malformed cells (L > R, probabilities not summing to 1,
garbage) are one-line :class:`~textnb.core.errors.InputError` s naming file, row and column.

Text columns are never inferred: ``types={name: "text"}`` makes a column hold one
document per cell (``X`` is then of dtype object, the text cells ``str``, an empty or
``?`` cell None: an empty document; see :mod:`textnb.io.tables`).
"""

import csv
import io
import math
import re
import warnings

import numpy as np

from textnb.core.errors import DataWarning, InputError, RowError, empty_input
from textnb.core.attributes import MAX_COLUMNS, Attribute, found_values, repeated
from textnb.io.corpus import checked_rows, csv_quoting, CsvReader, delimiter_of, read_piped, read_text_file, row_width_error
from textnb.io.files import open_regular_binary
from textnb.io.jsonlines import is_json_lines, json_fields, json_head
from textnb.io.numbers import is_number, parse_number
from textnb.io.uncertain import (
    UNCERTAIN_KINDS,
    UNCERTAIN_NOMINAL,
    UNCERTAIN_NUMERIC,
    CellError,
    cell_kind,
    column_slices,
    parse_uncertain_column,
)

__all__ = ["read_csv", "read_header", "column_refs", "looks_like_data", "positional_names", "decimal_comma_numbers",
           "MISSING", "NO_HEADER_HINT"]

#: Cell texts read as a missing value.
MISSING = frozenset({"", "?"})
_TEXT = "text"
_KINDS = ("nominal", "numeric") + UNCERTAIN_KINDS + (_TEXT,)


def _warn_if_numbers_but_a_few(path, name, col, looks, linenos):
    """A :class:`~textnb.core.errors.DataWarning` when a column read as nominal is numbers but
    for a few cells of one to three texts (``NA``, ``-``, ``n/a``: a missing value written
    as pandas or R write it, which this format does not read as missing): its numbers then
    become unordered values, silently. Whenever most known cells are numbers (more than half,
    and at least two), whatever the size of the table: a column of codes (``a1``, ``b2``) or of
    words with one number says nothing."""
    known = [c for c in col if c not in MISSING]
    odd = [c for c, ok in zip(known, looks) if not ok]
    numbers = len(known) - len(odd)
    if not odd or numbers < 2 or numbers * 2 <= len(known) or len(set(odd)) > 3:
        return
    first = next(i for i, c in enumerate(col) if c == odd[0])
    texts = ", ".join(repr(t) for t in dict.fromkeys(odd))
    warnings.warn(f"{path}:{linenos[first]}: column {name!r} is read as nominal, its numbers as unordered "
                  f"values, because {len(odd)} of its {len(known)} known cells "
                  f"{'is not a number' if len(odd) == 1 else 'are not numbers'} ({texts}); "
                  "if they mean missing, write ? or leave them empty", DataWarning, stacklevel=4)


#: a number written with a decimal comma (``1,5``, ``-0,25e3``), or an integer (``3``, ``2e3``)
_DECIMAL_COMMA = re.compile(r"[+-]?[0-9]+(?:,[0-9]+)?(?:[eE][+-]?[0-9]+)?", re.ASCII)


def _comma_number(cell, delimiter):
    """Whether ``cell`` is a number with a decimal comma in a file of semicolons (what
    :func:`decimal_comma_numbers` reads), for the warning of a column of numbers but for a
    few cells (found by a user trial: a decimal-comma column with one ``NA`` was nominal
    without a word)."""
    return delimiter == ";" and _DECIMAL_COMMA.fullmatch(cell) is not None


def decimal_comma_numbers(cells, delimiter):
    """The numbers of a column of cells written with a decimal comma, else None: the one rule
    of every table read from a CSV file (training and query files alike, inferred or forced
    numeric). In a file whose ``delimiter`` is ``;`` (as spreadsheets write CSV where the
    decimal mark is a comma), a column whose every known cell (``cells``, stripped; not
    :data:`MISSING`) is a number with an optional sign, digits, one comma, digits and an
    optional exponent, or an integer, and at least one has a comma, is numbers, the comma read
    as the decimal point: a float per cell (None where missing; ``inf`` when it overflows).
    In a file of any other delimiter, or a column of other cells (``1.5`` beside ``1,5``), None:
    its cells are read as :func:`textnb.io.numbers.parse_number` reads them."""
    if delimiter != ";":
        return None
    known = [c for c in cells if c not in MISSING]
    if not any("," in c for c in known) or not all(_DECIMAL_COMMA.fullmatch(c) for c in known):
        return None
    return [None if c in MISSING else float(c.replace(",", ".")) for c in cells]


def _float(s):
    """The finite number ``s`` writes (:func:`textnb.io.numbers.parse_number`), else None."""
    try:
        x = parse_number(s)
    except ValueError:
        return None
    return x if math.isfinite(x) else None


def _read_text(path, encoding, *, size=-1, errors="strict", data=None):
    """The file's text (about its first ``size`` bytes; all with -1), a leading BOM dropped;
    InputError naming the file when it cannot be read, is binary (or not ``encoding`` text) or
    is empty. ``encoding`` None: each line decoded as a corpus's rows are
    (:func:`textnb.io.corpus.read_text_file`: UTF-8, else Windows-1252, else Latin-1).
    ``data`` (bytes or str): the content, read already (a pipe; ``path`` then only names it;
    a pipe named by ``path`` is read here, :func:`textnb.io.corpus.read_piped`)."""
    if data is None and encoding is not None:
        data = read_piped(path)
    if data is not None and not (encoding is not None and isinstance(data, (bytes, bytearray))):
        text = read_text_file(path, "a CSV/TSV table", data=data if size < 0 else data[:size])
    elif data is not None:
        try:
            text = bytes(data if size < 0 else data[:size]).decode(encoding, errors)
        except UnicodeDecodeError as exc:
            raise InputError(f"{path}: not {encoding} text ({exc.reason} at byte {exc.start})") from None
    elif encoding is None:
        text = read_text_file(path, "a CSV/TSV table", max_bytes=None if size < 0 else size)
    else:
        try:
            with io.TextIOWrapper(open_regular_binary(path), encoding=encoding, errors=errors, newline="") as f:
                text = f.read(size)
        except OSError as exc:
            raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
        except UnicodeDecodeError as exc:
            raise InputError(f"{path}: not {encoding} text ({exc.reason} at byte {exc.start})") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip():
        raise InputError(empty_input(path))
    return text


def read_header(path, *, encoding=None, data=None, header=True):
    """The column names of a delimited text file (its first row, as :func:`read_csv` reads it;
    ``header=False``: ``att1``, ``att2``, ... as many as its first row has cells);
    ``data``: its content, read already (a pipe); a JSON Lines file's fields
    (:func:`textnb.io.jsonlines.json_fields`)."""
    path = str(path)
    sample = _read_text(path, encoding, size=65536, errors="replace", data=data)
    # (a first line that starts like an object: read whole, :func:`textnb.io.jsonlines.json_head`)
    head = json_head(sample.encode("utf-8", "replace"),
                     lambda n: _read_text(path, encoding, size=n, errors="replace", data=data).encode("utf-8", "replace"))
    if is_json_lines(path, head):  # (its fields: read as a text corpus, refused as a table)
        return json_fields(head)
    try:
        delimiter = delimiter_of(path, sample)
        first = next(CsvReader(sample.splitlines(), delimiter=delimiter, quoting=csv_quoting(delimiter)))
    except (csv.Error, StopIteration):
        raise RowError(path, 1, f"cannot read the {'header' if header else 'first'} row", None if header else 1) from None
    return [h.strip() for h in first] if header else positional_names(len(first))


def positional_names(n):
    """The names of the ``n`` columns of a file without a header row: ``att1`` ... ``attN``,
    as Weka's CSVLoader (``-H``) names them."""
    return [f"att{j + 1}" for j in range(n)]


#: what a message about a first row that may be data suggests
NO_HEADER_HINT = "a file without a header row? read it with header=False / --no-header"


#: the rows below the first that :func:`looks_like_data` reads to see whether a column holds numbers
_HEADER_SAMPLE = 200


def looks_like_data(first, rows):
    """Whether the first row ``first`` (its cells, stripped) of a delimited file looks like a
    data row, not a header, against ``rows`` (the cells of the rows below):

    * a cell that is not a number and stands above a column of numbers (in the first
      :data:`_HEADER_SAMPLE` rows below) is a name: a header (``sepal_length`` above numbers);
    * otherwise each cell is a finite number, missing (empty or ``?``) or a value; a value
      *recurs* when a row below that is not the first row again has it in its column. The row
      is data when at most a quarter of its values do not recur (an ID such as promoters'
      ``S10``, a rare value) and it has a value or a number. Without a number in it, copies of
      the first row below do not count: a header row repeated in the file (two files
      concatenated) has names found only in its copies, while a data row repeated
      (audiology's duplicate rows) has values that recur in other rows too.

    A header of names (``sepal_length``, ``class``) has names that do not recur in their
    columns; ``5.1,3.5,1.4,0.2,Iris-setosa`` and ``sunny,hot,high,FALSE,no`` are data. No
    header of the bundled and shared tables is taken for data, and the first row of each
    written without its header is found to be data (one that has no other row cannot be
    told: :func:`textnb.io.tables.read_table` then hints at ``--no-header``)."""
    numbers = any(_float(c) is not None for c in first)
    others = {j: c for j, c in enumerate(first) if _float(c) is None and c not in MISSING}
    if not (numbers or others):
        return False
    rows = rows if isinstance(rows, list) else list(rows)
    first = list(first)
    for j in others:
        known = [r[j].strip() for r in rows[:_HEADER_SAMPLE] if j < len(r) and r[j].strip() not in MISSING]
        if known and all(_float(c) is not None for c in known):
            return False  # (a name above numbers)
    allowed, unseen = len(others) // 4, 0
    for j, c in others.items():  # column by column; a header's names soon exceed the allowance
        if not any(j < len(r) and r[j].strip() == c and (numbers or [x.strip() for x in r] != first) for r in rows):
            unseen += 1
            if unseen > allowed:
                return False
    return True


def column_refs(path, refs, names, *, what="nominal= / --nominal-columns", optional=False):
    """The column names ``refs`` name among ``names`` (a file's columns), in file order,
    each once. A reference is a column name, a 1-based column number or a range of them
    (``2-4``, ``first``, ``last``, ``3-last``), as Weka's range options take them; a name
    the file has wins over a number (a column named ``2``). InputError naming ``path`` and
    ``what`` (the option) for a name the file lacks (``optional``: left out instead) or a
    number out of range."""
    n = len(names)
    picked = set()

    def number(text):
        t = text.strip().lower()
        if t == "first":
            return 1
        if t == "last":
            return n
        if not t.isdigit():
            return None
        k = int(t)
        if not 1 <= k <= n:
            raise InputError(f"{path}: column {text.strip()} ({what}) is out of range 1..{n}")
        return k

    for ref in refs:
        ref = str(ref).strip()
        if ref in names:
            picked.add(names.index(ref))
            continue
        k = number(ref)
        if k is None and "-" in ref:
            lo, _, hi = ref.partition("-")
            a, b = number(lo), number(hi)  # (None for a word or an empty side: not a range)
            if a is not None and b is not None:
                if a > b:
                    raise InputError(f"{path}: column range {ref} ({what}) runs backwards")
                picked.update(range(a - 1, b))
                continue
        if k is not None:
            picked.add(k - 1)
        elif not optional:
            raise InputError(f"{path}: no column {ref!r} ({what}); columns: {', '.join(names)}")
    return [names[j] for j in sorted(picked)]


def _table_rows(path, reader, header=True):
    """The ``(line, cells)`` of a table's ``csv.reader`` (:func:`checked_rows`); a row that
    cannot be read raises its :class:`~textnb.core.errors.RowError` with its number among
    the data rows (the rows before it that are not blank, after the ``header`` row), as
    the checks of :func:`read_csv` name a row."""
    rows = []
    try:
        rows.extend(checked_rows(path, reader))
    except RowError as exc:
        data = sum(1 for _, r in rows if r and any(c.strip() for c in r)) - (1 if header else 0)
        exc.row = data + 1 if data >= 0 else None  # (None: the header row itself)
        raise
    return rows


def read_csv(path, *, types=None, class_name=None, optional_types=False, encoding=None, data=None, nominal=None,
             header=True):
    """Read a delimited text file with a header row (or, ``header=False``, without one).

    Parameters
    ----------
    path : str or path-like
        ``.tsv`` / ``.tab`` (tab); else the delimiter its first line shows (a TAB, else a comma,
        semicolon or bar: :func:`textnb.io.corpus.delimiter_of`).
    types : dict of {str: "nominal", "numeric", "uncertain-numeric", "uncertain-nominal" or "text"}, default=None
        Forced column types; other columns are inferred (never as text).
    class_name : str, "" or None, default=None
        The class column, read as nominal unless ``types`` says otherwise (None: the
        last column; ``""``: no class column).
    optional_types : bool, default=False
        Ignore ``types`` entries for columns the file does not have (query files).
    encoding : str, default=None
        None: each line UTF-8, else Windows-1252, else Latin-1, as a text corpus's rows are
        decoded (:func:`textnb.io.corpus.decode_lines`); a codec name: the file must be
        text in it.
    data : bytes or str, default=None
        The content, when it was read already (a pipe: ``path`` then only names it).
    nominal : sequence of str, default=None
        Columns to read as nominal whatever their cells (number codes become categories, as
        Weka's CSVLoader ``-N``): names, 1-based numbers or ranges (:func:`column_refs`);
        with ``optional_types``, names the file lacks are left out.
    header : bool, default=True
        False: the file has no header row; every row is data and the columns are named
        ``att1``, ``att2``, ... (:func:`positional_names`). With a header row that looks like
        data (:func:`looks_like_data`) a DataWarning says so.

    Returns
    -------
    attributes : list of Attribute
        One per column, in file order.
    X : ndarray of shape (n_rows, n_x_columns)
        The tabular convention (nominal index or number; NaN = missing); an uncertain
        attribute spans several columns (:func:`textnb.io.uncertain.column_slices`).
        dtype object when a column is text.
    """
    path = str(path)
    types = dict(types or {})
    text = _read_text(path, encoding, data=data)
    # the corpus reader's rows: a quoted cell may hold line breaks, one never closed is an error
    delimiter = delimiter_of(path, text[:65536])
    reader = CsvReader(io.StringIO(text, newline=""), delimiter=delimiter, quoting=csv_quoting(delimiter),
                        strict=True)
    rows = _table_rows(path, reader, header)  # (line, cells)
    first = [h.strip() for h in rows[0][1]] if rows else []
    if not header:
        if len(first) > MAX_COLUMNS:
            raise RowError(path, 1, f"{len(first)} columns, over the limit of {MAX_COLUMNS}", 1)
        header = positional_names(len(first))
        rows = [(0, [])] + rows  # (no header row: every row is data)
    else:
        header = first
        if not header:
            raise RowError(path, 1, "no header row (the first line holds no column names)")
        if len(header) > MAX_COLUMNS:
            raise RowError(path, 1, f"{len(header)} columns, over the limit of {MAX_COLUMNS}")
        data_like = looks_like_data(header, [r for _, r in rows[1:]])
        hint = f" ({NO_HEADER_HINT})" if data_like else ""
        if any(h == "" for h in header):
            raise RowError(path, 1, f"header has an empty column name{hint}")
        if dup := repeated(header):
            raise RowError(path, 1, f"column name(s) {dup} appear twice in the header{hint}")
        if data_like:
            shown = ",".join(header[:6]) + (",..." if len(header) > 6 else "")
            warnings.warn(f"{path}:1: the first row ({shown}) looks like data but is read as the header (the column "
                          f"names), not as a data row; {NO_HEADER_HINT}", DataWarning, stacklevel=3)
    if nominal:
        for name in column_refs(path, nominal, header, optional=optional_types):
            kind = types.setdefault(name, "nominal")
            if kind != "nominal":
                raise InputError(f"{path}: column {name!r} is named nominal (nominal= / --nominal-columns) "
                                 f"but given the type {kind!r}")
    unknown = sorted(set(types) - set(header))
    if optional_types:
        types = {k: v for k, v in types.items() if k in header}
    elif unknown:
        raise InputError(f"{path}: types given for unknown column(s) {unknown}; columns: {header}")
    for name, kind in types.items():
        if kind not in _KINDS:
            raise InputError(f"{path}: type {kind!r} of column {name!r} is not one of {_KINDS}")
    if class_name is None:
        class_name = header[-1]
    if class_name in header:
        if types.get(class_name) == _TEXT:
            raise InputError(f"{path}: the class column {class_name!r} cannot be text")
        types.setdefault(class_name, "nominal")
    body, linenos = [], []
    for i, r in rows[1:]:
        if not r or all(c.strip() == "" for c in r):
            continue
        if len(r) != len(header):
            raise row_width_error(path, i, len(r), len(header), row=len(body) + 1)
        body.append([c.strip() for c in r])
        linenos.append(i)
    n, d = len(body), len(header)
    attributes, blocks = [], []
    X = np.full((n, d), np.nan)
    texts = {}  # attribute position -> cells
    for j, name in enumerate(header):
        col = [r[j] for r in body]
        kind = types.get(name)
        if kind == _TEXT:
            texts[len(attributes)] = [None if c in MISSING else c for c in col]
            attributes.append(Attribute(name, _TEXT, []))
            blocks.append(X[:, j:j + 1])
            continue
        shapes = [(i, cell_kind(c)) for i, c in enumerate(col) if c not in MISSING and c[:1] in "[{"]
        shapes = [(i, k) for i, k in shapes if k is not None]
        if kind is None and shapes:
            found = {k for _, k in shapes}
            if len(found) > 1:
                i = next(i for i, k in shapes if k != shapes[0][1])
                raise RowError(path, linenos[i], f"column {name!r} mixes intervals and distributions ({col[i]!r})",
                               i + 1)
            kind = UNCERTAIN_NUMERIC if found == {"interval"} else UNCERTAIN_NOMINAL
        if kind in UNCERTAIN_KINDS:
            try:
                values, block = parse_uncertain_column(kind, col)
            except CellError as exc:
                raise RowError(path, linenos[exc.index], f"column {name!r}: {exc}", exc.index + 1) from None
            if kind == UNCERTAIN_NOMINAL and values:  # (the values named, sorted as a nominal column's)
                index = {v: k for k, v in enumerate(values)}
                values = found_values(values)
                block = block[:, [index[v] for v in values]]
            attributes.append(Attribute(name, kind, values))
            blocks.append(block)
            continue
        if shapes:
            i = shapes[0][0]
            raise RowError(path, linenos[i], f"column {name!r} is declared {kind}, but cell {col[i]!r} is an uncertain "
                                             f"value", i + 1)
        blocks.append(X[:, j:j + 1])
        commas = decimal_comma_numbers(col, delimiter) if kind in (None, "numeric") else None
        nums = ([None if c in MISSING else _float(c) for c in col] if commas is None else
                [x if x is not None and math.isfinite(x) else None for x in commas])
        if kind is None:
            # "inf" / "nan" among numbers make a numeric column with a bad cell, not a nominal one
            looks = [x is not None or commas is not None or is_number(c) for x, c in zip(nums, col) if c not in MISSING]
            kind = "numeric" if all(looks) and any(x is not None for x in nums) else "nominal"
            if kind == "nominal":  # (a decimal comma is a number too to the warning, not to the column's kind)
                _warn_if_numbers_but_a_few(path, name, col, [ok or _comma_number(c, delimiter) for ok, c in
                                                             zip(looks, (c for c in col if c not in MISSING))], linenos)
        if kind == "numeric":
            for i, (x, c) in enumerate(zip(nums, col)):
                if c in MISSING:
                    continue
                if x is None:
                    problem = "is not finite" if commas is not None or is_number(c) else "is not a number"
                    raise RowError(path, linenos[i], f"value {c!r} in numeric column {name!r} {problem}", i + 1)
                X[i, j] = x
            attributes.append(Attribute(name, "numeric", []))
        else:
            values = found_values(c for c in col if c not in MISSING)
            index = {v: k for k, v in enumerate(values)}
            X[:, j] = [np.nan if c in MISSING else index[c] for c in col]
            attributes.append(Attribute(name, "nominal", values))
    if any(a.kind in UNCERTAIN_KINDS for a in attributes):
        X = np.hstack(blocks) if blocks else X
    if texts:
        X = X.astype(object)
        slices = column_slices(attributes)
        for k, cells in texts.items():
            X[:, slices[k].start] = cells
    return attributes, X
