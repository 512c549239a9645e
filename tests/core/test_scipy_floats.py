"""The numpy sums that replace scipy on the table paths give scipy's floats, bit for bit:
``logsumexp_max_apart`` (``scipy.special.logsumexp``), ``CountTable.add_cells`` and
``GaussianMoments.add_rows`` (the sparse products of ``add`` with ``class_indicator``)."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import logsumexp

from textnb.core.logspace import logsumexp_max_apart
from textnb.core.stats import CountTable, GaussianMoments, class_indicator


def _same_floats(a, b):
    a, b = np.atleast_1d(np.asarray(a, dtype=np.float64)), np.atleast_1d(np.asarray(b, dtype=np.float64))
    nan = np.isnan(a)
    return a.shape == b.shape and np.array_equal(nan, np.isnan(b)) and np.array_equal(
        a[~nan].view(np.int64), b[~nan].view(np.int64))


def test_logsumexp_max_apart_is_scipys_logsumexp():
    rng = np.random.default_rng(0)
    for _ in range(600):
        shape = tuple(rng.integers(1, 7, size=rng.integers(1, 4)))
        a = rng.normal(scale=rng.choice([1.0, 30.0, 700.0]), size=shape)
        if rng.random() < 0.5:
            a = np.round(a)  # ties at the maximum
        special = rng.random()
        if special < 0.3:
            a[rng.random(shape) < 0.4] = -np.inf  # rows of only -inf too
        elif special < 0.35:
            a[rng.random(shape) < 0.1] = np.inf
        elif special < 0.4:
            a[rng.random(shape) < 0.1] = np.nan
        if a.ndim >= 2 and rng.random() < 0.3:
            a = np.swapaxes(a, 0, -1)  # another memory order
        for axis in range(-a.ndim, a.ndim):
            assert _same_floats(logsumexp_max_apart(a, axis=axis), logsumexp(a, axis=axis)), (a, axis)
    assert logsumexp_max_apart(np.zeros((0, 3)), axis=0).shape == (3,)
    assert np.ndim(logsumexp_max_apart([1.0, 2.0])) == 0


@pytest.mark.parametrize("weighted", [False, True])
def test_count_table_add_cells_is_the_sparse_product(weighted):
    rng = np.random.default_rng(1)
    n, n_cols, n_classes = 500, 40, 4
    y_index = rng.integers(0, n_classes, n)
    w = rng.uniform(0, 3, n) if weighted else None
    if weighted:
        w[::17] = 0.0
    # five attributes of 8 columns each, one cell per known row, attribute by attribute
    # (each column's cells in row order, as the tables give them)
    blocks = [np.flatnonzero(rng.random(n) < 0.6) for _ in range(5)]
    rows = np.concatenate(blocks)
    cols = np.concatenate([8 * j + rng.integers(0, 8, r.size) for j, r in enumerate(blocks)])
    values = rng.uniform(0.1, 1.0, rows.size)
    for v in (None, values):
        M = sp.csr_matrix((np.ones(rows.size) if v is None else v, (rows, cols)), shape=(n, n_cols))
        want = CountTable(n_classes, n_cols).add(M, class_indicator(y_index, n_classes, w))
        got = CountTable(n_classes, n_cols).add_cells(rows, cols, v, y_index, w)
        assert _same_floats(got.feature_count, want.feature_count)
        assert _same_floats(got.class_count, want.class_count)


@pytest.mark.parametrize("weighted", [False, True])
def test_gaussian_moments_add_rows_is_the_sparse_product(weighted):
    rng = np.random.default_rng(2)
    n, d, n_classes = 400, 6, 3
    X = rng.normal(5.0, 3.0, (n, d)) * rng.choice([1.0, 1e-3, 1e4], d)
    X[rng.random(X.shape) < 0.1] = np.nan
    y_index = rng.integers(0, n_classes, n)
    w = rng.uniform(0, 2, n) if weighted else None
    want = GaussianMoments(n_classes, d).add(X, class_indicator(y_index, n_classes, w))
    got = GaussianMoments(n_classes, d).add_rows(X, y_index, n_classes, w)
    for a, b in ((got.count, want.count), (got.mean, want.mean), (got.m2, want.m2)):
        assert _same_floats(a, b)
