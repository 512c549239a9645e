"""What the programs (``textnb``, ``spamfilter``, ``topicfilter``) set for their own process
before numpy loads, and the ``textnb`` program's entry point. Imports neither numpy nor the
commands until :func:`main` runs them.
"""

import os

__all__ = ["main", "one_blas_thread"]

#: The variables by which a user chooses the BLAS library's threads (OpenBLAS reads the first
#: three, MKL its own); when any is set, the user's choice stands.
_BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def one_blas_thread(environ=None):
    """Ask the BLAS library numpy loads for one thread, unless the user chose a number.

    The programs run their own threads and processes (one per idle CPU) and multiply sparse
    matrices, which scipy does without BLAS; OpenBLAS's own threads, started when numpy is
    imported, would wait by spinning on the same CPUs. On 20 Newsgroups' ``textnb train``
    they cost 0.1 s of CPU time of 1.45, and nothing they shorten (docs/bench_text.md). The
    setting reaches the workers the programs start, and only them: a library user's process
    is left as it is. Must run before numpy is imported to take effect.
    """
    environ = os.environ if environ is None else environ
    if not any(environ.get(name) for name in _BLAS_THREAD_VARIABLES):
        environ["OPENBLAS_NUM_THREADS"] = "1"
        environ["MKL_NUM_THREADS"] = "1"


def main():
    """The ``textnb`` program (the console script and ``python -m textnb``): returns its exit
    status (:func:`textnb.cli.commands.main`)."""
    one_blas_thread()
    from textnb.cli.commands import main as run

    return run()
