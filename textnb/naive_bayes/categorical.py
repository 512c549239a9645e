"""scikit-learn's ``CategoricalNB`` on textnb's tabular engine.

:class:`CategoricalNB` is :class:`~textnb.naive_bayes.tabular.TabularNB` with every
column nominal, its values the integers ``0 .. n_categories_j - 1``, under
scikit-learn's parameter and attribute names (``alpha``, ``force_alpha``, ``fit_prior``,
``class_prior``, ``min_categories``, ``category_count_``, ``n_categories_``,
``feature_log_prob_`` as one array per feature) and numbers:
``P(x_j = t | c) = (N_ctj + α) / (N_c + α n_j)`` and the class prior of the count
models (relative class weights, uniform, or fixed). The counts are the engine's one-hot
blocks, so ``fit``, ``partial_fit`` (a later batch with a new category widens its
feature), ``merge`` and model files work as for TabularNB.

Reference: Witten & Frank, *Data Mining* §4.2 (naive Bayes on nominal attributes).
"""

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_non_negative, validate_data

from textnb.core.estimates import check_alpha, class_log_prior
from textnb.core.attributes import code_attributes
from textnb.core.errors import ParameterError
from textnb.core.model_io import register
from textnb.core.model_schema import (CLASS_PRIOR, MAX_DIM, SMOOTHING, Array, Bool, Int, ListOf, OneOf, Optional,
                                      check_param_values)
from textnb.naive_bayes.base import NominalCodesMixin
from textnb.naive_bayes.tabular import TabularNB
from textnb.naive_bayes.kernels import all_or_nothing

__all__ = ["CategoricalNB"]

_WHO = "CategoricalNB (input X)"


