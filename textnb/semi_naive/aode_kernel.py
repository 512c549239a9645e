"""The kernel of :class:`~textnb.semi_naive.aode.AODE` (numpy only): averaged one-dependence estimators (Webb, Boughton & Wang 2005).

:class:`AODEKernel` is the model -- parameters and defaults (written once), the pair
count table, the estimates, scoring and model-file state -- without scikit-learn;
``textnb train --model aode`` and ``textnb predict`` use it directly (no scipy: the
log-sum-exp over the super-parents is :func:`textnb.core.logspace.logsumexp_max_apart`, scipy's
floats). :class:`~textnb.semi_naive.aode.AODE` is the scikit-learn
adapter over it.


AODE averages, over every attribute value that may serve as a *super-parent*, the
one-dependence model in which that attribute is a parent of every other attribute:

    P(c, x) ≈ (1 / |S(x)|) Σ_{p ∈ S(x)} P(c, x_p) Π_{a ≠ p} P(x_a | c, x_p),

with ``S(x)`` the known attributes of ``x`` whose value occurs at least
``frequency_limit`` times in the training data (Weka's ``-F``, default 1). When no
attribute qualifies the class falls back to naive Bayes. Every estimate is a ratio of
weighted counts with Laplace's correction, exactly as Weka 3.6.14's
``weka.classifiers.bayes.AODE`` computes it (read from its class file):

    P(c, x_p)         = (N(c, x_p) + 1) / (N - N(p missing) + C k_p)
    P(x_a | c, x_p)   = (N(c, x_p, x_a) + 1) / (N(c, x_p) - N(c, x_p, a missing) + k_a)
    naive Bayes       : (N_c + 1) / (N + C) · Π_a (N(c, x_a) + 1) / (N_c(a known) + k_a)

and with ``m`` set, Weka's ``-M -W m`` m-estimates: ``(N(c, x_p) + m / (C k_p)) /
(N - N(p missing) + m)``, ``(N(c, x_p, x_a) + m / k_a) / (N(c, x_p) - N(c, x_p, a
missing) + m)``, ``(N_c + m / C) / (N + m)`` and ``(N(c, x_a) + m / k_a) / (N_c(a known)
+ m)``. ``N`` sums the weights of the training objects, ``k_a`` is the number of values
of attribute ``a`` and ``C`` the number of classes.

Statistics: the fitted state is one table of sums, ``pair_count_[c, s, t]``, the
weighted count of the objects of class c that have *slot* s and slot t, where every
attribute has one slot per value plus one for "missing" (Weka's ``m_CondiCounts``).
Its diagonal holds ``N(c, x_a)`` and the missing counts, so every estimate above is
read off it and ``class_count_``. It is built with :class:`textnb.core.stats.CountTable`
on the one-hot coding of the (slot, slot) cells of each object, so ``fit``, chunked
``partial_fit``, :meth:`merge` of models trained on shards and a model file all hold
the same sums, and a weight w counts as w repeated rows.

Data convention (as :class:`textnb.semi_naive.bayesnet.TAN`): ``X`` holds nominal value indices
0 .. k-1 and NaN for a missing value; numeric attributes that ``attributes`` declares
are discretised inside ``fit`` with Fayyad & Irani's MDL method (``numeric="mdl"``,
the default; Weka's supervised ``Discretize``), the cut points kept in
``cut_points_``. At prediction a missing value, or a value index beyond those seen or
declared, is left out (it is neither a super-parent nor a child), as in Weka.

References
----------
G. I. Webb, J. R. Boughton & Z. Wang (2005), "Not so naive Bayes: aggregating
one-dependence estimators", Machine Learning 58: 5-24.
"""

from numbers import Integral

from types import MappingProxyType

import numpy as np

