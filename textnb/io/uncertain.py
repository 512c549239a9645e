"""Uncertain attributes (NBU): intervals and probability vectors as tabular columns.

Qin, Xia & Li, "A Bayesian classifier for uncertain data" (``../shared/papers/
004_640e07b9e89f5fc8.txt``; ``../shared/design/algorithms.md`` §4) extend naive Bayes to
objects whose numeric values are intervals ``[L, R]`` and whose categorical values are
probability vectors over the domain. :class:`textnb.naive_bayes.tabular.TabularNB` learns and
predicts with them; this module holds the representation, the cell syntax, the
interval probability mass and the paper's uncertainty protocol.

Representation
--------------
Two more :class:`~textnb.io.tables.Attribute` kinds, mixed freely with ``"nominal"`` and
``"numeric"`` ones. ``X`` stays one float64 2-D array (so row indexing, ``X[train]``,
scikit-learn's validation and model files work unchanged), but an uncertain attribute
spans several consecutive columns:

* ``"uncertain-numeric"``: two columns, ``L`` then ``R`` (``L <= R``); a certain value
  ``x`` is ``L = R = x``; missing is ``NaN, NaN``;
* ``"uncertain-nominal"`` with ``values = [v_1 .. v_k]``: ``k`` columns, the
  probabilities ``p(v_1) .. p(v_k)`` (non-negative, summing to 1); a certain value is
  a one-hot row; missing is ``NaN`` in all ``k``.

Certain attributes keep one column each, so a table without uncertain attributes is
exactly the plain tabular convention of :mod:`textnb.io.tables`. :func:`column_slices`
maps attributes to their columns; :func:`to_certain` reduces an uncertain table to
the certain one (interval midpoints, most probable values: the paper's baseline).

Cell syntax (CSV and ARFF)
--------------------------
* an interval: ``[3.1,4.2]`` (``L <= R``; ``[x,x]`` is the point x);
* a distribution: ``{red:0.7,blue:0.3}`` (values not named have probability 0; the
  probabilities must lie in [0, 1] and sum to 1 within ``1e-6``; they are then
  rescaled to sum to exactly 1).

Cells contain commas, so they are quoted as the format requires: ``"[3.1,4.2]"`` in a
CSV file, ``'[3.1,4.2]'`` or ``"{red:0.7,blue:0.3}"`` in ARFF ``@data``. A column with at
least one such cell is read as uncertain; its plain cells are certain values (``5`` is
``[5,5]``, ``red`` is ``{red:1}``), ``?`` / empty is missing. In CSV the domain of an
uncertain nominal column is the values named, sorted (as a nominal column's,
:func:`textnb.core.attributes.found_values`); in ARFF it
is the declared ``{...}`` list and a distribution may only name declared values.
"""

import math
import re

import numpy as np

from textnb.core.attributes import Attribute
from textnb.io.numbers import parse_number

__all__ = [
    "UNCERTAIN_NUMERIC",
    "UNCERTAIN_NOMINAL",
    "UNCERTAIN_KINDS",
    "PROBABILITY_TOLERANCE",
    "attribute_width",
    "column_slices",
    "is_uncertain",
    "has_uncertain",
    "cell_kind",
    "parse_interval",
    "parse_distribution",
    "format_interval",
    "format_distribution",
    "format_cell",
    "check_uncertain_block",
    "CellError",
    "parse_uncertain_column",
    "log_interval_mass",
    "to_certain",
    "make_uncertain",
]

UNCERTAIN_NUMERIC = "uncertain-numeric"
UNCERTAIN_NOMINAL = "uncertain-nominal"
UNCERTAIN_KINDS = (UNCERTAIN_NUMERIC, UNCERTAIN_NOMINAL)
#: How far the probabilities of a distribution cell may sum away from 1.
PROBABILITY_TOLERANCE = 1e-6

_INTERVAL = re.compile(r"^\[([^\[\],]*),([^\[\],]*)\]$")


# -- representation ------------------------------------------------------------------
def is_uncertain(attribute):
    """Whether ``attribute`` is of an uncertain kind."""
    return attribute.kind in UNCERTAIN_KINDS


def has_uncertain(attributes):
    return any(is_uncertain(a) for a in attributes)


