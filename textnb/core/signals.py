"""Signals held across steps that must not be cut in two (:class:`HeldSignals`)."""

import signal
import threading

__all__ = ["HeldSignals"]


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
            if saved and signum == signal.SIGINT and handlers[signum] is signal.default_int_handler:
                continue  # an interrupt after the new file was in place: the save is done
            signal.raise_signal(signum)
