"""The command line as a new user meets it: counts said in the right number, unknown
flags, ``--proba`` beside ``--top``, table files by name and content, options that do not
go together (ROWS of the s23-cli round)."""

import json

import pytest

from conftest import cli, one_error_line


def _corpus(root, binaries):
    for label, docs in {"spam": ["cheap pills now", "win a cheap prize", "free pills offer"],
                        "ham": ["lunch at noon", "meeting at noon today", "see you at lunch"]}.items():
        (root / label).mkdir(parents=True)
        for i, doc in enumerate(docs):
            (root / label / f"{label}{i}.txt").write_text(doc)
    for i in range(binaries):
        (root / "spam" / f"blob{i}.bin").write_bytes(b"x\0y")
    return root


@pytest.mark.parametrize("binaries, said", [(1, "skipped 1 binary file\n"), (2, "skipped 2 binary files\n")])
def test_skipped_binary_files_are_counted_in_the_right_number(tmp_path, binaries, said):
    """train (single- and multi-label) said 'skipped 1 binary files'."""
    corpus = _corpus(tmp_path / "c", binaries)
    for extra in ([], ["--multilabel"]):
        code, out, err = cli("train", corpus, "-o", tmp_path / "m.tnb", *extra)
        assert code == 0, err
        assert said in out, (extra, out)


def _usage_error(capsys, *argv):
    from textnb.cli.commands import main

    code = main([str(a) for a in argv])
    return code, capsys.readouterr().err


def test_an_unknown_flag_is_named_with_a_suggestion_only_for_a_near_miss(capsys):
    """`predict MODEL --bogus` said 'did you mean: --bogus -> --rows?' (the names' shared
    `--` made them look alike); misspellings keep their suggestion, abbreviations work."""
    code, err = _usage_error(capsys, "predict", "m.tnb", "--bogus")
    assert code == 2 and err.splitlines()[0] == "textnb predict: error: unrecognized arguments: --bogus", err
    assert "did you mean" not in err and len(err.strip().splitlines()) == 2
    for wrong, right in (("--probaa", "--proba"), ("--jsno", "--json"), ("--threshhold", "--threshold")):
        code, err = _usage_error(capsys, "predict", "m.tnb", wrong)
        assert code == 2 and f"(did you mean: {wrong} -> {right}?)" in err, err
    code, err = _usage_error(capsys, "train", "c", "--modle", "nb")
    assert code == 2 and "did you mean: --modle -> --model" in err
    code, err = _usage_error(capsys, "train", "c", "--zzzz-frobnicate")
    assert code == 2 and "did you mean" not in err


def test_abbreviated_flags_still_work(tmp_path):
    """argparse's unique prefixes (`--prob` for --proba) are untouched by the suggestions."""
    corpus = _corpus(tmp_path / "c", 0)
    assert cli("train", corpus, "-o", tmp_path / "m.tnb")[0] == 0
    doc = tmp_path / "d.txt"
    doc.write_text("cheap pills")
    code, out, err = cli("predict", tmp_path / "m.tnb", doc, "--prob")
    assert code == 0 and "spam=" in out and "ham=" in out, err
