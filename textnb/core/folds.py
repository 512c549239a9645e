"""Cross-validation folds without scikit-learn: the splits the package's ``cv`` and
``random_state`` parameters stand for.

* :func:`kfold`: scikit-learn's ``KFold(n_splits, shuffle=True, random_state=seed)``;
* :func:`stratified_kfold`: ``StratifiedKFold(n_splits, shuffle=True, random_state=seed)``
  (its ``_make_test_folds``: the same folds, index for index), or with ``groups`` those folds
  with each group's rows kept together (the copies of a document, one per label, in a
  multi-label copy model: :func:`keep_groups_together`; the messages of an mbox file in
  ``textnb evaluate``, except where :func:`class_wide_groups` deals them one by one);
* :func:`given_splits`: the ``(train, test)`` pairs of a ``cv`` that is not a number of folds;
* :func:`take_rows`: a fold's rows of ``X`` (an array, a sparse matrix or a DataFrame).
"""

from numbers import Integral

import numpy as np

from textnb.core.errors import ParameterError, TooFewObjects, short_repr

__all__ = ["calibration_folds", "class_wide_groups", "fewer_folds_note", "given_splits", "groups_note",
           "keep_groups_together", "kfold", "kfold_groups", "random_state", "spread_groups", "stratified_kfold",
           "take_rows"]


def random_state(seed):
    """The ``numpy.random.RandomState`` scikit-learn's ``check_random_state`` gives for
    ``seed``: numpy's global one for None, ``seed`` itself if it is one, else a new one."""
    if seed is None:
        return np.random.mtrand._rand
    if isinstance(seed, np.random.RandomState):
        return seed
    return np.random.RandomState(seed)


def _splits(test_folds, n_splits):
    """``(train, test)`` index arrays of each fold number ``0 .. n_splits - 1``."""
    return [(np.flatnonzero(test_folds != k), np.flatnonzero(test_folds == k)) for k in range(n_splits)]


def _check_n_splits(n, n_splits):
    """scikit-learn's refusals (and words) for ``n_splits`` below 2 or above ``n`` rows."""
    if n_splits < 2:
        raise ValueError(f"k-fold cross-validation requires at least one train/test split by setting n_splits=2 or "
                         f"more, got n_splits={n_splits}.")
    if n_splits > n:
        raise ValueError(f"Cannot have number of splits n_splits={n_splits} greater than the number of samples: "
                         f"n_samples={n}.")


