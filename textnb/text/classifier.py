"""TextClassifier: a vectorizer and a naive Bayes model in one estimator over raw documents.

Training a multinomial or Bernoulli model needs only per-class term sums, not the
document-term matrix (``../shared/design/architecture.md``). So :meth:`TextClassifier.fit`
streams: documents are cut into batches, each batch is tokenised and counted (with ``n_jobs``, in
threads for numpy's tokenizer, else in worker processes), and only the per-class sums of each batch come
back and are added. Peak memory is ``O(n_classes x vocabulary)`` plus one batch per
worker, whatever the corpus size. The vocabulary is then sorted and pruned exactly as
scikit-learn's ``CountVectorizer`` does, so the result does not depend on the batch
size or on ``n_jobs``: the same input gives the same model, byte for byte.

Models that need the rows themselves (APNBC's resubstitution, lazy rules) are fitted
on the CSR matrix instead.
"""

import bisect
import functools
import itertools
import operator

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils import get_tags
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from textnb.naive_bayes.base import DeclaredTags, NestedParams, SaveMixin
from textnb.naive_bayes.base import check_partial_fit_labels, log_odds
from textnb.naive_bayes.scoring import check_sample_weight, class_positions, partial_fit_classes
from textnb.io.corpus import binary_document, document_size, document_texts, to_text
from textnb.io.mailread import split_messages
from textnb.text.counting import inherited, score_batch
from textnb.core.dfe import pass_budget
from textnb.core.errors import refuse_single_string
from textnb.core.model_io import register
from textnb.naive_bayes.discrete import _BaseCountNB
from textnb.naive_bayes.discriminative import DiscriminativeNB
from textnb.naive_bayes.kernels import LAYER_WEIGHTS, all_or_nothing, takes_defaults
from textnb.text.defaults import TEXT_CLASSIFIER_DEFAULTS, TEXT_CLASSIFIER_OWN_PARAMS, TEXT_CLASSIFIER_OWN_STATE
from textnb.text.tokenize import reader_decoding
from textnb.text.training import (PER_CLASS, batches, count_documents, default_vectorizer, fold_vocabularies, min_parallel,
                                  one_label_each, select_vocabulary, vectorizer_prunes)
from textnb.text.vectorizer import Vectorizer
from textnb.core.workers import can_fork, effective_jobs, ordered_map
from textnb.core.wrapping import checked_merge, find, takes_fold_counts, takes_sample_weight, takes_terms
from textnb.core.model_schema import TEMPLATE, Model, Optional, check_param_values

__all__ = ["TextClassifier", "document_fold_counts", "to_text"]  # to_text: kept importable from here

#: Below this many documents prediction runs in one process whatever ``n_jobs`` says,
#: when workers cannot be forked (a fresh loky worker costs about a second to start).
_MIN_PARALLEL_PREDICT = 20_000


#: Fewer documents than this are looked up in the vocabulary dict, term by term.
_FEW_DOCUMENTS = 64


def _row_budget(model, n_classes):
    """Document-term cells a streamed DiscriminativeNB keeps (its passes' sample), else None."""
    return pass_budget(model.max_nnz, n_classes) if isinstance(model, DiscriminativeNB) else None


def _per_class(model):
    return PER_CLASS.get(type(model).__name__, "tf")


def _multi_label(model):
    """Whether ``model`` learns several labels per document (its tag, as MultiLabelNB's)."""
    return get_tags(model).classifier_tags.multi_label


def _default_pipeline_model(model):
    """Whether ``model`` is the default pipeline's, whose vectorizer (none given) counts a
    corpus of short texts as words and word bigrams (:func:`default_vectorizer`): a
    DiscriminativeNB, or a multi-label model over one (its base model, ``_base()``), as
    ``textnb train`` and ``evaluate`` decide for either."""
    if _multi_label(model) and callable(getattr(model, "_base", None)):
        model = model._base()
    return isinstance(model, DiscriminativeNB)


def _every_term(vectorizer, docs, X):
    """The counts of ``docs`` over every term they have, in the column order of the fitted
    ``vectorizer`` (its output ``X`` when its ``min_df`` / ``max_df`` / ``max_features``
    prune none), and those terms."""
    if not vectorizer_prunes(vectorizer.get_params()):
        return X, vectorizer.get_feature_names_out()
    every = clone(vectorizer).set_params(min_df=1, max_df=1.0, max_features=None)
    return every.fit_transform(docs), every.get_feature_names_out()


