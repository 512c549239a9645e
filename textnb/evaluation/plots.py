"""PNG pictures of results (optional: needs matplotlib, ``pip install textnb[plot]``)."""

import warnings

import numpy as np

from textnb.core.errors import DataWarning, TextnbError, figure_text
from textnb.io.pictures import Lettering, picture, plotting_library

__all__ = ["MAX_PLOTTED_CLASSES", "MAX_PLOTTED_TERMS", "plot_confusion_matrix", "plot_evaluation", "plot_informative_terms",
           "plot_label_f1", "pyplot"]


def _plain_log_ticks(axis):
    """Tick labels of the log-scale ``axis`` as plain numbers (``1``, ``100``, ``1,000``):
    matplotlib writes them as mathtext (``$\\mathdefault{10^{2}}$``), which
    :func:`textnb.io.pictures.picture` draws as written."""
    from matplotlib.ticker import LogFormatter

    class Plain(LogFormatter):
        def _num_to_string(self, x, vmin, vmax):
            return f"{x:,.0f}" if x >= 1 else f"{x:g}"

    axis.set_major_formatter(Plain())
    axis.set_minor_formatter(Plain(labelOnlyBase=False))


def pyplot():
    """matplotlib.pyplot with a file-only backend, or a clear error when matplotlib is
    missing (:func:`textnb.io.pictures.plotting_library`)."""
    plotting_library().use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _short(name, limit=30):
    """``name`` as a plot writes it: at most ``limit`` characters, a longer one cut with an
    ellipsis (so it stays inside the picture, and is seen to be cut)."""
    name = str(name)
    return name if len(name) <= limit else name[:limit - 1] + "\u2026"


def _matrix_size(classes):
    """The side, in inches, of a confusion matrix of ``classes``: its cells, and room for
    its longest name (as :func:`_short` writes it) beside and below them."""
    longest = max((len(_short(c)) for c in classes), default=0)
    return max(4.0, 0.45 * len(classes) + 2) + 0.07 * max(0, longest - 6)


#: how a class drawn as its number (:class:`textnb.io.pictures.Lettering`) is found in the text
_CLASS_NUMBERS = "a class by its row in the report's confusion matrix (from 0)"


def _draw_confusion_matrix(fig, ax, matrix, classes, repeats=1):
    """The confusion matrix of ``classes`` (named as :class:`~textnb.io.pictures.Lettering` draws them)."""
    from textnb.evaluation.evaluate import count_text

    m = np.asarray(matrix)
    im = ax.imshow(m, cmap="Blues", aspect="auto")  # (filling its panel: tight_layout leaves room for the names)
    names = [_short(c) for c in classes]
    ax.set_xticks(range(len(classes)), labels=names, rotation=90, fontsize=8)
    ax.set_yticks(range(len(classes)), labels=names, fontsize=8)
    ax.set_xlabel("predicted")
    ax.set_ylabel("true")
    if len(classes) <= 25:
        for i in range(m.shape[0]):
            for j in range(m.shape[1]):
                ax.text(j, i, count_text(matrix[i][j], repeats), ha="center", va="center", fontsize=7,
                        color="white" if m[i, j] > m.max() / 2 else "black")
    fig.colorbar(im, ax=ax)


def _tight_layout(fig):
    """``fig.tight_layout()``, leaving the figure without a layout engine. (tight_layout
    leaves a placeholder engine, and savefig draws a figure that has one a second time,
    without output, before the real draw: a third of the time of an ``evaluate --plot``
    picture; the layout is done, so the picture is the same.)"""
    import matplotlib

    fig.tight_layout()
    with matplotlib.rc_context({"figure.autolayout": False, "figure.constrained_layout.use": False}):
        fig.set_layout_engine(None)  # (None, with these settings: no engine)


def _save(fig, path, dpi=110):
    """The figure at ``path`` in the format of its suffix (PNG, SVG, PDF, JPEG), written
    whole or not at all, never over a file that is not a picture
    (:func:`textnb.core.model_io.write_picture`)."""
    from textnb.core.model_io import write_picture

    write_picture(fig, path, dpi=dpi)


@picture
def plot_confusion_matrix(matrix, classes, path):
    """Write the confusion matrix (rows true, columns predicted) as a PNG."""
    plt = pyplot()
    letters = Lettering(path)
    names = letters.names(classes, "class name", _CLASS_NUMBERS)
    size = _matrix_size(names)
    fig, ax = plt.subplots(figsize=(size + 1, size))
    _draw_confusion_matrix(fig, ax, matrix, names)
    _tight_layout(fig)
    _save(fig, path)
    plt.close(fig)
    letters.warn()


