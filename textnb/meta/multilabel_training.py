"""Multi-label training and evaluation without scikit-learn (``textnb train`` / ``evaluate``).

The multi-label models of the command line, ``Pipeline([("vectorizer", Vectorizer(...)),
("model", MultiLabelNB(base, method=..., threshold=..., min_labels=...))])`` with ``base``
a count model (multinomial, Bernoulli, complement, DiscriminativeNB), with Pipeline steps
(``--select``, ``--weighting``) in front of it or a wrapper (SmoothingCV, CalibratedNB,
APNBC) around it -- what :func:`textnb.meta.registry.streaming_model` describes -- computed
by the functions the estimators run, without building them, so that the command imports no
scikit-learn (as :func:`textnb.text.training.train_text_model` does for a single-label
model):

* the counts: :func:`textnb.text.training.learn_counts` (the Vectorizer's);
* the score models: :func:`textnb.text.training.fit_model` (the count kernels, the steps,
  the wrappers), scored by :func:`textnb.text.scorer.scorer_from_node`; for the copy method
  over a bare DiscriminativeNB, :func:`textnb.core.dfe.fit_out_of_fold` (one training with
  its out-of-fold scores); for one-vs-rest over a bare count model, every label's sums from
  one product, as :class:`~textnb.meta.multilabel.MultiLabelNB` builds them;
* the decisions: the multi-label kernel :mod:`textnb.meta.labelsets` (folds, thresholds,
  decisions, measures).

:func:`model_node` is the model file's tree, byte for byte what the fitted Pipeline saves;
:func:`evaluate_split` is :func:`textnb.meta.multilabel.evaluate_multilabel_split` of that
model. A ``cv`` other than None (a splitter) is left to the estimators (:func:`fits`).
"""

from dataclasses import dataclass, field

import numpy as np

from textnb.core import dfe
from textnb.core.logspace import log_odds
from textnb.core.model_io import ModelNode
from textnb.core.stats import seen_columns
from textnb.naive_bayes.kernels import DISCRIMINATIVE, KERNELS
from textnb.meta.labelsets import (MULTILABEL_DEFAULTS, SMALL, _finite, check_rank, copies, copy_out_of_fold, copy_scores, decide,
                                   decision, document_folds, kfold, label_indicator, label_probabilities, label_support, naming_the_label, test_report)
from textnb.text.ascii_tokens import TermKeys
from textnb.text.defaults import VECTORIZER_DEFAULTS
from textnb.text.scorer import scorer_from_node
from textnb.text.tokenize import analyzer_from_params, count_batch, encode_terms, fitting_analyzer
from textnb.text.training import (RowFoldCounts, check_vocabulary_params, finish_counts, fit_model, fold_vocabularies,
                                  learn_counts, takes_fold_counts_spec, vectorizer_prunes, with_choices)

__all__ = ["MULTILABEL_DEFAULTS", "MultiLabelFit", "count", "cross_validate", "decision_function", "evaluate_split",
           "fit", "fits",
           "model_node", "transform"]


@dataclass
class MultiLabelFit:
    """A fitted multi-label text model: the vocabulary, the score model(s) as model-file
    nodes and the decisions (the fitted attributes of
    :class:`~textnb.meta.multilabel.MultiLabelNB`, same names)."""

    vectorizer: dict
    template: ModelNode
    multilabel: dict
    terms: np.ndarray
    n_features_in_: int
    classes_: np.ndarray
    train_support_: np.ndarray
    constant_: np.ndarray
    strategy_: str
    choices: dict
    estimator_: object  # copy: the fitted node (None: every label constant)
    estimators_: list  # ovr: a fitted node per label (None: a constant label)
    thresholds_: np.ndarray
    scorers: object = field(default=None, repr=False)

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


def _folds(n_documents):
    return min(5 if n_documents < SMALL else 2, n_documents)


