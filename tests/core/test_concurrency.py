"""Concurrency: threads predicting with one model, processes writing one model file.

* ``predict*`` on one loaded model from many threads gives exactly the sequential answers
  (prediction never mutates the model);
* several processes registering mail into one model at once: every registration counts,
  none is lost (``fcntl.flock`` on ``<model>.lock``, textnb.apps.filtering);
* concurrent saves to one path leave one whole model and no temporary file;
* a reader loading while a writer keeps replacing the file always gets a whole model.
"""

import multiprocessing
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

import textnb
from textnb.io.corpus import open_corpus

REPO = Path(__file__).resolve().parents[2]
SMS = REPO / "corpora" / "sms_spam" / "SMSSpamCollection.tsv"
ENV = dict(os.environ, PYTHONPATH=str(REPO), OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")


@pytest.fixture(scope="module")
def sms():
    if not SMS.exists():
        pytest.skip("bundled SMS corpus missing")
    corpus = open_corpus(SMS)
    return corpus.documents, corpus.labels


@pytest.mark.slow
def test_parallel_predict_threads_equal_sequential(sms, tmp_path):
    docs, labels = sms
    textnb.TextClassifier(batch_size=300).fit(docs, labels).save(tmp_path / "m.tnb")
    model = textnb.load(tmp_path / "m.tnb")
    chunks = [docs[i:i + 250] for i in range(0, 2000, 250)]
    methods = ("predict", "predict_proba", "predict_log_odds", "predict_joint_log_proba")
    expected = {(m, i): getattr(model, m)(c) for m in methods for i, c in enumerate(chunks)}
    jobs = [(m, i) for m in methods for i in range(len(chunks))] * 3
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda job: getattr(model, job[0])(chunks[job[1]]), jobs))
    for job, got in zip(jobs, results):
        assert np.array_equal(got, expected[job]), job


def test_parallel_predict_threads_on_a_tabular_model():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 4))
    X[rng.random(X.shape) < 0.1] = np.nan
    y = np.where(np.nan_to_num(X[:, 0]) > 0, "pos", "neg")
    model = textnb.TabularNB(numeric="kde").fit(X, y)
    parts = np.array_split(X, 12)
    expected = [model.predict_proba(p) for p in parts]
    with ThreadPoolExecutor(max_workers=6) as pool:
        got = list(pool.map(model.predict_proba, parts * 2))
    for i, g in enumerate(got):
        assert np.array_equal(g, expected[i % len(parts)])


try:
    from textnb.apps.filtering import update_model

    HAVE_FILTER = True
except ImportError:  # pragma: no cover
    HAVE_FILTER = False


def _message(worker, i, label):
    # a token unique to each message: a lost update would lose it from the vocabulary
    return f"Subject: {label} {worker}\n\nuniq{worker}x{i} common words {label}\n".encode()


def _registrar(model, worker, n):
    for i in range(n):
        label = "spam" if i % 2 == 0 else "ham"
        update_model(model, register=[(label, _message(worker, i, label))])


def _counts(model):
    clf = textnb.load(model)
    if hasattr(clf, "model_"):  # a TextClassifier model
        return dict(zip(clf.classes_.tolist(), clf.model_.class_count_.tolist())), set(clf.vectorizer_.vocabulary_)
    return dict(zip(clf.classes_.tolist(), clf.class_count_.tolist())), set(clf.vocabulary_.tolist())


@pytest.mark.skipif(not HAVE_FILTER, reason="textnb.apps.filtering is not available")
def test_processes_registering_at_once_lose_nothing(tmp_path):
    model = tmp_path / "spam.tnb"
    workers, per_worker = 4, 6
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_registrar, args=(model, w, per_worker)) for w in range(workers)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
        assert p.exitcode == 0
    counts, vocab = _counts(model)
    assert counts == {"ham": workers * per_worker / 2, "spam": workers * per_worker / 2}
    assert {f"uniq{w}x{i}" for w in range(workers) for i in range(per_worker)} <= vocab
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".tmp-")]


