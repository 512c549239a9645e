"""The folds inside a multi-label fit (MultiLabelNB's out-of-fold scores, a SmoothingCV's or
an APNBC's folds on the copies) each on the vocabulary of their own training documents, as
the single-label wrappers' folds are (text.training.FoldVocabularies): a term that only a
held-out document has is no term of a model that scores it."""

import json

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.base import clone
from sklearn.model_selection import ParameterGrid

from textnb import MultinomialNB, TextClassifier, Vectorizer
from textnb.core.folds import kfold, stratified_kfold
from textnb.meta.labelsets import copies, label_indicator
from textnb.meta.multilabel import MultiLabelNB
from textnb.meta.smoothing import SmoothingCV
from textnb.naive_bayes.base import with_choices
from conftest import quick_cover

TOPICS = {"grain": "wheat corn harvest crop bushels grain", "oil": "crude barrel opec oil refinery petroleum",
          "money": "dollar yen currency exchange rate bank"}


def _corpus(n=90, seed=0, own=4, topic_words=5, p=None, pair=2):
    """Documents of 1-2 topics (drawn with probabilities ``p``), ``topic_words`` of each,
    with a word of its own repeated ``own`` times (a term no other document has) and a
    word shared with one other document, ``pair`` times (a term of two documents)."""
    rng = np.random.RandomState(seed)
    names = sorted(TOPICS)
    texts, labels = [], []
    for i in range(n):
        labs = sorted(rng.choice(names, 1 if rng.uniform() < 0.6 else 2, replace=False, p=p).tolist())
        words = [w for lab in labs for w in rng.choice(TOPICS[lab].split(), topic_words).tolist()]
        words += rng.choice("the of and said market week".split(), 5).tolist()
        words += [f"own{i}"] * own + [f"pair{i // 2}"] * pair
        rng.shuffle(words)
        texts.append(" ".join(words))
        labels.append(tuple(labs))
    return texts, labels


def _out_of_fold(monkeypatch, fit):
    """The out-of-fold log-odds MultiLabelNB chooses its thresholds on during ``fit()``."""
    seen = []
    decide = MultiLabelNB._decide

    def spy(self, S, T, strategy):
        seen.append(np.array(S))
        return decide(self, S, T, strategy)

    with monkeypatch.context() as m:
        m.setattr(MultiLabelNB, "_decide", spy)
        fit()
    assert len(seen) == 1
    return seen[0]


def _models():
    return {"multinomial": MultinomialNB,
            "auto": lambda: SmoothingCV(MultinomialNB(), param_grid={"alpha": [0.01, 0.1, 1.0]}, cv=3)}


def _chosen(fitted, method):
    """The model(s) of a fitted MultiLabelNB with the choices they made on all its training
    documents fixed: a SmoothingCV over the one setting it chose."""
    def chosen(model):
        fixed = with_choices(model)
        return clone(fitted.estimator) if fixed is None else fixed

    return chosen(fitted.estimator_) if method == "copy" else [chosen(m) for m in fitted.estimators_]


def _settings(fitted, method):
    """The settings the SmoothingCV(s) of a fitted MultiLabelNB chose."""
    models = [fitted.estimator_] if method == "copy" else [m for m in fitted.estimators_ if m is not None]
    return [m.best_params_ for m in models]


_VECTORIZERS = {"min_df=2": {"min_df": 2}, "max_features=40": {"max_features": 40}, "default": {}}


@pytest.mark.parametrize("method, model, vectorizer", quick_cover(
    {f"{method}-{model}-{v}": (method, model, settings) for method in ("copy", "ovr")
     for model in ("multinomial", "auto") for v, settings in _VECTORIZERS.items()},
    # every pair of two parameters' settings (ovr-auto, the slowest, once)
    quick=["ovr-multinomial-min_df=2", "copy-auto-min_df=2", "copy-multinomial-max_features=40",
           "ovr-auto-max_features=40", "ovr-multinomial-default", "copy-auto-default"]))
