"""The package's layers: every import of a textnb module (including those inside
functions, and imports by name: a string naming a textnb module, as the lazy exports of the
packages and the registries hold) points to the same layer or a lower one, and no modules
import each other in a cycle. Layers, lowest first::

    core -> io -> naive_bayes -> text -> semi_naive -> meta -> evaluation -> apps -> cli

One module may name higher ones: ``textnb.core.registry``, the table from which the model
loader imports the module of the model kind a file names (a plug-in table: the import
happens when a file of that kind is read, never when a module is loaded).
"""

import ast
import functools
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "textnb"
LAYERS = ["core", "io", "naive_bayes", "text", "semi_naive", "meta", "evaluation", "apps", "cli"]
#: layers that may import nothing but the standard library, numpy and scipy
#: what each light layer may import besides the standard library (threadpoolctl: pure Python,
#: a dependency of scikit-learn's and of ours; the residual fit holds BLAS to one thread with it)
LIGHT = {"core": {"numpy", "scipy", "threadpoolctl"}}


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        yield ".".join(parts), path


@functools.cache
def _tree(path):
    """The file's syntax tree, parsed once for every test."""
    return ast.parse(path.read_text(), str(path))


def _imports(name, path):
    """(imported module, line) for every import in the file, at any depth."""
    tree = _tree(path)
    is_package = path.name == "__init__.py"
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module
            yield module, node.lineno
            for alias in node.names:  # "from textnb.io import corpus" imports a module
                yield f"{module}.{alias.name}", node.lineno


def _string_imports(path):
    """(module, line) for every string constant naming a textnb module: an import by name."""
    tree = _tree(path)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in MODULES \
                and node.value != "textnb":  # (the program's name)
            yield node.value, node.lineno


MODULES = dict(_modules())
#: modules that name higher layers by design (see the module docstring)
PLUGIN_TABLES = {"textnb.core.registry"}
#: modules outside the layers: __main__ runs the CLI; textnb.nltk re-exports
#: textnb.naive_bayes.nltk_compat under NLTK's name; textnb.fasttext gives the text models
#: fastText's Python reading interface
FACADES = {"textnb.__main__", "textnb.nltk", "textnb.fasttext"}


def _layer(module):
    parts = module.split(".")
    if parts[0] != "textnb" or len(parts) < 2 or parts[1] not in LAYERS:
        return None
    return LAYERS.index(parts[1])


@functools.cache
def _project_edges():
    return tuple(_edges())


def _edges():
    for name, path in MODULES.items():
        for target, line in _imports(name, path):
            # a module's own packages run before it anyway ("from textnb.x import y" inside textnb.x.z)
            if target in MODULES and target != name and not name.startswith(target + "."):
                yield name, target, line
        if name in PLUGIN_TABLES:
            continue
        for target, line in _string_imports(path):
            if target != name:
                yield name, target, line


@pytest.mark.slow  # (2.4 s: it imports every module)
def test_imports_by_name_are_seen():
    """The edges include imports made by name (the lazy exports of a package)."""
    edges = {(src, dst) for src, dst, _ in _project_edges()}
    assert ("textnb.naive_bayes", "textnb.naive_bayes.discriminative") in edges


def test_every_module_belongs_to_a_layer():
    loose = [n for n in MODULES if n.count(".") >= 1 and _layer(n) is None and n not in FACADES]
    assert loose == [], f"modules outside the layers: {loose}"


def test_imports_point_down_the_layers():
    wrong = []
    for name, target, line in _project_edges():
        if name in ("textnb", "textnb.__main__"):
            continue  # the root re-exports; __main__ runs the CLI
        if target == "textnb":
            wrong.append(f"{name}:{line} imports the root package (import the module itself)")
            continue
        src, dst = _layer(name), _layer(target)
        if src is not None and dst is not None and dst > src:
            wrong.append(f"{name}:{line} -> {target} ({LAYERS[src]} may not import {LAYERS[dst]})")
    assert wrong == [], "\n".join(wrong)


def test_no_import_cycles():
    graph = {}
    for name, target, _ in _project_edges():
        graph.setdefault(name, set()).add(target)
    seen, stack, cycles = set(), [], []

    def visit(node):
        if node in stack:
            cycles.append(stack[stack.index(node):] + [node])
            return
        if node in seen:
            return
        seen.add(node)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            visit(nxt)
        stack.pop()

    for node in sorted(graph):
        visit(node)
    assert cycles == [], "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


@pytest.mark.parametrize("layer", sorted(LIGHT))
def test_light_layers_import_only_numpy_and_scipy(layer):
    import sys

    allowed = LIGHT[layer] | set(sys.stdlib_module_names) | {"textnb"}
    wrong = []
    for name, path in MODULES.items():
        if _layer(name) != LAYERS.index(layer):
            continue
        for target, line in _imports(name, path):
            top = (target or "").split(".")[0]
            if top not in allowed and not (top == "joblib" or top == "distributed"):
                wrong.append(f"{name}:{line} imports {target}")
    assert wrong == [], "\n".join(wrong)


def test_the_library_never_prints_or_exits():
    """Printing and exiting belong to the command line (``textnb.cli``, ``__main__``): the
    library returns or raises. ``spamclient_build`` printed in its own ``main`` (moved to
    scripts/build_spamclient.py). (``os._exit`` ends a forked child, never the caller.)"""
    wrong = []
    for name, path in MODULES.items():
        if name.startswith("textnb.cli") or name == "textnb.__main__":
            continue
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.Call) and ast.unparse(node.func) in ("print", "exit", "quit", "sys.exit"):
                wrong.append(f"{name}:{node.lineno} calls {ast.unparse(node.func)}")
    assert wrong == [], "\n".join(wrong)
