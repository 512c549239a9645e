"""Ordered, bounded parallel map over worker processes (or a Dask cluster) for counting.

Starting joblib's default (loky) workers costs about a second on this kind of machine
(each worker is a fresh interpreter that imports numpy and textnb), more than
tokenising 20 Newsgroups takes. When the platform can ``fork`` and the calling
process runs a single thread (forking a threaded process can copy a held lock into
the child), workers are forked instead: they start in milliseconds, already holding
every imported module. Otherwise joblib's loky workers are used. Work that runs in
numpy (or in system calls) with the GIL released can use threads of the calling
process instead (``threads=True``): nothing to start, pickle or fault in -- on
20 Newsgroups' training, 0.3-0.4 s less CPU than two forked workers. Either way
results come back in submission order, with at most ``2 * n_jobs`` tasks in flight,
so memory stays bounded while a corpus streams through.
"""

import contextlib
import os
import signal
import sys
import threading
import time
import warnings
from collections import deque
from itertools import chain, islice
from contextlib import contextmanager, nullcontext
from pathlib import PurePath

from textnb.core.errors import InputError, TextnbError
from textnb.core.signals import HeldSignals, blocked_across_fork, unblock_in_child
from textnb.core.forkmap import cpu_count, die_with_parent, jobs_count, spare_cpus

__all__ = ["automatic_threads", "can_fork", "connect", "cpu_count", "effective_jobs", "keep_freed_memory",
           "map_ordered", "ordered_map", "parallel_if_long", "spare_cpus"]

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD, _M_ARENA_MAX = -1, -3, -8
_kept = False


def keep_freed_memory(limit=1 << 30):
    """Ask glibc's allocator to keep freed memory for reuse (up to ``limit`` bytes).

    Tokenising a batch makes tens of megabytes of short-lived numpy arrays. By default
    glibc hands blocks of this size back to the kernel when they are freed, and the
    next batch pays a page fault per 4 KiB to get them back: on the virtual machines
    measured here that is a third of textnb's training time. This raises the mmap
    and trim thresholds (``mallopt``), so freed blocks are reused instead. It also
    keeps every thread on the one (main) arena: each thread of a pool would otherwise
    get an arena of its own, holding its own freed blocks that the other threads
    cannot reuse (on 20 Newsgroups' training, with the two counting threads and the
    two of the passes: a third fewer page faults and 110 MB less peak memory; numpy
    allocates a few large blocks per task, so the arena's lock is hardly contended). It is
    process-wide and permanent (the process keeps up to ``limit`` bytes of freed
    memory), so textnb applies it only where it owns the process: the ``textnb``
    command line and its worker processes. A program using the library can call it
    too. Returns True when applied (glibc only; a no-op elsewhere).

    It also gives numpy's large arrays ordinary pages (numpy asks for transparent huge
    pages, ``madvise(MADV_HUGEPAGE)``, for every array of 4 MiB or more): the counting
    and the model's passes allocate many short-lived tables of 10 to 80 MB, whose huge
    pages the kernel zeroes and compacts for more system CPU than they save (the 90-label
    corpus of docs/multilabel.md: about 1 s of 4.5; 20 Newsgroups' training: about 0.2 s
    of 2.9). Nothing computed changes. Left as it is when the user set
    ``NUMPY_MADVISE_HUGEPAGE`` (numpy's own switch).
    """
    global _kept
    if _kept:
        return True
    if not sys.platform.startswith("linux"):
        return False
    _ordinary_pages()
    import ctypes

    # the symbols the interpreter is linked with (glibc's among them): ctypes.util.find_library
    # would run ``ldconfig -p`` (or a compiler) in a subprocess, some 0.07 s of CPU at every start
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        try:
            import ctypes.util

            mallopt = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").mallopt
        except (OSError, AttributeError):
            return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    # older glibc versions cap the mmap threshold at 32 MiB on 64-bit systems
    threshold = mallopt(_M_MMAP_THRESHOLD, 256 << 20) or mallopt(_M_MMAP_THRESHOLD, 32 << 20)
    _kept = bool(threshold and mallopt(_M_TRIM_THRESHOLD, int(limit)))
    if _kept:
        mallopt(_M_ARENA_MAX, 1)  # (threads already running keep the arenas they have)
    return _kept


