import io
import json
import subprocess
import sys

import pytest

from conftest import quick_first
from pathlib import Path

from textnb.cli.commands import main

COMMANDS = ["train", "predict", "evaluate", "inspect", "merge"]


def run(*argv, stdin=None):
    out, err = io.StringIO(), io.StringIO()
    if stdin is not None:
        old = sys.stdin
        sys.stdin = stdin
    try:
        code = main(list(map(str, argv)), stdout=out, stderr=err)
    finally:
        if stdin is not None:
            sys.stdin = old
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("command", COMMANDS)
def test_help_for_every_subcommand(command, capsys):
    assert run(command, "--help")[0] == 0
    assert "usage: textnb " + command in capsys.readouterr().out


def test_the_commands_of_one_process_parse_with_one_parser_and_share_nothing():
    """main() parses with one parser a process (built once: 3 ms a command); a parse leaves
    nothing in it for the next (an appended option, the defaults), and gives what a parser
    of its own gives."""
    from textnb.cli import commands

    parser = commands._parser()
    assert parser is commands._parser()
    argvs = [["train", "x.csv", "--text-column", "a", "--text-column", "b", "--class", "c"], ["train", "x.csv"],
             ["predict", "m.tnb", "a.txt", "b.txt", "--json"], ["evaluate", "x.tsv", "--cv", "3"], ["inspect", "m.tnb"]]
    for argv in argvs + argvs[::-1]:
        assert vars(parser.parse_known_args(argv)[0]) == vars(commands.build_parser().parse_known_args(argv)[0])
    assert parser.parse_known_args(argvs[1])[0].text_column is None
    assert run("frobnicate")[0] == 2 and run("train", "--help")[0] == 0 and parser is commands._parser()


def test_bad_flag_is_usage_error(capsys):
    assert run("train", "--no-such-flag", "x")[0] == 2
    assert run("evaluate", "x", "--cv", "zero")[0] == 2
    assert run("frobnicate")[0] == 2


@pytest.fixture(scope="module")
def sms_model(tmp_path_factory, sms_tsv):
    path = tmp_path_factory.mktemp("m") / "sms.tnb"
    code, out, err = run("train", sms_tsv, "-o", path)
    assert code == 0, err
    assert "ham 4827, spam 747" in out and "vocabulary: 14993 terms" in out
    return path


def test_train_json_summary(tmp_path, sms_tsv):
    code, out, _ = run("train", sms_tsv, "-o", tmp_path / "m.tnb", "--model", "bernoulli", "--json",
                       "--stop-words", "english", "--ngram", "2", "--min-df", "2")
    info = json.loads(out)
    assert info["per_class"] == {"ham": 4827, "spam": 747} and info["documents"] == 5574
    assert info["vocabulary_size"] > 1000


def test_predict_plain_json_and_stdin(sms_model, tmp_path):
    (tmp_path / "a.txt").write_text("WINNER!! claim your free prize now, call 09061701461")
    (tmp_path / "b.txt").write_text("ok see you at lunch then")
    code, out, _ = run("predict", sms_model, tmp_path / "a.txt", tmp_path / "b.txt")
    assert code == 0
    assert out.splitlines() == [f"{tmp_path / 'a.txt'}\tspam", f"{tmp_path / 'b.txt'}\tham"]
    code, out, _ = run("predict", sms_model, tmp_path, "--json", "--proba")
    recs = [json.loads(line) for line in out.splitlines()]
    assert [r["label"] for r in recs] == ["spam", "ham"]
    assert set(recs[0]) == {"source", "label", "proba", "log_odds"}
    assert abs(sum(recs[0]["proba"].values()) - 1) < 1e-12
    assert recs[0]["log_odds"]["spam"] > 0
    code, out, _ = run("predict", sms_model, "-", "--json", stdin=io.TextIOWrapper(io.BytesIO(b"free prize call now")))
    assert json.loads(out)["source"] == "stdin" and json.loads(out)["label"] == "spam"


def test_predict_binary_file_is_reported_and_nonzero(sms_model, tmp_path):
    (tmp_path / "x.bin").write_bytes(b"\x00\x01")
    (tmp_path / "y.txt").write_text("hello")
    code, out, err = run("predict", sms_model, tmp_path / "x.bin", tmp_path / "y.txt")
    assert code == 1
    assert err.strip() == f"textnb: error: {tmp_path / 'x.bin'}: binary file, skipped"
    assert out.strip().endswith("\tham")


