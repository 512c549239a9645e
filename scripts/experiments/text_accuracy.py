#!/usr/bin/env python
"""Experiment: which naive Bayes text model and settings are most accurate across corpora.

textnb's models and options (multinomial, Bernoulli, complement with and without weight
normalisation, with Rennie et al.'s term weighting, smoothing choices, smoothing chosen
by cross-validation, calibration) against scikit-learn's MultinomialNB / BernoulliNB /
ComplementNB with default settings and a linear SVM on tf-idf (TfidfVectorizer +
LinearSVC, the non-NB reference). Every model sees the same count matrices (textnb's
``Vectorizer()``, which matches ``CountVectorizer()``) and the same splits:

* 20 Newsgroups bydate: the official train / test split;
* SMS Spam Collection, SpamAssassin: seeded (seed 0) stratified 10-fold CV; in each
  fold the vocabulary is the terms of the training part (as a model trained on it).

Calibration: log-loss of raw vs calibrated probabilities on held-out data (20NG test
split; a seeded stratified 75/25 split of SMS and SpamAssassin).

    python scripts/experiments/text_accuracy.py [--shared ../shared] [--out docs/text_accuracy.md]
"""

import argparse
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import numpy as np
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.metrics import f1_score, log_loss
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.svm import LinearSVC
import sklearn.naive_bayes as sknb

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from textnb import BernoulliNB, MultinomialNB, Vectorizer, open_corpus  # noqa: E402
from textnb.meta.calibration import CalibratedNB  # noqa: E402
from textnb.naive_bayes.complement import ComplementNB  # noqa: E402
from textnb.io.corpus import read_document  # noqa: E402
from textnb.evaluation.evaluate import vectorize_all  # noqa: E402
from textnb.meta.smoothing import SmoothingCV  # noqa: E402
from textnb.text.weighting import TermWeighting  # noqa: E402

CORPORA = [
    ("20 Newsgroups", "20news-bydate", "20news-bydate"),
    ("SMS Spam", "sms_spam_collection", "sms_spam_collection"),
    ("SpamAssassin", "spamassassin_public_corpus", "spamassassin"),
]


def tw():
    return TermWeighting()  # log(1 + tf), smooth idf, L2 length norm (Rennie et al. §4)


def models():
    """(name, kind, factory); kind is 'sklearn', 'textnb' or 'reference'."""
    return [
        ("sklearn MultinomialNB()", "sklearn", lambda: sknb.MultinomialNB()),
        ("sklearn BernoulliNB()", "sklearn", lambda: sknb.BernoulliNB()),
        ("sklearn ComplementNB()", "sklearn", lambda: sknb.ComplementNB()),
        ("TfidfVectorizer + LinearSVC()", "reference", lambda: make_pipeline(TfidfTransformer(), LinearSVC())),
        ("MultinomialNB()", "textnb", lambda: MultinomialNB()),
        ("BernoulliNB()", "textnb", lambda: BernoulliNB()),
        ("ComplementNB()", "textnb", lambda: ComplementNB()),
        ("ComplementNB(norm=True)", "textnb", lambda: ComplementNB(norm=True)),
        ("TW + ComplementNB(alpha=1)", "textnb", lambda: make_pipeline(tw(), ComplementNB())),
        ("TW + ComplementNB(alpha=1, norm=True)", "textnb", lambda: make_pipeline(tw(), ComplementNB(norm=True))),
        ("TW + ComplementNB(alpha=0.1)", "textnb", lambda: make_pipeline(tw(), ComplementNB(alpha=0.1))),
        ("TW + MultinomialNB(alpha=0.1)", "textnb", lambda: make_pipeline(tw(), MultinomialNB(alpha=0.1))),
        ("TW + MultinomialNB(m=300)", "textnb", lambda: make_pipeline(tw(), MultinomialNB(m=300))),
        ("TW + MultinomialNB(m=3000)", "textnb", lambda: make_pipeline(tw(), MultinomialNB(m=3000))),
        ("SmoothingCV(cv=10): TW + MultinomialNB(m by CV)", "default",
         lambda: SmoothingCV(cv=10)),
        ("CalibratedNB(TW + ComplementNB(alpha=1))", "textnb",
         lambda: CalibratedNB(make_pipeline(tw(), ComplementNB()))),
        ("CalibratedNB(SmoothingCV(cv=10))", "textnb", lambda: CalibratedNB(SmoothingCV(cv=10))),
    ]


