"""Wrappers around a naive Bayes model: calibration, smoothing search, multi-label.

Names are imported on first use (:mod:`textnb.core.lazy`).
"""

from textnb.core.lazy import lazy_exports

_EXPORTS = {  # defining module -> the names it exports
    "textnb.meta.calibration": (
        "CalibratedNB", "estimator_log_odds", "out_of_fold_log_odds", "threshold_for_f1", "threshold_for_fpr"
    ),
    "textnb.meta.multilabel": (
        "MultiLabelCorpus", "MultiLabelNB", "break_even_point", "cross_validate_multilabel", "multilabel_report",
        "read_label_file", "read_multilabel_corpus"
    ),
    "textnb.meta.smoothing": ("SmoothingCV",),
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(n for names in _EXPORTS.values() for n in names)
