"""A large corpus that comes through a pipe (``zcat big.tsv.gz | textnb train -``) is
written to a temporary file and read again from it for its texts, as a corpus file over
``STREAM_ROWS_BYTES`` is, instead of kept in memory while the model trains
(:func:`textnb.io.corpus.spilled_pipe`); the model is the one the texts kept in memory give."""

import gc
import io
import json
import os
import stat
import sys
import tempfile

import pytest

import textnb.io.corpus as corpus_module
from textnb.io.corpus import RowTexts, open_corpus
from textnb.io.fasttext import LineTexts, read_fasttext
from textnb.io.files import SpilledInput

ROWS = [("spam" if i % 3 == 0 else "ham", f"word{i % 17} text number {i} other{i % 5} caf\u00e9")
        for i in range(400)]
TSV = ("label\ttext\n" + "".join(f"{label}\t{text}\n" for label, text in ROWS)).encode()
FASTTEXT = "".join(f"__label__{label} {text}\n" for label, text in ROWS).encode()
JSON_LINES = "".join(json.dumps({"label": label, "text": text}) + "\n" for label, text in ROWS).encode()


@pytest.fixture
def small_bound(monkeypatch):
    """The bound over which a corpus is streamed, made small enough for these corpora."""
    monkeypatch.setattr(corpus_module, "STREAM_ROWS_BYTES", 1000)


def _spilled_file(texts):
    source = texts.source
    assert source is not None
    path = source.path
    assert os.path.isfile(path) and os.path.basename(path).startswith(".textnb-pipe-")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    return path


def test_a_large_piped_tsv_corpus_is_read_again_from_a_temporary_file(small_bound):
    corpus = open_corpus("stdin", data=TSV, stream=True)
    assert isinstance(corpus.documents, RowTexts)
    path = _spilled_file(corpus.documents)
    assert list(corpus.documents) == [text for _, text in ROWS]
    assert list(corpus.documents) == [text for _, text in ROWS]  # (every pass)
    assert list(corpus.labels) == [label for label, _ in ROWS]
    assert corpus.source == "stdin"
    del corpus
    gc.collect()
    assert not os.path.exists(path)  # removed with the texts


def test_a_large_piped_fasttext_corpus_is_read_again_from_a_temporary_file(small_bound):
    corpus = read_fasttext("stdin", data=FASTTEXT, stream=True)
    assert isinstance(corpus.documents, LineTexts)
    path = _spilled_file(corpus.documents)
    kept = read_fasttext("stdin", data=FASTTEXT)  # (stream False: the texts kept, as before)
    assert list(corpus.documents) == list(kept.documents) == [text for _, text in ROWS]
    assert corpus.labels == kept.labels and corpus.lines == kept.lines
    del corpus
    gc.collect()
    assert not os.path.exists(path)


def test_a_small_pipe_or_no_streaming_keeps_the_texts_in_memory():
    assert isinstance(open_corpus("stdin", data=TSV, stream=True).documents, list)  # (under the bound)
    assert isinstance(read_fasttext("stdin", data=FASTTEXT, stream=True).documents, list)


def test_a_temporary_folder_that_cannot_take_the_pipe_leaves_the_texts_in_memory(small_bound, monkeypatch):
    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(tempfile, "mkstemp", full)
    corpus = open_corpus("stdin", data=TSV, stream=True)
    assert corpus.documents == [text for _, text in ROWS]
    assert read_fasttext("stdin", data=FASTTEXT, stream=True).documents == [text for _, text in ROWS]


def test_a_write_that_fails_leaves_no_temporary_file(monkeypatch, tmp_path):
    from textnb.io import files

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with pytest.raises(TypeError):
        files.SpilledInput(object())  # (the write fails: not bytes)
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("content", [TSV, FASTTEXT, JSON_LINES], ids=["tsv", "fasttext", "json-lines"])
def test_train_from_a_large_pipe_gives_the_model_of_the_texts_kept_in_memory(content, monkeypatch, tmp_path):
    from textnb.cli.commands import main

    spills = []
    spill_stream = corpus_module.spill_stream
    monkeypatch.setattr(corpus_module, "spill_stream", lambda *a: spills.append(spill_stream(*a)) or spills[-1])
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    outputs = []
    for bound in (10 ** 9, 1000):  # the texts kept, then the pipe spilled and read again
        monkeypatch.setattr(corpus_module, "STREAM_ROWS_BYTES", bound)
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(content)))
        out = tmp_path / f"m{bound}.tnb"
        assert main(["train", "-", "-o", str(out)], stdout=io.StringIO(), stderr=io.StringIO()) == 0
        outputs.append(out.read_bytes())
    assert len(spills) == 1 and isinstance(spills[0], SpilledInput)  # (the second run only)
    assert outputs[0] == outputs[1]
    del spills[:]
    gc.collect()
    assert not list((tmp_path / "tmp").iterdir())  # the temporary file removed


