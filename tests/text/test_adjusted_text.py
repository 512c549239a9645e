"""APNBC (``--adjust``) on documents without scikit-learn: ``textnb train`` fits it through
the APNBC kernel's weight search (:func:`textnb.text.training.fit_model`), the scorer reads its
files (:mod:`textnb.text.scorer`), ``evaluate``, ``inspect``, ``merge`` and ``predict --explain``
read them from their nodes; each gives what the estimators give."""

import io
import json
import subprocess
import sys

import numpy as np
import pytest

from textnb import load
from textnb.cli.commands import main
from textnb.evaluation.evaluate import cross_validate, vectorize_all
from textnb.evaluation.explain import explain_scored
from textnb.meta.registry import ModelOptions, make_text_classifier, streaming_model
from textnb.text.scorer import scorer_from_file

from conftest import CORPORA, REPO, quick_cover

SMS = CORPORA / "sms_spam" / "SMSSpamCollection.tsv"
ROWS = [r.split("\t", 1) for r in SMS.read_text(encoding="utf-8").splitlines() if "\t" in r]
TEXTS, LABELS = [r[1] for r in ROWS], [r[0] for r in ROWS]
EDGE = ["", "zzzz unknownword", "Free entry in 2 a wkly comp to win FA Cup final tkts", "the the the"]

#: ``textnb train --adjust`` option sets: each fits an APNBC around what streaming_model describes
FLAGS = [
    [],
    ["--model", "multinomial"],
    ["--model", "multinomial", "--adjust-on", "cv", "--seed", "3", "--significance", "1"],
    ["--model", "bernoulli", "--significance", "1"],
    ["--model", "complement", "--norm"],
    ["--model", "auto"],
    ["--model", "auto", "--min-df", "2"],  # (its smoothing chosen on per-fold vocabularies)
    ["--adjust-on", "cv", "--seed", "3"],
    ["--model", "multinomial", "--significance", "0.2", "--ngram", "2", "--min-df", "2"],
    ["--model", "bernoulli", "--binary", "--alpha", "0.5"],
    # (each fold of --adjust-on cv on its own vocabulary, pruned on its documents)
    ["--model", "multinomial", "--adjust-on", "cv", "--min-df", "2", "--seed", "1", "--significance", "1"],
    ["--model", "auto", "--adjust-on", "cv", "--max-features", "300", "--seed", "2"],
    ["--model", "bernoulli", "--binary", "--adjust-on", "cv", "--min-df", "2"],
]


@pytest.fixture(scope="module")
def sms_part(tmp_path_factory):
    path = tmp_path_factory.mktemp("sms") / "part.tsv"
    path.write_text("".join(SMS.read_text(encoding="utf-8").splitlines(keepends=True)[:800]), encoding="utf-8")
    return path


def _options(flags):
    from textnb.cli.commands import build_parser

    return ModelOptions.from_namespace(build_parser().parse_args(["train", "x.tsv", "--adjust", *flags]))


@pytest.mark.parametrize("flags", FLAGS, ids=" ".join)
def test_trainer_writes_the_estimators_file(flags, sms_part, tmp_path, monkeypatch):
    """The trainer's APNBC file (and printed summary) is the estimators' file, byte for byte."""
    import textnb.meta.registry as registry

    assert registry.streaming_model(_options(flags), steps=True)[1][0] == "APNBC"
    out = io.StringIO()
    assert main(["train", str(sms_part), "--adjust", *flags, "-o", str(tmp_path / "kernel.tnb")], stdout=out) == 0
    with monkeypatch.context() as m:  # the estimators' path, as before
        m.setattr(registry, "streaming_model", lambda opts, **kw: None)
        expected = io.StringIO()
        assert main(["train", str(sms_part), "--adjust", *flags, "-o", str(tmp_path / "estimator.tnb")],
                    stdout=expected) == 0
    assert (tmp_path / "kernel.tnb").read_bytes() == (tmp_path / "estimator.tnb").read_bytes()

    def summary(text):
        return [line.replace("estimator.tnb", "kernel.tnb") for line in text.splitlines()
                if not line.startswith("seconds")]

    assert summary(out.getvalue()) == summary(expected.getvalue())


