"""DiscriminativeNB's log-count ratios (``ratios="auto"``, :func:`textnb.core.dfe.log_count_ratios`):
NBSVM's ratios (Wang & Manning 2012) of the model's own sums scale the complement model's
sums and features on long documents; decided on the documents the passes run over, kept by
``partial_fit``, recomputed from the sums after a merge, the same on every training path,
recorded in model files, and refused in a merge of parts of which one has them."""

import json

import numpy as np
import pytest
import scipy.sparse as sp

from textnb import TextClassifier, Vectorizer, load
from textnb.core import dfe
from textnb.core.errors import SettingsDiffer
from textnb.naive_bayes.discriminative import DiscriminativeNB
from conftest import cli
from test_pass_step import every_training_path, grown_both_ways, inspected_folder, long_documents, refused_merge


def test_the_rule():
    long, short = np.array([49, 50, 51]), np.array([10, 49, 200])
    assert dfe.uses_ratios("auto", long, "complement") and not dfe.uses_ratios("auto", short, "complement")
    assert not dfe.uses_ratios("auto", long, "bernoulli") and not dfe.uses_ratios(True, long, "bernoulli")
    assert dfe.uses_ratios(True, short, "complement") and not dfe.uses_ratios(False, long, "complement")
    assert not dfe.uses_ratios("auto", np.array([], dtype=int), "complement")
    assert dfe.pass_ratios("auto", long) == {"complement": True, "bernoulli": False}
    with pytest.raises(ValueError, match="ratios"):
        DiscriminativeNB(ratios="yes").fit([[1, 0], [0, 1]] * 5, [0, 1] * 5)


def test_the_ratios_of_the_sums():
    fc = np.array([[8.0, 1.0, 3.0, 0.0],
                   [2.0, 1.0, 3.0, 4.0],
                   [0.0, 1.0, 3.0, 0.0]])
    r = dfe.log_count_ratios(fc, 1.0)
    # by hand: each class's smoothed frequency against its complement's, the largest |log ratio|
    own, other = fc + 1.0, fc.sum(axis=0) - fc + 1.0
    R = np.abs(np.log(own / own.sum(axis=1, keepdims=True)) - np.log(other / other.sum(axis=1, keepdims=True)))
    assert np.allclose(r, R.max(axis=0) / R.max(axis=0).mean())
    assert r.mean() == pytest.approx(1.0)
    assert r[0] > r[2] and r[3] > r[1]  # a term that tells the classes apart weighs more than an even one
    # two classes: each class's ratio is the other's, negated
    two = dfe.log_count_ratios(fc[:2], 1.0)
    R2 = np.abs(np.log((fc[0] + 1) / (fc[0] + 1).sum()) - np.log((fc[1] + 1) / (fc[1] + 1).sum()))
    assert np.allclose(two, R2 / R2.mean())
    assert np.array_equal(dfe.log_count_ratios(np.ones((2, 3)), 1.0), np.ones(3))  # no term tells: all ones
    assert np.array_equal(dfe.log_count_ratios(fc[:1], 1.0), np.ones(4))  # one class: nothing to tell apart


def test_the_weights_are_the_complement_weights_of_the_scaled_sums_times_the_ratios():
    rng = np.random.default_rng(0)
    fc, cc = rng.gamma(1.0, 3.0, (4, 30)), rng.uniform(5, 10, 4)
    r = dfe.log_count_ratios(fc, 0.5)
    W, b = dfe.linear_weights("complement", fc, cc, 0.5, ratios=True)
    W0, b0 = dfe.linear_weights("complement", fc * r, cc, 0.5)
    assert np.allclose(W, W0 * r) and np.array_equal(b, b0)
    Wb, bb = dfe.linear_weights("bernoulli", fc, cc, 0.5, ratios=True)  # never for the Bernoulli model
    assert np.array_equal(Wb, dfe.linear_weights("bernoulli", fc, cc, 0.5)[0])


