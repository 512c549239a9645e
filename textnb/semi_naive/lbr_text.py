"""Lazy Bayesian rules for documents, the estimator: conditioning on key terms.

:class:`LazyTextNB` is the scikit-learn adapter of
:class:`~textnb.semi_naive.lbr_text_kernel.LazyTextKernel`, which holds the model (LBR on a
document-term count matrix with HLBR's training-time filter of key terms, described in
:mod:`textnb.semi_naive.lbr_text_kernel`) and imports no scikit-learn; the adapter adds
scikit-learn's input validation, tags and ``get_params``. Both write the same model file.
"""

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import validate_data

from textnb.core.model_io import register
from textnb.naive_bayes.base import BaseNB
from textnb.naive_bayes.kernels import takes_defaults
from textnb.semi_naive.lbr_text_kernel import LazyTextKernel

__all__ = ["LazyTextNB"]


@register
class LazyTextNB(LazyTextKernel, BaseNB):
    """Lazy Bayesian rules on documents: rules over key terms, local naive Bayes.

    Parameters
    ----------
    model : {"multinomial", "bernoulli"}, default="multinomial"
        Event model of the local naive Bayes (``textnb.MultinomialNB`` /
        ``textnb.BernoulliNB`` maths; Bernoulli uses term presence).
    alpha : float, default=1.0
        Additive smoothing.
    max_candidates : int, default=50
        At most this many key terms (those with the lowest HLBR-filter error).
    n_screen : int, default=500
        Eligible terms (the best by ``screen``) that go through the leave-one-out filter.
    min_df : int, default=20
        Only terms in at least this many training documents can be key terms.
    max_df : float, default=0.5
        Only terms in at most this fraction of the training documents can be key terms
        (frequent terms are function words in every class, not topics).
    screen : {"chi2", "ig"}, default="chi2"
        How eligible terms are ranked before the filter: χ²_max (the largest
        one-class-versus-rest chi-square of term presence, Yang & Pedersen 1997) or
        information gain, both from :func:`textnb.text.selection.term_scores`.
    stop_words : {"english"} or list of str or None, default="english"
        Terms that are never key terms (scikit-learn's English list for
        ``"english"``); applied when the columns have names (``terms`` given to
        ``fit``, or a DataFrame). They still count in the local naive Bayes models.
    min_errors : int, default=5
    significance : float, default=0.05
    n_jobs : int, default=None
        Processes for choosing the rules of test documents (``None``: 1).
    max_cache : int, default=50_000_000
        Bound on cached leave-one-out flags (1 byte each).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    key_terms_ : ndarray of int
        Column indices of the key terms, best first.
    key_term_loo_errors_ : ndarray
        Their HLBR-filter LOO errors.
    screened_terms_ : ndarray of int
        The eligible terms that went through the filter, best ``screen`` score first.
    nb_loo_errors_ : int
        LOO errors of the global naive Bayes.
    term_names_ : ndarray of str or None
        Names for :meth:`explain` (``feature_names_in_``, or ``terms`` given to ``fit``).

    Examples
    --------
    >>> import numpy as np
    >>> from textnb.semi_naive.lbr_text import LazyTextNB
    >>> X = np.array([[1, 1, 0], [1, 0, 1], [0, 1, 1], [1, 1, 1]] * 10)
    >>> y = np.array(["a", "b", "b", "a"] * 10)
    >>> LazyTextNB(min_df=1).fit(X, y).predict(X[:4]).tolist()
    ['a', 'b', 'b', 'a']
    """

    @takes_defaults(LazyTextKernel)
    def __init__(self, *, model, alpha, max_candidates, n_screen, min_df, max_df, screen, stop_words, min_errors,
                 significance, n_jobs, max_cache):
        # the kernel's __init__ stores them (scikit-learn's rule: nothing else)
        super().__init__(model=model, alpha=alpha, max_candidates=max_candidates, n_screen=n_screen, min_df=min_df,
                         max_df=max_df, screen=screen, stop_words=stop_words, min_errors=min_errors,
                         significance=significance, n_jobs=n_jobs, max_cache=max_cache)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True
        return tags

    # the estimator's side, where the kernel has its own
    def _validate_x(self, X, *, reset):
        """scikit-learn's ``validate_data`` of a (sparse) count matrix (``n_features_in_``,
        ``feature_names_in_``)."""
        return validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=reset)

    def _validate_xy(self, X, y, *, reset):
        """``validate_data`` of ``X`` and ``y``, and the classification-target check."""
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, reset=reset)
        check_classification_targets(y)
        return X, y

    save = BaseNB.save
