"""The one progress helper of the command line (textnb.cli.progress.Progress): tqdm on a
terminal when installed, the plain one-line bar otherwise, silent when not a terminal;
`textnb predict` over many files shows it (issue 19)."""

import fcntl
import io
import os
import pty
import select
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from textnb.cli import evaluate, filterbase, mailfilters, predict, predict_inputs, train
from textnb.cli.progress import Progress

REPO = Path(__file__).resolve().parents[2]


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_silent_when_not_a_terminal():
    stream = io.StringIO()
    bar = Progress("reading", total=10, stream=stream)
    for i in range(11):
        bar(i)
    bar.close()
    assert stream.getvalue() == "" and not bar.enabled


def test_fallback_bar_without_tqdm(monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)  # import tqdm raises ImportError
    stream = Terminal()
    bar = Progress("reading", total=4, stream=stream)
    bar(4)
    bar.close()
    assert "\rreading [" + "#" * 30 + "] 4/4" in stream.getvalue() and stream.getvalue().endswith("\r\033[K")


@pytest.mark.parametrize("columns", [30, 12, 0])
def test_fallback_bar_fits_the_terminal(monkeypatch, columns):
    """Found by a hunt (session 49): without tqdm the bar was 30 characters whatever the
    terminal's width, so on a terminal narrower than its line (about 50 columns) each
    redraw wrapped and left a line behind. It fits the terminal's width now (its bar
    narrower, then left out, then the line cut), as tqdm's does; a terminal of no size is
    taken as FALLBACK_COLUMNS wide."""
    from textnb.cli import progress

    monkeypatch.setitem(sys.modules, "tqdm", None)
    clock = iter(range(1, 100))
    monkeypatch.setattr(progress.time, "monotonic", lambda: float(next(clock)))
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24 if columns else 0, columns, 0, 0))
    stream = os.fdopen(slave, "w", buffering=1)
    try:
        with Progress("classifying", total=5574, stream=stream, unit="doc") as bar:
            for done in (1, 2000, 5574):
                bar(done)
        stream.flush()
        drawn = ""
        while not drawn.endswith("\r\033[K"):  # (up to the bar's clearing: a pty passes it on in parts)
            ready, _, _ = select.select([master], [], [], 10)
            assert ready, drawn
            drawn += os.read(master, 65536).decode()
    finally:
        stream.close()
        os.close(master)
    lines = [line.replace("\033[K", "") for line in drawn.split("\r") if line.replace("\033[K", "")]
    assert "\n" not in drawn and len(lines) == 3, drawn
    assert max(map(len, lines)) <= (columns or progress.FALLBACK_COLUMNS) - 1, lines
    assert lines[-1].rstrip() == {30: "classifying [#####] 5574/5574", 12: "classifying",
                         0: "classifying [" + "#" * 30 + "] 5574/5574"}[columns]


def test_fallback_bar_follows_a_terminal_made_narrower(monkeypatch):
    """The plain bar's width is the terminal's at each redraw; a line shorter than the one
    before is padded over it, within the width."""
    from textnb.cli import progress

    monkeypatch.setitem(sys.modules, "tqdm", None)
    sizes = iter([(80, 24), (30, 24)])
    monkeypatch.setattr(progress, "_terminal_size", lambda stream: next(sizes))
    stream = Terminal()
    bar = Progress("reading", total=4, stream=stream)
    bar(1)
    bar._last = 0.0  # (the plain bar redraws at most every 0.1 s)
    bar(2)
    first, second = stream.getvalue().split("\r")[1:]
    assert first == "reading [" + "#" * 7 + "-" * 23 + "] 1/4"
    assert second == "reading [" + "#" * 7 + "-" * 8 + "] 2/4" and len(second) == 29


def test_tqdm_on_a_terminal():
    pytest.importorskip("tqdm")
    stream = Terminal()
    with Progress("classifying", stream=stream, unit="doc") as bar:
        for i in range(1, 6):
            bar(i)
        assert bar._tqdm is not None and bar._tqdm.n == 5
    assert "classifying" in stream.getvalue() and "doc" in stream.getvalue()


