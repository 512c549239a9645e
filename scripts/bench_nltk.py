#!/usr/bin/env python
"""Benchmark: ``textnb.nltk.NaiveBayesClassifier`` against ``nltk.classify.NaiveBayesClassifier``.

Two feature styles, on the same feature dicts for both tools:

* ``bow``: NLTK's most common style, a dict of the words present in a document
  (``{w: True for w in words}``);
* ``book``: the NLTK book's document classifier (ch. 6.1), ``contains(w)`` for each of the
  2,000 most frequent training words, True or False, in every dict.

Corpora: the bundled SMS Spam Collection (first 80 % to train, tokens ``\\w+``), BBC News
and the first 10 groups of 20 Newsgroups bydate's training part (every other document to
train, tokens ``[a-z]+``). Each (tool, corpus, style) runs in a fresh process under
``/usr/bin/time -v`` (its peak RSS, data and imports included; the address space capped at
``--limit-gb``, so that a run that would take the machine's memory stops with MemoryError).
Inside the process, the imports done first (textnb's tabular engine, which ``train`` imports
on first use, with scikit-learn; NLTK's ``nltk.classify``, which imports scikit-learn too;
``import_s``): the time of ``train``, of ``classify`` one dict at a time (NLTK's habit; up
to 500 held-out dicts) and of ``classify_many`` of them, and the accuracy on the held-out
dicts. The digest is a SHA-256 of the probabilities of the first 200 held-out dicts,
``most_informative_features(100)`` and ``show_most_informative_features(20)`` (equal
digests: the same floats to the bit).

    python scripts/bench_nltk.py [--corpora /tmp/c] [--only sms/bow,...] [--tools textnb,nltk]
                                 [--limit-gb 6] [--repeat 3]
"""

import argparse
import contextlib
import hashlib
import io
import json
import re
import resource
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPORA = ("sms", "bbc", "news10")
STYLES = ("bow", "book")
TOOLS = ("textnb", "nltk")


def documents(corpus, root):
    """``(text tokens, label)`` of a corpus, and the training documents' positions."""
    if corpus == "sms":
        rows = [line.rstrip("\n").split("\t", 1)
                for line in open(ROOT / "corpora/sms_spam/SMSSpamCollection.tsv", encoding="utf-8")]
        docs = [(re.findall(r"\w+", text.lower()), label) for label, text in rows]
        return docs, range(int(len(docs) * 0.8))
    folder = Path(root) / ("bbc_news" if corpus == "bbc" else "20news-bydate/train")
    docs = []
    for label in sorted(p.name for p in folder.iterdir() if p.is_dir())[:10]:
        for path in sorted((folder / label).iterdir()):
            docs.append((re.findall(r"[a-z]+", path.read_text(encoding="latin-1").lower()), label))
    return docs, range(0, len(docs), 2)


def featuresets(docs, train, style):
    if style == "bow":
        return [({w: True for w in words}, label) for words, label in docs]
    counts = Counter(w for i in train for w in docs[i][0])
    top = [w for w, _ in counts.most_common(2000)]
    return [({f"contains({w})": w in present for w in top}, label)
            for present, label in ((set(words), label) for words, label in docs)]


def worker(tool, corpus, style, root, limit_gb):
    if limit_gb:
        cap = int(limit_gb * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    t = time.perf_counter()
    if tool == "nltk":
        from nltk.classify import NaiveBayesClassifier
    else:
        from textnb.nltk import NaiveBayesClassifier
        import textnb.naive_bayes.tabular  # noqa: F401  (the engine train imports: scikit-learn)
    import_s = time.perf_counter() - t
    docs, train_at = documents(corpus, root)
    data = featuresets(docs, train_at, style)
    del docs
    train_set = set(train_at)
    train = [data[i] for i in train_at]
    test = [data[i] for i in range(len(data)) if i not in train_set]
    out = {"tool": tool, "corpus": corpus, "style": style, "n_train": len(train), "n_test": len(test),
           "features": len({f for fs, _ in train for f in fs}),
           "pairs": sum(len(fs) for fs, _ in train),
           "import_s": import_s, "rss_data_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024}
    t = time.perf_counter()
    try:
        classifier = NaiveBayesClassifier.train(train)
    except MemoryError:
        out["train_s"], out["error"] = time.perf_counter() - t, "MemoryError"
        return out
    out["train_s"] = time.perf_counter() - t
    queries = [fs for fs, _ in test[:500]]
    t = time.perf_counter()
    for fs in queries:
        classifier.classify(fs)
    out["classify_us"] = (time.perf_counter() - t) / max(len(queries), 1) * 1e6
    t = time.perf_counter()
    classifier.classify_many(queries)
    out["classify_many_us"] = (time.perf_counter() - t) / max(len(queries), 1) * 1e6
    out["accuracy"] = sum(classifier.classify(fs) == label for fs, label in test) / max(len(test), 1)
    labels = classifier.labels()
    probs = [[dist.prob(label) for label in labels] for dist in classifier.prob_classify_many(queries[:200])]
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown):
        classifier.show_most_informative_features(20)
    digest = hashlib.sha256(repr((probs, classifier.most_informative_features(100), shown.getvalue())).encode())
    out["digest"] = digest.hexdigest()[:16]
    return out


def run(tool, corpus, style, root, limit_gb):
    cmd = ["/usr/bin/time", "-v", sys.executable, __file__, "--worker", tool, corpus, style,
           "--corpora", root, "--limit-gb", str(limit_gb)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    stats = dict(line.strip().rsplit(": ", 1) for line in proc.stderr.splitlines()
                 if line.startswith("\t") and ": " in line)
    try:
        out = json.loads(proc.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        out = {"tool": tool, "corpus": corpus, "style": style, "error": proc.stderr.strip().splitlines()[-1:]}
    out["peak_rss_mb"] = int(stats.get("Maximum resident set size (kbytes)", 0)) // 1024
    out["wall"] = stats.get("Elapsed (wall clock) time (h:mm:ss or m:ss)")
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", default="/tmp/c")
    parser.add_argument("--only", default="", help="comma-separated corpus/style pairs (default: all)")
    parser.add_argument("--tools", default=",".join(TOOLS))
    parser.add_argument("--limit-gb", type=float, default=6.0)
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs of each; the least of each time and the largest peak RSS are kept")
    parser.add_argument("--worker", nargs=3, metavar=("TOOL", "CORPUS", "STYLE"))
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(*args.worker, args.corpora, args.limit_gb)))
        return
    pairs = [p.split("/") for p in args.only.split(",")] if args.only else [(c, s) for c in CORPORA for s in STYLES]
    for corpus, style in pairs:
        for tool in args.tools.split(","):
            runs = [run(tool, corpus, style, args.corpora, args.limit_gb) for _ in range(args.repeat)]
            out = runs[0]
            for key in ("import_s", "train_s", "classify_us", "classify_many_us"):
                if all(key in r for r in runs):
                    out[key] = min(r[key] for r in runs)
            out["peak_rss_mb"] = max(r["peak_rss_mb"] for r in runs)
            out["runs"] = len(runs)
            print(json.dumps(out), flush=True)


if __name__ == "__main__":
    sys.exit(main())
