"""What a user trial of the table paths found in session 19 (trial B): uncertain cells given
to the models of value indices, negative and huge instance weights, options a table model
left unused, inspect's names and the train summary's counts. (Instance weights in evaluate:
tests/evaluation/test_weighted_evaluation.py.)"""

import json

import numpy as np
import pytest

from conftest import cli, one_error_line
from textnb.io.tables import read_table

UNCERTAIN_CSV = ('temp,colour,size,class\n"[3.1,4.2]","{red:0.7,blue:0.3}",1.5,yes\n5.0,red,2.5,yes\n'
                 '"[6,7]",blue,3.5,no\n8,"{red:0.2,blue:0.8}",4,no\n"[2,3]",red,1,yes\n9,blue,5,no\n')
UNCERTAIN_ARFF = ("@relation u\n@attribute temp numeric\n@attribute colour {red,blue}\n@attribute class {yes,no}\n"
                  "@data\n'[3.1,4.2]','{red:0.7,blue:0.3}',yes\n5.0,red,yes\n'[6,7]',blue,no\n"
                  "8,'{red:0.2,blue:0.8}',no\n'[2,3]',red,yes\n9,blue,no\n")

VALUE_INDEX_MODELS = [["--model", "tan"], ["--model", "aode"], ["--model", "bn", "--structure", "{}"],
                      ["--lazy", "lbr"], ["--lazy", "hlbr"], ["--model", "tan", "--adjust"],
                      ["--model", "aode", "--calibrate", "sigmoid"]]


def _options(tmp_path, options):
    if "{}" in options:
        (tmp_path / "s.json").write_text('{"parents": {}}')
        options = [str(tmp_path / "s.json") if o == "{}" else o for o in options]
    return options


@pytest.mark.parametrize("options", VALUE_INDEX_MODELS, ids=" ".join)
@pytest.mark.parametrize("name, content", [("unc.csv", UNCERTAIN_CSV), ("unc.arff", UNCERTAIN_ARFF)])
def test_uncertain_cells_are_refused_by_the_models_of_value_indices(tmp_path, options, name, content):
    """TAN, Bayes nets, AODE and LBR crashed on uncertain cells ('internal error: ValueError:
    attributes describes 3 columns but X has 5', exit 70), in train and evaluate; they are
    refused as text attributes are, in one line naming the file and the attributes."""
    data = tmp_path / name
    data.write_text(content)
    options = _options(tmp_path, options)
    what = f"--lazy {options[1]}" if options[0] == "--lazy" else f"--model {options[1]}"
    for command in (["train", data, "-o", tmp_path / "m.tnb"], ["evaluate", data, "--cv", "2"]):
        rc, out, err = cli(*command, *options)
        assert rc == 1 and out == "", err
        one_error_line(err, f"{data}: {what} does not support uncertain attributes (temp, colour: "
                            "interval / distribution cells); use --model nb")
    assert not (tmp_path / "m.tnb").exists()


@pytest.mark.parametrize("options", [[], ["--adjust"], ["--numeric", "gaussian", "--interval-fit", "theorem1"]])
def test_uncertain_cells_still_train_naive_bayes(tmp_path, options):
    data = tmp_path / "unc.csv"
    data.write_text(UNCERTAIN_CSV)
    rc, out, err = cli("train", data, *options, "-o", tmp_path / "m.tnb")
    assert rc == 0, err
    rc, out, err = cli("evaluate", data, *options, "--cv", "2")
    assert rc == 0, err


def test_the_library_models_of_value_indices_refuse_uncertain_attributes(tmp_path):
    """The estimators said 'attributes describes 3 columns but X has 5'."""
    from textnb import AODE, LBR, TAN, BayesNetClassifier
    from textnb.naive_bayes.discretized import Discretized

    (tmp_path / "unc.csv").write_text(UNCERTAIN_CSV)
    table = read_table(tmp_path / "unc.csv")
    atts = tuple(table.attributes)
    for name, model in [("TAN", TAN(attributes=atts)), ("AODE", AODE(attributes=atts)),
                        ("BayesNetClassifier", BayesNetClassifier(attributes=atts)),
                        ("LBR on discretised attributes", Discretized(LBR(), attributes=atts))]:
        with pytest.raises(ValueError, match=f"attribute 'temp' is uncertain-numeric; {name} does not support "
                                             "uncertain attributes"):
            model.fit(table.X, table.y)


