"""``textnb evaluate --cv K`` on documents makes every data-dependent choice on each fold's
training part alone: the vocabulary's pruning (``--min-df``, ``--max-df``,
``--max-features``), term selection (``--select``), idf (``--weighting``) and the model's own
choices (DiscriminativeNB's, a calibration's) give, fold by fold, what a
:class:`~textnb.text.classifier.TextClassifier` fitted on the training part's documents
(its vectorizer too) predicts for the held-out part; a term of the held-out part only
never counts.

The reference here is independent of ``cross_validate``'s one-count-matrix shortcut
(``vectorize_all`` then ``fold_counts``): each fold's documents are vectorised from
scratch by a fresh TextClassifier, on the folds evaluate makes
(:func:`textnb.core.folds.stratified_kfold` with the seed)."""

import json

import numpy as np
import pytest

from conftest import SMS_TSV, cli, quick_first, tsv

pytestmark = pytest.mark.skipif(not SMS_TSV.exists(), reason="bundled SMS collection missing")

N_DOCS, FOLDS, SEED = 900, 3, 4


def _options(args):
    from textnb.cli.commands import build_parser
    from textnb.meta.registry import ModelOptions

    return ModelOptions.from_namespace(build_parser().parse_args(["evaluate", "x.tsv", *args]))


def _by_hand(docs, y, args, folds, seed):
    """Pooled out-of-fold (predictions, probabilities of the sorted classes): each fold a
    fresh TextClassifier of the options, fitted on the training part's documents."""
    from textnb.core.folds import stratified_kfold
    from textnb.meta.registry import make_text_classifier

    classes = np.unique(y)
    pred = np.empty(len(y), dtype=object)
    proba = np.zeros((len(y), len(classes)))
    for train, test in stratified_kfold(y, folds, seed):
        # (--seed is the folds' seed and the model's random_state: DiscriminativeNB's inner folds)
        clf = make_text_classifier(_options([*args, "--seed", str(seed)])).fit([docs[i] for i in train], y[train])
        assert list(clf.classes_) == list(classes)
        p = clf.predict_proba([docs[i] for i in test])
        proba[test] = p
        pred[test] = classes[np.argmax(p, axis=1)]
    return pred, proba, classes


@pytest.fixture(scope="module")
def sms_part(tmp_path_factory):
    """The first N_DOCS SMS messages: a TSV file and its (documents, labels)."""
    lines = SMS_TSV.read_text(encoding="utf-8").splitlines()[:N_DOCS]
    path = tmp_path_factory.mktemp("cv") / "sms.tsv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    rows = [line.split("\t", 1) for line in lines]
    return path, [text for _, text in rows], np.asarray([label for label, _ in rows])


OPTIONS = [["--model", "multinomial", "--max-features", "150"],
           ["--model", "multinomial", "--min-df", "3"],
           ["--min-df", "2", "--max-features", "300"],  # the default model, DiscriminativeNB
           ["--model", "bernoulli", "--max-df", "0.02"],
           ["--model", "multinomial", "--select", "chi2:80"],
           ["--model", "bernoulli", "--select", "ig:80"],
           ["--model", "multinomial", "--select", "df:80"],
           ["--weighting", "--max-features", "400"],
           ["--stop-words", "english", "--max-features", "120", "--model", "multinomial"],
           ["--calibrate", "sigmoid", "--min-df", "2"],
           ["--calibrate", "isotonic", "--model", "multinomial", "--max-features", "200"],
           ["--model", "auto", "--min-df", "2"],  # (the smoothing chosen by inner folds of the training part)
           # (APNBC's weights learnt on inner folds, each with its own vocabulary: --min-df counted on it)
           ["--adjust", "--adjust-on", "cv", "--model", "multinomial", "--min-df", "2", "--significance", "1"],
           ["--ngram", "2", "--max-features", "250", "--model", "multinomial"],
           # presence: --max-features ranks terms by document frequency, as scikit-learn's binary
           # CountVectorizer and training do (not by their summed counts)
           ["--binary", "--max-features", "60", "--model", "bernoulli"],
           ["--binary", "--max-features", "60", "--model", "auto"],
           []]


