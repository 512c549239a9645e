"""What the programs (``textnb``, ``spamfilter``, ``topicfilter``) set for their own process
before numpy loads, and the ``textnb`` program's entry point. Imports neither numpy nor the
commands until :func:`main` runs them.
"""

import os
import sys

__all__ = ["defer_numpy_extras", "main", "one_blas_thread", "prepare_process"]

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


#: numpy's submodules that numpy itself loads only when first asked for, and that importing
#: scipy asks for all at once (its vendored ``array_api_compat`` copies the numpy namespace,
#: ``hasattr(numpy, name)`` for every name): f2py alone pulls in ``charset_normalizer`` and
#: ``email``; testing pulls in ``unittest``. The programs use none of them.
NUMPY_EXTRAS = ("f2py", "testing", "polynomial", "ctypeslib", "matlib", "typing", "rec", "char",
                "strings")


class _DeferNumpyExtras:
    """A finder on ``sys.meta_path`` (the protocol of :class:`importlib.abc.MetaPathFinder`;
    importlib is not imported for it: the mail filters' numpy-free path loads neither it nor
    ``re``) called for the first import of scipy, then removed: :func:`defer_numpy_extras`."""

    def find_spec(self, name, path=None, target=None):
        if name == "scipy":
            finders = sys.meta_path
            after = next((finders[k + 1:] for k, f in enumerate(finders) if f is self), [])
            finders[:] = [f for f in finders if f is not self]
            _lazy_submodules("numpy", NUMPY_EXTRAS)
            # the import system walks sys.meta_path by position: with this finder gone, the one
            # after it would be skipped for scipy (an import hook a user put first), so the
            # finders after this one are asked here, in their order
            for finder in after:
                find = getattr(finder, "find_spec", None)
                spec = find(name, path, target) if find is not None else None
                if spec is not None:
                    return spec
        return None  # the usual finders import the module itself


def _lazy_submodules(package, names):
    """Register ``package``'s submodules ``names`` as modules that execute at their first
    attribute access (:class:`importlib.util.LazyLoader`), so that merely naming one costs
    nothing; each one already imported, or not found, is left alone."""
    import importlib.util

    parent = importlib.import_module(package)
    for name in names:
        full = f"{package}.{name}"
        if full in sys.modules:
            continue
        spec = importlib.util.find_spec(full)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            continue
        spec.loader = importlib.util.LazyLoader(spec.loader)
        module = importlib.util.module_from_spec(spec)
        sys.modules[full] = module
        spec.loader.exec_module(module)
        setattr(parent, name, module)


def defer_numpy_extras():
    """Make the first import of scipy (every ``textnb`` command that multiplies sparse
    matrices) leave numpy's :data:`NUMPY_EXTRAS` unexecuted until they are used: about
    0.1 s of CPU time of each such command (0.24 -> 0.14 s for numpy + scipy.sparse; on
    20 Newsgroups' ``textnb train``, docs/bench_text.md). Nothing changes for code that
    uses them (each loads at its first attribute access), nor for a library user's
    process: only the programs call this."""
    if "scipy" not in sys.modules and not any(isinstance(f, _DeferNumpyExtras) for f in sys.meta_path):
        sys.meta_path.insert(0, _DeferNumpyExtras())


def prepare_process():
    """What the programs set before their work: :func:`one_blas_thread` and
    :func:`defer_numpy_extras`."""
    one_blas_thread()
    defer_numpy_extras()


def main():
    """The ``textnb`` program (the console script and ``python -m textnb``): returns its exit
    status (:func:`textnb.cli.commands.main`).

    A Ctrl-C, SIGTERM or SIGHUP that comes while the commands are still being imported
    (numpy, scipy: the first few tenths of a second, a user's "oops" right after Enter)
    ends the program as one during the command does, in one line and with the same exit
    status (``textnb: interrupted``, 130; ``textnb: terminated by signal N``, 128 + N), not
    with a traceback of the import; :func:`textnb.cli.commands.main` answers the rest. The
    stop signals' handlers are the first thing put in place, and a stop that an import lost
    is not lost to the program: an error an import raised in its stead (numpy's "Importing
    the numpy C-extensions failed") is the stop (:class:`textnb.core.signals.stops_unmasked`),
    and one dropped by a callback (importlib's module lock's) acts once the imports are done,
    before the command runs (:func:`textnb.core.signals.raise_lost_stop`). A signal that
    comes before this function runs (Python's start-up: its ``site`` module, the console
    script's first lines) is Python's to answer, not textnb's. Once the command has
    returned, the stop signals are ignored: a Ctrl-C while the interpreter exits (its
    ``atexit`` clean-up: thread and process pools) printed ``Exception ignored in atexit
    callback`` and a traceback after a finished run."""
    try:
        from textnb.core.signals import (Terminated, ignore_stop_signals, raise_lost_stop, stop_on_signals,
                                         stops_unmasked)

        try:
            stop_on_signals()
            prepare_process()
            with stops_unmasked():
                from textnb.cli.commands import main as run
            raise_lost_stop()
            code = run()
            ignore_stop_signals()  # (the work is done: a Ctrl-C during the exit's clean-up is no traceback)
            return code
        except Terminated as exc:
            _say(f"textnb: {exc}")
            return 128 + exc.signum
    except KeyboardInterrupt:
        _say("textnb: interrupted")
        return 130
    except MemoryError:  # (while the commands are imported, under a small ``ulimit -v``: numpy's own
        # import; the commands answer their own) one line, as a command's, not a traceback of the import
        _say("textnb: error: out of memory")
        return 1


def _say(line):
    """``line`` on standard error, if it can still be written."""
    try:
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError, AttributeError):
        pass
