"""Choosing the smoothing of a count model by cross-validation, in one pass over the data.

How much to smooth depends on the corpus: short binary spam messages want little,
twenty topics of long newsgroup posts want a lot (``docs/text_accuracy.md``). A count
model is a function of per-class sums, so K-fold cross-validation needs no refitting
from the documents: the sums of the training part of a fold are the totals minus the
sums of the held-out part (:meth:`textnb.core.stats.CountTable.subtract`), and every
smoothing value is then just a different function of the same sums. So
:class:`SmoothingCV` scores a whole grid for little more than the cost of one fit and
K predictions per value.
"""


import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.metrics import f1_score
from sklearn.model_selection import ParameterGrid
from sklearn.pipeline import Pipeline
from sklearn.utils import get_tags
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from textnb.core.errors import InputError
from textnb.core.wrapping import groups_kwargs, takes_sample_weight, weight_kwargs
from textnb.naive_bayes.base import NestedParams, SaveMixin, WrapperTags
from textnb.core.folds import stratified_kfold, take_rows
from textnb.naive_bayes.base import given_splits, log_odds, with_choices, wrapped_documents
from textnb.core.model_io import register
from textnb.naive_bayes.kernels import all_or_nothing
from textnb.naive_bayes.scoring import check_sample_weight
from textnb.naive_bayes.discrete import _BaseCountNB
from textnb.core.stats import seen_columns
from textnb.core.model_schema import declare
from textnb.text.wrappers import (PIPELINE_PARAMS, SMOOTHING_GRID, SMOOTHING_PARAMS, SMOOTHING_STATE,
                                  fold_predictions, held_out_predictions)

__all__ = ["SmoothingCV", "weight_kwargs"]

# sklearn's Pipeline can be stored in model files: its parameters are its steps
register(Pipeline)
declare(Pipeline, PIPELINE_PARAMS, {})


def _split(estimator):
    """(transformers, final step name or None, final estimator)."""
    if isinstance(estimator, Pipeline):
        return [s for _, s in estimator.steps[:-1] if s not in (None, "passthrough")], \
            estimator.steps[-1][0], estimator.steps[-1][1]
    return [], None, estimator


def _score(y, pred, scoring, sample_weight=None):
    """The out-of-fold score, each object counting its weight (None: 1 each)."""
    if scoring == "accuracy":
        return float(np.average(y == pred, weights=sample_weight))
    return float(f1_score(y, pred, average="macro", sample_weight=sample_weight))


def _best(results):
    """The position of the best score of ``results`` (``(params, score)`` pairs), the first
    on ties, NaN scores last (0 when none is finite)."""
    return int(np.argmax([s if np.isfinite(s) else -np.inf for _, s in results]))


def _check_weights(who, estimator, sample_weight, n):
    """``sample_weight`` checked (:func:`~textnb.naive_bayes.scoring.check_sample_weight`; None
    stays None); InputError when the model they go to (a Pipeline's last step) takes none."""
    if sample_weight is None:
        return None
    _, _, final = _split(estimator)
    if not takes_sample_weight(final):
        raise InputError(f"{who} cannot take sample_weight: its estimator {type(final).__name__} does not learn "
                         "from sample weights")
    return check_sample_weight(sample_weight, n)


