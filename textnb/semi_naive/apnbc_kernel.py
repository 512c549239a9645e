"""The kernel of :class:`~textnb.semi_naive.apnbc.APNBC` (numpy and the standard library only).

Adjusted probability naive Bayes (Webb & Pazzani 1998; described in
:mod:`textnb.semi_naive.apnbc`) learns one weight per class on top of a model's joint log
likelihoods. This module holds the whole model: its parameters (``APNBCKernel.defaults``),
what a model file may hold, the weight search (:func:`_search_weights_fast`, with its
binomial test :func:`binomial_cdf`), the out-of-fold scores of ``fit_on="cv"`` and the
scoring. :class:`APNBCKernel` wraps a kernel (a table model's:
:class:`~textnb.naive_bayes.tabular_kernel.TabularKernel`, AODE, TAN, ``Discretized(LBR)``)
and writes the model file the estimator writes; ``textnb train --adjust`` and ``textnb
predict`` use it on tables without scikit-learn. On documents the text trainer and the
model-file scorer (:mod:`textnb.text.training`, :mod:`textnb.text.scorer`) use its weight
search (:meth:`APNBCKernel.learn_weights`, :meth:`APNBCKernel.out_of_fold_scores`) and its
score (:meth:`APNBCKernel.adjusted`) around the count models' kernels. :class:`~textnb.semi_naive.apnbc.APNBC`
is the scikit-learn adapter over it (it wraps estimators, cloned with scikit-learn's
``clone``, and checks its input with ``validate_data``).
"""

import math
from decimal import Decimal, localcontext
from numbers import Integral, Real
from types import MappingProxyType

import numpy as np

from textnb.core.errors import InputError, ParameterError, TooFewObjects
from textnb.core.folds import given_splits, stratified_kfold, take_rows
from textnb.core.model_schema import (CV_SCHEMA, N_FEATURES, SEED, TEMPLATE, Any, Array, Choice, Classes, DictOf,
                                      Float, ListOf, MayBeAbsent, Model, Reals, Str)
from textnb.core.wrapping import groups_kwargs, takes_fold_counts, takes_sample_weight, takes_terms
from textnb.naive_bayes.kernels import TableKernel, all_or_nothing
from textnb.naive_bayes.scoring import check_class_labels, check_n_features, check_sample_weight

__all__ = ["APNBCKernel", "binomial_cdf"]

_FIT_ON = ("resubstitution", "cv")


def binomial_cdf(k, n, p):
    """``P(X <= k)`` for ``X ~ Binomial(n, p)``: the sum of the terms ``C(n, j) p^j
    (1 − p)^(n − j)``, ``j = 0 .. k``, in 60-digit decimal arithmetic (no underflow: the
    exponent range is unbounded), rounded once to the nearest float.

    ``p`` is taken as the exact value of the float. The result is the correctly rounded
    value (to within the 60 digits' error of at most ``k`` multiplications and divisions);
    scipy's ``binom.cdf`` agrees to about 1e-13 relative.
    """
    k, n = int(k), int(n)
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    with localcontext() as ctx:
        ctx.prec = 60
        ctx.Emin, ctx.Emax = -10**15, 10**15
        P = Decimal(float(p))
        Q = 1 - P
        if Q == 0:
            return 0.0
        if P == 0:
            return 1.0
        term = Q ** n
        ratio = P / Q
        total = term
        for j in range(k):
            term = term * (n - j) / (j + 1) * ratio
            total += term
        return float(total)


