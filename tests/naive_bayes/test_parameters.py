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
