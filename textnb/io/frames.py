"""pandas DataFrames as model input: one encoding shared by the table models.

A table model given a DataFrame calls :func:`frame_attributes` in ``fit`` (object,
string, category and bool columns are nominal, numbers numeric, NaN / None missing; the
rule of :func:`textnb.io.tables.table_from_frame`) and :func:`encode_frame` wherever it
takes ``X``: the frame becomes a frame of float64 value indices and numbers with the
same column names, so scikit-learn's ``validate_data`` records and checks
``feature_names_in_`` as usual. Each cell is read by the rule of every query path,
:mod:`textnb.io.cells` (a string that writes a number is that number in a numeric
column, one that writes none an InputError; ``1`` is True in a bool column); a nominal
value not seen in training is missing (NaN) at prediction, with a DataWarning. In
training, a value that declared ``attributes`` do not list is refused (ValueError
naming the column, as a value index past them in an array is); a later
``partial_fit`` batch of a model whose attributes the frame gave adds its new values to
them (:func:`with_values_of`; the model's counts widen, as CategoricalNB's for a new
code), also to a nominal column the first batch had no known value of; a later batch
never turns a column the first batch made nominal (whole numbers, ``integers_nominal``)
numeric: a number that is not whole there is refused (:func:`frame_for_batch`). Any table model (TabularNB today; TAN, LBR, APNBC, AODE) applies it by calling
these functions.

pandas is never imported here: a frame is recognised by its type's module.
"""

import numpy as np

from textnb.core.attributes import found_values
from textnb.core.wrapping import declared_attributes
from textnb.io.cells import UNSEEN, cell_reader, is_missing, read_cells, value_name
from textnb.io.tables import Attribute

__all__ = ["encodable", "encode_frame", "frame_attributes", "frame_for_batch", "frame_for_fit",
           "frame_for_predict", "is_frame", "with_values_of"]


def is_frame(X):
    """True if ``X`` is a pandas DataFrame."""
    return type(X).__module__.split(".")[0] == "pandas" and hasattr(X, "columns") and hasattr(X, "dtypes")


def _is_number_column(s):
    kind = getattr(s.dtype, "kind", "O")
    return kind in "iuf" and str(s.dtype) != "category"


def _whole_numbers(s):
    if getattr(s.dtype, "kind", "O") in "iu":
        return True
    if getattr(s.dtype, "kind", "O") != "f":
        return False
    v = s.to_numpy(dtype=np.float64, na_value=np.nan)
    v = v[~np.isnan(v)]
    return bool(v.size) and bool(np.all(np.isfinite(v))) and bool(np.all(v == np.floor(v)))  # (inf: numeric)


def frame_attributes(df, *, integers_nominal=False, first_batch=False):
    """The attributes of a DataFrame's columns (nominal values in the order
    ``table_from_frame`` gives them: categories in order, else sorted, as a CSV column's,
    :func:`textnb.core.attributes.found_values`).

    ``integers_nominal``: number columns holding whole numbers only are nominal too,
    their distinct values in increasing order (for models over nominal value indices,
    whose array input is such numbers: TAN, the Bayesian networks, LBR).

    A nominal column with no known value (every cell missing) is a ValueError, but in
    ``partial_fit``'s first batch (``first_batch``): there it is a nominal attribute
    without values yet, which later batches give (:func:`with_values_of`), as they add
    new values to the others (a row-by-row stream whose first row lacks the value).
    """
    out = []
    for col in df.columns:
        s = df[col]
        if integers_nominal and _whole_numbers(s):
            known = sorted({int(v) for v in s.tolist() if not is_missing(v)})
            out.append(Attribute(str(col), "nominal", [str(v) for v in known]))
        elif str(s.dtype) == "category":
            out.append(Attribute(str(col), "nominal", [str(v) for v in s.cat.categories]))
        elif _is_number_column(s):
            out.append(Attribute(str(col), "numeric", []))
        else:
            values = found_values(value_name(v) for v in s.tolist() if not is_missing(v))
            if not values and not first_batch:
                raise ValueError(f"column {col!r} has no known value")
            out.append(Attribute(str(col), "nominal", values))
    return out


