"""textnb.fasttext: fastText's Python habits (train_supervised, predict, test, labels,
save_model / load_model) over the text models, checked against the command line's
``textnb test`` and ``predict --lines --top`` on the same files."""

import json
import re
import warnings

import numpy as np
import pytest

from conftest import SMS_TSV, cli, quick_first
from textnb.fasttext import load_model, train_supervised


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("ftapi")
    lines = [f"__label__{lab} {text}" for lab, text in
             (line.split("\t", 1) for line in SMS_TSV.read_text(encoding="utf-8").splitlines())]
    (d / "train.txt").write_text("\n".join(lines[:2000]) + "\n", encoding="utf-8")
    (d / "valid.txt").write_text("\n".join(lines[2000:2600]) + "\n", encoding="utf-8")
    multi = [line + (" __label__long" if len(line) > 120 else "") for line in lines[:2600]]
    (d / "mtrain.txt").write_text("\n".join(multi[:2000]) + "\n", encoding="utf-8")
    (d / "mvalid.txt").write_text("\n".join(multi[2000:]) + "\n", encoding="utf-8")
    return d


def _cli(*args):
    rc, out, err = cli(*args)  # in this process: what the command prints, not how it starts
    assert rc == 0, err
    return out


@pytest.mark.parametrize("train, valid", quick_first([("train.txt", "valid.txt"), ("mtrain.txt", "mvalid.txt")],
                                                    unpack=True))
def test_train_predict_test_and_the_saved_model_agree_with_the_command_line(files, tmp_path, train, valid):
    model = train_supervised(input=str(files / train))
    n_labels = len(model.labels)
    assert all(lab.startswith("__label__") for lab in model.labels)
    labels, freq = model.get_labels(include_freq=True)
    assert list(freq) == sorted(freq, reverse=True) and freq.sum() >= 2000  # fastText's order: most frequent first
    text = "WINNER!! claim your free prize now"
    one = model.predict(text, k=-1)
    assert isinstance(one[0], tuple) and len(one[0]) == n_labels and np.all(np.diff(one[1]) <= 0)
    many = model.predict([text, "see you at noon"], k=1)
    assert many[0][0] == list(one[0][:1]) and np.allclose(many[1][0], one[1][:1])  # lists, as fastText's
    kept = model.predict(text, k=-1, threshold=float(one[1][0]))
    assert kept[0] == one[0][:1]
    # test() counts as `textnb test` (fastText's meter)
    n, p, r = model.test(str(files / valid), k=2)
    path = tmp_path / "m.tnb"
    model.save_model(path)
    shown = json.loads(_cli("test", path, files / valid, 2, "--json"))
    assert (n, p, r) == (shown["n"], shown["precision"], shown["recall"])
    # the saved model predicts what `textnb predict --lines --top` prints
    (tmp_path / "two.txt").write_text(text + "\nsee you at noon\n", encoding="utf-8")
    printed = _cli("predict", path, "--lines", tmp_path / "two.txt", "--top", -1).splitlines()[0].split("\t")[1:]
    assert [f"__label__{cell.split(' ')[0]}" for cell in printed] == list(one[0])
    assert np.allclose([float(cell.split(" ")[1]) for cell in printed], one[1], atol=5e-7)
    back = load_model(path)
    assert back.predict(text, k=-1)[0] == one[0] and np.array_equal(back.predict(text, k=-1)[1], one[1])
    # the labels' order and training counts come from the file: the same after loading
    again = back.get_labels(include_freq=True)
    assert again[0] == labels and list(again[1]) == list(freq)