class APNBCKernel(TableKernel):
    """The model of :class:`~textnb.semi_naive.apnbc.APNBC` without scikit-learn, over a
    kernel (or any model with ``fit`` and ``predict_joint_log_proba``): the same
    parameters (``APNBCKernel.defaults``), fitted attributes, ``fit``, ``predict*`` and
    model file (:meth:`save`, :meth:`from_node`). The documentation is the estimator's.
    """

    #: capability (:mod:`textnb.core.wrapping`): why there is no ``merge`` (``textnb merge`` says it)
    merge_refusal = "its class weights are fitted to the scores of all its training data"
    #: ``fit`` hands ``fold_counts`` on to its estimator (:func:`textnb.core.wrapping.takes_fold_counts`)
    hands_on_fold_counts = True

    kind = "APNBC"
    defaults = MappingProxyType({"estimator": None, "significance": 0.05, "fit_on": "resubstitution", "cv": 10,
                                 "epsilon": 1e-5, "random_state": None})

    _param_schema = {
        "estimator": TEMPLATE, "significance": Float(0.0, 1.0, lo_open=True),
        "fit_on": Choice(*_FIT_ON), "cv": CV_SCHEMA, "epsilon": Float(0.0, 1.0), "random_state": SEED,
    }
    _state_schema = {
        "classes_": Classes(),
        "estimator_": Model(dims={"classes_": "n_classes", "n_features_in_": "n_features"},
                            equal={"classes_": "classes_"}, optional=("n_features_in_",)),
        "class_log_weight_": Reals(("n_classes",)),
        "adjustments_": Array("f", ("n_classes",), lo=0.0, finite="no-nan"),
        "search_history_": ListOf(DictOf(Str(100), Any()), max_len=10**6),
        "n_features_in_": MayBeAbsent(N_FEATURES),  # (none around a model of raw documents)
        "feature_names_in_": MayBeAbsent(Array("U", (None,))),
    }

    def __init__(self, estimator=None, **params):
        super().__init__(estimator=estimator, **params)

    # -- what the estimator does with scikit-learn --------------------------------------
    @staticmethod
    def _clone(model):
        """An unfitted copy of the kernel ``model``: its class called with its parameters."""
        return type(model)(**{name: getattr(model, name) for name in model.defaults})

    @staticmethod
    def _with_choices(fitted):
        """The model the folds of ``fit_on="cv"`` fit in place of the base model, given the
        base model ``fitted`` on every object: the kernels this one wraps (table models, lazy
        rules) make no choice from their data, so None (a copy of the base model); the
        estimator's is :func:`textnb.naive_bayes.base.with_choices` (a SmoothingCV's
        smoothing, DiscriminativeNB's event model kept)."""
        return None

    def _base(self):
        if self.estimator is None:
            from textnb.naive_bayes.discrete import MultinomialNB

            return MultinomialNB()
        return self.estimator

    def _validate_X(self, X, reset):
        """``X`` as given (the base model checks its values), with ``n_features_in_`` set
        (``reset``) or checked; the estimator's version is scikit-learn's ``validate_data``."""
        if not hasattr(X, "shape"):
            X = np.asarray(X)
        if len(X.shape) != 2:
            raise ValueError(f"Expected a 2-D table (rows of attribute values); got an array of {len(X.shape)} "
                             f"dimensions")
        return check_n_features(self, X, reset=reset)

    def _labels(self, y):
        """``y`` as a 1-D array of class labels (the estimator: scikit-learn's checks)."""
        y = np.asarray(y)
        if y.ndim == 2 and y.shape[1] == 1:
            y = y.ravel()
        if y.ndim != 1:
            raise ValueError(f"y should be a 1d array, got an array of shape {y.shape} instead.")
        check_class_labels(y)
        return y

    @staticmethod
    def check_params(params):
        """Check the parameters ``params`` (a dict of every one, :meth:`params`) but the
        wrapped model: ValueError / ParameterError in the estimator's words."""
        sig = params["significance"]
        if not isinstance(sig, Real) or isinstance(sig, bool) or not 0 < sig <= 1:
            raise ValueError(f"significance must be a number in (0, 1]; got {sig!r}")
        if params["fit_on"] not in _FIT_ON:
            raise ValueError(f"fit_on must be one of {list(_FIT_ON)}; got {params['fit_on']!r}")
        cv = params["cv"]
        if isinstance(cv, Integral) and not isinstance(cv, bool) and cv < 2:
            raise ParameterError(f"cv must be at least 2 folds; got {cv!r}")
        eps = params["epsilon"]
        if not isinstance(eps, Real) or isinstance(eps, bool) or not (0 < eps < np.inf):
            raise ValueError(f"epsilon must be a finite number > 0; got {eps!r}")

    def _check_params(self):
        self.check_params({name: getattr(self, name) for name in self.defaults})
        if not hasattr(self._base(), "predict_joint_log_proba"):
            raise TypeError(
                f"estimator {type(self._base()).__name__} has no predict_joint_log_proba; "
                "APNBC needs a model that gives joint log probabilities"
                + (" (for documents, a TextClassifier: APNBC(TextClassifier(model=...)))"
                   if hasattr(self._base(), "steps") else "")
            )

    # -- fitting ------------------------------------------------------------------------
    @all_or_nothing
    def fit(self, X, y, terms=None, sample_weight=None, fold_counts=None, groups=None):
        """Fit the base model and learn the class weights; returns self.

        ``sample_weight`` (optional, whole numbers >= 0): each object counts as that many
        copies of it, in the base model's fit (and each fold's, with ``fit_on="cv"``) and in
        the weight search's error counts and binomial test, so integer weights learn what
        the repeated rows learn (with ``fit_on="resubstitution"``; the folds of
        ``fit_on="cv"`` are drawn from the objects, not the copies). The search counts
        objects, so a fraction is refused (InputError), as is a base model whose ``fit``
        takes no ``sample_weight``.

        ``terms`` (optional) names the columns of ``X`` for a base model whose ``fit``
        takes them (lazy rules on documents,
        :class:`~textnb.semi_naive.lbr_text.LazyTextNB`: its key terms are screened for
        stop words and its rules read the terms); the base model and, with
        ``fit_on="cv"``, each fold's model are fitted with them. Other base models do not
        see them.

        ``fold_counts`` (optional, what a ``TextClassifier`` gives a model of its count
        matrix ``X``: :class:`textnb.text.training.FoldVocabularies`): ``fold_counts(train)``
        is the counts of every object over the vocabulary that the documents ``train`` alone
        give. It is handed on to the base model's fit on every object when that fit takes it
        (a :class:`~textnb.meta.smoothing.SmoothingCV`: each of its folds scored on the
        vocabulary of the fold's training part), and with ``fit_on="cv"`` each fold's model
        is fitted as a fresh fit on the fold's documents would fit it
        (:meth:`fold_input`): on the fold's own vocabulary (a term of held-out documents
        only is unknown to it; ``min_df`` / ``max_df`` / ``max_features`` counted on the
        fold), with the names of those columns for a model that takes ``terms`` and the
        fold's documents' own ``fold_counts`` for a model that takes them. Without it (a
        table, a fixed vocabulary) the folds' models are fitted on the columns of ``X``.

        ``groups`` (optional, one value per row: :func:`textnb.core.wrapping.takes_groups`):
        the folds of ``fit_on="cv"`` (a number of them) keep a group's rows on one side (the
        copies of a document, one per label, in a multi-label copy model), and a base model
        that takes them, or a Pipeline ending in one, gets them (each fold's model those of
        its rows; :func:`textnb.core.wrapping.groups_kwargs`).
        """
        self._check_params()
        X = self._validate_X(X, reset=True)
        y = self._labels(y)
        base = self._base()
        fit_params = {"terms": terms} if terms is not None and takes_terms(base) else {}
        sw = self._check_weights(base, sample_weight, len(y))

        def weights(rows=None):
            return {} if sw is None else {"sample_weight": sw if rows is None else sw[rows]}

        full = dict(fit_params)
        if fold_counts is not None and takes_fold_counts(base):
            full["fold_counts"] = fold_counts
        if groups is not None:
            groups = np.asarray(groups)
            full.update(groups_kwargs(base, groups))
        self.estimator_ = self._clone(base).fit(X, y, **full, **weights())
        self.classes_ = self.estimator_.classes_
        y_index = _positions(self.classes_, y)  # classes_ may be in declared, unsorted order
        splits = given_splits(self.cv, X, y)  # checked even when fit_on="resubstitution"
        if self.fit_on == "cv":
            # the folds' model: the base model with the choices it made on every object kept
            # (a fold choosing its own smoothing would score on another scale)
            chosen = self._with_choices(self.estimator_)
            fold_base = base if chosen is None else chosen
            with_terms = terms is not None and takes_terms(fold_base)

            def fit_score(train, test):
                Xf, fold_params = X, {"terms": terms} if with_terms else {}
                if fold_counts is not None:  # a fresh fit on the fold's documents: their own vocabulary
                    Xf, fold_terms, inner = self.fold_input(fold_counts, train, terms=with_terms)
                    if with_terms:
                        fold_params["terms"] = fold_terms
                    if takes_fold_counts(fold_base):
                        fold_params["fold_counts"] = inner
                fold_params.update(groups_kwargs(fold_base, None if groups is None else groups[train]))
                model = self._clone(fold_base).fit(take_rows(Xf, train), y[train], **fold_params, **weights(train))
                return model.classes_, model.predict_joint_log_proba(take_rows(Xf, test))

            if splits is None:
                jll = self.out_of_fold_scores(fit_score, y, self.classes_, self.cv, self.random_state, groups=groups)
            else:  # rows no split holds out keep the full model's scores
                jll = np.asarray(self.estimator_.predict_joint_log_proba(X), dtype=np.float64).copy()
                _fill_out_of_fold(jll, splits, fit_score, self.classes_)
        else:
            jll = self.estimator_.predict_joint_log_proba(X)
        if sw is not None:  # an object of weight 0 is not there (no error of it to count or move)
            kept = sw > 0
            jll, y_index, sw = np.asarray(jll)[kept], y_index[kept], sw[kept]
        for name, value in self.learn_weights(jll, y_index, self.classes_, significance=self.significance,
                                              epsilon=self.epsilon, sample_weight=sw).items():
            setattr(self, name, value)
        return self

    def uses_fold_counts(self):
        """Capability (:func:`textnb.core.wrapping.takes_fold_counts`): whether ``fit``
        scores folds of its own on ``fold_counts`` (``fit_on="cv"``), whatever it wraps."""
        return self.fit_on == "cv"

    @staticmethod
    def fold_input(fold_counts, train, terms=False):
        """What the model of a ``fit_on="cv"`` fold with the training rows ``train`` is
        fitted on and scores when ``fit`` is given ``fold_counts``, as a fresh fit on the
        fold's documents would be: ``(X, fold_terms, inner)``, ``X`` the counts of every
        object over the vocabulary of the documents ``train`` alone (``fold_counts(train)``;
        the fold's model is fitted on its rows ``train``, scores its held-out rows),
        ``fold_terms`` the names of its columns (with ``terms``: from ``fold_counts``'
        ``with_terms``, :class:`textnb.text.training.FoldVocabularies`; else None) and
        ``inner`` the ``fold_counts`` of the fold's own documents, for a fold model that
        cross-validates on them (a SmoothingCV): ``inner(rows)`` their counts over the
        vocabulary of their rows ``rows``. What the estimator, this kernel and the text
        trainer (:func:`textnb.text.training.fit_model`) fit each fold on."""
        train = np.asarray(train)
        if terms:
            with_terms = getattr(fold_counts, "with_terms", None)
            if with_terms is None:
                raise ValueError("fold_counts gives no terms (with_terms) for a base model that takes them")
            X, fold_terms = with_terms(train)
        else:
            X, fold_terms = fold_counts(train), None

        def inner(rows):
            return take_rows(fold_counts(train[np.asarray(rows)]), train)

        return X, fold_terms, inner

    @staticmethod
    def _check_weights(base, sample_weight, n):
        """``sample_weight`` as float64 whole numbers (None stays None); InputError for a
        fraction or a base model whose ``fit`` takes no weights."""
        if sample_weight is None:
            return None
        if not takes_sample_weight(base):
            raise InputError(f"APNBC cannot take sample_weight: its estimator {type(base).__name__} does not "
                             "learn from sample weights")
        sw = check_sample_weight(sample_weight, n)
        if not np.array_equal(sw, np.floor(sw)):
            raise InputError("APNBC takes whole-number sample weights only (its weight search counts objects, "
                             "each weight a number of copies); round or scale them")
        return sw

    @staticmethod
    def learn_weights(jll, y_index, classes, *, significance, epsilon, sample_weight=None):
        """The fitted attributes the weight search learns from the joint log likelihoods
        ``jll`` (shape (n_samples, n_classes), columns in the order of ``classes``) of
        objects of the classes ``y_index`` (column indices): ``class_log_weight_``,
        ``adjustments_`` and ``search_history_``, in the order ``fit`` sets them
        (:func:`_search_weights_fast`). What the estimator, this kernel and the text
        trainer (:mod:`textnb.text.training`) fit."""
        log_weight, history = _search_weights_fast(jll, y_index, significance=float(significance),
                                                   epsilon=float(epsilon), sample_weight=sample_weight,
                                                   adjust=_last_class(classes))
        for step in history:
            step["class"] = str(classes[step["class_index"]])
        with np.errstate(over="ignore"):
            adjustments = np.exp(log_weight)
        return {"class_log_weight_": log_weight, "adjustments_": adjustments, "search_history_": history}

    @staticmethod
    def out_of_fold_scores(fit_score, y, classes, cv, random_state, groups=None):
        """The out-of-fold joint log likelihoods of ``fit_on="cv"`` with a number of folds
        ``cv``: ``cv`` stratified folds of the labels ``y`` shuffled with ``random_state``
        (:func:`textnb.core.folds.stratified_kfold`; no more folds than the largest class
        has objects, at least 2), each fold's rows scored by ``fit_score(train, test)``,
        which returns the classes of the model fitted on the rows ``train`` and its joint
        log likelihoods of the rows ``test``; ``-inf`` for a class a fold's model lacks.
        Every class of one object leaves no two folds to make: a
        :class:`~textnb.core.errors.TooFewObjects` (a ValueError), as a calibration's
        (:func:`textnb.core.folds.calibration_folds`). ``groups``: the folds keep a group's
        rows on one side (:func:`textnb.core.folds.stratified_kfold`)."""
        # (smaller classes are spread over as many folds as they have objects)
        classes_seen, counts = np.unique(y, return_counts=True)
        largest = int(np.max(counts))
        if largest < 2:
            raise TooFewObjects(f"a class needs at least 2 objects for out-of-fold scores (an adjustment on "
                                f"cross-validation, --adjust-on cv; or --adjust-on resubstitution); each of the "
                                f"{len(classes_seen)} classes has 1", label=classes_seen[0],
                                need="an adjustment on cross-validation (--adjust-on cv; or --adjust-on "
                                     "resubstitution)")
        splits = stratified_kfold(y, max(2, min(int(cv or 10), largest)), random_state, groups=groups)
        jll = np.full((len(y), len(classes)), -np.inf)
        _fill_out_of_fold(jll, splits, fit_score, classes)
        return jll

    # -- prediction -----------------------------------------------------------------------
    def _check_X(self, X):
        return self._validate_X(X, reset=False)

    def _joint_log_likelihood(self, X):
        return self.adjusted(self.estimator_.predict_joint_log_proba(X), self.class_log_weight_)

    @staticmethod
    def adjusted(jll, class_log_weight):
        """APNBC's scores: the wrapped model's joint log likelihoods ``jll`` plus the
        learned ``class_log_weight`` (``log A_c + log P(x, c)``): what the estimator, this
        kernel and the model-file scorer (:mod:`textnb.text.scorer`) compute."""
        return jll + class_log_weight

    def predict_joint_log_proba(self, X):
        """Adjusted joint log scores ``log A_c + log P(x, c)``, shape (n_samples, n_classes)."""
        self._check_fitted()
        return self._joint_log_likelihood(self._check_X(X))

    # -- model files ----------------------------------------------------------------------
    def to_node(self):
        """The model file's node, with the wrapped kernels as nodes (the template unfitted)."""
        return self._nested_node(super().to_node(), "estimator", "estimator_")

    def _get_state(self):
        # the fitted attributes in the order fit sets them (the estimator's file: scikit-learn's
        # validate_data sets feature_names_in_, then n_features_in_)
        return {k: v for k, v in vars(self).items() if k.endswith("_") and not k.startswith("__")}




