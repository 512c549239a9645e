#!/usr/bin/env python
"""Benchmark: ``textnb train`` / ``textnb evaluate`` on a 90-label corpus against scikit-learn's
``OneVsRestClassifier(MultinomialNB())`` script, whole processes, in the same run.

The corpus (``make_corpus``; no 90-label corpus is among the shared ones) is synthesised,
seeded, from three single-label corpora whose 90 classes become the labels: the 20
newsgroups of 20 Newsgroups, the 23 disease categories of OHSUMED-23 and the 47 most
frequent fine question classes of TREC QC (``train_5500.label`` + ``TREC_10.label``). Each
document is 1 (60 %), 2 (30 %) or 3 (10 %) source documents drawn without replacement
from the union of the three pools, joined by a blank line; its labels are their classes.
10,000 documents: ``train/`` (7,000) and ``test/`` (3,000) parts and one ``labels.tsv``
listing both (the layout of the issue: the label file covers documents of the other part).

Timed, each in a fresh process, CPU time (user+sys of the process and its children) and
wall-clock seconds, the configurations alternating, ``--repeat`` times (median):

* ``textnb train CORPUS/train --labels labels.tsv`` (the default multi-label model) against
  the scikit-learn script's ``train``: read the files, ``CountVectorizer()``,
  ``OneVsRestClassifier(MultinomialNB())``, save the model (joblib);
* ``textnb evaluate CORPUS --labels labels.tsv`` (trains on train/, tests on test/) against the
  script's ``evaluate``: read, vectorise, fit on train, predict test, micro/macro-F1.

    python scripts/bench_multilabel.py [--corpora /work/corpora] [--work /tmp/bench_multilabel] [--repeat 3]
"""

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

SKLEARN_SCRIPT = r'''
import json, os, sys
import joblib
import numpy as np
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.metrics import f1_score
from sklearn.multiclass import OneVsRestClassifier
from sklearn.naive_bayes import MultinomialNB
from sklearn.preprocessing import MultiLabelBinarizer

mode, root, out = sys.argv[1], sys.argv[2], sys.argv[3]
labels = {}
with open(os.path.join(root, "labels.tsv"), encoding="utf-8") as f:
    for line in f:
        doc, labs = line.rstrip("\n").split("\t")
        labels[doc] = [x for x in labs.split(",") if x]

def part(name):
    folder = os.path.join(root, name)
    ids = sorted(n[:-4] for n in os.listdir(folder))
    texts = []
    for i in ids:
        with open(os.path.join(folder, i + ".txt"), encoding="utf-8", errors="replace") as f:
            texts.append(f.read())
    return texts, [labels[i] for i in ids]

texts, y = part("train")
mlb = MultiLabelBinarizer()
Y = mlb.fit_transform(y)
vec = CountVectorizer()
clf = OneVsRestClassifier(MultinomialNB()).fit(vec.fit_transform(texts), Y)
if mode == "train":
    joblib.dump((vec, mlb, clf), out)
    print(json.dumps({"documents": len(texts), "labels": len(mlb.classes_)}))
else:
    test, yt = part("test")
    P = clf.predict(vec.transform(test))
    T = MultiLabelBinarizer(classes=list(mlb.classes_)).fit_transform(yt)
    print(json.dumps({"micro_f1": f1_score(T, P, average="micro"),
                      "macro_f1": f1_score(T, P, average="macro", zero_division=0)}))
'''


def _docs_20news(root):
    out = []
    for part in ("train", "test"):
        for group in sorted(os.listdir(root / part)):
            for name in sorted(os.listdir(root / part / group)):
                out.append((root / part / group / name, f"news.{group}"))
    return out


def _docs_ohsumed(root):
    out = []
    for part in ("train", "test"):
        for cat in sorted(os.listdir(root / part)):
            for name in sorted(os.listdir(root / part / cat)):
                out.append((root / part / cat / name, f"ohsumed.{cat}"))
    return out


def _questions_trec(root, n_labels):
    rows = []
    for name in ("train_5500.label", "TREC_10.label"):
        with open(root / name, encoding="latin-1") as f:
            for line in f:
                label, text = line.rstrip("\n").split(" ", 1)
                rows.append((text, f"trec.{label.replace(':', '.')}"))
    counts = {}
    for _, lab in rows:
        counts[lab] = counts.get(lab, 0) + 1
    keep = set(sorted(counts, key=lambda k: (-counts[k], k))[:n_labels])
    return [(text, lab) for text, lab in rows if lab in keep]


