"""``textnb inspect``, ``merge`` and ``predict --explain`` on table models that have a kernel
(``textnb.core.registry.KERNEL_MODULES``): they read the kernels, import no scikit-learn, and
print what the estimators print."""

import shutil
from pathlib import Path

import pytest

from textnb.core import model_io
from conftest import cli, cli_subprocess, cli_subprocesses, quick_first

REPO = Path(__file__).resolve().parents[2]
NUMERIC = REPO / "corpora" / "weather.numeric.arff"
NOMINAL = REPO / "corpora" / "weather.nominal.arff"
pytestmark = pytest.mark.skipif(not NUMERIC.exists(), reason="bundled weather tables missing")

MODELS = [
    (NUMERIC, ()), (NOMINAL, ("--model", "aode")), (NOMINAL, ("--model", "tan")), (NUMERIC, ("--lazy", "hlbr")),
    (NUMERIC, ("--adjust", "--significance", "1")), (NOMINAL, ("--adjust", "--model", "aode")),
    (NUMERIC, ("--numeric", "kde")),
]


def _estimator_output(monkeypatch, *args):
    """The command's output with the estimators (no kernel is built)."""
    with monkeypatch.context() as m:
        m.setattr(model_io, "KERNEL_MODULES", {})
        rc, out, err = cli(*args)
    return rc, out, err


@pytest.mark.parametrize("table, options", quick_first(MODELS, keep=2, unpack=True))
def test_inspect_and_explain_read_the_kernels(tmp_path, monkeypatch, table, options):
    path = tmp_path / "m.tnb"
    assert cli("train", table, *options, "-o", path)[0] == 0
    commands = (("inspect", path), ("inspect", path, "--json"), ("predict", path, table, "--explain"),
                ("predict", path, table, "--explain", "--json"))
    for command, (status, out) in zip(commands, cli_subprocesses(*commands)):
        rc, expected, _ = _estimator_output(monkeypatch, *command)
        assert status.split()[:2] == [str(rc), "False"], command  # same exit status, no scikit-learn
        assert out == expected, command


def test_merge_reads_the_kernels(tmp_path, monkeypatch):
    """TabularNB and AODE files merge without scikit-learn into the estimators' file, byte
    for byte; the refusals are the estimators' lines."""
    lines = NOMINAL.read_text().splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.lower().startswith("@data")) + 1
    (tmp_path / "a.arff").write_text("".join(lines[:start + 7]))
    (tmp_path / "b.arff").write_text("".join(lines[:start] + lines[start + 7:]))
    for options, name in (((), "nb"), (("--model", "aode"), "aode"), (("--model", "tan"), "tan")):
        for part in "ab":
            assert cli("train", tmp_path / f"{part}.arff", *options, "-o", tmp_path / f"{name}_{part}.tnb")[0] == 0
    merged = cli_subprocesses(*(("merge", tmp_path / f"{name}_a.tnb", tmp_path / f"{name}_b.tnb",
                                 "-o", tmp_path / f"{name}_k.tnb") for name in ("nb", "aode")))
    for name, (status, out) in zip(("nb", "aode"), merged):
        assert status.startswith("0 False"), status
        rc, expected, _ = _estimator_output(monkeypatch, "merge", tmp_path / f"{name}_a.tnb",
                                            tmp_path / f"{name}_b.tnb", "-o", tmp_path / f"{name}_e.tnb")
        assert rc == 0 and out.replace("_k.tnb", "_e.tnb") == expected
        assert (tmp_path / f"{name}_k.tnb").read_bytes() == (tmp_path / f"{name}_e.tnb").read_bytes()
    for pair in (("tan_a", "nb_a"), ("nb_a", "aode_a")):
        args = ("merge", *(tmp_path / f"{p}.tnb" for p in pair), "-o", tmp_path / "x.tnb")
        rc, _, err = cli(*args)
        assert rc == 1 and err == _estimator_output(monkeypatch, *args)[2]


SMS = REPO / "corpora" / "sms_spam" / "SMSSpamCollection.tsv"


@pytest.mark.skipif(not SMS.exists(), reason="bundled SMS collection missing")
@pytest.mark.parametrize("options", quick_first([(), ("--model", "bernoulli", "--alpha", "0.5"), ("--model", "multinomial"),
                                     ("--model", "complement", "--norm"), ("--model", "multinomial", "--binary"),
                                     # wrappers: described by the count model inside, over the terms it sees
                                     ("--model", "multinomial", "--weighting"), ("--select", "chi2:300"),
                                     ("--calibrate", "sigmoid"), ("--model", "multinomial", "--calibrate", "isotonic"),
                                     ("--model", "auto"), ("--model", "auto", "--calibrate", "sigmoid"),
                                     ("--model", "auto", "--select", "chi2:300"),
                                     ("--model", "bernoulli", "--binary", "--select", "ig:200", "--calibrate", "sigmoid"),
                                     ("--model", "multinomial", "--select", "df:250", "--weighting", "--calibrate",
                                      "isotonic")], keep=2))
