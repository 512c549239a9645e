"""The default text model's probabilities are calibrated (issue 28): DiscriminativeNB fits one
temperature (``scale_``) on held-out folds of its own training documents, so a threshold
on its probabilities means what it says; ``evaluate`` reports the expected calibration
error beside the log-loss."""

import io
import os
import shutil

import numpy as np
import pytest
from sklearn.metrics import log_loss
from sklearn.model_selection import StratifiedKFold

import textnb
from textnb import TextClassifier, load
from textnb.core import dfe
from textnb.core.model_io import read_nodes
from textnb.evaluation import expected_calibration_error
from textnb.naive_bayes.discriminative import DiscriminativeNB
from textnb.text.scorer import scorer_from_file

from conftest import SMS_TSV



def test_fit_scale_recovers_a_known_temperature():
    rng = np.random.default_rng(0)
    S = rng.normal(size=(20000, 4))
    for true_scale in (0.5, 2.0):
        P = np.exp(true_scale * S)
        P /= P.sum(axis=1, keepdims=True)
        y = (P.cumsum(axis=1) < rng.random((len(S), 1))).sum(axis=1)  # y ~ softmax(true_scale * S)
        assert abs(dfe.fit_scale(S, y) - true_scale) < 0.05 * true_scale
        # weights count like repeated documents
        w = rng.integers(1, 3, len(S)).astype(float)
        rep = np.repeat(np.arange(len(S)), w.astype(int))
        assert np.isclose(dfe.fit_scale(S, y, w), dfe.fit_scale(S[rep], y[rep]), rtol=1e-6)


def test_fit_scale_stays_in_its_range():
    rng = np.random.default_rng(1)
    S = rng.normal(size=(300, 3))
    lo, hi = dfe.SCALE_RANGE
    assert dfe.fit_scale(S, S.argmax(axis=1)) > 100  # separable: as sharp as allowed (nearly)
    assert dfe.fit_scale(S, S.argmax(axis=1)) <= hi
    assert lo <= dfe.fit_scale(S, S.argmin(axis=1)) < 0.01  # anti-correlated: as flat as allowed
    assert dfe.fit_scale(S, rng.integers(0, 3, 300)) < 0.3  # unrelated labels: nearly uniform


def test_expected_calibration_error_by_hand():
    classes = np.array(["a", "b"])
    proba = np.array([[0.9, 0.1], [0.9, 0.1], [0.2, 0.8], [0.4, 0.6]])
    y = np.array(["a", "b", "b", "b"])
    # bins (15 of 1/15): 0.9 -> {right, wrong}: |0.5 - 0.9| * 2; 0.8 -> right: 0.2; 0.6 -> right: 0.4
    assert np.isclose(expected_calibration_error(y, proba, classes), (0.8 + 0.2 + 0.4) / 4)
    assert expected_calibration_error(y[:0], proba[:0], classes) == 0.0


def test_leave_out_scale_is_close_to_cross_validation(sms_counts):
    """The scale fitted on folds taken out of the trained model is the one honest 5-fold
    cross-validation (five retrained models) gives, within a few per cent."""
    Xtr, ytr, _, _ = sms_counts
    model = DiscriminativeNB().fit(Xtr, ytr)
    classes = model.classes_
    S = np.zeros((Xtr.shape[0], len(classes)))
    for a, b in StratifiedKFold(5, shuffle=True, random_state=0).split(Xtr, ytr):
        fold = DiscriminativeNB(event_model=model.event_model_, calibration=None).fit(Xtr[a], ytr[a])
        S[b] = fold.predict_joint_log_proba(Xtr[b])
    honest = dfe.fit_scale(S, np.searchsorted(classes, ytr))
    assert abs(model.scale_ - honest) < 0.1 * honest
    assert model.scale_ < 0.8  # the raw Bernoulli scores of SMS are overconfident


