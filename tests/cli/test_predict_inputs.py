"""A user trial of ``textnb predict``'s inputs (session 26): what every input shape reads to on
the text, multi-label and table paths, and the one line each bad input gets (never a hang,
never an internal error, never a document made up or lost depending on where it falls)."""

import errno
import io
import os
import sys

import pytest

from conftest import MULTI, SMS_TSV, cli, one_error_line, watchdog
from textnb.core.errors import InputError

TABLE = "outlook,windy,play\n" + "sunny,yes,no\novercast,no,yes\nrainy,yes,no\nsunny,no,yes\n" * 3


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    root = tmp_path_factory.mktemp("predict_inputs")
    (root / "t.csv").write_text(TABLE)
    (root / "ml.txt").write_text(MULTI)
    paths = {"text": root / "text.tnb", "table": root / "table.tnb", "multilabel": root / "ml.tnb"}
    assert cli("train", SMS_TSV, "-o", paths["text"])[0] == 0
    assert cli("train", root / "t.csv", "--class", "play", "-o", paths["table"])[0] == 0
    assert cli("train", root / "ml.txt", "-o", paths["multilabel"])[0] == 0
    return paths


@pytest.mark.parametrize("kind, argv", [
    ("text", []), ("text", ["-"]), ("text", ["--lines"]), ("text", ["--lines", "-"]), ("text", ["--rows"]),
    ("table", []), ("multilabel", []), ("multilabel", ["--lines"]), ("multilabel", ["--rows"]),
])
def test_a_closed_standard_input_is_one_line_on_every_path(models, monkeypatch, kind, argv):
    """``textnb predict MODEL [--lines|--rows] <&-`` (Python sets sys.stdin to None): one line,
    ``stdin: standard input is closed``, exit 1 (*was*: an internal error, exit 70, for
    documents, --lines and a table; ``--rows`` opened a file named ``stdin`` in the current folder
    when there was one, else said 'stdin: cannot read (No such file or directory)')."""
    monkeypatch.setattr(sys, "stdin", None)
    rc, out, err = cli("predict", models[kind], *argv)
    assert rc == 1 and out == ""
    one_error_line(err, "stdin: standard input is closed")


def test_rows_of_a_closed_standard_input_never_read_a_file_named_stdin(models, tmp_path, monkeypatch):
    (tmp_path / "stdin").write_text("label\ttext\nspam\twin cash now\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", None)
    rc, out, err = cli("predict", models["text"], "--rows")
    assert (rc, out) == (1, "")
    one_error_line(err, "stdin: standard input is closed")


def test_test_of_a_closed_standard_input_is_one_line(models, monkeypatch):
    monkeypatch.setattr(sys, "stdin", None)
    rc, out, err = cli("test", models["text"], "-")
    assert (rc, out) == (1, "")
    one_error_line(err, "stdin: standard input is closed")


@pytest.mark.parametrize("kind", ["text", "multilabel"])
def test_lines_of_a_fifo_no_process_writes_to_is_refused_not_waited_for(models, tmp_path, monkeypatch, kind):
    """``predict MODEL --lines FIFO`` with no writer: refused after PIPE_WAIT, as PATH, --rows,
    train and evaluate refuse it (*was*: waited for without end, in ``open``)."""
    import textnb.io.corpus

    monkeypatch.setattr(textnb.io.corpus, "PIPE_WAIT", 0.2)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with watchdog(20):
        rc, out, err = cli("predict", models[kind], "--lines", fifo)
    assert (rc, out) == (1, "")
    one_error_line(err, f"{fifo}: a FIFO that no process writes to")


def test_a_read_error_in_lines_names_the_input():
    """A read that fails inside ``--lines`` (an I/O error, a file of /proc that refuses reads)
    names the input (*was*: ``textnb: error: Invalid argument``, no file named)."""
    from textnb.io.sources import line_chunks

    class Failing:
        def read(self, *args):
            raise OSError(errno.EIO, os.strerror(errno.EIO))

        readline = peek = read

    with pytest.raises(InputError, match=r"^stdin: cannot read \(Input/output error\)$"):
        list(line_chunks("-", None, 1000, stdin=Failing()))


@pytest.mark.skipif(not os.path.exists("/proc/self/clear_refs"), reason="Linux /proc")
def test_lines_of_a_proc_file_that_refuses_reads_names_it(models):
    rc, out, err = cli("predict", models["text"], "--lines", "/proc/self/clear_refs")
    assert (rc, out) == (1, "")
    one_error_line(err, "/proc/self/clear_refs: cannot read (")


@pytest.mark.parametrize("kind, argv", [("text", ["-", "-"]), ("text", ["--rows", "-", "-"]),
                                        ("multilabel", ["-", "-"]), ("multilabel", ["--rows", "-", "-"]),
                                        ("table", ["-", "-"])])
