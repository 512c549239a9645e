"""One data set, every table path, one answer: every registered table model trained on the
same rows given as ARFF, CSV and TSV (and as CSV with its rows shuffled, and as ARFF with its
values declared in another order), through the library and ``textnb train`` + ``predict``,
predicts the same classes with the same probabilities.

The rule (:func:`textnb.core.attributes.found_values`): a nominal attribute's values are in the
order its source declares (an ARFF header's, a pandas categorical's); a source that declares
none (CSV / TSV, a plain DataFrame column) has them sorted, as its classes are. So a CSV and the
ARFF declaring the same values sorted are one data set bit for bit, whatever the order of the
CSV's rows. Every model gives the same answer in any value order but for two rules of Weka's
that take an attribute's first value, kept for Weka parity: LBR counts a training row's missing
value as the first value, and ``--missing mode`` (TAN, Bayes nets) fills a missing value with the
most frequent one, the first of those tied; with missing values, their answer follows the
declared order (sorted for a CSV).
"""

import csv
import io
import json
import random
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose

from conftest import CORPORA, SHARED
from textnb.cli import main
from textnb.cli.commands import build_parser
from textnb.core.attributes import Attribute, found_values
from textnb.core.wrapping import fit_weighted, table_attributes
from textnb.io.arff import read_arff, write_arff
from textnb.io.tables import read_table, table_from_frame
from textnb.meta.registry import MODELS, ModelOptions, make_table_model, model_names

UCI = SHARED / "datasets" / "uci"

#: every registered table model (``MODELS``, input "tables") and the variants of the options
#: that change how values are used: numeric modes, nominal estimators, lazy rules, wrappers.
#: ``bn`` takes a structure file, written per data set (:func:`_structure`).
KINDS = {
    "nb": [],
    "nb-kde": ["--numeric", "kde"],
    "nb-mdl": ["--numeric", "mdl"],
    "nb-equal-frequency": ["--numeric", "equal-frequency", "--bins", "3"],
    "nb-equal-width": ["--numeric", "equal-width"],
    "nb-eq4": ["--nominal", "eq4"],
    "nb-m": ["--m", "2"],
    "tan": ["--model", "tan"],
    "tan-mode": ["--model", "tan", "--missing", "mode", "--alpha", "0.5"],
    "bn": ["--model", "bn"],
    "aode": ["--model", "aode"],
    "lbr": ["--lazy", "lbr"],
    "hlbr": ["--lazy", "hlbr"],
    "adjust": ["--adjust"],
    "calibrate": ["--calibrate", "sigmoid"],
}
#: the kinds whose answer follows the declared value order when training rows miss values, by
#: Weka's rules that take an attribute's first value (Weka parity, docs/weka_parity.md): LBR counts
#: a training row's missing value as the first value; --missing mode fills in the most frequent
#: value, the first of those tied (Weka's ReplaceMissingValues)
ORDER_DEPENDENT_WITH_MISSING = {"lbr", "hlbr", "tan-mode"}
#: the kinds whose answer depends on the order of the rows (cross-validation folds drawn over rows)
ROW_ORDER_DEPENDENT = {"calibrate"}


def test_every_registered_table_model_is_covered():
    assert {k.split("-")[0] for k in KINDS} >= set(model_names("tables"))
    assert all(MODELS[name].input == "tables" for name in model_names("tables"))


def _options(flags, structure=None):
    args = ["train", "x.csv", *flags] + (["--structure", str(structure)] if structure else [])
    return ModelOptions.from_namespace(build_parser().parse_args(args))


# -- one data set, written in every format ---------------------------------------------------

def _canonical(attributes, X, *, shuffle_values=None):
    """The attributes with only the values rows have (a value no row has is information a
    CSV cannot carry), declared sorted (or shuffled by ``shuffle_values``, a Random; the
    class's order kept: a class order is the header's, docs/robustness.md), X recoded;
    columns without a known cell left out."""
    atts, cols = [], []
    for j, a in enumerate(attributes):
        col = X[:, j].copy()
        known = ~np.isnan(col)
        if not known.any():
            continue
        if a.kind == "nominal":
            names = found_values(a.values[int(v)] for v in col[known])
            if shuffle_values is not None and j < len(attributes) - 1:
                shuffle_values.shuffle(names)
            index = {v: k for k, v in enumerate(names)}
            col[known] = [index[a.values[int(v)]] for v in col[known]]
            a = Attribute(a.name, "nominal", names)
        atts.append(a)
        cols.append(col)
    return atts, np.column_stack(cols)


