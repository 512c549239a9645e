"""The kernel of :class:`~textnb.naive_bayes.discretized.Discretized` (numpy only): a
nominal-only model (LBR, ...) on tables with numeric attributes.

Some classifiers take nominal attributes only (the lazy Bayesian rules of
:mod:`textnb.semi_naive.lbr`). :class:`DiscretizedKernel` learns cut points for the numeric
columns from the training data of each ``fit`` (so inside every cross-validation fold),
turns them into nominal columns, and hands the model the nominal table together with
its attributes and declared class values. Prediction applies the same cuts.

The kernel wraps a kernel (:class:`~textnb.semi_naive.lbr_kernel.LBRKernel`, by default
:class:`~textnb.naive_bayes.tabular_kernel.TabularKernel`) and writes the model file the
estimator writes; ``textnb train --lazy`` and ``textnb predict`` use it, without
scikit-learn. :class:`~textnb.naive_bayes.discretized.Discretized` is the scikit-learn
adapter over it (it wraps estimators, cloned with scikit-learn's ``clone``).
"""

import inspect
from types import MappingProxyType

import numpy as np

from textnb.core.errors import counted
from textnb.core.model_schema import (CLASS_VALUES, FEATURE_NAMES, N_FEATURES, TEMPLATE, Array, Attributes, Choice, Int,
                                      ListOf, Model, Optional, Reals)
from textnb.io.frames import encodable, encode_frame, frame_attributes, is_frame
from textnb.io.tables import Attribute, check_plain_attributes
from textnb.naive_bayes.cut_points import (apply_cut_points, equal_frequency_cut_points, equal_width_cut_points,
                                          mdl_cut_points)
from textnb.naive_bayes.kernels import TableKernel, all_or_nothing
from textnb.naive_bayes.scoring import check_class_labels

__all__ = ["METHODS", "DiscretizedKernel", "bin_names"]

METHODS = ("mdl", "equal-frequency", "equal-width")


def _on_cut_table(name, doc):
    """The method ``name`` of the fitted model, on the table with the cut points applied."""
    def method(self, X):
        self._check_fitted()
        return getattr(self.estimator_, name)(self._transform(X))

    method.__name__ = method.__qualname__ = name
    method.__doc__ = doc
    return method


