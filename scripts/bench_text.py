#!/usr/bin/env python
"""Benchmark: textnb against scikit-learn naive Bayes on 20 Newsgroups bydate (and SMS).

Every configuration runs in a fresh subprocess, so its peak memory (max RSS) is its
own: reading the files, vectorizing, fitting and predicting. Timings are wall-clock
seconds on this machine, in the same run, so the ratios are what to read.

    python scripts/bench_text.py [--shared ../shared] [--out docs/bench_text.md]
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

CONFIGS = ["textnb-default", "textnb-multinomial", "textnb-multinomial-1job", "textnb-multinomial-malloc-default",
           "textnb-bernoulli",
           "sklearn-multinomial", "sklearn-bernoulli", "sklearn-complement"]


def run_one(config, root):
    from sklearn.metrics import f1_score

    from textnb import open_corpus
    from textnb.io.corpus import read_document

    corpus = open_corpus(root)
    if corpus.test is None:  # no official split: a seeded stratified 80/20 split
        from sklearn.model_selection import train_test_split

        idx = np.arange(len(corpus))
        tr, te = train_test_split(idx, test_size=0.2, random_state=0, stratify=corpus.labels)
        docs, labels = np.array(corpus.documents, dtype=object), np.array(corpus.labels)
        train_docs, y_train = list(docs[tr]), labels[tr]
        test_docs, y_test = list(docs[te]), labels[te]
    else:
        train_docs, y_train = corpus.documents, np.array(corpus.labels)
        test_docs, y_test = corpus.test.documents, np.array(corpus.test.labels)

    def text(d):
        return d if isinstance(d, str) else read_document(d)

    start = time.perf_counter()
    if config.startswith("textnb"):
        from textnb import BernoulliNB, MultinomialNB, TextClassifier
        from textnb.core.workers import keep_freed_memory

        if not config.endswith("malloc-default"):
            keep_freed_memory()  # as the textnb command line does
        # textnb-default: TextClassifier()'s own model (DiscriminativeNB), as `textnb train` without options
        model = None if config == "textnb-default" else BernoulliNB() if "bernoulli" in config else MultinomialNB()
        clf = TextClassifier(model=model, n_jobs=1 if config.endswith("1job") else -1)
        clf.fit(train_docs, y_train)
        fit_s = time.perf_counter() - start
        start = time.perf_counter()
        pred = clf.predict(test_docs)  # paths or str, as `textnb predict` streams them
    else:
        from sklearn.feature_extraction.text import CountVectorizer
        from sklearn.naive_bayes import BernoulliNB, ComplementNB, MultinomialNB

        model = {"multinomial": MultinomialNB, "bernoulli": BernoulliNB,
                 "complement": ComplementNB}[config.split("-")[1]]()
        vec = CountVectorizer()
        X = vec.fit_transform([text(d) for d in train_docs])
        model.fit(X, y_train)
        fit_s = time.perf_counter() - start
        start = time.perf_counter()
        pred = model.predict(vec.transform([text(d) for d in test_docs]))
    predict_s = time.perf_counter() - start
    peak = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
               resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    return {
        "config": config,
        "accuracy": float(np.mean(pred == y_test)),
        "macro_f1": float(f1_score(y_test, pred, average="macro")),
        "fit_seconds": fit_s,
        "predict_seconds": predict_s,
        "n_train": len(train_docs),
        "n_test": len(test_docs),
        "peak_mb": peak / 1024,
    }


def extract(shared, name, tmp):
    archive = Path(shared) / "corpora" / f"{name}.tar.gz"
    if not archive.exists():
        return None
    with tarfile.open(archive) as tar:
        tar.extractall(tmp, filter="data")
    return next(p for p in Path(tmp).iterdir() if p.is_dir() and p.name.startswith(name[:6]))


def table(rows, title):
    base = {r["config"]: r for r in rows}
    ref = base["sklearn-multinomial"]
    lines = [f"### {title}", "",
             "| configuration | accuracy | macro-F1 | vectorize + fit (s) | predict (s) | peak memory (MB) "
             "| fit speed vs sklearn MNB | predict speed vs sklearn MNB |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(
            f"| {r['config']} | {r['accuracy']:.4f} | {r['macro_f1']:.4f} | {r['fit_seconds']:.2f} | "
            f"{r['predict_seconds']:.2f} | {r['peak_mb']:.0f} | {ref['fit_seconds'] / r['fit_seconds']:.2f}x | "
            f"{ref['predict_seconds'] / r['predict_seconds']:.2f}x |")
    return "\n".join(lines)


def spread(rows):
    """The range of the repeated timings, so the noise is visible beside the medians."""
    return "Range over the runs (min-max), vectorize + fit / predict seconds: " + "; ".join(
        f"{r['config']} {r['fit_seconds_range'][0]:.2f}-{r['fit_seconds_range'][1]:.2f} / "
        f"{r['predict_seconds_range'][0]:.2f}-{r['predict_seconds_range'][1]:.2f}" for r in rows) + "."


# -- whole processes: what a user waits for, start-up included ------------------------
SKLEARN_TRAIN = """
import pickle, sys
from pathlib import Path
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.naive_bayes import MultinomialNB
from sklearn.pipeline import make_pipeline
root = Path(sys.argv[1])
ngram, min_df = (int(sys.argv[3]), int(sys.argv[4])) if len(sys.argv) > 4 else (1, 1)
files = sorted(p for p in root.rglob("*") if p.is_file())
labels = [p.parent.name for p in files]
model = make_pipeline(CountVectorizer(input="filename", decode_error="replace", ngram_range=(1, ngram), min_df=min_df),
                      MultinomialNB())
