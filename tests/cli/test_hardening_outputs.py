"""Issue 18, outputs: tab-separated output cannot be forged by a file name or a label in
any program, all of them escape with one helper, and no NaN reaches any output.

File names in these tests hold TAB, newline, ESC and a backslash; labels hold TAB and
newline. Every program must print one line per document with its fixed number of
columns, and the escaped name must read back (``\\t``, ``\\n``, ``\\x1b``, ``\\\\``).
"""

import io
import os
import json

import numpy as np
import pytest

import textnb
from textnb.cli import evaluate, inspect, mailfilters, output, predict, topicfilter, train
from textnb.cli import main
from textnb.evaluation import topk

NAMES = ["a\tspam\t0.99.eml", "b\nforged\tham.eml", "c\x1b[31m.eml", "d\\t.eml"]
ESCAPED = ["a\\tspam\\t0.99.eml", "b\\nforged\\tham.eml", "c\\x1b[31m.eml", "d\\\\t.eml"]


def test_one_escaping_helper_for_every_program():
    assert predict.cell is output.cell and mailfilters.cell is output.cell and topicfilter.cell is output.cell
    for module in (predict, evaluate, inspect):
        assert module.dumps is output.dumps
    assert train.print_summary is output.print_summary  # (its JSON: output.dumps)
    assert output.cell("a\tb\nc\rd\\e\x00\x7f\x9b\udcff") == "a\\tb\\nc\\rd\\\\e\\x00\\x7f\\x9b\udcff"


def _mail_folder(tmp_path):
    folder = tmp_path / "mail"
    folder.mkdir()
    for n in NAMES:
        (folder / n).write_bytes(b"Subject: cheap pills\n\ncheap pills offer now\n")
    return folder


@pytest.fixture
def spam_model(tmp_path):
    path = tmp_path / "spam.tnb"
    docs = ["cheap pills offer", "win money now", "meeting at noon", "lunch report team"] * 2
    textnb.TextClassifier().fit(docs, ["spam", "spam", "ham", "ham"] * 2).save(path)
    return path


def test_spamfilter_batch_escapes_file_names(tmp_path, spam_model):
    folder = _mail_folder(tmp_path)
    out, err = io.BytesIO(), io.StringIO()
    rc = mailfilters.filter_main(["-m", str(spam_model), "--batch", str(folder), "--log-odds"],
                                 stdin=io.BytesIO(), stdout=out, stderr=err)
    assert rc == 0, err.getvalue()
    lines = out.getvalue().decode().splitlines()
    assert len(lines) == len(NAMES) and all(len(line.split("\t")) == 4 for line in lines)
    assert sorted(line.split("\t")[0][len(str(folder)) + 1:] for line in lines) == sorted(ESCAPED)


def test_topicfilter_escapes_file_names_labels_and_destinations(tmp_path):
    folder = _mail_folder(tmp_path)
    model = tmp_path / "topic.tnb"
    docs = ["cheap pills offer now", "hockey game goal", "meeting at noon", "hockey team score"]
    textnb.TextClassifier().fit(docs, ["odd\tlabel", "sport", "odd\tlabel", "sport"]).save(model)
    out, err = io.StringIO(), io.StringIO()
    rc = topicfilter.topic_main(["-m", str(model), "-o", str(tmp_path / "out"), "-n", "--uncalibrated", "--mail", str(folder)],
                                stdout=out, stderr=err)
    lines = out.getvalue().splitlines()
    assert len(lines) == len(NAMES), (rc, err.getvalue(), lines)
    assert all(len(line.split("\t")) == 4 for line in lines), lines
    sources = sorted(line.split("\t")[0][len(str(folder)) + 1:] for line in lines)
    assert sources == sorted(ESCAPED)
    routed = [line.split("\t") for line in lines if line.split("\t")[1] == "odd\\tlabel"]
    assert routed and all("\t" not in dest and "\n" not in dest for *_, dest in routed)


def test_predict_lines_escapes_labels_and_sources(tmp_path):
    model = tmp_path / "m.tnb"
    textnb.TextClassifier().fit(["cheap pills", "noon lunch", "cheap offer", "lunch team"],
                                ["bad\tlabel", "ok\nlabel", "bad\tlabel", "ok\nlabel"]).save(model)
    name = tmp_path / "in\tput.txt"
    name.write_text("cheap pills\nlunch\n")
    out, err = io.StringIO(), io.StringIO()
    rc = main(["predict", str(model), "--lines", str(name), "--top", "2"], stdout=out, stderr=err)
    assert rc == 0, err.getvalue()
    lines = out.getvalue().splitlines()
    assert len(lines) == 2 and all(len(line.split("\t")) == 3 for line in lines)
    assert lines[0].startswith(str(tmp_path) + "/in\\tput.txt:1\t")
    assert {cell.rsplit(" ", 1)[0] for line in lines for cell in line.split("\t")[1:]} == {"bad\\tlabel", "ok\\nlabel"}


