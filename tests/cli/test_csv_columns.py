"""CSV/TSV tables (session 30): number-coded columns declared nominal (``--nominal-columns``,
Weka's CSVLoader ``-N``; ``read_table(nominal=)``), and files without a header row (a first
row that looks like data is a warning; ``--no-header`` / ``header=False`` reads it, columns
named ``att1`` ... as Weka names them), on both table paths (plain tables and mixed tables
with text columns), and on every command that reads a table (train, evaluate and its
``--test``, predict)."""

import csv
import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from conftest import cli, one_error_line
from textnb.core.errors import DataWarning, InputError
from textnb.io.csvtable import column_refs, looks_like_data, read_csv
from textnb.io.tables import read_table

REPO = Path(__file__).resolve().parents[2]
UCI = REPO.parent / "shared" / "datasets" / "uci"
needs_uci = pytest.mark.skipif(not UCI.is_dir(), reason="../shared/datasets/uci not available")


def _arff_as_csv(arff, path, header=True):
    """The ARFF file ``arff`` written as a CSV file (nominal values and numbers as written)."""
    from textnb.io.arff import read_arff

    a = read_arff(arff)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        if header:
            w.writerow([x.name for x in a.attributes])
        for row in a.X:
            w.writerow(["?" if v != v else x.values[int(v)] if x.kind == "nominal" else repr(float(v))
                        for x, v in zip(a.attributes, row)])
    return path


def _predictions(model, path, *options):
    rc, out, err = cli("predict", model, path, "--proba", "--json", *options)
    assert rc == 0, err
    return [(r["label"], r["proba"]) for r in map(json.loads, out.splitlines())]


# -- 1. --nominal-columns ------------------------------------------------------------------------------------
CODED = ("size,colour,shape,class\n" + "".join(f"{s},{c},{h},{k}\n" for s, c, h, k in [
    (1, 2, "round", "a"), (2, 2, "round", "a"), (1, 1, "long", "a"), (3, 1, "long", "b"), (3, 3, "round", "b"),
    (2, 3, "long", "b"), (1, 2, "round", "a"), (3, 3, "long", "b")]))
CODED_ARFF = ("@relation coded\n@attribute size {1,2,3}\n@attribute colour {2,1,3}\n@attribute shape {round,long}\n"
              "@attribute class {a,b}\n@data\n" + CODED.split("\n", 1)[1])


def test_nominal_columns_read_number_codes_as_categories(tmp_path):
    """Crafted: a number-coded column was always numeric (Gaussian over the codes 1, 2, 3);
    ``nominal=`` by name, number or range makes it nominal, its values the codes as written."""
    path = tmp_path / "coded.csv"
    path.write_text(CODED)
    plain = read_table(path)
    assert [a.kind for a in plain.attributes] == ["numeric", "numeric", "nominal"]
    for refs in (["size", "colour"], ["1", "2"], ["1-2"], ["first-2"], ["size", "2"]):
        t = read_table(path, nominal=refs)
        assert [a.kind for a in t.attributes] == ["nominal", "nominal", "nominal"], refs
        assert t.attributes[0].values == ["1", "2", "3"] and t.attributes[1].values == ["1", "2", "3"]  # (sorted)
    attributes, _ = read_csv(path, nominal=["last"])  # (the class: nominal already)
    assert attributes[-1].kind == "nominal"
    for refs, words in ((["9"], "out of range 1..4"), (["nope"], "no column 'nope'"), (["3-1"], "runs backwards")):
        with pytest.raises(InputError, match=words):
            read_table(path, nominal=refs)
    with pytest.raises(InputError, match="ARFF file declares its types"):
        (tmp_path / "c.arff").write_text(CODED_ARFF)
        read_table(tmp_path / "c.arff", nominal=["size"])


