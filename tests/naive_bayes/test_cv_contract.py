"""Every ``cv=`` accepts what scikit-learn's ``check_cv`` accepts (issue #31).

One implementation (:func:`textnb.naive_bayes.base.given_splits`) behind the ``cv`` of
DiscriminativeNB, MultiLabelNB, CalibratedNB and SmoothingCV: an int, None, a splitter,
an iterable of (train, test) index arrays; one-line errors for the rest; splits whose
test parts do not partition the rows; model files; streamed training. On the bundled
SMS collection.
"""

import numpy as np
import pytest
from sklearn.model_selection import GroupKFold, KFold, LeaveOneGroupOut, ShuffleSplit, StratifiedKFold

from textnb import MultinomialNB, TextClassifier
from textnb.core import dfe
from textnb.core.errors import ModelFileError, ParameterError
from textnb.core.model_io import load
from textnb.meta.calibration import CalibratedNB, out_of_fold_log_odds
from textnb.meta.multilabel import MultiLabelNB
from textnb.meta.smoothing import SmoothingCV
from textnb.naive_bayes.discriminative import DiscriminativeNB

N = 600  # documents: enough for 50+ held out per calibration, quick to fit


@pytest.fixture(scope="module")
def small(sms_counts):
    """The first N training SMS messages (counts, labels)."""
    X, y, _, _ = sms_counts
    return X[:N], y[:N]


@pytest.fixture(scope="module")
def label_sets(sms, small):
    """Label sets of the same messages: spam/ham, plus "question" when the text has a '?'."""
    docs, y = sms
    return [(lab, "question") if "?" in doc else (lab,) for doc, lab in zip(docs[:N], y[:N])]


def _estimators():
    return {
        "DiscriminativeNB": lambda cv: DiscriminativeNB(cv=cv),
        "CalibratedNB": lambda cv: CalibratedNB(cv=cv),
        "SmoothingCV": lambda cv: SmoothingCV(MultinomialNB(), param_grid={"alpha": [0.01, 1.0]}, cv=cv),
        "MultiLabelNB": lambda cv: MultiLabelNB(MultinomialNB(), cv=cv),
    }


NAMES = sorted(_estimators())


def _fit(name, cv, small, label_sets):
    X, y = small
    return _estimators()[name](cv).fit(X, label_sets if name == "MultiLabelNB" else y)


def _learned(model):
    """The numbers a cross-validation decided, per estimator."""
    name = type(model).__name__
    if name == "DiscriminativeNB":
        return [model.event_model_, model.scale_, model.coef_]
    if name == "CalibratedNB":
        return [model.sigmoid_, model.thresholds_]
    if name == "SmoothingCV":
        return [s for _, s in model.cv_results_]
    return [model.thresholds_, model.fbr_]


def _same(a, b):
    for u, v in zip(_learned(a), _learned(b)):
        if isinstance(u, str):
            assert u == v
        else:
            np.testing.assert_array_equal(u, v)


@pytest.mark.parametrize("name", NAMES)
def test_every_form_of_cv_fits_and_a_splitter_equals_its_list(name, small, label_sets):
    X, y = small
    folds = KFold(3, shuffle=True, random_state=1)
    as_splitter = _fit(name, folds, small, label_sets)
    as_list = _fit(name, list(folds.split(X, y)), small, label_sets)
    as_generator = _fit(name, folds.split(X, y), small, label_sets)
    _same(as_splitter, as_list)
    _same(as_splitter, as_generator)
    for cv in (None, 3, StratifiedKFold(4), ShuffleSplit(3, test_size=0.3, random_state=0)):
        if name == "MultiLabelNB" and isinstance(cv, StratifiedKFold):  # label sets: no strata
            with pytest.raises(ParameterError, match="cannot split these data: .*multilabel-indicator"):
                _fit(name, cv, small, label_sets)
            continue
        model = _fit(name, cv, small, label_sets)
        if name != "MultiLabelNB":
            assert np.mean(model.predict(X) == y) > 0.9
    # the splits are used: other folds, other numbers
    other = _fit(name, KFold(2), small, label_sets)
    assert any(not np.array_equal(u, v) for u, v in zip(_learned(as_splitter), _learned(other))
               if not isinstance(u, str))