def test_a_weight_is_learned_and_kept(sms_part, tmp_path):
    """One of the option sets above with --adjust-on cv (and a min_df, each fold's vocabulary pruned on its
    documents) accepts a step of the weight search (so the files compare weights learnt on the folds' own
    vocabularies)."""
    path = tmp_path / "m.tnb"
    flags = FLAGS[10]
    assert "cv" in flags and "--min-df" in flags
    assert main(["train", str(sms_part), "--adjust", *flags, "-o", str(path)], stdout=io.StringIO()) == 0
    model = load(path).model_
    assert model.search_history_ and np.any(model.class_log_weight_ != 0)


def test_options_the_trainer_does_not_fit_build_the_estimators():
    """--adjust with --weighting / --select / --calibrate (no joint log probabilities: refused by the estimator
    path) or --lazy is not described; --model auto is."""
    for flags in (["--weighting"], ["--select", "chi2:10"], ["--calibrate", "sigmoid"], ["--lazy", "hlbr"]):
        assert streaming_model(_options(flags), steps=True) is None, flags
    assert streaming_model(_options(["--model", "auto"]), steps=True)[1] == (
        "APNBC", {"estimator": ("SmoothingCV", {"cv": 10})})
    assert streaming_model(_options([]), steps=False) is None  # (multi-label training: the estimators)


@pytest.fixture(scope="module")
def adjusted_files(tmp_path_factory):
    root = tmp_path_factory.mktemp("adjusted")
    files = {}
    for i, opts in enumerate([dict(), dict(model="multinomial", adjust_on="cv", significance=1.0, seed=1),
                              dict(model="bernoulli", significance=1.0), dict(model="complement", norm=True),
                              dict(model="auto")]):
        clf = make_text_classifier(ModelOptions(jobs=1, adjust=True, **opts)).fit(TEXTS[:2000], LABELS[:2000])
        files[i] = root / f"m{i}.tnb"
        clf.save(files[i])
    return files


@pytest.mark.parametrize("case", range(5))
def test_scorer_scores_as_the_estimator(adjusted_files, case):
    """The scorer of an APNBC text file: the estimator's scores, bit for bit (count model's scores plus the
    class log weights, APNBCKernel.adjusted)."""
    path = adjusted_files[case]
    scorer, loaded = scorer_from_file(path), load(path)
    assert scorer is not None
    docs = TEXTS[2000:2600] + EDGE
    for method in ("predict_joint_log_proba", "predict_proba", "predict_log_proba", "predict_log_odds"):
        assert np.array_equal(getattr(scorer, method)(docs), getattr(loaded, method)(docs)), method
    assert scorer.predict(docs).tolist() == loaded.predict(docs).tolist()
    logp, odds = scorer.log_proba_and_odds(docs)
    assert np.array_equal(logp, loaded.predict_log_proba(docs)) and np.array_equal(odds, loaded.predict_log_odds(docs))


def test_explain_counts_the_weights_in_the_margin(adjusted_files):
    """predict --explain of an APNBC text model: the margin is the adjusted scores' difference, the terms those
    of the count model inside."""
    path = adjusted_files[1]
    scorer, loaded = scorer_from_file(path), load(path)
    inner = scorer_from_file(path)
    inner.adjustment = None  # the count model alone
    w = loaded.model_.class_log_weight_
    assert np.any(w != 0)
    for doc in TEXTS[2000:2050] + EDGE:
        got, plain = explain_scored(scorer, doc, top=5), explain_scored(inner, doc, top=5)
        jll = loaded.predict_joint_log_proba([doc])[0]
        p, r = (list(loaded.classes_).index(got[k]) for k in ("predicted", "runner_up"))
        assert got["predicted"] == loaded.predict([doc])[0]
        assert got["margin"] == pytest.approx(jll[p] - jll[r], rel=1e-12, abs=1e-9)
        if (got["predicted"], got["runner_up"]) == (plain["predicted"], plain["runner_up"]):
            assert got["for"] == plain["for"] and got["against"] == plain["against"]
            assert got["prior"] == pytest.approx(plain["prior"] + w[p] - w[r], abs=1e-12)


