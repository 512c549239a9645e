"""What a trial of the command line found (session 23): options accepted and left unused
without a word, an empty standard input named three ways, a numeric class column learned
as one class per value without a word."""

import json
import warnings

import pytest

from conftest import cli, one_error_line

from textnb.core.errors import DataWarning

NOMINAL = "colour,shape,class\nred,round,a\nblue,square,b\nred,square,a\nblue,round,b\n"


def _folder(root):
    for label, words in (("spam", "buy cheap pills"), ("ham", "meeting lunch today")):
        (root / label).mkdir(parents=True)
        for i in range(3):
            (root / label / f"{i}.txt").write_text(f"{words} {i}\n")
    return root




@pytest.mark.parametrize("command", ["train", "evaluate"])
@pytest.mark.parametrize("options, flags, pronoun", [
    (["--label-column", "label"], "--label-column is for TSV/CSV files", "it"),
    (["--text-column", "text"], "--text-column is for TSV/CSV files", "it"),
    (["--class", "label"], "--class is for tables", "it"),
    (["--ignore", "id"], "--ignore is for tables", "it"),
    (["--label-column", "label", "--text-column", "text"], "--label-column, --text-column are for TSV/CSV files",
     "they"),
])
def test_column_options_with_a_folder_corpus_are_refused(tmp_path, command, options, flags, pronoun):
    """A folder corpus (corpus/<label>/<files>) has no columns: --label-column, --text-column,
    --class and --ignore were accepted and changed nothing (the model byte for byte the plain
    one); now one line, exit 1, in the words of the other unused-option refusals (session 30:
    the one rule, textnb.io.inputs.refuse_unread_options)."""
    corpus = _folder(tmp_path / "c")
    extra = ["-o", tmp_path / "m.tnb"] if command == "train" else ["--cv", "2"]
    rc, out, err = cli(command, corpus, *options, *extra)
    assert rc == 1 and out == ""
    one_error_line(err, f"{corpus}: read as a folder corpus", flags, f"{pronoun} would be left unused")
    assert not (tmp_path / "m.tnb").exists()


def test_column_options_still_read_a_tsv_corpus(tmp_path):
    """The refusal is for folders: a TSV corpus still takes its column options."""
    data = tmp_path / "d.tsv"
    data.write_text("id\tcat\tbody\n" + "".join(f"{i}\t{c}\t{w} {i}\n" for i, (c, w) in enumerate(
        [("spam", "buy cheap pills"), ("ham", "lunch today")] * 4)))
    rc, _, err = cli("train", data, "--label-column", "cat", "--text-column", "body", "-o", tmp_path / "m.tnb")
    assert rc == 0, err
    assert "warning" not in err


@pytest.mark.parametrize("options, words", [
    (["--numeric", "kde"], "--numeric kde is for numeric attributes, which this table does not have; it is left"),
    (["--numeric", "equal-width", "--bins", "4"],
     "--numeric equal-width and --bins 4 are for numeric attributes, which this table does not have; they are left"),
    (["--model", "tan", "--numeric", "mdl"], "--numeric mdl is for numeric attributes"),
    (["--lazy", "lbr", "--numeric", "mdl"], "--numeric mdl is for numeric attributes"),
])
@pytest.mark.parametrize("command", ["train", "evaluate"])
def test_numeric_options_on_a_table_without_numbers_warn_in_one_line(tmp_path, options, words, command):
    """--numeric (and --bins) on a table whose attributes are all nominal were left unused without
    a word. A warning, not an error: a script passing --numeric kde to every table of a benchmark,
    as Weka's experimenter passes NaiveBayes -K to every data set, is no mistake; the model still
    trains (once per run, not once per fold)."""
    data = tmp_path / "n.csv"
    data.write_text(NOMINAL)
    extra = ["-o", tmp_path / "m.tnb"] if command == "train" else ["--cv", "2"]
    rc, _, err = cli(command, data, *options, *extra)
    assert rc == 0, err
    lines = [line for line in err.splitlines() if line.startswith("textnb: warning:")]
    assert len(lines) == 1 and f"{data}: " in lines[0] and words in lines[0], err


