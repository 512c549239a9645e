"""The typed table every tabular model shares: attributes (name, kind, values) and rows.

Convention (see :mod:`textnb.io.tables`, which reads tables from files): ``X`` is a 2-D
float64 array, one row per object; a nominal cell holds the index of its value in
``Attribute.values``, a numeric one the number, ``NaN`` is missing; uncertain attributes
(:mod:`textnb.io.uncertain`) span several columns. Model files store attributes
(:mod:`textnb.core.model_io`), so the type lives in the core.
"""

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

__all__ = ["MAX_COLUMNS", "TEXT", "Attribute", "Table", "code_attributes", "fitted_attributes", "found_values",
           "repeated"]


#: The kind of a text attribute (one document per cell).
TEXT = "text"

#: Most columns a table file may have (the readers refuse more, at once): a model of
#: 10^6 attributes cannot be written (its header would exceed the model file's bounds)
#: and takes minutes to fit.
MAX_COLUMNS = 100_000


def repeated(names):
    """The names that stand more than once in ``names``, sorted (empty when all differ): what
    the table readers report of a header or a value list (one pass, however long)."""
    return sorted(name for name, count in Counter(names).items() if count > 1)


@dataclass
class Attribute:
    """One column: ``kind`` is ``"nominal"`` or ``"numeric"``, ``"uncertain-numeric"`` /
    ``"uncertain-nominal"`` (:mod:`textnb.io.uncertain`; several ``X`` columns) or
    ``"text"`` (a document per cell)."""

    name: str
    kind: str
    values: list = field(default_factory=list)

    @property
    def is_nominal(self):
        return self.kind == "nominal"

    @property
    def is_uncertain(self):
        return self.kind in ("uncertain-numeric", "uncertain-nominal")

    @property
    def is_text(self):
        return self.kind == TEXT

    @property
    def width(self):
        """Number of ``X`` columns: 2 (uncertain numeric), k (uncertain nominal), else 1."""
        if self.kind == "uncertain-numeric":
            return 2
        if self.kind == "uncertain-nominal":
            return len(self.values)
        return 1


def found_values(names):
    """The values of a nominal attribute that its source does not declare (a CSV / TSV
    column, a DataFrame column that is not categorical), from the names of its known cells:
    each once, sorted, as the classes of such a table are (``np.unique``). The rule of every
    table reader: one order whatever the order of the rows, and the order an ARFF header
    declaring the same values sorted gives, so a model whose answer depends on value order
    (LBR counts a training row's missing value as the attribute's first value, as Weka
    does) gives one answer for the same data in any format. A declared order (an ARFF
    header's, a pandas categorical's) is kept as declared."""
    return sorted(set(names))


def code_attributes(names, n_values):
    """Nominal attributes ``names`` whose values are their value indices, ``"0" .. "k - 1"``
    (``k`` of ``n_values``): columns of value indices that nothing declared."""
    return [Attribute(str(name), "nominal", [str(v) for v in range(int(k))]) for name, k in zip(names, n_values)]


def fitted_attributes(declared, names, n_values):
    """The attributes a model over nominal value indices worked with (its fitted
    ``attributes_``): per column, the one ``declared`` (the ``attributes`` parameter, or a
    DataFrame's ``frame_attributes_``), copied (a numeric one stays numeric: the model cuts
    its numbers), else (nothing declared, or a name only) the nominal attribute ``names[j]``
    of the value indices ``0 .. n_values[j] - 1`` (:func:`code_attributes`)."""
    declared = [None] * len(names) if declared is None else list(declared)
    return [code_attributes([name], [k])[0] if a is None or isinstance(a, str)
            else Attribute(a.name, a.kind, list(a.values)) for a, name, k in zip(declared, names, n_values)]


@dataclass
class Table:
    """Objects with typed attributes and a class column, read from ``source``.

    ``y`` is a str array for training tables. Tables read with ``like=`` (query files)
    have ``y`` None when the file has no class column or only ``?`` in it, else an
    object array with None for the unknown labels. ``sample_weight`` holds ARFF
    instance weights (None when every weight is 1). ``classes`` holds the class values the
    source declares, in their order (an ARFF header's nominal class, a pandas categorical
    class column's categories), a value that no row has included, as Weka keeps them: the
    classes of a model trained on the table (``class_values``); None when the source
    declares none (a CSV/TSV file, whose classes are the labels of its rows). ``unlabeled``:
    the rows of a training table left out for an unknown class (their number).
    """

    attributes: list
    X: np.ndarray
    y: np.ndarray
    class_attribute: Attribute
    source: str = ""
    sample_weight: np.ndarray = None
    classes: tuple = None
    #: rows of a training table left out because their class is unknown (an empty cell, ARFF ``?``)
    unlabeled: int = 0

    @property
    def has_text(self):
        """Whether some attribute is text (then ``X`` has dtype object)."""
        return any(a.is_text for a in self.attributes)

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

    @property
    def has_uncertain(self):
        """Whether some attribute is uncertain (then ``X`` has more columns than attributes)."""
        return any(a.is_uncertain for a in self.attributes)
