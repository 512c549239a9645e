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


def _trained_vocabularies(tmp_path, sources):
    """The sorted vocabulary of ``textnb train SOURCE --max-bytes 14 --model multinomial`` of each source."""
    vocabularies = []
    for source in sources:
        model = tmp_path / f"{source.name}.tnb"
        rc, _, err = cli("train", source, "--max-bytes", "14", "--model", "multinomial", "-o", model)
        assert rc == 0, err
        vocabularies.append(sorted(textnb.load(model).vectorizer_.vocabulary_))
    return vocabularies


def _same_odds_from_the_library_and_the_filters(model, doc, text, odds, tmp_path):
    """The spam log-odds ``odds`` of the file ``doc`` (whose bytes are ``text``) from the loaded
    ``model`` given the path, the bytes and the str, from `spamfilter --batch` and, as a
    probability, from `topicfilter`."""
    loaded = textnb.load(model)
    for given in (doc, doc.read_bytes(), text):
        assert loaded.predict_log_odds([given])[0][list(loaded.classes_).index("spam")] == pytest.approx(odds)
    rc, out, err = run_spamfilter(["-m", model, "--batch", doc])  # (a model of plain documents: predict's text)
    assert rc == 0, err
    assert float(out.split("\t")[2]) == pytest.approx(odds)
    rc, out, err = run_topicfilter(["-m", model, "-o", tmp_path / "routed", "--uncalibrated", doc])
    assert rc == 0, err
    assert float(out.split("\t")[2]) == pytest.approx(1 / (1 + np.exp(-odds)), abs=1e-3)


def test_a_latin1_file_is_cut_where_its_text_is_cut_as_a_row_or_a_str_on_every_path(tmp_path):
    """``--max-bytes`` counts the UTF-8 bytes of a document's text whatever holds it: a
    Latin-1 file's first 14 bytes decode to 14 characters, 19 UTF-8 bytes, cut to the 14 of
    the same text given as a row or a str (*was*: training kept ``abcdef`` from the file,
    ``abc`` from the row, and ``predict`` cut the file's text a second time, so it scored
    less than training had learnt and less than the library scored)."""
    vocabularies = _trained_vocabularies(tmp_path, _latin1_corpus(tmp_path))
    lib = textnb.TextClassifier(max_bytes=14, model=textnb.MultinomialNB()).fit(list(LATIN1.values()), list(LATIN1))
    assert vocabularies == [sorted(lib.vectorizer_.vocabulary_)] * 3 == [["abc", "ghi", "ààààà", "ééééé"]] * 3
    model = tmp_path / "folder.tnb"
    doc = tmp_path / "folder" / "spam" / "1.txt"
    rc, out, err = cli("predict", model, doc, "--json", "--proba")
    assert rc == 0, err
    odds = json.loads(out)["log_odds"]["spam"]
    assert odds == pytest.approx(2 * np.log(2))  # (abc and ééééé: each twice as likely in spam)
    _same_odds_from_the_library_and_the_filters(model, doc, LATIN1["spam"], odds, tmp_path)
    served = classify_texts(_load_text_model(str(model)), {"texts": [LATIN1["spam"]]})
    assert served["log_odds"][0][served["classes"].index("spam")] == pytest.approx(odds)


def _latin1_texts(n=1000):
    """``n`` labelled texts of about 450 Latin-1 bytes, 520 UTF-8 ones (over the short-text
    rule's 500 in UTF-8, under it in Latin-1)."""
    import random

    words = ["été", "café", "élève", "général", "hôtel", "déjà", "fenêtre", "théâtre", "forêt", "clé", "très", "père"]
    rng, texts, labels = random.Random(1), [], []
    for i in range(n):
        label = ("neg", "pos")[i % 2]
        chosen = []
        while len(" ".join(chosen)) < 440:
            chosen.append(rng.choice(words))
        texts.append(" ".join(chosen + [("mal", "bon")[i % 2]]))
        labels.append(label)
    return texts, labels


