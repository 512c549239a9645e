"""What ``--scheduler`` does when the cluster is not what it should be: an address where no
Dask scheduler answers, a scheduler without workers, workers or the scheduler lost during the
run, a worker that cannot read the corpus (found by a user trial, session 27: a web server's
port waited for ever, an SSH banner was "out of memory", a worker's address, ``tls://`` without
certificates and ``ucx://`` were internal errors, a scheduler without workers waited for ever
and a lost scheduler printed a page of Dask's log). Clusters run on 127.0.0.1, started and
stopped here."""

import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from conftest import REPO, FakeServer, InProcessClient, cli, one_error_line, tsv

from textnb.core import workers
from textnb.core.errors import InputError, TextnbError

pytestmark = pytest.mark.slow  # (clusters and servers on 127.0.0.1: the full suite, not the quick subset)


@pytest.fixture(scope="module", autouse=True)
def distributed():
    """Dask's distributed, or every test here skips; imported when a test runs, not when the
    file is collected (0.3 s in each worker of the quick subset, which runs none of them)."""
    return pytest.importorskip("distributed")


def _corpus(tmp_path):
    rows = [("spam", f"cheap pills offer {i}") for i in range(20)] + [("ham", f"lunch at noon {i}") for i in range(20)]
    return tsv(tmp_path / "c.tsv", rows)


def _listener(banner):
    """A TCP port on 127.0.0.1 where something other than Dask listens (conftest's
    FakeServer): it sends ``banner`` to each connection (None: says nothing) and keeps it
    open; its ``address`` the one --scheduler is given."""
    def greet(conn):
        if banner:
            conn.sendall(banner)

    server = FakeServer(greet)
    server.address = f"tcp://127.0.0.1:{server.port}"
    return server


@pytest.mark.parametrize("address, expected", [
    ("banner", "is not a Dask scheduler"),  # an SSH server's first line read as a frame length
    ("tls://127.0.0.1:9", "tls:// needs Dask's TLS settings"),
    ("ucx://127.0.0.1:9", "this Dask has no ucx:// transport"),
])
def test_an_address_where_no_scheduler_answers_is_one_line(tmp_path, address, expected):
    listener = _listener(b"SSH-2.0-OpenSSH_9.6\r\n") if address == "banner" else None
    try:
        rc, _, err = cli("train", _corpus(tmp_path), "-o", tmp_path / "m.tnb",
                         "--scheduler", listener.address if listener else address)
    finally:
        if listener:
            listener.close()
    assert rc == 1
    one_error_line(err, expected)
    assert not (tmp_path / "m.tnb").exists()


_RUN = ("import sys, textnb.core.workers as w; w.CONNECT_SECONDS = w.WORKER_WAIT_SECONDS = 0.5; "
        "from textnb.cli.commands import main; sys.exit(main(sys.argv[1:]))")


def _train(tmp_path, address):
    """``textnb train`` in a process of its own (bounded: a run that waits for ever fails)."""
    proc = subprocess.run([sys.executable, "-c", _RUN, "train", str(_corpus(tmp_path)), "-o",
                           str(tmp_path / "m.tnb"), "--scheduler", address], capture_output=True, text=True,
                          timeout=60, cwd=REPO, env={**__import__("os").environ, "PYTHONPATH": str(REPO)})
    return proc.returncode, proc.stderr


def test_a_port_that_never_answers_is_not_waited_for_ever(tmp_path):
    listener = _listener(None)  # (a web server waits for a request: Dask's handshake is none)
    try:
        rc, err = _train(tmp_path, listener.address)
    finally:
        listener.close()
    assert rc == 1
    one_error_line(err, f"{listener.address} is not a Dask scheduler", "no answer within 1 s")


@pytest.fixture(scope="module")
def cluster(distributed):
    """A scheduler and one worker in this process (threads), on 127.0.0.1."""
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, host="127.0.0.1",
                                  protocol="tcp://", dashboard_address=":0") as c:
        yield c


def test_a_workers_address_and_a_scheduler_without_workers(cluster, tmp_path, distributed):
    worker = next(iter(cluster.scheduler.workers))
    rc, _, err = cli("train", _corpus(tmp_path), "-o", tmp_path / "m.tnb", "--scheduler", worker)
    assert rc == 1
    one_error_line(err, f"{worker} is a Dask worker, not a scheduler: its scheduler is "
                        f"{cluster.scheduler.address}")
    with distributed.LocalCluster(n_workers=0, processes=False, host="127.0.0.1", protocol="tcp://",
                                  dashboard_address=":0") as empty:
        rc, err = _train(tmp_path, empty.scheduler.address)
    assert rc == 1
    one_error_line(err, f"the Dask scheduler at {empty.scheduler.address} has no worker (none joined in 0.5 s)")


