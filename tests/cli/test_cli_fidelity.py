"""CLI frictions of a new user's first hour (issue 19): --ignore, usage errors."""

import io
import json
import re

import numpy as np
import pytest

from textnb.cli import main


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = main(list(map(str, argv)), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def tables(tmp_path):
    train = tmp_path / "t.csv"
    # the id column alone would separate the classes of the query rows wrongly
    train.write_text("id,colour,size,cls\nq2,red,1.0,a\nr2,red,1.2,a\nr3,green,3.0,b\n"
                     "q1,green,3.3,b\nr5,red,0.8,a\nr6,green,2.9,b\n")
    query = tmp_path / "q.csv"
    query.write_text("id,colour,size\nq1,red,1.1\nq2,green,3.1\n")
    return train, query, tmp_path


def test_ignore_drops_attributes_in_train_predict_evaluate(tables):
    train, query, tmp = tables
    model = tmp / "m.tnb"
    code, out, err = run("train", train, "--ignore", "id", "-o", model)
    assert code == 0, err
    assert "attributes: 2" in out
    code, out, _ = run("inspect", model)
    assert "colour [" in out and "id [" not in out
    code, out, err = run("predict", model, query, "--ignore", "id")
    assert code == 0, err
    assert [line.split("\t")[1] for line in out.splitlines()] == ["a", "b"]
    code, out, err = run("evaluate", train, "--ignore", "id,colour", "--cv", "2", "--json")
    assert code == 0, err
    code, _, err = run("train", train, "--ignore", "nosuch", "-o", model)
    assert code == 1 and "nosuch" in err and len(err.strip().splitlines()) == 1


def test_ignore_leaves_out_an_attribute_whose_name_has_a_comma(tmp_path):
    # ARFF and CSV names may hold commas; --ignore split every value at its commas, so
    # such an attribute could not be left out: quoted as ARFF quotes it, it can
    arff = tmp_path / "t.arff"
    arff.write_text("@relation r\n@attribute 'temp, F' numeric\n@attribute \"O'Brien\" {p,q}\n"
                    "@attribute id numeric\n@attribute c {x,y}\n@data\n"
                    "85,p,1,x\n80,p,2,x\n70,q,3,y\n65,q,4,y\n")
    csv = tmp_path / "t.csv"
    csv.write_text('"temp, F",O\'Brien,id,c\n85,p,1,x\n80,p,2,x\n70,q,3,y\n65,q,4,y\n')
    for path in (arff, csv):
        for value in ("id,'temp, F'", 'id, "temp, F"'):
            code, out, err = run("train", path, "--ignore", value, "-o", tmp_path / "m.tnb")
            assert code == 0, err
            assert "attributes: 1 (1 nominal, 0 numeric)" in out
        code, out, err = run("evaluate", path, "--ignore", "'temp, F'", "--ignore", "O'Brien", "--cv", "2")
        assert code == 0, err
    code, _, err = run("train", arff, "--ignore", "temp, F", "-o", tmp_path / "m.tnb")
    assert code == 1 and "no attributes named 'temp', 'F' to leave out (--ignore)" in err


def test_evaluate_test_file_need_not_have_the_ignored_columns(tables):
    # train --ignore id then predict on a file without id works; evaluate --test with the
    # same --ignore refused that file: "no attribute named 'id' to leave out"
    train, _, tmp = tables
    test = tmp / "test.csv"
    test.write_text("colour,size,cls\nred,1.1,a\ngreen,3.1,b\ngreen,2.5,b\n")
    with_id = tmp / "test_id.csv"
    with_id.write_text("id,colour,size,cls\nz1,red,1.1,a\nz2,green,3.1,b\nz3,green,2.5,b\n")
    reports = []
    for path in (test, with_id):
        code, out, err = run("evaluate", train, "--test", path, "--ignore", "id", "--json")
        assert code == 0, err
        reports.append(json.loads(out))
    assert reports[0]["accuracy"] == reports[1]["accuracy"] == 1.0
    assert reports[0]["confusion_matrix"] == reports[1]["confusion_matrix"]
    code, out, err = run("train", train, "--ignore", "id", "-o", tmp / "m.tnb")
    code, out, err = run("predict", tmp / "m.tnb", test)
    assert code == 0, err
    assert [line.split("\t")[1] for line in out.splitlines()[:3]] == ["a", "b", "b"]


def test_subcommand_usage_errors_suggest(tables, capsys):
    train, _, _ = tables

    def run(*argv):  # argparse writes usage errors to sys.stderr
        code = main(list(map(str, argv)), stdout=io.StringIO(), stderr=io.StringIO())
        return code, "", capsys.readouterr().err
    code, _, err = run("train", train, "--modle", "nb")
    assert code == 2
    assert err.startswith("textnb train: error: unrecognized arguments: --modle")
    assert "did you mean: --modle -> --model" in err
    assert len(err.strip().splitlines()) == 2  # not the whole usage
    code, _, err = run("train", train, "--model", "tann")
    assert code == 2 and "did you mean 'tan'?" in err and len(err.strip().splitlines()) == 2
    code, _, err = run("trian", train)
    assert code == 2 and "did you mean 'train'?" in err
    code, _, err = run("predict", "m.tnb", "--probaa")
    assert code == 2 and err.startswith("textnb predict: error:") and "--proba" in err


@pytest.fixture
def text_model(tmp_path):
    for label, docs in {"spam": ["cheap pills now buy", "free prize winner cheap"],
                        "ham": ["meeting at noon", "lunch with the team"],
                        "other": ["weather rain cold", "snow cold wind"]}.items():
        (tmp_path / "c" / label).mkdir(parents=True)
        for i, d in enumerate(docs):
            (tmp_path / "c" / label / str(i)).write_text(d)
    model = tmp_path / "c.tnb"
    assert run("train", tmp_path / "c", "-o", model)[0] == 0
    lines = tmp_path / "lines.txt"
    lines.write_text("cheap pills\nmeeting noon lunch\n\ncold snow\n")
    return model, lines


def test_predict_lines_in_order(text_model):
    model, lines = text_model
    code, out, err = run("predict", model, "--lines", lines)
    assert code == 0, err
    rows = [line.split("\t") for line in out.splitlines()]
    assert [r[0] for r in rows] == [f"{lines}:{i}" for i in (1, 2, 3, 4)]
    assert [rows[0][1], rows[1][1], rows[3][1]] == ["spam", "ham", "other"]


def test_predict_lines_top_and_threshold(text_model):
    import json

    model, lines = text_model
    code, out, _ = run("predict", model, "--lines", lines, "--top", "2")
    rows = [line.split("\t") for line in out.splitlines()]
    assert all(len(r) == 3 for r in rows)
    probs = [[float(cell.split()[1]) for cell in r[1:]] for r in rows]
    assert all(p[0] >= p[1] for p in probs)
    code, out, _ = run("predict", model, "--lines", lines, "--threshold", "0.5", "--json")
    recs = [json.loads(line) for line in out.splitlines()]
    assert len(recs) == 4
    assert [r["labels"][0]["label"] for r in recs if r["labels"]] == ["spam", "ham", "other"]
    assert recs[2]["labels"] == []  # the empty line: every class at 1/3 < 0.5
    assert all(lab["proba"] >= 0.5 and "log_odds" in lab for r in recs for lab in r["labels"])


def test_predict_lines_bad_use(text_model, tables):
    model, lines = text_model
    code, _, err = run("predict", model, "--lines", lines.parent / "missing.txt")
    assert code == 1 and "missing.txt" in err and len(err.strip().splitlines()) == 1
    # --threshold on a document file ranks its labels as with --lines (it was refused there)
    code, by_file, err = run("predict", model, lines, "--threshold", "0.5")
    assert code == 0, err
    ranked = by_file.split("\t", 1)[1]
    assert ranked.strip() == "" or float(ranked.split(" ")[1]) >= 0.5


def test_inspect_shows_zero_probabilities_as_zero(tmp_path):
    import json

    data = tmp_path / "w.csv"
    data.write_text("outlook,windy,play\nsunny,t,no\nsunny,f,no\nrain,t,yes\novercast,f,yes\n")
    model = tmp_path / "w.tnb"
    assert run("train", data, "--class", "play", "--alpha", "0", "-o", model)[0] == 0
    code, out, _ = run("inspect", model)
    assert code == 0 and "e-308" not in out and re.search(r"\bsunny=0\b", out)
    info = json.loads(run("inspect", model, "--json")[1])
    probs = info["attributes"][0]["probabilities"]
    assert probs["yes"][info["attributes"][0]["values"].index("sunny")] == 0.0


# -- predict reads a TSV/CSV as rows, as train does ------------------------------------------
def test_predict_tsv_and_csv_are_read_as_rows(text_model, tmp_path):
    import json

    model, _ = text_model
    tsv = tmp_path / "q.tsv"
    tsv.write_text("label\ttext\nspam\tcheap pills now\nham\tmeeting lunch team\nother\tcold snow wind\n"
                   "ham\tfree prize cheap\n")
    code, out, err = run("predict", model, tsv)
    assert code == 0, err
    rows = [line.split("\t") for line in out.splitlines()]
    assert [r[0] for r in rows] == [f"{tsv}:{i}" for i in (1, 2, 3, 4)]  # one line per row, in order
    assert [r[1] for r in rows] == ["spam", "ham", "other", "spam"]
    assert f"{tsv}: accuracy 0.7500 (3 of 4 rows" in err and len(err.strip().splitlines()) == 1
    csv = tmp_path / "q.csv"  # a header naming only the text column: no labels, no accuracy
    csv.write_text('id,text\n7,"cold, snow"\n8,cheap pills\n')
    code, out, err = run("predict", model, csv, "--json")
    assert code == 0 and err == ""
    recs = [json.loads(line) for line in out.splitlines()]
    assert [(r["source"], r["label"]) for r in recs] == [(f"{csv}:1", "other"), (f"{csv}:2", "spam")]


def test_predict_rows_from_stdin_with_flag(text_model, monkeypatch):
    model, _ = text_model
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"spam\tcheap pills\nham\tlunch noon\n")))
    code, out, err = run("predict", model, "--rows")
    assert code == 0, err
    assert [line.split("\t")[:2] for line in out.splitlines()] == [["stdin:1", "spam"], ["stdin:2", "ham"]]
    assert "stdin: accuracy 1.0000" in err
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"spam\tcheap pills\nham\tlunch noon\n")))
    code, out, _ = run("predict", model)  # without --rows stdin stays one document
    assert code == 0 and len(out.splitlines()) == 1
    code, _, err = run("predict", model, "--rows", "--lines")
    assert code == 1 and "--rows" in err and len(err.strip().splitlines()) == 1