def test_out_of_fold_scores_are_fresh_fits_on_the_folds_documents(monkeypatch, vectorizer, model, method):
    """MultiLabelNB in a TextClassifier: each out-of-fold model scores its held-out
    documents as a TextClassifier of the same vectorizer, fitted on the fold's training
    documents, of the model with the final model's choices does (min_df / max_features
    counted on the fold's documents; a SmoothingCV's setting as the model of every document
    chose it). Before, a fold's model was fitted on the whole training set's pruned
    vocabulary (minus the terms the fold never saw), so a term of a held-out document and
    one training document passed min_df=2 in the fold's model; and a SmoothingCV of a fold
    searched again, on the fold's documents, and here chose another setting than the
    final model on some fold: its log-odds were on another scale than those the thresholds
    are applied to (GoEmotions: m=1000 in a fold against m=3000, macro-F1 0.18 -> 0.12)."""
    texts, labels = _corpus(seed=1, **SKEWED)  # (every fold's search of some label chooses otherwise)
    make = _models()[model]
    clf = TextClassifier(vectorizer=Vectorizer(**vectorizer), model=MultiLabelNB(make(), method=method, cv=3))
    got = _out_of_fold(monkeypatch, lambda: clf.fit(texts, labels))
    chosen = _chosen(clf.model_, method)
    if model == "auto":  # (a fold's SmoothingCV searches the setting chosen only)
        for fixed in [chosen] if method == "copy" else chosen:
            assert len(ParameterGrid(fixed.param_grid)) == 1
    want = np.full(got.shape, np.nan)
    differ = False
    for train, test in kfold(len(texts), 3, 0):
        docs, held_out = [texts[i] for i in train], [texts[i] for i in test]
        for j, base in enumerate([chosen] if method == "copy" else chosen):
            fresh = TextClassifier(vectorizer=Vectorizer(**vectorizer),
                                   model=MultiLabelNB(base, method=method, threshold=0.0, min_labels=0))
            fresh.fit(docs, [labels[i] for i in train])
            assert list(fresh.classes_) == list(clf.classes_)
            scores = fresh.model_.predict_log_odds(fresh.transform(held_out))
            if method == "copy":
                want[test] = scores
            else:
                want[np.ix_(test, [j])] = scores[:, [j]]
        if model == "auto":  # (what a fold's own search chooses)
            searched = TextClassifier(vectorizer=Vectorizer(**vectorizer),
                                      model=MultiLabelNB(make(), method=method, threshold=0.0, min_labels=0))
            searched.fit(docs, [labels[i] for i in train])
            differ |= _settings(searched.model_, method) != _settings(clf.model_, method)
    assert_allclose(got, want, rtol=1e-10, atol=1e-10)
    assert differ or model != "auto"  # (so the old out-of-fold SmoothingCVs, choosing their own, scored otherwise)


#: few topic words, many of the word a document shares with one other: with min_df=2 that word is a
#: term of the model of a fold that holds one of the two documents out only when the held-out one
#: counts, and then pulls it to the other's labels
SKEWED = {"topic_words": 2, "pair": 12}


def _copy_cv_results(texts, labels, models, vectorizer, cv=3, seed=0):
    """What SmoothingCV(cv=cv) of the settings ``models`` inside the copy model of
    MultiLabelNB should score: the accuracy of each model fitted on each of its folds'
    copied documents, over the vocabulary a fresh Vectorizer(**vectorizer) gives those
    documents (each once), the folds keeping a document's copies together."""
    Y, _ = label_indicator(labels)
    rows, codes = copies(Y, np.arange(Y.shape[1]))
    docs = [texts[r] for r in rows]
    results = []
    for model in models:
        right = 0
        for train, test in stratified_kfold(codes, cv, seed, groups=rows):
            vec = Vectorizer(**vectorizer).fit([texts[d] for d in np.unique(rows[train])])
            fresh = clone(model).fit(vec.transform([docs[i] for i in train]), codes[train])
            right += int((fresh.predict(vec.transform([docs[i] for i in test])) == codes[test]).sum())
        results.append(right / len(codes))
    return results