# --------------------------------------------------------------------------- no NaN in any output
def _nan_scores(monkeypatch):
    monkeypatch.setattr("textnb.apps.filtering.SpamFilter.log_odds_texts",
                        lambda self, texts: np.full(len(list(texts)), np.nan))


def test_spamfilter_never_prints_a_nan_score_nor_reads_it_as_a_verdict(tmp_path, spam_model, monkeypatch):
    _nan_scores(monkeypatch)
    message = b"Subject: hi\n\ncheap pills\n"
    out, err = io.BytesIO(), io.StringIO()
    rc = mailfilters.filter_main(["-m", str(spam_model), "-p"], stdin=io.BytesIO(message), stdout=out, stderr=err)
    assert rc == 3 and out.getvalue() == message  # an error, the message unchanged; not "unsure" (2)
    assert err.getvalue() == f"spamfilter: {spam_model}: the model gives NaN scores (its parameters are inconsistent)\n"
    out, err = io.BytesIO(), io.StringIO()
    rc = mailfilters.filter_main(["-m", str(spam_model), "--batch", str(_mail_folder(tmp_path))],
                                 stdin=io.BytesIO(), stdout=out, stderr=err)
    assert rc == 3 and b"nan" not in out.getvalue().lower() and "NaN scores" in err.getvalue()


def test_predict_lines_never_prints_nan(tmp_path, monkeypatch):
    model = tmp_path / "m.tnb"
    textnb.TextClassifier().fit(["cheap pills", "noon lunch"], ["spam", "ham"]).save(model)
    (tmp_path / "l.txt").write_text("cheap\n")
    for module in (predict, topk):  # (topk.scored_batches: the scoring loop of lines, rows and documents)
        monkeypatch.setattr(module, "proba_and_odds", lambda model, X: (np.full((len(X), 2), np.nan),) * 2)
    for extra in (["--top", "2"], ["--top", "2", "--json"], ["--threshold", "0.5", "--json"], []):
        out, err = io.StringIO(), io.StringIO()
        rc = main(["predict", str(model), "--lines", str(tmp_path / "l.txt"), *extra], stdout=out, stderr=err)
        assert rc == 1 and out.getvalue() == "" and "NaN scores" in err.getvalue(), extra
        assert err.getvalue().count("\n") == 1


def test_predict_lines_json_is_strict(tmp_path, monkeypatch):
    model = tmp_path / "m.tnb"
    textnb.TextClassifier().fit(["cheap pills", "noon lunch"], ["spam", "ham"]).save(model)
    (tmp_path / "l.txt").write_text("cheap\n")
    for module in (predict, topk):
        monkeypatch.setattr(module, "proba_and_odds",
                            lambda model, X: (np.array([[0.0, -np.inf]]), np.array([[np.inf, -np.inf]])))
    out = io.StringIO()
    assert main(["predict", str(model), "--lines", str(tmp_path / "l.txt"), "--top", "2", "--json"], stdout=out,
                stderr=io.StringIO()) == 0
    rec = json.loads(out.getvalue(), parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}"))
    assert rec["labels"][0]["log_odds"] == 1.7976931348623157e308


# --------------------------------------------------------------------------- strict ASCII standard streams
def _run_ascii(args):
    import os
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=str(repo), PYTHONIOENCODING="ascii:strict", OPENBLAS_NUM_THREADS="1")
    return subprocess.run([sys.executable, *map(str, args)], capture_output=True, timeout=300, env=env, cwd=str(repo))


