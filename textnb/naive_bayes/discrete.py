"""Naive Bayes for documents: the multinomial and Bernoulli event models.

Both keep a :class:`textnb.core.stats.CountTable` (weighted class counts and per-class
feature counts) as their fitted state; the log parameters are derived from it. So
``fit``, chunked ``partial_fit``, :meth:`merge` of models trained on shards, and a model
file all hold the same sums. References: Witten & Frank, *Data Mining* §4.2 (the
multinomial event model; ``../shared/design/algorithms.md`` §1); McCallum & Nigam
(1998), "A comparison of event models for naive Bayes text classification".
"""

from operator import attrgetter

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, check_non_negative, validate_data

from textnb.naive_bayes.base import BaseNB, check_partial_fit_labels, check_sample_weight, partial_fit_classes
from textnb.naive_bayes.kernels import BERNOULLI, MULTINOMIAL, all_or_nothing, form_log_likelihood, takes_defaults, weighted_sum
from textnb.core.model_io import register
from textnb.core.model_schema import check_param_values, check_same_settings
from textnb.core.stats import CountTable, class_positions, merge_aligned
from textnb.core.wrapping import checked_merge

__all__ = ["MultinomialNB", "BernoulliNB", "weighted_sum"]



class _BaseCountNB(BaseNB):
    """Shared fit / partial_fit / merge of the count models: a scikit-learn adapter over a
    kernel (:mod:`textnb.naive_bayes.kernels`).

    A subclass names its ``_kernel`` (parameters and their defaults, the estimates, the
    linear form, the model file's state) and may override ``_transform_counts(X)``.
    """

    _kernel = MULTINOMIAL
    #: what a model file may hold (textnb.core.model_schema): the kernel's declarations
    _param_schema = _kernel.param_schema
    _state_schema = _kernel.state_schema

    _positive_only = True
    _tags = {"input_tags.sparse": True, "input_tags.positive_only": attrgetter("_positive_only")}

    @takes_defaults(MULTINOMIAL)  # (MultinomialNB's own; the other kinds add theirs)
    def __init__(self, *, alpha, force_alpha, m, fit_prior, class_prior):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.m = m
        self.fit_prior = fit_prior
        self.class_prior = class_prior

    def _transform_counts(self, X):
        """What is summed per object: the counts themselves (Bernoulli: presence)."""
        return X

    def _check_X(self, X):
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        self._check_values(X)
        return X

    def _check_values(self, X):
        data = X.data if sp.issparse(X) else X
        if not np.all(np.isfinite(data)):
            raise ValueError(f"Input X contains NaN or infinity ({type(self).__name__}).")
        if self._positive_only:
            check_non_negative(X, f"{type(self).__name__} (input X)")

    def _kernel_params(self):
        return {name: getattr(self, name) for name in self._kernel.defaults}

    def with_choices(self):
        """Capability (:func:`textnb.naive_bayes.base.with_choices`): this model, unfitted,
        with the choices its ``fit`` made from the data fixed in its parameters
        (DiscriminativeNB's ``event_model="auto"``: the event model and smoothing it chose;
        the kernel's :meth:`~textnb.naive_bayes.kernels.CountKernel.chosen_params`), or None
        when it made none."""
        check_is_fitted(self)
        chosen = self._kernel.chosen_params(self._kernel_params(), vars(self))
        return None if chosen is None else clone(self).set_params(**chosen)

    def _check_same_settings(self, other):
        """Refuse to merge ``other`` when a parameter other than an execution-only one
        (``n_jobs``; the kernel's ``merge_ignores``) differs: :class:`~textnb.core.errors.SettingsDiffer`
        naming it (the merged model would keep this model's value and drop the other's)."""
        kernel = self._kernel
        check_same_settings(self._kernel_params(), other._kernel_params(),
                            skip=kernel.execution_params + kernel.merge_ignores)

    # -- fitting ----------------------------------------------------------------
    @all_or_nothing
    def fit(self, X, y, sample_weight=None):
        """Fit from a (sparse) count matrix X and labels y; returns self."""
        return self._fit(X, y, sample_weight)

    def _fit(self, X, y, sample_weight, **learn):
        """``fit``'s work; ``learn``: more of the batch for ``_learn`` (a subclass's ``groups``)."""
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, reset=True)
        check_classification_targets(y)
        self._check_values(X)
        self.classes_, y_index = np.unique(y, return_inverse=True)
        self._reset()
        self._init_counts(X.shape[1])
        self._learn(X, y_index, sample_weight, **learn)
        return self

    @all_or_nothing
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add a batch to the counts. ``classes`` is required on the first call."""
        all_classes, first = partial_fit_classes(self, classes)
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, reset=first)
        self._check_values(X)
        if first:
            self.classes_ = all_classes
            self._init_counts(X.shape[1])
        check_classification_targets(y)
        check_partial_fit_labels(y, self.classes_)
        self._learn(X, class_positions(self.classes_, y), sample_weight)
        return self

    def _reset(self):
        """Forget what an earlier ``fit`` learned beyond the counts (a subclass's choices)."""

    def _learn(self, X, y_index, sample_weight):
        """Learn a checked batch: add it to the counts and derive the parameters."""
        self._count(X, y_index, sample_weight)
        self._update()

    def _init_counts(self, n_features):
        table = CountTable(len(self.classes_), n_features)
        self.class_count_ = table.class_count
        self.feature_count_ = table.feature_count

    def _table(self):
        table = CountTable.__new__(CountTable)
        table.class_count, table.feature_count = self.class_count_, self.feature_count_
        return table

    def _count(self, X, y_index, sample_weight=None):
        self._kernel.count(self._kernel_params(), self._table(), X, y_index,
                           check_sample_weight(sample_weight, X.shape[0]))

    def fit_counts(self, classes, class_count, feature_count):
        """Fit from precomputed sums (streaming, distributed or merged training).

        ``class_count`` (n_classes,) and ``feature_count`` (n_classes, n_features) are
        what :meth:`fit` would have summed: weighted objects per class and weighted
        counts (for Bernoulli: documents containing the feature) per class.
        """
        return self._fit_counts(classes, class_count, np.array(feature_count, dtype=np.float64, order="C"))

    def _fit_counts(self, classes, class_count, feature_count):
        """fit_counts keeping ``feature_count`` itself when it is float64 and C-ordered
        (for callers that pass a fresh array: no 8-bytes-per-cell copy)."""
        self.classes_ = np.asarray(classes)
        self.class_count_ = np.array(class_count, dtype=np.float64, order="C")
        self.feature_count_ = np.asarray(feature_count, dtype=np.float64, order="C")
        self.n_features_in_ = self.feature_count_.shape[1]
        self._update()
        return self

    def _set_merged(self, state):
        """Take a merged state (the kernel's ``merge_states``): its fields other than the
        counts, then the counts (:meth:`_fit_counts`); returns self."""
        for name, value in state.items():
            if name not in ("classes_", "class_count_", "feature_count_", "n_features_in_"):
                setattr(self, name, value)
        return self._fit_counts(state["classes_"], state["class_count_"], state["feature_count_"])

    def _update(self):
        """Derive the fitted parameters and the linear form from the counts (the kernel's),
        the parameters checked first (its declared schema: ``fit_prior="yes"`` or
        ``norm=3`` were taken, where scikit-learn raises)."""
        params = self._kernel_params()
        check_param_values(self._kernel.param_schema, params)
        fitted = self._kernel.estimate(params, vars(self))
        vars(self).update(fitted)
        self._form = self._kernel.linear_form(params, vars(self), fitted)

    def _joint_log_likelihood(self, X):
        return form_log_likelihood(self._form, self._transform_counts(X), X)

    def linear_form(self):
        """The fitted model as its kernel's :class:`~textnb.naive_bayes.kernels.LinearForm`
        (``jll = f(x) @ weights.T + bias``), or None where it is not linear (BernoulliNB
        with ``alpha=0``)."""
        check_is_fitted(self)
        return self._form

    @checked_merge
    def merge(self, other):
        """Add the counts of ``other`` (same kind, settings and features) into this model.

        Training on two halves and merging gives the model trained on the whole.
        Classes are aligned by name; a class only one side has gets zero counts on the
        other. Models whose parameters differ (``alpha``, ``fit_prior``, ``class_prior``,
        ``binarize``, ``norm``, ...; not ``n_jobs``) are refused with
        :class:`~textnb.core.errors.SettingsDiffer` (a ParameterError): the merge would
        keep one side's and drop the other's, so ``a.merge(b)`` and ``b.merge(a)`` would differ.
        """
        check_is_fitted(self)
        check_is_fitted(other)
        if type(other) is not type(self):
            raise ValueError(f"cannot merge a {type(other).__name__} into a {type(self).__name__}")
        self._check_same_settings(other)
        if other.feature_count_.shape[1] != self.feature_count_.shape[1]:
            raise ValueError(
                f"cannot merge models with {other.feature_count_.shape[1]} and "
                f"{self.feature_count_.shape[1]} features"
            )
        classes, table = merge_aligned([(m.classes_, m._table()) for m in (self, other)])
        self.classes_, self.class_count_, self.feature_count_ = classes, table.class_count, table.feature_count
        self._update()
        return self

    # -- model files ---------------------------------------------------------------
    def _get_state(self):
        return self._kernel.to_state(vars(self))

    def _set_state(self, state):
        vars(self).update(self._kernel.from_state(state))
        self._update()


@register
class MultinomialNB(_BaseCountNB):
    """Multinomial naive Bayes: word counts, ``P(d | c) ∝ Π_w θ_cw^{n_w}``.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Additive (Laplace/Lidstone) smoothing: ``θ_cw = (N_cw + α_w) / (N_c + Σ_w α_w)``
        (one value, or one per feature).
    force_alpha : bool, default=True
        Use ``alpha`` as given; when False, values below 1e-10 are raised to 1e-10 with
        a warning (so no log 0), scikit-learn's rule before 1.4. With ``alpha=0`` a term
        never seen in a class has probability 0 there, and a document containing it gets
        ``-inf`` for that class.
    m : float or None, default=None
        Use the m-estimate ``θ_cw = (N_cw + m p_w) / (N_c + m)`` instead of ``alpha``,
        with ``p_w`` the word's Laplace-smoothed frequency in the whole training set
        (Witten & Frank §4.2).
    fit_prior : bool, default=True
        Learn class priors from the class counts; uniform when False.
    class_prior : array-like of shape (n_classes,), default=None
        Fixed priors (override ``fit_prior``).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
        Summed sample weight per class.
    feature_count_ : ndarray of shape (n_classes, n_features)
        Summed weighted counts per class and feature.
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        ``log θ_cw``.
    class_log_prior_ : ndarray of shape (n_classes,)
    n_features_in_ : int

    Examples
    --------
    >>> from textnb import MultinomialNB
    >>> MultinomialNB().fit([[2, 0], [0, 3]], ["ham", "spam"]).predict([[1, 0]])
    array(['ham'], dtype='<U4')
    """



@register
class BernoulliNB(_BaseCountNB):
    """Bernoulli naive Bayes: every vocabulary word is a present/absent attribute.

    ``log P(d | c) = Σ_w log(1 − θ_cw) + Σ_{w ∈ d} [log θ_cw − log(1 − θ_cw)]``: the
    first sum is one number per class, the second a sparse product, so the document
    matrix is never densified. ``log(1 − θ)`` comes straight from the counts,
    ``log(N_c − N_cw + α) − log(N_c + 2α)``, never from ``log(1 − exp(·))``.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Additive smoothing: ``θ_cw = (N_cw + α_w) / (N_c + 2α_w)``.
    force_alpha : bool, default=True
        As :class:`MultinomialNB` (False: values below 1e-10 are raised to 1e-10).
    m : float or None, default=None
        m-estimate ``θ_cw = (N_cw + m p_w) / (N_c + m)`` with ``p_w`` the
        Laplace-smoothed fraction of training documents containing w.
    binarize : float or None, default=0.0
        Threshold (>= 0) above which a count means "present"; None if X is already
        binary. A negative threshold is rejected, as scikit-learn does (it would make
        dense and sparse input disagree on zeros).
    fit_prior : bool, default=True
    class_prior : array-like of shape (n_classes,), default=None

    Attributes
    ----------
    classes_, class_count_, feature_count_, class_log_prior_, n_features_in_
        As in :class:`MultinomialNB` (``feature_count_`` counts documents).
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        ``log θ_cw``.
    feature_log_neg_prob_ : ndarray of shape (n_classes, n_features)
        ``log(1 − θ_cw)``.

    Examples
    --------
    >>> from textnb import BernoulliNB
    >>> BernoulliNB().fit([[1, 0], [0, 1]], ["ham", "spam"]).predict([[1, 0]])
    array(['ham'], dtype='<U4')
    """

    _kernel = BERNOULLI
    _param_schema = _kernel.param_schema
    _state_schema = _kernel.state_schema

    _positive_only = False

    @takes_defaults(BERNOULLI)
    def __init__(self, *, alpha, force_alpha, m, binarize, fit_prior, class_prior):
        super().__init__(alpha=alpha, force_alpha=force_alpha, m=m, fit_prior=fit_prior, class_prior=class_prior)
        self.binarize = binarize

    def _transform_counts(self, X):
        return self._kernel.features(self._kernel_params(), X)

    def _joint_log_likelihood(self, X):
        if self._form is not None:  # the kernel's linear form: one bias per class, as the scorer adds it
            return super()._joint_log_likelihood(X)
        # alpha=0 (force_alpha): probabilities of 0 and 1, not a finite linear form
        X = self._transform_counts(X)
        absent = 1.0 - (X.toarray() if sp.issparse(X) else X)
        return weighted_sum(X, self.feature_log_prob_) + weighted_sum(absent, self.feature_log_neg_prob_) \
            + self.class_log_prior_
