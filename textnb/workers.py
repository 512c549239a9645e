"""Ordered, bounded parallel map over worker processes for tokenising and counting.

Starting joblib's default (loky) workers costs about a second on this kind of machine
(each worker is a fresh interpreter that imports numpy and textnb), more than
tokenising 20 Newsgroups takes. When the platform can ``fork`` and the calling
process runs a single thread (forking a threaded process can copy a held lock into
the child), workers are forked instead: they start in milliseconds, already holding
every imported module. Otherwise joblib's loky workers are used. Either way results
come back in submission order, with at most ``2 * n_jobs`` tasks in flight, so
memory stays bounded while a corpus streams through.
"""

import multiprocessing
import threading
from collections import deque
from concurrent.futures import ProcessPoolExecutor

__all__ = ["can_fork", "effective_jobs", "ordered_map"]


def can_fork():
    """True when forked workers are safe here: ``fork`` exists and only one thread runs."""
    return "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1


def effective_jobs(n_jobs):
    """``n_jobs`` as a number of processes (None -> 1; negative counts back from the
    number of CPUs, as in joblib)."""
    from joblib import effective_n_jobs

    return max(1, effective_n_jobs(1 if n_jobs is None else n_jobs))


def ordered_map(func, arg_tuples, n_jobs):
    """``func(*args)`` for each tuple of ``arg_tuples``, results yielded in order.

    Runs in the calling process when ``n_jobs`` resolves to 1.
    """
    n = effective_jobs(n_jobs)
    if n == 1:
        for args in arg_tuples:
            yield func(*args)
        return
    if not can_fork():
        from joblib import Parallel, delayed

        yield from Parallel(n_jobs=n, return_as="generator", pre_dispatch="2*n_jobs")(
            delayed(func)(*args) for args in arg_tuples)
        return
    with ProcessPoolExecutor(max_workers=n, mp_context=multiprocessing.get_context("fork")) as pool:
        pending = deque()
        for args in arg_tuples:
            pending.append(pool.submit(func, *args))
            if len(pending) >= 2 * n:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
