import json
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.metrics import f1_score
from sklearn.pipeline import Pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from textnb import BernoulliNB, MultinomialNB, Vectorizer, load
from textnb.core import dfe
from textnb.core.errors import InputError
from textnb.core.model_io import save
from textnb.meta.multilabel import (MultiLabelNB, break_even_point, cross_validate_multilabel,
                                    evaluate_multilabel_split, multilabel_report, read_label_file,
                                    read_multilabel_corpus)
from textnb.naive_bayes.complement import ComplementNB
from textnb.naive_bayes.discriminative import DiscriminativeNB

TOPICS = {
    "grain": "wheat corn harvest crop bushels grain",
    "oil": "crude barrel opec oil refinery petroleum",
    "money": "dollar yen currency exchange rate bank",
}


def synthetic_corpus(n=240, seed=0):
    """Documents drawn from the words of 1-2 topics (and some noise words)."""
    rng = np.random.RandomState(seed)
    names = sorted(TOPICS)
    noise = "the of and said reuters market week year".split()
    texts, labels = [], []
    for _ in range(n):
        k = 1 if rng.uniform() < 0.6 else 2
        labs = sorted(rng.choice(names, k, replace=False).tolist())
        words = [w for lab in labs for w in rng.choice(TOPICS[lab].split(), 6).tolist()]
        words += rng.choice(noise, 8).tolist()
        rng.shuffle(words)
        texts.append(" ".join(words))
        labels.append(tuple(labs))
    return texts, labels


def _expected_failures(est):
    out = {"check_decision_proba_consistency": "the check feeds negative values; naive Bayes needs counts"}
    if est.min_labels:
        out["check_classifier_multioutput"] = (
            "at least one label per document (min_labels) is a decision per document: decision_function "
            "is then not a per-label monotone map of predict_proba")
    return out


# the default is checked with every export (tests/test_sklearn_cases.py); here the variants
@pytest.mark.slow
@parametrize_with_checks([MultiLabelNB(threshold=0.0, min_labels=0),
                          MultiLabelNB(method="ovr", threshold=0.0, min_labels=0)],
                         expected_failed_checks=_expected_failures)
def test_sklearn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(estimator)


def test_one_vs_rest_with_thresholds_on_a_synthetic_corpus(tmp_path):
    texts, labels = synthetic_corpus()
    v = Vectorizer()
    X = v.fit_transform(texts[:160])
    model = MultiLabelNB().fit(X, labels[:160])
    assert model.classes_.tolist() == ["grain", "money", "oil"]
    Xt = v.transform(texts[160:])
    Y_true = model.indicator(labels[160:])
    report = multilabel_report(Y_true, model.predict(Xt), model.classes_, model.decision_function(Xt))
    assert report["micro_f1"] > 0.9 and report["macro_f1"] > 0.9
    assert report["micro_bep"] > 0.9 and report["macro_bep"] > 0.9
    assert set(model.predict_labels(Xt[:5])) <= {tuple(sorted(s)) for s in
                                                   [("grain",), ("oil",), ("money",), ("grain", "oil"),
                                                    ("grain", "money"), ("money", "oil"), ()]}
    model.save(tmp_path / "m.tnb")
    back = load(tmp_path / "m.tnb")
    assert_allclose(back.predict_log_odds(Xt), model.predict_log_odds(Xt))
    assert np.array_equal(back.predict(Xt), model.predict(Xt))


def test_report_matches_sklearn_micro_and_macro():
    rng = np.random.RandomState(1)
    T = rng.randint(0, 2, (50, 4))
    P = rng.randint(0, 2, (50, 4))
    r = multilabel_report(T, P, list("abcd"))
    assert r["micro_f1"] == pytest.approx(f1_score(T, P, average="micro"))
    assert r["macro_f1"] == pytest.approx(f1_score(T, P, average="macro"))


def test_break_even_point_closed_form():
    # ranking: + - + - ; R = 2 -> top 2 hold one positive: precision = recall = 1/2
    assert break_even_point([4, 3, 2, 1], [1, 0, 1, 0]) == 0.5
    assert break_even_point([4, 3, 2, 1], [1, 1, 0, 0]) == 1.0
    assert np.isnan(break_even_point([1, 2], [0, 0]))


def test_break_even_point_does_not_depend_on_the_order_of_tied_scores():
    """The tie group the cut goes through gives its mean share (it ranked tied documents in
    their order: a label scored alike everywhere got 1 when its documents came first)."""
    assert break_even_point([0.0] * 10, [1] * 5 + [0] * 5) == break_even_point([0.0] * 10, [0] * 5 + [1] * 5) == 0.5
    assert break_even_point([3, 1, 1, 1, 0], [1, 1, 0, 0, 0]) == pytest.approx((1 + 1 / 3) / 2)
    rng = np.random.default_rng(0)
    for _ in range(100):
        scores, positive = rng.integers(0, 4, 30).astype(float), rng.integers(0, 2, 30)
        order = rng.permutation(30)
        assert break_even_point(scores, positive) == pytest.approx(break_even_point(scores[order], positive[order]))


def test_an_rcut_rank_not_below_the_labels_with_documents_is_refused_before_fitting(monkeypatch):
    # rank 3 of 3 labels gave every document every label, the rare ones included (a rank
    # above the labels too); now a one-line ParameterError at fit, before any model is fitted
    from textnb.core.errors import ParameterError
    from textnb.meta import multilabel_training
    from textnb.naive_bayes.discrete import _BaseCountNB

    texts, labels = synthetic_corpus(60, seed=1)
    X = Vectorizer().fit_transform(texts)
    assert len({lab for labs in labels for lab in labs}) == 3
    fitted = []
    monkeypatch.setattr(_BaseCountNB, "fit", lambda self, *a, **k: fitted.append(self))
    for rank in (3, 4):
        with pytest.raises(ParameterError, match=f"^rank={rank}: only 3 labels have training documents") as e:
            MultiLabelNB(MultinomialNB(), threshold="rcut", rank=rank).fit(X, labels)
        assert "\n" not in str(e.value) and "at most 2" in str(e.value)
    # a label without documents (a column of zeros) does not count: 3 of the 4 have some
    Y = np.array([[lab in labs for lab in ("grain", "money", "oil", "none")] for labs in labels], dtype=int)
    with pytest.raises(ParameterError, match="^rank=3: only 3 labels"):
        MultiLabelNB(MultinomialNB(), threshold="rcut", rank=3).fit(X, Y)
    assert fitted == []
    # the command line's trainer, the same
    with pytest.raises(ParameterError, match="^rank=3: only 3 labels"):
        multilabel_training.fit(X.tocsr(), [f"t{i}" for i in range(X.shape[1])], labels,
                                model=("MultinomialNB", {}), multilabel={"threshold": "rcut", "rank": 3})
    monkeypatch.undo()
    assert MultiLabelNB(MultinomialNB(), threshold="rcut", rank=2).fit(X, Y).predict(X)[:, 3].sum() == 0


def test_label_with_no_or_every_document():
    X = np.array([[1, 0], [0, 1], [1, 1]])
    m = MultiLabelNB().fit(X, np.array([[1, 0, 1], [1, 0, 0], [1, 0, 1]]))
    assert m.predict(X)[:, 0].tolist() == [1, 1, 1] and m.predict(X)[:, 1].tolist() == [0, 0, 0]


def test_read_label_file_and_folder_layouts(tmp_path):
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "d1.txt").write_text("wheat corn")
    (root / "d2.txt").write_text("crude oil")
    (root / "d3.txt").write_text("nothing")
    labels = tmp_path / "labels.tsv"
    labels.write_text("# id\tlabels\nd1.txt\tgrain, wheat\nd2\toil\nd3.txt\t\n")
    c = read_multilabel_corpus(root, label_file=labels)
    assert c.ids == ["d1.txt", "d2", "d3.txt"]
    assert c.labels == [("grain", "wheat"), ("oil",), ()]
    assert c.label_names == ["grain", "oil", "wheat"]

    folders = tmp_path / "folders"
    for lab, docs in {"grain": ["a.txt", "b.txt"], "wheat": ["a.txt"], "oil": ["c.txt"]}.items():
        (folders / lab).mkdir(parents=True)
        for d in docs:
            (folders / lab / d).write_text(f"text of {d}")
    f = read_multilabel_corpus(folders)
    assert f.ids == ["a.txt", "b.txt", "c.txt"]
    assert f.labels == [("grain", "wheat"), ("grain",), ("oil",)]
    assert f.label_counts() == {"grain": 2, "oil": 1, "wheat": 1}

    assert all(d.read_text().startswith("text of") for d in f.documents)


