"""NBU on uncertain UCI data: Qin, Xia & Li's protocol, accuracy ratio NBU / NB.

The paper (``../shared/papers/004_640e07b9e89f5fc8.txt``, §6) makes UCI sets uncertain
at levels U0, U0.25, U0.5, U0.75, U1.0 and reports the prediction accuracy ratio (PAR)
of its uncertain naive Bayes on the uncertain data over ordinary naive Bayes on the
data reduced to certain values (interval midpoints, most probable values). Here:

* numeric value ``x`` -> ``[x − (x − X_min)·r1, x + (X_max − x)·r2]``, ``r1, r2 ~ U[0, U]``
  (X_min / X_max over the whole set), :func:`textnb.io.uncertain.make_uncertain`;
* nominal: a random fraction ``U`` of the objects (per attribute) gets probability ``p``
  on its true value and ``(1 − p)/(k − 1)`` on each other value. The paper only says
  ``p < 1``; the main table fixes ``p = 0.1``, a second one draws ``p ~ U[0, 1)`` per
  cell (``--p`` chooses the settings);
* NBU: :class:`textnb.TabularNB` on the uncertain attributes (Theorem 1, probabilistic
  cardinalities; interval mass / expected likelihood at prediction); for the numeric
  sets also NBU with ``interval_fit="censored"`` (the interval-censored
  maximum-likelihood Gaussian, EM) and the *mass only* ablation (Gaussians of the
  midpoints, interval mass at prediction);
  NB: the same class on :func:`textnb.io.uncertain.to_certain` of the same data (ties
  between most probable values broken at random, seeded);
* the same seeded stratified 10-fold split for both; ``--repeats`` independent draws
  of the uncertainty (and of the folds), accuracies averaged.

Data sets the paper used, where ``../shared/datasets/uci`` has them: numeric diabetes,
glass, iris, segment (sonar is not there); categorical balance-scale (its four
attributes, 1..5, read as nominal as in the paper), mushroom, soybean, promoters
(bridges is not there). Writes ``docs/uncertain.md`` and ``docs/uncertain.png``::

    nice -n 5 python scripts/experiments/uncertain.py [--data DIR] [--repeats 3] [--p 0.1,uniform]
"""

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.model_selection import StratifiedKFold

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from textnb.io.tables import Attribute, read_table  # noqa: E402
from textnb.naive_bayes.tabular import TabularNB  # noqa: E402
from textnb.io.uncertain import make_uncertain, to_certain  # noqa: E402

LEVELS = (0.0, 0.25, 0.5, 0.75, 1.0)
# (file stem, kind, class attribute position, attributes to drop)
NUMERIC_SETS = [("diabetes", "last", []), ("glass", "last", []), ("iris", "last", []), ("segment", "last", []),
                ("sonar", "last", [])]
CATEGORICAL_SETS = [("balance-scale", "last", []), ("bridges", "last", []), ("mushroom", "last", []),
                    ("promoters", "first", ["instance"]), ("soybean", "last", [])]


def load(data_dir, stem, position, drop):
    path = data_dir / f"{stem}.arff"
    if not path.exists():
        return None
    from textnb.io.arff import read_arff

    names = [a.name for a in read_arff(path).attributes if a.name not in drop]
    table = read_table(path, class_name=names[0] if position == "first" else names[-1], drop=drop or None)
    if stem == "balance-scale":  # 1..5 codes: categorical in the paper
        atts, cols = [], []
        for j, a in enumerate(table.attributes):
            values = sorted(np.unique(table.X[:, j]))
            atts.append(Attribute(a.name, "nominal", [f"{v:g}" for v in values]))
            cols.append(np.searchsorted(values, table.X[:, j]).astype(np.float64))
        table.attributes, table.X = atts, np.column_stack(cols)
    return table


def cv_accuracy(X_train, y, attributes, folds, X_test=None, **params):
    """Accuracy of TabularNB(**params) fitted on rows of ``X_train``, tested on ``X_test``
    (default the same)."""
    X_test = X_train if X_test is None else X_test
    correct = 0
    for train, test in folds:
        m = TabularNB(attributes=tuple(attributes), **params).fit(X_train[train], y[train])
        correct += int(np.sum(m.predict(X_test[test]) == y[test]))
    return correct / len(y)


