"""What a user trial of the text paths found (session 16): --lines bounded by --max-bytes,
--top / --threshold with one meaning in every mode, label lists refused clearly, and the
messages of topicfilter, train --labels, evaluate and merge."""

import io
import json

import pytest

from conftest import SMS_TSV, cli, one_error_line

ML_LINES = ["__label__a __label__b cheap pills now", "__label__b lunch at noon", "__label__a cheap offer",
            "__label__b meeting at noon", "__label__a __label__b cheap lunch", "__label__c rain tomorrow",
            "__label__c sunny and warm", "__label__a __label__c cheap umbrellas"] * 6


@pytest.fixture(scope="module")
def sms_model(tmp_path_factory):
    d = tmp_path_factory.mktemp("sms")
    assert cli("train", SMS_TSV, "-o", d / "m.tnb")[0] == 0
    return d / "m.tnb"


@pytest.fixture(scope="module")
def ml_model(tmp_path_factory):
    d = tmp_path_factory.mktemp("ml")
    (d / "ml.txt").write_text("\n".join(ML_LINES) + "\n")
    assert cli("train", d / "ml.txt", "-o", d / "ml.tnb")[0] == 0
    return d / "ml.tnb"


def test_lines_are_cut_at_max_bytes_as_training_cuts_them(tmp_path, sms_model):
    """--lines read each line whole, whatever --max-bytes said (a 112 MB line took 2.5 GB
    and 9 s), so a model trained with --max-bytes was fed other text than it learned."""
    head = "URGENT you have won a prize call now "
    (tmp_path / "long.txt").write_text(head + "see you at lunch ok " * 50_000 + "\nsee you at lunch\n")
    (tmp_path / "head.txt").write_text(head[:40])
    rc, lines, err = cli("predict", sms_model, "--lines", tmp_path / "long.txt", "--max-bytes", "40")
    assert rc == 0, err
    rc, whole, err = cli("predict", sms_model, tmp_path / "head.txt")
    rc, short, err = cli("predict", sms_model, tmp_path / "long.txt", "--max-bytes", "40")
    first, second = [line.split("\t") for line in lines.splitlines()]
    assert first == [f"{tmp_path / 'long.txt'}:1", whole.split("\t")[1].strip()] == [first[0], short.split("\t")[1].strip()]
    assert second[0].endswith("long.txt:2")  # the rest of the long line skipped, the next line read


def test_the_io_reader_skips_the_rest_of_a_long_line():
    from textnb.io.fasttext import line_documents

    data = io.BytesIO(b"abcdefghij" * 1000 + b"\nsecond line\n\nlast")
    chunks = list(line_documents(data, max_bytes=5, size=2))
    assert chunks == [["abcde", "secon"], ["", "last"]]


def test_top_and_threshold_rank_labels_in_every_mode(tmp_path, sms_model):
    """--top was ignored on a document file (without --explain) and --threshold refused
    there; with --lines a line without a label lost its TAB."""
    (tmp_path / "d.txt").write_text("free entry win cash prize now")
    (tmp_path / "d.lines").write_text("free entry win cash prize now\n")
    for flags in (["--top", "2"], ["--threshold", "0.001"], ["--top", "1", "--threshold", "0.5"]):
        rc, by_file, err = cli("predict", sms_model, tmp_path / "d.txt", *flags)
        assert rc == 0, err
        rc, by_line, err = cli("predict", sms_model, "--lines", tmp_path / "d.lines", *flags)
        assert rc == 0, err
        assert by_file.split("\t", 1)[1] == by_line.split("\t", 1)[1], (flags, by_file, by_line)
    assert len(by_file.split("\t")) == 2 and by_file.split("\t")[1].startswith("spam ")
    (tmp_path / "none.lines").write_text("hello there\n")
    rc, out, err = cli("predict", sms_model, "--lines", tmp_path / "none.lines", "--threshold", "1")
    assert rc == 0 and out == f"{tmp_path / 'none.lines'}:1\t\n"
    rc, out, err = cli("predict", sms_model, tmp_path / "d.txt", "--explain", "--top", "3")
    assert rc == 0 and out.count("\t") == 2  # with --explain, --top is the number of terms
    rc, out, err = cli("predict", sms_model, tmp_path / "d.txt", "--explain", "--threshold", "0.5")
    assert rc == 1
    one_error_line(err, "--explain", "--threshold")


def test_multilabel_top_means_the_same_for_files_and_lines(tmp_path, ml_model):
    (tmp_path / "d.txt").write_text("cheap lunch at noon")
    (tmp_path / "d.lines").write_text("cheap lunch at noon\n")
    for flags in (["--top", "2"], ["--top", "1"], ["--threshold", "0.2"], []):
        rc, by_file, err = cli("predict", ml_model, tmp_path / "d.txt", *flags)
        assert rc == 0, err
        rc, by_line, err = cli("predict", ml_model, "--lines", tmp_path / "d.lines", *flags)
        assert rc == 0, err
        assert by_file.split("\t")[1] == by_line.split("\t")[1], (flags, by_file, by_line)
    rc, out, err = cli("predict", ml_model, tmp_path / "d.txt", "--top", "3", "--proba", "--json")
    rec = json.loads(out)  # ranked with their probabilities, as a single-label model's
    assert len(rec["labels"]) == 3
    probs = [x["proba"] for x in rec["labels"]]
    assert probs == sorted(probs, reverse=True) and all(set(x) == {"label", "proba", "log_odds"} for x in rec["labels"])


