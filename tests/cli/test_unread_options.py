"""Options an input does not read are refused by one rule (textnb.io.inputs.refuse_unread_options),
on train, evaluate and predict (session 30): a table's options (--ignore, --class, --numeric, ...)
with a fastText file, a multi-label corpus, a folder corpus or a text model, and a document's
(--max-bytes, --label-prefix, the tokenizer's) with a table. They were accepted and left unused.
And ``--no-header`` on a headerless label<TAB>text corpus reads it as the text corpus it is (it
forced the table reader, which stopped with a quoting error)."""

import json

import pytest

from conftest import CORPORA, SMS_TSV, cli, one_error_line

WORDS = {"spam": "win cash prize free offer claim", "ham": "meet lunch tomorrow home call later"}


def _fasttext(path, multilabel=False):
    lines = []
    for i in range(24):
        label = "spam" if i % 2 else "ham"
        extra = " __label__x" if multilabel and i % 3 == 0 else ""
        lines.append(f"__label__{label}{extra} {WORDS[label]} {i}")
    path.write_text("\n".join(lines) + "\n")
    return path


def _folder(root, multilabel=False):
    for label, words in WORDS.items():
        (root / label).mkdir(parents=True)
        for i in range(4):
            (root / label / f"{label}{i}.txt").write_text(f"{words} {i}\n")
    if multilabel:
        (root / "x").mkdir()
        (root / "x" / "spam0.txt").write_text((root / "spam" / "spam0.txt").read_text())
    return root


def _table(path):
    rows = ["id,length,caps,label"] + [f"{i},{10 + i % 7},{i % 3},{'spam' if i % 2 else 'ham'}" for i in range(30)]
    path.write_text("\n".join(rows) + "\n")
    return path


def _inputs(tmp_path):
    return {"fastText": (_fasttext(tmp_path / "f.txt"), [], "read as a fastText file"),
            "multi-label fastText": (_fasttext(tmp_path / "m.txt", True), [], "read as a fastText file"),
            "multi-label folder": (_folder(tmp_path / "ml", True), ["--multilabel"], "read as a multi-label corpus"),
            "folder": (_folder(tmp_path / "c"), [], "read as a folder corpus")}


@pytest.mark.parametrize("command", ["train", "evaluate"])
@pytest.mark.parametrize("source", ["fastText", "multi-label fastText", "multi-label folder", "folder"])
@pytest.mark.parametrize("options, flags", [
    (["--ignore", "x"], "--ignore is for tables"),
    (["--class", "x"], "--class is for tables"),
    (["--numeric", "kde", "--bins", "3"], "--numeric, --bins are for tables"),
    (["--label-column", "x"], "--label-column is for TSV/CSV files"),
    (["--missing", "mode", "--text-column", "x"], "--missing is for tables (ARFF, CSV/TSV attributes); "
                                                  "--text-column is for TSV/CSV files"),
])
def test_table_options_with_a_text_input_are_refused(tmp_path, command, source, options, flags):
    """Each was taken by a fastText file (one or several labels a line) and a multi-label
    corpus without a word (the model the same as without it); a folder refused some of them
    only. Now one line naming the input and the options, exit 1, nothing written."""
    path, extra, what = _inputs(tmp_path)[source]
    args = ["-o", tmp_path / "out.tnb"] if command == "train" else ["--cv", "2"]
    rc, out, err = cli(command, path, *extra, *options, *args)
    assert rc == 1 and out == "", (out, err)
    one_error_line(err, f"{path}: {what}", flags, "would be left unused")
    assert not (tmp_path / "out.tnb").exists()
    assert cli(command, path, *extra, *args)[0] == 0  # (without them: read as before)


@pytest.mark.parametrize("multilabel", [False, True])
@pytest.mark.parametrize("options, flags", [(["--ignore", "id"], "--ignore is"),
                                            (["--no-header", "--nominal-columns", "1"],
                                             "--nominal-columns, --no-header are")])
def test_table_options_with_a_text_model_are_refused(tmp_path, multilabel, options, flags):
    """``predict TEXT_MODEL FILE --ignore id`` classified FILE as without it."""
    data = _fasttext(tmp_path / "f.txt", multilabel)
    assert cli("train", data, "-o", tmp_path / "t.tnb")[0] == 0
    rc, out, err = cli("predict", tmp_path / "t.tnb", data, *options)
    assert rc == 1 and out == ""
    one_error_line(err, f"{tmp_path / 't.tnb'}: a text model, which reads documents; ", flags, "for tables")


@pytest.mark.parametrize("command", ["train", "evaluate"])
@pytest.mark.parametrize("options, flags", [(["--max-bytes", "10"], "--max-bytes is for documents"),
                                            (["--ngram", "2", "--stem", "porter"], "--stem, --ngram are for documents"),
                                            (["--token-pattern", r"\w+", "--min-df", "2", "--stop-words", "english"],
                                             "--token-pattern, --stop-words, --min-df are for documents")])