def test_label_file_errors(tmp_path):
    bad = tmp_path / "bad.tsv"
    bad.write_text("d1.txt grain\n")
    with pytest.raises(InputError, match=r"bad.tsv:1: .*no TAB"):
        read_label_file(bad)
    bad.write_text("d1\tgrain\nd1\toil\n")
    with pytest.raises(InputError, match=r"bad.tsv:2: .*listed twice"):
        read_label_file(bad)
    root = tmp_path / "c"
    root.mkdir()
    bad.write_text("missing.txt\tgrain\n")
    with pytest.raises(InputError, match="lists none of the documents"):
        read_multilabel_corpus(root, label_file=bad)


def test_cross_validate_multilabel_report_keys():
    texts, labels = synthetic_corpus(150, seed=2)
    from textnb.evaluation.evaluate import vectorize_all

    X, _ = vectorize_all(texts, Vectorizer())
    r = cross_validate_multilabel(X, labels, cv=5, seed=0)
    for key in ("micro_f1", "macro_f1", "micro_bep", "macro_bep", "subset_accuracy", "hamming_loss"):
        assert 0.0 <= r[key] <= 1.0
    assert r["micro_f1"] > 0.85 and set(r["per_label"]) == {"grain", "money", "oil"}
    with pytest.raises(InputError):
        cross_validate_multilabel(X, ["a"] * X.shape[0], cv=5)


# -- the scores: one implementation, two paths ------------------------------------------------
@pytest.mark.parametrize("base", [MultinomialNB(), MultinomialNB(alpha=0.1), BernoulliNB(), ComplementNB()])
def test_ovr_count_models_from_one_product_equal_fitting_each_label(base):
    texts, labels = synthetic_corpus(120, seed=3)
    X = Vectorizer().fit_transform(texts)
    fast = MultiLabelNB(base, method="ovr", threshold=0.0, min_labels=0).fit(X, labels)
    assert fast.estimators_[0].class_count_.tolist() != [0, 0]
    Y = fast.indicator(labels)
    for j, est in enumerate(fast.estimators_):
        one = clone(base).fit(X, Y[:, j])
        assert_allclose(est.feature_count_, one.feature_count_)
        assert_allclose(est.predict_log_proba(X), one.predict_log_proba(X), rtol=1e-10, atol=1e-10)
    slow = MultiLabelNB(Pipeline([("nb", clone(base))]), method="ovr", threshold=0.0, min_labels=0).fit(X, labels)
    assert_allclose(fast.predict_log_odds(X), slow.predict_log_odds(X), rtol=1e-9, atol=1e-9)


def test_copy_method_is_one_model_over_the_copied_documents():
    X = np.array([[3, 0, 1], [0, 2, 1], [2, 2, 0], [0, 0, 4]])
    Y = [("a",), ("b",), ("a", "b"), ()]
    m = MultiLabelNB(MultinomialNB(), threshold=0.0, min_labels=0).fit(X, Y)
    # rows: doc0 as a, doc1 as b, doc2 as a and as b, doc3 in the "no label" class (2)
    ref = MultinomialNB().fit(X[[0, 1, 2, 2, 3]], [0, 1, 0, 1, 2])
    assert_allclose(m.estimator_.feature_count_, ref.feature_count_)
    lo = ref.predict_log_odds(X)[:, :2]
    assert_allclose(m.predict_log_odds(X), lo)


# -- the out-of-fold scores of the copy model: from the sums of one training -------------------------
def _two_folds(n, seed=0):
    return np.random.RandomState(seed).permutation(n) % 2


@pytest.mark.parametrize("event_model", ["complement", "bernoulli"])
def test_out_of_fold_scores_from_the_sums_equal_a_model_trained_without_the_fold(sms_counts, event_model):
    """Without frequency-estimate passes a model is its sums: taking a fold's documents out of
    them is the model trained on the other fold, whose vocabulary has the other fold's terms only."""
    X, y = sms_counts[0][:1500], sms_counts[1][:1500]
    fold = _two_folds(X.shape[0])
    params = dict(event_model=event_model, passes=0, calibration=None)
    lp = DiscriminativeNB(**params).fit_out_of_fold(X, y, fold)
    assert lp.shape == (X.shape[0], 2)
    for f in (0, 1):
        cols = np.flatnonzero(np.asarray(X[fold != f].sum(axis=0)).ravel())
        assert cols.size < X.shape[1]  # the held-out fold has terms of its own
        ref = DiscriminativeNB(**params).fit(X[fold != f][:, cols], y[fold != f])
        want = ref.predict_log_proba(X[fold == f][:, cols])
        assert_allclose(lp[fold == f], want, atol=2e-3 if event_model == "complement" else 1e-3)


def test_out_of_fold_scores_of_copies_are_scored_once_per_document(sms_counts):
    X, y = sms_counts[0][:600], sms_counts[1][:600]
    rows = np.repeat(np.arange(300), 2)  # each document twice, as two classes
    codes = np.where(np.arange(600) % 2, y[rows], "other")
    fold = _two_folds(300)[rows]
    est = DiscriminativeNB()
    per_document = est.fit_out_of_fold(X[rows], codes, fold, document=rows)
    per_row = DiscriminativeNB().fit_out_of_fold(X[rows], codes, fold)
    assert per_document.shape == (300, 3)
    assert_allclose(per_document, per_row[::2])
    assert_allclose(per_row[::2], per_row[1::2])
    with pytest.raises(ValueError, match="one fold"):
        DiscriminativeNB().fit_out_of_fold(X[rows], codes, np.arange(600) % 2, document=rows)
    # the scale is fitted on these held-out scores: the fitted model scores with it
    assert est.scale_ > 0
    assert_allclose(est.coef_, est.scale_ * DiscriminativeNB(calibration=None).fit(X[rows], codes).coef_,
                    rtol=1e-9)


def test_copy_model_trains_once_and_its_thresholds_are_those_of_a_training_per_fold(monkeypatch):
    texts, labels = synthetic_corpus(240, seed=2)
    X = Vectorizer().fit_transform(texts)
    trainings = []
    fit_rows = dfe.fit_rows  # every training of the model runs it
    monkeypatch.setattr(dfe, "fit_rows", lambda *a, **k: trainings.append(1) or fit_rows(*a, **k))
    base = DiscriminativeNB(event_model="complement", passes=0, calibration=None)
    from_sums = MultiLabelNB(base, threshold="scut", cv=2).fit(X, labels)
    assert len(trainings) == 1
    monkeypatch.delattr(DiscriminativeNB, "fit_out_of_fold")  # a model without it: one training per fold
    per_fold = MultiLabelNB(base, threshold="scut", cv=2).fit(X, labels)
    assert len(trainings) == 1 + 3
    assert_allclose(from_sums.thresholds_, per_fold.thresholds_, atol=1e-4)  # every term is in both folds
    assert_array_equal(from_sums.predict(X), per_fold.predict(X))


# -- the decisions ------------------------------------------------------------------------------
def test_rcut_gives_k_labels_and_min_labels_gives_at_least_one():
    texts, labels = synthetic_corpus(150, seed=4)
    X = Vectorizer().fit_transform(texts)
    for k in (1, 2):
        m = MultiLabelNB(MultinomialNB(), threshold="rcut", rank=k).fit(X, labels)
        assert (m.predict(X).sum(axis=1) == k).all() and m.rank_ == k
    auto = MultiLabelNB(MultinomialNB(), threshold="rcut").fit(X, labels)
    assert auto.rank_ in (1, 2, 3)
    # a threshold no label reaches: min_labels=1 still gives each document its best label
    never = MultiLabelNB(MultinomialNB(), threshold=1e6).fit(X, labels)
    assert (never.predict(X).sum(axis=1) == 1).all()
    assert_array_equal(never.predict(X).argmax(axis=1), never.predict_log_odds(X).argmax(axis=1))
    empty = MultiLabelNB(MultinomialNB(), threshold=1e6, min_labels=0).fit(X, labels)
    assert empty.predict(X).sum() == 0 and empty.predict_labels(X[:2]) == [(), ()]
    assert (never.decision_function(X) > 0).sum(axis=1).tolist() == [1] * X.shape[0]


