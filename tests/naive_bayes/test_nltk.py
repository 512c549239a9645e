"""textnb.nltk.NaiveBayesClassifier against NLTK's own: NLTK's classify doctest examples
(read from the installed nltk at test time) and random feature sets, for every additive
estimator (ELE, Laplace, Lidstone, MLE)."""

import contextlib
import doctest
import importlib
import io
import pathlib
import random

import numpy as np
import pytest

import textnb.nltk
from textnb.nltk import NaiveBayesClassifier, ProbDist, estimator_gamma


@pytest.fixture(scope="module", autouse=True)
def nltk():
    """NLTK, or every test here skips: imported when a test runs, not when the file is
    collected (0.4 s in each worker of the quick subset)."""
    nltk = pytest.importorskip("nltk")
    importlib.import_module("nltk.classify")
    importlib.import_module("nltk.probability")
    return nltk


@pytest.fixture
def nltk_nb(nltk):
    """NLTK's NaiveBayesClassifier."""
    return nltk.classify.NaiveBayesClassifier


def _lidstone(fd, bins=None):
    from nltk.probability import LidstoneProbDist

    return LidstoneProbDist(fd, 0.1, bins)


#: NLTK's additive estimators by name (the classes are NLTK's, read when a test runs)
ESTIMATORS = ["ELEProbDist", "LaplaceProbDist", "MLEProbDist", "_lidstone"]


def _naive_bayes_doctest(nltk):
    """The examples of nltk/test/classify.doctest up to the decision tree's, with NLTK's
    classifier swapped for textnb's (None when this nltk does not ship the file)."""
    path = pathlib.Path(nltk.__file__).parent / "test" / "classify.doctest"
    if not path.is_file():
        return None
    text = path.read_text(encoding="utf-8")
    end = text.index("Test the Decision Tree classifier")
    assert "nltk.classify.NaiveBayesClassifier" in text[:end]
    text = text[:end].replace("nltk.classify.NaiveBayesClassifier", "textnb_nltk.NaiveBayesClassifier")
    return doctest.DocTestParser().get_doctest(text, {"textnb_nltk": textnb.nltk}, "classify.doctest",
                                               str(path), 0)


def test_nltk_classify_doctest(nltk):
    test = _naive_bayes_doctest(nltk)
    if test is None:
        import nltk.classify.naivebayes as nb  # the docstrings' examples instead

        tests = [t for t in doctest.DocTestFinder().find(nb) if t.examples]
        if not tests:
            pytest.skip("this nltk ships neither classify.doctest nor naive Bayes docstring examples")
        pytest.skip("naive Bayes docstring examples found but not adapted")  # pragma: no cover
    assert len(test.examples) >= 8
    out = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    result = runner.run(test, out=out.write)
    assert result.failed == 0, out.getvalue()
    assert result.attempted == len(test.examples)


def test_doctest_really_runs_textnb(nltk):
    """The swapped doctest fails when textnb's numbers are off (the check is not vacuous)."""
    test = _naive_bayes_doctest(nltk)
    if test is None:
        pytest.skip("no classify.doctest in this nltk")
    for ex in test.examples:
        ex.source = ex.source.replace("textnb_nltk.NaiveBayesClassifier.train(train)",
                                      "textnb_nltk.NaiveBayesClassifier.train(train, estimator='laplace')")
    result = doctest.DocTestRunner().run(test, out=lambda s: None)
    assert result.failed > 0


def _random_data(rng, n_train, n_test):
    names = ["f%d" % i for i in range(rng.randint(1, 6))]
    domains = {f: [rng.choice(["a", "b", "c", 0, 1, True, None, (1, 2)]) for _ in range(rng.randint(1, 4))]
               for f in names}
    labels = ["pos", "neg", "mid"][: rng.randint(2, 3)]

    def featureset(extra_names=()):
        fs = {}
        for f in list(names) + list(extra_names):
            if rng.random() < 0.8:
                fs[f] = rng.choice(domains.get(f, ["zz"]) + (["unseen"] if extra_names else []))
        return fs

    train = [(featureset(), rng.choice(labels)) for _ in range(n_train)]
    test = [featureset(extra_names=["new"]) for _ in range(n_test)]
    return train, test


