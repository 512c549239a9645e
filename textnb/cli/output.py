"""What every program of the package writes: tab-separated fields and strict JSON.

One helper for each, shared by ``textnb``, ``spamfilter`` and ``topicfilter``, so that a
file name or a label can never forge columns or lines in any of them, and ``--json``
never holds the non-JSON tokens ``NaN`` / ``Infinity``. Standard library only (the cold
``spamfilter`` path imports it).
"""

import json
import math
import numbers
import re

from textnb.cli.streams import tolerant

__all__ = ["cell", "dumps", "finite", "tolerant"]

_FLOAT_MAX = 1.7976931348623157e308
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\\]")
_ESCAPES = {"\t": "\\t", "\n": "\\n", "\r": "\\r", "\\": "\\\\"}


def cell(text):
    """A field of tab-separated output: a backslash, TAB, newline and every other control
    character (C0, DEL, C1) escaped (``\\\\``, ``\\t``, ``\\n``, ``\\x1b``), so a file name
    or a label can never forge extra columns or lines. Other text, surrogate escapes of
    non-UTF-8 names included, is kept as it is."""
    return _CONTROL.sub(lambda m: _ESCAPES.get(m.group(), f"\\x{ord(m.group()):02x}"), str(text))


def finite(obj):
    """``obj`` with every float made JSON-safe: +-inf as +-1.8e308 (the order is kept),
    NaN as null (JSON has no NaN); numpy scalars as Python numbers."""
    if isinstance(obj, dict):
        return {k: finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite(v) for v in obj]
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, numbers.Integral):  # numpy integers too
        return int(obj)
    if isinstance(obj, numbers.Real):  # numpy floats too
        v = float(obj)
        if math.isnan(v):
            return None
        return v if not math.isinf(v) else (_FLOAT_MAX if v > 0 else -_FLOAT_MAX)
    return obj


def dumps(obj):
    """Strict JSON (never the non-JSON tokens NaN / Infinity)."""
    return json.dumps(finite(obj), allow_nan=False)
