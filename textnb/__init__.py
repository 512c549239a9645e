"""textnb: naive Bayes for text and tabular data, in log space, on one statistics core.

The package is layered; each layer imports only from the ones before it::

    core -> io -> naive_bayes -> text -> semi_naive -> meta -> evaluation -> apps -> cli

The public names below are imported on first use (PEP 562), so ``import textnb`` and a
mail filter that needs only the text models do not pay for importing every model.
"""

import sys as _sys  # not importlib (its package import costs a mail client ~5 ms)

# MODEL_MODULES, __version__ and __all__ are read on first use too (see __getattr__): the
# ``spamfilter --socket`` client imports this package and should load no module it
# does not run.

#: public name -> module that defines it (the model classes come from MODEL_MODULES)
_PUBLIC = {
    "Attribute": "textnb.io.tables",
    "EqualFrequencyDiscretizer": "textnb.naive_bayes.discretize",
    "EqualWidthDiscretizer": "textnb.naive_bayes.discretize",
    "InputError": "textnb.core.errors",
    "MDLDiscretizer": "textnb.naive_bayes.discretize",
    "ModelFileError": "textnb.core.errors",
    "Table": "textnb.io.tables",
    "TextnbError": "textnb.core.errors",
    "encode_like": "textnb.io.tables",
    "explain": "textnb.evaluation.explain",
    "load": "textnb.core.model_io",
    "open_corpus": "textnb.io.corpus",
    "read_multilabel_corpus": "textnb.meta.multilabel",
    "read_structure": "textnb.semi_naive.bayesnet",
    "read_table": "textnb.io.tables",
    "table_from_frame": "textnb.io.tables",
}
_MODELS_ADDED = False


def _public():
    """``_PUBLIC`` with the model classes of :data:`textnb.core.registry.MODEL_MODULES`."""
    global _MODELS_ADDED
    if not _MODELS_ADDED:
        from textnb.core.registry import MODEL_MODULES

        _PUBLIC.update((name, module) for name, module in MODEL_MODULES.items() if name != "Pipeline")
        _MODELS_ADDED = True
    return _PUBLIC

def _import(name):
    """``importlib.import_module(name)`` for an absolute name, without importing importlib."""
    __import__(name)
    return _sys.modules[name]


def __getattr__(name):
    if name == "__all__":
        value = sorted(_public())
    elif name == "__version__":
        value = _import("textnb.core.version").__version__
    elif name == "MODEL_MODULES":
        value = _import("textnb.core.registry").MODEL_MODULES
    else:
        module = _public().get(name)
        if module is None:
            raise AttributeError(f"module 'textnb' has no attribute {name!r}")
        value = getattr(_import(module), name)
    globals()[name] = value
    return value


def __dir__():
    """The public API (and the module's dunders): not the helpers it imports."""
    return sorted(set(_public()) | {"MODEL_MODULES", "__version__", "__all__"}
                  | {n for n in globals() if n.startswith("__") and n.endswith("__")})
