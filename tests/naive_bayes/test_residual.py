"""DiscriminativeNB's residual logistic layer (``residual``, :func:`textnb.core.dfe.fit_residual`):
logistic regression centred on the naive Bayes model, fitted on the calibration's held-out scores."""

import copy
import os

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss

from textnb import TextClassifier, load
from textnb.core import dfe
from textnb.core.logspace import log_proba_from_jll
from textnb.naive_bayes.discriminative import DiscriminativeNB
from textnb.text.scorer import scorer_from_file


def _softmax(Z):
    return np.exp(log_proba_from_jll(Z))


def test_minimize_lbfgs_finds_the_minimum_of_a_convex_function():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(40, 30))
    H = A.T @ A + np.eye(30)  # positive definite
    b = rng.normal(size=30)

    def fun(x):
        return 0.5 * x @ H @ x - b @ x + np.sum(np.log1p(np.exp(x))), H @ x - b + 1 / (1 + np.exp(-x))

    x = dfe.minimize_lbfgs(fun, np.zeros(30), max_iterations=500, tolerance=1e-14)
    assert np.abs(fun(x)[1]).max() < 1e-5
    assert np.array_equal(x, dfe.minimize_lbfgs(fun, np.zeros(30), max_iterations=500, tolerance=1e-14))


def test_a_residual_over_flat_scores_is_multinomial_logistic_regression():
    """With offsets that say nothing (all zero), the residual is scikit-learn's multinomial
    LogisticRegression with C = 1 / strength (the bias not penalised): the same probabilities."""
    rng = np.random.default_rng(1)
    n, d, k = 1500, 40, 3
    X = sp.random(n, d, density=0.2, format="csr", random_state=2, data_rvs=lambda m: rng.random(m))
    truth = rng.normal(size=(d, k)) * 2
    y = np.array([rng.choice(k, p=p) for p in _softmax(np.asarray(X @ truth))])
    fold = np.arange(n) % 5
    tolerance, iterations = dfe.RESIDUAL_TOLERANCE, dfe.RESIDUAL_ITERATIONS
    try:  # (to the last digits: the defaults stop at a relative decrease of 1e-6)
        dfe.RESIDUAL_TOLERANCE, dfe.RESIDUAL_ITERATIONS = 1e-15, 5000
        V, c, strength = dfe.fit_residual(X, np.zeros((n, k)), y, None, fold, strengths=(2.0,))
    finally:
        dfe.RESIDUAL_TOLERANCE, dfe.RESIDUAL_ITERATIONS = tolerance, iterations
    assert strength == 2.0 and V.shape == (k, d) and c.shape == (k,)
    ours = _softmax(np.asarray(X @ V.T) + c)
    lr = LogisticRegression(C=1 / strength, tol=1e-12, max_iter=10_000).fit(X, y)
    assert np.abs(ours - lr.predict_proba(X)).max() < 1e-5


def test_two_classes_are_binary_logistic_regression():
    """Two classes are fitted as one weight vector (``V = [-u/2, u/2]``, half the work):
    with offsets that say nothing, scikit-learn's binary LogisticRegression, whose
    penalty ``|w|^2 / (2 C)`` on the log-odds' weights ``w = u`` is the residual's
    ``strength / 2 * |V|^2 = strength / 4 * |u|^2``: C = 2 / strength."""
    rng = np.random.default_rng(4)
    n, d = 1500, 40
    X = sp.random(n, d, density=0.2, format="csr", random_state=5, data_rvs=lambda m: rng.random(m))
    w = rng.normal(size=d) * 2
    y = (rng.random(n) < 1 / (1 + np.exp(-(X @ w - 1.0)))).astype(int)
    tolerance, iterations = dfe.RESIDUAL_TOLERANCE, dfe.RESIDUAL_ITERATIONS
    try:
        dfe.RESIDUAL_TOLERANCE, dfe.RESIDUAL_ITERATIONS = 1e-15, 5000
        V, c, strength = dfe.fit_residual(X, np.zeros((n, 2)), y, None, np.arange(n) % 5, strengths=(2.0,))
    finally:
        dfe.RESIDUAL_TOLERANCE, dfe.RESIDUAL_ITERATIONS = tolerance, iterations
    np.testing.assert_allclose(V[0], -V[1])
    np.testing.assert_allclose(c[0], -c[1])
    lr = LogisticRegression(C=2 / strength, tol=1e-12, max_iter=10_000).fit(X, y)
    assert np.abs(_softmax(np.asarray(X @ V.T) + c) - lr.predict_proba(X)).max() < 1e-5


