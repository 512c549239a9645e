"""The scikit-learn-free scorer reads wrapped text models (term selection, term weighting,
SmoothingCV, CalibratedNB, a binary vectorizer) and predicts what the loaded estimator
predicts; ``textnb predict``, ``textnb serve`` and ``topicfilter`` on such files import no
scikit-learn."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from textnb import load
from textnb.core.model_io import read_nodes, save
from textnb.meta.registry import ModelOptions, make_text_classifier
from textnb.text.scorer import CalibrationMap, SelectColumns, TextScorer, WeighCells, scorer_from_file

from conftest import CORPORA, REPO, quick_first



def _sms():
    rows = (CORPORA / "sms_spam" / "SMSSpamCollection.tsv").read_text(encoding="utf-8").splitlines()
    pairs = [r.split("\t", 1) for r in rows if "\t" in r]
    return [p[1] for p in pairs], [p[0] for p in pairs]


TEXTS, LABELS = _sms()
EDGE = ["", "zzzz unknownword", "Free entry in 2 a wkly comp to win FA Cup £££ ünïcödé", "x" * 300, "the the the"]

#: option sets of ``textnb train`` -> what the scorer must hold
OPTIONS = {
    "weighting": (dict(weighting=True), [WeighCells], False),
    "select-chi2": (dict(select="chi2:500"), [SelectColumns], False),
    "select-ig-multinomial": (dict(select="ig:300", model="multinomial"), [SelectColumns], False),
    "select-df-weighting-complement": (dict(select="df:400", weighting=True, model="complement"),
                                       [SelectColumns, WeighCells], False),
    "calibrate-sigmoid": (dict(calibrate="sigmoid"), [], True),
    "calibrate-isotonic-multinomial": (dict(calibrate="isotonic", model="multinomial"), [], True),
    "auto": (dict(model="auto"), [WeighCells], False),
    "auto-calibrated": (dict(model="auto", calibrate="sigmoid"), [WeighCells], True),
    "select-weighting-calibrate": (dict(select="chi2:500", weighting=True, calibrate="isotonic"),
                                   [SelectColumns, WeighCells], True),
    "binary-bernoulli": (dict(binary=True, model="bernoulli"), [], False),
}

METHODS = ("predict_proba", "predict_log_proba", "predict_log_odds")


def _fit(opts, texts, labels, path):
    clf = make_text_classifier(ModelOptions(jobs=1, **opts)).fit(texts, labels)
    clf.save(path)
    return clf


def _assert_scorer_is_load(path, queries):
    scorer, loaded = scorer_from_file(path), load(path)
    assert isinstance(scorer, TextScorer)
    assert list(scorer.classes_) == list(loaded.classes_)
    for few in (queries[:7], queries):  # the dict look-up and the TermKeys / scipy batch paths
        for method in METHODS:
            ours, theirs = getattr(scorer, method)(few), getattr(loaded, method)(few)
            np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-12, err_msg=method)
        np.testing.assert_array_equal(scorer.predict(few), loaded.predict(few))
        logp, odds = scorer.log_proba_and_odds(few)
        np.testing.assert_allclose(logp, loaded.predict_log_proba(few), rtol=0, atol=1e-12)
        np.testing.assert_allclose(odds, loaded.predict_log_odds(few), rtol=0, atol=1e-12)
    return scorer


@pytest.mark.parametrize("case", quick_first(sorted(OPTIONS), keep=4))
def test_wrapped_sms_models_score_as_the_loaded_estimator(case, tmp_path):
    opts, transforms, calibrated = OPTIONS[case]
    path = tmp_path / "m.tnb"
    _fit(opts, TEXTS[:3000], LABELS[:3000], path)
    scorer = _assert_scorer_is_load(path, TEXTS[3000:4000] + EDGE)
    assert [type(t) for t in scorer.transforms] == transforms
    assert (scorer.calibration is not None) == (opts.get("calibrate") is not None)
    if calibrated:
        assert scorer.probabilities_calibrated()
        assert isinstance(scorer.calibration, CalibrationMap)


def _bbc(root):
    docs, labels = [], []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        for f in sorted(folder.glob("*.txt"))[:150]:
            docs.append(f.read_text(encoding="latin-1"))
            labels.append(folder.name)
    return docs, labels


#: the option sets tried on five classes
MULTICLASS = ["weighting", "select-ig-multinomial", "calibrate-sigmoid", "calibrate-isotonic-multinomial", "auto",
              "select-weighting-calibrate"]


def _five_classes(texts, labels):
    """Five classes of the bundled SMS texts (spam, and ham by length in four bands): the
    quick subset's stand-in for a five-class corpus, which ships only in ../shared."""
    return [lab if lab == "spam" else f"ham{min(len(t) // 30, 3)}" for t, lab in zip(texts, labels)]


