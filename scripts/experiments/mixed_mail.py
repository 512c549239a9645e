"""Mixed tables on mail: text-only, header-attributes-only and mixed naive Bayes, 10-fold CV.

The table comes from ``scripts/build_mail_table.py`` (SpamAssassin + CSDMC2010, the
CSDMC messages that are also in SpamAssassin dropped, then duplicate bodies dropped):
``subject`` and ``body`` are text attributes, ``sender_domain``, ``n_recipients``,
``has_html``, ``has_attachment``, ``size`` (log10 bytes) and ``hour`` the header-derived
ones; the ``corpus`` column is read but left out of every model.

Models, all evaluated on the same seeded stratified 10-fold split (seed 0):

* text, one document: :class:`textnb.TextClassifier` (Vectorizer + MultinomialNB) on
  ``subject + "\\n" + body``, the usual single-document text model (the same word model as
  MixedNB's text attributes); and the TextClassifier's default model,
  :class:`textnb.DiscriminativeNB` (naive Bayes with discriminative frequency estimates, Su
  et al. 2008, and a fitted temperature), on the same documents;
* text, two attributes: :class:`textnb.MixedNB` on ``subject`` and ``body`` only (each its
  own vocabulary);
* header attributes only: :class:`textnb.TabularNB` (Gaussian numerics; and MDL-discretised);
* mixed: :class:`textnb.MixedNB` on all eight attributes (Gaussian; and MDL-discretised).

Reported: accuracy, macro-F1, log-loss, spam recall at a ham false-positive rate of at
most 0.5 % (threshold on the pooled out-of-fold spam log-odds), and accuracy on the rows
of each corpus. Writes ``docs/mixed.md``::

    nice -n 10 python scripts/experiments/mixed_mail.py [--table /tmp/mail_table.csv]
"""

import argparse
import datetime
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.metrics import f1_score, log_loss
from sklearn.model_selection import StratifiedKFold

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from textnb import MixedNB, MultinomialNB, TabularNB, TextClassifier  # noqa: E402
from textnb.io.tables import read_table  # noqa: E402

TEXT = ["subject", "body"]
HEADER = ["sender_domain", "n_recipients", "has_html", "has_attachment", "size", "hour"]


def recall_at_fpr(score, is_spam, fpr=0.005):
    """Spam recall at the lowest threshold whose ham false-positive rate is <= fpr."""
    ham = np.sort(score[~is_spam])[::-1]
    k = int(np.floor(fpr * ham.size))  # hams allowed above the threshold
    thr = ham[k] if k < ham.size else -np.inf
    return float(np.mean(score[is_spam] > thr))


