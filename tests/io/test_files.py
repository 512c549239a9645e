"""``textnb.io.files``: the one walk of a folder (``folder_files``) and the one reader of
the files a corpus or a mail folder names (``read_regular_file``); the corpus readers and
the mail reader both go through them."""

import os

import pytest

from textnb.core.errors import InputError
from textnb.io import corpus, mailread
from textnb.io.files import folder_files, read_regular_file


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


def _tree(root):
    """A folder of every shape a walk meets: files and subfolders out of name order,
    hidden names, a link to a folder, a FIFO, a link to it, a broken link, a link that
    loops, a link to a file outside."""
    for rel in ("b.txt", "a.txt", "sub2/z", "sub1/y", "sub1/deep/x", ".hidden", ".hd/w", "sub2/.h"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(rel)
    os.symlink(root / "sub1", root / "link-to-folder")
    os.mkfifo(root / "fifo")
    os.symlink(root / "fifo", root / "link-to-fifo")
    os.symlink(root / "nowhere", root / "broken")
    os.symlink(root / "loop", root / "loop")
    (root.parent / "outside.txt").write_text("outside")
    os.symlink(root.parent / "outside.txt", root / "link-out")


def _os_walk(root):
    out = []
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        out += [os.path.join(dirpath, f) for f in sorted(files) if not f.startswith(".")]
    return out


def test_folder_files_lists_as_os_walk_without_what_cannot_be_read(tmp_path):
    root = tmp_path / "t"
    _tree(root)
    expected = [p for p in _os_walk(str(root)) if not p.endswith(("fifo", "link-to-fifo"))]
    got = list(folder_files(str(root), on_unlistable=None))
    assert got == [(p, False) for p in expected]
    assert str(root / "broken") in expected and str(root / "loop") in expected  # reading reports them
    loops = []
    got = [p for p, _ in folder_files(root, on_unlistable=None, on_loop=loops.append,
                                      follow=lambda link: not link.endswith("link-out"))]
    assert loops == [str(root / "loop")]
    assert got == [p for p in expected if not p.endswith(("loop", "link-out"))]
    # the corpus reader's walk is this one
    assert corpus._walk_files(str(root)) == [p for p in expected if not p.endswith("loop")]


def test_folder_files_stands_a_subfolder_for_what_the_caller_gives(tmp_path):
    root = tmp_path / "t"
    _tree(root)
    got = list(folder_files(str(root), on_unlistable=None,
                            subfolder=lambda sub: [("X", True)] if sub.endswith("sub1") else None))
    paths = [p for p, _ in got]
    assert ("X", True) in got and not any("/sub1/" in p for p in paths)
    assert paths.index("X") < paths.index(str(root / "sub2" / "z"))  # in the subfolder's place


def _deny(monkeypatch, denied):
    real = os.scandir

    def scandir(path="."):
        if os.fspath(path) in denied:
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)


def test_a_mail_folder_that_cannot_be_listed_is_reported_not_skipped(tmp_path, monkeypatch):
    """Before the one walk the mail reader skipped such a folder without a word, as
    ``os.walk`` does: ``spamfilter --batch`` of it printed nothing and succeeded."""
    top = tmp_path / "mail"
    (top / "sub").mkdir(parents=True)
    (top / "a").write_bytes(b"Subject: a\n\nbody a\n")
    (top / "sub" / "b").write_bytes(b"Subject: b\n\nbody b\n")
    md = top / "md"
    for part in ("new", "cur", "tmp"):
        (md / part).mkdir(parents=True)
    (md / "new" / "m1").write_bytes(b"Subject: m\n\nbody m\n")
    (md / "cur" / "m2").write_bytes(b"Subject: m\n\nbody m\n")
    (md / "cur" / "inner").mkdir()
    (md / "cur" / "inner" / "m3").write_bytes(b"Subject: m\n\nbody m\n")
    assert list(mailread.message_files(str(top))) == [
        (str(top / "a"), False), (str(md / "new" / "m1"), True), (str(md / "cur" / "m2"), True),
        (str(top / "sub" / "b"), False)]  # a Maildir's own files only
    _deny(monkeypatch, {str(top / "sub"), str(md / "cur")})
    errors = []
    got = [src for src, _ in mailread.iter_messages(str(top), on_error=errors.append)]
    assert got == [str(top / "a"), str(md / "new" / "m1")]
    assert errors == [f"{md / 'cur'}: cannot list folder (Permission denied)",
                      f"{top / 'sub'}: cannot list folder (Permission denied)"]
    with pytest.raises(InputError, match="cannot list folder"):
        list(mailread.iter_messages(str(top)))


