"""Typed tables: the in-memory form of ARFF / CSV data for the tabular models.

Convention shared by every tabular model (TabularNB, APNBC on tables, LBR, TAN,
Bayes nets, NBU):

* ``X`` is a 2-D float64 array, one row per object, one column per attribute
  (the class attribute removed);
* a *nominal* attribute's cell holds the index of its value in
  ``Attribute.values`` (0 .. k-1), a *numeric* one holds the number;
* ``NaN`` means missing (ARFF ``?``, an empty CSV cell);
* ``y`` is an array of class labels (str).

Uncertain attributes (NBU, :mod:`textnb.io.uncertain`) are the one exception to "one
column per attribute": an ``"uncertain-numeric"`` attribute spans two columns (``L``,
``R``) and an ``"uncertain-nominal"`` one a column per value (its probabilities).
:func:`read_table` reads them from ``[L,R]`` / ``{v:p,...}`` cells without options; a
table without them is exactly the convention above.

*Text* attributes (kind ``"text"``: ARFF ``string`` attributes, CSV columns named with
``types={"body": "text"}``, DataFrame columns marked so) hold one document per cell.
A table with a text attribute has an ``X`` of dtype ``object``: a text cell is a
``str`` (None when missing: an empty document), every other cell the float it would
hold in a float64 ``X``. :class:`textnb.text.mixed.MixedNB` learns from such tables.

Entry points: :func:`read_table` (ARFF, CSV, TSV; for training, or ``like=`` a trained
model's attributes for prediction), :func:`encode_like` (re-code a table or raw rows
against a model's attributes), :func:`table_from_frame` (pandas).
"""

import math
import os
import re
import warnings
import numpy as np

from textnb.core.attributes import TEXT, Attribute, Table, found_values
from textnb.core.errors import DataWarning, InputError, input_name, short_repr, unknown_to_leave_out
from textnb.io.arff import is_arff_text, read_arff
from textnb.io.cells import UNSEEN, cell_reader, is_missing, read_cells, warn_unseen
from textnb.io.csvtable import MISSING, NO_HEADER_HINT, read_csv
from textnb.io.fasttext import DEFAULT_LABEL_PREFIX
from textnb.io.jsonlines import json_head
from textnb.io.numbers import parse_number
from textnb.io.uncertain import (UNCERTAIN_KINDS, UNCERTAIN_NOMINAL, CellError, column_slices,
                                 parse_uncertain_column)

__all__ = ["TEXT", "Attribute", "Table", "check_plain_attributes", "read_table", "encode_like", "table_from_frame"]

def check_plain_attributes(attributes, model):
    """Raise ValueError (one line) when ``attributes`` holds a text or an uncertain attribute
    (interval / distribution cells, :mod:`textnb.io.uncertain`), which ``model`` cannot use
    (the semi-naive models: LBR, TAN, Bayes nets, AODE: value indices only)."""
    for a in attributes or ():
        kind = getattr(a, "kind", None)
        if kind == TEXT:
            raise ValueError(
                f"attribute {a.name!r} is text; {model} does not support text attributes "
                f"(use naive Bayes, MixedNB, or leave the column out)"
            )
        if kind in UNCERTAIN_KINDS:
            raise ValueError(
                f"attribute {a.name!r} is {kind}; {model} does not support uncertain attributes "
                f"(interval / distribution cells: use TabularNB, or leave the column out)"
            )


def _cols(attributes, idx):
    """``X`` column indices of the attributes at positions ``idx``."""
    sl = column_slices(attributes)
    return [c for j in idx for c in range(sl[j].start, sl[j].stop)]


def table_format(path, data=None):
    """``(format, data)``: ``"arff"`` or ``"csv"`` (CSV / TSV, the delimiter found by
    :func:`textnb.io.csvtable.read_csv`) for the table at ``path``, by its name (``.arff``;
    ``.csv``, ``.tsv``, ``.tab``, ``.txt``), else by its content: ARFF when its first line
    that is neither blank nor a ``%`` comment starts with ``@relation`` (Weka's rule for the
    file's first declaration), CSV / TSV otherwise. A file of another name (``/dev/stdin``,
    ``<(...)``, ``data``, ``data.dat``, ``iris.data``) is read here, once (a pipe cannot be
    read twice), and ``data`` is its text; else ``data`` is the given one (content already
    read, or None). A spreadsheet, binary or compressed format (``.xls``, ``.parquet``,
    ``.gz``) is an InputError saying so (:func:`textnb.io.corpus.table_format_by_name`)."""
    from textnb.io.corpus import json_refusal, read_text_file, table_format_by_name

    fmt = table_format_by_name(path)
    if fmt is not None:
        return fmt, data

    text = read_text_file(path, "a table (ARFF, CSV or TSV)", data=data)
    refused = json_refusal(path, json_head(text[:8192].encode("utf-8", "replace"),
                                           lambda n: text[:n].encode("utf-8", "replace")), table=True)
    if refused is not None:
        raise refused
    return ("arff" if is_arff_text(text) else "csv"), text


