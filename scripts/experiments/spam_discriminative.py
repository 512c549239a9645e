"""``spamfilter --kind discriminative`` against the default kind and bogofilter, inside training parts.

The choice of spamfilter's default (``scripts/bench_spam.py --accuracy --select``) scores
SpamScorer settings on 13 sets made of the training parts only: each of SpamAssassin,
CSDMC2010 (without its SpamAssassin overlap) and the SMS Spam Collection in each format
(5-fold cross-validation inside its 70/30 training part, seed 0), and each mail corpus's
training part scored by a model of the other's, in two formats. This script scores three
systems on exactly those sets and folds, which bench_spam's selection cannot (it fits
SpamScorer settings over shared counts):

* the default kind (``fisher``: ``SpamScorer(method="fisher", min_dev=0.05)``);
* ``--kind discriminative``: :class:`textnb.DiscriminativeNB` over the mail reader's tokens
  (:func:`textnb.apps.filtering.token_text`), fitted on each fold's training messages at
  once, as ``spamfilter --train-*`` fits it (:func:`textnb.apps.filtering.new_spam_model`);
* bogofilter 1.2.5 with its defaults, trained with ``-s`` / ``-n`` on the same messages.

Reported per set: spam recall at ham FP <= 0.5 % and 1 - ROC AUC of the pooled out-of-fold
scores; the sets where each textnb system is at least bogofilter's on both (the selection's
criterion); and, on the sets of one corpus, the pooled out-of-fold ham marked spam at each
candidate spam cut-off (the selection's rule: the lowest cut-off holding it at 0.05 % on
every such set), with the ham marked spam on the cross-corpus sets beside it (which the
selection leaves out). No test part is read. Prints a Markdown section (for docs/spam.md)::

    nice -n 10 python scripts/experiments/spam_discriminative.py > /tmp/spam_discriminative.md

``--variant event_model=bernoulli,residual=False`` (repeatable) adds the kind with those
DiscriminativeNB parameters (values read as Python literals) beside the others.
"""

import argparse
import ast
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import bench_spam as B  # noqa: E402
from textnb.apps.filtering import DEFAULT_HAM_CUTOFF, DEFAULT_KIND, new_spam_model  # noqa: E402

SYSTEMS = ["default (fisher)", "--kind discriminative"]
#: DiscriminativeNB parameters of each system after the default (``--variant``)
VARIANTS = {"--kind discriminative": {}}


def selection_sets():
    """bench_spam's 13 selection sets (its own functions, so the very sets and folds)."""
    corpora = [B.load_spamassassin(), B.load_csdmc(), B.load_sms()]
    splits = []
    for c in corpora:
        idx = np.arange(len(c.y))
        tr, te = train_test_split(idx, test_size=B.TEST_SIZE, stratify=c.y, random_state=B.SEED)
        splits.append((np.sort(tr), np.sort(te)))
    return B.selection_sets(corpora, splits)


def fold_scores(st, tmp):
    """Pooled out-of-fold spam log-odds of each system, bogofilter's spamicities, the labels."""
    out = {name: [] for name in SYSTEMS}
    bogo, ys = [], []
    for a, b in st.folds:
        ytr, yte = st.train[2][a], st.test[2][b]
        fisher = new_spam_model(DEFAULT_KIND).fit([st.train[1][i] for i in a], ytr)
        out[SYSTEMS[0]].append(fisher.decision_function([st.test[1][i] for i in b]))
        texts, probes = [" ".join(st.train[1][i]) for i in a], [" ".join(st.test[1][i]) for i in b]
        for name, params in VARIANTS.items():
            dnb = new_spam_model("discriminative")
            dnb.model.set_params(**params)
            dnb.fit(texts, ytr)
            lo = dnb.predict_log_odds(probes)
            out[name].append(lo[:, list(dnb.classes_).index("spam")])
        ys.append(yte)
        if tmp is not None:
            d = tempfile.mkdtemp(dir=tmp)
            tr_files = B.write_files(os.path.join(d, "train"), [str(k) for k in a], [st.train[0][i] for i in a])
            te_files = B.write_files(os.path.join(d, "test"), [str(k) for k in b], [st.test[0][i] for i in b])
            db = os.path.join(d, "db")
            os.makedirs(db)
            B.bogo_train(db, [f for f, lab in zip(tr_files, ytr) if lab == "spam"],
                         [f for f, lab in zip(tr_files, ytr) if lab == "ham"])
            bogo.append(B.bogo_score(db, te_files)[0])
            shutil.rmtree(d, ignore_errors=True)
    return (np.concatenate(ys), {k: np.concatenate(v) for k, v in out.items()},
            np.concatenate(bogo) if bogo else None)