@pytest.mark.parametrize("case", quick_first(MULTICLASS, keep=2))
def test_wrapped_five_class_models_score_as_the_loaded_estimator(case, tmp_path):
    """Five classes: the one-vs-rest calibration maps, normalised (the bundled SMS texts)."""
    labels = _five_classes(TEXTS[:4000], LABELS[:4000])
    assert len(set(labels)) == 5
    path = tmp_path / "m.tnb"
    _fit(OPTIONS[case][0], TEXTS[:3000], labels[:3000], path)
    _assert_scorer_is_load(path, TEXTS[3000:4000] + EDGE)


@pytest.mark.slow
@pytest.mark.parametrize("case", MULTICLASS)
def test_wrapped_bbc_models_score_as_the_loaded_estimator(case, tmp_path, shared_corpora):
    """Five classes of a real corpus: the one-vs-rest calibration maps, normalised (BBC News
    from ../shared; it skips without it)."""
    docs, labels = _bbc(shared_corpora("bbc_news"))
    train = np.arange(len(docs)) % 3 != 0
    path = tmp_path / "m.tnb"
    _fit(OPTIONS[case][0], [d for d, t in zip(docs, train) if t], [lab for lab, t in zip(labels, train) if t], path)
    _assert_scorer_is_load(path, [d for d, t in zip(docs, train) if not t] + EDGE)


def test_plain_idf_zero_weights_count_as_no_evidence(tmp_path):
    """A term in every training document has idf 0 with ``idf="plain"``: a document of only
    such terms has no evidence (the complement model's prior), as for the estimator."""
    from textnb import ComplementNB, TextClassifier
    from sklearn.pipeline import Pipeline

    from textnb.text.weighting import TermWeighting

    texts = [f"common word{i % 7} other{i % 3}" for i in range(60)]
    labels = ["a" if i % 2 else "b" for i in range(60)]
    clf = TextClassifier(model=Pipeline([("w", TermWeighting(idf="plain")), ("m", ComplementNB())])).fit(texts, labels)
    clf.save(tmp_path / "m.tnb")
    _assert_scorer_is_load(tmp_path / "m.tnb", ["common", "common common", "word1", "nothing", ""] + texts[:10])


def test_inconsistent_wrapper_falls_back_to_load_and_its_error(tmp_path):
    path = tmp_path / "m.tnb"
    clf = _fit(dict(select="chi2:50", weighting=True), TEXTS[:800], LABELS[:800], path)
    weighting = clf.model_.steps[1][1]
    weighting.idf_ = weighting.idf_[:-1]  # one term short
    save(clf, tmp_path / "bad.tnb", check=False)
    assert scorer_from_file(tmp_path / "bad.tnb") is None
    from textnb.core.errors import ModelFileError
    from textnb.text.scorer import load_for_prediction

    with pytest.raises(ModelFileError):
        load_for_prediction(tmp_path / "bad.tnb")


def test_a_wrapper_the_scorer_does_not_read_loads_the_estimator(tmp_path):
    """APNBC around a lazy model is not linear: the estimator (tests/text/test_adjusted_text.py: around a count
    model the scorer reads it)."""
    path = tmp_path / "m.tnb"
    _fit(dict(lazy="hlbr", adjust=True), TEXTS[:300], LABELS[:300], path)
    assert read_nodes(path).state["model_"].kind == "APNBC"
    assert scorer_from_file(path) is None


