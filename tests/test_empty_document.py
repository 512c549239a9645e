"""A document with no known term gets the class prior, on every path that scores a text
(issue 30): the estimators in memory and loaded, the model-file scorer (``textnb
predict``'s fast path), ``textnb predict`` itself, ``textnb serve``'s ``/classify``,
``topicfilter``'s routing and the spam paths (``spamfilter`` with the lite and the numpy
scorers, the daemon's verdict).

The training documents are mostly spam, so the prior's class ("spam") is not the first
class in sorted order ("ham"): equal scores, the old answer for the complement models,
would give "ham" and 1/2.
"""

import io
import json
import math

import numpy as np
import pytest

from conftest import SMS_TSV, cli

import textnb
from textnb import TextClassifier
from textnb.apps.filtering import SpamFilter, plan_routes
from textnb.apps.serve import _load_text_model, classify_texts
from textnb.apps.spamlite import SPAM_KINDS, LiteFilter
from textnb.apps.spamscore import SpamScorer
from textnb.apps.verdict import message_verdict
from textnb.cli.mailfilters import filter_main
from textnb.core.model_io import load
from textnb.naive_bayes.complement import ComplementNB
from textnb.naive_bayes.discrete import MultinomialNB
from textnb.naive_bayes.discriminative import DiscriminativeNB
from textnb.text.scorer import TextScorer, load_for_prediction

EMPTY, UNKNOWN = "", "zzqxunknown blorfunknown"
MESSAGE = b"zzqxunknown blorfunknown\n"  # a header-less message: no token a model of SMS texts knows

MODELS = {
    "complement": lambda: ComplementNB(),
    "complement_norm": lambda: ComplementNB(norm=True),
    "discriminative_complement": lambda: DiscriminativeNB(event_model="complement"),
    "multinomial": lambda: MultinomialNB(),
}


@pytest.fixture(scope="module")
def corpus():
    """SMS messages, every spam and 300 ham: P(spam) = 747 / 1047."""
    c = textnb.open_corpus(SMS_TSV)
    docs, y = list(c.documents), np.asarray(c.labels)
    keep = np.flatnonzero(y == "spam").tolist() + np.flatnonzero(y == "ham")[:300].tolist()
    return [docs[i] for i in keep], y[keep]


@pytest.fixture(scope="module")
def prior(corpus):
    _, y = corpus
    return np.array([np.mean(y == "ham"), np.mean(y == "spam")])


@pytest.fixture(scope="module")
def models(corpus, tmp_path_factory):
    folder = tmp_path_factory.mktemp("empty_models")
    docs, y = corpus
    out = {}
    for name, make in MODELS.items():
        clf = TextClassifier(model=make()).fit(docs, y)
        path = folder / f"{name}.tnb"
        clf.save(path)
        out[name] = (clf, path)
    return out


@pytest.fixture(scope="module")
def documents(tmp_path_factory):
    folder = tmp_path_factory.mktemp("empty_docs")
    (folder / "empty.txt").write_text(EMPTY)
    (folder / "unknown.txt").write_text(UNKNOWN + "\n")
    return [folder / "empty.txt", folder / "unknown.txt"]


def _every_path(clf, path, documents, tmp_path):
    """``{path name: (labels, probabilities)}`` of the two documents on every text path."""
    texts = [EMPTY, UNKNOWN]
    got = {"estimator": clf, "loaded": load(path)}
    scorer = load_for_prediction(path)
    assert isinstance(scorer, TextScorer)  # the fast path, not the estimator again
    got["scorer"] = scorer
    out = {k: (m.predict(texts), m.predict_proba(texts)) for k, m in got.items()}
    classes = [str(c) for c in clf.classes_]

    rc, stdout, _ = cli("predict", path, *documents, "--json", "--proba")
    assert rc == 0
    rows = [json.loads(line) for line in stdout.splitlines()]
    out["textnb predict"] = ([r["label"] for r in rows], [[r["proba"][c] for c in classes] for r in rows])

    lines = tmp_path / "lines.txt"
    lines.write_text(UNKNOWN + "\n")
    rc, stdout, _ = cli("predict", path, "--lines", lines, "--json", "--proba")
    assert rc == 0
    row = json.loads(stdout)
    out["textnb predict --lines"] = ([row["label"]], [[row["proba"][c] for c in classes]])

    answer = classify_texts(_load_text_model(path), {"texts": texts})
    out["textnb serve"] = (answer["labels"], answer["probabilities"])

    routes = list(plan_routes(load(path), documents, tmp_path / "routed", threshold=0.0))
    out["topicfilter"] = ([r.label for r in routes], None)
    out["topicfilter confidence"] = [r.confidence for r in routes]
    return out


@pytest.mark.parametrize("name", list(MODELS))
def test_every_text_path_gives_the_prior_to_a_document_without_evidence(name, models, documents, prior, tmp_path):
    clf, path = models[name]
    out = _every_path(clf, path, documents, tmp_path)
    confidence = out.pop("topicfilter confidence")
    for where, (labels, proba) in out.items():
        assert set(labels) == {"spam"}, where  # the most frequent class, not the first
        if proba is not None:
            np.testing.assert_allclose(np.asarray(proba), np.tile(prior, (len(labels), 1)), atol=1e-9,
                                       err_msg=where)
    np.testing.assert_allclose(confidence, prior.max(), atol=1e-9)


def test_a_document_with_a_known_term_keeps_its_score(models):
    """Only documents without evidence change: one known term moves the complement model off the prior."""
    clf, _ = models["complement"]
    proba = clf.predict_proba(["free", "free " + UNKNOWN])
    assert proba[0, 1] != pytest.approx(clf.predict_proba([EMPTY])[0, 1], abs=1e-3)
    np.testing.assert_array_equal(proba[0], proba[1])


