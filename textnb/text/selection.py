"""Term selection for text models: information gain, chi-square, document frequency.

Yang & Pedersen (1997, "A comparative study on feature selection in text
categorization", ICML) compare term-goodness criteria for text; information gain and
chi-square let a classifier drop most of the vocabulary with no loss (often a gain),
and document-frequency thresholding is a cheap approximation of both. All three are
functions of one 2x2 table per (term, class): how many documents of the class contain
the term. :class:`SelectTerms` keeps those per-class document frequencies, sums that
add across chunks (:meth:`~SelectTerms.partial_fit`) and shards (:meth:`~SelectTerms.merge`),
and keeps the ``k`` best terms.

Being a scikit-learn transformer, it is fitted on the training part only when put in a
:class:`~sklearn.pipeline.Pipeline` inside cross-validation (no selection leak).
"""

from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, check_non_negative, validate_data

from textnb.core.model_io import register
from textnb.core.stats import CountTable, merge_aligned
from textnb.core.wrapping import checked_merge
from textnb.naive_bayes.base import DeclaredTags
from textnb.naive_bayes.kernels import all_or_nothing, takes_defaults
from textnb.text.wrappers import (SCORES, SELECT_DEFAULTS, SELECT_PARAMS, SELECT_STATE, presence_counts, support_mask,
                                  term_scores)

__all__ = ["SelectTerms", "term_scores"]

@register
class SelectTerms(DeclaredTags, SelectorMixin, BaseEstimator):
    """Keep the ``k`` terms with the best information gain, chi-square or document frequency.

    Fitted on (weighted) count matrices and class labels; a term "occurs" in a document
    when its count is > 0. Ties are broken by column order, so the selection is
    deterministic. Put it first in a Pipeline (before :class:`~textnb.text.weighting.TermWeighting`
    and the model) so that cross-validation selects on each training fold.

    Parameters
    ----------
    criterion : {"chi2", "ig", "df"}, default="chi2"
        The score (see :func:`term_scores`).
    k : int or "all", default=10000
        Number of terms kept (all of them when there are fewer).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
        Documents per class.
    class_df_ : ndarray of shape (n_classes, n_features)
        Documents per class that contain each term.
    scores_ : ndarray of shape (n_features,)
    n_features_in_ : int

    References
    ----------
    Y. Yang, J. O. Pedersen (1997). A comparative study on feature selection in text
    categorization. ICML, 412-420.

    Examples
    --------
    >>> from textnb.text.selection import SelectTerms
    >>> X = [[1, 1, 0], [2, 1, 0], [0, 1, 3], [0, 1, 1]]
    >>> SelectTerms(k=2).fit(X, ["a", "a", "b", "b"]).get_support().tolist()
    [True, False, True]
    """

    _param_schema = SELECT_PARAMS
    _state_schema = SELECT_STATE

    @takes_defaults(SELECT_DEFAULTS)
    def __init__(self, *, criterion, k):
        self.criterion = criterion
        self.k = k

    _tags = {"input_tags.sparse": True, "input_tags.positive_only": True, "target_tags.required": True}

    def _check_params(self):
        if self.criterion not in SCORES:
            raise ValueError(f"criterion must be one of {SCORES}; got {self.criterion!r}")
        if not (self.k == "all" or (isinstance(self.k, Integral) and self.k >= 0)):
            raise ValueError(f"k must be an int >= 0 or 'all'; got {self.k!r}")

    def _presence(self, X):
        X = sp.csr_matrix(X, dtype=np.float64)
        if not np.all(np.isfinite(X.data)):
            raise ValueError("Input X contains NaN or infinity (SelectTerms).")
        check_non_negative(X, "SelectTerms (input X)")
        P = X.copy()
        P.data = (P.data > 0).astype(np.float64)
        return P

    @all_or_nothing
    def fit(self, X, y):
        """Count per-class document frequencies and score the terms; returns self."""
        self._check_params()
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, reset=True)
        check_classification_targets(y)
        self.classes_, y_index = np.unique(y, return_inverse=True)
        self.class_count_ = np.zeros(len(self.classes_))
        self.class_df_ = np.zeros((len(self.classes_), X.shape[1]))
        self._add(X, y_index)
        return self

    @all_or_nothing
    def partial_fit(self, X, y, classes=None):
        """Add a batch (same columns). Labels not seen before are added to ``classes_``;
        ``classes``, if given, names classes that may only come in later batches."""
        first = not hasattr(self, "classes_")
        self._check_params()
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, reset=first)
        check_classification_targets(y)
        if first:
            self.classes_ = np.zeros(0, dtype=np.asarray(y).dtype)
            self.class_count_ = np.zeros(0)
            self.class_df_ = np.zeros((0, X.shape[1]))
        wanted = np.asarray(y) if classes is None else np.concatenate([np.asarray(classes), y])
        classes = np.union1d(self.classes_, wanted)
        if len(classes) != len(self.classes_):
            idx = np.searchsorted(classes, self.classes_)
            cc, cdf = np.zeros(len(classes)), np.zeros((len(classes), X.shape[1]))
            cc[idx], cdf[idx] = self.class_count_, self.class_df_
            self.classes_, self.class_count_, self.class_df_ = classes, cc, cdf
        self._add(X, np.searchsorted(self.classes_, y))
        return self

    def _add(self, X, y_index):
        P = self._presence(X)
        class_count, class_df = presence_counts(P.data, P.indices, P.indptr, y_index, len(self.classes_), P.shape[1])
        self.class_df_ += class_df
        self.class_count_ += class_count
        self._update()

    @checked_merge
    def merge(self, other):
        """Add the counts of another selector fitted on other documents (same columns)."""
        check_is_fitted(self)
        check_is_fitted(other)
        if other.class_df_.shape[1] != self.class_df_.shape[1]:
            raise ValueError("cannot merge selectors fitted on different columns")
        classes, table = merge_aligned(
            [(sel.classes_, CountTable.from_arrays(sel.class_count_, sel.class_df_)) for sel in (self, other)])
        self.classes_, self.class_count_, self.class_df_ = classes, table.class_count, table.feature_count
        self._update()
        return self

    def _update(self):
        self.scores_ = term_scores(self.class_df_, self.class_count_, self.criterion)

    def _get_support_mask(self):
        check_is_fitted(self)
        return support_mask(self.scores_, self.k)

    def _get_state(self):
        state = {"classes_": self.classes_, "class_count_": self.class_count_,
                 "class_df_": self.class_df_, "n_features_in_": self.n_features_in_}
        return state

    def _set_state(self, state):
        for k, v in state.items():
            setattr(self, k, v)
        self._update()