def _run(code, *args):
    env = dict(os.environ, PYTHONPATH=str(REPO), OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True, env=env,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.fixture(scope="module")
def wrapped_files(tmp_path_factory):
    root = tmp_path_factory.mktemp("wrapped")
    files = {}
    for case in ("select-weighting-calibrate", "auto"):
        files[case] = root / f"{case}.tnb"
        _fit(OPTIONS[case][0], TEXTS[:1500], LABELS[:1500], files[case])
    return files


@pytest.mark.parametrize("case", ["select-weighting-calibrate", "auto"])
def test_predict_and_serve_on_wrapped_files_import_no_scikit_learn(case, wrapped_files, tmp_path):
    path = wrapped_files[case]
    docs = tmp_path / "docs.tsv"
    docs.write_text("".join(f"{lab}\t{t}\n" for lab, t in zip(LABELS[4000:4100], TEXTS[4000:4100])), encoding="utf-8")
    code = ("import sys, io, json\n"
            "from textnb.cli.commands import main\n"
            "out = io.StringIO()\n"
            "rc = main(['predict', sys.argv[1], sys.argv[2], '--json', '--proba'], stdout=out, stderr=io.StringIO())\n"
            "from textnb.apps.serve import _load_text_model, classify_texts\n"
            "served = classify_texts(_load_text_model(sys.argv[1]), {'texts': ['cheap casino', '', 'see you']})\n"
            "print(json.dumps([rc, 'sklearn' in sys.modules, out.getvalue(), served]))\n")
    rc, imported, out, served = json.loads(_run(code, path, docs))
    assert rc == 0 and imported is False
    from textnb.apps.serve import classify_texts
    from textnb.cli.commands import main
    import io

    expected = io.StringIO()
    with pytest.MonkeyPatch.context() as mp:  # the estimator's answers: predict --explain's loader
        mp.setattr("textnb.text.scorer.load_for_prediction", lambda p: load(p))
        assert main(["predict", str(path), str(docs), "--json", "--proba"], stdout=expected,
                    stderr=io.StringIO()) == 0
    for ours, theirs in zip(out.splitlines(), expected.getvalue().splitlines()):
        a, b = json.loads(ours), json.loads(theirs)
        assert a["label"] == b["label"]
        for key in ("proba", "log_odds"):
            assert a[key].keys() == b[key].keys()
            assert all(abs(a[key][c] - b[key][c]) <= 1e-12 for c in a[key])
    assert len(out.splitlines()) == 100
    theirs = json.loads(json.dumps(classify_texts(load(path), {"texts": ["cheap casino", "", "see you"]})))
    assert served.keys() == theirs.keys()


def test_topicfilter_loads_a_calibrated_wrapped_model_without_scikit_learn(wrapped_files, tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    for i, text in enumerate(TEXTS[4000:4020]):
        (folder / f"{i:02d}.txt").write_text(text, encoding="utf-8")
    code = ("import sys, io, json\n"
            "from textnb.cli.topicfilter import topic_main\n"
            "out, err = io.StringIO(), io.StringIO()\n"
            "rc = topic_main(['-m', sys.argv[1], '-o', sys.argv[2], '-n', '-t', '0.9', sys.argv[3]], stdout=out,"
            " stderr=err)\n"
            "print(json.dumps([rc, 'sklearn' in sys.modules, out.getvalue(), err.getvalue()]))\n")
    rc, imported, out, err = json.loads(_run(code, wrapped_files["select-weighting-calibrate"], tmp_path / "out",
                                             folder))
    assert (rc, err) == (0, "") and imported is False
    model = load(wrapped_files["select-weighting-calibrate"])
    texts = [(folder / f"{i:02d}.txt").read_text(encoding="utf-8") for i in range(20)]
    proba = model.predict_proba(texts)
    lines = sorted(out.splitlines())
    assert len(lines) == 20
    for i, line in enumerate(lines):
        source, label, confidence, _ = line.split("\t")
        assert source.endswith(f"{i:02d}.txt")
        assert float(confidence) == pytest.approx(proba[i].max(), abs=1e-6)
        assert label == (model.classes_[proba[i].argmax()] if proba[i].max() >= 0.9 else "unsorted")


def test_topicfilter_refuses_an_uncalibrated_wrapped_model_as_before(wrapped_files, tmp_path):
    from textnb.cli.topicfilter import topic_main
    import io

    err = io.StringIO()
    rc = topic_main(["-m", str(wrapped_files["auto"]), "-o", str(tmp_path / "o"), "-t", "0.8", str(tmp_path)],
                    stdout=io.StringIO(), stderr=err)
    assert rc == 1 and "not calibrated" in err.getvalue()
