"""Options that do not fit what PATH is read as are refused, and ``--ignore`` of a column a
text corpus does not read keeps it a text corpus (found by a user trial: both were taken
without a word, the first leaving the option unused or reading a text file as a table)."""

import csv
import json

import pytest

from conftest import CORPORA, SMS_TSV, cli, one_error_line

ARFF = CORPORA / "weather.numeric.arff"


def _sms_with_ids(path, n=600):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "text", "label"])
        for i, line in enumerate(SMS_TSV.read_text(encoding="utf-8").splitlines()[:n]):
            label, text = line.split("\t", 1)
            w.writerow([f"m{i}", text, label])


def test_ignoring_a_column_a_text_corpus_does_not_read_keeps_it_a_text_corpus(tmp_path):
    """``--ignore id`` on id,text,label: the same text model as without it (it was a table
    of one nominal attribute holding whole messages: every new text got the prior)."""
    _sms_with_ids(tmp_path / "sms.csv")
    rc, out, err = cli("train", tmp_path / "sms.csv", "--ignore", "id", "-o", tmp_path / "a.tnb", "--json")
    assert rc == 0 and json.loads(out)["documents"] == 600 and json.loads(out)["vocabulary_size"] > 1000, err
    assert cli("train", tmp_path / "sms.csv", "-o", tmp_path / "b.tnb")[0] == 0
    assert (tmp_path / "a.tnb").read_bytes() == (tmp_path / "b.tnb").read_bytes()
    rc, out, _ = cli("evaluate", tmp_path / "sms.csv", "--ignore", "id", "--cv", "3", "--json")
    assert rc == 0 and json.loads(out)["accuracy"] > 0.95
    # ignoring the text column leaves a table; an unknown name is an error, as for tables
    rc, out, _ = cli("train", tmp_path / "sms.csv", "--ignore", "text", "-o", tmp_path / "c.tnb", "--json")
    assert rc == 0 and json.loads(out)["attributes"] == 1
    rc, _, err = cli("train", tmp_path / "sms.csv", "--ignore", "idx", "-o", tmp_path / "d.tnb")
    assert rc == 1
    one_error_line(err, "sms.csv: no attribute named 'idx' to leave out (--ignore); attributes: id, text, label")
    # a two-column CSV file whose first row is a header (its first cell is no label of the
    # rows below) is a table, with or without --numeric (it was read as label,text, its
    # header a document of the class 'x'); one without a header is label,text unless
    # --ignore or --numeric ask for a table
    (tmp_path / "x.csv").write_text("x,play\n1,yes\n2,no\n3,yes\n4,no\n5,yes\n6,no\n")
    (tmp_path / "y.csv").write_text("1,yes\n2,no\n1,yes\n2,no\n1,yes\n2,no\n")
    for path, options, table in (("x.csv", ["--numeric", "kde"], True), ("x.csv", [], True),
                                 ("y.csv", ["--numeric", "kde"], True), ("y.csv", [], False)):
        rc, out, err = cli("train", tmp_path / path, *options, "-o", tmp_path / "e.tnb", "--json")
        assert rc == 0 and ("rows" in json.loads(out)) == table, (path, options, out, err)
    assert json.loads(cli("train", tmp_path / "x.csv", "-o", tmp_path / "e.tnb", "--json")[1])["rows"] == 6


@pytest.mark.parametrize("command", ["train", "evaluate"])
@pytest.mark.parametrize("options, flags", [(["--bins", "5"], "--bins is"),
                                            (["--nominal", "eq4"], "--nominal is"),
                                            (["--missing", "mode", "--interval-fit", "censored"],
                                             "--interval-fit, --missing are")])
def test_table_options_on_a_text_corpus_are_refused(tmp_path, command, options, flags):
    args = ["-o", tmp_path / "m.tnb"] if command == "train" else ["--cv", "2"]
    rc, out, err = cli(command, SMS_TSV, *options, *args)
    assert rc == 1 and out == "" and not (tmp_path / "m.tnb").exists()
    one_error_line(err, "SMSSpamCollection.tsv: read as a text corpus; ", flags, "for tables")


