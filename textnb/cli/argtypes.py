"""Argument types shared by the command lines (``textnb``, ``spamfilter``, ``topicfilter``).

Every numeric flag has a range checked when the arguments are parsed (a value outside
it is a usage error, exit 2, one line), so no flag can make the work unbounded or the
arithmetic overflow later, and every model ``textnb train`` writes loads: each range is
the schema's (:mod:`textnb.core.model_schema`) or inside it. Each type carries its range
as text (``type.range``), which the flag's ``--help`` quotes (a test checks every flag).

=========================================  ==============================================
flag                                       range
=========================================  ==============================================
``--alpha``, ``--m``                       finite, 0 to 1e6 (:data:`MAX_ALPHA`; a model
                                           file holds up to 1e12): larger smoothing
                                           overflows the count tables to NaN
``--bins``                                 1 to 10,000 (:data:`MAX_BINS`; files: 10^6)
``--ngram``                                1 to 20 (:data:`MAX_NGRAM`; files and the
                                           library, word or character n-grams: the
                                           same): the terms of a document grow with
                                           the square of n
``--jobs``, ``--scheduler local:N``        1 to 4 x CPUs (:data:`JOBS_PER_CPU`, at most
                                           256), or -1 (all CPUs) to -CPUs
``--max-bytes`` (textnb, mail tools),      1 byte to 4 GiB (:data:`MAX_BYTES`)
``--max-request``
``--max-features``, ``--select K``,        1 to 2**40 (:data:`MAX_TERMS`, the schema's
``--min-df`` / ``--max-df`` counts         largest dimension; counts from 0); a df
                                           fraction 0.0 to 1.0
``--top``                                  1 to 10^6 (:data:`MAX_TOP`)
``--significance``                         above 0, at most 1
``--threshold`` (predict, topicfilter),    0 to 1 (:data:`threshold`: a probability at
``test``'s TH                              least P; 0 keeps every label, as fastText);
                                           the spam cut-offs: 0 to 1 too
``--cv``; ``--repeat``; ``--seed``         2 to 10,000; 1 to 1,000; 0 to 2**32 - 1
``--max-clients``; ``--timeout``           1 to 1,024; above 0, at most 3,600 seconds
``--socket-mode``; ``--http`` port         000 to 777 (octal); 0 to 65535
=========================================  ==============================================
"""

import argparse
import math
import os

from textnb.core import model_schema
from textnb.io.files import MAX_BYTES_CAP

__all__ = ["bounded", "threshold", "jobs", "df_value", "select_spec", "scheduler", "size", "MAX_ALPHA", "MAX_BINS",
           "MAX_NGRAM", "MAX_BYTES", "MAX_TERMS", "MAX_TOP", "MAX_JOBS", "JOBS_PER_CPU", "cpu_count"]

#: Largest smoothing (``--alpha``, ``--m``) accepted.
MAX_ALPHA = 1e6
#: Largest number of discretisation bins (``--bins``).
MAX_BINS = 10_000
#: Largest n-gram order (``--ngram``): what a model file may hold, the one bound.
MAX_NGRAM = model_schema.MAX_NGRAM
#: Largest ``--max-bytes`` (bytes of one document or message read).
MAX_BYTES = MAX_BYTES_CAP
#: Largest ``--max-features``, ``--select`` K and ``--min-df`` / ``--max-df`` count: the
#: largest dimension a model file may declare.
MAX_TERMS = model_schema.MAX_DIM
#: Largest ``--top``.
MAX_TOP = 10**6
#: ``--jobs`` is at most this many worker processes per CPU ...
JOBS_PER_CPU = 4
#: ... and never more than this many (the schema's bound on a model's ``n_jobs``).
MAX_JOBS = 256

assert MAX_ALPHA <= model_schema.MAX_ALPHA


def _show(v):
    """A bound as the help text writes it: ``2**40``, ``1e+06``, ``10000``."""
    if isinstance(v, int) and v >= 2**20 and v & (v - 1) == 0:
        return f"2**{v.bit_length() - 1}"
    if isinstance(v, int) and v >= 2**20 and (v + 1) & v == 0:
        return f"2**{v.bit_length()} - 1"
    return f"{v:g}" if isinstance(v, float) else str(v)


def _range_text(low, high, low_open):
    if low is None:
        return f"at most {_show(high)}"
    if high is None:
        return f"above {_show(low)}" if low_open else f"at least {_show(low)}"
    return f"above {_show(low)}, at most {_show(high)}" if low_open else f"{_show(low)} to {_show(high)}"


def bounded(cast, *, low=None, high=None, low_open=False):
    """An argparse ``type=`` that parses with ``cast`` and checks ``low <= value <= high``.

    ``low_open`` makes the lower bound strict. Non-finite numbers are refused. The
    returned function's ``range`` is the range as text, for the flag's help.
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
    parse.range = _range_text(low, high, low_open)
    parse.low, parse.high, parse.low_open = low, high, low_open
    return parse


#: ``--threshold P`` of ``predict`` and ``topicfilter``, ``test``'s TH: a probability, "at
#: least P" (0 keeps every label, fastText's default threshold), the one rule of the three
threshold = bounded(float, low=0.0, high=1.0)


def cpu_count():
    """CPUs this process may run on (its affinity mask), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _jobs_bounds():
    cpus = cpu_count()
    return min(JOBS_PER_CPU * cpus, MAX_JOBS), min(cpus, 64)


