"""What ``textnb predict`` prints: each document's label (``--proba``: every class's
probability; ``--json``: with the log-odds), or its ranked labels (``--top`` /
``--threshold``, fastText's ``predict-prob``), and the accuracy against labels the input
carries."""

import numpy as np

from textnb.evaluation.topk import best_labels_of_rows
from textnb.cli.output import cell, counted, dumps, figure_text, proba_text
from textnb.cli.progress import write_line
from textnb.core.errors import InputError, TextnbError

__all__ = ["Accuracy", "format_proba", "print_predictions", "print_ranked", "ranked", "refuse_nan"]


def refuse_nan(args, proba, odds):
    if np.isnan(proba).any() or np.isnan(odds).any():
        raise TextnbError(f"{args.model}: the model gives NaN scores (its parameters are inconsistent)")


def ranked(args):
    """Whether the labels are printed ranked, with their probabilities (``--top K`` /
    ``--threshold P`` without ``--explain``, as fastText's ``predict-prob``)."""
    if args.explain and args.threshold is not None:
        raise InputError("--explain explains each document's predicted label: no --threshold (with --explain, "
                         "--top is the number of terms)")
    return not args.explain and (args.top is not None or args.threshold is not None)


def print_ranked(sources, classes, proba, odds, args, out):
    """The ``--top`` most probable labels of each document whose probability ``proba`` is
    at least ``--threshold`` (all of them with only ``--threshold``, one with only
    ``--top`` absent), each with its probability (and in ``--json`` its log-odds); a
    document with none keeps its TAB. One printer for single-label models (``proba`` the
    posterior) and multi-label ones (each label's own probability)."""
    # the order of p; its log-odds break the ties of probabilities that round to one
    # float (a calibrated model's log-odds are its inner model's: they rank only within)
    for src, p, lo, best in zip(sources, proba, odds, best_labels_of_rows(proba, odds, args.top, args.threshold)):
        best = [int(k) for k in best]
        if args.json:
            rec = {"source": src, "labels": [
                {"label": classes[k], "proba": float(p[k]), "log_odds": float(lo[k])} for k in best]}
            print(dumps(rec), file=out)
        else:
            print(f"{cell(src)}\t" + "\t".join(f"{cell(classes[k])} {proba_text(p[k], args.threshold)}" for k in best), file=out)


def print_predictions(sources, classes, scores, args, out, explanations=None):
    """The predictions of a batch on ``out``, flushed: a batch handed over as its input
    stalls (``predict --lines -``) is answered at once, not when a buffer fills."""
    probas, odds = scores
    refuse_nan(args, probas, odds)
    if ranked(args):
        print_ranked(sources, classes, probas, odds, args, out)
        out.flush()
        return
    explanations = explanations if explanations is not None else [None] * len(sources)
    for src, proba, lo, why in zip(sources, probas, odds, explanations):
        label = classes[int(np.argmax(proba))]
        if args.json:
            rec = {"source": src, "label": label}
            if args.proba:
                rec["proba"] = {c: float(p) for c, p in zip(classes, proba)}
                rec["log_odds"] = {c: float(v) for c, v in zip(classes, lo)}
            if why is not None:
                rec["explanation"] = why
            print(dumps(rec), file=out)
        else:
            cols = [cell(src), cell(label)]
            if args.proba:
                cols.append(format_proba([cell(c) for c in classes], proba))
            if why is not None:
                cols.append(cell(why))
            print("\t".join(cols), file=out)
    out.flush()


def format_proba(classes, row):
    return "\t".join(f"{c}={proba_text(p)}" for c, p in zip(classes, row))


class Accuracy:
    """Accuracy of predictions against the labels the input carries (a TSV/CSV label
    column, a table's class column), printed on stderr; rows whose label is empty or
    missing are classified but not counted, and their number is said."""

    def __init__(self, name, column, unit="row"):
        self.name, self.column, self.unit = name, column, unit
        self.correct = self.counted = self.unlabelled = 0
        self.weighed = None  # (right, total) instance weights of the counted rows: a table with weights
        self.unseen = {}  # label the model never saw -> its rows (counted wrong, and said so)

    def add(self, classes, proba, labels, sample_weight=None):
        labels = np.asarray(labels, dtype=object)
        known = np.array([v is not None for v in labels], dtype=bool)
        predicted = np.asarray(classes, dtype=object)[np.argmax(proba, axis=1)]
        right = predicted[known] == labels[known].astype(str)
        names = {str(c) for c in classes}
        for label in labels[known].astype(str):
            if label not in names:
                self.unseen[label] = self.unseen.get(label, 0) + 1
        self.correct += int(np.sum(right))
        self.counted += int(known.sum())
        self.unlabelled += int((~known).sum())
        if sample_weight is not None:  # as evaluate --test weighs them (Weka's evaluation)
            w = np.asarray(sample_weight, dtype=np.float64)[known]
            done = self.weighed or (0.0, 0.0)
            self.weighed = (done[0] + float(np.sum(w[right])), done[1] + float(np.sum(w)))

    def _weighted(self):
        if self.weighed is None or self.weighed[1] <= 0:
            return ""
        return (f"; weighing each row by its instance weight, as evaluate does: "
                f"{figure_text(self.weighed[0] / self.weighed[1])}")

    def report(self, err):
        if err is None or self.counted + self.unlabelled == 0:
            return
        n = self.unlabelled
        lacking = "a class value" if self.column == "class value" else "a label"  # (a table's rows: its class)
        skipped = f"; {counted(n, self.unit)} without {lacking} not counted" if n else ""
        if self.unseen:  # (as evaluate --test names them: found by a user trial, they were counted wrong silently)
            rows = sum(self.unseen.values())
            names = ", ".join(cell(v) for v in sorted(self.unseen)[:5]) + (", ..." if len(self.unseen) > 5 else "")
            skipped += (f"; {counted(rows, self.unit)} of {'a class' if len(self.unseen) == 1 else 'classes'} the "
                        f"model never saw ({names}), counted wrong")
        if self.counted:
            write_line(err, f"{self.name}: accuracy {figure_text(self.correct / self.counted)} ({self.correct} of "
                            f"{counted(self.counted, self.unit)} with a {self.column}{skipped}{self._weighted()})")