def _ordinary_pages():
    """numpy's large arrays on ordinary pages (see :func:`keep_freed_memory`): numpy's own
    switch, ``NUMPY_MADVISE_HUGEPAGE=0``, set for this process (and its workers) before
    numpy is imported, or numpy told directly when it is imported already."""
    if "NUMPY_MADVISE_HUGEPAGE" in os.environ:
        return
    os.environ["NUMPY_MADVISE_HUGEPAGE"] = "0"
    if "numpy" not in sys.modules:
        return
    try:
        from numpy._core.multiarray import _set_madvise_hugepage
    except ImportError:  # (numpy < 2)
        try:
            from numpy.core.multiarray import _set_madvise_hugepage
        except ImportError:
            return
    _set_madvise_hugepage(False)


def can_fork():
    """True when forked workers are safe here: ``fork`` exists and only one thread runs."""
    import multiprocessing  # (here: the threads that count need neither it nor its pools)

    return "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1


def effective_jobs(n_jobs):
    """``n_jobs`` as a number of processes (None -> 1; negative counts back from the
    number of CPUs, as in joblib).

    joblib's own answer (which follows a ``joblib.parallel_config`` in force) when joblib
    is imported already; otherwise the same rule without importing it (0.1 s of CPU at
    the start of every ``textnb train``): the CPUs this process may use (:func:`cpu_count`),
    and 1 inside a daemonic process (which cannot have children).
    """
    n_jobs = 1 if n_jobs is None else n_jobs
    if "joblib" in sys.modules:
        from joblib import effective_n_jobs

        return max(1, effective_n_jobs(n_jobs))
    if n_jobs == 0:
        raise ValueError("n_jobs == 0 in Parallel has no meaning")
    if n_jobs == 1 or _in_daemon():
        return 1
    return jobs_count(n_jobs)


def _in_daemon():
    """True in a daemonic process of ``multiprocessing`` (which has imported it: a process
    that has not is none)."""
    mp = sys.modules.get("multiprocessing")
    return mp is not None and mp.current_process().daemon


def automatic_threads(n):
    """How many of ``n`` threads to run when the number was not chosen (``n_jobs`` None
    or negative): this thread plus one per spare CPU (:func:`spare_cpus`), at most ``n``.

    A second thread shortens the work only when a CPU is idle to run it; on a busy
    machine it shortens nothing and costs CPU time (GIL hand-offs and context switches
    between the threads: on 20 Newsgroups' training at a load average of 3 on 2 cores,
    0.1-0.17 s of 1.6). The threads never change a result, only how it is computed.
    """
    return max(1, min(int(n), 1 + spare_cpus()))


def parallel_if_long(tasks, n_jobs, least=4):
    """``(tasks, n_jobs)`` for work of unknown length (batches read as they are asked
    for): ``n_jobs`` when ``tasks`` are at least ``least`` (four batches: fewer cost a pool
    what they save, measured on SMS and 20 Newsgroups' test part), else 1. The first
    ``least`` tasks are taken to tell (a few listed documents may be long: a large mbox
    file's messages)."""
    head = list(islice(tasks, least))
    return chain(head, tasks), (n_jobs if len(head) >= least else 1)


def ordered_map(func, arg_tuples, n_jobs, *, threads=False):
    """``func(*args)`` for each tuple of ``arg_tuples``, results yielded in order.

    Runs in the calling process when ``n_jobs`` resolves to 1; with ``threads``, in
    ``n_jobs`` threads of the calling process (for a ``func`` that spends its time with
    the GIL released: numpy, file reads; a negative ``n_jobs``: as many as
    :func:`automatic_threads` finds worth it), else in worker processes.
    """
    n = effective_jobs(n_jobs)
    if threads and (n_jobs is None or n_jobs < 0):
        n = automatic_threads(n)  # (a chosen number of processes or threads is kept)
    if n == 1:
        for args in arg_tuples:
            yield func(*args)
        return
    if threads:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=n) as pool:
            yield from _in_order(pool, func, arg_tuples, n)
        return
    if not can_fork():
        from joblib import Parallel, delayed

        yield from Parallel(n_jobs=n, return_as="generator", pre_dispatch="2*n_jobs")(
            delayed(func)(*args) for args in arg_tuples)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    pool = ProcessPoolExecutor(max_workers=n, mp_context=multiprocessing.get_context("fork"),
                               initializer=_worker_start, initargs=(os.getpid(),))
    try:
        yield from _in_order(pool, func, arg_tuples, n, fork=True)
    except BaseException:  # an error, an interrupt, the generator closed early: no task is waited for
        _reap(pool)
        raise
    pool.shutdown()


