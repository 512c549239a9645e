"""Bayesian network classifiers over nominal attributes: the estimators.

:class:`BayesNetClassifier` (a given structure) and :class:`TAN` (Friedman, Geiger &
Goldszmidt 1997) are the scikit-learn adapters of
:class:`~textnb.semi_naive.bayesnet_kernel.BayesNetKernel` and
:class:`~textnb.semi_naive.bayesnet_kernel.TANKernel`, which hold the models (described in
:mod:`textnb.semi_naive.bayesnet_kernel`) and import no scikit-learn; the adapters add
scikit-learn's input validation, tags and ``get_params``. Both write the same model file.
"""

from textnb.core.model_io import register
from textnb.naive_bayes.base import BaseNB, NominalCodesMixin
from textnb.naive_bayes.kernels import takes_defaults
from textnb.semi_naive.bayesnet_kernel import (MAX_CPT_CELLS, BayesNetKernel, TANKernel, conditional_mutual_information,
                                               read_structure)

__all__ = ["BayesNetClassifier", "MAX_CPT_CELLS", "TAN", "read_structure", "conditional_mutual_information"]


@register
class BayesNetClassifier(BayesNetKernel, NominalCodesMixin, BaseNB):
    """Bayesian network classifier with a user-given structure (a DAG).

    Parameters
    ----------
    parents : dict or None, default=None
        ``{node: [parent, ...]}`` over attribute names and ``class_name``. An
        attribute listed here has *exactly* the listed parents (write the class
        name among them to keep the class -> attribute arc); an attribute not listed
        has the class as its only parent; the class node has the parents listed
        under ``class_name`` (none if absent). So ``None`` is naive Bayes, and
        ``{"x1": ["class", "x0"]}`` augments it with one arc. Checked at ``fit``:
        known names, no self-loops or duplicates, acyclic (:class:`InputError`,
        one line).
    alpha : float, default=1.0
        Additive smoothing of every CPT (1 = Laplace; 0.5 = Weka's SimpleEstimator
        default). Must be > 0.
    m : float or None, default=None
        When set, a node with attribute parents gets the m-estimate
        ``(N(v, u) + m p_v) / (N(u) + m)`` with ``p_v`` the node's
        ``alpha``-smoothed distribution given the class alone (from
        ``marginal_counts_``): the parameter smoothing of Friedman et al. (1997),
        who use ``m = 5``. Nodes without attribute parents keep additive smoothing.
    missing : {"ignore", "mode"}, default="ignore"
        How missing values are treated; see the module docstring.
    attributes : sequence of textnb.io.tables.Attribute or str, default=None
        Names (and, for ``Attribute``, the kind and number of values) of the columns.
        When None, names come from a DataFrame's columns or are ``x0, x1, ...``, and
        the number of values of each attribute is the largest index seen plus one.
    numeric : {"error", "mdl"}, default="error"
        What to do with a column ``attributes`` declares numeric: raise, or
        discretise it inside ``fit`` with Fayyad & Irani's MDL method (Weka's
        default; cut points in ``cut_points_``, applied again at prediction).
    class_name : str, default=None
        The class node's name in ``parents`` and in the output; ``"class"`` when None.
    class_values : sequence of str, default=None
        The classes, in their order (``table.classes``: an ARFF header's
        declaration, as Weka keeps them). A declared class that no training row has stays
        a class, with the smoothed estimates of zero counts (as Weka's BayesNet); a label
        of ``y`` not declared is a ValueError. None: the sorted labels of ``y``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        ``class_values``, or the sorted labels of the training data.
    structure_ : dict
        ``{node name: tuple of parent names}``, attributes in column order, then the
        class node.
    attributes_ : list of Attribute
        The column types used: those ``attributes`` (or a DataFrame) declared, the others
        nominal of their value indices (``x0: 0, 1, ...``); what
        ``textnb.encode_like(rows, model.attributes_)`` re-codes raw rows with.
    attribute_names_ : ndarray of str of shape (n_features,)
    n_values_ : ndarray of int of shape (n_features,)
    counts_ : list of ndarray
        Per attribute, weighted counts of shape ``(n_classes, k_parent..., k_node)``
        (attribute parents in ``structure_`` order; the class axis is kept even when
        the class is not a parent); last, the class node's counts
        ``(n_classes, k_parent...)``.
    marginal_counts_ : list of ndarray
        Per attribute, counts ``(n_classes, k_node)`` over every object where the
        attribute is known; last, the class counts ``(n_classes,)``.
    modes_ : ndarray of shape (n_features,)
        Training modes (only with ``missing="mode"``); a column with no known training
        value gets its first value, as Weka's ``ReplaceMissingValues``.
    cut_points_ : list or None
        Per column, the MDL cut points of a numeric column (None for nominal ones);
        None when no column was discretised.
    n_features_in_ : int

    Examples
    --------
    >>> from textnb import BayesNetClassifier
    >>> X = [[0, 0], [0, 1], [1, 1], [1, 1]]
    >>> bn = BayesNetClassifier(parents={"x1": ["class", "x0"]}).fit(X, ["a", "a", "b", "b"])
    >>> bn.structure_
    {'x0': ('class',), 'x1': ('class', 'x0'), 'class': ()}
    >>> bn.predict([[1, 1]])
    array(['b'], dtype='<U1')
    """

    @takes_defaults(BayesNetKernel)
    def __init__(self, *, parents, alpha, m, missing, attributes, numeric, class_name, class_values):
        # the kernel's __init__ stores them (scikit-learn's rule: nothing else)
        super().__init__(parents=parents, alpha=alpha, m=m, missing=missing, attributes=attributes, numeric=numeric,
                         class_name=class_name, class_values=class_values)

    # the estimator's side, where the kernel has its own
    _validate_x, _validate_xy, save = BaseNB._validate_x, BaseNB._validate_xy, BaseNB.save


