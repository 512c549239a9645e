"""Tests of APNBC (textnb.semi_naive.apnbc): the paper's examples, fast == reference, the estimator.

The reference implementation of the paper's O(C·N²) weight search (Webb & Pazzani,
Appendix A) lives here, written to be read next to the appendix; the fast search in
``textnb.semi_naive.apnbc`` must make exactly the same choices. ``scripts/bench_apnbc.py`` imports it.
"""

import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import logsumexp
from scipy.stats import binom
from sklearn.utils.estimator_checks import parametrize_with_checks

from textnb.semi_naive.apnbc import APNBC, _search_weights_fast
from textnb.naive_bayes.discrete import BernoulliNB, MultinomialNB


# -- the reference: Appendix A, one candidate at a time ----------------------------------
def reference_search_weights(jll, y_index, *, significance=0.05, epsilon=1e-5):
    """The paper's APNBC induction algorithm, literally, on the log scale.

    ``jll[o, i]`` is ``log P(o, i)``, ``logA[i]`` is ``log A_i``. Every candidate is
    scored by re-classifying all objects, so a round costs O(C·N²). Returns
    ``(logA, history)`` like ``_search_weights_fast``.
    """
    jll = np.asarray(jll, dtype=np.float64)
    y_index = np.asarray(y_index)
    n, n_classes = jll.shape
    logA = np.zeros(n_classes)
    history = []
    if n == 0 or n_classes < 2:
        return logA, history
    # two classes: one weight, on the second class; the first stays at A = 1
    adjustable = {1} if n_classes == 2 else set(range(n_classes))

    def apnbc(log_weights):  # APNBC(o) for every o: argmax_i A_i P(o, i)
        return np.argmax(jll + log_weights, axis=1)

    def error(log_weights):  # error(): the number of misclassified training objects
        return int(np.count_nonzero(apnbc(log_weights) != y_index))

    def move(hi, lo):  # log(e^hi - e^lo): the size of a move on the probability scale
        return hi + math.log(-math.expm1(lo - hi)) if lo < hi else -math.inf

    while True:
        current = error(logA)
        predicted = apnbc(logA)
        best, bestd, choice = current, None, None
        for o in range(n):
            t, e = y_index[o], predicted[o]
            if t == e:
                continue
            # raise A_t until t ties with e: adj = A_e P(o,e) / P(o,t); try adj + epsilon
            if t in adjustable:
                adj = (jll[o, e] + logA[e]) - jll[o, t]
                if np.isfinite(adj):
                    trial = logA.copy()
                    trial[t] = adj + epsilon
                    err, d = error(trial), move(adj, logA[t])
                    if err < best or (err == best and choice is not None and d < bestd):
                        best, bestd, choice = err, d, (t, adj, "+")
            # lower A_e until e ties with t: adj = A_t P(o,t) / P(o,e); try adj - epsilon
            if e in adjustable:
                adj = (jll[o, t] + logA[t]) - jll[o, e]
                if np.isfinite(adj):
                    trial = logA.copy()
                    trial[e] = adj - epsilon
                    err, d = error(trial), move(logA[e], adj)
                    if err < best or (err == best and choice is not None and d < bestd):
                        best, bestd, choice = err, d, (e, adj, "-")
        if choice is None:
            break
        p_value = binom.cdf(best, n, current / n)
        if not p_value < significance:
            break
        c, adj, sign = choice
        logA[c] = _reference_midpoint(jll, y_index, logA, c, adj, sign, best, epsilon, error)
        history.append({"class_index": c, "direction": sign, "errors_before": current,
                        "errors_after": best, "p_value": p_value, "log_weight": logA[c]})
        if n_classes == 2:
            break  # the paper: two classes need one pass through the main loop
    return logA, history