def test_a_smoothing_cv_inside_the_copy_model_scores_each_fold_on_its_own_vocabulary():
    """``--model auto`` of a multi-label corpus (a SmoothingCV fitted on the copies of the
    documents): each of its folds is scored as a fresh fit on the fold's documents (a term
    that only held-out documents have is no term of the fold's model). Before, the folds
    were fitted on the whole training part's vocabulary: a term of a held-out document
    weighed in its held-out score (with min_df=2, a word it shares with one training
    document), and the accuracies differed."""
    texts, labels = _corpus(**SKEWED)
    alphas = [0.01, 0.1, 1.0]
    clf = TextClassifier(vectorizer=Vectorizer(min_df=2),
                         model=MultiLabelNB(SmoothingCV(MultinomialNB(), param_grid={"alpha": alphas}, cv=3)))
    clf.fit(texts, labels)
    got = [score for _, score in clf.model_.estimator_.cv_results_]
    want = _copy_cv_results(texts, labels, [MultinomialNB(alpha=a) for a in alphas], {"min_df": 2})
    assert_allclose(got, want, rtol=1e-12)


def test_train_model_auto_chooses_on_each_folds_own_vocabulary(tmp_path):
    """``textnb train --labels FILE --model auto`` (the scikit-learn-free trainer): the
    SmoothingCV of the model file scored its settings on folds of their own vocabulary,
    as the estimator does (the same file: tests/meta/test_multilabel_training.py)."""
    from conftest import cli
    from textnb import load

    texts, labels = _corpus(**SKEWED)
    lines = []
    (tmp_path / "docs").mkdir()
    for i, (t, labs) in enumerate(zip(texts, labels)):
        (tmp_path / "docs" / f"d{i:03d}.txt").write_text(t)
        lines.append(f"d{i:03d}\t{','.join(labs)}\n")
    (tmp_path / "labels.tsv").write_text("".join(lines))
    rc, out, err = cli("train", tmp_path / "docs", "--labels", tmp_path / "labels.tsv", "--model", "auto",
                       "--min-df", "2", "-o", tmp_path / "m.tnb", "--json")
    assert rc == 0, err
    smoothing = load(tmp_path / "m.tnb").steps[-1][1].estimator_
    assert isinstance(smoothing, SmoothingCV)
    models = [clone(smoothing.estimator_).set_params(**params) for params, _ in smoothing.cv_results_]
    want = _copy_cv_results(texts, labels, models, {"min_df": 2}, cv=smoothing.cv, seed=smoothing.random_state)
    assert_allclose([score for _, score in smoothing.cv_results_], want, rtol=1e-12)
    assert json.loads(out)["strategy"] == "scutfbr"


@pytest.mark.parametrize("way", ["estimators", "kernels"])
def test_evaluate_cv_gives_each_folds_model_the_vocabularies_of_its_documents(monkeypatch, way):
    """``evaluate --cv`` of a multi-label corpus (``cross_validate_multilabel``, and the
    trainer's ``cross_validate``): the model of an outer fold gets the fold counts of that
    fold's training documents for its own folds (on all of them: what a fresh Vectorizer of
    the same settings gives them). Before, it got none: its own folds were on the outer
    fold's pruned vocabulary."""
    from textnb.evaluation.evaluate import vectorize_all
    from textnb.meta import multilabel_training
    from textnb.meta.multilabel import cross_validate_multilabel

    texts, labels = _corpus()
    vec = {"min_df": 2}
    seen = []
    if way == "estimators":
        fit = MultiLabelNB.fit

        def spy(self, X, y, progress=None, fold_counts=None):
            seen.append(fold_counts)
            return fit(self, X, y, progress=progress, fold_counts=fold_counts)

        monkeypatch.setattr(MultiLabelNB, "fit", spy)
    else:
        fit = multilabel_training._fit

        def spy(*args, fold_counts=None, **kwargs):
            seen.append(fold_counts)
            return fit(*args, fold_counts=fold_counts, **kwargs)

        monkeypatch.setattr(multilabel_training, "_fit", spy)
    X, _ = vectorize_all(texts, vec)
    if way == "estimators":
        cross_validate_multilabel(X, labels, MultiLabelNB(MultinomialNB(), cv=3), cv=3, vectorizer=vec)
    else:
        multilabel_training.cross_validate(X, labels, model=("MultinomialNB", {}), cv=3, vectorizer=vec)
    splits = kfold(len(texts), 3, 0)
    assert len(seen) == len(splits)
    for (train, _), fold_counts in zip(splits, seen):
        assert fold_counts is not None
        docs = [texts[i] for i in train]
        want = Vectorizer(**vec).fit_transform(docs)
        got = fold_counts(np.arange(len(train)))
        assert got.shape == want.shape and (got != want).nnz == 0