@pytest.mark.parametrize("model", ["nb", "tan", "aode"])
def test_nominal_columns_give_the_arff_models_predictions(tmp_path, model):
    """Crafted: the CSV with ``--nominal-columns`` trains the model the ARFF file declaring
    those columns nominal trains (the same predictions and probabilities); predict reads the
    query CSV as the model was trained, without the option (the model keeps the columns
    nominal), and ``evaluate --test`` alike."""
    (tmp_path / "c.csv").write_text(CODED)
    (tmp_path / "c.arff").write_text(CODED_ARFF)
    rc, out, err = cli("train", tmp_path / "c.csv", "--nominal-columns", "size,2", "--model", model,
                       "-o", tmp_path / "csv.tnb")
    assert rc == 0, err
    assert "(3 nominal, 0 numeric)" in out
    rc, _, err = cli("train", tmp_path / "c.arff", "--model", model, "-o", tmp_path / "arff.tnb")
    assert rc == 0, err
    by_csv = _predictions(tmp_path / "csv.tnb", tmp_path / "c.csv")
    by_arff = _predictions(tmp_path / "arff.tnb", tmp_path / "c.arff")
    assert [p[0] for p in by_csv] == [p[0] for p in by_arff]
    np.testing.assert_allclose([list(p[1].values()) for p in by_csv], [list(p[1].values()) for p in by_arff],
                               rtol=0, atol=1e-12)
    rc, csv_report, err = cli("evaluate", tmp_path / "c.csv", "--nominal-columns", "1-2", "--model", model,
                              "--test", tmp_path / "c.csv", "--json")
    assert rc == 0, err
    rc, arff_report, err = cli("evaluate", tmp_path / "c.arff", "--model", model, "--test", tmp_path / "c.arff",
                               "--json")
    assert rc == 0, err
    assert json.loads(csv_report)["confusion_matrix"] == json.loads(arff_report)["confusion_matrix"]


@needs_uci
@pytest.mark.parametrize("name", ["monks-problems-2", "solar-flare_1"])
def test_nominal_columns_on_a_uci_table_match_its_arff(tmp_path, name):
    """Real data: monks-2 (six attributes coded 1..4, class first) and solar-flare_1 (ten
    number-coded attributes) exported to CSV. Without the option the codes were numbers
    (Gaussian); with ``--nominal-columns`` over them, train / predict / evaluate give the
    predictions of the ARFF file, which declares them nominal."""
    from textnb.io.arff import read_arff

    train_arff = UCI / (f"{name}_train.arff" if name.startswith("monks") else f"{name}.arff")
    test_arff = UCI / (f"{name}_test.arff" if name.startswith("monks") else f"{name}.arff")
    attributes = read_arff(train_arff).attributes
    cls = attributes[0].name if name.startswith("monks") else attributes[-1].name
    coded = [a.name for a in attributes if a.kind == "nominal" and a.name != cls
             and all(v.isdigit() for v in a.values)]
    assert len(coded) >= 6
    train_csv, test_csv = _arff_as_csv(train_arff, tmp_path / "train.csv"), _arff_as_csv(test_arff, tmp_path / "t.csv")
    rc, out, err = cli("train", train_csv, "--class", cls, "-o", tmp_path / "numeric.tnb")
    assert rc == 0 and f"{len(coded)} numeric" in out, (out, err)
    rc, out, err = cli("train", train_csv, "--class", cls, "--nominal-columns", ",".join(coded), "-o", tmp_path / "c.tnb")
    assert rc == 0 and "0 numeric" in out, (out, err)
    rc, _, err = cli("train", train_arff, "--class", cls, "-o", tmp_path / "a.tnb")
    assert rc == 0, err
    by_csv, by_arff = _predictions(tmp_path / "c.tnb", test_csv), _predictions(tmp_path / "a.tnb", test_arff)
    assert [p[0] for p in by_csv] == [p[0] for p in by_arff]
    classes = list(by_arff[0][1])
    np.testing.assert_allclose([[p[1][c] for c in classes] for p in by_csv],
                               [[p[1][c] for c in classes] for p in by_arff], rtol=0, atol=1e-9)
    assert [p[0] for p in _predictions(tmp_path / "numeric.tnb", test_csv)] != [p[0] for p in by_arff]