def run_set(table, repeats, seed, p, n_folds, numeric=False):
    """{level: (acc NBU, acc NB[, acc mass only, acc NBU censored])} averaged over ``repeats`` draws;
    ``"draws"``: {level: the accuracies of each draw, shape (repeats, variants)}.

    Numeric sets add the ablation *mass only* (Gaussians fitted on the interval
    midpoints as points, no Theorem 1; predictions with the interval mass of the test
    intervals) and NBU with ``interval_fit="censored"``.
    """
    out = {}
    for level in LEVELS:
        accs = []
        for r in range(repeats):
            rng = np.random.default_rng([seed, r, int(level * 100)])
            Xu, au = make_uncertain(table.X, table.attributes, level, rng, p=p)
            Xc, ac = to_certain(Xu, au, rng=rng)
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message="The least populated class")
                folds = list(StratifiedKFold(n_folds, shuffle=True, random_state=seed + r).split(Xc, table.y))
            row = [cv_accuracy(Xu, table.y, au, folds, interval_fit="theorem1"), cv_accuracy(Xc, table.y, ac, folds)]
            if numeric:
                points = np.repeat(Xc, 2, axis=1)  # every attribute uncertain numeric: [m, m]
                row.append(cv_accuracy(points, table.y, au, folds, X_test=Xu, interval_fit="theorem1"))
                row.append(cv_accuracy(Xu, table.y, au, folds, interval_fit="censored"))
            accs.append(row)
        out[level] = tuple(float(a) for a in np.mean(accs, axis=0))
        out.setdefault("draws", {})[level] = np.array(accs)  # (repeats, variants)
    return out