@pytest.mark.slow
def test_evaluate_json_keys_and_plot(sms_tsv, tmp_path):
    png = tmp_path / "cm.png"
    code, out, _ = run("evaluate", sms_tsv, "--cv", "5", "--seed", "1", "--json", "--plot", png)
    assert code == 0
    report = json.loads(out)
    for key in ("accuracy", "macro_f1", "n", "seconds", "per_class", "confusion_matrix"):
        assert key in report
    assert report["n"] == 5574 and report["accuracy"] > 0.97
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # two classes: the ROC area (spam, the second class, positive) and the reliability bins
    assert report["roc"]["positive"] == "spam" and report["roc_auc"] == report["roc"]["auc"] > 0.97
    assert sum(report["reliability"]["count"]) == 5574
    code, text, _ = run("evaluate", sms_tsv, "--cv", "3", "--repeat", "2")
    assert "accuracy" in text and "confusion matrix" in text and "spam" in text
    assert "ROC AUC" in text and "(positive class: spam)" in text


def test_evaluate_plot_draws_what_the_report_has(tmp_path):
    """``evaluate --plot``: the confusion matrix, the reliability diagram and, for two
    classes, the ROC curve (three panels; two for three classes), and says which."""
    pytest.importorskip("matplotlib")
    from PIL import Image

    corpora = Path(__file__).resolve().parents[2] / "corpora"
    png = tmp_path / "e.png"
    code, out, err = run("evaluate", corpora / "weather.nominal.arff", "--cv", "2", "--plot", png)
    assert code == 0, err
    assert f"confusion matrix, reliability diagram, ROC curve plot: {png}" in out and "ROC AUC" in out
    width, height = Image.open(png).size
    assert width > 2.5 * height  # three panels side by side
    three = tmp_path / "three.tsv"
    three.write_text("".join(f"{c}\t{w} {w} word{i % 3}\n" for i in range(30)
                             for c, w in (("a", "apple"), ("b", "banana"), ("c", "cherry"))))
    code, out, err = run("evaluate", three, "--cv", "2", "--plot", png)
    assert code == 0, err
    assert f"confusion matrix, reliability diagram plot: {png}" in out and "ROC AUC" not in out


#: a picture of each kind: (plot function name, its arguments but the path)
_REPORT = {"classes": ["ham", "spam"], "confusion_matrix": [[480, 5], [12, 70]], "accuracy": 0.97, "ece": 0.01,
           "log_loss": 0.1, "accuracy_per_repeat": [0.97],
           "reliability": {"bins": 4, "count": [0, 20, 47, 500], "confidence": [None, 0.4, 0.65, 0.95],
                           "accuracy": [None, 0.5, 0.7, 0.98]},
           "roc": {"positive": "spam", "auc": 0.95, "fpr": [0.0, 0.0, 0.1, 0.4, 1.0], "tpr": [0.0, 0.6, 0.9, 0.97, 1.0]}}
PICTURES = {
    "evaluation": ("plot_evaluation", (_REPORT,)),
    "confusion": ("plot_confusion_matrix", ([[5, 1, 0], [2, 7, 1], [0, 3, 9]], ["a", "b $x$", "c" * 40])),
    "label_f1": ("plot_label_f1", ({f"l{i}": {"f1": i / 12, "train_support": 3 * i} for i in range(12)},)),
    "terms": ("plot_informative_terms", ({c: [(f"{c}{j}", 3.0 - j / 4) for j in range(8)] for c in "abcd"},)),
}


@pytest.mark.parametrize("kind", quick_first(list(PICTURES)))
def test_a_plot_is_drawn_once_and_is_the_picture_of_its_layout(tmp_path, monkeypatch, kind):
    """savefig drew every --plot picture twice (tight_layout left the figure a placeholder
    layout engine, and savefig draws a figure with one once more before the real draw: a
    fifth of the time of an ``evaluate --plot`` PNG, session 28). Now once, and the PNG
    is the one drawn the old way, pixel for pixel."""
    pytest.importorskip("matplotlib")
    import matplotlib.figure
    from PIL import Image

    from textnb.evaluation import plots

    name, args = PICTURES[kind]
    draws = []
    draw = matplotlib.figure.Figure.draw
    monkeypatch.setattr(matplotlib.figure.Figure, "draw", lambda fig, renderer: draws.append(1) or draw(fig, renderer))
    getattr(plots, name)(*args, tmp_path / "new.png")
    assert len(draws) == 1
    monkeypatch.setattr(plots, "_tight_layout", lambda fig: fig.tight_layout())  # (what it was)
    getattr(plots, name)(*args, tmp_path / "old.png")
    assert len(draws) == 3
    new, old = Image.open(tmp_path / "new.png"), Image.open(tmp_path / "old.png")
    assert new.size == old.size and new.tobytes() == old.tobytes()


