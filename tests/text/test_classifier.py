import csv

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import GridSearchCV
from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB
from sklearn.pipeline import Pipeline

import textnb
import textnb.text.training as training_module
from textnb import BernoulliNB, MultinomialNB, TextClassifier, Vectorizer


@pytest.fixture(scope="module")
def sms(sms_tsv):
    with open(sms_tsv, encoding="utf-8") as f:
        rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    return [r[1] for r in rows], np.array([r[0] for r in rows])


@pytest.mark.slow
@pytest.mark.parametrize("vec_kw", [{}, {"stop_words": "english", "ngram_range": (1, 2), "min_df": 2, "max_df": 0.5},
                                    {"max_features": 500}])
@pytest.mark.parametrize("Model", [MultinomialNB, BernoulliNB])
def test_streaming_fit_equals_matrix_fit(sms, vec_kw, Model):
    docs, y = sms
    clf = TextClassifier(vectorizer=Vectorizer(**vec_kw), model=Model(), batch_size=700).fit(docs[:3000], y[:3000])
    vec = Vectorizer(**vec_kw)
    X = vec.fit_transform(docs[:3000])
    model = Model().fit(X, y[:3000])
    assert clf.vectorizer_.vocabulary_ == vec.vocabulary_
    assert_allclose(clf.model_.feature_count_, model.feature_count_)
    assert_allclose(clf.predict_log_proba(docs[3000:]), model.predict_log_proba(vec.transform(docs[3000:])))


def test_accuracy_equals_sklearn_at_same_settings(sms):
    docs, y = sms
    ours = TextClassifier(model=MultinomialNB()).fit(docs[:4000], y[:4000]).predict(docs[4000:])
    cv = CountVectorizer()
    ref = SkMultinomialNB().fit(cv.fit_transform(docs[:4000]), y[:4000]).predict(cv.transform(docs[4000:]))
    assert np.array_equal(ours, ref)


def test_parallel_training_gives_the_same_model_file(sms, tmp_path, monkeypatch):
    monkeypatch.setattr(training_module, "_MIN_PARALLEL_DOCUMENTS", 0)
    docs, y = sms
    paths = []
    for jobs, batch in ((1, 5000), (2, 600), (2, 1111)):
        path = tmp_path / f"m{jobs}-{batch}.tnb"
        TextClassifier(n_jobs=jobs, batch_size=batch).fit(docs, y).save(path)
        paths.append(path)
    assert paths[0].read_bytes() == paths[1].read_bytes() == paths[2].read_bytes()


def test_partial_fit_grows_the_vocabulary_and_forget_undoes_it(sms):
    docs, y = sms
    clf = TextClassifier(model=MultinomialNB()).partial_fit(docs[:100], y[:100], classes=["ham", "spam"])
    n = len(clf.vectorizer_.vocabulary_)
    counts = clf.model_.feature_count_.copy()
    clf.partial_fit(docs[100:200], y[100:200])
    assert len(clf.vectorizer_.vocabulary_) > n
    whole = TextClassifier(model=MultinomialNB()).fit(docs[:200], y[:200])
    for term, j in whole.vectorizer_.vocabulary_.items():
        assert_allclose(clf.model_.feature_count_[:, clf.vectorizer_.vocabulary_[term]], whole.model_.feature_count_[:, j])
    clf.forget(docs[100:200], y[100:200])
    assert_allclose(clf.model_.feature_count_[:, :n], counts)
    assert not clf.model_.feature_count_[:, n:].any()
    assert clf.model_.class_count_.sum() == 100
    with pytest.raises(ValueError, match="never learned"):
        clf.forget(docs[300:400], y[300:400])
    with pytest.raises(ValueError, match="not in classes"):
        clf.partial_fit(["x"], ["eggs"])


@pytest.mark.parametrize("make", [TextClassifier, lambda: TextClassifier(model=MultinomialNB())],
                         ids=["discriminative", "multinomial"])
def test_later_partial_fit_calls_must_repeat_the_classes_unchanged(make):
    """Found by a library hunt: ``TextClassifier.partial_fit`` read ``classes`` on the
    first call only, so ``classes=["ham"]`` or
    ``["eggs", "ham", "spam"]`` on a later call was accepted silently, where every matrix
    model refuses it (scikit-learn's rule, ``partial_fit_classes``). Now the same rule."""
    docs, y = ["free prize now", "see you at noon", "win cash now", "lunch at noon"], ["spam", "ham"] * 2
    clf = make().partial_fit(docs, y, classes=["ham", "spam"])
    clf.partial_fit(docs, y, classes=["spam", "ham"]).partial_fit(docs, y)  # the same classes, or none: fine
    for other in (["ham"], ["eggs", "ham", "spam"]):
        with pytest.raises(ValueError, match=r"`classes=\[.*\]` is not the same as on last call to partial_fit, "
                                             r"was: \['ham', 'spam'\]"):
            clf.partial_fit(docs, y, classes=other)
    assert list(clf.classes_) == ["ham", "spam"]
    matrix = MultinomialNB().partial_fit([[1, 0], [0, 1]], ["ham", "spam"], classes=["ham", "spam"])
    with pytest.raises(ValueError, match="is not the same as on last call"):
        matrix.partial_fit([[1, 0]], ["ham"], classes=["ham"])  # (the rule it follows)


