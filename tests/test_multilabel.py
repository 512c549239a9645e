import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.metrics import f1_score
from sklearn.utils.estimator_checks import parametrize_with_checks

from textnb import Vectorizer, load
from textnb.core.errors import InputError
from textnb.meta.multilabel import (MultiLabelNB, break_even_point, cross_validate_multilabel, multilabel_report,
                               read_label_file,
                               read_multilabel_corpus)

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


@parametrize_with_checks([MultiLabelNB(), MultiLabelNB(threshold=0.0, min_labels=0),
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