from textnb.core.attributes import fitted_attributes
from textnb.core.errors import DataError
from textnb.core.labels import label_names
from textnb.core.logspace import logsumexp_max_apart
from textnb.naive_bayes.cut_points import apply_cut_points, check_same_cut_points, mdl_cut_points, nominal_rows
from textnb.naive_bayes.kernels import TableKernel, all_or_nothing
from textnb.naive_bayes.tabular_kernel import merged_attributes
from textnb.naive_bayes.scoring import (check_nominal_codes, check_partial_fit_labels, check_sample_weight,
                                        class_positions, fit_classes, partial_fit_classes)
from textnb.core.model_schema import (CLASS_VALUES, FEATURE_NAMES, check_params, MAX_COUNT, MAX_DIM, N_FEATURES, POSITIVE_SMOOTHING, Array, Attributes,
                                      Choice, Classes, Counts, Float, ListOf, MayBeAbsent, Optional, Reals)
from textnb.core.stats import MAX_PAIR_CELLS, CountTable, merge_aligned
from textnb.core.wrapping import checked_merge, declared_attributes
from textnb.io.frames import frame_for_batch, frame_for_fit
from textnb.io.tables import Attribute, check_plain_attributes

__all__ = ["MAX_PAIR_CELLS", "AODEKernel"]

#: Objects per block when counting pairs or predicting (bounds the temporary memory).
_BLOCK_CELLS = 1 << 22