@pytest.mark.parametrize("train, valid", [("train.txt", "valid.txt"), ("mtrain.txt", "mvalid.txt")])
def test_predict_test_and_the_command_line_keep_the_same_labels_at_a_threshold(files, tmp_path, train, valid):
    """One rule for the labels kept at K and TH on every path: `textnb predict --top
    --threshold` (the model's predict_proba, compared as probabilities), `textnb test MODEL
    FILE K TH`, and the facade's predict and test; and the same floats printed. Before,
    test compared log P with log TH and the facade exp(log P) with TH: a threshold equal
    to a probability predict printed kept the label there and dropped it in test and in
    the facade's predict (40% of SMS's cells); a multi-label file's predict printed
    expit(log-odds), the library exp(log expit(log-odds)), 1e-16 apart."""
    model = train_supervised(input=str(files / train))
    path = tmp_path / "m.tnb"
    model.save_model(path)
    lines = (files / valid).read_text(encoding="utf-8").splitlines()[:40]
    texts = [" ".join(w for w in line.split() if not w.startswith("__label__")) for line in lines]
    (tmp_path / "v.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    printed = [json.loads(row)["labels"] for row in
               _cli("predict", path, "--lines", tmp_path / "v.txt", "--top", -1, "--json").splitlines()]
    labels, probas = model.predict(texts, k=-1)
    for shown, labs, ps in zip(printed, labels, probas):  # the same labels and floats
        assert [f"__label__{d['label']}" for d in shown] == labs
        assert [d["proba"] for d in shown] == [float(p) for p in ps]
    dropped = []
    for i, (line, shown) in enumerate(zip(lines, printed)):
        top = shown[0]["proba"]  # a threshold equal to the probability printed keeps the label everywhere
        (tmp_path / "one.txt").write_text(line + "\n", encoding="utf-8")
        kept = json.loads(_cli("predict", path, "--lines", tmp_path / "one.txt", "--threshold", repr(top),
                               "--top", 1, "--json"))["labels"]
        counted = json.loads(_cli("test", path, tmp_path / "one.txt", 1, repr(top), "--json"))["predicted"]
        facade = model.predict(texts[i], k=1, threshold=top)[0]
        if not (len(kept) == counted == len(facade) == 1):
            dropped.append((i, top, len(kept), counted, len(facade)))
    assert not dropped


def test_word_ngrams_fasttext_only_parameters_and_refusals(files):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = train_supervised(input=str(files / "train.txt"), wordNgrams=2, epoch=25, lr=1.0)
    assert len(caught) == 1 and "epoch, lr" in str(caught[0].message)
    assert model.words and not any(" " in w for w in model.words)  # words: the bigrams are features, not words
    vectorizer = model.estimator.vectorizer_
    assert any(" " in t for t in vectorizer.get_feature_names_out())
    with pytest.raises(TypeError, match="'epochs'"):
        train_supervised(input=str(files / "train.txt"), epochs=5)
    with pytest.raises(ValueError, match="one line at a time"):
        model.predict("two\nlines")
    with pytest.raises(ValueError, match="k must be"):
        model.predict("x", k=0)
    assert model.predict([], k=1) == ([], [])


