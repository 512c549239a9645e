"""textnb.core.forkmap: the ordered map shared with forked helpers (the spam filter's batch).

What is checked: the values and their order are the same with and without helpers, the
helpers really compute some of them, a helper that dies or sends what cannot be read
leaves its items to the parent, closing the map early or an error in the parent leaves
no child behind, and the CPU rule reads the load average.
"""

import os
import threading
import time

import pytest

from textnb.core import forkmap
from textnb.core.forkmap import fork_map

PARENT = os.getpid()
needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")


def square_and_pid(i):
    return i * i, os.getpid()


@pytest.fixture(autouse=True)
def forked(forked_pids):
    """The pids this test's maps fork (conftest.forked_pids)."""
    return forked_pids


def reaped(pids):
    """Whether every one of ``pids`` has been waited for (none left running or a zombie)."""
    for pid in pids:
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            continue
        return False
    return True


@pytest.mark.parametrize("helpers", [0, 1, 3])
@pytest.mark.parametrize("n", [1, 2, 57, 3001])
def test_values_in_order_whoever_computes_them(n, helpers, forked):
    out = list(fork_map(square_and_pid, range(n), helpers))
    assert [v for v, _ in out] == [i * i for i in range(n)]
    if not helpers or n == 1:
        assert {p for _, p in out} == {os.getpid()} and not forked
    elif forkmap.can_fork_here():
        assert len(forked) == min(helpers, n - 1)
    assert reaped(forked)


def slow_square_and_pid(i):
    time.sleep(0.002)
    return square_and_pid(i)


@needs_fork
def test_the_helpers_share_the_work():
    out = list(fork_map(slow_square_and_pid, range(300), 1))
    assert [v for v, _ in out] == [i * i for i in range(300)]
    pids = [p for _, p in out]
    # each process claimed blocks as it got free (wide bounds: a loaded machine may start the child late)
    assert 10 <= pids.count(os.getpid()) <= 290


def dies_in_a_child(i):
    if os.getpid() != PARENT and i % 5 == 0:
        os._exit(1)
    return [i, "x" * (i % 7)], os.getpid()


def unreadable_in_a_child(i):
    # a set of a function: marshal refuses it, so the helper cannot send it (and stops)
    return ({i, square_and_pid} if os.getpid() != PARENT else i), os.getpid()


@needs_fork
@pytest.mark.parametrize("func", [dies_in_a_child, unreadable_in_a_child])
def test_a_failing_helper_leaves_its_items_to_the_parent(func, forked):
    out = list(fork_map(func, range(300), 2, on_lost=lambda message: None))
    assert len(forked) == 2
    assert [v for v, _ in out] == [func(i)[0] for i in range(300)]
    assert reaped(forked)


def killed_in_a_child(i, how=lambda: os.kill(os.getpid(), 9)):
    if os.getpid() != PARENT:  # (at the helper's first item)
        how()
    time.sleep(0.002)  # (the helper has the time to start and claim one)
    return i, os.getpid()


def exits_in_a_child(i):
    return killed_in_a_child(i, lambda: os._exit(1))


@needs_fork
def test_a_helper_killed_is_reported_once_and_its_items_computed_here(forked):
    """A helper killed (SIGKILL: the OOM killer, a user) was recomputed without a word."""
    lost = []
    out = list(fork_map(killed_in_a_child, range(300), 1, on_lost=lost.append))
    assert [v for v, _ in out] == list(range(300)) and len(forked) == 1
    assert lost == [f"helper process {forked[0]} was killed by signal 9 (SIGKILL) before it was done; this "
                    "process did what it left undone (nothing is missing)"]
    with pytest.warns(RuntimeWarning, match=r"helper process \d+ ended with exit status 1 before it was done"):
        assert [v for v, _ in fork_map(exits_in_a_child, range(300), 1)] == list(range(300))
    # stopped early by this process: its own SIGKILL is not reported
    it = fork_map(square_and_pid, range(5000), 2, on_lost=lost.append)
    next(it)
    before = len(lost)
    it.close()
    assert len(lost) == before and reaped(forked)


@needs_fork
def test_closing_early_or_an_error_here_reaps_every_child(forked):
    # (a thread another test's service left shutting down in this process would stop the
    # fork: give it a moment, as a process forking helpers on its own would find it gone)
    deadline = time.monotonic() + 10
    while not forkmap.can_fork_here() and time.monotonic() < deadline:
        time.sleep(0.05)
    if not forkmap.can_fork_here():
        pytest.skip(f"threads still running in this test process: {threading.enumerate()}")
    it = fork_map(square_and_pid, range(5000), 2)
    assert [next(it)[0] for _ in range(3)] == [0, 1, 4]
    it.close()
    assert len(forked) == 2 and reaped(forked)

    def fails_here(i):
        if os.getpid() != PARENT:
            time.sleep(0.005)  # (a child free to run while the parent waits its turn would claim every block)
        elif i >= 10:
            raise RuntimeError("a bug")
        return i

    with pytest.raises(RuntimeError, match="a bug"):
        list(fork_map(fails_here, range(2000), 1))
    assert len(forked) == 3 and reaped(forked)


def test_no_helpers_when_a_thread_runs(monkeypatch):
    monkeypatch.setattr(threading, "active_count", lambda: 2)
    assert not forkmap.can_fork_here()
    assert {p for _, p in fork_map(square_and_pid, range(200), 1)} == {os.getpid()}


@pytest.mark.parametrize("load, spare", [(0.0, 2), (0.4, 2), (0.6, 1), (1.6, 0), (9.0, 0)])
def test_spare_cpus_follow_the_load_average(monkeypatch, load, spare):
    monkeypatch.setattr(forkmap, "cpu_count", lambda: 2)
    monkeypatch.setattr(forkmap.os, "getloadavg", lambda: (load, load, load))
    assert forkmap.spare_cpus() == spare


@pytest.mark.parametrize("line, spare", [(b"1.90 1.2 1.0 1/300 99\n", 2), (b"0.0 0 0 2/300 99\n", 1),
                                         (b"0.0 0 0 3/300 99\n", 0), (b"0.0 0 0 9/300 99\n", 0),
                                         (b"garbled\n", 0)])
def test_spare_cpus_now_count_the_threads_runnable_now(monkeypatch, line, spare):
    """``now``: the run queue at this moment (this thread aside), not the minute's average
    (1.9 here); a file that cannot be read falls back to the average."""
    import io

    monkeypatch.setattr(forkmap, "cpu_count", lambda: 2)
    monkeypatch.setattr(forkmap.os, "getloadavg", lambda: (1.9, 1.2, 1.0))
    monkeypatch.setattr(forkmap, "open", lambda path, mode: io.BytesIO(line), raising=False)
    assert forkmap.spare_cpus(now=True) == spare


def slow_range(i):
    time.sleep(0.002)
    return range(i, 2 * i), os.getpid()


@needs_fork
def test_values_cross_the_pipe_packed_and_come_out_unpacked(forked):
    """A value marshal cannot send (a range) goes as ``pack(value)`` and comes out as
    ``unpack(...)``; values computed here are never packed."""
    packed = []

    def pack(value):
        packed.append(value)  # (in the child: this process's list is unchanged)
        return (value[0].start, value[0].stop), value[1]

    out = list(fork_map(slow_range, range(60), 1, pack=pack, unpack=lambda v: (range(*v[0]), v[1])))
    assert [v for v, _ in out] == [range(i, 2 * i) for i in range(60)]
    assert {p for _, p in out} - {os.getpid()} and not packed and len(forked) == 1
    with pytest.raises(ValueError):
        __import__("marshal").dumps(range(3))
