"""The batched fast paths of textnb.semi_naive.lbr against its general path, bit for bit.

``_Engine.loo_correct`` / ``_Engine._scores`` (one subset at a time) is the general path;
``loo_many`` (many subsets per array operation, factor tables per subset, two ways of
handling the left-out object's own class) and ``classify_many`` (all test objects level by
level, node step tables, one product per final antecedent) must give the same class
products bit for bit, the same LOO flags, and the same rules, classes and scores as Weka's
loop run object by object on ``loo_correct``.
"""

import numpy as np
import pytest

from textnb.semi_naive import lbr_kernel as lbr
from textnb.semi_naive.lbr import LBR, sign_test_p


def _data(n, seed, n_values, n_classes, missing=0.0):
    """Nominal data whose class is an XOR of two attributes chosen by a third, plus noise:
    LBR conditions, often on two attributes. Needs at least 6 attributes."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, k, n) for k in n_values]).astype(float)
    y = np.where(X[:, 2] == 0, X[:, 0] != X[:, 1], X[:, 3] != (X[:, 4] > 0)).astype(int)
    y = (y + (X[:, 5] == 3) * (n_classes - 1) * (rng.random(n) < 0.6)) % n_classes
    flip = rng.random(n) < 0.1
    y[flip] = rng.integers(0, n_classes, flip.sum())
    if missing:
        X[rng.random(X.shape) < missing] = np.nan
    return X, y.astype(int)


def _subsets(engine, rng, count):
    """Random subsets (rows ascending) with random left-out attributes, in loo_many's
    concatenated form; includes single rows and the whole training set."""
    n, A = engine.codes.shape
    rows, sizes, skip = [], [], []
    for s in range(count):
        size = [1, 2, n][s] if s < 3 else int(rng.integers(1, n))
        rows.append(np.sort(rng.choice(n, size, replace=False)))
        sizes.append(size)
        skip.append(rng.random(A) < [0.0, 0.3, 0.6][s % 3])
    sizes = np.array(sizes)
    return np.concatenate(rows), np.repeat(np.arange(count), sizes), sizes, np.array(skip)


@pytest.mark.parametrize("n_classes,missing,alpha", [(2, 0.0, 1.0), (3, 0.08, 0.37),
                                                    (7, 0.05, 1.0), (7, 0.0, 2.3)])
@pytest.mark.parametrize("paths", ["default", "own_class", "pairs", "tiny_blocks"])
def test_loo_many_products_equal_general_path(monkeypatch, n_classes, missing, alpha, paths):
    if paths == "own_class":  # per-(subset, y) tables refused: the own class is redone
        monkeypatch.setattr(lbr, "_BATCH_BLOCK", 1)
    elif paths == "pairs":  # many subsets per group, large per-pair tables allowed
        monkeypatch.setattr(lbr, "_BATCH_BLOCK", 1 << 22)
    elif paths == "tiny_blocks":  # every group and row block cut small
        monkeypatch.setattr(lbr, "_BATCH_BLOCK", 64)
        monkeypatch.setattr(lbr, "_BATCH_ROWS", 64)
    n_values = [3, 2, 4, 3, 2, 5, 2, 3]
    X, y = _data(240, 11, n_values, n_classes, missing)
    engine = LBR(alpha=alpha).fit(X, y, attributes=n_values)._engine
    R, sid, sizes, skip = _subsets(engine, np.random.default_rng(5), 40)
    prods = np.full((R.shape[0], n_classes), np.nan)
    flags = engine.loo_many(R, sid, sizes, skip, products=prods)
    start = 0
    for s in range(sizes.shape[0]):
        r = R[start:start + sizes[s]]
        start += sizes[s]
        want = engine.loo_correct(r, np.flatnonzero(~skip[s]))
        np.testing.assert_array_equal(flags[sid == s], want)
        cc, fc = engine.counts(r)
        missing_r = engine.missing[r] if engine.has_missing else None
        p, scale = engine._scores(cc, fc, engine.cols[r], engine.n_values, missing_r,
                                  engine.y[r], r.shape[0] - 1.0, skip[s] if skip[s].any() else None)
        assert not scale.any()
        # bit for bit, not approximately: the same operations in the same order
        np.testing.assert_array_equal(prods[sid == s].view(np.int64), p.view(np.int64))


def test_loo_many_hands_rescaled_subsets_to_the_general_path(monkeypatch):
    """With ``_SAFE_LOG2`` between the subsets' bounds some subsets need rescaling and
    go through loo_correct, the others are batched; the flags are those of loo_correct."""
    n_values = [3, 2, 4, 3, 2, 5, 2, 3] * 3
    X, y = _data(200, 12, n_values, 3, 0.05)
    engine = LBR().fit(X, y, attributes=n_values)._engine
    R, sid, sizes, skip = _subsets(engine, np.random.default_rng(6), 30)
    calls = []
    general = engine.loo_correct

    def spy(rows, attrs):
        calls.append(rows.shape[0])
        return general(rows, attrs)

    monkeypatch.setattr(engine, "loo_correct", spy)
    monkeypatch.setattr(lbr, "_SAFE_LOG2", -60.0)
    flags = engine.loo_many(R, sid, sizes, skip)
    assert 0 < len(calls) < sizes.shape[0]
    monkeypatch.setattr(lbr, "_SAFE_LOG2", np.inf)  # everything rescaled, one at a time
    want = [general(R[sid == s], np.flatnonzero(~skip[s])) for s in range(sizes.shape[0])]
    np.testing.assert_array_equal(flags, np.concatenate(want))


def _weka_loop(engine, xt, candidates):
    """Weka 3.6's LBR loop for one object, every step from loo_correct (no caches)."""
    n, A = engine.codes.shape
    rows = engine.all_rows
    attrs = list(range(A))
    flags = engine.loo_correct(rows, np.array(attrs))
    errors = int(n - flags.sum())
    conds = []
    while errors >= engine.min_errors:
        best, best_err = None, rows.shape[0] + 1
        for a in attrs:
            if a not in candidates or xt[a] < 0:
                continue
            match = engine.codes[rows, a] == xt[a]
            if match.all() or not match.any():
                continue
            new = engine.loo_correct(rows[match], np.array([b for b in attrs if b != a]))
            old = flags[match]
            temp = int((~new).sum() + (~flags).sum() - (~old).sum())
            nno, onn = int((~new & old).sum()), int((new & ~old).sum())
            if temp < best_err and sign_test_p(nno, nno + onn) < engine.significance:
                best, best_err = (a, rows[match], new), temp
        if best is None:
            break
        a, rows, flags = best
        attrs.remove(a)
        conds.append((a, int(xt[a])))
        errors = best_err
    attrs = np.array(attrs, dtype=np.intp)
    cc, fc = engine.counts(rows)
    xa = xt[attrs][None, :]
    cols = np.where(xa < 0, 0, xa) + engine.offsets[attrs]
    p, scale = engine._scores(cc, fc, cols, engine.n_values[attrs], xa < 0, np.array([-1]),
                              float(rows.shape[0]))
    with np.errstate(divide="ignore"):
        jll = np.log(p[0]) + scale[0] * np.log(2.0)
    return conds, int(rows.shape[0]), int(np.argmax(p[0])), jll


