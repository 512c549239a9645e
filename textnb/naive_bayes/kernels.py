"""The kernels of the count text models: what each model is, without scikit-learn.

One kernel per model kind (:data:`KERNELS`): :class:`MultinomialKernel`,
:class:`BernoulliKernel`, :class:`ComplementKernel` and :class:`DiscriminativeKernel`. A
kernel holds, once,

* the model's parameters: their defaults (``defaults``, which the estimator's
  keyword-only ``__init__`` takes through :func:`takes_defaults`, so scikit-learn's
  ``get_params`` sees the same values) and what a model file may hold
  (``param_schema``, ``state_schema``: :mod:`textnb.core.model_schema`);
* its fitted statistics: the state is the core's count table (``class_count_``,
  ``feature_count_``, :class:`textnb.core.stats.CountTable`) plus a few scalars;
  :meth:`CountKernel.estimate` derives the log parameters from it with the rules of
  :mod:`textnb.core.estimates` (never rebuilt per operation: the estimator keeps them);
* its linear form: every one of these models scores a document
  ``f(x) @ W.T + b`` (:class:`LinearForm`);
* its state for model files: :meth:`CountKernel.to_state` and
  :meth:`CountKernel.from_state`, used by the estimator's ``save`` / ``load`` and by
  the scikit-learn-free trainer (:func:`textnb.text.training.train_text_model`), and
  :meth:`CountKernel.node_form`, the linear form of a model file's node, checked as
  :func:`textnb.core.model_io.load` checks it, for the scikit-learn-free scorer
  (:mod:`textnb.text.scorer`).

The estimators (:mod:`textnb.naive_bayes.discrete`, :mod:`~textnb.naive_bayes.complement`,
:mod:`~textnb.naive_bayes.discriminative`) are thin scikit-learn adapters over these:
input checks, ``fit`` / ``partial_fit`` / ``merge`` of the counts, tags. This module
imports numpy and the core only.
"""

import functools
from numbers import Real
from types import MappingProxyType
from typing import NamedTuple

import numpy as np

from textnb.core import dfe
from textnb.core.errors import CHOSEN_EVENT_MODELS, CHOSEN_PASS_WEIGHTS, CHOSEN_RATIOS, ModelFileError, SettingsDiffer
from textnb.core.logspace import no_evidence, prior_where_empty
from textnb.core.model_io import ModelNode, instantiate, save
from textnb.core.estimates import (ALPHA_FLOOR, bernoulli_log_prob, check_alpha, check_smoothing, class_log_prior,
                                   complement_log_prob, multinomial_log_prob, prior_free_bias)
from textnb.core.model_schema import (CLASS_PRIOR, FEATURE_NAMES, MAX_ALPHA, N_FEATURES, SMOOTHING, Bool, Choice,
                                      Classes, Counts, Float, ListOf, MayBeAbsent, OneOf, Optional, Reals,
                                      check_declared, check_param_values, check_same_settings)
from textnb.naive_bayes.scoring import Scores, TableInput, class_positions

__all__ = ["BERNOULLI", "COMPLEMENT", "DISCRIMINATIVE", "KERNELS", "MULTINOMIAL", "BernoulliKernel", "ComplementKernel", "CountKernel", "DiscriminativeKernel", "LinearForm",
           "MultinomialKernel", "RESIDUAL_FIELDS", "TableKernel", "all_or_nothing", "form_log_likelihood",
           "merge_residuals", "residual_state", "takes_defaults",
           "weighted_sum", "with_defaults"]


def weighted_sum(X, W):
    """``X @ W.T`` where a zero of ``X`` contributes 0 even against an infinite weight
    (``alpha=0`` with ``force_alpha``: a term never seen in a class has log probability
    ``-inf``; a document without it must not get ``0 * -inf = nan``)."""
    if np.all(np.isfinite(W)):
        return np.asarray(X @ W.T)
    out = np.asarray(X @ np.where(np.isfinite(W), W, 0.0).T)
    present = (X != 0).astype(np.float64)
    with np.errstate(invalid="ignore"):
        for sign in (-np.inf, np.inf):
            hit = np.asarray(present @ (W == sign).T.astype(np.float64)) > 0
            out[hit] += sign
    return out


def form_log_likelihood(form, features, X):
    """The joint log-likelihood of the :class:`LinearForm` ``form`` for documents whose
    features (``f(x)``: the counts, or their presence) are ``features`` and counts ``X``:
    ``features @ weights.T + bias`` (:func:`weighted_sum`), and where a document has no
    evidence, ``form.empty`` when given (:func:`textnb.core.logspace.prior_where_empty`)."""
    jll = weighted_sum(features, form.weights) + form.bias
    if form.presence is not None:
        jll = jll + weighted_sum(dfe.term_presence(X, np.float64), form.presence)
    if form.empty is None:
        return jll
    return prior_where_empty(jll, no_evidence(X), form.empty)  # no evidence: the class prior


