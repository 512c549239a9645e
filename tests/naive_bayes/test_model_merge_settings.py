"""``merge`` of fitted models whose settings differ: refused, naming the setting; of a model
with itself: refused; whose result is not exact: warned."""

import copy
import pickle
import warnings

import numpy as np
import pytest

from textnb import AODE, BernoulliNB, MixedNB, MultinomialNB, TabularNB, TextClassifier
from textnb.core.errors import DataWarning, InexactMergeWarning, ParameterError, SettingsDiffer
from textnb.io.tables import Attribute
from textnb.text.selection import SelectTerms
from textnb.text.weighting import TermWeighting
from textnb.naive_bayes.complement import ComplementNB
from textnb.naive_bayes.discriminative import DiscriminativeNB

X = np.array([[1, 0, 2], [0, 3, 1], [2, 1, 0], [0, 0, 4], [1, 1, 1], [3, 0, 0]], dtype=float)
y = np.array(["a", "b", "a", "b", "a", "b"])


@pytest.mark.parametrize("mine, theirs, setting", [
    (BernoulliNB(alpha=1), BernoulliNB(alpha=0.01), "alpha"),
    (BernoulliNB(), BernoulliNB(binarize=1.0), "binarize"),
    (MultinomialNB(), MultinomialNB(fit_prior=False), "fit_prior"),
    (MultinomialNB(), MultinomialNB(class_prior=[0.3, 0.7]), "class_prior"),
    (MultinomialNB(alpha=0.0), MultinomialNB(alpha=0.0, force_alpha=False), "force_alpha"),
    (MultinomialNB(), MultinomialNB(m=2.0), "m"),
    (ComplementNB(), ComplementNB(norm=True), "norm"),
])
def test_count_models_with_other_settings_are_not_merged(mine, theirs, setting):
    """``BernoulliNB(alpha=1).merge(BernoulliNB(alpha=0.01))`` kept alpha=1 without a word,
    so the merge depended on its order: a ParameterError naming the setting, either way
    round, and the model left as it was."""
    with pytest.warns(UserWarning) if getattr(theirs, "force_alpha", True) is False else _nothing():
        a, b = mine.fit(X, y), theirs.fit(X, y)
    for first, second in ((a, b), (b, a)):
        before = first.feature_count_.copy()
        with pytest.raises(SettingsDiffer, match=f"settings differ \\({setting}: ") as info:
            first.merge(second)
        assert isinstance(info.value, ParameterError) and isinstance(info.value, ValueError)
        assert info.value.setting == setting
        np.testing.assert_array_equal(first.feature_count_, before)


def test_execution_parameters_are_not_settings():
    """``n_jobs`` says how a model is computed, not what it is: models differing only there merge."""
    a = DiscriminativeNB(alpha=1.0, event_model="complement", calibration=None, n_jobs=1).fit(X[:3], y[:3])
    b = DiscriminativeNB(alpha=1.0, event_model="complement", calibration=None, n_jobs=2).fit(X[3:], y[3:])
    assert a.merge(b).class_documents_.sum() == 6
    m = MultinomialNB(alpha=0.5).fit(X[:3], y[:3]).merge(MultinomialNB(alpha=0.5).fit(X[3:], y[3:]))
    np.testing.assert_allclose(m.feature_count_, MultinomialNB(alpha=0.5).fit(X, y).feature_count_)


def test_text_classifiers_with_other_settings_are_not_merged():
    docs = ["cheap pills now", "meeting at noon", "cheap offer", "lunch at noon"]
    labels = ["spam", "ham", "spam", "ham"]
    a = TextClassifier(model=MultinomialNB()).fit(docs, labels)
    with pytest.raises(SettingsDiffer, match="settings differ \\(alpha: "):
        a.merge(TextClassifier(model=MultinomialNB(alpha=0.1)).fit(docs, labels))
    with pytest.raises(SettingsDiffer, match="settings differ \\(max_bytes: "):
        a.merge(TextClassifier(model=MultinomialNB(), max_bytes=100).fit(docs, labels))
    # n_jobs and batch_size are not settings
    merged = a.merge(TextClassifier(model=MultinomialNB(), n_jobs=2, batch_size=7).fit(docs, labels))
    assert merged.model_.class_count_.tolist() == [4.0, 4.0]


def test_table_models_with_other_settings_are_not_merged():
    """TabularNB and AODE had the same gap (the first model's alpha / m won)."""
    rng = np.random.default_rng(0)
    Xn = rng.integers(0, 3, size=(40, 3)).astype(float)
    yn = rng.integers(0, 2, size=40)
    with pytest.raises(SettingsDiffer, match="settings differ \\(alpha: "):
        TabularNB(alpha=1.0).fit(Xn, yn).merge(TabularNB(alpha=0.5).fit(Xn, yn))
    with pytest.raises(SettingsDiffer, match="settings differ \\(class_prior: "):
        TabularNB().fit(Xn, yn).merge(TabularNB(class_prior=[0.5, 0.5]).fit(Xn, yn))
    with pytest.raises(SettingsDiffer, match="settings differ \\(m: "):
        AODE().fit(Xn, yn).merge(AODE(m=2.0).fit(Xn, yn))
    assert TabularNB(alpha=0.5).fit(Xn[:20], yn[:20]).merge(TabularNB(alpha=0.5).fit(Xn[20:], yn[20:])).class_count_.sum() == 40
    assert AODE().fit(Xn[:20], yn[:20]).merge(AODE().fit(Xn[20:], yn[20:])).class_count_.sum() == 40