def test_predict_rows_of_the_sms_corpus_match_evaluate_style_accuracy(sms_tsv, tmp_path):
    """The SMS Spam Collection (headerless label<TAB>text): every row predicted, in order."""
    model = tmp_path / "sms.tnb"
    assert run("train", sms_tsv, "-o", model)[0] == 0
    code, out, err = run("predict", model, "--rows", sms_tsv)
    assert code == 0, err
    lines = out.splitlines()
    n_rows = sum(1 for line in open(sms_tsv, encoding="utf-8", errors="replace") if line.strip())
    assert len(lines) == n_rows and lines[-1].startswith(f"{sms_tsv}:{n_rows}\t")
    accuracy = float(err.split("accuracy ")[1].split()[0])
    assert accuracy > 0.97  # training accuracy of multinomial NB on SMS


# -- multi-label train / predict / inspect ---------------------------------------------------
@pytest.fixture
def multilabel_corpus(tmp_path):
    """Three topics; a third of the documents have two: the same file in two label folders,
    and the same documents flat with a label file."""
    import random

    rng = random.Random(0)
    vocab = {"grain": "wheat corn harvest bushel grain crop".split(),
             "oil": "crude barrel opec oil refinery".split(),
             "money": "dollar rate bank interest money yen".split()}
    noise = "the of and a to in said".split()
    lines = ["# docid<TAB>labels", ""]
    truth = {}
    for i in range(60):
        labs = sorted(rng.sample(sorted(vocab), 2 if i % 3 == 0 else 1))
        words = [rng.choice(vocab[lab]) for lab in labs for _ in range(6)] + rng.choices(noise, k=6)
        rng.shuffle(words)
        text = " ".join(words)
        for lab in labs:
            (tmp_path / "folders" / lab).mkdir(parents=True, exist_ok=True)
            (tmp_path / "folders" / lab / f"d{i:03d}.txt").write_text(text)
        (tmp_path / "flat").mkdir(exist_ok=True)
        (tmp_path / "flat" / f"d{i:03d}.txt").write_text(text)
        lines.append(f"d{i:03d}\t{','.join(labs)}")
        truth[f"d{i:03d}"] = tuple(labs)
    (tmp_path / "labels.tsv").write_text("\n".join(lines) + "\n")
    return tmp_path, truth