def kfold(n, n_splits, seed=0):
    """The ``(train, test)`` index arrays of ``n`` rows in ``n_splits`` shuffled folds: those of
    scikit-learn's ``KFold(n_splits, shuffle=True, random_state=seed).split`` (the same
    permutation, fold sizes and sorted indices)."""
    _check_n_splits(n, n_splits)
    order = np.arange(n)
    random_state(seed).shuffle(order)
    sizes = np.full(n_splits, n // n_splits, dtype=int)
    sizes[:n % n_splits] += 1
    test_folds = np.empty(n, dtype=np.intp)
    test_folds[order] = np.repeat(np.arange(n_splits), sizes)
    return _splits(test_folds, n_splits)


def calibration_folds(y, cv, seed=0, groups=None):
    """The stratified folds (:func:`stratified_kfold`, ``groups`` kept together) for
    out-of-fold scores of the labels ``y``: ``cv`` of them, fewer when the smallest class
    has fewer objects. A class of one object leaves no out-of-fold score to fit a
    calibration on: a :class:`~textnb.core.errors.TooFewObjects` (a ValueError) naming it."""
    classes, counts = np.unique(np.asarray(y), return_counts=True)
    n_splits = int(min(cv, counts.min()))
    if n_splits < 2:
        small = [c for c, k in zip(classes, counts) if k < 2]
        more = f" (and {len(small) - 1} more)" if len(small) > 1 else ""
        raise TooFewObjects(f"every class needs at least 2 objects for out-of-fold scores (a calibration, "
                            f"--calibrate); class {str(small[0])!r}{more} has 1", label=small[0])
    return stratified_kfold(y, n_splits, seed, groups=groups)


def stratified_kfold(y, n_splits, seed=0, groups=None, spread=False):
    """The ``(train, test)`` index arrays of the labels ``y`` in ``n_splits`` stratified,
    shuffled folds: those of scikit-learn's ``StratifiedKFold(n_splits, shuffle=True,
    random_state=seed).split(X, y)``.

    As there, the classes are numbered in the order they first occur; the rows sorted by
    class are dealt to the folds in turn (fold ``i`` takes sorted rows ``i, i + k, ...``),
    which gives each fold its number of rows of every class; each class's fold numbers are
    then shuffled with one ``RandomState(seed)``, class after class. A class with fewer
    rows than folds is spread over as many folds as it has rows (scikit-learn warns about
    it; this does not: textnb's callers have always silenced that warning).

    ``groups`` (one value per row, None: every row its own group): rows of one group (the
    copies of one document, each under another label) are held out together, in the fold of
    the group's first row (:func:`keep_groups_together`), so that no held-out row is scored
    by a model that learned the same text; a row that is its group's only one keeps its fold.
    ``spread``: then no class with rows in two groups or more has all of them in one fold
    (:func:`spread_groups`: each fold's model learns every such class; ``textnb evaluate``'s
    folds of mbox files).

    Raises
    ------
    ValueError
        ``n_splits`` below 2 or above the number of rows, or above the size of every class.
    """
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be one label per row; got shape {y.shape}")
    n = len(y)
    _check_n_splits(n, n_splits)
    rng = random_state(seed)
    _, first, inverse = np.unique(y, return_index=True, return_inverse=True)
    _, class_perm = np.unique(first, return_inverse=True)
    encoded = class_perm[inverse.reshape(-1)]
    n_classes = len(first)
    counts = np.bincount(encoded, minlength=n_classes)
    if np.all(n_splits > counts):
        raise ValueError(f"n_splits={n_splits} cannot be greater than the number of members in each class.")
    ordered = np.sort(encoded)
    allocation = np.asarray([np.bincount(ordered[i::n_splits], minlength=n_classes) for i in range(n_splits)])
    test_folds = np.empty(n, dtype=np.intp)
    for k in range(n_classes):
        folds_for_class = np.arange(n_splits).repeat(allocation[:, k])
        rng.shuffle(folds_for_class)
        test_folds[encoded == k] = folds_for_class
    if groups is not None:
        return keep_groups_together(test_folds, groups, n_splits, spread=y if spread else None)
    return _splits(test_folds, n_splits)


def keep_groups_together(test_folds, groups, n_splits, spread=None):
    """The ``(train, test)`` index arrays of the rows' fold numbers ``test_folds`` (``0 ..
    n_splits - 1``) once every row of a group in ``groups`` (one value per row) is moved to
    the fold of the group's first row: the copies of a document are never on both sides of
    a split. ``spread`` (the rows' labels, or an indicator matrix: None, not looked at):
    then :func:`spread_groups` moves groups so that every fold learns each class. A fold
    left without a row to test is dropped."""
    groups = np.asarray(groups).reshape(-1)
    if groups.shape != np.shape(test_folds):
        raise ValueError(f"groups has {groups.size} values for {np.size(test_folds)} rows")
    _, first, inverse = np.unique(groups, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    test_folds = np.asarray(test_folds)[first][inverse]
    if spread is not None:
        test_folds = spread_groups(test_folds, inverse, spread, n_splits)
    return [(train, test) for train, test in _splits(test_folds, n_splits) if test.size]


def spread_groups(test_folds, groups, y, n_splits):
    """The rows' fold numbers ``test_folds`` (groups kept together: :func:`keep_groups_together`)
    with groups moved so that no class with rows in two groups or more has all its rows
    in one fold, where that fold's model would never see the class it tests (two mbox files
    of a class that fell in one fold: every message of the class scored wrong). ``y``: one
    label per row, or an indicator matrix (rows x labels). For each such class, in the
    order of its first row, its smallest group (the first of equal ones) moves to the fold
    that tests the fewest rows (the first of equal ones) other than its own; a move can
    gather another class of a multi-label corpus, so the classes are looked at again, up
    to ``n_splits`` rounds. A class is only gathered in one fold by its groups: rows
    dealt one by one (stratified) never are, so a corpus whose groups are all of one row
    keeps scikit-learn's folds."""
    test_folds = np.array(test_folds)
    groups = np.asarray(groups).reshape(-1)
    members = [rows for _, rows in _members(y) if np.unique(groups[rows]).size >= 2]
    for _ in range(int(n_splits)):
        moved = False
        for rows in members:
            held = np.unique(test_folds[rows])
            if held.size > 1:
                continue
            codes, sizes = np.unique(groups[rows], return_counts=True)
            group = codes[np.argmin(sizes)]
            load = np.bincount(test_folds, minlength=n_splits).astype(float)
            load[held[0]] = np.inf
            test_folds[groups == group] = int(np.argmin(load))
            moved = True
        if not moved:
            break
    return test_folds


def _members(y):
    """``[(class, its rows)]`` of the labels ``y`` (in the order of their first rows), or of
    an indicator matrix (rows x labels: ``(column, the rows it marks)``)."""
    y = np.asarray(y)
    if y.ndim == 2:
        return [(j, np.flatnonzero(y[:, j])) for j in range(y.shape[1])]
    _, first, label = np.unique(y, return_index=True, return_inverse=True)
    label = label.reshape(-1)
    return [(y[row], np.flatnonzero(label == label[row])) for row in np.sort(first).tolist()]


def class_wide_groups(y, groups):
    """``(groups, classes)``: ``groups`` (one value per row) with the rows of every class
    whose rows (two or more) all share one group made groups of one row each, and those
    classes, in the order of their first rows (``[]`` when there is none: the groups as
    given, renumbered). ``y`` is one label per row, or an indicator matrix (rows x labels,
    a multi-label corpus's label sets): then each label's rows are those it marks, and the
    labels are named by their column numbers.

    Held out whole, such a group would leave its fold's model without the class, so that
    every one of its rows is scored by a model that never saw its class: a corpus of one
    mbox file per class (``spam.mbox`` and ``ham.mbox``) cross-validated by file scored
    every message wrong. Its rows are dealt to the folds one by one instead, as rows
    without a group are (the caller says so, :func:`groups_note`: a held-out row may then
    be scored by a model that learnt another row of its group). A class with rows in
    several groups keeps them: a fold that holds one out still learns the class from the
    others."""
    y = np.asarray(y)
    groups = np.asarray(groups).reshape(-1)
    if groups.size != y.shape[0]:
        raise ValueError(f"groups has {groups.size} values for {y.shape[0]} rows")
    codes = np.unique(groups, return_inverse=True)[1].reshape(-1).astype(np.int64)
    lifted, whole = np.zeros(codes.size, dtype=bool), []
    for name, rows in _members(y):
        if rows.size >= 2 and bool(np.all(codes[rows] == codes[rows[0]])):
            lifted[rows] = True
            whole.append(name)
    if whole:
        codes[lifted] = (codes.max() + 1) + np.arange(int(lifted.sum()))
    return codes, whole


def groups_note(names, what="class"):
    """The report's ``groups_note`` (``textnb evaluate --cv``) for the classes (``what``:
    ``"label"`` for a multi-label corpus's) ``names`` whose messages the folds dealt one by
    one because one mbox file held all of them (:func:`class_wide_groups`)."""
    shown = ", ".join(repr(str(c)) for c in names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    if len(names) == 1:
        return (f"{what} {shown} has all its messages in one mbox file: dealt to the folds one by one, not by file "
                f"(a fold holding the file out would not learn the {what}), so a held-out message may be scored by "
                f"a model that learnt others of its file")
    return (f"{what}{'es' if what == 'class' else 's'} {shown} each have all their messages in one mbox file: dealt "
            f"to the folds one by one, not by file (a fold holding such a file out would not learn its {what}), so a "
            f"held-out message may be scored by a model that learnt others of its file")


def fewer_folds_note(ran, n_splits):
    """The report's ``folds_note`` when grouped folds ran only ``ran`` of the ``n_splits``
    asked for (a fold left without a row to test is dropped: fewer mbox files than folds),
    or None."""
    if ran >= n_splits:
        return None
    return (f"{ran} of the {n_splits} folds asked for: the messages of an mbox file share a fold, and the files and "
            f"other documents fill only {ran}")


def kfold_groups(n, n_splits, seed=0, groups=None, spread=None):
    """:func:`kfold`'s folds of ``n`` rows with each group's rows (``groups``, one value per
    row; None: each its own) held out together, in the fold of the group's first row, then
    with ``spread`` (labels or an indicator matrix) spread over the folds
    (:func:`keep_groups_together`): a multi-label corpus's folds, which are not stratified."""
    splits = kfold(n, n_splits, seed)
    if groups is None:
        return splits
    test_folds = np.empty(n, dtype=np.intp)
    for k, (_, test) in enumerate(splits):
        test_folds[test] = k
    return keep_groups_together(test_folds, groups, n_splits, spread=spread)


def given_splits(cv, X, y, groups=None):
    """The ``(train, test)`` index arrays of a ``cv`` that is not a number of folds.

    ``cv`` may be what scikit-learn's ``check_cv`` accepts: None or an int (returns None:
    the caller makes its own folds, as documented for it; an int must be at least 2), a
    splitter (any object with ``split``: ``cv.split(X, y)``, or ``cv.split(X, y, groups)``
    when ``groups`` is given) or an iterable of ``(train, test)`` pairs of index arrays
    (read once: a generator is used up by the first ``fit``). The splits are returned as
    given: their test parts need not cover every row, nor cover a row once; what that
    means is documented by each estimator.

    Raises
    ------
    ParameterError
        One line (a ValueError, as scikit-learn's errors for a bad ``cv``): an int below
        2, anything else that is not a splitter or an iterable of pairs, a splitter that
        cannot split these data (e.g. ``GroupKFold`` without groups, more folds than
        rows), indices that are not integers in ``0 .. len(y) - 1``, or no split at all.
    """
    if cv is None:
        return None
    if isinstance(cv, Integral) and not isinstance(cv, (bool, np.bool_)):
        if cv < 2:
            raise ParameterError(f"cv must be at least 2 folds; got {cv}")
        return None
    pairs = None
    if isinstance(cv, (str, bytes, bool, np.bool_)):
        pass
    elif hasattr(cv, "split"):
        try:
            pairs = list(cv.split(X, y) if groups is None else cv.split(X, y, groups))
        except ValueError as exc:
            hint = (" (fit takes no groups: give cv=list(splitter.split(X, y, groups)))"
                    if "groups" in str(exc) else "")
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise ParameterError(f"cv={short_repr(cv)} cannot split these data: {first}{hint}") from None
    elif hasattr(cv, "__iter__"):
        pairs = cv
    if pairs is None:
        raise ParameterError(f"cv must be None, an int, a cross-validation splitter or an iterable of "
                             f"(train, test) index arrays; got {short_repr(cv)}")
    n = len(y)
    out = []
    for pair in pairs:
        try:
            train, test = pair
        except (TypeError, ValueError):
            raise ParameterError(f"cv splits must be (train, test) pairs of index arrays; got {short_repr(pair)}") from None
        train, test = (np.asarray(part).reshape(-1) for part in (train, test))
        for part in (train, test):
            if part.dtype == bool:
                raise ParameterError("cv splits must hold indices, not boolean masks")
            if part.size and (part.dtype.kind not in "iu" or part.min() < 0 or part.max() >= n):
                raise ParameterError(f"cv splits must hold indices in 0..{n - 1}")
        out.append((train.astype(np.intp), test.astype(np.intp)))
    if not out:
        raise ParameterError("cv gave no splits")
    return out


def take_rows(X, rows):
    """The rows ``rows`` (indices) of ``X``: by position for a pandas DataFrame
    (``X.iloc``), else ``X[rows]`` (a numpy array of documents or numbers, a sparse matrix):
    what every wrapper's fold fit takes of its training data."""
    return X.iloc[rows] if hasattr(X, "iloc") else X[rows]