def _drawn_on_a_pty(columns):
    """What a tqdm bar of 5 steps writes to a pty of ``columns`` columns (0: a pty given no
    size, as under ``script -q -c``), and whether it follows the terminal's width."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24 if columns else 0, columns, 0, 0))
    stream = os.fdopen(slave, "w", buffering=1)
    try:
        with Progress("reading", total=5, stream=stream, unit="doc") as bar:
            dynamic = bool(bar._tqdm.dynamic_ncols)
            for i in range(1, 6):
                bar(i)
        stream.flush()
        os.set_blocking(master, False)
        try:
            return os.read(master, 65536).decode(), dynamic
        except BlockingIOError:
            return "", dynamic
    finally:
        stream.close()
        os.close(master)


def test_tqdm_draws_a_bar_on_a_terminal_of_no_width():
    """A pty that reports 0 columns and lines: Progress was enabled but tqdm (dynamic_ncols:
    -1 columns, -1 lines) drew nothing; now a bar of FALLBACK_COLUMNS is drawn. A sized
    terminal is followed as before."""
    pytest.importorskip("tqdm")
    drawn, dynamic = _drawn_on_a_pty(0)
    assert "reading" in drawn and "0/5" in drawn and "|" in drawn and not dynamic
    drawn, dynamic = _drawn_on_a_pty(100)
    assert "reading" in drawn and dynamic


def test_one_helper_everywhere():
    assert filterbase.Progress is Progress
    for module in (train, predict_inputs, evaluate):
        assert module.Progress is Progress
    for module in (train, predict, predict_inputs, evaluate, mailfilters, filterbase):
        source = Path(module.__file__).read_text()
        assert "from tqdm" not in source and 'f"\\r' not in source  # no second bar beside it


def test_merge_shows_a_bar_on_a_terminal_only(tmp_path):
    """``textnb merge`` of many parts (seconds each on a large model) showed nothing while it
    ran: a bar of the parts added up, as train's of the documents read, on a terminal only."""
    from textnb.cli import merge
    from textnb.cli.commands import main

    assert merge.Progress is Progress and "from tqdm" not in Path(merge.__file__).read_text()
    parts = []
    for i, words in enumerate(("cheap pills", "noon lunch", "prize offer")):
        (tmp_path / f"{i}.tsv").write_text(f"spam\t{words} now\nham\tmeeting {words}\n")
        parts.append(str(tmp_path / f"{i}.tnb"))
        assert main(["train", str(tmp_path / f"{i}.tsv"), "--model", "multinomial", "-o", parts[-1]],
                    stdout=io.StringIO(), stderr=io.StringIO()) == 0
    for err, drawn in ((Terminal(), True), (io.StringIO(), False)):
        assert main(["merge", *parts, "-o", str(tmp_path / "m.tnb")], stdout=io.StringIO(), stderr=err) == 0
        assert ("merging" in err.getvalue()) is drawn and (err.getvalue() == "") is not drawn, err.getvalue()


def _stderr_on_a_terminal(argv):
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    out = proc.stdout.read()
    proc.wait(timeout=120)
    os.close(master)
    return proc.returncode, out, b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.slow
def test_predict_over_many_files_shows_a_bar_on_a_terminal_only(tmp_path):
    pytest.importorskip("tqdm")
    for label, text in (("a", "apple banana"), ("b", "car truck")):
        (tmp_path / "c" / label).mkdir(parents=True)
        for i in range(3):
            (tmp_path / "c" / label / f"{i}.txt").write_text(text)
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(300):
        (docs / f"{i}.txt").write_text("apple" if i % 2 else "truck")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    subprocess.run([sys.executable, "-m", "textnb", "train", str(tmp_path / "c"), "-o", str(tmp_path / "m.tnb")],
                   check=True, capture_output=True, env=env, timeout=120)
    argv = [sys.executable, "-m", "textnb", "predict", str(tmp_path / "m.tnb"), str(docs)]
    code, out, tty = _stderr_on_a_terminal(argv)
    assert code == 0 and out.count(b"\n") == 300
    assert "classifying" in tty and "doc" in tty
    r = subprocess.run(argv, capture_output=True, env=env, timeout=120)
    assert r.returncode == 0 and r.stderr == b"" and r.stdout == out