@pytest.mark.parametrize("command", ["train", "evaluate"])
@pytest.mark.parametrize("options, flags", [(["--ngram", "2"], "--ngram is"),
                                            (["--min-df", "2", "--binary"], "--min-df, --binary are"),
                                            (["--stop-words", "english"], "--stop-words is")])
def test_document_options_on_a_table_without_text_are_refused(tmp_path, command, options, flags):
    args = ["-o", tmp_path / "m.tnb"] if command == "train" else ["--cv", "2"]
    rc, out, err = cli(command, ARFF, *options, *args)
    assert rc == 1 and out == "" and not (tmp_path / "m.tnb").exists()
    one_error_line(err, "weather.numeric.arff: read as a table without text attributes; ", flags, "for documents")


def test_document_options_go_with_a_tables_text_attributes(tmp_path):
    _sms_with_ids(tmp_path / "sms.csv")
    rc, out, err = cli("train", tmp_path / "sms.csv", "--text-column", "text", "--ngram", "2", "--numeric",
                       "equal-width", "--bins", "5", "-o", tmp_path / "m.tnb", "--json")
    assert rc == 0, err
    assert json.loads(out)["text_attributes"] == 1


@pytest.mark.parametrize("command, table", [("train", False), ("evaluate", False), ("train", True)])
def test_no_lowercase_with_a_stemmer_is_refused(tmp_path, command, table):
    """The stemmers lowercase every word: --no-lowercase with --stem would be silently ignored."""
    corpus = SMS_TSV
    extra = []
    if table:
        corpus = tmp_path / "sms.csv"
        _sms_with_ids(corpus)
        extra = ["--text-column", "text"]
    args = ["-o", tmp_path / "m.tnb"] if command == "train" else ["--cv", "2"]
    rc, out, err = cli(command, corpus, *extra, "--no-lowercase", "--stem", "porter", *args)
    assert rc == 1 and out == "" and not (tmp_path / "m.tnb").exists()
    one_error_line(err, "--no-lowercase does not go with --stem")


def test_alpha_0_for_a_count_model_is_one_warning_line(tmp_path):
    """``--alpha 0`` (allowed) for a count model: one ``textnb: warning:`` line saying it is
    raised to 1e-10, once per run, and the model file holds the raised value, so predict
    and inspect say nothing (Python's two-line UserWarnings with source lines, naming a
    ``force_alpha`` the command line has not, were printed fold after fold)."""
    model = tmp_path / "a0.tnb"
    for args in (["train", SMS_TSV, "-o", model], ["evaluate", SMS_TSV, "--cv", "3"]):
        rc, out, err = cli(*args, "--model", "multinomial", "--alpha", "0")
        assert rc == 0 and err.splitlines() == [
            "textnb: warning: --alpha 0 is raised to 1e-10 for a count model (a term unseen in a class would make "
            "its probability 0)"], err
    (tmp_path / "t.txt").write_text("free prize now\n")
    for args in (["predict", model, "--lines", tmp_path / "t.txt"], ["inspect", model]):
        rc, out, err = cli(*args)
        assert rc == 0 and err == "", err
    assert "alpha=1e-10" in out.splitlines()[0]
    # the default model the same: it said the alpha was raised, and saved 0.0 (it computed with
    # 1e-10, as spamfilter --kind discriminative now saves it too)
    for args in (["train", SMS_TSV, "-o", tmp_path / "d.tnb"], ["evaluate", SMS_TSV, "--cv", "3"]):
        rc, out, err = cli(*args, "--alpha", "0")
        assert rc == 0 and err.splitlines() == [
            "textnb: warning: --alpha 0 is raised to 1e-10 for a count model (a term unseen in a class would make "
            "its probability 0)"], err
    rc, out, err = cli("inspect", tmp_path / "d.tnb")
    assert rc == 0 and "DiscriminativeNB(alpha=1e-10" in out.splitlines()[0], out


