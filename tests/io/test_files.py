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