class LinearForm(NamedTuple):
    """A fitted model as a linear score: ``jll(d) = f(x_d) @ weights.T + bias``.

    ``x_d`` are the document's term counts; ``f`` is the identity, or ``x > threshold``
    when ``threshold`` is not None (Bernoulli's ``binarize``), or the document features
    of a DiscriminativeNB ``event_model`` (:func:`textnb.core.dfe.doc_features`); with
    ``presence``, ``(x_d != 0) @ presence.T`` is added.
    """

    classes: np.ndarray
    weights: np.ndarray
    bias: np.ndarray
    threshold: object = None
    event_model: object = None
    #: the joint log-likelihood of a document with no known term where it is not ``bias``:
    #: the class prior of the complement models, whose scores leave it out
    #: (:func:`textnb.core.logspace.prior_where_empty`)
    empty: object = None
    #: weights (classes x terms) of the terms' presence, added to the score (``x != 0``:
    #: a DiscriminativeNB's residual layer over presence, :func:`textnb.core.dfe.layer_features`)
    presence: object = None


def with_defaults(kernel, given=()):
    """Every parameter of ``kernel`` (its ``defaults``, updated with the dict ``given``);
    TypeError naming a parameter it does not take."""
    given = dict(given)
    unknown = sorted(set(given) - set(kernel.defaults))
    if unknown:
        raise TypeError(f"{kernel.kind} takes no parameter {unknown[0]!r}")
    return {**kernel.defaults, **given}


def takes_defaults(kernel):
    """Decorator of an estimator's ``__init__``: the defaults of its keyword-only
    parameters are the ``kernel``'s ``defaults`` (or the mapping ``kernel``), written
    once; the names must be the same (a positional parameter, such as a meta-estimator's
    ``estimator``, keeps its own default)."""
    defaults = getattr(kernel, "defaults", kernel)

    def decorate(init):
        code = init.__code__
        names = code.co_varnames[code.co_argcount:code.co_argcount + code.co_kwonlyargcount]
        if set(names) != set(defaults):
            raise TypeError(f"{init.__qualname__} must take exactly the keyword-only parameters {sorted(defaults)}")
        init.__kwdefaults__ = dict(defaults)
        return init
    return decorate


#: parameters every count model of :mod:`textnb.naive_bayes.discrete` takes
_COUNT_PARAMS = {"alpha": OneOf(SMOOTHING, Reals(("n_features",), lo=0.0, hi=MAX_ALPHA),
                                ListOf(SMOOTHING, length="n_features")),
                 "force_alpha": Bool(), "m": Optional(SMOOTHING), "fit_prior": Bool(), "class_prior": CLASS_PRIOR}
_COUNT_STATE = {
    "classes_": Classes(),
    "n_features_in_": N_FEATURES,
    "class_count_": Counts(("n_classes",)),
    "feature_count_": Counts(("n_classes", "n_features")),
    "feature_names_in_": FEATURE_NAMES,
}


