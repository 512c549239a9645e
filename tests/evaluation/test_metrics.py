"""The report's metrics (textnb.evaluation.evaluate) give scikit-learn's numbers exactly."""

import numpy as np
import pytest
from sklearn import metrics

from textnb.evaluation.evaluate import classification_report, confusion_matrix, log_loss


def _sklearn_report(y_true, y_pred, classes, proba=None):
    """What classification_report computed with scikit-learn's metrics before (macro-F1 and
    log-loss as scikit-learn's defaults give them: over the labels of the truth and the
    predictions, probabilities clipped at float64 eps only)."""
    p, r, f, s = metrics.precision_recall_fscore_support(y_true, y_pred, labels=classes, zero_division=0)
    report = {
        "n": int(len(y_true)),
        "accuracy": float(np.mean(y_true == y_pred)) if len(y_true) else 0.0,
        "macro_f1": float(metrics.f1_score(y_true, y_pred, average="macro", zero_division=0)),
        "classes": [str(c) for c in classes],
        "per_class": {str(c): {"precision": float(p[i]), "recall": float(r[i]), "f1": float(f[i]),
                               "support": int(s[i])} for i, c in enumerate(classes)},
        "confusion_matrix": metrics.confusion_matrix(y_true, y_pred, labels=classes).tolist(),
    }
    if proba is not None and len(y_true):
        report["log_loss"] = float(metrics.log_loss(y_true, proba, labels=classes))
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
    # two classes in the truth: scikit-learn's ROC AUC and curve, the second of them positive
    # (a third class only predicted, or declared, changes nothing: "two classes with rows")
    truth = [k for k, c in enumerate(classes) if c in set(y.tolist())]
    if len(truth) == 2:
        positive = (y == classes[truth[1]]).astype(int)
        score = proba[:, truth[1]]
        assert auc == curve["auc"] == pytest.approx(metrics.roc_auc_score(positive, score), abs=1e-12)
        fpr, tpr, _ = metrics.roc_curve(positive, score, drop_intermediate=False)
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


# -- what a user trial of the reported figures found (session 16) ---------------------------
def test_macro_f1_averages_the_labels_of_the_truth_and_the_predictions():
    """A class neither in the test part nor predicted pulled macro-F1 down (0.32 against
    scikit-learn's 0.39 on two TREC classes); a true label the model does not know counts
    with F1 0, as in scikit-learn (evaluate lists it among the classes)."""
    from sklearn.metrics import f1_score

    from textnb.evaluation.evaluate import classification_report

    y_true = np.array(["HUM", "HUM", "LOC", "LOC", "LOC", "HUM"])
    y_pred = np.array(["HUM", "DESC", "LOC", "LOC", "HUM", "HUM"])
    report = classification_report(y_true, y_pred, ["ABBR", "DESC", "HUM", "LOC"])
    assert report["macro_f1"] == pytest.approx(f1_score(y_true, y_pred, average="macro"), abs=1e-12)
    assert report["per_class"]["ABBR"]["support"] == 0  # (still listed)
    y_true2 = np.array(["HUM", "other", "LOC", "LOC"])
    y_pred2 = np.array(["HUM", "HUM", "LOC", "LOC"])
    report = classification_report(y_true2, y_pred2, ["HUM", "LOC", "other"])
    assert report["macro_f1"] == pytest.approx(f1_score(y_true2, y_pred2, average="macro"), abs=1e-12)


def test_log_loss_clips_at_float_eps_as_scikit_learn():
    """The report clipped probabilities at 1e-15 first (1.1325 against scikit-learn's 1.1368
    where a true class had probability 1.7e-28)."""
    from sklearn.metrics import log_loss

    from textnb.evaluation.evaluate import classification_report

    y = np.array(["a", "b", "a", "b"])
    proba = np.array([[1 - 1.7e-28, 1.7e-28], [0.2, 0.8], [1.7e-28, 1 - 1.7e-28], [0.6, 0.4]])
    pred = np.array(["a", "b", "b", "a"])
    report = classification_report(y, pred, ["a", "b"], proba)
    assert report["log_loss"] == pytest.approx(log_loss(y, proba, labels=["a", "b"]), rel=1e-12)


def test_repeated_cross_validation_reports_counts_per_repeat():
    """--repeat 3 printed supports and a confusion matrix three times the data."""
    from textnb import MultinomialNB
    from textnb.evaluation.evaluate import cross_validate

    rng = np.random.default_rng(0)
    X = rng.poisson(1.0, size=(60, 8))
    y = np.array(["a"] * 40 + ["b"] * 20)
    X[y == "b", :3] += 2
    report = cross_validate(X, y, MultinomialNB(), cv=5, repeat=3)
    assert {c: v["support"] for c, v in report["per_class"].items()} == {"a": 40, "b": 20}
    matrix = np.asarray(report["confusion_matrix"])
    assert matrix.sum() == pytest.approx(60) and matrix.sum(axis=1).tolist() == pytest.approx([40, 20])
    assert report["accuracy"] == pytest.approx(np.mean(report["accuracy_per_repeat"]))


