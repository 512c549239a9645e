"""The one reading of a query cell against a trained model's attribute.

Every path by which a table model is given cells of raw values reads them here: a
pandas DataFrame (:func:`textnb.io.frames.encode_frame`, which TabularNB, APNBC, TAN,
the Bayesian networks, AODE and LBR on discretised attributes all call), rows of raw
values (:func:`textnb.io.tables.encode_like`) and a query table read from a file
(``read_table(..., like=model.attributes_)``, whose nominal values are matched here).
So the same cell gets the same value, warning or error whichever model takes it.

The rule, as pandas and scikit-learn read the same cells:

* **missing**: None, NaN (any float type), pandas' ``NA`` and ``NaT``, and the texts a
  table file writes for a missing cell (``""``, ``"?"``; surrounding spaces dropped), unless
  a nominal attribute declares that very text as a value.
* **numeric attribute**: a number (bool included: ``True`` is 1) is itself; a string is
  the number it writes, read as a CSV / ARFF cell is (:func:`textnb.io.numbers.parse_number`:
  ``"85"`` is 85.0); a string that writes no number (``"hot"``) is an
  :class:`~textnb.core.errors.InputError` naming the row, value and attribute. This is
  scikit-learn's reading (``check_array(..., dtype=float64)`` converts ``"85"`` and raises
  ValueError for ``"hot"``) and pandas' (``pd.to_numeric`` with its default
  ``errors="raise"``); textnb's readers of rows and files already read cells so. A cell
  that cannot be a number is refused rather than made missing: leaving it out would
  change the answer without the user's data saying so.
* **nominal attribute**: a cell is the declared value it equals.

  - A string is the value of the same text, else (surrounding spaces dropped) the value
    it equals as a number when it writes one (``"2.0"`` is the value ``"2"``), else, in a
    column of bools, the value it names as pandas' ``read_csv`` reads bools (``"true"``,
    ``"TRUE"`` and ``"True"`` are True). ``"1"`` and ``"0"`` name no bool: neither pandas
    nor scikit-learn's encoders take them for one.
  - A number is the value that writes the same number (``2.0`` is ``"2"``), else, in a
    column of bools, the bool it equals (``1 == True``: scikit-learn's ``OrdinalEncoder``
    and pandas' ``Categorical`` fitted on a bool column take ``1`` and ``0`` so).
  - A bool is the value naming it (``"True"``, ``"true"``, ...), else the value that
    writes 1 or 0.
  - Any other object is the value of its text (``str``).

  A cell matching no value is one the model never saw: it counts as missing, and one
  :class:`~textnb.core.errors.DataWarning` per column says how many cells and which
  values (:func:`warn_unseen`), as the command line says it of a query file's cells.
"""

import math
import numbers
import warnings

import numpy as np

from textnb.core.errors import DataWarning, InputError, counted
from textnb.io.csvtable import MISSING
from textnb.io.numbers import parse_number

__all__ = ["UNSEEN", "cell_reader", "is_missing", "read_cells", "value_name", "warn_unseen"]

#: what a reader gives for a nominal cell that matches none of the attribute's values
UNSEEN = -1.0

#: the texts pandas' ``read_csv`` reads as True and as False (its default ``true_values`` / ``false_values``)
TRUE_TEXT = frozenset({"True", "TRUE", "true"})
FALSE_TEXT = frozenset({"False", "FALSE", "false"})


def is_missing(cell):
    """True for None, a NaN of any float type and pandas' ``NA`` / ``NaT`` (a missing cell's
    text, ``""`` or ``"?"``, is the reader's to tell: a declared value may be written so)."""
    if cell is None:
        return True
    if isinstance(cell, numbers.Number) and not isinstance(cell, (bool, np.bool_)):
        try:
            return math.isnan(cell)
        except (TypeError, ValueError):  # (a complex number)
            return False
    return type(cell).__name__ in ("NAType", "NaTType")


def value_name(cell):
    """How a cell is named in a message and as a new nominal value: a whole float as an
    integer (``2.0`` is ``"2"``), anything else by ``str``."""
    if isinstance(cell, float) and math.isfinite(cell) and cell == int(cell):
        return str(int(cell))
    return str(cell)


def _number(text):
    try:
        return parse_number(text)
    except ValueError:
        return None


