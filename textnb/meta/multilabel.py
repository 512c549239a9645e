"""Multi-label text classification: naive Bayes scores and a thresholding strategy per label.

A document may carry several labels (Reuters-21578 topics: ``grain`` and ``wheat``; the
emotions of a GoEmotions comment). :class:`MultiLabelNB` turns a naive Bayes model into
a multi-label classifier in two steps:

1. **Scores per label.** ``method="copy"`` (default): one multi-class model over the
   documents copied once per label, a document with no label counted once in a reserved
   "no label" class (the *copy transformation*, Tsoumakas & Katakis 2007); a label's
   score is its log-odds under that model. ``method="ovr"``: one binary model per label
   (binary relevance); for the count models (multinomial, Bernoulli, complement) every
   label's model is built from one sparse product ``Y.T @ X`` of the training sums
   through the model's own ``fit_counts`` (the same numbers as fitting it label by label).
2. **Decisions.** The thresholding strategies of Yang (2001), every choice made on
   out-of-fold scores of the training documents (``cv`` folds): ``"scut"`` a log-odds
   threshold per label maximising its F1; ``"scutfbr"`` (default) the same with a fallback
   for rare labels: a label whose best out-of-fold F1 is below ``fbr`` gets the score of
   its top-ranked out-of-fold document as threshold (Yang's SCutFBR.1), ``fbr`` itself
   chosen for micro-F1 by cross-fitting the out-of-fold scores; ``"rcut"`` the ``k`` best
   labels of each document; ``"pcut"`` per label the top-ranked documents of a batch in
   proportion to the label's training frequency. Then a document that got fewer than
   ``min_labels`` labels (default 1: at least one label, as topic taggers do) gets its
   best-ranked ones.

``docs/multilabel.md`` measures the methods and strategies on GoEmotions and on
single-label corpora read as multi-label (label sets of one), against scikit-learn's
one-vs-rest baselines.

The estimator is a thin scikit-learn adapter over the kernel :mod:`textnb.meta.labelsets`
(thresholds, decisions, folds, measures; no scikit-learn), which the scikit-learn-free
trainer of ``textnb train`` / ``evaluate`` (:mod:`textnb.meta.multilabel_training`) runs
too. The corpora (:func:`read_multilabel_corpus`, :class:`MultiLabelCorpus`) are read by
:mod:`textnb.io.multilabel`, re-exported here.
"""

import numpy as np
import scipy.sparse as sp
from scipy.special import log_expit
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from textnb.core.labels import label_names
from textnb.naive_bayes.base import CV_SCHEMA, DeclaredTags, NestedParams, SaveMixin, given_splits, with_choices
from textnb.core.errors import InputError, ParameterError
from textnb.core.logspace import log_proba_from_jll
from textnb.core.wrapping import groups_kwargs, takes_fold_counts
from textnb.core.model_io import register
from textnb.core.model_schema import (N_FEATURES, check_param_values, SEED, TEMPLATE, Array, Bool, Choice, Classes, Float, Int,
                                      ListOf, MayBeAbsent, Model, OneOf, Optional)
from textnb.core.stats import CountTable, seen_columns
from textnb.io.multilabel import MultiLabelCorpus, read_label_file, read_multilabel_corpus
from textnb.meta.calibration import estimator_log_odds
from textnb.meta.labelsets import (MULTILABEL_DEFAULTS, SMALL, STRATEGIES, _each_row_once, _finite,
                                   break_even_point, check_rank, copies, copy_out_of_fold, copy_scores, cross_validated_report, decide, decision, document_folds, indicator, kfold,
                                   label_indicator, label_probabilities, label_support, multilabel_report, naming_the_label, precision_recall_f1,
                                   test_report)
from textnb.naive_bayes.discrete import _BaseCountNB
from textnb.naive_bayes.kernels import all_or_nothing, takes_defaults
from textnb.naive_bayes.scoring import check_sample_weight
from textnb.text.training import RowFoldCounts

__all__ = [
    "MultiLabelCorpus",
    "MultiLabelNB",
    "break_even_point",
    "cross_validate_multilabel",
    "evaluate_multilabel_split",
    "multilabel_report",
    "read_label_file",
    "read_multilabel_corpus",
]

def _collections_column(y):
    """Whether ``y`` is one column (a pandas Series, a 1-D object array) whose every entry is a
    collection of labels (list, tuple, set), as ``df["labels"].str.split(",")`` gives: read as
    the list of them, as :class:`~textnb.text.classifier.TextClassifier` reads it."""
    if isinstance(y, (list, tuple)) or sp.issparse(y) or getattr(y, "ndim", None) != 1 or len(y) == 0:
        return False
    values = y.to_numpy() if hasattr(y, "to_numpy") else y
    return (isinstance(values, np.ndarray) and values.dtype == object
            and all(isinstance(v, (list, tuple, set, frozenset)) for v in values))


