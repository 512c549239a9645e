"""DiscriminativeNB: naive Bayes whose sums are learned discriminatively (Su et al. 2008).

The model is a naive Bayes linear score over term counts, like
:class:`~textnb.naive_bayes.complement.ComplementNB` or :class:`~textnb.BernoulliNB`,
but its per-class sums are *frequency estimates* (Su, Zhang, Ling & Matwin 2008): after
the ordinary sums, a few passes add every training document to its class again,
weighted by ``step * (1 - P(class | document))`` under the model of the previous pass
(:mod:`textnb.core.dfe`). It is the default model of :class:`~textnb.TextClassifier`
and ``textnb train``; ``docs/text_accuracy.md`` measures it on eight corpora.
"""

import warnings
from numbers import Integral

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from textnb.core import dfe
from textnb.core.dfe import canonical as _canonical
from textnb.core.model_io import register
from textnb.core.model_schema import check_params
from textnb.core.errors import DataWarning, ParameterError
from textnb.core.wrapping import checked_merge
from textnb.naive_bayes.base import check_sample_weight, given_splits
from textnb.naive_bayes.discrete import _BaseCountNB
from textnb.naive_bayes.kernels import (DISCRIMINATIVE, RESIDUAL_FIELDS, all_or_nothing, residual_state, takes_defaults,
                                        takes_ratios)

__all__ = ["DiscriminativeNB", "UNCALIBRATED_BATCH"]

#: What ``partial_fit`` warns (a :class:`~textnb.core.errors.DataWarning`), once for a model,
#: when its batch is too small to fit the calibration scale on and the model has none yet.
UNCALIBRATED_BATCH = (f"DiscriminativeNB: a partial_fit batch of fewer than {dfe.MIN_CALIBRATION_DOCUMENTS} documents "
                      "is too small to fit the calibration scale on, and the model has no scale yet, so its "
                      "probabilities are the raw, uncalibrated scores; give partial_fit batches of "
                      f"{dfe.MIN_CALIBRATION_DOCUMENTS} documents or more")


def _folds_number(cv):
    """Whether ``cv`` is a number of folds (an int, or None for the default)."""
    return cv is None or (isinstance(cv, Integral) and not isinstance(cv, (bool, np.bool_)))