def run(name, make, X, y, folds, corpus, progress):
    start = time.perf_counter()
    classes = np.unique(y)
    proba = np.zeros((len(y), len(classes)))
    odds = np.zeros(len(y))
    for i, (train, test) in enumerate(folds):
        model = make().fit(X[train], y[train])
        assert list(model.classes_) == list(classes)
        proba[test] = model.predict_proba(X[test])
        odds[test] = model.predict_log_odds(X[test])[:, list(classes).index("spam")]
        progress(f"{name}: fold {i + 1}/{len(folds)}")
    pred = classes[np.argmax(proba, axis=1)]
    res = {
        "model": name,
        "accuracy": float(np.mean(pred == y)),
        "macro_f1": float(f1_score(y, pred, average="macro")),
        "log_loss": float(log_loss(y, np.clip(proba, 1e-15, 1), labels=classes)),
        "recall@0.5%": recall_at_fpr(odds, y == "spam"),
        "seconds": time.perf_counter() - start,
    }
    for c in ("spamassassin", "csdmc2010_spam"):
        sel = corpus == c
        res[f"acc {c}"] = float(np.mean(pred[sel] == y[sel]))
    return res


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--table", default="/tmp/mail_table.csv")
    p.add_argument("--corpora", default="/work/corpora")
    p.add_argument("--output", default=str(ROOT / "docs" / "mixed.md"))
    args = p.parse_args(argv)
    if not Path(args.table).exists():
        subprocess.run([sys.executable, str(ROOT / "scripts" / "build_mail_table.py"), "--corpora", args.corpora,
                        "-o", args.table], check=True)
    t0 = time.perf_counter()
    types = {c: "text" for c in TEXT}
    types.update(sender_domain="nominal", has_html="nominal", has_attachment="nominal", corpus="nominal",
                 n_recipients="numeric", size="numeric", hour="numeric")
    table = read_table(args.table, class_name="class", types=types)
    read_seconds = time.perf_counter() - t0
    names = table.attribute_names
    corpus_att = table.attributes[names.index("corpus")]
    corpus = np.asarray(corpus_att.values, dtype=object)[table.X[:, names.index("corpus")].astype(np.intp)]
    y = table.y

    def cols(wanted):
        idx = [names.index(n) for n in wanted]
        return table.X[:, idx], tuple(table.attributes[j] for j in idx)

    X_text, A_text = cols(TEXT)
    X_head, A_head = cols(HEADER)
    X_head = X_head.astype(np.float64)
    X_all, A_all = cols(TEXT + HEADER)
    docs = np.array([(s or "") + "\n" + (b or "") for s, b in X_text], dtype=object)
    folds = list(StratifiedKFold(n_splits=10, shuffle=True, random_state=0).split(np.zeros(len(y)), y))
    tty = sys.stderr.isatty()

    def progress(msg):
        if tty:
            sys.stderr.write("\r\033[K" + msg)
            sys.stderr.flush()

    runs = [
        ("text, one document (TextClassifier, MultinomialNB)", lambda: TextClassifier(model=MultinomialNB(), n_jobs=1),
         docs),
        ("text, subject + body attributes (MixedNB)", lambda: MixedNB(attributes=A_text), X_text),
        ("header attributes (TabularNB, Gaussian)", lambda: TabularNB(attributes=A_head), X_head),
        ("header attributes (TabularNB, MDL)", lambda: TabularNB(attributes=A_head, numeric="mdl"), X_head),
        ("mixed: text + header (MixedNB, Gaussian)", lambda: MixedNB(attributes=A_all), X_all),
        ("mixed: text + header (MixedNB, MDL)", lambda: MixedNB(attributes=A_all, numeric="mdl"), X_all),
        ("text, one document (TextClassifier default: DiscriminativeNB)", lambda: TextClassifier(n_jobs=1), docs),
    ]
    results = [run(name, make, X, y, folds, corpus, progress) for name, make, X in runs]
    # how big the text terms are against the header attributes' (held-out rows of fold 1)
    train, test = folds[0]
    mixed = MixedNB(attributes=A_all).fit(X_all[train], y[train])
    prior, terms = mixed.predict_attribute_terms(X_all[test])
    diff = {k: v[:, 1] - v[:, 0] for k, v in terms.items()}  # spam minus ham
    header_max = np.max(np.abs([diff[h] for h in HEADER]), axis=0)
    share_10x = float(np.mean(np.abs(diff["body"]) > 10 * header_max))
    median_body, median_header = float(np.median(np.abs(diff["body"]))), float(np.median(header_max))
    if tty:
        sys.stderr.write("\r\033[K")
    n_ham, n_spam = int(np.sum(y == "ham")), int(np.sum(y == "spam"))
    by_corpus = {c: (int(np.sum((corpus == c) & (y == "ham"))), int(np.sum((corpus == c) & (y == "spam"))))
                 for c in ("spamassassin", "csdmc2010_spam")}
    lines = [
        "| model | accuracy | macro-F1 | log-loss | spam recall at ham FP ≤ 0.5 % | accuracy SpamAssassin rows "
        "| accuracy CSDMC rows | seconds (10 folds) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r['model']} | {r['accuracy']:.4f} | {r['macro_f1']:.4f} | {r['log_loss']:.4f} "
            f"| {r['recall@0.5%']:.4f} | {r['acc spamassassin']:.4f} | {r['acc csdmc2010_spam']:.4f} "
            f"| {r['seconds']:.1f} |"
        )
    today = datetime.date.today().isoformat()
    err = [int(round((1 - r["accuracy"]) * len(y))) for r in results]
    rec = [r["recall@0.5%"] for r in results]
    text = TEMPLATE.format(
        head_g_acc=results[2]["accuracy"], head_m_acc=results[3]["accuracy"], head_rec=max(rec[2], rec[3]),
        text1_err=err[0], text2_err=err[1], text1_rec=rec[0], text2_rec=rec[1],
        share_10x=share_10x, median_body=median_body, median_header=median_header, n_test=len(test),
        mixed_g_err=err[4], mixed_m_err=err[5], mixed_g_rec=rec[4], mixed_m_rec=rec[5],
        disc_err=err[6], disc_rec=rec[6], disc_loss=results[6]["log_loss"], text1_loss=results[0]["log_loss"],
        date=today, n=len(y), ham=n_ham, spam=n_spam,
        sa_ham=by_corpus["spamassassin"][0], sa_spam=by_corpus["spamassassin"][1],
        cs_ham=by_corpus["csdmc2010_spam"][0], cs_spam=by_corpus["csdmc2010_spam"][1],
        read=read_seconds, table="\n".join(lines),
    )
    Path(args.output).write_text(text, encoding="utf-8")
    print("\n".join(lines))
    return 0


