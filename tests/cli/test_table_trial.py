"""What a user trial of the table paths found (session 16): options on tables applied or
refused, the class kept out of --ignore, merges of CSV parts, query files with an ID column,
and the query reader's errors the training reader's."""

import json

import numpy as np
import pytest

from conftest import CORPORA, cli, one_error_line
from textnb.io.tables import read_table

ROWS = ["red,1,yes", "blue,2,no", "red,1.5,yes", "blue,2.5,no", "red,1.2,yes", "blue,2.2,no", "red,2.1,no",
        "blue,1.1,yes", "red,0.9,yes", "blue,2.8,no", "green,3.1,no", "green,0.7,yes"]


def _csv(path, rows, header="colour,size,class"):
    path.write_text(header + "\n" + "".join(r + "\n" for r in rows))
    return path


def _labor_like(path):
    """An ARFF file with missing values in nominal and numeric attributes."""
    rng = np.random.default_rng(0)
    lines = []
    for i in range(60):
        c = "good" if i % 2 else "bad"
        a = ("x" if rng.random() < 0.7 else "y") if c == "good" else ("y" if rng.random() < 0.7 else "x")
        v = rng.normal(2.0 if c == "good" else 1.0, 0.5)
        lines.append(f"{'?' if i % 7 == 0 else a},{'?' if i % 5 == 0 else f'{v:.3f}'},{c}")
    path.write_text("@relation l\n@attribute a {x,y}\n@attribute v numeric\n@attribute class {good,bad}\n@data\n"
                    + "\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("options", [[], ["--lazy", "lbr"], ["--model", "tan"], ["--model", "aode"]])
def test_calibrate_on_a_table_calibrates(tmp_path, options):
    """--calibrate on a table was accepted and left unused (the model file byte for byte the
    plain one; on a table with missing values, once applied, a NaN check refused it)."""
    data = _labor_like(tmp_path / "l.arff")
    rc, out, err = cli("train", data, *options, "--calibrate", "sigmoid", "-o", tmp_path / "c.tnb", "--json")
    assert rc == 0, err
    rc, plain, err = cli("train", data, *options, "-o", tmp_path / "p.tnb")
    assert rc == 0, err
    assert (tmp_path / "c.tnb").read_bytes() != (tmp_path / "p.tnb").read_bytes()
    rc, shown, err = cli("inspect", tmp_path / "c.tnb")
    assert rc == 0 and "CalibratedNB" in shown.splitlines()[0], (shown, err)
    rc, out, err = cli("predict", tmp_path / "c.tnb", data, "--proba", "--json")
    assert rc == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    assert len(rows) == 60 and all(abs(sum(r["proba"].values()) - 1) < 1e-9 for r in rows)
    losses = []
    for extra in (["--calibrate", "sigmoid"], []):
        rc, out, err = cli("evaluate", data, *options, *extra, "--cv", "3", "--json")
        assert rc == 0, err
        losses.append(json.loads(out)["log_loss"])
    assert losses[0] != losses[1]


def test_the_class_cannot_be_ignored(tmp_path):
    """--ignore of the class (the last attribute) made the next-to-last one the class without a word."""
    for command, extra in (("train", ["-o", tmp_path / "w.tnb"]), ("evaluate", ["--cv", "2"])):
        rc, out, err = cli(command, CORPORA / "weather.nominal.arff", "--ignore", "play", *extra)
        assert rc == 1 and out == ""
        one_error_line(err, "weather.nominal.arff: cannot leave out the class attribute 'play'", "--class")
    rc, out, err = cli("train", CORPORA / "weather.nominal.arff", "--ignore", "play", "--class", "windy",
                       "-o", tmp_path / "w.tnb", "--json")
    assert rc == 0 and set(json.loads(out)["per_class"]) == {"TRUE", "FALSE"}, err


def test_merging_csv_parts_matches_values_by_name(tmp_path):
    """Parts of a CSV file list their nominal values in the order they meet them, and one may
    meet a value the other does not: merging refused them; merged, they are the model of the
    whole file."""
    a = _csv(tmp_path / "a.csv", ROWS[:6])
    b = _csv(tmp_path / "b.csv", ROWS[6:])  # starts with red, then blue, and has green
    whole = _csv(tmp_path / "whole.csv", ROWS)
    for part in ("a", "b", "whole"):
        rc, out, err = cli("train", tmp_path / f"{part}.csv", "--numeric", "gaussian", "-o", tmp_path / f"{part}.tnb")
        assert rc == 0, err
    rc, out, err = cli("merge", tmp_path / "a.tnb", tmp_path / "b.tnb", "-o", tmp_path / "ab.tnb")
    assert rc == 0, err
    answers = []
    for model in ("ab", "whole"):
        rc, out, err = cli("predict", tmp_path / f"{model}.tnb", whole, "--proba", "--json")
        assert rc == 0, err
        answers.append([json.loads(line) for line in out.splitlines()])
    for x, y in zip(*answers):
        assert x["label"] == y["label"]
        assert all(abs(x["proba"][c] - y["proba"][c]) < 1e-12 for c in y["proba"])
    del a, b


def test_merging_tables_with_other_attributes_names_them(tmp_path):
    _csv(tmp_path / "a.csv", ROWS)
    _csv(tmp_path / "b.csv", ROWS, header="colour,weight,class")
    for part in ("a", "b"):
        assert cli("train", tmp_path / f"{part}.csv", "-o", tmp_path / f"{part}.tnb")[0] == 0
    rc, out, err = cli("merge", tmp_path / "a.tnb", tmp_path / "b.tnb", "-o", tmp_path / "ab.tnb")
    assert rc == 1 and not (tmp_path / "ab.tnb").exists()
    one_error_line(err, "different attributes", "size", "weight")


def test_a_query_file_with_an_id_column_finds_its_class(tmp_path):
    """With an ID column beside the class, evaluate --test refused every row ('needs a known
    class') and predict printed no accuracy line."""
    train = _csv(tmp_path / "tr.csv", ROWS)
    test = _csv(tmp_path / "te.csv", [f"{i},{r}" for i, r in enumerate(ROWS[:4])], header="id,colour,size,class")
    rc, out, err = cli("evaluate", train, "--test", test, "--json")
    assert rc == 0, err
    assert json.loads(out)["accuracy"] is not None
    assert cli("train", train, "-o", tmp_path / "m.tnb")[0] == 0
    rc, out, err = cli("predict", tmp_path / "m.tnb", test)
    assert rc == 0 and len(out.splitlines()) == 4
    assert "te.csv: accuracy" in err and "(4 of 4 rows with a class value)" in err


def test_predicting_a_table_without_rows_is_one_line(tmp_path):
    """A header without data rows was an internal error (exit 70) in predict."""
    train = _csv(tmp_path / "tr.csv", ROWS)
    assert cli("train", train, "-o", tmp_path / "m.tnb")[0] == 0
    for name, text in (("h.csv", "colour,size,class\n"),
                       ("h.arff", "@relation x\n@attribute colour {red,blue}\n@attribute size numeric\n"
                                  "@attribute class {yes,no}\n@data\n")):
        (tmp_path / name).write_text(text)
        rc, out, err = cli("predict", tmp_path / "m.tnb", tmp_path / name)
        assert rc == 1 and out == ""
        one_error_line(err, f"{name}: no data rows")


def test_the_query_reader_reports_an_unclosed_quote_as_training_does(tmp_path):
    """predict said '2 cells, expected 3' (or that the file lacked the model's attributes)
    where train said what is wrong: one CSV row reader for both. Train names the file's
    line, predict the data row its predictions are named by, and that line."""
    train = _csv(tmp_path / "tr.csv", ROWS)
    assert cli("train", train, "-o", tmp_path / "m.tnb")[0] == 0
    (tmp_path / "q.csv").write_text('colour,size,class\nred,1,yes\nblue,"2,no\nred,1.5,yes\n')
    for command, extra, where in (("predict", [tmp_path / "m.tnb"], "q.csv:2 (line 3)"), ("train", [], "q.csv:3")):
        args = [*extra, tmp_path / "q.csv"] + (["-o", tmp_path / "q.tnb"] if command == "train" else [])
        rc, out, err = cli(command, *args)
        assert rc == 1
        one_error_line(err, f"{where}: a quoted field is never closed")
    # a quoted cell may hold a line break: the rows after it keep their line numbers
    (tmp_path / "n.csv").write_text('colour,size,class\n"re\nd",1,yes\nblue,x,no\n')
    rc, out, err = cli("predict", tmp_path / "m.tnb", tmp_path / "n.csv")
    assert rc == 1
    one_error_line(err, "n.csv:2 (line 4)")


def test_the_summary_counts_uncertain_attributes(tmp_path):
    (tmp_path / "u.csv").write_text('colour,size,class\n"{red:0.7,blue:0.3}",1,yes\nblue,2,no\nred,1.5,yes\n'
                                    '"{red:0.2,blue:0.8}",2.5,no\n')
    rc, out, err = cli("train", tmp_path / "u.csv", "-o", tmp_path / "u.tnb", "--json")
    assert rc == 0, err
    summary = json.loads(out)
    assert summary["attributes"] == 2 and summary["nominal_attributes"] == 0 and summary["uncertain_attributes"] == 1
    rc, out, err = cli("train", tmp_path / "u.csv", "-o", tmp_path / "u.tnb")
    assert "attributes: 2 (0 nominal, 1 numeric, 1 uncertain)" in out


def test_a_two_column_csv_with_a_header_is_a_table_not_a_corpus(tmp_path):
    """README: a CSV file with a header is a table, class last. ``outlook,play`` above six
    rows was read as label,text: 7 documents, the header one of class 'outlook'."""
    two = tmp_path / "two.csv"
    two.write_text("outlook,play\nsunny,no\nsunny,no\novercast,yes\nrain,yes\nrain,no\novercast,yes\n")
    rc, out, err = cli("train", two, "-o", tmp_path / "m.tnb", "--json")
    summary = json.loads(out)
    assert rc == 0 and summary["rows"] == 6 and summary["per_class"] == {"no": 3, "yes": 3}, (out, err)
    # a headerless label,text CSV corpus stays one (its first label comes back)
    corpus = tmp_path / "c.csv"
    corpus.write_text("spam,cheap pills now\nham,lunch at noon\nspam,win a prize\nham,see you soon\n" * 3)
    rc, out, err = cli("train", corpus, "-o", tmp_path / "c.tnb", "--json")
    assert rc == 0 and json.loads(out)["documents"] == 12, err
    # a text model predicting a CSV file whose first row is a header: the header is no document
    tw = tmp_path / "tw.csv"
    tw.write_text("sentiment,tweet\nspam,cheap pills\nham,lunch today\nspam,prize now\n")
    rc, out, err = cli("predict", tmp_path / "c.tnb", tw)
    assert rc == 0 and len(out.splitlines()) == 3 and "sentiment" not in out, (out, err)


def test_a_tsv_header_row_is_recognised_as_a_csv_one_by_train_predict_and_evaluate(tmp_path):
    """One header rule for every delimiter: ``outlook<TAB>play`` above six rows was read as a
    headerless label<TAB>text corpus (7 documents, the header one of class 'outlook'), and a
    text model's predict and evaluate --test read a TSV's header row as a document."""
    two = tmp_path / "two.tsv"
    two.write_text("outlook\tplay\nsunny\tno\nsunny\tno\novercast\tyes\nrain\tyes\nrain\tno\novercast\tyes\n")
    rc, out, err = cli("train", two, "-o", tmp_path / "m.tnb", "--json")
    summary = json.loads(out)
    assert rc == 0 and summary["rows"] == 6 and summary["per_class"] == {"no": 3, "yes": 3}, (out, err)
    rc, out, err = cli("evaluate", two, "--cv", "2", "--json")
    assert rc == 0 and json.loads(out)["n"] == 6, (out, err)
    # a headerless label<TAB>text corpus keeps its first row
    corpus = tmp_path / "c.tsv"
    corpus.write_text("spam\tcheap pills now\nham\tlunch at noon\nspam\twin a prize\nham\tsee you soon\n" * 3)
    rc, out, err = cli("train", corpus, "-o", tmp_path / "c.tnb", "--json")
    assert rc == 0 and json.loads(out)["documents"] == 12, err
    # a text model predicting, or tested on, a TSV whose first row is a header: no document
    tw = tmp_path / "tw.tsv"
    tw.write_text("sentiment\ttweet\nspam\tcheap pills\nham\tlunch today\nspam\tprize now\n")
    rc, out, err = cli("predict", tmp_path / "c.tnb", tw)
    assert rc == 0 and len(out.splitlines()) == 3 and "sentiment" not in out, (out, err)
    for test in (tw, tmp_path / "tw.csv"):
        if test.suffix == ".csv":
            test.write_text(tw.read_text().replace("\t", ","))
        rc, out, err = cli("evaluate", corpus, "--test", test, "--json")
        report = json.loads(out)
        assert rc == 0 and report["n"] == 3 and "sentiment" not in report["classes"], (test, out, err)


def test_a_two_column_table_whose_attribute_is_no_number_keeps_its_header(tmp_path):
    """``x,cls`` above rows whose first cells are all different and not all numbers
    (``1_000``, ``?``, an empty cell) while the class repeats: a table with a header, as the
    README says (it was a headerless corpus: 5 documents, the header one of them, or 'empty
    label'); a headerless corpus whose labels come back stays one (the test above)."""
    for name, cells in (("v.csv", "1_000 3 5 7"), ("q.csv", "1.5 ? 3 7"), ("e.csv", "_ 3 5 7")):
        rows = "".join(f"{'' if c == '_' else c},{cls}\n" for c, cls in zip(cells.split(), "abab"))
        (tmp_path / name).write_text("x,cls\n" + rows)
        rc, out, err = cli("train", tmp_path / name, "-o", tmp_path / "m.tnb", "--json")
        summary = json.loads(out)
        assert rc == 0 and summary["rows"] == 4 and summary["per_class"] == {"a": 2, "b": 2}, (name, out, err)


def test_a_text_corpus_csv_says_which_columns_it_does_not_read(tmp_path):
    sb = tmp_path / "sb.csv"
    sb.write_text("size,body,class\n1.0,small cat,no\n1.1,small dog,no\n3.0,big cat,yes\n3.2,big dog,yes\n")
    rc, out, err = cli("train", sb, "-o", tmp_path / "m.tnb")
    assert rc == 0 and "'size' not read (--class NAME reads the file as a table)" in err, err
    rc, out, err = cli("train", sb, "--class", "class", "-o", tmp_path / "t.tnb", "--json")
    assert rc == 0 and json.loads(out)["rows"] == 4


def test_evaluate_of_the_bundled_weather_file_runs_with_its_defaults(tmp_path):
    """The default 10 folds become as many as the largest class has objects (9 of 14 on
    weather), and the report says so; an explicit --cv 10 is still refused."""
    weather = CORPORA / "weather.nominal.arff"
    rc, out, err = cli("evaluate", weather)
    assert rc == 0 and out.startswith("9-fold cross-validation x 1 (fewer than the default 10: no class has 10 "
                                      "objects) on 14 objects"), (out, err)
    rc, out, err = cli("evaluate", weather, "--json")
    report = json.loads(out)
    assert report["folds"] == 9 and "default 10" in report["folds_note"]
    rc, out, err = cli("evaluate", weather, "--cv", "10")
    assert rc == 1 and "no class has 10 objects" in err


def test_rows_of_an_unknown_class_are_skipped_and_counted_by_train_evaluate_and_predict(tmp_path):
    """One rule for a table row whose class is unknown (an empty cell, ARFF '?'): left out and
    counted by ``train``, ``evaluate --test`` and ``--cv`` (``skipped_unlabeled``), as
    ``predict`` counts them (train dropped them silently; evaluate --test refused the whole
    file, 'every test row needs a known class', naming no line)."""
    rng = np.random.RandomState(0)
    rows = []
    for _ in range(60):
        c = "x" if rng.rand() < 0.5 else "y"
        rows.append((rng.choice(["p", "q"] if c == "x" else ["q", "r"]), round(rng.normal(1 if c == "x" else 3), 2), c))
    train, test, arff = tmp_path / "tr.csv", tmp_path / "te.csv", tmp_path / "tr.arff"
    train.write_text("a,b,cls\n" + "".join(f"{a},{b},{c if i % 10 else ''}\n" for i, (a, b, c) in enumerate(rows[:40])))
    test.write_text("a,b,cls\n" + "".join(f"{a},{b},{c if i % 5 else ''}\n" for i, (a, b, c) in enumerate(rows[40:])))
    arff.write_text("@relation t\n@attribute a {p,q,r}\n@attribute b numeric\n@attribute cls {x,y}\n@data\n"
                    + "".join(f"{a},{b},{c if i % 10 else '?'}\n" for i, (a, b, c) in enumerate(rows[:40])))
    code, out, err = cli("train", train, "-o", tmp_path / "m.tnb")
    assert code == 0 and "read 36 rows" in out and "skipped 4 rows without a known class" in out, err
    code, out, _ = cli("train", arff, "-o", tmp_path / "a.tnb", "--json")
    assert code == 0 and json.loads(out)["skipped_unlabeled"] == 4 and json.loads(out)["rows"] == 36
    code, out, err = cli("evaluate", train, "--test", test, "--json")
    report = json.loads(out)
    assert code == 0 and report["n"] == 16 and report["skipped_unlabeled"] == 4 + 4, err
    code, out, _ = cli("evaluate", train, "--test", test)
    assert code == 0 and "skipped 8 rows without a known class" in out
    code, out, _ = cli("evaluate", arff, "--cv", "3", "--json")
    assert code == 0 and json.loads(out)["n"] == 36 and json.loads(out)["skipped_unlabeled"] == 4
    code, _, err = cli("predict", tmp_path / "m.tnb", test)
    assert code == 0 and "4 rows without a class value not counted" in err
    unknown = tmp_path / "unknown.csv"
    unknown.write_text("a,b,cls\np,1.0,\nq,2.0,\n")
    code, _, err = cli("evaluate", train, "--test", unknown)
    one_error_line(err, f"{unknown}: no test row has a known class")
    assert code == 1


# -- session 28's user trial: the predict reader's choice of the class column (an ID column alone
# taken for it; number labels not found), --numeric with interval cells, evaluate's declared classes
def test_an_id_column_alone_is_not_taken_for_the_class(tmp_path):
    """A query file without its class column but with an ID column: the ID column was read as the
    class, and predict printed 'accuracy 0.0000 (0 of 4 rows with a class value)' on stderr (the
    library's read_table(like=, classes=) gave the IDs as y)."""
    train = _csv(tmp_path / "tr.csv", ROWS)
    rows = [r.rsplit(",", 1)[0] for r in ROWS[:4]]
    test = _csv(tmp_path / "te.csv", [f"id{i},{r}" for i, r in enumerate(rows)], header="id,colour,size")
    assert cli("train", train, "-o", tmp_path / "m.tnb")[0] == 0
    rc, out, err = cli("predict", tmp_path / "m.tnb", test)
    assert rc == 0 and len(out.splitlines()) == 4
    assert "accuracy" not in err, err
    t = read_table(train)
    q = read_table(test, like=t.attributes, classes=["no", "yes"])
    assert q.y is None and q.class_attribute is None
    # with the class beside it, the class is found (as before)
    test2 = _csv(tmp_path / "te2.csv", [f"id{i},{r}" for i, r in enumerate(ROWS[:4])], header="id,colour,size,class")
    assert read_table(test2, like=t.attributes, classes=["no", "yes"]).y.tolist() == ["yes", "no", "yes", "no"]


def test_number_labels_of_a_query_file_are_its_classes(tmp_path):
    """Labels 0 / 1 in a query CSV are read as numbers: predict printed no accuracy, while
    evaluate --test (which names the class column) counted them."""
    rows = [r.replace(",yes", ",1").replace(",no", ",0") for r in ROWS]
    train = _csv(tmp_path / "tr.csv", rows)
    assert cli("train", train, "-o", tmp_path / "m.tnb")[0] == 0
    for name, header, body in (("te.csv", "colour,size,class", rows[:6]),
                               ("te_id.csv", "n,colour,size,class", [f"{i + 7},{r}" for i, r in enumerate(rows[:6])])):
        test = _csv(tmp_path / name, body, header=header)
        rc, out, err = cli("predict", tmp_path / "m.tnb", test)
        assert rc == 0 and f"{name}: accuracy" in err and "of 6 rows with a class value" in err, err
        q = read_table(test, like=read_table(train).attributes, classes=["0", "1"])
        assert q.y.tolist() == ["1", "0", "1", "0", "1", "0"]
    # a numeric ID column alone, whose numbers are not all classes, is not the class
    test = _csv(tmp_path / "ids.csv", [f"{i},{r.rsplit(',', 1)[0]}" for i, r in enumerate(rows[:6])],
                header="n,colour,size")
    rc, out, err = cli("predict", tmp_path / "m.tnb", test)
    assert rc == 0 and "accuracy" not in err, err
    assert np.all(read_table(test, like=read_table(train).attributes, classes=["0", "1"]).y is None)


def test_discretised_or_kde_numbers_with_interval_cells_are_one_line(tmp_path):
    """--numeric kde / mdl / equal-width on a table with [L,R] cells was an internal error (exit 70,
    'ValueError: uncertain numeric attribute ... needs numeric='gaussian'') in train and evaluate."""
    rows = [f'"[{1 + i % 3},{2 + i % 3}]",{"red" if i % 2 else "blue"},{"yes" if i % 2 else "no"}' for i in range(12)]
    train = _csv(tmp_path / "u.csv", rows, header="size,colour,class")
    for numeric in ("kde", "mdl", "equal-width"):
        for command in (("train", train, "-o", tmp_path / "m.tnb"), ("evaluate", train, "--cv", "3")):
            rc, out, err = cli(*command, "--numeric", numeric)
            assert rc == 1 and out == "", (command, err)
            one_error_line(err, f"u.csv: --numeric {numeric} does not go with uncertain numeric attributes (size: "
                                "[L,R] cells)")
    assert not (tmp_path / "m.tnb").exists()
    assert cli("train", train, "-o", tmp_path / "m.tnb")[0] == 0  # (Gaussian: the default)


def _declared_but_empty(path):
    """An ARFF table whose header declares a class ('maybe') no row has; TabularNB's Gaussian of that
    class is the pooled one, so it wins on rows between the two others (predict prints it)."""
    rng = np.random.default_rng(0)
    rows = [",".join(f"{rng.normal(0 if i % 2 else 4):.3f}" for _ in range(8)) + f",{'a' if i % 2 else 'b'}"
            for i in range(40)] + [",".join(["2.0"] * 8) + ",a", ",".join(["2.1"] * 8) + ",b"]
    path.write_text("@relation r\n" + "".join(f"@attribute x{j} numeric\n" for j in range(8))
                    + "@attribute c {a,b,maybe}\n@data\n" + "\n".join(rows) + "\n")
    return path


def test_evaluate_counts_the_predictions_of_a_declared_class_no_row_has(tmp_path):
    """A class the ARFF header declares but no row has was left out of evaluate's report, and each
    row the model predicted it for was given the best of the other classes: evaluate --test reported
    a higher accuracy than predict on the same model and test file."""
    import json

    train = _declared_but_empty(tmp_path / "tr.arff")
    assert cli("train", train, "-o", tmp_path / "m.tnb")[0] == 0
    rc, out, err = cli("predict", tmp_path / "m.tnb", train)
    predicted = [line.split("\t")[1] for line in out.splitlines()]
    assert "maybe" in predicted  # (the premise)
    truth = read_table(train).y.tolist()
    accuracy = float(np.mean([p == t for p, t in zip(predicted, truth)]))
    rc, out, err = cli("evaluate", train, "--test", train, "--json")
    report = json.loads(out)
    assert report["accuracy"] == accuracy
    assert report["classes"] == ["a", "b", "maybe"] and report["per_class"]["maybe"]["support"] == 0
    assert sum(row[2] for row in report["confusion_matrix"]) == predicted.count("maybe")
    # cross-validation counts them likewise (its accuracy is that of the folds' models' own predictions)
    rc, out, err = cli("evaluate", train, "--cv", "4", "--json")
    report = json.loads(out)
    assert "maybe" in report["classes"] and report["accuracy"] == report["accuracy_per_repeat"][0]
    assert report["accuracy"] == float(np.trace(np.asarray(report["confusion_matrix"]))) / report["n"]