def test_inspect_of_a_count_text_model_reads_its_nodes(tmp_path, monkeypatch, options):
    """``textnb inspect`` of a text model of a count model, or of the wrappers ``textnb
    train`` writes around one (term weighting and selection, calibration, ``--model auto``):
    described from the file's nodes and the kernel (no scikit-learn), as the estimator
    describes it, text and JSON."""
    import textnb.evaluation.explain as explain

    (tmp_path / "sms.tsv").write_text("".join(SMS.read_text(encoding="utf-8").splitlines(keepends=True)[:800]),
                                      encoding="utf-8")
    path = tmp_path / "m.tnb"
    assert cli("train", tmp_path / "sms.tsv", *options, "-o", path)[0] == 0
    commands = (("inspect", path, "--top", "7"), ("inspect", path, "--json"))
    for command, (status, out) in zip(commands, cli_subprocesses(*commands)):
        assert status.split()[:2] == ["0", "False"], command
        with monkeypatch.context() as m:
            m.setattr(explain, "describe_text_file", lambda root, top=10: None)  # the estimator's path
            rc, expected, _ = cli(*command)
        assert rc == 0 and out == expected and ("most informative" in out or "informative_terms" in out)


@pytest.mark.skipif(not SMS.exists(), reason="bundled SMS collection missing")
@pytest.mark.parametrize("options", quick_first([(), ("--model", "multinomial", "--ngram", "2"), ("--model", "bernoulli"),
                                                 ("--model", "complement", "--norm")], keep=2))
def test_merge_of_count_text_models_reads_their_nodes(tmp_path, monkeypatch, options):
    """``textnb merge`` of text models of count models adds them up from their nodes (no
    scikit-learn) into the file the estimators' merge writes, byte for byte (DiscriminativeNB:
    the documents per class and the calibration scale too)."""
    from textnb.text.nodes import CountTextModel

    lines = SMS.read_text(encoding="utf-8").splitlines(keepends=True)
    parts = [lines[:300], lines[300:500], lines[500:900]]
    for k, part in enumerate(parts):
        (tmp_path / f"p{k}.tsv").write_text("".join(part), encoding="utf-8")
        assert cli("train", tmp_path / f"p{k}.tsv", *options, "-o", tmp_path / f"p{k}.tnb")[0] == 0
    models = [tmp_path / f"p{k}.tnb" for k in range(3)]
    status, out = cli_subprocess("merge", *models, "-o", tmp_path / "k.tnb")
    assert status.split()[:2] == ["0", "False"]
    with monkeypatch.context() as m:
        m.setattr(CountTextModel, "from_root", classmethod(lambda cls, root: None))  # the estimators' path
        rc, expected, _ = cli("merge", *models, "-o", tmp_path / "e.tnb")
    assert rc == 0 and out.replace("k.tnb", "e.tnb") == expected
    assert (tmp_path / "k.tnb").read_bytes() == (tmp_path / "e.tnb").read_bytes()


@pytest.mark.skipif(not SMS.exists(), reason="bundled SMS collection missing")
@pytest.mark.parametrize("options", quick_first([(), ("--weighting", "--select", "chi2:300", "--calibrate", "sigmoid"),
                                                 ("--model", "multinomial", "--binary"), ("--model", "bernoulli"),
                                                 ("--model", "complement", "--norm"),
                                                 ("--model", "discriminative", "--alpha", "0.3"),
                                                 ("--model", "multinomial", "--select", "ig:200", "--binary")], keep=2))