def _targets(y):
    """How :class:`MultiLabelNB` reads a target ``y``: ``("matrix", Y)`` for a 0/1 indicator
    matrix (int64; an ndarray, a sparse matrix, a DataFrame, or rows of one length over one
    holding only 0 and 1 written as lists), ``("sets", list)`` for label collections (a list,
    or a pandas Series or 1-D object array of them), ``("labels", 1-D array)`` for one label
    per document (a column vector too). The one reading of ``fit`` and ``score``."""
    if y is None:
        raise ValueError("MultiLabelNB requires y to be passed, but the target y is None")
    if sp.issparse(y):
        y = y.toarray()
    if _collections_column(y):
        y = list(y)  # a pandas Series or an object array of label collections: the label sets they hold
    if isinstance(y, (list, tuple)) and y and all(isinstance(v, (list, tuple, set, frozenset)) for v in y):
        # label collections, whatever their labels' type; rows of one length (over one) holding
        # only 0 and 1 and no set are an indicator matrix written as lists
        rows = (not any(isinstance(v, (set, frozenset)) for v in y) and len({len(v) for v in y}) == 1
                and len(y[0]) > 1 and all(isinstance(x, (int, np.integer)) and x in (0, 1) for v in y for x in v))
        if not rows:
            return "sets", list(y)
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y.ravel()  # a column vector: one label per document
    if y.ndim == 2:
        if not np.isin(y, (0, 1)).all():
            raise ValueError("a 2-D Y must be a 0/1 indicator matrix")
        return "matrix", y.astype(np.int64)
    check_classification_targets(y)
    return "labels", y


def _fold_base(base, fitted):
    """The model(s) the out-of-fold models behind the thresholds fit, given the model(s)
    ``fitted`` on all the training documents (the copy model, or one per label): each with
    the choices it made kept (:func:`textnb.naive_bayes.base.with_choices`: DiscriminativeNB's
    event model and smoothing, a SmoothingCV's setting), so that the out-of-fold scores are
    on the scale of the scores the thresholds are applied to, not on that of a choice a fold
    made again. ``base`` where none made a choice; one-vs-rest, a list of one model per label
    (None for a constant label) when some did."""
    if not isinstance(fitted, list):
        chosen = None if fitted is None else with_choices(fitted)
        return base if chosen is None else chosen
    chosen = [None if model is None else with_choices(model) for model in fitted]
    if all(model is None for model in chosen):
        return base
    return [base if model is None else model for model in chosen]


def _sums_fit(base):
    """Whether ``base`` is a count model whose fit is its sums (``fit_counts`` gives the
    same model): the one-vs-rest models are then built from one product ``Y.T @ X``."""
    return (isinstance(base, _BaseCountNB) and type(base).fit_counts is _BaseCountNB.fit_counts
            and type(base)._learn is _BaseCountNB._learn)