def test_the_experiment_script_fits_as_a_text_classifier_does():
    """``scripts/experiments/multilabel.py`` fitted its MultiLabelNB on the training counts
    alone (no ``fold_counts``): its inner folds (the thresholds', a SmoothingCV's) used the
    whole training part's vocabulary. Now a cell is fitted as ``TextClassifier(vectorizer,
    MultiLabelNB(...))`` fits it (``textnb train --labels``'s model): the same choices and
    predictions, with pruning (``--min-df 2``)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "scripts" / "experiments" / "multilabel.py"
    spec = importlib.util.spec_from_file_location("multilabel_experiment", path)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    texts, labels = _corpus(**SKEWED)
    tr, ytr, te, yte = texts[:60], labels[:60], texts[60:], labels[60:]

    def model():
        return MultiLabelNB(SmoothingCV(MultinomialNB(), param_grid={"alpha": [0.01, 0.1, 1.0]}, cv=3), cv=3)

    part = script.prepare(tr, ytr, te, yte, min_df=2)
    got = script.fit_cell(model(), part)
    want = TextClassifier(vectorizer=Vectorizer(min_df=2), model=model()).fit(tr, ytr)
    assert [s for _, s in got.estimator_.cv_results_] == [s for _, s in want.model_.estimator_.cv_results_]
    assert_allclose(got.thresholds_, want.model_.thresholds_, rtol=1e-12)
    assert (got.predict(part[3]) == want.model_.predict(want.transform(te))).all()
    # (without the fold counts, as the script fitted before, the choices differ on this corpus)
    old = model().fit(part[2], part[4])
    assert [s for _, s in old.estimator_.cv_results_] != [s for _, s in got.estimator_.cv_results_]


def _fold_spy(monkeypatch, n_rows):
    """The splits every stratified fold-maker gives for ``n_rows`` rows (the copies) during the
    calls that follow: SmoothingCV's, the calibration's (``calibration_folds``), APNBC's,
    and the scikit-learn-free trainer's (which import them from ``textnb.core.folds``)."""
    import textnb.core.folds as folds
    import textnb.meta.smoothing as smoothing
    import textnb.semi_naive.apnbc_kernel as apnbc_kernel

    made = []
    real = folds.stratified_kfold

    def spy(y, *args, **kwargs):
        splits = real(y, *args, **kwargs)
        if len(y) == n_rows:
            made.append(splits)
        return splits

    for module in (folds, smoothing, apnbc_kernel):
        monkeypatch.setattr(module, "stratified_kfold", spy)
    return made