def test_plot_never_replaces_a_file_that_is_not_a_png(tmp_path):
    """``--plot model.tnb`` (a slip of the fingers) must not turn a model or a text into a
    picture: refused before any work, one line naming the file, the file untouched; a PNG
    drawn before is replaced."""
    pytest.importorskip("matplotlib")
    corpora = Path(__file__).resolve().parents[2] / "corpora"
    weather = corpora / "weather.nominal.arff"
    model = tmp_path / "w.tnb"
    assert run("train", weather, "-o", model)[0] == 0
    notes = tmp_path / "notes.txt"
    notes.write_text("keep me\n")
    named_png = tmp_path / "notes.png"  # a text named as a picture
    named_png.write_text("keep me\n")
    before = model.read_bytes()
    for args, why in (
        (("evaluate", weather, "--cv", "2", "--plot", model), "cannot write a picture as '.tnb'"),
        (("evaluate", weather, "--cv", "2", "--plot", notes), "cannot write a picture as '.txt'"),
        (("inspect", model, "--plot", notes), "cannot write a picture as '.txt'"),
        (("evaluate", weather, "--cv", "2", "--plot", named_png), "exists and is not a picture"),
        (("inspect", model, "--plot", named_png), "exists and is not a picture"),
    ):
        code, out, err = run(*args)
        assert code != 0 and out == ""
        assert err.count("\n") == 1 and why in err and str(args[-1]) in err
    assert model.read_bytes() == before and notes.read_text() == "keep me\n" == named_png.read_text()
    png = tmp_path / "e.png"
    png.write_bytes(b"")  # an empty file may be replaced
    assert run("evaluate", weather, "--cv", "2", "--plot", png)[0] == 0
    first = png.read_bytes()
    assert first[:8] == b"\x89PNG\r\n\x1a\n"
    assert run("evaluate", weather, "--cv", "3", "--plot", png)[0] == 0  # a PNG is replaced


@pytest.mark.parametrize("suffix, head", quick_first([(".svg", b"<?xml"), (".png", b"\x89PNG"), (".pdf", b"%PDF-"),
                                                      (".jpg", b"\xff\xd8\xff"), (".JPEG", b"\xff\xd8\xff")],
                                                     keep=1, unpack=True))  # (PNG, the default: the other plot tests)
def test_plot_is_written_in_the_format_its_name_says(tmp_path, suffix, head):
    """``--plot x.jpg`` wrote a PNG's bytes under a .jpg name (and .svg, .pdf alike): the
    format now follows the suffix, for evaluate, inspect and a network's structure; a
    suffix matplotlib cannot write is one line before any work."""
    pytest.importorskip("matplotlib")
    weather = Path(__file__).resolve().parents[2] / "corpora" / "weather.nominal.arff"
    out = tmp_path / f"e{suffix}"
    assert run("evaluate", weather, "--cv", "2", "--plot", out)[0] == 0
    assert out.read_bytes().startswith(head)
    assert run("evaluate", weather, "--cv", "2", "--plot", out)[0] == 0  # its own picture is replaced
    model = tmp_path / "tan.tnb"
    assert run("train", weather, "--model", "tan", "-o", model)[0] == 0
    out.unlink()
    assert run("inspect", model, "--plot", out)[0] == 0
    assert out.read_bytes().startswith(head)
    code, _, err = run("inspect", model, "--plot", tmp_path / "e.gif")
    assert code == 1 and err.count("\n") == 1 and "cannot write a picture as '.gif'" in err


def test_evaluate_with_separate_test_and_split_folders(tmp_path):
    for split in ("train", "test"):
        for label, words in (("a", "apple apricot"), ("b", "banana blueberry")):
            d = tmp_path / "c" / split / label
            d.mkdir(parents=True)
            for i in range(4):
                (d / f"{i}.txt").write_text(f"{words} {i}")
    code, out, _ = run("evaluate", tmp_path / "c", "--json")
    report = json.loads(out)
    assert code == 0 and report["protocol"] == "train/test" and report["accuracy"] == 1.0 and report["n"] == 8


def test_inspect_lists_informative_terms(sms_model):
    code, out, _ = run("inspect", sms_model, "--top", "3")
    assert code == 0 and "vocabulary: 14993 terms (words and word bigrams" in out and "spam: claim" in out
    info = json.loads(run("inspect", sms_model, "--json")[1])
    assert len(info["informative_terms"]["spam"]) == 10


def test_merge_command(tmp_path):
    for part, words in (("p1", "alpha beta"), ("p2", "gamma delta")):
        for label in ("x", "y"):
            d = tmp_path / part / label
            d.mkdir(parents=True)
            (d / "1").write_text(f"{words} {label}word")
        assert run("train", tmp_path / part, "-o", tmp_path / f"{part}.tnb")[0] == 0
    code, out, _ = run("merge", tmp_path / "p1.tnb", tmp_path / "p2.tnb", "-o", tmp_path / "all.tnb")
    assert code == 0
    info = json.loads(run("inspect", tmp_path / "all.tnb", "--json")[1])
    assert info["class_count"] == [2.0, 2.0] and info["classes"] == ["x", "y"] and info["vocabulary_size"] == 6