def test_pcut_assigns_in_proportion_to_training_frequency():
    texts, labels = synthetic_corpus(200, seed=5)
    X = Vectorizer().fit_transform(texts)
    m = MultiLabelNB(MultinomialNB(), threshold="pcut", min_labels=0).fit(X, labels)
    P = m.predict(X)
    expected = np.round(m.pcut_rate_ * X.shape[0])
    assert_array_equal(P.sum(axis=0), expected)
    assert (m.pcut_rate_ > 0).all()


def test_scutfbr_falls_back_on_a_rare_label_that_scut_would_fire_everywhere():
    rng = np.random.RandomState(0)
    n = 300
    X = rng.poisson(1.0, (n, 20))
    X[:150, 0] += 5  # label a: learnable
    labels = [("a",) if i < 150 else ("b",) for i in range(n)]
    noise = rng.choice(n, 6, replace=False)  # label rare: 6 documents, nothing to learn it from
    labels = [labs + ("rare",) if i in noise else labs for i, labs in enumerate(labels)]
    scut = MultiLabelNB(MultinomialNB(), threshold="scut", min_labels=0).fit(X, labels)
    fbr = MultiLabelNB(MultinomialNB(), threshold="scutfbr", fbr=0.5, min_labels=0).fit(X, labels)
    j = list(fbr.classes_).index("rare")
    assert fbr.thresholds_[j] > scut.thresholds_[j]
    assert fbr.predict(X)[:, j].sum() < scut.predict(X)[:, j].sum()
    assert fbr.predict(X)[:, j].sum() <= 3
    auto = MultiLabelNB(MultinomialNB(), min_labels=0).fit(X, labels)
    assert auto.strategy_ == "scutfbr" and auto.fbr_ in (0.0, 0.1, 0.2, 0.3, 0.4, 0.5)


def test_documents_and_label_lists_through_a_pipeline(tmp_path):
    """The API a fastText ``__label__`` reader feeds: raw documents and a list of label lists."""
    texts, labels = synthetic_corpus(120, seed=6)
    model = Pipeline([("vectorizer", Vectorizer()), ("model", MultiLabelNB())])
    model.fit(texts, [list(labs) for labs in labels])
    got = model[-1].predict_labels(model[:-1].transform(texts[:20]))
    assert all(len(g) >= 1 for g in got)
    assert np.mean([set(g) == set(t) for g, t in zip(got, labels[:20])]) > 0.6
    save(model, tmp_path / "p.tnb")
    back = load(tmp_path / "p.tnb")
    assert_array_equal(back[-1].predict(back[:-1].transform(texts)), model[-1].predict(model[:-1].transform(texts)))


def test_a_text_classifier_of_multilabelnb_is_the_multi_label_pipeline(tmp_path):
    """``TextClassifier(model=MultiLabelNB()).fit(docs, Y)`` learns label sets (an indicator
    matrix or label lists) as the Pipeline of a Vectorizer and MultiLabelNB does: the same
    predictions, probabilities and score, and its model file is predicted and tested by the
    command line as that Pipeline's (it raised 'y must be one label per document; got shape
    (6, 2); for several labels per document use MultiLabelNB', naming the model it was given)."""
    from conftest import cli

    from textnb import TextClassifier

    texts, labels = synthetic_corpus(90, seed=8)
    lists = [list(labs) for labs in labels]
    indicator = np.array([[int(k in labs) for k in ("grain", "money", "oil")] for labs in labels])
    for y in (indicator, lists):
        clf = TextClassifier(model=MultiLabelNB(MultinomialNB())).fit(texts, y)
        pipe = Pipeline([("vectorizer", Vectorizer()), ("model", MultiLabelNB(MultinomialNB()))]).fit(texts, y)
        assert_array_equal(clf.classes_, pipe.classes_)
        assert_array_equal(clf.predict(texts), pipe.predict(texts))
        assert_allclose(clf.predict_proba(texts), pipe.predict_proba(texts))
        assert clf.score(texts, y) == pipe.score(texts, y) > 0.8
    clf.save(tmp_path / "c.tnb")
    assert_array_equal(load(tmp_path / "c.tnb").predict(texts), clf.predict(texts))
    (tmp_path / "q.txt").write_text("\n".join(texts[:10]) + "\n")
    rc, out, err = cli("predict", tmp_path / "c.tnb", "--lines", tmp_path / "q.txt")
    assert rc == 0, err
    expected = clf.model_.predict_labels(clf.transform(texts[:10]))
    assert [set(line.split("\t")[1].split(",")) - {""} for line in out.splitlines()] == [set(e) for e in expected]
    (tmp_path / "t.txt").write_text("".join(" ".join(f"__label__{k}" for k in labs) + f" {t}\n"
                                            for t, labs in zip(texts[:10], labels[:10])))
    assert cli("test", tmp_path / "c.tnb", tmp_path / "t.txt")[0] == 0
    with pytest.raises(ValueError, match="partial_fit needs a count model"):
        TextClassifier(model=MultiLabelNB()).partial_fit(texts, lists, classes=["grain", "money", "oil"])
    with pytest.raises(ValueError, match="MultiLabelNB takes no sample_weight"):
        TextClassifier(model=MultiLabelNB()).fit(texts, lists, sample_weight=np.ones(len(texts)))


def test_evaluate_split_reports_train_support_and_literature_keys():
    texts, labels = synthetic_corpus(200, seed=7)
    v = Vectorizer()
    Xtr, Xte = v.fit_transform(texts[:150]), v.transform(texts[150:])
    test_labels = [labs + ("unseen",) if i == 0 else labs for i, labs in enumerate(labels[150:])]
    r = evaluate_multilabel_split(Xtr, labels[:150], Xte, test_labels, MultiLabelNB(MultinomialNB()))
    for key in ("micro_f1", "macro_f1", "micro_precision", "micro_recall", "macro_precision", "macro_recall",
                "micro_bep", "hamming_loss", "subset_accuracy"):
        assert 0.0 <= r[key] <= 1.0
    assert r["n_train"] == 150 and r["n"] == 50 and r["test_labels_unseen"] == ["unseen"]
    train_counts = {lab: sum(lab in labs for labs in labels[:150]) for lab in ("grain", "money", "oil")}
    # the label training never had is a column of its own, never predicted (session 16)
    assert {k: v["train_support"] for k, v in r["per_label"].items()} == {**train_counts, "unseen": 0}
    assert r["per_label"]["unseen"]["recall"] == 0.0
    assert r["micro_f1"] > 0.8


# -- layouts ------------------------------------------------------------------------------------
def test_label_file_listing_more_documents_than_the_folder(tmp_path):
    root = tmp_path / "c"
    root.mkdir()
    for name in ("d1", "d2", "extra"):
        (root / f"{name}.txt").write_text(f"text {name}")
    labels = tmp_path / "labels.tsv"
    labels.write_text("d1\tgrain\nd2\toil,grain\nelsewhere1\toil\nelsewhere2\tgrain\n")
    c = read_multilabel_corpus(root, label_file=labels)
    assert c.ids == ["d1", "d2"] and c.labels == [("grain",), ("grain", "oil")]
    assert c.not_found == ["elsewhere1", "elsewhere2"] and c.unlisted == ["extra.txt"]
    with pytest.raises(InputError, match=r"1 file .* has no line \(first: extra.txt\); --strict"):
        read_multilabel_corpus(root, label_file=labels, strict=True)
    (root / "extra.txt").unlink()
    with pytest.raises(InputError, match=r"2 document ids with no file .*first: elsewhere1"):
        read_multilabel_corpus(root, label_file=labels, strict=True)


