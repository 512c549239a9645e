import csv
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose
from sklearn.metrics import mutual_info_score
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from textnb import MultinomialNB, Vectorizer, load
from textnb.text.selection import SelectTerms, term_scores

RNG = np.random.RandomState(2)
X = sp.csr_matrix(RNG.poisson(0.5, (150, 20)).astype(float))
Y = RNG.choice(["a", "b", "c"], 150)


@parametrize_with_checks([SelectTerms(k=3), SelectTerms(criterion="ig", k="all"), SelectTerms(criterion="df", k=1)])
def test_sklearn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(estimator)


def test_information_gain_is_mutual_information_of_presence():
    s = SelectTerms(criterion="ig").fit(X, Y)
    P = X.toarray() > 0
    expect = [mutual_info_score(Y, P[:, j]) for j in range(P.shape[1])]
    assert_allclose(s.scores_, expect, atol=1e-12)


def test_chi_square_closed_form():
    # term in 3 of 4 "a" documents and 1 of 4 "b" documents
    class_df = np.array([[3.0], [1.0]])
    a, b, c, d = 3, 1, 1, 3
    expect = 8 * (a * d - c * b) ** 2 / ((a + c) * (b + d) * (a + b) * (c + d))
    assert_allclose(term_scores(class_df, [4, 4], "chi2"), [expect])
    assert_allclose(term_scores(class_df, [4, 4], "df"), [4.0])


def test_keeps_the_k_best_in_column_order_ties_by_column():
    A = np.array([[1, 1, 0, 1], [1, 1, 0, 1], [0, 0, 1, 1], [0, 0, 1, 1]], dtype=float)
    s = SelectTerms(k=2).fit(A, ["a", "a", "b", "b"])
    assert s.get_support().tolist() == [True, True, False, False]  # 0, 1, 2 tie; 3 useless
    assert s.transform(A).shape == (4, 2)
    assert SelectTerms(k=10).fit(A, ["a", "a", "b", "b"]).get_support().all()


def test_partial_fit_and_merge_equal_fit():
    full = SelectTerms(criterion="ig", k=5).fit(X, Y)
    inc = SelectTerms(criterion="ig", k=5).partial_fit(X[:40], Y[:40]).partial_fit(X[40:], Y[40:])
    merged = SelectTerms(criterion="ig", k=5).fit(X[:70], Y[:70]).merge(
        SelectTerms(criterion="ig", k=5).fit(X[70:], Y[70:]))
    for other in (inc, merged):
        assert_allclose(other.scores_, full.scores_, atol=1e-12)
        assert np.array_equal(other.get_support(), full.get_support())


def test_bad_parameters():
    with pytest.raises(ValueError, match="criterion"):
        SelectTerms(criterion="gini").fit(X, Y)
    with pytest.raises(ValueError, match="k must be"):
        SelectTerms(k=-1).fit(X, Y)


def test_inside_cross_validation_on_sms(sms_tsv, tmp_path):
    with open(sms_tsv, encoding="utf-8") as f:
        rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    texts, y = [r[1] for r in rows], np.array([r[0] for r in rows])
    Xs = Vectorizer().fit_transform(texts)
    folds = StratifiedKFold(5, shuffle=True, random_state=0)
    for criterion in ("chi2", "ig", "df"):
        pipe = make_pipeline(SelectTerms(criterion=criterion, k=2000), MultinomialNB())
        scores = cross_val_score(pipe, Xs, y, cv=folds)
        assert scores.mean() > 0.95
    sel = SelectTerms(k=500).fit(Xs, y)
    sel_path = tmp_path / "s.tnb"
    from textnb.core.model_io import save

    save(sel, sel_path)
    assert np.array_equal(load(sel_path).get_support(), sel.get_support())