_MIXED_CSV = ('body,kind,hour,class\n"win a free prize",a,3,spam\n"free money",c,4,spam\n'
              '"meeting at noon",b,10,ham\n"lunch tomorrow",c,12,ham\n')
_MIXED_ARFF = ("@relation m\n@attribute body string\n@attribute kind {a,b,c}\n@attribute hour numeric\n"
               "@attribute class {ham,spam}\n@data\n'win a free prize',a,3,spam\n'free money',c,4,spam\n"
               "'meeting at noon',b,10,ham\n'lunch tomorrow',c,12,ham\n")


@pytest.mark.parametrize("suffix", ["csv", "arff"])
@pytest.mark.parametrize("options", [[], ["--adjust"], ["--calibrate", "sigmoid"]], ids=["plain", "adjust", "calibrate"])
def test_alpha_0_for_a_mixed_tables_words_is_raised_and_its_model_predicts(tmp_path, suffix, options):
    """``--alpha 0`` on a table with a text attribute: its word model is a count model, so
    the alpha of its words is raised to 1e-10 (one warning line naming the text attribute)
    while its nominal attributes keep 0 (relative frequencies); the model predicts finite
    probabilities and ``evaluate --test`` reports them (its word model kept alpha 0, without a
    word: ``predict`` refused the model's NaN scores, after numpy's warnings, and ``evaluate``
    reported an accuracy of NaN scores and no log loss). The kernel (train, evaluate) and the
    estimator (``--calibrate``) are built by the one rule."""
    import numpy as np

    import textnb

    (tmp_path / f"m.{suffix}").write_text(_MIXED_CSV if suffix == "csv" else _MIXED_ARFF)
    (tmp_path / "q.csv").write_text('body,kind,hour,class\n"free lunch",c,7,ham\n')
    text = ["--text-column", "body"] if suffix == "csv" else []
    warning = ["textnb: warning: --alpha 0 is raised to 1e-10 for the words of text attribute body (a term unseen "
               "in a class would make its probability 0)"]
    model = tmp_path / "m.tnb"
    rc, out, err = cli("train", tmp_path / f"m.{suffix}", *text, "--alpha", "0", *options, "-o", model)
    assert rc == 0 and err.splitlines() == warning, err
    rc, out, err = cli("predict", model, tmp_path / "q.csv", "--proba", "--json")
    assert rc == 0 and "textnb:" not in err, err  # (stderr: the accuracy line only)
    [line] = out.splitlines()
    assert np.isfinite(list(json.loads(line)["proba"].values())).all(), out
    rc, out, err = cli("evaluate", tmp_path / f"m.{suffix}", *text, "--alpha", "0", *options, "--test",
                       tmp_path / "q.csv", "--json")
    assert rc == 0 and err.splitlines() == warning, err
    assert json.loads(out)["log_loss"] is not None and json.loads(out)["log_loss"] < 1, out
    if not options:
        mixed = textnb.load(model)
        assert mixed.text_models_[0].model_.alpha == 1e-10 and mixed.tabular_.alpha == 0
        rc, out, err = cli("inspect", model)
        assert rc == 0 and "kind [nominal, nominal] ham: a=0 " in out, out


