"""Discriminative frequency estimates for the linear naive Bayes models (Su et al. 2008).

A naive Bayes model over term counts is a set of per-class sums. The *frequency
estimate* learns those sums discriminatively (Su, Zhang, Ling & Matwin 2008,
"Discriminative parameter learning for Bayesian networks", ICML, §3: "FE"): start from
the ordinary sums, then make passes over the training documents and add each document
to its class's sums again, weighted by how badly the current model classifies it,

    N_c  +=  η (1 − P(c | d)) f(d)      for every training document d of class c,

so well-classified documents add almost nothing and the errors are learned from. The
prediction stays a naive Bayes linear score; only the sums change.

Two event models (``family``), the two that the text-accuracy study
(``docs/text_defaults.md``) found complementary on the eight visible corpora:

``"complement"``
    Rennie, Shih, Teevan & Karger 2003's transformed complement NB: each document's
    counts become ``log(1 + tf)``, L2-normalised per document (§4.1, §4.3, without idf),
    and a class is scored by the negated log of its smoothed *complement* frequencies
    (§3.1). No class prior (§3.1).
``"bernoulli"``
    Presence / absence of every vocabulary term (McCallum & Nigam 1998), with the class
    prior; ``f(d)`` is the document's set of terms, and the class count gets the same
    weight as the term counts.

On long documents the complement model's weights take NBSVM's log-count ratios of its own
sums (Wang & Manning 2012; :func:`log_count_ratios`, ``ratios="auto"``: :func:`uses_ratios`):
each term's sums and features scaled by how well it tells the classes apart.

Everything here is numpy, with scipy.sparse's compiled products for the training's sparse
matrices (:class:`textnb.core.csr.CSR`: no scikit-learn, and no import of scipy.sparse,
whose import costs more CPU than the fit's products; threads are started by the training
functions only, so that scoring one document starts none),
so the training command and the model-file scorer share it (:mod:`textnb.text.training`, :mod:`textnb.text.scorer`)
with the estimator :class:`textnb.naive_bayes.discriminative.DiscriminativeNB`.
"""

import math
from functools import partial
from contextlib import contextmanager

import numpy as np

from textnb.core.csr import CSR, row_pointers
from textnb.core.forkmap import spare_cpus
from textnb.core.estimates import ALPHA_FLOOR, class_log_prior, prior_free_bias
from textnb.core.logspace import log_proba_from_jll, logsumexp, prior_where_empty
from textnb.core.model_schema import MAX_ALPHA, N_JOBS, SEED, SPLITS, Bool, Choice, Float, Int, OneOf, Optional, check_param_values

__all__ = ["FAMILIES", "DEFAULT_ALPHA", "STEP", "LONG_DOCUMENT_STEP", "LONG_DOCUMENT_TERMS", "STEP_RULE", "STEP_VALUE", "pass_step", "pass_steps", "RATIO_RULE", "long_documents", "uses_ratios", "pass_ratios", "log_count_ratios", "PARAM_SCHEMA", "fit_rows", "choose_family", "COMPLEMENT_RATIOS", "races_ratios", "class_sums", "class_cell_sums", "doc_features", "features", "learn",
           "linear_weights", "model_weights", "no_evidence_log_prior", "fit_scale", "held_out_scale", "leave_out_scale",
           "Scale", "scale_state",
           "leave_out_scores", "fit_residual", "layer_features", "term_presence", "LAYER_FIELD", "RESIDUAL_STRENGTHS", "RESIDUAL_WORK", "passes", "check_folds", "restrict_splits", "map_threads", "sample_keys", "sample_rows",
           "threads", "content_keys", "group_keys"]

FAMILIES = ("complement", "bernoulli")

#: A pass weight: the ``step`` parameter's numbers, and the ``step_`` a model file records.
STEP_VALUE = Float(0.0, 1e6)

#: The number of folds of ``cv``: an int in this range (None means :data:`DEFAULT_FOLDS`).
FOLDS = Int(2, 100)
DEFAULT_FOLDS = 5
#: The estimator's parameters, as a model file may hold them (and as ``fit`` checks them;
#: ``cv`` is checked by :func:`check_folds`, or given as splits by the estimator).
PARAM_SCHEMA = {
    "event_model": Choice("auto", *FAMILIES), "alpha": Optional(Float(0.0, MAX_ALPHA)), "passes": Int(0, 1000),
    "step": OneOf(Choice("auto"), STEP_VALUE), "cv": Optional(OneOf(FOLDS, SPLITS)), "select_nnz": Int(0, 2**62),
    "max_nnz": Int(1, 2**62), "random_state": SEED, "n_jobs": N_JOBS, "calibration": Choice("temperature", None),
    "ratios": OneOf(Choice("auto"), Bool()), "residual": OneOf(Choice("auto"), Bool()),
}


#: The weight of a misclassified document in a pass (``step``) that ``"auto"`` gives
#: (:func:`pass_step`): :data:`LONG_DOCUMENT_STEP` to the Bernoulli event model over documents
#: of at least :data:`LONG_DOCUMENT_TERMS` distinct terms (the median of the documents the
#: passes run over), :data:`STEP` otherwise.
STEP = 4.5
LONG_DOCUMENT_STEP = 6.75
LONG_DOCUMENT_TERMS = 50
#: :func:`pass_step`'s rule in words (``textnb inspect``, ``textnb merge``'s refusal)
STEP_RULE = (f"{LONG_DOCUMENT_STEP:g} for the Bernoulli model where the median document has "
             f"{LONG_DOCUMENT_TERMS} distinct terms or more, else {STEP:g}")


def pass_step(step, row_nnz, family):
    """The pass weight of a ``step`` parameter for the event model ``family`` over documents
    whose distinct terms (stored cells of their rows) are ``row_nnz``: a number as it is;
    ``"auto"`` :data:`LONG_DOCUMENT_STEP` for ``"bernoulli"`` when their median is at least
    :data:`LONG_DOCUMENT_TERMS`, else :data:`STEP`.

    Why: a long document is mostly learned right by the first model already (its
    ``1 - P(class | document)`` small), and under the Bernoulli model each of its many
    terms counts once, so the passes move it little; a larger weight lets them count.
    Measured on the eight visible corpora and the mail in four formats
    (``docs/text_accuracy.md``, "Session 34": 11-24 distinct terms a document on the short
    corpora, 100-294 on the long ones): the mail corpora, where the Bernoulli model is
    chosen, gain at 6.75 in every format. Larger weights gain more on mail as published but
    fall off a cliff where the passes overshoot, nearest on SpamAssassin's bodies without
    their header (98.48 % at 9, 94.89 % at 13.5): 6.75 keeps a factor of two from it. The
    transformed complement model collapses on long binary mail at larger weights
    (CSDMC2010 98.41 -> 91.40 at 13.5) and gains nothing beyond its noise on the topic
    corpora, and on short texts a larger weight loses (rt-polarity -0.32 at 6.75): both
    keep 4.5.
    """
    if isinstance(step, str):  # "auto" (the schema admits no other string)
        return LONG_DOCUMENT_STEP if family == "bernoulli" and long_documents(row_nnz) else STEP
    return float(step)


def pass_steps(step, row_nnz):
    """``{family: pass weight}``: :func:`pass_step` for each event model (what the
    event-model race trains each with)."""
    return {family: pass_step(step, row_nnz, family) for family in FAMILIES}


def long_documents(row_nnz):
    """Whether documents whose distinct terms (stored cells of their rows) are ``row_nnz``
    are long texts: their median at least :data:`LONG_DOCUMENT_TERMS` (none: short). The
    one test of :func:`pass_step` and :func:`uses_ratios`."""
    row_nnz = np.asarray(row_nnz)
    return bool(row_nnz.size) and float(np.median(row_nnz)) >= LONG_DOCUMENT_TERMS


#: :func:`uses_ratios`' rule in words (``textnb inspect``, ``textnb merge``'s refusal)
RATIO_RULE = (f"for the complement model where the median document has {LONG_DOCUMENT_TERMS} distinct terms or "
              f"more; on shorter ones when the event-model race finds they help")


def uses_ratios(ratios, row_nnz, family):
    """Whether the weights of the event model ``family`` take the log-count ratios
    (:func:`log_count_ratios`) under a ``ratios`` parameter, over documents whose distinct
    terms are ``row_nnz``: never for ``"bernoulli"``; for ``"complement"`` the bool given,
    or with ``"auto"`` on long documents (:func:`long_documents`).

    Why: measured on the eight visible corpora (``docs/text_accuracy.md``, "Session 35"),
    the ratios lift the complement model on every long corpus (20 Newsgroups +0.73 points,
    OHSUMED-23 +2.15, BBC News +0.22; on the mail the race then prefers it to the
    Bernoulli model: SpamAssassin +0.93, CSDMC2010 +0.30), and lose on short texts
    (rt-polarity -0.37, SMS Spam -0.09), whose few terms each carry a large share of a
    document already. Under the Bernoulli model they lost on the mail (session 33's study).
    Where this rule gives short texts none, the event-model race may still choose them
    (:func:`races_ratios`: TREC QC's questions gain from them, session 40).
    """
    if family != "complement":
        return False
    return long_documents(row_nnz) if isinstance(ratios, str) else bool(ratios)


def races_ratios(params):
    """Whether the event-model race of a DiscriminativeNB of constructor ``params`` also races
    the complement model with the log-count ratios where :func:`uses_ratios`' rule gives it
    none (short texts): with ``ratios="auto"`` and ``event_model="auto"``
    (:func:`choose_family`'s ``race_ratios``)."""
    return params.get("ratios") == "auto" and params["event_model"] == "auto"


def pass_ratios(ratios, row_nnz):
    """``{family: whether its weights take the ratios}``: :func:`uses_ratios` for each
    event model (what the event-model race trains each with)."""
    return {family: uses_ratios(ratios, row_nnz, family) for family in FAMILIES}


def log_count_ratios(feature_count, alpha):
    """Each term's weight under ``ratios``: NBSVM's log-count ratio (Wang & Manning 2012,
    §2.1) of the model's own sums, the largest over the classes of
    ``|log θ_cw − log θ̃_cw|``, the class's smoothed frequency of the term against its
    smoothed complement frequency (``α`` added to every sum, as :func:`linear_weights`
    smooths), scaled to mean 1 over the terms (all ones when every ratio is 0).

    The complement model's sums and documents are multiplied by these weights
    (:func:`linear_weights` with ``ratios``): a term that tells the classes apart counts
    more, one spread evenly counts less, as in NBSVM, whose ratios scale the binarised
    counts of a linear SVM. Computed from the sums themselves (documents' features plus
    what the passes added), so a model's weights stay a function of its sums:
    ``partial_fit`` and ``merge`` add sums and the ratios follow.

    One logarithm per term, not per class and term: with ``q_cw = θ_cw / θ̃_cw``, the largest
    ``|log q_cw|`` over the classes is ``log max(max_c q_cw, 1 / min_c q_cw)``."""
    fc = np.asarray(feature_count)  # (single precision sums are read as they are: no copy)
    a = max(float(alpha), ALPHA_FLOOR)
    if fc.shape[0] < 2 or fc.shape[1] == 0:
        return np.ones(fc.shape[1])
    n = fc.shape[1]
    total = fc.sum(axis=0, dtype=np.float64) + a  # (each complement sum is total - own, smoothed)
    own_sums = fc.sum(axis=1, dtype=np.float64) + a * n
    other_sums = float(total.sum()) - fc.sum(axis=1, dtype=np.float64)
    high, low = np.zeros(n), np.full(n, np.inf)
    own, other = np.empty(n), np.empty(n)
    for row, own_sum, other_sum in zip(fc, own_sums, other_sums):  # (a class at a time: in the CPU's caches)
        np.add(row, a, out=own)
        np.subtract(total, row, out=other)
        np.divide(own, other, out=own)
        own *= other_sum / own_sum  # q: the class's frequency over the complement's
        np.maximum(high, own, out=high)
        np.minimum(low, own, out=low)
    np.divide(1.0, low, out=low)
    np.maximum(high, low, out=high)
    r = np.log(high)
    mean = float(r.mean())
    return r / mean if mean > 0.0 else np.ones(n)