def test_nominal_columns_on_a_mixed_table_and_refusals(tmp_path):
    """The mixed-table path (text columns beside others) takes the option as the plain one;
    predict refuses it for a column the model has as numeric, and for a text model; a folder,
    an ARFF file and a fastText file refuse it (it would be left unused)."""
    rows = [(c, code, words) for c, code, words in [("spam", 1, "win cash now"), ("spam", 2, "cash prize win"),
                                                    ("ham", 3, "lunch today"), ("ham", 2, "meet for lunch"),
                                                    ("spam", 1, "free prize"), ("ham", 3, "see you today")]]
    path = tmp_path / "m.csv"
    path.write_text("code,body,label\n" + "".join(f"{code},{w},{c}\n" for c, code, w in rows))
    rc, out, err = cli("train", path, "--text-column", "body", "--nominal-columns", "code", "-o", tmp_path / "m.tnb")
    assert rc == 0 and "(1 nominal, 0 numeric, 1 text)" in out, (out, err)
    rc, out, err = cli("train", path, "--text-column", "body", "-o", tmp_path / "n.tnb")
    assert rc == 0 and "(0 nominal, 1 numeric, 1 text)" in out, (out, err)
    rc, _, err = cli("predict", tmp_path / "n.tnb", path, "--nominal-columns", "code")
    one_error_line(err, "column 'code' is numeric in the model", "--nominal-columns")
    rc, _, err = cli("train", tmp_path, "--nominal-columns", "1")
    one_error_line(err, "a folder corpus", "--nominal-columns")
    (tmp_path / "c.arff").write_text(CODED_ARFF)
    rc, _, err = cli("train", tmp_path / "c.arff", "--nominal-columns", "1", "-o", tmp_path / "x.tnb")
    one_error_line(err, "--nominal-columns applies to CSV/TSV files")
    (tmp_path / "f.txt").write_text("__label__a cash prize\n__label__b lunch today\n__label__a cash\n__label__b lunch\n")
    rc, _, err = cli("train", tmp_path / "f.txt", "--nominal-columns", "1", "-o", tmp_path / "f.tnb")
    one_error_line(err, "a fastText file", "--nominal-columns", "left unused")
    rc, _, err = cli("train", tmp_path / "f.txt", "-o", tmp_path / "f.tnb")
    assert rc == 0, err
    rc, _, err = cli("predict", tmp_path / "f.tnb", path, "--nominal-columns", "1")
    one_error_line(err, "a text model", "--nominal-columns")


# -- 2. a file without a header row ------------------------------------------------------------------------
IRIS_ROWS = "5.1,3.5,1.4,0.2,setosa\n4.9,3.0,1.4,0.2,setosa\n6.4,3.2,4.5,1.5,versicolor\n6.9,3.1,4.9,1.5,versicolor\n"


def test_a_first_row_of_data_read_as_the_header_is_a_warning(tmp_path):
    """A CSV without a header row lost its first row without a word (as Weka does); now a
    DataWarning naming the file says so, and ``header=False`` reads every row, the columns
    named att1 ... (Weka's names)."""
    path = tmp_path / "iris.csv"
    path.write_text(IRIS_ROWS)
    with pytest.warns(DataWarning, match=r"iris\.csv:1: the first row \(5\.1,3\.5,1\.4,0\.2,setosa\) looks like "
                                         r"data.*--no-header"):
        t = read_table(path)
    assert len(t.y) == 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        t = read_table(path, header=False)
        assert len(t.y) == 4 and [a.name for a in t.attributes] == ["att1", "att2", "att3", "att4"]
        assert t.class_attribute.name == "att5"
        t = read_table(path, header=False, class_name="att5", drop=["att1"], nominal=["att2"])
        assert [a.kind for a in t.attributes] == ["nominal", "numeric", "numeric"]
        named = tmp_path / "named.csv"
        named.write_text("sepal_length,sepal_width,petal_length,petal_width,class\n" + IRIS_ROWS)
        assert len(read_table(named).y) == 4  # a header of names: no warning
    with pytest.raises(InputError, match="ARFF file declares its attributes"):
        (tmp_path / "c.arff").write_text(CODED_ARFF)
        read_table(tmp_path / "c.arff", header=False)


def test_looks_like_data_rule():
    """The rule: no name above a column of numbers; every cell a number, missing or a value
    recurring in its column in a row that is not the first row again (at most a quarter of
    the values may not: an ID, a rare value)."""
    rows = [["4.9", "3.0", "setosa"], ["6.4", "3.2", "versicolor"], ["sunny", "x", "setosa"]]
    assert looks_like_data(["5.1", "3.5", "setosa"], rows)
    assert looks_like_data(["5.1", "", "?"], rows)
    assert not looks_like_data(["sepal", "width", "class"], rows)
    assert not looks_like_data(["5.1", "3.5", "Iris-setosa"], rows)  # (a name that recurs nowhere)
    assert not looks_like_data(["1990", "1991", "country"], [["3", "4", "France"]])
    words = [["sunny", "hot", "no"], ["rainy", "mild", "yes"], ["sunny", "mild", "yes"], ["rainy", "hot", "no"]]
    assert looks_like_data(["sunny", "hot", "yes"], words)
    assert not looks_like_data(["outlook", "temp", "play"], [["outlook", "temp", "play"]] + words)
    # the first data row again, its values in other rows too: a duplicate row (audiology has them)
    assert looks_like_data(["sunny", "hot", "no"], words)
    assert not looks_like_data(["outlook", "temp", "play"], words + [["outlook", "temp", "play"]] * 2)
    assert column_refs("f", ["b", "3-last", "first"], ["a", "b", "c", "d"]) == ["a", "b", "c", "d"]


