"""One place that builds every model from its options: the model registry.

The command line, the filters and the experiment scripts describe the model they want
with a :class:`ModelOptions` (the options of ``textnb train`` / ``evaluate``, by name) and
build it here, so a model's name, its input (documents or tables) and what it can do are
written once. Adding a table model is its module plus one :data:`MODELS` entry and, when
it takes options of its own, one branch in :func:`make_table_model`.

Nothing here imports scikit-learn or a model module at import time: the builders import
what the chosen model needs.
"""

import numbers
import shlex
from dataclasses import dataclass, fields, replace
from typing import Optional

from textnb.core.errors import InputError, counted, input_name, short_repr
from textnb.core.registry import kind_of

__all__ = ["ModelOptions", "ModelSpec", "MODELS", "model_names", "document_kind", "streaming_model", "floor_alpha",
           "lazy_text_model", "make_text_classifier", "make_table_model", "model_name", "modules_for",
           "check_options_fit", "check_adjust_options", "PARAMETER_FLAGS", "SWITCHES", "option_spelling",
           "count_model_option"]


@dataclass(frozen=True)
class ModelSpec:
    """What a registered model is: its input and capabilities (for help texts, checks
    and the registry-driven tests)."""

    name: str
    input: str  # "documents" or "tables"
    summary: str
    streams: bool = False  # fitted from per-class sums without holding the documents' rows
    merge: bool = False
    partial_fit: bool = False
    explain: bool = False
    module: str = ""  # the module that defines it, for the tables (imported before a run's clock)
    #: a table model's options (:data:`TABLE_MODEL_FLAGS` fields) it takes: any other is refused,
    #: as it would be left unused (:func:`_refuse_unused_options`)
    takes: tuple = ()


#: the folds ``--model auto`` (SmoothingCV) scores its smoothing values on: 10, as the README
#: promises and docs/text_accuracy.md measured (SmoothingCV(cv=10), its "proposed default"),
#: while ``SmoothingCV()`` keeps 5, the ``cv`` default of every textnb estimator and of
#: scikit-learn's ``check_cv`` (both documented: the --help of --model auto and SmoothingCV's
#: docstring say so)
_AUTO_FOLDS = 10


MODELS = {spec.name: spec for spec in (
    ModelSpec("discriminative", "documents",
              "naive Bayes with discriminative frequency estimates (Su et al. 2008), complement or Bernoulli "
              "event model chosen by cross-validation (the default for documents)", streams=True, merge=True,
              partial_fit=True, explain=True),
    ModelSpec("multinomial", "documents", "multinomial naive Bayes", streams=True, merge=True, partial_fit=True,
              explain=True),
    ModelSpec("bernoulli", "documents", "Bernoulli naive Bayes", streams=True, merge=True, partial_fit=True,
              explain=True),
    ModelSpec("complement", "documents", "complement naive Bayes (Rennie et al. 2003)", streams=True, merge=True,
              partial_fit=True, explain=True),
    ModelSpec("auto", "documents", f"term weighting and m-estimate smoothing chosen by {_AUTO_FOLDS}-fold "
                                   f"cross-validation (SmoothingCV(cv={_AUTO_FOLDS}); the library's SmoothingCV() default is 5)"),
    ModelSpec("nb", "tables", "naive Bayes over nominal, numeric, missing, uncertain and text attributes "
                              "(the default for tables)", merge=True, partial_fit=True, explain=True,
              module="textnb.naive_bayes.tabular_kernel",
              takes=("alpha", "m_estimate", "uniform_prior", "nominal", "numeric", "bins", "interval_fit")),
    ModelSpec("tan", "tables", "tree-augmented naive Bayes (Friedman et al. 1997)",
              module="textnb.semi_naive.bayesnet_kernel", takes=("alpha", "m_estimate", "numeric", "missing")),
    ModelSpec("bn", "tables", "a Bayesian network with a given structure", module="textnb.semi_naive.bayesnet_kernel",
              takes=("alpha", "m_estimate", "numeric", "missing", "structure")),
    ModelSpec("aode", "tables", "averaged one-dependence estimators (Webb et al. 2005)",
              module="textnb.semi_naive.aode_kernel", takes=("m_estimate", "numeric")),
)}

#: what ``--lazy lbr|hlbr`` on a table takes (LBR on discretised attributes: its local naive
#: Bayes's additive smoothing, the discretisation): as :attr:`ModelSpec.takes`
LAZY_TABLE_TAKES = ("alpha", "numeric", "bins")

#: the options of the table models (command-line flag, ModelOptions field), checked against
#: :attr:`ModelSpec.takes` (tan, bn and aode discretise numbers with MDL, lazy rules too
#: by default; only nb takes a uniform prior and chooses its nominal estimator)
TABLE_MODEL_FLAGS = (("--alpha", "alpha"), ("--m", "m_estimate"), ("--uniform-prior", "uniform_prior"),
                     ("--nominal", "nominal"), ("--numeric", "numeric"), ("--bins", "bins"),
                     ("--interval-fit", "interval_fit"), ("--missing", "missing"), ("--structure", "structure"))

#: the smoothing option each of nb's nominal estimators takes (``eq4`` and ``laplace`` fix theirs)
NOMINAL_TAKES = {"additive": ("alpha",), "laplace": (), "m-estimate": ("m_estimate",), "eq4": ()}

#: the numeric modes that cut numbers into ``--bins`` bins
BINNED = ("equal-frequency", "equal-width")


def model_names(input=None):
    """The registered model names, all or those for ``input`` ("documents" / "tables")."""
    return [name for name, spec in MODELS.items() if input is None or spec.input == input]


# the streamed count models of text.training, by the estimator class they save as
_STREAMING = {"multinomial": "MultinomialNB", "bernoulli": "BernoulliNB", "complement": "ComplementNB",
              "discriminative": "DiscriminativeNB"}