@pytest.mark.slow
def test_strict_ascii_stdout_with_a_non_ascii_label(tmp_path):
    """``PYTHONIOENCODING=ascii:strict``: train, predict, inspect and topicfilter print a
    non-ASCII label as a backslash escape and exit 0 (topicfilter stopped at the first
    document of that class, exit 1); spamfilter's error line names the path likewise."""
    corpus = tmp_path / "c"
    for label, words in (("späm", "cheap pills"), ("ham", "lunch noon")):
        (corpus / label).mkdir(parents=True)
        for i in range(3):
            (corpus / label / f"{i}.txt").write_text(f"{words} {i}")
    model = tmp_path / "m.tnb"
    for args, wanted in ((["-m", "textnb", "train", corpus, "-o", model], b"sp\\xe4m 3"),
                         (["-m", "textnb", "predict", model, corpus, "--proba"], b"sp\\xe4m=0.9"),
                         (["-m", "textnb", "inspect", model], b"sp\\xe4m: 3 documents"),
                         (["-m", "textnb", "predict", model, corpus, "--json"], b'"sp\\u00e4m"'),
                         (["scripts/topicfilter", "-m", model, "-o", tmp_path / "out", "-n", "--uncalibrated", corpus],
                          b"\tsp\\xe4m\t0.9")):
        proc = _run_ascii(args)
        assert proc.returncode == 0 and proc.stderr == b"", (args, proc.stderr)
        assert wanted in proc.stdout, (args, proc.stdout[:300])
        assert len(proc.stdout.splitlines()) >= 3
    proc = _run_ascii(["scripts/spamfilter", "-m", tmp_path / "nö.tnb"])
    assert proc.returncode == 3 and proc.stderr == f"spamfilter: {tmp_path}/n\\xf6.tnb: no such model file\n".encode()


# -- session 47: an output folder nothing can be written in, said before the work --------------
def test_an_output_folder_that_cannot_be_written_is_said_before_the_work(unwritable_folder, tmp_path):
    """``-o`` (and ``--plot``) into a folder without write permission or on a read-only file
    system: the training, merge, evaluation ran to the end and its result was thrown away
    (``cannot write model file (Permission denied)``, ``p.png: Read-only file system`` after
    the whole evaluation, its report lost); now one line before any work, as a missing folder."""
    import io

    from textnb.cli.commands import main

    corpus = tmp_path / "c.tsv"
    corpus.write_text("label\ttext\n" + "".join(f"{'spam' if i % 2 else 'ham'}\tword{i % 5} other{i % 3} thing\n"
                                                for i in range(40)))
    for argv in (["train", corpus, "-o", unwritable_folder / "m.tnb"],
                 ["evaluate", corpus, "--cv", "2", "--plot", unwritable_folder / "p.png"]):
        out, err = io.StringIO(), io.StringIO()
        assert main([str(a) for a in argv], stdout=out, stderr=err) == 1
        lines = err.getvalue().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"textnb: error: {argv[-1]}: cannot write (")
        assert out.getvalue() == ""  # (no report: nothing was worked out)
    assert os.listdir(unwritable_folder) == []


def test_topicfilter_and_spamfilter_say_an_unwritable_folder_once(unwritable_folder, tmp_path):
    """topicfilter into an OUT nothing can be written in printed one error per document; spamfilter
    --train-* into a model folder it cannot write read and fitted all the mail first."""
    from conftest import run_spamfilter, run_topicfilter, tiny_mail

    import textnb

    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(6):
        (docs / f"{i}.txt").write_text(["cheap pills casino", "meeting agenda budget"][i % 2])
    textnb.TextClassifier().fit(["cheap pills casino"] * 3 + ["meeting agenda budget"] * 3,
                                ["shop"] * 3 + ["work"] * 3).save(tmp_path / "t.tnb")
    code, _, err = run_topicfilter(["--model", tmp_path / "t.tnb", "--uncalibrated", "--out", unwritable_folder, docs])
    assert code == 1 and len(err.splitlines()) == 1 and "cannot route documents into it" in err, err
    spam, ham = tiny_mail(tmp_path)
    code, _, err = run_spamfilter(["--model", unwritable_folder / "sf.tnb", "--train-spam", spam, "--train-ham", ham])
    assert code == 3 and len(err.splitlines()) == 1 and "sf.tnb: cannot write (" in err, err


def test_topicfilter_dry_run_writes_nothing_into_out_and_still_says_an_unwritable_one(unwritable_folder, tmp_path):
    """Found by a user trial: ``topicfilter --dry-run`` ("print the plan, change nothing") made
    and removed a probe file ``OUT/.textnb-probe-*`` (OUT's times changed) to tell whether OUT
    can be written. A dry run asks the kernel (``os.access``) and makes no file; an OUT that
    cannot be written is still said in one line."""
    from conftest import run_topicfilter

    import textnb

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("cheap pills casino")
    textnb.TextClassifier().fit(["cheap pills casino"] * 3 + ["meeting agenda budget"] * 3,
                                ["shop"] * 3 + ["work"] * 3).save(tmp_path / "t.tnb")
    out = tmp_path / "out"
    (out / "shop").mkdir(parents=True)
    for folder in (out, out / "shop"):
        os.utime(folder, ns=(10**18, 10**18))
    code, plan, err = run_topicfilter(["--model", tmp_path / "t.tnb", "--uncalibrated", "--dry-run", "--out", out,
                                       docs])
    assert (code, err) == (0, "") and plan.split("\t")[3] == f"{out / 'shop' / 'a.txt'}\n"
    assert [os.stat(folder).st_mtime_ns for folder in (out, out / "shop")] == [10**18, 10**18]
    assert os.listdir(out) == ["shop"] and os.listdir(out / "shop") == []
    code, plan, err = run_topicfilter(["--model", tmp_path / "t.tnb", "--uncalibrated", "--dry-run", "--out",
                                       unwritable_folder, docs])
    assert (code, plan) == (1, "") and len(err.splitlines()) == 1, err
    assert "cannot route documents into it (" in err and ("Read-only file system" in err or "Permission denied" in err)