def _weighted(path, weights, numeric=True):
    """Four rows of a small table, with ``{w}`` after the rows whose weight is not None."""
    head = "@relation r\n" + ("@attribute a numeric\n" if numeric else "") + \
        "@attribute c {x,y}\n@attribute class {p,n}\n@data\n"
    cells = ["1,x,p", "2,y,n", "3,x,n", "1,y,p"] if numeric else ["x,p", "y,n", "x,n", "y,p"]
    path.write_text(head + "".join(c + (f",{{{w}}}" if w is not None else "") + "\n"
                                   for c, w in zip(cells, weights)))
    return path


@pytest.mark.parametrize("weight", ["-1", "-0.5", "-1e-300"])
def test_a_negative_instance_weight_is_refused_while_reading_naming_its_line(tmp_path, weight):
    """train crashed (internal error, exit 70: 'sample_weight must be finite and >= 0') and
    evaluate learned from the row as if it weighed nothing; refused where a NaN weight is."""
    data = _weighted(tmp_path / "negw.arff", [None, weight, None, None])
    model = tmp_path / "m.tnb"
    assert cli("train", _weighted(tmp_path / "ok.arff", [None] * 4), "-o", model)[0] == 0
    for command in (["train", data, "-o", tmp_path / "x.tnb"], ["evaluate", data, "--cv", "2"],
                    ["predict", model, data]):
        rc, out, err = cli(*command)
        assert rc == 1 and out == "", err
        one_error_line(err, f"{data}:7: value '{weight}' of attribute 'instance weight' is negative")


@pytest.mark.parametrize("numeric", [True, False], ids=["numeric", "nominal"])
@pytest.mark.parametrize("weights", [["1e308", "1e308", None, None], ["1e308"] * 3 + [None],
                                     ["9e15", "9e15", None, None], ["1e300", None, None, None]])
def test_instance_weights_summing_over_what_a_model_counts_are_refused_in_one_line(tmp_path, weights, numeric):
    """{1e308} weights said 'numeric attribute 'a' holds numbers too large to model' (a's values
    are 1 to 3), or printed numpy's 'overflow encountered in reduce' / 'invalid value
    encountered in divide' before 'inconsistent model file (TabularNB.class_count_ holds NaN
    ...)'; one line now names the weights and the row where their sum passes 2**53."""
    data = _weighted(tmp_path / "hugew.arff", weights, numeric=numeric)
    first = 6 if numeric else 5  # the first data row
    where = first + (1 if weights[0] == "9e15" else 0)
    for command in (["train", data, "-o", tmp_path / "x.tnb"], ["evaluate", data, "--cv", "2"],
                    ["evaluate", data, "--model", "aode", "--cv", "2"]):
        rc, out, err = cli(*command)
        assert rc == 1 and out == "", err
        one_error_line(err, f"{data}:{where}: the instance weights sum to ", "over 9.0072e+15 (2**53")
        assert "warning" not in err and "too large" not in err
    assert not (tmp_path / "x.tnb").exists()


def test_weights_up_to_the_bound_still_train(tmp_path):
    data = _weighted(tmp_path / "w.arff", ["4e15", "4e15", None, None])
    rc, out, err = cli("train", data, "-o", tmp_path / "m.tnb")
    assert rc == 0 and err == "", err


def test_the_table_estimators_refuse_weights_summing_over_the_bound_without_warnings():
    import warnings

    from textnb import AODE, TAN, TabularNB

    X, y = np.array([[1.0, 0], [2, 1], [3, 0], [1, 1]]), np.array(["p", "n", "n", "p"])
    for model, data in ((TabularNB(), X), (TAN(), X[:, 1:]), (AODE(), X[:, 1:])):
        for w in ([1e308, 1e308, 1, 1], [1e300, 1, 1, 1]):
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                with pytest.raises(ValueError, match=r"sample_weight sums to (inf|1e\+300), over 9.0072e\+15"):
                    model.fit(data, y, sample_weight=w)