def count_model_option(kind):
    """How ``textnb train`` chooses the count model of the estimator class ``kind``:
    ``"--model multinomial"`` for ``MultinomialNB``, ``"the default model (DiscriminativeNB)"``;
    ``kind`` itself for another (a message naming what two parts were trained with)."""
    name = next((n for n, k in _STREAMING.items() if k == kind), None)
    if name is None:
        return kind
    return f"the default model ({kind})" if name == "discriminative" else f"--model {name}"


@dataclass(frozen=True)
class ModelOptions:
    """The options that choose and configure a model (``None``: the library's default).

    The names are the command line's (``--m`` is ``m_estimate``, ``--class`` is
    ``class_name``); :meth:`from_namespace` reads them from parsed arguments.
    """

    model: Optional[str] = None
    alpha: Optional[float] = None
    m_estimate: Optional[float] = None
    uniform_prior: bool = False
    norm: bool = False
    weighting: bool = False
    select: Optional[str] = None
    calibrate: Optional[str] = None
    structure: Optional[str] = None
    lazy: Optional[str] = None
    adjust: bool = False
    significance: Optional[float] = None
    adjust_on: Optional[str] = None
    seed: Optional[int] = None
    numeric: Optional[str] = None
    bins: Optional[int] = None
    nominal: Optional[str] = None
    interval_fit: Optional[str] = None
    missing: Optional[str] = None
    # tokenizer
    no_lowercase: bool = False
    token_pattern: Optional[str] = None
    stop_words: Optional[str] = None
    stem: Optional[str] = None
    ngram: Optional[int] = None
    min_df: Optional[float] = None
    max_df: Optional[float] = None
    max_features: Optional[int] = None
    binary: bool = False
    jobs: int = -1
    max_bytes: Optional[int] = None

    @classmethod
    def from_namespace(cls, namespace):
        """The options present on an ``argparse.Namespace`` (absent ones keep their default)."""
        values = {}
        for f in fields(cls):
            if hasattr(namespace, f.name):
                value = getattr(namespace, f.name)
                if value is not None or f.default is None:
                    values[f.name] = value
        return cls(**values)


def _given_options(opts):
    """:class:`textnb.io.inputs.InputOptions` holding the options of :data:`textnb.io.inputs.OPTION_USES`
    that ``opts`` (a :class:`ModelOptions`) gives: what the one rule for unused options reads."""
    from textnb.io.inputs import OPTION_USES, InputOptions

    return InputOptions(given=tuple(flag for flag, (name, _) in OPTION_USES.items()
                                    if getattr(opts, name, None) not in (None, False)))


def _refuse_document_model_options(opts, source):
    """``--norm``, ``--weighting``, ``--select`` with any table (a table's text attributes are
    counted by multinomial parts, which take the tokenizer options only): the one rule's
    refusal (:func:`textnb.io.inputs.refuse_unread_options`, ``"mixed table"``), for the
    library's callers."""
    from textnb.io.inputs import refuse_unread_options

    refuse_unread_options(source, _given_options(opts), "mixed table")


def check_options_fit(opts, kind, data):
    """Raise InputError when an option given does not fit what the input was read as
    (``kind``, ``data``: :func:`textnb.io.inputs.load_input`'s): a table option for a text
    corpus, a document option for a table without text attributes, an option of the
    document models (``--norm``, ``--weighting``, ``--select``) for any table. (Such
    options were left unused without a word.) The one rule,
    :func:`textnb.io.inputs.refuse_unread_options` (which ``load_input`` applies itself),
    for options the library's callers hold as a :class:`ModelOptions`."""
    from textnb.io.inputs import refuse_unread_options, table_read_as

    if kind not in ("text", "table"):
        return
    refuse_unread_options(data.source, _given_options(opts), "text" if kind == "text" else table_read_as(data))


def _given(**kwargs):
    """Only the options the user gave: the estimators keep their defaults (one place)."""
    return {k: v for k, v in kwargs.items() if v is not None}


def document_kind(opts):
    """The document model the options ask for: ``model``, else ``discriminative``, or
    ``multinomial`` when an option only a count model takes is given."""
    if opts.model:
        return opts.model
    count_only = opts.m_estimate is not None or opts.uniform_prior or opts.norm or opts.weighting or opts.lazy
    return "multinomial" if count_only else "discriminative"


def _stop_words(value):
    if value is None or value == "english":
        return value
    from textnb.io.corpus import read_word_list

    words = read_word_list(value, what="stop-word file")
    if not words:  # an empty list would drop nothing: the option silently ignored
        raise InputError(f"{input_name(value)}: stop-word file has no word (one per line)")
    return words


#: the library parameter each option of ``textnb train`` sets (:func:`vectorizer_params`,
#: :func:`_count_params` and the table models' options), for messages that name a parameter
#: (a merge's refusal) to say the option
PARAMETER_FLAGS = {"ngram_range": "--ngram", "stop_words": "--stop-words", "min_df": "--min-df",
                   "max_df": "--max-df", "max_features": "--max-features", "token_pattern": "--token-pattern",
                   "stemmer": "--stem", "lowercase": "--no-lowercase", "binary": "--binary", "alpha": "--alpha",
                   "m": "--m", "fit_prior": "--uniform-prior", "class_prior": "--uniform-prior", "norm": "--norm",
                   "missing": "--missing", "interval_fit": "--interval-fit", "label_prefix": "--label-prefix",
                   "max_bytes": "--max-bytes"}
#: the options among them that take no value (given or not)
SWITCHES = frozenset({"--no-lowercase", "--binary", "--uniform-prior", "--norm"})
#: the value of each switch's parameter that the switch gives
_SWITCH_VALUES = {"lowercase": False, "binary": True, "fit_prior": False, "norm": True}
#: parameters whose None is the option not given
_NONE_IS_ABSENT = frozenset({"stop_words", "stemmer", "max_features", "m", "token_pattern"})