def _read(src):
    if isinstance(src, Path):
        return src.read_bytes().decode("utf-8", errors="replace")
    return src


def make_corpus(corpora, out, *, n_train=7000, n_test=3000, seed=0):
    """Write the 90-label corpus to ``out`` (train/, test/, labels.tsv); returns its label count."""
    corpora = Path(corpora)
    pool = _docs_20news(corpora / "20news-bydate") + _docs_ohsumed(corpora / "ohsumed_single_23")
    pool += _questions_trec(corpora / "trec_qc", 90 - 20 - 23)
    rng = random.Random(seed)
    rng.shuffle(pool)
    out = Path(out)
    lines, used = [], set()
    it = iter(pool)
    for k in range(n_train + n_test):
        part = "train" if k < n_train else "test"
        n_src = rng.choices((1, 2, 3), weights=(6, 3, 1))[0]
        sources = [next(it) for _ in range(n_src)]
        doc_id = f"d{k:05d}"
        (out / part).mkdir(parents=True, exist_ok=True)
        (out / part / f"{doc_id}.txt").write_text("\n\n".join(_read(s) for s, _ in sources), encoding="utf-8")
        labs = sorted({lab for _, lab in sources})
        used.update(labs)
        lines.append(f"{doc_id}\t{','.join(labs)}\n")
    (out / "labels.tsv").write_text("".join(lines), encoding="utf-8")
    return len(used)


def timed(cmd, cwd):
    """(wall seconds, CPU seconds of the child, stdout) of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"failed: {' '.join(map(str, cmd))}\n{proc.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.stdout


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpora", default="/work/corpora")
    ap.add_argument("--work", default=None, help="folder for the corpus and models (default: a temporary one)")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    work = Path(args.work or tempfile.mkdtemp(prefix="bench_multilabel_"))
    corpus = work / "ml90"
    if not (corpus / "labels.tsv").exists():
        n_labels = make_corpus(args.corpora, corpus)
    else:
        n_labels = len({lab for line in (corpus / "labels.tsv").read_text().splitlines()
                        for lab in line.split("\t")[1].split(",") if lab})
    script = work / "sklearn_ovr_mnb.py"
    script.write_text(SKLEARN_SCRIPT)
    py = sys.executable
    labels = corpus / "labels.tsv"
    cmds = {
        "textnb train": [py, "-m", "textnb", "train", corpus / "train", "--labels", labels, "-o", work / "m.tnb",
                         "--json"],
        "sklearn train": [py, script, "train", corpus, work / "m.joblib"],
        "textnb evaluate": [py, "-m", "textnb", "evaluate", corpus, "--labels", labels, "--json"],
        "sklearn evaluate": [py, script, "evaluate", corpus, "-"],
    }
    times = {k: [] for k in cmds}
    outputs = {}
    for r in range(args.repeat):
        order = list(cmds) if r % 2 == 0 else list(cmds)[::-1]
        for name in order:
            wall, cpu, stdout = timed([str(c) for c in cmds[name]], work)
            times[name].append((wall, cpu))
            outputs[name] = stdout
            print(f"  {name}: {wall:.2f} s wall, {cpu:.2f} s cpu", flush=True)
    med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in times.items()}
    ev = json.loads(outputs["textnb evaluate"])
    sk = json.loads(outputs["sklearn evaluate"])
    print(f"\ncorpus: {corpus} (10,000 documents, {n_labels} labels; load average {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} cores at the end)")
    print("| step | textnb wall s | sklearn wall s | wall ratio (textnb/sklearn) | textnb cpu s | sklearn cpu s | "
          "cpu ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for step in ("train", "evaluate"):
        tw, tc = med[f"textnb {step}"]
        sw, sc = med[f"sklearn {step}"]
        print(f"| {step} | {tw:.2f} | {sw:.2f} | {tw / sw:.2f} | {tc:.2f} | {sc:.2f} | {tc / sc:.2f} |")
    print(f"\ntest part: textnb micro-F1 {ev['micro_f1']:.4f} macro-F1 {ev['macro_f1']:.4f}; "
          f"sklearn OvR(MultinomialNB) micro-F1 {sk['micro_f1']:.4f} macro-F1 {sk['macro_f1']:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