@pytest.mark.parametrize("model", [None, MultinomialNB, BernoulliNB, textnb.ComplementNB])
def test_one_partial_fit_batch_equals_fit(sms, model):
    """One ``partial_fit`` batch gives ``fit``'s model exactly, the default DiscriminativeNB
    included: the vocabulary in fit's (alphabetical) order, so the same columns, the same
    content keys of DiscriminativeNB's samples and folds, the same choices and sums. (New
    terms were numbered in order of first appearance: the calibration folds, keyed on
    column numbers, differed, scale_ 0.3233 -> 0.3452 on these documents, and the count
    models' scores differed in the last bits.) Several batches: the count models' sums and
    vocabulary equal fit's on the whole."""
    docs, y = sms
    # (the vectorizer given: without one, fit counts these short texts' bigrams too, which
    # partial_fit does not choose: test_default_vectorizer.py)
    make = (lambda: TextClassifier(vectorizer=Vectorizer())) if model is None else (lambda: TextClassifier(model=model()))
    whole = make().fit(docs[:4000], y[:4000])
    once = make().partial_fit(docs[:4000], y[:4000], classes=["ham", "spam"])
    assert once.vectorizer_.get_feature_names_out().tolist() == whole.vectorizer_.get_feature_names_out().tolist()
    for name in ("event_model_", "alpha_", "scale_"):
        assert getattr(once.model_, name, None) == getattr(whole.model_, name, None), name
    assert np.array_equal(once.model_.feature_count_, whole.model_.feature_count_)
    assert_allclose(once.predict_proba(docs[4000:]), whole.predict_proba(docs[4000:]), rtol=0, atol=1e-12)
    if model is None:
        return
    grown = make()
    for lo, hi in zip(range(0, 4000, 700), [*range(700, 4000, 700), 4000]):  # new terms in every batch
        grown.partial_fit(docs[lo:hi], y[lo:hi], classes=["ham", "spam"])
    assert grown.vectorizer_.vocabulary_ == whole.vectorizer_.vocabulary_
    assert_allclose(grown.model_.feature_count_, whole.model_.feature_count_, rtol=1e-12)
    assert_allclose(grown.predict_proba(docs[4000:]), whole.predict_proba(docs[4000:]), rtol=0, atol=1e-12)


def test_a_small_partial_fit_batch_with_new_terms_keeps_the_residual_layer_on_its_terms(sms, tmp_path):
    """A DiscriminativeNB's residual layer weighs each term (``residual_`` over the
    features, ``residual_presence_`` over presence); a ``partial_fit`` batch too small to
    refit it keeps it, while new terms move the known terms' columns (the vocabulary stays
    alphabetical). The layer kept its old columns: the next estimate raised numpy's
    "operands could not be broadcast" (the default TextClassifier on SMS texts, one new
    word), and a spamfilter ``--kind discriminative`` model refused every TELL of a message
    with a new token. Now its weights move with their terms and a new term weighs 0 (as in
    a merge); the model predicts, saves and loads."""
    from textnb.naive_bayes.kernels import LAYER_WEIGHTS

    docs, y = sms
    model = TextClassifier().fit(docs[:1000], y[:1000])
    layers = [name for name in LAYER_WEIGHTS if hasattr(model.model_, name)]
    assert layers, "no residual layer fitted on these documents: the test needs one"
    names = model.vectorizer_.get_feature_names_out().tolist()
    before = {name: dict(zip(names, getattr(model.model_, name).T.tolist())) for name in layers}
    model.partial_fit(["zzqx brandnewword free prize"], ["spam"])
    names = model.vectorizer_.get_feature_names_out().tolist()
    assert "brandnewword" in names and len(names) > len(before[layers[0]])
    for name in layers:
        after = dict(zip(names, getattr(model.model_, name).T.tolist()))
        assert all(after[term] == weights for term, weights in before[name].items())
        assert after["brandnewword"] == [0.0, 0.0]
    proba = model.predict_proba(["free prize now", "brandnewword at noon"])
    model.save(tmp_path / "m.tnb")
    assert_allclose(textnb.load(tmp_path / "m.tnb").predict_proba(["free prize now", "brandnewword at noon"]), proba,
                    rtol=0, atol=1e-15)