def test_bernoulli_models_keep_the_evidence_of_absent_terms(corpus, tmp_path, documents):
    """The Bernoulli event model scores the absence of every term (its own evidence, with the
    prior in its bias): not the prior, but the same numbers on every path."""
    docs, y = corpus
    clf = TextClassifier(model=DiscriminativeNB(event_model="bernoulli")).fit(docs, y)
    path = tmp_path / "bernoulli.tnb"
    clf.save(path)
    out = _every_path(clf, path, documents, tmp_path)
    out.pop("topicfilter confidence")
    ref_labels, ref = out.pop("estimator")
    for where, (labels, proba) in out.items():
        assert list(labels) == list(ref_labels)[:len(labels)], where
        if proba is not None:
            np.testing.assert_allclose(np.asarray(proba), ref[:len(labels)], atol=1e-9, err_msg=where)


# -- the spam paths ----------------------------------------------------------------------
def _filter(model_path, message):
    """``spamfilter -p``: (exit status, log-odds from X-TextNB-Score)."""
    out, err = io.BytesIO(), io.StringIO()
    code = filter_main(["-m", str(model_path), "-p"], stdin=io.BytesIO(message), stdout=out, stderr=err)
    assert code in (0, 1, 2), err.getvalue()
    score = [line for line in out.getvalue().splitlines() if line.startswith(b"X-TextNB-Score: ")]
    return code, float(score[0].split(b": ")[1])


@pytest.fixture(scope="module")
def spam_models(corpus, models, tmp_path_factory):
    """The default spam kind (SpamScorer, boolean) trained on the same texts, and the complement text model."""
    docs, y = corpus
    path = tmp_path_factory.mktemp("spam") / "boolean.tnb"
    SpamScorer(**SPAM_KINDS["boolean"]).fit([d.split() for d in docs], y).save(path)
    return {"boolean": path, "complement": models["complement"][1]}


@pytest.mark.parametrize("kind", ["boolean", "complement"])
def test_every_spam_path_gives_the_prior_log_odds_to_a_message_without_known_tokens(kind, spam_models, prior):
    path = spam_models[kind]
    prior_log_odds = math.log(prior[1]) - math.log(prior[0])
    verdicts = {"SpamFilter": SpamFilter.load(path).classify([MESSAGE])[0],
                "daemon": message_verdict(load(path), MESSAGE)}
    if kind == "boolean":
        lite = LiteFilter.load(path)
        assert lite is not None
        verdicts["LiteFilter"] = lite.classify([MESSAGE])[0]
        np.testing.assert_allclose(load(path).decision_function([["zzqxunknown"], []]), prior_log_odds, atol=1e-9)
    for where, v in verdicts.items():
        assert v.log_odds == pytest.approx(prior_log_odds, abs=1e-9), where
        assert v.score == pytest.approx(prior[1], abs=1e-9), where
        assert v.label == "unsure", where  # P(spam) 0.71: between the cut-offs 0.45 and 0.9999
    code, log_odds = _filter(path, MESSAGE)
    assert code == 2 and log_odds == pytest.approx(prior_log_odds, abs=1e-9)


def test_fisher_spam_kind_calls_a_message_without_known_tokens_unsure(corpus, tmp_path):
    """Robinson-Fisher has no class prior: no token gives the indicator 1/2 (log-odds 0), unsure."""
    docs, y = corpus
    path = tmp_path / "fisher.tnb"
    SpamScorer(**SPAM_KINDS["fisher"]).fit([d.split() for d in docs], y).save(path)
    v = message_verdict(load(path), MESSAGE)
    assert (v.label, v.log_odds) == ("unsure", 0.0)
    assert _filter(path, MESSAGE) == (2, 0.0)


def test_a_blank_message_stays_an_error_on_the_spam_paths(spam_models):
    """Zero bytes (or only white space) is a failed delivery, not a message: exit 3 and
    nothing scored, as for the compiled client and the daemons (docs/spam.md)."""
    for path in spam_models.values():
        out, err = io.BytesIO(), io.StringIO()
        assert filter_main(["-m", str(path)], stdin=io.BytesIO(b"\n"), stdout=out, stderr=err) == 3
        assert err.getvalue() == "spamfilter: stdin: empty message\n"


@pytest.mark.parametrize("name", ["complement", "discriminative_complement"])
def test_explain_of_a_document_without_evidence_is_the_prior(name, models, prior):
    """``predict --explain``: no term to list, and the margin is the prior's (the explanation
    of a document with terms keeps the model's bias: 0 for complement models, the residual
    layer's for a DiscriminativeNB that has one)."""
    from textnb.evaluation.explain import explain

    clf, _ = models[name]
    for doc in (EMPTY, UNKNOWN):
        e = explain(clf, doc)
        assert (e["predicted"], e["for"], e["against"]) == ("spam", [], [])
        assert e["margin"] == pytest.approx(math.log(prior[1] / prior[0]), abs=1e-9) == e["prior"]
    e = explain(clf, "free prize")
    jll = clf.predict_joint_log_proba(["free prize"])[0]
    bias = getattr(clf.model_, "residual_intercept_", np.zeros(2))
    sign = 1 if e["predicted"] == "spam" else -1
    assert e["prior"] == pytest.approx(sign * (bias[1] - bias[0]), abs=1e-9)
    assert e["margin"] == pytest.approx(abs(jll[1] - jll[0]), abs=1e-9)
