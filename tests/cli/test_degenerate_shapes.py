"""A user trial of degenerate data shapes (session 51): rows that all weigh 0, terms that
balance out, a vocabulary of one term, an empty vocabulary outside cross-validation, an
attribute value equally likely in every class."""

import json

import pytest

from conftest import cli, one_error_line

W0 = "@relation r\n@attribute b {x,y}\n@attribute class {p,q}\n@data\nx,p,{0}\ny,q,{0}\nx,q,{0}\n"
WEATHER_ROWS = "@relation r\n@attribute b {x,y}\n@attribute class {p,q}\n@data\nx,p\ny,q\nx,q\n"


@pytest.mark.parametrize("argv", [["train", "--model", "nb"], ["train", "--model", "tan"], ["train", "--model", "aode"],
                                  ["train", "--adjust"], ["evaluate", "--test", "TEST"], ["evaluate", "--cv", "2"]])
def test_a_table_whose_rows_all_weigh_0_is_one_line(tmp_path, argv):
    """``train`` / ``evaluate`` of an ARFF table whose instance weights are all ``{0}``: one
    line naming it, exit 1 (*was*: ``internal error: ValueError: sample_weight is zero for
    every object``, exit 70)."""
    data = tmp_path / "w0.arff"
    data.write_text(W0)
    (tmp_path / "test.arff").write_text(WEATHER_ROWS)
    command, *rest = argv
    rest = [str(tmp_path / "test.arff") if a == "TEST" else a for a in rest]
    extra = ["-o", str(tmp_path / "m.tnb")] if command == "train" else []
    code, out, err = cli(command, data, *rest, *extra)
    assert code == 1 and not (tmp_path / "m.tnb").exists()
    one_error_line(err, f"{data}: every row weighs 0 (instance weights): there is nothing to learn from")


def test_known_terms_that_balance_out_are_said_so_by_explain(tmp_path):
    """``predict --explain`` of a document whose known terms weigh the same for both classes
    says so, and of one without a known term says that (*was*: 'no term the model knows' for
    both); ``--json`` counts the known terms."""
    corpus = tmp_path / "bal.tsv"
    corpus.write_text("label\ttext\nham\tshared lunch\nspam\tshared pills\n")
    model = tmp_path / "bal.tnb"
    assert cli("train", corpus, "--model", "multinomial", "-o", model)[0] == 0
    code, out, err = cli("predict", model, "-", "--explain", stdin=b"shared\n")
    assert code == 0 and out.rstrip("\n").endswith(": the terms it knows weigh the same for both classes"), out
    code, out, err = cli("predict", model, "-", "--explain", stdin=b"zzz\n")
    assert code == 0 and out.rstrip("\n").endswith(": no term the model knows"), out
    code, out, err = cli("predict", model, "-", "--explain", "--json", stdin=b"shared lunch zzz\n")
    assert code == 0 and json.loads(out)["explanation"]["known_terms"] == 2


def test_inspect_counts_a_vocabulary_of_one_term_in_the_singular(tmp_path):
    """``inspect`` says ``vocabulary: 1 term``, as ``train`` does (*was*: ``1 terms``)."""
    corpus = tmp_path / "one.tsv"
    corpus.write_text("label\ttext\na\tword\nb\tword word\n")
    model = tmp_path / "one.tnb"
    code, out, err = cli("train", corpus, "--model", "multinomial", "-o", model)
    assert code == 0 and "vocabulary: 1 term\n" in out, out
    code, out, err = cli("inspect", model)
    assert code == 0 and "vocabulary: 1 term\n" in out, out


def test_an_empty_vocabulary_of_a_train_test_evaluation_names_no_fold(tmp_path):
    """``evaluate --test`` whose training documents are all stop words: the line says the
    training documents have no term left (*was*: 'empty vocabulary in a training fold', of a
    run without folds)."""
    corpus = tmp_path / "stop.tsv"
    corpus.write_text("label\ttext\na\tthe and of\nb\tis it was\n")
    code, out, err = cli("evaluate", corpus, "--stop-words", "english", "--test", corpus)
    assert code == 1
    line = one_error_line(err, f"{corpus}: empty vocabulary: the training documents have no term left")
    assert "fold" not in line


@pytest.mark.parametrize("model", ["nb", "tan", "aode"])
def test_a_value_equally_likely_in_both_classes_contributes_exactly_0(tmp_path, model):
    """``predict --explain`` of a table model, a value whose probability is the same in both
    classes: ``m=u +0.00`` and a contribution of 0 in ``--json`` (*was*: ``+1.11e-16``, the
    leave-one-out scores' last bit)."""
    data = tmp_path / "t.arff"
    data.write_text("@relation r\n@attribute m {u,v}\n@attribute class {p,q}\n@data\n?,p\n?,q\n?,p\n")
    query = tmp_path / "q.csv"
    query.write_text("m\nu\n")
    assert cli("train", data, "--model", model, "-o", tmp_path / "t.tnb")[0] == 0
    code, out, err = cli("predict", tmp_path / "t.tnb", query, "--explain")
    assert code == 0 and out.rstrip("\n").endswith("m=u +0.00"), out
    code, out, err = cli("predict", tmp_path / "t.tnb", query, "--explain", "--json")
    assert code == 0 and json.loads(out)["explanation"]["attributes"][0]["contribution"] == 0.0


@pytest.mark.parametrize("options", [["--model", "bernoulli"], ["--model", "multinomial", "--weighting"],
                                     ["--model", "complement"]])
def test_terms_of_equal_weight_explain_as_0_in_every_text_model(tmp_path, options):
    """``--explain`` of a term equally weighted in both classes, by a Bernoulli model (whose
    absent terms' sums are added in another order per class) or term weighting: margin,
    prior and contribution exactly 0, as the table models' (*was*: ``by 1.78e-15 (prior
    +8.88e-16)``, ``shared +4.44e-16``)."""
    corpus = tmp_path / "bal.tsv"
    corpus.write_text("spam\tshared money win\nham\tshared hello mom\nspam\tshared money prize\n"
                      "ham\tshared mom dinner\n" * 1 + "spam\tshared money win\nham\tshared hello mom\n"
                      "spam\tshared money prize\nham\tshared mom dinner\n" * 5)
    model = tmp_path / "m.tnb"
    assert cli("train", corpus, *options, "-o", model)[0] == 0
    code, out, err = cli("predict", model, "-", "--explain", "--json", stdin=b"shared\n")
    explanation = json.loads(out)["explanation"]
    assert code == 0 and explanation["margin"] == 0.0 and explanation["prior"] == 0.0, explanation
    assert explanation["for"] == explanation["against"] == [] and explanation["known_terms"] == 1
