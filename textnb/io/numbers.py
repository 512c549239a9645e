"""The one reading of a number written in a file: an ARFF or CSV / TSV cell, an interval
bound or a probability of an uncertain cell, a nominal value matched to a number.

A number is what Weka's ARFF reader and the CSV readers of pandas and scikit-learn read as
one: ASCII digits with an optional sign, decimal point and exponent (``-1.5e3``, ``.5``,
``5.``), or an infinity / NaN spelling (``inf``, ``-Infinity``, ``nan``, any case; the readers
then say such a value is not finite). Python's :func:`float` reads more, and those are not
numbers here: digit groups with underscores (``1_000``, which ``float`` reads as 1000) and
digits of other scripts (``١٢``, Arabic-Indic, which it reads as 12). Surrounding ASCII
whitespace is dropped.

Standard library only.
"""

import re

__all__ = ["parse_number", "is_number"]

_NUMBER = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)",
                     re.IGNORECASE | re.ASCII)
_SPACE = " \t\n\r\f\v"


def parse_number(text):
    """The float ``text`` writes (finite or not); ValueError when it writes no number.

    >>> parse_number(" -1.5e3 "), parse_number("inf")
    (-1500.0, inf)
    >>> parse_number("1_000")
    Traceback (most recent call last):
    ...
    ValueError: not a number: '1_000'
    """
    if _NUMBER.fullmatch(text.strip(_SPACE)) is None:
        raise ValueError(f"not a number: {text!r}")
    return float(text)


def is_number(text):
    """Whether :func:`parse_number` reads ``text`` (a finite number or not)."""
    return _NUMBER.fullmatch(text.strip(_SPACE)) is not None
