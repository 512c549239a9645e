"""Instance weights in ``textnb evaluate`` (session 19, trial B): every fold's model is
fitted with its training rows' weights, as ``textnb train`` fits it, and the figures
weigh each test row by its weight, as Weka's evaluation does. (evaluate fitted without
the weights: w10.arff's ``{10}`` row gave accuracy 0.0 where train + predict gave pos
0.8088, Weka's 0.808823529412; a weighted file's CV equalled the unweighted one's.)"""

import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from conftest import cli
from textnb.core.folds import stratified_kfold
from textnb.evaluation.runs import evaluate_table
from textnb.io.tables import read_table
from textnb.meta.registry import ModelOptions, make_table_model

WEKA_JAR = Path("/usr/share/java/weka.jar")

#: the table models, as the command line asks for them (tan / bn / aode discretise, nb does not)
#: (not --calibrate: its own cross-validation splits copies of a row, so it is not the model of
#: the weights; it learns from them, as train fits it)
MODELS = [[], ["--numeric", "mdl"], ["--model", "tan"], ["--model", "aode"], ["--model", "bn", "--structure", "{}"]]

HEADER = ("@relation r\n@attribute a {x,y,z}\n@attribute b {u,v}\n@attribute c numeric\n@attribute d {p,q}\n"
          "@attribute class {pos,neg}\n@data\n")


