"""Opening a file that must be a regular file: the one check under every reader and writer
of the package's files (documents, mail, model files, the daemon's journal).

Standard library only (the mail filters' fast path imports it).
"""

import errno
import os
import stat

__all__ = ["NotRegularFile", "folders_above", "open_regular", "open_regular_stat"]


class NotRegularFile(OSError):
    """``path`` names a folder, FIFO, socket or device (or a link to one), or a symbolic link
    that was not to be followed, where a regular file is needed. ``folder`` tells a folder
    apart (errno EISDIR; the others EINVAL)."""

    def __init__(self, path, reason, *, folder=False):
        super().__init__(errno.EISDIR if folder else errno.EINVAL, reason, path)
        self.folder = folder


def open_regular(path, flags=os.O_RDONLY, mode=0o644, *, follow=True):
    """``os.open(path, flags, mode)`` of a regular file (:func:`open_regular_stat`'s
    checks), as a descriptor in blocking mode: what a buffered file object wraps (a file
    that honours ``O_NONBLOCK``, such as ``/proc/kmsg``, would make its reads return None)."""
    fd = open_regular_stat(path, flags, mode, follow=follow)[0]
    try:
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_regular_stat(path, flags=os.O_RDONLY, mode=0o644, *, follow=True):
    """``(fd, stat_result)``: ``os.open(path, flags, mode)`` of a regular file and the
    ``fstat`` of that descriptor (what a reader sizes its read by, with no second call).

    Opened with ``O_NONBLOCK`` (a FIFO opens at once instead of waiting for a writer) and
    ``O_CLOEXEC``, then checked with ``fstat`` on the open descriptor, so nothing is read
    from, written to or created through anything but a regular file, and no later change
    of the path can slip another file in between the check and the use. ``follow=False``
    also refuses a symbolic link (``O_NOFOLLOW``). A descriptor opened for writing is put
    in blocking mode; one opened read-only keeps ``O_NONBLOCK``, which has no effect on a
    regular file's reads (open(2): "this flag has no effect for regular files"): one
    system call fewer for every document and message read (three in all, with the stat),
    for :func:`textnb.io.files.read_regular_file`'s ``os.read`` calls. (A file that honours
    it, ``/proc/kmsg``, gives them EAGAIN, one error line, where a blocking read waited for
    ever.)

    Raises
    ------
    NotRegularFile
        A folder, FIFO, socket or device, or (``follow=False``) a symbolic link.
    OSError
        The path cannot be opened (missing, no permission, ...).
    """
    flags |= os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if not follow:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags, mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow and os.path.islink(path):
            raise NotRegularFile(path, "a symbolic link, not followed") from None
        if exc.errno == errno.EISDIR:  # (opened for writing)
            raise NotRegularFile(path, "Is a directory", folder=True) from None
        raise
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise NotRegularFile(path, "Is a directory", folder=True)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFile(path, "not a regular file (a FIFO, socket or device)")
        if flags & _ACCESS != os.O_RDONLY:
            os.set_blocking(fd, True)
        return fd, st
    except BaseException:
        os.close(fd)
        raise


_ACCESS = getattr(os, "O_ACCMODE", os.O_RDONLY | os.O_WRONLY | os.O_RDWR)


def folders_above(path):
    """The ``(device, inode)`` of each folder above ``path`` (not itself), up to the root: what
    tells a folder met again under another name (a bind mount), which paths do not show. The
    folder walk's loop check and the refusal of an output inside an input folder use it."""
    out, here = set(), os.path.abspath(path)
    while True:
        up = os.path.dirname(here)
        if up == here:
            return out
        here = up
        try:
            st = os.stat(here)
        except OSError:
            return out
        out.add((st.st_dev, st.st_ino))