@pytest.mark.parametrize("suffix", ["csv", "tsv"])
def test_alpha_0_for_a_csv_table_is_used_as_given_without_a_warning(tmp_path, suffix):
    """``--alpha 0`` for a CSV/TSV table no option marks as one: its nominal attributes keep
    plain relative frequencies, without a word, as an ARFF table's and ``--model nb``'s do
    (it was said to be raised to 1e-10 for a count model, by the guess at which modules the
    run imports, while the model used 0)."""
    import textnb

    rows = ["outlook,windy,play", "sunny,yes,no", "sunny,no,no", "overcast,no,yes", "rainy,no,yes",
            "rainy,yes,no", "overcast,yes,yes"]
    table = tmp_path / f"t.{suffix}"
    table.write_text("".join(row.replace(",", "," if suffix == "csv" else "\t") + "\n" for row in rows))
    rc, out, err = cli("train", table, "--alpha", "0", "-o", tmp_path / "t.tnb")
    assert rc == 0 and err == "", err
    assert textnb.load(tmp_path / "t.tnb").alpha == 0
    rc, out, err = cli("inspect", tmp_path / "t.tnb")
    assert rc == 0 and "outlook [nominal, nominal] no: overcast=0 " in out, out
    rc, out, err = cli("train", table, "--alpha", "0", "--model", "nb", "-o", tmp_path / "nb.tnb")
    assert rc == 0 and err == "", err
    assert (tmp_path / "t.tnb").read_bytes() == (tmp_path / "nb.tnb").read_bytes()
    rc, out, err = cli("evaluate", table, "--alpha", "0", "--cv", "2")
    assert rc == 0 and err == "", err


def test_a_numeric_span_past_the_float_range_warns_nothing(tmp_path):
    """Equal-width cuts of a column from -1e308 to 1e308: their width overflowed (numpy's
    RuntimeWarning reached the user) before the one error line."""
    (tmp_path / "huge.csv").write_text("x,c,play\n1e308,a,yes\n-1e308,b,no\n3,a,yes\n1e308,b,no\n5,a,yes\n6,b,no\n")
    rc, _, err = cli("train", tmp_path / "huge.csv", "--numeric", "equal-width", "-o", tmp_path / "m.tnb")
    assert rc == 1
    one_error_line(err, "huge.csv: numeric attribute 'x' holds numbers too large to model")


@pytest.mark.parametrize("flag, text", [("--lines", "win cash now\nlunch at noon?\n"),
                                        ("--rows", "label\ttext\nspam\twin cash now\nham\tlunch at noon?\n")])
def test_predict_lines_and_rows_read_a_pipe_and_name_a_folder(tmp_path, flag, text):
    """``predict --lines <(command)`` said 'no such file' for the pipe, as for a folder
    (``train`` and ``test`` read a pipe): a FIFO named here is read, a folder is named."""
    import os
    import threading

    model = tmp_path / "m.tnb"
    assert cli("train", SMS_TSV, "-o", model)[0] == 0
    (tmp_path / "plain.txt").write_text(text)
    rc, expected, _ = cli("predict", model, flag, tmp_path / "plain.txt")
    assert rc == 0 and len(expected.splitlines()) == 2
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_text(text))
    writer.start()
    rc, out, _ = cli("predict", model, flag, fifo)
    writer.join(timeout=60)
    assert rc == 0 and out == expected.replace(str(tmp_path / "plain.txt"), str(fifo))
    rc, out, err = cli("predict", model, flag, tmp_path)
    assert rc == 1 and out == ""
    one_error_line(err, f"{tmp_path}: a folder, not a file")
    rc, out, err = cli("predict", model, flag, tmp_path / "missing.txt")
    assert rc == 1
    one_error_line(err, "missing.txt: no such file")


def test_predict_lines_top_k_of_a_multi_label_model_gives_the_k_most_probable(tmp_path):
    """As fastText's ``predict FILE K`` and ``textnb test MODEL FILE K`` (and as ``--help``
    says): it gave at most K of the labels the model's own rule chose."""
    lines = ["__label__a __label__b cheap pills now", "__label__b lunch at noon", "__label__a cheap offer",
             "__label__c meeting at noon", "__label__a __label__b cheap lunch", "__label__c agenda"] * 4
    (tmp_path / "ml.txt").write_text("\n".join(lines) + "\n")
    model = tmp_path / "ml.tnb"
    assert cli("train", tmp_path / "ml.txt", "-o", model)[0] == 0
    (tmp_path / "q.txt").write_text("cheap lunch at noon\nagenda\n")
    rc, out, _ = cli("predict", model, "--lines", tmp_path / "q.txt", "--json", "--proba")
    assert rc == 0
    rc, top, _ = cli("predict", model, "--lines", tmp_path / "q.txt", "--top", "2", "--json")
    assert rc == 0
    for row, ranked_row in zip(map(json.loads, out.splitlines()), map(json.loads, top.splitlines())):
        ranked = sorted(row["proba"], key=row["proba"].get, reverse=True)
        assert [x["label"] for x in ranked_row["labels"]] == ranked[:2]  # with their probabilities (predict-prob)
        assert [x["proba"] for x in ranked_row["labels"]] == [row["proba"][c] for c in ranked[:2]]


