"""Dask training equals local training (a real LocalCluster on 127.0.0.1, started and stopped here)."""

import csv

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
dask_bag = pytest.importorskip("dask.bag")

from textnb import BernoulliNB, DiscriminativeNB, MultinomialNB, TextClassifier, Vectorizer  # noqa: E402
from textnb.text.distributed import connect, fit_bag  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with connect("local:2") as c:
        yield c


@pytest.fixture(scope="module")
def sms(sms_tsv):
    with open(sms_tsv, encoding="utf-8") as f:
        rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    return [r[1] for r in rows], np.array([r[0] for r in rows])


def test_the_local_scheduler_leaves_no_garbage_collector_callback_here(client):
    """The local cluster's scheduler runs in this process and installed distributed's
    garbage-collector diagnosis, whose callback printed "Exception ignored in ...
    GCDiagnosis" with a traceback when a Ctrl-C landed inside it (once, in the suite's
    Ctrl-C test); ``connect`` switches it off (it only logs)."""
    import gc

    from distributed import gc as dgc

    assert not dgc._gc_diagnosis.enabled
    assert not any(getattr(cb, "__self__", None) is dgc._gc_diagnosis for cb in gc.callbacks)


@pytest.mark.slow
def test_dask_training_equals_local_training(client, sms, tmp_path):
    docs, y = sms
    local = TextClassifier(batch_size=500).fit(docs, y)
    remote = TextClassifier(batch_size=500).fit(docs, y, client=client)
    local.save(tmp_path / "local.tnb")
    remote.save(tmp_path / "remote.tnb")
    assert (tmp_path / "local.tnb").read_bytes() == (tmp_path / "remote.tnb").read_bytes()


@pytest.mark.slow
def test_fit_on_a_dask_bag(client, sms):
    docs, y = sms
    bag = dask_bag.from_sequence(list(zip(docs, y.tolist())), npartitions=7)
    for model in (None, BernoulliNB()):
        from_bag = fit_bag(TextClassifier(model=model), bag)
        local = TextClassifier(model=model).fit(docs, y)
        assert from_bag.vectorizer_.vocabulary_ == local.vectorizer_.vocabulary_
        np.testing.assert_array_equal(from_bag.model_.feature_count_, local.model_.feature_count_)
        np.testing.assert_array_equal(from_bag.predict(docs[:200]), local.predict(docs[:200]))


@pytest.mark.slow  # (a LocalCluster of two processes, ~4 s: the quick subset sends the files through an in-process
# client, test_a_cluster_is_sent_absolute_paths, and the files are read where the tasks run)
def test_files_are_read_by_the_workers(client, tmp_path):
    paths, labels = [], []
    for label in ("a", "b"):
        (tmp_path / label).mkdir()
        for i in range(30):
            p = tmp_path / label / f"{i}.txt"
            p.write_text(f"{label}word common {i}")
            paths.append(p)
            labels.append(label)
    remote = TextClassifier(batch_size=7).fit(paths, labels, client=client)
    local = TextClassifier().fit(paths, labels)
    np.testing.assert_array_equal(remote.model_.feature_count_, local.model_.feature_count_)


@pytest.mark.slow
def test_cli_train_with_a_local_scheduler(sms_tsv, tmp_path):
    from textnb.cli.commands import main

    assert main(["train", str(sms_tsv), "-o", str(tmp_path / "d.tnb"), "--scheduler", "local:2"]) == 0
    assert main(["train", str(sms_tsv), "-o", str(tmp_path / "l.tnb"), "--jobs", "1"]) == 0
    assert (tmp_path / "d.tnb").read_bytes() == (tmp_path / "l.tnb").read_bytes()


@pytest.mark.slow
def test_unreachable_scheduler_is_a_one_line_error(sms_tsv, tmp_path, capsys):
    from textnb.cli.commands import main

    assert main(["train", str(sms_tsv), "-o", str(tmp_path / "x.tnb"), "--scheduler", "tcp://127.0.0.1:9"]) == 1
    err = capsys.readouterr().err
    assert "cannot reach the Dask scheduler" in err and err.count("\n") == 1