def extract(shared, archive, folder, work):
    path = Path(work) / folder
    if not path.exists():
        with tarfile.open(Path(shared) / "corpora" / f"{archive}.tar.gz") as tar:
            tar.extractall(work, filter="data")
    return path


def load(root):
    corpus = open_corpus(root)
    texts = [read_document(d) if isinstance(d, Path) else d for d in corpus.documents]
    keep = [i for i, t in enumerate(texts) if t is not None]
    y = np.array(corpus.labels)[keep]
    texts = [texts[i] for i in keep]
    test = None
    if corpus.test is not None:
        tt = [read_document(d) for d in corpus.test.documents]
        kt = [i for i, t in enumerate(tt) if t is not None]
        test = ([tt[i] for i in kt], np.array(corpus.test.labels)[kt])
    return texts, y, test


def fit_predict(factory, X_train, y_train, X_test):
    cols = np.flatnonzero(np.bincount(X_train.indices, minlength=X_train.shape[1]))
    model = factory().fit(X_train[:, cols], y_train)
    return model, model.predict(X_test[:, cols]), cols


def run_corpus(texts, y, test, factories, progress):
    """{model name: (accuracy, macro_f1, seconds)}."""
    if test is not None:
        X_all, _ = vectorize_all(texts + test[0], Vectorizer())
        X_all = X_all.tocsr()
        X_train, X_test = X_all[: len(texts)], X_all[len(texts):]
        splits = [(X_train, y, X_test, test[1])]
    else:
        X, _ = vectorize_all(texts, Vectorizer())
        X = X.tocsr()
        folds = StratifiedKFold(n_splits=10, shuffle=True, random_state=0)
        splits = [(X[tr], y[tr], X[te], y[te]) for tr, te in folds.split(np.zeros(len(y)), y)]
    out = {}
    for name, _, factory in factories:
        start = time.perf_counter()
        y_true, y_pred = [], []
        for X_train, y_train, X_test, y_test in splits:
            _, pred, _ = fit_predict(factory, X_train, y_train, X_test)
            y_true.append(y_test)
            y_pred.append(np.asarray(pred))
        yt, yp = np.concatenate(y_true), np.concatenate(y_pred)
        out[name] = (float(np.mean(yt == yp)), float(f1_score(yt, yp, average="macro")),
                     time.perf_counter() - start)
        progress(f"  {name}: acc {out[name][0]:.4f} macro-F1 {out[name][1]:.4f} ({out[name][2]:.1f} s)")
    return out


