import csv
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import Pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from textnb import BernoulliNB, MultinomialNB, Vectorizer, load
from textnb.naive_bayes.complement import ComplementNB
from textnb.text.selection import SelectTerms
from textnb.meta.smoothing import SmoothingCV
from textnb.text.weighting import TermWeighting


@pytest.mark.slow
@parametrize_with_checks([SmoothingCV(MultinomialNB(), param_grid={"alpha": [1.0, 0.1]}, cv=3),
                          SmoothingCV(ComplementNB(), param_grid={"alpha": [1.0, 0.5]}, cv=2)])
def test_sklearn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(estimator)


@pytest.fixture(scope="module")
def sms(sms_tsv):
    with open(sms_tsv, encoding="utf-8") as f:
        rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    texts, y = [r[1] for r in rows][:2500], np.array([r[0] for r in rows])[:2500]
    return Vectorizer().fit_transform(texts), y


GRIDS = [
    (Pipeline([("tw", TermWeighting()), ("nb", MultinomialNB())]), {"nb__m": [30, 300, 3000]}),
    (Pipeline([("tw", TermWeighting()), ("nb", MultinomialNB())]),
     [{"nb__alpha": [1.0, 0.1]}, {"nb": [ComplementNB(alpha=0.3), BernoulliNB()]}]),
    (BernoulliNB(), {"alpha": [1.0, 0.2]}),
]


@pytest.mark.parametrize("estimator, grid", GRIDS, ids=["m", "models", "bernoulli"])
def test_fast_scores_equal_refitting_every_fold(sms, estimator, grid):
    X, y = sms
    search = SmoothingCV(estimator, param_grid=grid, cv=4)
    from sklearn.model_selection import ParameterGrid

    params = list(ParameterGrid(grid))
    splits = list(StratifiedKFold(4, shuffle=True, random_state=0).split(np.zeros(len(y)), y))
    search.classes_, y_index = np.unique(y, return_inverse=True)
    fast = search._fast_scores(estimator, params, X, y, y_index, splits)
    assert fast is not None

    # refit on each training fold, restricted to the terms of that fold (and, for the
    # weighting, with document frequencies from all the training documents)
    from sklearn.base import clone

    slow = []
    for p in params:
        cand = clone(estimator).set_params(**p)
        steps = cand.steps if isinstance(cand, Pipeline) else [("nb", cand)]
        Xt = X
        for _, t in steps[:-1]:
            Xt = clone(t).fit_transform(Xt)
        pred = np.empty(len(y), dtype=object)
        for train, test in splits:
            cols = np.flatnonzero(np.asarray((Xt[train] != 0).sum(axis=0)).ravel())
            model = clone(steps[-1][1]).fit(Xt[train][:, cols], y[train])
            pred[test] = model.predict(Xt[test][:, cols])
        slow.append(np.mean(pred == y))
    assert_allclose(fast, slow)


def test_picks_the_best_setting_and_refits(sms, tmp_path):
    X, y = sms
    search = SmoothingCV(cv=5).fit(X, y)
    scores = [s for _, s in search.cv_results_]
    assert search.best_params_ == search.cv_results_[int(np.argmax(scores))][0]
    assert search.estimator_.get_params()["multinomialnb__m"] == search.best_params_["multinomialnb__m"]
    search.save(tmp_path / "s.tnb")
    back = load(tmp_path / "s.tnb")
    assert_allclose(back.predict_log_proba(X[:50]), search.predict_log_proba(X[:50]))
    assert_allclose(back.predict_log_odds(X[:50]), search.predict_log_odds(X[:50]))


def test_supervised_steps_take_the_slow_path(sms):
    X, y = sms
    est = Pipeline([("sel", SelectTerms(k=300)), ("nb", MultinomialNB())])
    search = SmoothingCV(est, param_grid={"nb__alpha": [1.0, 0.1]}, cv=3).fit(X, y)
    assert len(search.cv_results_) == 2 and search.score(X, y) > 0.9


