"""Scores a user can threshold: calibrated probabilities and per-class thresholds.

Naive Bayes ranks documents well but its probabilities are extreme: the independence
assumption multiplies the evidence of every word, so on long documents nearly every
``predict_proba`` is 0 or 1 (Domingos & Pazzani 1997; Zadrozny & Elkan 2002 calibrate
NB scores with isotonic regression, Platt 1999 with a sigmoid). :class:`CalibratedNB`
learns a map from the model's *log-odds* ``log P(c|x) − log P(¬c|x)`` (which keeps its
resolution where the probability has rounded to 1) to a probability, one map per
class, fitted on out-of-fold scores so the map sees how the model scores documents it
was not trained on. The final model is then fitted on all the data.

It also keeps per-class decision thresholds on the raw log-odds, chosen on the same
out-of-fold scores (best F1, or a target false-positive rate), and the helpers
:func:`threshold_for_fpr` and :func:`threshold_for_f1` for scores computed elsewhere.
"""

from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from textnb.core.folds import calibration_folds, take_rows
from textnb.core.wrapping import groups_kwargs, takes_fold_counts, weight_kwargs
from textnb.naive_bayes.base import (NestedParams, SaveMixin, WrapperTags, check_sample_weight, given_splits, log_odds,
                                     takes_documents, with_choices, wrapped_documents, wrapped_input_tags)
from textnb.core.model_io import register
from textnb.naive_bayes.kernels import all_or_nothing
from textnb.core.stats import seen_columns
from textnb.io.frames import is_frame
from textnb.text.wrappers import (CALIBRATED_PARAMS, CALIBRATED_STATE, CALIBRATION_METHODS, calibrated_classes,
                                   calibrated_log_proba, finite_scores, fit_isotonic, fit_sigmoid, threshold_for_f1,
                                   threshold_for_fpr)

__all__ = [
    "CalibratedNB",
    "out_of_fold_log_odds",
    "estimator_log_odds",
    "threshold_for_f1",
    "threshold_for_fpr",
]

_METHODS = CALIBRATION_METHODS


def estimator_log_odds(estimator, X, classes):
    """Per-class log-odds of a fitted classifier, columns aligned on ``classes``.

    Computed from ``predict_log_proba`` (log-odds do not depend on the normalisation),
    so any classifier works, including a Pipeline. ``classes`` in any order (a table
    model's declared order); a class the estimator does not know gets ``-inf``, a class
    of the estimator not in ``classes`` is left out.
    """
    lp = np.asarray(estimator.predict_log_proba(X), dtype=np.float64)
    full = np.full((lp.shape[0], len(classes)), -np.inf)
    where = {c: j for j, c in enumerate(np.asarray(classes).tolist())}
    mine = [where.get(c) for c in np.asarray(estimator.classes_).tolist()]
    kept = [i for i, j in enumerate(mine) if j is not None]
    full[:, [mine[i] for i in kept]] = lp[:, kept]
    if len(classes) == 1:
        return np.zeros_like(full)
    return log_odds(full)