def _read_columns(path, types=None, class_name=None, optional_types=False, fmt=None, data=None, skip=None,
                  nominal=None, header=True):
    """All columns of an ARFF / CSV file: (attributes, X, weights, skipped); ``fmt``,
    ``data``: as :func:`table_format` gives them (None: found here); ``skip``, ``skipped``:
    :func:`textnb.io.arff.read_arff`'s (date and relational attributes passed over, to be
    left out; none in a CSV file); ``nominal``, ``header``: :func:`textnb.io.csvtable.read_csv`'s
    (CSV / TSV only: an ARFF header declares its attributes and their types)."""
    if fmt is None:
        fmt, data = table_format(path, data)
    if fmt == "arff":
        if types:
            raise InputError(f"{path}: types= applies to CSV/TSV files; ARFF declares its types")
        if nominal:
            raise InputError(f"{path}: nominal= / --nominal-columns applies to CSV/TSV files; an ARFF file declares "
                             "its types (a nominal attribute as {1,2,3})")
        if not header:
            raise InputError(f"{path}: header=False / --no-header applies to CSV/TSV files; an ARFF file declares "
                             "its attributes in its header")
        arff = read_arff(path, data=data, skip=skip)
        return arff.attributes, arff.X, arff.weights, arff.skipped
    attributes, X = read_csv(path, types=types, class_name=class_name, optional_types=optional_types, data=data,
                             nominal=nominal, header=header)
    return attributes, X, None, []