def test_a_cluster_is_sent_absolute_paths(tmp_path, monkeypatch):
    """A relative corpus path was sent to the Dask workers as written, and a worker read it
    from its own folder ('No such file or directory' for a file that exists); found by a
    user trial (session 16)."""
    from pathlib import Path

    import numpy as np

    from textnb.text.training import analyzer_from_params, count_documents
    from textnb.text.defaults import VECTORIZER_DEFAULTS
    from conftest import InProcessClient

    (tmp_path / "a.txt").write_text("cheap pills now")
    (tmp_path / "b.txt").write_text("lunch at noon")
    monkeypatch.chdir(tmp_path)
    client = InProcessClient()

    docs = [Path("a.txt"), Path("b.txt"), "an inline text"]
    acc = count_documents(docs, np.array([0, 1, 1]), np.ones(3), 2, analyzer_from_params(dict(VECTORIZER_DEFAULTS)),
                          client=client)
    sent = [doc for args in client.sent for doc in args[0]]
    assert [d.is_absolute() for d in sent[:2]] == [True, True] and sent[2] == "an inline text"
    assert len(acc.vocab) > 0


@pytest.mark.slow
@pytest.mark.parametrize("when", ["starting", "counting"])
def test_ctrl_c_under_a_local_scheduler_is_one_line(sms_tsv, tmp_path, when):
    """Ctrl-C (SIGINT to the process group) while a local:2 cluster starts or trains: exit
    130 and the one line 'textnb: interrupted', the old model file kept (it printed four
    Dask tracebacks and some 70 lines of worker logs; ignored while the cluster started,
    it was lost and the run went on)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    rows = sms_tsv.read_text(encoding="utf-8")
    big = tmp_path / "big.tsv"
    big.write_text(rows * 150, encoding="utf-8")
    model = tmp_path / "m.tnb"
    model.write_bytes(b"the old model")
    proc = subprocess.Popen([sys.executable, "-m", "textnb", "train", str(big), "--model", "multinomial",
                             "--scheduler", "local:2", "-o", str(model)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))

    def workers():  # the cluster's processes: children of the command
        out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(proc.pid)], capture_output=True, text=True).stdout
        return out.split()

    deadline = time.monotonic() + 120
    while len(workers()) < (1 if when == "starting" else 2) and proc.poll() is None \
            and time.monotonic() < deadline:
        time.sleep(0.05)
    if when == "counting":
        time.sleep(1.0)  # (the workers count)
    assert proc.poll() is None, "the training ended before it could be interrupted"
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130 and err.decode() == "textnb: interrupted\n", err.decode()[-2000:]
    assert model.read_bytes() == b"the old model"


#: A Ctrl-C (SIGINT to this process, the thread that sends it held meanwhile) as a result is asked
#: for: "call", as the client's call is being set up on its loop; "gather", as the result's gather
#: starts (the loop held: the main thread's cancel and release reach it first); "collector", in a
#: callback of the garbage collector (Dask's scheduler here has one: distributed.gc)
_CTRL_C_AT = """
import gc, os, signal, sys, threading, time
import distributed.utils
import textnb.core.workers

hit = []

def ctrl_c():
    if not hit:
        hit.append(True)
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.5)

wait_for, gather_all = distributed.utils.wait_for, distributed.utils.All

def call(fut, timeout):
    if getattr(fut, "__qualname__", "") == "Future._result":
        ctrl_c()
    return wait_for(fut, timeout)

async def gather(args, quiet_exceptions=()):
    ctrl_c()
    return await gather_all(args, quiet_exceptions)

def collector(phase, info):
    if threading.current_thread() is threading.main_thread():
        ctrl_c()

cluster_result = textnb.core.workers._cluster_result

def collected_result(*args):
    gc.callbacks.append(collector)
    try:
        gc.collect()
    finally:
        gc.callbacks.remove(collector)
    return cluster_result(*args)

if sys.argv[1] == "call":
    distributed.utils.wait_for = call
elif sys.argv[1] == "gather":
    distributed.utils.All = gather
else:
    textnb.core.workers._cluster_result = collected_result
from textnb.cli.program import main