def test_numeric_options_on_a_table_with_numbers_say_nothing(tmp_path):
    data = tmp_path / "t.csv"
    data.write_text("colour,size,class\n" + "".join(f"{c},{s},{k}\n" for c, s, k in [
        ("red", 1, "a"), ("blue", 2, "b"), ("red", 1.5, "a"), ("blue", 2.5, "b"), ("red", 1.2, "a"),
        ("blue", 2.2, "b")]))
    rc, _, err = cli("train", data, "--numeric", "kde", "-o", tmp_path / "m.tnb")
    assert rc == 0 and "warning" not in err, err


def _run(*argv, stdin=b""):
    """``textnb ARGV`` with ``stdin`` (bytes) on standard input: (exit status, stdout, stderr)."""
    return cli(*argv, stdin=stdin)
@pytest.fixture(scope="module")
def models(tmp_path_factory):
    root = tmp_path_factory.mktemp("stdin_models")
    text, table = root / "text.tnb", root / "table.tnb"
    data = root / "n.csv"
    data.write_text(NOMINAL)
    assert cli("train", _folder(root / "c"), "-o", text)[0] == 0
    assert cli("train", data, "-o", table)[0] == 0
    return {"text": text, "table": table}


@pytest.mark.parametrize("model, argv", [
    ("table", []), ("table", ["-"]), ("text", ["--rows"]), ("text", ["--rows", "-"]), ("table", ["--json"]),
])
def test_an_empty_standard_input_is_named_one_way(models, model, argv):
    """An empty standard input was '-: empty file' for a table model and 'stdin: empty file' for
    --rows: now 'stdin: standard input is empty' (the words of 'standard input is closed')."""
    rc, out, err = _run("predict", models[model], *argv)
    assert rc == 1 and out == ""
    assert one_error_line(err) == "textnb: error: stdin: standard input is empty"


@pytest.mark.parametrize("stdin", [b"", b"\n\n"])
def test_an_empty_standard_input_to_test_is_said_empty(models, stdin):
    """`textnb test MODEL -` of nothing said 'no line has a label'; lines without a label still do."""
    rc, _, err = _run("test", models["text"], "-", stdin=stdin)
    assert rc == 1
    assert one_error_line(err) == "textnb: error: stdin: standard input is empty"
    rc, _, err = _run("test", models["text"], "-", stdin=b"no label here\n")
    assert rc == 1 and "stdin: no line has a label" in err


def test_a_text_model_reads_an_empty_standard_input_as_one_empty_document(models, tmp_path):
    """As the README says, a text model's `predict MODEL -` (or no PATH) reads one document, and an
    empty document gets the class prior, as an empty file does (docs/robustness.md): exit 0, kept."""
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    rc, want, _ = cli("predict", models["text"], empty, "--json", "--proba")
    assert rc == 0
    for argv in ([], ["-"]):
        rc, out, err = _run("predict", models["text"], *argv, "--json", "--proba")
        assert rc == 0 and err == ""
        got, expected = json.loads(out), json.loads(want)
        assert got["source"] == "stdin" and got["proba"] == expected["proba"]


def test_empty_input_names_a_file_and_standard_input():
    from textnb.core.errors import empty_input

    assert empty_input("a.csv") == "a.csv: empty file"
    assert empty_input("-") == empty_input("stdin") == "stdin: standard input is empty"
    assert empty_input("/dev/stdin") == "/dev/stdin: standard input is empty"


def _numeric_class(path, n=60, distinct=True):
    rows = [f"{'pq'[i % 2]},{(i * 7) % 30 + 0.5 if distinct else i % 2}" for i in range(n)]
    path.write_text("x,price\n" + "".join(r + "\n" for r in rows))
    return path