def _number(x):
    text = repr(float(x))
    return text[:-2] if text.endswith(".0") else text


def _write_delimited(path, attributes, X, *, delimiter=",", order=None):
    with open(path, "w", newline="") as f:
        out = csv.writer(f, delimiter=delimiter)
        out.writerow([a.name for a in attributes])
        for i in range(len(X)) if order is None else order:
            out.writerow(["?" if np.isnan(v) else a.values[int(v)] if a.kind == "nominal" else _number(v)
                          for a, v in zip(attributes, X[i])])


def _structure(path, attributes):
    """A Bayesian network for ``--model bn``: naive Bayes plus an arc between the first two
    attributes."""
    names = [a.name for a in attributes[:-1]]
    path.write_text(json.dumps({"parents": {names[1]: [attributes[-1].name, names[0]]}} if len(names) > 1 else {}))
    return path


def _formats(source, tmp_path, *, missing_cells=0):
    """``{format: (path, read_table keywords)}`` for the data of the ARFF ``source`` (with
    ``missing_cells`` cells of its attributes made missing, spread by a fixed seed), and
    whether it has missing values."""
    arff = read_arff(source)
    X = arff.X.copy()
    if missing_cells:
        rng = np.random.default_rng(0)
        X[rng.integers(0, len(X), missing_cells), rng.integers(0, X.shape[1] - 1, missing_cells)] = np.nan
    atts, X = _canonical(arff.attributes, X)
    permuted = _canonical(atts, X, shuffle_values=random.Random(1))
    # number codes (balance-scale's 1..5, a class of 1 / 2) stay nominal in the CSV copies
    nominal = [a.name for a in atts if a.kind == "nominal" and any(_is_number(v) for v in a.values)] or None
    stem = Path(source).stem
    write_arff(tmp_path / f"{stem}.arff", atts, X)
    write_arff(tmp_path / f"{stem}.permuted.arff", *permuted)
    _write_delimited(tmp_path / f"{stem}.csv", atts, X)
    _write_delimited(tmp_path / f"{stem}.tsv", atts, X, delimiter="\t")
    order = list(range(len(X)))
    random.Random(2).shuffle(order)
    _write_delimited(tmp_path / f"{stem}.shuffled.csv", atts, X, order=order)
    csv_kw = {"nominal": nominal} if nominal else {}
    formats = {"arff": (tmp_path / f"{stem}.arff", {}), "permuted-arff": (tmp_path / f"{stem}.permuted.arff", {}),
               "csv": (tmp_path / f"{stem}.csv", csv_kw), "tsv": (tmp_path / f"{stem}.tsv", csv_kw),
               "shuffled-csv": (tmp_path / f"{stem}.shuffled.csv", csv_kw)}
    return formats, bool(np.isnan(X[:, :-1]).any()), atts


def _is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def _comparable(kind, fmt, has_missing):
    return not ((fmt == "permuted-arff" and has_missing and kind in ORDER_DEPENDENT_WITH_MISSING)
                or (fmt == "shuffled-csv" and kind in ROW_ORDER_DEPENDENT))


def _by_class(classes, proba):
    """The probability columns in sorted class order (an ARFF's classes are in its header's order)."""
    classes = [str(c) for c in classes]
    return np.asarray(proba)[:, np.argsort(classes)], sorted(classes)


def _assert_same(reference, other, what):
    (labels, proba, classes), (labels2, proba2, classes2) = reference, other
    assert classes == classes2, what
    assert_allclose(proba2, proba, rtol=1e-9, atol=1e-12, err_msg=what)
    top = proba.max(axis=1, keepdims=True)
    tied = (np.abs(proba - top) <= 1e-12).sum(axis=1) > 1  # (a tie goes to the model's first class)
    assert list(np.asarray(labels2)[~tied]) == list(np.asarray(labels)[~tied]), what