def test_evaluate_with_a_label_file_takes_a_fasttext_test_file_with_its_own_labels(multilabel_corpus):
    """Found by a user trial: ``evaluate FOLDER --labels FILE --test X.ft`` said 'X.ft: not a
    folder' (the label file was applied to the test file too); the fastText test file carries
    its own labels: the report is that of the same training documents given as a fastText file."""
    import json

    tmp, truth = multilabel_corpus
    names = sorted(truth)
    ft = lambda ids: "".join(" ".join(f"__label__{lab}" for lab in truth[i]) + " "  # noqa: E731
                             + (tmp / "flat" / f"{i}.txt").read_text() + "\n" for i in ids)
    (tmp / "train.ft").write_text(ft(names))
    (tmp / "test.ft").write_text(ft(names[:20]))
    code, out, err = run("evaluate", tmp / "flat", "--labels", tmp / "labels.tsv", "--test", tmp / "test.ft", "--json")
    assert code == 0, err
    code, same, err = run("evaluate", tmp / "train.ft", "--test", tmp / "test.ft", "--json")
    assert code == 0, err
    drop = ("seconds", "source")
    assert {k: v for k, v in json.loads(out).items() if k not in drop} == \
        {k: v for k, v in json.loads(same).items() if k not in drop}


def test_train_multilabel_folders_and_label_file_give_the_same_model(multilabel_corpus):
    import json

    from textnb.core.model_io import load

    tmp, truth = multilabel_corpus
    code, out, err = run("train", tmp / "folders", "--multilabel", "-o", tmp / "a.tnb", "--json")
    assert code == 0 and err == "", err
    summary = json.loads(out)
    assert summary["documents"] == 60  # a document in two folders is one document
    assert summary["per_label"] == {lab: sum(lab in v for v in truth.values()) for lab in ("grain", "money", "oil")}
    code, out, err = run("train", tmp / "flat", "--labels", tmp / "labels.tsv", "-o", tmp / "b.tnb")
    assert code == 0, err
    assert "read 60 documents" in out and "3 labels" in out
    a, b = load(tmp / "a.tnb"), load(tmp / "b.tnb")
    assert type(a[-1]).__name__ == "MultiLabelNB" and a[-1].multilabel_
    assert list(a[-1].classes_) == ["grain", "money", "oil"]
    np.testing.assert_allclose(a[-1].thresholds_, b[-1].thresholds_)


