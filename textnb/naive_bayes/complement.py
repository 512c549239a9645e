"""Complement naive Bayes (Rennie, Shih, Teevan & Karger 2003).

Multinomial naive Bayes estimates a class's word distribution from that class's
documents alone, so a class with few documents gets noisy parameters and the
classifier is skewed towards classes with more data. The *complement* estimate uses
the documents of every other class instead,

    θ̃_cw = (Σ_{c' ≠ c} N_c'w + α) / (Σ_{c' ≠ c} N_c' + α V),

and a document is assigned to the class whose complement fits it *worst*:
``argmin_c Σ_w x_w log θ̃_cw`` (Rennie et al. 2003, "Tackling the poor assumptions of
naive Bayes text classifiers", ICML, §3.1 eq. 6). With weight normalisation (§3.2) each
class's log weights are divided by their summed magnitude, so classes whose weights
are larger in magnitude (more dependent words) do not dominate.

The fitted state is the same :class:`~textnb.core.stats.CountTable` as :class:`MultinomialNB`
(``class_count_``, ``feature_count_``), so ``fit``, chunked ``partial_fit``, ``merge``,
``fit_counts`` (streaming training in :class:`~textnb.TextClassifier`) and model files
all work unchanged; only the derived weights differ.
"""


from textnb.core.model_io import register
from textnb.naive_bayes.discrete import _BaseCountNB
from textnb.naive_bayes.kernels import COMPLEMENT, takes_defaults

__all__ = ["ComplementNB"]


@register
class ComplementNB(_BaseCountNB):
    """Complement naive Bayes for (weighted) term counts.

    Equivalent to scikit-learn's ``ComplementNB`` with the same settings (same
    ``feature_log_prob_``, predictions and probabilities): ``feature_log_prob_`` holds
    the weights ``w_cw = −log θ̃_cw`` (``norm=False``) or
    ``log θ̃_cw / Σ_k log θ̃_ck`` (``norm=True``), and the joint log likelihood is
    ``X @ feature_log_prob_.T``. As in the paper the class prior is left out (it is
    dominated by the document term); it is only added when there is a single class.
    The "probabilities" are the softmax of that score: monotone in it, but not
    calibrated (see :class:`textnb.meta.calibration.CalibratedNB`).

    A document with no known term (an all-zero row) has no evidence either way: it gets
    the class prior, ``class_log_prior_`` (``predict_proba`` = the training class
    frequencies, ``predict`` = the most frequent class), where scikit-learn gives equal
    scores and so the first class. Every other row gets scikit-learn's numbers, except
    for a class of prior 0 (one ``partial_fit``'s ``classes`` declares but no document
    has): it scores ``-inf`` (probability 0, never predicted), as MultinomialNB's prior
    gives it (scikit-learn's ComplementNB gives it a share of the probability).

    Works best on weighted counts (:class:`textnb.text.weighting.TermWeighting`: log tf,
    idf and length normalisation, Rennie et al. §4).

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Additive smoothing of the complement counts (one value, or one per feature).
    force_alpha : bool, default=True
        As :class:`~textnb.MultinomialNB` (False: values below 1e-10 are raised to
        1e-10 with a warning).
    m : float or None, default=None
        Use the m-estimate ``θ̃_cw = (N_¬c,w + m p_w) / (N_¬c + m)`` instead of
        ``alpha``, with ``p_w`` the term's Laplace-smoothed frequency in the whole
        training set (as :class:`~textnb.MultinomialNB`'s ``m``): rare terms get
        little smoothing mass, so the amount of smoothing does not grow with the
        vocabulary.
    norm : bool, default=False
        Normalise each class's weights by their summed magnitude (Rennie et al.
        §3.2, "WCNB").
    fit_prior : bool, default=True
        Only used when there is a single class in the training data.
    class_prior : array-like of shape (n_classes,), default=None
        Only used when there is a single class in the training data.

    Attributes
    ----------
    classes_, class_count_, feature_count_, class_log_prior_, n_features_in_
        As in :class:`~textnb.MultinomialNB`.
    feature_all_ : ndarray of shape (n_features,)
        Summed counts of each feature over all classes.
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        The class weights (see above); larger means "more typical of the class".

    References
    ----------
    J. D. M. Rennie, L. Shih, J. Teevan, D. R. Karger (2003). Tackling the poor
    assumptions of naive Bayes text classifiers. ICML, 616-623.

    Examples
    --------
    >>> from textnb.naive_bayes.complement import ComplementNB
    >>> X = [[3, 0, 1], [2, 0, 0], [0, 4, 1], [0, 3, 0]]
    >>> ComplementNB().fit(X, ["ham", "ham", "spam", "spam"]).predict([[1, 0, 0], [0, 1, 1]])
    array(['ham', 'spam'], dtype='<U4')
    """

    _kernel = COMPLEMENT
    _param_schema = _kernel.param_schema

    @takes_defaults(COMPLEMENT)
    def __init__(self, *, alpha, force_alpha, m, norm, fit_prior, class_prior):
        super().__init__(alpha=alpha, force_alpha=force_alpha, m=m, fit_prior=fit_prior, class_prior=class_prior)
        self.norm = norm