def test_an_interpreter_out_of_memory_while_the_commands_load_is_one_line():
    """Under a small ``ulimit -v`` the MemoryError came while the commands were imported
    (numpy's import), a traceback; it is one line, as a command's own out of memory."""
    import subprocess
    import sys

    code = ("import sys\n"
            "class Full:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name == 'textnb.cli.commands':\n"
            "            raise MemoryError\n"
            "sys.meta_path.insert(0, Full())\n"
            "from textnb.cli.program import main\n"
            "sys.exit(main())\n")
    r = subprocess.run([sys.executable, "-c", code, "train", "x"], capture_output=True, text=True, timeout=120)
    assert (r.returncode, r.stderr) == (1, "textnb: error: out of memory\n")


#: A program run with the import of one module failing as numpy's does under a small ``ulimit
#: -v``: numpy's ImportError ("Importing the numpy C-extensions failed"), caused by the loader's
#: (``failed to map segment from shared object``); or, with another cause, a missing module.
_IMPORT_REFUSED = """
import sys
class Refuse:
    def find_spec(self, name, path=None, target=None):
        if name == {module!r}:
            try:
                raise ImportError({cause!r})
            except ImportError as exc:
                raise ImportError("\\n\\nIMPORTANT: PLEASE READ THIS FOR ADVICE ON HOW TO SOLVE THIS ISSUE!\\n") from exc
sys.meta_path.insert(0, Refuse())
sys.argv[0] = {prog!r}
if {prog!r} == "textnb":
    from textnb.cli.program import main
else:
    from textnb.cli import mailcli
    main = getattr(mailcli, {prog!r})
sys.exit(main())
"""

_NO_MAP = "libscipy_openblas64_.so: failed to map segment from shared object"


@pytest.mark.parametrize("prog, module, args, line", [
    ("textnb", "numpy", ["predict", "m.tnb", "q.txt"], "textnb: error: out of memory"),  # (the commands' import)
    ("textnb", "textnb.core.csr", ["train", "c.tsv", "-o", "m.tnb"], "textnb: error: out of memory (try a smaller "
                                                                   "--ngram, --bins, --max-features or --max-bytes)"),
    ("spamfilter", "numpy", ["-m", "m.tnb", "--register-spam", "-"], "spamfilter: out of memory (try a smaller --max-bytes)"),
    ("spamfilter", "textnb.cli.mailfilters", ["-m", "m.tnb"], "spamfilter: out of memory (try a smaller --max-bytes)"),
    ("topicfilter", "numpy", ["--model", "m.tnb", "--out", "o", "q.txt"], "topicfilter: out of memory (try a smaller "
                                                                          "--max-bytes)"),
    ("topicfilter", "textnb.cli.topicfilter", ["--model", "m.tnb", "--out", "o", "q.txt"], "topicfilter: out of memory "
                                                                                             "(try a smaller --max-bytes)"),
])
def test_an_import_refused_memory_is_out_of_memory_in_every_program(tmp_path, prog, module, args, line):
    """Under a small ``ulimit -v`` (40-60 MB) numpy's import failed as an ImportError, not a
    MemoryError (the loader's ``failed to map segment from shared object``): ``textnb``
    printed a 50-line traceback, ``spamfilter`` and ``topicfilter`` 900 bytes of numpy's
    advice as an ``internal error``. Such an ImportError is the programs' one out-of-memory
    line, with the exit status of their errors, wherever the import comes: the commands'
    (``textnb``), a command's own (``train``'s, after them), the filters' modules and numpy's."""
    import subprocess
    import sys

    (tmp_path / "c.tsv").write_text("spam\tcheap pills\nham\tmeeting agenda\n")
    (tmp_path / "q.txt").write_text("cheap pills\n")
    code = _IMPORT_REFUSED.format(module=module, cause=_NO_MAP, prog=prog)
    r = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120,
                       cwd=tmp_path, input="Subject: x\n\ncheap pills\n")
    assert (r.returncode, r.stderr) == ({"spamfilter": 3}.get(prog, 1), line + "\n")