# -- the library --------------------------------------------------------------------------------

def _library(path, kw, opts, query, *, kernel):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = read_table(path, **kw)
        model = make_table_model(opts, table, kernel=kernel)
        fit_weighted(model, table.X, table.y, table.sample_weight)
        q = read_table(query[0], like=table_attributes(model), classes=model.classes_, **query[1])
        proba = model.predict_proba(q.X)
    by_class, classes = _by_class(model.classes_, proba)
    return np.asarray(model.predict(q.X)).astype(str), by_class, classes


def _check_library(source, tmp_path, kinds, missing_cells=0):
    formats, has_missing, atts = _formats(source, tmp_path, missing_cells=missing_cells)
    structure = _structure(tmp_path / "structure.json", atts)
    query = formats["csv"]
    for kind in kinds:
        opts = _options(KINDS[kind], structure if kind == "bn" else None)
        reference = _library(*formats["arff"], opts, query, kernel=True)
        for fmt, (path, kw) in formats.items():
            for kernel in (True, False):
                if (fmt, kernel) == ("arff", True) or not _comparable(kind, fmt, has_missing):
                    continue
                what = f"{Path(source).name} {kind}: {fmt} {'kernel' if kernel else 'estimator'} vs arff"
                _assert_same(reference, _library(path, kw, opts, query, kernel=kernel), what)


BUNDLED = [CORPORA / "weather.nominal.arff", CORPORA / "weather.numeric.arff"]


@pytest.mark.parametrize("source", BUNDLED, ids=lambda p: p.stem)
def test_every_table_model_gives_one_answer_for_one_data_set_in_every_format(tmp_path, source):
    """The bundled weather tables: ARFF (values declared sorted, and in another order), CSV,
    TSV, CSV with its rows shuffled; each model's kernel and estimator: the same predictions
    and probabilities (to 1e-9)."""
    _check_library(source, tmp_path, KINDS)


@pytest.mark.parametrize("source", BUNDLED, ids=lambda p: p.stem)
def test_every_table_model_gives_one_answer_with_missing_values(tmp_path, source):
    """The same with 8 cells made missing: LBR's answer (Weka's rule: a training row's
    missing value counts as the attribute's first value) follows the declared order, so it
    is compared between the formats that declare it alike (sorted: ARFF sorted, CSV, TSV,
    rows shuffled); every other model in every order. (A CSV's values came in order of first
    appearance: LBR's answer changed with the order of the CSV's rows and from the ARFF's.)"""
    _check_library(source, tmp_path, KINDS, missing_cells=8)


def test_lbr_follows_the_declared_order_only_with_missing_values(tmp_path):
    """What the exception is: LBR on the weather table with missing cells answers differently
    when the ARFF declares its values in another order (Weka does so too), and alike without."""
    def proba(fmt, formats):
        return _library(*formats[fmt], _options(["--lazy", "lbr"]), formats["csv"], kernel=True)[1]

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    clean, _, _ = _formats(CORPORA / "weather.nominal.arff", tmp_path / "a")
    assert_allclose(proba("permuted-arff", clean), proba("arff", clean))
    holes, has_missing, _ = _formats(CORPORA / "weather.nominal.arff", tmp_path / "b", missing_cells=8)
    assert has_missing and not np.allclose(proba("permuted-arff", holes), proba("arff", holes))
    assert_allclose(proba("shuffled-csv", holes), proba("arff", holes))


