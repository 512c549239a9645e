"""Session 25 (s25-cli): the side files (--labels, --stop-words, --structure) read from
standard input or a pipe, as PATH is; standard input named stdin in messages; merge naming
--interval-fit; --model auto's 10 folds stated beside SmoothingCV()'s 5."""

import json
import os
import re
import threading
from pathlib import Path

import pytest

from conftest import cli, one_error_line

REPO = Path(__file__).resolve().parents[2]
WEATHER = REPO / "corpora" / "weather.nominal.arff"
NUMERIC = REPO / "corpora" / "weather.numeric.arff"
CORPUS = "spam\tcheap pills now\nham\tlunch at noon\nspam\twin a prize now\nham\tsee you at noon\n"


def _corpus(tmp_path):
    path = tmp_path / "c.tsv"
    path.write_text(CORPUS)
    return path


def _folder(tmp_path):
    root = tmp_path / "docs"
    root.mkdir()
    lines = []
    for i in range(4):
        (root / f"s{i}.txt").write_text(f"ball goal match {i}\n")
        (root / f"n{i}.txt").write_text(f"today vote report {i}\n")
        lines += [f"s{i}\tsport\n", f"n{i}\tnews\n"]
    labels = tmp_path / "labels.tsv"
    labels.write_text("".join(lines))
    return root, labels


def _fifo(tmp_path, data):
    """A FIFO with a writer that writes ``data`` once (bytes) and closes it."""
    fifo = tmp_path / "side.fifo"
    os.mkfifo(fifo)

    def write():
        with open(fifo, "wb") as f:
            f.write(data)

    threading.Thread(target=write, daemon=True).start()
    return fifo


@pytest.mark.parametrize("how", ["-", "fifo"])
def test_stop_words_from_standard_input_or_a_fifo(tmp_path, how):
    """`--stop-words -` said '-: no such file', a FIFO 'not a regular file'; now each is read
    once (train reads the list twice: before its clock and to fit), the same model as the file."""
    corpus, words = _corpus(tmp_path), b"now\nat\n"
    (tmp_path / "sw.txt").write_bytes(words)
    rc, want, err = cli("train", corpus, "--stop-words", tmp_path / "sw.txt", "-o", tmp_path / "a.tnb", "--json")
    assert rc == 0, err
    side = "-" if how == "-" else _fifo(tmp_path, words)
    rc, out, err = cli("train", corpus, "--stop-words", side, "-o", tmp_path / "b.tnb", "--json",
                       stdin=words if how == "-" else None)
    assert rc == 0, err
    assert json.loads(out)["vocabulary_size"] == json.loads(want)["vocabulary_size"] == 8
    assert (tmp_path / "a.tnb").read_bytes() == (tmp_path / "b.tnb").read_bytes()


def test_stop_words_from_standard_input_through_every_fold(tmp_path):
    corpus = _corpus(tmp_path)
    (tmp_path / "sw.txt").write_bytes(b"now\nat\n")
    rc, want, _ = cli("evaluate", corpus, "--stop-words", tmp_path / "sw.txt", "--cv", "2", "--json")
    rc2, out, err = cli("evaluate", corpus, "--stop-words", "-", "--cv", "2", "--json", stdin=b"now\nat\n")
    assert rc == rc2 == 0, err
    got, expected = json.loads(out), json.loads(want)
    assert got["accuracy"] == expected["accuracy"] and got["confusion_matrix"] == expected["confusion_matrix"]


def test_a_label_file_from_standard_input(tmp_path):
    root, labels = _folder(tmp_path)
    rc, want, err = cli("train", root, "--labels", labels, "-o", tmp_path / "a.tnb", "--json")
    assert rc == 0, err
    rc, out, err = cli("train", root, "--labels", "-", "-o", tmp_path / "b.tnb", "--json", stdin=labels.read_bytes())
    assert rc == 0, err
    assert json.loads(out)["per_label"] == json.loads(want)["per_label"] == {"news": 4, "sport": 4}
    rc, out, err = cli("evaluate", root, "--labels", "-", "--cv", "2", "--json", stdin=labels.read_bytes())
    assert rc == 0 and json.loads(out)["n"] == 8, err
    rc, _, err = cli("train", root, "--labels", "-", "-o", tmp_path / "c.tnb", stdin=b"s0 sport\n")
    assert rc == 1
    one_error_line(err, "stdin:1: expected 'docid<TAB>label1,label2'")


