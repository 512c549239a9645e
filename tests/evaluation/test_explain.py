import csv

import numpy as np
import pytest
from sklearn.pipeline import make_pipeline

from textnb import BernoulliNB, MultinomialNB, TextClassifier
from textnb.meta.calibration import CalibratedNB
from textnb.naive_bayes.complement import ComplementNB
from textnb.evaluation.explain import explain, informative_terms, linear_weights
from textnb.text.selection import SelectTerms
from textnb.evaluation.inspection import informative_terms as plain_informative_terms
from textnb.meta.smoothing import SmoothingCV
from textnb.text.weighting import TermWeighting

SPAM = "WINNER!! You have won a free prize of 1000 cash, call 09061701461 now to claim"


@pytest.fixture(scope="module")
def sms(sms_tsv):
    with open(sms_tsv, encoding="utf-8") as f:
        rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    return [r[1] for r in rows][:3000], np.array([r[0] for r in rows])[:3000]


MODELS = {
    "multinomial": lambda: MultinomialNB(),
    "bernoulli": lambda: BernoulliNB(),
    "complement": lambda: ComplementNB(norm=True),
    "pipeline": lambda: make_pipeline(SelectTerms(k=1500), TermWeighting(), ComplementNB(alpha=0.3)),
    "calibrated": lambda: CalibratedNB(make_pipeline(TermWeighting(), MultinomialNB(m=300)), cv=3),
    "smoothing-cv": lambda: SmoothingCV(cv=3),
}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_contributions_add_up_to_the_margin(sms, name):
    texts, y = sms
    clf = TextClassifier(model=MODELS[name]()).fit(texts, y)
    e = explain(clf, SPAM, top=10_000)
    total = e["prior"] + sum(t["contribution"] for t in e["for"] + e["against"])
    assert total == pytest.approx(e["margin"], rel=1e-9, abs=1e-9)
    assert e["predicted"] == "spam" and e["runner_up"] == "ham"
    assert [t["contribution"] for t in e["for"]] == sorted((t["contribution"] for t in e["for"]), reverse=True)
    top = {t["term"] for t in explain(clf, SPAM, top=5)["for"]}
    assert top & {"prize", "claim", "won", "winner", "cash", "free", "call"}


def test_contribution_is_count_times_weight_difference(sms):
    texts, y = sms
    clf = TextClassifier(model=MultinomialNB()).fit(texts, y)
    e = explain(clf, "free free free prize", top=3)
    W, _, _ = linear_weights(clf.model_)
    col = clf.vectorizer_.vocabulary_["free"]
    p, r = list(clf.classes_).index("spam"), list(clf.classes_).index("ham")
    free = next(t for t in e["for"] if t["term"] == "free")
    assert free["count"] == 3 and free["contribution"] == pytest.approx(3 * (W[p, col] - W[r, col]))


@pytest.mark.parametrize("event_model", ["complement", "bernoulli"])
def test_default_model_explains_its_document_features(sms, event_model):
    """DiscriminativeNB: a term contributes its feature value (log(1 + tf) / length, or
    presence) times the weight difference, plus (the complement model's residual layer over
    presence) that layer's weight difference, and the contributions add up to the margin
    the model's own scores have."""
    from textnb.naive_bayes.discriminative import DiscriminativeNB

    texts, y = sms
    clf = TextClassifier(model=DiscriminativeNB(event_model=event_model)).fit(texts, y)
    e = explain(clf, "free free free prize call now", top=100)
    W, _, _ = linear_weights(clf.model_)
    col = clf.vectorizer_.vocabulary_["free"]
    p, r = list(clf.classes_).index(e["predicted"]), list(clf.classes_).index(e["runner_up"])
    free = next(t for t in e["for"] + e["against"] if t["term"] == "free")
    x = clf.model_._features(clf.transform(["free free free prize call now"])).toarray().ravel()
    assert free["count"] == 3 and free["value"] == pytest.approx(x[col])
    P = clf.model_.linear_form().presence  # the residual layer over presence (complement)
    assert (P is not None) == (event_model == "complement")
    layer = 0.0 if P is None else P[p, col] - P[r, col]
    assert free["contribution"] == pytest.approx(x[col] * (W[p, col] - W[r, col]) + layer)
    total = e["prior"] + sum(t["contribution"] for t in e["for"] + e["against"])
    assert total == pytest.approx(e["margin"])
    jll = clf.model_.predict_joint_log_proba(clf.transform(["free free free prize call now"]))[0]
    assert e["margin"] == pytest.approx(jll[p] - jll[r])


def test_informative_terms_look_through_wrappers(sms):
    texts, y = sms
    plain = TextClassifier(model=ComplementNB()).fit(texts, y)
    assert informative_terms(plain, 5) == plain_informative_terms(plain, 5)
    wrapped = TextClassifier(model=CalibratedNB(make_pipeline(SelectTerms(k=800), ComplementNB()), cv=3))
    wrapped.fit(texts, y)
    terms = informative_terms(wrapped, 5)
    assert set(terms) == {"ham", "spam"} and len(terms["spam"]) == 5
    kept = set(np.array(list(wrapped.vectorizer_.vocabulary_))[
        wrapped.model_.estimator_.steps[0][1].get_support()])
    assert {t for t, _ in terms["spam"]} <= kept