# -- the classifier --------------------------------------------------------------------------
@register
class MultiLabelNB(DeclaredTags, SaveMixin, NestedParams, ClassifierMixin, BaseEstimator):
    """Multi-label naive Bayes: a score per label and a thresholding strategy (Yang 2001).

    ``fit(X, Y)`` with ``Y`` a 0/1 indicator matrix (n_documents, n_labels) or a list of
    label collections (``[("grain", "wheat"), ("earn",), ()]``). ``predict`` returns the
    indicator matrix of the labels each document gets. A 1-D ``y`` (one label per
    document) is treated as multi-class: ``predict`` then returns the label with the
    largest log-odds.

    Parameters
    ----------
    estimator : classifier, default=None
        The naive Bayes model behind the scores (a textnb model over term counts; it is
        cloned); the default text model
        :class:`~textnb.naive_bayes.discriminative.DiscriminativeNB` ``()`` when None.
    method : {"copy", "ovr"}, default="copy"
        ``"copy"``: one multi-class model over the documents copied once per label (a
        document with no label once, in a reserved class); a label's score is its
        log-odds ``log P(l | d) - log(1 - P(l | d))`` under it (the copy transformation,
        Tsoumakas & Katakis 2007). ``"ovr"``: one binary model per label (binary
        relevance), the label's score its log-odds; the count models (multinomial,
        Bernoulli, complement) are then all built from one sparse product.
    threshold : {"scutfbr", "scut", "rcut", "pcut"} or float, default="scutfbr"
        The decision of each label from the scores, every choice made on out-of-fold
        scores of the training documents (``cv`` folds): ``"scut"`` the log-odds
        threshold per label with the best F1 (a label whose best threshold finds
        none of its out-of-fold positives, e.g. a label of one training document, the
        score of its top-ranked out-of-fold document, never a threshold every document
        passes); ``"scutfbr"`` the same, except that a
        label whose best F1 is below ``fbr`` gets the score of its top-ranked
        out-of-fold document as threshold (SCutFBR.1); ``"rcut"`` the ``rank`` best
        labels of each document; ``"pcut"`` each label to the best-ranked documents of
        the predicted batch, as many as its training frequency times a factor chosen
        for micro-F1 (a batch strategy: one document alone gets labels through
        ``min_labels`` only); a number: that log-odds threshold for every label (0
        means ``P > 0.5``). ``"f1"`` is an old name of ``"scut"``.
    fbr : float in [0, 1] or None, default=None
        The F1 below which ``"scutfbr"`` falls back; None chooses it from
        ``FBR_GRID`` for micro-F1 by cross-fitting the out-of-fold scores (thresholds
        from one half of the training documents judged on the other half).
    rank : int or None, default=None
        Labels per document for ``"rcut"``; None chooses 1, 2 or 3 for micro-F1 on the
        out-of-fold scores, among those below the number of labels that have training
        documents (1 always: with two such labels 1, with three 1 or 2), so that no
        document gets every label. A given rank above 1 that is not below that number is
        a ParameterError at ``fit`` (every document would get every label, the rare ones
        included, whatever its text); in :func:`cross_validate_multilabel` the number is
        that of each fold's training part, and the error names the fold.
    min_labels : int, default=1
        A document that gets fewer labels than this gets its best-ranked ones (the
        largest decision values): by default every document gets at least one label.
        0 allows an empty label set.
    cv : int, cross-validation splitter, iterable of (train, test) or None, default=None
        Folds for the out-of-fold scores, what scikit-learn's ``check_cv`` accepts. An
        int: K-fold, shuffled with ``random_state``. A splitter (``cv.split(X, Y)``, ``Y``
        the label indicator matrix, or the labels when ``y`` is one label per document)
        or a list of ``(train, test)`` index arrays is used as given: the decisions are
        chosen on the out-of-fold scores of every (split, test document) pair, so a
        document in no test part (``ShuffleSplit``) is not used and one in several is used
        once per split. A splitter that needs ``groups`` cannot be used (``fit`` takes
        none): give ``list(cv.split(X, Y, groups))``. A model file stores an int or a
        list of splits, never a splitter (:meth:`save` refuses it in one line). None: 5 below
        ``SMALL`` (5,000) training documents, else 2. The out-of-fold models must score
        on the scale of the model on all the documents: on a small corpus a model of half
        the documents is much less confident (60 documents: thresholds of -3.5 instead of
        -1), on large corpora 2 folds gave the F1 of 3 or 5 (``docs/multilabel.md``) in
        less time. The out-of-fold models keep the choices the model(s) on all the training
        documents made (DiscriminativeNB's event model and smoothing, a SmoothingCV's
        setting; one-vs-rest, each label's model its own:
        :func:`textnb.naive_bayes.base.with_choices`), so a fold does not choose again. With
        ``method="copy"`` over a model that has ``fit_out_of_fold`` (DiscriminativeNB)
        there is one training: each fold's scores come from the sums of the model of every
        document with that fold's documents taken out.
    random_state : int, default=0
        Seed of the folds.

    Attributes
    ----------
    classes_ : ndarray of shape (n_labels,)
        Label names (columns of ``Y``).
    estimator_ : classifier
        ``method="copy"``: the multi-class model; its classes are label indices, and
        ``n_labels`` for a document with no label.
    estimators_ : list of classifiers
        ``method="ovr"``: one binary classifier per label (classes 0 and 1); None for a
        label that is always or never present.
    constant_ : ndarray of shape (n_labels,)
        1 for a label on every training document, 0 for a label on none (their
        log-odds are then ±inf); -1 otherwise.
    strategy_ : str
        ``"scutfbr"``, ``"scut"``, ``"rcut"``, ``"pcut"`` or ``"fixed"`` (a number).
    thresholds_ : ndarray of shape (n_labels,)
        Log-odds thresholds (SCut, SCutFBR, a number; 0 for RCut and PCut).
    fbr_ : float
        SCutFBR's fallback level (when ``strategy_`` is ``"scutfbr"``).
    rank_ : int
        RCut's labels per document (when ``strategy_`` is ``"rcut"``).
    pcut_rate_ : ndarray of shape (n_labels,)
        PCut's fraction of a batch given each label (when ``strategy_`` is ``"pcut"``).
    train_support_ : ndarray of shape (n_labels,)
        Training documents per label.
    multilabel_ : bool
        Whether ``Y`` was multi-label (indicator / label sets) or 1-D.

    References
    ----------
    Y. Yang (2001). A study of thresholding strategies for text categorization. SIGIR,
    137-145.
    G. Tsoumakas, I. Katakis (2007). Multi-label classification: an overview.
    International Journal of Data Warehousing and Mining 3(3), 1-13.

    Examples
    --------
    >>> from textnb.meta.multilabel import MultiLabelNB
    >>> X = [[3, 0, 0], [0, 3, 0], [2, 2, 0], [0, 0, 3]] * 3
    >>> Y = [("grain",), ("wheat",), ("grain", "wheat"), ()] * 3

    One binary model per label (``method="ovr"``) gives the two-label document both labels.
    With ``method="copy"`` its two labels share one multi-class model's probability (here
    0.37 each, a log-odds below the threshold 0): ``[[0, 0]]``.

    >>> MultiLabelNB(method="ovr", threshold=0.0, min_labels=0).fit(X, Y).predict([[2, 2, 0]]).tolist()
    [[1, 1]]
    """

    _param_schema = {
        "estimator": TEMPLATE, "method": Choice("copy", "ovr"), "threshold": OneOf(Choice(*STRATEGIES), Float()),
        "fbr": Optional(Float(0.0, 1.0)), "rank": Optional(Int(1, 10_000)), "min_labels": Int(0, 10_000),
        "cv": CV_SCHEMA, "random_state": SEED,
    }
    _state_schema = {
        "classes_": Classes("n_labels"),
        "estimator_": MayBeAbsent(Optional(Model(dims={"n_features_in_": "n_features"}))),  # None: every label constant
        "estimators_": MayBeAbsent(ListOf(Optional(Model(dims={"n_features_in_": "n_features"},
                                                         equal={"classes_": (0, 1)})), length="n_labels")),
        "constant_": Array("iu", ("n_labels",), lo=-1, hi=1),
        "thresholds_": Array("f", ("n_labels",), finite="no-nan"),
        "strategy_": MayBeAbsent(Choice("scutfbr", "scut", "rcut", "pcut", "fixed")),
        "fbr_": MayBeAbsent(Float(0.0, 1.0)),
        "rank_": MayBeAbsent(Int(1, 10_000)),
        "pcut_rate_": MayBeAbsent(Array("f", ("n_labels",), lo=0.0, hi=100.0)),
        "train_support_": MayBeAbsent(Array("iuf", ("n_labels",), lo=0)),
        "multilabel_": Bool(),
        "n_features_in_": N_FEATURES,
        "feature_names_in_": MayBeAbsent(Array("U", (None,))),
    }

    @takes_defaults(MULTILABEL_DEFAULTS)
    def __init__(self, estimator=None, *, method, threshold, fbr, rank, min_labels, cv, random_state):
        self.estimator = estimator
        self.method = method
        self.threshold = threshold
        self.fbr = fbr
        self.rank = rank
        self.min_labels = min_labels
        self.cv = cv
        self.random_state = random_state

    _tags = {"classifier_tags.multi_label": True, "classifier_tags.poor_score": True,
             "target_tags.multi_output": True}
    _wrapped_input_tags = ("sparse", "positive_only")

    def _base(self):
        if self.estimator is not None:
            return self.estimator
        from textnb.naive_bayes.discriminative import DiscriminativeNB

        return DiscriminativeNB()

    def _strategy(self):
        t = self.threshold
        if isinstance(t, str):
            if t not in STRATEGIES:
                raise ParameterError(f"threshold must be one of {list(STRATEGIES[:4])} or a number; got {t!r}")
            return "scut" if t == "f1" else t
        if isinstance(t, bool) or not isinstance(t, (int, float, np.integer, np.floating)) or not np.isfinite(t):
            raise ParameterError(f"threshold must be one of {list(STRATEGIES[:4])} or a number; got {t!r}")
        return "fixed"

    def _check_params(self):
        if self.method not in ("copy", "ovr"):
            raise ParameterError(f"method must be 'copy' or 'ovr'; got {self.method!r}")
        # fbr, rank, min_labels: the model file's rules (a bool is not a number there)
        names = ("fbr", "rank", "min_labels")
        check_param_values({n: self._param_schema[n] for n in names}, {n: getattr(self, n) for n in names})
        return self._strategy()

    def _indicator(self, y):
        """(Y, classes, multilabel) from an indicator matrix, label sets or 1-D labels."""
        form, y = _targets(y)
        if form == "matrix":
            return y, np.arange(y.shape[1]), True
        if form == "sets":
            Y, classes = label_indicator(y)
            return Y, classes, True
        classes, idx = np.unique(y, return_inverse=True)
        Y = np.zeros((len(y), len(classes)), dtype=np.int64)
        Y[np.arange(len(y)), idx] = 1
        return Y, classes, False

    # -- fitting ----------------------------------------------------------------------
    #: ``fit`` hands ``fold_counts`` on to its estimator (:func:`textnb.core.wrapping.takes_fold_counts`)
    hands_on_fold_counts = True

    def uses_fold_counts(self):
        """Capability (:func:`textnb.core.wrapping.takes_fold_counts`): ``fit`` fits models
        on folds of its own (the out-of-fold scores of a thresholding strategy) on
        ``fold_counts``, whatever it wraps."""
        return isinstance(self.threshold, str)

    @all_or_nothing
    def fit(self, X, y, progress=None, fold_counts=None):
        """Fit the scores' model(s) and choose the decisions; returns self.

        ``progress``, a callable ``progress(done, total)``, is told of each model fitted
        (the final one, then the ``cv`` out-of-fold ones; one model when the out-of-fold
        scores come from its sums).

        ``fold_counts`` (what a ``TextClassifier`` gives a model of its count matrix ``X``:
        :class:`textnb.text.training.FoldVocabularies`; ``textnb train`` gives the same):
        each out-of-fold model is fitted on its fold's own vocabulary, ``fold_counts(train)``
        (the terms its training documents alone keep, ``min_df`` / ``max_df`` /
        ``max_features`` counted on them), as a fresh fit on those documents would be, and
        an estimator whose ``fit`` takes ``fold_counts`` (SmoothingCV, APNBC with
        ``fit_on="cv"``, CalibratedNB) gets those of the documents (or copies) it is fitted
        on, so that no held-out document's terms enter a model that scores it; with the copy
        method an estimator whose ``fit`` takes ``groups`` (the same ones), or a Pipeline ending
        in one, gets the document of each copy, so that its own folds keep a document's copies
        together (:func:`textnb.core.wrapping.groups_kwargs`). With a
        vectorizer that prunes (:attr:`FoldVocabularies.prunes
        <textnb.text.training.FoldVocabularies.prunes>`) the copy method's out-of-fold scores
        do not come from one training's sums then. None: each fold on the columns of ``X``
        its training part has, the estimator's own folds on ``X``'s columns."""
        strategy = self._check_params()
        Y, classes, multilabel = self._indicator(y)
        X = validate_data(self, X, accept_sparse="csr", reset=True)
        if Y.shape[0] != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but y has {Y.shape[0]}")
        if not multilabel and len(classes) < 2:
            raise ValueError(f"only 1 class ({classes.tolist()}); need at least two")
        if multilabel and strategy == "rcut":  # (before any model is fitted)
            check_rank(self.rank, Y)
        base = self._base()
        self.classes_, self.multilabel_ = classes, multilabel
        self.train_support_, self.constant_ = label_support(Y)
        self.strategy_ = strategy if multilabel else "fixed"
        thresholds = np.zeros(Y.shape[1])
        splits = given_splits(self.cv, X, Y if multilabel else classes[Y.argmax(axis=1)])
        folds = self.cv if self.cv is not None else (5 if X.shape[0] < SMALL else 2)
        folds = len(splits) if splits is not None else folds
        oof = multilabel and strategy != "fixed"  # decisions chosen on out-of-fold scores
        steps = folds + 1 if oof else 1
        n_splits = int(min(folds, X.shape[0]))
        # one training, the out-of-fold scores from the sums of the model of every document:
        # for the copy method over a model that can, when each document is held out once
        once = splits is None or _each_row_once(splits, X.shape[0])
        from_sums = oof and n_splits >= 2 and once and self.method == "copy" and hasattr(base, "fit_out_of_fold") \
            and (fold_counts is None or getattr(fold_counts, "prunes", True) is False)  # (the other folds' terms)
        if from_sums:
            steps = 1
        if progress is not None:
            progress(0, steps)
        T = Y
        if from_sums:
            if splits is None:
                splits = kfold(X.shape[0], n_splits, self.random_state)
            fitted, S = self._fit_copy_out_of_fold(base, X, Y, splits)
        else:
            fitted = self._fit_scores(base, X, Y, fold_counts)  # first: the out-of-fold models keep its choices
        done = 1
        if progress is not None:
            progress(done, steps)
        if oof and not from_sums:
            base = _fold_base(base, fitted[0])
            S = np.zeros(Y.shape, dtype=np.float64)
            if splits is None and n_splits >= 2:
                splits = kfold(X.shape[0], n_splits, self.random_state)
            if splits is not None:
                parts, rows = [], []
                for train, test in splits:
                    if fold_counts is not None:  # the fold's own vocabulary, pruned on its training documents
                        Xf = fold_counts(train)
                        fold = self._fit_scores(base, Xf[train], Y[train], RowFoldCounts(fold_counts, train))
                        parts.append(self._scores(fold, Xf[test]))
                    else:
                        cols = seen_columns(X[train])
                        fold = self._fit_scores(base, X[train][:, cols], Y[train])
                        parts.append(self._scores(fold, X[test][:, cols]))
                    rows.append(test)
                    done += 1
                    if progress is not None:
                        progress(done, steps)
                S, rows = np.vstack(parts), np.concatenate(rows)
                if len(rows) == Y.shape[0] and np.array_equal(np.sort(rows), np.arange(Y.shape[0])):
                    S[rows] = S.copy()  # every document once (K-fold): in the documents' order
                else:  # one row per (split, test document)
                    T = Y[rows]
        if oof:
            thresholds = self._decide(_finite(S), T.astype(bool), strategy)
        elif strategy == "fixed" and multilabel:
            thresholds[:] = float(self.threshold)
        if self.method == "copy":
            self.estimator_ = fitted[0]
        else:
            self.estimators_ = fitted[0]
        thresholds[self.constant_ != -1] = 0.0
        self.thresholds_ = thresholds
        return self

    def _fit_scores(self, base, X, Y, fold_counts=None):
        """The model(s) behind the scores of labels ``Y`` (n, n_labels), and which labels
        are constant in ``Y``: ``(model(s), constant)``. ``fold_counts`` (of the rows of
        ``X``): handed on to a ``base`` whose ``fit`` takes them, for the copies it is
        fitted on (:class:`textnb.text.training.RowFoldCounts`) or the documents.
        One-vs-rest, ``base`` may be a list of one model per label (:func:`_fold_base`)."""
        if isinstance(base, list):
            return self._fit_each(base, X, Y, fold_counts)
        if fold_counts is not None and not takes_fold_counts(base):
            fold_counts = None
        n, m = Y.shape
        n_pos = Y.sum(axis=0)
        constant = label_support(Y)[1]
        live = np.flatnonzero(constant == -1)
        if self.method == "copy":
            if live.size == 0:
                return None, constant
            rows, codes = copies(Y, live)
            kw = {} if fold_counts is None else {"fold_counts": RowFoldCounts(fold_counts, rows)}
            # its own folds (a SmoothingCV's, a calibration's, a DiscriminativeNB's, behind Pipeline
            # steps too) keep a document's copies together
            kw.update(groups_kwargs(base, rows))
            with naming_the_label(self.classes_, Y=Y):
                return clone(base).fit(X[rows], codes, **kw), constant
        models = [None] * m
        if _sums_fit(base) and live.size:
            counter = clone(base)
            F = counter._transform_counts(sp.csr_matrix(X, dtype=np.float64))
            table = CountTable(m, X.shape[1]).add(F, sp.csr_matrix(Y, dtype=np.float64))
            total = np.asarray(F.sum(axis=0)).ravel()
            for j in live:
                pos = table.feature_count[j]
                models[j] = clone(base).fit_counts(np.array([0, 1]), [n - n_pos[j], n_pos[j]],
                                                   np.vstack([total - pos, pos]))
                models[j].n_features_in_ = X.shape[1]
        else:
            return self._fit_each([base] * m, X, Y, fold_counts)
        return models, constant

    def _fit_each(self, bases, X, Y, fold_counts=None):
        """One-vs-rest: the binary model of each label ``j`` of ``Y`` not constant there,
        ``bases[j]`` fitted on ``X`` (with ``fold_counts`` when its ``fit`` takes them), and
        which labels are constant: ``(models, constant)``."""
        constant = label_support(Y)[1]
        models = [None] * Y.shape[1]
        for j in np.flatnonzero(constant == -1):
            kw = {} if fold_counts is None or not takes_fold_counts(bases[j]) else {"fold_counts": fold_counts}
            with naming_the_label(self.classes_, j, Y):
                models[j] = clone(bases[j]).fit(X, Y[:, j], **kw)
        return models, constant

    def _fit_copy_out_of_fold(self, base, X, Y, splits):
        """The copy model of every document (as :meth:`_fit_scores`) and the out-of-fold
        log-odds of the documents of each ``(train, test)`` split's test part, from the
        model's sums with that part taken out (``base.fit_out_of_fold``):
        :func:`textnb.meta.labelsets.copy_out_of_fold`."""
        def fit_out_of_fold(X_rows, codes, fold, document):
            model = clone(base)
            log_proba = model.fit_out_of_fold(X_rows, codes, fold, document=document)
            return model, model.classes_, log_proba

        return copy_out_of_fold(X, Y, splits, fit_out_of_fold)

    def _scores(self, fitted, X):
        """Log-odds per label of the fitted ``(model(s), constant)`` (±inf for a
        constant label)."""
        models, constant = fitted
        m = len(constant)
        S = np.empty((X.shape[0], m))
        if self.method == "copy" and not isinstance(models, list):
            if models is not None:
                S[:] = copy_scores(models.classes_, models.predict_log_proba(X), constant)
        else:
            for j, est in enumerate(models):
                if est is not None:
                    S[:, j] = estimator_log_odds(est, X, np.array([0, 1]))[:, 1]
        S[:, constant == 1] = np.inf
        S[:, constant == 0] = -np.inf
        return S

    def _decide(self, S, T, strategy):
        """Thresholds (and ``fbr_`` / ``rank_`` / ``pcut_rate_``) from out-of-fold scores
        (:func:`textnb.meta.labelsets.decide`)."""
        thresholds, choices = decide(S, T, strategy, fbr=self.fbr, rank=self.rank, min_labels=self.min_labels,
                                     seed=self.random_state)
        vars(self).update(choices)
        return thresholds

    # -- prediction -----------------------------------------------------------------------
    def predict_log_odds(self, X):
        """Per-label log-odds (the scores), shape (n_samples, n_labels)."""
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", reset=False)
        if hasattr(self, "estimator_"):
            return self._scores((self.estimator_, self.constant_), X)
        return self._scores((list(self.estimators_), self.constant_), X)

    def decision_function(self, X):
        """Positive where a label is assigned: log-odds minus the threshold (SCut,
        SCutFBR, a number), or minus the row's RCut / the batch's PCut cut; a row with
        fewer than ``min_labels`` positive values is shifted down so that its best-ranked
        ones are positive.

        With a 1-D ``y`` (multi-class) the log-odds themselves (those of ``classes_[1]``
        when there are two classes), as scikit-learn's classifiers do.
        """
        check_is_fitted(self)
        S = self.predict_log_odds(X)
        if not self.multilabel_:
            return S[:, 1] if S.shape[1] == 2 else S
        return self.decision_from_log_odds(S)

    def decision_from_log_odds(self, S):
        """:meth:`decision_function` of documents whose log-odds ``S`` (from
        :meth:`predict_log_odds`) are known (multi-label): one scoring pass for both."""
        check_is_fitted(self)
        return decision(S, getattr(self, "strategy_", "scut"), self.thresholds_, self.min_labels,
                        rank=getattr(self, "rank_", None), pcut_rate=getattr(self, "pcut_rate_", None))

    def predict(self, X):
        """Indicator matrix of assigned labels (multi-label), or one label per row (1-D y)."""
        check_is_fitted(self)
        if self.multilabel_:
            return (self.decision_function(X) > 0).astype(np.int64)
        return self.classes_[np.argmax(self.predict_log_odds(X), axis=1)]

    def predict_labels(self, X):
        """The assigned labels of each row as a list of tuples of label names."""
        check_is_fitted(self)
        if not self.multilabel_:
            return [(str(c),) for c in self.predict(X)]
        names = label_names(self)
        return [tuple(names[j] for j in np.flatnonzero(row)) for row in self.decision_function(X) > 0]

    def predict_log_proba(self, X):
        """Per-label ``log P(label | x)`` (multi-label), or these normalised over the
        labels (1-D y)."""
        check_is_fitted(self)
        lp = log_expit(self.predict_log_odds(X))
        if self.multilabel_:
            return lp
        return log_proba_from_jll(lp)

    def predict_proba(self, X):
        """Per-label ``P(label | x)`` (multi-label: :func:`textnb.meta.labelsets.label_probabilities`
        of the log-odds, the floats ``textnb predict`` prints), or these normalised over the
        labels (1-D y)."""
        check_is_fitted(self)
        if self.multilabel_:
            return label_probabilities(self.predict_log_odds(X))
        return np.exp(self.predict_log_proba(X))

    def score(self, X, y, sample_weight=None):
        """Mean accuracy (1-D y) or micro-F1 (multi-label, over ``classes_``), each
        document's cells weighted by ``sample_weight`` (scikit-learn's
        ``f1_score(Y, predict(X), average="micro", sample_weight=...)``)."""
        check_is_fitted(self)
        if not self.multilabel_:
            return super().score(X, y, sample_weight=sample_weight)
        Y, P = self.indicator(y), self.predict(X)
        if sample_weight is None:
            return multilabel_report(Y, P, self.classes_)["micro_f1"]
        T = np.asarray(Y.toarray() if sp.issparse(Y) else Y).astype(bool)
        P = np.asarray(P.toarray() if sp.issparse(P) else P).astype(bool)
        w = check_sample_weight(sample_weight, T.shape[0])[:, None]
        tp, fp, fn = ([float((w * cells).sum())] for cells in (T & P, ~T & P, T & ~P))
        return float(precision_recall_f1(tp, fp, fn)[2][0])

    def indicator(self, y):
        """0/1 matrix (n, n_labels) over ``classes_`` of label sets or an indicator matrix
        (labels not in ``classes_`` are left out), ``y`` read as :meth:`fit` reads it (a
        DataFrame or rows of 0/1 written as lists are an indicator matrix, a Series of
        label collections the label sets it holds)."""
        check_is_fitted(self)
        form, y = _targets(y)
        if form == "matrix":
            if y.shape[1] != len(self.classes_):
                raise ValueError(f"Y has {y.shape[1]} columns; the model has {len(self.classes_)} labels")
            return y
        return indicator(self.classes_, y if form == "sets" else [(v,) for v in y])


    def _set_state(self, state):
        """A model file's state, checked beyond its schema: one kind of scores (``estimator_``
        or ``estimators_``), the copy model's classes label indices, and what the strategy
        needs (``fbr_``, ``rank_``, ``pcut_rate_``)."""
        if ("estimator_" in state) == ("estimators_" in state):
            raise ValueError("expected one of estimator_ (copy) and estimators_ (one-vs-rest)")
        n = len(state["classes_"])
        inner = state.get("estimator_")
        if inner is not None and not np.isin(np.asarray(inner.classes_), np.arange(n + 1)).all():
            raise ValueError(f"the copy model's classes must be label indices 0..{n}")
        need = {"scutfbr": "fbr_", "rcut": "rank_", "pcut": "pcut_rate_"}.get(state.get("strategy_"))
        if need is not None and need not in state:
            raise ValueError(f"strategy {state['strategy_']!r} without {need}")
        for k, v in state.items():
            setattr(self, k, v)


