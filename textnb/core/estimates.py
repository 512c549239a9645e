"""Every rule that turns counts into (log) probabilities: smoothing and class priors, in numpy alone.

The count models keep sums (:class:`textnb.core.stats.CountTable`); these pure functions of
arrays turn them into log parameters, so the estimators, the kernels
(:mod:`textnb.naive_bayes.kernels`) and the scikit-learn-free trainer and scorer compute
the same numbers with the same code (pgmpy's one estimator module, not a rule per model).

Class priors
    :func:`class_log_prior` (relative class counts, uniform, or fixed ``class_prior``:
    multinomial, Bernoulli, complement and categorical NB, and the Bernoulli event model of
    :mod:`textnb.core.dfe`); :func:`smoothed_class_prior` (``(N_c + a) / (N + C a)``,
    :class:`~textnb.naive_bayes.tabular.TabularNB` and :class:`~textnb.text.mixed.MixedNB`).
Term models (text)
    :func:`multinomial_log_prob`, :func:`bernoulli_log_prob`, :func:`complement_log_prob`:
    additive (Lidstone) smoothing ``alpha``, checked by :func:`check_alpha`, or the
    m-estimate ``(N_cw + m p_w) / (N_c + m)`` whose prior ``p_w`` is the feature's
    *Laplace-smoothed* overall frequency (:func:`background`), so a term seen nowhere
    still has ``p_w > 0``.
Nominal attributes (tables)
    :func:`nominal_log_prob`: additive smoothing over an attribute's ``V`` values, or the
    m-estimate whose prior ``p_v`` is the value's *unsmoothed* overall relative
    frequency (Witten & Frank §4.2; ``"eq4"`` is ``m = 2``). So ``m`` means the same
    estimate in both places, with a different prior ``p``: a table's value set is
    closed and every value was seen, a vocabulary term may not be. Results are floored
    at ``LOG_FLOOR`` (never ``-inf``), as Weka's are.

Documented exceptions, kept where they are because they compute the same rules in
another arithmetic that their results depend on:

* :func:`textnb.core.dfe.linear_weights`: the complement and Bernoulli rules above as a
  linear form, in single precision during the frequency-estimate passes, with the
  smoothed counts clipped at ``alpha`` (a pass may round a tiny alpha away);
* :mod:`textnb.semi_naive.lbr` (LBR / HLBR) and :mod:`textnb.semi_naive.aode`: Weka-parity
  arithmetic (Laplace or m-estimates multiplied in linear space in Weka's order, as
  Weka 3.6's ``LBR`` and ``AODE``), so their decisions match Weka's to the bit;
* :mod:`textnb.semi_naive.bayesnet` (TAN, Bayes nets): the additive rule of
  :func:`nominal_log_prob` per parent configuration of a CPT, unfloored (Weka's
  ``SimpleEstimator``);
* :mod:`textnb.naive_bayes.nltk_compat`: NLTK's ``LidstoneProbDist`` family, for parity
  with NLTK's classifier.
"""

import warnings
from numbers import Real

import numpy as np

from textnb.core.errors import ParameterError

__all__ = ["ALPHA_FLOOR", "LOG_FLOOR", "background", "bernoulli_log_prob", "check_alpha", "check_class_prior",
           "check_smoothing", "class_log_prior", "complement_log_prob", "multinomial_log_prob", "nominal_log_prob",
           "prior_free_bias", "smoothed_class_prior", "uniform_prior"]

#: Smoothing below this is raised to it (scikit-learn's floor), so no log 0.
ALPHA_FLOOR = 1e-10
#: Log-probabilities of the table models are floored here (smallest positive normal
#: double): a zero relative frequency (``alpha=0``) makes a class very unlikely, never NaN.
LOG_FLOOR = float(np.log(np.finfo(np.float64).tiny))


# -- parameters ----------------------------------------------------------------------
def _number(value):
    """``value`` as a float, None when it is no number (a string, None, a list)."""
    if isinstance(value, (str, bytes)):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def check_smoothing(alpha, m=None):
    """The additive smoothing to use (``alpha`` raised to :data:`ALPHA_FLOOR`), after
    checking ``alpha`` is finite and >= 0 and ``m`` (m-estimate) None or finite and > 0."""
    value = _number(alpha)
    if value is None or value < 0 or not np.isfinite(value):
        raise ParameterError(f"alpha must be a finite number >= 0; got {alpha!r}")
    if m is not None and (_number(m) is None or _number(m) <= 0 or not np.isfinite(_number(m))):
        raise ParameterError(f"m must be a finite number > 0 or None; got {m!r}")
    return max(value, ALPHA_FLOOR)