@pytest.mark.parametrize("flags", [[], ["--strategy", "rcut"], ["--strategy", "pcut", "--min-labels", "0"],
                                   ["--strategy", "scut", "--alpha", "0.5"]])
def test_multilabel_train_and_evaluate_without_scikit_learn_give_the_estimators_model_and_report(
        multilabel_corpus, flags):
    """The default model (copy over DiscriminativeNB) is fitted by
    textnb.meta.multilabel_training, without the estimators: the same model file, byte for
    byte, and the same report as the estimators'."""
    import json

    from sklearn.pipeline import Pipeline

    from textnb import Vectorizer
    from textnb.core.model_io import save
    from textnb.meta.multilabel import MultiLabelNB, evaluate_multilabel_split
    from textnb.naive_bayes.discriminative import DiscriminativeNB

    tmp, truth = multilabel_corpus
    assert run("train", tmp / "flat", "--labels", tmp / "labels.tsv", "-o", tmp / "cli.tnb", *flags)[0] == 0
    opts = dict(zip(flags[::2], flags[1::2]))
    ml = {"threshold": opts.get("--strategy", "scutfbr"), "min_labels": int(opts.get("--min-labels", 1))}
    base = DiscriminativeNB(**({"alpha": float(opts["--alpha"])} if "--alpha" in opts else {}))
    texts = [(tmp / "flat" / f"{d}.txt").read_text() for d in truth]
    pipeline = Pipeline([("vectorizer", Vectorizer()), ("model", MultiLabelNB(base, **ml))])
    save(pipeline.fit(texts, list(truth.values())), tmp / "lib.tnb")
    assert (tmp / "cli.tnb").read_bytes() == (tmp / "lib.tnb").read_bytes()
    # evaluate on a train/test split
    ids = list(truth)
    for part, chosen in (("train", ids[:40]), ("test", ids[40:])):
        (tmp / "split" / part).mkdir(parents=True)
        for d in chosen:
            (tmp / "split" / part / f"{d}.txt").write_text((tmp / "flat" / f"{d}.txt").read_text())
    code, out, err = run("evaluate", tmp / "split", "--labels", tmp / "labels.tsv", "--json", *flags)
    assert code == 0, err
    got = json.loads(out)
    vec = Vectorizer()
    want = evaluate_multilabel_split(vec.fit_transform(texts[:40]), [truth[d] for d in ids[:40]],
                                     vec.transform(texts[40:]), [truth[d] for d in ids[40:]],
                                     MultiLabelNB(base, **ml))
    assert {k: got[k] for k in want} == json.loads(json.dumps(want))


