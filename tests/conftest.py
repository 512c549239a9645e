"""Shared fixtures: the bundled corpora, and the shared corpora / data sets when present.

``../shared`` (next to the repository) holds large read-only archives; tests that need
them skip cleanly when it is absent, so the suite passes from a fresh clone with only
what ``corpora/`` ships.
"""

import tarfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
CORPORA = REPO / "corpora"
SMS_TSV = CORPORA / "sms_spam" / "SMSSpamCollection.tsv"


def shared_path(*parts):
    """A path under ../shared, or skip the test when it is not there."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is not available")
    return path


@pytest.fixture(scope="session")
def shared_corpora(tmp_path_factory):
    """Extract a shared corpus archive once per session: ``shared_corpora("20news-bydate")``."""
    root = tmp_path_factory.mktemp("shared_corpora")
    done = {}

    def extract(name):
        if name not in done:
            archive = shared_path("corpora", f"{name}.tar.gz")
            with tarfile.open(archive) as tar:
                tar.extractall(root, filter="data")
            done[name] = root
        members = [p for p in root.iterdir() if p.name.startswith(name.split("_")[0][:6])]
        return members[0] if members else root

    return extract


@pytest.fixture(scope="session")
def sms_tsv():
    return SMS_TSV