def test_the_int_folds_as_a_splitter_give_the_same_model(small, label_sets):
    """CalibratedNB's and SmoothingCV's int cv are shuffled stratified folds, MultiLabelNB's
    shuffled K-fold: the same folds given as a splitter give the same numbers."""
    X, y = small
    strat = StratifiedKFold(3, shuffle=True, random_state=0)
    _same(CalibratedNB(cv=3).fit(X, y), CalibratedNB(cv=strat).fit(X, y))
    grid = {"alpha": [0.01, 1.0]}
    _same(SmoothingCV(MultinomialNB(), param_grid=grid, cv=3).fit(X, y),
          SmoothingCV(MultinomialNB(), param_grid=grid, cv=strat).fit(X, y))
    _same(MultiLabelNB(MultinomialNB(), cv=3).fit(X, label_sets),
          MultiLabelNB(MultinomialNB(), cv=KFold(3, shuffle=True, random_state=0)).fit(X, label_sets))
    # None is the default number of folds
    a, b = DiscriminativeNB(cv=None).fit(X, y), DiscriminativeNB().fit(X, y)
    _same(a, b)
    _same(CalibratedNB(cv=None).fit(X, y), CalibratedNB().fit(X, y))


def test_discriminative_splits_equal_to_its_folds_give_its_scale(small):
    """The calibration with given splits computes what the folds compute: splits equal to
    leave_out_scale's own fold assignment give its scale (to single precision, the folds'
    precision)."""
    X, y = small
    classes, y_index = np.unique(y, return_inverse=True)
    model = DiscriminativeNB(calibration=None).fit(X, y)
    T = dfe.features(model.event_model_, X.tocsr())
    keys = dfe.sample_keys(X.tocsr(), y_index, 0)
    contribution = np.ones(N)
    fold = np.unique(keys, return_inverse=True)[1].reshape(-1) % 5
    splits = [(np.flatnonzero(fold != f), np.flatnonzero(fold == f)) for f in range(5)]
    args = (model.event_model_, model.feature_count_, model.class_count_, T, y_index, contribution)
    as_folds = dfe.leave_out_scale(*args, alpha=model.alpha_, keys=keys, folds=5)
    as_splits = dfe.leave_out_scale(*args, alpha=model.alpha_, keys=keys, splits=splits)
    assert as_folds == pytest.approx(as_splits, rel=1e-4)
    # a split given twice holds its documents out twice: the same scale (a doubled log-loss)
    twice = dfe.leave_out_scale(*args, alpha=model.alpha_, keys=keys, splits=splits[:2] + splits[:2])
    once = dfe.leave_out_scale(*args, alpha=model.alpha_, keys=keys, splits=splits[:2])
    assert twice == pytest.approx(once, rel=1e-9)


@pytest.mark.parametrize("name", ["CalibratedNB", "SmoothingCV", "MultiLabelNB", "choice"])
def test_rows_in_no_test_part_are_not_held_out(name, small, label_sets):
    """With a split whose train and test parts leave rows out, what is learned from the
    held-out scores does not depend on the labels of the rows left out."""
    X, y = small
    train, test = np.arange(0, 300), np.arange(300, 450)  # rows 450.. in neither
    other = y.copy()
    other[450:] = np.where(y[450:] == "spam", "ham", "spam")
    cv = [(train, test)]
    if name == "choice":  # DiscriminativeNB's event-model choice
        for labels in (y, other):
            y_index = np.unique(labels, return_inverse=True)[1]
            fam, correct = dfe.choose_family(X.tocsr(), y_index, 2, alphas=dfe.DEFAULT_ALPHA, n_passes=2, step=4.5,
                                             splits=cv)
            assert sum(correct.values()) > 0
            if labels is y:
                first = (fam, correct)
        assert (fam, correct) == first
        return
    if name == "MultiLabelNB":
        flipped = [tuple("spam" if x == "ham" else "ham" if x == "spam" else x for x in s) if i >= 450 else s
                   for i, s in enumerate(label_sets)]
        a, b = (MultiLabelNB(MultinomialNB(), cv=cv, threshold="scut").fit(X, ys) for ys in (label_sets, flipped))
        np.testing.assert_array_equal(a.thresholds_, b.thresholds_)
        return
    a, b = (_estimators()[name](cv).fit(X, labels) for labels in (y, other))
    _same(a, b)


def test_out_of_fold_rows_follow_the_splits(small):
    X, y = small
    splits = [(np.arange(200, 600), np.arange(0, 100)), (np.arange(0, 400), np.arange(50, 150))]
    scores, classes, rows = out_of_fold_log_odds(MultinomialNB(), X, y, cv=splits, return_rows=True)
    assert scores.shape == (200, 2) and rows.tolist() == list(range(100)) + list(range(50, 150))
    per_row, _ = out_of_fold_log_odds(MultinomialNB(), X, y, cv=splits)
    assert np.isnan(per_row[150:]).all() and np.isfinite(per_row[:150]).all()
    np.testing.assert_allclose(per_row[50:100], (scores[50:100] + scores[100:150]) / 2)  # held out twice: the mean