def _worker_start(parent):
    """A forked worker's start: it ends with its parent ``parent`` (however that ends, even
    by SIGKILL: :func:`~textnb.core.forkmap.die_with_parent`), and keeps freed memory
    (:func:`keep_freed_memory`). SIGTERM and SIGHUP end it (their default), whatever
    handler it inherited from the parent (the program's, which raises an exception)."""
    import signal

    die_with_parent(parent)
    for name in ("SIGTERM", "SIGHUP"):
        num = getattr(signal, name, None)
        if num is not None and callable(signal.getsignal(num)):
            signal.signal(num, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # (a Ctrl-C reaches the parent, which stops the workers)
    unblock_in_child()
    keep_freed_memory()


def _in_order(pool, func, arg_tuples, n, *, fork=False):
    """The results of ``func(*args)`` submitted to ``pool`` (an executor of ``n`` workers),
    in submission order, at most ``2 * n`` tasks in flight. ``fork``: the first submission
    forks the pool's workers (signals are blocked across it: :func:`blocked_across_fork`)."""
    from concurrent.futures import BrokenExecutor

    pending, workers = deque(), []
    for k, args in enumerate(arg_tuples):
        try:
            with blocked_across_fork() if fork and k == 0 else nullcontext():
                future = pool.submit(func, *args)  # (processes: the first submit forks all n workers)
        except OSError as exc:  # fork failed (process limit, memory): no worker is left behind
            _reap(pool)
            raise TextnbError(f"cannot start {n} worker processes ({exc.strerror or exc}); "
                              "use fewer jobs") from None
        except BrokenExecutor:  # a worker died since the last result
            raise _worker_killed(workers) from None
        if k == 0:  # (the workers of a pool that forks them all at its first task)
            workers = list((getattr(pool, "_processes", None) or {}).values())
        pending.append(future)
        if len(pending) >= 2 * n:
            yield _result(pending.popleft(), workers)
    while pending:
        yield _result(pending.popleft(), workers)


def _result(future, workers):
    """``future.result()``; a worker process of ``workers`` that died (killed by a signal:
    the OOM killer, a user) is a :class:`~textnb.core.errors.TextnbError` naming the signal."""
    from concurrent.futures import BrokenExecutor

    try:
        return future.result()
    except BrokenExecutor:
        raise _worker_killed(workers) from None


def _worker_killed(workers):
    """The error for a process pool one of whose ``workers`` died: how it ended (SIGKILL:
    most likely the kernel's out-of-memory killer). The pool ends the others with SIGTERM,
    so another way of ending is the first worker's."""
    deadline = time.monotonic() + 2.0
    for p in workers:  # (the pool's manager thread may be reaping them too: its exit status lands on p)
        while p.exitcode is None and time.monotonic() < deadline:
            p.join(0.05)
    codes = [p.exitcode for p in workers if p.exitcode]
    code = next((c for c in codes if c != -15), codes[0] if codes else None)
    how = ("it ended abruptly" if code is None else f"exit status {code}" if code > 0
           else "signal 9; out of memory?" if code == -9 else f"signal {-code}")
    return TextnbError(f"a worker process was killed ({how}): use fewer jobs (--jobs 1)")


def _tracker_deaf_to_hangups():
    """Start multiprocessing's resource tracker (the process the LocalCluster's workers
    register their semaphores with) with SIGHUP blocked, and its standard error the one this
    is called with (:func:`_quiet_workers`: ``/dev/null``). It ignores SIGINT and SIGTERM
    itself, not SIGHUP: a closed terminal (a SIGHUP to the whole process group) killed it,
    and the one started again in its place printed a traceback for each semaphore the first
    one had registered, about twelve after ``textnb: terminated by signal 1``. The signal is
    blocked here only while it starts (the tracker keeps the mask it inherits; one sent to
    this process meanwhile waits, and acts once unblocked)."""
    from multiprocessing import resource_tracker

    if not hasattr(signal, "SIGHUP") or not hasattr(signal, "pthread_sigmask"):
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGHUP})
    try:
        resource_tracker.ensure_running()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