def jobs(text):
    """``--jobs``: 1 to :data:`JOBS_PER_CPU` x CPUs (at most :data:`MAX_JOBS`), or -k (all
    CPUs but k - 1), k <= CPUs."""
    high, cpus = _jobs_bounds()
    wanted = f"a whole number from 1 to {high} ({JOBS_PER_CPU} x {cpu_count()} CPUs), or -1 (all CPUs) to -{cpus}"
    try:
        value = int(text)
    except (TypeError, ValueError):
        raise argparse.ArgumentTypeError(f"expected {wanted}, got {text!r}") from None
    if not (1 <= value <= high or -cpus <= value <= -1):
        raise argparse.ArgumentTypeError(f"expected {wanted}, got {text!r}")
    return value


jobs.range = f"1 to {_jobs_bounds()[0]} ({JOBS_PER_CPU} per CPU), or -1 (all CPUs) to -{_jobs_bounds()[1]}"

_df_count = bounded(int, low=0, high=MAX_TERMS)
_df_fraction = bounded(float, low=0.0, high=1.0)


def df_value(text):
    """``--min-df`` / ``--max-df``: a count ("5", 0 to :data:`MAX_TERMS`) or a fraction of
    the documents ("0.5", 0.0 to 1.0)."""
    try:
        int(text)
    except ValueError:
        try:
            return _df_fraction(text)
        except argparse.ArgumentTypeError:
            raise argparse.ArgumentTypeError(
                f"expected a count 0 to {_show(MAX_TERMS)} or a fraction 0.0 to 1.0, got {text!r}") from None
    try:
        return _df_count(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"expected a count 0 to {_show(MAX_TERMS)} or a fraction 0.0 to 1.0, got {text!r}") from None


df_value.range = f"a count 0 to {_show(MAX_TERMS)}, or a fraction 0.0 to 1.0"

_SELECT_CRITERIA = ("chi2", "ig", "df")


def select_spec(text):
    """``--select CRITERION:K``: chi2, ig or df, and K from 1 to :data:`MAX_TERMS`; the
    text is returned unchanged."""
    criterion, _, k = text.partition(":")
    if criterion not in _SELECT_CRITERIA or not k.isdigit() or not 1 <= int(k) <= MAX_TERMS:
        raise argparse.ArgumentTypeError(
            f"expected chi2:K, ig:K or df:K with K from 1 to {_show(MAX_TERMS)}, got {text!r}")
    return text


select_spec.__name__ = "criterion"
select_spec.range = f"K 1 to {_show(MAX_TERMS)}"


def scheduler(text):
    """``--scheduler``: an address, or ``local:N`` with N worker processes in the range
    of ``--jobs`` (1 to 4 x CPUs)."""
    if text.startswith("local:"):
        high = _jobs_bounds()[0]
        n = text.split(":", 1)[1]
        if not (n.isdigit() and 1 <= int(n) <= high):
            raise argparse.ArgumentTypeError(f"expected local:N with N from 1 to {high} workers, got {text!r}")
    elif not text.strip():
        raise argparse.ArgumentTypeError("expected a scheduler address or local:N")
    else:  # [tcp|tls|ws|wss|ucx://]HOST:PORT, as Dask reads it (a malformed one was an internal error)
        scheme, sep, rest = text.partition("://")
        host, _, port = (rest if sep else text).rpartition(":")
        if (sep and scheme not in _DASK_SCHEMES) or not host or not port.isdigit() or not 1 <= int(port) <= 65535:
            raise argparse.ArgumentTypeError(f"expected local:N or a scheduler address "
                                             f"[{'|'.join(_DASK_SCHEMES)}://]HOST:PORT, got {text!r}")
    return text


_DASK_SCHEMES = ("tcp", "tls", "ws", "wss", "ucx")
scheduler.range = f"local:N with N 1 to {_jobs_bounds()[0]}"


def file_name(text):
    """A file to write (``--plot``, ``-o``): not empty (``--plot ""`` drew nothing, exit 0)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a file name, got an empty one")
    return text


def size(text):
    """A byte size such as ``10M`` (suffixes k, m, g), 1 byte to :data:`MAX_BYTES`."""
    from textnb.apps.spamclient import parse_size  # (the mail client's module: only --max-bytes reads it)

    try:
        value = parse_size(text)
        if value > MAX_BYTES:
            raise ValueError(f"at most 4G: {text}")
    except ValueError as exc:  # (the words of every bounded flag, then why)
        raise argparse.ArgumentTypeError(f"expected a size such as 4096, 64k or 16M, {size.range}: {exc}") from None
    return value


size.range = "1 byte to 4G"
