"""Checks every table model (and the wrappers and lazy models around them) must pass:
a failed ``fit`` leaves the estimator as it was, and a model fitted on a DataFrame is
predicted by ``textnb predict`` as the library predicts it (session 16's user trial)."""

import io

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

from textnb import (AODE, APNBC, LBR, TAN, BayesNetClassifier, BernoulliNB, CalibratedNB, CategoricalNB, ComplementNB,
                    DiscriminativeNB, GaussianNB, MixedNB, MultinomialNB, SmoothingCV, TabularNB, TextClassifier)
from textnb.io.tables import Attribute
from textnb.naive_bayes.discretized import Discretized
from textnb.semi_naive.lbr_text import LazyTextNB

GOOD_X, GOOD_Y = np.array([[0, 1], [1, 0], [1, 1], [0, 0]]), ["a", "b", "a", "b"]
FRACTIONAL = (np.array([[0.5, 1], [1, 0]]), ["a", "b"])  # a value index that is not a whole number
CONTINUOUS_Y = (GOOD_X, [0.5, 1.5, 0.5, 1.5])
NEGATIVE = (-GOOD_X, GOOD_Y)
NOMINAL = (Attribute("a", "nominal", ["0", "1"]), Attribute("b", "nominal", ["0", "1"]))

FAILING_FITS = {
    # (the model, a fit that raises): what each model left behind is in the comment
    "tabular-fractional": (lambda: TabularNB(attributes=NOMINAL), FRACTIONAL),  # save wrote a half-fitted model
    "tabular-continuous-y": (lambda: TabularNB(attributes=NOMINAL), ([[0, 1], [1, 0]], [0.5, 1.5])),
    "aode": (AODE, FRACTIONAL),  # classes_, n_features_in_: save raised AttributeError
    "tan": (TAN, FRACTIONAL),
    "bn": (lambda: BayesNetClassifier(parents={"x1": ["class", "x0"]}), FRACTIONAL),
    "lbr": (LBR, CONTINUOUS_Y),  # n_features_in_
    "discretized": (lambda: Discretized(LBR()), CONTINUOUS_Y),
    "apnbc": (lambda: APNBC(MultinomialNB()), NEGATIVE),  # n_features_in_: save raised ModelFileError
    "lazy-text": (LazyTextNB, NEGATIVE),
    # the count and wrapper models (session 17): n_features_in_ or classes_ left, so
    # check_is_fitted passed and predict raised AttributeError / KeyError
    "multinomial": (MultinomialNB, NEGATIVE),
    "complement": (ComplementNB, NEGATIVE),
    "bernoulli": (BernoulliNB, CONTINUOUS_Y),
    "discriminative": (DiscriminativeNB, NEGATIVE),
    "categorical": (CategoricalNB, NEGATIVE),
    "gaussian": (GaussianNB, CONTINUOUS_Y),
    "mixed": (MixedNB, CONTINUOUS_Y),
    "calibrated": (lambda: CalibratedNB(MultinomialNB(), cv=2), NEGATIVE),  # classes_ too
    "smoothing-cv": (lambda: SmoothingCV(MultinomialNB(), cv=2), NEGATIVE),  # classes_, cv_results_, best_params_
}


@pytest.mark.parametrize("name", list(FAILING_FITS))
def test_failed_fit_leaves_the_model_as_it_was(tmp_path, name):
    """A fit that raises leaves no fitted attribute behind (check_is_fitted passed on a
    half-fitted model, and save failed or wrote it), and a fitted model keeps its fit."""
    make, (bad_X, bad_y) = FAILING_FITS[name]
    model = make()
    with pytest.raises(ValueError):
        model.fit(np.array(bad_X), bad_y)
    with pytest.raises(NotFittedError):
        check_is_fitted(model)
    with pytest.raises(NotFittedError):
        model.save(tmp_path / "m.tnb")
    assert not (tmp_path / "m.tnb").exists()
    before = model.fit(GOOD_X, GOOD_Y).predict_proba(GOOD_X)
    with pytest.raises(ValueError):
        model.fit(np.array(bad_X), bad_y)
    assert_array_equal(model.predict_proba(GOOD_X), before)
    assert model.n_features_in_ == 2


@pytest.mark.parametrize("make", [AODE, TAN, lambda: BayesNetClassifier(parents={"windy": ["outlook"]}), LBR],
                         ids=["aode", "tan", "bn", "lbr"])