def test_headerless_tables_with_an_id_a_duplicated_row_or_one_row_are_found(tmp_path):
    """The headerless tables the rule missed (promoters: an ID column, its first value found
    nowhere else; audiology: its first row repeated below, taken for a header row repeated;
    weather.query: one row): the warning, or the error with the hint, names --no-header; their
    headers are not taken for data."""
    bases = ["a", "c", "g", "t"]
    promoters = [["+" if i % 2 else "-", f"S{i}", *(bases[(i + k) % 4] for k in range(6))] for i in range(12)]
    audiology = [["t", "mild", "f", "normal", "cochlear"]] * 2 + [
        ["f", "severe" if i % 3 else "mild", "t" if i % 2 else "f", "normal", "cochlear" if i % 2 else "poss"]
        for i in range(10)]
    for name, rows in (("promoters", promoters), ("audiology", audiology)):
        header = [f"{name}{j}" for j in range(len(rows[0]))]
        assert looks_like_data(rows[0], rows[1:]), name
        assert not looks_like_data(header, rows), name
        path = tmp_path / f"{name}.csv"
        path.write_text("".join(",".join(r) + "\n" for r in rows))
        rc, _, err = cli("train", path, "-o", tmp_path / "m.tnb")
        assert "--no-header" in err and ("looks like data" in err or rc != 0), err
        rc, _, err = cli("train", path, "--no-header", "-o", tmp_path / "m.tnb")
        assert rc == 0 and not err, err
    (tmp_path / "q.csv").write_text("sunny,cool,high,TRUE,?\n")
    rc, _, err = cli("train", tmp_path / "q.csv", "-o", tmp_path / "m.tnb")
    assert rc == 1 and err.splitlines()[-1].endswith("no data rows under its header row (a file without a header "
                                                     "row? read it with --no-header)"), err


@pytest.mark.slow  # (reads every shared table)
@needs_uci
def test_no_false_alarm_on_the_shared_tables_and_headerless_ones_found():
    """Every shared UCI table (and the bundled ARFF files) written as a CSV with its header:
    no header is taken for data; the same without a header: the first row is found to be data
    in every one that has other rows (a row of words that recur in their columns, numbers; an
    ID, audiology's duplicated first row: missed before, with promoters' ID column)."""
    from textnb.io.arff import read_arff

    found = total = 0
    for path in sorted(UCI.glob("*.arff")) + sorted((REPO / "corpora").glob("*.arff")):
        a = read_arff(path)
        rows = [["?" if v != v else x.values[int(v)] if x.kind == "nominal" else repr(float(v))
                 for x, v in zip(a.attributes, r)] for r in a.X]
        header = [x.name for x in a.attributes]
        assert not looks_like_data(header, rows), path.name
        total += 1
        found += looks_like_data(rows[0], rows[1:])
    assert total >= 40 and found == total - 1, (found, total)  # (weather.query: one row, nothing below it)


@needs_uci
def test_train_evaluate_predict_a_headerless_uci_table(tmp_path):
    """Real data (iris written without its header): train said nothing and learned 149 of 150
    rows; now one warning line naming the file; ``--no-header`` learns all 150, ``evaluate
    --test`` and ``predict --no-header`` read the headerless files so; predict without it
    says what to do."""
    path = _arff_as_csv(UCI / "iris.arff", tmp_path / "iris.csv", header=False)
    rc, out, err = cli("train", path, "-o", tmp_path / "lost.tnb")
    assert rc == 0 and "read 149 rows" in out
    warning = [line for line in err.splitlines() if line.startswith("textnb: warning:")]
    assert len(warning) == 1 and f"{path}:1:" in warning[0] and "--no-header" in warning[0], err
    rc, out, err = cli("train", path, "--no-header", "-o", tmp_path / "m.tnb")
    assert rc == 0 and "read 150 rows" in out and not err, err
    rc, out, err = cli("evaluate", path, "--no-header", "--test", path, "--json")
    assert rc == 0 and json.loads(out)["n"] == 150 and not err, err
    rc, out, err = cli("predict", tmp_path / "m.tnb", path, "--no-header")
    assert rc == 0 and len(out.splitlines()) == 150 and "accuracy" in err
    rc, _, err = cli("predict", tmp_path / "m.tnb", path)
    assert rc != 0 and "--no-header" in err.splitlines()[-1]
    rc, _, err = cli("train", path, "--no-header", "--class", "att5", "--ignore", "att1", "--nominal-columns", "att2",
                     "-o", tmp_path / "n.tnb")
    assert rc == 0, err


