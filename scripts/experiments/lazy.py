"""LBR / HLBR (textnb.semi_naive.lbr) vs naive Bayes vs Weka 3.6's LBR vs the paper's table 3; and
lazy text NB (textnb.semi_naive.lbr_text) vs multinomial NB on every visible text corpus.

Tabular protocol (Wang & Webb, table 3; ``../shared/design/algorithms.md`` §3): the
stratified 10-fold split and per-fold MDL discretisation of ``scripts/experiments/tan.py``
(imported: same folds, same discretised ARFF files for Weka). Columns: NB (= LBR that
never conditions), LBR, HLBR, TAN (textnb.semi_naive.bayesnet) when it imports, Weka 3.6
``weka.classifiers.lazy.LBR`` on the same fold files, and the paper's figures.
Weka's LBR is slow (seconds per test object on a few thousand training objects), so it
runs on fold 1 only: on the whole test part when the set has at most
``--weka-full-max`` objects, otherwise on the first ``--weka-objects`` test objects of
fold 1, with a ``--weka-timeout``. textnb's LBR is timed on exactly the same training
part and test objects (fit + predict, one process, ``n_jobs=1``) for the speed ratio.
Weka's time includes the JVM start-up; ``weka.classifiers.rules.ZeroR`` on the same files
measures that start-up, and the "net" ratio subtracts it.

Design notes (what is cached, why the predictions are Weka's bit for bit): see
``docs/lazy_notes.md``.

Text protocol: every visible corpus (:data:`TEXT_CORPORA`; by default the extracted
copies in ``../corpora``, else the archives in ``../shared/corpora``): the official
train/test folders of 20 Newsgroups "bydate", TREC QC and OHSUMED, a seeded stratified
2/3 : 1/3 split of the others (raw mails, binary files skipped); test parts over
``--max-test`` documents subsampled (seeded, stratified). Counts from
``textnb.text.vectorizer.Vectorizer`` (min_df=2); multinomial NB vs ``LazyTextNB`` (defaults:
multinomial local models, key terms screened by chi2_max, never stop words); accuracy,
documents/s of prediction (fit time reported separately), the key terms and the most
frequent rules. ``--no-tabular --cache lazy_results.json`` re-measures the documents
only and rewrites the report with the cached tabular rows.

Usage::

    python scripts/experiments/lazy.py [--sets kr-vs-kp vote ...] [--no-weka] [--no-text]
        [--no-tabular] [--cache results.json] [--corpora DIR] [--out docs/lazy.md]

``--cache FILE`` keeps the measured rows in a JSON file, so the tabular and text parts
can be run separately (or resumed) and the report is rewritten from all of them after
every data set. ``docs/lazy.md`` was produced by (rows kept in
``scripts/experiments/lazy_results.json``)::

    lazy.py --cache lazy_results.json                        # everything, Weka 5 objects
    lazy.py --sets kr-vs-kp sign --weka-only --weka-objects 1 --weka-timeout 400 \
        --no-text --cache lazy_results.json                  # Weka timed out on 5 objects
"""

import argparse
import json
import os
import re
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

from textnb.io.arff import write_arff  # noqa: E402
from textnb.semi_naive.lbr import LBR  # noqa: E402
from textnb.io.tables import Attribute  # noqa: E402

try:
    from textnb.semi_naive.bayesnet import TAN
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