def document_fold_counts(vectorizer, docs, X):
    """The ``fold_counts`` (:class:`~textnb.text.training.FoldVocabularies`) of the texts
    ``docs`` that the fitted ``vectorizer`` turned into ``X``: a cross-validation inside a
    fit on ``X`` fits each fold on the vocabulary that the vectorizer fitted on its
    training texts alone would give. None for a vectorizer with a given ``vocabulary`` or
    another output than the Vectorizer's (its folds are then on ``X``'s columns)."""
    if vectorizer.vocabulary is not None or type(vectorizer)._output is not Vectorizer._output:
        return None
    every, terms = _every_term(vectorizer, docs, X)
    return fold_vocabularies(every, vectorizer.get_params(), terms)


def _sorted_columns(vocab, known):
    """``(order, terms)``: the columns of ``vocab`` (a TermKeys whose first columns hold the
    terms ``known``, in their order) in fit's column order, alphabetical as Python sorts str
    (:func:`textnb.text.training.select_vocabulary`), and its terms in that order. When
    ``known`` is already sorted (a vocabulary ``fit`` or ``partial_fit`` made), only the new
    terms are sorted and slotted in: the cost of a batch grows with the vocabulary linearly.
    """
    m, n = len(known), len(vocab)
    if any(map(operator.ge, known, itertools.islice(known, 1, None))):  # (a vocabulary set by hand)
        order = vocab.sorted_columns()
        return order, vocab.terms(order)
    new = vocab.terms(np.arange(m, n))
    rank = sorted(range(n - m), key=new.__getitem__)
    # before how many known terms each new one goes (non-decreasing along rank)
    slot = np.fromiter((bisect.bisect_left(known, new[j]) for j in rank), dtype=np.int64, count=n - m)
    position = np.empty(n, dtype=np.int64)
    position[:m] = np.arange(m) + np.searchsorted(slot, np.arange(m), side="right")
    position[m + np.asarray(rank, dtype=np.int64)] = slot + np.arange(n - m)
    order = np.empty(n, dtype=np.int64)
    order[position] = np.arange(n)
    terms = np.empty(n, dtype=object)
    terms[position[:m]] = known
    terms[slot + np.arange(n - m)] = [new[j] for j in rank]
    return order, terms.tolist()