def _dnb_copy(model, steps, method):
    """The copy method over a bare DiscriminativeNB: one training, the out-of-fold scores from its sums."""
    return method == "copy" and not steps and model[0] == "DiscriminativeNB"


def fits(model, multilabel, label_sets, steps=()):
    """Whether :func:`fit` computes this model: ``model`` ``(kind, params)`` and ``steps``
    as :func:`textnb.meta.registry.streaming_model` gives them (None: not a model it
    describes), ``multilabel`` MultiLabelNB's parameters given, over documents of
    ``label_sets``: a number of folds (``cv`` None), a thresholding strategy, and some
    label neither on every document nor on none."""
    params = {**MULTILABEL_DEFAULTS, **multilabel}
    if model is None or params["cv"] is not None or params["method"] not in ("copy", "ovr") \
            or params["threshold"] not in ("scutfbr", "scut", "rcut", "pcut"):
        return False
    Y, _ = label_indicator(label_sets)
    return len(label_sets) > 0 and bool((label_support(Y)[1] == -1).any())


def count(texts, vectorizer=None, *, folds=False):
    """``(X, terms)``: the counts of the training ``texts`` and the vocabulary, as
    ``Vectorizer(**vectorizer).fit_transform(texts)`` gives them; with ``folds``, ``(X,
    terms, fold_counts)``, ``fold_counts`` the :class:`~textnb.text.training.FoldVocabularies`
    of the texts (their counts over every term they have) that :func:`fit` takes, as a
    ``TextClassifier`` gives them to its model."""
    vec = {**VECTORIZER_DEFAULTS, **(vectorizer or {})}
    check_vocabulary_params(vec["min_df"], vec["max_df"], vec["max_features"])
    texts = list(texts)
    analyzer = fitting_analyzer(vec)
    X, terms = learn_counts(texts, analyzer, min_df=vec["min_df"], max_df=vec["max_df"],
                            max_features=vec["max_features"], binary=vec["binary"])
    X = finish_counts(X, binary=vec["binary"], dtype=vec["dtype"])
    if not folds:
        return X, terms
    every, every_terms = X, terms
    if vectorizer_prunes(vec):  # (else the vocabulary is every term)
        every, every_terms = learn_counts(texts, analyzer, binary=vec["binary"])
        every = finish_counts(every, binary=vec["binary"], dtype=vec["dtype"])
    return X, terms, fold_vocabularies(every, vec, every_terms)


def transform(texts, terms, vectorizer=None):
    """The counts of ``texts`` over the vocabulary ``terms`` (unknown terms dropped), as
    the fitted Vectorizer's ``transform`` gives them."""
    vec = {**VECTORIZER_DEFAULTS, **(vectorizer or {})}
    X = count_batch(list(texts), analyzer_from_params(vec), TermKeys(list(terms)), grow=False)
    return finish_counts(X, binary=vec["binary"], dtype=vec["dtype"])


def fit(X, terms, label_sets, *, vectorizer=None, model=("DiscriminativeNB", {}), steps=(), multilabel=None,
        progress=None, fold_counts=None):
    """Fit the multi-label text model on the counts ``X`` (:func:`count`, over the
    vocabulary ``terms``) of documents with ``label_sets`` (collections of labels): what
    ``Pipeline([("vectorizer", Vectorizer(**vectorizer)), ("model", MultiLabelNB(base,
    **multilabel))]).fit(texts, label_sets)`` fits, ``base`` the model ``model`` with the
    Pipeline ``steps`` in front of it (as :func:`textnb.text.training.fit_model` takes
    them), with the same numbers; ``progress(done, total)`` is told of each model fitted,
    as the estimator tells it. ``fold_counts`` (:func:`count` with ``folds``): what
    ``MultiLabelNB.fit`` takes, the folds inside training each on the vocabulary of its
    training part. :func:`fits` must hold."""
    multilabel = {**MULTILABEL_DEFAULTS, **(multilabel or {})}
    if not fits(model, multilabel, label_sets, steps):
        raise ValueError("multilabel_training fits a number of folds and a thresholding strategy, "
                         "over a model of streaming_model")
    Y, classes = label_indicator(label_sets)
    if Y.shape[0] != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but {Y.shape[0]} label sets")
    if multilabel["threshold"] == "rcut":  # (before any model is fitted)
        check_rank(multilabel["rank"], Y)
    return _fit(X, Y, classes, terms, {**VECTORIZER_DEFAULTS, **(vectorizer or {})}, model, steps, multilabel,
                progress, fold_counts)


