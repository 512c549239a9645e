"""Discretised: a nominal-only model (LBR, ...) on tables with numeric attributes.

Some classifiers take nominal attributes only (the lazy Bayesian rules of
:mod:`textnb.lbr`). :class:`Discretized` learns cut points for the numeric columns
from the training data of each ``fit`` (so inside every cross-validation fold),
turns them into nominal columns, and hands the model the nominal table together with
its attributes and declared class values. Prediction applies the same cuts.
"""

import inspect

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from textnb.discretize import apply_cut_points, equal_frequency_cut_points, equal_width_cut_points, mdl_cut_points
from textnb.frames import encodable, encode_frame, frame_attributes, is_frame
from textnb.model_io import register
from textnb.tables import Attribute
from textnb.tabular import TabularNB

__all__ = ["Discretized"]

_METHODS = ("mdl", "equal-frequency", "equal-width")


@register
class Discretized(ClassifierMixin, BaseEstimator):
    """Discretise numeric attributes inside ``fit``, then fit a nominal-only model.

    Parameters
    ----------
    estimator : estimator, default=None
        A model over nominal value indices whose ``fit`` may take ``attributes`` and
        ``class_values`` (as :class:`textnb.lbr.LBR` does), or that has an
        ``attributes`` parameter (as :class:`textnb.tabular.TabularNB`). None means
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

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    def fit(self, X, y):
        """Learn the cut points from ``X`` (NaN = missing) and ``y``, then fit the model."""
        if self.numeric not in _METHODS:
            raise ValueError(f"numeric must be one of {_METHODS}; got {self.numeric!r}")
        declared = list(self.attributes) if self.attributes is not None else None
        if is_frame(X):  # a DataFrame: nominal and numeric columns (textnb.frames)
            declared = declared if declared is not None else frame_attributes(X)
            X = encode_frame(X, declared) if encodable(declared) else X
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_all_finite="allow-nan", reset=True)
        check_classification_targets(y)
        attrs = declared if declared is not None else [
            Attribute(f"x{j}", "numeric") for j in range(X.shape[1])]
        if len(attrs) != X.shape[1]:
            raise ValueError(f"attributes has {len(attrs)} entries but X has {X.shape[1]} columns")
        classes = np.unique(y)
        y_index = np.searchsorted(classes, y)
        cuts = []
        for j, a in enumerate(attrs):
            if a.kind == "nominal":
                cuts.append(None)
                continue
            col = X[:, j]
            if self.numeric == "mdl":
                cuts.append(np.asarray(mdl_cut_points(col, y_index, len(classes)), dtype=np.float64))
            elif self.numeric == "equal-frequency":
                cuts.append(np.asarray(equal_frequency_cut_points(col, int(self.bins)), dtype=np.float64))
            else:
                cuts.append(np.asarray(equal_width_cut_points(col, int(self.bins)), dtype=np.float64))
        self.cut_points_ = cuts
        self.nominal_attributes_ = [
            a if c is None else Attribute(a.name, "nominal", _bin_names(c)) for a, c in zip(attrs, cuts)]
        self.attributes_ = attrs
        model = clone(self.estimator) if self.estimator is not None else TabularNB()
        params = inspect.signature(model.fit).parameters
        kw = {}
        if "attributes" in params:
            kw["attributes"] = self.nominal_attributes_
        elif "attributes" in model.get_params(deep=False):
            model.set_params(attributes=tuple(self.nominal_attributes_))
        if "class_values" in params and self.class_values is not None:
            kw["class_values"] = list(self.class_values)
        self.estimator_ = model.fit(apply_cut_points(X, cuts), y, **kw)
        self.classes_ = self.estimator_.classes_
        return self

    def _transform(self, X):
        if is_frame(X) and encodable(self.attributes_):
            X = encode_frame(X, self.attributes_)
        X = validate_data(self, X, dtype=np.float64, ensure_all_finite="allow-nan", reset=False)
        return apply_cut_points(X, self.cut_points_)

    def predict(self, X):
        check_is_fitted(self)
        return self.estimator_.predict(self._transform(X))

    def predict_proba(self, X):
        check_is_fitted(self)
        return self.estimator_.predict_proba(self._transform(X))

    def predict_log_proba(self, X):
        check_is_fitted(self)
        return self.estimator_.predict_log_proba(self._transform(X))

    def predict_joint_log_proba(self, X):
        check_is_fitted(self)
        return self.estimator_.predict_joint_log_proba(self._transform(X))

    def predict_explain(self, X):
        """The model's ``predict_explain`` (predictions and the rule used per row)."""
        check_is_fitted(self)
        return self.estimator_.predict_explain(self._transform(X))

    def save(self, path):
        from textnb.model_io import save

        check_is_fitted(self)
        save(self, path)

    def _get_state(self):
        return {
            "estimator_": self.estimator_,
            "cut_points_": [np.zeros(0) if c is None else c for c in self.cut_points_],
            "nominal_columns_": np.array([c is None for c in self.cut_points_]),
            "attributes_": list(self.attributes_),
            "n_features_in_": self.n_features_in_,
        }

    def _set_state(self, state):
        self.estimator_ = state["estimator_"]
        self.cut_points_ = [None if nominal else np.asarray(c, dtype=np.float64)
                            for c, nominal in zip(state["cut_points_"], state["nominal_columns_"])]
        self.attributes_ = list(state["attributes_"])
        self.nominal_attributes_ = [
            a if c is None else Attribute(a.name, "nominal", _bin_names(c))
            for a, c in zip(self.attributes_, self.cut_points_)]
        self.n_features_in_ = int(state["n_features_in_"])
        self.classes_ = self.estimator_.classes_


def _bin_names(cuts):
    """Readable bin names for the rules of a lazy model: '(-inf-2.5]', '(2.5-inf)'."""
    edges = ["-inf"] + [f"{c:.6g}" for c in cuts] + ["inf"]
    return [f"({lo}-{hi}]" if hi != "inf" else f"({lo}-{hi})" for lo, hi in zip(edges[:-1], edges[1:])]
