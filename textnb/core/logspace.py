"""Log-space arithmetic in numpy alone: normalising joint log likelihoods.

:func:`logsumexp`, :func:`log_proba_from_jll`, :func:`proba_from_jll`, :func:`log_odds`:
normalising joint log-likelihoods without underflow (each row shifted by its maximum first,
so that a ``log 2`` between tied classes is not absorbed by a huge score), and per-class
log-odds that keep their resolution where probabilities round to 0 or 1. The rules that turn counts into log parameters (smoothing,
priors) are in :mod:`textnb.core.estimates`. :func:`no_evidence`, :func:`prior_where_empty`: a
document with no known term gets the class prior from the models whose scores leave the
prior out (complement).
"""

import numpy as np

__all__ = ["expit", "log_odds", "log_proba_from_jll", "logsumexp", "logsumexp_max_apart", "no_evidence",
           "prior_where_empty", "proba_from_jll", "proba_from_log_proba"]


def logsumexp(a, axis=-1, keepdims=False):
    """``log(sum(exp(a)))`` along ``axis``, shifted by the maximum (no overflow or underflow).

    Rows of only ``-inf`` give ``-inf``; a ``+inf`` entry gives ``+inf``.
    """
    a = np.asarray(a, dtype=np.float64)
    top = np.max(a, axis=axis, keepdims=True) if a.size else np.zeros(a.shape[:-1] + (1,))
    shift = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        out = np.log(np.sum(np.exp(a - shift), axis=axis, keepdims=True)) + shift
    return out if keepdims else np.squeeze(out, axis=axis)


def logsumexp_max_apart(a, axis=-1):
    """``log(sum(exp(a)))`` along ``axis`` (of a real array), rounded as scipy's
    ``scipy.special.logsumexp(a, axis=axis)`` (scipy >= 1.15) rounds it: the same floats, bit for
    bit, without importing scipy (~0.15 s of a command's start-up).

    The maxima of each slice are taken out of the sum: with ``M`` the maximum, ``m`` how
    many entries equal it and ``s`` the sum of ``exp(a - M)`` over the others, the result
    is ``log1p(s / m) + log(m) + M``; where that is not finite (a slice of only ``-inf``,
    a ``+inf`` or a NaN entry), ``log(sum(exp(a)))``. :func:`logsumexp` (the shift alone)
    rounds differently in the last bits; models whose files and scores were defined with
    scipy's keep scipy's rounding through this function (AODE).
    """
    a = np.asarray(a, dtype=np.float64)
    if a.size == 0:
        return np.squeeze(np.full(a.shape[:axis % a.ndim] + (1,) + a.shape[axis % a.ndim + 1:], -np.inf), axis=axis)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        direct = np.log(np.sum(np.exp(a), axis=axis, keepdims=True))
    with np.errstate(divide="ignore", invalid="ignore"):
        top = np.max(a, axis=axis, keepdims=True)
        at_top = a == top
        rest = np.array(a, copy=True)  # (the memory order of a: numpy sums in that order)
        rest[at_top] = -np.inf
        m = np.sum(at_top.astype(np.float64), axis=axis, keepdims=True, dtype=np.float64)
        s = np.sum(np.exp(rest - top), axis=axis, keepdims=True, dtype=np.float64)
        s = np.where(s == 0, s, s / m)
        negative = np.sign(s + 1) * np.sign(m) < 0
        s = np.where(s < -1, -s - 2, s)
        out = np.log1p(s) + np.log(np.abs(m)) + top
        out[negative] = np.nan
    out = np.where(np.isfinite(out), out, direct)
    return np.squeeze(out, axis=axis)[()]  # (a number for a 1-d a, as scipy's)


def _shifted(jll):
    """``jll`` (n_samples, n_classes) with each row shifted by its finite maximum (a row
    whose maximum is not finite, all ``-inf`` or holding ``+inf`` / NaN, as it is)."""
    jll = np.asarray(jll, dtype=np.float64)
    if jll.ndim != 2 or not jll.size:
        return jll
    top = np.max(jll, axis=1, keepdims=True)
    return jll - np.where(np.isfinite(top), top, 0.0)