def _fit(X, Y, classes, terms, vec_params, model, steps, multilabel, progress=None, fold_counts=None):
    """:func:`fit` of the documents of labels ``Y`` (0/1, n x len(classes)); ``fold_counts``
    as :meth:`MultiLabelNB.fit <textnb.meta.multilabel.MultiLabelNB.fit>` takes them: each
    out-of-fold model on its fold's own vocabulary, and the model's own folds too."""
    n = X.shape[0]
    train_support, constant = label_support(Y)
    strategy, method, seed = multilabel["threshold"], multilabel["method"], multilabel["random_state"]
    X = X.astype(np.float64)
    X.sort_indices()
    n_splits = _folds(n)
    estimator, estimators = None, None
    from_sums = fold_counts is None or getattr(fold_counts, "prunes", True) is False  # (the other folds' terms)
    if _dnb_copy(model, steps, method) and n_splits >= 2 and from_sums:  # one training, the out-of-fold scores from its sums
        if progress is not None:
            progress(0, 1)
        (estimator, template), S = _dnb_copy_out_of_fold(X, Y, model[1], kfold(n, n_splits, seed))
        if progress is not None:
            progress(1, 1)
    else:
        total = (5 if n < SMALL else 2) + 1
        if progress is not None:
            progress(0, total)
        fitted, template = _fit_scores(model, steps, method, X, Y, classes, fold_counts)
        if progress is not None:
            progress(1, total)
        S = np.zeros(Y.shape)
        if n_splits >= 2:
            each = _fold_models(model, steps, method, fitted)  # the out-of-fold models keep the choices it made
            parts, rows = [], []
            for k, (train, test) in enumerate(kfold(n, n_splits, seed), 2):
                inner = None
                if fold_counts is not None:  # the fold's own vocabulary, pruned on its training documents
                    Xf = fold_counts(train).astype(np.float64)
                    Xk, Xt, inner = Xf[train], Xf[test], RowFoldCounts(fold_counts, train)
                else:
                    cols = seen_columns(X[train])
                    Xk, Xt = X[train][:, cols], X[test][:, cols]
                Xk.sort_indices()
                fold, _ = _fit_scores(model, steps, method, Xk, Y[train], classes, inner, each=each)
                Xt.sort_indices()
                parts.append(_scores(fold, label_support(Y[train])[1], method, Xt))
                rows.append(test)
                if progress is not None:
                    progress(k, total)
            S[np.concatenate(rows)] = np.vstack(parts)
        estimator, estimators = (fitted, None) if method == "copy" else (None, fitted)
    thresholds, choices = decide(_finite(S), Y.astype(bool), strategy, fbr=multilabel["fbr"],
                                 rank=multilabel["rank"], min_labels=multilabel["min_labels"], seed=seed)
    thresholds[constant != -1] = 0.0
    return MultiLabelFit(vectorizer=vec_params, template=template, multilabel=multilabel,
                         terms=np.asarray(terms, dtype=object), n_features_in_=X.shape[1], classes_=classes,
                         train_support_=train_support, constant_=constant, strategy_=strategy, choices=choices,
                         estimator_=estimator, estimators_=estimators, thresholds_=thresholds)