def test_explain_of_a_count_text_model_reads_its_scorer(tmp_path, monkeypatch, options):
    """``textnb predict MODEL DOCS --explain`` of a text model of a count model explains from
    the model file's linear scorer (explain_scored: no scikit-learn) what the estimator
    explains (explain), text and JSON, documents with unknown terms and none included."""
    from textnb.text import scorer

    lines = SMS.read_text(encoding="utf-8").splitlines(keepends=True)
    (tmp_path / "sms.tsv").write_text("".join(lines[:600]), encoding="utf-8")
    (tmp_path / "docs").mkdir()
    for k, line in enumerate(lines[600:610]):
        (tmp_path / "docs" / f"d{k}.txt").write_text(line.split("\t", 1)[1], encoding="utf-8")
    (tmp_path / "docs" / "unknown.txt").write_text("zzzqqq xxyyzz")
    (tmp_path / "docs" / "empty.txt").write_text("")
    path = tmp_path / "m.tnb"
    assert cli("train", tmp_path / "sms.tsv", *options, "-o", path)[0] == 0
    commands = (("predict", path, tmp_path / "docs", "--explain", "--top", "4"),
                ("predict", path, tmp_path / "docs", "--explain", "--json"))
    for command, (status, out) in zip(commands, cli_subprocesses(*commands)):
        assert status.split()[:2] == ["0", "False"], command
        with monkeypatch.context() as m:
            m.setattr(scorer, "_scorer", lambda root: None)  # the estimator's path
            rc, expected, _ = cli(*command)
        assert rc == 0 and out == expected and len(out.splitlines()) >= 12


def test_adjust_around_a_mixed_table_model_reads_back(tmp_path, monkeypatch):
    """``--adjust`` on a table with a text attribute: the APNBC kernel file holds the MixedNB
    estimator, whose inner models are read as estimators (not kernels); predict, --explain
    and inspect print what the estimators' path prints."""
    rows = ["class,body,src,n"]
    words = ["cheap pills now", "meeting at noon", "cheap offer today", "lunch at noon", "win cash now",
             "notes from the meeting"]
    for i in range(60):
        label = "spam" if i % 2 == 0 else "ham"
        rows.append(f"{label},{words[(i * 7) % 6]},{'abc'[i % 3]},{(i * 13) % 17}")
    (tmp_path / "t.csv").write_text("\n".join(rows) + "\n")
    path = tmp_path / "m.tnb"
    assert cli("train", tmp_path / "t.csv", "--text-column", "body", "--class", "class", "--adjust",
               "--significance", "1", "-o", path)[0] == 0
    table = tmp_path / "t.csv"
    for command in (("predict", path, table, "--proba"), ("predict", path, table, "--explain"),
                    ("inspect", path, "--json")):
        rc, out, err = cli(*command)
        assert rc == 0, err
        assert (rc, out) == _estimator_output(monkeypatch, *command)[:2]


@pytest.mark.parametrize("options", [("--lazy", "lbr"), ("--lazy", "hlbr", "--adjust")])
def test_weighted_rows_for_a_model_that_cannot_learn_from_them_are_one_line(tmp_path, options):
    """An ARFF file whose rows carry instance weights, with a model whose fit takes none
    (the lazy rules, with or without APNBC around them): one line naming the file and the
    option, exit 1, no model written (it was an internal error)."""
    weighted = tmp_path / "w.arff"
    text = NOMINAL.read_text()
    weighted.write_text("".join(line + ",{2}\n" if line.startswith("sunny") else line + "\n"
                                for line in text.splitlines()))
    rc, _, err = cli("train", weighted, *options, "-o", tmp_path / "m.tnb")
    named = "--adjust" if "--adjust" in options else " ".join(options)
    assert rc == 1 and err.count("\n") == 1 and "w.arff" in err and named in err and "weights" in err
    assert not (tmp_path / "m.tnb").exists()
    assert cli("train", weighted, "-o", tmp_path / "nb.tnb")[0] == 0  # naive Bayes learns from weights


def test_adjust_learns_from_whole_number_row_weights_as_from_repeated_rows(tmp_path):
    """``train --adjust`` on an ARFF file with instance weights was refused (APNBC took no
    sample_weight); whole-number weights now count as copies of the rows (the model predicts
    as the one trained on the repeated rows), fractions are one line naming the file."""
    text = NOMINAL.read_text()
    for name, weight in (("w2", ",{2}"), ("w05", ",{0.5}")):
        (tmp_path / f"{name}.arff").write_text("".join(line + weight + "\n" if line.startswith("sunny") else line + "\n"
                                                       for line in text.splitlines()))
    (tmp_path / "dup.arff").write_text("".join((line + "\n") * (2 if line.startswith("sunny") else 1)
                                               for line in text.splitlines()))
    for name in ("w2", "dup"):
        assert cli("train", tmp_path / f"{name}.arff", "--adjust", "--significance", "1",
                   "-o", tmp_path / f"{name}.tnb")[0] == 0
    assert cli("predict", tmp_path / "w2.tnb", tmp_path / "dup.arff", "--json") == \
        cli("predict", tmp_path / "dup.tnb", tmp_path / "dup.arff", "--json")
    rc, _, err = cli("train", tmp_path / "w05.arff", "--adjust", "-o", tmp_path / "m.tnb")
    assert rc == 1 and err.count("\n") == 1 and "w05.arff" in err and "not whole numbers" in err
    assert not (tmp_path / "m.tnb").exists()


