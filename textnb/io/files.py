"""Reading a file the corpus or a mail folder names: only a regular file, at most a cap.

Standard library only (the mail filters' fast path imports this).
"""

import os
import stat

from textnb.core.errors import InputError

__all__ = ["read_regular_file"]

_CHUNK = 1 << 16


def read_regular_file(path, max_bytes=None, *, what=None):
    """The bytes of the regular file ``path``, the first ``max_bytes`` of them (None: all).

    The file is opened without blocking (a FIFO opens at once) and checked with ``fstat``
    on the open descriptor, so a device, FIFO, socket or folder (or a link to one) is
    refused before anything is read; the read is sized by ``fstat``, so a small file costs
    one ``read`` and never a ``max_bytes`` buffer (a file that grew meanwhile is read on in
    64 KiB steps up to the cap). Every problem is one :class:`~textnb.core.errors.InputError`
    naming the file (and ``what`` it is, e.g. ``"a stop-word list"``, when given).
    """
    what = f" {what}" if what else ""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise InputError(f"{path}: cannot read{what} ({exc.strerror or exc})") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise InputError(f"{path}: cannot read{what} (Is a directory)")
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"{path}:{what + ' is' if what else ''} not a regular file (a FIFO, socket or device)")
        chunks, total = [], 0
        while max_bytes is None or total < max_bytes:
            want = st.st_size + 1 - total if total <= st.st_size else _CHUNK
            if max_bytes is not None:
                want = min(want, max_bytes - total)
            chunk = os.read(fd, want)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if len(chunk) < want and total <= st.st_size:  # a short read of a regular file: its end
                break
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)
    except OSError as exc:
        raise InputError(f"{path}: cannot read{what} ({exc.strerror or exc})") from None
    finally:
        os.close(fd)