@pytest.mark.parametrize("case", range(5))
def test_inspect_from_the_nodes_is_the_estimators(adjusted_files, case, monkeypatch):
    """inspect (text and --json) of an APNBC text file from its nodes prints what the estimator path prints."""
    import textnb.evaluation.explain as explain

    path = adjusted_files[case]
    for extra in ([], ["--json"]):
        out = io.StringIO()
        assert main(["inspect", str(path), "--top", "4", *extra], stdout=out) == 0
        with monkeypatch.context() as m:
            m.setattr(explain, "describe_text_file", lambda root, top=10: None)
            expected = io.StringIO()
            assert main(["inspect", str(path), "--top", "4", *extra], stdout=expected) == 0
        assert out.getvalue() == expected.getvalue()
    assert "apnbc_weights" in json.loads(out.getvalue())


def test_merge_refuses_an_apnbc_text_model_in_the_estimators_words(adjusted_files, tmp_path, monkeypatch):
    import textnb.text.nodes as nodes

    args = ["merge", str(adjusted_files[0]), str(adjusted_files[1]), "-o", str(tmp_path / "m.tnb")]
    err = io.StringIO()
    assert main(args, stderr=err) == 1
    with monkeypatch.context() as m:
        m.setattr(nodes, "adjusted_text_model", lambda root: None)  # the estimators' path
        expected = io.StringIO()
        assert main(args, stderr=expected) == 1
    assert err.getvalue() == expected.getvalue()
    assert "a text model of APNBC cannot be merged" in err.getvalue()


@pytest.mark.parametrize("flags", [[], ["--model", "multinomial", "--adjust-on", "cv", "--seed", "2"],
                                   ["--model", "auto"],
                                   ["--model", "multinomial", "--adjust-on", "cv", "--min-df", "2", "--seed", "2"],
                                   # (2.7 s, the estimators' SmoothingCV in every fold of every fold: the quick
                                   # subset has its training above and --adjust-on cv folds of their own
                                   # vocabulary in evaluate with the options before)
                                   pytest.param(["--model", "auto", "--adjust-on", "cv", "--max-features", "200"],
                                                marks=pytest.mark.slow)], ids=" ".join)
def test_cross_validation_fits_folds_as_the_estimators(flags):
    """evaluate --adjust: each fold fitted by the trainer's fit_model and scored by the scorer of its node, the
    estimator's report."""
    opts = _options(flags)
    vectorizer, model, steps = streaming_model(opts, steps=True)
    texts, labels = TEXTS[:900], np.array(LABELS[:900])
    X, _ = vectorize_all(texts, vectorizer)
    ours = cross_validate(X, labels, (model[0], model[1], steps), cv=3, seed=1, vectorizer=vectorizer)
    clf = make_text_classifier(opts)
    theirs = cross_validate(X, labels, clf.model, cv=3, seed=1, vectorizer=clf.vectorizer)
    ours.pop("seconds"), theirs.pop("seconds")
    assert ours == theirs


