"""Naive Bayes on the core's statistics: multinomial, Bernoulli, complement, tabular (nominal,
numeric, missing, uncertain), discretisation.

Names are imported on first use (PEP 562), so importing one module of this package does
not import the others.
"""

from textnb.core.lazy import lazy_exports

_EXPORTS = {
    "BaseNB": "textnb.naive_bayes.base",
    "BernoulliNB": "textnb.naive_bayes.discrete",
    "ComplementNB": "textnb.naive_bayes.complement",
    "Discretized": "textnb.naive_bayes.discretized",
    "EM_MAX_ITER": "textnb.naive_bayes.tabular",
    "EM_TOL": "textnb.naive_bayes.tabular",
    "EqualFrequencyDiscretizer": "textnb.naive_bayes.discretize",
    "EqualWidthDiscretizer": "textnb.naive_bayes.discretize",
    "MDLDiscretizer": "textnb.naive_bayes.discretize",
    "MultinomialNB": "textnb.naive_bayes.discrete",
    "TabularNB": "textnb.naive_bayes.tabular",
    "apply_cut_points": "textnb.naive_bayes.discretize",
    "censored_gaussian_em": "textnb.naive_bayes.tabular",
    "check_class_prior": "textnb.naive_bayes.base",
    "check_partial_fit_labels": "textnb.naive_bayes.base",
    "equal_frequency_cut_points": "textnb.naive_bayes.discretize",
    "equal_width_cut_points": "textnb.naive_bayes.discretize",
    "log_odds": "textnb.naive_bayes.base",
    "mdl_cut_points": "textnb.naive_bayes.discretize",
    "truncated_normal_moments": "textnb.naive_bayes.tabular",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(_EXPORTS)