def test_partial_fit_batches_keep_fit_column_order_for_any_terms():
    """Non-ASCII terms and n-grams (held in the TermKeys' dict) slot into fit's order batch by
    batch; a vocabulary set by hand out of order is sorted on the next batch."""
    rng = np.random.default_rng(1)
    alphabet = [*"abcxyzéü日本ß", "\U0001F600", "Z", "_", "0"]
    docs = [" ".join("".join(rng.choice(alphabet, rng.integers(2, 30))) for _ in range(rng.integers(1, 12)))
            for _ in range(400)]
    y = rng.choice(["p", "q", "r"], 400)
    for vec in ({}, {"ngram_range": (1, 3), "lowercase": False}):
        whole = TextClassifier(model=MultinomialNB(), vectorizer=Vectorizer(**vec)).fit(docs, y)
        grown = TextClassifier(model=MultinomialNB(), vectorizer=Vectorizer(**vec))
        for lo in range(0, 400, 97):
            grown.partial_fit(docs[lo:lo + 97], y[lo:lo + 97], classes=["p", "q", "r"])
        assert grown.vectorizer_.get_feature_names_out().tolist() == whole.vectorizer_.get_feature_names_out().tolist()
        assert np.array_equal(grown.model_.feature_count_, whole.model_.feature_count_)
    clf = TextClassifier(model=MultinomialNB()).partial_fit(docs[:200], y[:200], classes=["p", "q", "r"])
    terms = clf.vectorizer_.get_feature_names_out().tolist()
    shuffled = rng.permutation(len(terms))
    clf.vectorizer_.vocabulary_ = {terms[i]: k for k, i in enumerate(shuffled)}
    clf.model_.fit_counts(clf.classes_, clf.model_.class_count_, clf.model_.feature_count_[:, shuffled])
    clf.partial_fit(docs[200:], y[200:])
    whole = TextClassifier(model=MultinomialNB()).fit(docs, y)
    assert clf.vectorizer_.vocabulary_ == whole.vectorizer_.vocabulary_
    assert np.array_equal(clf.model_.feature_count_, whole.model_.feature_count_)


def test_merge_of_halves_equals_fit_on_whole(sms):
    docs, y = sms
    a = TextClassifier(model=MultinomialNB()).fit(docs[:2000], y[:2000])
    b = TextClassifier(model=MultinomialNB()).fit(docs[2000:4000], y[2000:4000])
    whole = TextClassifier(model=MultinomialNB()).fit(docs[:4000], y[:4000])
    a.merge(b)
    assert a.vectorizer_.vocabulary_ == whole.vectorizer_.vocabulary_
    assert_allclose(a.model_.feature_count_, whole.model_.feature_count_)
    assert_allclose(a.predict_log_proba(docs[4000:]), whole.predict_log_proba(docs[4000:]))


def test_merge_of_a_wrapper_or_tfidf_is_refused_in_one_line(sms):
    """CalibratedNB inside was an AttributeError ('_get_state'); a tf-idf vectorizer merged
    sums of weights fitted on each half's idf (not the whole's). Binary counts add up."""
    from textnb.meta.calibration import CalibratedNB
    from textnb.text import TfidfVectorizer

    docs, y = sms
    for kw in ({"model": CalibratedNB(MultinomialNB(), cv=2)}, {"vectorizer": TfidfVectorizer()}):
        a = TextClassifier(**kw).fit(docs[:300], y[:300])
        b = TextClassifier(**kw).fit(docs[300:600], y[300:600])
        with pytest.raises(ValueError, match="cannot merge a TextClassifier of (CalibratedNB|TfidfVectorizer)"):
            a.merge(b)
        with pytest.raises(ValueError, match="cannot merge"):
            TextClassifier().fit(docs[:300], y[:300]).merge(b)
    binary = [TextClassifier(vectorizer=Vectorizer(binary=True), model=MultinomialNB()) for _ in range(3)]
    binary[0].fit(docs[:300], y[:300]).merge(binary[1].fit(docs[300:600], y[300:600]))
    binary[2].fit(docs[:600], y[:600])
    assert_allclose(binary[0].predict_log_proba(docs[600:700]), binary[2].predict_log_proba(docs[600:700]))