def out_of_fold_log_odds(estimator, X, y, *, cv=5, random_state=0, sample_weight=None, return_rows=False,
                         classes=None, fold_counts=None, groups=None):
    """Log-odds of every object from a model that did not see it (stratified K-fold).

    Returns ``(scores, classes)`` with ``scores`` of shape (n_samples, n_classes), the
    columns ``classes`` (None: the sorted classes of ``y``; a fitted model's ``classes_``,
    e.g. a table model's declared classes, one no object has included). ``cv``
    is what scikit-learn's ``check_cv`` accepts: an int (None: 5) makes stratified folds
    shuffled with ``random_state``, their number lowered to the size of the smallest
    class when needed (at least 2); a splitter (``cv.split(X, y)``) or an iterable of
    ``(train, test)`` index arrays is used as given. When the test parts do not
    partition the objects (``ShuffleSplit``), an object in no test part has NaN scores
    and one in several the mean of its scores; ``return_rows=True`` returns
    ``(scores, classes, rows)`` instead, ``scores`` with one row per (split, test object)
    in split order and ``rows`` the object of each (the objects' own order when the test
    parts partition them). ``fold_counts`` (a count matrix of documents, as a
    ``TextClassifier`` gives it: :class:`textnb.text.training.FoldVocabularies`): each
    fold's model is fitted on ``fold_counts(train)``, the counts over the vocabulary its
    training documents alone keep (``min_df`` / ``max_df`` / ``max_features`` counted on
    them), as a fresh fit on those documents would be; else on the columns its training
    part has (``X``'s, those it never saw left out). ``groups`` (one value per row): the
    folds made of an int ``cv`` keep a group's rows on one side
    (:func:`textnb.core.folds.calibration_folds`), and each fold's model whose ``fit``
    takes them, or a Pipeline ending in one, gets those of its rows
    (:func:`textnb.core.wrapping.groups_kwargs`).
    """
    y = np.asarray(y)
    classes = np.unique(y) if classes is None else np.asarray(classes)
    splits = given_splits(cv, X, y)
    if splits is None:
        splits = calibration_folds(y, 5 if cv is None else cv, random_state, groups=groups)
    parts, rows = [], []
    for train, test in splits:
        kw = {} if sample_weight is None else weight_kwargs(estimator, sample_weight[train])
        # (its own folds keep them together too, behind Pipeline steps alike)
        kw.update(groups_kwargs(estimator, None if groups is None else np.asarray(groups)[train]))
        rows.append(test)
        if is_frame(X) or _declared_attributes(estimator) is not None or takes_documents(estimator):
            # table columns are attributes, not terms: keep them all (a DataFrame is handed
            # on as it is: the table model encodes it, textnb.io.frames); documents (a 1-D
            # array) are the model's to count
            fitted = clone(estimator).fit(take_rows(X, train), y[train], **kw)
            parts.append(estimator_log_odds(fitted, take_rows(X, test), classes))
            continue
        if fold_counts is not None:  # the fold's own vocabulary, pruned on its training documents
            Xf = fold_counts(train)
            fitted = clone(estimator).fit(Xf[train], y[train], **kw)
            parts.append(estimator_log_odds(fitted, Xf[test], classes))
            continue
        cols = seen_columns(X[train])
        fitted = clone(estimator).fit(X[train][:, cols], y[train], **kw)
        parts.append(estimator_log_odds(fitted, X[test][:, cols], classes))
    stacked, rows = np.vstack(parts), np.concatenate(rows)
    partition = len(rows) == len(y) and np.array_equal(np.sort(rows), np.arange(len(y)))
    if partition:  # every object once: in the objects' order
        scores = np.empty_like(stacked)
        scores[rows] = stacked
        stacked, rows = scores, np.arange(len(y))
    if return_rows:
        return stacked, classes, rows
    if partition:
        return stacked, classes
    scores = np.zeros((len(y), len(classes)))
    times = np.bincount(rows, minlength=len(y))
    np.add.at(scores, rows, stacked)
    with np.errstate(invalid="ignore", divide="ignore"):
        return scores / np.where(times > 0, times, np.nan)[:, None], classes


def _declared_attributes(estimator):
    """The table attributes ``estimator`` (or a model it wraps) declares, or None."""
    while estimator is not None:
        attributes = getattr(estimator, "attributes", None)
        if attributes is not None:
            return attributes
        estimator = getattr(estimator, "estimator", None)
    return None


def _input_dtype(estimator):
    """``None`` (keep object cells) for a model of a table with text attributes, else numeric."""
    attributes = _declared_attributes(estimator)
    text = attributes is not None and any(getattr(a, "kind", None) == "text" for a in attributes)
    return None if text else "numeric"


def _input_checks(estimator):
    """``validate_data``'s dtype and finiteness check for the ``X`` passed on to ``estimator``:
    object cells kept for a table with text attributes; NaN (a missing value) let through when
    the estimator takes it (a table model), as the estimator's own fit would."""
    dtype = _input_dtype(estimator)
    return {"dtype": dtype, "ensure_all_finite": dtype is not None and not wrapped_input_tags(estimator).allow_nan}


_finite = finite_scores


_fit_sigmoid = fit_sigmoid


_calibrated_classes = calibrated_classes


