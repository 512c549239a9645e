"""Lazy Bayesian rules (LBR) and heuristic LBR (HLBR), the estimator.

:class:`LBR` is the scikit-learn adapter of :class:`~textnb.semi_naive.lbr_kernel.LBRKernel`,
which holds the model (Zheng & Webb's lazy Bayesian rules with Weka 3.6's arithmetic,
described in :mod:`textnb.semi_naive.lbr_kernel`) and imports no scikit-learn; the adapter
adds scikit-learn's input validation, tags and ``get_params``. Both write the same model file.
"""

from textnb.core.model_io import register
from textnb.naive_bayes.base import BaseNB
from textnb.naive_bayes.kernels import takes_defaults
from textnb.semi_naive.lbr_kernel import LBRKernel, cached_flags, sign_test_p

__all__ = ["LBR", "cached_flags", "sign_test_p"]


@register
class LBR(LBRKernel, BaseNB):
    """Lazy Bayesian rules (``candidates="all"``) and heuristic LBR (``"heuristic"``).

    Works on nominal attributes: ``X`` holds value indices ``0 .. k-1`` (the textnb
    tabular convention, :mod:`textnb.io.tables`), ``NaN`` for missing. Discretise numeric
    attributes first (``textnb.naive_bayes.discretize.MDLDiscretizer``). Pass ``attributes`` (and
    ``class_values``) to ``fit`` to use the declared value counts and class order, which
    is what makes the decisions identical to Weka 3.6's ``weka.classifiers.lazy.LBR``;
    without them each column's distinct training values are its categories (a value
    unseen in training counts as missing) and the classes are the sorted labels.

    Parameters
    ----------
    candidates : {"all", "heuristic"}, default="all"
        ``"all"``: every attribute may enter an antecedent (LBR, Zheng & Webb 2000).
        ``"heuristic"``: HLBR (Wang & Webb): only attributes ``a`` whose leave-one-out
        error on the training data of "LBR with ``a`` as the only antecedent attribute"
        is below naive Bayes' leave-one-out error (see ``candidates_``).
    alpha : float, default=1.0
        Additive smoothing; ``1`` is Weka's Laplace estimate.
    min_errors : int, default=5
        Keep growing the antecedent while the leave-one-out error count is at least this.
    significance : float, default=0.05
        Level of the one-tailed sign test a new condition must pass.
    n_jobs : int, default=None
        Processes for classifying test objects. ``None`` means 1 unless in a
        :obj:`joblib.parallel_backend` context; ``-1`` means all processors.
    max_cache : int, default=20_000_000
        Bound on the number of cached entries per process: leave-one-out flags (1 byte
        each) and step verdicts (9 bytes each; n_features x max values per antecedent
        reached).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    attributes_ : list of Attribute
        The column types used: nominal, of the values declared to ``fit`` (or a
        DataFrame's, or ``0 .. k-1`` for a number of values), or numeric where nothing
        was declared (``X`` holds the numbers, each column's distinct training values its
        categories); what ``textnb.encode_like(rows, model.attributes_)`` re-codes raw
        rows with.
    n_values_ : ndarray of shape (n_features_in_,)
        Number of values of each attribute.
    candidates_ : ndarray of int
        Attributes that may enter an antecedent.
    attribute_loo_errors_ : ndarray of shape (n_features_in_,)
        LOO errors of "LBR with only this attribute in the antecedent" (HLBR's filter).
    nb_loo_errors_ : int
        Leave-one-out errors of naive Bayes on the training data.
    attribute_names_, value_names_ : list of str, list of list of str
        Names used by :meth:`explain`.

    Examples
    --------
    >>> import numpy as np
    >>> from textnb.semi_naive.lbr import LBR
    >>> X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 5, dtype=float)
    >>> y = np.array(["a", "b", "b", "a"] * 5)
    >>> model = LBR().fit(X, y)
    >>> model.predict([[0, 1], [1, 1]]).tolist()
    ['b', 'a']
    >>> model.explain([[0, 1]])
    ['x0=0 -> local NB on 10 objects']
    """

    @takes_defaults(LBRKernel)
    def __init__(self, *, candidates, alpha, min_errors, significance, n_jobs, max_cache):
        # the kernel's __init__ stores them (scikit-learn's rule: nothing else)
        super().__init__(candidates=candidates, alpha=alpha, min_errors=min_errors, significance=significance,
                         n_jobs=n_jobs, max_cache=max_cache)

    _tags = {"input_tags.allow_nan": True, "non_deterministic": False}

    # the estimator's side, where the kernel has its own
    _validate_x, _validate_xy, save = BaseNB._validate_x, BaseNB._validate_xy, BaseNB.save