def read_table(path, *, class_name=None, types=None, drop=None, like=None, classes=None, data=None, nominal=None,
               header=True):
    """Read an ARFF / CSV / TSV file into a :class:`Table`.

    Parameters
    ----------
    path : str or path-like
        ``.arff`` is read with :func:`textnb.io.arff.read_arff`; ``.csv``, ``.tsv``,
        ``.tab`` and ``.txt`` with :func:`textnb.io.csvtable.read_csv` (types inferred); a
        name without those endings (``/dev/stdin``, a pipe) by its content
        (:func:`table_format`: ARFF when it starts with ``@relation``), read once.
    class_name : str, default=None
        The class attribute; the last one when None.
    types : dict of {str: "nominal" or "numeric"}, default=None
        Forced column types for CSV / TSV files (also ``"uncertain-numeric"`` /
        ``"uncertain-nominal"``; without it, a column with ``[L,R]`` or ``{v:p,...}``
        cells is uncertain, see :mod:`textnb.io.uncertain`; and ``"text"``: a document
        per cell, ``X`` then has dtype object). ARFF files declare text attributes
        as ``string``.
    drop : str or sequence of str, default=None
        Attributes to leave out (ID columns, say); an ARFF ``date`` or ``relational``
        attribute, refused otherwise, is passed over unread when named here (with
        ``like``, also when the model lacks it).
    like : sequence of Attribute, default=None
        Read a query file against a trained model's attributes (``model.attributes_``):
        columns are matched by name and re-coded to the model's value indices (see
        :func:`encode_like`; an unseen nominal value becomes missing). The class
        column (``class_name``, or else the one column that is not a model
        attribute, if there is exactly one) may be absent or all ``?``.
    classes : sequence, default=None
        With ``like`` and no ``class_name``: the model's classes. The class column is then
        the one column that is not a model attribute and whose values include a class (an
        ID column, beside the class or alone, is not it; a column of numbers is when each of
        them is a class, as the labels ``0`` / ``1`` of a CSV file, read as numbers).
    data : bytes or str, default=None
        The file's content, when it was read already (a pipe: ``path`` then only names it).
    nominal : sequence of str, default=None
        CSV / TSV columns to read as nominal (Weka's CSVLoader ``-N``): names, 1-based
        numbers or ranges such as ``"2-4"`` (:func:`textnb.io.csvtable.column_refs`); number
        codes then are categories (strings) on every model. With ``like``, each model
        attribute is read as the model has it (a column trained nominal is read nominal
        without this): naming one the model has as numeric is an error.
    header : bool, default=True
        False: a CSV / TSV file without a header row, its columns named ``att1``, ``att2``,
        ... (Weka's names). With True, a first row that looks like data is a DataWarning
        (:func:`textnb.io.csvtable.looks_like_data`).

    Raises
    ------
    InputError
        One line naming the file: unreadable or empty file, syntax error (with its
        line), unknown class or drop name (listing the available ones), a numeric,
        uncertain or text class, a class with fewer than two values, a non-number in a
        numeric column, a malformed uncertain cell (with its row and column).
    """
    path = os.fspath(path)
    fmt, data = table_format(path, data)
    path = input_name(path)  # (read: ``-`` is named stdin from here on)
    if like is not None:
        like = list(like)
        types = dict(types or {})
        like_names = {a.name for a in like}
        if fmt == "csv":
            for a in like:
                types.setdefault(a.name, a.kind)
            _check_nominal_like(path, nominal, like, data, header)
        dropped = _names(drop)
        attributes, X, weights, skipped = _read_columns(
            path, types or None, class_name if class_name else "", optional_types=True, fmt=fmt, data=data,
            skip=lambda name: name in dropped or name not in like_names,  # (not the model's: unused)
            nominal=nominal, header=header,
        )
        drop = dropped + [n for n in skipped if n not in dropped] if skipped else drop
        return _query_table(path, attributes, X, weights, like, class_name, drop, like_names, classes)

    attributes, X, weights, _ = _read_columns(path, types, class_name, fmt=fmt, data=data, skip=_names(drop),
                                              nominal=nominal, header=header)
    names = [a.name for a in attributes]
    _check_class_kept(path, names, class_name, drop)
    keep = _drop_columns(path, names, drop)
    X = X[:, _cols(attributes, keep)]
    attributes = [attributes[j] for j in keep]
    names = [a.name for a in attributes]
    if not names:
        raise InputError(f"{path}: no attributes")
    if class_name is None:
        ci = len(names) - 1
    elif class_name in names:
        ci = names.index(class_name)
    else:
        raise InputError(f"{path}: no attribute named {class_name!r}; attributes: {', '.join(names)}")
    cls = attributes[ci]
    if cls.is_text:
        raise InputError(
            f"{path}: class attribute {cls.name!r} is text; the class must be a nominal value "
            f"(choose another with class_name / --class)"
        )
    if cls.is_uncertain:
        raise InputError(
            f"{path}: class attribute {cls.name!r} is uncertain; the class must be a certain nominal value"
        )
    if not cls.is_nominal:
        raise InputError(
            f"{path}: class attribute {cls.name!r} is numeric; naive Bayes needs a nominal class "
            f"(choose another with class_name / --class)"
        )
    if X.shape[0] == 0:  # (a CSV of one row: a header, or a data row without one)
        hint = f" under its header row ({NO_HEADER_HINT})" if fmt == "csv" and header else ""
        raise InputError(f"{path}: no data rows{hint}")
    if len(attributes) < 2:
        lines = [cls.name, *list(getattr(cls, "values", None) or ())[:100]]
        hint = ("; a fastText file whose first line does not start with a label? give --fasttext"
                if any(DEFAULT_LABEL_PREFIX in str(v) for v in lines) else
                "; a text corpus is a folder of one sub-folder per class (or train/ and test/ parts of those), or "
                "a TSV/CSV file of a label and a text column: a file of text alone is one document, to predict"
                if fmt == "csv" else "")
        raise InputError(f"{path}: only the class attribute {short_repr(cls.name)}; nothing to learn from{hint}")
    for a in attributes:
        if a is not cls and a.kind in ("nominal", UNCERTAIN_NOMINAL) and not a.values:
            raise InputError(
                f"{path}: column {a.name!r} has no known value (every cell is missing), so it has no values "
                f"to learn; leave it out (drop= / --ignore {a.name})"
            )
    cc = _cols(attributes, [ci])[0]
    yc = X[:, cc].astype(np.float64)
    labelled = ~np.isnan(yc)
    if not labelled.any():
        raise InputError(f"{path}: class attribute {cls.name!r} is missing in every row")
    X = np.delete(X[labelled], cc, axis=1)
    if weights is not None:
        weights = weights[labelled]
        if np.all(weights == 1.0):
            weights = None
    y = np.asarray(cls.values, dtype=str)[yc[labelled].astype(np.intp)]
    present = np.unique(y)
    if present.size < 2:
        raise InputError(
            f"{path}: class attribute {cls.name!r} has only one value ({str(present[0])!r}); "
            f"a classifier needs at least two"
        )
    if fmt != "arff":  # (an ARFF header declares its class nominal: the user chose it so)
        _warn_numeric_class(path, cls.name, present, len(y))
    return Table(
        attributes=[a for j, a in enumerate(attributes) if j != ci],
        X=X,
        y=y,
        class_attribute=cls,
        source=path,
        sample_weight=weights,
        classes=tuple(cls.values) if fmt == "arff" else None,  # (a CSV declares none)
        unlabeled=int((~labelled).sum()),  # rows of an unknown class: left out, counted
    )