def test_a_latin1_corpus_is_one_corpus_as_a_folder_a_tsv_and_a_list_of_texts(tmp_path):
    """The short-text rule measures a document's text in UTF-8 bytes in every container: a
    folder of 1,000 Latin-1 files of 450 bytes (520 in UTF-8) gets the words alone, as the
    TSV file and the str list of the same texts do (*was*: the files' sizes, so the folder
    got word bigrams and the TSV did not: two models of one corpus)."""
    from textnb.text.training import default_vectorizer

    texts, labels = _latin1_texts()
    rows = [b"label\ttext\n"]
    for i, (text, label) in enumerate(zip(texts, labels)):
        (tmp_path / "folder" / label).mkdir(parents=True, exist_ok=True)
        (tmp_path / "folder" / label / f"{i:04d}.txt").write_bytes(text.encode("latin-1"))
        rows.append(f"{label}\t{text}\n".encode("latin-1"))
    (tmp_path / "c.tsv").write_bytes(b"".join(rows))
    paths = sorted((tmp_path / "folder").rglob("*.txt"))
    chosen = [default_vectorizer(docs)[0] for docs in (texts, paths, [p.read_bytes() for p in paths])]
    assert chosen == [{}] * 3
    short = [t[:200].rsplit(" ", 1)[0] for t in texts]  # (and short texts are short in every container)
    assert default_vectorizer([t.encode("latin-1") for t in short])[0] == default_vectorizer(short)[0] != {}
    dask_bag = pytest.importorskip("dask.bag")  # (fit_bag: the same rule where the documents live)
    import dask

    from textnb.text.distributed import _default_params

    with dask.config.set(scheduler="synchronous"):
        assert _default_params(dask_bag.from_sequence(list(zip(paths, labels)), npartitions=3), None) == {}
        assert _default_params(dask_bag.from_sequence(list(zip(short, labels)), npartitions=3), None) != {}
    terms = []
    for source in (tmp_path / "folder", tmp_path / "c.tsv"):
        rc, _, err = cli("train", source, "--jobs", "1", "-o", tmp_path / "m.tnb")
        assert rc == 0, err
        terms.append(sorted(textnb.load(tmp_path / "m.tnb").vectorizer_.vocabulary_))
    assert terms[0] == terms[1] and not any(" " in t for t in terms[0])


def test_the_short_text_rule_reads_no_file_of_a_corpus_of_long_files(tmp_path, monkeypatch):
    """Files are measured by their sizes first: a corpus whose files are long by their sizes
    is long by their texts (decoding makes no text shorter in UTF-8), so none is read (20
    Newsgroups' training reads each file once); files that are short by their sizes are read,
    the short ones only."""
    import textnb.io.corpus as corpus
    from textnb.text.training import default_vectorizer

    for i in range(1000):
        (tmp_path / f"{i:04d}.txt").write_bytes(b"word " * (120 if i % 3 else 20))
    paths = sorted(tmp_path.glob("*.txt"))
    read = []
    to_text = corpus.to_text
    monkeypatch.setattr(corpus, "to_text", lambda doc, *a, **k: read.append(doc) or to_text(doc, *a, **k))
    assert default_vectorizer(paths)[0] == {} and read == []
    for p in paths[::3]:
        p.write_bytes("é".encode("latin-1") * 400)  # (400 bytes, 800 in UTF-8: still long)
    for p in paths[1::3]:
        p.write_bytes(b"w " * 100)
    assert default_vectorizer(paths)[0] == {}
    assert read and all(p.stat().st_size < 500 for p in read)


#: UTF-8 texts whose first 14 bytes hold two words each ("abcdef ghijk l": ``abcdef``, ``ghijk``)
BOMMED = {"spam": "abcdef ghijk lmnop", "ham": "qrstuv wxyzab cdefg"}


def test_a_file_with_a_byte_order_mark_is_cut_where_its_text_is_cut_as_a_row_or_a_str_on_every_path(tmp_path):
    """A UTF-8 byte-order mark is not text: a file that starts with one is cut at 14 bytes of
    its text, as the same text given as a TSV / JSON Lines row or a str (*was*: the mark's 3
    bytes were counted, so the file kept ``abcdef ghij`` and the row ``abcdef ghijk l``)."""
    from textnb.io.corpus import read_document, text_bytes, to_text

    for label, text in BOMMED.items():
        (tmp_path / "folder" / label).mkdir(parents=True)
        (tmp_path / "folder" / label / "1.txt").write_bytes(b"\xef\xbb\xbf" + text.encode())
    (tmp_path / "c.tsv").write_text("label\ttext\n" + "".join(f"{k}\t{v}\n" for k, v in BOMMED.items()), encoding="utf-8")
    (tmp_path / "c.jsonl").write_text("".join(json.dumps({"label": k, "text": v}) + "\n" for k, v in BOMMED.items()),
                                      encoding="utf-8")
    sources = [tmp_path / "folder", tmp_path / "c.tsv", tmp_path / "c.jsonl"]
    vocabularies = _trained_vocabularies(tmp_path, sources)
    lib = textnb.TextClassifier(max_bytes=14, model=textnb.MultinomialNB()).fit(list(BOMMED.values()), list(BOMMED))
    assert vocabularies == [sorted(lib.vectorizer_.vocabulary_)] * 3 == [["abcdef", "ghijk", "qrstuv", "wxyzab"]] * 3
    doc = tmp_path / "folder" / "spam" / "1.txt"
    assert to_text(doc, 14) == to_text(doc.read_bytes(), 14) == read_document(doc, 14) == to_text(BOMMED["spam"], 14)
    assert text_bytes(doc, 14) == text_bytes(doc.read_bytes(), 14) == 14
    model = tmp_path / "folder.tnb"
    rc, out, err = cli("predict", model, doc, "--json", "--proba")
    assert rc == 0, err
    odds = json.loads(out)["log_odds"]["spam"]
    assert odds == pytest.approx(2 * np.log(2))  # (abcdef and ghijk: each twice as likely in spam)
    rc, out, err = cli("predict", model, "-", "--json", "--proba", stdin=doc.read_bytes())
    assert rc == 0, err
    assert json.loads(out)["log_odds"]["spam"] == pytest.approx(odds)
    _same_odds_from_the_library_and_the_filters(model, doc, BOMMED["spam"], odds, tmp_path)


