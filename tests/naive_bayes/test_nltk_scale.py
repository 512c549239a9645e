"""textnb.nltk at the scale of NLTK's document classification (no NLTK needed): training and
classifying cost the (feature, value) pairs the featuresets hold, not featuresets x features,
and importing textnb.nltk imports no scikit-learn."""

import subprocess
import sys
import tracemalloc

import numpy as np
import pytest

from textnb.nltk import NaiveBayesClassifier


def _bag_of_words(n_docs=3000, n_words=50_000, per_doc=17):
    """``n_docs`` featuresets of NLTK's most common style, ``{word: True}``, ``per_doc`` words
    each, the words running through a vocabulary of ``n_words`` (all of them used), 3 labels."""
    words = [f"w{i}" for i in range(n_words)]
    return [({words[(per_doc * i + k) % n_words]: True for k in range(per_doc)}, "abc"[i % 3])
            for i in range(n_docs)]


@pytest.mark.slow
def test_training_on_bags_of_words_costs_their_pairs_not_documents_times_words():
    """3,000 bags of 17 words over 50,000 distinct words: training traces about 60 MB at
    its peak (the model: 50,000 attributes and their values' counts), and classifying one
    dict a few KB. ``train`` built a featuresets x features table before (1.2 GB of floats
    here, then its one-hot cells: MemoryError on 20 Newsgroups), and each ``classify`` a
    row of every feature and a copy of the model's log probabilities (2.4 MB here)."""
    train = _bag_of_words()
    import textnb.naive_bayes.tabular  # noqa: F401  (its import is not the training's memory)

    tracemalloc.start()
    try:
        classifier = NaiveBayesClassifier.train(train)
        trained_peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        dist = classifier.prob_classify({"w3": True, "a word never seen": True, "w4": "a value never seen"})
        classify_peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert trained_peak < 100 * 2**20
    assert classify_peak < 256 * 2**10
    assert classifier.model_.feature_count_.shape == (3, 2 * 50_000)  # each word: True and None
    assert sum(dist.prob(label) for label in "abc") == pytest.approx(1.0)


def test_classifying_reads_the_featuresets_pairs_only(monkeypatch):
    """``prob_classify_many`` scores the pairs of the featuresets: the model's table of
    log probabilities is read at the cells they name (here 3 of 20,000 columns), never
    copied whole or multiplied by a row of every feature."""
    import textnb.naive_bayes.tabular_kernel as tk

    classifier = NaiveBayesClassifier.train(_bag_of_words(n_docs=600, n_words=10_000))
    seen = []
    real = tk._cells_dot
    monkeypatch.setattr(tk, "_cells_dot", lambda r, c, v, shape, w: seen.append(w.shape) or real(r, c, v, shape, w))
    dists = classifier.prob_classify_many([{"w3": True, "w9000": True}, {}, {"w5": True, "new": 1}])
    assert seen == [(3, 3)]
    assert [round(sum(d.prob(label) for label in "abc"), 12) for d in dists] == [1.0, 1.0, 1.0]
    assert dists[1].prob("a") == pytest.approx(np.exp(classifier.model_.class_log_prior_[0]))


def test_importing_textnb_nltk_imports_no_scikit_learn():
    """``import textnb.nltk`` loads neither scikit-learn nor scipy (about 3 s on a loaded
    machine): the tabular engine is imported when a classifier is first trained."""
    probe = "import sys\nimport textnb.nltk\nprint(sorted(m for m in ('sklearn', 'scipy', 'nltk') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
