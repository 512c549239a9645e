"""The kernels of the Bayesian network classifiers (no scikit-learn).

:class:`BayesNetKernel` and :class:`TANKernel` are the models of
:class:`~textnb.semi_naive.bayesnet.BayesNetClassifier` and :class:`~textnb.semi_naive.bayesnet.TAN`:
parameters and defaults (written once), counts, CPTs, structure learning, scoring and
model-file state. The estimators in :mod:`textnb.semi_naive.bayesnet` are their scikit-learn adapters, and
``textnb train --model tan/bn`` / ``textnb predict`` use the kernels directly.

Bayesian network classifiers on nominal attributes: a given DAG, and TAN.

Both models hold *counts*, not probabilities, as their fitted state: for every node
of the network (each attribute, and the class) one table of weighted counts over
(class, parent values, node value), built with :class:`textnb.core.stats.CountTable`
from a one-hot coding of the cells. Conditional probability tables (CPTs) follow
with additive smoothing, exactly as in naive Bayes (course notes of Han, Kamber &
Pei, ch. 9.1, ``../shared/papers/003_c3d215173c59c3a3.txt``; restated in
``../shared/design/algorithms.md`` §5):

    P(x_i = v | pa_i = u) = (N(v, u) + alpha) / (N(u) + alpha * k_i)

with ``k_i`` the number of values of node i (alpha = 1 is Laplace's correction;
Weka's ``BayesNet -E "SimpleEstimator -A 0.5"`` is the same formula with alpha = 0.5).
The class node is smoothed the same way, so with no parents its CPT is the class
prior ``(n_c + alpha) / (n + alpha * C)``.

A class is predicted from the Markov blanket of the class node:

    log P(c, x) = log P(c | pa_C) + Σ_{j : C ∈ pa_j} log P(x_j | pa_j) + const,

every other factor of the joint distribution being the same for every class.

Data convention (shared by the tabular models, see :mod:`textnb.io.tables`): ``X`` is a
float64 matrix whose cells hold value indices 0 .. k-1 and NaN for a missing value.
Numeric attributes must be discretised first (e.g. with
``textnb.naive_bayes.discretize.MDLDiscretizer``), or inside ``fit`` with ``numeric="mdl"`` when
``attributes`` declares them.

Structure of :class:`BayesNetClassifier`: ``parents={node: [parent, ...]}`` over
attribute names and the class name. An attribute listed gets exactly the listed
parents (name the class among them to keep the class arc); one not listed has the
class as its only parent; so ``parents=None`` is naive Bayes and TAN is
``{A_j: [class, A_parent(j)]}``. The same dict is the ``"parents"`` member of a JSON
structure file (:func:`read_structure`).

Missing values (``missing="ignore"``, the default)
    *Training*: an object is left out of the counts of every node whose value or
    parent values it misses (and only of those). *Prediction*: the factor of a node
    whose own value is missing is left out (it sums to 1 over the node's values);
    missing *parents* are summed out, i.e. the factor becomes
    ``P(x_j | known parents)``: when every attribute parent is missing it comes from
    ``marginal_counts_`` (the node's counts over *all* objects where the node is
    known: for TAN, the naive Bayes factor ``P(x_j | c)``), otherwise from the full
    table summed over the missing parents' axes. For naive Bayes this is exact;
    for TAN and general networks it is an approximation that does not propagate
    evidence through the missing node. A value index outside the
    values seen in training (or declared in ``attributes``) counts as missing.
``missing="mode"``
    Weka's BayesNet behaviour: missing values, in training and at prediction, are
    replaced by the attribute's most frequent training value
    (``weka.filters.unsupervised.attribute.ReplaceMissingValues``).

References
----------
N. Friedman, D. Geiger & M. Goldszmidt (1997), "Bayesian network classifiers",
Machine Learning 29: 131-163 (TAN: maximum spanning tree over I(A_i; A_j | C)).
J. Han, M. Kamber & J. Pei, *Data Mining: Concepts and Techniques*, §9.1 (belief
networks, the lung-cancer example). Z. Wang & G. I. Webb (2002), "A heuristic lazy
Bayesian rule algorithm" (TAN as the comparator of LBR / HLBR).
"""

import json
import os
import warnings

import numpy as np
from types import MappingProxyType

from textnb.naive_bayes.cut_points import apply_cut_points, mdl_cut_points, nominal_rows
from textnb.naive_bayes.discretized_kernel import bin_names
from textnb.naive_bayes.kernels import TableKernel, all_or_nothing
from textnb.naive_bayes.scoring import check_nominal_codes, check_sample_weight, fit_classes
from textnb.core.attributes import fitted_attributes
from textnb.core.errors import DataError, StructureError, counted, input_name
from textnb.core.labels import label_names
from textnb.core.stats import MAX_PAIR_CELLS, CountTable, issparse
from textnb.io.tables import check_plain_attributes
from textnb.core.model_schema import (CLASS_VALUES, FEATURE_NAMES, check_params, MAX_DIM, N_FEATURES, POSITIVE_SMOOTHING, Array, Attributes, Choice,
                                 Classes, Counts, DictOf, Int, ListOf, MayBeAbsent, OneOf, Optional,
                                 Reals, Str)
from textnb.core.wrapping import declared_attributes
from textnb.io.frames import frame_for_fit
from textnb.io.pictures import Lettering, picture
from textnb.io.tables import Attribute

__all__ = ["MAX_CPT_CELLS", "BayesNetKernel", "TANKernel", "read_structure", "conditional_mutual_information"]

#: Refuse a CPT with more cells than this (a node with many many-valued parents).
MAX_CPT_CELLS = 10_000_000


# ----------------------------------------------------------------------------------
# counting helpers (pure functions)


