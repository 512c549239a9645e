"""Declared, checked contents of model files: one small schema language for every model kind.

A model class registered with :func:`textnb.core.model_io.register` declares what its
constructor parameters and fitted state may hold, as two class attributes::

    _param_schema = {"alpha": Float(lo=0, hi=MAX_ALPHA), "fit_prior": Bool()}
    _state_schema = {
        "classes_": Classes(),                                  # binds n_classes
        "n_features_in_": Int(lo=0, dim="n_features"),          # binds n_features
        "class_count_": Counts(("n_classes",)),
        "feature_count_": Counts(("n_classes", "n_features")),
    }

:func:`check_node` checks a node of a model file against them *before* the estimator is
built: every key known (an unknown state key could overwrite any attribute), every
required key present, every value of the declared type, dtype, shape and range. Shapes
are written with *dimension names*: the first array or integer that mentions a name
binds it, every later mention must agree, so shape relations between arrays are
declared, not programmed. ``"n_classes+1"`` is one more than ``n_classes``. A
:class:`Model` value is a nested estimator (already checked by its own schema) whose
attributes can be tied to this node's dimensions (``Model(dims={"n_features_in_":
"n_features"})``).

Sparse members (``{"$csr": ...}``) are checked structurally by :func:`check_csr` when the
file is unpacked, before scipy sees them: integer ``indptr`` of ``rows + 1`` entries,
from 0, non-decreasing, ending at ``nnz``; indices in ``[0, cols)`` and increasing
within a row. scipy trusts these members in its C++ kernels, so a crafted one was a
double free or a segmentation fault at predict time.

A token pattern (:class:`Pattern`) must compile, capture at most one group, be at most
:data:`MAX_PATTERN_LENGTH` characters, and have no nested unbounded repeat (``(\\w+\\s?)+``,
``(a*)*``: star height above one, the shape of catastrophic backtracking), no
unbounded repeat of an alternation whose branches can match the same text, and no
back-reference (see :func:`pattern_problem`).

Every problem is raised as :class:`~textnb.core.errors.ModelFileError` naming the field:
``inconsistent model file (MultinomialNB.feature_count_: shape (2, 1), expected (2, 3))``.
"""

import math
import re

import numpy as np

from textnb.core.errors import ModelFileError, ParameterError, SettingsDiffer

try:  # Python >= 3.11
    import re._constants as _sre_c
    import re._parser as _sre_parse
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as _sre_c
    import sre_parse as _sre_parse

__all__ = ["is_fitted", 
    "Any", "Array", "Attributes", "Bool", "Choice", "Classes", "Counts", "CSR", "DictOf", "Exactly", "Float", "Int", "Jobs",
    "ListOf", "MayBeAbsent", "Model", "NgramRange", "OneOf", "Optional", "Pattern", "Reals", "Str", "TupleOf",
    "When", "check_csr", "check_declared", "check_node", "check_params", "check_same_settings", "declare", "dimension_axes",
    "same_setting", "schema_of",
    "pattern_problem", "MAX_NGRAM", "MAX_PATTERN_DEGREE", "MAX_PATTERN_LENGTH", "MAX_COUNT", "MAX_DIM", "MAX_ALPHA",
]

#: Largest n-gram order a model file may declare, and a Vectorizer train (word, char and
#: char_wb alike; ``textnb train --ngram`` goes as far): the terms of a document, and the
#: characters they hold, grow with n (a 200 KB document's character 1- to 100-grams took
#: 2.7 GB and 6 s to predict; 1- to 20-grams 0.4 GB and 1 s).
MAX_NGRAM = 20
#: Longest token pattern a model file may hold.
MAX_PATTERN_LENGTH = 1000
#: Largest count a model file may hold: 2**53, the last float64 that still counts exactly.
MAX_COUNT = float(2**53)
#: Largest size of one dimension (classes, features, rows, bins).
MAX_DIM = 2**40
#: Largest smoothing constant (alpha, m) a model file may hold.
MAX_ALPHA = 1e12
#: Largest magnitude of a real-valued parameter (means, cut points, log weights).
MAX_REAL = 1e150


class _Bad(Exception):
    """One problem, with the field path prepended on the way up."""


def _fail(msg):
    raise _Bad(msg)


