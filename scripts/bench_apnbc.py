#!/usr/bin/env python
"""Benchmark: seconds to learn APNBC weights, fast sweep vs the paper's O(C·N²) search.

Synthetic joint log likelihoods with the structure of a multinomial model of documents
(a large negative per-document length term, noise growing with length, a class signal,
class biases for the weights to correct), 20 classes, N = 10^3 ... 10^6. The reference
(the literal Appendix A search in tests/semi_naive/test_apnbc.py) runs only up to ``--max-reference``
objects. Writes docs/apnbc_benchmark.md.

    python scripts/bench_apnbc.py [--sizes 1000 10000 100000 1000000] [--no-write]
"""

import argparse
import importlib.util
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from textnb.semi_naive.apnbc import _search_weights_fast  # noqa: E402

#: the test file holding the literal Appendix A search (reference_search_weights)
REFERENCE = ROOT / "tests" / "semi_naive" / "test_apnbc.py"


def _load_reference():
    spec = importlib.util.spec_from_file_location("test_apnbc", REFERENCE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.reference_search_weights


def synthetic_jll(n, n_classes=20, seed=0):
    """Document-like joint log likelihoods: about a quarter of the objects misclassified."""
    rng = np.random.default_rng(seed)
    prior = rng.dirichlet(np.full(n_classes, 3.0))
    y = rng.choice(n_classes, size=n, p=prior)
    length = rng.gamma(2.0, 50.0, size=(n, 1))                 # words per document
    jll = -5.0 * length + 0.5 * np.sqrt(length) * rng.normal(size=(n, n_classes))
    jll[np.arange(n), y] += rng.gamma(2.0, 9.0, size=n)         # the class signal
    jll += rng.normal(0.0, 3.0, size=n_classes)                 # biases the weights can fix
    return jll, y


def _timed(fn, *args, **kw):
    t0 = time.perf_counter()
    out = fn(*args, **kw)
    return time.perf_counter() - t0, out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10**3, 10**4, 10**5, 10**6])
    ap.add_argument("--classes", type=int, default=20)
    ap.add_argument("--significance", type=float, default=0.05)
    ap.add_argument("--max-reference", type=int, default=10**4,
                    help="largest N for the O(C·N²) reference (default 10^4)")
    ap.add_argument("--out", default=str(ROOT / "docs" / "apnbc_benchmark.md"))
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)

    reference = _load_reference()
    rows = []
    for n in args.sizes:
        jll, y = synthetic_jll(n, args.classes)
        base_err = float(np.mean(np.argmax(jll, axis=1) != y))
        t_fast, (w_fast, h_fast) = _timed(_search_weights_fast, jll, y,
                                          significance=args.significance)
        row = {"n": n, "base_err": base_err, "fast": t_fast, "steps": len(h_fast),
               "err_after": (h_fast[-1]["errors_after"] / n) if h_fast else base_err,
               "ref": None, "agree": None}
        if n <= args.max_reference:
            t_ref, (w_ref, h_ref) = _timed(reference, jll, y, significance=args.significance)
            row["ref"] = t_ref
            row["agree"] = bool(np.allclose(w_fast, w_ref, rtol=0, atol=1e-9)
                                and len(h_fast) == len(h_ref))
        rows.append(row)
        print(f"N={n:>8}  fast {t_fast:8.3f} s  reference "
              f"{'-' if row['ref'] is None else round(row['ref'], 3)}"
              f"  steps {row['steps']}  agree {row['agree']}", flush=True)

    lines = [
        "# APNBC weight search: fast sweep vs the paper's search",
        "",
        "Produced by `python scripts/bench_apnbc.py` (do not edit by hand).",
        "",
        f"Seconds to learn the class weights from precomputed joint log likelihoods, "
        f"{args.classes} classes, significance {args.significance}. Data: synthetic "
        "document-like scores (`synthetic_jll` in the script: a per-document length term, "
        "noise growing with length, a class signal, random class biases). *fast* is "
        "`textnb.semi_naive.apnbc._search_weights_fast` (sort the critical values per class and "
        "sweep, O(C·N log N) per step); *reference* is the literal Appendix A search in "
        "`tests/semi_naive/test_apnbc.py` (every candidate re-classifies all N objects, O(C·N²) per "
        f"step), run only up to N = {args.max_reference:,}. *agree*: same weights "
        "(to 1e-9) and the same number of accepted steps.",
        "",
        "| N | NB training error | error after APNBC | accepted steps | fast (s) | fast per round (s) | reference (s) | speed-up | agree |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|:---:|",
    ]
    for r in rows:
        ref = "not run" if r["ref"] is None else f"{r['ref']:.2f}"
        speed = "" if r["ref"] is None else f"{r['ref'] / r['fast']:.0f}×"
        agree = "" if r["agree"] is None else ("yes" if r["agree"] else "**no**")
        lines.append(f"| {r['n']:,} | {r['base_err']:.3f} | {r['err_after']:.3f} | {r['steps']} | "
                     f"{r['fast']:.3f} | {r['fast'] / (r['steps'] + 1):.3f} | {ref} | {speed} | {agree} |")
    lines += [
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores (shared with other jobs while "
        f"this ran, so absolute times are noisy), Python {platform.python_version()}, "
        f"numpy {np.__version__}. Each accepted step costs one pass over the classes: "
        "a sort of N critical values per class plus a binary search per candidate; a search "
        "runs one round per accepted step plus a last round that accepts nothing, hence "
        "*fast per round* = fast / (steps + 1).",
        "",
    ]
    if not args.no_write:
        Path(args.out).write_text("\n".join(lines))
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