def evaluate_multilabel_split(X_train, labels_train, X_test, labels_test, model=None, *, progress=None,
                              fold_counts=None):
    """Train on one part, test on the other (an official split), as the literature reports.

    Parameters
    ----------
    X_train, X_test : sparse matrices (n, n_terms)
        Counts over the training part's vocabulary (a test document's unseen terms
        dropped).
    labels_train, labels_test : lists of label collections
    model : MultiLabelNB, default=None
        ``MultiLabelNB()`` when None (cloned).
    progress : callable, default=None
        ``progress(done, total)``, passed to ``fit``.
    fold_counts : FoldVocabularies, default=None
        Of the training documents, passed to ``fit`` (:meth:`MultiLabelNB.fit`): the folds
        inside training each on the vocabulary of their training part.

    Returns
    -------
    dict
        :func:`multilabel_report` of the test part (per-label ``train_support``
        included; labels of the test part the training part never has are scored as
        never predicted), plus ``n_train`` and ``test_labels_unseen``.
    """
    model = clone(MultiLabelNB() if model is None else model)
    model.fit(X_train, [tuple(v) for v in labels_train], progress=progress, fold_counts=fold_counts)
    S = model.predict_log_odds(X_test)  # (their rankings: the break-even points, whatever the decision rule)
    D = model.decision_from_log_odds(S)  # what predict thresholds at 0
    return test_report(model.classes_, model.train_support_, D, labels_test, X_train.shape[0], scores=S)


