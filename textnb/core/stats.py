"""The statistics every textnb model is built on: sums that add, subtract and merge.

A naive Bayes model is a function of sufficient statistics that are sums over the
training objects. This module holds those sums and the few operations every model
needs (``../shared/design/architecture.md``):

* ``add``: fold a batch of objects in (``fit``, ``partial_fit``, streaming shards);
* ``subtract``: take objects out again (leave-one-out, "all but this subset");
* ``merge``: add two tables built on different shards / machines;
  :func:`merge_aligned` first aligns tables whose classes (and columns) differ.

Two kinds are enough for the models here:

* :class:`CountTable` -- weighted counts per class of discrete features (word
  counts, word presence, one-hot nominal values, discretised numerics, TAN pairs);
* :class:`GaussianMoments` -- weighted count, mean and centred second moment per
  class of numeric attributes (Welford / Chan et al. updates), missing values (NaN)
  left out.

Everything is float64; sparse input is never densified.
"""

import sys

import numpy as np

#: Refuse a table of attribute-value pairs (AODE's, TAN's) with more cells (classes x pair
#: cells) than this: a column of many values (a numeric one given as value codes) would make
#: it terabytes.
MAX_PAIR_CELLS = 50_000_000

__all__ = ["MAX_PAIR_CELLS", "CountTable", "GaussianMoments", "class_indicator", "class_positions", "issparse", "merge_aligned",
           "seen_columns"]


def class_positions(classes, labels):
    """The index in ``classes`` (distinct, in any order: sorted, or a table's declared
    class values) of each of ``labels`` (all of which are in ``classes``)."""
    classes = np.asarray(classes)
    order = np.argsort(classes, kind="stable")
    return order[np.searchsorted(classes[order], np.asarray(labels))]


def class_indicator(y_index, n_classes, sample_weight=None):
    """Sparse (n_samples, n_classes) matrix with the object's weight in its class column.

    Parameters
    ----------
    y_index : ndarray of int of shape (n_samples,)
        Index of each object's class in ``classes_``.
    n_classes : int
    sample_weight : ndarray of shape (n_samples,), default=None
        Weights; 1 for every object when None.
    """
    y_index = np.asarray(y_index, dtype=np.intp)
    n = y_index.shape[0]
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    import scipy.sparse as sp

    return sp.csr_matrix((w, (np.arange(n), y_index)), shape=(n, n_classes))


def issparse(m):
    """Whether ``m`` is a scipy sparse matrix or array; scipy is not imported for the answer
    (no sparse matrix exists unless it is)."""
    sparse = sys.modules.get("scipy.sparse")
    return sparse is not None and sparse.issparse(m)


def _as_dense(m):
    return m.toarray() if issparse(m) else np.asarray(m)


