"""The compact form of a model: a block a fast reader loads with ``struct`` alone, written
by :func:`textnb.core.model_io.save` in front of the model's ZIP archive.

A model whose class defines ``_compact_form()`` (bytes) gets that payload written at the
start of its ``.tnb`` file, before the archive, as a ``python -m zipapp`` file carries its
``#!`` line: ZIP readers find the archive from its end and skip what precedes it (the
archive's offsets count from the start of the file), so :func:`textnb.core.model_io.load`,
older textnb versions and ``unzip`` read the file as before. Layout::

    MAGIC (8 bytes) | payload size, file size (two little-endian uint64) | CRC-32 (uint32)
    | payload | the ZIP archive

The CRC-32 covers everything after the 28-byte frame (the payload and the archive) and
the file size is checked, so a truncated or damaged file, whichever part is hit, is not
read through the compact form: :func:`read_payload` returns None and the caller uses the
one model reader (:func:`textnb.core.model_io.load`), which says what is wrong. The
payload's own layout belongs to the model that writes and reads it (the spam model's is
:func:`textnb.apps.spamlite.encode_compact`). Standard library only (``os``, ``struct``,
``binascii``): the fast paths import this module.
"""

import binascii
import os
import stat
import struct

__all__ = ["MAGIC", "FRAME", "frame", "read_payload"]

MAGIC = b"TNBFAST1"
#: magic, payload size, file size, CRC-32 of everything after the frame
FRAME = struct.Struct("<8sQQL")


def frame(payload, archive):
    """The frame that goes before ``payload`` and ``archive`` (bytes) in a model file."""
    size = FRAME.size + len(payload) + len(archive)
    crc = binascii.crc32(archive, binascii.crc32(payload))
    return FRAME.pack(MAGIC, len(payload), size, crc)


def read_payload(path, max_bytes):
    """The compact payload of the model file ``path`` (a bytearray), or None when it has
    none or any check fails (not a regular file, larger than ``max_bytes``, no frame,
    another size than the frame records, a CRC mismatch). Raises OSError for a file it
    cannot open."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > max_bytes or st.st_size < FRAME.size:
            return None
        head = os.read(fd, FRAME.size)
        if len(head) != FRAME.size:
            return None
        magic, n_payload, size, expected = FRAME.unpack(head)
        if magic != MAGIC or size != st.st_size or n_payload > size - FRAME.size:
            return None
        # the payload is kept; the archive after it is only read for the CRC, a block at a
        # time into one buffer (the file is never held whole)
        payload = bytearray(n_payload)
        crc = _read_into(fd, memoryview(payload), 0)
        left = size - FRAME.size - n_payload
        block = memoryview(bytearray(min(left, _BLOCK)))
        while left > 0 and crc is not None:
            take = min(left, len(block))
            crc = _read_into(fd, block[:take], crc)
            left -= take
        if crc is None or os.read(fd, 1):  # shorter than the frame says, or grew while read
            return None
    finally:
        os.close(fd)
    return payload if crc == expected else None


#: bytes of the archive read at once (for its CRC)
_BLOCK = 1 << 20


def _read_into(fd, view, crc):
    """Fill the memoryview ``view`` from ``fd``; the CRC-32 ``crc`` carried over what was
    read, or None when the file ended first."""
    filled = 0
    while filled < len(view):
        got = os.readv(fd, [view[filled:]])
        if not got:
            return None
        filled += got
    return binascii.crc32(view, crc)
