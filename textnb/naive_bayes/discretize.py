"""Discretisers for numeric attributes, usable inside cross-validation folds.

scikit-learn transformers on the tabular convention (:mod:`textnb.io.tables`): they cut
the *numeric* columns only, pass nominal columns through unchanged, keep NaN (missing)
as NaN, and output bin indices ``0 .. k-1`` as float. A value ``v`` falls into bin
``#{cut points < v}`` (a value equal to a cut point goes to the lower bin), as in Weka.

* :class:`EqualWidthDiscretizer` -- ``k`` bins of equal width between the training
  minimum and maximum (Weka's unsupervised ``Discretize -B k``);
* :class:`EqualFrequencyDiscretizer` -- about equally many training objects per bin,
  cuts only between distinct values (Weka's unsupervised ``Discretize -F -B k``, the
  protocol of the APNBC paper: 10 equal-frequency bins);
* :class:`MDLDiscretizer` -- supervised entropy splitting with the minimum description
  length stopping rule of Fayyad & Irani (1993), "Multi-interval discretization of
  continuous-valued attributes for classification learning", IJCAI, exactly as Weka's
  ``weka.filters.supervised.attribute.Discretize`` does by default.

All three honour ``sample_weight``. The fitted ``cut_points_`` is a list with one
sorted float array per column (empty for nominal columns and for numeric columns that
got no cut), ``n_bins_`` the number of bins per column (0 for nominal columns).
"""

from numbers import Integral
from operator import attrgetter

import numpy as np
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from textnb.naive_bayes.base import DeclaredTags, check_sample_weight
from textnb.naive_bayes.cut_points import (apply_cut_points, equal_frequency_cut_points, equal_width_cut_points,
                                          mdl_cut_points, nominal_rows)

__all__ = [
    "EqualWidthDiscretizer",
    "EqualFrequencyDiscretizer",
    "MDLDiscretizer",
    "apply_cut_points",
    "nominal_rows",
    "mdl_cut_points",
    "equal_frequency_cut_points",
    "equal_width_cut_points",
]


class _BaseDiscretizer(DeclaredTags, OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Shared fit / transform: cut numeric columns, pass nominal ones through.

    One output column per input column, under its name: ``get_feature_names_out`` (and
    so ``set_output``) as scikit-learn's one-to-one transformers (``KBinsDiscretizer``
    with ``encode="ordinal"``) have them."""

    _supervised = False

    def _numeric_columns(self, n_features):
        if self.nominal_mask is None:
            return np.ones(n_features, dtype=bool)
        mask = np.asarray(self.nominal_mask, dtype=bool)
        if mask.shape != (n_features,):
            raise ValueError(
                f"nominal_mask has {mask.size} entries but X has {n_features} columns"
            )
        return ~mask

    def fit(self, X, y=None, sample_weight=None):
        """Find the cut points of every numeric column of ``X`` (NaN = missing)."""
        if self._supervised:
            X, y = validate_data(self, X, y, dtype=np.float64, ensure_all_finite="allow-nan")
        else:
            X = validate_data(self, X, dtype=np.float64, ensure_all_finite="allow-nan")
        n, d = X.shape
        w = check_sample_weight(sample_weight, n)
        w = np.ones(n) if w is None else w
        self._check_params()
        numeric = self._numeric_columns(d)
        extra = self._prepare(y)
        self.cut_points_ = [
            self._cut_points(X[:, j], w, *extra) if numeric[j] else np.empty(0) for j in range(d)
        ]
        self.numeric_mask_ = numeric
        self.n_bins_ = np.array(
            [len(c) + 1 if numeric[j] else 0 for j, c in enumerate(self.cut_points_)]
        )
        return self

    def _prepare(self, y):
        return ()

    def _check_params(self):
        pass

    def transform(self, X):
        """Numeric columns replaced by their bin index (float); NaN stays NaN."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, ensure_all_finite="allow-nan", reset=False)
        return apply_cut_points(
            X, [c if self.numeric_mask_[j] else None for j, c in enumerate(self.cut_points_)]
        )

    _tags = {"input_tags.allow_nan": True, "target_tags.required": attrgetter("_supervised")}


def _doc(summary, supervised=False):
    """A discretizer's docstring: ``summary`` and the Parameters / Attributes they share."""
    return summary + """
    Parameters
    ----------""" + ("" if supervised else """
    n_bins : int, default=10""") + """
    nominal_mask : sequence of bool, default=None
        True for nominal columns (passed through); None: every column is numeric.

    Attributes
    ----------
    cut_points_ : list of ndarray
    n_bins_ : ndarray of int
    numeric_mask_ : ndarray of bool
""" + ("    classes_ : ndarray\n" if supervised else "")


class _UnsupervisedDiscretizer(_BaseDiscretizer):
    def __init__(self, n_bins=10, *, nominal_mask=None):
        self.n_bins = n_bins
        self.nominal_mask = nominal_mask

    def _check_params(self):
        if not isinstance(self.n_bins, Integral) or self.n_bins < 1:
            raise ValueError(f"n_bins must be an integer >= 1; got {self.n_bins!r}")


class EqualWidthDiscretizer(_UnsupervisedDiscretizer):
    __doc__ = _doc("""Equal-width bins between the training minimum and maximum of each numeric column.
    """)

    def _cut_points(self, col, w):
        return equal_width_cut_points(col, self.n_bins, w)


class EqualFrequencyDiscretizer(_UnsupervisedDiscretizer):
    __doc__ = _doc("""About equally many training objects per bin (Weka's ``Discretize -F -B n_bins``).

    The APNBC paper's protocol (Webb & Pazzani): numeric attributes discretised into 10
    equal-frequency bins. Ties never straddle a cut, so heavily repeated values can
    leave fewer than ``n_bins`` bins.
    """)

    def _cut_points(self, col, w):
        return equal_frequency_cut_points(col, self.n_bins, w)


class MDLDiscretizer(_BaseDiscretizer):
    __doc__ = _doc("""Supervised entropy / MDL discretisation (Fayyad & Irani 1993), as Weka does it.

    See :func:`mdl_cut_points` for the exact rule. A numeric column whose first split
    is rejected gets no cut (one bin): naive Bayes then ignores it, as Weka's
    ``NaiveBayes -D`` does.
    """, supervised=True)

    _supervised = True

    def __init__(self, *, nominal_mask=None):
        self.nominal_mask = nominal_mask

    def _prepare(self, y):
        self.classes_, y_index = np.unique(np.asarray(y), return_inverse=True)
        return y_index, len(self.classes_)

    def _cut_points(self, col, w, y_index, n_classes):
        return mdl_cut_points(col, y_index, n_classes, w)
