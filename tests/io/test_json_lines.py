"""JSON Lines text corpora (one object a line: what Hugging Face ``datasets`` and pandas write)
are read as a TSV corpus is, by every command, through the one row reader
(:func:`textnb.io.corpus.iter_rows`, :mod:`textnb.io.jsonlines`): the same rows give the same
model file, the same evaluation and the same predictions. What textnb does not read (a JSON
array, a table in JSON, a list of labels) is one line saying what to do. Until 2026-12-06
every JSON file was refused by train and evaluate, while ``predict MODEL data.jsonl``
classified the whole file as one document."""

import io
import json
import re

import pytest
from conftest import SMS_TSV, cli, one_error_line

from textnb.io.jsonlines import json_rows


def _sms_rows(n=None):
    lines = SMS_TSV.read_text(encoding="utf-8").splitlines()
    return [line.split("\t", 1) for line in (lines if n is None else lines[:n])]


def _jsonl(path, rows, make=lambda lab, t, i: {"label": lab, "text": t}, end="\n", bom=""):
    path.write_text(bom + "".join(json.dumps(make(lab, t, i)) + end for i, (lab, t) in enumerate(rows)),
                    encoding="utf-8", newline="")
    return path


@pytest.fixture(scope="module")
def sms_model(tmp_path_factory):
    """The bundled SMS collection's TSV model, and its bytes."""
    model = tmp_path_factory.mktemp("tsv") / "tsv.tnb"
    rc, _, err = cli("train", SMS_TSV, "-o", model)
    assert rc == 0, err
    return model


@pytest.mark.parametrize("name", ["sms.jsonl", "sms.ndjson", "sms.json", "sms.txt", "sms"])
def test_json_lines_of_the_sms_collection_train_the_tsv_s_model(tmp_path, sms_model, name):
    path = _jsonl(tmp_path / name, _sms_rows())
    model = tmp_path / "j.tnb"
    rc, out, err = cli("train", path, "-o", model)
    assert rc == 0, err
    assert "read 5574 documents" in out and "ham 4827, spam 747" in out
    assert model.read_bytes() == sms_model.read_bytes()


def test_evaluate_and_predict_read_json_lines_as_the_tsv_rows(tmp_path, sms_model):
    path = _jsonl(tmp_path / "sms.jsonl", _sms_rows())
    figures = [json.loads(cli("evaluate", p, "--cv", "3", "--json")[1]) for p in (path, SMS_TSV)]
    assert figures[0]["accuracy"] == figures[1]["accuracy"] > 0.95
    assert figures[0]["per_class"] == figures[1]["per_class"]
    rc, out, err = cli("predict", sms_model, path)
    rc2, out2, err2 = cli("predict", sms_model, "--rows", SMS_TSV)
    assert rc == rc2 == 0
    assert out.splitlines()[0].startswith(f"{path}:1\t")
    assert [line.split("\t", 1)[1] for line in out.splitlines()] == [line.split("\t", 1)[1] for line in out2.splitlines()]
    assert err.replace(str(path), "F") == err2.replace(str(SMS_TSV), "F")
    assert "accuracy 0.9" in err and "of 5574 rows" in err
    # a text model's test file
    half = _jsonl(tmp_path / "half.jsonl", _sms_rows()[::2])
    rc, out, err = cli("evaluate", half, "--test", path, "--json")
    assert rc == 0, err
    assert json.loads(out)["accuracy"] > 0.95


def test_standard_input_crlf_blank_lines_and_a_bom_give_the_same_model(tmp_path, sms_model):
    rows = _sms_rows()
    crlf = _jsonl(tmp_path / "crlf.jsonl", rows, end="\r\n\n", bom="\ufeff")
    model = tmp_path / "c.tnb"
    assert cli("train", crlf, "-o", model)[0] == 0
    assert model.read_bytes() == sms_model.read_bytes()
    piped = tmp_path / "stdin.tnb"
    rc, _, err = cli("train", "-", "-o", piped, stdin=_jsonl(tmp_path / "p.jsonl", rows).read_bytes())
    assert rc == 0, err
    assert piped.read_bytes() == sms_model.read_bytes()


