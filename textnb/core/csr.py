"""Products of CSR matrices held as numpy arrays ``(data, indices, indptr)``: numpy only.

Scoring a file of documents with a linear model is one product ``X @ W.T`` of their
sparse counts and the model's dense weights. scipy.sparse computes it in compiled code,
but importing it costs a prediction process more CPU time (about 0.1 s: its array-API
layer imports numpy's f2py, testing and other lazy submodules) than the product of
a few thousand documents takes. :func:`csr_dot` computes the same floats with numpy.
"""

import numpy as np

__all__ = ["csr_dot"]

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
