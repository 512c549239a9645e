"""Standard streams that never fail on a character their encoding lacks, the one
escaping of a tab-separated output field (:func:`cell`) and of a message line
(:func:`one_line`).

Its own module, importing only the standard-library-only mail client (where
:func:`tolerant` is defined: the ``spamfilter --socket`` client runs without this
package), because ``spamfilter --batch`` imports it before anything else and must start
in milliseconds (docs/spam.md, "Speed"); :mod:`textnb.cli.output` re-exports both.
"""

from textnb.apps.spamclient import tolerant

__all__ = ["cell", "label_list", "one_line", "tolerant"]

#: what :func:`one_line` writes for each control character (C0, DEL, C1)
_LINE_ESCAPES = {i: f"\\x{i:02x}" for i in (*range(0x20), *range(0x7f, 0xa0))}
_LINE_ESCAPES.update({ord("\t"): "\\t", ord("\n"): "\\n", ord("\r"): "\\r"})
#: what :func:`cell` writes: those, and a backslash doubled
_CELL_ESCAPES = {**_LINE_ESCAPES, ord("\\"): "\\\\"}


def cell(text):
    """A field of tab-separated output: a backslash, TAB, newline and every other control
    character (C0, DEL, C1) escaped (``\\\\``, ``\\t``, ``\\n``, ``\\x1b``), so a file name
    or a label can never forge extra columns or lines. Other text, surrogate escapes of
    non-UTF-8 names included, is kept as it is."""
    text = str(text)
    if "\\" not in text and text.isprintable():  # no control character is printable
        return text
    return text.translate(_CELL_ESCAPES)


def one_line(text):
    """A line of a program's messages (an error or a warning on standard error, a report
    such as ``model: MultinomialNB -> PATH`` on standard output) as one line: each control
    character escaped as :func:`cell` escapes it (``\\n``, ``\\t``, ``\\x1b``), so a file
    name in it (one read from a folder, an ``-o`` argument) can never start a line of its
    own nor forge one (``x<newline>textnb: error: forged`` in a folder given to ``predict``
    printed two error lines). A backslash is kept as it is: a message's own text holds
    them (a ``--token-pattern`` as a shell takes it), where a field of tab-separated output
    is read back and doubles them (:func:`cell`). The one escaping of every line of the
    commands that names a path (:func:`textnb.cli.progress.write_line` applies it to each
    report, error and warning line); a daemon's log and protocol lines have theirs
    (:func:`textnb.apps.protocol.one_line`)."""
    text = str(text)
    if text.isprintable():  # no control character is printable
        return text
    return text.translate(_LINE_ESCAPES)


def label_list(labels):
    """Several labels in one field of tab-separated output (a multi-label prediction):
    each escaped as :func:`cell` escapes it (a backslash ``\\\\``) and a comma in it written
    ``\\,``, joined by commas; so ``x,y`` as one label (``x\\,y``) is told from the labels
    ``x`` and ``y``, and ``x\\`` before ``y`` (``x\\\\,y``) from ``x\\,y``: the field is
    read left to right, a backslash and the character after it one character (README)."""
    return ",".join(cell(label).replace(",", "\\,") for label in labels)

