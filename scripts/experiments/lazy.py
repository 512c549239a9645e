"""LBR / HLBR (textnb.lbr) vs naive Bayes vs Weka 3.6's LBR vs the paper's table 3; and
lazy text NB (textnb.lbr_text) vs multinomial NB on 20 Newsgroups and SMS spam.

Tabular protocol (Wang & Webb, table 3; ``../shared/design/algorithms.md`` §3): the
stratified 10-fold split and per-fold MDL discretisation of ``scripts/experiments/tan.py``
(imported: same folds, same discretised ARFF files for Weka). Columns: NB (= LBR that
never conditions), LBR, HLBR, TAN (textnb.bayesnet) when it imports, Weka 3.6
``weka.classifiers.lazy.LBR`` on the same fold files, and the paper's figures.
Weka's LBR is slow: it is first run on fold 1 only; when that fold takes longer than
``--weka-fold-budget`` seconds it is not run on the other folds and the speed ratio is
that of fold 1 (textnb LBR on fold 1 vs Weka on fold 1), marked so in the table.

Text protocol: 20 Newsgroups "bydate" train/test split; SMS spam with a seeded
stratified 2/3 : 1/3 split; counts from ``textnb.text.Vectorizer`` (min_df=2);
multinomial NB vs ``LazyTextNB`` (multinomial local models); accuracy and documents/s
of prediction (fit time reported separately).

Usage::

    python scripts/experiments/lazy.py [--sets kr-vs-kp vote ...] [--no-weka] [--no-text]
        [--corpora DIR_WITH_EXTRACTED_CORPORA] [--out docs/lazy.md]
"""

import argparse
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

import tan as tanx  # noqa: E402  (folds, discretisation, paper table, Weka fold files)

from textnb.arff import write_arff  # noqa: E402
from textnb.lbr import LBR  # noqa: E402
from textnb.tables import Attribute  # noqa: E402

try:
    from textnb.bayesnet import TAN
except Exception:  # noqa: BLE001 - optional column
    TAN = None

SHARED = REPO.parent / "shared"


def fit_predict(model, fold, seconds):
    t0 = time.perf_counter()
    model.fit(fold.X_train, fold.y_train, attributes=fold.attributes,
              class_values=fold.class_attribute.values)
    p = model.predict(fold.X_test)
    seconds.append(time.perf_counter() - t0)
    return p


def weka_lbr_fold(fold, k, tmp, timeout):
    """Weka LBR on one fold's ARFF files; (predictions, seconds) or (None, seconds)."""
    cls = Attribute(fold.class_attribute.name, "nominal",
                    [f"c{i}" for i in range(len(fold.class_attribute.values))])
    labels = list(fold.class_attribute.values)
    paths = []
    for part, X, y in (("train", fold.X_train, fold.y_train), ("test", fold.X_test, fold.y_test)):
        path = os.path.join(tmp, f"{part}{k}.arff")
        yi = np.array([labels.index(v) for v in y], dtype=float)
        write_arff(path, fold.attributes + [cls], np.column_stack([X, yi]), relation=f"fold{k}")
        paths.append(path)
    cmd = ["java", "-Xmx2g", "-cp", tanx.WEKA_JAR, "weka.classifiers.lazy.LBR",
           "-t", paths[0], "-T", paths[1], "-p", "0"]
    t0 = time.perf_counter()
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, time.perf_counter() - t0
    sec = time.perf_counter() - t0
    rows = [m for m in map(tanx._PRED_LINE.match, out.stdout.splitlines()) if m]
    if len(rows) != len(fold.y_test):
        raise RuntimeError(f"weka LBR printed {len(rows)} predictions: {out.stderr[-300:]}")
    return np.array([labels[int(m.group(3)) - 1] for m in rows], dtype=object), sec