sys.argv[1:2] = []
code = main()
assert hit, "no Ctrl-C"
sys.exit(code)
"""


@pytest.mark.slow
@pytest.mark.parametrize("where", ["call", "gather", "collector"])
def test_ctrl_c_as_a_result_is_asked_for_is_one_line(sms_tsv, tmp_path, where):
    """The test above, run again and again under load (it failed once in a CI run, its
    output lost), failed three ways, a Ctrl-C landing where Python or Dask drops what
    follows from it: as the call for a result was set up on the client's event loop
    ("call": asyncio's "coroutine 'Future._result' was never awaited", a RuntimeWarning
    printed as a ``textnb: warning:`` line); as the result's gather started ("gather": the
    result released, the gather's task found its key gone and asyncio logged "Task
    exception was never retrieved" and two tracebacks); in the gc callback of Dask's
    scheduler ("collector": "Exception ignored in" and a KeyboardInterrupt traceback, the
    interrupt lost: the run went on, exit 1 or 0). Here the Ctrl-C is sent there."""
    import subprocess
    import sys

    model = tmp_path / "m.tnb"
    model.write_bytes(b"the old model")
    proc = subprocess.run([sys.executable, "-c", _CTRL_C_AT, where, "train", str(sms_tsv), "--model", "multinomial",
                           "--scheduler", "local:2", "-o", str(model)], capture_output=True, timeout=120)
    assert proc.returncode == 130 and proc.stderr.decode() == "textnb: interrupted\n", proc.stderr.decode()[-2000:]
    assert model.read_bytes() == b"the old model"


@pytest.mark.parametrize("classes", [["ham", "spam"], ["ham", "may", "spam"]])
def test_a_bag_label_outside_the_given_classes_is_refused(classes):
    # the labels were searched in the classes cast to their string width: "maybe" was
    # counted as "spam" (the next class up) or as "may" (cut to 3 characters), no error
    import dask

    pairs = [("free money now", "spam"), ("meeting at noon", "ham"), ("cheap pills", "spam"),
             ("lunch tomorrow", "ham"), ("prize win", "maybe")]
    with dask.config.set(scheduler="synchronous"):
        with pytest.raises(ValueError, match="not in classes"):
            fit_bag(TextClassifier(), dask_bag.from_sequence(pairs, npartitions=2), classes=classes)
        fitted = fit_bag(TextClassifier(), dask_bag.from_sequence(pairs, npartitions=2))
    assert list(fitted.classes_) == ["ham", "maybe", "spam"]
    docs, y = [p[0] for p in pairs], [p[1] for p in pairs]
    np.testing.assert_array_equal(fitted.predict(docs), TextClassifier().fit(docs, y).predict(docs))


@pytest.mark.parametrize("Model", [MultinomialNB, BernoulliNB, DiscriminativeNB])
def test_binary_counts_are_counted_by_the_workers_too(Model):
    """A binary Vectorizer: ``fit(client=...)`` counted on this machine, saying nothing, and
    ``fit_bag`` refused it ('over counts'); its presence sums add up as counts do, so both
    send the work out and give the local model (session 28)."""
    import dask

    from conftest import InProcessClient

    pairs = [(f"free money now {i} {i % 3} free", "spam") for i in range(30)] + \
            [(f"meeting at noon {i} {i % 4} noon", "ham") for i in range(30)]
    docs, y = [p[0] for p in pairs], [p[1] for p in pairs]

    def make():
        return TextClassifier(vectorizer=Vectorizer(binary=True), model=Model(), batch_size=7)

    local = make().fit(docs, y)
    client = InProcessClient()
    remote = make().fit(docs, y, client=client)
    assert client.sent, "the documents were counted locally"
    with dask.config.set(scheduler="synchronous"):
        bagged = fit_bag(make(), dask_bag.from_sequence(pairs, npartitions=3))
    for clf in (remote, bagged):
        assert clf.vectorizer_.vocabulary_ == local.vectorizer_.vocabulary_
        np.testing.assert_allclose(clf.model_.feature_count_, local.model_.feature_count_)
        np.testing.assert_allclose(clf.predict_proba(docs), local.predict_proba(docs))
    if Model is not DiscriminativeNB:  # presence: "free" twice in each of 30 documents counts 30
        assert local.model_.feature_count_.max() == 30