def test_dataframe_fitted_model_predicts_on_the_command_line(tmp_path, make):
    """A model fitted on a DataFrame records the frame's attributes, so ``textnb predict``
    reads a CSV of the same columns and gives the library's predictions and probabilities
    (it said 'a TANKernel model does not record its table attributes')."""
    from textnb.cli import main

    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"outlook": ["sunny", "sunny", "overcast", "rain", "rain", "rain", "overcast", "sunny"],
                       "windy": ["no", "yes", "no", "no", "no", "yes", "yes", "no"],
                       "play": ["no", "no", "yes", "yes", "yes", "no", "yes", "no"]})
    df.to_csv(tmp_path / "play.csv", index=False)
    X, y = df.drop(columns="play"), df["play"]
    model = make().fit(X, y)
    model.save(tmp_path / "m.tnb")
    out, err = io.StringIO(), io.StringIO()
    code = main(["predict", "--proba", str(tmp_path / "m.tnb"), str(tmp_path / "play.csv")], stdout=out, stderr=err)
    assert code == 0, err.getvalue()
    rows = [line.split("\t") for line in out.getvalue().splitlines()]
    assert [r[1] for r in rows] == list(model.predict(X))
    cli_no = [float(r[2].removeprefix("no=")) for r in rows]
    assert_allclose(cli_no, model.predict_proba(X)[:, 0], atol=1e-6)


@pytest.mark.parametrize("make", [MultinomialNB, DiscriminativeNB, CategoricalNB, GaussianNB,
                                  lambda: TextClassifier(), TabularNB, AODE],
                         ids=["multinomial", "discriminative", "categorical", "gaussian", "text", "tabular", "aode"])
def test_failed_first_partial_fit_leaves_the_model_unfitted(make):
    model = make()
    bad_X = -GOOD_X if not isinstance(model, TextClassifier) else ["good words", None]
    bad_y = GOOD_Y if not isinstance(model, TextClassifier) else ["a", "b"]
    if isinstance(model, (GaussianNB, TabularNB)):
        bad_X = np.array([[np.inf, 1.0], [1.0, 0.0]])
        bad_y = ["a", "b"]
    if isinstance(model, AODE):
        bad_X, bad_y = FRACTIONAL
    with pytest.raises((ValueError, TypeError)):  # (a document that is not text: TypeError)
        model.partial_fit(bad_X, bad_y, classes=["a", "b"])
    with pytest.raises(NotFittedError):
        check_is_fitted(model)
    assert not [k for k in vars(model) if k.endswith("_") and not k.startswith("_")]


def test_a_failed_partial_fit_keeps_the_counts():
    """A later batch that is refused (a value index that is not a whole number) adds
    nothing: the model predicts as before."""
    for model in (AODE(), TabularNB(attributes=NOMINAL), MultinomialNB()):
        model.partial_fit(GOOD_X, GOOD_Y, classes=["a", "b"])
        before = model.predict_proba(GOOD_X)
        bad = FRACTIONAL[0] if not isinstance(model, MultinomialNB) else -FRACTIONAL[0]
        with pytest.raises(ValueError):
            model.partial_fit(bad, FRACTIONAL[1])
        assert_array_equal(model.predict_proba(GOOD_X), before)


def test_calibrated_table_model_takes_a_dataframe():
    """CalibratedNB(TabularNB()) on a DataFrame with a nominal column, as the table model
    alone and scikit-learn's CalibratedClassifierCV take it (its own float conversion
    refused 'red'); the same probabilities as on the table's value codes."""
    pd = pytest.importorskip("pandas")
    from textnb import table_from_frame

    rng = np.random.RandomState(0)
    df = pd.DataFrame({"colour": rng.choice(["red", "green", "blue"], 60), "size": rng.rand(60)})
    y = np.where(df.colour == "red", "a", "b")
    y[:10] = "a"
    framed = CalibratedNB(TabularNB(), cv=3).fit(df, y)
    table = table_from_frame(df.assign(cls=y), "cls")
    coded = CalibratedNB(TabularNB(attributes=tuple(table.attributes)), cv=3).fit(table.X, table.y)
    assert_allclose(framed.predict_proba(df), coded.predict_proba(table.X))
    assert list(framed.feature_names_in_) == ["colour", "size"]


@pytest.mark.parametrize("make", [TAN, AODE, BayesNetClassifier, LBR, TabularNB])
def test_infinity_in_a_dataframe_is_a_value_error(make):
    pd = pytest.importorskip("pandas")
    X = pd.DataFrame({"outlook": ["sunny", "rain", "sunny", "rain"], "temp": [np.inf, 70.0, 80.0, 65.0]})
    with pytest.raises(ValueError, match="infinity"):
        make().fit(X, ["no", "yes", "no", "yes"])
