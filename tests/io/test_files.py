"""``textnb.io.files.read_regular_file``: the one reader of the files a corpus or a mail
folder names (``io.corpus.read_bytes`` and the mail reader both go through it)."""

import os

import pytest

from textnb.core.errors import InputError
from textnb.io import corpus, mailread
from textnb.io.files import read_regular_file


def test_reads_all_or_the_first_max_bytes(tmp_path):
    f = tmp_path / "f"
    data = os.urandom(200_000)
    f.write_bytes(data)
    assert read_regular_file(f) == data
    assert read_regular_file(f, 70_000) == data[:70_000]
    assert read_regular_file(f, 10**9) == data
    (tmp_path / "empty").write_bytes(b"")
    assert read_regular_file(tmp_path / "empty", 10) == b""
    assert corpus.read_bytes(f, 5) == data[:5] and mailread._read_file(f, 5) == data[:5]


def test_refuses_what_is_not_a_regular_file_without_blocking(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # nobody writes: a blocking open would hang
    with pytest.raises(InputError, match="pipe: not a regular file"):
        read_regular_file(fifo)
    with pytest.raises(InputError, match=r"cannot read \(Is a directory\)"):
        read_regular_file(tmp_path)
    with pytest.raises(InputError, match="missing: cannot read"):
        read_regular_file(tmp_path / "missing")