class CountKernel:
    """The kernel of :class:`~textnb.MultinomialNB`, and the base of the other count kernels."""

    kind = "MultinomialNB"
    defaults = MappingProxyType({"alpha": 1.0, "force_alpha": True, "m": None, "fit_prior": True,
                                 "class_prior": None})
    param_schema = _COUNT_PARAMS
    state_schema = _COUNT_STATE
    #: the state of a model file, in the order it is written (its arrays are numbered in it)
    state_fields = ("classes_", "class_count_", "feature_count_", "n_features_in_", "feature_names_in_")
    #: state fields stored as Python floats
    scalar_fields = ()
    #: parameters that say how a model is computed, not what it is (not in model files)
    execution_params = ()
    #: parameters a merge does not compare besides ``execution_params`` (it compares every
    #: other one: the merged model keeps one side's, so they must be the same)
    merge_ignores = ()
    #: the per-class table the streaming trainer sums: term counts ("tf") or document
    #: frequencies ("df") (:class:`textnb.text.training.Accumulator`)
    per_class = "tf"
    #: the trainer must keep the documents' rows (the model re-scores them); so ``partial_fit``
    #: over batches is not ``fit`` on all of them (each batch's passes see the model before it)
    rows = False

    # -- parameters ---------------------------------------------------------------------
    def params(self, given=()):
        """Every parameter: the defaults, updated with ``given`` (a dict)."""
        return with_defaults(self, given)

    def check_params(self, params, n_features=None):
        """Check ``params`` (ParameterError); returns the additive smoothing to use (``alpha``
        raised to 1e-10 where smaller unless ``force_alpha``, with scikit-learn's warning)."""
        check_smoothing(0.0, params["m"])
        return check_alpha(params["alpha"], params["force_alpha"], n_features)

    def chosen_params(self, params, state):
        """``params`` with the choices the model of ``state`` (fitted with them) made from
        its training data fixed in them, or None when it made none (these models choose
        nothing): what a model fitted on a part of that data in its place is given, so that
        it scores as this model does (capability ``with_choices``,
        :func:`textnb.naive_bayes.base.with_choices`)."""
        return None

    # -- fitted statistics -----------------------------------------------------------------
    def estimate(self, params, state):
        """The log parameters (fitted attributes) derived from ``state``'s counts."""
        alpha = self.check_params(params, state["feature_count_"].shape[1])
        return {"feature_log_prob_": multinomial_log_prob(state["feature_count_"], alpha, params["m"]),
                "class_log_prior_": self._prior(params, state)}

    def _prior(self, params, state):
        return class_log_prior(state["class_count_"], fit_prior=params["fit_prior"], class_prior=params["class_prior"])

    def features(self, params, X):
        """What is summed per document: the counts ``X`` themselves (Bernoulli: presence)."""
        return X

    def fit(self, params, classes, X, y_index, weights=None):
        """The state (:meth:`to_state`) of the model of ``classes`` learned, from no counts,
        on the counts ``X`` (float64) of documents with class indices ``y_index`` and
        ``weights`` (None: ones): the sums of :meth:`features` per class
        (:class:`textnb.core.stats.CountTable`), as the estimator's ``fit`` makes them."""
        from textnb.core.stats import CountTable  # (scipy: not for the scorer)

        table = self.count(params, CountTable(len(classes), X.shape[1]), X, y_index, weights)
        return self.to_state({"classes_": np.asarray(classes), "n_features_in_": X.shape[1],
                              "class_count_": table.class_count, "feature_count_": table.feature_count})

    def count(self, params, table, X, y_index, weights=None):
        """Add to the :class:`~textnb.core.stats.CountTable` ``table`` the :meth:`features`
        of the documents ``X`` in their classes ``y_index`` (``weights``: None, ones);
        returns it (:meth:`fit`, the estimator's ``fit`` and ``partial_fit``)."""
        from textnb.core.stats import class_indicator

        return table.add(self.fit_features(params, X), class_indicator(y_index, table.class_count.shape[0], weights))

    def fit_features(self, params, X):
        """:meth:`features` as a fit counts them (a kernel may check them there: Bernoulli's)."""
        return self.features(params, X)

    def joint_log_likelihood(self, params, state, fitted, X):
        """The joint log-likelihood of the counts ``X`` under the model of ``state`` whose
        :meth:`estimate` is ``fitted`` (:func:`form_log_likelihood` of its :meth:`linear_form`),
        or None when the model is not linear (the estimator scores it)."""
        form = self.linear_form(params, state, fitted)
        return None if form is None else form_log_likelihood(form, self.features(params, X), X)

    def linear_form(self, params, state, fitted):
        """The :class:`LinearForm` of a model of ``state`` whose :meth:`estimate` is
        ``fitted``, or None where the model is not linear in its document features."""
        return LinearForm(state["classes_"], fitted["feature_log_prob_"], fitted["class_log_prior_"])

    def merge_states(self, a, b, columns=None, n_features=None):
        """The state of the models of states ``a`` and ``b`` added up: their counts on the
        sorted union of their classes (:func:`textnb.core.stats.merge_aligned`; ``columns``:
        each part's column in the result, of ``n_features``); ``a``'s other fields. What
        ``TextClassifier.merge`` and ``textnb merge`` of a model file compute."""
        from textnb.core.stats import CountTable, merge_aligned  # (scipy: not for the scorer)

        parts = [(s["classes_"], CountTable.from_arrays(s["class_count_"], s["feature_count_"])) for s in (a, b)]
        classes, table = merge_aligned(parts, columns=columns, n_features=n_features)
        return {**a, "classes_": classes, "class_count_": table.class_count, "feature_count_": table.feature_count,
                "n_features_in_": table.feature_count.shape[1]}

    # -- model files -------------------------------------------------------------------------
    def to_state(self, fitted):
        """The model file's state of a fitted model (a mapping of its fitted attributes:
        an estimator's ``vars``, or what the trainer computed); absent or None fields are
        left out."""
        out = {}
        for name in self.state_fields:
            value = fitted.get(name)
            if value is not None:
                out[name] = float(value) if name in self.scalar_fields else value
        return out

    def from_state(self, state):
        """``state`` (read from a model file) with float64 C-ordered counts; raises
        ValueError when the counts do not fit the classes and features or are not finite
        and non-negative."""
        state = dict(state)
        cc = state["class_count_"] = np.array(state["class_count_"], dtype=np.float64, order="C")
        fc = state["feature_count_"] = np.array(state["feature_count_"], dtype=np.float64, order="C")
        classes, n_features = np.asarray(state["classes_"]), int(state["n_features_in_"])
        if classes.ndim != 1 or cc.shape != (classes.shape[0],) or fc.shape != (classes.shape[0], n_features):
            raise ValueError(f"count shapes {cc.shape} / {fc.shape} do not fit "
                             f"{classes.shape[0]} classes and {n_features} features")
        if not (np.all(np.isfinite(fc)) and np.all(np.isfinite(cc)) and fc.min(initial=0) >= 0
                and cc.min(initial=0) >= 0):
            raise ValueError("counts must be finite and non-negative")
        return state

    def node_form(self, node, n_features):
        """The :class:`LinearForm` of a model file's node (``kind``, ``params``, ``state``:
        :class:`textnb.core.model_io.ModelNode`) over ``n_features`` features, or None
        when the model is not linear or has another number of features.

        The node is checked as :func:`textnb.core.model_io.load` checks it (its declared
        schema, then :meth:`from_state` and :meth:`estimate`); raises
        :class:`~textnb.core.errors.ModelFileError` for an inconsistent one.
        """
        check_declared(self.kind, self.param_schema, self.state_schema, node.params, node.state)
        if not node.state or node.state.get("n_features_in_") != n_features:
            return None
        try:
            params = self.params(node.params)
            state = self.from_state(node.state)
            return self.linear_form(params, state, self.estimate(params, state))
        except (ValueError, TypeError) as exc:
            raise ModelFileError(f"inconsistent model file ({self.kind}: {type(exc).__name__}: {exc})") from None


