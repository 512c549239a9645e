"""Examples that the user-facing docs and ``--help`` texts show run as they are shown (the
README's own are in test_readme_examples.py and test_readme_shell.py)."""

import csv
import json
import re
import shlex
from pathlib import Path

from conftest import CORPORA, cli

ROOT = Path(__file__).resolve().parent.parent


def test_structure_help_example_is_a_structure_file_train_reads(tmp_path, capsys):
    """``train --help``'s example of a ``--structure`` file, its placeholders A and B made
    attributes of weather.nominal, trains --model bn with the parents it says (it named a
    class node ``"class"`` that no table has: ``parent 'class' of 'humidity' is not a known
    node``)."""
    assert cli("train", "--help")[0] == 0
    text = " ".join(capsys.readouterr().out.split())
    help_text = text[text.index("--structure FILE.json Bayesian"):]
    example = re.search(r"(\{\"parents\".*?\}\}?(?:, \"class\": \"\w+\"\})?)", help_text).group(1)
    doc = example.replace('"A"', '"humidity"').replace('"B"', '"temperature"')
    structure = json.loads(doc)
    (tmp_path / "net.json").write_text(doc)
    model = tmp_path / "bn.tnb"
    rc, _, err = cli("train", CORPORA / "weather.nominal.arff", "--model", "bn", "--structure",
                     tmp_path / "net.json", "-o", model)
    assert rc == 0, err
    rc, out, err = cli("inspect", model, "--json")
    assert rc == 0, err
    parents = json.loads(out)["structure"]
    assert parents["humidity"] == [structure["class"], "temperature"]
    assert parents["windy"] == [structure["class"]]  # not listed: the class its only parent


def _mail_table(path, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["subject", "body", "size", "has_html", "class"])
        for i in range(rows):
            spam = i % 3 == 0
            w.writerow(["win cash now" if spam else "meeting notes",
                        ("free prize claim " if spam else "see agenda attached ") + str(i),
                        f"{(i % 7) / 2 + (3 if spam else 1):.2f}", "yes" if i % 2 else "no",
                        "spam" if spam else "ham"])


def test_mixed_md_commands_run(tmp_path, monkeypatch):
    """docs/mixed.md's three commands, on a small mail table of its columns: train names
    the model mail.tnb (the PATH's name), predict --explain gives a contribution per text
    attribute, evaluate cross-validates."""
    commands = re.findall(r"^    (textnb .*)$", (ROOT / "docs" / "mixed.md").read_text(encoding="utf-8"), flags=re.M)
    assert len(commands) == 3, commands
    monkeypatch.chdir(tmp_path)
    _mail_table("mail.csv", 60)
    _mail_table("new.csv", 4)
    outputs = []
    for command in commands:
        rc, out, err = cli(*shlex.split(command)[1:])
        assert rc == 0, (command, err)
        outputs.append(out)
    assert "model: MixedNB -> mail.tnb" in outputs[0]
    assert all(re.search(r"subject [+-][0-9.]+ \[", line) and re.search(r"body [+-][0-9.]+ \[", line)
               for line in outputs[1].splitlines()), outputs[1]
    assert outputs[2].startswith("10-fold cross-validation")
