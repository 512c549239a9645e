#!/usr/bin/env python3
"""Per-message latency of the mail filter, whole processes, interleaved in one run.

For each message, in turn (so that load on the machine hits every contender alike):

* ``daemon``: the compiled ``spamfilter --socket S`` (textnb/apps/spamclient.c, built here
  as ``pip install .`` builds it) against ``textnb serve MODEL``: what a mail system runs
  per message once textnb is installed with a C compiler at hand;
* ``daemon_python``: the Python client, ``python -S scripts/spamfilter --socket S`` (what the
  checkout script's ``#!/usr/bin/env -S python3 -S`` line runs);
* ``daemon_site``: the same Python client with the site module on (what the console script
  runs that ``pip install .`` writes when no C compiler works: it pays for the
  site-packages scan, .pth files included);
* ``spamd_spamc``: Debian's ``spamc -c -x`` against the same daemon's spamd listener
  (``textnb serve --spamd``): what a mail server that speaks to spamd pays per message
  (left out without ``spamc``);
* ``spamc_floor``: the same ``spamc -c`` against a port nobody listens on (its own
  start-up and a refused connection: the floor of any spamd daemon reached with spamc);
* ``bogofilter``: ``bogofilter -d DIR`` (its verdict as the exit status);
* ``cold``: ``python -S scripts/spamfilter --model MODEL`` (loads the model every time;
  ``-S`` as the script's ``#!`` line runs it);
* ``cold_site``: the same with the site module on (the pip console script);
* ``cold_compiled``: the compiled ``spamfilter --model MODEL``, which hands the cold path to
  the Python command (here the checkout's ``python -S scripts/spamfilter``): the launcher's
  own cost on the cold path;
* ``sklearn_import``: ``python -c "import sklearn.naive_bayes"`` (the floor of any path
  that imports scikit-learn);
* ``python_floor``: ``python -S -c pass`` (the floor of any Python client: interpreter
  start-up alone).

Without a working C compiler the two compiled contenders are left out (``daemon`` is
then None). :func:`measure_latency` returns the median wall seconds per message, the
mean CPU seconds (user+sys of the process, plus the daemon's for its clients) and the
ratios; the ``__main__`` prints them. ``scripts/bench_spam.py`` calls it for its table.
"""

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SPAMFILTER = REPO / "scripts" / "spamfilter"
sys.path.insert(0, str(REPO))
from textnb.apps.spamclient_build import ClientBuildError, build_client, checkout_fallback  # noqa: E402

__all__ = ["measure_latency"]


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def _children_cpu():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _daemon_cpu(pid):
    """user+sys seconds of the daemon process so far (from /proc; 0 where there is none)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _time(argv, data, env, ok_codes=(0, 1, 2), daemon_pid=None):
    """``(wall seconds, CPU seconds)`` of one whole process; CPU is user+sys of the process
    and, for a daemon client, of the daemon while it answered (``daemon_pid``)."""
    cpu0, d0 = _children_cpu(), (_daemon_cpu(daemon_pid) if daemon_pid else 0.0)
    start = time.perf_counter()
    r = subprocess.run(argv, input=data, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    elapsed = time.perf_counter() - start
    cpu = _children_cpu() - cpu0 + ((_daemon_cpu(daemon_pid) - d0) if daemon_pid else 0.0)
    if r.returncode not in ok_codes:
        raise RuntimeError(f"{argv[:3]}...: exit {r.returncode}: {r.stderr.decode(errors='replace')[-300:]}")
    return elapsed, cpu


def _closed_port():
    """A loopback TCP port nobody listens on (bound, then released)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start_daemon(model_path, sock, env):
    """``textnb serve MODEL --socket SOCK --spamd 127.0.0.1:0``; returns (process, spamd port)."""
    proc = subprocess.Popen([sys.executable, "-m", "textnb", "serve", str(model_path), "--socket", str(sock),
                             "--spamd", "127.0.0.1:0"], stderr=subprocess.PIPE, text=True, env=env)
    line = proc.stderr.readline()
    if "serving" not in line:
        proc.kill()
        proc.wait()
        raise RuntimeError(f"textnb serve did not start: {line.strip()}")
    port = int(line.split("spamd://127.0.0.1:", 1)[1].split()[0].rstrip(","))
    return proc, port


