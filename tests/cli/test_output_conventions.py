"""Conventions of the command line's outputs (session 27): a TSV/CSV label that is a list
of labels, strict JSON for names that are not UTF-8, the evaluate table with long class
names."""

import json
import os
import shutil
import subprocess
import warnings

import pytest

from conftest import cli
from textnb.core.errors import DataWarning
from textnb.io.corpus import open_corpus

ROWS = ["spam\tbuy cheap pills now", "ham\tmeeting at noon", "spam\tcheap pills offer", "ham\tlunch at noon",
        "spam\twin cash now", "ham\tsee you at the meeting"]


def _corpus(path, extra=()):
    path.write_text("label\ttext\n" + "\n".join([*ROWS[:3], *extra, *ROWS[3:]]) + "\n", encoding="utf-8")
    return path


def test_a_tsv_label_holding_a_comma_is_one_warning_naming_the_file_and_line(tmp_path):
    """A single-label TSV corpus whose label cell is ``spam,ham`` (a label list, as a
    multi-label label file writes one) is read as one class named so, as before, but no
    longer silently: one warning naming FILE:LINE and pointing at the multi-label inputs,
    as a folder corpus with a document in several class folders is warned about."""
    path = _corpus(tmp_path / "c.tsv", ["spam,ham\tcheap lunch meeting", "ham,spam\tpills at noon"])
    with pytest.warns(DataWarning, match=r"c\.tsv:5: the label 'spam,ham' holds a comma .*1 other row.*"
                                         r"--multilabel"):
        corpus = open_corpus(path)
    assert "spam,ham" in corpus.labels  # (still read as it was: one class of that name)
    for command in (("train", path, "-o", tmp_path / "m.tnb"), ("evaluate", path, "--cv", 2)):
        rc, out, err = cli(*command)
        assert rc == 0, err
        warned = [line for line in err.splitlines() if "holds a comma" in line]
        assert len(warned) == 1 and warned[0].startswith("textnb: warning: ") and f"{path}:5:" in warned[0]
    with warnings.catch_warnings():  # a corpus without such a label: no warning
        warnings.simplefilter("error", DataWarning)
        open_corpus(_corpus(tmp_path / "plain.tsv"))


def _strings(obj):
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield k
            yield from _strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _strings(v)


def _check_strict_json(out):
    """Every line of ``out`` is JSON whose strings are all valid Unicode (no lone
    surrogate: what strict parsers refuse and jq turns into U+FFFD); read by jq when it is
    installed, without a replacement character. Returns the strings."""
    found = []
    for line in out.splitlines():
        for text in _strings(json.loads(line)):
            text.encode("utf-8")  # (a lone surrogate: UnicodeEncodeError)
            found.append(text)
    if shutil.which("jq"):
        done = subprocess.run(["jq", "-c", "."], input=out.encode("utf-8"), capture_output=True, check=False)
        assert done.returncode == 0 and "\ufffd" not in done.stdout.decode("utf-8"), done.stderr
    return found


@pytest.mark.skipif(os.name != "posix", reason="file names of any bytes: POSIX")
def test_json_outputs_with_names_that_are_not_utf8_are_strict_json(tmp_path):
    """``--json`` of train, predict, evaluate, inspect and test with a class folder and file
    names holding bytes that are not UTF-8 (``sp\\xffam``): each such byte is written
    ``\\xNN`` (as stderr's messages write it), so strict parsers and jq read every output
    and no two names become the same U+FFFD (*was*: ``"sp\\udcffam"``, a lone surrogate
    escape, refused by strict parsers, read by jq as ``sp\ufffdam``)."""
    root = os.fsencode(tmp_path / "corpus")
    for label, texts in ((b"sp\xffam", ["buy cheap pills now", "cheap pills offer", "win cash now"]),
                         (b"ham", ["meeting at noon", "lunch at noon today", "see you at the meeting"])):
        os.makedirs(os.path.join(root, label))
        for i, text in enumerate(texts):
            with open(os.path.join(root, label, b"d\xfe%d.txt" % i), "wb") as f:
                f.write(text.encode())
    corpus, model = os.fsdecode(root), tmp_path / "m.tnb"
    ft = tmp_path / os.fsdecode(b"t\xff.txt")
    ft.write_text("__label__ham meeting today\n", encoding="utf-8")
    outputs = {}
    for command in (("train", corpus, "-o", model, "--json"), ("predict", model, corpus, "--json", "--proba"),
                    ("predict", model, corpus, "--json", "--top", 2), ("evaluate", corpus, "--cv", 3, "--json"),
                    ("inspect", model, "--json"), ("test", model, ft, "--json")):
        rc, out, err = cli(*command)
        assert rc == 0, (command, err)
        outputs[command[0] + str(len(outputs))] = _check_strict_json(out)
    assert "sp\\xffam" in outputs["train0"] and "sp\\xffam" in outputs["evaluate3"]
    assert any(s.endswith("sp\\xffam/d\\xfe0.txt") for s in outputs["predict1"])
    assert any(s.endswith("t\\xff.txt") for s in outputs["test5"])


