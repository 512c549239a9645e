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
        # (predict names a query's row as its prediction is named, with the file's line)
        where = f"{data}:2 (line 7)" if command[0] == "predict" else f"{data}:7"
        one_error_line(err, f"{where}: value '{weight}' of attribute 'instance weight' is negative")


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


# --- options a table model would leave unused -------------------------------------

MIXED = ("@relation m\n@attribute outlook {sunny,rain,overcast}\n@attribute temp numeric\n@attribute windy {yes,no}\n"
         "@attribute play {yes,no}\n@data\n" + "".join(
             f"{['sunny', 'rain', 'overcast'][i % 3]},{60 + (i * 7) % 30},{'yes' if i % 4 < 2 else 'no'},"
             f"{'yes' if (i % 3 != 0) == (i % 5 != 0) else 'no'}\n" for i in range(40)))

#: each table option with a value to give it
OPTION_VALUES = {"alpha": ["--alpha", "0.5"], "m_estimate": ["--m", "3"], "uniform_prior": ["--uniform-prior"],
                 "nominal": ["--nominal", "eq4"], "numeric": ["--numeric", "mdl"], "bins": ["--bins", "4"],
                 "interval_fit": ["--interval-fit", "theorem1"], "missing": ["--missing", "mode"],
                 "structure": ["--structure", "{}"]}


def _model_cases():
    from textnb.meta.registry import LAZY_TABLE_TAKES, MODELS, TABLE_MODEL_FLAGS

    models = [([] if name == "nb" else ["--model", name], spec.takes) for name, spec in MODELS.items()
              if spec.input == "tables"] + [(["--lazy", "lbr"], LAZY_TABLE_TAKES)]
    return [(model, field, field in takes) for model, takes in models for _, field in TABLE_MODEL_FLAGS]


@pytest.mark.parametrize("model, field, taken", _model_cases(),
                         ids=lambda v: " ".join(v) if isinstance(v, list) else str(v))
def test_every_table_model_refuses_the_options_it_does_not_take(tmp_path, model, field, taken):
    """The registry's declared list (ModelSpec.takes, LAZY_TABLE_TAKES) is what train and
    evaluate accept: --model aode --nominal eq4 --uniform-prior, --model tan --uniform-prior
    --nominal eq4, --lazy lbr --m 5 --uniform-prior gave files byte-identical to training
    without them; only --model aode --alpha was refused ('drop --alpha / --missing')."""
    data = tmp_path / "t.arff"
    data.write_text(MIXED)
    (tmp_path / "s.json").write_text('{"parents": {}}')
    option = [str(tmp_path / "s.json") if v == "{}" else v for v in OPTION_VALUES[field]]
    if "bn" in model and field != "structure":
        model = model + ["--structure", str(tmp_path / "s.json")]
    if field == "bins":
        option = ["--numeric", "equal-width"] + option if (not model or "--lazy" in model) else option
    if field == "interval_fit" and taken:
        pytest.skip("takes a table with interval cells (tests/io/test_uncertain_censored.py)")
    for command in (["train", data, "-o", tmp_path / "m.tnb"], ["evaluate", data, "--cv", "2"]):
        rc, out, err = cli(*command, *model, *option)
        if taken:
            assert rc == 0, err
        else:
            assert rc == 1 and out == "", err
            one_error_line(err, f"{OPTION_VALUES[field][0]} goes with ", "would leave it unused")


@pytest.mark.parametrize("options", [["--model", "aode", "--nominal", "eq4", "--uniform-prior"],
                                     ["--model", "tan", "--uniform-prior", "--nominal", "eq4"],
                                     ["--lazy", "lbr", "--m", "5", "--uniform-prior"],
                                     ["--model", "aode", "--nominal", "m-estimate"]])
def test_the_trials_unused_combinations_are_refused(tmp_path, options):
    data = tmp_path / "t.arff"
    data.write_text(MIXED)
    rc, out, err = cli("train", data, *options, "-o", tmp_path / "m.tnb")
    assert rc == 1 and not (tmp_path / "m.tnb").exists()
    one_error_line(err, "would leave them unused" if len(options) > 4 else "would leave it unused")


@pytest.mark.parametrize("options, line", [
    (["--bins", "5"], "--bins goes with --numeric equal-frequency or equal-width; --numeric gaussian (the default "
                      "of --model nb) would leave it unused"),
    (["--numeric", "mdl", "--bins", "5"], "--numeric mdl would leave it unused"),
    (["--numeric", "kde", "--bins", "5"], "--numeric kde would leave it unused"),
    (["--lazy", "hlbr", "--bins", "5"], "--numeric mdl (the default of --lazy hlbr) would leave it unused"),
    (["--nominal", "eq4", "--alpha", "0.5"], "--alpha goes with --nominal additive; --nominal eq4 would leave it"),
    (["--nominal", "eq4", "--m", "3"], "--m goes with --nominal m-estimate; --nominal eq4 would leave it"),
    (["--nominal", "laplace", "--alpha", "3", "--m", "3"], "--nominal laplace would leave them unused"),
    (["--nominal", "m-estimate", "--alpha", "3"], "--alpha goes with --nominal additive"),
    (["--nominal", "additive", "--m", "3"], "--m goes with --nominal m-estimate; --nominal additive would"),
    (["--alpha", "0.5", "--m", "3"], "--nominal m-estimate (chosen by --m) would leave it unused"),
])
def test_naive_bayes_refuses_what_its_estimators_would_leave_unused(tmp_path, options, line):
    """--bins with the default Gaussian numbers, a smoothing option the --nominal estimator
    does not read: accepted, no prediction changed. (--interval-fit without interval cells is a
    warning, as --numeric without numbers: tests/cli/test_cli_dash_and_unused.py.)"""
    data = tmp_path / "t.arff"
    data.write_text(MIXED)
    for command in (["train", data, "-o", tmp_path / "m.tnb"], ["evaluate", data, "--cv", "2"]):
        rc, out, err = cli(*command, *options)
        assert rc == 1 and out == "", err
        one_error_line(err, line)


