#!/usr/bin/env python3
"""Spam filtering benchmark: textnb against bogofilter 1.2.5 on three corpora, same run.

Corpora (archives in ``../shared/corpora/``):

* SpamAssassin public corpus (6,046 mails);
* CSDMC2010 (4,327 mails) **without** the 2,345 messages that are also in the
  SpamAssassin corpus (``overlap_with_spamassassin_public_corpus.tsv``, see its
  SOURCE.md): 1,982 mails, nearly all of 2009-2010, so no message is in two corpora;
* SMS Spam Collection (5,574 SMS; each given to both systems as a message body
  without headers).

For each corpus one stratified 70/30 split (seed 0). textnb and bogofilter (its
default settings, trained with ``-s``/``-n``) learn from exactly the training part
and are scored on the test part. Reported per corpus and system:

* spam recall at ham false-positive rate <= 0.5 % (the lowest threshold on the test
  scores that marks at most 0.5 % of the test ham as spam; textnb is thresholded on
  its log-odds, bogofilter on its spamicity printed with 17 decimals);
* at each system's default cut-offs: ham marked spam, spam caught, unsure share;
* batch throughput of the whole process on the same folder of test messages
  (``scripts/spamfilter --batch DIR`` against ``bogofilter -b``), and on the same messages
  as one mbox file (``--batch FILE.mbox`` against ``bogofilter -M``), as messages/s;
* per-message latency, whole processes (``scripts/spam_latency.py``): the compiled
  ``spamfilter --socket`` client through ``textnb serve`` (and the Python client) against
  ``bogofilter -d DB``, and the cold ``spamfilter --model`` against a bare
  ``import sklearn.naive_bayes``.

``--select`` first runs the choice of textnb's defaults, **inside the training parts
only**: 5-fold cross-validation on each corpus's training part for every scoring in
:data:`GRID`; the criterion, fixed in advance, is spam recall at ham FP <= 0.5 % of the
pooled out-of-fold scores, **averaged over the three corpora**, among the scorings
that can protect ham: those for which one of :data:`SPAM_CUTOFFS` keeps the pooled
out-of-fold ham FP at or below :data:`CUTOFF_FP` (0.05 %) on every corpus; the spam
cut-off is the lowest such one. The module defaults are compared with that choice.

``--online`` adds the TREC-style online evaluation: each corpus in delivery order
(Date header; SMS in file order), every message classified, then trained on
(train-everything, and train-on-error: trained only when the verdict was wrong or
unsure); textnb in-process, ``bogofilter -u`` (train-everything: it registers what it
classified, and a wrong or unsure verdict is corrected with ``-Sn``/``-Ns``/``-s``/``-n``)
and ``bogofilter`` with ``-s``/``-n`` on errors only. 1-ROCA % and a ROC plot
(``docs/spam_online.png``).

``--accuracy`` runs the accuracy study of issue 27 instead (no speed figures): each corpus
in several formats -- as published; its header fields followed directly by the body (the
blank line removed); header-less (the body alone); CRLF line ends -- and two cross-corpus
settings (train on all of one corpus, classify all of another), textnb's default and
bogofilter trained on exactly the same files in the same run: spam recall at ham FP <=
0.5 %, 1 - ROC AUC, and ham marked spam / spam caught at each system's default cut-offs.
With ``--select``, the choice of the default (as above) pools every corpus and format:
the mean recall over all of them, and a cut-off that protects ham on every one. Its
tables go between the ``accuracy:start`` / ``accuracy:end`` markers of ``docs/spam.md``, the choice of
the default (``--select``) between the ``accuracy-select`` ones (a run without it keeps them).

``--baseline CHECKOUT`` also times another checkout's ``scripts/spamfilter --batch`` (e.g.
main before a change) on the same model and folder, in the same alternation (baseline,
textnb, bogofilter): the batch table gets before columns.

Tables go between the ``bench:start`` / ``bench:end`` markers of ``docs/spam.md``.
Run: ``nice -n 10 python scripts/bench_spam.py --select --online``;
``nice -n 10 python scripts/bench_spam.py --accuracy --select``.
"""

import argparse
import compileall
import email.utils
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import resource
import time
from pathlib import Path

import numpy as np
from sklearn.metrics import roc_auc_score, roc_curve
from sklearn.model_selection import StratifiedKFold, train_test_split

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import textnb  # noqa: E402
from textnb.apps.filtering import (  # noqa: E402
    DEFAULT_HAM_CUTOFF,
    DEFAULT_KIND,
    DEFAULT_SPAM_CUTOFF,
    SPAM_KINDS,
    new_spam_model,
)
from textnb.apps.filtering import token_text  # noqa: E402
from textnb.apps.spamscore import SpamScorer, message_tokens  # noqa: E402

sys.path.insert(0, str(REPO / "scripts"))
from spam_latency import measure_latency  # noqa: E402

SHARED = REPO.parent / "shared" / "corpora"
DOC = REPO / "docs" / "spam.md"
PLOT = REPO / "docs" / "spam_online.png"
FP_RATE = 0.005
SEED = 0
TEST_SIZE = 0.3
BOGO_FORMAT = ["--spamicity-formats=%.17f,%.17f,%.17f", "-t", "--terse-format=%1.1c %p"]
BOGO_CUTOFFS = (0.99, 0.45)  # bogofilter 1.2.5's defaults (bogofilter -Q)
#: test messages of each corpus timed one by one (daemon, cold, bogofilter; spam_latency.py)
LATENCY_MESSAGES = 16

#: scorings compared by --select (SpamScorer parameters; the rest at their defaults)
GRID = (
    [{"method": "fisher", "min_dev": md, "max_tokens": mt} for mt in (None, 150)
     for md in (0.0, 0.05, 0.1, 0.2, 0.375)]
    + [{"method": "fisher", "robs": robs, "min_dev": md} for robs in (0.1, 1.0) for md in (0.1, 0.375)]
    + [{"method": "geometric"}, {"method": "geometric", "min_dev": 0.1}]
    + [{"method": "multinomial", "alpha": a, "length_norm": norm} for norm in (False, True, 0.75, 1)
       for a in (0.01, 0.03, 0.1, 0.3)]
)
#: candidate spam cut-offs (P(spam)); the ham cut-off stays bogofilter's 0.45
SPAM_CUTOFFS = [0.99, 0.999, 0.9999, 0.99999, 0.999999]
CUTOFF_FP = 0.0005


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# -- corpora ----------------------------------------------------------------------------------
class Corpus:
    def __init__(self, name, names, y, data, order=None, note=""):
        self.name, self.names, self.y, self.data, self.note = name, names, np.asarray(y), data, note
        self.order = np.arange(len(y)) if order is None else np.asarray(order)
        self.tokens = None


def _tar_members(path, prefix):
    with tarfile.open(path) as tar:
        for m in tar:
            if m.isfile() and m.name.startswith(prefix):
                yield m.name, tar.extractfile(m).read()


def _by_date(data):
    """Delivery order: the Date header (messages without a parsable one keep their place
    after the dated ones), ties by corpus order."""
    keys = []
    for i, d in enumerate(data):
        m = re.search(rb"(?im)^date:[ \t]*(.+)$", d[: d.find(b"\n\n") if b"\n\n" in d else 20000])
        ts = np.inf
        if m:
            try:
                ts = email.utils.parsedate_to_datetime(m.group(1).decode("latin-1").strip()).timestamp()
            except (TypeError, ValueError, IndexError, OverflowError):
                ts = np.inf
        keys.append((ts, i))
    return [i for _, i in sorted(keys)]


