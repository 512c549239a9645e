"""The scikit-learn-free scorer predicts exactly what the loaded estimator predicts."""

import json
import subprocess
import sys

import numpy as np
import pytest

from textnb import BernoulliNB, ComplementNB, MultinomialNB, TextClassifier, Vectorizer, load
from textnb.core.errors import ModelFileError
from textnb.core.model_io import save
from textnb.text.scorer import TextScorer, load_for_prediction, scorer_from_file
from textnb.text.stop_words import ENGLISH_STOP_WORDS

from conftest import CORPORA


def _sms(n=None):
    rows = (CORPORA / "sms_spam" / "SMSSpamCollection.tsv").read_text(encoding="utf-8").splitlines()
    pairs = [r.split("\t", 1) for r in rows if "\t" in r][:n]
    return [p[1] for p in pairs], [p[0] for p in pairs]


TEXTS, LABELS = _sms()
QUERIES = TEXTS[:300] + ["", "zzzz unknownword", "Free entry in 2 a wkly comp to win FA Cup £££ ünïcödé", "x" * 300]

CASES = {
    "multinomial": (Vectorizer(), MultinomialNB()),
    "multinomial-m": (Vectorizer(ngram_range=(1, 2)), MultinomialNB(m=2.0)),
    "multinomial-prior": (Vectorizer(stop_words="english"), MultinomialNB(class_prior=[0.3, 0.7])),
    "multinomial-uniform": (Vectorizer(binary=True), MultinomialNB(alpha=0.01, fit_prior=False)),
    "bernoulli": (Vectorizer(), BernoulliNB()),
    "bernoulli-binarize": (Vectorizer(), BernoulliNB(binarize=1.0)),
    "bernoulli-binary-vec": (Vectorizer(binary=True, lowercase=False), BernoulliNB(alpha=0.5)),
    "complement": (Vectorizer(min_df=2), ComplementNB()),
    "complement-norm": (Vectorizer(), ComplementNB(norm=True, alpha=0.3)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_scorer_equals_the_loaded_estimator_bit_for_bit(case, tmp_path):
    vectorizer, model = CASES[case]
    clf = TextClassifier(vectorizer=vectorizer, model=model).fit(TEXTS[:3000], LABELS[:3000])
    path = tmp_path / "m.tnb"
    clf.save(path)
    scorer = scorer_from_file(path)
    assert isinstance(scorer, TextScorer)
    loaded = load(path)
    assert list(scorer.classes_) == list(loaded.classes_)
    np.testing.assert_array_equal(scorer.predict_joint_log_proba(QUERIES), loaded.predict_joint_log_proba(QUERIES))
    np.testing.assert_array_equal(scorer.predict_log_odds(QUERIES), loaded.predict_log_odds(QUERIES))
    few = QUERIES[:3] + QUERIES[-4:]  # looked up in a dict (many: TermKeys)
    np.testing.assert_array_equal(scorer.predict_log_proba(few), loaded.predict_log_proba(few))
    np.testing.assert_array_equal(scorer.predict_log_odds(few), loaded.predict_log_odds(few))
    np.testing.assert_array_equal(scorer.predict(QUERIES), loaded.predict(QUERIES))


def test_models_that_are_not_linear_load_as_estimators(tmp_path):
    """BernoulliNB with probabilities of 0 and 1 (``alpha=0``) is not linear, nor is APNBC around it (APNBC around
    a linear model is: tests/text/test_adjusted_text.py)."""
    import warnings

    from textnb import APNBC, BernoulliNB

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = TextClassifier(model=APNBC(BernoulliNB(alpha=0.0, force_alpha=True))).fit(TEXTS[:800], LABELS[:800])
    path = tmp_path / "apnbc.tnb"
    clf.save(path)
    assert scorer_from_file(path) is None
    assert isinstance(load_for_prediction(path), TextClassifier)
    TextClassifier(model=APNBC()).fit(TEXTS[:800], LABELS[:800]).save(path)
    assert scorer_from_file(path) is not None


def test_a_damaged_file_gives_the_same_error_as_load(tmp_path):
    path = tmp_path / "bad.tnb"
    path.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(ModelFileError) as a:
        scorer_from_file(path)
    with pytest.raises(ModelFileError) as b:
        load(path)
    assert str(a.value) == str(b.value)


def test_an_inconsistent_count_table_falls_back_to_load_and_its_error(tmp_path):
    clf = TextClassifier().fit(TEXTS[:500], LABELS[:500])
    clf.model_.feature_count_ = clf.model_.feature_count_[:, :-1]  # one column short
    clf.model_.n_features_in_ -= 1
    path = tmp_path / "short.tnb"
    save(clf, path, check=False)  # crafted: save itself refuses it
    assert scorer_from_file(path) is None
    with pytest.raises(ModelFileError, match="inconsistent"):
        load_for_prediction(path)


def test_stop_word_list_is_scikit_learns():
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS as SKLEARN

    assert ENGLISH_STOP_WORDS == SKLEARN


def test_predict_and_spamfilter_import_no_scikit_learn(tmp_path):
    model = tmp_path / "sms.tnb"
    TextClassifier().fit(TEXTS, LABELS).save(model)
    doc = tmp_path / "doc.txt"
    doc.write_text("WINNER!! claim your free prize now, call 09061701461")
    probe = (
        "import sys, io, contextlib\n"
        "from textnb.cli.commands import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        f"    rc = main(['predict', {str(model)!r}, {str(doc)!r}, '--json', '--proba'])\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('sklearn', 'scipy'))\n"
        "print(rc, heavy, out.getvalue().strip())\n"
    )
    rc, rest = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                              check=True).stdout.split(" ", 1)
    heavy, _, record = rest.partition("] ")
    assert rc == "0" and heavy == "["
    assert json.loads(record)["label"] == "spam"