@pytest.mark.parametrize("setup, message", [
    (lambda p: None, "no such file or folder"),
    (lambda p: (p / "a").mkdir(parents=True), "empty corpus"),
    (lambda p: ((p / "a").mkdir(parents=True), (p / "a" / "1").write_text("x")), "only one class"),
])
def test_bad_corpora_give_one_line_errors(tmp_path, setup, message):
    corpus = tmp_path / "corpus"
    setup(corpus)
    code, out, err = run("train", corpus, "-o", tmp_path / "m.tnb")
    assert code == 1 and message in err and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "m.tnb").exists()


def test_truncated_model_is_a_one_line_error(sms_model, tmp_path):
    bad = tmp_path / "bad.tnb"
    bad.write_bytes(sms_model.read_bytes()[:1000])
    code, _, err = run("predict", bad, "-", stdin=io.StringIO("x"))
    assert code == 1 and err.startswith(f"textnb: error: {bad}:") and err.count("\n") == 1


def test_existing_model_survives_a_failed_train(sms_model, tmp_path):
    before = sms_model.read_bytes()
    (tmp_path / "one" / "a").mkdir(parents=True)
    (tmp_path / "one" / "a" / "1").write_text("x")
    assert run("train", tmp_path / "one", "-o", sms_model)[0] == 1
    assert sms_model.read_bytes() == before


def test_console_script_entry_point(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "textnb", "--version"], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.startswith("textnb ")


# ---------------------------------------------------------------- tables through the CLI
WEATHER_NOMINAL = Path(__file__).resolve().parents[2] / "corpora" / "weather.nominal.arff"
WEATHER_NUMERIC = Path(__file__).resolve().parents[2] / "corpora" / "weather.numeric.arff"
WEATHER_QUERY = Path(__file__).resolve().parents[2] / "corpora" / "weather.query.arff"


def test_weather_textbook_example_through_the_cli(tmp_path):
    model = tmp_path / "w.tnb"
    code, out, err = run("train", WEATHER_NOMINAL, "--alpha", "0", "-o", model)
    assert code == 0, err
    code, out, _ = run("predict", model, WEATHER_QUERY, "--proba", "--json")
    rec = json.loads(out)
    assert rec["label"] == "no"
    assert round(rec["proba"]["yes"], 3) == 0.205
    assert set(rec) == {"source", "label", "proba", "log_odds"}


def test_table_evaluate_and_inspect(tmp_path):
    code, out, _ = run("evaluate", WEATHER_NUMERIC, "--cv", "5", "--numeric", "mdl", "--json")
    assert code == 0 and json.loads(out)["n"] == 14
    model = tmp_path / "n.tnb"
    assert run("train", WEATHER_NUMERIC, "-o", model, "--numeric", "kde")[0] == 0
    code, out, _ = run("inspect", model)
    assert code == 0 and "temperature" in out
    info = json.loads(run("inspect", model, "--json")[1])
    assert info["classes"] == ["yes", "no"]  # the ARFF header's order (@attribute play {yes, no})


def test_table_bad_input(tmp_path):
    code, _, err = run("train", WEATHER_NOMINAL, "--class", "nope", "-o", tmp_path / "x.tnb")
    assert code == 1 and "no attribute named 'nope'" in err and err.count("\n") == 1
    bad = tmp_path / "bad.arff"
    bad.write_text("@relation r\n@attribute a numeric\n@attribute c {x,y}\n@data\n1,x\nfoo,y\n")
    code, _, err = run("train", bad, "-o", tmp_path / "x.tnb")
    assert code == 1 and "bad.arff:6" in err
    code, _, err = run("evaluate", WEATHER_NUMERIC, "--cv", "10")  # 10 folds, but the largest class has 9 rows
    assert code == 1 and "use a smaller --cv" in err


@pytest.mark.parametrize("kind", ["table", "corpus"])
def test_evaluate_of_one_object_per_class_suggests_a_test_file_not_a_smaller_cv(tmp_path, kind):
    """Every class of one object (a table, a text corpus): no number of folds works, so the
    error says cross-validation cannot run and names --test (before, without any --cv given:
    "no class has 2 objects, so there cannot be 2 folds; use a smaller --cv")."""
    if kind == "table":
        path = tmp_path / "two.csv"
        path.write_text("a,class\nx,p\ny,q\n")
    else:
        path = tmp_path / "corpus"
        for label, text in [("p", "hello there"), ("q", "good bye")]:
            (path / label).mkdir(parents=True)
            (path / label / "1.txt").write_text(text)
    for cv in ([], ["--cv", "2"]):
        code, _, err = run("evaluate", path, *cv)
        assert code == 1 and err.strip().splitlines() == [
            f"textnb: error: {path}: every class has one object, so cross-validation cannot run; evaluate on a test "
            "file with --test FILE"], err
    code, out, err = run("evaluate", path, "--test", path)
    assert code == 0 and "accuracy" in out, err