def test_a_pipe_is_read_into_one_buffer_of_its_size(tmp_path):
    # reading a pipe whole held it three times (the read, then joined to its first bytes)
    import threading
    import tracemalloc

    from textnb.io.corpus import read_piped

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    content = b"label\ttext\n" + b"ham\t" + b"word " * ((16 << 20) // 5) + b"\n"

    def write():
        with open(fifo, "wb") as f:
            f.write(content)

    writer = threading.Thread(target=write)
    writer.start()
    tracemalloc.start()
    try:
        data = read_piped(str(fifo))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        writer.join()
    assert data == content
    assert peak < 1.5 * len(content)


def test_the_rest_of_a_stream_up_to_a_limit():
    from textnb.io.files import read_rest

    stream = io.BytesIO(b"x" * 3_000_000)
    assert read_rest(stream, b"head") == b"head" + b"x" * 3_000_000
    assert read_rest(io.BytesIO(b"y" * 3_000_000), b"ab", limit=2_500_002) == b"ab" + b"y" * 2_500_000
    assert read_rest(io.BytesIO(b""), b"only") == b"only"


def test_a_forked_process_that_exits_leaves_the_parent_s_temporary_file(small_bound):
    corpus = open_corpus("stdin", data=TSV, stream=True)
    path = corpus.documents.source.path
    pid = os.fork()
    if pid == 0:  # the child ends as a Python program does: its exit handlers run
        corpus.documents.source._remove()
        os._exit(0)
    os.waitpid(pid, 0)
    assert os.path.exists(path)
    assert list(corpus.documents) == [text for _, text in ROWS]
    corpus.documents.source.close()
    assert not os.path.exists(path)


def test_a_spill_a_killed_process_left_is_removed_by_the_next_one(tmp_path, monkeypatch):
    """Found by a user trial: ``cat big.tsv | textnb train -`` killed by SIGKILL (the OOM
    killer) left its 342 MB ``.textnb-pipe-*`` copy in the temporary folder for good. The
    next spill removes one that is a minute old and whose lock no process holds; a copy in
    use (its process alive, however old the file) stays."""
    import subprocess
    import sys
    import tempfile
    import time
    from pathlib import Path

    from textnb.io.files import SpilledInput

    code = ("import os, sys, time; from textnb.io.files import SpilledInput; s = SpilledInput(b'x' * 1000); "
            "print(s.path, flush=True); os._exit(0) if sys.argv[1] == 'die' else time.sleep(60)")
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    dead = subprocess.run([sys.executable, "-c", code, "die"], capture_output=True, text=True, env=env, timeout=60)
    left = Path(dead.stdout.strip())
    alive = subprocess.Popen([sys.executable, "-c", code, "live"], stdout=subprocess.PIPE, text=True, env=env)
    try:
        held = Path(alive.stdout.readline().strip())
        old = time.time() - 120
        for path in (left, held):
            assert path.exists() and path.parent == tmp_path
            os.utime(path, (old, old))
        monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
        fresh = SpilledInput(b"y" * 10)
        assert not left.exists() and held.exists() and Path(fresh.path).exists()
        fresh.close()
        assert not Path(fresh.path).exists()
    finally:
        alive.kill()
        alive.wait()


# A pipe over the bound is written to the temporary file as it comes (found by a user trial:
# ``cat big.tsv | textnb train -`` held the whole pipe in memory before spilling it, a 1.37 GB
# TSV peaking at 1.79 GB where its file trains in 377 MB).

CSV_TABLE = ("outlook,temp,play\n" + "".join(f"{'sunny' if i % 3 else 'rain'},{i % 7}.5,{'yes' if i % 2 else 'no'}\n"
                                             for i in range(300))).encode()
ARFF = ("@relation w\n@attribute outlook {sunny,rain}\n@attribute temp numeric\n@attribute play {yes,no}\n@data\n"
        + "".join(f"{'sunny' if i % 3 else 'rain'},{i % 7}.5,{'yes' if i % 2 else 'no'}\n" for i in range(300))).encode()
MIXED = ("label,subject,size\n" + "".join(f"{label},\"{text}\",{i % 9}\n" for i, (label, text) in enumerate(ROWS))).encode()
FASTTEXT_MULTI = "".join(f"__label__{label} __label__x{i % 2} {text}\n" for i, (label, text) in enumerate(ROWS)).encode()


@pytest.mark.parametrize("content", [TSV, FASTTEXT, JSON_LINES, CSV_TABLE, ARFF, MIXED, FASTTEXT_MULTI],
                         ids=["tsv", "fasttext", "json-lines", "csv-table", "arff", "mixed-table", "fasttext-multilabel"])
def test_every_format_from_a_pipe_over_the_bound_trains_the_model_of_its_file(content, monkeypatch, tmp_path):
    from textnb.cli.commands import main

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    corpus = tmp_path / "corpus"
    corpus.write_bytes(content)
    outputs = []
    for bound, source in ((10 ** 9, str(corpus)), (1000, "-")):  # the file, then a pipe written to a file as it came
        monkeypatch.setattr(corpus_module, "STREAM_ROWS_BYTES", bound)
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(content)))
        out, err = tmp_path / f"m{bound}.tnb", io.StringIO()
        assert main(["train", source, "-o", str(out)], stdout=io.StringIO(), stderr=err) == 0, err.getvalue()
        outputs.append(out)
    infos = []
    for out in outputs:
        buf = io.StringIO()
        assert main(["inspect", str(out), "--json"], stdout=buf, stderr=io.StringIO()) == 0
        infos.append(json.loads(buf.getvalue()))
    assert infos[0].get("classes") or infos[0].get("labels")
    assert infos[0] == infos[1]
    gc.collect()
    assert not list((tmp_path / "tmp").iterdir())  # the temporary file removed


