"""Semi-naive Bayes from the papers: APNBC class weights, lazy Bayesian rules (LBR/HLBR, and on
key terms), TAN and Bayesian networks, AODE.

Names are imported on first use (:mod:`textnb.core.lazy`).
"""

from textnb.core.lazy import lazy_exports

_EXPORTS = {  # defining module -> the names it exports
    "textnb.semi_naive.apnbc": ("APNBC",),
    "textnb.semi_naive.bayesnet": ("BayesNetClassifier", "TAN", "conditional_mutual_information", "read_structure"),
    "textnb.semi_naive.lbr": ("LBR", "sign_test_p"),
    "textnb.semi_naive.lbr_text": ("LazyTextNB",),
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(n for names in _EXPORTS.values() for n in names)
