"""DiscriminativeNB.fit(..., groups=): the rows of a group (a document's copies, one per label,
as a multi-label copy model is fitted on) share the folds of its own event-model choice and
calibration, which otherwise deal rows by their text *and* class, so a document's copies apart."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.model_selection import GroupKFold

from textnb.core import dfe
from textnb.core.wrapping import takes_groups
from textnb.naive_bayes.discriminative import DiscriminativeNB


def _copies(n=120, seed=0):
    """``(X, y, groups)``: ``n`` documents over three topics, 40% of them with two, copied
    once per label (the rows of a document: the same counts); each document has a term of
    its own, so equal rows are the copies of one document."""
    rng = np.random.RandomState(seed)
    rows, labels, groups = [], [], []
    for i in range(n):
        labs = rng.choice(3, 2 if rng.uniform() < 0.4 else 1, replace=False)
        counts = np.zeros(3 * 6 + n)
        for lab in labs:
            counts[rng.choice(np.arange(6 * lab, 6 * lab + 6), 4)] += 1
        counts[18 + i] = 2
        for lab in sorted(labs):
            rows.append(counts)
            labels.append(int(lab))
            groups.append(i)
    return sp.csr_matrix(np.array(rows)), np.array(labels), np.array(groups)


def _content(T):
    """A key per row of a CSR matrix: rows with the same content have the same key."""
    T = dfe.canonical(T)  # (the fit's own matrices: textnb.core.csr.CSR)
    return [T.indices[a:b].tobytes() + np.asarray(T.data[a:b], dtype=np.float64).tobytes()
            for a, b in zip(T.indptr[:-1], T.indptr[1:])]


def _split_copies(contents, fold):
    """The contents (documents) whose rows are not all in one fold (-1: not held out)."""
    seen = {}
    for c, f in zip(contents, fold):
        seen.setdefault(c, set()).add(int(f))
    return [c for c, folds in seen.items() if len(folds) > 1]


def test_the_calibration_folds_keep_a_groups_rows_together(monkeypatch):
    X, y, groups = _copies()
    calls = []
    real = dfe.leave_out_scores

    def spy(family, fc, cc, T, y_index, contribution, fold, **kw):
        calls.append((_content(T), np.array(fold)))
        return real(family, fc, cc, T, y_index, contribution, fold, **kw)

    monkeypatch.setattr(dfe, "leave_out_scores", spy)
    model = DiscriminativeNB(event_model="complement").fit(X, y, groups=groups)
    assert len(calls) == 1 and model.scale_ is not None
    assert not _split_copies(*calls[0])
    calls.clear()  # (without groups, the folds of content and class deal copies apart: what this fixes)
    DiscriminativeNB(event_model="complement").fit(X, y)
    assert _split_copies(*calls[0])


def test_the_event_model_choice_keeps_a_groups_rows_together(monkeypatch):
    """``event_model="auto"``: each fold of the choice trains on rows that hold every copy
    of a document or none (the sample is every row here)."""
    X, y, groups = _copies()
    _assert_folds_train_on_every_copy_or_none(monkeypatch, X, y, groups=groups)


def _assert_folds_train_on_every_copy_or_none(monkeypatch, X, y, **fit_params):
    """Each fold of the event-model choice of ``DiscriminativeNB(cv=3).fit(X, y,
    **fit_params)`` trains on every row of the same content or on none of them."""
    every = {}
    for c in _content(dfe.features("complement", dfe.canonical(X))):
        every[c] = every.get(c, 0) + 1
    trained = []
    real = dfe.class_sums

    def spy(T, y_index, n_classes, weights=None):
        if T.shape[0] < X.shape[0] and not (T.data == 1).all():  # a fold of the choice (complement features)
            trained.append(_content(T))
        return real(T, y_index, n_classes, weights)

    monkeypatch.setattr(dfe, "class_sums", spy)
    DiscriminativeNB(cv=3).fit(X, y, **fit_params)
    assert len(trained) >= 1
    for contents in trained:
        counts = {}
        for c in contents:
            counts[c] = counts.get(c, 0) + 1
        assert all(k == every[c] for c, k in counts.items())


def test_groups_of_one_row_fit_the_model_fitted_without_them():
    X, y, groups = _copies()
    a = DiscriminativeNB().fit(X, y)
    b = DiscriminativeNB().fit(X, y, groups=np.arange(X.shape[0]))
    for name in ("feature_count_", "class_count_", "scale_", "event_model_"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


def test_groups_are_a_capability_and_a_group_splitter_gets_them():
    X, y, groups = _copies()
    assert takes_groups(DiscriminativeNB())
    model = DiscriminativeNB(cv=GroupKFold(3)).fit(X, y, groups=groups)
    assert model.scale_ is not None
    with pytest.raises(ValueError, match="groups has 3 values for"):
        DiscriminativeNB().fit(X, y, groups=[0, 1, 2])


def test_identical_rows_share_the_folds_of_the_event_model_choice_without_groups(monkeypatch):
    """``DiscriminativeNB().fit(X, y)`` with rows repeated (the same counts and class, as the
    duplicated messages of SMS Spam): the race of the ``"auto"`` choice dealt the rows in
    key order to its folds in turn, so a row's copies fell into different folds and a
    held-out row was judged by a model that had learned it, while the calibration's folds
    kept them together. Both now deal by the rank of the key: every fold trains on all of
    a row's copies or none."""
    X, y, groups = _copies()
    first = np.unique(groups, return_index=True)[1]  # one row (label) per document
    repeat = np.random.RandomState(1).randint(1, 4, first.size)  # 1-3 identical rows each
    rows = np.repeat(first, repeat)
    X, y = X[rows], y[rows]
    _assert_folds_train_on_every_copy_or_none(monkeypatch, X, y)