@register
class DiscriminativeNB(_BaseCountNB):
    """Naive Bayes with discriminative frequency estimates, over term counts.

    ``fit`` sums each class's document features, then makes ``passes`` passes over the
    training documents, each adding every document to its class once more with weight
    ``step * (1 - P(class | document))`` under the current model: the frequency
    estimate of Su et al. (2008). Prediction is one linear score per class, as for
    the naive Bayes models it starts from.

    Two event models (``event_model``):

    * ``"complement"`` -- Rennie et al. (2003)'s transformed complement NB: a document
      counts as ``log(1 + tf)`` normalised to unit L2 length; a class is scored by the
      negated log of its smoothed complement frequencies; no class prior. A document
      with no known term (no evidence) gets the prior of the documents learned
      (``class_documents_``): ``predict_proba`` = their class frequencies (whatever
      ``scale_``), ``predict`` = the most frequent class. A class without documents
      (declared by ``partial_fit``'s ``classes``) scores ``-inf``: probability 0, as
      with the bernoulli family's prior and scikit-learn's MultinomialNB.
    * ``"bernoulli"`` -- term presence and absence with the class prior (McCallum &
      Nigam 1998).
    * ``"auto"`` (default) -- the one of the two with more correct predictions in a
      ``cv``-fold cross-validation on (a seeded sample of at most ``select_nnz`` stored
      cells of) the training documents; chosen on the first ``fit`` / ``partial_fit``
      batch and kept (``event_model_``).

    Parameters
    ----------
    event_model : {"auto", "complement", "bernoulli"}, default="auto"
    alpha : float or None, default=None
        Additive smoothing; None means 1.0 for complement and 0.1 for Bernoulli.
    passes : int, default=2
        Frequency-estimate passes (0: the plain naive Bayes of the event model).
    step : float or "auto", default="auto"
        Weight of a misclassified document in a pass (``η`` above). ``"auto"``: 6.75 for
        the Bernoulli event model when the median document the passes run over has at
        least 50 distinct terms (long texts: mail, news, abstracts), else 4.5 (short texts,
        and the complement model); the event-model race trains each model with its own;
        decided on the first ``fit`` / ``partial_fit`` batch and kept (``step_``;
        :func:`textnb.core.dfe.pass_step`, measured in ``docs/text_accuracy.md``,
        "Session 34").
    cv : int, cross-validation splitter, iterable of (train, test) or None, default=5
        Folds of the ``"auto"`` choice and of the calibration: what scikit-learn's
        ``check_cv`` accepts. An int (2 to 100; None means 5): the documents are dealt
        into that many folds by a hash of their content (copies share a fold). A
        splitter (``cv.split(X, y)``, e.g. ``StratifiedKFold``) or a list of ``(train,
        test)`` index arrays names rows of the ``X`` given to ``fit`` (or to each
        ``partial_fit``: a splitter splits each batch, a list must fit every batch):
        the choice trains each split's models on its training rows and counts the
        correct predictions on its test rows, weighed by ``sample_weight``; the
        calibration scores each split's test rows with the contribution of the rows
        outside its training part taken out (:func:`textnb.core.dfe.leave_out_scale`).
        For splits whose test parts do not partition the rows (``ShuffleSplit``,
        ``LeaveOneGroupOut`` over some rows), a row in no test part is never held out
        (it still trains), a row in several is held out once per split. When the passes
        run on a sample (``max_nnz``), the splits are restricted to it. A splitter that
        needs ``groups`` (``GroupKFold``) splits ``cv.split(X, y, groups)`` with the
        ``groups`` given to ``fit``. Training from a stream
        (:class:`~textnb.TextClassifier`, ``textnb train``) takes an int only, and a
        model file stores an int or a list of splits, never a splitter
        (:meth:`save` refuses it in one line).
    select_nnz : int, default=200000
        Stored cells (document-term pairs) the ``"auto"`` choice looks at, at most
        (about 1,300 20 Newsgroups posts): it costs a few passes over that sample.
    max_nnz : int, default=3000000
        The passes run over every training document when the batch has at most this
        many stored cells (20 Newsgroups has 1.8 million), else over a seeded random
        sample of that size whose documents stand for the whole batch: training from a
        stream (:class:`~textnb.TextClassifier`, ``textnb train``) keeps at most 1.5
        times that many cells of rows (8 bytes each), so its memory does not grow with
        the corpus (``docs/bench_scale.md``). With
        very many classes the sample is smaller still: at most ``4e8 / n_classes``
        cells, so a pass stays about a second of work
        (:data:`textnb.core.dfe.PASS_WORK`).
    random_state : int, default=0
        Seed of the samples.
    n_jobs : int, default=None
        Threads for the passes and the choice: 2 runs the halves of each pass in two
        threads; None (or negative) and 1 run them in one, which was as fast on the
        corpora measured and cost less CPU time (:func:`textnb.core.dfe.n_threads`).
        The work is cut in fixed halves, so the model is the same for every value.
    calibration : {"temperature", None}, default="temperature"
        ``"temperature"``: the scores are multiplied by one scalar (``scale_``), fitted
        after the passes so that ``predict_proba`` minimises the log-loss of held-out
        documents (temperature scaling, Guo et al. 2017): the training documents
        (those the passes ran over) are dealt into ``cv`` folds, and each fold is scored
        by the model with that fold's own contribution to the sums taken out
        (:func:`textnb.core.dfe.leave_out_scale`). The decisions are unchanged; the
        probabilities mean what they say (a document given 0.8 is right about 8 times
        in 10). None: the raw scores, whose probabilities are far too flat on short
        documents with many classes and far too sharp on long ones.
    ratios : bool or "auto", default="auto"
        Whether the complement model's weights take NBSVM's log-count ratios (Wang &
        Manning 2012) of its own sums: each term's sums and features are multiplied by the
        largest over the classes of ``|log θ_cw − log θ̃_cw|`` (its smoothed class against
        its smoothed complement frequency), scaled to mean 1
        (:func:`textnb.core.dfe.log_count_ratios`), so the terms that tell the classes
        apart count more. ``"auto"``: for the complement model when the median document
        the passes run over has at least 50 distinct terms (long texts), as the pass
        weight decides; the event-model race trains the complement model with them there.
        On shorter texts, with ``event_model="auto"``, the race has a third runner, the
        complement model with them, and they are taken when it wins (TREC QC's questions;
        not rt-polarity's sentences: ``docs/text_accuracy.md``, "Session 40").
        The Bernoulli model never takes them. Decided on the first ``fit`` /
        ``partial_fit`` batch and kept (``ratios_``; :func:`textnb.core.dfe.uses_ratios`,
        measured in ``docs/text_accuracy.md``, "Session 35"). Computed from the sums, so
        ``partial_fit`` and :meth:`merge` keep a model a function of its sums.
    residual : bool or "auto", default="auto"
        A residual logistic layer over the calibrated scores (needs ``calibration``): weights
        ``V`` of the terms' presence and a bias ``c`` added to the model's score
        (``(d != 0) @ V.T + c``, NBSVM's binarised features; for the Bernoulli event model,
        whose features are presence, folded into ``coef_``), fitted
        on the calibration's held-out scores of the training documents by L2-penalised
        multinomial logistic regression whose prior mean is the naive Bayes model
        (:func:`textnb.core.dfe.fit_residual`): the discriminative fit moves the naive Bayes
        weights only as far as documents the model did not learn ask. Its strength is chosen
        by cross-validation on those held-out scores, and there is none when no strength
        beats the calibrated model alone or fewer than 1,000 documents were held out.
        ``"auto"``: only where a pass over the held-out documents is at most
        :data:`textnb.core.dfe.RESIDUAL_WORK` (stored cells times classes: 20 Newsgroups
        and OHSUMED-23 are over it); True lifts that bound. Refitted on each ``partial_fit``
        batch with its scale; :meth:`merge` averages the two layers, weighted by documents.
        Measured in ``docs/text_accuracy.md``, "Session 38" (and "Session 40": over presence).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    event_model_ : str
        ``"complement"`` or ``"bernoulli"``.
    alpha_ : float
        The smoothing used.
    step_ : float
        The pass weight used (``step``, or what ``"auto"`` gave).
    ratios_ : bool
        Whether the weights take the log-count ratios (``ratios``, or what ``"auto"`` gave).
    scale_ : float
        The calibration scale, fitted on a ``fit`` or ``partial_fit`` batch of 50 documents
        or more (:data:`textnb.core.dfe.MIN_CALIBRATION_DOCUMENTS`). Absent with
        ``calibration=None``, and when no batch held that many: ``fit`` on fewer documents,
        or ``partial_fit`` only in batches of fewer, however many documents they add up
        to (the probabilities are then the raw scores'; ``partial_fit`` warns).
        ``partial_fit`` refits it on each batch of 50 documents or more together with
        the scale fitted before, weighed by ``scale_weight_`` (a smaller batch keeps the
        scale before); :meth:`merge` averages the two models' scales, weighted by their
        documents.
    scale_weight_ : float
        The evidence ``scale_`` was fitted on: the curvature of its held-out log-loss in
        ``log scale`` (:class:`textnb.core.dfe.Scale`), which a later ``partial_fit`` batch's
        fit weighs the scale by (absent with ``scale_``, and in files written before
        2026-12-07, whose next batch fits its scale alone).
    scale_merged_ : bool
        True when ``scale_`` is the average :meth:`merge` made (absent when it was fitted).
    residual_ : ndarray of shape (n_classes, n_features)
        The residual layer's weights where they are over the model's own document features
        (the Bernoulli event model, whose features are the terms' presence), folded into
        ``coef_`` (absent when none was fitted: ``residual``).
    residual_presence_ : ndarray of shape (n_classes, n_features)
        The residual layer's weights over the terms' presence (the complement event model,
        :func:`textnb.core.dfe.layer_features`): the joint log-likelihood adds
        ``(X != 0) @ residual_presence_.T`` (absent when none was fitted).
    residual_intercept_ : ndarray of shape (n_classes,)
    residual_strength_ : float
        The L2 strength the residual's cross-validation chose (absent after :meth:`merge`).
    class_documents_ : ndarray of shape (n_classes,)
        Documents learned per class (summed sample weights).
    class_count_ : ndarray of shape (n_classes,)
        Weighted documents per class, frequency-estimate weights included.
    feature_count_ : ndarray of shape (n_classes, n_features)
        Per-class sums of the document features, frequency-estimate weights included.
    coef_ : ndarray of shape (n_classes, n_features)
        Class weights of a document feature (``f(d) @ coef_.T + intercept_``, plus
        ``residual_presence_``'s term when there is one), times ``scale_``, plus ``residual_``.
    intercept_ : ndarray of shape (n_classes,)
    n_features_in_ : int

    Notes
    -----
    ``partial_fit`` adds a batch and makes the passes over that batch, so a model
    grown batch by batch differs from one ``fit`` on all the documents (it equals
    ``fit`` when there is one batch); :meth:`merge` adds the sums of two models, which
    is not the model trained on both (each side's passes saw only its own
    documents). Both stay naive Bayes models of the same kind.

    References
    ----------
    J. Su, H. Zhang, C. X. Ling, S. Matwin (2008). Discriminative parameter learning
    for Bayesian networks. ICML, 1016-1023.
    J. D. M. Rennie, L. Shih, J. Teevan, D. R. Karger (2003). Tackling the poor
    assumptions of naive Bayes text classifiers. ICML, 616-623.
    S. Wang, C. D. Manning (2012). Baselines and bigrams: simple, good sentiment and
    topic classification. ACL, 90-94.
    C. Guo, G. Pleiss, Y. Sun, K. Q. Weinberger (2017). On calibration of modern
    neural networks. ICML, 1321-1330.
    D. C. Liu, J. Nocedal (1989). On the limited memory BFGS method for large scale
    optimization. Mathematical Programming 45, 503-528.

    Examples
    --------
    >>> from textnb.naive_bayes.discriminative import DiscriminativeNB
    >>> X = [[3, 0, 1], [2, 0, 0], [0, 4, 1], [0, 3, 0]]
    >>> DiscriminativeNB().fit(X, ["ham", "ham", "spam", "spam"]).predict([[1, 0, 0], [0, 1, 1]])
    array(['ham', 'spam'], dtype='<U4')
    """

    _kernel = DISCRIMINATIVE
    _param_schema = _kernel.param_schema
    _execution_params = _kernel.execution_params
    _state_schema = _kernel.state_schema

    @takes_defaults(DISCRIMINATIVE)
    def __init__(self, *, event_model, alpha, passes, step, cv, select_nnz, max_nnz, random_state, n_jobs,
                 calibration, ratios, residual):
        self.event_model = event_model
        self.alpha = alpha
        self.passes = passes
        self.step = step
        self.cv = cv
        self.select_nnz = select_nnz
        self.max_nnz = max_nnz
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.calibration = calibration
        self.ratios = ratios
        self.residual = residual

    # -- fitting ----------------------------------------------------------------
    @all_or_nothing
    def fit(self, X, y, sample_weight=None, groups=None):
        """Fit from a (sparse) count matrix X and labels y; returns self.

        ``groups`` (optional, one value per row; :func:`textnb.core.wrapping.takes_groups`):
        the rows of a group, e.g. the copies of one document under each of its labels
        that :class:`~textnb.meta.multilabel.MultiLabelNB`'s copy model is fitted on, are
        kept in one fold of the ``"auto"`` choice and of the calibration, so that no
        held-out row is scored by a model that learned the same text under another label
        (without them the folds are dealt by each row's text *and* class, which deal a
        document's copies apart). A splitter ``cv`` gets them (``cv.split(X, y, groups)``).
        With every group of one row, the model is the one fitted without them."""
        return self._fit(X, y, sample_weight, groups=groups)

    def _reset(self):
        for name in ("event_model_", "alpha_", "step_", "ratios_", "class_documents_", "scale_", "scale_merged_",
                     "scale_weight_", "_warned_uncalibrated", *RESIDUAL_FIELDS):
            self.__dict__.pop(name, None)

    def _learn(self, X, y_index, sample_weight, groups=None):
        """The batch's sums, then the passes over it (``fit`` and ``partial_fit``; ``groups``:
        ``fit``'s)."""
        weights = check_sample_weight(sample_weight, X.shape[0])
        if groups is not None:
            groups = np.asarray(groups).reshape(-1)
            if groups.size != X.shape[0]:
                raise ValueError(f"groups has {groups.size} values for {X.shape[0]} rows")
        splits = None if _folds_number(self.cv) else given_splits(self.cv, X, y_index, groups)
        X = _canonical(X)
        self.fit_rows(X, y_index, np.ones(X.shape[0]) if weights is None else weights, splits=splits, groups=groups)

    def fit_rows(self, X, y_index, weights, dropped=None, splits=None, contribution=None, calibrate=True,
                 groups=None):
        """Learn the CSR counts ``X`` (canonical: sorted indices, no duplicates) of
        documents with class indices ``y_index`` into ``classes_`` and ``weights``: what
        ``fit`` / ``partial_fit`` do after checking their input (and what
        :class:`~textnb.TextClassifier` calls with the rows it streamed; ``dropped``: the
        sums of the documents a bounded stream did not keep, :func:`textnb.core.dfe.fit_rows`).
        ``splits``: the ``(train, test)`` index arrays into the rows of ``X`` that ``fit``
        made of a ``cv`` that is not a number of folds; without them ``cv`` must be an
        int (or None), as for the rows of a stream, which are not the documents given.
        ``contribution``: an array that receives each document's weight in the sums;
        ``calibrate=False``: no scale fitted here, the caller fits it, as
        :meth:`fit_out_of_fold` does. ``groups``: as ``fit`` takes them (one per row of ``X``)."""
        check_params(self)
        if splits is None:
            self._check_stream_cv()
        params = self.get_params()
        if not calibrate:
            params["calibration"] = None
        first = not hasattr(self, "event_model_")  # (later batches keep the first one's choices)
        # a later batch's scale is fitted with the one before, weighed by its evidence, discounted
        # by the share of the documents the batch adds (the model it was fitted for changes so)
        prior = None
        if not first and getattr(self, "scale_weight_", None) is not None:
            before = float(np.sum(self.class_documents_))
            added = float(np.sum(weights)) + (0.0 if dropped is None else float(np.sum(next(iter(dropped.values()))[1])))
            prior = (self.scale_, self.scale_weight_ * before / (before + added) if before + added > 0 else 0.0)
        (self.event_model_, self.alpha_, self.step_, self.ratios_, self.feature_count_, self.class_count_, documents,
         scale, residual) = dfe.fit_rows(self.feature_count_, self.class_count_, X, y_index, weights, params=params,
                               family=getattr(self, "event_model_", None), alpha=getattr(self, "alpha_", None),
                               step=getattr(self, "step_", None), ratios=None if first else takes_ratios(vars(self)),
                               dropped=dropped, splits=splits, contribution=contribution, groups=groups,
                               scale_prior=prior)
        self.class_documents_ = getattr(self, "class_documents_", 0.0) + documents
        if self.calibration is None:
            for name in ("scale_", "scale_merged_", "scale_weight_", *RESIDUAL_FIELDS):
                self.__dict__.pop(name, None)
        elif scale is not None:  # else (a batch too small to calibrate on) any earlier scale stays
            for name in ("scale_merged_", "scale_weight_"):  # (fitted here, not a merge's average)
                self.__dict__.pop(name, None)
            self.__dict__.update(dfe.scale_state(scale))
            # the residual is fitted on the batch's calibrated held-out scores: it goes with its scale
            for name in RESIDUAL_FIELDS:
                self.__dict__.pop(name, None)
            self.__dict__.update(residual_state(residual, self.event_model_))
        self._update()
        return self

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add a batch (``classes`` is required on the first call) and make the passes over
        it (see Notes). The calibration scale (``scale_``) is refitted on a batch of 50
        documents or more, with the scale before; a smaller batch keeps the scale before,
        so a model learned only in batches of fewer than 50 documents has no scale (its
        probabilities are the raw scores'; :data:`UNCALIBRATED_BATCH` warns so, once): give
        ``partial_fit`` batches of 50 documents or more."""
        super().partial_fit(X, y, classes=classes, sample_weight=sample_weight)
        self._warn_uncalibrated(X.shape[0] if hasattr(X, "shape") else len(X), stacklevel=2)
        return self

    def _warn_uncalibrated(self, n_rows, stacklevel):
        """Warn :data:`UNCALIBRATED_BATCH` when a ``partial_fit`` batch of ``n_rows`` documents
        (what :meth:`fit_rows` learned) was too small to fit the calibration scale on and the
        model has none yet, once for the model (``stacklevel``: the caller's, which the
        warning names). Kept apart from Python's own "once per line" registry, which the
        input checks' warning filters reset on every call."""
        if (self.calibration is not None and n_rows < dfe.MIN_CALIBRATION_DOCUMENTS
                and getattr(self, "scale_", None) is None and not vars(self).get("_warned_uncalibrated")):
            self._warned_uncalibrated = True
            warnings.warn(UNCALIBRATED_BATCH, DataWarning, stacklevel=stacklevel + 1)

    def _check_stream_cv(self):
        if not _folds_number(self.cv):
            raise ParameterError(f"cv must be an int (or None) when {type(self).__name__} learns the rows a stream "
                                 f"kept (TextClassifier, textnb train), which are not the documents given; got "
                                 f"{type(self.cv).__name__}")

    def fit_out_of_fold(self, X, y, fold, document=None):
        """Fit on every row, as ``fit``, and return the out-of-fold ``predict_log_proba`` of
        each document: under the model with its ``fold``'s rows taken out of the sums
        (:func:`textnb.core.dfe.leave_out_scores`), on the terms of the other folds; a class
        that only the fold has gets ``-inf``. The estimator's adapter over
        :func:`textnb.core.dfe.fit_out_of_fold`, which does the work.

        One training and a scoring pass instead of a training per fold: the fold's model
        keeps the choices (event model, smoothing) and the frequency-estimate weights of
        the other rows that the model of every row has. With ``calibration="temperature"``
        the scale is fitted on these out-of-fold scores of the rows (not on ``cv`` folds of
        its own), so ``scale_`` and the returned scores agree.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_rows, n_features)
        y : array-like of shape (n_rows,)
        fold : array-like of int of shape (n_rows,)
            Each row's fold (>= 0; two folds at least).
        document : array-like of int of shape (n_rows,), default=None
            The document each row is a copy of (``0 .. n_documents - 1``; the copies of a
            document share its fold and are scored once, e.g. a document copied once per
            label); None: every row is a document.

        Returns
        -------
        ndarray of shape (n_documents, n_classes)
        """
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, reset=True)
        check_classification_targets(y)
        self._check_values(X)
        self.classes_, y_index = np.unique(y, return_inverse=True)
        self._begin(self.classes_, X.shape[1])
        self._check_stream_cv()
        check_params(self)
        (self.event_model_, self.alpha_, self.step_, self.ratios_, self.feature_count_, self.class_count_,
         self.class_documents_, scale, log_proba) = dfe.fit_out_of_fold(_canonical(X), y_index, len(self.classes_), fold, document,
                                          params=self.get_params())
        self.__dict__.pop("scale_weight_", None)
        self.__dict__.update(dfe.scale_state(scale))
        self._update()
        return log_proba

    def _begin(self, classes, n_features):
        """An empty model of ``classes`` over ``n_features`` terms, for :meth:`fit_rows`
        (what :class:`~textnb.TextClassifier` starts from before streaming rows)."""
        self._reset()
        self.classes_, self.n_features_in_ = np.asarray(classes), n_features
        self._init_counts(n_features)
        return self

    def fit_counts(self, classes, class_count, feature_count):
        raise TypeError("DiscriminativeNB learns from the documents themselves (its passes re-score them); "
                        "fit it on a count matrix")

    def _features(self, X):
        return dfe.features(self.event_model_, _canonical(X))

    def _joint_log_likelihood(self, X):
        return self._kernel.joint_log_likelihood(None, vars(self), vars(self), X)

    merges_exactly, inexact_merge = DISCRIMINATIVE.merges_exactly, DISCRIMINATIVE.inexact_merge  # (textnb.core.wrapping)

    def probabilities_calibrated(self):
        """Whether a temperature (``scale_``) was fitted (:mod:`textnb.core.wrapping`)."""
        return getattr(self, "scale_", None) is not None

    @checked_merge
    def merge(self, other):
        """Add the sums of ``other`` (same kind, event model and smoothing chosen, and features;
        another event model or smoothing is :class:`~textnb.core.errors.SettingsDiffer` naming it,
        with what to do).

        The result is a model of the same kind, but not the one trained on both
        document sets (see Notes of the class)."""
        check_is_fitted(self)
        check_is_fitted(other)
        if type(other) is not type(self):
            raise ValueError(f"cannot merge a {type(other).__name__} into a {type(self).__name__}")
        self._check_same_settings(other)  # (the parameters say how the choices below are made: none compared)
        self._kernel.check_same_choices(vars(self), vars(other))
        if other.feature_count_.shape[1] != self.feature_count_.shape[1]:
            raise ValueError(f"cannot merge models with {other.feature_count_.shape[1]} and "
                             f"{self.feature_count_.shape[1]} features")
        merged = self._kernel.merge_states(self._get_state(), other._get_state())
        for name in RESIDUAL_FIELDS:  # (what the merge has none of)
            if name not in merged:
                self.__dict__.pop(name, None)
        return self._set_merged(merged)
