"""The README's shell examples that use only bundled data run as written (issue 19).

Every ``textnb ...`` command of a ```sh block (parts of ``a && b`` lines too) whose input
files exist in a scratch folder that sees the repository's ``corpora/`` is run, in README
order, so a model one line trains is there for the next line. Synopsis lines
(``[options]``, ``PATH`` placeholders) and commands on data the README only names
(``data.arff``, ``/shared/corpus``) are listed as not runnable; a comment ``P(c) = v``
after a command is checked against its output.
"""

import io
import json
import re
import shlex
from pathlib import Path

import pytest

from textnb.cli import main

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
OUTPUT_FLAGS = {"-o", "--output", "--plot"}
PATHLIKE = re.compile(r"[/*]|\.(arff|tsv|csv|tnb|json|png|txt|eml|tab)$")


def commands():
    """``(command, comment)`` for every textnb command of the README's sh blocks, in order."""
    out = []
    for block in re.findall(r"```sh\n(.*?)```", README, flags=re.S):
        for line in block.splitlines():
            code, _, comment = line.partition(" #")
            for part in code.split("&&"):
                part = part.strip()
                if part.startswith("textnb "):
                    out.append((part, comment.strip()))
    return out


def runnable(argv, scratch):
    """Whether every input file the command names exists (outputs excepted)."""
    if any("[" in a or "|" in a or re.fullmatch(r"[A-Z][A-Z.]+", a) for a in argv):
        return False  # a synopsis line
    skip = False
    for a in argv[1:]:
        if skip:
            skip = False
            continue
        if a in OUTPUT_FLAGS:
            skip = True
            continue
        if not a.startswith("-") and PATHLIKE.search(a) and not (scratch / a).exists():
            return False
    return True


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    root = tmp_path_factory.mktemp("readme_sh")
    (root / "corpora").symlink_to(ROOT / "corpora")
    return root


def test_readme_shell_examples_on_bundled_data_run(scratch, monkeypatch):
    monkeypatch.chdir(scratch)
    ran, not_run = [], []
    for command, comment in commands():
        argv = shlex.split(command)
        if not runnable(argv, scratch):
            not_run.append(command)
            continue
        out, err = io.StringIO(), io.StringIO()
        code = main(argv[1:], stdout=out, stderr=err)
        assert code == 0, f"{command}: exit {code}: {err.getvalue()}"
        ran.append(command)
        for cls, value in re.findall(r"P\((\w+)\) = ([0-9.]+)", comment):
            records = [json.loads(line) for line in out.getvalue().splitlines()]
            assert any(round(r["proba"][cls], len(value.split(".")[1])) == float(value) for r in records), \
                f"{command}: no P({cls}) = {value} in {out.getvalue()}"
    # the quick start and the table examples on the bundled data are among them
    assert any("SMSSpamCollection.tsv" in c and c.startswith("textnb train") for c in ran)
    assert any(c.startswith("textnb evaluate corpora/sms_spam") for c in ran)
    assert any("weather.query.arff" in c for c in ran)
    assert len(ran) >= 4, (ran, not_run)
