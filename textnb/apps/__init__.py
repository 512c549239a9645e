"""Applications built on the library: the spam and topic filters, the model daemon.

Names are imported on first use (PEP 562; written out rather than :mod:`textnb.core.lazy`,
so that the ``spamfilter --socket`` client, which imports this package, loads nothing more).
The programs' entry points (``filter_main``, ``topic_main``) are command-line code and live in
:mod:`textnb.cli.mailfilters` and :mod:`textnb.cli.topicfilter` (the layers import one way: apps never
imports cli).
"""

_EXPORTS = {  # defining module -> the names it exports
    "textnb.apps.filtering": (
        "DEFAULT_HAM_CUTOFF", "DEFAULT_SPAM_CUTOFF", "EXIT_CODES", "EXIT_ERROR", "HAM", "Route", "SPAM", "SpamFilter",
        "UNSURE", "Verdict", "add_headers", "apply_route", "default_model_path", "model_lock",
        "learns_in_batches", "new_spam_model", "plan_routes", "spam_text", "token_text", "train_model", "update_model",
        "verdict_of"
    ),
}

__all__ = sorted(n for names in _EXPORTS.values() for n in names)


def __getattr__(name):
    module = next((m for m, names in _EXPORTS.items() if name in names), None)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    __import__(module)
    import sys

    value = getattr(sys.modules[module], name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