def test_a_vectorizers_own_encoding_cuts_a_file_where_its_text_is_cut_as_a_str_on_every_path(tmp_path):
    """A file decoded with a Vectorizer's own ``encoding`` is cut at ``max_bytes`` UTF-8
    bytes of its text, as every other document is: the Windows-1251 files' 14 bytes hold
    ``жжжжж abcdef x``, cut to the ``жжжжж abc`` of the same text as a str (*was*: the
    vectorizer got the file's first 14 bytes, so the files learnt ``abcdef`` and the str
    ``abc``), on every path (*was*: ``spamfilter --batch`` decoded the file by the UTF-8 /
    Windows-1252 guess, other terms); a Shift-JIS file cut inside a character loses that
    character, as a UTF-8 one does (*was*: UnicodeDecodeError)."""
    from textnb import MultinomialNB, TextClassifier, Vectorizer

    cyrillic = {"spam": "жжжжж abcdef xyzw", "ham": "ззззз ghijkl mnop"}
    labels = list(cyrillic)
    paths = []
    for label, text in cyrillic.items():
        paths.append(tmp_path / f"{label}.txt")
        paths[-1].write_bytes(text.encode("cp1251"))

    def fitted(docs, encoding="cp1251", max_bytes=14):
        return TextClassifier(vectorizer=Vectorizer(encoding=encoding), model=MultinomialNB(),
                              max_bytes=max_bytes).fit(docs, labels)

    files, strings = fitted(paths), fitted(list(cyrillic.values()))
    assert sorted(files.vectorizer_.vocabulary_) == sorted(strings.vectorizer_.vocabulary_) == \
        ["abc", "ghi", "жжжжж", "ззззз"]
    spam = list(files.classes_).index("spam")
    odds = strings.predict_log_odds([cyrillic["spam"]])[0][spam]
    assert odds == pytest.approx(2 * np.log(2))
    for given in (paths[0], paths[0].read_bytes(), cyrillic["spam"]):
        assert files.predict_log_odds([given])[0][spam] == pytest.approx(odds)
    files.save(tmp_path / "m.tnb")
    rc, out, err = cli("predict", tmp_path / "m.tnb", paths[0], "--json", "--proba")
    assert rc == 0, err
    assert json.loads(out)["log_odds"]["spam"] == pytest.approx(odds)
    rc, out, err = run_topicfilter(["-m", tmp_path / "m.tnb", "-o", tmp_path / "routed", "--uncalibrated", paths[0]])
    assert rc == 0, err
    assert float(out.split("\t")[2]) == pytest.approx(1 / (1 + np.exp(-odds)), abs=1e-3)
    rc, out, err = run_spamfilter(["-m", tmp_path / "m.tnb", "--batch", paths[0]])  # (a model of plain documents)
    assert rc == 0, err
    assert float(out.split("\t")[2]) == pytest.approx(odds)
    japanese = ["日本語 テキスト文書", "英語 テキスト文書"]  # (Shift-JIS: 2 bytes a character; 14 cut ト, 文 in two)
    for path, text in zip(paths, japanese):
        path.write_bytes(text.encode("shift_jis"))
    assert sorted(fitted(paths, "shift_jis").vectorizer_.vocabulary_) == \
        sorted(fitted(japanese, "shift_jis").vectorizer_.vocabulary_) == sorted(["日本語", "英語", "テキ"])
