"""The constructor defaults of a registered model kind, read from its source without importing it.

Every default is defined once, in the estimator's ``__init__`` signature (scikit-learn's
convention). Code that must not import the estimators -- the scikit-learn-free scorer
and trainer of :mod:`textnb.text.scorer` and :mod:`textnb.text.training` -- reads the
defaults from the module's source with :mod:`ast`: literals, and names bound at module
level to a literal, to arithmetic on literals, or imported from another textnb module.
A test checks the result against ``get_params()`` for every registered kind.
"""

import ast
import functools
import importlib.util
import operator

from textnb.core.registry import MODEL_MODULES

__all__ = ["init_defaults"]

_OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Pow: operator.pow}


@functools.lru_cache(maxsize=None)
def _module_tree(module):
    spec = importlib.util.find_spec(module)
    with open(spec.origin, encoding="utf-8") as f:
        return ast.parse(f.read(), spec.origin)


def _value(expr, module, depth=0):
    if depth > 5:
        raise ValueError(f"default in {module} is too indirect to read")
    try:
        return ast.literal_eval(expr)
    except ValueError:
        pass
    if isinstance(expr, ast.BinOp) and type(expr.op) in _OPERATORS:
        return _OPERATORS[type(expr.op)](_value(expr.left, module, depth + 1), _value(expr.right, module, depth + 1))
    if isinstance(expr, ast.Name):
        for node in _module_tree(module).body:
            if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == expr.id for t in node.targets):
                return _value(node.value, module, depth + 1)
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("textnb"):
                if any((a.asname or a.name) == expr.id for a in node.names):
                    name = next(a.name for a in node.names if (a.asname or a.name) == expr.id)
                    return _value(ast.Name(id=name), node.module, depth + 1)
    raise ValueError(f"cannot read a default of {module} without running it: {ast.dump(expr)}")


@functools.lru_cache(maxsize=None)
def _defaults(kind):
    module = MODEL_MODULES[kind]
    tree = _module_tree(module)
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    cls, init = classes[kind], None
    while init is None:  # an __init__ inherited from a base class of the same module
        init = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
        if init is None:
            cls = next(classes[b.id] for b in cls.bases if isinstance(b, ast.Name) and b.id in classes)
    a = init.args
    positional = a.posonlyargs + a.args
    out = {}
    for arg, default in zip(positional[len(positional) - len(a.defaults):], a.defaults):
        out[arg.arg] = _value(default, module)
    for arg, default in zip(a.kwonlyargs, a.kw_defaults):
        if default is not None:
            out[arg.arg] = _value(default, module)
    return out


def init_defaults(kind):
    """``{parameter: default}`` of the model kind ``kind`` (a key of ``MODEL_MODULES``)."""
    return dict(_defaults(kind))