def test_cv_accepts_what_check_cv_accepts():
    """An int, a splitter or a list of (train, test) splits, as scikit-learn's check_cv;
    the same folds give the same choice whichever way they are given."""
    from sklearn.model_selection import KFold, ShuffleSplit, StratifiedKFold

    from textnb import MultinomialNB
    from textnb.meta.smoothing import SmoothingCV

    rng = np.random.RandomState(0)
    y = rng.randint(2, size=60)
    X = rng.poisson(1.0 + 2.0 * y[:, None] * (np.arange(8) < 4), size=(60, 8))
    grid = {"alpha": [0.01, 1.0, 30.0]}
    folds = StratifiedKFold(n_splits=3, shuffle=True, random_state=0)
    as_int = SmoothingCV(MultinomialNB(), param_grid=grid, cv=3, random_state=0).fit(X, y)
    as_splitter = SmoothingCV(MultinomialNB(), param_grid=grid, cv=folds).fit(X, y)
    as_list = SmoothingCV(MultinomialNB(), param_grid=grid, cv=list(folds.split(X, y))).fit(X, y)
    assert as_int.cv_results_ == as_splitter.cv_results_ == as_list.cv_results_
    # splits whose training part is not the rest of the data take the refitting path
    shuffled = SmoothingCV(MultinomialNB(), param_grid=grid, cv=ShuffleSplit(4, test_size=0.2, random_state=0))
    assert shuffled.fit(X, y).best_params_ in [{"alpha": a} for a in grid["alpha"]]
    assert SmoothingCV(MultinomialNB(), param_grid=grid, cv=KFold(2)).fit(X, y).predict(X).shape == (60,)
    with pytest.raises(ValueError, match="cv must be"):
        SmoothingCV(MultinomialNB(), param_grid=grid, cv="five").fit(X, y)
    with pytest.raises(ValueError, match="indices in 0..59"):
        SmoothingCV(MultinomialNB(), param_grid=grid, cv=[(np.arange(10), np.arange(60, 70))]).fit(X, y)


# -- sample_weight (was: TypeError) and the vocabulary of each fold ----------------------------
def _repeated_splits(splits, weights):
    """The splits of the rows repeated ``weights`` times (np.repeat's order)."""
    start = np.concatenate([[0], np.cumsum(weights)])
    copies = lambda rows: np.concatenate([np.arange(start[i], start[i + 1]) for i in rows])  # noqa: E731
    return [(copies(train), copies(test)) for train, test in splits]


@pytest.mark.parametrize("scoring", ["accuracy", "macro_f1"])
def test_integer_sample_weights_choose_as_the_repeated_rows(scoring):
    from textnb.core.folds import stratified_kfold

    rng = np.random.RandomState(0)
    X = rng.poisson(0.7, (80, 12))
    y = np.where(X[:, 0] + X[:, 1] * rng.rand(80) > 1, "a", "b")
    w = rng.randint(0, 4, 80)
    splits = stratified_kfold(y, 4, 0)
    grid = {"alpha": [0.01, 0.1, 1.0, 3.0], "fit_prior": [True, False]}
    weighted = SmoothingCV(MultinomialNB(), param_grid=grid, cv=splits, scoring=scoring).fit(X, y, sample_weight=w)
    rep = np.repeat(np.arange(80), w)
    repeated = SmoothingCV(MultinomialNB(), param_grid=grid, cv=_repeated_splits(splits, w),
                           scoring=scoring).fit(X[rep], y[rep])
    assert_allclose([s for _, s in weighted.cv_results_], [s for _, s in repeated.cv_results_], rtol=1e-12)
    assert weighted.best_params_ == repeated.best_params_
    assert_allclose(weighted.estimator_.feature_count_, repeated.estimator_.feature_count_)
    # the slow path (training parts that are not the rest of the data: every fold refitted) too
    splits = [(train[3:], test) for train, test in splits]
    weighted = SmoothingCV(MultinomialNB(), param_grid=grid, cv=splits, scoring=scoring).fit(X, y, sample_weight=w)
    repeated = SmoothingCV(MultinomialNB(), param_grid=grid, cv=_repeated_splits(splits, w),
                           scoring=scoring).fit(X[rep], y[rep])
    assert_allclose([s for _, s in weighted.cv_results_], [s for _, s in repeated.cv_results_], rtol=1e-12)


def test_sample_weight_reaches_the_model_inside_nested_pipelines():
    """Weights go to a Pipeline's last step by the one routing rule of its ``groups``
    (``textnb.core.wrapping.fit_route``): a Pipeline inside a Pipeline gets
    ``outer__inner__sample_weight``, and the choice and model equal the flat Pipeline's
    (was: ``outer__sample_weight``, which the inner Pipeline refused with a ValueError)."""
    from textnb.meta.calibration import CalibratedNB

    rng = np.random.RandomState(3)
    X = rng.poisson(0.8, (60, 10))
    y = np.where(X[:, 0] + X[:, 1] * rng.rand(60) > 1, "a", "b")
    w = rng.randint(1, 4, 60).astype(float)
    grid = {"m__alpha": [0.1, 1.0]}
    flat = Pipeline([("t", TermWeighting()), ("m", MultinomialNB())])
    nested = Pipeline([("p", Pipeline([("t", TermWeighting()), ("m", MultinomialNB())]))])
    a = SmoothingCV(flat, param_grid=grid, cv=3).fit(X, y, sample_weight=w)
    b = SmoothingCV(nested, param_grid={"p__m__alpha": [0.1, 1.0]}, cv=3).fit(X, y, sample_weight=w)
    assert [s for _, s in a.cv_results_] == [s for _, s in b.cv_results_]
    assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=1e-12)
    c = CalibratedNB(flat, cv=3).fit(X, y, sample_weight=w)
    d = CalibratedNB(nested, cv=3).fit(X, y, sample_weight=w)
    assert_allclose(c.predict_proba(X), d.predict_proba(X), rtol=1e-12)


