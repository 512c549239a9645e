"""The distributions: the sdist is the whole source (its test suite runs from it), and the
sdist and the wheel carry the licence that pyproject.toml names."""

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def test_the_licence_is_the_one_pyproject_names():
    """pyproject.toml said MIT, and no licence text was anywhere: not in the repository,
    the sdist or the wheel."""
    assert tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["license"] == {"text": "MIT"}
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n\nCopyright (c) 2026 the textnb developers\n\nPermission is hereby granted")
    assert 'THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND' in text


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


@pytest.mark.slow
def test_the_sdist_and_the_wheel_carry_the_licence(sdist, tmp_path):
    """The wheel is built from the sdist, as ``python -m build`` builds it (pip's isolated
    build: the setuptools that build-system.requires allows); its metadata names the
    licence file, which is in its .dist-info."""
    _, path, members = sdist
    assert "LICENSE" in members
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(tmp_path), str(path)],
                       capture_output=True, text=True, timeout=900, env=dict(os.environ, TEXTNB_NO_C_CLIENT="1"))
    if r.returncode != 0 and re.search(r"No matching distribution|Could not find a version|"
                                       r"Network is unreachable|Failed to establish", r.stderr):
        pytest.skip("pip cannot fetch the build backend (setuptools) here")
    assert r.returncode == 0, r.stderr[-2000:]
    (wheel,) = tmp_path.glob("textnb-*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        info = z.read(metadata).decode()
        licence = [n for n in names if re.search(r"\.dist-info/(licenses/)?LICENSE$", n)]
        assert len(licence) == 1 and z.read(licence[0]) == (REPO / "LICENSE").read_bytes()
    assert "\nLicense-File: LICENSE\n" in info
    assert "\nLicense: MIT\n" in info or "\nLicense-Expression: MIT\n" in info