@pytest.mark.slow
@pytest.mark.parametrize("name", ESTIMATORS)
def test_same_numbers_as_nltk_on_random_featuresets(nltk, nltk_nb, name):
    estimator = _lidstone if name == "_lidstone" else getattr(nltk.probability, name)
    rng = random.Random(31)
    compared = decided = 0
    for _ in range(40):
        train, test = _random_data(rng, rng.randint(1, 25), 15)
        ours = NaiveBayesClassifier.train(train, estimator=estimator)
        theirs = nltk_nb.train(train, estimator=estimator)
        assert ours.labels() == theirs.labels()
        for fs, p_ours, p_theirs in zip(test, ours.prob_classify_many(test), theirs.prob_classify_many(test)):
            probs = [p_theirs.prob(label) for label in theirs.labels()]
            assert [p_ours.prob(label) for label in theirs.labels()] == pytest.approx(probs, abs=1e-12), fs
            assert p_ours.samples() == list(p_theirs.samples())
            top = sorted(probs)
            if len(top) > 1 and top[-1] - top[-2] > 1e-9:
                assert ours.classify(fs) == theirs.classify(fs)
                decided += 1
            compared += 1
        assert ours.most_informative_features(1000) == theirs.most_informative_features(1000)
        # nltk's show_most_informative_features needs comparable values (str(value) order
        # breaks ties only): compare the printouts where every value of a feature has one type
        mine = io.StringIO()
        ours.show_most_informative_features(50, file=mine)
        theirs_out = io.StringIO()
        with contextlib.redirect_stdout(theirs_out):
            theirs.show_most_informative_features(50)
        assert mine.getvalue() == theirs_out.getvalue()
    assert compared == 40 * 15 and decided > 100


def test_log_probabilities_are_base_2_as_nltk(nltk_nb):
    train = [({"w": "a"}, "x"), ({"w": "b"}, "y"), ({"w": "a"}, "y")]
    ours = NaiveBayesClassifier.train(train).prob_classify({"w": "a"})
    theirs = nltk_nb.train(train).prob_classify({"w": "a"})
    for label in ("x", "y"):
        assert ours.logprob(label) == pytest.approx(theirs.logprob(label), abs=1e-12)
        assert 2 ** ours.logprob(label) == pytest.approx(ours.prob(label))
    assert ours.prob("nolabel") == 0.0 and ours.logprob("nolabel") == -np.inf
    assert ours.max() == theirs.max() == "y"
    assert ours.generate(random_state=0) in ("x", "y")


def test_missing_features_as_nltk_treats_them(nltk_nb):
    """Absent in training: the value None; absent or never seen when classifying: left out."""
    train = [({"a": 1, "b": 1}, "x"), ({"a": 1}, "x"), ({"a": 0, "b": 0}, "y"), ({"b": 0}, "y")]
    ours, theirs = NaiveBayesClassifier.train(train), nltk_nb.train(train)
    for fs in ({}, {"a": 1}, {"b": None}, {"zzz": 3}, {"a": 7}, {"a": None, "b": 1}):
        assert ours.prob_classify(fs).prob("x") == pytest.approx(theirs.prob_classify(fs).prob("x"), abs=1e-12)
    # no feature at all: the prior
    assert ours.prob_classify({}).prob("x") == pytest.approx(0.5)


