"""The compact form of a model: a block a fast reader loads with ``struct`` alone, written
by :func:`textnb.core.model_io.save` in front of the model's ZIP archive.

A model whose class defines ``_compact_form()`` (bytes) gets that payload written at the
start of its ``.tnb`` file, before the archive, as a ``python -m zipapp`` file carries its
``#!`` line: ZIP readers find the archive from its end and skip what precedes it (the
archive's offsets count from the start of the file), so :func:`textnb.core.model_io.load`,
older textnb versions and ``unzip`` read the file as before. Layout::

    MAGIC (8 bytes) | block size, file size (two little-endian uint64) | CRC-32 (uint32)
    | block: payload | binding: header size (uint64), header CRC-32 (uint32) | the ZIP archive

The payload is bound to the archive it was written with: :func:`bind` follows it with the
size and CRC-32 of the archive's ``header.json`` as :func:`~textnb.core.model_io.save` wrote
it (the header lists every array's SHA-256, so it stands for the whole model), and
:func:`read_payload` reads that member where ``save`` puts it, first in the archive, and
compares; it also checks the header as the full reader does (the format and its version,
:func:`textnb.core.model_header.check_header`) and that it is a model of the kind the caller
reads. The binding travels with the payload, not with the frame: a compact form copied in
front of another archive and framed again (:func:`frame` recomputes the CRC-32 for whatever
it is given) keeps the header it was written with. The CRC-32 covers everything after the
frame (the block and the archive) and the file size is checked, so a truncated or damaged
file, whichever part is hit, is not read through the compact form either. For any of these
:func:`read_payload` returns None and the caller uses the one model reader
(:func:`textnb.core.model_io.load`), which says what is wrong, or reads the archive: so a
compact form in front of another archive (another model's, a table model's, one of a later
format version) is never read for it, and a file written before the binding existed (magic
``TNBFAST1``) is read by the full reader, as a file without a compact form is. What the
binding cannot tell is a file forged on purpose, the binding itself rewritten for another
archive's header: only recomputing the weights from the archive would, the work the compact
form spares.

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
#: the frames of earlier textnb versions, which bind the payload to no header: their files are
#: read by the full reader (a model file all the same, :func:`textnb.core.model_io.looks_like_model`)
OLD_MAGICS = (b"TNBFAST1",)
#: magic, block size, file size, CRC-32 of everything after the frame
FRAME = struct.Struct("<8sQQL")
#: what follows the payload in its block: the size and CRC-32 of the header it was written with
BINDING = struct.Struct("<QL")
#: a ZIP local file header: signature, version, flags, method, time, date, CRC-32, sizes, name and extra lengths
_LOCAL = struct.Struct("<4sHHHHHLLLHH")
_HEADER_NAME = b"header.json"
#: largest header read here (a spam model's is under 1 KB; a larger one goes to the full reader)
_MAX_HEADER = 1 << 20


def bind(payload, header):
    """The block that goes between the frame and the archive: ``payload`` (bytes) followed by
    its binding to ``header``, the bytes of the archive's ``header.json`` (its first member)
    that the payload was written with."""
    return bytes(payload) + BINDING.pack(len(header), binascii.crc32(header))


def frame(block, archive):
    """The frame that goes before ``block`` (:func:`bind`'s) and ``archive`` (bytes) in a
    model file."""
    size = FRAME.size + len(block) + len(archive)
    crc = binascii.crc32(archive, binascii.crc32(block))
    return FRAME.pack(MAGIC, len(block), size, crc)


def read_payload(path, max_bytes, kind):
    """The compact payload of the model file ``path`` (a bytearray) whose model is of ``kind``
    (a class name), or None when it has none or any check fails (not a regular file, larger
    than ``max_bytes``, no frame or one of an earlier version, another size than the frame
    records, a CRC mismatch, an archive whose header is not the one the payload was written
    with, a header the full reader refuses or of another kind). Raises OSError for a file it
    cannot open."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > max_bytes or st.st_size < FRAME.size:
            return None
        head = os.read(fd, FRAME.size)
        if len(head) != FRAME.size:
            return None
        magic, n_block, size, expected = FRAME.unpack(head)
        if magic != MAGIC or size != st.st_size or not BINDING.size <= n_block <= size:
            return None
        # the payload and its binding are kept; then the archive's first member, its header
        # (kept too); the rest of the archive is only read for the CRC, a block at a time into
        # one buffer (the file is never held whole)
        payload, binding = bytearray(n_block - BINDING.size), bytearray(BINDING.size)
        crc = _read_into(fd, memoryview(payload), 0)
        crc = None if crc is None else _read_into(fd, memoryview(binding), crc)
        if crc is None:
            return None
        n_header, header_crc = BINDING.unpack(binding)
        left = size - FRAME.size - n_block - _LOCAL.size - len(_HEADER_NAME) - n_header
        if n_header > _MAX_HEADER or left < 0:
            return None
        local = bytearray(_LOCAL.size + len(_HEADER_NAME))
        crc = _read_into(fd, memoryview(local), crc)
        if crc is None:
            return None
        sig, _, flags, method, _, _, member_crc, packed, unpacked, n_name, n_extra = _LOCAL.unpack_from(local)
        if sig != b"PK\x03\x04" or flags & 0x9 or method or member_crc != header_crc \
                or packed != n_header or unpacked != n_header or n_name != len(_HEADER_NAME) \
                or local[_LOCAL.size:] != _HEADER_NAME or n_extra > left:
            return None  # (encrypted, sizes after the data, compressed: not what save writes)
        left -= n_extra
        extra = bytearray(n_extra)
        header = bytearray(n_header)
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
    if crc != expected or binascii.crc32(header) != header_crc or not _of_kind(header, kind):
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
