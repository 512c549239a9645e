"""Signals held across steps that must not be cut in two (:class:`HeldSignals`, and
:func:`blocked_across_fork` for the forks of worker processes); a program's stop signals
answered once (:func:`stop_on_signals`: :func:`interrupt_once`, :func:`terminate_once`,
:func:`ignore_stop_signals`), the one rule of every textnb program (``textnb``, ``textnb
serve``, ``spamfilter`` and its daemon client, ``topicfilter``); a stop whose exception was
lost or masked by an error raised again as itself (:func:`raise_lost_stop`,
:class:`stops_unmasked`); what the system refused a program, said alike by every program
(:func:`memory_refused`, :func:`os_error_text`).

Only the C module ``_signal`` is imported (:mod:`signal` sets up its enums first, about
6 ms): the ``spamfilter --socket`` client installs these handlers too.
"""

import sys

try:
    import _signal as signal
except ImportError:  # pragma: no cover - not CPython
    import signal

__all__ = ["HeldSignals", "Terminated", "answers_once", "blocked_across_fork", "stops_blocked", "ignore_stop_signals",
           "ignored", "interrupt_once", "memory_refused", "os_error_text", "raise_lost_stop", "raise_swallowed_stops", "stop_behind",
           "stop_on_signals", "stops_unmasked", "terminate_once", "unblock_in_child"]


class Terminated(BaseException):
    """Raised by SIGTERM or SIGHUP in textnb's programs (:func:`terminate_once`, put in
    place by :func:`stop_on_signals`): the command stops as at a Ctrl-C (a message passed
    through is kept, worker processes are stopped and reaped, a model being written is left
    as it was) and exits after one line ``PROG: terminated by signal N`` (the mail tools: 3,
    their error; ``topicfilter``: 1; ``textnb``: 128 + N). A BaseException, as
    KeyboardInterrupt is: no ``except Exception`` takes it for an error of the input.
    (Also importable as :class:`textnb.apps.spamclient.Terminated`.)"""

    def __init__(self, signum):
        super().__init__(f"terminated by signal {signum}")
        self.signum = signum


class HeldSignals:
    """SIGINT, SIGTERM and SIGHUP held across a step that must not be cut in two: the end
    of :func:`textnb.core.model_io.atomic_write` (the ``os.replace`` and the fsync of the
    folder: "interrupted" means the old file is intact) and the moves of
    :func:`textnb.apps.filtering.apply_route` (a document is in its source or in OUT).

    :meth:`hold` (main thread only: Python runs signal handlers there, so no other thread
    can be interrupted) puts a recorder in place of each handler; :meth:`release` puts the
    handlers back and then delivers what arrived, except a stop whose handler raises its
    exception (a Ctrl-C's KeyboardInterrupt, Python's default or :func:`interrupt_once`; a
    SIGTERM's or SIGHUP's :class:`Terminated`, :func:`terminate_once`) after the new file
    was saved: that stop came after the work was done, and the command reports the save
    (``spamfilter --register-*``: exit 0, so a mail system's retry does not count the
    message twice). Other handlers (a daemon's stop flag, a library user's) run then, after
    the save. (A SIGTERM there was :class:`Terminated` until session 51: ``textnb train``
    exited 143 and ``spamfilter`` 3 with the new model in place.)
    """

    SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))

    def __init__(self):
        self.handlers, self.arrived = {}, []

    def hold(self):
        """Hold the stop signals from now on; first, a stop the program went on from (one
        whose exception was lost) is raised again (:func:`raise_lost_stop`): the step is
        not begun, and an interrupted run writes no model."""
        import threading

        if threading.current_thread() is not threading.main_thread():
            return
        raise_lost_stop()
        for signum in self.SIGNALS:
            handler = signal.getsignal(signum)
            if handler is None or ignored(signum):  # (set outside Python; ignored)
                continue
            signal.signal(signum, self._arrived)
            self.handlers[signum] = handler

    def _arrived(self, signum, frame):
        self.arrived.append(signum)

    def release(self, saved):
        handlers, self.handlers = self.handlers, {}
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
        arrived, self.arrived = list(dict.fromkeys(self.arrived)), []
        for signum in arrived:
            if saved and handlers[signum] in (signal.default_int_handler, interrupt_once, terminate_once):
                continue  # a stop after the new file was in place: the save is done
            signal.raise_signal(signum)