def test_mle_zero_probabilities_and_all_labels_impossible(nltk, nltk_nb):
    train = [({"w": "a"}, "x"), ({"w": "b"}, "y"), ({"w": "b", "v": 1}, "y")]
    mle = nltk.probability.MLEProbDist
    ours, theirs = NaiveBayesClassifier.train(train, estimator=mle), nltk_nb.train(train, estimator=mle)
    for fs in ({"w": "a"}, {"w": "a", "v": 1}, {"w": "c"}, {"v": 1}):
        p = ours.prob_classify(fs)
        assert [p.prob(label) for label in "xy"] == pytest.approx(
            [theirs.prob_classify(fs).prob(label) for label in "xy"], abs=1e-12), fs
    assert ours.prob_classify({"w": "a", "v": 1}).prob("x") == 0.5  # both impossible: uniform


def test_featuresets_without_features(nltk_nb):
    train = [({}, "x"), ({}, "x"), ({}, "y")]
    ours, theirs = NaiveBayesClassifier.train(train), nltk_nb.train(train)
    assert ours.prob_classify({"a": 1}).prob("x") == pytest.approx(theirs.prob_classify({"a": 1}).prob("x"))
    assert ours.most_informative_features() == []


def test_estimators(nltk):
    probability = nltk.probability
    assert estimator_gamma(None) == 0.5 == estimator_gamma(probability.ELEProbDist) == estimator_gamma("ele")
    assert estimator_gamma(probability.LaplaceProbDist) == 1.0 == estimator_gamma("laplace")
    assert estimator_gamma(probability.MLEProbDist) == 0.0 == estimator_gamma("mle")
    assert estimator_gamma(_lidstone) == pytest.approx(0.1)
    assert estimator_gamma(0.25) == 0.25
    with pytest.raises(ValueError, match="not additive"):
        NaiveBayesClassifier.train([({"a": 1}, "x")], estimator=probability.WittenBellProbDist)
    for bad in ("bogus", -1.0, float("nan"), object()):
        with pytest.raises(ValueError):
            estimator_gamma(bad)
    with pytest.raises(ValueError, match="empty"):
        NaiveBayesClassifier.train([])
    with pytest.raises(ValueError, match="pairs"):
        NaiveBayesClassifier.train([{"a": 1}])


def test_any_hashable_values_and_labels(nltk_nb):
    train = [({("bi", "gram"): frozenset({1}), 3: 2.5}, ("t", 1)), ({3: 2.5}, 0), ({("bi", "gram"): None}, 0)]
    ours, theirs = NaiveBayesClassifier.train(train), nltk_nb.train(train)
    fs = {("bi", "gram"): frozenset({1})}
    assert ours.classify(fs) == theirs.classify(fs) == ("t", 1)
    assert isinstance(ours.prob_classify(fs), ProbDist)
    from nltk.probability import ProbDistI

    assert isinstance(ours.prob_classify(fs), ProbDistI)  # registered with NLTK's ABC
    assert ours.prob_classify(fs).prob(0) == pytest.approx(theirs.prob_classify(fs).prob(0))


def test_show_writes_to_the_stream_only(capsys):
    train = [({"w": "a"}, "x"), ({"w": "b"}, "y"), ({"w": "a"}, "y")]
    buf = io.StringIO()
    NaiveBayesClassifier.train(train).show_most_informative_features(file=buf)
    assert capsys.readouterr().out == ""
    assert buf.getvalue().startswith("Most Informative Features\n")
    NaiveBayesClassifier.train(train).show_most_informative_features()
    assert capsys.readouterr().out == buf.getvalue()


def test_ties_go_to_the_largest_label_as_nltk(nltk_nb):
    """NLTK's ``ProbDistI.max`` is ``max((p, label))``: among equally probable labels the
    largest; labels that do not compare keep the first in label order."""
    train = [({"w": "a"}, "x"), ({"w": "a"}, "z"), ({"w": "a"}, "y")]
    ours, theirs = NaiveBayesClassifier.train(train), nltk_nb.train(train)
    for fs in ({"w": "a"}, {}, {"w": "b"}):
        assert ours.classify(fs) == theirs.classify(fs) == "z"
    assert ours.classify_many([{}, {"w": "a"}]) == theirs.classify_many([{}, {"w": "a"}])
    odd = NaiveBayesClassifier.train([({"w": 1}, ("t", 1)), ({"w": 1}, 0)])
    assert odd.classify({"w": 1}) == ("t", 1)