@pytest.mark.parametrize("options", [["--max-features", "50"], ["--min-df", "2"], ["--max-df", "0.5"]])
def test_merging_models_with_a_pruned_vocabulary_warns(tmp_path, options):
    """The docs promise a warning for every inexact merge; a pruned vocabulary needs the
    whole corpus (the merged model held 643 terms above a 500 cap, without a word)."""
    lines = SMS_TSV.read_text(encoding="utf-8").splitlines()[:400]
    for name, part in (("a", lines[:200]), ("b", lines[200:])):
        (tmp_path / f"{name}.tsv").write_text("\n".join(part) + "\n", encoding="utf-8")
        assert cli("train", tmp_path / f"{name}.tsv", "--model", "multinomial", *options,
                   "-o", tmp_path / f"{name}.tnb")[0] == 0
    rc, _, err = cli("merge", tmp_path / "a.tnb", tmp_path / "b.tnb", "-o", tmp_path / "ab.tnb")
    assert rc == 0 and err.count("textnb: warning:") == 1
    assert f"trained with {options[0]} {options[1]}: the merged model is not the model trained" in err
    for name in ("a", "b"):
        assert cli("train", tmp_path / f"{name}.tsv", "--model", "multinomial", "-o", tmp_path / f"{name}.tnb")[0] == 0
    rc, _, err = cli("merge", tmp_path / "a.tnb", tmp_path / "b.tnb", "-o", tmp_path / "ab.tnb")
    assert rc == 0 and err == ""


def test_empty_output_names_and_a_cv_too_large_for_a_table_name_the_problem(tmp_path, capsys):
    """Found by a user trial: ``inspect --plot ""`` drew nothing and exited 0; the
    cross-validation error of a small table did not name the file; a malformed
    ``--scheduler`` address was an internal error (exit 70)."""
    model = tmp_path / "tan.tnb"
    assert cli("train", CORPORA / "weather.nominal.arff", "--model", "tan", "-o", model)[0] == 0
    for args in (["inspect", model, "--plot", ""], ["train", ARFF, "-o", ""],
                 ["evaluate", ARFF, "--plot", ""]):
        rc, _, err = cli(*args)
        assert rc == 2 and "expected a file name, got an empty one" in err + capsys.readouterr().err
    rc, _, err = cli("evaluate", CORPORA / "weather.nominal.arff", "--cv", "10")  # (the default: 9 folds)
    assert rc == 1
    one_error_line(err, "weather.nominal.arff: no class has 10 objects, so there cannot be 10 folds")
    for address in ("foo", "tcp://localhost", "http://127.0.0.1:1"):
        rc, _, err = cli("train", SMS_TSV, "-o", tmp_path / "z.tnb", "--scheduler", address)
        err += capsys.readouterr().err
        assert rc == 2 and "expected local:N or a scheduler address" in err and "internal error" not in err


def test_lazy_and_aode_models_are_named_and_described_once(tmp_path):
    """``--lazy hlbr`` was summarised as 'LBR on mdl-discretised attributes' on an
    all-nominal table (inspect says HLBR); AODE's inspect printed each attribute's
    description twice."""
    rc, out, _ = cli("train", CORPORA / "weather.nominal.arff", "--lazy", "hlbr", "-o", tmp_path / "h.tnb")
    assert rc == 0 and "model: HLBR on nominal attributes ->" in out
    assert cli("train", CORPORA / "weather.nominal.arff", "--model", "aode", "-o", tmp_path / "a.tnb")[0] == 0
    rc, out, _ = cli("inspect", tmp_path / "a.tnb")
    assert rc == 0 and "  outlook [nominal, 3 of 3 values super-parents]\n" in out


