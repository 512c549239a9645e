"""Typed tables: the in-memory form of ARFF / CSV data for the tabular models.

Convention shared by every tabular model (TabularNB, APNBC on tables, LBR, TAN,
Bayes nets, NBU):

* ``X`` is a 2-D float64 array, one row per object, one column per attribute
  (the class attribute removed);
* a *nominal* attribute's cell holds the index of its value in
  ``Attribute.values`` (0 .. k-1), a *numeric* one holds the number;
* ``NaN`` means missing (ARFF ``?``, an empty CSV cell);
* ``y`` is an array of class labels (str).

Entry points: :func:`read_table` (ARFF, CSV, TSV; for training, or ``like=`` a trained
model's attributes for prediction), :func:`encode_like` (re-code a table or raw rows
against a model's attributes), :func:`table_from_frame` (pandas).
"""

import math
import os
from dataclasses import dataclass, field

import numpy as np

from textnb.errors import InputError

__all__ = ["Attribute", "Table", "read_table", "encode_like", "table_from_frame"]

_MISSING_TEXT = frozenset({"", "?"})


@dataclass
class Attribute:
    """One column: ``kind`` is ``"nominal"`` or ``"numeric"`` (uncertain kinds: see NBU)."""

    name: str
    kind: str
    values: list = field(default_factory=list)

    @property
    def is_nominal(self):
        return self.kind == "nominal"


@dataclass
class Table:
    """Objects with typed attributes and a class column, read from ``source``.

    ``y`` is a str array for training tables. Tables read with ``like=`` (query files)
    have ``y`` None when the file has no class column or only ``?`` in it, else an
    object array with None for the unknown labels. ``sample_weight`` holds ARFF
    instance weights (None when every weight is 1).
    """

    attributes: list
    X: np.ndarray
    y: np.ndarray
    class_attribute: Attribute
    source: str = ""
    sample_weight: np.ndarray = None

    @property
    def nominal_mask(self):
        return np.array([a.is_nominal for a in self.attributes], dtype=bool)

    @property
    def n_values(self):
        """Number of declared values per attribute (0 for numeric ones)."""
        return np.array([len(a.values) if a.is_nominal else 0 for a in self.attributes])

    @property
    def attribute_names(self):
        return [a.name for a in self.attributes]


_CSV_EXT = (".csv", ".tsv", ".tab", ".txt")


def _read_columns(path, types=None, class_name=None, optional_types=False):
    """All columns of an ARFF / CSV file: (attributes, X, weights)."""
    lower = path.lower()
    if lower.endswith(".arff"):
        from textnb.arff import read_arff

        if types:
            raise InputError(f"{path}: types= applies to CSV/TSV files; ARFF declares its types")
        data = read_arff(path)
        return data.attributes, data.X, data.weights
    if lower.endswith(_CSV_EXT):
        from textnb.csvtable import read_csv

        attributes, X = read_csv(path, types=types, class_name=class_name, optional_types=optional_types)
        return attributes, X, None
    raise InputError(f"{path}: unknown table format (expected .arff, .csv, .tsv or .txt)")


