"""The ``textnb`` command: a thin layer that parses arguments, calls the library and prints.

Exit status: 0 success; 1 a user error (bad input, bad model file, bad value), printed as
one line ``textnb: error: ...`` on stderr; 2 bad usage (argparse); 130 interrupted.
"""

import argparse
import difflib
import itertools
import os
import re
import sys
import time
from pathlib import Path
from contextlib import contextmanager

import numpy as np

from textnb.core.version import __version__
from textnb.cli.output import cell, dumps, finite, tolerant
from textnb.cli.argtypes import (MAX_ALPHA, MAX_BINS, MAX_BYTES, MAX_NGRAM, MAX_TERMS, MAX_TOP, bounded, df_value,
                                 jobs, scheduler, select_spec, size)
from textnb.core.errors import InputError, TextnbError
from textnb.core.model_io import save
from textnb.cli.progress import Progress

__all__ = ["main", "build_parser"]


# progress: textnb.cli.progress.Progress (tqdm on a terminal when installed, silent when piped)


# --------------------------------------------------------------------------- output
# one escaping helper and one strict JSON writer for every program (textnb.cli.output)
_cell, _dumps, _finite = cell, dumps, finite


# --------------------------------------------------------------------------- options
_df_value = df_value  # min_df / max_df: a count ("5") or a fraction ("0.5")
_max_features = bounded(int, low=1, high=MAX_TERMS)
_top = bounded(int, low=1, high=MAX_TOP)
_smoothing = bounded(float, low=0.0, high=MAX_ALPHA)
_bins = bounded(int, low=1, high=MAX_BINS)
_ngram = bounded(int, low=1, high=MAX_NGRAM)
_max_bytes = bounded(int, low=1, high=MAX_BYTES)
_folds = bounded(int, low=2, high=10_000)
_repeats = bounded(int, low=1, high=1_000)
_seed = bounded(int, low=0, high=2**32 - 1)
_probability = bounded(float, low=0.0, high=1.0, low_open=True)


def _wrap_model(args, model):
    """The semi-naive wrappers asked for on the command line, around a base model."""
    if getattr(args, "adjust", False):
        from textnb.semi_naive.apnbc import APNBC

        if not hasattr(model, "predict_joint_log_proba"):
            raise InputError("--adjust needs a model with joint log probabilities: not with --weighting, "
                             "--select, --calibrate or --model auto")
        seed = getattr(args, "seed", None)
        model = APNBC(model, **_given(significance=args.significance, fit_on=args.adjust_on,
                                      random_state=seed if args.adjust_on == "cv" else None))
    elif getattr(args, "significance", None) is not None or getattr(args, "adjust_on", None):
        raise InputError("--significance and --adjust-on go with --adjust")
    return model


def _add_corpus_options(p):
    g = p.add_argument_group("corpus")
    g.add_argument("--label-column", help="label column of a TSV/CSV corpus (name or 1-based number); "
                                          "for a mixed table the same as --class")
    g.add_argument("--text-column", action="append", metavar="NAME",
                   help="text column of a TSV/CSV corpus (name or 1-based number); repeat it, or give it "
                        "for a file with other columns too, for a mixed table: text columns beside "
                        "nominal and numeric ones, one naive Bayes (class: --class, default the last column)")
    g.add_argument("--max-bytes", type=_max_bytes,
                   help=f"read at most this many bytes of a document (default 16 MiB; {_max_bytes.range} bytes)")


def _add_model_options(p):
    g = p.add_argument_group("model")
    g.add_argument("--model", choices=["discriminative", "multinomial", "bernoulli", "complement", "auto", "nb", "tan",
                                       "bn", "aode"],
                   help="documents: discriminative (default: naive Bayes with discriminative frequency "
                        "estimates, complement or Bernoulli event model chosen by cross-validation; "
                        "multinomial when --m, --uniform-prior, --norm, --weighting or --lazy is given), "
                        "multinomial, bernoulli, complement, or auto (term weighting and m-estimate "
                        "smoothing chosen by cross-validation, not streamed); "
                        "tables: nb (default), tan, bn with --structure, or aode (Webb et al.'s averaged "
                        "one-dependence estimators)")
    g.add_argument("--norm", action="store_true", help="complement: normalise the weights (Rennie et al.)")
    g.add_argument("--weighting", action="store_true",
                   help="sublinear tf, idf and length normalisation (Rennie et al.) before the model")
    g.add_argument("--select", metavar="CRITERION:K", type=select_spec,
                   help=f"keep the K best terms by chi2, ig (information gain) or df, learned in each fit "
                        f"({select_spec.range})")
    g.add_argument("--calibrate", choices=["sigmoid", "isotonic"],
                   help="calibrate probabilities on out-of-fold log-odds")
    g.add_argument("--structure", metavar="FILE.json",
                   help='Bayesian network structure for --model bn: {"parents": {"A": ["class", "B"], ...}}')
    g.add_argument("--alpha", type=_smoothing, help=f"additive smoothing (default 1.0; {_smoothing.range}; tan, bn and lazy models: above 0)")
    g.add_argument("--m", type=_smoothing, dest="m_estimate",
                   help=f"use the m-estimate with this m ({_smoothing.range}; document models: above 0) "
                        "instead of additive smoothing")
    g.add_argument("--uniform-prior", action="store_true", help="uniform class priors")
    t = p.add_argument_group("tokenizer")
    t.add_argument("--no-lowercase", action="store_true", help="keep case")
    t.add_argument("--token-pattern", help=r"regex for a token (default (?u)\b\w\w+\b)")
    t.add_argument("--stop-words", metavar="english|FILE",
                   help="drop English stop words, or the words listed in FILE (one per line)")
    t.add_argument("--stem", choices=["porter", "snowball"], help="nltk stemmer")
    t.add_argument("--ngram", type=_ngram, metavar="N", help=f"word n-grams from 1 to N (default 1; N {_ngram.range})")
    t.add_argument("--min-df", type=_df_value,
                   help=f"keep terms in at least this many (or this fraction of) documents ({df_value.range})")
    t.add_argument("--max-df", type=_df_value,
                   help=f"keep terms in at most this many (or this fraction of) documents ({df_value.range})")
    t.add_argument("--max-features", type=_max_features,
                   help=f"keep the most frequent terms only ({_max_features.range})")
    t.add_argument("--binary", action="store_true", help="count each term once per document")
    p.add_argument("--jobs", type=jobs, default=-1,
                   help=f"worker processes (default -1: all cores; -k: all but k - 1; {jobs.range})")
    p.add_argument("--lazy", choices=["lbr", "hlbr"],
                   help="lazy Bayesian rules (Zheng & Webb): lbr, or hlbr with candidates chosen at training time")
    adj = p.add_argument_group("APNBC class weights (Webb & Pazzani)")
    adj.add_argument("--adjust", action="store_true", help="learn one weight per class (APNBC)")
    adj.add_argument("--significance", type=_probability, metavar="P",
                     help=f"binomial test level for accepting a weight change (default 0.05; {_probability.range}; "
                          "1 disables the test)")
    adj.add_argument("--adjust-on", choices=["resubstitution", "cv"],
                     help="learn the weights from the training data itself (default) or out-of-fold scores")
    tab = p.add_argument_group("tables (ARFF, CSV/TSV with a header)")
    tab.add_argument("--class", dest="class_name", metavar="NAME", help="class attribute (default: the last one)")
    _add_ignore(tab)
    tab.add_argument("--numeric", choices=["gaussian", "kde", "mdl", "equal-frequency", "equal-width"],
                     help="numeric attributes: Gaussian (default), kernel density, or discretised")
    tab.add_argument("--bins", type=_bins,
                     help=f"bins for equal-frequency / equal-width (default 10; {_bins.range})")
    tab.add_argument("--nominal", choices=["additive", "laplace", "m-estimate", "eq4"],
                     help="estimator of P(value | class) (default additive with --alpha, i.e. Laplace)")
    tab.add_argument("--interval-fit", choices=["theorem1", "censored"],
                     help="uncertain numeric attributes ([L,R] cells), --model nb: the interval-censored "
                          "maximum-likelihood Gaussian, fitted by EM (default; chosen on held-out data, "
                          "docs/uncertain.md) or the paper's Theorem 1 (incremental)")
    tab.add_argument("--missing", choices=["ignore", "mode"],
                     help="tan / bn: leave missing values out (default) or replace them by the mode (Weka)")


