"""Multi-label training and evaluation without scikit-learn (``textnb train`` / ``evaluate``).

The default multi-label model of the command line, ``Pipeline([("vectorizer",
Vectorizer(...)), ("model", MultiLabelNB(DiscriminativeNB(...), method="copy", ...))])``,
computed by the functions the estimators run -- :func:`textnb.text.training.learn_counts`
(the Vectorizer's counts), :func:`textnb.core.dfe.fit_out_of_fold` (DiscriminativeNB's one
training with its out-of-fold scores) and the multi-label kernel
:mod:`textnb.meta.labelsets` (folds, thresholds, decisions, measures) -- without building
the estimators, so that the command imports no scikit-learn (as :func:`textnb.text.training.train_text_model`
does for a single-label model). :func:`model_node` is the model file's tree, byte for byte
what the fitted Pipeline saves; :func:`evaluate_split` is
:func:`textnb.meta.multilabel.evaluate_multilabel_split` of that model.

Other multi-label models (``method="ovr"``, another base model, a number of folds of one
document) are fitted by the estimators (:func:`fits` says which).
"""

from dataclasses import dataclass, field

import numpy as np

from textnb.core import dfe
from textnb.core.logspace import logsumexp
from textnb.core.model_io import ModelNode
from textnb.naive_bayes.kernels import DISCRIMINATIVE
from textnb.meta.labelsets import (MULTILABEL_DEFAULTS, SMALL, _finite, copy_out_of_fold, copy_scores, decide, decision, kfold,
                                   label_indicator, label_support, test_report)
from textnb.text.ascii_tokens import TermKeys
from textnb.text.defaults import VECTORIZER_DEFAULTS
from textnb.text.tokenize import analyzer_from_params, count_batch, encode_terms
from textnb.text.training import check_vocabulary_params, finish_counts, learn_counts

__all__ = ["MULTILABEL_DEFAULTS", "MultiLabelFit", "count", "decision_function", "evaluate_split", "fit", "fits",
           "model_node", "transform"]



@dataclass
class MultiLabelFit:
    """A fitted default multi-label text model: the vocabulary, the copy model's state
    (DiscriminativeNB's, :data:`textnb.naive_bayes.kernels.DISCRIMINATIVE`) and the
    decisions (the fitted attributes of :class:`~textnb.meta.multilabel.MultiLabelNB`,
    same names)."""

    vectorizer: dict
    model: dict
    multilabel: dict
    terms: np.ndarray
    n_features_in_: int
    classes_: np.ndarray
    train_support_: np.ndarray
    constant_: np.ndarray
    strategy_: str
    choices: dict
    estimator_: dict
    thresholds_: np.ndarray
    weights: dict = field(default=None, repr=False)

    @property
    def method(self):
        return self.multilabel["method"]

    @property
    def min_labels(self):
        return self.multilabel["min_labels"]

    @property
    def threshold(self):
        return self.multilabel["threshold"]

    def __getattr__(self, name):  # fbr_, rank_, pcut_rate_
        choices = self.__dict__.get("choices") or {}
        if name in choices:
            return choices[name]
        raise AttributeError(name)


def fits(model, multilabel, n_documents):
    """Whether :func:`fit` computes this model: ``model`` ``(kind, params)`` (the base
    model of :func:`textnb.meta.registry.streaming_model`), ``multilabel`` MultiLabelNB's
    parameters given, over ``n_documents`` training documents: the copy method over
    DiscriminativeNB with out-of-fold scores from its one training."""
    params = {**MULTILABEL_DEFAULTS, **multilabel}
    folds = 5 if n_documents < SMALL else 2
    return (model is not None and model[0] == "DiscriminativeNB" and params["method"] == "copy"
            and params["cv"] is None and params["threshold"] in ("scutfbr", "scut", "rcut", "pcut")
            and min(folds, n_documents) >= 2)


def count(texts, vectorizer=None):
    """``(X, terms)``: the counts of the training ``texts`` and the vocabulary, as
    ``Vectorizer(**vectorizer).fit_transform(texts)`` gives them."""
    vec = {**VECTORIZER_DEFAULTS, **(vectorizer or {})}
    check_vocabulary_params(vec["min_df"], vec["max_df"], vec["max_features"])
    X, terms = learn_counts(list(texts), analyzer_from_params(vec), min_df=vec["min_df"], max_df=vec["max_df"],
                            max_features=vec["max_features"], binary=vec["binary"])
    return finish_counts(X, binary=vec["binary"], dtype=vec["dtype"]), terms


def transform(texts, terms, vectorizer=None):
    """The counts of ``texts`` over the vocabulary ``terms`` (unknown terms dropped), as
    the fitted Vectorizer's ``transform`` gives them."""
    vec = {**VECTORIZER_DEFAULTS, **(vectorizer or {})}
    X = count_batch(list(texts), analyzer_from_params(vec), TermKeys(list(terms)), grow=False)
    return finish_counts(X, binary=vec["binary"], dtype=vec["dtype"])


