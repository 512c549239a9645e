"""Session 24 (s24-stdin): ``-`` as standard input for every input PATH, as ``/dev/stdin``
is; column options with a multi-label folder refused as with a folder; ``--interval-fit``
without interval cells a warning as ``--numeric`` without numbers is; AODE's ``inspect
--json`` ``class_prior``; the command line naming flags, not library parameters."""

import json
import sys
from pathlib import Path

import pytest

from conftest import cli, one_error_line


REPO = Path(__file__).resolve().parents[2]
WEATHER = REPO / "corpora" / "weather.nominal.arff"
CORPUS = b"spam\tcheap pills now\nham\tlunch at noon\nspam\twin a prize\nham\tsee you soon\n"


def _run(*argv, stdin=b""):
    """``textnb ARGV`` with ``stdin`` (bytes) on standard input: (exit status, stdout, stderr)."""
    return cli(*argv, stdin=stdin)


@pytest.mark.parametrize("data, read", [(WEATHER.read_bytes(), "read 14 rows from stdin"),
                                        (CORPUS, "read 4 documents from stdin")], ids=["arff", "tsv"])
def test_train_dash_reads_standard_input(tmp_path, monkeypatch, data, read):
    """`textnb train -` said '-: no such file or folder' while `train /dev/stdin` read the pipe;
    now `-` is read as /dev/stdin is (its format told by its content), the model by default
    stdin.tnb."""
    monkeypatch.chdir(tmp_path)
    rc, out, err = _run("train", "-", stdin=data)
    assert rc == 0 and read in out and "-> stdin.tnb" in out, (out, err)
    assert (tmp_path / "stdin.tnb").is_file()


@pytest.mark.parametrize("where, path", [("news", "."), ("news", "./"), ("news/spam", ".."), ("news/spam", "../"),
                                         ("news/spam", "../../news/."), ("", "news/spam/..")])
def test_train_dot_and_dot_dot_name_the_model_after_the_folder(tmp_path, monkeypatch, where, path):
    """Found by a user trial (session 49): `textnb train .` inside a corpus folder wrote
    `./..tnb` (and `train ..` from a class folder `...tnb`), where --help promises
    `<PATH name>.tnb`; now the folder's own name, as `train ../news/` gives."""
    from textnb.io.inputs import default_model_path

    for label, text in (("spam", "cheap pills now"), ("ham", "lunch at noon")):
        (tmp_path / "news" / label).mkdir(parents=True, exist_ok=True)
        for i in range(3):
            (tmp_path / "news" / label / f"{i}.txt").write_text(f"{text} {i}")
    monkeypatch.chdir(tmp_path / where)
    assert default_model_path(path) == "news.tnb"
    rc, out, err = _run("train", path)
    assert rc == 0 and "-> news.tnb" in out, (out, err)
    assert (tmp_path / where / "news.tnb").is_file() and not list(tmp_path.rglob("*..tnb"))
    assert default_model_path("/") == "model.tnb" and default_model_path("-") == "stdin.tnb"
    if where == "news" and path == ".":  # run again there: the model is a file of the corpus now; the
        rc, out, err = _run("train", path)  # refusal says where to write it instead, and that works
        assert rc == 1 and "is a file of the input folder" in err and len(err.strip().splitlines()) == 1, err
        suggested = err.split("e.g. -o ", 1)[1].strip().rstrip(")")
        assert suggested == str((tmp_path / "news.tnb").resolve())
        rc, out, err = _run("train", path, "-o", suggested)
        assert rc == 0 and (tmp_path / "news.tnb").is_file(), err


@pytest.mark.parametrize("train, test", [(WEATHER, WEATHER.read_bytes()), ("c.tsv", CORPUS)], ids=["arff", "tsv"])
def test_evaluate_test_dash_reads_standard_input(tmp_path, train, test):
    """`evaluate PATH --test -` said '-: no such file or folder'; now the test part is read from
    standard input, the same report as the file gives."""
    if train == "c.tsv":
        train = tmp_path / "c.tsv"
        train.write_bytes(CORPUS)
    rc, want, _ = cli("evaluate", train, "--test", train, "--json")
    assert rc == 0
    rc, out, err = _run("evaluate", train, "--test", "-", "--json", stdin=test)
    assert rc == 0, err
    got, expected = json.loads(out), json.loads(want)
    assert got["n"] == expected["n"] and got["accuracy"] == expected["accuracy"]


def test_evaluate_path_dash_reads_standard_input():
    rc, out, err = _run("evaluate", "-", "--cv", "2", "--json", stdin=WEATHER.read_bytes())
    assert rc == 0 and json.loads(out)["n"] == 14, err


