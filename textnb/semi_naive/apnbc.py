"""Adjusted probability naive Bayes (APNBC): one learned weight per class.

Webb & Pazzani, "Adjusted Probability Naive Bayesian Induction" (AI'98;
``../shared/papers/000_9364d3ac28b31830.txt``, restated in
``../shared/design/algorithms.md`` §2) multiply the naive Bayes probability of each class
``i`` by a weight ``A_i`` and predict ``argmax_i A_i P(o, i)``. The weights are found by a
hill-climbing search over *critical values* that maximises resubstitution accuracy, each
step guarded by a binomial test. In log space the weight is one more additive term:
``argmax_i log A_i + log P(o, i)``.

The paper's search re-scores every training object for every candidate (``O(C·N²)`` per
step). :func:`_search_weights_fast` makes the same choices in ``O(C·N log N)`` per step:
with every weight but ``A_c`` fixed, the number of errors as a function of ``log A_c`` is a
step function whose steps are the objects' critical values, so sorting them once per class
and per step answers each candidate's error count by binary search.

:class:`APNBC` is the scikit-learn adapter of :class:`~textnb.semi_naive.apnbc_kernel.APNBCKernel`,
which holds the model (the search, its binomial test, the out-of-fold scores, the scoring and
the model file) and imports neither scikit-learn nor scipy; the adapter wraps estimators
(cloned with scikit-learn's ``clone``) and adds scikit-learn's input validation, tags and
``get_params``. Both write the same model file.
"""

import scipy.sparse as sp
from sklearn.base import clone
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import column_or_1d, validate_data

from textnb.core.model_io import register
from textnb.io.frames import is_frame
from textnb.naive_bayes.base import BaseNB, with_choices, wrapped_documents
from textnb.naive_bayes.kernels import takes_defaults
from textnb.semi_naive.apnbc_kernel import APNBCKernel, _search_weights_fast  # noqa: F401 (the search's home)

__all__ = ["APNBC"]