def test_inspect_of_a_lazy_text_model_says_it_has_no_term_weights(tmp_path):
    """It printed empty 'ham: ' / 'spam: ' lines, and --plot blamed the output file."""
    model = tmp_path / "lbr.tnb"
    assert cli("train", SMS_TSV, "--lazy", "lbr", "-o", model)[0] == 0
    rc, out, _ = cli("inspect", model)
    assert rc == 0 and "most informative terms: none (LazyTextNB holds no weights of its own)" in out
    assert "  ham: \n" not in out
    rc, _, err = cli("inspect", model, "--plot", tmp_path / "l.png")
    assert rc == 1 and not (tmp_path / "l.png").exists()
    one_error_line(err, "lbr.tnb: --plot draws informative terms, which a LazyTextNB model does not have")


@pytest.mark.parametrize("model", [[], ["--model", "aode"], ["--lazy", "lbr"]])
def test_inspect_names_the_apnbc_wrapper_of_a_table_model(tmp_path, model):
    """Its first line said TabularNB / AODE / LBR (TAN and BN said APNBC(...)); --plot's
    refusal named only tan and bn models."""
    path = tmp_path / "m.tnb"
    assert cli("train", CORPORA / "weather.nominal.arff", *model, "--adjust", "-o", path)[0] == 0
    rc, out, _ = cli("inspect", path)
    assert rc == 0 and out.splitlines()[0].startswith("model: APNBC(")
    rc, _, err = cli("inspect", path, "--plot", tmp_path / "x.png")
    assert rc == 1
    one_error_line(err, "--plot draws the structure of a tan or bn model or a text model's informative terms")


@pytest.mark.parametrize("command", ["train", "evaluate"])
@pytest.mark.parametrize("options, flags", [(["--norm"], "--norm is"), (["--weighting"], "--weighting is"),
                                            (["--select", "chi2:2", "--weighting"], "--weighting, --select are")])
@pytest.mark.parametrize("text", [False, True])
def test_document_model_options_on_any_table_are_refused(tmp_path, command, options, flags, text):
    """--norm / --weighting / --select shape a document model; a table's text attributes are
    counted by multinomial parts that take the tokenizer options only. They were accepted on
    a table with a text column and left unused (the model file byte for byte the plain one)."""
    if text:
        _sms_with_ids(tmp_path / "t.csv")
        data, extra = tmp_path / "t.csv", ["--text-column", "text", "--ignore", "id"]
    else:
        data, extra = ARFF, []
    args = ["-o", tmp_path / "m.tnb"] if command == "train" else ["--cv", "2"]
    rc, out, err = cli(command, data, *extra, *options, *args)
    assert rc == 1 and out == "" and not (tmp_path / "m.tnb").exists()
    one_error_line(err, f"{data.name}: ", flags, "for documents, not tables")


@pytest.mark.parametrize("options", [[], ["--lazy", "lbr"], ["--adjust"]])
def test_missing_mode_outside_tan_and_bn_is_refused(tmp_path, options):
    """--missing mode was accepted with --model nb, --lazy and --adjust and changed nothing."""
    rows = ["sunny,hot,no", "?,hot,no", "rain,?,yes", "rain,mild,yes", "sunny,mild,yes", "?,hot,no"]
    (tmp_path / "w.arff").write_text("@relation w\n@attribute outlook {sunny,rain}\n@attribute temp {hot,mild}\n"
                                     "@attribute play {yes,no}\n@data\n" + "\n".join(rows) + "\n")
    rc, out, err = cli("train", tmp_path / "w.arff", "--missing", "mode", *options, "-o", tmp_path / "m.tnb")
    assert rc == 1 and out == "" and not (tmp_path / "m.tnb").exists()
    one_error_line(err, "--missing goes with --model tan or bn")
