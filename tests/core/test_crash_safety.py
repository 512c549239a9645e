"""Crash safety: ``train``, ``save`` and mail registration killed with SIGKILL at random points.

Each trial starts a real process and kills it after a random delay (sometimes before it
has read anything, sometimes mid-write, sometimes after it finished). After every kill
the model file must be *exactly* the previous model or *exactly* the new one, and load.

Policy on temporary files (documented in ``docs/robustness.md``): a killed writer may
leave a ``.tmp-<model>.*.part`` file. ``load`` never reads it; the next save to the same
model removes it once it is older than a minute and no live writer holds its lock.

Total time is bounded: trials stop when the time budget of the test is used up (at
least a few trials always run).
"""

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import textnb
from textnb.core.model_io import STALE_TEMP_SECONDS

REPO = Path(__file__).resolve().parents[2]
SMS = REPO / "corpora" / "sms_spam" / "SMSSpamCollection.tsv"
ENV = dict(os.environ, PYTHONPATH=str(REPO), OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")


def _start(args, **kw):
    return subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=str(REPO), env=ENV, **kw)


def _kill_after(proc, delay):
    try:
        proc.wait(timeout=delay)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    proc.stderr.close()
    return proc.returncode


def _temporaries(folder):
    return sorted(p for p in Path(folder).iterdir() if p.name.startswith(".tmp-") and p.name.endswith(".part"))


def _age(paths, seconds=STALE_TEMP_SECONDS * 10):
    old = time.time() - seconds
    for p in paths:
        os.utime(p, (old, old))


def _train_args(model, *extra):
    return [sys.executable, "-m", "textnb", "train", str(SMS), "-o", str(model), "--jobs", "1", *extra]


@pytest.mark.slow
@pytest.mark.skipif(not SMS.exists(), reason="bundled SMS corpus missing")
def test_killed_train_leaves_the_old_or_the_new_model(tmp_path):
    model = tmp_path / "sms.tnb"
    # the "old" model differs from what the killed runs would write
    subprocess.run(_train_args(model, "--alpha", "0.5"), check=True, cwd=str(REPO), env=ENV, capture_output=True)
    old = model.read_bytes()
    t0 = time.monotonic()
    subprocess.run(_train_args(tmp_path / "new.tnb"), check=True, cwd=str(REPO), env=ENV, capture_output=True)
    full = time.monotonic() - t0
    new = (tmp_path / "new.tnb").read_bytes()
    assert old != new

    rnd = random.Random(11)
    budget = time.monotonic() + 6.0
    outcomes = {"old": 0, "new": 0}
    trials = 0
    while trials < 3 or (time.monotonic() < budget and trials < 12):
        trials += 1
        rc = _kill_after(_start(_train_args(model)), rnd.uniform(0.3, 1.1) * full)
        data = model.read_bytes()
        assert data in (old, new), f"trial {trials}: model file is neither the old nor the new one (rc {rc})"
        outcomes["old" if data == old else "new"] += 1
        textnb.load(model)  # loadable, whatever lies around it
        if data == new:  # start the next trial from the old model again
            model.write_bytes(old)
    # stray temporary files of killed writers: never read, removed by the next save once stale
    _age(_temporaries(tmp_path))
    subprocess.run(_train_args(model), check=True, cwd=str(REPO), env=ENV, capture_output=True)
    assert model.read_bytes() == new
    assert _temporaries(tmp_path) == []


SLOW_SAVE = r"""
import sys, time
import textnb.core.model_io as mio

original = mio.atomic_write

class Slow:
    def __init__(self, f):
        self.f = f
    def write(self, b):
        time.sleep(0.002 + len(b) / 4e6)  # about 0.25 s per MB: the kill lands mid-write
        return self.f.write(b)
    def __getattr__(self, name):
        return getattr(self.f, name)

def slow_atomic_write(path, write):
    print("writing", flush=True)
    return original(path, lambda f: write(Slow(f)))

mio.atomic_write = slow_atomic_write
from textnb.cli.commands import main
raise SystemExit(main(sys.argv[1:]))
"""