def test_sample_weight_for_a_model_that_takes_none_is_one_clear_error():
    from textnb.core.errors import InputError

    class NoWeights(MultinomialNB):
        def fit(self, X, y):
            return super().fit(X, y)

    X, y = [[1, 0], [0, 1], [2, 0], [0, 2]], ["a", "b", "a", "b"]
    with pytest.raises(InputError, match="SmoothingCV cannot take sample_weight: its estimator NoWeights does not"):
        SmoothingCV(NoWeights(), param_grid={"alpha": [1.0]}, cv=2).fit(X, y, sample_weight=[1, 2, 1, 1])


def test_a_vectorizer_in_the_pipeline_is_fitted_per_fold_as_gridsearchcv_fits_it():
    """The Vectorizer was fitted once on every document before the folds: with ``min_df=2``
    a word seen once in a fold's training part and once in its held-out part was a term of
    the fold's model (its vocabulary leaked from the held-out documents), so the scores
    were not those of the models GridSearchCV fits."""
    from sklearn.base import clone

    from textnb.core.folds import stratified_kfold

    rng = np.random.RandomState(1)
    words = [f"w{i}" for i in range(60)]
    docs = np.array([" ".join(rng.choice(words[(i % 2) * 20:(i % 2) * 20 + 40], 6)) for i in range(60)], dtype=object)
    y = np.array(["ab"[i % 2] for i in range(60)])
    splits = stratified_kfold(y, 3, 0)
    pipe = Pipeline([("vectorizer", Vectorizer(min_df=2)), ("multinomialnb", MultinomialNB())])
    alphas = [0.01, 0.1, 1.0, 10.0]
    search = SmoothingCV(pipe, param_grid={"multinomialnb__alpha": alphas}, cv=splits).fit(docs, y)
    expected = []
    for alpha in alphas:
        pred = np.empty(len(y), dtype=object)
        for train, test in splits:
            fold = clone(pipe).set_params(multinomialnb__alpha=alpha).fit(docs[train], y[train])
            pred[test] = fold.predict(docs[test])
        expected.append(float(np.mean(pred == y)))
    assert [s for _, s in search.cv_results_] == expected
    assert search.estimator_.steps[0][1].vocabulary_ == clone(pipe).fit(docs, y).steps[0][1].vocabulary_


def test_best_score_and_best_index_are_grid_search_cvs(tmp_path):
    """scikit-learn's GridSearchCV convention: ``best_index_`` (the grid position of
    ``best_params_``) and ``best_score_`` (its cross-validated score); on folds of equal
    size, pooled out-of-fold accuracy is GridSearchCV's mean of the folds' accuracies, so
    both agree with GridSearchCV's on the same splits. A model read from a file has them."""
    from sklearn.model_selection import GridSearchCV, KFold

    rng = np.random.default_rng(0)  # (every column seen in every training part: the same model as GridSearchCV's)
    y = np.repeat(["a", "b", "c"], 200)
    X = rng.poisson(np.where(np.arange(30) % 3 == np.searchsorted(["a", "b", "c"], y)[:, None], 1.6, 1.0))
    splits = list(KFold(4, shuffle=True, random_state=0).split(X, y))  # 150 each
    grid = {"alpha": [0.1, 1.0, 3.0, 30.0]}
    search = SmoothingCV(MultinomialNB(), param_grid=grid, cv=splits).fit(X, y)
    reference = GridSearchCV(MultinomialNB(), grid, cv=splits).fit(X, y)
    assert search.best_index_ == reference.best_index_ == 3
    assert search.best_score_ == pytest.approx(reference.best_score_, abs=1e-12)
    assert search.best_params_ == reference.best_params_ == search.cv_results_[search.best_index_][0]
    assert search.best_score_ == max(s for _, s in search.cv_results_)
    search.save(tmp_path / "cv.tnb")
    loaded = load(tmp_path / "cv.tnb")
    assert (loaded.best_index_, loaded.best_score_) == (search.best_index_, search.best_score_)
    unfitted = SmoothingCV(MultinomialNB())
    assert not hasattr(unfitted, "best_score_") and not hasattr(unfitted, "best_index_")
