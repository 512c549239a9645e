"""Wrappers around a naive Bayes model: calibration, smoothing search, multi-label.

Names are imported on first use (PEP 562), so importing one module of this package does
not import the others.
"""

from textnb.core.lazy import lazy_exports

_EXPORTS = {
    "CalibratedNB": "textnb.meta.calibration",
    "MultiLabelCorpus": "textnb.meta.multilabel",
    "MultiLabelNB": "textnb.meta.multilabel",
    "SmoothingCV": "textnb.meta.smoothing",
    "break_even_point": "textnb.meta.multilabel",
    "cross_validate_multilabel": "textnb.meta.multilabel",
    "estimator_log_odds": "textnb.meta.calibration",
    "multilabel_report": "textnb.meta.multilabel",
    "out_of_fold_log_odds": "textnb.meta.calibration",
    "read_label_file": "textnb.meta.multilabel",
    "read_multilabel_corpus": "textnb.meta.multilabel",
    "threshold_for_f1": "textnb.meta.calibration",
    "threshold_for_fpr": "textnb.meta.calibration",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(_EXPORTS)
