#!/usr/bin/env python
"""APNBC vs naive Bayes: the paper's protocol on the UCI sets, and on three text corpora.

UCI part (Webb & Pazzani, section 4): every ARFF file in ``../shared/datasets/uci/``;
10 × 10-fold cross-validation (shuffled folds, seeds 0..9); naive Bayes with the paper's
eq. 4 estimates and numeric attributes cut into 10 equal-frequency bins on each training
fold (``TabularNB(nominal="eq4", numeric="equal-frequency", bins=10)``); APNBC weights
learned by resubstitution at significance 0.05, 0.1 and 1. Per set: mean error (%), the
error ratio APNBC / NB, and over the sets win/loss/draw with a one-tailed sign test, as
the paper's Table 2. Within a fold all four classifiers share one fitted naive Bayes
model (APNBC only adds weights learned from its training-set scores); the first fold of
every set checks that this equals fitting ``textnb.semi_naive.apnbc.APNBC`` itself.

Text part: multinomial NB on word counts (``textnb.text.vectorizer.Vectorizer``) vs APNBC with the
weights learned by resubstitution and from 10-fold out-of-fold scores (``fit_on="cv"``):
20 Newsgroups (bydate train/test), SMS Spam Collection and SpamAssassin (10-fold CV).

Writes docs/apnbc.md.

    python scripts/experiments/apnbc.py [--repeats 10] [--skip-text] [--only NAME ...]
"""

import argparse
import json
import os
import re
import sys
import tarfile
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
from scipy.stats import binom
from sklearn.model_selection import KFold, StratifiedKFold

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from textnb.semi_naive.apnbc import APNBC, _search_weights_fast  # noqa: E402
from textnb.naive_bayes.discrete import MultinomialNB  # noqa: E402
from textnb.io.tables import read_table  # noqa: E402
from textnb.naive_bayes.tabular import TabularNB  # noqa: E402

SHARED = ROOT.parent / "shared"
UCI = SHARED / "datasets" / "uci"
CORPORA = SHARED / "corpora"
SIGNIFICANCE = (0.05, 0.1, 1.0)

# The paper's Table 2 survives in our transcription only as its summary rows; the
# per-set error figures were lost. Names of the paper's sets that are in ../shared.
PAPER_NAME = {
    "adult": "adult", "audiology": "audio", "balance-scale": "balance-scale",
    "breast-cancer": "breast cancer Slov", "breast-w": "breast cancer Wisc",
    "heart-c": "cleveland", "credit-a": "crx (Aust. credit)", "echocardiogram": "echocardiogram",
    "glass": "glass", "colic": "horse-colic", "vote": "house-votes", "iris": "iris",
    "kr-vs-kp": "kr-vs-kp", "contact-lenses": "lenses", "monks-problems-1_test": "monk1",
    "monks-problems-2_test": "monk2", "monks-problems-3_test": "monk3", "mushroom": "mush",
    "diabetes": "Pima diabetes", "promoters": "promoters", "soybean": "soybean large",
    "waveform-5000": "waveform",
}
PAPER_SUMMARY = {  # significance -> (wins, losses, draws, mean ratio as the text states it)
    0.05: (7, 1, 22, "0.96"),
    0.1: (9, 5, 16, "0.97 (\"error is reduced by 3% on average\")"),
    1.0: (12, 17, 1, "1.00"),
}


def sign_test_p(wins, losses):
    """One-tailed sign test: P(losses or fewer of wins + losses | p = 1/2)."""
    n = wins + losses
    return float(binom.cdf(losses, n, 0.5)) if n else 1.0


def uci_layout():
    """class attribute and ID column per file, from the SOURCES.md table."""
    layout = {}
    for line in (UCI / "SOURCES.md").read_text().splitlines():
        m = re.match(r"\| `([^`]+)\.arff` \|.*\| ([^|]+) \| (?:yes|no)[^|]* \|$", line)
        if not m:
            continue
        cls = m.group(2).strip()
        drop = re.search(r"drop ID `([^`]+)`", cls)
        name = cls.split(" (")[0].strip()
        # a "(last)" class may be named in short there: read_table's default is the last
        layout[m.group(1)] = (None if "(last)" in cls else name, drop.group(1) if drop else None)
    return layout


