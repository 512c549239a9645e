"""The report's metrics (textnb.evaluation.evaluate) give scikit-learn's numbers exactly."""

import numpy as np
import pytest
from sklearn import metrics

from textnb.evaluation.evaluate import classification_report, confusion_matrix, log_loss


def _sklearn_report(y_true, y_pred, classes, proba=None):
    """What classification_report computed with scikit-learn's metrics before."""
    p, r, f, s = metrics.precision_recall_fscore_support(y_true, y_pred, labels=classes, zero_division=0)
    report = {
        "n": int(len(y_true)),
        "accuracy": float(np.mean(y_true == y_pred)) if len(y_true) else 0.0,
        "macro_f1": float(metrics.f1_score(y_true, y_pred, labels=classes, average="macro", zero_division=0)),
        "classes": [str(c) for c in classes],
        "per_class": {str(c): {"precision": float(p[i]), "recall": float(r[i]), "f1": float(f[i]),
                               "support": int(s[i])} for i, c in enumerate(classes)},
        "confusion_matrix": metrics.confusion_matrix(y_true, y_pred, labels=classes).tolist(),
    }
    if proba is not None and len(y_true):
        report["log_loss"] = float(metrics.log_loss(y_true, np.clip(proba, 1e-15, 1), labels=classes))
    return report


def _cases():
    rng = np.random.RandomState(3)
    for n, c in [(10, 2), (50, 3), (333, 5), (2000, 20), (7, 4)]:
        classes = np.array([f"k{i:02d}" for i in range(c)])
        y = classes[rng.randint(c, size=n)]
        pred = np.where(rng.rand(n) < 0.6, y, classes[rng.randint(c, size=n)])
        proba = rng.dirichlet(np.ones(c) * 0.3, size=n)
        proba[rng.rand(n) < 0.1] = np.eye(c)[rng.randint(c)]  # certain (and often wrong) rows: 0 and 1
        yield y, pred, classes, proba
    # a class never predicted, a class never true, every prediction wrong, ints, one row
    classes = np.array(["a", "b", "c"])
    yield np.array(["a", "a", "b"]), np.array(["b", "b", "a"]), classes, np.array([[0, 1, 0], [0.2, 0.8, 0], [1, 0, 0.]])
    yield np.array([1, 2, 1, 2]), np.array([1, 1, 1, 1]), np.array([1, 2, 3]), np.full((4, 3), 1 / 3)
    yield np.array(["x"]), np.array(["y"]), np.array(["x", "y"]), np.array([[1e-300, 1.0]])
    yield np.array(["x", "y"]), np.array(["x", "y"]), np.array(["x", "y"]), np.array([[1 - 1e-17, 1e-17], [0, 1.]])


@pytest.mark.parametrize("case", list(_cases()), ids=lambda c: f"n{len(c[0])}")
def test_report_equals_scikit_learns_metrics(case):
    y, pred, classes, proba = case
    got = classification_report(y, pred, classes, proba)
    want = _sklearn_report(y, pred, classes, proba)
    assert got.pop("ece") is not None
    assert repr(got) == repr(want)  # bit for bit, keys in order


def test_confusion_matrix_leaves_out_labels_not_asked_for_in_the_order_given():
    y, pred = np.array(["a", "b", "c", "b", "z"]), np.array(["b", "b", "z", "a", "a"])
    for labels in (["c", "a", "b"], ["b", "a"], ["z", "q"]):
        assert confusion_matrix(y, pred, labels).tolist() == metrics.confusion_matrix(y, pred, labels=labels).tolist()
    assert confusion_matrix(y, pred, ["c", "a"]).dtype == np.int64


def test_log_loss_refuses_unknown_labels_and_wrong_columns():
    with pytest.raises(ValueError):
        log_loss(np.array(["a", "q"]), np.full((2, 2), 0.5), ["a", "b"])
    with pytest.raises(ValueError):
        log_loss(np.array(["a", "b"]), np.full((2, 3), 0.5), ["a", "b"])
