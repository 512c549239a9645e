"""The kernel of LazyTextNB (``textnb.semi_naive.lbr_text_kernel``) and its documents' trainer and
scorer (``textnb.semi_naive.lbr_text_io``): the estimator's model file and scores, bit for bit,
without scikit-learn; ``train`` / ``predict`` / ``evaluate --lazy`` import no scikit-learn and
print what the estimators print."""

import json

import numpy as np
import pytest

from conftest import assert_kernel_is_the_estimator, cli, cli_subprocess, quick_first
from textnb.core.model_io import load, save
from textnb.semi_naive.lbr_text import LazyTextNB
from textnb.semi_naive.lbr_text_io import LazyTextScorer, train_lazy_text_model
from textnb.semi_naive.lbr_text_kernel import LazyTextKernel
from textnb.text.classifier import TextClassifier
from textnb.text.scorer import load_for_prediction
from textnb.text.vectorizer import Vectorizer

#: rules fire on SMS with these (the defaults keep every message on "(no conditions)")
RULES = {"min_df": 5, "min_errors": 1, "significance": 0.5}
PARAMS = [{}, {"model": "bernoulli", **RULES}, {"screen": "ig", "stop_words": None, **RULES},
          {"max_candidates": 3, "n_screen": 40, "model": "bernoulli", **RULES}]


@pytest.fixture(scope="module")
def sms_terms(sms):
    docs, y = sms
    vec = Vectorizer().fit(docs[:2000])
    return vec.transform(docs[:2000]), y[:2000], vec.transform(docs[2000:2500]), vec.get_feature_names_out()


@pytest.mark.parametrize("params", quick_first(PARAMS, keep=2))
def test_kernel_is_the_estimator(sms_terms, tmp_path, params):
    X, y, X_test, terms = sms_terms
    kernel = LazyTextKernel(**params).fit(X, y, terms=terms)
    estimator = LazyTextNB(**params).fit(X, y, terms=terms)
    assert_kernel_is_the_estimator(kernel, estimator, X_test, tmp_path)
    assert kernel.predict_explain(X_test)[1] == estimator.predict_explain(X_test)[1]
    if params:
        assert any("term:" in rule for rule in kernel.explain(X_test))
    assert LazyTextKernel.defaults == LazyTextNB().get_params()


def test_kernel_refuses_what_the_estimator_refuses():
    X = np.array([[1.0, -1.0], [0.0, 2.0]])
    for model in (LazyTextKernel(), LazyTextNB()):
        with pytest.raises(ValueError, match="Negative values in data passed to LazyTextNB"):
            model.fit(X, ["a", "b"])
        with pytest.raises(ValueError, match="model must be one of"):
            type(model)(model="complement").fit(abs(X), ["a", "b"])
        fitted = type(model)(min_df=1).fit(abs(X), ["a", "b"])
        with pytest.raises(ValueError, match="X has 3 features, but LazyTextNB is expecting 2 features"):
            fitted.predict(np.ones((1, 3)))


@pytest.mark.parametrize("vectorizer, params", quick_first([
    ({}, {}),
    ({"binary": True}, {"model": "bernoulli", **RULES}),
    ({"stop_words": "english", "min_df": 2}, {"alpha": 0.5, **RULES}),
], keep=1, unpack=True))
def test_trainer_writes_the_estimators_file_and_the_scorer_scores_as_it(sms, tmp_path, vectorizer, params):
    """``train_lazy_text_model``'s file is the TextClassifier's, byte for byte; the file's
    scorer (``load_for_prediction``) scores 2,500 documents (two batches) as the loaded
    estimator, bit for bit, and explains them with the same rules."""
    docs, y = sms
    root, skipped = train_lazy_text_model(docs[:2500], y[:2500], vectorizer=vectorizer, model=params)
    assert skipped == []
    save(root, tmp_path / "trainer.tnb")
    TextClassifier(vectorizer=Vectorizer(**vectorizer), model=LazyTextNB(**params)).fit(
        docs[:2500], y[:2500]).save(tmp_path / "estimator.tnb")
    assert (tmp_path / "trainer.tnb").read_bytes() == (tmp_path / "estimator.tnb").read_bytes()
    scorer, estimator = load_for_prediction(tmp_path / "trainer.tnb"), load(tmp_path / "trainer.tnb")
    assert isinstance(scorer, LazyTextScorer)
    test = docs[2500:5000]
    for method in ("predict_joint_log_proba", "predict_log_proba", "predict_proba", "predict_log_odds", "predict"):
        np.testing.assert_array_equal(getattr(scorer, method)(test), getattr(estimator, method)(test))
    log_proba, odds = scorer.log_proba_and_odds(test)
    np.testing.assert_array_equal(log_proba, estimator.predict_log_proba(test))
    np.testing.assert_array_equal(odds, estimator.predict_log_odds(test))
    assert scorer.explain(test[:400]) == estimator.predict_explain(test[:400])[1]