def test_a_link_named_that_loops_or_leads_nowhere_is_not_called_missing(tmp_path):
    """Named on the command line, a symbolic link that loops was 'no such file or folder'
    (and 'no such model file'), as a missing path; inside a folder it was already
    'cannot read (Too many levels of symbolic links)'."""
    from textnb.core.errors import ModelFileError
    from textnb.core.model_io import load

    os.symlink("l2", tmp_path / "l1")
    os.symlink("l1", tmp_path / "l2")
    os.symlink("nowhere", tmp_path / "dangling")
    loop, dangling = str(tmp_path / "l1"), str(tmp_path / "dangling")
    for read in (lambda p: list(mailread.message_files(p)), lambda p: list(corpus.iter_input_documents([p]))):
        with pytest.raises(InputError, match="l1: cannot read file or folder \\(a symbolic link that loops"):
            read(loop)
        with pytest.raises(InputError, match="dangling: no such file or folder \\(a symbolic link to 'nowhere'"):
            read(dangling)
        with pytest.raises(InputError, match="absent: no such file or folder$"):
            read(str(tmp_path / "absent"))
    with pytest.raises(ModelFileError, match="cannot read model file \\(a symbolic link that loops"):
        load(loop)


def _through_a_pipe(data, read):
    """``read(stream)`` of ``data`` written into a pipe in pieces of 1 to 700 bytes by a thread."""
    import random
    import threading

    r, w = os.pipe()
    pieces = random.Random(len(data))

    def write():
        with os.fdopen(w, "wb", buffering=0) as f:
            k = 0
            while k < len(data):
                n = pieces.randint(1, 700)
                f.write(data[k:k + n])
                k += n

    writer = threading.Thread(target=write)
    writer.start()
    try:
        with os.fdopen(r, "rb") as stream:
            return read(stream)
    finally:
        writer.join()


def test_lines_and_rows_read_from_a_pipe_as_they_come_are_those_of_the_file(tmp_path, monkeypatch):
    """``predict --lines -`` and ``--rows -`` read a pipe by textnb.io.files.PipeReader, each line
    as it comes, a list handed over when the next line has not (session 44's user trial); the
    lines and rows are those of the same bytes in a file, in the same order, whatever their
    lists: long lines cut at max_bytes, a CR inside a line, label words, blank lines, a last
    line without its LF, a CSV field quoted over several lines, JSON Lines."""
    from textnb.io import sources
    from textnb.io.files import PipeReader

    import random

    stalls, asked = random.Random(0), PipeReader.line_ready
    # (a stall after one line in three, and the writer's pauses: lists of any length)
    monkeypatch.setattr(PipeReader, "LINGER", 0.0)
    monkeypatch.setattr(PipeReader, "line_ready", lambda self: asked(self) and stalls.random() > 0.3)
    lines = (b"__label__a free prize " + b"x" * 3000 + b"\n\nhello\rworld __label__b there\n  \n"
             + "caf\u00e9 \u00fcber\n".encode() + b"last line without end") * 40
    csv_rows = b"label,text\n" + b"".join(b'ham,"see you\nat ' + str(i).encode() + b' lunch"\nspam,free prize\n'
                                         for i in range(300))
    jsonl = b"".join(b'{"label": "ham", "text": "see you %d"}\n\n' % i for i in range(500))
    for name, data, read in (
            ("l.txt", lines, lambda s, p: sources.line_chunks(p, "__label__", 1000, with_labels=True, stdin=s)),
            ("r.csv", csv_rows, lambda s, p: sources.row_chunks(p, 1000, stdin=s)),
            ("r.jsonl", jsonl, lambda s, p: sources.row_chunks(p, 1000, stdin=s))):
        path = tmp_path / name
        path.write_bytes(data)
        whole = list(read(None, str(path)))

        def flat(chunks):
            texts, labels = [], []
            for chunk in chunks:
                texts += chunk[0]
                labels += chunk[1] or []
            return texts, labels

        assert PipeReader.of(open(path, "rb")) is None  # (a file: read as before)
        piped = _through_a_pipe(data, lambda stream: list(read(stream, "-")))
        assert flat(piped) == flat(whole), name
        assert len(piped) > len(whole) and all(len(chunk[0]) <= 1000 for chunk in piped)


def test_a_pipe_reader_tells_a_line_that_has_not_come():
    """PipeReader.line_ready: a whole line buffered, or bytes on the descriptor, is ready; a
    line's start alone with nothing more coming is not (the list is handed over); the end is."""
    from textnb.io.files import PipeReader

    r, w = os.pipe()
    with os.fdopen(r, "rb") as raw:
        pipe = PipeReader.of(raw)
        pipe.LINGER = 0.0
        os.write(w, b"one\ntwo\nthr")
        assert pipe.readline() == b"one\n" and pipe.line_ready()
        assert pipe.readline() == b"two\n" and not pipe.line_ready()
        os.write(w, b"ee\n")
        assert pipe.line_ready() and pipe.readline() == b"three\n" and not pipe.line_ready()
        os.write(w, b"four")
        os.close(w)
        assert pipe.line_ready() and pipe.readline() == b"four" and pipe.line_ready() and pipe.readline() == b""