def read_table(path, *, class_name=None, types=None, drop=None, like=None):
    """Read an ARFF / CSV / TSV file into a :class:`Table`.

    Parameters
    ----------
    path : str or path-like
        ``.arff`` is read with :func:`textnb.arff.read_arff`; ``.csv``, ``.tsv``,
        ``.tab`` and ``.txt`` with :func:`textnb.csvtable.read_csv` (types inferred).
    class_name : str, default=None
        The class attribute; the last one when None.
    types : dict of {str: "nominal" or "numeric"}, default=None
        Forced column types for CSV / TSV files.
    drop : str or sequence of str, default=None
        Attributes to leave out (ID columns, say).
    like : sequence of Attribute, default=None
        Read a query file against a trained model's attributes (``model.attributes_``):
        columns are matched by name and re-coded to the model's value indices (see
        :func:`encode_like`; an unseen nominal value becomes missing). The class
        column (``class_name``, or else the one column that is not a model
        attribute, if there is exactly one) may be absent or all ``?``.

    Raises
    ------
    InputError
        One line naming the file: unreadable or empty file, syntax error (with its
        line), unknown class or drop name (listing the available ones), a numeric
        class, a class with fewer than two values, a non-number in a numeric column.
    """
    path = os.fspath(path)
    if like is not None:
        like = list(like)
        types = dict(types or {})
        like_names = {a.name for a in like}
        if path.lower().endswith(_CSV_EXT):
            for a in like:
                types.setdefault(a.name, a.kind)
        attributes, X, weights = _read_columns(
            path, types or None, class_name if class_name else "", optional_types=True
        )
        return _query_table(path, attributes, X, weights, like, class_name, drop, like_names)

    attributes, X, weights = _read_columns(path, types, class_name)
    names = [a.name for a in attributes]
    keep = _drop_columns(path, names, drop)
    attributes = [attributes[j] for j in keep]
    X = X[:, keep]
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
    if not cls.is_nominal:
        raise InputError(
            f"{path}: class attribute {cls.name!r} is numeric; naive Bayes needs a nominal class "
            f"(choose another with class_name / --class)"
        )
    if X.shape[0] == 0:
        raise InputError(f"{path}: no data rows")
    if len(attributes) < 2:
        raise InputError(f"{path}: only the class attribute {cls.name!r}; nothing to learn from")
    yc = X[:, ci]
    labelled = ~np.isnan(yc)
    if not labelled.any():
        raise InputError(f"{path}: class attribute {cls.name!r} is missing in every row")
    X = np.delete(X[labelled], ci, axis=1)
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
    return Table(
        attributes=[a for j, a in enumerate(attributes) if j != ci],
        X=X,
        y=y,
        class_attribute=cls,
        source=path,
        sample_weight=weights,
    )


def _drop_columns(path, names, drop):
    if drop is None:
        return list(range(len(names)))
    drop = [drop] if isinstance(drop, str) else list(drop)
    unknown = [d for d in drop if d not in names]
    if unknown:
        raise InputError(f"{path}: cannot drop unknown attribute(s) {unknown}; attributes: {', '.join(names)}")
    return [j for j, n in enumerate(names) if n not in drop]


def _query_table(path, attributes, X, weights, like, class_name, drop, like_names):
    names = [a.name for a in attributes]
    keep = _drop_columns(path, names, drop)
    attributes = [attributes[j] for j in keep]
    X = X[:, keep]
    names = [a.name for a in attributes]
    if class_name is None:
        extra = [n for n in names if n not in like_names]
        class_name = extra[0] if len(extra) == 1 else None
    elif class_name not in names:
        class_name = None  # a query file need not carry the class
    cls, y = None, None
    if class_name is not None:
        ci = names.index(class_name)
        cls = attributes[ci]
        col = X[:, ci]
        if cls.is_nominal and not np.all(np.isnan(col)):
            y = np.array(
                [None if math.isnan(v) else cls.values[int(v)] for v in col], dtype=object
            )
    src = Table(attributes, X, None, None, path)
    Xq = _encode_table(src, like, path)
    return Table(list(like), Xq, y, cls, path, weights if weights is not None and np.any(weights != 1) else None)


def _value_map(src, dst, where):
    """Index map from ``src`` nominal values to ``dst``'s (NaN where unseen)."""
    pos = {v: i for i, v in enumerate(dst.values)}
    return np.array([pos.get(v, np.nan) for v in src.values], dtype=np.float64)


def _encode_table(table, attributes, where):
    names = [a.name for a in table.attributes]
    missing = [a.name for a in attributes if a.name not in names]
    if missing:
        raise InputError(f"{where}: lacks the model's attribute(s) {missing}")
    out = np.full((table.X.shape[0], len(attributes)), np.nan)
    for k, dst in enumerate(attributes):
        j = names.index(dst.name)
        src = table.attributes[j]
        col = table.X[:, j]
        known = ~np.isnan(col)
        if src.is_nominal and dst.is_nominal:
            m = _value_map(src, dst, where)
            if m.size:
                out[known, k] = m[col[known].astype(np.intp)]
        elif src.is_nominal:  # model numeric, file nominal: values must be numbers
            nums = []
            for v in src.values:
                try:
                    nums.append(float(v))
                except ValueError:
                    raise InputError(
                        f"{where}: value {v!r} of attribute {dst.name!r} is not a number "
                        f"(the model's attribute is numeric)"
                    ) from None
            if nums:
                out[known, k] = np.asarray(nums)[col[known].astype(np.intp)]
        elif dst.is_nominal:  # model nominal, file numeric: match values by number
            for i, v in enumerate(dst.values):
                try:
                    x = float(v)
                except ValueError:
                    continue
                out[known & (col == x), k] = i
        else:
            out[:, k] = col
    return out


