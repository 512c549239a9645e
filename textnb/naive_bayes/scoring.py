"""The prediction methods every textnb classifier shares, and the input checks of fitting (numpy only).

:class:`Scores` turns a model's ``_joint_log_likelihood(X)`` (shape ``(n_samples,
n_classes)``, columns in the order of ``classes_``) and ``_check_X(X)`` into ``predict``,
``predict_proba``, ``predict_log_proba``, ``predict_joint_log_proba`` and
``predict_log_odds``, exactly as scikit-learn's ``naive_bayes._BaseNB`` does. The
estimators get it through :class:`textnb.naive_bayes.base.BaseNB`; the kernels that fit
and score without scikit-learn (:mod:`textnb.naive_bayes.tabular_kernel`) use it directly,
so both paths give the same floats.
"""

import numbers

import numpy as np

from textnb.core.logspace import log_odds, log_proba_from_jll, proba_from_jll
from textnb.core.model_schema import MAX_COUNT
from textnb.core.stats import class_positions

__all__ = ["Scores", "TableInput", "check_class_labels", "check_n_features", "check_nominal_codes", "check_partial_fit_labels", "check_sample_weight",
           "class_positions", "fit_classes", "partial_fit_classes"]


class Scores:
    """``predict*`` from ``_joint_log_likelihood(_check_X(X))``; ``_check_fitted`` first
    (here: ``classes_`` is set; :class:`~textnb.naive_bayes.base.BaseNB`: scikit-learn's
    ``check_is_fitted``)."""

    def _check_fitted(self):
        if not hasattr(self, "classes_"):
            raise ValueError(f"This {type(self).__name__} is not fitted yet; call fit first")

    def predict_joint_log_proba(self, X):
        """Joint log probabilities ``log P(x, c)``, shape (n_samples, n_classes).

        Columns follow ``classes_``. Finite for every input the model accepts.
        """
        self._check_fitted()
        return self._joint_log_likelihood(self._check_X(X))

    def predict(self, X):
        """The most probable class of each row."""
        self._check_fitted()
        jll = self._joint_log_likelihood(self._check_X(X))
        return self.classes_[np.argmax(jll, axis=1)]

    def predict_log_proba(self, X):
        """``log P(c | x)``: each row shifted by its maximum, then normalised with log-sum-exp
        (no underflow; :func:`~textnb.core.logspace.log_proba_from_jll`)."""
        self._check_fitted()
        return log_proba_from_jll(self._joint_log_likelihood(self._check_X(X)))

    def predict_proba(self, X):
        """``P(c | x)``; rows sum to 1. See ``predict_log_odds`` for a score that keeps
        its resolution where these round to 0 or 1."""
        self._check_fitted()
        return proba_from_jll(self._joint_log_likelihood(self._check_X(X)))

    def proba_and_odds(self, X):
        """``(predict_proba(X), predict_log_odds(X))`` from one pass over the rows (what
        ``textnb predict`` prints: a lazy model scores each row once)."""
        self._check_fitted()
        jll = self._joint_log_likelihood(self._check_X(X))
        return proba_from_jll(jll), log_odds(jll)

    def predict_log_odds(self, X):
        """Per-class log-odds ``log P(c | x) - log P(not c | x)``, shape (n_samples, n_classes).

        A score that keeps its resolution where ``predict_proba`` rounds to 0 or 1 on
        long documents, so a threshold can be tuned on it (for a 0.5 % false-positive
        rate, say). Computed in log space: ``log p - log1p(-p)`` via log-sum-exp of the
        other classes, never from the rounded probability.
        """
        self._check_fitted()
        jll = self._joint_log_likelihood(self._check_X(X))
        return log_odds(jll)


def check_n_features(model, X, *, reset):
    """``X`` after setting ``model.n_features_in_`` to its number of columns (``reset``) or
    checking it against them, in scikit-learn's words; ``model.kind`` names the model."""
    if reset:
        model.n_features_in_ = X.shape[1]
    elif X.shape[1] != model.n_features_in_:
        raise ValueError(f"X has {X.shape[1]} features, but {model.kind} is expecting {model.n_features_in_} "
                         f"features as input.")
    return X


class TableInput:
    """The input checks of a kernel that reads tables (float64, NaN = missing), numpy only:
    what :class:`~textnb.naive_bayes.base.BaseNB`'s ``_validate_x`` / ``_validate_xy``
    (scikit-learn's ``validate_data``) check for its estimator. ``kind`` names the model
    in the messages."""

    def _validate_x(self, X, *, reset):
        """``X`` as a 2-D float64 table (NaN missing, no infinity), with ``n_features_in_``
        set (``reset``) or checked (the estimator's version is scikit-learn's ``validate_data``)."""
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2:
            raise ValueError(f"Expected a 2-D table (rows of attribute values); got an array of {X.ndim} dimensions")
        if X.shape[0] < 1:
            raise ValueError(f"Found a table with 0 rows (shape={X.shape}) while a minimum of 1 is required.")
        if np.isinf(X).any():
            raise ValueError("Input X contains infinity or a value too large for dtype('float64').")
        return check_n_features(self, X, reset=reset)

    def _validate_xy(self, X, y, *, reset):
        """:meth:`_validate_x` and ``y`` as a 1-D array of one class label per row."""
        X = self._validate_x(X, reset=reset)
        if y is None:
            raise ValueError(f"{self.kind} requires y to be passed, but the target y is None")
        y = np.asarray(y)
        if y.ndim != 1 or y.shape[0] != X.shape[0]:
            raise ValueError(f"y must hold one class label per row of X ({X.shape[0]}); got shape {y.shape}")
        return X, y


