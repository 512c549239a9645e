"""The distributions: the sdist is the whole source (its test suite runs from it)."""

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def sdist(tmp_path_factory):
    """The tracked files of this checkout, the sdist built from them (setuptools' PEP 517
    hook, as ``python -m build --sdist`` calls it, offline) and its members (paths below
    its top folder). Skips outside a git checkout (an unpacked sdist) or without setuptools."""
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("not a git checkout (an unpacked sdist, or no git): nothing to compare the sdist with")
    if importlib.util.find_spec("setuptools") is None:
        pytest.skip("setuptools is not installed")
    r = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z"], capture_output=True, timeout=60)
    if r.returncode != 0:
        pytest.skip(f"git ls-files failed: {r.stderr.decode(errors='replace').strip()}")
    tracked = {name for name in r.stdout.decode().split("\0") if name and (REPO / name).is_file()}
    root = tmp_path_factory.mktemp("sdist")
    src = root / "src"
    for name in tracked:
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, src / name)
    # what a test run leaves in a tree: not part of the source
    (src / "tests" / "__pycache__").mkdir(exist_ok=True)
    (src / "tests" / "__pycache__" / "conftest.cpython-311.pyc").write_bytes(b"\0")
    (src / "tests" / "spam.tnb").write_bytes(b"PK")
    b = subprocess.run([sys.executable, "-c", "import sys; from setuptools import build_meta; "
                        "build_meta.build_sdist(sys.argv[1])", str(root / "dist")],
                       cwd=src, capture_output=True, text=True, timeout=600)
    assert b.returncode == 0, b.stderr[-2000:]
    (path,) = (root / "dist").glob("textnb-*.tar.gz")
    with tarfile.open(path) as tar:
        members = {m.name.split("/", 1)[1] for m in tar.getmembers() if m.isfile()}
    return tracked, path, members


@pytest.mark.slow
def test_the_sdist_is_the_whole_source_and_its_tests_run_from_it(sdist, tmp_path):
    """Without MANIFEST.in setuptools put 12 of the test modules in the sdist (the top-level
    tests/test_*.py) without conftest.py, the test packages, corpora/ or docs/ they read:
    none of them could run from it."""
    tracked, path, members = sdist
    written = {"PKG-INFO", "setup.cfg"} | {m for m in members if m.startswith("textnb.egg-info/")}
    assert members - written == tracked - {".gitignore"}
    with tarfile.open(path) as tar:
        tar.extractall(tmp_path, filter="data")
    unpacked = next(tmp_path.glob("textnb-*"))
    e = dict(os.environ, PYTHONPATH=str(unpacked))
    r = subprocess.run([sys.executable, "-m", "pytest", "-n", "0", "-p", "no:cacheprovider",
                        "tests/test_readme_examples.py"], cwd=unpacked, capture_output=True, text=True, env=e,
                       timeout=600)
    assert r.returncode == 0, r.stdout[-3000:]
    assert re.search(r"\b\d+ passed", r.stdout)