def _fill_out_of_fold(jll, splits, fit_score, classes):
    """Each split's test rows of ``jll`` (columns: ``classes``) from ``fit_score(train,
    test)`` (:meth:`APNBCKernel.out_of_fold_scores`); the columns of classes the fold's
    model lacks are left as they are."""
    for train, test in splits:
        fold_classes, scores = fit_score(train, test)
        cols = _positions(classes, fold_classes)
        jll[np.ix_(test, cols)] = scores


# -- the weight search -------------------------------------------------------------------
def _log_move(hi, lo):
    """``log(e^hi − e^lo)`` elementwise, ``-inf`` where ``hi <= lo`` (no move)."""
    hi, lo = np.broadcast_arrays(np.asarray(hi, dtype=np.float64),
                                 np.asarray(lo, dtype=np.float64))
    d = lo - hi
    out = np.full(hi.shape, -np.inf)
    pos = d < 0
    out[pos] = hi[pos] + np.log(-np.expm1(d[pos]))
    return out


def _top2(S):
    """Index and value of the best and second-best column of each row (``np.argmax`` ties)."""
    rows = np.arange(S.shape[0])
    top1 = np.argmax(S, axis=1)
    s1 = S[rows, top1]
    if S.shape[1] < 2:
        return top1, s1, top1, np.full_like(s1, -np.inf)
    saved = s1.copy()
    S[rows, top1] = -np.inf
    top2 = np.argmax(S, axis=1)
    s2 = S[rows, top2]
    S[rows, top1] = saved
    return top1, s1, top2, s2