def attribute_width(attribute):
    """Number of ``X`` columns of ``attribute``: 2 (interval), k (distribution) or 1."""
    if attribute.kind == UNCERTAIN_NUMERIC:
        return 2
    if attribute.kind == UNCERTAIN_NOMINAL:
        return len(attribute.values)
    return 1


def column_slices(attributes):
    """The ``X`` columns of each attribute, as a list of slices."""
    out, start = [], 0
    for a in attributes:
        w = attribute_width(a)
        out.append(slice(start, start + w))
        start += w
    return out


def check_uncertain_block(block, attribute, where="X"):
    """Validate the columns of one uncertain attribute; raise ValueError if malformed.

    Intervals: ``L`` and ``R`` both NaN or both finite with ``L <= R``. Distributions:
    all NaN, or finite probabilities in [0, 1] summing to 1 within
    :data:`PROBABILITY_TOLERANCE`.
    """
    block = np.asarray(block, dtype=np.float64)
    nan = np.isnan(block)
    part = nan.any(axis=1) & ~nan.all(axis=1)
    if part.any():
        r = int(np.flatnonzero(part)[0])
        raise ValueError(f"{where}: row {r}: attribute {attribute.name!r} is missing in some of its columns only")
    known = ~nan[:, 0] if block.shape[1] else np.zeros(block.shape[0], dtype=bool)
    b = block[known]
    if not np.all(np.isfinite(b)):
        raise ValueError(f"{where}: attribute {attribute.name!r} has infinite values")
    if attribute.kind == UNCERTAIN_NUMERIC:
        bad = b[:, 0] > b[:, 1]
        if bad.any():
            r = int(np.flatnonzero(known)[np.flatnonzero(bad)[0]])
            raise ValueError(
                f"{where}: row {r}: interval [{b[bad][0, 0]!r}, {b[bad][0, 1]!r}] of attribute "
                f"{attribute.name!r} has L > R"
            )
    else:
        s = b.sum(axis=1)
        bad = np.any((b < 0) | (b > 1), axis=1) | (np.abs(s - 1.0) > PROBABILITY_TOLERANCE)
        if bad.any():
            r = int(np.flatnonzero(known)[np.flatnonzero(bad)[0]])
            raise ValueError(
                f"{where}: row {r}: probabilities of attribute {attribute.name!r} must lie in [0, 1] "
                f"and sum to 1 (sum {s[bad][0]:.9g})"
            )


# -- cell syntax ----------------------------------------------------------------------
def cell_kind(text):
    """``"interval"``, ``"distribution"`` or None: which uncertain syntax ``text`` uses."""
    t = text.strip()
    if len(t) >= 2 and t[0] == "[" and t[-1] == "]":
        return "interval"
    if len(t) >= 2 and t[0] == "{" and t[-1] == "}":
        return "distribution"
    return None


def _finite(tok, what):
    try:
        x = parse_number(tok)
    except ValueError:
        raise ValueError(f"{what} {tok.strip()!r} is not a number") from None
    if not math.isfinite(x):
        raise ValueError(f"{what} {tok.strip()!r} is not finite")
    return x


def parse_interval(text):
    """``"[3.1,4.2]"`` -> ``(3.1, 4.2)``; ValueError (one line) when malformed or L > R."""
    t = text.strip()
    m = _INTERVAL.match(t)
    if not m:
        raise ValueError(f"cannot read interval {t!r} (expected [L,R])")
    lo = _finite(m.group(1), "interval bound")
    hi = _finite(m.group(2), "interval bound")
    if lo > hi:
        raise ValueError(f"interval {t!r} has L > R")
    return lo, hi