class MultinomialKernel(CountKernel):
    """The kernel of :class:`~textnb.MultinomialNB` (term counts, a multinomial per class)."""


class BernoulliKernel(CountKernel):
    """The kernel of :class:`~textnb.BernoulliNB` (term presence; document frequencies)."""

    kind = "BernoulliNB"
    defaults = MappingProxyType({"alpha": 1.0, "force_alpha": True, "m": None, "binarize": 0.0, "fit_prior": True,
                                 "class_prior": None})
    param_schema = {**_COUNT_PARAMS, "binarize": Optional(Float(0.0))}
    state_schema = {**_COUNT_STATE,  # document frequencies: at most the class's documents
                    "feature_count_": Counts(("n_classes", "n_features"), le="class_count_")}
    per_class = "df"

    def features(self, params, X):
        """Presence: ``X > binarize`` (float64; sparse stays sparse), or ``X`` itself when
        ``binarize`` is None."""
        binarize = params["binarize"]
        if binarize is None:
            return X
        if isinstance(binarize, bool) or not isinstance(binarize, Real) or not binarize >= 0:
            # as scikit-learn: a negative threshold would count the implicit zeros of a
            # sparse matrix as absent but the same zeros of a dense one as present
            raise ValueError(f"binarize must be a number >= 0 or None; got {binarize!r}")
        import scipy.sparse as sp  # (the estimators' input; not for the scorer)

        if sp.issparse(X):
            Xb = X.copy()
            Xb.data = (Xb.data > binarize).astype(np.float64)
            Xb.eliminate_zeros()
            return Xb
        return (X > binarize).astype(np.float64)

    def fit_features(self, params, X):
        """:meth:`features` to count: with ``binarize`` None, presence as given, a value outside
        [0, 1] refused (it would count a term in more of a class's documents than it has: a
        probability over 1, NaN log-probabilities, as scikit-learn gives). Scoring takes any."""
        if params["binarize"] is None:
            values = X.data if hasattr(X, "data") and not isinstance(X, np.ndarray) else np.asarray(X)
            if values.size and not (values.min() >= 0 and values.max() <= 1):
                raise ValueError("BernoulliNB(binarize=None) takes presence values in [0, 1] (a fraction for an "
                                 f"uncertain presence); got values from {values.min():g} to {values.max():g}: "
                                 "leave binarize at 0.0 to count each term's presence")
        return self.features(params, X)

    def estimate(self, params, state):
        alpha = self.check_params(params, state["feature_count_"].shape[1])
        log_prob, log_neg = bernoulli_log_prob(state["feature_count_"], state["class_count_"], alpha, params["m"])
        return {"feature_log_prob_": log_prob, "feature_log_neg_prob_": log_neg,
                "class_log_prior_": self._prior(params, state)}

    def linear_form(self, params, state, fitted):
        """``W = log θ − log(1 − θ)``, ``b = log P(c) + Σ_w log(1 − θ_cw)`` over presence
        (``x > binarize``); None when a probability is 0 or 1 (``alpha=0``): the score then
        depends on absent terms in a way no finite weight expresses."""
        log_odds = fitted["feature_log_prob_"] - fitted["feature_log_neg_prob_"]
        if not np.all(np.isfinite(log_odds)):
            return None
        return LinearForm(state["classes_"], log_odds,
                          fitted["class_log_prior_"] + fitted["feature_log_neg_prob_"].sum(axis=1),
                          threshold=params["binarize"])


class ComplementKernel(CountKernel):
    """The kernel of :class:`~textnb.naive_bayes.complement.ComplementNB` (Rennie et al. 2003)."""

    kind = "ComplementNB"
    defaults = MappingProxyType({"alpha": 1.0, "force_alpha": True, "m": None, "norm": False, "fit_prior": True,
                                 "class_prior": None})
    param_schema = {**_COUNT_PARAMS, "norm": Bool()}

    def estimate(self, params, state):
        alpha = self.check_params(params, state["feature_count_"].shape[1])
        feature_all, weights = complement_log_prob(state["feature_count_"], alpha, params["m"], params["norm"])
        return {"feature_all_": feature_all, "feature_log_prob_": weights,
                "class_log_prior_": self._prior(params, state)}

    def linear_form(self, params, state, fitted):
        """No class prior (Rennie et al. §3.1), except with a single class; a class of prior
        0 (declared by ``classes=``, no document) is never predicted, as by the models with
        a prior (:func:`~textnb.core.estimates.prior_free_bias`)."""
        prior = fitted["class_log_prior_"]
        if len(prior) == 1:
            return LinearForm(state["classes_"], fitted["feature_log_prob_"], prior)
        return LinearForm(state["classes_"], fitted["feature_log_prob_"], prior_free_bias(prior), empty=prior)


def takes_ratios(state):
    """Whether the DiscriminativeNB ``state`` (a model file's, or an estimator's ``vars``)
    takes the log-count ratios (:func:`textnb.core.dfe.log_count_ratios`): its ``ratios_``,
    False in a file written before they were (what ``"auto"`` decides is
    :func:`textnb.core.dfe.uses_ratios`)."""
    return bool(state.get("ratios_", False))


