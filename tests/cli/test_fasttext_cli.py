"""fastText files on the command line: ``train``, ``evaluate`` and ``predict --lines`` read
``__label__`` lines through textnb.io.fasttext (several labels on a line: the multi-label
path), ``textnb test MODEL FILE [K] [TH]`` prints N, P@K and R@K as ``fasttext test``."""

import argparse
import io
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from textnb.cli import main

ROOT = Path(__file__).resolve().parents[2]
SMS = ROOT / "corpora" / "sms_spam" / "SMSSpamCollection.tsv"


def run(*argv, stdin=None):
    out, err = io.StringIO(), io.StringIO()
    old = sys.stdin
    if stdin is not None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode("utf-8")), encoding="utf-8")
    try:
        code = main([str(a) for a in argv], stdout=out, stderr=err)
    finally:
        sys.stdin = old
    return code, out.getvalue(), err.getvalue()


def _sms_rows(n):
    rows = []
    for line in SMS.read_text(encoding="utf-8").splitlines()[:n]:
        label, text = line.split("\t", 1)
        rows.append((label, text))
    return rows


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """fastText files from the bundled SMS corpus: single-label train/test, the same test
    with the labels removed, and multi-label ones (a second label "long")."""
    d = tmp_path_factory.mktemp("ft")
    rows = _sms_rows(1600)
    single = [f"__label__{lab} {text}" for lab, text in rows]
    multi = [f"__label__{lab}{' __label__long' if len(text) > 100 else ''} {text}" for lab, text in rows]
    (d / "train.txt").write_text("\n".join(single[:1200]) + "\n", encoding="utf-8")
    (d / "test.txt").write_text("\n".join(single[1200:]) + "\n", encoding="utf-8")
    (d / "test_plain.txt").write_text("\n".join(text for _, text in rows[1200:]) + "\n", encoding="utf-8")
    (d / "mtrain.txt").write_text("\n".join(multi[:1200]) + "\n", encoding="utf-8")
    (d / "mtest.txt").write_text("\n".join(multi[1200:]) + "\n", encoding="utf-8")
    return d


@pytest.fixture(scope="module")
def models(files):
    single, multi = files / "single.tnb", files / "multi.tnb"
    code, out, err = run("train", files / "train.txt", "-o", single)
    assert code == 0, err
    assert "read 1200 documents" in out and "ham" in out and "spam" in out
    code, out, err = run("train", files / "mtrain.txt", "-o", multi)
    assert code == 0, err
    assert "(3 labels)" in out and "MultiLabelNB" in out
    return single, multi


def _parse(out):
    lines = out.splitlines()
    assert len(lines) == 3 and lines[0].startswith("N\t") and re.fullmatch(r"P@\d+\t\S+", lines[1])
    return int(lines[0].split("\t")[1]), float(lines[1].split("\t")[1]), float(lines[2].split("\t")[1])


def test_single_label_train_test_and_predict_lines(files, models):
    single, _ = models
    code, out, err = run("test", single, files / "test.txt")
    assert code == 0, err
    n, p, r = _parse(out)
    assert n == 400 and p == r > 0.9  # one label per line, one prediction: P@1 = R@1 = accuracy
    # the same as the accuracy of predict --lines, whose label words are left out of the text
    code, lines_out, err = run("predict", single, "--lines", files / "test.txt", "--json")
    assert code == 0, err
    predicted = [json.loads(line)["label"] for line in lines_out.splitlines()]
    gold = [lab for lab, _ in _sms_rows(1600)[1200:]]
    assert f"{np.mean(np.array(predicted) == np.array(gold)):.3g}" == out.splitlines()[1].split("\t")[1]
    code, plain_out, _ = run("predict", single, "--lines", files / "test_plain.txt", "--json")
    assert [json.loads(line)["label"] for line in plain_out.splitlines()] == predicted
    # K = 2 of 2 labels: every label predicted, so P@2 = 1/2 and R@2 = 1
    assert run("test", single, files / "test.txt", 2)[1] == "N\t400\nP@2\t0.5\nR@2\t1\n"