def _keys_of(s):
    """How the cells of column ``s`` are named: a category column's as its categories are
    (``str``, as :func:`textnb.io.tables.table_from_frame` names them), others by
    :func:`textnb.io.cells.value_name` (``2.0`` is ``"2"``)."""
    return str if str(s.dtype) == "category" else value_name


def encodable(attributes):
    """True if every attribute is one column (nominal or numeric, not uncertain)."""
    return all(a.kind in ("nominal", "numeric") for a in attributes)


def encode_frame(df, attributes, *, unknown="missing"):
    """``df`` as a float64 DataFrame (same columns): nominal values as their index in
    ``attributes`` (NaN when missing), numeric columns as numbers, every cell read by the
    rule of :mod:`textnb.io.cells` (a numeric column's text that writes no number: an
    InputError). A value ``attributes`` do not list is missing with a DataWarning with
    ``unknown="missing"`` (prediction), a ValueError naming the column with
    ``unknown="error"`` (training on declared attributes)."""
    names = [str(c) for c in df.columns]
    if len(names) != len(attributes):
        raise ValueError(f"the DataFrame has {len(names)} columns but the model was fitted on {len(attributes)}")
    fitted = [str(a.name) for a in attributes]
    if names != fitted and sorted(names) == sorted(fitted):  # (as scikit-learn says it)
        raise ValueError(f"The feature names should match those that were passed during fit: the same columns in "
                         f"another order ({', '.join(names)}; fitted: {', '.join(fitted)})")
    cols = {}
    for col, a in zip(df.columns, attributes):
        s = df[col]
        if a.kind == "numeric" and (_is_number_column(s) or str(s.dtype) == "bool"):
            cols[col] = s.to_numpy(dtype=np.float64, na_value=np.nan)  # (what the rule gives, at once)
            continue
        # (found by a user trial: a string "85" in a numeric column was refused here and taken where the
        # column was nominal; a bool column queried with 1 was missing)
        cells = s.tolist()
        codes = read_cells(cells, a, "<DataFrame>", where=f"column {col!r}", keep_unseen=unknown == "error",
                           stacklevel=4)
        if unknown == "error" and (codes == UNSEEN).any():
            v = cells[int(np.flatnonzero(codes == UNSEEN)[0])]
            raise ValueError(f"column {col!r} holds {_keys_of(s)(v)!r}, not one of the {len(a.values)} values its "
                             f"attribute declares; add it to attributes (or leave attributes=None to take "
                             f"the values the DataFrame holds)")
        cols[col] = codes
    return type(df)(cols, index=df.index, columns=df.columns)


def with_values_of(df, attributes):
    """``attributes`` (a DataFrame's, :func:`frame_attributes`) with the nominal values of
    ``df`` (a later ``partial_fit`` batch with the same columns) they lack appended: a
    category column's in the order of its categories, others sorted (as the first batch's
    were, :func:`textnb.core.attributes.found_values`). The same list object when no value is new."""
    out, grew = [], False
    for col, a in zip(df.columns, attributes):
        if a.kind != "nominal":
            out.append(a)
            continue
        s = df[col]
        cells, key = s.cat.categories.tolist() if str(s.dtype) == "category" else s.tolist(), _keys_of(s)
        read = cell_reader(a)  # (a cell the rule matches to a value is not new: 1 in a bool column)
        new = list(dict.fromkeys(key(v) for v in cells if read(v) == UNSEEN))
        if str(s.dtype) != "category":
            new = found_values(new)
        grew = grew or bool(new)
        out.append(Attribute(a.name, a.kind, list(a.values) + new) if new else a)
    return out if grew else attributes