def test_csv_values_are_sorted_whatever_the_row_order(tmp_path):
    """A CSV declares no values: its nominal values (and uncertain nominal ones, and a
    DataFrame's plain columns) are sorted as its classes are, so the same rows in another
    order give the same attributes and the same model file."""
    rows = ["outlook,windy,p,play", "sunny,no,\"{hi:0.5,lo:0.5}\",no", "rainy,yes,lo,yes",
            "overcast,no,hi,yes", "sunny,yes,lo,no"]
    (tmp_path / "a.csv").write_text("\n".join(rows) + "\n")
    (tmp_path / "b.csv").write_text("\n".join([rows[0]] + rows[:0:-1]) + "\n")
    a, b = read_table(tmp_path / "a.csv"), read_table(tmp_path / "b.csv")
    assert [x.values for x in a.attributes] == [["overcast", "rainy", "sunny"], ["no", "yes"], ["hi", "lo"]]
    assert [x.values for x in b.attributes] == [x.values for x in a.attributes]
    for name in ("a", "b"):
        assert main(["train", str(tmp_path / f"{name}.csv"), "--ignore", "p", "-o", str(tmp_path / f"{name}.tnb")],
                    stdout=io.StringIO(), stderr=io.StringIO()) == 0
    assert (tmp_path / "a.tnb").read_bytes() == (tmp_path / "b.tnb").read_bytes()
    pd = pytest.importorskip("pandas")
    frame = pd.read_csv(tmp_path / "b.csv").drop(columns="p")
    assert [x.values for x in table_from_frame(frame).attributes] == [["overcast", "rainy", "sunny"], ["no", "yes"]]
    from textnb.io.frames import frame_attributes

    assert [x.values for x in frame_attributes(frame)] == [["overcast", "rainy", "sunny"], ["no", "yes"], ["no", "yes"]]


# -- the command line: train + predict ------------------------------------------------------------

def _cli(path, kw, flags, query, tmp_path):
    model = tmp_path / f"{Path(path).name}.tnb"
    nominal = ["--nominal-columns", ",".join(kw["nominal"])] if kw.get("nominal") else []
    out, err = io.StringIO(), io.StringIO()
    assert main(["train", str(path), *flags, *nominal, "-o", str(model)], stdout=out, stderr=err) == 0, err.getvalue()
    out, err = io.StringIO(), io.StringIO()
    code = main(["predict", "--proba", "--json", str(model), str(query)], stdout=out, stderr=err)
    assert code == 0, err.getvalue()
    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    classes = sorted(rows[0]["proba"])
    return [r["label"] for r in rows], np.array([[r["proba"][c] for c in classes] for r in rows]), classes


@pytest.mark.parametrize("kind", list(KINDS))
def test_train_and_predict_give_one_answer_for_one_data_set_in_every_format(tmp_path, kind):
    """``textnb train FILE`` + ``textnb predict --proba --json MODEL weather.csv`` with each
    format of the weather table (8 cells missing): the library's answer, the same in
    every format (LBR's with the values declared alike)."""
    formats, has_missing, atts = _formats(CORPORA / "weather.numeric.arff", tmp_path, missing_cells=8)
    flags = KINDS[kind] + (["--structure", str(_structure(tmp_path / "s.json", atts))] if kind == "bn" else [])
    query = formats["csv"][0]
    reference = _library(*formats["arff"], _options(flags), formats["csv"], kernel=True)
    for fmt, (path, kw) in formats.items():
        if _comparable(kind, fmt, has_missing):
            _assert_same(reference, _cli(path, kw, flags, query, tmp_path), f"{kind}: textnb train {fmt}")


# -- the shared UCI tables (slow) ---------------------------------------------------------------------

#: small shared tables with missing values, numbers, number codes and many values
UCI_TABLES = ["vote", "labor", "breast-cancer", "colic", "audiology", "iris", "balance-scale", "lung-cancer",
              "postoperative-patient-data", "hepatitis"]


@pytest.mark.slow
@pytest.mark.skipif(not UCI.is_dir(), reason="needs the shared UCI tables")
@pytest.mark.parametrize("name", UCI_TABLES)
def test_uci_tables_give_one_answer_in_every_format(tmp_path, name):
    kinds = [k for k in KINDS if k not in ("lbr", "calibrate")]  # (hlbr: LBR's rule, faster)
    _check_library(UCI / f"{name}.arff", tmp_path, kinds)


def test_options_of_each_kind_are_what_the_registry_takes():
    """Each kind's flags are options its model takes (a kind that the command line refused
    would test nothing)."""
    for kind, flags in KINDS.items():
        opts = _options(flags, "s.json" if kind == "bn" else None)
        assert replace(opts) == opts