def test_a_datasets_export_is_read_by_its_field_names(tmp_path):
    """``datasets``' layout: an id, the text under another name, the label an integer."""
    path = _jsonl(tmp_path / "train.json", _sms_rows(),
                  make=lambda lab, t, i: {"idx": i, "sms": t, "label": int(lab == "spam")})
    model, named = tmp_path / "a.tnb", tmp_path / "b.tnb"
    rc, out, err = cli("train", path, "-o", model, "--json")
    assert rc == 0, err
    assert "read as a text corpus of its fields 'label' (label) and 'sms' (text); 'idx' not read\n" in err
    assert json.loads(out)["per_class"] == {"0": 4827, "1": 747}
    rc, _, err = cli("train", path, "--text-column", "sms", "--label-column", "label", "-o", named)
    assert rc == 0, err  # (never a mixed table: JSON is not read as a table)
    assert named.read_bytes() == model.read_bytes()
    rc, _, err = cli("train", path, "--ignore", "idx", "-o", named)  # (a field not read: still a text corpus)
    assert rc == 0 and named.read_bytes() == model.read_bytes(), err
    rc, _, err = cli("train", path, "--no-header", "-o", tmp_path / "c.tnb")
    assert rc == 1 and "JSON Lines text corpus (the first object's fields its header); --no-header" in err
    assert not (tmp_path / "c.tnb").exists()


def test_cells_strings_numbers_booleans_and_null():
    raw = io.BytesIO(b'\n{"a": "x", "b": 1, "c": true}\n{"b": 2.5, "c": null, "d": 7}\n{"a": [1], "c": {"k": 1}}\n')
    rows = list(json_rows("f.jsonl", raw, 1 << 20, bytes.decode))
    assert rows[:3] == [(2, ["a", "b", "c"]), (2, ["x", "1", "true"]), (3, ["", "2.5", ""])]
    assert rows[3][0] == 4 and rows[3][1] == ["[1]", "", '{"k": 1}']


def _refused(args, *fragments):
    rc, out, err = cli(*args)
    assert rc == 1 and out == "", (args, err)
    one_error_line(err, *fragments)


def test_what_is_not_read_is_one_line_naming_the_line_and_what_to_do(tmp_path, sms_model):
    rows = _sms_rows(60)
    out = tmp_path / "x.tnb"
    bad = _jsonl(tmp_path / "bad.jsonl", rows)
    bad.write_text(bad.read_text() + '{"label": "ham", "text": "cut short\n', encoding="utf-8")
    _refused(("train", bad, "-o", out), f"{bad}:61: not a JSON object")
    listed = _jsonl(tmp_path / "listed.jsonl", rows, make=lambda lab, t, i: {"text": t, "label": [lab] if i == 5 else lab})
    _refused(("train", listed, "-o", out), f"{listed}:6: field 'label' holds a JSON list", "multi-label")
    unnamed = _jsonl(tmp_path / "unnamed.jsonl", rows, make=lambda lab, t, i: {"sentiment": lab, "sentence": t})
    _refused(("train", unnamed, "-o", out), "JSON Lines without a label and a text field",
             "'sentiment', 'sentence'", "--label-column and --text-column")
    _refused(("predict", sms_model, unnamed), "JSON Lines without a text field", "text, message")
    rc, _, err = cli("train", unnamed, "--label-column", "sentiment", "--text-column", "sentence", "-o", out)
    assert rc == 0, err
    out.unlink()
    array = tmp_path / "sms.json"
    array.write_text(json.dumps([{"text": t, "label": lab} for lab, t in rows], indent=1), encoding="utf-8")
    for args in (("train", array, "-o", out), ("evaluate", array), ("predict", sms_model, array)):
        _refused(args, f"{array}: JSON that is not JSON Lines", "lines=True")
    _refused(("train", _jsonl(tmp_path / "t.jsonl", rows), "--class", "label", "-o", out),
             "JSON Lines, which textnb reads as a text corpus", "not as a table",
             f"pandas.read_json({str(tmp_path / 't.jsonl')!r}, lines=True).to_csv('data.csv', index=False)")
    _refused(("train", _jsonl(tmp_path / "tan.jsonl", rows), "--model", "tan", "-o", out), "--model tan is for tables")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n{}\n{}\n", encoding="utf-8")
    _refused(("train", empty, "-o", out), f"{empty}:2: an object without fields")
    long = _jsonl(tmp_path / "long.jsonl", rows[:20] + [("ham", "word " * 300_000)])
    _refused(("train", long, "--max-bytes", "1k", "-o", out), f"{long}:21: a line of more than", "--max-bytes")
    assert not out.exists()


