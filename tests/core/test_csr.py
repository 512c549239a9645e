"""The CSR matrices of :mod:`textnb.core.csr` are scipy's: the same arrays and, multiplied by
scipy.sparse's own kernels, the same floats, bit for bit."""

import numpy as np
import pytest
import scipy.sparse as sp

from textnb.core.csr import CSR
from textnb.core.dfe import doc_features


def _scipy(data, indices, indptr, weights_t):
    X = sp.csr_matrix((data, indices, indptr), shape=(len(indptr) - 1, weights_t.shape[0]))
    return np.asarray(X @ weights_t)


def _ours(data, indices, indptr, weights_t):
    return CSR((data, indices, indptr), (len(indptr) - 1, weights_t.shape[0])) @ weights_t


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("family", [None, "complement", "bernoulli"])
def test_the_product_is_scipys_on_a_real_corpus(sms_counts, dtype, family):
    """The SMS collection's counts (and the default model's document features of them)
    times weights of three magnitudes: the same floats as scipy's CSR product, for the
    whole matrix and for slices (one row, none)."""
    X = sp.vstack([sms_counts[0], sms_counts[2]]).tocsr()
    data = X.data.astype(np.float64)
    if family is not None:
        data = doc_features(family, data, X.indptr)
    rng = np.random.default_rng(0)
    weights_t = (rng.standard_normal((X.shape[1], 3)) * [1e-3, 1.0, 1e3] + 5).astype(dtype)
    data = data.astype(dtype)
    for lo, hi in [(0, X.shape[0]), (0, 1000), (17, 40), (5, 6), (9, 9)]:
        a, b = X.indptr[lo], X.indptr[hi]
        args = (data[a:b], X.indices[a:b], X.indptr[lo:hi + 1] - a, weights_t)
        ours, theirs = _ours(*args), _scipy(*args)
        assert ours.dtype == theirs.dtype and ours.shape == theirs.shape == (hi - lo, 3)
        np.testing.assert_array_equal(ours, theirs)


def test_the_product_of_long_rows_empty_rows_and_repeated_columns():
    """Rows far longer than the others, empty rows anywhere, a column repeated in a row
    (summed in its place, as scipy does), and mixed dtypes (the result in both's type); a
    column index outside the weights is refused, not read."""
    rng = np.random.default_rng(1)
    lengths = rng.integers(0, 40, size=300)
    lengths[[3, 50, 299]] = [5000, 0, 2000]
    lengths[100:140] = 0
    indptr = np.concatenate(([0], np.cumsum(lengths)))
    n_cols = 700
    indices = np.concatenate([np.sort(rng.integers(0, n_cols, size=n)) for n in lengths]).astype(np.int32)
    data = rng.random(indptr[-1]) * 10
    weights_t = rng.standard_normal((n_cols, 4)).astype(np.float32)
    ours, theirs = _ours(data, indices, indptr, weights_t), _scipy(data, indices, indptr, weights_t)
    assert ours.dtype == theirs.dtype == np.float64
    np.testing.assert_array_equal(ours, theirs)
    assert not ours[100:140].any() and not ours[50].any()
    np.testing.assert_array_equal(_ours(np.zeros(0), np.zeros(0, dtype=np.int32), np.zeros(1, dtype=np.int64),
                                        weights_t), np.zeros((0, 4)))
    with pytest.raises(ValueError, match="column index outside"):
        _ours(data, indices, indptr, weights_t[:600])


# -- the training's CSR matrices (textnb.core.csr.CSR) ------------------------------------