def _cells(X, columns, n_values):
    """``(rows, cells)``: the objects with every value of ``columns`` known (in row order)
    and the index of their joint value in ``prod(k)`` (C order)."""
    shape = tuple(int(n_values[c]) for c in columns)
    if not columns:
        return np.arange(X.shape[0]), np.zeros(X.shape[0], dtype=np.intp)
    V = X[:, list(columns)]
    known = ~np.isnan(V).any(axis=1)
    return np.flatnonzero(known), np.ravel_multi_index(tuple(V[known].astype(np.intp).T), shape)


def _node_counts(X, classes, columns, n_values):
    """Counts (n_classes, k_c1, ..., k_cm) of the joint value of ``columns`` per class;
    ``classes`` = ``(y_index, sample_weight or None, n_classes)``."""
    y_index, w, n_classes = classes
    shape = tuple(int(n_values[c]) for c in columns)
    table = CountTable(n_classes, int(np.prod(shape, dtype=np.int64)) if shape else 1)
    rows, cells = _cells(X, columns, n_values)
    table.add_cells(rows, cells, None, y_index, w)
    return table.feature_count.reshape((n_classes,) + shape)


def _marginal_counts(X, classes, n_values):
    """Per attribute, counts (n_classes, k) of its values: one CountTable."""
    y_index, w, n_classes = classes
    n_values = np.asarray(n_values, dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(n_values)])
    known = ~np.isnan(X)
    rows, cols = np.nonzero(known)  # (row-major: each column's cells in row order)
    cells = offsets[cols] + X[rows, cols].astype(np.int64)
    fc = CountTable(n_classes, int(offsets[-1])).add_cells(rows, cells, None, y_index, w).feature_count
    return [fc[:, offsets[i]:offsets[i + 1]].copy() for i in range(X.shape[1])]


def _class_rows(Y):
    """``(y_index, weights, n_classes)`` of a weighted class indicator (sparse or dense,
    (n_samples, n_classes), at most one non-zero per row)."""
    Y = np.asarray(Y.toarray() if issparse(Y) else Y, dtype=np.float64)
    y_index = np.argmax(Y != 0, axis=1)
    return y_index, Y[np.arange(Y.shape[0]), y_index], Y.shape[1]


def conditional_mutual_information(X, Y, n_values):
    """``I(A_i; A_j | C)`` for every pair of nominal attributes, in nats.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Value indices, NaN = missing.
    Y : sparse matrix or ndarray of shape (n_samples, n_classes)
        Weighted class indicator (:func:`textnb.core.stats.class_indicator`).
    n_values : array-like of int of shape (n_features,)

    Returns
    -------
    cmi : ndarray of shape (n_features, n_features)
        Symmetric, zero diagonal. Each pair is estimated from the empirical
        distribution of the objects on which both values are known (Friedman et al.
        1997, eq. for I_P(A_i; A_j | C)); so it is always >= 0.

    Notes
    -----
    All pair counts come from one :class:`~textnb.core.stats.CountTable` over the cells
    (value_i, value_j) of every pair (:meth:`~textnb.core.stats.CountTable.add_cells`: the
    floats of the sparse product ``Y.T @ M``, without scipy).
    """
    return _pair_information(X, _class_rows(Y), n_values)