@register
class CategoricalNB(NominalCodesMixin, TabularNB):
    """Naive Bayes for categorical features: scikit-learn's ``CategoricalNB`` (same
    parameters, attributes and numbers), on :class:`~textnb.naive_bayes.tabular.TabularNB`'s
    count tables.

    Each column holds category codes ``0, 1, 2, ...`` (non-negative integers; floats
    are truncated, as scikit-learn does). A code never seen in training but below
    ``n_categories_`` gets the smoothed probability ``α / (N_c + α n_j)``; a code at or
    above it is refused with a ValueError naming the column.

    Parameters
    ----------
    alpha : float, default=1.0
        Additive (Laplace/Lidstone) smoothing.
    force_alpha : bool, default=True
        Use ``alpha`` as given; when False values below 1e-10 become 1e-10 (with a
        warning). Log probabilities are floored at ``log(2.2e-308)``, never ``-inf``.
    fit_prior : bool, default=True
        Learn the class prior from the class weights; uniform when False.
    class_prior : array-like of shape (n_classes,), default=None
        Fixed class priors.
    min_categories : int or array-like of shape (n_features,), default=None
        At least this many categories per feature (codes ``0 .. min_categories - 1``
        are valid at prediction even when unseen in training).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
    class_log_prior_ : ndarray of shape (n_classes,)
    category_count_ : list of ndarray of shape (n_classes, n_categories_j)
        Weighted count of each category per class, one array per feature.
    feature_log_prob_ : list of ndarray of shape (n_classes, n_categories_j)
        ``log P(x_j = t | c)``.
    n_categories_ : ndarray of shape (n_features,)
    n_features_in_ : int

    Examples
    --------
    >>> from textnb import CategoricalNB
    >>> CategoricalNB().fit([[0, 1], [1, 0], [0, 1]], ["a", "b", "a"]).predict([[0, 1]])
    array(['a'], dtype='<U1')
    """

    # the engine's settings this model fixes (not parameters)
    attributes = None
    nominal = "additive"
    m = 2.0
    numeric = "gaussian"
    bins = 10
    var_smoothing = 1e-9
    interval_fit = "theorem1"

    _param_schema = {
        "alpha": SMOOTHING, "force_alpha": Bool(), "fit_prior": Bool(), "class_prior": CLASS_PRIOR,
        "min_categories": Optional(OneOf(Int(1, MAX_DIM), ListOf(Int(1, MAX_DIM)), Array("iu", (None,)))),
    }
    _state_schema = TabularNB._state_schema

    def __init__(self, *, alpha=1.0, force_alpha=True, fit_prior=True, class_prior=None, min_categories=None):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.min_categories = min_categories

    _tags = {"input_tags.allow_nan": False}  # (category codes, as NominalCodesMixin's, but no NaN)

    # -- input: category codes, through the engine's validation hooks (its fit, partial_fit
    #    and _check_X call them once, so validate_data records and checks feature_names_in_
    #    as for TabularNB and GaussianNB; a DataFrame's cells are the codes themselves)
    def _frame_in(self, X, *, first, batch=False):
        return X, None

    def _validate_x(self, X, *, reset):
        X = validate_data(self, X, dtype="int", reset=reset)
        check_non_negative(X, _WHO)
        return X.astype(np.float64)

    def _validate_xy(self, X, y, *, reset):
        X, y = validate_data(self, X, y, dtype="int", reset=reset)
        check_non_negative(X, _WHO)
        check_classification_targets(y)
        return X.astype(np.float64), y

    def _n_categories(self, X):
        """Categories per feature: the largest code + 1, at least ``min_categories``."""
        n = X.max(axis=0) + 1 if X.shape[0] else np.zeros(X.shape[1], dtype=np.int64)
        if self.min_categories is None:
            return n.astype(np.int64)
        least = np.asarray(self.min_categories)
        if not np.issubdtype(least.dtype, np.integer):
            raise ParameterError(f"'min_categories' should have integral type. Got {least.dtype} instead.")
        out = np.maximum(n, least).astype(np.int64)
        if out.shape != n.shape:
            raise ParameterError(f"'min_categories' should have shape ({X.shape[1]},) when an array-like is "
                             f"provided. Got {least.shape} instead.")
        return out

    def _resolve_attributes(self, n_features, frame=None, *, first_batch=False):
        names = getattr(self, "feature_names_in_", None)
        names = [str(n) for n in names] if names is not None else [f"x{j}" for j in range(n_features)]
        return code_attributes(names, self._pending_categories)

    def _check_params(self):
        """The parameters against their declared schema (``min_categories=-2`` was taken)."""
        check_param_values(self._param_schema, {name: getattr(self, name) for name in self._param_schema})
        m = self.min_categories  # (a structured value: the schema check leaves it to its reader)
        if m is not None and (isinstance(m, (bool, np.bool_)) or np.asarray(m).dtype.kind not in "iu"
                              or np.any(np.asarray(m) < 1)):
            raise ParameterError(f"min_categories must be None, an integer >= 1 or one per feature; got {m!r}")

    @all_or_nothing
    def fit(self, X, y, sample_weight=None):
        """Fit from category codes ``X`` and labels ``y``; returns self."""
        self._check_params()
        return super().fit(X, y, sample_weight=sample_weight)

    @all_or_nothing
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add a batch (``classes`` required on the first call); new categories widen
        their feature."""
        self._check_params()
        return super().partial_fit(X, y, classes=classes, sample_weight=sample_weight)

    def _init_state(self, X, y_index, w, frame=None, *, first_batch=False):
        self._pending_categories = self._n_categories(X)
        try:
            super()._init_state(X, y_index, w, frame, first_batch=first_batch)
        finally:
            del self._pending_categories

    def _count(self, X, y_index, w):
        n = np.maximum(self.n_values_, self._n_categories(X))
        if not np.array_equal(n, self.n_values_):  # a later batch's new categories widen their feature
            self._widen(code_attributes([a.name for a in self.attributes_], n))
        super()._count(X, y_index, w)

    # -- parameters -----------------------------------------------------------------------
    def _smoothing(self):
        return "additive", check_alpha(self.alpha, self.force_alpha, per_feature=False)

    def _update_class_log_prior(self):
        self.class_log_prior_ = class_log_prior(self.class_count_, fit_prior=self.fit_prior,
                                                class_prior=self.class_prior)

    def _update_feature_log_prob(self):
        super()._update_feature_log_prob()
        self._log_prob = self.feature_log_prob_  # the engine's blocks side by side
        self.feature_log_prob_ = self._blocks(self._log_prob)

    def _blocks(self, a):
        return np.split(a, np.cumsum(self.n_values_)[:-1], axis=1) if len(self.n_values_) else []

    def _joint_log_likelihood(self, X):
        return self._one_hot_dot(X, self._log_prob) + self.class_log_prior_

    @property
    def category_count_(self):
        """Weighted category counts per class, one (n_classes, n_categories_j) array per feature."""
        return self._blocks(self.feature_count_)

    @property
    def n_categories_(self):
        """Number of categories of each feature."""
        return np.asarray(self.n_values_, dtype=np.int64)
