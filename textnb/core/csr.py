"""Products of CSR matrices held as numpy arrays ``(data, indices, indptr)``: numpy only.

Scoring a file of documents with a linear model is one product ``X @ W.T`` of their
sparse counts and the model's dense weights. scipy.sparse computes it in compiled code,
but importing it costs a prediction process more CPU time (about 0.1 s: its array-API
layer imports numpy's f2py, testing and other lazy submodules) than the product of
a few thousand documents takes. :func:`csr_dot` computes the same floats with numpy.
"""

import numpy as np

__all__ = ["CSR", "csr_dot", "kernels"]

#: Rows still being summed below which the rest of each is summed on its own (one
#: cumulative sum per row) instead of one vectorised step per term position.
_FEW_ROWS = 32
#: Products computed at once (cells; times the number of outputs, 8 bytes each).
_BUFFER_CELLS = 1 << 12


def csr_dot(data, indices, indptr, weights_t, presence_columns=0):
    """``X @ weights_t`` for the CSR matrix ``X = (data, indices, indptr)`` (any number of
    columns: ``weights_t`` has one row per column of ``X``), shape ``(n_rows,
    weights_t.shape[1])``, in ``weights_t``'s and ``data``'s result dtype. The last
    ``presence_columns`` columns of ``weights_t`` are summed unmultiplied: those of the
    result are ``P @ weights_t`` for ``P`` the stored cells as ones (the weights of the terms'
    presence, in the same pass over the cells).

    Each row accumulates its products ``data[k] * weights_t[indices[k]]`` one term at a
    time, in index order, from zero, as scipy's CSR product (``csr_matvecs``) does: the
    result is scipy's to the last bit. The rows are taken longest first; step ``j`` adds
    the ``j``-th product of every row that has one. The cells are laid out step by step
    once, and the products of a few steps at a time (:data:`_BUFFER_CELLS` cells) are
    gathered and multiplied into one buffer that stays in the cache: a step is then one
    contiguous addition, with no indexing. Once fewer than :data:`_FEW_ROWS` rows remain,
    each of them finishes with a cumulative sum of its remaining products (also
    sequential), so a few very long documents do not cost one Python step per term.
    """
    data, weights_t = np.asarray(data), np.asarray(weights_t)
    dtype = np.result_type(data.dtype, weights_t.dtype)  # both in it, as scipy's product upcasts them
    data, weights_t = data.astype(dtype, copy=False), weights_t.astype(dtype, copy=False)
    indptr = np.asarray(indptr, dtype=np.int64)
    n_rows, n_out = indptr.size - 1, weights_t.shape[1]
    scaled = n_out - int(presence_columns)  # the columns multiplied by the cells' values
    out = np.zeros((n_rows, n_out), dtype=dtype)
    if n_rows == 0 or indptr[-1] == indptr[0]:
        return out
    lengths = np.diff(indptr)
    order = np.argsort(-lengths, kind="stable")  # longest first: step j uses a prefix of the rows
    sorted_lengths = lengths[order]
    # active[j]: rows with more than j terms; the steps run while at least _FEW_ROWS do
    active = n_rows - np.cumsum(np.bincount(sorted_lengths))[:-1]
    n_steps = int(np.count_nonzero(active >= _FEW_ROWS))
    total = np.empty((n_rows, n_out), dtype=dtype)  # the sums, rows in ``order``
    if n_steps:
        active = active[:n_steps]
        step_start = np.zeros(n_steps + 1, dtype=np.int64)
        np.cumsum(active, out=step_start[1:])
        # the cells of steps 0 .. n_steps - 1, step by step (rows in ``order`` within a step)
        kept = np.minimum(sorted_lengths, n_steps)
        rank = np.repeat(np.arange(n_rows), kept)
        first = np.zeros(n_rows + 1, dtype=np.int64)
        np.cumsum(kept, out=first[1:])
        position = np.arange(first[-1]) - np.repeat(first[:-1], kept)
        cells = np.empty(first[-1], dtype=np.int64)
        cells[step_start[position] + rank] = indptr[:-1][order][rank] + position
        columns = np.asarray(indices, dtype=np.intp)[cells]
        values = data[cells]
        # the products of a few steps at a time, in one buffer that stays in the cache
        buffer = np.empty((min(int(step_start[-1]), _BUFFER_CELLS + int(active[0])), n_out), dtype=dtype)
        total[:] = 0
        j = 0
        while j < n_steps:
            lo = int(step_start[j])
            stop = max(j + 1, int(np.searchsorted(step_start, lo + _BUFFER_CELLS, side="right")) - 1)
            stop = min(stop, n_steps)
            hi = int(step_start[stop])
            products = buffer[:hi - lo]
            np.take(weights_t, columns[lo:hi], axis=0, out=products, mode="clip")  # (valid columns)
            np.multiply(products[:, :scaled], values[lo:hi, None], out=products[:, :scaled])
            for k in range(j, stop):
                a = int(active[k])
                total[:a] += products[step_start[k] - lo:step_start[k] - lo + a]
            j = stop
    else:
        total[:] = 0
    # the rows longer than n_steps: the rest of each, summed on from its partial sum
    for r in range(int(np.count_nonzero(sorted_lengths > n_steps))):
        row = order[r]
        lo, hi = indptr[row] + n_steps, indptr[row + 1]
        rest = np.empty((hi - lo + 1, n_out), dtype=dtype)
        rest[0] = total[r]
        np.take(weights_t, np.asarray(indices[lo:hi], dtype=np.intp), axis=0, out=rest[1:], mode="clip")
        np.multiply(rest[1:, :scaled], data[lo:hi, None], out=rest[1:, :scaled])
        total[r] = np.cumsum(rest, axis=0)[-1]
    out[order] = total
    return out


