"""What the session-23 user trial of the table paths found (inspect --json across the kinds)."""

import json
from pathlib import Path

import pytest

from conftest import cli, one_error_line

WEATHER = Path(__file__).resolve().parents[2] / "corpora" / "weather.nominal.arff"
WEIGHTED = ("@relation w\n@attribute outlook {sunny,rainy}\n@attribute windy {yes,no}\n@attribute play {yes,no}\n"
            "@data\nsunny,no,no,{2}\nsunny,yes,no,{0.5}\nrainy,no,yes\nrainy,yes,yes,{3}\nsunny,no,yes\n")


def _trained_and_inspected(data, options, model):
    """``textnb train DATA OPTIONS -o MODEL``, then MODEL's ``inspect --json`` (both succeeding)."""
    rc, _, err = cli("train", data, *options, "-o", model)
    assert rc == 0, err
    rc, out, err = cli("inspect", model, "--json")
    assert rc == 0, err
    return json.loads(out)


@pytest.mark.parametrize("options", [["--model", "nb"], ["--model", "aode"], ["--lazy", "lbr"],
                                     ["--model", "tan"], ["--model", "tan", "--adjust"],
                                     ["--model", "tan", "--calibrate", "sigmoid"],
                                     ["--model", "bn", "--structure", "{}"]], ids=" ".join)
def test_inspect_json_counts_the_classes_of_every_table_model(tmp_path, options):
    """A TAN or Bayesian network's inspect --json had no class_count, and its text view no
    ``classes:`` line, which every other table model's has (the rows per class; instance
    weights summed); nor a class_prior (the class node's table, when it has no parents), which
    naive Bayes' and AODE's have."""
    (tmp_path / "s.json").write_text('{"parents": {"windy": ["play", "outlook"]}}')
    options = [str(tmp_path / "s.json") if o == "{}" else o for o in options]
    for data, counts in [(WEATHER, [9.0, 5.0])] + ([] if "--lazy" in options or "--adjust" in options else [
            (tmp_path / "w.arff", [5.0, 2.5])]):
        (tmp_path / "w.arff").write_text(WEIGHTED)
        model = tmp_path / "m.tnb"
        info = _trained_and_inspected(data, options, model)
        assert info["classes"] == ["yes", "no"]
        assert info["class_count"] == counts, (data, info)
        if "--lazy" not in options:  # P(class) as the model holds it: every eager table model has it
            prior = info["class_prior"]
            assert len(prior) == 2 and abs(sum(prior) - 1) < 1e-9 and prior[0] > prior[1], info
        rc, out, err = cli("inspect", model)  # the text view too (TAN and BN printed no class line)
        assert rc == 0 and f"classes: yes ({counts[0]:g}), no ({counts[1]:g})" in out.splitlines(), out


MIXED = ("id,note,outlook,play\n1,sun warm,sunny,yes\n2,rain cold,rainy,no\n3,warm nice,overcast,yes\n"
         "4,grey wind,rainy,no\n5,sun bright,sunny,yes\n6,cold rain,overcast,no\n")


@pytest.mark.parametrize("command", ["train", "evaluate"])
def test_a_mixed_table_refuses_class_and_label_column_naming_different_columns(tmp_path, command):
    """--label-column is --class for a mixed table; given both, naming two columns, --class won
    silently (the model was trained on 'play', the --label-column 'outlook' left unused)."""
    path = tmp_path / "mixed.csv"
    path.write_text(MIXED)
    extra = ["-o", tmp_path / "m.tnb"] if command == "train" else ["--cv", "2"]
    for label in ("outlook", "3"):
        rc, _, err = cli(command, path, "--text-column", "note", "--ignore", "id", "--class", "play",
                         "--label-column", label, *extra)
        assert rc == 1
        one_error_line(err, "mixed.csv: --class play and --label-column", "'play', 'outlook'")
    for label in ("play", "4"):  # the same column, by name or by number: as one of them alone
        rc, out, err = cli(command, path, "--text-column", "note", "--ignore", "id", "--class", "play",
                           "--label-column", label, *extra)
        assert rc == 0, err