def _fold_models(model, steps, method, fitted):
    """What the out-of-fold models behind the thresholds fit, given the node(s) ``fitted``
    on all the training documents (:func:`_fit_scores` of ``model`` and ``steps``): each
    with the choices it made kept (:func:`textnb.text.training.with_choices`: a
    DiscriminativeNB's event model and smoothing, a SmoothingCV's setting), as
    :func:`textnb.meta.multilabel._fold_base` gives the estimator's: the copy method one
    ``(model, steps)``, one-vs-rest one per label (None for a constant label)."""
    if method == "copy":
        return [None if fitted is None else (with_choices(model, steps, fitted) or (model, steps))]
    return [None if node is None else (with_choices(model, steps, node) or (model, steps)) for node in fitted]


def _dnb_copy_out_of_fold(X, Y, given, splits):
    """``((fitted node, template node), S)``: the copy model over DiscriminativeNB(**given)
    of every document and the out-of-fold log-odds ``S``, from one training
    (:func:`textnb.meta.labelsets.copy_out_of_fold`, :func:`textnb.core.dfe.fit_out_of_fold`),
    as MultiLabelNB computes them."""
    params = DISCRIMINATIVE.params(given)
    DISCRIMINATIVE.check_params(params)
    saved = {k: params[k] for k in sorted(params) if k not in DISCRIMINATIVE.execution_params}

    def fit_out_of_fold(X_rows, codes, fold, document):
        model_classes, y_index = np.unique(codes, return_inverse=True)
        family, alpha, step, ratios, fc, cc, documents, scale, log_proba = dfe.fit_out_of_fold(
            dfe.canonical(X_rows), y_index, len(model_classes), fold, document, params=params)
        state = DISCRIMINATIVE.to_state({
            "classes_": model_classes, "n_features_in_": X.shape[1], "class_count_": cc, "feature_count_": fc,
            "event_model_": family, "alpha_": alpha, "class_documents_": documents, **dfe.scale_state(scale),
            "step_": step, "ratios_": ratios})
        return ModelNode("DiscriminativeNB", saved, state), model_classes, log_proba

    (estimator, _), S = copy_out_of_fold(X, Y, splits, fit_out_of_fold)
    return (estimator, ModelNode("DiscriminativeNB", saved, {})), S


def _fit_scores(model, steps, method, X, Y, names, fold_counts=None, each=None):
    """``(fitted, template)``: the model(s) behind the scores of labels ``Y`` (n, n_labels)
    on the counts ``X`` (CSR, float64, sorted indices), as model-file nodes -- the copy
    model (None when every label is constant), or a binary model per label (``method``
    "ovr"; None for a constant label) -- and the unfitted model's node: what
    :meth:`MultiLabelNB._fit_scores <textnb.meta.multilabel.MultiLabelNB._fit_scores>` fits,
    through :func:`textnb.text.training.fit_model`. One-vs-rest over a bare multinomial,
    Bernoulli or complement model: every label's sums from one product ``Y.T @ X``, as the
    estimator (integer sums: the same numbers as label by label). ``names``: the labels of
    the columns of ``Y`` (for errors). ``fold_counts`` (of the rows of ``X``): handed on to a
    model that takes them (:func:`textnb.text.training.takes_fold_counts_spec`), for the
    copies it is fitted on (:class:`~textnb.text.training.RowFoldCounts`) or the documents.
    ``each`` (:func:`_fold_models`): the ``(model, steps)`` to fit instead, the copy model's
    or one per label (the out-of-fold models, with the choices of the final ones)."""
    n, m = Y.shape
    live = np.flatnonzero(label_support(Y)[1] == -1)
    if each is not None and method == "copy" and live.size:
        model, steps = each[0]
    elif each is not None and method != "copy":
        return _fit_each(each, X, Y, names, fold_counts), None
    if fold_counts is not None and not takes_fold_counts_spec(model):
        fold_counts = None
    template = None
    if method == "copy":
        if not live.size:
            return None, None
        rows, codes = copies(Y, live)
        classes, y_index = np.unique(codes, return_inverse=True)
        with naming_the_label(names, Y=Y):
            # (groups: the folds of a SmoothingCV, a calibration or an APNBC keep a document's copies together)
            return fit_model(model, steps, classes, X[rows], y_index,
                             fold_counts=None if fold_counts is None else RowFoldCounts(fold_counts, rows),
                             groups=rows)
    nodes = [None] * m
    if not steps and model[0] in KERNELS and not KERNELS[model[0]].rows:
        import scipy.sparse as sp

        from textnb.core.stats import CountTable

        kind, kernel = model[0], KERNELS[model[0]]
        params = kernel.params(model[1])
        kernel.check_params(params, X.shape[1])
        saved = {k: v for k, v in params.items() if k not in kernel.execution_params}
        F = kernel.features(params, X)
        table = CountTable(m, X.shape[1]).add(F, sp.csr_matrix(Y, dtype=np.float64))
        total = np.asarray(F.sum(axis=0)).ravel()
        n_pos = Y.sum(axis=0)
        for j in live:
            pos = table.feature_count[j]
            state = kernel.to_state({"classes_": np.array([0, 1]), "n_features_in_": X.shape[1],
                                     "class_count_": np.array([n - n_pos[j], n_pos[j]], dtype=np.float64),
                                     "feature_count_": np.vstack([total - pos, pos])})
            nodes[j] = ModelNode(kind, saved, state)
        return nodes, ModelNode(kind, saved, {})
    for j in live:
        with naming_the_label(names, j, Y):
            nodes[j], template = fit_model(model, steps, np.array([0, 1]), X, Y[:, j], fold_counts=fold_counts)
    return nodes, template