def test_multilabel_train_and_evaluate_show_their_steps_on_a_terminal_only(tmp_path):
    """Reading, counting the terms and fitting (every step that takes seconds on a large
    corpus) each show a line on a terminal; piped, nothing."""
    pytest.importorskip("tqdm")
    words = {"grain": "wheat corn harvest crop", "oil": "crude barrel refinery opec", "money": "dollar yen bank"}
    lines = []
    for i in range(80):
        labs = sorted({list(words)[i % 3], list(words)[(i * 7) % 3]})
        part = "train" if i < 60 else "test"
        (tmp_path / "c" / part).mkdir(parents=True, exist_ok=True)
        (tmp_path / "c" / part / f"d{i}.txt").write_text(" ".join(words[lab] for lab in labs) + f" n{i}")
        lines.append(f"d{i}\t{','.join(labs)}\n")
    (tmp_path / "c" / "labels.tsv").write_text("".join(lines))
    env = dict(os.environ, PYTHONPATH=str(REPO))
    labels = str(tmp_path / "c" / "labels.tsv")
    for argv in ([sys.executable, "-m", "textnb", "train", str(tmp_path / "c" / "train"), "--labels", labels,
                  "-o", str(tmp_path / "m.tnb")],
                 [sys.executable, "-m", "textnb", "evaluate", str(tmp_path / "c"), "--labels", labels]):
        code, out, tty = _stderr_on_a_terminal(argv)
        assert code == 0, tty
        for step in ("reading", "counting terms", "fitting"):
            assert step in tty, (step, tty)
        r = subprocess.run(argv, capture_output=True, env=env, timeout=120)
        assert r.returncode == 0 and r.stderr == b"" and r.stdout.count(b"\n") == out.count(b"\n")


def test_no_bar_when_the_results_go_to_the_same_terminal(tmp_path):
    """`textnb predict M FOLDER` (and `spamfilter --batch`) on a terminal drew the bar on
    stderr while the labels went to the same screen: each label line ran into the bar
    ('classifying: 2457doc [00:00, 24568.68doc/s]docs/02001.txt	ham'). With the results on
    a terminal the bar is off (those lines are the progress); redirected, it is drawn."""
    bar = Progress("classifying", total=10, stream=Terminal(), results=Terminal())
    assert not bar.enabled
    assert Progress("classifying", total=10, stream=Terminal(), results=io.StringIO()).enabled
    with filterbase.progress_bar(Terminal(), "classifying", results=Terminal()) as update:
        assert update is None
    for label, text in (("a", "apple banana"), ("b", "car truck")):
        (tmp_path / "c" / label).mkdir(parents=True)
        for i in range(3):
            (tmp_path / "c" / label / f"{i}.txt").write_text(text)
    from textnb.cli.commands import main

    assert main(["train", str(tmp_path / "c"), "-o", str(tmp_path / "m.tnb")], stdout=io.StringIO(),
                stderr=io.StringIO()) == 0
    for results, drawn in ((Terminal(), False), (io.StringIO(), True)):
        screen = Terminal()
        assert main(["predict", str(tmp_path / "m.tnb"), str(tmp_path / "c")], stdout=results, stderr=screen) == 0
        assert results.getvalue().count("\n") == 6
        assert ("classifying" in screen.getvalue()) == drawn


def test_a_bar_without_a_total_is_drawn_once_its_total_is_known():
    """``evaluate`` on a terminal drew ``folds: 0it`` before the number of folds was known,
    then ``0/5``: a bar made without a total is drawn at its first report, which carries
    it (cross_validate reports ``(0, total)`` before the first fold)."""
    pytest.importorskip("tqdm")
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    stream = os.fdopen(slave, "w", buffering=1)
    try:
        with Progress("folds", stream=stream) as bar:
            assert bar._tqdm is None  # nothing drawn yet
            for i in range(6):
                bar(i, 5)
        stream.flush()
        os.set_blocking(master, False)
        drawn = os.read(master, 65536).decode()
    finally:
        stream.close()
        os.close(master)
    assert "0/5" in drawn and "0it" not in drawn  # (tqdm redraws at most every 0.1 s: 5/5 may not show)