def test_thousands_of_features_are_read_in_one_step(monkeypatch, nltk_nb):
    """A featureset of thousands of ``contains(word)`` features (NLTK's document
    classification recipe) is classified without a per-feature walk over every attribute:
    the layout of the columns is computed a bounded number of times, not once per feature."""
    import textnb.naive_bayes.tabular_kernel as tk

    rng = random.Random(3)
    words = [f"w{i}" for i in range(3000)]
    train = [({f"contains({w})": rng.random() < 0.05 for w in words}, "pos" if i % 2 else "neg")
             for i in range(60)]
    ours, theirs = NaiveBayesClassifier.train(train), nltk_nb.train(train)
    calls = []
    real = tk.column_slices
    monkeypatch.setattr(tk, "column_slices", lambda atts: calls.append(1) or real(atts))
    test = [fs for fs, _ in train[:5]] + [{"contains(w1)": "unseen value", "contains(zz)": True}]
    probs = ours.prob_classify_many(test)
    assert len(calls) <= 3
    for fs, p in zip(test, probs):
        assert p.prob("pos") == pytest.approx(theirs.prob_classify(fs).prob("pos"), abs=1e-9)


def test_classifying_one_featureset_at_a_time_walks_the_attributes_once(monkeypatch):
    """NLTK's habit, ``classify`` in a loop: the attributes' column layout is computed once
    for the fitted model, not on every call (2.5 ms a call at 2,000 features), and each
    call gives what ``prob_classify_many`` gives."""
    import textnb.naive_bayes.tabular_kernel as tk

    rng = random.Random(4)
    words = [f"w{i}" for i in range(500)]
    train = [({f"contains({w})": True for w in rng.sample(words, 12)}, rng.choice("abc")) for _ in range(300)]
    ours = NaiveBayesClassifier.train(train)
    test = [{f"contains({w})": True for w in rng.sample(words, 12)} for _ in range(40)]
    many = ours.prob_classify_many(test)
    calls = []
    real = tk.column_slices
    monkeypatch.setattr(tk, "column_slices", lambda atts: calls.append(1) or real(atts))
    for fs, dist in zip(test, many):
        one = ours.prob_classify(fs)
        assert [one.prob(label) for label in "abc"] == pytest.approx([dist.prob(label) for label in "abc"], abs=1e-12)
        assert ours.classify(fs) == dist.max()
    assert len(calls) == 0  # (computed when the model was fitted and first used)


def _documents(rng, n, words, labels):
    """``(words, label)`` of ``n`` documents: 3 to 30 words drawn with Zipf-like frequencies,
    each label favouring its own part of the vocabulary."""
    docs = []
    for _ in range(n):
        label = rng.choice(labels)
        shift = labels.index(label) * len(words) // (2 * len(labels))
        ranks = [min(int(rng.paretovariate(0.8)) - 1, len(words) - 1) for _ in range(rng.randint(3, 30))]
        docs.append(([words[(r + shift) % len(words)] for r in ranks], label))
    return docs


def _featuresets(docs, style, top):
    """NLTK's two document feature styles: the words present (``bow``), or the NLTK book's
    ``contains(w)``, True or False, for each of the ``top`` words."""
    if style == "bow":
        return [({w: True for w in words}, label) for words, label in docs]
    return [({f"contains({w})": w in set(words) for w in top}, label) for words, label in docs]