def test_label_lists_for_a_text_classifier_point_to_multilabelnb():
    """Ragged label lists gave numpy's 'inhomogeneous shape' error."""
    from textnb import InputError, TextClassifier

    docs = ["cheap pills now", "lunch at noon", "cheap offer now"]
    for y in ([["x", "y"], ["y"], ["x"]], [["x", "y"], ["y", "x"], ["x", "z"]]):
        with pytest.raises(InputError, match="one label per document.*MultiLabelNB"):
            TextClassifier().fit(docs, y)


def test_topicfilter_says_why_a_default_model_is_uncalibrated(tmp_path):
    """Trained on fewer than 50 documents the default model stays uncalibrated; the hint told
    the user to run the very command that made it."""
    from textnb.cli.topicfilter import topic_main

    (tmp_path / "few.txt").write_text("__label__neg bad awful\n__label__pos great nice\n"
                                      "__label__pos nice fine\n__label__neg bad poor\n")
    assert cli("train", tmp_path / "few.txt", "-o", tmp_path / "few.tnb")[0] == 0
    (tmp_path / "q.txt").write_text("hello")
    err = io.StringIO()
    assert topic_main(["-m", str(tmp_path / "few.tnb"), "-o", str(tmp_path / "out"), "-t", "0.8", "-n",
                       str(tmp_path / "q.txt")], stdout=io.StringIO(), stderr=err) == 1
    assert "fewer than 50 documents" in err.getvalue() and "50 documents or more" in err.getvalue()


def test_train_labels_counts_the_test_parts_ids_as_found(tmp_path):
    """The ids of test/ documents were counted as 'no file in' the corpus by train."""
    for part, n in (("train", 30), ("test", 10)):
        (tmp_path / "c" / part).mkdir(parents=True)
        for i in range(n):
            (tmp_path / "c" / part / f"{part}{i}.txt").write_text(ML_LINES[i % 8].split(" ", 2)[-1])
    lines = [f"{p}{i}\t{'a,b' if i % 2 else 'b'}" for p, n in (("train", 30), ("test", 10)) for i in range(n)]
    (tmp_path / "labels.tsv").write_text("\n".join(lines + ["gone1\ta", "gone2\tb"]) + "\n")
    rc, out, err = cli("train", tmp_path / "c", "--labels", tmp_path / "labels.tsv", "-o", tmp_path / "m.tnb",
                       "--json")
    assert rc == 0, err
    assert json.loads(out)["not_in_folder"] == 2


def test_evaluate_refuses_cv_with_a_test_file_and_merge_names_multilabel_models(tmp_path, ml_model):
    rc, out, err = cli("evaluate", SMS_TSV, "--cv", "3", "--test", SMS_TSV)
    assert rc == 1 and out == ""
    one_error_line(err, "--cv and --test do not go together")
    rc, out, err = cli("evaluate", SMS_TSV, "--repeat", "2", "--test", SMS_TSV)
    assert rc == 1
    one_error_line(err, "--repeat and --test do not go together")
    rc, out, err = cli("merge", ml_model, ml_model, "-o", tmp_path / "m.tnb")
    assert rc == 1 and not (tmp_path / "m.tnb").exists()
    one_error_line(err, "a multi-label model cannot be merged")


def test_predict_names_a_spam_filter_model_and_inspect_describes_it(tmp_path):
    """predict said 'a SpamScorer model does not record its table attributes'; inspect said
    'cannot inspect', then refused it too: it now describes it
    (tests/apps/test_spam_inspect.py)."""
    from textnb.apps.filtering import train_model

    (tmp_path / "s.eml").write_bytes(b"Subject: win\n\ncheap pills free money now\n")
    (tmp_path / "h.eml").write_bytes(b"Subject: lunch\n\nsee you at noon\n")
    train_model(tmp_path / "spam.tnb", [tmp_path / "s.eml"], [tmp_path / "h.eml"])
    for args in (["predict", tmp_path / "spam.tnb", tmp_path / "s.eml"],
                 ["predict", tmp_path / "spam.tnb", "--lines", tmp_path / "s.eml"]):
        rc, out, err = cli(*args)
        assert rc == 1 and out == ""
        one_error_line(err, "spam.tnb: a spam filter's model (SpamScorer)", "spamfilter --model")
    rc, out, err = cli("inspect", tmp_path / "spam.tnb")
    assert rc == 0 and err == "" and "  spam: 1 message\n" in out and "  ham: 1 message\n" in out


