"""``textnb evaluate`` on text fits each fold from the model's kernel (no estimator, no
scikit-learn imported), with the report the estimators give."""

import json

import pytest

from conftest import quick_first

from tests.conftest import SMS_TSV, cli_subprocess
from textnb.evaluation.evaluate import cross_validate, vectorize_all
from textnb.evaluation.runs import evaluate_documents

pytestmark = pytest.mark.skipif(not SMS_TSV.exists(), reason="bundled SMS collection missing")


def _estimator_report(model, args=(), cv=10):
    """The report of the estimator path: a TextClassifier of the estimator, cloned per fold."""
    import textnb
    from textnb.naive_bayes.complement import ComplementNB
    from textnb.naive_bayes.discrete import BernoulliNB, MultinomialNB
    from textnb.naive_bayes.discriminative import DiscriminativeNB
    from textnb.text.classifier import TextClassifier
    from textnb.text.vectorizer import Vectorizer

    make = {"discriminative": DiscriminativeNB, "multinomial": MultinomialNB, "bernoulli": BernoulliNB,
            "complement": ComplementNB}[model]
    # (the default model with no vectorizer given: short texts such as these get their bigrams)
    classifier = TextClassifier(vectorizer=None if model == "discriminative" else Vectorizer(), model=make(**dict(args)))
    report = evaluate_documents(textnb.open_corpus(SMS_TSV), classifier, cv=cv)
    return {k: v for k, v in report.items() if k != "seconds"}


@pytest.mark.parametrize("model, cv", [pytest.param("discriminative", 10, marks=pytest.mark.slow), ("multinomial", 3),
                                       pytest.param("bernoulli", 3, marks=pytest.mark.slow),
                                       ("complement", 3)])
def test_cli_evaluate_on_text_imports_no_sklearn_and_reports_as_the_estimator(model, cv):
    args = ("--cv", str(cv)) + (("--model", model) if model != "discriminative" else ())
    status, out = cli_subprocess("evaluate", SMS_TSV, *args, "--json")
    assert status.split()[:2] == ["0", "False"]
    report = json.loads(out)
    del report["seconds"]
    assert report == _estimator_report(model, cv=cv)
    assert report["protocol"] == f"{cv}-fold cross-validation x 1"


@pytest.mark.parametrize("kind, params", [("BernoulliNB", {"alpha": 0.5}), ("MultinomialNB", {"fit_prior": False}),
                                           ("DiscriminativeNB", {"passes": 1})])
def test_cross_validate_with_a_kernel_equals_the_estimator(sms, kind, params):
    from textnb.core.model_io import model_class

    docs, y = sms
    docs, y = docs[:1500], y[:1500]
    vectorizer = {"binary": True, "min_df": 2}  # (a dict of the Vectorizer's parameters given)
    X, _ = vectorize_all(docs, vectorizer)
    kernel = cross_validate(X, y, (kind, params), cv=3, repeat=2, seed=1, vectorizer=vectorizer)
    want = cross_validate(X, y, model_class(kind)(**params), cv=3, repeat=2, seed=1, vectorizer=vectorizer)
    assert {**kernel, "seconds": 0} == {**want, "seconds": 0}


WRAPPED = [["--weighting", "--cv", "3"], ["--select", "ig:300", "--model", "multinomial", "--weighting", "--cv", "3"],
           ["--binary", "--model", "bernoulli", "--cv", "3"], ["--model", "auto", "--cv", "3"],
           ["--calibrate", "sigmoid", "--cv", "3"], ["--calibrate", "isotonic", "--select", "chi2:400", "--cv", "3"]]


@pytest.mark.parametrize("args", quick_first(WRAPPED, keep=2), ids=" ".join)
def test_cli_evaluate_of_wrapped_models_imports_no_sklearn_and_reports_as_the_estimators(args):
    """--binary / --select / --weighting / --model auto / --calibrate: each fold is fitted by the
    trainer's functions and scored by the scorer of its node, with the estimators' report."""
    import textnb
    from textnb.cli.commands import build_parser
    from textnb.meta.registry import ModelOptions, make_text_classifier

    status, out = cli_subprocess("evaluate", SMS_TSV, *args, "--json")
    assert status.split()[:2] == ["0", "False"]
    report = json.loads(out)
    del report["seconds"]
    opts = ModelOptions.from_namespace(build_parser().parse_args(["evaluate", str(SMS_TSV), *args]))
    want = evaluate_documents(textnb.open_corpus(SMS_TSV), make_text_classifier(opts), cv=3)
    del want["seconds"]
    assert json.loads(json.dumps(want)) == report


@pytest.mark.parametrize("options", [["--model", "bernoulli", "--select", "df:200"],
                                     ["--model", "multinomial", "--max-features", "100"],
                                     ["--select", "chi2:500"]])
def test_evaluate_prunes_and_selects_as_train_does_when_terms_tie(tmp_path, options):
    """``evaluate --test`` fits the model ``train`` builds from the training file, to the
    prediction: a fold's terms come in training's (alphabetical) column order, so
    ``--select`` and ``--max-features`` break ties among equally scored terms alike (the
    fold's columns were in the order the terms were met: another term kept at a tie)."""
    from conftest import SMS_TSV, cli

    lines = SMS_TSV.read_text(encoding="utf-8").splitlines()[:2000]
    (tmp_path / "tr.tsv").write_text("\n".join(lines[:1500]) + "\n", encoding="utf-8")
    (tmp_path / "te.tsv").write_text("\n".join(lines[1500:]) + "\n", encoding="utf-8")
    model = tmp_path / "m.tnb"
    assert cli("train", tmp_path / "tr.tsv", *options, "-o", model)[0] == 0
    rc, out, _ = cli("predict", model, tmp_path / "te.tsv", "--json")
    labels = [line.split("\t", 1)[0] for line in lines[1500:]]
    right = sum(json.loads(row)["label"] == label for row, label in zip(out.splitlines(), labels))
    rc, out, _ = cli("evaluate", tmp_path / "tr.tsv", "--test", tmp_path / "te.tsv", *options, "--json")
    report = json.loads(out)
    assert rc == 0 and report["n"] == len(labels) and round(report["accuracy"] * report["n"]) == right