def encode_like(table_or_rows, attributes, *, source="<rows>"):
    """Re-code data against a trained model's attributes (``model.attributes_``).

    Parameters
    ----------
    table_or_rows : Table or sequence of rows
        A :class:`Table` whose columns are matched to ``attributes`` by name, or rows
        of cell values (strings or numbers) in the order of ``attributes``, or dicts
        mapping attribute name to value. ``""``, ``"?"``, None and NaN are missing.
    attributes : sequence of Attribute
        The attributes the model was trained on.

    Returns
    -------
    X : ndarray of shape (n_rows, len(attributes))
        Nominal cells hold the index into the model's value list. A nominal value the
        model never declared becomes missing (NaN): it is left out of the product,
        exactly like a ``?``, rather than failing the whole prediction.

    Raises
    ------
    InputError
        A required attribute is absent, or a numeric cell is not a number.
    """
    attributes = list(attributes)
    if isinstance(table_or_rows, Table):
        return _encode_table(table_or_rows, attributes, table_or_rows.source or source)
    rows = list(table_or_rows)
    X = np.full((len(rows), len(attributes)), np.nan)
    lookup = [{v: i for i, v in enumerate(a.values)} if a.is_nominal else None for a in attributes]
    for r, row in enumerate(rows, start=1):
        if isinstance(row, dict):
            cells = [row.get(a.name) for a in attributes]
        else:
            cells = list(row)
            if len(cells) != len(attributes):
                raise InputError(f"{source}: row {r} has {len(cells)} values, expected {len(attributes)}")
        for k, (a, c) in enumerate(zip(attributes, cells)):
            if c is None or (isinstance(c, float) and math.isnan(c)):
                continue
            if isinstance(c, str):
                c = c.strip()
                if c in _MISSING_TEXT:
                    continue
            if lookup[k] is not None:
                key = c if isinstance(c, str) else _number_text(c, a)
                X[r - 1, k] = lookup[k].get(key, np.nan)
            else:
                try:
                    X[r - 1, k] = float(c)
                except (TypeError, ValueError):
                    raise InputError(
                        f"{source}: row {r}: value {c!r} of numeric attribute {a.name!r} is not a number"
                    ) from None
    return X


def _number_text(x, attribute):
    """The declared value of a nominal attribute equal to number ``x`` (or None)."""
    for v in attribute.values:
        try:
            if float(v) == float(x):
                return v
        except (TypeError, ValueError):
            continue
    return str(x)


def table_from_frame(df, class_name=None, *, source="<DataFrame>"):
    """Build a :class:`Table` from a pandas DataFrame.

    Numeric (non-boolean) columns become numeric attributes; categorical columns
    become nominal with their categories in order; every other column becomes nominal
    with its distinct values as strings, in order of first appearance. NaN / None are
    missing. The class is ``class_name`` or the last column.
    """
    import pandas as pd

    names = [str(c) for c in df.columns]
    if class_name is None:
        class_name = names[-1] if names else None
    if class_name not in names:
        raise InputError(f"{source}: no column named {class_name!r}; columns: {', '.join(names)}")
    attributes, cols = [], []
    for name, col in zip(names, df.columns):
        s = df[col]
        if isinstance(s.dtype, pd.CategoricalDtype):
            values = [str(v) for v in s.cat.categories]
            codes = s.cat.codes.to_numpy().astype(np.float64)
            codes[codes < 0] = np.nan
            attributes.append(Attribute(name, "nominal", values))
            cols.append(codes)
        elif pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_bool_dtype(s.dtype) \
                and name != class_name:
            attributes.append(Attribute(name, "numeric", []))
            cols.append(s.to_numpy(dtype=np.float64, na_value=np.nan))
        else:
            values, codes = {}, np.full(len(s), np.nan)
            for i, v in enumerate(s.tolist()):
                if v is None or (isinstance(v, float) and math.isnan(v)):
                    continue
                codes[i] = values.setdefault(str(v), len(values))
            attributes.append(Attribute(name, "nominal", list(values)))
            cols.append(codes)
    X = np.column_stack(cols) if cols else np.empty((len(df), 0))
    ci = names.index(class_name)
    cls = attributes[ci]
    yc = X[:, ci]
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
    )