def test_an_inconsistent_file_is_left_to_load(sms, tmp_path):
    """A file whose model does not match its vocabulary: no scorer; load's own error line."""
    from textnb.core.errors import ModelFileError
    from textnb.core.model_io import read_nodes
    from textnb.semi_naive.lbr_text_io import lazy_text_scorer

    docs, y = sms
    root, _ = train_lazy_text_model(docs[:300], y[:300])
    root.state["model_"].state["n_features_in_"] += 1
    save(root, tmp_path / "bad.tnb")
    assert lazy_text_scorer(read_nodes(tmp_path / "bad.tnb")) is None
    with pytest.raises(ModelFileError) as caught:
        load_for_prediction(tmp_path / "bad.tnb")
    assert str(caught.value).startswith(f"{tmp_path / 'bad.tnb'}: ") and "\n" not in str(caught.value)


def _topic_corpus(path, n=400, seed=3, context="hockey"):
    """A TSV of documents where a rule on ``context`` helps (as test_lbr_text's topic data)."""
    rng = np.random.default_rng(seed)
    words = [context, "goal", "puck", "w3", "w4", "w5", "w6", "w7"]
    lines = []
    for _ in range(n):
        counts = rng.poisson(0.3, size=8)
        context, label = rng.random() < 0.4, rng.random() < 0.5
        counts[0] = context * (1 + rng.poisson(1))
        counts[(1 if context else 2) if label else (2 if context else 1)] += 2 + rng.poisson(1)
        text = " ".join(["the"] + [w for w, k in zip(words, counts) for _ in range(k)])
        lines.append(f"{'a' if label else 'b'}\t{text}\n")
    path.write_text("".join(lines))
    return path


def _estimator_output(monkeypatch, *args):
    """The command's output through the estimators (no kernel, no scorer of lazy rules)."""
    import textnb.meta.registry as registry
    import textnb.text.scorer as scorer

    import textnb.evaluation.explain as explain

    with monkeypatch.context() as m:
        m.setattr(registry, "lazy_text_model", lambda opts: None)
        m.setattr(scorer, "SCORER_MODULES", {})
        m.setattr(explain, "_lazy_description", lambda root: None)
        return cli(*args)


@pytest.mark.parametrize("options", quick_first([
    ("--lazy", "hlbr"), ("--lazy", "hlbr", "--adjust", "--significance", "1"),
    ("--lazy", "lbr", "--model", "bernoulli", "--alpha", "0.5"),
    ("--lazy", "lbr", "--model", "bernoulli", "--adjust", "--adjust-on", "cv", "--seed", "2", "--significance", "1"),
    ("--lazy", "hlbr", "--adjust", "--adjust-on", "cv", "--min-df", "2", "--seed", "1", "--significance", "1"),
], keep=0))
def test_cli_lazy_documents_import_no_sklearn_and_print_what_the_estimators_print(tmp_path, monkeypatch, options):
    corpus = _topic_corpus(tmp_path / "topics.tsv")
    (tmp_path / "doc.txt").write_text("the hockey goal goal goal puck\n")
    status, out = cli_subprocess("train", corpus, *options, "-o", tmp_path / "k.tnb", "--json")
    assert status.split()[:2] == ["0", "False"], status
    rc, expected, _ = _estimator_output(monkeypatch, "train", corpus, *options, "-o", tmp_path / "e.tnb", "--json")
    assert rc == 0
    strip = [{k: v for k, v in json.loads(o).items() if k not in ("seconds", "model")} for o in (out, expected)]
    assert strip[0] == strip[1]
    assert (tmp_path / "k.tnb").read_bytes() == (tmp_path / "e.tnb").read_bytes()
    for command in (("predict", tmp_path / "k.tnb", corpus, "--proba", "--json"),
                    ("predict", tmp_path / "k.tnb", tmp_path / "doc.txt", "--explain"),
                    ("inspect", tmp_path / "k.tnb"), ("inspect", tmp_path / "k.tnb", "--json"),
                    ("predict", tmp_path / "k.tnb", corpus, "--explain", "--json")):
        status, out = cli_subprocess(*command)
        rc, expected, _ = _estimator_output(monkeypatch, *command)
        assert status.split()[:2] == [str(rc), "False"], command
        assert out == expected, command
    assert "term:hockey" in out
    command = ("evaluate", corpus, *options, "--cv", "3", "--json")
    status, out = cli_subprocess(*command)
    rc, expected, _ = _estimator_output(monkeypatch, *command)
    assert status.split()[:2] == [str(rc), "False"], command
    reports = [{k: v for k, v in json.loads(o).items() if k != "seconds"} for o in (out, expected)]
    assert reports[0] == reports[1]