def _fifo_writer(fifo, content):
    import threading

    def write():
        with open(fifo, "wb") as f:
            f.write(content)

    writer = threading.Thread(target=write)
    writer.start()
    return writer


def test_a_pipe_over_the_bound_is_never_held_whole(tmp_path, monkeypatch):
    import tracemalloc

    from textnb.io.corpus import read_piped

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(corpus_module, "STREAM_ROWS_BYTES", 1 << 20)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    content = b"label\ttext\n" + b"ham\tword word\n" * ((24 << 20) // 14)
    writer = _fifo_writer(fifo, content)
    tracemalloc.start()
    try:
        data = read_piped(str(fifo), spill=True)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        writer.join()
    assert isinstance(data, SpilledInput)
    assert peak < 6 << 20  # (the bound and a chunk or two, not the 24 MB)
    assert len(data) == len(content) and data[:20] == content[:20] and bytes(data) == content
    assert data[len(content) - 5:] == content[-5:]
    data.close()


def test_a_pipe_the_temporary_folder_cannot_take_is_read_whole_nothing_lost(tmp_path, monkeypatch):
    from textnb.io import files
    from textnb.io.corpus import read_piped

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(corpus_module, "STREAM_ROWS_BYTES", 1000)
    content = TSV * 50
    write = os.write
    written = [0]

    def full_disk(fd, data):  # (the disk fills after 5,000 bytes of the copy)
        if written[0] + len(data) > 5000:
            n = write(fd, bytes(data[:5000 - written[0]])) if written[0] < 5000 else 0
            written[0] += n
            if n:
                return n
            raise OSError(28, "No space left on device")
        written[0] += len(data)
        return write(fd, data)

    monkeypatch.setattr(files.os, "write", full_disk)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(content)))
    data = read_piped("-", spill=True)
    monkeypatch.setattr(files.os, "write", write)
    assert isinstance(data, bytes) and data == content
    assert not list(tmp_path.iterdir())
