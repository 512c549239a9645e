#!/usr/bin/env python
"""The default model's calibration (issue 28): raw against calibrated probabilities, and
the leave-out scale against honest cross-validation.

Per corpus (official split, else a seeded stratified 70/30 split): ``TextClassifier()``
(DiscriminativeNB, calibrated) and the same with ``DiscriminativeNB(calibration=None)``;
their test log-loss and expected calibration error (15 bins, top label); how much a
threshold of 0.8 routes and how much of that is right; the fitted scale, the one five
retrained fold models give (honest 5-fold CV of the training part), and the best scale
for the test part itself (an oracle, for reference). Prints a markdown table.

    python scripts/experiments/default_calibration.py [--corpora /work/corpora] [--only NAME ...]
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.metrics import log_loss
from sklearn.model_selection import StratifiedKFold, train_test_split

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from textnb import TextClassifier, open_corpus  # noqa: E402
from textnb.core import dfe  # noqa: E402
from textnb.evaluation import expected_calibration_error  # noqa: E402
from textnb.io.corpus import read_document  # noqa: E402
from textnb.naive_bayes.discriminative import DiscriminativeNB  # noqa: E402

CORPORA = [("20 Newsgroups", "20news-bydate"), ("SMS Spam", "sms_spam_collection"),
           ("SpamAssassin", "spamassassin"), ("CSDMC2010", "csdmc2010_spam"),
           ("rt-polarity", "rt_polarity_v1"), ("TREC QC", "trec_qc"), ("BBC News", "bbc_news"),
           ("OHSUMED-23", "ohsumed_single_23")]


def texts(docs):
    return [d if isinstance(d, str) else read_document(d) for d in docs]


def one(root):
    c = open_corpus(root)
    if c.test is None:
        idx = np.arange(len(c))
        tr, te = train_test_split(idx, test_size=0.3, random_state=0, stratify=c.labels)
        docs, labels = np.array(c.documents, dtype=object), np.array(c.labels)
        dtr, ytr, dte, yte = texts(docs[tr]), labels[tr], texts(docs[te]), labels[te]
    else:
        dtr, ytr = texts(c.documents), np.array(c.labels)
        dte, yte = texts(c.test.documents), np.array(c.test.labels)
    keep_tr = [i for i, d in enumerate(dtr) if d is not None]
    keep_te = [i for i, d in enumerate(dte) if d is not None]
    dtr, ytr = [dtr[i] for i in keep_tr], ytr[keep_tr]
    dte, yte = [dte[i] for i in keep_te], yte[keep_te]
    cal = TextClassifier().fit(dtr, ytr)
    raw = TextClassifier(model=DiscriminativeNB(calibration=None)).fit(dtr, ytr)
    classes = cal.classes_
    known = np.isin(yte, classes)
    dte, yte = [d for d, k in zip(dte, known) if k], yte[known]
    row = {"scale": cal.model_.scale_, "event_model": cal.model_.event_model_}
    for name, m in (("raw", raw), ("cal", cal)):
        P = m.predict_proba(dte)
        pred = classes[P.argmax(axis=1)]
        routed = P.max(axis=1) >= 0.8
        row[name] = {"log_loss": log_loss(yte, np.clip(P, 1e-15, 1), labels=classes),
                     "ece": expected_calibration_error(yte, P, classes), "acc": float(np.mean(pred == yte)),
                     "routed": float(routed.mean()),
                     "right": float(np.mean(pred[routed] == yte[routed])) if routed.any() else float("nan")}
    # oracle: the best scale for the test part; honest: five retrained fold models
    X = raw.vectorizer_.transform(dte)
    row["oracle"] = dfe.fit_scale(raw.model_.predict_joint_log_proba(X), np.searchsorted(classes, yte))
    Xtr = raw.vectorizer_.transform(dtr)
    S = np.zeros((Xtr.shape[0], len(classes)))
    for a, b in StratifiedKFold(5, shuffle=True, random_state=0).split(Xtr, ytr):
        f = DiscriminativeNB(calibration=None, event_model=cal.model_.event_model_).fit(Xtr[a], ytr[a])
        S[np.ix_(b, np.searchsorted(classes, f.classes_))] = f.predict_joint_log_proba(Xtr[b])
    row["honest"] = dfe.fit_scale(S, np.searchsorted(classes, ytr))
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpora", default=str(REPO.parent / "corpora"))
    ap.add_argument("--only", nargs="*")
    args = ap.parse_args()
    start = time.perf_counter()
    print("| corpus | event model | scale (leave-out / 5 retrained folds / test oracle) | log-loss raw -> calibrated "
          "| ECE raw -> calibrated | accuracy | at 0.8, raw: routed, right | at 0.8, calibrated: routed, right |")
    print("|---|---|---|---|---|---:|---|---|")
    for label, folder in CORPORA:
        root = Path(args.corpora) / folder
        if (args.only and folder not in args.only) or not root.exists():
            continue
        r = one(root)
        raw, cal = r["raw"], r["cal"]
        print(f"| {label} | {r['event_model']} | {r['scale']:.3f} / {r['honest']:.3f} / {r['oracle']:.3f} "
              f"| {raw['log_loss']:.4f} -> {cal['log_loss']:.4f} | {raw['ece']:.4f} -> {cal['ece']:.4f} "
              f"| {100 * cal['acc']:.2f} | {100 * raw['routed']:.1f} %, {100 * raw['right']:.1f} % "
              f"| {100 * cal['routed']:.1f} %, {100 * cal['right']:.1f} % |", flush=True)
    print(f"\n({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