class stops_blocked:
    """SIGINT, SIGTERM and SIGHUP blocked in this thread across a step (a context manager):
    the kernel keeps one that arrives pending, and it is delivered (its handler runs) as the
    block ends, in the caller's code, after the step. A write that must be whole (``-p``'s
    copy of a message: :func:`textnb.apps.spamclient.write_whole`) and the forks of worker
    processes (:class:`blocked_across_fork`). Without ``pthread_sigmask``: nothing. (A
    class, not ``contextlib``: the mail filter's fast path imports this module.)"""

    def __enter__(self):
        self.old = None
        if hasattr(signal, "pthread_sigmask"):
            self.old = signal.pthread_sigmask(signal.SIG_BLOCK, HeldSignals.SIGNALS)
        return self

    def __exit__(self, *exc):
        if self.old is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, self.old)
        return False


class blocked_across_fork(stops_blocked):
    """SIGINT, SIGTERM and SIGHUP blocked in this thread while it forks worker processes
    (a context manager): the kernel keeps one that arrives pending, and it is delivered (its
    handler runs) as the block ends, in the caller's code.

    Without it a signal arriving during a fork can be lost: Python runs the handler in the
    parent's after-fork callbacks (the ``logging`` module's lock release), whose exceptions
    are printed and ignored, so a ``textnb`` told to stop (SIGTERM raises
    :class:`textnb.apps.spamclient.Terminated`) went on and saved its model. The forked child
    starts with the same block (a pending signal is the parent's only) and lifts it once its
    handlers are its own (:func:`unblock_in_child`). Without ``pthread_sigmask``: nothing.
    """


def unblock_in_child():
    """In a child forked inside :func:`blocked_across_fork`: lift its block."""
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, HeldSignals.SIGNALS)


def ignored(signum):
    """Whether ``signum`` is ignored in this process (``SIG_IGN``: by the caller, ``nohup``'s
    SIGHUP or the SIGINT of a background job started by a script, or by a program that is
    stopping). The one rule of every textnb program: an ignored signal stays ignored, no
    handler is put in its place (:func:`stop_on_signals`, :meth:`HeldSignals.hold`, ``textnb
    serve``'s stop and reload handlers: :func:`textnb.apps.serve.run`)."""
    return signal.getsignal(signum) == signal.SIG_IGN


def ignore_stop_signals():
    """SIGINT, SIGTERM and SIGHUP ignored from now on, each one that has a Python handler
    (the program's; one left to the system or ignored by the caller stays so): the program
    is stopping. Called by the handler of the first stop signal (:func:`interrupt_once`,
    :func:`terminate_once`, ``textnb serve``'s stop), in the main thread.

    A second Ctrl-C while the first one's stop is under way (the worker processes being
    ended, the interpreter's shutdown) was a second KeyboardInterrupt: raised while the
    workers were reaped, it was printed as "Exception ignored in ..." with a traceback, or
    a second ``interrupted`` line; arriving once the interpreter had put the default
    handler back for its exit, it killed the process by SIGINT (-2, no status 130). Ignored
    in the kernel, it cannot reach the process at all, and the interpreter's exit leaves
    an ignored signal ignored."""
    for signum in HeldSignals.SIGNALS:
        if callable(signal.getsignal(signum)):
            signal.signal(signum, signal.SIG_IGN)


#: The stop signals :func:`interrupt_once` and :func:`terminate_once` raised their exception
#: for in this process (since :func:`stop_on_signals`): where the program finds one recorded
#: and no exception came, it was lost (:func:`raise_lost_stop`, :func:`stop_behind`)
_RAISED = []


def interrupt_once(signum, frame):
    """A program's SIGINT handler: Python's own (KeyboardInterrupt), once. The stop signals
    are ignored first (:func:`ignore_stop_signals`): the program says ``interrupted`` once,
    exits with status 130 and leaves no half-written file, however many Ctrl-Cs follow.
    Only a program's process installs it (:func:`stop_on_signals`), never a library user's.
    The stop is recorded: one whose exception is lost is raised again (:func:`raise_lost_stop`)."""
    if _in_hook(frame):
        return _raise_later(signum)
    ignore_stop_signals()
    _RAISED.append(signum)
    raise KeyboardInterrupt


def terminate_once(signum, frame):
    """A program's SIGTERM and SIGHUP handler: :class:`Terminated`, once (the stop signals
    ignored first, as by :func:`interrupt_once`)."""
    if _in_hook(frame):
        return _raise_later(signum)
    ignore_stop_signals()
    _RAISED.append(signum)
    raise Terminated(signum)


def _stop_exception(signum):
    return KeyboardInterrupt() if signum == signal.SIGINT else Terminated(signum)