def calibration(texts, y, test, progress):
    """Log-loss on held-out data: raw vs sigmoid / isotonic calibration, two models."""
    if test is not None:
        X_all, _ = vectorize_all(texts + test[0], Vectorizer())
        X_all = X_all.tocsr()
        X_train, X_test, y_train, y_test = X_all[: len(texts)], X_all[len(texts):], y, test[1]
    else:
        X, _ = vectorize_all(texts, Vectorizer())
        X = X.tocsr()
        tr, te = train_test_split(np.arange(len(y)), test_size=0.25, random_state=0, stratify=y)
        X_train, X_test, y_train, y_test = X[tr], X[te], y[tr], y[te]
    cols = np.flatnonzero(np.bincount(X_train.indices, minlength=X_train.shape[1]))
    X_train, X_test = X_train[:, cols], X_test[:, cols]
    rows = {}
    for name, base in [("SmoothingCV: TW + MultinomialNB(m by CV)", lambda: SmoothingCV(cv=5)),
                       ("TW + ComplementNB(alpha=1)", lambda: make_pipeline(tw(), ComplementNB())),
                       ("MultinomialNB()", lambda: MultinomialNB())]:
        row = {}
        for method in (None, "sigmoid", "isotonic"):
            model = base() if method is None else CalibratedNB(base(), method=method)
            model.fit(X_train, y_train)
            proba = model.predict_proba(X_test)
            classes = model.classes_
            row[method or "raw"] = (float(log_loss(y_test, np.clip(proba, 1e-15, 1), labels=classes)),
                                    float(np.mean(classes[np.argmax(proba, axis=1)] == y_test)))
        rows[name] = row
        progress(f"  calibration {name}: " + ", ".join(f"{k} {v[0]:.4f}" for k, v in row.items()))
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", default=str(REPO.parent / "shared"))
    ap.add_argument("--out", default=str(REPO / "docs" / "text_accuracy.md"))
    ap.add_argument("--work", default=None, help="folder to extract the corpora into (default: a temp folder)")
    args = ap.parse_args(argv)
    start = time.perf_counter()

    def progress(msg):
        print(msg, file=sys.stderr, flush=True)

    factories = models()
    results, calib, sizes = {}, {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or tmp
        for label, archive, folder in CORPORA:
            if not (Path(args.shared) / "corpora" / f"{archive}.tar.gz").exists():
                progress(f"{label}: archive not found, skipped")
                continue
            progress(f"{label}:")
            texts, y, test = load(extract(args.shared, archive, folder, work))
            sizes[label] = (len(texts), 0 if test is None else len(test[1]), len(np.unique(y)))
            results[label] = run_corpus(texts, y, test, factories, progress)
            calib[label] = calibration(texts, y, test, progress)
    write_report(args.out, factories, results, calib, sizes, time.perf_counter() - start)
    return 0


def write_report(path, factories, results, calib, sizes, seconds):
    corpora = list(results)
    lines = [
        "# Text accuracy: naive Bayes models and settings across corpora",
        "",
        f"Generated by `scripts/experiments/text_accuracy.py` ({seconds:.0f} s on this machine). "
        "Every model sees the same count matrices (textnb `Vectorizer()` = scikit-learn "
        "`CountVectorizer()`: lowercase, tokens `\\b\\w\\w+\\b`, no stop words) and the same splits: "
        "20 Newsgroups bydate official train/test split; SMS and SpamAssassin seeded (seed 0) "
        "stratified 10-fold CV, pooled out-of-fold predictions, each fold's vocabulary the terms of "
        "its training part. Accuracy and macro-F1 in %. **TW** = `textnb.text.weighting.TermWeighting()`: "
        "log(1 + tf), smooth idf, L2 length normalisation (Rennie et al. 2003 §4). sklearn models "
        "with default settings; the linear SVM on tf-idf (`TfidfVectorizer()` + `LinearSVC()`) is "
        "the non-NB reference. The row marked **(proposed default)** is `SmoothingCV(cv=10)`: TW + "
        "MultinomialNB with the m-estimate's m chosen by 10-fold CV on the training data from "
        "(30, 100, 300, 1000, 3000, 10000, 30000).",
        "",
        "| corpus | documents (train / test) | classes |",
        "|---|---:|---:|",
    ]
    for c in corpora:
        n, t, k = sizes[c]
        lines.append(f"| {c} | {n}{' / ' + str(t) if t else ' (10-fold CV)'} | {k} |")
    lines += ["", "| model | " + " | ".join(f"{c} acc | {c} macro-F1" for c in corpora) + " |",
              "|---|" + "---:|---:|" * len(corpora)]
    for name, kind, _ in factories:
        label = f"**{name}** (proposed default)" if kind == "default" else name
        cells = []
        for c in corpora:
            acc, f1, _ = results[c][name]
            best_acc = max(v[0] for k, v in results[c].items())
            a = f"{100 * acc:.2f}"
            cells.append(f"**{a}**" if acc == best_acc else a)
            cells.append(f"{100 * f1:.2f}")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    # the done-criteria, computed
    lines += ["", "## Criteria (computed from the table)", ""]
    default = next(n for n, k, _ in factories if k == "default")
    textnb_names = [n for n, k, _ in factories if k in ("textnb", "default")]
    sk_names = [n for n, k, _ in factories if k == "sklearn"]
    svm = next(n for n, k, _ in factories if k == "reference")
    len_test = {c: sizes[c][1] or sizes[c][0] for c in corpora}
    for c in corpora:
        r = results[c]
        best_sk = max(sk_names, key=lambda n: r[n][0])
        best_tn = max(textnb_names, key=lambda n: r[n][0])
        d = r[default]
        lines.append(
            f"- {c}: proposed default {100 * d[0]:.2f} / {100 * d[1]:.2f} vs best sklearn NB "
            f"({best_sk}) {100 * r[best_sk][0]:.2f} / {100 * r[best_sk][1]:.2f} -> beats it on accuracy: "
            f"{'yes' if d[0] > r[best_sk][0] else 'NO'}, on macro-F1: "
            f"{'yes' if d[1] > max(r[n][1] for n in sk_names) else 'NO'}; linear SVM minus proposed "
            f"default: {100 * (r[svm][0] - d[0]):+.2f} points of accuracy (within 2: "
            f"{'yes' if r[svm][0] - d[0] <= 0.02 else 'NO'}); margin over the best sklearn NB: "
            f"{round(len_test[c] * (d[0] - r[best_sk][0]))} documents; best textnb row: {best_tn} "
            f"{100 * r[best_tn][0]:.2f}."
        )
    lines += ["", "## Calibration: log-loss on held-out data (lower is better)", "",
              "20 Newsgroups: the test split; SMS and SpamAssassin: a seeded stratified 75/25 split. "
              "`CalibratedNB(model, method=..., cv=5)` maps each class's out-of-fold log-odds to a "
              "probability (Platt sigmoid or isotonic), then refits the model on all the training data. "
              "Accuracy of the argmax in brackets.", "",
              "| corpus | model | raw | sigmoid | isotonic |", "|---|---|---:|---:|---:|"]
    for c in corpora:
        for name, row in calib[c].items():
            cells = [f"{row[m][0]:.4f} ({100 * row[m][1]:.2f})" for m in ("raw", "sigmoid", "isotonic")]
            lines.append(f"| {c} | {name} | " + " | ".join(cells) + " |")
    lines += ["", "## Notes", "",
              "- Term weighting with additive (Laplace) smoothing needs a corpus-dependent alpha: after "
              "length normalisation a document weighs about as much as a few words, so alpha = 1 per "
              "term outweighs the data on corpora with large vocabularies and few documents per class "
              "(compare the TW + ComplementNB(alpha=1) row on the spam corpora with alpha = 0.1). The "
              "m-estimate spreads a total smoothing mass m over the terms by their overall frequency, "
              "which depends much less on the vocabulary size; `SmoothingCV` picks m by 10-fold "
              "cross-validation on the training data, scoring every m from the summed counts (totals "
              "minus the held-out fold) without refitting.",
              "- With two classes the complement model is the multinomial model without the class "
              "prior (the complement of one class is the other), so it gains nothing on spam "
              "corpora; its advantage is on many classes.",
              "- Calibration (`CalibratedNB`) re-weights the classes' log-odds by out-of-fold Platt "
              "scaling; with many classes this also changes the argmax (per-class scale and bias), "
              "which is where the best 20 Newsgroups row comes from.",
              ""]
    Path(path).write_text("\n".join(lines), encoding="utf-8")


if __name__ == "__main__":
    raise SystemExit(main())