def test_standard_input_given_twice_is_refused_on_every_path(models, kind, argv):
    """``predict MODEL - -`` (or ``- /dev/stdin``): standard input can be read once, as a table
    model said of ``- -`` (*was*, text and multi-label: the second read empty and scored as an
    empty document, exit 0; ``--rows``: output, then 'standard input is empty' or 'cannot find
    the label and text columns')."""
    rc, out, err = cli("predict", models[kind], *argv, stdin=b"label\ttext\nspam\twin cash now\n")
    assert (rc, out) == (1, "")
    one_error_line(err, "standard input (-) given twice: it can be read once")
    # /dev/stdin is the same stream (train and evaluate refuse it so too)
    argv = argv[:-1] + ["/dev/stdin"]
    rc, out, err = cli("predict", models[kind], *argv, stdin=b"label\ttext\nspam\twin cash now\n")
    assert (rc, out) == (1, "")
    one_error_line(err, "standard input given twice (as - and as /dev/stdin): it can be read once")


@pytest.mark.parametrize("kind, good", [("text", "a.txt"), ("multilabel", "a.txt"), ("table", "t.csv")])
def test_a_missing_path_among_good_ones_is_refused_before_any_output(models, tmp_path, kind, good):
    """A missing PATH after a good one: one line, exit 1, nothing printed, on every path (*was*:
    the text path printed nothing, the multi-label and table paths the PATHs before it, so the
    output depended on the model and, for text, on where the batch of 1,000 documents was cut;
    a table's said 'cannot read (No such file or directory)')."""
    (tmp_path / "a.txt").write_text("win cash now")
    (tmp_path / "t.csv").write_text(TABLE)
    rc, out, err = cli("predict", models[kind], tmp_path / good, tmp_path / "nope.csv")
    assert (rc, out) == (1, "")
    one_error_line(err, f"{tmp_path / 'nope.csv'}: no such file or folder")


@pytest.mark.parametrize("kind", ["text", "multilabel"])
def test_test_reads_a_pipe_as_train_reads_one(models, tmp_path, monkeypatch, kind):
    """``textnb test MODEL <(...)`` / a FIFO with a writer: read once, the same result as the file
    (*was*: 'not a regular file (a FIFO, socket or device)', though ``-`` was read); a FIFO no
    process writes to is refused after PIPE_WAIT, never waited for without end."""
    import threading

    import textnb.io.corpus

    text = MULTI if kind == "multilabel" else "__label__spam win cash now\n__label__ham lunch at noon?\n"
    (tmp_path / "plain.txt").write_text(text)
    rc, expected, _ = cli("test", models[kind], tmp_path / "plain.txt", "--json")
    assert rc == 0
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_text(text))
    writer.start()
    with watchdog(30):
        rc, out, err = cli("test", models[kind], fifo, "--json")
    writer.join(timeout=30)
    assert (rc, err) == (0, "") and out == expected.replace(str(tmp_path / "plain.txt"), str(fifo))
    monkeypatch.setattr(textnb.io.corpus, "PIPE_WAIT", 0.2)
    with watchdog(20):
        rc, out, err = cli("test", models[kind], fifo)
    assert (rc, out) == (1, "")
    one_error_line(err, f"{fifo}: a FIFO that no process writes to")
    rc, out, err = cli("test", models[kind], "-", stdin=b"\x00\x01binary")
    assert (rc, out) == (1, "")
    one_error_line(err, "stdin: binary file, not a fastText file")


