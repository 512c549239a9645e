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


#: a Windows-1252 / Latin-1 text: 14 bytes in its file hold "ééééé abcdef x", 14 UTF-8 bytes "ééééé abc"
LATIN1 = {"spam": "ééééé abcdef xyzw", "ham": "ààààà ghijkl mnop"}


def _latin1_corpus(root):
    """The two LATIN1 texts as a class folder (Latin-1 files), a TSV and a JSON Lines file
    (their rows)."""
    for label, text in LATIN1.items():
        (root / "folder" / label).mkdir(parents=True)
        (root / "folder" / label / "1.txt").write_bytes(text.encode("latin-1"))
    (root / "c.tsv").write_bytes(b"label\ttext\n" + b"".join(f"{k}\t{v}\n".encode("latin-1") for k, v in LATIN1.items()))
    (root / "c.jsonl").write_text("".join(json.dumps({"label": k, "text": v}) + "\n" for k, v in LATIN1.items()),
                                  encoding="utf-8")
    return [root / "folder", root / "c.tsv", root / "c.jsonl"]


def test_a_latin1_file_is_cut_where_its_text_is_cut_as_a_row_or_a_str_on_every_path(tmp_path):
    """``--max-bytes`` counts the UTF-8 bytes of a document's text whatever holds it: a
    Latin-1 file's first 14 bytes decode to 14 characters, 19 UTF-8 bytes, cut to the 14 of
    the same text given as a row or a str (*was*: training kept ``abcdef`` from the file,
    ``abc`` from the row, and ``predict`` cut the file's text a second time, so it scored
    less than training had learnt and less than the library scored)."""
    vocabularies = []
    for source in _latin1_corpus(tmp_path):
        model = tmp_path / f"{source.name}.tnb"
        rc, _, err = cli("train", source, "--max-bytes", "14", "--model", "multinomial", "-o", model)
        assert rc == 0, err
        vocabularies.append(sorted(textnb.load(model).vectorizer_.vocabulary_))
    lib = textnb.TextClassifier(max_bytes=14, model=textnb.MultinomialNB()).fit(list(LATIN1.values()), list(LATIN1))
    assert vocabularies == [sorted(lib.vectorizer_.vocabulary_)] * 3 == [["abc", "ghi", "ààààà", "ééééé"]] * 3
    model = tmp_path / "folder.tnb"
    doc = tmp_path / "folder" / "spam" / "1.txt"
    rc, out, err = cli("predict", model, doc, "--json", "--proba")
    assert rc == 0, err
    odds = json.loads(out)["log_odds"]["spam"]
    assert odds == pytest.approx(2 * np.log(2))  # (abc and ééééé: each twice as likely in spam)
    loaded = textnb.load(model)
    for given in (doc, doc.read_bytes(), LATIN1["spam"]):
        assert loaded.predict_log_odds([given])[0][list(loaded.classes_).index("spam")] == pytest.approx(odds)
    served = classify_texts(_load_text_model(str(model)), {"texts": [LATIN1["spam"]]})
    assert served["log_odds"][0][served["classes"].index("spam")] == pytest.approx(odds)
    rc, out, err = run_spamfilter(["-m", model, "--batch", doc])  # (a model of plain documents: predict's text)
    assert rc == 0, err
    assert float(out.split("\t")[2]) == pytest.approx(odds)
    rc, out, err = run_topicfilter(["-m", model, "-o", tmp_path / "routed", "--uncalibrated", doc])
    assert rc == 0, err
    assert float(out.split("\t")[2]) == pytest.approx(1 / (1 + np.exp(-odds)), abs=1e-3)