def _commands_bars(tmp_path):
    """A text corpus, a multi-label corpus and a table, and the commands that draw a bar on them."""
    for label, text in (("a", "apple banana"), ("b", "car truck")):
        (tmp_path / "c" / label).mkdir(parents=True)
        for i in range(4):
            (tmp_path / "c" / label / f"{i}.txt").write_text(f"{text} w{i}")
    words = {"grain": "wheat corn", "oil": "crude barrel", "money": "dollar yen"}
    (tmp_path / "ml").mkdir()
    lines = []
    for i in range(12):
        labs = sorted({list(words)[i % 3], list(words)[(i * 7) % 3]})
        (tmp_path / "ml" / f"d{i}.txt").write_text(" ".join(words[lab] for lab in labs) + f" n{i}")
        lines.append(f"d{i}\t{','.join(labs)}\n")
    (tmp_path / "labels.tsv").write_text("".join(lines))
    table = str(REPO / "corpora" / "weather.nominal.arff")
    c, ml, labels = str(tmp_path / "c"), str(tmp_path / "ml"), str(tmp_path / "labels.tsv")
    return [
        (["train", c, "-o", str(tmp_path / "t.tnb")], "reading"),
        (["evaluate", c, "--cv", "2"], "folds"),
        (["evaluate", table, "--cv", "2"], "folds"),
        (["train", ml, "--labels", labels, "-o", str(tmp_path / "ml.tnb")], "fitting"),
        (["evaluate", ml, "--labels", labels, "--cv", "2"], "folds"),
        (["evaluate", ml, "--labels", labels, "--test", ml], "fitting"),
    ]


def test_every_bar_goes_to_mains_stderr(tmp_path, monkeypatch):
    """``main(argv, stdout=..., stderr=...)``: the bars of train, evaluate (text and table) and the
    multi-label paths were drawn on ``sys.stderr``, not on the stream main was given (and, main's
    stream not a terminal, drawn anyway when sys.stderr was one). Every bar goes to main's stream."""
    pytest.importorskip("tqdm")
    from textnb.cli.commands import main

    process_stderr = Terminal()
    monkeypatch.setattr(sys, "stderr", process_stderr)
    for argv, step in _commands_bars(tmp_path):
        screen = Terminal()
        assert main(argv, stdout=io.StringIO(), stderr=screen) == 0, argv
        assert step in screen.getvalue(), (argv, screen.getvalue())
        quiet = io.StringIO()  # main's stream not a terminal: no bar anywhere
        assert main(argv, stdout=io.StringIO(), stderr=quiet) == 0, argv
        assert quiet.getvalue() == "", (argv, quiet.getvalue())
    assert process_stderr.getvalue() == ""


def test_a_bar_needs_its_stream():
    """No bar falls back to sys.stderr: the stream is an argument of every bar."""
    with pytest.raises(TypeError):
        Progress("reading", total=3)