def test_multilabel_train_and_evaluate_import_no_scikit_learn(multilabel_corpus):
    import subprocess
    import sys

    tmp, _ = multilabel_corpus
    probe = ("import sys\nfrom textnb.cli.commands import main\n"
             f"rc = main(['train', {str(tmp / 'flat')!r}, '--labels', {str(tmp / 'labels.tsv')!r}, "
             f"'-o', {str(tmp / 'm.tnb')!r}])\n"
             f"rc += main(['evaluate', {str(tmp / 'flat')!r}, '--labels', {str(tmp / 'labels.tsv')!r}, "
             f"'--test', {str(tmp / 'flat')!r}])\n"
             "print(rc, sorted(m for m in sys.modules if m.split('.')[0] == 'sklearn'))\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "0 []"


@pytest.mark.parametrize("env, expected", [(None, "False"), ("1", "True")])
def test_the_command_line_gives_numpys_arrays_ordinary_pages_unless_the_user_chose(multilabel_corpus, env, expected):
    """textnb.core.workers.keep_freed_memory (the command line's process): numpy's large
    arrays without MADV_HUGEPAGE, unless NUMPY_MADVISE_HUGEPAGE says otherwise."""
    import os
    import subprocess
    import sys

    tmp, _ = multilabel_corpus
    code = ("import sys\nfrom textnb.cli import main\n"
            f"assert main(['train', {str(tmp / 'flat')!r}, '--labels', {str(tmp / 'labels.tsv')!r}, "
            f"'-o', {str(tmp / 'pages.tnb')!r}]) == 0\n"
            "try:\n    from numpy._core.multiarray import _set_madvise_hugepage\n"
            "except ImportError:\n    from numpy.core.multiarray import _set_madvise_hugepage\n"
            "print(_set_madvise_hugepage(True))\n")
    environ = {k: v for k, v in os.environ.items() if k != "NUMPY_MADVISE_HUGEPAGE"}
    if env is not None:
        environ["NUMPY_MADVISE_HUGEPAGE"] = env
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environ, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == expected


def test_predict_multilabel_prints_every_label_over_its_threshold(multilabel_corpus):
    import json

    tmp, _ = multilabel_corpus
    # one binary model per label (--method ovr): a document of two topics gets both; the
    # default copy model shares one probability among the labels (docs/multilabel.md)
    assert run("train", tmp / "folders", "--multilabel", "--method", "ovr", "-o", tmp / "m.tnb")[0] == 0
    q = tmp / "q"
    q.mkdir()
    (q / "1.txt").write_text("wheat corn harvest crude barrel opec the")
    (q / "2.txt").write_text("dollar bank yen rate of")
    code, out, err = run("predict", tmp / "m.tnb", q / "1.txt", q / "2.txt")
    assert code == 0, err
    rows = [line.split("\t") for line in out.splitlines()]
    assert [(r[0].rsplit("/", 1)[-1], set(r[1].split(","))) for r in rows] == \
        [("1.txt", {"grain", "oil"}), ("2.txt", {"money"})]
    code, out, _ = run("predict", tmp / "m.tnb", q / "1.txt", "--proba", "--json")
    rec = json.loads(out)
    assert set(rec["labels"]) == {"grain", "oil"} and set(rec["proba"]) == {"grain", "money", "oil"}
    assert rec["proba"]["money"] < 0.5 < rec["proba"]["oil"]
    code, out, _ = run("predict", tmp / "m.tnb", q / "1.txt", "--top", "1")  # label and probability
    assert len(out.strip().split("\t")) == 2 and 0.5 < float(out.strip().split("\t")[1].split(" ")[1]) <= 1
    lines = tmp / "lines.txt"
    lines.write_text("wheat corn crop\nyen bank oil crude\n")
    code, out, _ = run("predict", tmp / "m.tnb", "--lines", lines, "--threshold", "0.5")
    assert [{f.split(" ")[0] for f in line.split("\t")[1:]} for line in out.splitlines()] == [{"grain"}, {"money", "oil"}]
    code, out, _ = run("inspect", tmp / "m.tnb")
    assert code == 0 and "MultiLabelNB" in out and "grain: threshold" in out
    info = json.loads(run("inspect", tmp / "m.tnb", "--json")[1])
    assert info["labels"] == ["grain", "money", "oil"] and len(info["thresholds"]) == 3


def test_predict_multilabel_reads_tsv_rows_like_files(multilabel_corpus):
    """A TSV of documents given to a multi-label model: one line per row, PATH:ROW in row
    order, the labels those texts get as files; a missing TSV is a one-line error."""
    tmp, _ = multilabel_corpus
    # --method ovr: a document of two topics gets both (see the test above)
    assert run("train", tmp / "folders", "--multilabel", "--method", "ovr", "-o", tmp / "m.tnb")[0] == 0
    texts = ["wheat corn harvest crude barrel opec the", "dollar bank yen rate of", "grain wheat crop"]
    (tmp / "docs.tsv").write_text("label\ttext\n" + "".join(f"?\t{t}\n" for t in texts))
    code, out, err = run("predict", tmp / "m.tnb", tmp / "docs.tsv")
    assert code == 0, err
    rows = [line.split("\t") for line in out.splitlines()]
    assert [r[0] for r in rows] == [f"{tmp / 'docs.tsv'}:{i}" for i in (1, 2, 3)]
    q = tmp / "q2"
    q.mkdir()
    for i, t in enumerate(texts):
        (q / f"{i}.txt").write_text(t)
    code, out_files, err = run("predict", tmp / "m.tnb", *(q / f"{i}.txt" for i in range(3)))
    assert code == 0, err
    assert [r[1] for r in rows] == [line.split("\t")[1] for line in out_files.splitlines()]
    assert set(rows[0][1].split(",")) == {"grain", "oil"} and rows[1][1] == "money"
    code, out, err = run("predict", tmp / "m.tnb", tmp / "missing.tsv")
    assert code != 0 and err.count("\n") == 1 and "missing.tsv" in err and "Traceback" not in err


def test_multilabel_folder_without_the_flag_warns(multilabel_corpus):
    tmp, _ = multilabel_corpus
    code, _, err = run("train", tmp / "folders", "-o", tmp / "s.tnb")
    assert code == 0
    assert err.count("\n") == 1 and "warning" in err and "20 documents in several class folders" in err
    assert "--multilabel" in err
    code, _, err = run("evaluate", tmp / "folders", "--cv", "3")
    assert code == 0 and "20 documents in several class folders" in err
    code, _, err = run("train", tmp / "flat", "--labels", tmp / "labels.tsv", "-o", tmp / "f.tnb")
    assert code == 0 and err == ""


def test_multilabel_training_errors(multilabel_corpus):
    tmp, _ = multilabel_corpus
    bad = tmp / "bad.tsv"
    bad.write_text("d000 grain\n")
    code, _, err = run("train", tmp / "flat", "--labels", bad, "-o", tmp / "x.tnb")
    assert code == 1 and str(bad) in err and "no TAB" in err and err.count("\n") == 1
    assert not (tmp / "x.tnb").exists()
    code, _, err = run("train", tmp / "flat", "--labels", tmp / "labels.tsv", "--lazy", "lbr", "-o", tmp / "x.tnb")
    assert code == 1 and err.count("\n") == 1


# -- first-hour frictions -----------------------------------------------------------------
CLOCK = '''
import json, sys, time
import textnb.cli.train as c
from textnb.cli.commands import main
seen = []
real = time.perf_counter
def clock():
    if not seen:  # the modules loaded when train's clock starts
        seen.append(sorted(m for m in sys.modules if m.startswith(("sklearn", "textnb"))))
    return real()
c.time = type(sys)("clock")
c.time.perf_counter = clock
code = main(sys.argv[1:], stdout=open(__import__("os").devnull, "w"))
print(json.dumps({"code": code, "modules": seen[0]}))
'''


@pytest.mark.parametrize("extra, needed, absent", [
    ([], "textnb.text.training", "sklearn"),  # a plain count model: no scikit-learn at all
    (["--weighting"], "textnb.text.training", "sklearn"),  # a Pipeline fitted by the trainer: none either
    (["--model", "multinomial", "--adjust"], "textnb.semi_naive.apnbc_kernel", "sklearn"),  # APNBC: the trainer
])
@pytest.mark.slow
def test_train_seconds_start_after_the_imports(sms_tsv, tmp_path, extra, needed, absent):
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    r = subprocess.run([sys.executable, "-c", CLOCK, "train", str(sms_tsv), "-o", str(tmp_path / "m.tnb"), *extra],
                       capture_output=True, text=True, timeout=300, env=env)
    info = json.loads(r.stdout)
    assert info["code"] == 0, r.stderr
    assert needed in info["modules"]
    assert "textnb.core.model_io" in info["modules"] and "textnb.io.corpus" in info["modules"]
    if absent:
        assert not any(m.split(".")[0] == absent for m in info["modules"])


def test_a_class_of_binary_files_only_is_an_error(tmp_path):
    corpus = tmp_path / "c"
    (corpus / "text").mkdir(parents=True)
    (corpus / "blobs").mkdir()
    (corpus / "text" / "1.txt").write_text("hello world")
    (corpus / "text" / "2.txt").write_text("hello there")
    (corpus / "text" / "3.bin").write_bytes(b"x\0y")  # a binary file beside text: skipped, counted
    for i in range(3):
        (corpus / "blobs" / f"{i}.bin").write_bytes(b"\0\1\2" * 10)
    for argv in (["train", corpus, "-o", tmp_path / "m.tnb"], ["evaluate", corpus, "--cv", "2"]):
        code, out, err = run(*argv)
        assert code == 1 and err.count("\n") == 1, err
        assert f"{corpus / 'blobs'}: every file of class 'blobs' is binary (3 skipped)" in err
    assert not (tmp_path / "m.tnb").exists()
    (corpus / "blobs" / "ok.txt").write_text("some text")
    code, out, err = run("train", corpus, "-o", tmp_path / "m.tnb")
    assert code == 0 and "skipped 4 binary files" in out and "blobs 1, text 2" in out


def test_binary_files_are_left_out_of_the_counts_under_a_scheduler(tmp_path, monkeypatch):
    """README walk-through (session 22): under --scheduler the workers are sent absolute paths
    and name the binary files they skip so, while the summary matched them against the corpus's
    relative paths: `ham 7, spam 6` for 12 documents read, and a class of binary files only
    was learned (an empty class) instead of refused."""
    from contextlib import contextmanager

    import textnb.cli.train as train_cli
    from conftest import InProcessClient

    @contextmanager
    def scheduler(args):
        yield InProcessClient() if args.scheduler else None

    monkeypatch.setattr(train_cli, "scheduler", scheduler)
    monkeypatch.chdir(tmp_path)
    for label, text in (("ham", "lunch at noon"), ("spam", "cheap pills now")):
        (tmp_path / "c" / label).mkdir(parents=True)
        for i in range(3):
            (tmp_path / "c" / label / f"{i}.txt").write_text(f"{text} {i}")
    (tmp_path / "c" / "ham" / "x.bin").write_bytes(b"x\0y")
    code, out, err = run("train", "c", "-o", "m.tnb", "--json", "--scheduler", "local:1")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["per_class"] == {"ham": 3, "spam": 3} and summary["skipped_binary"] == 1
    (tmp_path / "c" / "blobs").mkdir()
    (tmp_path / "c" / "blobs" / "0.bin").write_bytes(b"\0\1\2")
    code, out, err = run("train", "c", "-o", "m.tnb", "--scheduler", "local:1")
    assert code == 1 and "c/blobs: every file of class 'blobs' is binary (1 skipped)" in err, err


def test_predict_warns_for_numeric_data_and_unseen_nominal_values(tmp_path):
    from pathlib import Path

    corpora = Path(__file__).resolve().parents[2] / "corpora"
    model = tmp_path / "w.tnb"
    assert run("train", corpora / "weather.nominal.arff", "-o", model)[0] == 0
    code, out, err = run("predict", model, corpora / "weather.numeric.arff")
    assert code == 0 and len(out.splitlines()) == 14
    lines = [line for line in err.splitlines() if ": accuracy " not in line]  # the file holds its class
    assert len(lines) == 2 and all(line.startswith("textnb: warning: ") for line in lines)
    assert "'temperature' is numeric here but nominal in the model" in lines[0] and "14 of 14" in lines[0]
    assert "'humidity'" in lines[1]
    query = tmp_path / "q.csv"
    query.write_text("outlook,temperature,humidity,windy\nfoggy,hot,high,TRUE\nsunny,cool,high,FALSE\n"
                     "foggy,mild,normal,FALSE\n")
    code, out, err = run("predict", model, query)
    assert code == 0 and len(out.splitlines()) == 3
    assert err == f"textnb: warning: {query}: attribute 'outlook': 2 cells with values the model never saw " \
                  f"('foggy') count as missing\n"
    query.write_text("outlook,temperature,humidity,windy\nsunny,cool,high,FALSE\n")
    assert run("predict", model, query)[2] == ""  # nothing unusual: no warning


def test_encode_like_warns_in_the_library():
    import warnings

    from textnb.core.attributes import Attribute, Table
    from textnb.core.errors import DataWarning
    from textnb.io.tables import encode_like

    model_atts = [Attribute("colour", "nominal", ["red", "blue"])]
    table = Table([Attribute("colour", "nominal", ["red", "green"])], np.array([[0.0], [1.0], [1.0]]), None, None,
                  "q.csv")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        X = encode_like(table, model_atts)
    assert X[0, 0] == 0 and np.isnan(X[1:, 0]).all()
    assert [w.category for w in caught] == [DataWarning]
    assert "q.csv: attribute 'colour': 2 cells with values the model never saw ('green')" in str(caught[0].message)


def test_evaluate_repeat_prints_mean_std_and_per_repeat(tmp_path):
    from pathlib import Path

    import json

    data = Path(__file__).resolve().parents[2] / "corpora" / "weather.nominal.arff"
    per_repeat = json.loads(run("evaluate", data, "--cv", "3", "--repeat", "3", "--json")[1])["accuracy_per_repeat"]
    code, out, _ = run("evaluate", data, "--cv", "3", "--repeat", "3")
    assert code == 0
    assert f"accuracy  {np.mean(per_repeat):.4f} (std {np.std(per_repeat, ddof=1):.4f} over 3 repeats)" in out
    assert "repeat 1" not in out
    code, out, _ = run("evaluate", data, "--cv", "3", "--repeat", "3", "-v")
    assert [line.split()[-1] for line in out.splitlines() if line.startswith("  repeat ")] == \
        [f"{a:.4f}" for a in per_repeat]
    assert "  repeat 2 (folds of seed 1)" in out
    code, out, _ = run("evaluate", data, "--cv", "3")  # one run: no std line
    assert "std" not in out and out.splitlines()[1].startswith("accuracy  ")


def test_inspect_json_class_count_is_a_list_for_text_and_tables(text_model, tmp_path):
    import json
    from pathlib import Path

    model, _ = text_model
    text = json.loads(run("inspect", model, "--json")[1])
    assert text["class_count"] == [2.0, 2.0, 2.0] and text["classes"] == ["ham", "other", "spam"]
    table_model = tmp_path / "w.tnb"
    assert run("train", Path(__file__).resolve().parents[2] / "corpora" / "weather.nominal.arff",
               "-o", table_model)[0] == 0
    table = json.loads(run("inspect", table_model, "--json")[1])
    assert isinstance(table["class_count"], list) and len(table["class_count"]) == len(table["classes"])
    assert type(text["class_count"]) is type(table["class_count"])
    code, out, _ = run("inspect", model)
    assert code == 0 and "  spam: 2 documents" in out


def test_inspect_names_the_kind_of_uncertain_columns(tmp_path):
    import json

    data = tmp_path / "u.csv"
    data.write_text('temp,colour,class\n"[1,2]",red,a\n"[1.5,2.5]",blue,a\n"[5,6]",red,b\n'
                    '"[6,7.5]","{red:0.5,blue:0.5}",b\n')
    model = tmp_path / "u.tnb"
    assert run("train", data, "-o", model)[0] == 0
    code, out, _ = run("inspect", model)
    assert "temp [uncertain-numeric, gaussian]" in out and "colour [uncertain-nominal, nominal]" in out
    kinds = [a["kind"] for a in json.loads(run("inspect", model, "--json")[1])["attributes"]]
    assert kinds == ["uncertain-numeric", "uncertain-nominal"]


def test_package_namespace_is_clean():
    import textnb

    import textnb.io  # noqa: F401  (a loaded subpackage is not part of the listing either)

    names = dir(textnb)
    assert not [n for n in names if "importlib" in n or n in ("sys", "_sys", "os", "np")]
    assert set(n for n in names if not n.startswith("__")) == set(textnb.__all__) | {"MODEL_MODULES"}
    assert all(hasattr(textnb, n) for n in textnb.__all__)


@pytest.mark.parametrize("stem", ["iris", "glass"])
def test_uci_doc_figures_are_those_of_evaluate_with_its_default_seed(stem):
    """docs/uci_nb.md uses the folds `textnb evaluate` draws by default (seed 0)."""
    import json
    from pathlib import Path

    from conftest import shared_path

    data = shared_path("datasets", "uci", f"{stem}.arff")
    doc = (Path(__file__).resolve().parents[2] / "docs" / "uci_nb.md").read_text()
    assert "(seed 0, the default of `textnb evaluate`" in doc
    row = next(line for line in doc.splitlines() if line.startswith(f"| {stem} |")).split("|")
    gaussian, mdl = float(row[5]), float(row[7])
    for numeric, error in (("gaussian", gaussian), ("mdl", mdl)):
        report = json.loads(run("evaluate", data, "--numeric", numeric, "--json")[1])
        assert report["seed"] == 0
        assert round(100 * (1 - report["accuracy"]), 2) == error


def test_a_class_of_utf16_files_is_said_to_be_utf16_by_train_as_by_predict(tmp_path):
    """Found by a user trial: train called a class whose one file is UTF-16 text 'binary',
    where predict says 'UTF-16 text (convert it to UTF-8)' of the same file."""
    (tmp_path / "c" / "ham").mkdir(parents=True)
    (tmp_path / "c" / "spam").mkdir()
    (tmp_path / "c" / "ham" / "a.txt").write_text("hi there\n")
    (tmp_path / "c" / "spam" / "b.txt").write_bytes("win cash".encode("utf-16"))
    code, out, err = run("train", tmp_path / "c", "-o", tmp_path / "m.tnb")
    assert code == 1 and err.count("\n") == 1, err
    assert (f"every file of class 'spam' is binary or not UTF-8 (the first, {tmp_path / 'c' / 'spam' / 'b.txt'}: "
            "UTF-16 text (convert it to UTF-8)) (1 skipped)") in err
