"""Log-space arithmetic and the log-parameters of the count models, in numpy alone.

Everything a count model needs to turn its sums into predictions lives here, as pure
functions of arrays, so that the estimators (which are scikit-learn estimators) and the
scikit-learn-free scorer of model files (:mod:`textnb.text.scorer`) compute the same
numbers with the same code:

* :func:`logsumexp`, :func:`log_odds`: normalising joint log-likelihoods without
  underflow, and per-class log-odds that keep their resolution where probabilities
  round to 0 or 1;
* :func:`class_log_prior`, :func:`multinomial_log_prob`, :func:`bernoulli_log_prob`,
  :func:`complement_log_prob`: the smoothed log-parameters from class and feature
  counts (additive / Lidstone smoothing, or the m-estimate of Witten & Frank §4.2);
* :func:`no_evidence`, :func:`prior_where_empty`: a document with no known term gets
  the class prior from the models whose scores leave the prior out (complement).
"""

import numpy as np
from textnb.core.errors import ParameterError

__all__ = ["proba_from_jll", "ALPHA_FLOOR", "background", "check_smoothing", "expit", "bernoulli_log_prob", "check_class_prior", "class_log_prior",
           "complement_log_prob", "log_odds", "logsumexp", "multinomial_log_prob", "no_evidence", "prior_where_empty"]

#: Smoothing below this is raised to it (scikit-learn's floor), so no log 0.
ALPHA_FLOOR = 1e-10


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


def proba_from_jll(jll):
    """``P(c | x)`` from joint log likelihoods (n_samples, n_classes): normalised with
    log-sum-exp, then each row renormalised to sum to 1 (with joint log likelihoods of
    ~1e10, say a Gaussian of tiny variance far from its mean, the subtraction alone leaves
    relative errors of ~1e-7). Every ``predict_proba`` of the package uses it."""
    jll = np.asarray(jll, dtype=np.float64)
    proba = np.exp(jll - logsumexp(jll, axis=1, keepdims=True))
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
    gets an explicit log-sum-exp of the other columns.
    """
    jll = np.asarray(jll, dtype=np.float64)
    n, n_classes = jll.shape
    if n_classes < 2:
        return np.full_like(jll, np.inf)
    rows = np.arange(n)
    top = np.argmax(jll, axis=1)
    total = logsumexp(jll, axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        others = total + np.log1p(-np.exp(jll - total))
        rest = jll.copy()
        rest[rows, top] = -np.inf
        others[rows, top] = logsumexp(rest, axis=1)
        return jll - others


def check_smoothing(alpha, m=None):
    """The additive smoothing to use (``alpha`` raised to :data:`ALPHA_FLOOR`), after
    checking ``alpha`` is finite and >= 0 and ``m`` (m-estimate) None or finite and > 0."""
    value = float(alpha)
    if value < 0 or not np.isfinite(value):
        raise ParameterError(f"alpha must be a finite number >= 0; got {alpha!r}")
    if m is not None and (float(m) <= 0 or not np.isfinite(float(m))):
        raise ParameterError(f"m must be a finite number > 0 or None; got {m!r}")
    return max(value, ALPHA_FLOOR)


def check_class_prior(class_prior, n_classes):
    """``class_prior`` as a float array of shape (n_classes,), non-negative, summing to 1."""
    prior = np.asarray(class_prior, dtype=np.float64)
    if prior.shape != (n_classes,):
        raise ParameterError("Number of priors must match number of classes.")
    if np.any(prior < 0) or not np.isclose(prior.sum(), 1.0):
        raise ParameterError("class_prior must be non-negative and sum to 1.")
    return prior


def class_log_prior(class_count, *, fit_prior=True, class_prior=None):
    """``log P(c)``: fixed priors, else relative class counts (``fit_prior``), else uniform.

    A class with no objects yet gets ``log 0 = -inf`` (the right answer); with no objects
    at all the prior is uniform.
    """
    class_count = np.asarray(class_count, dtype=np.float64)
    n_classes = class_count.shape[0]
    if class_prior is not None:
        with np.errstate(divide="ignore"):
            return np.log(check_class_prior(class_prior, n_classes))
    total = class_count.sum()
    if not fit_prior or total <= 0:
        return np.full(n_classes, -np.log(n_classes))
    with np.errstate(divide="ignore"):
        return np.log(class_count) - np.log(total)


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


def background(totals):
    """Per-feature prior ``p_f`` of the m-estimate: the Laplace-smoothed overall frequency."""
    return (totals + 1.0) / (totals.sum() + totals.shape[-1])


def multinomial_log_prob(feature_count, alpha, m=None):
    """``log θ_cw``: ``(N_cw + α) / (N_c + α V)``, or the m-estimate ``(N_cw + m p_w) / (N_c + m)``."""
    fc = np.asarray(feature_count, dtype=np.float64)
    if m is not None:
        num = fc + float(m) * background(fc.sum(axis=0))
        den = fc.sum(axis=1, keepdims=True) + float(m)
    else:
        num = fc + alpha
        den = num.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore"):  # only with an empty vocabulary (no columns)
        np.log(num, out=num)  # in place: the same values as log(num) - log(den)
        num -= np.log(den)
    return num


def bernoulli_log_prob(feature_count, class_count, alpha, m=None):
    """``(log θ_cw, log(1 − θ_cw))`` of word presence, both straight from the counts
    (``log(N_c − N_cw + α) − log(N_c + 2α)``, never ``log(1 − exp(·))``)."""
    fc = np.asarray(feature_count, dtype=np.float64)
    cc = np.asarray(class_count, dtype=np.float64)[:, None]
    if m is not None:
        m = float(m)
        p = (fc.sum(axis=0) + 1.0) / (cc.sum() + 2.0)
        pos, neg, den = fc + m * p, cc - fc + m * (1 - p), cc + m
    else:
        pos, neg, den = fc + alpha, cc - fc + alpha, cc + 2 * alpha
    with np.errstate(divide="ignore"):
        return np.log(pos) - np.log(den), np.log(np.maximum(neg, 0.0)) - np.log(den)


def complement_log_prob(feature_count, alpha, m=None, norm=False):
    """``(feature_all, weights)`` of complement NB (Rennie et al. 2003): the negated log
    of the smoothed complement-class frequencies, or with ``norm`` those logs divided
    by their row sum (weight normalisation)."""
    fc = np.asarray(feature_count, dtype=np.float64)
    feature_all = fc.sum(axis=0)
    if m is not None:
        comp = feature_all - fc + float(m) * background(feature_all)
    else:
        comp = feature_all + alpha - fc  # complement counts, smoothed
    with np.errstate(divide="ignore", invalid="ignore"):
        logged = np.log(comp) - np.log(comp.sum(axis=1, keepdims=True))
        weights = logged / logged.sum(axis=1, keepdims=True) if norm else -logged
    return feature_all, weights
