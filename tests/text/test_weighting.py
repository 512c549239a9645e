import csv
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from textnb import MultinomialNB, Vectorizer, load
from textnb.naive_bayes.complement import ComplementNB
from textnb.text.weighting import TermWeighting

RNG = np.random.RandomState(1)
X = sp.csr_matrix(RNG.poisson(0.7, (60, 15)).astype(float))


@parametrize_with_checks([TermWeighting(), TermWeighting(idf="plain", binary=True),
                          TermWeighting(idf=None, length_norm=False)])
def test_sklearn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(estimator)


def test_plain_tf_matches_sklearn_tfidf():
    ours = TermWeighting(sublinear_tf=False).fit_transform(X)
    ref = TfidfTransformer().fit_transform(X)
    assert_allclose(ours.toarray(), ref.toarray(), atol=1e-12)


def test_sublinear_tf_is_log1p_then_idf_then_l2():
    w = TermWeighting().fit(X)
    n, df = X.shape[0], (X.toarray() > 0).sum(axis=0)
    idf = np.log((1 + n) / (1 + df)) + 1
    expect = np.log1p(X.toarray()) * idf
    expect /= np.maximum(np.linalg.norm(expect, axis=1, keepdims=True), 1e-300)
    expect[np.linalg.norm(np.log1p(X.toarray()), axis=1) == 0] = 0
    assert_allclose(w.transform(X).toarray(), expect, atol=1e-12)


def test_plain_idf_and_binary():
    A = np.array([[2, 0, 1], [1, 1, 0], [3, 0, 0]], dtype=float)
    w = TermWeighting(sublinear_tf=False, idf="plain", length_norm=False, binary=True).fit(A)
    assert_allclose(w.idf_, np.log(3) - np.log([3, 1, 1]))
    assert_allclose(w.transform(A).toarray(), (A > 0) * w.idf_)


def test_zero_rows_stay_zero():
    A = sp.csr_matrix(np.array([[0, 0, 0], [1, 2, 0]], dtype=float))
    out = TermWeighting().fit(A).transform(A).toarray()
    assert_allclose(out[0], 0.0)
    assert_allclose(np.linalg.norm(out[1]), 1.0)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 59))
def test_partial_fit_and_merge_equal_fit(cut):
    full = TermWeighting().fit(X)
    inc = TermWeighting().partial_fit(X[:cut]).partial_fit(X[cut:])
    merged = TermWeighting().fit(X[:cut]).merge(TermWeighting().fit(X[cut:]))
    sums = TermWeighting().fit_counts(X.shape[0], (X.toarray() > 0).sum(axis=0))
    for other in (inc, merged, sums):
        assert_allclose(other.transform(X).toarray(), full.transform(X).toarray(), atol=1e-12)


def test_bad_idf_is_rejected():
    with pytest.raises(ValueError, match="idf must be"):
        TermWeighting(idf="bm25").fit(X)


def test_pipeline_on_sms_and_model_file(sms_tsv, tmp_path):
    import textnb.meta.smoothing  # noqa: F401  (registers sklearn's Pipeline for model files)

    with open(sms_tsv, encoding="utf-8") as f:
        rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    texts, y = [r[1] for r in rows], np.array([r[0] for r in rows])
    pipe = make_pipeline(Vectorizer(), TermWeighting(), ComplementNB(alpha=0.3)).fit(texts[:4000], y[:4000])
    acc = np.mean(pipe.predict(texts[4000:]) == y[4000:])
    assert acc > 0.97
    model = make_pipeline(TermWeighting(), MultinomialNB(m=300))
    v = Vectorizer()
    model.fit(v.fit_transform(texts[:4000]), y[:4000])
    from textnb.core.model_io import save

    save(model, tmp_path / "p.tnb")
    back = load(tmp_path / "p.tnb")
    Xt = v.transform(texts[4000:])
    assert_allclose(back.predict_log_proba(Xt), model.predict_log_proba(Xt))