@pytest.mark.parametrize("options", [["--numeric", "equal-width", "--bins", "5"],
                                     ["--numeric", "equal-frequency", "--bins", "3", "--nominal", "eq4"],
                                     ["--nominal", "m-estimate", "--m", "3"], ["--m", "3"],
                                     ["--nominal", "additive", "--alpha", "0.5", "--uniform-prior"],
                                     ["--lazy", "lbr", "--numeric", "equal-width", "--bins", "4", "--alpha", "2"]])
def test_options_a_table_model_uses_change_its_predictions(tmp_path, options):
    data = tmp_path / "t.arff"
    data.write_text(MIXED)
    probabilities = []
    for extra in (options, [o for o in options[:2] if o == "--lazy" or o == "lbr"]):
        assert cli("train", data, *extra, "-o", tmp_path / "m.tnb")[0] == 0
        rc, out, err = cli("predict", tmp_path / "m.tnb", data, "--proba", "--json")
        assert rc == 0, err
        probabilities.append([json.loads(r)["proba"] for r in out.splitlines()])
    assert probabilities[0] != probabilities[1]


def test_a_mixed_table_keeps_alpha_for_its_words_whatever_the_nominal_estimator(tmp_path):
    data = tmp_path / "m.csv"
    data.write_text("colour,body,class\n" + "".join(f"{'red' if i % 2 else 'blue'},word{i % 3} common,"
                                                   f"{'a' if i % 3 else 'b'}\n" for i in range(12)))
    rc, out, err = cli("train", data, "--text-column", "body", "--nominal", "eq4", "--alpha", "0.5",
                       "-o", tmp_path / "m.tnb")
    assert rc == 0, err


# --- inspect's names, the train summary's counts -------------------------------------

@pytest.mark.parametrize("options, name", [([], "TabularNB"), (["--adjust"], "APNBC(TabularNB)"),
                                           (["--model", "aode", "--adjust"], "APNBC(AODE)"),
                                           (["--model", "tan", "--adjust"], "APNBC(TAN)"),
                                           (["--model", "tan", "--calibrate", "sigmoid"], "CalibratedNB(TAN)"),
                                           (["--calibrate", "sigmoid"], "CalibratedNB(TabularNB)"),
                                           (["--lazy", "hlbr", "--adjust"], "APNBC(HLBR)")])
def test_inspect_names_a_model_alike_in_its_text_view_and_json(tmp_path, options, name):
    """--json said TabularNB / AODE for an --adjust model whose text view said
    APNBC(TabularNB), and APNBC(TAN) for tan --adjust: one naming function now."""
    data = tmp_path / "t.arff"
    data.write_text(MIXED)
    assert cli("train", data, *options, "-o", tmp_path / "m.tnb")[0] == 0
    rc, text, err = cli("inspect", tmp_path / "m.tnb")
    assert rc == 0, err
    rc, out, err = cli("inspect", tmp_path / "m.tnb", "--json")
    assert rc == 0, err
    assert text.splitlines()[0] == f"model: {name}" and json.loads(out)["model"] == name


def test_the_train_summary_counts_every_kind_of_attribute(tmp_path):
    """It said 'attributes: 3 (2 nominal)', without the numeric ones."""
    data = tmp_path / "t.arff"
    data.write_text(MIXED)
    rc, out, err = cli("train", data, "-o", tmp_path / "m.tnb")
    assert rc == 0 and "attributes: 3 (2 nominal, 1 numeric)" in out, err
    rc, out, err = cli("train", data, "-o", tmp_path / "m.tnb", "--json")
    summary = json.loads(out)
    assert (summary["attributes"], summary["nominal_attributes"], summary["numeric_attributes"]) == (3, 2, 1)


def test_predict_names_the_classes_the_model_never_saw_and_evaluate_a_missing_class_column(tmp_path):
    """Found by a user trial: predict of a table whose class column holds a class the model
    never saw counted those rows wrong without a word (evaluate --test names them), and
    evaluate --test of a file without the class column said 'no test row has a known class'."""
    from conftest import REPO

    weather = REPO / "corpora" / "weather.numeric.arff"
    model = tmp_path / "nb.tnb"
    assert cli("train", weather, "-o", model)[0] == 0
    query = tmp_path / "q.csv"
    query.write_text("outlook,temperature,humidity,windy,play\nsunny,60,90,TRUE,no\nrainy,70,80,TRUE,maybe\n")
    rc, out, err = cli("predict", model, query)
    assert rc == 0 and len(out.splitlines()) == 2
    assert err.endswith("(1 of 2 rows with a class value; 1 row of a class the model never saw (maybe), counted wrong)\n")
    bare = tmp_path / "bare.csv"
    bare.write_text("outlook,temperature,humidity,windy\nsunny,60,90,TRUE\n")
    rc, _, err = cli("evaluate", weather, "--test", bare)
    assert rc == 1
    one_error_line(err, f"{bare}: no class column 'play' (the training table's): there is nothing to measure")