class DiscretizedKernel(TableKernel):
    """The model of :class:`~textnb.naive_bayes.discretized.Discretized` without
    scikit-learn, over a kernel: the same parameters (``DiscretizedKernel.defaults``),
    fitted attributes, ``fit``, ``predict*``, ``predict_explain`` and model file
    (:meth:`save`, :meth:`from_node`). The documentation is the estimator's.
    """

    kind = "Discretized"
    defaults = MappingProxyType({"estimator": None, "attributes": None, "class_values": None, "numeric": "mdl",
                                 "bins": 10})

    _param_schema = {
        "estimator": TEMPLATE, "attributes": Optional(Attributes(length=None)),
        "class_values": CLASS_VALUES,
        "numeric": Choice(*METHODS), "bins": Int(1, 10**6),
    }
    _state_schema = {
        "n_features_in_": N_FEATURES,
        "estimator_": Model(dims={"n_features_in_": "n_features"}),
        "cut_points_": ListOf(Reals((None,), increasing=True), length="n_features"),
        "nominal_columns_": Array("b", ("n_features",)),
        "attributes_": Attributes(length="n_features"),
        "feature_names_in_": FEATURE_NAMES,  # fitted on a DataFrame (absent from older files)
    }

    def __init__(self, estimator=None, **params):
        super().__init__(estimator=estimator, **params)

    # -- what the estimator does with scikit-learn --------------------------------------
    @staticmethod
    def _clone(model):
        """An unfitted copy of the kernel ``model`` (None: naive Bayes over the
        discretised attributes, :class:`~textnb.naive_bayes.tabular_kernel.TabularKernel`)."""
        if model is None:
            from textnb.naive_bayes.tabular_kernel import TabularKernel

            return TabularKernel()
        return type(model)(**{name: getattr(model, name) for name in model.defaults})

    def _validate_xy(self, X, y, *, reset):
        X, y = super()._validate_xy(X, y, reset=reset)
        check_class_labels(y)
        return X, y

    @property
    def predict_log_odds(self):
        """Not a method of this model (as of the estimator): ``textnb predict`` derives
        the log-odds from :meth:`predict_log_proba`."""
        raise AttributeError(f"{type(self).__name__} has no predict_log_odds")

    # -- fitting ------------------------------------------------------------------------
    @all_or_nothing
    def fit(self, X, y):
        """Learn the cut points from ``X`` (NaN = missing) and ``y``, then fit the model."""
        if self.numeric not in METHODS:
            raise ValueError(f"numeric must be one of {METHODS}; got {self.numeric!r}")
        check_plain_attributes(self.attributes, f"{getattr(self.estimator, 'kind', type(self.estimator).__name__)} "
                                        "on discretised attributes")
        declared = list(self.attributes) if self.attributes is not None else None
        if is_frame(X):  # a DataFrame: nominal and numeric columns (textnb.io.frames)
            declared = declared if declared is not None else frame_attributes(X)
            X = encode_frame(X, declared) if encodable(declared) else X
        X, y = self._validate_xy(X, y, reset=True)
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
            a if c is None else Attribute(a.name, "nominal", bin_names(c)) for a, c in zip(attrs, cuts)]
        self.attributes_ = attrs
        model = self._clone(self.estimator)
        params = inspect.signature(model.fit).parameters
        kw = {}
        if "attributes" in params:
            kw["attributes"] = self.nominal_attributes_
        elif "attributes" in _param_names(model):
            _set_param(model, "attributes", tuple(self.nominal_attributes_))
        if self.class_values is not None:  # the model's classes: the declared ones, in their order
            if "class_values" in params:
                kw["class_values"] = list(self.class_values)
            elif "class_values" in _param_names(model):
                _set_param(model, "class_values", tuple(self.class_values))
        self.estimator_ = model.fit(apply_cut_points(X, cuts), y, **kw)
        self.classes_ = self.estimator_.classes_
        return self

    # -- prediction: the model's, on the discretised table -------------------------------
    def _transform(self, X):
        if is_frame(X) and encodable(self.attributes_):
            X = encode_frame(X, self.attributes_)
        return apply_cut_points(self._validate_x(X, reset=False), self.cut_points_)

    _check_X = _transform

    def _joint_log_likelihood(self, X):
        return self.estimator_.predict_joint_log_proba(X)

    predict = _on_cut_table("predict", "The model's class of each row.")
    predict_proba = _on_cut_table("predict_proba", "The model's ``P(c | x)``.")
    predict_log_proba = _on_cut_table("predict_log_proba", "The model's ``log P(c | x)``.")
    predict_joint_log_proba = _on_cut_table("predict_joint_log_proba", "The model's ``log P(x, c)``.")
    predict_explain = _on_cut_table("predict_explain", "The model's ``predict_explain`` (predictions and the rule "
                                    "used per row).")

    # -- inspection ------------------------------------------------------------------------
    @property
    def describe(self):
        """The fitted model as plain data (JSON-serialisable), for ``textnb inspect``: the
        wrapped model's ``describe()`` (its attributes are the discretised ones, their values
        the intervals), each numeric attribute marked ``"kind": "numeric"`` with its
        ``cut_points`` and how they were found. Only when the wrapped model describes itself
        (else no attribute, as ``predict_log_odds``: ``inspect`` then looks inside)."""
        inner = getattr(getattr(self, "estimator_", None), "describe", None)
        if not callable(inner):
            raise AttributeError(f"{type(self).__name__} around this model has no describe")
        return lambda: self._described(inner())

    def _described(self, info):
        info["discretization"] = self.numeric
        for a, cuts in zip(info["attributes"], self.cut_points_):
            if cuts is not None:
                a["kind"] = "numeric"
                n = len(cuts) + 1
                inner_model = a["model"]  # "nominal[, ...]": what the wrapped model made of the intervals
                rest = inner_model[len("nominal"):] if inner_model.startswith("nominal") else f"; {inner_model}"
                a["model"] = f"{self.numeric}-discretised, {counted(n, 'interval')}{rest}"
                a["cut_points"] = [float(c) for c in cuts]
        return info

    # -- model files ----------------------------------------------------------------------
    def to_node(self):
        """The model file's node, with the wrapped kernels as nodes (the template unfitted)."""
        return self._nested_node(super().to_node(), "estimator", "estimator_")

    def _get_state(self):
        state = {
            "estimator_": self.estimator_,
            "cut_points_": [np.zeros(0) if c is None else c for c in self.cut_points_],
            "nominal_columns_": np.array([c is None for c in self.cut_points_]),
            "attributes_": list(self.attributes_),
            "n_features_in_": self.n_features_in_,
        }
        if hasattr(self, "feature_names_in_"):
            state["feature_names_in_"] = self.feature_names_in_
        return state

    def _set_state(self, state):
        self.estimator_ = state["estimator_"]
        self.cut_points_ = [None if nominal else np.asarray(c, dtype=np.float64)
                            for c, nominal in zip(state["cut_points_"], state["nominal_columns_"])]
        self.attributes_ = list(state["attributes_"])
        self.nominal_attributes_ = [
            a if c is None else Attribute(a.name, "nominal", bin_names(c))
            for a, c in zip(self.attributes_, self.cut_points_)]
        self.n_features_in_ = int(state["n_features_in_"])
        self.__dict__.pop("feature_names_in_", None)
        if "feature_names_in_" in state:
            self.feature_names_in_ = np.asarray(state["feature_names_in_"], dtype=object)
        self.classes_ = self.estimator_.classes_
        # the cut points and attributes must give the inner model's value counts (as fit does)
        if [a.kind == "numeric" for a in self.attributes_] != [c is not None for c in self.cut_points_]:
            raise ValueError("cut points do not match the numeric attributes")
        n_values = getattr(self.estimator_, "n_values_", None)
        expected = [len(a.values) for a in self.nominal_attributes_]
        if n_values is not None and list(np.asarray(n_values).tolist()) != expected:
            raise ValueError(f"the {type(self.estimator_).__name__} model expects {list(n_values)} values "
                             f"per attribute; the cut points give {expected}")


def _param_names(model):
    """The parameters of ``model``: an estimator's ``get_params``, a kernel's ``defaults``."""
    if hasattr(model, "get_params"):
        return model.get_params(deep=False)
    return model.defaults


def _set_param(model, name, value):
    if hasattr(model, "set_params"):
        model.set_params(**{name: value})
    else:
        setattr(model, name, value)


def bin_names(cuts):
    """Readable bin names for the rules of a lazy model and the descriptions of the models
    that discretise (``textnb inspect``): '(-inf-2.5]', '(2.5-inf)'."""
    edges = ["-inf"] + [f"{c:.6g}" for c in cuts] + ["inf"]
    return [f"({lo}-{hi}]" if hi != "inf" else f"({lo}-{hi})" for lo, hi in zip(edges[:-1], edges[1:])]