def test_long_documents_take_the_ratios_under_the_complement_model_only(sms):
    docs, y = long_documents(sms)
    X = Vectorizer().fit_transform(docs)
    auto = DiscriminativeNB(event_model="complement", residual=False).fit(X, y)  # (the weights of the sums alone)
    assert auto.ratios_ is True and auto.get_params()["ratios"] == "auto"
    fixed = DiscriminativeNB(event_model="complement", ratios=True, residual=False).fit(X, y)
    assert np.array_equal(auto.coef_, fixed.coef_)
    plain = DiscriminativeNB(event_model="complement", ratios=False, residual=False).fit(X, y)
    assert plain.ratios_ is False and not np.allclose(plain.coef_, auto.coef_)
    # the fitted weights: those of the model's own sums, with their ratios
    W, b = dfe.model_weights("complement", auto.feature_count_, auto.class_count_, auto.alpha_, auto.scale_,
                             ratios=True)
    assert np.array_equal(auto.coef_, W) and np.array_equal(auto.intercept_, b)
    assert DiscriminativeNB(event_model="bernoulli").fit(X, y).ratios_ is False
    short, labels = sms
    Xs = Vectorizer().fit_transform(short[:2000])
    model = DiscriminativeNB(event_model="complement").fit(Xs, labels[:2000])
    assert model.ratios_ is False
    assert np.array_equal(model.coef_, DiscriminativeNB(event_model="complement", ratios=False).fit(
        Xs, labels[:2000]).coef_)


def test_partial_fit_keeps_the_first_batch_s_choice_and_a_merge_recomputes_the_ratios(sms):
    comp = {"event_model": "complement"}
    grown, fixed, other, (A, y) = grown_both_ways(sms, {"ratios": True}, **comp)
    assert grown.ratios_ is True and np.array_equal(grown.feature_count_, fixed.feature_count_)
    assert other.ratios_ is False
    # two parts with ratios merge: the sums add, and the weights are those of the merged sums' ratios
    half = A.shape[0] // 2
    a = DiscriminativeNB(**comp).fit(A[:half], y[:half])
    b = DiscriminativeNB(**comp).fit(A[half:], y[half:])
    summed = a.feature_count_ + b.feature_count_
    merged = a.merge(b)
    assert merged.ratios_ is True
    W, _ = dfe.model_weights("complement", merged.feature_count_, merged.class_count_, merged.alpha_,
                             merged.scale_, ratios=True)
    assert np.array_equal(merged.coef_, W)
    assert np.allclose(merged.feature_count_, summed)


def test_every_training_path_alike_and_the_file_records_it(sms, tmp_path):
    docs, y = long_documents(sms)
    clf, est, loaded = every_training_path(docs, y, tmp_path, event_model="complement")
    assert clf.model_.ratios_ is True and np.array_equal(clf.model_.coef_, est.coef_)
    assert loaded.model_.ratios_ is True and loaded.model_.get_params()["ratios"] == "auto"
    assert np.array_equal(loaded.predict_proba(docs[:20]), clf.predict_proba(docs[:20]))
    # the model file's scorer (textnb predict) gives the estimator's probabilities
    (tmp_path / "docs.txt").write_text("\n".join(d.replace("\n", " ") for d in docs[:20]) + "\n", encoding="utf-8")
    rc, out, err = cli("predict", tmp_path / "a.tnb", "--lines", tmp_path / "docs.txt", "--proba", "--json")
    assert rc == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    expected = clf.predict_proba([d.replace("\n", " ") for d in docs[:20]])
    got = np.array([[row["proba"][str(c)] for c in clf.classes_] for row in rows])
    assert np.allclose(got, expected, atol=1e-9)
    # a fold model of a wrapper gets the choice made
    chosen = loaded.model_._kernel.chosen_params(loaded.model_.get_params(), vars(loaded.model_))
    assert chosen["ratios"] is True and chosen["event_model"] == "complement"