class AODEKernel(TableKernel):
    """The model of :class:`~textnb.semi_naive.aode.AODE` without scikit-learn: the same
    parameters (``AODEKernel.defaults``), fitted attributes, ``fit``, ``partial_fit``,
    ``merge``, ``predict*``, ``describe`` and model file (:meth:`save`, :meth:`from_node`);
    numpy input checks. The documentation is the estimator's.

    Examples
    --------
    >>> from textnb.semi_naive.aode_kernel import AODEKernel
    >>> aode = AODEKernel().fit([[0, 0], [0, 1], [1, 1], [1, 1]], ["a", "a", "b", "b"])
    >>> aode.predict([[1, 1]])
    array(['b'], dtype='<U1')
    """

    kind = "AODE"
    defaults = MappingProxyType({"frequency_limit": 1, "m": None, "attributes": None, "numeric": "mdl",
                                 "class_values": None})

    _param_schema = {
        "frequency_limit": Float(0.0, MAX_COUNT), "m": Optional(POSITIVE_SMOOTHING),
        "attributes": Optional(Attributes(length=None)), "numeric": Choice("mdl", "error"),
        "class_values": CLASS_VALUES,
    }
    _state_schema = {  # the pair table's shape follows n_values_; _set_state checks it
        "classes_": Classes(),
        "class_count_": Counts(("n_classes",)),
        "pair_count_": Counts(None),
        "attribute_names_": Array("U", ("n_features",), distinct=True),
        "n_values_": Array("iu", ("n_features",), lo=1, hi=MAX_DIM),
        "n_features_in_": N_FEATURES,
        "discretized_": Array("b", (None,)),  # empty when no attribute is numeric
        "cut_points_": ListOf(Reals((None,), increasing=True)),
        "feature_names_in_": FEATURE_NAMES,
        "frame_attributes_": MayBeAbsent(Attributes(length=None)),  # fitted on a DataFrame
    }

    @property
    def attributes_(self):
        """The attributes of the columns (fitted; :func:`~textnb.core.attributes.fitted_attributes`):
        those ``attributes`` or a DataFrame declared (after ``partial_fit`` and :meth:`merge`,
        with the values they added), the others nominal ones of value indices
        (``attribute_names_``, ``n_values_``). Derived from the fitted state, so every model
        file has them."""
        return fitted_attributes(declared_attributes(self), self.attribute_names_, self.n_values_)

    # -- parameters and input ------------------------------------------------------

    def _declared(self, d):
        """Per column: (name, "nominal"/"numeric", number of declared values or -1)."""
        if declared_attributes(self) is None:
            names = getattr(self, "feature_names_in_", None)
            names = [str(n) for n in names] if names is not None else [f"x{j}" for j in range(d)]
            return [(n, "nominal", -1) for n in names]
        attrs = list(declared_attributes(self))
        check_plain_attributes([a for a in attrs if not isinstance(a, str)], "AODE")
        if len(attrs) != d:
            raise ValueError(f"attributes describes {len(attrs)} columns but X has {d}")
        out = []
        for a in attrs:
            if isinstance(a, str):
                out.append((a, "nominal", -1))
                continue
            kind = getattr(a, "kind", "nominal")
            if kind not in ("nominal", "numeric"):
                raise ValueError(f"attribute {a.name!r} is {kind}; AODE takes nominal and numeric attributes")
            out.append((str(a.name), kind, len(a.values) if kind == "nominal" else -1))
        if len({n for n, _, _ in out}) != len(out):
            raise ValueError("attribute names must be unique")
        return out

    def _init_state(self, X, y_index, w):
        """Attribute names, cut points, numbers of values and the empty count table."""
        declared = self._declared(X.shape[1])
        numeric = [kind == "numeric" for _, kind, _ in declared]
        self.cut_points_ = None
        if any(numeric):
            if self.numeric == "error":
                name = declared[numeric.index(True)][0]
                raise ValueError(
                    f"attribute {name!r} is numeric; pass numeric='mdl' or discretise it first "
                    "(textnb.naive_bayes.discretize.MDLDiscretizer)"
                )
            self.cut_points_ = [
                mdl_cut_points(X[:, j], y_index, len(self.classes_), w) if numeric[j] else None
                for j in range(X.shape[1])
            ]
            X = apply_cut_points(X, self.cut_points_)
        check_nominal_codes(X, self.kind)
        seen = np.zeros(X.shape[1], dtype=np.int64)
        if X.shape[0]:
            known = ~np.isnan(X)
            seen = np.where(known.any(axis=0), np.nanmax(np.where(known, X, -1), axis=0) + 1, 0).astype(np.int64)
        n_values = []
        for j, (name, kind, k) in enumerate(declared):
            if kind == "numeric":
                k = len(self.cut_points_[j]) + 1
            elif k < 0:
                k = int(seen[j])
            elif seen[j] > k:
                raise ValueError(f"column {j} ({name!r}) holds value index {seen[j] - 1} but declares {k} values")
            n_values.append(max(int(k), 1))
        self.attribute_names_ = np.array([n for n, _, _ in declared], dtype=str)
        self.n_values_ = np.array(n_values, dtype=np.int64)
        self.slot_offsets_ = np.concatenate([[0], np.cumsum(self.n_values_ + 1)]).astype(np.int64)
        n_slots = int(self.slot_offsets_[-1])
        cells = len(self.classes_) * n_slots * n_slots
        if cells > MAX_PAIR_CELLS:
            raise DataError(  # (of the training data: the command line names its file)
                f"AODE's pair table would have {cells} cells (over {MAX_PAIR_CELLS}): "
                f"{len(self.classes_)} classes x {n_slots}^2 attribute-value slots; use fewer attributes or values"
            )
        self._table = CountTable(len(self.classes_), n_slots * n_slots)

    def _widen(self, X):
        """Give attributes whose values no declaration fixes the values of the batch ``X``:
        a column of value indices grows to its largest + 1, a DataFrame's attribute to its
        ``frame_attributes_`` (:func:`~textnb.io.frames.frame_for_batch` added them). The
        pair table's rows and columns move to the new slots, the new ones zero
        (:meth:`~textnb.core.stats.CountTable.aligned`)."""
        declared = self._declared(X.shape[1])
        old = self.n_values_
        new = old.astype(np.float64)
        for j, (_, kind, k) in enumerate(declared):
            if kind == "nominal" and k >= 0:
                new[j] = max(new[j], k)
        free = [j for j, (_, kind, k) in enumerate(declared) if kind == "nominal" and k < 0]
        if free and X.shape[0]:
            block = X[:, free]
            check_nominal_codes(block, self.kind)
            known = ~np.isnan(block)
            seen = np.where(known.any(axis=0), np.nanmax(np.where(known, block, -1), axis=0) + 1, 0)
            new[free] = np.maximum(new[free], seen)
        if np.array_equal(new, old):
            return
        n_slots = float((new + 1).sum())
        if len(self.classes_) * n_slots * n_slots > MAX_PAIR_CELLS:
            raise DataError(
                f"AODE's pair table would have {len(self.classes_) * n_slots * n_slots:.0f} cells (over "
                f"{MAX_PAIR_CELLS}) with this batch's new values; use fewer attributes or values")
        new = new.astype(np.int64)
        offsets = np.concatenate([[0], np.cumsum(new + 1)]).astype(np.int64)
        slot = np.concatenate([offsets[j] + np.append(np.arange(k), new[j]) for j, k in enumerate(old)]
                              + [np.empty(0, np.int64)])  # old slot -> new slot (a missing slot stays last)
        n = int(offsets[-1])
        self._table = self._table.aligned(self.classes_, self.classes_, columns=(slot[:, None] * n + slot).ravel(),
                                          n_features=n * n)
        self.n_values_, self.slot_offsets_ = new, offsets

    def _slots(self, X):
        """Slot of every cell: its value's, or its attribute's missing slot (int array)."""
        off = self.slot_offsets_
        missing_slot = off[1:] - 1
        known = ~np.isnan(X)
        return np.where(known, off[:-1] + np.where(known, X, 0), missing_slot).astype(np.intp)

    def _prepare(self, X):
        """Cut points applied and values checked (training input)."""
        if self.cut_points_ is not None:
            X = apply_cut_points(X, self.cut_points_)
        check_nominal_codes(X, self.kind)
        over = np.nan_to_num(X, nan=0.0) >= self.n_values_
        if over.any():
            i, j = (int(v[0]) for v in np.nonzero(over))
            raise ValueError(
                f"column {j} ({str(self.attribute_names_[j])!r}) holds value index {int(X[i, j])} but its "
                f"attribute declares {self.n_values_[j]} values"
            )
        return X

    def _count(self, X, y_index, w):
        """Add the (slot, slot) cells of every object to the count table, in blocks."""
        n, d = X.shape
        if n == 0 or d == 0:
            self._table.add_codes(np.zeros((n, 0), dtype=np.intp), y_index, w)
            return
        n_slots = int(self.slot_offsets_[-1])
        S = self._slots(X)
        block = max(1, _BLOCK_CELLS // (d * d))
        for start in range(0, n, block):
            s = S[start:start + block]
            rows = s.shape[0]
            cells = (s[:, :, None] * n_slots + s[:, None, :]).reshape(rows, d * d)
            wb = None if w is None else w[start:start + block]
            self._table.add_codes(cells, y_index[start:start + block], wb)

    # -- fitting ---------------------------------------------------------------------
    @all_or_nothing
    def fit(self, X, y, sample_weight=None):
        """Count the (class, value, value) sums of ``X`` and ``y``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Nominal value indices (NaN = missing); numeric columns declared in
            ``attributes`` are discretised.
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            A weight w counts as w copies of the object.

        Returns
        -------
        self
        """
        check_params(self)
        X = frame_for_fit(self, X, self.attributes, integers_nominal=True)  # a DataFrame: textnb.io.frames
        X, y = self._validate_xy(X, y, reset=True)
        self.classes_, y_index = fit_classes(y, self.class_values)
        w = check_sample_weight(sample_weight, X.shape[0])
        self._init_state(X, y_index, w)
        self._count(self._prepare(X), y_index, w)
        self._publish()
        return self

    @all_or_nothing
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add a batch to the counts. ``classes`` is required on the first call.

        The first call fixes the cut points of numeric attributes. A later batch with a
        new value of a column whose values ``attributes`` does not declare (a value index
        past the largest seen, or a DataFrame's new value) widens that attribute, as
        ``fit`` on all the batches would count it; a value past declared ones is refused.
        A DataFrame's string column with no known value in the first batch gets its values
        from later ones (until one comes, the model cannot be saved). A DataFrame's column
        that the first batch's whole numbers made nominal stays so: a later number that is
        not whole in it is refused (declare the column numeric in ``attributes``, or start
        with a batch that shows its fractions).
        """
        all_classes, first = partial_fit_classes(self, classes)
        check_params(self)
        if first:
            X = frame_for_fit(self, X, self.attributes, integers_nominal=True, first_batch=True)
        else:  # a DataFrame's new values join frame_attributes_
            X = frame_for_batch(self, X, self.attributes, integers_nominal=True)
        X, y = self._validate_xy(X, y, reset=first)
        self.classes_ = all_classes
        check_partial_fit_labels(y, self.classes_)
        y_index = class_positions(self.classes_, y)
        w = check_sample_weight(sample_weight, X.shape[0])
        if first:
            self._init_state(X, y_index, w)
        else:
            self._table = CountTable.from_arrays(self.class_count_, self.pair_count_.reshape(len(self.classes_), -1))
            self._widen(X)
        self._count(self._prepare(X), y_index, w)
        self._publish()
        return self

    @checked_merge
    def merge(self, other):
        """Add the counts of ``other`` (an AODE with the same parameters, attributes and cut
        points; a parameter that differs is :class:`~textnb.core.errors.SettingsDiffer`, naming it).

        Training on two parts and merging gives the model trained on their union.
        Classes are aligned by name, and so are the values of nominal attributes whose
        values are declared (``attributes``, or a DataFrame's ``frame_attributes_``:
        :func:`~textnb.naive_bayes.tabular_kernel.merged_attributes`, TabularNB's
        alignment, as a CSV part numbers its values in the order it meets them): the pair
        table is laid out on the merged values, which the merged model declares. Columns
        of value indices (nothing declared) are matched by index.
        """
        self._check_fitted()
        other._check_fitted()
        if type(other) is not type(self):
            raise ValueError(f"cannot merge a {type(other).__name__} into a {type(self).__name__}")
        self._check_same_settings(other)
        if not np.array_equal(self.attribute_names_, other.attribute_names_):
            raise ValueError("cannot merge AODE models with different attributes or numbers of values")
        # (before the numbers of values: other cut points make other numbers of bins)
        check_same_cut_points(self.attribute_names_, self.cut_points_, other.cut_points_,
                              "fit the discretisation once (partial_fit on a common first batch) before "
                              "training the parts, or discretise the numeric attributes beforehand")
        declared, n_values, slots = self._merged_layout(other)
        n_slots = int((n_values + 1).sum())
        if len(np.union1d(self.classes_, other.classes_)) * n_slots * n_slots > MAX_PAIR_CELLS:
            raise ValueError(f"the merged AODE's pair table would have over {MAX_PAIR_CELLS} cells "
                             f"({n_slots}^2 attribute-value slots per class); use fewer attributes or values")
        self.classes_, self._table = merge_aligned(
            [(m.classes_, CountTable.from_arrays(m.class_count_, m.pair_count_.reshape(len(m.classes_), -1)))
             for m in (self, other)],
            columns=[(s[:, None] * n_slots + s[None, :]).ravel() for s in slots], n_features=n_slots * n_slots)
        self.n_values_ = n_values
        self.slot_offsets_ = np.concatenate([[0], np.cumsum(n_values + 1)]).astype(np.int64)
        if declared is not None:
            if self.attributes is not None:
                self.attributes = type(self.attributes)(declared) if isinstance(self.attributes, (list, tuple)) \
                    else declared
            else:
                self.frame_attributes_ = declared
        self._publish()
        return self

    def _merged_layout(self, other):
        """``(declared, n_values, (my slots, other's slots))`` of the merge of ``other`` into
        this model: the merged declared attributes (None when this model declares none),
        the merged numbers of values, and per model the merged slot of each of its slots.

        Nominal values are matched by :func:`~textnb.naive_bayes.tabular_kernel.merged_attributes`:
        by name where both models declare them, by index where neither does (a column of
        value indices); a column whose values one model declares and the other does not
        is a ValueError, as is another difference of kinds."""
        def described(model):  # per column an Attribute; undeclared values are their indices
            declared = declared_attributes(model)
            out = []
            for j, name in enumerate(model.attribute_names_):
                a = None if declared is None else declared[j]
                kind = "nominal" if isinstance(a, str) or a is None else getattr(a, "kind", "nominal")
                named = a is not None and not isinstance(a, str) and kind == "nominal"
                values = list(a.values) if named else list(range(int(model.n_values_[j])))
                out.append((Attribute(str(name), kind, [] if kind == "numeric" else values), named))
            return out

        mine, theirs = described(self), described(other)
        for name, (_, named), (_, other_named) in zip(self.attribute_names_, mine, theirs):
            if named != other_named:
                raise ValueError(f"cannot merge AODE models: the values of attribute {str(name)!r} are declared "
                                 "in one and not in the other")
        merged, where = merged_attributes([a for a, _ in mine], [a for a, _ in theirs], "AODE")
        n_values = np.array([int(self.n_values_[j]) if a.kind == "numeric" else max(len(a.values), 1)
                             for j, a in enumerate(merged)], dtype=np.int64)
        offsets = np.concatenate([[0], np.cumsum(n_values + 1)]).astype(np.int64)
        slots = []
        for side, model in enumerate((self, other)):
            s = []
            for j, positions in enumerate(where):
                k = int(model.n_values_[j])
                positions = list(range(k)) if positions is None else list(positions[side])
                positions += range(len(positions), k)  # an attribute of no declared value has one empty slot
                s.append(offsets[j] + np.array(positions + [int(n_values[j])], dtype=np.int64))  # then missing
            slots.append(np.concatenate(s + [np.empty(0, np.int64)]))
        declared = declared_attributes(self)
        if declared is not None:
            declared = [m if named else a for a, m, (_, named) in zip(declared, merged, mine)]
        return declared, n_values, slots

    # -- estimates ---------------------------------------------------------------------
    def _publish(self):
        """Expose the count table as fitted attributes and derive the log estimates."""
        n_slots = int(self.slot_offsets_[-1])
        self.class_count_ = self._table.class_count
        self.pair_count_ = self._table.feature_count.reshape(len(self.classes_), n_slots, n_slots)
        self._update()

    def _update(self):
        """Counts -> the log estimates of the module docstring (Weka 3.6.14's)."""
        check_params(self)
        N3 = self.pair_count_
        C = len(self.classes_)
        k = self.n_values_.astype(np.float64)
        off = self.slot_offsets_
        d = len(k)
        attr_of_slot = np.repeat(np.arange(d), self.n_values_ + 1)
        missing_slot = off[1:] - 1
        k_slot = k[attr_of_slot]
        diag = np.einsum("css->cs", N3)  # (C, n_slots): N(c, slot)
        freq = diag.sum(axis=0)
        total = float(self.class_count_.sum())
        m = None if self.m is None else float(self.m)
        # P(c, x_p): numerator over (C, slots), denominator per parent attribute
        parent_den = total - freq[missing_slot] + (C * k if m is None else m)
        parent_num = diag + (1.0 if m is None else m / (C * k_slot))
        with np.errstate(divide="ignore"):
            self._log_parent = np.log(parent_num) - np.log(parent_den[attr_of_slot])[None, :]
            # P(x_a | c, x_p): (C, parent slot, child slot)
            miss_child = N3[:, :, missing_slot]  # (C, n_slots, d): N(c, x_p, a missing)
            child_den = diag[:, :, None] - miss_child + (k[None, None, :] if m is None else m)
            child_num = N3 + (1.0 if m is None else m / k_slot[None, None, :])
            log_child = np.log(child_num) - np.log(child_den[:, :, attr_of_slot])
            # naive Bayes fallback
            known_count = self.class_count_[:, None] - diag[:, missing_slot]  # (C, d)
            self._log_nb_prior = (np.log(self.class_count_ + (1.0 if m is None else m / C))
                                  - np.log(total + (C if m is None else m)))
            self._log_nb = (np.log(diag + (1.0 if m is None else m / k_slot[None, :]))
                            - np.log(known_count[:, attr_of_slot] + (k_slot[None, :] if m is None else m)))
        # prediction adds child terms by look-up without masks: a missing child (its
        # missing slot) and the parent itself (same attribute) contribute log 1 = 0
        same = attr_of_slot[:, None] == attr_of_slot[None, :]
        log_child[:, same] = 0.0
        log_child[:, :, missing_slot] = 0.0
        self._log_child = log_child
        self._log_nb[:, missing_slot] = 0.0
        self._eligible = freq >= float(self.frequency_limit)  # super-parent candidates

    # -- prediction ----------------------------------------------------------------------
    def _check_X(self, X):
        return nominal_rows(self, X)

    def _joint_log_likelihood(self, X):
        n, d = X.shape
        C = len(self.classes_)
        jll = np.empty((n, C))
        if n == 0:
            return jll
        if d == 0:
            jll[:] = self._log_nb_prior
            return jll
        block = max(1, _BLOCK_CELLS // (d * d * C))
        for start in range(0, n, block):
            x = X[start:start + block]
            jll[start:start + block] = self._block_jll(x)
        return jll

    def _block_jll(self, X):
        known = ~np.isnan(X)
        S = self._slots(X)  # a missing cell points at its missing slot
        # child terms for every (parent p, child a) of every row: (C, rows, d, d); a
        # missing child and a == p are zeros of the table (see _update)
        per_parent = self._log_parent[:, S] + self._log_child[:, S[:, :, None], S[:, None, :]].sum(axis=3)
        parent = known & self._eligible[S]  # (rows, d)
        n_parents = parent.sum(axis=1)
        scores = np.where(parent[None], per_parent, -np.inf)
        with np.errstate(divide="ignore"):
            aode = logsumexp_max_apart(scores, axis=2) - np.log(np.maximum(n_parents, 1))[None, :]
        nb = self._log_nb_prior[:, None] + self._log_nb[:, S].sum(axis=2)
        return np.where(n_parents[None, :] > 0, aode, nb).T

    # -- inspection ------------------------------------------------------------------------
    def describe(self):
        """The fitted model as plain data (JSON-serialisable), for ``textnb inspect``."""
        self._check_fitted()
        attrs = []
        for j, name in enumerate(self.attribute_names_):
            cuts = None if self.cut_points_ is None else self.cut_points_[j]
            freq = self.pair_count_.sum(axis=0).diagonal()[self.slot_offsets_[j]:self.slot_offsets_[j + 1]]
            attrs.append({
                "name": str(name),
                "kind": "numeric" if cuts is not None else "nominal",
                "model": (f"mdl, {len(cuts) + 1} intervals" if cuts is not None else "nominal")
                + f", {int(self._eligible[self.slot_offsets_[j]:self.slot_offsets_[j + 1] - 1].sum())}"
                f" of {int(self.n_values_[j])} values super-parents",
                "frequencies": [float(f) for f in freq[:-1]],
                "missing": float(freq[-1]),
                **({"cut_points": [float(c) for c in cuts]} if cuts is not None else {}),
            })
        return {
            "model": "AODE",
            "frequency_limit": self.frequency_limit,
            "m": self.m,
            "classes": label_names(self),
            "class_count": [float(c) for c in self.class_count_],
            # P(class) as the model holds it (smoothed as its other estimates: the prior of
            # its naive Bayes fallback, for a row without a super-parent), as TabularNB's
            "class_prior": np.exp(self._log_nb_prior).tolist(),
            "attributes": attrs,
        }

    # -- model files -------------------------------------------------------------------------
    def _get_state(self):
        state = {
            "classes_": self.classes_,
            "class_count_": self.class_count_,
            "pair_count_": self.pair_count_,
            "attribute_names_": self.attribute_names_,
            "n_values_": self.n_values_,
            "n_features_in_": self.n_features_in_,
            "discretized_": np.array([c is not None for c in (self.cut_points_ or [])], dtype=bool),
            "cut_points_": [np.empty(0) if c is None else c for c in (self.cut_points_ or [])],
        }
        for extra in ("feature_names_in_", "frame_attributes_"):
            if hasattr(self, extra):
                state[extra] = getattr(self, extra)
        return state

    def _set_state(self, state):
        """Rebuild from a model file, checking every shape and count (ValueError if not)."""
        expected = {"classes_", "class_count_", "pair_count_", "attribute_names_", "n_values_",
                    "n_features_in_", "discretized_", "cut_points_"}
        missing = expected - set(state)
        extra = set(state) - expected - {"feature_names_in_", "frame_attributes_"}
        if missing or extra:
            raise ValueError(f"state keys missing {sorted(missing)} or unknown {sorted(extra)}")
        classes = np.asarray(state["classes_"])
        n_values = np.asarray(state["n_values_"])
        d = state["n_features_in_"]
        if classes.ndim != 1 or len(np.unique(classes)) != classes.size:
            raise ValueError("classes_ must be a list of distinct labels")
        if not isinstance(d, Integral) or d < 0 or n_values.shape != (d,) or n_values.dtype.kind not in "iu" \
                or (n_values < 1).any():
            raise ValueError("n_values_ must hold one integer >= 1 per attribute")
        names = np.asarray(state["attribute_names_"])
        if names.shape != (d,) or names.dtype.kind != "U":
            raise ValueError("attribute_names_ must hold one name per attribute")
        n_slots = int((n_values + 1).sum())
        if len(classes) * n_slots * n_slots > MAX_PAIR_CELLS:
            raise ValueError("pair table larger than the limit")
        cc = np.asarray(state["class_count_"])
        pc = np.asarray(state["pair_count_"])
        C = classes.size
        if cc.shape != (C,) or pc.shape != (C, n_slots, n_slots):
            raise ValueError(f"count shapes {cc.shape} and {pc.shape} do not fit {C} classes and {n_slots} slots")
        for name, a in (("class_count_", cc), ("pair_count_", pc)):
            if a.dtype.kind not in "iuf" or not np.all(np.isfinite(a)) or (a < 0).any():
                raise ValueError(f"{name} must hold finite counts >= 0")
        disc = np.asarray(state["discretized_"])
        cuts = state["cut_points_"]
        if disc.size:
            if disc.shape != (d,) or disc.dtype != bool or not isinstance(cuts, list) or len(cuts) != d:
                raise ValueError("cut_points_ must hold one entry per attribute")
            cut_points = []
            for j, (flag, c) in enumerate(zip(disc, cuts)):
                c = np.asarray(c)
                if not flag:
                    cut_points.append(None)
                    continue
                if c.ndim != 1 or c.dtype.kind != "f" or not np.all(np.isfinite(c)) or (np.diff(c) <= 0).any() \
                        or c.size + 1 != n_values[j]:
                    raise ValueError(f"cut points of attribute {j} are not {n_values[j] - 1} increasing numbers")
                cut_points.append(c.astype(np.float64))
        else:
            cut_points = None
        self.classes_ = classes
        self.n_features_in_ = int(d)
        if "feature_names_in_" in state:
            fn = np.asarray(state["feature_names_in_"], dtype=object)
            if fn.shape != (d,):
                raise ValueError("feature_names_in_ must hold one name per attribute")
            self.feature_names_in_ = fn
        self.__dict__.pop("frame_attributes_", None)
        if "frame_attributes_" in state:
            self.frame_attributes_ = list(state["frame_attributes_"])
            if len(self.frame_attributes_) != d:
                raise ValueError("frame_attributes_ must hold one attribute per column")
        self.attribute_names_ = names
        self.n_values_ = n_values.astype(np.int64)
        self.slot_offsets_ = np.concatenate([[0], np.cumsum(self.n_values_ + 1)]).astype(np.int64)
        self.cut_points_ = cut_points
        self._table = CountTable.from_arrays(cc, pc.reshape(C, -1))
        self._publish()