def parse_distribution(text, values=None):
    """``"{red:0.7,blue:0.3}"`` -> ``{"red": 0.7, "blue": 0.3}`` (rescaled to sum 1).

    Parameters
    ----------
    text : str
    values : sequence of str, default=None
        The declared domain; a value outside it is an error. None: any value.

    Raises
    ------
    ValueError
        One line: bad syntax, a repeated or unknown value, a probability outside
        [0, 1], or probabilities not summing to 1 within :data:`PROBABILITY_TOLERANCE`.
    """
    t = text.strip()
    if cell_kind(t) != "distribution":
        raise ValueError(f"cannot read distribution {t!r} (expected {{value:p,...}})")
    body = t[1:-1].strip()
    if not body:
        raise ValueError(f"distribution {t!r} names no value")
    allowed = None if values is None else set(values)
    out = {}
    for item in body.split(","):
        if ":" not in item:
            raise ValueError(f"cannot read {item.strip()!r} in distribution {t!r} (expected value:p)")
        v, p = item.rsplit(":", 1)
        v = v.strip()
        if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
            v = v[1:-1]
        if not v:
            raise ValueError(f"empty value in distribution {t!r}")
        if v in out:
            raise ValueError(f"value {v!r} appears twice in distribution {t!r}")
        if allowed is not None and v not in allowed:
            raise ValueError(f"unknown category {v!r} in distribution {t!r}")
        x = _finite(p, f"probability of {v!r}")
        if not 0.0 <= x <= 1.0:
            raise ValueError(f"probability {x!r} of {v!r} in distribution {t!r} is not in [0, 1]")
        out[v] = x
    s = math.fsum(out.values())
    if abs(s - 1.0) > PROBABILITY_TOLERANCE:
        raise ValueError(f"probabilities of distribution {t!r} sum to {s:.9g}, not 1")
    if s != 1.0:
        out = {v: x / s for v, x in out.items()}
    return out


def _num(x):
    x = float(x)
    return str(int(x)) if x.is_integer() and abs(x) < 1e15 else repr(x)


def format_interval(lo, hi):
    """``[lo,hi]`` (shortest round-tripping numbers)."""
    return f"[{_num(lo)},{_num(hi)}]"


def format_distribution(values, probabilities):
    """``{v:p,...}`` naming the values of non-zero probability."""
    items = [f"{v}:{p!r}" for v, p in zip(values, map(float, probabilities)) if p != 0.0]
    return "{" + ",".join(items) + "}"


def format_cell(attribute, block_row):
    """The text of one uncertain cell (``?`` when missing), the inverse of parsing."""
    row = np.asarray(block_row, dtype=np.float64)
    if np.isnan(row).all():
        return "?"
    if attribute.kind == UNCERTAIN_NUMERIC:
        return format_interval(row[0], row[1])
    return format_distribution(attribute.values, row)


class CellError(ValueError):
    """A malformed uncertain cell: ``index`` is its position in the column."""

    def __init__(self, index, message):
        super().__init__(message)
        self.index = index


_MISSING = frozenset({"", "?"})


def parse_uncertain_column(kind, cells, *, values=None):
    """Parse one uncertain column into its ``X`` block.

    Parameters
    ----------
    kind : {"uncertain-numeric", "uncertain-nominal"}
    cells : sequence
        Per row: the cell text (``[L,R]``, ``{v:p,...}``, a plain number / value, or
        ``""`` / ``?`` for missing), or an already parsed certain cell as a float (a
        number, or an index into ``values``; NaN for missing).
    values : list of str, default=None
        The declared domain of a nominal column; None: the values named, in order of
        first appearance (:func:`textnb.io.csvtable.read_csv` then sorts them).

    Returns
    -------
    values : list of str
        The domain (``[]`` for numeric).
    block : ndarray of shape (n_rows, 2) or (n_rows, len(values))

    Raises
    ------
    CellError
        With the row ``index`` and a one-line message.
    """
    n = len(cells)
    if kind == UNCERTAIN_NUMERIC:
        block = np.full((n, 2), np.nan)
        for i, c in enumerate(cells):
            if not isinstance(c, str):
                block[i] = float(c)
                continue
            c = c.strip()
            if c in _MISSING:
                continue
            try:
                if cell_kind(c) == "interval":
                    block[i] = parse_interval(c)
                elif cell_kind(c) == "distribution":
                    raise ValueError(f"{c!r} is a distribution, but the column holds intervals")
                else:
                    block[i] = _finite(c, "value")
            except ValueError as exc:
                raise CellError(i, str(exc)) from None
        return [], block
    if kind != UNCERTAIN_NOMINAL:
        raise ValueError(f"kind must be one of {UNCERTAIN_KINDS}; got {kind!r}")
    grow = values is None
    values = [] if grow else list(values)
    pos = {v: j for j, v in enumerate(values)}
    parsed = []
    for i, c in enumerate(cells):
        if not isinstance(c, str):
            parsed.append(None if math.isnan(c) else {values[int(c)]: 1.0})
            continue
        c = c.strip()
        if c in _MISSING:
            parsed.append(None)
            continue
        try:
            if cell_kind(c) == "distribution":
                d = parse_distribution(c, None if grow else values)
            elif cell_kind(c) == "interval":
                raise ValueError(f"{c!r} is an interval, but the column holds distributions")
            elif c[:1] in "[{" and c not in pos:
                raise ValueError(f"cannot read {c!r} (expected a value or {{value:p,...}})")
            elif not grow and c not in pos:
                raise ValueError(f"unknown category {c!r}")
            else:
                d = {c: 1.0}
        except ValueError as exc:
            raise CellError(i, str(exc)) from None
        if grow:
            for v in d:
                pos.setdefault(v, len(pos))
        parsed.append(d)
    if grow:
        values = list(pos)
    block = np.full((n, len(values)), np.nan)
    for i, d in enumerate(parsed):
        if d is not None:
            block[i] = 0.0
            for v, x in d.items():
                block[i, pos[v]] = x
    return values, block


