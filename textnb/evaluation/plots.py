"""PNG pictures of results (optional: needs matplotlib, ``pip install textnb[plot]``)."""

import numpy as np

from textnb.core.errors import TextnbError

__all__ = ["plot_confusion_matrix", "pyplot"]


def pyplot():
    """matplotlib.pyplot with a file-only backend, or a clear error when missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise TextnbError("matplotlib is needed for --plot; pip install 'textnb[plot]'") from None
    return plt


def plot_confusion_matrix(matrix, classes, path):
    """Write the confusion matrix (rows true, columns predicted) as a PNG."""
    plt = pyplot()
    m = np.asarray(matrix)
    size = max(4.0, 0.45 * len(classes) + 2)
    fig, ax = plt.subplots(figsize=(size + 1, size))
    im = ax.imshow(m, cmap="Blues")
    ax.set_xticks(range(len(classes)), labels=classes, rotation=90, fontsize=8)
    ax.set_yticks(range(len(classes)), labels=classes, fontsize=8)
    ax.set_xlabel("predicted")
    ax.set_ylabel("true")
    if len(classes) <= 25:
        for i in range(m.shape[0]):
            for j in range(m.shape[1]):
                ax.text(j, i, str(m[i, j]), ha="center", va="center", fontsize=7,
                        color="white" if m[i, j] > m.max() / 2 else "black")
    fig.colorbar(im, ax=ax)
    fig.tight_layout()
    from textnb.core.model_io import atomic_write

    atomic_write(path, lambda f: fig.savefig(f, format="png", dpi=110))
    plt.close(fig)