def test_braces_in_a_tsv_are_not_json(tmp_path):
    braces = tmp_path / "braces.tsv"  # labels that start with a brace: a TSV corpus as ever
    braces.write_text("".join(f"{{{lab}}}\t{t}\n" for lab, t in _sms_rows(40)), encoding="utf-8")
    rc, out, err = cli("train", braces, "-o", tmp_path / "b.tnb", "--json")
    assert rc == 0, err
    assert set(json.loads(out)["per_class"]) == {"{ham}", "{spam}"}


def _goemotions_part(root, out, n=1500):
    """The first ``n`` documents of GoEmotions' label file that are in its train part, as a
    folder and label file, and as JSON Lines (``datasets``' layout: a label list)."""
    ids = []
    for line in (root / "labels.tsv").read_text(encoding="utf-8").splitlines():
        doc, _, labs = line.partition("\t")
        if (root / "train" / f"{doc}.txt").exists():
            ids.append((doc, labs))
        if len(ids) == n:
            break
    docs = out / "docs"
    docs.mkdir()
    rows = []
    for doc, labs in ids:
        text = (root / "train" / f"{doc}.txt").read_bytes()
        (docs / f"{doc}.txt").write_bytes(text)
        rows.append({"id": doc, "text": text.decode("utf-8"), "labels": labs.split(",") if labs else []})
    (out / "labels.tsv").write_text("".join(f"{d}\t{labs}\n" for d, labs in ids), encoding="utf-8")
    path = out / "train.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return docs, out / "labels.tsv", path


@pytest.mark.slow  # (a shared corpus: 11 s)
def test_a_multi_label_json_lines_file_is_the_label_file_s_corpus(tmp_path, shared_corpora):
    """GoEmotions as ``datasets`` writes it (``"labels": [...]``) trains the model of its
    folder and label file, byte for byte, and evaluates to the same figures; a JSON Lines
    file whose first object's label is a list is multi-label without an option."""
    docs, labels, path = _goemotions_part(shared_corpora("goemotions"), tmp_path)
    a, b = tmp_path / "a.tnb", tmp_path / "b.tnb"
    rc, out, err = cli("train", path, "-o", a)
    assert rc == 0, err
    assert "MultiLabelNB" in out and "read as a multi-label corpus of its fields 'labels' (label)" in err
    assert cli("train", docs, "--labels", labels, "-o", b)[0] == 0
    assert a.read_bytes() == b.read_bytes()
    figures = [json.loads(cli("evaluate", *p, "--cv", "3", "--json")[1]) for p in ((path,), (docs, "--labels", labels))]
    assert figures[0]["micro_f1"] == figures[1]["micro_f1"] > 0.2
    assert figures[0]["per_label"] == figures[1]["per_label"]
    rc, out, err = cli("predict", a, path)  # (its label lists give P@1, as a fastText file's: session 51)
    assert rc == 0 and len(out.splitlines()) == 1500
    assert re.search(r"accuracy 0\.\d{4} \(\d+ of 1500 rows with a label column\)", err), err