@register
class TAN(TANKernel, NominalCodesMixin, BaseNB):
    """Tree-augmented naive Bayes (Friedman, Geiger & Goldszmidt 1997).

    Every attribute has the class and at most one other attribute as parents; the
    attribute arcs form the maximum spanning tree of the complete graph weighted by
    the conditional mutual information ``I(A_i; A_j | C)``
    (:func:`conditional_mutual_information`; Kruskal's algorithm on negated weights, ties
    in row-major order: the tree of ``scipy.sparse.csgraph.minimum_spanning_tree``), directed
    away from ``root``. The CPTs are those of :class:`BayesNetClassifier` with that
    structure.

    Parameters
    ----------
    alpha : float, default=1.0
        Additive smoothing of every CPT (1 = Laplace). ``alpha=0.5, missing="mode"``
        is Weka 3.6's ``BayesNet -Q ...search.local.TAN -E "SimpleEstimator -A 0.5"``
        up to the structure score (Weka's default score is BAYES; ``-S ENTROPY`` is
        the mutual-information tree used here) and the root: Weka grows the tree from
        its strongest arc and directs each arc as it adds it, so another attribute may
        be left without a parent; ``root=`` that attribute gives Weka's network and its
        predictions (docs/weka_parity.md).
    m : float or None, default=None
        The m-estimate of the nodes with attribute parents (Friedman et al. 1997), as
        in :class:`BayesNetClassifier`.
    root : int, str or None, default=None
        The attribute (index or name) the tree is directed from; the first attribute
        when None. It changes the CPTs' smoothing, not the tree.
    missing : {"ignore", "mode"}, default="ignore"
        See the module docstring. With "ignore", each pair's mutual information is
        estimated on the objects where both values are known.
    attributes : sequence of textnb.io.tables.Attribute or str, default=None
        As in :class:`BayesNetClassifier`.
    numeric : {"error", "mdl"}, default="error"
        What to do with a column ``attributes`` declares numeric: raise, or
        discretise it inside ``fit`` with Fayyad & Irani's MDL method (Weka's
        default; cut points in ``cut_points_``, applied again at prediction).
    class_name : str, default=None
        The class node's name in the output; ``"class"`` when None.
    class_values : sequence of str, default=None
        As in :class:`BayesNetClassifier`.

    Attributes
    ----------
    classes_, structure_, attributes_, attribute_names_, n_values_, counts_, marginal_counts_
        As in :class:`BayesNetClassifier`.
    modes_, cut_points_, n_features_in_
        As in :class:`BayesNetClassifier`.
    cmi_ : ndarray of shape (n_features, n_features)
        ``I(A_i; A_j | C)`` in nats (the edge weights).
    root_ : int
        Index of the root attribute.

    Examples
    --------
    >>> from textnb import TAN
    >>> X = [[0, 0, 1], [0, 0, 0], [1, 1, 1], [1, 1, 0]]
    >>> tan = TAN().fit(X, ["a", "a", "b", "b"])
    >>> tan.structure_["x1"]
    ('class', 'x0')
    """

    @takes_defaults(TANKernel)
    def __init__(self, *, alpha, m, root, missing, attributes, numeric, class_name, class_values):
        # the kernel's __init__ stores them (scikit-learn's rule: nothing else)
        super().__init__(alpha=alpha, m=m, root=root, missing=missing, attributes=attributes, numeric=numeric,
                         class_name=class_name, class_values=class_values)

    _validate_x, _validate_xy, save = BaseNB._validate_x, BaseNB._validate_xy, BaseNB.save
