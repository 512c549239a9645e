"""Issue 30 (reliability round 3, the non-mail part) and issue 26's seam defects: one test
per row of the "Round 3" section of ``docs/robustness.md``.
"""

import importlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import textnb
from conftest import cli, one_error_line, tsv

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ["textnb", "textnb.core", "textnb.io", "textnb.naive_bayes", "textnb.text", "textnb.semi_naive",
            "textnb.meta", "textnb.evaluation", "textnb.apps", "textnb.cli"]


# --------------------------------------------------------------------------- issue 26
@pytest.mark.parametrize("package", PACKAGES)
def test_every_exported_name_resolves(package):
    """``from PACKAGE import *`` works: every name in ``__all__`` is an attribute (issue 26:
    ``textnb.apps.filter_main`` / ``topic_main`` raised AttributeError)."""
    module = importlib.import_module(package)
    missing = [name for name in getattr(module, "__all__", ()) if not hasattr(module, name)]
    assert missing == []
    namespace = {}
    exec(f"from {package} import *", namespace)  # noqa: S102 - the statement under test
