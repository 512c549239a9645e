#!/usr/bin/env python3
"""Load test of ``textnb serve`` on loopback: many concurrent clients, mixed and malformed
requests, every answer checked against the cold command's, the daemon's peak memory.

The daemon runs in its own process (:func:`textnb.apps.serve.run`, as ``textnb serve``
does) on a Unix socket (textnb's protocol), an HTTP port and a spamd port, all on
127.0.0.1 or in a private temporary folder. ``--clients`` threads each send
``--requests`` requests, drawn at random (seeded) from:

* ``SPAM``: a message through :func:`textnb.apps.spamclient.classify_message`; the exit
  code, label, score and log-odds and the ``-p`` output must equal the cold
  ``spamfilter -m MODEL -p``'s (computed in this process beforehand);
* ``CHECK`` / ``PROCESS`` over spamd: the ``Spam:`` line and the processed message must
  equal those of the cold verdict;
* ``POST /classify`` with ``"mail": true``: the verdict fields must equal the cold ones;
* malformed: a garbage line, a header without a colon, a Content-length over the
  limit, a spamd request cut short, a JSON body with too many strings, a connection
  opened and closed without a word: each must get its error answer (or none) and the
  daemon must go on.

Messages come in mixed sizes: short, a few kB, up to ``--big`` bytes of text, and
hostile ones (many distinct tokens that no model knows). The daemon's peak resident
memory (``VmHWM``) and CPU time (user+sys) are read from ``/proc`` at the end.

    python scripts/serve_load.py                 # 50 clients x 100 requests
    python scripts/serve_load.py --clients 5 --requests 20 --json
"""

import argparse
import http.client
import io
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from textnb.apps.spamclient import classify_message  # noqa: E402

__all__ = ["run_load"]

SPAM_WORDS = "viagra cheap offer winner prize casino pills discount bonus credit loan free".split()
HAM_WORDS = "meeting project schedule report review agenda budget minutes team draft lunch notes".split()

_DAEMON = r"""
import sys
from textnb.apps.serve import Server, run
model, sock, max_request = sys.argv[1], sys.argv[2], int(sys.argv[3])
def ready(s):
    print(s.http_address[1], s.spamd_address[1], flush=True)
run(Server(model, socket_path=sock, http=("127.0.0.1", 0), spamd=("127.0.0.1", 0), max_request=max_request,
           max_clients=64, timeout=30, max_texts=1000), ready=ready)
"""


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def _message(rng, words, n_words, hostile=0):
    body = [rng.choice(words) for _ in range(n_words)]
    body += [f"z{rng.getrandbits(48):x}" for _ in range(hostile)]
    rng.shuffle(body)
    lines = [" ".join(body[i:i + 12]) for i in range(0, len(body), 12)]
    subject = " ".join(rng.choice(words) for _ in range(4))
    return (f"From: someone{rng.randrange(1000)}@example.com\nSubject: {subject}\n\n" + "\n".join(lines)
            + "\n").encode()


def build_model(folder, seed=0):
    """A spam model trained on synthetic mail (the served and the cold model)."""
    from textnb.apps.filtering import train_model

    rng = random.Random(seed)
    folder = Path(folder)
    for label, words, other in (("spam", SPAM_WORDS, HAM_WORDS), ("ham", HAM_WORDS, SPAM_WORDS)):
        (folder / label).mkdir(parents=True, exist_ok=True)
        for i in range(200):
            mix = words * 4 + other
            (folder / label / f"{i}.eml").write_bytes(_message(rng, mix, rng.randrange(5, 60)))
    model = folder / "spam.tnb"
    train_model(model, [folder / "spam"], [folder / "ham"])
    return model


