"""What every picture (``--plot``) is drawn with: matplotlib, an optional extra (``pip
install 'textnb[plot]'``), imported here and nowhere else, so that its absence is one line
saying how to install it, told before a command's work (:func:`plot_target`), whichever
picture is asked for (a TAN tree, an evaluation, informative terms).
"""

from textnb.core.errors import TextnbError
from textnb.core.model_io import picture_target

__all__ = ["plot_target", "plotting_library"]

#: what a picture needs when matplotlib cannot be imported
MISSING = "matplotlib is needed to draw a picture (--plot); pip install 'textnb[plot]'"


def plotting_library():
    """matplotlib, with what every picture is drawn with (its figures and its file-only
    renderer, Agg) imported, or a :class:`~textnb.core.errors.TextnbError` saying how to
    install it (a picture drawn without it was an internal error, ``No module named
    'matplotlib'``: found by a hunt, session 49)."""
    try:
        import matplotlib
        import matplotlib.backends.backend_agg  # noqa: F401 (the renderer of every picture)
        import matplotlib.figure  # noqa: F401
    except ImportError:
        raise TextnbError(MISSING) from None
    return matplotlib


def plot_target(path, inputs=()):
    """What a command checks of its ``--plot`` ``path`` before its work: the target
    (:func:`textnb.core.model_io.picture_target`, ``inputs`` the command's) and that
    matplotlib can draw it (:func:`plotting_library`), so that an evaluation of minutes is
    not run for a picture that cannot be drawn."""
    target = picture_target(path, inputs=inputs)
    plotting_library()
    return target