def test_explain_of_an_adjusted_lazy_text_model(tmp_path):
    """``--lazy hlbr --adjust`` then ``predict --explain``: the rule of the lazy model inside
    APNBC (an internal error before), and APNBC's own label; the file is still the estimators'."""
    corpus = _topic_corpus(tmp_path / "topics.tsv")
    assert cli("train", corpus, "--lazy", "hlbr", "--adjust", "-o", tmp_path / "m.tnb")[0] == 0
    rc, out, err = cli("predict", tmp_path / "m.tnb", corpus, "--explain", "--json")
    assert rc == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    rc, plain, _ = cli("predict", tmp_path / "m.tnb", corpus, "--json")
    assert [r["label"] for r in rows] == [json.loads(line)["label"] for line in plain.splitlines()]
    assert all(r["explanation"].endswith(("documents", "document")) for r in rows)
    # the lazy model inside APNBC is fitted with the term names, as --lazy alone (issue #26)
    assert any("term:hockey" in r["explanation"] for r in rows)
    assert not any("term:#" in r["explanation"] for r in rows)


def _key_term_names(path):
    from textnb.core.wrapping import rule_model

    lazy = rule_model(load(path).model_)
    return [str(lazy.term_names_[t]) for t in lazy.key_terms_] if lazy.term_names_ is not None else None


@pytest.mark.parametrize("adjust", [[], ["--adjust", "--significance", "1"]])
def test_the_lazy_model_is_fitted_with_the_terms_with_and_without_adjust(tmp_path, adjust):
    """``--lazy`` (and APNBC around it, ``--adjust``): the key terms are screened for stop
    words by name -- a stop word that would make the best rule ("its") is never a key term --
    and the rules read terms; the trainer's file is the estimators' (APNBC.fit hands the terms
    on to the lazy model)."""
    corpus = _topic_corpus(tmp_path / "topics.tsv", context="its")
    assert cli("train", corpus, "--lazy", "hlbr", *adjust, "-o", tmp_path / "k.tnb")[0] == 0
    names = _key_term_names(tmp_path / "k.tnb")
    assert names and "its" not in names
    clf = TextClassifier(vectorizer=Vectorizer(), model=LazyTextNB())
    if adjust:
        from textnb.semi_naive.apnbc import APNBC

        clf.model = APNBC(LazyTextNB(), significance=1.0)
    docs, labels = zip(*(line.split("\t")[::-1] for line in corpus.read_text().splitlines()))
    save(clf.fit(list(docs), list(labels)), tmp_path / "e.tnb")
    assert (tmp_path / "k.tnb").read_bytes() == (tmp_path / "e.tnb").read_bytes()
    # without the names (a bare count matrix) "its" would be chosen: the screen is what keeps it out
    unnamed = LazyTextKernel().fit(clf.transform(list(docs)), list(labels))
    assert "its" in [str(clf.vectorizer_.get_feature_names_out()[t]) for t in unnamed.key_terms_]


def test_evaluate_fits_each_fold_with_its_terms(tmp_path):
    """``textnb evaluate --lazy``: each fold's lazy model is fitted with the names of the fold's
    columns, as ``textnb train`` fits it (its key terms screened for stop words)."""
    from textnb.semi_naive.apnbc_kernel import APNBCKernel

    seen = []

    class Recording(LazyTextKernel):
        def fit(self, X, y, terms=None):
            seen.append(None if terms is None else list(terms))
            assert terms is None or len(terms) == X.shape[1]
            return super().fit(X, y, terms=terms)

    from textnb.evaluation.runs import evaluate_documents
    from textnb.io.corpus import open_corpus

    data = open_corpus(str(_topic_corpus(tmp_path / "topics.tsv", context="its")))
    for model in (Recording(), APNBCKernel(Recording(), significance=1.0)):
        seen.clear()
        evaluate_documents(data, ({}, model), cv=3)
        assert len(seen) == 3 and all(terms and "its" in terms for terms in seen)