def stop_behind(exc):
    """The stop (a KeyboardInterrupt or :class:`Terminated`) that ``exc``, an error, stands
    for, or None: one in its chain (``__cause__``, ``__context__``: an error raised as the
    stop unwound), else, in a program's process, the stop signal raised since its start
    (:func:`interrupt_once`): an error raised while the stop was under way is its effect.

    A Ctrl-C while numpy's C extensions load became numpy's 50-line ImportError ("Importing
    the numpy C-extensions failed", exit 1): the interrupt, raised in the import of a module
    asked for by C code (``PyCapsule_Import`` of ``datetime``), is replaced by an
    ImportError that keeps nothing of it."""
    seen, link = set(), exc
    while link is not None and id(link) not in seen:
        if isinstance(link, (KeyboardInterrupt, Terminated)):
            return link
        seen.add(id(link))
        link = link.__cause__ if link.__cause__ is not None else link.__context__
    return _stop_exception(_RAISED[0]) if _RAISED else None


#: What the dynamic loader says (glibc's ``dlerror``, an ImportError's message) when the system
#: refuses the memory to load a shared library (a small ``ulimit -v``): a segment, or its
#: zero-filled pages, not mapped; ENOMEM's own text; its own "out of memory"
_NO_MEMORY_WORDS = ("failed to map segment", "cannot map zero-fill pages", "cannot allocate memory", "out of memory")
#: ... and what it adds when the refusal is not for want of memory (a file system mounted
#: ``noexec``; the static TLS block of a library loaded late, which memory does not enlarge)
_NOT_MEMORY_WORDS = ("not permitted", "permission denied", "static tls")


def memory_refused(exc):
    """Whether ``exc`` is a MemoryError, or an ImportError for want of memory: the system
    refused the memory to load a module's shared library, an OSError of ENOMEM or the
    loader's words (:data:`_NO_MEMORY_WORDS`) in its chain. Any other ImportError is not.

    Under a small ``ulimit -v`` (40-60 MB), numpy's import failed so (``..._openblas64_.so:
    failed to map segment from shared object``, under numpy's "Importing the numpy
    C-extensions failed"): ``textnb`` printed a 50-line traceback, the mail filters 900
    bytes of numpy's advice as an internal error, where a MemoryError is one line (``out of
    memory``)."""
    import errno  # (a built-in module: nothing loaded from disk)

    if not isinstance(exc, (MemoryError, ImportError)):
        return False
    seen, link = set(), exc
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        if isinstance(link, MemoryError) or getattr(link, "errno", None) == errno.ENOMEM:
            return True
        if isinstance(link, ImportError):
            text = str(link).lower()
            if any(w in text for w in _NO_MEMORY_WORDS) and not any(w in text for w in _NOT_MEMORY_WORDS):
                return True
        link = link.__cause__ if link.__cause__ is not None else link.__context__
    return False


def os_error_text(exc, unnamed="i/o"):
    """``'NAME: problem'`` for a one-line message about the OSError ``exc``: the file it names,
    else ``stdout`` for a write that found no room (a full disk, a quota, a file size limit:
    ``ulimit -f``, whose SIGXFSZ Python ignores; the programs name every file they write
    themselves, so such an error is standard output's: ``> /dev/full``), else ``unnamed``
    (None: the problem alone). The one rule of ``textnb``, ``topicfilter``, the cold
    ``spamfilter`` and its daemon clients (the compiled one, ``spamclient.c``, says it alike;
    found by a trial: the clients said ``i/o: File too large`` where the cold command said
    ``stdout: File too large``)."""
    import errno  # (a built-in module: nothing loaded from disk)

    no_room = {getattr(errno, code) for code in ("ENOSPC", "EDQUOT", "EFBIG") if hasattr(errno, code)}
    name = getattr(exc, "filename", None)
    if name is None and getattr(exc, "errno", None) in no_room:
        name = "stdout"
    text = exc.strerror or str(exc)
    name = name if name is not None else unnamed
    return f"{name}: {text}" if name is not None else text


class stops_unmasked:
    """A context (a class: the mail filter's fast path imports this module) in which an
    error that stands for a stop (:func:`stop_behind`) is raised as that stop, the error
    chained to it: the program answers it as the stop it is (``textnb: interrupted``, 130),
    not as an error of the input or a bug; and an ImportError for want of memory
    (:func:`memory_refused`) as a MemoryError (``out of memory``)."""

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        if isinstance(exc, Exception):
            stop = stop_behind(exc)
            if stop is not None:  # (a new one: the stop in the error's chain would chain to itself)
                raise _stop_exception(getattr(stop, "signum", signal.SIGINT)) from exc
            if isinstance(exc, ImportError) and memory_refused(exc):
                raise MemoryError("out of memory loading a module") from exc
        return False