def option_spelling(setting, value):
    """How ``textnb train`` spells the library parameter ``setting`` at ``value``
    (:data:`PARAMETER_FLAGS`): ``"--ngram 2"`` for ``ngram_range`` (1, 2), ``"--binary"``
    or ``"no --binary"``, ``"no --stop-words"``, ``"a --stop-words file of 3 words"``;
    None when no option gives that value (a model made by the library: ``ngram_range``
    (2, 3), a class prior given as numbers). For messages that name a parameter (a merge's
    refusal) to say it in the command line's words too."""
    flag = PARAMETER_FLAGS.get(setting)
    if flag is None:
        return None
    if flag in SWITCHES:
        given = _SWITCH_VALUES.get(setting)
        if given is not None and any(value is v or type(value).__name__ == "bool_" for v in (True, False)):
            return flag if bool(value) == given else f"no {flag}"
        return None
    if value is None:
        return f"no {flag}" if setting in _NONE_IS_ABSENT else None
    if setting == "ngram_range":
        if isinstance(value, (tuple, list)) and len(value) == 2 and value[0] == 1:
            return f"{flag} {value[1]}"
        return None
    if setting == "stop_words" and not isinstance(value, str):
        return f"a {flag} file of {counted(len(value), 'word')}"
    if setting == "token_pattern":  # as a shell takes it (a repr doubles every backslash: '\\S+' is not \S+)
        return f"{flag} {shlex.quote(value)}" if len(value) <= 200 else f"{flag} {short_repr(value)}"
    if isinstance(value, str) or (isinstance(value, numbers.Real) and not isinstance(value, bool)):
        # a number as the error line's start gives it (repr: the shortest that reads back as the same float;
        # found by a user trial: ':g' printed 0.5000001 and 0.5 both as --alpha 0.5)
        return f"{flag} {float(value)!r}" if isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral) \
            else f"{flag} {value}"
    return None


def vectorizer_params(opts):
    """The :class:`~textnb.text.vectorizer.Vectorizer` parameters the options give.

    Raises InputError for ``--no-lowercase`` with ``--stem``: the stemmers lowercase every
    word (as NLTK's do), so the terms would not keep their case.
    """
    if opts.no_lowercase and opts.stem:
        raise InputError("--no-lowercase does not go with --stem: the stemmers lowercase every word "
                         "(terms cannot keep their case)")
    return _given(
        lowercase=False if opts.no_lowercase else None,
        token_pattern=opts.token_pattern,
        stop_words=_stop_words(opts.stop_words),
        stemmer=opts.stem,
        ngram_range=(1, opts.ngram) if opts.ngram else None,
        min_df=opts.min_df,
        max_df=opts.max_df,
        max_features=opts.max_features,
        binary=True if opts.binary else None,
    )


def _count_params(opts):
    return _given(alpha=opts.alpha, m=opts.m_estimate, fit_prior=False if opts.uniform_prior else None)


def _refuse_unused_count_options(opts, kind):
    """Raise InputError, in one line, for an option the count model ``kind`` of documents
    would leave unused (it was accepted and changed nothing but the parameters written in
    the model file): ``--alpha`` beside ``--m`` (the m-estimate takes no additive
    smoothing), ``--weighting`` with ``--model bernoulli`` (which keeps only whether a term
    is present: sublinear tf, idf and length normalisation rescale positive counts, which
    stay positive). The one check of ``textnb train``, ``evaluate`` and the multi-label
    commands (:func:`streaming_model` and the estimators, :func:`_document_model`);
    ``--lazy``, ``--model discriminative`` and ``auto`` refuse these in their own words."""
    if opts.lazy or kind not in ("multinomial", "bernoulli", "complement"):
        return
    if opts.alpha is not None and opts.m_estimate is not None:
        raise _unused(["--alpha"], {"--alpha": "additive smoothing"}, "--m (the m-estimate, which adds m "
                      "background counts instead)")
    if kind == "bernoulli" and opts.weighting:
        raise InputError("--weighting does not go with --model bernoulli: it keeps only whether a term is present, "
                         "which rescaling the counts (sublinear tf, idf, length normalisation) does not change")


def floor_alpha(alpha, what="a count model"):
    """``--alpha`` raised to 1e-10 (:data:`textnb.core.estimates.ALPHA_FLOOR`) when below
    it, with one DataWarning naming ``what`` it is raised for: the command line's rule for
    every count model it builds (``textnb train``, ``evaluate``, ``spamfilter``; the
    library's default ``force_alpha=True`` keeps a smaller alpha). Called when the model is
    built, not when a caller only asks which model the options describe
    (:func:`modules_for`)."""
    from textnb.core.estimates import ALPHA_FLOOR

    if alpha < ALPHA_FLOOR:
        import warnings

        from textnb.core.errors import DataWarning

        warnings.warn(f"--alpha {alpha:g} is raised to {ALPHA_FLOOR:g} for {what} (a term unseen in "
                      "a class would make its probability 0)", DataWarning, stacklevel=3)
        return ALPHA_FLOOR
    return alpha


def _floored(params, what="a count model"):
    """A count model's params with ``--alpha`` raised (:func:`floor_alpha`, naming ``what``)
    and ``force_alpha=False``: those of every count model the options build (a document
    model, streamed or not, and the word model of a table's text attributes). The model is
    given the raised value, so it warns no more, neither when fitted fold after fold nor
    when its file is read."""
    if "alpha" not in params:
        return params
    return {**params, "alpha": floor_alpha(params["alpha"], what), "force_alpha": False}


def _seed(opts):
    """``--seed`` as the ``random_state`` of the models that draw inside training (the
    default model's sample and folds, ``--model auto``'s folds, ``--calibrate``'s folds),
    None for 0, their default (the model file is the one written without ``--seed``)."""
    return opts.seed or None


