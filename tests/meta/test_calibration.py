import csv
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from sklearn.metrics import log_loss
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from textnb import MultinomialNB, Vectorizer, load
from textnb.meta.calibration import (CalibratedNB, _fit_sigmoid, estimator_log_odds, out_of_fold_log_odds,
                                threshold_for_f1, threshold_for_fpr)
from textnb.naive_bayes.complement import ComplementNB
from textnb.text.weighting import TermWeighting


# the default is checked with every export (tests/test_sklearn_cases.py); here the variants
@pytest.mark.slow
@parametrize_with_checks([CalibratedNB(method="isotonic"),
                          CalibratedNB(ComplementNB(), target_fpr=0.1)])
def test_sklearn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(estimator)


def test_sigmoid_recovers_known_parameters():
    rng = np.random.RandomState(0)
    s = rng.normal(0, 3, 20000)
    t = (rng.uniform(size=s.size) < 1 / (1 + np.exp(-(0.5 * s - 1.0)))).astype(float)
    a, b = _fit_sigmoid(s, t, np.ones_like(s))
    assert abs(a - 0.5) < 0.03 and abs(b + 1.0) < 0.06


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-50, 50), min_size=2, max_size=40), st.floats(0, 1), st.randoms())
def test_threshold_for_fpr_is_the_smallest_that_meets_the_rate(scores, fpr, rnd):
    scores = np.array(scores)
    positive = np.array([rnd.random() < 0.5 for _ in scores])
    t = threshold_for_fpr(scores, positive, fpr)
    neg = scores[~positive]
    if neg.size:
        assert np.mean(neg > t) <= fpr + 1e-12
        lower = neg[neg < t]  # any smaller candidate threshold breaks the rate
        if lower.size:
            assert np.mean(neg > lower.max()) > fpr


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(-20, 20), min_size=2, max_size=30), st.randoms())
def test_threshold_for_f1_is_as_good_as_brute_force(scores, rnd):
    scores = np.array(scores, dtype=float)
    positive = np.array([rnd.random() < 0.4 for _ in scores])
    if not positive.any():
        assert threshold_for_f1(scores, positive) == np.inf
        return

    def f1(t):
        pred = scores > t
        tp = np.sum(pred & positive)
        return 2 * tp / (pred.sum() + positive.sum())

    best = max(f1(t) for t in np.r_[scores, -np.inf])
    assert f1(threshold_for_f1(scores, positive)) == pytest.approx(best)


@pytest.fixture(scope="module")
def sms_split(sms_tsv):
    with open(sms_tsv, encoding="utf-8") as f:
        rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    texts, y = [r[1] for r in rows], np.array([r[0] for r in rows])
    tr, te = train_test_split(np.arange(len(y)), test_size=0.3, random_state=0, stratify=y)
    v = Vectorizer()
    X_train = v.fit_transform([texts[i] for i in tr])
    return X_train, y[tr], v.transform([texts[i] for i in te]), y[te]


@pytest.mark.parametrize("base", [MultinomialNB(), make_pipeline(TermWeighting(), ComplementNB())],
                         ids=["multinomial", "tw-complement"])
@pytest.mark.parametrize("method", ["sigmoid", "isotonic"])
def test_calibrated_log_loss_is_lower_than_raw_on_sms(sms_split, base, method):
    X_train, y_train, X_test, y_test = sms_split
    raw = base.fit(X_train, y_train).predict_proba(X_test)
    cal = CalibratedNB(base, method=method).fit(X_train, y_train)
    proba = cal.predict_proba(X_test)
    assert_allclose(proba.sum(axis=1), 1.0)
    assert log_loss(y_test, proba, labels=cal.classes_) < log_loss(y_test, np.clip(raw, 1e-15, 1), labels=cal.classes_)


def test_log_odds_are_the_raw_model_and_thresholds_meet_the_fpr(sms_split):
    X_train, y_train, X_test, y_test = sms_split
    cal = CalibratedNB(MultinomialNB(), target_fpr=0.01).fit(X_train, y_train)
    raw = MultinomialNB().fit(X_train, y_train)
    assert_allclose(cal.predict_log_odds(X_test), raw.predict_log_odds(X_test), atol=1e-9)
    scores, classes = out_of_fold_log_odds(MultinomialNB(), X_train, y_train, cv=5)
    spam = list(classes).index("spam")
    assert np.mean(scores[y_train == "ham", spam] > cal.thresholds_[spam]) <= 0.01
    flagged = cal.predict_above_thresholds(X_test)[:, spam]
    assert np.mean(flagged[y_test == "ham"]) < 0.03