def run_uci_set(name, class_name, drop, repeats, folds=10):
    table = read_table(UCI / f"{name}.arff", class_name=class_name, drop=drop)
    X, y = table.X, np.asarray(table.y)
    attrs = tuple(table.attributes)

    def make_nb():
        return TabularNB(attributes=attrs, nominal="eq4", numeric="equal-frequency", bins=10)

    n = len(y)
    errors = {"nb": np.zeros(repeats)}
    errors.update({s: np.zeros(repeats) for s in SIGNIFICANCE})
    adjusted_folds = {s: 0 for s in SIGNIFICANCE}
    checked = False
    for r in range(repeats):
        for train, test in KFold(n_splits=min(folds, n), shuffle=True, random_state=r).split(X):
            nb = make_nb().fit(X[train], y[train])
            y_index = np.searchsorted(nb.classes_, y[train])
            jll_train = nb.predict_joint_log_proba(X[train])
            jll_test = nb.predict_joint_log_proba(X[test])
            errors["nb"][r] += np.sum(nb.classes_[np.argmax(jll_test, axis=1)] != y[test])
            for s in SIGNIFICANCE:
                w, hist = _search_weights_fast(jll_train, y_index, significance=s)
                pred = nb.classes_[np.argmax(jll_test + w, axis=1)]
                errors[s][r] += np.sum(pred != y[test])
                adjusted_folds[s] += bool(hist)
                if not checked and s == 0.05:
                    model = APNBC(make_nb(), significance=s).fit(X[train], y[train])
                    assert np.array_equal(model.predict(X[test]), pred), name
                    checked = True
    pct = {k: 100.0 * v / n for k, v in errors.items()}
    return {"name": name, "n": n, "classes": len(np.unique(y)), "repeats": repeats,
            "mean": {k: float(v.mean()) for k, v in pct.items()},
            "adjusted_folds": adjusted_folds, "folds_total": repeats * min(folds, n)}


# -- text ------------------------------------------------------------------------------------
def _read_docs(root):
    docs, labels = [], []
    for label in sorted(os.listdir(root)):
        folder = root / label
        if not folder.is_dir():
            continue
        for f in sorted(os.listdir(folder)):
            docs.append((folder / f).read_bytes().decode("utf-8", errors="replace"))
            labels.append(label)
    return docs, np.array(labels)


def _text_models():
    return {
        "NB": lambda: MultinomialNB(),
        "APNBC resub 0.05": lambda: APNBC(MultinomialNB(), significance=0.05),
        "APNBC resub 1": lambda: APNBC(MultinomialNB(), significance=1.0),
        "APNBC cv 0.05": lambda: APNBC(MultinomialNB(), significance=0.05, fit_on="cv",
                                       random_state=0),
        "APNBC cv 1": lambda: APNBC(MultinomialNB(), significance=1.0, fit_on="cv",
                                    random_state=0),
    }


def _score_split(train_docs, y_train, test_docs, y_test, errors, weights):
    from textnb.text.vectorizer import Vectorizer

    vec = Vectorizer()
    Xtr = vec.fit_transform(train_docs)
    Xte = vec.transform(test_docs)
    for key, make in _text_models().items():
        model = make().fit(Xtr, y_train)
        errors[key] = errors.get(key, 0) + int(np.sum(model.predict(Xte) != y_test))
        if hasattr(model, "adjustments_"):
            weights.setdefault(key, []).append(
                (model.classes_, model.class_log_weight_, len(model.search_history_)))