def test_adjust_on_cv_is_seeded(tmp_path):
    """``train --adjust --adjust-on cv`` draws its folds from ``--seed`` (default 0): the same
    file twice, another with another seed on a set where the folds matter."""
    vote = REPO.parent / "shared" / "datasets" / "uci" / "vote.arff"
    table = vote if vote.exists() else NUMERIC
    runs = [("--seed", "0"), (), ("--seed", "5")]
    for k, seed in enumerate(runs):
        assert cli("train", table, "--adjust", "--adjust-on", "cv", "--significance", "1", *seed,
                   "-o", tmp_path / f"m{k}.tnb")[0] == 0
    assert (tmp_path / "m0.tnb").read_bytes() == (tmp_path / "m1.tnb").read_bytes()
    if table == vote:  # (its out-of-fold scores, and so the stored folds' weights, depend on the folds)
        assert (tmp_path / "m0.tnb").read_bytes() != (tmp_path / "m2.tnb").read_bytes()


@pytest.mark.skipif(not SMS.exists(), reason="bundled SMS collection missing")
def test_seed_seeds_the_default_text_model(tmp_path):
    """``train --seed S`` is the default model's random_state (its sample and folds inside
    training; the README said so, but it seeded --adjust-on cv only and was otherwise
    accepted without effect): --seed 0 writes the file written without it, --seed 5 one
    whose DiscriminativeNB has random_state 5 (through the streaming trainer and the
    estimators alike)."""
    for k, seed in enumerate([("--seed", "0"), (), ("--seed", "5")]):
        assert cli("train", SMS, *seed, "-o", tmp_path / f"m{k}.tnb")[0] == 0
    assert (tmp_path / "m0.tnb").read_bytes() == (tmp_path / "m1.tnb").read_bytes()
    assert (tmp_path / "m0.tnb").read_bytes() != (tmp_path / "m2.tnb").read_bytes()
    assert model_io.load(tmp_path / "m2.tnb").model_.random_state == 5
    from textnb.meta.registry import ModelOptions, make_text_classifier

    assert make_text_classifier(ModelOptions(seed=5)).model.random_state == 5


@pytest.mark.skipif(not SMS.exists(), reason="bundled SMS collection missing")
@pytest.mark.parametrize("options, wrapper", [(("--model", "multinomial", "--calibrate", "sigmoid"), "CalibratedNB"),
                                              (("--model", "auto",), "SmoothingCV")])
def test_seed_reaches_the_folds_of_calibration_and_model_auto(tmp_path, monkeypatch, options, wrapper):
    """Session 48's trial: ``--calibrate`` (CalibratedNB) and ``--model auto`` (SmoothingCV)
    shuffle their folds with random_state, which ``--seed`` never reached (the same file for
    every seed). Now --seed 0 writes today's file (the one written without it), --seed 5 one
    whose wrapper has random_state 5, the streaming trainer's file byte for byte the
    estimators'; a table's --calibrate takes it too."""
    import textnb.meta.registry as registry

    part = tmp_path / "sms.tsv"
    part.write_text("".join(SMS.read_text(encoding="utf-8").splitlines(keepends=True)[:600]), encoding="utf-8")
    for k, seed in enumerate([("--seed", "0"), (), ("--seed", "5")]):
        assert cli("train", part, *options, *seed, "-o", tmp_path / f"m{k}.tnb")[0] == 0
    assert (tmp_path / "m0.tnb").read_bytes() == (tmp_path / "m1.tnb").read_bytes()
    assert (tmp_path / "m0.tnb").read_bytes() != (tmp_path / "m2.tnb").read_bytes()
    model = model_io.load(tmp_path / "m2.tnb").model_
    assert type(model).__name__ == wrapper and model.random_state == 5
    with monkeypatch.context() as m:  # the estimators' path
        m.setattr(registry, "streaming_model", lambda opts, **kw: None)
        assert cli("train", part, *options, "--seed", "5", "-o", tmp_path / "e.tnb")[0] == 0
    assert (tmp_path / "e.tnb").read_bytes() == (tmp_path / "m2.tnb").read_bytes()
    assert cli("train", NUMERIC, "--calibrate", "sigmoid", "--seed", "5", "-o", tmp_path / "t.tnb")[0] == 0
    assert model_io.load(tmp_path / "t.tnb").random_state == 5