def test_predict_cuts_documents_where_the_model_was_trained_to(tmp_path):
    """A model trained with --max-bytes N keeps N (the library reads a file of it cut at
    N): `predict` of files, --lines and --rows cut there too unless --max-bytes says
    otherwise (the whole file was read, so the command line and the library disagreed)."""
    from pathlib import Path

    import textnb

    corpus = tmp_path / "c"
    for label, words in (("spam", "cheap pills win prize now"), ("ham", "lunch meeting at noon today")):
        (corpus / label).mkdir(parents=True)
        for i in range(6):
            (corpus / label / f"{i}.txt").write_text(f"{words} {i}\n")
    model = tmp_path / "m.tnb"
    assert cli("train", corpus, "--model", "multinomial", "--max-bytes", "24", "-o", model)[0] == 0
    doc = tmp_path / "doc.txt"
    doc.write_text("cheap pills win prize " + "lunch meeting at noon today " * 5 + "\n")
    library = textnb.load(model).predict_proba([Path(doc)])[0]
    rc, out, err = cli("predict", model, doc, "--proba")
    assert rc == 0, err
    assert out.split("\t")[1] == "spam" and library[list(textnb.load(model).classes_).index("spam")] > 0.5
    rc, lines, err = cli("predict", model, "--lines", doc)
    assert rc == 0 and lines.split("\t")[1].strip() == "spam", (lines, err)
    rc, whole, err = cli("predict", model, doc, "--max-bytes", "1000")
    assert rc == 0 and whole.split("\t")[1].strip() == "ham"


def test_repeat_on_a_corpus_with_its_own_test_part_is_refused(tmp_path):
    """A split corpus (train/ and test/) is evaluated on its test part: --repeat without
    --cv was ignored without a word; --cv K --repeat R cross-validates the training part."""
    for part in ("train", "test"):
        for label, words in (("a", "apple apricot"), ("b", "banana blueberry")):
            d = tmp_path / "c" / part / label
            d.mkdir(parents=True)
            for i in range(6):
                (d / f"{i}.txt").write_text(f"{words} {i}\n")
    rc, out, err = cli("evaluate", tmp_path / "c", "--repeat", "3")
    assert rc != 0 and out == "" and one_error_line(err)
    assert "--repeat" in err and "--cv" in err and str(tmp_path / "c") in err
    rc, out, err = cli("evaluate", tmp_path / "c", "--repeat", "2", "--cv", "3")
    assert rc == 0 and "over 2 repeats" in out, err


def test_a_vocabulary_pruned_away_names_the_corpus_and_the_options(tmp_path):
    corpus = tmp_path / "c"
    for k, label in enumerate(("a", "b")):
        (corpus / label).mkdir(parents=True)
        for i in (1, 2):  # documents without a word (none the same: not one document in two folders)
            (corpus / label / f"{i}.txt").write_text(" " * (2 * k + i) + "\n")
    for command in ("train", "evaluate"):
        rc, out, err = cli(command, corpus, *(["--cv", "2"] if command == "evaluate" else []))
        assert rc != 0 and one_error_line(err) and f"{corpus}: empty vocabulary" in err, err  # (in a fold too)
    (corpus / "a" / "1.txt").write_text("words here\n")
    rc, out, err = cli("train", corpus, "--min-df", "50")
    assert rc != 0 and one_error_line(err)
    assert "min_df keeps terms in at least 50 documents" in err and "of 4" in err, err


def test_predict_names_the_short_row_of_a_headerless_tsv(tmp_path, sms_model):
    """A headerless label<TAB>text file with a row of one cell: predict names the row, as
    train does (it said 'cannot find the label and text columns')."""
    bad = tmp_path / "missing.tsv"
    bad.write_text("spam\tfree prize now\nham\n\tno label here\nham\tsee you at noon\n")
    for args in ((sms_model, bad), (sms_model, "--rows", bad)):
        rc, out, err = cli("predict", *args)
        assert rc != 0 and one_error_line(err) and f"{bad}:2: row has 1 cell, expected at least 2" in err, err
    rc, out, err = cli("train", bad, "-o", tmp_path / "m.tnb")
    assert rc != 0 and f"{bad}:2:" in err
    # a short row further down: training reads the file as a table and says it in the same words
    late = tmp_path / "late.tsv"
    late.write_text("spam\tfree prize now\nham\tsee you\nspam\tcheap\nham\n")
    rc, out, err = cli("train", late, "-o", tmp_path / "m.tnb")
    assert rc != 0 and one_error_line(err) and f"{late}:4: row has 1 cell, expected 2" in err, err


# -- session 18: the multi-label and thresholds trial ---------------------------------------
@pytest.mark.parametrize("kind", ["text", "multilabel", "multilabel-ovr", "table"])
def test_a_class_too_small_to_calibrate_is_one_line_naming_the_corpus(tmp_path, kind):
    """--calibrate with a class (or label) of one document ended in 'internal error:
    ValueError' (exit 70); the multi-label one named a label index ('class 3')."""
    if kind == "table":
        path = tmp_path / "t.csv"
        path.write_text("a,b,class\n" + "1,2,x\n2,1,y\n" * 5 + "1,1,z\n")
        flags, expected = [], "class 'z' has 1"
    else:
        path = tmp_path / "c.txt"
        single = ["__label__a apple banana", "__label__b car truck"] * 10 + ["__label__c dog cat"]
        lines = ML_LINES + ["__label__a __label__d cheap dog"] if kind != "text" else single
        path.write_text("\n".join(lines) + "\n")
        flags = ["--model", "multinomial"] + (["--method", "ovr"] if kind == "multilabel-ovr" else [])
        expected = "class 'c' has 1" if kind == "text" else "label 'd' is on 1 of the "
    for command in (["train", path, "-o", tmp_path / "m.tnb"], ["evaluate", path, "--cv", "3"]):
        rc, out, err = cli(*command, *flags, "--calibrate", "sigmoid")
        assert rc == 1 and one_error_line(err) and f"{path}: " in err and expected in err, err
    assert not (tmp_path / "m.tnb").exists()