def fold_numbers(fold):
    """The distinct folds ``>= 0`` of ``fold`` (an int array: each row's fold, -1 for none),
    ascending: ``np.unique`` of them, which imports numpy.ma for its masked-array check (24 ms of
    CPU in a training process that needs nothing else of it)."""
    fold = np.asarray(fold)
    return np.flatnonzero(np.bincount(fold[fold >= 0]))


def check_folds(cv):
    """The number of folds of a ``cv`` parameter that must be a number of folds: an int in
    [2, 100], or None for :data:`DEFAULT_FOLDS`. Raises the one-line ParameterError
    ``"cv must be an integer in [2, 100]; got …"`` for anything else (splits given as
    a splitter or index arrays are for the estimator's ``fit``, which passes them as
    ``splits``: they name rows of the X given to it)."""
    if cv is None:
        return DEFAULT_FOLDS
    check_param_values({"cv": FOLDS}, {"cv": cv})
    return int(cv)


def restrict_splits(splits, rows, n):
    """``splits`` (``(train, test)`` index arrays over ``n`` documents) restricted to the
    documents ``rows`` and renumbered as positions in ``rows``; None stays None."""
    if splits is None or (len(rows) == n and np.array_equal(rows, np.arange(n))):
        return splits
    position = np.full(n, -1, dtype=np.intp)
    position[rows] = np.arange(len(rows))
    out = []
    for train, test in splits:
        tr, te = position[train], position[test]
        out.append((tr[tr >= 0], te[te >= 0]))
    return out
#: Smoothing of each family when none is given (chosen on the eight visible corpora,
#: docs/text_defaults.md).
DEFAULT_ALPHA = {"complement": 1.0, "bernoulli": 0.1}


def doc_features(family, data, indptr):
    """The summed feature of each stored cell of a CSR count matrix ``(data, indptr)``.

    complement: ``log(1 + tf)`` divided by the row's L2 norm; bernoulli: 1.
    """
    data = np.asarray(data, dtype=np.float64)
    if family == "bernoulli":
        return np.ones(data.shape)
    if family != "complement":
        raise ValueError(f"unknown event model {family!r}; expected one of {FAMILIES}")
    out = np.log1p(np.maximum(data, 0.0))
    lengths = np.diff(indptr)
    squares = np.add.reduceat(out * out, indptr[:-1][lengths > 0]) if out.size else np.zeros(0)
    norms = np.ones(lengths.size)
    norms[lengths > 0] = np.sqrt(squares)
    norms[norms == 0] = 1.0
    out /= np.repeat(norms, lengths)
    return out


def linear_weights(family, feature_count, class_count, alpha, pool=None, dtype=np.float64, ratios=False):
    """``(W, b)``: the model scores a document ``f(d) @ W.T + b``.

    complement: ``W = −log θ̃`` of the smoothed complement frequencies (Rennie et al.
    2003 eq. 6), ``b = 0`` (the class prior only with a single class; ``-inf`` for a class
    with no count, declared but never seen: :func:`~textnb.core.estimates.prior_free_bias`,
    as the bernoulli family's prior gives it); bernoulli:
    ``W = log θ − log(1 − θ) = log(N_cw + α) − log(N_c − N_cw + α)``,
    ``b = log prior + Σ_w log(1 − θ_cw)``. ``pool``, a thread pool, computes the rows
    (classes) in parallel: the same numbers. ``dtype`` float32 is for the passes
    (:func:`passes`); a model's weights are float64. ``ratios`` (complement only): the
    sums and the documents' features are scaled by :func:`log_count_ratios` of the sums,
    so ``W`` is the complement weights of the scaled sums, times the ratios.
    """
    r = log_count_ratios(feature_count, alpha) if ratios and family == "complement" else None
    fc = np.asarray(feature_count, dtype=dtype) if r is None else \
        np.multiply(feature_count, r, out=np.empty(np.shape(feature_count), dtype=dtype), casting="same_kind")
    cc = np.asarray(class_count, dtype=np.float64)
    alpha = dtype(max(float(alpha), ALPHA_FLOOR))  # alpha 0 would take the log of 0
    n_classes, n_terms = fc.shape
    W = np.empty(fc.shape, dtype=dtype)
    if family == "complement":
        total = fc.sum(axis=0) + alpha

        def rows(lo, hi):
            out = W[lo:hi]
            np.subtract(total, fc[lo:hi], out=out)  # smoothed complement counts
            np.maximum(out, alpha, out=out)  # >= alpha, also where rounding lost a tiny alpha
            den = np.log(out.sum(axis=1, keepdims=True))
            np.log(out, out=out)
            np.subtract(den, out, out=out)

    else:
        neg_sum = np.empty(n_classes)

        def rows(lo, hi):
            out = W[lo:hi]
            neg = np.subtract(cc[lo:hi, None].astype(dtype) + alpha, fc[lo:hi])
            np.maximum(neg, alpha, out=neg)  # counts of a valid model never exceed the class's
            np.log(neg, out=neg)
            neg_sum[lo:hi] = neg.sum(axis=1, dtype=np.float64)
            np.add(fc[lo:hi], alpha, out=out)
            np.log(out, out=out)
            out -= neg

    half = n_classes // 2  # the two halves of the classes (rows) in parallel
    map_threads(pool, lambda span: rows(*span), [(0, half), (half, n_classes)] if half else [(0, n_classes)])
    if family == "complement":
        if r is not None:
            W *= r.astype(dtype)
        b = prior_free_bias(class_log_prior(cc))  # (0; -inf for a class without documents)
    else:
        b = class_log_prior(cc) + (neg_sum - n_terms * np.log(cc + 2 * float(alpha)))
    return W, b


def model_weights(family, feature_count, class_count, alpha, scale=1.0, ratios=False):
    """A fitted model's ``(W, b)``: :func:`linear_weights` (with ``ratios`` when the model
    takes them) times its calibration ``scale`` (:func:`fit_scale`; 1 for an uncalibrated
    model). The estimator and the model-file scorer both score with these."""
    W, b = linear_weights(family, feature_count, class_count, alpha, ratios=ratios)
    if float(scale) != 1.0:
        W *= float(scale)
        b = b * float(scale)
    return W, b


#: Rows below which work is not split in two (a thread costs more than it saves).
_MIN_SPLIT = 2048


def no_evidence_log_prior(family, class_documents):
    """The joint log-likelihood a model of ``family`` gives a document with no known term,
    or None when that is its ordinary score.

    complement: its scores have no class prior (Rennie et al. 2003, §3.1), so such a
    document gets the log class frequencies of the documents learned
    (``class_documents_``), unscaled by the calibration: ``predict_proba`` is that prior
    exactly. bernoulli: None (the absence of every term is evidence, and the prior is
    in the bias).
    """
    return class_log_prior(class_documents) if family == "complement" else None


def canonical(X):
    """The :class:`~textnb.core.csr.CSR` matrix of ``X`` (a scipy.sparse matrix or a dense
    array) with sorted indices and no duplicates (a copy only when needed): a document's
    features and score are then summed in one order, as the model-file scorer does. A
    :class:`~textnb.core.csr.CSR` is returned as it is: its maker gives canonical rows (the
    training's rows, :meth:`textnb.text.training.Accumulator.row_matrix`), and the training
    then imports no scipy.sparse (:func:`textnb.core.csr.kernels`)."""
    if isinstance(X, CSR):
        return X
    import scipy.sparse as sp

    X = sp.csr_matrix(X) if not sp.issparse(X) or X.format != "csr" else X
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    return CSR.of(X)


def joint_log_likelihood(family, X, coef, intercept, class_documents, presence=None):
    """The joint log-likelihood of a model of ``family`` (weights ``coef``, ``intercept``:
    :func:`model_weights`) for the canonical counts ``X`` (:func:`canonical`), plus ``presence`` (classes x
    terms: a residual layer's weights over the terms' presence, :func:`layer_features`)
    when given; a document with no known term gets :func:`no_evidence_log_prior`."""
    jll = np.asarray(features(family, X) @ coef.T) + intercept
    if presence is not None:
        jll += np.asarray(term_presence(X) @ presence.T)
    prior = no_evidence_log_prior(family, class_documents)
    return jll if prior is None else prior_where_empty(jll, X.empty_rows(), prior)


def map_threads(pool, fn, items):
    """``[fn(x) for x in items]``, in the thread ``pool`` when there is one and more than
    one item (in order either way)."""
    items = list(items)
    if pool is None or len(items) < 2:
        return [fn(x) for x in items]
    return list(pool.map(fn, items))


#: Score cells (documents x classes) computed at once: memory stays bounded with many classes.
_CHUNK_CELLS = 1 << 21
#: Work of one pass at most, in stored document-term cells x classes (about a second): with
#: more, the passes run on a sample (:func:`pass_budget`).
PASS_WORK = 4e8
#: The same bound for the event-model choice (its cross-validation costs some ten passes).
SELECT_WORK = 4e7