#: a class of numbers with more distinct values than this (or than half the rows) is taken
#: for a measurement, not a set of classes (:func:`_warn_numeric_class`)
MANY_CLASSES = 20


def _warn_numeric_class(path, name, values, n_rows):
    """One DataWarning when the class column of a CSV/TSV file holds numbers with many
    distinct values (more than :data:`MANY_CLASSES`, or more than half the rows, and at
    least 3): each value becomes a class of its own, which a measurement (a price, an age)
    probably is not meant to be; naive Bayes predicts classes, so the column wants cutting
    into a few named ranges first."""
    k = len(values)
    if k < 3 or not (k > MANY_CLASSES or k > n_rows / 2):
        return
    try:
        if not all(math.isfinite(parse_number(str(v))) for v in values):
            return
    except ValueError:
        return
    warnings.warn(f"{path}: class attribute {name!r} holds numbers with {k} distinct values in {n_rows} rows: "
                  "each value is a class of its own; to predict ranges of it, cut it into a few named classes "
                  "first (or choose another class with class_name / --class)", DataWarning, stacklevel=3)


def _check_nominal_like(path, nominal, like, data, header):
    """InputError when ``nominal`` names a column that the model ``like`` reads as another
    kind (numeric): a query file is read as the model was trained."""
    if not nominal:
        return
    from textnb.io.csvtable import column_refs, read_header

    kinds = {a.name: a.kind for a in like}
    names = column_refs(path, nominal, read_header(path, data=data, header=header), optional=True)
    wrong = [n for n in names if kinds.get(n, "nominal") != "nominal"]
    if wrong:
        raise InputError(f"{path}: column {wrong[0]!r} is {kinds[wrong[0]]} in the model, which reads it as it was "
                         "trained; to read it as nominal, train with it nominal (nominal= / --nominal-columns)")


def _names(drop):
    """``drop`` (None, a name or names) as a list of names."""
    return [] if drop is None else [drop] if isinstance(drop, str) else list(drop)


def _check_class_kept(path, names, class_name, drop):
    """InputError when ``drop`` names the class attribute (``class_name``, or the last one):
    dropping it made the next-to-last attribute the class without a word."""
    if drop is None or not names:
        return
    dropped = {drop} if isinstance(drop, str) else set(drop)
    cls = class_name if class_name is not None else names[-1]
    if cls in dropped:
        which = "" if class_name is not None else " (the last attribute)"
        raise InputError(f"{path}: cannot leave out the class attribute {cls!r}{which}; to learn another class, "
                         "name it with --class (class_name=)")


def _drop_columns(path, names, drop):
    if drop is None:
        return list(range(len(names)))
    drop = [drop] if isinstance(drop, str) else list(drop)
    unknown = [d for d in drop if d not in names]
    if unknown:
        raise unknown_to_leave_out(path, unknown, names)
    return [j for j, n in enumerate(names) if n not in drop]


def _query_table(path, attributes, X, weights, like, class_name, drop, like_names, classes=None):
    names = [a.name for a in attributes]
    if needed := [n for n in _names(drop) if n in like_names]:
        raise InputError(f"{path}: cannot leave out (drop= / --ignore) the model's attribute(s) {needed}: "
                         "it predicts from them")
    keep = _drop_columns(path, names, drop)
    X = X[:, _cols(attributes, keep)]
    attributes = [attributes[j] for j in keep]
    names = [a.name for a in attributes]
    labels = {}  # column name -> its cells as class labels (None: missing)
    if class_name is None:
        extra = [a for a in attributes if a.name not in like_names]
        if classes is not None:
            # the column of classes: one whose values include a class (an ID column, beside the class or
            # alone, is not it; a CSV column of number labels was read as numbers: matched by number)
            known = [str(c) for c in classes]
            for a in extra:
                if (found := _class_labels(a, X[:, _cols(attributes, [names.index(a.name)])[0]], known)) is not None:
                    labels[a.name] = found
            extra = [a for a in extra if a.name in labels]
        class_name = extra[0].name if len(extra) == 1 else None
    elif class_name not in names:
        class_name = None  # a query file need not carry the class
    if X.shape[0] == 0:
        raise InputError(f"{path}: no data rows")
    cls, y = None, None
    if class_name is not None:
        ci = names.index(class_name)
        cls = attributes[ci]
        y = labels.get(class_name)
        col = X[:, _cols(attributes, [ci])[0]]
        if y is None and cls.is_nominal and not np.all(np.isnan(col := col.astype(np.float64))):
            y = np.array(
                [None if math.isnan(v) else cls.values[int(v)] for v in col], dtype=object
            )
    src = Table(attributes, X, None, None, path)
    Xq = _encode_table(src, like, path)
    return Table(list(like), Xq, y, cls, path, weights if weights is not None and np.any(weights != 1) else None)