@pytest.mark.skipif(not SMS.exists(), reason="bundled SMS collection missing")
@pytest.mark.parametrize("options", quick_first([(), ("--select", "chi2:300", "--calibrate", "sigmoid"),
                                                 ("--model", "bernoulli")], keep=1))
def test_predict_lines_reads_the_scorer(tmp_path, monkeypatch, options):
    """``predict --lines`` (plain, ranked as fastText's predict-prob, JSON, explained) of a
    linear text model scores from the model file's scorer, without scikit-learn, and prints
    what the estimator prints."""
    from textnb.text import scorer

    lines = SMS.read_text(encoding="utf-8").splitlines(keepends=True)
    (tmp_path / "sms.tsv").write_text("".join(lines[:800]), encoding="utf-8")
    (tmp_path / "lines.txt").write_text("".join(line.split("\t", 1)[1] for line in lines[800:840]) + "\nzzqq\n",
                                        encoding="utf-8")
    path = tmp_path / "m.tnb"
    assert cli("train", tmp_path / "sms.tsv", *options, "-o", path)[0] == 0
    commands = [("predict", path, "--lines", tmp_path / "lines.txt", *extra)
                for extra in ((), ("--top", "2"), ("--threshold", "0.1", "--json"), ("--explain", "--json"))]
    for command, (status, out) in zip(commands, cli_subprocesses(*commands)):
        assert status.split()[:2] == ["0", "False"], command
        with monkeypatch.context() as m:
            m.setattr(scorer, "_scorer", lambda root: None)  # the estimator's path
            rc, expected, _ = cli(*command)
        assert rc == 0 and out == expected and len(out.splitlines()) == 42


def _mixed_table(path, lines):
    """SMS messages as a CSV with two text columns (the message, its first words: some
    missing), a numeric one and the class."""
    import csv

    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["text", "note", "length", "label"])
        for i, line in enumerate(lines):
            label, text = line.split("\t", 1)
            w.writerow([text, "" if i % 5 == 0 else " ".join(text.split()[:3]), len(text), label])
    return path


@pytest.mark.skipif(not SMS.exists(), reason="bundled SMS collection missing")
@pytest.mark.parametrize("options", quick_first([(), ("--binary", "--ngram", "2", "--min-df", "2"), ("--adjust",)], keep=0))
def test_inspect_explain_merge_of_a_mixed_table_read_the_text_parts_nodes(tmp_path, monkeypatch, options):
    """``textnb inspect``, ``predict --explain`` and ``merge`` of a table with text attributes
    read the text parts from the file's nodes (no scikit-learn) and print (and write) what
    the estimators do (``MixedNB``), and what the kernel does with its parts' estimators."""
    from textnb.text.nodes import CountTextModel

    lines = SMS.read_text(encoding="utf-8").splitlines()
    table = _mixed_table(tmp_path / "t.csv", lines[:500])
    _mixed_table(tmp_path / "a.csv", lines[500:800])
    _mixed_table(tmp_path / "b.csv", lines[800:1000])
    args = ("--text-column", "text", "--text-column", "note", "--class", "label", *options)
    for name in ("t", "a", "b"):
        assert cli("train", tmp_path / f"{name}.csv", *args, "-o", tmp_path / f"{name}.tnb")[0] == 0
    model = tmp_path / "t.tnb"
    commands = [("inspect", model), ("inspect", model, "--json"), ("inspect", model, "--top", "3"),
                ("predict", model, table, "--explain", "--top", "4"), ("predict", model, table, "--explain", "--json")]
    shutil.copyfile(model, tmp_path / "t2.tnb")  # (the same file twice is refused)
    for merge in ((model, tmp_path / "t2.tnb"), (tmp_path / "a.tnb", tmp_path / "b.tnb")):
        commands.append(("merge", *merge, "-o", tmp_path / "merged.tnb"))
    for command in commands:
        status, out = cli_subprocess(*command)
        new = (tmp_path / "merged.tnb").read_bytes() if command[0] == "merge" and status.startswith("0") else None
        for patch in ((model_io, "KERNEL_MODULES", {}),  # the estimator MixedNB
                      (CountTextModel, "from_root", classmethod(lambda cls, root: None))):  # the parts' estimators
            (tmp_path / "merged.tnb").unlink(missing_ok=True)
            with monkeypatch.context() as m:
                m.setattr(*patch)
                rc, expected, _ = cli(*command)
            assert status.split()[:2] == [str(rc), "False"], command
            assert out == expected, command
            if new is not None:
                assert (tmp_path / "merged.tnb").read_bytes() == new, command
