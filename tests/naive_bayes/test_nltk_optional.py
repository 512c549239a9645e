"""textnb.nltk without NLTK installed: NLTK is an optional extra (``textnb[nltk]``), needed
only to pass NLTK's own ProbDist classes. NLTK is hidden here by a ``None`` entry in
``sys.modules``, as when it is not installed."""

import sys

import pytest

from textnb.nltk import NaiveBayesClassifier, estimator_gamma

TRAIN = [({"last_letter": "a", "length": 4}, "female"), ({"last_letter": "k", "length": 4}, "male"),
         ({"last_letter": "a", "length": 5}, "female"), ({"last_letter": "o"}, "male")]


@pytest.fixture
def no_nltk(monkeypatch):
    for name in [m for m in sys.modules if m == "nltk" or m.startswith("nltk.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "nltk", None)  # "import nltk" raises ImportError
    monkeypatch.setitem(sys.modules, "nltk.probability", None)


@pytest.mark.parametrize("estimator", [None, "ele", "laplace", "mle", 0.1])
def test_named_estimators_need_no_nltk(no_nltk, estimator):
    classifier = NaiveBayesClassifier.train(TRAIN, estimator=estimator)
    assert classifier.classify({"last_letter": "a"}) == "female"
    dist = classifier.prob_classify({"last_letter": "k", "length": 4})
    assert dist.max() == "male"
    assert abs(dist.prob("male") + dist.prob("female") - 1) < 1e-12


def test_an_nltk_class_without_nltk_is_one_clear_import_error(no_nltk):
    def ELEProbDist(freqdist, bins=None):  # what a user's NLTK class would be called
        raise AssertionError("not called: NLTK is needed to read it")

    with pytest.raises(ImportError, match=r"'ELEProbDist' is read as an NLTK ProbDist class, which needs NLTK.*"
                                          r"pip install 'textnb\[nltk\]'.*'laplace'"):
        estimator_gamma(ELEProbDist)
    with pytest.raises(ImportError, match="NLTK is not installed"):
        NaiveBayesClassifier.train(TRAIN, estimator=ELEProbDist)


@pytest.mark.parametrize("featureset", ["a string", ["a", "list"], 3, None])
def test_a_featureset_that_is_not_a_dict_is_a_type_error_naming_it(featureset):
    # training and classifying: one TypeError saying what a featureset must be (it was an
    # AttributeError "'str' object has no attribute 'items'" from inside textnb)
    with pytest.raises(TypeError, match="a featureset must be a dict of feature name -> value; got "
                                        + type(featureset).__name__):
        NaiveBayesClassifier.train([*TRAIN, (featureset, "male")])
    classifier = NaiveBayesClassifier.train(TRAIN)
    for call in (classifier.classify, classifier.prob_classify, lambda fs: classifier.classify_many([fs])):
        with pytest.raises(TypeError, match="a featureset must be a dict"):
            call(featureset)