def _slow(i):
    time.sleep(0.05)
    return i


def _consume(results, after, out):
    """Consume ``results`` in a thread of its own (bounded: an old version waited for ever),
    calling ``after()`` once the first result came; ``out`` gets the results or the error."""
    def run():
        try:
            for k, r in enumerate(results):
                out.append(r)
                if k == 0:
                    after()
        except BaseException as exc:  # noqa: BLE001
            out.append(exc)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(60)
    assert not t.is_alive(), "the run waited for ever"


def test_a_run_whose_workers_all_leave_stops(monkeypatch, distributed):
    monkeypatch.setattr(workers, "WORKER_WAIT_SECONDS", 0.5)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, host="127.0.0.1",
                                  protocol="tcp://", dashboard_address=":0") as c, distributed.Client(c) as client:
        out = []
        _consume(workers.map_ordered(client, _slow, [(i,) for i in range(40)]), lambda: c.scale(0), out)
    assert isinstance(out[-1], TextnbError), out[-1]
    assert f"every Dask worker of the scheduler at {c.scheduler.address} has left" in str(out[-1])


def test_a_run_whose_scheduler_is_lost_stops_with_one_line(capfd, distributed):
    import dask

    # (the cluster's own close asks its closed scheduler to stop the workers: 30 s by default)
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}), distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, host="127.0.0.1",
                                  protocol="tcp://", dashboard_address=":0") as c:
        address = c.scheduler.address
        out = []
        with workers.connect(address) as client:
            _consume(workers.map_ordered(client, _slow, [(i,) for i in range(40)]),
                     lambda: c.sync(c.scheduler.close), out)
    assert isinstance(out[-1], TextnbError), out[-1]
    assert str(out[-1]) == f"lost the connection to the Dask scheduler at {address} during the run"
    assert "Traceback" not in capfd.readouterr().err  # (Dask's client logged its reconnection's)


def test_a_file_a_worker_cannot_read_says_so(tmp_path):
    """A worker without the corpus (not on a shared file system) said '...: cannot read (No
    such file or directory)' of a file that the user sees."""
    from textnb.text.defaults import VECTORIZER_DEFAULTS
    from textnb.text.training import analyzer_from_params, count_documents

    missing = [Path(tmp_path / "gone" / "a.txt"), Path(tmp_path / "gone" / "b.txt")]
    with pytest.raises(InputError, match=r"a\.txt: cannot read \(No such file or directory\) \(read on a Dask "
                                         r"worker: the corpus must be at the same path on every worker\)$"):
        count_documents(missing, np.array([0, 1]), np.ones(2), 2, analyzer_from_params(dict(VECTORIZER_DEFAULTS)),
                        client=InProcessClient())


@pytest.mark.parametrize("table", ["weather.nominal.arff", "play.csv", "mixed.csv"])
def test_a_table_with_a_scheduler_is_refused_in_one_line(cluster, tmp_path, table):
    """``--scheduler`` with a table (an ARFF file, a CSV found to be a table only when read,
    a mixed table with a text column) trained it here and said nothing of the cluster named
    (session 28): the Dask path counts a text corpus's documents where the workers read
    them; a table is read whole and fitted by this process. Now one line naming the option,
    no model written; the same table trains without it, the same address trains a corpus."""
    if table.endswith(".arff"):
        path = REPO / "corpora" / table
    else:
        path = tmp_path / table
        rows = "".join(f"{i % 7},{'sunny' if i % 3 else 'rainy'},{'cheap pills' if i % 2 else 'lunch at noon'},"
                       f"{'yes' if i % 2 else 'no'}\n" for i in range(30))
        header = "x,outlook,text,play\n" if table == "mixed.csv" else "x,outlook,windy,play\n"
        path.write_text(header + rows)
    extra = ["--text-column", "text"] if table == "mixed.csv" else []
    address = cluster.scheduler.address
    rc, out, err = cli("train", path, "-o", tmp_path / "m.tnb", "--scheduler", address, *extra)
    assert rc == 1 and out == ""
    one_error_line(err, f"{path}: --scheduler counts the documents of a text corpus on a Dask cluster; this is a "
                        "table", "train it without --scheduler")
    assert not (tmp_path / "m.tnb").exists()
    rc, _, err = cli("train", path, "-o", tmp_path / "m.tnb", *extra)
    assert rc == 0 and (tmp_path / "m.tnb").exists(), err
    rc, _, err = cli("train", _corpus(tmp_path), "-o", tmp_path / "c.tnb", "--scheduler", address)
    assert rc == 0, err


