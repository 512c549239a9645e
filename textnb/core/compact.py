"""The compact form of a model: a block a fast reader loads with ``struct`` alone, written
by :func:`textnb.core.model_io.save` in front of the model's ZIP archive.

A model whose class defines ``_compact_form()`` (bytes) gets that payload written at the
start of its ``.tnb`` file, before the archive, as a ``python -m zipapp`` file carries its
``#!`` line: ZIP readers find the archive from its end and skip what precedes it (the
archive's offsets count from the start of the file), so :func:`textnb.core.model_io.load`,
older textnb versions and ``unzip`` read the file as before. Layout::

    MAGIC (8 bytes) | block size, file size (two little-endian uint64) | CRC-32 of the block
    (uint32) | block: payload, binding: archive size (uint64), archive CRC-32 (uint32)
    | the ZIP archive

The payload is bound to the archive it was written with: :func:`bind` follows it with the
size and CRC-32 of the archive :func:`~textnb.core.model_io.save` wrote behind it, and
:func:`read_payload` compares them with the archive it finds there. The binding travels with
the payload, not with the frame: a compact form copied in front of another archive and
framed again (:func:`frame` takes whatever it is given) keeps the archive it was written
with, so it is not read for another (another model's, the same model's with a member added,
a table model's). The reader also checks the archive's header, its first member, as the full
reader does (the format and its version, :func:`textnb.core.model_header.check_header`) and
that it is a model of the kind the caller reads: a later textnb's file of a newer format is
not read here either. The frame's CRC-32 covers the block and the file size is checked, so a
truncated or damaged file, whichever part is hit, is not read through the compact form. For
any of these :func:`read_payload` returns None and the caller uses the one model reader
(:func:`textnb.core.model_io.load`), which reads the archive or says what is wrong; a file
written before the binding existed (magic ``TNBFAST1``: the payload, then the archive, one
CRC-32 over both in the frame) is read through its compact form with the same header check,
its CRC standing for the binding (a copy of such a payload in front of another archive with
the CRC recomputed is the forgery described next), so a model saved by an earlier version
keeps its speed. What the binding cannot tell is a file forged on purpose, the binding
itself rewritten for another archive: only recomputing the weights from the archive would,
the work the compact form spares. Reading costs what the CRC of the whole file cost before:
one pass over the archive.

The payload's own layout belongs to the model that writes and reads it (the spam model's is
:func:`textnb.apps.spamlite.encode_compact`). Standard library only (``os``, ``struct``,
``binascii``, and the header parsed by the C scanner ``json`` uses, without importing
``json`` and ``re``): the fast paths import this module.
"""

import binascii
import os
import stat
import struct

from textnb.core.errors import ModelFileError
from textnb.core.model_header import check_header

__all__ = ["MAGIC", "OLD_MAGICS", "FRAME", "BINDING", "bind", "frame", "read_payload"]

MAGIC = b"TNBFAST2"
#: the frames of earlier textnb versions, whose payload is bound to the archive by one CRC-32 over
#: both (in the frame) rather than a binding of its own: read with the same header check
OLD_MAGICS = (b"TNBFAST1",)
#: magic, block size, file size, CRC-32 of the block
FRAME = struct.Struct("<8sQQL")
#: what follows the payload in its block: the size and CRC-32 of the archive it was written with
BINDING = struct.Struct("<QL")
#: a ZIP local file header: signature, version, flags, method, time, date, CRC-32, sizes, name and extra lengths
_LOCAL = struct.Struct("<4sHHHHHLLLHH")
_HEADER_NAME = b"header.json"
#: largest header read here (a spam model's is under 1 KB; a file of a larger one goes to the full reader)
_MAX_HEADER = 1 << 20


def bind(payload, archive):
    """The block that goes between the frame and ``archive`` (the bytes of the ZIP archive
    written behind it, whose offsets count the block): ``payload`` (bytes) followed by its
    binding to ``archive``. The block is :data:`BINDING` longer than the payload whatever the
    archive, so the archive can be written first, behind a block of that length."""
    return bytes(payload) + BINDING.pack(len(archive), binascii.crc32(archive))


def frame(block, archive):
    """The frame that goes before ``block`` (:func:`bind`'s) and ``archive`` (bytes) in a
    model file."""
    return FRAME.pack(MAGIC, len(block), FRAME.size + len(block) + len(archive), binascii.crc32(block))