def test_apnbc_through_the_cli(tmp_path, sms_tsv):
    model = tmp_path / "a.tnb"
    assert run("train", sms_tsv, "--adjust", "--significance", "1", "-o", model)[0] == 0
    code, out, _ = run("inspect", model, "--json")
    info = json.loads(out)
    assert info["model"] == "APNBC" and set(info["apnbc_weights"]) == {"ham", "spam"}
    assert info["apnbc_weights"]["ham"]["weight"] == 1.0  # two classes: one weight, on classes_[1]
    code, out, _ = run("evaluate", WEATHER_NUMERIC, "--cv", "3", "--numeric", "equal-frequency", "--bins", "3",
                       "--nominal", "eq4", "--adjust", "--adjust-on", "cv", "--json")
    assert code == 0 and json.loads(out)["n"] == 14
    table_model = tmp_path / "w.tnb"
    assert run("train", WEATHER_NOMINAL, "--adjust", "-o", table_model)[0] == 0
    code, out, _ = run("predict", table_model, WEATHER_QUERY, "--json")
    assert code == 0 and json.loads(out)["label"] in ("yes", "no")
    code, _, err = run("train", sms_tsv, "--significance", "0.5", "-o", tmp_path / "x.tnb")
    assert code == 1 and "go with --adjust" in err
    assert run("train", sms_tsv, "--adjust", "--significance", "0", "-o", tmp_path / "x.tnb")[0] == 2


def test_tan_and_bayes_net_through_the_cli(tmp_path):
    tan = tmp_path / "tan.tnb"
    assert run("train", WEATHER_NUMERIC, "--model", "tan", "-o", tan)[0] == 0
    png = tmp_path / "tree.png"
    code, out, _ = run("inspect", tan, "--plot", png)
    assert code == 0 and "TAN tree" in out and png.read_bytes()[:4] == b"\x89PNG"
    code, out, _ = run("predict", tan, WEATHER_NUMERIC, "--json", "--proba")
    assert code == 0 and len(out.splitlines()) == 14
    structure = tmp_path / "s.json"
    structure.write_text(json.dumps({"parents": {"humidity": ["play", "outlook"]}}))
    code, out, _ = run("evaluate", WEATHER_NOMINAL, "--model", "bn", "--structure", structure, "--cv", "3", "--json")
    assert code == 0 and json.loads(out)["n"] == 14
    structure.write_text(json.dumps({"parents": {"humidity": ["windy"], "windy": ["humidity"]}}))
    code, _, err = run("train", WEATHER_NOMINAL, "--model", "bn", "--structure", structure, "-o", tmp_path / "x")
    assert code == 1 and err.startswith(f"textnb: error: {structure}:") and "cycle" in err
    code, _, err = run("train", WEATHER_NOMINAL, "--model", "bn", "-o", tmp_path / "x")
    assert code == 1 and "needs --structure" in err
    code, _, err = run("train", WEATHER_NOMINAL, "--model", "multinomial", "-o", tmp_path / "x")
    assert code == 1 and "for documents" in err


def test_lazy_rules_through_the_cli(tmp_path, sms_tsv):
    model = tmp_path / "l.tnb"
    code, out, _ = run("train", WEATHER_NUMERIC, "--lazy", "lbr", "-o", model)
    assert code == 0 and "LBR on mdl-discretised attributes" in out
    code, out, _ = run("predict", model, WEATHER_NUMERIC, "--explain", "--json")
    recs = [json.loads(line) for line in out.splitlines()]
    assert len(recs) == 14 and all("-> local NB on" in r["explanation"] for r in recs)
    code, out, _ = run("evaluate", WEATHER_NOMINAL, "--cv", "3", "--lazy", "hlbr", "--adjust", "--json")
    assert code == 0 and json.loads(out)["n"] == 14
    code, _, err = run("train", WEATHER_NUMERIC, "--lazy", "lbr", "--numeric", "gaussian", "-o", tmp_path / "x")
    assert code == 1 and "nominal attributes" in err
    text_model = tmp_path / "t.tnb"
    assert run("train", sms_tsv, "--lazy", "hlbr", "-o", text_model)[0] == 0
    code, out, _ = run("predict", text_model, "-", "--explain", "--json", stdin=io.StringIO("free prize, call now"))
    assert code == 0 and "local NB on" in json.loads(out)["explanation"]
    plain = tmp_path / "p.tnb"
    assert run("train", WEATHER_NOMINAL, "-o", plain)[0] == 0
    code, out, err = run("predict", plain, WEATHER_NOMINAL, "--explain")  # a plain table model: per attribute
    assert code == 0 and "outlook=" in out.splitlines()[0], err