def test_a_scale_alone_is_fitted_on_the_first_three_folds(sms_counts, monkeypatch):
    """Without a residual layer the scale is fitted on the documents of the first
    :data:`dfe.SCALE_FOLDS` of the five held-out folds (the others are not held out: two
    fewer models over the whole vocabulary) when they hold :data:`dfe.SCALE_DOCUMENTS`; with
    a layer, which is fitted on the same scores, on all five; on fewer documents, all five."""
    Xtr, ytr, _, _ = sms_counts
    seen = []
    real = dfe.leave_out_scores

    def spy(family, fc, cc, T, y_index, contribution, fold, **kw):
        seen.append(sorted(set(np.asarray(fold).tolist())))
        return real(family, fc, cc, T, y_index, contribution, fold, **kw)

    monkeypatch.setattr(dfe, "leave_out_scores", spy)
    alone = DiscriminativeNB(residual=False).fit(Xtr, ytr)
    layered = DiscriminativeNB().fit(Xtr, ytr)
    few = DiscriminativeNB(residual=False).fit(Xtr[:3000], ytr[:3000])  # three folds: 1,800 documents
    assert seen == [[-1, 0, 1, 2], [0, 1, 2, 3, 4], [0, 1, 2, 3, 4]]
    assert hasattr(layered, "residual_") and alone.scale_ is not None and few.scale_ is not None
    # the three folds' scale is the five folds' within a few per cent
    monkeypatch.setattr(dfe, "SCALE_FOLDS", dfe.DEFAULT_FOLDS)
    five = DiscriminativeNB(residual=False).fit(Xtr, ytr)
    assert seen[-1] == [0, 1, 2, 3, 4] and abs(alone.scale_ - five.scale_) < 0.05 * five.scale_


@pytest.mark.parametrize("scored_all", [True, False])
@pytest.mark.parametrize("emptied", [False, True])
def test_complement_leave_out_scores_equal_the_whole_vocabulary_weights(sms_counts, scored_all, emptied):
    """The complement model's held-out scores, computed on each fold's own columns with its
    classes' normalisations updated (dfe._ComplementColumns), are the scores of the weights
    :func:`linear_weights` gives the model with the fold taken out, over the whole
    vocabulary, to single-precision rounding."""
    Xtr, ytr, _, _ = sms_counts
    y = np.searchsorted(np.unique(ytr), ytr)
    T = dfe.features("complement", Xtr.astype(np.float64)).astype(np.float32)
    fc, cc = dfe.class_sums(T, y, 2)
    fc, cc = dfe.passes("complement", fc, cc, T, y, alpha=0.3, n_passes=2, step=4.5)
    contribution = np.random.default_rng(0).uniform(1.0, 3.0, T.shape[0])
    fold = np.arange(T.shape[0]) % 4 - 1  # fold -1: taken out nowhere, scored nowhere
    if emptied:  # a class whose every document is in fold 0: the model without it has none (bias -inf)
        y = np.where(np.arange(T.shape[0]) % 40 == 1, 2, y)
        fc, cc = np.vstack([fc, np.zeros(fc.shape[1])]), np.append(cc, 0.0)
        fc[2], cc[2] = dfe.class_sums(T[y == 2], np.zeros((y == 2).sum(), dtype=int), 1)[0][0], (y == 2).sum()
        contribution[y == 2] = 1.0
    scored = np.ones(T.shape[0], dtype=bool) if scored_all else np.arange(T.shape[0]) % 3 > 0
    S = dfe.leave_out_scores("complement", fc, cc, T, y, contribution, fold, alpha=0.3, scored=scored)
    fc32 = np.array(fc, dtype=np.float32)
    assert not emptied or np.isneginf(S[fold[scored & (fold >= 0)] == 0][:, 2]).all()
    expected = []
    for f in range(3):
        rows = np.flatnonzero(fold == f)
        rest, cc_f, restore = dfe._take_out(fc32, cc, T[rows], y[rows], contribution[rows])
        W, b = dfe.linear_weights("complement", rest, cc_f, 0.3, dtype=np.float32)
        restore()
        expected.append(dfe.scores(T[rows[scored[rows]]], W, b))
    expected = np.vstack(expected)
    order = np.argsort(np.concatenate([np.flatnonzero((fold == f) & scored) for f in range(3)]), kind="stable")
    assert S.shape == expected.shape
    assert np.allclose(S, expected[order], rtol=1e-5, atol=1e-4)  # (-inf where -inf)