def test_verbose_and_seed_are_met_without_a_warning(files):
    """``verbose=0`` (what users pass to silence fastText) and ``seed`` warned that they "set
    fastText's embeddings and SGD" and were ignored: textnb's training prints nothing and is
    deterministic, so both requests are met; the same model, no warning."""
    plain = train_supervised(input=str(files / "train.txt"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for params in ({"verbose": 0}, {"verbose": 2, "seed": 7}):
            model = train_supervised(input=str(files / "train.txt"), **params)
            (labels, probs), (want_labels, want_probs) = (m.predict("free prize now", k=-1) for m in (model, plain))
            assert labels == want_labels and np.array_equal(probs, want_probs)
    with pytest.warns(UserWarning, match="epoch set fastText") as caught:  # the others still named
        train_supervised(input=str(files / "train.txt"), epoch=5, verbose=0)
    assert "verbose" not in str(caught[0].message)


@pytest.mark.parametrize("threshold", [float("nan"), -0.5, 1.5, "half", None])
def test_predict_checks_its_threshold_as_test_does(files, threshold):
    # predict and test take one threshold, a probability in [0, 1], checked by one rule
    # (topk.check_threshold); predict took NaN silently (no label kept), -0.5 and 1.5
    # as given, and "half" with numpy's UFuncTypeError from inside
    model = train_supervised(input=str(files / "train.txt"))
    with pytest.raises(ValueError, match="threshold must be"):
        model.predict("x", threshold=threshold)
    with pytest.raises(ValueError, match="threshold must be"):
        model.test(str(files / "valid.txt"), threshold=threshold)
    assert model.predict("x", k=-1, threshold=0.0)[1].size == len(model.labels)


def test_predict_of_bytes_names_bytes(files):
    model = train_supervised(input=str(files / "train.txt"))
    with pytest.raises(TypeError, match="got bytes"):  # was "got int": the bytes were read as numbers
        model.predict(b"some text")


@pytest.mark.parametrize("train", ["train.txt", "mtrain.txt"])
def test_the_label_prefix_and_word_counts_are_kept_in_the_saved_model(files, tmp_path, train):
    """fastText's model keeps its label prefix and its words' counts: a model trained with
    ``label="~~"``, saved and loaded, gives '~~' labels and tests a '~~' file (it gave
    '__label__' labels); ``get_words(include_freq=True)`` gives each word's occurrences in the
    training file (a TypeError)."""
    tagged = tmp_path / "hash.txt"
    tagged.write_text((files / train).read_text(encoding="utf-8").replace("__label__", "~~"), encoding="utf-8")
    m = train_supervised(input=str(tagged), label="~~")
    m.save_model(str(tmp_path / "h.tnb"))
    loaded = load_model(str(tmp_path / "h.tnb"))
    assert loaded.label_prefix == "~~" and all(lab.startswith("~~") for lab in loaded.get_labels())
    assert loaded.predict("free prize now")[0][0].startswith("~~")
    assert loaded.test(str(tagged))[0] == 2000
    assert load_model(str(tmp_path / "h.tnb"), label="@").label_prefix == "@"  # given: it wins
    words, freq = loaded.get_words(include_freq=True)
    assert words == loaded.get_words() and freq.dtype == np.int64 and len(freq) == len(words)
    from textnb import Vectorizer
    from textnb.io.fasttext import read_fasttext

    documents = list(read_fasttext(str(tagged), label_prefix="~~").documents)
    want = Vectorizer(vocabulary=words).fit_transform(documents).sum(axis=0)
    assert np.array_equal(freq, np.asarray(want).ravel())


def test_test_label_is_fasttexts_per_label_precision_recall_and_f1(tmp_path):
    """fastText's ``model.test_label(path, k, threshold)``: ``{label: {"precision",
    "recall", "f1score"}}`` for every label of the model, with its prefix; NaN where a
    label is never predicted (precision) or never true (recall), as its ``Meter``; a label
    given twice on a line is two labels to recall (``Meter::log``)."""
    train = tmp_path / "train.txt"
    train.write_text("".join(f"__label__spam buy cheap pills {i}\n__label__ham meeting at noon {i}\n"
                             f"__label__other weather report {i}\n" for i in range(20)), encoding="utf-8")
    model = train_supervised(input=str(train))
    valid = tmp_path / "valid.txt"
    valid.write_text("__label__spam __label__spam buy cheap pills\n__label__ham meeting noon\n"
                     "__label__ham cheap pills\n", encoding="utf-8")
    scores = model.test_label(str(valid))
    assert list(scores) == model.get_labels()
    assert all(set(v) == {"precision", "recall", "f1score"} for v in scores.values())
    # spam: predicted twice (lines 1 and 3), right once, true twice on line 1
    assert scores["__label__spam"]["precision"] == 0.5 and scores["__label__spam"]["recall"] == 0.5
    assert scores["__label__spam"]["f1score"] == pytest.approx(2 * 1 / (2 + 2))
    # ham: predicted once (line 2), right; true twice (lines 2 and 3)
    assert scores["__label__ham"] == {"precision": 1.0, "recall": 0.5, "f1score": pytest.approx(2 / 3)}
    # other: never predicted, never true: NaN, as fastText's meter
    assert all(np.isnan(v) for v in scores["__label__other"].values())
    # k = -1: every label predicted on every line: a label's precision is the share of
    # lines it is true on, its recall 1 (its repeats are recalled by one prediction: 1/2)
    per = model.test_label(str(valid), k=-1)
    assert per["__label__ham"] == {"precision": pytest.approx(2 / 3), "recall": 1.0, "f1score": pytest.approx(0.8)}
    assert per["__label__spam"]["precision"] == pytest.approx(1 / 3) and per["__label__spam"]["recall"] == 0.5
    assert per["__label__other"]["precision"] == 0.0 and np.isnan(per["__label__other"]["recall"])


def test_words_are_listed_most_frequent_first_as_fasttexts_dictionary(tmp_path):
    """fastText's dictionary is sorted by count, most frequent first (``Dictionary::threshold``),
    and ``get_words`` lists it in that order; textnb listed the vocabulary's alphabetical column
    order. Now a model that keeps its words' counts (``train_supervised``, and the saved file)
    lists them most frequent first, ties alphabetically, ``include_freq`` in line; a model of
    ``textnb train`` keeps no counts: its column (alphabetical) order, as before."""
    path = tmp_path / "t.txt"
    path.write_text("__label__b zebra zebra zebra apple\n__label__a zebra mango mango\n__label__b kiwi fig\n",
                    encoding="utf-8")
    model = train_supervised(input=str(path))
    order = ["zebra", "mango", "apple", "fig", "kiwi"]
    assert model.get_words() == model.words == order
    words, freq = model.get_words(include_freq=True)
    assert words == order and freq.tolist() == [4, 2, 1, 1, 1]
    model.save_model(str(tmp_path / "m.tnb"))
    loaded = load_model(str(tmp_path / "m.tnb"))
    assert loaded.get_words() == order and loaded.get_words(include_freq=True)[1].tolist() == [4, 2, 1, 1, 1]
    assert model.get_labels() == ["__label__b", "__label__a"]  # (2 documents, 1)
    rc, _, err = cli("train", str(path), "-o", str(tmp_path / "cli.tnb"))
    assert rc == 0, err
    assert load_model(str(tmp_path / "cli.tnb")).get_words() == sorted(order)  # no counts: column order


_SMALL_CORPUS = """__label__sport the team won the match today
__label__sport great goal scored in the final minute of the match
__label__tech new laptop with fast processor released today
__label__tech the software update fixes bugs in the laptop
__label__sport the coach praised the players and the team
__label__tech cloud computing and servers
"""


@pytest.mark.parametrize("ngrams", [1, 2])
def test_get_words_lists_the_words_of_fasttexts_dictionary(tmp_path, ngrams):
    """fastText's ``get_words()`` lists its dictionary's words, most frequent first, and no word
    n-grams (they are hashed buckets, not words); ``get_words(include_freq=True)`` their counts.
    textnb's listed the word bigrams of a ``wordNgrams=2`` model too. Its words are now the same
    words with the same counts, most frequent first, without fastText's ``</s>`` (the end-of-line
    word fastText counts once a line, which textnb's tokenizer does not make: docs/fasttext.md).
    Checked against the ``fasttext`` package when it is installed (its ties are in no set order)."""
    path = tmp_path / "small.txt"
    path.write_text(_SMALL_CORPUS, encoding="utf-8")
    model = train_supervised(input=str(path), wordNgrams=ngrams)
    words, freq = model.get_words(include_freq=True)
    assert words == model.words == model.get_words() and "</s>" not in words
    assert not any(" " in w for w in words) and len(set(words)) == len(words)
    assert freq.dtype == np.int64 and list(freq) == sorted(freq, reverse=True)
    got = dict(zip(words, freq.tolist()))
    assert got["the"] == 9 and got["match"] == 2 and got["cloud"] == 1
    assert load_model_words(model, tmp_path) == (words, freq.tolist())
    fasttext = pytest.importorskip("fasttext")
    # (epoch=0: the dictionary read, no SGD step: fastText's SGD on six lines often stops with 'Encountered NaN')
    real = fasttext.train_supervised(input=str(path), wordNgrams=ngrams, minCount=1, epoch=0, thread=1, verbose=0)
    real_words, real_freq = real.get_words(include_freq=True)
    want = {w: int(n) for w, n in zip(real_words, real_freq) if w != "</s>"}
    assert real_words[:2] == ["the", "</s>"]  # (fastText's end-of-line word: one a line, 6)
    assert got == want
    assert sorted(zip(words, freq.tolist()), key=lambda wn: (-wn[1], wn[0])) == list(zip(words, freq.tolist()))


def load_model_words(model, tmp_path):
    """``(words, counts)`` of ``model`` saved and loaded: the model file keeps them."""
    model.save_model(str(tmp_path / "w.tnb"))
    words, freq = load_model(str(tmp_path / "w.tnb")).get_words(include_freq=True)
    return words, freq.tolist()


def test_get_words_of_a_model_without_words_is_empty():
    """A model of character n-grams, or of word bigrams only, has no word feature: ``words`` is
    empty (fastText's always has words; textnb does not list n-grams as words)."""
    from textnb import TextClassifier, Vectorizer
    from textnb.fasttext import FastTextModel

    docs, labels = ["cheap pills offer", "meeting at noon today"], ["spam", "ham"]
    for vectorizer in (Vectorizer(analyzer="char_wb", ngram_range=(2, 3)), Vectorizer(ngram_range=(2, 2))):
        assert FastTextModel(TextClassifier(vectorizer=vectorizer).fit(docs, labels)).words == []
    words = FastTextModel(TextClassifier(vectorizer=Vectorizer(ngram_range=(1, 3))).fit(docs, labels)).words
    assert words == ["at", "cheap", "meeting", "noon", "offer", "pills", "today"]


def _texts(path, n=None):
    """The texts of a fastText file's lines (the label words left out, as fastText's predict reads a line)."""
    lines = path.read_text(encoding="utf-8").splitlines()[:n]
    return [" ".join(w for w in line.split() if not w.startswith("__label__")) for line in lines]


@pytest.mark.parametrize("train, valid", [("train.txt", "valid.txt"), ("mtrain.txt", "mvalid.txt")])
def test_predict_scores_in_one_pass_with_the_estimators_floats(files, train, valid):
    """``predict`` of one text took 3.6 ms (fastText's 9 us): the estimator's ``predict_log_proba``,
    ``predict_log_odds`` and ``predict_proba``, each validating its input. It now scores through the
    scorer ``textnb predict`` reads the model's file with (one pass): the same labels and the same
    floats, bit for bit, one text at a time and as a list."""
    from textnb.evaluation.topk import best_labels, proba_and_odds

    model = train_supervised(input=str(files / train))
    assert type(model._scoring()[0]).__name__ in ("TextScorer", "MultiLabelScorer")
    texts = _texts(files / valid, 200) + ["", "zzz unknown words"]
    proba, odds = proba_and_odds(model.estimator, texts)  # (the estimator's three passes: what predict gave)
    labels, probas = model.predict(texts, k=-1)
    classes = model._classes()
    for i, text in enumerate(texts):
        kept = best_labels(proba[i], -1, 0.0, ties=odds[i])
        assert labels[i] == [model.label_prefix + classes[j] for j in kept]
        assert np.array_equal(probas[i], proba[i][kept])
        one = model.predict(text, k=-1)
        assert list(one[0]) == labels[i] and np.array_equal(one[1], probas[i])


def test_predict_of_a_model_no_file_holds_scores_with_the_estimator():
    """A model the scorer cannot be made of (a callable analyzer: no model file holds it) is scored
    by the estimator, as before; a new estimator put in the model's place is the one scored."""
    from textnb import TextClassifier, Vectorizer
    from textnb.fasttext import FastTextModel

    docs, labels = ["cheap pills offer", "meeting at noon today"] * 3, ["spam", "ham"] * 3
    model = FastTextModel(TextClassifier(vectorizer=Vectorizer(analyzer=str.split)).fit(docs, labels))
    assert model._scoring()[0] is model.estimator
    assert model.predict("cheap pills")[0] == ("__label__spam",)
    model.estimator = TextClassifier().fit(docs, ["ham", "spam"] * 3)
    assert model.predict("cheap pills")[0] == ("__label__ham",)


def test_loss_ova_trains_one_model_per_label_as_textnb_train_method_ovr(files, tmp_path):
    """fastText's ``loss='ova'`` (one-vs-all: each label's probability its own; its tutorial's
    recipe for several labels with ``predict(k=-1, threshold=0.5)``) was ignored with a warning:
    the default multi-label model's probabilities sum to 1, so threshold 0.5 kept one label at
    most. It trains ``MultiLabelNB(method="ovr")`` now, the model ``textnb train --method ovr``
    fits, with no warning; another loss is still ignored with one."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = train_supervised(input=str(files / "mtrain.txt"), loss="ova")
    assert model.estimator.model_.method == "ovr"
    path = tmp_path / "ovr.tnb"
    _cli("train", files / "mtrain.txt", "--method", "ovr", "-o", path)
    for k, threshold in ((1, 0.0), (-1, 0.5)):
        shown = json.loads(_cli("test", path, files / "mvalid.txt", k, threshold, "--json"))
        assert model.test(str(files / "mvalid.txt"), k=k, threshold=threshold) == (
            shown["n"], shown["precision"], shown["recall"])
    # one model per label on a single-label file too: probabilities that need not sum to 1
    single = train_supervised(input=str(files / "train.txt"), loss="ova")
    assert single.estimator.model_.method == "ovr"
    assert not np.isclose(single.predict("see you at noon", k=-1)[1].sum(), 1.0)
    with pytest.warns(UserWarning, match="loss='hs' chooses how fastText trains its embeddings"):
        train_supervised(input=str(files / "train.txt"), loss="hs")


@pytest.mark.parametrize("loss", ["ovr", "OVA", "", None, 1])
def test_a_loss_fasttext_does_not_have_is_refused_naming_its_four(files, loss):
    """``loss="ovr"`` (a typo for ``"ova"``) trained the plain model with a warning that loss is
    ignored; fastText accepts only ns, hs, softmax and ova (``ValueError("Unrecognized loss
    name")``): so does textnb, naming the value and the four, before reading the file."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # refused, not warned about
        with pytest.raises(ValueError, match=r"loss must be one of 'ns', 'hs', 'softmax', 'ova'.*got " +
                           re.escape(repr(loss))):
            train_supervised(input=str(files / "missing.txt"), loss=loss)


@pytest.fixture(scope="module")
def plain(files):
    """The model of train.txt without ``loss``."""
    return train_supervised(input=str(files / "train.txt"))


@pytest.mark.parametrize("loss", ["ns", "hs", "softmax"])
def test_an_embedding_loss_changes_nothing_and_the_warning_says_why(files, plain, loss):
    """ns / hs / softmax choose how fastText trains its embeddings: the model is the one without
    ``loss`` (the same predictions), and the one warning says that, not that every loss is ignored."""
    with pytest.warns(UserWarning) as caught:
        model = train_supervised(input=str(files / "train.txt"), loss=loss)
    (message,) = [str(w.message) for w in caught]
    assert f"loss={loss!r} chooses how fastText trains its embeddings" in message
    assert "loss='ova' trains one model per label" in message and "loss set" not in message
    texts = ["see you at noon", "WINNER claim your free prize now"]
    (labels, probs), (plain_labels, plain_probs) = model.predict(texts, k=-1), plain.predict(texts, k=-1)
    assert labels == plain_labels
    np.testing.assert_array_equal(np.asarray(probs), np.asarray(plain_probs))


def test_the_default_is_the_model_textnb_train_fits_and_word_ngrams_is_honoured(files, tmp_path):
    """``train_supervised(input)`` fitted ``Vectorizer(ngram_range=(1, 1))`` (fastText's
    ``wordNgrams=1``), not textnb's default pipeline (short texts: words and the bigrams of two
    documents or more) that ``textnb train`` fits and docs/fasttext.md promised. Without
    ``wordNgrams`` it is now that model, its file byte for byte ``textnb train``'s but for the
    words' counts it keeps; a ``wordNgrams`` given is honoured."""
    model = train_supervised(input=str(files / "train.txt"))
    assert model.estimator.vectorizer_.get_params()["ngram_range"] == (1, 2)  # (SMS: short texts)
    del model.estimator.vectorizer_.term_counts_
    model.save_model(tmp_path / "lib.tnb")
    _cli("train", files / "train.txt", "-o", tmp_path / "cli.tnb")
    assert (tmp_path / "lib.tnb").read_bytes() == (tmp_path / "cli.tnb").read_bytes()
    for n in (1, 2):
        params = train_supervised(input=str(files / "train.txt"), wordNgrams=n).estimator.vectorizer_.get_params()
        assert params["ngram_range"] == (1, n) and params["min_df"] == 1
    with pytest.raises(ValueError, match="wordNgrams must be"):
        train_supervised(input=str(files / "train.txt"), wordNgrams=0)


def test_min_count_is_named_for_what_it_is(files):
    """``minCount`` was said to 'set fastText's embeddings and SGD'; it cuts fastText's dictionary by
    a word's count, which textnb's vocabulary cannot do (min_df counts documents): the warning says so."""
    with pytest.warns(UserWarning) as caught:
        train_supervised(input=str(files / "train.txt"), minCount=3, epoch=5)
    (message,) = [str(w.message) for w in caught]
    assert "epoch set fastText's embeddings and SGD" in message and "minCount" in message
    assert "by a term's count" in message and "minCount set" not in message


def test_ids_lines_and_tokenize_as_fasttexts(files):
    """``get_word_id``, ``get_label_id``, ``get_line`` and ``textnb.fasttext.tokenize`` were
    AttributeErrors; they answer as fastText's (the values below are the ``fasttext`` package's
    0.9.2, and compared with it when it is installed)."""
    from textnb.fasttext import tokenize

    model = train_supervised(input=str(files / "train.txt"))
    words, labels = model.get_words(), model.get_labels()
    assert [model.get_word_id(w) for w in words[:50]] == list(range(50))
    assert model.get_word_id("free") == words.index("free") and model.get_word_id("zzzunknown") == -1
    assert model.get_word_id("FREE") == -1  # (the model's words are lower-cased tokens)
    assert [model.get_label_id(lab) for lab in labels] == list(range(len(labels)))
    assert model.get_label_id("spam") == -1 and model.get_label_id("__label__nope") == -1
    assert model.get_line("hello __label__x world  foo\tbar") == (["hello", "world", "foo", "bar", "</s>"], [])
    assert model.get_line("__label__spam Free __label__zz entry") == (["Free", "entry", "</s>"], ["__label__spam"])
    assert model.get_line(["a __label__ham c", "d"]) == ([["a", "c", "</s>"], ["d", "</s>"]], [["__label__ham"], []])
    assert model.get_line("") == (["</s>"], [])
    with pytest.raises(ValueError, match="one line at a time"):
        model.get_line("a\nb")
    cases = {"a\n\nb": ["a", "</s>", "</s>", "b"], "a\rb\vc\fd\x00e": ["a", "b", "c", "d", "e"],
             "x\u00a0y": ["x\u00a0y"], "": [], "  ": [], "\n": ["</s>"], "a\n": ["a", "</s>"], "é b": ["é", "b"]}
    assert {text: tokenize(text) for text in cases} == cases
    fasttext = pytest.importorskip("fasttext")
    assert {text: fasttext.tokenize(text) for text in cases} == cases


def test_word_vectors_are_refused_in_one_line_and_the_model_is_not_quantized(files):
    """fastText's methods of word vectors were AttributeErrors; they raise a textnb error saying a
    naive Bayes model has none (no vector made up); ``is_quantized()`` is False."""
    from textnb.core.errors import TextnbError
    from textnb.fasttext import NoWordVectors

    model = train_supervised(input=str(files / "train.txt"))
    for call in (lambda: model.get_word_vector("free"), lambda: model.get_sentence_vector("free prize"),
                 lambda: model.get_dimension(), lambda: model.get_subwords("free"),
                 lambda: model.get_subword_id("fr"), lambda: model.set_matrices(None, None)):
        with pytest.raises(NoWordVectors, match="a naive Bayes model has no word vectors") as caught:
            call()
        assert isinstance(caught.value, TextnbError) and "\n" not in str(caught.value)
    assert model.is_quantized() is False


@pytest.mark.parametrize("train, valid", [("train.txt", "valid.txt"), ("mtrain.txt", "mvalid.txt")])
def test_quantize_with_a_cutoff_keeps_the_most_informative_terms(files, tmp_path, train, valid):
    """``quantize`` was an AttributeError. A naive Bayes model has no embeddings to quantize:
    ``cutoff=0`` says so in one warning and leaves the model as it is; ``cutoff=N`` keeps the N
    terms of largest information gain and drops the others, so the saved file is smaller and
    reads back as the model (``textnb test`` of it counts as ``model.test``)."""
    model = train_supervised(input=str(files / train))
    before = model.estimator
    with pytest.warns(UserWarning, match="no embeddings to quantize; the model is unchanged"):
        model.quantize()
    assert model.estimator is before
    model.save_model(tmp_path / "full.tnb")
    full = model.test(str(files / valid))
    n_terms = len(before.vectorizer_.get_feature_names_out())
    model.quantize(cutoff=300)
    terms = model.estimator.vectorizer_.get_feature_names_out()
    assert len(terms) == 300 and set(terms) <= set(before.vectorizer_.get_feature_names_out()) and n_terms > 300
    assert set(model.words) <= set(terms) and model.get_words(include_freq=True)[1].sum() > 0  # (counts kept)
    model.save_model(tmp_path / "q.tnb")
    assert (tmp_path / "q.tnb").stat().st_size < (tmp_path / "full.tnb").stat().st_size / 3
    shown = json.loads(_cli("test", tmp_path / "q.tnb", files / valid, "--json"))
    n, p, r = model.test(str(files / valid))
    assert (n, p, r) == (shown["n"], shown["precision"], shown["recall"]) == load_model(tmp_path / "q.tnb").test(
        str(files / valid))
    assert p >= full[1] - 0.02  # (SMS: 300 of the terms keep its accuracy)
    model.quantize(cutoff=10**6)  # (more than it has: every term kept)
    assert len(model.estimator.vectorizer_.get_feature_names_out()) == 300
    with pytest.warns(UserWarning, match="dsub, qnorm set fastText.s product quantization"):
        model.quantize(cutoff=100, dsub=4, qnorm=True)


def test_quantize_refuses_a_model_it_cannot_cut_and_a_bad_cutoff(files):
    from textnb import TextClassifier
    from textnb.core.errors import ParameterError
    from textnb.fasttext import FastTextModel
    from textnb.meta.calibration import CalibratedNB
    from textnb.naive_bayes import MultinomialNB

    docs, labels = ["cheap pills offer", "meeting at noon today"] * 10, ["spam", "ham"] * 10
    model = FastTextModel(TextClassifier(model=CalibratedNB(MultinomialNB(), cv=2)).fit(docs, labels))
    with pytest.raises(ParameterError, match=r"quantize\(cutoff=2\) drops the terms of a count text model"):
        model.quantize(cutoff=2)
    for cutoff in (-1, 1.5, True):
        with pytest.raises(ValueError, match="cutoff must be"):
            model.quantize(cutoff=cutoff)


def test_test_of_a_file_without_a_labelled_line_is_fasttexts_zero_nan_nan(files, tmp_path):
    """fastText's ``model.test`` of a file with no labelled line (or an empty one) is ``(0, nan,
    nan)``; textnb's raised 'no line has a label' (``textnb test`` still says so)."""
    model = train_supervised(input=str(files / "train.txt"))
    (tmp_path / "nolabel.txt").write_text("hello world\nfoo bar\n", encoding="utf-8")
    (tmp_path / "empty.txt").write_text("", encoding="utf-8")
    for name in ("nolabel.txt", "empty.txt"):
        n, p, r = model.test(str(tmp_path / name))
        assert n == 0 and np.isnan(p) and np.isnan(r)
        scores = model.test_label(str(tmp_path / name))
        assert list(scores) == model.get_labels() and all(np.isnan(v) for s in scores.values() for v in s.values())
    with pytest.raises(ValueError, match="k must be"):  # (the arguments still checked first)
        model.test(str(tmp_path / "empty.txt"), k=0)
    with pytest.raises(Exception, match="no such file"):  # (a missing file is no empty one)
        model.test(str(tmp_path / "missing.txt"))


def test_predict_follows_the_estimator_fitted_again_in_place(tmp_path):
    """``model.predict`` scores with a scorer made once for its estimator; fitting
    ``model.estimator`` again in place (new fitted model and vectorizer) makes a new one
    (it answered with the model before the fit: found by the lead's review of the scorer cache)."""
    from textnb.fasttext import train_supervised

    path = tmp_path / "a.txt"
    path.write_text("__label__x good fine nice\n__label__y bad awful poor\n" * 20, encoding="utf-8")
    model = train_supervised(str(path))
    assert model.predict("good fine")[0] == ("__label__x",)
    model.estimator.fit(["bad awful poor", "good fine nice"] * 20, ["x", "y"] * 20)
    assert model.predict("good fine")[0] == ("__label__y",)
    assert model.predict(["good fine", "bad awful"])[0] == [["__label__y"], ["__label__x"]]
    model.estimator.fit(["good fine nice"] * 30 + ["bad awful poor"] * 10 + ["odd word"] * 5,
                        ["x"] * 30 + ["y"] * 10 + ["z"] * 5)
    labels, counts = model.get_labels(include_freq=True)
    assert labels == ["__label__x", "__label__y", "__label__z"] and list(counts) == [30, 10, 5]
    assert model.get_label_id("__label__z") == 2 and model.get_word_id("odd") >= 0
