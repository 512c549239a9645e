"""Lazy Bayesian rules for documents (the model, without scikit-learn): conditioning on key terms.

:class:`LazyTextKernel` is the model of :class:`~textnb.semi_naive.lbr_text.LazyTextNB` (its
scikit-learn adapter): LBR (Zheng & Webb 2000) on a document-term count matrix, with
HLBR's training-time candidate filter (Wang & Webb, ``../shared/papers/001_369ca1d5a7c3aed3.txt``;
``../shared/design/algorithms.md`` §3) to make a large vocabulary tractable:

* a *condition* is "term ``t`` occurs in the document"; an antecedent is a conjunction of
  such conditions, all true of the document being classified;
* the *local model* is the multinomial or Bernoulli naive Bayes of
  :mod:`textnb.naive_bayes.discrete` (same Laplace/Lidstone estimates, empirical class prior),
  trained on the training documents that satisfy the antecedent, with the antecedent's
  terms left out of its vocabulary (as LBR leaves the antecedent attributes out);
* *key terms* (the only possible conditions) are chosen at ``fit`` time, inside the
  training data, among the *discriminating* terms only. A term is eligible when it is in
  at least ``min_df`` and at most ``max_df`` (a fraction) of the training documents and
  is not a stop word (``stop_words``, when the columns have names); the eligible terms
  are ranked by how much their presence tells about the class (``screen``: Yang &
  Pedersen's χ²_max, the largest one-class-versus-the-rest 2x2 chi-square, which
  favours terms concentrated in one class, or information gain) and the ``n_screen``
  best go on to HLBR's filter. Function words (``the``, ``re``, ``is``, ``you``) are
  frequent in every class; without this screen they won the filter below by the sheer
  size of their subsets and the rules read ``term:the & term:clh``. Then, for each
  screened term, HLBR's filter: the leave-one-out (LOO) error
  on the training data of "LBR with ``t`` as the only antecedent" (a document containing
  ``t`` is classified by the local NB on the other documents containing ``t``; one
  without ``t`` keeps the global NB's LOO verdict). Terms whose error is below the global
  NB's LOO error are kept, the ``max_candidates`` with the lowest error;
* classification of one document follows Weka's LBR loop (see :mod:`textnb.semi_naive.lbr`): while
  the LOO error count is ``>= min_errors``, try each key term of the document not yet in
  the antecedent; the subset's LOO errors plus the old errors outside it must be the
  lowest so far and pass the one-tailed sign test at ``significance``.

Cost and memory: LOO never retrains (an object's own counts are subtracted, vectorised
over the subset's non-zeros); every count table is restricted to the terms that occur in
its subset (plus, for a final rule, the terms of the documents it scores; the others
have zero counts and enter only through their number); the LOO flags of a subset and the
verdict of each step depend only on the antecedents and are cached (bounded by
``max_cache``); the local model of a final rule is built once per distinct rule and
applied to all documents that chose it. The largest
dense arrays are ``(n_classes, n_terms)`` count tables, so a 20 Newsgroups-size corpus
(11k documents x 100k terms) needs a few tens of MB beyond the sparse matrix.

This module imports numpy and scipy (``scipy.sparse`` for the document-term matrix the model
keeps, which its model file stores as a CSR member that :mod:`textnb.core.model_io` reads into a
scipy matrix; ``scipy.special`` through the sign test of :mod:`textnb.semi_naive.lbr_kernel`),
never scikit-learn: ``textnb train --lazy`` on documents, ``textnb predict`` of such a model
(:mod:`textnb.semi_naive.lbr_text_io`) and ``textnb evaluate --lazy`` fit and score with it.
"""

from types import MappingProxyType

import numpy as np
import scipy.sparse as sp

from textnb.core.model_schema import (CSR, FEATURE_NAMES, MAX_DIM, N_FEATURES, N_JOBS, POSITIVE_SMOOTHING, Array,
                                      Choice, Classes, Counts, Float, Int, ListOf, MayBeAbsent, OneOf, Optional, Str,
                                      check_params)
