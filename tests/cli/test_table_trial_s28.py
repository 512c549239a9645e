"""What the session-28 user trial of the table side found: the predict reader's choice of the
class column (an ID column alone taken for it; number labels not found), ..."""

import numpy as np

from conftest import cli, one_error_line
from textnb.io.tables import read_table

ROWS = ["red,1,yes", "blue,2,no", "red,1.5,yes", "blue,2.5,no", "red,1.2,yes", "blue,2.2,no", "red,2.1,no",
        "blue,1.1,yes", "red,0.9,yes", "blue,2.8,no", "green,3.1,no", "green,0.7,yes"]


def _csv(path, rows, header="colour,size,class"):
    path.write_text(header + "\n" + "".join(r + "\n" for r in rows))
    return path


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