def test_out_of_fold_scores_use_the_ratios(sms):
    """``fit_out_of_fold`` (the multi-label copy model's training) fits the model ``fit``
    fits, ratios and all, and its held-out scores are those of models with the ratios."""
    docs, y = long_documents(sms)
    X = Vectorizer().fit_transform(docs)
    fold = np.arange(X.shape[0]) % 3
    model = DiscriminativeNB(event_model="complement", calibration=None)
    log_proba = model.fit_out_of_fold(X, y, fold)
    assert model.ratios_ is True
    assert np.array_equal(model.coef_, DiscriminativeNB(event_model="complement", calibration=None).fit(X, y).coef_)
    plain = DiscriminativeNB(event_model="complement", calibration=None, ratios=False)
    assert not np.allclose(log_proba, plain.fit_out_of_fold(X, y, fold))
    assert np.allclose(np.exp(log_proba).sum(axis=1), 1.0)


def test_a_merge_of_parts_of_which_one_has_ratios_is_refused(sms, tmp_path):
    docs, y = long_documents(sms)
    short, labels = sms
    vec = Vectorizer().fit(docs + short[:1000])
    comp = {"event_model": "complement"}
    a = DiscriminativeNB(**comp).fit(vec.transform(docs), y)
    b = DiscriminativeNB(**comp).fit(vec.transform(short[:1000]), labels[:1000])
    assert (a.ratios_, b.ratios_) == (True, False)
    with pytest.raises(SettingsDiffer, match="chosen log-count ratios differ \\(ratios: True in this model, False "
                                             "in the other\\); .*the same explicit ratios") as info:
        a.merge(b)
    assert info.value.values == (True, False)
    # the command line: textnb inspect says the choice; textnb merge refuses in one line, says
    # what to do, writes nothing
    out, info = inspected_folder(docs, y, tmp_path)
    assert info["ratios"] is (info["event_model"] == "complement")
    assert (f"log-count ratios: {'yes' if info['ratios'] else 'no'} (chosen: for the complement model where the "
            "median document has 50 distinct terms or more; on shorter ones when the event-model race finds they "
            "help)") in out
    err = refused_merge(tmp_path, (docs, y), (short[:1000], labels[:1000]), **comp, step=4.5)
    assert "their chosen log-count ratios differ" in err and "takes log-count ratios by each part's " \
                                                            "documents" in err, err


def test_a_model_file_without_the_ratios_still_loads_and_learns_without(sms, tmp_path):
    """Files written before the ratios hold no ``ratios`` parameter and no ``ratios_``:
    they load, score as before, and ``partial_fit`` goes on without ratios."""
    docs, y = long_documents(sms)
    X = sp.csr_matrix(Vectorizer().fit_transform(docs))
    half = X.shape[0] // 2
    old = DiscriminativeNB(event_model="complement", ratios=False).fit(X[:half], y[:half])
    del old.ratios_  # (as a file of before: the kernel writes what the model has)
    old.save(tmp_path / "old.tnb")
    back = load(tmp_path / "old.tnb")
    assert not hasattr(back, "ratios_") and np.array_equal(back.coef_, old.coef_)
    back.partial_fit(X[half:], y[half:])
    assert back.ratios_ is False


@pytest.mark.slow
def test_long_topic_documents_gain_from_the_ratios(shared_corpora):
    """OHSUMED-23 (medical abstracts, 23 classes, its official split): the default (the
    complement model with ratios) makes fewer errors than without them, by more than a
    point, and its log-loss is lower (the calibration sees the ratios too)."""
    from textnb import open_corpus
    from textnb.io.corpus import read_document

    root = shared_corpora("ohsumed_single_23")
    parts = {}
    for part in ("train", "test"):
        corpus = open_corpus(next(root.rglob(part)))
        parts[part] = ([read_document(p) for p in corpus.documents], np.asarray(corpus.labels))
    (train, ytr), (test, yte) = parts["train"], parts["test"]
    scores = {}
    for ratios in ("auto", False):
        clf = TextClassifier(model=DiscriminativeNB(ratios=ratios)).fit(train, ytr)
        P = clf.predict_proba(test)
        truth = np.searchsorted(clf.classes_, yte)
        scores[ratios] = (float(np.mean(clf.classes_[P.argmax(axis=1)] == yte)),
                          float(-np.mean(np.log(np.clip(P[np.arange(len(yte)), truth], 1e-15, 1)))))
        assert clf.model_.ratios_ is (ratios == "auto")
    assert scores["auto"][0] > scores[False][0] + 0.01, scores
    assert scores["auto"][1] < scores[False][1], scores