@pytest.mark.parametrize("command", ["train", "evaluate"])
def test_a_table_refuses_class_and_label_column_naming_different_columns(tmp_path, command):
    """The same for a table without text columns (CSV or ARFF), whose --label-column is --class too."""
    csv = tmp_path / "plain.csv"
    csv.write_text(MIXED.replace(",note", "").replace(",sun warm", "").replace(",rain cold", "")
                   .replace(",warm nice", "").replace(",grey wind", "").replace(",sun bright", "")
                   .replace(",cold rain", ""))
    extra = ["-o", tmp_path / "m.tnb"] if command == "train" else ["--cv", "2"]
    for path in (csv, WEATHER):
        rc, _, err = cli(command, path, "--class", "play", "--label-column", "outlook", *extra)
        assert rc == 1
        one_error_line(err, f"{path.name}: --class play and --label-column outlook name different columns")
        rc, _, err = cli(command, path, "--class", "play", "--label-column", "play", *extra)
        assert rc == 0, err


def test_predict_says_the_weighted_accuracy_of_a_weighted_table_as_evaluate_does(tmp_path):
    """predict's accuracy on a table with instance weights counted rows only, so the same
    model and file gave another accuracy than evaluate --test (which weighs them, as Weka);
    it now says both; a table without weights keeps its line."""
    numeric = WEATHER.with_name("weather.numeric.arff")
    head, rows = numeric.read_text().split("@data")
    weighted = tmp_path / "wts.arff"
    weighted.write_text(head + "@data\n" + "\n".join(
        f"{r}, {{{2 if i % 2 else 0.5}}}" for i, r in enumerate(rows.strip().splitlines())) + "\n")
    model = tmp_path / "w.tnb"
    assert cli("train", numeric, "-o", model)[0] == 0
    rc, _, err = cli("predict", model, weighted)
    assert rc == 0, err
    rc, out, _ = cli("evaluate", numeric, "--test", weighted, "--json")
    expected = json.loads(out)["accuracy"]
    assert err.strip() == (f"{weighted}: accuracy 0.9286 (13 of 14 rows with a class value; weighing each row by "
                           f"its instance weight, as evaluate does: {expected:.4f})")
    rc, _, err = cli("predict", model, numeric)
    assert err.strip() == f"{numeric}: accuracy 0.9286 (13 of 14 rows with a class value)"


@pytest.mark.parametrize("options, name", [(["--lazy", "lbr"], "an LBR"), (["--lazy", "lbr", "--adjust"], "an APNBC(LBR)"),
                                           (["--model", "nb"], "a TabularNB"), (["--model", "aode"], "an AODE")],
                         ids=str)
def test_inspect_plot_refusal_names_the_model_as_its_model_line_does(tmp_path, options, name):
    """Session 26's trial: ``inspect --plot`` of an LBR model said 'a Discretized model has
    neither' (the wrapper it is read through) while its ``model:`` line says LBR."""
    model = tmp_path / "m.tnb"
    assert cli("train", WEATHER, *options, "-o", model)[0] == 0
    rc, out, err = cli("inspect", model, "--plot", tmp_path / "p.png")
    assert rc == 1 and out == "" and not (tmp_path / "p.png").exists()
    one_error_line(err, f"{model}: --plot draws the structure of a tan or bn model", f"; {name} model has neither")
    assert f"model: {name.split()[1]}" in cli("inspect", model)[1]