# -- the training's sparse matrices ------------------------------------------------------

#: scipy.sparse's compiled kernels (its ``_sparsetools`` module), loaded once by :func:`kernels`.
_KERNELS = None
#: What :class:`CSR` calls in the kernels (each a loop of scipy.sparse's own products).
_NEEDED = ("csr_matvec", "csr_matvecs", "csr_matmat_maxnnz", "csr_matmat", "csr_todense")
_MAX_INT32 = np.iinfo(np.int32).max


def kernels():
    """scipy.sparse's compiled sparse kernels (the module ``scipy.sparse._sparsetools``):
    the loops that scipy.sparse's own CSR products call, so :class:`CSR` computes scipy's
    floats to the bit.

    ``import scipy.sparse`` costs a training process about 0.15 s of CPU time, most of it
    not sparse matrices: its array-API layer (``scipy._lib._array_api``) clones numpy's
    namespace, which imports numpy's lazy submodules (f2py, testing, ma, ...). The kernels'
    extension module needs numpy alone: it is loaded from scipy's installed package folder
    (``scipy`` itself is not imported) in under a millisecond, and left out of
    ``sys.modules``, so that a later ``import scipy.sparse`` imports its own as ever. Where
    that cannot be done (scipy laid out otherwise, a frozen application), the kernels are
    imported the usual way, with scipy.sparse."""
    global _KERNELS
    if _KERNELS is None:
        _KERNELS = _load_kernels()
    return _KERNELS


def _load_kernels():
    import importlib.machinery
    import importlib.util
    import os
    import sys

    name = "scipy.sparse._sparsetools"
    if "scipy.sparse" not in sys.modules:
        try:
            spec = importlib.util.find_spec("scipy")
            folders = list(spec.submodule_search_locations or ()) if spec is not None else []
            finder = importlib.machinery.FileFinder(
                os.path.join(folders[0], "sparse"),
                (importlib.machinery.ExtensionFileLoader, importlib.machinery.EXTENSION_SUFFIXES))
            found = finder.find_spec(name)
            if found is not None and isinstance(found.loader, importlib.machinery.ExtensionFileLoader):
                was = sys.modules.get(name)
                module = importlib.util.module_from_spec(found)
                found.loader.exec_module(module)
                if was is None:
                    sys.modules.pop(name, None)  # (scipy.sparse, when imported, loads its own)
                if all(hasattr(module, f) for f in _NEEDED):
                    return module
        except (ImportError, OSError, IndexError, AttributeError):
            pass
    import importlib

    return importlib.import_module(name)


def _index_dtype(*sizes):
    """int32 when every index and size fits in it (as scipy.sparse chooses), else int64."""
    return np.int32 if max(sizes, default=0) <= _MAX_INT32 else np.int64