def _is_int(v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


class _Ctx:
    """The dimensions bound so far in one node."""

    def __init__(self):
        self.dims = {}
        self.values = {}  # the fields of the section being checked
        self.params = {}  # the node's parameters
        self.index = []  # positions in the lists being checked (for "name[]" dimensions)

    def dim(self, name, value, what):
        """Bind or check dimension ``name`` (``"x"`` or ``"x+1"``) against ``value``."""
        if name is None:
            return
        if isinstance(name, str) and name.endswith("[]"):  # one dimension per list position
            name = f"{name[:-2]}[{self.index[-1] if self.index else 0}]"
        if _is_int(name):
            if value != name:
                _fail(f"{what} is {value}, expected {name}")
            return
        base, _, plus = name.partition("+")
        offset = int(plus) if plus else 0
        value = int(value)
        if base in self.dims:
            if self.dims[base] + offset != value:
                _fail(f"{what} is {value}, expected {self.dims[base] + offset} ({name})")
        else:
            if value - offset < 0 or value - offset > MAX_DIM:
                _fail(f"{what} is {value}, out of range")
            self.dims[base] = value - offset


class Spec:
    """A declared value; ``check(value, ctx)`` raises :class:`_Bad` on a mismatch;
    ``from_file(value)``: the value a model file's field is read as (itself, unless a
    value earlier versions wrote is now read as another, :class:`Jobs`)."""

    def check(self, value, ctx):  # pragma: no cover - abstract
        raise NotImplementedError

    def from_file(self, value):
        return value


class Any(Spec):
    """Any JSON value (for fields that are only reported, never computed with)."""

    def check(self, value, ctx):
        pass


class Bool(Spec):
    def check(self, value, ctx):
        if not isinstance(value, (bool, np.bool_)):
            _fail(f"expected true or false, got {_show(value)}")


class Int(Spec):
    """An integer in ``[lo, hi]``; ``dim`` binds or checks a dimension with its value."""

    def __init__(self, lo=None, hi=None, dim=None):
        self.lo, self.hi, self.dim = lo, hi, dim

    def check(self, value, ctx):
        if not _is_int(value):
            _fail(f"expected an integer, got {_show(value)}")
        if (self.lo is not None and value < self.lo) or (self.hi is not None and value > self.hi):
            _fail(f"{value} is outside [{self.lo}, {self.hi}]")
        ctx.dim(self.dim, value, "value")


class Jobs(Int):
    """A number of jobs, joblib's convention: ``1 .. hi``, or ``-1 .. lo`` counted back from the
    number of CPUs (-1: every CPU); 0 has no meaning (joblib and scikit-learn refuse it). A
    model file of an earlier version holding 0 (then taken as 1 by some models) is read as 1."""

    def check(self, value, ctx):
        super().check(value, ctx)
        if value == 0:
            _fail("0 has no meaning")

    def from_file(self, value):
        return 1 if _is_int(value) and value == 0 else value


class Float(Spec):
    """A finite real number (an integer is accepted) in ``[lo, hi]``."""

    def __init__(self, lo=-MAX_REAL, hi=MAX_REAL, lo_open=False):
        self.lo, self.hi, self.lo_open = lo, hi, lo_open

    def check(self, value, ctx):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
            _fail(f"expected a number, got {_show(value)}")
        if not math.isfinite(float(value)):
            _fail(f"{value} is not finite")
        if value < self.lo or value > self.hi or (self.lo_open and value == self.lo):
            _fail(f"{value} is outside {'(' if self.lo_open else '['}{self.lo}, {self.hi}]")


class Str(Spec):
    def __init__(self, max_len=10_000):
        self.max_len = max_len

    def check(self, value, ctx):
        if not isinstance(value, str):
            _fail(f"expected a string, got {_show(value)}")
        if len(value) > self.max_len:
            _fail(f"string of {len(value)} characters, over {self.max_len}")


class Choice(Spec):
    """One of the listed values (compared by type and value, so ``True`` is not ``1``)."""

    def __init__(self, *values):
        self.values = values

    def check(self, value, ctx):
        for v in self.values:
            if type(v) is type(value) and v == value:
                return
        _fail(f"{_show(value)} is not one of {list(self.values)}")


class OneOf(Spec):
    """The first spec that accepts the value (``None`` in the list stands for the value None)."""

    def __init__(self, *specs):
        self.specs = [Choice(None) if s is None else s for s in specs]

    def check(self, value, ctx):
        problems = []
        for s in self.specs:
            saved = dict(ctx.dims)
            try:
                s.check(value, ctx)
                return
            except _Bad as exc:
                ctx.dims = saved
                problems.append(str(exc))
        _fail(" / ".join(problems))

    def from_file(self, value):
        for s in self.specs:
            read = s.from_file(value)
            if read is not value:
                return read
        return value


def Optional(spec):
    """``spec`` or None."""
    return OneOf(None, spec)


class ListOf(Spec):
    """A list (or tuple) of items matching ``item``; ``length`` a size or dimension name."""

    def __init__(self, item, length=None, max_len=MAX_DIM):
        self.item, self.length, self.max_len = item, length, max_len

    def check(self, value, ctx):
        if not isinstance(value, (list, tuple)):
            _fail(f"expected a list, got {_show(value)}")
        if len(value) > self.max_len:
            _fail(f"list of {len(value)} items, over {self.max_len}")
        ctx.dim(self.length, len(value), "length")
        for i, v in enumerate(value):
            ctx.index.append(i)
            try:
                _at(f"[{i}]", self.item.check, v, ctx)
            finally:
                ctx.index.pop()


class TupleOf(Spec):
    """A fixed-length tuple (or list), one spec per position."""

    def __init__(self, *items):
        self.items = items

    def check(self, value, ctx):
        if not isinstance(value, (list, tuple)) or len(value) != len(self.items):
            _fail(f"expected {len(self.items)} items, got {_show(value)}")
        for i, (s, v) in enumerate(zip(self.items, value)):
            _at(f"[{i}]", s.check, v, ctx)


class DictOf(Spec):
    def __init__(self, key, value, max_len=MAX_DIM):
        self.key, self.value, self.max_len = key, value, max_len

    def check(self, value, ctx):
        if not isinstance(value, dict):
            _fail(f"expected a mapping, got {_show(value)}")
        if len(value) > self.max_len:
            _fail(f"mapping of {len(value)} items, over {self.max_len}")
        for k, v in value.items():
            _at(f"[{k!r}]", self.key.check, k, ctx)
            _at(f"[{k!r}]", self.value.check, v, ctx)


class When(Spec):
    """``then`` when parameter ``param`` equals ``value``, else ``otherwise``."""

    def __init__(self, param, value, then, otherwise):
        self.param, self.value, self.then, self.otherwise = param, value, then, otherwise

    def check(self, value, ctx):
        (self.then if ctx.params.get(self.param) == self.value else self.otherwise).check(value, ctx)


class Array(Spec):
    """A numpy array.

    Parameters
    ----------
    kinds : str
        Allowed dtype kinds (``"f"`` float, ``"iu"`` integers, ``"b"`` bool, ``"U"`` str).
    shape : tuple
        One entry per axis: a dimension name (``"n_classes"``, ``"n_classes+1"``), an
        int, or None (any size).
    lo, hi : float, optional
        Value bounds (numbers); ``finite`` refuses NaN and infinities.
    index : str, optional
        Every value is an index into dimension ``index``: an integer in ``[0, n)``.
    increasing : bool
        Strictly increasing along the last axis (cut points, sorted index lists).
    distinct : bool
        No value twice (class labels).
    sum_dim : str, optional
        Bind (or check) a dimension with the sum of the values (one-hot widths).
    lt : str, optional
        Every value is below the matching entry of this other field (broadcast over the
        leading axes: value codes below each column's number of values).
    elem_dims : str, optional
        Each element ``i`` binds (or checks) the dimension ``"<elem_dims>[i]"``.
    le : str, optional
        Every value is at most the matching entry of this other field of the same node
        (broadcast over the trailing axes: a per-class document frequency is at most the
        class's document count).
    min_size : int
        At least this many values (an interpolation table needs one point).
    """

    def __init__(self, kinds="f", shape=(None,), *, lo=None, hi=None, finite=True, index=None,
                 increasing=False, distinct=False, sum_dim=None, le=None, lt=None, elem_dims=None, min_size=0):
        self.le, self.lt, self.elem_dims, self.min_size = le, lt, elem_dims, min_size
        self.kinds, self.shape = kinds, None if shape is None else tuple(shape)
        self.lo, self.hi, self.finite = lo, hi, finite
        self.index, self.increasing, self.distinct, self.sum_dim = index, increasing, distinct, sum_dim

    def check(self, value, ctx):
        if not isinstance(value, np.ndarray):
            _fail(f"expected an array, got {_show(value)}")
        if value.dtype.kind not in self.kinds:
            _fail(f"dtype {value.dtype.str}, expected kind {self.kinds!r}")
        if self.shape is None:
            if value.ndim > 32:
                _fail(f"{value.ndim} dimensions")
        elif value.ndim != len(self.shape):
            _fail(f"shape {value.shape}, expected {len(self.shape)} dimension(s)")
        for axis, (want, got) in enumerate(zip(self.shape or (), value.shape)):
            ctx.dim(want, got, f"shape {value.shape} axis {axis}")
        if value.size < self.min_size:
            _fail(f"holds {value.size} values, fewer than {self.min_size}")
        if value.size == 0:
            if self.sum_dim:
                ctx.dim(self.sum_dim, 0, "sum")
            return
        kind = value.dtype.kind
        if kind in "fc" and self.finite == "no-nan" and np.any(np.isnan(value)):
            _fail("holds NaN")
        elif kind in "fc" and self.finite is True and not np.all(np.isfinite(value)):
            _fail("holds NaN or infinite values")
        if kind in "iuf":
            if self.lo is not None and value.min() < self.lo:
                _fail(f"holds {value.min()}, below {self.lo}")
            if self.hi is not None and value.max() > self.hi:
                _fail(f"holds {value.max()}, above {self.hi}")
        if self.index is not None:
            if kind not in "iu":
                _fail("indices must be integers")
            n = ctx.dims.get(self.index)
            if n is None:
                _fail(f"indices into {self.index}, which is not known yet")
            if value.min() < 0 or value.max() >= n:
                _fail(f"index {value.min() if value.min() < 0 else value.max()} outside [0, {n})")
        if self.increasing and value.shape[-1] > 1:
            if kind in "fiu" and not np.all(np.diff(value, axis=-1) > 0):
                _fail("values are not strictly increasing")
        if self.distinct:
            flat = value.ravel()
            if kind == "f" and np.any(np.isnan(flat)):
                _fail("holds NaN")
            ordered = np.sort(flat)  # (np.unique would import numpy.ma)
            if np.any(ordered[1:] == ordered[:-1]):
                _fail("holds a value twice")
        if self.le is not None:
            other = ctx.values.get(self.le)
            if not isinstance(other, np.ndarray) or other.shape != value.shape[:other.ndim]:
                _fail(f"has no matching {self.le}")
            if np.any(value > other.reshape(other.shape + (1,) * (value.ndim - other.ndim))):
                _fail(f"holds a value above its {self.le}")
        if self.lt is not None:
            other = ctx.values.get(self.lt)
            if not isinstance(other, np.ndarray) or other.ndim > value.ndim \
                    or other.shape != value.shape[value.ndim - other.ndim:]:
                _fail(f"has no matching {self.lt}")
            if np.any(value >= other):
                _fail(f"holds a value not below its {self.lt}")
        if self.elem_dims is not None:
            for i, n in enumerate(value.ravel().tolist()):
                ctx.dim(f"{self.elem_dims}[{i}]", n, f"[{i}]")
        if self.sum_dim:
            if kind not in "iu" or value.min() < 0:
                _fail("sizes must be non-negative integers")
            total = int(value.astype(np.int64).sum()) if value.max() <= MAX_DIM else MAX_DIM + 1
            ctx.dim(self.sum_dim, total, "sum")


def Counts(shape=(None,), **kw):
    """Float counts: finite, in ``[0, MAX_COUNT]``."""
    return Array("f", shape, lo=0.0, hi=MAX_COUNT, **kw)


def Reals(shape=(None,), *, lo=-MAX_REAL, hi=MAX_REAL, **kw):
    """Finite real numbers of bounded magnitude (means, weights, log values)."""
    return Array("f", shape, lo=lo, hi=hi, **kw)


def Classes(dim="n_classes"):
    """Class labels: one dimension, at least one, all distinct; binds ``dim``."""
    return _Classes(dim)


class _Classes(Array):
    def __init__(self, dim):
        super().__init__("iufbUS", (dim,), finite=True, distinct=True)

    def check(self, value, ctx):
        super().check(value, ctx)
        if value.size == 0:
            _fail("no classes")


class Exactly(Spec):
    """A value that ``spec`` accepts and that equals ``expected(dims)``, computed from the
    dimensions bound so far: a layout every fitted model of the kind has (which classes a
    one-vs-rest calibration covers), so that no other layout can load."""

    def __init__(self, spec, expected, what):
        self.spec, self.expected, self.what = spec, expected, what

    def check(self, value, ctx):
        self.spec.check(value, ctx)
        want = self.expected(ctx.dims)
        if np.shape(value) != np.shape(want) or not np.array_equal(np.asarray(value), np.asarray(want)):
            _fail(f"is {_show(np.asarray(value).tolist())}, expected {self.what}")


class CSR(Spec):
    """A sparse CSR matrix (structure checked at unpacking) of shape ``shape``, values ``data``."""

    def __init__(self, shape, data):
        self.shape, self.data = shape, data

    def check(self, value, ctx):
        import scipy.sparse as sp

        if not sp.issparse(value) or value.format != "csr":
            _fail(f"expected a sparse matrix, got {_show(value)}")
        for axis, (want, got) in enumerate(zip(self.shape, value.shape)):
            ctx.dim(want, got, f"shape {value.shape} axis {axis}")
        _at(".data", self.data.check, value.data, ctx)


class Model(Spec):
    """A nested textnb estimator (checked by its own schema when it was built).

    ``kinds`` limits the class names; ``fitted`` requires fitted state; ``dims`` maps an
    attribute of the nested estimator to a dimension of this node (an int attribute binds
    its value, an array attribute its length); ``equal`` maps an attribute of the nested
    estimator to a field of this node it must equal (a meta-estimator's ``classes_`` are
    its inner model's), or to a literal value (a tuple). ``optional``: attributes of ``dims``
    the nested estimator may lack (a model of raw documents has no ``n_features_in_``).
    """

    def __init__(self, kinds=None, *, fitted=True, dims=None, equal=None, optional=()):
        self.kinds, self.fitted, self.dims, self.equal = kinds, fitted, dims or {}, equal or {}
        self.optional = frozenset(optional)

    def check(self, value, ctx):
        if not (hasattr(value, "get_params") or hasattr(value, "to_node")) or isinstance(value, type):  # or a kernel
            _fail(f"expected a model, got {_show(value)}")
        name = type(value).__name__
        if self.kinds is not None and name not in self.kinds:
            _fail(f"a {name} model is not allowed here (expected {' or '.join(self.kinds)})")
        if self.fitted:
            if not is_fitted(value):
                _fail(f"the {name} model is not fitted")
            for attr, dim in self.dims.items():
                v = getattr(value, attr, None)
                if v is None and attr in self.optional:
                    continue
                if v is None:
                    _fail(f"the {name} model has no {attr}")
                ctx.dim(dim, v if _is_int(v) else len(v), f"{name}.{attr}")
            for attr, field in self.equal.items():
                mine = ctx.values.get(field) if isinstance(field, str) else field  # a field, or a literal
                theirs = getattr(value, attr, None)
                if theirs is None or mine is None or np.shape(mine) != np.shape(theirs) \
                        or not np.array_equal(np.asarray(mine), np.asarray(theirs)):
                    _fail(f"the {name} model's {attr} differ from {field}")


class Attributes(Spec):
    """Table attributes (:class:`textnb.io.tables.Attribute`): a known kind, distinct string values."""

    KINDS = ("numeric", "nominal", "uncertain-numeric", "uncertain-nominal", "string", "date", "text")

    def __init__(self, length="n_features"):
        self.length = length

    def check(self, value, ctx):
        if not isinstance(value, (list, tuple)):
            _fail(f"expected a list of attributes, got {_show(value)}")
        ctx.dim(self.length, len(value), "length")
        names = set()
        for i, a in enumerate(value):
            kind = getattr(a, "kind", None)
            values = getattr(a, "values", None)
            if type(a).__name__ != "Attribute" or kind not in self.KINDS or not isinstance(values, (list, tuple)):
                _fail(f"[{i}] is not an attribute of a known kind")
            if len(set(values)) != len(values):
                _fail(f"[{i}] ({a.name!r}) repeats a value")
            if kind in ("nominal", "uncertain-nominal") and not values:
                _fail(f"[{i}] ({a.name!r}) is nominal without values")
            if a.name in names:
                _fail(f"[{i}] ({a.name!r}) is named twice")
            names.add(a.name)


class Pattern(Spec):
    """A token pattern: see :func:`pattern_problem`."""

    def check(self, value, ctx):
        if not isinstance(value, str):
            _fail(f"expected a regular expression, got {_show(value)}")
        problem = pattern_problem(value)
        if problem:
            _fail(problem)


# --------------------------------------------------------------------------- patterns
_REPEATS = {_sre_c.MAX_REPEAT, _sre_c.MIN_REPEAT, getattr(_sre_c, "POSSESSIVE_REPEAT", None)} - {None}
_MAXREPEAT = _sre_c.MAXREPEAT


def pattern_problem(pattern):
    """Why ``pattern`` may not tokenize untrusted text, or None.

    Refused: over :data:`MAX_PATTERN_LENGTH` characters; not compilable; more than one
    capturing group; back-references; an unbounded repeat (``*``, ``+``, ``{n,}``)
    inside a repeat of more than one (star height > 1: ``(\\w+\\s?)+``, ``(a*)*``);
    an unbounded repeat of an alternation (``(a|ab)*``). These are the shapes of
    exponential backtracking in a backtracking matcher such as :mod:`re`. Also refused:
    a pattern that matches the empty string (every position of a text would be an empty
    token); more than :data:`MAX_PATTERN_DEGREE` unbounded repeats one after another
    (``\\w*\\w*\\w*x``), whose backtracking is a polynomial of that degree. What is left
    matches in time at most cubic in a run of text the repeats match (for ordinary token
    patterns, linear in the text).
    """
    if len(pattern) > MAX_PATTERN_LENGTH:
        return f"token pattern of {len(pattern)} characters, over {MAX_PATTERN_LENGTH}"
    try:
        compiled = re.compile(pattern)
        parsed = _sre_parse.parse(pattern)
    except (re.error, RecursionError, OverflowError, ValueError) as exc:
        return f"token pattern {pattern[:60]!r} does not compile ({exc})"
    if compiled.groups > 1:
        return "token pattern captures more than one group"
    if compiled.fullmatch("") is not None:  # (found by a user trial: '' trained a model of one term, the empty one)
        return (f"token pattern {pattern[:60]!r} matches the empty string: every position of a document would be "
                "an empty token (use + rather than *, e.g. \\w+)")
    problem = _walk(parsed, outer_repeat=False)
    if not problem and _degree(parsed) > MAX_PATTERN_DEGREE:
        problem = (f"chains {_degree(parsed)} unbounded repeats one after another (polynomial backtracking: "
                   f"at most {MAX_PATTERN_DEGREE})")
    if problem:
        return f"token pattern {pattern[:60]!r} {problem}"
    return None


#: Most unbounded repeats (``*``, ``+``, ``{n,}``) a token pattern may have one after
#: another: a failing match backtracks through every split of a run of text between
#: them, so ``k`` of them cost ``n ** (k + 1)`` steps on a run of ``n`` characters
#: (``\w*\w*\w*\w*\w*\w*x``: 3.7 s on 50 letters); alternatives count once (the most of
#: any branch), a lookaround as part of the sequence it is in.
MAX_PATTERN_DEGREE = 2


def _degree(items):
    """The most unbounded repeats one after another in ``items`` (see :data:`MAX_PATTERN_DEGREE`)."""
    total = 0
    for op, av in items:
        if op in _REPEATS:
            total += (av[1] == _MAXREPEAT) + _degree(av[2])
        elif op == _sre_c.SUBPATTERN:
            total += _degree(av[-1])
        elif op == _sre_c.BRANCH:
            total += max((_degree(b) for b in av[1]), default=0)
        elif op in (_sre_c.ASSERT, _sre_c.ASSERT_NOT):
            total += _degree(av[1])
        elif op == getattr(_sre_c, "ATOMIC_GROUP", None):
            total += _degree(av)
    return total


def _walk(items, outer_repeat):
    for op, av in items:
        if op in _REPEATS:
            lo, hi, sub = av
            unbounded = hi == _MAXREPEAT
            if unbounded and outer_repeat:
                return "nests an unbounded repeat inside a repeat (catastrophic backtracking)"
            if unbounded and any(o == _sre_c.BRANCH for o, _ in _flat(sub)):
                return "repeats an alternation without bound (catastrophic backtracking)"
            problem = _walk(sub, outer_repeat or hi > 1)
            if problem:
                return problem
        elif op in (_sre_c.GROUPREF, getattr(_sre_c, "GROUPREF_EXISTS", None)):
            return "uses a back-reference"
        elif op == _sre_c.SUBPATTERN:
            problem = _walk(av[-1], outer_repeat)
            if problem:
                return problem
        elif op == _sre_c.BRANCH:
            for branch in av[1]:
                problem = _walk(branch, outer_repeat)
                if problem:
                    return problem
        elif op in (_sre_c.ASSERT, _sre_c.ASSERT_NOT):
            problem = _walk(av[1], outer_repeat)
            if problem:
                return problem
        elif op == getattr(_sre_c, "ATOMIC_GROUP", None):
            problem = _walk(av, outer_repeat)
            if problem:
                return problem
    return None


def _flat(items):
    """The top-level items of a subpattern, looking through plain groups."""
    for op, av in items:
        if op == _sre_c.SUBPATTERN:
            yield from _flat(av[-1])
        else:
            yield op, av


# --------------------------------------------------------------------------- checking
def _show(v):
    if isinstance(v, np.ndarray):
        return f"an array of shape {v.shape}"
    text = repr(v)
    return text if len(text) <= 40 else type(v).__name__


def _at(where, fn, *args):
    try:
        fn(*args)
    except _Bad as exc:
        raise _Bad(f"{where}: {exc}" if not str(exc).startswith((".", "[")) else f"{where}{exc}") from None


def _check_fields(kind, section, schema, values, ctx, *, all_required):
    ctx.values = values
    for name in values:
        if name not in schema:
            raise ModelFileError(f"inconsistent model file ({kind}: unknown {section} {name!r})")
    for name, spec in schema.items():
        required = all_required and not isinstance(spec, _Absent)
        if name not in values:
            if required:
                raise ModelFileError(f"inconsistent model file ({kind}.{name}: missing)")
            continue
        spec = spec.spec if isinstance(spec, _Absent) else spec
        read = spec.from_file(values[name])
        if read is not values[name]:
            values[name] = read
        try:
            spec.check(values[name], ctx)
        except _Bad as exc:
            text = " ".join(str(exc).split())[:300]
            sep = "" if text.startswith(("[", ".")) else ": "
            raise ModelFileError(f"inconsistent model file ({kind}.{name}{sep}{text})") from None


class _Absent(Spec):
    def __init__(self, spec):
        self.spec = spec


def MayBeAbsent(spec):
    """A state field that older files (or some configurations) do not have."""
    return _Absent(spec)


def dimension_axes(schema, dim):
    """``{field: axis}``: the array fields of the state ``schema`` that have the dimension
    ``dim`` (``"n_features"``), those that may be absent included, and the axis it is: where a
    model's arrays are taken at a subset of that dimension (:func:`textnb.text.nodes.keep_terms`)."""
    axes = {}
    for name, spec in schema.items():
        spec = spec.spec if isinstance(spec, _Absent) else spec
        if isinstance(spec, Array) and spec.shape and dim in spec.shape:
            axes[name] = spec.shape.index(dim)
    return axes


_DECLARED = {}


def declare(cls, params, state):
    """Declare the schema of a class that cannot carry the attributes (not textnb's own)."""
    _DECLARED[cls] = (params, state)


def schema_of(cls):
    """``(param schema, state schema)`` declared by ``cls`` (None for a part not declared)."""
    declared = _DECLARED.get(cls)
    if declared is not None:
        return declared
    return getattr(cls, "_param_schema", None), getattr(cls, "_state_schema", None)


def check_node(cls, params, state):
    """Check one node's ``params`` and ``state`` against ``cls``'s declared schema.

    A class without ``_state_schema`` is refused when the node holds state: every
    registered model kind must declare what its files may hold.
    """
    check_declared(cls.__name__, *schema_of(cls), params, state)


def check_declared(kind, pschema, sschema, params, state):
    """:func:`check_node` against the schemas themselves (for code that checks a node of
    a model file without importing its estimator class: :mod:`textnb.naive_bayes.kernels`)."""
    if pschema is None or (state and sschema is None):
        raise ModelFileError(f"inconsistent model file ({kind} declares no model-file schema)")
    ctx = _Ctx()
    ctx.params = params
    _check_fields(kind, "parameter", pschema, params, ctx, all_required=False)
    if state:
        _check_fields(kind, "state field", sschema, state, ctx, all_required=True)


def _describe(spec):
    """What ``spec`` accepts, in words, for a parameter error."""
    if isinstance(spec, Choice):
        return "None" if spec.values == (None,) else f"one of {spec.values}"
    if isinstance(spec, OneOf):
        return " or ".join(_describe(s) for s in spec.specs)
    if isinstance(spec, Float):
        return f"a finite number in {'(' if spec.lo_open else '['}{spec.lo:g}, {spec.hi:g}]"
    if isinstance(spec, Jobs):
        return f"a number of jobs, an integer in [1, {spec.hi}] or [{spec.lo}, -1] (-1: every CPU; 0 has no meaning)"
    if isinstance(spec, Int):
        return f"an integer in [{spec.lo}, {spec.hi}]"
    if isinstance(spec, Bool):
        return "True or False"
    if isinstance(spec, Str):
        return f"a string of at most {spec.max_len} characters"
    return "valid"


def check_params(estimator):
    """Check an estimator's constructor parameters against its declared ``_param_schema``.

    The same declarations that check a model file check the parameters at ``fit`` time
    (the role of scikit-learn's ``_parameter_constraints``), so validation is written once
    per model kind, not in a hand-written ``_check_params``. Structured parameters
    (attributes, structures, nested templates) are left to the code that interprets them. Raises ``ValueError``
    ``"alpha must be a finite number in (0, 1e+12]; got -1"``.
    """
    schema = schema_of(type(estimator))[0] or {}
    check_param_values(schema, {name: getattr(estimator, name) for name in schema})


def check_param_values(schema, params):
    """:func:`check_params` for a dict of parameter values (every name of ``schema``
    present), for code that trains without building the estimator."""
    ctx = _Ctx()
    ctx.params = params
    for name, spec in schema.items():
        wanted = _describe(spec)
        if "valid" in wanted:
            # structured values (attributes, structures, nested templates) take more forms
            # in memory than in a file; the code that interprets them checks them
            continue
        try:
            spec.check(ctx.params[name], ctx)
        except _Bad:
            raise ParameterError(f"{name} must be {wanted}; got {_show(ctx.params[name])}", parameter=name) from None


def same_setting(a, b):
    """Whether two values of a parameter are the same setting, as a model file would hold
    them: numbers by value (``1`` and ``1.0``; a bool is not a number here), sequences and
    arrays element by element (a tuple read back as a list is the same), mappings key by
    key, None only as None, anything else by ``==``."""
    if a is None or b is None:
        return a is b
    if isinstance(a, (str, bytes)) or isinstance(b, (str, bytes)):
        return isinstance(a, (str, bytes)) and isinstance(b, (str, bytes)) and a == b
    if isinstance(a, (bool, np.bool_)) or isinstance(b, (bool, np.bool_)):
        return isinstance(a, (bool, np.bool_)) and isinstance(b, (bool, np.bool_)) and bool(a) == bool(b)
    if isinstance(a, (int, float, np.number)) and isinstance(b, (int, float, np.number)):
        return float(a) == float(b)
    if isinstance(a, dict) or isinstance(b, dict):
        return (isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys()
                and all(same_setting(a[k], b[k]) for k in a))
    if isinstance(a, (list, tuple, np.ndarray)) and isinstance(b, (list, tuple, np.ndarray)):
        if isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype != object and b.dtype != object:
            return a.shape == b.shape and bool(np.array_equal(a, b))
        a, b = list(a), list(b)
        return len(a) == len(b) and all(same_setting(x, y) for x, y in zip(a, b))
    try:
        return bool(a == b)
    except (TypeError, ValueError):  # (an object whose == is not a truth value)
        return False


def _small_alpha(settings):
    """Whether the ``alpha`` of ``settings`` (a number, an array, None: a model's own) has a
    value below :data:`~textnb.core.estimates.ALPHA_FLOOR`, where ``force_alpha`` decides
    whether it is kept; anything unreadable counts as small (compared, not skipped)."""
    from textnb.core.estimates import ALPHA_FLOOR

    alpha = settings.get("alpha")
    if alpha is None:
        return False
    try:
        return not bool(np.all(np.asarray(alpha, dtype=np.float64) >= ALPHA_FLOOR))
    except (TypeError, ValueError):
        return True


def check_same_settings(mine, theirs, *, what="settings", skip=()):
    """Raise :class:`~textnb.core.errors.SettingsDiffer` naming the first parameter (in
    name order) whose value differs between the dicts ``mine`` and ``theirs``
    (:func:`same_setting`; a name only one has differs), leaving out the names in ``skip``
    (execution-only parameters such as ``n_jobs``): what a merge of two fitted models
    checks, since the merged model keeps one side's parameters. ``force_alpha`` is left out
    when neither side's ``alpha`` is below :data:`~textnb.core.estimates.ALPHA_FLOOR`, where
    it changes no estimate (found by a user trial: a part trained with ``--alpha 1``, the
    default value given, was refused as ``force_alpha is False``, a setting no option sets)."""
    missing = object()
    for name in sorted(set(mine) | set(theirs)):
        if name in skip or (name == "force_alpha" and not (_small_alpha(mine) or _small_alpha(theirs))):
            continue
        a, b = mine.get(name, missing), theirs.get(name, missing)
        if a is missing or b is missing or not same_setting(a, b):
            raise SettingsDiffer(what, name, None if a is missing else a, None if b is missing else b)


def check_csr(data, indices, indptr, shape):
    """Refuse a CSR matrix whose members scipy could not use safely; return the shape."""
    if (not isinstance(shape, (list, tuple)) or len(shape) != 2
            or not all(_is_int(n) and 0 <= n <= MAX_DIM for n in shape)):
        raise ModelFileError(f"inconsistent model file (sparse matrix shape {_show(shape)})")
    rows, cols = int(shape[0]), int(shape[1])
    for name, a in (("data", data), ("indices", indices), ("indptr", indptr)):
        if not isinstance(a, np.ndarray) or a.ndim != 1:
            raise ModelFileError(f"inconsistent model file (sparse matrix {name} is not a 1-D array)")
    if data.dtype.kind not in "biuf":
        raise ModelFileError(f"inconsistent model file (sparse matrix data of dtype {data.dtype.str})")
    for name, a in (("indices", indices), ("indptr", indptr)):
        if a.dtype.kind not in "iu":
            raise ModelFileError(f"inconsistent model file (sparse matrix {name} of dtype {a.dtype.str})")
    nnz = data.shape[0]
    if indices.shape[0] != nnz:
        raise ModelFileError(f"inconsistent model file (sparse matrix has {nnz} values but {indices.shape[0]} indices)")
    if indptr.shape[0] != rows + 1:
        raise ModelFileError(f"inconsistent model file (sparse matrix indptr of {indptr.shape[0]} entries for {rows} rows)")
    ptr = indptr.astype(np.int64)
    if ptr[0] != 0 or ptr[-1] != nnz or np.any(np.diff(ptr) < 0):
        raise ModelFileError("inconsistent model file (sparse matrix indptr not non-decreasing from 0 to nnz)")
    if nnz:
        idx = indices.astype(np.int64) if indices.dtype.kind == "i" or indices.max() <= 2**62 else None
        if idx is None or idx.min() < 0 or idx.max() >= cols:
            raise ModelFileError(f"inconsistent model file (sparse matrix index outside [0, {cols}))")
        step = np.diff(idx)
        row_start = np.zeros(nnz, dtype=bool)
        row_start[ptr[1:-1][ptr[1:-1] < nnz]] = True
        if np.any((step <= 0) & ~row_start[1:]):
            raise ModelFileError("inconsistent model file (sparse matrix indices not increasing within a row)")
    if max(nnz, rows + 1) > np.iinfo(np.int32).max or cols > np.iinfo(np.int32).max:
        itype = np.int64
    else:
        itype = np.int32
    return (rows, cols), indices.astype(itype, copy=False), indptr.astype(itype, copy=False)


# --------------------------------------------------------------------------- shared fields
#: additive smoothing and the m of the m-estimate
SMOOTHING = Float(0.0, MAX_ALPHA)
#: a smoothing constant that must be positive (a Laplace alpha, the m of a Bayesian network)
POSITIVE_SMOOTHING = Float(0.0, MAX_ALPHA, lo_open=True)
#: a class prior given by the user: one probability per class
CLASS_PRIOR = Optional(OneOf(ListOf(Float(0.0, 1.0), length="n_classes"),
                             Array("f", ("n_classes",), lo=0.0, hi=1.0)))
#: a table model's class prior: CLASS_PRIOR, or "uniform" (an equal share for every class
#: with training rows, resolved in fit: :func:`textnb.core.estimates.uniform_prior`)
TABLE_CLASS_PRIOR = Optional(OneOf(Choice("uniform"), ListOf(Float(0.0, 1.0), length="n_classes"),
                                   Array("f", ("n_classes",), lo=0.0, hi=1.0)))
#: the class values a table declares, in their order (an ARFF header's): the model's classes
CLASS_VALUES = Optional(ListOf(OneOf(Str(10_000), Int())))
#: worker processes or threads of a model's own prediction (joblib's convention)
N_JOBS = Optional(Jobs(-64, 256))
#: seeds
SEED = Optional(Int(0, 2**32 - 1))
#: folds of an internal cross-validation
FOLDS = Int(2, 10_000)
#: the (train, test) index arrays of every split of an internal cross-validation, as a model
#: file stores a ``cv`` given as a list of splits (a splitter object cannot be stored)
SPLITS = ListOf(TupleOf(Array("iu", (None,), lo=0, hi=MAX_DIM), Array("iu", (None,), lo=0, hi=MAX_DIM)),
                max_len=10_000)
#: a meta-estimator's ``cv``: None, a number of folds or the stored splits
CV_SCHEMA = Optional(OneOf(FOLDS, SPLITS))
#: a column's feature names, as scikit-learn keeps them
FEATURE_NAMES = MayBeAbsent(Array("U", ("n_features",)))
#: a fitted count of features (``n_features_in_``)
N_FEATURES = Int(0, MAX_DIM, dim="n_features")
#: an unfitted estimator template held in a meta-estimator's parameters
TEMPLATE = Optional(Model(fitted=False))


class NgramRange(Spec):
    """``(min_n, max_n)`` with ``1 <= min_n <= max_n <= MAX_NGRAM``."""

    def check(self, value, ctx):
        TupleOf(Int(1, None), Int(1, None)).check(value, ctx)
        if value[1] > MAX_NGRAM:
            _fail(f"max_n {value[1]} is over {MAX_NGRAM} (the largest n-gram order textnb trains or reads)")
        if value[0] > value[1]:
            _fail(f"min_n {value[0]} > max_n {value[1]}")


def is_fitted(est):
    """scikit-learn's notion of fitted (``__sklearn_is_fitted__``, else a fitted attribute
    ending in ``_``), without importing scikit-learn."""
    is_fitted = getattr(est, "__sklearn_is_fitted__", None)
    if is_fitted is not None:
        return bool(is_fitted())
    return any(k.endswith("_") and not k.startswith("__") for k in vars(est))