model.fit([str(p) for p in files], labels)
with open(sys.argv[2], "wb") as f:
    pickle.dump(model, f)
"""
SKLEARN_PREDICT = """
import pickle, sys
from pathlib import Path
with open(sys.argv[1], "rb") as f:
    model = pickle.load(f)
files = [str(p) for a in sys.argv[2:] for p in (sorted(x for x in Path(a).rglob("*") if x.is_file())
                                             if Path(a).is_dir() else [Path(a)])]
for f, label in zip(files, model.predict(files)):
    print(f, label, sep="\t")
"""


def _wall(cmd, env=None):
    """(wall seconds, CPU seconds: user + system of the child) of one run of ``cmd``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def whole_process(root, tmp, repeat, bytecode=True, ngram=None):
    """Medians of whole-process wall and CPU times, textnb and scikit-learn interleaved
    (``bytecode``: both from cached bytecode; False: every module compiled at each run;
    ``ngram``: also word n-grams from 1 to ``ngram`` of at least two documents, trained and
    predicted)."""
    tmp = Path(tmp)
    one_doc = next(p for p in sorted((Path(root) / "test").rglob("*")) if p.is_file())
    textnb = [sys.executable, "-m", "textnb"]
    jobs = {
        "train": ([*textnb, "train", str(root), "-o", str(tmp / "m.tnb")],
                  [sys.executable, "-c", SKLEARN_TRAIN, str(Path(root) / "train"), str(tmp / "m.pkl")]),
        "train --jobs 1": ([*textnb, "train", str(root), "--jobs", "1", "-o", str(tmp / "m1.tnb")],
                           [sys.executable, "-c", SKLEARN_TRAIN, str(Path(root) / "train"), str(tmp / "m1.pkl")]),
        "train --model multinomial": ([*textnb, "train", str(root), "--model", "multinomial", "-o",
                                       str(tmp / "mnb.tnb")],
                                      [sys.executable, "-c", SKLEARN_TRAIN, str(Path(root) / "train"),
                                       str(tmp / "m2.pkl")]),
        "predict (test part)": ([*textnb, "predict", str(tmp / "m.tnb"), str(Path(root) / "test")],
                                [sys.executable, "-c", SKLEARN_PREDICT, str(tmp / "m.pkl"), str(Path(root) / "test")]),
        "predict (one document)": ([*textnb, "predict", str(tmp / "m.tnb"), str(one_doc)],
                                   [sys.executable, "-c", SKLEARN_PREDICT, str(tmp / "m.pkl"), str(one_doc)]),
    }
    if ngram:
        jobs[f"train --ngram {ngram} --min-df 2"] = (
            [*textnb, "train", str(root), "--ngram", str(ngram), "--min-df", "2", "-o", str(tmp / "ng.tnb")],
            [sys.executable, "-c", SKLEARN_TRAIN, str(Path(root) / "train"), str(tmp / "ng.pkl"), str(ngram), "2"])
        jobs[f"predict (test part, --ngram {ngram} model)"] = (
            [*textnb, "predict", str(tmp / "ng.tnb"), str(Path(root) / "test")],
            [sys.executable, "-c", SKLEARN_PREDICT, str(tmp / "ng.pkl"), str(Path(root) / "test")])
    load_start = os.getloadavg()[0]
    bare = [sys.executable, "-c", "import sklearn.naive_bayes"]
    times = {name: ([], []) for name in jobs}
    times["bare import sklearn.naive_bayes"] = ([], [])
    # Both sides run from compiled bytecode, as installed packages do (pip compiles them):
    # the caches go to a folder of their own, written by the warm-up runs, whatever
    # PYTHONDONTWRITEBYTECODE says (with it and no cache, every textnb run of a source
    # checkout recompiles its modules, some 0.1-0.2 s of CPU that no user pays).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if bytecode:
        env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    for name, (ours, theirs) in jobs.items():  # warm-up: model files for the predict rows, caches
        _wall(ours, env), _wall(theirs, env)
    _wall(bare, env)
    for _ in range(repeat):
        for name, (ours, theirs) in jobs.items():
            times[name][0].append(_wall(ours, env))
            times[name][1].append(_wall(theirs, env))
        times["bare import sklearn.naive_bayes"][1].append(_wall(bare, env))
    def median(runs, k):  # k = 0: wall, 1: CPU
        return float(np.median([r[k] for r in runs])) if runs else None

    med = {name: (median(a, 0), median(b, 0)) for name, (a, b) in times.items()}
    cpu = {name: (median(a, 1), median(b, 1)) for name, (a, b) in times.items()}
    bare_s, bare_cpu = med["bare import sklearn.naive_bayes"][1], cpu["bare import sklearn.naive_bayes"][1]
    load = os.getloadavg()[0]
    lines = ["### Whole processes on 20 Newsgroups bydate (start-up included)", "",
             "`python -m textnb ...` against a scikit-learn script doing the same job (CountVectorizer + "
             "MultinomialNB in a Pipeline, saved with pickle), each a fresh process, "
             "`textnb train` with its default model (DiscriminativeNB; counting in a second thread when a CPU "
             "is idle, and with `--jobs 1` in this one thread alone) and with `--model multinomial` "
             "(the same model as the scikit-learn script), the predict rows with the default model, "
             f"{repeat} runs interleaved after one warm-up run of each, medians; wall seconds and CPU seconds "
             "(user + system of the process and its workers); "
             + ("both sides run from compiled bytecode (a cache folder of the run's own, filled by the warm-up), "
                "as installed packages do. " if bytecode else
                "no bytecode cache (PYTHONDONTWRITEBYTECODE=1: every module is compiled at each run, which "
                "textnb, a source checkout, pays and the installed scikit-learn does not). ")
             + f"Load average {load_start:.1f} at the start and {load:.1f} at the end "
             f"of the run on {os.cpu_count()} cores"
             + (": the machine was shared with other work, so the wall times are inflated and noisy and the "
                "CPU times (which another process's load does not add to) are the figures that count in this "
                "run." if max(load, load_start) > 1.5 else ".")
             + " The default model's training includes its calibration (one temperature fitted on held-out "
             "folds of the training documents)."
             + (f" The `--ngram {ngram}` rows: words and word n-grams up to {ngram} of at least two training "
                f"documents on both sides (`CountVectorizer(ngram_range=(1, {ngram}), min_df=2)` in the "
                "scikit-learn script), textnb with its default model." if ngram else ""), "",
             "| command | textnb s | scikit-learn s | speed-up | textnb CPU s | scikit-learn CPU s | CPU speed-up |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for name in jobs:
        (ours, theirs), (ours_c, theirs_c) = med[name], cpu[name]
        lines.append(f"| {name} | {ours:.2f} | {theirs:.2f} | {theirs / ours:.2f}x | "
                     f"{ours_c:.2f} | {theirs_c:.2f} | {theirs_c / ours_c:.2f}x |")
    ours_one, ours_one_cpu = med["predict (one document)"][0], cpu["predict (one document)"][0]
    lines += ["", f"A bare `python -c 'import sklearn.naive_bayes'` takes {bare_s:.2f} s ({bare_cpu:.2f} s CPU) "
              f"in the same run: `textnb predict` of one document takes {ours_one / bare_s:.2f}x that "
              f"({ours_one_cpu / bare_cpu:.2f}x in CPU time; it reads the model into numpy arrays and never "
              "imports scikit-learn or scipy)."]
    return "\n".join(lines), med


def _write_formats(rows, stem):
    """``rows`` ((label, text) pairs) written as ``stem.csv``, ``stem.jsonl`` and, when no text
    holds a TAB or a line end, ``stem.tsv``: the files of one corpus in each row format."""
    import csv

    paths = {}
    with open(f"{stem}.csv", "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["label", "text"])
        w.writerows(rows)
    paths["CSV"] = f"{stem}.csv"
    with open(f"{stem}.jsonl", "w", encoding="utf-8") as f:
        f.writelines(json.dumps({"label": label, "text": text}) + "\n" for label, text in rows)
    paths["JSON Lines"] = f"{stem}.jsonl"
    if not any("\t" in text or "\n" in text or "\r" in text for _, text in rows):
        with open(f"{stem}.tsv", "w", encoding="utf-8") as f:
            f.writelines(f"{label}\t{text}\n" for label, text in rows)
        paths["TSV"] = f"{stem}.tsv"
    return paths


def formats(news, tmp, repeat):
    """Whole-process ``textnb train`` of one corpus in each format it can be given in: 20
    Newsgroups' training part as its folder, one CSV file and one JSON Lines file; the SMS
    collection as its TSV file, CSV and JSON Lines. Medians of ``repeat`` interleaved runs
    (after a warm-up); every format's model file is checked to be the folder's (or the
    TSV's), byte for byte. Returns the markdown table."""
    tmp = Path(tmp)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    textnb = [sys.executable, "-m", "textnb", "train"]
    sms = Path(__file__).resolve().parents[1] / "corpora" / "sms_spam" / "SMSSpamCollection.tsv"
    corpora = {}
    if news is not None:
        train = Path(news) / "train"
        from textnb.io.corpus import decode_bytes  # (each post's text as the folder reader decodes it)

        rows = [(c.name, decode_bytes(p.read_bytes())) for c in sorted(train.iterdir()) if c.is_dir()
                for p in sorted(c.iterdir()) if p.is_file()]
        corpora["20 Newsgroups training part (11,314 posts)"] = {"folder": str(train),
                                                                 **_write_formats(rows, str(tmp / "news"))}
    rows = [tuple(line.split("\t", 1)) for line in sms.read_text(encoding="utf-8").splitlines()]
    corpora["SMS Spam Collection (5,574 texts)"] = _write_formats(rows, str(tmp / "sms"))
    names = ["folder", "TSV", "CSV", "JSON Lines"]
    times, models = {}, {}
    for corpus, paths in corpora.items():
        for name, path in paths.items():
            out = tmp / f"{len(models)}.tnb"
            models[corpus, name] = out
            _wall([*textnb, path, "-o", str(out)], env)  # (warm-up: bytecode, the model to compare)
    for _ in range(repeat):
        for corpus, paths in corpora.items():
            for name, path in paths.items():
                times.setdefault((corpus, name), []).append(_wall([*textnb, path, "-o", str(tmp / "t.tnb")], env))
    lines = ["| corpus | " + " | ".join(f"{n}: wall / CPU s" for n in names) + " |",
             "|---|" + "---:|" * len(names)]
    for corpus, paths in corpora.items():
        first = models[corpus, next(iter(paths))].read_bytes()
        assert all(models[corpus, n].read_bytes() == first for n in paths), f"{corpus}: the model files differ"
        cells = []
        for name in names:
            runs = times.get((corpus, name))
            cells.append(f"{np.median([r[0] for r in runs]):.2f} / {np.median([r[1] for r in runs]):.2f}"
                         if runs else "")
        lines.append(f"| {corpus} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", default=str(Path(__file__).resolve().parents[2] / "shared"))
    ap.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "docs" / "bench_text.md"))
    ap.add_argument("--repeat", type=int, default=5,
                    help="runs per configuration, interleaved; the tables show medians")
    ap.add_argument("--one", nargs=2, metavar=("CONFIG", "ROOT"), help=argparse.SUPPRESS)
    ap.add_argument("--whole-only", action="store_true",
                    help="only the whole-process table (appended to --out's in-process tables)")
    ap.add_argument("--no-bytecode-cache", action="store_true",
                    help="whole processes: compile every module at each run (PYTHONDONTWRITEBYTECODE=1, "
                         "no cache), as a source checkout run in such an environment does")
    ap.add_argument("--ngram", type=int, metavar="N",
                    help="whole processes: also train (--ngram N --min-df 2) and predict with word n-grams")
    ap.add_argument("--formats", action="store_true",
                    help="only `textnb train` of one corpus in each format (a folder, TSV, CSV, JSON Lines), whole "
                         "processes, printed (the docs are not rewritten)")
    args = ap.parse_args()
    if args.formats:
        with tempfile.TemporaryDirectory() as tmp:
            print(formats(extract(args.shared, "20news-bydate", tmp), tmp, args.repeat))
        return 0
    if args.one:
        print(json.dumps(run_one(*args.one)))
        return 0
    sections = []
    with tempfile.TemporaryDirectory() as tmp:
        news = extract(args.shared, "20news-bydate", tmp)
        if news is not None:
            whole, _ = whole_process(news, tmp, args.repeat, bytecode=not args.no_bytecode_cache,
                                     ngram=args.ngram)
            print(whole, file=sys.stderr)
        if args.whole_only:
            if news is None:
                print("20 Newsgroups not available (../shared missing): nothing measured", file=sys.stderr)
                return 1
            out = Path(args.out)
            # appended to --out's in-process tables when it has them; a new file gets the section alone
            old = out.read_text().split("\n### Whole processes")[0].rstrip() if out.exists() else ""
            out.write_text((old + "\n\n" if old else "") + whole + "\n")
            print(f"wrote {args.out}")
            return 0
        corpora = [("20 Newsgroups bydate (train 11,314 / test 7,532)", extract(args.shared, "20news-bydate", tmp)),
                   ("SMS Spam Collection (seeded stratified 80/20 split)",
                    Path(__file__).resolve().parents[1] / "corpora" / "sms_spam" / "SMSSpamCollection.tsv")]
        for title, root in corpora:
            if root is None:
                sections.append(f"### {title}\n\nnot available (../shared missing)")
                continue
            runs = {config: [] for config in CONFIGS}
            for _ in range(args.repeat):  # interleaved, so drifts of the machine hit all alike
                for config in CONFIGS:
                    proc = subprocess.run([sys.executable, __file__, "--one", config, str(root)],
                                          capture_output=True, text=True, check=True)
                    runs[config].append(json.loads(proc.stdout.strip().splitlines()[-1]))
                    print(json.dumps(runs[config][-1]), file=sys.stderr)
            rows = []
            for config in CONFIGS:
                row = dict(runs[config][0])
                for key in ("fit_seconds", "predict_seconds", "peak_mb"):
                    values = [r[key] for r in runs[config]]
                    row[key] = float(np.median(values))
                    row[key + "_range"] = (min(values), max(values))
                assert len({r["accuracy"] for r in runs[config]}) == 1  # deterministic
                rows.append(row)
            sections.append(table(rows, title) + "\n\n" + spread(rows))
    header = (f"# Text benchmark: textnb vs scikit-learn\n\nMeasured by `scripts/bench_text.py` on "
              f"{time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores; each configuration in a fresh process, "
              f"{args.repeat} runs interleaved, medians shown (single runs on this virtual machine vary by "
              "up to 30 %: memory the guest has not touched before is slow to fault in). Files are read "
              "from disk inside the timed fit/predict. textnb rows call "
              "`textnb.core.workers.keep_freed_memory()` first, as the `textnb` command line does, except "
              "`textnb-multinomial-malloc-default` (the library in a process that does not). "
              "`textnb-default` is `TextClassifier()` with its default model (DiscriminativeNB: discriminative "
              "frequency estimates, see docs/text_accuracy.md); the other rows name their model, with default "
              "settings on both sides "
              "(token pattern `(?u)\\b\\w\\w+\\b`, lowercase, alpha = 1). Speed columns: sklearn "
              "CountVectorizer + MultinomialNB time divided by this configuration's time (higher is faster).\n")
    if news is not None:
        sections.append(whole)
    Path(args.out).write_text(header + "\n" + "\n\n".join(sections) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