def load_spamassassin():
    names, y, data = [], [], []
    for name, d in sorted(_tar_members(SHARED / "spamassassin_public_corpus.tar.gz", "spamassassin/")):
        parts = name.split("/")
        if parts[-2] in ("ham", "spam"):
            names.append(parts[-1])
            y.append(parts[-2])
            data.append(d)
    return Corpus("SpamAssassin", names, y, data, _by_date(data))


def load_csdmc():
    members = dict(_tar_members(SHARED / "csdmc2010_spam.tar.gz", "csdmc2010_spam/"))
    tsv = members["csdmc2010_spam/overlap_with_spamassassin_public_corpus.tsv"].decode().splitlines()
    overlap = {line.split("\t")[0] for line in tsv[1:] if line.strip()}
    names, y, data = [], [], []
    for name, d in sorted(members.items()):
        parts = name.split("/")
        if len(parts) == 3 and parts[1] in ("ham", "spam") and parts[2] not in overlap:
            names.append(parts[2])
            y.append(parts[1])
            data.append(d)
    note = (f"{len(overlap)} of the 4,327 messages are also in the SpamAssassin corpus and are left out "
            f"(overlap_with_spamassassin_public_corpus.tsv)")
    return Corpus("CSDMC2010 (without the SpamAssassin overlap)", names, y, data, _by_date(data), note)


def load_sms():
    names, y, data = [], [], []
    for name, d in sorted(_tar_members(SHARED / "sms_spam_collection.tar.gz", "sms_spam_collection/")):
        parts = name.split("/")
        if len(parts) == 3 and parts[1] in ("ham", "spam"):
            names.append(parts[2])
            y.append(parts[1])
            data.append(d + b"\n")
    order = sorted(range(len(names)), key=lambda i: names[i])  # line order of the collection
    return Corpus("SMS Spam Collection", names, y, data, order)


# -- metrics -------------------------------------------------------------------------------------
def recall_at_fp(scores, y, fp_rate=FP_RATE):
    """Spam recall at the lowest threshold whose ham FP rate is <= fp_rate (spam: score >
    threshold, the threshold being the (k+1)-th highest ham score, k = floor(fp_rate * n_ham))."""
    scores = np.asarray(scores, dtype=np.float64)
    ham = np.sort(scores[y == "ham"])[::-1]
    k = int(np.floor(fp_rate * len(ham)))
    threshold = ham[k] if k < len(ham) else -np.inf
    return float(np.mean(scores[y == "spam"] > threshold)), float(np.mean(ham > threshold))


def logit(p):
    return float(np.log(p) - np.log1p(-p))


def verdicts(lo, spam_cutoff, ham_cutoff):
    lo = np.asarray(lo)
    return np.where(lo >= logit(spam_cutoff), "spam", np.where(lo <= logit(ham_cutoff), "ham", "unsure"))


def at_cutoffs(v, y):
    v = np.asarray(v)
    return {"fp": float(np.mean(v[y == "ham"] == "spam")), "caught": float(np.mean(v[y == "spam"] == "spam")),
            "unsure": float(np.mean(v == "unsure")), "missed": float(np.mean(v[y == "spam"] == "ham"))}


# -- textnb ---------------------------------------------------------------------------------------
def tokenize(corpus):
    t = time.perf_counter()
    corpus.tokens = [message_tokens(d) for d in corpus.data]
    return len(corpus.data) / (time.perf_counter() - t)


class SelSet:
    """One set of the choice of the default: train/test folds inside training parts only.

    ``folds``: ``(train index, test index)`` pairs into ``train`` / ``test`` (each a
    ``(raw messages, tokens, labels)`` triple); ``cross``: whether training and test
    messages come from different corpora (their ham is not held to the cut-off)."""

    def __init__(self, name, train, test, folds, cross=False):
        self.name, self.train, self.test, self.folds, self.cross = name, train, test, folds, cross


def cv_set(name, data, tokens, y, idx, n_splits=5):
    """5-fold cross-validation inside the messages ``idx`` of one corpus (one format)."""
    part = ([data[i] for i in idx], [tokens[i] for i in idx], np.asarray(y)[idx])
    folds = list(StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=SEED).split(idx, part[2]))
    return SelSet(name, part, part, folds)


def set_scores(st, configs, bogo_tmp=None):
    """Pooled out-of-fold log-odds of every config (one fit per fold), the labels, and
    bogofilter's pooled spamicities on the same folds (None without bogofilter / bogo_tmp)."""
    out = {i: [] for i in range(len(configs))}
    ys, bogo = [], []
    for a, b in st.folds:
        ytr, yte = st.train[2][a], st.test[2][b]
        model = SpamScorer().fit([st.train[1][i] for i in a], ytr)
        ids, owner = model._ids([st.test[1][i] for i in b])
        for i, cfg in enumerate(configs):
            model.set_params(**{**SpamScorer().get_params(), **cfg})
            out[i].append(model._score_ids(ids, owner, len(b)))
        ys.append(yte)
        if bogo_tmp is not None:
            d = tempfile.mkdtemp(dir=bogo_tmp)
            tr_files = write_files(os.path.join(d, "train"), [str(k) for k in a], [st.train[0][i] for i in a])
            te_files = write_files(os.path.join(d, "test"), [str(k) for k in b], [st.test[0][i] for i in b])
            db = os.path.join(d, "db")
            os.makedirs(db)
            bogo_train(db, [f for f, lab in zip(tr_files, ytr) if lab == "spam"],
                       [f for f, lab in zip(tr_files, ytr) if lab == "ham"])
            bogo.append(bogo_score(db, te_files)[0])
            shutil.rmtree(d, ignore_errors=True)
    return np.concatenate(ys), {i: np.concatenate(v) for i, v in out.items()}, \
        (np.concatenate(bogo) if bogo else None)


def select(sets, bogofilter=True):
    """The choice of the default over ``sets`` (:class:`SelSet`): for every scoring of
    :data:`GRID`, spam recall at ham FP <= 0.5 % and 1 - ROC AUC of the pooled out-of-fold
    scores of each set; with bogofilter trained and scored on the same folds, the criterion
    (fixed before the run) is the number of sets where the scoring is at least bogofilter's
    on both figures, then the mean recall; without it, the mean recall. Only scorings for
    which one spam cut-off keeps the pooled out-of-fold ham FP <= :data:`CUTOFF_FP` on every
    set of one corpus (cross-corpus sets excluded) are eligible; that cut-off is the lowest such one."""
    rows = [{"cfg": cfg, "recall": [], "roca": []} for cfg in GRID]
    pooled, bogo_rows = [], []
    tmp = tempfile.mkdtemp(prefix="bench_spam_select_") if bogofilter and have_bogofilter() else None
    try:
        for st in sets:
            t = time.perf_counter()
            y, out, bogo = set_scores(st, GRID, tmp)
            pooled.append((st, y, out))
            yb = (y == "spam").astype(int)
            for i, r in enumerate(rows):
                r["recall"].append(recall_at_fp(out[i], y)[0])
                r["roca"].append(100 * (1 - roc_auc_score(yb, out[i])))
            if bogo is not None:
                bogo_rows.append((recall_at_fp(bogo, y)[0], 100 * (1 - roc_auc_score(yb, bogo))))
            log(f"  select {st.name}: {time.perf_counter() - t:.0f}s"
                + (f"; bogofilter {bogo_rows[-1][0]:.4f} / {bogo_rows[-1][1]:.3f} %" if bogo is not None else ""))
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    for i, r in enumerate(rows):
        r["mean"] = float(np.mean(r["recall"]))
        if bogo_rows:
            r["wins"] = sum(rec >= brec and roca <= broca for rec, roca, (brec, broca)
                            in zip(r["recall"], r["roca"], bogo_rows))
        r["cutoffs"] = []
        for c in SPAM_CUTOFFS:
            cm = [at_cutoffs(verdicts(out[i], c, DEFAULT_HAM_CUTOFF), y) for st, y, out in pooled if not st.cross]
            r["cutoffs"].append({"cutoff": c, "fp": [m["fp"] for m in cm], "unsure": [m["unsure"] for m in cm]})
        # the lowest spam cut-off that protects ham on every corpus, if there is one
        r["cutoff"] = next((c["cutoff"] for c in r["cutoffs"] if max(c["fp"]) <= CUTOFF_FP), None)
    feasible = [i for i, r in enumerate(rows) if r["cutoff"] is not None]
    key = (lambda i: (rows[i]["wins"], rows[i]["mean"])) if bogo_rows else (lambda i: rows[i]["mean"])
    best = max(feasible, key=key)  # ties: the earlier one
    return {"rows": rows, "best": best, "cutoffs": rows[best]["cutoffs"], "spam_cutoff": rows[best]["cutoff"],
            "bogofilter": bogo_rows or None}