@pytest.mark.parametrize("wrapper", ["auto", "calibrated", "adjusted", "auto adjusted"])
@pytest.mark.parametrize("way", ["estimators", "kernels"])
def test_the_wrappers_folds_on_the_copies_keep_a_documents_copies_together(monkeypatch, wrapper, way):
    """The copy method fits a SmoothingCV (``--model auto``), a CalibratedNB or an APNBC
    (``--adjust-on cv``) on the documents' copies, one per label: their own stratified folds
    put a two-label document's copies on both sides, so a held-out copy was scored by a
    model that had learned the same text under the other label. Now every fold they make
    holds a document's copies out together, on both paths (the estimators, the trainer of
    ``textnb train``: the same model file, tests/meta/test_multilabel_training.py)."""
    from textnb.meta import multilabel_training
    from textnb.meta.calibration import CalibratedNB
    from textnb.semi_naive.apnbc import APNBC

    texts, labels = _corpus()
    Y, _ = label_indicator(labels)
    rows, _ = copies(Y, np.arange(Y.shape[1]))
    assert len(rows) > len(texts)  # (two-label documents)
    smoothing = {"param_grid": {"alpha": [0.01, 0.1, 1.0]}, "cv": 3}
    estimators = {"auto": lambda: SmoothingCV(MultinomialNB(), **smoothing),
                  "calibrated": lambda: CalibratedNB(MultinomialNB(), cv=3),
                  "adjusted": lambda: APNBC(MultinomialNB(), fit_on="cv", cv=3),
                  "auto adjusted": lambda: APNBC(SmoothingCV(), fit_on="cv", cv=3)}
    specs = {"auto": ("SmoothingCV", {}), "calibrated": ("CalibratedNB", {"estimator": ("MultinomialNB", {}), "cv": 3}),
             "adjusted": ("APNBC", {"estimator": ("MultinomialNB", {}), "fit_on": "cv", "cv": 3}),
             "auto adjusted": ("APNBC", {"estimator": ("SmoothingCV", {}), "fit_on": "cv", "cv": 3})}
    made = _fold_spy(monkeypatch, len(rows))
    if way == "estimators":
        TextClassifier(model=MultiLabelNB(estimators[wrapper](), cv=2)).fit(texts, labels)
    else:
        X, terms, fold_counts = multilabel_training.count(texts, folds=True)
        multilabel_training.fit(X, terms, labels, model=specs[wrapper], multilabel={"cv": None},
                                fold_counts=fold_counts)
    assert made  # (the wrapper's folds of the copies of every training document)
    for splits in made:
        for train, test in splits:
            assert not np.intersect1d(rows[train], rows[test]).size


@pytest.mark.parametrize("way", ["estimators", "kernels"])
@pytest.mark.parametrize("case", ["min_df=2", "fixed threshold"])
def test_a_discriminative_copy_models_own_calibration_folds_keep_a_documents_copies_together(monkeypatch, way,
                                                                                              case):
    """The copy model over DiscriminativeNB fitted on the copies themselves (not from one
    training's sums: a vectorizer that prunes, ``textnb train --min-df 2``, or a fixed
    threshold) calibrated its ``scale_`` on its own folds, dealt by each copy's text and label:
    a two-label document's copies fell into different folds, and a held-out copy was scored
    by a model that had learned its text under the other label. The copy model now gives it
    the document of each copy as ``groups`` (estimators and trainer alike), so every fold of
    its calibration (the final model's and each out-of-fold model's) holds a document's
    copies together."""
    from textnb.core import dfe
    from textnb.meta import multilabel_training
    from textnb.naive_bayes.discriminative import DiscriminativeNB

    if way == "kernels" and case == "fixed threshold":
        pytest.skip("the trainer thresholds on out-of-fold scores (no fixed threshold)")
    texts, labels = _corpus(n=120)
    calls = []
    real = dfe.leave_out_scores

    def spy(family, fc, cc, T, y_index, contribution, fold, **kw):
        rows = [T.indices[a:b].tobytes() + T.data[a:b].tobytes() for a, b in zip(T.indptr[:-1], T.indptr[1:])]
        calls.append((rows, np.array(fold)))
        return real(family, fc, cc, T, y_index, contribution, fold, **kw)

    monkeypatch.setattr(dfe, "leave_out_scores", spy)
    vectorizer = {"min_df": 2} if case == "min_df=2" else {}
    if way == "estimators":
        threshold = 0.5 if case == "fixed threshold" else "scutfbr"
        TextClassifier(vectorizer=Vectorizer(**vectorizer),
                       model=MultiLabelNB(DiscriminativeNB(), threshold=threshold)).fit(texts, labels)
    else:
        X, terms, fold_counts = multilabel_training.count(texts, vectorizer, folds=True)
        multilabel_training.fit(X, terms, labels, vectorizer=vectorizer, fold_counts=fold_counts)
    assert len(calls) == (1 if case == "fixed threshold" else 1 + 5)  # the final model (and 5 out-of-fold ones)
    for contents, fold in calls:
        folds = {}
        for c, f in zip(contents, fold):
            folds.setdefault(c, set()).add(int(f))
        assert sum(len(f) > 1 for f in folds.values()) == 0  # no document's copies in two folds