NUMERIC = WEATHER.with_name("weather.numeric.arff")
#: every kind of table model ``textnb train`` makes (the options), and the keys of its inspect
#: --json that are its own (kept as they were: other tools read them)
TABLE_KINDS = {
    "nb": ([], {"nominal", "numeric"}),
    "nb-mdl": (["--numeric", "mdl"], {"nominal", "numeric"}),
    "nb-kde": (["--numeric", "kde"], {"nominal", "numeric"}),
    "tan": (["--model", "tan"], {"structure", "plot"}),
    "bn": (["--model", "bn", "--structure", "{}"], {"structure", "plot"}),
    "bn-class-with-parent": (["--model", "bn", "--structure", '{"play": ["outlook"], "outlook": []}'], {"structure", "plot"}),
    "aode": (["--model", "aode"], {"frequency_limit", "m"}),
    "lbr": (["--lazy", "lbr"], {"alpha", "min_errors", "significance", "n_train", "nb_loo_errors", "discretization"}),
    "hlbr": (["--lazy", "hlbr"], {"alpha", "min_errors", "significance", "n_train", "nb_loo_errors", "discretization"}),
    "apnbc": (["--adjust"], {"nominal", "numeric", "apnbc_weights"}),
    "apnbc-tan": (["--model", "tan", "--adjust"], {"structure", "plot", "apnbc_weights"}),
    "apnbc-lbr": (["--lazy", "lbr", "--adjust"], {"n_train", "nb_loo_errors", "apnbc_weights"}),
    "calibrated": (["--calibrate", "sigmoid"], {"nominal", "numeric", "calibration"}),
    "calibrated-aode": (["--model", "aode", "--calibrate", "sigmoid"], {"frequency_limit", "calibration"}),
}


@pytest.mark.parametrize("kind", list(TABLE_KINDS))
def test_inspect_json_of_every_table_kind_has_the_common_keys(tmp_path, kind):
    """A user trial: inspect --json gave each table kind its own key set (TAN and
    the networks had ``structure`` but no ``attributes``, LBR no ``class_prior``). Every table
    model's description now has ``model``, ``classes``, ``class_count``, ``class_prior`` (P(class)
    as the model holds it: summing to 1) and ``attributes`` (one per attribute of the table, in
    its order, each with ``name``, ``kind`` and ``model``); the keys a kind had are kept."""
    options, own = TABLE_KINDS[kind]
    structure = next((o for o in options if o.startswith("{")), None)
    if structure is not None:
        json_text = ('{"parents": {"windy": ["play", "outlook"]}}' if structure == "{}" else
                     '{"parents": ' + structure + "}")
        (tmp_path / "s.json").write_text(json_text)
        options = [str(tmp_path / "s.json") if o == structure else o for o in options]
    info = _trained_and_inspected(NUMERIC, options, tmp_path / "m.tnb")
    assert isinstance(info["model"], str) and info["model"]
    assert info["classes"] == ["yes", "no"]
    assert info["class_count"] == [9.0, 5.0] and all(isinstance(n, float) for n in info["class_count"])
    prior = info["class_prior"]
    assert len(prior) == 2 and all(isinstance(p, float) and 0 < p < 1 for p in prior), info
    assert abs(sum(prior) - 1) < 1e-9 and prior[0] > prior[1]
    assert [a["name"] for a in info["attributes"]] == ["outlook", "temperature", "humidity", "windy"]
    for a in info["attributes"]:
        assert isinstance(a["kind"], str) and isinstance(a["model"], str) and a["model"], a
    assert [a["kind"] for a in info["attributes"]] == ["nominal", "numeric", "numeric", "nominal"]
    assert own <= set(info), sorted(set(info))
    if "structure" in own:  # a network's attributes name their parents, as its structure does
        assert {a["name"]: a["parents"] for a in info["attributes"]} == {
            k: v for k, v in info["structure"].items() if k != "play"}
    if kind == "bn-class-with-parent":  # P(class) when its parent is unknown: the smoothed class counts
        assert info["structure"]["play"] == ["outlook"]
        assert prior == pytest.approx([10 / 16, 6 / 16])