def weka_fold(classifier, fold, n_test, tmp, timeout):
    """Weka ``classifier`` on one fold's training part and its first ``n_test`` test objects;
    (predictions, wall seconds) or (None, seconds) on timeout."""
    cls = Attribute(fold.class_attribute.name, "nominal",
                    [f"c{i}" for i in range(len(fold.class_attribute.values))])
    labels = list(fold.class_attribute.values)
    paths = []
    for part, X, y in (("train", fold.X_train, fold.y_train),
                       ("test", fold.X_test[:n_test], fold.y_test[:n_test])):
        path = os.path.join(tmp, f"{part}.arff")
        yi = np.array([labels.index(v) for v in y], dtype=float)
        write_arff(path, fold.attributes + [cls], np.column_stack([X, yi]), relation="fold")
        paths.append(path)
    cmd = ["java", "-Xmx1g", "-cp", tanx.WEKA_JAR, classifier,
           "-t", paths[0], "-T", paths[1], "-p", "0"]
    t0 = time.perf_counter()
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, time.perf_counter() - t0
    sec = time.perf_counter() - t0
    rows = [m for m in map(tanx._PRED_LINE.match, out.stdout.splitlines()) if m]
    if len(rows) != n_test:
        raise RuntimeError(f"weka printed {len(rows)} predictions: {out.stderr[-300:]}")
    return np.array([labels[int(m.group(3)) - 1] for m in rows], dtype=object), sec


def weka_compare(fold, n_test, timeout):
    """Weka LBR vs textnb LBR on fold 1's training part and first ``n_test`` test objects."""
    tmp = tempfile.mkdtemp(prefix="lazy-weka-")
    try:
        _, start_up = weka_fold("weka.classifiers.rules.ZeroR", fold, n_test, tmp, timeout)
        pred, sec = weka_fold("weka.classifiers.lazy.LBR", fold, n_test, tmp, timeout)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    t0 = time.perf_counter()
    ours = LBR().fit(fold.X_train, fold.y_train, attributes=fold.attributes,
                     class_values=fold.class_attribute.values).predict(fold.X_test[:n_test])
    ours_sec = time.perf_counter() - t0
    out = {"objects": int(n_test), "fold_size": int(len(fold.y_test)), "sec": sec,
           "start_up": start_up, "ours_sec": ours_sec}
    if pred is None:
        out["timeout"] = True
        return out
    out.update(err=float(np.mean(pred != fold.y_test[:n_test])) * 100,
               agree=int(np.sum(pred == ours)), ratio=sec / ours_sec,
               net_ratio=max(sec - start_up, 0.0) / ours_sec)
    return out


def run_set(name, *, weka, full_max, n_objects, timeout, progress):
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
            r = tanx.evaluate_model(lambda f: TAN(attributes=f.attributes), folds)
            res["TAN"] = {"err": 100 * r["errors"] / r["n"], "sec": r["seconds"]}
        except Exception as exc:  # noqa: BLE001
            res["TAN"] = {"err": float("nan"), "sec": float("nan"), "note": str(exc)[:80]}
    if weka:
        f = folds[0]
        k = len(f.y_test) if n <= full_max else min(n_objects, len(f.y_test))
        res["Weka"] = weka_compare(f, k, timeout)
    for key in ("NB", "LBR", "HLBR"):
        del res[key]["pred"]
    progress(f"{name}: NB {res['NB']['err']:.2f} LBR {res['LBR']['err']:.2f} "
             f"HLBR {res['HLBR']['err']:.2f} ({res['LBR']['sec']:.1f}s / {res['HLBR']['sec']:.1f}s)"
             + (f" Weka {res['Weka']}" if "Weka" in res else ""))
    return res


# -- text -----------------------------------------------------------------------------------
def _read_folder(folder):
    from textnb.io.corpus import read_document

    docs, labels = [], []
    for cls in sorted(os.listdir(folder)):
        d = os.path.join(folder, cls)
        if not os.path.isdir(d):
            continue
        for fn in sorted(os.listdir(d)):
            text = read_document(os.path.join(d, fn))
            if text is None:  # binary file
                continue
            docs.append(text)
            labels.append(cls)
    return docs, np.array(labels)