@pytest.mark.parametrize("argv", [["train", "-"], ["evaluate", WEATHER, "--test", "-"], ["evaluate", "-"]])
def test_an_empty_standard_input_as_dash_is_said_empty(tmp_path, argv):
    rc, out, err = _run(*argv, *(["-o", tmp_path / "m.tnb"] if argv[0] == "train" else []))
    assert rc == 1 and out == ""
    assert one_error_line(err) == "textnb: error: stdin: standard input is empty"


def test_standard_input_cannot_be_both_path_and_test():
    rc, out, err = _run("evaluate", "-", "--test", "-", stdin=WEATHER.read_bytes())
    assert rc == 1 and out == ""
    one_error_line(err, "standard input given as PATH and as --test: it can be read once")


def test_train_dash_through_a_real_pipe(tmp_path):
    """The process's own standard input (a pipe), not a stand-in."""
    import os
    import subprocess

    env = dict(os.environ, PYTHONPATH=str(REPO), OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, "-m", "textnb", "train", "-"], input=WEATHER.read_bytes(),
                          capture_output=True, env=env, cwd=tmp_path, timeout=120)
    assert proc.returncode == 0 and b"read 14 rows from stdin" in proc.stdout, proc.stderr
    assert (tmp_path / "stdin.tnb").is_file()


def _multilabel_folder(root):
    for label, words in (("sport", "ball goal match"), ("news", "today report vote")):
        (root / label).mkdir(parents=True)
        for i in range(3):
            (root / label / f"{label}{i}.txt").write_text(f"{words} {i}\n")
    return root


@pytest.mark.parametrize("command", ["train", "evaluate"])
@pytest.mark.parametrize("options, flags", [(["--label-column", "label"], "--label-column is for TSV/CSV files"),
                                            (["--text-column", "text"], "--text-column is for TSV/CSV files"),
                                            (["--class", "label", "--ignore", "id"], "--class, --ignore are for tables")])
def test_column_options_with_a_multilabel_folder_are_refused(tmp_path, command, options, flags):
    """`--multilabel --label-column X` on a folder was accepted and X left unused; now the one line
    a single-label folder gets."""
    corpus = _multilabel_folder(tmp_path / "ml")
    extra = ["-o", tmp_path / "m.tnb"] if command == "train" else ["--cv", "2"]
    rc, out, err = cli(command, corpus, "--multilabel", *options, *extra)
    assert rc == 1 and out == ""
    one_error_line(err, f"{corpus}: read as a multi-label corpus", flags, "unused")
    assert not (tmp_path / "m.tnb").exists()
    assert cli(command, corpus, "--multilabel", *extra)[0] == 0  # (without them: read as before)


@pytest.mark.parametrize("command", ["train", "evaluate"])
@pytest.mark.parametrize("fit", ["theorem1", "censored"])
def test_interval_fit_on_a_table_without_intervals_warns_in_one_line(tmp_path, command, fit):
    """--interval-fit on a table without [L,R] cells was an error while --numeric on a table
    without numbers is a warning: now a warning too, the run going on."""
    extra = ["-o", tmp_path / "m.tnb"] if command == "train" else ["--cv", "2"]
    rc, _, err = cli(command, WEATHER, "--interval-fit", fit, *extra)
    assert rc == 0, err
    lines = [line for line in err.splitlines() if line.startswith("textnb: ")]
    assert lines == [f"textnb: warning: {WEATHER}: --interval-fit {fit} is for uncertain numeric attributes "
                     "([L,R] cells), which this table does not have; it is left unused"], err


def test_aode_inspect_json_has_the_class_prior(tmp_path):
    """AODE's inspect --json had class_count and no class_prior, which TabularNB's has."""
    for model in ("nb", "aode"):
        assert cli("train", WEATHER, "--model", model, "-o", tmp_path / f"{model}.tnb")[0] == 0
    nb, aode = (json.loads(cli("inspect", tmp_path / f"{m}.tnb", "--json")[1]) for m in ("nb", "aode"))
    assert aode["class_prior"] == pytest.approx(nb["class_prior"])
    assert aode["class_prior"] == pytest.approx([10 / 16, 6 / 16])  # (9 + 1) / (14 + 2), (5 + 1) / (14 + 2)