@pytest.mark.parametrize("model", [BernoulliNB(alpha=0.5), "bernoulli"])
def test_informative_terms_of_a_bernoulli_model_are_log_odds_of_its_own_term_probabilities(sms, tmp_path, model):
    """A Bernoulli event model's term probability is the share of a class's documents that hold
    the term, (N_cw + alpha) / (N_c + 2 alpha) (its feature_log_prob_); inspect printed log-odds of
    shares of the class's term occurrences instead (SMS BernoulliNB: 'gt' 4.52 for 3.63, 'claim' 5.67
    for 6.56), as for a multinomial model; the file's reader (textnb inspect) and the estimator alike."""
    import json

    from conftest import cli
    from textnb.naive_bayes.discriminative import DiscriminativeNB

    texts, y = sms
    clf = TextClassifier(model=model if model != "bernoulli" else DiscriminativeNB(event_model="bernoulli"))
    clf.fit(texts, y)
    nb, vocab = clf.model_, clf.vectorizer_.vocabulary_
    fc, docs = nb.feature_count_, np.asarray(nb.class_count_, dtype=float)
    alpha = nb.alpha if model != "bernoulli" else nb.alpha_
    if model != "bernoulli":  # (the model's own estimate, which the figure is made of)
        assert np.log((fc[1] + alpha) / (docs[1] + 2 * alpha)) == pytest.approx(nb.feature_log_prob_[1])
    clf.save(tmp_path / "m.tnb")
    code, out, _ = cli("inspect", tmp_path / "m.tnb", "--top", "5", "--json")
    from_file = json.loads(out)["informative_terms"]
    for i, c in enumerate(nb.classes_):
        terms = plain_informative_terms(clf, 5)[c]
        assert [t for t, _ in terms] == [t for t, _ in from_file[c]]
        for term, score in terms:
            j = vocab[term]
            rest, rest_docs = fc[:, j].sum() - fc[i, j], docs.sum() - docs[i]
            expected = np.log((fc[i, j] + alpha) / (docs[i] + 2 * alpha)) - np.log((rest + alpha) / (rest_docs + 2 * alpha))
            assert score == pytest.approx(expected)
        assert [s for _, s in from_file[c]] == pytest.approx([s for _, s in terms])


@pytest.mark.parametrize("model", [MultinomialNB(m=300), BernoulliNB(m=50)])
def test_informative_terms_of_an_m_estimate_model_use_its_m(sms, model):
    """A model smoothed by the m-estimate (--m): inspect's log-odds took alpha (1) instead, so
    the class's term probability in them was not the model's (its feature_log_prob_)."""
    texts, y = sms
    clf = TextClassifier(model=model).fit(texts, y)
    nb, vocab = clf.model_, clf.vectorizer_.vocabulary_
    fc, m = nb.feature_count_, float(model.m)
    bernoulli = isinstance(model, BernoulliNB)
    if bernoulli:
        docs = np.asarray(nb.class_count_, dtype=float)
        p = (fc.sum(axis=0) + 1) / (docs.sum() + 2)
    else:
        p = (fc.sum(axis=0) + 1) / (fc.sum() + fc.shape[1])  # (the background: add-one over the terms)
    for i, c in enumerate(nb.classes_):
        for term, score in plain_informative_terms(clf, 5)[c]:
            j = vocab[term]
            rest = fc[:, j].sum() - fc[i, j]
            if bernoulli:
                other = np.log((rest + m * p[j]) / (docs.sum() - docs[i] + m))
            else:
                other = np.log((rest + m * p[j]) / (fc.sum() - fc[i].sum() + m))
            assert score == pytest.approx(nb.feature_log_prob_[i, j] - other)


def test_non_linear_model_is_refused(sms):
    from sklearn.tree import DecisionTreeClassifier

    texts, y = sms
    clf = TextClassifier(model=DecisionTreeClassifier(max_depth=2)).fit(texts[:200], y[:200])
    with pytest.raises(TypeError, match="linear count model"):
        explain(clf, SPAM)


@pytest.mark.parametrize("name", ["TabularNB", "TAN", "AODE", "MultinomialNB"])
def test_a_model_without_documents_is_refused_in_one_typeerror(name):
    """``explain(TabularNB().fit(...), row)`` raised AttributeError ('TabularNB' object has no
    attribute 'transform'); a model explain cannot read documents through (a table model, a bare
    count model) is a TypeError naming it and what explains it (explain_rows, which does)."""
    import textnb
    from textnb.evaluation.explain import explain_rows

    X, y = np.array([[0, 1], [1, 0], [0, 0], [1, 1]] * 3), ["x", "y", "x", "y"] * 3
    model = getattr(textnb, name)().fit(X, y)
    with pytest.raises(TypeError, match=f"cannot explain a {name}: explain needs a text classifier.*explain_rows"):
        explain(model, X[0])
    if name != "MultinomialNB":  # (a table model: what the message points to explains it)
        assert explain_rows(model, X[:1])[0]["predicted"] == model.predict(X[:1])[0]


def test_the_top_terms_are_the_start_of_a_longer_list_whatever_the_ties():
    """``inspect --top N`` kept an arbitrary one of the terms tied with the N-th score (numpy's
    partition), then sorted by name: ``--top 5`` listed ``blunkett`` where ``--top 6`` listed
    ``asylum, blunkett`` (both 4.83). Ties at the cut are broken by name, as within a list."""
    from textnb.evaluation.inspection import term_log_odds

    rng = np.random.default_rng(0)
    docs = [" ".join(rng.choice(["w%02d" % i for i in range(40)], 8)) for _ in range(30)]
    docs += [" ".join(f"tie{i:02d}" for i in range(60))] * 3
    model = TextClassifier(model=BernoulliNB()).fit(docs, ["a"] * 30 + ["b"] * 3)
    terms = list(model.vectorizer_.vocabulary_)
    full = term_log_odds(model.model_, terms, top=len(terms))["b"]
    for top in range(1, 70):
        assert term_log_odds(model.model_, terms, top=top)["b"] == full[:top], top
    assert [t for t, _ in full[:60]] == [f"tie{i:02d}" for i in range(60)]