def theorem1_shrinkage(level, seed=0, n=200_000):
    """Simulated ``(Var(L+R) - Var(R-L))/4`` and ``Var((L+R)/2)``, over Var(X), for normal X."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 1))
    Xu, _ = make_uncertain(x, [Attribute("x", "numeric")], level, rng)
    L, R = Xu[:, 0], Xu[:, 1]
    vx = np.var(x)
    return (np.var(L + R) - np.var(R - L)) / 4 / vx, np.var((L + R) / 2) / vx


#: numeric variants: (label, index in the accuracy tuple)
VARIANTS = (("Theorem 1", 0), ("censored", 3), ("mass only", 2))


def par(res, u, k=0):
    """PAR of accuracy ``k`` of ``res[u]`` against the baseline (index 1)."""
    return res[u][k] / res[u][1]


def plot(results, path):
    """PAR against U per data set, as the paper's figures 2 (numeric) and 3 (categorical)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = []
    for title, group in results.items():
        if not group:
            continue
        if title.startswith("numeric"):
            panels.append(("numeric: NBU with Theorem 1 (the paper's)", group, (0,)))
            panels.append((("numeric: NBU with interval_fit='censored' (solid, squares)\n"
                            "and the mass only ablation (dashed); a finer scale"), group, (3, 2)))
        else:
            panels.append((title, group, (0,)))
    cols = 2
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(6.0 * cols, 4.6 * rows), squeeze=False)
    for ax, (title, group, keys) in zip(axes.ravel(), panels):
        colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
        for i, (name, res) in enumerate(group.items()):
            colour = colours[i % len(colours)]
            for k in keys:
                style = {0: {"ls": "-", "marker": "o"}, 2: {"ls": "--", "marker": ".", "alpha": 0.7},
                         3: {"ls": "-", "marker": "s", "lw": 2.2}}[k]
                ax.plot(LEVELS, [par(res, u, k) for u in LEVELS], color=colour,
                        label=name if k != 2 else None, **style)
        ax.axhline(1.0, color="grey", lw=0.8, ls=":")
        ax.set_xticks(LEVELS)
        ax.set_xticklabels([f"U{u:g}" for u in LEVELS])
        ax.set_xlabel("extent of uncertainty")
        ax.set_ylabel("prediction accuracy ratio NBU / NB")
        ax.set_title(title, fontsize=10)
        ax.legend(fontsize=8)
    for ax in axes.ravel()[len(panels):]:
        ax.set_visible(False)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def p_title(p):
    return f"categorical data sets, {'p ~ U[0, 1)' if p is None else f'p = {p:g}'}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "datasets" / "uci")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "uncertain.md")
    ap.add_argument("--plot", type=Path, default=ROOT / "docs" / "uncertain.png")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--p", default="0.1,uniform",
                    help="comma-separated settings of the probability kept on the true value of an uncertain "
                         "nominal cell: a number, or 'uniform' (U[0,1) per cell); one table per setting, the "
                         "first the main one, the others sensitivity tables")
    ap.add_argument("--sets", default="", help="comma-separated stems (default: all)")
    args = ap.parse_args(argv)
    only = set(filter(None, args.sets.split(",")))
    start = time.perf_counter()
    results, absent, shapes = {}, [], {}
    settings = [None if v.strip() == "uniform" else float(v) for v in args.p.split(",")]
    runs = [("numeric data sets", NUMERIC_SETS, None)]
    runs += [(p_title(p), CATEGORICAL_SETS, p) for p in settings]
    for title, group, p in runs:
        results[title] = {}
        for stem, position, drop in group:
            if only and stem not in only:
                continue
            table = load(args.data, stem, position, drop)
            if table is None:
                if stem not in absent:
                    absent.append(stem)
                continue
            t0 = time.perf_counter()
            results[title][stem] = run_set(table, args.repeats, args.seed, p, args.folds,
                                           numeric=group is NUMERIC_SETS)
            shapes[stem] = (len(table.y), len(table.attributes), len(np.unique(table.y)))
            print(f"{title} / {stem}: {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    plot(results, args.plot)
    write_report(args, results, absent, shapes, settings, time.perf_counter() - start)


def censored_note(results):
    """Measured sentences on the censored variant (numeric sets), for the analysis."""
    group = results.get("numeric data sets") or {}
    if not group:
        return []
    at1 = {label: [par(res, 1.0, k) for res in group.values()] for label, k in VARIANTS}
    c1 = at1["censored"]
    inner = [par(res, u, 3) for res in group.values() for u in LEVELS[1:-1]]
    above_inner = sum(r > 1 for r in inner)
    lines = [
        f"Measured: *censored* is above 1 at U1.0 on {sum(r > 1 for r in c1)} of {len(c1)} numeric sets",
        f"(Theorem 1 on {sum(r > 1 for r in at1['Theorem 1'])}, *mass only* on "
        f"{sum(r > 1 for r in at1['mass only'])}), PAR {min(c1):.3f}-{max(c1):.3f}"
        + (" (the paper reports accuracy gains over 10 % or even 15 % at U0.75 and U1.0)"
           if max(c1) < 1.10 else "") + ";",
        f"between U0.25 and U0.75 it is above 1 in {above_inner} of {len(inner)} (set, level) cells",
        f"(PAR {min(inner):.3f}-{max(inner):.3f})."
        + (" We have not isolated why it trails the baseline there" if 2 * above_inner < len(inner) else ""),
    ]
    if 2 * above_inner < len(inner):
        lines.append("(the dependence of the intervals on x is the first suspect).")
    return lines


def default_choice(results):
    """The *Choice of the default* section: Theorem 1 against censored on held-out folds of
    every numeric set at every uncertain level (U > 0), and the library's current default."""
    group = results.get("numeric data sets") or {}
    if not group:
        return []
    cells = [(name, u, res[u][0], res[u][3]) for name, res in group.items() for u in LEVELS[1:]]
    t1 = np.array([c[2] for c in cells])
    ce = np.array([c[3] for c in cells])
    wins_c, wins_t = int((ce > t1).sum()), int((t1 > ce).sum())
    winner = "censored" if (ce.mean() > t1.mean() and wins_c > wins_t) else (
        "theorem1" if (t1.mean() > ce.mean() and wins_t > wins_c) else "undecided")
    current = TabularNB().interval_fit
    lines = [
        "## Choice of the default", "",
        f"Held-out (cross-validated) accuracy of the two estimators on the {len(group)} numeric sets at the",
        f"{len(LEVELS) - 1} uncertain levels (U0.25-U1.0, {len(cells)} (set, level) cells): *censored* higher in",
        f"{wins_c}, Theorem 1 higher in {wins_t}, equal in {len(cells) - wins_c - wins_t}; mean accuracy censored",
        f"{100 * ce.mean():.1f} %, Theorem 1 {100 * t1.mean():.1f} % (the midpoint baseline "
        f"{100 * np.mean([res[u][1] for res in group.values() for u in LEVELS[1:]]):.1f} %).",
        f"Winner: `{winner}`; `TabularNB`'s default `interval_fit` is `{current}`"
        + ("." if winner in (current, "undecided") else " (DIFFERENT from the winner: change it)."),
        "The paper's estimator stays available as `interval_fit=\"theorem1\"` /",
        "`--interval-fit theorem1`.",
    ]
    base = np.array([res[u][1] for res in group.values() for u in LEVELS[1:]])
    lines += [
        "Against plain NB on the interval midpoints (not an `interval_fit`: the data reduced to certain values)",
        f"*censored* is higher in {int((ce > base).sum())} of {len(cells)} cells and "
        f"{abs(100 * (ce.mean() - base.mean())):.1f} points {'higher' if ce.mean() >= base.mean() else 'lower'} "
        f"on average; Theorem 1 is higher in {int((t1 > base).sum())}.", "",
    ]
    if winner not in (current, "undecided"):
        print(f"warning: held-out winner {winner!r} is not the default {current!r}", file=sys.stderr)
    return lines


def write_report(args, results, absent, shapes, settings, seconds):
    main_p = p_title(settings[0]) if settings else None
    lines = [
        "# NBU: naive Bayes for uncertain data (Qin, Xia & Li)",
        "",
        "Generated by `scripts/experiments/uncertain.py` (measured tables; do not edit by hand).",
        "Implementation: `textnb/io/uncertain.py` (representation, cell syntax, protocol helpers) and",
        "`textnb/naive_bayes/tabular.py` (`TabularNB` learns and predicts with uncertain attributes).",
        "",
        "## Using it",
        "",
        "Write an interval as `[L,R]` and a categorical distribution as `{v:p,...}` in a cell,",
        "quoted as the format requires; a column with such cells is read as uncertain, plain",
        "cells in it are certain values (`5` = `[5,5]`, `red` = `{red:1}`), `?` is missing:",
        "",
        "```",
        "temp,colour,size,class",
        "\"[3.1,4.2]\",\"{red:0.7,blue:0.3}\",1.5,yes",
        "5.0,red,2.5,yes",
        "```",
        "",
        "In ARFF keep the declared type (`numeric`, or `{red,blue,green}`) and quote the cell:",
        "`'[3.1,4.2]'`, `'{red:0.7,blue:0.3}'`; a distribution may only name declared values.",
        "`textnb train / predict / evaluate` read such files unchanged; in Python",
        "`read_table(path)` returns `Attribute` kinds `uncertain-numeric` (two `X` columns: L, R)",
        "and `uncertain-nominal` (one `X` column per value: the probabilities), which",
        "`TabularNB(attributes=tuple(table.attributes))` uses. Malformed cells (L > R,",
        "probabilities not summing to 1 within 1e-6, an undeclared value, garbage) are one-line",
        "errors naming the file, row and column.",
        "",
        "Learning (the paper's §4): with `interval_fit=\"theorem1\"` (command line:",
        "`--interval-fit theorem1`) an uncertain numeric attribute's class Gaussian has",
        "`mu = E[L+R]/2` and Theorem 1's",
        "`sigma^2 = (Var(L+R) - Var(R-L))/4` (n-1 variances, the usual `var_smoothing` floor; a",
        "value <= 0 falls back to the pooled variance, then to the midpoints' variance). By",
        "default (`interval_fit=\"censored\"`, chosen on held-out data: see *Choice of the",
        "default* below) it is instead the maximum-likelihood Gaussian of interval-censored data: the true value lies",
        "somewhere in `[L,R]`, and `(mu_c, sigma_c)` maximise",
        "`sum_i w_i log(Phi((R_i - mu_c)/sigma_c) - Phi((L_i - mu_c)/sigma_c))` (points: their log",
        "density), fitted per class by EM",
        "(E-step: truncated-normal moments of each interval, computed with `erfcx` / `ndtr` and",
        "quadrature for narrow intervals; M-step: weighted mean and variance; SQUAREM-accelerated,",
        "at most 1000 EM steps, tolerance 1e-9), variance times W/(W-1) and the same floor. It is",
        "the estimator that matches the prediction rule below, but not a sum: `partial_fit` and",
        "`merge` of such a model raise a one-line `ValueError`. An uncertain nominal attribute counts",
        "probabilistic cardinalities `PC(v,c) = sum_j w_j p_j(v)`. Prediction: an interval with",
        "L < R contributes the class Gaussian's probability mass of `[L,R]` (log-space CDF",
        "difference), a point the density; a distribution the expected likelihood",
        "`sum_v p(v) P(v|c)`. On certain data (L = R, one-hot vectors) the model is exactly plain",
        "naive Bayes with either `interval_fit` (tested bit for bit).",
        "",
        "## Protocol",
        "",
        "The paper's (§6): every attribute of a set is made uncertain at level U (U0 = the",
        "original data). Numeric `x` -> `[x - (x - Xmin)·r1, x + (Xmax - x)·r2]`, `r1, r2 ~ U[0, U]`",
        "per cell; nominal: a random fraction U of the objects (per attribute) gets probability p",
        "on its true value and `(1 - p)/(k - 1)` on each other value. The paper only says `p < 1`;",
        "the main table uses a fixed small p = 0.1, a sensitivity table p drawn per cell from",
        "U[0, 1) (why p matters: see the summary).",
        "**NBU** = `TabularNB` on the uncertain attributes; **NB** = `TabularNB` on the same data",
        "reduced to interval midpoints / most probable values (ties broken at random), the paper's",
        "baseline. Gaussian numeric attributes, Laplace nominal ones, the same stratified",
        f"{args.folds}-fold split for both; {args.repeats} independent draws of the uncertainty and",
        f"the folds (seed {args.seed}), accuracies averaged. PAR = accuracy(NBU) / accuracy(NB), the",
        "paper's figures 2 and 3. Three NBU variants on the numeric sets, each against the same NB",
        "baseline: *Theorem 1* (the paper's NBU), *censored* (`interval_fit=\"censored\"`), and the",
        "ablation *mass only*: Gaussians fitted on the midpoints as points (no Theorem 1), test",
        "intervals scored by their mass.",
        "",
    ]
    if absent:
        lines += [f"Not in `../shared/datasets/uci`, so not run: {', '.join(absent)}.", ""]
    for title, group in results.items():
        if not group:
            continue
        numeric = title.startswith("numeric")
        heading = f"{title[0].upper()}{title[1:]}"
        if not numeric and title != main_p:
            heading = f"Sensitivity: {title}"
        lines += [f"## {heading}", "",
                  "| data set | objects | attributes | classes | " + " | ".join(f"U{u:g}" for u in LEVELS) + " |",
                  "|---|---:|---:|---:|" + "---:|" * len(LEVELS)]
        for name, res in group.items():
            n, d, c = shapes[name]
            cells = [f"**{par(res, u):.3f}** ({100 * res[u][0]:.1f} / {100 * res[u][1]:.1f})" for u in LEVELS]
            label = f"{name}: Theorem 1" if numeric else name
            lines.append(f"| {label} | {n} | {d} | {c} | " + " | ".join(cells) + " |")
            if numeric:
                cells = [f"**{par(res, u, 3):.3f}** ({100 * res[u][3]:.1f})" for u in LEVELS]
                lines.append(f"| {name}: censored | | | | " + " | ".join(cells) + " |")
                cells = [f"{par(res, u, 2):.3f} ({100 * res[u][2]:.1f})" for u in LEVELS]
                lines.append(f"| {name}: mass only | | | | " + " | ".join(cells) + " |")
        lines += ["", "Cells: PAR (NBU accuracy % / NB accuracy %)"
                  + ("; *censored* and *mass only* rows: their PAR against the same NB (their accuracy %)."
                     if numeric else "."), ""]
    lines += default_choice(results)
    t1, mid = theorem1_shrinkage(1.0)
    lines += ["## Summary", ""]
    for title, group in results.items():
        if not group:
            continue
        variants = VARIANTS if title.startswith("numeric") else (("NBU", 0),)
        for label, k in variants:
            at1 = [(name, par(res, 1.0, k)) for name, res in group.items()]
            above = [name for name, r in at1 if r > 1.0]
            what = f"{title}, {label}" if title.startswith("numeric") else title
            if not title.startswith("numeric") and title != main_p:
                what += " (sensitivity)"
            lines.append(f"* {what}: PAR at U1.0 above 1 on {len(above)} of {len(at1)} sets ("
                         + ", ".join(f"{name} {r:.3f}" for name, r in at1) + ").")
            if title.startswith("numeric") and label == "censored":
                draws = {name: res["draws"][1.0][:, 3] / res["draws"][1.0][:, 1] for name, res in group.items()}
                n_draws = sum(d.size for d in draws.values())
                lines.append(f"  Per draw of the uncertainty at U1.0: above 1 in "
                             f"{sum(int((d > 1).sum()) for d in draws.values())} of {n_draws} ("
                             + ", ".join(f"{name} {d.min():.3f}-{d.max():.3f}" for name, d in draws.items())
                             + ").")
            if title.startswith("numeric"):
                inner = [par(res, u, k) for res in group.values() for u in LEVELS[1:-1]]
                lines.append(f"  At U0.25-U0.75: above 1 in {sum(r > 1.0 for r in inner)} of {len(inner)} "
                             f"(set, level) cells, PAR {min(inner):.3f}-{max(inner):.3f}.")
    lines += [
        "* At U0 NBU is plain naive Bayes (every variant): the ratio is exactly 1.",
        "",
        "Why Theorem 1 and this protocol disagree: Theorem 1",
        "assumes the left and right errors are independent of the true value X. The protocol's",
        "errors, `(x - Xmin)·r1` and `(Xmax - x)·r2`, grow with the distance to the range ends, so",
        "`E[L+R | x] = (2 - U)·x + const` and `R - L` has a mean that does not depend on x: then",
        "`(Var(L+R) - Var(R-L))/4 = (1 - U/2)^2 Var(X)`: a quarter of the true variance at U1.0",
        f"(simulated here for normal X: {t1:.3f} Var(X); the midpoints' variance is {mid:.3f} Var(X)).",
        "The Gaussians are too narrow for the true values the intervals contain.",
        "The *mass only* rows separate the two parts of NBU: the",
        "interval-mass prediction with ordinary (midpoint) variances, against the full NBU with",
        "Theorem 1's narrower ones. The *censored* rows replace Theorem 1 by the estimator that",
        "belongs to the prediction rule: the Gaussian under which the training intervals have the",
        "largest probability mass, the same quantity the prediction scores. It assumes only that",
        "the true value is in the interval and that where it sits there does not depend on it",
        "(non-informative censoring); the protocol's intervals do depend on x (an x near Xmin gets",
        "a short left and a long right error), so it is not unbiased here either, but it is fitted",
        "to what is scored, with the interval widths taken into account.",
        *censored_note(results),
        "",
        "Why p decides the categorical tables: the most probable value of an uncertain cell is a",
        "wrong one exactly when `p < (1 - p)/(k - 1)`, i.e. `p < 1/k`. Only then can the baseline",
        "collapse: with p ~ U[0, 1) most cells have p > 1/k, their most probable value is the true",
        "one, and the baseline sees the clean data while NBU sees it blurred, so PAR stays near or",
        "below 1. With p = 0.1 < 1/k (every attribute here with k <= 9 values: all but two of",
        "mushroom's, k = 10 gives a tie, k = 12 the true value) the baseline's value is",
        "always wrong, while NBU's probabilistic cardinalities and expected likelihood apply the",
        "same linear map to the training and the test vectors and keep the information: that is",
        "the reading under which gains like the paper's 1.9-5x at U1.0 are possible. They need the",
        "baseline to lose the attribute: for a two-valued attribute the wrong value is the other",
        "one, a consistent relabelling that loses nothing when every object is uncertain (U1.0),",
        "and for k > 2 a random wrong value still says which value the object does not have; so",
        "the gains measured here are smaller than the paper's. Where certain and uncertain objects",
        "are mixed, both models' value counts mix the true distribution with its complement (most",
        "mass on the other values), and the two nearly cancel: NBU's expected counts are",
        "`P(v|c)·(1 - U(1-p)k/(k-1)) + const`, flat at `U = (k-1)/((1-p)k)` (0.89 for k = 5,",
        "p = 0.1), the baseline's `P(v|c)·(1 - Uk/(k-1)) + const`, flat at `U = (k-1)/k`; hence",
        "the dip of both accuracies at U0.75 and the recovery at U1.0, where every object is",
        "transformed alike (and NBU's test vectors, unlike the baseline's random wrong values,",
        "are a fixed function of the true value).",
        "",
        "![PAR by extent of uncertainty](uncertain.png)",
        "",
        "Top: the numeric sets, NBU with Theorem 1 (the paper's, left) and, on a finer scale,",
        "NBU with `interval_fit=\"censored\"` (solid) and the *mass only* ablation (dashed, right);",
        "bottom: the categorical sets, p = 0.1 (main) and p ~ U[0, 1) (sensitivity).",
        "",
        f"Total run time: {seconds:.0f} s.",
        "",
    ]
    args.out.write_text("\n".join(lines), encoding="utf-8")


if __name__ == "__main__":
    main()