def _class_labels(attribute, col, classes):
    """The cells of query column ``col`` (``attribute``) as labels, None where missing, when it
    holds one of ``classes`` (strings) at least once; else None. A nominal column's values are
    its labels; a numeric column's numbers are matched to the classes that are numbers (each of
    them: a column of other numbers, an ID, is not the class)."""
    if attribute.is_nominal:
        if not set(classes).intersection(map(str, attribute.values)):
            return None
        col = col.astype(np.float64)
        return np.array([None if math.isnan(v) else attribute.values[int(v)] for v in col], dtype=object)
    if attribute.kind != "numeric":
        return None
    by_number = {}
    for c in classes:
        try:
            by_number.setdefault(parse_number(c), c)
        except ValueError:
            continue
    col = col.astype(np.float64)
    numbers = col[~np.isnan(col)]
    if not numbers.size or not all(x in by_number for x in numbers):  # (a numeric ID column is not it)
        return None
    return np.array([None if math.isnan(x) else by_number[x] for x in col], dtype=object)


def _value_map(src, dst):
    """Index map from ``src`` nominal values to ``dst``'s (NaN where unseen), each value read
    as a query cell is (:mod:`textnb.io.cells`: ``"true"`` is ``"TRUE"``, ``"2.0"`` is ``"2"``)."""
    read = cell_reader(dst)
    m = np.array([read(v) for v in src.values], dtype=np.float64)
    m[m == UNSEEN] = np.nan
    return m


def _encode_table(table, attributes, where):
    names = [a.name for a in table.attributes]
    missing = [a.name for a in attributes if a.name not in names]
    if missing:
        # (the names of a file without a header row, some left out: --ignore att1)
        positional = all(re.fullmatch(r"att[0-9]+", a.name) for a in attributes)
        hint = ("; the model was trained on a file without a header row (its attributes att1, att2, ...): a CSV/TSV "
                "file without one is read so with header=False / --no-header") if positional and not any(
                    n.startswith("att") for n in names) else ""
        raise InputError(f"{where}: lacks the model's attribute(s) {missing}{hint}")
    src_sl, dst_sl = column_slices(table.attributes), column_slices(attributes)
    width = dst_sl[-1].stop if dst_sl else 0
    out = np.full((table.X.shape[0], width), np.nan)
    if any(a.is_text for a in attributes):
        out = out.astype(object)
    for k, dst in enumerate(attributes):
        j = names.index(dst.name)
        src = table.attributes[j]
        if src.is_text or dst.is_text:
            if not (src.is_text and dst.is_text):
                raise InputError(
                    f"{where}: attribute {dst.name!r} is {src.kind} here but {dst.kind} in the model"
                )
            out[:, dst_sl[k].start] = table.X[:, src_sl[j].start]
            continue
        if src.is_uncertain or dst.is_uncertain:
            out[:, dst_sl[k]] = _encode_uncertain(table.X[:, src_sl[j]].astype(np.float64), src, dst, where)
            continue
        c = dst_sl[k].start
        col = table.X[:, src_sl[j].start].astype(np.float64)
        known = ~np.isnan(col)
        if src.is_nominal and dst.is_nominal:
            m = _value_map(src, dst)
            if m.size:
                out[known, c] = m[col[known].astype(np.intp)]
                unseen = known & np.isnan(out[:, c].astype(np.float64))
                if unseen.any():
                    warn_unseen(f"{where}: attribute {dst.name!r}", int(unseen.sum()),
                                {src.values[int(v)] for v in col[unseen]})
        elif src.is_nominal:  # model numeric, file nominal: values must be numbers
            if src.values:
                out[known, c] = _nominal_numbers(src, dst, where)[col[known].astype(np.intp)]
        elif dst.is_nominal:  # model nominal, file numeric: match values by number (textnb.io.cells)
            read = cell_reader(dst)
            numbers, inverse = np.unique(col[known], return_inverse=True)
            codes = np.array([read(float(x)) for x in numbers], dtype=np.float64)
            out[known, c] = np.where(codes == UNSEEN, np.nan, codes)[inverse.ravel()]
            unmatched = int((known & np.isnan(out[:, c].astype(np.float64))).sum())
            warnings.warn(f"{where}: attribute {dst.name!r} is numeric here but nominal in the model; values "
                          f"are matched by number and {unmatched} of {int(known.sum())} match none (missing)",
                          DataWarning, stacklevel=2)
        else:
            out[:, c] = col
    return out


