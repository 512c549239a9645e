"""One normalisation of joint log likelihoods (:func:`textnb.core.logspace.log_proba_from_jll`):
each row shifted by its maximum, then log-sum-exp, in every ``predict_log_proba`` /
``predict_proba``. scikit-learn's ``jll - logsumexp(jll)`` rounds the ``log 2`` of two tied
classes away at joint log likelihoods of ~-5e307 and said ``[0, 0]``; elsewhere the
probabilities are those of before (to 1e-12, checked on real data)."""

import math
from pathlib import Path

import numpy as np
import pytest
from scipy.special import logsumexp

from textnb.core.logspace import log_odds, log_proba_from_jll, proba_from_jll

UCI = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "uci"
TIE = -math.log(2)


def _old(jll):
    """The formula of before: ``jll - logsumexp(jll)`` (scikit-learn's)."""
    jll = np.asarray(jll, dtype=np.float64)
    return jll - logsumexp(jll, axis=1, keepdims=True)


def test_tied_huge_scores_normalise_to_minus_log_two():
    jll = np.array([[-5e307, -5e307], [-1e17, -1e17 - 32.0], [-3.0, -1.0], [-np.inf, 0.0]])
    lp = log_proba_from_jll(jll)
    np.testing.assert_array_equal(lp[0], [TIE, TIE])  # (before: [0, 0])
    np.testing.assert_array_equal(_old(jll)[0], [0.0, 0.0])
    np.testing.assert_allclose(lp[1], [-math.log1p(math.exp(-32.0)), -32.0 - math.log1p(math.exp(-32.0))],
                               rtol=0, atol=1e-15)
    np.testing.assert_allclose(lp[2], _old(jll)[2], rtol=0, atol=1e-15)
    np.testing.assert_array_equal(lp[3], [-np.inf, 0.0])
    np.testing.assert_array_equal(proba_from_jll(jll)[0], [0.5, 0.5])
    # log-odds already shifted: the same rows agree with the log-probabilities (0 for a tie)
    np.testing.assert_array_equal(log_odds(jll)[0], [0.0, 0.0])


def test_empty_and_all_minus_inf_rows_are_as_before():
    assert log_proba_from_jll(np.zeros((0, 3))).shape == (0, 3)
    with np.errstate(invalid="ignore"):
        assert np.isnan(log_proba_from_jll(np.array([[-np.inf, -np.inf]]))).all()


@pytest.mark.parametrize("numeric", ["gaussian", "kde"])
def test_table_estimator_and_kernel_predict_log_proba_of_a_tie_far_out(tmp_path, numeric):
    """A query value ~1e200 sd from both classes' means: joint log likelihoods of ~-5e307 for
    both, a tie. ``predict_log_proba`` said [0, 0] (probabilities summing to 2); now
    [-log 2, -log 2], as ``predict_proba`` (0.5, 0.5) says; the model read back from its file
    (the kernel ``predict`` scores with) alike."""
    from textnb.naive_bayes.tabular import TabularNB
    from textnb.text.scorer import load_for_prediction

    X = np.array([[1.0], [2.0], [3.0], [11.0], [12.0], [13.0]])
    y = np.array(["a", "a", "a", "b", "b", "b"])
    query = np.array([[1e200], [-1e300]])
    model = TabularNB(numeric=numeric).fit(X, y)
    model.save(tmp_path / "m.tnb")
    for m in (model, load_for_prediction(tmp_path / "m.tnb")):
        jll = m.predict_joint_log_proba(query)
        if numeric == "gaussian":
            assert np.all(jll < -1e300) and np.all(jll[:, 0] == jll[:, 1])
        lp = m.predict_log_proba(query)
        np.testing.assert_allclose(np.exp(lp).sum(axis=1), 1.0, rtol=0, atol=1e-12)
        np.testing.assert_allclose(lp, np.log(m.predict_proba(query)), rtol=0, atol=1e-12)


@pytest.mark.skipif(not UCI.is_dir(), reason="../shared/datasets/uci not available")
@pytest.mark.parametrize("name,model", [("diabetes", "nb"), ("credit-a", "nb"), ("vote", "tan"), ("iris", "aode"),
                                        ("heart-c", "nb-kde")])
def test_probabilities_on_uci_tables_unchanged(name, model):
    """Real data: every estimator's ``predict_log_proba`` and ``predict_proba`` equal the
    formula of before to 1e-12."""
    from textnb.io.tables import read_table
    from textnb.naive_bayes.tabular import TabularNB

    t = read_table(UCI / f"{name}.arff")
    if model == "tan":
        from textnb.semi_naive.bayesnet import TAN

        m = TAN(attributes=t.attributes).fit(t.X, t.y)
    elif model == "aode":
        from textnb.semi_naive.aode import AODE

        m = AODE(attributes=t.attributes).fit(t.X, t.y)
    else:
        m = TabularNB(attributes=t.attributes, numeric="kde" if model == "nb-kde" else "gaussian").fit(t.X, t.y)
    jll = m.predict_joint_log_proba(t.X)
    old = _old(jll)
    np.testing.assert_allclose(m.predict_log_proba(t.X), old, rtol=0, atol=1e-12)
    np.testing.assert_allclose(m.predict_proba(t.X), np.exp(old), rtol=0, atol=1e-12)


def test_text_models_unchanged_on_sms(sms_counts, tmp_path):
    """Real text (SMS spam): the count models' log-probabilities and probabilities, and the
    scorer's that ``predict`` reads a model file with, equal the formula of before to 1e-12."""
    from textnb import BernoulliNB, ComplementNB, MultinomialNB

    X, y, Xt, _ = sms_counts
    for est in (MultinomialNB(), ComplementNB(), BernoulliNB()):
        m = est.fit(X, y)
        jll = m.predict_joint_log_proba(Xt)
        old = _old(jll)
        np.testing.assert_allclose(m.predict_log_proba(Xt), old, rtol=0, atol=1e-12)
        np.testing.assert_allclose(m.predict_proba(Xt), np.exp(old), rtol=0, atol=1e-12)
