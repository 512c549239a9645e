"""The default pipeline's rule for short texts (words and the word bigrams of two documents
or more, ``textnb.text.training.default_vectorizer``) holds for the multi-label default as
for the single-label one: ``textnb train`` / ``evaluate`` of a multi-label corpus and
``TextClassifier(model=MultiLabelNB())`` (found by a user trial: the multi-label default
counted words alone, four to seven points below the single-label default on TREC QC, against
the ``--ngram`` help's "a corpus of short texts under the default model gets 2")."""

import json

import numpy as np
import pytest

from conftest import CORPORA, cli


@pytest.fixture(scope="module")
def short_multilabel(tmp_path_factory):
    """1,200 text messages as a multi-label fastText file: ham or spam, and money for those
    that speak of it (median under 500 bytes: short texts)."""
    rows = [line.rstrip("\n").split("\t", 1)
            for line in (CORPORA / "sms_spam" / "SMSSpamCollection.tsv").read_text(encoding="utf-8").splitlines()][:1200]
    texts, label_sets = [], []
    for label, text in rows:
        money = any(w in text.lower() for w in ("£", "cash", "prize", "free"))
        texts.append(" ".join(text.split()))
        label_sets.append((label, "money") if money else (label,))
    path = tmp_path_factory.mktemp("short") / "ml.ft"
    path.write_text("".join(" ".join(f"__label__{lab}" for lab in labs) + " " + text + "\n"
                            for text, labs in zip(texts, label_sets)), encoding="utf-8")
    return path, texts, label_sets


def _vectorizer(path):
    import textnb

    return textnb.load(path).named_steps["vectorizer"]


def test_the_multilabel_default_counts_short_texts_with_their_bigrams(short_multilabel, tmp_path):
    path, _, _ = short_multilabel
    rc, out, err = cli("train", path, "-o", tmp_path / "m.tnb")
    assert rc == 0, err
    assert "(words and word bigrams, each in 2 training documents or more)" in out
    vec = _vectorizer(tmp_path / "m.tnb")
    assert vec.ngram_range == (1, 2) and vec.min_df == 2
    assert any(" " in term for term in vec.vocabulary_)


@pytest.mark.parametrize("flags", [["--ngram", "1"], ["--min-df", "1"], ["--model", "multinomial"],
                                   ["--select", "chi2:200"]])
def test_an_option_or_another_model_keeps_its_own_vectorizer(short_multilabel, tmp_path, flags):
    path, _, _ = short_multilabel
    rc, out, err = cli("train", path, *flags, "-o", tmp_path / "m.tnb")
    assert rc == 0, err
    assert "bigrams" not in out
    assert _vectorizer(tmp_path / "m.tnb").ngram_range == (1, 1)


def test_the_library_counts_as_the_command_line_does(short_multilabel, tmp_path):
    from textnb import TextClassifier
    from textnb.meta.multilabel import MultiLabelNB

    path, texts, label_sets = short_multilabel
    clf = TextClassifier(model=MultiLabelNB()).fit(texts, label_sets)
    assert clf.vectorizer_.ngram_range == (1, 2) and clf.vectorizer_.min_df == 2
    rc, _, err = cli("train", path, "-o", tmp_path / "m.tnb")
    assert rc == 0, err
    assert sorted(clf.vectorizer_.vocabulary_) == sorted(_vectorizer(tmp_path / "m.tnb").vocabulary_)
    # a model given its own vectorizer, or another base model, keeps words alone
    assert TextClassifier(model=MultiLabelNB(method="ovr")).fit(texts, label_sets).vectorizer_.ngram_range == (1, 2)
    from textnb import MultinomialNB

    assert TextClassifier(model=MultiLabelNB(MultinomialNB())).fit(texts, label_sets).vectorizer_.ngram_range == (1, 1)


def test_rank_one_of_the_multilabel_default_is_the_single_label_default(tmp_path):
    """RCut with rank 1 over labels that are sets of one is the multi-class prediction
    (docs/multilabel.md): the same vectorizer, the same answers, on short texts too."""
    rows = [line.split("\t", 1) for line in (CORPORA / "sms_spam" / "SMSSpamCollection.tsv")
            .read_text(encoding="utf-8").splitlines()][:1500]
    train, test = rows[:1200], rows[1200:]
    (tmp_path / "train.jsonl").write_text("".join(json.dumps({"labels": [lab], "text": t}) + "\n" for lab, t in train))
    (tmp_path / "train.tsv").write_text("".join(f"{lab}\t{' '.join(t.split())}\n" for lab, t in train))
    (tmp_path / "test.tsv").write_text("".join(f"{lab}\t{' '.join(t.split())}\n" for lab, t in test))
    (tmp_path / "test.jsonl").write_text("".join(json.dumps({"labels": [lab], "text": t}) + "\n" for lab, t in test))
    rc, out, err = cli("evaluate", tmp_path / "train.tsv", "--test", tmp_path / "test.tsv", "--json")
    assert rc == 0, err
    single = json.loads(out)
    rc, out, err = cli("evaluate", tmp_path / "train.jsonl", "--test", tmp_path / "test.jsonl", "--multilabel",
                       "--strategy", "rcut", "--json")
    assert rc == 0, err
    multi = json.loads(out)
    assert multi["subset_accuracy"] == pytest.approx(single["accuracy"])
    assert np.isclose(multi["micro_f1"], single["accuracy"])
