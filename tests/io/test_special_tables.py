"""A FIFO or other special file named as a table (CSV/TSV, ARFF, fastText, a TSV corpus):
one line naming it, never a hang. The readers opened the file with a plain ``open()``, which
waits for ever for a FIFO's writer (or, for ``/proc/kmsg``, for its next line)."""

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from conftest import watchdog
from textnb.core.errors import InputError
from textnb.io.arff import read_arff
from textnb.io.corpus import iter_rows, read_text_file
from textnb.io.csvtable import read_csv
from textnb.io.fasttext import read_fasttext

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow  # waits the real PIPE_WAIT (5 s) in a fresh process
@pytest.mark.parametrize("name, extra", [("t.csv", []), ("w.arff", ["--class", "play"])])
def test_train_on_a_fifo_without_a_writer_is_one_line_not_a_hang(tmp_path, name, extra):
    fifo = tmp_path / name
    os.mkfifo(fifo)
    env = dict(os.environ, PYTHONPATH=str(REPO), OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    r = subprocess.run([sys.executable, "-m", "textnb", "train", str(fifo), *extra, "-o", str(tmp_path / "m.tnb")],
                       capture_output=True, timeout=60, env=env, cwd=str(REPO))
    err = r.stderr.decode().strip()
    assert r.returncode == 1 and len(err.splitlines()) == 1, err
    assert err.startswith(f"textnb: error: {fifo}: a FIFO that no process writes to"), err
    assert not (tmp_path / "m.tnb").exists()


@pytest.mark.parametrize("read", [
    lambda p: read_csv(p, encoding="utf-8"),
    lambda p: read_csv(p),
    lambda p: read_arff(p, encoding="latin-1"),
    lambda p: read_arff(p),
    lambda p: read_text_file(p, "a TSV/CSV file"),
    lambda p: list(iter_rows(p)),
])
def test_the_table_readers_wait_a_little_for_a_fifos_writer_then_refuse_it(tmp_path, monkeypatch, read):
    """A FIFO named as a table is read as a pipe (``<(...)``) when a process writes to it;
    one that nobody writes to is waited for a few seconds (``PIPE_WAIT``), then refused.
    The wait is shortened here (the commands below wait the real one)."""
    import textnb.io.corpus

    monkeypatch.setattr(textnb.io.corpus, "PIPE_WAIT", 0.2)
    fifo = tmp_path / "t.csv"
    os.mkfifo(fifo)
    with watchdog(30), pytest.raises(InputError, match=r"t\.csv: a FIFO that no process writes to"):
        read(fifo)


def test_a_fasttext_file_read_by_name_must_be_a_regular_file(tmp_path):
    fifo = tmp_path / "t.txt"
    os.mkfifo(fifo)
    with watchdog(20), pytest.raises(InputError, match=r"t\.txt: not a regular file \(a FIFO, socket or device\)"):
        list(read_fasttext(fifo).documents)


def test_a_folder_is_named_and_a_read_that_would_block_is_an_error(tmp_path):
    from textnb.io.files import open_regular_binary, regular_reader

    with pytest.raises(InputError, match=r"cannot read \(Is a directory\)"):
        open_regular_binary(tmp_path)
    # a descriptor that would block (what /proc/kmsg gives with O_NONBLOCK): an OSError, not None
    r, w = os.pipe()
    os.set_blocking(r, False)
    try:
        with regular_reader(r) as f, pytest.raises(OSError):
            f.read()
    finally:
        os.close(w)


def test_a_fifo_with_a_writer_is_still_read_as_a_pipe(tmp_path):
    from textnb.io.corpus import read_piped

    fifo = tmp_path / "t.csv"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_text("colour,class\nred,yes\nblue,no\n"))
    writer.start()
    with watchdog(30):
        data = read_piped(fifo)
    writer.join(timeout=30)
    assert data == b"colour,class\nred,yes\nblue,no\n"
    for encoding in ("utf-8", None):  # a table reader given the pipe's name
        writer = threading.Thread(target=lambda: fifo.write_text("colour,class\nred,yes\nblue,no\n"))
        writer.start()
        with watchdog(30):
            attributes, X = read_csv(fifo, encoding=encoding)
        writer.join(timeout=30)
        assert [a.name for a in attributes] == ["colour", "class"] and len(X) == 2