def _pair_information(X, classes, n_values, names=None):
    """:func:`conditional_mutual_information` with the classes as ``(y_index, sample_weight
    or None, n_classes)``; DataError (naming the attribute of most values, ``names``) when
    its table of value pairs would have more than :data:`~textnb.core.stats.MAX_PAIR_CELLS`
    cells."""
    y_index, w, n_classes = classes
    d = X.shape[1]
    n_values = np.asarray(n_values, dtype=np.int64)
    pairs = [(i, j) for i in range(d) for j in range(i + 1, d)]
    cmi = np.zeros((d, d))
    if not pairs:
        return cmi
    total = float(n_values.sum(dtype=np.float64))
    cells = n_classes * (total * total - float((n_values.astype(np.float64) ** 2).sum())) / 2
    if cells > MAX_PAIR_CELLS:
        most = int(np.argmax(n_values))
        name = repr(str(names[most])) if names is not None else str(most)
        raise DataError(  # (of the training data: the command line names its file)
            f"TAN's table of attribute-value pairs would have {cells:.0f} cells (over {MAX_PAIR_CELLS}); "
            f"attribute {name} has {n_values[most]} values: declare a numeric column numeric and "
            "discretise it (attributes=..., numeric='mdl'), or use fewer attributes or values")
    sizes = np.array([n_values[i] * n_values[j] for i, j in pairs], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    n_cols = int(offsets[-1])
    known = ~np.isnan(X)
    Xi = np.where(known, X, 0).astype(np.int64)
    rows, cells = [], []
    for p, (i, j) in enumerate(pairs):
        r = np.flatnonzero(known[:, i] & known[:, j])
        rows.append(r)
        cells.append(offsets[p] + Xi[r, i] * n_values[j] + Xi[r, j])
    rows, cells = np.concatenate(rows), np.concatenate(cells)
    fc = CountTable(n_classes, n_cols).add_cells(rows, cells, None, y_index, w).feature_count  # (n_classes, n_cols)
    # every column is a cell (pair p, value a of A_i, value b of A_j): the marginals
    # N_c, N_ca, N_cb of its pair, gathered per column, all pairs at once
    pair_id = np.repeat(np.arange(len(pairs)), sizes)
    kj = np.repeat([n_values[j] for _, j in pairs], sizes)
    ki = np.repeat([n_values[i] for i, _ in pairs], sizes)
    local = np.arange(n_cols) - offsets[pair_id]
    a_id = np.repeat(np.concatenate([[0], np.cumsum(ki[offsets[:-1]])])[:-1], sizes) + local // kj
    b_id = np.repeat(np.concatenate([[0], np.cumsum(kj[offsets[:-1]])])[:-1], sizes) + local % kj

    def group_sum(ids):  # per column, the sum of its group's columns, added in column order (scipy's fc @ G)
        sums = np.zeros((ids.max() + 1, n_classes))
        np.add.at(sums, ids, fc.T)
        return sums.T[:, ids]

    Nc, Na, Nb = group_sum(pair_id), group_sum(a_id), group_sum(b_id)
    pos = fc > 0
    terms = np.zeros_like(fc)
    terms[pos] = fc[pos] * (np.log(fc[pos]) + np.log(Nc[pos]) - np.log(Na[pos]) - np.log(Nb[pos]))
    totals = np.bincount(pair_id, weights=fc.sum(axis=0), minlength=len(pairs))
    info = np.bincount(pair_id, weights=terms.sum(axis=0), minlength=len(pairs))
    with np.errstate(invalid="ignore", divide="ignore"):
        info = np.where(totals > 0, np.maximum(info / np.where(totals > 0, totals, 1), 0.0), 0.0)
    rows_i, cols_j = np.array(pairs).T
    cmi[rows_i, cols_j] = cmi[cols_j, rows_i] = info
    return cmi


def _log_cpt(counts, alpha, axis):
    """``log((N + alpha) / (sum over axis of N + alpha * k))``."""
    k = counts.shape[axis]
    return np.log(counts + alpha) - np.log(counts.sum(axis=axis, keepdims=True) + alpha * k)


# ----------------------------------------------------------------------------------
# structures


def _check_structure(parents, names, class_name):
    """Turn a ``{node: parents}`` dict into parent index lists; raise StructureError if bad.

    Returns ``(attr_parents, class_is_parent, class_parents)``: for each attribute
    the tuple of its attribute parents and whether the class is a parent, and the
    tuple of the class node's attribute parents.
    """
    known = {n: i for i, n in enumerate(names)}
    d = len(names)
    if class_name in known:
        raise StructureError(
            f"an attribute is named {class_name!r} like the class node; pass another class_name"
        )
    attr_parents = [()] * d
    class_is_parent = [True] * d
    class_parents = ()
    if parents is None:
        parents = {}
    if not isinstance(parents, dict):
        raise StructureError(f"parents must be a dict of node name -> parent names; got {type(parents).__name__}")
    for node, pa in parents.items():
        if node != class_name and node not in known:
            raise StructureError(f"structure names an unknown node {node!r}; known: {', '.join(names)} and the class {class_name!r}")
        if isinstance(pa, str):
            pa = (pa,)
        try:
            pa = tuple(pa)
        except TypeError:
            raise StructureError(f"parents of {node!r} must be a list of names; got {pa!r}") from None
        for p in pa:
            if p != class_name and p not in known:
                raise StructureError(f"parent {p!r} of {node!r} is not a known node; known: {', '.join(names)} "
                                     f"and the class {class_name!r}")
            if p == node:
                raise StructureError(f"node {node!r} cannot be its own parent")
        if len(set(pa)) != len(pa):
            raise StructureError(f"parents of {node!r} list a node twice: {list(pa)}")
        if node == class_name:
            class_parents = tuple(known[p] for p in pa)
        else:
            i = known[node]
            class_is_parent[i] = class_name in pa
            attr_parents[i] = tuple(known[p] for p in pa if p != class_name)
    # acyclic? (class node = index d)
    edges = {i: list(attr_parents[i]) + ([d] if class_is_parent[i] else []) for i in range(d)}
    edges[d] = list(class_parents)
    state = [0] * (d + 1)  # 0 new, 1 on stack, 2 done

    def label(i):
        return class_name if i == d else names[i]

    for start in range(d + 1):
        if state[start]:
            continue
        stack = [(start, iter(edges[start]))]
        path = [start]
        state[start] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[node] = 2
                stack.pop()
                path.pop()
            elif state[nxt] == 1:
                cyc = path[path.index(nxt):] + [nxt]
                raise StructureError(
                    "structure has a cycle: " + " <- ".join(label(i) for i in cyc) + " (a DAG is required)"
                )
            elif state[nxt] == 0:
                state[nxt] = 1
                path.append(nxt)
                stack.append((nxt, iter(edges[nxt])))
    return attr_parents, class_is_parent, class_parents


def read_structure(path):
    """Read a network structure file (JSON) for :class:`BayesNetClassifier`.

    The file holds one object::

        {"parents": {"Emphysema": ["LungCancer", "Smoker"],
                     "Dyspnea": ["LungCancer", "Emphysema"]},
         "class": "LungCancer"}

    (the class node must not get parents that are its own children: an attribute not
    listed is a child of the class). ``{}`` is naive Bayes.

    ``parents`` maps a node (an attribute name, or the class name) to the list of its
    parents; an attribute that is not listed has the class as its only parent. The
    optional ``class`` names the class node as it is written in ``parents`` (by
    default the data's class attribute name).

    Returns
    -------
    structure : dict
        ``{"parents": {...}, "class": name or None}``.

    Raises
    ------
    InputError
        One line naming the file: unreadable, not UTF-8; :class:`StructureError`: not JSON, a
        name that is not text (a lone surrogate, JSON's ``\\ud800`` escape without its pair),
        or not of this shape.
    """
    from textnb.io.corpus import read_small_text
    from textnb.io.jsonlines import json_not_text

    path = os.fspath(path)
    text = read_small_text(path, what="structure file")  # a regular file or a pipe (read once), size-capped
    path = input_name(path)  # (messages: ``-`` is stdin)
    try:
        doc = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise StructureError(f"{path}: not a JSON structure file ({exc})") from None
    refusal = json_not_text(doc) if isinstance(doc, dict) else None
    if refusal is not None:  # (as a JSON Lines row's: found by a trial, a class node named '\ud800' was written)
        raise StructureError(f"{path}: {refusal}")
    if isinstance(doc, dict) and not set(doc) - {"class"}:
        doc["parents"] = {}  # {}: every attribute a child of the class only (naive Bayes)
    if not isinstance(doc, dict) or not isinstance(doc.get("parents"), dict):
        raise StructureError(f'{path}: expected {{"parents": {{"node": ["parent", ...], ...}}}}')
    unknown = set(doc) - {"parents", "class"}
    if unknown:
        raise StructureError(f"{path}: unknown keys {sorted(unknown)}; allowed: parents, class")
    for node, pa in doc["parents"].items():
        if not isinstance(pa, list) or not all(isinstance(p, str) for p in pa):
            raise StructureError(f"{path}: parents of {node!r} must be a list of names")
    cls = doc.get("class")
    if cls is not None and not isinstance(cls, str):
        raise StructureError(f"{path}: 'class' must be a name")
    return {"parents": {k: list(v) for k, v in doc["parents"].items()}, "class": cls}


# ----------------------------------------------------------------------------------
# the estimators


class _BaseBayesNetKernel(TableKernel):
    """Shared fit / CPTs / Markov-blanket prediction; a subclass supplies the structure.

    Subclasses implement ``_learn_structure(X, classes, names, n_values)`` (``classes`` =
    ``(y_index, sample_weight or None, n_classes)``) returning
    ``(attr_parents, class_is_parent, class_parents)`` as :func:`_check_structure`.
    """

    _param_schema = {
        "alpha": POSITIVE_SMOOTHING, "m": Optional(POSITIVE_SMOOTHING), "missing": Choice("ignore", "mode"),
        "attributes": Optional(Attributes(length=None)), "numeric": Choice("error", "mdl"),
        "class_name": Optional(Str(1000)), "class_values": CLASS_VALUES,
    }
    _state_schema = {
        "frame_attributes_": MayBeAbsent(Attributes(length=None)),  # fitted on a DataFrame
        "classes_": Classes(),
        "n_features_in_": N_FEATURES,
        "attribute_names_": Array("U", ("n_features",), distinct=True),
        "n_values_": Array("iu", ("n_features",), lo=1, hi=MAX_DIM),
        "structure_": DictOf(Str(1000), ListOf(Str(1000), max_len=64), max_len=MAX_DIM),
        "counts_": ListOf(Counts(None), length="n_features+1"),
        "marginal_counts_": ListOf(Counts(None), length="n_features+1"),
        "cut_points_": Optional(ListOf(Optional(Reals((None,), increasing=True)), length="n_features")),
        "feature_names_in_": FEATURE_NAMES,
        "modes_": MayBeAbsent(Array("f", ("n_features",), lo=0.0, hi=MAX_DIM, finite="no-nan")),
        "cmi_": MayBeAbsent(Reals(("n_features", "n_features"))),
        "root_": MayBeAbsent(Optional(Int(0, MAX_DIM))),
    }

    @property
    def attributes_(self):
        """The attributes of the columns (fitted; :func:`~textnb.core.attributes.fitted_attributes`):
        those ``attributes`` or a DataFrame declared, the others nominal ones of value indices
        (``attribute_names_``, ``n_values_``). Derived from the fitted state, so every model
        file has them."""
        return fitted_attributes(declared_attributes(self), self.attribute_names_, self.n_values_)

    # -- input -------------------------------------------------------------------
    def _check_X(self, X):
        X = nominal_rows(self, X)
        if self.missing == "mode":
            X = self._fill_modes(X)
        return X

    def _attribute_info(self, X):
        d = X.shape[1]
        if declared_attributes(self) is not None:
            attrs = list(declared_attributes(self))
            if len(attrs) != d:
                raise ValueError(f"attributes describes {len(attrs)} columns but X has {d}")
            names, n_values = [], []
            for a in attrs:
                if isinstance(a, str):
                    names.append(a)
                    n_values.append(-1)
                    continue
                names.append(str(a.name))
                if getattr(a, "kind", "nominal") != "nominal":
                    n_values.append(len(self.cut_points_[len(names) - 1]) + 1)
                else:
                    n_values.append(len(a.values))
        elif hasattr(self, "feature_names_in_"):
            names, n_values = [str(n) for n in self.feature_names_in_], [-1] * d
        else:
            names, n_values = [f"x{i}" for i in range(d)], [-1] * d
        if len(set(names)) != len(names):
            raise ValueError("attribute names must be unique")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN column
            seen = np.nanmax(X, axis=0) + 1 if X.shape[0] else np.zeros(d)
        seen = np.where(np.isnan(seen), 1, seen).astype(np.int64)
        n_values = np.array(n_values, dtype=np.int64)
        declared = n_values >= 0
        over = declared & (seen > n_values)
        if over.any():
            i = int(np.flatnonzero(over)[0])
            raise ValueError(
                f"column {i} ({names[i]!r}) holds value index {seen[i] - 1} but declares "
                f"{n_values[i]} values"
            )
        n_values = np.where(declared, n_values, seen)
        return np.array(names, dtype=str), np.maximum(n_values, 1)

    def _numeric_cut_points(self, X, y_index, sample_weight):
        """MDL cut points of the numeric columns ``attributes`` declares (None if none)."""
        if declared_attributes(self) is None:
            return None
        attrs = list(declared_attributes(self))
        if len(attrs) != X.shape[1]:
            raise ValueError(f"attributes describes {len(attrs)} columns but X has {X.shape[1]}")
        numeric = [not isinstance(a, str) and getattr(a, "kind", "nominal") != "nominal" for a in attrs]
        if not any(numeric):
            return None
        if self.numeric == "error":
            a = attrs[numeric.index(True)]
            raise ValueError(
                f"attribute {a.name!r} is {a.kind}; {self.kind} takes nominal attributes: "
                "discretise it first (textnb.naive_bayes.discretize.MDLDiscretizer) or pass numeric='mdl'"
            )
        n_classes = len(self.classes_)
        return [
            mdl_cut_points(X[:, j], y_index, n_classes, sample_weight) if numeric[j] else None
            for j in range(X.shape[1])
        ]

    def _fill_modes(self, X):
        miss = np.isnan(X)
        if miss.any():
            X = np.where(miss, self.modes_[None, :], X)
        return X

    # -- fitting -------------------------------------------------------------------
    @all_or_nothing
    def fit(self, X, y, sample_weight=None):
        """Learn the structure (TAN) or check it (given DAG), then count the CPTs.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Nominal value indices; NaN = missing.
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        check_params(self)
        alpha = float(self.alpha)
        check_plain_attributes(self.attributes, self.kind)
        X = frame_for_fit(self, X, self.attributes, integers_nominal=True)
        X, y = self._validate_xy(X, y, reset=True)
        self.classes_, y_index = fit_classes(y, self.class_values)
        sample_weight = check_sample_weight(sample_weight, X.shape[0])  # (None stays None)
        self.cut_points_ = self._numeric_cut_points(X, y_index, sample_weight)
        if self.cut_points_ is not None:
            X = apply_cut_points(X, self.cut_points_)
        check_nominal_codes(X, self.kind)
        self.attribute_names_, self.n_values_ = self._attribute_info(X)
        if self.missing == "mode":
            self.modes_ = self._modes(X, sample_weight)
            X = self._fill_modes(X)
        classes = (y_index, sample_weight, len(self.classes_))
        names = [str(n) for n in self.attribute_names_]
        attr_parents, class_is_parent, class_parents = self._learn_structure(X, classes, names, self.n_values_)
        self._set_structure(attr_parents, class_is_parent, class_parents)
        counts = []
        for i in range(len(names)):
            self._check_size(names[i], attr_parents[i] + (i,))
            counts.append(_node_counts(X, classes, attr_parents[i] + (i,), self.n_values_))
        self._check_size(self._class_label(), class_parents)
        counts.append(_node_counts(X, classes, class_parents, self.n_values_))
        self.counts_ = counts
        # per node, the counts with every attribute parent summed out, over all the
        # objects where the node itself is known: used when all its parents are missing
        self.marginal_counts_ = _marginal_counts(X, classes, self.n_values_)
        self.marginal_counts_.append(np.bincount(y_index, weights=sample_weight, minlength=len(self.classes_))
                                     .astype(np.float64))
        self._update(alpha)
        return self

    def _modes(self, X, sample_weight):
        w = np.ones(X.shape[0]) if sample_weight is None else sample_weight
        # a column with no known value (or only weight-0 ones) gets its first value,
        # as Weka's ReplaceMissingValues (Utils.maxIndex of all-zero counts is 0):
        # never NaN, which no model file holds
        modes = np.zeros(X.shape[1])
        for i in range(X.shape[1]):
            col = X[:, i]
            known = ~np.isnan(col)
            if known.any():
                counts = np.bincount(col[known].astype(np.intp), weights=w[known])
                modes[i] = float(np.argmax(counts))
        return modes

    #: the error of a CPT too large: of the training data, whose values make it so (TAN's learnt
    #: tree; the command line names the file); a given structure's: :class:`StructureError`
    _size_error = DataError

    def _check_size(self, name, columns):
        cells = len(self.classes_) * int(np.prod([self.n_values_[c] for c in columns], dtype=np.float64))
        if cells > MAX_CPT_CELLS:
            raise self._size_error(
                f"the CPT of {name!r} would have {cells} cells (over {MAX_CPT_CELLS}); "
                "give it fewer or fewer-valued parents"
            )

    def _class_label(self):
        return self.class_name if self.class_name is not None else "class"

    def _set_structure(self, attr_parents, class_is_parent, class_parents):
        names = [str(n) for n in self.attribute_names_]
        cls = self._class_label()
        structure = {}
        for i, n in enumerate(names):
            pa = ((cls,) if class_is_parent[i] else ()) + tuple(names[p] for p in attr_parents[i])
            structure[n] = pa
        structure[cls] = tuple(names[p] for p in class_parents)
        self.structure_ = structure
        self._parents = [tuple(int(p) for p in pa) for pa in attr_parents]
        self._class_child = np.asarray(class_is_parent, dtype=bool)
        self._class_parents = tuple(int(p) for p in class_parents)

    def _structure_from_fitted(self):
        names = [str(n) for n in self.attribute_names_]
        index = {n: i for i, n in enumerate(names)}
        cls = self._class_label()
        attr_parents = [tuple(index[p] for p in self.structure_[n] if p != cls) for n in names]
        class_is_parent = [cls in self.structure_[n] for n in names]
        class_parents = tuple(index[p] for p in self.structure_[cls])
        return attr_parents, class_is_parent, class_parents

    def _update(self, alpha=None):
        """Counts -> log CPTs (all parents known)."""
        if alpha is None:
            check_params(self)
            alpha = float(self.alpha)
        self._alpha = alpha
        self._log_cpts = [self._node_log_cpt(i, self._node_table(i, N)) for i, N in enumerate(self.counts_)]

    def _node_table(self, node, N):
        """``N`` summed over the class axis when the class is not a parent of ``node``."""
        if node < len(self._parents) and not self._class_child[node]:
            return N.sum(axis=0, keepdims=True)
        return N

    def _node_log_cpt(self, node, N):
        """Log CPT of ``node`` from counts ``N`` of shape (C or 1, parents..., [k]).

        Additive smoothing; with ``m`` set and at least one attribute parent left,
        the m-estimate towards the node's distribution given its class parent only.
        """
        is_class = node == len(self._parents)
        axis = 0 if is_class else -1
        has_attr_parents = N.ndim > (1 if is_class else 2)
        if self.m is None or not has_attr_parents:
            return _log_cpt(N, self._alpha, axis=axis)
        M = self._node_table(node, self.marginal_counts_[node])
        prior = np.exp(_log_cpt(M, self._alpha, axis=axis))
        if is_class:
            prior = prior.reshape((-1,) + (1,) * (N.ndim - 1))
        else:
            prior = prior.reshape((prior.shape[0],) + (1,) * (N.ndim - 2) + (prior.shape[-1],))
        m = float(self.m)
        return np.log(N + m * prior) - np.log(N.sum(axis=axis, keepdims=True) + m)

    # -- prediction ------------------------------------------------------------------
    def _factor(self, node, X, jll):
        """Add node's log CPT entries to ``jll`` (in place), summing out missing parents."""
        is_class = node == len(self._parents)
        parents = self._class_parents if is_class else self._parents[node]
        if is_class:
            rows = np.arange(X.shape[0])
        else:
            rows = np.flatnonzero(~np.isnan(X[:, node]))
        if rows.size == 0:
            return
        P = X[np.ix_(rows, parents)] if parents else np.zeros((rows.size, 0))
        known = ~np.isnan(P)
        patterns, inverse = np.unique(known, axis=0, return_inverse=True)
        inverse = np.asarray(inverse).ravel()
        for p, pattern in enumerate(patterns):
            sel = rows[inverse == p]
            if pattern.all():
                L = self._log_cpts[node]
            else:
                if not pattern.any():
                    N = self.marginal_counts_[node]
                else:
                    drop = tuple(1 + np.flatnonzero(~pattern))
                    N = self.counts_[node].sum(axis=drop)
                L = self._node_log_cpt(node, self._node_table(node, N))
            cols = [parents[k] for k in np.flatnonzero(pattern)]
            if not is_class:
                cols.append(node)
            idx = tuple(X[np.ix_(sel, cols)].astype(np.intp).T)
            # L has shape (C or 1, k_known_parents..., [k_node]); take the cells
            flat = L.reshape(L.shape[0], -1)
            cell = np.ravel_multi_index(idx, L.shape[1:]) if cols else np.zeros(sel.size, dtype=np.intp)
            jll[sel] += flat[:, cell].T

    def _joint_log_likelihood(self, X):
        jll = np.zeros((X.shape[0], len(self.classes_)))
        self._factor(len(self._parents), X, jll)
        for j in np.flatnonzero(self._class_child):
            self._factor(int(j), X, jll)
        return jll

    # -- inspection -------------------------------------------------------------------
    def markov_blanket(self):
        """Names of the nodes in the Markov blanket of the class (parents, children,
        the children's other parents)."""
        self._check_fitted()
        names = [str(n) for n in self.attribute_names_]
        mb = set(self._class_parents)
        for j in np.flatnonzero(self._class_child):
            mb.add(int(j))
            mb.update(self._parents[j])
        return [names[i] for i in sorted(mb)]

    def cpt(self, node):
        """The smoothed conditional probability table of ``node`` (name or index).

        Returns
        -------
        probs : ndarray
            ``P(node | parents)``, one axis per parent in the order of
            ``structure_[node]``, then the node's own axis (the class's values follow
            ``classes_``).
        axes : tuple of str
            The node names of the axes.
        """
        self._check_fitted()
        names = [str(n) for n in self.attribute_names_]
        cls = self._class_label()
        if isinstance(node, (int, np.integer)):
            node = names[int(node)]
        if node == cls:
            L = self._log_cpts[-1]  # (C, parents...)
            probs = np.moveaxis(np.exp(L), 0, -1)
            return probs, tuple(self.structure_[cls]) + (cls,)
        if node not in names:
            raise ValueError(f"no node named {node!r}")
        i = names.index(node)
        L = np.exp(self._log_cpts[i])
        if not self._class_child[i]:
            L = L[0]
        return L, tuple(self.structure_[node]) + (node,)

    def _class_prior(self):
        """``P(class)`` as the model holds it: the class node's table when it has no parents
        (TAN's, a network's by default); else its distribution when its parents are
        unknown, the one prediction uses then (the class's marginal counts, smoothed as
        the model smooths them)."""
        cls = len(self._parents)
        return np.exp(self._node_log_cpt(cls, self.marginal_counts_[cls]) if self._class_parents
                      else self._log_cpts[cls])

    def describe(self):
        """The fitted model as plain data (JSON-serialisable), for ``textnb inspect``.

        The keys of every table model's description: ``model``, ``classes``,
        ``class_count`` (the class node's weighted count), ``class_prior``
        (the class node's table, or with parents its distribution when they are
        unknown) and ``attributes``, one dict per attribute with ``name``,
        ``kind`` (``"numeric"`` for an attribute discretised in ``fit``), ``model``
        (``"nominal"`` or ``"mdl-discretised, k intervals"``), ``values`` (an interval's
        name for a discretised one, with its ``cut_points``) and ``parents`` (the node's,
        in the order of ``structure_``); and ``structure``, each node's parents.
        """
        self._check_fitted()
        cuts = self.cut_points_ or [None] * len(self.attribute_names_)
        attributes = []
        for a, c in zip(self.attributes_, cuts):
            d = {"name": str(a.name), "kind": "nominal" if c is None else "numeric"}
            if c is None:
                d["model"], d["values"] = "nominal", [str(v) for v in a.values]
            else:
                d["model"] = f"mdl-discretised, {counted(len(c) + 1, 'interval')}"
                d["values"], d["cut_points"] = bin_names(c), [float(x) for x in c]
            d["parents"] = list(self.structure_[str(a.name)])
            attributes.append(d)
        return {
            "model": self.kind,
            "classes": label_names(self),
            "class_count": [float(n) for n in self.marginal_counts_[-1]],
            "class_prior": [float(p) for p in self._class_prior()],
            "structure": {k: list(v) for k, v in self.structure_.items()},
            "attributes": attributes,
        }

    def structure_text(self, name=str):
        """The network as text: one line per node, ``node <- parent, parent``. ``name``:
        how a node's name is written (``textnb inspect`` escapes a TAB or newline in it, as in
        a field of its other outputs)."""
        self._check_fitted()
        cls = self._class_label()
        kind = self.kind
        lines = [f"{kind}: {len(self.attribute_names_)} attributes, class node {cls!r}"]
        width = max(len(name(n)) for n in self.structure_)
        for node, pa in self.structure_.items():
            k = len(self.classes_) if node == cls else int(self.n_values_[list(self.attribute_names_).index(node)])
            arrow = ", ".join(map(name, pa)) if pa else "(no parents)"
            lines.append(f"  {name(node):<{width}} ({k}) <- {arrow}")
        return "\n".join(lines)

    @picture
    def plot_structure(self, path, *, title=None):
        """Draw the network as a PNG (needs matplotlib: ``pip install textnb[plot]``;
        :class:`~textnb.core.errors.TextnbError` without it).

        Nodes are laid out in layers by depth from the roots of the DAG; the class
        node is drawn in a different colour; a name no installed font draws is drawn as its
        number (:class:`~textnb.io.pictures.Lettering`). The file is written atomically.
        """
        self._check_fitted()
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        from textnb.core.model_io import write_picture

        cls = self._class_label()
        nodes = list(self.structure_)
        parents = {n: list(self.structure_[n]) for n in nodes}
        letters = Lettering(path)  # (before the figure: the fonts it adds are the figure's)
        drawn = dict(zip(nodes, letters.names(nodes, "attribute name",
                                              "a node by its line in inspect's parent lists (from 0)")))
        depth = {}

        def get_depth(n):
            if n not in depth:
                depth[n] = 1 + max((get_depth(p) for p in parents[n]), default=-1)
            return depth[n]

        for n in nodes:
            get_depth(n)
        layers = {}
        for n in nodes:
            layers.setdefault(depth[n], []).append(n)
        n_layers = max(layers) + 1
        widest = max(len(v) for v in layers.values())
        pos = {}
        for lvl, members in layers.items():
            for k, n in enumerate(members):
                pos[n] = ((k + 1) / (len(members) + 1), 1 - (lvl + 0.5) / n_layers)
        fig = Figure(figsize=(max(6, 1.6 * widest), max(3, 1.4 * n_layers)))
        FigureCanvasAgg(fig)
        ax = fig.add_subplot(1, 1, 1)
        ax.set_axis_off()
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        for n in nodes:
            for p in parents[n]:
                ax.annotate(
                    "", xy=pos[n], xytext=pos[p],
                    arrowprops=dict(arrowstyle="-|>", color="0.5" if p == cls else "tab:blue",
                                    shrinkA=14, shrinkB=14, lw=0.8 if p == cls else 1.6,
                                    connectionstyle="arc3,rad=0.15" if p == cls else "arc3"),
                )
        labels = {n: ax.text(*pos[n], drawn[n], ha="center", va="center", fontsize=9,
                             bbox=dict(boxstyle="round", fc="gold" if n == cls else "white", ec="black"))
                  for n in nodes}
        ax.set_title(title or f"{self.kind} ({len(nodes) - 1} attributes)")
        # as wide as the widest layer's names side by side (a layer's nodes are evenly
        # spaced): 1.6 inches a node overlapped names longer than about 18 characters
        renderer = fig.canvas.get_renderer()
        inches = {n: t.get_window_extent(renderer).width / fig.dpi + 0.35 for n, t in labels.items()}
        wide = max((len(members) + 1) * max(inches[n] for n in members)
                   for members in layers.values()) / ax.get_position().width  # (the axes' share of it)
        if wide > fig.get_figwidth():
            fig.set_size_inches(wide, fig.get_figheight())
        write_picture(fig, path, dpi=100)
        letters.warn()

    # -- model files ---------------------------------------------------------------
    def _get_state(self):
        state = {
            "classes_": self.classes_,
            "attribute_names_": self.attribute_names_,
            "n_values_": self.n_values_,
            "structure_": self.structure_,
            "counts_": list(self.counts_),
            "marginal_counts_": list(self.marginal_counts_),
            "n_features_in_": self.n_features_in_,
            "cut_points_": self.cut_points_,
        }
        for extra in ("feature_names_in_", "modes_", "cmi_", "root_", "frame_attributes_"):
            if hasattr(self, extra):
                state[extra] = getattr(self, extra)
        return state

    def _set_state(self, state):
        for k, v in state.items():
            setattr(self, k, v)
        self.counts_ = [np.array(c, dtype=np.float64) for c in self.counts_]
        self.marginal_counts_ = [np.array(c, dtype=np.float64) for c in self.marginal_counts_]
        self.n_values_ = np.asarray(self.n_values_, dtype=np.int64)
        self.structure_ = {k: tuple(v) for k, v in self.structure_.items()}
        if "frame_attributes_" in state:
            self.frame_attributes_ = [
                a if isinstance(a, Attribute) else Attribute(a["name"], a["kind"], list(a["values"]))
                for a in self.frame_attributes_]
        self._set_structure(*self._structure_from_fitted())
        self._check_count_shapes()
        self._update()

    def _check_count_shapes(self):
        """A loaded model's count tables have the shapes its structure implies (as fit makes them)."""
        names = set(str(n) for n in self.attribute_names_) | {self._class_label()}
        if set(self.structure_) != names:
            raise ValueError("the structure does not name exactly the attributes and the class")
        C, k = len(self.classes_), self.n_values_
        expected = [(C,) + tuple(int(k[p]) for p in pa) + (int(k[i]),) for i, pa in enumerate(self._parents)]
        expected.append((C,) + tuple(int(k[p]) for p in self._class_parents))
        marginal = [(C, int(n)) for n in k] + [(C,)]
        for name, tables, shapes in (("counts_", self.counts_, expected),
                                     ("marginal_counts_", self.marginal_counts_, marginal)):
            got = [t.shape for t in tables]
            if got != shapes:
                raise ValueError(f"{name} shapes {got} do not fit the structure ({shapes})")


class BayesNetKernel(_BaseBayesNetKernel):
    """The model of :class:`~textnb.semi_naive.bayesnet.BayesNetClassifier` without scikit-learn (its
    documentation is the estimator's)."""

    kind = "BayesNetClassifier"
    #: capability (:mod:`textnb.core.wrapping`): why there is no ``merge``
    merge_refusal = ("textnb has no merge for Bayesian networks: with the same structure their counts would add up, "
                     "but none is written yet; train on the whole data")
    defaults = MappingProxyType({"parents": None, "alpha": 1.0, "m": None, "missing": "ignore", "attributes": None,
                                 "numeric": "error", "class_name": None, "class_values": None})

    _param_schema = {**_BaseBayesNetKernel._param_schema,
                     "parents": Optional(DictOf(Str(1000), ListOf(Str(1000), max_len=64)))}
    _size_error = StructureError

    def _learn_structure(self, X, classes, names, n_values):
        return _check_structure(self.parents, names, self._class_label())


class TANKernel(_BaseBayesNetKernel):
    """The model of :class:`~textnb.semi_naive.bayesnet.TAN` without scikit-learn (its
    documentation is the estimator's)."""

    kind = "TAN"
    #: capability (:mod:`textnb.core.wrapping`): why there is no ``merge``
    merge_refusal = "its tree of attribute dependencies is chosen by conditional mutual information over all the data"
    defaults = MappingProxyType({"alpha": 1.0, "m": None, "root": None, "missing": "ignore", "attributes": None,
                                 "numeric": "error", "class_name": None, "class_values": None})

    _param_schema = {**_BaseBayesNetKernel._param_schema, "root": Optional(OneOf(Int(0, MAX_DIM), Str(1000)))}

    def _learn_structure(self, X, classes, names, n_values):
        d = len(names)
        root = self.root
        if root is None:
            root = 0
        elif isinstance(root, str):
            if root not in names:
                raise ValueError(f"root {root!r} is not an attribute; known: {', '.join(names)}")
            root = names.index(root)
        elif not (0 <= int(root) < d):
            raise ValueError(f"root must be an attribute index in [0, {d}); got {root!r}")
        root = int(root)
        self.root_ = root
        self.cmi_ = _pair_information(X, classes, n_values, names)
        pred = self._tree(self.cmi_, root)
        attr_parents = [(int(pred[i]),) if pred[i] >= 0 else () for i in range(d)]
        return attr_parents, [True] * d, ()

    @staticmethod
    def _tree(cmi, root):
        """Predecessor of each node in the maximum spanning tree directed from root (-1:
        the root).

        Kruskal's algorithm on the pairs ``i < j`` with weights ``-(I + 1)`` (every spanning
        tree has d-1 edges, so the shift keeps the maximum tree and keeps zero-information
        edges in the graph), ties in row-major order (a stable sort): the tree scipy's
        ``minimum_spanning_tree`` of the upper triangle gives (its stable sort of the CSR
        entries), without scipy.
        """
        d = cmi.shape[0]
        pred = np.full(d, -1)
        if d == 1:
            return pred
        first, second = np.triu_indices(d, k=1)
        weights = -(cmi[first, second] + 1.0)
        head = list(range(d))  # union-find: the head of each node's subtree

        def find(v):
            while head[v] != v:
                head[v] = head[head[v]]
                v = head[v]
            return v

        neighbours = [[] for _ in range(d)]
        kept = 0
        for e in np.argsort(weights, kind="stable").tolist():
            a, b = int(first[e]), int(second[e])
            ra, rb = find(a), find(b)
            if ra != rb:
                head[rb] = ra
                neighbours[a].append(b)
                neighbours[b].append(a)
                kept += 1
                if kept == d - 1:
                    break
        seen, queue = {root}, [root]  # the tree directed away from the root
        for v in queue:
            for u in neighbours[v]:
                if u not in seen:
                    seen.add(u)
                    pred[u] = v
                    queue.append(u)
        return pred

    def structure_text(self, name=str):
        """The tree (indented, with each arc's ``I(A_i; A_j | C)``) and the parent lists;
        ``name`` as the base class's."""
        self._check_fitted()
        names = [name(str(n)) for n in self.attribute_names_]
        children = {i: [] for i in range(len(names))}
        for i, pa in enumerate(self._parents):
            for p in pa:
                children[p].append(i)
        lines = [f"TAN tree (class {self._class_label()!r} is a parent of every attribute; "
                 "I(A_i; A_j | C) in nats):"]

        def walk(i, prefix, last, top):
            if top:
                lines.append(f"  {names[i]}")
            else:
                p = self._parents[i][0]
                lines.append(f"  {prefix}{'└── ' if last else '├── '}{names[i]}  [{self.cmi_[p, i]:.4f}]")
            kids = children[i]
            for k, c in enumerate(kids):
                ext = "" if top else ("    " if last else "│   ")
                walk(c, prefix + ext, k == len(kids) - 1, False)

        for r in (i for i, pa in enumerate(self._parents) if not pa):
            walk(r, "", True, True)
        return "\n".join(lines) + "\n" + super().structure_text(name)
