"""cli.predictions: how predict prints ranked labels (--top / --threshold)."""

import argparse
import io
import json

import numpy as np
import pytest

from conftest import SMS_TSV, cli
from textnb.cli.predictions import print_ranked


def _ranked(proba, odds, **options):
    args = argparse.Namespace(**{"top": None, "threshold": None, "json": True, **options})
    out = io.StringIO()
    print_ranked(["d"], ["a", "b", "c"], np.array([proba]), np.array([odds]), args, out)
    return [(r["label"], r["proba"]) for r in json.loads(out.getvalue())["labels"]]


def test_top_ranks_by_the_printed_probability_and_breaks_its_ties_by_log_odds():
    """A calibrated model's log-odds are its inner model's, in another order than its
    probabilities: --top 1 printed the label of the largest inner log-odds (tech 0.111
    where the prediction was entertainment 0.283: the trial of 2026-12-04). Probabilities
    that round to one float (1.0) are ordered by their log-odds."""
    assert _ranked([0.2, 0.5, 0.3], [3.0, 1.0, 2.0], top=1) == [("b", 0.5)]
    assert _ranked([0.2, 0.5, 0.3], [3.0, 1.0, 2.0], top=-1) == [("b", 0.5), ("c", 0.3), ("a", 0.2)]
    assert [lab for lab, _ in _ranked([1.0, 1.0, 0.0], [40.0, 45.0, -50.0], top=2)] == ["b", "a"]


def test_top_one_is_the_predicted_label_of_a_calibrated_model(tmp_path):
    """On a --calibrate model, `predict --top 1` prints the label `predict` predicts, for
    every message."""
    model = tmp_path / "c.tnb"
    assert cli("train", SMS_TSV, "--model", "multinomial", "--calibrate", "sigmoid", "-o", model)[0] == 0
    lines = tmp_path / "l.txt"
    texts = [line.split("\t", 1)[1] for line in SMS_TSV.read_text(encoding="utf-8").splitlines()[:300]]
    lines.write_text("\n".join(texts) + "\n", encoding="utf-8")
    plain = [line.split("\t")[1] for line in cli("predict", model, "--lines", lines)[1].splitlines()]
    top = [line.split("\t")[1].split(" ")[0] for line in cli("predict", model, "--lines", lines, "--top", "1")[1].splitlines()]
    assert plain == top and len(plain) == 300


def test_predict_lines_refuses_a_binary_file_as_every_other_reader_does(tmp_path):
    """``predict --lines`` of a file with a NUL byte in its first 8 KiB (a labelled line with
    a NUL, random bytes) is one line naming the file, exit 1, as ``textnb test``, ``--rows``
    and the file readers refuse it (it printed a label for every 'line' of random bytes)."""
    model = tmp_path / "m.tnb"
    assert cli("train", SMS_TSV, "--model", "multinomial", "-o", model)[0] == 0
    nul = tmp_path / "nul.txt"
    nul.write_bytes(b"__label__spam hello\x00world\n__label__ham lunch\n")
    code, out, err = cli("predict", model, "--lines", nul)
    assert code == 1 and out == "" and err.strip() == f"textnb: error: {nul}: binary file, not a text file of one " \
                                                    "document per line"
    text = tmp_path / "ok.txt"
    text.write_text("free prize now\nsee you at lunch\n")
    code, out, _ = cli("predict", model, "--lines", text)
    assert code == 0 and len(out.splitlines()) == 2


def test_predict_of_a_pcut_model_decides_over_the_whole_input_not_per_batch(tmp_path):
    """PCut ranks the documents: ``predict`` decides over every line of the input, as the
    loaded Pipeline's ``predict`` of all of them, so a line's labels do not depend on where
    it falls (the CLI decided per batch of 1,000 lines: the same text at lines 2 and 1,001
    got different labels)."""
    from textnb import load

    rng = np.random.RandomState(0)
    topics = [[f"t{t}w{i}" for i in range(8)] for t in range(4)]

    def line(labelled=True):
        labels = sorted(set(rng.choice(4, rng.randint(1, 3))))
        words = [w for t in labels for w in rng.choice(topics[t], 5)] + list(rng.choice(topics[rng.randint(4)], 3))
        text = " ".join(rng.permutation(words))
        return " ".join(f"__label__{t}" for t in labels) + " " + text if labelled else text

    train = tmp_path / "train.ft"
    train.write_text("".join(line() + "\n" for _ in range(300)), encoding="utf-8")
    texts = [line(labelled=False) for _ in range(1200)]
    texts[1000] = texts[1]
    lines = tmp_path / "lines.txt"
    lines.write_text("\n".join(texts) + "\n", encoding="utf-8")
    model = tmp_path / "pcut.tnb"
    assert cli("train", train, "--strategy", "pcut", "-o", model)[0] == 0
    code, out, _ = cli("predict", model, "--lines", lines)
    got = [row.split("\t")[1] for row in out.splitlines()]
    assert code == 0 and len(got) == 1200 and got[1] == got[1000]
    pipe = load(model)
    classes = [str(c) for c in pipe.classes_]
    want = [",".join(classes[k] for k in np.flatnonzero(row)) for row in pipe.predict(texts)]
    assert [set(g.split(",")) for g in got] == [set(w.split(",")) for w in want]