def test_document_options_with_a_table_are_refused(tmp_path, command, options, flags):
    """``--max-bytes`` with a CSV table was taken and changed nothing (the same model file);
    the tokenizer's options were refused already, now by the same rule."""
    path = _table(tmp_path / "t.csv")
    args = ["-o", tmp_path / "out.tnb"] if command == "train" else ["--cv", "2"]
    rc, out, err = cli(command, path, *options, *args)
    assert rc == 1 and out == ""
    one_error_line(err, f"{path}: read as a table without text attributes; ", flags, "would be left unused")


def test_document_options_go_with_a_mixed_tables_text_but_max_bytes_does_not(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text("text,length,label\n" + "".join(
        f"{WORDS[lab]} {i},{i % 5},{lab}\n" for i in range(20) for lab in ("spam", "ham")))
    rc, out, err = cli("train", path, "--text-column", "text", "--ngram", "2", "--stem", "porter", "--min-df", "2",
                       "-o", tmp_path / "m.tnb", "--json")
    assert rc == 0 and json.loads(out)["text_attributes"] == 1, err
    rc, out, err = cli("train", path, "--text-column", "text", "--max-bytes", "5", "-o", tmp_path / "n.tnb")
    assert rc == 1
    one_error_line(err, f"{path}: read as a table; --max-bytes is for documents (a table's cells are read whole)")


@pytest.mark.parametrize("options, flags", [(["--max-bytes", "10"], "--max-bytes is for documents"),
                                            (["--label-prefix", "xx"], "--label-prefix is for fastText files")])
def test_document_options_with_a_table_model_are_refused(tmp_path, options, flags):
    """``predict TABLE_MODEL FILE --max-bytes 10`` (or ``--label-prefix``) printed the same predictions."""
    path = _table(tmp_path / "t.csv")
    assert cli("train", path, "-o", tmp_path / "t.tnb")[0] == 0
    rc, out, err = cli("predict", tmp_path / "t.tnb", path, *options)
    assert rc == 1 and out == ""
    one_error_line(err, f"{tmp_path / 't.tnb'}: a table model, which reads tables; ", flags)


def test_no_header_on_a_headerless_text_corpus_reads_it_as_one(tmp_path):
    """``--no-header`` on SMSSpamCollection.tsv (label<TAB>text, no header row) forced the table
    reader: 'SMSSpamCollection.tsv:283: '\t' expected after '"''. A headerless label<TAB>text
    file is how a text corpus is read: the same model as without the option."""
    rc, out, err = cli("train", SMS_TSV, "--no-header", "-o", tmp_path / "a.tnb", "--json")
    assert rc == 0 and json.loads(out)["documents"] == 5574, err
    assert cli("train", SMS_TSV, "-o", tmp_path / "b.tnb")[0] == 0
    assert (tmp_path / "a.tnb").read_bytes() == (tmp_path / "b.tnb").read_bytes()
    rc, out, err = cli("evaluate", SMS_TSV, "--no-header", "--cv", "2", "--json")
    assert rc == 0 and json.loads(out)["accuracy"] > 0.95, err
    # its first row is a document even where it looks like a header ('label<TAB>text' read as one)
    small = tmp_path / "s.tsv"
    small.write_text("label\ttext\n" + "".join(f"{lab}\t{WORDS[lab]} {i}\n" for i in range(6) for lab in WORDS))
    rc, out, err = cli("train", small, "--no-header", "-o", tmp_path / "s.tnb", "--json")
    assert rc == 0 and json.loads(out)["per_class"] == {"ham": 6, "label": 1, "spam": 6}, err
    rc, out, err = cli("train", small, "-o", tmp_path / "s.tnb", "--json")
    assert rc == 0 and json.loads(out)["per_class"] == {"ham": 6, "spam": 6}, err


WEATHER = CORPORA / "weather.nominal.arff"


@pytest.mark.parametrize("command", [["train", WEATHER, "-o", "{tmp}/w.tnb"], ["evaluate", WEATHER, "--cv", "2"],
                                     ["evaluate", WEATHER, "--test", WEATHER], ["train", "-", "-o", "{tmp}/w.tnb"]])
def test_text_column_with_an_arff_file_is_refused(tmp_path, command):
    """``textnb train weather.nominal.arff --text-column outlook`` trained the model it trains
    without it (an ARFF header declares each attribute's type): now refused by the one rule,
    as --nominal-columns and --no-header are (io.tables), on train, evaluate and predict
    --rows; --label-column names its class, as --class does."""
    args = [str(a).replace("{tmp}", str(tmp_path)) for a in command]
    stdin = WEATHER.read_bytes() if "-" in args else None
    rc, out, err = cli(*args, "--text-column", "outlook", stdin=stdin)
    assert rc == 1 and out == ""
    one_error_line(err, ": read as an ARFF file (its header declares each attribute's type, a text attribute as "
                   "string); --text-column is for TSV/CSV files: it would be left unused")
    assert not (tmp_path / "w.tnb").exists()
    assert cli("train", WEATHER, "-o", tmp_path / "w.tnb")[0] == 0
    for flag, words in ((["--no-header"], "--no-header applies to CSV/TSV files"),
                        (["--nominal-columns", "1"], "--nominal-columns applies to CSV/TSV files")):
        rc, out, err = cli("predict", tmp_path / "w.tnb", "--rows", WEATHER, *flag)
        assert rc == 1 and out == ""
        one_error_line(err, f"{WEATHER}: ", words)
    rc, out, err = cli("train", WEATHER, "--label-column", "outlook", "-o", tmp_path / "o.tnb", "--json")
    assert rc == 0 and set(json.loads(out)["per_class"]) == {"sunny", "overcast", "rainy"}, err


def _no_header_refused_without_rows(tmp_path, model):
    """``predict MODEL doc.txt --no-header``, no file read by rows: refused in one line."""
    doc = tmp_path / "d.txt"
    doc.write_text("win cash prize\n")
    rc, out, err = cli("predict", model, doc, "--no-header")
    assert rc == 1 and out == ""
    one_error_line(err, f"{model}: a text model, which reads documents; --no-header is for tables (ARFF, CSV/TSV "
                   "attributes): it would be left unused")


def test_predict_and_evaluate_test_read_a_headerless_tsv_s_first_row_as_train_does(tmp_path):
    """``textnb train corpus.tsv --no-header`` reads its first row as a document; ``predict MODEL
    corpus.tsv --no-header`` refused the option with a text model ('--no-header is for tables'):
    predict reads a TSV's rows (and their labels, for the accuracy), so it now follows train's
    rule; ``evaluate --test FILE.tsv --no-header`` did already. With no file read by rows it is
    refused as before."""
    small = tmp_path / "s.tsv"
    small.write_text("label\ttext\n" + "".join(f"{lab}\t{WORDS[lab]} {i}\n" for i in range(6) for lab in WORDS))
    model = tmp_path / "s.tnb"
    assert cli("train", small, "--no-header", "-o", model)[0] == 0
    rc, out, err = cli("predict", model, small, "--no-header")
    assert rc == 0 and len(out.splitlines()) == 13 and out.splitlines()[0].startswith(f"{small}:1\t"), err
    assert "13 of 13 rows" in err
    rc, out, err = cli("predict", model, small)
    assert rc == 0 and len(out.splitlines()) == 12, err
    rc, out, err = cli("evaluate", small, "--no-header", "--test", small, "--json")
    assert rc == 0 and json.loads(out)["n"] == 13, err
    _no_header_refused_without_rows(tmp_path, model)


def test_predict_reads_a_headerless_tsv_with_a_spamfilter_model_as_with_a_text_model(tmp_path):
    """A spamfilter model of rendered messages (``input_ == "mail"``, a ``multinomial`` one) reads
    a TSV file's rows, as header-less messages: ``predict MODEL corpus.tsv --no-header`` reads the
    same rows as with a text model, its first row one of them (*was*: refused, '--no-header is for
    tables ... it would be left unused', where a text model's read them). With no file read by rows
    it is refused as for a text model."""
    from conftest import tiny_mail
    from textnb.apps.filtering import train_model
    from textnb.text.scorer import load_for_prediction, reads_mail

    spam, ham = tiny_mail(tmp_path)
    mail_model = tmp_path / "spam.tnb"
    train_model(mail_model, [spam], [ham], kind="multinomial")
    assert reads_mail(load_for_prediction(mail_model))
    small = tmp_path / "s.tsv"
    small.write_text("label\ttext\n" + "".join(f"{lab}\t{WORDS[lab]} {i}\n" for i in range(6) for lab in WORDS))
    text_model = tmp_path / "s.tnb"
    assert cli("train", small, "--no-header", "-o", text_model)[0] == 0
    for header in ([], ["--no-header"]):
        rc, want, err = cli("predict", text_model, small, *header)
        assert rc == 0, err
        rc, got, err = cli("predict", mail_model, small, *header)
        assert rc == 0, err
        assert [line.split("\t")[0] for line in got.splitlines()] == [line.split("\t")[0] for line in want.splitlines()]
        assert len(got.splitlines()) == (13 if header else 12)
        assert f"of {len(got.splitlines())} rows" in err
    _no_header_refused_without_rows(tmp_path, mail_model)