def streaming_model(opts, *, steps=False):
    """``(vectorizer params, (estimator name, params))`` when the options ask for a plain
    count model that :func:`textnb.text.training.train_text_model` fits from streamed sums
    without scikit-learn, else None (the estimators are then built, and check the options).

    ``steps=True`` (``textnb train``): also the models ``train_text_model`` fits from the
    documents' rows -- a ``binary`` vectorizer, term selection (``--select``) and term
    weighting (``--weighting``) in front of the count model -- and the result is
    ``(vectorizer params, (estimator name, params), pipeline steps)``, the steps as
    ``train_text_model`` takes them (``()`` for none); ``--calibrate METHOD`` wraps the
    model in ``("CalibratedNB", {"method": METHOD, "estimator": model})``, ``--adjust`` a
    count model or ``--model auto`` (no steps) in ``("APNBC", {"estimator": model, ...})``
    with the ``--significance`` / ``--adjust-on`` / ``--seed`` that :func:`_wrap` gives
    the estimator."""
    kind = document_kind(opts)
    _refuse_unused_count_options(opts, kind)
    if steps and opts.adjust and not opts.lazy:  # APNBC around the model below (as _wrap)
        inner = streaming_model(replace(opts, adjust=False, significance=None, adjust_on=None), steps=True)
        if inner is None or inner[2] or inner[1][0] == "CalibratedNB":
            return None  # (refused by _wrap: no joint log probabilities)
        return inner[0], ("APNBC", {**_apnbc_params(opts), "estimator": inner[1]}), ()
    wrapped = (opts.lazy or opts.adjust or opts.significance is not None or opts.adjust_on
               or (opts.norm and kind != "complement"))
    if not steps:
        wrapped = wrapped or opts.select or opts.weighting or opts.binary or opts.calibrate
    elif opts.calibrate:  # calibration maps around the model below
        inner = None if wrapped else streaming_model(replace(opts, calibrate=None), steps=True)
        if inner is None:
            return None
        return inner[0], ("CalibratedNB", {"method": opts.calibrate, "estimator": inner[1],
                                           **_given(random_state=_seed(opts))}), inner[2]
    if steps and kind == "auto" and not (wrapped or opts.select or opts.weighting or _count_params(opts)):
        return vectorizer_params(opts), ("SmoothingCV", {"cv": _AUTO_FOLDS, **_given(random_state=_seed(opts))}), \
            ()  # _document_model's
    if kind not in _STREAMING or wrapped:
        return None
    params = _floored(_count_params(opts))
    if opts.norm:
        params["norm"] = True
    if kind == "discriminative":
        if set(params) - {"alpha", "force_alpha"} or opts.weighting:
            return None  # the estimator reports the option it does not take
        params = _given(alpha=params.get("alpha"), n_jobs=opts.jobs, random_state=_seed(opts))  # (raised)
    if not steps:
        return vectorizer_params(opts), (_STREAMING[kind], params)
    pipeline = []
    if opts.select:  # the steps of _document_model, in its order and with its names
        criterion, _, k = opts.select.partition(":")  # checked when parsed (cli.argtypes.select_spec)
        pipeline.append(("select", ("SelectTerms", {"criterion": criterion, "k": int(k)})))
    if opts.weighting:
        pipeline.append(("weighting", ("TermWeighting", {})))
    return vectorizer_params(opts), (_STREAMING[kind], params), tuple(pipeline)


def _apnbc_params(opts):
    """The APNBC parameters the options give (``--significance``, ``--adjust-on``, and
    ``--seed`` for ``--adjust-on cv``)."""
    return _given(significance=opts.significance, fit_on=opts.adjust_on,
                  random_state=opts.seed if opts.adjust_on == "cv" else None)


def lazy_text_model(opts):
    """``(vectorizer params, LazyTextNB params, APNBC params or None)`` when the options ask
    for lazy Bayesian rules on documents (``--lazy lbr|hlbr``; with ``--adjust``, the APNBC
    parameters of :func:`_wrap`, else None): the model
    :func:`textnb.semi_naive.lbr_text_io.train_lazy_text_model` fits for ``textnb train``,
    and whose kernels (:class:`~textnb.semi_naive.lbr_text_kernel.LazyTextKernel`, inside
    :class:`~textnb.semi_naive.apnbc_kernel.APNBCKernel` with ``--adjust``) ``textnb
    evaluate`` fits fold by fold, without scikit-learn; None without ``--lazy``, or with a
    table model (:func:`make_text_classifier` says so). Raises InputError, in one line, for
    an option ``--lazy`` on documents does not take (:func:`_lazy_text_params`)."""
    if not opts.lazy:
        return None
    kind = document_kind(opts)
    spec = MODELS.get(kind)
    if spec is None or spec.input != "documents":
        return None
    params = _lazy_text_params(opts, kind)
    return vectorizer_params(opts), params, _adjust_params(opts)


#: the event models of the local naive Bayes of ``--lazy`` on documents
_LAZY_DOCUMENT_MODELS = ("multinomial", "bernoulli")


def _lazy_text_params(opts, kind):
    """The LazyTextNB parameters of ``--lazy`` on documents (``kind``: its event model);
    InputError for the options it does not take (it would ignore them): another ``--model``,
    smoothing other than ``--alpha``, term selection or weighting, calibration, ``--norm``."""
    if kind not in _LAZY_DOCUMENT_MODELS:
        raise InputError(f"--lazy on documents takes --model {' or '.join(_LAZY_DOCUMENT_MODELS)} "
                         f"(its local naive Bayes), not --model {kind}")
    if opts.m_estimate is not None or opts.uniform_prior:
        raise InputError("--lazy takes --alpha only among the smoothing options")
    ignored = [flag for flag, given in (("--select", opts.select), ("--weighting", opts.weighting),
                                        ("--calibrate", opts.calibrate), ("--norm", opts.norm)) if given]
    if ignored:
        raise InputError(f"--lazy on documents does not take {', '.join(ignored)}; drop "
                         f"{'it' if len(ignored) == 1 else 'them'}")
    # documents: the key-term candidates always come from HLBR's training-time filter
    # (conditioning on every vocabulary term is not feasible), so lbr and hlbr agree
    return {"model": kind, **_given(alpha=opts.alpha)}