@pytest.mark.slow
@pytest.mark.skipif(not HAVE_FILTER or not (REPO / "scripts" / "spamfilter").exists(),
                    reason="scripts/spamfilter is not available")
def test_spamfilter_commands_registering_at_once(tmp_path):
    model = tmp_path / "spam.tnb"
    files = []
    for w in range(3):
        f = tmp_path / f"m{w}.eml"
        f.write_bytes(_message(w, 0, "spam"))
        files.append(f)
    procs = [subprocess.Popen([sys.executable, str(REPO / "scripts" / "spamfilter"), "-m", str(model),
                               "--register-spam", str(f), "--register-ham", str(f)],
                              cwd=str(REPO), env=ENV, stderr=subprocess.PIPE) for f in files]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    counts, vocab = _counts(model)
    assert counts == {"ham": 3.0, "spam": 3.0}
    assert {"uniq0x0", "uniq1x0", "uniq2x0"} <= vocab


def _saver(path, seed, rounds):
    docs = [f"w{seed} common {i}" for i in range(4)]
    model = textnb.TextClassifier().fit(docs, ["a", "b", "a", "b"])
    for _ in range(rounds):
        model.save(path)


def test_concurrent_saves_leave_one_whole_model(tmp_path):
    path = tmp_path / "m.tnb"
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_saver, args=(path, s, 15)) for s in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
        assert p.exitcode == 0
    vocab = set(textnb.load(path).vectorizer_.vocabulary_)
    assert len({f"w{s}" for s in range(4)} & vocab) == 1  # exactly one writer's model, whole
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".tmp-")]


def test_reader_never_sees_a_partial_file(tmp_path):
    path = tmp_path / "m.tnb"
    _saver(path, 0, 1)
    ctx = multiprocessing.get_context("fork")
    writer = ctx.Process(target=_saver, args=(path, 1, 40))
    writer.start()
    loads = 0
    try:
        deadline = time.monotonic() + 30
        while writer.is_alive() and time.monotonic() < deadline:
            model = textnb.load(path)  # never a ModelFileError
            assert model.predict(["common"])[0] in ("a", "b")
            loads += 1
    finally:
        writer.join(timeout=120)
    assert writer.exitcode == 0 and loads > 0


@pytest.mark.parametrize("load, expected", [(0.0, 2), (0.4, 2), (1.3, 2), (1.6, 1), (7.0, 1)])
def test_automatic_threads_run_on_the_idle_cpus_only(monkeypatch, load, expected):
    """Threads whose number was not chosen (n_jobs -1 / None): this thread plus one per CPU
    the load average leaves idle; a chosen number is kept whatever the load; the results
    are the same either way."""
    import threading

    from textnb.core import dfe, forkmap, workers

    monkeypatch.setattr(forkmap, "cpu_count", lambda: 2)
    monkeypatch.setattr(workers.os, "getloadavg", lambda: (load, load, load))
    assert workers.automatic_threads(2) == expected and workers.automatic_threads(1) == 1
    assert dfe.n_threads(None) == dfe.n_threads(-1) == expected and dfe.n_threads(2) == 2

    def where(i):
        return i * i, threading.get_ident()

    for n_jobs, n_threads in ((-1, expected), (2, 2)):
        out = list(workers.ordered_map(where, ((i,) for i in range(40)), n_jobs, threads=True))
        assert [r for r, _ in out] == [i * i for i in range(40)]
        ran_here = {t for _, t in out} == {threading.get_ident()}
        assert ran_here == (n_threads == 1)


def test_automatic_threads_without_a_load_average(monkeypatch):
    from textnb.core import forkmap, workers

    def missing():
        raise OSError("no load average")

    monkeypatch.setattr(forkmap, "cpu_count", lambda: 4)
    monkeypatch.setattr(workers.os, "getloadavg", missing)
    assert workers.spare_cpus() == 4 and workers.automatic_threads(2) == 2