def cfg_name(cfg):
    return ", ".join(f"{k}={v}" for k, v in cfg.items())


# -- bogofilter ----------------------------------------------------------------------------------
def have_bogofilter():
    return shutil.which("bogofilter") is not None


def bogo_version():
    try:
        out = subprocess.run(["bogofilter", "-V"], capture_output=True).stdout.decode()
        return out.split()[2] if out.startswith("bogofilter version") else ""
    except OSError:
        return ""


def bogo_train(db, spam_files, ham_files):
    for flag, files in (("-s", spam_files), ("-n", ham_files)):
        if files:
            subprocess.run(["bogofilter", "-d", db, flag, "-b"], input="\n".join(files).encode(),
                           check=True, capture_output=True)


def bogo_score(db, files):
    """Spamicity and verdict for each file, in order."""
    out = subprocess.run(["bogofilter", "-d", db, *BOGO_FORMAT, "-b"], input="\n".join(files).encode(),
                         capture_output=True, check=False).stdout.decode().split("\n")
    out = [line for line in out if line.strip()]
    if len(out) != len(files):
        raise RuntimeError(f"bogofilter printed {len(out)} lines for {len(files)} files")
    kind = {"S": "spam", "H": "ham", "U": "unsure"}
    return np.array([float(line.split()[-1]) for line in out]), np.array([kind[line.split()[0]] for line in out])


def write_files(folder, names, data):
    os.makedirs(folder, exist_ok=True)
    paths = []
    for name, d in zip(names, data):
        p = os.path.join(folder, name)
        with open(p, "wb") as f:
            f.write(d)
        paths.append(p)
    return paths


def write_mbox(path, data):
    """The messages as one mbox file (mboxrd: a line ``>*From `` of a message gets one more
    ``>``; an empty line after each message); line ends as they are."""
    with open(path, "wb") as f:
        for d in data:
            lines = [b">" + line if line.lstrip(b">").startswith(b"From ") else line for line in d.split(b"\n")]
            body = b"\n".join(lines)
            f.write(b"From textnb-bench@localhost Thu Jan  1 00:00:00 1970\n" + body
                    + (b"" if body.endswith(b"\n") else b"\n") + b"\n")
    return path


# -- the test-part evaluation -------------------------------------------------------------------
def evaluate(corpus, tr, te, tmp, extra_models, baseline=None):
    yte = corpus.y[te]
    res = {"name": corpus.name, "n": len(corpus.y), "n_train": len(tr), "n_test": len(te),
           "n_spam": int(np.sum(corpus.y == "spam")), "note": corpus.note, "rows": [], "speed": {}}
    model = new_spam_model(DEFAULT_KIND)
    model.fit([corpus.tokens[i] for i in tr], corpus.y[tr])
    lo = model.decision_function([corpus.tokens[i] for i in te])
    rec, fp = recall_at_fp(lo, yte)
    res["rows"].append({"system": f"textnb spamfilter default ({DEFAULT_KIND}: {cfg_name(SPAM_KINDS[DEFAULT_KIND])}; cut-offs "
                                  f"{DEFAULT_SPAM_CUTOFF:g} / {DEFAULT_HAM_CUTOFF:g})",
                        "recall": rec, "fp_at": fp,
                        **at_cutoffs(verdicts(lo, DEFAULT_SPAM_CUTOFF, DEFAULT_HAM_CUTOFF), yte)})
    for label, cfg, cutoff in extra_models:
        m = SpamScorer(**cfg).fit([corpus.tokens[i] for i in tr], corpus.y[tr])
        lo2 = m.decision_function([corpus.tokens[i] for i in te])
        rec2, fp2 = recall_at_fp(lo2, yte)
        res["rows"].append({"system": label, "recall": rec2, "fp_at": fp2,
                            **at_cutoffs(verdicts(lo2, cutoff, DEFAULT_HAM_CUTOFF), yte)})
    folder = os.path.join(tmp, "test")
    test_files = write_files(folder, [corpus.names[i] for i in te], [corpus.data[i] for i in te])
    train_files = write_files(os.path.join(tmp, "train"), [corpus.names[i] for i in tr],
                              [corpus.data[i] for i in tr])
    model_path = os.path.join(tmp, "spam.tnb")
    model.save(model_path)
    # as the script's #! line runs it (python3 -S); bytecode compiled as pip install does
    script = [sys.executable, "-S", str(REPO / "scripts" / "spamfilter"), "-m", model_path, "--batch", folder]
    db = None
    if have_bogofilter():
        db = os.path.join(tmp, "bogodb")
        os.makedirs(db)
        bogo_train(db, [f for f, i in zip(train_files, tr) if corpus.y[i] == "spam"],
                   [f for f, i in zip(train_files, tr) if corpus.y[i] == "ham"])
        sc, v = bogo_score(db, test_files)
        rec, fp = recall_at_fp(sc, yte)
        res["rows"].append({"system": f"bogofilter {bogo_version()} (cut-offs 0.99 / 0.45)", "recall": rec,
                            "fp_at": fp, **at_cutoffs(v, yte)})
    # batch speed, whole process, same folder; alternated, best of 3 each (wall and CPU time)
    bogo_cmd = ["bogofilter", "-d", db or "", *BOGO_FORMAT, "-b"]
    files_in = "\n".join(test_files).encode()
    base_cmd = None if baseline is None else [sys.executable, "-S", str(Path(baseline) / "scripts" / "spamfilter"),
                                              "-m", model_path, "--batch", folder]
    t_nb, t_bf, t_base = [], [], []
    for _ in range(3):
        if base_cmd is not None:
            t_base.append(timed(base_cmd))
        t_nb.append(timed(script))
        if db is not None:
            t_bf.append(timed(bogo_cmd, files_in, ok=(0, 1, 2)))  # -b exits with a verdict's code
    res["speed"]["textnb"] = len(te) / min(t[0] for t in t_nb)
    res["speed"]["textnb_cpu"] = len(te) / min(t[1] for t in t_nb)
    if t_base:
        res["speed"]["baseline"] = len(te) / min(t[0] for t in t_base)
        res["speed"]["baseline_cpu"] = len(te) / min(t[1] for t in t_base)
    if t_bf:
        res["speed"]["bogofilter"] = len(te) / min(t[0] for t in t_bf)
        res["speed"]["bogofilter_cpu"] = len(te) / min(t[1] for t in t_bf)
    # the same messages as one mbox file: spamfilter --batch FILE against bogofilter -M
    mbox = write_mbox(os.path.join(tmp, "test.mbox"), [corpus.data[i] for i in te])
    mbox_script = script[:-1] + [mbox]
    with open(mbox, "rb") as f:
        mbox_in = f.read()
    t_nbm, t_bfm = [], []
    for _ in range(3):
        t_nbm.append(timed(mbox_script))
        if db is not None:
            t_bfm.append(timed(["bogofilter", "-d", db, *BOGO_FORMAT, "-M"], mbox_in, ok=(0, 1, 2)))
    res["speed"]["textnb_mbox"] = len(te) / min(t[0] for t in t_nbm)
    res["speed"]["textnb_mbox_cpu"] = len(te) / min(t[1] for t in t_nbm)
    if t_bfm:
        res["speed"]["bogofilter_mbox"] = len(te) / min(t[0] for t in t_bfm)
        res["speed"]["bogofilter_mbox_cpu"] = len(te) / min(t[1] for t in t_bfm)
    res["latency"] = lead_latency_figures(model_path, db, test_files)
    return res