def test_binary_documents_are_skipped_and_counted(tmp_path):
    good = tmp_path / "good.txt"
    good.write_text("hello world")
    bad = tmp_path / "bad.bin"
    bad.write_bytes(b"\x00\x01\x02binary")
    other = tmp_path / "other.txt"
    other.write_bytes("caf\xe9 au lait".encode("latin-1"))
    clf = TextClassifier().fit([good, bad, other], ["a", "b", "b"])
    assert clf.skipped_ == [str(bad)]
    assert "café" in clf.vectorizer_.vocabulary_
    assert clf.model_.class_documents_.tolist() == [1.0, 1.0]  # the default DiscriminativeNB's documents


def test_works_in_a_pipeline_and_a_grid_search(sms):
    docs, y = sms
    pipe = Pipeline([("vec", Vectorizer()), ("nb", MultinomialNB())])
    pipe.fit(docs[:2000], y[:2000])
    assert pipe.score(docs[2000:3000], y[2000:3000]) > 0.95
    grid = GridSearchCV(TextClassifier(), {"model": [MultinomialNB(alpha=0.1), MultinomialNB(alpha=1.0)]}, cv=3)
    grid.fit(docs[:1500], y[:1500])
    assert grid.best_score_ > 0.95
    outer = Pipeline([("clf", TextClassifier(model=BernoulliNB()))]).fit(docs[:1500], y[:1500])
    assert outer.score(docs[1500:2500], y[1500:2500]) > 0.9


def test_documents_and_labels_must_align():
    with pytest.raises(ValueError, match="labels"):
        TextClassifier().fit(["a b", "c d"], ["x", "y", "z"])
    with pytest.raises(TypeError, match="string object received; wrap it in a list"):
        TextClassifier().fit("a b", ["x"])


@pytest.mark.parametrize("Model", [MultinomialNB, BernoulliNB])
def test_forget_equals_a_fresh_fit_on_the_rest(sms, Model):
    """Terms only the forgotten documents had leave the vocabulary (issue 19)."""
    docs, y = sms
    clf = TextClassifier(model=Model()).fit(docs[:600], y[:600])
    clf.forget(docs[400:600], y[400:600])
    fresh = TextClassifier(model=Model()).fit(docs[:400], y[:400])
    assert set(clf.vectorizer_.vocabulary_) == set(fresh.vectorizer_.vocabulary_)
    order = [clf.vectorizer_.vocabulary_[t] for t in fresh.vectorizer_.get_feature_names_out()]
    assert_allclose(clf.model_.feature_count_[:, order], fresh.model_.feature_count_)
    assert_allclose(clf.model_.class_count_, fresh.model_.class_count_)
    test = docs[1000:2000]
    assert_allclose(clf.predict_proba(test), fresh.predict_proba(test), rtol=1e-9, atol=1e-12)
    assert (clf.predict(test) == fresh.predict(test)).all()


@pytest.mark.parametrize("pruning", [{"min_df": 2}, {"max_df": 0.5}, {"max_features": 4}])
@pytest.mark.parametrize("Model", [MultinomialNB, BernoulliNB])
def test_forgetting_a_learned_document_leaves_out_the_terms_fit_pruned(Model, pruning):
    """Found by a user trial: with min_df=2, forgetting a document the model had learned was
    refused ('counts would go negative'): its pruned term came back as a new term at zero.
    The pruned terms hold no counts: they are left out, as prediction leaves them out."""
    docs = ["free prize now", "free cash prize", "lunch at noon", "noon lunch today"]
    labels = ["spam", "spam", "ham", "ham"]
    clf = TextClassifier(vectorizer=Vectorizer(**pruning), model=Model()).fit(docs, labels)
    terms = list(clf.vectorizer_.get_feature_names_out())
    counts, classes = clf.model_.feature_count_.copy(), clf.model_.class_count_.copy()
    clf.forget(docs[:1], labels[:1])
    assert list(clf.vectorizer_.get_feature_names_out()) == [t for t in terms if clf.vectorizer_.vocabulary_.get(t) is not None]
    assert_allclose(clf.model_.class_count_, classes - [0, 1])
    once = TextClassifier(vectorizer=Vectorizer(vocabulary=terms), model=Model()).fit(docs[:1], labels[:1])
    kept = [terms.index(t) for t in clf.vectorizer_.get_feature_names_out()]
    assert_allclose(clf.model_.feature_count_, (counts - once.model_.feature_count_ * [[0], [1]])[:, kept])
    clf.partial_fit(docs[:1], labels[:1])  # and back: the learned terms' counts as before
    assert_allclose(clf.model_.feature_count_[:, [clf.vectorizer_.vocabulary_[t] for t in terms]], counts)


def test_forgetting_a_term_the_model_never_had_is_refused_without_pruning():
    clf = TextClassifier(model=MultinomialNB()).fit(["free prize", "lunch at noon"], ["spam", "ham"])
    with pytest.raises(ValueError, match="never learned"):
        clf.forget(["free zebra"], ["spam"])