def _nominal_numbers(src, dst, where):
    """The numbers ``src``'s nominal values write, read as a numeric query cell is
    (:mod:`textnb.io.cells`); InputError naming the first that writes none."""
    read, nums = cell_reader(dst), []
    for v in src.values:
        try:
            nums.append(read(v))
        except ValueError:
            raise InputError(
                f"{where}: value {v!r} of attribute {dst.name!r} is not a number "
                f"(the model's attribute is numeric)"
            ) from None
    return np.asarray(nums, dtype=np.float64)


def _encode_uncertain(block, src, dst, where):
    """Re-code the columns of one attribute when either side is uncertain."""
    n = block.shape[0]
    if dst.kind == "uncertain-numeric":
        if src.kind == "uncertain-numeric":
            return block
        if src.kind == "numeric":
            return np.column_stack([block[:, 0], block[:, 0]])
        if src.kind == "nominal":
            x = np.full(n, np.nan)
            known = ~np.isnan(block[:, 0])
            if src.values:
                x[known] = _nominal_numbers(src, dst, where)[block[known, 0].astype(np.intp)]
            return np.column_stack([x, x])
    elif dst.kind == "uncertain-nominal":
        out = np.full((n, len(dst.values)), np.nan)
        pos = {v: i for i, v in enumerate(dst.values)}
        if src.kind == "nominal":
            known = ~np.isnan(block[:, 0])
            m = np.array([pos.get(v, -1) for v in src.values], dtype=np.intp)
            idx = m[block[known, 0].astype(np.intp)] if src.values else np.empty(0, dtype=np.intp)
            rows = np.flatnonzero(known)[idx >= 0]  # a value the model never saw: missing
            out[rows] = 0.0
            out[rows, idx[idx >= 0]] = 1.0
            unseen = np.flatnonzero(known)[idx < 0]
            if unseen.size:  # (said, as a plain nominal column says it)
                warn_unseen(f"{where}: attribute {dst.name!r}", int(unseen.size),
                            {src.values[int(block[r, 0])] for r in unseen}, stacklevel=4)
            return out
        if src.kind == "uncertain-nominal":
            known = ~np.isnan(block[:, 0])
            unknown = [i for i, v in enumerate(src.values) if v not in pos]
            if unknown:
                # a plain value (or a distribution) the model never saw: missing, as a plain nominal
                # column's (the whole file was refused, naming the cell a distribution)
                gone, rows, r = _unseen_values(src.values, np.where(known[:, None], block, 0.0), dst.values)
                if r is not None:
                    v = next(v for v, x in zip(src.values, block[r]) if x > 0 and v not in pos)
                    raise InputError(
                        f"{where}: row {r + 1}: unknown category {v!r} in a distribution of attribute "
                        f"{dst.name!r} (the model's values: {', '.join(dst.values)})"
                    )
                if gone:
                    warn_unseen(f"{where}: attribute {dst.name!r}", len(rows), set(gone), stacklevel=4)
                    known[rows] = False
            out[known] = 0.0
            for i, v in enumerate(src.values):
                if v in pos:
                    out[known, pos[v]] = block[known, i]
            return out
    raise InputError(
        f"{where}: attribute {dst.name!r} is {src.kind} here but {dst.kind} in the model"
    )