def timed(argv, stdin=None, ok=(0,)):
    """(wall seconds, CPU seconds of the process) of one whole run; its output is dropped."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, err = proc.communicate(stdin)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in ok:
        raise RuntimeError(f"{argv[:3]}: exit {proc.returncode}: {err.decode(errors='replace')[-300:]}")
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def lead_latency_figures(model_path, bogofilter_db, test_files):
    """Per-message latency in this run (``scripts/spam_latency.py``): every one of
    :data:`LATENCY_MESSAGES` test messages (evenly spread over the test part) classified
    by each contender in turn, whole processes: the daemon client against ``textnb
    serve``, ``bogofilter -d DB``, the cold ``spamfilter --model``, a bare ``python -c
    "import sklearn.naive_bayes"``. None without bogofilter."""
    if bogofilter_db is None:
        return None
    step = max(1, len(test_files) // LATENCY_MESSAGES)
    return measure_latency(model_path, test_files[::step][:LATENCY_MESSAGES], bogofilter_db)


# -- online, TREC style -------------------------------------------------------------------------
def online_textnb(corpus, mode, order):
    model = new_spam_model(DEFAULT_KIND)
    model.partial_fit([], [], classes=["ham", "spam"])
    scores, errors = [], 0
    for i in order:
        toks, truth = corpus.tokens[i], corpus.y[i]
        lo = float(model.decision_function([toks])[0]) if model.class_count_.min() > 0 else 0.0
        scores.append(lo)
        v = verdicts([lo], DEFAULT_SPAM_CUTOFF, DEFAULT_HAM_CUTOFF)[0]
        wrong = v != truth
        errors += wrong
        if mode == "everything" or wrong:
            model.partial_fit([toks], [truth])
    return np.array(scores), errors


def online_bogofilter(corpus, mode, tmp, order):
    db = tempfile.mkdtemp(dir=tmp)
    path = os.path.join(tmp, "msg")
    scores, errors = [], 0
    kind = {"S": "spam", "H": "ham", "U": "unsure"}
    for i in order:
        with open(path, "wb") as f:
            f.write(corpus.data[i])
        truth = corpus.y[i]
        cmd = ["bogofilter", "-d", db, *BOGO_FORMAT, "-I", path]
        if mode == "everything":
            cmd.insert(3, "-u")
        out = subprocess.run(cmd, capture_output=True).stdout.decode().split()
        # before its first registration bogofilter has no wordlist to read: robx, unsure
        v, sc = (kind[out[0]], float(out[-1])) if out else ("unsure", 0.52)
        scores.append(sc)
        wrong = v != truth
        errors += wrong
        fix = None
        if mode == "everything":
            if v == "unsure":
                fix = "-s" if truth == "spam" else "-n"
            elif wrong:
                fix = "-Ns" if truth == "spam" else "-Sn"  # undo bogofilter's own registration
        elif wrong:
            fix = "-s" if truth == "spam" else "-n"
        if fix:
            subprocess.run(["bogofilter", "-d", db, fix, "-I", path], capture_output=True, check=True)
    return np.array(scores), errors


def online(corpora, tmp, limit=None):
    res = []
    for corpus in corpora:
        order = corpus.order[:limit]
        y = corpus.y[order]
        row = {"name": corpus.name, "curves": {}, "n": len(order)}
        systems = [("textnb, train everything", lambda: online_textnb(corpus, "everything", order)),
                   ("textnb, train on error", lambda: online_textnb(corpus, "error", order))]
        if have_bogofilter():
            systems += [("bogofilter -u, train everything",
                         lambda: online_bogofilter(corpus, "everything", tmp, order)),
                        ("bogofilter, train on error", lambda: online_bogofilter(corpus, "error", tmp, order))]
        for name, run in systems:
            t = time.perf_counter()
            sc, errors = run()
            yb = (y == "spam").astype(int)
            auc = roc_auc_score(yb, sc)
            fpr, tpr, _ = roc_curve(yb, sc)
            row["curves"][name] = {"roca": 100 * (1 - auc), "errors": int(errors), "fpr": fpr, "tpr": tpr}
            log(f"  online {corpus.name} {name}: 1-ROCA {100 * (1 - auc):.3f} % ({time.perf_counter() - t:.0f}s)")
        res.append(row)
    return res


def plot_online(res, path=PLOT):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(res), figsize=(5 * len(res), 4.4))
    styles = {"textnb, train everything": ("C0", "-"), "textnb, train on error": ("C0", "--"),
              "bogofilter -u, train everything": ("C3", "-"), "bogofilter, train on error": ("C3", "--")}
    for ax, row in zip(np.atleast_1d(axes), res):
        for name, c in row["curves"].items():
            color, ls = styles.get(name, ("k", ":"))
            fpr = np.maximum(c["fpr"], 1e-4)
            ax.plot(100 * fpr, 100 * (1 - c["tpr"]), color=color, ls=ls,
                    label=f"{name} ({c['roca']:.2f})")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(0.01, 100)
        ax.set_ylim(0.01, 100)
        ax.set_xlabel("ham misclassified, % (log)")
        ax.set_ylabel("spam misclassified, % (log)")
        ax.set_title(row["name"].replace(" (without the SpamAssassin overlap)", " (no overlap)"), fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, title="system (1-ROCA %)", title_fontsize=7)
    fig.suptitle("Online (TREC-style, delivery order): ROC curves as DET plots", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# -- accuracy in several formats and across corpora (issue 27) ---------------------------------
_HEAD_END = re.compile(rb"\r?\n[ \t]*\r?\n")


def _lf(d):
    return d.replace(b"\r\n", b"\n")


def fmt_published(d):
    return d


def fmt_no_blank(d):
    """The header fields followed directly by the body: the first blank line removed."""
    m = _HEAD_END.search(d)
    return d if m is None else d[:m.start()] + b"\n" + d[m.end():]


def fmt_headerless(d):
    """The body alone (what a pasted message or a text file holds)."""
    m = _HEAD_END.search(d)
    return d if m is None else d[m.end():]


def fmt_crlf(d):
    return _lf(d).replace(b"\n", b"\r\n")


def sms_no_blank(d):
    return b"Subject: text message\n" + d


def sms_crlf(d):
    return fmt_crlf(b"Subject: text message\n\n" + d)


FORMATS = {"as published": fmt_published, "header fields then the body, no blank line": fmt_no_blank,
           "header-less (body only)": fmt_headerless, "CRLF line ends": fmt_crlf}
SMS_FORMATS = {"as published (text only)": fmt_published, "a Subject line then the text, no blank line": sms_no_blank,
               "Subject line, blank line, text, CRLF": sms_crlf}


def formats_of(corpus):
    return SMS_FORMATS if corpus.name.startswith("SMS") else FORMATS


class Setting:
    """One train/test setting: (train data, labels), (test data, labels), tokens of both."""

    def __init__(self, corpus, fmt, fmt_name, tr, te, test_corpus=None, test_fmt=None):
        other = test_corpus or corpus
        self.name = corpus.name.split(" (")[0] if test_corpus is None else \
            f"{corpus.name.split(' (')[0]} -> {other.name.split(' (')[0]}"
        self.fmt_name = fmt_name
        self.train = [fmt(corpus.data[i]) for i in tr]
        self.ytr = corpus.y[tr]
        self.test = [(test_fmt or fmt)(other.data[i]) for i in te]
        self.yte = other.y[te]
        self.names_tr = [corpus.names[i] for i in tr]
        self.names_te = [other.names[i] for i in te]
        self.tok_tr = [message_tokens(d) for d in self.train]
        self.tok_te = [message_tokens(d) for d in self.test]


def metrics(scores, y, verdict):
    yb = (np.asarray(y) == "spam").astype(int)
    rec, fp = recall_at_fp(scores, y)
    return {"recall": rec, "fp_at": fp, "roca": 100 * (1 - roc_auc_score(yb, scores)), **at_cutoffs(verdict, y)}


def evaluate_setting(st, tmp, extra_models):
    rows = []
    model = new_spam_model(DEFAULT_KIND).fit(st.tok_tr, st.ytr)
    lo = model.decision_function(st.tok_te)
    rows.append(("textnb default", metrics(lo, st.yte, verdicts(lo, DEFAULT_SPAM_CUTOFF, DEFAULT_HAM_CUTOFF))))
    # the documents' default model over the mail reader's tokens, fitted at once as spamfilter --train-* does
    dnb = new_spam_model("discriminative").fit([token_text(d) for d in st.train], st.ytr)
    lo3 = dnb.predict_log_odds([token_text(d) for d in st.test])[:, list(dnb.classes_).index("spam")]
    rows.append((DISCRIMINATIVE_ROW, metrics(lo3, st.yte, verdicts(lo3, DEFAULT_SPAM_CUTOFF, DEFAULT_HAM_CUTOFF))))
    for label, cfg, cutoff in extra_models:
        m = SpamScorer(**cfg).fit(st.tok_tr, st.ytr)
        lo2 = m.decision_function(st.tok_te)
        rows.append((label, metrics(lo2, st.yte, verdicts(lo2, cutoff, DEFAULT_HAM_CUTOFF))))
    if have_bogofilter():
        d = tempfile.mkdtemp(dir=tmp)
        tr_files = write_files(os.path.join(d, "train"), [f"{k}" for k in range(len(st.train))], st.train)
        te_files = write_files(os.path.join(d, "test"), [f"{k}" for k in range(len(st.test))], st.test)
        db = os.path.join(d, "db")
        os.makedirs(db)
        bogo_train(db, [f for f, y in zip(tr_files, st.ytr) if y == "spam"],
                   [f for f, y in zip(tr_files, st.ytr) if y == "ham"])
        sc, v = bogo_score(db, te_files)
        rows.append((f"bogofilter {bogo_version()}", metrics(sc, st.yte, v)))
        shutil.rmtree(d, ignore_errors=True)
    return rows


def accuracy_study(corpora, splits, extra_models, tmp):
    """Every corpus in every format (its 70/30 split), then the cross-corpus settings."""
    out = []
    for corpus, (tr, te) in zip(corpora, splits):
        for fmt_name, fmt in formats_of(corpus).items():
            t = time.perf_counter()
            st = Setting(corpus, fmt, fmt_name, tr, te)
            out.append((st.name, fmt_name, len(st.train), len(st.test), evaluate_setting(st, tmp, extra_models)))
            log(f"  {st.name} / {fmt_name}: " + "; ".join(f"{n}: recall {r['recall']:.4f} 1-AUC {r['roca']:.3f} %"
                                                         for n, r in out[-1][4]) + f" ({time.perf_counter() - t:.0f}s)")
    mail = [c for c in corpora if not c.name.startswith("SMS")]
    for a, b in ((mail[0], mail[1]), (mail[1], mail[0])):
        for fmt_name, fmt in (("as published", fmt_published),
                              ("header fields then the body, no blank line", fmt_no_blank)):
            st = Setting(a, fmt, fmt_name, np.arange(len(a.y)), np.arange(len(b.y)), test_corpus=b)
            out.append((st.name, fmt_name, len(st.train), len(st.test), evaluate_setting(st, tmp, extra_models)))
            log(f"  {st.name} / {fmt_name}: " + "; ".join(f"{n}: recall {r['recall']:.4f} 1-AUC {r['roca']:.3f} %"
                                                         for n, r in out[-1][4]))
    return out


#: scorings shown beside the default in --accuracy without --select (the default before
#: 2026-12-02, and bogofilter's own settings in textnb's Fisher implementation)
ACCURACY_CANDIDATES = [({"method": "multinomial", "alpha": 0.01, "length_norm": True}, 0.9999),
                       ({"method": "fisher"}, 0.99)]
#: the row of ``--kind discriminative`` (DiscriminativeNB over spam_text, at the default cut-offs)
DISCRIMINATIVE_ROW = "textnb --kind discriminative (DiscriminativeNB); cut-off 0.999"
#: the default before this selection (shown beside the choice, per set)
PREVIOUS_DEFAULT = {"method": "multinomial", "alpha": 0.01, "length_norm": True}


def select_formats(corpora, splits):
    """--select over every corpus and format (the (corpus, format) training parts, 5-fold
    cross-validation) and across the two mail corpora (trained on one corpus's training
    part, scored on the other's, in the two mail formats): no test part is read."""
    sets = selection_sets(corpora, splits)
    return select(sets), [st.name for st in sets]


def selection_sets(corpora, splits):
    """The :class:`SelSet` sets of :func:`select_formats` (also scored by
    ``scripts/experiments/spam_discriminative.py``)."""
    sets = []
    toks = {}
    for corpus, (tr, _) in zip(corpora, splits):
        for fmt_name, fmt in formats_of(corpus).items():
            if fmt in (fmt_crlf,):  # the very tokens of the published messages (tests/test_mail_reader.py)
                continue
            data = [fmt(d) for d in corpus.data]
            keep = set(tr.tolist())
            tokens = [message_tokens(d) if i in keep else None for i, d in enumerate(data)]
            toks[corpus.name, fmt_name] = (data, tokens)
            sets.append(cv_set(f"{corpus.name.split(' (')[0]} / {fmt_name}", data, tokens, corpus.y, tr))
    mail = [(c, tr) for c, (tr, _) in zip(corpora, splits) if not c.name.startswith("SMS")]
    for (a, tra), (b, trb) in ((mail[0], mail[1]), (mail[1], mail[0])):
        for fmt_name in ("as published", "header fields then the body, no blank line"):
            (da, ta), (db, tb) = toks[a.name, fmt_name], toks[b.name, fmt_name]
            train = ([da[i] for i in tra], [ta[i] for i in tra], a.y[tra])
            test = ([db[i] for i in trb], [tb[i] for i in trb], b.y[trb])
            sets.append(SelSet(f"{a.name.split(' (')[0]} -> {b.name.split(' (')[0]} / {fmt_name} (training parts)",
                               train, test, [(np.arange(len(tra)), np.arange(len(trb)))], cross=True))
    return sets


def render_accuracy(study, selection, set_names, load):
    out = []
    if study:
        out.append(f"Stratified {int(100 * (1 - TEST_SIZE))}/{int(100 * TEST_SIZE)} split of each corpus, seed {SEED} "
                   "(the same messages in every format); cross-corpus: all of one corpus for training, all of the other "
                   "for testing. textnb and bogofilter learn from exactly the same files. Recall at ham FP <= 0.5 % and "
                   "1 - ROC AUC are threshold-free; ham marked spam and spam caught are at each system's default cut-offs "
                   f"(textnb {DEFAULT_SPAM_CUTOFF:g} / {DEFAULT_HAM_CUTOFF:g}, bogofilter 0.99 / 0.45).\n")
        out.append("| setting | format | system | spam recall at ham FP <= 0.5 % | 1 - ROC AUC | ham marked spam "
                   "at the defaults | spam caught at the defaults |")
        out.append("|---|---|---|---:|---:|---:|---:|")
        for name, fmt_name, ntr, nte, rows in study:
            for k, (system, r) in enumerate(rows):
                out.append(f"| {name + f' (train {ntr}, test {nte})' if k == 0 else ''} | {fmt_name if k == 0 else ''} | "
                           f"{system} | **{pct(r['recall'])}** | **{r['roca']:.3f} %** | {pct(r['fp'], 2)} | "
                           f"{pct(r['caught'])} |")
        out.append("")
        for system, said in (("textnb default", "textnb's default"), (DISCRIMINATIVE_ROW, "`--kind discriminative`")):
            worse = []
            for name, fmt_name, _, _, rows in study:
                d = dict(rows)
                nb, bf = d.get(system), next((r for s, r in rows if s.startswith("bogofilter")), None)
                if nb and bf:
                    if nb["recall"] < bf["recall"] or nb["roca"] > bf["roca"] or nb["fp"] > bf["fp"]:
                        worse.append(f"{name} / {fmt_name}")
            n = len(study)
            out.append(f"{said} is at least bogofilter's on all three figures (recall, 1 - AUC, ham marked spam) "
                       f"in {n - len(worse)} of {n} settings" + (f"; not in: {', '.join(worse)}." if worse else "."))
            out.append("")
    if selection:
        out.append("#### Choice of the default over every corpus, format and corpus pair (training parts only)\n")
        bogo = selection.get("bogofilter")
        out.append("5-fold cross-validation inside each training part, for each corpus in each format, and each mail "
                   "corpus's training part scored by a model of the other's, in two formats "
                   f"({len(set_names)} sets; no test part is read). "
                   + ("bogofilter is trained and scored on the very same folds. Criterion, fixed before the run: the "
                      "number of sets where the scoring's spam recall at ham FP <= 0.5 % (pooled out-of-fold) is at "
                      "least bogofilter's **and** its 1 - ROC AUC at most bogofilter's, then the mean recall, "
                      if bogo else "Criterion: the mean spam recall at ham FP <= 0.5 % of the pooled out-of-fold "
                      "scores, ")
                   + "among the scorings for which one spam cut-off keeps the pooled out-of-fold ham FP <= "
                   f"{100 * CUTOFF_FP:g} % on every set of one corpus.\n")
        out.append("| SpamScorer | mean recall | lowest recall | mean 1 - AUC | highest 1 - AUC | "
                   + ("sets at least bogofilter's on both | " if bogo else "")
                   + "spam cut-off that protects ham |")
        out.append("|---|---:|---:|---:|---:|" + ("---:|" if bogo else "") + "---:|")
        if bogo:
            out.append(f"| bogofilter {bogo_version()} (same folds) | {pct(float(np.mean([r for r, _ in bogo])), 2)} | "
                       f"{pct(min(r for r, _ in bogo), 1)} | {np.mean([a for _, a in bogo]):.3f} % | "
                       f"{max(a for _, a in bogo):.3f} % | - | - |")
        for i, r in enumerate(selection["rows"]):
            mark = "**" if i == selection["best"] else ""
            cut = f"{r['cutoff']:g}" if r["cutoff"] is not None else "none"
            out.append(f"| {mark}{cfg_name(r['cfg'])}{mark} | {mark}{pct(r['mean'], 2)}{mark} | "
                       f"{pct(min(r['recall']), 1)} | {np.mean(r['roca']):.3f} % | {max(r['roca']):.3f} % | "
                       + (f"{mark}{r['wins']} of {len(set_names)}{mark} | " if bogo else "") + f"{cut} |")
        out.append("")
        best = selection["rows"][selection["best"]]
        before = next((r for r in selection["rows"] if r["cfg"] == PREVIOUS_DEFAULT), None)
        out.append("Per set (pooled out-of-fold): spam recall at ham FP <= 0.5 % / 1 - ROC AUC.\n")
        out.append(f"| set | chosen ({cfg_name(best['cfg'])}) | "
                   + (f"before ({cfg_name(PREVIOUS_DEFAULT)}) | " if before else "")
                   + ("bogofilter |" if bogo else ""))
        out.append("|---|---:|" + ("---:|" if before else "") + ("---:|" if bogo else ""))
        for k, name in enumerate(set_names):
            cells = [f"{pct(best['recall'][k])} / {best['roca'][k]:.3f} %"]
            if before:
                cells.append(f"{pct(before['recall'][k])} / {before['roca'][k]:.3f} %")
            if bogo:
                cells.append(f"{pct(bogo[k][0])} / {bogo[k][1]:.3f} %")
            out.append(f"| {name} | " + " | ".join(cells) + " |")
        out.append("")
        out.append(f"Chosen: **{cfg_name(GRID[selection['best']])}**, spam cut-off "
                   f"**{selection['spam_cutoff']:g}**; pooled out-of-fold ham FP / unsure at each candidate cut-off "
                   "(sets of one corpus):\n")
        out.append("| spam cut-off | worst set's ham FP | mean unsure |")
        out.append("|---:|---:|---:|")
        for c in selection["cutoffs"]:
            out.append(f"| {c['cutoff']:.10g} | {pct(max(c['fp']), 2)} | {pct(float(np.mean(c['unsure'])))} |")
        out.append("")
    out.append(measured(f" --accuracy{' --select' if selection else ''}", load))
    return "\n".join(out) + "\n"


def publish(table, args, marker):
    """Print ``table`` and (without --no-write) put it between the ``marker`` lines of docs/spam.md."""
    print(table)
    if not args.no_write:
        write_doc(table, marker=marker)
    return 0


# -- report -------------------------------------------------------------------------------------
def pct(v, digits=1):
    return "-" if v is None else f"{100 * v:.{digits}f} %"


def measured(flags, load):
    return (f"Measured by `scripts/bench_spam.py{flags}` on {time.strftime('%Y-%m-%d')} (textnb {textnb.__version__}, "
            f"Python {sys.version.split()[0]}); 1-minute load average of the 2-core machine (shared with other "
            f"jobs) during the run: {load:.1f}.")


def render(results, selection, load, flags=""):
    out = []
    out.append(f"Stratified {int(100 * (1 - TEST_SIZE))}/{int(100 * TEST_SIZE)} split of each corpus, seed {SEED}; "
               "both systems learn from exactly the training part.\n")
    out.append("| corpus | system | spam recall at ham FP <= 0.5 % | (ham FP there) | ham marked spam at the "
               "defaults | unsure at the defaults | spam caught | spam passed as ham |")
    out.append("|---|---|---:|---:|---:|---:|---:|---:|")
    for res in results:
        label = f"{res['name']} ({res['n']}: train {res['n_train']}, test {res['n_test']})"
        for k, r in enumerate(res["rows"]):
            out.append(f"| {label if k == 0 else ''} | {r['system']} | **{pct(r['recall'])}** | {pct(r['fp_at'])} | "
                       f"**{pct(r['fp'], 2)}** | {pct(r['unsure'])} | {pct(r['caught'])} | {pct(r['missed'])} |")
    out.append("")
    before = any("baseline" in res["speed"] for res in results)
    out.append("| corpus | textnb `spamfilter --batch DIR` msgs/s | bogofilter `-b` msgs/s | ratio | "
               "ratio of CPU time |" + (" before: msgs/s | before: ratio | before: ratio of CPU time |"
                                        if before else ""))
    out.append("|---|---:|---:|---:|---:|" + ("---:|---:|---:|" if before else ""))
    for res in results:
        s = res["speed"]
        bf = s.get("bogofilter")
        row = (f"| {res['name']} | {s['textnb']:.0f} | {bf:.0f} | **{s['textnb'] / bf:.2f}x** | "
               f"{s['textnb_cpu'] / s['bogofilter_cpu']:.2f}x |" if bf else
               f"| {res['name']} | {s['textnb']:.0f} | - | - | - |")
        if before:
            row += (f" {s['baseline']:.0f} | {s['baseline'] / bf:.2f}x | {s['baseline_cpu'] / s['bogofilter_cpu']:.2f}x |"
                    if bf and "baseline" in s else " - | - | - |")
        out.append(row)
    out.append("")
    out.append("| corpus | textnb `spamfilter --batch FILE.mbox` msgs/s | bogofilter `-M` msgs/s | ratio | "
               "ratio of CPU time |")
    out.append("|---|---:|---:|---:|---:|")
    for res in results:
        s = res["speed"]
        bf = s.get("bogofilter_mbox")
        out.append(f"| {res['name']} | {s['textnb_mbox']:.0f} | {bf:.0f} | **{s['textnb_mbox'] / bf:.2f}x** | "
                   f"{s['textnb_mbox_cpu'] / s['bogofilter_mbox_cpu']:.2f}x |" if bf else
                   f"| {res['name']} | {s['textnb_mbox']:.0f} | - | - | - |")
    out.append("")
    out.append("Whole process (Python start, model load, reading and tokenising every file), best of 3 "
               "alternated runs each, on the test part written to one folder; textnb runs as "
               "`python -S scripts/spamfilter` (its `#!` line) with the package's bytecode compiled "
               "(as `pip install` leaves it; this environment sets PYTHONDONTWRITEBYTECODE), with its default "
               "`--jobs` (this process plus one forked helper per CPU idle when it starts: on this 2-core "
               "machine two processes share the files, bogofilter reads them in one). The CPU-time "
               "ratio (user + system of each process and its helpers) is less disturbed by other jobs on the "
               "machine and counts both processes' work. The second table: the same test messages written "
               "as one mbox file (mboxrd quoting), best of 3 alternated runs; textnb reads a large mbox file in "
               "pieces that its processes share (`textnb.io.mailread.map_messages`), bogofilter `-M` reads it "
               "from stdin."
               + (" The before columns: the `--baseline` checkout's `scripts/spamfilter` on the same model and "
                  "folder, timed in the same alternation (baseline, textnb, bogofilter)." if before else ""))
    out.append("")
    lat = [(res["name"], res.get("latency")) for res in results if res.get("latency")]
    if lat:
        def ms(v, digits=1):
            return f"{1e3 * v:.{digits}f} ms" if v is not None else "-"

        def x(v, bold=False):
            return "-" if v is None else (f"**{v:.2f}x**" if bold else f"{v:.2f}x")

        out.append("| corpus | `spamfilter --socket` (daemon) per message | bogofilter per message | ratio | "
                   "Python client | ratio | cold `spamfilter --model` | `import sklearn.naive_bayes` | ratio | "
                   "`python -S -c pass` |")
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for name, r in lat:
            m, q = r["median_s"], r["ratios"]
            out.append(f"| {name} ({r['n']} messages) | {ms(m['daemon'])} | {ms(m['bogofilter'])} | "
                       f"{x(q['daemon_vs_bogofilter'], True)} | {ms(m['daemon_python'])} | "
                       f"{x(q['daemon_python_vs_bogofilter'])} | {ms(m['cold'], 0)} | "
                       f"{ms(m['sklearn_import'], 0)} | {x(q['cold_vs_sklearn_import'], True)} | "
                       f"{ms(m['python_floor'])} |")
        out.append("")
        missing = sorted({r["compiled_client"] for _, r in lat if r.get("compiled_client")})
        out.append("Medians over the messages, each classified once by every contender in turn (whole processes, "
                   "`scripts/spam_latency.py`, called by this script in the same run). The daemon client is the "
                   "compiled `spamfilter` (textnb/apps/spamclient.c, built as `pip install .` builds it when a C "
                   "compiler works) against `textnb serve MODEL --socket S`"
                   + (f" (not built here: {'; '.join(missing)})" if missing else "")
                   + "; the Python client is `python -S scripts/spamfilter --socket S` (the checkout's script); "
                   "with the site module on (the console script pip installs without a C compiler): "
                   + ", ".join(x(r["ratios"]["daemon_site_vs_bogofilter"]) for _, r in lat)
                   + " bogofilter. Cold with the site module: "
                   + ", ".join(x(r["ratios"]["cold_site_vs_sklearn_import"]) for _, r in lat)
                   + " the sklearn import; the compiled `spamfilter --model` (which hands the cold path to Python): "
                   + ", ".join(x(r["ratios"]["cold_compiled_vs_sklearn_import"]) for _, r in lat) + ".")
        out.append("")
    for res in results:
        if res["note"]:
            out.append(f"* {res['name']}: {res['note']}.")
    out.append("")
    if selection:
        out.append("#### Choice of the default (training parts only)\n")
        out.append("5-fold cross-validation inside each corpus's training part. Criterion, fixed in advance: "
                   "spam recall at ham FP <= 0.5 % of the pooled out-of-fold scores, averaged over the three "
                   f"corpora, among the scorings for which a spam cut-off keeps the pooled out-of-fold ham FP "
                   f"<= {100 * CUTOFF_FP:g} % on every corpus (the lowest such cut-off is shown; ham cut-off "
                   f"{DEFAULT_HAM_CUTOFF:g}).\n")
        names = [r["name"].split(" (")[0] for r in results]
        out.append("| SpamScorer | " + " | ".join(names) + " | **mean** | spam cut-off that protects ham |")
        out.append("|---|" + "---:|" * (len(names) + 2))
        for i, r in enumerate(selection["rows"]):
            mark = "**" if i == selection["best"] else ""
            cut = f"{r['cutoff']:g}" if r["cutoff"] is not None else "none"
            out.append(f"| {mark}{cfg_name(r['cfg'])}{mark} | " + " | ".join(pct(v) for v in r["recall"])
                       + f" | {mark}{pct(r['mean'], 2)}{mark} | {cut} |")
        out.append("")
        out.append(f"The chosen scoring at each candidate spam cut-off (pooled out-of-fold, training parts): "
                   f"chosen **{selection['spam_cutoff']:g}**.\n")
        out.append("| spam cut-off | " + " | ".join(f"{n}: ham FP / unsure" for n in names) + " |")
        out.append("|---:|" + "---:|" * len(names))
        for c in selection["cutoffs"]:
            out.append(f"| {c['cutoff']:.10g} | " + " | ".join(f"{pct(f, 2)} / {pct(u)}" for f, u in
                                                              zip(c["fp"], c["unsure"])) + " |")
        out.append("")
    out.append(measured(flags, load))
    return "\n".join(out) + "\n"


def render_online(online_res, load, flags):
    """The online evaluation's block (its own ``online`` markers in docs/spam.md, so that a
    run without ``--online`` leaves the last one in place)."""
    out = []
    out.append("#### Online evaluation (TREC style)\n")
    out.append("Each corpus in delivery order (Date header; SMS in file order), every message classified "
               "and then trained on. 1-ROCA % = 100 x (1 - area under the ROC curve of the scores given "
               "before training; lower is better); errors = wrong or unsure verdicts at the defaults.\n")
    systems = list(online_res[0]["curves"])
    out.append("| corpus | " + " | ".join(systems) + " |")
    out.append("|---|" + "---:|" * len(systems))
    for row in online_res:
        out.append(f"| {row['name']} (first {row['n']}) | " + " | ".join(
            f"{row['curves'][s]['roca']:.3f} ({row['curves'][s]['errors']} err)" if s in row["curves"] else "-"
            for s in systems) + " |")
    out.append("")
    out.append(f"![online ROC curves]({PLOT.name})\n")
    out.append(measured(flags, load))
    return "\n".join(out) + "\n"


def write_doc(table, path=DOC, marker="bench"):
    """Put ``table`` between the ``<!-- MARKER:start -->`` / ``<!-- MARKER:end -->`` lines of ``path``."""
    start, end = f"<!-- {marker}:start -->", f"<!-- {marker}:end -->"
    text = path.read_text() if path.exists() else "# Spam filtering\n"
    if start not in text or end not in text:
        text = text.rstrip() + f"\n\n{start}\n{end}\n"
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    path.write_text(head + start + "\n" + table + end + tail)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--select", action="store_true", help="run the choice of the defaults (training parts only)")
    p.add_argument("--online", action="store_true", help="run the TREC-style online evaluation and plot")
    p.add_argument("--online-limit", type=int, default=None, metavar="N",
                   help="online: only the first N messages of each corpus in delivery order (default all)")
    p.add_argument("--no-write", action="store_true", help="print the tables, do not edit docs/spam.md")
    p.add_argument("--accuracy", action="store_true",
                   help="the accuracy study: every corpus in several formats and across corpora (no speed figures)")
    p.add_argument("--select-only", action="store_true",
                   help="with --accuracy --select: only the choice of the default (its table to stdout)")
    p.add_argument("--baseline", metavar="CHECKOUT",
                   help="also time CHECKOUT/scripts/spamfilter --batch (another checkout of textnb, e.g. the "
                        "code before a change) in the same alternation: before / after columns")
    args = p.parse_args(argv)
    if args.baseline is not None and not (Path(args.baseline) / "scripts" / "spamfilter").is_file():
        p.error(f"--baseline {args.baseline}: no scripts/spamfilter there")
    for name in ("spamassassin_public_corpus", "csdmc2010_spam", "sms_spam_collection"):
        if not (SHARED / f"{name}.tar.gz").exists():
            print(f"{SHARED / name}.tar.gz: not found (the shared corpora are needed)", file=sys.stderr)
            return 1
    # the installed state: pip install compiles the package's bytecode (this environment sets
    # PYTHONDONTWRITEBYTECODE, so a checkout would recompile every module on every start)
    compileall.compile_dir(str(REPO / "textnb"), quiet=1)
    if args.baseline is not None:
        compileall.compile_dir(str(Path(args.baseline) / "textnb"), quiet=1)
    loads = [os.getloadavg()[0]]
    corpora = [load_spamassassin(), load_csdmc(), load_sms()]
    splits = []
    for c in corpora:
        rate = tokenize(c)
        idx = np.arange(len(c.y))
        tr, te = train_test_split(idx, test_size=TEST_SIZE, stratify=c.y, random_state=SEED)
        splits.append((np.sort(tr), np.sort(te)))
        log(f"{c.name}: {len(c.y)} messages ({np.sum(c.y == 'spam')} spam), tokenised at {rate:.0f}/s")
    if args.accuracy:
        return accuracy_main(args, corpora, splits, loads)
    selection = select([cv_set(c.name, c.data, c.tokens, c.y, tr) for c, (tr, _) in zip(corpora, splits)],
                       bogofilter=False) if args.select else None
    extra = cv_choice_rows(selection)
    results = []
    for c, (tr, te) in zip(corpora, splits):
        tmp = tempfile.mkdtemp(prefix="bench_spam_")
        try:
            results.append(evaluate(c, tr, te, tmp, extra, args.baseline))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        loads.append(os.getloadavg()[0])
        log(f"  {c.name}: " + "; ".join(f"{r['system']}: recall {r['recall']:.4f}, ham->spam {r['fp']:.4f}"
                                        for r in results[-1]["rows"]) + f"; speed {results[-1]['speed']}")
    online_res = None
    if args.online:
        tmp = tempfile.mkdtemp(prefix="bench_spam_online_")
        try:
            online_res = online(corpora, tmp, args.online_limit)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        plot_online(online_res)
        loads.append(os.getloadavg()[0])
    flags = "".join(f for f, on in ((" --select", args.select), (" --online", args.online),
                                    (" --baseline CHECKOUT", args.baseline is not None)) if on)
    if online_res:
        publish(render_online(online_res, float(np.mean(loads)), flags), args, "online")
    return publish(render(results, selection, float(np.mean(loads)), flags), args, "bench")


def cv_choice_rows(selection):
    """The extra row for the selection's choice when it is not the module default (else none)."""
    if not selection:
        return []
    best, default = GRID[selection["best"]], SPAM_KINDS[DEFAULT_KIND]
    if SpamScorer(**best).get_params() == SpamScorer(**default).get_params() \
            and selection["spam_cutoff"] == DEFAULT_SPAM_CUTOFF:
        return []
    log(f"NOTE: the selection chose {cfg_name(best)} with spam cut-off {selection['spam_cutoff']:g}; "
        f"the module defaults are {cfg_name(default)} / {DEFAULT_SPAM_CUTOFF:g}")
    return [(f"textnb CV choice ({cfg_name(best)}; cut-off {selection['spam_cutoff']:g})", best,
             selection["spam_cutoff"])]


def accuracy_main(args, corpora, splits, loads):
    selection = set_names = None
    extra = []
    if args.select:
        t = time.perf_counter()
        selection, set_names = select_formats(corpora, splits)
        log(f"selection over {len(set_names)} sets: {time.perf_counter() - t:.0f}s")
        extra = cv_choice_rows(selection)
    if args.select_only and selection:
        print(render_accuracy([], selection, set_names, float(np.mean(loads + [os.getloadavg()[0]]))))
        return 0
    # candidates shown beside the default (their cut-offs from their own --select rows)
    extra += [(f"textnb {cfg_name(cfg)}; cut-off {cut:g}", cfg, cut) for cfg, cut in ACCURACY_CANDIDATES]
    tmp = tempfile.mkdtemp(prefix="bench_spam_acc_")
    try:
        study = accuracy_study(corpora, splits, extra, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    loads.append(os.getloadavg()[0])
    load = float(np.mean(loads))
    if selection:  # (its own section: a run without --select leaves the last choice's tables in place)
        publish(render_accuracy([], selection, set_names, load), args, "accuracy-select")
    return publish(render_accuracy(study, None, set_names, load), args, "accuracy")


if __name__ == "__main__":
    sys.exit(main())