def _reference_midpoint(jll, y_index, logA, c, adj, sign, best, epsilon, error):
    """adjustup / adjustdown: the midpoint (probability scale) of adj and the nearest
    critical value beyond adj ± epsilon where the error count rises above ``best``."""
    start = adj + epsilon if sign == "+" else adj - epsilon
    scores = jll + logA
    critical = []
    for o in range(jll.shape[0]):  # the value of log A_c at which object o changes side
        others = np.delete(scores[o], c)
        rival = others.max() if y_index[o] == c else scores[o, y_index[o]]
        critical.append(rival - jll[o, c])
    critical = np.unique([v for v in critical if np.isfinite(v)])
    beyond = critical[critical > start] if sign == "+" else critical[critical < start][::-1]
    for k, b in enumerate(beyond):  # error on the open interval past b
        nxt = beyond[k + 1] if k + 1 < len(beyond) else (b + 1 if sign == "+" else b - 1)
        trial = logA.copy()
        trial[c] = (b + nxt) / 2
        if error(trial) > best:
            mid = float(np.logaddexp(adj, b) - math.log(2.0))
            return mid if (mid > start if sign == "+" else mid < start) else start
    return start


def _assert_same_search(jll, y, **kw):
    w_fast, h_fast = _search_weights_fast(jll, y, **kw)
    w_ref, h_ref = reference_search_weights(jll, y, **kw)
    assert [(h["class_index"], h["direction"], h["errors_after"]) for h in h_fast] == \
        [(h["class_index"], h["direction"], h["errors_after"]) for h in h_ref]
    assert_allclose(w_fast, w_ref, rtol=0, atol=1e-9)