def _contents(T):
    """A key per row of a CSR matrix: rows of the same content have the same key."""
    return [T.indices[a:b].tobytes() + np.asarray(T.data[a:b], dtype=np.float64).tobytes()
            for a, b in zip(T.indptr[:-1], T.indptr[1:])]


@pytest.mark.parametrize("way", ["estimators", "kernels"])
@pytest.mark.parametrize("step", ["weighting", "select"])
def test_a_discriminative_copy_model_behind_pipeline_steps_keeps_a_documents_copies_together(monkeypatch, way,
                                                                                           step):
    """The copy model over ``Pipeline([..., ("model", DiscriminativeNB())])`` (``textnb train
    --labels --weighting`` / ``--select``) got no ``groups``: a Pipeline's ``fit`` takes no
    parameter of that name, and the trainer dropped them with steps. Its event-model race and
    its calibration then dealt a two-label document's copies into different folds (a held-out
    copy judged by a model that learned its text under the other label). The groups now reach
    the model behind the steps (``model__groups``, :func:`textnb.core.wrapping.groups_kwargs`)
    on both paths: every fold of the race and of the calibration, of the final model and of
    each out-of-fold model, holds a document's copies together."""
    from sklearn.pipeline import Pipeline

    from textnb import SelectTerms, TermWeighting
    from textnb.core import dfe
    from textnb.meta import multilabel_training
    from textnb.naive_bayes.discriminative import DiscriminativeNB

    texts, labels = _corpus(n=120, own=6)
    calibrations, races = [], []
    leave_out_scores, choose_family, class_sums = dfe.leave_out_scores, dfe.choose_family, dfe.class_sums
    racing = []

    def calibration(family, fc, cc, T, y_index, contribution, fold, **kw):
        calibrations.append((_contents(T), np.array(fold)))
        return leave_out_scores(family, fc, cc, T, y_index, contribution, fold, **kw)

    def race(X, *args, **kw):
        racing.append([])
        try:
            return choose_family(X, *args, **kw)
        finally:
            contents = [c for family in dfe.FAMILIES for c in _contents(dfe.features(family, dfe.canonical(X)))]
            races.append((contents, racing.pop()))

    def sums(T, y_index, n_classes, weights=None):
        if racing:  # a fold of the race: the counts of its training rows
            racing[-1].append(_contents(T))
        return class_sums(T, y_index, n_classes, weights)

    monkeypatch.setattr(dfe, "leave_out_scores", calibration)
    monkeypatch.setattr(dfe, "choose_family", race)
    monkeypatch.setattr(dfe, "class_sums", sums)
    if way == "estimators":
        front = ("weighting", TermWeighting()) if step == "weighting" else ("select", SelectTerms(criterion="chi2",
                                                                                                   k=150))
        TextClassifier(model=MultiLabelNB(Pipeline([front, ("model", DiscriminativeNB())]))).fit(texts, labels)
    else:
        steps = [("weighting", ("TermWeighting", {}))] if step == "weighting" else \
            [("select", ("SelectTerms", {"criterion": "chi2", "k": 150}))]
        X, terms = multilabel_training.count(texts, {})
        multilabel_training.fit(X, terms, labels, steps=steps)
    assert len(calibrations) == 1 + 5  # the final model and 5 out-of-fold ones
    assert len(races) == 1  # (the out-of-fold models keep the final model's event model)
    for contents, fold in calibrations:
        folds = {}
        for c, f in zip(contents, fold):
            folds.setdefault(c, set()).add(int(f))
        assert sum(len(f) > 1 for f in folds.values()) == 0  # no document's copies in two folds
    for contents, trained in races:
        every = {}
        for c in contents:  # (the race's rows, as each event model's features)
            every[c] = every.get(c, 0) + 1
        assert len(trained) >= 2
        for part in trained:  # each fold's training part: every copy of a document or none
            for c in set(part):
                assert part.count(c) == every[c]