class CountTable:
    """Weighted counts of discrete features per class.

    Attributes
    ----------
    class_count : ndarray of shape (n_classes,)
        Summed weight of the objects of each class.
    feature_count : ndarray of shape (n_classes, n_features)
        Summed ``weight * X[:, f]`` over the objects of each class.
    """

    def __init__(self, n_classes, n_features):
        self.class_count = np.zeros(n_classes, dtype=np.float64)
        self.feature_count = np.zeros((n_classes, n_features), dtype=np.float64)

    @classmethod
    def from_arrays(cls, class_count, feature_count):
        table = cls.__new__(cls)
        table.class_count = np.array(class_count, dtype=np.float64)
        table.feature_count = np.array(feature_count, dtype=np.float64)
        return table

    @property
    def shape(self):
        return self.feature_count.shape

    def add(self, X, Y, sign=1.0):
        """Add (``sign=-1``: subtract) the objects of ``X`` with class indicator ``Y``.

        ``X`` is (n_samples, n_features), dense or sparse; ``Y`` is the
        (n_samples, n_classes) weighted indicator of :func:`class_indicator`.
        One sparse product, ``Y.T @ X``; X is never densified.
        """
        self.feature_count += sign * _as_dense(Y.T @ X)
        self.class_count += sign * np.asarray(Y.sum(axis=0)).ravel()
        return self

    def subtract(self, X, Y):
        """Take objects out again (leave-one-out, complement of a subset)."""
        return self.add(X, Y, sign=-1.0)

    def add_codes(self, columns, y_index, sample_weight=None, sign=1.0):
        """Add objects given by the columns they count in: one-hot coded features.

        ``columns`` is (n_samples, k) int: object ``i`` adds its weight to each of its
        ``k`` columns ``columns[i]`` (nominal value slots, TAN/AODE value pairs) and to
        its class ``y_index[i]``. The same sums as :meth:`add` with the one-hot matrix
        and :func:`class_indicator`, in the same order (object by object), without
        building either: one ``bincount`` of the (class, column) cells (:meth:`add_cells`
        with every value 1, without its row index per cell).
        """
        columns = np.asarray(columns, dtype=np.intp)
        y_index = np.asarray(y_index, dtype=np.intp)
        n, k = columns.shape
        cells = (y_index[:, None] * self.feature_count.shape[1] + columns).ravel()
        w = None if sample_weight is None else np.repeat(np.asarray(sample_weight, dtype=np.float64), k)
        return self._add_cell_weights(cells, w, y_index, sample_weight, sign)

    def add_cells(self, rows, columns, values, y_index, sample_weight=None, sign=1.0):
        """Add the objects of the sparse matrix given by its cells ``(rows, columns, values)``
        (``values`` None: all 1), object ``i`` in class ``y_index[i]`` with weight
        ``sample_weight[i]`` (default 1), without building it or scipy.

        The same floats as :meth:`add` with that matrix and :func:`class_indicator`
        (scipy's ``Y.T @ X`` sums the products ``weight * value`` of each (class, column)
        cell object by object, from zero), provided each column's cells come in increasing
        row order (as ``np.nonzero`` and a column at a time give them): one ``bincount``
        of the (class, column) cells.
        """
        rows = np.asarray(rows, dtype=np.intp)
        y_index = np.asarray(y_index, dtype=np.intp)
        cells = y_index[rows] * self.feature_count.shape[1] + np.asarray(columns, dtype=np.intp)
        if sample_weight is None:
            w = None if values is None else np.asarray(values, dtype=np.float64)
        else:
            sample_weight = np.asarray(sample_weight, dtype=np.float64)
            w = sample_weight[rows] if values is None else sample_weight[rows] * np.asarray(values, dtype=np.float64)
        return self._add_cell_weights(cells, w, y_index, sample_weight, sign)

    def _add_cell_weights(self, cells, weights, y_index, sample_weight, sign):
        """Add ``weights`` (None: 1 each) at the flat (class, column) ``cells``, in order,
        and the objects' weights to their classes."""
        n_classes, n_features = self.feature_count.shape
        counts = np.bincount(cells, weights=weights, minlength=n_classes * n_features)
        self.feature_count += sign * counts.reshape(n_classes, n_features)
        self.class_count += sign * np.bincount(y_index, weights=sample_weight, minlength=n_classes)
        return self

    def merge(self, other):
        """Add another table with the same classes and features, in place."""
        if other.feature_count.shape != self.feature_count.shape:
            raise ValueError(
                f"cannot merge count tables of shapes {other.feature_count.shape} "
                f"and {self.feature_count.shape}; align classes and features first"
            )
        self.class_count += other.class_count
        self.feature_count += other.feature_count
        return self

    def copy(self):
        return CountTable.from_arrays(self.class_count, self.feature_count)

    def aligned(self, classes, own_classes, columns=None, n_features=None):
        """This table re-indexed onto ``classes`` (a superset of ``own_classes``, in any order)
        and, with ``columns``, its column ``j`` moved to ``columns[j]`` of ``n_features``;
        the rows and columns it does not have hold zeros."""
        rows = class_positions(classes, own_classes)
        width = self.feature_count.shape[1] if columns is None else n_features
        out = CountTable(len(classes), width)
        out.class_count[rows] = self.class_count
        if columns is None:
            out.feature_count[rows] = self.feature_count
        else:
            out.feature_count[np.ix_(rows, np.asarray(columns, dtype=np.intp))] = self.feature_count
        return out