@contextmanager
def _quiet_workers():
    """The worker processes of a ``LocalCluster`` started here are this command's helpers,
    as ``--jobs`` ones are: what they would print is not the user's news (a Ctrl-C on the
    terminal reaches the whole process group: each worker's KeyboardInterrupt traceback,
    then the logs of tasks cancelled). They are started with their standard error on
    ``/dev/null`` (the file descriptor they inherit; this process's own is put back at
    once) and Dask's logging at CRITICAL. This process stops on SIGINT and stops the
    workers itself (one that comes while the cluster starts is held until it can be
    closed: :class:`~textnb.core.signals.HeldSignals`)."""
    old_env = os.environ.get("DASK_LOGGING__DISTRIBUTED")
    os.environ["DASK_LOGGING__DISTRIBUTED"] = "critical"  # (read by each worker at start)
    sys.stderr.flush()
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)
        if old_env is None:
            os.environ.pop("DASK_LOGGING__DISTRIBUTED", None)
        else:
            os.environ["DASK_LOGGING__DISTRIBUTED"] = old_env


@contextmanager
def _quiet_dask():
    """Dask's own loggers in this process at CRITICAL for the block (a local cluster's
    nannies live here; closing a cluster whose tasks an interrupt cancelled logs a page of
    warnings and tracebacks), with those of the event loop its client runs on, and that
    loop's "coroutine ... was never awaited". A Ctrl-C leaves the client's call half begun
    on that loop, and two of its moments left a line or a page above ``textnb:
    interrupted`` (found under load): as the call was set up, a coroutine was
    never awaited (a RuntimeWarning, a ``textnb: warning:`` line); as a result's gather
    started, the result was released and the gather's task, finding its key gone, ended
    with an error no one waited for (asyncio's "Task exception was never retrieved" and
    two tracebacks)."""
    import logging

    # (Dask's logging configuration gives some of them, distributed.client among them, a level
    # of their own: each one is set, not only the parents)
    names = {"distributed", "tornado", "asyncio"} | {name for name, lg in list(logging.root.manager.loggerDict.items())
                                                     if name.startswith(("distributed.", "tornado."))
                                                     and isinstance(lg, logging.Logger) and lg.level}
    loggers = [logging.getLogger(name) for name in sorted(names)]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="coroutine .* was never awaited", category=RuntimeWarning)
            yield
    finally:
        for lg, level in zip(loggers, levels):
            lg.setLevel(level)


