"""Applications built on the library: the spam and topic filters, the model daemon.

Names are imported on first use (PEP 562), so importing one module of this package does
not import the others.
"""

from textnb.core.lazy import lazy_exports

_EXPORTS = {
    "DEFAULT_HAM_CUTOFF": "textnb.apps.filtering",
    "DEFAULT_SPAM_CUTOFF": "textnb.apps.filtering",
    "EXIT_CODES": "textnb.apps.filtering",
    "EXIT_ERROR": "textnb.apps.filtering",
    "HAM": "textnb.apps.filtering",
    "Route": "textnb.apps.filtering",
    "SPAM": "textnb.apps.filtering",
    "SpamFilter": "textnb.apps.filtering",
    "UNSURE": "textnb.apps.filtering",
    "Verdict": "textnb.apps.filtering",
    "add_headers": "textnb.apps.filtering",
    "apply_route": "textnb.apps.filtering",
    "default_model_path": "textnb.apps.filtering",
    "filter_main": "textnb.apps.filtering",
    "model_lock": "textnb.apps.filtering",
    "new_spam_model": "textnb.apps.filtering",
    "plan_routes": "textnb.apps.filtering",
    "spam_text": "textnb.apps.filtering",
    "topic_main": "textnb.apps.filtering",
    "train_model": "textnb.apps.filtering",
    "update_model": "textnb.apps.filtering",
    "verdict_of": "textnb.apps.filtering",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(_EXPORTS)
