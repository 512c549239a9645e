"""scikit-learn's ``GaussianNB`` on textnb's tabular engine.

:class:`GaussianNB` is :class:`~textnb.naive_bayes.tabular.TabularNB` with every column
numeric and Gaussian, under scikit-learn's parameter and attribute names (``priors``,
``var_smoothing``, ``class_prior_``, ``theta_``, ``var_``, ``epsilon_``) and with
scikit-learn's estimates where TabularNB's differ: the weighted *population* variance
(TabularNB: the sample variance, the textbook's; Weka's NaiveBayes uses neither, see
:mod:`textnb.naive_bayes.tabular`), a class whose values are all equal
keeps its variance 0 plus ``epsilon_`` (TabularNB borrows the pooled variance), and the
class prior is the relative class weight without smoothing. The statistics (per-class
weighted count, mean and centred second moment) are the engine's own, so ``fit``,
chunked ``partial_fit``, ``merge`` and model files work as for TabularNB.

Reference: T. F. Chan, G. H. Golub, R. J. LeVeque (1979), "Updating formulae and a
pairwise algorithm for computing sample variances" (the moment updates of
:class:`textnb.core.stats.GaussianMoments`).
"""

import numpy as np

from textnb.core.errors import ParameterError
from textnb.core.model_io import register
from sklearn.utils.validation import check_array

from textnb.core.model_schema import MAX_REAL, Array, Float, ListOf, MayBeAbsent, OneOf, Optional
from textnb.core.estimates import LOG_FLOOR
from textnb.naive_bayes.tabular import TabularNB
from textnb.naive_bayes.kernels import all_or_nothing

__all__ = ["GaussianNB", "check_priors"]


def check_priors(priors, n_classes):
    """``priors`` as a float array, with scikit-learn's checks and messages."""
    priors = np.asarray(priors, dtype=np.float64)
    if priors.ndim != 1 or len(priors) != n_classes:
        raise ParameterError("Number of priors must match number of classes.")
    if not np.isclose(priors.sum(), 1.0):
        raise ParameterError("The sum of the priors should be 1.")
    if (priors < 0).any():
        raise ParameterError("Priors must be non-negative.")
    return priors


@register
class GaussianNB(TabularNB):
    """Gaussian naive Bayes: scikit-learn's ``GaussianNB`` (same parameters, attributes
    and numbers), on :class:`~textnb.naive_bayes.tabular.TabularNB`'s statistics.

    ``log P(x | c) = Σ_j log N(x_j; θ_cj, σ²_cj)`` with ``θ_cj`` the weighted class mean
    and ``σ²_cj`` the weighted population variance plus ``epsilon_``. A missing value
    (NaN) is left out of the counts and of the product (TabularNB's rule; scikit-learn
    rejects NaN).

    Parameters
    ----------
    priors : array-like of shape (n_classes,), default=None
        Fixed class priors; else the relative class weights.
    var_smoothing : float, default=1e-9
        Fraction of the largest feature variance added to every variance.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
        Summed sample weight per class.
    class_prior_ : ndarray of shape (n_classes,)
    theta_ : ndarray of shape (n_classes, n_features)
        Per-class means.
    var_ : ndarray of shape (n_classes, n_features)
        Per-class variances (``epsilon_`` included).
    epsilon_ : float
        ``var_smoothing`` times the largest variance of a feature over all classes.
    n_features_in_ : int

    Examples
    --------
    >>> from textnb import GaussianNB
    >>> GaussianNB().fit([[-1.0], [-2.0], [1.0], [2.0]], [0, 0, 1, 1]).predict([[0.8]])
    array([1])
    """

    # the engine's settings this model fixes (not parameters)
    attributes = None
    nominal = "additive"
    alpha = 0.0
    m = 2.0
    numeric = "gaussian"
    bins = 10
    interval_fit = "theorem1"

    _param_schema = {
        "priors": Optional(OneOf(ListOf(Float(0.0, 1.0), length="n_classes"), Array("f", ("n_classes",)))),
        "var_smoothing": Float(0.0, 1.0),
    }
    _state_schema = {**TabularNB._state_schema, "epsilon_": MayBeAbsent(Float(0.0, MAX_REAL))}

    def __init__(self, *, priors=None, var_smoothing=1e-9):
        self.priors = priors
        self.var_smoothing = var_smoothing

    def _get_state(self):
        return {**super()._get_state(), "epsilon_": self.epsilon_}

    def _set_state(self, state):
        state = dict(state)
        epsilon = state.pop("epsilon_", None)
        if epsilon is not None:
            self.epsilon_ = float(epsilon)
        super()._set_state(state)

    @property
    def class_prior(self):  # the engine's name of ``priors``
        return self.priors

    @property
    def class_prior_(self):
        """``P(c)``, shape (n_classes,)."""
        return np.exp(self.class_log_prior_)

    def _update_class_log_prior(self):
        cc = np.asarray(self.class_count_, dtype=np.float64)
        if self.priors is not None:
            prior = check_priors(self.priors, len(cc))
        else:
            total = cc.sum()
            prior = cc / total if total > 0 else np.full(len(cc), 1.0 / len(cc))
        with np.errstate(divide="ignore"):
            self.class_log_prior_ = np.maximum(np.log(prior), LOG_FLOOR)

    def _set_epsilon(self, X):
        """``epsilon_`` from the (unweighted) variance of the columns of ``X``, as
        scikit-learn's ``fit``; ``partial_fit`` keeps its first batch's (scikit-learn's sets
        it from each batch and mixes them into ``var_``: docs/sklearn_parity.md)."""
        X = check_array(X, dtype=np.float64, ensure_all_finite="allow-nan", ensure_min_samples=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            top = np.nanmax(np.nanvar(X, axis=0), initial=0.0) if X.size else 0.0
        self.epsilon_ = float(self.var_smoothing) * (float(top) if np.isfinite(top) else 0.0)

    @all_or_nothing
    def fit(self, X, y, sample_weight=None):
        """Fit from numeric ``X`` and labels ``y``; returns self."""
        self.__dict__.pop("epsilon_", None)
        self._pending = X
        try:
            return super().fit(X, y, sample_weight=sample_weight)
        finally:
            self.__dict__.pop("_pending", None)

    @all_or_nothing
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add a batch; ``classes`` is required on the first call."""
        if not hasattr(self, "classes_"):
            self.__dict__.pop("epsilon_", None)
        self._pending = X
        try:
            return super().partial_fit(X, y, classes=classes, sample_weight=sample_weight)
        finally:
            self.__dict__.pop("_pending", None)

    def _update_gaussian(self):
        n, mean, m2 = self._pooled_moments()
        with np.errstate(invalid="ignore", divide="ignore"):
            overall = np.where(n > 0, m2 / np.where(n > 0, n, 1), 0.0)
            var = np.where(self.moment_count_ > 0, self.moment_m2_ / np.where(self.moment_count_ > 0,
                                                                               self.moment_count_, 1), 0.0)
        if "epsilon_" not in self.__dict__:
            if "_pending" in self.__dict__:
                self._set_epsilon(self._pending)
            else:  # fitted from sums only (merge): the weighted pooled variance
                self.epsilon_ = float(self.var_smoothing) * (overall.max() if overall.size else 0.0)
        floor = max(self.epsilon_, np.finfo(np.float64).tiny)  # a constant feature: never a variance of 0
        self._mean = np.where(self.moment_count_ > 0, self.theta_, mean)
        self.var_ = np.maximum(var + self.epsilon_, floor)