def test_label_file_shared_by_train_and_test_parts(tmp_path):
    root = tmp_path / "split"
    for part, names in {"train": ["a", "b", "c"], "test": ["x", "y"]}.items():
        (root / part).mkdir(parents=True)
        for name in names:
            (root / part / f"{name}.txt").write_text(f"text {name}")
    labels = root / "labels.tsv"  # inside the corpus folder, as GoEmotions ships it
    labels.write_text("a\tp\nb\tq\nc\tp,q\nx\tp\ny\tq\n")
    c = read_multilabel_corpus(root, label_file=labels)
    assert c.ids == ["a", "b", "c"] and c.test.ids == ["x", "y"]
    assert c.not_found == [] and c.unlisted == [] and c.test.labels == [("p",), ("q",)]
    only_train = read_multilabel_corpus(root, label_file=labels, test=False, strict=True)
    assert only_train.test is None and len(only_train) == 3


def test_same_name_in_label_folders_one_document_only_when_the_bytes_are_equal(tmp_path):
    root = tmp_path / "folders"
    for lab in ("grain", "wheat", "oil"):
        (root / lab).mkdir(parents=True)
    (root / "grain" / "001.txt").write_text("wheat harvest")
    (root / "wheat" / "001.txt").write_text("wheat harvest")  # the same document, two labels
    (root / "oil" / "002.txt").write_text("crude")
    c = read_multilabel_corpus(root)
    assert c.ids == ["001.txt", "002.txt"] and c.labels == [("grain", "wheat"), ("oil",)]
    (root / "oil" / "001.txt").write_text("a different text")  # another document, same name
    with pytest.raises(InputError, match=r"grain/001.txt and .*oil/001.txt: same name in two label folders "
                                         r"but different contents"):
        read_multilabel_corpus(root)
    sep = read_multilabel_corpus(root, same_name="separate")
    assert sorted(zip(sep.ids, sep.labels)) == [("002.txt", ("oil",)), ("grain/001.txt", ("grain", "wheat")),
                                                ("oil/001.txt", ("oil",))]