def fit(X, terms, label_sets, *, vectorizer=None, model=("DiscriminativeNB", {}), multilabel=None, progress=None):
    """Fit the default multi-label text model on the counts ``X`` (:func:`count`, over the
    vocabulary ``terms``) of documents with ``label_sets`` (collections of labels): what
    ``Pipeline([("vectorizer", Vectorizer(**vectorizer)), ("model",
    MultiLabelNB(DiscriminativeNB(**params), **multilabel))]).fit(texts, label_sets)``
    fits (``model = ("DiscriminativeNB", params)``), with the same numbers;
    ``progress(done, total)`` is told of the one training. :func:`fits` must hold."""
    multilabel = {**MULTILABEL_DEFAULTS, **(multilabel or {})}
    n = X.shape[0]
    if not fits(model, multilabel, n):
        raise ValueError("multilabel_training fits the copy method over DiscriminativeNB only")
    vec_params = {**VECTORIZER_DEFAULTS, **(vectorizer or {})}
    dnb_params = DISCRIMINATIVE.params(model[1])
    DISCRIMINATIVE.check_params(dnb_params)
    Y, classes = label_indicator(label_sets)
    if Y.shape[0] != n:
        raise ValueError(f"X has {n} rows but {Y.shape[0]} label sets")
    train_support, constant = label_support(Y)
    strategy = multilabel["threshold"]
    splits = kfold(n, min(5 if n < SMALL else 2, n), multilabel["random_state"])
    if progress is not None:
        progress(0, 1)

    def fit_out_of_fold(X_rows, codes, fold, document):
        model_classes, y_index = np.unique(codes, return_inverse=True)
        family, alpha, fc, cc, documents, scale, log_proba = dfe.fit_out_of_fold(
            dfe.canonical(X_rows), y_index, len(model_classes), fold, document, params=dnb_params)
        state = DISCRIMINATIVE.to_state({
            "classes_": model_classes, "n_features_in_": X.shape[1], "class_count_": cc, "feature_count_": fc,
            "event_model_": family, "alpha_": alpha, "class_documents_": documents, "scale_": scale})
        return state, model_classes, log_proba

    (estimator, _), S = copy_out_of_fold(X.astype(np.float64), Y, splits, fit_out_of_fold)
    if progress is not None:
        progress(1, 1)
    thresholds, choices = decide(_finite(S), Y.astype(bool), strategy, fbr=multilabel["fbr"],
                                 rank=multilabel["rank"], min_labels=multilabel["min_labels"],
                                 seed=multilabel["random_state"])
    thresholds[constant != -1] = 0.0
    return MultiLabelFit(vectorizer=vec_params, model=dnb_params, multilabel=multilabel,
                         terms=np.asarray(terms, dtype=object), n_features_in_=X.shape[1], classes_=classes,
                         train_support_=train_support, constant_=constant, strategy_=strategy, choices=choices,
                         estimator_=estimator, thresholds_=thresholds)


def _saved(params):
    """A model's parameters as its file holds them: sorted, without how it was computed."""
    return {k: params[k] for k in sorted(params) if k not in DISCRIMINATIVE.execution_params}


def model_node(fitted):
    """The model file's tree (:class:`~textnb.core.model_io.ModelNode`) of ``fitted``: the
    Pipeline of the Vectorizer and the MultiLabelNB that the estimators save, the same bytes."""
    vec_params = {k: fitted.vectorizer[k] for k in sorted(fitted.vectorizer)}
    vectorizer = ModelNode("Vectorizer", vec_params, encode_terms(fitted.terms.tolist()))
    dnb = _saved(fitted.model)
    state = {"n_features_in_": fitted.n_features_in_, "classes_": fitted.classes_, "multilabel_": True,
             "train_support_": fitted.train_support_, "constant_": fitted.constant_, "strategy_": fitted.strategy_,
             **fitted.choices}
    if fitted.estimator_ is not None:
        state["estimator_"] = ModelNode("DiscriminativeNB", dnb, fitted.estimator_)
    state["thresholds_"] = fitted.thresholds_
    params = {k: fitted.multilabel[k] for k in sorted(MULTILABEL_DEFAULTS)}
    params["estimator"] = ModelNode("DiscriminativeNB", dnb, {})
    params = {k: params[k] for k in sorted(params)}
    model = ModelNode("MultiLabelNB", params, state)
    return ModelNode("Pipeline", {"memory": None, "steps": [("vectorizer", vectorizer), ("model", model)],
                                  "transform_input": None, "verbose": False}, {})


def decision_function(fitted, X):
    """:meth:`MultiLabelNB.decision_function <textnb.meta.multilabel.MultiLabelNB.decision_function>`
    of the fitted model for counts ``X`` (:func:`transform`): positive where a label is
    assigned."""
    state = fitted.estimator_
    if state is None:  # every label constant
        S = np.zeros((X.shape[0], len(fitted.constant_)))
        S[:, fitted.constant_ == 1], S[:, fitted.constant_ == 0] = np.inf, -np.inf
    else:
        if fitted.weights is None:
            fitted.weights = DISCRIMINATIVE.estimate(fitted.model, state)
        jll = DISCRIMINATIVE.joint_log_likelihood(fitted.model, state, fitted.weights, X.astype(np.float64))
        S = copy_scores(state["classes_"], jll - logsumexp(jll, axis=1, keepdims=True), fitted.constant_)
    return decision(S, fitted.strategy_, fitted.thresholds_, fitted.min_labels,
                    rank=fitted.choices.get("rank_"), pcut_rate=fitted.choices.get("pcut_rate_"))


def evaluate_split(X, terms, label_sets, X_test, test_label_sets, *, vectorizer=None,
                   model=("DiscriminativeNB", {}), multilabel=None, progress=None):
    """Train on one part (counts ``X`` over ``terms``) and test on the other (``X_test``,
    :func:`transform`), as :func:`textnb.meta.multilabel.evaluate_multilabel_split` does
    for this model: the same report."""
    fitted = fit(X, terms, label_sets, vectorizer=vectorizer, model=model, multilabel=multilabel, progress=progress)
    return test_report(fitted.classes_, fitted.train_support_, decision_function(fitted, X_test), test_label_sets,
                       X.shape[0])