def test_text_probabilities_never_read_one_below_one_nor_zero_above_zero(tmp_path):
    """--top / --threshold printed 6 decimals: a spam probability of 1 - 3.4e-8 read
    '1.000000' (and was dropped by --threshold 0.99999999) and its ham 3.4e-8 read
    '0.000000' (kept by --threshold 1e-9); --proba printed 'spam=1'. Now one format for
    predict's text outputs (and topicfilter's confidence): 6 significant digits, more when
    6 would read 1."""
    from textnb.cli.output import proba_text
    from textnb.cli.predictions import format_proba

    assert proba_text(0.9999999662905482) == "0.99999997" and proba_text(1 - 1e-12) == "0.999999999999"
    assert proba_text(3.3709451848508666e-08) == "3.37095e-08" and proba_text(0.873149440) == "0.873149"
    assert proba_text(1.0) == "1" and proba_text(0.0) == "0" and proba_text(1 - 2 ** -53) == "0.9999999999999999"
    assert format_proba(["ham", "spam"], [3.37e-08, 1 - 3.37e-08]) == "ham=3.37e-08\tspam=0.99999997"
    # a threshold the output was decided by: read on its side (found by a user trial: topicfilter printed
    # 0.997767 of a document it left unsorted for -t 0.997767)
    assert proba_text(0.99776685, 0.997767) == "0.9977668" and proba_text(0.99776685, 0.9) == "0.997767"
    assert proba_text(0.50000012, 0.5000001) == "0.5000001" and proba_text(0.50000008, 0.5000001) == "0.5" and proba_text(0.5, 0.5) == "0.5"
    args = argparse.Namespace(top=-1, threshold=None, json=False)
    out = io.StringIO()
    print_ranked(["d"], ["a", "b", "c"], np.array([[1 - 3e-8, 2e-8, 1e-8]]), np.array([[17.0, -17.4, -18.0]]),
                 args, out)
    assert out.getvalue() == "d\ta 0.99999997\tb 2e-08\tc 1e-08\n"
    model, lines = tmp_path / "m.tnb", tmp_path / "l.txt"
    assert cli("train", SMS_TSV, "--ngram", "1", "-o", model)[0] == 0  # (words: a spam this sure of itself)
    lines.write_text("WINNER!! claim your free prize now call 09061701461 guaranteed 1000 cash award\n")
    rc, out, _ = cli("predict", model, "--lines", lines, "--threshold", "1e-12")
    p = {c: float(v) for c, v in (pair.split(" ") for pair in out.rstrip("\n").split("\t")[1:])}
    assert rc == 0 and 0 < p["ham"] < 1e-6 and 1 - 1e-6 < p["spam"] < 1  # what --json says, to its digits


UNSEEN_CLASS = ("@relation u\n@attribute x {p,q,r}\n{text}@attribute class {a,b,c}\n@data\n"
                + "".join(f"{x},{{row}}{c}\n" for x, c in ["pa", "pa", "pa", "pa", "ra", "qb", "qb", "qb", "qb"]))


@pytest.mark.parametrize("text", [False, True], ids=["table", "table with text"])
def test_uniform_prior_never_predicts_a_declared_class_without_rows(tmp_path, text):
    """--uniform-prior gave every class the ARFF header declares an equal share, one no row
    has too: predict chose it (class c for the row x=r, whose conditional probability is
    1/3 under c's empty counts), while evaluate --test, which reports the data's classes,
    did not (heart-c: 5 declared classes, 2 with rows; predict 0.8053, evaluate --test
    0.8482). The uniform prior is now over the classes with training rows."""
    data = tmp_path / "u.arff"
    data.write_text(UNSEEN_CLASS.replace("{text}", "@attribute note string\n" if text else "")
                    .replace("{row}", "'some words'," if text else ""))
    model = tmp_path / "u.tnb"
    assert cli("train", data, "--uniform-prior", "-o", model)[0] == 0
    rc, out, err = cli("predict", model, data, "--json", "--proba")
    assert rc == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["label"] for r in rows] == list("aaaaabbbb")
    assert all(r["proba"]["c"] < 1e-300 for r in rows)
    rc, out, err = cli("evaluate", data, "--test", data, "--uniform-prior", "--json")
    assert rc == 0 and json.loads(out)["accuracy"] == 1.0, err
    rc, out, err = cli("inspect", model, "--json")  # the declared classes stay the model's, in their order
    assert json.loads(out)["classes"] == ["a", "b", "c"] and json.loads(out)["class_prior"][:2] == [0.5, 0.5]
