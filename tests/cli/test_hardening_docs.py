"""docs/robustness.md stays current: its rows are numbered in one sequence (no gaps, no
letters), every row names tests as ``file::test`` that exist, and the issue-18 checklist
cites only rows that exist."""

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "robustness.md"
ROW = re.compile(r"^\| (\S+) \| .* \| ([^|]*) \|$")
REF = re.compile(r"`(tests/[\w/]+\.py)::(\w+)(\[[^\]`]*\])?`")


def _rows():
    rows = []
    in_numbered = False
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("| # |"):
            in_numbered = True
            continue
        if not line.startswith("|"):
            in_numbered = False
            continue
        m = ROW.match(line)
        if in_numbered and m and not line.startswith("|---"):
            rows.append((m.group(1), m.group(2)))
    return rows


def test_rows_are_numbered_in_one_sequence():
    numbers = [n for n, _ in _rows()]
    assert numbers == [str(i) for i in range(1, len(numbers) + 1)], numbers


def test_every_row_names_tests_that_exist():
    sources = {}
    for number, cell in _rows():
        refs = REF.findall(cell)
        assert refs, f"row {number} names no test as file::test"
        for path, name, _ in refs:
            text = sources.setdefault(path, (REPO / path).read_text(encoding="utf-8"))
            assert re.search(rf"^def {name}\(", text, re.M), f"row {number}: {path}::{name} does not exist"


def test_the_issue_18_checklist_cites_existing_rows():
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## Issue 18: every probe and its rows", 1)[1].split("\n## ", 1)[0]
    last = len(_rows())
    cited = [line.rsplit("|", 2)[1] for line in section.splitlines() if line.startswith(("| Why", "| What"))]
    assert len(cited) == 8 + 6
    for cell in cited:
        if cell.strip() == "all rows":
            continue
        numbers = [int(n) for n in cell.split(",")]
        assert numbers and all(1 <= n <= last for n in numbers), cell
