"""topicfilter -t P thresholds calibrated probabilities (issue 19): an uncalibrated model
is refused with a one-line hint; with a calibrated one, misrouted documents get low
confidence and go to unsorted/ (measured on 20 Newsgroups)."""

import io
import os
import shutil

import numpy as np
import pytest

from textnb.cli import main as textnb_main
from textnb.cli.topicfilter import topic_main

GROUPS = ["comp.graphics", "comp.windows.x", "rec.autos", "rec.motorcycles", "sci.med", "sci.space"]


def run(fn, *argv):
    out, err = io.StringIO(), io.StringIO()
    code = fn([str(a) for a in argv], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def small_corpus(root):
    for label, docs in {"shop": ["cheap pills casino offer", "buy cheap now offer", "casino prize win"] * 2,
                        "work": ["meeting agenda budget", "budget report due", "agenda for the meeting"] * 2
                        }.items():
        (root / "c" / label).mkdir(parents=True)
        for i, d in enumerate(docs):
            (root / "c" / label / f"{i}.txt").write_text(d)
    (root / "docs").mkdir()
    (root / "docs" / "1.txt").write_text("cheap casino")
    return root / "c", root / "docs"


def test_uncalibrated_model_is_refused_with_a_hint(tmp_path):
    corpus, docs = small_corpus(tmp_path)
    # (the default model calibrates itself, but not on 12 documents)
    assert run(textnb_main, "train", corpus, "-o", tmp_path / "raw.tnb")[0] == 0
    code, out, err = run(topic_main, "-m", tmp_path / "raw.tnb", "-o", tmp_path / "out", "-t", "0.8", docs)
    assert code == 1 and out == "" and err.count("\n") == 1
    assert "not calibrated" in err and "--calibrate sigmoid" in err and "--uncalibrated" in err
    assert "fewer than 50 documents" in err
    assert not (tmp_path / "out").exists()
    code, out, err = run(topic_main, "-m", tmp_path / "raw.tnb", "-o", tmp_path / "out", "--uncalibrated", docs)
    assert code == 0 and err == "" and (tmp_path / "out" / "shop" / "1.txt").exists()
    code, _, err = run(topic_main, "-m", tmp_path / "raw.tnb", "-o", tmp_path / "o0", "-t", "0", docs)
    assert code == 0, err  # -t 0 never routes to unsorted: nothing to calibrate
    code, _, err = run(textnb_main, "train", corpus, "--calibrate", "sigmoid", "-o", tmp_path / "cal.tnb")
    assert code == 0, err
    code, out, err = run(topic_main, "-m", tmp_path / "cal.tnb", "-o", tmp_path / "out2", "-t", "0.6", docs)
    assert code == 0 and err == "" and out.count("\n") == 1


@pytest.mark.slow
def test_misrouted_documents_get_low_confidence_on_20newsgroups(shared_corpora, tmp_path):
    root = shared_corpora("20news-bydate")
    train = tmp_path / "train"
    test = tmp_path / "test"
    truth = {}
    for g in GROUPS:  # a third of the training part, a quarter of the test part of six groups
        (train / g).mkdir(parents=True)
        for f in sorted(os.listdir(root / "train" / g))[::3]:
            shutil.copy(root / "train" / g / f, train / g / f)
        test.mkdir(exist_ok=True)
        for f in sorted(os.listdir(root / "test" / g))[::4]:
            shutil.copy(root / "test" / g / f, test / f"{g}-{f}")
            truth[f"{g}-{f}"] = g
    results = {}
    for name, extra in (("raw", []), ("calibrated", ["--calibrate", "sigmoid"])):
        model = tmp_path / f"{name}.tnb"
        code, _, err = run(textnb_main, "train", train, "-o", model, "--model", "multinomial", *extra)
        assert code == 0, err
        flags = ["--uncalibrated"] if name == "raw" else []
        code, out, err = run(topic_main, "-m", model, "-o", tmp_path / f"out-{name}", "-t", "0.8", "-n", test,
                             *flags)
        assert code == 0, err
        rows = [line.split("\t") for line in out.splitlines()]
        assert len(rows) == len(truth)
        label = np.array([r[1] for r in rows])
        conf = np.array([float(r[2]) for r in rows])
        dest = np.array([os.path.basename(os.path.dirname(r[3])) for r in rows])
        true = np.array([truth[os.path.basename(r[0])] for r in rows])
        wrong = label != true
        assert wrong.sum() > 20  # enough misrouted documents to measure
        assert np.all((dest == "unsorted") == (conf < 0.8))
        results[name] = (np.mean(dest[wrong] == "unsorted"), np.mean(dest[~wrong] != "unsorted"))
    # raw naive Bayes is sure even where it is wrong; calibrated, most misrouted documents are unsorted
    assert results["raw"][0] < 0.3
    assert results["calibrated"][0] > 0.6 and results["calibrated"][0] > 2 * results["raw"][0]
    assert results["calibrated"][1] > 0.6  # and most correctly routed documents still get routed