@pytest.mark.parametrize("kind", ["text", "multilabel"])
def test_a_link_loop_inside_a_folder_is_reported_as_skipped(models, tmp_path, kind):
    """A symbolic-link loop inside a folder given to ``predict``: the other files classified,
    the loop reported on stderr as a binary file is (``PATH: cannot read file (a symbolic link
    that loops: ...), skipped``) and exit 1, as train counts it (*was*: left out without a word,
    exit 0: a file of the folder got no line and nothing said why)."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.txt").write_text("win cash now")
    os.symlink("l2", folder / "l1")
    os.symlink("l1", folder / "l2")
    rc, out, err = cli("predict", models[kind], folder)
    assert rc == 1 and [line.split("\t")[0] for line in out.splitlines()] == [str(folder / "a.txt")]
    lines = err.strip().splitlines()
    assert lines == [f"textnb: error: {folder / name}: cannot read file (a symbolic link that loops: "
                     f"{os.strerror(errno.ELOOP)}), skipped" for name in ("l1", "l2")]


@pytest.mark.parametrize("kind", ["text", "multilabel"])
def test_an_unreadable_file_is_reported_as_skipped_and_the_others_predicted(models, tmp_path, kind):
    """Found by a user trial: a dangling link among a folder's 2,500 files (or a named file
    that cannot be read) ended ``predict`` with one error line and lost the predictions of
    its batch: 1,000 of 2,500 printed, none of a small folder. Now it is left out and said so,
    as a binary file is, and every other document is predicted (exit 1). A PATH that is not
    there (a typo) is still refused before anything is predicted."""
    folder = tmp_path / "docs"
    folder.mkdir()
    for i in range(1200):
        (folder / f"d{i:04d}.txt").write_text(f"win cash now {i}")
    os.symlink(tmp_path / "nowhere", folder / "d0500.txt.link")
    named = tmp_path / "named.txt"
    named.write_text("lunch at noon?")
    rc, out, err = cli("predict", models[kind], folder, named)
    assert rc == 1
    assert len(out.splitlines()) == 1201 and out.splitlines()[-1].startswith(f"{named}\t")
    one_error_line(err, f"{folder / 'd0500.txt.link'}: no such file (a symbolic link to "
                        f"'{tmp_path / 'nowhere'}', which does not exist), skipped")
    rc, out, err = cli("predict", models[kind], named, tmp_path / "typo.txt")
    assert (rc, out) == (1, "")
    one_error_line(err, f"{tmp_path / 'typo.txt'}: no such file or folder")


@pytest.mark.parametrize("argv", [["predict", "{text}", "--lines", "{plain}"], ["predict", "{text}", "--lines", "-"],
                                  ["predict", "{text}", "{labelled}"], ["predict", "{multilabel}", "--lines", "{plain}"],
                                  ["test", "{text}", "{labelled}"], ["test", "{text}", "-"],
                                  ["train", "{labelled}", "-o", "{out}"], ["train", "-", "-o", "{out}"]])
def test_lines_ended_by_cr_alone_are_refused_not_read_as_one(models, tmp_path, argv):
    """A file of classic Mac line ends (CR alone, no LF) read one document per line (``--lines``,
    a fastText file as PATH, ``test``, ``train``, from a file or standard input): one line
    saying so, as a TSV/CSV file is refused (*was*: every line read as one document, scored
    once: ``predict --lines`` printed one prediction for three lines, and ``train`` of a
    single-label fastText file made a multi-label model of one document)."""
    plain = tmp_path / "plain.txt"
    plain.write_bytes(b"win cash now\rlunch at noon?\rcheap pills\r")
    labelled = tmp_path / "l.txt"
    labelled.write_bytes(b"__label__spam win cash now\r__label__ham lunch at noon?\r")
    names = {"text": models["text"], "multilabel": models["multilabel"], "plain": plain, "labelled": labelled,
             "out": tmp_path / "m.tnb"}
    argv = [arg.format(**names) for arg in argv]
    stdin = (labelled if argv[0] != "predict" else plain).read_bytes()
    rc, out, err = cli(*argv, stdin=stdin)
    assert (rc, out) == (1, "")
    one_error_line(err, "lines end with CR alone (classic Mac line ends)", "convert the file's line ends to LF")
    # a CR inside a line of a file of LF line ends, or a single line ended by CR, is text, as before
    plain.write_bytes(b"win cash\rnow\nlunch at noon?\n")
    assert len(cli("predict", models["text"], "--lines", plain)[1].splitlines()) == 2
    plain.write_bytes(b"win cash now\r")
    assert len(cli("predict", models["text"], "--lines", plain)[1].splitlines()) == 1


def test_a_spamfilter_model_given_a_closed_standard_input_says_so(tmp_path, monkeypatch):
    """``textnb predict SPAMFILTER_MODEL <&-`` (a model of rendered messages, read as
    ``spamfilter --batch`` reads its inputs): ``stdin: standard input is closed``, as for every
    other model (*was*: ``-: no such file or folder``, as if ``-`` were a file)."""
    from conftest import tiny_mail
    from textnb.apps.filtering import train_model

    spam, ham = tiny_mail(tmp_path)
    train_model(tmp_path / "spam.tnb", [spam], [ham], kind="multinomial")
    monkeypatch.setattr(sys, "stdin", None)
    for argv in ([], ["-"]):
        rc, out, err = cli("predict", tmp_path / "spam.tnb", *argv)
        assert (rc, out) == (1, "")
        one_error_line(err, "stdin: standard input is closed")


@pytest.mark.parametrize("kind", ["text", "multilabel"])
def test_a_fasttext_file_named_csv_is_read_as_train_reads_it(models, tmp_path, kind):
    """A fastText file named ``*.csv`` / ``*.tsv``: ``predict`` reads it by its content, one
    document per line (and its accuracy), as ``train``, ``evaluate --test`` and ``test`` read it
    (*was*: read as TSV/CSV rows by its name, 'FILE:2: row has 1 cell, expected at least 2');
    ``--rows`` still asks for its rows."""
    text = "__label__spam win cash now\n__label__ham lunch at noon?\n__label__spam cheap pills\n"
    (tmp_path / "plain.txt").write_text(text)
    rc, expected, err = cli("predict", models[kind], tmp_path / "plain.txt", "--json")
    assert rc == 0 and len(expected.splitlines()) == 3
    for name in ("data.csv", "data.tsv"):
        (tmp_path / name).write_text(text)
        rc, out, got = cli("predict", models[kind], tmp_path / name, "--json")
        assert (rc, got.replace(name, "plain.txt")) == (0, err)
        assert out == expected.replace(str(tmp_path / "plain.txt"), str(tmp_path / name))
    rc, out, err = cli("predict", models[kind], tmp_path / "data.csv", "--rows")
    assert (rc, out) == (1, "")
    one_error_line(err, "data.csv:")


def test_a_text_models_predict_names_standard_input_stdin_and_says_why_it_is_skipped(tmp_path, monkeypatch):
    """Standard input read as one document was the source ``-`` (``-\\tham``, ``"source": "-"``)
    where rows, lines, tables and every message say ``stdin``; a binary one was 'binary file'
    even when UTF-16 (the reason was looked up by reading a file named ``-`` in the current
    folder, which was read instead when there was one)."""
    import json

    model = tmp_path / "sms.tnb"
    assert cli("train", SMS_TSV, "-o", model)[0] == 0
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-").write_bytes(b"\xff\xfeh\x00i\x00")  # (a file named like standard input: never read)
    (tmp_path / "stdin").write_bytes(b"\xff\xfeh\x00i\x00")
    code, out, err = cli("predict", model, "-", "--json", stdin=b"free prize call now")
    assert code == 0 and json.loads(out)["source"] == "stdin" and err == ""
    code, out, err = cli("predict", model, stdin=b"ok see you at lunch")
    assert code == 0 and out.startswith("stdin\t")
    for data, reason in ((b"\x00\x01abc", "binary file"), (b"\xff\xfeh\x00i\x00 \x00", "UTF-16 text (convert it to UTF-8)")):
        code, out, err = cli("predict", model, "-", stdin=data)
        assert code == 1 and out == "" and err == f"textnb: error: stdin: {reason}, skipped\n", err


def test_a_model_with_its_own_encoding_reads_files_alike_in_predict_topicfilter_and_the_library(tmp_path):
    """Session 26: a TextClassifier whose Vectorizer has ``encoding="cp1251"`` decodes bytes and
    Path documents with it (s26-api); ``textnb predict`` of the saved model and topicfilter
    still decoded the files by their guess (UTF-8, else Windows-1252), so the same file got
    other terms, and other probabilities, on the command line than in the library."""
    import json
    from pathlib import Path

    from textnb import TextClassifier, Vectorizer, load
    from textnb.cli.topicfilter import topic_main

    docs = ["привет друг как дела", "встреча завтра утром", "деньги бесплатно выигрыш",
            "бесплатно деньги сейчас", "как дела друг", "выигрыш приз деньги"] * 5
    labels = ["ham", "ham", "spam", "spam", "ham", "spam"] * 5
    clf = TextClassifier(vectorizer=Vectorizer(encoding="cp1251"), model=__import__("textnb").MultinomialNB())
    clf.fit([d.encode("cp1251") for d in docs], labels)
    model = tmp_path / "ru.tnb"
    clf.save(model)
    folder = tmp_path / "in"
    folder.mkdir()
    for i, text in enumerate(("бесплатно деньги выигрыш друг", "привет встреча утром")):
        (folder / f"{i}.txt").write_bytes(text.encode("cp1251"))
    files = sorted(folder.iterdir())
    want = load(model).predict_proba([Path(f) for f in files])
    code, out, err = cli("predict", model, folder, "--json", "--proba")
    assert code == 0 and err == "", err
    got = [json.loads(line) for line in out.splitlines()]
    classes = [str(c) for c in load(model).classes_]
    for row, expected in zip(got, want):
        assert [row["proba"][c] for c in classes] == pytest.approx(list(expected), rel=1e-12)
    assert [row["label"] for row in got] == ["spam", "ham"]
    stdout, stderr = io.StringIO(), io.StringIO()
    assert topic_main(["--model", str(model), "--uncalibrated", "--out", str(tmp_path / "out"), str(folder)],
                      stdout=stdout, stderr=stderr) == 0, stderr.getvalue()
    assert [line.split("\t")[1] for line in stdout.getvalue().splitlines()] == ["spam", "ham"]
    confidences = [float(line.split("\t")[2]) for line in stdout.getvalue().splitlines()]
    assert confidences == pytest.approx([max(p) for p in want], abs=1e-6)


def test_a_file_the_model_s_own_encoding_does_not_decode_is_left_out_and_said(tmp_path):
    """A file that a model whose Vectorizer has its own strict encoding (cp1251) cannot decode
    (byte 0x98, undefined there) is left out with one line naming it and the encoding, as a
    binary file is, by ``predict`` (a folder, the file, standard input) and ``topicfilter``;
    the other files are classified; exit 1 (*was*: ``internal error: UnicodeDecodeError``,
    exit 70 / 1, nothing classified). The library raises UnicodeDecodeError, as scikit-learn's
    CountVectorizer(encoding=..., decode_error='strict') does."""
    from pathlib import Path

    from textnb import TextClassifier, Vectorizer, load
    from textnb.cli.topicfilter import topic_main

    docs = ["привет друг как дела", "встреча завтра утром", "деньги бесплатно выигрыш",
            "бесплатно деньги сейчас", "как дела друг", "выигрыш приз деньги"] * 5
    labels = ["ham", "ham", "spam", "spam", "ham", "spam"] * 5
    clf = TextClassifier(vectorizer=Vectorizer(encoding="cp1251"), model=__import__("textnb").MultinomialNB())
    model = tmp_path / "ru.tnb"
    clf.fit(docs, labels).save(model)
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.txt").write_bytes("бесплатно деньги выигрыш".encode("cp1251"))
    (folder / "b.txt").write_bytes(b"\x98 abc")
    reason = "not cp1251 text (byte 0x98 at offset 0), the encoding the model's vectorizer decodes its documents with"
    code, out, err = cli("predict", model, folder)
    assert code == 1 and out == f"{folder / 'a.txt'}\tspam\n"
    one_error_line(err, f"textnb: error: {folder / 'b.txt'}: {reason}", "skipped")
    code, out, err = cli("predict", model, "-", stdin=b"\x98 abc")
    assert code == 1 and out == ""
    one_error_line(err, f"stdin: {reason}")
    stdout, stderr = io.StringIO(), io.StringIO()
    assert topic_main(["--model", str(model), "--uncalibrated", "--out", str(tmp_path / "out"), str(folder)],
                      stdout=stdout, stderr=stderr) == 1
    assert [line.split("\t")[:2] for line in stdout.getvalue().splitlines()] == [[str(folder / "a.txt"), "spam"]]
    assert stderr.getvalue().splitlines() == [f"topicfilter: {folder / 'b.txt'}: {reason} (decode_error='strict')"]
    assert (tmp_path / "out" / "spam" / "a.txt").exists() and (folder / "b.txt").exists()
    with pytest.raises(UnicodeDecodeError):
        load(model).predict([Path(folder / "b.txt")])


def test_predict_jobs_scores_every_input_in_threads_with_the_same_output(tmp_path, monkeypatch):
    """``predict --jobs N`` scores the batches of a linear text model's input in threads once
    they are four or more (``evaluation.topk.scored_batches``, the one scoring loop of files
    and folders, an mbox, TSV rows, ``--lines`` and fastText files), in order: the output is
    that of ``--jobs 1`` to the byte, with ``--proba --json``; a model whose scoring is not
    threaded (a table model) refuses ``--jobs`` in one line."""
    import json

    from textnb.core import workers
    from textnb.io import files

    used = []
    ordered_map = workers.ordered_map

    def recorded(func, tasks, n_jobs, **kw):
        used.append(n_jobs)
        return ordered_map(func, tasks, n_jobs, **kw)

    monkeypatch.setattr(workers, "ordered_map", recorded)
    model = tmp_path / "m.tnb"
    assert cli("train", SMS_TSV, "-o", model)[0] == 0
    texts = [line.split("\t", 1)[1].strip() for line in SMS_TSV.read_text().splitlines()[1:]]
    folder = tmp_path / "docs"
    folder.mkdir()
    for i, text in enumerate(texts[:400]):
        (folder / f"{i:03d}.txt").write_text(text)
    (tmp_path / "box.mbox").write_text("".join(f"From a@b.example Sat Jan  1 00:00:00 2000\nSubject: x\n\n{t}\n\n"
                                               for t in texts[:400]))
    # (rows and lines come 1,000 a chunk: more than four chunks of each)
    (tmp_path / "rows.tsv").write_text("label\ttext\n" + "".join(f"ham\t{t}\n" for t in texts))
    (tmp_path / "lines.txt").write_text("".join(f"{t}\n" for t in texts))
    (tmp_path / "ft.txt").write_text("".join(f"__label__ham {t}\n" for t in texts))
    monkeypatch.setattr(files, "BATCH_BYTES", 2000)  # (files: batches of some 30 texts)
    for how, n in (([folder], 400), ([tmp_path / "box.mbox"], 400), ([tmp_path / "rows.tsv"], len(texts)),
                   (["--lines", tmp_path / "lines.txt"], len(texts)), ([tmp_path / "ft.txt"], len(texts))):
        outputs = []
        for jobs in ("1", "2"):
            used.clear()
            rc, out, err = cli("predict", model, *how, "--proba", "--json", "--jobs", jobs)
            assert rc == 0, err
            outputs.append(out)
            assert used == ([] if jobs == "1" else [2]), how
        assert outputs[0] == outputs[1] and len(outputs[0].splitlines()) == n, how
        assert all(json.loads(line)["proba"] for line in outputs[0].splitlines())
    table = tmp_path / "t.csv"
    table.write_text("a,b,class\n" + "".join(f"{i % 3},{i % 2},{'yes' if i % 3 else 'no'}\n" for i in range(30)))
    assert cli("train", table, "-o", tmp_path / "t.tnb")[0] == 0
    rc, out, err = cli("predict", tmp_path / "t.tnb", table, "--jobs", "2")
    assert rc == 1 and out == ""
    one_error_line(err, "--jobs applies to a linear text model")


#: a file of each row format whose third data row is bad (after a header, a blank line and, in
#: CSV, a cell of two lines), the error predict gives, and the bad row made good
_BAD_THIRD_ROW = {
    "short-tsv-row": ("q.tsv", "label\ttext\nham\thello there\n\nspam\twin cash now\nbroken\n",
                      "q.tsv:3 (line 5): row has 1 cell, expected at least 2", "ham\tok\n"),
    "unclosed-csv-quote": ("q.csv", 'label,text\nham,hello there\n\nspam,"win cash\nnow"\nham,"ok\n',
                           "q.csv:3 (line 6): a quoted field is never closed", "ham,ok\n"),
    "wide-csv-row": ("q.csv", 'label,text\nham,hello there\n\nspam,"win cash\nnow"\nham,ok,EXTRA\n',
                     "q.csv:3 (line 6): row has 3 cells, expected 2", "ham,ok\n"),
    "json-line-not-an-object": ("q.jsonl", '{"label": "ham", "text": "hello there"}\n\n'
                                '{"label": "spam", "text": "win cash now"}\n[1, 2]\n',
                                "q.jsonl:3 (line 4): not a JSON object", '{"label": "ham", "text": "ok"}\n'),
    "json-list-cell": ("q.jsonl", '{"label": "ham", "text": "hello there"}\n\n'
                       '{"label": "spam", "text": "win cash now"}\n{"label": "ham", "text": ["ok"]}\n',
                       "q.jsonl:3 (line 4): field 'text' holds a JSON list", '{"label": "ham", "text": "ok"}\n'),
}


@pytest.mark.parametrize("kind", ["text", "multilabel"])
@pytest.mark.parametrize("case", list(_BAD_THIRD_ROW))
def test_an_error_about_a_row_names_it_as_its_prediction_is_named(models, tmp_path, kind, case):
    """``predict`` names a TSV/CSV or JSON Lines file's predictions ``FILE:ROW`` (data rows from
    1: the header and blank lines not counted); its error lines named the file's line, so one
    row had two numbers (session 44's user trial). An error about a row says its ROW, and the
    line where it starts (a CSV cell may span lines); train, whose output names no row, says the
    line as before."""
    name, text, error, good = _BAD_THIRD_ROW[case]
    path = tmp_path / name
    path.write_text(text)
    rc, out, err = cli("predict", models[kind], path)
    assert (rc, out) == (1, "")
    one_error_line(err, f"{path}:{error.split(':', 1)[1]}")
    if kind == "text":
        rc, _, err = cli("train", path, "-o", tmp_path / "m.tnb")
        line = error.split("(line ")[1].split(")")[0]
        assert rc == 1
        one_error_line(err, f"{path}:{line}: {error.split(': ', 1)[1]}")
    path.write_text(text[:text.rindex("\n", 0, len(text) - 1) + 1] + good)
    rc, out, err = cli("predict", models[kind], path)
    assert rc == 0, err
    assert [row.split("\t")[0] for row in out.splitlines()] == [f"{path}:{k}" for k in (1, 2, 3)]


def test_an_error_about_a_table_row_names_it_as_its_prediction_is_named(models, tmp_path):
    """The same of a table model's query (the table reader): ``q.csv:2 (line 4)``, the row
    its prediction is named by; a header's error names its line alone."""
    q = tmp_path / "q.csv"
    for text, error in (("outlook,windy,play\nsunny,yes,no\n\novercast,no\n", "q.csv:2 (line 4): row has 2 cells"),
                        ('outlook,windy,play\n"sun\nny",yes,no\novercast,"no,yes\n',
                         "q.csv:2 (line 4): a quoted field is never closed"),
                        ("outlook,,play\nsunny,yes,no\n", "q.csv (line 1): header has an empty column name")):
        q.write_text(text)
        rc, out, err = cli("predict", models["table"], q)
        assert (rc, out) == (1, "")
        one_error_line(err, f"{tmp_path}/{error}")
    q.write_text("outlook,windy,play\nsunny,yes,no\n\novercast,no,yes\n")
    rc, out, err = cli("predict", models["table"], q)
    assert rc == 0 and [row.split("\t")[0] for row in out.splitlines()] == [f"{q}:1", f"{q}:2"]


def test_an_error_about_an_arff_query_row_names_it_as_its_prediction_is_named(models, tmp_path):
    """An ARFF query's row errors name the data row, as its predictions and a CSV query's
    errors do (``q.arff:2 (line 9)``; was the file's line alone: found by a user trial);
    train still names the line (``FILE:LINE``)."""
    head = ("@relation q\n@attribute outlook {sunny, overcast, rainy}\n@attribute windy {yes, no}\n"
            "@attribute play {yes, no}\n@data\n")
    q = tmp_path / "q.arff"
    for rows, error in (("sunny,yes,no\n\n% c\novercast,no\n", "q.arff:2 (line 9): 2 values, expected 3"),
                        ("sunny,yes,no\nrainy,maybe,no\n", "q.arff:2 (line 7): value 'maybe' is not declared"),
                        ('sunny,y"es,no\n', "q.arff:1 (line 6): quote inside an unquoted value")):
        q.write_text(head + rows)
        rc, out, err = cli("predict", models["table"], q)
        assert (rc, out) == (1, "")
        one_error_line(err, f"{tmp_path}/{error}")
    q.write_text(head + "sunny,yes,no\n\n% c\novercast,no\n")
    rc, _, err = cli("train", q, "-o", tmp_path / "m.tnb")
    assert rc == 1 and f"{q}:9: 2 values, expected 3" in err
    q.write_text(head + "sunny,yes,no\n\n% c\novercast,no,yes\n")
    rc, out, err = cli("predict", models["table"], q)
    assert rc == 0 and [row.split("\t")[0] for row in out.splitlines()] == [f"{q}:1", f"{q}:2"]
def _answered_as_it_comes(argv, first, rest, expected):
    """``textnb predict ARGV`` with standard input a pipe: ``first`` written, then the
    answers read until ``expected`` lines have come (the writer waiting, standard input
    open: up to 60 s, then the test fails), then ``rest`` written and standard input
    closed. Returns (the answers that came before ``rest``, the whole output)."""
    import select
    import subprocess
    import time
    from pathlib import Path

    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    proc = subprocess.Popen([sys.executable, "-m", "textnb", "predict", *map(str, argv)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    try:
        proc.stdin.write(first)
        proc.stdin.flush()
        came, deadline = b"", time.monotonic() + 60
        while came.count(b"\n") < expected and time.monotonic() < deadline:
            if select.select([proc.stdout], [], [], max(0.0, deadline - time.monotonic()))[0]:
                data = os.read(proc.stdout.fileno(), 65536)
                if not data:
                    break
                came += data
        proc.stdin.write(rest)
        proc.stdin.close()
        out = came + proc.stdout.read()
        assert proc.wait(60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return came.decode(), out.decode()


@pytest.mark.parametrize("kind, argv", [("text", ["--lines", "-"]), ("text", ["--rows", "-"]),
                                        ("multilabel", ["--lines", "-", "--top", "1"])])
def test_lines_and_rows_of_a_pipe_are_answered_as_they_come(models, kind, argv):
    """Session 44's user trial: ``(echo "the hockey game"; sleep 4; echo "my graphics card") |
    textnb predict M --lines -`` printed both answers after 4 s: a list of a thousand lines
    (or rows) was scored once full or at the input's end, so predict could not sit behind
    ``tail -f``. The reader of a pipe hands over what it has read when its next line has not
    come (within PipeReader.LINGER), the answers flushed; here the writer waits for them
    before it writes more. The output is the same as when the input comes at once. Rows are
    answered once the first 8 KiB and the 50 rows their layout is decided on have come."""
    if "--rows" in argv:
        pad = " lunch" * 30
        first = ("label\ttext\n" + "".join(f"ham\tsee you at lunch {i}{pad}\n" for i in range(60))).encode()
        rest, expected = b"spam\tfree prize call now\n", 60
        assert len(first) > 8192
    else:
        first, rest, expected = b"see you at lunch\nfree prize call now\n", b"call me later\n", 2
    came, out = _answered_as_it_comes([models[kind], *argv], first, rest, expected)
    assert came.count("\n") == expected and out.count("\n") == expected + 1
    rc, at_once, _ = cli("predict", models[kind], *argv, stdin=first + rest)
    assert rc == 0 and out == at_once


def test_predict_lines_of_a_crlf_file_reads_each_line_without_its_cr(tmp_path):
    """``predict --lines`` of a file with CRLF line ends gives each line's text without the CR,
    as the same lines read as TSV rows or a document of that text do (*was*: the CR kept, a
    token ``now\\r`` under ``--token-pattern '[^ ]+'`` that the model never saw)."""
    corpus = tmp_path / "c.tsv"
    corpus.write_bytes(b"spam\tfree prize now\r\nham\tsee you at noon\r\nspam\twin free cash\r\nham\tlunch at noon ok\r\n")
    model = tmp_path / "m.tnb"
    assert cli("train", corpus, "-o", model, "--model", "multinomial", "--token-pattern", "[^ ]+")[0] == 0
    lines = tmp_path / "q.txt"
    lines.write_bytes(b"free prize now\r\nsee you at noon\r\n")
    code, out, err = cli("predict", model, "--lines", lines, "--proba")
    assert code == 0, err
    rows = cli("predict", model, "--rows", corpus, "--proba")[1].splitlines()
    assert [line.split("\t", 1)[1] for line in out.splitlines()] == [row.split("\t", 1)[1] for row in rows[:2]]
    one = cli("predict", model, "-", "--proba", stdin=b"free prize now")[1]
    assert out.splitlines()[0].split("\t", 1)[1] == one.strip().split("\t", 1)[1]


def test_a_model_with_its_own_encoding_reads_lines_and_rows_as_its_files(tmp_path):
    """A model whose Vectorizer has ``encoding="cp1251"``: ``predict --lines`` (a file, stdin),
    ``--rows`` of a TSV file and a fastText file decode each line with it, as ``predict FILE``
    and the library decode a document, the same probabilities (*was*: the lines and rows by the
    UTF-8 / Windows-1252 guess, mojibake, no known term: 0.5 / 0.5); a line it cannot decode is
    one line naming FILE:LINE, exit 1. A JSON Lines file's texts are JSON strings, decoded as
    JSON is."""
    import json

    from textnb import MultinomialNB, TextClassifier, Vectorizer, load

    spam = ["бесплатный приз звоните сейчас", "выиграй деньги бесплатно", "приз ждет вас звоните"]
    ham = ["увидимся в полдень", "обед в час дня", "до встречи завтра друг"]
    model = tmp_path / "ru.tnb"
    TextClassifier(vectorizer=Vectorizer(encoding="cp1251"), model=MultinomialNB()).fit(
        [s.encode("cp1251") for s in spam + ham], ["spam"] * 3 + ["ham"] * 3).save(model)
    text = "бесплатный приз"
    want = load(model).predict_proba([text])[0]
    (tmp_path / "q.txt").write_bytes(text.encode("cp1251") + b"\n")
    (tmp_path / "q.tsv").write_bytes(b"label\ttext\nspam\t" + text.encode("cp1251") + b"\n")
    (tmp_path / "q.ft").write_bytes(b"__label__spam " + text.encode("cp1251") + b"\n")
    (tmp_path / "q.jsonl").write_text(json.dumps({"label": "spam", "text": text}) + "\n")
    runs = [("predict", model, tmp_path / "q.txt"), ("predict", model, "--lines", tmp_path / "q.txt"),
            ("predict", model, "--rows", tmp_path / "q.tsv"), ("predict", model, tmp_path / "q.ft"),
            ("predict", model, tmp_path / "q.jsonl")]
    for argv in runs:
        code, out, err = cli(*argv, "--json", "--proba")
        assert code == 0, (argv, err)
        row = json.loads(out.splitlines()[0])
        assert [row["proba"]["ham"], row["proba"]["spam"]] == pytest.approx(list(want), rel=1e-12), argv
    code, out, err = cli("predict", model, "--lines", "-", "--json", "--proba", stdin=text.encode("cp1251") + b"\n")
    assert code == 0 and json.loads(out)["proba"]["spam"] == pytest.approx(want[1], rel=1e-12)
    (tmp_path / "bad.txt").write_bytes(text.encode("cp1251") + b"\n\x98 x\n")
    code, out, err = cli("predict", model, "--lines", tmp_path / "bad.txt")
    assert code == 1
    one_error_line(err, f"{tmp_path / 'bad.txt'}:2: not cp1251 text (byte 0x98 at offset 0)")
    (tmp_path / "bad.tsv").write_bytes(b"label\ttext\nspam\t\x98 x\n")
    code, out, err = cli("predict", model, tmp_path / "bad.tsv")
    assert code == 1
    one_error_line(err, f"{tmp_path / 'bad.tsv'}:2: not cp1251 text (byte 0x98 at offset 5)")
