"""``textnb.core.regular``: the one check that a file read or written is a regular file."""

import os

import pytest

from textnb.core.regular import NotRegularFile, open_regular, open_regular_stat
from textnb.io.files import read_regular_file


def test_stat_is_the_open_files(tmp_path):
    path = tmp_path / "doc.txt"
    path.write_bytes(b"some words")
    fd, st = open_regular_stat(path)
    try:
        assert os.path.samestat(st, os.fstat(fd)) and st.st_size == 10
    finally:
        os.close(fd)


def test_a_reader_keeps_nonblocking_a_file_object_and_a_writer_block(tmp_path):
    # O_NONBLOCK has no effect on a regular file's reads: a reader skips the call that
    # clears it; a descriptor opened for writing is put in blocking mode
    path = tmp_path / "doc.txt"
    path.write_bytes(b"x" * 100_000)
    fd, _ = open_regular_stat(path)
    try:
        assert not os.get_blocking(fd)
        assert os.read(fd, 200_000) == b"x" * 100_000  # (all of it in one read, as blocking)
    finally:
        os.close(fd)
    fd = open_regular(path)  # (what a buffered file object wraps: blocking)
    try:
        assert os.get_blocking(fd)
    finally:
        os.close(fd)
    fd = open_regular(path, os.O_WRONLY | os.O_APPEND)
    try:
        assert os.get_blocking(fd)
    finally:
        os.close(fd)
    assert read_regular_file(path) == b"x" * 100_000
    assert read_regular_file(path, 10) == b"x" * 10


@pytest.mark.parametrize("make", ["folder", "fifo"])
def test_not_regular_refused(tmp_path, make):
    path = tmp_path / "thing"
    if make == "folder":
        path.mkdir()
    else:
        os.mkfifo(path)
    with pytest.raises(NotRegularFile) as info:
        open_regular_stat(path)
    assert info.value.folder == (make == "folder")


@pytest.mark.skipif(not os.path.exists("/proc/self/cmdline"), reason="needs Linux /proc")
@pytest.mark.parametrize("name", ["cmdline", "environ"])
def test_proc_file_of_size_zero_read_whole(name):
    # a /proc file is regular but its fstat size is 0: the read sized by fstat must go on
    # to its end (and stop at a cap), as before open_regular_stat handed the stat over
    path = f"/proc/self/{name}"
    fd, st = open_regular_stat(path)
    os.close(fd)
    assert st.st_size == 0
    with open(path, "rb") as f:
        whole = f.read()
    assert whole and read_regular_file(path) == whole
    assert read_regular_file(path, 5) == whole[:5]
