"""A user trial of commands that should behave alike (session 29): a missing input worded by
its kind in one place, a textnb model file given where data is read, and a folder named on
the command line that holds no document, said alike by ``textnb predict``, ``topicfilter``
and ``spamfilter --batch`` (the compiled client too)."""

import io
import os
import subprocess
import zipfile
from pathlib import Path

import pytest

from conftest import MULTI, SMS_TSV, cli, one_error_line, run_spamfilter, run_topicfilter, tiny_mail
from textnb.cli.mailfilters import filter_main
from textnb.core.model_io import looks_like_model

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    root = tmp_path_factory.mktemp("twins")
    (root / "ml.txt").write_text(MULTI)
    paths = {"text": root / "text.tnb", "multilabel": root / "ml.tnb", "spam": root / "spam.tnb"}
    assert cli("train", SMS_TSV, "-o", paths["text"])[0] == 0
    assert cli("train", root / "ml.txt", "-o", paths["multilabel"])[0] == 0
    spam, ham = tiny_mail(root)
    err = io.StringIO()
    code = filter_main(["-m", str(paths["spam"]), "--train-spam", str(spam), "--train-ham", str(ham)],
                       stdin=io.BytesIO(), stdout=io.BytesIO(), stderr=err)
    assert code == 0, err.getvalue()
    return paths


# --------------------------------------------------------------------------- a missing input
@pytest.mark.parametrize("model, argv, said", [
    ("text", ["--rows", "{d}/missing.tsv"], "{d}/missing.tsv: no such file"),
    ("multilabel", ["--rows", "{d}/missing.tsv"], "{d}/missing.tsv: no such file"),
    ("text", ["--lines", "{d}/missing.txt"], "{d}/missing.txt: no such file"),
    ("text", ["{d}/missing.txt"], "{d}/missing.txt: no such file or folder"),
    ("text", ["--rows", "{d}"], "{d}: a folder, not a file"),
    (None, ["train", SMS_TSV, "-o", "{d}/m.tnb", "--stop-words", "{d}/missing.txt"],
     "{d}/missing.txt: no such stop-word file"),
], ids=["rows", "multilabel-rows", "lines", "path", "rows-folder", "stop-words"])
def test_a_missing_input_is_worded_by_its_kind_in_one_place(models, tmp_path, model, argv, said):
    """``predict --rows missing.tsv`` says ``no such file`` as ``--lines missing.txt`` does
    (a TSV/CSV file: --rows takes no folder), a PATH that may be a folder ``no such file or
    folder``, a side file its own name: one function words them
    (``textnb.core.errors.missing_input`` / ``check_input``). It said ``no such file or
    folder`` for --rows and ``cannot read stop-word file (No such file or directory)``."""
    argv = [str(a).format(d=tmp_path) for a in argv]
    rc, out, err = cli(*(["predict", models[model]] if model else []), *argv)
    assert (rc, out) == (1, "")
    assert one_error_line(err).endswith(said.format(d=tmp_path)), err


def test_the_filters_word_a_missing_path_as_predict_does(models, tmp_path):
    missing = tmp_path / "missing"
    said = f"{missing}: no such file or folder"
    one_error_line(cli("predict", models["text"], missing)[2], said)
    assert run_topicfilter(["-m", models["text"], "-o", tmp_path / "out", missing])[2] == f"topicfilter: {said}\n"
    assert run_spamfilter(["-m", models["spam"], "--batch", missing])[2] == f"spamfilter: {said}\n"