@register
class CalibratedNB(WrapperTags, SaveMixin, NestedParams, ClassifierMixin, BaseEstimator):
    """A classifier with calibrated probabilities and per-class thresholds.

    One calibration map per class (per positive class when there are two) from the
    estimator's log-odds to a probability, fitted on out-of-fold log-odds
    (:func:`out_of_fold_log_odds`); the estimator itself is then fitted on all the
    data. With several classes the per-class probabilities are normalised to sum to 1
    (the one-vs-rest scheme of Zadrozny & Elkan 2002).

    Parameters
    ----------
    estimator : classifier, default=None
        Any classifier with ``predict_log_proba`` (a textnb model or a Pipeline ending
        in one); ``textnb.MultinomialNB()`` when None. A model that makes a choice from
        its data (a :class:`~textnb.meta.smoothing.SmoothingCV`'s smoothing,
        DiscriminativeNB's ``event_model="auto"``) makes it once, on all the data, and
        the calibration folds fit the model with that choice
        (:func:`textnb.naive_bayes.base.with_choices`): the model calibrated.
    method : {"sigmoid", "isotonic"}, default="sigmoid"
        Platt's sigmoid ``σ(a s + b)`` on the log-odds ``s`` (two parameters per class;
        robust with little data), or isotonic regression (monotone step function,
        kept within ``[1/(n+2), 1 − 1/(n+2)]`` so no probability is 0 or 1; needs more
        data).
    cv : int, cross-validation splitter, iterable of (train, test) or None, default=5
        Folds for the out-of-fold scores, what scikit-learn's ``check_cv`` accepts. An
        int (None: 5): stratified, shuffled with ``random_state``, lowered to the size
        of the smallest class. A splitter (``cv.split(X, y)``) or a list of ``(train,
        test)`` index arrays is used as given; the maps and thresholds are fitted on the
        out-of-fold scores of every (split, test object) pair, so an object in no test
        part (``ShuffleSplit``) is not used and one in several is used once per split.
        A splitter that needs ``groups`` cannot be used (``fit`` takes none): give
        ``list(cv.split(X, y, groups))``. A model file stores an int or a list of splits,
        never a splitter (:meth:`save` refuses it in one line).
    target_fpr : float or None, default=None
        If set, ``thresholds_`` are chosen for this out-of-fold false-positive rate per
        class; otherwise for the best out-of-fold F1 per class.
    random_state : int, default=0
        Seed of the fold assignment.

    Attributes
    ----------
    estimator_ : classifier
        The estimator fitted on all the data.
    classes_ : ndarray of shape (n_classes,)
        The fitted estimator's classes, in its order (a table model's declared classes,
        one no training row has included: its map, fitted on no positive, gives it the
        probability of a class never seen), so the columns of ``predict_proba`` are the
        estimator's with and without calibration.
    calibrated_classes_ : ndarray of int
        Indices of the classes that have a calibration map (only the second class
        with two classes; every class otherwise).
    sigmoid_ : ndarray of shape (n_calibrated, 2)
        ``(a, b)`` per map (sigmoid).
    isotonic_x_, isotonic_y_ : list of ndarray
        The step function per map (isotonic).
    thresholds_ : ndarray of shape (n_classes,)
        Per-class thresholds on the raw log-odds (:meth:`predict_log_odds`).

    References
    ----------
    J. Platt (1999). Probabilistic outputs for support vector machines and comparisons
    to regularized likelihood methods. B. Zadrozny, C. Elkan (2002). Transforming
    classifier scores into accurate multiclass probability estimates. KDD.

    Examples
    --------
    >>> from textnb.meta.calibration import CalibratedNB
    >>> X = [[3, 0], [2, 1], [4, 0], [3, 1], [0, 3], [1, 2], [0, 4], [1, 3]] * 2
    >>> y = ["ham"] * 4 + ["spam"] * 4 + ["ham"] * 4 + ["spam"] * 4
    >>> clf = CalibratedNB(cv=2).fit(X, y)
    >>> clf.predict([[5, 0]]).tolist()
    ['ham']
    """

    #: ``fit`` hands ``fold_counts`` on to its estimator (:func:`textnb.core.wrapping.takes_fold_counts`)
    hands_on_fold_counts = True

    #: capability (:mod:`textnb.core.wrapping`): why there is no ``merge`` (``textnb merge`` says it)
    merge_refusal = "its probability maps and thresholds are fitted on out-of-fold scores of all its training data"

    _param_schema = CALIBRATED_PARAMS
    _state_schema = CALIBRATED_STATE

    # NaN reaches the estimator when it takes it (:func:`_input_checks`): the tag says so
    _wrapped_input_tags = ("sparse", "positive_only", "allow_nan", "string", "two_d_array")

    def __init__(self, estimator=None, *, method="sigmoid", cv=5, target_fpr=None, random_state=0):
        self.estimator = estimator
        self.method = method
        self.cv = cv
        self.target_fpr = target_fpr
        self.random_state = random_state

    def _base(self):
        if self.estimator is not None:
            return self.estimator
        from textnb.naive_bayes.discrete import MultinomialNB

        return MultinomialNB()

    def _check_params(self):
        if self.method not in _METHODS:
            raise ValueError(f"method must be 'sigmoid' or 'isotonic'; got {self.method!r}")
        if self.target_fpr is not None and not (
            isinstance(self.target_fpr, Real) and 0.0 <= self.target_fpr <= 1.0
        ):
            raise ValueError(f"target_fpr must be in [0, 1] or None; got {self.target_fpr!r}")

    def uses_fold_counts(self):
        """Capability (:func:`textnb.core.wrapping.takes_fold_counts`): ``fit`` scores folds of
        its own (the calibration's) on ``fold_counts``, whatever it wraps."""
        return True

    def probabilities_calibrated(self):
        """True once fitted (:mod:`textnb.core.wrapping`)."""
        return hasattr(self, "calibrated_classes_")

    @all_or_nothing
    def fit(self, X, y, sample_weight=None, fold_counts=None, groups=None):
        """Fit the calibration maps on out-of-fold log-odds, then the estimator on all data.
        ``fold_counts`` (what a ``TextClassifier`` gives a model of its count matrix ``X``):
        handed on to a SmoothingCV estimator's ``fit`` (its choice of smoothing;
        :meth:`textnb.meta.smoothing.SmoothingCV.fit`), and each calibration fold's model is
        fitted on the fold's own vocabulary (:func:`out_of_fold_log_odds`), as a fresh fit
        on the fold's documents would be. ``groups`` (one value per row,
        :func:`textnb.core.wrapping.takes_groups`): the calibration folds keep a group's rows
        (the copies of a multi-label document) on one side, and so do the folds of an
        estimator that takes them (a SmoothingCV, a DiscriminativeNB), behind Pipeline steps
        too (:func:`textnb.core.wrapping.groups_kwargs`)."""
        self._check_params()
        docs = wrapped_documents(self, self._base(), X)
        if docs is not None:  # raw documents, for a model of documents (as CalibratedClassifierCV)
            X, y = docs, column_or_1d(y, warn=True)
            if len(y) != len(X):
                raise ValueError(f"X has {len(X)} documents but y has {len(y)} labels")
            for name in ("n_features_in_", "feature_names_in_"):  # (of an earlier fit on a matrix)
                self.__dict__.pop(name, None)
        elif is_frame(X):  # its names and width here; the table model checks and encodes its cells
            validate_data(self, X, reset=True, skip_check_array=True)
            y = column_or_1d(y, warn=True)
            if len(y) != len(X):
                raise ValueError(f"X has {len(X)} rows but y has {len(y)} labels")
        else:
            X, y = validate_data(self, X, y, accept_sparse="csr", reset=True, **_input_checks(self._base()))
        check_classification_targets(y)
        sw = check_sample_weight(sample_weight, X.shape[0])  # (a number: every row's weight)
        splits = given_splits(self.cv, X, y)  # a bad cv: one line, before any model is fitted
        base = self._base()
        kw = {} if sw is None else weight_kwargs(base, sw)
        # the model on all the data first: its classes are the calibrated model's (as
        # scikit-learn's CalibratedClassifierCV), so a table model's declared classes stay,
        # in their order, and a declared class no row has gets a map fitted on no positive
        # (the calibrated probability of a class never seen: Platt's target 1 / (n + 2) or
        # the isotonic floor)
        if fold_counts is not None and takes_fold_counts(base):
            kw["fold_counts"] = fold_counts
        kw.update(groups_kwargs(base, groups))
        final = clone(base).fit(X, y, **kw)  # (a SmoothingCV's choice weighs them too)
        self.classes_ = np.asarray(final.classes_)
        n_classes = len(self.classes_)
        # the fold models are the model on all the data with the choices it made (a
        # SmoothingCV's smoothing, DiscriminativeNB's event model): fold models choosing
        # their own would score on other scales than the model calibrated
        chosen = with_choices(final)
        if chosen is not None:
            base = chosen
        if n_classes >= 2:
            scores, _, rows = out_of_fold_log_odds(base, X, y, cv=self.cv if splits is None else splits,
                                                   random_state=self.random_state, sample_weight=sw,
                                                   return_rows=True, classes=self.classes_,
                                                   fold_counts=fold_counts if docs is None else None,
                                                   groups=groups)
            scores = _finite(scores)
            y_held = y[rows]  # the true class of each out-of-fold score
            w = np.ones(len(rows)) if sw is None else sw[rows]
            self.calibrated_classes_ = _calibrated_classes({"n_classes": n_classes})
            sig, iso_x, iso_y = [], [], []
            for c in self.calibrated_classes_:
                t = (y_held == self.classes_[c]).astype(np.float64)
                if self.method == "sigmoid":
                    sig.append(_fit_sigmoid(scores[:, c], t, w))
                else:
                    # floor / ceiling 1 / (n + 2): a step with no positive (negative) must
                    # not give probability 0 (1), as Laplace's rule of succession
                    eps = 1.0 / (np.sum(w) + 2.0)
                    steps_x, steps_y = fit_isotonic(scores[:, c], t, w, eps, 1.0 - eps)
                    iso_x.append(steps_x)
                    iso_y.append(steps_y)
            self.sigmoid_ = np.array(sig, dtype=np.float64).reshape(-1, 2)
            self.isotonic_x_, self.isotonic_y_ = iso_x, iso_y
            self.thresholds_ = np.array([
                threshold_for_f1(scores[:, c], y_held == k) if self.target_fpr is None
                else threshold_for_fpr(scores[:, c], y_held == k, self.target_fpr)
                for c, k in enumerate(self.classes_)])
        else:
            self.calibrated_classes_ = _calibrated_classes({"n_classes": n_classes})
            self.sigmoid_ = np.zeros((0, 2))
            self.isotonic_x_, self.isotonic_y_ = [], []
            self.thresholds_ = np.array([-np.inf])
        self.estimator_ = final
        return self

    def _check_X(self, X):
        docs = wrapped_documents(self, self._base(), X)
        if docs is not None:
            return docs
        if is_frame(X):
            validate_data(self, X, reset=False, skip_check_array=True)
            return X
        return validate_data(self, X, accept_sparse="csr", reset=False, **_input_checks(self._base()))

    def predict_log_odds(self, X):
        """Raw per-class log-odds of the estimator (not calibrated), (n_samples, n_classes)."""
        check_is_fitted(self)
        return estimator_log_odds(self.estimator_, self._check_X(X), self.classes_)

    def predict_log_proba(self, X):
        """Calibrated ``log P(c | x)``; rows log-sum-exp to 0."""
        check_is_fitted(self)
        return calibrated_log_proba(self.predict_log_odds(X), self.method, self.calibrated_classes_, self.sigmoid_,
                                    self.isotonic_x_, self.isotonic_y_)

    def predict_proba(self, X):
        """Calibrated ``P(c | x)``; rows sum to 1."""
        check_is_fitted(self)
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        """The class with the largest calibrated probability."""
        check_is_fitted(self)
        return self.classes_[np.argmax(self.predict_log_proba(X), axis=1)]

    def predict_above_thresholds(self, X):
        """Boolean (n_samples, n_classes): raw log-odds above each class's threshold."""
        check_is_fitted(self)
        return self.predict_log_odds(X) > self.thresholds_