@register
class TextClassifier(DeclaredTags, SaveMixin, NestedParams, ClassifierMixin, BaseEstimator):
    """Naive Bayes over raw documents: a :class:`~textnb.text.vectorizer.Vectorizer` and a model.

    Parameters
    ----------
    vectorizer : Vectorizer, default=None
        Tokenizer and vocabulary settings; when None, ``Vectorizer()``, except that the
        default model (a DiscriminativeNB, or a multi-label model over one) on short texts (at least 1,000 training
        documents whose median is under 500 bytes) gets ``Vectorizer(ngram_range=(1, 2),
        min_df=2)``: questions, sentences and text messages need their word pairs
        (:func:`textnb.text.training.default_vectorizer`; ``docs/text_accuracy.md``,
        "Session 33"). ``vectorizer_`` says which. ``partial_fit`` does not choose:
        ``Vectorizer()``.
    model : estimator, default=None
        A textnb model over term counts; when None,
        :class:`~textnb.naive_bayes.discriminative.DiscriminativeNB` ``()``: naive Bayes
        with discriminative frequency estimates, the event model (transformed complement
        or Bernoulli) chosen by cross-validation inside the training documents
        (``docs/text_accuracy.md``). Give ``MultinomialNB()`` for the classic model whose
        sums merge and forget exactly, ``MultiLabelNB()`` for several labels per
        document (``y`` label lists or an indicator matrix; ``fit`` only, as the
        ``Pipeline`` of a Vectorizer and MultiLabelNB).
    n_jobs : int, default=None
        Worker processes for tokenising and counting (joblib); None means 1, -1 all
        cores (with the default analyzer, threads of this process instead, on the cores
        that are idle: :func:`textnb.core.workers.automatic_threads`). The result is the
        same for every value. Corpora of fewer than 30,000
        documents are counted in one process (starting workers, about 1 s here, costs
        more than it saves), and fewer than 20,000 documents are predicted in one.
    batch_size : int, default=2000
        Documents per batch (per task sent to a worker).
    max_bytes : int, default=16 MiB
        Bytes read at most from one document file (longer ones are truncated).

    Attributes
    ----------
    vectorizer_ : Vectorizer
        Fitted vectorizer (``vocabulary_``).
    model_ : estimator
        Fitted model.
    classes_ : ndarray
    skipped_ : list of str
        Documents skipped during ``fit`` because they are binary.
    input_ : str
        ``"mail"`` on a model that ``spamfilter`` trained or registered mail into (its
        documents were messages rendered by :func:`textnb.apps.filtering.spam_text`),
        ``"mail-tokens"`` on one of ``--kind discriminative`` (the mail reader's tokens,
        :func:`textnb.apps.filtering.token_text`): ``textnb predict`` then reads its inputs
        as messages through the same reader, so it gives ``spamfilter``'s scores; absent (no
        attribute) on a model of plain documents.

    Examples
    --------
    >>> from textnb import TextClassifier
    >>> clf = TextClassifier().fit(["cheap pills now", "meeting at noon"], ["spam", "ham"])
    >>> clf.predict(["cheap cheap pills"]).tolist()
    ['spam']
    """

    #: capability (:mod:`textnb.core.wrapping`): takes raw documents
    reads_documents = True

    _param_schema = {
        "vectorizer": Optional(Model(("Vectorizer", "TfidfVectorizer"), fitted=False)), "model": TEMPLATE,
        **TEXT_CLASSIFIER_OWN_PARAMS,
    }
    _state_schema = {
        **TEXT_CLASSIFIER_OWN_STATE,  # classes_, input_
        "vectorizer_": Model(("Vectorizer", "TfidfVectorizer")),
        "model_": Model(dims={"classes_": "n_classes"}, equal={"classes_": "classes_"}),
    }

    _execution_params = ("n_jobs", "batch_size")

    @takes_defaults(TEXT_CLASSIFIER_DEFAULTS)
    def __init__(self, *, vectorizer, model, n_jobs, batch_size, max_bytes):
        self.vectorizer = vectorizer
        self.model = model
        self.n_jobs = n_jobs
        self.batch_size = batch_size
        self.max_bytes = max_bytes

    _tags = Vectorizer._tags  # raw documents in, as the vectorizer takes them

    # -- fitting ------------------------------------------------------------------
    def _check_own_params(self):
        """``n_jobs``, ``batch_size`` and ``max_bytes`` checked as a model file's are
        (``TEXT_CLASSIFIER_OWN_PARAMS``): a ``ParameterError`` naming the parameter."""
        check_param_values(TEXT_CLASSIFIER_OWN_PARAMS, {name: getattr(self, name) for name in TEXT_CLASSIFIER_OWN_PARAMS})

    def _streams(self, model, vectorizer):
        """True when the model can be fitted from per-class sums alone (of counts, or of
        presence with a ``binary`` vectorizer)."""
        return isinstance(model, _BaseCountNB) and vectorizer._summed_counts()

    @all_or_nothing
    def fit(self, X, y, sample_weight=None, progress=None, client=None):
        """Fit on documents ``X`` (str, bytes or pathlib.Path each) and labels ``y``, one
        per document; either may be any iterable, a generator included (read once).

        ``progress``, if given, is called with the number of documents done so far.
        ``client``, a ``distributed.Client``, sends the shards to Dask workers instead of
        local processes (see :mod:`textnb.text.distributed`); the model is the same.
        """
        refuse_single_string(X)
        self._check_own_params()
        self.__dict__.pop("input_", None)  # (what the documents were is the fitter's to say again)
        model = clone(self.model) if self.model is not None else DiscriminativeNB()
        if self.vectorizer is not None:
            vectorizer = clone(self.vectorizer)
        elif _default_pipeline_model(model):  # the default pipeline: short texts get their word bigrams too
            params, X = default_vectorizer(X, self.max_bytes)  # (an iterator: its first documents read ahead)
            vectorizer = Vectorizer(**params)
        else:
            vectorizer = Vectorizer()
        if _multi_label(model):  # label sets or an indicator matrix: the model reads them
            y = y if isinstance(y, np.ndarray) or sp.issparse(y) else list(y)
            if sample_weight is not None and not takes_sample_weight(model):
                raise ValueError(f"{type(model).__name__} takes no sample_weight")
        else:
            y = one_label_each(y)
            check_classification_targets(y)  # (continuous targets: as the models refuse them)
        n = y.shape[0] if sp.issparse(y) else len(y)
        if hasattr(X, "__len__") and len(X) != n:
            raise ValueError("Found input variables with inconsistent numbers of samples: "
                             f"[{len(X)}, {n}] ({len(X)} documents, {n} labels)")
        vectorizer._check_params()
        checked = check_sample_weight(sample_weight, n)  # (finite, >= 0, not all 0: as the models)
        weights = np.ones(n) if checked is None else checked
        if self._streams(model, vectorizer):
            classes, y_index = np.unique(y, return_inverse=True)
            acc = self._count(X, y_index, weights, len(classes), vectorizer, progress, client=client,
                              per_class=_per_class(model), rows=isinstance(model, DiscriminativeNB),
                              max_row_nnz=_row_budget(model, len(classes)))
            self._fit_from_sums(acc, classes, vectorizer, model, len(y))
        else:
            docs, kept, n_docs = self._texts(X, vectorizer)
            if n_docs != n:
                raise ValueError(f"got {n_docs} documents but {n} labels")
            Xc = vectorizer.fit_transform(docs)
            kw = {} if sample_weight is None else {"sample_weight": weights[kept]}
            if takes_terms(model):  # lazy rules name their terms (also inside APNBC)
                kw["terms"] = vectorizer.get_feature_names_out()
            if takes_fold_counts(model):
                # (SmoothingCV, APNBC's fit_on="cv", CalibratedNB, MultiLabelNB: each fold's vocabulary from its
                # training part, as textnb train)
                folds = document_fold_counts(vectorizer, docs, Xc)
                if folds is not None:
                    kw["fold_counts"] = folds
            model.fit(Xc, [y[i] for i in kept] if isinstance(y, list) else y[kept], **kw)
            if progress is not None:
                progress(len(y))
        self.vectorizer_, self.model_ = vectorizer, model
        self.classes_ = model.classes_
        return self

    def _texts(self, X, vectorizer):
        """``(texts, kept, n_docs)`` of the documents ``X`` (an mbox file: its messages,
        each at its file's position in ``kept``: :func:`textnb.io.corpus.document_texts`)."""
        decode = reader_decoding(vectorizer.build_analyzer())  # (the guess, or the vectorizer's encoding)
        split = functools.partial(split_messages, max_bytes=self.max_bytes)
        texts, kept, self.skipped_, n_docs = document_texts(X, split, self.max_bytes, decode)
        return texts, np.asarray(kept, dtype=np.int64), n_docs

    def _count(self, X, y_index, weights, n_classes, vectorizer, progress, terms=(), client=None,
               per_class="tf", rows=False, max_row_nnz=None):
        acc = count_documents(X, y_index, weights, n_classes, vectorizer.build_analyzer(), terms=terms,
                              per_class=per_class, n_jobs=self.n_jobs, batch_size=self.batch_size,
                              max_bytes=self.max_bytes, progress=progress, client=client, rows=rows,
                              max_row_nnz=max_row_nnz, binary=bool(vectorizer.binary))
        self.skipped_ = acc.skipped
        return acc

    def _fit_from_sums(self, acc, classes, vectorizer, model, n_docs):
        terms, cols = select_vocabulary(acc, n_docs, min_df=vectorizer.min_df, max_df=vectorizer.max_df,
                                        max_features=vectorizer.max_features)
        vectorizer._set_terms(terms, checked=True)
        vectorizer._keep_index(acc.vocab.subset(cols))  # prediction's lookup table, ready
        if isinstance(model, DiscriminativeNB):  # it learns from the documents' rows
            dropped = acc.dropped_sums(cols)
            X, y_index, weights = acc.row_matrix(cols)
            model._begin(classes, len(cols)).fit_rows(X, y_index, weights, dropped=dropped)
        else:
            model._fit_counts(classes, acc.class_count, acc.sums[:, cols])  # a fresh array: no copy

    @all_or_nothing
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Learn more documents; new terms join the vocabulary.

        ``classes`` is required on the first call; later calls may repeat it, unchanged
        (other classes are a ValueError, as for every model). ``min_df``, ``max_df`` and
        ``max_features`` apply in ``fit`` only.

        The vocabulary stays in ``fit``'s column order (alphabetical, as scikit-learn's):
        the columns of known terms move when new terms arrive. So one call with all the
        documents gives ``fit``'s model exactly, for every count model, the default
        :class:`~textnb.naive_bayes.discriminative.DiscriminativeNB` included (same
        vocabulary, sums, ``event_model_``, ``alpha_``, ``scale_`` and probabilities).

        Over several calls, a MultinomialNB, BernoulliNB or ComplementNB equals ``fit`` on
        all the documents (vocabulary and sums; probabilities to rounding), whatever the
        batches and their order. A DiscriminativeNB does not: its choices are made on the
        data seen so far. The event model and smoothing are chosen on the first batch
        and kept; each batch's frequency-estimate passes score the batch under the model
        of the batches before it; ``scale_`` is refitted on each batch of 50 documents or
        more, with the scale before (a smaller batch keeps it: a model learned only in
        batches of fewer than 50 documents has no scale, however many documents they add
        up to, and its probabilities are the raw scores', which a DataWarning says: give it
        batches of 50 or more); its samples and folds are keyed on a document's content
        (its terms' columns in the vocabulary so far, counts and class) and the seed. The same batches in the
        same order always give the same model; another order or split gives another
        model (the vocabulary and ``class_documents_`` are the same).
        """
        self._check_own_params()
        all_classes, first = partial_fit_classes(self, classes)  # (later calls: the same classes or none)
        if first:
            check_classification_targets(all_classes)
            self.vectorizer_ = clone(self.vectorizer) if self.vectorizer is not None else Vectorizer()
            self.model_ = clone(self.model) if self.model is not None else DiscriminativeNB()
            if not self._streams(self.model_, self.vectorizer_):
                raise _not_streamed("partial_fit")
            self.classes_ = all_classes
            self.vectorizer_._set_terms([])
            if isinstance(self.model_, DiscriminativeNB):
                self.model_._begin(self.classes_, 0)
            else:
                self.model_.fit_counts(self.classes_, np.zeros(len(self.classes_)),
                                       np.zeros((len(self.classes_), 0)))
        y = one_label_each(y)
        check_partial_fit_labels(y, self.classes_)
        self._add(X, y, sample_weight, sign=1.0)
        return self

    def forget(self, X, y, sample_weight=None):
        """Subtract documents learned before (e.g. a message registered by mistake).

        Terms whose count drops to zero in every class leave the vocabulary, so the
        model equals a fresh ``fit`` on the remaining documents (same counts,
        vocabulary and predictions), with the default term pruning
        (``min_df=1``, no ``max_df`` / ``max_features``: those are applied at ``fit``
        time only, never by ``partial_fit`` or ``forget``). With pruning, the terms that
        ``fit`` pruned hold no counts in the model and are left out of the documents
        forgotten, as prediction leaves them out (so a document never learned is refused
        only when one of its terms would go below zero); without it, a term the model
        lacks means a document never learned, refused with a ValueError.
        """
        check_is_fitted(self)
        self._check_own_params()
        y = one_label_each(y)
        check_partial_fit_labels(y, self.classes_)
        self._add(X, y, sample_weight, sign=-1.0)
        return self

    def _add(self, X, y, sample_weight, sign):
        refuse_single_string(X)
        if not self._streams(self.model_, self.vectorizer_):  # (checked before the vocabulary is touched)
            raise _not_streamed("partial_fit" if sign > 0 else "forget")
        y_index = class_positions(self.classes_, y)  # (classes_ may be declared ones, in their order)
        checked = check_sample_weight(sample_weight, len(y))
        weights = np.ones(len(y)) if checked is None else checked
        old_terms = list(self.vectorizer_.vocabulary_)
        model = self.model_
        rows = isinstance(model, DiscriminativeNB)
        if rows and sign < 0:
            raise ValueError("forget needs a model of plain sums (MultinomialNB, BernoulliNB, ComplementNB): "
                             "the discriminative passes of a DiscriminativeNB cannot be undone")
        acc = self._count(X, y_index, weights, len(self.classes_), self.vectorizer_, None, terms=old_terms,
                          per_class=_per_class(model), rows=rows, max_row_nnz=_row_budget(model, len(self.classes_)))
        n, m = len(acc.vocab), model.feature_count_.shape[1]  # (the known terms are acc's columns 0 .. m - 1)
        # the vocabulary stays in fit's (scikit-learn's alphabetical) column order: the known
        # terms' columns move to make room for the new ones, so that one batch gives fit's model
        # exactly (the same columns, hence the same content keys of the samples and folds
        # DiscriminativeNB draws, and the same order of every sum over a document's terms)
        order, terms = _sorted_columns(acc.vocab, old_terms)
        position = np.empty(n, dtype=np.int64)
        position[order] = np.arange(n)
        grown = np.zeros((len(self.classes_), n))
        known = position[:m]
        for row, counts in zip(grown, model.feature_count_):  # (row by row: ten times faster than grown[:, known])
            row[known] = counts
        if rows:  # the batch's sums, then the passes over it
            dropped = acc.dropped_sums(order)
            Xb, yb, wb = acc.row_matrix(order)
            if Xb.shape[0] == 0 and dropped is None:
                # no document (an empty batch): nothing to learn, as for a count model; passes
                # over no rows would fix the event model and alpha on nothing
                return
            self.vectorizer_._set_terms(terms)
            model.feature_count_, model.n_features_in_ = grown, n
            for name in LAYER_WEIGHTS:  # a residual layer's term weights move with their terms (a new one: 0,
                if name in vars(model):  # as merge_residuals gives a term one side lacks): a batch too small
                    layer = np.zeros((len(self.classes_), n))  # to refit the layer keeps it
                    layer[:, known] = getattr(model, name)
                    setattr(model, name, layer)
            model.fit_rows(Xb, yb, wb, dropped=dropped)
            model._warn_uncalibrated(Xb.shape[0], stacklevel=4)  # (_add, partial_fit, all_or_nothing: the caller)
            return
        cc = model.class_count_ + sign * acc.class_count
        fc = grown + sign * np.take(acc.sums, order, axis=1)
        if sign < 0 and n > m and vectorizer_prunes(self.vectorizer_.get_params()):
            # a term fit pruned (min_df / max_df / max_features) has no counts in the model: a
            # learned document's pruned terms are left out of forgetting, as prediction leaves
            # them out (without pruning, a term the model lacks is one of a document never learned)
            was_known = np.zeros(n, dtype=bool)
            was_known[known] = True
            fc = fc[:, was_known]
            terms = [t for t, k in zip(terms, was_known) if k]
        if sign < 0 and (np.any(cc < -1e-9) or np.any(fc < -1e-9)):
            raise ValueError("cannot forget documents that were never learned (counts would go negative)")
        if sign < 0 and _per_class(model) == "df" and np.any(fc > cc[:, None] + 1e-9):
            # document frequencies (BernoulliNB): a term in more of a class's documents than it has
            raise ValueError("cannot forget documents that were never learned (a term would be counted in more "
                             "documents of a class than the class has)")
        fc = np.maximum(fc, 0.0)
        # (the terms are set only now: a refused forget leaves the vocabulary as it was)
        if sign < 0:  # a term no remaining document has leaves the vocabulary, as in a fresh fit
            keep = fc.sum(axis=0) > 1e-9
            if not keep.any():  # (as fit refuses documents without a term: no model to save or to score with)
                raise ValueError("cannot forget these documents: no term would be left in the model (an empty "
                                 "vocabulary, which fit refuses too); train a new model on the documents that remain")
            if not keep.all():
                fc = fc[:, keep]
                terms = [t for t, k in zip(terms, keep) if k]
        self.vectorizer_._set_terms(terms)
        model.fit_counts(self.classes_, np.maximum(cc, 0.0), fc)

    @checked_merge
    def merge(self, other):
        """Add the counts of another TextClassifier (same settings); vocabularies are united.

        Training on two halves and merging gives the model trained on the whole
        (without ``min_df`` / ``max_df`` / ``max_features`` pruning, which needs the
        whole corpus). A model parameter (``alpha``, ``fit_prior``, ...; not ``n_jobs``),
        ``max_bytes``, the input (``input_``: a spamfilter model's rendered messages) or a
        tokenizer setting that differs is refused with
        :class:`~textnb.core.errors.SettingsDiffer` (a ParameterError) naming it, as are two
        different fastText label prefixes (the one either part keeps is kept); a model
        that is not a count model (a wrapper such as CalibratedNB) or a tf-idf vectorizer
        with a ValueError.
        """
        from textnb.text.nodes import merge_count_models, merged_label_prefix, merged_term_counts

        check_is_fitted(self)
        check_is_fitted(other)
        for clf in (self, other):  # (what textnb merge refuses, in the library's words)
            if not isinstance(clf.model_, _BaseCountNB):
                raise ValueError(f"cannot merge a TextClassifier of {type(clf.model_).__name__}: only count models "
                                 "add up (MultinomialNB, BernoulliNB, ComplementNB, DiscriminativeNB)")
            if type(clf.vectorizer_)._output is not Vectorizer._output:
                raise ValueError(f"cannot merge a TextClassifier of {type(clf.vectorizer_).__name__}: its term "
                                 "weights depend on the whole corpus; fit the whole corpus instead")
        prefix = merged_label_prefix(*(getattr(clf.vectorizer_, "label_prefix_", None) for clf in (self, other)))
        terms, state = merge_count_models(*((type(clf.model_).__name__,
                                             {**clf.model_.get_params(deep=False), "max_bytes": clf.max_bytes,
                                              "input_": getattr(clf, "input_", None)},
                                             clf.vectorizer_.get_params(), list(clf.vectorizer_.vocabulary_),
                                             clf.model_._get_state())
                                            for clf in (self, other)))
        counts = merged_term_counts(terms, *((list(clf.vectorizer_.vocabulary_), getattr(clf.vectorizer_, "term_counts_",
                                                                                          None)) for clf in (self, other)))
        self.vectorizer_._set_terms(terms)
        self.vectorizer_.term_counts_ = counts  # (textnb.fasttext.train_supervised's; None when a part kept none)
        if prefix is not None:  # (the fastText label prefix either part keeps)
            self.vectorizer_.label_prefix_ = prefix
        self.model_._set_merged(state)
        self.classes_ = self.model_.classes_
        return self

    # -- prediction --------------------------------------------------------------
    def transform(self, X):
        """CSR counts of documents under the fitted vocabulary."""
        check_is_fitted(self)
        texts = []
        decode = reader_decoding(self.vectorizer_.build_analyzer())  # (the guess, or the vectorizer's encoding)
        for doc in X:
            t = to_text(doc, self.max_bytes, decode)
            if t is None:
                raise binary_document(doc)
            texts.append(t)
        return self.vectorizer_.transform(texts)

    def _batched(self, X, method):
        """``model_.<method>`` over batches of documents. With many documents and
        ``n_jobs`` allowing, whole batches are tokenised *and scored* in worker
        processes, and only the scores come back (forked workers inherit the model;
        others receive it pickled with each batch)."""
        check_is_fitted(self)
        refuse_single_string(X)
        few = hasattr(X, "__len__") and len(X) < _FEW_DOCUMENTS
        # a handful of documents (a mail filter's one message) is tokenised faster
        # than the vocabulary's TermKeys could be built
        index = self.vectorizer_.vocabulary_ if few else self.vectorizer_._term_index()
        score = getattr(self.model_, method)
        state = (self.vectorizer_._analyzer(), index, self.vectorizer_._output, score, self.max_bytes)
        chunks = (b for b, _, _ in batches(X, np.zeros(0), np.zeros(0), int(self.batch_size),
                                           functools.partial(document_size, max_bytes=self.max_bytes)))
        many = hasattr(X, "__len__") and len(X) >= min_parallel(_MIN_PARALLEL_PREDICT, self.batch_size)
        n_jobs = self.n_jobs if many else 1
        if effective_jobs(n_jobs) > 1 and can_fork():
            with inherited(state) as key:
                parts = list(ordered_map(score_batch, ((b, key) for b in chunks), n_jobs))
        else:
            parts = list(ordered_map(score_batch, ((b, None, state) for b in chunks), n_jobs))
        if not parts:
            return score(sp.csr_matrix((0, len(index))))
        return np.concatenate(parts)

    def predict(self, X):
        return self._batched(X, "predict")

    def predict_proba(self, X):
        return self._batched(X, "predict_proba")

    def predict_log_proba(self, X):
        return self._batched(X, "predict_log_proba")

    @available_if(lambda self: hasattr(self._scoring_model(), "predict_joint_log_proba"))
    def predict_joint_log_proba(self, X):
        """The model's joint log-likelihoods; only where the model has them (not a
        CalibratedNB's or a MultiLabelNB's: ``hasattr`` is False for those, as for a
        scikit-learn Pipeline ending in a model without the method)."""
        return self._batched(X, "predict_joint_log_proba")

    def _scoring_model(self):
        """The fitted model, or before ``fit`` the one it will fit (the default's when None)."""
        model = getattr(self, "model_", None)
        if model is None:
            model = self.model if self.model is not None else self._default_part("model")
        return model

    def predict_explain(self, X):
        """Predictions and, per document, the rule the model used (lazy models only, also
        inside a wrapper such as APNBC: the rule is the lazy model's, the prediction the
        model's)."""
        check_is_fitted(self)
        explaining = find(self.model_, lambda m: hasattr(m, "predict_explain"))
        if explaining is None:
            raise ValueError(f"a {type(self.model_).__name__} model has no rules to explain")
        labels, rules = [], []
        for b, _, _ in batches(X, np.zeros(0), np.zeros(0), int(self.batch_size)):
            Xb = self.transform(b)
            lab, rule = explaining.predict_explain(Xb)
            labels.append(lab if explaining is self.model_ else self.model_.predict(Xb))
            rules.extend(rule)
        return (np.concatenate(labels) if labels else np.array([])), rules

    def predict_log_odds(self, X):
        """Per-class log-odds (keeps resolution where probabilities round to 0 or 1)."""
        check_is_fitted(self)
        if hasattr(self.model_, "predict_log_odds"):
            return self._batched(X, "predict_log_odds")
        return log_odds(self.predict_log_proba(X))  # log space: no resolution lost

    def score(self, X, y, sample_weight=None):
        """Mean accuracy; with a multi-label model, that model's score of the documents (as a
        ``Pipeline`` of the vectorizer and the model scores them: MultiLabelNB's micro-F1)."""
        check_is_fitted(self)
        if _multi_label(self.model_):
            return self.model_.score(self.transform(X), y, sample_weight=sample_weight)
        return super().score(X, y, sample_weight=sample_weight)


    def _default_part(self, name):
        """What ``fit`` uses for a part left None (:class:`~textnb.naive_bayes.base.NestedParams`)."""
        return {"vectorizer": Vectorizer, "model": DiscriminativeNB}[name]() if name in ("vectorizer", "model") \
            else None

    def _get_state(self):
        state = {"vectorizer_": self.vectorizer_, "model_": self.model_, "classes_": self.classes_}
        if getattr(self, "input_", None) is not None:  # (only a spamfilter model has it)
            state["input_"] = self.input_
        return state

    def _set_state(self, state):
        self.vectorizer_, self.model_ = state["vectorizer_"], state["model_"]
        n_terms = len(self.vectorizer_.vocabulary_)
        n_features = getattr(self.model_, "n_features_in_", n_terms)
        if n_features != n_terms:
            raise ValueError(f"the vocabulary has {n_terms} terms but the model expects {n_features}")
        self.classes_ = self.model_.classes_
        self.skipped_ = []
        if "input_" in state:
            self.input_ = state["input_"]


def _not_streamed(method):
    """The error of ``partial_fit`` or ``forget`` (``method``) of a classifier whose model is not
    fitted from per-class sums of counts or presence (one message for the first call and the next)."""
    return ValueError(f"{method} needs a count model (MultinomialNB, BernoulliNB, ComplementNB, DiscriminativeNB) "
                      "over plain counts or binary ones (not a wrapper, a fixed vocabulary or tf-idf weighting); fit the "
                      "whole corpus again instead")