def merge_residuals(a, b, merged, columns=None):
    """The residual fields of the merge ``merged`` of the states ``a`` and ``b``: their
    residual weights (those folded into the model's, ``residual_``, and those over presence,
    ``residual_presence_``, each apart) and biases averaged, weighted by their documents, each
    on the merged classes and terms (``columns``: each side's column in the merged terms); a
    side without a residual counts as zeros. None of them (``{}``) when neither side has one."""
    sides = (a, b)
    fields = [f for f in LAYER_WEIGHTS if any(s.get(f) is not None for s in sides)]
    if not fields:
        return {}
    classes = np.asarray(merged["classes_"])
    out = {f: np.zeros((classes.size, int(merged["n_features_in_"]))) for f in fields}
    c = np.zeros(classes.size)
    n = [float(np.sum(s["class_documents_"])) for s in sides]
    total = sum(n) or 1.0
    for i, s in enumerate(sides):
        rows = class_positions(classes, s["classes_"])
        cols = np.arange(int(s["n_features_in_"])) if columns is None else np.asarray(columns[i])
        for f in fields:
            if s.get(f) is not None:
                out[f][np.ix_(rows, cols)] += (n[i] / total) * s[f]
        if s.get("residual_intercept_") is not None:
            c[rows] += (n[i] / total) * s["residual_intercept_"]
    return {**out, "residual_intercept_": c}


#: A DiscriminativeNB's fields of its residual layer's weights: folded into the model's, or
#: over the terms' presence (:data:`textnb.core.dfe.LAYER_FIELD`)
LAYER_WEIGHTS = tuple(dict.fromkeys(dfe.LAYER_FIELD.values()))  # ("residual_", "residual_presence_")
#: A DiscriminativeNB's fields of its residual layer (:func:`residual_state`)
RESIDUAL_FIELDS = (*LAYER_WEIGHTS, "residual_intercept_", "residual_strength_")


def residual_state(residual, family):
    """The state fields (:data:`RESIDUAL_FIELDS`) of a residual layer ``(weights, bias,
    strength)`` (:func:`textnb.core.dfe.fit_residual`) of a model of the event model ``family``
    (its weights in :data:`textnb.core.dfe.LAYER_FIELD`'s field), or none (None)."""
    if residual is None:
        return {}
    weights, bias, strength = residual
    return {dfe.LAYER_FIELD[family]: weights, "residual_intercept_": bias, "residual_strength_": strength}


