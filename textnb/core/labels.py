"""How a model's classes are named in output: one rule for every layer.

A model's ``classes_`` may hold numbers, booleans or strings; every output (``textnb
predict``'s lines and ``--json``, ``textnb serve``, ``textnb test``, ``textnb inspect``'s
descriptions, the mail filters, :mod:`textnb.fasttext`) names a class by :func:`label_names`.
"""

__all__ = ["label_names"]


def label_names(model):
    """The labels of ``model``'s classes, in its column order, as every output names them: the
    ``str`` of each class (``0``, ``True`` as ``"0"``, ``"True"``). The one rule of ``textnb
    predict`` (its lines and ``--json``), ``textnb serve`` (``/classify``, ``CLASSIFY``, ``GET
    /model``), ``test``, ``inspect`` (each model's ``describe``), the mail filters and
    :mod:`textnb.fasttext`: a model's labels are the same strings in each (the daemon answered a
    model of integer classes with JSON numbers where predict printed strings). The label prefix
    of a fastText file is taken off when it is read (:func:`textnb.io.fasttext.parse_line`), and
    so is it off a TSV/CSV label column's labels (:func:`textnb.io.corpus.table_label`), so a
    class holds none. ``model`` without ``classes_`` (not fitted, or no classifier): an empty
    list."""
    return [str(c) for c in getattr(model, "classes_", ())]
