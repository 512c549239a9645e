"""Naive Bayes for tabular data (nominal, numeric, missing and uncertain attributes): the estimator.

:class:`TabularNB` is the scikit-learn adapter of
:class:`~textnb.naive_bayes.tabular_kernel.TabularKernel`, which holds the model -- its
parameters and defaults, statistics, scoring and model-file state -- and imports no
scikit-learn (``textnb train`` and ``textnb predict`` on tables use it directly). The
adapter adds scikit-learn's input validation (``validate_data``, classification
targets, ``NotFittedError``), tags, ``get_params`` / ``set_params`` and ``save`` of a
scikit-learn estimator; the model and the file it writes are the kernel's. The model is
described in :mod:`textnb.naive_bayes.tabular_kernel` and below.
"""

from textnb.core.model_io import register
from textnb.naive_bayes.base import BaseNB
from textnb.naive_bayes.kernels import takes_defaults
from textnb.naive_bayes.tabular_kernel import (EM_MAX_ITER, EM_TOL, TabularKernel, censored_gaussian_em,
                                               truncated_normal_moments)

__all__ = ["EM_MAX_ITER", "EM_TOL", "TabularNB", "censored_gaussian_em", "truncated_normal_moments"]


@register
class TabularNB(TabularKernel, BaseNB):
    """Naive Bayes with per-attribute types: nominal, numeric, missing values, weights.

    How the model learns each column's type: the ``attributes`` parameter, a
    sequence of :class:`textnb.io.tables.Attribute` (``tuple(table.attributes)`` of a
    table from :func:`textnb.io.tables.read_table`), one per column of ``X``. A nominal
    column's cells are value indices ``0 .. k-1`` into ``Attribute.values``; a numeric
    column's cells are numbers; NaN is missing. With ``attributes=None`` every column
    is numeric (plain 2-D arrays, as scikit-learn passes them).

    Uncertain attributes (NBU, Qin, Xia & Li; :mod:`textnb.io.uncertain`) span several
    columns: ``"uncertain-numeric"`` two (``L``, ``R``), ``"uncertain-nominal"`` one
    per value (the probabilities). Training uses Theorem 1 (or, with
    ``interval_fit="censored"``, the interval-censored maximum-likelihood Gaussian) and
    probabilistic cardinalities (see the module docstring). Prediction with an
    uncertain cell:

    * a probability vector ``p`` contributes the expected likelihood
      ``log Σ_v p(v) P(v | c)`` (log-sum-exp);
    * an interval with ``L < R`` contributes the class-conditional Gaussian
      probability mass ``log(Φ((R − μ_c)/σ_c) − Φ((L − μ_c)/σ_c))``
      (:func:`textnb.io.uncertain.log_interval_mass`); a point ``L = R`` the density, as a
      certain numeric value. A mass and a density are different units, but within one
      row and attribute every class gets the same kind of term for the same interval,
      so the comparison between classes (all that ``predict`` and the posterior use) is
      consistent; only joint log likelihoods of different rows are not comparable.

    Uncertain numeric attributes need ``numeric="gaussian"``.

    Parameters
    ----------
    attributes : sequence of Attribute, default=None
        Column types and nominal value lists; None: all columns numeric.
    nominal : {"additive", "laplace", "m-estimate", "eq4"}, default="additive"
        Estimator of ``P(v | c)`` for nominal (and discretised) attributes, with
        ``n_cv`` the weighted count of value v in class c and ``n_c`` that of class c
        among objects where the attribute is known:

        * ``"additive"``: ``(n_cv + α) / (n_c + V α)``; class prior
          ``(n_c + α) / (n + C α)``. ``alpha=1`` is Laplace (Weka's NaiveBayes);
          ``alpha=0`` gives the textbook's plain relative frequencies (a class whose
          ``n_c`` is 0 gets the uniform ``1 / V``);
        * ``"laplace"``: ``"additive"`` with ``α = 1`` whatever ``alpha`` says;
        * ``"m-estimate"``: ``(n_cv + m p_v) / (n_c + m)``, ``p_v`` the value's
          frequency among all known values of the attribute; prior
          ``(n_c + 1) / (n + C)``;
        * ``"eq4"``: Webb & Pazzani's APNBC eq. 4, the m-estimate with ``m = 2`` and
          prior ``(n_i + 1) / (n + C)`` (algorithms.md §1).

    alpha : float, default=1.0
        Additive smoothing for ``nominal="additive"``.
    m : float, default=2.0
        Equivalent sample size for ``nominal="m-estimate"``.
    numeric : {"gaussian", "kde", "mdl", "equal-frequency", "equal-width"}, default="gaussian"
        Model of numeric attributes:

        * ``"gaussian"``: ``N(x; μ_c, σ_c)`` with the sample (n−1) variance plus
          ``var_smoothing`` times the largest overall variance of the numeric columns
          (as scikit-learn's GaussianNB); sample weights are frequency weights, and a
          class whose weights sum to less than 2 (normalised weights, as AdaBoost's)
          gets GaussianNB's weighted population variance instead (no ``W − 1``
          collapse). A class with no known value of the attribute uses the mean and
          variance of all classes pooled, one with all its values equal (a single
          value included) the pooled variance (Weka likewise falls back to a default
          when the deviation is 0). The log density is not floored: a value far from
          every class mean still favours the nearest one, as in GaussianNB. This is
          not Weka 3.6's ``NaiveBayes``, which rounds the values to a precision taken
          from the training data (the mean gap between a column's distinct values),
          uses the population (n) deviation and scores the probability mass of a
          precision-wide interval: a few rows get another class
          (docs/weka_parity.md); ``"mdl"`` is Weka's ``NaiveBayes -D`` exactly;
        * ``"kde"``: John & Langley's flexible Bayes: the mean of Gaussian kernels, one
          per training value of the class, with bandwidth ``σ_c = range_c / sqrt(n_c)``
          (the class's value range over the square root of its weight, as Weka's
          ``NaiveBayes -K``), floored at a sixth of the attribute's mean gap between
          distinct values; a class with no known value of the attribute uses the
          kernels of all classes pooled (as ``"gaussian"`` their mean and variance);
        * ``"mdl"``, ``"equal-frequency"``, ``"equal-width"``: discretised in ``fit``
          (Fayyad & Irani MDL as Weka's supervised Discretize; ``bins`` bins as Weka's
          unsupervised Discretize with / without ``-F``), then treated as nominal.
          ``"mdl"`` with the default Laplace estimator is Weka's ``NaiveBayes -D``.
    bins : int, default=10
        Number of bins of the unsupervised discretisers.
    var_smoothing : float, default=1e-9
        Relative variance floor of ``"gaussian"``.
    class_prior : array-like of shape (n_classes,) or "uniform", default=None
        Fixed class priors (in the order of ``classes_``) instead of learned ones, or
        ``"uniform"``: an equal share for every class with training rows, none for a
        declared class (``class_values``) no row has, so it is never predicted
        (scikit-learn's ``fit_prior=False`` shares over every class of ``classes_``).
    interval_fit : {"theorem1", "censored"}, default="censored"
        Estimator of an uncertain numeric attribute's class-conditional Gaussian
        (certain numeric attributes are not affected):

        * ``"theorem1"``: Qin, Xia & Li's Theorem 1 (``../shared/papers/
          004_640e07b9e89f5fc8.txt`` §4.1; algorithms.md §4): ``μ = E[L + R] / 2``,
          ``σ² = (Var(L + R) − Var(R − L)) / 4`` (n−1 variances). It assumes left and
          right errors independent of the true value, with equal means. All its
          statistics are sums: incremental (``partial_fit``, ``merge``), as the paper
          stresses. A ``σ²`` that comes out <= 0 falls back to the pooled variance;
        * ``"censored"``: the maximum-likelihood Gaussian for interval-censored data:
          the true value lies somewhere in ``[L, R]`` (``L = R``: an exact
          observation), and ``(μ_c, σ_c)`` maximise
          ``Σ_i w_i log(Φ((R_i − μ_c)/σ_c) − Φ((L_i − μ_c)/σ_c))`` (a point contributes
          its log density). This is the estimator that matches the prediction rule
          (the class-conditional probability mass of the test interval), under the
          assumption that where the true value sits in its interval does not depend
          on it (non-informative censoring). Fitted per class by EM
          (:func:`censored_gaussian_em`; all classes and attributes at once): the
          E-step takes the first two moments of the current class Gaussian truncated
          to each interval (:func:`truncated_normal_moments`, stable far in the
          tails), the M-step their weighted mean and variance; SQUAREM-accelerated,
          started from the interval midpoints' mean and variance, at most
          :data:`EM_MAX_ITER` EM steps, tolerance :data:`EM_TOL`. The variance is
          then multiplied by ``W / (W − 1)``, as the n−1 variances of the other
          Gaussians (points alone give exactly the ordinary estimates), and gets the
          same ``var_smoothing`` floor. A class whose weight is 1 or less, or whose
          intervals all share a point (the likelihood then has no maximum), takes the
          variance of the censored fit of all classes pooled; a class without values
          its mean as well. Not a sum statistic: ``partial_fit`` and :meth:`merge` of
          a model with uncertain numeric attributes raise ``ValueError``; refit with
          ``fit``.
    class_values : sequence of str, default=None
        The classes, in their order (``table.classes``: an ARFF header's
        declaration, as Weka keeps them). A declared class that no training row has stays
        a class, with its smoothed prior and estimates (Weka's NaiveBayes gives it the
        same probabilities); a label of ``y`` not declared is a ValueError. None: the
        sorted distinct labels of ``y``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        ``class_values``, or the sorted labels of the training data.
    class_count_ : ndarray of shape (n_classes,)
        Summed sample weight per class.
    attributes_ : list of Attribute
        The column types used (``attributes`` or all numeric ``x0, x1, ...``).
    cut_points_ : list of ndarray or None
        Per column: the cut points of a discretised numeric column, else None.
    n_values_ : ndarray of int of shape (n_features,)
        Number of values (bins) of each counted column; 0 for Gaussian / KDE columns.
    feature_count_ : ndarray of shape (n_classes, sum(n_values_))
        Weighted value counts per class, one block per counted column.
    feature_log_prob_ : ndarray of shape (n_classes, sum(n_values_))
        ``log P(v | c)`` of every block.
    moment_count_, theta_, moment_m2_ : ndarray of shape (n_classes, n_gaussian)
        Weighted count, mean and centred second moment of the Gaussian columns (for an
        uncertain numeric attribute: of its interval midpoints ``(L + R) / 2``; the
        mean used by the model is ``censored_theta_`` with ``interval_fit="censored"``).
    halfwidth_count_, halfwidth_mean_, halfwidth_m2_ : ndarray of shape (n_classes, n_uncertain_numeric)
        The same moments of the half-widths ``(R − L) / 2`` of the uncertain numeric
        attributes (Theorem 1: ``σ² = Var(midpoint) − Var(half-width)``).
    censored_theta_, censored_var_ : ndarray of shape (n_classes + 1, n_uncertain_numeric)
        ``interval_fit="censored"``: the EM mean and variance (times ``W / (W − 1)``,
        before the floor; 0 when the fit collapsed) of each uncertain numeric attribute
        per class, the last row for all classes pooled; shape ``(n_classes + 1, 0)``
        otherwise.
    var_ : ndarray of shape (n_classes, n_gaussian)
        The variances used (floor included).
    class_log_prior_ : ndarray of shape (n_classes,)
    n_features_in_ : int

    Notes
    -----
    ``partial_fit`` with a discretising ``numeric`` fixes the cut points on the first
    call (from that batch alone); later batches are binned with them. Merged models
    must have the same cut points.

    Examples
    --------
    >>> from textnb.io.tables import Attribute
    >>> from textnb.naive_bayes.tabular import TabularNB
    >>> atts = (Attribute("outlook", "nominal", ["sunny", "rainy"]), Attribute("temp", "numeric"))
    >>> model = TabularNB(attributes=atts).fit([[0, 30.0], [1, 12.0], [0, 25.0], [1, 15.0]],
    ...                                        ["yes", "no", "yes", "no"])
    >>> model.predict([[0, float("nan")]])
    array(['yes'], dtype='<U3')
    """

    @takes_defaults(TabularKernel)
    def __init__(self, *, attributes, nominal, alpha, m, numeric, bins, var_smoothing, class_prior, interval_fit,
                 class_values):
        # the kernel's __init__ stores them (scikit-learn's rule: nothing else)
        super().__init__(attributes=attributes, nominal=nominal, alpha=alpha, m=m, numeric=numeric, bins=bins,
                         var_smoothing=var_smoothing, class_prior=class_prior, interval_fit=interval_fit,
                         class_values=class_values)

    _tags = {"input_tags.allow_nan": True}

    # the estimator's side, where the kernel has its own
    _validate_x, _validate_xy, save = BaseNB._validate_x, BaseNB._validate_xy, BaseNB.save