class DiscriminativeKernel(CountKernel):
    """The kernel of :class:`~textnb.naive_bayes.discriminative.DiscriminativeNB`: the counts
    of its frequency-estimate passes (:mod:`textnb.core.dfe`), its event model, smoothing
    and calibration scale."""

    kind = "DiscriminativeNB"
    defaults = MappingProxyType({"event_model": "auto", "alpha": None, "passes": 2, "step": "auto", "cv": 5,
                                 "select_nnz": 200_000, "max_nnz": 3_000_000, "random_state": 0, "n_jobs": None,
                                 "calibration": "temperature", "ratios": "auto",
                                 "residual": "auto"})
    param_schema = dfe.PARAM_SCHEMA
    state_schema = {
        "classes_": Classes(),
        "n_features_in_": N_FEATURES,
        "event_model_": Choice(*dfe.FAMILIES),
        "alpha_": SMOOTHING,
        "class_documents_": Counts(("n_classes",)),
        "class_count_": Counts(("n_classes",)),
        "feature_count_": Counts(("n_classes", "n_features")),
        "feature_names_in_": FEATURE_NAMES,
        "scale_": MayBeAbsent(Float(*dfe.SCALE_RANGE)),  # absent in files of uncalibrated models
        "scale_merged_": MayBeAbsent(Bool()),  # True: the merged models' scales averaged (since 2026-12-07)
        # the scale's evidence (dfe.Scale.weight), which partial_fit weighs it by (since 2026-12-07)
        "scale_weight_": MayBeAbsent(Float(0.0, 1e300)),  # (a sum over weighted documents: no bound but finiteness)
        "step_": MayBeAbsent(dfe.STEP_VALUE),  # absent in files written before 2026-12-06 (the step parameter)
        "ratios_": MayBeAbsent(Bool()),  # absent in files written before 2026-12-07 (as False: no ratios)
        # the residual logistic layer (dfe.fit_residual): absent when none was fitted
        "residual_": MayBeAbsent(Reals(("n_classes", "n_features"))),
        "residual_presence_": MayBeAbsent(Reals(("n_classes", "n_features"))),  # (since 2026-12-06)
        "residual_intercept_": MayBeAbsent(Reals(("n_classes",))),
        "residual_strength_": MayBeAbsent(Float(0.0, 1e6)),
    }
    state_fields = CountKernel.state_fields + ("event_model_", "alpha_", "class_documents_", "scale_",
                                               "scale_merged_", "scale_weight_", "step_", "ratios_", *RESIDUAL_FIELDS)
    scalar_fields = ("alpha_", "scale_", "scale_weight_", "step_", "residual_strength_")
    execution_params = ("n_jobs",)
    #: every parameter says how the event model and smoothing are chosen; a merge compares
    #: the choices made (``event_model_``, ``alpha_``) instead, as it always has
    merge_ignores = tuple(defaults)
    rows = True
    #: capability (:mod:`textnb.core.wrapping`): merged sums are not those trained on the union,
    #: which a merge warns (``textnb merge`` too, in these words)
    merges_exactly = False
    inexact_merge = ("DiscriminativeNB models (the default) do not merge exactly: the result is not the model trained "
                     "on all the parts (train with MultinomialNB, BernoulliNB or ComplementNB / --model multinomial, "
                     "bernoulli or complement for exact merges)")

    def check_params(self, params, n_features=None):
        """Check ``params`` against :data:`textnb.core.dfe.PARAM_SCHEMA` (ParameterError)."""
        check_param_values(self.param_schema, params)

    def chosen_params(self, params, state):
        """:meth:`CountKernel.chosen_params`: with ``event_model="auto"``, the event model
        and smoothing the model chose (``event_model_``, ``alpha_``: a given ``alpha`` is
        its own ``alpha_``), with ``step="auto"`` the pass weight (``step_``), with
        ``ratios="auto"`` and the complement model whether its weights take the log-count
        ratios (``ratios_``); None when it chose none of them."""
        chosen = {}
        if params["event_model"] == "auto":
            chosen.update(event_model=str(state["event_model_"]), alpha=float(state["alpha_"]))
        if isinstance(params["step"], str) and "step_" in state:
            chosen["step"] = float(state["step_"])
        if isinstance(params.get("ratios"), str) and state["event_model_"] == "complement":
            chosen["ratios"] = takes_ratios(state)  # (the Bernoulli model never takes them: nothing chosen)
        if params.get("residual") == "auto":
            chosen["residual"] = any(state.get(f) is not None for f in LAYER_WEIGHTS)
        return {**params, **chosen} if chosen else None

    def estimate(self, params, state):
        """``coef_`` and ``intercept_``: :func:`textnb.core.dfe.model_weights` of the counts,
        plus the residual layer's weights and bias where there is one
        (:func:`textnb.core.dfe.fit_residual`; its weights over presence, ``residual_presence_``,
        stay apart: :meth:`joint_log_likelihood` and :meth:`linear_form` add them)."""
        coef, intercept = dfe.model_weights(state["event_model_"], state["feature_count_"], state["class_count_"],
                                            max(float(state["alpha_"]), ALPHA_FLOOR), state.get("scale_", 1.0),
                                            ratios=takes_ratios(state))
        if state.get("residual_") is not None:
            coef = coef + state["residual_"]
        if state.get("residual_intercept_") is not None:
            intercept = intercept + state["residual_intercept_"]
        return {"coef_": coef, "intercept_": intercept}

    def fit(self, params, classes, X, y_index, weights=None, dropped=None, groups=None):
        """The state (:meth:`to_state`) of the model of ``classes`` learned, from no
        counts, on the CSR counts ``X`` (float64; made canonical, :func:`textnb.core.dfe.canonical`) of documents with class
        indices ``y_index`` and ``weights`` (None: ones) by :func:`textnb.core.dfe.fit_rows`:
        what :meth:`DiscriminativeNB.fit <textnb.naive_bayes.discriminative.DiscriminativeNB.fit>`
        learns with an int ``cv``, and what the scikit-learn-free trainer and
        ``textnb evaluate`` fit (``dropped``: :meth:`textnb.text.training.Accumulator.dropped_sums`;
        ``groups``: the rows of a group share the folds, as the estimator's ``fit(..., groups=)``).
        ``params`` are checked (:meth:`check_params`) by the caller."""
        n_classes = len(classes)
        weights = np.ones(X.shape[0]) if weights is None else weights
        X = dfe.canonical(X)
        family, alpha, step, ratios, fc, cc, documents, scale, residual = dfe.fit_rows(
            np.zeros((n_classes, X.shape[1])), np.zeros(n_classes), X, y_index, weights, params=params,
            dropped=dropped, groups=groups)
        return self.to_state({"classes_": np.asarray(classes), "n_features_in_": X.shape[1], "class_count_": cc,
                              "feature_count_": fc, "event_model_": family, "alpha_": alpha,
                              "class_documents_": documents, **dfe.scale_state(scale), "step_": step,
                              "ratios_": ratios, **residual_state(residual, family)})

    @staticmethod
    def check_same_choices(a, b):
        """Refuse to merge the state ``b`` into ``a`` when their event model, smoothing or
        pass weight, chosen on each part's documents (``event_model="auto"``, ``alpha=None``,
        ``step="auto"``), differ:
        :class:`~textnb.core.errors.SettingsDiffer` of ``what``
        :data:`~textnb.core.errors.CHOSEN_EVENT_MODELS` naming ``event_model`` or ``alpha``, or
        of :data:`~textnb.core.errors.CHOSEN_PASS_WEIGHTS` naming ``step`` (the pass weight,
        ``step="auto"``: :func:`textnb.core.dfe.pass_step`; a file written before it was
        recorded is not compared), or of :data:`~textnb.core.errors.CHOSEN_RATIOS` naming
        ``ratios`` (whether the weights take the log-count ratios, ``ratios="auto"``:
        :func:`textnb.core.dfe.uses_ratios`; a file without ``ratios_`` has none): the one check of ``DiscriminativeNB.merge`` and of ``textnb merge``'s
        :func:`~textnb.text.nodes.merge_count_models`. A model that has learned no documents
        (a ``partial_fit`` of an empty batch: no choice made yet, and no model file holds it)
        is a ValueError: it has nothing to merge."""
        if "event_model_" not in a or "event_model_" not in b:
            which = "this model" if "event_model_" not in a else "the other model"
            raise ValueError(f"cannot merge: {which} (a DiscriminativeNB) has learned no documents, so it has "
                             "nothing to merge (no event model or smoothing chosen yet); merge parts that learned "
                             "documents")
        if b["event_model_"] != a["event_model_"]:
            raise SettingsDiffer(CHOSEN_EVENT_MODELS, "event_model", str(a["event_model_"]), str(b["event_model_"]),
                                 remedy="event_model='auto' chose one on each part's documents: fit both parts "
                                        "with the same explicit event_model ('complement' or 'bernoulli')")
        if float(b["alpha_"]) != float(a["alpha_"]):
            raise SettingsDiffer(CHOSEN_EVENT_MODELS, "alpha", float(a["alpha_"]), float(b["alpha_"]),
                                 remedy="fit both parts with the same alpha")
        if "step_" in a and "step_" in b and float(b["step_"]) != float(a["step_"]):
            raise SettingsDiffer(CHOSEN_PASS_WEIGHTS, "step", float(a["step_"]), float(b["step_"]),
                                 remedy="step='auto' weighed the passes by each part's document length: fit both "
                                        "parts with the same explicit step (e.g. step=4.5)")
        if takes_ratios(a) != takes_ratios(b):
            raise SettingsDiffer(CHOSEN_RATIOS, "ratios", takes_ratios(a), takes_ratios(b),
                                 remedy="ratios='auto' chose them by each part's documents: fit both "
                                        "parts with the same explicit ratios (True or False)")

    def merge_states(self, a, b, columns=None, n_features=None):
        """:meth:`CountKernel.merge_states`, with the documents per class added and the
        calibration scale the two scales averaged, weighted by their documents (either
        order gives the same number), its weight (:class:`textnb.core.dfe.Scale`) the two
        weights summed when both have one; no scale when neither has one. The residual layers
        likewise (a side without one counts as a residual of zeros), on the merged classes
        and terms (:func:`merge_residuals`)."""
        merged = super().merge_states(a, b, columns, n_features)
        merged.pop("residual_strength_", None)
        merged.update(merge_residuals(a, b, merged, columns))
        if "scale_" in a or "scale_" in b:
            n = [float(np.sum(s["class_documents_"])) for s in (a, b)]
            scale = [float(s.get("scale_", 1.0)) for s in (a, b)]
            merged["scale_"] = (n[0] * scale[0] + n[1] * scale[1]) / (n[0] + n[1]) if n[0] + n[1] > 0 else scale[0]
            merged["scale_merged_"] = True  # (what inspect says of it: no temperature fitted on these documents)
            merged.pop("scale_weight_", None)
            if "scale_weight_" in a and "scale_weight_" in b:
                merged["scale_weight_"] = float(a["scale_weight_"]) + float(b["scale_weight_"])
        documents = np.zeros(len(merged["classes_"]))
        for s in (a, b):
            documents[class_positions(merged["classes_"], s["classes_"])] += s["class_documents_"]
        merged["class_documents_"] = documents
        return merged

    def joint_log_likelihood(self, params, state, fitted, X):
        """The joint log-likelihood of the counts ``X`` (CSR, float64) under the model of
        ``state`` whose :meth:`estimate` is ``fitted``: :func:`textnb.core.dfe.joint_log_likelihood`
        (``params`` are not needed)."""
        return dfe.joint_log_likelihood(state["event_model_"], dfe.canonical(X), fitted["coef_"], fitted["intercept_"],
                                        state["class_documents_"], state.get("residual_presence_"))

    def linear_form(self, params, state, fitted):
        """The :class:`LinearForm` over the event model's document features; None unless
        the weights are finite (an intercept of ``-inf``, a class without documents, is
        a score of ``-inf``, as a count model's prior of 0)."""
        intercept, presence = fitted["intercept_"], state.get("residual_presence_")
        if not (np.isfinite(fitted["coef_"]).all() and np.isfinite(intercept[~np.isneginf(intercept)]).all()
                and (presence is None or np.isfinite(presence).all())):
            return None
        return LinearForm(state["classes_"], fitted["coef_"], fitted["intercept_"], event_model=state["event_model_"],
                          empty=dfe.no_evidence_log_prior(state["event_model_"],
                                                          np.asarray(state["class_documents_"], dtype=np.float64)),
                          presence=None if presence is None else np.asarray(presence, dtype=np.float64))


