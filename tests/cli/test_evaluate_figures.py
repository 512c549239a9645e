"""``textnb evaluate`` as a user checks its numbers (ROWS of the s26-eval round): reports
that stand for nothing are refused, and every figure means what its label says."""

import pytest

from conftest import cli, one_error_line


def _corpus(root, docs):
    for label, texts in docs.items():
        (root / label).mkdir(parents=True)
        for i, doc in enumerate(texts):
            path = root / label / f"{label}{i}.txt"
            if isinstance(doc, bytes):
                path.write_bytes(doc)
            else:
                path.write_text(doc)
    return root


TRAIN = {"spam": ["cheap pills now", "win a cheap prize", "free pills offer"],
         "ham": ["lunch at noon", "meeting at noon today", "see you at lunch"]}


@pytest.mark.parametrize("layout", ["--test", "split"])
def test_a_test_part_of_binary_files_only_is_an_error_not_a_report_of_accuracy_0(tmp_path, layout):
    """Every test document binary (skipped): evaluate printed 'train/test on 0 objects',
    accuracy 0.0000 and macro-F1 0.0000, and exited 0."""
    test = {"spam": [b"x\0y"], "ham": [b"\0\0"]}
    if layout == "--test":
        args = [_corpus(tmp_path / "train", TRAIN), "--test", _corpus(tmp_path / "test", test)]
        named = str(tmp_path / "test")
    else:
        _corpus(tmp_path / "c" / "train", TRAIN)
        _corpus(tmp_path / "c" / "test", test)
        args, named = [tmp_path / "c"], str(tmp_path / "c" / "test")
    for extra in ([], ["--json"]):
        code, out, err = cli("evaluate", *args, *extra)
        assert code == 1 and out == ""
        one_error_line(err, named, "no test documents (its 2 files are all binary)", "nothing to measure")


def test_a_figure_below_1_is_never_printed_as_1(tmp_path):
    """20,000 right of 20,001: ``accuracy  1.0000`` (and macro-F1, ROC AUC) in evaluate's text,
    ``accuracy 1.0000`` in predict's line, while ``--json`` said 0.99995: the text keeps the
    places it takes not to read 1 (``figure_text``)."""
    import subprocess
    import sys

    from textnb.cli.output import figure_text

    assert (figure_text(0.99995), figure_text(1.0), figure_text(0.5), figure_text(4e-6), figure_text(0.0)) == (
        "0.99995", "1.0000", "0.5000", "0.000004", "0.0000")
    train, test = tmp_path / "train.tsv", tmp_path / "test.tsv"
    train.write_text("spam\tcheap pills offer now\nham\tlunch meeting at noon\n" * 200)
    test.write_text("spam\tcheap pills offer now\nham\tlunch meeting at noon\n" * 10000 + "ham\tcheap pills offer now\n")
    run = [sys.executable, "-m", "textnb"]
    out = subprocess.run([*run, "evaluate", str(train), "--test", str(test), "--model", "multinomial"],
                         capture_output=True, text=True, check=True).stdout
    for name in ("accuracy", "macro-F1", "ROC AUC"):
        line = next(x for x in out.splitlines() if x.startswith(name))
        assert "1.0000" not in line and "0.9999" in line, line
    subprocess.run([*run, "train", str(train), "--model", "multinomial", "-o", str(tmp_path / "m.tnb")],
                   capture_output=True, check=True)
    err = subprocess.run([*run, "predict", str(tmp_path / "m.tnb"), str(test)], capture_output=True, text=True,
                         check=True).stderr
    assert "accuracy 0.99995 (20000 of 20001" in err
