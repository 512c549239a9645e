"""Opening a file that must be a regular file: the one check under every reader and writer
of the package's files (documents, mail, model files, the daemon's journal).

Standard library only (the mail filters' fast path imports it).
"""

import errno
import os
import stat

__all__ = ["NotRegularFile", "open_regular"]


class NotRegularFile(OSError):
    """``path`` names a folder, FIFO, socket or device (or a link to one), or a symbolic link
    that was not to be followed, where a regular file is needed. ``folder`` tells a folder
    apart (errno EISDIR; the others EINVAL)."""

    def __init__(self, path, reason, *, folder=False):
        super().__init__(errno.EISDIR if folder else errno.EINVAL, reason, path)
        self.folder = folder


def open_regular(path, flags=os.O_RDONLY, mode=0o644, *, follow=True):
    """``os.open(path, flags, mode)`` of a regular file, as a descriptor in blocking mode.

    Opened with ``O_NONBLOCK`` (a FIFO opens at once instead of waiting for a writer) and
    ``O_CLOEXEC``, then checked with ``fstat`` on the open descriptor, so nothing is read
    from, written to or created through anything but a regular file, and no later change
    of the path can slip another file in between the check and the use. ``follow=False``
    also refuses a symbolic link (``O_NOFOLLOW``).

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
        st_mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(st_mode):
            raise NotRegularFile(path, "Is a directory", folder=True)
        if not stat.S_ISREG(st_mode):
            raise NotRegularFile(path, "not a regular file (a FIFO, socket or device)")
        os.set_blocking(fd, True)
        return fd
    except BaseException:
        os.close(fd)
        raise