def test_a_label_too_small_in_a_fold_says_the_documents_that_fold_holds(tmp_path):
    """Found by a user trial: a label on 2 of 60 documents, refused by the out-of-fold models
    behind the thresholds (a training part held one of them), was said to be "on one
    document only"; a label on 3 of 6 refused in an evaluate --cv fold "on every document
    but one". The line now gives the documents the refused model was fitted on."""
    import json as _json

    words = ("apple banana cherry fruit sweet juice".split(), "engine motor wheel car drive road".split())
    lines = []
    for i in range(60):
        labels = ["a"] if i % 2 else ["b"]
        text = " ".join(words[i % 2][(i + j) % 6] for j in range(8))
        if i in (5, 17):
            labels.append("c")
            text += " goal match team score ball play"
        lines.append(_json.dumps({"text": text, "labels": labels}))
    path = tmp_path / "two.jsonl"
    path.write_text("\n".join(lines) + "\n")
    for flags in ([], ["--method", "ovr", "--model", "multinomial"]):
        rc, _, err = cli("train", path, "--calibrate", "sigmoid", *flags, "-o", tmp_path / "m.tnb")
        assert rc == 1 and one_error_line(err), err
        assert "label 'c' is on 1 of the 48 documents a model is fitted on" in err and "one document only" not in err
    assert not (tmp_path / "m.tnb").exists()


def test_a_label_on_every_document_trains_predicts_and_cross_validates(tmp_path):
    """A multi-label corpus whose documents all have the same label set: train refused to
    write the model ('inconsistent model file ... estimator_: expected a model, got None')
    and evaluate --cv stopped with an internal error."""
    path = tmp_path / "same.txt"
    path.write_text("".join(f"__label__x __label__y word{i} other{i % 3}\n" for i in range(12)))
    rc, out, err = cli("train", path, "--multilabel", "-o", tmp_path / "s.tnb")
    assert rc == 0, err
    (tmp_path / "q.txt").write_text("word1 unseen\n")
    rc, out, err = cli("predict", tmp_path / "s.tnb", "--lines", tmp_path / "q.txt")
    assert rc == 0 and out.split("\t")[1].strip() in ("x,y", "y,x"), (out, err)
    rc, out, err = cli("evaluate", path, "--multilabel", "--cv", "3", "--json")
    assert rc == 0, err
    assert json.loads(out)["micro_f1"] == 1.0
    (tmp_path / "one.txt").write_text("".join(f"__label__x word{i}\n" for i in range(6)))
    rc, out, err = cli("evaluate", tmp_path / "one.txt", "--multilabel", "--cv", "3", "--json")
    assert rc == 0 and json.loads(out)["per_label"]["x"]["f1"] == 1.0, err


# -- session 18: the odd-inputs trial ------------------------------------------------------
def test_predict_lines_ends_a_line_at_lf_only(tmp_path):
    """A form feed (pdftotext's page break), \\v, \\x1c-\\x1e, \\x85 or U+2028 split a --lines
    line in two, so every later FILE:N named the wrong line; train and test read one."""
    f = tmp_path / "f.txt"
    f.write_text("__label__a good\fgreat\n__label__b bad\u2028awful\x85more\n__label__a fine\n")
    assert cli("train", f, "-o", tmp_path / "f.tnb", "--model", "multinomial")[0] == 0
    rc, out, err = cli("predict", tmp_path / "f.tnb", "--lines", f)
    assert rc == 0 and [line.split("\t")[0] for line in out.splitlines()] == [f"{f}:{n}" for n in (1, 2, 3)], out


def test_max_bytes_cuts_bytes_in_every_container_and_fasttext_labels_are_read_whole(tmp_path):
    """--max-bytes cut a TSV row's or a fastText line's text at that many characters (a
    file at bytes), and cut a fastText line before its labels were read (a label at the
    end of a long line: the line 'without a label')."""
    from textnb.io.fasttext import read_fasttext

    (tmp_path / "c" / "a").mkdir(parents=True)
    (tmp_path / "c" / "b").mkdir()
    (tmp_path / "c" / "a" / "1.txt").write_text("ééééé spamword tail\n")
    (tmp_path / "c" / "b" / "1.txt").write_text("other words here\n")
    (tmp_path / "c.tsv").write_text("a\tééééé spamword tail\nb\tother words here\n")
    (tmp_path / "c.txt").write_text("__label__a ééééé spamword tail\n__label__b other words here\n")
    terms = []
    for corpus in ("c", "c.tsv", "c.txt"):
        assert cli("train", tmp_path / corpus, "--max-bytes", "12", "--model", "multinomial", "-o", tmp_path / "m.tnb")[0] == 0
        terms.append(sorted(textnb_load(tmp_path / "m.tnb").vectorizer_.vocabulary_))
    assert terms[0] == terms[1] == terms[2] and "spamwo" not in terms[0], terms
    (tmp_path / "end.txt").write_text("good good good good good good __label__a\nbad bad bad bad bad bad __label__b\n")
    corpus = read_fasttext(tmp_path / "end.txt", max_bytes=20)
    assert corpus.labels == [("a",), ("b",)] and corpus.unlabeled == 0 and all(len(d) <= 20 for d in corpus.documents)