@pytest.mark.parametrize("k", [2, 3])
def test_threads_give_the_same_floats_and_blas_runs_one_thread(k, monkeypatch):
    """The choice's folds side by side and the final fit's products in halves (a thread
    pool) give the residual of one thread, to the last bit; the fit runs with one BLAS
    thread (OpenBLAS's threads, woken for each short dot product, spin: a library fit on a
    busy machine took 20 times the CPU time)."""
    from threadpoolctl import threadpool_info, threadpool_limits

    rng = np.random.default_rng(6)
    n, d = 1200, 50
    X = sp.random(n, d, density=0.2, format="csr", random_state=7, data_rvs=lambda m: rng.random(m))
    S = np.asarray(X @ rng.normal(size=(d, k))) * 2
    y = np.array([rng.choice(k, p=p) for p in _softmax(S)])
    O = 0.3 * S + rng.normal(size=(n, k))  # (offsets that know a little: the layer helps)
    fold = np.arange(n) % 5
    fit = dfe._fit_residual
    seen = []

    def watched(*args):
        seen.extend(lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas")
        return fit(*args)

    monkeypatch.setattr(dfe, "_fit_residual", watched)
    with threadpool_limits(limits=2, user_api="blas"):  # (the tests' process asks for one: conftest)
        outside = {lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}
        alone = dfe.fit_residual(X, O, y, None, fold, strengths=(3.0, 1.0, 0.3))
        with dfe.threads(2) as pool:
            both = dfe.fit_residual(X, O, y, None, fold, strengths=(3.0, 1.0, 0.3), pool=pool)
    assert alone is not None and alone[2] == both[2]
    assert np.array_equal(alone[0], both[0]) and np.array_equal(alone[1], both[1])
    assert seen and set(seen) == {1}
    assert outside == {2} or os.cpu_count() < 2  # (else the check above would say nothing)


def test_the_strength_is_chosen_by_held_out_loss_and_none_when_nothing_helps():
    rng = np.random.default_rng(3)
    n, d = 1200, 30
    X = sp.random(n, d, density=0.3, format="csr", random_state=4)
    y = rng.integers(0, 2, n)  # labels unrelated to the features
    O = np.zeros((n, 2))
    assert dfe.fit_residual(X, O, y, None, np.arange(n) % 5) is None  # nothing to learn: no residual
    assert dfe.fit_residual(X[:900], O[:900], y[:900], None, np.arange(900) % 5, strengths=(1e-3,)) is None
    # fewer than RESIDUAL_MIN_DOCUMENTS documents: none, whatever the labels
    signal = (np.asarray(X[:, 0].todense()).ravel() > 0).astype(int)
    assert dfe.fit_residual(X[:900], O[:900], signal[:900], None, np.arange(900) % 5) is None
    fitted = dfe.fit_residual(X, O, signal, None, np.arange(n) % 5)
    assert fitted is not None and fitted[2] in dfe.RESIDUAL_STRENGTHS
    # a pass over the documents above the budget: none with budget, one without
    small = dfe.RESIDUAL_WORK
    try:
        dfe.RESIDUAL_WORK = X.nnz
        assert dfe.fit_residual(X, O, signal, None, np.arange(n) % 5) is None
        assert dfe.fit_residual(X, O, signal, None, np.arange(n) % 5, budget=False) is not None
    finally:
        dfe.RESIDUAL_WORK = small


def test_the_residual_folds_into_the_weights(sms_counts, monkeypatch):
    Xtr, ytr, Xte, yte = sms_counts
    # (a scale fitted alone is fitted on the first folds only, dfe.SCALE_FOLDS: here on all five, as
    # the layer's model fits it, so that the two models' scales compare)
    monkeypatch.setattr(dfe, "SCALE_FOLDS", dfe.DEFAULT_FOLDS)
    model = DiscriminativeNB().fit(Xtr, ytr)
    plain = DiscriminativeNB(residual=False).fit(Xtr, ytr)
    assert model.residual_strength_ in dfe.RESIDUAL_STRENGTHS and not hasattr(plain, "residual_")
    assert model.residual_.shape == (2, Xtr.shape[1]) and np.abs(model.residual_).max() > 0
    # the same sums and scale; the weights are the plain model's plus the layer's
    assert np.array_equal(model.feature_count_, plain.feature_count_) and model.scale_ == plain.scale_
    assert np.allclose(model.coef_, plain.coef_ + model.residual_)
    assert np.allclose(model.intercept_, plain.intercept_ + model.residual_intercept_)
    # terms no held-out document has keep the naive Bayes weights
    unseen = np.flatnonzero(np.asarray(Xtr.sum(axis=0)).ravel() == 0)
    assert np.all(model.residual_[:, unseen] == 0)
    # none without calibration, on few documents, or when asked for none
    assert not hasattr(DiscriminativeNB(calibration=None).fit(Xtr, ytr), "residual_")
    assert not hasattr(DiscriminativeNB().fit(Xtr[:800], ytr[:800]), "residual_")
    assert DiscriminativeNB().fit(Xtr, ytr).get_params()["residual"] == "auto"


def test_the_complement_models_layer_weighs_presence(sms_counts, monkeypatch):
    """The complement model's features are ``log(1 + tf)`` over the row's length; its layer is
    fitted over the terms' presence (NBSVM's binarised features, :func:`dfe.layer_features`),
    kept apart from its weights (``residual_presence_``) and added to its scores."""
    monkeypatch.setattr(dfe, "SCALE_FOLDS", dfe.DEFAULT_FOLDS)  # (the plain model's scale on all five folds)
    from textnb.naive_bayes.kernels import form_log_likelihood

    Xtr, ytr, Xte, yte = sms_counts
    model = DiscriminativeNB(event_model="complement").fit(Xtr, ytr)
    plain = DiscriminativeNB(event_model="complement", residual=False).fit(Xtr, ytr)
    assert not hasattr(model, "residual_") and model.residual_presence_.shape == (2, Xtr.shape[1])
    assert model.get_params()["residual"] == "auto" and model.residual_strength_ in dfe.RESIDUAL_STRENGTHS
    # the naive Bayes weights are the plain model's; the layer's bias is in the intercept
    assert np.array_equal(model.coef_, plain.coef_)
    assert np.allclose(model.intercept_, plain.intercept_ + model.residual_intercept_)
    # the score: the plain model's, plus the layer's weights of the terms present, whatever their count
    # (a message with no known term gets the class prior, as without the layer)
    Xte = Xte[np.flatnonzero(np.diff(Xte.indptr))]
    present = (Xte != 0).astype(np.float64)
    want = plain.predict_joint_log_proba(Xte) + present @ model.residual_presence_.T + model.residual_intercept_
    assert np.allclose(model.predict_joint_log_proba(Xte), want)
    twice = Xte.copy()
    twice.data *= 2  # the same terms, twice as often: the layer's part of the score does not move
    assert np.allclose(model.predict_joint_log_proba(twice) - plain.predict_joint_log_proba(twice),
                       want - plain.predict_joint_log_proba(Xte))
    yte = yte[np.flatnonzero(np.diff(sms_counts[2].indptr))]
    # the model's linear form says the same (a document with no known term: the class prior)
    form = model.linear_form()
    assert np.array_equal(form.presence, model.residual_presence_)
    assert np.allclose(form_log_likelihood(form, model._features(Xte), Xte), model.predict_joint_log_proba(Xte))
    # the layer is the one fitted over the presence of the held-out documents: refitted by
    # hand on presence it gives the same weights (the fit sees no count)
    seen = []
    real = dfe.fit_residual

    def spy(T, *args, **kwargs):
        seen.append(T.copy())
        return real(T, *args, **kwargs)

    dfe.fit_residual = spy
    try:
        again = DiscriminativeNB(event_model="complement").fit(Xtr, ytr)
    finally:
        dfe.fit_residual = real
    assert len(seen) == 1 and np.all(seen[0].data == 1.0)
    assert np.array_equal(again.residual_presence_, model.residual_presence_)
    assert (model.predict(Xte) == yte).mean() > 0.98


def test_merge_averages_each_kind_of_layer_apart():
    """A layer folded into the weights (``residual_``: a file of before, or the Bernoulli model)
    and one over presence are averaged each on its own; a side without one counts as zeros."""
    from textnb.naive_bayes.kernels import merge_residuals

    a = {"classes_": np.array(["x", "y"]), "n_features_in_": 3, "class_documents_": np.array([1.0, 2.0]),
         "residual_": np.arange(6.0).reshape(2, 3), "residual_intercept_": np.array([1.0, -1.0])}
    b = {"classes_": np.array(["y", "z"]), "n_features_in_": 2, "class_documents_": np.array([3.0, 3.0]),
         "residual_presence_": np.ones((2, 2)), "residual_intercept_": np.array([2.0, 4.0])}
    merged = {"classes_": np.array(["x", "y", "z"]), "n_features_in_": 4}
    out = merge_residuals(a, b, merged, columns=[np.array([0, 1, 2]), np.array([1, 3])])
    assert np.allclose(out["residual_"], [[0, 1 / 3, 2 / 3, 0], [1, 4 / 3, 5 / 3, 0], [0, 0, 0, 0]])
    assert np.allclose(out["residual_presence_"], [[0, 0, 0, 0], [0, 2 / 3, 0, 2 / 3], [0, 2 / 3, 0, 2 / 3]])
    assert np.allclose(out["residual_intercept_"], [1 / 3, -1 / 3 + 4 / 3, 8 / 3])
    assert merge_residuals({k: v for k, v in a.items() if "residual" not in k},
                           {k: v for k, v in b.items() if "residual" not in k}, merged) == {}


def test_the_model_file_and_the_scorer_carry_the_residual_and_its_lower_loss(sms, tmp_path):
    docs, y = sms
    clf = TextClassifier().fit(docs[:4000], y[:4000])
    plain = TextClassifier(model=DiscriminativeNB(residual=False)).fit(docs[:4000], y[:4000])
    assert hasattr(clf.model_, "residual_") and not hasattr(plain.model_, "residual_")
    # the default's features (words and bigrams: short texts): the held-out loss lower,
    # the accuracy within a message (these 1,574 texts: 0.9867 against 0.9873)
    loss = log_loss(y[4000:], clf.predict_proba(docs[4000:]), labels=clf.classes_)
    assert loss < log_loss(y[4000:], plain.predict_proba(docs[4000:]), labels=clf.classes_)
    assert (clf.predict(docs[4000:]) == y[4000:]).sum() >= (plain.predict(docs[4000:]) == y[4000:]).sum() - 1
    clf.save(tmp_path / "m.tnb")
    back = load(tmp_path / "m.tnb")
    assert np.array_equal(back.model_.residual_, clf.model_.residual_)
    assert back.model_.residual_strength_ == clf.model_.residual_strength_
    scorer = scorer_from_file(tmp_path / "m.tnb")  # textnb predict's and the daemon's reader
    for part in (docs[4000:4010], docs[4000:]):
        assert np.array_equal(scorer.predict_proba(part), back.predict_proba(part))
        assert np.array_equal(back.predict_proba(part), clf.predict_proba(part))
    # the complement model's layer over presence, through the file and the scorer alike
    comp = TextClassifier(model=DiscriminativeNB(event_model="complement")).fit(docs[:4000], y[:4000])
    assert hasattr(comp.model_, "residual_presence_")
    comp.save(tmp_path / "c.tnb")
    back = load(tmp_path / "c.tnb")
    assert np.array_equal(back.model_.residual_presence_, comp.model_.residual_presence_)
    scorer = scorer_from_file(tmp_path / "c.tnb")
    for part in (docs[4000:4010], docs[4000:]):
        assert np.array_equal(scorer.predict_proba(part), comp.predict_proba(part))
        assert np.array_equal(back.predict_proba(part), comp.predict_proba(part))
    # `textnb inspect` says what each layer weighs (and its --json, "residual_over")
    import io
    import json

    from textnb.cli.commands import main

    for path, over, words in ((tmp_path / "m.tnb", "features", "(folded into the weights)"),
                              (tmp_path / "c.tnb", "presence", "and the terms' presence")):
        text, data = io.StringIO(), io.StringIO()
        assert main(["inspect", str(path)], stdout=text, stderr=io.StringIO()) == 0
        assert main(["inspect", str(path), "--json"], stdout=data, stderr=io.StringIO()) == 0
        assert words in next(line for line in text.getvalue().splitlines() if line.startswith("residual:"))
        assert json.loads(data.getvalue())["residual_over"] == over


def test_partial_fit_refits_the_residual_and_merge_averages_it(sms_counts):
    Xtr, ytr, Xte, yte = sms_counts
    classes = np.unique(ytr)
    grown = DiscriminativeNB().partial_fit(Xtr[:2000], ytr[:2000], classes=classes)
    first = grown.residual_.copy()
    grown.partial_fit(Xtr[2000:], ytr[2000:])
    assert hasattr(grown, "residual_") and not np.array_equal(grown.residual_, first)
    small = DiscriminativeNB().partial_fit(Xtr[:300], ytr[:300], classes=classes)
    assert not hasattr(small, "residual_")
    small.partial_fit(Xtr[:2000], ytr[:2000])  # a batch that fits one
    assert hasattr(small, "residual_")
    a = DiscriminativeNB().fit(Xtr[:2000], ytr[:2000])
    b = DiscriminativeNB().fit(Xtr[2000:], ytr[2000:])
    plain = DiscriminativeNB(residual=False).fit(Xtr[2000:], ytr[2000:])
    n_a, n_b = a.class_documents_.sum(), b.class_documents_.sum()
    want = (n_a * a.residual_ + n_b * b.residual_) / (n_a + n_b)
    merged = copy.deepcopy(a).merge(b)  # (merge adds into the model it is called on)
    assert np.allclose(merged.residual_, want) and not hasattr(merged, "residual_strength_")
    # a side without a layer counts as zeros
    assert np.allclose(copy.deepcopy(a).merge(plain).residual_, n_a * a.residual_ / (n_a + n_b))
    assert (merged.predict(Xte) == yte).mean() > 0.97


@pytest.mark.slow
def test_short_questions_get_the_log_loss_of_logistic_regression(shared_corpora):
    """TREC QC (questions, six classes): the default's log-loss was 0.490 against tf-idf +
    LogisticRegression's 0.381 (issue 28); the residual takes it below."""
    from textnb import open_corpus
    from textnb.io.corpus import read_document

    root = shared_corpora("trec_qc")
    train, test = open_corpus(root), open_corpus(root).test
    docs = [read_document(p) for p in train.documents]
    test_docs = [read_document(p) for p in test.documents]
    clf = TextClassifier().fit(docs, train.labels)
    plain = TextClassifier(model=DiscriminativeNB(residual=False)).fit(docs, train.labels)
    assert clf.model_.residual_strength_ in dfe.RESIDUAL_STRENGTHS
    losses = [log_loss(test.labels, m.predict_proba(test_docs), labels=m.classes_) for m in (clf, plain)]
    assert losses[0] < 0.381 < losses[1]
    assert (clf.predict(test_docs) == np.asarray(test.labels)).mean() >= \
        (plain.predict(test_docs) == np.asarray(test.labels)).mean()


def test_a_model_file_without_the_layer_loads_and_scores_as_before(sms_counts, tmp_path):
    """A file of a DiscriminativeNB written before the layer holds no ``residual_``: it
    loads and scores as the model without one; ``partial_fit`` may fit one on its batch."""
    Xtr, ytr, Xte, _ = sms_counts
    old = DiscriminativeNB().fit(Xtr[:2000], ytr[:2000])
    for name in ("residual_", "residual_intercept_", "residual_strength_"):
        delattr(old, name)  # (as a file of before: the kernel writes what the model has)
    old._update()
    old.save(tmp_path / "old.tnb")
    back = load(tmp_path / "old.tnb")
    plain = DiscriminativeNB(residual=False).fit(Xtr[:2000], ytr[:2000])
    assert not hasattr(back, "residual_") and np.array_equal(back.coef_, plain.coef_)
    assert np.array_equal(back.predict_proba(Xte), plain.predict_proba(Xte))
    back.partial_fit(Xtr[2000:], ytr[2000:])
    assert hasattr(back, "residual_")