def test_discriminative_weights_equal_copies_with_given_splits(sms_counts):
    """scikit-learn's sample-weight equivalence on real messages: with given splits, a
    document of weight k gives the model its k copies give in the same split."""
    X, y, _, _ = sms_counts
    X, y = X[:200], y[:200]
    sw = np.random.RandomState(0).randint(0, 4, size=200)
    sw[np.flatnonzero(y == "spam")[:2]] = 1  # both classes kept
    groups = np.arange(200) % 4
    rows = np.repeat(np.arange(200), sw)
    Xw, yw, gw = X, y, groups
    Xr, yr, gr = X[rows], y[rows], groups[rows]
    weighted = DiscriminativeNB(cv=list(LeaveOneGroupOut().split(Xw, yw, gw))).fit(Xw, yw, sample_weight=sw)
    repeated = DiscriminativeNB(cv=list(LeaveOneGroupOut().split(Xr, yr, gr))).fit(Xr, yr)
    assert weighted.event_model_ == repeated.event_model_ and hasattr(weighted, "scale_")
    np.testing.assert_allclose(weighted.scale_, repeated.scale_, rtol=1e-9)
    np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X), rtol=1e-7, atol=1e-12)


INT = r"cv must be at least 2 folds|cv must be an integer in \[2, 100\]"  # DiscriminativeNB: at most 100
BAD = [
    (1, INT), (0, INT), (-3, INT), ("five", "cv must be"), (2.5, "cv must be"),
    (True, "cv must be"), ([(np.arange(10), np.arange(600, 610))], r"indices in 0\.\.599"),
    ([1, 2, 3], r"\(train, test\) pairs"), ([], "no splits"),
    ([(np.ones(N, bool), np.zeros(N, bool))], "boolean masks"),
    (GroupKFold(3), "groups"), (KFold(1000), "cannot split"),
]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("cv, match", BAD, ids=[repr(b[0])[:20] for b in BAD])
def test_bad_cv_is_one_line_parameter_error(name, cv, match, small, label_sets):
    with pytest.raises(ParameterError, match=match) as info:
        _fit(name, cv, small, label_sets)
    assert isinstance(info.value, ValueError) and "\n" not in str(info.value)


def test_group_splits_are_given_as_a_list(small):
    X, y = small
    groups = np.arange(N) // 20
    with pytest.raises(ParameterError, match=r"fit takes no groups: give cv=list\(splitter.split\(X, y, groups\)\)"):
        DiscriminativeNB(cv=GroupKFold(3)).fit(X, y)
    model = DiscriminativeNB(cv=list(GroupKFold(3).split(X, y, groups))).fit(X, y)
    assert np.mean(model.predict(X) == y) > 0.9


def test_partial_fit_splits_each_batch_and_streams_take_an_int(sms, small):
    X, y = small
    one = DiscriminativeNB(cv=KFold(3)).partial_fit(X, y, classes=np.unique(y))
    _same(one, DiscriminativeNB(cv=KFold(3)).fit(X, y))  # one batch: fit
    two = DiscriminativeNB(cv=KFold(3)).partial_fit(X[:300], y[:300], classes=np.unique(y))
    two.partial_fit(X[300:], y[300:])  # a splitter splits each batch
    assert np.mean(two.predict(X) == y) > 0.9
    listed = DiscriminativeNB(cv=list(KFold(3).split(X))).partial_fit(X, y, classes=np.unique(y))
    with pytest.raises(ParameterError, match=r"indices in 0\.\.299"):  # a list names the rows of one X
        listed.partial_fit(X[:300], y[:300])
    docs, labels = sms
    for cv in (KFold(3), list(KFold(3).split(X))):
        with pytest.raises(ParameterError, match="stream") as info:
            TextClassifier(model=DiscriminativeNB(cv=cv)).fit(docs[:N], labels[:N])
        assert "\n" not in str(info.value)
    assert TextClassifier(model=DiscriminativeNB(cv=3)).fit(docs[:N], labels[:N]).score(docs[:N], labels[:N]) > 0.9