@pytest.mark.parametrize("fmt", ["jsonl", "fasttext"])
def test_a_multilabel_corpus_from_standard_input(tmp_path, fmt):
    """``train - --multilabel`` and ``evaluate - --multilabel`` read a JSON Lines or fastText
    corpus from a pipe as from its file (the same model, byte for byte, and the same figures);
    what a pipe cannot hold (a folder per label) and an empty one are one line each."""
    rows = [("cheap pills buy now", ["spam", "ads"]), ("meeting at noon today", ["work"]),
            ("buy cheap now", ["ads"]), ("lunch meeting", ["work", "food"])] * 8
    if fmt == "jsonl":
        text = "".join(json.dumps({"text": t, "labels": labels}) + "\n" for t, labels in rows)
    else:
        text = "".join(" ".join(f"__label__{lab}" for lab in labels) + " " + t + "\n" for t, labels in rows)
    (tmp_path / "corpus.txt").write_text(text, encoding="utf-8")
    rc, _, err = cli("train", tmp_path / "corpus.txt", "--multilabel", "-o", tmp_path / "file.tnb")
    assert rc == 0, err
    rc, _, err = cli("train", "-", "--multilabel", "-o", tmp_path / "pipe.tnb", stdin=text.encode())
    assert rc == 0, err
    assert (tmp_path / "pipe.tnb").read_bytes() == (tmp_path / "file.tnb").read_bytes()
    rc, want, err = cli("evaluate", tmp_path / "corpus.txt", "--multilabel", "--cv", "2", "--json")
    assert rc == 0, err
    rc, out, err = cli("evaluate", "-", "--multilabel", "--cv", "2", "--json", stdin=text.encode())
    assert rc == 0, err
    assert json.loads(out)["micro_f1"] == json.loads(want)["micro_f1"] and json.loads(out)["n"] == 32
    rc, _, err = cli("train", "-", "--multilabel", "-o", tmp_path / "c.tnb", stdin=b"ads\tcheap pills\n")
    assert rc == 1 and not (tmp_path / "c.tnb").exists()
    one_error_line(err, "stdin: not a multi-label corpus")
    rc, _, err = cli("train", "-", "--multilabel", "-o", tmp_path / "c.tnb", stdin=b"")
    assert rc == 1
    one_error_line(err, "stdin: standard input is empty")


def test_a_structure_file_from_standard_input(tmp_path):
    structure = b'{"parents": {"windy": ["play", "outlook"]}}'
    (tmp_path / "s.json").write_bytes(structure)
    rc, want, err = cli("evaluate", WEATHER, "--model", "bn", "--structure", tmp_path / "s.json", "--cv", "2", "--json")
    assert rc == 0, err
    rc, out, err = cli("evaluate", WEATHER, "--model", "bn", "--structure", "-", "--cv", "2", "--json", stdin=structure)
    assert rc == 0, err
    assert json.loads(out)["accuracy"] == json.loads(want)["accuracy"]
    rc, _, err = cli("train", WEATHER, "--model", "bn", "--structure", "-", "-o", tmp_path / "m.tnb",
                     stdin=b'{"parents": {"outlook": "x"}}')
    assert rc == 1
    one_error_line(err, "stdin: parents of 'outlook' must be a list of names")


@pytest.mark.parametrize("argv, first, second", [
    (["train", "-", "--stop-words", "-"], "PATH", "--stop-words"),
    (["train", "DOCS", "--labels", "-", "--structure", "/dev/stdin"], "--labels", "--structure"),
    (["evaluate", "C", "--test", "-", "--stop-words", "/dev/stdin"], "--test", "--stop-words"),
    (["evaluate", "-", "--test", "-"], "PATH", "--test"),
], ids=["path-stop-words", "labels-structure", "test-stop-words", "path-test"])
def test_standard_input_given_to_two_options_is_refused_in_one_line(tmp_path, argv, first, second):
    corpus, (root, _) = _corpus(tmp_path), _folder(tmp_path)
    argv = [corpus if a == "C" else root if a == "DOCS" else a for a in argv]
    extra = ["-o", tmp_path / "m.tnb"] if argv[0] == "train" else []
    rc, out, err = cli(*argv, *extra, stdin=CORPUS.encode())
    assert rc == 1 and out == ""
    assert one_error_line(err) == (f"textnb: error: standard input given as {first} and as {second}: "
                                   "it can be read once")
    assert not (tmp_path / "m.tnb").exists()