def test_a_test_part_with_a_class_the_model_never_saw_keeps_its_ece_and_says_why_no_log_loss():
    from textnb import MultinomialNB
    from textnb.evaluation.evaluate import evaluate_split

    rng = np.random.default_rng(1)
    X = rng.poisson(1.0, size=(40, 6))
    y = np.array(["a", "b"] * 20)
    X[y == "b", :2] += 3
    y_test = np.array(["a", "b", "other", "a"])
    report = evaluate_split(X, y, X[:4], y_test, MultinomialNB())
    assert "ece" in report and "log_loss" not in report
    assert "never saw (other)" in report["log_loss_omitted"]


def test_cross_validation_with_a_class_its_fold_never_saw_says_why_no_log_loss():
    """A class of one object is held out by a fold whose model never saw it (probability 0):
    the log-loss was -log(eps) = 36 nats for it, pooled into the mean (2.8 on 13 documents
    whose other 12 had 0.1); now none, as for a test part, with the reason, and the ECE kept."""
    from textnb import MultinomialNB
    from textnb.evaluation.evaluate import cross_validate

    rng = np.random.default_rng(2)
    X = rng.poisson(1.0, size=(31, 6))
    y = np.array(["a", "b"] * 15 + ["lone"])
    X[y == "b", :2] += 3
    report = cross_validate(X, y, MultinomialNB(), cv=3)
    assert "log_loss" not in report and "ece" in report
    assert "never saw (lone)" in report["log_loss_omitted"]
    # every class in every fold's training part: the log-loss as before
    assert "log_loss" in cross_validate(X[:30], y[:30], MultinomialNB(), cv=3)


def test_multilabel_test_report_counts_unseen_test_labels_in_every_figure():
    """Documents whose gold set held a label training never had were 'exactly right' when
    the others were predicted; the Hamming loss and the macro means left the label out."""
    from sklearn import metrics as M

    from textnb.meta.labelsets import test_report

    classes = np.array(["x", "y", "z"])
    D = np.array([[1.0, -1.0, -2.0], [-1.0, 2.0, -1.0], [0.5, 0.5, -3.0], [-1.0, -1.0, 1.0]])
    gold = [["x", "new"], ["y"], ["x", "y"], ["z", "new"]]
    report = test_report(classes, np.array([5, 5, 5]), D, gold, n_train=15)
    labels = ["x", "y", "z", "new"]
    T = np.array([[lab in g for lab in labels] for g in gold])
    P = np.hstack([D > 0, np.zeros((4, 1), dtype=bool)])
    assert report["test_labels_unseen"] == ["new"]
    assert report["subset_accuracy"] == pytest.approx(M.accuracy_score(T, P))
    assert report["hamming_loss"] == pytest.approx(M.hamming_loss(T, P))
    assert report["macro_f1"] == pytest.approx(M.f1_score(T, P, average="macro", zero_division=0))
    assert report["micro_recall"] == pytest.approx(M.recall_score(T, P, average="micro"))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_weighted_report_equals_scikit_learns_weighted_metrics(seed):
    """With sample_weight (instance weights, weighed as Weka's evaluation weighs test rows):
    scikit-learn's figures with the same sample_weight; whole weights give the report of
    the rows repeated as many times."""
    rng = np.random.RandomState(seed)
    classes = ["a", "b"]
    y_true = rng.choice(classes, 60)
    proba = rng.dirichlet([1, 1], 60)
    proba[:5] = proba[5]  # ties of scores
    y_pred = np.asarray(classes)[proba.argmax(axis=1)]
    w = rng.choice([0.0, 0.5, 1.0, 2.0, 3.5], 60)
    report = classification_report(y_true, y_pred, classes, proba, sample_weight=w)
    p, r, f, s = metrics.precision_recall_fscore_support(y_true, y_pred, labels=classes, zero_division=0,
                                                         sample_weight=w)
    assert report["accuracy"] == pytest.approx(metrics.accuracy_score(y_true, y_pred, sample_weight=w))
    np.testing.assert_allclose(report["confusion_matrix"],
                               metrics.confusion_matrix(y_true, y_pred, labels=classes, sample_weight=w))
    for i, c in enumerate(classes):
        assert [report["per_class"][c][k] for k in ("precision", "recall", "f1", "support")] == pytest.approx(
            [p[i], r[i], f[i], s[i]])
    assert report["macro_f1"] == pytest.approx(metrics.f1_score(y_true, y_pred, average="macro", sample_weight=w))
    assert report["log_loss"] == pytest.approx(metrics.log_loss(y_true, proba, labels=classes, sample_weight=w))
    assert report["roc_auc"] == pytest.approx(metrics.roc_auc_score(y_true == "b", proba[:, 1], sample_weight=w))
    whole = rng.randint(0, 4, 60)
    weighted = classification_report(y_true, y_pred, classes, proba, sample_weight=whole)
    rows = np.repeat(np.arange(60), whole)
    copies = classification_report(y_true[rows], y_pred[rows], classes, proba[rows])
    for key in ("accuracy", "macro_f1", "log_loss", "ece", "roc_auc"):
        assert weighted[key] == pytest.approx(copies[key]), key
    assert weighted["confusion_matrix"] == copies["confusion_matrix"]
    assert weighted["reliability"]["count"] == copies["reliability"]["count"]
    assert weighted["roc"]["fpr"] == pytest.approx(copies["roc"]["fpr"])
