"""textnb: naive Bayes for text and tabular data, in log space, on one statistics core.

The package is layered; each layer imports only from the ones before it::

    core -> io -> naive_bayes -> text -> semi_naive -> meta -> evaluation -> apps -> cli

The public names below are imported on first use (PEP 562), so ``import textnb`` and a
mail filter that needs only the text models do not pay for importing every model. The
flat module paths of earlier versions (``textnb.naive_bayes.tabular``, ``textnb.core.model_io``, ...) still
import: they are aliases of the modules' new homes.
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

#: modules of the flat layout (``textnb.<name>``) -> their home in the layered one
_MOVED = {
    "apnbc": "textnb.semi_naive.apnbc",
    "arff": "textnb.io.arff",
    "argtypes": "textnb.cli.argtypes",
    "ascii_tokens": "textnb.text.ascii_tokens",
    "base": "textnb.naive_bayes.base",
    "bayesnet": "textnb.semi_naive.bayesnet",
    "calibration": "textnb.meta.calibration",
    "classifier": "textnb.text.classifier",
    "complement": "textnb.naive_bayes.complement",
    "corpus": "textnb.io.corpus",
    "counting": "textnb.text.counting",
    "csvtable": "textnb.io.csvtable",
    "discretize": "textnb.naive_bayes.discretize",
    "discretized": "textnb.naive_bayes.discretized",
    "distributed": "textnb.text.distributed",
    "errors": "textnb.core.errors",
    "evaluate": "textnb.evaluation.evaluate",
    "explain": "textnb.evaluation.explain",
    "feature_selection": "textnb.text.selection",
    "filtering": "textnb.apps.filtering",
    "inspection": "textnb.evaluation.inspection",
    "lbr": "textnb.semi_naive.lbr",
    "lbr_text": "textnb.semi_naive.lbr_text",
    "mail": "textnb.io.mail",
    "model_io": "textnb.core.model_io",
    "multilabel": "textnb.meta.multilabel",
    "plots": "textnb.evaluation.plots",
    "smoothing": "textnb.meta.smoothing",
    "stats": "textnb.core.stats",
    "tables": "textnb.io.tables",
    "tabular": "textnb.naive_bayes.tabular",
    "tokenize": "textnb.text.tokenize",
    "uncertain": "textnb.io.uncertain",
    "weighting": "textnb.text.weighting",
    "workers": "textnb.core.workers",
}


def _import(name):
    """``importlib.import_module(name)`` for an absolute name, without importing importlib."""
    __import__(name)
    return _sys.modules[name]


class _MovedModules:
    """Import an old flat module path as an alias of the module at its new path (a meta
    path finder and loader by protocol: find_spec, create_module, exec_module)."""

    def find_spec(self, fullname, path=None, target=None):
        package, _, name = fullname.partition(".")
        if package == "textnb" and name in _MOVED:
            return type(__spec__)(fullname, self)  # importlib.machinery.ModuleSpec
        return None

    def create_module(self, spec):
        module = _import(_MOVED[spec.name.partition(".")[2]])
        spec.loader_state = module.__spec__  # the import system overwrites __spec__
        return module

    def exec_module(self, module):
        """Nothing to run (the module at the new path is executed); keep its own spec."""
        module.__spec__ = module.__spec__.loader_state


_sys.meta_path.append(_MovedModules())


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