class CSR:
    """A CSR matrix held as numpy arrays ``(data, indices, indptr)``: what the default model's
    training works on (:mod:`textnb.core.dfe`), without importing scipy.sparse (see
    :func:`kernels`). Built as scipy's is, ``CSR((data, indices, indptr), shape=(n, m))``,
    and read as scipy's is (``data``, ``indices``, ``indptr``, ``shape``, ``nnz``), with the
    few operations the training takes: rows by slice, index array or mask, ``[:, columns]``,
    ``astype``, ``copy``, the transpose ``T``, products with dense arrays and with another CSR
    (``@``) and ``toarray``. Products run scipy.sparse's own compiled loops (the same floats
    as a scipy CSR matrix's); selecting rows and columns is numpy (no arithmetic). The
    indices of a matrix made here are sorted in each row when its rows' were (a subset of
    them keeps their order), and nothing checks them: the makers give canonical rows
    (:func:`textnb.core.dfe.canonical`). ``to_scipy()`` gives the scipy.sparse matrix."""

    format = "csr"
    __slots__ = ("data", "indices", "indptr", "shape")

    def __init__(self, arg, shape):
        data, indices, indptr = arg
        indptr = np.asarray(indptr)
        n_rows, n_cols = int(shape[0]), int(shape[1])
        if indptr.shape != (n_rows + 1,):
            raise ValueError(f"indptr has {indptr.size} entries for {n_rows} rows")
        nnz = int(indptr[-1])
        idx = _index_dtype(nnz, n_rows, n_cols)
        self.indptr = indptr.astype(idx, copy=False)
        self.indices = np.asarray(indices).astype(idx, copy=False)[:nnz]
        self.data = np.asarray(data)[:nnz]
        self.shape = (n_rows, n_cols)

    @classmethod
    def of(cls, X):
        """``X`` itself when a CSR, else the CSR of a scipy.sparse CSR matrix (its arrays,
        not copied)."""
        return X if isinstance(X, cls) else cls((X.data, X.indices, X.indptr), X.shape)

    def to_scipy(self):
        """The scipy.sparse CSR matrix of these arrays (imports scipy.sparse)."""
        import scipy.sparse as sp

        X = sp.csr_matrix((self.data, self.indices, self.indptr), shape=self.shape)
        return X

    @property
    def nnz(self):
        return int(self.indptr[-1])

    @property
    def dtype(self):
        return self.data.dtype

    def __repr__(self):
        return f"<CSR {self.shape[0]}x{self.shape[1]}, {self.nnz} stored {self.dtype}>"

    def copy(self):
        return CSR((self.data.copy(), self.indices.copy(), self.indptr.copy()), self.shape)

    def astype(self, dtype, copy=True):
        if not copy and self.data.dtype == np.dtype(dtype):
            return self
        return CSR((self.data.astype(dtype), self.indices, self.indptr), self.shape)

    def tocsr(self):
        return self

    def getnnz(self, axis=None):
        return self.nnz if axis is None else np.diff(self.indptr)

    def __abs__(self):
        return CSR((np.abs(self.data), self.indices, self.indptr), self.shape)

    def sum(self, axis=None):
        """The sum of the stored values (``axis=1``: of each row, an array)."""
        if axis is None:
            return self.data.sum()
        if axis not in (1, -1):
            raise ValueError("CSR.sum takes axis None or 1")
        out = np.zeros(self.shape[0], dtype=np.result_type(self.data.dtype, np.float64))
        lengths = np.diff(self.indptr)
        if self.data.size:
            out[lengths > 0] = np.add.reduceat(self.data, self.indptr[:-1][lengths > 0])
        return out

    # -- rows and columns (numpy: no arithmetic) ----------------------------------------
    def __getitem__(self, key):
        if isinstance(key, tuple):
            rows, cols = key
            if not (isinstance(rows, slice) and rows == slice(None)):
                return self[rows][:, cols]
            return self._columns(cols)
        if isinstance(key, slice):
            lo, hi, step = key.indices(self.shape[0])
            if step == 1:
                hi = max(hi, lo)
                start, stop = int(self.indptr[lo]), int(self.indptr[hi])
                return CSR((self.data[start:stop], self.indices[start:stop], self.indptr[lo:hi + 1] - start),
                           (hi - lo, self.shape[1]))
            key = np.arange(lo, hi, step)
        return self._rows(key)

    def _rows(self, rows):
        rows = np.asarray(rows)
        if rows.dtype == bool:
            if rows.shape != (self.shape[0],):
                raise IndexError(f"a row mask of {rows.size} values for {self.shape[0]} rows")
            rows = np.flatnonzero(rows)
        rows = rows.astype(np.intp, copy=False).reshape(-1)
        if rows.size and (rows.min() < 0 or rows.max() >= self.shape[0]):
            raise IndexError(f"row index out of range for {self.shape[0]} rows")
        start = self.indptr[rows].astype(np.int64)
        lengths = self.indptr[rows + 1] - start
        indptr = np.zeros(rows.size + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        cells = np.arange(indptr[-1]) + np.repeat(start - indptr[:-1], lengths)
        return CSR((self.data[cells], self.indices[cells], indptr), (rows.size, self.shape[1]))

    def _columns(self, cols):
        """The columns ``cols`` (a boolean mask, or distinct indices: the new columns in their
        order), each row's cells in their order."""
        cols = np.asarray(cols)
        if cols.dtype == bool:
            if cols.shape != (self.shape[1],):
                raise IndexError(f"a column mask of {cols.size} values for {self.shape[1]} columns")
            cols = np.flatnonzero(cols)
        cols = cols.astype(np.intp, copy=False).reshape(-1)
        column = np.full(self.shape[1], -1, dtype=np.int64)
        column[cols] = np.arange(cols.size)
        if np.count_nonzero(column >= 0) != cols.size:
            raise IndexError("columns must be distinct")
        new = column[self.indices]
        keep = new >= 0
        lengths = np.diff(self.indptr)
        if keep.all():
            return CSR((self.data, new, self.indptr), (self.shape[0], cols.size))
        row = np.repeat(np.arange(self.shape[0]), lengths)
        indptr = np.zeros(self.shape[0] + 1, dtype=np.int64)
        np.cumsum(np.bincount(row[keep], minlength=self.shape[0]), out=indptr[1:])
        return CSR((self.data[keep], new[keep], indptr), (self.shape[0], cols.size))

    @property
    def T(self):
        """The transpose, as a CSR matrix (each new row's cells in the order of the old rows,
        as scipy's ``X.T.tocsr()`` has them)."""
        n_rows, n_cols = self.shape
        order = np.argsort(self.indices, kind="stable")
        row = np.repeat(np.arange(n_rows), np.diff(self.indptr))
        indptr = np.zeros(n_cols + 1, dtype=np.int64)
        np.cumsum(np.bincount(self.indices, minlength=n_cols), out=indptr[1:])
        return CSR((self.data[order], row[order], indptr), (n_cols, n_rows))

    # -- products (scipy.sparse's kernels) ----------------------------------------------
    def __matmul__(self, other):
        if isinstance(other, CSR) or hasattr(other, "indptr"):
            return self._matmat(CSR.of(other.tocsr()))
        other = np.asarray(other)
        if other.ndim not in (1, 2) or other.shape[0] != self.shape[1]:
            raise ValueError(f"cannot multiply a {self.shape} matrix by an array of shape {other.shape}")
        dtype = np.result_type(self.data.dtype, other.dtype)
        data = self.data.astype(dtype, copy=False)
        other = np.ascontiguousarray(other, dtype=dtype)
        tools = kernels()
        n_rows, n_cols = self.shape
        if other.ndim == 1:
            out = np.zeros(n_rows, dtype=dtype)
            tools.csr_matvec(n_rows, n_cols, self.indptr, self.indices, data, other, out)
        else:
            out = np.zeros((n_rows, other.shape[1]), dtype=dtype)
            tools.csr_matvecs(n_rows, n_cols, other.shape[1], self.indptr, self.indices, data, other.ravel(),
                              out.ravel())
        return out

    def _matmat(self, other):
        if other.shape[0] != self.shape[1]:
            raise ValueError(f"cannot multiply a {self.shape} matrix by a {other.shape} one")
        tools = kernels()
        n_rows, n_cols = self.shape[0], other.shape[1]
        idx = _index_dtype(self.nnz, other.nnz, *self.shape, *other.shape)
        a = (self.indptr.astype(idx, copy=False), self.indices.astype(idx, copy=False))
        b = (other.indptr.astype(idx, copy=False), other.indices.astype(idx, copy=False))
        nnz = int(tools.csr_matmat_maxnnz(n_rows, n_cols, *a, *b))
        idx = _index_dtype(nnz, self.nnz, other.nnz, *self.shape, *other.shape)
        a = (a[0].astype(idx, copy=False), a[1].astype(idx, copy=False))
        b = (b[0].astype(idx, copy=False), b[1].astype(idx, copy=False))
        dtype = np.result_type(self.data.dtype, other.data.dtype)
        indptr, indices, data = np.empty(n_rows + 1, dtype=idx), np.empty(nnz, dtype=idx), np.empty(nnz, dtype=dtype)
        tools.csr_matmat(n_rows, n_cols, *a, self.data.astype(dtype, copy=False), *b,
                         other.data.astype(dtype, copy=False), indptr, indices, data)
        return CSR((data, indices, indptr), (n_rows, n_cols))

    def toarray(self):
        out = np.zeros(self.shape, dtype=self.data.dtype)
        kernels().csr_todense(self.shape[0], self.shape[1], self.indptr, self.indices, self.data, out.ravel())
        return out