@pytest.mark.parametrize("style", ["bow", "contains"])
@pytest.mark.parametrize("name", ESTIMATORS)
def test_bag_of_words_featuresets_give_nltks_numbers(nltk, nltk_nb, name, style):
    """The feature dicts of NLTK's document classification (the words present, or the book's
    ``contains(w)`` of the most frequent words): NLTK's probabilities, decisions, informative
    features and their printout, with words never seen and ``False`` values in the queries."""
    estimator = _lidstone if name == "_lidstone" else getattr(nltk.probability, name)
    rng = random.Random(8)
    words = [f"w{i}" for i in range(800)]
    docs = _documents(rng, 240, words, ["pos", "neg", "mid"])
    top = words[:150]
    train = _featuresets(docs[:160], style, top)
    test = [fs for fs, _ in _featuresets(docs[160:], style, top)]
    test += [{"never-seen": True}, {}, {words[0]: False, words[1]: True}, {"contains(w0)": "maybe"}]
    ours, theirs = NaiveBayesClassifier.train(train, estimator=estimator), nltk_nb.train(train, estimator=estimator)
    labels = theirs.labels()
    assert ours.labels() == labels
    decided = 0
    for fs, p_ours, p_theirs in zip(test, ours.prob_classify_many(test), theirs.prob_classify_many(test)):
        probs = [p_theirs.prob(label) for label in labels]
        assert [p_ours.prob(label) for label in labels] == pytest.approx(probs, abs=1e-12), fs
        top2 = sorted(probs)[-2:]
        if top2[1] - top2[0] > 1e-9:
            assert ours.classify(fs) == theirs.classify(fs)
            decided += 1
    assert decided > len(test) // 2
    assert ours.most_informative_features(10**6) == theirs.most_informative_features(10**6)
    mine, theirs_out = io.StringIO(), io.StringIO()
    ours.show_most_informative_features(100, file=mine)
    with contextlib.redirect_stdout(theirs_out):
        theirs.show_most_informative_features(100)
    assert mine.getvalue() == theirs_out.getvalue()


@pytest.mark.parametrize("name", ESTIMATORS)
def test_label_and_feature_probdists_are_nltks(nltk, nltk_nb, name):
    """``_label_probdist`` and ``_feature_probdist``, which tutorials read: NLTK's keys, samples
    and probabilities (the same floats), for every (label, feature), values never seen included."""
    from nltk.probability import ProbDistI

    estimator = _lidstone if name == "_lidstone" else getattr(nltk.probability, name)
    rng = random.Random(9)
    train = _featuresets(_documents(rng, 80, [f"w{i}" for i in range(120)], ["pos", "neg", "mid"]), "bow", ())
    train += [({"w1": "often", "len": 3, "w2": None}, "neg"), ({"len": 4}, "mid")]
    ours, theirs = NaiveBayesClassifier.train(train, estimator=estimator), nltk_nb.train(train, estimator=estimator)
    label_ours, label_theirs = ours._label_probdist, theirs._label_probdist
    assert isinstance(label_ours, ProbDistI)
    assert label_ours.samples() == list(label_theirs.samples()) == ours.labels()
    assert label_ours.max() == label_theirs.max()
    for label in ours.labels() + ["no such label"]:
        assert label_ours.prob(label) == label_theirs.prob(label)
    assert label_ours.discount() == label_theirs.discount()
    dists_ours, dists_theirs = ours._feature_probdist, theirs._feature_probdist
    assert len(dists_ours) == len(dists_theirs) and set(dists_ours) == set(dists_theirs)
    for key, dist in dists_theirs.items():
        mine = dists_ours[key]
        assert isinstance(mine, ProbDistI) and key in dists_ours
        assert set(mine.samples()) == set(dist.samples()), key
        for value in list(dist.samples()) + [True, None, "often", 3, "never"]:
            assert mine.prob(value) == dist.prob(value), (key, value)
            if dist.prob(value) > 0:
                assert mine.logprob(value) == dist.logprob(value), (key, value)
            else:
                assert mine.logprob(value) == -np.inf
        assert mine.discount() == dist.discount()
    for missing in [("pos", "no such feature"), ("no such label", "w1"), "w1", ("pos",)]:
        assert missing not in dists_ours
        with pytest.raises(KeyError):
            dists_ours[missing]
