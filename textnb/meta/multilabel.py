"""Multi-label text classification: naive Bayes scores and a thresholding strategy per label.

A document may carry several labels (Reuters-21578 topics: ``grain`` and ``wheat``; the
emotions of a GoEmotions comment). :class:`MultiLabelNB` turns a naive Bayes model into
a multi-label classifier in two steps:

1. **Scores per label.** ``method="copy"`` (default): one multi-class model over the
   documents copied once per label, a document with no label counted once in a reserved
   "no label" class (the *copy transformation*, Tsoumakas & Katakis 2007); a label's
   score is its log-odds under that model. ``method="ovr"``: one binary model per label
   (binary relevance); for the count models (multinomial, Bernoulli, complement) every
   label's model is built from one sparse product ``Y.T @ X`` of the training sums
   through the model's own ``fit_counts`` (the same numbers as fitting it label by label).
2. **Decisions.** The thresholding strategies of Yang (2001), every choice made on
   out-of-fold scores of the training documents (``cv`` folds): ``"scut"`` a log-odds
   threshold per label maximising its F1; ``"scutfbr"`` (default) the same with a fallback
   for rare labels: a label whose best out-of-fold F1 is below ``fbr`` gets the score of
   its top-ranked out-of-fold document as threshold (Yang's SCutFBR.1), ``fbr`` itself
   chosen for micro-F1 by cross-fitting the out-of-fold scores; ``"rcut"`` the ``k`` best
   labels of each document; ``"pcut"`` per label the top-ranked documents of a batch in
   proportion to the label's training frequency. Then a document that got fewer than
   ``min_labels`` labels (default 1: at least one label, as topic taggers do) gets its
   best-ranked ones.

``docs/multilabel.md`` measures the methods and strategies on GoEmotions and on
single-label corpora read as multi-label (label sets of one), against scikit-learn's
one-vs-rest baselines.

Corpus layouts read by :func:`read_multilabel_corpus`:

* a label file, one line per document: ``docid<TAB>label1,label2`` (``docid`` the
  path of the document relative to the corpus folder, or to its ``train/`` or ``test/``
  part, with or without its extension; an empty label list is allowed; blank lines and
  lines starting with ``#`` skipped). The file may list documents that are not in the
  folder (a label file shared by the train and test parts): they are counted, not read;
* one folder per label, a document in the folder of each of its labels:
  ``corpus/grain/0001.txt`` and ``corpus/wheat/0001.txt`` are one document when their
  bytes are equal; files of the same name with different bytes are an error, or
  separate documents with ``same_name="separate"``.

A folder with ``train/`` and ``test/`` parts is read as the two parts of an official split
(``MultiLabelCorpus.test``).
"""

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy.special import log_expit, logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.model_selection import KFold
from sklearn.preprocessing import MultiLabelBinarizer
from sklearn.utils import get_tags
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from textnb.naive_bayes.base import CV_SCHEMA, SaveMixin, given_splits
from textnb.core.errors import InputError, ParameterError
from textnb.core.model_io import register
from textnb.core.model_schema import (N_FEATURES, SEED, TEMPLATE, Array, Bool, Choice, Classes, Float, Int,
                                      ListOf, MayBeAbsent, Model, OneOf, Optional)
from textnb.core.stats import CountTable, seen_columns
from textnb.io.corpus import _class_folders, _walk_files, read_small_text
from textnb.meta.calibration import estimator_log_odds, threshold_for_f1
from textnb.naive_bayes.base import log_odds
from textnb.naive_bayes.discrete import _BaseCountNB

__all__ = [
    "MultiLabelCorpus",
    "MultiLabelNB",
    "break_even_point",
    "cross_validate_multilabel",
    "evaluate_multilabel_split",
    "multilabel_report",
    "read_label_file",
    "read_multilabel_corpus",
]

#: Thresholding strategies (Yang 2001); "f1" is the name model files of textnb <= 0.x
#: give to "scut".
STRATEGIES = ("scutfbr", "scut", "rcut", "pcut", "f1")
#: Candidate values of the inner choices (made on out-of-fold scores of the training documents).
FBR_GRID = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5)
RANK_GRID = (1, 2, 3)
PCUT_GRID = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0)
#: Below this many training documents the thresholds come from 5 folds, else from 2 (``cv=None``).
SMALL = 5000


# -- corpora -------------------------------------------------------------------------
@dataclass
class MultiLabelCorpus:
    """Documents (paths) and their label sets, in parallel lists.

    ``ids`` are the document ids (relative paths, or the label file's ids), ``labels``
    tuples of str (sorted), ``label_names`` every label that occurs, sorted. What the
    reader left out is counted: ``unlisted`` (files the label file has no line for),
    ``not_found`` (ids of the label file with no file in this folder, nor in the other
    part of a split folder: documents of another part, such as a dev part, or missing). ``test`` is the test part of a split folder.
    """

    source: str
    ids: list
    documents: list
    labels: list
    unlisted: list = field(default_factory=list)
    not_found: list = field(default_factory=list)
    test: "MultiLabelCorpus | None" = None
    #: lines of a fastText file left out because they carry no label
    unlabeled: int = 0

    @property
    def label_names(self):
        return sorted({lab for labs in self.labels for lab in labs})

    def __len__(self):
        return len(self.documents)

    def label_counts(self):
        counts = {}
        for labs in self.labels:
            for lab in labs:
                counts[lab] = counts.get(lab, 0) + 1
        return dict(sorted(counts.items()))


