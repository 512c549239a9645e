"""Cross-validation and metrics, explanation and inspection, plots.

Names are imported on first use (:mod:`textnb.core.lazy`).
"""

from textnb.core.lazy import lazy_exports

_EXPORTS = {  # defining module -> the names it exports
    "textnb.evaluation.evaluate": ("classification_report", "cross_validate", "evaluate_split",
                                   "expected_calibration_error", "vectorize_all"),
    "textnb.evaluation.explain": (
        "describe_text_classifier", "explain", "informative_terms", "linear_weights", "unwrap"
    ),
    "textnb.evaluation.plots": ("plot_confusion_matrix", "pyplot"),
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(n for names in _EXPORTS.values() for n in names)
