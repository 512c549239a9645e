"""What every textnb classifier shares: the prediction methods on top of a joint log likelihood.

Subclasses implement ``_joint_log_likelihood(X)`` (shape ``(n_samples, n_classes)``,
columns in the order of ``classes_``) and ``_check_X(X)``; this base turns it into
``predict``, ``predict_proba``, ``predict_log_proba``, ``predict_joint_log_proba`` and
``predict_log_odds`` exactly as scikit-learn's ``naive_bayes._BaseNB`` does, and adds
``save`` (see :mod:`textnb.core.model_io`).
"""

from abc import ABCMeta, abstractmethod
from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils import get_tags
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from textnb.core.estimates import check_class_prior
from textnb.core.logspace import log_odds
from textnb.core.errors import InputError, ModelFileError, refuse_single_string
from textnb.core.errors import short_repr as _short
from textnb.core.folds import given_splits
from textnb.core.model_io import save
from textnb.core.wrapping import INNER_ATTRIBUTES
from textnb.core.model_schema import CV_SCHEMA
from textnb.naive_bayes.scoring import (Scores, check_nominal_codes, check_partial_fit_labels, check_sample_weight,
                                        partial_fit_classes)

__all__ = ["DeclaredTags", "NestedParams", "SaveMixin", "WrapperTags", "BaseNB", "NominalCodesMixin", "wrapped_input_tags", "takes_documents", "wrapped_documents", "with_choices", "CV_SCHEMA", "given_splits", "check_class_prior", "check_nominal_codes", "check_partial_fit_labels", "check_sample_weight",
           "log_odds",
           "partial_fit_classes"]


class NestedParams:
    """``set_params`` for an estimator whose parts (a vectorizer, a wrapped model) default to
    None, used as a default part at ``fit``: ``set_params(part__name=value)`` while ``part``
    is None is a ValueError naming the part to pass, as scikit-learn's ``Invalid
    parameter`` error names a parameter the estimator does not have (scikit-learn's own
    ``set_params`` raised AttributeError: 'NoneType' object has no attribute 'set_params').
    ``_default_part(name)`` gives the part used when parameter ``name`` is None (the
    wrappers' ``_base()`` for ``estimator``), or None."""

    def set_params(self, **params):
        own = self.get_params(deep=False)
        for key in params:
            part, nested, _ = key.partition("__")
            value = params[part] if part in params else own.get(part, 0)
            if nested and part in own and value is None:
                default = self._default_part(part)
                what = "..." if default is None else " ".join(repr(default).split())
                used = "" if default is None else f", {what} at fit"
                raise ValueError(
                    f"Invalid parameter {key!r} for estimator {type(self).__name__}: its {part} is None (the "
                    f"default{used}), which has no parameters to set; give the {part} first: "
                    f"{type(self).__name__}({part}={what}), or set_params({part}={what}, {key}=...)")
        return super().set_params(**params)

    def _default_part(self, name):
        base = getattr(self, "_base", None)
        return base() if name == "estimator" and callable(base) else None


class SaveMixin:
    """``save(path)`` for every textnb estimator: one implementation (the model file of
    :func:`textnb.core.model_io.save`: arrays and JSON, written atomically, never a pickle)."""

    def save(self, path):
        """Write the fitted model to ``path`` (a ``.tnb`` file, atomically; no pickle).

        Raises :class:`~textnb.core.errors.ModelFileError` (one line, nothing written) when
        a ``cv`` parameter, here or in a model this one holds, is a splitter object or a
        one-shot iterator: a model file stores data, never objects. Set it to an int or to
        a list of ``(train, test)`` index arrays first (``set_params(cv=5)``).
        """
        check_is_fitted(self)
        _check_storable_cv(self, path)
        save(self, path)


def _check_storable_cv(estimator, path):
    """Refuse a model whose ``cv`` (or a nested ``…__cv``) a model file cannot hold."""
    params = estimator.get_params(deep=True) if hasattr(estimator, "get_params") else {}
    for name, value in params.items():
        if (name == "cv" or name.endswith("__cv")) and not (
                value is None or isinstance(value, (list, tuple))
                or (isinstance(value, Integral) and not isinstance(value, bool))):
            raise ModelFileError(
                f"{path}: cannot save a {type(estimator).__name__} whose {name} is {_short(value)}: a model "
                f"file stores an int or a list of (train, test) index arrays, not a splitter object; "
                f"set_params({name}=...) to one of those first; nothing was written")