def raise_lost_stop():
    """Raise again the stop signal raised in this program (:func:`interrupt_once`) whose
    exception was lost, where the program runs on as if it had not come: called after the
    commands' imports (:func:`textnb.cli.program.main`) and before a step that must not be
    cut in two (:meth:`HeldSignals.hold`: a model written). The stop signals are ignored
    first, as by the handler (a re-raise pending from :func:`raise_swallowed_stops` then
    finds its signal ignored: one stop).

    A KeyboardInterrupt is lost where a callback's exceptions are printed and dropped
    (importlib's module-lock callback, ``_get_module_lock.<locals>.cb``: "Exception ignored
    in", and the training went on to save its model, exit 0), or where C code replaced it by
    an ImportError that an optional import then took for a missing module."""
    if _RAISED:
        ignore_stop_signals()
        raise _stop_exception(_RAISED[0])


def raise_swallowed_stops(unraisable):
    """A program's ``sys.unraisablehook`` (:func:`stop_on_signals`): the exception of
    :func:`interrupt_once` or :func:`terminate_once` raised where Python prints and drops
    exceptions (a ``__del__`` method, a callback of the garbage collector or of a weak
    reference) is not printed: its handler is put back and the signal handled again in
    a moment (:func:`_raise_later`), where the program runs. Any other one is passed on
    to the hook that was in place.

    The stop was lost there, and the first one ignores the next ones: a Ctrl-C that
    landed in the garbage collector's callback of Dask's scheduler (``distributed.gc``,
    in ``textnb train --scheduler local:2``, found under load) printed "Exception ignored
    in" and a KeyboardInterrupt traceback, and the run went on."""
    tb = unraisable.exc_traceback
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None or tb.tb_frame.f_code not in (interrupt_once.__code__, terminate_once.__code__):
        return _passed_on(unraisable)
    signum = unraisable.exc_value.signum if isinstance(unraisable.exc_value, Terminated) else signal.SIGINT
    signal.signal(signum, interrupt_once if signum == signal.SIGINT else terminate_once)
    _raise_later(signum)


_passed_on = sys.unraisablehook


def _in_hook(frame):
    """Whether ``frame`` runs in :func:`raise_swallowed_stops` (an exception raised there is lost too)."""
    while frame is not None:
        if frame.f_code is raise_swallowed_stops.__code__:
            return True
        frame = frame.f_back
    return False


def _raise_later(signum):
    """``signum``'s handler run again in the main thread 10 ms from now, by a thread of its
    own: from the main thread it would run at once, in the hook or the callback that is
    still running there."""
    import _thread
    import time

    def again():
        time.sleep(0.01)
        _thread.interrupt_main(signum)

    _thread.start_new_thread(again, ())


def stop_on_signals():
    """A program's stop signals (the program's process, not a library user's: called by
    ``textnb``'s :func:`textnb.cli.program.main` and the mail tools'
    :func:`textnb.apps.spamclient.process_main`), each answered once: SIGINT raises
    KeyboardInterrupt (:func:`interrupt_once`), SIGTERM and SIGHUP :class:`Terminated`
    (:func:`terminate_once`), and the first of them makes the program ignore the three
    (:func:`ignore_stop_signals`): a second Ctrl-C while the program stops (worker or
    helper processes being reaped, a message being passed through, a partial copy being
    removed, the interpreter's exit) is the same request, not a second traceback or line,
    a cut copy or a death by SIGINT. Without them SIGTERM and SIGHUP would end the process
    at once, no line said and its workers left to finish for no one. A signal ignored by
    the caller (``nohup``, a background job's SIGINT) stays ignored; one with a handler
    already (a library user's) is left as it is. ``textnb serve`` puts its own handlers in
    place while it serves (stop, reload) and follows the same rule
    (:func:`textnb.apps.serve.run`, :func:`ignored`, :func:`answers_once`). A stop whose exception Python
    drops (raised in a ``__del__`` method or a callback) is raised again
    (:func:`raise_swallowed_stops`, the process's ``sys.unraisablehook``)."""
    global _passed_on
    _RAISED.clear()  # (a program's start: none raised yet)
    if sys.unraisablehook is not raise_swallowed_stops:
        _passed_on, sys.unraisablehook = sys.unraisablehook, raise_swallowed_stops
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, interrupt_once)
    for signum in HeldSignals.SIGNALS:
        if signum != signal.SIGINT and signal.getsignal(signum) == signal.SIG_DFL:
            signal.signal(signum, terminate_once)


def answers_once():
    """Whether this process's stop signals are answered once (:func:`stop_on_signals` put
    its handlers in place: a program's process), for code that puts its own handlers in
    place for a while (``textnb serve``'s): its first stop signal must then leave the three
    ignored (:func:`ignore_stop_signals`), not put the program's back."""
    return any(signal.getsignal(signum) in (interrupt_once, terminate_once) for signum in HeldSignals.SIGNALS)