def run_text(tmp):
    results = []
    with tarfile.open(CORPORA / "20news-bydate.tar.gz") as tar:
        tar.extractall(tmp, filter="data")
    base = Path(tmp) / "20news-bydate"
    tr_docs, tr_y = _read_docs(base / "train")
    te_docs, te_y = _read_docs(base / "test")
    errors, weights = {}, {}
    t0 = time.perf_counter()
    _score_split(tr_docs, tr_y, te_docs, te_y, errors, weights)
    results.append(("20 Newsgroups (bydate train/test)", len(te_y), "1 split", errors, weights,
                    time.perf_counter() - t0))
    for archive, folder, label in [("sms_spam_collection.tar.gz", "sms_spam_collection", "SMS Spam Collection"),
                                   ("spamassassin_public_corpus.tar.gz", "spamassassin", "SpamAssassin")]:
        with tarfile.open(CORPORA / archive) as tar:
            tar.extractall(tmp, filter="data")
        docs, y = _read_docs(Path(tmp) / folder)
        docs = np.array(docs, dtype=object)
        errors, weights = {}, {}
        t0 = time.perf_counter()
        for train, test in StratifiedKFold(10, shuffle=True, random_state=0).split(docs, y):
            _score_split(list(docs[train]), y[train], list(docs[test]), y[test], errors, weights)
        results.append((label, len(y), "10-fold CV", errors, weights, time.perf_counter() - t0))
    return results


# -- report ------------------------------------------------------------------------------------
def _fmt_ratio(a, b):
    if b == 0:
        return "1.00" if a == 0 else "inf"
    return f"{a / b:.2f}"