@pytest.mark.parametrize("command", ["train", "evaluate"])
def test_a_numeric_class_of_many_values_warns_in_one_line(tmp_path, command):
    """`train TABLE --class price` of a numeric column made each of its 30 values a class without a
    word; now one DataWarning (printed once, evaluate too) suggesting to cut it into classes."""
    data = _numeric_class(tmp_path / "p.csv")
    extra = ["-o", tmp_path / "m.tnb"] if command == "train" else ["--cv", "2"]
    rc, _, err = cli(command, data, "--class", "price", *extra)
    assert rc == 0, err
    lines = [line for line in err.splitlines() if line.startswith("textnb: warning:")]
    assert lines == [f"textnb: warning: {data}: class attribute 'price' holds numbers with 30 distinct values in "
                     "60 rows: each value is a class of its own; to predict ranges of it, cut it into a few named "
                     "classes first (or choose another class with --class)"], err


def test_a_numeric_class_of_few_values_and_a_declared_class_say_nothing(tmp_path):
    """A 0/1 class column, a nominal class, an ARFF class declared nominal: no warning."""
    from textnb.io.tables import read_table

    with warnings.catch_warnings():
        warnings.simplefilter("error", DataWarning)
        read_table(_numeric_class(tmp_path / "b.csv", distinct=False), class_name="price")
        names = tmp_path / "n.csv"
        names.write_text("x,c\n" + "".join(f"{i},k{i}\n" for i in range(30)))
        read_table(names)  # many classes, but not numbers
        arff = tmp_path / "d.arff"
        arff.write_text("@relation r\n@attribute x {p,q}\n@attribute c {" + ",".join(map(str, range(30)))
                        + "}\n@data\n" + "".join(f"{'pq'[i % 2]},{i}\n" for i in range(30)))
        read_table(arff)
    with pytest.warns(DataWarning, match="30 distinct values in 30 rows"):
        read_table(_numeric_class(tmp_path / "m.csv", n=30), class_name="price")


def test_one_plural_rule_for_the_library_and_the_command_line(tmp_path):
    """The library's messages said '1 cell(s)' where the command line said '1 cell': one rule,
    textnb.core.errors.counted, which textnb.cli.output re-exports."""
    from textnb.cli import output
    from textnb.core import errors
    from textnb.io.fasttext import unlabeled_line
    from textnb.io.tables import read_table

    assert output.counted is errors.counted
    assert errors.counted(1, "cell") == "1 cell" and errors.counted(2, "cell") == "2 cells"
    assert unlabeled_line(1) == "skipped 1 line without a label"
    train, query = tmp_path / "t.csv", tmp_path / "q.csv"
    train.write_text(NOMINAL)
    query.write_text("colour,shape,class\ngreen,round,a\nred,square,b\n")
    table = read_table(train)
    with pytest.warns(DataWarning, match=r"'colour': 1 cell with values the model never saw \('green'\)"):
        read_table(query, like=table.attributes)


@pytest.mark.parametrize("command", ["train", "evaluate"])
@pytest.mark.parametrize("options, flags", [
    (["--strict"], "--strict is"), (["--separate-documents"], "--separate-documents is"),
    (["--method", "ovr"], "--method is"), (["--strategy", "rcut", "--min-labels", "2"], "--strategy, --min-labels are"),
])
def test_multi_label_options_on_a_single_label_corpus_are_refused(tmp_path, command, options, flags):
    """Session 26's trial: ``train CORPUS --strict`` (without ``--labels``), ``--separate-documents``
    (without ``--multilabel``), ``--method`` / ``--strategy`` / ``--min-labels`` on a corpus
    read single-label (a folder, a TSV, a table) trained or evaluated as if they were not there.
    The defaults given explicitly still go through, and a multi-label corpus takes them."""
    folder = _folder(tmp_path / "c")
    (tmp_path / "t.csv").write_text(NOMINAL)
    out = ["-o", tmp_path / "m.tnb"] if command == "train" else []
    for data in (folder, tmp_path / "t.csv"):
        rc, _, err = cli(command, data, *options, *out)
        assert rc == 1 and not (tmp_path / "m.tnb").exists()
        one_error_line(err, f"{data}: {flags} for multi-label corpora", "read single-label", "left unused")
    assert cli(command, folder, "--method", "copy", "--min-labels", "1", *out)[0] == 0
    ft = tmp_path / "ml.txt"
    ft.write_text("".join(f"__label__a __label__b buy cheap pills {i}\n__label__b meeting lunch today {i}\n"
                          for i in range(6)))
    if "--strict" not in options and "--separate-documents" not in options:  # (those two: a label file, folders)
        assert cli(command, ft, *options, *out)[0] == 0