def textnb_load(path):
    from textnb import load

    return load(path)


def test_multilabel_rows_are_decoded_line_by_line_as_training_reads_them(tmp_path):
    """Multi-label predict --rows decoded the whole file as Windows-1252 when one row was
    not UTF-8, so its UTF-8 rows became mojibake (every term unknown)."""
    lines = []
    for i in range(30):
        lines += ["__label__a café crème naïve" + (" __label__c" if i % 3 == 0 else ""), "__label__b bière déjà"]
    (tmp_path / "ml.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert cli("train", tmp_path / "ml.txt", "-o", tmp_path / "ml.tnb", "--model", "multinomial")[0] == 0
    (tmp_path / "mx.tsv").write_bytes(b"".join(("a\tcafé crème naïve\n".encode(), "b\tbière déjà\n".encode("cp1252"))))
    (tmp_path / "u8.tsv").write_bytes("a\tcafé crème naïve\n".encode())
    rc, mixed, err = cli("predict", tmp_path / "ml.tnb", "--rows", tmp_path / "mx.tsv", "--proba")
    assert rc == 0, err
    rc, alone, err = cli("predict", tmp_path / "ml.tnb", "--rows", tmp_path / "u8.tsv", "--proba")
    assert mixed.splitlines()[0].split("\t")[1:] == alone.splitlines()[0].split("\t")[1:]


def test_cr_line_ends_utf16_and_hidden_class_folders_are_said_plainly(tmp_path):
    """A CR-only TSV got the csv module's 'new-line character seen in unquoted field - do
    you need to open the file in universal-newline mode?'; a UTF-16 file was 'binary' (a
    UTF-16 fastText file 'not a TSV/CSV corpus'); a class folder '.net' was left out
    without a word."""
    (tmp_path / "cr.tsv").write_bytes(b"a\tgood fine\rb\tbad awful\ra\tgreat\rb\tpoor\r")
    rc, out, err = cli("train", tmp_path / "cr.tsv", "-o", tmp_path / "m.tnb")
    assert rc == 1 and "CR alone" in err and "convert the file's line ends" in err and err.count("\n") == 1
    (tmp_path / "u16.txt").write_bytes("__label__a good\n__label__b bad\n".encode("utf-16"))
    rc, out, err = cli("train", tmp_path / "u16.txt", "-o", tmp_path / "m.tnb")
    assert rc == 1 and "UTF-16 text" in err and "iconv -f UTF-16 -t UTF-8" in err and "TSV" not in err
    for name in (".net", "java", "cpp"):
        (tmp_path / "h" / name).mkdir(parents=True)
        for i in range(3):
            (tmp_path / "h" / name / f"{i}.txt").write_text(f"{name.strip('.')} words {i}")
    import warnings

    from textnb import open_corpus
    from textnb.core.errors import DataWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        corpus = open_corpus(tmp_path / "h")
    assert sorted(set(corpus.labels)) == ["cpp", "java"]
    assert any(w.category is DataWarning and "'.net' not read as a class" in str(w.message) for w in caught)


@pytest.mark.parametrize("end", ["\n", "\r\n"])
@pytest.mark.parametrize("delimiter", ["\t", ","])
def test_a_cr_inside_a_cell_of_an_lf_or_crlf_file_is_text(tmp_path, end, delimiter):
    """A stray CR inside a cell of a TSV/CSV file of LF (or CRLF) lines was refused as a file
    of classic Mac line ends (found by a user trial, session 48); --lines read it as text.
    Now it is text in train, evaluate and predict alike (one reader), a backslash still
    itself; a file of CR-only line ends is still refused (the test above)."""
    rows = [("spam", "cheap pills now"), ("ham", "see\ryou at lunch"), ("spam", "cheap\roffer \\ win"),
            ("ham", "lunch at noon"), ("spam", "cheap prize"), ("ham", "see you soon")] * 2
    path = tmp_path / ("c.tsv" if delimiter == "\t" else "c.csv")
    path.write_bytes("".join(f"{a}{delimiter}{b}{end}" for a, b in [("label", "text")] + rows).encode())
    from textnb import open_corpus

    corpus = open_corpus(path)
    assert [str(d) for d in corpus.documents] == [b for _, b in rows] and corpus.labels == [a for a, _ in rows]
    rc, out, err = cli("train", path, "-o", tmp_path / "m.tnb")
    assert rc == 0, err
    rc, out, err = cli("evaluate", path, "--cv", "2")
    assert rc == 0 and "accuracy" in out, err
    rc, out, err = cli("predict", tmp_path / "m.tnb", path)
    assert rc == 0, err
    assert [line.split("\t")[0] for line in out.splitlines()] == [f"{path}:{i + 1}" for i in range(len(rows))]
    (tmp_path / "lines.txt").write_bytes("".join(b + "\n" for _, b in rows).encode())
    rc, lines, err = cli("predict", tmp_path / "m.tnb", "--lines", tmp_path / "lines.txt")
    assert [line.split("\t")[1] for line in out.splitlines()] == [line.split("\t")[1] for line in lines.splitlines()]


def test_plots_draw_labels_holding_a_dollar_as_written(tmp_path):
    """A class named with '$' made --plot an internal error (matplotlib's mathtext read
    '$\\nosuchcmd$') or drew it wrong."""
    pytest.importorskip("matplotlib")
    for name in ("x$\\nosuchcmd$y", "b"):
        (tmp_path / "p" / name).mkdir(parents=True)
        for i in range(3):
            (tmp_path / "p" / name / f"{i}.txt").write_text(f"{'zeta eta' if name != 'b' else 'lunch noon'} {i}")
    assert cli("train", tmp_path / "p", "-o", tmp_path / "p.tnb")[0] == 0
    rc, out, err = cli("inspect", tmp_path / "p.tnb", "--plot", tmp_path / "i.png")
    assert rc == 0 and (tmp_path / "i.png").stat().st_size > 0, err
    rc, out, err = cli("evaluate", tmp_path / "p", "--cv", "3", "--plot", tmp_path / "e.png")
    assert rc == 0 and (tmp_path / "e.png").stat().st_size > 0, err


def test_predict_prints_the_probabilities_the_model_and_the_daemon_give(tmp_path, sms_model):
    """predict printed exp(log P) while the library, textnb serve and topicfilter give
    predict_proba (renormalised): 149,600 of 150,640 cells differed in the last digits."""
    from textnb.text.scorer import load_for_prediction

    texts = [line.split("\t", 1)[1] for line in SMS_TSV.read_text(encoding="utf-8").splitlines()[:300]]
    (tmp_path / "l.txt").write_text("\n".join(t.replace("\n", " ") for t in texts) + "\n", encoding="utf-8")
    rc, out, err = cli("predict", sms_model, "--lines", tmp_path / "l.txt", "--json", "--proba")
    assert rc == 0, err
    scorer = load_for_prediction(sms_model)
    classes = [str(c) for c in scorer.classes_]
    expected = scorer.predict_proba([t.replace("\n", " ") for t in texts])
    got = [[json.loads(line)["proba"][c] for c in classes] for line in out.splitlines()]
    assert got == expected.tolist()


def _pipelines():
    from sklearn.pipeline import Pipeline, make_pipeline

    from textnb import (ComplementNB, MultinomialNB, SelectTerms, TermWeighting, TfidfVectorizer,
                        Vectorizer)

    return {
        "named": lambda: Pipeline([("vectorizer", Vectorizer()), ("model", MultinomialNB())]),
        "make_pipeline": lambda: make_pipeline(Vectorizer(), MultinomialNB()),
        "weighted-selected": lambda: make_pipeline(Vectorizer(), TermWeighting(), SelectTerms(k=20), ComplementNB()),
        "tfidf": lambda: make_pipeline(TfidfVectorizer(), MultinomialNB()),
    }


@pytest.mark.parametrize("shape", list(_pipelines()))
def test_a_single_label_text_pipeline_is_a_text_model_on_the_command_line(tmp_path, shape):
    """A scikit-learn Pipeline whose first step is a textnb Vectorizer (or TfidfVectorizer),
    saved from the library, is predicted (--lines and files), tested and inspected as a text
    model, with the library's probabilities (it was taken for a table model: '--lines needs
    a text model; a table model reads a table file', 'a Pipeline reads tables', 'cannot
    inspect a Pipeline model'; the multi-label Pipeline was read)."""
    from numpy.testing import assert_allclose

    from textnb import load
    from textnb.core.model_io import save

    docs = ["cheap pills now", "lunch at noon", "cheap offer now", "meeting at noon", "win cheap pills",
            "noon lunch meeting", "free cheap offer", "see you at lunch"] * 3
    labels = ["spam", "ham", "spam", "ham", "spam", "ham", "spam", "ham"] * 3
    save(_pipelines()[shape]().fit(docs, labels), tmp_path / "p.tnb")
    model = load(tmp_path / "p.tnb")
    queries = ["cheap pills for lunch", "meeting at noon now"]
    (tmp_path / "q.txt").write_text("\n".join(queries) + "\n")
    (tmp_path / "d.txt").write_text(queries[0])
    (tmp_path / "t.txt").write_text("__label__spam cheap pills for lunch\n__label__ham meeting at noon now\n")
    rc, out, err = cli("predict", tmp_path / "p.tnb", "--lines", tmp_path / "q.txt", "--proba", "--json")
    assert rc == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["label"] for r in rows] == list(model.predict(queries))
    assert_allclose([[r["proba"][c] for c in model.classes_] for r in rows], model.predict_proba(queries), atol=1e-9)
    rc, out, err = cli("predict", tmp_path / "p.tnb", tmp_path / "d.txt")
    assert rc == 0 and out.split("\t")[1].strip() == model.predict(queries[:1])[0], err
    rc, out, err = cli("test", tmp_path / "p.tnb", tmp_path / "t.txt", "--json")
    assert rc == 0, err
    right = sum(p == t for p, t in zip(model.predict(queries), ["spam", "ham"]))
    assert json.loads(out)["n"] == 2 and json.loads(out)["precision"] == right / 2
    rc, out, err = cli("inspect", tmp_path / "p.tnb", "--json")
    assert rc == 0, err
    assert json.loads(out)["classes"] == ["ham", "spam"]