@register
class APNBC(APNBCKernel, BaseNB):
    """Adjusted probability naive Bayes (Webb & Pazzani 1998) around any textnb model.

    Wraps a model that gives joint log probabilities (``predict_joint_log_proba``:
    :class:`~textnb.MultinomialNB`, :class:`~textnb.BernoulliNB`, the tabular model) and
    learns one weight ``A_c`` per class so that ``argmax_c log A_c + log P(x, c)`` makes as
    few errors as possible on the training data, accepting a weight change only when a
    binomial test says the reduction in errors is unlikely to be chance.

    Parameters
    ----------
    estimator : estimator, default=None
        The naive Bayes model to adjust (cloned by ``fit``); ``None`` means
        ``MultinomialNB()``.
    significance : float in (0, 1], default=0.05
        The paper's critical value α of the binomial test: a weight change that brings the
        training errors from ``e`` to ``b`` is accepted when
        ``binom.cdf(b, n, e / n) < significance``. ``1`` disables the test (every change
        that removes at least one error is accepted); the paper runs 0.05, 0.1 and 1.
    fit_on : {"resubstitution", "cv"}, default="resubstitution"
        Where the joint log probabilities the weights are learned from come from.
        ``"resubstitution"`` (the paper): the base model fitted on all the data, scored on
        the same data. ``"cv"``: out-of-fold scores from ``cv`` stratified folds (shuffled
        with ``random_state``), useful when the base model fits its training data
        almost perfectly, as a multinomial model of long documents does. Either way the
        base model kept for prediction is fitted on all the data; the folds' models keep
        the choices it made there (a :class:`~textnb.meta.smoothing.SmoothingCV`'s
        smoothing, DiscriminativeNB's event model:
        :func:`textnb.naive_bayes.base.with_choices`), so their scores are on its scale. In a
        :class:`~textnb.text.classifier.TextClassifier` (``textnb train --adjust --adjust-on
        cv``) each fold's model is what a TextClassifier fitted on the fold's training
        documents would hold: it is fitted on the fold's own vocabulary, pruned by the
        vectorizer's ``min_df`` / ``max_df`` / ``max_features`` counted on those documents,
        so a term of held-out documents only is unknown to it (``fit``'s ``fold_counts``,
        :meth:`~textnb.semi_naive.apnbc_kernel.APNBCKernel.fold_input`); on a matrix
        (a table, counts vectorised beforehand) it is fitted on the columns of ``X``.
    cv : int, cross-validation splitter or iterable of (train, test) index arrays, default=10
        The folds of ``fit_on="cv"``: a number of stratified folds (lowered to the number
        of objects of the largest class if larger; every class of one object is a
        :class:`~textnb.core.errors.TooFewObjects`, as a calibration's), or what scikit-learn's ``check_cv``
        accepts. With given splits, each row's score is from the last split that holds it
        out, and a row no split holds out is scored by the model fitted on all the data. A
        splitter object cannot be saved in a model file (a list of splits can).
    epsilon : float, default=1e-5
        The paper's ε: a candidate weight is a critical value moved by ε so that the tied
        object falls on the intended side. Here the step is taken on the log scale
        (``log A ± ε``, i.e. a relative step ``A·e^{±ε}`` on the probability scale), so it
        means the same for weights of any size and never makes a weight negative.
    random_state : int, RandomState instance or None, default=None
        Seeds the fold assignment of ``fit_on="cv"``; the search itself is deterministic.

    Attributes
    ----------
    estimator_ : estimator
        The fitted base model (on all the training data).
    classes_ : ndarray of shape (n_classes,)
    class_log_weight_ : ndarray of shape (n_classes,)
        ``log A_c``, added to the base model's joint log likelihood.
    adjustments_ : ndarray of shape (n_classes,)
        ``A_c = exp(class_log_weight_)``, the weights on the probability scale as the
        paper reports them (may overflow to ``inf`` for extreme weights; the log weights
        are what prediction uses). With two classes one class keeps ``A = 1`` and the
        class that sorts last carries the single weight, whatever their order in ``classes_``.
    search_history_ : list of dict
        The accepted steps in order: ``class`` (label as str), ``class_index``,
        ``direction`` (``"+"`` raised, ``"-"`` lowered), ``errors_before``,
        ``errors_after`` (training errors, or out-of-fold errors with ``fit_on="cv"``),
        ``p_value`` (the binomial test) and ``log_weight`` (the new ``log A_c``).
    n_features_in_ : int

    Notes
    -----
    How this implementation reads the parts of the paper's Appendix A that are open to
    interpretation:

    * *Candidates.* For every misclassified object ``o`` (true class ``t``, predicted
      ``e``): raise ``A_t`` to the value that ties ``t`` with ``e``, plus ε ("up"), and
      lower ``A_e`` to the value that ties ``e`` with ``t``, minus ε ("down"). Candidates
      with an infinite critical value (a class with probability 0) are skipped.
    * *Choice.* The candidate with the fewest training errors wins; among equal error
      counts the one whose weight moves least *on the probability scale*
      (``|adj − A_old|``, as the appendix writes it) wins; remaining ties go to the
      earlier object, an "up" move before a "down" move of the same object (the
      appendix's loop order with its strict ``<``).
    * *Improvement.* Only a candidate with strictly fewer errors than the current weights
      is ever chosen (the appendix leaves ``bestd`` uninitialised; a move that gains
      nothing would be rejected by the test for any α < 0.5, and with α = 1 it would
      never stop).
    * *Binomial test.* ``binomial(best, n, error()/n)`` is read as the probability of
      ``best`` or fewer errors in ``n`` trials when the error rate is the current one,
      ``binomial_cdf(best, n, current / n)`` (:func:`textnb.semi_naive.apnbc_kernel.binomial_cdf`,
      the correctly rounded sum); a step is accepted when it is ``< significance``. (The paper also calls it a "sign test"; the appendix's formula
      is what is implemented.)
    * *Plateau midpoint.* An accepted weight is not left at ``adj ± ε``: it moves to the
      midpoint, on the probability scale (``(adj + b) / 2``), of ``adj`` and the nearest
      critical value ``b`` beyond ``adj ± ε`` at which the error count rises above the
      accepted count (``adjustup`` / ``adjustdown``). Error counts are taken on the open
      intervals between critical values. If the error never rises in that direction, or
      the midpoint would not lie beyond ``adj ± ε``, the weight stays at ``adj ± ε``.
    * *Two classes.* One weight, on the class that sorts last (the second of the sorted
      labels, whatever order ``classes_`` has: an ARFF header's declared order and a CSV's
      sorted one learn the same model; the other class keeps ``A = 1``); its candidates are
      "up" from misclassified objects of that class and "down" from misclassified objects
      of the other, and the main loop runs once.
      For the paper's at-least-2-of-6 example this puts the weight on the positive class,
      in the paper's interval (0.106, 0.758).
    * *Scale.* Everything is computed on the log scale (log weights, log critical
      values, move sizes as ``log(e^a − e^b)``), so nothing underflows on long documents.

    ``predict_proba`` renormalises the *adjusted* scores, ``A_c P(x, c) / Σ_k A_k P(x, k)``.
    The weights are tuned for choosing a class, not for calibration: the paper warns
    against reading these as probability estimates.

    References
    ----------
    G. I. Webb and M. J. Pazzani, "Adjusted probability naive Bayesian induction",
    Proc. 11th Australian Joint Conference on Artificial Intelligence (AI'98), 1998.

    Examples
    --------
    >>> import numpy as np
    >>> from textnb.semi_naive.apnbc import APNBC
    >>> from textnb.naive_bayes.discrete import BernoulliNB
    >>> X = np.array([[int(b) for b in f"{i:06b}"] for i in range(64)])
    >>> y = (X.sum(axis=1) >= 2).astype(int)          # the at-least-2-of-6 concept
    >>> model = APNBC(BernoulliNB(alpha=1e-10)).fit(X, y)
    >>> bool((model.predict(X) == y).all())
    True
    >>> bool(0.106 < model.adjustments_[1] < 0.758)
    True
    """

    @takes_defaults({name: value for name, value in APNBCKernel.defaults.items() if name != "estimator"})
    def __init__(self, estimator=None, *, significance, fit_on, cv, epsilon, random_state):
        # the kernel's __init__ stores them (scikit-learn's rule: nothing else)
        super().__init__(estimator, significance=significance, fit_on=fit_on, cv=cv, epsilon=epsilon,
                         random_state=random_state)

    _wrapped_input_tags = ("sparse", "positive_only", "allow_nan", "string", "two_d_array")

    # -- the estimator's side, where the kernel has its own ---------------------------------
    @staticmethod
    def _clone(model):
        return clone(model)

    #: the folds of ``fit_on="cv"`` fit the base model with the choices it made kept
    _with_choices = staticmethod(with_choices)

    def _validate_X(self, X, reset):
        # shape, feature count and names here; the base model checks the values (and
        # encodes a DataFrame itself, textnb.io.frames: it is handed on as it is)
        docs = wrapped_documents(self, self._base(), X, pipelines=False)
        if docs is not None:  # raw documents, for a model of documents (a TextClassifier)
            if reset:
                for name in ("n_features_in_", "feature_names_in_"):  # (of an earlier fit on a matrix)
                    self.__dict__.pop(name, None)
            return docs
        if is_frame(X):  # its names and width only: converting a frame of category columns fails
            validate_data(self, X, reset=reset, skip_check_array=True)
            return X
        checked = validate_data(self, X, reset=reset, accept_sparse=True, dtype=None,
                                ensure_all_finite=False)
        return checked.tocsr() if sp.issparse(checked) else checked

    def _labels(self, y):
        y = column_or_1d(y, warn=True)
        check_classification_targets(y)
        return y

    _check_fitted, save = BaseNB._check_fitted, BaseNB.save
