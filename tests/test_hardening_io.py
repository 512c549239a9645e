"""Issue 18 (file system, mail bounds, flags, partial failures): one test per row of the
"Hardening: outputs, mail, flags, partial failures" section of ``docs/robustness.md``.

Special files are stand-ins created here (``mkfifo``, sockets, symbolic links, folders);
the real ``/dev/null`` and ``/dev/full`` are never written to.
"""

import io
import json
import os
import socket
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import textnb
from textnb.cli import main
from textnb.errors import InputError
from textnb.model_io import atomic_write, load, output_target, save

REPO = Path(__file__).resolve().parents[1]
DOCS = ["cheap pills now", "meeting at noon", "cheap cheap offer", "lunch at noon"]
LABELS = ["spam", "ham", "spam", "ham"]


# --------------------------------------------------------------------------- helpers
def cli(*args):
    out, err = io.StringIO(), io.StringIO()
    rc = main([str(a) for a in args], stdout=out, stderr=err)
    return rc, out.getvalue(), err.getvalue()


def one_error_line(err, *fragments):
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("textnb: error: "), err
    for f in fragments:
        assert f in lines[0], (f, lines[0])
    return lines[0]


def tsv(path, rows, header=True):
    text = ("label\ttext\n" if header else "") + "".join(f"{a}\t{b}\n" for a, b in rows)
    Path(path).write_text(text, encoding="utf-8")
    return path


def run(args, timeout=120, **kw):
    env = dict(os.environ, PYTHONPATH=str(REPO), OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    env.update(kw.pop("env", {}))
    return subprocess.run(args, capture_output=True, timeout=timeout, env=env, cwd=str(REPO), **kw)


def textnb_cmd(*args, **kw):
    return run([sys.executable, "-m", "textnb", *map(str, args)], **kw)


@pytest.fixture
def model_file(tmp_path):
    path = tmp_path / "m.tnb"
    textnb.TextClassifier().fit(DOCS, LABELS).save(path)
    return path


@pytest.fixture
def specials(tmp_path):
    """Stand-ins for the files an output must never replace."""
    d = tmp_path / "special"
    d.mkdir()
    os.mkfifo(d / "fifo")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(d / "sock"))
    (d / "folder").mkdir()
    out = {"fifo": d / "fifo", "socket": d / "sock", "folder": d / "folder"}
    try:  # a private character device like /dev/null (needs root: mknod)
        os.mknod(d / "null", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        out["device"] = d / "null"
    except (PermissionError, OSError):
        pass
    yield out
    sock.close()


def _kinds(path):
    return stat.S_IFMT(os.lstat(path).st_mode)


# ==================================================================== writes
@pytest.mark.parametrize("kind", ["fifo", "socket", "device", "folder"])
def test_atomic_write_refuses_special_files(specials, kind):
    if kind not in specials:
        pytest.skip("mknod not permitted")
    path = specials[kind]
    before = _kinds(path)
    with pytest.raises(InputError) as info:
        atomic_write(path, lambda f: f.write(b"x"))
    assert str(info.value).startswith(f"{path}: ") and "\n" not in str(info.value)
    assert "not a regular file" in str(info.value)
    assert _kinds(path) == before
    assert not [p for p in path.parent.iterdir() if p.name.startswith(".tmp-")]


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_train_and_plot_and_merge_refuse_special_outputs(tmp_path, specials, model_file, kind):
    if kind not in specials:
        pytest.skip("mknod not permitted")
    target = specials[kind]
    before = _kinds(target)
    tsv(tmp_path / "c.tsv", zip(LABELS * 3, DOCS * 3))
    rc, _, err = cli("train", tmp_path / "c.tsv", "-o", target)
    assert rc == 1
    one_error_line(err, f"{target}: is a ", "not a regular file")
    rc, _, err = cli("evaluate", tmp_path / "c.tsv", "--cv", "2", "--plot", target)
    assert rc == 1
    one_error_line(err, f"{target}: is a ")
    rc, _, err = cli("merge", model_file, model_file, "-o", target)
    assert rc == 1
    one_error_line(err, f"{target}: is a ")
    assert _kinds(target) == before


def test_symlinked_model_is_updated_through_the_link(tmp_path, model_file):
    real_dir = tmp_path / "shared"
    real_dir.mkdir()
    real = real_dir / "spam.tnb"
    os.replace(model_file, real)
    link = tmp_path / "link.tnb"
    link.symlink_to(real)
    model = textnb.TextClassifier().fit(DOCS + ["new words here"], LABELS + ["ham"])
    save(model, link)
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert "words" in load(real).vectorizer_.vocabulary_
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".tmp-")]
    # a chain of links, relative, and a dangling link (the target is created)
    (tmp_path / "link2.tnb").symlink_to("link.tnb")
    save(model, tmp_path / "link2.tnb")
    assert (tmp_path / "link2.tnb").is_symlink() and load(real).classes_.tolist() == ["ham", "spam"]
    dangling = tmp_path / "dangling.tnb"
    dangling.symlink_to(real_dir / "new.tnb")
    save(model, dangling)
    assert dangling.is_symlink() and (real_dir / "new.tnb").is_file()