def test_model_file_round_trip(sms_split, tmp_path):
    X_train, y_train, X_test, _ = sms_split
    for method in ("sigmoid", "isotonic"):
        cal = CalibratedNB(ComplementNB(), method=method).fit(X_train, y_train)
        cal.save(tmp_path / "c.tnb")
        back = load(tmp_path / "c.tnb")
        assert_allclose(back.predict_log_proba(X_test), cal.predict_log_proba(X_test))


def test_multiclass_probabilities_sum_to_one():
    rng = np.random.RandomState(3)
    X = sp.csr_matrix(rng.poisson(0.8, (90, 12)).astype(float))
    y = np.repeat(["a", "b", "c"], 30)
    for method in ("sigmoid", "isotonic"):
        p = CalibratedNB(method=method, cv=3).fit(X, y).predict_proba(X)
        assert_allclose(p.sum(axis=1), 1.0)
    lo = estimator_log_odds(MultinomialNB().fit(X, y), X, np.array(["a", "b", "c", "d"]))
    assert np.all(lo[:, 3] == -np.inf)


@pytest.mark.slow
def test_calibrated_log_loss_is_lower_on_20newsgroups(shared_corpora):
    from textnb import open_corpus
    from textnb.io.corpus import read_document

    corpus = open_corpus(shared_corpora("20news-bydate"))
    train = [read_document(p) for p in corpus.documents[::6]]
    test = [read_document(p) for p in corpus.test.documents[::6]]
    y_train, y_test = np.array(corpus.labels[::6]), np.array(corpus.test.labels[::6])
    v = Vectorizer()
    X_train, X_test = v.fit_transform(train), v.transform(test)
    base = make_pipeline(TermWeighting(), ComplementNB())
    raw = base.fit(X_train, y_train).predict_proba(X_test)
    cal = CalibratedNB(base).fit(X_train, y_train).predict_proba(X_test)
    assert log_loss(y_test, cal, labels=np.unique(y_train)) < log_loss(y_test, raw, labels=np.unique(y_train))


