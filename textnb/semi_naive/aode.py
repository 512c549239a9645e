"""AODE: averaged one-dependence estimators (Webb, Boughton & Wang 2005), the estimator.

:class:`AODE` is the scikit-learn adapter of :class:`~textnb.semi_naive.aode_kernel.AODEKernel`,
which holds the model (described in :mod:`textnb.semi_naive.aode_kernel`) and imports no
scikit-learn; the adapter adds scikit-learn's input validation, tags and ``get_params``.
Both write the same model file.
"""

from textnb.core.model_io import register
from textnb.naive_bayes.base import BaseNB, NominalCodesMixin
from textnb.naive_bayes.kernels import takes_defaults
from textnb.semi_naive.aode_kernel import MAX_PAIR_CELLS, AODEKernel

__all__ = ["AODE", "MAX_PAIR_CELLS"]


@register
class AODE(AODEKernel, NominalCodesMixin, BaseNB):
    """Averaged one-dependence estimators (Webb, Boughton & Wang 2005).

    Parameters
    ----------
    frequency_limit : int, default=1
        An attribute value is a super-parent only when its (weighted) training
        frequency is at least this (Weka's ``-F``; the paper uses 30, Weka 3.6 and
        textnb default to 1).
    m : float or None, default=None
        None: Laplace's correction, as Weka's default. A number > 0: Weka's ``-M -W m``
        m-estimates (see the module docstring).
    attributes : sequence of textnb.io.tables.Attribute or str, default=None
        Names (and, for ``Attribute``, the kind and values) of the columns. When None,
        names come from a DataFrame's columns or are ``x0, x1, ...``, every column is
        nominal and its number of values is the largest index seen (on the first call
        to ``partial_fit``) plus one.
    numeric : {"mdl", "error"}, default="mdl"
        What to do with a column ``attributes`` declares numeric: discretise it inside
        ``fit`` with Fayyad & Irani's MDL method (on the first call to ``partial_fit``
        the cut points are fixed), or raise.
    class_values : sequence of str, default=None
        The classes, in their order (``table.classes``: an ARFF header's
        declaration, as Weka keeps them). A declared class that no training row has stays
        a class, with Laplace's (or the m-) estimates of zero counts, as Weka's AODE gives
        it; a label of ``y`` not declared is a ValueError. None: the sorted labels of ``y``.

    Attributes
    ----------
    classes_, attributes_, attribute_names_, cut_points_, n_features_in_
        As in :class:`~textnb.semi_naive.bayesnet.BayesNetClassifier`.
    class_count_ : ndarray of shape (n_classes,)
        Summed weight of the training objects of each class.
    pair_count_ : ndarray of shape (n_classes, n_slots, n_slots)
        Weighted counts of (class, slot, slot); slots: per attribute its values, then
        one for "missing" (``slot_offsets_``).
    n_values_ : ndarray of int of shape (n_features,)
        Values per attribute (without the missing slot).
    slot_offsets_ : ndarray of int of shape (n_features + 1,)
        First slot of each attribute; the last entry is ``n_slots``.

    Examples
    --------
    >>> from textnb import AODE
    >>> X = [[0, 0], [0, 1], [1, 1], [1, 1]]
    >>> aode = AODE().fit(X, ["a", "a", "b", "b"])
    >>> aode.predict([[1, 1]])
    array(['b'], dtype='<U1')
    """

    @takes_defaults(AODEKernel)
    def __init__(self, *, frequency_limit, m, attributes, numeric, class_values):
        # the kernel's __init__ stores them (scikit-learn's rule: nothing else)
        super().__init__(frequency_limit=frequency_limit, m=m, attributes=attributes, numeric=numeric,
                         class_values=class_values)

    # the estimator's side, where the kernel has its own
    _validate_x, _validate_xy, save = BaseNB._validate_x, BaseNB._validate_xy, BaseNB.save
