"""``textnb evaluate`` names a table's classes in the model's order (``classes_``: the order the
ARFF header declares, as ``predict``, ``inspect`` and Weka name them), its confusion matrix,
per-class figures, ``--json`` ``classes`` and pictures alike; the ROC's positive class is the
model's ``classes_[1]``; documents and CSV / TSV tables keep the sorted labels."""

import json

import numpy as np
import pytest

from tests.conftest import CORPORA, cli
from textnb.evaluation.evaluate import _report_classes, classification_report

WEATHER = CORPORA / "weather.nominal.arff"  # @attribute play {yes, no}: not alphabetical
NUMERIC = CORPORA / "weather.numeric.arff"


def _with_classes(tmp_path, name, declared, relabel=None, source=WEATHER, rows=None):
    """A copy of ``source`` whose class attribute declares ``declared`` (its rows relabelled by
    ``relabel``: {row number: label}), keeping its first ``rows`` data rows when given."""
    lines = source.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip().lower() == "@data")
    head = [f"@attribute play {{{', '.join(declared)}}}" if line.startswith("@attribute play") else line
            for line in lines[:at + 1]]
    data = [line for line in lines[at + 1:] if line.strip() and not line.startswith("%")]
    for i, label in (relabel or {}).items():
        data[i] = data[i].rsplit(",", 1)[0] + "," + label
    path = tmp_path / name
    path.write_text("\n".join(head + data[:rows]) + "\n")
    return path


def _json(*args):
    """The ``--json`` output of a command: one object, or one per line (predict)."""
    code, out, err = cli(*args, "--json")
    assert code == 0, err
    objects = [json.loads(line) for line in out.splitlines()]
    return objects if args[0] == "predict" else objects[0]


def test_evaluate_names_the_classes_as_predict_and_inspect(tmp_path):
    # three classes declared in neither sorted nor reversed order; the report's matrix is the
    # one tallied from predict's answers, rows and columns in the header's order
    path = _with_classes(tmp_path, "w3.arff", ["yes", "no", "maybe"], relabel={2: "maybe", 6: "maybe", 11: "maybe"})
    model = tmp_path / "w3.tnb"
    assert cli("train", path, "-o", model)[0] == 0
    declared = _json("inspect", model)["classes"]
    assert declared == ["yes", "no", "maybe"]
    predicted = _json("predict", model, path, "--proba")
    assert [list(p["proba"]) for p in predicted] == [declared] * 14
    report = _json("evaluate", path, "--test", path)
    assert report["classes"] == declared and list(report["per_class"]) == declared
    truth = [line.rsplit(",", 1)[1] for line in path.read_text().split("@data\n")[1].splitlines() if line]
    tally = np.zeros((3, 3), dtype=int)
    for t, p in zip(truth, predicted):
        tally[declared.index(t), declared.index(p["label"])] += 1
    assert report["confusion_matrix"] == tally.tolist()
    # the text report too: its rows in the header's order
    code, out, _ = cli("evaluate", path, "--test", path)
    rows = [line.split()[0] for line in out.splitlines() if line.split() and line.split()[0] in declared]
    assert rows == declared * 2  # the per-class table, then the confusion matrix


def test_cross_validation_follows_the_header_and_the_figures_do_not_move(tmp_path):
    # the same rows under {yes, no} and {no, yes}: each report in its header's order, the
    # ROC's positive class the model's second, every figure the same (to the last bit)
    reordered = _with_classes(tmp_path, "no_yes.arff", ["no", "yes"])
    a, b = _json("evaluate", WEATHER, "--cv", "3"), _json("evaluate", reordered, "--cv", "3")
    assert a["classes"] == ["yes", "no"] and b["classes"] == ["no", "yes"]
    assert a["roc"]["positive"] == "no" and b["roc"]["positive"] == "yes"
    assert a["confusion_matrix"] == [row[::-1] for row in b["confusion_matrix"][::-1]]
    assert set(a) == set(b)
    for key in ("accuracy", "macro_f1", "log_loss", "ece", "reliability", "per_class", "accuracy_per_repeat"):
        assert a[key] == b[key], key
    assert a["roc_auc"] == pytest.approx(b["roc_auc"], abs=1e-12)
    repeated = _json("evaluate", WEATHER, "--cv", "3", "--repeat", "2")
    assert repeated["classes"] == ["yes", "no"] and list(repeated["per_class"]) == ["yes", "no"]