@register
class SmoothingCV(WrapperTags, SaveMixin, NestedParams, ClassifierMixin, BaseEstimator):
    """A count model (or a Pipeline ending in one) with its smoothing chosen by K-fold CV.

    For each setting of ``param_grid`` (``set_params`` names, as in
    :class:`~sklearn.model_selection.GridSearchCV`: ``{"alpha": [...]}`` for a model,
    ``{"multinomialnb__m": [...]}`` or ``{"multinomialnb": [MultinomialNB(m=300),
    ComplementNB()]}`` for a Pipeline) the out-of-fold predictions are scored; the best
    setting (the first in grid order on ties) is refitted on all the data. ``fit``'s
    ``sample_weight`` goes to every fit (each fold's and the final one's; for a Pipeline,
    to its last step) and weighs each held-out object's part in the score, so integer
    weights choose as the repeated rows would (with the same splits). A grid of one setting
    leaves nothing to choose: that setting is fitted on all the data without any
    cross-validation, and its score is NaN (``best_score_``; scikit-learn's GridSearchCV
    scores even one candidate: :func:`~sklearn.model_selection.cross_val_score` gives that
    figure). That is the SmoothingCV which :meth:`with_choices` gives for the models fitted
    on folds (CalibratedNB's, MultiLabelNB's, APNBC's with ``fit_on="cv"``): they fit the
    chosen setting and search nothing again.

    When the grid only changes the final count model and the steps before it are
    unsupervised (e.g. :class:`~textnb.text.weighting.TermWeighting`, fitted once on all
    the training matrix: document frequencies only, no labels), the folds are
    scored from the summed counts (totals minus the held-out fold) without refitting;
    otherwise every fold is refitted (slow path). On raw documents (a Pipeline starting
    with a :class:`~textnb.text.vectorizer.Vectorizer`) the steps before the count model
    are fitted on each fold's training part, as GridSearchCV fits them, so no word (nor
    document frequency) of the held-out fold enters its model; the count model is still
    not refitted per setting. On a matrix of counts with ``fit``'s ``fold_counts`` (what
    :class:`~textnb.text.classifier.TextClassifier` passes) each fold is scored the same way,
    on the columns of the vocabulary its training part gives.

    Parameters
    ----------
    estimator : classifier
        The model to tune; ``Pipeline(TermWeighting(), MultinomialNB())`` when None.
    param_grid : dict or list of dict, default=None
        The settings tried; when None, the m-estimate ``m`` of the final model over
        ``(30, 100, 300, 1000, 3000, 10000, 30000)``.
    cv : int, cross-validation splitter, iterable of (train, test) or None, default=5
        What scikit-learn's ``check_cv`` accepts. An int (None: 5): stratified folds
        (shuffled with ``random_state``; lowered to the size of the largest class). A
        splitter (``cv.split(X, y)``) or a list of ``(train, test)`` index arrays is
        used as given: each setting is scored on the predictions of every (split, test
        object) pair, so an object in no test part (``ShuffleSplit``) is not scored and
        one in several is scored once per split; splits whose training part is not the
        rest of the data are refitted (slow path). A splitter that needs ``groups``
        cannot be used (``fit`` takes none): give ``list(cv.split(X, y, groups))``. A
        model file stores an int or a list of splits, never a splitter object
        (:meth:`save` refuses it in one line). 5 is the default of every textnb
        estimator's ``cv`` (and scikit-learn's); ``textnb train --model auto`` builds
        ``SmoothingCV(cv=10)``, the 10-fold choice the README documents and
        docs/text_accuracy.md measured: pass ``cv=10`` for the command line's model.
    scoring : {"accuracy", "macro_f1"}, default="accuracy"
    random_state : int, default=0

    Attributes
    ----------
    estimator_ : classifier
        Refitted on all the data with ``best_params_``.
    best_params_ : dict
    best_index_ : int
        The position of ``best_params_`` in the grid (and in ``cv_results_``), as
        :class:`~sklearn.model_selection.GridSearchCV`'s.
    best_score_ : float
        The out-of-fold score of ``best_params_`` (``scoring``), as GridSearchCV's; NaN
        when nothing was scored (a grid of one setting: nothing to choose; a single class,
        too few objects for two folds).
    cv_results_ : list of (dict, float)
        Every setting with its out-of-fold score, in grid order (not GridSearchCV's
        dict of arrays: the model files keep this list; its ``params`` are the dicts,
        its ``mean_test_score`` the floats).
    classes_ : ndarray

    Examples
    --------
    >>> from textnb.meta.smoothing import SmoothingCV
    >>> from textnb import MultinomialNB
    >>> X = [[3, 0, 1], [2, 0, 0], [4, 1, 0], [0, 4, 1], [0, 3, 0], [1, 5, 0]] * 2
    >>> y = ["ham", "ham", "ham", "spam", "spam", "spam"] * 2
    >>> SmoothingCV(MultinomialNB(), param_grid={"alpha": [1.0, 0.1]}, cv=2).fit(X, y).best_params_
    {'alpha': 1.0}
    """

    #: capability (:mod:`textnb.core.wrapping`): why there is no ``merge`` (``textnb merge`` says it)
    merge_refusal = "its smoothing is chosen by cross-validation on all its training data"

    _param_schema = SMOOTHING_PARAMS
    _state_schema = SMOOTHING_STATE

    def __init__(self, estimator=None, *, param_grid=None, cv=5, scoring="accuracy", random_state=0):
        self.estimator = estimator
        self.param_grid = param_grid
        self.cv = cv
        self.scoring = scoring
        self.random_state = random_state

    def _base(self):
        if self.estimator is not None:
            return self.estimator
        from textnb.naive_bayes.discrete import MultinomialNB
        from textnb.text.weighting import TermWeighting

        return Pipeline([("termweighting", TermWeighting()), ("multinomialnb", MultinomialNB())])

    def _grid(self, base):
        if self.param_grid is not None:
            return list(ParameterGrid(self.param_grid))
        _, name, _ = _split(base)
        params = base.get_params(deep=True)
        key = "m" if name is None else f"{name}__m"
        if key not in params and "model__m" in params:  # a TextClassifier of a count model
            key = "model__m"
        if key not in params:
            raise ValueError(f"SmoothingCV's default grid tunes the m of a count model, which "
                             f"{type(base).__name__} has not: give param_grid (e.g. {{'model__alpha': [0.1, 1.0]}})")
        return [{key: m} for m in SMOOTHING_GRID]

    @all_or_nothing
    def fit(self, X, y, sample_weight=None, fold_counts=None, groups=None):
        """Score every setting by cross-validation, then refit the best; returns self
        (one setting: fitted without cross-validation, see the class docstring).
        ``sample_weight``: see the class docstring (InputError when the model takes none).

        ``fold_counts``: for a matrix ``X`` of counts that a vectorizer learnt from all the
        documents, ``fold_counts(train)`` gives the counts of every document over the
        vocabulary that the documents ``train`` alone give (what
        :class:`~textnb.text.classifier.TextClassifier` passes: its vectorizer's pruning
        applied to each fold's training part). Each fold is then scored on those
        columns, as on raw documents, so no word of a held-out part enters its model;
        the best setting is still refitted on ``X``. None: every fold on ``X``'s columns.

        ``groups`` (one value per row; :func:`textnb.core.wrapping.takes_groups`): the folds
        made of an int ``cv`` keep a group's rows on one side (the copies of a document,
        one per label, that :class:`~textnb.meta.multilabel.MultiLabelNB`'s copy model is
        fitted on: :func:`textnb.core.folds.stratified_kfold`); given splits are used as given.
        A model that makes folds of its own (a DiscriminativeNB, behind Pipeline steps too)
        gets them in each fit (:func:`textnb.core.wrapping.groups_kwargs`)."""
        if self.scoring not in ("accuracy", "macro_f1"):
            raise ValueError(f"scoring must be 'accuracy' or 'macro_f1'; got {self.scoring!r}")
        base = self._base()
        docs = wrapped_documents(self, base, X)
        if docs is None:
            X, y = validate_data(self, X, y, accept_sparse="csr", reset=True)
        else:  # raw documents, for a model of documents (as GridSearchCV passes them on)
            X, y = docs, column_or_1d(y, warn=True)
            if len(y) != len(X):
                raise ValueError(f"X has {len(X)} documents but y has {len(y)} labels")
            for name in ("n_features_in_", "feature_names_in_"):  # (of an earlier fit on a matrix)
                self.__dict__.pop(name, None)
        splits = given_splits(self.cv, X, y)
        check_classification_targets(y)
        sw = _check_weights("SmoothingCV", base, sample_weight, len(y))
        grid = self._grid(base)
        if not grid:
            raise ValueError("param_grid is empty")
        self.classes_, y_index = np.unique(y, return_inverse=True)
        counts = np.bincount(y_index)
        n_splits = len(splits) if splits is not None else int(min(5 if self.cv is None else self.cv, counts.max()))
        if len(grid) == 1 or len(self.classes_) < 2 or n_splits < (1 if splits is not None else 2):
            # (one setting: nothing to choose, so nothing cross-validated -- the fold models
            # of with_choices fit the chosen setting as it is; too few data: nothing to score)
            self.cv_results_ = [(dict(p), float("nan")) for p in grid]
        else:
            if splits is None:
                # (a class with fewer objects than folds is spread over as many folds as it has)
                splits = stratified_kfold(y, n_splits, self.random_state, groups=groups)
            fast = self._fast_scores(base, grid, X, y, y_index, splits, sw, docs is not None, fold_counts)
            scores = fast if fast is not None else self._slow_scores(base, grid, X, y, splits, sw, fold_counts,
                                                                     groups)
            self.cv_results_ = [(dict(p), s) for p, s in zip(grid, scores)]
        self.best_params_ = dict(grid[_best(self.cv_results_)])
        final = clone(base).set_params(**self.best_params_)
        self.estimator_ = final.fit(X, y, **({} if sw is None else weight_kwargs(final, sw)),
                                    **groups_kwargs(final, groups))
        return self

    def _fast_scores(self, base, grid, X, y, y_index, splits, sw=None, documents=False, fold_counts=None):
        transformers, name, _ = _split(base)
        if any(get_tags(t).target_tags.required for t in transformers):
            return None  # supervised steps (feature selection) must be refitted per fold
        prefix = "" if name is None else f"{name}__"
        finals = []
        for p in grid:
            cand = clone(base).set_params(**p)
            ts, _, final = _split(cand)
            if not isinstance(final, _BaseCountNB):
                return None
            if name is not None and any(not (k == name or k.startswith(prefix)) for k in p):
                return None
            finals.append(final)
        if any(len(train) + len(test) != len(y) or np.intersect1d(train, test).size for train, test in splits):
            return None  # the held-out sums need each training part to be the rest of the data
        if any(final._kernel.rows for final in finals):
            finals[0].fit_counts(self.classes_, None, None)  # (DiscriminativeNB: TypeError, as always)
        kernels = [(final._kernel, final._kernel_params()) for final in finals]

        def transformed(rows):  # the steps fitted on the objects ``rows``, applied to all
            Xt = X if fold_counts is None or rows is None else fold_counts(rows)
            for t in transformers:
                Xt = clone(t).fit_transform(Xt) if rows is None else clone(t).fit(take_rows(Xt, rows)).transform(Xt)
            return sp.csr_matrix(Xt, dtype=np.float64)

        if (documents and transformers) or fold_counts is not None:  # a vocabulary per fold: from its training part
            preds, tested = fold_predictions(transformed, y_index, len(self.classes_), self.classes_, splits,
                                             kernels, sample_weight=sw)
        else:
            preds, tested = held_out_predictions(transformed(None), y_index, len(self.classes_), self.classes_,
                                                 splits, kernels, sample_weight=sw)
        w = None if sw is None else sw[tested]
        return [_score(y_index[tested], p, self.scoring, w) for p in preds]

    def _slow_scores(self, base, grid, X, y, splits, sw=None, fold_counts=None, groups=None):
        scores = []
        for p in grid:
            pred = []
            for train, test in splits:
                model = clone(base).set_params(**p)
                if fold_counts is not None:  # (``X`` over the fold's own vocabulary)
                    X = sp.csr_matrix(fold_counts(train), dtype=np.float64)
                kw = {} if sw is None else weight_kwargs(model, sw[train])
                kw.update(groups_kwargs(model, None if groups is None else np.asarray(groups)[train]))
                if X.ndim == 1:  # documents: the model counts them
                    model.fit(X[train], y[train], **kw)
                    pred.append(np.asarray(model.predict(X[test]), dtype=object))
                    continue
                # (the columns of the objects that weigh something: those of the repeated rows)
                cols = seen_columns(X[train] if sw is None else X[train[sw[train] > 0]])
                model.fit(X[train][:, cols], y[train], **kw)
                pred.append(np.asarray(model.predict(X[test][:, cols]), dtype=object))
            tested = np.concatenate([test for _, test in splits])
            scores.append(_score(y[tested].astype(object), np.concatenate(pred), self.scoring,
                                 None if sw is None else sw[tested]))
        return scores

    def with_choices(self):
        """Capability (:func:`textnb.naive_bayes.base.with_choices`): this search, unfitted,
        over the one setting it chose (``best_params_`` as the grid; its estimator with any
        choice it made in turn fixed too): a model fitted on part of the data in its place
        fits that setting, where a search of its own may choose another, whose scores are on
        another scale. (A SmoothingCV, not its estimator: the model keeps its interface, e.g.
        the joint log probabilities APNBC weighs, which a Pipeline does not give.) Its fit
        cross-validates nothing (a grid of one setting): the fold model is the chosen
        setting's estimator fitted on the fold, with no search of that setting inside it."""
        check_is_fitted(self, "estimator_")
        chosen = with_choices(self.estimator_)
        estimator = self.estimator if chosen is None else chosen
        return clone(self).set_params(estimator=estimator,
                                      param_grid={name: [value] for name, value in self.best_params_.items()})

    @property
    def best_index_(self):
        """The grid position of ``best_params_`` (GridSearchCV's ``best_index_``): the
        first setting of the best finite score, as ``fit`` chose it. Derived from
        ``cv_results_``, so a model read from a file written before it existed has it."""
        check_is_fitted(self, "cv_results_")
        return _best(self.cv_results_)

    @property
    def best_score_(self):
        """The out-of-fold score of ``best_params_`` (GridSearchCV's ``best_score_``)."""
        return float(self.cv_results_[self.best_index_][1])

    # -- prediction: the refitted estimator ------------------------------------------------
    def _check_X(self, X):
        docs = wrapped_documents(self, self._base(), X)
        return validate_data(self, X, accept_sparse="csr", reset=False) if docs is None else docs

    def predict(self, X):
        check_is_fitted(self)
        return self.estimator_.predict(self._check_X(X))

    def predict_log_proba(self, X):
        check_is_fitted(self)
        return self.estimator_.predict_log_proba(self._check_X(X))

    def predict_proba(self, X):
        check_is_fitted(self)
        return self.estimator_.predict_proba(self._check_X(X))

    def predict_joint_log_proba(self, X):
        """Joint log likelihood of the refitted model (through its Pipeline steps)."""
        check_is_fitted(self)
        X = self._check_X(X)
        transformers, _, final = _split(self.estimator_)
        for t in transformers:
            X = t.transform(X)
        return final.predict_joint_log_proba(X)

    def predict_log_odds(self, X):
        """Per-class log-odds ``log P(c|x) − log P(¬c|x)`` (no saturation)."""
        check_is_fitted(self)
        return log_odds(self.predict_log_proba(X))