@pytest.mark.parametrize("Model", [MultinomialNB, BernoulliNB, textnb.ComplementNB])
def test_forgetting_every_document_is_refused_and_leaves_the_model_whole(Model):
    """Found by a user trial: forgetting every document learned left a model of no term,
    which could not predict (scikit-learn's 'Found array with 0 feature(s)') nor be saved;
    spamfilter's last --unregister-* said 'inconsistent model file'. Now one ValueError,
    as fit refuses an empty vocabulary, before anything changes."""
    docs, labels = ["free call now", "ok see you later"], ["spam", "ham"]
    clf = TextClassifier(model=Model()).fit(docs, labels)
    before = clf.predict_proba(docs)
    with pytest.raises(ValueError, match="no term would be left in the model"):
        clf.forget(docs, labels)
    assert_allclose(clf.predict_proba(docs), before)
    clf.forget(docs[:1], labels[:1])  # one left: a model of its terms
    assert set(clf.vectorizer_.vocabulary_) == {"ok", "see", "you", "later"}


DOCS = ["free call now", "ok see you", "free prize call", "ok ok later"]
LABELS = ["spam", "ham", "spam", "ham"]


@pytest.mark.parametrize("make", [
    lambda: textnb.TextClassifier(vectorizer=textnb.TfidfVectorizer(), model=textnb.MultinomialNB()),
    lambda: textnb.TextClassifier(vectorizer=textnb.Vectorizer(vocabulary=["free", "call", "ok"]),
                                  model=textnb.MultinomialNB()),
    lambda: textnb.TextClassifier(model=textnb.APNBC(textnb.MultinomialNB())),
    lambda: textnb.TextClassifier(model=textnb.CalibratedNB(textnb.MultinomialNB(), cv=2)),
])
@pytest.mark.parametrize("method", ["partial_fit", "forget"])
def test_partial_fit_and_forget_refuse_what_they_cannot_update_and_leave_the_model_whole(make, method):
    """Found by a user trial: after ``fit``, ``partial_fit`` added raw counts to tf-idf
    sums, grew a fixed vocabulary, or failed inside a wrapper, and a new word left the
    classifier unable to predict; ``forget`` of a learned document said it was never
    learned. Now one ValueError before anything changes."""
    clf = make().fit(DOCS * 3, LABELS * 3)
    before = (clf.predict_proba(DOCS), dict(clf.vectorizer_.vocabulary_))
    with pytest.raises(ValueError, match=f"{method} needs a count model .* over plain counts"):
        getattr(clf, method)(["zebra free"], ["ham"])
    assert np.array_equal(clf.predict_proba(DOCS), before[0]) and clf.vectorizer_.vocabulary_ == before[1]


@pytest.mark.parametrize("vectorizer", [textnb.TfidfVectorizer(), textnb.Vectorizer(vocabulary=["free", "call", "ok"])])
def test_a_first_partial_fit_it_cannot_do_says_why(vectorizer):
    """The first ``partial_fit`` of a MultinomialNB over binary counts said it 'needs a count
    model ... over counts' (it has one); it now says what the later calls say: plain counts, not
    binary, tf-idf or a fixed vocabulary (found by a user trial, session 27)."""
    clf = textnb.TextClassifier(vectorizer=vectorizer, model=textnb.MultinomialNB())
    with pytest.raises(ValueError, match="partial_fit needs a count model .* over plain counts .*binary"):
        clf.partial_fit(DOCS, LABELS, classes=["ham", "spam"])