def test_text_accuracy_options_through_the_cli(tmp_path, sms_tsv, capsys):
    model = tmp_path / "c.tnb"
    assert run("train", sms_tsv, "--model", "complement", "-o", model)[0] == 0
    assert json.loads(run("inspect", model, "--json")[1])["model"] == "ComplementNB"
    calibrated = tmp_path / "cal.tnb"
    code, out, _ = run("train", sms_tsv, "--weighting", "--select", "chi2:2000", "--calibrate", "sigmoid",
                       "-o", calibrated)
    assert code == 0
    code, out, _ = run("predict", calibrated, "-", "--proba", "--json", "--explain", "--top", "2",
                       stdin=io.StringIO("WINNER claim your free prize now"))
    rec = json.loads(out)
    assert rec["label"] == "spam" and 0.5 < rec["proba"]["spam"] < 1
    assert rec["explanation"]["predicted"] == "spam" and len(rec["explanation"]["for"]) <= 2
    code, out, _ = run("evaluate", sms_tsv, "--model", "auto", "--cv", "3", "--json")
    assert code == 0 and json.loads(out)["accuracy"] > 0.97
    capsys.readouterr()
    code, _, _ = run("train", sms_tsv, "--select", "chi9:10", "-o", tmp_path / "x")
    assert code == 2 and "--select" in capsys.readouterr().err  # a usage error, found when the arguments are parsed
    code, _, err = run("train", sms_tsv, "--weighting", "--adjust", "-o", tmp_path / "x")
    assert code == 1 and "--adjust does not go with" in err
    plain = tmp_path / "p.tnb"
    assert run("train", sms_tsv, "-o", plain)[0] == 0
    # (three words alone are ham to the default model: its residual layer's bias, against which
    # an SMS's terms weigh, favours ham by 5.4: spam messages are long)
    code, out, _ = run("predict", plain, "-", "--explain", "--top", "3",
                       stdin=io.StringIO("Call now to claim your free prize"))
    assert code == 0 and "vs ham by" in out and "prize +" in out


def test_multilabel_evaluate(tmp_path):
    import random

    rng = random.Random(0)
    words = {"sports": "goal match team score", "politics": "vote election senate law", "tech": "computer chip code"}
    for i in range(40):
        labs = rng.sample(sorted(words), rng.choice([1, 2]))
        text = " ".join(rng.choice(words[lab].split()) for lab in labs for _ in range(6))
        for lab in labs:
            (tmp_path / "c" / lab).mkdir(parents=True, exist_ok=True)
            (tmp_path / "c" / lab / f"d{i}.txt").write_text(text)
    code, out, _ = run("evaluate", tmp_path / "c", "--multilabel", "--cv", "4", "--json")
    report = json.loads(out)
    assert code == 0 and report["n"] == 40
    for key in ("micro_f1", "macro_f1", "micro_bep", "macro_bep", "per_label"):
        assert key in report
    assert report["micro_f1"] > 0.9


