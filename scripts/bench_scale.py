#!/usr/bin/env python
"""Speed and scale: textnb against scikit-learn on 20 Newsgroups, replicated 1x, 4x, 16x.

Each measurement runs in a fresh process (so its peak memory, max RSS of the process
and of the worker processes it waited for, is its own). Compared in the same run:

* sklearn ``CountVectorizer`` + ``MultinomialNB`` (holds the whole document-term matrix);
* sklearn ``HashingVectorizer(alternate_sign=False)`` + ``MultinomialNB.partial_fit``
  in batches of 2,000 documents (sklearn's streaming recipe);
* textnb ``TextClassifier`` with ``n_jobs`` 1 and 2, and on a Dask ``LocalCluster``
  with 1 and 2 worker processes (each after ``textnb.core.workers.keep_freed_memory()``,
  as the ``textnb`` command line does).

Train = read files + tokenise + count + fit. Predict = tokenise + score the 7,532
test documents (texts already in memory for every contender). Writes
``docs/bench_scale.md`` and ``docs/bench_scale.png``.

    python scripts/bench_scale.py [--shared ../shared] [--scales 1 4 16]
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


CONFIGS = ["sklearn-count", "sklearn-hashing", "textnb-jobs-1", "textnb-jobs-2", "textnb-dask-1", "textnb-dask-2"]


class _nothing:
    """A context of no temporary folder (``--rows``)."""

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def peak_mb():
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, kids) / 1024


def measure(config, corpus_root, scale):
    from textnb import open_corpus
    from textnb.io.corpus import read_document

    corpus = open_corpus(corpus_root)
    docs = list(corpus.documents) * scale
    labels = np.array(list(corpus.labels) * scale)
    test_texts = [read_document(p) for p in corpus.test.documents]
    y_test = np.array(corpus.test.labels)
    result = {"config": config, "scale": scale, "n_train": len(docs)}
    # imports first, outside the timings (they cost about a second on either side)
    from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer
    from sklearn.naive_bayes import MultinomialNB

    from textnb import TextClassifier
    from textnb.text.distributed import connect
    from textnb.core.workers import keep_freed_memory

    start = time.perf_counter()
    if config == "sklearn-count":
        vec = CountVectorizer(decode_error="replace", input="filename")
        model = MultinomialNB().fit(vec.fit_transform([str(p) for p in docs]), labels)
        fit = time.perf_counter() - start
        start = time.perf_counter()
        pred = model.predict(CountVectorizer(vocabulary=vec.vocabulary_).transform(test_texts))
    elif config == "sklearn-hashing":
        vec = HashingVectorizer(alternate_sign=False, decode_error="replace", input="filename")
        model = MultinomialNB()
        classes = np.unique(labels)
        for i in range(0, len(docs), 2000):
            model.partial_fit(vec.transform([str(p) for p in docs[i:i + 2000]]), labels[i:i + 2000],
                              classes=classes)
        fit = time.perf_counter() - start
        start = time.perf_counter()
        pred = model.predict(HashingVectorizer(alternate_sign=False).transform(test_texts))
    else:
        keep_freed_memory()  # as the textnb command line does
        kind, n = config.rsplit("-", 1)
        clf = TextClassifier(n_jobs=int(n) if kind == "textnb-jobs" else 1)
        if kind == "textnb-dask":
            with connect(f"local:{n}") as client:
                started = time.perf_counter()  # cluster start-up is not training time
                clf.fit(docs, labels, client=client)
                fit = time.perf_counter() - started
                result["cluster_start_seconds"] = started - start
        else:
            clf.fit(docs, labels)
            fit = time.perf_counter() - start
        start = time.perf_counter()
        pred = clf.predict(test_texts)
        result["vocabulary"] = len(clf.vectorizer_.vocabulary_)
    result["predict_seconds"] = time.perf_counter() - start
    result["train_seconds"] = fit
    result["accuracy"] = float(np.mean(pred == y_test))
    result["peak_mb"] = peak_mb()
    return result


def extract(shared, tmp):
    archive = Path(shared) / "corpora" / "20news-bydate.tar.gz"
    with tarfile.open(archive) as tar:
        tar.extractall(tmp, filter="data")
    # write the extracted files out and read them once, so that the first rows do not
    # pay for the disk writing the extraction left behind
    os.sync()
    for path in Path(tmp).rglob("*"):
        if path.is_file():
            path.read_bytes()
    return Path(tmp) / "20news-bydate"


def plot(rows, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.2))
    for config in sorted({r["config"] for r in rows}):
        pts = sorted((r["scale"], r["train_seconds"], r["peak_mb"]) for r in rows if r["config"] == config)
        if len(pts) < 2:
            continue
        x = [p[0] * 11314 for p in pts]
        a1.plot(x, [p[1] for p in pts], marker="o", label=config)
        a2.plot(x, [p[2] for p in pts], marker="o", label=config)
    for ax, title in ((a1, "train seconds"), (a2, "peak memory (MB)")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("training documents (20 Newsgroups replicated)")
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
    a1.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", default=str(ROOT.parent / "shared"))
    ap.add_argument("--scales", type=int, nargs="+", default=[1, 4, 16])
    ap.add_argument("--one", nargs=3, help=argparse.SUPPRESS)
    ap.add_argument("--configs", nargs="+", default=CONFIGS, choices=CONFIGS,
                    help="the configurations to run (default: all)")
    ap.add_argument("--rows", metavar="FILE",
                    help="write the report and plot from the rows (JSON lines, as printed on stderr) of runs "
                         "made at the same time, instead of measuring")
    args = ap.parse_args()
    if args.one:
        config, root, scale = args.one
        print(json.dumps(measure(config, root, int(scale))))
        return 0
    configs = args.configs
    rows = []
    if args.rows:
        rows = [json.loads(line) for line in Path(args.rows).read_text().splitlines() if line.strip()]
        rows.sort(key=lambda r: (r["scale"], CONFIGS.index(r["config"])))
        configs = [c for c in CONFIGS if any(r["config"] == c for r in rows)]
    with (tempfile.TemporaryDirectory() if not args.rows else _nothing()) as tmp:
        root = extract(args.shared, tmp) if not args.rows else None
        for scale in args.scales if not args.rows else []:
            for config in configs:
                proc = subprocess.run([sys.executable, __file__, "--one", config, str(root), str(scale)],
                                      capture_output=True, text=True)
                if proc.returncode != 0:
                    print(proc.stderr[-2000:], file=sys.stderr)
                    continue
                rows.append(json.loads(proc.stdout.strip().splitlines()[-1]))
                print(json.dumps(rows[-1]), file=sys.stderr)
    ref = {r["scale"]: r for r in rows if r["config"] == "sklearn-count"}
    lines = [
        "# Speed and scale: textnb vs scikit-learn",
        "",
        f"Measured by `scripts/bench_scale.py` on {time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, "
        "each row in a fresh process. Train = read + tokenise + count + fit on 20 Newsgroups bydate "
        "train (11,314 documents) replicated k times; predict = the 7,532 test documents. "
        "textnb rows: `TextClassifier()` with its default model (DiscriminativeNB, calibrated). "
        "Ratios: sklearn CountVectorizer + MultinomialNB time / this row's time, same scale, same run. "
        f"Configurations run: {', '.join(configs)}; load average {os.getloadavg()[0]:.1f} at the end of the run "
        "(on a loaded machine the seconds are inflated and noisy; the peak memory is not).",
        "",
        "| scale | configuration | train (s) | train speed-up | predict (s) | predict speed-up | docs/s predicted "
        "| peak memory (MB) | test accuracy |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        base = ref.get(r["scale"])
        tr = f"{base['train_seconds'] / r['train_seconds']:.2f}x" if base else ""
        pr = f"{base['predict_seconds'] / r['predict_seconds']:.2f}x" if base else ""
        lines.append(
            f"| {r['scale']}x | {r['config']} | {r['train_seconds']:.2f} | {tr} | {r['predict_seconds']:.2f} | {pr} "
            f"| {7532 / r['predict_seconds']:.0f} | {r['peak_mb']:.0f} | {r['accuracy']:.4f} |")
    out = ROOT / "docs" / "bench_scale.md"
    png = ROOT / "docs" / "bench_scale.png"
    # a curve needs two scales of one configuration (one scale drew empty axes: found by a user trial); without
    # them the picture of an earlier run is left as it is and not shown beside these rows
    curves = any(len({r["scale"] for r in rows if r["config"] == c}) > 1 for c in configs)
    if curves:
        plot(rows, png)
    else:
        print("bench_scale.py: one scale: no curve to draw, docs/bench_scale.png left as it was", file=sys.stderr)
    lines += ["", "![train seconds and peak memory against corpus size](bench_scale.png)" if curves
              else "(One scale measured: no scaling curve drawn.)", "",
              "textnb's default model (DiscriminativeNB) re-scores its training documents in its passes, so "
              "while it streams it keeps their rows, at most 1.5 x `max_nnz` (3 million) document-term cells "
              "of them (8 bytes each); beyond `max_nnz` the passes run over a content-keyed sample of that "
              "size and the other documents only add their sums. 20 Newsgroups x1 (1.8 million cells) fits; "
              "x4 and x16 do not. In a replicated corpus the copies of a document share a content key, so "
              "the sample holds whole sets of copies: about 40 % (x4) or 10 % (x16) of the distinct documents "
              "get the passes, which is why the default's accuracy at x4 and x16 is below x1's (a corpus "
              "without copies samples distinct documents).", ""]
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {out}" + (f" and {png}" if curves else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