def _fit_each(each, X, Y, names, fold_counts=None):
    """One-vs-rest: the fitted node of each label ``j`` of ``Y`` not constant there, of the
    model and steps ``each[j]`` (a label live in these documents is live in all of them,
    so it has one)."""
    nodes = [None] * Y.shape[1]
    for j in np.flatnonzero(label_support(Y)[1] == -1):
        model, steps = each[j]
        given = fold_counts if fold_counts is not None and takes_fold_counts_spec(model) else None
        with naming_the_label(names, j, Y):
            nodes[j], _ = fit_model(model, steps, np.array([0, 1]), X, Y[:, j], fold_counts=given)
    return nodes


def _scorers(fitted, n_features):
    """The :class:`~textnb.text.scorer.CountScorer` of each fitted node (None stays None)."""
    def scorer(node):
        if node is None:
            return None
        s = scorer_from_node(node, n_features)
        if s is None:
            raise ValueError(f"no scorer of a fitted {node.kind}")
        return s

    return [scorer(node) for node in fitted] if isinstance(fitted, list) else scorer(fitted)


def _scores(fitted, constant, method, X, scorers=None):
    """Log-odds per label (±inf for a ``constant`` label) of the counts ``X`` under the
    ``fitted`` node(s) of :func:`_fit_scores` (``scorers``: theirs, :func:`_scorers`), as
    :meth:`MultiLabelNB._scores <textnb.meta.multilabel.MultiLabelNB._scores>`."""
    scorers = _scorers(fitted, X.shape[1]) if scorers is None else scorers
    S = np.empty((X.shape[0], len(constant)))
    if method == "copy":
        if scorers is not None:
            S[:] = copy_scores(scorers.classes_, scorers.predict_log_proba(X), constant)
    else:
        for j, scorer in enumerate(scorers):
            if scorer is not None:
                S[:, j] = log_odds(scorer.predict_log_proba(X))[:, 1]  # classes 0, 1
    S[:, constant == 1] = np.inf
    S[:, constant == 0] = -np.inf
    return S


