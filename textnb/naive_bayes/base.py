"""What every textnb classifier shares: the prediction methods on top of a joint log likelihood.

Subclasses implement ``_joint_log_likelihood(X)`` (shape ``(n_samples, n_classes)``,
columns in the order of ``classes_``) and ``_check_X(X)``; this base turns it into
``predict``, ``predict_proba``, ``predict_log_proba``, ``predict_joint_log_proba`` and
``predict_log_odds`` exactly as scikit-learn's ``naive_bayes._BaseNB`` does, and adds
``save`` (see :mod:`textnb.core.model_io`).
"""

from abc import ABCMeta, abstractmethod
from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from textnb.core.estimates import check_class_prior
from textnb.core.logspace import log_odds
from textnb.core.errors import ModelFileError
from textnb.core.errors import short_repr as _short
from textnb.core.folds import given_splits
from textnb.core.model_io import save
from textnb.core.model_schema import CV_SCHEMA
from textnb.naive_bayes.scoring import (Scores, check_nominal_codes, check_partial_fit_labels, check_sample_weight,
                                        partial_fit_classes)

__all__ = ["SaveMixin", "BaseNB", "NominalCodesMixin", "CV_SCHEMA", "given_splits", "check_class_prior", "check_nominal_codes", "check_partial_fit_labels", "check_sample_weight",
           "log_odds",
           "partial_fit_classes"]


class SaveMixin:
    """``save(path)`` for every textnb estimator: one implementation (the model file of
    :func:`textnb.core.model_io.save`: arrays and JSON, written atomically, never a pickle)."""

    def save(self, path):
        """Write the fitted model to ``path`` (a ``.tnb`` file, atomically; no pickle).

        Raises :class:`~textnb.core.errors.ModelFileError` (one line, nothing written) when
        a ``cv`` parameter, here or in a model this one holds, is a splitter object or a
        one-shot iterator: a model file stores data, never objects. Set it to an int or to
        a list of ``(train, test)`` index arrays first (``set_params(cv=5)``).
        """
        check_is_fitted(self)
        _check_storable_cv(self, path)
        save(self, path)


def _check_storable_cv(estimator, path):
    """Refuse a model whose ``cv`` (or a nested ``…__cv``) a model file cannot hold."""
    params = estimator.get_params(deep=True) if hasattr(estimator, "get_params") else {}
    for name, value in params.items():
        if (name == "cv" or name.endswith("__cv")) and not (
                value is None or isinstance(value, (list, tuple))
                or (isinstance(value, Integral) and not isinstance(value, bool))):
            raise ModelFileError(
                f"{path}: cannot save a {type(estimator).__name__} whose {name} is {_short(value)}: a model "
                f"file stores an int or a list of (train, test) index arrays, not a splitter object; "
                f"set_params({name}=...) to one of those first; nothing was written")




class BaseNB(SaveMixin, Scores, ClassifierMixin, BaseEstimator, metaclass=ABCMeta):
    """Abstract base of textnb's naive Bayes estimators (log space throughout)."""

    @abstractmethod
    def _joint_log_likelihood(self, X):
        """log P(c) + log P(x | c) up to a constant per row, shape (n_samples, n_classes)."""

    @abstractmethod
    def _check_X(self, X):
        """Validate X for prediction (``reset=False``)."""

    def _check_fitted(self):
        check_is_fitted(self)

    def _validate_x(self, X, *, reset):
        """A table's ``X`` (float64, NaN = missing): scikit-learn's ``validate_data``
        (``n_features_in_``, ``feature_names_in_``); the estimator of a kernel takes this
        instead of the kernel's :class:`~textnb.naive_bayes.scoring.TableInput`."""
        return validate_data(self, X, dtype=np.float64, ensure_all_finite="allow-nan", reset=reset)

    def _validate_xy(self, X, y, *, reset):
        """``validate_data`` of a table's ``X`` and ``y``, and the classification-target check."""
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_all_finite="allow-nan", reset=reset)
        check_classification_targets(y)
        return X, y

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.poor_score = True
        return tags


class NominalCodesMixin:
    """Input tags of the models that take nominal value indices (TAN/BN, AODE): integers
    >= 0 with NaN for a missing value (see :func:`check_nominal_codes`)."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.categorical = True
        tags.input_tags.positive_only = True
        return tags