def measure_latency(model_path, message_paths, bogofilter_dir, *, progress=None):
    """Median whole-process seconds per message for each contender (see the module doc; a
    contender that could not be built is None).

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
        ``daemon_vs_bogofilter`` (the compiled client), ``daemon_python_vs_bogofilter``,
        ``daemon_site_vs_bogofilter``, ``cold_vs_sklearn_import``, ``cold_site_vs_sklearn_import``,
        ``cold_compiled_vs_sklearn_import``, ``python_floor_vs_bogofilter``; ``compiled_client``
        (None, or why it could not be built); and ``load_average`` (1 minute, at the end).
    """
    env = _env()
    messages = [Path(p).read_bytes() for p in message_paths]
    with tempfile.TemporaryDirectory(prefix="tnbl") as tmp:
        sock = Path(tmp) / "s"
        try:
            client, why = build_client(Path(tmp) / "spamfilter", fallback=checkout_fallback(REPO)), None
        except ClientBuildError as exc:
            client, why = None, str(exc).splitlines()[0]
        daemon, spamd_port = _start_daemon(model_path, sock, env)
        spamc = shutil.which("spamc")
        try:
            contenders = {
                "daemon": [str(client), "--socket", str(sock)] if client else None,
                "spamd_spamc": [spamc, "-d", "127.0.0.1", "-p", str(spamd_port), "-c", "-x"] if spamc else None,
                "spamc_floor": [spamc, "-d", "127.0.0.1", "-p", str(_closed_port()), "--connect-retries", "1", "-c"]
                if spamc else None,
                "daemon_python": [sys.executable, "-S", str(SPAMFILTER), "--socket", str(sock)],
                "daemon_site": [sys.executable, str(SPAMFILTER), "--socket", str(sock)],
                "bogofilter": ["bogofilter", "-d", str(bogofilter_dir)],
                "cold": [sys.executable, "-S", str(SPAMFILTER), "--model", str(model_path)],
                "cold_site": [sys.executable, str(SPAMFILTER), "--model", str(model_path)],
                "cold_compiled": [str(client), "--model", str(model_path)] if client else None,
                "sklearn_import": [sys.executable, "-c", "import sklearn.naive_bayes"],
                "python_floor": [sys.executable, "-S", "-c", "pass"],
            }
            names = list(contenders)
            contenders = {name: argv for name, argv in contenders.items() if argv is not None}
            times = {name: [] for name in contenders}
            cpus = {name: [] for name in contenders}
            daemon_cpus = {name: [] for name in contenders}
            for i, data in enumerate(messages):
                for name, argv in contenders.items():
                    bare = name in ("sklearn_import", "python_floor")
                    served = name.startswith(("daemon", "spamd"))
                    d0 = _daemon_cpu(daemon.pid) if served else 0.0
                    wall, cpu = _time(argv, b"" if bare else data, env, (0,) if bare else (0, 1, 2),
                                      daemon_pid=daemon.pid if served else None)
                    times[name].append(wall)
                    cpus[name].append(cpu)
                    daemon_cpus[name].append(_daemon_cpu(daemon.pid) - d0 if served else 0.0)
                if progress is not None:
                    progress(i + 1)
        finally:
            daemon.terminate()
            daemon.wait(timeout=60)
    med = {name: statistics.median(times[name]) if name in times else None for name in names}
    # CPU as a mean: the kernel counts it in clock ticks (the daemon's in 10 ms ticks from
    # /proc), so single samples are 0 or a tick; their mean, unlike their median, is unbiased
    cpu_med = {name: statistics.fmean(cpus[name]) if name in cpus else None for name in names}
    daemon_cpu = {name: statistics.fmean(daemon_cpus[name]) if name in daemon_cpus else None for name in names}

    def ratio(a, b):
        return med[a] / med[b] if med[a] is not None else None

    def cpu_ratio(a, b):
        return cpu_med[a] / cpu_med[b] if cpu_med[a] is not None and cpu_med[b] else None

    return {
        "n": len(messages),
        "median_s": med,
        "mean_cpu_s": cpu_med,
        "mean_daemon_cpu_s": daemon_cpu,
        "cpu_ratios": {
            "daemon_vs_bogofilter": cpu_ratio("daemon", "bogofilter"),
            "spamd_spamc_vs_bogofilter": cpu_ratio("spamd_spamc", "bogofilter"),
            "daemon_python_vs_bogofilter": cpu_ratio("daemon_python", "bogofilter"),
        },
        "ratios": {
            "daemon_vs_bogofilter": ratio("daemon", "bogofilter"),
            "spamd_spamc_vs_bogofilter": ratio("spamd_spamc", "bogofilter"),
            "daemon_python_vs_bogofilter": ratio("daemon_python", "bogofilter"),
            "daemon_site_vs_bogofilter": ratio("daemon_site", "bogofilter"),
            "cold_vs_sklearn_import": ratio("cold", "sklearn_import"),
            "cold_site_vs_sklearn_import": ratio("cold_site", "sklearn_import"),
            "cold_compiled_vs_sklearn_import": ratio("cold_compiled", "sklearn_import"),
            "python_floor_vs_bogofilter": ratio("python_floor", "bogofilter"),
        },
        "compiled_client": why,
        "load_average": os.getloadavg()[0],
    }


def _train_both(spam, ham, workdir):
    """A textnb model and a bogofilter database trained on the same messages."""
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
    print(f"{res['n']} messages from {root}, whole processes, interleaved (median wall, mean CPU per message):")
    if res["compiled_client"]:
        print(f"  (no compiled client: {res['compiled_client']})")
    print(f"  {'':15s} {'wall':>8s}    {'CPU (user+sys; daemon clients: + the daemon)':s}")
    for name, sec in res["median_s"].items():
        cpu, dcpu = res["mean_cpu_s"][name], res["mean_daemon_cpu_s"][name]
        share = f"  (daemon {dcpu * 1000:.1f} ms)" if dcpu else ""
        print(f"  {name:15s} {sec * 1000:8.1f} ms {cpu * 1000:8.1f} ms{share}" if sec is not None
              else f"  {name:15s}        -")
    for name, r in res["ratios"].items():
        print(f"  {name:31s} {r:6.2f}x" if r is not None else f"  {name:31s}      -")
    for name, r in res["cpu_ratios"].items():
        print(f"  CPU {name:27s} {r:6.2f}x" if r is not None else f"  CPU {name:27s}      -")
    print(f"  1-minute load average at the end: {res['load_average']:.1f} ({os.cpu_count()} CPUs)")


if __name__ == "__main__":
    main()
