"""DiscriminativeNB (the default text model): frequency estimates, the event-model choice,
and the same model through every training path (estimator, TextClassifier, textnb train,
the scikit-learn-free scorer)."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import logsumexp
from sklearn.base import clone

from textnb import BernoulliNB, MultinomialNB, TextClassifier, Vectorizer, load
from textnb.core import dfe
from textnb.core.model_io import save
from textnb.naive_bayes.discriminative import DiscriminativeNB
from textnb.text.scorer import scorer_from_file
from textnb.text.training import default_vectorizer, train_text_model

REPO = Path(__file__).resolve().parents[2]
SMS = REPO / "corpora" / "sms_spam" / "SMSSpamCollection.tsv"



def test_estimator_contract():
    est = DiscriminativeNB(passes=2)
    assert est.get_params()["passes"] == 2 and clone(est).get_params() == est.get_params()
    X = sp.csr_matrix([[3, 0, 1], [2, 0, 0], [0, 4, 1], [0, 3, 0]] * 5, dtype=float)
    y = ["ham", "ham", "spam", "spam"] * 5
    assert est.fit(X, y) is est
    assert est.event_model_ in dfe.FAMILIES and est.coef_.shape == (2, 3)
    assert est.predict([[1, 0, 0], [0, 1, 1]]).tolist() == ["ham", "spam"]
    P = est.predict_proba(X)
    assert np.allclose(P.sum(axis=1), 1.0)
    with pytest.raises(ValueError, match="passes"):
        DiscriminativeNB(passes=-1).fit(X, y)
    with pytest.raises(ValueError, match="event_model"):
        DiscriminativeNB(event_model="gaussian").fit(X, y)
    with pytest.raises(ValueError):
        DiscriminativeNB().fit(-X, y)


def test_no_passes_is_the_naive_bayes_it_starts_from(sms_counts):
    Xtr, ytr, Xte, _ = sms_counts
    # Bernoulli: BernoulliNB on presence, same smoothing (uncalibrated: the raw scores)
    ours = DiscriminativeNB(event_model="bernoulli", passes=0, calibration=None).fit(Xtr, ytr)
    ref = BernoulliNB(alpha=0.1).fit(Xtr, ytr)
    assert np.allclose(ours.predict_joint_log_proba(Xte), ref.predict_joint_log_proba(Xte))
    # complement: ComplementNB on log(1 + tf), L2-normalised rows (Rennie et al. 2003, TWCNB without idf)
    from textnb.naive_bayes.complement import ComplementNB

    def tw(X):
        T = X.copy().astype(float)
        T.data = np.log1p(T.data)
        norms = np.sqrt(np.asarray(T.multiply(T).sum(axis=1)).ravel())
        norms[norms == 0] = 1
        return sp.diags(1 / norms) @ T

    ours = DiscriminativeNB(event_model="complement", passes=0, calibration=None).fit(Xtr, ytr)
    ref = ComplementNB(alpha=1.0).fit(tw(Xtr), ytr)
    assert np.allclose(ours.predict_joint_log_proba(Xte), ref.predict_joint_log_proba(tw(Xte)))


def test_one_pass_is_the_frequency_estimate(sms_counts):
    """A pass adds every document to its class weighted by step * (1 - P(class | d)) under
    the model before the pass (Su et al. 2008), computed here from scratch (in double
    precision: the passes score in single precision, so the added weights agree to about
    1e-4 of their total)."""
    Xtr, ytr, _, _ = sms_counts
    classes, yi = np.unique(ytr, return_inverse=True)
    for family, alpha in dfe.DEFAULT_ALPHA.items():
        T = dfe.features(family, Xtr)
        Y = np.eye(len(classes))[yi]
        fc, cc = Y.T @ T.toarray(), Y.sum(axis=0)
        W, b = dfe.linear_weights(family, fc, cc, alpha)
        S = T @ W.T + b
        P = np.exp(S - logsumexp(S, axis=1, keepdims=True))
        loss = 2.0 * (1 - P[np.arange(len(yi)), yi])
        want_fc, want_cc = fc + (Y * loss[:, None]).T @ T.toarray(), cc + Y.T @ loss
        model = DiscriminativeNB(event_model=family, passes=1, step=2.0).fit(Xtr, ytr)
        added, want_added = model.feature_count_ - fc, want_fc - fc
        assert np.abs(want_added).sum() > 1.0  # the pass did add something
        assert np.abs(added - want_added).sum() <= 1e-3 * np.abs(want_added).sum()
        assert np.allclose(model.class_count_, want_cc, rtol=1e-5)


def test_passes_learn_what_the_plain_model_misses(sms_counts):
    Xtr, ytr, Xte, yte = sms_counts
    for family in dfe.FAMILIES:
        plain = DiscriminativeNB(event_model=family, passes=0, residual=False).fit(Xtr, ytr)
        trained = DiscriminativeNB(event_model=family, residual=False).fit(Xtr, ytr)
        # fewer training errors after the passes, and the held-out part not worse
        assert (trained.predict(Xtr) != ytr).sum() < (plain.predict(Xtr) != ytr).sum()
        assert (trained.predict(Xte) == yte).mean() >= (plain.predict(Xte) == yte).mean() - 0.002


def test_auto_picks_the_cross_validated_event_model(sms_counts):
    Xtr, ytr, _, _ = sms_counts
    classes, yi = np.unique(ytr, return_inverse=True)
    family, correct = dfe.choose_family(Xtr, yi, 2, alphas=dfe.DEFAULT_ALPHA, n_passes=2, step=4.5)
    assert family == max(correct, key=lambda f: (correct[f], f == "complement"))
    assert DiscriminativeNB().fit(Xtr, ytr).event_model_ == family
    # short two-class messages: the Bernoulli model wins the cross-validation here
    assert family == "bernoulli"


def test_accuracy_on_sms_beats_sklearn_multinomial(sms_counts):
    from sklearn.naive_bayes import MultinomialNB as SkMNB

    Xtr, ytr, Xte, yte = sms_counts
    ours = (DiscriminativeNB().fit(Xtr, ytr).predict(Xte) == yte).mean()
    ref = (SkMNB().fit(Xtr, ytr).predict(Xte) == yte).mean()
    assert ours >= ref


def test_threads_and_sampling_are_deterministic(sms_counts):
    Xtr, ytr, _, _ = sms_counts
    a = DiscriminativeNB(n_jobs=1).fit(Xtr, ytr)
    b = DiscriminativeNB().fit(Xtr, ytr)
    assert np.array_equal(a.feature_count_, b.feature_count_) and a.event_model_ == b.event_model_
    # passes over a sample when the batch is larger than max_nnz: bounded, seeded, scaled up
    small = DiscriminativeNB(max_nnz=Xtr.nnz // 4).fit(Xtr, ytr)
    again = DiscriminativeNB(max_nnz=Xtr.nnz // 4).fit(Xtr, ytr)
    assert np.array_equal(small.feature_count_, again.feature_count_)
    rows = dfe.sample_rows(np.diff(Xtr.indptr), dfe.sample_keys(Xtr, np.unique(ytr, return_inverse=True)[1], 0), Xtr.nnz // 4)
    assert 0 < np.diff(Xtr.indptr)[rows].sum() <= Xtr.nnz // 4
    assert not np.array_equal(small.feature_count_, a.feature_count_)
    # the sampled documents stand for all: the added weight is of the same order
    added_full = a.class_count_.sum() - Xtr.shape[0]
    added_small = small.class_count_.sum() - Xtr.shape[0]
    assert 0.3 < added_small / added_full < 3


def test_one_partial_fit_batch_is_fit_and_merge_adds_sums(sms_counts):
    Xtr, ytr, Xte, _ = sms_counts
    fitted = DiscriminativeNB().fit(Xtr, ytr)
    partial = DiscriminativeNB().partial_fit(Xtr, ytr, classes=np.unique(ytr))
    assert np.array_equal(fitted.feature_count_, partial.feature_count_)
    a = DiscriminativeNB(event_model="complement").fit(Xtr[:2000], ytr[:2000])
    b = DiscriminativeNB(event_model="complement").fit(Xtr[2000:], ytr[2000:])
    fc = a.feature_count_ + b.feature_count_
    a.merge(b)
    assert np.allclose(a.feature_count_, fc)
    with pytest.raises(ValueError, match="cannot merge"):
        a.merge(DiscriminativeNB(event_model="bernoulli").fit(Xtr[:100], ytr[:100]))


def test_merge_of_parts_that_chose_other_event_models_says_what_to_do(sms_counts):
    """Parts whose event model differs were refused as 'cannot merge a bernoulli (alpha 0.1)
    model into a complement (alpha 1.0) one', saying nothing of what to do; the refusal (a
    SettingsDiffer) names the event models and the remedy: the same explicit event_model."""
    from textnb.core.errors import SettingsDiffer

    Xtr, ytr, _, _ = sms_counts
    a = DiscriminativeNB(event_model="complement").fit(Xtr[:300], ytr[:300])
    b = DiscriminativeNB(event_model="bernoulli").fit(Xtr[300:600], ytr[300:600])
    with pytest.raises(SettingsDiffer, match="chosen event models differ \\(event_model: 'complement' in this model, "
                                             "'bernoulli' in the other\\); .*the same explicit event_model") as info:
        a.merge(b)
    assert info.value.values == ("complement", "bernoulli")
    c = DiscriminativeNB(event_model="complement", alpha=0.5).fit(Xtr[300:600], ytr[300:600])
    with pytest.raises(SettingsDiffer, match="\\(alpha: 1.0 in this model, 0.5 in the other\\); .*the same alpha"):
        a.merge(c)


def test_a_model_that_learned_no_documents_is_refused_by_merge_in_one_line(tmp_path):
    """Found by a library hunt: merging a TextClassifier whose DiscriminativeNB learned only
    an empty ``partial_fit`` batch (no event model chosen) ended in ``KeyError:
    'event_model_'`` from the kernel's ``check_same_choices``, either order, through
    TextClassifier.merge and DiscriminativeNB.merge alike. It is now one ValueError saying
    the model has nothing to merge, the other model left as it was (no model file holds
    such a model: ``save`` refuses it, so ``textnb merge`` never meets one)."""
    from textnb.core.errors import ModelFileError

    docs = ["free prize now", "see you at noon", "win cash now", "lunch at noon today"] * 20
    y = ["spam", "ham", "spam", "ham"] * 20
    full = TextClassifier().fit(docs, y)
    before = full.predict_proba(docs[:4])

    def empty():
        return TextClassifier().partial_fit([], [], classes=["ham", "spam"])

    for a, b, which in ((full, empty(), "the other model"), (empty(), full, "this model"),
                        (full.model_, empty().model_, "the other model"), (empty().model_, full.model_, "this model")):
        with pytest.raises(ValueError, match=f"^cannot merge: {which} \\(a DiscriminativeNB\\) has learned no "
                                             "documents, so it has nothing to merge"):
            a.merge(b)
    assert np.array_equal(full.predict_proba(docs[:4]), before)
    with pytest.raises(ModelFileError, match="not written"):
        empty().save(tmp_path / "e.tnb")


def test_text_classifier_default_is_the_estimator_on_the_vectorizer_counts(sms):
    docs, y = sms
    clf = TextClassifier().fit(docs[:3000], y[:3000])
    assert isinstance(clf.model_, DiscriminativeNB)
    params = default_vectorizer(docs[:3000])[0]
    assert params == {"ngram_range": (1, 2), "min_df": 2}  # (short texts: their bigrams too)
    vec = Vectorizer(**params).fit(docs[:3000])
    est = DiscriminativeNB().fit(vec.transform(docs[:3000]), y[:3000])
    assert clf.model_.event_model_ == est.event_model_
    assert np.array_equal(clf.model_.feature_count_, est.feature_count_)
    assert np.array_equal(clf.predict_joint_log_proba(docs[3000:]), est.predict_joint_log_proba(
        vec.transform(docs[3000:])))
    # the same bytes whatever the batch size or number of processes
    other = TextClassifier(batch_size=700, n_jobs=2).fit(docs[:3000], y[:3000])
    assert np.array_equal(other.model_.feature_count_, clf.model_.feature_count_)


def test_scorer_and_trainer_without_sklearn_give_the_same_model(sms, tmp_path):
    docs, y = sms
    clf = TextClassifier(vectorizer=Vectorizer(), model=DiscriminativeNB()).fit(docs[:3000], y[:3000])
    clf.save(tmp_path / "a.tnb")
    root, _ = train_text_model(docs[:3000], y[:3000], model=("DiscriminativeNB", {}))
    save(root, tmp_path / "b.tnb")
    assert (tmp_path / "a.tnb").read_bytes() == (tmp_path / "b.tnb").read_bytes()
    scorer = scorer_from_file(tmp_path / "a.tnb")
    assert scorer is not None and scorer.features == clf.model_.event_model_
    for part in (docs[3000:3010], docs[3000:]):  # the few-documents path and the batch path
        assert np.array_equal(scorer.predict_joint_log_proba(part), clf.predict_joint_log_proba(part))
        assert np.array_equal(scorer.predict(part), load(tmp_path / "a.tnb").predict(part))


def test_text_classifier_partial_fit_forget_and_merge(sms):
    docs, y = sms
    clf = TextClassifier().partial_fit(docs[:2000], y[:2000], classes=["ham", "spam"])
    clf.partial_fit(docs[2000:4000], y[2000:4000])
    assert (clf.predict(docs[4000:]) == y[4000:]).mean() > 0.97
    with pytest.raises(ValueError, match="forget"):
        clf.forget(docs[:10], y[:10])
    a = TextClassifier().fit(docs[:2000], y[:2000])
    b = TextClassifier(model=DiscriminativeNB(event_model=a.model_.event_model_)).fit(docs[2000:4000], y[2000:4000])
    total = a.model_.class_count_.sum() + b.model_.class_count_.sum()
    a.merge(b)
    assert np.isclose(a.model_.class_count_.sum(), total)
    assert (a.predict(docs[4000:]) == y[4000:]).mean() > 0.97
    with pytest.raises(ValueError, match="cannot merge"):
        a.merge(TextClassifier(model=MultinomialNB()).fit(docs[:100], y[:100]))


@pytest.mark.slow
def test_cli_train_default_and_model_flags(tmp_path):
    def run(*args):
        return subprocess.run([sys.executable, "-m", "textnb", *args], capture_output=True, text=True)

    r = run("train", str(SMS), "-o", str(tmp_path / "d.tnb"), "--json")
    assert r.returncode == 0, r.stderr
    assert '"model"' in r.stdout
    assert type(load(tmp_path / "d.tnb").model_).__name__ == "DiscriminativeNB"
    r = run("train", str(SMS), "-o", str(tmp_path / "m.tnb"), "--m", "300")  # a count-model option: multinomial
    assert r.returncode == 0, r.stderr
    assert type(load(tmp_path / "m.tnb").model_).__name__ == "MultinomialNB"
    r = run("train", str(SMS), "-o", str(tmp_path / "x.tnb"), "--model", "discriminative", "--m", "300")
    assert r.returncode != 0 and "--alpha only" in r.stderr and "Traceback" not in r.stderr
    r = run("inspect", str(tmp_path / "d.tnb"))
    assert r.returncode == 0 and "event model: bernoulli (alpha 0.1; chosen by cross-validation)" in r.stdout
    assert f"calibration: scores times {load(tmp_path / 'd.tnb').model_.scale_:.4g}" in r.stdout
    assert "  spam: 747 documents" in r.stdout  # documents, not the passes' weights
    r = run("predict", str(tmp_path / "d.tnb"), "--help")
    assert r.returncode == 0


def test_streamed_training_keeps_a_bounded_sample_of_rows(sms):
    """Beyond max_nnz cells the stream keeps a content-keyed sample of the documents for
    the passes (at most 1.5 times max_nnz cells at any time) and only the sums of the others."""
    from textnb.text.tokenize import Analyzer
    from textnb.text.training import count_documents

    docs, y = sms
    classes, yi = np.unique(y, return_inverse=True)
    analyzer = Vectorizer().build_analyzer()
    acc = count_documents(docs, yi, np.ones(len(y)), 2, analyzer, rows=True, batch_size=500, max_row_nnz=5000)
    assert acc.row_nnz <= 1.5 * 5000 and acc.dropped is not None
    cols = np.arange(len(acc.vocab))
    dropped = acc.dropped_sums(cols)
    X, yk, wk = acc.row_matrix(cols)
    assert X.nnz <= 5000 and X.shape[0] < len(y)
    every = count_documents(docs, yi, np.ones(len(y)), 2, analyzer, rows=True, batch_size=500)
    assert every.dropped is None and list(every.vocab.terms()) == list(acc.vocab.terms())
    X_all, y_all, w_all = every.row_matrix(cols)
    some = np.sort(np.random.default_rng(0).choice(cols, size=len(cols) // 3, replace=False))
    dropped_some = acc.dropped_sums(some)
    for family in dfe.FAMILIES:  # kept + dropped = every document's features
        fc, w = dropped[family]
        assert np.isclose(w.sum() + wk.sum(), len(y))
        kept = dfe.class_sums(dfe.features(family, X), yk, 2, wk)[0]
        assert np.allclose(fc + kept, dfe.class_sums(dfe.features(family, X_all), y_all, 2, w_all)[0])
        np.testing.assert_array_equal(dropped_some[family][0], fc[:, some])  # a subset of the columns
    # the same sample whatever the batches or processes (the dropped documents' sums are
    # added in another order: equal to the last bits only), every document counted
    small = DiscriminativeNB(max_nnz=5000)
    a = TextClassifier(model=small, batch_size=500).fit(docs, y)
    b = TextClassifier(model=small, batch_size=1700, n_jobs=2).fit(docs, y)
    assert np.allclose(a.model_.feature_count_, b.model_.feature_count_, rtol=1e-9, atol=1e-9)
    assert a.model_.class_documents_.sum() == len(y)
    full = TextClassifier().fit(docs[:4000], y[:4000])
    part = TextClassifier(model=small).fit(docs[:4000], y[:4000])
    assert (part.predict(docs[4000:]) == y[4000:]).mean() > (full.predict(docs[4000:]) == y[4000:]).mean() - 0.01
    assert Analyzer  # imported for the analyzer type used above