def test_evaluate_table_columns_stay_in_line_with_long_and_wide_class_names(tmp_path):
    """The per-class table and the confusion matrix of ``evaluate`` keep their columns in
    line: a class name longer than 40 columns is cut in the middle around an ellipsis
    (its start and end kept), East Asian wide characters count two columns; ``--json``
    keeps the whole names as its keys (*was*: the table as wide as the longest name, and a
    wide-character name pushed its row's figures 9 columns right)."""
    from textnb.cli.output import display_width

    long_name = "a" * 150 + "-END"
    names = ["short", long_name, "日本語のクラス名前", "x" * 10]
    path = tmp_path / "c.tsv"
    path.write_text("".join(f"{names[i % 4]}\tword{i % 4} other{i % 4} common{i}\n" for i in range(40)),
                    encoding="utf-8")
    rc, out, err = cli("evaluate", path, "--cv", 2)
    assert rc == 0, err
    lines = out.splitlines()
    start = lines.index(next(line for line in lines if line.startswith("class ")))
    table = lines[start:start + 5]
    ends = {display_width(line[:line.index("1.0000")]) if "1.0000" in line else None for line in table[1:]}
    assert len(ends) == 1 and len({display_width(line) for line in table}) == 1, table
    assert any(line.startswith("a" * 20 + "\u2026") and "-END" in line for line in table)
    assert max(display_width(line) for line in table) < 90
    matrix = lines[lines.index(next(line for line in lines if line.startswith("confusion"))) + 1:][:5]
    assert len({display_width(line) for line in matrix}) == 1, matrix
    rc, out, _ = cli("evaluate", path, "--cv", 2, "--json")
    report = json.loads(out)
    assert set(report["per_class"]) == set(names) and long_name in report["classes"]


def test_labels_holding_a_tab_or_a_newline_are_escaped_in_every_text_output(tmp_path):
    """Found by a user trial: predict escaped such labels (a\\tb, x=y\\nz) but the train
    summary, inspect and evaluate printed them raw, splitting their lines and columns."""
    import json as json_module

    corpus = tmp_path / "weird.jsonl"
    corpus.write_text("".join(json_module.dumps({"label": label, "text": f"{text} {i}"}) + "\n" for i in range(10)
                              for label, text in (("a\tb", "apple banana"), ("x=y\nz", "zebra yak"))))
    model = tmp_path / "m.tnb"
    outputs = [cli("train", corpus, "--model", "multinomial", "-o", model),
               cli("inspect", model), cli("evaluate", corpus, "--model", "multinomial", "--cv", "2"),
               cli("predict", model, "--lines", "-", stdin=b"apple\nzebra\n")]
    for rc, out, err in outputs:
        assert rc == 0, err
        assert "x=y\nz" not in out and "a\tb" not in out
        assert "x=y\\nz" in out and "a\\tb" in out