def _positions(classes, labels):
    """Index of each label in ``classes`` (which need not be sorted)."""
    where = {c: i for i, c in enumerate(classes.tolist())}
    return np.fromiter((where[v] for v in np.asarray(labels).tolist()), dtype=np.intp, count=len(labels))


class _ClassProfile:
    """Training errors as a function of one class's log weight, the others held fixed.

    For class ``c`` with log weight ``w``: an object of class ``c`` is right iff
    ``w > own`` (its critical value, ``max_{j≠c}(jll_j + w_j) − jll_c``); an object of
    another class ``y`` that beats every class but ``c`` is right iff ``w < other``
    (``jll_y + w_y − jll_c``); every other object is wrong whatever ``w`` is. Counts are
    exact on the open intervals between critical values. Each object counts its weight
    (``own_weight``, ``other_weight``: whole numbers, so the sums are exact in float64).
    """

    def __init__(self, own, other, n_fixed_wrong, own_weight, other_weight):
        order = np.argsort(own, kind="stable")
        self.own, self.own_weight = own[order], own_weight[order]
        order = np.argsort(other, kind="stable")
        self.other, self.other_weight = other[order], other_weight[order]
        self._own_cum = np.concatenate([[0.0], np.cumsum(self.own_weight)])
        self._other_cum = np.concatenate([[0.0], np.cumsum(self.other_weight)])
        self.n_fixed_wrong = float(n_fixed_wrong)

    def errors(self, w):
        w = np.asarray(w, dtype=np.float64)
        if w.ndim == 1 and w.size > 64:  # sorted queries make the binary searches local
            order = np.argsort(w, kind="stable")
            out = np.empty(w.size, dtype=np.float64)
            out[order] = self.errors(w[order][None])[0]
            return out
        wrong_own = self._own_cum[-1] - self._own_cum[np.searchsorted(self.own, w, side="left")]
        wrong_other = self._other_cum[np.searchsorted(self.other, w, side="right")]
        return self.n_fixed_wrong + wrong_own + wrong_other

    def plateau_end(self, start, best, up):
        """The nearest critical value beyond ``start`` (in the direction of the move)
        past which the error count exceeds ``best``; ``None`` if it never does."""
        own_in = self.own > start if up else self.own < start
        other_in = self.other > start if up else self.other < start
        values = np.concatenate([self.own[own_in], self.other[other_in]])
        sign = -1.0 if up else 1.0
        delta = np.concatenate([sign * self.own_weight[own_in], -sign * self.other_weight[other_in]])
        order = np.argsort(values if up else -values, kind="stable")
        if values.size == 0:
            return None
        values, delta = values[order], delta[order]
        level = float(self.errors(start)) + np.cumsum(delta)
        last_of_group = np.append(values[1:] != values[:-1], True)
        rises = np.flatnonzero(last_of_group & (level > best))
        return float(values[rises[0]]) if rises.size else None