def _same_matrix(ours, theirs):
    """The same CSR arrays (values, indices, row pointers) and shape as scipy's matrix."""
    theirs = theirs.tocsr()
    assert ours.shape == theirs.shape and ours.nnz == theirs.nnz and ours.dtype == theirs.dtype
    for name in ("data", "indices", "indptr"):
        np.testing.assert_array_equal(getattr(ours, name), getattr(theirs, name), err_msg=name)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_the_training_csr_is_scipys_matrix_on_a_real_corpus(sms_counts, dtype):
    """Every operation the default model's training takes, on the SMS collection's counts:
    the same arrays as scipy.sparse's (rows by slice, indices and mask; columns by indices
    and mask; the transpose; products with dense arrays of both precisions, vectors and
    another CSR matrix; ``toarray``; row sums), so the model is scipy's to the bit."""
    from textnb.core.csr import CSR

    X = sp.vstack([sms_counts[0], sms_counts[2]]).tocsr().astype(dtype)
    C = CSR.of(X)
    rng = np.random.default_rng(0)
    rows = rng.choice(X.shape[0], 900, replace=False)
    mask = rng.random(X.shape[0]) < 0.4
    cols = np.flatnonzero(rng.random(X.shape[1]) < 0.3)
    col_mask = rng.random(X.shape[1]) < 0.5
    for ours, theirs in [(C[rows], X[rows]), (C[mask], X[mask]), (C[17:1500], X[17:1500]), (C[9:9], X[9:9]),
                         (C[:, cols], X[:, cols]), (C[:, col_mask], X[:, col_mask]), (C[rows][:, cols], X[rows][:, cols]),
                         (C.T, X.T.tocsr()), (C.astype(np.float64), X.astype(np.float64)), (C.copy(), X)]:
        _same_matrix(ours, theirs)
    for other in (np.float32, np.float64):
        W = (rng.standard_normal((X.shape[1], 5)) * [1e-3, 1.0, 1e3, 1, 1] + 5).astype(other)
        for ours, theirs in [(C @ W, X @ W), (C @ W[:, 1], X @ W[:, 1]), (C[rows] @ W, X[rows] @ W)]:
            assert ours.dtype == theirs.dtype
            np.testing.assert_array_equal(ours, theirs)
    y = rng.integers(0, 4, X.shape[0])
    weights = rng.random(X.shape[0]).astype(dtype)
    indicator = sp.csr_matrix((weights, (y, np.arange(X.shape[0]))), shape=(4, X.shape[0]))
    _same_matrix(CSR.of(indicator) @ C, indicator @ X)  # the class sums' product
    np.testing.assert_array_equal((CSR.of(indicator) @ C).toarray(), (indicator @ X).toarray())
    Z = X.copy()
    Z.data[::7] = 0  # stored zeros here and there
    Z.data[Z.indptr[5]:Z.indptr[6]] = 0  # a row of stored zeros only
    assert Z.indptr[6] > Z.indptr[5] and CSR.of(Z).empty_rows()[5]
    np.testing.assert_array_equal(CSR.of(Z).empty_rows(), np.asarray(abs(Z).sum(axis=1)).ravel() == 0)
    _same_matrix(C.to_scipy(), X)


def test_the_training_csr_refuses_what_it_cannot_index():
    from textnb.core.csr import CSR

    C = CSR((np.ones(3), np.array([0, 2, 1]), np.array([0, 2, 3])), (2, 3))
    for key in ([0, 2], np.ones(3, dtype=bool), (slice(None), [1, 1]), (slice(None), np.ones(2, dtype=bool))):
        with pytest.raises(IndexError):
            C[key]
    with pytest.raises(ValueError):
        C @ np.ones((2, 2))
    with pytest.raises(ValueError):
        CSR((np.ones(3), np.array([0, 2, 1]), np.array([0, 3])), (2, 3))


def test_the_kernels_load_without_scipy_and_fall_back_to_its_import():
    """:func:`textnb.core.csr.kernels` loads scipy.sparse's compiled kernels in a process
    that imports no scipy (and leaves none in ``sys.modules``, so a later ``import
    scipy.sparse`` works as ever); where scipy's folder cannot be found it imports them the
    usual way, with the same products (each in a process of its own)."""
    import subprocess
    import sys

    code = ("import sys, numpy as np, importlib.util\n"
            "if sys.argv[1] == 'lost':\n"
            "    importlib.util.find_spec = lambda name, *a: None\n"
            "from textnb.core.csr import CSR, kernels\n"
            "k = kernels()\n"
            "print(k.__name__, sorted(m for m in sys.modules if m.startswith('scipy')) or '-')\n"
            "import scipy.sparse as sp\n"
            "X = sp.random(50, 40, density=0.2, format='csr', random_state=0)\n"
            "W = np.arange(80.0).reshape(40, 2)\n"
            "print(np.array_equal(CSR.of(X) @ W, X @ W), sp._sparsetools.csr_matvecs is not None)\n")

    def run(how):
        return subprocess.run([sys.executable, "-c", code, how], capture_output=True, text=True,
                              check=True).stdout.split("\n")

    alone = run("alone")
    assert alone[0] == "scipy.sparse._sparsetools -" and alone[1] == "True True"
    lost = run("lost")
    assert lost[0].startswith("scipy.sparse._sparsetools [") and "'scipy.sparse'" in lost[0]
    assert lost[1] == "True True"