@pytest.mark.parametrize("lazy", ["lbr", "hlbr"])
def test_inspect_of_a_lazy_text_model_gives_its_documents_per_class(tmp_path, lazy):
    """Found by a user trial: inspect of a --lazy text model said 'classes: 2' alone and its
    --json "class_count": [], where every other model gives its documents per class."""
    import json as json_module

    from conftest import SMS_TSV

    rows = SMS_TSV.read_text(encoding="utf-8").splitlines()[:400]
    corpus = tmp_path / "c.tsv"
    corpus.write_text("\n".join(rows) + "\n", encoding="utf-8")
    model = tmp_path / "m.tnb"
    assert cli("train", corpus, "--lazy", lazy, "-o", model)[0] == 0
    rc, out, err = cli("inspect", model, "--json")
    assert rc == 0, err
    info = json_module.loads(out)
    labels = [row.split("\t", 1)[0] for row in rows]
    assert info["class_count"] == [float(labels.count(c)) for c in info["classes"]]


def _weird_table(path):
    """A CSV table whose class names hold a newline, a nominal value a TAB, an attribute
    name an ESC, and a text column's words an ESC and a BEL."""
    import csv

    rows = [["col\x1bor", "num", "txt", "cls"]]
    for i in range(20):
        rows.append([("red", "blue\tgreen")[i % 3 == 0], str(i % 5), ("a\x1bb x", "cc \x07dd")[i % 4 == 0],
                     "x\nFAKE: forged line" if i % 2 else "plain"])
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(rows)
    return path


def _forges_nothing(out):
    """``out`` holds no raw TAB, ESC or BEL, and no line begins with what a newline inside
    a name or a term would have put at a line start."""
    assert not any(ch in out for ch in "\t\x1b\x07"), out
    assert not any(line.startswith("FAKE") for line in out.splitlines()), out


@pytest.mark.parametrize("options", [["--ignore", "txt,num"], ["--ignore", "txt", "--model", "tan"],
                                     ["--ignore", "txt", "--model", "aode"], ["--ignore", "txt", "--lazy", "lbr"],
                                     ["--text-column", "txt", "--token-pattern", r"\S+"]],
                         ids=["nb", "tan", "aode", "lbr", "mixed"])
def test_inspect_of_a_table_model_escapes_its_names_and_values(tmp_path, options):
    """Found by a hunt (session 49): ``inspect`` of a table or mixed model printed class
    names, nominal values and attribute names raw (a newline in a class name forged a line,
    a TAB in a value a column), where ``predict`` and ``evaluate`` escape them (robustness
    row 725): each is escaped as a field of tab-separated output is."""
    model = tmp_path / "m.tnb"
    rc, _, err = cli("train", _weird_table(tmp_path / "t.csv"), *options, "-o", model)
    assert rc == 0, err
    rc, out, err = cli("inspect", model)
    assert rc == 0, err
    _forges_nothing(out)
    assert "x\\nFAKE: forged line" in out and "col\\x1bor" in out
    if "tan" not in options and "aode" not in options:  # (these list their attributes alone)
        assert "blue\\tgreen" in out


def test_inspect_escapes_terms_as_predict_explain_does(tmp_path):
    """Found by a hunt (session 49): a text model read with ``--token-pattern '\\S+'`` has
    terms holding ESC and BEL; ``predict --explain`` escaped them, ``inspect`` wrote them
    to the terminal as they are (a title set, the screen cleared). Now every inspect
    branch (text, mixed, multi-label; a spam model's, whose mail tokens hold no control
    character, through the same :func:`textnb.cli.output.terms_text`) escapes them as
    --explain does."""

    corpus = tmp_path / "c"
    (corpus / "a").mkdir(parents=True)
    (corpus / "b").mkdir()
    (corpus / "a" / "1.txt").write_text("hello \x1b]0;pwned\x07x \x1b[2Jclear\tnow\n")
    (corpus / "b" / "1.txt").write_text("bye now\n")
    text = tmp_path / "text.tnb"
    assert cli("train", corpus, "--model", "multinomial", "--token-pattern", r"\S+", "-o", text)[0] == 0
    labels = tmp_path / "ml.jsonl"
    labels.write_text("".join(json.dumps({"labels": ["p", "q"] if i % 2 else ["q"],
                                          "text": f"hi\x1bthere w{i} \x07bel"}) + "\n" for i in range(10)))
    multilabel = tmp_path / "ml.tnb"
    assert cli("train", labels, "--multilabel", "--token-pattern", r"\S+", "-o", multilabel)[0] == 0
    mixed = tmp_path / "mixed.tnb"
    assert cli("train", _weird_table(tmp_path / "t.csv"), "--text-column", "txt", "--token-pattern", r"\S+",
               "-o", mixed)[0] == 0
    for model, escaped in ((text, "\\x1b]0;pwned\\x07x"), (multilabel, "hi\\x1bthere"), (mixed, "a\\x1bb")):
        rc, out, err = cli("inspect", model)
        assert rc == 0, err
        _forges_nothing(out)
        assert escaped in out, out
    rc, explained, err = cli("predict", text, corpus / "a" / "1.txt", "--explain")
    assert rc == 0, err
    assert "\\x1b]0;pwned\\x07x +" in explained and "\\x1b]0;pwned\\x07x (" in cli("inspect", text)[1]


