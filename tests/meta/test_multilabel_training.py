"""The multi-label models fitted, evaluated and read without scikit-learn
(textnb.meta.multilabel_training): the same model files, reports and predictions as the
estimators (MultiLabelNB in a Pipeline), and no scikit-learn imported."""

import io
import json
import subprocess
import sys

import numpy as np
import pytest

from conftest import quick_first

TOPICS = {"grain": "wheat corn harvest crop bushels grain", "money": "dollar yen rate bank currency money",
          "oil": "crude barrel opec refinery oil pipeline"}
NOISE = "the a of and to in report said week year market".split()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """train/ and test/ parts of a corpus of 1-2 topics per document, one labels.tsv."""
    root = tmp_path_factory.mktemp("ml")
    rng = np.random.RandomState(3)
    names = sorted(TOPICS)
    lines = []
    for i in range(90):
        labs = sorted(rng.choice(names, size=rng.randint(1, 3), replace=False))
        words = [w for lab in labs for w in TOPICS[lab].split()]
        text = " ".join(rng.choice(words + NOISE, size=25))
        part = "train" if i < 70 else "test"
        (root / part).mkdir(exist_ok=True)
        (root / part / f"d{i:03d}.txt").write_text(text)
        lines.append(f"d{i:03d}\t{','.join(labs)}\n")
    (root / "labels.tsv").write_text("".join(lines))
    return root