@pytest.mark.slow
def test_commands_import_no_scikit_learn(sms_part, tmp_path):
    """train --adjust, predict (--proba, --explain), evaluate --adjust, inspect and merge of such a file, each in a
    fresh process: no scikit-learn imported."""
    model = tmp_path / "m.tnb"
    doc = tmp_path / "doc.txt"
    doc.write_text("WINNER!! claim your prize now, call 09061701461")
    commands = [
        ["train", sms_part, "--adjust", "--model", "multinomial", "-o", model],
        ["predict", model, doc, "--proba", "--json"],
        ["predict", model, doc, "--explain"],
        ["evaluate", sms_part, "--adjust", "--cv", "3", "--json"],
        ["inspect", model, "--json"],
        ["merge", model, model, "-o", tmp_path / "merged.tnb"],
        ["train", sms_part, "--adjust", "--model", "auto", "-o", tmp_path / "auto.tnb"],
        ["predict", tmp_path / "auto.tnb", doc, "--explain"],
    ]
    for args in commands:
        probe = ("import sys\nfrom textnb.cli.commands import main\n"
                 "rc = main(sys.argv[1:])\n"
                 "print(rc, sorted(m for m in sys.modules if m.split('.')[0] == 'sklearn'))\n")
        proc = subprocess.run([sys.executable, "-c", probe, *map(str, args)], capture_output=True, text=True,
                              cwd=REPO, timeout=300)
        rc = 1 if args[0] == "merge" else 0  # (merge refuses APNBC models)
        assert proc.stdout.strip().splitlines()[-1] == f"{rc} []", (args, proc.stdout, proc.stderr)


def test_apnbc_hands_per_fold_vocabularies_to_its_smoothing_cv():
    """``APNBC(SmoothingCV())`` in a TextClassifier (``train --adjust --model auto``): the
    smoothing is chosen on folds whose vocabulary is their training part's (``min_df`` pruned
    there), as a SmoothingCV alone chooses it; the APNBC fitted its SmoothingCV on the
    whole-corpus matrix, so a word of one held-out document was a term of the fold's model.
    A TextClassifier around an APNBC of a plain count model builds no per-fold vocabulary."""
    from textnb import MultinomialNB, TextClassifier, Vectorizer
    from textnb.core.wrapping import takes_fold_counts
    from textnb.meta.smoothing import SmoothingCV
    from textnb.semi_naive.apnbc import APNBC

    texts, labels = TEXTS[:1500], LABELS[:1500]
    alone = TextClassifier(vectorizer=Vectorizer(min_df=2), model=SmoothingCV(cv=5)).fit(texts, labels)
    wrapped = TextClassifier(vectorizer=Vectorizer(min_df=2), model=APNBC(SmoothingCV(cv=5))).fit(texts, labels)
    assert wrapped.model_.estimator_.cv_results_ == alone.model_.cv_results_
    assert wrapped.model_.estimator_.best_params_ == alone.model_.best_params_
    assert takes_fold_counts(APNBC(SmoothingCV())) and not takes_fold_counts(APNBC(MultinomialNB()))
    assert not takes_fold_counts(APNBC())
    assert takes_fold_counts(APNBC(MultinomialNB(), fit_on="cv")) and takes_fold_counts(APNBC(fit_on="cv"))


def _out_of_fold(monkeypatch, fit):
    """The joint log likelihoods APNBC's weight search is given during ``fit()``."""
    from textnb.semi_naive.apnbc_kernel import APNBCKernel

    seen = []
    search = APNBCKernel.learn_weights

    def spy(jll, *args, **kwargs):
        seen.append(np.array(jll))
        return search(jll, *args, **kwargs)

    with monkeypatch.context() as m:
        m.setattr(APNBCKernel, "learn_weights", staticmethod(spy))
        fit()
    assert len(seen) == 1
    return seen[0]


def _fold_models():
    from textnb import MultinomialNB
    from textnb.meta.smoothing import SmoothingCV
    from textnb.semi_naive.lbr_text import LazyTextNB

    return {"multinomial": MultinomialNB, "auto": lambda: SmoothingCV(cv=3),
            "lazy": lambda: LazyTextNB(min_df=3, min_errors=1, significance=0.5)}


_VECTORIZERS = {"min_df=2": {"min_df": 2}, "max_features=150": {"max_features": 150}, "default": {},
                "binary=True min_df=2": {"binary": True, "min_df": 2}}


@pytest.mark.parametrize("model, vectorizer", quick_cover(
    {f"{model}-{v}": (model, settings) for model in ("multinomial", "auto", "lazy") for v, settings in _VECTORIZERS.items()},
    # every vectorizer setting with the plain model, two with each of the slower ones
    quick=[f"multinomial-{v}" for v in _VECTORIZERS] + ["auto-min_df=2", "auto-max_features=150",
                                                        "lazy-max_features=150", "lazy-binary=True min_df=2"]))
