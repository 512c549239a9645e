"""scikit-learn tags come from one mechanism, :class:`textnb.naive_bayes.base.DeclaredTags`:
each class declares the tags it changes (``_tags``; a wrapper also ``_wrapped_input_tags``) and
one ``__sklearn_tags__`` applies them, bases first."""

import importlib
import inspect
import pkgutil

import numpy as np
import pytest
from sklearn.pipeline import Pipeline
from sklearn.utils import get_tags

import textnb
from textnb import APNBC, BernoulliNB, CalibratedNB, GaussianNB, MultinomialNB, SmoothingCV, TabularNB
from textnb.naive_bayes.base import DeclaredTags
from textnb.naive_bayes.categorical import CategoricalNB
from textnb.naive_bayes.discretize import EqualWidthDiscretizer, MDLDiscretizer
from textnb.text.selection import SelectTerms
from textnb.text.weighting import TermWeighting, TfidfVectorizer

#: modules other helpers own that still write their own __sklearn_tags__
OWN_TAGS = {"textnb.semi_naive.lbr_text"}
#: classes that are no scikit-learn estimator by design (no BaseEstimator for DeclaredTags to
#: build on: the spam scorer imports no scikit-learn) and answer its tools with tags of their
#: own, made only when scikit-learn's tools ask
NOT_SKLEARN_BASED = {"textnb.apps.spamscore.SpamScorer"}


def _classes():
    for info in pkgutil.walk_packages(textnb.__path__, "textnb."):
        if info.name in OWN_TAGS or info.name.startswith("textnb.cli") or info.name == "textnb.__main__":
            continue
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == info.name:
                yield cls


def test_no_class_writes_its_own_sklearn_tags():
    own = sorted(f"{c.__module__}.{c.__qualname__}" for c in _classes()
                 if "__sklearn_tags__" in vars(c) and c is not DeclaredTags)
    assert own == sorted(NOT_SKLEARN_BASED)


def test_subclass_declarations_add_to_and_override_their_bases():
    assert get_tags(MultinomialNB()).input_tags.positive_only is True
    assert get_tags(BernoulliNB()).input_tags.positive_only is False  # follows _positive_only
    assert get_tags(BernoulliNB()).classifier_tags.poor_score is True  # BaseNB's
    tags = get_tags(CategoricalNB())
    assert (tags.input_tags.categorical, tags.input_tags.positive_only, tags.input_tags.allow_nan) == (
        True, True, False)
    assert get_tags(MDLDiscretizer()).target_tags.required is True
    assert get_tags(EqualWidthDiscretizer()).target_tags.required is False
    tfidf = get_tags(TfidfVectorizer())
    assert tfidf._skip_test is True and tfidf.input_tags.string is True  # its own and Vectorizer's


@pytest.mark.parametrize("wrapper", [CalibratedNB, SmoothingCV, APNBC])
def test_wrappers_take_the_input_tags_of_their_model(wrapper):
    assert get_tags(wrapper(TabularNB())).input_tags.sparse is False
    assert get_tags(wrapper(MultinomialNB())).input_tags.positive_only is True
    assert get_tags(wrapper(BernoulliNB())).input_tags.positive_only is False
    # a Pipeline: sparse as its first step takes X, positive_only when any step rejects negatives
    tags = get_tags(wrapper(Pipeline([("s", SelectTerms()), ("b", BernoulliNB())])))
    assert (tags.input_tags.sparse, tags.input_tags.positive_only) == (True, True)
    tags = get_tags(wrapper(Pipeline([("w", TermWeighting()), ("m", MultinomialNB())])))
    assert (tags.input_tags.sparse, tags.input_tags.positive_only) == (True, True)
    assert get_tags(wrapper(Pipeline([("d", MDLDiscretizer()), ("t", TabularNB())]))).input_tags.sparse is False


def test_apnbc_also_takes_allow_nan():
    assert get_tags(APNBC(TabularNB())).input_tags.allow_nan is True
    assert get_tags(APNBC(MultinomialNB())).input_tags.allow_nan is False


def test_calibrated_nb_takes_allow_nan_as_its_model_does():
    # CalibratedNB lets NaN through to a model that takes it; its tag said it never did
    for model in (GaussianNB(), TabularNB()):
        wrapper = CalibratedNB(model)
        assert get_tags(wrapper).input_tags.allow_nan is get_tags(model).input_tags.allow_nan is True
        X = np.random.RandomState(0).rand(40, 3)
        X[0, 0] = np.nan
        wrapper.fit(X, np.array([0, 1] * 20))
        assert np.isfinite(wrapper.predict_proba(X)).all()
    assert get_tags(CalibratedNB(MultinomialNB())).input_tags.allow_nan is False
    assert get_tags(SmoothingCV(TabularNB())).input_tags.allow_nan is False  # it refuses NaN
