"""The statistics core: count tables and moments that add, subtract, select and merge; the
model-file format; errors; worker pools. Imports only numpy, scipy and the standard library.

Names are imported on first use (:mod:`textnb.core.lazy`).
"""

from textnb.core.lazy import lazy_exports

_EXPORTS = {  # defining module -> the names it exports
    "textnb.core.errors": ("InputError", "ModelFileError", "TextnbError"),
    "textnb.core.model_io": (
        "FORMAT_VERSION", "MAX_MODEL_BYTES", "STALE_TEMP_SECONDS", "atomic_write", "load", "register",
        "remove_stale_temporaries", "save"
    ),
    "textnb.core.stats": ("CountTable", "GaussianMoments", "class_indicator", "seen_columns"),
    "textnb.core.workers": ("can_fork", "effective_jobs", "keep_freed_memory", "ordered_map"),
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(n for names in _EXPORTS.values() for n in names)
