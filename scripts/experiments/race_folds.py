#!/usr/bin/env python
"""Measure one change to the default text model (DiscriminativeNB()) in the protocol of
``text_accuracy.py``: the same loaders, splits and per-split vocabulary (the official
train / test split where a corpus has one, else seeded stratified 10-fold CV), the
default's accuracy and log-loss per corpus and per fold, for two versions of the code.

    # 1. the count matrices and splits, once (any tree: the vectorizer is not changed)
    python scripts/experiments/race_folds.py prepare --corpora /work/corpora --cache /tmp/race
    # 2. the default on them, with the code of a tree (run once per tree)
    python scripts/experiments/race_folds.py run --tree /path/to/tree --cache /tmp/race --out old.json
    # 3. the two side by side: mean, per fold, paired standard errors
    python scripts/experiments/race_folds.py compare old.json new.json

Written for session 29 ("identical rows share the race's folds", docs/text_accuracy.md).
"""

import argparse
import importlib.util
import json
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def _text_accuracy():
    spec = importlib.util.spec_from_file_location("text_accuracy", HERE / "text_accuracy.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def prepare(args):
    import scipy.sparse as sp

    ta = _text_accuracy()
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    for label, folder in ta.CORPORA:
        root = Path(args.corpora) / folder
        if (args.only and folder not in args.only) or not root.exists():
            continue
        start = time.perf_counter()
        X, _, y, n_test = ta.load(root)
        sp.save_npz(cache / f"{folder}.X.npz", X.tocsr())
        parts = ta.splits(X, y, n_test)
        np.savez(cache / f"{folder}.meta.npz", y=y, n_test=n_test, label=label,
                 **{f"train{i}": tr for i, (tr, _) in enumerate(parts)},
                 **{f"test{i}": te for i, (_, te) in enumerate(parts)})
        print(f"{label}: {X.shape} in {time.perf_counter() - start:.1f} s", file=sys.stderr, flush=True)


def _identical(X, y):
    """Rows that have an identical row (same counts, same class) elsewhere in ``X``."""
    from textnb.core.dfe import canonical, sample_keys

    keys = sample_keys(canonical(X), np.unique(y, return_inverse=True)[1], 0)
    _, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
    return int((counts[inverse] > 1).sum())


def run(args):
    import scipy.sparse as sp

    sys.path.insert(0, str(Path(args.tree).resolve()))
    import textnb
    from textnb.naive_bayes.discriminative import DiscriminativeNB

    print(f"textnb from {textnb.__file__}", file=sys.stderr, flush=True)
    cache = Path(args.cache)
    out = {}
    for meta_path in sorted(cache.glob("*.meta.npz")):
        folder = meta_path.name[:-len(".meta.npz")]
        if args.only and folder not in args.only:
            continue
        meta = np.load(meta_path, allow_pickle=True)
        X = sp.load_npz(cache / f"{folder}.X.npz").tocsr()
        y = meta["y"]
        classes = np.unique(y)
        n_splits = sum(1 for k in meta.files if k.startswith("train"))
        rows = {"label": str(meta["label"]), "n_test": int(meta["n_test"]), "fold_acc": [], "fold_loss": [],
                "choices": [], "identical": [], "test": [], "correct": [], "loss": []}
        start = time.perf_counter()
        for i in range(n_splits):
            train, test = meta[f"train{i}"], meta[f"test{i}"]
            cols = np.flatnonzero(np.bincount(X[train].indices, minlength=X.shape[1]))
            Xtr, Xte = X[train][:, cols], X[test][:, cols]
            model = DiscriminativeNB().fit(Xtr, y[train])
            P = np.zeros((len(test), len(classes)))
            P[:, np.searchsorted(classes, model.classes_)] = model.predict_proba(Xte)
            p_true = P[np.arange(len(test)), np.searchsorted(classes, y[test])]
            loss = -np.log(np.clip(p_true, 1e-15, 1.0))  # (sklearn's log_loss, as text_accuracy.py)
            correct = np.asarray(model.predict(Xte)) == y[test]
            rows["fold_acc"].append(float(correct.mean()))
            rows["fold_loss"].append(float(loss.mean()))
            rows["choices"].append([model.event_model_, float(model.alpha_)])
            rows["identical"].append(_identical(Xtr, y[train]))
            rows["test"] += test.tolist()
            rows["correct"] += correct.tolist()
            rows["loss"] += loss.tolist()
        rows["acc"] = float(np.mean(rows["correct"]))
        rows["log_loss"] = float(np.mean(rows["loss"]))
        rows["seconds"] = time.perf_counter() - start
        out[folder] = rows
        print(f"{rows['label']}: acc {rows['acc']:.4f} log-loss {rows['log_loss']:.4f} choices "
              f"{sorted(set(map(tuple, rows['choices'])))} identical rows {rows['identical']}", file=sys.stderr,
              flush=True)
        Path(args.out).write_text(json.dumps(out))


def _paired(a, b, key, fold_key, n_test, seed=0):
    """(new - old, standard error): paired over the folds (CV), or a paired bootstrap of
    the test documents (a split)."""
    if not n_test:
        d = np.array(b[fold_key]) - np.array(a[fold_key])
        return float(d.mean()), float(d.std(ddof=1) / np.sqrt(len(d)))
    x, z = np.array(a[key], dtype=float), np.array(b[key], dtype=float)
    idx = np.random.default_rng(seed).integers(0, len(x), (1000, len(x)))
    return float(z.mean() - x.mean()), float((z[idx] - x[idx]).mean(axis=1).std(ddof=1))


def compare(args):
    old, new = json.loads(Path(args.old).read_text()), json.loads(Path(args.new).read_text())
    corpora = [c for c in old if c in new]
    print("| corpus | identical training rows (per split) | event model old / new | accuracy old | new | "
          "new - old (points) | log-loss old | new | new - old |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|")
    accs, losses = [], []
    for c in corpora:
        a, b = old[c], new[c]
        assert a["test"] == b["test"]
        d_acc, se_acc = _paired(a, b, "correct", "fold_acc", a["n_test"])
        d_loss, se_loss = _paired(a, b, "loss", "fold_loss", a["n_test"])
        ident = a["identical"]
        ident = str(ident[0]) if len(ident) == 1 else f"{min(ident)}-{max(ident)}"
        ch = lambda r: "/".join(sorted({f"{f[:4]}" for f, _ in r["choices"]}))  # noqa: E731
        n_changed = sum(x != z for x, z in zip(a["choices"], b["choices"]))
        print(f"| {a['label']} | {ident} | {ch(a)} / {ch(b)} ({n_changed} of {len(a['choices'])} changed) | "
              f"{100 * a['acc']:.2f} | {100 * b['acc']:.2f} | {100 * d_acc:+.2f} ± {100 * se_acc:.2f} | "
              f"{a['log_loss']:.4f} | {b['log_loss']:.4f} | {d_loss:+.4f} ± {se_loss:.4f} |")
        accs.append((a["acc"], b["acc"]))
        losses.append((a["log_loss"], b["log_loss"]))
    accs, losses = np.array(accs), np.array(losses)
    print(f"| mean | | | {100 * accs[:, 0].mean():.2f} | {100 * accs[:, 1].mean():.2f} | "
          f"{100 * (accs[:, 1] - accs[:, 0]).mean():+.3f} | {losses[:, 0].mean():.4f} | {losses[:, 1].mean():.4f} | "
          f"{(losses[:, 1] - losses[:, 0]).mean():+.4f} |")
    if args.folds:
        for c in corpora:
            a, b = old[c], new[c]
            if a["fold_acc"] == b["fold_acc"] and a["fold_loss"] == b["fold_loss"]:
                continue
            print(f"\n{a['label']} per split (accuracy %, log-loss; old -> new; event model):")
            for i, (xa, xb, la, lb, ca, cb) in enumerate(zip(a["fold_acc"], b["fold_acc"], a["fold_loss"],
                                                             b["fold_loss"], a["choices"], b["choices"])):
                print(f"  {i}: {100 * xa:.2f} -> {100 * xb:.2f}  {la:.4f} -> {lb:.4f}  {ca[0]} -> {cb[0]}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--corpora", default=str(HERE.parents[2].parent / "corpora"))
    p.add_argument("--cache", required=True)
    p.add_argument("--only", nargs="*")
    r = sub.add_parser("run")
    r.add_argument("--tree", required=True, help="the worktree whose textnb to measure")
    r.add_argument("--cache", required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--only", nargs="*")
    c = sub.add_parser("compare")
    c.add_argument("old")
    c.add_argument("new")
    c.add_argument("--folds", action="store_true", help="also the per-split figures of the corpora that changed")
    args = ap.parse_args(argv)
    {"prepare": prepare, "run": run, "compare": compare}[args.command](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