@pytest.mark.parametrize("prog", ["textnb", "spamfilter", "topicfilter"])
def test_an_import_error_of_another_kind_is_not_out_of_memory(tmp_path, prog):
    """The other side: an ImportError whose cause is not memory (a module missing, a library
    the loader cannot find) stays what it was, a bug or a broken installation: never said
    to be out of memory."""
    import subprocess
    import sys

    code = _IMPORT_REFUSED.format(module="numpy", cause="libgfortran.so.5: cannot open shared object file: No such "
                                  "file or directory", prog=prog)
    args = {"textnb": ["predict", "m.tnb", "q.txt"], "spamfilter": ["-m", "m.tnb", "--register-spam", "-"],
            "topicfilter": ["--model", "m.tnb", "--out", "o", "q.txt"]}[prog]
    r = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120,
                       cwd=tmp_path, input="Subject: x\n\ncheap pills\n")
    assert r.returncode != 0 and "ImportError" in r.stderr and "out of memory" not in r.stderr, r.stderr


def test_memory_refused_reads_the_loaders_words():
    """:func:`textnb.core.signals.memory_refused`: a MemoryError; an ImportError with an
    ENOMEM OSError or the loader's words of memory refused in its chain; not one refused
    for another reason (``noexec``: not permitted; a static TLS block), nor any other error."""
    import errno

    from textnb.core.signals import memory_refused

    def chained(outer, cause):
        try:
            try:
                raise cause
            except BaseException as exc:
                raise outer from exc
        except BaseException as exc:
            return exc

    assert memory_refused(MemoryError())
    assert memory_refused(chained(ImportError("numpy failed"), ImportError(_NO_MAP)))
    assert memory_refused(ImportError("libx.so: cannot map zero-fill pages"))
    assert memory_refused(chained(ImportError("x"), OSError(errno.ENOMEM, "Cannot allocate memory")))
    assert not memory_refused(ImportError("libx.so: failed to map segment from shared object: Operation not permitted"))
    assert not memory_refused(ImportError("libgomp.so.1: cannot allocate memory in static TLS block"))
    assert not memory_refused(ModuleNotFoundError("No module named 'numpy'"))
    assert not memory_refused(chained(ValueError("x"), MemoryError()))  # (an error of its own, not an import)
    assert not memory_refused(OSError(errno.ENOMEM, "Cannot allocate memory"))


def _under_address_limit(kilobytes):
    """A ``preexec_fn`` limiting the child's address space (``ulimit -v``) to ``kilobytes``."""
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (kilobytes * 1024, kilobytes * 1024))

    return limit


def test_every_program_under_a_small_ulimit_v_says_out_of_memory_in_one_line(tmp_path):
    """The real thing: each program run under ``ulimit -v 50000`` (50 MB: Python starts, numpy
    cannot load its libraries). Skipped where the interpreter cannot start textnb's entry
    points under it, or where the limit is not met as here (another numpy build)."""
    import subprocess
    import sys

    limit = _under_address_limit(50000)
    start = subprocess.run([sys.executable, "-c", "import textnb.cli.program, textnb.cli.mailcli"],
                           capture_output=True, preexec_fn=limit, timeout=60)
    if start.returncode:
        pytest.skip("the interpreter cannot start textnb's entry points under ulimit -v 50000")
    probe = subprocess.run([sys.executable, "-c", "import numpy"], capture_output=True, text=True, preexec_fn=limit,
                           timeout=60)
    if probe.returncode == 0 or "Error" not in probe.stderr:
        pytest.skip(f"numpy's import under ulimit -v 50000 is not refused as an error here: {probe.stderr[-200:]!r}")
    (tmp_path / "q.txt").write_text("cheap pills\n")
    runs = {"textnb": ("from textnb.cli.program import main", ["predict", "m.tnb", "q.txt"], 1,
                       "textnb: error: out of memory"),
            "spamfilter": ("from textnb.cli.mailcli import spamfilter as main", ["-m", "m.tnb", "--register-spam", "-"],
                           3, "spamfilter: out of memory (try a smaller --max-bytes)"),
            "topicfilter": ("from textnb.cli.mailcli import topicfilter as main", ["--model", "m.tnb", "--out", "o",
                                                                                  "q.txt"], 1,
                            "topicfilter: out of memory (try a smaller --max-bytes)")}
    for prog, (entry, args, status, line) in runs.items():
        r = subprocess.run([sys.executable, "-c", f"import sys; {entry}; sys.argv[0] = {prog!r}; sys.exit(main())",
                            *args], capture_output=True, text=True, cwd=tmp_path, preexec_fn=limit, timeout=60,
                           input="Subject: x\n\ncheap pills\n")
        assert (r.returncode, r.stderr) == (status, line + "\n"), prog


