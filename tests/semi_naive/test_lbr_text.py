"""Tests of textnb.semi_naive.lbr_text.LazyTextNB: LOO without retraining equals retraining, the global
model equals textnb's NB, key-term rules help on an interaction, model files, explanations."""

import re
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils.estimator_checks import parametrize_with_checks

from textnb.semi_naive.lbr_text import LazyTextNB
from textnb.core.model_io import load
from textnb.naive_bayes.discrete import BernoulliNB, MultinomialNB

MODELS = [("multinomial", MultinomialNB), ("bernoulli", BernoulliNB)]


def _counts(n=60, v=15, seed=1):
    X = sp.random(n, v, density=0.3, random_state=seed, format="csr")
    X.data = np.ceil(X.data * 3)
    y = np.random.default_rng(seed).integers(0, 3, n)
    return X, y


@pytest.mark.parametrize("model,NB", MODELS)
@pytest.mark.parametrize("dropped", [(), (3,), (2, 7)])
def test_leave_one_out_equals_retraining(model, NB, dropped):
    X, y = _counts()
    lazy = LazyTextNB(model=model, min_df=1, min_errors=10**9).fit(X, y)
    engine = lazy._engine
    Xb = engine.X
    scores = engine.scores(engine.table(engine.all_rows, dropped), Xb, y_out=engine.y)
    keep = np.setdiff1d(np.arange(X.shape[1]), dropped)
    Xd = sp.csr_matrix(Xb.toarray()[:, keep])
    for i in range(X.shape[0]):
        rest = np.arange(X.shape[0]) != i
        ref = NB().fit(Xd[rest], y[rest])
        np.testing.assert_allclose(scores[i], ref.predict_joint_log_proba(Xd[i])[0], atol=1e-9)


@pytest.mark.parametrize("model,NB", MODELS)
@pytest.mark.parametrize("dropped", [(), (4,)])
def test_subset_tables_restricted_to_present_terms(model, NB, dropped):
    """A subset lacking many terms: local scores (plain and leave-one-out) over the columns
    that occur equal NB retrained on the subset over the whole vocabulary."""
    X = sp.random(80, 100, density=0.08, random_state=3, format="lil")
    X[:, 4] = (np.arange(80) % 2)[:, None]  # a frequent term to condition on
    X = X.tocsr()
    X.data = np.ceil(X.data * 3)
    y = np.random.default_rng(3).integers(0, 3, 80)
    lazy = LazyTextNB(model=model, min_df=1, min_errors=10**9).fit(X, y)
    engine = lazy._engine
    Xb = engine.X
    rows = np.flatnonzero(Xb[:, 4].toarray().ravel() > 0)[:12]
    test = np.arange(70, 73)
    keep = np.setdiff1d(np.arange(X.shape[1]), dropped)
    Xd = sp.csr_matrix(Xb.toarray()[:, keep])
    loc = engine.table(rows, dropped, extra_cols=np.unique(Xb[test].indices))
    assert loc.n_out > 0
    ref = NB().fit(Xd[rows], y[rows])
    ok = np.isin(np.arange(3), y[rows])
    np.testing.assert_allclose(engine.scores(loc, Xb[test])[:, ok],
                               ref.predict_joint_log_proba(Xd[test]), atol=1e-9)
    loo = engine.scores(engine.table(rows, dropped), Xb[rows], y_out=engine.y[rows])
    for i, r in enumerate(rows):
        rest = rows[rows != r]
        ref = NB().fit(Xd[rest], y[rest])
        got = loo[i][np.isin(np.arange(3), y[rest])]
        np.testing.assert_allclose(got, ref.predict_joint_log_proba(Xd[r])[0], atol=1e-9)


@pytest.mark.parametrize("model,NB", MODELS)
def test_without_rules_it_is_naive_bayes(model, NB):
    X, y = _counts(seed=2)
    lazy = LazyTextNB(model=model, min_df=1, min_errors=10**9).fit(X, y)
    Xb = X.copy()
    if model == "bernoulli":
        Xb.data[:] = 1
    np.testing.assert_allclose(lazy.predict_joint_log_proba(X),
                               NB().fit(Xb, y).predict_joint_log_proba(Xb), atol=1e-9)
    assert all(r.startswith("(no conditions)") for r in lazy.explain(X))


