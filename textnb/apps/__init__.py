"""Applications built on the library: the spam and topic filters, the model daemon.

Names are imported on first use (:mod:`textnb.core.lazy`).
"""

from textnb.core.lazy import lazy_exports

_EXPORTS = {  # defining module -> the names it exports
    "textnb.apps.filtering": (
        "DEFAULT_HAM_CUTOFF", "DEFAULT_SPAM_CUTOFF", "EXIT_CODES", "EXIT_ERROR", "HAM", "Route", "SPAM", "SpamFilter",
        "UNSURE", "Verdict", "add_headers", "apply_route", "default_model_path", "filter_main", "model_lock",
        "new_spam_model", "plan_routes", "spam_text", "topic_main", "train_model", "update_model", "verdict_of"
    ),
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(n for names in _EXPORTS.values() for n in names)