def _refuse_fractions_in_whole_columns(df, attributes):
    """A ValueError naming the first number column of ``df`` (a later batch) that is not
    whole numbers only where ``attributes`` (the first batch's, :func:`frame_attributes`
    with ``integers_nominal``) are nominal values that are all whole numbers."""
    for col, a in zip(df.columns, attributes):
        s = df[col]
        if (a.kind != "nominal" or not a.values or not _is_number_column(s) or _whole_numbers(s)
                or not s.notna().any() or not all(_writes_an_integer(v) for v in a.values)):
            continue
        v = s.to_numpy(dtype=np.float64, na_value=np.nan)
        v = v[~np.isnan(v)]
        odd = v[~(np.isfinite(v) & (v == np.floor(v)))][0]
        raise ValueError(f"column {col!r} holds {value_name(odd)!r} in a later partial_fit batch, but the first "
                         f"batch's values, all whole numbers, made it nominal (fit on all the rows would make it "
                         f"numeric); declare it numeric (attributes=[..., Attribute({str(col)!r}, 'numeric'), ...]) "
                         f"or start with a batch that shows its fractions")


def _writes_an_integer(name):
    try:
        return str(int(name)) == name
    except ValueError:
        return False


def _plain(attributes):
    return attributes is not None and all(isinstance(a, Attribute) for a in attributes) and encodable(attributes)


def frame_for_fit(estimator, X, declared, *, integers_nominal=False, first_batch=False):
    """``fit``'s half for a model with an ``attributes`` parameter (``declared``), and
    ``partial_fit``'s for its first batch (``first_batch``).

    A DataFrame fitted without declared attributes sets ``estimator.frame_attributes_``
    (the ones :func:`frame_attributes` finds, ``integers_nominal`` and ``first_batch``
    passed on; the model uses them as if declared) and
    is encoded with them; with declared attributes it is encoded with those. Any other
    ``X`` clears ``frame_attributes_`` and is returned as it is.
    """
    estimator.__dict__.pop("frame_attributes_", None)
    if not is_frame(X):
        return X
    if declared is None:
        estimator.frame_attributes_ = frame_attributes(X, integers_nominal=integers_nominal, first_batch=first_batch)
        declared = estimator.frame_attributes_
    declared = list(declared)
    return encode_frame(X, declared, unknown="error") if _plain(declared) else X


def frame_for_batch(estimator, X, declared, *, integers_nominal=False):
    """``partial_fit``'s half for a later batch (``X`` unchanged unless a DataFrame): a model
    whose attributes its first DataFrame gave (``frame_attributes_``) takes the batch's new
    nominal values into them (:func:`with_values_of`; the model then widens its counts);
    the batch is encoded with the attributes, a value declared ``attributes`` lack refused.

    ``integers_nominal`` (as the first batch was read, :func:`frame_for_fit`): a number
    column the first batch's whole numbers made nominal stays nominal, so a later number
    that is not whole in it is a ValueError naming the column (``fit`` on all the batches
    would have made it numeric: its values are not added as new nominal ones)."""
    if not is_frame(X):
        return X
    if declared is None and getattr(estimator, "frame_attributes_", None) is not None:
        if integers_nominal:
            _refuse_fractions_in_whole_columns(X, estimator.frame_attributes_)
        estimator.frame_attributes_ = with_values_of(X, estimator.frame_attributes_)
    attrs = declared if declared is not None else declared_attributes(estimator)
    attrs = None if attrs is None else list(attrs)
    return encode_frame(X, attrs, unknown="error") if _plain(attrs) else X


def frame_for_predict(estimator, X, declared):
    """The same encoding for prediction (``X`` unchanged unless a DataFrame)."""
    if not is_frame(X):
        return X
    attrs = declared if declared is not None else declared_attributes(estimator)
    attrs = None if attrs is None else list(attrs)
    return encode_frame(X, attrs) if _plain(attrs) else X
