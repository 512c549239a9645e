#!/usr/bin/env python
"""Experiment: multi-label naive Bayes (textnb.meta.multilabel) against scikit-learn's one-vs-rest.

Per corpus, in the same run, on the same split and the same documents:

* scikit-learn's references, as in ``../shared/corpora/goemotions.SOURCE.md``:
  ``OneVsRestClassifier(LinearSVC())`` on ``TfidfVectorizer(sublinear_tf=True)`` and
  ``OneVsRestClassifier(MultinomialNB())`` on ``CountVectorizer()``, labels from ``predict()``;
* textnb's :class:`~textnb.meta.multilabel.MultiLabelNB` over textnb's ``Vectorizer()`` counts:
  both methods (``copy``, ``ovr``), the base models (the default text model
  DiscriminativeNB, MultinomialNB with alpha 1 and 0.1, BernoulliNB, ComplementNB, and the
  calibrated CalibratedNB variants) and every thresholding strategy (``scutfbr``, ``scut``,
  ``rcut``, ``pcut``, a fixed log-odds 0), with at least one label per document
  (``min_labels=1``, the default) and, for the default, without (``min_labels=0``) and with 3
  and 5 inner folds instead of 2 (``cv``), and ``SmoothingCV()`` (``textnb train --model
  auto``) copy / SCutFBR. Every cell uses 2 inner folds unless it says otherwise (the default
  ``cv=None`` takes 5 below 5,000 training documents). Each model is fitted as ``textnb train
  --labels`` and ``TextClassifier(model=MultiLabelNB(...))`` fit it: on the training part's
  counts with their ``fold_counts``
  (:func:`textnb.text.classifier.document_fold_counts`), so every fold inside the fit (the
  thresholds' out-of-fold models, a SmoothingCV's or CalibratedNB's own folds) is on the
  vocabulary of its own training documents, pruned there with ``--min-df``.

Corpora: GoEmotions (multi-label; official train/test split, dev unused), and two
single-label corpora read as multi-label (label sets of one): 20 Newsgroups (official
bydate split) and BBC News (no split: seeded 5-fold cross-validation, the files with the
same name in several class folders read as separate documents). Every choice a model
makes (thresholds, fbr, rank, the PCut factor, DiscriminativeNB's event model) is made
inside the training part.

    python scripts/experiments/multilabel.py [--corpora /work/corpora] [--only CORPUS ...] [--quick] [--min-df N]
                                             [--limit N] [--json out.json]
    python scripts/experiments/multilabel.py --table out.json [...]   # the markdown tables
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.model_selection import KFold
from sklearn.multiclass import OneVsRestClassifier
from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB
from sklearn.preprocessing import MultiLabelBinarizer
from sklearn.svm import LinearSVC

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from textnb import BernoulliNB, MultinomialNB, Vectorizer  # noqa: E402
from textnb.io.corpus import read_document  # noqa: E402
from textnb.meta.calibration import CalibratedNB  # noqa: E402
from textnb.meta.multilabel import MultiLabelNB, multilabel_report, read_multilabel_corpus  # noqa: E402
from textnb.meta.smoothing import SmoothingCV  # noqa: E402
from textnb.naive_bayes.complement import ComplementNB  # noqa: E402
from textnb.naive_bayes.discriminative import DiscriminativeNB  # noqa: E402
from textnb.text.classifier import document_fold_counts  # noqa: E402

STRATEGIES = ("scutfbr", "scut", "rcut", "pcut", 0.0)
SVM = "sklearn OvR(LinearSVC) tf-idf"
SKNB = "sklearn OvR(MultinomialNB) counts"


def bases():
    """(name, factory, methods, strategies): the textnb cells of the table."""
    return [
        ("DiscriminativeNB (default)", lambda: DiscriminativeNB(), ("copy",), STRATEGIES),
        ("DiscriminativeNB (default)", lambda: DiscriminativeNB(), ("ovr",), ("scutfbr",)),
        ("MultinomialNB(alpha=1)", lambda: MultinomialNB(), ("copy", "ovr"), STRATEGIES),
        ("MultinomialNB(alpha=0.1)", lambda: MultinomialNB(alpha=0.1), ("copy", "ovr"), STRATEGIES),
        ("BernoulliNB", lambda: BernoulliNB(), ("copy", "ovr"), STRATEGIES),
        ("ComplementNB", lambda: ComplementNB(), ("copy", "ovr"), STRATEGIES),
        ("CalibratedNB(DiscriminativeNB)", lambda: CalibratedNB(DiscriminativeNB()), ("copy",),
         ("scutfbr", "rcut", 0.0)),
        ("CalibratedNB(MultinomialNB)", lambda: CalibratedNB(MultinomialNB()), ("ovr",), ("scutfbr", 0.0)),
        ("SmoothingCV (--model auto)", lambda: SmoothingCV(), ("copy",), ("scutfbr",)),
    ]


def texts_of(corpus):
    t = [read_document(d) for d in corpus.documents]
    keep = [i for i, x in enumerate(t) if x is not None]
    return [t[i] for i in keep], [corpus.labels[i] for i in keep]


def load(name, root, limit=None):
    """[(train texts, train label sets, test texts, test label sets)]: one split or 5 folds
    (``limit``: the first ``limit`` documents of each part only, to check that it runs)."""
    if name == "goemotions":
        corpus = read_multilabel_corpus(root, label_file=Path(root) / "labels.tsv")
    else:
        corpus = read_multilabel_corpus(root, same_name="separate")
    tr, ytr = texts_of(corpus)
    tr, ytr = tr[:limit], ytr[:limit]
    if corpus.test is not None:
        te, yte = texts_of(corpus.test)
        return [(tr, ytr, te[:limit], yte[:limit])]
    out = []
    for a, b in KFold(5, shuffle=True, random_state=0).split(tr):
        out.append(([tr[i] for i in a], [ytr[i] for i in a], [tr[i] for i in b], [ytr[i] for i in b]))
    return out


def pooled(parts):
    """Pool per-fold (T, P, labels) over the union of labels."""
    names = sorted({lab for _, _, labs in parts for lab in labs})
    T, P = [], []
    for t, p, labs in parts:
        idx = [names.index(lab) for lab in labs]
        full_t, full_p = np.zeros((t.shape[0], len(names)), int), np.zeros((t.shape[0], len(names)), int)
        full_t[:, idx], full_p[:, idx] = t, p
        T.append(full_t)
        P.append(full_p)
    return multilabel_report(np.vstack(T), np.vstack(P), names)


def prepare(tr, ytr, te, yte, min_df=1):
    """One split's ``(train texts, test texts, Xtr, Xte, Ytr, Yte, labels, fold_counts)``: the
    counts of ``Vectorizer(min_df=min_df)`` fitted on the training texts, the indicator
    matrices, and the ``fold_counts`` a TextClassifier gives its MultiLabelNB (and ``textnb
    train --labels`` computes): the counts of every term, so that each fold inside the fit
    is on the vocabulary of its own training documents."""
    v = Vectorizer(min_df=min_df)
    Xtr, Xte = v.fit_transform(tr), v.transform(te)
    mlb = MultiLabelBinarizer().fit(list(ytr) + list(yte))
    return (tr, te, Xtr, Xte, mlb.transform(ytr), mlb.transform(yte), [str(c) for c in mlb.classes_],
            document_fold_counts(v, tr, Xtr))


def fit_cell(model, part):
    """``model`` (a MultiLabelNB) fitted on a :func:`prepare`'d split's training part, as
    ``TextClassifier(vectorizer=Vectorizer(min_df=...), model=model).fit`` fits it."""
    _, _, Xtr, _, Ytr, _, _, inner = part
    return model.fit(Xtr, Ytr, fold_counts=inner)


def run_corpus(name, root, quick, log, min_df=1, limit=None):
    prepared = [prepare(tr, ytr, te, yte, min_df) for tr, ytr, te, yte in load(name, root, limit)]
    rows = {}

    def record(key, parts, seconds, extra=None):
        r = pooled(parts)
        rows[key] = {"micro_f1": r["micro_f1"], "macro_f1": r["macro_f1"], "subset_accuracy": r["subset_accuracy"],
                     "hamming_loss": r["hamming_loss"], "labels_per_document": r["labels_per_document"]["predicted"],
                     "cpu_seconds": seconds, **(extra or {})}
        log(f"  {key}: micro-F1 {r['micro_f1']:.4f} macro-F1 {r['macro_f1']:.4f} "
            f"labels/doc {r['labels_per_document']['predicted']:.2f} ({seconds:.1f} s cpu)")

    for key, make in ((SVM, lambda: (TfidfVectorizer(sublinear_tf=True), OneVsRestClassifier(LinearSVC()))),
                      (SKNB, lambda: (CountVectorizer(), OneVsRestClassifier(SkMultinomialNB())))):
        start, parts = time.process_time(), []
        for tr, te, _, _, Ytr, Yte, labs, _ in prepared:
            vec, clf = make()
            clf.fit(vec.fit_transform(tr), Ytr)
            parts.append((Yte, clf.predict(vec.transform(te)), labs))
        record(key, parts, time.process_time() - start)

    for base_name, factory, methods, strategies in bases():
        for method in methods:
            for strategy in strategies:
                if quick and (base_name.startswith("Calibrated") or (method == "ovr" and "Discriminative" in base_name)):
                    continue
                default = base_name.endswith("(default)") and method == "copy" and strategy == "scutfbr"
                variants = [(1, 2), (0, 2), (1, 3), (1, 5)] if default else [(1, 2)]
                for min_labels, cv in variants:
                    start, parts, chosen = time.process_time(), [], []
                    for part in prepared:
                        _, _, _, Xte, _, Yte, labs, _ = part
                        m = fit_cell(MultiLabelNB(factory(), method=method, threshold=strategy, min_labels=min_labels,
                                                  cv=cv), part)
                        parts.append((Yte, m.predict(Xte), labs))
                        chosen.append({k: (float(getattr(m, k)) if k == "fbr_" else int(getattr(m, k)))
                                       for k in ("fbr_", "rank_") if hasattr(m, k)})
                    key = f"{base_name} | {method} | {strategy}" + ("" if min_labels else " | min_labels=0") \
                        + ("" if cv == 2 else f" | cv={cv}")
                    record(key, parts, time.process_time() - start, {"chosen": chosen})
    return rows


def markdown(results):
    """The tables of docs/multilabel.md: one per corpus, every cell."""
    out = []
    for corpus, rows in results.items():
        out += [f"#### {corpus}", "",
                "| model (base, method, strategy) | micro-F1 | macro-F1 | labels/doc | subset acc. | Hamming | "
                "cpu s | chosen |", "|---|---:|---:|---:|---:|---:|---:|---|"]
        for key, r in rows.items():
            chosen = r.get("chosen") or []
            shown = ", ".join(sorted({f"{k[:-1]} {v:g}" for c in chosen for k, v in c.items()}))
            out.append(f"| {key.replace(' | ', ', ')} | {r['micro_f1']:.4f} | {r['macro_f1']:.4f} | {r['labels_per_document']:.2f} | "
                       f"{r['subset_accuracy']:.4f} | {r['hamming_loss']:.4f} | {r['cpu_seconds']:.1f} | {shown} |")
        out.append("")
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpora", default="/work/corpora")
    ap.add_argument("--only", nargs="*", default=["goemotions", "20news-bydate", "bbc_news"])
    ap.add_argument("--quick", action="store_true", help="leave out the slow cells (calibrated, ovr over DiscriminativeNB)")
    ap.add_argument("--min-df", type=int, default=1, help="the Vectorizer's min_df (textnb train --min-df)")
    ap.add_argument("--limit", type=int, default=None, help="the first N documents of each part (a quick check)")
    ap.add_argument("--json", default=None)
    ap.add_argument("--table", nargs="*", metavar="JSON", help="print the markdown tables of saved results and stop")
    args = ap.parse_args(argv)
    if args.table:
        results = {}
        for path in args.table:
            results.update(json.loads(Path(path).read_text()))
        print(markdown(results))
        return 0
    results = {}
    for name in args.only:
        print(name, flush=True)
        results[name] = run_corpus(name, Path(args.corpora) / name, args.quick, lambda s: print(s, flush=True),
                                   min_df=args.min_df, limit=args.limit)
        if args.json:
            Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