@pytest.mark.parametrize("options, words", quick_first([
    (("--select", "chi2:5"), "--select"), (("--weighting",), "--weighting"),
    (("--calibrate", "sigmoid"), "--calibrate"), (("--norm",), "--norm"),
    (("--weighting", "--select", "chi2:5"), "--select, --weighting"),
    (("--model", "complement"), "--model multinomial or bernoulli"),
    (("--model", "discriminative"), "not --model discriminative"), (("--model", "auto"), "not --model auto"),
    (("--significance", "0.2"), "go with --adjust"),
], keep=3, unpack=True))
@pytest.mark.parametrize("command", ["train", "evaluate"])
def test_lazy_on_documents_refuses_the_options_it_would_ignore(tmp_path, options, words, command):
    """``--lazy`` on documents refuses, in one line and before fitting anything, the options it
    would ignore (issue #26), also with ``--adjust``; without importing scikit-learn."""
    corpus = _topic_corpus(tmp_path / "topics.tsv", n=60)
    for adjust in ([], ["--adjust"]) if "--significance" not in options else ([],):
        args = (command, corpus, "--lazy", "hlbr", *adjust, *options)
        rc, out, err = cli(*args, *(("-o", tmp_path / "m.tnb") if command == "train" else ()))
        # (--adjust with --weighting / --select is refused at argument time first, in its own words)
        said = words in err or (adjust and "--adjust does not go with" in err and words.split(", ")[0] in err)
        assert rc == 1 and said and len(err.strip().splitlines()) == 1, err
        assert not (tmp_path / "m.tnb").exists()
    status, _ = cli_subprocess(*args)
    assert status.split()[:2] == ["1", "False"]


@pytest.mark.parametrize("adjust, kind", [([], "LazyTextNB"), (["--adjust"], "APNBC")])
def test_merge_refuses_lazy_text_models_from_their_nodes(tmp_path, adjust, kind):
    """``textnb merge`` of a lazy text file (with or without APNBC) first: the estimator
    path's one-line refusal, without building the estimators."""
    corpus = _topic_corpus(tmp_path / "topics.tsv", n=80)
    assert cli("train", corpus, "--lazy", "hlbr", *adjust, "-o", tmp_path / "k.tnb")[0] == 0
    status, _ = cli_subprocess("merge", tmp_path / "k.tnb", tmp_path / "k.tnb", "-o", tmp_path / "m.tnb")
    assert status.split()[:2] == ["1", "False"]
    rc, _, err = cli("merge", tmp_path / "k.tnb", tmp_path / "k.tnb", "-o", tmp_path / "m.tnb")
    assert rc == 1 and err.startswith(f"textnb: error: {tmp_path / 'k.tnb'}: a text model of {kind} cannot be merged")


@pytest.mark.parametrize("command", ["train", "evaluate"])
def test_lazy_help_says_lbr_and_hlbr_are_one_model_on_documents(tmp_path, capsys, command):
    """Session 48's trial: ``--help`` promised two methods, but on documents ``--lazy lbr`` and
    ``--lazy hlbr`` write the same file (LazyTextNB: its key-term candidates always come from
    HLBR's training-time filter). The help now says so, and tables keep the two."""
    from pathlib import Path

    rc, out, _ = cli(command, "--help")
    text = " ".join((out + capsys.readouterr().out).split())
    assert rc == 0
    assert "Tables: lbr (every attribute a candidate condition) or hlbr (candidates chosen at training time)" in text
    assert "documents: lbr and hlbr are one model (the same file)" in text
    if command == "evaluate":
        return
    corpus = _topic_corpus(tmp_path / "topics.tsv", n=120)
    for method in ("lbr", "hlbr"):
        assert cli("train", corpus, "--lazy", method, "-o", tmp_path / f"{method}.tnb")[0] == 0
    assert (tmp_path / "lbr.tnb").read_bytes() == (tmp_path / "hlbr.tnb").read_bytes()
    table = Path(__file__).resolve().parents[2] / "corpora" / "weather.nominal.arff"
    if table.exists():
        for method in ("lbr", "hlbr"):
            assert cli("train", table, "--lazy", method, "-o", tmp_path / f"t{method}.tnb")[0] == 0
        assert (tmp_path / "tlbr.tnb").read_bytes() != (tmp_path / "thlbr.tnb").read_bytes()