def check_class_labels(y):
    """ValueError when ``y`` holds continuous numbers rather than class labels (what
    scikit-learn's ``check_classification_targets`` refuses), numpy only."""
    y = np.asarray(y)
    if y.dtype.kind == "f" and np.any(y != np.floor(y)):
        raise ValueError("Unknown label type: continuous. Maybe you are trying to fit a classifier, "
                         "which expects discrete classes on a regression target with continuous values.")


def check_partial_fit_labels(y, classes):
    """Raise ValueError naming labels of ``y`` that are not in ``classes``."""
    unknown = np.setdiff1d(np.asarray(y), classes)
    if unknown.size:
        raise ValueError(
            f"The target label(s) {unknown.tolist()} in y do not exist in the initial classes "
            f"{np.asarray(classes).tolist()} (y contains labels that are not in classes given on the "
            "first call to partial_fit)"
        )


def fit_classes(y, class_values=None):
    """``(classes_, y_index)`` of a ``fit`` on labels ``y``: the sorted distinct labels, or
    the declared ``class_values`` in their order (an ARFF header's, as Weka keeps them: a
    declared class no row has stays a class, with no training objects). A label of ``y``
    that is not declared is a ValueError naming it."""
    y = np.asarray(y)
    if class_values is None:
        return np.unique(y, return_inverse=True)
    classes = _declared(class_values)
    unknown = np.setdiff1d(y, classes)
    if unknown.size:
        raise ValueError(f"y contains labels {unknown.tolist()} not in class_values {classes.tolist()}")
    return classes, class_positions(classes, y)


def _declared(class_values):
    classes = np.asarray(list(class_values))
    if classes.ndim != 1 or classes.size == 0 or np.unique(classes).size != classes.size:
        raise ValueError(f"class_values must be a list of distinct labels; got {classes.tolist()!r}")
    return classes


def partial_fit_classes(estimator, classes):
    """``(classes_, first)`` for a ``partial_fit`` call.

    On the first call (``estimator`` has no ``classes_`` yet) ``classes`` is required and
    its sorted distinct values are the classes; later calls may repeat it, and must
    repeat it unchanged. An estimator with declared ``class_values`` has those classes,
    in their order (``classes`` may then be left out, or must hold the same labels).
    """
    first = not hasattr(estimator, "classes_")
    declared = getattr(estimator, "class_values", None)
    if first:
        if declared is not None:
            declared = _declared(declared)
            if classes is not None and not np.array_equal(np.unique(classes), np.unique(declared)):
                raise ValueError(f"`classes={np.asarray(classes).tolist()!r}` are not the declared class_values "
                                 f"{declared.tolist()!r}")
            return declared, True
        if classes is None:
            raise ValueError("classes must be passed on the first call to partial_fit.")
        return np.unique(np.asarray(classes)), True
    if classes is not None and not np.array_equal(np.unique(classes), np.unique(estimator.classes_)):
        raise ValueError(
            f"`classes={np.asarray(classes).tolist()!r}` is not the same as on last call to partial_fit, "
            f"was: {estimator.classes_.tolist()!r}"
        )
    return estimator.classes_, False


def check_sample_weight(sample_weight, n):
    """``sample_weight`` as a float64 array of shape (n,), finite, >= 0, not all zero and
    summing to at most :data:`~textnb.core.model_schema.MAX_COUNT` (2**53, the largest count
    a model file holds: above it the counts overflow or the model could not be saved) (None
    stays None: every object weighs 1). A number is every object's weight, as scikit-learn's
    ``_check_sample_weight`` takes it, checked as an array is."""
    if sample_weight is None:
        return None
    if isinstance(sample_weight, numbers.Real):
        sample_weight = np.full(n, sample_weight, dtype=np.float64)
    w = np.asarray(sample_weight, dtype=np.float64)
    if w.shape != (n,):
        raise ValueError(f"sample_weight has shape {w.shape}; expected ({n},) or a number")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("sample_weight must be finite and >= 0")
    if n and not np.any(w > 0):
        raise ValueError("sample_weight is zero for every object; nothing to learn from")
    with np.errstate(over="ignore"):
        total = float(np.sum(w))
    if not total <= MAX_COUNT:
        raise ValueError(f"sample_weight sums to {total:g}, over {MAX_COUNT:g} (2**53, the largest count a model "
                         "holds); scale the weights down")
    return w


def check_nominal_codes(X, who):
    """Raise ValueError unless every known cell of float ``X`` is a nominal value index
    (an integer >= 0; NaN = missing). ``who`` names the estimator in the message."""
    known = X[~np.isnan(X)]
    if (known < 0).any():
        raise ValueError(
            f"Negative values in data passed to {who}: X holds nominal value indices "
            "(integers >= 0, NaN = missing)."
        )
    bad = known != np.floor(known)
    if bad.any():
        raise ValueError(
            f"{who} takes nominal value indices (integers >= 0, NaN = missing); got "
            f"{known[bad][0]!r}. Discretise numeric attributes first "
            "(textnb.naive_bayes.discretize.MDLDiscretizer) or declare them in attributes."
        )