def test_predict_hints_at_no_header_when_the_model_left_out_some_att_columns(tmp_path):
    """A model trained with ``--no-header --ignore att1`` has the attributes ``att2`` ...,
    not ``att1`` ... ``attN``: ``predict`` of a headerless file without ``--no-header``
    still says to give it (before: only the model's names, the hint dropped)."""
    path = tmp_path / "nohdr.csv"
    path.write_text("red,1.5,a\nblue,2.5,b\nred,1.7,a\nblue,3.0,b\n")
    rc, _, err = cli("train", path, "--no-header", "--ignore", "att1", "-o", tmp_path / "m.tnb")
    assert rc == 0, err
    rc, _, err = cli("predict", tmp_path / "m.tnb", path)
    assert rc == 1
    line = err.strip().splitlines()[-1]
    assert line.startswith("textnb: error: ") and "lacks the model's attribute(s) ['att2']" in line, err
    assert line.endswith("a CSV/TSV file without one is read so with --no-header"), err
    rc, out, err = cli("predict", tmp_path / "m.tnb", path, "--no-header")
    assert rc == 0 and len(out.splitlines()) == 4, err


def test_no_header_on_the_mixed_table_path(tmp_path):
    """A mixed table (a text column beside others) without a header row: ``--no-header``
    with ``--text-column 2`` (its number), as on the plain path; without it, the warning."""
    body = "".join(f"{code},{w},{c}\n" for c, code, w in [
        ("spam", 1, "win cash now"), ("spam", 2, "cash prize win"), ("ham", 3, "lunch today"),
        ("ham", 2, "meet for lunch"), ("spam", 1, "free prize"), ("ham", 3, "see you today")])
    path = tmp_path / "m.csv"
    path.write_text(body)
    rc, out, err = cli("train", path, "--text-column", "2", "--no-header", "--nominal-columns", "1",
                       "-o", tmp_path / "m.tnb")
    assert rc == 0 and "read 6 rows" in out and "(1 nominal, 0 numeric, 1 text)" in out and not err, (out, err)
    rc, out, err = cli("predict", tmp_path / "m.tnb", path, "--no-header")
    assert rc == 0 and len(out.splitlines()) == 6, err
    (tmp_path / "h.csv").write_text("1,win cash now,spam\n" + body)
    rc, out, err = cli("train", tmp_path / "h.csv", "--text-column", "att2", "-o", tmp_path / "h.tnb")
    assert rc != 0  # (no column att2: it has a header row)
    rc, out, err = cli("train", tmp_path / "h.csv", "--text-column", "2", "-o", tmp_path / "h.tnb")
    assert "looks like data" in err and "--no-header" in err, err


def test_a_tsv_file_is_read_with_one_quoting_rule_as_a_corpus_and_as_a_table(tmp_path):
    """Found by a user trial: a TSV file whose text starts with a quote was a text corpus
    (the quote is text) but refused as a mixed table ("'\\t' expected after '\\"'"), so the
    bundled SMS collection (its line 283) could not be read with --text-column. A TSV file
    has no quoting, for every reader; a CSV file's cells are quoted as RFC 4180 says."""
    from conftest import SMS_TSV

    tsv = tmp_path / "q.tsv"
    tsv.write_text('label\ttext\nham\t"Happy day" I know\nspam\twin cash\n', encoding="utf-8")
    corpus, table = tmp_path / "c.tnb", tmp_path / "t.tnb"
    assert cli("train", tsv, "-o", corpus)[0] == 0
    rc, out, err = cli("train", tsv, "--text-column", "text", "--class", "label", "-o", table)
    assert rc == 0, err
    rc, out, err = cli("predict", table, tsv, "--json")
    assert rc == 0, err
    assert [json.loads(line)["label"] for line in out.splitlines()] == ["ham", "spam"]
    rows = SMS_TSV.read_text(encoding="utf-8").splitlines()[:400]
    sms = tmp_path / "sms.tsv"
    sms.write_text("label\ttext\n" + "\n".join(rows) + "\n", encoding="utf-8")
    assert any(row.split("\t", 1)[1].startswith('"') for row in rows)
    rc, out, err = cli("train", sms, "--text-column", "text", "--class", "label", "-o", table)
    assert rc == 0 and "read 400 rows" in out, err
    quoted = tmp_path / "q.csv"  # (a CSV file's quotes still quote: a comma inside one is text)
    quoted.write_text('label,text\nham,"Happy, day"\nspam,win cash\n', encoding="utf-8")
    rc, out, err = cli("train", quoted, "--text-column", "text", "--class", "label", "-o", table, "--json")
    assert rc == 0, err