def figures(scores, y):
    yb = (y == "spam").astype(int)
    return B.recall_at_fp(scores, y)[0], 100 * (1 - roc_auc_score(yb, scores))


def parse_variant(text):
    """``"k=v,k=v"`` as DiscriminativeNB parameters (each value a Python literal, else a string)."""
    params = {}
    for part in filter(None, text.split(",")):
        key, _, value = part.partition("=")
        try:
            params[key.strip()] = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError):
            params[key.strip()] = value.strip()
    return params


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--variant", action="append", default=[], metavar="K=V,...",
                   help="also the kind with these DiscriminativeNB parameters")
    args = p.parse_args(argv)
    for text in args.variant:
        name = f"--kind discriminative ({text})"
        SYSTEMS.append(name)
        VARIANTS[name] = parse_variant(text)
    t0 = time.perf_counter()
    sets = selection_sets()
    tmp = tempfile.mkdtemp(prefix="spam_dnb_") if B.have_bogofilter() else None
    rows = []
    try:
        for st in sets:
            t = time.perf_counter()
            y, out, bogo = fold_scores(st, tmp)
            rows.append((st, y, out, bogo))
            B.log(f"  {st.name}: " + "; ".join(f"{k} {figures(v, y)[0]:.4f} / {figures(v, y)[1]:.3f} %"
                                              for k, v in out.items())
                  + (f"; bogofilter {figures(bogo, y)[0]:.4f} / {figures(bogo, y)[1]:.3f} %" if bogo is not None else "")
                  + f" ({time.perf_counter() - t:.0f}s)")
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    lines = ["| set | " + " | ".join(SYSTEMS) + " | bogofilter 1.2.5 |", "|---|" + "---:|" * (len(SYSTEMS) + 1)]
    wins = {k: 0 for k in SYSTEMS}
    for st, y, out, bogo in rows:
        cells = []
        bf = figures(bogo, y) if bogo is not None else None
        for k in SYSTEMS:
            rec, roca = figures(out[k], y)
            if bf is not None and rec >= bf[0] and roca <= bf[1]:
                wins[k] += 1
            cells.append(f"{100 * rec:.1f} % / {roca:.3f} %")
        cells.append(f"{100 * bf[0]:.1f} % / {bf[1]:.3f} %" if bf else "-")
        lines.append(f"| {st.name} | " + " | ".join(cells) + " |")
    lines += ["", "| sets at least bogofilter's on both | " + " | ".join(f"{wins[k]} of {len(rows)}" for k in SYSTEMS)
              + " | - |", ""]
    lines += ["Pooled out-of-fold ham marked spam at each spam cut-off (ham cut-off "
              f"{DEFAULT_HAM_CUTOFF:g}): the worst set of one corpus, and the worst cross-corpus set "
              "(which the selection leaves out):", "",
              "| spam cut-off | " + " | ".join(f"{k}: one corpus / across" for k in SYSTEMS) + " |",
              "|---:|" + "---:|" * len(SYSTEMS)]
    for c in B.SPAM_CUTOFFS:
        cells = []
        for k in SYSTEMS:
            own = [B.at_cutoffs(B.verdicts(out[k], c, DEFAULT_HAM_CUTOFF), y)["fp"] for st, y, out, _ in rows
                   if not st.cross]
            cross = [B.at_cutoffs(B.verdicts(out[k], c, DEFAULT_HAM_CUTOFF), y)["fp"] for st, y, out, _ in rows
                     if st.cross]
            cells.append(f"{100 * max(own):.2f} % / {100 * max(cross):.2f} %")
        lines.append(f"| {c:g} | " + " | ".join(cells) + " |")
    lines += ["", f"Measured by `scripts/experiments/spam_discriminative.py` on {time.strftime('%Y-%m-%d %H:%M')} "
              f"({time.perf_counter() - t0:.0f} s; textnb's default kind and `--kind discriminative`, "
              f"bogofilter {B.bogo_version()} on the same folds)."]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
