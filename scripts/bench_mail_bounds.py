#!/usr/bin/env python3
"""Hostile mail against the one mail reader (``textnb.io.mailtokens``), on every path that
reads mail: the tokenizer in-process, ``spamfilter --batch`` and the daemon (``textnb
serve`` + ``spamfilter --socket``), whole processes for the last two (issues 18 and 30.1).

Each hostile shape is set against its peer measured in the same run: an ordinary message
of the same size (a SpamAssassin ham message whose body is repeated up to that size). The
figure is the ratio of times (hostile / ordinary, wall and CPU time of the process); a
linear reader keeps it a small constant, a quadratic step makes it grow with the size.

Run: ``python scripts/bench_mail_bounds.py [--corpus /work/corpora/spamassassin] [--paths
tokenizer,batch,daemon]`` (a few minutes). Prints a Markdown table for docs/spam.md.
"""

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from textnb.io.mailtokens import message_text, message_tokens  # noqa: E402

MB = 1_000_000

SHAPES = {
    "HTML of `<` (1 MB)": lambda: b"Subject: x\nContent-Type: text/html\n\n" + b"<" * MB,
    "HTML of `<script>` (1 MB)": lambda: b"Subject: x\nContent-Type: text/html\n\n" + b"<script>" * (MB // 8),
    "HTML of `<a ` (1 MB)": lambda: b"Subject: x\nContent-Type: text/html\n\n<html><body>" + b"<a " * (MB // 3),
    "HTML of `<p x=\"` (1 MB), closed": lambda: (
        b"Subject: x\nContent-Type: text/html\n\n" + b'<p x="' * (MB // 6) + b'">'),
    "one header of 2.5 x 10^5 continuation lines": lambda: b"Subject: x\n" + b" w\n" * (MB // 4) + b"\nhello\n",
    "charset=punycode text part (1 MB)": lambda: (
        b"Subject: x\nContent-Type: text/plain; charset=punycode\n\n"
        + bytes(range(97, 123)) * (MB // 52) + b"-" + b"a" * (MB // 2)),
    "charset=idna text part (1 MB)": lambda: (
        b"Subject: x\nContent-Type: text/plain; charset=idna\n\n" + b"ab." * (MB // 3)),
    "10^5 MIME parts": lambda: (
        b"Subject: x\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=BB\n\n"
        + b"--BB\nContent-Type: text/plain\n\nhello\n" * 100_000 + b"--BB--\n"),
    "10^5 Content-Type parameters": lambda: (
        ("Subject: x\nContent-Type: text/plain" + "".join(f"; p{i}=v{i}" for i in range(100_000))
         + "\n\nhello\n").encode()),
    "a Content-Type parameter of 1 MB of letters": lambda: (
        b"Subject: x\nContent-Type: text/plain; " + b"a" * MB + b"\n\nhello\n"),
    "1.5 x 10^5 encoded words": lambda: (
        ("Subject: " + " ".join(["=?utf-8?q?hello?="] * 150_000) + "\n\nhello\n").encode()),
    "10^5 header fields": lambda: b"".join(b"X-H%d: value %d\n" % (i, i) for i in range(100_000)) + b"\nhello\n",
    "1,000 nested multiparts": lambda: (
        b"Subject: x\n" + b"".join(b"Content-Type: multipart/mixed; boundary=B%d\n\n--B%d\n" % (i, i)
                                   for i in range(1000)) + b"Content-Type: text/plain\n\nhello\n"),
    "10^3 nested message/rfc822": lambda: (
        b"Subject: x\n" + b"Content-Type: message/rfc822\n\nSubject: y\n" * 1000 + b"\nhello\n"),
    "10 MB of one-character lines": lambda: b"Subject: x\n\n" + b"a\n" * (5 * MB),
    "one 1 MB word": lambda: b"Subject: x\n\n" + b"w" * MB + b"\n",
    "1 MB of CR line ends": lambda: b"Subject: x\r" + b"a\r" * (MB // 2),
    "1 MB of `From ` lines without a header": lambda: b"From here to there at 10:30\n" * (MB // 28),
}


def ordinary(corpus, size):
    """A SpamAssassin ham message with its body repeated up to ``size`` bytes."""
    path = sorted(Path(corpus, "ham").iterdir())[0]
    data = path.read_bytes()
    head, sep, body = data.partition(b"\n\n")
    body = body or b"an ordinary line of text\n"
    return head + sep + body * max(1, size // len(body))


def cpu_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(argv, data=None, ok=(0, 1, 2)):
    """(wall, CPU) seconds of one whole process."""
    c, t = cpu_children(), time.perf_counter()
    p = subprocess.run(argv, input=data, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall, cpu = time.perf_counter() - t, cpu_children() - c
    if p.returncode not in ok:
        raise RuntimeError(f"{argv[:4]}: exit {p.returncode}: {p.stderr.decode(errors='replace')[-300:]}")
    return wall, cpu


def in_process(func, data):
    t, c = time.perf_counter(), time.process_time()
    func(data, max_bytes=None)
    return time.perf_counter() - t, time.process_time() - c


def train(tmp, corpus):
    from textnb.apps.filtering import train_model

    model = Path(tmp) / "spam.tnb"
    spam = sorted(Path(corpus, "spam").iterdir())[:200]
    ham = sorted(Path(corpus, "ham").iterdir())[:200]
    folders = []
    for name, files in (("spam", spam), ("ham", ham)):
        d = Path(tmp) / name
        d.mkdir()
        for f in files:
            shutil.copy(f, d / f.name)
        folders.append(d)
    train_model(model, [folders[0]], [folders[1]])
    return model


def start_daemon(model, sock):
    proc = subprocess.Popen([sys.executable, "-m", "textnb", "serve", str(model), "--socket", str(sock)],
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    line = proc.stderr.readline()
    if "serving" not in line:
        proc.kill()
        raise RuntimeError(f"textnb serve did not start: {line.strip()}")
    return proc


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default="/work/corpora/spamassassin")
    ap.add_argument("--paths", default="tokenizer,batch,daemon")
    args = ap.parse_args()
    paths = args.paths.split(",")
    tmp = tempfile.mkdtemp(prefix="bench_bounds_")
    spamfilter = [sys.executable, "-S", str(REPO / "scripts" / "spamfilter")]
    daemon = None
    try:
        model = train(tmp, args.corpus) if {"batch", "daemon"} & set(paths) else None
        if "daemon" in paths:
            sock = Path(tmp) / "sock"
            daemon = start_daemon(model, sock)
        cols = []
        if "tokenizer" in paths:
            cols += ["message_tokens", "message_text"]
        cols += [p for p in ("batch", "daemon") if p in paths]
        print("| hostile message | bytes | " + " | ".join(
            f"{c}: s (x ordinary{'' if c == 'daemon' else ', CPU x'})" for c in cols) + " |")
        print("|---|---:|" + "---:|" * len(cols))
        for name, make in SHAPES.items():
            data = make()
            peer = ordinary(args.corpus, len(data))
            row = []
            for col in cols:
                if col in ("message_tokens", "message_text"):
                    func = message_tokens if col == "message_tokens" else message_text
                    h, o = in_process(func, data), in_process(func, peer)
                elif col == "batch":
                    res = []
                    for k, d in enumerate((data, peer)):
                        folder = Path(tmp) / f"batch{k}"
                        shutil.rmtree(folder, ignore_errors=True)
                        folder.mkdir()
                        (folder / "m.eml").write_bytes(d)
                        res.append(run(spamfilter + ["-m", str(model), "--batch", str(folder)]))
                    h, o = res
                else:
                    h = run(spamfilter + ["--socket", str(sock)], data)
                    o = run(spamfilter + ["--socket", str(sock)], peer)
                if col == "daemon":  # the daemon's CPU time is not the client's: wall time only
                    row.append(f"{h[0]:.2f} ({h[0] / o[0]:.2f}x)")
                else:
                    row.append(f"{h[0]:.2f} ({h[0] / o[0]:.2f}x, {h[1] / max(o[1], 1e-3):.2f}x)")
            print(f"| {name} | {len(data):,} | " + " | ".join(row) + " |", flush=True)
        print(f"\nMeasured by `scripts/bench_mail_bounds.py --paths {args.paths}` on {time.strftime('%Y-%m-%d')}; "
              f"1-minute load average {os.getloadavg()[0]:.1f} on the 2-core machine (shared with other jobs). "
              "Peer: an ordinary message of the same size in the same run.")
    finally:
        if daemon is not None:
            daemon.terminate()
            daemon.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