TEMPLATE = """# Mixed tables: text and other attributes in one naive Bayes

`textnb` tables can hold *text* attributes beside nominal, numeric and uncertain ones
(ARFF `string` attributes; CSV/TSV columns named with `--text-column NAME`, repeatable, or
`types={{"body": "text"}}` in `read_table`; DataFrame columns marked with
`table_from_frame(df, types={{"body": "text"}})`). `MixedNB` (`textnb/text/mixed.py`) is one
naive Bayes over all of them:

    log P(c | x) = log P(c) + Σ_k log P(x_k | c) + Σ_t Σ_w n_tw log θ_c,t,w + const

The non-text attributes `x_k` keep `TabularNB`'s estimators (Gaussian, kernel density or
discretised numerics, Laplace / m-estimate nominals, NBU for uncertain cells), each text
attribute `t` has its own vocabulary and multinomial word probabilities (McCallum & Nigam
1998; Bernoulli on request), and there is one class prior. Missing text is an empty
document. `fit`, `partial_fit` (vocabularies grow), `merge`, sample weights, model files,
`predict --explain` (contributions per attribute and, inside text attributes, per term),
`inspect`, `evaluate --cv`, APNBC (`--adjust`) and `CalibratedNB` work on it; LBR, TAN and
Bayes nets refuse text attributes with a one-line error.

    textnb train mail.csv --text-column subject --text-column body --class class
    textnb predict mail.tnb new.csv --explain
    textnb evaluate mail.csv --text-column subject --text-column body --cv 10

A CSV with exactly a label and one text column given with `--text-column` stays a text
corpus, as before.

## Demonstration on mail ({date})

Table: `python scripts/build_mail_table.py -o /tmp/mail_table.csv` from the extracted
SpamAssassin public corpus and the labelled CSDMC2010 part, each message read by the one mail
reader (`textnb.io.mailtokens.read_message`). The 2,345 CSDMC messages listed
in its `overlap_with_spamassassin_public_corpus.tsv` (csdmc2010_spam.SOURCE.md: also in
SpamAssassin) are dropped, then every message whose body was already seen. {n} messages
remain: {ham} ham, {spam} spam (SpamAssassin {sa_ham} ham / {sa_spam} spam, CSDMC
{cs_ham} / {cs_spam}). Attributes: `subject` and `body` (text: the decoded Subject; the
text of the text parts, HTML reduced to text, at most 100,000 characters), `sender_domain`
(nominal), `n_recipients` (To + Cc addresses), `has_html`, `has_attachment` (nominal),
`size` (log10 bytes), `hour` (of the Date header, sender's zone). Reading the table took
{read:.1f} s.

Protocol: one seeded stratified 10-fold split (seed 0), the same folds for every model,
default parameters (Laplace smoothing, default tokenizer); scores pooled over the folds.
"Spam recall at ham FP ≤ 0.5 %" thresholds the pooled out-of-fold spam log-odds.
Produced by `nice -n 10 python scripts/experiments/mixed_mail.py --table /tmp/mail_table.csv`.
The first six rows are generative naive Bayes throughout (multinomial words, as MixedNB's
text attributes); the last row is what `TextClassifier()` fits by default since 2026-12-01,
`DiscriminativeNB`, on the same one-document text.

{table}

Reading the table:

* The header attributes alone are a weak model ({head_g_acc:.1%} accuracy with Gaussian
  numerics, {head_m_acc:.1%} discretised with MDL; at most {head_rec:.0%} of the spam caught
  at 0.5 % ham false positives); the text a strong one.
* Subject and body as two text attributes (two vocabularies, the same words) against one
  concatenated document, both multinomial: {text2_err} errors against {text1_err}, and spam
  recall at 0.5 % ham FP {text2_rec:.1%} against {text1_rec:.1%}.
* Adding the header attributes to the two text attributes (mixed model): {mixed_g_err} errors
  (Gaussian) and {mixed_m_err} (MDL) against {text2_err}; spam recall at 0.5 % ham FP
  {mixed_g_rec:.1%} / {mixed_m_rec:.1%} against {text2_rec:.1%}; a slightly lower log-loss than the
  multinomial text models' (the header-only MDL model's is lower still: its probabilities are far
  less extreme than those of a product over hundreds of words). The gain is small: naive Bayes adds
  each header attribute's log-likelihood term with the same weight as each word's, so a few header
  attributes cannot outweigh hundreds of body words: on the {n_test} held-out messages of the
  first fold (Gaussian mixed model, the per-attribute terms `predict --explain` lists), the median
  absolute contribution of the body to the spam-vs-ham margin is {median_body:.1f} nats, that of
  the largest header attribute {median_header:.1f}, and the body outweighs ten times the largest
  header attribute in {share_10x:.0%} of the messages. So the header attributes can only tip the
  messages whose text terms nearly balance. This is one 10-fold split of one table, without a
  significance test: differences of a few tenths of a point are within what another split could
  change.
* The default text model, `DiscriminativeNB` on the one document, beats every generative row
  here, the mixed ones included: {disc_err} errors, spam recall at 0.5 % ham FP {disc_rec:.1%}
  and a log-loss of {disc_loss:.4f} (multinomial: {text1_loss:.4f}). Its per-class sums are
  frequency estimates: each training document is added again, weighted by how unsure the model
  is of its class (Su et al. 2008), which offsets
  part of the over-counting of correlated words, and a fitted temperature tempers its
  probabilities (the log-loss); the header attributes of a mixed table do neither. MixedNB fits
  multinomial (or Bernoulli) word models for its text attributes, so on this mail the
  single-document discriminative model is the better spam model, and a mixed table earns its
  place where the non-text attributes carry information the words do not.
* Caveat (csdmc2010_spam.SOURCE.md): the CSDMC 2009–2010 ham is mailing-list traffic to one
  address, and eras differ in line ends and dates; `sender_domain` and `hour` can pick up
  such collection artefacts rather than spam itself. The per-corpus columns show how each
  model does on each part.
* The seconds are wall-clock time on a shared 2-core machine (other jobs running), not a
  benchmark; MixedNB tokenises each text attribute in its own vectorizer, one process.

Re-run on 2026-12-03, after `scripts/build_mail_table.py` was moved to the one mail reader.
Between 2026-12-02 06:20 (when the email-based parser it called, `textnb.io.mail._extract`, was
deleted) and that fix, the script fell back to the raw message as the body, with empty subjects;
a table built in that window was broken. The figures this section showed before (2026-12-01)
were not from such a table: that run predates the deletion, and its table, rebuilt at that
revision, has the same 7,857 rows. They agree with today's to within 0.15 points of accuracy
(at most half a point on the CSDMC rows of the header-only MDL model). What did change is the
one-document row: `TextClassifier()` has fitted `DiscriminativeNB` by default since 2026-12-01
16:25, so that row is now `TextClassifier(model=MultinomialNB())`, the model the 2026-12-01
figures measured, and the default has a row of its own.
"""


if __name__ == "__main__":
    sys.exit(main())
