"""One rule names a model's classes in every output (:func:`textnb.core.labels.label_names`,
re-exported by :mod:`textnb.evaluation.topk`): the ``str`` of each class, in the model's
column order, whatever layer writes them (a kernel's ``describe``, ``textnb inspect``, the
multi-label ``predict_labels``, the mail filters, the fastText facade)."""

import pathlib
import re

import numpy as np

from textnb import AODE, LBR, MultiLabelNB, TabularNB
from textnb.core.labels import label_names
from textnb.evaluation import topk

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "textnb"


def test_label_names_is_the_str_of_each_class_and_one_function():
    model = TabularNB().fit(np.array([[0], [1], [0], [1]]), np.array([3, 10, 3, 10]))
    assert label_names(model) == ["3", "10"]
    assert topk.label_names is label_names  # (re-exported where it used to live)
    assert label_names(object()) == []  # (no classes_: nothing to name)


def test_describe_of_every_table_kernel_names_classes_by_label_names():
    X, y = np.array([[0, 1], [1, 0], [0, 0], [1, 1], [0, 1], [1, 0]]), np.array([True, False] * 3)
    for model in (TabularNB(), AODE(), LBR()):
        fitted = model.fit(X, y)
        assert fitted.describe()["classes"] == label_names(fitted) == ["False", "True"]


def test_multilabel_predict_labels_names_labels_by_label_names():
    X = np.array([[3, 0], [0, 3], [2, 2], [3, 1]])
    Y = np.array([[1, 0], [0, 1], [1, 1], [1, 0]])
    model = MultiLabelNB().fit(X, Y)
    names = label_names(model)
    assert model.predict_labels(X) == [tuple(names[j] for j in np.flatnonzero(row)) for row in model.predict(X)]


def test_no_module_names_classes_by_hand():
    # (the rule is label_names: a hand-written str(c) for c in ...classes_ is a twin of it)
    by_hand = re.compile(r"str\((\w+)\) for \1 in [\w.()\"', \[\]]*classes_")
    found = [f"{p.relative_to(PACKAGE)}:{n}" for p in sorted(PACKAGE.rglob("*.py")) if p.name != "labels.py"
             for n, line in enumerate(p.read_text().splitlines(), 1) if by_hand.search(line)]
    assert found == []