@pytest.mark.parametrize("Model", [MultinomialNB, BernoulliNB, textnb.ComplementNB, textnb.DiscriminativeNB])
def test_binary_counts_stream_as_counts_do(sms, Model):
    """``partial_fit`` and ``forget`` refused a binary Vectorizer ("over plain counts"), though a
    count model's sums of presence add up as its sums of counts do (``textnb train --binary``
    streams them, ``merge`` adds them). Now ``fit`` (streamed), one ``partial_fit`` and the
    matrix fit agree, and for the plain-sum models parts in any split equal one fit, and
    ``forget`` a fresh fit on the rest (session 28)."""
    docs, y = sms
    docs, y = docs[:900], y[:900]
    w = np.linspace(0.5, 2.0, 900)
    classes = np.unique(y)

    def make():
        return TextClassifier(vectorizer=Vectorizer(binary=True), model=Model())

    vec = Vectorizer(binary=True)
    matrix = Model().fit(vec.fit_transform(docs), y, sample_weight=w)
    fitted = make().fit(docs, y, sample_weight=w)
    one = make().partial_fit(docs, y, classes=classes, sample_weight=w)
    for clf in (fitted, one):
        assert clf.vectorizer_.vocabulary_ == vec.vocabulary_
        assert_allclose(clf.model_.feature_count_, matrix.feature_count_)
        assert_allclose(clf.predict_log_proba(docs[:100]), matrix.predict_log_proba(vec.transform(docs[:100])))
    if Model is textnb.DiscriminativeNB:  # (its passes are made per batch: parts are another model)
        return
    parts = make()
    for lo in (0, 250, 500, 750):
        parts.partial_fit(docs[lo:lo + 250], y[lo:lo + 250], classes=classes, sample_weight=w[lo:lo + 250])
    assert parts.vectorizer_.vocabulary_ == vec.vocabulary_
    assert_allclose(parts.model_.feature_count_, matrix.feature_count_)
    assert_allclose(parts.predict_log_proba(docs[:100]), fitted.predict_log_proba(docs[:100]))
    parts.forget(docs[600:], y[600:], sample_weight=w[600:])
    fresh = make().fit(docs[:600], y[:600], sample_weight=w[:600])
    assert parts.vectorizer_.vocabulary_ == fresh.vectorizer_.vocabulary_
    assert_allclose(parts.model_.feature_count_, fresh.model_.feature_count_, atol=1e-9)
    assert_allclose(parts.predict_proba(docs[:100]), fresh.predict_proba(docs[:100]), atol=1e-9)


def test_binary_counts_streamed_equal_textnb_train_binary(sms_tsv, tmp_path):
    """The library's ``partial_fit`` in parts over binary counts and ``textnb train --binary`` on
    the whole corpus give the same model (the CLI's file is a streamed fit's)."""
    from textnb.cli.commands import main

    with open(sms_tsv, encoding="utf-8") as f:
        rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))[:800]
    part = tmp_path / "part.tsv"
    part.write_text("".join(f"{label}\t{text}\n" for label, text in rows), encoding="utf-8")
    assert main(["train", str(part), "-o", str(tmp_path / "m.tnb"), "--binary", "--model", "multinomial"]) == 0
    cli_model = textnb.load(tmp_path / "m.tnb")
    docs, y = [r[1] for r in rows], np.array([r[0] for r in rows])
    parts = TextClassifier(vectorizer=Vectorizer(binary=True), model=MultinomialNB())
    for lo in range(0, 800, 300):
        parts.partial_fit(docs[lo:lo + 300], y[lo:lo + 300], classes=np.unique(y))
    assert parts.vectorizer_.vocabulary_ == cli_model.vectorizer_.vocabulary_
    assert_allclose(parts.model_.feature_count_, cli_model.model_.feature_count_)
    assert_allclose(parts.predict_proba(docs[:50]), cli_model.predict_proba(docs[:50]))


def test_a_refused_forget_and_bad_weights_change_nothing():
    clf = textnb.TextClassifier(model=textnb.MultinomialNB()).fit(DOCS, LABELS)
    vocabulary, proba = dict(clf.vectorizer_.vocabulary_), clf.predict_proba(DOCS)
    with pytest.raises(ValueError, match="never learned"):
        clf.forget(["zebra giraffe"], ["ham"])  # (the vocabulary grew before the refusal)
    for weights, message in (([np.nan], "finite and >= 0"), ([-1.0], "finite and >= 0"), ([0.0], "zero for every")):
        with pytest.raises(ValueError, match=message):
            clf.partial_fit(["free"], ["spam"], sample_weight=weights)
    assert clf.vectorizer_.vocabulary_ == vocabulary and np.array_equal(clf.predict_proba(DOCS), proba)
    for weights in ([np.nan, 1, 1, 1], [np.inf, 1, 1, 1], [-1, 1, 1, 1], [0, 0, 0, 0]):
        for model in (textnb.MultinomialNB(), None):  # (the default model too: it gave NaN probabilities)
            with pytest.raises(ValueError, match="sample_weight"):
                textnb.TextClassifier(model=model).fit(DOCS, LABELS, sample_weight=weights)