def _rows(n, seed):
    """Rows (cells, weight) of a table the models learn something from: whole weights 1..4
    (so that a weight is as many copies of its row), some missing cells."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        cls = "pos" if rng.random() < 0.45 else "neg"
        good = cls == "pos"
        a = rng.choice(["x", "y", "z"], p=[0.6, 0.3, 0.1] if good else [0.2, 0.3, 0.5])
        b = rng.choice(["u", "v"], p=[0.7, 0.3] if good else [0.4, 0.6])
        c = f"{rng.normal(2.0 if good else 3.0, 0.8):.2f}"
        d = ("p" if a == "x" else "q") if rng.random() < 0.8 else rng.choice(["p", "q"])
        cells = [a, b, c, d, cls]
        if i % 9 == 4:
            cells[i % 4] = "?"
        rows.append((cells, int(rng.integers(1, 5))))
    return rows


def _write(path, rows, *, weighted):
    """``rows`` as an ARFF file: with ``{w}`` weights, or each row written w times."""
    lines = []
    for cells, w in rows:
        if weighted:
            lines.append(",".join(cells) + (f",{{{w}}}" if w != 1 else ""))
        else:
            lines += [",".join(cells)] * w
    path.write_text(HEADER + "\n".join(lines) + "\n")
    return path


def _structure(tmp_path, options):
    if "--structure" in options:
        (tmp_path / "s.json").write_text('{"parents": {}}')
        options = [str(tmp_path / "s.json") if o == "{}" else o for o in options]
    return options


@pytest.mark.parametrize("options", MODELS, ids=lambda o: " ".join(o) or "nb")
def test_evaluate_on_a_weighted_test_file_equals_the_file_of_copies(tmp_path, options):
    """train/test: a row of weight w counts as w copies of it, in training and in the figures
    (each model as train fits it: its predictions are those of train + predict)."""
    options = _structure(tmp_path, options)
    train, test = _rows(60, 0), _rows(25, 1)
    reports = []
    for weighted in (True, False):
        tr = _write(tmp_path / f"tr{weighted}.arff", train, weighted=weighted)
        te = _write(tmp_path / f"te{weighted}.arff", test, weighted=weighted)
        rc, out, err = cli("evaluate", tr, "--test", te, *options, "--json")
        assert rc == 0, err
        reports.append(json.loads(out))
    weighted, copies = reports
    assert weighted["n"] == 25 and copies["n"] == sum(w for _, w in test)
    np.testing.assert_allclose(weighted["confusion_matrix"], copies["confusion_matrix"])
    for key in ("accuracy", "macro_f1", "log_loss", "ece", "roc_auc"):
        assert weighted[key] == pytest.approx(copies[key], rel=1e-9, abs=1e-12), key
    for c in weighted["classes"]:
        for k in ("precision", "recall", "f1", "support"):
            assert weighted["per_class"][c][k] == pytest.approx(copies["per_class"][c][k], rel=1e-9), (c, k)
    np.testing.assert_allclose(weighted["reliability"]["count"], copies["reliability"]["count"])
    np.testing.assert_allclose(weighted["roc"]["tpr"], copies["roc"]["tpr"])


def test_evaluate_uses_the_weights_of_w10(tmp_path):
    """The trial's w10.arff: its {10} row makes pos the likelier class of 'a' (train + predict:
    0.808824, Weka 0.808823529412); evaluate fitted without it (accuracy 0.0)."""
    (tmp_path / "w10.arff").write_text("@relation w\n@attribute f {a,b}\n@attribute class {pos,neg}\n@data\n"
                                       "a,pos,{10}\na,neg\na,neg\nb,neg\nb,pos\n")
    (tmp_path / "t.arff").write_text("@relation w\n@attribute f {a,b}\n@attribute class {pos,neg}\n@data\na,pos\n")
    rc, out, err = cli("evaluate", tmp_path / "w10.arff", "--test", tmp_path / "t.arff", "--json")
    assert rc == 0, err
    report = json.loads(out)
    assert report["accuracy"] == 1.0
    assert report["log_loss"] == pytest.approx(-np.log(0.808823529412), abs=1e-9)


@pytest.mark.parametrize("options", MODELS, ids=lambda o: " ".join(o) or "nb")
def test_a_weighted_cross_validation_equals_one_of_copies_on_the_same_folds(tmp_path, options):
    """Cross-validation: each fold's model fitted with its rows' weights and each held-out row
    weighted equals the cross-validation of the file of copies whose copies share their row's
    fold (the folds given to evaluate_table, which textnb evaluate runs)."""
    options = _structure(tmp_path, options)
    rows = _rows(90, 2)
    weighted = read_table(_write(tmp_path / "w.arff", rows, weighted=True))
    copies = read_table(_write(tmp_path / "c.arff", rows, weighted=False))
    assert weighted.sample_weight is not None and copies.sample_weight is None
    folds = stratified_kfold(weighted.y, 5, seed=0)
    owner = np.repeat(np.arange(len(rows)), [w for _, w in rows])  # the row of each copy
    copy_folds = [(np.flatnonzero(np.isin(owner, train)), np.flatnonzero(np.isin(owner, test)))
                  for train, test in folds]
    from textnb.cli.commands import build_parser

    args = build_parser().parse_args(["evaluate", "x.arff", *options])
    opts = ModelOptions.from_namespace(args)
    a = evaluate_table(weighted, make_table_model(opts, weighted, kernel=True), cv=folds)
    b = evaluate_table(copies, make_table_model(opts, copies, kernel=True), cv=copy_folds)
    np.testing.assert_allclose(a["confusion_matrix"], b["confusion_matrix"])
    for key in ("accuracy", "macro_f1", "log_loss", "ece", "roc_auc"):
        assert a[key] == pytest.approx(b[key], rel=1e-9, abs=1e-12), key
    # the unweighted figures differ: the weights were used
    plain = read_table(_write(tmp_path / "p.arff", [(cells, 1) for cells, _ in rows], weighted=True))
    c = evaluate_table(plain, make_table_model(opts, plain, kernel=True), cv=folds)
    assert c["log_loss"] != pytest.approx(a["log_loss"])


def test_the_weighted_report_prints_sums_of_weights(tmp_path):
    (tmp_path / "w.arff").write_text("@relation w\n@attribute f {a,b}\n@attribute class {pos,neg}\n@data\n"
                                     + "".join(f"{'a' if i % 3 else 'b'},{'pos' if i % 2 else 'neg'},{{{0.5 + i % 3}}}\n"
                                               for i in range(20)))
    rc, out, err = cli("evaluate", tmp_path / "w.arff", "--cv", "2")
    assert rc == 0, err
    assert "weighs each test object by its instance weight" in out
    assert re.search(r"\b\d+\.5\b", out.split("confusion matrix")[1])


def test_a_test_file_whose_rows_all_weigh_0_is_refused(tmp_path):
    (tmp_path / "w.arff").write_text(HEADER + "".join(",".join(c) + "\n" for c, _ in _rows(20, 3)))
    (tmp_path / "t.arff").write_text(HEADER + "".join(",".join(c) + ",{0}\n" for c, _ in _rows(5, 4)))
    rc, out, err = cli("evaluate", tmp_path / "w.arff", "--test", tmp_path / "t.arff")
    assert rc == 1 and out == "" and err.count("\n") == 1
    assert f"{tmp_path / 't.arff'}: every test row weighs 0" in err


def test_adjust_learns_whole_weights_and_refuses_fractions_in_train_and_evaluate_alike(tmp_path):
    """APNBC learns from whole-number instance weights (its search counts objects), in
    ``train`` and in ``evaluate`` alike; a fractional weight is the same one line from both."""
    data = _write(tmp_path / "w.arff", _rows(40, 5), weighted=True)
    for command in (["train", data, "-o", tmp_path / "m.tnb"], ["evaluate", data, "--cv", "3"]):
        rc, out, err = cli(*command, "--adjust")
        assert rc == 0 and err == "", err
    text = data.read_text().replace(",{2}", ",{2.5}", 1)
    assert text != data.read_text()
    frac = tmp_path / "f.arff"
    frac.write_text(text)
    lines = []
    for command in (["train", frac, "-o", tmp_path / "n.tnb"], ["evaluate", frac, "--cv", "3"]):
        rc, out, err = cli(*command, "--adjust")
        assert rc == 1 and err.count("\n") == 1, err
        lines.append(err)
    assert lines[0] == lines[1] and str(frac) in lines[0]


@pytest.mark.parametrize("options", [["--lazy", "lbr"], ["--lazy", "hlbr"]])
def test_evaluate_refuses_weights_a_model_does_not_learn_as_train_does(tmp_path, options):
    data = _write(tmp_path / "w.arff", _rows(40, 5), weighted=True)
    lines = []
    for command in (["train", data, "-o", tmp_path / "m.tnb"], ["evaluate", data, "--cv", "3"]):
        rc, out, err = cli(*command, *options)
        assert rc == 1 and err.count("\n") == 1, err
        lines.append(err)
    assert lines[0] == lines[1] and "its rows carry instance weights, which" in lines[0]


# --- Weka -------------------------------------------------------------------------

def _weka_fold(classifier, train, test):
    """Weka's weighted figures on ``test``: (correct, total) sums of instance weights, and the
    recall (TP rate) of each class in declared order."""
    out = subprocess.run(["java", "-cp", str(WEKA_JAR), classifier, "-t", str(train), "-T", str(test), "-o", "-i"],
                         capture_output=True, text=True, check=True, timeout=300).stdout
    part = out.split("=== Error on test data ===")[1]
    correct = float(re.search(r"Correctly Classified Instances\s+(\S+)", part).group(1))
    total = float(re.search(r"Total Number of Instances\s+(\S+)", part).group(1))
    detail = part.split("=== Detailed Accuracy By Class ===")[1].split("Weighted Avg.")[0]
    recall = [float(line.split()[0]) for line in detail.splitlines()
              if line.strip() and line.split()[-1] in ("pos", "neg")]
    return correct, total, recall


@pytest.mark.skipif(shutil.which("java") is None or not WEKA_JAR.exists(), reason="needs java and Weka 3.6")
@pytest.mark.parametrize("model, classifier", [([], "weka.classifiers.bayes.NaiveBayes"),
                                               pytest.param(["--model", "aode"], "weka.classifiers.bayes.AODE",
                                                            marks=pytest.mark.slow)])
def test_a_weighted_cross_validation_gives_wekas_figures(tmp_path, model, classifier):
    """A 5-fold cross-validation of a nominal table with fractional instance weights gives
    Weka 3.6's weighted figures, fold by fold (Weka evaluating each fold's training part on
    its test part): the summed weights of the right answers and of all, each class's
    recall; pooled, the accuracy."""
    rng = np.random.default_rng(7)
    rows = [(cells[:2] + [cells[3], cells[4]], w) for cells, w in _rows(80, 6)]
    weights = rng.choice([0.25, 0.5, 1.0, 1.5, 2.5, 3.0], size=len(rows))
    header = ("@relation r\n@attribute a {x,y,z}\n@attribute b {u,v}\n@attribute d {p,q}\n"
              "@attribute class {pos,neg}\n@data\n")

    def write(path, idx):
        path.write_text(header + "".join(",".join(rows[i][0]) + f",{{{weights[i]:g}}}\n" for i in idx))
        return path

    table = read_table(write(tmp_path / "all.arff", range(len(rows))))
    declared = table.class_attribute.values  # Weka's order
    from textnb.cli.commands import build_parser

    opts = ModelOptions.from_namespace(build_parser().parse_args(["evaluate", "x.arff", *model]))
    folds = stratified_kfold(table.y, 5, seed=0)
    right = everything = 0.0
    for k, (train, test) in enumerate(folds):
        correct, total, recall = _weka_fold(classifier, write(tmp_path / f"tr{k}.arff", train),
                                            write(tmp_path / f"te{k}.arff", test))
        fold = evaluate_table(table, make_table_model(opts, table, kernel=True), cv=[(train, test)])
        matrix = np.asarray(fold["confusion_matrix"])
        assert np.trace(matrix) == pytest.approx(correct, abs=1e-4) and matrix.sum() == pytest.approx(total)
        assert [fold["per_class"][c]["recall"] for c in declared] == pytest.approx(recall, abs=5e-4)
        right, everything = right + correct, everything + total
    report = evaluate_table(table, make_table_model(opts, table, kernel=True), cv=folds)
    assert report["accuracy"] == pytest.approx(right / everything, abs=1e-5)
    assert np.asarray(report["confusion_matrix"]).sum() == pytest.approx(weights.sum())


@pytest.mark.filterwarnings("ignore:F-score is ill-defined")
def test_a_class_whose_objects_weigh_0_stays_in_macro_f1_as_in_scikit_learn():
    """Macro-F1 averages over the labels of the truth and the predictions, whatever their
    weight (scikit-learn's ``unique_labels``): a class whose one object weighs 0 was dropped
    from the average, so macro-F1 read 1.0 at weight 0 and 0.67 at weight 1e-6."""
    from sklearn.metrics import f1_score

    from textnb.evaluation.evaluate import classification_report

    y_true, y_pred = ["yes", "yes", "no", "maybe"], ["yes", "yes", "no", "yes"]
    for weights in ([1, 1, 1, 0], [1, 1, 1, 1e-6], [0, 1, 1, 1], [1, 1, 1, 1]):
        report = classification_report(y_true, y_pred, ["maybe", "no", "yes"], sample_weight=weights)
        assert report["macro_f1"] == pytest.approx(f1_score(y_true, y_pred, average="macro", sample_weight=weights),
                                                   abs=1e-12)
