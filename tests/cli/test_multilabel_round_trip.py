"""A user trial of multi-label models across their containers (session 51): ``predict``'s
output read back as a label file, the accuracy of a file read by rows, and a JSON Lines
corpus whose fields ``train`` was told by name read by ``predict`` the same way."""

import json

import pytest

from conftest import cli, one_error_line
from textnb.io.multilabel import read_label_file

WEATHER = "rain cloud storm wind snow{}"
SPORT = "ball goal team match score{}"


def _jsonl(path, label_field="labels", text_field="text", weather=("a,b",), sport=("sport",)):
    with open(path, "w") as f:
        for i in range(12):
            f.write(json.dumps({text_field: WEATHER.format(i), label_field: list(weather)}) + "\n")
            f.write(json.dumps({text_field: SPORT.format(i), label_field: list(sport)}) + "\n")
    return path


@pytest.mark.parametrize("field, labels", [
    ("a,b", ["a", "b"]), (r"a\,b", ["a,b"]), (r"a\\,b", ["a\\", "b"]), (r"a\\\,b", ["a\\,b"]),
    (r"C:\temp,x", [r"C:\temp", "x"]), ("x\\", ["x\\"]), ("", [""]),
])
def test_a_label_field_is_split_at_its_unescaped_commas(field, labels):
    """``\\,`` is a comma inside a label and ``\\\\`` a backslash, as predict writes them; any
    other backslash is kept as written."""
    from textnb.io.multilabel import split_labels

    assert split_labels(field) == labels