#: why --adjust refuses a model (APNBC weighs its joint log probabilities)
_ADJUST_NEEDS_JOINT = ("--adjust needs a model with joint log probabilities: not with --weighting, --select "
                       "or --calibrate")


def check_adjust_options(opts):
    """The options alone say --adjust cannot be built: with --weighting, --select or
    --calibrate (none leaves the joint log probabilities APNBC weighs), for documents and
    tables alike; one InputError line naming the flags given, before any data is read."""
    if not opts.adjust:
        return
    given = [flag for flag, on in (("--calibrate", opts.calibrate), ("--weighting", opts.weighting),
                                   ("--select", opts.select)) if on]
    if given:
        raise InputError(f"--adjust does not go with {' or '.join(given)}: APNBC weighs the model's joint log "
                         f"probabilities, which --calibrate, --weighting and --select do not keep (drop one)")


def _adjust_params(opts):
    """The APNBC parameters of ``--adjust`` (:func:`_apnbc_params`), None without it;
    InputError for ``--significance`` / ``--adjust-on`` without ``--adjust``."""
    if opts.adjust:
        return _apnbc_params(opts)
    if opts.significance is not None or opts.adjust_on:
        raise InputError("--significance and --adjust-on go with --adjust")
    return None


def _wrap(opts, model):
    """The semi-naive wrappers the options ask for, around a base model."""
    adjust = _adjust_params(opts)
    if adjust is not None:
        from textnb.naive_bayes.kernels import TableKernel

        if isinstance(model, TableKernel) and not hasattr(model, "get_params"):  # a kernel (not its estimator,
            # which is one too): adjusted by the kernel (no scikit-learn)
            from textnb.semi_naive.apnbc_kernel import APNBCKernel as APNBC
        else:
            from textnb.semi_naive.apnbc import APNBC
        if not hasattr(model, "predict_joint_log_proba"):
            # a Pipeline (--weighting, --select) or a CalibratedNB; --model auto (SmoothingCV) has them
            raise InputError(_ADJUST_NEEDS_JOINT)
        model = APNBC(model, **adjust)
    return model


def _document_model(opts, kind):
    """The document model: base, with term weighting / selection / calibration around it."""
    from textnb.meta.calibration import CalibratedNB
    from textnb.meta.smoothing import SmoothingCV
    from textnb.naive_bayes.complement import ComplementNB
    from textnb.naive_bayes.discrete import BernoulliNB, MultinomialNB
    from textnb.text.selection import SelectTerms
    from textnb.text.weighting import TermWeighting

    _refuse_unused_count_options(opts, kind)
    params = _count_params(opts)
    if opts.norm and kind != "complement":
        raise InputError("--norm goes with --model complement")
    if kind == "discriminative":
        from textnb.naive_bayes.discriminative import DiscriminativeNB

        if set(params) - {"alpha"}:
            raise InputError("--model discriminative takes --alpha only among the smoothing options")
        if opts.weighting:
            raise InputError("--model discriminative already weights terms (log tf, length normalisation)")
        model = DiscriminativeNB(**{k: floor_alpha(v) if k == "alpha" else v for k, v in params.items()},
                                 **_given(random_state=_seed(opts)))
    elif kind == "auto":
        if params:
            raise InputError("--model auto chooses its own smoothing; drop --alpha / --m / --uniform-prior")
        model = SmoothingCV(cv=_AUTO_FOLDS, **_given(random_state=_seed(opts)))
    elif kind == "complement":
        model = ComplementNB(**_floored(params), **({"norm": True} if opts.norm else {}))
    else:
        model = {"multinomial": MultinomialNB, "bernoulli": BernoulliNB}[kind](**_floored(params))
    steps = []
    if opts.select:
        criterion, _, k = opts.select.partition(":")  # checked when parsed (cli.argtypes.select_spec)
        steps.append(("select", SelectTerms(criterion=criterion, k=int(k))))
    if opts.weighting:
        if kind == "auto":
            raise InputError("--model auto already weights terms")
        steps.append(("weighting", TermWeighting()))
    if steps:
        from sklearn.pipeline import Pipeline

        model = Pipeline(steps + [("model", model)])
    if opts.calibrate:
        model = CalibratedNB(model, method=opts.calibrate, **_given(random_state=_seed(opts)))
    return model


def make_text_classifier(opts):
    """The :class:`~textnb.text.classifier.TextClassifier` the options describe (a table
    model's name refused before the estimators, and scikit-learn, are imported)."""
    kind = document_kind(opts)
    spec = MODELS.get(kind)
    if spec is None or spec.input != "documents":
        raise InputError(f"--model {kind} is for tables (ARFF / CSV attributes), not documents")
    from textnb.text.classifier import TextClassifier
    from textnb.text.vectorizer import Vectorizer

    vec = Vectorizer(**vectorizer_params(opts))
    if opts.lazy:
        from textnb.semi_naive.lbr_text import LazyTextNB

        model = LazyTextNB(**_lazy_text_params(opts, kind))
    else:
        model = _document_model(opts, kind)
    return TextClassifier(vectorizer=vec, model=_wrap(opts, model), n_jobs=opts.jobs,
                          **_given(max_bytes=opts.max_bytes))