class _Round:
    """What every class's profile needs from the current weights, computed once a round."""

    def __init__(self, jll, y_index, log_weight, weight):
        S = jll + log_weight
        self.top1, self.s1, self.top2, self.s2 = _top2(S)
        self.misclassified = self.top1 != y_index
        # score of the true class: the best if right, else the second best or a lookup
        s_y = np.where(self.misclassified, self.s2, self.s1)
        odd = np.flatnonzero(self.misclassified & (self.top2 != y_index))
        s_y[odd] = S[odd, y_index[odd]]
        self.s_y = s_y
        self.n_errors = float(np.sum(weight[self.misclassified]))


def _class_candidates(jll_c, y_index, own_idx, rnd, c, weight):
    """Profile of class ``c`` and its candidates: (objects, critical values) up and down."""
    top1, mis = rnd.top1, rnd.misclassified
    own_top1 = top1[own_idx]
    M = np.where(own_top1 == c, rnd.s2[own_idx], rnd.s1[own_idx])
    own_thr = M - jll_c[own_idx]

    not_c = y_index != c
    pred_c = top1 == c
    # objects of other classes whose class beats every class but c
    good = not_c & (~mis | (pred_c & (rnd.top2 == y_index)))
    other_thr = rnd.s_y[good] - jll_c[good]
    profile = _ClassProfile(own_thr, other_thr, np.sum(weight[not_c]) - np.sum(weight[good]), weight[own_idx],
                            weight[good])

    # up: misclassified objects of class c; the critical value is their own threshold
    up_mask = own_top1 != c
    up = (own_idx[up_mask], own_thr[up_mask])
    # down: misclassified objects predicted as c; critical value ties c with the true class
    down_obj = np.flatnonzero(pred_c & not_c)
    down = (down_obj, rnd.s_y[down_obj] - jll_c[down_obj])
    return profile, up, down