def test_with_ratios_each_held_out_model_takes_its_own_sums_ratios(sms_counts):
    """With ``ratios`` the held-out scores are those of the model with the fold taken out
    and the log-count ratios of what is left (recomputed by hand here: the two logarithms of
    NBSVM's formula, in double precision), not the trained model's ratios."""
    Xtr, ytr, _, _ = sms_counts
    y = np.searchsorted(np.unique(ytr), ytr)
    T = dfe.features("complement", Xtr.astype(np.float64)).astype(np.float32)
    fc, cc = dfe.class_sums(T, y, 2)
    fc, cc = dfe.passes("complement", fc, cc, T, y, alpha=1.0, n_passes=2, step=4.5, ratios=True)
    contribution = np.ones(T.shape[0])
    fold = np.arange(T.shape[0]) % 3
    S = dfe.leave_out_scores("complement", fc, cc, T, y, contribution, fold, alpha=1.0, ratios=True)

    def ratios(rest):
        own, other = rest + 1.0, rest.sum(axis=0) - rest + 1.0
        R = np.abs(np.log(own / own.sum(axis=1, keepdims=True)) - np.log(other / other.sum(axis=1, keepdims=True)))
        return R.max(axis=0) / R.max(axis=0).mean()

    expected, kept = [], []
    trained = ratios(fc)
    for f in range(3):
        rows = np.flatnonzero(fold == f)
        rest = fc - (dfe._indicator(y[rows], contribution[rows], 2) @ T[rows]).toarray()
        cc_f = cc - np.bincount(y[rows], minlength=2)
        for r, out in ((ratios(rest), expected), (trained, kept)):  # (its own ratios; the trained model's)
            W, b = dfe.linear_weights("complement", rest * r, cc_f, 1.0)
            out.append(np.asarray(T[rows] @ (W * r).T) + b)
    order = np.argsort(np.concatenate([np.flatnonzero(fold == f) for f in range(3)]), kind="stable")
    expected, kept = np.vstack(expected)[order], np.vstack(kept)[order]
    assert np.allclose(S, expected, rtol=1e-4, atol=1e-4)
    assert not np.allclose(S, kept, rtol=1e-3, atol=1e-3)  # (the trained model's ratios give other scores)


def test_calibration_keeps_the_decisions_and_lowers_the_log_loss(sms_counts):
    Xtr, ytr, Xte, yte = sms_counts
    cal = DiscriminativeNB(residual=False).fit(Xtr, ytr)  # (a residual layer moves decisions: tested apart)
    raw = DiscriminativeNB(calibration=None).fit(Xtr, ytr)
    assert not hasattr(raw, "scale_") and cal.scale_ != 1.0
    assert np.array_equal(cal.feature_count_, raw.feature_count_)
    assert np.array_equal(cal.predict(Xte), raw.predict(Xte))
    assert np.allclose(cal.coef_, cal.scale_ * raw.coef_) and np.allclose(cal.intercept_, cal.scale_ * raw.intercept_)
    pc, pr = cal.predict_proba(Xte), raw.predict_proba(Xte)
    assert log_loss(yte, pc, labels=cal.classes_) < 0.7 * log_loss(yte, pr, labels=cal.classes_)
    assert expected_calibration_error(yte, pc, cal.classes_) < expected_calibration_error(yte, pr, cal.classes_)


def test_too_few_documents_leave_the_model_uncalibrated_and_partial_fit_keeps_the_scale(sms_counts):
    Xtr, ytr, _, _ = sms_counts
    assert not hasattr(DiscriminativeNB().fit(Xtr[:40], ytr[:40]), "scale_")
    m = DiscriminativeNB().partial_fit(Xtr[:2000], ytr[:2000], classes=np.unique(ytr))
    first = m.scale_
    m.partial_fit(Xtr[2000:2020], ytr[2000:2020])  # too small to refit it on
    assert m.scale_ == first
    m.partial_fit(Xtr[2000:], ytr[2000:])
    assert m.scale_ != first
    # merge: the scales averaged by documents
    a = DiscriminativeNB(event_model="bernoulli").fit(Xtr[:1000], ytr[:1000])
    b = DiscriminativeNB(event_model="bernoulli").fit(Xtr[1000:4000], ytr[1000:4000])
    want = (1000 * a.scale_ + 3000 * b.scale_) / 4000
    assert np.isclose(a.merge(b).scale_, want)


