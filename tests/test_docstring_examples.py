"""Every docstring example of the package runs as it is shown (``doctest``), one test per
module that has examples (the README's and docs' own are in test_readme_examples.py and
test_docs_examples.py)."""

import doctest
import importlib
import importlib.util
import pkgutil
from pathlib import Path

import pytest

import textnb

#: the optional dependencies a module may need to be imported; a module that cannot be
#: imported for want of one of them is skipped, any other import error fails its test
OPTIONAL = ("dask", "nltk", "fasttext", "matplotlib")
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _modules_with_examples():
    """The names of the package's modules whose source has a ``>>>`` line, found without
    importing them (their import, and an optional dependency's absence, is each test's);
    ``__main__`` modules are left out: importing one runs the program."""
    names = []
    for info in pkgutil.walk_packages(textnb.__path__, "textnb."):
        if info.name.rsplit(".", 1)[-1] == "__main__":
            continue
        origin = importlib.util.find_spec(info.name).origin
        if origin and origin.endswith(".py") and ">>> " in Path(origin).read_text(encoding="utf-8"):
            names.append(info.name)
    return names


MODULES = _modules_with_examples()


def test_the_walk_finds_the_examples():
    """The walk reaches the sub-packages (a broken walk would pass every test by finding none)."""
    assert {"textnb.meta.multilabel", "textnb.naive_bayes.discrete", "textnb.text.vectorizer"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    try:
        module = importlib.import_module(name)
    except ImportError as error:  # (ModuleNotFoundError included)
        if (error.name or "").split(".")[0] in OPTIONAL:
            pytest.skip(f"{name} needs the optional {error.name}")
        raise
    tests = [test for test in doctest.DocTestFinder().find(module, name) if test.examples]
    assert tests, f"{name} has '>>> ' in its source but doctest finds no example in it"
    report = []
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for test in sorted(tests, key=lambda t: t.name):
        runner.run(test, out=report.append)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of {name} failed:\n" + "".join(report)