def _topic_data(n, seed):
    """Term 0 ("hockey") flips which of terms 1/2 signals class a: a rule on it must help.

    "hockey" is in about 40 % of the documents: a key term must be in at most ``max_df``
    (default half) of them."""
    rng = np.random.default_rng(seed)
    X = rng.poisson(0.3, size=(n, 8)).astype(float)
    context = rng.random(n) < 0.4
    y = rng.random(n) < 0.5
    X[:, 0] = context * (1 + rng.poisson(1, n))
    signal = np.where(context, 1, 2)
    other = np.where(context, 2, 1)
    X[np.arange(n), np.where(y, signal, other)] += 2 + rng.poisson(1, n)
    return sp.csr_matrix(X), np.where(y, "a", "b")


def test_rules_on_key_terms_help():
    X, y = _topic_data(600, 3)
    Xt, yt = _topic_data(300, 4)
    terms = ["hockey", "goal", "puck", "w3", "w4", "w5", "w6", "w7"]
    lazy = LazyTextNB(min_df=5).fit(X, y, terms=terms)
    assert 0 in lazy.key_terms_.tolist()
    acc_lazy = np.mean(lazy.predict(Xt) == yt)
    acc_nb = np.mean(MultinomialNB().fit(X, y).predict(Xt) == yt)
    assert acc_lazy > acc_nb + 0.1
    pred, rules = lazy.predict_explain(Xt[:30])
    pat = re.compile(r"^((term:\w+)( & term:\w+)*|\(no conditions\)) -> local NB on \d+ documents?$")
    assert all(pat.match(r) for r in rules), rules
    assert any("term:hockey" in r for r in rules)


def test_key_terms_are_never_stop_words():
    X, y = _topic_data(600, 3)
    terms = ["the", "goal", "puck", "w3", "w4", "w5", "w6", "w7"]  # the flipping context is "the"
    assert 0 in LazyTextNB(min_df=5, stop_words=None).fit(X, y, terms=terms).key_terms_.tolist()
    lazy = LazyTextNB(min_df=5).fit(X, y, terms=terms)
    assert 0 not in lazy.key_terms_.tolist()
    assert not any("term:the" in r for r in lazy.explain(X[:50]))
    own = LazyTextNB(min_df=5, stop_words=["goal"]).fit(X, y, terms=terms)
    assert 1 not in own.key_terms_.tolist() and 0 in own.key_terms_.tolist()


def test_frequent_terms_are_not_key_terms():
    X, y = _topic_data(600, 3)
    df = np.asarray((X > 0).sum(axis=0)).ravel() / X.shape[0]
    lazy = LazyTextNB(min_df=5, max_df=0.3).fit(X, y)
    assert np.all(df[lazy.key_terms_] <= 0.3)
    assert 0 in LazyTextNB(min_df=5, max_df=0.45).fit(X, y).key_terms_.tolist()  # df about 0.4
    assert 0 not in lazy.key_terms_.tolist()


def test_screen_ranks_discriminating_terms():
    """With room for one screened term, chi2_max keeps the term concentrated in a class."""
    rng = np.random.default_rng(0)
    n = 800
    y = rng.random(n) < 0.5
    X = np.zeros((n, 3))
    X[:, 0] = rng.random(n) < np.where(y, 0.35, 0.15)  # everywhere, a little more in a
    X[:, 1] = (rng.random(n) < 0.12) & y  # only in a
    X[:, 2] = rng.poisson(1.0, n)
    from textnb.text.selection import term_scores

    B = (X > 0).astype(float)
    class_df = np.array([B[~y].sum(axis=0), B[y].sum(axis=0)])
    chi = term_scores(class_df, [np.sum(~y), np.sum(y)], "chi2")
    assert np.argmax(chi) == 1
    for screen in ("chi2", "ig"):
        lazy = LazyTextNB(min_df=5, n_screen=2, screen=screen).fit(X, np.where(y, "a", "b"))
        best = term_scores(class_df, [np.sum(~y), np.sum(y)], screen)
        eligible = [t for t in range(3) if 5 <= class_df[:, t].sum() <= 0.5 * n]  # term 2: df > 0.5
        assert eligible == [0, 1]
        assert lazy.screened_terms_.tolist() == sorted(eligible, key=lambda t: -best[t])
    assert LazyTextNB(min_df=5, n_screen=1).fit(X, y).screened_terms_.tolist() == [1]


