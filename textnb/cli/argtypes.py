"""Argument types shared by the command lines (``textnb``, ``spamfilter``, ``topicfilter``).

Every numeric flag has a range checked when the arguments are parsed (a value outside
it is a usage error, exit 2, one line), so no flag can make the work unbounded or the
arithmetic overflow later:

==================  =========================================================
flag                range
==================  =========================================================
``--alpha``, --m    finite, ``0 <= a <= 1e6`` (:data:`MAX_ALPHA`); larger
                    smoothing overflows the count tables to NaN
``--bins``          ``1 <= n <= 10000`` (:data:`MAX_BINS`)
``--ngram``         ``1 <= n <= 20`` (:data:`MAX_NGRAM`): the terms of a document
                    grow with the square of ``n``
``--jobs``          ``1 <= n <= 4 x CPUs`` (:data:`JOBS_PER_CPU`), or a negative
                    ``-k`` (all CPUs but ``k - 1``) with ``k <= CPUs``
``--max-bytes``     ``1 <= n <= 4 GiB`` (:data:`MAX_BYTES`)
==================  =========================================================
"""

import argparse
import math
import os

__all__ = ["bounded", "jobs", "MAX_ALPHA", "MAX_BINS", "MAX_NGRAM", "MAX_BYTES", "JOBS_PER_CPU", "cpu_count"]

#: Largest smoothing (``--alpha``, ``--m``) accepted.
MAX_ALPHA = 1e6
#: Largest number of discretisation bins (``--bins``).
MAX_BINS = 10_000
#: Largest n-gram order (``--ngram``).
MAX_NGRAM = 20
#: Largest ``--max-bytes`` (bytes of one document or message read).
MAX_BYTES = 4 * 1024**3
#: ``--jobs`` is at most this many worker processes per CPU.
JOBS_PER_CPU = 4


def bounded(cast, *, low=None, high=None, low_open=False):
    """An argparse ``type=`` that parses with ``cast`` and checks ``low <= value <= high``.

    ``low_open`` makes the lower bound strict. Non-finite numbers are refused.
    """
    kind = "a whole number" if cast is int else "a number"
    parts = []
    if low is not None:
        parts.append(f"{'>' if low_open else '>='} {low}")
    if high is not None:
        parts.append(f"<= {high}")
    wanted = f"{kind} {' and '.join(parts)}".strip()

    def parse(text):
        try:
            value = cast(text)
        except (TypeError, ValueError, OverflowError):
            raise argparse.ArgumentTypeError(f"expected {wanted}, got {text!r}") from None
        too_low = low is not None and (value <= low if low_open else value < low)
        too_high = high is not None and value > high
        if not math.isfinite(value) or too_low or too_high:
            raise argparse.ArgumentTypeError(f"expected {wanted}, got {text!r}")
        return value

    parse.__name__ = f"{cast.__name__}_in_range"  # argparse names the type in its message
    return parse


def cpu_count():
    """CPUs this process may run on (its affinity mask), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def jobs(text):
    """``--jobs``: 1 to :data:`JOBS_PER_CPU` x CPUs, or -k (all CPUs but k - 1), k <= CPUs."""
    cpus = cpu_count()
    high = JOBS_PER_CPU * cpus
    wanted = f"a whole number from 1 to {high} ({JOBS_PER_CPU} x {cpus} CPUs), or -1 (all CPUs) to -{cpus}"
    try:
        value = int(text)
    except (TypeError, ValueError):
        raise argparse.ArgumentTypeError(f"expected {wanted}, got {text!r}") from None
    if not (1 <= value <= high or -cpus <= value <= -1):
        raise argparse.ArgumentTypeError(f"expected {wanted}, got {text!r}")
    return value