@pytest.mark.parametrize("argv, stdin, message", [
    (["train", "-"], b"spam\tcheap pills\nham\tlunch\nspam\n", "stdin:3: row has 1 cell, expected 2"),
    (["train", "-"], WEATHER.read_bytes().replace(b"sunny,hot,high,FALSE,no", b"foggy,hot,high,FALSE,no", 1),
     "stdin:"),
    (["evaluate", NUMERIC, "--test", "-"], b"a,class\n1,p\n2,q\n1,p,5\n", "stdin:4: row has 3 cells, expected 2"),
    (["train", "-"], b"\0\0\0", "stdin: binary file"),
    (["train", "-"], b"", "stdin: standard input is empty"),
], ids=["tsv-row", "arff-value", "test-csv-row", "binary", "empty"])
def test_data_read_from_standard_input_is_named_stdin(tmp_path, argv, stdin, message):
    """Errors about data given as `-` named it '-' ('-:3: row has 1 cell'), 'stdin' when it was
    empty; now 'stdin', the name predict's output gives it, chosen in one place (core.errors.input_name)."""
    extra = ["-o", tmp_path / "m.tnb"] if argv[0] == "train" else []
    rc, out, err = cli(*argv, *extra, stdin=stdin)
    assert rc == 1 and out == ""
    line = one_error_line(err, message)
    assert not line.startswith("textnb: error: -")


def test_merge_names_the_interval_fit_flag(tmp_path):
    """Merging parts fitted with other --interval-fit values said 'different interval_fit', and
    two censored parts 'interval_fit='censored' ... use interval_fit='theorem1'': now the flag."""
    data = tmp_path / "u.csv"
    data.write_text('temp,class\n"[1,2]",a\n"[1.5,2.5]",a\n"[5,6]",b\n"[6,7.5]",b\n')
    for name, fit in (("c1", "censored"), ("c2", "censored"), ("t", "theorem1")):
        assert cli("train", data, "--interval-fit", fit, "-o", tmp_path / f"{name}.tnb")[0] == 0
    rc, _, err = cli("merge", tmp_path / "c1.tnb", tmp_path / "t.tnb", "-o", tmp_path / "m.tnb")
    assert rc == 1
    line = one_error_line(err, "different --interval-fit ('censored' and 'theorem1')")
    assert "interval_fit" not in line
    rc, _, err = cli("merge", tmp_path / "c1.tnb", tmp_path / "c2.tnb", "-o", tmp_path / "m.tnb")
    assert rc == 1
    line = one_error_line(err, "--interval-fit censored fits", "--interval-fit theorem1")
    assert "interval_fit" not in line and "train with fit" not in line


def test_model_auto_states_its_folds_beside_smoothingcv_default(tmp_path, capsys):
    """`--model auto` stores cv=10 while SmoothingCV()'s default is 5 (both documented: the README's
    10-fold --model auto, the class's cv=5 as every estimator's); the help said neither: now it
    says the number of folds the model stores, and the library default beside it."""
    from textnb.core.model_io import read_nodes
    from textnb.meta.smoothing import SmoothingCV

    rc, out, _ = cli("train", "--help")  # (argparse prints the help to sys.stdout)
    assert rc == 0
    text = " ".join((out + capsys.readouterr().out).split())
    said = re.search(r"auto: [^;]*?chosen by (\d+)-fold cross-validation", text)
    assert said, text
    assert "SmoothingCV() default is 5" in text and SmoothingCV().cv == 5
    assert "SmoothingCV(cv=10)" in SmoothingCV.__doc__
    corpus = _corpus(tmp_path)
    assert cli("train", corpus, "--model", "auto", "-o", tmp_path / "m.tnb")[0] == 0
    node = read_nodes(tmp_path / "m.tnb").params["model"]
    assert node.kind == "SmoothingCV" and node.params["cv"] == int(said.group(1)) == 10