def read_label_file(path):
    """Read ``docid<TAB>label1,label2`` lines into ``{docid: (labels...)}``.

    Raises InputError (``path:line: problem``) for a line without a TAB, an empty
    document id or a document id given twice; the file is read by
    :func:`textnb.io.corpus.read_small_text` (a regular file of at most 64 MiB: a FIFO
    or a device is refused, never read).
    """
    path = os.fspath(path)
    out = {}
    text = read_small_text(path, what="label file")
    for n, line in enumerate(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if "\t" not in line:
            raise InputError(f"{path}:{n}: expected 'docid<TAB>label1,label2'; no TAB in the line")
        doc, labels = line.split("\t", 1)
        doc = doc.strip()
        if not doc:
            raise InputError(f"{path}:{n}: empty document id")
        if doc in out:
            raise InputError(f"{path}:{n}: document {doc!r} is listed twice")
        out[doc] = tuple(sorted({lab.strip() for lab in labels.split(",") if lab.strip()}))
    return out


def _split_parts(path):
    """``(train, test)`` folders of a folder with ``train/`` and ``test/`` parts, else None."""
    train, test = os.path.join(path, "train"), os.path.join(path, "test")
    if os.path.isdir(train) and os.path.isdir(test):
        return train, test
    return None


def _from_label_file(folder, table, label_file, prefix, strict):
    """The documents of ``folder`` that ``table`` lists (ids relative to ``folder``, or
    to its parent with ``prefix``), in file order."""
    label_path = os.path.abspath(os.fspath(label_file))
    files, keys = [], {}
    for f in _walk_files(folder):
        if os.path.abspath(f) == label_path:
            continue
        rel = Path(os.path.relpath(f, folder)).as_posix()
        files.append(rel)
        stem = rel.rsplit(".", 1)[0] if "." in os.path.basename(rel) else rel
        for key in (rel, stem) + ((prefix + rel, prefix + stem) if prefix else ()):
            keys.setdefault(key, rel)
    ids, documents, labels, used = [], [], [], set()
    not_found = []
    for doc, labs in table.items():
        rel = keys.get(doc)
        if rel is None or rel in used:
            not_found.append(doc)
            continue
        used.add(rel)
        ids.append(doc)
        documents.append(Path(folder, rel))
        labels.append(labs)
    unlisted = [rel for rel in files if rel not in used]
    if strict and unlisted:
        raise InputError(f"{label_file}: {len(unlisted)} file{'s' if len(unlisted) > 1 else ''} of {folder} "
                         f"ha{'ve' if len(unlisted) > 1 else 's'} no line (first: {unlisted[0]}); --strict")
    return ids, documents, labels, unlisted, not_found


def _from_label_folders(folder, same_name):
    """One folder per label: the same relative path in several label folders is one
    document when the files' bytes are equal."""
    labels_of, paths_of = {}, {}
    for label_dir in _class_folders(folder):
        label = os.path.basename(label_dir)
        for f in _walk_files(label_dir):
            rel = Path(os.path.relpath(f, label_dir)).as_posix()
            paths_of.setdefault(rel, []).append(Path(f))
            labels_of.setdefault(rel, []).append(label)
    if not paths_of:
        raise InputError(f"{folder}: no documents (expected one folder per label: {folder}/<label>/<files>)")
    ids, documents, labels = [], [], []
    for rel in sorted(paths_of):
        paths, labs = paths_of[rel], labels_of[rel]
        groups = [[paths[0], [labs[0]]]]  # files of equal bytes, with their labels
        if len(paths) > 1:
            first = _content(paths[0])
            contents = [first]
            for p, lab in zip(paths[1:], labs[1:]):
                data = _content(p)
                for g, c in zip(groups, contents):
                    if c == data:
                        g[1].append(lab)
                        break
                else:
                    if same_name != "separate":
                        raise InputError(
                            f"{groups[0][0]} and {p}: same name in two label folders but different "
                            f"contents (one document with two labels must be the same file in each "
                            f"label's folder; --separate-documents reads them as separate documents)")
                    groups.append([p, [lab]])
                    contents.append(data)
        for k, (p, glabs) in enumerate(groups):
            ids.append(rel if len(groups) == 1 else f"{glabs[0]}/{rel}")
            documents.append(p)
            labels.append(tuple(sorted(set(glabs))))
    return ids, documents, labels


def _content(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None


def read_multilabel_corpus(path, *, label_file=None, strict=False, same_name="error", test=True):
    """List a multi-label corpus: a folder with a label file, or one folder per label.

    Parameters
    ----------
    path : str or Path
        The corpus folder. When it holds ``train/`` and ``test/`` parts (an official
        split), the result is the training part with the test part in ``.test``.
    label_file : str or Path, default=None
        ``docid<TAB>labels`` file; document ids are paths relative to the folder (or to
        its part), with or without the file extension. Ids with no file in the folder
        (the other part's documents, or missing ones) are counted in ``not_found``;
        files with no line in ``unlisted`` and left out. When None, ``path`` (or each
        part) holds one folder per label.
    strict : bool, default=False
        Raise InputError for a file with no line or an id with no file (in neither part).
    same_name : {"error", "separate"}, default="error"
        One folder per label: files with the same relative path in several label folders
        are one document when their bytes are equal; when they differ, ``"error"``
        raises InputError naming two of them, ``"separate"`` reads them as separate
        documents.
    test : bool, default=True
        Also list the test part of a split folder.

    Returns
    -------
    MultiLabelCorpus
    """
    path = os.fspath(path)
    if not os.path.isdir(path):
        raise InputError(f"{path}: not a folder")
    if same_name not in ("error", "separate"):
        raise ParameterError(f"same_name must be 'error' or 'separate'; got {same_name!r}")
    parts = _split_parts(path)
    folders = [parts[0], parts[1]] if parts else [path]
    if parts and not test:
        folders = folders[:1]
    out = []
    if label_file is not None:
        table = read_label_file(label_file)
        found = set()
        for folder in folders:
            prefix = os.path.basename(folder) + "/" if parts else ""
            ids, documents, labels, unlisted, not_found = _from_label_file(folder, table, label_file, prefix, strict)
            found.update(ids)
            out.append(MultiLabelCorpus(source=path if folder == folders[0] else folder, ids=ids,
                                        documents=documents, labels=labels, unlisted=unlisted,
                                        not_found=not_found))
        if len(out) == 2:  # an id of the other part is not missing
            for part, other in ((out[0], out[1]), (out[1], out[0])):
                theirs = set(other.ids)
                part.not_found = [i for i in part.not_found if i not in theirs]
        if strict:
            if parts and not test:  # the test part's ids are not missing
                prefix = os.path.basename(parts[1]) + "/"
                found.update(_from_label_file(parts[1], table, label_file, prefix, False)[0])
            missing = [i for i in table if i not in found]
            if missing:
                raise InputError(f"{label_file}: {len(missing)} document id{'s' if len(missing) > 1 else ''} "
                                 f"with no file in {path} (first: {missing[0]}); --strict")
        if not out[0].ids:
            raise InputError(f"{label_file}: lists none of the documents in {folders[0]}")
    else:
        for folder in folders:
            ids, documents, labels = _from_label_folders(folder, same_name)
            out.append(MultiLabelCorpus(source=path if folder == folders[0] else folder, ids=ids,
                                        documents=documents, labels=labels))
    corpus = out[0]
    corpus.test = out[1] if len(out) > 1 else None
    return corpus



# -- metrics -----------------------------------------------------------------------------
def break_even_point(scores, positive):
    """Precision-recall break-even point of one ranking.

    The documents are ranked by score and cut after as many documents as there are
    positives, ``R``: there precision and recall are both ``tp / R`` (R-precision, the
    usual estimate of the break-even point). Returns NaN when there is no positive.
    """
    scores = np.asarray(scores, dtype=np.float64).ravel()
    positive = np.asarray(positive, dtype=bool).ravel()
    r = int(positive.sum())
    if r == 0:
        return float("nan")
    order = np.argsort(-scores, kind="stable")
    return float(positive[order[:r]].sum() / r)


def multilabel_report(Y_true, Y_pred, labels, scores=None, train_support=None):
    """Micro / macro precision, recall, F1 (and break-even points when ``scores`` given).

    Parameters
    ----------
    Y_true, Y_pred : array-like of shape (n_documents, n_labels), 0/1
    labels : sequence of str
        Label names (columns).
    scores : array-like of shape (n_documents, n_labels), default=None
        Decision scores (larger = more likely), e.g. ``MultiLabelNB.decision_function``.
        Adds per-label ``bep``, ``macro_bep`` (mean over labels with a positive) and
        ``micro_bep`` (one ranking of all document-label pairs).
    train_support : array-like of shape (n_labels,), default=None
        Training documents per label: adds per-label ``train_support``.

    Returns
    -------
    dict (JSON-ready)
        ``n``, ``labels``, ``micro_precision``, ``micro_recall``, ``micro_f1``,
        ``macro_precision``, ``macro_recall``, ``macro_f1`` (means over the labels),
        ``subset_accuracy`` (documents whose label set is exactly right),
        ``hamming_loss`` (wrong document-label cells), ``labels_per_document`` (true and
        predicted means), ``per_label`` {label: precision, recall, f1, support, ...}.
    """
    T = np.asarray(Y_true.toarray() if sp.issparse(Y_true) else Y_true).astype(bool)
    P = np.asarray(Y_pred.toarray() if sp.issparse(Y_pred) else Y_pred).astype(bool)
    tp = (T & P).sum(axis=0).astype(float)
    fp = (~T & P).sum(axis=0).astype(float)
    fn = (T & ~P).sum(axis=0).astype(float)

    def prf(tp, fp, fn):
        p = tp / (tp + fp) if tp + fp else 0.0
        r = tp / (tp + fn) if tp + fn else 0.0
        f = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0
        return float(p), float(r), float(f)

    per = {}
    for j, lab in enumerate(labels):
        p, r, f = prf(tp[j], fp[j], fn[j])
        per[str(lab)] = {"precision": p, "recall": r, "f1": f, "support": int(T[:, j].sum())}
        if train_support is not None:
            per[str(lab)]["train_support"] = int(train_support[j])
    mp, mr, mf = prf(tp.sum(), fp.sum(), fn.sum())
    report = {
        "n": int(T.shape[0]),
        "labels": [str(lab) for lab in labels],
        "micro_precision": mp,
        "micro_recall": mr,
        "micro_f1": mf,
        "macro_precision": float(np.mean([v["precision"] for v in per.values()])) if per else 0.0,
        "macro_recall": float(np.mean([v["recall"] for v in per.values()])) if per else 0.0,
        "macro_f1": float(np.mean([v["f1"] for v in per.values()])) if per else 0.0,
        "subset_accuracy": float(np.mean(np.all(T == P, axis=1))) if T.shape[0] else 0.0,
        "hamming_loss": float(np.mean(T != P)) if T.size else 0.0,
        "labels_per_document": {"true": float(T.sum(axis=1).mean()) if T.shape[0] else 0.0,
                                "predicted": float(P.sum(axis=1).mean()) if T.shape[0] else 0.0},
        "per_label": per,
    }
    if scores is not None:
        S = np.nan_to_num(np.asarray(scores, dtype=np.float64), posinf=1e300, neginf=-1e300)
        beps = []
        for j, lab in enumerate(labels):
            b = break_even_point(S[:, j], T[:, j])
            per[str(lab)]["bep"] = None if np.isnan(b) else b
            if not np.isnan(b):
                beps.append(b)
        report["macro_bep"] = float(np.mean(beps)) if beps else None
        micro = break_even_point(S.ravel(), T.ravel())
        report["micro_bep"] = None if np.isnan(micro) else micro
    return report


def _micro_f1(T, P):
    tp = np.count_nonzero(T & P)
    den = np.count_nonzero(T) + np.count_nonzero(P)
    return 2 * tp / den if den else 0.0


# -- decisions (Yang 2001) -------------------------------------------------------------------
def _finite(S):
    return np.nan_to_num(S, posinf=1e300, neginf=-1e300)


def _scut(S, T):
    """Per-label F1-best thresholds on scores ``S`` and their F1 there."""
    thr = np.empty(S.shape[1])
    f1 = np.zeros(S.shape[1])
    for j in range(S.shape[1]):
        t = T[:, j]
        thr[j] = np.clip(threshold_for_f1(S[:, j], t), -1e300, 1e300)
        pred = S[:, j] > thr[j]
        den = pred.sum() + t.sum()
        f1[j] = 2 * np.count_nonzero(pred & t) / den if den else 0.0
    return thr, f1


def _fallback(thr, f1, S, fbr):
    """SCutFBR.1: a label whose F1 is below ``fbr`` gets its top-ranked score as threshold."""
    out = thr.copy()
    low = f1 < fbr
    out[low] = S[:, low].max(axis=0) if S.shape[0] else np.inf
    return out


def _at_least(D, min_labels):
    """Decisions ``D`` (positive: assigned) with a row that has fewer than ``min_labels``
    positive values shifted down by the cut midway between its ``min_labels``-th and next
    best values: its best-ranked labels are then the positive ones (a shift per row, so
    the ranking inside a row is kept)."""
    if min_labels <= 0 or not D.shape[1]:
        return D
    short = np.flatnonzero((D > 0).sum(axis=1) < min_labels)
    if short.size:
        D = np.array(D, dtype=np.float64)
        D[short] = _rank_cut(_finite(D[short]), min(min_labels, D.shape[1]))
    return D


def _rank_cut(S, k):
    """RCut: each row's ``k`` best labels get a positive decision (the cut midway between
    the k-th and the next score)."""
    m = S.shape[1]
    if k >= m:
        return S - (np.min(S, axis=1, keepdims=True) - 1.0)
    part = -np.partition(-S, [k - 1, k], axis=1)
    return S - (part[:, [k - 1]] + part[:, [k]]) / 2


def _proportional_cut(S, rate):
    """PCut: label ``j`` goes to the ``round(rate[j] * n)`` best-ranked rows of the batch."""
    n = S.shape[0]
    D = np.empty_like(S)
    for j in range(S.shape[1]):
        k = int(min(n, round(rate[j] * n)))
        col = S[:, j]
        if k <= 0:
            D[:, j] = col - (col.max() + 1.0)
        elif k >= n:
            D[:, j] = col - (col.min() - 1.0)
        else:
            part = -np.partition(-col, [k - 1, k])
            D[:, j] = col - (part[k - 1] + part[k]) / 2
    return D


def _choose(S, T, candidates, decide, min_labels):
    """The candidate whose decisions have the best micro-F1 on ``S`` (ties: the first)."""
    best, best_f = candidates[0], -1.0
    for c in candidates:
        f = _micro_f1(T, _at_least(decide(S, c), min_labels) > 0)
        if f > best_f + 1e-12:
            best, best_f = c, f
    return best


def _choose_fbr(S, T, min_labels, seed):
    """``fbr`` for micro-F1, by cross-fitting the out-of-fold scores: thresholds from one
    half of the documents are judged on the other half (and the other way round), so
    the SCut thresholds are not judged on the scores they were fitted to."""
    n = S.shape[0]
    if n < 4:
        return FBR_GRID[0]
    halves = np.array_split(np.random.RandomState(seed).permutation(n), 2)
    scores = np.zeros(len(FBR_GRID))
    for a, b in (halves, halves[::-1]):
        thr, f1 = _scut(S[a], T[a])
        for i, fbr in enumerate(FBR_GRID):
            D = S[b] - _fallback(thr, f1, S[a], fbr)
            scores[i] += _micro_f1(T[b], _at_least(D, min_labels) > 0)
    return FBR_GRID[int(np.argmax(scores))]


def _with_choices(base, fitted):
    """``base`` with the choices ``fitted`` (the model on all the training documents)
    made from the data kept: DiscriminativeNB's event model and smoothing with
    ``event_model="auto"``. The out-of-fold models behind the thresholds then score as
    the final model does, without choosing again in every fold."""
    if isinstance(fitted, list) or not hasattr(fitted, "event_model_"):
        return base
    params = base.get_params(deep=False)
    if params.get("event_model") != "auto" or params.get("alpha", 0) is not None:
        return base
    return clone(base).set_params(event_model=fitted.event_model_, alpha=float(fitted.alpha_))


def _constant(Y):
    """Per label: 1 on every row of ``Y``, 0 on none, else -1."""
    n_pos = Y.sum(axis=0)
    return np.where(n_pos == 0, 0, np.where(n_pos == Y.shape[0], 1, -1))


def _copies(Y, live):
    """The copy transformation of the ``live`` labels of ``Y``: ``(rows, codes)``, a row
    per document and label (the document's index) in the documents' order, its code the
    label's index, or ``n_labels`` for a document with none of them."""
    Yl = Y[:, live]
    rows, cols = np.nonzero(Yl)
    empty = np.flatnonzero(Yl.sum(axis=1) == 0)
    rows = np.concatenate([rows, empty])
    codes = np.concatenate([live[cols], np.full(empty.size, Y.shape[1])])
    order = np.argsort(rows, kind="stable")  # the documents' order, a document's labels in order
    return rows[order], codes[order]


def _sums_fit(base):
    """Whether ``base`` is a count model whose fit is its sums (``fit_counts`` gives the
    same model): the one-vs-rest models are then built from one product ``Y.T @ X``."""
    return (isinstance(base, _BaseCountNB) and type(base).fit_counts is _BaseCountNB.fit_counts
            and type(base)._learn is _BaseCountNB._learn)


# -- the classifier --------------------------------------------------------------------------
@register
class MultiLabelNB(SaveMixin, ClassifierMixin, BaseEstimator):
    """Multi-label naive Bayes: a score per label and a thresholding strategy (Yang 2001).

    ``fit(X, Y)`` with ``Y`` a 0/1 indicator matrix (n_documents, n_labels) or a list of
    label collections (``[("grain", "wheat"), ("earn",), ()]``). ``predict`` returns the
    indicator matrix of the labels each document gets. A 1-D ``y`` (one label per
    document) is treated as multi-class: ``predict`` then returns the label with the
    largest log-odds.

    Parameters
    ----------
    estimator : classifier, default=None
        The naive Bayes model behind the scores (a textnb model over term counts; it is
        cloned); the default text model
        :class:`~textnb.naive_bayes.discriminative.DiscriminativeNB` ``()`` when None.
    method : {"copy", "ovr"}, default="copy"
        ``"copy"``: one multi-class model over the documents copied once per label (a
        document with no label once, in a reserved class); a label's score is its
        log-odds ``log P(l | d) - log(1 - P(l | d))`` under it (the copy transformation,
        Tsoumakas & Katakis 2007). ``"ovr"``: one binary model per label (binary
        relevance), the label's score its log-odds; the count models (multinomial,
        Bernoulli, complement) are then all built from one sparse product.
    threshold : {"scutfbr", "scut", "rcut", "pcut"} or float, default="scutfbr"
        The decision of each label from the scores, every choice made on out-of-fold
        scores of the training documents (``cv`` folds): ``"scut"`` the log-odds
        threshold per label with the best F1; ``"scutfbr"`` the same, except that a
        label whose best F1 is below ``fbr`` gets the score of its top-ranked
        out-of-fold document as threshold (SCutFBR.1); ``"rcut"`` the ``rank`` best
        labels of each document; ``"pcut"`` each label to the best-ranked documents of
        the predicted batch, as many as its training frequency times a factor chosen
        for micro-F1 (a batch strategy: one document alone gets labels through
        ``min_labels`` only); a number: that log-odds threshold for every label (0
        means ``P > 0.5``). ``"f1"`` is an old name of ``"scut"``.
    fbr : float in [0, 1] or None, default=None
        The F1 below which ``"scutfbr"`` falls back; None chooses it from
        ``FBR_GRID`` for micro-F1 by cross-fitting the out-of-fold scores (thresholds
        from one half of the training documents judged on the other half).
    rank : int or None, default=None
        Labels per document for ``"rcut"``; None chooses 1, 2 or 3 for micro-F1 on the
        out-of-fold scores.
    min_labels : int, default=1
        A document that gets fewer labels than this gets its best-ranked ones (the
        largest decision values): by default every document gets at least one label.
        0 allows an empty label set.
    cv : int, cross-validation splitter, iterable of (train, test) or None, default=None
        Folds for the out-of-fold scores, what scikit-learn's ``check_cv`` accepts. An
        int: K-fold, shuffled with ``random_state``. A splitter (``cv.split(X, Y)``, ``Y``
        the label indicator matrix, or the labels when ``y`` is one label per document)
        or a list of ``(train, test)`` index arrays is used as given: the decisions are
        chosen on the out-of-fold scores of every (split, test document) pair, so a
        document in no test part (``ShuffleSplit``) is not used and one in several is used
        once per split. A splitter that needs ``groups`` cannot be used (``fit`` takes
        none): give ``list(cv.split(X, Y, groups))``. A model file stores an int or a
        list of splits, never a splitter (:meth:`save` refuses it in one line). None: 5 below
        ``SMALL`` (5,000) training documents, else 2. The out-of-fold models must score
        on the scale of the model on all the documents: on a small corpus a model of half
        the documents is much less confident (60 documents: thresholds of -3.5 instead of
        -1), on large corpora 2 folds gave the F1 of 3 or 5 (``docs/multilabel.md``) in
        less time. The out-of-fold models keep the choices the model on all the training
        documents made (DiscriminativeNB's event model and smoothing). With
        ``method="copy"`` over a model that has ``fit_out_of_fold`` (DiscriminativeNB)
        there is one training: each fold's scores come from the sums of the model of every
        document with that fold's documents taken out.
    random_state : int, default=0
        Seed of the folds.

    Attributes
    ----------
    classes_ : ndarray of shape (n_labels,)
        Label names (columns of ``Y``).
    estimator_ : classifier
        ``method="copy"``: the multi-class model; its classes are label indices, and
        ``n_labels`` for a document with no label.
    estimators_ : list of classifiers
        ``method="ovr"``: one binary classifier per label (classes 0 and 1); None for a
        label that is always or never present.
    constant_ : ndarray of shape (n_labels,)
        1 for a label on every training document, 0 for a label on none (their
        log-odds are then ±inf); -1 otherwise.
    strategy_ : str
        ``"scutfbr"``, ``"scut"``, ``"rcut"``, ``"pcut"`` or ``"fixed"`` (a number).
    thresholds_ : ndarray of shape (n_labels,)
        Log-odds thresholds (SCut, SCutFBR, a number; 0 for RCut and PCut).
    fbr_ : float
        SCutFBR's fallback level (when ``strategy_`` is ``"scutfbr"``).
    rank_ : int
        RCut's labels per document (when ``strategy_`` is ``"rcut"``).
    pcut_rate_ : ndarray of shape (n_labels,)
        PCut's fraction of a batch given each label (when ``strategy_`` is ``"pcut"``).
    train_support_ : ndarray of shape (n_labels,)
        Training documents per label.
    multilabel_ : bool
        Whether ``Y`` was multi-label (indicator / label sets) or 1-D.

    References
    ----------
    Y. Yang (2001). A study of thresholding strategies for text categorization. SIGIR,
    137-145.
    G. Tsoumakas, I. Katakis (2007). Multi-label classification: an overview.
    International Journal of Data Warehousing and Mining 3(3), 1-13.

    Examples
    --------
    >>> from textnb.meta.multilabel import MultiLabelNB
    >>> X = [[3, 0, 0], [0, 3, 0], [2, 2, 0], [0, 0, 3]] * 3
    >>> Y = [("grain",), ("wheat",), ("grain", "wheat"), ()] * 3
    >>> MultiLabelNB(threshold=0.0, min_labels=0).fit(X, Y).predict([[2, 2, 0]]).tolist()
    [[1, 1]]
    """

    _param_schema = {
        "estimator": TEMPLATE, "method": Choice("copy", "ovr"), "threshold": OneOf(Choice(*STRATEGIES), Float()),
        "fbr": Optional(Float(0.0, 1.0)), "rank": Optional(Int(1, 10_000)), "min_labels": Int(0, 10_000),
        "cv": CV_SCHEMA, "random_state": SEED,
    }
    _state_schema = {
        "classes_": Classes("n_labels"),
        "estimator_": MayBeAbsent(Model(dims={"n_features_in_": "n_features"})),
        "estimators_": MayBeAbsent(ListOf(Optional(Model(dims={"n_features_in_": "n_features"},
                                                         equal={"classes_": (0, 1)})), length="n_labels")),
        "constant_": Array("iu", ("n_labels",), lo=-1, hi=1),
        "thresholds_": Array("f", ("n_labels",), finite="no-nan"),
        "strategy_": MayBeAbsent(Choice("scutfbr", "scut", "rcut", "pcut", "fixed")),
        "fbr_": MayBeAbsent(Float(0.0, 1.0)),
        "rank_": MayBeAbsent(Int(1, 10_000)),
        "pcut_rate_": MayBeAbsent(Array("f", ("n_labels",), lo=0.0, hi=100.0)),
        "train_support_": MayBeAbsent(Array("iuf", ("n_labels",), lo=0)),
        "multilabel_": Bool(),
        "n_features_in_": N_FEATURES,
        "feature_names_in_": MayBeAbsent(Array("U", (None,))),
    }

    def __init__(self, estimator=None, *, method="copy", threshold="scutfbr", fbr=None, rank=None, min_labels=1,
                 cv=None, random_state=0):
        self.estimator = estimator
        self.method = method
        self.threshold = threshold
        self.fbr = fbr
        self.rank = rank
        self.min_labels = min_labels
        self.cv = cv
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        inner = get_tags(self._base())
        tags.input_tags.sparse = inner.input_tags.sparse
        tags.input_tags.positive_only = inner.input_tags.positive_only
        tags.classifier_tags.multi_label = True
        tags.classifier_tags.poor_score = True
        tags.target_tags.multi_output = True
        return tags

    def _base(self):
        if self.estimator is not None:
            return self.estimator
        from textnb.naive_bayes.discriminative import DiscriminativeNB

        return DiscriminativeNB()

    def _strategy(self):
        t = self.threshold
        if isinstance(t, str):
            if t not in STRATEGIES:
                raise ParameterError(f"threshold must be one of {list(STRATEGIES[:4])} or a number; got {t!r}")
            return "scut" if t == "f1" else t
        if isinstance(t, bool) or not isinstance(t, (int, float, np.integer, np.floating)) or not np.isfinite(t):
            raise ParameterError(f"threshold must be one of {list(STRATEGIES[:4])} or a number; got {t!r}")
        return "fixed"

    def _check_params(self):
        if self.method not in ("copy", "ovr"):
            raise ParameterError(f"method must be 'copy' or 'ovr'; got {self.method!r}")
        if self.fbr is not None and not (isinstance(self.fbr, (int, float)) and 0 <= self.fbr <= 1):
            raise ParameterError(f"fbr must be a number in [0, 1] or None; got {self.fbr!r}")
        if self.rank is not None and not (isinstance(self.rank, (int, np.integer)) and self.rank >= 1):
            raise ParameterError(f"rank must be an integer >= 1 or None; got {self.rank!r}")
        if isinstance(self.min_labels, bool) or not isinstance(self.min_labels, (int, np.integer)) \
                or self.min_labels < 0:
            raise ParameterError(f"min_labels must be an integer >= 0; got {self.min_labels!r}")
        return self._strategy()

    def _indicator(self, y):
        """(Y, classes, multilabel) from an indicator matrix, label sets or 1-D labels."""
        if y is None:
            raise ValueError("MultiLabelNB requires y to be passed, but the target y is None")
        if sp.issparse(y):
            y = y.toarray()
        if isinstance(y, np.ndarray) and y.ndim == 2 and y.shape[1] == 1:
            y = y.ravel()  # a column vector: one label per document
        if isinstance(y, np.ndarray) and y.ndim == 2:
            Y = y
            if not np.isin(Y, (0, 1)).all():
                raise ValueError("a 2-D Y must be a 0/1 indicator matrix")
            return Y.astype(np.int64), np.arange(Y.shape[1]), True
        if isinstance(y, (list, tuple)) and y and all(
                isinstance(v, (list, tuple, set, frozenset)) for v in y):
            lengths = {len(v) for v in y}
            if len(lengths) > 1 or not all(isinstance(x, (int, np.integer)) for v in y for x in v):
                mlb = MultiLabelBinarizer()
                Y = mlb.fit_transform([tuple(str(x) for x in v) for v in y])
                return Y.astype(np.int64), mlb.classes_, True
        y = np.asarray(y)
        if y.ndim == 2:
            return self._indicator(y)
        check_classification_targets(y)
        classes, idx = np.unique(y, return_inverse=True)
        Y = np.zeros((len(y), len(classes)), dtype=np.int64)
        Y[np.arange(len(y)), idx] = 1
        return Y, classes, False

    # -- fitting ----------------------------------------------------------------------
    def fit(self, X, y, progress=None):
        """Fit the scores' model(s) and choose the decisions; returns self.

        ``progress``, a callable ``progress(done, total)``, is told of each model fitted
        (the final one, then the ``cv`` out-of-fold ones; one model when the out-of-fold
        scores come from its sums)."""
        strategy = self._check_params()
        Y, classes, multilabel = self._indicator(y)
        X = validate_data(self, X, accept_sparse="csr", reset=True)
        if Y.shape[0] != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but y has {Y.shape[0]}")
        if not multilabel and len(classes) < 2:
            raise ValueError(f"only 1 class ({classes.tolist()}); need at least two")
        base = self._base()
        n_pos = Y.sum(axis=0)
        self.classes_, self.multilabel_ = classes, multilabel
        self.train_support_ = n_pos.astype(np.int64)
        self.constant_ = np.where(n_pos == 0, 0, np.where(n_pos == Y.shape[0], 1, -1)).astype(np.int64)
        self.strategy_ = strategy if multilabel else "fixed"
        thresholds = np.zeros(Y.shape[1])
        splits = given_splits(self.cv, X, Y if multilabel else classes[Y.argmax(axis=1)])
        folds = self.cv if self.cv is not None else (5 if X.shape[0] < SMALL else 2)
        folds = len(splits) if splits is not None else folds
        oof = multilabel and strategy != "fixed"  # decisions chosen on out-of-fold scores
        steps = folds + 1 if oof else 1
        n_splits = int(min(folds, X.shape[0]))
        # one training, the out-of-fold scores from the sums of the model of every document:
        # for the copy method over a model that can, when each document is held out once
        once = splits is None or _each_row_once(splits, X.shape[0])
        from_sums = oof and n_splits >= 2 and once and self.method == "copy" and hasattr(base, "fit_out_of_fold")
        if from_sums:
            steps = 1
        if progress is not None:
            progress(0, steps)
        T = Y
        if from_sums:
            if splits is None:
                splits = KFold(n_splits=n_splits, shuffle=True, random_state=self.random_state).split(X)
            fitted, S = self._fit_copy_out_of_fold(base, X, Y, splits)
        else:
            fitted = self._fit_scores(base, X, Y)  # first: the out-of-fold models keep the choices it made
        done = 1
        if progress is not None:
            progress(done, steps)
        if oof and not from_sums:
            base = _with_choices(base, fitted[0])
            S = np.zeros(Y.shape, dtype=np.float64)
            if splits is None and n_splits >= 2:
                splits = KFold(n_splits=n_splits, shuffle=True, random_state=self.random_state).split(X)
            if splits is not None:
                parts, rows = [], []
                for train, test in splits:
                    cols = seen_columns(X[train])
                    fold = self._fit_scores(base, X[train][:, cols], Y[train])
                    parts.append(self._scores(fold, X[test][:, cols]))
                    rows.append(test)
                    done += 1
                    if progress is not None:
                        progress(done, steps)
                S, rows = np.vstack(parts), np.concatenate(rows)
                if len(rows) == Y.shape[0] and np.array_equal(np.sort(rows), np.arange(Y.shape[0])):
                    S[rows] = S.copy()  # every document once (K-fold): in the documents' order
                else:  # one row per (split, test document)
                    T = Y[rows]
        if oof:
            thresholds = self._decide(_finite(S), T.astype(bool), strategy)
        elif strategy == "fixed" and multilabel:
            thresholds[:] = float(self.threshold)
        if self.method == "copy":
            self.estimator_ = fitted[0]
        else:
            self.estimators_ = fitted[0]
        thresholds[self.constant_ != -1] = 0.0
        self.thresholds_ = thresholds
        return self

    def _fit_scores(self, base, X, Y):
        """The model(s) behind the scores of labels ``Y`` (n, n_labels), and which labels
        are constant in ``Y``: ``(model(s), constant)``."""
        n, m = Y.shape
        n_pos = Y.sum(axis=0)
        constant = _constant(Y)
        live = np.flatnonzero(constant == -1)
        if self.method == "copy":
            if live.size == 0:
                return None, constant
            rows, codes = _copies(Y, live)
            return clone(base).fit(X[rows], codes), constant
        models = [None] * m
        if _sums_fit(base) and live.size:
            counter = clone(base)
            F = counter._transform_counts(sp.csr_matrix(X, dtype=np.float64))
            table = CountTable(m, X.shape[1]).add(F, sp.csr_matrix(Y, dtype=np.float64))
            total = np.asarray(F.sum(axis=0)).ravel()
            for j in live:
                pos = table.feature_count[j]
                models[j] = clone(base).fit_counts(np.array([0, 1]), [n - n_pos[j], n_pos[j]],
                                                   np.vstack([total - pos, pos]))
                models[j].n_features_in_ = X.shape[1]
        else:
            for j in live:
                models[j] = clone(base).fit(X, Y[:, j])
        return models, constant

    def _fit_copy_out_of_fold(self, base, X, Y, splits):
        """The copy model of every document (as :meth:`_fit_scores`) and the out-of-fold
        log-odds of the documents of each ``(train, test)`` split's test part, from the
        model's sums with that part taken out (``base.fit_out_of_fold``): ``(fitted, S)``.
        A label constant in the training part of a split gets ±inf, as in a model
        trained on that part."""
        n, m = Y.shape
        fold = np.full(n, -1)
        for k, (_, test) in enumerate(splits):
            fold[test] = k
        constant = _constant(Y)
        live = np.flatnonzero(constant == -1)
        S = np.zeros((n, m))
        model = None
        if live.size:
            rows, codes = _copies(Y, live)
            model = clone(base)
            full = np.full((n, m + 1), -np.inf)
            full[:, model.classes_] = model.fit_out_of_fold(X[rows], codes, fold[rows], document=rows)
            S = log_odds(full)[:, :m]
        for k in np.unique(fold):
            rest = Y[fold != k]
            n_pos = rest.sum(axis=0)
            S[np.ix_(fold == k, n_pos == 0)] = -np.inf
            S[np.ix_(fold == k, n_pos == rest.shape[0])] = np.inf
        return (model, constant), S

    def _scores(self, fitted, X):
        """Log-odds per label of the fitted ``(model(s), constant)`` (±inf for a
        constant label)."""
        models, constant = fitted
        m = len(constant)
        S = np.empty((X.shape[0], m))
        if self.method == "copy" and not isinstance(models, list):
            if models is not None:
                S[:] = estimator_log_odds(models, X, np.arange(m + 1))[:, :m]
        else:
            for j, est in enumerate(models):
                if est is not None:
                    S[:, j] = estimator_log_odds(est, X, np.array([0, 1]))[:, 1]
        S[:, constant == 1] = np.inf
        S[:, constant == 0] = -np.inf
        return S

    def _decide(self, S, T, strategy):
        """Thresholds (and ``fbr_`` / ``rank_`` / ``pcut_rate_``) from out-of-fold scores."""
        thresholds = np.zeros(S.shape[1])
        if strategy in ("scut", "scutfbr"):
            thresholds, f1 = _scut(S, T)
            if strategy == "scutfbr":
                fbr = self.fbr if self.fbr is not None else _choose_fbr(S, T, self.min_labels, self.random_state)
                self.fbr_ = float(fbr)
                thresholds = _fallback(thresholds, f1, S, fbr)
        elif strategy == "rcut":
            self.rank_ = int(self.rank if self.rank is not None else _choose(S, T, RANK_GRID, _rank_cut,
                                                                             self.min_labels))
        elif strategy == "pcut":
            prevalence = T.mean(axis=0)
            x = _choose(S, T, PCUT_GRID, lambda s, x: _proportional_cut(s, prevalence * x), self.min_labels)
            self.pcut_rate_ = np.minimum(prevalence * x, 1.0)
        return np.clip(thresholds, -1e300, 1e300)

    # -- prediction -----------------------------------------------------------------------
    def predict_log_odds(self, X):
        """Per-label log-odds (the scores), shape (n_samples, n_labels)."""
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", reset=False)
        if hasattr(self, "estimator_"):
            return self._scores((self.estimator_, self.constant_), X)
        return self._scores((list(self.estimators_), self.constant_), X)

    def decision_function(self, X):
        """Positive where a label is assigned: log-odds minus the threshold (SCut,
        SCutFBR, a number), or minus the row's RCut / the batch's PCut cut; a row with
        fewer than ``min_labels`` positive values is shifted down so that its best-ranked
        ones are positive.

        With a 1-D ``y`` (multi-class) the log-odds themselves (those of ``classes_[1]``
        when there are two classes), as scikit-learn's classifiers do.
        """
        check_is_fitted(self)
        S = self.predict_log_odds(X)
        if not self.multilabel_:
            return S[:, 1] if S.shape[1] == 2 else S
        return self.decision_from_log_odds(S)

    def decision_from_log_odds(self, S):
        """:meth:`decision_function` of documents whose log-odds ``S`` (from
        :meth:`predict_log_odds`) are known (multi-label): one scoring pass for both."""
        check_is_fitted(self)
        strategy = getattr(self, "strategy_", "scut")
        if strategy == "rcut":
            D = _rank_cut(_finite(S), self.rank_)
        elif strategy == "pcut":
            D = _proportional_cut(_finite(S), self.pcut_rate_)
        else:
            D = S - self.thresholds_
        return _at_least(D, self.min_labels)

    def predict(self, X):
        """Indicator matrix of assigned labels (multi-label), or one label per row (1-D y)."""
        check_is_fitted(self)
        if self.multilabel_:
            return (self.decision_function(X) > 0).astype(np.int64)
        return self.classes_[np.argmax(self.predict_log_odds(X), axis=1)]

    def predict_labels(self, X):
        """The assigned labels of each row as a list of tuples of label names."""
        check_is_fitted(self)
        if not self.multilabel_:
            return [(str(c),) for c in self.predict(X)]
        return [tuple(str(c) for c in self.classes_[row]) for row in self.decision_function(X) > 0]

    def predict_log_proba(self, X):
        """Per-label ``log P(label | x)`` (multi-label), or these normalised over the
        labels (1-D y)."""
        check_is_fitted(self)
        lp = log_expit(self.predict_log_odds(X))
        if self.multilabel_:
            return lp
        return lp - logsumexp(lp, axis=1, keepdims=True)

    def predict_proba(self, X):
        check_is_fitted(self)
        return np.exp(self.predict_log_proba(X))

    def score(self, X, y, sample_weight=None):
        """Mean accuracy (1-D y) or micro-F1 (multi-label, over ``classes_``)."""
        check_is_fitted(self)
        if not self.multilabel_:
            return super().score(X, y, sample_weight=sample_weight)
        return multilabel_report(self.indicator(y), self.predict(X), self.classes_)["micro_f1"]

    def indicator(self, y):
        """0/1 matrix (n, n_labels) over ``classes_`` of label sets or an indicator matrix
        (labels not in ``classes_`` are left out)."""
        check_is_fitted(self)
        if sp.issparse(y) or (isinstance(y, np.ndarray) and y.ndim == 2):
            return np.asarray(y.toarray() if sp.issparse(y) else y).astype(np.int64)
        names = {str(c): j for j, c in enumerate(self.classes_)}
        Y = np.zeros((len(y), len(names)), dtype=np.int64)
        for i, labs in enumerate(y):
            for lab in labs:
                j = names.get(str(lab))
                if j is not None:
                    Y[i, j] = 1
        return Y


    def _set_state(self, state):
        """A model file's state, checked beyond its schema: one kind of scores (``estimator_``
        or ``estimators_``), the copy model's classes label indices, and what the strategy
        needs (``fbr_``, ``rank_``, ``pcut_rate_``)."""
        if ("estimator_" in state) == ("estimators_" in state):
            raise ValueError("expected one of estimator_ (copy) and estimators_ (one-vs-rest)")
        n = len(state["classes_"])
        inner = state.get("estimator_")
        if inner is not None and not np.isin(np.asarray(inner.classes_), np.arange(n + 1)).all():
            raise ValueError(f"the copy model's classes must be label indices 0..{n}")
        need = {"scutfbr": "fbr_", "rcut": "rank_", "pcut": "pcut_rate_"}.get(state.get("strategy_"))
        if need is not None and need not in state:
            raise ValueError(f"strategy {state['strategy_']!r} without {need}")
        for k, v in state.items():
            setattr(self, k, v)


def evaluate_multilabel_split(X_train, labels_train, X_test, labels_test, model=None, *, progress=None):
    """Train on one part, test on the other (an official split), as the literature reports.

    Parameters
    ----------
    X_train, X_test : sparse matrices (n, n_terms)
        Counts over the training part's vocabulary (a test document's unseen terms
        dropped).
    labels_train, labels_test : lists of label collections
    model : MultiLabelNB, default=None
        ``MultiLabelNB()`` when None (cloned).
    progress : callable, default=None
        ``progress(done, total)``, passed to ``fit``.

    Returns
    -------
    dict
        :func:`multilabel_report` of the test part (per-label ``train_support``
        included; labels of the test part the training part never has are scored as
        never predicted), plus ``n_train`` and ``test_labels_unseen``.
    """
    model = clone(MultiLabelNB() if model is None else model)
    model.fit(X_train, [tuple(v) for v in labels_train], progress=progress)
    known = {str(c) for c in model.classes_}
    unseen = sorted({str(lab) for labs in labels_test for lab in labs} - known)
    Y = model.indicator(labels_test)
    D = model.decision_function(X_test)  # what predict thresholds at 0
    report = multilabel_report(Y, D > 0, model.classes_, D, train_support=model.train_support_)
    if unseen:  # their documents are counted as missed labels in the micro figures
        missed = sum(1 for labs in labels_test for lab in labs if str(lab) in unseen)
        tp = report["micro_recall"] * (Y.sum())
        report["micro_recall"] = float(tp / (Y.sum() + missed)) if Y.sum() + missed else 0.0
        p, r = report["micro_precision"], report["micro_recall"]
        report["micro_f1"] = float(2 * p * r / (p + r)) if p + r else 0.0
    report["n_train"] = int(X_train.shape[0])
    report["test_labels_unseen"] = unseen
    return report


def _each_row_once(splits, n):
    """Whether the test parts of ``splits`` hold every one of ``n`` rows exactly once."""
    tested = np.concatenate([np.asarray(test) for _, test in splits]) if splits else np.zeros(0, dtype=np.intp)
    return tested.size == n and np.array_equal(np.sort(tested), np.arange(n))


def cross_validate_multilabel(X, labels, model=None, *, cv=10, seed=0, progress=None):
    """K-fold cross-validation of a multi-label model on a count matrix.

    Parameters
    ----------
    X : sparse matrix (n_documents, n_terms)
        Counts over every term (:func:`textnb.evaluation.evaluate.vectorize_all`); each fold uses
        the terms of its training part only.
    labels : list of label collections, or 0/1 indicator matrix
    model : MultiLabelNB, default=None
        ``MultiLabelNB()`` when None (cloned per fold).
    cv : int, cross-validation splitter or iterable of (train, test) index arrays, default=10
        A number of folds (shuffled with ``seed``), or what scikit-learn's ``check_cv``
        accepts, used as given: each split's test rows are predicted and pooled (a row in
        no test part is not counted, a row in several is counted once per split).
    progress : callable, default=None
        ``progress(done, total)`` after each fold.

    Returns
    -------
    dict
        :func:`multilabel_report` of the pooled out-of-fold predictions and decision
        scores, plus ``folds`` and ``seed``.
    """
    model = MultiLabelNB() if model is None else model
    X = sp.csr_matrix(X)
    Y, classes, multilabel = MultiLabelNB()._indicator(labels if not isinstance(labels, list) else list(labels))
    if not multilabel:
        raise InputError("cross_validate_multilabel needs label sets or an indicator matrix")
    splits = given_splits(cv, X, Y)
    if splits is None:
        cv = 10 if cv is None else int(cv)
        if cv > X.shape[0]:
            raise InputError(f"cv must be between 2 and the number of documents ({X.shape[0]}); got {cv}")
        splits = list(KFold(n_splits=cv, shuffle=True, random_state=seed).split(X))
    truth, pred, scores = [], [], []
    for k, (train, test) in enumerate(splits, 1):
        cols = seen_columns(X[train])
        fitted = clone(model).fit(X[train][:, cols], Y[train])
        D = fitted.decision_function(X[test][:, cols])  # what predict thresholds at 0
        truth.append(Y[test])
        pred.append((D > 0).astype(Y.dtype))
        scores.append(_finite(D))
        if progress is not None:
            progress(k, len(splits))
    report = multilabel_report(np.vstack(truth), np.vstack(pred), classes, np.vstack(scores),
                               train_support=Y.sum(axis=0))
    report["folds"], report["seed"] = len(splits), seed
    return report