def test_labels_may_be_a_generator_as_the_documents_may():
    """``fit(doc_generator, label_generator)`` raised 'y must be one label per document; got
    shape ()' (numpy took the generator for one object): labels given as any iterable are
    read like a list, in fit, partial_fit and forget, for the streamed and the default model."""
    from textnb import MultinomialNB, TextClassifier

    docs = ["cheap pills now", "meeting at noon", "cheap offer", "lunch at noon"]
    labels = ["spam", "ham", "spam", "ham"]
    fitted = TextClassifier(model=MultinomialNB()).fit(docs, labels)
    streamed = TextClassifier(model=MultinomialNB()).fit((d for d in docs), (lab for lab in labels))
    np.testing.assert_array_equal(streamed.model_.feature_count_, fitted.model_.feature_count_)
    assert streamed.vectorizer_.get_feature_names_out().tolist() == fitted.vectorizer_.get_feature_names_out().tolist()
    streamed.partial_fit(iter(docs[:2]), iter(labels[:2]))
    streamed.forget(iter(docs[:2]), map(str, labels[:2]))
    np.testing.assert_array_equal(streamed.model_.feature_count_, fitted.model_.feature_count_)
    assert TextClassifier().fit(iter(docs * 5), iter(labels * 5)).predict(["cheap pills"]).tolist() == ["spam"]
    with pytest.raises(ValueError, match="3 labels"):  # a count that differs is still one line
        TextClassifier(model=MultinomialNB()).fit(iter(docs), iter(labels[:3]))
    with pytest.raises(ValueError, match="MultiLabelNB"):  # label sets, from a generator too
        TextClassifier(model=MultinomialNB()).fit(docs, (s for s in [["a", "b"], ["c"]] * 2))


@pytest.mark.parametrize("param, value", [("n_jobs", "2"), ("n_jobs", 1.5), ("n_jobs", True), ("batch_size", 0),
                                          ("batch_size", "x"), ("max_bytes", -1)])
def test_own_parameters_are_checked_by_fit_partial_fit_and_forget(param, value):
    # TextClassifier's own parameters are checked as a model file's are, in one line naming
    # the parameter (it checked none: n_jobs="2" was fitted and saved, batch_size=0 said
    # "got 0 documents but 4 labels", batch_size="x" an int() error, max_bytes=-1 taken)
    from textnb.core.errors import ParameterError

    docs, labels = ["cheap pills now", "meeting at noon", "cheap watches", "noon lunch"], ["s", "h", "s", "h"]
    for model in (None, MultinomialNB()):
        clf = TextClassifier(model=model, **{param: value})
        with pytest.raises(ParameterError, match=f"^{param} must be "):
            clf.fit(docs, labels)
        with pytest.raises(ParameterError, match=f"^{param} must be "):
            clf.partial_fit(docs, labels, classes=["h", "s"])
        fitted = TextClassifier(model=model).fit(docs, labels).set_params(**{param: value})
        with pytest.raises(ParameterError, match=f"^{param} must be "):
            fitted.forget(docs[:1], labels[:1])


def test_a_str_document_is_cut_at_max_bytes_as_a_file_or_a_line_is(tmp_path):
    """``max_bytes`` cuts every document the same way whatever its container: a str given to
    the library (fit, predict, the model-file scorer) is cut at its first ``max_bytes`` UTF-8
    bytes, as a file, a TSV row, ``predict --lines`` and ``serve`` cut it (before: a str was
    never cut, so the library and ``predict --lines`` gave different probabilities)."""
    import io

    import numpy as np

    import textnb
    from textnb.cli.commands import main
    from textnb import MultinomialNB, TextClassifier

    head_spam, head_ham = "win cash prize now ", "lunch at noon today "
    tail = "é" * 10 + " lunch noon " * 50  # (a multi-byte character across the cut)
    docs = [head_spam + tail, head_ham + "win cash prize " * 50] * 10
    y = ["spam", "ham"] * 10
    clf = TextClassifier(model=MultinomialNB(), max_bytes=24).fit(docs, y)
    cut = [d.encode()[:24].decode("utf-8", "ignore") for d in docs]
    plain = TextClassifier(model=MultinomialNB()).fit(cut, y)
    assert clf.vectorizer_.get_feature_names_out().tolist() == plain.vectorizer_.get_feature_names_out().tolist()
    uncut = TextClassifier(model=MultinomialNB()).fit(docs, y).vectorizer_.get_feature_names_out().tolist()
    assert uncut != clf.vectorizer_.get_feature_names_out().tolist() and clf.predict(docs[:2]).tolist() == ["spam", "ham"]
    path = tmp_path / "m.tnb"
    clf.save(path)
    lines = tmp_path / "lines.txt"
    lines.write_text("\n".join(docs[:2]) + "\n", encoding="utf-8")
    out = io.StringIO()
    assert main(["predict", str(path), "--lines", str(lines), "--proba"], stdout=out, stderr=io.StringIO()) == 0
    for scored in (clf.predict_proba(docs[:2]), textnb.load(path).predict_proba(docs[:2])):
        assert np.allclose(scored, plain.predict_proba(cut[:2]), rtol=0, atol=1e-12)
    printed = [dict(cell.split("=") for cell in line.split("\t")[2:]) for line in out.getvalue().splitlines()]
    expected = clf.predict_proba(docs[:2])
    assert np.allclose([[float(row["ham"]), float(row["spam"])] for row in printed], expected, rtol=1e-5, atol=0)