def run_set(name, *, weka, budget, timeout, progress):
    table = tanx.load_dataset(name)
    folds = list(tanx.discretised_folds(table, tanx.make_folds(table.y)))
    n = len(table.y)
    res = {"name": name, "n": n}
    for key, make in (("NB", lambda: LBR(min_errors=10**12)), ("LBR", LBR),
                      ("HLBR", lambda: LBR(candidates="heuristic"))):
        secs, preds = [], np.empty(n, dtype=object)
        for f in folds:
            preds[f.test_index] = fit_predict(make(), f, secs)
        res[key] = {"err": float(np.mean(preds != table.y)) * 100, "sec": sum(secs),
                    "fold1": secs[0], "pred": preds}
    if TAN is not None:
        try:
            r = tanx.evaluate_model(lambda f: TAN(), folds)
            res["TAN"] = {"err": 100 * r["errors"] / r["n"], "sec": r["seconds"]}
        except Exception as exc:  # noqa: BLE001
            res["TAN"] = {"err": float("nan"), "sec": float("nan"), "note": str(exc)[:80]}
    if weka:
        tmp = tempfile.mkdtemp(prefix="lazy-weka-")
        try:
            preds = np.empty(n, dtype=object)
            secs, done = [], []
            for k, f in enumerate(folds):
                p, s = weka_lbr_fold(f, k, tmp, timeout)
                secs.append(s)
                if p is None:
                    break
                preds[f.test_index] = p
                done.append(k)
                if k == 0 and s > budget:
                    break
            if done:
                idx = np.concatenate([folds[k].test_index for k in done])
                agree = int(np.sum(preds[idx] == res["LBR"]["pred"][idx]))
                full = len(done) == len(folds)
                res["Weka"] = {
                    "err": float(np.mean(preds[idx] != table.y[idx])) * 100, "sec": sum(secs),
                    "folds": len(done), "agree": agree, "compared": len(idx),
                    "ratio": (sum(secs) / res["LBR"]["sec"]) if full
                    else secs[0] / res["LBR"]["fold1"],
                }
            else:
                res["Weka"] = {"timeout": secs[0]}
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    progress(f"{name}: NB {res['NB']['err']:.2f} LBR {res['LBR']['err']:.2f} "
             f"HLBR {res['HLBR']['err']:.2f} ({res['LBR']['sec']:.1f}s / {res['HLBR']['sec']:.1f}s)"
             + (f" Weka {res['Weka']}" if "Weka" in res else ""))
    return res


# -- text -----------------------------------------------------------------------------------
def _read_folder(folder):
    from textnb.corpus import read_document

    docs, labels = [], []
    for cls in sorted(os.listdir(folder)):
        d = os.path.join(folder, cls)
        if not os.path.isdir(d):
            continue
        for fn in sorted(os.listdir(d)):
            docs.append(read_document(os.path.join(d, fn)))
            labels.append(cls)
    return docs, np.array(labels)