def model_node(fitted):
    """The model file's tree (:class:`~textnb.core.model_io.ModelNode`) of ``fitted``: the
    Pipeline of the Vectorizer and the MultiLabelNB that the estimators save, the same bytes."""
    vec_params = {k: fitted.vectorizer[k] for k in sorted(fitted.vectorizer)}
    vectorizer = ModelNode("Vectorizer", vec_params, encode_terms(fitted.terms.tolist()))
    state = {"n_features_in_": fitted.n_features_in_, "classes_": fitted.classes_, "multilabel_": True,
             "train_support_": fitted.train_support_, "constant_": fitted.constant_, "strategy_": fitted.strategy_,
             **fitted.choices}
    if fitted.method == "copy":
        state["estimator_"] = fitted.estimator_
    else:
        state["estimators_"] = fitted.estimators_
    state["thresholds_"] = fitted.thresholds_
    params = {k: fitted.multilabel[k] for k in sorted(MULTILABEL_DEFAULTS)}
    params["estimator"] = fitted.template
    params = {k: params[k] for k in sorted(params)}
    model = ModelNode("MultiLabelNB", params, state)
    return ModelNode("Pipeline", {"memory": None, "steps": [("vectorizer", vectorizer), ("model", model)],
                                  "transform_input": None, "verbose": False}, {})


def decision_function(fitted, X):
    """:meth:`MultiLabelNB.decision_function <textnb.meta.multilabel.MultiLabelNB.decision_function>`
    of the fitted model for counts ``X`` (:func:`transform`): positive where a label is
    assigned."""
    return _decisions_and_log_odds(fitted, X)[0]


def _decisions_and_log_odds(fitted, X):
    """``(decision values, log-odds)`` of counts ``X``: :func:`decision_function` and the
    log-odds it decides from (one scoring pass)."""
    nodes = fitted.estimator_ if fitted.method == "copy" else fitted.estimators_
    if fitted.scorers is None:
        fitted.scorers = _scorers(nodes, fitted.n_features_in_)
    X = X.astype(np.float64)
    X.sort_indices()
    S = _scores(nodes, fitted.constant_, fitted.method, X, fitted.scorers)
    return decision(S, fitted.strategy_, fitted.thresholds_, fitted.min_labels,
                    rank=fitted.choices.get("rank_"), pcut_rate=fitted.choices.get("pcut_rate_")), S


def evaluate_split(X, terms, label_sets, X_test, test_label_sets, *, vectorizer=None,
                   model=("DiscriminativeNB", {}), steps=(), multilabel=None, progress=None, fold_counts=None):
    """Train on one part (counts ``X`` over ``terms``, ``fold_counts`` as :func:`fit` takes
    them) and test on the other (``X_test``, :func:`transform`), as
    :func:`textnb.meta.multilabel.evaluate_multilabel_split` does for this model: the same
    report."""
    fitted = fit(X, terms, label_sets, vectorizer=vectorizer, model=model, steps=steps, multilabel=multilabel,
                 progress=progress, fold_counts=fold_counts)
    D, S = _decisions_and_log_odds(fitted, X_test)
    return test_report(fitted.classes_, fitted.train_support_, D, test_label_sets, X.shape[0], scores=S)


