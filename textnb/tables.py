"""Typed tables: the in-memory form of ARFF / CSV data for the tabular models.

Convention shared by every tabular model (TabularNB, APNBC on tables, LBR, TAN,
Bayes nets, NBU):

* ``X`` is a 2-D float64 array, one row per object, one column per attribute
  (the class attribute removed);
* a *nominal* attribute's cell holds the index of its value in
  ``Attribute.values`` (0 .. k-1), a *numeric* one holds the number;
* ``NaN`` means missing (ARFF ``?``, an empty CSV cell);
* ``y`` is an array of class labels (str).
"""

from dataclasses import dataclass, field

import numpy as np

__all__ = ["Attribute", "Table"]


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
    """Objects with typed attributes and a class column, read from ``source``."""

    attributes: list
    X: np.ndarray
    y: np.ndarray
    class_attribute: Attribute
    source: str = ""

    @property
    def nominal_mask(self):
        return np.array([a.is_nominal for a in self.attributes], dtype=bool)

    @property
    def n_values(self):
        """Number of declared values per attribute (0 for numeric ones)."""
        return np.array([len(a.values) if a.is_nominal else 0 for a in self.attributes])