def _split(docs, y, seed=1, fraction=1 / 3):
    """Seeded stratified split, ``fraction`` of each class to the second part:
    ((train docs, y), (test docs, y))."""
    y = np.asarray(y)
    rng = np.random.default_rng(seed)
    test = np.zeros(len(y), dtype=bool)
    for c in np.unique(y):
        idx = np.flatnonzero(y == c)
        test[rng.choice(idx, int(len(idx) * fraction), replace=False)] = True
    d = np.array(docs, dtype=object)
    return (list(d[~test]), y[~test]), (list(d[test]), y[test])


#: (corpus folder, label in the report, official split?) for every visible corpus
TEXT_CORPORA = [
    ("20news-bydate", "20 Newsgroups (bydate)", True),
    ("sms_spam_collection", "SMS spam", False),
    ("spamassassin", "SpamAssassin", False),
    ("csdmc2010_spam", "CSDMC2010 spam", False),
    ("rt_polarity_v1", "rt_polarity (sentences)", False),
    ("trec_qc", "TREC QC (questions)", True),
    ("bbc_news", "BBC news", False),
    ("ohsumed_single_23", "OHSUMED (23 classes)", True),
]


def text_sets(corpora, max_test, seed=1, only=None):
    """(name, protocol, (train docs, y), (test docs, y)) for every corpus found.

    Official train/test folders where the corpus has them, else a seeded stratified
    2/3 : 1/3 split; test parts larger than ``max_test`` are subsampled (seeded,
    stratified) to keep the run affordable.
    """
    corpora = Path(corpora)
    for folder, name, official in TEXT_CORPORA:
        root = corpora / folder
        if not root.exists() or (only and folder not in only):
            continue
        if official:
            train, test = _read_folder(root / "train"), _read_folder(root / "test")
            protocol = "official split"
        else:
            train, test = _split(*_read_folder(root), seed=seed)
            protocol = "seeded 2/3 : 1/3"
        n_test = len(test[1])
        if max_test and n_test > max_test:
            keep, _ = _split(test[0], test[1], seed=seed, fraction=1 - max_test / n_test)
            test = keep
            protocol += f", test subsampled {len(test[1])} of {n_test}"
        yield name, protocol, train, test


def run_text(corpora, progress, n_jobs, max_test=10000, only=None):
    from textnb.semi_naive.lbr_text import LazyTextNB
    from textnb.naive_bayes import MultinomialNB
    from textnb.text import Vectorizer
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    rows = []
    for name, protocol, (dtr, ytr), (dte, yte) in text_sets(corpora, max_test, only=only):
        vec = Vectorizer(min_df=2)
        Xtr = vec.fit_transform(dtr)
        Xte = vec.transform(dte)
        terms = vec.get_feature_names_out()
        out = {"name": name, "protocol": protocol, "n_train": Xtr.shape[0], "n_test": Xte.shape[0],
               "n_terms": Xtr.shape[1], "classes": int(len(np.unique(ytr)))}
        t0 = time.perf_counter()
        nb = MultinomialNB().fit(Xtr, ytr)
        t1 = time.perf_counter()
        p = nb.predict(Xte)
        t2 = time.perf_counter()
        out["NB"] = {"acc": float(np.mean(p == yte)) * 100, "fit": t1 - t0,
                     "dps": Xte.shape[0] / (t2 - t1)}
        # the screen before key terms had to be discriminating: information gain over every
        # term in at least min_df documents, stop words included (the same run, for comparison)
        t0 = time.perf_counter()
        old = LazyTextNB(n_jobs=n_jobs, screen="ig", max_df=1.0, stop_words=None).fit(Xtr, ytr, terms=terms)
        t1 = time.perf_counter()
        p, rules = old.predict_explain(Xte)
        t2 = time.perf_counter()
        used = [t for r in rules for t in re.findall(r"term:(\S+)", r)]
        out["lazy_ig_all"] = {"acc": float(np.mean(p == yte)) * 100, "fit": t1 - t0,
                              "dps": Xte.shape[0] / (t2 - t1),
                              "conditioned": sum(not r.startswith("(no conditions)") for r in rules),
                              "stop_word_conditions": sum(t in ENGLISH_STOP_WORDS for t in used),
                              "conditions": len(used), "examples": _examples(rules, 2)}
        t0 = time.perf_counter()
        lazy = LazyTextNB(n_jobs=n_jobs).fit(Xtr, ytr, terms=terms)
        t1 = time.perf_counter()
        p, rules = lazy.predict_explain(Xte)
        t2 = time.perf_counter()
        conditioned = sum(not r.startswith("(no conditions)") for r in rules)
        used = [t for r in rules for t in re.findall(r"term:(\S+)", r)]
        counts = {}
        for t in used:
            counts[t] = counts.get(t, 0) + 1
        out["lazy"] = {"acc": float(np.mean(p == yte)) * 100, "fit": t1 - t0,
                       "dps": Xte.shape[0] / (t2 - t1), "key": len(lazy.key_terms_),
                       "conditioned": conditioned,
                       "stop_word_conditions": sum(t in ENGLISH_STOP_WORDS for t in used),
                       "top_key_terms": [str(terms[t]) for t in lazy.key_terms_[:8]],
                       "most_used": sorted(counts, key=lambda t: -counts[t])[:6],
                       "examples": _examples(rules)}
        progress(f"{name}: {out}")
        rows.append(out)
    return rows


