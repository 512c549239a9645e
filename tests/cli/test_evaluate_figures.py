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
