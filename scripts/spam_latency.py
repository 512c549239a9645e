#!/usr/bin/env python3
"""Per-message latency of the mail filter, whole processes, interleaved in one run.

For each message, in turn (so that load on the machine hits every contender alike):

* ``daemon``: ``python -S scripts/spamfilter --socket S`` against ``textnb serve MODEL``
  (what the script's ``#!/usr/bin/env -S python3 -S`` line runs);
* ``daemon_site``: the same client with the site module on (what the console script that
  ``pip install .`` writes runs: it pays for the site-packages scan, .pth files included);
* ``bogofilter``: ``bogofilter -d DIR`` (its verdict as the exit status);
* ``cold``: ``python -S scripts/spamfilter --model MODEL`` (loads the model every time;
  ``-S`` as the script's ``#!`` line runs it);
* ``cold_site``: the same with the site module on (the pip console script);
* ``sklearn_import``: ``python -c "import sklearn.naive_bayes"`` (the floor of any path
  that imports scikit-learn);
* ``python_floor``: ``python -S -c pass`` (the floor of any Python client: interpreter
  start-up alone).

:func:`measure_latency` returns the medians (seconds per message) and the ratios; the
``__main__`` prints them. ``scripts/bench_spam.py`` calls it for its table.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SPAMFILTER = REPO / "scripts" / "spamfilter"

__all__ = ["measure_latency"]


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def _time(argv, data, env, ok_codes=(0, 1, 2)):
    start = time.perf_counter()
    r = subprocess.run(argv, input=data, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    elapsed = time.perf_counter() - start
    if r.returncode not in ok_codes:
        raise RuntimeError(f"{argv[:3]}...: exit {r.returncode}: {r.stderr.decode(errors='replace')[-300:]}")
    return elapsed


def _start_daemon(model_path, sock, env):
    proc = subprocess.Popen([sys.executable, "-m", "textnb", "serve", str(model_path), "--socket", str(sock)],
                            stderr=subprocess.PIPE, text=True, env=env)
    line = proc.stderr.readline()
    if "serving" not in line:
        proc.kill()
        proc.wait()
        raise RuntimeError(f"textnb serve did not start: {line.strip()}")
    return proc


def measure_latency(model_path, message_paths, bogofilter_dir, *, progress=None):
    """Median whole-process seconds per message for each contender (see the module doc).

    Parameters
    ----------
    model_path : path
        A spam model (``spamfilter --train-*``).
    message_paths : list of path
        One message per file; each is classified once by every contender.
    bogofilter_dir : path
        A bogofilter database trained on the same training messages (``bogofilter -d``).

    Returns
    -------
    dict
        ``{"n": messages, "median_s": {name: seconds}, "ratios": {...}}`` with the ratios
        ``daemon_vs_bogofilter``, ``daemon_site_vs_bogofilter``, ``cold_vs_sklearn_import``,
        ``python_floor_vs_bogofilter``; and ``load_average`` (1 minute, at the end).
    """
    env = _env()
    messages = [Path(p).read_bytes() for p in message_paths]
    with tempfile.TemporaryDirectory(prefix="tnbl") as tmp:
        sock = Path(tmp) / "s"
        daemon = _start_daemon(model_path, sock, env)
        try:
            contenders = {
                "daemon": [sys.executable, "-S", str(SPAMFILTER), "--socket", str(sock)],
                "daemon_site": [sys.executable, str(SPAMFILTER), "--socket", str(sock)],
                "bogofilter": ["bogofilter", "-d", str(bogofilter_dir)],
                "cold": [sys.executable, "-S", str(SPAMFILTER), "--model", str(model_path)],
                "cold_site": [sys.executable, str(SPAMFILTER), "--model", str(model_path)],
                "sklearn_import": [sys.executable, "-c", "import sklearn.naive_bayes"],
                "python_floor": [sys.executable, "-S", "-c", "pass"],
            }
            times = {name: [] for name in contenders}
            for i, data in enumerate(messages):
                for name, argv in contenders.items():
                    bare = name in ("sklearn_import", "python_floor")
                    times[name].append(_time(argv, b"" if bare else data, env, (0,) if bare else (0, 1, 2)))
                if progress is not None:
                    progress(i + 1)
        finally:
            daemon.terminate()
            daemon.wait(timeout=60)
    med = {name: statistics.median(ts) for name, ts in times.items()}
    return {
        "n": len(messages),
        "median_s": med,
        "ratios": {
            "daemon_vs_bogofilter": med["daemon"] / med["bogofilter"],
            "daemon_site_vs_bogofilter": med["daemon_site"] / med["bogofilter"],
            "cold_vs_sklearn_import": med["cold"] / med["sklearn_import"],
            "cold_site_vs_sklearn_import": med["cold_site"] / med["sklearn_import"],
            "python_floor_vs_bogofilter": med["python_floor"] / med["bogofilter"],
        },
        "load_average": os.getloadavg()[0],
    }


def _train_both(spam, ham, workdir):
    """A textnb model and a bogofilter database trained on the same messages."""
    sys.path.insert(0, str(REPO))
    from textnb.apps.filtering import train_model

    model = Path(workdir) / "spam.tnb"
    train_model(model, spam, ham)
    bogo = Path(workdir) / "bogo"
    bogo.mkdir()
    for flag, paths in (("-s", spam), ("-n", ham)):
        for p in paths:
            with open(p, "rb") as f:
                subprocess.run(["bogofilter", "-d", str(bogo), flag], stdin=f, check=True)
    return model, bogo


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--corpus", default=str(REPO.parent / "corpora" / "spamassassin"),
                   help="folder with spam/ and ham/ (default: ../corpora/spamassassin)")
    p.add_argument("--train", type=int, default=300, help="messages of each class to train on (default 300)")
    p.add_argument("--messages", type=int, default=40, help="messages to time (default 40)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    import random

    root = Path(args.corpus)
    rng = random.Random(args.seed)
    spam = sorted(p for p in (root / "spam").rglob("*") if p.is_file())
    ham = sorted(p for p in (root / "ham").rglob("*") if p.is_file())
    rng.shuffle(spam)
    rng.shuffle(ham)
    n = args.train
    test = spam[n:n + args.messages // 2] + ham[n:n + args.messages - args.messages // 2]
    with tempfile.TemporaryDirectory(prefix="tnblat") as work:
        model, bogo = _train_both(spam[:n], ham[:n], work)
        res = measure_latency(model, test, bogo)
    print(f"{res['n']} messages from {root}, whole processes, interleaved (median seconds per message):")
    for name, sec in res["median_s"].items():
        print(f"  {name:15s} {sec * 1000:8.1f} ms")
    for name, r in res["ratios"].items():
        print(f"  {name:27s} {r:6.2f}x")
    print(f"  1-minute load average at the end: {res['load_average']:.1f} ({os.cpu_count()} CPUs)")


if __name__ == "__main__":
    main()
