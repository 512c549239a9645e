"""Adjusted probability naive Bayes (APNBC): one learned weight per class.

Webb & Pazzani, "Adjusted Probability Naive Bayesian Induction" (AI'98;
``../shared/papers/000_9364d3ac28b31830.txt``, restated in
``../shared/design/algorithms.md`` §2) multiply the naive Bayes probability of each class
``i`` by a weight ``A_i`` and predict ``argmax_i A_i P(o, i)``. The weights are found by a
hill-climbing search over *critical values* that maximises resubstitution accuracy, each
step guarded by a binomial test. In log space the weight is one more additive term:
``argmax_i log A_i + log P(o, i)``.

The paper's search re-scores every training object for every candidate (``O(C·N²)`` per
step). :func:`_search_weights_fast` makes the same choices in ``O(C·N log N)`` per step:
with every weight but ``A_c`` fixed, the number of errors as a function of ``log A_c`` is a
step function whose steps are the objects' critical values, so sorting them once per class
and per step answers each candidate's error count by binary search.
"""

import math
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from scipy.stats import binom
from sklearn.base import clone
from sklearn.utils import get_tags
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from textnb.core.errors import ParameterError
from textnb.core.folds import stratified_kfold
from textnb.naive_bayes.base import CV_SCHEMA, BaseNB, given_splits
from textnb.core.model_io import register
from textnb.core.model_schema import (N_FEATURES, SEED, TEMPLATE, Any, Array, Choice, Classes, DictOf,
                                 Float, ListOf, MayBeAbsent, Model, Reals, Str)
from textnb.io.frames import is_frame

__all__ = ["APNBC"]

_FIT_ON = ("resubstitution", "cv")