def test_multi_label_json_lines_of_the_sms_collection(tmp_path):
    """Label lists of strings or numbers, empty lists, --multilabel on a file of label
    strings (sets of one), a label list with an object in it, and --test."""
    rows = _sms_rows(600)
    listed = _jsonl(tmp_path / "m.jsonl", rows, make=lambda lab, t, i: {
        "text": t, "label": [int(lab == "spam")] + (["long"] if len(t) > 100 else []) if i % 7 else []})
    model = tmp_path / "m.tnb"
    rc, out, err = cli("train", listed, "-o", model, "--json")
    assert rc == 0, err
    summary = json.loads(out)
    assert set(summary["per_label"]) == {"0", "1", "long"}
    rc, out, err = cli("evaluate", listed, "--test", _jsonl(tmp_path / "t.jsonl", rows[:50],
                       make=lambda lab, t, i: {"text": t, "label": [int(lab == "spam")]}), "--json")
    assert rc == 0, err
    assert json.loads(out)["micro_f1"] > 0.5
    single = _jsonl(tmp_path / "s.jsonl", rows)
    rc, out, err = cli("train", single, "--multilabel", "-o", tmp_path / "s.tnb", "--json")
    assert rc == 0, err
    assert set(json.loads(out)["per_label"]) == {"ham", "spam"}
    bad = _jsonl(tmp_path / "b.jsonl", rows, make=lambda lab, t, i: {"text": t, "label": [lab] if i != 9 else [{"x": 1}]})
    _refused(("train", bad, "-o", tmp_path / "b.tnb"), f"{bad}:10: field 'label' holds a JSON object or a list of lists")


def test_empty_labels_in_a_json_lines_label_list_are_left_out(tmp_path):
    """Found by a user trial: {"labels": ["xx", ""]} trained a label named "" (predict then
    printed an empty label), where a label file's empty label is left out and fastText's bare
    __label__ refused. Empty and blank strings are left out of a label list."""
    rows = [{"text": f"hello world {i}", "label": ["xx", ""] if i % 2 else ["yy", "  "]} for i in range(12)]
    path = tmp_path / "e.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    rc, out, err = cli("train", path, "-o", tmp_path / "e.tnb", "--json")
    assert rc == 0, err
    assert set(json.loads(out)["per_label"]) == {"xx", "yy"}


def test_an_object_without_the_text_field_is_refused_naming_its_line(tmp_path):
    """Found by a user trial: a JSON Lines row without the text field was trained as an empty
    document, where a CSV row without its text cell is refused. An empty text ("") is a text."""
    rows = ['{"label": "ham", "text": "hello there"}', '{"label": "spam", "text": ""}', '{"label": "spam"}']
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    rc, _, err = cli("train", path, "-o", tmp_path / "m.tnb")
    assert rc == 1 and not (tmp_path / "m.tnb").exists()
    one_error_line(err, f"{path}:3: no field 'text' (the first object's fields are the corpus's columns)")
    path.write_text("\n".join(rows[:2]) + '\n{"label": "ham", "text": "lunch"}\n', encoding="utf-8")
    assert cli("train", path, "-o", tmp_path / "m.tnb")[0] == 0
    query = tmp_path / "q.jsonl"  # (predict: a row without a label is a row to predict; without a text, refused)
    query.write_text('{"label": "ham", "text": "hello"}\n{"text": "win"}\n{"label": "ham"}\n', encoding="utf-8")
    rc, out, err = cli("predict", tmp_path / "m.tnb", query)
    assert rc == 1
    one_error_line(err, f"{query}:3: no field 'text'")