from textnb.core.stats import CountTable, class_indicator
from textnb.naive_bayes.kernels import TableKernel, all_or_nothing
from textnb.naive_bayes.scoring import check_class_labels, check_n_features
from textnb.semi_naive.lbr_kernel import cached_flags, sign_test_below
from textnb.text.wrappers import term_scores
from textnb.text.stop_words import ENGLISH_STOP_WORDS

__all__ = ["LazyTextKernel"]


class _Local:
    """Counts of one subset restricted to the columns ``U`` that occur in it.

    ``fc`` (C, |U|) term counts (document frequencies for Bernoulli) with the dropped
    (antecedent) terms zeroed, ``cc`` (C,) documents per class, ``keep`` (|U|,) 0 for
    dropped terms, ``n_out`` the number of kept vocabulary terms outside ``U`` (all zero
    counts in the subset: only their number matters), ``inv`` maps a column to its
    position in ``U`` (-1 when absent).
    """

    __slots__ = ("U", "inv", "fc", "cc", "keep", "n_out", "n_kept")

    def __init__(self, U, inv, fc, cc, keep, n_out):
        self.U, self.inv, self.fc, self.cc, self.keep, self.n_out = U, inv, fc, cc, keep, n_out
        self.n_kept = int(keep.sum())


class _TextEngine:
    """The LBR search on one document-term matrix (CSR counts, or 0/1 for Bernoulli).

    Caches keyed by the antecedent (a frozenset of term ids): ``cache`` the LOO flags of
    a subset, ``steps`` the verdict of adding one term to an antecedent (child
    ``tempErrors`` and sign test, ``None`` when not a strict non-empty subset), and
    ``locals`` the count tables of final rules (restricted to the columns that occur).
    """

    def __init__(self, X, y, n_classes, model, alpha, candidates, min_errors, significance,
                 max_cache):
        self.X = X
        self.Xc = X.tocsc()
        self.y = y
        self.n_classes = n_classes
        self.model = model
        self.alpha = alpha
        self.min_errors = min_errors
        self.significance = significance
        self.max_cache = max_cache
        self.candidates = np.asarray(candidates, dtype=np.intp)
        self.cache = {}
        self.steps = {}
        self.locals = {}
        self.cached = 0
        n = X.shape[0]
        self.all_rows = np.arange(n)
        self.base_flags = self.loo_correct(self.all_rows, ())
        self.base_errors = int(n - self.base_flags.sum())

    def docs_with(self, t):
        return self.Xc.indices[self.Xc.indptr[t]:self.Xc.indptr[t + 1]]

    def table(self, rows, dropped, extra_cols=None, sub=None):
        """:class:`_Local` counts of the documents ``rows`` without the terms ``dropped``;
        ``extra_cols`` are added to ``U`` (the columns of documents to be scored); ``sub``
        is ``X[rows]`` when the caller has it."""
        C, V = self.n_classes, self.X.shape[1]
        if sub is None:
            sub = self.X[rows]
        cols = sub.indices
        dropped = np.asarray(sorted(dropped), dtype=np.intp)
        present = np.zeros(V, dtype=bool)
        present[cols] = True
        present[dropped] = True
        if extra_cols is not None:
            present[extra_cols] = True
        U = np.flatnonzero(present)
        inv = np.full(V, -1, dtype=np.intp)
        inv[U] = np.arange(U.shape[0])
        cls = np.repeat(self.y[rows], np.diff(sub.indptr))
        u = U.shape[0]
        fc = np.bincount(cls * u + inv[cols], weights=sub.data, minlength=C * u)
        fc = fc.reshape(C, u)
        cc = np.bincount(self.y[rows], minlength=C).astype(np.float64)
        keep = np.ones(u)
        if dropped.size:
            keep[inv[dropped]] = 0.0
            fc[:, inv[dropped]] = 0.0
        return _Local(U, inv, fc, cc, keep, V - u)

    def _log_params(self, loc):
        """log theta (C, |U|), and for Bernoulli log(1 - theta) (C, |U|)."""
        a = self.alpha
        fc, cc = loc.fc, loc.cc
        V = loc.keep.sum() + loc.n_out
        if self.model == "multinomial":
            return np.log(fc + a) - np.log(fc.sum(axis=1, keepdims=True) + a * V), None
        den = np.log(cc + 2 * a)[:, None]
        return np.log(fc + a) - den, np.log(np.maximum(cc[:, None] - fc, 0) + a) - den

    def scores(self, loc, Xs, y_out=None):
        """Joint log scores (m, C) of the rows ``Xs`` (original columns, all in ``loc.U``)
        under the local model ``loc``; leave-one-out when ``y_out`` gives their classes."""
        fc, cc = loc.fc, loc.cc
        a = self.alpha
        C = self.n_classes
        keep = loc.keep
        Xs = sp.csr_matrix(Xs)
        mapped = loc.inv[Xs.indices]
        if np.any(mapped < 0):
            raise ValueError("a scored document has a term outside the local table")
        dropping = loc.n_kept < keep.shape[0]
        data = Xs.data * keep[mapped] if dropping else Xs.data
        Xs = sp.csr_matrix((data, mapped, Xs.indptr.copy()),
                           shape=(Xs.shape[0], loc.U.shape[0]))
        if dropping:
            Xs.eliminate_zeros()
        m = Xs.shape[0]
        n = cc.sum()
        if y_out is None:
            with np.errstate(divide="ignore"):
                prior = np.log(cc) - np.log(n)
            lt, lnt = self._log_params(loc)
            if self.model == "multinomial":
                return np.asarray(Xs @ lt.T) + prior
            lnt = lnt * keep
            out_sum = loc.n_out * (np.log(cc + a) - np.log(cc + 2 * a))
            return np.asarray(Xs @ (lt - lnt).T) + lnt.sum(axis=1) + out_sum + prior
        # leave-one-out: the own class's counts lose the object's own counts
        own = np.zeros((m, C), dtype=bool)
        own[np.arange(m), y_out] = True
        with np.errstate(divide="ignore"):
            prior = np.log(cc[None, :] - own) - np.log(n - 1 if n > 1 else 1)
        lt, lnt = self._log_params(loc)
        row_of = np.repeat(np.arange(m), np.diff(Xs.indptr))
        cols, x = Xs.indices, Xs.data
        yo = y_out[row_of]
        if self.model == "multinomial":
            V = keep.sum() + loc.n_out
            out = np.asarray(Xs @ lt.T)
            tot = fc.sum(axis=1)
            length = np.asarray(Xs.sum(axis=1)).ravel()
            # own class: sum_t x log(fc - x + a) - |x| log(T - |x| + aV)
            f = fc[yo, cols]
            corr = x * (np.log(f - x + a) - np.log(f + a))
            fix = np.bincount(row_of, weights=corr, minlength=m).astype(np.float64)
            fix += length * (np.log(tot[y_out] + a * V) - np.log(tot[y_out] - length + a * V))
            out[np.arange(m), y_out] += fix
            return out + prior
        # Bernoulli, x in {0, 1}: own class uses N_c - 1 docs
        n_out = loc.n_out
        sum_lnt = (lnt * keep).sum(axis=1) + n_out * (np.log(cc + a) - np.log(cc + 2 * a))
        out = np.asarray(Xs @ (lt - lnt).T) + sum_lnt
        Nc = cc[y_out]
        den_old, den_new = np.log(Nc + 2 * a), np.log(Nc - 1 + 2 * a)
        fk = fc * keep
        # absent terms: log(N_c - df + a) -> log(N_c - 1 - df + a) for every kept term
        # (the n_out terms outside U have df = 0)
        absent_old = (np.log(np.maximum(cc[:, None] - fk, 0) + a) * keep).sum(axis=1) \
            + n_out * np.log(cc + a)
        absent_new = (np.log(np.maximum(cc[:, None] - 1 - fk, 0) + a) * keep).sum(axis=1) \
            + n_out * np.log(np.maximum(cc - 1, 0) + a)
        Vk = keep.sum() + n_out
        base_fix = (absent_new[y_out] - Vk * den_new) - (absent_old[y_out] - Vk * den_old)
        # present terms of the object: theta' = (df - 1 + a)/(N_c - 1 + 2a), and their
        # "absent" term in base_fix must be replaced
        df = fc[yo, cols]
        new_present = np.log(df - 1 + a) - np.log(Nc[row_of] - 1 + 2 * a)
        old_present = np.log(df + a) - np.log(Nc[row_of] + 2 * a)
        new_absent = np.log(np.maximum(cc[yo] - 1 - df, 0) + a) - np.log(Nc[row_of] - 1 + 2 * a)
        old_absent = np.log(np.maximum(cc[yo] - df, 0) + a) - np.log(Nc[row_of] + 2 * a)
        corr = (new_present - new_absent) - (old_present - old_absent)
        corr_rows = np.bincount(row_of, weights=corr, minlength=m).astype(np.float64)
        out[np.arange(m), y_out] += base_fix + corr_rows
        return out + prior

    def loo_correct(self, rows, dropped):
        sub = self.X[rows]
        loc = self.table(rows, dropped, sub=sub)
        yr = self.y[rows]
        s = self.scores(loc, sub, y_out=yr)
        return np.argmax(s, axis=1) == yr

    def flags_for(self, conds, rows):
        return cached_flags(self, conds, lambda: self.loo_correct(rows, conds))

    def _step(self, key, rows, flags, old_wrong_total, t):
        match = np.isin(rows, self.docs_with(t), assume_unique=True)
        size = int(match.sum())
        if size == rows.shape[0] or size == 0:
            return None
        new = self.flags_for(key | {t}, rows[match])
        old = flags[match]
        nno = int(np.count_nonzero(~new & old))
        onn = int(np.count_nonzero(new & ~old))
        temp = int(new.shape[0] - np.count_nonzero(new)) + old_wrong_total \
            - int(np.count_nonzero(~old))
        return temp, sign_test_below(nno, nno + onn, self.significance)

    def rule(self, doc_terms):
        """Antecedent (tuple of term ids, in order of choice) and subset rows for one doc.

        Among the key terms of the document that pass the sign test, the lowest
        ``tempErrors`` wins, first in key-term order on ties (Weka's loop); step verdicts
        are cached per (antecedent, term), so documents sharing a path decide by look-up,
        and uncached terms are tried in increasing order of a lower bound on their
        ``tempErrors`` (the current errors outside the child) until none can win.
        """
        rows = self.all_rows
        flags = self.base_flags
        errors = self.base_errors
        key = frozenset()
        conds = []
        present = [int(t) for t in self.candidates if t in doc_terms]
        n = self.X.shape[0]
        while errors >= self.min_errors:
            best = (rows.shape[0] + 1, -1)  # (tempErrors, position in ``present``)
            todo = []
            for j, t in enumerate(present):
                if t in key:
                    continue
                st = self.steps.get((key, t), False)
                if st is False:
                    todo.append(j)
                elif st is not None and st[1] and (st[0], j) < best:
                    best = (st[0], j)
            if todo:
                # exact branch and bound: the parent's errors outside the child are a lower
                # bound on tempErrors; try the smallest bounds first, stop when none can win
                wrong = np.zeros(n, dtype=bool)
                wrong[rows[~flags]] = True
                n_wrong = int(np.count_nonzero(wrong))
                bound = [n_wrong - int(np.count_nonzero(wrong[self.docs_with(present[j])]))
                         for j in todo]
                for b, j in sorted(zip(bound, todo)):
                    if (b, j) > best:
                        break
                    t = present[j]
                    st = self._step(key, rows, flags, n_wrong, t)
                    self.steps[(key, t)] = st
                    if st is not None and st[1] and (st[0], j) < best:
                        best = (st[0], j)
            if best[1] < 0:
                break
            best_err, t = best[0], present[best[1]]
            sub = rows[np.isin(rows, self.docs_with(t), assume_unique=True)]
            key = key | {t}
            flags = self.flags_for(key, sub)
            rows = sub
            conds.append(t)
            errors = best_err
        return tuple(conds), rows