@register
class APNBC(BaseNB):
    """Adjusted probability naive Bayes (Webb & Pazzani 1998) around any textnb model.

    Wraps a model that gives joint log probabilities (``predict_joint_log_proba``:
    :class:`~textnb.MultinomialNB`, :class:`~textnb.BernoulliNB`, the tabular model) and
    learns one weight ``A_c`` per class so that ``argmax_c log A_c + log P(x, c)`` makes as
    few errors as possible on the training data, accepting a weight change only when a
    binomial test says the reduction in errors is unlikely to be chance.

    Parameters
    ----------
    estimator : estimator, default=None
        The naive Bayes model to adjust (cloned by ``fit``); ``None`` means
        ``MultinomialNB()``.
    significance : float in (0, 1], default=0.05
        The paper's critical value α of the binomial test: a weight change that brings the
        training errors from ``e`` to ``b`` is accepted when
        ``binom.cdf(b, n, e / n) < significance``. ``1`` disables the test (every change
        that removes at least one error is accepted); the paper runs 0.05, 0.1 and 1.
    fit_on : {"resubstitution", "cv"}, default="resubstitution"
        Where the joint log probabilities the weights are learned from come from.
        ``"resubstitution"`` (the paper): the base model fitted on all the data, scored on
        the same data. ``"cv"``: out-of-fold scores from ``cv`` stratified folds (shuffled
        with ``random_state``), useful when the base model fits its training data
        almost perfectly, as a multinomial model of long documents does. Either way the
        base model kept for prediction is fitted on all the data.
    cv : int, cross-validation splitter or iterable of (train, test) index arrays, default=10
        The folds of ``fit_on="cv"``: a number of stratified folds (lowered to the number
        of objects of the largest class if larger), or what scikit-learn's ``check_cv``
        accepts. With given splits, each row's score is from the last split that holds it
        out, and a row no split holds out is scored by the model fitted on all the data. A
        splitter object cannot be saved in a model file (a list of splits can).
    epsilon : float, default=1e-5
        The paper's ε: a candidate weight is a critical value moved by ε so that the tied
        object falls on the intended side. Here the step is taken on the log scale
        (``log A ± ε``, i.e. a relative step ``A·e^{±ε}`` on the probability scale), so it
        means the same for weights of any size and never makes a weight negative.
    random_state : int, RandomState instance or None, default=None
        Seeds the fold assignment of ``fit_on="cv"``; the search itself is deterministic.

    Attributes
    ----------
    estimator_ : estimator
        The fitted base model (on all the training data).
    classes_ : ndarray of shape (n_classes,)
    class_log_weight_ : ndarray of shape (n_classes,)
        ``log A_c``, added to the base model's joint log likelihood.
    adjustments_ : ndarray of shape (n_classes,)
        ``A_c = exp(class_log_weight_)``, the weights on the probability scale as the
        paper reports them (may overflow to ``inf`` for extreme weights; the log weights
        are what prediction uses). With two classes the first class keeps ``A = 1`` and
        the second carries the single weight.
    search_history_ : list of dict
        The accepted steps in order: ``class`` (label as str), ``class_index``,
        ``direction`` (``"+"`` raised, ``"-"`` lowered), ``errors_before``,
        ``errors_after`` (training errors, or out-of-fold errors with ``fit_on="cv"``),
        ``p_value`` (the binomial test) and ``log_weight`` (the new ``log A_c``).
    n_features_in_ : int

    Notes
    -----
    How this implementation reads the parts of the paper's Appendix A that are open to
    interpretation:

    * *Candidates.* For every misclassified object ``o`` (true class ``t``, predicted
      ``e``): raise ``A_t`` to the value that ties ``t`` with ``e``, plus ε ("up"), and
      lower ``A_e`` to the value that ties ``e`` with ``t``, minus ε ("down"). Candidates
      with an infinite critical value (a class with probability 0) are skipped.
    * *Choice.* The candidate with the fewest training errors wins; among equal error
      counts the one whose weight moves least *on the probability scale*
      (``|adj − A_old|``, as the appendix writes it) wins; remaining ties go to the
      earlier object, an "up" move before a "down" move of the same object (the
      appendix's loop order with its strict ``<``).
    * *Improvement.* Only a candidate with strictly fewer errors than the current weights
      is ever chosen (the appendix leaves ``bestd`` uninitialised; a move that gains
      nothing would be rejected by the test for any α < 0.5, and with α = 1 it would
      never stop).
    * *Binomial test.* ``binomial(best, n, error()/n)`` is read as the probability of
      ``best`` or fewer errors in ``n`` trials when the error rate is the current one,
      ``scipy.stats.binom.cdf(best, n, current / n)``; a step is accepted when it is
      ``< significance``. (The paper also calls it a "sign test"; the appendix's formula
      is what is implemented.)
    * *Plateau midpoint.* An accepted weight is not left at ``adj ± ε``: it moves to the
      midpoint, on the probability scale (``(adj + b) / 2``), of ``adj`` and the nearest
      critical value ``b`` beyond ``adj ± ε`` at which the error count rises above the
      accepted count (``adjustup`` / ``adjustdown``). Error counts are taken on the open
      intervals between critical values. If the error never rises in that direction, or
      the midpoint would not lie beyond ``adj ± ε``, the weight stays at ``adj ± ε``.
    * *Two classes.* One weight, on the second class of ``classes_`` (the first keeps
      ``A = 1``); its candidates are "up" from misclassified objects of the second class
      and "down" from misclassified objects of the first, and the main loop runs once.
      For the paper's at-least-2-of-6 example this puts the weight on the positive class,
      in the paper's interval (0.106, 0.758).
    * *Scale.* Everything is computed on the log scale (log weights, log critical
      values, move sizes as ``log(e^a − e^b)``), so nothing underflows on long documents.

    ``predict_proba`` renormalises the *adjusted* scores, ``A_c P(x, c) / Σ_k A_k P(x, k)``.
    The weights are tuned for choosing a class, not for calibration: the paper warns
    against reading these as probability estimates.

    References
    ----------
    G. I. Webb and M. J. Pazzani, "Adjusted probability naive Bayesian induction",
    Proc. 11th Australian Joint Conference on Artificial Intelligence (AI'98), 1998.

    Examples
    --------
    >>> import numpy as np
    >>> from textnb.semi_naive.apnbc import APNBC
    >>> from textnb.naive_bayes.discrete import BernoulliNB
    >>> X = np.array([[int(b) for b in f"{i:06b}"] for i in range(64)])
    >>> y = (X.sum(axis=1) >= 2).astype(int)          # the at-least-2-of-6 concept
    >>> model = APNBC(BernoulliNB(alpha=1e-10)).fit(X, y)
    >>> bool((model.predict(X) == y).all())
    True
    >>> bool(0.106 < model.adjustments_[1] < 0.758)
    True
    """

    _param_schema = {
        "estimator": TEMPLATE, "significance": Float(0.0, 1.0, lo_open=True),
        "fit_on": Choice("resubstitution", "cv"), "cv": CV_SCHEMA, "epsilon": Float(0.0, 1.0), "random_state": SEED,
    }
    _state_schema = {
        "classes_": Classes(),
        "estimator_": Model(dims={"classes_": "n_classes", "n_features_in_": "n_features"}, equal={"classes_": "classes_"}),
        "class_log_weight_": Reals(("n_classes",)),
        "adjustments_": Array("f", ("n_classes",), lo=0.0, finite="no-nan"),
        "search_history_": ListOf(DictOf(Str(100), Any()), max_len=10**6),
        "n_features_in_": N_FEATURES,
        "feature_names_in_": MayBeAbsent(Array("U", (None,))),
    }

    def __init__(self, estimator=None, *, significance=0.05, fit_on="resubstitution", cv=10,
                 epsilon=1e-5, random_state=None):
        self.estimator = estimator
        self.significance = significance
        self.fit_on = fit_on
        self.cv = cv
        self.epsilon = epsilon
        self.random_state = random_state

    # -- parameters ---------------------------------------------------------------
    def _base(self):
        if self.estimator is None:
            from textnb.naive_bayes.discrete import MultinomialNB

            return MultinomialNB()
        return self.estimator

    def _check_params(self):
        sig = self.significance
        if not isinstance(sig, Real) or isinstance(sig, bool) or not 0 < sig <= 1:
            raise ValueError(f"significance must be a number in (0, 1]; got {sig!r}")
        if self.fit_on not in _FIT_ON:
            raise ValueError(f"fit_on must be one of {list(_FIT_ON)}; got {self.fit_on!r}")
        if isinstance(self.cv, Integral) and not isinstance(self.cv, bool) and self.cv < 2:
            raise ParameterError(f"cv must be at least 2 folds; got {self.cv!r}")
        eps = self.epsilon
        if not isinstance(eps, Real) or isinstance(eps, bool) or not (0 < eps < np.inf):
            raise ValueError(f"epsilon must be a finite number > 0; got {eps!r}")
        if not hasattr(self._base(), "predict_joint_log_proba"):
            raise TypeError(
                f"estimator {type(self._base()).__name__} has no predict_joint_log_proba; "
                "APNBC needs a model that gives joint log probabilities"
            )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        inner = get_tags(self._base())
        tags.input_tags.sparse = inner.input_tags.sparse
        tags.input_tags.positive_only = inner.input_tags.positive_only
        tags.input_tags.allow_nan = inner.input_tags.allow_nan
        return tags

    # -- fitting ----------------------------------------------------------------------
    def fit(self, X, y):
        """Fit the base model and learn the class weights; returns self."""
        self._check_params()
        X = self._validate_X(X, reset=True)
        y = column_or_1d(y, warn=True)
        check_classification_targets(y)
        base = self._base()
        self.estimator_ = clone(base).fit(X, y)
        self.classes_ = self.estimator_.classes_
        y_index = _positions(self.classes_, y)  # classes_ may be in declared, unsorted order
        splits = given_splits(self.cv, X, y)  # checked even when fit_on="resubstitution"
        if self.fit_on == "cv":
            jll = self._out_of_fold_jll(base, X, y, splits)
        else:
            jll = self.estimator_.predict_joint_log_proba(X)
        log_weight, history = _search_weights_fast(
            jll, y_index, significance=float(self.significance), epsilon=float(self.epsilon))
        for step in history:
            step["class"] = str(self.classes_[step["class_index"]])
        self.class_log_weight_ = log_weight
        with np.errstate(over="ignore"):
            self.adjustments_ = np.exp(log_weight)
        self.search_history_ = history
        return self

    def _out_of_fold_jll(self, base, X, y, splits=None):
        n = len(y)
        if splits is None:
            # no more folds than the largest class has objects (smaller classes are spread
            # over as many folds as they have objects)
            largest = int(np.max(np.unique(y, return_counts=True)[1]))
            splits = stratified_kfold(y, max(2, min(int(self.cv or 10), largest)), self.random_state)
            jll = np.full((n, len(self.classes_)), -np.inf)
        else:  # rows no split holds out keep the full model's scores
            jll = np.asarray(self.estimator_.predict_joint_log_proba(X), dtype=np.float64).copy()
        for train, test in splits:
            Xtr = _take_rows(X, train)
            model = clone(base).fit(Xtr, y[train])
            cols = _positions(self.classes_, model.classes_)
            jll[np.ix_(test, cols)] = model.predict_joint_log_proba(_take_rows(X, test))
        return jll

    # -- prediction -----------------------------------------------------------------
    def _validate_X(self, X, reset):
        # shape, feature count and names here; the base model checks the values (and
        # encodes a DataFrame itself, textnb.io.frames: it is handed on as it is)
        checked = validate_data(self, X, reset=reset, accept_sparse=True, dtype=None,
                                ensure_all_finite=False)
        if is_frame(X):
            return X
        return checked.tocsr() if sp.issparse(checked) else checked

    def _check_X(self, X):
        return self._validate_X(X, reset=False)

    def _joint_log_likelihood(self, X):
        return self.estimator_.predict_joint_log_proba(X) + self.class_log_weight_

    def predict_joint_log_proba(self, X):
        """Adjusted joint log scores ``log A_c + log P(x, c)``, shape (n_samples, n_classes)."""
        check_is_fitted(self)
        return self._joint_log_likelihood(self._check_X(X))