def _random_problem(seed, n, n_classes, dup, spread):
    """Joint log likelihoods with class structure, label noise and duplicated objects."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, size=n)
    jll = rng.normal(0, spread, size=(n, n_classes)) - rng.exponential(5, size=(n, 1))
    jll[np.arange(n), y] += rng.normal(1.0, 1.0, size=n)            # some signal
    jll += rng.normal(0, 1.5, size=n_classes)                          # class bias to fix
    n_dup = int(dup * n)
    if n_dup:  # identical objects, sometimes with a different label
        src = rng.integers(0, n, size=n_dup)
        dst = rng.choice(n, size=n_dup, replace=False)
        jll[dst] = jll[src]
        flip = rng.random(n_dup) < 0.3
        y[dst] = np.where(flip, rng.integers(0, n_classes, size=n_dup), y[src])
    return jll, y


def test_the_benchmark_script_reads_this_file(capsys):
    """``scripts/bench_apnbc.py`` loads :func:`reference_search_weights` from this file; it
    read ``tests/test_apnbc.py`` after the tests moved into sub-packages and crashed with
    FileNotFoundError (session 48). The path it reads is this file, and a small run agrees."""
    import importlib.util
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "scripts" / "bench_apnbc.py"
    spec = importlib.util.spec_from_file_location("bench_apnbc", script)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench._load_reference().__name__ == "reference_search_weights"  # (FileNotFoundError before)
    assert bench.REFERENCE.exists() and bench.REFERENCE.samefile(__file__)
    assert bench.main(["--sizes", "300", "--no-write"]) == 0
    assert "agree True" in capsys.readouterr().out

# -- fast == reference --------------------------------------------------------------------
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 50), n_classes=st.integers(2, 5),
       dup=st.sampled_from([0.0, 0.2, 0.5]), spread=st.sampled_from([0.5, 2.0, 10.0]),
       significance=st.sampled_from([0.05, 0.1, 0.5, 1.0]))
def test_fast_search_matches_reference(seed, n, n_classes, dup, spread, significance):
    jll, y = _random_problem(seed, n, n_classes, dup, spread)
    _assert_same_search(jll, y, significance=significance)


@pytest.mark.parametrize("seed", range(8))
def test_fast_search_matches_reference_larger(seed):
    jll, y = _random_problem(seed, 300, 2 + seed % 5, 0.1, 2.0)
    _assert_same_search(jll, y, significance=1.0)
    _assert_same_search(jll, y, significance=0.05)


def test_fast_search_matches_reference_with_impossible_classes():
    # out-of-fold scores give -inf to a class a fold never saw
    jll, y = _random_problem(3, 80, 4, 0.0, 2.0)
    jll[:7, 2] = -np.inf
    jll[10:12, 0] = -np.inf
    _assert_same_search(jll, y, significance=1.0)


def test_search_trivial_cases():
    w, h = _search_weights_fast(np.zeros((0, 3)), np.zeros(0, dtype=int))
    assert_array_equal(w, 0) and h == []
    w, h = _search_weights_fast(np.zeros((5, 1)), np.zeros(5, dtype=int))
    assert_array_equal(w, [0.0]) and h == []
    jll = np.log([[0.9, 0.1], [0.2, 0.8]])
    w, h = _search_weights_fast(jll, [0, 1])  # nothing misclassified
    assert_array_equal(w, 0) and h == []


def test_search_never_underflows_on_long_documents():
    # log-likelihood gaps of thousands of nats: probabilities would underflow to 0
    jll, y = _random_problem(11, 200, 3, 0.0, 2.0)
    jll = jll * 1000.0
    w, h = _search_weights_fast(jll, y, significance=1.0)
    assert np.all(np.isfinite(w))
    assert h and h[-1]["errors_after"] < h[0]["errors_before"]
    _assert_same_search(jll, y, significance=1.0)


# -- the binomial test ---------------------------------------------------------------------
def _one_fixable_error(n):
    """n objects, two classes, one class-1 object misclassified, fixable without harm."""
    jll = np.zeros((n, 2))
    y = np.arange(n) % 2
    jll[y == 0, 0] = 5.0
    jll[y == 1, 1] = 5.0
    jll[1] = [1.0, 0.0]  # class 1, predicted 0; raising A_1 by e^1 fixes it
    return jll, y


def test_binomial_test_blocks_a_chance_improvement():
    jll, y = _one_fixable_error(100)
    # 1 error -> 0 errors in 100: P(X <= 0 | n=100, p=0.01) = 0.99^100 = 0.366
    w, h = _search_weights_fast(jll, y, significance=0.05)
    assert_array_equal(w, 0) and h == []
    w, h = _search_weights_fast(jll, y, significance=0.5)
    assert h[0]["p_value"] == pytest.approx(0.99**100)
    assert w[1] > 1.0
    w1, _ = _search_weights_fast(jll, y, significance=1.0)
    assert_array_equal(w1, w)


# -- the paper's examples -------------------------------------------------------------------
def _two_of_six():
    X = np.array([[(i >> k) & 1 for k in range(6)] for i in range(64)], dtype=np.float64)
    y = (X.sum(axis=1) >= 2).astype(int)
    return X, y


def _two_of_six_paper_jll(X):
    """log of the two sides of the paper's inequality (3), exact frequencies."""
    i = X.sum(axis=1)
    pos = np.log(57 / 64) + i * np.log(31 / 57) + (6 - i) * np.log(26 / 57)
    neg = np.log(7 / 64) + i * np.log(1 / 7) + (6 - i) * np.log(6 / 7)
    return np.column_stack([neg, pos])


def test_two_of_six_naive_bayes_misclassifies_exactly_i_equal_1():
    X, y = _two_of_six()
    nb = BernoulliNB(alpha=1e-10).fit(X, y)
    assert_allclose(nb.predict_joint_log_proba(X), _two_of_six_paper_jll(X), atol=1e-6)
    wrong = nb.predict(X) != y
    assert_array_equal(wrong, X.sum(axis=1) == 1)