def cross_validate(X, label_sets, *, model=("DiscriminativeNB", {}), steps=(), multilabel=None, cv=10, seed=0,
                   progress=None, vectorizer=None, groups=None):
    """K-fold cross-validation of the model on the counts ``X`` of every document over
    every term (:func:`textnb.evaluation.evaluate.vectorize_all`): what
    :func:`textnb.meta.multilabel.cross_validate_multilabel` reports for it with a number
    of folds ``cv`` (:func:`textnb.meta.labelsets.cross_validated_report`). Each fold keeps
    the terms ``vectorizer``'s pruning keeps in its training part, as presence with
    ``binary`` (:func:`textnb.text.training.fold_counts`; None: every term, counts), and
    the model of a fold gets the ``fold_counts`` of its training documents (as
    :func:`fit` takes them). ``groups``: as :func:`textnb.meta.labelsets.document_folds`
    takes them (the report's ``groups_note`` when it deals a label's messages one by one)."""
    import scipy.sparse as sp

    from textnb.core.errors import InputError
    from textnb.meta.labelsets import cross_validated_report

    multilabel = {**MULTILABEL_DEFAULTS, **(multilabel or {})}
    if not fits(model, multilabel, label_sets, steps):
        raise ValueError("multilabel_training fits a number of folds and a thresholding strategy, "
                         "over a model of streaming_model")
    X = sp.csr_matrix(X)
    Y, classes = label_indicator(label_sets)
    cv = 10 if cv is None else int(cv)
    if cv > X.shape[0]:
        raise InputError(f"cv must be between 2 and the number of documents ({X.shape[0]}); got {cv}")

    from textnb.text.training import fold_counts

    def fold_decisions(X_train, Y_train, X_test, labels):
        inner = fold_vocabularies(X_train, {} if vectorizer is None else vectorizer)
        if vectorizer is not None:
            X_train, X_test, _ = fold_counts(X_train, X_test, vectorizer)
        fitted = _fit(X_train, Y_train, [classes[i] for i in labels], None, dict(VECTORIZER_DEFAULTS), model, steps,
                      multilabel, fold_counts=inner)
        return _decisions_and_log_odds(fitted, X_test)

    splits, notes = document_folds(X.shape[0], cv, seed, Y, classes, groups)
    return cross_validated_report(X, Y, classes, splits, fold_decisions, seed, progress, notes)


class MultiLabelScorer:
    """Prediction from a multi-label model file without building the estimators: the
    ``Pipeline`` of a Vectorizer and a :class:`~textnb.meta.multilabel.MultiLabelNB` read
    as nodes (:func:`scorer_from_tree`), its score models read by
    :func:`textnb.text.scorer.scorer_from_node`: the log-odds and decisions the loaded
    Pipeline gives (``predict``'s ``model[:-1].transform`` then ``predict_log_odds`` /
    ``decision_from_log_odds``)."""

    multilabel_ = True

    def __init__(self, fitted, vec_params, term_keys, max_bytes=None):
        self.fitted = fitted
        #: where training cut each document (``train --max-bytes``, kept in the file's vectorizer:
        #: :func:`textnb.core.wrapping.store_max_bytes`), as a single-label scorer's; None for a file
        #: without it (cut at 16 MiB, the default, by the readers)
        self.max_bytes = max_bytes
        self.classes_ = fitted.classes_
        self.vec_params = vec_params
        self.analyzer = analyzer_from_params(vec_params)  # (made once: its token pattern compiled once)
        self.term_keys = term_keys
        self.steps = [("model", self)]  # (what textnb.cli.options.multilabel_model looks at)
        self.strategy_ = fitted.strategy_  # (the estimator's name: textnb.cli.predict looks at it)
        nodes = fitted.estimator_ if fitted.method == "copy" else fitted.estimators_
        fitted.scorers = _scorers(nodes, fitted.n_features_in_)

    def document_log_odds(self, texts):
        """Per-label log-odds of the documents ``texts`` (str), shape (n, n_labels), each cut
        at :attr:`max_bytes` when the model keeps it (as a single-label scorer cuts them)."""
        texts = list(texts)
        if self.max_bytes is not None:
            from textnb.io.files import cut_text

            texts = [cut_text(t, self.max_bytes) if isinstance(t, str) else t[:self.max_bytes] for t in texts]
        X = count_batch(texts, self.analyzer, self.term_keys, grow=False)
        X = finish_counts(X, binary=self.vec_params["binary"], dtype=self.vec_params["dtype"]).astype(np.float64)
        X.sort_indices()
        nodes = self.fitted.estimator_ if self.fitted.method == "copy" else self.fitted.estimators_
        return _scores(nodes, self.fitted.constant_, self.fitted.method, X, self.fitted.scorers)

    def proba_and_odds(self, texts):
        """``(P(label | d), log-odds)`` of the documents ``texts``: each label's own
        probability (:func:`~textnb.meta.labelsets.label_probabilities`) and its log-odds
        (:meth:`document_log_odds`), in one pass: the floats the loaded Pipeline's
        ``predict_proba`` and ``predict_log_odds`` give, what every ranking of labels reads
        (:func:`textnb.evaluation.topk.proba_and_odds`)."""
        S = self.document_log_odds(texts)
        return label_probabilities(S), S

    def decision_from_log_odds(self, S):
        """:meth:`MultiLabelNB.decision_from_log_odds
        <textnb.meta.multilabel.MultiLabelNB.decision_from_log_odds>`."""
        f = self.fitted
        return decision(S, f.strategy_, f.thresholds_, f.min_labels, rank=f.choices.get("rank_"),
                        pcut_rate=f.choices.get("pcut_rate_"))