def test_topicfilter_max_bytes_cuts_a_plain_document_as_predict_does(tmp_path, sms_model):
    """`topicfilter --max-bytes N` cut only messages: a plain document was read whole (to the
    model's limit) where `textnb predict --max-bytes N` reads its first N bytes, so one
    document had two confidences. It is cut as predict cuts it; without the option both read
    to the model's limit."""
    from textnb.cli.topicfilter import topic_main

    doc = tmp_path / "doc.txt"
    doc.write_text("lunch at noon with the team tomorrow " + "WINNER free prize call now claim cash " * 20 + "\n")
    seen = []
    for extra in ([], ["--max-bytes", "40"]):
        rc, out, err = cli("predict", sms_model, doc, "--proba", "--json", *extra)
        assert rc == 0, err
        expected = max(json.loads(out)["proba"].values())
        stdout = io.StringIO()
        assert topic_main(["-m", str(sms_model), "-o", str(tmp_path / "out"), "-n", str(doc), *extra],
                          stdout=stdout, stderr=io.StringIO()) == 0
        got = float(stdout.getvalue().split("\t")[2])
        assert got == pytest.approx(expected, rel=1e-6), extra
        seen.append(expected)
    assert abs(seen[0] - seen[1]) > 1e-3  # (the cut changes the confidence: the option is not a no-op)


