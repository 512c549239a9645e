"""NLTK's classifier interface under NLTK's name: ``from textnb.nltk import NaiveBayesClassifier``.

A façade (outside the layers, as ``textnb.__main__``): the implementation is
:mod:`textnb.naive_bayes.nltk_compat`. Imports are absolute, so this module never hides
the real ``nltk`` package.
"""

from textnb.naive_bayes.nltk_compat import NaiveBayesClassifier, ProbDist, estimator_gamma

__all__ = ["NaiveBayesClassifier", "ProbDist", "estimator_gamma"]