def test_the_command_line_names_flags_not_library_parameters(tmp_path):
    """Errors and warnings said 'class_name / --class', 'drop= / --ignore', '--class
    (class_name=)': the command line now names the flag alone; the library keeps both."""
    from textnb.core.errors import InputError
    from textnb.io.tables import read_table

    data = tmp_path / "t.csv"
    data.write_text("a,b,c,class\nx,,1.5,p\ny,,2.5,q\nx,,3.5,p\n")
    arff = tmp_path / "t.arff"  # (a class declared numeric)
    arff.write_text("@relation r\n@attribute a {x,y}\n@attribute c numeric\n@data\nx,1\ny,2\n")
    cases = [(["train", data, "--ignore", "class"], "name it with --class"),
             (["train", data], "leave it out (--ignore b)"),
             (["train", arff, "--class", "c"], "(choose another with --class)")]
    for argv, words in cases:
        rc, _, err = cli(*argv, "-o", tmp_path / "m.tnb")
        line = one_error_line(err, words)
        assert rc == 1 and "class_name" not in line and "drop=" not in line, line
    assert cli("train", data, "--ignore", "b", "-o", tmp_path / "m.tnb")[0] == 0
    rc, _, err = cli("predict", tmp_path / "m.tnb", data, "--ignore", "a")
    assert rc == 1 and "drop=" not in one_error_line(err, "cannot leave out (--ignore) the model's attribute")
    with pytest.raises(InputError, match="class_name / --class"):  # the library's words, for its users
        read_table(arff, class_name="c")


@pytest.mark.parametrize("extra", [["-v"], ["--verbose", "--repeat", "1"], ["-v", "--test", str(WEATHER)],
                                   ["-v", "--cv", "3"]], ids=" ".join)
def test_evaluate_verbose_without_repeats_is_refused(extra):
    """``evaluate weather.nominal.arff -v`` exited 0 with the plain report: -v (the accuracy of each repeat)
    went with nothing. An option a run would leave unused is refused in one line, as --cv / --repeat with
    --test are."""
    rc, out, err = cli("evaluate", WEATHER, *extra)
    assert rc == 1 and out == ""
    one_error_line(err, "-v goes with --repeat R (R above 1: the accuracy of each repeat); a single run",
                   "would leave it unused")
    rc, out, err = cli("evaluate", WEATHER, "--cv", "3", "--repeat", "2", "-v")
    assert rc == 0 and "  repeat 2 (folds of seed 1)  " in out, err


def test_inspect_top_is_refused_where_a_table_model_lists_nothing_it_caps(tmp_path):
    """``inspect TAN.tnb --top 3`` exited 0 with the description --top changes nothing of (a network's
    structure; AODE's super-parents; numeric attributes; a table's --json, which lists every value): now
    one line, as an option a run would leave unused is. Where --top caps something it is taken."""
    numeric = tmp_path / "n.csv"
    numeric.write_text("a,b,class\n1,2,p\n2,3,q\n1.5,2.5,p\n3,1,q\n")
    mixed = tmp_path / "mixed.csv"
    mixed.write_text("text,kind,class\n" + "".join(f"{t},{k},{c}\n" for t, k, c in [
        ("cheap pills now", "x", "spam"), ("lunch at noon", "y", "ham"), ("win cheap prize", "x", "spam"),
        ("see you at lunch", "y", "ham")] * 3))
    models = {}
    for name, data, flags in [("tan", WEATHER, ["--model", "tan"]), ("apnbc-tan", WEATHER, ["--model", "tan", "--adjust"]),
                              ("aode", WEATHER, ["--model", "aode"]), ("nb", WEATHER, []), ("lbr", WEATHER, ["--lazy", "lbr"]),
                              ("numeric", numeric, []), ("mixed", mixed, ["--text-column", "text"])]:
        models[name] = tmp_path / f"{name}.tnb"
        assert cli("train", data, *flags, "-o", models[name])[0] == 0
    neither = "--top goes with a text model's informative terms or a table model's values per class; "
    for name, kind in [("tan", "a TAN"), ("apnbc-tan", "an APNBC(TAN)"), ("aode", "an AODE"), ("numeric", "a TabularNB")]:
        for extra in ([], ["--json"]):
            rc, out, err = cli("inspect", models[name], "--top", "3", *extra)
            assert rc == 1 and out == ""
            one_error_line(err, f"{models[name]}: {neither}{kind} model lists neither, so it would be left unused")
            assert cli("inspect", models[name], *extra)[0] == 0  # (without --top: described)
    for name, kind in [("nb", "a TabularNB"), ("lbr", "an LBR")]:  # values in the text view, every value in --json
        rc, out, err = cli("inspect", models[name], "--top", "1")
        assert rc == 0 and "... (2 more)" in out, err
        rc, out, err = cli("inspect", models[name], "--top", "1", "--json")
        assert rc == 1 and out == ""
        one_error_line(err, f"in its text view; --json lists every value of {kind} model, so it would be left unused")
    rc, out, err = cli("inspect", models["mixed"], "--top", "1", "--json")  # (a text attribute's terms: capped)
    assert rc == 0 and all(len(terms) == 1 for a in json.loads(out)["attributes"] if a["kind"] == "text"
                           for terms in a["informative_terms"].values()), err