@contextmanager
def connect(scheduler):
    """A ``distributed.Client`` for ``scheduler``, closed on exit.

    ``scheduler`` is a scheduler address (``tcp://10.0.0.5:8786``) or ``local:N`` to
    start a ``LocalCluster`` of N single-threaded worker processes on 127.0.0.1 (stopped
    on exit). An address is first asked its identity (:func:`_check_scheduler`: what
    answers there, within :data:`CONNECT_SECONDS`, must be a Dask scheduler), and a
    scheduler without workers is given :data:`WORKER_WAIT_SECONDS` for one to join; each
    failure is a one-line :class:`~textnb.core.errors.TextnbError`.
    """
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise TextnbError("Dask is needed for --scheduler; pip install 'textnb[dask]'") from None
    if scheduler.startswith("local:"):
        try:
            n = int(scheduler.split(":", 1)[1])
        except ValueError:
            raise TextnbError(f"--scheduler {scheduler!r}: expected local:N with N workers") from None
        if n < 1:
            raise TextnbError(f"--scheduler {scheduler!r}: need at least one worker")
        with _quiet_dask():  # (an interrupted run: the workers' lost tasks are no news)
            held = HeldSignals()  # a Ctrl-C while the cluster starts acts once it can be closed
            held.hold()
            try:
                with _quiet_workers(), warnings.catch_warnings():
                    _tracker_deaf_to_hangups()
                    # (its HTTP server moves to a free port when another cluster has the default one)
                    warnings.filterwarnings("ignore", message="Port .* is already in use")
                    cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, host="127.0.0.1",
                                           dashboard_address=None)
                _no_gc_diagnosis()
            except BaseException:
                held.release(saved=False)
                raise
            try:
                held.release(saved=False)
                client = Client(cluster)
                try:
                    yield client
                finally:
                    client.close()
            finally:
                cluster.close()
    else:
        _check_scheduler(scheduler)  # (Dask's own client waits for ever on a port that answers otherwise)
        with _quiet_dask():  # (a scheduler lost mid-run: Dask logs its reconnection attempts' tracebacks)
            try:
                client = Client(scheduler, timeout=f"{CONNECT_SECONDS:g}s")
            except (OSError, TimeoutError) as exc:
                raise TextnbError(f"cannot reach the Dask scheduler at {scheduler} ({exc})") from None
            try:
                _wait_for_workers(client, scheduler)
                yield client
            finally:
                client.close()


def _no_gc_diagnosis():
    """Switch off the garbage-collector callback the local cluster's scheduler installs in
    this process (``distributed.gc``: it only logs how long full collections take, which
    :func:`_quiet_dask` silences). A Ctrl-C that lands inside the callback's start left its
    timer unset, and the collection's end printed "Exception ignored in ... GCDiagnosis" and
    a traceback beside ``textnb: interrupted`` (seen once in the suite's
    ``test_ctrl_c_under_a_local_scheduler_is_one_line``). Nothing happens where the
    module or function is not there (another Dask)."""
    try:
        from distributed.gc import disable_gc_diagnosis
    except ImportError:
        return
    disable_gc_diagnosis(force=True)


#: Seconds to reach a Dask scheduler (the TCP connection) and, as much again, for it to answer
CONNECT_SECONDS = 5.0
#: Seconds a run waits for a Dask worker: at the start when the scheduler has none, and
#: whenever every worker has left during the run; then it stops with an error
WORKER_WAIT_SECONDS = 30.0


def _check_scheduler(address):
    """Raise a one-line :class:`TextnbError` unless a Dask scheduler answers at ``address``.

    ``distributed.Client`` waits for ever for the handshake of a port where something else
    listens (a web server, a silent one), reads another protocol's first bytes as a frame
    length (an SSH banner: "out of memory"), fails with a TypeError on a worker's address
    and without TLS settings on ``tls://``. Here the address is asked its identity, every
    step within :data:`CONNECT_SECONDS`.
    """
    import asyncio

    from distributed.comm import connect as comm_connect
    from distributed.comm.addressing import parse_address
    from distributed.security import Security

    from distributed.comm.registry import get_backend

    try:
        scheme = parse_address(address)[0]
        args = Security().get_connection_args("client")
    except ValueError as exc:
        raise TextnbError(f"--scheduler {address}: {exc}") from None
    try:  # (ucx:// without its package: an abstract connector)
        get_backend(scheme).get_connector()
    except (TypeError, ValueError, ImportError) as exc:
        raise TextnbError(f"cannot connect to the Dask scheduler at {address}: this Dask has no {scheme}:// "
                          f"transport ({exc})") from None
    if scheme in ("tls", "wss") and args.get("ssl_context") is None:
        raise TextnbError(f"cannot connect to the Dask scheduler at {address}: {scheme}:// needs Dask's TLS "
                          "settings (distributed.comm.tls.ca-file, .client.cert and .client.key in the Dask "
                          "configuration)")
    if scheme in ("tcp", "tls", "ws", "wss"):
        _reach(address)

    async def identity():
        comm = await comm_connect(address, timeout=CONNECT_SECONDS, **args)
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    answered = []

    def ask():  # (in a thread of its own: the caller may be running an event loop)
        try:
            answered.append(asyncio.run(asyncio.wait_for(identity(), 2 * CONNECT_SECONDS)))
        except BaseException as exc:  # noqa: BLE001 (handed to the calling thread)
            answered.append(exc)

    thread = threading.Thread(target=ask, name="textnb-dask-probe", daemon=True)
    thread.start()
    thread.join()
    reply = answered[0]
    not_dask = f"{address} is not a Dask scheduler: what listens there does not speak Dask's protocol"
    if isinstance(reply, (TimeoutError, asyncio.TimeoutError)):
        raise TextnbError(f"{not_dask} (no answer within {2 * CONNECT_SECONDS:g} s)") from None
    if isinstance(reply, OSError):  # (refused, timed out, closed before it answered)
        raise TextnbError(f"cannot reach the Dask scheduler at {address} ({reply})") from None
    if isinstance(reply, BaseException) and not isinstance(reply, Exception):
        raise reply  # (KeyboardInterrupt and the like)
    if isinstance(reply, Exception):
        raise TextnbError(not_dask) from None  # (an SSH banner read as a frame length: MemoryError)
    kind = reply.get("type") if isinstance(reply, dict) else None
    if kind != "Scheduler":
        told = f": its scheduler is {reply['scheduler']}" if isinstance(reply.get("scheduler"), str) else ""
        what = f"a Dask {str(kind).lower()}" if kind else "not a Dask scheduler"
        raise TextnbError(f"{address} is {what}, not a scheduler{told}")