# -- the command line ---------------------------------------------------------------------------
def _cli(*argv):
    import io

    from textnb.cli.commands import main

    out, err = io.StringIO(), io.StringIO()
    code = main([str(a) for a in argv], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def split_corpus(tmp_path):
    """train/ and test/ parts of a three-topic corpus, one labels.tsv for both (and for a dev
    part that is not there)."""
    texts, labels = synthetic_corpus(160, seed=8)
    root = tmp_path / "split"
    lines = []
    for i, (text, labs) in enumerate(zip(texts, labels)):
        part = "train" if i < 120 else "test"
        (root / part).mkdir(parents=True, exist_ok=True)
        (root / part / f"n{i:03d}.txt").write_text(text)
        lines.append(f"n{i:03d}\t{','.join(labs)}\n")
    lines += ["dev001\tgrain\n", "dev002\toil\n"]
    (root / "labels.tsv").write_text("".join(lines))
    return root


def test_cli_train_counts_the_label_file_ids_of_other_parts(split_corpus, tmp_path):
    import json

    code, out, err = _cli("train", split_corpus / "train", "--labels", split_corpus / "labels.tsv",
                          "-o", tmp_path / "m.tnb")
    assert code == 0 and err == "", err
    assert "read 120 documents" in out and "ignored 42 ids of" in out and "(first: n120)" in out
    code, out, _ = _cli("train", split_corpus / "train", "--labels", split_corpus / "labels.tsv",
                        "-o", tmp_path / "m.tnb", "--json")
    summary = json.loads(out)
    assert summary["not_in_folder"] == 42 and summary["unlisted"] == 0 and summary["strategy"] == "scutfbr"
    (split_corpus / "train" / "stray.txt").write_text("a file with no line")
    code, out, _ = _cli("train", split_corpus / "train", "--labels", split_corpus / "labels.tsv",
                        "-o", tmp_path / "m.tnb")
    assert code == 0 and "left out 1 file with no line" in out
    code, out, err = _cli("train", split_corpus / "train", "--labels", split_corpus / "labels.tsv",
                          "--strict", "-o", tmp_path / "s.tnb")
    assert code == 1 and err.count("\n") == 1 and "stray.txt" in err and "--strict" in err
    assert not (tmp_path / "s.tnb").exists()
    code, out, _ = _cli("predict", tmp_path / "m.tnb", split_corpus / "test" / "n120.txt")
    assert code == 0 and len(out.strip().split("\t")[1]) > 0  # at least one label


def test_cli_evaluate_trains_on_train_and_tests_on_test(split_corpus, tmp_path):
    import json

    code, out, err = _cli("evaluate", split_corpus, "--labels", split_corpus / "labels.tsv", "--json")
    assert code == 0, err
    r = json.loads(out)
    assert r["protocol"] == "train/test" and r["n_train"] == 120 and r["n"] == 40
    assert r["not_in_folder"] == 2  # the dev ids: in neither part
    for key in ("micro_f1", "macro_f1", "micro_precision", "micro_recall", "macro_precision", "macro_recall",
                "micro_bep", "macro_bep", "hamming_loss", "subset_accuracy", "labels_per_document", "per_label"):
        assert key in r
    assert set(r["per_label"]["grain"]) >= {"precision", "recall", "f1", "support", "train_support", "bep"}
    assert r["micro_f1"] > 0.8
    code, out, _ = _cli("evaluate", split_corpus, "--labels", split_corpus / "labels.tsv", "--cv", "3", "--json")
    assert code == 0 and json.loads(out)["protocol"] == "3-fold cross-validation" and json.loads(out)["n"] == 120
    code, out, _ = _cli("evaluate", split_corpus, "--labels", split_corpus / "labels.tsv", "--strategy", "rcut")
    assert code == 0 and "train/test on 120 training and 40 test documents, 3 labels" in out


def test_cli_evaluate_plot(split_corpus, tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "f1.png"
    code, out, err = _cli("evaluate", split_corpus, "--labels", split_corpus / "labels.tsv", "--plot", png)
    assert code == 0, err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert out.splitlines()[-1] == f"per-label F1 plot: {png}"  # named, as a single-label evaluate's plot


def test_cli_same_name_files_in_label_folders(tmp_path):
    root = tmp_path / "news"
    texts = {"business": ["shares profit market", "bank rate rise"], "sport": ["match goal team", "race win"]}
    for lab, docs in texts.items():
        (root / lab).mkdir(parents=True)
        for i, text in enumerate(docs):
            (root / lab / f"{i:03d}.txt").write_text(text)  # 000.txt in both folders, different texts
    code, out, err = _cli("train", root, "--multilabel", "-o", tmp_path / "m.tnb")
    assert code == 1 and err.count("\n") == 1 and "Traceback" not in err
    assert "business/000.txt" in err and "sport/000.txt" in err and "--separate-documents" in err
    code, out, err = _cli("train", root, "--multilabel", "--separate-documents", "-o", tmp_path / "m.tnb",
                          "--min-labels", "0")
    assert code == 0, err
    assert "read 4 documents" in out


def test_cli_evaluate_split_whose_test_part_the_label_file_does_not_cover(split_corpus):
    lines = [line for line in (split_corpus / "labels.tsv").read_text().splitlines()
             if not line.startswith(("n12", "n13", "n14", "n15"))]
    (split_corpus / "train_only.tsv").write_text("\n".join(lines) + "\n")
    code, out, err = _cli("evaluate", split_corpus, "--labels", split_corpus / "train_only.tsv")
    assert code == 1 and err.count("\n") == 1 and "no test documents with labels" in err
    code, out, err = _cli("evaluate", split_corpus, "--labels", split_corpus / "train_only.tsv", "--cv", "3")
    assert code == 0, err


def test_model_file_state_is_checked(tmp_path):
    from textnb.core.errors import ModelFileError

    texts, labels = synthetic_corpus(60, seed=9)
    X = Vectorizer().fit_transform(texts)
    m = MultiLabelNB(MultinomialNB(), threshold="rcut").fit(X, labels)
    m.save(tmp_path / "ok.tnb")
    assert_array_equal(load(tmp_path / "ok.tnb").predict(X), m.predict(X))
    del m.rank_  # save checks that the file would load (the state check of load)
    with pytest.raises(ModelFileError, match="rank_"):
        m.save(tmp_path / "no_rank.tnb")
    assert not (tmp_path / "no_rank.tnb").exists()
    m.rank_ = 1
    m.estimators_ = [None] * 3
    with pytest.raises(ModelFileError, match="one of estimator_"):
        m.save(tmp_path / "both.tnb")


def test_label_sets_of_integers_are_label_sets():
    """Sets and tuples of integer labels were refused ('Unknown label type') or read as
    an indicator matrix or one label per document, where the same shapes of strings
    were label sets (found by a user trial)."""
    X = Vectorizer().fit_transform(["aa bb", "cc dd", "aa cc", "bb dd"] * 3)
    for y, classes in (([{0, 2}, {1, 3}, {0, 3}, {1, 2}] * 3, ["0", "1", "2", "3"]),
                       ([(0, 2), (1, 3), (0, 3), (1, 2)] * 3, ["0", "1", "2", "3"]),
                       ([(0,), (1,), (0,), (1,)] * 3, ["0", "1"]),
                       ([("a",), ("b",), ("a",), ("b",)] * 3, ["a", "b"])):
        m = MultiLabelNB(MultinomialNB(), cv=2).fit(X, y)
        assert m.multilabel_ and [str(c) for c in m.classes_] == classes
    m = MultiLabelNB(MultinomialNB(), cv=2).fit(X, [[1, 0], [0, 1], [1, 1], [0, 1]] * 3)  # rows of 0/1: an indicator
    assert m.multilabel_ and list(m.classes_) == [0, 1]


def _topic_documents(n, seed):
    """Documents of one or two of four topics (a topic's words, common words, two words of
    another topic), as a multi-label indicator: the case where the copies of a two-label
    document are near-twins under two classes."""
    rng = np.random.RandomState(seed)
    topics = [[f"t{t}w{i}" for i in range(10)] for t in range(4)]
    common = [f"c{i}" for i in range(16)]
    texts, Y = [], np.zeros((n, 4), dtype=int)
    for d in range(n):
        labels = [rng.randint(4)] if rng.rand() < 0.6 else list(rng.choice(4, 2, replace=False))
        other = rng.choice([t for t in range(4) if t not in labels])
        words = [w for t in labels for w in rng.choice(topics[t], 6)] + list(rng.choice(common, 8))
        words += list(rng.choice(topics[other], 2))
        texts.append(" ".join(rng.permutation(words)))
        Y[d, labels] = 1
    return texts, Y


def test_event_model_is_chosen_on_folds_that_keep_a_documents_copies_together():
    """The copies of a document are held out together in the choice of the event model, as in
    the out-of-fold scores: the estimator's own folds (keyed on each row's text and class) deal
    them apart, a held-out copy is judged by a model that saw its text under the other label, and
    the Bernoulli model wins there, for a test micro-F1 0.91 instead of the complement's 0.99."""
    texts, Y = _topic_documents(300, 1)
    test_texts, Y_test = _topic_documents(120, 2)
    vec = Vectorizer().fit(texts)
    X, X_test = vec.transform(texts), vec.transform(test_texts)
    m = MultiLabelNB(DiscriminativeNB()).fit(X, Y)
    assert m.estimator_.event_model_ == "complement"
    assert f1_score(Y_test, m.predict(X_test), average="micro") > 0.97


@pytest.mark.parametrize("supports", [[1, 5, 30, 250, 4000], [3, 5, 8]])
def test_label_f1_plot_writes_its_log_axis_ticks_as_plain_numbers(tmp_path, monkeypatch, supports):
    """The per-label F1 plot is drawn with mathtext off (a label holding '$' as written); its
    log axis's ticks were mathtext, drawn as the raw '$\\mathdefault{10^{2}}$'."""
    pytest.importorskip("matplotlib")
    from textnb.evaluation import plots

    figures = []
    monkeypatch.setattr(plots, "_save", lambda fig, path, dpi=110: figures.append(fig))
    monkeypatch.setattr(plots.pyplot(), "close", lambda fig=None: None)
    per_label = {f"l${k}": {"train_support": s, "f1": 0.1 * k} for k, s in enumerate(supports)}
    plots.plot_label_f1(per_label, tmp_path / "f1.png")
    (fig,) = figures
    fig.canvas.draw()
    ax = fig.axes[0]
    ticks = [t.get_text() for t in ax.get_xticklabels() + ax.get_xticklabels(minor=True) if t.get_text()]
    assert ticks and all("$" not in t and "mathdefault" not in t for t in ticks)
    assert all(t.replace(",", "").replace(".", "").isdigit() for t in ticks), ticks
    assert any(t.startswith("l$") for t in (a.get_text() for a in ax.texts))  # names as written


@pytest.mark.parametrize("strategy", ["scut", "scutfbr"])
def test_a_label_of_one_training_document_is_not_predicted_for_every_document(tmp_path, strategy):
    """``train --strategy scut`` on a fastText file where a label is on one line gave that
    label the threshold -1e300 (its out-of-fold score is -inf) and ``predict`` printed it
    for every document; now it gets the top out-of-fold score as threshold (as SCutFBR's
    fallback), so documents of the other topics do not get it."""
    texts, Y = _topic_documents(120, 3)
    lines = [" ".join(f"__label__{k}" for k in np.flatnonzero(row)) + " " + t for row, t in zip(Y, texts)]
    lines.append("__label__rare __label__0 t0w1 t0w2 unique")
    corpus, plain, model = tmp_path / "rare.ft", tmp_path / "new.txt", tmp_path / "rare.tnb"
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    new_texts, _ = _topic_documents(40, 4)
    plain.write_text("\n".join(new_texts) + "\n", encoding="utf-8")
    code, _, err = _cli("train", corpus, "--strategy", strategy, "-o", model)
    assert code == 0, err
    code, out, err = _cli("predict", model, "--lines", plain)
    assert code == 0, err
    predicted = [line.rsplit("\t", 1)[1].split(",") for line in out.splitlines()]
    assert len(predicted) == 40
    assert sum("rare" in labels for labels in predicted) < 5, predicted


def test_inspect_prints_sentinel_thresholds_readably(tmp_path):
    """A sentinel threshold (+-1e300: a label no score passes or every score passes) is
    printed as '+inf (no document passes it)' / '-inf (every document passes it)', not a
    300-digit number; '--json' keeps the number. A label of one document (out-of-fold
    score -inf) under SCut was such a sentinel (-inf: the label on every document); it
    now has a finite threshold, the top out-of-fold score, printed as a number."""
    from textnb.cli.inspect import _threshold_text

    assert _threshold_text(-1e300) == "-inf (every document passes it)"
    assert _threshold_text(1e300) == "+inf (no document passes it)"
    texts, Y = _topic_documents(120, 3)
    lines = [" ".join(f"__label__{k}" for k in np.flatnonzero(row)) + " " + t for row, t in zip(Y, texts)]
    lines.append("__label__rare __label__0 t0w1 t0w2 unique")
    corpus = tmp_path / "rare.ft"
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    model = tmp_path / "rare.tnb"
    code, _, err = _cli("train", corpus, "--strategy", "scut", "-o", model)
    assert code == 0, err
    code, out, err = _cli("inspect", model)
    assert code == 0, err
    rows = [line for line in out.splitlines() if line.startswith("  ") and ": threshold " in line]
    assert rows and all(len(line) < 80 for line in rows), rows
    rare = [line.strip() for line in rows if line.strip().startswith("rare: threshold ")]
    assert len(rare) == 1 and "inf" not in rare[0], rows
    code, out, _ = _cli("inspect", model, "--json")
    assert code == 0 and "rare" in out


GOEMOTIONS_F1 = {  # (training documents, test F1) of textnb evaluate goemotions --labels labels.tsv
    "admiration": (4130, 0.5369), "amusement": (2328, 0.714), "anger": (1567, 0.3744), "annoyance": (2470, 0.0062),
    "approval": (2939, 0.0), "caring": (1087, 0.0146), "confusion": (1368, 0.0), "curiosity": (2191, 0.0),
    "desire": (641, 0.2484), "disappointment": (1269, 0.0), "disapproval": (2022, 0.0), "disgust": (793, 0.4098),
    "embarrassment": (303, 0.3714), "excitement": (853, 0.0), "fear": (596, 0.5802), "gratitude": (2662, 0.8696),
    "grief": (77, 0.0), "joy": (1452, 0.4693), "love": (2086, 0.651), "nervousness": (164, 0.0),
    "neutral": (14219, 0.5825), "optimism": (1581, 0.4862), "pride": (111, 0.1558), "realization": (1110, 0.0),
    "relief": (153, 0.0), "remorse": (545, 0.5562), "sadness": (1326, 0.4105), "surprise": (1060, 0.3669)}


@pytest.mark.parametrize("per_label", [
    {n: {"train_support": s, "f1": f} for n, (s, f) in GOEMOTIONS_F1.items()},
    {**{f"label{k}": {"train_support": 1000 + 10 * k, "f1": 0.5} for k in range(12)},  # one crowded spot
     "few": {"train_support": 3, "f1": 0.9}, "many": {"train_support": 90000, "f1": 0.1}},
])
def test_label_f1_plot_names_do_not_overlap(tmp_path, monkeypatch, per_label):
    """The names beside the points of the per-label F1 plot overlapped where points are close
    ('curiosity' over 'annoyance', 'joy' under 'optimism' on GoEmotions): only the names at
    F1 0 were staggered, by their order in the list, not by where they fall."""
    pytest.importorskip("matplotlib")
    from textnb.evaluation import plots

    figures = []
    monkeypatch.setattr(plots, "_save", lambda fig, path, dpi=110: figures.append(fig))
    monkeypatch.setattr(plots.pyplot(), "close", lambda fig=None: None)
    plots.plot_label_f1(per_label, tmp_path / "f1.png")
    (fig,) = figures
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in fig.axes[0].texts]
    assert sorted(n for n, _ in boxes) == sorted(per_label)
    clashes = [(a, b) for i, (a, box) in enumerate(boxes) for b, other in boxes[i + 1:] if box.overlaps(other)]
    assert not clashes
    frame = fig.bbox
    assert all(frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1
               for _, box in boxes)


@pytest.mark.parametrize("method", ["copy", "ovr"])
def test_inspect_lists_each_labels_informative_terms(tmp_path, method):
    """``inspect MULTILABEL --top N`` ignored --top and showed no term; each label now has
    its most informative terms (its topic's words here), in the text view and in --json
    under the text models' key, ``informative_terms``."""
    texts, Y = _topic_documents(160, 5)
    lines = [" ".join(f"__label__{k}" for k in np.flatnonzero(row)) + " " + t for row, t in zip(Y, texts)]
    corpus = tmp_path / "topics.ft"
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    model = tmp_path / "m.tnb"
    code, _, err = _cli("train", corpus, "--method", method, "-o", model)
    assert code == 0, err
    code, out, err = _cli("inspect", model, "--top", "3", "--json")
    assert code == 0, err
    terms = json.loads(out)["informative_terms"]
    assert sorted(terms) == ["0", "1", "2", "3"]
    for label, pairs in terms.items():
        assert len(pairs) == 3 and all(t.startswith(f"t{label}w") for t, _ in pairs), (label, pairs)
    code, out, _ = _cli("inspect", model, "--top", "2")
    rows = [line.strip() for line in out.splitlines() if line.startswith("  ") and "threshold" not in line]
    assert len(rows) == 4 and all(row.count(", ") == 1 and row.split(": ")[1].startswith(f"t{row[0]}w") for row in rows)


def test_an_rcut_rank_refused_for_a_single_label_with_documents_says_has():
    # label sets that name one label only: the refusal's grammar ("1 label has", not "have")
    from textnb.core.errors import ParameterError

    X = np.ones((6, 3), dtype=int)
    Y = np.array([[1, 0]] * 6)  # the second label has no document
    with pytest.raises(ParameterError, match=r"^rank=2: only 1 label has training documents, .* at most 1$"):
        MultiLabelNB(MultinomialNB(), threshold="rcut", rank=2).fit(X, Y)
    assert MultiLabelNB(MultinomialNB(), threshold="rcut", rank=1).fit(X, Y).predict(X).sum() == 6


@pytest.mark.parametrize("kw", [{"rank": True}, {"fbr": True}, {"rank": 0}, {"min_labels": -1}, {"fbr": 1.5}])
def test_multilabel_parameters_follow_the_model_file_rules(kw):
    """fbr, rank and min_labels are checked by the parameter schema a model file is read by
    (one rule): a bool is no number (before: rank=True and fbr=True fitted as 1)."""
    from textnb.core.errors import ParameterError
    from textnb.meta.multilabel import MultiLabelNB

    X = np.array([[1, 0], [0, 1], [1, 1], [0, 2]] * 3)
    Y = [("a",), ("b",), ("a", "b"), ("b",)] * 3
    name = next(iter(kw))
    with pytest.raises(ParameterError, match=rf"^{name} must be .*; got {kw[name]!r}$"):
        MultiLabelNB(threshold="rcut", **kw).fit(X, Y)


def test_an_rcut_rank_refused_in_one_fold_says_which_fold_and_why():
    """A rank the whole data allows (3 labels, rank 2) but one fold's training part does not
    (the rare label's only documents held out): the error said 'only 2 labels have training
    documents' with no word of a fold, about data that has 3."""
    from textnb.core.errors import ParameterError

    texts, labels = synthetic_corpus(60, seed=1)
    X = Vectorizer().fit_transform(texts)
    labels = [set(labs) - {"oil"} or {"grain"} for labs in labels]
    labels[0] = {"rare"}  # the one document of "rare"; its test fold's training part has 2 labels
    splits = [(np.arange(30, 60), np.arange(0, 30)), (np.arange(0, 30), np.arange(30, 60))]
    model = MultiLabelNB(MultinomialNB(), threshold="rcut", rank=2)
    model.fit(X, labels)  # (the whole data: 3 labels, rank 2 allowed)
    with pytest.raises(ParameterError, match=r"^rank=2: in fold 1 of 2 of the cross-validation, only 2 of the 3 "
                                             r"labels have documents in the fold's training part") as e:
        cross_validate_multilabel(X, labels, model, cv=splits)
    assert "\n" not in str(e.value) and "at most 1, or fewer folds" in str(e.value)


def test_the_automatic_rcut_rank_stays_below_the_labels_with_documents():
    """With two labels on most documents, the automatic choice was rank 2: every document got
    both labels, which an explicit rank=2 is refused for."""
    rng = np.random.RandomState(0)
    X = rng.poisson(1.0, (40, 6))
    labels = [{"a", "b"} if i % 5 else ({"a"} if i % 2 else {"b"}) for i in range(40)]
    auto = MultiLabelNB(MultinomialNB(), threshold="rcut").fit(X, labels)
    assert auto.rank_ == 1
    from textnb.meta.labelsets import rank_candidates

    Y = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    assert rank_candidates(Y) == [1, 2] and rank_candidates(Y[:, :2]) == [1] and rank_candidates(np.eye(5)) == [1, 2, 3]


def test_train_on_four_documents_gives_no_label_to_every_document(tmp_path):
    """``train --labels`` on four documents (leave-one-out folds): the out-of-fold scores
    made SCut's best cut 'every document' for 'animals' and 'dogs', whose thresholds were
    then -inf: ``inspect`` said 'every document passes it' and ``predict`` gave the finance
    document 'finance,dogs,animals'. Now each threshold is a finite score, just below the
    lowest out-of-fold one."""
    root = tmp_path / "tiny"
    root.mkdir()
    docs = {"d1": ("the cat sat on the mat", "animals,cats"), "d2": ("dogs bark loudly at night", "animals,dogs"),
            "d3": ("the cat and the dog play", "animals,cats,dogs"), "d4": ("stock prices fell sharply", "finance")}
    for name, (text, _) in docs.items():
        (root / f"{name}.txt").write_text(text + "\n", encoding="utf-8")
    (tmp_path / "labels.tsv").write_text("".join(f"{k}\t{v[1]}\n" for k, v in docs.items()), encoding="utf-8")
    model = tmp_path / "tiny.tnb"
    code, _, err = _cli("train", root, "--labels", tmp_path / "labels.tsv", "-o", model)
    assert code == 0, err
    code, out, err = _cli("inspect", model)
    assert code == 0, err
    assert "every document passes" not in out
    assert out.splitlines()[0].endswith("; at least 1 label per document")  # (was '1 label(s)')
    code, out, err = _cli("predict", model, root / "d4.txt")
    assert code == 0, err
    assert out.rstrip("\n").rsplit("\t", 1)[1] == "finance"
    (tmp_path / "one.tsv").write_text("d1\ta\nd2\t\nd3\t\nd4\t\n", encoding="utf-8")  # one label: '1 label'
    code, out, err = _cli("train", root, "--labels", tmp_path / "one.tsv", "-o", model)
    assert code == 0, err
    assert out.startswith(f"read 4 documents from {root} (1 label): a 1\n")
    code, out, err = _cli("evaluate", root, "--labels", tmp_path / "one.tsv", "--cv", "2")
    assert code == 0, err
    assert out.startswith("2-fold cross-validation on 4 documents, 1 label (")


def _fasttext_file(path, n):
    """A multi-label fastText file of ``n`` lines (topic documents of the fixture's words)."""
    texts, Y = _topic_documents(n, 9)
    lines = [" ".join(f"__label__{k}" for k in np.flatnonzero(row)) + " " + t for row, t in zip(Y, texts)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_evaluate_cross_validation_says_cross_validation_not_train(tmp_path):
    """``evaluate --multilabel --cv K``'s per-label table had a 'train' column (the same
    number as 'support': every document is held out once, there is no training part) and
    ``--plot`` said 'training documents' and 'F1 on the test documents'. Now the
    cross-validation's table has no 'train' column and its plot says 'documents with the
    label' and 'F1 out of fold (K-fold cross-validation)'; a train/test report keeps its
    'train' column; ``--json`` keeps ``per_label``'s ``train_support``."""
    from unittest import mock

    from textnb.evaluation import plots

    corpus = _fasttext_file(tmp_path / "ml.ft", 40)
    code, out, err = _cli("evaluate", corpus, "--cv", "3")
    assert code == 0, err
    assert out.startswith("3-fold cross-validation on 40 documents, 4 labels")
    header = next(line for line in out.splitlines() if line.startswith("label "))
    assert header.split() == ["label", "precision", "recall", "f1", "bep", "support"]
    code, out, err = _cli("evaluate", corpus, "--cv", "3", "--json")
    report = json.loads(out)
    assert report["protocol"] == "3-fold cross-validation" and "folds_note" not in report
    assert all("train_support" in pl for pl in report["per_label"].values())
    code, out, err = _cli("evaluate", corpus, "--test", corpus)
    assert code == 0, err
    assert next(line for line in out.splitlines() if line.startswith("label ")).split()[-1] == "train"
    calls = []
    with mock.patch.object(plots, "plot_label_f1", side_effect=lambda *a, **k: calls.append(k)):
        _cli("evaluate", corpus, "--cv", "3", "--plot", tmp_path / "f1.png")
    assert calls == [{"folds": 3}]
    saved = []
    with mock.patch.object(plots, "_save", side_effect=lambda fig, path: saved.append(
            (fig.axes[0].get_xlabel(), fig.axes[0].get_ylabel()))):
        plots.plot_label_f1(report["per_label"], tmp_path / "f1.png", folds=3)
        plots.plot_label_f1(report["per_label"], tmp_path / "f1.png")
    assert saved == [("documents with the label (log scale)", "F1 out of fold (3-fold cross-validation)"),
                     ("training documents with the label (log scale)", "F1 on the test documents")]


def test_evaluate_cross_validation_of_fewer_than_ten_documents(tmp_path):
    """``evaluate`` of a multi-label corpus of 3 documents without ``--cv`` (10 folds by
    default) failed with 'cv must be between 2 and the number of documents (3); got 10',
    naming no file, though the user gave no cv; single-label evaluate runs fewer folds and
    says so. Now 3 folds, '(fewer than the default 10: only 3 documents)' (``--json``:
    ``folds_note``); a ``--cv`` above the number of documents is one line naming the file
    and ``--cv``; one document is refused in one line."""
    corpus = tmp_path / "t3.ft"
    corpus.write_text("__label__a __label__b hello world foo\n__label__b bar baz\n__label__c qux quux\n",
                      encoding="utf-8")
    code, out, err = _cli("evaluate", corpus)
    assert code == 0, err
    assert out.startswith("3-fold cross-validation (fewer than the default 10: only 3 documents) on 3 documents, "
                          "3 labels")
    code, out, err = _cli("evaluate", corpus, "--json")
    assert code == 0 and json.loads(out)["folds_note"] == "fewer than the default 10: only 3 documents"
    code, out, err = _cli("evaluate", corpus, "--cv", "4")
    assert code == 1 and out == ""
    assert err.strip() == f"textnb: error: {corpus}: 3 documents, so there cannot be 4 folds; use a smaller --cv"
    corpus.write_text("__label__a __label__b hello world foo\n", encoding="utf-8")
    code, out, err = _cli("evaluate", corpus)
    assert code == 1 and err.strip() == f"textnb: error: {corpus}: 1 document; cross-validation needs 2 at least"


def test_one_label_and_at_least_one_per_document_is_warned(tmp_path):
    """A multi-label corpus of one label (and unlabelled documents) with the default
    ``--min-labels 1`` gives that label to every document, whatever its text: ``train``
    says so in one warning line (``min_labels=0`` lets the model leave a document
    without it, and is not warned)."""
    root = tmp_path / "one"
    root.mkdir()
    texts = ["cheap pills now", "lunch at noon", "win a prize", "see you soon", "free money", "hello there"]
    for i, text in enumerate(texts):
        (root / f"d{i}.txt").write_text(text + "\n", encoding="utf-8")
    (tmp_path / "labels.tsv").write_text("".join(f"d{i}\t{'spam' if i % 2 == 0 else ''}\n" for i in range(6)))
    code, _, err = _cli("train", root, "--labels", tmp_path / "labels.tsv", "-o", tmp_path / "m.tnb")
    assert code == 0 and err.count("\n") == 1, err
    assert err == ("textnb: warning: 1 label and at least 1 label per document (--min-labels): every document "
                   "gets every label; --min-labels 0 lets the model leave a document without one\n")
    code, _, err = _cli("train", root, "--labels", tmp_path / "labels.tsv", "--min-labels", "0",
                        "-o", tmp_path / "m0.tnb")
    assert code == 0 and err == "", err


def _noisy_corpus(n=300, seed=4):
    """Documents with 2 words of each of their 1-3 topics among 10 noise words: rankings
    far from perfect, so that a decision rule's shifts would move documents in them."""
    rng = np.random.RandomState(seed)
    names, noise = sorted(TOPICS), "the of and said reuters market week year bank crop".split()
    texts, labels = [], []
    for _ in range(n):
        labs = sorted(rng.choice(names, rng.randint(1, 4), replace=False).tolist())
        words = [w for lab in labs for w in rng.choice(TOPICS[lab].split(), 2).tolist()] + rng.choice(noise, 10).tolist()
        texts.append(" ".join(words))
        labels.append(tuple(labs))
    return texts, labels


def test_break_even_points_are_those_of_the_log_odds_whatever_the_decision_rule():
    """The break-even points (per label, macro, micro) were computed from the decision values:
    the thresholds and, worse, the min_labels shift of a row and the RCut cuts moved documents in
    a label's ranking, so the same model's BEP changed with --min-labels / --strategy (GoEmotions:
    macro-BEP 0.390 at --min-labels 0, 0.381 at 1, 0.379 at 3, 0.351 with rcut). Now they are the
    rankings' of the model's log-odds, the same for every rule, on every path (the estimators'
    and the kernel trainer's, train/test and cross-validated)."""
    from textnb.meta import multilabel_training as training

    texts, labels = _noisy_corpus()
    v = Vectorizer()
    X, Xt = v.fit_transform(texts[:200]), v.transform(texts[200:])
    rules = [dict(min_labels=0), dict(min_labels=2), dict(threshold="rcut", rank=1)]
    reports = []
    for rule in rules:
        model = MultiLabelNB(**rule)
        reports.append(evaluate_multilabel_split(X, labels[:200], Xt, labels[200:], model))
        reports.append(cross_validate_multilabel(X, labels[:200], model, cv=3))
        terms = v.get_feature_names_out().tolist()
        reports.append(training.evaluate_split(X, terms, labels[:200], Xt, labels[200:], multilabel=rule))
        reports.append(training.cross_validate(X, labels[:200], multilabel=rule, cv=3))
    fitted = MultiLabelNB(min_labels=0).fit(X, labels[:200])
    S, T = fitted.predict_log_odds(Xt), fitted.indicator(labels[200:])
    expected = [break_even_point(S[:, j], T[:, j]) for j in range(S.shape[1])]
    for r in reports[::2]:  # train/test: the model's log-odds on the test part
        assert [r["per_label"][c]["bep"] for c in fitted.classes_] == pytest.approx(expected)
        assert r["macro_bep"] == pytest.approx(np.mean(expected))
        assert r["micro_bep"] == pytest.approx(break_even_point(S.ravel(), T.ravel()))
    for key in ("macro_bep", "micro_bep"):
        assert len({round(r[key], 12) for r in reports[1::4]}) == 1, key  # estimators' cross-validation
        assert len({round(r[key], 12) for r in reports[3::4]}) == 1, key  # the kernel trainer's
    assert len({round(r["micro_f1"], 12) for r in reports[::4]}) == 3  # (the rules do decide differently)


def test_labels_in_a_pandas_column_and_a_dataframe_are_read_by_fit_and_score_as_by_the_text_classifier():
    """A pandas user's targets: label collections in a Series (``df["labels"].str.split(",")``)
    or an object array, and a DataFrame of 0/1 columns. ``fit`` and ``score`` read them as the
    list / the matrix they hold, as TextClassifier(model=MultiLabelNB()) already read a Series.
    Before: the Pipeline's MultiLabelNB refused the Series ("legacy multi-label data
    representation"), ``score`` raised TypeError on a DataFrame (GridSearchCV's default
    scoring) and read rows of 0/1 written as lists as label sets of the labels 0 and 1
    (micro-F1 0.5 where fit's reading gives 2/3)."""
    pd = pytest.importorskip("pandas")
    from textnb import TextClassifier

    texts = ["grain wheat prices", "wheat harvest", "grain silo", "crude oil", "oil prices fall"] * 4
    sets = [("grain", "wheat"), ("wheat",), ("grain",), ("oil",), ("oil",)] * 4
    column = np.empty(len(sets), dtype=object)
    column[:] = sets
    model = Pipeline([("vectorizer", Vectorizer()), ("model", MultiLabelNB(MultinomialNB(), threshold=0.0))])
    expected = clone(model).fit(texts, sets)
    for y in (pd.Series(sets), column, pd.Series([list(v) for v in sets])):
        fitted = clone(model).fit(texts, y)
        assert_array_equal(fitted[-1].classes_, expected[-1].classes_)
        assert_array_equal(fitted.predict(texts), expected.predict(texts))
        assert fitted.score(texts, y) == expected.score(texts, sets)
    on_text = TextClassifier(model=MultiLabelNB(MultinomialNB(), threshold=0.0)).fit(texts, pd.Series(sets))
    assert_array_equal(on_text.predict(texts), expected.predict(texts))

    X = np.array([[3, 0, 0], [0, 3, 0], [2, 2, 0], [0, 0, 3]] * 3)
    Y = np.array([[1, 0], [0, 1], [1, 1], [0, 0]] * 3)
    fitted = MultiLabelNB(MultinomialNB(), threshold=0.0, min_labels=0).fit(X, Y)
    expected = f1_score(Y, fitted.predict(X), average="micro")
    for y in (Y, pd.DataFrame(Y, columns=["grain", "wheat"]), Y.tolist()):
        assert fitted.score(X, y) == pytest.approx(expected)
    with pytest.raises(ValueError, match="3 columns; the model has 2 labels"):
        fitted.score(X, np.hstack([Y, Y[:, :1]]))


def test_copy_model_probabilities_leave_the_no_label_class_its_share():
    """README: the copy model's label probabilities are shares of one distribution, summing
    to 1, or to less when training had documents of no label (their reserved class takes the
    rest; a user trial found the README saying "summing to 1" of such a model)."""
    from textnb import TextClassifier
    from textnb.meta.multilabel import MultiLabelNB

    fruit, cars, none = "apple banana cherry fruit".split(), "engine motor wheel car".split(), "the of and qq".split()
    texts, sets = [], []
    for i in range(60):
        words, labels = [(fruit, ("a",)), (cars, ("b",)), (none, ())][i % 3]
        texts.append(" ".join(words[(i + j) % 4] for j in range(6)))
        sets.append(labels)
    clf = TextClassifier(model=MultiLabelNB()).fit(texts, sets)
    p = clf.predict_proba(["the of and qq", "apple banana", "engine car"])
    assert p.sum(axis=1)[0] < 0.01 and np.all(p.sum(axis=1) <= 1 + 1e-12)
    full = TextClassifier(model=MultiLabelNB()).fit(texts[:40:3] + texts[1:40:3], sets[:40:3] + sets[1:40:3])
    np.testing.assert_allclose(full.predict_proba(["apple banana", "engine car"]).sum(axis=1), 1.0)


def test_a_model_file_written_before_min_labels_decides_as_it_did(tmp_path):
    """A MultiLabelNB file without ``min_labels`` (round 2's, before the parameter) is read with
    0, what it decided with, by every reader (load, predict's scorer, inspect), not with
    today's default 1 (*was*: documents it left without a label got one, silently)."""
    from conftest import cli
    from textnb.core.model_io import ModelNode, model_tree, read_nodes

    docs = ["cheap pills now", "meeting at noon", "cheap offer pills", "lunch at noon",
            "buy cheap now", "noon meeting moved"] * 4 + ["zzz qqq"]
    labels = [("spam",), ("work",), ("spam",), ("work", "food"), ("spam",), ("work",)] * 4 + [()]
    pipe = Pipeline([("vectorizer", Vectorizer()),
                     ("model", MultiLabelNB(MultinomialNB(), method="ovr", threshold=5.0, min_labels=0))])
    pipe.fit(docs, labels)
    query = ["zzz unknown words", "cheap pills"]
    assert pipe.predict(query)[0].sum() == 0  # (no label passes the threshold)

    def without_min_labels(node):
        if isinstance(node, ModelNode):
            params = {k: without_min_labels(v) for k, v in node.params.items() if not
                      (node.kind == "MultiLabelNB" and k == "min_labels")}
            return ModelNode(node.kind, params, {k: without_min_labels(v) for k, v in node.state.items()})
        if isinstance(node, list):
            return [without_min_labels(v) for v in node]
        if isinstance(node, tuple):
            return tuple(without_min_labels(v) for v in node)
        return node

    old = tmp_path / "old.tnb"
    save(without_min_labels(model_tree(pipe)), old, check=False)
    assert "min_labels" not in json.dumps(json.loads(__import__("zipfile").ZipFile(old).read("header.json")))
    ml = [n for n in read_nodes(old).params["steps"] if n[0] == "model"][0][1]
    assert ml.params["min_labels"] == 0
    assert_array_equal(load(old).predict(query), pipe.predict(query))
    code, out, err = cli("predict", old, "--lines", "-", stdin="\n".join(query).encode() + b"\n")
    assert code == 0 and out.splitlines()[0] == "stdin:1\t", (out, err)
    code, out, err = cli("inspect", old)
    assert code == 0 and "at least" not in out.splitlines()[0], out
