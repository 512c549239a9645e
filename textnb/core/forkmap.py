"""An ordered map shared with forked helper processes, on built-in modules only.

A mail filter's ``--batch`` run lasts from tens of milliseconds (a folder of SMS) to
seconds, most of it reading and tokenising files one after the other: work a second CPU
can share. :mod:`textnb.core.workers`'s process pools (``multiprocessing``,
``concurrent.futures``, pickling) cost more to import and start than such a run takes, so
:func:`fork_map` forks its helpers itself: each child already holds the parent's
modules and model, claims blocks of items as it gets free, and sends each value back
through its own pipe as :mod:`marshal` bytes (plain data between two processes of the
same interpreter); the parent claims blocks too, reads the children's values between
its own, and yields every value in the items' order. A helper that fails (it dies,
cannot start, or sends anything but a well-formed frame) leaves what it did not send to
the parent, so the values never depend on the helpers.

This module imports no more than Python's start-up has loaded (``os``) and built-in
modules, so a short process pays nothing for it. :func:`cpu_count` and :func:`spare_cpus`
(the CPU rule of every automatic choice of workers in textnb) live here for that reason.
"""

import gc
import marshal
import os
import sys

__all__ = ["can_fork_here", "cpu_count", "die_with_parent", "fork_map", "jobs_count", "spare_cpus"]

_HEAD = 16  # a frame: the item's index and the value's size (8 bytes each, little-endian), then the value
_MAX_BLOCKS = 1024
_PIPE_BYTES = 1 << 20
_SIGKILL = 9
_PR_SET_PDEATHSIG = 1  # linux/prctl.h


def die_with_parent(parent):
    """In a child forked by the process ``parent`` (its pid): be killed (SIGKILL) when that
    process ends, however it ends, SIGKILL and the OOM killer included.

    A helper left running without its parent is re-parented to PID 1 and waits forever (for
    a task that will never come, or to write to a pipe no one reads), holding its memory.
    On Linux the kernel's parent-death signal (``prctl(PR_SET_PDEATHSIG, SIGKILL)``) is
    asked for; the parent may have ended before that, so the child then checks that its
    parent is still ``parent`` and exits at once when it is not. Elsewhere (no ``prctl``)
    nothing is done. The kernel sends the signal when the *thread* that forked the child
    ends: textnb forks its helpers only from a process that runs one thread
    (:func:`can_fork_here`), so that thread is the process's main one.
    """
    if sys.platform.startswith("linux"):
        try:
            import ctypes  # (in the child only: about 1 ms, while the parent works on)

            prctl = ctypes.CDLL(None, use_errno=True).prctl
            prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
            prctl.restype = ctypes.c_int
            prctl(_PR_SET_PDEATHSIG, _SIGKILL, 0, 0, 0)
        except (ImportError, OSError, AttributeError):
            pass  # (no prctl: as on other systems)
    if os.getppid() != parent:  # the parent ended before the signal was asked for
        os._exit(1)


def cpu_count():
    """The CPUs this process may use, as joblib (loky) counts them: the least of the
    machine's CPUs, the process's CPU affinity, a cgroup CPU quota (rounded up) and the
    ``LOKY_MAX_CPU_COUNT`` environment variable; at least 1."""
    n = os.cpu_count() or 1
    counts = [n, _cgroup_cpus(n)]
    if hasattr(os, "sched_getaffinity"):
        try:
            counts.append(len(os.sched_getaffinity(0)))
        except (NotImplementedError, OSError):
            pass
    try:
        counts.append(int(os.environ.get("LOKY_MAX_CPU_COUNT", n)))
    except ValueError:
        pass
    return max(1, min(counts))


def jobs_count(n_jobs):
    """``n_jobs`` as a number of processes: a negative one counts back from
    :func:`cpu_count` as in joblib (-1 all, -2 all but one), at least 1."""
    return max(1, cpu_count() + 1 + n_jobs if n_jobs < 0 else n_jobs)


def spare_cpus(now=False):
    """The CPUs this process may use (:func:`cpu_count`) that the machine left idle over
    the last minute: that count minus the 1-minute load average (runnable threads of
    every process), rounded, at least 0; all of them where there is no load average.

    With ``now``, the CPUs idle at this moment: that count minus the threads runnable now
    other than this one (the fourth field of Linux's ``/proc/loadavg``), for work that
    lasts seconds rather than minutes; elsewhere the one-minute rule.
    """
    n = cpu_count()
    if now:
        try:
            with open("/proc/loadavg", "rb") as fh:
                running = int(fh.read().split()[3].split(b"/")[0])
            return max(0, min(n, n - (running - 1)))
        except (OSError, ValueError, IndexError):
            pass
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # (no load average on this platform)
        return n
    return max(0, min(n, round(n - load)))


