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
    one_error_line(err, "sms.csv: cannot drop unknown attribute(s) ['idx']; attributes: id, text, label")
    rc, _, err = cli("train", SMS_TSV, "--ignore", "id", "-o", tmp_path / "e.tnb")
    assert rc == 1
    one_error_line(err, "without a header row; --ignore names columns of a header")


@pytest.mark.parametrize("command", ["train", "evaluate"])
@pytest.mark.parametrize("options, flags", [(["--numeric", "kde"], "--numeric is"), (["--bins", "5"], "--bins is"),
                                            (["--nominal", "eq4"], "--nominal is"),
                                            (["--missing", "mode", "--interval-fit", "censored"],
                                             "--interval-fit, --missing are")])
def test_table_options_on_a_text_corpus_are_refused(tmp_path, command, options, flags):
    args = ["-o", tmp_path / "m.tnb"] if command == "train" else ["--cv", "2"]
    rc, out, err = cli(command, SMS_TSV, *options, *args)
    assert rc == 1 and out == "" and not (tmp_path / "m.tnb").exists()
    one_error_line(err, "SMSSpamCollection.tsv: read as a text corpus; ", flags, "for tables")


@pytest.mark.parametrize("command", ["train", "evaluate"])
@pytest.mark.parametrize("options, flags", [(["--ngram", "2"], "--ngram is"), (["--norm"], "--norm is"),
                                            (["--min-df", "2", "--binary"], "--min-df, --binary are"),
                                            (["--stop-words", "english"], "--stop-words is")])
def test_document_options_on_a_table_without_text_are_refused(tmp_path, command, options, flags):
    args = ["-o", tmp_path / "m.tnb"] if command == "train" else ["--cv", "2"]
    rc, out, err = cli(command, ARFF, *options, *args)
    assert rc == 1 and out == "" and not (tmp_path / "m.tnb").exists()
    one_error_line(err, "weather.numeric.arff: read as a table without text attributes; ", flags, "for documents")


def test_document_options_go_with_a_tables_text_attributes(tmp_path):
    _sms_with_ids(tmp_path / "sms.csv")
    rc, out, err = cli("train", tmp_path / "sms.csv", "--text-column", "text", "--ngram", "2", "--bins", "5",
                       "-o", tmp_path / "m.tnb", "--json")
    assert rc == 0, err
    assert json.loads(out)["text_attributes"] == 1