@pytest.mark.parametrize("first_bytes", [20_000, 300_000])
@pytest.mark.parametrize("name", ["corpus", "corpus.json", "corpus.txt", "-"])
def test_a_first_document_longer_than_the_sniffed_bytes_is_still_json_lines(tmp_path, first_bytes, name):
    """A JSON Lines file told by its content (no .jsonl name: a .json file, one without an
    extension, standard input) whose first document is long (over the 8 KiB, and the 64 KiB,
    that its kind was told by) is JSON Lines: its classes and terms are the .jsonl file's (it was
    read as CSV: classes '{"label": "a"' and JSON syntax in the terms, or a CSV error; found by a
    user trial). train, evaluate and predict --rows alike."""
    rows = _sms_rows(400)
    rows[0] = [rows[0][0], " ".join(["free entry, win a prize"] * (first_bytes // 24))]
    jsonl = _jsonl(tmp_path / "corpus.jsonl", rows)
    reference = tmp_path / "ref.tnb"
    rc, out, err = cli("train", jsonl, "-o", reference)
    assert rc == 0, err
    classes = out.splitlines()[0].split(": ", 1)[1]  # (what the .jsonl file's rows hold: ham 342, spam 58)
    path = jsonl if name == "-" else jsonl.rename(tmp_path / name) if name != "corpus.jsonl" else jsonl
    model = tmp_path / "m.tnb"
    stdin = path.read_bytes() if name == "-" else None
    rc, out, err = cli("train", "-" if name == "-" else path, "-o", model, stdin=stdin)
    assert rc == 0, err
    assert out.splitlines()[0].endswith(": " + classes) and '{"label"' not in out
    assert model.read_bytes() == reference.read_bytes()
    rc, out, err = cli("predict", model, "--rows", "-" if name == "-" else path, stdin=stdin)
    assert rc == 0, err
    assert len(out.splitlines()) == 400
    rc, out, err = cli("evaluate", "-" if name == "-" else path, "--cv", "2", "--model", "multinomial", stdin=stdin)
    assert rc == 0, err


def test_a_table_in_json_lines_is_told_what_is_missing_and_how_to_read_it(tmp_path):
    """Found by a user trial (README: "a table ... is not read from JSON: convert it to CSV
    (the error gives the pandas line)"): a JSON Lines table with a ``label`` field was said
    to be "without a label and a text field", and no pandas line was given."""
    table = tmp_path / "tab.jsonl"
    table.write_text('{"a": 1.5, "b": "x", "label": "yes"}\n{"a": 2.5, "b": "y", "label": "no"}\n')
    for command in (("train", table, "-o", tmp_path / "m.tnb"), ("evaluate", table)):
        _refused(command, f"{table}: JSON Lines without a text field (its fields are 'a', 'b', 'label')",
                 "name it with --text-column", ".to_csv('data.csv', index=False)")


@pytest.mark.parametrize("line, field", [
    ('{"label": "a", "text": "x\\ud800y good"}', "text"),
    ('{"label": "a\\ud800", "text": "good"}', "label"),
    ('{"label": ["a", "b\\udcff"], "text": "good"}', "label"),
    ('{"label": "a", "text": "good", "id": "\\udfff"}', "id"),
])
def test_a_lone_surrogate_escape_is_refused_naming_its_line_and_field(tmp_path, line, field):
    """A ``\\ud800`` escape without its pair is no character: the line is refused as a strict
    JSON parser refuses it and ``textnb serve`` refuses such a text, by train, evaluate and
    predict alike, and no model is written (*was*: an internal error, UnicodeEncodeError, with
    ``--token-pattern '\\S+'``, or from ``predict`` and ``inspect`` of the model written with a
    label holding one); a pair (an emoji) is one character, read as any."""
    path = tmp_path / "c.jsonl"
    path.write_text('{"label": "b", "text": "bad \\ud83d\\ude00"}\n' + line + "\n", encoding="utf-8")
    model = tmp_path / "m.tnb"
    for args in (("train", path, "--token-pattern", r"\S+", "-o", model), ("evaluate", path, "--cv", 2)):
        rc, _, err = cli(*args)
        assert rc == 1 and not model.exists()
        one_error_line(err, f"{path}:2: field '{field}': ", "is a lone surrogate, not text")
    path.write_text('{"label": "b", "text": "bad \\ud83d\\ude00"}\n{"label": "a", "text": "good"}\n', encoding="utf-8")
    rc, _, err = cli("train", path, "--token-pattern", r"\S+", "--model", "multinomial", "-o", model)
    assert rc == 0, err
    assert "\U0001f600" in textnb_vocabulary(model)
    path.write_text(line + "\n", encoding="utf-8")
    rc, _, err = cli("predict", model, path)
    assert rc == 1
    one_error_line(err, f"{path} (line 1): field '{field}': ", "is a lone surrogate, not text")


def textnb_vocabulary(model):
    import textnb

    return textnb.load(model).vectorizer_.vocabulary_