def test_groups_reach_the_model_behind_pipeline_steps():
    """One rule hands ``groups`` on (:func:`textnb.core.wrapping.groups_kwargs`): to a model
    whose ``fit`` takes them, through a Pipeline (nested too) as ``<step>__groups``, and to
    no model that takes none; the Pipeline then fits the model its steps' output with them."""
    from sklearn.pipeline import Pipeline

    from textnb import MultinomialNB, TermWeighting
    from textnb.core.wrapping import fit_route, groups_kwargs

    X, y, groups = _copies()
    inner = Pipeline([("weighting", TermWeighting()), ("model", DiscriminativeNB())])
    assert groups_kwargs(DiscriminativeNB(), groups) == {"groups": groups}
    assert groups_kwargs(inner, groups) == {"model__groups": groups}
    assert fit_route(Pipeline([("outer", TermWeighting()), ("inner", inner)]), "groups") == "inner__model__groups"
    assert groups_kwargs(Pipeline([("weighting", TermWeighting()), ("nb", MultinomialNB())]), groups) == {}
    assert groups_kwargs(inner, None) == {} and groups_kwargs(MultinomialNB(), groups) == {}
    piped = inner.fit(X, y, **groups_kwargs(inner, groups))[-1]
    alone = DiscriminativeNB().fit(TermWeighting().fit_transform(X), y, groups=groups)
    ungrouped = DiscriminativeNB().fit(TermWeighting().fit_transform(X), y)
    np.testing.assert_array_equal(piped.feature_count_, alone.feature_count_)
    assert piped.scale_ == alone.scale_ != ungrouped.scale_


def test_a_smoothingcv_hands_its_groups_on_to_the_model_it_refits():
    """SmoothingCV (a wrapper whose ``fit`` takes ``groups`` for its own folds) gave its
    refitted model none; it now hands them on as every wrapper does (behind Pipeline steps too)."""
    from textnb.meta.smoothing import SmoothingCV

    X, y, groups = _copies()
    search = SmoothingCV(DiscriminativeNB(), param_grid={"alpha": [1.0]}).fit(X, y, groups=groups)
    alone = DiscriminativeNB(alpha=1.0).fit(X, y, groups=groups)
    assert search.estimator_.scale_ == alone.scale_ != DiscriminativeNB(alpha=1.0).fit(X, y).scale_
