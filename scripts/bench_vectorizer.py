"""CPU time of textnb's Vectorizer against scikit-learn's CountVectorizer in the same run.

Each configuration fits and transforms the bundled SMS corpus (5,574 messages, repeated
``--copies`` times) with both vectorizers, interleaved, ``--repeats`` times; the medians
of process CPU time (user + system, ``time.process_time``) and their ratio (textnb time /
scikit-learn time: below 1 is faster) are printed. The outputs are checked to be equal.

Usage (PYTHONPATH picks the checkout; run two checkouts to compare revisions)::

    PYTHONPATH=. python scripts/bench_vectorizer.py [--copies 4] [--repeats 5]
"""

import argparse
import csv
import statistics
import time
from pathlib import Path

from sklearn.feature_extraction.text import CountVectorizer

from textnb import Vectorizer

SMS = Path(__file__).resolve().parents[1] / "corpora" / "sms_spam" / "SMSSpamCollection.tsv"
CONFIGS = {
    "default": {},
    "english+bigrams": {"stop_words": "english", "ngram_range": (1, 2)},
    "strip_accents=unicode": {"strip_accents": "unicode"},
    "char_wb(2,4)": {"analyzer": "char_wb", "ngram_range": (2, 4)},
}


def cpu(fn):
    start = time.process_time()
    out = fn()
    return time.process_time() - start, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--copies", type=int, default=4)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    with open(SMS, encoding="utf-8", newline="") as f:
        docs = [row[1] for row in csv.reader(f, delimiter="\t") if len(row) > 1] * args.copies
    print(f"{len(docs)} documents, {args.repeats} repeats, medians of CPU seconds (user+sys)")
    print("| configuration | textnb | scikit-learn | ratio |")
    print("| --- | ---: | ---: | ---: |")
    for name, params in CONFIGS.items():
        try:
            Vectorizer(**params)
        except TypeError:  # an older checkout without this option
            print(f"| {name} | (no such option) | | |")
            continue
        ours, theirs = [], []
        for _ in range(args.repeats):
            t, A = cpu(lambda: (lambda v: (v.fit_transform(docs), v.transform(docs[:2000])))(Vectorizer(**params)))
            ours.append(t)
            t, B = cpu(lambda: (lambda v: (v.fit_transform(docs), v.transform(docs[:2000])))(CountVectorizer(**params)))
            theirs.append(t)
            assert all((a != b).nnz == 0 and a.shape == b.shape for a, b in zip(A, B))
        o, s = statistics.median(ours), statistics.median(theirs)
        print(f"| {name} | {o:.2f} | {s:.2f} | {o / s:.2f} |")


if __name__ == "__main__":
    main()
