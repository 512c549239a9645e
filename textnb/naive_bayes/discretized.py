"""Discretised: a nominal-only model (LBR, ...) on tables with numeric attributes.

Some classifiers take nominal attributes only (the lazy Bayesian rules of
:mod:`textnb.semi_naive.lbr`). :class:`Discretized` learns cut points for the numeric columns
from the training data of each ``fit`` (so inside every cross-validation fold),
turns them into nominal columns, and hands the model the nominal table together with
its attributes and declared class values. Prediction applies the same cuts.
"""

import inspect

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from textnb.naive_bayes.base import SaveMixin
from textnb.naive_bayes.discretize import apply_cut_points, equal_frequency_cut_points, equal_width_cut_points, mdl_cut_points
from textnb.core.model_io import register
from textnb.io.tables import Attribute, check_no_text
from textnb.core.model_schema import (N_FEATURES, TEMPLATE, Array, Attributes, Choice, Int, ListOf, Model, OneOf,
                                 Optional, Reals, Str)
from textnb.io.frames import encodable, encode_frame, frame_attributes, is_frame
from textnb.naive_bayes.tabular import TabularNB

__all__ = ["Discretized"]

_METHODS = ("mdl", "equal-frequency", "equal-width")


@register
class Discretized(SaveMixin, ClassifierMixin, BaseEstimator):
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

    _param_schema = {
        "estimator": TEMPLATE, "attributes": Optional(Attributes(length=None)),
        "class_values": Optional(ListOf(OneOf(Str(10_000), Int()))),
        "numeric": Choice(*_METHODS), "bins": Int(1, 10**6),
    }
    _state_schema = {
        "n_features_in_": N_FEATURES,
        "estimator_": Model(dims={"n_features_in_": "n_features"}),
        "cut_points_": ListOf(Reals((None,), increasing=True), length="n_features"),
        "nominal_columns_": Array("b", ("n_features",)),
        "attributes_": Attributes(length="n_features"),
    }

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
        check_no_text(self.attributes, f"{type(self.estimator).__name__} on discretised attributes")
        declared = list(self.attributes) if self.attributes is not None else None
        if is_frame(X):  # a DataFrame: nominal and numeric columns (textnb.io.frames)
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
        # the cut points and attributes must give the inner model's value counts (as fit does)
        if [a.kind == "numeric" for a in self.attributes_] != [c is not None for c in self.cut_points_]:
            raise ValueError("cut points do not match the numeric attributes")
        n_values = getattr(self.estimator_, "n_values_", None)
        expected = [len(a.values) for a in self.nominal_attributes_]
        if n_values is not None and list(np.asarray(n_values).tolist()) != expected:
            raise ValueError(f"the {type(self.estimator_).__name__} model expects {list(n_values)} values "
                             f"per attribute; the cut points give {expected}")


def _bin_names(cuts):
    """Readable bin names for the rules of a lazy model: '(-inf-2.5]', '(2.5-inf)'."""
    edges = ["-inf"] + [f"{c:.6g}" for c in cuts] + ["inf"]
    return [f"({lo}-{hi}]" if hi != "inf" else f"({lo}-{hi})" for lo, hi in zip(edges[:-1], edges[1:])]
