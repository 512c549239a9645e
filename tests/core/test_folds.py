"""textnb.core.folds: the stratified folds are scikit-learn's ``StratifiedKFold(shuffle=True)``."""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from sklearn.model_selection import StratifiedKFold

from textnb.core.folds import kfold, stratified_kfold


def _sklearn(y, k, seed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the least populated class
        return list(StratifiedKFold(n_splits=k, shuffle=True, random_state=seed).split(np.zeros(len(y)), y))


def _assert_same(got, want):
    assert len(got) == len(want)
    for (train, test), (train_w, test_w) in zip(got, want):
        assert_array_equal(train, train_w)
        assert_array_equal(test, test_w)


def _label_vectors():
    rng = np.random.RandomState(7)
    yield np.array(["b", "a"] * 10)
    yield np.array([2, 0, 1, 1, 0, 2, 2, 2, 0, 1, 1, 1])
    yield np.array(["spam"] * 3 + ["ham"] * 40)  # a class smaller than k
    yield np.array(["x"] * 9 + ["y"])  # a class of one
    for n, c in [(30, 2), (57, 3), (200, 7), (1000, 4), (13, 5)]:
        yield rng.randint(c, size=n)
        yield np.array([f"c{v}" for v in rng.zipf(1.6, size=n) % 9], dtype=object)


@pytest.mark.parametrize("k", [2, 3, 5, 10])
@pytest.mark.parametrize("seed", [0, 1, 42, 2**31 - 1])
def test_stratified_kfold_gives_scikit_learns_splits(k, seed):
    for y in _label_vectors():
        counts = np.unique(y, return_counts=True)[1]
        if k > len(y) or np.all(counts < k):
            continue
        _assert_same(stratified_kfold(y, k, seed), _sklearn(y, k, seed))


def test_stratified_kfold_takes_a_random_state_as_scikit_learn_does():
    y = np.random.RandomState(0).randint(3, size=50)
    got = stratified_kfold(y, 4, np.random.RandomState(5))
    _assert_same(got, _sklearn(y, 4, np.random.RandomState(5)))


def test_stratified_kfold_does_not_warn_about_small_classes():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        splits = stratified_kfold(np.array(["a"] * 20 + ["b"] * 2), 10, 0)
    assert sorted(np.concatenate([test for _, test in splits]).tolist()) == list(range(22))


def test_stratified_kfold_refuses_what_scikit_learn_refuses():
    with pytest.raises(ValueError, match="n_splits"):
        stratified_kfold(np.array([0, 1, 0, 1]), 1)
    with pytest.raises(ValueError, match="n_splits"):
        stratified_kfold(np.array([0, 1, 0]), 4)
    with pytest.raises(ValueError, match="each class"):
        stratified_kfold(np.array([0, 1, 0, 1, 2, 2]), 3)


def test_kfold_and_stratified_kfold_cover_every_row_once():
    for splits in (kfold(23, 4, 0), stratified_kfold(np.arange(23) % 3, 4, 0)):
        tests = np.concatenate([test for _, test in splits])
        assert sorted(tests.tolist()) == list(range(23))
        for train, test in splits:
            assert not set(train) & set(test)


def test_stratified_folds_with_groups_keep_a_groups_rows_together_and_the_rest_in_place():
    """``stratified_kfold(..., groups=...)`` (the copies of a multi-label document): a group's
    rows are held out together, in the fold of its first row; a row alone in its group keeps
    the fold it has without groups, so groups of one change nothing."""
    import numpy as np

    from textnb.core.folds import stratified_kfold

    rng = np.random.RandomState(0)
    y = rng.randint(0, 3, 60)
    groups = np.sort(rng.randint(0, 40, 60))
    plain = stratified_kfold(y, 3, 0)
    assert all(np.array_equal(a, c) and np.array_equal(b, d)
               for (a, b), (c, d) in zip(plain, stratified_kfold(y, 3, 0, groups=np.arange(60))))
    fold_of = np.empty(60, int)
    for k, (_, test) in enumerate(plain):
        fold_of[test] = k
    grouped = stratified_kfold(y, 3, 0, groups=groups)
    for k, (train, test) in enumerate(grouped):
        assert not np.intersect1d(groups[train], groups[test]).size
        for row in test:
            first = np.flatnonzero(groups == groups[row])[0]
            assert fold_of[first] == k


def test_class_wide_groups_deal_a_class_held_by_one_group_row_by_row():
    """``class_wide_groups``: a class whose rows (two or more) all share one group (one mbox
    file per class) gets groups of one row each, and is named, in the order of first rows;
    a class spread over several groups keeps them, as does a class of one row; held out
    whole, the one group would leave its fold's model without the class."""
    from textnb.core.folds import class_wide_groups

    y = np.array(["spam", "ham", "ham", "spam", "news", "ham", "spam", "solo", "news"])
    groups = np.array([7, 3, 3, 7, 5, 4, 7, 9, 6])  # spam: one file (7); ham: two (3, 4); news: two; solo: one row
    codes, classes = class_wide_groups(y, groups)
    assert classes == ["spam"]
    spam = np.flatnonzero(y == "spam")
    assert len(set(codes[spam].tolist())) == 3 and not set(codes[spam].tolist()) & set(codes[y != "spam"].tolist())
    rest = np.flatnonzero(y != "spam")  # the other rows grouped as given
    assert all((codes[a] == codes[b]) == (groups[a] == groups[b]) for a in rest for b in rest)
    codes, classes = class_wide_groups(["b", "a", "a", "b"], [1, 2, 2, 1])  # one file per class: both
    assert classes == ["b", "a"] and len(set(codes.tolist())) == 4
    codes, classes = class_wide_groups(["a", "a", "b", "b"], [1, 2, 3, 4])
    assert classes == [] and len(set(codes.tolist())) == 4
    with pytest.raises(ValueError, match="3 values for 4 rows"):
        class_wide_groups(["a", "a", "b", "b"], [1, 2, 3])
    # the folds then hold every class's messages out spread over the folds: each fold learns each class
    y = np.repeat(["spam", "ham"], 30)
    codes, _ = class_wide_groups(y, np.repeat([0, 1], 30))
    for train, test in stratified_kfold(y, 5, 0, groups=codes):
        assert set(y[train]) == {"spam", "ham"} and set(y[test]) == {"spam", "ham"}


def test_spread_groups_leaves_no_class_of_several_groups_in_one_fold_and_ungrouped_folds_alone():
    """``stratified_kfold(..., spread=True)``: whatever the groups, a class whose rows lie in
    two groups or more is never held out whole (its fold's model would not know it), each
    group stays on one side; rows without groups keep scikit-learn's folds."""
    from textnb.core.folds import spread_groups

    rng = np.random.RandomState(1)
    for trial in range(200):
        n = int(rng.randint(12, 60))
        y = rng.randint(0, 3, n)
        y[:6] = [0, 0, 1, 1, 2, 2]
        groups = rng.randint(0, int(rng.randint(4, 12)), n) * 3 + y  # each group within one class
        k = int(rng.randint(2, 5))
        try:
            splits = stratified_kfold(y, k, trial, groups=groups, spread=True)
        except ValueError:
            continue
        for train, test in splits:
            assert not set(groups[train]) & set(groups[test])
            for c in range(3):
                if len(set(groups[y == c])) >= 2:
                    assert (y[train] == c).any(), (trial, c)
    y = rng.randint(0, 3, 50)
    plain = stratified_kfold(y, 4, 0)
    spread = stratified_kfold(y, 4, 0, groups=np.arange(50), spread=True)
    assert all(np.array_equal(a, c) and np.array_equal(b, d) for (a, b), (c, d) in zip(plain, spread))
    # the move: the class's smallest group, to the fold that tests the fewest rows
    folds = spread_groups(np.array([0, 0, 0, 1, 1, 2]), np.array([7, 7, 8, 9, 9, 5]), np.array([0, 0, 0, 1, 1, 2]), 3)
    assert folds.tolist() == [0, 0, 2, 1, 1, 2]
