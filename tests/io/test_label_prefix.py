"""One rule for fastText's label prefix: it is taken off a label wherever one is read, a fastText
file's label words and a TSV/CSV label column's labels alike (:func:`textnb.io.corpus.table_label`).
The same corpus as a TSV file whose labels keep the prefix (``__label__a<TAB>text``) and as a
fastText file (``__label__a text``) trains the same classes, and every command scores either
model on either file alike (a model trained on the TSV file predicted ``__label__a``, and
``textnb predict`` on the fastText file, whose true label is ``a``, said accuracy 0)."""

import json

import pytest

import textnb
from conftest import cli
from textnb.io.corpus import table_label

WORDS = {"a": "apple banana cherry grape", "b": "engine wheel motor brake"}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("prefix")
    rows = [(lab, " ".join(WORDS[lab].split()[(i + j) % 4] for j in range(5)))
            for i in range(20) for lab in ("a", "b")]
    (root / "c.tsv").write_text("label\ttext\n" + "".join(f"__label__{lab}\t{t}\n" for lab, t in rows), encoding="utf-8")
    (root / "c.txt").write_text("".join(f"__label__{lab} {t}\n" for lab, t in rows), encoding="utf-8")
    models = {}
    for name in ("c.tsv", "c.txt"):
        models[name] = root / f"{name}.tnb"
        rc, _, err = cli("train", root / name, "-o", models[name])
        assert rc == 0, err
    return root, models


def test_table_label_takes_the_fasttext_prefix_off():
    assert table_label("__label__spam") == "spam"
    assert table_label("spam") == "spam" and table_label("x__label__y") == "x__label__y"
    assert table_label("__label__") == ""  # (the prefix alone: an empty label)


def test_a_tsv_and_a_fasttext_copy_of_one_corpus_train_the_same_classes(corpus):
    root, models = corpus
    assert [list(textnb.load(m).classes_) for m in models.values()] == [["a", "b"], ["a", "b"]]


@pytest.mark.parametrize("model", ["c.tsv", "c.txt"])
@pytest.mark.parametrize("data", ["c.tsv", "c.txt"])
def test_every_command_scores_either_model_on_either_copy_alike(corpus, model, data):
    root, models = corpus
    rc, out, err = cli("predict", models[model], root / data)
    assert rc == 0, err
    assert "accuracy 1.0000 (40 of 40" in out + err
    rc, out, err = cli("evaluate", root / model, "--test", root / data, "--json")
    assert rc == 0, err
    assert json.loads(out)["accuracy"] == 1.0
    rc, out, err = cli("test", models[model], root / data)
    assert rc == 0, err
    assert out.splitlines()[:3] == ["N\t40", "P@1\t1", "R@1\t1"]


def test_a_tsv_label_that_is_the_prefix_alone_is_an_empty_label(tmp_path):
    data = tmp_path / "c.tsv"
    data.write_text("label\ttext\n__label__a\tapple banana\n__label__\tengine wheel\n", encoding="utf-8")
    rc, _, err = cli("train", data, "-o", tmp_path / "m.tnb")
    assert rc == 1 and err == f"textnb: error: {data}:3: empty label\n"