@pytest.mark.parametrize("name", NAMES)
def test_model_files_store_int_and_list_cv_and_refuse_a_splitter(name, small, label_sets, tmp_path):
    X, y = small
    path = tmp_path / "m.tnb"
    splits = [(np.asarray(a), np.asarray(b)) for a, b in KFold(3).split(X)]
    model = _fit(name, splits, small, label_sets)
    model.save(path)
    back = load(path)
    assert [(a.tolist(), b.tolist()) for a, b in back.cv] == [(a.tolist(), b.tolist()) for a, b in splits]
    np.testing.assert_array_equal(back.predict(X), model.predict(X))
    saved = path.read_bytes()
    for cv in (KFold(3), iter(splits)):
        fitted = _fit(name, cv, small, label_sets)
        with pytest.raises(ModelFileError, match=r"m\.tnb: cannot save .* not a splitter object") as info:
            fitted.save(path)
        assert "\n" not in str(info.value) and "nothing was written" in str(info.value)
        assert path.read_bytes() == saved  # the file there is untouched
        with pytest.raises(ModelFileError):
            fitted.save(tmp_path / "new.tnb")
        assert not (tmp_path / "new.tnb").exists() and sorted(p.name for p in tmp_path.iterdir()) == ["m.tnb"]
        fitted.set_params(cv=3).save(tmp_path / "n.tnb")  # as the message says
        (tmp_path / "n.tnb").unlink()


def test_a_nested_splitter_cv_is_refused_too(small, tmp_path):
    X, y = small
    model = CalibratedNB(DiscriminativeNB(cv=KFold(3)), cv=3).fit(X, y)
    with pytest.raises(ModelFileError, match="estimator__cv"):
        model.save(tmp_path / "m.tnb")
    assert not (tmp_path / "m.tnb").exists()


# -- APNBC and the evaluation functions take the same cv ------------------------------------


def test_apnbc_out_of_fold_scores_follow_given_splits(small):
    """APNBC(fit_on="cv") with StratifiedKFold(shuffle, seed) as a splitter learns the very
    weights of the int cv with the same seed (its own folds are those); a list of splits
    equals the splitter; a one-line error for a bad cv."""
    from textnb.semi_naive.apnbc import APNBC

    X, y = small
    folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=3)
    by_int = APNBC(MultinomialNB(), fit_on="cv", cv=5, random_state=3, significance=1.0).fit(X, y)
    by_splitter = APNBC(MultinomialNB(), fit_on="cv", cv=folds, significance=1.0).fit(X, y)
    by_list = APNBC(MultinomialNB(), fit_on="cv", cv=list(folds.split(X, y)), significance=1.0).fit(X, y)
    np.testing.assert_array_equal(by_int.class_log_weight_, by_splitter.class_log_weight_)
    np.testing.assert_array_equal(by_splitter.class_log_weight_, by_list.class_log_weight_)
    with pytest.raises(ParameterError, match="cv must be"):
        APNBC(MultinomialNB(), fit_on="cv", cv="five").fit(X, y)


def test_cross_validate_takes_a_splitter_and_pools_each_split(small):
    from textnb.evaluation.evaluate import cross_validate

    X, y = small
    by_int = cross_validate(X, y, MultinomialNB(), cv=4, seed=7)
    folds = StratifiedKFold(n_splits=4, shuffle=True, random_state=7)
    by_splitter = cross_validate(X, y, MultinomialNB(), cv=folds)
    assert by_splitter["accuracy"] == by_int["accuracy"] and by_splitter["folds"] == 4
    half = ShuffleSplit(n_splits=3, test_size=0.25, random_state=0)
    report = cross_validate(X, y, MultinomialNB(), cv=half)
    assert report["folds"] == 3 and 0.8 < report["accuracy"] <= 1.0
    assert sum(report["confusion_matrix"][0]) + sum(report["confusion_matrix"][1]) == 3 * 150  # each split's rows
    with pytest.raises(ParameterError, match="repeat must be 1"):
        cross_validate(X, y, MultinomialNB(), cv=folds, repeat=2)


def test_cross_validate_multilabel_takes_a_splitter(small, label_sets):
    from textnb.meta.multilabel import cross_validate_multilabel

    X, _ = small
    model = MultiLabelNB(MultinomialNB(), cv=2)
    by_int = cross_validate_multilabel(X, label_sets, model, cv=3, seed=5)
    by_splitter = cross_validate_multilabel(X, label_sets, model, cv=KFold(n_splits=3, shuffle=True, random_state=5))
    assert by_splitter["micro_f1"] == by_int["micro_f1"] and by_splitter["folds"] == 3
