"""Semi-naive Bayes from the papers: APNBC class weights, lazy Bayesian rules (LBR/HLBR, and on
key terms), TAN and Bayesian networks, AODE.

Names are imported on first use (PEP 562), so importing one module of this package does
not import the others.
"""

from textnb.core.lazy import lazy_exports

_EXPORTS = {
    "APNBC": "textnb.semi_naive.apnbc",
    "BayesNetClassifier": "textnb.semi_naive.bayesnet",
    "LBR": "textnb.semi_naive.lbr",
    "LazyTextNB": "textnb.semi_naive.lbr_text",
    "TAN": "textnb.semi_naive.bayesnet",
    "conditional_mutual_information": "textnb.semi_naive.bayesnet",
    "read_structure": "textnb.semi_naive.bayesnet",
    "sign_test_p": "textnb.semi_naive.lbr",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(_EXPORTS)
