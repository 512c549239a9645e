"""CSR matrices held as numpy arrays, multiplied by scipy.sparse's compiled kernels.

Training the default model and scoring a file of documents with a linear model are
products of sparse counts and dense weights. scipy.sparse computes them in compiled code,
but importing it costs a process more CPU time (about 0.1-0.15 s: its array-API layer
imports numpy's f2py, testing and other lazy submodules) than the products of a training
(about 0.1 s on 20 Newsgroups) or of a few thousand documents take. :class:`CSR` holds the
arrays and runs scipy.sparse's own loops on them, loaded without importing scipy
(:func:`kernels`): scipy's floats, with no scipy.sparse import, for the estimators, the
training command and the model-file scorer alike.
"""

import threading

import numpy as np

__all__ = ["CSR", "kernels", "row_pointers"]

#: scipy.sparse's compiled kernels (its ``_sparsetools`` module), loaded once by :func:`kernels`.
_KERNELS = None
#: What :class:`CSR` calls in the kernels (each a loop of scipy.sparse's own products).
_NEEDED = ("csr_matvec", "csr_matvecs", "csr_matmat_maxnnz", "csr_matmat", "csr_todense")
_MAX_INT32 = np.iinfo(np.int32).max
_LOADING = threading.Lock()


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
        with _LOADING:  # (two threads' first products: one load)
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


def row_pointers(lengths):
    """The CSR row pointers (``indptr``, int64) of rows of ``lengths`` stored cells."""
    indptr = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    return indptr


def _index_dtype(*sizes):
    """int32 when every index and size fits in it (as scipy.sparse chooses), else int64."""
    return np.int32 if max(sizes, default=0) <= _MAX_INT32 else np.int64


class CSR:
    """A CSR matrix held as numpy arrays ``(data, indices, indptr)``: what the default model's
    training works on (:mod:`textnb.core.dfe`), without importing scipy.sparse (see
    :func:`kernels`). Built as scipy's is, ``CSR((data, indices, indptr), shape=(n, m))``,
    and read as scipy's is (``data``, ``indices``, ``indptr``, ``shape``, ``nnz``), with the
    few operations the training takes: rows by slice, index array or mask, ``[:, columns]``,
    ``astype``, ``copy``, the transpose ``T``, the rows without a non-zero value
    (``empty_rows``), products with dense arrays and with another CSR (``@``) and ``toarray``. Products run scipy.sparse's own compiled loops (the same floats
    as a scipy CSR matrix's); selecting rows and columns is numpy (no arithmetic). The
    indices of a matrix made here are sorted in each row when its rows' were (a subset of
    them keeps their order), and nothing checks them: the makers give canonical rows
    (:func:`textnb.core.dfe.canonical`). ``to_scipy()`` gives the scipy.sparse matrix."""

    format = "csr"
    __slots__ = ("data", "indices", "indptr", "shape", "_checked")

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
        self._checked = False

    def _check(self):
        """Refuse (ValueError) what the compiled kernels would read out of bounds: a column
        index outside the matrix, or row pointers that do not rise to the stored cells
        (checked once per matrix)."""
        if not self._checked:
            if self.nnz and (int(self.indices.min()) < 0 or int(self.indices.max()) >= self.shape[1]):
                raise ValueError(f"a column index outside the {self.shape[1]} columns of the CSR matrix")
            if self.data.size < self.nnz or self.indices.size < self.nnz or \
                    (self.indptr.size > 1 and bool(np.any(np.diff(self.indptr) < 0))) or int(self.indptr[0]) != 0:
                raise ValueError("CSR row pointers that do not rise from 0 to its stored cells")
            self._checked = True

    @classmethod
    def of(cls, X):
        """``X`` itself when a CSR, else the CSR of a scipy.sparse CSR matrix (its arrays,
        not copied)."""
        return X if isinstance(X, cls) else cls((X.data, X.indices, X.indptr), X.shape)

    def to_scipy(self):
        """The scipy.sparse CSR matrix of these arrays (imports scipy.sparse)."""
        import scipy.sparse as sp

        return sp.csr_matrix((self.data, self.indices, self.indptr), shape=self.shape)

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

    def empty_rows(self):
        """A boolean mask of the rows without a non-zero value (no cell, or only stored zeros:
        a weighting may store them): the documents with no known term."""
        lengths = np.diff(self.indptr)
        if self.data.size == 0 or np.all(self.data != 0):
            return lengths == 0
        row = np.repeat(np.arange(self.shape[0]), lengths)
        return np.bincount(row[self.data != 0], minlength=self.shape[0]) == 0

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
        indptr = row_pointers(lengths)
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
        indptr = row_pointers(np.bincount(row[keep], minlength=self.shape[0]))
        return CSR((self.data[keep], new[keep], indptr), (self.shape[0], cols.size))

    @property
    def T(self):
        """The transpose, as a CSR matrix (each new row's cells in the order of the old rows,
        as scipy's ``X.T.tocsr()`` has them)."""
        n_rows, n_cols = self.shape
        order = np.argsort(self.indices, kind="stable")
        row = np.repeat(np.arange(n_rows), np.diff(self.indptr))
        indptr = row_pointers(np.bincount(self.indices, minlength=n_cols))
        return CSR((self.data[order], row[order], indptr), (n_cols, n_rows))

    # -- products (scipy.sparse's kernels) ----------------------------------------------
    def __matmul__(self, other):
        if isinstance(other, CSR) or hasattr(other, "indptr"):
            return self._matmat(CSR.of(other.tocsr()))
        other = np.asarray(other)
        if other.ndim not in (1, 2) or other.shape[0] != self.shape[1]:
            raise ValueError(f"cannot multiply a {self.shape} matrix by an array of shape {other.shape}")
        self._check()
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
        self._check()
        other._check()
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
        self._check()
        out = np.zeros(self.shape, dtype=self.data.dtype)
        kernels().csr_todense(self.shape[0], self.shape[1], self.indptr, self.indices, self.data, out.ravel())
        return out