def test_inspect_writes_a_log_odds_as_predict_explain_does(tmp_path):
    """Found by a hunt (session 49): inspect wrote a term's log-odds with two decimals, a
    small negative one as ``-0.00`` (and a small positive one as ``0.00``) where ``predict
    --explain`` writes three significant digits: one formatter for both now, never a
    negative zero."""
    corpus = tmp_path / "c"
    (corpus / "a").mkdir(parents=True)
    (corpus / "b").mkdir()
    (corpus / "a" / "1.txt").write_text("common " * 100 + " ".join(f"aa{i}" for i in range(900)))
    (corpus / "b" / "1.txt").write_text("common " * 100 + " ".join(f"bb{i}" for i in range(901)))
    model = tmp_path / "m.tnb"
    assert cli("train", corpus, "--model", "multinomial", "-o", model)[0] == 0
    rc, out, err = cli("inspect", model, "--top", 2000)
    assert rc == 0, err
    assert "common (0.000357)" in out and "common (-0.000357)" in out and "0.00)" not in out
    from textnb.cli.output import amount

    assert [amount(-0.0), amount(-0.0, sign=False), amount(-0.004), amount(0.5, sign=False)] == \
        ["+0.00", "0.00", "-0.004", "0.50"]


def test_a_label_holding_a_lone_surrogate_is_written_escaped_never_an_internal_error(tmp_path, monkeypatch):
    """A label holding a lone surrogate (a library caller's ``"a\\ud800"``; a class folder's
    byte that is not UTF-8 is ``\\udcff`` and written back as that byte) is written ``\\ud800``
    by ``textnb predict``, ``inspect`` and ``topicfilter``, whose folder for it is named so
    (*was*: an internal error, UnicodeEncodeError, from each, after training wrote the model)."""
    import io
    import sys

    import textnb
    from textnb.cli.commands import main
    from textnb.cli.mailcli import topicfilter

    model, doc = tmp_path / "m.tnb", tmp_path / "d.txt"
    clf = textnb.TextClassifier(model=textnb.MultinomialNB()).fit(["good one", "bad one"], ["a\ud800", "b\udcff"])
    clf.save(model)
    doc.write_text("good\n", encoding="utf-8")

    def run(command, *args):
        written = io.BytesIO()
        monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(written, encoding="utf-8", errors="strict"))
        rc = command([str(a) for a in args])
        sys.stdout.flush()
        return rc, written.getvalue()

    rc, out = run(main, "predict", model, doc)
    assert rc == 0 and out == f"{doc}\ta\\ud800\n".encode()
    rc, out = run(main, "inspect", model)
    assert rc == 0 and b"a\\ud800" in out and b"b\xff" in out
    rc, out = run(topicfilter, "-m", model, "-o", tmp_path / "out", "--uncalibrated", doc)
    assert rc == 0 and b"\ta\\ud800\t" in out
    assert os.listdir(tmp_path / "out") == ["a\\ud800"]