def write_report(uci, text, out, elapsed):
    lines = [
        "# APNBC: adjusted probability naive Bayes against naive Bayes",
        "",
        "Produced by `python scripts/experiments/apnbc.py` (do not edit by hand). "
        "Method: Webb & Pazzani, *Adjusted Probability Naive Bayesian Induction* "
        "(`../shared/papers/000_9364d3ac28b31830.txt`); implementation `textnb/semi_naive/apnbc.py` "
        "(how the ambiguous parts of the appendix are read is in the `APNBC` docstring).",
        "",
        "## UCI sets: the paper's protocol",
        "",
        "Every ARFF file in `../shared/datasets/uci/` (class attribute and ID column as its "
        "`SOURCES.md` says). 10 × 10-fold cross-validation (shuffled, unstratified folds, "
        "as the paper's \"random partitions\"; seeds 0-9; fewer repeats where the table "
        "says so), naive Bayes with the paper's eq. 4 estimates and numeric attributes "
        "cut into 10 equal-frequency bins on each training fold, APNBC weights from "
        "resubstitution at significance α = 0.05, 0.1, 1. Mean error in %; ratio = "
        "APNBC error / NB error; *adj.* = share of training folds where APNBC accepted at "
        "least one weight. A win / loss is a lower / higher mean error than NB; a draw is "
        "an equal one.",
        "",
        "| data set | paper's name | N | classes | repeats | NB | α=0.05 | ratio | adj. | "
        "α=0.1 | ratio | adj. | α=1 | ratio | adj. |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    tally = {s: [0, 0, 0] for s in SIGNIFICANCE}
    ratios = {s: [] for s in SIGNIFICANCE}
    paper_tally = {s: [0, 0, 0] for s in SIGNIFICANCE}
    for r in uci:
        nb = r["mean"]["nb"]
        cells = []
        for s in SIGNIFICANCE:
            e = r["mean"][s]
            # equal means to 1e-9 %: the same predictions in every fold
            k = 2 if abs(e - nb) < 1e-9 else (0 if e < nb else 1)
            tally[s][k] += 1
            if r["name"] in PAPER_NAME:
                paper_tally[s][k] += 1
            ratio = _fmt_ratio(e, nb)
            ratios[s].append(1.0 if nb == 0 and e == 0 else (e / nb if nb else np.inf))
            mark = {0: " ▼", 1: " ▲", 2: ""}[k]
            cells += [f"{e:.2f}{mark}", ratio, f"{r['adjusted_folds'][s] / r['folds_total']:.0%}"]
        lines.append(f"| {r['name']} | {PAPER_NAME.get(r['name'], '')} | {r['n']} | {r['classes']} | "
                     f"{r['repeats']} | {nb:.2f} | " + " | ".join(cells) + " |")
    lines += ["", "▼ lower error than NB (a win), ▲ higher (a loss).", "",
              "### Summary, with the paper's Table 2 summary rows", "",
              "| | α = 0.05 | α = 0.1 | α = 1 |", "|---|---|---|---|"]

    def row(label, vals):
        lines.append(f"| {label} | " + " | ".join(vals) + " |")

    row(f"win/loss/draw, all {len(uci)} sets (ours)", [f"{w}/{l}/{d}" for w, l, d in tally.values()])
    row("one-tailed sign test p (ours)", [f"{sign_test_p(w, l):.3f}" for w, l, d in tally.values()])
    row("mean error ratio (ours)", [f"{np.mean([x for x in ratios[s] if np.isfinite(x)]):.3f}"
                                    for s in SIGNIFICANCE])
    row(f"win/loss/draw, the {sum(paper_tally[0.05])} sets the paper also used (ours)",
        [f"{w}/{l}/{d}" for w, l, d in paper_tally.values()])
    row("win/loss/draw, paper (30 sets)", [f"{PAPER_SUMMARY[s][0]}/{PAPER_SUMMARY[s][1]}/{PAPER_SUMMARY[s][2]}"
                                           for s in SIGNIFICANCE])
    row("one-tailed sign test p, paper", ["0.035 (stated)"] + [
        f"{sign_test_p(*PAPER_SUMMARY[s][:2]):.3f} (from its counts)" for s in SIGNIFICANCE[1:]])
    row("mean error ratio, paper", [PAPER_SUMMARY[s][3] for s in SIGNIFICANCE])
    w, l, _ = tally[0.05]
    lines += [
        "",
        f"**Done criterion** (at α = 0.05 no more losses than wins against NB on the UCI "
        f"sets): {w} wins, {l} losses: **{'met' if l <= w else 'NOT met'}**.",
        "",
        "The paper's per-set error figures (its Table 2 body) did not survive the "
        "transcription in `../shared/papers/`, so only its summary rows are compared. Its "
        "30 sets include eight that are not in `../shared` (hungarian, hypo, lymphography, "
        "mp, phoneme, primary tumor, splice-c, tic-tac-toe); the files here that it did "
        "not use (anneal, letter, sat, segment, ...) are extra. The paper's \"monk1-3\" "
        "are taken to be the full 432-example `_test` files; its C implementation may "
        "differ in details (fold assignment, handling of missing values in the bins).",
        "",
    ]
    lines += ["## Text corpora: multinomial NB vs APNBC, weights from resubstitution or cross-validation",
              "",
              "Word counts from `textnb.text.vectorizer.Vectorizer()` (defaults: lowercase, tokens of 2+ "
              "word characters), fitted on each training part; `MultinomialNB()` (α = 1). "
              "APNBC *resub*: weights from the training set's own scores (the paper); *cv*: "
              "from 10-fold out-of-fold scores (`fit_on=\"cv\"`), base model refitted on all "
              "the training data. APNBC is fitted here on the training part's count matrix, so its "
              "inner folds' models use the training part's vocabulary (in a `TextClassifier` and on "
              "the command line, `--adjust-on cv`, each inner fold has its own vocabulary, as a fresh "
              "fit on its documents would). Error in % of test documents (summed over folds for CV).",
              ""]
    keys = list(_text_models())
    lines.append("| corpus | N tested | protocol | " + " | ".join(keys) + " | seconds |")
    lines.append("|---|---:|---|" + "---:|" * len(keys) + "---:|")
    for label, n, proto, errors, weights, secs in text:
        cells = []
        for k in keys:
            e = 100.0 * errors[k] / n
            if k != "NB":
                e_nb = 100.0 * errors["NB"] / n
                mark = " ▼" if e < e_nb - 1e-12 else (" ▲" if e > e_nb + 1e-12 else "")
                cells.append(f"{e:.2f}{mark}")
            else:
                cells.append(f"{e:.2f}")
        lines.append(f"| {label} | {n} | {proto} | " + " | ".join(cells) + f" | {secs:.0f} |")
    lines += ["", "Weights learned (log A per class; classes without an adjustment omitted; for "
              "CV corpora the first fold):", ""]
    for label, n, proto, errors, weights, secs in text:
        for k, entries in weights.items():
            classes, logw, steps = entries[0]
            nz = [f"{c}: {w:+.2f}" for c, w in zip(classes, logw) if w != 0]
            folds_adj = sum(1 for e in entries if e[2] > 0)
            lines.append(f"- {label}, {k}: {steps} step(s) in the first fold, adjusted in "
                         f"{folds_adj}/{len(entries)} fits; " + (", ".join(nz) if nz else "no adjustment"))
    lines += ["", f"Run time of the writing run: {elapsed / 60:.1f} min on a shared 2-core machine (per-set results may come from a --cache folder; the UCI part took about 12 min and the text part about 5 min when computed).", ""]
    Path(out).write_text("\n".join(lines))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--big-repeats", type=int, default=3,
                    help="repeats for sets with more than --big objects (default 3)")
    ap.add_argument("--big", type=int, default=15000)
    ap.add_argument("--only", nargs="*", help="UCI set names to run (default: all)")
    ap.add_argument("--skip-text", action="store_true")
    ap.add_argument("--skip-uci", action="store_true")
    ap.add_argument("--cache", help="folder for per-set results (reused when present)")
    ap.add_argument("--out", default=str(ROOT / "docs" / "apnbc.md"))
    args = ap.parse_args(argv)
    if not UCI.is_dir():
        print(f"no UCI data at {UCI}", file=sys.stderr)
        return 1
    t0 = time.perf_counter()
    layout = uci_layout()
    names = sorted(p.stem for p in UCI.glob("*.arff"))
    if args.only:
        names = [n for n in names if n in args.only]
    uci = []
    cache = Path(args.cache) if args.cache else None
    if cache:
        cache.mkdir(parents=True, exist_ok=True)
    for name in ([] if args.skip_uci else names):
        if cache and (cache / f"{name}.json").exists():
            r = json.loads((cache / f"{name}.json").read_text())
            r["mean"] = {(k if k == "nb" else float(k)): v for k, v in r["mean"].items()}
            r["adjusted_folds"] = {float(k): v for k, v in r["adjusted_folds"].items()}
            uci.append(r)
            continue
        class_name, drop = layout.get(name, (None, None))
        n_rows = sum(1 for line in open(UCI / f"{name}.arff", "rb") if line.strip() and not line.startswith((b"@", b"%")))
        repeats = args.big_repeats if n_rows > args.big else args.repeats
        t = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = run_uci_set(name, class_name, drop, repeats)
        uci.append(r)
        if cache:
            (cache / f"{name}.json").write_text(json.dumps(r))
        m = r["mean"]
        print(f"{name:32s} n={r['n']:6d} NB {m['nb']:6.2f}  " +
              "  ".join(f"{s}: {m[s]:6.2f}" for s in SIGNIFICANCE) +
              f"  ({time.perf_counter() - t:.0f} s)", flush=True)
    text = []
    text_cache = cache / "text.json" if cache else None
    if text_cache and text_cache.exists():
        text = [tuple(t) for t in json.loads(text_cache.read_text())]
    elif not args.skip_text and CORPORA.is_dir():
        with tempfile.TemporaryDirectory() as tmp:
            text = run_text(tmp)
        if text_cache:
            text_cache.write_text(json.dumps(
                [(label, n, proto, errors,
                  {k: [(list(map(str, c)), list(map(float, w)), int(st)) for c, w, st in v]
                   for k, v in weights.items()}, secs)
                 for label, n, proto, errors, weights, secs in text]))
        for label, n, proto, errors, weights, secs in text:
            print(label, {k: round(100 * v / n, 2) for k, v in errors.items()}, flush=True)
    write_report(uci, text, args.out, time.perf_counter() - t0)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
