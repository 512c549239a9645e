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
    ece, rel = got.pop("ece"), got.pop("reliability")
    curve, auc = got.pop("roc", None), got.pop("roc_auc", None)
    assert repr(got) == repr(want)  # bit for bit, keys in order
    # the reliability bins: every document once; the ECE is their weighted gap
    n = len(y)
    assert sum(rel["count"]) == n and len(rel["count"]) == rel["bins"]
    gaps = [k * abs(a - c) for k, a, c in zip(rel["count"], rel["accuracy"], rel["confidence"]) if k]
    assert ece == pytest.approx(sum(gaps) / n, abs=1e-12)
    for k, (count, conf, acc) in enumerate(zip(rel["count"], rel["confidence"], rel["accuracy"])):
        if count:  # a bin's documents have confidences in it (up to the rounding of its edges)
            assert k / rel["bins"] - 1e-9 <= conf <= (k + 1) / rel["bins"] + 1e-9 and 0 <= acc <= 1
        else:
            assert conf is None and acc is None
    # two classes (both present): scikit-learn's ROC AUC and curve, the second class positive
    if len(classes) == 2 and len(set(y.tolist())) == 2:
        positive = (y == classes[1]).astype(int)
        assert auc == curve["auc"] == pytest.approx(metrics.roc_auc_score(positive, proba[:, 1]), abs=1e-12)
        fpr, tpr, _ = metrics.roc_curve(positive, proba[:, 1], drop_intermediate=False)
        assert curve["fpr"] == pytest.approx(fpr.tolist()) and curve["tpr"] == pytest.approx(tpr.tolist())
    else:
        assert curve is None and auc is None


def test_roc_of_many_scores_is_thinned_to_its_ends_and_keeps_the_area():
    from textnb.evaluation.evaluate import ROC_POINTS, roc

    rng = np.random.RandomState(0)
    y = rng.randint(2, size=5000)
    score = rng.rand(5000) + 0.3 * y
    score[:400] = np.round(score[:400], 1)  # ties
    curve = roc(y, score, 1)
    assert curve["auc"] == pytest.approx(metrics.roc_auc_score(y, score), abs=1e-12)
    assert len(curve["fpr"]) <= ROC_POINTS and curve["fpr"][0] == curve["tpr"][0] == 0.0
    assert curve["fpr"][-1] == curve["tpr"][-1] == 1.0
    assert curve["fpr"] == sorted(curve["fpr"]) and curve["tpr"] == sorted(curve["tpr"])
    assert roc(np.zeros(5), rng.rand(5), 1) is None


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
