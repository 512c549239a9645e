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