def _take_rows(X, rows):
    return X.iloc[rows] if hasattr(X, "iloc") else X[rows]


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
    exact on the open intervals between critical values.
    """

    def __init__(self, own, other, n_fixed_wrong):
        self.own = np.sort(own)
        self.other = np.sort(other)
        self.n_fixed_wrong = int(n_fixed_wrong)

    def errors(self, w):
        w = np.asarray(w, dtype=np.float64)
        if w.ndim == 1 and w.size > 64:  # sorted queries make the binary searches local
            order = np.argsort(w, kind="stable")
            out = np.empty(w.size, dtype=np.intp)
            out[order] = self.errors(w[order][None])[0]
            return out
        wrong_own = self.own.size - np.searchsorted(self.own, w, side="left")
        wrong_other = np.searchsorted(self.other, w, side="right")
        return self.n_fixed_wrong + wrong_own + wrong_other

    def plateau_end(self, start, best, up):
        """The nearest critical value beyond ``start`` (in the direction of the move)
        past which the error count exceeds ``best``; ``None`` if it never does."""
        if up:
            own = self.own[self.own > start]
            other = self.other[self.other > start]
            values = np.concatenate([own, other])
            delta = np.concatenate([np.full(own.size, -1), np.full(other.size, 1)])
            order = np.argsort(values, kind="stable")
        else:
            own = self.own[self.own < start]
            other = self.other[self.other < start]
            values = np.concatenate([own, other])
            delta = np.concatenate([np.full(own.size, 1), np.full(other.size, -1)])
            order = np.argsort(-values, kind="stable")
        if values.size == 0:
            return None
        values, delta = values[order], delta[order]
        level = int(self.errors(start)) + np.cumsum(delta)
        last_of_group = np.append(values[1:] != values[:-1], True)
        rises = np.flatnonzero(last_of_group & (level > best))
        return float(values[rises[0]]) if rises.size else None


class _Round:
    """What every class's profile needs from the current weights, computed once a round."""

    def __init__(self, jll, y_index, log_weight):
        S = jll + log_weight
        self.top1, self.s1, self.top2, self.s2 = _top2(S)
        self.misclassified = self.top1 != y_index
        # score of the true class: the best if right, else the second best or a lookup
        s_y = np.where(self.misclassified, self.s2, self.s1)
        odd = np.flatnonzero(self.misclassified & (self.top2 != y_index))
        s_y[odd] = S[odd, y_index[odd]]
        self.s_y = s_y
        self.n_errors = int(np.count_nonzero(self.misclassified))


