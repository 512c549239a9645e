"""Naive Bayes on the core's statistics: multinomial, Bernoulli, complement, tabular (nominal,
numeric, missing, uncertain), discretisation.

Names are imported on first use (:mod:`textnb.core.lazy`).
"""

from textnb.core.lazy import lazy_exports

_EXPORTS = {  # defining module -> the names it exports
    "textnb.naive_bayes.base": ("BaseNB", "check_class_prior", "check_partial_fit_labels", "log_odds"),
    "textnb.naive_bayes.categorical": ("CategoricalNB",),
    "textnb.naive_bayes.complement": ("ComplementNB",),
    "textnb.naive_bayes.discrete": ("BernoulliNB", "MultinomialNB"),
    "textnb.naive_bayes.discriminative": ("DiscriminativeNB",),
    "textnb.naive_bayes.discretize": (
        "EqualFrequencyDiscretizer", "EqualWidthDiscretizer", "MDLDiscretizer", "apply_cut_points",
        "equal_frequency_cut_points", "equal_width_cut_points", "mdl_cut_points"
    ),
    "textnb.naive_bayes.discretized": ("Discretized",),
    "textnb.naive_bayes.gaussian": ("GaussianNB",),
    "textnb.naive_bayes.tabular": (
        "EM_MAX_ITER", "EM_TOL", "TabularNB", "censored_gaussian_em", "truncated_normal_moments"
    ),
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(n for names in _EXPORTS.values() for n in names)