def _examples(rules, k=3):
    """The ``k`` most frequent rules (and the most frequent one with two or more conditions),
    with how many test documents used them."""
    counts = {}
    for r in rules:
        if not r.startswith("("):
            lhs = r.split(" -> ")[0]
            counts[lhs] = counts.get(lhs, 0) + 1
    pool = sorted(counts, key=lambda r: -counts[r])
    top = pool[:k]
    top += [r for r in pool if "&" in r and r not in top][:1]
    return [f"{r} ({counts[r]} test document{'s' if counts[r] != 1 else ''})" for r in top]


# -- report ----------------------------------------------------------------------------------
def _f(x, fmt="{:.2f}"):
    return "–" if x is None or (isinstance(x, float) and np.isnan(x)) else fmt.format(x)


def _totals(results, text_rows):
    ours = sum(r[k]["sec"] for r in results for k in ("NB", "LBR", "HLBR"))
    ours += sum(r.get("TAN", {}).get("sec", 0.0) or 0.0 for r in results)
    weka = sum(r["Weka"]["sec"] + r["Weka"]["start_up"] for r in results if r.get("Weka"))
    text = sum(t["NB"]["fit"] + t["lazy"]["fit"] + t["n_test"] / t["NB"]["dps"]
               + t["n_test"] / t["lazy"]["dps"] for t in text_rows)
    return (f"Timed work in the tables: textnb tabular {ours:.0f} s (10-fold NB, LBR, HLBR, "
            f"TAN), Weka {weka:.0f} s, text models {text:.0f} s.")