def _last_class(classes):
    """The column of the class whose weight a two-class search adjusts: the class that sorts
    last among the two (the second of sorted classes), whatever order the classes come in (an
    ARFF header declares them in its own): one weight is enough for two classes, and which one
    is adjusted changes the learned probabilities slightly (the step lands halfway between
    two critical values of that class's weight, not of the ratio), so the choice must not
    follow the order. Labels that do not compare: the second column."""
    if len(classes) != 2:
        return None
    try:
        return 0 if classes[0] > classes[1] else 1
    except TypeError:
        return 1


def _search_weights_fast(jll, y_index, *, significance=0.05, epsilon=1e-5, max_rounds=None, sample_weight=None,
                         adjust=None):
    """Learn APNBC log class weights from joint log likelihoods (Webb & Pazzani, App. A).

    Parameters
    ----------
    jll : ndarray of shape (n_samples, n_classes)
        ``log P(o, i)`` of every training object and class (``-inf`` allowed).
    y_index : ndarray of shape (n_samples,)
        True class of each object as a column index of ``jll``.
    significance : float in (0, 1]
        Critical value of the binomial test (1 accepts every improvement).
    epsilon : float
        Step past a critical value, on the log scale.
    max_rounds : int or None
        Stop after this many accepted steps (``None``: until no step is accepted; each
        accepted step removes at least one error, so at most ``n_samples`` rounds).
    sample_weight : ndarray of shape (n_samples,) or None
        Whole numbers: each object counts as that many copies of it (in the error counts
        and the binomial test's number of trials); None: 1 each.
    adjust : int or None
        With two classes, the column whose weight is adjusted (None: the second;
        :meth:`APNBCKernel.learn_weights` gives the class that sorts last, :func:`_last_class`).

    Returns
    -------
    log_weight : ndarray of shape (n_classes,)
        ``log A_i``; all 0 when nothing was accepted.
    history : list of dict
        The accepted steps (see :attr:`APNBC.search_history_`).

    Notes
    -----
    The choices are those of the paper's ``O(C·N²)`` algorithm, read as documented in
    :class:`APNBC`; each round costs ``O(C·N log N)``: per class one sort of the
    objects' critical values, then a binary search per candidate.
    """
    jll = np.asarray(jll, dtype=np.float64)
    y_index = np.asarray(y_index, dtype=np.intp)
    n, n_classes = jll.shape
    weight = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    trials = int(np.sum(weight))
    log_weight = np.zeros(n_classes)
    history = []
    if n == 0 or n_classes < 2:
        return log_weight, history
    two_class = n_classes == 2
    classes_to_adjust = [1 if adjust is None else int(adjust)] if two_class else range(n_classes)
    jll_cols = np.ascontiguousarray(jll.T)  # column c as a contiguous row
    own_idx = [np.flatnonzero(y_index == c) for c in range(n_classes)]
    rounds = 0
    while max_rounds is None or rounds < max_rounds:
        rnd = _Round(jll, y_index, log_weight, weight)
        current = rnd.n_errors
        if current == 0:
            break
        best = None  # (errors, log_move, object, direction, class, adj, profile)
        for c in classes_to_adjust:
            profile, up, down = _class_candidates(jll_cols[c], y_index, own_idx[c], rnd, c, weight)
            w_c = log_weight[c]
            for direction, (obj, adj) in enumerate((up, down)):
                keep = np.isfinite(adj)
                if not keep.all():
                    obj, adj = obj[keep], adj[keep]
                if obj.size == 0:
                    continue
                err = profile.errors(adj + epsilon if direction == 0 else adj - epsilon)
                fewest = float(err.min())
                if best is not None and fewest > best[0]:
                    continue
                tied = np.flatnonzero(err == fewest)
                obj, adj = obj[tied], adj[tied]
                move = _log_move(adj, w_c) if direction == 0 else _log_move(w_c, adj)
                k = np.lexsort((obj, move))[0]
                cand = (fewest, float(move[k]), int(obj[k]), direction)
                if best is None or cand < best[:4]:
                    best = cand + (c, float(adj[k]), profile)
        if best is None or best[0] >= current:
            break
        errors, _, _, direction, c, adj, profile = best
        p_value = float(binomial_cdf(errors, trials, current / trials))
        if not p_value < significance:
            break
        up = direction == 0
        step_value = adj + epsilon if up else adj - epsilon
        end = profile.plateau_end(step_value, errors, up)
        new = step_value
        if end is not None:
            mid = float(np.logaddexp(adj, end) - math.log(2.0))
            if (mid > step_value) if up else (mid < step_value):
                new = mid
        log_weight[c] = new
        history.append({
            "class_index": int(c),
            "direction": "+" if up else "-",
            "errors_before": int(current),
            "errors_after": int(errors),
            "p_value": p_value,
            "log_weight": float(new),
        })
        rounds += 1
        if two_class:
            break  # one weight, one pass (the paper's two-class case)
    return log_weight, history

