"""Do two checkouts of textnb predict the same? Fits the table models on the shared UCI sets
in this process's textnb and writes their outputs; a second run compares two such dumps.

Each set (the ``.arff`` files of ``../shared/datasets/uci``, class last) is split
deterministically (even rows train, odd rows test); every model is fitted on the training
rows and its ``predict_joint_log_proba`` on the test rows is stored. TabularNB (Gaussian
and MDL numerics; MDL also with sample weights), TAN, AODE (also weighted), and LBR (sets of at most 1,500 objects: it is lazy, so
costly) are covered; a model that refuses a set (LBR needs nominal attributes) is skipped
the same way in both checkouts.

Usage (run from any directory; PYTHONPATH picks the checkout)::

    PYTHONPATH=OLD python scripts/compare_revisions.py dump /tmp/old.npz
    PYTHONPATH=NEW python scripts/compare_revisions.py dump /tmp/new.npz
    python scripts/compare_revisions.py compare /tmp/old.npz /tmp/new.npz
"""

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

UCI = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "uci"
LBR_MAX_OBJECTS = 1500


def models(table, n):
    import textnb

    atts = tuple(table.attributes)
    out = {
        "tabular-gaussian": lambda: textnb.TabularNB(attributes=atts),
        "tabular-mdl": lambda: textnb.TabularNB(attributes=atts, numeric="mdl"),
        "tan": lambda: textnb.TAN(attributes=atts, numeric="mdl"),
        "aode": lambda: textnb.AODE(attributes=atts),
    }
    if n <= LBR_MAX_OBJECTS and table.nominal_mask.all():
        out["lbr"] = lambda: textnb.LBR()
    return out


def dump(path):
    from textnb.io.tables import read_table

    arrays = {}
    for f in sorted(UCI.glob("*.arff")):
        try:
            table = read_table(f)
        except Exception as exc:  # noqa: BLE001 - a set this checkout cannot read is reported
            print(f"{f.stem}: not read ({exc})", file=sys.stderr)
            continue
        X, y = np.asarray(table.X, dtype=np.float64), np.asarray(table.y)
        train, test = np.arange(0, len(y), 2), np.arange(1, len(y), 2)
        kinds = models(table, len(y))
        weight = 0.5 + (train % 3)  # and once with sample weights
        runs = [(name, make, None) for name, make in kinds.items()]
        runs += [(f"{name}-weighted", kinds[name], weight) for name in ("tabular-mdl", "aode") if name in kinds]
        for name, make, w in runs:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    extra = {} if w is None else {"sample_weight": w}
                    model = make().fit(X[train], y[train], **extra)
                    jll = model.predict_joint_log_proba(X[test])
            except ValueError as exc:
                arrays[f"{f.stem}/{name}/refused"] = np.array(str(exc).split(";")[0][:80])
                continue
            arrays[f"{f.stem}/{name}"] = jll
    np.savez(path, **arrays)
    print(f"{path}: {sum(not k.endswith('refused') for k in arrays)} fitted, "
          f"{sum(k.endswith('refused') for k in arrays)} refused", file=sys.stderr)


def compare(old, new):
    a, b = np.load(old), np.load(new)
    keys = sorted(set(a.files) | set(b.files))
    differ = [k for k in keys if k not in a.files or k not in b.files or not np.array_equal(a[k], b[k])]
    fitted = [k for k in keys if not k.endswith("refused")]
    sets = {k.split("/")[0] for k in fitted}
    print(f"{len(fitted)} model fits on {len(sets)} sets compared; "
          f"{len(fitted) - len([k for k in differ if not k.endswith('refused')])} bit-identical")
    for k in differ:
        if k in a.files and k in b.files and not k.endswith("refused"):
            print(f"  differs: {k} (max abs difference {np.nanmax(np.abs(a[k] - b[k])):.3g})")
        else:
            print(f"  differs: {k}")
    return 1 if differ else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump")
    d.add_argument("out")
    c = sub.add_parser("compare")
    c.add_argument("old")
    c.add_argument("new")
    args = ap.parse_args()
    if args.cmd == "dump":
        dump(args.out)
        return 0
    return compare(args.old, args.new)


if __name__ == "__main__":
    raise SystemExit(main())
