"""``textnb evaluate`` on a table fits the model's kernel fold by fold without scikit-learn,
with the report of the scikit-learn estimator cross-validated as before."""

import json

import pytest

from tests.conftest import CORPORA, cli_subprocess, cli_subprocesses
from textnb.evaluation.evaluate import cross_validate, unfitted_copy
from textnb.io.tables import read_table
from textnb.semi_naive.aode import AODE
from textnb.semi_naive.aode_kernel import AODEKernel

WEATHER = CORPORA.parent / "corpora" / "weather.nominal.arff"


def _estimator_report(table, name):
    """The report with the estimator (``clone`` per fold) and scikit-learn's splitter and metrics,
    the classes in the model's order (the ARFF header's, ``class_values``, as the command line
    fits it; ``predict`` and ``inspect`` name them so)."""
    import numpy as np
    from sklearn.base import clone
    from sklearn.metrics import confusion_matrix, f1_score, log_loss
    from sklearn.model_selection import StratifiedKFold

    from textnb.naive_bayes.tabular import TabularNB
    from textnb.semi_naive.bayesnet import TAN

    make = {"nb": TabularNB, "aode": AODE, "tan": TAN}[name]
    kw = {"class_name": table.class_attribute.name, "numeric": "mdl"} if name == "tan" else {}
    model = make(attributes=tuple(table.attributes), class_values=tuple(table.classes), **kw)
    y = np.asarray(table.y)
    classes = np.array([c for c in table.classes if c in set(y.tolist())])  # the declared order
    proba = np.zeros((len(y), len(classes)))
    for train, test in StratifiedKFold(3, shuffle=True, random_state=0).split(np.zeros(len(y)), y):
        fitted = clone(model).fit(table.X[train], y[train])
        assert list(fitted.classes_) == list(table.classes)
        proba[np.ix_(test, [list(classes).index(c) for c in fitted.classes_])] = fitted.predict_proba(table.X[test])
    pred = classes[proba.argmax(axis=1)]
    by_name = np.argsort(classes)  # (scikit-learn's log_loss takes the columns of the sorted labels)
    return {"classes": classes.tolist(), "accuracy": float(np.mean(pred == y)),
            "macro_f1": float(f1_score(y, pred, labels=classes, average="macro", zero_division=0)),
            "log_loss": float(log_loss(y, np.clip(proba, 1e-15, 1)[:, by_name], labels=classes[by_name])),
            "confusion_matrix": confusion_matrix(y, pred, labels=classes).tolist()}


@pytest.mark.skipif(not WEATHER.exists(), reason="bundled weather table missing")
@pytest.mark.parametrize("name", ["nb", "aode", "tan"])
def test_cli_evaluate_on_a_table_imports_no_sklearn_and_reports_as_the_estimator(name):
    status, out = cli_subprocess("evaluate", WEATHER, "--model", name, "--cv", "3", "--json")
    assert status.split()[:2] == ["0", "False"]  # (AODE scores with scipy.special)
    report = json.loads(out)
    want = _estimator_report(read_table(WEATHER), name)
    assert {k: report[k] for k in want} == want
    assert report["protocol"] == "3-fold cross-validation x 1" and report["n"] == 14


def test_unfitted_copy_of_a_kernel_has_its_parameters_and_no_fitted_state():
    table = read_table(WEATHER)
    kernel = AODEKernel(attributes=tuple(table.attributes), m=2.0).fit(table.X, table.y)
    fresh = unfitted_copy(kernel)
    assert type(fresh) is AODEKernel and fresh is not kernel
    assert fresh.m == 2.0 and fresh.attributes == kernel.attributes and fresh.attributes is not kernel.attributes
    assert not hasattr(fresh, "classes_")
    report = cross_validate(table.X, table.y, kernel, cv=3)
    assert report == {**cross_validate(table.X, table.y, AODE(attributes=tuple(table.attributes), m=2.0), cv=3),
                      "seconds": report["seconds"]}


def test_a_test_label_longer_than_every_training_label_is_not_cut(tmp_path):
    # the test labels were cast to the training labels' numpy string width: "maybe" became
    # "may" (a class of its own here), so a row of class "maybe" predicted "may" counted as right
    from textnb.evaluation.runs import evaluate_table
    from textnb.naive_bayes.tabular import TabularNB

    head = "@relation r\n@attribute a {p,q}\n@attribute c {yes,no,may%s}\n@data\n"
    train = tmp_path / "train.arff"
    train.write_text(head % "" + "p,may\np,may\np,may\nq,no\nq,no\nq,yes\n")
    test = tmp_path / "test.arff"
    test.write_text(head % ",maybe" + "p,maybe\np,may\nq,no\n")
    table = read_table(train)
    query = read_table(test, like=table.attributes, class_name="c")
    report = evaluate_table(table, TabularNB(attributes=tuple(table.attributes)), test=query)
    assert report["accuracy"] == pytest.approx(2 / 3)
    assert "maybe" in report["classes"] and report["per_class"]["maybe"]["support"] == 1
    assert report["per_class"]["may"]["support"] == 1


def test_a_table_model_given_documents_is_refused_before_scikit_learn_is_imported(tmp_path):
    """``textnb train / evaluate DOCUMENTS --model tan`` (aode, bn, nb) is one line and imports
    no scikit-learn (*was*: the estimators, and scikit-learn, imported for the refusal, about
    0.5-1 s)."""
    for label, text in (("spam", "win cash"), ("ham", "hi mom")):
        (tmp_path / "c" / label).mkdir(parents=True)
        (tmp_path / "c" / label / "1.txt").write_text(text + "\n")
    commands = [(cmd, tmp_path / "c", "--model", kind, *(("-o", tmp_path / "m.tnb") if cmd == "train" else ()))
                for cmd in ("train", "evaluate") for kind in ("tan", "aode", "bn", "nb")]
    for (status, _), command in zip(cli_subprocesses(*commands), commands):
        assert status.split()[:2] == ["1", "False"], command