def markdown(results, text_rows, *, weka, args, seconds):
    L = ["# Lazy Bayesian rules: textnb LBR / HLBR vs Weka 3.6 LBR vs the paper", "",
         "Written by `python scripts/experiments/lazy.py` (protocol in its docstring; design "
         "notes in `docs/lazy_notes.md`). Do not edit by hand: re-run the script. "
         "Measured on this machine (2 cores; single wall-clock timings on this virtual "
         "machine vary by up to 30 %, so ratios are of runs made within a minute of each "
         "other). "
         + _totals(results, text_rows), "",
         "## Tabular: 10-fold CV error %, MDL discretisation inside each fold", "",
         "Folds and discretisation are those of `scripts/experiments/tan.py` (stratified, "
         "seed 1; `MDLDiscretizer` fitted on each training part). NB = `LBR` with "
         "conditioning switched off (Weka's Laplace NB); LBR = `LBR()`; HLBR = "
         "`LBR(candidates=\"heuristic\")`; TAN = `textnb.semi_naive.bayesnet.TAN`. Paper = Wang & Webb "
         "table 3 (Weka's own folds, so differences of a few tenths are CV noise). "
         "Seconds = fit + predict summed over the 10 folds, one process.", ""]
    L += ["`≈ paper`: |ours - paper| <= 2 sqrt(2 p (1 - p) / n) (two standard errors of the "
          "difference of two independent CV estimates, `tan.paper_noise`), for LBR / HLBR.", "",
          "| data set | n | NB | LBR | HLBR | TAN | paper NB / LBR / TAN / HLBR | ≈ paper | "
          "LBR s | HLBR s |",
          "|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        paper = tanx.PAPER_TABLE3.get(r["name"])
        ps = " / ".join(f"{v:.2f}" for v in paper) if paper else "–"
        t = r.get("TAN") or {}
        near = "–"
        if paper:
            near = " / ".join(
                "yes" if abs(r[k]["err"] - paper[i]) <= tanx.paper_noise(paper[i], r["n"])
                else "**no**" for k, i in (("LBR", 1), ("HLBR", 3)))
        L.append(f"| {r['name']} | {r['n']} | {r['NB']['err']:.2f} | {r['LBR']['err']:.2f} | "
                 f"{r['HLBR']['err']:.2f} | {_f(t.get('err'))} | {ps} | {near} | "
                 f"{r['LBR']['sec']:.2f} | {r['HLBR']['sec']:.2f} |")
    if results:
        m = {k: np.mean([r[k]["err"] for r in results]) for k in ("NB", "LBR", "HLBR")}
        named = [r for r in results if r["name"] in tanx.PAPER_TABLE3]
        pm = [np.mean([tanx.PAPER_TABLE3[r["name"]][i] for r in named]) for i in (0, 1, 3)]
        L += ["", f"Mean error over these {len(results)} sets: NB {m['NB']:.2f}, LBR "
              f"{m['LBR']:.2f}, HLBR {m['HLBR']:.2f} (paper on the same sets: NB {pm[0]:.2f}, "
              f"LBR {pm[1]:.2f}, HLBR {pm[2]:.2f}). HLBR / LBR time over all sets: "
              f"{sum(r['HLBR']['sec'] for r in results):.1f} s / "
              f"{sum(r['LBR']['sec'] for r in results):.1f} s."]
    wk = [r for r in results if r.get("Weka")]
    if wk:
        L += ["", "## Weka 3.6 LBR on the same fold: agreement and speed", "",
              f"Fold 1 only (Weka's LBR takes seconds per test object): its whole test part "
              f"for sets of at most {args.weka_full_max} objects, otherwise its first few "
              "test objects (`objects` column; 5, and 1 where 5 did not finish within the "
              "timeout, as the run notes below say), with a timeout of 90 s (300 s for the "
              "1-object runs). textnb LBR is timed on the same training part and "
              "the same test objects (fit + predict). Weka s = wall time of `java ... "
              "weka.classifiers.lazy.LBR -t train.arff -T test.arff -p 0`, JVM start-up "
              "included; start-up s = the same command with `weka.classifiers.rules.ZeroR`. "
              "ratio = Weka s / textnb s; net ratio = (Weka s - start-up s) / textnb s. "
              "Extrapolated Weka s per fold = (Weka s - start-up s) x fold size / objects: "
              "an upper estimate, since Weka also has a per-run cost beyond JVM start-up that "
              "does not grow with the test objects, so it is only a rough guide. The ratios "
              "compare the same work (same training part, same test objects) and need no "
              "extrapolation; a timeout makes the ratio a lower bound.", "",
              "| data set | objects / fold size | agree | Weka err % | Weka s | start-up s | "
              "textnb s | ratio | net ratio | extrapolated Weka s per fold |",
              "|---|---|---|---|---|---|---|---|---|---|"]
        for r in wk:
            w = r["Weka"]
            ext = max(w["sec"] - w["start_up"], 0) * w["fold_size"] / w["objects"]
            if w.get("timeout"):
                L.append(f"| {r['name']} | {w['objects']} / {w['fold_size']} | – | – | "
                         f"> {w['sec']:.0f} (timeout) | {w['start_up']:.1f} | "
                         f"{w['ours_sec']:.2f} | > {w['sec'] / w['ours_sec']:.0f}x | – | "
                         f"> {ext:.0f} |")
            else:
                L.append(f"| {r['name']} | {w['objects']} / {w['fold_size']} | "
                         f"{w['agree']}/{w['objects']} | {w['err']:.2f} | {w['sec']:.1f} | "
                         f"{w['start_up']:.1f} | {w['ours_sec']:.3f} | {w['ratio']:.0f}x | "
                         f"{w['net_ratio']:.0f}x | {ext:.1f} |")
        done = [r["Weka"] for r in wk if not r["Weka"].get("timeout")]
        if done:
            agree = sum(w["agree"] for w in done)
            comp = sum(w["objects"] for w in done)
            rs = [w["ratio"] for w in done]
            nr = [w["net_ratio"] for w in done if w["net_ratio"] > 0]
            big = [w["net_ratio"] for w in done if w["sec"] - w["start_up"] >= 2.0]
            half = [(w["net_ratio"], n) for n, w in zip([r["name"] for r in wk if not r["Weka"].get("timeout")], done)
                    if w["sec"] - w["start_up"] >= 0.5]
            if half:
                low = min(half)
                L += ["", f"Where Weka computes for at least 0.5 s beyond its start-up ({len(half)} sets, "
                      f"plus the {len(wk) - len(done)} where it timed out): net ratio at least "
                      f"{low[0]:.0f}x ({low[1]}). "
                      "Below 0.5 s the JVM's own start-up noise dominates both the gross and the net ratio."]
            if big:
                L += ["", f"Where Weka computes for at least 2 s beyond its start-up "
                      f"({len(big)} sets; below that, timer noise and JIT warm-up dominate): net "
                      f"ratio geometric mean {np.exp(np.mean(np.log(big))):.0f}x, min "
                      f"{min(big):.0f}x, max {max(big):.0f}x."]
            L += ["", f"Same prediction as Weka's LBR on {agree} of {comp} test objects "
                  f"compared. Speed ratio Weka / textnb LBR: geometric mean "
                  f"{np.exp(np.mean(np.log(rs))):.0f}x (min {min(rs):.0f}x, max "
                  f"{max(rs):.0f}x) over {len(rs)} sets"
                  + (f"; net of JVM start-up: geometric mean {np.exp(np.mean(np.log(nr))):.0f}x "
                     f"(min {min(nr):.0f}x, max {max(nr):.0f}x)." if nr else ".")]
    if text_rows:
        L += ["", "## Documents: multinomial NB vs lazy (key-term rules), every visible corpus", "",
              "`LazyTextNB()` defaults: multinomial local models; key terms only among "
              "*discriminating* terms, screened inside the training data: in at least 20 and at "
              "most half of the training documents, never an English stop word "
              "(scikit-learn's list), ranked by chi2_max (the largest one-class-versus-rest "
              "chi-square of term presence); the best 500 go through HLBR's leave-one-out "
              "filter, at most 50 are kept. Counts from `textnb.text.vectorizer.Vectorizer(min_df=2)`, "
              "fitted on the training part. NB = `textnb.MultinomialNB()` on the same counts. "
              "Protocol per corpus in its column: official train/test folders where the corpus "
              "has them, else a seeded stratified 2/3 : 1/3 split; test parts over "
              f"{args.max_test} documents subsampled (seeded, stratified) to keep the run "
              "affordable. docs/s = test documents classified per second after fit, one "
              "process (lazy rules chosen per document; NB is one sparse product). "
              "\"stop-word conditions\" counts the conditions of all test documents' rules "
              "that are stop words (0 by construction).", "",
              "| corpus | protocol | classes | train / test docs | terms | NB acc % | lazy acc % | "
              "NB docs/s | lazy docs/s | lazy fit s | key terms | test docs with a rule | "
              "stop-word conditions | best key terms |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for t in text_rows:
            L.append(f"| {t['name']} | {t['protocol']} | {t['classes']} | {t['n_train']} / {t['n_test']} | "
                     f"{t['n_terms']} | {t['NB']['acc']:.2f} | {t['lazy']['acc']:.2f} | "
                     f"{t['NB']['dps']:.0f} | {t['lazy']['dps']:.0f} | {t['lazy']['fit']:.1f} | "
                     f"{t['lazy']['key']} | {t['lazy']['conditioned']} | "
                     f"{t['lazy']['stop_word_conditions']} | {', '.join(t['lazy']['top_key_terms'])} |")
        old_rows = [t for t in text_rows if "lazy_ig_all" in t]
        if old_rows:
            L += ["", "The previous screen, in the same run: `LazyTextNB(screen=\"ig\", max_df=1.0, "
                  "stop_words=None)` (information gain over every term in at least 20 documents, "
                  "stop words included: what `--lazy` did before).", "",
                  "| corpus | lazy acc % (previous screen) | lazy acc % (key terms) | docs/s (previous) | "
                  "docs/s (key terms) | fit s (previous) | test docs with a rule (previous) | "
                  "stop-word conditions (previous) | most frequent rules (previous) |",
                  "|---|---|---|---|---|---|---|---|---|"]
            for t in old_rows:
                o = t["lazy_ig_all"]
                L.append(f"| {t['name']} | {o['acc']:.2f} | {t['lazy']['acc']:.2f} | {o['dps']:.0f} | "
                         f"{t['lazy']['dps']:.0f} | {o['fit']:.1f} | {o['conditioned']} | "
                         f"{o['stop_word_conditions']} of {o['conditions']} | "
                         + "; ".join(f"`{e}`" for e in o["examples"]) + " |")
        diffs = [t["lazy"]["acc"] - t["NB"]["acc"] for t in text_rows]
        L += ["", f"Lazy (key terms) minus NB accuracy: mean {np.mean(diffs):+.2f} points over "
              f"{len(diffs)} corpora (better on {sum(d > 0 for d in diffs)}, equal on "
              f"{sum(d == 0 for d in diffs)}, worse on {sum(d < 0 for d in diffs)})."]
        if old_rows:
            dd = [t["lazy"]["acc"] - t["lazy_ig_all"]["acc"] for t in old_rows]
            sp = [t["lazy"]["dps"] / t["lazy_ig_all"]["dps"] for t in old_rows]
            L += [f"Key terms minus the previous screen: mean {np.mean(dd):+.2f} points (better on "
                  f"{sum(d > 0 for d in dd)}, equal on {sum(d == 0 for d in dd)}, worse on "
                  f"{sum(d < 0 for d in dd)}); prediction speed ratio geometric mean "
                  f"{np.exp(np.mean(np.log(sp))):.1f}x (min {min(sp):.1f}x, max {max(sp):.1f}x)."]
            L += ["Where the previous screen's rules were on stop words (`term:the`, `term:re`, "
                  "`term:our`, `term:what`), the key-term rules are on topics; the price is on "
                  "question classification, where the wh-words carry the class and are stop words, "
                  "so `term:what` rules are no longer possible (see the TREC QC row)."]
        L += ["", "Most frequent rules with the key-term screen (`predict --explain` text):", ""]
        for t in text_rows:
            for e in t["lazy"]["examples"]:
                L.append(f"- {t['name']}: `{e}`")
    return "\n".join(L) + "\n"


def _load_cache(path):
    if path and Path(path).exists():
        return json.loads(Path(path).read_text(encoding="utf-8"))
    return {"tabular": {}, "text": {}}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sets", nargs="*", default=sorted(tanx.DATASETS, key=lambda s: s.lower()))
    ap.add_argument("--no-weka", action="store_true")
    ap.add_argument("--no-text", action="store_true")
    ap.add_argument("--no-tabular", action="store_true")
    ap.add_argument("--weka-full-max", type=int, default=400)
    ap.add_argument("--weka-objects", type=int, default=5)
    ap.add_argument("--weka-timeout", type=float, default=90.0)
    ap.add_argument("--corpora", default=None)
    ap.add_argument("--n-jobs", type=int, default=None)
    ap.add_argument("--text-sets", nargs="*", choices=[c for c, _, _ in TEXT_CORPORA],
                    help="only these corpora (default: every visible one)")
    ap.add_argument("--max-test", type=int, default=10000,
                    help="subsample (seeded, stratified) text test parts larger than this")
    ap.add_argument("--cache", default=None)
    ap.add_argument("--merge", nargs="*", default=[],
                    help="fold the rows of these caches (from other runs) into --cache")
    ap.add_argument("--weka-only", action="store_true",
                    help="redo only the Weka comparison of --sets already in --cache")
    ap.add_argument("--out", default=str(REPO / "docs" / "lazy.md"))
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    weka = not args.no_weka and tanx.weka_available()
    cache = _load_cache(args.cache)
    for other in args.merge:
        extra = _load_cache(other)
        for part in ("tabular", "text"):
            cache[part].update(extra[part])

    def write():
        if args.cache:
            Path(args.cache).write_text(json.dumps(cache, indent=1), encoding="utf-8")
        order = {n: i for i, n in enumerate(tanx.DATASETS)}
        results = sorted(cache["tabular"].values(), key=lambda r: order.get(r["name"], 99))
        doc = markdown(results, list(cache["text"].values()),
                       weka=any(r.get("Weka") for r in results), args=args,
                       seconds=time.perf_counter() - t0)
        if args.out == "-":
            print(doc)
        else:
            Path(args.out).write_text(doc, encoding="utf-8")

    if not args.no_tabular:
        for name in args.sets:
            if args.weka_only and name in cache["tabular"] and weka:
                table = tanx.load_dataset(name)
                f = next(tanx.discretised_folds(table, tanx.make_folds(table.y)))
                k = (len(f.y_test) if len(table.y) <= args.weka_full_max
                     else min(args.weka_objects, len(f.y_test)))
                cache["tabular"][name]["Weka"] = weka_compare(f, k, args.weka_timeout)
                print(f"{name}: Weka {cache['tabular'][name]['Weka']}")
                write()
                continue
            cache["tabular"][name] = run_set(
                name, weka=weka, full_max=args.weka_full_max, n_objects=args.weka_objects,
                timeout=args.weka_timeout, progress=print)
            sys.stdout.flush()
            write()
    if not args.no_text:
        corpora = args.corpora
        tmp = None
        cache["text"] = {}  # every corpus is re-measured: no row of an older run survives
        if corpora is None and (REPO.parent / "corpora").exists():
            corpora = REPO.parent / "corpora"  # the extracted corpora next to the repository
        if corpora is None:
            tmp = tempfile.mkdtemp(prefix="lazy-corpora-")
            for name in [c for c, _, _ in TEXT_CORPORA] + ["spamassassin_public_corpus"]:
                src = SHARED / "corpora" / f"{name}.tar.gz"
                if src.exists():
                    with tarfile.open(src) as tf:
                        tf.extractall(tmp, filter="data")
            corpora = tmp
        try:
            for row in run_text(corpora, print, args.n_jobs, args.max_test, args.text_sets):
                cache["text"][row["name"]] = row
                write()
        finally:
            if tmp:
                shutil.rmtree(tmp, ignore_errors=True)
    write()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
