"""A Ctrl-C (or SIGTERM) during a model file's save: "interrupted" only when the old file is
left as it was; one that comes once the new file is in place lets the save finish and be
reported (``textnb.core.model_io.atomic_write``).

The signals are real (``signal.raise_signal`` from inside a patched ``os.fsync``), so they
arrive exactly where a user's Ctrl-C would: no timing is involved.
"""

import os
import signal
import stat

import pytest

from conftest import cli, tsv
from textnb.core import model_io

ROWS = [("spam", "cheap pills now"), ("ham", "meeting at noon"), ("spam", "cheap offer"), ("ham", "lunch at noon")]


def _signal_during_fsync(monkeypatch, signum, *, of_folder):
    """Patch os.fsync so that ``signum`` is raised while the folder (after the replace) or
    the temporary file (before it) is synced; returns the list of the signals sent."""
    real_fsync, sent = os.fsync, []

    def fsync(fd):
        if stat.S_ISDIR(os.fstat(fd).st_mode) == of_folder and not sent:
            sent.append(signum)
            signal.raise_signal(signum)
        return real_fsync(fd)

    monkeypatch.setattr(model_io.os, "fsync", fsync)
    return sent


def _train(data, model):
    return cli("train", data, "--model", "multinomial", "-o", model)


def test_an_interrupt_after_the_replace_is_a_completed_train(tmp_path, monkeypatch):
    """SIGINT during the fsync of the folder (the new model already in place): was exit 130
    'interrupted'; now the run reports its model, exit 0."""
    data = tsv(tmp_path / "d.tsv", ROWS)
    old = tmp_path / "old.tnb"
    model = tmp_path / "m.tnb"
    assert _train(tsv(tmp_path / "o.tsv", ROWS[:2]), old)[0] == 0
    model.write_bytes(old.read_bytes())
    sent = _signal_during_fsync(monkeypatch, signal.SIGINT, of_folder=True)
    rc, out, err = _train(data, model)
    assert sent == [signal.SIGINT]
    assert rc == 0 and "interrupted" not in err, err
    assert model.read_bytes() != old.read_bytes()
    monkeypatch.undo()
    assert _train(data, tmp_path / "fresh.tnb")[0] == 0
    assert model.read_bytes() == (tmp_path / "fresh.tnb").read_bytes()  # the complete new model
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # handlers put back
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".part")]


#: ``textnb`` (its own stop handlers, :func:`textnb.core.signals.stop_on_signals`) sent
#: ``SIGNAL`` while the folder is synced after its model file's replace
_STOPPED_AFTER_THE_REPLACE = """
import os, signal, stat, sys
real_fsync, sent = os.fsync, []
def fsync(fd):
    if stat.S_ISDIR(os.fstat(fd).st_mode) and not sent:
        sent.append(SIGNAL)
        signal.raise_signal(getattr(signal, SIGNAL))
    return real_fsync(fd)
os.fsync = fsync
from textnb.cli.program import main
sys.argv = ["textnb", *sys.argv[1:]]
raise SystemExit(main())
"""


@pytest.mark.parametrize("signal_name", ["SIGTERM", "SIGHUP"])
def test_a_sigterm_after_the_replace_is_a_completed_train(tmp_path, signal_name):
    """As a Ctrl-C there: a SIGTERM (SIGHUP) that came once the new model was in place said
    ``textnb: terminated by signal 15``, exit 143, the new model written; the run now
    reports its model, exit 0."""
    import subprocess
    import sys

    data, model = tsv(tmp_path / "d.tsv", ROWS), tmp_path / "m.tnb"
    assert _train(tsv(tmp_path / "o.tsv", ROWS[:2]), model)[0] == 0
    repo = os.path.dirname(os.path.dirname(os.path.dirname(model_io.__file__)))
    done = subprocess.run([sys.executable, "-c", f"SIGNAL = {signal_name!r}\n" + _STOPPED_AFTER_THE_REPLACE, "train",
                           str(data), "--model", "multinomial", "-o", str(model)], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=repo), timeout=300)
    assert done.returncode == 0 and "terminated" not in done.stderr, done.stderr
    assert f"-> {model}" in done.stdout
    assert _train(data, tmp_path / "fresh.tnb")[0] == 0
    assert model.read_bytes() == (tmp_path / "fresh.tnb").read_bytes()  # the complete new model


def test_an_interrupt_before_the_replace_leaves_the_old_model(tmp_path, monkeypatch):
    """SIGINT while the temporary file is synced: 'interrupted', exit 130, the old model as it was."""
    model = tmp_path / "m.tnb"
    assert _train(tsv(tmp_path / "o.tsv", ROWS[:2]), model)[0] == 0
    before = model.read_bytes()
    sent = _signal_during_fsync(monkeypatch, signal.SIGINT, of_folder=False)
    rc, out, err = _train(tsv(tmp_path / "d.tsv", ROWS), model)
    assert sent == [signal.SIGINT]
    assert rc == 130 and err.strip().endswith("textnb: interrupted")
    assert model.read_bytes() == before
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".part")]


def test_a_handler_of_the_program_runs_after_the_save(tmp_path, monkeypatch):
    """A signal whose handler is the program's own (a daemon's stop flag, the mail tools'
    SIGTERM) is held during the end of the save and delivered once the file is complete."""
    seen = []

    def handler(signum, frame):
        seen.append((signum, (tmp_path / "m.tnb").exists()))

    old_handler = signal.signal(signal.SIGTERM, handler)
    try:
        _signal_during_fsync(monkeypatch, signal.SIGTERM, of_folder=True)
        model_io.atomic_write(tmp_path / "m.tnb", lambda f: f.write(b"new"))
        assert seen == [(signal.SIGTERM, True)]
        assert signal.getsignal(signal.SIGTERM) is handler
    finally:
        signal.signal(signal.SIGTERM, old_handler)
    assert (tmp_path / "m.tnb").read_bytes() == b"new"


def test_a_save_in_the_library_is_not_cut_short_after_the_replace(tmp_path, monkeypatch):
    path = tmp_path / "m.bin"
    path.write_bytes(b"old")
    _signal_during_fsync(monkeypatch, signal.SIGINT, of_folder=True)
    try:
        model_io.atomic_write(path, lambda f: f.write(b"new"))
    except KeyboardInterrupt:
        pytest.fail("KeyboardInterrupt raised after the new file was in place")
    assert path.read_bytes() == b"new"