class DeclaredTags:
    """``__sklearn_tags__`` from declarations: the one place textnb's estimators set their tags.

    A class states the tags it changes as data, and this mixin's ``__sklearn_tags__`` applies
    them on top of scikit-learn's (so it must stand left of scikit-learn's mixins, as
    ``class X(DeclaredTags, ClassifierMixin, BaseEstimator)``; a class that inherits it from
    a textnb base needs nothing more):

    ``_tags``
        dict mapping a tag's dotted path in :class:`sklearn.utils.Tags` (``"requires_fit"``,
        ``"input_tags.sparse"``, ``"classifier_tags.poor_score"``) to its value; a callable
        value (``attrgetter("_supervised")``) is called with the estimator. The ``_tags`` of
        every class in the MRO apply, bases first: a subclass adds to and overrides its bases'.
    ``_wrapped_input_tags``
        names of input tags (``"sparse"``, ``"positive_only"``, ``"allow_nan"``) a wrapper takes
        from the model it wraps, ``self._base()``, as :func:`wrapped_input_tags` reads them.
        Applied after ``_tags``.
    """

    _tags = {}
    _wrapped_input_tags = ()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        for cls in reversed(type(self).__mro__):
            for path, value in cls.__dict__.get("_tags", {}).items():
                *sections, name = path.split(".")
                target = tags
                for section in sections:
                    target = getattr(target, section)
                setattr(target, name, value(self) if callable(value) else value)
        if self._wrapped_input_tags:
            inner = wrapped_input_tags(self._base())
            for name in self._wrapped_input_tags:
                setattr(tags.input_tags, name, getattr(inner, name))
        return tags


def wrapped_input_tags(estimator):
    """The input tags of ``estimator`` as a wrapper passes its ``X`` on to it.

    A scikit-learn ``Pipeline``'s own tags do not say what its steps accept: ``X`` reaches the
    first step, so ``sparse`` is the first step's, and ``positive_only`` holds when any step
    rejects negative values; ``allow_nan`` (and the rest) are the pipeline's own.
    """
    tags = get_tags(estimator).input_tags
    steps = getattr(estimator, "steps", None)
    if isinstance(steps, list):
        steps = [s for _, s in steps if s not in (None, "passthrough")]
        if steps:
            first = get_tags(steps[0]).input_tags
            tags.sparse, tags.string, tags.two_d_array = first.sparse, first.string, first.two_d_array
            tags.positive_only = any(get_tags(s).input_tags.positive_only for s in steps)
    return tags


def takes_documents(estimator):
    """True when ``estimator``'s ``X`` is raw documents, not a matrix: a
    :class:`~textnb.text.classifier.TextClassifier`, a Pipeline whose first step is a
    vectorizer (its input tags: strings, no 2-D array)."""
    tags = wrapped_input_tags(estimator)
    return bool(tags.string and not tags.two_d_array)


def _looks_like_documents(X):
    """True when ``X`` is a 1-D sequence whose first item is a str, bytes or path (raw documents)."""
    import os

    if isinstance(X, (str, bytes)):
        return True
    if getattr(X, "ndim", 1) != 1 or hasattr(X, "nnz") or not hasattr(X, "__getitem__") \
            or not hasattr(X, "__len__") or len(X) == 0:
        return False
    first = X.iloc[0] if hasattr(X, "iloc") else X[0]
    return isinstance(first, (str, bytes, os.PathLike))


def wrapped_documents(wrapper, estimator, X, *, pipelines=True):
    """``X`` as a wrapper passes it on to ``estimator``: raw documents as a 1-D object array
    (indexable by the rows of a fold; a generator read once) when ``estimator`` takes them
    (:func:`takes_documents`), else None (a matrix or table: the wrapper validates it as before).

    Documents given to a wrapper of a model of a count matrix are an
    :class:`~textnb.core.errors.InputError` saying what to pass instead (scikit-learn's own
    message was its reshape advice for a 1-D array); ``pipelines``: whether it may suggest a
    Pipeline starting with a vectorizer (APNBC needs a model with ``predict_joint_log_proba``).
    """
    if not takes_documents(estimator):
        if _looks_like_documents(X):
            name = type(wrapper).__name__
            steps = [type(s).__name__ + "()" for _, s in getattr(estimator, "steps", None) or []
                     if s not in (None, "passthrough")]
            inner = f"make_pipeline({', '.join(steps)})" if steps else f"{type(estimator).__name__}()"
            counted = f"make_pipeline(Vectorizer(), {', '.join(steps or [inner])})"
            raise InputError(
                f"{name} was given raw documents, but the model it wraps, {inner}, takes a count matrix: wrap "
                f"a model of documents, {name}(TextClassifier(model={inner}))"
                + (f" or {name}({counted})" if pipelines else "") + ", or wrap "
                f"the other way round, TextClassifier(model={name}({inner}))")
        return None
    refuse_single_string(X)
    if hasattr(X, "shape") and len(X.shape) != 1:
        raise InputError(f"{type(wrapper).__name__} wraps a model of documents: X must be an iterable of "
                         f"documents (str, bytes or path each), got an array of shape {X.shape}")
    docs = X.tolist() if hasattr(X, "tolist") else list(X)
    out = np.empty(len(docs), dtype=object)
    out[:] = docs
    return out