def test_fit_isotonic_keeps_scikit_learns_steps_float_for_float():
    """The isotonic map CalibratedNB and the trainer fit is scikit-learn's IsotonicRegression's:
    ties (exact and within float64 resolution), weights, zero weights, clipping."""
    from sklearn.isotonic import IsotonicRegression

    from textnb.text.wrappers import fit_isotonic

    rng = np.random.default_rng(7)
    for trial in range(40):
        n = int(rng.integers(1, 400))
        x = np.round(rng.normal(0, 3, n), int(rng.integers(0, 4)))  # many exact ties
        x[: n // 5] += 1e-16 * rng.integers(0, 3, n // 5)  # ties within resolution
        y = (rng.random(n) < 1 / (1 + np.exp(-x))).astype(np.float64)
        w = rng.choice([1.0, 0.5, 2.0, 0.0], n) if trial % 2 else np.ones(n)
        if not (w > 0).any():
            w[0] = 1.0
        eps = 1.0 / (w.sum() + 2.0)
        iso = IsotonicRegression(out_of_bounds="clip", y_min=eps, y_max=1.0 - eps).fit(x, y, sample_weight=w)
        steps_x, steps_y = fit_isotonic(x, y, w, eps, 1.0 - eps)
        np.testing.assert_array_equal(steps_x, iso.X_thresholds_)
        np.testing.assert_array_equal(steps_y, iso.y_thresholds_)


def test_threshold_for_fpr_never_exceeds_a_rate_just_below_a_fraction():
    """fpr * n just below a whole number (0.4999999999 of 2 negatives) allows 0 of them above
    the threshold, not 1 (hypothesis found the rounding slack that allowed it)."""
    assert threshold_for_fpr([0.0, 1.0], [False, False], 0.4999999999) == 1.0
    assert threshold_for_fpr(np.arange(10.0), np.zeros(10, bool), 0.1 * 3) == 6.0  # 0.30000000000000004
    assert threshold_for_fpr(np.arange(10.0), np.zeros(10, bool), 0.3) == 6.0


_DECLARED = """@relation weather
@attribute outlook {sunny,overcast,rainy}
@attribute windy {TRUE,FALSE}
@attribute play {yes,no,maybe}
@data
""" + "\n".join(["sunny,FALSE,no", "sunny,TRUE,no", "overcast,FALSE,yes", "rainy,FALSE,yes", "rainy,FALSE,yes",
                 "rainy,TRUE,no", "overcast,TRUE,yes", "sunny,FALSE,no", "sunny,FALSE,yes", "rainy,FALSE,yes",
                 "sunny,TRUE,yes", "overcast,TRUE,yes", "overcast,FALSE,yes", "rainy,TRUE,no"]) + "\n"


@pytest.mark.parametrize("method", ["sigmoid", "isotonic"])
def test_calibrated_table_model_keeps_the_declared_classes_in_their_order(tmp_path, method):
    """An ARFF class attribute ``{yes,no,maybe}`` whose ``maybe`` no row has: the calibrated
    model's classes are its base model's, declared order and empty class kept (as
    scikit-learn's CalibratedClassifierCV takes the base classes), so ``predict --proba``
    columns and ``--json`` keys are those of the uncalibrated model; the empty class gets
    the small calibrated probability of a class never seen (was: ``np.unique(y)``, ``no``
    and ``yes`` only, alphabetical)."""
    import io
    import json

    from textnb.cli import main
    from textnb.io.tables import read_table
    from textnb.naive_bayes.tabular import TabularNB

    arff = tmp_path / "weather.arff"
    arff.write_text(_DECLARED, encoding="utf-8")

    def run(*argv):
        out, err = io.StringIO(), io.StringIO()
        code = main([str(a) for a in argv], stdout=out, stderr=err)
        assert code == 0, err.getvalue()
        return out.getvalue()

    keys = {}
    for name, extra in (("plain", []), ("calibrated", ["--calibrate", method])):
        model = tmp_path / f"{name}.tnb"
        run("train", arff, *extra, "-o", model)
        assert list(load(model).classes_) == ["yes", "no", "maybe"]
        rows = [json.loads(line) for line in run("predict", model, arff, "--proba", "--json").splitlines()]
        keys[name] = [list(r["proba"]) for r in rows]
        assert all(abs(sum(r["proba"].values()) - 1) < 1e-9 for r in rows)
        assert all(0 <= r["proba"]["maybe"] < 0.1 for r in rows)
        columns = [[cell.split("=")[0] for cell in line.split("\t")[2:]]
                   for line in run("predict", model, arff, "--proba").splitlines()]
        assert columns == keys[name]
    assert keys["plain"] == keys["calibrated"] == [["yes", "no", "maybe"]] * 14

    table = read_table(str(arff))
    base = TabularNB(attributes=tuple(table.attributes), class_values=tuple(table.classes))
    clf = CalibratedNB(base, method=method, cv=2).fit(table.X, table.y)
    assert list(clf.classes_) == list(clf.estimator_.classes_) == ["yes", "no", "maybe"]
    proba = clf.predict_proba(table.X)
    assert proba.shape == (14, 3) and np.all(proba[:, 2] < 0.1)
    assert set(clf.predict(table.X)) <= {"yes", "no"}


def test_a_smoothingcv_inside_learns_from_the_sample_weights_too():
    """CalibratedNB(SmoothingCV(...)).fit(..., sample_weight=w) refitted the SmoothingCV
    without the weights (it took none): the model it kept had unweighted counts."""
    from textnb import MultinomialNB
    from textnb.meta.calibration import CalibratedNB
    from textnb.meta.smoothing import SmoothingCV

    rng = np.random.RandomState(0)
    X = rng.poisson(0.7, (60, 8))
    y = np.where(X[:, 0] + X[:, 1] * rng.rand(60) > 1, "a", "b")
    w = rng.randint(1, 4, 60)
    model = CalibratedNB(SmoothingCV(MultinomialNB(), param_grid={"alpha": [0.1, 1.0]}, cv=3), cv=3)
    inner = model.fit(X, y, sample_weight=w).estimator_.estimator_
    expected = MultinomialNB(alpha=inner.alpha).fit(X, y, sample_weight=w)
    assert_allclose(inner.feature_count_, expected.feature_count_)


def test_an_f1_threshold_that_flags_every_score_stays_just_below_the_lowest():
    """``threshold_for_f1`` gives ties to the largest threshold; when the best cut flags
    every score, that is just below the lowest score, not ``-inf`` (which would flag any
    new score, however low: the single-label CalibratedNB's F1 threshold and SCut's)."""
    import numpy as np

    from textnb.meta import threshold_for_f1

    assert threshold_for_f1([3.0, 2.0, 1.0], [True, True, True]) == np.nextafter(1.0, -np.inf)
    assert threshold_for_f1([3.0, 2.0, -5.0], [True, False, True]) == np.nextafter(-5.0, -np.inf)
    assert threshold_for_f1([3.0, -np.inf], [True, True]) == -np.inf  # nothing lower to stay above
    assert threshold_for_f1([3.0, 2.0, 1.0], [True, False, False]) == 2.5  # unchanged: midway
    assert threshold_for_f1([3.0, 2.0], [False, False]) == np.inf