DOCS = ["cheap pills now", "meeting at noon", "cheap offer pills", "lunch at noon", "buy cheap now", "noon meeting moved"]
LABELS = ["spam", "ham"] * 3
MIXED = np.array([["cheap pills", 1.0], ["lunch noon", 2.0], ["cheap offer", 1.5], ["meeting noon", 2.5]], dtype=object)
#: a fitted model of every kind that has a merge (each call a new one)
MERGEABLE = {
    "TextClassifier": lambda: TextClassifier().fit(DOCS, LABELS),
    "TextClassifier(MultinomialNB)": lambda: TextClassifier(model=MultinomialNB()).fit(DOCS, LABELS),
    "MultinomialNB": lambda: MultinomialNB().fit(X, y),
    "BernoulliNB": lambda: BernoulliNB().fit(X, y),
    "ComplementNB": lambda: ComplementNB().fit(X, y),
    "DiscriminativeNB": lambda: DiscriminativeNB().fit(X, y),
    "TabularNB": lambda: TabularNB().fit(X, y),
    "AODE": lambda: AODE().fit(X.astype(int) % 2, y),
    "MixedNB": lambda: MixedNB(attributes=(Attribute("t", "text"), Attribute("n", "numeric"))).fit(
        MIXED, ["s", "h", "s", "h"]),
    "SelectTerms": lambda: SelectTerms(k=2).fit(X, y),
    "TermWeighting": lambda: TermWeighting().fit(X),
}


@pytest.mark.parametrize("kind", sorted(MERGEABLE))
def test_a_model_merged_with_itself_is_refused(kind):
    """``m.merge(m)`` doubled every count in silence (``textnb merge a.tnb a.tnb`` is refused):
    a ParameterError saying so, the model left as it was; a copy merges (its data counted
    twice, as asked)."""
    model = MERGEABLE[kind]()
    before = pickle.dumps(model)
    with pytest.raises(ParameterError, match="cannot merge a model with itself: its counts would be added twice"):
        model.merge(model)
    assert pickle.dumps(model) == before
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InexactMergeWarning)
        assert model.merge(copy.deepcopy(model)) is model


def test_models_holding_the_same_fitted_model_are_not_merged(tmp_path):
    """Two text classifiers around one fitted count model (a shallow copy) are the same counts
    twice: refused, naming the model they share; a text model read from its file's nodes
    (what ``textnb merge`` adds up) refuses itself too."""
    from textnb.core.model_io import read_nodes
    from textnb.text.nodes import CountTextModel

    a = TextClassifier(model=MultinomialNB()).fit(DOCS, LABELS)
    before = a.model_.feature_count_.copy()
    with pytest.raises(ParameterError, match="cannot merge two models that hold the same fitted MultinomialNB"):
        a.merge(copy.copy(a))
    np.testing.assert_array_equal(a.model_.feature_count_, before)
    a.save(tmp_path / "a.tnb")
    nodes = CountTextModel.from_root(read_nodes(tmp_path / "a.tnb"))
    with pytest.raises(ParameterError, match="cannot merge a model with itself"):
        nodes.merge(nodes)


@pytest.mark.parametrize("kind", sorted(MERGEABLE))
def test_an_inexact_merge_warns_and_an_exact_one_does_not(kind):
    """Merging two default ``TextClassifier()`` models (DiscriminativeNB) gave no word in the
    library where ``textnb merge`` warned that the result is approximate: the merge warns,
    with the library's DataWarning (InexactMergeWarning), in the words the command line
    prints; exact merges, and a refused one, warn of nothing."""
    a, b = MERGEABLE[kind](), MERGEABLE[kind]()
    inexact = kind in ("TextClassifier", "DiscriminativeNB")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        a.merge(b)
    said = [w for w in caught if issubclass(w.category, DataWarning)]
    if not inexact:
        assert said == []
        return
    assert len(said) == 1 and said[0].category is InexactMergeWarning and said[0].filename == __file__
    assert str(said[0].message).startswith("DiscriminativeNB models (the default) do not merge exactly: the result "
                                           "is not the model trained on all the parts (train with MultinomialNB")
    other = DiscriminativeNB(alpha=1.0, event_model="complement").fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DataWarning)
        with pytest.raises(SettingsDiffer):
            DiscriminativeNB(alpha=1.0, event_model="bernoulli").fit(X, y).merge(other)


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