@pytest.mark.slow
def test_a_pipe_or_a_file_without_extension_is_read_by_its_content(tmp_path):
    """``textnb train /dev/stdin`` (a pipe) and a file without an extension: a table was
    ``unknown table format (expected .arff, .csv, .tsv or .txt)``, a piped fastText file
    too (its first line was never looked at); now the content says the format (fastText
    ``__label__`` lines, ARFF ``@relation``, else CSV/TSV), the pipe read once."""
    repo = Path(__file__).resolve().parents[2]
    env = dict(__import__("os").environ, PYTHONPATH=str(repo), OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    table = "colour,size,class\nred,1,yes\nblue,2,no\nred,1.5,yes\nblue,2.5,no\n"
    arff = "% weather\n@relation r\n@attribute a {x,y}\n@attribute c {p,q}\n@data\nx,p\ny,q\nx,p\ny,q\n"
    fasttext = "__label__a cheap pills\n__label__b lunch now\n__label__a cheap win\n__label__b noon lunch\n"
    corpus = "spam\tcheap pills now\nham\tlunch at noon\nspam\twin a prize\nham\tsee you soon\n"

    def textnb(*args, stdin):
        proc = subprocess.run([sys.executable, "-m", "textnb", *map(str, args)], input=stdin, capture_output=True,
                              text=True, env=env, cwd=tmp_path, timeout=120)
        return proc.returncode, proc.stdout, proc.stderr

    for name, text, read in (("t", table, "read 4 rows"), ("a", arff, "read 4 rows"),
                             ("f", fasttext, "read 4 documents"), ("c", corpus, "read 4 documents")):
        rc, out, err = textnb("train", "/dev/stdin", "-o", tmp_path / f"{name}.tnb", stdin=text)
        assert rc == 0 and f"{read} from /dev/stdin" in out, (name, out, err)
        (tmp_path / name).write_text(text)  # the same content in a file named without an extension
        rc, out, err = run("train", tmp_path / name, "-o", tmp_path / f"{name}2.tnb")
        assert rc == 0 and f"{read} from {tmp_path / name}" in out, (name, out, err)
    # a table model's query, and a text model's test file, piped
    rc, out, err = textnb("predict", tmp_path / "t.tnb", "/dev/stdin", stdin=table)
    assert rc == 0 and out.splitlines()[0] == "/dev/stdin:1\tyes", (out, err)
    rc, out, err = textnb("evaluate", tmp_path / "c", "--test", "/dev/stdin", "--json", stdin=corpus)
    assert rc == 0 and json.loads(out)["n"] == 4, (out, err)
    # a text model's document, piped: one document, as `-` reads it (was 'not a regular file')
    rc, out, err = textnb("predict", tmp_path / "c.tnb", "/dev/stdin", stdin="win a prize\n")
    rc_dash, out_dash, _ = textnb("predict", tmp_path / "c.tnb", "-", stdin="win a prize\n")
    assert rc == 0 == rc_dash and out.split("\t")[1:] == out_dash.split("\t")[1:] and out.startswith("/dev/stdin\t"), \
        (out, err)


@pytest.mark.parametrize("model_args", [[], ["--model", "aode"], ["--lazy", "lbr"]])
def test_table_model_predicts_a_table_on_standard_input(tmp_path, model_args):
    # `predict MODEL -` (or no PATH: stdin, as --help says) was refused for a table model
    # ("a table model needs a table file"), though `/dev/stdin` fed by a pipe was read
    weather = Path(__file__).resolve().parents[2] / "corpora" / "weather.nominal.arff"
    model = tmp_path / "w.tnb"
    assert run("train", weather, "-o", model, *model_args)[0] == 0
    code, want, _ = run("predict", model, weather, "--proba")
    assert code == 0
    text = weather.read_bytes()
    csv = b"outlook,temperature,humidity,windy,play\nsunny,hot,high,FALSE,no\nrainy,cool,normal,TRUE,no\n"
    for argv in (["-"], []):
        code, out, err = run("predict", model, *argv, "--proba", stdin=io.TextIOWrapper(io.BytesIO(text)))
        assert code == 0, err
        # (named stdin, as predict names standard input given as text rows or lines)
        assert out == want.replace(f"{weather}:", "stdin:")
        assert "stdin: accuracy" in err
    code, out, err = run("predict", model, "-", stdin=io.TextIOWrapper(io.BytesIO(csv)))
    assert code == 0, err
    assert [line.split("\t")[0] for line in out.splitlines()] == ["stdin:1", "stdin:2"]
    code, _, err = run("predict", model, "-", "-", stdin=io.TextIOWrapper(io.BytesIO(csv)))
    assert code == 1 and len(err.strip().splitlines()) == 1


def test_inspect_of_a_selected_model_says_how_many_terms_it_uses(tmp_path, sms_tsv):
    """``--select chi2:50``: inspect said 'vocabulary: N terms' of the whole vocabulary, as if
    the model used them all; it now says how many are selected for the model, in the text
    view and in --json (``selected_terms``), from the file's nodes and from the estimator."""
    model = tmp_path / "s.tnb"
    assert run("train", sms_tsv, "--weighting", "--select", "chi2:50", "-o", model)[0] == 0
    code, out, _ = run("inspect", model)
    assert code == 0 and "terms (50 selected for the model)" in out
    info = json.loads(run("inspect", model, "--json")[1])
    assert info["selected_terms"] == 50 and info["vocabulary_size"] > 50
    from textnb.core.model_io import load
    from textnb.evaluation.explain import describe_text_classifier

    assert describe_text_classifier(load(model))["selected_terms"] == 50
    plain = tmp_path / "p.tnb"
    assert run("train", sms_tsv, "-o", plain)[0] == 0
    assert "selected_terms" not in json.loads(run("inspect", plain, "--json")[1])


@pytest.mark.parametrize("method", ["sigmoid", "isotonic"])
def test_inspect_says_how_a_calibrated_model_is_calibrated(tmp_path, sms_tsv, method):
    """inspect of a --calibrate text model showed only the temperature of the model inside,
    as if it gave predict's probabilities, and never said sigmoid or isotonic; nor did a
    calibrated table model's."""
    model = tmp_path / "c.tnb"
    assert run("train", sms_tsv, "--calibrate", method, "-o", model)[0] == 0
    code, out, _ = run("inspect", model, "--top", "2")
    assert code == 0
    assert f"calibration: {method}, fitted on out-of-fold log-odds" in out
    assert "before calibration" in out  # the temperature is the inner model's
    info = json.loads(run("inspect", model, "--json")[1])
    assert info["calibration"] == method and info["model"] == "CalibratedNB"
    from textnb.core.model_io import load
    from textnb.evaluation.explain import describe_text_classifier

    assert describe_text_classifier(load(model))["calibration"] == method  # the estimator path alike
    table = tmp_path / "t.tnb"
    assert run("train", WEATHER_NUMERIC, "--calibrate", method, "-o", table)[0] == 0
    code, out, _ = run("inspect", table)
    assert code == 0 and f"calibration: {method}, fitted on out-of-fold log-odds" in out
    assert json.loads(run("inspect", table, "--json")[1])["calibration"] == method
    assert run("train", WEATHER_NUMERIC, "--model", "tan", "--calibrate", method, "-o", table)[0] == 0
    code, out, _ = run("inspect", table)
    assert code == 0 and f"calibration: {method}, fitted on out-of-fold log-odds" in out
    assert json.loads(run("inspect", table, "--json")[1])["calibration"] == method


@pytest.mark.parametrize("classes", [2, 3])
def test_evaluate_plot_keeps_long_class_names_inside_the_picture(tmp_path, monkeypatch, classes):
    """A class name of 67 characters was cut by the PNG's edge in the confusion matrix
    ('...al_politics_and_trade' on the left, '...nd_trade' at the bottom) and in the ROC
    axis titles; inspect --plot cut a class title at 40 characters without a sign. Names
    over 30 characters are now shortened with an ellipsis."""
    pytest.importorskip("matplotlib")
    from textnb.evaluation import plots

    long = "a_rather_long_category_name_about_international_politics_and_trade"
    names = [long, "sports", "x"][:classes]
    lines = ["label\ttext"] + [f"{names[i % classes]}\tw{i % classes} w{i % classes}b filler{i % 7}"
                               for i in range(60)]
    corpus = tmp_path / "long.tsv"
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    figures = []
    monkeypatch.setattr(plots, "_save", lambda fig, path, dpi=110: figures.append(fig))
    monkeypatch.setattr(plots.pyplot(), "close", lambda fig=None: None)
    code, _, err = run("evaluate", corpus, "--cv", "3", "--plot", tmp_path / "e.png")
    assert code == 0, err
    (fig,) = figures
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    texts = [t for ax in fig.axes for t in ax.get_xticklabels() + ax.get_yticklabels()
             + [ax.xaxis.label, ax.yaxis.label, ax.title] if t.get_text()]
    assert any(t.get_text() == long[:29] + "\u2026" for t in texts)
    frame = fig.bbox
    outside = [t.get_text() for t in texts if not (frame.x0 <= t.get_window_extent(renderer).x0
                                                   and t.get_window_extent(renderer).x1 <= frame.x1 + 0.5
                                                   and frame.y0 <= t.get_window_extent(renderer).y0)]
    assert not outside
    if classes == 3:
        return
    assert run("train", corpus, "-o", tmp_path / "m.tnb")[0] == 0
    figures.clear()
    assert run("inspect", tmp_path / "m.tnb", "--plot", tmp_path / "i.png")[0] == 0
    (fig,) = figures
    assert long[:39] + "\u2026" in [ax.get_title() for ax in fig.axes]


def test_evaluate_plot_writes_the_confusion_cells_as_the_text_report(tmp_path, monkeypatch):
    """With --repeat the plot's cells are the mean counts written as the text report writes
    them (4.3), not '4.333333333333333'."""
    pytest.importorskip("matplotlib")
    from textnb.evaluation import plots

    figures = []
    monkeypatch.setattr(plots, "_save", lambda fig, path, dpi=110: figures.append(fig))
    monkeypatch.setattr(plots.pyplot(), "close", lambda fig=None: None)
    code, out, err = run("evaluate", WEATHER_NUMERIC, "--cv", "3", "--repeat", "3", "--plot", tmp_path / "e.png")
    assert code == 0, err
    rows = out.split("confusion matrix (rows: true")[1].splitlines()[2:4]
    text_cells = [cell for row in rows for cell in row.split()[2:]]
    (fig,) = figures
    plot_cells = [t.get_text() for t in fig.axes[0].texts]
    assert plot_cells == text_cells and any(len(c) == 3 and c[1] == "." for c in plot_cells), (plot_cells, text_cells)


def test_an_informative_terms_plot_is_bounded_whatever_top(tmp_path):
    """Found by a user trial: `inspect --top 100000 --plot` drew every term, a picture
    244,084 pixels high (94 s, 1.5 GB) that no viewer opens. At most 50 terms a class are
    drawn; the listing keeps --top."""
    import struct

    from conftest import SMS_TSV

    model = tmp_path / "m.tnb"
    assert run("train", SMS_TSV, "--model", "multinomial", "-o", model)[0] == 0
    sizes = []
    for top in ("50", "100000"):
        rc, out, err = run("inspect", model, "--top", top, "--plot", tmp_path / f"{top}.png")
        assert rc == 0, err
        head = (tmp_path / f"{top}.png").read_bytes()[:24]
        sizes.append(struct.unpack(">II", head[16:24]))
    assert sizes[0] == sizes[1] and sizes[1][1] < 3000