def test_test_output_is_fasttexts_and_json_and_stdin(files, models):
    single, _ = models
    code, out, _ = run("test", single, files / "test.txt", 1, 0.999, "--json")
    rec = json.loads(out)
    assert rec["n"] == 400 and rec["k"] == 1 and rec["threshold"] == 0.999 and rec["predicted"] <= 400
    assert rec["precision"] == pytest.approx(rec["correct"] / rec["predicted"])
    text = (files / "test.txt").read_text(encoding="utf-8")
    assert run("test", single, "-", stdin=text)[1] == run("test", single, files / "test.txt")[1]
    # the highest threshold: lines whose best probability rounds to 1 only; none at all
    # would print P@1 as NaN, as fastText does
    rec = json.loads(run("test", single, files / "test.txt", 1, 1.0, "--json")[1])
    out = run("test", single, files / "test.txt", 1, 1.0)[1]
    p = "nan" if rec["predicted"] == 0 else f"{rec['precision']:.3g}"
    assert out == f"N\t400\nP@1\t{p}\nR@1\t{rec['recall']:.3g}\n"


def test_multilabel_file_takes_the_multilabel_path(files, models):
    _, multi = models
    n, p1, r1 = _parse(run("test", multi, files / "mtest.txt")[1])
    n2, p2, r2 = _parse(run("test", multi, files / "mtest.txt", 3)[1])
    assert n == n2 == 400 and r2 == 1.0 and r1 < r2 and p2 < p1  # 3 of 3 labels: recall 1
    code, out, _ = run("predict", multi, "--lines", files / "mtest.txt")
    first = out.splitlines()[0].split("\t")
    assert code == 0 and first[0].endswith("mtest.txt:1") and set(first[1].split(",")) <= {"ham", "spam", "long"}
    code, out, err = run("evaluate", files / "mtrain.txt", "--cv", "3", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["n"] == 1200 and "micro_f1" in report and set(report["per_label"]) == {"ham", "spam", "long"}
    code, out, err = run("evaluate", files / "mtrain.txt", "--test", files / "mtest.txt", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["protocol"] == "train/test" and report["n"] == 400 and report["n_train"] == 1200


def test_multilabel_top_and_threshold_print_probabilities_as_for_one_label(files, models):
    """--top K / --threshold P of a multi-label model: each label with its probability, in
    text and in --json, as a single-label model prints them (they printed bare names)."""
    single, multi = models
    for model in (single, multi):
        code, out, err = run("predict", model, "--lines", files / "test_plain.txt", "--top", "2")
        assert code == 0, err
        for line in out.splitlines()[:50]:
            fields = line.split("\t")
            probs = [float(f.rsplit(" ", 1)[1]) for f in fields[1:]]
            assert len(fields) == 3 and probs == sorted(probs, reverse=True) and all(0 <= p <= 1 for p in probs)
        code, out, err = run("predict", model, "--lines", files / "test_plain.txt", "--threshold", "0.3", "--json")
        assert code == 0, err
        for line in out.splitlines()[:50]:
            labels = json.loads(line)["labels"]
            assert all(set(x) == {"label", "proba", "log_odds"} and x["proba"] >= 0.3 for x in labels)
            assert all(abs(x["proba"] - 1 / (1 + np.exp(-x["log_odds"]))) < 1e-9 for x in labels) or model == single


def test_threshold_zero_is_at_least_zero_in_predict_test_and_topicfilter(files, models, tmp_path):
    """``--threshold 0`` (fastText's default: every label of probability at least 0) is
    taken by ``predict`` as by ``test``'s TH and ``topicfilter -t``, one rule for the three
    (it was refused by predict alone: "expected a number > 0.0"): ``predict --lines``
    lists every label of each line, ranked, single- and multi-label; ``test`` at 0 is its
    default; topicfilter at 0 sorts every document."""
    from textnb.cli.topicfilter import topic_main

    single, multi = models
    for model in (single, multi):
        code, out, err = run("predict", model, "--lines", files / "test_plain.txt", "--threshold", "0")
        assert code == 0 and err == "", err
        classes = 2 if model == single else 3
        for line in out.splitlines():
            fields = line.split("\t")
            probs = [float(f.rsplit(" ", 1)[1]) for f in fields[1:]]
            assert len(fields) == 1 + classes and probs == sorted(probs, reverse=True), line
        assert len(out.splitlines()) == 400
    assert run("test", single, files / "test.txt", "1", "0") == run("test", single, files / "test.txt")
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.txt").write_text("free prize call now\n", encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    code = topic_main(["-m", str(single), "-o", str(tmp_path / "out"), "-t", "0", "-n", str(tmp_path / "in")],
                       stdout=out, stderr=err)
    assert code == 0 and err.getvalue() == "" and "unsorted" not in out.getvalue(), err.getvalue()


def test_multilabel_labels_holding_a_comma_stay_one_label(tmp_path):
    rows = _sms_rows(300)
    lines = [f"__label__{'x,y' if lab == 'spam' else lab}{' __label__long' if len(t) > 100 else ''} {t}"
             for lab, t in rows]
    (tmp_path / "c.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, err = run("train", tmp_path / "c.txt", "-o", tmp_path / "c.tnb")
    assert code == 0, err
    spam = next(t for lab, t in rows if lab == "spam" and len(t) > 100)
    code, out, err = run("predict", tmp_path / "c.tnb", "--lines", "-", stdin=spam + "\n")
    assert code == 0, err
    labels = out.split("\t")[1].strip()
    assert "x\\,y" in labels and re.split(r"(?<!\\),", labels).count("x\\,y") == 1, labels


def _label_field(field):
    """The labels of predict's multi-label field, read as the README says: left to right, a
    backslash and the character after it one character (``\\,`` a comma, ``\\\\`` a
    backslash), a comma alone between two labels."""
    return [re.sub(r"\\(.)", r"\1", label) for label in re.findall(r"(?:\\.|[^\\,])+", field)]


def test_multilabel_labels_holding_commas_and_backslashes_read_back_exactly(tmp_path):
    """A fastText file's labels `a,b`, `a\\` and `a\\,b` (session 44's user trial: did `a,b,c`
    read as three labels?): predict's text field, read by the README's rule, gives the labels
    --json gives, whatever a label holds; a label without a comma or backslash is as it was."""
    rows = [("__label__a,b __label__c", "apple banana cherry"), ("__label__a\\ __label__b", "dog egg"),
            ("__label__a\\,b", "fig grape"), ("__label__c", "kiwi lemon")]
    (tmp_path / "c.txt").write_text("".join(f"{labels} {text} w{i}\n" for i in range(30) for labels, text in rows))
    code, out, err = run("train", tmp_path / "c.txt", "-o", tmp_path / "c.tnb")
    assert code == 0, err
    queries = "".join(f"{text}\n" for _, text in rows)
    code, out, err = run("predict", tmp_path / "c.tnb", "--lines", "-", stdin=queries)
    assert code == 0, err
    fields = [line.split("\t")[1] for line in out.splitlines()]
    code, out, err = run("predict", tmp_path / "c.tnb", "--lines", "-", "--json", stdin=queries)
    assert code == 0, err
    exact = [json.loads(line)["labels"] for line in out.splitlines()]
    assert [sorted(labels) for labels in exact] == [["a,b", "c"], ["a\\", "b"], ["a\\,b"], ["c"]]
    assert [_label_field(f) for f in fields] == exact  # (most probable first, in both)
    assert fields[0] in ("a\\,b,c", "c,a\\,b") and fields[2:] == ["a\\\\\\,b", "c"]


def test_evaluate_single_label_and_test_file(files):
    code, out, err = run("evaluate", files / "train.txt", "--test", files / "test.txt", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["protocol"] == "train/test" and report["n"] == 400 and report["accuracy"] > 0.9
    code, out, err = run("evaluate", files / "train.txt", "--cv", "3")
    assert code == 0 and "3-fold cross-validation" in out


def test_multilabel_flag_on_a_single_label_file(files, tmp_path):
    code, out, err = run("train", files / "train.txt", "--multilabel", "-o", tmp_path / "m.tnb")
    assert code == 0 and "MultiLabelNB" in out, err
    n, p, r = _parse(run("test", tmp_path / "m.tnb", files / "test.txt")[1])
    assert n == 400 and p > 0.9


def test_label_prefix_and_explicit_flag(tmp_path):
    rows = _sms_rows(300)
    custom = tmp_path / "custom.txt"
    custom.write_text("\n".join(f"{text} @@{lab}" for lab, text in rows) + "\n", encoding="utf-8")
    code, out, err = run("train", custom, "--label-prefix", "@@", "-o", tmp_path / "c.tnb")
    assert code == 0 and "read 300 documents" in out, err
    code, out, err = run("test", tmp_path / "c.tnb", custom, "--label-prefix", "@@")
    assert code == 0 and out.startswith("N\t300\n"), err
    # the first line without a label: not detected, read with --fasttext
    late = tmp_path / "late.txt"
    late.write_text("an unlabelled first line\n" + "\n".join(f"__label__{lab} {t}" for lab, t in rows) + "\n")
    assert run("train", late, "-o", tmp_path / "l.tnb")[0] == 1
    code, out, err = run("train", late, "--fasttext", "-o", tmp_path / "l.tnb")
    assert code == 0 and "read 300 documents" in out, err


@pytest.mark.parametrize("argv, message", [
    (["train", "{d}", "--fasttext"], "a folder; --fasttext and --label-prefix read a fastText file"),
    (["train", "{d}/bad.txt"], "bad.txt:2: empty label"),
    (["train", "{d}/one.txt"], "only one class"),
    (["predict", "{d}/model.tnb", "--label-prefix", "x"], "--label-prefix applies to --lines and to fastText files"),
    (["test", "{d}/table.tnb", "{d}/one.txt"], "test needs a text model"),
    (["test", "{d}/model.tnb", "{d}/missing.txt"], "missing.txt: no such file"),
    (["test", "{d}/model.tnb", "{d}/nolabels.txt"], "no line has a label"),
])
def test_errors_are_one_line(tmp_path, files, models, argv, message):
    (tmp_path / "bad.txt").write_text("__label__a fine\n__label__ broken\n")
    (tmp_path / "one.txt").write_text("__label__a x\n__label__a y\n")
    (tmp_path / "nolabels.txt").write_text("no labels here\nnor here\n")
    shutil.copy(models[0], tmp_path / "model.tnb")
    weather = ROOT / "corpora" / "weather.nominal.arff"
    assert run("train", weather, "-o", tmp_path / "table.tnb")[0] == 0
    code, out, err = run(*[a.format(d=tmp_path) for a in argv])
    assert code == 1 and message in err and err.count("\n") == 1 and "Traceback" not in err


def test_help_lists_test_and_the_fasttext_options(capsys):
    assert run("--help")[0] == 0
    assert re.search(r"^\s+test\s+precision and recall at K", capsys.readouterr().out, flags=re.M)
    for command in ("train", "evaluate"):
        assert run(command, "--help")[0] == 0
        text = capsys.readouterr().out
        assert "--fasttext" in text and "--label-prefix PREFIX" in text
    assert run("predict", "--help")[0] == 0 and "--label-prefix PREFIX" in capsys.readouterr().out
    assert run("test", "--help")[0] == 0 and "usage: textnb test" in capsys.readouterr().out


def _readme_block():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## For fastText users", 1)[1].split("\n## ", 1)[0]
    return re.search(r"```sh\n(.*?)```", section, flags=re.S).group(1)


def test_readme_fasttext_example_runs(tmp_path, monkeypatch):
    """The README's fastText block as written: its awk line through sh, its textnb lines
    through main(); the figures in its comments are the output's."""
    if shutil.which("awk") is None or shutil.which("sh") is None:
        pytest.skip("needs awk and sh")
    (tmp_path / "corpora").symlink_to(ROOT / "corpora")
    monkeypatch.chdir(tmp_path)
    outputs = []
    for line in _readme_block().splitlines():
        command, _, comment = line.partition("  # ")
        command = command.strip()
        if not command:
            continue
        if command.startswith("textnb "):
            import shlex

            code, out, err = run(*shlex.split(command)[1:])
            assert code == 0, f"{command}: {err}"
            outputs.append(out)
            for expected in re.findall(r"(\S+) (\d+(?:\.\d+)?)", comment):
                assert f"{expected[0]}\t{expected[1]}\n" in out, (command, out)
        else:
            subprocess.run(command, shell=True, check=True, cwd=tmp_path)
    assert any(o.startswith("N\t") for o in outputs)


def test_lines_without_a_label_are_counted_and_reported(tmp_path):
    """fastText skips a line without a label; train and evaluate say how many they left out
    (text and --json), as for binary files and link loops; blank lines are not counted."""
    rows = _sms_rows(300)
    lines = [f"__label__{lab} {text}" for lab, text in rows]
    unlabeled = ["an example without any label", "another line and no label", "a third one"]
    single = tmp_path / "single.txt"
    single.write_text("\n".join(lines[:100] + unlabeled[:2] + [""] + lines[100:] + unlabeled[2:]) + "\n",
                      encoding="utf-8")
    multi = tmp_path / "multi.txt"
    multi.write_text("\n".join([f"{line} __label__x{i % 2}" if i % 3 == 0 else line for i, line in enumerate(lines)]
                               + unlabeled[:1]) + "\n", encoding="utf-8")
    code, out, err = run("train", single, "-o", tmp_path / "s.tnb")
    assert code == 0, err
    assert "read 300 documents" in out and "skipped 3 lines without a label" in out.splitlines()
    code, out, err = run("train", single, "-o", tmp_path / "s.tnb", "--json")
    assert code == 0 and json.loads(out)["skipped_unlabeled"] == 3
    code, out, err = run("evaluate", single, "--cv", "2")
    assert code == 0 and "skipped 3 lines without a label" in out.splitlines()
    code, out, err = run("evaluate", single, "--cv", "2", "--json")
    assert code == 0 and json.loads(out)["skipped_unlabeled"] == 3
    code, out, err = run("evaluate", single, "--test", single, "--json")
    assert code == 0 and json.loads(out)["skipped_unlabeled"] == 6  # training and test file
    code, out, err = run("train", multi, "-o", tmp_path / "m.tnb")
    assert code == 0 and "MultiLabelNB" in out and "skipped 1 line without a label" in out.splitlines()
    code, out, err = run("evaluate", multi, "--cv", "2", "--json")
    assert code == 0 and json.loads(out)["skipped_unlabeled"] == 1
    code, out, _ = run("train", SMS, "-o", tmp_path / "tsv.tnb", "--json")  # not a fastText file: no count
    assert code == 0 and "skipped_unlabeled" not in json.loads(out)


def test_k_of_minus_one_is_every_label_as_in_fasttext(files, models):
    """``textnb test MODEL FILE -1`` and ``predict --top -1`` take every label, as fastText's
    ``test`` / ``predict`` k = -1: the counts of K = the number of labels; 0 and -2 are
    one-line usage errors naming -1."""
    for model, name, n_labels in ((models[0], "test.txt", "2"), (models[1], "mtest.txt", "3")):
        code, out, _ = run("test", model, files / name, "-1", "--json")
        assert code == 0
        every = json.loads(out)
        code, out, _ = run("test", model, files / name, n_labels, "--json")
        both = json.loads(out)
        assert every["k"] == -1 and both["k"] == int(n_labels)
        assert {k: every[k] for k in ("n", "predicted", "correct", "precision", "recall")} == \
               {k: both[k] for k in ("n", "predicted", "correct", "precision", "recall")}
        code, out_all, _ = run("predict", model, "--lines", files / "test_plain.txt", "--top", "-1")
        code2, out_two, _ = run("predict", model, "--lines", files / "test_plain.txt", "--top", n_labels)
        assert code == code2 == 0 and out_all == out_two and out_all.count("\n") == 400
    for argv in (("test", models[0], files / "test.txt", "-2"), ("predict", models[0], "--top", "0", files / "x")):
        assert run(*argv)[0] == 2
    from textnb.cli.options import top_labels

    with pytest.raises(argparse.ArgumentTypeError, match="or -1 for every label, got '0'"):
        top_labels("0")


@pytest.mark.parametrize("multilabel", [False, True])
def test_the_label_prefix_of_training_is_kept_in_the_model_and_read_by_test_and_predict(tmp_path, multilabel):
    """fastText's model keeps its -label: ``train --label-prefix '#'`` then ``test`` or
    ``predict --lines`` without it read '#' words as labels (they failed 'no line has a
    label (words starting with '__label__')'); an explicit --label-prefix still wins; a model
    trained with the default prefix is written as before (no prefix stored)."""
    rows = _sms_rows(300)
    tagged = tmp_path / "hash.txt"
    tagged.write_text("\n".join(f"#{lab}" + (" #long" if multilabel and len(text) > 80 else "") + f" {text}"
                                for lab, text in rows) + "\n", encoding="utf-8")
    model = tmp_path / "h.tnb"
    code, _, err = run("train", tagged, "--label-prefix", "#", "-o", model)
    assert code == 0, err
    code, out, err = run("test", model, tagged)
    assert code == 0 and out.startswith("N\t300\n"), err
    code, out, err = run("predict", model, "--lines", tagged)
    assert code == 0 and len(out.splitlines()) == 300 and "#" not in out, err
    code, out, err = run("test", model, tagged, "--label-prefix", "__label__")
    assert code == 1 and "no line has a label (words starting with '__label__')" in err
    from textnb.core.model_io import read_nodes
    from textnb.io.fasttext import stored_label_prefix
    from textnb.text.scorer import text_model_root

    assert stored_label_prefix(text_model_root(read_nodes(model))) == "#"
    plain = tmp_path / "plain.txt"
    plain.write_text(tagged.read_text(encoding="utf-8").replace("#", "__label__"), encoding="utf-8")
    run("train", plain, "-o", tmp_path / "p.tnb")
    run("train", plain, "--label-prefix", "__label__", "-o", tmp_path / "q.tnb")
    assert (tmp_path / "p.tnb").read_bytes() == (tmp_path / "q.tnb").read_bytes()
    assert "label_prefix" not in (tmp_path / "p.tnb").read_bytes().decode("latin-1")


def test_predict_reads_a_fasttext_file_given_as_path_one_document_per_line(files, models, tmp_path):
    """``predict MODEL FILE`` of a fastText file (which train, evaluate and test read one
    document per line) predicted the whole file as one document, in silence; it is read as
    train reads it: a prediction per line (``FILE:LINE``, the label words left out, as
    ``--lines``), the accuracy on stderr (a prediction right when it is one of the line's
    labels, fastText's P@1), and a multi-label model's labels per line too."""
    single, multi = models
    code, out, err = run("predict", single, files / "test.txt")
    assert code == 0, err
    code, lines_out, _ = run("predict", single, "--lines", files / "test.txt")
    assert out == lines_out and len(out.splitlines()) == 400
    assert out.splitlines()[0].startswith(f"{files / 'test.txt'}:1\t")
    code, test_out, _ = run("test", single, files / "test.txt")
    p_at_1 = float(test_out.splitlines()[1].split("\t")[1])
    m = re.fullmatch(r"(\S+): accuracy (\S+) \((\d+) of 400 lines with a label\)\n", err)
    assert m and m.group(1) == str(files / "test.txt") and f"{float(m.group(2)):.3g}" == f"{p_at_1:.3g}", err
    # a plain text file and a document in a folder are still one document each
    code, out, err = run("predict", single, files / "test_plain.txt")
    assert code == 0 and len(out.splitlines()) == 1 and err == ""
    # a line whose labels hold the prediction counts as right, one without a label is not counted
    mixed = tmp_path / "mixed.txt"
    mixed.write_text("__label__ham __label__spam Ok lar... Joking wif u oni...\nno label on this line\n")
    code, out, err = run("predict", single, mixed)
    assert code == 0 and len(out.splitlines()) == 2
    assert err == f"{mixed}: accuracy 1.0000 (1 of 1 line with a label; 1 line without a label not counted)\n"
    # a line whose label word is the prefix alone: one line naming the file and line, as train says it
    bad = tmp_path / "bad.txt"
    bad.write_text("__label__ham fine\n__label__ broken\n")
    code, out, err = run("predict", single, bad)
    assert code == 1 and err.startswith(f"textnb: error: {bad}:2: empty label") and err.count("\n") == 1, err
    # a multi-label model: the labels of each line
    code, out, err = run("predict", multi, files / "mtest.txt")
    assert code == 0 and len(out.splitlines()) == 400, err
    code, lines_out, _ = run("predict", multi, "--lines", files / "mtest.txt")
    assert out == lines_out



def test_a_label_given_twice_on_a_line_is_counted_twice_as_fasttexts_meter_counts_it(tmp_path):
    """fastText's ``Meter::log`` (src/meter.cc) adds ``labels.size()`` to the labels to
    recall, a label given twice on a line included, and counts a correct prediction once:
    ``__label__spam __label__spam pills`` predicted spam is P@1 = 1, R@1 = 1/2."""
    train = tmp_path / "train.txt"
    train.write_text("".join(f"__label__spam buy cheap pills {i}\n__label__ham meeting at noon {i}\n"
                             for i in range(20)), encoding="utf-8")
    model = tmp_path / "m.tnb"
    assert run("train", train, "-o", model)[0] == 0
    test = tmp_path / "test.txt"
    test.write_text("__label__spam __label__spam buy cheap pills\n__label__ham meeting noon\n", encoding="utf-8")
    code, out, err = run("test", model, test)
    assert code == 0, err
    assert out == "N\t2\nP@1\t1\nR@1\t0.667\n"  # 2 correct of 2 predictions, of 3 labels to recall
    rec = json.loads(run("test", model, test, "--json")[1])
    assert (rec["gold"], rec["predicted"], rec["correct"]) == (3, 2, 2)
    # the same line with the label once: 2 labels to recall
    test.write_text("__label__spam buy cheap pills\n__label__ham meeting noon\n", encoding="utf-8")
    assert run("test", model, test)[1] == "N\t2\nP@1\t1\nR@1\t1\n"


def test_predict_of_a_multi_label_model_on_a_fasttext_file_prints_its_accuracy(tmp_path):
    """Found by a user trial: a single-label model's predict of a labelled fastText file printed
    its accuracy on stderr (P@1: the top label one of the line's), a multi-label model's
    nothing, where docs/fasttext.md promises it of every model."""
    from conftest import MULTI

    corpus = tmp_path / "ml.ft"
    corpus.write_text(MULTI, encoding="utf-8")
    model = tmp_path / "ml.tnb"
    assert run("train", corpus, "-o", model)[0] == 0
    rc, out, err = run("predict", model, corpus, "--json")
    assert rc == 0, err
    lines = MULTI.splitlines()
    records = [json.loads(line) for line in out.splitlines()]
    assert len(records) == len(lines)
    rc, out, _ = run("predict", model, corpus, "--top", "1", "--json")
    top = [json.loads(line)["labels"][0]["label"] for line in out.splitlines()]
    right = sum(f"__label__{t}" in line.split() for t, line in zip(top, lines))
    assert err == f"{corpus}: accuracy {right / len(lines):.4f} ({right} of {len(lines)} lines with a label)\n"


@pytest.mark.parametrize("multilabel", [False, True])
def test_inspect_says_the_label_prefix_a_model_reads_by(tmp_path, multilabel):
    """``inspect`` shows the prefix a model reads fastText files by (``--json``:
    ``label_prefix``, ``__label__`` for a model that keeps none; the text output a line when
    it is another), so that what a merged model kept can be seen (it could not: found by a
    user trial)."""
    rows = _sms_rows(120)
    tagged = tmp_path / "hash.txt"
    tagged.write_text("\n".join(f"#{lab}" + (" #long" if multilabel and len(text) > 80 else "") + f" {text}"
                                for lab, text in rows) + "\n", encoding="utf-8")
    plain = tmp_path / "plain.txt"
    plain.write_text(tagged.read_text(encoding="utf-8").replace("#", "__label__"), encoding="utf-8")
    for name, path, extra in (("h", tagged, ["--label-prefix", "#"]), ("p", plain, [])):
        code, _, err = run("train", path, *extra, "-o", tmp_path / f"{name}.tnb")
        assert code == 0, err
    code, out, err = run("inspect", tmp_path / "h.tnb", "--json")
    assert code == 0 and json.loads(out)["label_prefix"] == "#", err
    code, out, err = run("inspect", tmp_path / "p.tnb", "--json")
    assert code == 0 and json.loads(out)["label_prefix"] == "__label__", err
    code, out, _ = run("inspect", tmp_path / "h.tnb")
    assert "labels in fastText files: words starting with '#' (not '__label__')" in out
    code, out, _ = run("inspect", tmp_path / "p.tnb")
    assert "labels in fastText files" not in out
def _fasttext_model_file(path):
    """A file that starts as fastText's model files do (its int32 magic 793712314, then its
    version 12), the rest junk; a real one when the ``fasttext`` package is installed."""
    try:
        import fasttext

        train = path.with_suffix(".txt")
        train.write_text("".join(f"__label__a cheap pills {i}\n__label__b lunch at noon {i}\n" for i in range(20)))
        # (fastText 0.9.3 under numpy 2 may stop with "Encountered NaN" at its default lr on so few lines)
        fasttext.train_supervised(input=str(train), epoch=1, lr=0.1, thread=1, verbose=0).save_model(str(path))
    except (ImportError, RuntimeError):  # its file's first bytes: fastText's magic number and version
        path.write_bytes((793712314).to_bytes(4, "little") + (12).to_bytes(4, "little") + bytes(200))
    return path


def test_a_fasttext_model_file_is_said_to_be_one(files, tmp_path):
    """``textnb test x.bin``, ``textnb predict x.bin`` and ``load_model('x.bin')`` of a model file
    fastText wrote said 'not a textnb model file (truncated, or another format)'; they say it is
    fastText's, and how to get a textnb model, in one line."""
    from textnb.fasttext import load_model

    path = _fasttext_model_file(tmp_path / "x.bin")
    said = "x.bin: a fastText model file, not a textnb model; train a textnb model on its training file with " \
           "textnb train FILE"
    for argv in (["test", path, files / "test.txt"], ["predict", path, files / "test.txt"], ["inspect", path]):
        code, out, err = run(*argv)
        assert code == 1 and out == "" and err.count("\n") == 1 and said in err, err
    with pytest.raises(Exception, match=re.escape(said)):
        load_model(str(path))


@pytest.mark.parametrize("k, hint", [("2", "(for the 2 best labels: --top 2)"), ("-1", "(for every label: --top -1)"),
                                     ("1", "(for the best label: --top 1)"),
                                     ("0.5", "(for the labels of probability 0.5 or more: --threshold 0.5)")])
def test_predict_of_fasttexts_positional_k_says_which_option_it_is(files, models, k, hint, tmp_path, monkeypatch):
    """fastText's ``predict MODEL FILE 2`` (K, then TH, as positional arguments): ``textnb predict``
    read '2' as a PATH and said '2: no such file or folder'; the error now names the option."""
    monkeypatch.chdir(tmp_path)  # (no file named 2 here)
    for model in models:
        code, out, err = run("predict", model, files / "test.txt", k)
        assert code == 1 and out == "" and err == f"textnb: error: {k}: no such file or folder {hint}\n"
    code, _, err = run("predict", models[0], files / "test.txt", "nothere")  # (any other missing PATH: as before)
    assert code == 1 and err == "textnb: error: nothere: no such file or folder\n"


def test_a_file_of_labels_the_model_does_not_know_is_said_so(files, models, tmp_path):
    """Found by a user trial: ``textnb test`` of a file whose lines have no label the model
    knows printed ``N 0``, ``P@1 nan``, ``R@1 nan`` (fastText's figures), exit 0, and nothing
    on stderr; it still does, with a warning line saying why."""
    single, multi = models
    (tmp_path / "unk.ft").write_text("__label__zz hello there\n__label__yy free prize\n")
    for model in (single, multi):
        code, out, err = run("test", model, tmp_path / "unk.ft")
        assert code == 0 and out == "N\t0\nP@1\tnan\nR@1\tnan\n", out
        assert err.count("\n") == 1 and "warning: " in err and "unk.ft: no line has a label the model knows" in err, err
    code, out, err = run("test", single, files / "test.txt")
    assert code == 0 and err == "", err