def test_predict_s_labels_read_back_as_a_label_file_train_the_same_labels(tmp_path):
    """A label holding a comma, which predict prints ``a\\,b``, is one label read back from a
    label file (*was*: the two labels ``a\\`` and ``b``, silently)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(12):
        (docs / f"w{i}.txt").write_text(WEATHER.format(i) + "\n")
        (docs / f"s{i}.txt").write_text(SPORT.format(i) + "\n")
    corpus = _jsonl(tmp_path / "c.jsonl")
    assert cli("train", corpus, "-o", tmp_path / "m.tnb")[0] == 0
    code, out, err = cli("predict", tmp_path / "m.tnb", docs)
    assert code == 0, err
    rows = [line.split("\t") for line in out.splitlines()]
    assert {labels for _, labels in rows} == {"a\\,b", "sport"}
    labels = tmp_path / "labels.tsv"
    labels.write_text("".join(f"{src[len(str(docs)) + 1:]}\t{lab}\n" for src, lab in rows))
    assert set(read_label_file(labels).values()) == {("a,b",), ("sport",)}
    code, out, err = cli("train", docs, "--labels", labels, "-o", tmp_path / "m2.tnb", "--json")
    assert code == 0, err
    assert json.loads(out)["per_label"] == {"a,b": 12, "sport": 12}


def test_predict_of_a_multilabel_model_gives_the_accuracy_of_a_file_read_by_rows(tmp_path):
    """A JSON Lines file of label lists (and a TSV file of labels) read by a multi-label model's
    predict gives its P@1 on stderr, as the same documents as a fastText file do (*was*: no
    accuracy for rows)."""
    corpus = _jsonl(tmp_path / "c.jsonl", weather=("weather",), sport=("sport", "fun"))
    assert cli("train", corpus, "-o", tmp_path / "m.tnb")[0] == 0
    fasttext = tmp_path / "c.ft.txt"
    fasttext.write_text("".join(f"__label__weather {WEATHER.format(i)}\n__label__sport __label__fun "
                                f"{SPORT.format(i)}\n" for i in range(12)))
    code, out, err = cli("predict", tmp_path / "m.tnb", fasttext)
    assert code == 0 and "accuracy 1.0000 (24 of 24 lines with a label)" in err, err
    for argv in ([corpus], ["--rows", corpus]):
        code, out, err = cli("predict", tmp_path / "m.tnb", *argv)
        assert code == 0, err
        assert f"{corpus}: accuracy 1.0000 (24 of 24 rows with a label column)" in err
    # a row whose top label is not among its labels is counted wrong; a row without labels is left out
    wrong = tmp_path / "w.jsonl"
    wrong.write_text(json.dumps({"text": WEATHER.format(1), "labels": ["sport"]}) + "\n"
                     + json.dumps({"text": SPORT.format(1), "labels": []}) + "\n"
                     + json.dumps({"text": SPORT.format(2), "labels": ["fun", "x"]}) + "\n")
    code, out, err = cli("predict", tmp_path / "m.tnb", wrong)
    assert code == 0, err
    assert "accuracy" in err and "(1 of 2 rows with a label column; 1 row without a label not counted" in err, err
    tsv = tmp_path / "c.tsv"
    tsv.write_text("label\ttext\n" + "".join(f"weather\t{WEATHER.format(i)}\nfun\t{SPORT.format(i)}\n"
                                             for i in range(3)))
    code, out, err = cli("predict", tmp_path / "m.tnb", tsv)
    assert code == 0, err
    assert len(out.splitlines()) == 6 and "accuracy 1.0000 (6 of 6 rows with a label column)" in err, err
    # a file without a label column: predictions, no accuracy
    plain = tmp_path / "p.jsonl"
    plain.write_text(json.dumps({"text": WEATHER.format(1)}) + "\n")
    code, out, err = cli("predict", tmp_path / "m.tnb", plain)
    assert code == 0 and out.startswith(f"{plain}:1\tweather") and "accuracy" not in err, (out, err)


@pytest.mark.parametrize("multilabel", [False, True])
def test_predict_reads_rows_by_the_columns_train_was_told(tmp_path, multilabel):
    """A JSON Lines corpus trained with ``--label-column emotions --text-column sentence`` is read
    by ``predict --text-column sentence`` (and ``--label-column`` for its accuracy), a single- or
    multi-label model's (*was*: predict refused the file, 'JSON Lines without a text field', and
    had no --text-column)."""
    weather, sport = (["weather"], ["sport", "fun"]) if multilabel else ("weather", "sport")
    sport_set = {*sport} if multilabel else {sport}
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps({"emotions": weather, "sentence": WEATHER.format(i)}) + "\n"
                              + json.dumps({"emotions": sport, "sentence": SPORT.format(i)}) + "\n"
                              for i in range(12)))
    model = tmp_path / "m.tnb"
    assert cli("train", corpus, "--label-column", "emotions", "--text-column", "sentence", "-o", model)[0] == 0
    code, out, err = cli("predict", model, corpus)
    assert code == 1
    one_error_line(err, f"{corpus}: JSON Lines without a text field", "--text-column")
    code, out, err = cli("predict", model, corpus, "--text-column", "sentence")
    assert code == 0, err
    assert [set(line.split("\t")[1].split(",")) for line in out.splitlines()][:2] == [{"weather"}, sport_set]
    assert "accuracy" not in err
    code, out2, err = cli("predict", model, corpus, "--text-column", "2", "--label-column", "emotions")
    assert code == 0 and out2 == out, err
    assert f"{corpus}: accuracy 1.0000 (24 of 24 rows with a label column)" in err
    # a folder has no columns; one text column only
    folder = tmp_path / "d"
    folder.mkdir()
    (folder / "a.txt").write_text("rain\n")
    code, out, err = cli("predict", model, folder, "--text-column", "sentence")
    assert code == 1
    one_error_line(err, f"{model}: a text model, which reads documents; --text-column is for TSV/CSV files")
    code, out, err = cli("predict", model, corpus, "--text-column", "sentence", "--text-column", "emotions")
    assert code == 1
    one_error_line(err, "--text-column given 2 times")


def test_a_table_model_refuses_predict_s_column_options(tmp_path):
    """A table model knows its columns: ``--text-column`` / ``--label-column`` are one line."""
    table = tmp_path / "t.csv"
    table.write_text("outlook,windy,play\n" + "sunny,yes,no\novercast,no,yes\nrainy,yes,no\n" * 3)
    assert cli("train", table, "--class", "play", "-o", tmp_path / "t.tnb")[0] == 0
    code, out, err = cli("predict", tmp_path / "t.tnb", table, "--label-column", "play")
    assert code == 1
    one_error_line(err, f"{tmp_path / 't.tnb'}: a table model, which reads tables; --label-column")