class GaussianMoments:
    """Weighted count, mean and centred second moment (M2) of numeric attributes per class.

    NaN marks a missing value: it is left out of that attribute's statistics (the
    textbook's treatment, Witten & Frank §4.2). Batches are combined with the
    parallel formula of Chan, Golub & LeVeque (1979), so ``add``, ``subtract`` and
    ``merge`` give the same moments as one pass over all objects.

    Attributes
    ----------
    count, mean, m2 : ndarray of shape (n_classes, n_features)
    """

    def __init__(self, n_classes, n_features):
        shape = (n_classes, n_features)
        self.count = np.zeros(shape)
        self.mean = np.zeros(shape)
        self.m2 = np.zeros(shape)

    @classmethod
    def from_arrays(cls, count, mean, m2):
        mom = cls.__new__(cls)
        mom.count, mom.mean, mom.m2 = (np.array(a, dtype=np.float64) for a in (count, mean, m2))
        return mom

    @staticmethod
    def _batch(X, Y):
        """Moments of one batch: (count, mean, m2), each (n_classes, n_features); ``Y`` is a
        class indicator (n_samples, n_classes), or ``(y_index, sample_weight, n_classes)``
        (:meth:`add_rows`)."""
        X = np.asarray(X, dtype=np.float64)
        known = ~np.isnan(X)
        Xz = np.where(known, X, 0.0)
        if isinstance(Y, tuple):  # per class, object by object from zero: scipy's sparse product's floats
            y_index, w, n_classes = Y

            def class_sums(V):
                out = np.zeros((n_classes, V.shape[1]))
                np.add.at(out, y_index, V if w is None else w[:, None] * V)
                return out
        else:
            # (n_classes, n_samples), kept sparse: dense it is n_samples x n_classes floats
            if issparse(Y):
                import scipy.sparse as sp

                W = sp.csr_matrix(Y.T)
            else:
                W = np.asarray(Y, dtype=np.float64).T

            def class_sums(V):
                return np.asarray(W @ V)
        count = class_sums(known.astype(np.float64))
        sx = class_sums(Xz)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(count > 0, sx / count, 0.0)
        # sum_i w_i (x_i - mean_c)^2 over known values, per class
        m2 = class_sums(Xz * Xz) - 2 * mean * sx + mean * mean * count
        return count, mean, np.maximum(m2, 0.0)

    def _combine(self, count_b, mean_b, m2_b, sign):
        n_a, n_b = self.count, sign * count_b
        n = n_a + n_b
        with np.errstate(invalid="ignore", divide="ignore"):
            delta = mean_b - self.mean
            mean = np.where(n > 0, self.mean + delta * n_b / n, 0.0)
            if sign > 0:
                m2 = self.m2 + m2_b + delta * delta * n_a * n_b / np.where(n > 0, n, 1)
            else:
                # remove batch b from a: mean_r = (n_a mean_a - n_b' mean_b) / n
                m2 = self.m2 - m2_b - (mean_b - mean) ** 2 * count_b * n / np.where(n_a > 0, n_a, 1)
        empty = n <= 0
        self.count = np.where(empty, 0.0, n)
        self.mean = np.where(empty, 0.0, mean)
        self.m2 = np.where(empty, 0.0, np.maximum(m2, 0.0))
        return self

    def add(self, X, Y):
        """Fold in the objects of dense ``X`` (NaN = missing) with class indicator ``Y``."""
        return self._combine(*self._batch(X, Y), sign=1.0)

    def add_rows(self, X, y_index, n_classes, sample_weight=None):
        """:meth:`add` with the class indicator given as the class of each object and its
        weight (default 1): the same floats, without scipy."""
        w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        return self._combine(*self._batch(X, (np.asarray(y_index, dtype=np.intp), w, n_classes)), sign=1.0)

    def subtract(self, X, Y):
        """Take objects out again (leave-one-out)."""
        return self._combine(*self._batch(X, Y), sign=-1.0)

    def merge(self, other):
        """Add the moments of another batch with the same classes and attributes."""
        return self._combine(other.count, other.mean, other.m2, sign=1.0)

    @property
    def shape(self):
        return self.count.shape

    def variance(self, ddof=1.0):
        """Per-class variance with ``ddof`` (1: the sample variance the textbook uses)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.count - ddof > 0, self.m2 / (self.count - ddof), 0.0)

    def copy(self):
        return GaussianMoments.from_arrays(self.count, self.mean, self.m2)

    def aligned(self, classes, own_classes, columns=None, n_features=None):
        """These moments re-indexed onto ``classes`` (a superset of ``own_classes``, in any
        order); a class they do not have gets zero count."""
        if columns is not None:
            raise ValueError("GaussianMoments are aligned on classes only")
        rows = class_positions(classes, own_classes)
        out = GaussianMoments(len(classes), self.count.shape[1])
        out.count[rows], out.mean[rows], out.m2[rows] = self.count, self.mean, self.m2
        return out


def merge_aligned(parts, columns=None, n_features=None):
    """Class-aligned merge: ``(classes, table)`` of the sum of several tables.

    Every model's ``merge`` goes through this one function: the classes are the sorted
    union of the parts' classes (a class only some parts have gets zero counts in the
    others), or, when every part has the same classes in the same order (models with the
    same declared class values), those, in that order; each part's table
    (:class:`CountTable` or :class:`GaussianMoments`) is re-indexed onto them and added
    to an empty table, in order.

    Parameters
    ----------
    parts : sequence of (classes, table)
        Each part's classes and its table (rows in the order of its classes).
    columns : sequence of int arrays, default=None
        With count tables over different columns (vocabularies): per part, the column
        of the merged table each of its columns goes to.
    n_features : int, default=None
        The merged number of columns (required with ``columns``).
    """
    classes = np.asarray(parts[0][0])
    if not all(np.array_equal(classes, own) for own, _ in parts[1:]):
        for own, _ in parts[1:]:
            classes = np.union1d(classes, own)
        classes = np.unique(classes)
    first = parts[0][1]
    width = first.shape[1] if columns is None else n_features
    merged = type(first)(len(classes), width)
    for i, (own, table) in enumerate(parts):
        cols = None if columns is None else columns[i]
        merged.merge(table.aligned(classes, own, cols, n_features))
    return classes, merged


def seen_columns(X_train):
    """Columns with a non-zero value in ``X_train`` (all columns if there is none).

    Out-of-fold models are fitted and applied on these only, as a model trained on
    the fold's documents would be: a term that only occurs in the held-out fold is an
    unseen word, dropped, not a zero-count column (which would get the smoothed
    probability of a never-seen word, larger in the smaller classes, and bias the
    out-of-fold scores towards them).
    """
    if issparse(X_train):
        nz = np.asarray((X_train != 0).sum(axis=0)).ravel()
    else:
        nz = np.count_nonzero(np.asarray(X_train), axis=0)
    cols = np.flatnonzero(nz)
    return cols if cols.size else np.arange(X_train.shape[1])