def with_choices(fitted):
    """The model to fit in place of the fitted model ``fitted`` on a part of its training
    data, so that it scores on ``fitted``'s scale (the out-of-fold models behind
    MultiLabelNB's thresholds, CalibratedNB's maps, APNBC's weights with ``fit_on="cv"``):
    ``fitted``, unfitted, with the choices it made from its data fixed (DiscriminativeNB's
    event model and smoothing with ``event_model="auto"``; the setting a SmoothingCV
    chose), or None when no model in it made one (fit a clone of it as it is).

    A model declares what it chose by the capability ``with_choices()`` (same answer, for
    itself: :meth:`_BaseCountNB.with_choices <textnb.naive_bayes.discrete._BaseCountNB.with_choices>`,
    :meth:`SmoothingCV.with_choices <textnb.meta.smoothing.SmoothingCV.with_choices>`);
    a model that does not is looked inside as :func:`textnb.core.wrapping.chain` does: a
    Pipeline's last step, and a wrapper's fitted model (``estimator_``, ``model_``), put
    back as its ``estimator`` / ``model`` parameter (CalibratedNB, APNBC, TextClassifier).
    """
    own = getattr(fitted, "with_choices", None)
    if callable(own):
        return own()
    steps = getattr(fitted, "steps", None)
    if isinstance(steps, list) and steps and isinstance(steps[-1], tuple) and len(steps[-1]) == 2:
        name, last = steps[-1]
        inner = None if last is fitted else with_choices(last)
        return None if inner is None else clone(fitted).set_params(**{name: inner})
    params = fitted.get_params(deep=False) if hasattr(fitted, "get_params") else {}
    for attribute in INNER_ATTRIBUTES:
        inner, name = getattr(fitted, attribute, None), attribute[:-1]
        if inner is not None and inner is not fitted and name in params:
            chosen = with_choices(inner)
            return None if chosen is None else clone(fitted).set_params(**{name: chosen})
    return None


class WrapperTags(DeclaredTags):
    """The tags of a classifier that wraps one model (``self._base()``), as CalibratedNB and
    SmoothingCV: it takes the model's input, and a score check may find it poor."""

    _tags = {"classifier_tags.poor_score": True}
    _wrapped_input_tags = ("sparse", "positive_only", "string", "two_d_array")


class BaseNB(DeclaredTags, SaveMixin, NestedParams, Scores, ClassifierMixin, BaseEstimator, metaclass=ABCMeta):
    """Abstract base of textnb's naive Bayes estimators (log space throughout)."""

    _tags = {"classifier_tags.poor_score": True}

    @abstractmethod
    def _joint_log_likelihood(self, X):
        """log P(c) + log P(x | c) up to a constant per row, shape (n_samples, n_classes)."""

    @abstractmethod
    def _check_X(self, X):
        """Validate X for prediction (``reset=False``)."""

    def _check_fitted(self):
        check_is_fitted(self)

    def _validate_x(self, X, *, reset):
        """A table's ``X`` (float64, NaN = missing): scikit-learn's ``validate_data``
        (``n_features_in_``, ``feature_names_in_``); the estimator of a kernel takes this
        instead of the kernel's :class:`~textnb.naive_bayes.scoring.TableInput`."""
        try:
            return validate_data(self, X, dtype=np.float64, ensure_all_finite="allow-nan", reset=reset)
        except ValueError:
            _refuse_text_cells(self, X)
            raise

    def _validate_xy(self, X, y, *, reset):
        """``validate_data`` of a table's ``X`` and ``y``, and the classification-target check."""
        try:
            X, y = validate_data(self, X, y, dtype=np.float64, ensure_all_finite="allow-nan", reset=reset)
        except ValueError:
            _refuse_text_cells(self, X)
            raise
        check_classification_targets(y)
        return X, y


def _refuse_text_cells(estimator, X):
    """One ValueError naming the first text cell of an array ``X`` (not a DataFrame) that a
    table model was given (``df.to_numpy()``, rows of raw values), and what to pass
    instead; nothing when ``X`` has no such cell (the caller re-raises its error)."""
    if hasattr(X, "columns") or hasattr(X, "tocsr"):
        return
    try:
        cells = np.asarray(X, dtype=object)
    except (ValueError, TypeError):
        return
    if cells.ndim != 2:
        return
    for (i, j), v in np.ndenumerate(cells):
        if isinstance(v, (str, np.str_)):
            try:
                float(v)
            except ValueError:
                break
    else:
        return
    names = getattr(estimator, "feature_names_in_", None)
    frame = (f"the DataFrame it was fitted on (columns {', '.join(map(str, names))})" if names is not None
             else "a pandas DataFrame (its text columns are nominal)")
    recode = ", or re-code raw rows with textnb.encode_like(rows, model.attributes_)" \
        if getattr(estimator, "attributes_", None) is not None else ""
    raise ValueError(f"{type(estimator).__name__}: cell {v!r} (row {i + 1}, column {j + 1}) of an array is text; an "
                     f"array holds numbers (a nominal cell the index of its value): pass {frame}{recode}") from None


class NominalCodesMixin(DeclaredTags):
    """Input tags of the models that take nominal value indices (TAN/BN, AODE): integers
    >= 0 with NaN for a missing value (see :func:`check_nominal_codes`)."""

    _tags = {"input_tags.allow_nan": True, "input_tags.categorical": True, "input_tags.positive_only": True}