def _reach(address):
    """Raise a one-line :class:`TextnbError` naming ``address`` (a TCP one) when a plain
    connection to its host and port fails: ``host not found``, ``connection refused``, no
    answer within :data:`CONNECT_SECONDS`. Dask's connector said the first two as "Timed out
    trying to connect to ... after 5 s", 6 to 8 s into the run (it retries them until its
    timeout); they are known at once."""
    import socket

    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        host, port = parse_host_port(parse_address(address)[1])
    except (ValueError, TypeError):
        return  # (Dask's connector says what it makes of it)
    host = host.strip("[]")  # (an IPv6 address in brackets)
    cannot = f"cannot reach the Dask scheduler at {address}"
    try:
        socket.create_connection((host, port), timeout=CONNECT_SECONDS).close()
    except socket.gaierror as exc:
        raise TextnbError(f"{cannot}: host not found ({host}: {exc.strerror})") from None
    except ConnectionRefusedError:
        raise TextnbError(f"{cannot}: connection refused (nothing listens on port {port} of {host})") from None
    except TimeoutError:
        raise TextnbError(f"{cannot}: no answer within {CONNECT_SECONDS:g} s") from None
    except OSError as exc:
        raise TextnbError(f"{cannot}: {exc.strerror or exc}") from None


def _wait_for_workers(client, address):
    """Wait (:data:`WORKER_WAIT_SECONDS` at most) until the scheduler has a worker: a
    task sent to a scheduler without one waits for ever."""
    import asyncio

    with _scheduler_kept(client.scheduler.address):
        if client.nthreads():
            return
    try:
        with _scheduler_kept(client.scheduler.address):
            client.wait_for_workers(1, timeout=WORKER_WAIT_SECONDS)
    except (TimeoutError, asyncio.TimeoutError):
        raise TextnbError(f"the Dask scheduler at {address} has no worker (none joined in "
                          f"{WORKER_WAIT_SECONDS:g} s): start some with `dask worker {address}`") from None


def map_ordered(client, func, arg_tuples, *, window=None):
    """``func(*args)`` for each tuple on the cluster, results in submission order.

    At most ``window`` tasks (default: twice the number of worker threads) are in
    flight, so the documents of only that many shards are held at once. A run whose
    workers have all left waits :data:`WORKER_WAIT_SECONDS` for another, then stops with a
    :class:`~textnb.core.errors.TextnbError`, as it does when the scheduler is lost; an
    error a task raised about the files it read says it came from a worker.
    """
    address = getattr(getattr(client, "scheduler", None), "address", None) or "?"
    if window is None:
        with _scheduler_kept(address):
            window = max(2, 2 * sum(client.nthreads().values()))
    pending = deque()
    for args in arg_tuples:
        with _scheduler_kept(address):
            pending.append((client.submit(func, *args, pure=False), args))
        if len(pending) >= window:
            yield _cluster_result(client, address, *pending.popleft())
    while pending:
        yield _cluster_result(client, address, *pending.popleft())