def test_a_model_learned_only_in_small_batches_has_no_scale_and_partial_fit_says_so(sms, sms_counts):
    """Found by a library hunt: TextClassifier.partial_fit of 3,000 SMS messages in batches of
    10 was never calibrated (no ``scale_``; held-out log-loss 0.120 against fit's 0.068),
    without a word, while the docs said the scale is absent "when fewer than 50 documents
    were learned". The docs now say a batch of fewer than 50 fits no scale, and
    ``partial_fit`` warns (a DataWarning), once for the model, when a batch is too small and the
    model has no scale; a batch of 50 or more calibrates it; a calibrated model or
    ``calibration=None`` never warns."""
    import warnings

    from textnb.core.errors import DataWarning
    from textnb.naive_bayes.discriminative import UNCALIBRATED_BATCH

    docs, y = sms
    Xtr, ytr, _, _ = sms_counts
    assert "fewer than 50 documents" in UNCALIBRATED_BATCH and "batches of 50 documents or more" in UNCALIBRATED_BATCH
    for make, data, labels in ((TextClassifier, docs, y), (DiscriminativeNB, Xtr, ytr)):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")  # (once for the model, whatever the filters)
            model = make()
            for i in range(0, 300, 10):
                model.partial_fit(data[i:i + 10], labels[i:i + 10], classes=["ham", "spam"])
        inner = model.model_ if make is TextClassifier else model
        assert inner.class_documents_.sum() == 300 and not hasattr(inner, "scale_")
        assert [(w.category, str(w.message), w.filename) for w in seen] == [(DataWarning, UNCALIBRATED_BATCH,
                                                                             __file__)]
        with warnings.catch_warnings():
            warnings.simplefilter("error", DataWarning)
            model.partial_fit(data[300:400], labels[300:400])  # 100 documents: calibrated
            assert hasattr(inner, "scale_")
            model.partial_fit(data[400:410], labels[400:410])  # a small batch keeps the scale: no warning
            make().fit(data[:100], labels[:100]).partial_fit(data[100:110], labels[100:110])
            raw = make(model=DiscriminativeNB(calibration=None)) if make is TextClassifier else make(calibration=None)
            raw.partial_fit(data[:10], labels[:10], classes=["ham", "spam"])


def test_the_model_file_and_the_scorer_carry_the_scale(sms, tmp_path):
    docs, y = sms
    clf = TextClassifier(model=DiscriminativeNB(residual=False)).fit(docs[:3000], y[:3000])
    clf.save(tmp_path / "m.tnb")
    assert read_nodes(tmp_path / "m.tnb").state["model_"].state["scale_"] == clf.model_.scale_
    scorer = scorer_from_file(tmp_path / "m.tnb")
    loaded = load(tmp_path / "m.tnb")
    assert loaded.model_.scale_ == clf.model_.scale_
    for part in (docs[3000:3010], docs[3000:]):
        assert np.array_equal(scorer.predict_proba(part), loaded.predict_proba(part))
    # an uncalibrated model's file has no scale and scores the raw sums
    raw = TextClassifier(model=DiscriminativeNB(calibration=None)).fit(docs[:3000], y[:3000])  # (no residual either)
    raw.save(tmp_path / "r.tnb")
    assert "scale_" not in read_nodes(tmp_path / "r.tnb").state["model_"].state
    assert np.allclose(scorer_from_file(tmp_path / "r.tnb").predict_joint_log_proba(docs[3000:3010]) * clf.model_.scale_,
                       scorer.predict_joint_log_proba(docs[3000:3010]))


def _routed(labels, truth):
    """(share of documents given a label, share of those that are right)."""
    labels, truth = np.asarray(labels, dtype=object), np.asarray(truth, dtype=object)
    given = labels != None  # noqa: E711 (an object array)
    return given.mean(), (labels[given] == truth[given]).mean() if given.any() else 1.0