def test_a_binary_document_given_as_bytes_is_one_short_line(tmp_path):
    """``TextClassifier.predict([bytes])`` of a binary document: one line of at most a few
    hundred characters showing the bytes' start (*was*: the repr of the whole document, 400,037
    characters for 100,000 NUL bytes), a UTF-16 one called so with the fix, as a file is."""
    from pathlib import Path

    from textnb.core.errors import InputError

    clf = TextClassifier().fit(["cheap pills now", "lunch at noon", "cheap offer", "meeting at noon"],
                               ["spam", "ham", "spam", "ham"])
    wide = "cheap pills now\n".encode("utf-16")
    (tmp_path / "w.txt").write_bytes(wide)
    for doc, says in [(b"\x00" * 100_000, "binary file, not a text document"),
                      (wide, "UTF-16 text; textnb reads UTF-8, Windows-1252 or Latin-1"),
                      (Path(tmp_path / "w.txt"), "UTF-16 text; textnb reads UTF-8, Windows-1252 or Latin-1")]:
        for method in (clf.predict, clf.predict_proba, clf.transform):
            with pytest.raises(InputError) as info:
                method([doc])
            message = str(info.value)
            assert says in message and "\n" not in message and len(message) < 250, message


def test_a_column_vector_of_labels_is_taken_with_scikit_learns_warning():
    """Found by a user trial: y of shape (n, 1) was refused, where scikit-learn's estimators
    (and textnb's other ones) ravel it with a DataConversionWarning."""
    from sklearn.exceptions import DataConversionWarning

    docs = ["free cash", "noon lunch"] * 3
    y = np.array(["spam", "ham"] * 3)
    with pytest.warns(DataConversionWarning):
        column = TextClassifier(model=MultinomialNB()).fit(docs, y.reshape(-1, 1))
    flat = TextClassifier(model=MultinomialNB()).fit(docs, y)
    assert_allclose(column.predict_proba(docs), flat.predict_proba(docs))
    with pytest.raises(ValueError, match="one label per document"):
        TextClassifier().fit(docs, np.stack([y, y], axis=1))


def test_a_term_holding_a_lone_surrogate_is_a_data_error_at_save_and_writes_no_file(tmp_path):
    """Documents given as str may hold a lone surrogate (``"x\\ud800y"``: no character); a
    tokenizer that keeps it in a term (``token_pattern=r"\\S+"``) makes a term no model file
    holds (its vocabulary is UTF-8): ``save`` raises DataError naming the term and writes
    nothing (*was*: Python's UnicodeEncodeError); the default tokenizer leaves it out."""
    from textnb.core.errors import DataError

    docs, y = ["x\ud800y good", "bad thing", "good y"], ["a", "b", "a"]
    clf = textnb.TextClassifier(vectorizer=textnb.Vectorizer(token_pattern=r"\S+")).fit(docs, y)
    with pytest.raises(DataError, match=r"the term 'x\\ud800y': '\\ud800' at character 1 is a lone surrogate"):
        clf.save(tmp_path / "m.tnb")
    assert list(tmp_path.iterdir()) == []
    textnb.TextClassifier().fit(docs, y).save(tmp_path / "m.tnb")
    assert textnb.load(tmp_path / "m.tnb").predict(["x\ud800y good"])[0] == "a"


def test_predict_joint_log_proba_is_offered_only_where_the_model_has_it(tmp_path):
    """As a scikit-learn Pipeline ending in a model without the method: ``hasattr`` is
    False for a calibrated or multi-label model (it was True, and the call raised the
    inner model's AttributeError), True for a count model, before and after fit, and
    through a model file."""
    from textnb import CalibratedNB

    docs = ["cheap pills now", "meeting at noon", "win cheap money", "lunch at noon today"] * 3
    y = ["spam", "ham", "spam", "ham"] * 3
    plain = TextClassifier(model=MultinomialNB())
    calibrated = TextClassifier(model=CalibratedNB(MultinomialNB(), cv=2))
    assert hasattr(plain, "predict_joint_log_proba") and hasattr(TextClassifier(), "predict_joint_log_proba")
    assert not hasattr(calibrated, "predict_joint_log_proba")
    plain.fit(docs, y)
    calibrated.fit(docs, y)
    assert plain.predict_joint_log_proba(docs[:2]).shape == (2, 2)
    assert not hasattr(calibrated, "predict_joint_log_proba")
    calibrated.save(tmp_path / "c.tnb")
    assert not hasattr(textnb.load(tmp_path / "c.tnb"), "predict_joint_log_proba")
    assert calibrated.predict_proba(docs[:2]).shape == (2, 2)