@pytest.mark.parametrize("candidates", ["all", "heuristic"])
@pytest.mark.parametrize("seed,n_classes,missing,depth", [(0, 2, 0.0, 2), (3, 3, 0.05, 2),
                                                          (2, 5, 0.1, 1)])
def test_classify_many_equals_weka_loop_per_object(candidates, seed, n_classes, missing, depth):
    n_values = [3, 2, 2, 3, 2, 4, 3]
    X, y = _data(320, seed, n_values, n_classes, missing)
    model = LBR(candidates=candidates).fit(X[:260], y[:260], attributes=n_values)
    engine = model._engine
    cand = set(model.candidates_.tolist())
    Xt = X[260:]
    codes = model._check_X(Xt)
    jll, pred, rules = engine.classify_many(codes)
    depths = []
    for i in range(codes.shape[0]):
        conds, size, cls, want_jll = _weka_loop(engine, codes[i], cand)
        assert rules[i] == (conds, size)
        assert pred[i] == cls
        np.testing.assert_array_equal(jll[i], want_jll)
        depths.append(len(conds))
    assert max(depths) >= depth  # the data make LBR condition (past the root's table)
    # an object's result does not depend on the others predicted with it, or on the order
    again = LBR(candidates=candidates).fit(X[:260], y[:260], attributes=n_values)
    rev = again.predict_rules(Xt[::-1])[::-1]
    one = [again.predict_rules(Xt[i:i + 1])[0] for i in range(0, Xt.shape[0], 7)]
    assert rev == [(c, s) for c, s in rules]
    assert one == [(c, s) for c, s in rules][::7]


def test_level1_errors_and_root_table_equal_general_path():
    n_values = [3, 2, 2, 3, 2, 4, 3]
    X, y = _data(300, 4, n_values, 3, 0.06)
    model = LBR().fit(X, y, attributes=n_values)
    engine = model._engine
    n, A = engine.codes.shape
    elig, done = engine.root_table
    assert done.all()
    for a in range(A):
        col = engine.codes[:, a]
        errors = int((~engine.base_flags[col < 0]).sum())
        attrs = np.delete(np.arange(A), a)
        for v in range(n_values[a]):
            rows = np.flatnonzero(col == v)
            flags = engine.loo_correct(rows, attrs)
            errors += int((~flags).sum())
            if 0 < rows.shape[0] < n:
                np.testing.assert_array_equal(engine.level1[frozenset([(a, v)])], flags)
                old = engine.base_flags[rows]
                temp = int((~flags).sum() + engine.base_errors - (~old).sum())
                nno, onn = int((~flags & old).sum()), int((flags & ~old).sum())
                ok = sign_test_p(nno, nno + onn) < engine.significance
                assert elig[a, v] == (temp if ok else engine._never)
            else:
                assert elig[a, v] == engine._never
        assert model.attribute_loo_errors_[a] == errors


def test_cache_resets_change_nothing():
    """A tiny ``max_cache`` empties the flag cache and the step tables over and over while
    nodes are being expanded; rules, classes and scores stay the same."""
    n_values = [3, 2, 2, 3, 2, 4, 3]
    X, y = _data(320, 3, n_values, 3, 0.05)
    big = LBR().fit(X[:260], y[:260], attributes=n_values)
    small = LBR(max_cache=50).fit(X[:260], y[:260], attributes=n_values)
    assert any(len(c) >= 2 for c, _ in big.predict_rules(X[260:]))
    for part in (X[260:], X[290:], X[260:275]):
        assert small.predict_rules(part) == big.predict_rules(part)
        np.testing.assert_array_equal(small.predict_log_proba(part),
                                      big.predict_log_proba(part))