MULTINOMIAL = MultinomialKernel()
BERNOULLI = BernoulliKernel()
COMPLEMENT = ComplementKernel()
DISCRIMINATIVE = DiscriminativeKernel()
#: model kind (as written in model files) -> its kernel
KERNELS = {k.kind: k for k in (MULTINOMIAL, BERNOULLI, COMPLEMENT, DISCRIMINATIVE)}


def _template_node(template):
    """An unfitted kernel as a model file's node (its parameters, as the estimator's
    ``get_params``; a kernel among them as a node too); anything else as it is."""
    if template is None or isinstance(template, ModelNode) or not hasattr(template, "to_node"):
        return template
    return ModelNode(template.kind, {name: _template_node(getattr(template, name))
                                     for name in sorted(template.defaults)}, {})


def all_or_nothing(fit):
    """Decorate a table kernel's ``fit`` so that a ``fit`` that raises leaves the model as
    it found it.

    ``fit`` sets its fitted attributes as it goes (``n_features_in_`` while checking ``X``,
    ``classes_`` before the counts); when a later step raises, the attributes set so far
    are dropped and those the model had before are put back, so an unfitted model stays
    unfitted (scikit-learn's ``check_is_fitted`` and ``save`` raise ``NotFittedError``) and
    a fitted one keeps its previous fit. ``fit`` must replace its fitted attributes, not
    change them in place (every table kernel's ``fit`` builds new arrays). On ``partial_fit``
    it drops what a failed first call set; a later call checks its batch before it adds
    to the counts in place. The signature is kept (``inspect.signature`` follows
    ``__wrapped__``).
    """
    @functools.wraps(fit)
    def wrapper(self, *args, **kwargs):
        before = dict(vars(self))
        try:
            return fit(self, *args, **kwargs)
        except BaseException:
            vars(self).clear()
            vars(self).update(before)
            raise

    return wrapper


