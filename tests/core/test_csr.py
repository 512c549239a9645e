"""The numpy CSR product (:func:`textnb.core.csr.csr_dot`) is scipy's, bit for bit."""

import numpy as np
import pytest
import scipy.sparse as sp

from textnb.core.csr import csr_dot
from textnb.core.dfe import doc_features


def _scipy(data, indices, indptr, weights_t):
    X = sp.csr_matrix((data, indices, indptr), shape=(len(indptr) - 1, weights_t.shape[0]))
    return np.asarray(X @ weights_t)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("family", [None, "complement", "bernoulli"])
def test_csr_dot_is_scipys_product_on_a_real_corpus(sms_counts, dtype, family):
    """The SMS collection's counts (and the default model's document features of them)
    times weights of three magnitudes: the same floats as scipy's CSR product, for the
    whole matrix and for slices (fewer rows than the vectorised steps need, one row,
    none)."""
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
        ours, theirs = csr_dot(*args), _scipy(*args)
        assert ours.dtype == theirs.dtype and ours.shape == theirs.shape == (hi - lo, 3)
        np.testing.assert_array_equal(ours, theirs)


def test_csr_dot_long_rows_empty_rows_and_repeated_columns():
    """Rows far longer than the others (summed on one by one after the vectorised steps),
    empty rows anywhere, a column repeated in a row (summed in its place, as scipy does),
    and mixed dtypes (the result in both's type)."""
    rng = np.random.default_rng(1)
    lengths = rng.integers(0, 40, size=300)
    lengths[[3, 50, 299]] = [5000, 0, 2000]
    lengths[100:140] = 0
    indptr = np.concatenate(([0], np.cumsum(lengths)))
    n_cols = 700
    indices = np.concatenate([np.sort(rng.integers(0, n_cols, size=n)) for n in lengths]).astype(np.int32)
    data = rng.random(indptr[-1]) * 10
    weights_t = rng.standard_normal((n_cols, 4)).astype(np.float32)
    ours, theirs = csr_dot(data, indices, indptr, weights_t), _scipy(data, indices, indptr, weights_t)
    assert ours.dtype == theirs.dtype == np.float64
    np.testing.assert_array_equal(ours, theirs)
    assert not ours[100:140].any() and not ours[50].any()
    np.testing.assert_array_equal(csr_dot(np.zeros(0), np.zeros(0, dtype=np.int32), np.zeros(1, dtype=np.int64),
                                          weights_t), np.zeros((0, 4)))
