"""What every picture (``--plot``) is drawn with: matplotlib, an optional extra (``pip
install 'textnb[plot]'``), imported here and nowhere else, so that its absence is one line
saying how to install it, told before a command's work (:func:`plot_target`), whichever
picture is asked for (a TAN tree, an evaluation, informative terms); and the fonts that draw
a picture's names (:class:`Lettering`).
"""

import functools
import re
import warnings

from textnb.core.errors import DataWarning, TextnbError, counted
from textnb.core.model_io import picture_target

__all__ = ["Lettering", "picture", "plot_target", "plotting_library"]

#: what a picture needs when matplotlib cannot be imported
MISSING = "matplotlib is needed to draw a picture (--plot); pip install 'textnb[plot]'"

#: fonts never taken to draw a name: matplotlib's Last Resort font (a box for every
#: character) and its fonts for mathematics, whose characters are not the ones their code
#: points name (cmsy10 draws a script letter for ``A``)
_NOT_FOR_NAMES = re.compile(r"Last Resort.*|STIXNonUnicode.*|STIXSize.*|cm[a-z]+\d+")

#: the names of a list :meth:`Lettering.warning` writes, the others counted
_LISTED = 6


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


def picture(draw):
    """``draw`` (a function drawing a picture) run with what every picture is drawn with:
    matplotlib (:func:`plotting_library`), its settings changed for that call only:
    mathtext off (``text.parse_math``: a class name or a term holding ``$`` is drawn as
    written; it was read as math, a label drawn wrong, or an internal error for
    ``$\\nosuch$``), and the fonts :class:`Lettering` adds; matplotlib's warning of each
    character no font has is left out (:meth:`Lettering.warning` says it in one line: they
    were a line each, 6 to 19 for three Chinese class names)."""

    @functools.wraps(draw)
    def drawn(*args, **kwargs):
        matplotlib = plotting_library()
        # (an SVG's element ids from a fixed salt, not a random one: the same picture is the same bytes)
        with matplotlib.rc_context({"text.parse_math": False, "svg.hashsalt": "textnb"}), warnings.catch_warnings():
            warnings.filterwarnings("ignore", r"Glyph \d+ .*missing from", UserWarning)
            return draw(*args, **kwargs)

    return drawn


class Lettering:
    """The names a picture draws (classes, labels, terms, attributes), as the fonts at hand
    can draw them.

    A name holding a character that matplotlib's fonts (``font.family``) lack is drawn with
    an installed font that has it, added after them (matplotlib draws each character with
    the first font that has it); when no installed font has it, the name is drawn as its
    number (``#2``), and :meth:`warning` says which names are and how they are numbered, in
    one line (they were boxes, and a warning line for each character). Used inside
    :func:`picture`, before the figure is made: the fonts are matplotlib's settings when a
    figure is made, and :func:`picture` restores them.

    Parameters
    ----------
    path : path
        The picture (the warning names it).
    """

    def __init__(self, path):
        self.path = path
        self._drawn = None  # the characters the fonts draw (read at the first name)
        self._lacking = set()  # characters no installed font draws
        self._numbered = {}  # (what, how they are numbered, listed) -> [(number, name), ...]

    def names(self, names, what, numbers, first=0, listed=True):
        """``names`` as the picture writes them: each as it is, or ``#N`` (N its number, from
        ``first``) when no installed font draws it; ``what`` (``"class name"``) and
        ``numbers`` (how the reader finds a number's name: ``"a class by its row in the
        report's confusion matrix"``) for :meth:`warning`, which lists such names when
        ``listed`` (else counts them, those of every call with the same ``what``)."""
        names = [str(n) for n in names]
        undrawn = [i for i, name in enumerate(names) if not self._draws(name)]
        if not undrawn:
            return names
        self._numbered.setdefault((what, numbers, listed), []).extend((first + i, names[i]) for i in undrawn)
        undrawn = set(undrawn)
        return [f"#{first + i}" if i in undrawn else name for i, name in enumerate(names)]

    def warning(self):
        """One line saying which names no installed font draws and how they are numbered, or
        None."""
        if not self._numbered:
            return None
        parts, keys = [], []
        for (what, numbers, listed), pairs in self._numbered.items():
            if listed:
                shown = ", ".join(f"{name!r} (#{n})" for n, name in pairs[:_LISTED])
                more = f" and {len(pairs) - _LISTED} more" if len(pairs) > _LISTED else ""
                parts.append(f"the {what if len(pairs) == 1 else what + 's'} {shown}{more}")
            else:
                parts.append(counted(len(pairs), what))
            keys.append(numbers)
        return (f"{self.path}: no installed font draws {' and '.join(parts)}; each is drawn as #N, "
                f"{'; '.join(keys)}")

    def warn(self):
        """:meth:`warning` as a :class:`~textnb.core.errors.DataWarning`, if any."""
        line = self.warning()
        if line is not None:
            warnings.warn(line, DataWarning, stacklevel=2)

    def _draws(self, name):
        """Whether the fonts draw every visible character of ``name``, after adding an
        installed font for those they lack, when one has them."""
        wanted = {ord(ch) for ch in name if ch.isprintable() and not ch.isspace()}
        if self._drawn is None:
            self._drawn = self._characters(self._families())
        missing = wanted - self._drawn
        if missing - self._lacking:
            self._add_fonts(missing - self._lacking)
            missing = wanted - self._drawn
        return not missing

    @staticmethod
    def _families():
        import matplotlib

        return list(matplotlib.rcParams["font.family"])

    @staticmethod
    def _characters(families):
        """The code points the fonts of ``families`` draw (each family as matplotlib finds it)."""
        from matplotlib import font_manager

        paths = []
        for family in families:
            try:
                paths.append(font_manager.findfont(font_manager.FontProperties(family=[family]),
                                                   fallback_to_default=False))
            except ValueError:  # (a family not installed: matplotlib passes over it too)
                continue
        if not paths:
            paths.append(font_manager.findfont(font_manager.FontProperties()))
        drawn = set()
        for path in paths:
            drawn.update(font_manager.get_font(path).get_charmap())
        return drawn

    def _add_fonts(self, missing):
        """Add to ``font.family`` the installed fonts that draw the most of ``missing``, one
        after the other while one draws some left; those left are :attr:`_lacking`.
        (matplotlib draws a character from the next font of the list from 3.6 on; before,
        none is added.)"""
        import matplotlib
        from matplotlib import font_manager

        if getattr(matplotlib, "__version_info__", (0,)) < (3, 6):
            self._lacking |= missing
            return
        families = self._families()
        regular = {}  # a family's regular face (else its first)
        for entry in font_manager.fontManager.ttflist:
            if entry.name in families or _NOT_FOR_NAMES.fullmatch(entry.name):
                continue
            plain = entry.style == "normal" and entry.weight in (400, "normal", "regular")
            if entry.name not in regular or plain:
                regular[entry.name] = entry
        charmaps = {}
        while missing:
            best, covered = None, set()
            for name, entry in sorted(regular.items()):
                if name not in charmaps:
                    try:
                        charmaps[name] = set(font_manager.get_font(entry.fname).get_charmap())
                    except (OSError, RuntimeError):  # (a font file that cannot be read)
                        charmaps[name] = set()
                if len(missing & charmaps[name]) > len(covered):
                    best, covered = name, missing & charmaps[name]
            if best is None:
                break
            families.append(best)
            del regular[best]
            self._drawn |= charmaps[best]
            missing -= covered
        matplotlib.rcParams["font.family"] = families
        self._lacking |= missing