def make_table_model(opts, table, *, kernel=False):
    """The table model the options describe, for ``table`` (a :class:`~textnb.io.tables.Table`).

    Raises InputError, in one line naming the file, for a table whose rows carry instance
    weights and a model that does not learn from them (``--lazy``; ``--adjust`` around such
    a model, or with weights that are not whole numbers: its weight search counts rows), the
    same for ``textnb train`` and each fold of ``textnb evaluate``.

    ``kernel=True`` (for code that needs no estimator, as ``textnb train`` and ``evaluate``): the model's
    kernel where it has one and nothing wraps it
    (:class:`~textnb.naive_bayes.tabular_kernel.TabularKernel`, ...: the same model and model
    file, without scikit-learn; with ``--adjust``, :class:`~textnb.semi_naive.apnbc_kernel.APNBCKernel`
    around it), else the estimator. The model keeps the class attribute's declared values
    (:func:`declared_classes`), calibrated or not: a CalibratedNB around it takes its classes.
    """
    model = _table_model(opts, table, kernel=kernel)
    weights = getattr(table, "sample_weight", None)
    if weights is not None:
        from textnb.core.wrapping import takes_sample_weight

        inner = model._base() if opts.adjust and hasattr(model, "_base") else model
        if not (takes_sample_weight(model) and takes_sample_weight(inner)):
            which = (f"--lazy {opts.lazy}{' (with --adjust)' if opts.adjust else ''}" if opts.lazy
                     else "--adjust" if opts.adjust else type(model).__name__)
            raise InputError(f"{table.source}: its rows carry instance weights, which {which} does not learn from; "
                             "remove the weights or train another model")
        w = [float(v) for v in weights]
        if opts.adjust and any(v != int(v) for v in w):
            raise InputError(f"{table.source}: its rows carry instance weights that are not whole numbers, which "
                             "--adjust does not learn from (its weight search counts rows); round them or train "
                             "without --adjust")
    return model


def _or(words):
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def _takers(field):
    """Where the table option ``field`` goes, in words: '--model tan or bn', '--model nb
    (without --lazy)', ..."""
    models = [name for name, spec in MODELS.items() if field in spec.takes]
    if field in LAZY_TABLE_TAKES:
        return _or([f"--model {', '.join(models)}", "--lazy"] if models else ["--lazy"])
    return f"--model {_or(models)}" + (" (without --lazy)" if "nb" in models else "")


def _unused(flags, goes, what):
    """One line refusing ``flags`` (all going where ``goes`` says, a dict flag -> words) that
    ``what`` would leave unused."""
    groups = {}
    for flag in flags:
        groups.setdefault(goes[flag], []).append(flag)
    clauses = [f"{' and '.join(fs)} {'goes' if len(fs) == 1 else 'go'} with {where}" for where, fs in groups.items()]
    return InputError(f"{'; '.join(clauses)}; {what} would leave {'it' if len(flags) == 1 else 'them'} unused")


def _refuse_unused_options(opts, table, kind):
    """Raise InputError, in one line, for a table option the model the options describe
    would leave unused (it was accepted and changed nothing, or only the parameters written
    in the model file): one not in the model's :attr:`ModelSpec.takes` (or
    :data:`LAZY_TABLE_TAKES`); ``--bins`` without a binning ``--numeric``; a smoothing option
    the chosen ``--nominal`` estimator does not use (unless text attributes take ``--alpha``);
    (``--numeric`` / ``--bins`` for a table without numeric attributes, ``--interval-fit`` for one
    without uncertain numeric attributes: one warning, :func:`_warn_unused`)."""
    what = f"--lazy {opts.lazy}" if opts.lazy else f"--model {kind}"
    takes = LAZY_TABLE_TAKES if opts.lazy else MODELS[kind].takes
    given = [(flag, name) for flag, name in TABLE_MODEL_FLAGS if getattr(opts, name) not in (None, False)]
    unused = [flag for flag, name in given if name not in takes]
    if unused:
        raise _unused(unused, {flag: _takers(name) for flag, name in given}, what)
    if opts.bins is not None and opts.numeric not in BINNED:
        numeric = opts.numeric or ("mdl" if opts.lazy else "gaussian")
        default = "" if opts.numeric else f" (the default of {what})"
        raise _unused(["--bins"], {"--bins": f"--numeric {_or(list(BINNED))}"}, f"--numeric {numeric}{default}")
    _warn_numeric_unused(opts, table)
    if kind == "nb" and not opts.lazy:
        nominal = opts.nominal or ("m-estimate" if opts.m_estimate is not None else "additive")
        text = any(a.is_text for a in table.attributes)  # (whose word probabilities take --alpha)
        smoothing = [(flag, name) for flag, name in (("--alpha", "alpha"), ("--m", "m_estimate"))
                     if getattr(opts, name) is not None and name not in NOMINAL_TAKES[nominal]
                     and not (text and name == "alpha")]
        if smoothing:
            goes = {flag: "--nominal " + _or([k for k, v in NOMINAL_TAKES.items() if name in v])
                    for flag, name in smoothing}
            chosen = f"--nominal {nominal}" + ("" if opts.nominal else " (chosen by --m)")
            raise _unused([flag for flag, _ in smoothing], goes, chosen)
        if opts.interval_fit and not any(a.kind == "uncertain-numeric" for a in table.attributes):
            _warn_unused(table, [f"--interval-fit {opts.interval_fit}"], "uncertain numeric attributes ([L,R] cells)")


def _warn_numeric_unused(opts, table):
    """One DataWarning when ``--numeric`` / ``--bins`` are given for a table without numeric
    attributes, which leaves them unused. A warning, not an error: the options are right
    for the model, only this table has nothing for them (a script passing ``--numeric kde``
    to every table of a benchmark, as Weka's experimenter passes ``NaiveBayes -K`` to every
    data set, is no mistake), unlike an option the model never takes (refused above)."""
    given = [flag for flag, name in (("--numeric", "numeric"), ("--bins", "bins")) if getattr(opts, name) is not None]
    if not given or any(a.kind in ("numeric", "uncertain-numeric") for a in table.attributes):
        return  # (an uncertain numeric attribute: refused or used by the model, not a warning here)
    _warn_unused(table, [f"--numeric {opts.numeric}" if f == "--numeric" else f"--bins {opts.bins}" for f in given],
                 "numeric attributes")