def cross_validate_multilabel(X, labels, model=None, *, cv=10, seed=0, progress=None, vectorizer=None, groups=None):
    """K-fold cross-validation of a multi-label model on a count matrix.

    Parameters
    ----------
    X : sparse matrix (n_documents, n_terms)
        Counts over every term (:func:`textnb.evaluation.evaluate.vectorize_all`); each fold uses
        the terms of its training part only.
    labels : list of label collections, or 0/1 indicator matrix
    model : MultiLabelNB, default=None
        ``MultiLabelNB()`` when None (cloned per fold).
    cv : int, cross-validation splitter or iterable of (train, test) index arrays, default=10
        A number of folds (shuffled with ``seed``), or what scikit-learn's ``check_cv``
        accepts, used as given: each split's test rows are predicted and pooled (a row in
        no test part is not counted, a row in several is counted once per split).
    progress : callable, default=None
        ``progress(done, total)`` after each fold.
    vectorizer : dict, default=None
        The vectorizer's parameters: each fold keeps the terms its ``min_df`` / ``max_df`` /
        ``max_features`` keep in the fold's training part, as presence with ``binary``
        (:func:`textnb.text.training.fold_counts`); None: every term, counts. The model
        fitted on a fold gets the ``fold_counts`` of that fold's training documents
        (:meth:`MultiLabelNB.fit`), so that its own folds (the thresholds' out-of-fold
        scores, a SmoothingCV's or APNBC's) are on their training parts' vocabularies too.
    groups : array-like of shape (n_documents,), default=None
        With a number of folds: the documents of a group (the messages of one mbox file)
        are held out together, except where one group holds every document of a label
        (:func:`textnb.meta.labelsets.document_folds`; the report's ``groups_note`` says so).

    Returns
    -------
    dict
        :func:`multilabel_report` of the pooled out-of-fold predictions and decision
        scores, plus ``folds`` and ``seed``.
    """
    model = MultiLabelNB() if model is None else model
    X = sp.csr_matrix(X)
    Y, classes, multilabel = MultiLabelNB()._indicator(labels if not isinstance(labels, list) else list(labels))
    if not multilabel:
        raise InputError("cross_validate_multilabel needs label sets or an indicator matrix")
    splits = given_splits(cv, X, Y)
    if splits is None:
        cv = 10 if cv is None else int(cv)
        if cv > X.shape[0]:
            raise InputError(f"cv must be between 2 and the number of documents ({X.shape[0]}); got {cv}")
        splits, notes = document_folds(X.shape[0], cv, seed, Y, classes, groups)
    else:
        notes = None
    from textnb.text.training import fold_counts, fold_vocabularies

    def fold_decisions(X_train, Y_train, X_test, labels):  # (Y_train: the columns of the labels the fold has)
        inner = fold_vocabularies(X_train, {} if vectorizer is None else vectorizer)
        if vectorizer is not None:
            X_train, X_test, _ = fold_counts(X_train, X_test, vectorizer)
        one = Y_train.shape[1] == 1  # one label: an (n, 1) array would be read as one class per document
        if one:
            Y_train = np.hstack([Y_train, np.zeros_like(Y_train)])  # beside a label no document has
        fitted = clone(model).fit(X_train, Y_train, fold_counts=inner)
        S = fitted.predict_log_odds(X_test)  # (the decision values, and the log-odds ranked for break-even points)
        D = fitted.decision_from_log_odds(S)
        return (D[:, :1], S[:, :1]) if one else (D, S)

    return cross_validated_report(X, Y, classes, splits, fold_decisions, seed, progress, notes)
