"""Lazy re-exports for package ``__init__`` modules (PEP 562).

A package lists ``defining module -> names``; a name is imported on first use, so
importing one module of a package (the tokenizer, say) does not import its siblings
(the estimators, and with them scikit-learn).
"""

import sys

__all__ = ["lazy_exports"]


def lazy_exports(package, exports):
    """``(__getattr__, __dir__)`` for a package that re-exports ``exports`` lazily.

    ``exports`` maps each defining module to the names the package takes from it.
    """
    exports = {name: module for module, names in exports.items() for name in names}

    def import_module(name):  # importlib.import_module for absolute names, without importlib
        __import__(name)
        return sys.modules[name]

    def __getattr__(name):
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(module), name)
        setattr(import_module(package), name, value)
        return value

    def __dir__():
        return sorted(set(vars(import_module(package))) | set(exports))

    return __getattr__, __dir__