@contextmanager
def _scheduler_kept(address):
    """A call to the scheduler at ``address`` whose connection is lost (the scheduler ended,
    the network): one :class:`~textnb.core.errors.TextnbError` instead of Dask's OSError
    naming its connection pool."""
    import asyncio
    import concurrent.futures

    lost = f"lost the connection to the Dask scheduler at {address} during the run"
    try:
        yield
    except (TimeoutError, asyncio.TimeoutError):  # (an OSError: a result not ready yet, for the caller)
        raise
    except (OSError, asyncio.CancelledError):  # (CommClosedError)
        raise TextnbError(lost) from None
    except concurrent.futures.CancelledError as exc:  # (the futures a client that lost its scheduler cancels)
        reason = getattr(exc, "reason", None)
        if reason in (None, "scheduler-connection-lost"):
            raise TextnbError(lost) from None
        raise TextnbError(f"the Dask scheduler at {address} cancelled the run's tasks ({reason})") from None


def _cluster_result(client, address, future, args):
    """The result of ``future`` (a task of ``func(*args)`` sent with ``client`` to the
    scheduler at ``address``), released."""
    import asyncio

    alone = None  # since when the scheduler has had no worker
    try:
        while True:
            try:
                with _scheduler_kept(address):
                    return future.result(timeout=1.0)
            except (TimeoutError, asyncio.TimeoutError):
                with _scheduler_kept(address):
                    workers = client.nthreads()
                if workers:
                    alone = None
                    continue
                alone = time.monotonic() if alone is None else alone
                if time.monotonic() - alone > WORKER_WAIT_SECONDS:
                    raise TextnbError(f"every Dask worker of the scheduler at {address} has left (none for "
                                      f"{WORKER_WAIT_SECONDS:g} s; a worker that cannot import textnb ends at "
                                      "its first task): the run is stopped") from None
    except InputError as exc:  # (a file the worker cannot read: not on its file system?)
        docs = args[0] if args and isinstance(args[0], (list, tuple)) else ()
        if any(isinstance(d, PurePath) for d in docs):
            exc.args = (f"{exc.args[0]} (read on a Dask worker: the corpus must be at the same path on "
                        "every worker)",) + exc.args[1:]
        raise
    finally:
        with contextlib.suppress(Exception):
            future.release()


def _reap(pool):
    """Stop (SIGTERM, then SIGKILL after 5 s) and wait for every worker ``pool`` started.

    Used when a fork failed (the workers started wait for tasks that will never come: the
    pool's manager thread is not started yet, so the interpreter would hang at exit joining
    them) and when the map ends early (an error, a Ctrl-C, SIGTERM, the consumer closing the
    generator): the tasks in flight are of no use then, and waiting for them would keep the
    command running for their whole length after it was told to stop.
    """
    workers = list((getattr(pool, "_processes", None) or {}).values())
    # (the pool's parts, taken before its shutdown lets go of them)
    call_queue, result_queue, manager = (getattr(pool, name, None) for name in (
        "_call_queue", "_result_queue", "_executor_manager_thread"))
    pool.shutdown(wait=False, cancel_futures=True)
    for p in workers:
        with contextlib.suppress(Exception):
            p.terminate()
    for p in workers:
        with contextlib.suppress(Exception):
            p.join(5)
            if p.is_alive():
                p.kill()
                p.join()
    # The pool's threads must not wait for the dead workers: its feeder may be blocked
    # writing tasks to a pipe no one reads (its join at exit is cancelled, as CPython does
    # for a broken pool), and its manager reading a result a worker was killed in the middle
    # of sending (the parent's copy of the pipe's write end closed: it reads the end of the
    # file, finds the pool broken and stops). Its end closes the pool's pipes: none is left
    # open for the interpreter's exit to race with.
    with contextlib.suppress(Exception):
        call_queue.cancel_join_thread()
    with contextlib.suppress(Exception):
        result_queue._writer.close()
    if manager is not None:
        manager.join(5)