@pytest.mark.parametrize("significance", [0.05, 0.1, 1.0])
def test_two_of_six_apnbc_separates_all_64(significance):
    X, y = _two_of_six()
    model = APNBC(BernoulliNB(alpha=1e-10), significance=significance).fit(X, y)
    assert_array_equal(model.predict(X), y)
    # the weight sits on the positive class (classes_[1] = 1); the negative keeps A = 1
    assert model.adjustments_[0] == 1.0
    assert 0.106 < model.adjustments_[1] < 0.758
    # the exact plateau: where (3) turns false for i = 1 and true for i = 2
    jll = _two_of_six_paper_jll(np.eye(6)[:2].cumsum(axis=0))  # i = 1 and i = 2 rows
    lo, hi = np.exp(jll[1, 0] - jll[1, 1]), np.exp(jll[0, 0] - jll[0, 1])
    assert lo == pytest.approx(0.10565, abs=1e-5) and hi == pytest.approx(0.75581, abs=1e-5)
    assert model.adjustments_[1] == pytest.approx((lo + hi) / 2, rel=1e-4)  # the midpoint
    (step,) = model.search_history_
    assert (step["class"], step["direction"], step["errors_before"], step["errors_after"]) == \
        ("1", "-", 6, 0)
    assert step["p_value"] == pytest.approx((58 / 64) ** 64)


def test_two_of_six_search_on_the_papers_probabilities():
    X, y = _two_of_six()
    jll = _two_of_six_paper_jll(X)
    w, _ = _search_weights_fast(jll, y)
    assert 0.106 < math.exp(w[1]) < 0.758 and w[0] == 0.0
    _assert_same_search(jll, y)


def _a_equals_b(n_per_cell=(3, 1)):
    """The paper's two-attribute example: A = B always, P(A=0) = 0.5,
    P(C=0 | A=0) = 0.75, P(C=0 | A=1) = 0.25, as a sample with exactly those frequencies."""
    many, few = n_per_cell
    rows = [([0, 0], 0)] * many + [([0, 0], 1)] * few + [([1, 1], 1)] * many + [([1, 1], 0)] * few
    X = np.array([r for r, _ in rows], dtype=np.float64)
    y = np.array([c for _, c in rows])
    return X, y


def test_a_equals_b_naive_bayes_distorts_the_probabilities():
    X, y = _a_equals_b()
    nb = BernoulliNB(alpha=1e-10).fit(X, y)
    joint = np.exp(nb.predict_joint_log_proba(np.array([[0.0, 0.0]])))[0]
    # divided by P(A=0 ^ B=0) = 0.5, as in the paper: 0.5625 and 0.0625 (true: 0.75, 0.25)
    assert_allclose(joint / 0.5, [0.5625, 0.0625], atol=1e-8)
    # the distortion is the square: sqrt of the naive estimates is proportional to the truth
    s = np.sqrt(joint)
    assert_allclose(s / s.sum(), [0.75, 0.25], atol=1e-8)


@pytest.mark.parametrize("significance", [0.05, 0.1, 1.0])
def test_a_equals_b_needs_no_adjustment(significance):
    # naive Bayes already picks the more probable class of each object, so no single
    # weight can remove an error: APNBC must leave the weights at 1
    X, y = _a_equals_b((30, 10))
    nb = BernoulliNB(alpha=1e-10).fit(X, y)
    model = APNBC(BernoulliNB(alpha=1e-10), significance=significance).fit(X, y)
    assert_array_equal(model.adjustments_, [1.0, 1.0])
    assert model.search_history_ == []
    assert_array_equal(model.predict(X), nb.predict(X))


# -- the estimator ----------------------------------------------------------------------------
@parametrize_with_checks([APNBC(MultinomialNB()), APNBC(BernoulliNB(), significance=1.0),
                          APNBC(MultinomialNB(), fit_on="cv", cv=3, random_state=0)])