@pytest.mark.parametrize("way", ["estimators", "trainer"])
def test_evaluate_cv_of_a_fold_without_a_labels_documents_is_the_folds_own_model(monkeypatch, way):
    """Found by a hunt (session 52): an outer fold whose training part has no document of
    some label fitted its model beside that label's empty column, and the thresholds'
    search (one fbr over every label's column) chose other cut-offs than the model of the
    fold's documents, what ``train`` + ``predict`` of the fold give: with ``--method ovr``
    100 of a fold's 267 GoEmotions documents got other labels. The fold's model is fitted on
    the labels its documents have (every column of its indicator has a document), and the
    pooled figures are those of the folds' own models."""
    from textnb.core.stats import seen_columns
    from textnb.evaluation.evaluate import vectorize_all
    from textnb.meta import multilabel_training
    from textnb.meta.labelsets import multilabel_report
    from textnb.meta.multilabel import cross_validate_multilabel

    texts, labels = _corpus(n=60)
    splits = kfold(len(texts), 3, 0)
    held = splits[0][1][:2]  # a label only two documents of the first fold's held-out part have
    labels = [tuple(sorted(set(lab) | {"rare"})) if i in held else lab for i, lab in enumerate(labels)]
    X, _ = vectorize_all(texts, {})
    model = MultiLabelNB(MultinomialNB(), method="ovr")
    columns = []
    if way == "estimators":
        fit = MultiLabelNB.fit

        def spy(self, X, y, progress=None, fold_counts=None):
            columns.append(np.asarray(y).sum(axis=0))
            return fit(self, X, y, progress=progress, fold_counts=fold_counts)

        monkeypatch.setattr(MultiLabelNB, "fit", spy)
        report = cross_validate_multilabel(X, labels, model, cv=3)
    else:
        fit = multilabel_training._fit

        def spy(X, Y, classes, *args, **kwargs):
            columns.append(np.asarray(Y).sum(axis=0))
            assert len(classes) == np.asarray(Y).shape[1]
            return fit(X, Y, classes, *args, **kwargs)

        monkeypatch.setattr(multilabel_training, "_fit", spy)
        report = multilabel_training.cross_validate(X, labels, model=("MultinomialNB", {}), cv=3,
                                                    multilabel={"method": "ovr"})
    monkeypatch.undo()
    assert len(columns) == 3 and all((c > 0).all() for c in columns)
    assert [len(c) for c in columns] == [3, 4, 4]  # (the first fold's documents have no "rare")
    classes = sorted({lab for labs in labels for lab in labs})
    truth = np.zeros((len(texts), len(classes)), dtype=int)
    pred = np.zeros_like(truth)
    for train, test in splits:
        cols = seen_columns(X[train])
        fitted = clone(model).fit(X[train][:, cols], [labels[i] for i in train])
        for i, row in zip(test, np.asarray(fitted.predict(X[test][:, cols]))):
            got = {c for c, v in zip(fitted.classes_, row) if v}
            truth[i] = [lab in labels[i] for lab in classes]
            pred[i] = [lab in got for lab in classes]
    want = multilabel_report(truth, pred, classes)
    assert report["micro_f1"] == pytest.approx(want["micro_f1"], abs=1e-12)
    assert report["macro_f1"] == pytest.approx(want["macro_f1"], abs=1e-12)
