#!/usr/bin/env python
"""Benchmark: `textnb train` + `textnb test` against fastText on the same fastText files.

Each corpus is written as fastText files (``__label__x text`` lines, white space collapsed;
no other preprocessing for either tool; lines in a random order, as fastText needs): the
bundled SMS Spam Collection (seeded stratified 80/20 split), 20 Newsgroups bydate (its split,
shuffled with seed 0) and GoEmotions (its split; several labels on
a line: textnb's multi-label path, fastText's ``loss="ova"``). Every run is a fresh
subprocess; its CPU time (user + sys, all threads) and wall time include Python's start-up
and imports for both tools. fastText runs with its defaults and with the settings of its
text classification tutorial (``epoch=25, lr=1.0, wordNgrams=2``; ``lr=0.5`` for ova).
N, P@1 and R@1 are each tool's own ``test`` (fastText's ``model.test``); the ratio column is
CPU time against textnb's in the same run.

    python scripts/bench_fasttext.py [--corpora /work/corpora] [--out FILE.md] [--with-20news]

Needs the ``fasttext`` Python package (``pip install fasttext`` or a wheel build such as
``fasttext-numpy2``).
"""

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_SPACE = re.compile(r"\s+")


def _line(labels, text):
    return " ".join(f"__label__{lab}" for lab in labels) + " " + _SPACE.sub(" ", text).strip() + "\n"


def write_sms(out):
    import numpy as np
    from sklearn.model_selection import train_test_split

    rows = [r.split("\t", 1) for r in (ROOT / "corpora/sms_spam/SMSSpamCollection.tsv").read_text(
        encoding="utf-8").splitlines()]
    labels = [r[0] for r in rows]
    tr, te = train_test_split(np.arange(len(rows)), test_size=0.2, random_state=0, stratify=labels)
    for name, idx in (("train", tr), ("test", te)):
        with open(out / f"{name}.txt", "w", encoding="utf-8") as f:
            f.writelines(_line([rows[i][0]], rows[i][1]) for i in idx)
    return "SMS Spam Collection (80/20, seed 0)"


def write_folders(root, out):
    from textnb.io.corpus import open_corpus, read_document

    import numpy as np

    corpus = open_corpus(root)
    rng = np.random.default_rng(0)
    for name, part in (("train", corpus), ("test", corpus.test)):
        # in a seeded random order: fastText's SGD reads the file in order and never
        # shuffles, and a folder corpus lists its documents class by class
        order = rng.permutation(len(part))
        with open(out / f"{name}.txt", "w", encoding="utf-8") as f:
            f.writelines(_line([part.labels[i]], read_document(part.documents[i])) for i in order)
    return "20 Newsgroups bydate"


def write_goemotions(root, out):
    labels = {}
    for row in (root / "labels.tsv").read_text(encoding="utf-8").splitlines():
        doc, _, labs = row.partition("\t")
        labels[doc] = [lab for lab in labs.split(",") if lab]
    for name in ("train", "test"):
        with open(out / f"{name}.txt", "w", encoding="utf-8") as f:
            for path in sorted((root / name).iterdir()):
                labs = labels.get(path.stem)
                if labs:
                    f.write(_line(labs, path.read_text(encoding="utf-8", errors="replace")))
    return "GoEmotions (multi-label, 28 labels)"


TEXTNB = """
import sys
from textnb.cli import main
assert main(["train", sys.argv[1], "-o", sys.argv[3], "--json"], stdout=open("/dev/null", "w")) == 0
import io, json
out = io.StringIO()
assert main(["test", sys.argv[3], sys.argv[2], "--json"], stdout=out) == 0
r = json.loads(out.getvalue())
print(json.dumps([r["n"], r["precision"], r["recall"]]))
"""

FASTTEXT = """
import json, sys
import fasttext
kw = json.loads(sys.argv[3])
model = fasttext.train_supervised(sys.argv[1], verbose=0, **kw)
print(json.dumps(list(model.test(sys.argv[2]))))
"""


def measure(code, args, env):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True, env=env,
                       check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        raise RuntimeError(r.stderr[-2000:])
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    n, p, rec = json.loads(r.stdout.strip().splitlines()[-1])
    return {"n": n, "p": p, "r": rec, "cpu": cpu, "wall": wall}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpora", default="/work/corpora", help="the unpacked shared corpora")
    ap.add_argument("--out", help="write the markdown table here")
    ap.add_argument("--with-20news", action="store_true",
                    help="also 20 Newsgroups (the fasttext 0.10.4 wheel measured here underfits it: P@1 0.11 "
                         "with its defaults, 0.22 on its own training set after 10 epochs; see docs/fasttext.md)")
    args = ap.parse_args()
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    corpora = Path(args.corpora)
    rows, load = [], []
    with tempfile.TemporaryDirectory(prefix="bench_ft") as tmp:
        sets = [("sms", lambda d: write_sms(d), False)]
        if args.with_20news and (corpora / "20news-bydate").is_dir():
            sets.append(("20news", lambda d: write_folders(corpora / "20news-bydate", d), False))
        if (corpora / "goemotions").is_dir():
            sets.append(("goemotions", lambda d: write_goemotions(corpora / "goemotions", d), True))
        for key, writer, multi in sets:
            d = Path(tmp) / key
            d.mkdir()
            title = writer(d)
            train, test = d / "train.txt", d / "test.txt"
            load.append(os.getloadavg()[0])
            results = {"textnb (default model)": measure(TEXTNB, [train, test, d / "m.tnb"], env)}
            base = {"loss": "ova"} if multi else {}
            tuned = dict(base, epoch=25, lr=0.5 if multi else 1.0, wordNgrams=2)
            results["fastText defaults" + (" (ova)" if multi else "")] = measure(FASTTEXT, [train, test, json.dumps(base)],
                                                                                  env)
            results["fastText tutorial settings"] = measure(FASTTEXT, [train, test, json.dumps(tuned)], env)
            load.append(os.getloadavg()[0])
            ref = results["textnb (default model)"]["cpu"]
            for name, m in results.items():
                rows.append(f"| {title} | {name} | {m['n']} | {m['p']:.3f} | {m['r']:.3f} | {m['cpu']:.1f} | "
                            f"{m['cpu'] / ref:.2f} | {m['wall']:.1f} |")
            print("\n".join(rows[-len(results):]), flush=True)
    import fasttext  # noqa: F401 (its version for the record)

    try:
        from importlib.metadata import version

        ft_version = next(v for v in (_version(version, n) for n in ("fasttext", "fasttext-numpy2",
                                                                        "fasttext-wheel")) if v)
    except StopIteration:
        ft_version = "?"
    header = (f"Measured by `python scripts/bench_fasttext.py` on {time.strftime('%Y-%m-%d')} (Python "
              f"{sys.version.split()[0]}, fasttext {ft_version}, {os.cpu_count()} cores; 1-minute load average "
              f"{min(load):.1f}-{max(load):.1f}: the machine was shared, so the CPU times are what to read)."
              "\n\n| corpus | run | N | P@1 | R@1 | CPU s | CPU vs textnb | wall s |\n|---|---|---|---|---|---|---|---|\n")
    table = header + "\n".join(rows) + "\n"
    print(table)
    if args.out:
        Path(args.out).write_text(table, encoding="utf-8")


def _version(version, name):
    try:
        return version(name)
    except Exception:
        return None


if __name__ == "__main__":
    main()