def scorer_from_tree(root):
    """The :class:`MultiLabelScorer` of a read model tree
    (:func:`textnb.core.model_io.read_nodes`) that is a multi-label text Pipeline whose
    score models :func:`textnb.text.scorer.scorer_from_node` reads, or None (the caller then
    builds the estimators, which report an inconsistent file in their own words)."""
    from textnb.text.tokenize import StoredVocabulary

    try:
        steps = root.params.get("steps") if root.kind == "Pipeline" and not root.state else None
        if not steps or len(steps) != 2:
            return None
        (_, vec), (_, ml) = steps
        if not (isinstance(vec, ModelNode) and vec.kind == "Vectorizer" and isinstance(ml, ModelNode)
                and ml.kind == "MultiLabelNB" and ml.state.get("multilabel_") is True):
            return None
        vec_params = {**VECTORIZER_DEFAULTS, **vec.params}
        if set(vec_params) != set(VECTORIZER_DEFAULTS):
            return None
        terms = StoredVocabulary(vec.state)
        state, params = ml.state, {**MULTILABEL_DEFAULTS, **ml.params}
        classes = np.asarray(state["classes_"])
        n = len(classes)
        constant = np.asarray(state["constant_"])
        thresholds = np.asarray(state["thresholds_"], dtype=np.float64)
        strategy = state.get("strategy_", "scut")
        method = "copy" if "estimator_" in state else "ovr"
        if (("estimator_" in state) == ("estimators_" in state) or constant.shape != (n,)
                or thresholds.shape != (n,) or not np.isin(constant, (-1, 0, 1)).all()
                or state.get("n_features_in_") != len(terms) or strategy not in STRATEGY_NAMES
                or (method == "ovr" and len(state["estimators_"]) != n)):
            return None
        choices = {k: state[k] for k in ("fbr_", "rank_", "pcut_rate_") if k in state}
        if strategy == "pcut" and np.asarray(choices.get("pcut_rate_", ())).shape != (n,):
            return None
        fitted = MultiLabelFit(vectorizer=vec_params, template=params.get("estimator"),
                               multilabel={**params, "method": method}, terms=None, n_features_in_=len(terms),
                               classes_=classes, train_support_=state.get("train_support_"), constant_=constant,
                               strategy_=strategy, choices=choices, estimator_=state.get("estimator_"),
                               estimators_=state.get("estimators_"), thresholds_=thresholds)
        max_bytes = vec.state.get("max_bytes")  # (train --max-bytes; absent from older files)
        scorer = MultiLabelScorer(fitted, vec_params, terms.term_keys(),
                                  max_bytes=None if max_bytes is None else int(max_bytes))
        copy_model = fitted.scorers if method == "copy" else None
        if copy_model is not None and not np.isin(np.asarray(copy_model.classes_), np.arange(n + 1)).all():
            return None
        return scorer
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, UnicodeDecodeError):
        return None


#: the strategies a model file may hold (``strategy_``)
STRATEGY_NAMES = ("scutfbr", "scut", "rcut", "pcut", "fixed")