@pytest.mark.parametrize("command", ["train", "evaluate"])
@pytest.mark.parametrize("options, fragments", [
    (["--model", "multinomial", "--m", "2", "--alpha", "50"],
     ["--alpha goes with additive smoothing; --m (the m-estimate", "would leave it unused"]),
    (["--model", "complement", "--m", "2", "--alpha", "0.5", "--calibrate", "sigmoid"],
     ["--alpha goes with additive smoothing", "would leave it unused"]),
    (["--m", "2", "--alpha", "50"], ["--alpha goes with additive smoothing", "would leave it unused"]),
    (["--model", "bernoulli", "--weighting"], ["--weighting does not go with --model bernoulli",
                                               "whether a term is present"]),
    (["--model", "bernoulli", "--weighting", "--select", "chi2:3"], ["--weighting does not go with --model bernoulli"]),
])
def test_count_model_options_the_model_leaves_unused_are_refused(tmp_path, command, options, fragments):
    """Session 48's trial: ``--alpha`` beside ``--m`` (the m-estimate takes no additive
    smoothing) and ``--weighting`` with ``--model bernoulli`` (it keeps only whether a term is
    present, which tf, idf and length normalisation do not change) trained the model made
    without them (the --alpha only written in the file). Now one line, exit 1, for train and
    evaluate, by the streaming trainer and the estimators alike; each option alone still trains."""
    corpus = _folder(tmp_path / "c")
    out = ["-o", tmp_path / "m.tnb"] if command == "train" else ["--cv", "2"]
    rc, stdout, err = cli(command, corpus, *options, *out)
    assert rc == 1 and stdout == "" and not (tmp_path / "m.tnb").exists()
    one_error_line(err, *fragments)
    for alone in (["--model", "multinomial", "--m", "2"], ["--model", "multinomial", "--alpha", "50"],
                  ["--model", "bernoulli"], ["--model", "multinomial", "--weighting"]):
        assert cli(command, corpus, *alone, *out)[0] == 0, alone


def test_count_model_refusals_are_the_estimators_too():
    """The one check is the estimators' as well (``make_text_classifier``, what the
    multi-label commands and the library's callers build)."""
    from textnb.core.errors import InputError
    from textnb.meta.registry import ModelOptions, make_text_classifier

    for opts in (ModelOptions(model="multinomial", m_estimate=2.0, alpha=50.0),
                 ModelOptions(model="bernoulli", weighting=True)):
        with pytest.raises(InputError, match="--alpha goes with|--weighting does not go"):
            make_text_classifier(opts)


@pytest.mark.parametrize("command", ["train", "evaluate"])
def test_alpha_with_m_on_a_csv_table_is_refused_in_a_tables_words(tmp_path, command):
    """A CSV file without text columns is found to be a table when read: ``--alpha`` beside
    ``--m`` there is the table's refusal (its --nominal words), for train as for evaluate, not
    the document models' (train's import of its modules before the clock refuses nothing)."""
    (tmp_path / "t.csv").write_text(NOMINAL)
    out = ["-o", tmp_path / "m.tnb"] if command == "train" else ["--cv", "2"]
    rc, _, err = cli(command, tmp_path / "t.csv", "--alpha", "0.5", "--m", "3", *out)
    assert rc == 1
    one_error_line(err, "--alpha goes with --nominal additive; --nominal m-estimate (chosen by --m) would leave it")
