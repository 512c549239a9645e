"""A JSON or JSON Lines file given as a corpus or a table (a dataset exported by pandas or
Hugging Face datasets) is one line saying what it is and how to convert it; read as CSV
it failed many lines in on a quote or a row's width ("row has 2 cells, expected 3")."""

import json

import pytest
from conftest import SMS_TSV, cli, one_error_line


def _sms_rows(n=300):
    return [line.split("\t", 1) for line in SMS_TSV.read_text(encoding="utf-8").splitlines()[:n]]


@pytest.mark.parametrize("name", ["sms.jsonl", "sms.ndjson", "sms.txt", "sms.dat", "sms"])
def test_json_lines_is_refused_in_one_line_by_every_reader(tmp_path, name):
    path = tmp_path / name
    path.write_text("".join(json.dumps({"text": t, "label": lab}) + "\n" for lab, t in _sms_rows()),
                    encoding="utf-8")
    model = tmp_path / "m.tnb"
    assert cli("train", SMS_TSV, "-o", model)[0] == 0
    for args in (("train", path, "-o", tmp_path / "x.tnb"), ("evaluate", path), ("predict", model, "--rows", path),
                 ("train", path, "--model", "tan", "-o", tmp_path / "x.tnb")):
        rc, out, err = cli(*args)
        assert rc == 1 and out == "", args
        one_error_line(err, f"{path}: JSON Lines, which textnb does not read as a corpus or table",
                       f"pandas.read_json({str(path)!r}, lines=True).to_csv('data.csv', index=False)")
    assert not (tmp_path / "x.tnb").exists()
    # a document that happens to be JSON is still a document to classify
    rc, out, err = cli("predict", model, path)
    assert rc == 0 and out.startswith(f"{path}\t")


def test_a_json_array_is_refused_and_braces_in_a_tsv_are_not_json(tmp_path):
    rows = _sms_rows(40)
    array = tmp_path / "sms.json"
    array.write_text(json.dumps([{"text": t, "label": lab} for lab, t in rows], indent=1), encoding="utf-8")
    unnamed = tmp_path / "sms.data"
    unnamed.write_bytes(array.read_bytes())
    for path in (array, unnamed):
        rc, out, err = cli("train", path, "-o", tmp_path / "x.tnb")
        assert rc == 1
        one_error_line(err, f"{path}: JSON, which textnb does not read", "orient='records'")
    braces = tmp_path / "braces.tsv"  # labels that start with a brace: a TSV corpus as ever
    braces.write_text("".join(f"{{{lab}}}\t{t}\n" for lab, t in rows), encoding="utf-8")
    rc, out, err = cli("train", braces, "-o", tmp_path / "b.tnb", "--json")
    assert rc == 0, err
    assert set(json.loads(out)["per_class"]) == {"{ham}", "{spam}"}