def encode_like(table_or_rows, attributes, *, source="<rows>"):
    """Re-code data against a trained model's attributes (``model.attributes_``).

    Parameters
    ----------
    table_or_rows : Table or sequence of rows
        A :class:`Table` whose columns are matched to ``attributes`` by name, or rows
        of cell values (strings or numbers) in the order of ``attributes``, or dicts
        mapping attribute name to value. ``""``, ``"?"``, None and NaN are missing. A
        cell is read by the rule of every query path (:mod:`textnb.io.cells`): a string
        that writes a number is that number (``"85"``), a number or bool the nominal
        value it equals (``2.0`` is ``"2"``, ``1`` is True in a column of bools).
        An uncertain numeric attribute takes ``"[L,R]"``, a pair ``(L, R)`` or a
        number; an uncertain nominal one ``"{v:p,...}"``, a dict ``{v: p}`` or a value;
        a text attribute a string (``X`` is then of dtype object; missing: None).
    attributes : sequence of Attribute
        The attributes the model was trained on.

    Returns
    -------
    X : ndarray of shape (n_rows, n_columns)
        Nominal cells hold the index into the model's value list. A nominal value the
        model never declared becomes missing (NaN), with a DataWarning per attribute: it
        is left out of the product, exactly like a ``?``, rather than failing the whole
        prediction. Uncertain
        attributes span several columns (:mod:`textnb.io.uncertain`).

    Raises
    ------
    InputError
        A required attribute is absent, a numeric cell is not a number, or an
        uncertain cell is malformed (L > R, probabilities not summing to 1, a
        distribution naming a value the model does not know).
    """
    attributes = list(attributes)
    if isinstance(table_or_rows, Table):
        return _encode_table(table_or_rows, attributes, table_or_rows.source or source)
    rows = list(table_or_rows)
    slices = column_slices(attributes)
    X = np.full((len(rows), slices[-1].stop if slices else 0), np.nan)
    if any(a.is_text for a in attributes):
        X = X.astype(object)
        for k, a in enumerate(attributes):
            if a.is_text:
                X[:, slices[k].start] = None
    table = []
    for r, row in enumerate(rows, start=1):
        if isinstance(row, dict):
            table.append([row.get(a.name) for a in attributes])
        else:
            table.append(list(row))
            if len(table[-1]) != len(attributes):
                raise InputError(f"{source}: row {r} has {len(table[-1])} values, expected {len(attributes)}")
    for k, a in enumerate(attributes):
        column = [cells[k] for cells in table]
        if not (a.is_text or a.is_uncertain):  # the rule of every query path (textnb.io.cells)
            X[:, slices[k].start] = read_cells(column, a, source)
            continue
        unseen = []  # (the values of the cells the model never saw, counted as missing: one warning)
        for r, c in enumerate(column, start=1):
            if c is None or (isinstance(c, float) and math.isnan(c)):
                continue
            if a.is_text:
                if isinstance(c, bytes):
                    c = c.decode("utf-8", "replace")
                if not isinstance(c, str):
                    raise InputError(
                        f"{source}: row {r}: value {c!r} of text attribute {a.name!r} is not a string"
                    )
                X[r - 1, slices[k].start] = c
            elif not (isinstance(c, str) and c.strip() in MISSING):
                X[r - 1, slices[k]] = _uncertain_cell(c.strip() if isinstance(c, str) else c, a, f"{source}: row {r}",
                                                      unseen)
        if unseen:
            warn_unseen(f"{source}: attribute {a.name!r}", len(unseen), set(unseen))
    return X


def _unseen_values(values, block, model_values):
    """``(unseen, rows, bad)`` of uncertain nominal cells (``block``: a row per cell, a column
    per one of ``values``; a missing cell all 0 or NaN): the values of the cells whose mass
    lies on values not in ``model_values`` only (one per such cell and value), those rows,
    and the first row whose mass lies on both (a distribution the model cannot read), or
    None. The one rule of a file's cells and of rows given to the library."""
    have = set(model_values)
    new = np.array([v not in have for v in values], dtype=bool)
    mass = np.nan_to_num(np.asarray(block, dtype=np.float64)) > 0
    on_new, on_old = mass[:, new].any(axis=1), mass[:, ~new].any(axis=1)
    bad = np.flatnonzero(on_new & on_old)
    rows = np.flatnonzero(on_new & ~on_old)
    unseen = [values[i] for r in rows for i in np.flatnonzero(mass[r] & new)]
    return unseen, rows, (int(bad[0]) if bad.size else None)


def _uncertain_cell(c, a, where, unseen):
    """The ``X`` columns of one uncertain cell given as text, number, pair or dict. A cell
    whose mass lies on values the model never saw only (a plain value, or a distribution
    of them) is missing, its values added to ``unseen`` (:func:`_unseen_values`: the rule
    of a file's cells too); a distribution of values it has and values it never saw is an
    error."""
    if a.kind == "uncertain-numeric" and isinstance(c, (tuple, list)) and len(c) == 2:
        c = f"[{float(c[0])!r},{float(c[1])!r}]"
    elif a.kind == "uncertain-nominal" and isinstance(c, dict):
        c = "{" + ",".join(f"{k}:{float(p)!r}" for k, p in c.items()) + "}"
    elif a.kind == "uncertain-nominal" and not isinstance(c, str):  # a number or bool: the value it equals
        i = cell_reader(a)(c)
        c = a.values[int(i)] if i >= 0 else str(c)
    elif not isinstance(c, str):
        c = repr(float(c)) if isinstance(c, (int, float, np.number)) else str(c)
    try:
        values, block = parse_uncertain_column(a.kind, [c])  # (a nominal cell: its own values)
    except CellError as exc:
        raise InputError(f"{where}: attribute {a.name!r}: {exc}") from None
    if a.kind != "uncertain-nominal":
        return block[0]
    gone, _, bad = _unseen_values(values, block, a.values)
    if bad is not None:
        v = next(v for v, x in zip(values, block[0]) if x > 0 and v not in a.values)
        raise InputError(f"{where}: attribute {a.name!r}: unknown category {v!r} in distribution {c!r}")
    if gone:  # a value the model never saw: missing, as for a certain nominal
        unseen.extend(gone)
        return np.nan
    out = np.zeros(len(a.values))  # (its values put where the model has them)
    out[[a.values.index(v) for v in values]] = block[0]
    return out


