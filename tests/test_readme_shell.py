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


def test_readme_fasttext_block_runs_and_prints_its_figures(tmp_path, monkeypatch):
    """The "For fastText users" block as a whole: its awk / head / tail lines (run by the
    shell) make the files its textnb lines read, and ``textnb test``'s comment
    (``N 1574 P@1 0.989 R@1 0.989``) is what it prints."""
    import shutil
    import subprocess

    if not (shutil.which("bash") and shutil.which("awk")):
        pytest.skip("bash and awk are needed for the README's shell lines")
    block = next(b for b in re.findall(r"```sh\n(.*?)```", README, flags=re.S) if "__label__" in b)
    (tmp_path / "corpora").symlink_to(ROOT / "corpora")
    monkeypatch.chdir(tmp_path)
    checked = 0
    for line in block.splitlines():
        code, _, comment = line.partition("  #")
        code = code.strip()
        if not code.startswith("textnb "):
            subprocess.run(["bash", "-c", code], check=True, cwd=tmp_path)
            continue
        out, err = io.StringIO(), io.StringIO()
        assert main(shlex.split(code)[1:], stdout=out, stderr=err) == 0, (code, err.getvalue())
        assert out.getvalue().strip(), code
        shown = re.findall(r"(N|P@\d+|R@\d+) ([0-9.]+)", comment)
        if shown:
            printed = dict(row.split("\t") for row in out.getvalue().splitlines())
            assert {k: printed[k] for k, _ in shown} == dict(shown), (code, out.getvalue())
            checked += 1
    assert checked == 1