def test_predict_gives_its_bar_the_number_of_documents_when_known(tmp_path, monkeypatch):
    """``textnb predict`` on a terminal counted the documents read with no total
    (``classifying: 0doc [00:00, ?doc/s]``, session 44's user trial); the files it is given
    and the files of its folders are known before any is read, as ``train``'s corpus is: the
    bar gets their number (``0/8`` ... ``8/8``). Standard input among the PATHs: no total,
    as before; an mbox file's messages, known when it is read, grow the total."""
    monkeypatch.setitem(sys.modules, "tqdm", None)  # the plain bar: what it draws is its text
    seen = []

    class Observed(Progress):
        def __call__(self, done, total=None):
            super().__call__(done, total)
            seen.append((done, self.total))

    monkeypatch.setattr(predict_inputs, "Progress", Observed)
    from textnb.cli.commands import main

    model = _tiny_model(tmp_path)
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    for i in range(5):
        (docs / f"{i}.txt").write_text("apple" if i % 2 else "truck")
    for i in range(2):
        (docs / "sub" / f"{i}.txt").write_text("banana")
    (docs / ".hidden").write_text("not read")
    (tmp_path / "one.txt").write_text("car")
    screen = Terminal()
    assert main(["predict", model, str(docs), str(tmp_path / "one.txt")], stdout=io.StringIO(), stderr=screen) == 0
    assert seen[0] == (0, 8) and seen[-1] == (8, 8) and {total for _, total in seen} == {8}
    assert "classifying [" + "#" * 30 + "] 8/8" in screen.getvalue()

    seen.clear()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"apple banana\n")))
    assert main(["predict", model, str(docs), "-"], stdout=io.StringIO(), stderr=Terminal()) == 0
    assert seen[-1] == (8, None) and {total for _, total in seen} == {None}

    seen.clear()
    (tmp_path / "box").write_text("".join(f"From a@b.c Mon Jan  1 00:00:0{i} 2024\nSubject: s{i}\n\ntruck {i}\n\n"
                                          for i in range(3)))
    out = io.StringIO()
    assert main(["predict", model, str(tmp_path / "box"), str(tmp_path / "one.txt")], stdout=out,
                stderr=Terminal()) == 0
    assert out.getvalue().count("\n") == 4 and seen[0] == (0, 2) and seen[-1] == (4, 4)
    assert all(done <= total for done, total in seen)


@pytest.mark.parametrize("plain", [True, False])
def test_a_file_skipped_while_the_bar_runs_is_said_on_its_own_line(tmp_path, monkeypatch, plain):
    """``predict`` on a terminal glued ``textnb: error: b.txt: binary file, skipped`` onto the end
    of its bar (found by a user trial, session 48): a line said while a bar is drawn clears the
    bar's line first, and the bar is drawn again after it (tqdm's, and the plain bar)."""
    if plain:
        monkeypatch.setitem(sys.modules, "tqdm", None)
    else:
        pytest.importorskip("tqdm")
    from textnb.cli.commands import main

    model = _tiny_model(tmp_path)
    docs = tmp_path / "r1"
    docs.mkdir()
    (docs / "a.txt").write_text("apple")
    (docs / "b.txt").write_bytes(b"x\0y")
    (docs / "c.txt").write_text("truck")
    screen, out = Terminal(), io.StringIO()
    assert main(["predict", model, str(docs)], stdout=out, stderr=screen) == 1
    assert out.getvalue().count("\n") == 2
    said = f"textnb: error: {docs / 'b.txt'}: binary file, skipped"
    text = screen.getvalue()
    before, line, after = text.partition(said)
    assert line and "classifying" in before and "classifying" in after  # the bar drawn before and after it
    # the bar's line cleared first (no bar text since the last carriage return), the line ended
    assert "classifying" not in before.rsplit("\r", 1)[1] and after.startswith("\n")
    if plain:
        assert before.endswith("\r\033[K")

    # the one way to stderr of every line said while a bar runs (a warning, spamfilter --batch's errors)
    from textnb.cli.filterbase import say

    screen = Terminal()
    with Progress("classifying", total=3, stream=screen, unit="msg") as bar:
        bar(1)
        say(screen, "spamfilter", "x: cannot read (Permission denied)")
        bar(3)
    before, line, after = screen.getvalue().partition("spamfilter: x: cannot read (Permission denied)\n")
    assert line and "classifying" in before and "classifying" in after
    assert "classifying" not in before.rsplit("\r", 1)[1]


def test_a_total_is_kept_for_later_reports_and_grows_to_what_is_done(monkeypatch):
    """``bar(0, N)`` then ``bar(k)``: the plain bar drew ``k`` alone (its total was the
    constructor's); and ``k`` past ``N`` would draw more than the whole."""
    monkeypatch.setitem(sys.modules, "tqdm", None)
    stream = Terminal()
    bar = Progress("reading", stream=stream)
    bar(0, 4)
    bar._last = 0.0  # (the plain bar redraws at most every 0.1 s)
    bar(2)
    assert stream.getvalue().endswith("] 2/4")
    bar._last = 0.0
    bar(5)
    assert stream.getvalue().endswith("] 5/5") and bar.total == 5