def read_payload(path, max_bytes, kind):
    """The compact payload of the model file ``path`` (a bytearray) whose model is of ``kind``
    (a class name), or None when it has none or any check fails (not a regular file, larger
    than ``max_bytes``, no frame, another size than the frame
    records, a CRC mismatch, an archive other than the one the payload was written with, a
    header the full reader refuses or of another kind). Raises OSError for a file it cannot
    open."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > max_bytes or st.st_size < FRAME.size:
            return None
        head = os.read(fd, FRAME.size)
        if len(head) != FRAME.size:
            return None
        magic, n_block, size, block_crc = FRAME.unpack(head)
        old = magic in OLD_MAGICS  # (an earlier version's file: payload, archive, one CRC over both)
        if not (magic == MAGIC or old) or size != st.st_size \
                or not (0 if old else BINDING.size) <= n_block <= size - FRAME.size:
            return None
        # the payload and its binding are kept, then the archive's first member, its header
        # (kept too); the rest of the archive is only read for its CRC, a block at a time into
        # one buffer (the file is never held whole)
        if old:
            payload = bytearray(n_block)
            crc = _read_into(fd, memoryview(payload), 0)
            n_archive, archive_crc = size - FRAME.size - n_block, block_crc
        else:
            payload, binding = bytearray(n_block - BINDING.size), bytearray(BINDING.size)
            crc = _read_into(fd, memoryview(payload), 0)
            crc = None if crc is None else _read_into(fd, memoryview(binding), crc)
            n_archive, archive_crc = BINDING.unpack(binding)
            if crc != block_crc or n_archive != size - FRAME.size - n_block:
                return None
            crc = 0  # (the binding's CRC is the archive's alone)
        if crc is None:
            return None
        local = bytearray(_LOCAL.size + len(_HEADER_NAME))
        crc = _read_into(fd, memoryview(local), crc)
        if crc is None:
            return None
        sig, _, flags, method, _, _, _, packed, n_header, n_name, n_extra = _LOCAL.unpack_from(local)
        left = n_archive - len(local) - n_extra - n_header
        if sig != b"PK\x03\x04" or flags & 0x9 or method or packed != n_header or n_header > _MAX_HEADER \
                or n_name != len(_HEADER_NAME) or local[_LOCAL.size:] != _HEADER_NAME or left < 0:
            return None  # (encrypted, sizes after the data, compressed: not what save writes)
        extra, header = bytearray(n_extra), bytearray(n_header)
        crc = _read_into(fd, memoryview(extra), crc)
        crc = None if crc is None else _read_into(fd, memoryview(header), crc)
        block = memoryview(bytearray(min(left, _BLOCK)))
        while left > 0 and crc is not None:
            take = min(left, len(block))
            crc = _read_into(fd, block[:take], crc)
            left -= take
        if crc is None or os.read(fd, 1):  # shorter than the frame says, or grew while read
            return None
    finally:
        os.close(fd)
    if crc != archive_crc or not _of_kind(header, kind):
        return None
    return payload


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


def _of_kind(raw, kind):
    """Whether the header bytes ``raw`` are a header the full reader reads
    (:func:`~textnb.core.model_header.check_header`) of a model of ``kind``."""
    try:
        text = raw.decode("utf-8")
        header, end = _scanner()(text, 0)
        if end != len(text):
            return False
        check_header(header)
    except (ModelFileError, StopIteration, ValueError, RecursionError, MemoryError):
        return False
    model = header.get("model")
    return isinstance(model, dict) and model.get("kind") == kind


def _scanner():
    """``json``'s C scanner (what ``json.loads`` parses with), made without importing ``json``
    and ``re`` (a header-less text batch of the spam filter imports neither); ``json.loads``'s
    own where there is no C scanner."""
    global _SCAN
    if _SCAN is None:
        try:
            from _json import make_scanner
        except ImportError:  # pragma: no cover - not CPython
            import json

            _SCAN = json.JSONDecoder().scan_once
        else:
            _SCAN = make_scanner(_JSONSettings())
    return _SCAN


_SCAN = None


class _JSONSettings:
    """The settings of ``json.loads``'s default decoder, as its scanner reads them."""

    strict = True
    object_hook = object_pairs_hook = None
    parse_float, parse_int = float, int
    parse_constant = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}.__getitem__
