"""The count text models' kernels: one set of defaults, one linear form, one model-file state
for the estimator, the scikit-learn-free trainer and the model-file scorer."""

import copy
import subprocess
import sys

import numpy as np
import pytest

from textnb import BernoulliNB, ComplementNB, MultinomialNB, TextClassifier, Vectorizer, load
from textnb.core.errors import ModelFileError
from textnb.core.model_io import model_class, read_nodes, save
from textnb.naive_bayes.discriminative import DiscriminativeNB
from textnb.naive_bayes.kernels import KERNELS, takes_defaults
from textnb.text.defaults import TEXT_CLASSIFIER_DEFAULTS, VECTORIZER_DEFAULTS
from textnb.text.scorer import TextScorer, load_for_prediction, scorer_from_file
from textnb.text.training import train_text_model

from conftest import cli, one_error_line

#: every kind, with non-default settings that reach each rule of its kernel
SETTINGS = {
    "MultinomialNB": [{}, {"m": 2.0, "fit_prior": False}, {"alpha": 0.01, "class_prior": [0.3, 0.7]}],
    "BernoulliNB": [{}, {"binarize": 1.0, "alpha": 0.5}, {"m": 3.0}],
    "ComplementNB": [{}, {"norm": True, "alpha": 0.3}, {"m": 1.5}],
    "DiscriminativeNB": [{}, {"event_model": "bernoulli", "calibration": None}],
}
CASES = [(kind, params) for kind, many in SETTINGS.items() for params in many]


def test_every_count_kind_has_a_kernel():
    assert sorted(KERNELS) == sorted(SETTINGS)


@pytest.mark.parametrize("kind", sorted(KERNELS))
def test_kernel_defaults_are_the_estimators(kind):
    estimator = model_class(kind)()
    assert dict(KERNELS[kind].defaults) == estimator.get_params(deep=False)
    assert type(estimator)._param_schema is KERNELS[kind].param_schema
    assert type(estimator)._state_schema is KERNELS[kind].state_schema


def test_text_pipeline_defaults_are_the_estimators():
    assert dict(VECTORIZER_DEFAULTS) == Vectorizer().get_params(deep=False)
    assert dict(TEXT_CLASSIFIER_DEFAULTS) == TextClassifier().get_params(deep=False)


def test_takes_defaults_refuses_other_names():
    with pytest.raises(TypeError, match="keyword-only parameters"):
        @takes_defaults(KERNELS["MultinomialNB"])
        def __init__(self, *, alpha, fit_prior):
            pass


@pytest.fixture(scope="module")
def corpus(sms):
    docs, labels = sms
    return docs[:1500], labels[:1500], docs[4000:4300] + ["", "zzzz unknownword", "x" * 300]


@pytest.mark.parametrize("kind, params", CASES, ids=[f"{k}-{i}" for k, m in SETTINGS.items() for i in range(len(m))])
def test_estimator_trainer_and_scorer_score_alike(kind, params, corpus, tmp_path):
    """The estimator fitted in memory, the scikit-learn-free trainer's model file, and the
    scorer of either file: the same scores to the last bit."""
    X, y, queries = corpus
    clf = TextClassifier(vectorizer=Vectorizer(), model=model_class(kind)(**params)).fit(X, y)
    clf.save(tmp_path / "lib.tnb")
    root, skipped = train_text_model(X, y, model=(kind, params))
    assert skipped == []
    save(root, tmp_path / "trained.tnb")
    assert (tmp_path / "trained.tnb").read_bytes() == (tmp_path / "lib.tnb").read_bytes()

    expected = clf.predict_joint_log_proba(queries)
    assert np.all(np.isfinite(expected))
    for name in ("lib.tnb", "trained.tnb"):
        scorer = scorer_from_file(tmp_path / name)
        assert isinstance(scorer, TextScorer)
        np.testing.assert_array_equal(scorer.predict_joint_log_proba(queries), expected)
        np.testing.assert_array_equal(scorer.predict_joint_log_proba(queries[:5]), expected[:5])  # numpy path
        np.testing.assert_array_equal(load(tmp_path / name).predict_joint_log_proba(queries), expected)

    # the scorer's form is the kernel's form of the estimator (one computation)
    node = read_nodes(tmp_path / "lib.tnb").state["model_"]
    form = KERNELS[kind].node_form(node, len(clf.vectorizer_.vocabulary_))
    np.testing.assert_array_equal(form.weights, clf.model_._form.weights)
    np.testing.assert_array_equal(form.bias, clf.model_._form.bias)
    assert list(form.classes) == list(clf.classes_)