def test_the_mail_tools_out_of_memory_before_their_command_is_their_commands_line():
    """:data:`textnb.apps.spamclient.OUT_OF_MEMORY`, said while a mail tool's modules load
    (that module may not import the command line's), is the line of their commands."""
    from textnb.apps.spamclient import OUT_OF_MEMORY
    from textnb.cli.filterbase import FILTER_MEMORY_OPTIONS, out_of_memory

    assert OUT_OF_MEMORY == out_of_memory(FILTER_MEMORY_OPTIONS)


# -- session 49: a line that names a path is one line, whatever the name -----------------------
def _lines_of(prog, err, n=None):
    """The lines of ``err`` (a program's standard error), each checked to be the program's own
    (``PROG: ``): a name cannot start one; ``n``: how many there must be."""
    lines = err.splitlines()
    assert all(line.startswith(f"{prog}: ") for line in lines), err
    assert n is None or len(lines) == n, err
    return lines


def test_messages_naming_a_path_escape_its_control_characters_in_every_program(tmp_path, spam_model, capsys):
    """Found by a user trial (session 49): a file named ``x<newline>textnb: error: forged.bin``
    in a folder given to ``predict`` printed two error lines, the second a forged one (so
    did spamfilter --batch, --register-*, topicfilter); and ``model: X -> OUT``, ``merged 2
    models -> OUT``, ``... plot: FILE``, ``spamfilter: trained OUT`` printed a newline of
    ``-o`` / ``--plot`` raw. Every such line escapes it as an output field does
    (``\\n``, ``\\t``, ``\\x1b``): one function, :func:`textnb.cli.streams.one_line`."""
    from conftest import cli, run_spamfilter, run_topicfilter, tiny_mail

    from textnb.cli import progress, streams

    assert output.one_line is streams.one_line and progress.one_line is streams.one_line
    assert output.one_line("a\tb\nc\rd\\e\x1b\x7f\x9b\udcff") == "a\\tb\\nc\\rd\\e\\x1b\\x7f\\x9b\udcff"
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ok.txt").write_text("cheap pills offer")
    (docs / "x\ntextnb: error: forged.bin").write_bytes(b"\x00\x01\x02binary\x00" * 20)
    (docs / "y\nspamfilter: forged.eml").write_bytes(b"")
    model = tmp_path / "m.tnb"
    textnb.TextClassifier().fit(["cheap pills offer", "win money now", "meeting at noon", "lunch report team"],
                                ["spam", "spam", "ham", "ham"]).save(model)
    rc, out, err = cli("predict", model, docs)
    assert rc == 1 and len(out.splitlines()) == 2 and "y\\nspamfilter: forged.eml\t" in out, (out, err)
    assert _lines_of("textnb", err, 1)[0].endswith("x\\ntextnb: error: forged.bin: binary file, skipped")
    rc, out, err = run_spamfilter(["-m", spam_model, "--batch", docs])
    assert rc == 3 and "x\\ntextnb: error: forged.bin\t" in out
    assert _lines_of("spamfilter", err, 1)[0].endswith("y\\nspamfilter: forged.eml: empty message")
    copy = tmp_path / "sf.tnb"
    copy.write_bytes(spam_model.read_bytes())
    rc, _, err = run_spamfilter(["-m", copy, "--register-spam", docs])
    assert rc == 3 and "y\\nspamfilter: forged.eml" in err, err
    _lines_of("spamfilter", err)
    rc, _, err = run_topicfilter(["-m", model, "--uncalibrated", "-o", tmp_path / "routed", docs])
    assert rc == 1 and "x\\ntextnb: error: forged.bin" in err, err
    _lines_of("topicfilter", err)
    # the lines on standard output that name an output path
    corpus = tmp_path / "c.tsv"
    corpus.write_text("label\ttext\n" + "".join(f"{'spam' if i % 2 else 'ham'}\tword{i % 5} other{i % 3} "
                                                f"{'cheap' if i % 2 else 'lunch'}\n" for i in range(40)))
    forged = "o\ntextnb: error: forged"
    rc, out, err = cli("train", corpus, "-o", tmp_path / f"{forged}.tnb")
    assert rc == 0 and out.splitlines()[-2] == f"model: DiscriminativeNB -> {tmp_path}/o\\ntextnb: error: forged.tnb", out
    textnb.TextClassifier().fit(["cheap offer", "money now", "agenda at noon", "team lunch"],
                                ["spam", "spam", "ham", "ham"]).save(tmp_path / "m2.tnb")
    rc, out, err = cli("merge", model, tmp_path / "m2.tnb", "-o", tmp_path / f"{forged}2.tnb")
    assert rc == 0 and out == f"merged 2 models -> {tmp_path}/o\\ntextnb: error: forged2.tnb\n", (out, err)
    rc, out, err = cli("evaluate", corpus, "--cv", "2", "--plot", tmp_path / f"{forged}.png")
    assert rc == 0 and out.splitlines()[-1].endswith(f" plot: {tmp_path}/o\\ntextnb: error: forged.png"), out
    rc, out, err = cli("inspect", model, "--plot", tmp_path / f"{forged}3.png")
    assert rc == 0 and out.splitlines()[-1] == f"informative terms plot: {tmp_path}/o\\ntextnb: error: forged3.png", out
    spam, ham = tiny_mail(tmp_path)
    rc, _, err = run_spamfilter(["-m", tmp_path / f"{forged}.sf.tnb", "--train-spam", spam, "--train-ham", ham])
    assert rc == 0 and _lines_of("spamfilter", err, 1)[0].startswith(f"spamfilter: trained {tmp_path}/o\\ntextnb"), err
    # an error and a warning of the library, and a usage error, that name a path
    rc, _, err = cli("train", tmp_path / f"{forged}.tsv", "-o", tmp_path / "n.tnb")
    assert rc == 1 and _lines_of("textnb", err, 1)[0].startswith(f"textnb: error: {tmp_path}/o\\ntextnb: error: forged.tsv: ")
    table = tmp_path / f"{forged}.csv"
    table.write_text("1,2,a\n" + "".join(f"{i},{i % 3},{'ab'[i % 2]}\n" for i in range(20)))
    rc, _, err = cli("train", table, "-o", tmp_path / "t.tnb")
    assert rc == 0 and "looks like data" in _lines_of("textnb", err, 1)[0], err
    capsys.readouterr()
    rc, _, _ = cli("predict", model, "--bogus\ntextnb:error:forged")  # (argparse's own stderr)
    lines = capsys.readouterr().err.splitlines()
    assert rc == 2 and lines == ["textnb predict: error: unrecognized arguments: --bogus\\ntextnb:error:forged",
                                 "(see 'textnb predict --help')"], lines