def test_apnbc_cv_folds_are_fresh_fits_on_the_folds_documents(monkeypatch, vectorizer, model):
    """``APNBC(fit_on="cv")`` in a TextClassifier: each fold's model scores its held-out
    documents as a TextClassifier of the same vectorizer settings fitted on the fold's
    training documents does (the fold's own vocabulary: min_df / max_features counted on
    it, a term of held-out documents only unknown; lazy rules get the fold's terms), of the
    model with the choices the model of every document made (a SmoothingCV inside: the
    setting it chose, textnb.naive_bayes.base.with_choices). Before, the folds' models were
    fitted on the columns of the whole training set's vocabulary, and a fold's SmoothingCV
    searched again (with the default vectorizer, another m than the model of every document)."""
    from textnb import TextClassifier, Vectorizer
    from textnb.core.folds import stratified_kfold
    from textnb.naive_bayes.base import with_choices
    from textnb.semi_naive.apnbc import APNBC

    texts, labels = TEXTS[:240], np.asarray(LABELS[:240])
    make = _fold_models()[model]
    clf = TextClassifier(vectorizer=Vectorizer(**vectorizer),
                         model=APNBC(make(), fit_on="cv", cv=3, random_state=5, significance=1.0))
    got = _out_of_fold(monkeypatch, lambda: clf.fit(texts, labels))
    chosen = with_choices(clf.model_.estimator_)
    want = np.full(got.shape, np.nan)
    for train, test in stratified_kfold(labels, 3, 5):
        fresh = TextClassifier(vectorizer=Vectorizer(**vectorizer), model=make() if chosen is None else chosen).fit(
            [texts[i] for i in train], labels[train])
        assert list(fresh.classes_) == list(clf.classes_)
        want[test] = fresh.predict_joint_log_proba([texts[i] for i in test])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)


@pytest.mark.parametrize("vectorizer", [{"min_df": 2}, {"max_features": 150}, {}],
                         ids=lambda v: " ".join(f"{k}={w}" for k, w in v.items()) or "default")
@pytest.mark.parametrize("model", ["multinomial", "auto"])
def test_calibration_folds_are_fresh_fits_on_the_folds_documents(monkeypatch, vectorizer, model):
    """``CalibratedNB`` in a TextClassifier: each calibration fold's model scores its held-out
    documents as a TextClassifier of the same vectorizer settings fitted on the fold's
    training documents does (min_df / max_features counted on them). Before, a fold's model
    was fitted on the whole training set's pruned vocabulary (minus the terms the fold never
    saw), as helper s26-apnbc noted."""
    from textnb import TextClassifier, Vectorizer
    from textnb.core.folds import calibration_folds
    from textnb.meta import calibration
    from textnb.meta.calibration import CalibratedNB, estimator_log_odds

    texts, labels = TEXTS[:240], np.asarray(LABELS[:240])
    make = _fold_models()[model]
    seen = []
    real = calibration.out_of_fold_log_odds

    def spy(*args, **kwargs):
        got = real(*args, **kwargs)
        seen.append(got[0])
        return got

    monkeypatch.setattr(calibration, "out_of_fold_log_odds", spy)
    clf = TextClassifier(vectorizer=Vectorizer(**vectorizer), model=CalibratedNB(make(), cv=3, random_state=5))
    clf.fit(texts, labels)
    got, = seen
    want = np.full(got.shape, np.nan)
    for train, test in calibration_folds(labels, 3, 5):
        base = make() if model != "auto" else clf.model_.estimator_.estimator_  # (auto: the smoothing chosen once)
        fresh = TextClassifier(vectorizer=Vectorizer(**vectorizer), model=base).fit(
            [texts[i] for i in train], labels[train])
        want[test] = estimator_log_odds(fresh, [texts[i] for i in test], clf.classes_)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