@pytest.mark.parametrize("args", quick_first(OPTIONS, keep=3), ids=lambda a: " ".join(a) or "default")
def test_evaluate_cv_is_a_fresh_fit_on_each_training_part(sms_part, args):
    """accuracy, confusion matrix and log-loss of ``evaluate --cv 3 --json`` are those of a
    TextClassifier fitted on each training part's documents and predicting the held-out ones."""
    from textnb.evaluation.evaluate import log_loss  # (the metric: clipped to [eps, 1 - eps])

    path, docs, y = sms_part
    rc, out, err = cli("evaluate", path, "--cv", FOLDS, "--seed", SEED, "--json", *args)
    assert rc == 0, err
    report = json.loads(out)
    pred, proba, classes = _by_hand(docs, y, args, FOLDS, SEED)
    assert report["classes"] == classes.tolist()
    assert report["folds"] == FOLDS and report["n"] == len(y)
    want = [[int(np.sum((y == a) & (pred == b))) for b in classes] for a in classes]
    assert report["confusion_matrix"] == want
    assert report["accuracy"] == pytest.approx(float(np.mean(pred == y)), abs=1e-12)
    assert report["log_loss"] == pytest.approx(log_loss(y, proba, classes), rel=1e-9, abs=1e-12)


def _probe_corpus(tmp_path, n=12):
    """A two-class corpus whose held-out part of fold 0 (evaluate's folds: 2, seed 0) alone
    holds the term ``ghost``, 200 times in each of its documents; every spam document is
    ``spamword`` 20 times, every ham document ``hamword`` 5 times. Per fold, ``ghost`` is no
    term of fold 0's training part, so every document is classified by ``spamword`` /
    ``hamword``: all right. A vocabulary pruned or chosen on all the documents would hold
    ``ghost`` (the most frequent term of all) with no training count: a term every class
    gives its smoothed, length-dependent probability, 200 times, which pulls fold 0's spam
    documents to ham (the class of fewer tokens). ``--max-features 3`` on all the documents
    keeps ``ghost`` (their most frequent term); on fold 0's training part, which has only two
    terms, it cannot."""
    from textnb.core.folds import stratified_kfold

    y = np.asarray(["ham", "spam"] * n)
    (train, held_out), _ = stratified_kfold(y, 2, 0)
    held = set(held_out.tolist())
    rows = []
    for i, label in enumerate(y):
        text = " ".join(["hamword"] * 5 if label == "ham" else ["spamword"] * 20)
        if i in held:
            text += " ghost" * 200
        rows.append((label, text))
    return tsv(tmp_path / "probe.tsv", rows), y, held_out


# (the last two, the default DiscriminativeNB, are all right with a global vocabulary too: an untrained
# term does not pull it; for it the fresh-fit comparison above is the check)
@pytest.mark.parametrize("args", [["--model", "multinomial"], ["--model", "multinomial", "--max-features", "3"],
                                  ["--model", "multinomial", "--min-df", "2"],
                                  ["--model", "multinomial", "--select", "df:3"], [], ["--max-features", "3"]],
                         ids=lambda a: " ".join(a) or "default")
def test_a_term_of_the_held_out_part_only_never_counts(tmp_path, args):
    """The leakage probe (it cannot pass by accident): with per-fold vocabularies every
    document is right; the test checks first that a model knowing ``ghost`` untrained gets
    fold 0's spam wrong, so a global vocabulary would show."""
    from textnb.naive_bayes.discrete import MultinomialNB
    from textnb.text.classifier import TextClassifier
    from textnb.text.vectorizer import Vectorizer

    path, y, held_out = _probe_corpus(tmp_path)
    rows = [line.split("\t", 1) for line in path.read_text(encoding="utf-8").splitlines()[1:]]
    docs = [text for _, text in rows]
    # the leak, made on purpose: a vocabulary of all the documents, the model fitted on fold 0's training part
    vec = Vectorizer().fit(docs)
    train = np.setdiff1d(np.arange(len(y)), held_out)
    leaky = MultinomialNB().fit(vec.transform([docs[i] for i in train]), y[train])
    wrong = leaky.predict(vec.transform([docs[i] for i in held_out])) != y[held_out]
    assert wrong.any() and set(y[held_out][wrong]) == {"spam"}
    # per fold, as evaluate does it
    fresh = TextClassifier(vectorizer=Vectorizer(), model=MultinomialNB()).fit([docs[i] for i in train], y[train])
    assert list(fresh.predict([docs[i] for i in held_out])) == list(y[held_out])
    rc, out, err = cli("evaluate", path, "--cv", 2, "--json", *args)
    assert rc == 0, err
    report = json.loads(out)
    assert report["accuracy"] == 1.0
    assert report["confusion_matrix"] == [[len(y) // 2, 0], [0, len(y) // 2]]