# --------------------------------------------------------------------------- a model file given as data
@pytest.mark.parametrize("argv, what", [
    (["train", "{m}", "-o", "{d}/x.tnb"], "a TSV/CSV corpus"),
    (["evaluate", "{m}"], "a TSV/CSV corpus"),
    (["evaluate", SMS_TSV, "--test", "{m}"], "a TSV/CSV corpus"),
    (["test", "{t}", "{m}"], "a fastText file"),
    (["predict", "{t}", "--rows", "{m}"], "a TSV/CSV file"),
], ids=["train", "evaluate", "evaluate-test", "test", "predict-rows"])
@pytest.mark.parametrize("kind", ["text", "spam"])
def test_a_model_file_where_data_is_read_is_said_to_be_one(models, tmp_path, argv, what, kind):
    """``textnb evaluate model.tnb`` / ``train model.tnb``: one line saying it is a textnb
    model file and how one is used, exit 1, the model read by its first bytes only (a ZIP
    whose first member is header.json, or the spam model's compact frame); it said
    ``binary file, not a TSV/CSV corpus``."""
    m = models[kind]
    argv = [str(a).format(m=m, d=tmp_path, t=models["text"]) for a in argv]
    rc, out, err = cli(*argv)
    assert (rc, out) == (1, "")
    one_error_line(err, f"{m}: a textnb model file, not {what} (to score it on labelled data: textnb predict "
                        f"{m} --rows FILE prints its accuracy; for a text model on a fastText file, textnb test "
                        f"{m} FILE)")


def test_a_model_file_among_documents_is_named_so_where_it_is_skipped(models, tmp_path):
    rc, out, err = cli("predict", models["text"], models["spam"])
    assert (rc, out) == (1, "")
    one_error_line(err, f"{models['spam']}: a textnb model file, skipped")


def test_only_a_model_files_first_bytes_tell_it(models, tmp_path):
    for model in models.values():
        assert looks_like_model(Path(model).read_bytes()[:64])
    other = tmp_path / "other.dat"
    with zipfile.ZipFile(other, "w") as z:
        z.writestr("data.csv", "a,b\n")
    assert not looks_like_model(other.read_bytes()[:64]) and not looks_like_model(b"PK\x03\x04")
    rc, _, err = cli("evaluate", other)
    one_error_line(err, f"{other}: binary file, not a TSV/CSV corpus")


# --------------------------------------------------------------------------- an empty folder
def test_an_empty_folder_is_one_warning_line_in_predict_topicfilter_and_spamfilter(models, tmp_path):
    """``predict MODEL EMPTYDIR``, ``topicfilter ... EMPTYDIR`` and ``spamfilter --batch
    EMPTYDIR`` (a spam model given to predict too) printed nothing and exited 0 without a
    word: one warning line each, in its program's form, stdout empty, the exit status kept."""
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "sub").mkdir()  # (folders inside, no file: no document either)
    said = f"{empty}: no documents in this folder\n"
    assert cli("predict", models["text"], empty) == (0, "", f"textnb: warning: {said}")
    assert cli("predict", models["multilabel"], empty) == (0, "", f"textnb: warning: {said}")
    assert run_topicfilter(["-m", models["text"], "-o", tmp_path / "out", "--uncalibrated", empty]) == \
        (0, "", f"topicfilter: warning: {said}")
    assert run_spamfilter(["-m", models["spam"], "--batch", empty]) == (0, "", f"spamfilter: warning: {said}")


def test_a_folder_with_documents_or_skipped_files_gets_no_empty_warning(models, tmp_path):
    binary = tmp_path / "binary"
    binary.mkdir()
    (binary / "x.bin").write_bytes(b"\0\1\2" * 10)
    rc, out, err = cli("predict", models["text"], binary)
    assert (rc, out) == (1, "")
    one_error_line(err, "x.bin: binary file, skipped")
    (binary / "sub").mkdir()
    (binary / "sub" / "a.txt").write_text("win cash now\n")
    rc, out, err = cli("predict", models["text"], binary / "sub")
    assert rc == 0 and out.startswith(f"{binary / 'sub' / 'a.txt'}\t") and err == ""


def test_the_compiled_client_hands_an_empty_batch_folder_to_the_same_words(spamfilter_c, models, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    r = subprocess.run([str(spamfilter_c), "-m", str(models["spam"]), "--batch", str(empty)], capture_output=True,
                       env=env, timeout=120)
    assert (r.returncode, r.stdout, r.stderr.decode()) == (0, b"", f"spamfilter: warning: {empty}: no documents "
                                                                     f"in this folder\n")