def test_sklearn_compatible_estimator(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # folds smaller than cv in tiny checks
        check(estimator)


def _text_like(seed=0, n=300, n_features=40, n_classes=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, size=n)
    rates = rng.gamma(0.5, 1.0, size=(n_classes, n_features))
    rates[:, :5] += 2.0  # shared words: dependence the model ignores
    X = rng.poisson(rates[y] * rng.gamma(2.0, 1.0, size=(n, 1)))
    return X.astype(np.float64), np.array(["a", "b", "c"])[y]


def test_predictions_use_the_weights():
    X, y = _text_like()
    model = APNBC(MultinomialNB(), significance=1.0).fit(X, y)
    base = model.estimator_.predict_joint_log_proba(X)
    adjusted = base + model.class_log_weight_
    assert_allclose(model.predict_joint_log_proba(X), adjusted)
    assert_array_equal(model.predict(X), model.classes_[np.argmax(adjusted, axis=1)])
    # (each row shifted by its maximum first, core.logspace.log_proba_from_jll: the same to rounding, 1e-12 absolute
    # near 0, where a relative tolerance would compare the last bits of -1e-8)
    assert_allclose(model.predict_log_proba(X), adjusted - logsumexp(adjusted, axis=1, keepdims=True), atol=1e-12)
    assert_allclose(model.predict_proba(X).sum(axis=1), 1.0)
    assert_allclose(model.adjustments_, np.exp(model.class_log_weight_))
    assert np.mean(model.predict(X) != y) <= np.mean(model.estimator_.predict(X) != y)


def test_default_estimator_is_multinomial_and_is_cloned():
    X, y = _text_like()
    inner = MultinomialNB(alpha=0.5)
    model = APNBC(inner).fit(X, y)
    assert not hasattr(inner, "classes_") and model.estimator_ is not inner
    assert isinstance(APNBC().fit(X, y).estimator_, MultinomialNB)


def test_fit_on_cv_uses_out_of_fold_scores():
    X, y = _text_like(seed=2)
    a = APNBC(MultinomialNB(), fit_on="cv", cv=5, random_state=0, significance=1.0).fit(X, y)
    b = APNBC(MultinomialNB(), fit_on="cv", cv=5, random_state=0, significance=1.0).fit(X, y)
    assert_array_equal(a.class_log_weight_, b.class_log_weight_)  # seeded folds
    full = MultinomialNB().fit(X, y)
    assert_allclose(a.estimator_.feature_log_prob_, full.feature_log_prob_)  # final on all data
    # the history counts out-of-fold errors, which exceed the resubstitution errors
    resub_errors = int(np.sum(full.predict(X) != y))
    if a.search_history_:
        assert a.search_history_[0]["errors_before"] >= resub_errors


def test_fit_on_cv_with_a_class_rarer_than_the_folds():
    X, y = _text_like(seed=3)
    y = y.astype(object)
    y[0] = "rare"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        model = APNBC(MultinomialNB(), fit_on="cv", cv=5, random_state=1, significance=1.0).fit(X, y)
    assert list(model.classes_) == ["a", "b", "c", "rare"]
    assert np.all(np.isfinite(model.class_log_weight_))


@pytest.mark.parametrize("params, match", [
    ({"significance": 0}, "significance"),
    ({"significance": 1.5}, "significance"),
    ({"fit_on": "holdout"}, "fit_on"),
    ({"cv": 1}, "cv"),
    ({"epsilon": -1.0}, "epsilon"),
])
def test_bad_parameters_are_reported(params, match):
    X, y = _text_like()
    with pytest.raises(ValueError, match=match):
        APNBC(MultinomialNB(), **params).fit(X, y)


def test_estimator_without_joint_log_proba_is_refused():
    from sklearn.linear_model import LogisticRegression

    X, y = _text_like()
    with pytest.raises(TypeError, match="predict_joint_log_proba"):
        APNBC(LogisticRegression()).fit(X, y)


@pytest.mark.parametrize("inner", [None, MultinomialNB(alpha=0.5)])
def test_save_load_round_trip(tmp_path, inner):
    from textnb.core.model_io import load

    X, y = _text_like(seed=4)
    model = APNBC(inner, significance=1.0).fit(X, y)
    path = tmp_path / "apnbc.tnb"
    model.save(path)
    again = load(path)
    assert isinstance(again, APNBC) and isinstance(again.estimator_, MultinomialNB)
    assert again.get_params()["significance"] == 1.0
    assert again.estimator_.alpha == model.estimator_.alpha
    assert_array_equal(again.class_log_weight_, model.class_log_weight_)
    assert_array_equal(again.classes_, model.classes_)
    assert again.search_history_ == model.search_history_
    assert_allclose(again.predict_joint_log_proba(X), model.predict_joint_log_proba(X))
    assert_array_equal(again.predict(X), model.predict(X))


def test_adjusting_on_cross_validation_with_one_object_per_class_is_a_one_line_error(tmp_path):
    """``fit_on="cv"`` where every class has one object: no two folds to make. A
    TooFewObjects (a ValueError), and on the command line one line naming the file, exit 1,
    as ``--calibrate`` gives (it was an internal error, exit 70: 'n_splits=2 cannot be
    greater than the number of members in each class'); ``train``, ``evaluate`` whose training
    folds have one document per class, multi-label ``evaluate`` (copy and one-vs-rest)."""
    from conftest import cli

    from textnb.core.errors import TooFewObjects

    X = np.array([[1, 0], [0, 1]])
    with pytest.raises(TooFewObjects, match="each of the 2 classes has 1"):
        APNBC(MultinomialNB(), fit_on="cv").fit(X, ["a", "b"])
    assert APNBC(MultinomialNB(), fit_on="cv").fit(np.vstack([X, X[:1]]), ["a", "b", "a"]).classes_.size == 2
    two = tmp_path / "two.tsv"
    two.write_text("label\ttext\na\tfree prize now\nb\tsee you at lunch\n", encoding="utf-8")
    four = tmp_path / "four.tsv"
    four.write_text("label\ttext\na\tfree prize now\nb\tsee you at lunch\na\tcash win prize\nb\tmeet at lunch\n",
                    encoding="utf-8")
    ml = tmp_path / "ml.ft"
    ml.write_text("__label__a __label__b free prize\n__label__b lunch now\n__label__a __label__c cash\n"
                  "__label__c win\n", encoding="utf-8")
    for argv, file, words in [
            (["train", two, "--adjust", "--adjust-on", "cv", "-o", tmp_path / "x.tnb"], two, "classes has 1"),
            (["train", two, "--model", "multinomial", "--adjust", "--adjust-on", "cv", "-o", tmp_path / "y.tnb"],
             two, "classes has 1"),
            (["evaluate", four, "--cv", "2", "--adjust", "--adjust-on", "cv"], four, "classes has 1"),
            (["evaluate", ml, "--adjust", "--adjust-on", "cv", "--cv", "2"], ml, "every label is on one document"),
            (["evaluate", ml, "--adjust", "--adjust-on", "cv", "--cv", "2", "--method", "ovr"], ml,
             "is on one of two documents")]:
        code, _, err = cli(*argv)
        line = err.strip()
        assert code == 1 and "\n" not in line and line.startswith(f"textnb: error: {file}: ") and words in line, err
        assert "--adjust-on cv" in line


# -- sample_weight (was: TypeError) ----------------------------------------------------------
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("base", [MultinomialNB(alpha=0.01), BernoulliNB()])
def test_integer_sample_weights_learn_what_the_repeated_rows_learn(seed, base):
    rng = np.random.RandomState(seed)
    X = rng.poisson(1.0, (200, 6))
    y = np.array(list("abcd"))[(X[:, 0] + X[:, 1] * rng.rand(200) * 2 + rng.rand(200) * 3).astype(int) % 4]
    w = rng.randint(0, 5, 200)
    weighted = APNBC(base, significance=0.5).fit(X, y, sample_weight=w)
    repeated = APNBC(base, significance=0.5).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    assert weighted.search_history_ == repeated.search_history_ and len(weighted.search_history_) >= 2
    assert_array_equal(weighted.class_log_weight_, repeated.class_log_weight_)
    assert_allclose(weighted.estimator_.feature_count_, repeated.estimator_.feature_count_)
    assert_array_equal(weighted.predict(X), repeated.predict(X))
    # fit_on="cv": every fold's model learns from its rows' weights (and runs)
    APNBC(base, fit_on="cv", cv=3).fit(X, y, sample_weight=w)


def test_sample_weights_apnbc_cannot_use_are_one_clear_error():
    from textnb.core.errors import InputError

    X, y = [[1, 0], [0, 1], [2, 0], [0, 2]], ["a", "b", "a", "b"]
    with pytest.raises(InputError, match="APNBC takes whole-number sample weights only"):
        APNBC(MultinomialNB()).fit(X, y, sample_weight=[0.5, 1, 1, 1])

    class NoWeights(MultinomialNB):
        def fit(self, X, y):
            return super().fit(X, y)

    with pytest.raises(InputError, match="APNBC cannot take sample_weight: its estimator NoWeights does not"):
        APNBC(NoWeights()).fit(X, y, sample_weight=[1, 2, 1, 1])


def _reversed_class_arff(src, dst):
    """``src`` with its class attribute's (the last one's) values declared in reverse."""
    lines = src.read_text().split("\n")
    at = [i for i, line in enumerate(lines) if line.lower().startswith("@attribute")][-1]
    head, values = lines[at].split("{", 1)
    values = [v.strip() for v in values.rstrip().rstrip("}").split(",")]
    lines[at] = head + "{" + ",".join(reversed(values)) + "}"
    dst.write_text("\n".join(lines))


def test_two_class_weights_do_not_follow_the_order_the_classes_are_declared_in(tmp_path):
    """With two classes one weight is adjusted, that of the class that sorts last
    (``apnbc_kernel._last_class``), whatever order ``classes_`` comes in: the same table with
    its class values declared in either order (an ARFF header; a CSV's are sorted) learns the
    same model, to the last digit, through the estimator, the kernel and the command line.
    Adjusting the second declared class instead moved the probabilities of UCI colic by
    1.5e-4 and credit-a's by 1e-4 between the two orders."""
    import json

    from conftest import SHARED, cli

    from textnb import TabularNB
    from textnb.io.tables import read_table
    from textnb.semi_naive.apnbc_kernel import _last_class

    assert (_last_class(np.array(["yes", "no"])), _last_class(np.array(["no", "yes"])), _last_class([0, 1])) == (0, 1, 1)
    assert _last_class(["a", "b", "c"]) is None
    rng = np.random.default_rng(4)  # (a weak attribute given three times: naive Bayes errs, a weight helps)
    rows = ["@relation t", "@attribute a {x,y}", "@attribute a2 {x,y}", "@attribute a3 {x,y}", "@attribute b {p,q}",
            "@attribute class {yes,no}", "@data"]
    for _ in range(400):
        b = rng.random() < 0.5
        yes = rng.random() < (0.85 if b else 0.15)
        a = "xy"[rng.random() < (0.65 if yes else 0.4)]
        rows.append(f"{a},{a},{a},{'pq'[b]},{'yes' if yes else 'no'}")
    sources = [tmp_path / "t.arff"]
    sources[0].write_text("\n".join(rows) + "\n")
    colic = SHARED / "datasets" / "uci" / "colic.arff"
    if colic.exists():
        sources.append(colic)
    for src in sources:
        flipped = tmp_path / f"{src.stem}-reversed.arff"
        _reversed_class_arff(src, flipped)
        answers = []
        for path in (src, flipped):
            table = read_table(path)
            model = APNBC(TabularNB(attributes=tuple(table.attributes)), significance=1.0).fit(table.X, table.y)
            proba = model.predict_proba(table.X)
            answers.append({c: proba[:, j] for j, c in enumerate(np.asarray(model.classes_).tolist())})
            assert model.search_history_, src  # (a weight was learned: the test would pass without one)
            assert cli("train", path, "-o", tmp_path / "m.tnb", "--adjust", "--significance", "1")[0] == 0
            rc, out, err = cli("predict", tmp_path / "m.tnb", src, "--proba", "--json")
            assert rc == 0, err
            answers.append({c: np.array([json.loads(line)["proba"][c] for line in out.splitlines()])
                            for c in answers[-1]})
        for k in (0, 1):  # (the estimator's answers, the command line's)
            assert answers[k].keys() == answers[k + 2].keys()
            for c in answers[k]:
                assert np.array_equal(answers[k][c], answers[k + 2][c]), (src.name, c, k)
