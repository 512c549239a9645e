"""Cross-validation and metrics, explanation and inspection, plots.

Names are imported on first use (PEP 562), so importing one module of this package does
not import the others.
"""

from textnb.core.lazy import lazy_exports

_EXPORTS = {
    "classification_report": "textnb.evaluation.evaluate",
    "cross_validate": "textnb.evaluation.evaluate",
    "describe_text_classifier": "textnb.evaluation.explain",
    "evaluate_split": "textnb.evaluation.evaluate",
    "explain": "textnb.evaluation.explain",
    "informative_terms": "textnb.evaluation.explain",
    "linear_weights": "textnb.evaluation.explain",
    "plot_confusion_matrix": "textnb.evaluation.plots",
    "pyplot": "textnb.evaluation.plots",
    "unwrap": "textnb.evaluation.explain",
    "vectorize_all": "textnb.evaluation.evaluate",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(_EXPORTS)