def _closed_port():
    """A port of 127.0.0.1 where nothing listens (bound, then closed: a connection is refused)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("address, expected", [
    ("refused", "connection refused (nothing listens on port"),
    ("tcp://no-such-host.invalid:8786", "host not found (no-such-host.invalid: "),
])
def test_a_refused_or_unknown_address_is_said_so_at_once(tmp_path, monkeypatch, distributed, address, expected):
    """Session 44's user trial: ``--scheduler tcp://127.0.0.1:1`` (connection refused) and an
    unresolvable host both said "Timed out trying to connect ... after 5 s", 8 s into the run.
    A plain TCP connection to the address first says which, in one line naming it, at once:
    Dask's connector is never asked (its timeout not waited for)."""
    import distributed.comm

    asked = []
    monkeypatch.setattr(distributed.comm, "connect", lambda *a, **k: asked.append(a))
    address = f"tcp://127.0.0.1:{_closed_port()}" if address == "refused" else address
    rc, _, err = cli("train", _corpus(tmp_path), "-o", tmp_path / "m.tnb", "--scheduler", address)
    assert rc == 1 and not asked
    one_error_line(err, f"cannot reach the Dask scheduler at {address}: {expected}")
    assert not (tmp_path / "m.tnb").exists()


@pytest.mark.parametrize("model, said", [
    ([], "--jobs 2 with --scheduler {address} counts no documents: {workers}; it sets only the threads of the "
         "DiscriminativeNB fit in this process"),
    (["--model", "multinomial"], "--jobs 2 is unused with --scheduler {address}: {workers}"),
])
def test_jobs_given_with_a_scheduler_is_said_unused(tmp_path, model, said):
    """Session 44's user trial: ``--jobs 2 --scheduler local:2`` took ``--jobs`` without a word,
    as if it counted the documents in two processes beside the cluster's. One warning line, as
    other unused options are said: the cluster's workers count the documents; of the default
    model, whose own fit takes it, ``--jobs`` sets only that fit's threads. Without ``--jobs``:
    no line."""
    for address, who in ((f"tcp://127.0.0.1:{_closed_port()}", "the scheduler's workers count the documents"),
                         ("local:1", "its 1 worker process counts the documents (local:N sets their number)")):
        rc, _, err = cli("train", _corpus(tmp_path), "-o", tmp_path / "m.tnb", "--jobs", "2", "--scheduler",
                         address, *model)
        first, *rest = err.splitlines()
        assert first == "textnb: warning: " + said.format(address=address, workers=who)
        assert (rc, len(rest)) == ((1, 1) if address.startswith("tcp") else (0, 0)), err
    rc, _, err = cli("train", _corpus(tmp_path), "-o", tmp_path / "m.tnb", "--scheduler",
                     f"tcp://127.0.0.1:{_closed_port()}", *model)
    assert rc == 1 and "warning" not in err


def test_a_hangup_to_the_process_group_of_a_local_cluster_run_is_one_line(tmp_path):
    """A closed terminal (SIGHUP to the whole process group) during ``--scheduler local:2``
    killed multiprocessing's resource tracker too (it ignores SIGINT and SIGTERM, not SIGHUP);
    the one started again in its place printed a traceback for each semaphore the first had
    registered, about twelve after ``textnb: terminated by signal 1``. The tracker is started
    with SIGHUP blocked: one line, exit 129, no model."""
    import os
    import signal

    import psutil

    from conftest import big_tsv

    corpus = big_tsv(tmp_path / "big.tsv")
    p = subprocess.Popen([sys.executable, "-m", "textnb", "train", str(corpus), "--model", "multinomial", "--ngram",
                          "3", "--scheduler", "local:2", "-o", str(tmp_path / "m.tnb")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True, cwd=REPO)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and p.poll() is None:  # (the cluster's workers are up)
            if len(psutil.Process(p.pid).children(recursive=True)) >= 3:  # (the tracker, two workers)
                break
            time.sleep(0.2)
        time.sleep(1.0)
        if p.poll() is not None:
            pytest.skip("the training ended before the cluster was up")
        os.killpg(p.pid, signal.SIGHUP)
        _, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    err = err.decode()
    assert p.returncode == 128 + signal.SIGHUP and "Traceback" not in err, err
    assert err.strip().splitlines()[-1] == "textnb: terminated by signal 1", err
    assert not (tmp_path / "m.tnb").exists()
