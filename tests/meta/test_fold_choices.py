"""The models fitted on folds to threshold, calibrate or adjust a final model keep the choices
the final model made from all its training data (textnb.naive_bayes.base.with_choices; the
trainer's textnb.text.training.with_choices): a SmoothingCV's setting, DiscriminativeNB's
event model. A fold that chose again could choose otherwise, and its scores were then on
another scale than those of the model they calibrate (GoEmotions, ``--model auto``: one
out-of-fold SmoothingCV chose m=1000 against the final m=3000, and macro-F1 fell from 0.18
to 0.12, docs/multilabel.md)."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone

from textnb import MultinomialNB, TextClassifier, Vectorizer
from textnb.core.folds import calibration_folds, kfold, stratified_kfold
from textnb.meta import multilabel_training
from textnb.meta.calibration import CalibratedNB
from textnb.meta.multilabel import MultiLabelNB
from textnb.meta.smoothing import SmoothingCV
from textnb.naive_bayes.base import with_choices
from textnb.naive_bayes.discriminative import DiscriminativeNB
from textnb.semi_naive.apnbc import APNBC
from textnb.semi_naive.apnbc_kernel import APNBCKernel
from textnb.text.training import fit_model

TOPICS = {"grain": "wheat corn harvest crop bushels grain", "oil": "crude barrel opec oil refinery petroleum",
          "money": "dollar yen currency exchange rate bank"}


def _corpus(n=90, seed=0):
    """Documents of 1-2 topics, a few topic words each, common words, a word of their own
    and one shared with one other document."""
    rng = np.random.RandomState(seed)
    names = sorted(TOPICS)
    texts, labels = [], []
    for i in range(n):
        labs = sorted(rng.choice(names, 1 if rng.uniform() < 0.6 else 2, replace=False).tolist())
        words = [w for lab in labs for w in rng.choice(TOPICS[lab].split(), 5).tolist()]
        words += rng.choice("the of and said market week".split(), 5).tolist()
        words += [f"own{i}"] * 4 + [f"pair{i // 2}"] * 2
        rng.shuffle(words)
        texts.append(" ".join(words))
        labels.append(tuple(labs))
    return texts, labels


def _single_label(seed=1):
    """A count matrix and one label per document (the first topic): on these, some fold of
    3 chooses another smoothing (SmoothingCV) and another event model (DiscriminativeNB)
    than the model of every document (checked where used)."""
    texts, labels = _corpus(seed=seed)
    X = Vectorizer().fit_transform(texts).astype(np.float64)
    X.sort_indices()
    return X, np.array([labs[0] for labs in labels])


def _spy_learn_weights(monkeypatch):
    """The out-of-fold joint log-likelihoods every APNBC (estimator or the trainer's kernel)
    learns its weights from, in the order they were learned."""
    seen = []
    real = APNBCKernel.learn_weights

    def spy(jll, *args, **kwargs):
        seen.append(np.array(jll, dtype=np.float64))
        return real(jll, *args, **kwargs)

    monkeypatch.setattr(APNBCKernel, "learn_weights", staticmethod(spy))
    return seen


# -- the capability ------------------------------------------------------------------------------
def test_with_choices_fixes_what_the_model_chose_and_walks_the_wrappers():
    X, y = _single_label()
    dnb = DiscriminativeNB().fit(X, y)
    fixed = with_choices(dnb)
    assert fixed.get_params()["event_model"] == dnb.event_model_ and fixed.alpha == dnb.alpha_
    assert fixed.step == dnb.step_ == 4.5  # (the pass weight "auto" gave these short documents)
    assert not hasattr(fixed, "classes_")  # (unfitted)
    assert with_choices(DiscriminativeNB(event_model="bernoulli", step=4.5, residual=False).fit(X, y)) is None
    # (chose nothing; with residual="auto" it chose whether to fit a residual layer: none on 90 documents)
    assert with_choices(DiscriminativeNB(event_model="bernoulli", step=4.5).fit(X, y)).residual is False
    only_step = with_choices(DiscriminativeNB(event_model="bernoulli").fit(X, y))  # (chose its pass weight)
    assert only_step.get_params()["event_model"] == "bernoulli" and only_step.step == 4.5
    assert with_choices(MultinomialNB().fit(X, y)) is None
    search = SmoothingCV(cv=3).fit(X, y)
    fixed = with_choices(search)
    assert isinstance(fixed, SmoothingCV) and fixed.param_grid == {k: [v] for k, v in search.best_params_.items()}
    wrapped = with_choices(CalibratedNB(DiscriminativeNB(), cv=3).fit(X, y))
    assert isinstance(wrapped, CalibratedNB) and wrapped.estimator.event_model == dnb.event_model_
    adjusted = with_choices(APNBC(SmoothingCV(cv=3), fit_on="cv", cv=3, random_state=0).fit(X, y))
    assert adjusted.estimator.param_grid == fixed.param_grid and adjusted.fit_on == "cv"
    assert with_choices(CalibratedNB(MultinomialNB(), cv=3).fit(X, y)) is None


# -- APNBC's folds (fit_on="cv") -----------------------------------------------------------------
@pytest.mark.parametrize("way", ["estimators", "kernels"])
def test_apnbc_folds_fit_the_smoothing_the_search_of_every_object_chose(monkeypatch, way):
    """APNBC(SmoothingCV, fit_on="cv") (``--model auto --adjust --adjust-on cv``): the
    joint log-likelihoods its weights are learned from are those of models of the setting
    the SmoothingCV on every object chose, fitted on each fold; before, each fold's
    SmoothingCV searched again, and here one fold chose another m."""
    X, y = _single_label()
    final = SmoothingCV(cv=3).fit(X, y)
    folds = stratified_kfold(y, 3, 0)
    assert any(SmoothingCV(cv=3).fit(X[train], y[train]).best_params_ != final.best_params_
               for train, _ in folds)  # (a fold's own search chooses otherwise)
    seen = _spy_learn_weights(monkeypatch)
    if way == "estimators":
        APNBC(SmoothingCV(cv=3), fit_on="cv", cv=3, random_state=0).fit(X, y)
    else:
        classes, y_index = np.unique(y, return_inverse=True)
        fit_model(("APNBC", {"estimator": ("SmoothingCV", {"cv": 3}), "fit_on": "cv", "cv": 3, "random_state": 0}),
                  (), classes, X, y_index)
    assert len(seen) == 1
    want = np.empty_like(seen[0])
    for train, test in folds:
        model = clone(final.estimator_).fit(X[train], y[train])  # (the Pipeline of the setting chosen)
        Xt = X[test]
        for _, step in model.steps[:-1]:
            Xt = step.transform(Xt)
        want[test] = model.steps[-1][1].predict_joint_log_proba(Xt)
    assert_allclose(seen[0], want, rtol=1e-12, atol=1e-12)


# -- CalibratedNB's folds ------------------------------------------------------------------------
@pytest.mark.parametrize("way", ["estimators", "kernels"])
def test_calibration_folds_fit_the_event_model_discriminative_nb_chose(way):
    """CalibratedNB(DiscriminativeNB()) (``--calibrate``, the default model): the calibration
    folds fit the event model the model of every document chose, so the maps and thresholds
    are those of calibrating the DiscriminativeNB of that event model. Before, each fold's
    DiscriminativeNB chose its own event model (here another one on some fold), and the maps
    were fitted on scores of another model."""
    X, y = _single_label()
    dnb = DiscriminativeNB().fit(X, y)
    assert any(DiscriminativeNB().fit(X[train], y[train]).event_model_ != dnb.event_model_
               for train, _ in calibration_folds(y, 3, 0))  # (a fold's own choice differs)
    if way == "estimators":
        auto = CalibratedNB(DiscriminativeNB(), cv=3).fit(X, y)
        given = CalibratedNB(DiscriminativeNB(event_model=dnb.event_model_), cv=3).fit(X, y)
        got, want = (auto.sigmoid_, auto.thresholds_), (given.sigmoid_, given.thresholds_)
    else:
        classes, y_index = np.unique(y, return_inverse=True)
        states = [fit_model(("CalibratedNB", {"estimator": ("DiscriminativeNB", params), "cv": 3}), (), classes, X,
                            y_index)[0].state for params in ({}, {"event_model": dnb.event_model_})]
        got, want = [(s["sigmoid_"], s["thresholds_"]) for s in states]
        estimator = CalibratedNB(DiscriminativeNB(), cv=3).fit(X, y)
        assert_array_equal(got[0], estimator.sigmoid_)  # (the trainer computes what the estimator does)
    assert_array_equal(got[0], want[0])
    assert_array_equal(got[1], want[1])


# -- MultiLabelNB's out-of-fold models, in the trainer -------------------------------------------
@pytest.mark.parametrize("method", ["copy", "ovr"])
def test_the_trainers_out_of_fold_models_keep_the_final_models_smoothing(monkeypatch, method):
    """``textnb train --labels FILE --model auto`` (the scikit-learn-free trainer): the
    out-of-fold scores behind the thresholds are those of the setting the final model's
    SmoothingCV chose (one-vs-rest: each label's), fitted on each fold's documents, as the
    estimator's (tests/meta/test_multilabel_folds.py). Before, each fold's SmoothingCV
    searched again and, on this corpus, chose another m on some fold."""
    texts, labels = _corpus()
    X, terms, fold_counts = multilabel_training.count(texts, folds=True)
    seen = []
    decide = multilabel_training.decide

    def spy(S, *args, **kwargs):
        seen.append(np.array(S))
        return decide(S, *args, **kwargs)

    monkeypatch.setattr(multilabel_training, "decide", spy)
    fitted = multilabel_training.fit(X, terms, labels, model=("SmoothingCV", {"cv": 3}), multilabel={"method": method},
                                     fold_counts=fold_counts)
    assert len(seen) == 1
    nodes = [fitted.estimator_] if method == "copy" else fitted.estimators_
    grids = [{k: [v] for k, v in node.state["best_params_"].items()} for node in nodes]

    def model(grid):
        return MultiLabelNB(SmoothingCV(cv=3, param_grid=grid), method=method, threshold=0.0, min_labels=0)

    want = np.full(seen[0].shape, np.nan)
    differ = False
    for train, test in kfold(len(texts), 5, 0):
        docs, fold_labels, held_out = [texts[i] for i in train], [labels[i] for i in train], [texts[i] for i in test]
        for j, grid in enumerate(grids):
            fresh = TextClassifier(model=model(grid)).fit(docs, fold_labels)
            scores = fresh.model_.predict_log_odds(fresh.transform(held_out))
            if method == "copy":
                want[test] = scores
            else:
                want[np.ix_(test, [j])] = scores[:, [j]]
        searched = TextClassifier(model=model(None)).fit(docs, fold_labels).model_
        found = [searched.estimator_] if method == "copy" else searched.estimators_
        differ |= [{k: [v] for k, v in m.best_params_.items()} for m in found] != grids
    assert differ  # (a fold's own search chooses otherwise)
    assert_allclose(seen[0], want, rtol=1e-10, atol=1e-10)


# -- the fold models search nothing ----------------------------------------------------------------
def _count_searches(monkeypatch):
    """The grids SmoothingCV cross-validates (fast or slow path), in the order searched."""
    searched = []
    for name in ("_fast_scores", "_slow_scores"):
        real = getattr(SmoothingCV, name)

        def spy(self, base, grid, *args, _real=real, **kwargs):
            searched.append([dict(p) for p in grid])
            return _real(self, base, grid, *args, **kwargs)

        monkeypatch.setattr(SmoothingCV, name, spy)
    return searched


def test_a_grid_of_one_setting_is_fitted_without_a_search(monkeypatch):
    """SmoothingCV with one setting (what with_choices gives the fold models): nothing to
    choose, so no cross-validation; the model is that setting fitted on all the data, its
    score NaN (GridSearchCV would score it; cross_val_score gives that figure)."""
    X, y = _single_label()
    searched = _count_searches(monkeypatch)
    one = SmoothingCV(cv=3, param_grid={"multinomialnb__m": [1000]}).fit(X, y)
    assert searched == []
    assert one.best_params_ == {"multinomialnb__m": 1000} and one.best_index_ == 0
    assert np.isnan(one.best_score_) and len(one.cv_results_) == 1
    want = clone(one.estimator_).fit(X, y)
    assert_array_equal(one.predict_proba(X), want.predict_proba(X))
    with pytest.raises(ValueError, match="at least 2 folds"):  # (cv is still checked)
        SmoothingCV(cv=1, param_grid={"multinomialnb__m": [1000]}).fit(X, y)


@pytest.mark.parametrize("wrapper", ["calibrated", "apnbc", "multilabel"])
def test_the_fold_models_of_a_smoothing_cv_search_nothing_again(monkeypatch, wrapper):
    """CalibratedNB(SmoothingCV()), APNBC(SmoothingCV(), fit_on="cv"), MultiLabelNB(SmoothingCV()):
    only the model of every object searches the grid; each fold's model (a SmoothingCV of the
    one chosen setting, with_choices) fits that setting. Before, each fold's SmoothingCV
    cross-validated its one setting: the same numbers for a search more per fold (APNBC on
    SMS, 10 folds: docs/apnbc.md)."""
    if wrapper == "multilabel":
        texts, y = _corpus()
        X = Vectorizer().fit_transform(texts).astype(np.float64)
        model = MultiLabelNB(SmoothingCV(cv=3), cv=3)
    else:
        X, y = _single_label()
        model = (CalibratedNB(SmoothingCV(cv=3), cv=3) if wrapper == "calibrated"
                 else APNBC(SmoothingCV(cv=3), fit_on="cv", cv=3, random_state=0))
    searched = _count_searches(monkeypatch)
    model.fit(X, y)
    assert len(searched) == 1 and len(searched[0]) > 1  # (the final model's search of the whole grid)