def check_alpha(alpha, force_alpha, n_features=None, *, per_feature=True):
    """``alpha`` (a number or, with ``per_feature``, one per feature) checked with
    scikit-learn's messages, and raised to 1e-10 where smaller unless ``force_alpha``
    (with scikit-learn's warning)."""
    if isinstance(alpha, Real) and not isinstance(alpha, bool):
        value = float(alpha)
        if not (value >= 0 and np.isfinite(value)):
            raise ParameterError(f"alpha must be a finite number >= 0; got {alpha!r}")
        alpha = value
    elif not per_feature:
        raise ParameterError(f"alpha must be a finite number >= 0; got {alpha!r}")
    else:
        given = alpha
        try:
            alpha = np.asarray(alpha, dtype=np.float64)
        except (TypeError, ValueError):
            alpha = None
        if alpha is None or alpha.ndim == 0 or isinstance(given, (str, bytes)):
            raise ParameterError(f"alpha must be a finite number >= 0 or an array of one per feature; got {given!r}")
        if alpha.ndim != 1 or (n_features is not None and alpha.shape[0] != n_features):
            raise ParameterError("When alpha is an array, it should contains `n_features`. "
                                 f"Got {alpha.size} elements instead of {n_features}.")
        if np.any(alpha < 0):
            raise ParameterError("All values in alpha must be greater than 0.")
        if not np.all(np.isfinite(alpha)):
            raise ParameterError("alpha must be finite")
    if np.min(alpha, initial=np.inf) < ALPHA_FLOOR and not force_alpha:
        warnings.warn(
            f"alpha too small will result in numeric errors, setting alpha = {ALPHA_FLOOR:.1e}. "
            "Use `force_alpha=True` to keep alpha unchanged.",
            UserWarning,
            stacklevel=4,
        )
        return np.maximum(alpha, ALPHA_FLOOR) if isinstance(alpha, np.ndarray) else ALPHA_FLOOR
    return alpha


def check_class_prior(class_prior, n_classes):
    """``class_prior`` as a float array of shape (n_classes,), non-negative, summing to 1."""
    try:
        prior = np.asarray(class_prior, dtype=np.float64)
    except (TypeError, ValueError):
        raise ParameterError(f"class_prior must be None or one probability per class; got {class_prior!r}") from None
    if prior.shape != (n_classes,):
        raise ParameterError("Number of priors must match number of classes.")
    if np.any(prior < 0) or not np.isclose(prior.sum(), 1.0):
        raise ParameterError("class_prior must be non-negative and sum to 1.")
    return prior


# -- class priors ----------------------------------------------------------------------
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


def prior_free_bias(log_prior):
    """The bias of a model whose scores leave the class prior out (the complement models,
    Rennie et al. 2003 §3.1): 0 for every class, except ``-inf`` for a class of prior 0
    (``log_prior`` ``-inf``: a class that ``partial_fit``'s ``classes`` declares but no
    document has), which is then never predicted, as scikit-learn's MultinomialNB never
    predicts it under ``fit_prior``; with a single class its prior."""
    log_prior = np.asarray(log_prior, dtype=np.float64)
    if log_prior.shape[0] == 1:
        return log_prior
    return np.where(np.isneginf(log_prior), -np.inf, 0.0)


def uniform_prior(class_count):
    """The table models' uniform class prior (``class_prior="uniform"``): an equal share
    for every class with training objects (weighted count above 0), 0 for a class without
    (one an ARFF header or ``partial_fit``'s ``classes`` declares but no row has: never
    predicted, as with a learned prior); equal over every class when no class has objects.

    scikit-learn's ``fit_prior=False`` (and :func:`class_log_prior`'s, which the count
    models keep for parity, and which the text parts of a MixedNB rely on to be finite)
    shares over every class of ``classes_``, a class without objects included.
    """
    cc = np.asarray(class_count, dtype=np.float64)
    seen = cc > 0
    if not seen.any():
        return np.full(cc.shape[0], 1.0 / cc.shape[0])
    return seen / seen.sum()


def smoothed_class_prior(class_count, a, class_prior=None):
    """``log P(c)`` of the table models: fixed ``class_prior``, :func:`uniform_prior` for
    ``class_prior="uniform"``, else ``(N_c + a) / (N + C a)`` (uniform when that is 0 / 0),
    floored at :data:`LOG_FLOOR`."""
    cc = np.asarray(class_count, dtype=np.float64)
    n_classes = len(cc)
    if isinstance(class_prior, str) and class_prior == "uniform":
        prior = uniform_prior(cc)
    elif class_prior is not None:
        prior = check_class_prior(class_prior, n_classes)
    else:
        den = cc.sum() + n_classes * a
        prior = (cc + a) / den if den > 0 else np.full(n_classes, 1.0 / n_classes)
    with np.errstate(divide="ignore"):
        return np.maximum(np.log(prior), LOG_FLOOR)


# -- term models -------------------------------------------------------------------------
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


# -- nominal attributes --------------------------------------------------------------------
def nominal_log_prob(N, rule, a):
    """``log P(v | c)`` of one nominal attribute from its counts ``N`` (classes x values).

    ``rule`` ``"additive"``: ``(N_cv + a) / (N_c + V a)``; ``"m"``: the m-estimate
    ``(N_cv + a p_v) / (N_c + a)`` with ``p_v`` the value's relative frequency over all
    classes (uniform when the attribute was never seen). A class that saw no value of
    the attribute (0 / 0) gets the uniform ``1 / V``; results are floored at :data:`LOG_FLOOR`.
    """
    V = N.shape[1]
    n_c = N.sum(axis=1, keepdims=True)
    if rule == "additive":
        num, den = N + a, n_c + V * a
    else:
        totals = N.sum(axis=0)
        p = totals / totals.sum() if totals.sum() > 0 else np.full(V, 1.0 / V)
        num, den = N + a * p, n_c + a
    with np.errstate(divide="ignore", invalid="ignore"):
        prob = np.where(den > 0, num / np.where(den > 0, den, 1.0), 1.0 / V)
        return np.maximum(np.log(prob), LOG_FLOOR)
