"""Signals held across steps that must not be cut in two (:class:`HeldSignals`, and
:func:`blocked_across_fork` for the forks of worker processes); a program's stop signals
answered once (:func:`interrupt_once`, :func:`ignore_stop_signals`)."""

import signal

__all__ = ["HeldSignals", "blocked_across_fork", "ignore_stop_signals", "interrupt_once", "unblock_in_child"]


class HeldSignals:
    """SIGINT, SIGTERM and SIGHUP held across a step that must not be cut in two: the end
    of :func:`textnb.core.model_io.atomic_write` (the ``os.replace`` and the fsync of the
    folder: "interrupted" means the old file is intact) and the moves of
    :func:`textnb.apps.filtering.apply_route` (a document is in its source or in OUT).

    :meth:`hold` (main thread only: Python runs signal handlers there, so no other thread
    can be interrupted) puts a recorder in place of each handler; :meth:`release` puts the
    handlers back and then delivers what arrived, except a Ctrl-C whose handler raises
    KeyboardInterrupt (Python's default) after the new file was saved: that interrupt came
    after the work was done, and the command reports the save. Other handlers (a daemon's
    stop flag, the mail tools' SIGTERM) run then, after the save.
    """

    SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))

    def __init__(self):
        self.handlers, self.arrived = {}, []

    def hold(self):
        import threading

        if threading.current_thread() is not threading.main_thread():
            return
        for signum in self.SIGNALS:
            handler = signal.getsignal(signum)
            if handler is None or handler == signal.SIG_IGN:  # (set outside Python; ignored)
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
            if saved and signum == signal.SIGINT and handlers[signum] in (signal.default_int_handler, interrupt_once):
                continue  # an interrupt after the new file was in place: the save is done
            signal.raise_signal(signum)


class blocked_across_fork:
    """SIGINT, SIGTERM and SIGHUP blocked in this thread while it forks worker processes
    (a context manager): the kernel keeps one that arrives pending, and it is delivered (its
    handler runs) as the block ends, in the caller's code.

    Without it a signal arriving during a fork can be lost: Python runs the handler in the
    parent's after-fork callbacks (the ``logging`` module's lock release), whose exceptions
    are printed and ignored, so a ``textnb`` told to stop (SIGTERM raises
    :class:`textnb.apps.spamclient.Terminated`) went on and saved its model. The forked child
    starts with the same block (a pending signal is the parent's only) and lifts it once its
    handlers are its own (:func:`unblock_in_child`). Without ``pthread_sigmask``: nothing.
    (A class, not ``contextlib``: the mail filter's fast path imports this module.)
    """

    def __enter__(self):
        self.old = None
        if hasattr(signal, "pthread_sigmask"):
            self.old = signal.pthread_sigmask(signal.SIG_BLOCK, HeldSignals.SIGNALS)
        return self

    def __exit__(self, *exc):
        if self.old is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, self.old)
        return False


def unblock_in_child():
    """In a child forked inside :func:`blocked_across_fork`: lift its block."""
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, HeldSignals.SIGNALS)


def ignore_stop_signals():
    """SIGINT, SIGTERM and SIGHUP ignored from now on, each one that has a Python handler
    (the program's; one left to the system or ignored by the caller stays so): the program
    is stopping. Called by the handler of the first stop signal (:func:`interrupt_once`,
    the ``textnb`` program's SIGTERM and SIGHUP), in the main thread.

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


def interrupt_once(signum, frame):
    """A program's SIGINT handler: Python's own (KeyboardInterrupt), once. The stop signals
    are ignored first (:func:`ignore_stop_signals`): the program says ``interrupted`` once,
    exits with status 130 and leaves no half-written file, however many Ctrl-Cs follow.
    Only a program's process installs it (``textnb``: :func:`textnb.cli.program.stop_on_signals`),
    never a library user's."""
    ignore_stop_signals()
    raise KeyboardInterrupt