def _class_candidates(jll_c, y_index, own_idx, rnd, c):
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
    n_good = other_thr.size
    profile = _ClassProfile(own_thr, other_thr, np.count_nonzero(not_c) - n_good)

    # up: misclassified objects of class c; the critical value is their own threshold
    up_mask = own_top1 != c
    up = (own_idx[up_mask], own_thr[up_mask])
    # down: misclassified objects predicted as c; critical value ties c with the true class
    down_obj = np.flatnonzero(pred_c & not_c)
    down = (down_obj, rnd.s_y[down_obj] - jll_c[down_obj])
    return profile, up, down


def _search_weights_fast(jll, y_index, *, significance=0.05, epsilon=1e-5, max_rounds=None):
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
    log_weight = np.zeros(n_classes)
    history = []
    if n == 0 or n_classes < 2:
        return log_weight, history
    two_class = n_classes == 2
    classes_to_adjust = [1] if two_class else range(n_classes)
    jll_cols = np.ascontiguousarray(jll.T)  # column c as a contiguous row
    own_idx = [np.flatnonzero(y_index == c) for c in range(n_classes)]
    rounds = 0
    while max_rounds is None or rounds < max_rounds:
        rnd = _Round(jll, y_index, log_weight)
        current = rnd.n_errors
        if current == 0:
            break
        best = None  # (errors, log_move, object, direction, class, adj, profile)
        for c in classes_to_adjust:
            profile, up, down = _class_candidates(jll_cols[c], y_index, own_idx[c], rnd, c)
            w_c = log_weight[c]
            for direction, (obj, adj) in enumerate((up, down)):
                keep = np.isfinite(adj)
                if not keep.all():
                    obj, adj = obj[keep], adj[keep]
                if obj.size == 0:
                    continue
                err = profile.errors(adj + epsilon if direction == 0 else adj - epsilon)
                fewest = int(err.min())
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
        p_value = float(binom.cdf(errors, n, current / n))
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
            "errors_before": current,
            "errors_after": int(errors),
            "p_value": p_value,
            "log_weight": float(new),
        })
        rounds += 1
        if two_class:
            break  # one weight, one pass (the paper's two-class case)
    return log_weight, history