@picture
def plot_evaluation(report, path):
    """Write an evaluation report (:func:`textnb.evaluation.evaluate.classification_report`)
    as a PNG: the confusion matrix; with probabilities, the reliability diagram (accuracy
    against mean confidence per confidence bin, the diagonal being calibrated, each bin's
    share of the documents as bars); with two classes, the ROC curve and its area."""
    plt = pyplot()
    letters = Lettering(path)
    classes = letters.names(report["classes"], "class name", _CLASS_NUMBERS)
    panels = 1 + ("reliability" in report) + ("roc" in report)
    size = _matrix_size(classes)
    fig, axes = plt.subplots(1, panels, figsize=(size + 1 + 4.6 * (panels - 1), size),
                             gridspec_kw={"width_ratios": [size + 1] + [4.6] * (panels - 1)})
    axes = np.atleast_1d(axes)
    _draw_confusion_matrix(fig, axes[0], report["confusion_matrix"], classes,
                           repeats=len(report.get("accuracy_per_repeat") or ()))
    axes[0].set_title(f"confusion matrix (accuracy {figure_text(report['accuracy'])})", fontsize=9)
    k = 1
    if "reliability" in report:
        rel, ax = report["reliability"], axes[k]
        edges = np.linspace(0.0, 1.0, rel["bins"] + 1)
        count = np.asarray(rel["count"], dtype=float)  # (documents, or their instance weights' sums)
        share = count / count.sum() if count.sum() > 0 else count
        ax.bar(edges[:-1], share, width=np.diff(edges), align="edge", color="0.85", label="share of documents")
        seen = [i for i, c in enumerate(rel["count"]) if c]
        ax.plot([rel["confidence"][i] for i in seen], [rel["accuracy"][i] for i in seen], "o-",
                color="tab:blue", label="accuracy")
        ax.plot([0, 1], [0, 1], "--", color="0.4", linewidth=1, label="calibrated")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.02)
        ax.set_xlabel("confidence (top class probability)")
        ax.set_ylabel("accuracy")
        title = "reliability"
        if "ece" in report:
            title += f" (ECE {figure_text(report['ece'])}"
            title += f", log-loss {figure_text(report['log_loss'])})" if "log_loss" in report else ")"
        ax.set_title(title, fontsize=9)
        ax.legend(fontsize=7, loc="upper left")
        k += 1
    if "roc" in report:
        curve, ax = report["roc"], axes[k]
        ax.plot(curve["fpr"], curve["tpr"], color="tab:red", drawstyle="default")
        ax.plot([0, 1], [0, 1], "--", color="0.4", linewidth=1)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.02)
        positive = _short(classes[list(report["classes"]).index(curve["positive"])])
        ax.set_xlabel(f"false positive rate (not {positive})")
        ax.set_ylabel(f"true positive rate ({positive})")
        ax.set_title(f"ROC, positive class: {positive} (AUC {figure_text(curve['auc'])})", fontsize=9)
    _tight_layout(fig)
    _save(fig, path)
    plt.close(fig)
    letters.warn()


@picture
def plot_label_f1(per_label, path, folds=None):
    """Per-label F1 on the test documents against the label's training documents (log
    scale), one point per label, its name beside it: where rare labels fail (a
    multi-label evaluation's ``per_label``, with ``train_support``). ``folds`` (K of a
    K-fold cross-validation's report): the F1 is out of fold and the support the label's
    documents in the corpus cross-validated, and the axes say so."""
    plt = pyplot()
    labels = list(per_label)
    support = np.array([max(per_label[n].get("train_support", 0), 0) for n in labels], dtype=float)
    f1 = np.array([per_label[n]["f1"] for n in labels])
    letters = Lettering(path)
    names = letters.names(labels, "label name", "a label by its row in the report's per-label table (from 0)")
    fig, ax = plt.subplots(figsize=(8, 5.5))
    ax.scatter(np.maximum(support, 0.8), f1, s=18, color="tab:blue")
    ax.set_xscale("log")
    _plain_log_ticks(ax.xaxis)
    ax.set_ylim(-0.02, 1.02)
    if folds is None:
        ax.set_xlabel("training documents with the label (log scale)")
        ax.set_ylabel("F1 on the test documents")
        ax.set_title(f"per-label F1 against training support ({len(names)} labels)")
    else:
        ax.set_xlabel("documents with the label (log scale)")
        ax.set_ylabel(f"F1 out of fold ({folds}-fold cross-validation)")
        ax.set_title(f"per-label F1 against support ({len(names)} labels)")
    ax.grid(True, alpha=0.3)
    _tight_layout(fig)
    if len(names) <= 60:
        _place_names(fig, ax, names, np.maximum(support, 0.8), f1)
    _save(fig, path)
    plt.close(fig)
    letters.warn()