def _warn_unused(table, flags, what):
    """The one DataWarning for table options (``flags``: each with its value, as given) that
    are for ``what`` (e.g. "numeric attributes"), which ``table`` does not have: they are
    left unused, and the run goes on (:func:`_warn_numeric_unused`)."""
    import warnings

    from textnb.core.errors import DataWarning

    one = len(flags) == 1
    warnings.warn(f"{table.source}: {' and '.join(flags)} {'is' if one else 'are'} for {what}, which this table does "
                  f"not have; {'it is' if one else 'they are'} left unused", DataWarning, stacklevel=4)


def _table_model(opts, table, *, kernel):
    kind = opts.model or "nb"
    spec = MODELS.get(kind)
    if spec is None or spec.input != "tables":
        names = model_names("tables")
        raise InputError(f"--model {kind} is for documents; tables take {', '.join(names[:-1])} or {names[-1]}")
    if opts.lazy and kind != "nb":
        raise InputError(f"--lazy builds its own local naive Bayes; it does not go with --model {kind}")
    _refuse_unused_options(opts, table, kind)
    _refuse_document_model_options(opts, table.source)
    if opts.calibrate:  # the estimator, calibrated on out-of-fold scores as a document model is
        from textnb.meta.calibration import CalibratedNB

        if opts.adjust:
            raise InputError(_ADJUST_NEEDS_JOINT)
        inner = make_table_model(replace(opts, calibrate=None), table, kernel=False)
        return CalibratedNB(inner, method=opts.calibrate, **_given(random_state=_seed(opts)))
    text = [a.name for a in table.attributes if a.is_text]
    if kind != "nb" or opts.lazy:  # models of value indices only: no text, no interval / distribution cells
        uncertain = [a.name for a in table.attributes if a.is_uncertain]
        kinds = ([f"text attributes ({', '.join(text)})"] if text else []) + (
            [f"uncertain attributes ({', '.join(uncertain)}: interval / distribution cells)"] if uncertain else [])
        if kinds:
            what = f"--lazy {opts.lazy}" if opts.lazy else f"--model {kind}"
            raise InputError(f"{table.source}: {what} does not support {' or '.join(kinds)}; use --model nb")
    if kind != "nb":
        return _wrap(opts, _network(opts, table, kind, kernel=kernel, classes=declared_classes(table)))
    if opts.lazy:
        return _wrap(opts, _lazy_table(opts, table, kernel=kernel, classes=declared_classes(table)))
    if opts.numeric not in (None, "gaussian"):  # (the library's TabularNB raises ValueError: a user's input here)
        intervals = [a.name for a in table.attributes if a.kind == "uncertain-numeric"]
        if intervals:
            raise InputError(f"{table.source}: --numeric {opts.numeric} does not go with uncertain numeric attributes "
                             f"({', '.join(intervals)}: [L,R] cells), which are Gaussian only; leave --numeric out "
                             f"(or those columns: --ignore)")
    nominal = opts.nominal or ("m-estimate" if opts.m_estimate is not None else None)
    classes = declared_classes(table)
    # (the model resolves "uniform" in fit: an equal share for the classes with training rows,
    # none for a declared class no row has)
    params = _given(alpha=opts.alpha, m=opts.m_estimate, nominal=nominal, numeric=opts.numeric, bins=opts.bins,
                    class_prior="uniform" if opts.uniform_prior else None, interval_fit=opts.interval_fit, class_values=classes)
    if text:
        return _wrap(opts, _mixed(opts, table, params, kernel=kernel))
    if kernel:
        from textnb.naive_bayes.tabular_kernel import TabularKernel as TabularNB
    else:
        from textnb.naive_bayes.tabular import TabularNB

    return _wrap(opts, TabularNB(attributes=tuple(table.attributes), **params))


def _mixed(opts, table, params, kernel=False):
    """The model of a table with text attributes: MixedNB, or its kernel (the templates of
    its text parts as model-file nodes). Their word model is a count model: ``--alpha`` is
    raised as for a document model (:func:`_floored`), while the nominal attributes
    (``params``) keep it as given (TabularNB's relative frequencies with ``--alpha 0``)."""
    text = [a.name for a in table.attributes if a.is_text]
    words = _floored(_given(alpha=opts.alpha),
                     f"the words of text attribute{'s' if len(text) > 1 else ''} {', '.join(text)}")
    if kernel:
        from textnb.core.model_io import ModelNode
        from textnb.naive_bayes.kernels import MULTINOMIAL
        from textnb.text.defaults import VECTORIZER_DEFAULTS
        from textnb.text.mixed_kernel import MixedKernel

        vectorizer = ModelNode("Vectorizer", {**VECTORIZER_DEFAULTS, **vectorizer_params(opts)}, {})
        text_model = ModelNode("MultinomialNB", MULTINOMIAL.params(words), {})
        return MixedKernel(attributes=tuple(table.attributes), vectorizer=vectorizer, text_model=text_model, **params)
    from textnb.naive_bayes.discrete import MultinomialNB
    from textnb.text.mixed import MixedNB
    from textnb.text.vectorizer import Vectorizer

    return MixedNB(attributes=tuple(table.attributes), vectorizer=Vectorizer(**vectorizer_params(opts)),
                   text_model=MultinomialNB(**words), **params)


def declared_classes(table):
    """The classes of a table model trained on ``table``: the class values its source
    declares (``table.classes``: an ARFF header's, in their order, a value that no row has
    included, as Weka keeps them), else None (the sorted labels of the rows: a CSV/TSV
    file declares none). A model to be calibrated keeps them too: the CalibratedNB around
    it takes the model's classes (a declared class no row has gets the calibrated
    probability of a class never seen, as scikit-learn's CalibratedClassifierCV does)."""
    if table.classes is None:
        return None
    return tuple(table.classes)


def _lazy_table(opts, table, kernel=False, classes=None):
    if kernel:
        from textnb.naive_bayes.discretized_kernel import DiscretizedKernel as Discretized
        from textnb.semi_naive.lbr_kernel import LBRKernel as LBR
    else:
        from textnb.naive_bayes.discretized import Discretized
        from textnb.semi_naive.lbr import LBR

    if opts.numeric in ("gaussian", "kde"):
        raise InputError(f"--lazy needs nominal attributes: use --numeric mdl (default), equal-frequency "
                         f"or equal-width, not {opts.numeric}")
    lbr = LBR(candidates="all" if opts.lazy == "lbr" else "heuristic", **_given(alpha=opts.alpha))
    return Discretized(lbr, attributes=tuple(table.attributes), class_values=classes,
                       **_given(numeric=opts.numeric, bins=opts.bins))