def _names(value):
    names = [n.strip() for n in value.split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError(f"expected NAME[,NAME...]; got {value!r}")
    return names


def _add_ignore(group):
    group.add_argument("--ignore", type=_names, metavar="NAME[,NAME...]",
                       help="table attributes to leave out (an ID column, say), as Weka's Remove filter")


def _ignored(args):
    return getattr(args, "ignore", None) or None


def _stop_words(value):
    if value is None or value == "english":
        return value
    try:
        with open(value, encoding="utf-8") as f:
            return sorted({w.strip() for w in f if w.strip()})
    except OSError as exc:
        raise InputError(f"{value}: cannot read stop-word file ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise InputError(f"{value}: stop-word file is not UTF-8") from None


def _given(**kwargs):
    """Only the options the user gave: the library keeps the defaults (one place)."""
    return {k: v for k, v in kwargs.items() if v is not None}


def _document_kind(args):
    """The document model the options ask for: ``--model``, else ``discriminative``, or
    ``multinomial`` (the default before) when an option only a count model takes is given."""
    if args.model:
        return args.model
    count_only = (args.m_estimate is not None or args.uniform_prior or args.norm or args.weighting
                  or getattr(args, "lazy", None))
    return "multinomial" if count_only else "discriminative"


def _text_model(args, kind, params):
    """The document model: base, with term weighting / selection / calibration around it."""
    from sklearn.pipeline import Pipeline

    from textnb.naive_bayes.complement import ComplementNB
    from textnb.naive_bayes.discrete import BernoulliNB, MultinomialNB
    from textnb.meta.calibration import CalibratedNB
    from textnb.text.selection import SelectTerms
    from textnb.meta.smoothing import SmoothingCV
    from textnb.text.weighting import TermWeighting

    if args.norm and kind != "complement":
        raise InputError("--norm goes with --model complement")
    if kind == "discriminative":
        from textnb.naive_bayes.discriminative import DiscriminativeNB

        if set(params) - {"alpha"}:
            raise InputError("--model discriminative takes --alpha only among the smoothing options")
        if args.weighting:
            raise InputError("--model discriminative already weights terms (log tf, length normalisation)")
        model = DiscriminativeNB(**params)
    elif kind == "auto":
        if params:
            raise InputError("--model auto chooses its own smoothing; drop --alpha / --m / --uniform-prior")
        model = SmoothingCV(cv=10)
    elif kind == "complement":
        model = ComplementNB(**params, **({"norm": True} if args.norm else {}))
    else:
        model = {"multinomial": MultinomialNB, "bernoulli": BernoulliNB}[kind](**params)
    steps = []
    if args.select:
        criterion, _, k = args.select.partition(":")  # checked when parsed (argtypes.select_spec)
        steps.append(("select", SelectTerms(criterion=criterion, k=int(k))))
    if args.weighting:
        if kind == "auto":
            raise InputError("--model auto already weights terms")
        steps.append(("weighting", TermWeighting()))
    if steps:
        model = Pipeline(steps + [("model", model)])
    if args.calibrate:
        model = CalibratedNB(model, method=args.calibrate)
    return model


def _vectorizer_params(args):
    return _given(
        lowercase=False if args.no_lowercase else None,
        token_pattern=args.token_pattern,
        stop_words=_stop_words(args.stop_words),
        stemmer=args.stem,
        ngram_range=(1, args.ngram) if args.ngram else None,
        min_df=args.min_df,
        max_df=args.max_df,
        max_features=args.max_features,
        binary=True if args.binary else None,
    )


_STREAMING_KINDS = {"multinomial": "MultinomialNB", "bernoulli": "BernoulliNB", "complement": "ComplementNB",
                    "discriminative": "DiscriminativeNB"}


def _streaming_model(args):
    """``(vectorizer params, (kind, model params))`` when the options ask for a plain count
    model that :func:`textnb.text.training.train_text_model` fits without scikit-learn,
    else None (then the estimators are built, and check the options)."""
    kind = _document_kind(args)
    wrapped = (args.lazy or args.select or args.weighting or args.calibrate or getattr(args, "adjust", False)
               or getattr(args, "significance", None) is not None or getattr(args, "adjust_on", None)
               or args.binary or (args.norm and kind != "complement"))
    if kind not in _STREAMING_KINDS or wrapped:
        return None
    params = _given(alpha=args.alpha, m=args.m_estimate, fit_prior=False if args.uniform_prior else None)
    if args.norm:
        params["norm"] = True
    if kind == "discriminative":
        if set(params) - {"alpha"}:
            return None  # the estimator reports the option it does not take
        params = _given(alpha=args.alpha, n_jobs=args.jobs)
    return _vectorizer_params(args), (_STREAMING_KINDS[kind], params)


def _vectorizer(args):
    """The tokenizer the options describe (the library's defaults for the others)."""
    from textnb.text.vectorizer import Vectorizer

    return Vectorizer(**_vectorizer_params(args))


def _make_classifier(args):
    from textnb.text.classifier import TextClassifier
    from textnb.text.vectorizer import Vectorizer

    vec = Vectorizer(**_vectorizer_params(args))
    kind = _document_kind(args)
    if kind not in ("discriminative", "multinomial", "bernoulli", "complement", "auto"):
        raise InputError(f"--model {kind} is for tables (ARFF / CSV attributes), not documents")
    params = _given(alpha=args.alpha, m=args.m_estimate, fit_prior=False if args.uniform_prior else None)
    if args.lazy:
        from textnb.semi_naive.lbr_text import LazyTextNB

        if args.m_estimate is not None or args.uniform_prior:
            raise InputError("--lazy takes --alpha only among the smoothing options")
        # documents: the key-term candidates always come from HLBR's training-time filter
        # (conditioning on every vocabulary term is not feasible), so lbr and hlbr agree
        model = LazyTextNB(model=kind, **_given(alpha=args.alpha))
    else:
        model = _text_model(args, kind, params)
    model = _wrap_model(args, model)
    return TextClassifier(vectorizer=vec, model=model, n_jobs=args.jobs,
                          **_given(max_bytes=args.max_bytes))


def _open(args, path, test=True):
    from textnb.io.corpus import MAX_DOCUMENT_BYTES, open_corpus

    texts = args.text_column or []
    if len(texts) > 1:
        raise InputError(f"{path}: several --text-column options make a mixed table, not a text corpus")
    return open_corpus(path, label_column=args.label_column, text_column=texts[0] if texts else None,
                       max_bytes=getattr(args, "max_bytes", None) or MAX_DOCUMENT_BYTES, test=test)


def _table_class(args):
    """The class attribute of a table: --class, or its alias --label-column."""
    return getattr(args, "class_name", None) or getattr(args, "label_column", None)


def _mixed_table(args, path):
    """The table of a CSV/TSV with --text-column columns beside others, or None for a
    label + text file (a text corpus, as before)."""
    texts = args.text_column or []
    if not texts or os.path.isdir(path) or path.lower().endswith(".arff"):
        return None
    from textnb.io.csvtable import read_header  # tables import scipy: only for tables
    from textnb.io.tables import read_table

    header = read_header(path)

    def name(ref, what):
        if ref.isdigit() and ref not in header:
            i = int(ref) - 1
            if not 0 <= i < len(header):
                raise InputError(f"{path}: {what} column {ref} out of range 1..{len(header)}")
            return header[i]
        if ref not in header:
            raise InputError(f"{path}: no {what} column {ref!r} (columns: {', '.join(header)})")
        return ref

    names = [name(t, "text") for t in texts]
    cls = _table_class(args)
    cls = name(cls, "class") if cls is not None else None
    if len(names) == 1 and len(header) == 2 and not getattr(args, "class_name", None) \
            and not getattr(args, "numeric", None):
        return None  # label + text: a text corpus
    if len(set(names)) != len(names):
        raise InputError(f"{path}: a column is named twice with --text-column")
    if cls in names:
        raise InputError(f"{path}: the class column {cls!r} cannot also be a text column")
    return read_table(path, class_name=cls, types={t: "text" for t in names})


def _load_input(args, path, test=True):
    """``("table", Table)`` for ARFF and attribute tables (mixed tables too), else
    ``("text", Corpus)`` (``test=False``: without a split folder's test part)."""
    path = os.fspath(path)
    if os.path.isdir(path):
        return "text", _open(args, path, test)
    mixed = _mixed_table(args, path)
    if mixed is not None:
        return "table", mixed
    if not (path.lower().endswith(".arff") or getattr(args, "class_name", None) or getattr(args, "numeric", None)
            or _ignored(args)):
        try:
            return "text", _open(args, path)
        except InputError as exc:
            if "label and text columns" not in str(exc):
                raise
    from textnb.io.tables import read_table  # tables import scipy: only for tables

    return "table", read_table(path, class_name=_table_class(args), drop=_ignored(args))


def _make_tabular(args, table):
    from textnb.naive_bayes.tabular import TabularNB

    kind = args.model or "nb"
    if kind in ("multinomial", "bernoulli"):
        raise InputError(f"--model {kind} is for documents; tables take nb, tan, bn or aode")
    if args.structure and kind != "bn":
        raise InputError("--structure goes with --model bn")
    if args.interval_fit and (kind in ("tan", "bn", "aode") or args.lazy):
        raise InputError("--interval-fit goes with --model nb (without --lazy)")
    text = [a.name for a in table.attributes if a.is_text]
    if text and (kind in ("tan", "bn", "aode") or args.lazy):
        what = f"--lazy {args.lazy}" if args.lazy else f"--model {kind}"
        raise InputError(f"{table.source}: {what} does not support text attributes ({', '.join(text)}); "
                         f"use --model nb")
    if kind in ("tan", "bn", "aode"):
        if args.lazy:
            raise InputError(f"--lazy builds its own local naive Bayes; it does not go with --model {kind}")
        return _wrap_model(args, _make_network(args, table, kind))
    if args.lazy:
        return _wrap_model(args, _make_lazy_table(args, table))
    nominal = args.nominal or ("m-estimate" if args.m_estimate is not None else None)
    n_classes = len(np.unique(table.y))
    prior = [1.0 / n_classes] * n_classes if args.uniform_prior else None
    params = _given(alpha=args.alpha, m=args.m_estimate, nominal=nominal, numeric=args.numeric, bins=args.bins,
                    class_prior=prior, interval_fit=args.interval_fit)
    if text:
        from textnb.text.mixed import MixedNB
        from textnb.naive_bayes.discrete import MultinomialNB

        return _wrap_model(args, MixedNB(attributes=tuple(table.attributes), vectorizer=_vectorizer(args),
                                         text_model=MultinomialNB(**_given(alpha=args.alpha)), **params))
    return _wrap_model(args, TabularNB(attributes=tuple(table.attributes), **params))


def _make_lazy_table(args, table):
    from textnb.naive_bayes.discretized import Discretized
    from textnb.semi_naive.lbr import LBR

    if args.numeric in ("gaussian", "kde"):
        raise InputError(f"--lazy needs nominal attributes: use --numeric mdl (default), equal-frequency "
                         f"or equal-width, not {args.numeric}")
    lbr = LBR(candidates="all" if args.lazy == "lbr" else "heuristic", **_given(alpha=args.alpha))
    return Discretized(lbr, attributes=tuple(table.attributes), class_values=tuple(table.class_attribute.values),
                       **_given(numeric=args.numeric, bins=args.bins))


def _make_network(args, table, kind):
    from textnb.semi_naive.aode import AODE
    from textnb.semi_naive.bayesnet import TAN, BayesNetClassifier, read_structure

    if args.numeric not in (None, "mdl"):
        raise InputError(f"--model {kind} discretises numeric attributes with MDL; --numeric {args.numeric} "
                         "is for --model nb")
    if kind == "aode":
        if args.alpha is not None or args.missing:
            raise InputError("--model aode uses Laplace's correction (or --m) and keeps missing values "
                             "out; drop --alpha / --missing")
        return AODE(attributes=tuple(table.attributes), **_given(m=args.m_estimate))
    common = dict(attributes=tuple(table.attributes), class_name=table.class_attribute.name,
                  numeric=args.numeric if args.numeric in ("mdl",) else "mdl",
                  **_given(alpha=args.alpha, m=args.m_estimate, missing=args.missing))
    if kind == "tan":
        return TAN(**common)
    if not args.structure:
        raise InputError("--model bn needs --structure FILE.json")
    structure = read_structure(args.structure)
    if structure.get("class"):
        common["class_name"] = structure["class"]
    return BayesNetClassifier(parents=structure["parents"], **common)


@contextmanager
def _structure_errors(args):
    """A bad network structure is found at fit time: name the structure file in the error."""
    try:
        yield
    except InputError as exc:
        if getattr(args, "structure", None) and "structure" in str(exc) and args.structure not in str(exc):
            raise InputError(f"{args.structure}: {exc}") from None
        raise


def _check_table_classes(table):
    classes = np.unique(table.y)
    if len(classes) < 2:
        raise InputError(f"{table.source}: only one class ({classes[0]!r}); need at least two")


def _check_classes(corpus):
    counts = corpus.class_counts()
    if len(counts) < 2:
        only = next(iter(counts))
        raise InputError(f"{corpus.source}: only one class ({only!r}); need at least two")
    return counts


def _check_binary_classes(corpus, learned):
    """A class all of whose files are binary (skipped) is an error, not a class of 0
    documents; ``learned``: documents read per class. (Binary files in a class that has
    text files are skipped and counted, as always.)"""
    empty = [c for c in dict.fromkeys(corpus.labels) if not learned.get(c)]
    if empty:
        where = corpus.source
        first = next(d for d, c in zip(corpus.documents, corpus.labels) if c == empty[0])
        if isinstance(first, Path):  # the class folder (of a split corpus: under train/)
            where = next((str(q) for q in first.parents if q.name == empty[0]), where)
        n = sum(1 for c in corpus.labels if c == empty[0])
        more = f" (and {len(empty) - 1} more classes)" if len(empty) > 1 else ""
        raise InputError(f"{where}: every file of class {empty[0]!r} is binary ({n} skipped){more}; "
                         f"no documents to learn it from")


def _warn_multilabel(corpus, err):
    """One stderr line when a folder corpus looks multi-label (the same document in
    several class folders) and is about to be read single-label."""
    from textnb.io.corpus import documents_in_several_classes

    n = documents_in_several_classes(corpus)
    if n:
        print(f"textnb: warning: {corpus.source}: {n} document{'s' if n > 1 else ''} in several class folders "
              f"(a multi-label corpus?) counted once per folder; use --multilabel for one document with "
              f"several labels", file=err)


def _default_model_path(path):
    base = os.path.basename(os.path.normpath(path)) or "model"
    base = os.path.splitext(base)[0] or "model"
    return base + ".tnb"


# --------------------------------------------------------------------------- commands
def _preload_for_train(args):
    """Import the modules this training run will use before its clock starts, so that
    ``seconds`` measures reading the data, fitting and writing the model, not Python's
    imports (a plain count model still imports no scikit-learn)."""
    import importlib

    path = os.fspath(args.path)
    names = ["textnb.io.corpus", "textnb.core.model_io"]
    table = not os.path.isdir(path) and (path.lower().endswith(".arff") or bool(_table_class(args))
                                         or bool(getattr(args, "numeric", None)) or bool(_ignored(args))
                                         or (args.model or "") in ("nb", "tan", "bn", "aode"))
    if args.multilabel or args.labels:
        names += ["sklearn.pipeline", "textnb.meta.multilabel", "textnb.text.classifier"]
    elif table:
        names += ["textnb.io.tables", "textnb.naive_bayes.tabular"]
        names += {"tan": ["textnb.semi_naive.bayesnet"], "bn": ["textnb.semi_naive.bayesnet"],
                  "aode": ["textnb.semi_naive.aode"]}.get(args.model or "nb", [])
        if args.lazy:
            names += ["textnb.naive_bayes.discretized", "textnb.semi_naive.lbr"]
    elif _streaming_model(args) is not None:
        names += ["textnb.text.training"]
    else:
        names += ["textnb.text.classifier"]
        if args.calibrate:
            names += ["textnb.meta.calibration"]
    if getattr(args, "adjust", False):
        names += ["textnb.semi_naive.apnbc"]
    for name in names:
        importlib.import_module(name)


def cmd_train(args, out, err):
    _preload_for_train(args)
    start = time.perf_counter()  # `seconds`: read, fit, write (imports done above)
    if args.multilabel or args.labels:
        return _train_multilabel(args, start, out)
    kind, data = _load_input(args, args.path, test=False)  # training reads the training part only
    if kind == "table":
        return _train_table(args, data, start, out)
    corpus = data
    _check_classes(corpus)
    _warn_multilabel(corpus, err)
    streaming = _streaming_model(args)
    bar = Progress("reading", total=len(corpus))
    try:
        with _scheduler(args) as client:
            if streaming is not None:  # no estimator built: no scikit-learn imported
                from textnb.text.training import train_text_model

                vectorizer, model = streaming
                fitted, skipped = train_text_model(
                    corpus.documents, corpus.labels, vectorizer=vectorizer, model=model, n_jobs=args.jobs,
                    max_bytes=args.max_bytes, progress=bar, client=client)
                n_terms, model_name = fitted.state["model_"].state["n_features_in_"], model[0]
            else:
                fitted = _make_classifier(args)
                fitted.fit(corpus.documents, corpus.labels, progress=bar, client=client)
                skipped, n_terms = fitted.skipped_, len(fitted.vectorizer_.vocabulary_)
                model_name = _model_name(fitted.model_)
    finally:
        bar.close()
    _check_binary_classes(corpus, _learned_counts(corpus, skipped))
    model_path = args.output or _default_model_path(args.path)
    save(fitted, model_path)
    seconds = time.perf_counter() - start
    summary = {
        "source": corpus.source,
        "documents": len(corpus) - len(skipped),
        "per_class": _learned_counts(corpus, skipped),
        "skipped_binary": len(skipped),
        "vocabulary_size": n_terms,
        "model": model_path,
        "seconds": round(seconds, 3),
    }
    if args.json:
        print(_dumps(summary), file=out)
    else:
        per_class = ", ".join(f"{c} {n}" for c, n in summary["per_class"].items())
        print(f"read {summary['documents']} documents from {corpus.source}: {per_class}", file=out)
        if skipped:
            print(f"skipped {len(skipped)} binary files", file=out)
        print(f"vocabulary: {summary['vocabulary_size']} terms", file=out)
        print(f"model: {model_name} -> {model_path}", file=out)
        print(f"seconds: {seconds:.2f}", file=out)
    return 0


def _train_multilabel(args, start, out):
    """``train --multilabel`` / ``--labels FILE``: one-vs-rest naive Bayes with per-label
    thresholds (:class:`textnb.meta.multilabel.MultiLabelNB`) behind the vectorizer, saved
    as a Pipeline ``[vectorizer, MultiLabelNB]``."""
    from sklearn.pipeline import Pipeline

    from textnb.io.corpus import MAX_DOCUMENT_BYTES
    from textnb.meta.multilabel import MultiLabelNB, read_multilabel_corpus

    if args.lazy or args.scheduler:
        raise InputError("--multilabel / --labels train one-vs-rest count models: no --lazy, no --scheduler")
    corpus = read_multilabel_corpus(args.path, label_file=args.labels)
    texts, labels, skipped = _read_texts(corpus, args.max_bytes or MAX_DOCUMENT_BYTES, labels=corpus.labels)
    names = sorted({lab for labs in labels for lab in labs})
    if not texts:
        raise InputError(f"{corpus.source}: no text documents (every file is binary)")
    if not names:
        raise InputError(f"{args.labels or corpus.source}: no document has a label")
    clf = _make_classifier(args)
    model = Pipeline([("vectorizer", clf.vectorizer), ("model", MultiLabelNB(clf.model))])
    model.fit(texts, [tuple(labs) for labs in labels])
    model_path = args.output or _default_model_path(args.path)
    save(model, model_path)
    seconds = time.perf_counter() - start
    per_label = {n: 0 for n in names}
    for labs in labels:
        for lab in labs:
            per_label[lab] += 1
    summary = {
        "source": corpus.source,
        "documents": len(texts),
        "per_label": per_label,
        "skipped_binary": skipped,
        "vocabulary_size": len(model[0].vocabulary_),
        "model": model_path,
        "seconds": round(seconds, 3),
    }
    if args.json:
        print(_dumps(summary), file=out)
        return 0
    listing = ", ".join(f"{c} {n}" for c, n in per_label.items())
    print(f"read {summary['documents']} documents from {corpus.source} ({len(names)} labels): {listing}", file=out)
    if skipped:
        print(f"skipped {skipped} binary files", file=out)
    print(f"vocabulary: {summary['vocabulary_size']} terms", file=out)
    print(f"model: MultiLabelNB({_model_name(model[-1].estimator or clf.model)}), one-vs-rest -> {model_path}",
          file=out)
    print(f"seconds: {seconds:.2f}", file=out)
    return 0


def _multilabel_model(model):
    """The MultiLabelNB at the end of a multi-label text Pipeline, or None."""
    steps = getattr(model, "steps", None)
    if not steps:
        return None
    last = steps[-1][1]
    return last if type(last).__name__ == "MultiLabelNB" and getattr(last, "multilabel_", False) else None


def _predict_multilabel(args, model, out, err):
    """``predict`` of a multi-label model: every label whose log-odds pass its threshold
    (chosen at training time for F1), or whose probability is >= ``--threshold``;
    ``--top K`` keeps the K most probable of them."""
    from scipy.special import expit

    from textnb.io.corpus import MAX_DOCUMENT_BYTES, read_rows

    ml = _multilabel_model(model)
    names = [str(c) for c in ml.classes_]
    max_bytes = args.max_bytes or MAX_DOCUMENT_BYTES
    failed = [0]  # binary files skipped (_document_batches counts them)

    def emit(sources, texts):
        if not texts:
            return
        lo = ml.predict_log_odds(model[:-1].transform(texts))
        proba = expit(lo)
        passed = proba >= args.threshold if args.threshold is not None else lo > ml.thresholds_
        for src, row_lo, row_p, row_ok in zip(sources, lo, proba, passed):
            chosen = [int(k) for k in np.argsort(-row_lo, kind="stable") if row_ok[k]][:args.top or len(names)]
            if args.json:
                rec = {"source": src, "labels": [names[k] for k in chosen]}
                if args.proba:
                    rec["proba"] = {c: float(v) for c, v in zip(names, row_p)}
                    rec["log_odds"] = {c: float(v) for c, v in zip(names, row_lo)}
                print(_dumps(rec), file=out)
            else:
                cols = [_cell(src), ",".join(_cell(names[k]) for k in chosen)]
                if args.proba:
                    cols.append(_format_proba([_cell(c) for c in names], row_p))
                print("\t".join(cols), file=out)

    if args.lines is not None:
        if args.paths:
            raise InputError("--lines reads one file (or stdin): give it as --lines FILE, without PATH")
        name = "stdin" if args.lines == "-" else args.lines
        lines = _line_documents(args.lines)
        for start in range(0, len(lines), 1000):
            emit([f"{name}:{start + i + 1}" for i in range(len(lines[start:start + 1000]))], lines[start:start + 1000])
        return 0
    for path in args.paths or ["-"]:
        if _as_rows(args, path):
            name = "stdin" if path == "-" else path
            data = (sys.stdin.buffer if hasattr(sys.stdin, "buffer") else sys.stdin).read() if path == "-" else None
            if data is None and not os.path.isfile(path):
                raise InputError(f"{path}: no such file")
            docs, _ = read_rows(name, data=data, max_bytes=max_bytes)
            for start in range(0, len(docs), 1000):
                chunk = docs[start:start + 1000]
                emit([f"{name}:{start + i + 1}" for i in range(len(chunk))], chunk)
            continue
        for sources, batch in _document_batches([path], max_bytes, err, failed):
            emit(sources, batch)
    return 1 if failed[0] else 0


def _inspect_multilabel(args, model, out):
    ml = _multilabel_model(model)
    names = [str(c) for c in ml.classes_]
    base = ml.estimator if ml.estimator is not None else None
    info = {
        "model": "MultiLabelNB",
        "estimator": type(base).__name__ if base is not None else "MultinomialNB",
        "labels": names,
        "thresholds": [float(t) for t in ml.thresholds_],
        "constant": [int(c) for c in ml.constant_],
        "vocabulary_size": len(model[0].vocabulary_),
    }
    if args.json:
        print(_dumps(info), file=out)
        return 0
    print(f"model: MultiLabelNB({info['estimator']}), one-vs-rest with a log-odds threshold per label", file=out)
    print(f"labels: {len(names)}", file=out)
    for name, t, c in zip(names, ml.thresholds_, ml.constant_):
        note = {1: " (every training document has it)", 0: " (no training document has it)"}.get(int(c), "")
        print(f"  {name}: threshold {t:.4f}{note}", file=out)
    print(f"vocabulary: {info['vocabulary_size']} terms", file=out)
    return 0


@contextmanager
def _scheduler(args):
    """A Dask client for ``--scheduler``, else None."""
    if not args.scheduler:
        yield None
        return
    from textnb.core.workers import connect

    with connect(args.scheduler) as client:
        yield client


def _model_name(model):
    """What the user trained, in words: 'LBR on mdl-discretised attributes', 'APNBC(TabularNB)'."""
    name = type(model).__name__
    if name == "Discretized":
        return f"{_model_name(model.estimator_)} on {model.numeric}-discretised attributes"
    inner = getattr(model, "estimator_", None)
    return f"{name}({_model_name(inner)})" if inner is not None else name


def _learned_counts(corpus, skipped):
    """Documents per class that training used (binary files left out)."""
    skipped = set(skipped)
    counts = {}
    for doc, label in zip(corpus.documents, corpus.labels):
        if not skipped or str(doc) not in skipped:
            counts[label] = counts.get(label, 0) + 1
    return dict(sorted(counts.items()))


def _train_table(args, table, start, out):
    _check_table_classes(table)
    model = _make_tabular(args, table)
    with _structure_errors(args):
        if table.sample_weight is None:
            model.fit(table.X, table.y)
        else:
            model.fit(table.X, table.y, sample_weight=table.sample_weight)
    model_path = args.output or _default_model_path(args.path)
    model.save(model_path)
    seconds = time.perf_counter() - start
    classes, counts = np.unique(table.y, return_counts=True)
    summary = {
        "source": table.source,
        "rows": int(len(table.y)),
        "per_class": {str(c): int(n) for c, n in zip(classes, counts)},
        "attributes": len(table.attributes),
        "nominal_attributes": int(table.nominal_mask.sum()),
        "model": model_path,
        "seconds": round(seconds, 3),
    }
    n_text = sum(a.is_text for a in table.attributes)
    if n_text:
        summary["text_attributes"] = n_text
    if args.json:
        print(_dumps(summary), file=out)
    else:
        per_class = ", ".join(f"{c} {n}" for c, n in summary["per_class"].items())
        print(f"read {summary['rows']} rows from {table.source}: {per_class}", file=out)
        text_note = f", {n_text} text" if n_text else ""
        print(f"attributes: {summary['attributes']} ({summary['nominal_attributes']} nominal{text_note})", file=out)
        print(f"model: {_model_name(model)} -> {model_path}", file=out)
        print(f"seconds: {seconds:.2f}", file=out)
    return 0


def _scores(model, X):
    """Log posteriors and per-class log-odds (which keep their resolution)."""
    from textnb.core.logspace import log_odds, logsumexp
    from textnb.text.scorer import TextScorer

    if isinstance(model, TextScorer):  # one pass over the documents for both
        jll = model.predict_joint_log_proba(X)
        return jll - logsumexp(jll, axis=1, keepdims=True), log_odds(jll)
    logp = model.predict_log_proba(X)
    odds = model.predict_log_odds(X) if hasattr(model, "predict_log_odds") else log_odds(logp)
    return logp, odds


def _refuse_nan(args, logp, odds):
    if np.isnan(logp).any() or np.isnan(odds).any():
        raise TextnbError(f"{args.model}: the model gives NaN scores (its parameters are inconsistent)")


def _print_predictions(sources, classes, scores, args, out, explanations=None):
    logp, odds = scores
    _refuse_nan(args, logp, odds)
    explanations = explanations if explanations is not None else [None] * len(sources)
    for src, lp, lo, why in zip(sources, logp, odds, explanations):
        label = classes[int(np.argmax(lp))]
        proba = np.exp(lp)
        if args.json:
            rec = {"source": src, "label": label}
            if args.proba:
                rec["proba"] = {c: float(p) for c, p in zip(classes, proba)}
                rec["log_odds"] = {c: float(v) for c, v in zip(classes, lo)}
            if why is not None:
                rec["explanation"] = why
            print(_dumps(rec), file=out)
        else:
            cols = [_cell(src), _cell(label)]
            if args.proba:
                cols.append(_format_proba([_cell(c) for c in classes], proba))
            if why is not None:
                cols.append(_cell(why))
            print("\t".join(cols), file=out)


def _explanations(args, model, X):
    """Per-row explanations for ``predict --explain``, or None."""
    if not getattr(args, "explain", False):
        return None
    explainer = model
    while explainer is not None and not hasattr(explainer, "predict_explain"):
        explainer = getattr(explainer, "estimator_", None)  # e.g. APNBC around a lazy model
    if explainer is not None and _has_rules(explainer):
        return explainer.predict_explain(X)[1]
    if _mixed_inside(model):
        from textnb.evaluation.explain import explain_table

        return [_attribute_explanation(info, args) for info in explain_table(model, X, top=args.top)]
    from textnb.text.classifier import TextClassifier

    if isinstance(model, TextClassifier):
        from textnb.evaluation.explain import explain

        return [_term_explanation(explain(model, doc, top=args.top or 10), args) for doc in X]
    raise InputError(f"{args.model}: --explain needs a document model, a table model with text attributes "
                     f"or a lazy table model (--lazy)")


def _mixed_inside(model):
    """Whether ``model`` is, or wraps, a MixedNB (a table with text attributes)."""
    while model is not None:
        if hasattr(model, "predict_attribute_terms"):
            return True
        model = getattr(model, "estimator_", None)
    return False


def _attribute_explanation(info, args):
    """The attributes (and terms of text attributes) that moved the decision, for one row."""
    if args.json:
        return info
    parts = []
    for a in info["attributes"]:
        if a["kind"] == "text":
            terms = ", ".join(f"{t['term']} {t['contribution']:+.2f}" for t in a["for"] + a["against"])
            parts.append(f"{a['name']} {a['contribution']:+.2f} [{terms}]")
        else:
            parts.append(f"{a['name']}={a['value']} {a['contribution']:+.2f}")
    return f"vs {info['runner_up']} by {info['margin']:.2f} (prior {info['prior']:+.2f}): " + "; ".join(parts)


def _term_explanation(info, args):
    """The terms that moved the decision most, for one document."""
    if args.json:
        return info
    terms = ", ".join(f"{t['term']} {t['contribution']:+.2f}" for t in info["for"] + info["against"])
    return f"vs {info['runner_up']} by {info['margin']:.2f} (prior {info['prior']:+.2f}): {terms}"


def _has_rules(model):
    inner = getattr(model, "model_", model)
    while inner is not None:
        if type(inner).__name__ in ("LBR", "LazyTextNB"):
            return True
        inner = getattr(inner, "estimator_", None)
    return False


def _attributes_of(model, path):
    """The training attributes of a table model, looking inside wrappers (APNBC, ...)."""
    inner = model
    while inner is not None:
        for name in ("attributes_", "attributes"):
            if getattr(inner, name, None) is not None:
                return getattr(inner, name)
        inner = getattr(inner, "estimator_", None)
    raise InputError(f"{path}: a {type(model).__name__} model does not record its table attributes")


def _predict_table(args, model, out, err=None):
    from textnb.io.tables import read_table

    if not args.paths or args.paths == ["-"]:
        raise InputError(f"{args.model}: a table model needs a table file to predict (ARFF or CSV)")
    classes = [str(c) for c in model.classes_]
    for path in args.paths:
        table = read_table(path, like=_attributes_of(model, args.model), drop=_ignored(args))  # DataWarnings: main
        sources = [f"{path}:{i + 1}" for i in range(table.X.shape[0])]
        _print_predictions(sources, classes, _scores(model, table.X), args, out,
                           _explanations(args, model, table.X))
    return 0


def _format_proba(classes, row):
    return "\t".join(f"{c}={p:.6g}" for c, p in zip(classes, row))


def cmd_predict(args, out, err):
    from textnb.io.corpus import MAX_DOCUMENT_BYTES
    from textnb.core.model_io import load
    from textnb.text.scorer import TextScorer, load_for_prediction

    # a linear text model predicts from its arrays (no scikit-learn); --explain and --lines need the estimator
    model = load(args.model) if args.explain or args.lines is not None else load_for_prediction(args.model)
    if _multilabel_model(model) is not None:
        if args.explain:
            raise InputError(f"{args.model}: --explain does not apply to a multi-label model")
        if args.rows and args.lines is not None:
            raise InputError("--lines and --rows do not go together: one document per line, or per TSV/CSV row")
        return _predict_multilabel(args, model, out, err)
    if args.lines is not None:
        if type(model).__name__ != "TextClassifier":
            raise InputError(f"{args.model}: --lines needs a text model; a table model reads a table file")
        if args.paths:
            raise InputError("--lines reads one file (or stdin): give it as --lines FILE, without PATH")
        if args.rows:
            raise InputError("--lines and --rows do not go together: one document per line, or per TSV/CSV row")
        return _predict_lines(args, model, out)
    if args.threshold is not None:
        raise InputError("--threshold applies to --lines")
    if not isinstance(model, TextScorer) and type(model).__name__ != "TextClassifier":
        return _predict_table(args, model, out, err)
    paths = args.paths or ["-"]
    classes = [str(c) for c in model.classes_]
    failed = [0]
    max_bytes = args.max_bytes or MAX_DOCUMENT_BYTES
    bar = Progress("classifying", stream=err, unit="doc")  # silent unless stderr is a terminal
    done = 0

    def tick():
        nonlocal done
        done += 1
        bar(done)

    try:
        # runs of consecutive PATHs: TSV/CSV files one by one, other files batched together
        for rows, run in itertools.groupby(paths, key=lambda path: _as_rows(args, path)):
            if rows:  # one document per row, as train reads it
                for path in run:
                    _predict_rows(args, model, path, classes, max_bytes, out, err)
                continue
            for sources, batch in _document_batches(list(run), max_bytes, err, failed, tick):
                _print_predictions(sources, classes, _scores(model, batch), args, out,
                                   _explanations(args, model, batch))
    finally:
        bar.close()
    return 1 if failed[0] else 0


_ROW_SUFFIXES = (".tsv", ".csv", ".tab")


def _as_rows(args, path):
    """Whether ``predict`` reads ``path`` as a TSV/CSV file of documents: with --rows, or
    a regular file named *.tsv, *.csv or *.tab (as train reads it)."""
    if getattr(args, "rows", False):
        return True
    return path != "-" and path.lower().endswith(_ROW_SUFFIXES) and os.path.isfile(path)


def _document_batches(paths, max_bytes, err, failed, tick=None, size=1000):
    """``(sources, texts)`` batches of at most ``size`` documents of predict PATHs
    (files, folders, ``-``; a batch spans paths); a binary file is reported on ``err``, counted in
    ``failed[0]`` and skipped; ``tick()`` after each document when given."""
    from textnb.io.corpus import iter_input_documents

    batch, sources = [], []
    for src, text in iter_input_documents(paths, max_bytes=max_bytes, stdin=sys.stdin):
        if tick is not None:
            tick()
        if text is None:
            print(f"textnb: error: {src}: binary file, skipped", file=err)
            failed[0] += 1
            continue
        batch.append(text)
        sources.append(src)
        if len(batch) >= size:
            yield sources, batch
            batch, sources = [], []
    if batch:
        yield sources, batch


def _predict_rows(args, model, path, classes, max_bytes, out, err):
    """Predictions for the rows of a TSV/CSV file (``path:ROW``, ROW counting data rows
    from 1), in file order; a label column gives the accuracy on stderr."""
    from textnb.io.corpus import read_rows

    name = "stdin" if path == "-" else path
    data = None
    if path == "-":
        data = (sys.stdin.buffer if hasattr(sys.stdin, "buffer") else sys.stdin).read()
    elif not os.path.isfile(path):
        raise InputError(f"{path}: no such file")
    documents, labels = read_rows(name, data=data, max_bytes=max_bytes)
    correct = 0
    for start in range(0, len(documents), 1000):
        chunk = documents[start:start + 1000]
        scores = _scores(model, chunk)
        sources = [f"{name}:{start + i + 1}" for i in range(len(chunk))]
        _print_predictions(sources, classes, scores, args, out, _explanations(args, model, chunk))
        if labels is not None:
            predicted = np.asarray(classes, dtype=object)[np.argmax(scores[0], axis=1)]
            correct += int(np.sum(predicted == np.asarray(labels[start:start + 1000], dtype=object)))
    if labels is not None:
        print(f"{name}: accuracy {correct / len(documents):.4f} ({correct} of {len(documents)} rows "
              f"with a label column)", file=err)


def _line_documents(source):
    """The lines of ``source`` (a path or ``-``), decoded as documents are, without
    their line ends."""
    from textnb.io.corpus import decode_bytes

    if source == "-":
        stream = sys.stdin.buffer if hasattr(sys.stdin, "buffer") else sys.stdin
        data = stream.read()
    else:
        if not os.path.isfile(source):
            raise InputError(f"{source}: no such file")
        with open(source, "rb") as f:
            data = f.read()
    text = data if isinstance(data, str) else decode_bytes(data)
    return text.splitlines()


def _predict_lines(args, model, out):
    """``predict --lines``: one prediction per input line, in order. With ``--top`` /
    ``--threshold``, the most probable labels with their probabilities (fastText's
    ``predict-prob``: a line whose labels all fall below the threshold gets none)."""
    name = "stdin" if args.lines == "-" else args.lines
    lines = _line_documents(args.lines)
    classes = [str(c) for c in model.classes_]
    ranked = args.top is not None or args.threshold is not None
    top = args.top or (len(classes) if args.threshold is not None else 1)
    threshold = args.threshold if args.threshold is not None else 0.0
    for start in range(0, len(lines), 1000):
        chunk = lines[start:start + 1000]
        sources = [f"{name}:{start + i + 1}" for i in range(len(chunk))]
        logp, odds = _scores(model, chunk)
        if not ranked:
            _print_predictions(sources, classes, (logp, odds), args, out)
            continue
        _refuse_nan(args, logp, odds)
        for src, lp, lo in zip(sources, logp, odds):
            order = np.argsort(-lp, kind="stable")[:top]
            best = [int(k) for k in order if np.exp(lp[k]) >= threshold]
            if args.json:
                rec = {"source": src, "labels": [
                    {"label": classes[k], "proba": float(np.exp(lp[k])), "log_odds": float(lo[k])} for k in best]}
                print(_dumps(rec), file=out)
            else:
                print("\t".join([_cell(src)] + [f"{_cell(classes[k])} {np.exp(lp[k]):.6f}" for k in best]), file=out)
    return 0


def _read_texts(corpus, max_bytes, labels=None):
    from textnb.io.corpus import to_text

    texts, kept, skipped = [], [], 0
    for doc, label in zip(corpus.documents, corpus.labels if labels is None else labels):
        t = to_text(doc, max_bytes)
        if t is None:
            skipped += 1
            continue
        texts.append(t)
        kept.append(label)
    return texts, (np.asarray(kept) if labels is None else kept), skipped


def cmd_evaluate(args, out, err):
    from textnb.io.corpus import MAX_DOCUMENT_BYTES
    from textnb.evaluation.evaluate import cross_validate, evaluate_split, vectorize_all

    start = time.perf_counter()
    if args.multilabel or args.labels:
        return _evaluate_multilabel(args, start, out)
    kind, data = _load_input(args, args.path)
    if kind == "table":
        return _evaluate_table(args, data, start, out)
    clf = _make_classifier(args)
    vectorizer, model = clf.vectorizer, clf.model
    corpus = data
    _check_classes(corpus)
    _warn_multilabel(corpus, err)
    max_bytes = args.max_bytes or MAX_DOCUMENT_BYTES
    test = _open(args, args.test) if args.test else (corpus.test if args.cv is None else None)
    texts, y, skipped = _read_texts(corpus, max_bytes)
    if skipped:
        kept, n = np.unique(y, return_counts=True)
        _check_binary_classes(corpus, dict(zip(kept.tolist(), n.tolist())))
    if test is not None:
        test_texts, y_test, skipped_test = _read_texts(test, max_bytes)
        X, _ = vectorize_all(texts + test_texts, vectorizer)
        n = len(texts)
        report = evaluate_split(X[:n], y, X[n:], y_test, model, vectorizer=vectorizer)
        report["protocol"] = "train/test"
        skipped += skipped_test
    else:
        X, _ = vectorize_all(texts, vectorizer)
        bar = Progress("folds")
        try:
            report = cross_validate(X, y, model, cv=args.cv or 10, repeat=args.repeat,
                                    seed=args.seed, vectorizer=vectorizer, progress=bar)
        finally:
            bar.close()
        report["protocol"] = f"{report['folds']}-fold cross-validation x {report['repeat']}"
    report["skipped_binary"] = skipped
    report["seconds"] = time.perf_counter() - start
    _print_report(report, args, out)
    return 0


def _evaluate_multilabel(args, start, out):
    """One-vs-rest naive Bayes with per-label thresholds, K-fold CV, micro / macro F1 and BEP."""
    from textnb.io.corpus import MAX_DOCUMENT_BYTES
    from textnb.evaluation.evaluate import vectorize_all
    from textnb.meta.multilabel import MultiLabelNB, cross_validate_multilabel, read_multilabel_corpus

    if args.test or args.plot or args.repeat != 1:
        raise InputError("multi-label evaluation takes --cv and --seed only (no --test, --plot, --repeat)")
    corpus = read_multilabel_corpus(args.path, label_file=args.labels)
    texts, labels, skipped = _read_texts(corpus, args.max_bytes or MAX_DOCUMENT_BYTES, labels=corpus.labels)
    clf = _make_classifier(args)
    X, _ = vectorize_all(texts, clf.vectorizer)
    report = cross_validate_multilabel(X, labels, MultiLabelNB(clf.model), cv=args.cv or 10, seed=args.seed)
    report.update(n=len(texts), skipped_binary=skipped, seconds=time.perf_counter() - start,
                  protocol=f"{report['folds']}-fold cross-validation, one-vs-rest")
    if args.json:
        print(_dumps(report), file=out)
        return 0
    print(f"{report['protocol']} on {report['n']} documents ({report['seconds']:.2f} s)", file=out)
    for key in ("micro_f1", "macro_f1", "micro_bep", "macro_bep", "subset_accuracy", "hamming_loss"):
        if key in report:
            print(f"{key:<16}{report[key]:.4f}", file=out)
    width = max(8, max(len(k) for k in report.get("per_label", {"x": 0})))
    print(f"\n{'label':<{width}}  precision  recall     f1     bep  support", file=out)
    for name, pl in report.get("per_label", {}).items():
        print(f"{name:<{width}}  {pl['precision']:9.4f}  {pl['recall']:6.4f}  {pl['f1']:5.4f}  "
              f"{_bep(pl):>6}  {pl['support']:7d}", file=out)
    return 0


def _bep(per_label):
    bep = per_label.get("bep")
    return "-" if bep is None or bep != bep else f"{bep:6.4f}"


def _evaluate_table(args, table, start, out):
    from textnb.evaluation.evaluate import cross_validate, evaluate_split
    from textnb.io.tables import read_table

    _check_table_classes(table)
    model = _make_tabular(args, table)
    if args.test:
        test = read_table(args.test, like=table.attributes, drop=_ignored(args))
        if test.y is None or any(v is None for v in test.y):
            raise InputError(f"{args.test}: every test row needs a known class")
        with _structure_errors(args):
            report = evaluate_split(table.X, table.y, test.X, np.asarray(test.y, dtype=table.y.dtype), model)
        report["protocol"] = "train/test"
    else:
        bar = Progress("folds")
        try:
            with _structure_errors(args):
                report = cross_validate(table.X, table.y, model, cv=args.cv or 10, repeat=args.repeat,
                                        seed=args.seed, progress=bar)
        finally:
            bar.close()
        report["protocol"] = f"{report['folds']}-fold cross-validation x {report['repeat']}"
    report["seconds"] = time.perf_counter() - start
    _print_report(report, args, out)
    return 0


def _print_report(report, args, out):
    if args.plot:
        from textnb.evaluation.plots import plot_confusion_matrix

        plot_confusion_matrix(report["confusion_matrix"], report["classes"], args.plot)
    if args.json:
        print(_dumps(report), file=out)
        return
    print(f"{report['protocol']} on {report['n']} objects ({report['seconds']:.2f} s)", file=out)
    per_repeat = report.get("accuracy_per_repeat") or []
    if len(per_repeat) > 1:  # mean over the repeats and their spread
        print(f"accuracy  {np.mean(per_repeat):.4f} (std {np.std(per_repeat, ddof=1):.4f} over "
              f"{len(per_repeat)} repeats)", file=out)
        if getattr(args, "verbose", False):
            for r, acc in enumerate(per_repeat):
                print(f"  repeat {r + 1} (seed {report.get('seed', 0) + r})  {acc:.4f}", file=out)
    else:
        print(f"accuracy  {report['accuracy']:.4f}", file=out)
    print(f"macro-F1  {report['macro_f1']:.4f}", file=out)
    if "log_loss" in report:
        print(f"log-loss  {report['log_loss']:.4f}", file=out)
    width = max(8, max(len(c) for c in report["classes"]))
    print(f"\n{'class':<{width}}  precision  recall     f1  support", file=out)
    for c in report["classes"]:
        pc = report["per_class"][c]
        print(f"{c:<{width}}  {pc['precision']:9.4f}  {pc['recall']:6.4f}  {pc['f1']:5.4f}  {pc['support']:7d}",
              file=out)
    print("\nconfusion matrix (rows: true, columns: predicted)", file=out)
    labels = [str(i) for i in range(len(report["classes"]))]
    cell = max(5, max(len(str(v)) for row in report["confusion_matrix"] for v in row) + 1)
    print(" " * (width + 2) + "".join(f"{lab:>{cell}}" for lab in labels), file=out)
    for i, (c, row) in enumerate(zip(report["classes"], report["confusion_matrix"])):
        print(f"{c:<{width}}{i:>2}" + "".join(f"{v:>{cell}}" for v in row), file=out)
    if args.plot:
        print(f"\nconfusion matrix plot: {args.plot}", file=out)


def cmd_inspect(args, out, err):
    from textnb.core.model_io import load
    from textnb.text.classifier import TextClassifier
    from textnb.evaluation.explain import describe_text_classifier

    model = load(args.model)
    if _multilabel_model(model) is not None:
        return _inspect_multilabel(args, model, out)
    if not isinstance(model, TextClassifier):
        return _inspect_table(args, model, out)
    info = describe_text_classifier(model, top=args.top)
    weights = _weights_info(model.model_)
    if weights:
        info["apnbc_weights"] = weights
    if args.json:
        print(_dumps(info), file=out)
        return 0
    print(f"model: {info['model']} {info['params']}", file=out)
    if "event_model" in info:
        print(f"event model: {info['event_model']} (alpha {info['alpha']:g}; "
              f"{'chosen by cross-validation' if info['params'].get('event_model') == 'auto' else 'given'})",
              file=out)
    print(f"classes: {len(info['classes'])}", file=out)
    for c, n in zip(info["classes"], info["class_count"]):
        print(f"  {c}: {n:g} documents", file=out)
    print(f"vocabulary: {info['vocabulary_size']} terms", file=out)
    print(f"most informative terms (log-odds against the other classes, top {args.top}):", file=out)
    for c, terms in info["informative_terms"].items():
        print(f"  {c}: " + ", ".join(f"{t} ({s:.2f})" for t, s in terms), file=out)
    _print_weights(weights, out)
    return 0


def _weights_info(model):
    """APNBC's learned class weights, if the model has them."""
    if not hasattr(model, "class_log_weight_"):
        return None
    return {str(c): {"log_weight": float(w), "weight": float(np.exp(w)) if w < 700 else float("inf")}
            for c, w in zip(model.classes_, model.class_log_weight_)}


def _print_weights(weights, out):
    if weights:
        print("APNBC class weights (probability scale; log):", file=out)
        for c, w in weights.items():
            print(f"  {c}: {w['weight']:.6g} ({w['log_weight']:.4f})", file=out)


def _inspect_network(args, model, out):
    if args.plot:
        model.plot_structure(args.plot)
    if args.json:
        print(_dumps({"model": type(model).__name__, "classes": [str(c) for c in model.classes_],
                          "structure": {k: list(v) for k, v in model.structure_.items()},
                          "plot": args.plot}), file=out)
        return 0
    print(f"model: {type(model).__name__}", file=out)
    print(model.structure_text(), file=out)
    if args.plot:
        print(f"structure plot: {args.plot}", file=out)
    return 0


def _inspect_table(args, model, out):
    if hasattr(model, "structure_"):
        return _inspect_network(args, model, out)
    if args.plot:
        raise InputError(f"{args.model}: --plot draws the structure of a tan or bn model")
    weights = _weights_info(model)
    inner = getattr(model, "estimator_", model)
    if not hasattr(inner, "describe"):
        raise InputError(f"{args.model}: cannot inspect a {type(model).__name__} model")
    if hasattr(inner, "text_models_"):
        from textnb.evaluation.explain import describe_mixed

        info = describe_mixed(inner, top=args.top)
    else:
        info = inner.describe()
    if weights:
        info["apnbc_weights"] = weights
    if args.json:
        print(_dumps(info), file=out)
        return 0
    print(f"model: {info.get('model', type(model).__name__)}", file=out)
    classes = info["classes"]
    print("classes: " + ", ".join(f"{c} ({n:g})" for c, n in zip(classes, info["class_count"])), file=out)
    for a in info.get("attributes", []):
        if a.get("model") == "gaussian":
            detail = "; ".join(f"{c}: mean {a['mean'][c]:.4g} sd {a['std'][c]:.4g}" for c in classes)
        elif a.get("kind") == "text":
            detail = f"{a['vocabulary_size']} terms; most informative (log-odds, top {args.top}): " + "; ".join(
                f"{c}: " + ", ".join(f"{t} ({v:.2f})" for t, v in a["informative_terms"][c]) for c in classes)
        elif "probabilities" in a:
            detail = "; ".join(
                f"{c}: " + " ".join(f"{v}={p:.3g}" for v, p in zip(a["values"], a["probabilities"][c]))
                for c in classes)
        else:
            detail = a.get("model", "")
        print(f"  {a['name']} [{a['kind']}, {a.get('model', '')}] {detail}", file=out)
    _print_weights(weights, out)
    return 0


def cmd_merge(args, out, err):
    from textnb.core.model_io import load

    models = [load(p) for p in args.models]
    merged = models[0]
    for path, other in zip(args.models[1:], models[1:]):
        try:
            merged.merge(other)
        except (ValueError, AttributeError) as exc:
            raise InputError(f"{path}: cannot merge into {args.models[0]}: {exc}") from None
    merged.save(args.output)
    print(f"merged {len(models)} models -> {args.output}", file=out)
    return 0


def _http_address(text):
    """``PORT`` (on 127.0.0.1) or ``HOST:PORT`` for ``serve --http``."""
    host, sep, port = text.rpartition(":")
    host = host.strip("[]") if sep else "127.0.0.1"
    try:
        number = int(port)
    except ValueError:
        number = -1
    if not host or not 0 <= number <= 65535:
        raise argparse.ArgumentTypeError(f"expected PORT or HOST:PORT, got {text!r}")
    return host, number


_http_address.range = "port 0 to 65535"


def _socket_mode(text):
    try:
        mode = int(text, 8)
    except ValueError:
        mode = -1
    if not 0 <= mode <= 0o777:
        raise argparse.ArgumentTypeError(f"expected an octal mode such as 600 or 660, got {text!r}")
    return mode


_socket_mode.range = "000 to 777"


_request_size = size  # 1 byte to 4G, as --max-bytes
_max_clients = bounded(int, low=1, high=1024)
_timeout = bounded(float, low=0, high=3600, low_open=True)


def cmd_serve(args, out, err):
    from textnb.apps.serve import Server, run

    def log(message):
        print(f"textnb serve: {message}", file=err, flush=True)

    def ready(server):
        where = []
        if server.socket_path is not None:
            where.append(f"unix:{server.socket_path}")
        if server.http_address is not None:
            host, port = server.http_address
            where.append(f"http://{host}:{port}")
        log(f"serving {args.model} on {', '.join(where)} (pid {os.getpid()})")

    server = Server(args.model, socket_path=args.socket, http=args.http, socket_mode=args.socket_mode,
                    max_request=args.max_request, max_clients=args.max_clients, timeout=args.timeout, log=log)
    signum = run(server, ready=ready)
    log(f"stopped (signal {signum})")
    return 130 if signum == 2 else 0


# --------------------------------------------------------------------------- parser
class _Parser(argparse.ArgumentParser):
    """Usage errors in two lines: the error of the (sub)command that was given, with a
    "did you mean" for a mistyped option, and where the help is (not the whole usage)."""

    def error(self, message):
        if message.startswith("unrecognized arguments:"):
            options = [o for a in self._actions for o in a.option_strings]
            hints = []
            for word in message.split(":", 1)[1].split():
                if word.startswith("-"):
                    close = difflib.get_close_matches(word.split("=", 1)[0], options, n=1, cutoff=0.6)
                    if close:
                        hints.append(f"{word} -> {close[0]}")
            if hints:
                message += f" (did you mean: {', '.join(hints)}?)"
        bad = re.match(r"argument (\S+): invalid choice: '([^']*)' \(choose from (.*)\)$", message)
        if bad:
            choices = re.findall(r"'([^']*)'", bad.group(3))
            close = difflib.get_close_matches(bad.group(2), choices, n=1, cutoff=0.5)
            if close:
                message += f"; did you mean {close[0]!r}?"
        self.exit(2, f"{self.prog}: error: {message}\n(see '{self.prog} --help')\n")


def _add_multilabel_options(p):
    p.add_argument("--multilabel", action="store_true",
                   help="multi-label corpus: one folder per label, a document in each of its labels' folders "
                        "(the same relative path in several folders is one document with several labels); "
                        "train saves a one-vs-rest model whose predict prints every label over its threshold")
    p.add_argument("--labels", metavar="FILE",
                   help="multi-label corpus: PATH is a folder of documents and FILE says their labels, one "
                        "line per document 'docid<TAB>label1,label2' (docid: the path under PATH, with or "
                        "without its extension; no labels after the TAB: a document with none; blank lines "
                        "and '#' lines skipped), as a MEKA/Mulan label table or fastText's several "
                        "__label__ tags per line")


def build_parser():
    parser = _Parser(
        prog="textnb", description="Naive Bayes for text and tabular data.")
    parser.add_argument("--version", action="version", version=f"textnb {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("train", help="train a model on a corpus and save it",
                       description="Train on a corpus folder (corpus/<label>/<files>, or its train/ part), "
                                   "or a TSV/CSV file with label and text columns.")
    p.add_argument("path", metavar="PATH")
    p.add_argument("-o", "--output", metavar="MODEL", help="model file to write (default: <PATH name>.tnb)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--scheduler", metavar="ADDRESS", type=scheduler,
                   help="train on a Dask cluster: a scheduler address (tcp://host:8786), or local:N "
                        f"to start N local worker processes ({scheduler.range}); the model is the same as without")
    _add_multilabel_options(p)
    _add_model_options(p)
    _add_corpus_options(p)
    p.set_defaults(handler=cmd_train)

    p = sub.add_parser("predict", help="classify documents with a saved model",
                       description="Classify files, folders (recursively) or standard input (-).")
    p.add_argument("model", metavar="MODEL")
    p.add_argument("paths", metavar="PATH", nargs="*", help="files, folders or - (default: stdin)")
    p.add_argument("--proba", action="store_true", help="also print the class probabilities (and log-odds with --json)")
    p.add_argument("--json", action="store_true", help="one JSON object per document")
    p.add_argument("--max-bytes", type=_max_bytes,
                   help=f"read at most this many bytes of a document ({_max_bytes.range} bytes)")
    p.add_argument("--explain", action="store_true",
                   help="also print why: the terms that moved the decision most, or the rule of a lazy model")
    p.add_argument("--top", type=_top, metavar="N",
                   help=f"terms per explanation (default 10); with --lines: the N most probable labels ({_top.range})")
    p.add_argument("--lines", nargs="?", const="-", metavar="FILE|-",
                   help="one document per line of FILE (default: stdin), output in input order, "
                        "as fastText's predict")
    p.add_argument("--threshold", type=_probability, metavar="P",
                   help=f"with --lines: only labels of probability >= P (as fastText's predict-prob; {_probability.range})")
    p.add_argument("--rows", action="store_true",
                   help="read each PATH (or stdin) as a TSV/CSV file, one document per row as train reads it "
                        "(automatic for *.tsv, *.csv, *.tab files); output PATH:ROW in row order, and the "
                        "accuracy on stderr when the file has a label column")
    _add_ignore(p)
    p.set_defaults(handler=cmd_predict)

    p = sub.add_parser("evaluate", help="cross-validate or test a model",
                       description="Stratified, seeded K-fold cross-validation, or train/test when the corpus "
                                   "has train/ and test/ parts or --test is given.")
    p.add_argument("path", metavar="PATH")
    p.add_argument("--cv", type=_folds, metavar="K", help=f"K-fold cross-validation (default 10; {_folds.range}; "
                   "the default for a corpus with train/ and test/ parts is the split)")
    p.add_argument("--repeat", type=_repeats, default=1, metavar="R",
                   help=f"repeat the CV R times (seeds S, S+1, ...; {_repeats.range}); prints the mean accuracy and its std")
    p.add_argument("-v", "--verbose", action="store_true", help="with --repeat: the accuracy of each repeat too")
    p.add_argument("--seed", type=_seed, default=0, metavar="S", help=f"seed of the folds (default 0; {_seed.range})")
    p.add_argument("--test", metavar="PATH", help="a separate test corpus")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--plot", metavar="FILE.png", help="draw the confusion matrix")
    _add_multilabel_options(p)
    _add_model_options(p)
    _add_corpus_options(p)
    p.set_defaults(handler=cmd_evaluate)

    p = sub.add_parser("inspect", help="describe a saved model")
    p.add_argument("model", metavar="MODEL")
    p.add_argument("--top", type=_top, default=10, metavar="N", help=f"informative terms per class ({_top.range})")
    p.add_argument("--json", action="store_true")
    p.add_argument("--plot", metavar="FILE.png", help="draw a TAN tree / Bayesian network as a PNG")
    p.set_defaults(handler=cmd_inspect)

    p = sub.add_parser("merge", help="add up models trained on parts of a corpus")
    p.add_argument("models", metavar="MODEL", nargs="+")
    p.add_argument("-o", "--output", metavar="MODEL", required=True)
    p.set_defaults(handler=cmd_merge)

    p = sub.add_parser("serve", help="load a model once and answer classification requests",
                       description="Serve a text model until SIGTERM: spam verdicts for `spamfilter --socket` "
                                   "on a Unix socket, POST /classify with JSON {\"texts\": [...]} over HTTP "
                                   "(see textnb.apps.serve). The model is reloaded when its file is replaced.")
    p.add_argument("model", metavar="MODEL")
    p.add_argument("--socket", metavar="PATH", help="Unix socket to listen on (created mode 0600)")
    p.add_argument("--socket-mode", type=_socket_mode, default=0o600, metavar="OCTAL",
                   help=f"permissions of the socket (default 600; 660 lets the group connect; {_socket_mode.range})")
    p.add_argument("--http", type=_http_address, metavar="[HOST:]PORT",
                   help=f"listen for HTTP on PORT of 127.0.0.1, or of HOST (0 = any free port, printed; {_http_address.range})")
    p.add_argument("--max-request", type=_request_size, default=16 * 1024 * 1024, metavar="SIZE",
                   help=f"largest request body accepted (default 16M; {_request_size.range})")
    p.add_argument("--max-clients", type=_max_clients, default=32, metavar="N",
                   help=f"connections served at once (default 32; more wait; {_max_clients.range})")
    p.add_argument("--timeout", type=_timeout, default=30.0,
                   metavar="SECONDS", help=f"drop a client silent for this long (default 30; {_timeout.range})")
    p.set_defaults(handler=cmd_serve)
    return parser


_tolerant = tolerant  # (textnb.cli.output)


def _subparser(parser, command):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices.get(command)
    return None


@contextmanager
def _data_warnings(err):
    """The library's DataWarnings (input used, but probably not as meant) as one line
    each, ``textnb: warning: ...``; other warnings as Python shows them."""
    import warnings

    from textnb.core.errors import DataWarning

    with warnings.catch_warnings():
        warnings.simplefilter("always", DataWarning)
        shown = warnings.showwarning

        def show(message, category, filename, lineno, file=None, line=None):
            if issubclass(category, DataWarning):
                print(f"textnb: warning: {message}", file=err)
            else:
                shown(message, category, filename, lineno, file, line)

        warnings.showwarning = show
        yield


def main(argv=None, *, stdout=None, stderr=None):
    """Run the command line; returns the exit status."""
    from textnb.core.workers import keep_freed_memory

    keep_freed_memory()  # this process is ours: reuse freed memory (see its docstring)
    out = stdout if stdout is not None else _tolerant(sys.stdout, "surrogateescape")
    err = stderr if stderr is not None else _tolerant(sys.stderr, "backslashreplace")
    parser = build_parser()
    try:
        args, extra = parser.parse_known_args(argv)
        if extra and isinstance(getattr(args, "paths", None), list):
            # PATHs after an option (`predict MODEL --rows a.tsv`): argparse ends a "*"
            # positional at the first option; the leftover non-options are more PATHs
            args.paths += [e for e in extra if not e.startswith("-") or e == "-"]
            extra = [e for e in extra if e.startswith("-") and e != "-"]
        if extra:  # reported by the subcommand, which knows its own options
            sub = _subparser(parser, getattr(args, "command", None)) or parser
            sub.error(f"unrecognized arguments: {' '.join(extra)}")
    except SystemExit as exc:  # argparse: --help (0) or bad usage (2)
        return int(exc.code or 0)
    try:
        with _data_warnings(err):
            return args.handler(args, out, err)
    except TextnbError as exc:
        print(f"textnb: error: {exc}", file=err)
        return 1
    except (ValueError, TypeError) as exc:
        print(f"textnb: error: {exc}", file=err)
        return 1
    except BrokenPipeError:
        # the reader went away (e.g. `| head`): stop quietly, like other Unix tools
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 0
    except OSError as exc:
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        print(f"textnb: error: {where}{exc.strerror or exc}", file=err)
        return 1
    except KeyboardInterrupt:
        print("textnb: interrupted", file=err)
        return 130
    except MemoryError:
        print("textnb: error: out of memory (try a smaller --ngram, --bins, --max-features or --max-bytes)",
              file=err)
        return 1
    except OverflowError as exc:
        print(f"textnb: error: a number is too large ({exc})", file=err)
        return 1
    except RecursionError:
        print("textnb: error: input nested too deeply", file=err)
        return 1