def pass_budget(max_nnz, n_classes, work=PASS_WORK):
    """Stored cells the passes may use: ``max_nnz``, fewer with very many classes."""
    return int(max(1, min(max_nnz, work // max(n_classes, 1))))


def _row_chunks(n, n_classes):
    """Fixed row blocks for scoring: at most ``_CHUNK_CELLS`` scores each, and in two halves
    at least from ``_MIN_SPLIT`` rows on (for two threads). Fixed by ``n`` and the number
    of classes alone, so a result never depends on the number of threads."""
    size = max(1, _CHUNK_CELLS // max(n_classes, 1))
    if n >= _MIN_SPLIT:
        size = min(size, -(-n // 2))
    return [(lo, min(n, lo + size)) for lo in range(0, n, size)] or [(0, 0)]


def _true_class_loss(blocks, spans, W, b, y_index, pool=None):
    """``1 − P(class | d)`` of every document, scored block by block (never all the
    documents x classes scores at once): single-precision products, the bias and the
    normalisation in double precision."""
    Wt = np.ascontiguousarray(W.T)

    def one(i):
        lo, hi = spans[i]
        S = np.asarray(blocks[i] @ Wt).astype(np.float64)
        S += b
        log_p = S[np.arange(hi - lo), y_index[lo:hi]] - logsumexp(S, axis=1)
        return -np.expm1(log_p)  # exact near 0

    parts = map_threads(pool, one, range(len(spans)))
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def passes(family, feature_count, class_count, T, y_index, *, alpha, n_passes, step, scale=1.0, weights=None,
           pool=None, added=None, dtype=np.float32, ratios=False):
    """Run ``n_passes`` frequency-estimate passes; returns the new ``(feature_count, class_count)``.

    ``T`` is the CSR matrix of the documents' features (:func:`doc_features`), ``y_index``
    their class indices. Each pass scores every document under the model of the previous
    pass and adds it to its class with weight ``step * scale * (1 − P(class | d))``
    (``scale`` > 1 when ``T`` is a sample standing for more documents), times the
    document's ``weights`` when given. The inputs are not modified, except ``added``: when
    given (an array of one float per document), each document's added weights are
    summed into it (:func:`leave_out_scale` takes them out again). ``pool`` (a thread
    pool) scores fixed blocks of documents in parallel: the result does not depend on it.

    The scores and the added documents are computed in single precision (twice as
    fast; a loss needs no more digits), the sums are kept in double precision.
    ``dtype=np.float64`` computes them in double precision too: a document of weight k
    then adds what its k copies add, to rounding (given splits use it, see :func:`fit_rows`).
    ``ratios``: each pass scores with :func:`linear_weights`' ratios of its sums.
    """
    fc = np.array(feature_count, dtype=np.float64, order="C")
    cc = np.array(class_count, dtype=np.float64)
    n_classes, n = cc.shape[0], T.shape[0]
    if n_classes < 2 or n == 0 or int(n_passes) == 0:
        return fc, cc
    T = T.astype(dtype, copy=False)
    spans = _row_chunks(n, n_classes)
    blocks = [T] if len(spans) == 1 else [T[lo:hi] for lo, hi in spans]
    for _ in range(int(n_passes)):
        W, b = linear_weights(family, fc, cc, alpha, pool, dtype=dtype, ratios=ratios)
        loss = _true_class_loss(blocks, spans, W, b, y_index, pool)
        loss *= step * scale
        if weights is not None:
            loss *= weights
        if added is not None:
            added += loss
        fc += class_table(T, y_index, n_classes, loss.astype(dtype))
        cc += np.bincount(y_index, weights=loss, minlength=n_classes)
    return fc, cc


def scores(T, W, b, pool=None):
    """``T @ W.T + b`` block by block in the ``pool``: the products in ``T``'s and ``W``'s
    precision, the bias added in double precision."""
    n_classes = W.shape[0]
    spans = _row_chunks(T.shape[0], n_classes)
    Wt = np.ascontiguousarray(W.T)
    parts = map_threads(pool, lambda span: np.asarray(T[span[0]:span[1]] @ Wt).astype(np.float64) + b, spans)
    return parts[0] if len(parts) == 1 else np.vstack(parts)


#: Bounds of the calibration scale (a model can be at most this much sharper or flatter).
SCALE_RANGE = (1e-3, 1e3)
#: Fewest documents a calibration scale is fitted on (with fewer the model stays uncalibrated).
MIN_CALIBRATION_DOCUMENTS = 50
#: Most documents held out for the calibration (one scalar needs no more; fewer held out per
#: fold also leave each fold's model closer to the trained one).
MAX_CALIBRATION_DOCUMENTS = 5000
#: Held-out folds scored for a calibration scale fitted alone (no residual layer; the other
#: folds' documents are not held out), when they hold :data:`SCALE_DOCUMENTS` documents or more:
#: one scalar is fitted as well on three folds as on five (docs/text_calibration.md,
#: "Session 41"), and each fold is a model's weights over the whole vocabulary.
SCALE_FOLDS = 3
#: Documents the :data:`SCALE_FOLDS` folds must hold for the scale to be fitted on them alone.
SCALE_DOCUMENTS = 2000
#: At most this many held-out scores (documents x classes; 16 MB in float64): with more than
#: MAX_CALIBRATION_CELLS / MIN_CALIBRATION_DOCUMENTS (40,000) classes a model stays uncalibrated.
MAX_CALIBRATION_CELLS = 2_000_000


class Scale(float):
    """A calibration scale (:func:`fit_scale`), with ``weight``: the evidence it was fitted
    on, the curvature of the held-out log-loss in ``log s`` at it (about the number of
    documents whose probabilities it moves), which a later batch's fit weighs it by."""

    def __new__(cls, value, weight):
        scale = super().__new__(cls, value)
        scale.weight = float(weight)
        return scale


def scale_state(scale):
    """The model-state fields of a fitted :class:`Scale` (``scale_``, ``scale_weight_``), or
    none (None: not calibrated); a plain number gives ``scale_`` alone."""
    if scale is None:
        return {}
    state = {"scale_": float(scale)}
    if isinstance(scale, Scale):
        state["scale_weight_"] = scale.weight
    return state


def fit_scale(S, y_index, weights=None, *, prior=None):
    """The temperature of scores ``S`` (documents x classes) for true classes ``y_index``:
    the ``s > 0`` that minimises the (``weights``-weighted) log-loss of
    ``softmax(s * S)`` (Guo, Pleiss, Sun & Weinberger 2017, "On calibration of modern
    neural networks", ICML, §4.2: temperature scaling, ``s = 1 / T``), a :class:`Scale`
    (its ``weight`` the log-loss's curvature in ``log s`` at the minimum).

    ``prior`` (``(s0, h0)``: an earlier batch's scale and its weight): the scale of these
    scores and the earlier ones together, the earlier log-loss taken as the quadratic in
    ``log s`` its minimum and curvature give (a Laplace approximation, MacKay 1992): a
    later batch of ``partial_fit`` moves the scale by its own evidence, not to what its
    few documents alone give (50 documents a strong model classifies without an error
    separate the classes: their scale alone runs to its bound).

    The log-loss is convex in ``s``: its derivative ``Σ w (E_p[S] − S_y)`` increases
    with ``s`` (its own derivative is ``Σ w Var_p[S] ≥ 0``), so the root is bracketed and
    found by Newton steps (in ``log s``) that fall back to bisection. The scale stays in
    :data:`SCALE_RANGE` (its bound when the scores separate the classes perfectly).
    One scalar for all classes: the model's decisions are unchanged.

    A class the scoring model did not know (none of its documents outside the held-out
    fold: a score of ``-inf``) is kept out of the fit: a document of that class is left
    out, and that class counts as 1e6 below a document's best one for the others
    (probability 0 at any scale of :data:`SCALE_RANGE`; ``-inf`` would make the
    log-loss's slope ``0 * inf``, not a number).
    """
    S = np.asarray(S, dtype=np.float64)
    y_index = np.asarray(y_index)
    w = np.ones(S.shape[0]) if weights is None else np.asarray(weights, dtype=np.float64)
    known = np.isfinite(S[np.arange(S.shape[0]), y_index])
    if not known.all():
        S, y_index, w = S[known], y_index[known], w[known]
    n = S.shape[0]
    S = S - S.max(axis=1, keepdims=True)  # the same softmax, no overflow
    S = np.maximum(S, -1e6)  # (a class the model did not know: -inf)
    true = S[np.arange(n), y_index]

    S2 = S * S

    u0, h0 = (0.0, 0.0) if prior is None else (math.log(min(max(prior[0], SCALE_RANGE[0]), SCALE_RANGE[1])),
                                                max(float(prior[1]), 0.0))

    def slope(s):
        """(d/du, d²/du²) of the log-loss (and the prior's quadratic) at ``s = e**u``."""
        P = np.exp(np.maximum(s * S, -500.0))  # e**-500 is 0 here, but no slow subnormal numbers
        z = P.sum(axis=1)
        mean = np.einsum("ij,ij->i", P, S) / z
        var = np.einsum("ij,ij->i", P, S2) / z - mean * mean
        g, h = float(w @ (mean - true)), float(w @ np.maximum(var, 0.0))
        pull = h0 * (math.log(s) - u0)
        return s * g + pull, s * s * h + s * g + h0

    lo, hi = SCALE_RANGE
    s = 1.0
    for _ in range(100):
        gu, hu = slope(s)
        if gu > 0:
            hi = s
        else:
            lo = s
        if abs(gu) <= 1e-9 * s * max(1.0, float(w.sum()) + h0) or hi <= lo * (1 + 1e-9):
            break
        # a Newton step in log s (the scale is a ratio), else the geometric middle of the bracket
        step = s * math.exp(max(-50.0, min(50.0, -gu / hu))) if hu > 0 else None
        s = step if step is not None and lo < step < hi else math.sqrt(lo * hi)
    return Scale(s, max(slope(s)[1], 0.0))


def leave_out_scale(family, feature_count, class_count, T, y_index, contribution, *, alpha, keys, folds=5,
                    weights=None, pool=None, splits=None, ratios=False, residual=False, n_jobs=1, prior=None):
    """The calibration scale (:func:`fit_scale`) of a trained model ``(feature_count,
    class_count)`` fitted on held-out scores of its own training documents ``T``.

    At most :data:`MAX_CALIBRATION_DOCUMENTS` of the documents (document features ``T``,
    classes ``y_index``), those of the smallest ``keys``, are dealt into ``folds`` folds in
    the order of their keys (content keys: copies of a document share one fold, so a
    held-out document is never also a training one); each fold is scored by the model
    with the fold's own ``contribution`` taken out (each document's total weight in the sums: 1, or its
    sample weight, plus what the frequency-estimate passes added for it, recorded by
    :func:`passes`). That is the model trained without the fold, up to the passes'
    weights of the other documents (computed with the fold present), at the cost of a
    scoring pass instead of ``folds`` trainings (for a scale fitted alone, with no residual
    layer, the first :data:`SCALE_FOLDS` folds only, when they hold :data:`SCALE_DOCUMENTS`
    documents: the others are then not held out). Scores of the training documents
    under the full model would be overconfident; these are out-of-fold scores, as
    cross-validated calibration uses (Platt 1999, Guo et al. 2017). ``weights`` weigh
    the log-loss. Returns None (nothing to calibrate on) with fewer than
    :data:`MIN_CALIBRATION_DOCUMENTS` documents, fewer than two classes, or so many classes
    that that many documents' scores exceed :data:`MAX_CALIBRATION_CELLS`.

    ``splits`` (``(train, test)`` index arrays into ``T``, e.g. from a scikit-learn
    splitter) replace the folds: each split's test documents are scored by the model with
    the contribution of every document *outside its training part* taken out (for
    K-fold splits, the test fold's), and the scale is fitted on all those scores
    stacked. A document in no test part gives no held-out score; a document in several
    gives one per split (each weighed by its ``weights``). At most
    :data:`MAX_CALIBRATION_DOCUMENTS` held-out scores are used (those of the documents
    of the smallest ``keys``), and None is returned when their summed ``weights``
    (documents) are fewer than :data:`MIN_CALIBRATION_DOCUMENTS`: so a document of
    weight 2 counts as two copies in its place.

    ``ratios`` (a model whose weights take :func:`log_count_ratios`): each held-out model's
    weights take the ratios of its own sums (the fold's contribution taken out), as the
    model trained without the fold would.

    ``residual``: also fit :func:`fit_residual` on the same held-out scores, times the
    scale, and return ``(scale, residual)`` (each None when there is nothing to fit);
    ``n_jobs``: :func:`fit_residual`'s. ``prior``: an earlier batch's scale and its weight
    (:func:`fit_scale`).
    """
    if splits is not None:
        return _splits_scale(family, feature_count, class_count, T, y_index, contribution, alpha=alpha, keys=keys,
                             splits=splits, weights=weights, pool=pool, ratios=ratios, residual=residual,
                             n_jobs=n_jobs, prior=prior)
    n, n_classes = T.shape[0], len(class_count)
    nothing = (None, None) if residual is not False else None
    if n < max(MIN_CALIBRATION_DOCUMENTS, 2 * folds) or n_classes < 2:
        return nothing
    # by content (any row order alike); equal documents, which have equal keys, in one fold
    _, rank = np.unique(np.asarray(keys), return_inverse=True)
    rank = rank.reshape(-1)
    # the held-out scores are (documents x classes): with very many classes, fewer documents
    limit = min(n, MAX_CALIBRATION_DOCUMENTS, MAX_CALIBRATION_CELLS // n_classes)
    if limit < MIN_CALIBRATION_DOCUMENTS:
        return nothing
    held = np.flatnonzero(rank < np.sort(rank)[limit - 1] + 1)  # the smallest keys
    fold = np.full(n, -1)
    fold[held] = rank[held] % folds
    layer = residual is not False and _residual_in_budget(T, held, n_classes, residual)
    if not layer and folds > SCALE_FOLDS and np.count_nonzero(fold[held] < SCALE_FOLDS) >= SCALE_DOCUMENTS:
        fold[fold >= SCALE_FOLDS] = -1  # a scale alone: the first folds' documents (see SCALE_FOLDS)
        held = held[fold[held] >= 0]
    S = leave_out_scores(family, feature_count, class_count, T, y_index, contribution, fold, alpha=alpha, pool=pool,
                         ratios=ratios)
    w = None if weights is None else np.asarray(weights)[held]
    scale = fit_scale(S, y_index[held], w, prior=prior)
    if residual is False:
        return scale
    if not layer:
        return scale, None
    return scale, fit_residual(layer_features(family, T[held]), scale * S, y_index[held], w, fold[held],
                               budget=residual == "auto", pool=pool, n_jobs=n_jobs)


def held_out_scale(S, y_index, keys):
    """The calibration scale (:func:`fit_scale`) of held-out scores ``S`` (documents x
    classes) of documents of classes ``y_index``, e.g. :func:`leave_out_scores`: fitted on
    at most :data:`MAX_CALIBRATION_DOCUMENTS` documents (and :data:`MAX_CALIBRATION_CELLS`
    scores), those of the smallest ``keys``. A document whose own class the model that
    scored it did not know (score ``-inf``) is left out; another unknown class counts as
    1e6 below the document's best one (probability 0 at any scale of :data:`SCALE_RANGE`).
    None (nothing to calibrate on) with fewer than :data:`MIN_CALIBRATION_DOCUMENTS`
    documents or fewer than two classes.
    """
    S = np.asarray(S, dtype=np.float64)
    n, n_classes = S.shape
    ok = np.flatnonzero(np.isfinite(S[np.arange(n), y_index]))
    limit = min(ok.size, MAX_CALIBRATION_DOCUMENTS, MAX_CALIBRATION_CELLS // max(n_classes, 1))
    if limit < MIN_CALIBRATION_DOCUMENTS or n_classes < 2:
        return None
    held = np.sort(ok[np.argsort(np.asarray(keys)[ok], kind="stable")[:limit]])
    return fit_scale(S[held], y_index[held])


#: The L2 strengths of the residual (:func:`fit_residual`) its inner cross-validation
#: chooses from, strongest first (each fit starts from the one before).
RESIDUAL_STRENGTHS = (10.0, 3.0, 1.0, 0.3, 0.1, 0.03)
#: ``residual="auto"`` fits a residual only where one pass over the held-out documents
#: (their stored cells x the classes) is at most this much work: on the visible corpora
#: it costs a few seconds at most; 20 Newsgroups (20 classes, about 1.2 million cells in
#: 5,000 documents) and OHSUMED-23 are over it.
RESIDUAL_WORK = 4_000_000
#: The strength is chosen on this many of the calibration's folds (each fitted on the others).
RESIDUAL_CHOICE_FOLDS = 2
#: ``n_jobs`` None starts a second thread for a residual only when one pass over its documents is
#: at least this much work (stored cells x weight columns: one with two classes): BBC News (2.2
#: million) and SpamAssassin (1.4 million) gained wall time from it; TREC QC (0.34 million) and
#: SMS (0.10 million) paid CPU time for nothing (TREC QC 0.58 -> 0.71 s of CPU, 0.60 s wall).
RESIDUAL_THREAD_WORK = 1_000_000
#: Fewest held-out documents a residual is fitted on (on fewer, its choice of strength is noise:
#: a 400-document sample of the SMS collection lost 1.3 points with one).
RESIDUAL_MIN_DOCUMENTS = 1000
#: At most this many L-BFGS iterations a residual fit (:func:`minimize_lbfgs`).
RESIDUAL_ITERATIONS = 100
#: A residual fit stops when an iteration lowers its objective by less than this share.
RESIDUAL_TOLERANCE = 1e-6


def minimize_lbfgs(fun, x, *, max_iterations=None, tolerance=None, memory=10):
    """The ``x`` that minimises the smooth convex ``fun`` (which returns the value and the
    gradient), by limited-memory BFGS (Nocedal 1980: the two-loop recursion over the last
    ``memory`` steps, a backtracking line search for Armijo's sufficient decrease), from
    the start ``x``; it stops after ``max_iterations`` steps (None:
    :data:`RESIDUAL_ITERATIONS`), or when a step lowers the value by less than
    ``tolerance`` (None: :data:`RESIDUAL_TOLERANCE`) times its size. Deterministic: the
    same floats on every run."""
    max_iterations = RESIDUAL_ITERATIONS if max_iterations is None else max_iterations
    tolerance = RESIDUAL_TOLERANCE if tolerance is None else tolerance
    x = np.array(x, dtype=np.float64)
    f, g = fun(x)
    history = []
    for _ in range(max_iterations):
        q = g.copy()
        alphas = []
        for s_, y_, rho in reversed(history):
            a = rho * float(s_ @ q)
            q -= a * y_
            alphas.append(a)
        if history:
            s_, y_, _ = history[-1]
            q *= float(s_ @ y_) / float(y_ @ y_)
        else:
            q /= max(1.0, float(np.sqrt(g @ g)))
        for (s_, y_, rho), a in zip(history, reversed(alphas)):
            q += (a - rho * float(y_ @ q)) * s_
        d = -q
        slope = float(g @ d)
        if slope >= 0:  # (not a descent direction: rounding) the gradient instead
            history.clear()
            d, slope = -g, -float(g @ g)
        if slope == 0:
            break
        t = 1.0
        while True:
            x_new = x + t * d
            f_new, g_new = fun(x_new)
            if f_new <= f + 1e-4 * t * slope or t < 1e-12:
                break
            t *= 0.5
        s_, y_ = x_new - x, g_new - g
        sy = float(s_ @ y_)
        if sy > 1e-12:
            history.append((s_, y_, 1.0 / sy))
            if len(history) > memory:
                history.pop(0)
        done = f - f_new <= tolerance * max(1.0, abs(f_new))
        x, f, g = x_new, f_new, g_new
        if done:
            break
    return x


def _within_work(cells, n_classes):
    """Whether a residual over documents of ``cells`` stored cells and ``n_classes`` classes
    is within :data:`RESIDUAL_WORK` (the one test of ``residual="auto"``'s bound)."""
    return int(cells) * n_classes <= RESIDUAL_WORK


def _residual_in_budget(T, rows, n_classes, residual):
    """Whether :func:`fit_residual` may fit a residual on the ``rows`` of ``T`` under the
    ``residual`` parameter: ``"auto"`` only :func:`_within_work` (looked at before the rows
    are copied: 20 Newsgroups pays nothing for its residual not fitted)."""
    return residual != "auto" or _within_work(np.diff(T.indptr)[rows].sum(), n_classes)


def _row_blocks(M, pool):
    """``M`` (CSR) in two blocks of rows with a thread ``pool`` (each block's product is
    computed in a thread of its own), else whole."""
    half = M.shape[0] // 2
    return [M] if pool is None or half < 1 else [M[:half], M[half:]]


def _product(blocks, A, pool):
    """``M @ A`` of the row ``blocks`` of ``M`` (:func:`_row_blocks`), in the ``pool``: each
    row's product is computed as without blocks, so the floats are the same."""
    parts = map_threads(pool, lambda B: np.asarray(B @ A), blocks)
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _residual_loss(T, O, y_index, weights, pool=None):
    """The objective of :func:`fit_residual` on documents ``T`` as a function of the
    strength, which gives the objective at that strength and its gradient, of the flat
    vector ``(V.ravel(), c)`` (``V``: terms x classes), or with two classes of ``(u, beta)``
    (:func:`_residual_vector`). The documents' matrix and its transpose are made once for
    every strength; ``pool``: the products in two threads (the same floats)."""
    T_blocks, Tt_blocks = _row_blocks(T, pool), _row_blocks(T.T.tocsr(), pool)
    loss = _binary_residual_loss if O.shape[1] == 2 else _multinomial_residual_loss
    return partial(loss, T_blocks, Tt_blocks, O, y_index, weights, pool=pool)


def _multinomial_residual_loss(T_blocks, Tt_blocks, O, y_index, weights, strength, pool):
    """:func:`_residual_loss` at ``strength`` with more than two classes."""
    n, k = O.shape
    d = T_blocks[0].shape[1]
    rows = np.arange(n)

    def loss(x):
        V, c = x[:d * k].reshape(d, k), x[d * k:]
        Z = O + _product(T_blocks, V, pool) + c
        Z -= Z.max(axis=1, keepdims=True)
        E = np.exp(Z)
        z = E.sum(axis=1)
        value = float(weights @ (np.log(z) - Z[rows, y_index])) + 0.5 * strength * float(V.ravel() @ V.ravel())
        G = E / z[:, None]
        G[rows, y_index] -= 1.0
        G *= weights[:, None]
        grad = np.concatenate([(_product(Tt_blocks, G, pool) + strength * V).ravel(), G.sum(axis=0)])
        return value, grad

    return loss


def _binary_residual_loss(T_blocks, Tt_blocks, O, y_index, weights, strength, pool):
    """:func:`_residual_loss` with two classes, in half the numbers. Only the difference of
    the two classes' scores counts, and the penalty is least, for a given difference, when
    the two columns of ``V`` are opposite (as the minimum of the objective has them, and so
    the two biases, which start at 0 and move by opposite gradients): ``V = [-u/2, u/2]``,
    ``c = [-beta/2, beta/2]``. Then the objective is binary logistic regression on the
    difference, ``sum w log(1 + exp(-s (o + T u + beta)))`` (``s``: +1 for the second class,
    -1 for the first; ``o``: the difference of the offsets) plus ``strength / 4 * |u|^2``: the
    same minimum, for half the products and half the vector work of each step."""
    margin = O[:, 1] - O[:, 0]
    sign = np.where(np.asarray(y_index) == 1, 1.0, -1.0)

    def loss(x):
        u = x[:-1]
        z = sign * (margin + _product(T_blocks, u, pool) + x[-1])
        value = float(weights @ np.logaddexp(0.0, -z)) + 0.25 * strength * float(u @ u)
        r = -sign * weights * np.exp(-np.logaddexp(0.0, z))  # d value / d score: -s w sigmoid(-z)
        return value, np.concatenate([_product(Tt_blocks, r, pool) + 0.5 * strength * u, [r.sum()]])

    return loss


def _weight_columns(k):
    """The residual's weight columns for ``k`` classes: one with two (:func:`_binary_residual_loss`)."""
    return 1 if k == 2 else k


def _residual_vector(x, k):
    """The flat ``(V.ravel(), c)`` of :func:`_residual_loss`'s vector ``x`` of ``k``
    classes (two classes: ``(u, beta)`` expanded, :func:`_binary_residual_loss`)."""
    if k != 2:
        return x
    u, beta = x[:-1], x[-1]
    return np.concatenate([np.column_stack([-0.5 * u, 0.5 * u]).ravel(), [-0.5 * beta, 0.5 * beta]])


def _held_out_loss(T, O, y_index, weights, x):
    """The weighted log-loss of ``softmax(O + T V + c)`` (``x``: :func:`_residual_loss`'s vector)."""
    k = O.shape[1]
    d = T.shape[1]
    Z = O + np.asarray(T @ x[:d * k].reshape(d, k)) + x[d * k:]
    return float(weights @ (logsumexp(Z, axis=1) - Z[np.arange(Z.shape[0]), y_index]))


def layer_features(family, T):
    """The features the residual layer (:func:`fit_residual`) weighs, from the document
    features ``T`` (CSR) of a model of ``family``: each term's presence in the document (1 in
    every cell of ``T`` that is not 0), the binarised features of NBSVM (Wang & Manning 2012).
    For the Bernoulli model they are its document features themselves, so its layer folds into
    its weights (``residual_``); the complement model's are ``log(1 + tf)`` over the row's L2
    norm, and its layer is a second weight matrix over presence (``residual_presence_``, which
    :func:`joint_log_likelihood` and the model-file scorer add). Over presence, the layer gained
    on the corpora where it is fitted with the complement model (docs/text_accuracy.md,
    sessions 39-40: TREC QC 88.20 -> 88.80 %, SpamAssassin 99.40 -> 99.54 %) and lost on none
    beyond the noise: in the complement features a term's weight shrinks with the document's
    length, which a correction for what the naive Bayes weights get wrong about one term need
    not share."""
    return T if family == "bernoulli" else term_presence(T)


def term_presence(X, dtype=None):
    """The terms' presence in the documents of counts or features ``X``: 1 in each cell
    that is not 0, 0 in the others, of ``dtype`` (``X``'s own by default). A sparse ``X``
    (a :class:`~textnb.core.csr.CSR`, or any scipy.sparse matrix: made CSR) gives a CSR
    copy with its stored cells so set (a stored 0 stays a stored 0); a dense one, an array.
    The one presence of the residual layer (:func:`layer_features`, :func:`joint_log_likelihood`)
    and of a :class:`~textnb.naive_bayes.kernels.LinearForm`'s ``presence`` weights."""
    if hasattr(X, "tocsr"):
        out = X.copy() if X.format == "csr" else X.tocsr(copy=True)
        out.data = (out.data != 0).astype(out.data.dtype if dtype is None else dtype)
        return out
    X = np.asarray(X)
    return (X != 0).astype(X.dtype if dtype is None else dtype)


#: The state field of the residual layer's weights of a model of each event model
#: (:func:`layer_features`): folded into the weights, or over presence.
LAYER_FIELD = {"bernoulli": "residual_", "complement": "residual_presence_"}


def fit_residual(T, O, y_index, weights, fold, *, budget=True, strengths=RESIDUAL_STRENGTHS, pool=None, n_jobs=1):
    """A residual logistic layer over a calibrated model's held-out log-odds: the weights
    ``V`` (classes x terms) and bias ``c`` that minimise the (``weights``-weighted) log-loss
    of ``softmax(O + T V.T + c)`` plus ``strength / 2 * |V|^2``, for the held-out scores ``O``
    (documents x classes: the calibrated out-of-fold scores of :func:`leave_out_scale`) of
    documents of features ``T`` and classes ``y_index``.

    This is logistic regression with a Gaussian prior centred on the naive Bayes weights:
    ``T`` are the layer's features (:func:`layer_features`: the terms' presence), and where
    they are the model's own (the Bernoulli model) the model's score plus the layer is
    ``T (s W + V).T + s b + c``, one linear score per class, so the weights fold into the
    model's; else the model scores with ``V`` as a second weight matrix over presence. The naive Bayes estimate is
    the prior mean, and the discriminative fit moves it only as far as the held-out
    documents ask, as NBSVM (Wang & Manning 2012) interpolates between naive Bayes and an
    SVM; the offsets are out-of-fold scores, so the residual learns what the model gets
    wrong on documents it has not seen, not on the ones it learned. The strength is chosen
    among ``strengths`` by the held-out log-loss of the documents of the first
    :data:`RESIDUAL_CHOICE_FOLDS` of their ``fold``s (each fitted on the other folds),
    against the offsets alone, along the path from the strongest until the loss rises: when
    the strongest is no better than the offsets alone, no residual (None); none either on
    fewer than :data:`RESIDUAL_MIN_DOCUMENTS` documents. Fitted by
    :func:`minimize_lbfgs`, each fold's fit started from its fit at the stronger strength
    before, the final fit on every document from their mean. ``budget``: refuse (None) a
    residual whose pass over the documents is more than :data:`RESIDUAL_WORK` (stored
    cells x classes). Only the terms of the held-out documents get weights (the others'
    would stay 0). ``pool`` (a thread pool) fits the choice's folds side by side and
    computes the final fit's products in two threads: the same floats as without. Without
    one, ``n_jobs`` None (or negative) runs two threads when a CPU is idle now
    (:func:`~textnb.core.forkmap.spare_cpus`) and the work is at least
    :data:`RESIDUAL_THREAD_WORK`, as the passes do not: this is seconds of work on a few
    thousand documents, in parts that do not wait for each other.

    Returns ``(V, c, strength)`` (``V`` of shape (classes, all terms of ``T``)), or None.
    """
    O = np.asarray(O, dtype=np.float64)
    n, k = O.shape
    if n < RESIDUAL_MIN_DOCUMENTS or k < 2 or not np.isfinite(O).all():
        return None
    from threadpoolctl import threadpool_limits  # (training only)

    own = (pool is None and (n_jobs is None or n_jobs < 0)
           and getattr(T, "nnz", 0) * _weight_columns(k) >= RESIDUAL_THREAD_WORK and spare_cpus(now=True) > 0)
    # one BLAS thread: the fits' dot products are short and many, and OpenBLAS's threads,
    # woken for each, spin; on a busy machine they waited for CPUs: DiscriminativeNB().fit
    # of rt-polarity's training folds in a library process took 16-28 s of CPU instead of
    # 0.9 at a load average of 4 on 2 cores (the command line sets one BLAS thread itself)
    with threads(2 if own else 1) as own_pool, threadpool_limits(limits=1, user_api="blas"):
        return _fit_residual(T, O, y_index, weights, fold, budget, strengths, own_pool if own else pool)


def _fit_residual(T, O, y_index, weights, fold, budget, strengths, pool):
    """:func:`fit_residual`'s work, in the thread ``pool`` (or None)."""
    n, k = O.shape
    T = canonical(T).astype(np.float64, copy=False)
    cols = np.flatnonzero(np.bincount(T.indices, minlength=T.shape[1]))
    if budget and not _within_work(T.nnz, k):
        return None
    Tc = T[:, cols].tocsr()
    y_index = np.asarray(y_index)
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    fold = np.asarray(fold)
    folds = fold_numbers(fold)
    if folds.size < 2:
        return None
    parts = [(fold != f, fold == f) for f in folds[:RESIDUAL_CHOICE_FOLDS]]

    problems = [_residual_loss(Tc[train], O[train], y_index[train], w[train]) for train, _ in parts]

    m = _weight_columns(k)
    size = cols.size * m + m
    start = [np.zeros(size) for _ in parts]
    best, best_loss, best_start = None, sum(_held_out_loss(Tc[test], O[test], y_index[test], w[test],
                                                           _residual_vector(start[i], k))
                                            for i, (_, test) in enumerate(parts)), None
    for strength in strengths:  # the path from the strongest: it stops where the held-out loss rises
        start = map_threads(pool, lambda i: minimize_lbfgs(problems[i](strength), start[i]), range(len(parts)))
        loss = 0.0
        for i, (_, test) in enumerate(parts):
            loss += _held_out_loss(Tc[test], O[test], y_index[test], w[test], _residual_vector(start[i], k))
        if loss >= best_loss:
            break
        best, best_loss, best_start = strength, loss, np.mean(start, axis=0)
    if best is None:
        return None
    x = _residual_vector(minimize_lbfgs(_residual_loss(Tc, O, y_index, w, pool)(best), best_start), k)
    V = np.zeros((k, T.shape[1]))
    V[:, cols] = x[:cols.size * k].reshape(cols.size, k).T
    return V, x[cols.size * k:].copy(), float(best)


def leave_out_scores(family, feature_count, class_count, T, y_index, contribution, fold, *, alpha, pool=None,
                     X=None, scored=None, ratios=False):
    """Scores (:func:`scores`) of the documents of ``T`` with a ``fold`` >= 0 (in row order), each
    under the trained model ``(feature_count, class_count)`` with its own fold's ``contribution``
    taken out (each document's total weight in the sums, :func:`learn`): the model trained
    without the fold, up to the frequency-estimate weights of the other documents (computed
    with the fold present), for a scoring pass instead of a training per fold. Documents of
    fold -1 are not scored, nor those that ``scored`` (a boolean mask) leaves out (they are
    still taken out with their fold).

    ``X``, the documents' counts: when given, the model of a fold has the terms of the other
    folds only, and a held-out document is scored on these (its features recomputed without
    the others), as by a model trained without the fold, whose vocabulary would not have the
    fold's own terms (with the complement event model every term of the vocabulary weighs
    in a class's normalisation).

    ``ratios``: as :func:`leave_out_scale` takes it (each fold's model with its own sums'
    ratios: the whole vocabulary's weights, as with ``X``).
    """
    n_classes = len(class_count)
    fold = np.asarray(fold)
    score = fold >= 0 if scored is None else (fold >= 0) & np.asarray(scored, dtype=bool)
    position = np.full(T.shape[0], -1)
    position[score] = np.arange(int(score.sum()))
    S = np.empty((int(score.sum()), n_classes))
    fc = np.array(feature_count, dtype=np.float32)  # single precision, as in the passes
    df = None if X is None else np.bincount(X.indices, minlength=X.shape[1])
    local = _ComplementColumns(fc, class_count, alpha) if X is None and family == "complement" and n_classes > 1 \
        and not ratios else None
    for f in fold_numbers(fold):
        rows = np.flatnonzero(fold == f)
        if local is not None:
            W, b, Tf = local.without(T[rows], y_index[rows], contribution[rows], score[rows])
            S[position[rows[score[rows]]]] = scores(Tf, W, b, pool)
            continue
        rest, cc, restore = _take_out(fc, class_count, T[rows], y_index[rows], contribution[rows])
        seen = None if X is None else np.flatnonzero(df - np.bincount(X[rows].indices, minlength=X.shape[1]))
        if seen is not None and seen.size == X.shape[1]:
            seen = None
        W, b = linear_weights(family, rest if seen is None else rest[:, seen], cc, alpha, pool, dtype=np.float32,
                              ratios=ratios)
        restore()
        rows = rows[score[rows]]
        if X is not None:
            Tf = features(family, X[rows] if seen is None else X[rows][:, seen])
        else:
            Tf = T[rows]
        S[position[rows]] = scores(Tf.astype(np.float32, copy=False), W, b, pool)  # products in W's precision
    return S


class _ComplementColumns:
    """The complement weights (:func:`linear_weights`, single precision) of a model
    ``fc`` with the contribution of some documents taken out, on the columns of their
    terms only, for scoring those documents (:func:`leave_out_scores`).

    Taking documents out changes ``fc`` in the columns of their terms, and so each of
    those columns' smoothed complement counts; every other column keeps its counts, and
    its weights move by the one constant of its class's normalisation. A document's score
    reads its own terms' columns only, so the weights of those columns and the classes'
    normalisations are all it needs: each class's sum of complement counts is updated by
    the change in the taken-out documents' columns (in double precision) instead of summed
    again over the whole vocabulary. The same counts and weights as :func:`linear_weights`
    of the model without the documents, cell for cell, up to the rounding of those sums."""

    def __init__(self, fc, class_count, alpha):
        self.fc, self.class_count = fc, np.asarray(class_count, dtype=np.float64)
        self.alpha = np.float32(max(float(alpha), ALPHA_FLOOR))
        total = fc.sum(axis=0) + self.alpha
        out = np.subtract(total, fc)
        np.maximum(out, self.alpha, out=out)
        self.totals = out.sum(axis=1, dtype=np.float64)  # each class's complement count

    def without(self, T_out, y_out, contribution_out, score):
        """``(W, b, T)``: the weights on the columns of the documents ``T_out`` (rows of
        classes ``y_out``, weights ``contribution_out``) and the bias of the model without
        them (as :func:`linear_weights`: ``-inf`` for a class left without documents), and
        the rows ``score`` of ``T_out`` on those columns (single precision)."""
        fc, alpha = self.fc, self.alpha
        n_classes = fc.shape[0]
        cols = np.flatnonzero(np.bincount(T_out.indices, minlength=T_out.shape[1]))
        column = np.empty(T_out.shape[1], dtype=np.int32)
        column[cols] = np.arange(cols.size, dtype=np.int32)  # each term's column in cols
        T_out = type(T_out)((T_out.data, column[T_out.indices], T_out.indptr), shape=(T_out.shape[0], cols.size))
        T = T_out[score]
        taken = (_indicator(y_out, contribution_out, n_classes) @ T_out).tocsr()  # the documents' sums
        kept = fc[:, cols]
        rest = kept.copy()
        cells = (np.repeat(np.arange(n_classes), np.diff(taken.indptr)), taken.indices)
        rest[cells] = np.maximum(kept[cells] - taken.data, 0.0)  # as _take_out
        before = np.subtract(kept.sum(axis=0) + alpha, kept)
        np.maximum(before, alpha, out=before)
        after = np.subtract(rest.sum(axis=0) + alpha, rest)
        np.maximum(after, alpha, out=after)
        totals = self.totals - before.sum(axis=1, dtype=np.float64) + after.sum(axis=1, dtype=np.float64)
        W = np.log(after)
        np.subtract(np.log(totals.astype(np.float32))[:, None], W, out=W)
        cc = np.maximum(self.class_count - np.bincount(y_out, weights=contribution_out, minlength=n_classes), 0.0)
        return W, prior_free_bias(class_log_prior(cc)), T.astype(np.float32, copy=False)


def _scores_without(family, fc, class_count, T_out, y_out, contribution_out, T_score, *, alpha, pool, ratios=False):
    """Scores of the documents ``T_score`` under the model ``(fc, class_count)`` with the
    contribution of the documents ``T_out`` (classes ``y_out``) taken out. ``fc`` is the
    model's feature sums, in the precision the scores are computed in: changed in the
    cells of those documents' terms only, and put back exactly before returning."""
    rest, cc, restore = _take_out(fc, class_count, T_out, y_out, contribution_out)
    W, b = linear_weights(family, rest, cc, alpha, pool, dtype=fc.dtype.type, ratios=ratios)
    restore()
    return scores(T_score, W, b, pool)


def _take_out(fc, class_count, T_out, y_out, contribution_out):
    """``(rest, cc, restore)``: the sums of the model ``(fc, class_count)`` with the
    contribution of the documents ``T_out`` (classes ``y_out``) taken out. ``rest`` is ``fc``
    itself, changed in the cells of those documents' terms only, until ``restore()`` puts
    them back exactly; or, when the documents' sums fill more than an eighth of the cells
    (subtracting a dense matrix is then faster), a new array in ``fc``'s precision and
    ``restore`` does nothing."""
    n_classes = fc.shape[0]
    out = (_indicator(y_out, contribution_out, n_classes) @ T_out).tocsr()  # the documents' sums
    cc = np.maximum(np.asarray(class_count, dtype=np.float64)
                    - np.bincount(y_out, weights=contribution_out, minlength=n_classes), 0.0)
    if out.nnz > fc.size // 8:
        rest = out.toarray().astype(fc.dtype, copy=False)
        np.subtract(fc, rest, out=rest)
        np.maximum(rest, 0.0, out=rest)
        return rest, cc, lambda: None
    cells = (np.repeat(np.arange(n_classes), np.diff(out.indptr)), out.indices)
    kept = fc[cells]
    fc[cells] = np.maximum(kept - out.data, 0.0)  # only the documents' terms change

    def restore():
        fc[cells] = kept

    return fc, cc, restore


def _splits_scale(family, feature_count, class_count, T, y_index, contribution, *, alpha, keys, splits, weights,
                  pool, ratios=False, residual=False, n_jobs=1, prior=None):
    """:func:`leave_out_scale` with given ``splits`` (see there; the residual's folds are
    the splits)."""
    n, n_classes = T.shape[0], len(class_count)
    nothing = (None, None) if residual is not False else None
    if n_classes < 2:
        return nothing
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    _, rank = np.unique(np.asarray(keys), return_inverse=True)
    rank = rank.reshape(-1)
    limit = min(MAX_CALIBRATION_DOCUMENTS, MAX_CALIBRATION_CELLS // n_classes)
    tested = np.concatenate([test for _, test in splits]) if splits else np.zeros(0, dtype=np.intp)
    # the held-out scores of the documents of the smallest keys (copies alike), at most limit of them
    per_rank = np.bincount(rank[tested], minlength=rank.max() + 1 if n else 0)
    held_rank = np.cumsum(per_rank) <= limit
    held = held_rank[rank] if n else np.zeros(0, dtype=bool)
    if w[tested[held[tested]]].sum() < MIN_CALIBRATION_DOCUMENTS:
        return nothing
    # double precision: a document of weight k and its k copies then give the same scale
    # to ~1e-9 (single precision, as the folds use, leaves ~1e-6, which the probabilities
    # of long documents amplify)
    fc = np.array(feature_count, dtype=np.float64)
    parts, truth, weight, rows, part = [], [], [], [], []
    for i, (train, test) in enumerate(splits):
        test = test[held[test]]
        if test.size == 0:
            continue
        outside = np.ones(n, dtype=bool)
        outside[train] = False
        out = np.flatnonzero(outside)
        parts.append(_scores_without(family, fc, class_count, T[out], y_index[out], contribution[out],
                                     T[test].astype(np.float64), alpha=alpha, pool=pool, ratios=ratios))
        truth.append(y_index[test])
        weight.append(w[test])
        rows.append(test)
        part.append(np.full(test.size, i))
    S, truth, weight, rows = np.vstack(parts), np.concatenate(truth), np.concatenate(weight), np.concatenate(rows)
    scale = fit_scale(S, truth, weight, prior=prior)
    if residual is False:
        return scale
    if not _residual_in_budget(T, rows, n_classes, residual):
        return scale, None
    return scale, fit_residual(layer_features(family, T[rows]), scale * S, truth, weight, np.concatenate(part),
                               budget=residual == "auto", pool=pool, n_jobs=n_jobs)


@contextmanager
def threads(n_threads):
    """A thread pool of ``n_threads`` (None when 1): numpy's and scipy's loops release
    the GIL, so the halves of a pass run on two cores."""
    if n_threads is None or n_threads <= 1:
        yield None
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(int(n_threads)) as pool:
        yield pool


def _indicator(y_index, weights, n_classes):
    """Sparse (classes x documents) matrix of the documents' ``weights`` in their class rows
    (each row's documents in their order, as scipy's ``csr_matrix((weights, (y_index,
    arange)))`` has them)."""
    y_index = np.asarray(y_index)
    n = len(y_index)
    order = np.argsort(y_index, kind="stable")
    return CSR((np.asarray(weights)[order], order, row_pointers(np.bincount(y_index, minlength=n_classes))),
               (n_classes, n))


def class_sums(T, y_index, n_classes, weights=None):
    """Per-class sums of the rows of ``T`` (and of ``weights``, 1 each when None)."""
    w = np.ones(T.shape[0]) if weights is None else weights
    # (float64 also for no rows: numpy's bincount of empty weights is int64)
    return (class_table(T, y_index, n_classes, np.asarray(w)),
            np.bincount(y_index, weights=w, minlength=n_classes).astype(np.float64, copy=False))


#: Stored cells :func:`class_table` sums at a time (its products and their cells in a few MB).
_TABLE_CELLS = 1 << 18


def class_table(T, y_index, n_classes, weights):
    """The (classes x columns) table of the rows of the CSR matrix ``T`` (classes ``y_index``)
    times their ``weights``, summed per class: the dense ``(indicator @ T)`` of the
    (classes x rows) ``weights`` indicator (:func:`_indicator`), scipy's floats to the bit (each
    cell's products ``weight * value``, in the precision of both, added from zero in row order:
    ``np.add.at`` adds in the order given, as scipy's sparse product does), for a fifth less
    CPU time than the sparse product and its structure pass. The rows are taken a block of
    about :data:`_TABLE_CELLS` cells at a time, in order (the same sums, in a few MB instead of
    three arrays the size of ``T``'s cells: fewer new pages for the process to fault in)."""
    dtype = np.result_type(weights.dtype, T.data.dtype)
    n_cols = T.shape[1]
    out = np.zeros(n_classes * n_cols, dtype=dtype)
    indptr, lengths = T.indptr, np.diff(T.indptr)
    weights = weights.astype(dtype, copy=False)
    offsets = np.asarray(y_index, dtype=np.int64) * n_cols
    bounds = np.searchsorted(indptr, np.arange(0, int(indptr[-1]), _TABLE_CELLS), side="right") - 1
    bounds = np.append(bounds, T.shape[0])  # rising: each bound once (np.unique imports numpy.ma)
    bounds = bounds[np.append(True, bounds[1:] != bounds[:-1])]
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        a, b = int(indptr[lo]), int(indptr[hi])
        if a == b:
            continue
        cells = np.repeat(offsets[lo:hi], lengths[lo:hi])
        cells += T.indices[a:b]
        values = np.repeat(weights[lo:hi], lengths[lo:hi])
        values *= T.data[a:b]
        np.add.at(out, cells, values)
    return out.reshape(n_classes, n_cols)


def class_cell_sums(indices, indptr, y_index, n_classes, weights, values):
    """The per-class sums of rows of CSR matrices over the cells they touch only.

    The matrices share their structure ``(indices, indptr)`` (rows of classes ``y_index``,
    weighted by ``weights``) and differ in their stored ``values`` (a sequence of float64
    arrays, one per matrix). Returns ``(cells, sums)``: ``cells`` the sorted numbers
    ``column * n_classes + class`` of the (class, column) cells with a stored value, and
    one array of sums over them per matrix: the same floats as :func:`class_sums`' table
    in those cells (each row's ``weights[row] * value`` added in row order, from zero, as
    scipy's sparse product adds them), without a (classes x columns) table. For rows over
    a vocabulary far larger than their terms (:meth:`textnb.text.training.Accumulator._shrink`).
    numpy only."""
    lengths = np.diff(np.asarray(indptr, dtype=np.int64))
    cells = np.asarray(indices, dtype=np.int64) * n_classes + np.repeat(np.asarray(y_index, dtype=np.int64), lengths)
    cells, where = np.unique(cells, return_inverse=True)
    where = where.reshape(-1)
    w = np.repeat(np.asarray(weights, dtype=np.float64), lengths)
    # bincount adds its weights in input order, one by one: row order
    return cells, [np.bincount(where, weights=w * np.asarray(v, dtype=np.float64), minlength=cells.size)
                   for v in values]


def _mix(h):
    """splitmix64's finaliser: well-spread 64-bit values from any 64-bit input."""
    h = (h ^ (h >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    h = (h ^ (h >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return h ^ (h >> np.uint64(31))


def sample_keys(X, y_index, seed):
    """One pseudo-random key in [0, 1) per document, a hash of its content (terms, counts,
    class) and ``seed``: samples and folds drawn by these keys do not depend on the order
    of the documents (the same documents in another order give the same model, up to
    the order of floating-point sums)."""
    n = X.shape[0]
    with np.errstate(over="ignore"):
        cells = _mix(np.asarray(X.indices, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
                     + np.asarray(X.data, dtype=np.float64).view(np.uint64))
        lengths = np.diff(X.indptr)
        h = np.zeros(n, dtype=np.uint64)
        nonempty = lengths > 0
        if cells.size:
            h[nonempty] = np.add.reduceat(cells, X.indptr[:-1][nonempty])  # wraps around: a sum mod 2**64
        h = _mix(h + np.asarray(y_index, dtype=np.uint64) * np.uint64(0xD1B54A32D192ED03)
                 + np.uint64(int(seed or 0) & 0xFFFFFFFFFFFFFFFF) * np.uint64(0xA0761D6478BD642F))
    return _unit(h)


def group_keys(keys, groups):
    """``(keys, grouped)``: each row's key replaced by the smallest key of its group (rows of
    one value of ``groups``, one per row), so that folds and samples drawn by the keys
    keep a group's rows together and still do not depend on the order of the rows (a
    group's key is that of its content); ``grouped`` False, and ``keys`` unchanged, when
    every group has one row. Raises ValueError when ``groups`` has not one value per row."""
    keys = np.asarray(keys)
    groups = np.asarray(groups).reshape(-1)
    if groups.shape != keys.shape:
        raise ValueError(f"groups has {groups.size} values for {keys.size} rows")
    _, inverse = np.unique(groups, return_inverse=True)
    inverse = inverse.reshape(-1)
    n_groups = int(inverse.max(initial=-1)) + 1
    if n_groups == keys.size:
        return keys, False
    smallest = np.full(n_groups, np.inf)
    np.minimum.at(smallest, inverse, keys)
    return smallest[inverse], True


def _unit(h):
    """Uniform numbers in [0, 1) from 64-bit hashes (their top 53 bits)."""
    return (h >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))


def content_keys(hashes, y_index, seed):
    """Keys in [0, 1) like :func:`sample_keys` from per-document hashes (the stream's CRC-32
    of each text, :func:`textnb.text.counting.count_shard`) and classes."""
    with np.errstate(over="ignore"):
        h = _mix(np.asarray(hashes, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
                 + np.asarray(y_index, dtype=np.uint64) * np.uint64(0xD1B54A32D192ED03)
                 + np.uint64(int(seed or 0) & 0xFFFFFFFFFFFFFFFF))
    return _unit(h)


def sample_rows(row_nnz, keys, max_nnz):
    """Indices (sorted) of the documents with the smallest ``keys`` whose stored cells add
    up to at most ``max_nnz`` (all of them when they fit; at least one)."""
    row_nnz = np.asarray(row_nnz)
    if int(row_nnz.sum()) <= max_nnz:
        return np.arange(row_nnz.size)
    order = np.argsort(keys, kind="stable")
    m = int(np.searchsorted(np.cumsum(row_nnz[order]), max_nnz, side="right"))
    return np.sort(order[:max(m, 1)])


def features(family, X, pool=None):
    """The CSR matrix (:class:`~textnb.core.csr.CSR`) of document features
    (:func:`doc_features`) of CSR counts ``X`` (with ``pool``, the two halves of the rows in
    parallel: the same numbers)."""
    n = X.shape[0]
    if pool is None or n < _MIN_SPLIT:
        data = doc_features(family, X.data, X.indptr)
    else:
        mid = X.indptr[n // 2]
        halves = [(X.data[:mid], X.indptr[:n // 2 + 1]), (X.data[mid:], X.indptr[n // 2:] - mid)]
        data = np.concatenate(map_threads(pool, lambda h: doc_features(family, *h), halves))
    return CSR((data, X.indices, X.indptr), X.shape)


def learn(family, feature_count, class_count, X, y_index, weights, *, alpha, n_passes, step, max_nnz, keys,
          pool=None, represents=None, calibrate=False, folds=5, splits=None, contribution=None, ratios=False,
          residual=False, n_jobs=1, prior=None):
    """Add the CSR count matrix ``X`` (documents of classes ``y_index``, ``weights``) to
    the sums, then make the frequency-estimate passes over them (:func:`passes`).

    The passes run over every document when their stored cells are at most ``max_nnz``,
    else over the sample :func:`sample_rows` draws with ``keys``, each sampled document
    standing for ``total weight / sampled weight`` documents (``represents``: the total
    weight when ``X`` is itself a sample of a larger batch). ``calibrate``: fit the
    model's calibration scale on ``folds`` held-out folds of the documents the passes
    ran over (:func:`leave_out_scale`), or on ``splits`` (``(train, test)`` index arrays
    into the rows of ``X``) restricted to those documents. ``contribution``: when given (an
    array of one float per document), each document's total weight in the sums (its weight
    plus what the passes added for it) is written into it, for :func:`leave_out_scores`.
    ``ratios``: the model's weights take :func:`log_count_ratios` (in the passes and the
    calibration). ``residual`` (with ``calibrate``): also fit :func:`fit_residual` on the
    calibration's held-out scores (``n_jobs``: its threads without a ``pool``); ``prior``: an
    earlier batch's scale and its weight, which the scale is fitted with (:func:`fit_scale`). Returns the new
    ``(feature_count, class_count, scale, residual)`` (scale None without ``calibrate`` or
    too few documents to fit it on; residual None unless fitted).
    """
    T = features(family, X, pool)
    fc, cc = class_sums(T, y_index, len(class_count), weights)
    fc += feature_count
    cc += class_count
    rows = sample_rows(np.diff(X.indptr), keys, pass_budget(max_nnz, len(class_count)))
    w = weights[rows]
    total = weights.sum() if represents is None else represents
    scale = float(total / w.sum()) if w.sum() > 0 and total > w.sum() else 1.0
    dtype = np.float32 if splits is None else np.float64  # see fit_rows
    Ts = (T if rows.size == X.shape[0] else T[rows]).astype(dtype)  # what the passes score
    del T  # (double precision: no longer needed)
    added = np.zeros(rows.size) if calibrate or contribution is not None else None
    fc, cc = passes(family, fc, cc, Ts, y_index[rows], alpha=alpha, n_passes=n_passes, step=step, scale=scale,
                    weights=w, pool=pool, added=added, dtype=dtype, ratios=ratios)
    if contribution is not None:
        contribution[:] = weights
        contribution[rows] += added
    if not calibrate:
        return fc, cc, None, None
    fitted = leave_out_scale(family, fc, cc, Ts, y_index[rows], w + added, alpha=alpha, keys=keys[rows],
                             folds=folds, weights=w, pool=pool, splits=restrict_splits(splits, rows, X.shape[0]),
                             ratios=ratios, residual=residual, n_jobs=n_jobs, prior=prior)
    return (fc, cc, *fitted) if residual is not False else (fc, cc, fitted, None)


#: The event-model race's third runner (:func:`choose_family` with ``race_ratios``): the
#: complement model with the log-count ratios, where the rule (:func:`uses_ratios`) gives it none.
COMPLEMENT_RATIOS = "complement+ratios"


def choose_family(X, y_index, n_classes, *, alphas, n_passes, step, cv=5, max_nnz=200_000, seed=0, pool=None,
                  keys=None, splits=None, weights=None, ratios=False, race_ratios=False):
    """The event model with the most correct predictions in a ``cv``-fold cross-validation
    inside the training documents ``X`` (CSR counts), each fold's model trained by
    :func:`passes`, on a seeded sample of at most about ``max_nnz`` stored cells (and
    its vocabulary).

    The folds are a race (Maron & Moore 1994, "Hoeffding races"): after each fold, the
    documents one model classifies right and the other wrong are counted (``a`` and
    ``b``); once ``|a − b| > 3 sqrt(a + b)`` (a sign test at about three standard
    errors) the leader is chosen without the remaining folds. Ties (and samples too
    small to split) go to ``"complement"``. Returns ``(family, {family: correct})``
    over the folds run. ``pool`` runs the two models of a fold in parallel.

    ``race_ratios`` (where the complement model takes no ratios, ``ratios`` saying so): a
    third runner, the complement model with the ratios (:data:`COMPLEMENT_RATIOS`, also the
    name returned when it wins); the race stops once its leader is ahead of both others by
    the sign test, and a tie goes to the runner first in the order complement, bernoulli,
    complement with the ratios. Short texts differ in what they need: TREC QC's questions
    gain from the ratios (in its training part, 4,555 of 5,452 documents right in the five
    folds against 4,502), rt-polarity's sentences lose (6,140 of 8,095 against 6,255), and
    SMS's messages take the Bernoulli model (docs/text_accuracy.md, "Session 40").

    ``splits`` (``(train, test)`` index arrays into the rows of ``X``, e.g. from a
    scikit-learn splitter) replace the ``cv`` folds: restricted to the sample, each
    split's model is trained on its training part and judged on its test part, the
    documents weighed by ``weights`` (sample weights: a document of weight 2 counts as
    two copies in its place; a document in no test part is not judged, one in several
    is judged in each). Splits whose training or test part holds no sampled document
    are skipped. (With ``cv`` folds the documents count once each, unweighted.)

    The ``cv`` folds deal the distinct ``keys`` in turn, in their order: rows of equal keys
    share a fold -- identical rows (the same terms, counts and class: :func:`sample_keys`),
    as in the calibration's folds (:func:`leave_out_scale`), and the rows of a group
    (:func:`group_keys`): a held-out row is never judged by a model that learned its copy
    (dealt in turn, the 5,574 SMS Spam messages put 758 held-out rows beside a copy;
    docs/text_accuracy.md, session 29). With distinct keys the folds are those of dealing
    the rows in turn.

    ``step`` and ``ratios``: each a value for both models or ``{family: value}`` (the pass
    weight, and whether the weights take :func:`log_count_ratios`, computed in each fold
    from that fold's own sums).
    """
    n = X.shape[0]
    steps = step if isinstance(step, dict) else dict.fromkeys(FAMILIES, step)
    ratio = ratios if isinstance(ratios, dict) else dict.fromkeys(FAMILIES, ratios)
    # the runners: (name, event model, ratios), in the order that ties go by
    runners = [(family, family, ratio[family]) for family in FAMILIES]
    if race_ratios and not ratio["complement"]:
        runners.append((COMPLEMENT_RATIOS, "complement", True))
    keys = sample_keys(X, y_index, seed) if keys is None else keys
    order = np.lexsort((np.arange(n), keys))  # by content: any row order alike
    cells = np.cumsum(np.diff(X.indptr)[order])
    n_folds = cv if splits is None else len(splits)
    m = min(n, max(int(np.searchsorted(cells, max_nnz, side="right")), 10 * n_folds))
    if m < (2 * cv if splits is None else 2) or n_classes < 2:
        return "complement", {}
    sub = order[:m]
    Xs, ys = X[sub], y_index[sub]
    seen = np.flatnonzero(np.bincount(Xs.indices, minlength=Xs.shape[1]))
    if seen.size < Xs.shape[1]:
        Xs = Xs[:, seen]
    if splits is None:
        # rows of equal keys (identical rows: the same terms, counts and class; or a group's
        # rows, :func:`group_keys`), adjacent in ``order``, share a fold: dealt by key rank
        fold = np.unique(keys[sub], return_inverse=True)[1].reshape(-1) % cv
        folds, ws = [(fold != f, fold == f) for f in range(cv)], None
    else:
        folds = [(tr, ev) for tr, ev in restrict_splits(splits, sub, n) if tr.size and ev.size]
        ws = np.ones(m) if weights is None else np.asarray(weights, dtype=np.float64)[sub]
    T = {family: features(family, Xs) for family in FAMILIES}

    def right(job):
        (_, family, takes), (tr, ev) = job
        wt = None if ws is None else ws[tr]
        fc, cc = class_sums(T[family][tr], ys[tr], n_classes, wt)
        fc, cc = passes(family, fc, cc, T[family][tr], ys[tr], alpha=alphas[family], n_passes=n_passes, step=steps[family],
                        weights=wt, dtype=np.float32 if ws is None else np.float64, ratios=takes)
        W, b = linear_weights(family, fc, cc, alphas[family], ratios=takes)
        Tev, yev = T[family][ev], ys[ev]
        spans = _row_chunks(Tev.shape[0], n_classes)
        Wt = np.ascontiguousarray(W.T)
        return np.concatenate([(np.asarray(Tev[lo:hi] @ Wt) + b).argmax(axis=1) == yev[lo:hi] for lo, hi in spans])

    k = len(runners)
    correct = {name: 0 for name, _, _ in runners}
    wins = np.zeros((k, k))  # wins[i, j]: documents runner i got right and runner j wrong
    for tr, ev in folds:
        hits = map_threads(pool, right, [(runner, (tr, ev)) for runner in runners])
        we = np.ones(len(ev) if ev.dtype != bool else int(ev.sum())) if ws is None else ws[ev]
        for i, (name, _, _) in enumerate(runners):
            # weighted: a document of weight k counts as k copies
            correct[name] += int(hits[i].sum()) if ws is None else float(we[hits[i]].sum())
            for j in range(k):
                if j != i:
                    wins[i, j] += float(we[hits[i] & ~hits[j]].sum())
        lead = max(range(k), key=lambda i: (correct[runners[i][0]], -i))
        if all(abs(wins[lead, j] - wins[j, lead]) > 3.0 * np.sqrt(wins[lead, j] + wins[j, lead])
               for j in range(k) if j != lead):
            break
    best = max(range(k), key=lambda i: (correct[runners[i][0]], -i))
    return runners[best][0], correct


def choose(X, y_index, n_classes, *, event_model, alpha, n_passes, step, cv, select_nnz, max_nnz, seed,
           pool=None, keys=None, splits=None, weights=None, ratios=False, race_ratios=False):
    """``(family, alpha, ratios)`` for training documents ``X`` (CSR counts): ``event_model``
    itself, or for ``"auto"`` :func:`choose_family` on the documents the passes will see
    (:func:`sample_rows`; ``splits`` and ``weights``, over the rows of ``X``, restricted to
    them; rows of equal ``keys`` share a fold; ``race_ratios`` passed on); ``alpha`` None means
    :data:`DEFAULT_ALPHA`. ``ratios`` is whether the race chose the complement model with the
    log-count ratios (:data:`COMPLEMENT_RATIOS`), or None where it chose nothing about them
    (``ratios``' own values then stand)."""
    alphas = {f: (DEFAULT_ALPHA[f] if alpha is None else float(alpha)) for f in FAMILIES}
    family, chosen = event_model, None
    # the third runner races only where the complement model takes no ratios already
    race_ratios = race_ratios and not (ratios["complement"] if isinstance(ratios, dict) else ratios)
    if family == "auto":
        keys = sample_keys(X, y_index, seed) if keys is None else keys
        rows = sample_rows(np.diff(X.indptr), keys, pass_budget(max_nnz, n_classes))
        Xs = X if rows.size == X.shape[0] else X[rows]
        family, _ = choose_family(Xs, y_index[rows], n_classes, alphas=alphas, n_passes=n_passes, step=step,
                                  cv=cv, max_nnz=pass_budget(select_nnz, n_classes, SELECT_WORK), seed=seed,
                                  pool=pool, keys=keys[rows], splits=restrict_splits(splits, rows, X.shape[0]),
                                  weights=None if weights is None else weights[rows], ratios=ratios,
                                  race_ratios=race_ratios)
        if race_ratios:
            chosen = family == COMPLEMENT_RATIOS
        family = "complement" if family == COMPLEMENT_RATIOS else family
    return family, alphas[family], chosen


def n_threads(n_jobs):
    """Threads for :func:`threads` from an ``n_jobs`` setting: at most 2; None or negative: 1.

    The halves of a pass in two threads shortened nothing that was measured, and cost CPU
    time: ``textnb train`` on 20 Newsgroups (2 cores, one idle), medians of 11 alternated
    runs, 1.68 s wall and 2.04 s CPU with the passes in one thread against 1.69 s and 2.24 s
    in two; on the corpus copied four times 3.76 s / 5.35 s against 3.84 s / 5.42 s (9 runs);
    OHSUMED-23 and rt-polarity the same wall time either way. scipy's sparse products hold
    the GIL between their calls and the halves are short, so the second thread mostly waits.
    An ``n_jobs`` of 2 still runs two (the model is the same: the halves are fixed)."""
    if n_jobs is None or n_jobs < 0:
        return 1
    return max(1, min(2, int(n_jobs)))


def fit_rows(feature_count, class_count, X, y_index, weights, *, params, family=None, alpha=None, step=None,
             ratios=None, dropped=None, splits=None, contribution=None, groups=None, scale_prior=None):
    """One batch of training of a :class:`~textnb.naive_bayes.discriminative.DiscriminativeNB`
    with constructor ``params`` (a dict), from its sums so far: the event model is chosen
    when ``family`` is None (the first batch), then :func:`learn`. ``X`` holds canonical
    CSR counts. ``dropped``: ``{family: (feature sums, class weights)}`` of documents of
    the batch that a bounded stream did not keep (:meth:`textnb.text.training.Accumulator.dropped_sums`):
    they are added to the sums, and ``X`` stands for them in the passes. The pass weight
    is ``step`` when given (the one an earlier batch used), else :func:`pass_step` of
    ``params["step"]`` over the documents the passes run over; whether the weights take
    the log-count ratios likewise ``ratios`` when given, else :func:`uses_ratios` of
    ``params["ratios"]``. Returns
    ``(family, alpha, step, ratios, feature_count, class_count, documents, scale, residual)``,
    ``documents`` the batch's documents per class (summed weights, the dropped ones
    included), ``scale`` the calibration scale fitted on this batch (:func:`leave_out_scale`;
    None when ``params["calibration"]`` is None or the batch is too small to fit it on),
    ``residual`` the ``(weights, bias, strength)`` :func:`fit_residual` fitted on the
    calibration's held-out scores (with ``params["residual"]`` not False and a scale), or None.
    ``contribution``: an array that receives each document's weight in the sums (:func:`learn`).
    ``scale_prior``: the scale an earlier batch fitted and its weight (``partial_fit``), which
    this batch's scale is fitted with (:func:`fit_scale`: the batch moves it by its evidence).

    ``params["cv"]`` must be a number of folds (:func:`check_folds`) unless ``splits``
    are given: ``(train, test)`` index arrays into the rows of ``X`` (what the estimator's
    ``cv`` splitter or list of splits made of the batch), which then replace the folds of
    the event-model choice and of the calibration (:func:`choose_family`,
    :func:`leave_out_scale`). With splits, the choice, the passes and the calibration
    weigh the documents by ``weights`` in double precision, so that a document of weight
    k gives the model its k copies give in its place, to rounding (scikit-learn's
    ``check_sample_weight_equivalence`` holds); with folds the passes run in single
    precision (twice as fast), and the event-model race learns and counts the rows
    unweighted (a document's k copies share its fold there, but count k times).

    ``groups`` (one value per row of ``X``; None: every row its own group): the rows of a
    group (the copies of one document, one per label, that a multi-label copy model is
    fitted on) share the folds of the event-model choice and of the calibration, and the
    passes' sample takes them all or none: every row gets its group's key
    (:func:`group_keys`). When every group has one row, as if None (the same model).

    The estimator and the scikit-learn-free training command both train through here.
    """
    folds = check_folds(params["cv"]) if splits is None else len(splits)
    keys = sample_keys(X, y_index, params["random_state"])
    if groups is not None:
        keys, _ = group_keys(keys, groups)
    row_nnz = None if step is not None and ratios is not None else \
        passes_row_nnz(X, keys, params["max_nnz"], len(class_count))
    steps = dict.fromkeys(FAMILIES, step) if step is not None else pass_steps(params["step"], row_nnz)
    ratio = dict.fromkeys(FAMILIES, ratios) if ratios is not None else \
        pass_ratios(params.get("ratios", False), row_nnz)
    with threads(n_threads(params["n_jobs"])) as pool:
        if family is None:
            family, alpha, chosen = choose(X, y_index, len(class_count), event_model=params["event_model"],
                                           alpha=params["alpha"], n_passes=params["passes"], step=steps,
                                           cv=folds, select_nnz=params["select_nnz"], max_nnz=params["max_nnz"],
                                           seed=params["random_state"], pool=pool, keys=keys, splits=splits,
                                           weights=weights, ratios=ratio,
                                           race_ratios=ratios is None and races_ratios(params))
            if chosen is not None:
                ratio = {**ratio, "complement": chosen}
        represents = None
        if dropped is not None:
            extra_fc, extra_w = dropped[family]
            feature_count, class_count = feature_count + extra_fc, class_count + extra_w
            represents = weights.sum() + extra_w.sum()
        step, ratios = steps[family], bool(ratio[family])
        calibrate = params.get("calibration") == "temperature"
        fc, cc, scale, residual = learn(family, feature_count, class_count, X, y_index, weights, alpha=alpha,
                                        n_passes=params["passes"], step=step, max_nnz=params["max_nnz"],
                                        keys=keys, pool=pool, represents=represents, calibrate=calibrate,
                                        folds=folds, splits=splits, contribution=contribution, ratios=ratios,
                                        residual=params.get("residual", False) if calibrate else False,
                                        n_jobs=params["n_jobs"], prior=scale_prior)
    documents = np.bincount(y_index, weights=weights, minlength=len(class_count))
    if dropped is not None:
        documents = documents + dropped[family][1]
    return family, alpha, step, ratios, fc, cc, documents, scale, residual


def passes_row_nnz(X, keys, max_nnz, n_classes):
    """The stored cells of each document the passes run over (:func:`learn`'s sample of
    the CSR counts ``X`` drawn with ``keys``): what :func:`pass_step` measures."""
    row_nnz = np.diff(X.indptr)
    return row_nnz[sample_rows(row_nnz, keys, pass_budget(max_nnz, n_classes))]


def fit_out_of_fold(X, y_index, n_classes, fold, document=None, *, params):
    """Fit a :class:`~textnb.naive_bayes.discriminative.DiscriminativeNB` with constructor
    ``params`` on every row of the canonical CSR counts ``X`` (classes ``y_index``) and
    score each document out of fold: under the model with its ``fold``'s rows taken out
    of the sums (:func:`leave_out_scores`), on the terms of the other folds; a class that
    only the fold has gets ``-inf``, a document with no term its fold's model knows that
    model's prior. With ``params["calibration"] == "temperature"`` the scale is fitted on
    these out-of-fold scores (:func:`held_out_scale`). ``document``: the document each
    row is a copy of (its copies share a fold and are scored once); None: every row is a
    document. With ``params["event_model"] == "auto"`` the event model is chosen on these
    folds (:func:`choose`), so that a document's copies are held out together there too.

    Returns ``(family, alpha, step, ratios, feature_count, class_count, class_documents, scale,
    log_proba)`` (``step``: the pass weight, :func:`pass_step`; ``ratios``: :func:`uses_ratios`),
    ``log_proba`` (n_documents, n_classes) the normalised out-of-fold
    scores, ``scale`` None when not calibrated. The estimator's ``fit_out_of_fold`` and
    the scikit-learn-free multi-label trainer (:mod:`textnb.meta.multilabel_training`)
    both run this.
    """
    fold = np.asarray(fold)
    document = np.arange(X.shape[0]) if document is None else np.asarray(document)
    if fold.shape != (X.shape[0],) or document.shape != fold.shape or fold.min(initial=0) < 0 \
            or np.unique(fold).size < 2:
        raise ValueError("fold must give each row a fold >= 0, with two folds at least (and document "
                         "each row's document)")
    n_documents = int(document.max(initial=-1)) + 1
    first = np.full(n_documents, -1)
    first[document[::-1]] = np.arange(X.shape[0])[::-1]  # each document's first row
    if (first < 0).any() or (fold != fold[first[document]]).any():
        raise ValueError("every document 0 .. n_documents - 1 needs a row, and its rows one fold")
    contribution = np.zeros(X.shape[0])
    # the event model is chosen on these folds too: a document's copies held out together
    # (the estimator's own folds, keyed on each row's text and class, deal them apart, and a
    # held-out copy is then judged by a model that saw its text under another label)
    splits = [(np.flatnonzero(fold != f), np.flatnonzero(fold == f)) for f in np.unique(fold)]
    keys = sample_keys(X, y_index, params["random_state"])
    row_nnz = passes_row_nnz(X, keys, params["max_nnz"], n_classes)
    steps, ratio = pass_steps(params["step"], row_nnz), pass_ratios(params.get("ratios", False), row_nnz)
    with threads(n_threads(params["n_jobs"])) as pool:
        family, alpha, chosen = choose(X, y_index, n_classes, event_model=params["event_model"], alpha=params["alpha"],
                                       n_passes=params["passes"], step=steps, cv=len(splits),
                                       select_nnz=params["select_nnz"], max_nnz=params["max_nnz"],
                                       seed=params["random_state"], pool=pool, keys=keys, splits=splits, ratios=ratio,
                                       race_ratios=races_ratios(params))
        if chosen is not None:
            ratio = {**ratio, "complement": chosen}
    family, alpha, step, ratios, fc, cc, documents, _, _ = fit_rows(
        np.zeros((n_classes, X.shape[1])), np.zeros(n_classes), X, y_index, np.ones(X.shape[0]),
        params={**params, "calibration": None}, family=family, alpha=alpha, step=steps[family],
        ratios=ratio[family], contribution=contribution)
    scored = np.zeros(X.shape[0], dtype=bool)
    scored[first] = True
    with threads(n_threads(params["n_jobs"])) as pool:
        S = leave_out_scores(family, fc, cc, features(family, X, pool), y_index, contribution, fold,
                             alpha=max(float(alpha), 1e-10), pool=pool, X=X, scored=scored, ratios=ratios)
    order = np.argsort(first)  # S's rows are the first rows in row order
    S[order] = S.copy()
    doc_fold = fold[first]
    for f in np.unique(fold):  # a class with no row outside the fold is unknown to its model
        rest = np.bincount(y_index[fold != f], minlength=n_classes)
        S[np.ix_(doc_fold == f, rest == 0)] = -np.inf
    scale = None
    if params["calibration"] == "temperature":
        scale = held_out_scale(S[document], y_index, sample_keys(X, y_index, params["random_state"]))
        if scale is not None:
            S *= scale
    for f in np.unique(fold):  # a document with no term its fold's model knows: that model's prior
        outside = fold != f
        prior = no_evidence_log_prior(family, np.bincount(y_index[outside], minlength=n_classes))
        if prior is None:
            continue
        docs = np.flatnonzero(doc_fold == f)
        seen = np.bincount(X[outside].indices, minlength=X.shape[1]) > 0
        empty = X[first[docs]][:, seen].getnnz(axis=1) == 0
        S[docs[empty]] = prior
    return family, alpha, step, ratios, fc, cc, documents, scale, log_proba_from_jll(S)
