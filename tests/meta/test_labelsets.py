"""The multi-label kernel (textnb.meta.labelsets) against the scikit-learn pieces it replaces."""

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from sklearn.model_selection import KFold
from sklearn.preprocessing import MultiLabelBinarizer

from textnb.meta.labelsets import indicator, kfold, label_indicator, label_support


@pytest.mark.parametrize("n, k, seed", [(10, 2, 0), (11, 3, 0), (7000, 2, 0), (240, 5, 3), (5, 5, 1)])
def test_kfold_gives_scikit_learns_shuffled_kfold_splits(n, k, seed):
    want = list(KFold(n_splits=k, shuffle=True, random_state=seed).split(np.zeros(n)))
    got = kfold(n, k, seed)
    assert len(got) == len(want)
    for (train, test), (train_w, test_w) in zip(got, want):
        assert_array_equal(train, train_w)
        assert_array_equal(test, test_w)


def test_kfold_refuses_too_few_or_too_many_folds():
    with pytest.raises(ValueError, match="n_splits"):
        kfold(10, 1)
    with pytest.raises(ValueError, match="n_splits"):
        kfold(3, 4)


def test_label_indicator_is_multilabel_binarizers_and_indicator_drops_unknown_labels():
    sets = [("wheat", "grain"), (), ("oil",), ("grain", "grain"), (3, "oil")]
    Y, classes = label_indicator(sets)
    mlb = MultiLabelBinarizer()
    want = mlb.fit_transform([tuple(str(x) for x in v) for v in sets])
    assert_array_equal(classes, mlb.classes_)
    assert classes.dtype == mlb.classes_.dtype
    assert_array_equal(Y, want)
    assert Y.dtype == np.int64
    assert_array_equal(indicator(classes, [("oil", "corn"), ()]), [[0, 0, 1, 0], [0, 0, 0, 0]])
    support, constant = label_support(np.array([[1, 0, 1], [1, 0, 0]]))
    assert_array_equal(support, [2, 0, 1])
    assert_array_equal(constant, [1, 0, -1])


def test_pcut_gives_a_document_scored_alone_its_best_labels_under_min_labels():
    """PCut's per-label cuts over a batch of one document leave every decision equal (-1):
    the rank cut of min_labels then landed on 0 and the document got no label (found by a
    user trial: every file given to ``predict`` one by one came back empty)."""
    from textnb.meta.labelsets import decision

    S = np.array([[-3.0, 2.5, 0.5, -1.0]])
    for min_labels, expected in ((1, [1]), (2, [1, 2])):
        D = decision(S, "pcut", None, min_labels, pcut_rate=np.array([0.1, 0.2, 0.1, 0.3]))
        assert np.flatnonzero(D[0] > 0).tolist() == expected
    D = decision(S, "pcut", None, 0, pcut_rate=np.array([0.1, 0.2, 0.1, 0.3]))
    assert not (D > 0).any()  # (without min_labels: PCut's own answer for a batch of one)


@pytest.mark.parametrize("strategy, fbr", [("scut", None), ("scutfbr", 0.0), ("scutfbr", 0.3)])
def test_a_label_of_one_document_is_never_given_to_every_document(strategy, fbr):
    """A label on one training document has the out-of-fold score -inf there (its fold's
    model never saw it): SCut's F1-best cut was then 'every document' (threshold -1e300) and
    the label went to every new document; SCutFBR did the same when ``fbr`` was 0. Now its
    threshold is the top out-of-fold score (SCutFBR.1's fallback), in every strategy; a
    label with no document keeps the threshold no score passes."""
    from textnb.meta.labelsets import decide, decision

    rng = np.random.RandomState(0)
    S = rng.normal(size=(12, 3))
    T = np.zeros((12, 3), dtype=bool)
    T[:6, 0] = True
    T[3, 1] = True  # label 1: one document ...
    S[3, 1] = -np.inf  # ... scored -inf out of fold
    S[:, 2] = -np.inf  # label 2: no document
    thresholds, _ = decide(S, T, strategy, fbr=fbr, min_labels=0)
    assert thresholds[1] == S[:, 1].max()
    assert thresholds[2] == 1e300
    new = rng.normal(size=(50, 3))
    new[:, 2] = -np.inf
    D = decision(new, strategy, thresholds, 0)
    assert (D[:, 1] > 0).sum() == (new[:, 1] > S[:, 1].max()).sum() < 50
    assert not (D[:, 2] > 0).any()


@pytest.mark.parametrize("strategy, fbr", [("scut", None), ("scutfbr", 0.0)])
def test_a_cut_that_takes_every_document_keeps_a_finite_threshold(strategy, fbr):
    """On a few documents (leave-one-out folds) a label's out-of-fold scores can rank its
    positives lowest, or a fold whose training part has the label on every document scores
    the one document without it +inf: SCut's F1-best cut is then 'every document', and the
    threshold was -inf (-1e300), so every new document got the label whatever its text
    (``train`` on 4 documents gave 'dogs' and 'animals' to a finance document). Now the
    threshold is just below the lowest out-of-fold score (the largest threshold with the
    same F1): a new document scored lower than every training document does not get it."""
    from textnb.meta.labelsets import decide, decision

    S = np.array([[-1.17, -1.14], [-0.69, -1.61], [-1.00, -1.57], [np.inf, -0.92]])
    T = np.array([[1, 0], [1, 1], [1, 1], [0, 0]], dtype=bool)
    thresholds, _ = decide(S, T, strategy, fbr=fbr, min_labels=0)
    assert thresholds.tolist() == [np.nextafter(-1.17, -np.inf), np.nextafter(-1.61, -np.inf)]
    assert (decision(S, strategy, thresholds, 0) > 0).all()  # every training document still passes
    assert not (decision(np.array([[-3.2, -2.8]]), strategy, thresholds, 0) > 0).any()
    # a lowest score of -inf (a label whose fold never saw it) keeps the cut below it
    S[:, 1], T[:, 1] = [-np.inf, 0.5, 0.2, 0.1], [1, 1, 1, 0]
    assert decide(S, T, "scut", min_labels=0)[0][1] == -1e300


def test_at_least_one_label_with_tied_or_unseen_scores():
    """``min_labels=1`` promises every document a label. A row whose best scores tie (two
    labels of the same training frequency on a document of unknown words), or whose every
    score is the -1e300 of a label its model never saw (a cross-validation fold whose
    training part has no label: ``evaluate --cv`` reported 0.00 predicted labels per
    document), got none: the cut midway between equal scores, or ``-1e300 - (-1e300 - 1)``
    computed as 0. Now the tie group is cut below, and the row gets its tied best labels."""
    from textnb.meta.labelsets import decision

    S = np.array([[0.5, 0.5, 0.1], [-1e300, -1e300, -1e300], [3.0, 1.0, 2.0]])
    D = decision(S, "scut", np.full(3, 5.0), 1)
    assert (D > 0).tolist() == [[True, True, False], [True, True, True], [True, False, False]]
    assert (decision(np.array([[-np.inf]]), "scut", np.zeros(1), 1) > 0).all()
    assert (decision(S, "rcut", None, 0, rank=1) > 0).sum(axis=1).tolist() == [2, 3, 1]
