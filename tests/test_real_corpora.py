"""Accuracy against scikit-learn on the shared corpora (skipped when ../shared is absent)."""

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB

from textnb import TextClassifier, open_corpus
from textnb.io.corpus import read_document


@pytest.mark.slow
def test_20newsgroups_accuracy_at_least_sklearn(shared_corpora):
    root = shared_corpora("20news-bydate")
    corpus = open_corpus(root)
    assert len(corpus) == 11314 and len(corpus.test) == 7532
    clf = TextClassifier(n_jobs=2).fit(corpus.documents, corpus.labels)
    test_texts = [read_document(p) for p in corpus.test.documents]
    ours = np.mean(clf.predict(test_texts) == np.array(corpus.test.labels))
    cv = CountVectorizer(decode_error="replace")
    train_texts = [read_document(p) for p in corpus.documents]
    ref = SkMultinomialNB().fit(cv.fit_transform(train_texts), corpus.labels)
    theirs = np.mean(ref.predict(cv.transform(test_texts)) == np.array(corpus.test.labels))
    assert ours >= theirs
    assert ours > 0.75


@pytest.mark.slow
def test_spamassassin_as_one_mbox_file_per_class_cross_validates_as_its_files_do(shared_corpora, tmp_path):
    """SpamAssassin's 6,046 messages written as ham.mbox and spam.mbox (mboxrd quoting): ``textnb
    evaluate --cv 10`` scores them as the corpus of one file per message (same messages, same
    order, so the same folds): the messages of each class's one file are dealt to the folds one
    by one (held out by file, every message was scored by a model that never saw its class:
    accuracy 0.0000)."""
    import json
    import re

    from conftest import cli

    root = shared_corpora("spamassassin_public_corpus")
    boxes = tmp_path / "boxes"
    for label in ("ham", "spam"):
        (boxes / label).mkdir(parents=True)
        with open(boxes / label / f"{label}.mbox", "wb") as out:
            for path in sorted((root / label).iterdir()):
                data = path.read_bytes()
                if data.startswith(b"From "):  # (a file's own mbox From line: one of ours instead)
                    data = data.split(b"\n", 1)[1]
                data = re.sub(rb"(?m)^(>*From )", rb">\1", data)
                out.write(b"From textnb@example.com Sat Jan  1 00:00:00 2000\n" + data.rstrip(b"\r\n") + b"\n\n")
    reports = []
    for corpus in (boxes, root):
        rc, out, err = cli("evaluate", corpus, "--cv", "10", "--json")
        assert rc == 0, err
        reports.append(json.loads(out))
    boxed, files = reports
    assert boxed["n"] == files["n"] == 6046
    assert "groups_note" in boxed and "groups_note" not in files
    assert boxed["accuracy"] > 0.98 and abs(boxed["accuracy"] - files["accuracy"]) < 0.003
