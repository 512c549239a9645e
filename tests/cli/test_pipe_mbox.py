"""An mbox in a pipe named as input (session 30): ``textnb predict M <(cat big.mbox)``,
``spamfilter --batch <(...)`` and ``topicfilter ... <(...)`` read every message of it, split
as they come, each capped at ``--max-bytes`` as a file's are. They read the pipe's first
``--max-bytes`` IN TOTAL and dropped the messages past it without a word."""

import io
import os
import threading

import pytest

from conftest import SMS_TSV, cli, run_spamfilter, run_topicfilter, tiny_mail, watchdog
from textnb.cli.mailfilters import filter_main

WORDS = "free cash prize now call lunch meeting tomorrow see you at noon win claim".split()


def _mbox(n=40):
    """An mbox of ``n`` messages of about 1 KiB each (every one under the cap, together over it)."""
    out = []
    for i in range(n):
        body = " ".join(WORDS[(i * 7 + k) % len(WORDS)] for k in range(150 + i))
        out.append(f"From sender{i}@example.com Mon Jan  1 00:{i % 60:02d}:00 2024\nFrom: a{i}@example.com\n"
                   f"Subject: note {i}\n\n{body}\n\n")
    return "".join(out).encode()


MAX = "4096"  # the mbox is ~39 KiB: nine times the cap in total, each message ~1 KiB


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    root = tmp_path_factory.mktemp("pipe_mbox")
    paths = {"text": root / "text.tnb", "spam": root / "spam.tnb"}
    assert cli("train", SMS_TSV, "-o", paths["text"])[0] == 0
    spam, ham = tiny_mail(root)
    err = io.StringIO()
    assert filter_main(["-m", str(paths["spam"]), "--train-spam", str(spam), "--train-ham", str(ham)],
                       stdin=io.BytesIO(), stdout=io.BytesIO(), stderr=err) == 0, err.getvalue()
    return paths


def _fifo_of(tmp_path, data, name="pipe"):
    """A FIFO and a thread writing ``data`` to it (as ``<(cat big.mbox)`` gives it)."""
    fifo = tmp_path / name
    os.mkfifo(fifo)

    def write():
        try:
            with open(fifo, "wb") as f:
                f.write(data)
        except BrokenPipeError:  # (a pipe of one document: its first --max-bytes read, the rest not)
            pass

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    return fifo, writer


def _run(command, models, path, out_dir=None):
    """(status, output, errors) of ``command`` reading ``path`` (topicfilter's destination
    column left out: it is named after the input)."""
    if command == "predict":
        return cli("predict", models["text"], path, "--max-bytes", MAX, "--proba")
    if command == "spamfilter":
        return run_spamfilter(["-m", models["spam"], "--max-bytes", MAX, "--batch", path])
    rc, out, err = run_topicfilter(["-m", models["text"], "-o", out_dir, "--dry-run", "--uncalibrated",
                                 "--max-bytes", MAX, path])
    return rc, "".join("\t".join(line.split("\t")[:3]) + "\n" for line in out.splitlines()), err


@pytest.mark.parametrize("command", ["predict", "spamfilter", "topicfilter"])
def test_an_mbox_in_a_pipe_past_max_bytes_loses_no_message(models, tmp_path, command):
    """Every message of an mbox in a pipe is read (40 of ~1 KiB through a 4 KiB cap), with
    the sources and scores of the same mbox given as a file (*was*: the pipe's first 4 KiB,
    five messages (the last cut short), the rest lost without a word)."""
    data = _mbox()
    assert len(data) > 9 * int(MAX)
    (tmp_path / "big.mbox").write_bytes(data)
    rc, expected, err = _run(command, models, tmp_path / "big.mbox", tmp_path / "out")
    assert (rc, err) == (0, "")
    assert expected.count("big.mbox:") == 40 and "big.mbox:40" in expected
    fifo, writer = _fifo_of(tmp_path, data)
    with watchdog(60):
        rc, out, err = _run(command, models, fifo, tmp_path / "out")
    writer.join(timeout=30)
    assert (rc, err) == (0, "")
    assert out == expected.replace(str(tmp_path / "big.mbox"), str(fifo))


def test_a_pipe_of_one_message_or_one_document_is_read_as_before(models, tmp_path):
    """A pipe holding one message (its From line too) or one plain document keeps its name
    and is its first ``--max-bytes``, as a file is (the rest of a long one not read)."""
    one = _mbox(1)
    plain = b"free cash prize " * 2000  # ~32 KiB: cut at the cap
    for name, data in (("one.mbox", one), ("plain.txt", plain)):
        (tmp_path / name).write_bytes(data)
        for command in ("predict", "spamfilter", "topicfilter"):
            rc, expected, err = _run(command, models, tmp_path / name, tmp_path / "out")
            assert rc == 0, err
            fifo, writer = _fifo_of(tmp_path, data, f"pipe-{command}-{name}")
            with watchdog(60):
                rc, out, err = _run(command, models, fifo, tmp_path / "out")
            writer.join(timeout=30)
            assert rc == 0, err
            assert out == expected.replace(str(tmp_path / name), str(fifo)), (command, name)
            assert f"{fifo}:" not in out


def test_the_library_reads_an_mbox_pipe_one_message_at_a_time(tmp_path):
    """``read_messages(whole=PIPE)`` yields the messages as the pipe brings them: the first
    is out before the writer has written the last (memory bounded by a message, not the pipe)."""
    from textnb.io.mailread import PIPE, read_messages

    data = _mbox()
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    half = threading.Event()

    def write():
        with open(fifo, "wb") as f:
            f.write(data[:len(data) // 2])
            f.flush()
            half.wait(30)
            f.write(data[len(data) // 2:])

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    with watchdog(60):
        messages = read_messages(str(fifo), 2048, whole=PIPE)
        first = next(messages)
        assert first[0] == f"{fifo}:1" and not half.is_set()
        half.set()
        rest = list(messages)
    writer.join(timeout=30)
    assert len(rest) == 39 and rest[-1][0] == f"{fifo}:40"
    assert all(len(m) <= 2048 + 256 for _, m in [first, *rest])


@pytest.mark.parametrize("max_bytes", [100, 4096, None])
@pytest.mark.parametrize("kind", ["lf", "crlf", "cr", "long-from-line", "one", "plain", "empty"])
def test_a_pipe_reads_to_the_messages_of_the_same_file(tmp_path, kind, max_bytes):
    """``read_messages`` of a pipe gives the file's messages, sources and bytes, whatever the
    line ends, a From line longer than a read, a cap below the first line, or none."""
    from textnb.core.errors import InputError
    from textnb.io.mailread import PIPE, read_messages

    data = {"lf": _mbox(), "crlf": _mbox().replace(b"\n", b"\r\n"), "cr": _mbox().replace(b"\n", b"\r"),
            "long-from-line": b"From x@y Mon Jan  1 00:00:00 2024 " + b"z" * 70000 + b"\n\nbody\n\n"
                              b"From x@y Mon Jan  1 00:01:00 2024\n\nb2\n",
            "one": _mbox(1), "plain": b"hello " * 10000, "empty": b""}[kind]

    def read(path, **how):
        try:
            return [(source.replace(str(path), "P"), message) for source, message in read_messages(str(path),
                                                                                                   max_bytes, **how)]
        except InputError as exc:
            return str(exc).replace(str(path), "P")

    (tmp_path / "file").write_bytes(data)
    fifo, writer = _fifo_of(tmp_path, data)
    with watchdog(60):
        got = read(fifo, whole=PIPE)
    writer.join(timeout=30)
    assert got == read(tmp_path / "file")