# -- session 49: a file the user may not write is not replaced ----------------------------------
def _mode_bits_stop_us(monkeypatch):
    """``os.access`` as the kernel answers a process that the mode bits stop (a user; root
    without ``CAP_DAC_OVERRIDE``): a file without its owner's write bit is not writable. (The
    tests run as root, whom they do not stop; the subprocess test below asks the kernel.)"""
    import stat

    real = os.access

    def access(path, mode, **kwargs):
        if mode & os.W_OK and not os.stat(path).st_mode & stat.S_IWUSR:
            return False
        return real(path, mode, **kwargs)

    monkeypatch.setattr(os, "access", access)


def _read_only_files(tmp_path, spam_model):
    """A corpus, a second model, and the read-only (0444) files: a model, a spam model beside
    its journal, a PNG; ``(corpus, other model, {name: path})``."""
    from conftest import cli

    corpus = tmp_path / "c.tsv"
    corpus.write_text("label\ttext\n" + "".join(f"{'spam' if i % 2 else 'ham'}\tword{i % 5} other{i % 3} "
                                                f"{'cheap' if i % 2 else 'lunch'}\n" for i in range(40)))
    assert cli("train", corpus, "-o", tmp_path / "m.tnb")[0] == 0
    assert cli("train", corpus, "--model", "multinomial", "-o", tmp_path / "other.tnb")[0] == 0
    assert cli("train", corpus, "--model", "multinomial", "-o", tmp_path / "other2.tnb")[0] == 0
    (tmp_path / "sf.tnb").write_bytes(spam_model.read_bytes())
    (tmp_path / "p.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 64)
    files = {name: tmp_path / name for name in ("m.tnb", "sf.tnb", "p.png")}
    for path in files.values():
        path.chmod(0o444)
    os.symlink("m.tnb", tmp_path / "link.tnb")
    return corpus, tmp_path / "other.tnb", files


def test_a_read_only_file_is_never_replaced(tmp_path, spam_model, monkeypatch):
    """Found by a user trial (session 49): a ``chmod 444`` model was silently replaced by
    ``textnb train -o``, ``merge -o``, ``--plot`` onto a 0444 picture, ``spamfilter
    --register-*`` / ``--train-*`` (a rename in the folder, which the file's mode does not
    stop), where bogofilter refuses a read-only wordlist. Now every writer refuses, before
    any work, in one line naming the file (model_io.output_target); root, whom the mode does
    not stop, replaces it."""
    from conftest import cli, run_spamfilter, tiny_mail

    from textnb.core.errors import InputError
    from textnb.core.model_io import atomic_write, load, save

    corpus, other, files = _read_only_files(tmp_path, spam_model)
    spam, ham = tiny_mail(tmp_path)
    before = {name: path.read_bytes() for name, path in files.items()}
    journal = tmp_path / "sf.tnb.learned"
    _mode_bits_stop_us(monkeypatch)
    said = "is read-only (mode 0444); refusing to replace it (chmod u+w to let textnb replace it)"
    for argv, name in ((["train", corpus, "-o", files["m.tnb"]], "m.tnb"),
                       (["train", corpus, "-o", tmp_path / "link.tnb"], "link.tnb"),
                       (["merge", other, tmp_path / "other2.tnb", "-o", files["m.tnb"]], "m.tnb"),
                       (["evaluate", corpus, "--cv", "2", "--plot", files["p.png"]], "p.png"),
                       (["inspect", other, "--plot", files["p.png"]], "p.png")):
        rc, out, err = cli(*argv)
        assert (rc, out, err) == (1, "", f"textnb: error: {tmp_path / name}: {said}\n"), argv
    for argv in (["-m", files["sf.tnb"], "--register-spam", spam], ["-m", files["sf.tnb"], "--train-spam", spam,
                                                                     "--train-ham", ham]):
        rc, _, err = run_spamfilter(argv)
        assert rc == 3 and err == f"spamfilter: {files['sf.tnb']}: {said}\n", (argv, err)
    with pytest.raises(InputError, match="is read-only"):
        save(load(other), files["m.tnb"])
    with pytest.raises(InputError, match="is read-only"):
        atomic_write(files["p.png"], lambda f: f.write(b"x"))
    assert {name: path.read_bytes() for name, path in files.items()} == before
    assert not journal.exists() and sorted(os.listdir(tmp_path)) == sorted(
        ["c.tsv", "m.tnb", "other.tnb", "other2.tnb", "sf.tnb", "p.png", "link.tnb", "spam", "ham", "spam.tnb"])  # (no lock, no temporary)
    files["m.tnb"].chmod(0o644)  # (chmod u+w: replaced)
    rc, _, err = cli("train", corpus, "--model", "multinomial", "-o", files["m.tnb"])
    assert rc == 0 and files["m.tnb"].read_bytes() != before["m.tnb"], err
    monkeypatch.undo()  # root, whom the mode does not stop (os.access says so), replaces a read-only file
    if os.geteuid() == 0:
        rc, _, err = run_spamfilter(["-m", files["sf.tnb"], "--register-spam", spam])
        assert rc == 0 and files["sf.tnb"].read_bytes() != before["sf.tnb"], err


_NO_DAC_OVERRIDE = ["setpriv", "--inh-caps=-dac_override,-dac_read_search,-fowner",
                    "--bounding-set=-dac_override,-dac_read_search,-fowner"]


def test_root_without_dac_override_is_refused_a_read_only_model_as_the_kernel_says(tmp_path, spam_model):
    """The kernel's own answer (no stand-in for ``os.access``): root without
    ``CAP_DAC_OVERRIDE`` (setpriv), as a user, may not replace a 0444 model nor a 0444 spam
    model; ``textnb train`` says so in one line (exit 1), ``spamfilter`` too (exit 3, as
    bogofilter's ``Permission denied``)."""
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv (a user is stopped by the mode bits alone: the test above)")
    repo = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=str(repo), OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    if subprocess.run([*_NO_DAC_OVERRIDE, "true"], capture_output=True).returncode != 0:
        pytest.skip("setpriv cannot drop capabilities here")
    corpus, _, files = _read_only_files(tmp_path, spam_model)
    from conftest import tiny_mail

    spam, ham = tiny_mail(tmp_path)
    before = {name: path.read_bytes() for name, path in files.items()}
    said = "is read-only (mode 0444); refusing to replace it (chmod u+w to let textnb replace it)"
    for argv, prog, code, name in (
            ([sys.executable, "-m", "textnb", "train", corpus, "-o", files["m.tnb"]], "textnb: error", 1, "m.tnb"),
            ([sys.executable, repo / "scripts" / "spamfilter", "-m", files["sf.tnb"], "--register-spam", spam],
             "spamfilter", 3, "sf.tnb")):
        proc = subprocess.run([*_NO_DAC_OVERRIDE, *map(str, argv)], capture_output=True, text=True, env=env,
                              cwd=tmp_path, timeout=120)
        assert (proc.returncode, proc.stderr) == (code, f"{prog}: {files[name]}: {said}\n"), proc
    assert {name: path.read_bytes() for name, path in files.items()} == before