@pytest.mark.parametrize("kind", ["tsv", "jsonl"])
def test_the_label_pass_and_predicts_rows_show_the_bytes_read_of_the_files_size(tmp_path, monkeypatch, kind):
    """Session 44's user trial: ``textnb train big.tsv`` first read the whole file for its
    labels with no bar (3-10 s on 490 MB before the ``reading`` bar), and ``textnb predict
    MODEL four.tsv > out`` drew none for a TSV/CSV or JSON Lines file's rows (nor ``--lines``,
    nor a fastText file's lines). Each now draws one, its bytes read of the file's size
    (its number of rows is known at its end only), on a terminal only."""
    import json

    monkeypatch.setitem(sys.modules, "tqdm", None)  # the plain bar: what it draws is its text
    seen = []

    class Observed(Progress):
        def __call__(self, done, total=None):
            super().__call__(done, total)
            seen.append((self.label, self.unit, done, self.total))

    monkeypatch.setattr(predict_inputs, "Progress", Observed)
    monkeypatch.setattr("textnb.cli.progress.Progress", Observed)  # (read_path's, imported when it runs)
    from textnb.cli.commands import main

    rows = [("spam" if i % 3 else "ham", f"word{i % 50} other{i % 7} text number {i}") for i in range(6000)]
    corpus = tmp_path / f"c.{kind}"
    if kind == "tsv":
        corpus.write_text("label\ttext\n" + "".join(f"{label}\t{text}\n" for label, text in rows))
    else:
        corpus.write_text("".join(json.dumps({"label": label, "text": text}) + "\n" for label, text in rows))
    size = corpus.stat().st_size
    model = str(tmp_path / "m.tnb")
    screen = Terminal()
    assert main(["train", str(corpus), "-o", model], stdout=io.StringIO(), stderr=screen) == 0
    first = [(done, total) for label, unit, done, total in seen if label == "reading labels"]
    assert {unit for label, unit, _, _ in seen if label == "reading labels"} == {"B"}
    assert len(first) >= 3 and first[-1] == (size, size) and all(total == size for _, total in first)
    assert [done for done, _ in first] == sorted(done for done, _ in first)
    bar = Progress("reading labels", stream=Terminal(), unit="B")
    assert f"reading labels [{'#' * 30}] {bar._amount(size)}/{bar._amount(size)}" in screen.getvalue()
    assert "reading [" in screen.getvalue()  # (then the documents, as before)

    lines = tmp_path / "l.txt"
    lines.write_text("".join(f"{text}\n" for _, text in rows))
    for argv, name in ((["predict", model, str(corpus)], corpus), (["predict", model, "--lines", str(lines)], lines)):
        seen.clear()
        screen, out = Terminal(), io.StringIO()
        assert main(argv, stdout=out, stderr=screen) == 0
        assert out.getvalue().count("\n") == 6000
        drawn = [(done, total) for label, unit, done, total in seen if unit == "B"]
        assert drawn and drawn[-1] == (name.stat().st_size, name.stat().st_size), drawn
        assert f"classifying [{'#' * 30}]" in screen.getvalue()
        screen = Terminal()  # the predictions on the same terminal: their lines are the progress
        assert main(argv, stdout=Terminal(), stderr=screen) == 0
        assert "classifying" not in screen.getvalue()
        quiet = io.StringIO()  # piped: silent
        assert main(argv, stdout=io.StringIO(), stderr=quiet) == 0
        assert "classifying" not in quiet.getvalue() and "\r" not in quiet.getvalue()
    quiet = io.StringIO()
    assert main(["train", str(corpus), "-o", model], stdout=io.StringIO(), stderr=quiet) == 0
    assert quiet.getvalue() == ""


def _tiny_model(tmp_path):
    """A text model of two classes of three documents each, trained in ``tmp_path``."""
    from textnb.cli.commands import main

    for label, text in (("a", "apple banana"), ("b", "car truck")):
        (tmp_path / "c" / label).mkdir(parents=True)
        for i in range(3):
            (tmp_path / "c" / label / f"{i}.txt").write_text(text)
    model = str(tmp_path / "m.tnb")
    assert main(["train", str(tmp_path / "c"), "-o", model], stdout=io.StringIO(), stderr=io.StringIO()) == 0
    return model