@pytest.mark.parametrize("shape", ["folder", "missing"])
def test_test_names_a_folder_or_a_missing_file_as_predict_does(tmp_path, sms_model, shape):
    """`textnb test MODEL FILE` said `cannot read (Is a directory)` / `cannot read (No such file
    or directory)` where `predict --lines FILE` of the same path says `a folder, not a file` /
    `no such file`: one check of a file input (io.sources.check_file) for both."""
    path = tmp_path / "in.txt"
    if shape == "folder":
        path.mkdir()
    lines = set()
    for args in (["test", sms_model, path], ["predict", sms_model, "--lines", path]):
        rc, out, err = cli(*args)
        assert rc == 1 and out == "", args
        lines.add(one_error_line(err, str(path)))
    assert len(lines) == 1, lines


def test_topicfilter_calls_a_utf16_document_so_as_predict_does(tmp_path, sms_model):
    """A UTF-16 document was `binary file, not a text document` for topicfilter, where textnb
    predict and the library's predict of the Path call it UTF-16 text with the iconv fix."""
    from pathlib import Path

    import textnb
    from textnb.cli.topicfilter import topic_main

    doc = tmp_path / "wide.txt"
    doc.write_bytes("free prize call now to claim your cash".encode("utf-16"))
    err = io.StringIO()
    assert topic_main(["-m", str(sms_model), "-o", str(tmp_path / "out"), "-n", str(doc)],
                      stdout=io.StringIO(), stderr=err) == 1
    line = err.getvalue().strip()
    assert len(line.splitlines()) == 1 and line.startswith(f"topicfilter: {doc}: UTF-16 text") and "iconv" in line
    rc, _, perr = cli("predict", sms_model, doc)
    assert rc == 1 and "UTF-16 text" in one_error_line(perr, str(doc))
    with pytest.raises(textnb.InputError, match="UTF-16 text"):
        textnb.load(sms_model).predict([Path(doc)])


def test_test_and_topicfilter_name_a_spam_filter_model_as_predict_does(tmp_path):
    """`textnb test` said 'a SpamScorer reads tables' and topicfilter 'not a text model (a
    TextClassifier is needed)' where predict and inspect name the programs that read it."""
    from textnb.apps.filtering import train_model
    from textnb.cli.topicfilter import topic_main

    (tmp_path / "s.eml").write_bytes(b"Subject: win\n\ncheap pills free money now\n")
    (tmp_path / "h.eml").write_bytes(b"Subject: lunch\n\nsee you at noon\n")
    (tmp_path / "t.txt").write_text("__label__spam cheap pills\n")
    model = tmp_path / "spam.tnb"
    train_model(model, [tmp_path / "s.eml"], [tmp_path / "h.eml"])
    rc, out, err = cli("test", model, tmp_path / "t.txt")
    assert rc == 1 and out == ""
    expected = one_error_line(err, "spam.tnb: a spam filter's model (SpamScorer)", "spamfilter --model")
    stdout, stderr = io.StringIO(), io.StringIO()
    assert topic_main(["-m", str(model), "-o", str(tmp_path / "out"), "-n", str(tmp_path / "s.eml")],
                      stdout=stdout, stderr=stderr) == 1
    assert stdout.getvalue() == "" and stderr.getvalue().strip() == expected.replace("textnb: error:", "topicfilter:")