def test_the_race_takes_a_third_runner_on_short_texts_only(sms):
    """On short texts (the rule gives the complement model no ratios) ``ratios="auto"`` with
    ``event_model="auto"`` races the complement model with the ratios too
    (:data:`dfe.COMPLEMENT_RATIOS`): the winner is the runner of most correct predictions,
    the model takes what won; where the rule gives them already, or either setting is
    explicit, there are two runners, as before."""
    docs, y = sms
    X = sp.csr_matrix(Vectorizer().fit_transform(docs[:2000]), dtype=np.float64)
    yi = np.unique(y[:2000], return_inverse=True)[1]
    kw = dict(alphas=dfe.DEFAULT_ALPHA, n_passes=2, step=4.5)
    won, correct = dfe.choose_family(X, yi, 2, ratios=False, race_ratios=True, **kw)
    assert set(correct) == {"complement", "bernoulli", dfe.COMPLEMENT_RATIOS}
    assert correct[won] == max(correct.values())
    assert set(dfe.choose_family(X, yi, 2, ratios=False, **kw)[1]) == {"complement", "bernoulli"}
    assert set(dfe.choose_family(X, yi, 2, ratios={"complement": True, "bernoulli": False}, race_ratios=True,
                                 **kw)[1]) == {"complement", "bernoulli"}
    # what the estimator fits: the race's choice, kept in ratios_; no third runner when a setting is given
    seen = []
    real = dfe.choose_family

    def spy(*args, **kwargs):
        out = real(*args, **kwargs)
        seen.append((kwargs["race_ratios"], out[0]))
        return out

    dfe.choose_family = spy
    try:
        model = DiscriminativeNB().fit(X, y[:2000])
        given = DiscriminativeNB(ratios=False).fit(X, y[:2000])
    finally:
        dfe.choose_family = real
    assert seen[0][0] is True and model.ratios_ is (seen[0][1] == dfe.COMPLEMENT_RATIOS)
    assert model.event_model_ == ("complement" if seen[0][1] == dfe.COMPLEMENT_RATIOS else seen[0][1])
    assert seen[1][0] is False and given.ratios_ is False
    assert DiscriminativeNB(event_model="complement").fit(X, y[:2000]).ratios_ is False  # (no race: the rule)


@pytest.mark.slow
def test_questions_take_the_ratios_and_sentences_do_not(shared_corpora):
    """The third runner's reason: TREC QC's questions gain from the ratios inside their
    training part and the race gives them (88.80 -> 89.20 % on the test part, issue 28);
    rt-polarity's sentences lose from them there and the race keeps them out."""
    from textnb import open_corpus
    from textnb.io.corpus import read_document

    root = shared_corpora("trec_qc")
    train, test = open_corpus(root), open_corpus(root).test
    docs = [read_document(p) for p in train.documents]
    test_docs = [read_document(p) for p in test.documents]
    chosen = TextClassifier().fit(docs, train.labels)
    assert chosen.model_.event_model_ == "complement" and chosen.model_.ratios_ is True
    assert (chosen.predict(test_docs) == np.asarray(test.labels)).mean() >= 0.89
    root = shared_corpora("rt_polarity_v1")
    corpus = open_corpus(root)
    sentences = [read_document(p) for p in corpus.documents]
    keep = np.random.default_rng(0).permutation(len(sentences))[:6000]
    clf = TextClassifier().fit([sentences[i] for i in keep], np.asarray(corpus.labels)[keep])
    assert clf.model_.ratios_ is False