def _place_names(fig, ax, names, xs, ys, fontsize=7):
    """Each of ``names`` beside its point ``(xs[i], ys[i])`` of ``ax``, where it overlaps no
    name placed before and stays inside the axes: right of the point or left of it, at the
    point's height or a few lines above or below (the nearest place free); where none is
    free, the place that overlaps the fewest names. Points are taken from the highest, then
    from the left, so a crowd is resolved the same way each time."""
    renderer = fig.canvas.get_renderer()
    frame = ax.get_window_extent(renderer)
    heights = [2]
    for step in range(1, 12):
        heights += [2 + 9 * step, 2 - 9 * step]
    places = [(dx, dy, ha) for dy in heights for dx, ha in ((3, "left"), (-3, "right"))]
    placed = []
    for i in sorted(range(len(names)), key=lambda i: (-ys[i], xs[i])):
        best = None
        for dx, dy, ha in places:
            note = ax.annotate(names[i], (xs[i], ys[i]), fontsize=fontsize, xytext=(dx, dy),
                               textcoords="offset points", ha=ha)
            box = note.get_window_extent(renderer)
            inside = (frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1)
            clashes = sum(box.overlaps(other) for other in placed) + (0 if inside else len(names) + 1)
            if best is None or clashes < best[0]:
                if best is not None:
                    best[1].remove()
                best = (clashes, note, box)
            else:
                note.remove()
            if clashes == 0:
                break
        placed.append(best[2])


#: Terms of each class :func:`plot_informative_terms` draws at most.
MAX_PLOTTED_TERMS = 50
#: Classes :func:`plot_informative_terms` draws at most (a panel each), the first ones.
MAX_PLOTTED_CLASSES = 12


@picture
def plot_informative_terms(terms, path, *, title=None):
    """Write the most informative terms of each class as a PNG: one panel per class, a
    horizontal bar per term, its length the term's log-odds against the other classes.

    ``terms`` maps each class to ``[(term, log_odds), ...]`` (best first), as
    :func:`textnb.evaluation.explain.informative_terms` returns them. At most
    :data:`MAX_PLOTTED_CLASSES` classes are drawn (the first ones: the title says so, and a
    :class:`~textnb.core.errors.DataWarning`; they were left out without a word), and at most
    :data:`MAX_PLOTTED_TERMS` terms of each (its best), so the picture stays readable (found
    by a user trial: ``inspect --top 100000 --plot`` drew 244,084 pixels high, 94 s and 1.5 GB,
    a picture no viewer opens).
    """
    plt = pyplot()
    classes = list(terms)[:MAX_PLOTTED_CLASSES]
    cut = f"the first {len(classes)} of {len(terms)} classes" if len(terms) > len(classes) else None
    terms = {c: list(terms[c])[:MAX_PLOTTED_TERMS] for c in classes}
    if not classes or not any(terms[c] for c in classes):
        raise TextnbError(f"{path}: no informative terms to draw")
    if cut:
        title = f"{title}; {cut}" if title else cut
        warnings.warn(f"{path}: draws the informative terms of {cut}, as a picture holds at most "
                      f"{MAX_PLOTTED_CLASSES}", DataWarning, stacklevel=3)
    letters = Lettering(path)
    titles = dict(zip(classes, letters.names(classes, "class name", "a class by its place in inspect's list (from 0)")))
    ticks = {c: letters.names([t for t, _ in terms[c]], "term", "a term by its place in its class's list (from 1)",
                              first=1, listed=False) for c in classes}
    rows = max(len(terms[c]) for c in classes)
    cols = min(3, len(classes))
    lines = (len(classes) + cols - 1) // cols
    fig, axes = plt.subplots(lines, cols, figsize=(4.2 * cols, 0.28 * rows * lines + 1.2 * lines), squeeze=False)
    for ax in axes.ravel()[len(classes):]:
        ax.axis("off")
    for ax, c in zip(axes.ravel(), classes):
        pairs = terms[c][::-1]  # best at the top
        ax.barh(range(len(pairs)), [float(v) for _, v in pairs], color="tab:blue")
        ax.set_yticks(range(len(pairs)), labels=[_short(t) for t in ticks[c][::-1]], fontsize=7)
        ax.set_title(_short(titles[c], 40), fontsize=9)
        ax.set_xlabel("log-odds", fontsize=8)
    if title:
        fig.suptitle(title, fontsize=10)
    _tight_layout(fig)
    _save(fig, path, dpi=100)
    plt.close(fig)
    letters.warn()