def _cli(*argv):
    from textnb.cli.commands import main

    out, err = io.StringIO(), io.StringIO()
    code = main([str(a) for a in argv], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def _estimators(monkeypatch):
    """Make the command line build the estimators (its path before the kernels)."""
    import textnb.cli.multilabel as cli
    from textnb.core import registry

    monkeypatch.setattr(cli, "_kernel", lambda args, opts: None)
    monkeypatch.setattr(registry, "SCORER_MODULES",
                        {k: v for k, v in registry.SCORER_MODULES.items() if k != "MultiLabelNB"})


# the default model's cases (DiscriminativeNB per label and fold) take seconds each: the full suite only
FLAGS = [["--model", "multinomial"], ["--model", "bernoulli", "--method", "ovr"],
         ["--model", "complement", "--weighting", "--strategy", "rcut"], ["--method", "ovr"],
         ["--model", "multinomial", "--select", "chi2:12", "--method", "ovr", "--strategy", "pcut"],
         ["--model", "multinomial", "--calibrate", "sigmoid"], ["--model", "multinomial", "--adjust"],
         ["--binary", "--min-labels", "0", "--strategy", "scut"], ["--model", "auto"],
         ["--min-df", "3", "--method", "ovr"], ["--model", "multinomial", "--binary", "--max-features", "15"],
         # the folds inside training on their own vocabularies (pruned on their training documents)
         ["--model", "auto", "--min-df", "3"], ["--model", "multinomial", "--adjust", "--adjust-on", "cv", "--min-df", "2"],
         ["--model", "auto", "--method", "ovr", "--max-features", "20"], ["--min-df", "3"],
         ["--model", "multinomial", "--calibrate", "sigmoid", "--max-df", "0.5"],
         # the wrappers' own folds keep a document's copies together (groups), nested too
         ["--model", "auto", "--adjust", "--adjust-on", "cv"], ["--model", "auto", "--calibrate", "isotonic"],
         # DiscriminativeNB's own folds on the copies keep a document's copies together (groups), wrapped too
         ["--calibrate", "sigmoid", "--min-df", "2"], ["--adjust", "--adjust-on", "cv"],
         # ... behind Pipeline steps too (model__groups on the estimators' path; --weighting and
         # --norm select multinomial, --select keeps the default model)
         ["--select", "chi2:12"], ["--select", "chi2:12", "--calibrate", "sigmoid"]]


@pytest.mark.parametrize("flags", quick_first(FLAGS, keep=3), ids=" ".join)
def test_the_kernels_give_the_estimators_file_report_and_predictions(corpus, tmp_path, monkeypatch, flags):
    labels = ("--labels", corpus / "labels.tsv")
    runs = {}
    for way in ("kernels", "estimators"):
        with monkeypatch.context() as m:
            if way == "estimators":
                _estimators(m)
            model = tmp_path / f"{way}.tnb"
            assert _cli("train", corpus / "train", *labels, "-o", model, *flags)[0] == 0
            reports = []
            for extra in ((), ("--cv", "3")):
                code, out, err = _cli("evaluate", corpus / "train" if extra else corpus, *labels, "--json",
                                      *flags, *extra)
                assert code == 0, err
                reports.append({k: v for k, v in json.loads(out).items() if k != "seconds"})
            code, predicted, err = _cli("predict", model, corpus / "test", "--json", "--proba")
            assert code == 0, err
            runs[way] = model.read_bytes(), reports, predicted
    assert runs["kernels"][0] == runs["estimators"][0]  # the model file, byte for byte
    assert runs["kernels"][1] == runs["estimators"][1]  # train/test and cross-validation reports
    assert runs["kernels"][2] == runs["estimators"][2]  # labels, probabilities and log-odds


def test_multilabel_commands_import_no_scikit_learn(corpus, tmp_path):
    labels = str(corpus / "labels.tsv")
    model = str(tmp_path / "m.tnb")
    probe = ("import sys\nfrom textnb.cli.commands import main\n"
             f"rc = main(['train', {str(corpus / 'train')!r}, '--labels', {labels!r}, '-o', {model!r}, "
             "'--model', 'multinomial', '--method', 'ovr', '--weighting', '--calibrate', 'sigmoid'])\n"
             f"rc += main(['evaluate', {str(corpus / 'train')!r}, '--labels', {labels!r}, '--cv', '3', "
             "'--model', 'bernoulli', '--adjust'])\n"
             f"rc += main(['evaluate', {str(corpus)!r}, '--labels', {labels!r}, '--model', 'complement'])\n"
             f"rc += main(['predict', {model!r}, {str(corpus / 'test')!r}])\n"
             "print(rc, sorted(m for m in sys.modules if m.split('.')[0] == 'sklearn'))\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "0 []"


INSPECTED = [[], ["--method", "ovr", "--model", "multinomial", "--select", "chi2:12"],
             ["--model", "multinomial", "--select", "chi2:12", "--strategy", "rcut"],
             ["--method", "ovr", "--strategy", "pcut", "--model", "bernoulli", "--calibrate", "sigmoid"],
             ["--model", "auto", "--strategy", "scut"], ["--model", "complement", "--adjust"],
             ["--weighting", "--method", "ovr", "--min-labels", "0", "--max-bytes", "100"]]


def test_inspect_of_a_multilabel_model_imports_no_scikit_learn(corpus, tmp_path):
    """``inspect`` of a multi-label model built the estimators (a Pipeline, MultiLabelNB: scikit-learn) where
    ``predict`` of the same file reads it without them; it now describes the fit the file's scorer reads."""
    labels = str(corpus / "labels.tsv")
    lines = []
    for k, flags in enumerate(INSPECTED[:3]):
        model = str(tmp_path / f"m{k}.tnb")
        assert _cli("train", corpus / "train", "--labels", labels, "-o", model, *flags)[0] == 0
        lines.append(f"rc += main(['inspect', {model!r}]) + main(['inspect', {model!r}, '--json', '--top', '3'])\n")
    probe = ("import io, sys\nfrom textnb.cli.commands import main\nsys.stdout = io.StringIO()\nrc = 0\n"
             + "".join(lines) + "sys.stdout = sys.__stdout__\n"
             "print(rc, sorted(m for m in sys.modules if m.split('.')[0] == 'sklearn'))\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "0 []"


@pytest.mark.parametrize("flags", quick_first(INSPECTED, keep=2), ids=" ".join)
def test_inspect_describes_a_multilabel_file_as_the_estimators_do(corpus, tmp_path, monkeypatch, flags):
    """``inspect`` from the file's scorer gives the text and ``--json`` the loaded estimators give
    (a file the scorer does not read is still described by them), and the values are the fitted
    MultiLabelNB's: its thresholds, and each label's informative terms over the terms its count model
    sees (``--select`` named the first K terms of the vocabulary, not the K selected)."""
    from textnb import load
    from textnb.core import registry
    from textnb.evaluation.explain import unwrap
    from textnb.evaluation.inspection import term_log_odds

    model = tmp_path / "m.tnb"
    assert _cli("train", corpus / "train", "--labels", corpus / "labels.tsv", "-o", model, *flags)[0] == 0
    views = [[], ["--json"], ["--top", "3"]]
    kernels = [_cli("inspect", model, *view) for view in views]
    monkeypatch.setattr(registry, "SCORER_MODULES",
                        {k: v for k, v in registry.SCORER_MODULES.items() if k != "MultiLabelNB"})
    assert [_cli("inspect", model, *view) for view in views] == kernels  # the estimators' description
    code, out, err = kernels[1]
    assert code == 0 and err == "", err
    info = json.loads(out)
    pipeline = load(model)
    ml, vocabulary = pipeline[-1], list(pipeline[0].vocabulary_)
    assert info["thresholds"] == [float(t) for t in ml.thresholds_] and info["labels"] == list(ml.classes_)
    assert info["method"] == ml.method and info["vocabulary_size"] == len(vocabulary)
    want = {name: [] for name in ml.classes_}
    for j, est in (enumerate(ml.estimators_) if ml.method == "ovr" else [(None, ml.estimator_)]):
        steps, count = unwrap(est)
        if est is None or not hasattr(count, "feature_count_"):  # (APNBC: no terms of its own)
            continue
        seen = [vocabulary[c] for c in steps[0].get_support(indices=True)] if "--select" in flags else vocabulary
        terms = term_log_odds(count, seen, 10)
        for c, pairs in terms.items():
            name = ml.classes_[j] if j is not None else (ml.classes_[int(c)] if int(c) < len(ml.classes_) else None)
            if name is not None and (j is None or c == "1"):
                want[name] = [[t, v] for t, v in pairs]
    assert info["informative_terms"] == want


def test_a_damaged_multilabel_file_is_left_to_the_estimators_checks(corpus, tmp_path):
    """A file the scorer cannot read is loaded by the estimators, which report it in one line."""
    from textnb.core.model_io import read_nodes
    from textnb.meta.multilabel_training import scorer_from_tree

    model = tmp_path / "m.tnb"
    assert _cli("train", corpus / "train", "--labels", corpus / "labels.tsv", "-o", model, "--method", "ovr")[0] == 0
    root = read_nodes(model)
    assert scorer_from_tree(root) is not None
    ml = root.params["steps"][-1][1]
    ml.state["thresholds_"] = ml.state["thresholds_"][:-1]
    assert scorer_from_tree(root) is None


@pytest.mark.parametrize("flags", [["--min-df", "25"], ["--max-features", "6"], ["--binary"], ["--max-df", "0.5"]],
                         ids=" ".join)
def test_cross_validation_prunes_and_binarises_each_training_fold_as_the_vectorizer_says(corpus, flags):
    """evaluate --cv on a multi-label corpus ignored --min-df / --max-df / --max-features /
    --binary (every term of the corpus, counts): each fold now keeps what the vectorizer
    fitted on its training part keeps, as the single-label cross-validation does."""
    from textnb.evaluation.evaluate import vectorize_all
    from textnb.io.corpus import read_document
    from textnb.io.multilabel import read_label_file
    from textnb.meta.multilabel_training import cross_validate
    from textnb.text.defaults import VECTORIZER_DEFAULTS

    labels = ("--labels", corpus / "labels.tsv")
    reports = []
    for extra in ((), flags):
        code, out, err = _cli("evaluate", corpus / "train", *labels, "--json", "--cv", "3", "--model",
                              "multinomial", *extra)
        assert code == 0, err
        reports.append({k: v for k, v in json.loads(out).items() if k != "seconds"})
    assert reports[0] != reports[1]  # the option changes the folds' models
    # the library's cross-validation with the same vectorizer parameters gives the command's report
    params = {"--min-df": ("min_df", int), "--max-features": ("max_features", int), "--max-df": ("max_df", float)}
    vec = dict(VECTORIZER_DEFAULTS)
    if flags[0] == "--binary":
        vec["binary"] = True
    else:
        name, cast = params[flags[0]]
        vec[name] = cast(flags[1])
    files = sorted((corpus / "train").iterdir())
    sets = read_label_file(corpus / "labels.tsv")
    X, _ = vectorize_all([read_document(f) for f in files], vec)
    report = cross_validate(X, [sets[f.stem] for f in files], model=("MultinomialNB", {}), cv=3, seed=0,
                            vectorizer=vec)
    for key in ("micro_f1", "macro_f1", "subset_accuracy", "hamming_loss"):
        assert report[key] == reports[1][key]


def test_lazy_and_scheduler_are_refused_before_reading_or_importing_a_model(corpus, tmp_path):
    """--lazy / --scheduler with the multi-label options: one line, exit 1, no model file,
    and neither the corpus read (an unreadable labels file is not reached) nor scikit-learn
    imported."""
    model = str(tmp_path / "m.tnb")
    bad_labels = tmp_path / "labels.tsv"
    bad_labels.write_bytes(b"\xff\xfe not a labels file \x00")
    runs = [["train", str(corpus / "train"), "--labels", str(bad_labels), "--lazy", "lbr", "-o", model],
            ["train", str(corpus / "train"), "--multilabel", "--scheduler", "local:1", "-o", model],
            ["evaluate", str(corpus), "--labels", str(bad_labels), "--lazy", "hlbr"]]
    probe = ("import io, sys\nfrom textnb.cli.commands import main\n"
             f"for argv in {runs!r}:\n"
             "    err = io.StringIO()\n"
             "    print(main(argv, stdout=io.StringIO(), stderr=err), err.getvalue().strip())\n"
             "print(sorted(m for m in sys.modules if m.split('.')[0] == 'sklearn'))\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    lines = out.strip().splitlines()
    assert lines[:3] == ["1 textnb: error: a multi-label corpus (--multilabel, --labels, or a fastText or JSON Lines "
                         "file with several labels a document): no --lazy, no --scheduler"] * 3
    assert lines[3] == "[]"
    assert not (tmp_path / "m.tnb").exists()