def test_symlink_to_a_special_file_or_a_loop_is_refused(tmp_path, specials):
    link = tmp_path / "to-fifo.tnb"
    link.symlink_to(specials["fifo"])
    with pytest.raises(InputError, match=r"to-fifo.tnb: is a FIFO, not a regular file"):
        output_target(link)
    loop = tmp_path / "loop.tnb"
    loop.symlink_to(loop)
    with pytest.raises(InputError, match=r"loop.tnb: cannot write \(Too many levels of symbolic links\)"):
        atomic_write(loop, lambda f: f.write(b"x"))
    assert link.is_symlink() and loop.is_symlink()


def test_spamfilter_registration_through_a_symlink_updates_the_target(tmp_path):
    from textnb.filtering import filter_main

    real = tmp_path / "real" / "spam.tnb"
    real.parent.mkdir()
    link = tmp_path / "spam.tnb"
    link.symlink_to(real)
    msg = b"From: a@example.com\nSubject: cheap pills\n\ncheap pills now\n"
    for op in ("--register-spam", "--register-ham"):
        err = io.StringIO()
        rc = filter_main(["-m", str(link), op], stdin=io.BytesIO(msg), stdout=io.BytesIO(), stderr=err)
        assert rc == 0, err.getvalue()
    assert link.is_symlink() and real.is_file()
    assert (real.parent / "spam.tnb.lock").exists()  # one lock for every path to the model
    assert load(real).model_.class_count_.tolist() == [1.0, 1.0]


def test_write_errors_name_the_users_path_not_the_temporary_file(tmp_path):
    pytest.importorskip("matplotlib")
    tsv(tmp_path / "c.tsv", zip(LABELS * 3, DOCS * 3))
    missing = tmp_path / "nofolder" / "cm.png"
    rc, _, err = cli("evaluate", tmp_path / "c.tsv", "--cv", "2", "--plot", missing)
    assert rc == 1
    line = one_error_line(err, f"{missing}: No such file or directory")
    assert ".tmp-" not in line and ".part" not in line


def test_write_arff_is_atomic_and_refuses_special_files(tmp_path, specials):
    from textnb.arff import read_arff, write_arff

    src = tmp_path / "t.arff"
    src.write_text("@relation t\n@attribute a numeric\n@attribute class {x,y}\n@data\n1,x\n2,y\n")
    table = read_arff(src)
    with pytest.raises(InputError, match="is a FIFO"):
        write_arff(specials["fifo"], table.attributes, table.X, relation="t")
    link = tmp_path / "link.arff"
    link.symlink_to(src)
    write_arff(link, table.attributes, table.X, relation="t")
    assert link.is_symlink() and read_arff(src).X.shape == table.X.shape