def test_a_tie_goes_to_the_first_class_of_the_model_as_predict_gives_it(tmp_path):
    # a model calibrated on 9 rows gives three of the 14 rows 0.5 / 0.5: predict answers the
    # header's first class (yes); evaluate counted them for the first sorted one (no) before
    train = _with_classes(tmp_path, "train.arff", ["yes", "no"], source=NUMERIC, rows=9)
    test = _with_classes(tmp_path, "test.arff", ["yes", "no"], source=NUMERIC)
    model = tmp_path / "c.tnb"
    assert cli("train", train, "--calibrate", "isotonic", "-o", model)[0] == 0
    predicted = _json("predict", model, test, "--proba")
    assert sum(p["proba"]["yes"] == p["proba"]["no"] for p in predicted) > 0  # (the ties)
    truth = [line.rsplit(",", 1)[1] for line in test.read_text().split("@data\n")[1].splitlines() if line]
    report = _json("evaluate", train, "--test", test, "--calibrate", "isotonic")
    assert report["accuracy"] == np.mean([p["label"] == t for p, t in zip(predicted, truth)])
    assert report["confusion_matrix"][1] == [sum(p["label"] == c for p, t in zip(predicted, truth) if t == "no")
                                             for c in ("yes", "no")]


def test_the_pictures_name_the_classes_in_the_models_order(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    import textnb.evaluation.plots as plots

    drawn = []
    draw = plots._draw_confusion_matrix
    monkeypatch.setattr(plots, "_draw_confusion_matrix",
                        lambda fig, ax, matrix, classes, repeats=1: drawn.append(list(classes)) or
                        draw(fig, ax, matrix, classes, repeats))
    code, out, err = cli("evaluate", WEATHER, "--cv", "3", "--plot", tmp_path / "w.png")
    assert code == 0, err
    assert drawn == [["yes", "no"]] and "ROC AUC" in out and "(positive class: no)" in out


def test_report_classes_sorted_models_keep_the_sorted_labels():
    data = np.array(["a", "b", "c", "new"])
    # scikit-learn's classes_ (every text model, a CSV table): sorted, an unseen test class in its place
    assert _report_classes(data, [np.array(["a", "c", "new"]), np.array(["a", "b", "c"])]).tolist() == [
        "a", "b", "c", "new"]
    # a declared order: the data's classes in it (a declared class without rows left out)
    assert _report_classes(np.array(["maybe", "no", "yes"]), [np.array(["yes", "unused", "no", "maybe"])] * 3
                           ).tolist() == ["yes", "no", "maybe"]


def test_the_report_of_a_declared_order_is_the_sorted_one_permuted():
    y = np.array(["yes", "no", "no", "yes", "maybe", "yes"])
    pred = np.array(["yes", "no", "yes", "yes", "no", "maybe"])
    proba = np.array([[.6, .3, .1], [.2, .7, .1], [.5, .4, .1], [.8, .1, .1], [.3, .6, .1], [.3, .3, .4]])
    declared = ["yes", "no", "maybe"]  # proba's columns
    by_name = [2, 1, 0]  # maybe, no, yes
    a = classification_report(y, pred, declared, proba)
    b = classification_report(y, pred, [declared[i] for i in by_name], proba[:, by_name])
    assert a["classes"] == declared and b["classes"] == ["maybe", "no", "yes"]
    assert np.array(a["confusion_matrix"])[np.ix_(by_name, by_name)].tolist() == b["confusion_matrix"]
    for key in ("accuracy", "macro_f1", "log_loss", "ece", "reliability", "per_class"):
        assert a[key] == b[key], key


def test_train_summary_names_the_classes_in_the_declared_order(tmp_path):
    """``textnb train`` of an ARFF table: the per-class counts in the header's order, as
    predict, inspect and evaluate name them (before: sorted, 'no 3, yes 4')."""
    from conftest import cli

    path = tmp_path / "w.arff"
    path.write_text("@relation w\n@attribute outlook {sunny,overcast,rain}\n@attribute play {yes,no}\n@data\n"
                    "sunny,no\nsunny,no\novercast,yes\nrain,yes\nrain,yes\nrain,no\novercast,yes\n")
    rc, out, _ = cli("train", path, "-o", tmp_path / "w.tnb")
    assert rc == 0 and out.splitlines()[0].endswith(": yes 4, no 3")
    rc, out, _ = cli("train", path, "-o", tmp_path / "w.tnb", "--json")
    assert list(json.loads(out)["per_class"]) == ["yes", "no"]


def test_a_declared_class_without_rows_before_the_second_is_not_the_roc_positive(tmp_path, capsys):
    """``@attribute play {yes, maybe, no}`` with no ``maybe`` row: the model's ``classes_[1]``
    is ``maybe``, which has no row; the report is two-class (yes, no: the rows' classes in the
    declared order) and its ROC's positive is ``no``, the second of them, in the text, the
    ``--json`` and ``--help`` alike (before: the sorted labels, ``yes`` positive)."""
    path = _with_classes(tmp_path, "w3.arff", ["yes", "maybe", "no"])
    model = tmp_path / "w3.tnb"
    assert cli("train", path, "-o", model)[0] == 0
    assert _json("inspect", model)["classes"] == ["yes", "maybe", "no"]
    for protocol in (["--cv", "3"], ["--test", path]):
        report = _json("evaluate", path, *protocol)
        assert report["classes"] == ["yes", "no"] and report["roc"]["positive"] == "no"
        code, out, _ = cli("evaluate", path, *protocol)
        assert code == 0 and "(positive class: no)" in out
    code, out, _ = cli("evaluate", "--help")
    assert code == 0
    assert "second of the classes with rows" in " ".join((out + capsys.readouterr().out).split())


def test_a_declared_class_without_rows_that_wins_a_row_keeps_the_roc(tmp_path):
    """``@attribute play {yes, maybe, no}``, no ``maybe`` row: a test row whose values no
    training row has is won by ``maybe`` (its uniform estimates beat the seen classes'
    smoothed ones). The truth still has two classes, so the report keeps its ROC, ``no``
    positive, as the same data without that row and as the help says ("for two classes
    with rows") (before: the predicted ``maybe`` made the report three-class and ``roc_auc``,
    ``roc`` and the picture's ROC panel disappeared)."""
    head = ("@relation w\n" + "".join(f"@attribute a{i} {{x,y,z}}\n" for i in range(6))
            + "@attribute play {yes,maybe,no}\n@data\n")
    train = tmp_path / "train.arff"
    train.write_text(head + "x,x,x,x,x,x,yes\nx,y,x,x,y,x,yes\nx,x,y,x,x,y,yes\nx,x,x,y,x,x,yes\n"
                     "y,y,y,y,y,y,no\ny,x,y,y,x,y,no\ny,y,x,y,y,y,no\n")
    test = tmp_path / "test.arff"
    test.write_text(head + "x,x,x,x,x,y,yes\ny,y,y,y,x,y,no\nx,y,x,x,x,x,no\nz,z,z,z,z,z,yes\n")
    report = _json("evaluate", train, "--test", test)
    assert report["classes"] == ["yes", "maybe", "no"]
    assert report["confusion_matrix"][0][1] == 1  # the z row: predicted maybe
    assert report["roc"]["positive"] == "no"
    proba = [row["proba"] for row in _json("predict", *_trained(tmp_path, train), test, "--proba")]
    score = [p["no"] for p in proba]  # rows: yes, no, no, yes
    pairs = [(score[i] > score[j]) + 0.5 * (score[i] == score[j]) for i in (1, 2) for j in (0, 3)]
    assert report["roc_auc"] == pytest.approx(sum(pairs) / 4)
    code, out, _ = cli("evaluate", train, "--test", test)
    assert code == 0 and "(positive class: no)" in out


def _trained(tmp_path, path):
    model = tmp_path / "m.tnb"
    code, _, err = cli("train", path, "-o", model)
    assert code == 0, err
    return (model,)


def test_the_roc_of_a_two_class_truth_ignores_a_class_only_predicted():
    """``classification_report`` with a third class that only the predictions have: the ROC of
    the truth's two classes, the second of them (in the order of ``classes``) positive."""
    y_true = np.array(["a", "b", "b", "a"])
    y_pred = np.array(["a", "b", "c", "a"])
    proba = np.array([[0.8, 0.1, 0.1], [0.2, 0.7, 0.1], [0.1, 0.3, 0.6], [0.6, 0.35, 0.05]])
    report = classification_report(y_true, y_pred, ["a", "b", "c"], proba)
    assert report["roc"]["positive"] == "b" and report["roc_auc"] == pytest.approx(0.75)
    report = classification_report(y_true, y_pred, ["a", "c", "b"], proba[:, [0, 2, 1]])
    assert report["roc"]["positive"] == "b"
    assert "roc" not in classification_report(np.array(["a", "b", "c"]), np.array(["a", "b", "c"]),
                                              ["a", "b", "c"], np.eye(3))
