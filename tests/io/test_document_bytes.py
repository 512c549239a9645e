"""Where a document is cut: one rule (:func:`textnb.io.corpus.model_max_bytes`: ``--max-bytes``,
else where the model's training cut a document, else 16 MiB) for ``textnb predict``, ``textnb
test``, ``textnb serve``, ``topicfilter``, ``spamfilter`` and :mod:`textnb.fasttext`. Each is fed
the same texts, whose first bytes (inside the model's ``train --max-bytes``) say one label and
the rest another: every path answers as the cut text says."""

import json

import numpy as np
import pytest

import textnb
from conftest import cli, run_spamfilter, run_topicfilter
from textnb.apps.serve import _load_text_model, classify_texts
from textnb.core.wrapping import store_max_bytes
from textnb.fasttext import load_model
from textnb.io.corpus import MAX_DOCUMENT_BYTES, model_max_bytes

LIMIT = 20
FRUIT, CAR = "apple pear plum", "motor wheel brake"
#: its first LIMIT bytes are fruit, the rest cars: cut, it is x and z; whole, it would be y
MIXED = "apple pear plum " + "motor wheel brake " * 30


def test_model_max_bytes_is_given_else_trained_else_the_default():
    clf = textnb.TextClassifier(max_bytes=100).fit(["alpha beta", "gamma delta"], ["x", "y"])
    assert model_max_bytes(clf) == 100 and model_max_bytes(clf, 7) == 7
    pipe = textnb.TextClassifier().fit(["alpha beta", "gamma delta"], ["x", "y"])
    pipe.max_bytes = None
    assert model_max_bytes(pipe) == MAX_DOCUMENT_BYTES
    from sklearn.pipeline import Pipeline

    multi = Pipeline([("vectorizer", textnb.Vectorizer().fit(["alpha beta", "gamma delta"])), ("model", textnb.MultiLabelNB())])
    assert model_max_bytes(multi) == MAX_DOCUMENT_BYTES
    assert model_max_bytes(store_max_bytes(multi, 33)) == 33


@pytest.fixture(scope="module")
def multilabel_model(tmp_path_factory):
    root = tmp_path_factory.mktemp("cut")
    lines = []
    for i in range(20):
        lines.append(f"__label__x __label__z {FRUIT} {FRUIT} {i}")
        lines.append(f"__label__y {CAR} {CAR} {i}")
    (root / "train.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    rc, _, err = cli("train", root / "train.txt", "--max-bytes", str(LIMIT), "-o", root / "m.tnb")
    assert rc == 0, err
    return root, root / "m.tnb"


def test_a_multilabel_model_cuts_where_training_cut_on_every_path(multilabel_model):
    root, model = multilabel_model
    assert model_max_bytes(textnb.load(model)) == LIMIT  # (its file loads: the vectorizer keeps the limit)
    (root / "q.txt").write_text(f"__label__x {MIXED}\n", encoding="utf-8")
    rc, out, err = cli("predict", model, "--lines", root / "q.txt", "--top", "1")
    assert rc == 0, err
    predicted = out.split("\t")[1].split()[0]
    assert predicted in ("x", "z")
    served = classify_texts(_load_text_model(str(model)), {"texts": [MIXED]})
    assert served["labels"] == [["x", "z"]]
    fasttext = load_model(str(model))
    labels, _ = fasttext.predict(MIXED, k=1)
    assert labels == ("__label__" + predicted,)
    rc, out, err = cli("test", model, root / "q.txt")
    assert rc == 0, err
    n, p, r = fasttext.test(str(root / "q.txt"))
    assert n == 1 and ("P@1\t%g" % p) in out and ("R@1\t%g" % r) in out


def test_a_text_model_cuts_where_training_cut_on_every_path(tmp_path):
    for label, words in (("spam", "casino cheap prize winner money"), ("ham", "meeting lunch agenda project report")):
        (tmp_path / "train" / label).mkdir(parents=True)
        for i in range(6):
            (tmp_path / "train" / label / f"{i}.txt").write_text(f"{words} {i}\n", encoding="utf-8")
    model = tmp_path / "m.tnb"
    rc, _, err = cli("train", tmp_path / "train", "--max-bytes", str(LIMIT), "-o", model)
    assert rc == 0, err
    text = "casino cheap prize " + "meeting lunch agenda " * 30
    doc = tmp_path / "doc.txt"
    doc.write_text(text + "\n", encoding="utf-8")
    rc, out, err = cli("predict", model, doc, "--json", "--proba")
    assert rc == 0, err
    predicted = json.loads(out)
    assert predicted["label"] == "spam"
    served = classify_texts(_load_text_model(str(model)), {"texts": [text]})
    assert served["labels"] == ["spam"]
    odds = served["log_odds"][0][served["classes"].index("spam")]
    assert odds == pytest.approx(predicted["log_odds"]["spam"], abs=1e-9)
    assert load_model(str(model)).predict(text)[0] == ("__label__spam",)
    rc, out, err = run_topicfilter(["-m", model, "-o", tmp_path / "routed", "--uncalibrated", doc])
    assert rc == 0, err
    assert out.split("\t")[1] == "spam"
    rc, out, err = run_spamfilter(["-m", model, "--batch", doc])
    assert rc == 0, err
    assert float(out.split("\t")[2]) == pytest.approx(odds, abs=1e-9)
    assert np.isfinite(odds) and odds > 0