def table_from_frame(df, class_name=None, *, types=None, source="<DataFrame>"):
    """Build a :class:`Table` from a pandas DataFrame.

    Numeric (non-boolean) columns become numeric attributes; categorical columns
    become nominal with their categories in order; every other column becomes nominal
    with its distinct values as strings, sorted (as a CSV column's,
    :func:`textnb.core.attributes.found_values`). None, NaN and pandas' ``NA`` / ``NaT``
    are missing (:func:`textnb.io.cells.is_missing`, the rule of query cells). The class is ``class_name`` or the last column.

    ``types={name: "text"}`` marks columns of dtype ``string`` or ``object`` as text
    attributes (a document per cell; missing cells are empty documents); ``X`` then
    has dtype object. ``"nominal"`` forces a numeric column to be nominal.

    Raises
    ------
    InputError
        Unknown class or ``types`` column, an unknown type, a column marked text that
        is not of dtype string / object or holds a non-string cell, a text class.
    """
    import pandas as pd

    names = [str(c) for c in df.columns]
    if class_name is None:
        class_name = names[-1] if names else None
    if class_name not in names:
        raise InputError(f"{source}: no column named {class_name!r}; columns: {', '.join(names)}")
    types = dict(types or {})
    unknown = sorted(set(types) - set(names))
    if unknown:
        raise InputError(f"{source}: types given for unknown column(s) {unknown}; columns: {', '.join(names)}")
    for name, kind in types.items():
        if kind not in ("nominal", TEXT):
            raise InputError(f"{source}: type {kind!r} of column {name!r} is not 'nominal' or 'text'")
    if types.get(class_name) == TEXT:
        raise InputError(f"{source}: class column {class_name!r} cannot be text")
    attributes, cols = [], []
    for name, col in zip(names, df.columns):
        s = df[col]
        if types.get(name) == TEXT:
            if not (pd.api.types.is_string_dtype(s.dtype) or s.dtype == object):
                raise InputError(
                    f"{source}: column {name!r} has dtype {s.dtype}; only string / object columns can be text"
                )
            cells = []
            for i, v in enumerate(s.tolist()):
                if is_missing(v):
                    cells.append(None)
                elif isinstance(v, str):
                    cells.append(v)
                else:
                    raise InputError(
                        f"{source}: row {i + 1}: value {v!r} of text column {name!r} is not a string"
                    )
            attributes.append(Attribute(name, TEXT, []))
            col_values = np.empty(len(cells), dtype=object)
            col_values[:] = cells
            cols.append(col_values)
        elif isinstance(s.dtype, pd.CategoricalDtype):  # (its categories are declared values)
            values = [str(v) for v in s.cat.categories]
            codes = s.cat.codes.to_numpy().astype(np.float64)
            codes[codes < 0] = np.nan
            attributes.append(Attribute(name, "nominal", values))
            cols.append(codes)
        elif pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_bool_dtype(s.dtype) \
                and name != class_name and types.get(name) != "nominal":
            attributes.append(Attribute(name, "numeric", []))
            cols.append(s.to_numpy(dtype=np.float64, na_value=np.nan))
        else:
            cells = [None if is_missing(v) else str(v) for v in s.tolist()]
            values = found_values(c for c in cells if c is not None)
            index = {v: k for k, v in enumerate(values)}
            attributes.append(Attribute(name, "nominal", values))
            cols.append(np.array([np.nan if c is None else index[c] for c in cells], dtype=np.float64))
    if any(a.is_text for a in attributes):
        X = np.empty((len(df), len(cols)), dtype=object)
        for j, c in enumerate(cols):
            X[:, j] = c
    else:
        X = np.column_stack(cols) if cols else np.empty((len(df), 0))
    ci = names.index(class_name)
    cls = attributes[ci]
    yc = X[:, ci].astype(np.float64)
    labelled = ~np.isnan(yc)
    y = np.asarray(cls.values, dtype=str)[yc[labelled].astype(np.intp)]
    if np.unique(y).size < 2:
        raise InputError(f"{source}: class column {class_name!r} has fewer than two values")
    return Table(
        [a for j, a in enumerate(attributes) if j != ci],
        np.delete(X[labelled], ci, axis=1),
        y,
        cls,
        source,
        classes=tuple(cls.values) if isinstance(df[class_name].dtype, pd.CategoricalDtype) else None,
        unlabeled=int((~labelled).sum()),
    )