class TableKernel(TableInput, Scores):
    """The base of the table models' kernels (:class:`~textnb.naive_bayes.tabular_kernel.TabularKernel`,
    :class:`~textnb.semi_naive.aode_kernel.AODEKernel`): a model that keeps its fitted
    statistics as attributes, as an estimator does, without scikit-learn.

    A subclass declares ``kind`` (its model files' kind: the estimator's class name),
    ``defaults`` (every parameter and its default, written once; the estimator's
    ``__init__`` takes them through :func:`takes_defaults`), ``_param_schema`` /
    ``_state_schema``, and implements ``fit`` (decorated with :func:`all_or_nothing`),
    ``_check_X``, ``_joint_log_likelihood`` and ``_set_state`` (and ``_get_state`` where
    the file holds more than the fitted attributes in ``fit``'s order). This base gives ``__init__(**params)``, the
    ``predict*`` methods (:class:`~textnb.naive_bayes.scoring.Scores`), numpy input
    checks (:class:`~textnb.naive_bayes.scoring.TableInput`), and the model file:
    :meth:`save` writes what the estimator writes, byte for byte; :meth:`from_node` reads it.
    """

    kind = None
    defaults = MappingProxyType({})

    def __init__(self, **params):
        for name, value in self.params(params).items():
            setattr(self, name, value)

    @classmethod
    def params(cls, given=()):
        """Every parameter: the defaults, updated with ``given`` (a dict)."""
        return with_defaults(cls, given)

    #: parameters a merge does not compare as settings: ``attributes`` describes each
    #: part's columns (a CSV part lists the nominal values it met), which the merge
    #: matches by name itself
    merge_ignores = ("attributes",)

    def _check_same_settings(self, other):
        """Refuse to merge ``other`` when a parameter (other than :attr:`merge_ignores`)
        differs: :class:`~textnb.core.errors.SettingsDiffer` naming it (the merged model
        would keep this model's value and drop the other's). The parameters are an
        estimator's ``get_params`` (GaussianNB's own names), else the kernel's ``defaults``."""
        def settings(model):
            if hasattr(model, "get_params"):
                return model.get_params(deep=False)
            return {name: getattr(model, name) for name in model.defaults}
        check_same_settings(settings(self), settings(other), skip=self.merge_ignores)

    def _get_state(self):
        """The fitted attributes (those ending in ``_``), in the order ``fit`` set them: what
        the model file holds, as :func:`textnb.core.model_io.save` takes an estimator's
        (a subclass whose file holds something else overrides it)."""
        return {k: v for k, v in vars(self).items() if k.endswith("_") and not k.startswith("__")}

    def to_node(self):
        """The fitted model as the model file's node: the estimator's kind, parameters
        (all of them, as its ``get_params``) and :meth:`_get_state`."""
        self._check_fitted()
        return ModelNode(self.kind, {name: getattr(self, name) for name in sorted(self.defaults)}, self._get_state())

    @staticmethod
    def _nested_node(node, param, state):
        """``node`` (:meth:`to_node`) of a model that wraps another, with the wrapped
        kernels as nodes: the template in ``params[param]`` unfitted (its parameters, as
        the estimator's ``get_params``), the fitted model in ``state[state]``. An
        estimator is left as it is (the model file writes it)."""
        node.params[param] = _template_node(node.params[param])
        fitted = node.state.get(state)
        if hasattr(fitted, "to_node"):
            node.state[state] = fitted.to_node()
        return node

    def save(self, path):
        """Write the model file the estimator writes for this model (byte for byte),
        without importing scikit-learn."""
        save(self.to_node(), path)

    @classmethod
    def from_node(cls, node):
        """The kernel of a model file's node (:func:`textnb.core.model_io.read_nodes`),
        checked as :func:`~textnb.core.model_io.load` checks the estimator: the declared
        schema, then ``_set_state``; raises :class:`~textnb.core.errors.ModelFileError`
        (to which the caller prefixes the path)."""
        return instantiate(cls, ModelNode(cls.kind, dict(node.params), dict(node.state)))