def test_inspect_says_each_wrapper_and_step_with_its_own_settings_and_the_cut(tmp_path, sms_tsv):
    """Found by a user trial: ``inspect`` gave a wrapped model's inner settings under the
    wrapper's name (``Pipeline(alpha=1.0, binarize=0.0, ...)``, ``CalibratedNB(alpha=...)``,
    ``APNBC(alpha=...)``) and never the wrapper's own (the criterion and k of ``--select``,
    ``--weighting``, ``--significance``, ``--adjust-on``), nor ``--max-bytes``."""
    rows = sms_tsv.read_text(encoding="utf-8").splitlines()[:600]
    corpus = tmp_path / "c.tsv"
    corpus.write_text("\n".join(rows) + "\n", encoding="utf-8")
    cases = {
        "p": (["--model", "multinomial", "--weighting", "--select", "ig:100"],
              "model: SelectTerms(criterion='ig', k=100) then TermWeighting(", ") then MultinomialNB(alpha=1.0"),
        "c": (["--model", "complement", "--calibrate", "sigmoid"],
              "model: CalibratedNB(cv=5, method='sigmoid'", ") around ComplementNB(alpha=1.0"),
        "j": (["--model", "multinomial", "--adjust", "--significance", "1", "--adjust-on", "cv"],
              "model: APNBC(cv=10, epsilon=1e-05, fit_on='cv'", "significance=1.0) around MultinomialNB("),
        "m": (["--model", "multinomial", "--max-bytes", "20"], "model: MultinomialNB(alpha=1.0", ""),
    }
    for name, (flags, start, middle) in cases.items():
        rc, _, err = cli("train", corpus, *flags, "-o", tmp_path / f"{name}.tnb")
        assert rc == 0, err
        rc, out, err = cli("inspect", tmp_path / f"{name}.tnb")
        first = out.splitlines()[0]
        assert rc == 0 and first.startswith(start) and middle in first, first
        assert ("documents cut at: 20 bytes" in out) is (name == "m"), out
        rc, out, err = cli("inspect", tmp_path / f"{name}.tnb", "--json")
        info = json.loads(out)
        assert ("wrappers" in info) is (name != "m") and info.get("max_bytes") == (20 if name == "m" else None)
    rc, out, _ = cli("inspect", tmp_path / "p.tnb", "--json")
    info = json.loads(out)
    assert [(w["kind"], w.get("step")) for w in info["wrappers"]] == [("SelectTerms", "select"),
                                                                     ("TermWeighting", "weighting")]
    assert info["inner_model"]["kind"] == "MultinomialNB" and info["wrappers"][0]["params"] == {"criterion": "ig", "k": 100}
    # a multi-label model's inspect says it too (found by a user trial: it did not)
    ml = tmp_path / "ml.txt"
    ml.write_text("".join(f"__label__a __label__b red apple {i}\n__label__b blue sky {i}\n" for i in range(10)))
    assert cli("train", ml, "--max-bytes", "20", "-o", tmp_path / "ml.tnb")[0] == 0
    rc, out, _ = cli("inspect", tmp_path / "ml.tnb")
    assert rc == 0 and out.startswith("model: MultiLabelNB(") and "documents cut at: 20 bytes" in out, out
    assert json.loads(cli("inspect", tmp_path / "ml.tnb", "--json")[1])["max_bytes"] == 20


def test_explanations_of_small_weights_keep_their_digits(tmp_path, sms_tsv):
    """Found by a user trial: the weights of ``--model complement --norm`` are about 1e-4,
    so every contribution, margin and prior of ``predict --explain`` read ``+0.00``."""
    import re

    from textnb.cli.output import explanation_text

    info = {"runner_up": "spam", "margin": 0.000289, "prior": 0.0,
            "for": [{"term": "ok", "contribution": 9.28e-05}], "against": [{"term": "mins", "contribution": -4.7e-05}]}
    assert explanation_text(info) == "vs spam by 0.000289 (prior +0.00): ok +9.28e-05, mins -4.7e-05"
    info.update(margin=1.234, prior=-0.5, **{"for": [{"term": "ok", "contribution": 0.75}]})
    assert explanation_text(info) == "vs spam by 1.23 (prior -0.50): ok +0.75, mins -4.7e-05"
    rows = sms_tsv.read_text(encoding="utf-8").splitlines()
    (tmp_path / "c.tsv").write_text("\n".join(rows[:600]) + "\n", encoding="utf-8")
    (tmp_path / "q.txt").write_text("ok see you at home later\nwin a free prize now\n")
    rc, _, err = cli("train", tmp_path / "c.tsv", "--model", "complement", "--norm", "-o", tmp_path / "m.tnb")
    assert rc == 0, err
    rc, out, err = cli("predict", tmp_path / "m.tnb", "--lines", tmp_path / "q.txt", "--explain")
    assert rc == 0, err
    for line in out.splitlines():
        amounts = re.findall(r" [+-]?\d[\d.e+-]*", line.split("\t")[-1])
        assert amounts and not any(re.fullmatch(r" [+-]?0\.00", a) for a in amounts[2:]), line