def log_proba_from_jll(jll):
    """``log P(c | x)`` from joint log likelihoods (n_samples, n_classes): each row shifted
    by its maximum, then normalised with log-sum-exp. The shift first matters where the
    scores are huge: for two tied classes at ``-5e307`` (a value far out in a narrow
    Gaussian), ``jll - logsumexp(jll)`` (scikit-learn's formula) rounds the ``log 2`` away
    and gives ``[0, 0]``; shifted, ``[-log 2, -log 2]``. Elsewhere the same values to
    rounding. Every ``predict_log_proba`` of the package uses it (and, through
    :func:`proba_from_jll`, every ``predict_proba``); a row of only ``-inf`` gives NaN, as
    the unshifted formula does."""
    jll = _shifted(jll)
    return jll - logsumexp(jll, axis=1, keepdims=True)


def proba_from_jll(jll):
    """``P(c | x)`` from joint log likelihoods (n_samples, n_classes): ``exp`` of
    :func:`log_proba_from_jll`, then each row renormalised to sum to 1 (with joint log
    likelihoods of ~1e10, say a Gaussian of tiny variance far from its mean, the
    subtraction alone leaves relative errors of ~1e-7). Every ``predict_proba`` of the
    package uses it."""
    return proba_from_log_proba(log_proba_from_jll(jll))


def proba_from_log_proba(logp):
    """:func:`proba_from_jll` of joint log likelihoods whose :func:`log_proba_from_jll` is
    ``logp`` (computed already): ``exp``, each row renormalised to sum to 1; the same floats."""
    proba = np.exp(logp)
    total = proba.sum(axis=1, keepdims=True)
    return np.divide(proba, total, out=proba, where=total > 0)


def expit(x):
    """The logistic function ``1 / (1 + exp(-x))``, computed without overflow."""
    with np.errstate(over="ignore"):
        return np.exp(-np.logaddexp(0.0, -np.asarray(x, dtype=np.float64)))


def log_odds(jll):
    """Log-odds of each column of a joint log likelihood against all the others.

    ``O(n_samples x n_classes)``. With ``L`` the log-sum-exp of a row, the other
    classes of a class ``c`` that is not the row's most probable one sum to
    ``L + log1p(-exp(jll_c - L))``, accurate there because ``jll_c - L <= log(1/2)``
    (no cancellation); the most probable class, whose probability may round to 1,
    gets an explicit log-sum-exp of the other columns. Each row is first shifted by its
    maximum (log-odds do not depend on it): joint log likelihoods of ~1e16 and beyond (a
    value ~1e8 sd from a narrow Gaussian, or far enough that its distance is capped) would
    otherwise absorb the ``log(2)`` of two tied classes and give them log-odds of 0 and
    +inf where their probabilities are 0.5 and 0.5.
    """
    jll = np.asarray(jll, dtype=np.float64)
    n, n_classes = jll.shape
    if n_classes < 2:
        return np.full_like(jll, np.inf)
    jll = _shifted(jll)
    rows = np.arange(n)
    top = np.argmax(jll, axis=1)
    total = logsumexp(jll, axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        others = total + np.log1p(-np.exp(jll - total))
        rest = jll.copy()
        rest[rows, top] = -np.inf
        others[rows, top] = logsumexp(rest, axis=1)
        return jll - others


def no_evidence(X):
    """Boolean mask of the rows of ``X`` (dense or sparse) without a non-zero value: the
    documents that hold no term the model knows."""
    return np.asarray(abs(X).sum(axis=1)).ravel() == 0


def prior_where_empty(jll, empty, log_prior):
    """``jll`` with the rows ``empty`` (a boolean mask) set to ``log_prior``.

    The complement models (:class:`~textnb.naive_bayes.complement.ComplementNB`, the
    complement event model of :class:`~textnb.naive_bayes.discriminative.DiscriminativeNB`)
    score a document without its class prior (Rennie et al. 2003, §3.1), so a document
    with no known term would get equal scores and the first class. With no evidence the
    answer is the prior: ``predict_proba`` = the class frequencies, ``predict`` = the most
    frequent class. Documents with terms keep their scores (scikit-learn's numbers).
    """
    if not np.any(empty):
        return jll
    jll = np.array(jll, dtype=np.float64)
    jll[np.asarray(empty, dtype=bool)] = log_prior
    return jll
