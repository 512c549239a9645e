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
from textnb.apps.filtering import update_model
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
    # the passes of the default text model: one thread unless two are asked for (two
    # shortened nothing measured and cost CPU time: textnb.core.dfe.n_threads)
    assert dfe.n_threads(None) == dfe.n_threads(-1) == dfe.n_threads(1) == 1 and dfe.n_threads(2) == 2

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


# Worker processes never outlive the command that started them, and a worker's death is
# one line. Each case runs in a child interpreter (one thread, so workers are forked) whose
# workers are found in /proc; a worker still present but a zombie has ended.

def _children(pid):
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _running(pid):
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _wait_for_children(proc, n, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        kids = _children(proc.pid)
        if len(kids) >= n:
            return kids
        time.sleep(0.01)
    pytest.fail(f"no {n} worker processes appeared (exit status {proc.poll()})")


def _gone(pids, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(_running(p) for p in pids):
        time.sleep(0.02)
    return [p for p in pids if _running(p)]


_SLEEPY_MAP = """
import os, sys, time
from textnb.core import workers, forkmap

def work(i):
    time.sleep(60)
    return i

def item(i):
    time.sleep(60)
    return b""

if sys.argv[1] == "ordered_map":
    list(workers.ordered_map(work, ((i,) for i in range(8)), 2))
else:
    list(forkmap.fork_map(item, range(8), 2))
"""

needs_proc = pytest.mark.skipif(not Path("/proc/self/task").exists() or not hasattr(os, "fork"),
                                reason="needs Linux /proc and fork")


@needs_proc
@pytest.mark.parametrize("mapper", ["ordered_map", "fork_map"])
def test_workers_end_with_a_parent_killed_by_sigkill(mapper):
    """A parent ended by SIGKILL (the OOM killer, ``kill -9``) runs no clean-up: its workers
    are ended by the kernel (the parent-death signal), not left waiting for tasks."""
    proc = subprocess.Popen([sys.executable, "-c", _SLEEPY_MAP, mapper], env=ENV)
    try:
        kids = _wait_for_children(proc, 2)
        proc.kill()
        proc.wait(30)
        assert _gone(kids) == []
    finally:
        proc.kill()


_KILLED_WORKER = """
import os, sys, time
from textnb.core import workers
from textnb.core.errors import TextnbError

def work(i):
    if i == 0:
        return os.getpid()
    time.sleep(60)
    return i

try:
    for x in workers.ordered_map(work, ((i,) for i in range(8)), 2):
        print(x, flush=True)
except TextnbError as exc:
    print("error:", exc, flush=True)
    sys.exit(3)
"""


@needs_proc
def test_a_worker_killed_is_one_error_and_the_others_are_stopped():
    """A worker killed (by the OOM killer, by a user) is a TextnbError naming the signal (the
    command's one line, exit 1), not an internal BrokenProcessPool; the other workers and
    their 60 s tasks are stopped at once."""
    proc = subprocess.Popen([sys.executable, "-c", _KILLED_WORKER], env=ENV, stdout=subprocess.PIPE, text=True)
    try:
        first = int(proc.stdout.readline())
        kids = _wait_for_children(proc, 2)
        os.kill(first, 9)
        out, _ = proc.communicate(timeout=30)
        assert proc.returncode == 3
        assert out.startswith("error: a worker process was killed (signal 9; out of memory?)"), out
        assert _gone(kids) == []
    finally:
        proc.kill()


@needs_proc
@pytest.mark.slow
@pytest.mark.parametrize("signame, status", [("SIGTERM", 143), ("SIGHUP", 129), ("SIGINT", 130)])
def test_textnb_train_stopped_by_a_signal_stops_its_workers(tmp_path, signame, status):
    """``textnb train --jobs 2`` told to stop while its workers stem: one line, status
    128 + N (130 for a Ctrl-C), no worker left running, no model written."""
    import signal

    from conftest import big_tsv

    corpus = big_tsv(tmp_path / "big.tsv")
    model = tmp_path / "m.tnb"
    proc = subprocess.Popen([sys.executable, "-c", "from textnb.cli.program import main; raise SystemExit(main())",
                             "train", "--jobs", "2", "--stem", "porter", "-o", str(model), str(corpus)],
                            env=ENV, stderr=subprocess.PIPE, text=True)
    try:
        kids = _wait_for_children(proc, 2)
        proc.send_signal(getattr(signal, signame))
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == status, err
        assert err.strip().splitlines()[-1] in (f"textnb: terminated by signal {status - 128}", "textnb: interrupted"), err
        assert "Traceback" not in err
        assert _gone(kids) == []
        assert not model.exists()
    finally:
        proc.kill()