def _network(opts, table, kind, kernel=False, classes=None):

    if opts.numeric not in (None, "mdl"):
        raise InputError(f"--model {kind} discretises numeric attributes with MDL; --numeric {opts.numeric} "
                         "is for --model nb")
    if kind == "aode":  # (Laplace's correction or --m, missing values kept out: MODELS["aode"].takes)
        if kernel:
            from textnb.semi_naive.aode_kernel import AODEKernel as AODE
        else:
            from textnb.semi_naive.aode import AODE
        return AODE(attributes=tuple(table.attributes), **_given(m=opts.m_estimate, class_values=classes))
    if kernel:
        from textnb.semi_naive.bayesnet_kernel import BayesNetKernel as BayesNetClassifier
        from textnb.semi_naive.bayesnet_kernel import TANKernel as TAN
    else:
        from textnb.semi_naive.bayesnet import TAN, BayesNetClassifier
    from textnb.semi_naive.bayesnet_kernel import read_structure

    common = dict(attributes=tuple(table.attributes), class_name=table.class_attribute.name, numeric="mdl",
                  **_given(alpha=opts.alpha, m=opts.m_estimate, missing=opts.missing, class_values=classes))
    if kind == "tan":
        return TAN(**common)
    if not opts.structure:
        raise InputError("--model bn needs --structure FILE.json")
    structure = read_structure(opts.structure)
    if structure.get("class"):
        cls, data_class = structure["class"], table.class_attribute.name
        if cls != data_class and cls in {a.name for a in table.attributes}:
            from textnb.core.errors import StructureError

            raise StructureError(
                f"{input_name(opts.structure)}: its class node {cls!r} is an attribute of the data, whose class is {data_class!r}; "
                f"to learn {cls!r}, add --class {cls}, else name the class node {data_class!r} (or leave \"class\" out)")
        common["class_name"] = cls
    return BayesNetClassifier(parents=structure["parents"], **common)


def model_name(model):
    """What the user trained, in words: 'LBR on mdl-discretised attributes', 'APNBC(TabularNB)'."""
    name = kind_of(model)  # a kernel: named as its model file's kind
    if name == "Discretized":
        numeric = any(getattr(a, "kind", None) == "numeric" for a in getattr(model, "attributes", None) or ())
        return f"{model_name(model.estimator_)} on " + (f"{model.numeric}-discretised attributes" if numeric
                                                        else "nominal attributes")
    if name == "LBR" and getattr(model, "candidates", None) == "heuristic":  # (as inspect names it)
        name = "HLBR"
    inner = getattr(model, "estimator_", None)
    return f"{name}({model_name(inner)})" if inner is not None else name


def modules_for(opts, *, table, multilabel=False):
    """The modules a training run with these options imports (so that a caller can
    import them before it starts a clock; a streamed count model, and the default
    multi-label model, need no scikit-learn). ``multilabel``: True or the multi-label
    method (``"copy"``, ``"ovr"``) for a multi-label corpus. Options a document model
    refuses (InputError) give the first modules only: the run refuses them once its input
    is read, in the words of what it is read as (a CSV/TSV file without text columns is
    found to be a table only then: ``--alpha`` beside ``--m`` is refused in a table's words).
    It builds no model, so it warns of none: the warnings of building one
    (:func:`floor_alpha`'s) come from the model the run builds (a CSV/TSV file found to be a
    table builds no document model: its nominal attributes keep ``--alpha 0``)."""
    import warnings

    from textnb.core.errors import DataWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        try:
            return _modules_for(opts, table=table, multilabel=multilabel)
        except InputError:
            return ["textnb.io.corpus", "textnb.core.model_io"]


def _modules_for(opts, *, table, multilabel):
    names = ["textnb.io.corpus", "textnb.core.model_io"]
    kind = opts.model or ("nb" if table else None)
    if multilabel:  # True, or the multi-label method ("copy", "ovr")
        if not opts.lazy and streaming_model(opts, steps=True) is not None:
            # fitted without scikit-learn (textnb.meta.multilabel_training); the other
            # models import the estimators when they run
            names += ["textnb.io.multilabel", "textnb.meta.multilabel_training", "scipy.sparse"]
        else:
            names += ["sklearn.pipeline", "textnb.meta.multilabel", "textnb.text.classifier"]
    elif table:
        names += ["textnb.io.tables"]
        spec = MODELS.get(kind)
        if spec is not None and spec.module:
            names.append(spec.module)
        if opts.lazy:
            names += ["textnb.naive_bayes.discretized_kernel", "textnb.semi_naive.lbr_kernel"]
        if kind == "nb" and not opts.lazy:  # a table may have text attributes (known once it is read)
            names += ["textnb.text.mixed_kernel"]
    elif kind in MODELS and MODELS[kind].input == "tables":
        pass  # a table model given documents: refused once the input is read, nothing to import for it
    elif streaming_model(opts, steps=True) is not None:
        names += ["textnb.text.training"]
    elif lazy_text_model(opts) is not None:  # (with --adjust: APNBC's kernel, which it imports)
        names += ["textnb.semi_naive.lbr_text_io"]
    else:
        names += ["textnb.text.classifier"]
        if opts.calibrate:
            names += ["textnb.meta.calibration"]
    if opts.adjust:
        kernel = table or (not opts.lazy and streaming_model(opts, steps=True) is not None) or (
            not multilabel and lazy_text_model(opts) is not None)
        names += ["textnb.semi_naive.apnbc_kernel" if kernel else "textnb.semi_naive.apnbc"]
    return names
