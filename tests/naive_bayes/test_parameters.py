"""Estimator parameters are checked at fit and partial_fit against their declared schema."""

import numpy as np
import pytest

import textnb


@pytest.mark.parametrize("make, message", [
    (lambda: textnb.MultinomialNB(fit_prior="yes"), "fit_prior must be True or False"),
    (lambda: textnb.BernoulliNB(fit_prior="yes"), "fit_prior must be True or False"),
    (lambda: textnb.ComplementNB(norm=3), "norm must be True or False"),
    (lambda: textnb.CategoricalNB(min_categories=-2), "min_categories must be None, an integer >= 1"),
    (lambda: textnb.CategoricalNB(min_categories=[0, 3, 3]), "min_categories must be None"),
])
def test_bad_parameters_are_refused_at_fit_as_scikit_learn_refuses_them(make, message):
    """A user trial found them taken without a word (scikit-learn raises InvalidParameterError)."""
    from textnb.core.errors import ParameterError

    X, y = np.array([[1, 0, 2], [0, 1, 1], [2, 1, 0], [0, 2, 1]]), [0, 1, 0, 1]
    with pytest.raises(ParameterError, match=message):
        make().fit(X, y)
    with pytest.raises(ParameterError, match=message):
        make().partial_fit(X, y, classes=[0, 1])


@pytest.mark.parametrize("make, key", [
    (lambda: textnb.TextClassifier(), "vectorizer__min_df"), (lambda: textnb.TextClassifier(), "model__alpha"),
    (lambda: textnb.CalibratedNB(), "estimator__alpha"), (lambda: textnb.SmoothingCV(), "estimator__alpha"),
    (lambda: textnb.APNBC(), "estimator__alpha"), (lambda: textnb.MultiLabelNB(), "estimator__alpha"),
    (lambda: textnb.Discretized(), "estimator__alpha")],
    ids=["text-vectorizer", "text-model", "calibrated", "smoothing-cv", "apnbc", "multilabel", "discretized"])
def test_a_nested_parameter_of_a_part_left_none_is_an_invalid_parameter(make, key):
    """``set_params(vectorizer__min_df=2)`` on ``TextClassifier()`` (whose vectorizer is None,
    a Vectorizer() at fit) is scikit-learn's kind of ValueError, naming the part to give
    (it was AttributeError: 'NoneType' object has no attribute 'set_params', also inside
    GridSearchCV); with the part given, in the same call or before, it is set."""
    part = key.split("__")[0]
    model = make()
    assert model.get_params()[part] is None  # the default stays None (get_params, model files unchanged)
    with pytest.raises(ValueError, match=rf"Invalid parameter '{key}' for estimator {type(model).__name__}: its "
                                         rf"{part} is None .* give the {part} first"):
        model.set_params(**{key: 2})
    inner = textnb.Vectorizer() if part == "vectorizer" else textnb.MultinomialNB()
    assert model.set_params(**{part: inner, key: 2}).get_params()[key] == 2
    assert make().set_params(**{part: textnb.MultinomialNB() if part != "vectorizer" else textnb.Vectorizer()}) \
        .set_params(**{key: 3}).get_params()[key] == 3


def test_a_grid_search_over_the_vectorizer_of_a_text_classifier():
    from sklearn.model_selection import GridSearchCV

    docs, y = ["cheap pills now", "lunch at noon", "cheap offer", "noon meeting"] * 5, ["s", "h", "s", "h"] * 5
    with pytest.raises(ValueError, match="give the vectorizer first: TextClassifier\\(vectorizer=Vectorizer\\(\\)\\)"):
        GridSearchCV(textnb.TextClassifier(), {"vectorizer__min_df": [1, 2]}, cv=2, error_score="raise").fit(docs, y)
    grid = GridSearchCV(textnb.TextClassifier(vectorizer=textnb.Vectorizer()), {"vectorizer__min_df": [1, 2]}, cv=2)
    assert grid.fit(docs, y).best_params_ in ({"vectorizer__min_df": 1}, {"vectorizer__min_df": 2})