def _cgroup_cpus(n):
    """The CPU bandwidth limit of this process's cgroup (v2, else v1), in CPUs; ``n`` without one."""
    quota = period = None
    try:
        with open("/sys/fs/cgroup/cpu.max") as fh:
            parts = fh.read().split()
        if len(parts) == 2:
            quota, period = parts
    except OSError:
        pass
    if quota is None:
        try:
            with open("/sys/fs/cgroup/cpu/cpu.cfs_quota_us") as fh:
                quota = fh.read().strip()
            with open("/sys/fs/cgroup/cpu/cpu.cfs_period_us") as fh:
                period = fh.read().strip()
        except OSError:
            return n
    try:
        quota, period = int(quota), int(period)
    except ValueError:  # "max": no quota
        return n
    return -(-quota // period) if quota > 0 and period > 0 else n


def can_fork_here():
    """True when this process may fork helpers: ``fork`` exists and no second thread runs
    (a forked copy of a threaded process can hold a lock no thread will release)."""
    if not hasattr(os, "fork"):
        return False
    threading = sys.modules.get("threading")
    return threading is None or threading.active_count() == 1


def fork_map(func, items, helpers, *, pack=None, unpack=None, on_lost=None):
    """``func(item)`` for each item of the sequence ``items``, yielded in order.

    With ``helpers`` >= 1 (and :func:`can_fork_here`), that many child processes are
    forked, and this process and its children take the items in blocks of consecutive
    items, each block claimed by whichever process is free first (a claim is two bytes
    read from a pipe filled before the fork: at most 1,024 blocks, which fit in a pipe's
    smallest buffer, so the fill never waits). A child sends each value back through its
    own pipe as soon as it has it (``pack(value)`` when ``pack`` is given, which must be
    :mod:`marshal`-able: numbers, strings, bytes, tuples, lists, dicts of them, and comes
    out here as ``unpack(...)`` of it); this process reads them between its
    own blocks, and yields every value in the items' order. A child that fails (it dies,
    or a value cannot be sent) leaves what it did not send to this process, and is
    reported: ``on_lost(message)``, one line (``helper process N was killed by signal 9
    (SIGKILL) ...``), or without ``on_lost`` a :class:`RuntimeWarning` of it. Closing the
    generator early (or an exception in ``func`` here) kills and reaps the children;
    none outlives the map. The children are forked at the call, not at the first value.

    ``func`` runs in the children exactly as here, so it must not write to files that
    this process writes (return what is to be written), and what it raises in a child is
    raised again here when this process computes that item itself.
    """
    n = len(items)
    helpers = min(int(helpers), n - 1)
    if helpers <= 0 or not can_fork_here():
        return map(func, items)
    return _Running(_Shared(func, items, helpers, pack, unpack, on_lost))


class _Running:
    """:func:`fork_map`'s iterator once its children run (they start at the call, so the
    caller can do other work, such as loading a model, meanwhile): the values in order;
    the end, an error, :meth:`close` or garbage collection stops and reaps the children."""

    def __init__(self, run):
        self._run, self._values = run, run.values()

    def __iter__(self):
        return self

    def __next__(self):
        try:
            return next(self._values)
        except BaseException:  # (StopIteration too: the children are done)
            self.close()
            raise

    def close(self):
        run, self._run = self._run, None
        if run is not None:
            self._values.close()
            run.stop()

    __del__ = close


class _Shared:
    """One :func:`fork_map` with helpers: the claims pipe, the children, their frames."""

    def __init__(self, func, items, helpers, pack, unpack, on_lost=None):
        self.func, self.items, self.n = func, items, len(items)
        self.pack, self.unpack, self.on_lost = pack, unpack, on_lost
        self.size = -(-self.n // _MAX_BLOCKS)  # items per block
        blocks = -(-self.n // self.size)
        self.children = {}  # result pipe's read end -> pid
        self.buffers = {}  # read end -> bytes received and not yet parsed
        self.results = {}  # item index -> value, computed and not yet yielded
        self.claims, w = os.pipe()
        try:
            os.write(w, b"".join(k.to_bytes(2, "little") for k in range(blocks)))
        finally:
            os.close(w)
        from textnb.core.signals import blocked_across_fork  # (only when forking: it imports signal, collections)

        with blocked_across_fork():  # (a SIGTERM during a fork is not lost)
            for _ in range(helpers):
                if not self._fork():
                    break

    def _fork(self):
        r, w = os.pipe()
        _widen(w)
        parent = os.getpid()
        try:
            pid = os.fork()
        except OSError:
            os.close(r)
            os.close(w)
            return False
        if pid == 0:  # the child: never returns
            os.close(r)
            for fd in self.children:
                os.close(fd)
            self._serve(w, parent)
        os.close(w)
        os.set_blocking(r, False)
        self.children[r] = pid
        self.buffers[r] = bytearray()
        return True

    def _claim(self):
        """The items of the next unclaimed block, or None when every block is claimed."""
        got = os.read(self.claims, 2)
        if len(got) < 2:
            return None
        k = int.from_bytes(got, "little")
        return range(k * self.size, min(self.n, (k + 1) * self.size))

    def _serve(self, fd, parent):
        code = 1
        try:
            die_with_parent(parent)  # (a parent killed by SIGKILL leaves no helper behind)
            from textnb.core.signals import unblock_in_child

            unblock_in_child()
            gc.freeze()  # (the parent's objects stay out of this process's collections: no page is copied for them)
            while (block := self._claim()) is not None:
                for i in block:
                    value = self.func(self.items[i])
                    data = marshal.dumps(value if self.pack is None else self.pack(value))
                    view = memoryview(i.to_bytes(8, "little") + len(data).to_bytes(8, "little") + data)
                    while view:
                        view = view[os.write(fd, view):]
            code = 0
        except BaseException:  # (KeyboardInterrupt, a closed pipe, a bug: the parent computes what is missing)
            pass
        finally:
            os._exit(code)  # never the parent's clean-up (atexit, buffered output, finally clauses)

    def values(self):
        results, claiming = self.results, True
        for i in range(self.n):
            while i not in results:
                self._drain()
                if i in results:
                    break
                if claiming:  # work here rather than wait
                    block = self._claim()
                    if block is None:
                        claiming = False
                    else:
                        for j in block:
                            results[j] = self.func(self.items[j])
                elif self.children:
                    self._wait()
                else:  # claimed by a child that failed before sending it
                    results[i] = self.func(self.items[i])
            yield results.pop(i)

    def _drain(self):
        """Read what the children have sent, without waiting; a pipe at its end (the
        child done or dead) is closed and its child reaped."""
        for fd in list(self.children):
            buf = self.buffers[fd]
            while True:
                try:
                    part = os.read(fd, 1 << 16)
                except BlockingIOError:
                    break
                if not part:
                    self._end(fd, report=True)
                    break
                buf += part
            while len(buf) >= _HEAD:
                size = int.from_bytes(buf[8:16], "little")
                if len(buf) < _HEAD + size:
                    break
                try:
                    value = marshal.loads(buf[_HEAD:_HEAD + size])
                    self.results[int.from_bytes(buf[:8], "little")] = (
                        value if self.unpack is None else self.unpack(value))
                except (ValueError, EOFError, TypeError):
                    pass  # (never sent by a child: the item is computed here)
                del buf[:_HEAD + size]

    def _wait(self):
        import select

        select.select(list(self.children), [], [])

    def _end(self, fd, report=False):
        """Close a child's pipe and reap it; with ``report`` (it ended by itself), a child
        that failed is reported (:func:`fork_map`'s ``on_lost``)."""
        pid = self.children.pop(fd)
        del self.buffers[fd]
        os.close(fd)
        status = _reap(pid)
        if report and status:
            message = f"helper process {pid} {_ending(status)} before it was done; this process did what it left " \
                      "undone (nothing is missing)"
            if self.on_lost is not None:
                self.on_lost(message)
            else:
                import warnings

                warnings.warn(message, RuntimeWarning, stacklevel=2)

    def stop(self):
        for fd in list(self.children):
            try:
                os.kill(self.children[fd], _SIGKILL)  # (stopped early: nothing is left to wait for)
            except OSError:
                pass
            self._end(fd)
        os.close(self.claims)


def _widen(fd):
    """Give a result pipe a 1 MiB buffer where Linux allows it (``F_SETPIPE_SZ``): a child
    whose frames are large (token lists) then works on while the parent is busy, instead of
    waiting for it to read."""
    try:
        import fcntl

        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, _PIPE_BYTES)
    except (ImportError, AttributeError, OSError):
        pass  # (the default buffer: the same values, later)


def _reap(pid):
    """Wait for the child ``pid``; its wait status (0: it exited with 0, or was reaped
    elsewhere)."""
    while True:
        try:
            return os.waitpid(pid, 0)[1]
        except InterruptedError:
            continue
        except ChildProcessError:
            return 0


def _ending(status):
    """How a child of wait status ``status`` ended, in words."""
    if os.WIFSIGNALED(status):
        import signal

        number = os.WTERMSIG(status)
        try:
            return f"was killed by signal {number} ({signal.Signals(number).name})"
        except ValueError:
            return f"was killed by signal {number}"
    return f"ended with exit status {os.waitstatus_to_exitcode(status)}"