class _Reader:
    """The reader of one attribute (:func:`cell_reader`); remembers each cell it has read."""

    def __init__(self, attribute):
        self.numeric = attribute.kind in ("numeric", "uncertain-numeric")
        values = [] if self.numeric else [str(v) for v in attribute.values]
        self.exact = {v: i for i, v in reversed(list(enumerate(values)))}  # (the first of equal names)
        self.by_number = {}
        for i, v in enumerate(values):
            x = _number(v)
            if x is not None and not math.isnan(x):
                self.by_number.setdefault(x, i)
        self.true = next((i for i, v in enumerate(values) if v in TRUE_TEXT), None)
        self.false = next((i for i, v in enumerate(values) if v in FALSE_TEXT), None)
        self.seen = {}

    def __call__(self, cell):
        try:
            key = (type(cell), cell)
            return self.seen[key] if key in self.seen else self.seen.setdefault(key, self._read(cell))
        except TypeError:  # (an unhashable cell)
            return self._read(cell)

    def _bool(self, b):
        i = self.true if b else self.false
        return float(i) if i is not None else float(self.by_number.get(float(b), UNSEEN))

    def _read(self, cell):
        if isinstance(cell, str):
            if cell in self.exact:
                return float(self.exact[cell])
            text = cell.strip()
            if text in MISSING:
                return math.nan
            x = _number(text)
            if self.numeric:
                if x is None:
                    raise ValueError(cell)
                return x
            i = self.exact.get(text)
            if i is None and x is not None:
                i = self.by_number.get(x)
            if i is None:
                i = self.true if text in TRUE_TEXT else self.false if text in FALSE_TEXT else None
            return float(UNSEEN if i is None else i)
        if is_missing(cell):
            return math.nan
        if self.numeric:
            try:
                return float(cell)
            except (TypeError, ValueError):
                raise ValueError(cell) from None
        if isinstance(cell, (bool, np.bool_)):
            return self._bool(bool(cell))
        if isinstance(cell, numbers.Real):
            x = float(cell)
            i = self.by_number.get(x)
            if i is None and x in (0.0, 1.0):
                i = self.true if x else self.false
            return float(UNSEEN if i is None else i)
        return float(self.exact.get(str(cell), UNSEEN))


def cell_reader(attribute):
    """The function reading one cell as ``attribute`` holds it (the rule of the module).

    Parameters
    ----------
    attribute : Attribute
        A model's attribute: nominal (or uncertain nominal: its values) or numeric.

    Returns
    -------
    read : callable
        ``read(cell)``: a float, NaN for a missing cell; a nominal attribute's value index,
        :data:`UNSEEN` for a value it does not declare; a numeric attribute's number.
        ValueError (the cell's value its only argument) for a numeric attribute's cell
        that is not a number.
    """
    return _Reader(attribute)


def warn_unseen(where, n, values, stacklevel=3):
    """The one DataWarning of ``n`` cells whose ``values`` (a set) the model never saw, which
    count as missing: a table's (``where``: the file and attribute) and a DataFrame's (the column)."""
    values = sorted(values)
    shown = ", ".join(repr(v) for v in values[:3]) + (", ..." if len(values) > 3 else "")
    warnings.warn(f"{where}: {counted(n, 'cell')} with values the model never saw ({shown}) count as missing",
                  DataWarning, stacklevel=stacklevel)


def read_cells(cells, attribute, source, *, where=None, keep_unseen=False, stacklevel=3):
    """One column of raw cells read as ``attribute`` holds them (:func:`cell_reader`).

    Parameters
    ----------
    cells : sequence
        The column's cells, row by row.
    attribute : Attribute
        The model's attribute (nominal or numeric).
    source : str
        What the rows are (``"<rows>"``, ``"<DataFrame>"``), for an error's message.
    where : str, default=None
        What the warning of unseen values names; None: ``"{source}: attribute {name!r}"``.
    keep_unseen : bool, default=False
        Give :data:`UNSEEN` for a nominal value the attribute does not declare (the caller
        decides; training on declared values refuses one) instead of NaN with the warning.
    stacklevel : int, default=3
        Of the warning, counted from the caller of this function.

    Returns
    -------
    ndarray of float64 of shape (len(cells),)
        Value indices or numbers, NaN where missing.

    Raises
    ------
    InputError
        A cell of a numeric attribute that is not a number (its row, value and attribute).
    """
    read = cell_reader(attribute)
    out = np.empty(len(cells), dtype=np.float64)
    for r, cell in enumerate(cells):
        try:
            out[r] = read(cell)
        except ValueError:
            raise InputError(f"{source}: row {r + 1}: value {cell!r} of numeric attribute {attribute.name!r} "
                             f"is not a number") from None
    unseen = out == UNSEEN
    if keep_unseen or not unseen.any():
        return out
    warn_unseen(where or f"{source}: attribute {attribute.name!r}", int(unseen.sum()),
                {value_name(c) for c, u in zip(cells, unseen) if u}, stacklevel=stacklevel + 1)
    out[unseen] = np.nan
    return out