# -- prediction ------------------------------------------------------------------------
def _log1mexp(x):
    """``log(1 - exp(x))`` for ``x <= 0`` without cancellation (Mächler 2012)."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x > -np.log(2.0), np.log(-np.expm1(x)), np.log1p(-np.exp(x)))


_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(8)
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)
#: Distances (in standard deviations) beyond this have a square that overflows float64.
_MAX_SD = 1e154


def log_interval_mass(a, b):
    """``log(Φ(b) − Φ(a))`` for standardised bounds ``a <= b``, stably in log space.

    Intervals in the upper tail are reflected (``Φ(b) − Φ(a) = Φ(−a) − Φ(−b)``) so the
    larger term is never close to 1. Wide intervals: ``log Φ(hi) + log(1 − exp(log Φ(lo)
    − log Φ(hi)))`` with :func:`scipy.special.log_ndtr` and a cancellation-free
    ``log1mexp``. Narrow ones (``(b − a)·max(1, |a|, |b|) < 0.1``), where that difference
    of logarithms would lose digits: 8-point Gauss–Legendre quadrature of the density,
    summed with log-sum-exp (relative error far below 1e-12 there). Far tails keep
    their resolution either way; ``a == b`` gives ``-inf`` (use the density for points).
    An interval whose nearer bound is beyond ~1e154 deviations, where ``log Φ`` of both
    bounds is ``-inf``, gets the tail's ``log Φ(−t) ≈ −t²/2 − log t − log √(2π)`` at the
    nearer bound ``t`` capped at 1e154 (a point there scores ``−t²/2`` capped alike):
    finite, never NaN, and no numpy warning for any real bounds.
    """
    from scipy.special import log_ndtr, logsumexp  # only a model with intervals pays for it

    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    flip = a > 0
    lo = np.where(flip, -b, a)
    hi = np.where(flip, -a, b)
    with np.errstate(over="ignore", invalid="ignore"):
        lhi = log_ndtr(hi)
        llo = log_ndtr(lo)
        out = lhi + _log1mexp(np.minimum(llo - lhi, 0.0))
        h = hi - lo
        narrow = (h > 0) & (h * np.maximum(1.0, np.maximum(np.abs(lo), np.abs(hi))) < 0.1)
    far = ~np.isfinite(out) & (hi > lo) & (hi < 0)
    if np.any(far):
        t = np.minimum(-hi[far], _MAX_SD)
        out = np.array(out, dtype=np.float64)
        out[far] = -0.5 * t * t - np.log(t) - _LOG_SQRT_2PI
    if np.any(narrow):
        hn, mid = h[narrow], 0.5 * (lo[narrow] + hi[narrow])
        x = mid[:, None] + 0.5 * hn[:, None] * _GL_NODES[None, :]
        quad = np.log(0.5 * hn) + logsumexp(np.log(_GL_WEIGHTS)[None, :] - 0.5 * x * x, axis=1) - _LOG_SQRT_2PI
        out = np.array(out, dtype=np.float64)
        out[narrow] = quad
    return out if out.ndim else float(out)


# -- the paper's baseline and uncertainty protocol --------------------------------------
def to_certain(X, attributes, *, rng=None):
    """Reduce uncertain columns to certain ones: interval midpoints, most probable values.

    The baseline of Qin, Xia & Li's experiments. Ties between most probable values are
    broken at random with ``rng`` (a ``numpy.random.Generator``), or by the first value
    when ``rng`` is None.

    Returns
    -------
    X_certain : ndarray of shape (n_samples, n_attributes)
    attributes_certain : list of Attribute
        Uncertain kinds replaced by ``"numeric"`` / ``"nominal"``.
    """
    X = np.asarray(X, dtype=np.float64)
    cols, atts = [], []
    for a, sl in zip(attributes, column_slices(attributes)):
        block = X[:, sl]
        if a.kind == UNCERTAIN_NUMERIC:
            cols.append(block[:, 0] + 0.5 * (block[:, 1] - block[:, 0]))
            atts.append(Attribute(a.name, "numeric", []))
        elif a.kind == UNCERTAIN_NOMINAL:
            known = ~np.isnan(block[:, 0])
            out = np.full(X.shape[0], np.nan)
            b = block[known]
            if rng is None:
                out[known] = np.argmax(b, axis=1)
            else:
                top = b >= b.max(axis=1, keepdims=True)
                score = np.where(top, rng.random(b.shape), -1.0)
                out[known] = np.argmax(score, axis=1)
            cols.append(out)
            atts.append(Attribute(a.name, "nominal", list(a.values)))
        else:
            cols.append(block[:, 0])
            atts.append(Attribute(a.name, a.kind, list(a.values)))
    Xc = np.column_stack(cols) if cols else np.empty((X.shape[0], 0))
    return Xc, atts


def make_uncertain(X, attributes, level, rng, *, p=None):
    """Make certain data uncertain with the paper's protocol (§6, "Data Uncertainty").

    * numeric ``x`` -> ``[x − (x − X_min)·r1, x + (X_max − x)·r2]``, ``r1, r2`` uniform
      in ``[0, level]`` per cell, ``X_min`` / ``X_max`` the attribute's range in ``X``;
    * nominal: a random fraction ``level`` of the objects (per attribute) gets
      probability ``p < 1`` on its true value and ``(1 − p) / (k − 1)`` on every other
      value; the other objects keep a one-hot vector. The paper only says ``p < 1``;
      here ``p`` is drawn per cell uniformly from ``[0, 1)`` when ``p`` is None, else
      that fixed number.

    Missing values stay missing. Returns ``(X_uncertain, attributes_uncertain)`` in the
    representation of this module.
    """
    X = np.asarray(X, dtype=np.float64)
    n = X.shape[0]
    blocks, atts = [], []
    for j, a in enumerate(attributes):
        col = X[:, j]
        known = ~np.isnan(col)
        if a.kind == "numeric":
            lo_all, hi_all = (np.nanmin(col), np.nanmax(col)) if known.any() else (0.0, 0.0)
            r1 = rng.uniform(0.0, level, n) if level > 0 else np.zeros(n)
            r2 = rng.uniform(0.0, level, n) if level > 0 else np.zeros(n)
            lo = col - (col - lo_all) * r1
            hi = col + (hi_all - col) * r2
            blocks.append(np.column_stack([np.minimum(lo, col), np.maximum(hi, col)]))
            atts.append(Attribute(a.name, UNCERTAIN_NUMERIC, []))
        elif a.kind == "nominal":
            k = len(a.values)
            P = np.full((n, k), np.nan)
            idx = col[known].astype(np.intp)
            onehot = np.zeros((idx.size, k))
            onehot[np.arange(idx.size), idx] = 1.0
            chosen = rng.random(idx.size) < level
            if k > 1 and chosen.any():
                pk = rng.random(int(chosen.sum())) if p is None else np.full(int(chosen.sum()), float(p))
                rows = np.flatnonzero(chosen)
                spread = (1.0 - pk) / (k - 1)
                onehot[rows] = spread[:, None]
                onehot[rows, idx[rows]] = pk
            P[known] = onehot
            blocks.append(P)
            atts.append(Attribute(a.name, UNCERTAIN_NOMINAL, list(a.values)))
        else:
            raise ValueError(f"attribute {a.name!r} is already uncertain")
    Xu = np.column_stack(blocks) if blocks else np.empty((n, 0))
    return Xu, atts