@pytest.fixture(scope="module")
def fitted(corpus):
    X, y, _ = corpus
    return {kind: TextClassifier(model=model_class(kind)()).fit(X[:600], y[:600]) for kind in KERNELS}


CORRUPTIONS = [
    ("a negative count", lambda m: m.feature_count_.__setitem__((0, 0), -1.0)),
    ("a NaN class count", lambda m: m.class_count_.__setitem__(0, np.nan)),
    ("a short count table", lambda m: setattr(m, "feature_count_", m.feature_count_[:, :-1])),
]


@pytest.mark.parametrize("kind", sorted(KERNELS))
@pytest.mark.parametrize("what, corrupt", CORRUPTIONS, ids=[c[0] for c in CORRUPTIONS])
def test_a_corrupted_state_is_one_model_file_error(kind, what, corrupt, fitted, tmp_path):
    clf = copy.deepcopy(fitted[kind])  # the fixture stays intact
    corrupt(clf.model_)
    path = tmp_path / "bad.tnb"
    save(clf, path, check=False)  # crafted: save itself refuses it
    node = read_nodes(path).state["model_"]
    with pytest.raises(ModelFileError, match=f"inconsistent model file \\({kind}"):
        KERNELS[kind].node_form(node, node.state["n_features_in_"])
    assert scorer_from_file(path) is None  # load reports it, in its own words
    with pytest.raises(ModelFileError) as by_load:
        load(path)
    with pytest.raises(ModelFileError) as by_scorer_path:
        load_for_prediction(path)
    assert str(by_scorer_path.value) == str(by_load.value)
    assert str(by_load.value).startswith(str(path)) and "\n" not in str(by_load.value)
    doc = tmp_path / "doc.txt"
    doc.write_text("free prize")
    rc, _, err = cli("predict", path, doc)
    assert rc != 0
    one_error_line(err, str(path), "inconsistent model file")


def test_a_discriminative_scale_out_of_range_is_refused(fitted, tmp_path):
    clf = fitted["DiscriminativeNB"]
    node = read_nodes(_saved(clf, tmp_path)).state["model_"]
    node.state["scale_"] = 1e9
    with pytest.raises(ModelFileError, match=r"DiscriminativeNB\.scale_"):
        KERNELS["DiscriminativeNB"].node_form(node, node.state["n_features_in_"])


def _saved(clf, tmp_path):
    path = tmp_path / "m.tnb"
    clf.save(path)
    return path


def test_bernoulli_without_smoothing_is_scored_by_the_estimator(corpus, tmp_path):
    """alpha=0: probabilities of 0 and 1 are no finite linear form; the scorer leaves such a
    model to the estimator, which scores absent terms exactly."""
    X, y, queries = corpus
    clf = TextClassifier(model=BernoulliNB(alpha=0.0)).fit(X, y)
    path = _saved(clf, tmp_path)
    assert scorer_from_file(path) is None
    model = load_for_prediction(path)
    assert isinstance(model, TextClassifier)
    np.testing.assert_array_equal(model.predict(queries), clf.predict(queries))


def test_kernels_import_neither_scikit_learn_nor_scipy():
    probe = ("import sys\nimport textnb.naive_bayes.kernels, textnb.core.estimates\n"
             "print(sorted(m for m in sys.modules if m.split('.')[0] in ('sklearn', 'scipy')))\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("estimator", [MultinomialNB(), BernoulliNB(), ComplementNB(), DiscriminativeNB()],
                         ids=lambda e: type(e).__name__)
def test_state_round_trips_through_the_kernel(estimator, sms_counts, tmp_path):
    X, y, Xt, _ = sms_counts
    estimator.fit(X[:800], y[:800])
    kernel = KERNELS[type(estimator).__name__]
    state = estimator._get_state()
    assert list(state) == [f for f in kernel.state_fields if f in state]  # the file's order, fixed
    back = load(_saved(estimator, tmp_path))
    np.testing.assert_array_equal(back.predict_joint_log_proba(Xt[:200]), estimator.predict_joint_log_proba(Xt[:200]))