def text_sets(corpora):
    corpora = Path(corpora)
    news = corpora / "20news-bydate"
    if news.exists():
        tr, te = _read_folder(news / "train"), _read_folder(news / "test")
        yield "20 Newsgroups (bydate)", tr, te
    sms = corpora / "sms_spam_collection"
    if sms.exists():
        docs, y = [], []
        for line in (sms / "SMSSpamCollection").read_text(encoding="utf-8").splitlines():
            label, _, text = line.partition("\t")
            docs.append(text)
            y.append(label)
        y = np.array(y)
        rng = np.random.default_rng(1)
        test = np.zeros(len(y), dtype=bool)
        for c in np.unique(y):
            idx = np.flatnonzero(y == c)
            test[rng.choice(idx, len(idx) // 3, replace=False)] = True
        d = np.array(docs, dtype=object)
        yield "SMS spam (2/3 : 1/3)", (list(d[~test]), y[~test]), (list(d[test]), y[test])


def run_text(corpora, progress, n_jobs):
    from textnb.lbr_text import LazyTextNB
    from textnb.naive_bayes import MultinomialNB

    try:
        from textnb.text import Vectorizer
        vec_factory = lambda: Vectorizer(min_df=2)  # noqa: E731
    except ImportError:
        from sklearn.feature_extraction.text import CountVectorizer
        vec_factory = lambda: CountVectorizer(min_df=2)  # noqa: E731
    rows = []
    for name, (dtr, ytr), (dte, yte) in text_sets(corpora):
        vec = vec_factory()
        Xtr = vec.fit_transform(dtr)
        Xte = vec.transform(dte)
        terms = vec.get_feature_names_out()
        out = {"name": name, "n_train": Xtr.shape[0], "n_test": Xte.shape[0],
               "n_terms": Xtr.shape[1]}
        t0 = time.perf_counter()
        nb = MultinomialNB().fit(Xtr, ytr)
        t1 = time.perf_counter()
        p = nb.predict(Xte)
        t2 = time.perf_counter()
        out["NB"] = {"acc": float(np.mean(p == yte)) * 100, "fit": t1 - t0,
                     "dps": Xte.shape[0] / (t2 - t1)}
        t0 = time.perf_counter()
        lazy = LazyTextNB(n_jobs=n_jobs).fit(Xtr, ytr, terms=terms)
        t1 = time.perf_counter()
        p, rules = lazy.predict_explain(Xte)
        t2 = time.perf_counter()
        conditioned = sum(not r.startswith("(no conditions)") for r in rules)
        out["lazy"] = {"acc": float(np.mean(p == yte)) * 100, "fit": t1 - t0,
                       "dps": Xte.shape[0] / (t2 - t1), "key": len(lazy.key_terms_),
                       "conditioned": conditioned,
                       "examples": sorted({r for r in rules if "&" in r}, key=len)[:3]
                       or [r for r in rules if not r.startswith("(")][:3]}
        progress(f"{name}: {out}")
        rows.append(out)
    return rows


# -- report ----------------------------------------------------------------------------------
def markdown(results, text_rows, *, weka, budget, seconds):
    L = ["# Lazy Bayesian rules: textnb LBR / HLBR vs Weka 3.6 LBR vs the paper", "",
         "Measured by `python scripts/experiments/lazy.py` (its docstring gives the protocol) on "
         f"this machine (2 cores, shared with other jobs while it ran); total {seconds:.0f} s. "
         "Error % of 10-fold CV with MDL discretisation inside each fold (the folds and "
         "discretised ARFF files of `scripts/experiments/tan.py`). NB = the same code with "
         "conditioning switched off. Paper = Wang & Webb table 3 (NB / LBR / TAN / HLBR). "
         "Seconds = fit + predict over the 10 folds (textnb: in-process; Weka: one JVM per fold, "
         "start-up included).", ""]
    if weka:
        L += [f"Weka LBR is run on all folds only when fold 1 takes at most {budget:.0f} s; "
              "otherwise its error, agreement and speed ratio are for fold 1 alone "
              "(`folds` column). `agree` = test objects on which Weka's and textnb's LBR "
              "predict the same class. ratio = Weka seconds / textnb LBR seconds on the same "
              "folds.", ""]
    L += ["| data set | n | NB | LBR | HLBR | TAN | paper NB / LBR / TAN / HLBR | Weka LBR | "
          "folds | agree | LBR s | HLBR s | Weka s | ratio |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        paper = tanx.PAPER_TABLE3.get(r["name"])
        ps = " / ".join(f"{v:.2f}" for v in paper) if paper else "–"
        t = r.get("TAN")
        ts = f"{t['err']:.2f}" if t else "–"
        w = r.get("Weka")
        if w and "err" in w:
            ws = (f"{w['err']:.2f}", f"{w['folds']}", f"{w['agree']}/{w['compared']}",
                  f"{w['sec']:.1f}", f"{w['ratio']:.0f}x")
        elif w:
            ws = (f"> {w['timeout']:.0f} s on fold 1 (skipped)", "0", "–", "–", "–")
        else:
            ws = ("–",) * 5
        L.append(f"| {r['name']} | {r['n']} | {r['NB']['err']:.2f} | {r['LBR']['err']:.2f} | "
                 f"{r['HLBR']['err']:.2f} | {ts} | {ps} | {ws[0]} | {ws[1]} | {ws[2]} | "
                 f"{r['LBR']['sec']:.2f} | {r['HLBR']['sec']:.2f} | {ws[3]} | {ws[4]} |")
    if results:
        m = {k: np.mean([r[k]["err"] for r in results]) for k in ("NB", "LBR", "HLBR")}
        pm = [np.mean([tanx.PAPER_TABLE3[r["name"]][i] for r in results
                       if r["name"] in tanx.PAPER_TABLE3]) for i in (0, 1, 3)]
        L += ["", f"Mean error over these {len(results)} sets: NB {m['NB']:.2f}, LBR "
              f"{m['LBR']:.2f}, HLBR {m['HLBR']:.2f} (paper on the same sets: NB {pm[0]:.2f}, "
              f"LBR {pm[1]:.2f}, HLBR {pm[2]:.2f})."]
        ratios = [r["Weka"]["ratio"] for r in results if r.get("Weka", {}).get("ratio")]
        if ratios:
            agree = sum(r["Weka"]["agree"] for r in results if "agree" in r.get("Weka", {}))
            comp = sum(r["Weka"]["compared"] for r in results if "agree" in r.get("Weka", {}))
            L += ["", f"Speed ratio Weka LBR / textnb LBR: geometric mean "
                  f"{np.exp(np.mean(np.log(ratios))):.0f}x, min {min(ratios):.0f}x, max "
                  f"{max(ratios):.0f}x over {len(ratios)} sets. Same prediction as Weka on "
                  f"{agree} of {comp} test objects compared."]
    if text_rows:
        L += ["", "## Documents: multinomial NB vs lazy (key-term rules)", "",
              "`LazyTextNB()` defaults (multinomial local models, 500 screened terms, at most "
              "50 key terms, min_df 20). docs/s = test documents classified per second "
              "(after fit).", "",
              "| corpus | train / test docs | terms | NB acc % | lazy acc % | NB docs/s | "
              "lazy docs/s | lazy fit s | key terms | test docs with a rule |",
              "|---|---|---|---|---|---|---|---|---|---|"]
        for t in text_rows:
            L.append(f"| {t['name']} | {t['n_train']} / {t['n_test']} | {t['n_terms']} | "
                     f"{t['NB']['acc']:.2f} | {t['lazy']['acc']:.2f} | {t['NB']['dps']:.0f} | "
                     f"{t['lazy']['dps']:.0f} | {t['lazy']['fit']:.1f} | {t['lazy']['key']} | "
                     f"{t['lazy']['conditioned']} |")
        L += ["", "Example explanations:", ""]
        for t in text_rows:
            for e in t["lazy"]["examples"]:
                L.append(f"- {t['name']}: `{e}`")
    return "\n".join(L) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sets", nargs="*", default=list(tanx.DATASETS))
    ap.add_argument("--no-weka", action="store_true")
    ap.add_argument("--no-text", action="store_true")
    ap.add_argument("--no-tabular", action="store_true")
    ap.add_argument("--weka-fold-budget", type=float, default=60.0)
    ap.add_argument("--weka-timeout", type=float, default=600.0)
    ap.add_argument("--corpora", default=None)
    ap.add_argument("--n-jobs", type=int, default=None)
    ap.add_argument("--out", default=str(REPO / "docs" / "lazy.md"))
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    weka = not args.no_weka and tanx.weka_available()
    results = []
    if not args.no_tabular:
        for name in args.sets:
            results.append(run_set(name, weka=weka, budget=args.weka_fold_budget,
                                   timeout=args.weka_timeout, progress=print))
            sys.stdout.flush()
    text_rows = []
    if not args.no_text:
        corpora = args.corpora
        tmp = None
        if corpora is None:
            tmp = tempfile.mkdtemp(prefix="lazy-corpora-")
            for name in ("20news-bydate", "sms_spam_collection"):
                src = SHARED / "corpora" / f"{name}.tar.gz"
                if src.exists():
                    with tarfile.open(src) as tf:
                        tf.extractall(tmp, filter="data")
            corpora = tmp
        try:
            text_rows = run_text(corpora, print, args.n_jobs)
        finally:
            if tmp:
                shutil.rmtree(tmp, ignore_errors=True)
    doc = markdown(results, text_rows, weka=weka, budget=args.weka_fold_budget,
                   seconds=time.perf_counter() - t0)
    if args.out == "-":
        print(doc)
    else:
        Path(args.out).write_text(doc, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