@pytest.mark.slow
@pytest.mark.skipif(not SMS.exists(), reason="bundled SMS corpus missing")
def test_save_killed_mid_write_keeps_the_previous_file(tmp_path):
    """The same with the writer slowed down, so that most kills land inside ``save``."""
    model = tmp_path / "sms.tnb"
    subprocess.run(_train_args(model, "--alpha", "0.5"), check=True, cwd=str(REPO), env=ENV, capture_output=True)
    old = model.read_bytes()
    subprocess.run(_train_args(tmp_path / "new.tnb", "--ngram", "2"), check=True, cwd=str(REPO), env=ENV,
                   capture_output=True)
    new = (tmp_path / "new.tnb").read_bytes()
    (tmp_path / "new.tnb").unlink()
    args = [sys.executable, "-c", SLOW_SAVE, "train", str(SMS), "-o", str(model), "--ngram", "2", "--jobs", "1"]
    rnd = random.Random(5)
    budget = time.monotonic() + 5.0
    trials = mid_write = 0
    while trials < 3 or (time.monotonic() < budget and trials < 10):
        trials += 1
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=str(REPO), env=ENV)
        line = proc.stdout.readline()  # "writing": save has started
        assert line.strip() == b"writing", proc.stderr.read()[-500:]
        time.sleep(rnd.uniform(0.0, 0.4))
        if proc.poll() is None:
            mid_write += 1
            proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        proc.stdout.close()
        proc.stderr.close()
        data = model.read_bytes()
        assert data in (old, new), f"trial {trials}: neither the old nor the new model (rc {proc.returncode})"
        model_now = textnb.load(model)
        assert len(model_now.vectorizer_.vocabulary_) > 0
        if data != old:
            model.write_bytes(old)
    assert mid_write >= 1
    temporaries = _temporaries(tmp_path)
    assert temporaries, "a writer killed mid-write leaves its temporary file"
    assert textnb.load(model) is not None  # load ignores them
    # fresh ones are kept (they could belong to a live writer) ...
    textnb.load(model).save(model)
    assert _temporaries(tmp_path) == temporaries
    # ... stale, unlocked ones are removed by the next save
    _age(temporaries)
    textnb.load(model).save(model)
    assert _temporaries(tmp_path) == []


def _spam_count(model):
    clf = textnb.load(model)
    model = getattr(clf, "model_", clf)  # a TextClassifier or a SpamScorer
    counts = dict(zip(clf.classes_.tolist(), model.class_count_.tolist()))
    return counts.get("spam", 0.0), counts.get("ham", 0.0)


@pytest.mark.slow
def test_killed_register_never_loses_or_damages_the_model(tmp_path):
    from textnb.apps.filtering import update_model

    model = tmp_path / "spam.tnb"
    update_model(model, register=[("spam", b"Subject: win\n\ncheap pills"), ("ham", b"Subject: hi\n\nlunch at noon")])
    message = tmp_path / "msg.eml"
    message.write_bytes(b"Subject: offer\n\ncheap cheap viagra offer now\n" * 20)
    args = [sys.executable, str(REPO / "scripts" / "spamfilter"), "-m", str(model), "--register-spam", str(message)]
    t0 = time.monotonic()
    subprocess.run(args, check=True, cwd=str(REPO), env=ENV, capture_output=True)
    full = time.monotonic() - t0
    spam, ham = _spam_count(model)
    rnd = random.Random(3)
    budget = time.monotonic() + 5.0
    trials = 0
    while trials < 3 or (time.monotonic() < budget and trials < 12):
        trials += 1
        _kill_after(_start(args), rnd.uniform(0.4, 1.1) * full)
        now_spam, now_ham = _spam_count(model)  # always loadable
        assert now_ham == ham
        assert now_spam in (spam, spam + 1), f"trial {trials}: {spam} -> {now_spam}"
        spam = now_spam
    # the lock of a killed registrar is released by the kernel: the next one proceeds at once
    subprocess.run(args, check=True, cwd=str(REPO), env=ENV, capture_output=True, timeout=60)
    assert _spam_count(model) == (spam + 1, ham)