def test_threshold_08_routes_sms_correctly(tmp_path):
    """``textnb train`` (default model) then ``predict --lines --threshold 0.8`` on the
    held-out messages of the bundled SMS corpus: at least 80 % of the labelled lines right."""
    from textnb.cli import main

    lines = SMS_TSV.read_text(encoding="utf-8").splitlines()
    (tmp_path / "train.tsv").write_text("\n".join(lines[:4000]) + "\n", encoding="utf-8")
    test = [line.split("\t", 1) for line in lines[4000:]]
    (tmp_path / "test.txt").write_text("\n".join(t for _, t in test) + "\n", encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    assert main(["train", str(tmp_path / "train.tsv"), "-o", str(tmp_path / "m.tnb")], stdout=out, stderr=err) == 0
    out = io.StringIO()
    assert main(["predict", str(tmp_path / "m.tnb"), "--lines", str(tmp_path / "test.txt"), "--threshold", "0.8"],
                stdout=out, stderr=err) == 0, err.getvalue()
    rows = out.getvalue().splitlines()
    assert len(rows) == len(test)
    labels = [r.split("\t")[1].split(" ")[0] if "\t" in r and r.split("\t")[1] else None for r in rows]
    routed, right = _routed(labels, [label for label, _ in test])
    assert routed > 0.9 and right >= 0.8


@pytest.mark.slow
def test_threshold_08_routes_20newsgroups_correctly(shared_corpora, tmp_path):
    """``topicfilter -t 0.8`` with ``textnb train``'s default model (no --calibrate, no
    --uncalibrated) on 20 Newsgroups: of what it routes at least 80 % right, and most
    documents routed (the raw model sent 199 of 200 to unsorted)."""
    from textnb.cli import main
    from textnb.cli.topicfilter import topic_main

    root = shared_corpora("20news-bydate")
    test = tmp_path / "test"
    test.mkdir()
    truth = {}
    for g in sorted(os.listdir(root / "test")):
        for f in sorted(os.listdir(root / "test" / g))[::5]:
            shutil.copy(root / "test" / g / f, test / f"{g}-{f}")
            truth[f"{g}-{f}"] = g
    err = io.StringIO()
    assert main(["train", str(root / "train"), "-o", str(tmp_path / "m.tnb")], stdout=io.StringIO(), stderr=err) == 0
    out = io.StringIO()
    code = topic_main(["-m", str(tmp_path / "m.tnb"), "-o", str(tmp_path / "out"), "-t", "0.8", "-n", str(test)],
                      stdout=out, stderr=err)
    assert code == 0, err.getvalue()
    rows = [line.split("\t") for line in out.getvalue().splitlines()]
    assert len(rows) == len(truth)
    labels = [None if os.path.basename(os.path.dirname(r[3])) == "unsorted" else r[1] for r in rows]
    routed, right = _routed(labels, [truth[os.path.basename(r[0])] for r in rows])
    assert routed > 0.6 and right >= 0.8


@pytest.mark.slow
def test_threshold_08_routes_trec_questions_correctly(shared_corpora):
    """Short texts, six classes (TREC question classification, official split): the
    default model's probabilities at 0.8 and above are right at least 80 % of the time,
    and its log-loss is far below the raw model's."""
    root = shared_corpora("trec_qc")
    corpus = textnb.open_corpus(root)
    docs, y = list(corpus.documents), np.asarray(corpus.labels)
    tdocs, ty = list(corpus.test.documents), np.asarray(corpus.test.labels)
    cal = TextClassifier().fit(docs, y)
    raw = TextClassifier(model=DiscriminativeNB(calibration=None)).fit(docs, y)
    P = cal.predict_proba(tdocs)
    labels = [c if p >= 0.8 else None for c, p in zip(cal.classes_[P.argmax(axis=1)], P.max(axis=1))]
    routed, right = _routed(labels, ty)
    assert routed > 0.3 and right >= 0.8
    assert log_loss(ty, P, labels=cal.classes_) < 0.7 * log_loss(ty, raw.predict_proba(tdocs), labels=cal.classes_)


def test_fit_scale_leaves_out_a_class_the_scoring_model_did_not_know():
    """Held-out scores of ``-inf`` (a class none of whose documents was outside the fold)
    neither poison the temperature (0 * inf in its slope) nor count: the scale is that of
    the other documents with that class at probability 0."""
    rng = np.random.default_rng(0)
    S = rng.normal(size=(300, 3)) * 2
    y = rng.integers(0, 2, size=300)
    S[np.arange(300), y] += 1.5
    S[:, 2] = -np.inf  # a class no scoring model knew
    y[0] = 2  # ... and its one document
    expected = dfe.fit_scale(np.where(np.isfinite(S[1:]), S[1:], S[1:, :2].max(axis=1, keepdims=True) - 1e6), y[1:])
    with np.errstate(all="raise"):
        assert dfe.fit_scale(S, y) == expected
    assert dfe.SCALE_RANGE[0] < expected < dfe.SCALE_RANGE[1]


@pytest.mark.parametrize("weighted", [False, True])
def test_a_class_of_one_document_leaves_the_default_calibrated(sms_counts, weighted):
    """The default model with a class of one SMS (or that class weighted 0), which every
    held-out fold of the calibration either holds or lacks: the scale is that of the two
    big classes' (it ran to its bound of 1000 and the log-loss rose eight-fold), with no
    warning (the trial of 2026-12-04)."""
    import warnings

    X, y, Xt, yt = sms_counts
    X, y = X[:2000], y[:2000]
    base = DiscriminativeNB().fit(X, y)
    rare = y.astype(object).copy()
    rare[0] = "other"
    w = np.ones(len(y))
    if weighted:
        w[0] = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = DiscriminativeNB().fit(X, rare, sample_weight=w if weighted else None)
    assert model.scale_ < 2 * base.scale_ and model.scale_ > base.scale_ / 2
    assert log_loss(yt, model.predict_proba(Xt), labels=model.classes_) < 1.2 * log_loss(yt, base.predict_proba(Xt))


def test_a_small_partial_fit_batch_moves_the_scale_by_its_evidence_only(sms):
    """Found by a user trial: after ``partial_fit`` of 3,000 SMS messages, one more batch of 50
    (that the model classifies without an error) set the scale from those 50 alone: 0.36 ->
    5.1, every test message at p >= 0.999 and 19 of those wrong, the log-loss 0.06 -> 0.33.
    The batch's scale is now fitted with the one before, weighed by its evidence
    (``scale_weight_``: the held-out log-loss's curvature, a Laplace approximation)."""
    docs, y = sms
    order = np.random.default_rng(0).permutation(len(docs))
    docs, y = [docs[i] for i in order], y[order]
    test, truth = docs[4000:], y[4000:]
    before = TextClassifier().partial_fit(docs[:3000], y[:3000], classes=["ham", "spam"])
    assert before.model_.scale_weight_ > 0
    loss = log_loss(truth, before.predict_proba(test), labels=before.classes_)
    for start in (3000, 3050, 3100):
        after = TextClassifier().partial_fit(docs[:3000], y[:3000], classes=["ham", "spam"])
        after.partial_fit(docs[start:start + 50], y[start:start + 50])
        assert 0.67 < after.model_.scale_ / before.model_.scale_ < 1.5
        assert log_loss(truth, after.predict_proba(test), labels=after.classes_) < 1.25 * loss
        assert after.model_.scale_weight_ > before.model_.scale_weight_ * 0.9


def test_fit_scale_with_a_prior_weighs_the_earlier_scale_by_its_evidence():
    rng = np.random.default_rng(1)
    S = rng.normal(size=(60, 3)) * 4
    y = S.argmax(axis=1)  # separable: alone, the scale runs to its bound
    assert dfe.fit_scale(S, y) > 100
    held = dfe.fit_scale(S, y, prior=(0.5, 1000.0))
    assert 0.5 < held < 0.6 and held.weight > 1000.0
    assert dfe.fit_scale(S, y, prior=(0.5, 0.0)) == dfe.fit_scale(S, y)  # no evidence: the batch alone
    # a batch of much more evidence than the prior's: near its own scale
    S2 = rng.normal(size=(3000, 3)) * 2
    y2 = np.array([rng.choice(3, p=np.exp(2 * r) / np.exp(2 * r).sum()) for r in S2])
    alone = dfe.fit_scale(S2, y2)
    assert abs(dfe.fit_scale(S2, y2, prior=(alone * 3, 5.0)) / alone - 1) < 0.02
    assert abs(alone - 2) < 0.3 and alone.weight > 100


def test_the_scale_weight_is_kept_in_the_model_file_and_summed_by_merge(sms, sms_counts, tmp_path):
    docs, y = sms
    clf = TextClassifier().fit(docs[:3000], y[:3000])
    clf.save(tmp_path / "m.tnb")
    assert load(tmp_path / "m.tnb").model_.scale_weight_ == clf.model_.scale_weight_ > 0
    # a weight is a sum over weighted documents: as large as their weights make it (3e12 each here:
    # about 1e15, over the first bound the model file gave it, which refused to save it)
    heavy = TextClassifier().fit(docs[:3000], y[:3000], sample_weight=np.full(3000, 3e12))
    heavy.save(tmp_path / "h.tnb")
    assert load(tmp_path / "h.tnb").model_.scale_weight_ == heavy.model_.scale_weight_ > 1e15
    Xtr, ytr, _, _ = sms_counts
    a = DiscriminativeNB(event_model="bernoulli").fit(Xtr[:1000], ytr[:1000])
    b = DiscriminativeNB(event_model="bernoulli").fit(Xtr[1000:4000], ytr[1000:4000])
    want = a.scale_weight_ + b.scale_weight_
    assert np.isclose(a.merge(b).scale_weight_, want)
