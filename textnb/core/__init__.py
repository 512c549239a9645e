"""The statistics core: count tables and moments that add, subtract, select and merge; the
model-file format; errors; worker pools. Imports only numpy, scipy and the standard library.

Names are imported on first use (PEP 562), so importing one module of this package does
not import the others.
"""

from textnb.core.lazy import lazy_exports

_EXPORTS = {
    "CountTable": "textnb.core.stats",
    "FORMAT_VERSION": "textnb.core.model_io",
    "GaussianMoments": "textnb.core.stats",
    "InputError": "textnb.core.errors",
    "MAX_MODEL_BYTES": "textnb.core.model_io",
    "ModelFileError": "textnb.core.errors",
    "STALE_TEMP_SECONDS": "textnb.core.model_io",
    "TextnbError": "textnb.core.errors",
    "atomic_write": "textnb.core.model_io",
    "can_fork": "textnb.core.workers",
    "class_indicator": "textnb.core.stats",
    "effective_jobs": "textnb.core.workers",
    "keep_freed_memory": "textnb.core.workers",
    "load": "textnb.core.model_io",
    "ordered_map": "textnb.core.workers",
    "register": "textnb.core.model_io",
    "seen_columns": "textnb.core.stats",
    "remove_stale_temporaries": "textnb.core.model_io",
    "save": "textnb.core.model_io",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(_EXPORTS)