def build_messages(rng, big):
    msgs = []
    for words in (SPAM_WORDS, HAM_WORDS, SPAM_WORDS + HAM_WORDS):
        for n in (3, 40, 400):
            msgs.append(_message(rng, words, n))
    for n in (big // 8, big // 6):
        msgs.append(_message(rng, SPAM_WORDS + HAM_WORDS, n))  # ~big bytes of text
    msgs.append(_message(rng, HAM_WORDS, 50, hostile=20000))  # many tokens no model knows
    msgs.append(_message(rng, SPAM_WORDS, 50, hostile=5000).replace(b"\n", b"\r\n"))
    return msgs


def cold_answers(model, msgs):
    """For each message: (exit code, the -p output, verdict) of the cold command."""
    from textnb.apps.verdict import message_verdict
    from textnb.cli.mailfilters import filter_main
    from textnb.core.model_io import load

    loaded = load(model)
    out = []
    for m in msgs:
        buf, err = io.BytesIO(), io.StringIO()
        code = filter_main(["-m", str(model), "-p"], stdin=io.BytesIO(m), stdout=buf, stderr=err)
        out.append((code, buf.getvalue(), message_verdict(loaded, m)))
    return out


def _raw(address, data, family=socket.AF_INET, timeout=60):
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        s.connect(address)
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
        chunks = []
        while True:
            c = s.recv(1 << 16)
            if not c:
                return b"".join(chunks)
            chunks.append(c)


def _spamd_request(method, msg):
    return f"{method} SPAMC/1.5\r\nUser: load\r\nContent-length: {len(msg)}\r\n\r\n".encode() + msg


def _check_one(kind, i, msgs, want, ports, sock, max_request):
    """One request of ``kind``; returns None when the answer is the expected one, else why not."""
    http_port, spamd_port = ports
    m = msgs[i]
    code, cold_out, v = want[i]
    from textnb.apps.verdict import spamd_fields

    if kind == "native":
        got = classify_message(sock, m, headers=True)
        expect = (code, v.label, v.score, v.log_odds, cold_out)
        return None if got == expect else f"native {i}: {got[:4]} != {expect[:4]}"
    if kind in ("check", "process"):
        out = _raw(("127.0.0.1", spamd_port), _spamd_request(kind.upper(), m))
        is_spam, score, threshold = spamd_fields(v)
        line = f"Spam: {'True' if is_spam else 'False'} ; {score} / {threshold}".encode()
        if kind == "check":
            expect = b"SPAMD/1.1 0 EX_OK\r\n" + line + b"\r\n\r\n"
        else:
            expect = (f"SPAMD/1.1 0 EX_OK\r\nContent-length: {len(cold_out)}\r\n".encode() + line + b"\r\n\r\n"
                      + cold_out)
        return None if out == expect else f"{kind} {i}: {out[:120]!r}"
    if kind == "http":
        conn = http.client.HTTPConnection("127.0.0.1", http_port, timeout=60)
        try:
            conn.request("POST", "/classify", body=json.dumps({"texts": [m.decode("latin-1")], "mail": True}))
            r = conn.getresponse()
            body = json.loads(r.read())
        finally:
            conn.close()
        if r.status != 200:
            return f"http {i}: status {r.status} {body}"
        # the message went as latin-1 text, i.e. UTF-8 bytes on the daemon's side: same words here
        got = body["verdicts"][0]["label"]
        return None if got == v.label or m != m.decode("latin-1").encode() else f"http {i}: {got} != {v.label}"
    # malformed requests: the right error, never a dead daemon
    if kind == "garbage":
        out = _raw(("127.0.0.1", spamd_port), b"HELLO\r\n\r\n")
        return None if out.startswith(b"SPAMD/1.0 76 ") else f"garbage: {out[:80]!r}"
    if kind == "badheader":
        out = _raw(("127.0.0.1", spamd_port), b"CHECK SPAMC/1.5\r\nno colon\r\n\r\n")
        return None if out.startswith(b"SPAMD/1.0 76 ") else f"badheader: {out[:80]!r}"
    if kind == "oversize":
        out = _raw(("127.0.0.1", spamd_port), f"CHECK SPAMC/1.5\r\nContent-length: {max_request + 1}\r\n\r\n".encode())
        return None if out.startswith(b"SPAMD/1.0 65 ") else f"oversize: {out[:80]!r}"
    if kind == "short":
        out = _raw(("127.0.0.1", spamd_port), _spamd_request("CHECK", m)[:-5])
        return None if out.startswith(b"SPAMD/1.0 76 ") else f"short: {out[:80]!r}"
    if kind == "native_bad":
        out = _raw(sock, b"SPAM twelve\n", family=socket.AF_UNIX)
        return None if out.startswith(b"ERR ") else f"native_bad: {out[:80]!r}"
    if kind == "many_strings":
        conn = http.client.HTTPConnection("127.0.0.1", http_port, timeout=60)
        try:
            conn.request("POST", "/classify", body=json.dumps({"texts": ["a"] * 5000}))
            r = conn.getresponse()
            r.read()
        finally:
            conn.close()
        return None if r.status == 400 else f"many_strings: status {r.status}"
    if kind == "silent":
        with socket.create_connection(("127.0.0.1", spamd_port), timeout=60):
            pass
        return None
    raise ValueError(kind)


_KINDS = ["native"] * 5 + ["check"] * 4 + ["process"] * 3 + ["http"] * 2 + \
    ["garbage", "badheader", "oversize", "short", "native_bad", "many_strings", "silent"]


def _proc_stats(pid):
    status = Path(f"/proc/{pid}/status").read_text()
    hwm = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:"))
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return hwm * 1024, (int(fields[11]) + int(fields[12])) / tick


def run_load(clients=50, requests=100, big=1 << 20, seed=0, workdir=None):
    """Run the load test; returns a dict of figures (``mismatches`` lists what went wrong)."""
    own = workdir is None
    workdir = Path(tempfile.mkdtemp(prefix="tnbload") if own else workdir)
    rng = random.Random(seed)
    model = build_model(workdir / "train", seed)
    msgs = build_messages(rng, big)
    want = cold_answers(model, msgs)
    sock = str(workdir / "s")
    max_request = 4 * big
    proc = subprocess.Popen([sys.executable, "-c", _DAEMON, str(model), sock, str(max_request)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env())
    try:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the daemon did not start: {proc.stderr.read()[-500:]}")
        ports = tuple(int(x) for x in line.split())
        _, cpu_before = _proc_stats(proc.pid)
        mismatches, counts, lock = [], {}, threading.Lock()
        plans = [[(rng.choice(_KINDS), rng.randrange(len(msgs))) for _ in range(requests)] for _ in range(clients)]

        def client(plan):
            for kind, i in plan:
                try:
                    why = _check_one(kind, i, msgs, want, ports, sock, max_request)
                except Exception as exc:  # noqa: BLE001 - every failure is a finding
                    why = f"{kind} {i}: {type(exc).__name__}: {exc}"
                with lock:
                    counts[kind] = counts.get(kind, 0) + 1
                    if why is not None:
                        mismatches.append(why)

        t0 = time.monotonic()
        threads = [threading.Thread(target=client, args=(p,)) for p in plans]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.monotonic() - t0
        alive = proc.poll() is None
        peak_rss, cpu_after = _proc_stats(proc.pid) if alive else (None, None)
        proc.terminate()
        code = proc.wait(timeout=30)
        err = proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if own:
            import shutil

            shutil.rmtree(workdir, ignore_errors=True)
    return {"clients": clients, "requests_per_client": requests, "requests": sum(counts.values()),
            "by_kind": dict(sorted(counts.items())), "messages": len(msgs), "largest_message": max(map(len, msgs)),
            "mismatches": mismatches, "daemon_alive": alive, "exit_code": code,
            "traceback": "Traceback" in err, "socket_removed": not os.path.lexists(sock),
            "peak_rss_mib": None if peak_rss is None else round(peak_rss / 2**20, 1),
            "daemon_cpu_s": None if cpu_after is None else round(cpu_after - cpu_before, 2), "wall_s": round(wall, 2)}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--clients", type=int, default=50)
    p.add_argument("--requests", type=int, default=100)
    p.add_argument("--big", type=int, default=1 << 20, help="size of the largest messages (bytes)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    r = run_load(args.clients, args.requests, args.big, args.seed)
    if args.json:
        print(json.dumps(r, indent=1))
    else:
        for k, v in r.items():
            if k != "mismatches":
                print(f"{k}: {v}")
        print(f"mismatches: {len(r['mismatches'])}")
        for m in r["mismatches"][:20]:
            print("  " + m)
    return 0 if not r["mismatches"] and r["daemon_alive"] and r["exit_code"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