def _rules_block(engine, docs):
    return [engine.rule(set(d)) for d in docs]


def _class_document_frequencies(X, y_index, n_classes):
    """Documents of each class that contain each term, (n_classes, n_terms), and per class."""
    B = X.copy()
    B.data = (B.data > 0).astype(np.float64)
    table = CountTable(n_classes, X.shape[1]).add(B, class_indicator(y_index, n_classes))
    return table.feature_count, table.class_count


class LazyTextKernel(TableKernel):
    """The model of :class:`~textnb.semi_naive.lbr_text.LazyTextNB` without scikit-learn: the
    same parameters (``LazyTextKernel.defaults``), fitted attributes, ``fit``, ``predict*``,
    ``predict_explain`` / ``explain`` and model file (:meth:`save`, :meth:`from_node`), with
    numpy / scipy input checks of document-term count matrices (dense or sparse). The
    documentation of the parameters and attributes is the estimator's.

    Examples
    --------
    >>> import numpy as np
    >>> from textnb.semi_naive.lbr_text_kernel import LazyTextKernel
    >>> X = np.array([[1, 1, 0], [1, 0, 1], [0, 1, 1], [1, 1, 1]] * 10)
    >>> y = np.array(["a", "b", "b", "a"] * 10)
    >>> LazyTextKernel(min_df=1).fit(X, y).predict(X[:4]).tolist()
    ['a', 'b', 'b', 'a']
    """

    kind = "LazyTextNB"
    defaults = MappingProxyType({
        "model": "multinomial", "alpha": 1.0, "max_candidates": 50, "n_screen": 500, "min_df": 20, "max_df": 0.5,
        "screen": "chi2", "stop_words": "english", "min_errors": 5, "significance": 0.05, "n_jobs": None,
        "max_cache": 50_000_000})

    #: capability (:mod:`textnb.core.wrapping`): ``predict_explain`` gives the rule used per row
    explains_by_rules = True

    _param_schema = {
        "model": Choice("multinomial", "bernoulli"), "alpha": POSITIVE_SMOOTHING,
        "max_candidates": Int(0, 10**6), "n_screen": Int(0, 10**7), "min_df": Int(0, MAX_DIM),
        "min_errors": Int(0, MAX_DIM), "significance": Float(0.0, 1.0, lo_open=True), "n_jobs": N_JOBS,
        "max_cache": Int(0, 2**40), "max_df": Float(0.0, 1.0, lo_open=True), "screen": Choice("chi2", "ig"),
        "stop_words": Optional(OneOf(Choice("english"), ListOf(Str(1000), max_len=10**6))),
    }
    _state_schema = {
        "classes_": Classes(),
        "n_features_in_": N_FEATURES,
        "X_train_": CSR(("n_train", "n_features"), Counts((None,))),
        "y_index_": Array("iu", ("n_train",), index="n_classes"),
        "key_terms_": Array("iu", ("n_keys",), index="n_features", distinct=True),
        "key_term_loo_errors_": Array("iu", ("n_keys",), lo=0, hi=MAX_DIM),
        "nb_loo_errors_": Int(0, MAX_DIM),
        "screened_terms_": MayBeAbsent(Array("iu", (None,), index="n_features", distinct=True)),
        "term_names_": Optional(Array("U", ("n_features",))),
        "feature_names_in_": FEATURE_NAMES,
    }

    def _check_params(self):
        """Declared parameters checked (core.model_schema.check_params); the stop words."""
        check_params(self)
        if self.stop_words is None:
            return frozenset()
        if isinstance(self.stop_words, str):
            if self.stop_words != "english":
                raise ValueError(f"stop_words must be None, 'english' or a list of words; got {self.stop_words!r}")
            return ENGLISH_STOP_WORDS
        return frozenset(str(w) for w in self.stop_words)

    # -- input checks (the estimator's: scikit-learn's validate_data) ------------------------
    def _validate_x(self, X, *, reset):
        """``X`` as a float64 CSR matrix of at least one row, with ``n_features_in_`` set
        (``reset``) or checked."""
        X = sp.csr_matrix(X, dtype=np.float64)
        if X.shape[0] < 1:
            raise ValueError(f"Found array with 0 sample(s) (shape={X.shape}) while a minimum of 1 is required "
                             f"by {self.kind}.")
        return check_n_features(self, X, reset=reset)

    def _validate_xy(self, X, y, *, reset):
        """:meth:`_validate_x` and ``y``: one class label per row
        (:class:`~textnb.naive_bayes.scoring.TableInput`'s check), not continuous numbers."""
        X, y = super()._validate_xy(X, y, reset=reset)
        check_class_labels(y)
        return X, y

    def _prepare(self, X):
        X = sp.csr_matrix(X, dtype=np.float64)
        if not np.all(np.isfinite(X.data)):
            raise ValueError(f"Input X contains NaN or infinity ({self.kind}).")
        if X.data.size and X.data.min() < 0:
            raise ValueError(f"Negative values in data passed to {self.kind} (input X)")
        if self.model == "bernoulli":
            X = X.copy()
            X.data = (X.data > 0).astype(np.float64)
        X.eliminate_zeros()
        X.sort_indices()
        return X

    @all_or_nothing
    def fit(self, X, y, terms=None):
        """Store the documents, choose the key terms; returns self.

        ``X`` is a (sparse) document-term count matrix; ``terms`` (optional) names the
        columns for :meth:`explain`.
        """
        stop = self._check_params()
        X, y = self._validate_xy(X, y, reset=True)
        X = self._prepare(X)
        self.classes_, y_index = np.unique(y, return_inverse=True)
        self.X_train_ = X
        self.y_index_ = y_index.astype(np.int32)
        if terms is not None:
            self.term_names_ = np.asarray(list(terms), dtype=str)
        elif hasattr(self, "feature_names_in_"):
            self.term_names_ = np.asarray(self.feature_names_in_, dtype=str)
        else:
            self.term_names_ = None
        C = len(self.classes_)
        engine = _TextEngine(X, y_index, C, self.model, float(self.alpha), (), self.min_errors,
                             self.significance, self.max_cache)
        self.nb_loo_errors_ = engine.base_errors
        class_df, class_count = _class_document_frequencies(X, y_index, C)
        df = class_df.sum(axis=0)
        ok = (df >= max(self.min_df, 1)) & (df < X.shape[0]) & (df <= self.max_df * X.shape[0])
        if stop and self.term_names_ is not None:
            if self.term_names_.shape != (X.shape[1],):
                raise ValueError(f"terms has {self.term_names_.shape[0]} names but X has {X.shape[1]} columns")
            ok &= ~np.isin(self.term_names_, sorted(stop))
        eligible = np.flatnonzero(ok)
        key, errs = [], []
        if eligible.size and C > 1 and self.max_candidates > 0:
            score = term_scores(class_df[:, eligible], class_count, self.screen)
            screen = eligible[np.argsort(-score, kind="stable")[: self.n_screen]]
        else:
            screen = eligible[:0]
        self.screened_terms_ = screen.astype(np.int64)
        for t in screen:
            rows = engine.docs_with(t)
            flags = engine.flags_for(frozenset([int(t)]), rows)
            outside = np.ones(X.shape[0], dtype=bool)
            outside[rows] = False
            e = int((~flags).sum()) + int((~engine.base_flags[outside]).sum())
            if e < engine.base_errors:
                key.append(int(t))
                errs.append(e)
        order = np.argsort(errs, kind="stable")[: self.max_candidates]
        self.key_terms_ = np.asarray(key, dtype=np.int64)[order]
        self.key_term_loo_errors_ = np.asarray(errs, dtype=np.int64)[order]
        engine.candidates = self.key_terms_.astype(np.intp)
        engine.cache = {k: v for k, v in engine.cache.items()
                        if next(iter(k)) in set(self.key_terms_.tolist())}
        engine.cached = sum(v.shape[0] for v in engine.cache.values())
        self._engine = engine
        return self

    def _get_engine(self):
        engine = getattr(self, "_engine", None)
        if engine is None:
            engine = _TextEngine(self.X_train_, self.y_index_.astype(np.intp), len(self.classes_),
                                 self.model, float(self.alpha), self.key_terms_,
                                 self.min_errors, self.significance, self.max_cache)
            self._engine = engine
        return engine

    def _set_state(self, state):
        for k, v in state.items():
            setattr(self, k, v)
        self._engine = None

    def _check_X(self, X):
        return self._prepare(self._validate_x(X, reset=False))

    def _lazy(self, X):
        engine = self._get_engine()
        docs = [X.indices[X.indptr[i]:X.indptr[i + 1]] for i in range(X.shape[0])]
        if self.n_jobs in (None, 1) or len(docs) < 2:
            rules = _rules_block(engine, docs)
        else:
            from joblib import Parallel, delayed, effective_n_jobs

            k = max(1, min(effective_n_jobs(self.n_jobs), len(docs)))
            chunks = [docs[i::k] for i in range(k)]
            parts = Parallel(n_jobs=k)(delayed(_rules_block)(engine, c) for c in chunks)
            rules = [None] * len(docs)
            for i in range(k):
                rules[i::k] = parts[i]
        jll = np.empty((X.shape[0], len(self.classes_)))
        groups = {}
        for i, (conds, rows) in enumerate(rules):
            groups.setdefault(conds, (rows, []))[1].append(i)
        for conds, (rows, idx) in groups.items():
            Xg = X[idx]
            loc = engine.table(rows, conds, extra_cols=Xg.indices)
            jll[idx] = engine.scores(loc, Xg)
        return jll, [(c, r.shape[0]) for c, r in rules]

    def _joint_log_likelihood(self, X):
        return self._lazy(X)[0]

    def _term(self, t):
        return str(self.term_names_[t]) if self.term_names_ is not None else f"#{t}"

    def joint_log_proba_and_rules(self, X):
        """``(predict_joint_log_proba(X), rules)`` in one pass: the joint log scores and, per
        document, the rule used (``"term:hockey & term:nhl -> local NB on 312 documents"``)."""
        self._check_fitted()
        jll, rules = self._lazy(self._check_X(X))
        texts = []
        for conds, size in rules:
            lhs = " & ".join(f"term:{self._term(t)}" for t in conds) or "(no conditions)"
            texts.append(f"{lhs} -> local NB on {size} document{'s' if size != 1 else ''}")
        return jll, texts

    def predict_explain(self, X):
        """Predictions and, per document, the rule used (:meth:`joint_log_proba_and_rules`)."""
        jll, texts = self.joint_log_proba_and_rules(X)
        return self.classes_[np.argmax(jll, axis=1)], texts

    def explain(self, X):
        """The rule used for each document (see :meth:`predict_explain`)."""
        return self.predict_explain(X)[1]
