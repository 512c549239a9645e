"""Discretised: a nominal-only model (LBR, ...) on tables with numeric attributes, the estimator.

:class:`Discretized` is the scikit-learn adapter of
:class:`~textnb.naive_bayes.discretized_kernel.DiscretizedKernel`, which holds the model
(described there) and imports no scikit-learn; the adapter wraps estimators (cloned with
scikit-learn's ``clone``; None means :class:`~textnb.naive_bayes.tabular.TabularNB`) and adds
scikit-learn's input validation and ``get_params``. Both write the same model file.
"""

from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.validation import check_is_fitted

from textnb.core.model_io import register
from textnb.naive_bayes.base import BaseNB, DeclaredTags, NestedParams, SaveMixin
from textnb.naive_bayes.discretized_kernel import DiscretizedKernel

__all__ = ["Discretized"]


@register
class Discretized(DiscretizedKernel, DeclaredTags, SaveMixin, NestedParams, ClassifierMixin, BaseEstimator):
    """Discretise numeric attributes inside ``fit``, then fit a nominal-only model.

    Parameters
    ----------
    estimator : estimator, default=None
        A model over nominal value indices whose ``fit`` may take ``attributes`` and
        ``class_values`` (as :class:`textnb.semi_naive.lbr.LBR` does), or that has an
        ``attributes`` parameter (as :class:`textnb.naive_bayes.tabular.TabularNB`). None means
        ``TabularNB()``: naive Bayes over the discretised attributes (Dougherty, Kohavi &
        Sahami 1995; Weka's ``NaiveBayes -D``).
    attributes : sequence of Attribute, default=None
        The table's attributes (``tuple(table.attributes)``); None: every column numeric.
    class_values : sequence of str, default=None
        Declared class values, passed on to the model.
    numeric : {"mdl", "equal-frequency", "equal-width"}, default="mdl"
        Fayyad & Irani's supervised MDL (as Weka's Discretize), or unsupervised bins.
    bins : int, default=10
        Bins for the unsupervised methods.

    Attributes
    ----------
    estimator_ : the fitted model
    cut_points_ : list of ndarray or None
        Cut points per column (None for nominal columns).
    classes_ : ndarray
    """

    def __init__(self, estimator=None, *, attributes=None, class_values=None, numeric="mdl", bins=10):
        self.estimator = estimator
        self.attributes = attributes
        self.class_values = class_values
        self.numeric = numeric
        self.bins = bins

    _tags = {"input_tags.allow_nan": True}

    @staticmethod
    def _clone(model):
        if model is None:
            from textnb.naive_bayes.tabular import TabularNB

            return TabularNB()
        return clone(model)

    def _check_fitted(self):
        check_is_fitted(self)

    # the estimator's side, where the kernel has its own
    _validate_x, _validate_xy, save = BaseNB._validate_x, BaseNB._validate_xy, SaveMixin.save