def test_parallel_equals_serial():
    X, y = _topic_data(300, 5)
    a = LazyTextNB(min_df=5).fit(X, y)
    b = LazyTextNB(min_df=5, n_jobs=2).fit(X, y)
    assert a.explain(X[:40]) == b.explain(X[:40])
    np.testing.assert_allclose(a.predict_log_proba(X[:40]), b.predict_log_proba(X[:40]))


def test_save_load_roundtrip(tmp_path):
    X, y = _topic_data(300, 6)
    lazy = LazyTextNB(min_df=5, model="bernoulli").fit(X, y, terms=[f"t{i}" for i in range(8)])
    lazy.save(tmp_path / "lazy.tnb")
    again = load(tmp_path / "lazy.tnb")
    assert again.explain(X[:30]) == lazy.explain(X[:30])
    np.testing.assert_allclose(again.predict_log_proba(X[:30]), lazy.predict_log_proba(X[:30]))


def test_bad_parameters():
    with pytest.raises(ValueError, match="model"):
        LazyTextNB(model="gaussian").fit([[1, 0], [0, 1]], ["a", "b"])
    with pytest.raises(ValueError, match="Negative"):
        LazyTextNB().fit([[-1, 0], [0, 1]], ["a", "b"])
    for bad, word in ((dict(max_df=0), "max_df"), (dict(max_df=1.5), "max_df"), (dict(screen="df"), "screen"),
                      (dict(stop_words="french"), "stop_words")):
        with pytest.raises(ValueError, match=word):
            LazyTextNB(**bad).fit([[1, 0], [0, 1]], ["a", "b"])


@parametrize_with_checks([LazyTextNB(min_df=1)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_cli_explain_shows_topical_rules(tmp_path):
    """``train --lazy`` then ``predict --explain``: rules on the topical context word, never
    on the stop word that is in every document."""
    import io
    import json

    from textnb.cli import main

    X, y = _topic_data(600, 3)
    words = ["hockey", "goal", "puck", "w3", "w4", "w5", "w6", "w7"]
    for i, (row, label) in enumerate(zip(X.toarray().astype(int), y)):
        folder = tmp_path / "corpus" / label
        folder.mkdir(parents=True, exist_ok=True)
        text = " ".join(["the"] * (1 + i % 3) + [w for w, k in zip(words, row) for _ in range(k)])
        (folder / f"{i}.txt").write_text(text + "\n")
    model = tmp_path / "lazy.tnb"
    out, err = io.StringIO(), io.StringIO()
    assert main(["train", str(tmp_path / "corpus"), "--lazy", "hlbr", "-o", str(model)], stdout=out,
                stderr=err) == 0, err.getvalue()
    Xt, _ = _topic_data(40, 4)
    rules = []
    for row in Xt.toarray().astype(int):
        doc = " ".join(["the"] + [w for w, k in zip(words, row) for _ in range(k)])
        out = io.StringIO()
        stdin, sys.stdin = sys.stdin, io.StringIO(doc)
        try:
            assert main(["predict", str(model), "-", "--explain", "--json"], stdout=out, stderr=err) == 0
        finally:
            sys.stdin = stdin
        rules.append(json.loads(out.getvalue())["explanation"])
    assert any("term:hockey" in r for r in rules), rules
    assert not any("term:the" in r for r in rules)
