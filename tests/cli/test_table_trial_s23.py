"""What the session-23 user trial of the table paths found (inspect --json across the kinds)."""

import json
from pathlib import Path

import pytest

from conftest import cli

WEATHER = Path(__file__).resolve().parents[2] / "corpora" / "weather.nominal.arff"
WEIGHTED = ("@relation w\n@attribute outlook {sunny,rainy}\n@attribute windy {yes,no}\n@attribute play {yes,no}\n"
            "@data\nsunny,no,no,{2}\nsunny,yes,no,{0.5}\nrainy,no,yes\nrainy,yes,yes,{3}\nsunny,no,yes\n")


@pytest.mark.parametrize("options", [["--model", "nb"], ["--model", "aode"], ["--lazy", "lbr"],
                                     ["--model", "tan"], ["--model", "tan", "--adjust"],
                                     ["--model", "tan", "--calibrate", "sigmoid"],
                                     ["--model", "bn", "--structure", "{}"]], ids=" ".join)
def test_inspect_json_counts_the_classes_of_every_table_model(tmp_path, options):
    """A TAN or Bayesian network's inspect --json had no class_count, which every other table
    model's has (the rows per class; instance weights summed)."""
    (tmp_path / "s.json").write_text('{"parents": {"windy": ["play", "outlook"]}}')
    options = [str(tmp_path / "s.json") if o == "{}" else o for o in options]
    for data, counts in [(WEATHER, [9.0, 5.0])] + ([] if "--lazy" in options or "--adjust" in options else [
            (tmp_path / "w.arff", [5.0, 2.5])]):
        (tmp_path / "w.arff").write_text(WEIGHTED)
        model = tmp_path / "m.tnb"
        rc, _, err = cli("train", data, *options, "-o", model)
        assert rc == 0, err
        rc, out, err = cli("inspect", model, "--json")
        assert rc == 0, err
        info = json.loads(out)
        assert info["classes"] == ["yes", "no"]
        assert info["class_count"] == counts, (data, info)
