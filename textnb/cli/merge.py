"""``textnb merge``: add up models trained on parts of a corpus."""

import collections
import sys

from textnb.cli.argtypes import file_name
from textnb.cli.options import multilabel_model
from textnb.cli.output import a_kind, flag_words, one_line, save_model_file
from textnb.cli.progress import Progress, write_line
from textnb.core.errors import (CHOSEN_EVENT_MODELS, CHOSEN_PASS_WEIGHTS, CHOSEN_RATIOS, CUT_POINTS, InputError,
                                SettingsDiffer, TextnbError, short_repr)
from textnb.core.labels import label_names
from textnb.core.registry import kind_of
from textnb.core.wrapping import find, merge_refusal
from textnb.meta.registry import PARAMETER_FLAGS, SWITCHES, count_model_option, option_spelling

__all__ = ["add_parser", "run"]

#: the models textnb merge adds up
MERGES = "text models of count models, TabularNB, AODE and mixed tables (MixedNB)"


def add_parser(sub):
    p = sub.add_parser("merge", help="add up models trained on parts of a corpus",
                       description="Add up models trained on parts of a corpus with the same options: the "
                                   "counts of " + MERGES + " are sums, so parts of --model multinomial, "
                                   "bernoulli or complement merge into the model trained on the whole corpus "
                                   "(the default model, or parts pruned by --min-df, --max-df or "
                                   "--max-features: an approximation, said in a warning). Parts whose options "
                                   "differ, and a file given twice, are refused in one line.")
    p.add_argument("models", metavar="MODEL", nargs="+", help="the parts' model files (two or more)")
    p.add_argument("-o", "--output", metavar="MODEL", type=file_name, required=True,
                   help="the merged model file to write")
    p.set_defaults(handler=run)
    return p


def _refusal(path, model):
    """Why ``model`` (read from ``path``) cannot be merged, as one line, or None.

    Capabilities the models declare, not an exception caught afterwards (a bug inside
    ``merge`` must stay a bug): a ``merge`` method (without one, the reason the model or one
    inside it declares, :func:`textnb.core.wrapping.merge_refusal`), and for a text classifier a count model
    inside (one with ``_fit_counts``: the sums ``merge`` adds), not a wrapper such as term
    weighting, term selection or calibration.
    """
    if _multilabel(model):
        return _multilabel_refusal(path)
    if not callable(getattr(model, "merge", None)):
        kind, reason = merge_refusal(model) or (kind_of(model), "textnb has no merge for it")
        return f"{path}: {a_kind(kind)} model cannot be merged ({reason}); merge takes {MERGES}"
    text = sys.modules.get("textnb.text.classifier")  # loaded with any text model
    TextClassifier = text.TextClassifier if text is not None else ()

    if isinstance(model, TextClassifier) and not callable(getattr(model.model_, "_fit_counts", None)):
        return _text_refusal(path, type(model.model_).__name__)
    return None


def _multilabel(model):
    """Whether ``model`` is a multi-label text model: a Pipeline's MultiLabelNB (a Pipeline to
    the estimators, not to the user) or a TextClassifier's."""
    return multilabel_model(model) is not None or find(model, lambda m: getattr(m, "multilabel_", False) is True) \
        is not None


def _multilabel_refusal(path):
    """Why a multi-label model (a Pipeline's or a TextClassifier's MultiLabelNB) cannot be merged."""
    return (f"{path}: a multi-label model cannot be merged (its label thresholds are chosen on all its "
            "training documents); train it on the whole corpus")


def _text_refusal(path, kind):
    """Why a text model of the wrapper ``kind`` cannot be merged, as one line."""
    return (f"{path}: a text model of {kind} cannot be merged (only count models add up: "
            f"train with --model discriminative, multinomial, bernoulli or complement, without --weighting, "
            f"--select or --calibrate)")



def _remedy(exc, kind, path, first, discriminative=False):
    """What to do about a :class:`SettingsDiffer` of two ``kind`` models, in the command line's
    words: for an event model DiscriminativeNB chose on each part, or cut points a
    discretisation chose on each part's rows, the options that merge; for the class values an
    ARFF header declares (Weka's order), the same declaration; else the same options, with the
    option each file was trained with when one gives its value (``path``: the file merged into
    ``first``), and for ``discriminative`` models (the default model) how the default pipeline
    counts short texts when the difference may be its choice."""
    chosen = {(CHOSEN_EVENT_MODELS, "event_model"): "chooses its event model on each part's documents",
              (CHOSEN_PASS_WEIGHTS, "step"): "weighs its passes by each part's document length ({})",
              (CHOSEN_RATIOS, "ratios"): "takes log-count ratios by each part's documents ({})"}
    what = chosen.get((exc.what, exc.setting))
    if what is not None:  # a choice DiscriminativeNB makes on each part, which textnb train cannot fix
        if exc.what in (CHOSEN_PASS_WEIGHTS, CHOSEN_RATIOS):
            from textnb.core.dfe import RATIO_RULE, STEP_RULE

            what = what.format(STEP_RULE if exc.what == CHOSEN_PASS_WEIGHTS else RATIO_RULE)
        return (f"the default model (DiscriminativeNB) {what}, and textnb train has no option to fix it: train "
                "every part with the same --model multinomial, bernoulli or complement (count models, which merge "
                "exactly), or train on the whole corpus")
    if exc.what == CHOSEN_EVENT_MODELS:
        return "train every part with the same --alpha"
    if exc.what == CUT_POINTS and kind == "AODE":
        return ("AODE discretises numeric attributes by MDL on each part's rows and has no fixed bins: give every "
                "part those attributes discretised the same way (nominal columns), or train on the whole data")
    if exc.what == CUT_POINTS:
        return ("--numeric mdl, equal-frequency and equal-width choose the cut points on each part's rows: train "
                "every part with --numeric gaussian (the default) or kde, which merge exactly, or give every part "
                "those attributes discretised the same way (nominal columns)")
    flag = PARAMETER_FLAGS.get(exc.setting)
    if flag is not None:
        remedy = (f"train both parts with {flag} or both without it" if flag in SWITCHES
                  else f"train the parts with the same {flag}")
        mine, theirs = (option_spelling(exc.setting, value) for value in exc.values)
        if mine is not None and theirs is not None:
            remedy += f" ({path}: {theirs}; {first}: {mine})"
        if discriminative and _short_texts_choice(exc):
            remedy += ("; without these options the default model counts a corpus of short texts (1,000 "
                       "documents or more, median under 500 bytes) with --ngram 2 --min-df 2 and others with "
                       "words alone: give every part --ngram 1, or every part --ngram 2 --min-df 2")
        return remedy
    if exc.setting == "input_" and None in exc.values:
        # (spamfilter marks its models' input since 2026-12-04, docs/spam.md: a file without the mark is older,
        # found by a trial of old model files)
        return ("one part is a model spamfilter wrote before textnb marked what its models read (mail), read now "
                "as plain documents: train that part again with spamfilter --train-*")
    if exc.setting != "class_values":
        return "train the parts with the same options"
    mine, theirs = exc.values
    if mine is None or theirs is None:
        return ("one part was trained on a file that declares its class values (an ARFF header) and the other on "
                "one that does not (CSV/TSV: the sorted labels), or written by an older textnb, which did not "
                "record them; train both from the same kind of file with this textnb")
    if sorted(map(str, mine)) == sorted(map(str, theirs)):
        return "the same class values in another order: list them in the same order in both ARFF headers"
    return "declare the same class values, in the same order, in both ARFF headers"

def _short_texts_choice(exc):
    """Whether the differing setting of ``exc`` may be the default pipeline's choice for short
    texts (:data:`textnb.text.defaults.SHORT_TEXT_VECTORIZER`: one part got it, the other not)."""
    from textnb.text.defaults import SHORT_TEXT_VECTORIZER, VECTORIZER_DEFAULTS

    short = SHORT_TEXT_VECTORIZER.get(exc.setting)
    if short is None:
        return False
    values = [tuple(v) if isinstance(v, (list, tuple)) else v for v in exc.values]
    return short in values and VECTORIZER_DEFAULTS[exc.setting] in values


def _merge_refusal(exc, paths, kind, part, merged, first, i):
    """The one line of ``merged``'s refusal ``exc`` (SettingsDiffer, or ValueError: the models'
    own, features differ) to add ``part``, the part ``i`` (``merged``: the part ``first``, the
    first in the order of addition, and those added to it, all of its settings), naming the two
    files as given: the later one into the earlier, in the earlier one's words (when that is
    ``i``, its refusal of ``merged``: a refusal comes before any change)."""
    into, path = first, i
    if i < first:
        try:
            _add(part, merged)  # (a merge that goes ahead this way round: its warnings are not said)
        except (SettingsDiffer, ValueError) as again:
            exc, into, path = again, i, first
    into, path = paths[into], paths[path]
    if not isinstance(exc, SettingsDiffer):
        return InputError(f"{path}: cannot merge into {into}: {exc}")
    mine, theirs = (short_repr(v) for v in exc.values)  # a setting differs: both files' values, named
    return InputError(f"{path}: cannot merge into {into}: their {exc.what} differ ({exc.setting} is {theirs} in "
                      f"{path}, {mine} in {into}); "
                      f"{_remedy(exc, kind, path, into, getattr(merged, 'kind', None) == 'DiscriminativeNB')}")


def _same_files(paths):
    """Before any part is read: ``(refusal, warnings, order)``. The refusal (an InputError, or
    None) of a model file given twice (the same file by device and inode: a path twice, a link
    to it, ``./a.tnb`` and ``a.tnb``), whose counts the merge would double; the warnings (one
    line each) for two files with the same content (a digest of their bytes): a copy of a part,
    counted twice, unless the parts really are two equal ones; and the order the parts are
    added up in, by that digest: the merged file does not depend on the order the files are
    given in (the sums are floats, whose ``(a + b) + c`` need not be ``(a + c) + b``, and two
    Gaussian moments' merge is not symmetric either). A path that is no regular file, or
    cannot be read, gets no digest and comes first: reading it says why (:func:`_read_part`)."""
    import hashlib
    import os
    import stat

    seen, digests, keys, warnings = {}, {}, [], []
    for i, path in enumerate(paths):
        try:
            st = os.stat(path)
            first = seen.setdefault((st.st_dev, st.st_ino), i)
            if first != i:
                return (InputError(f"{path}: the same model file as {paths[first]}: merging a file with itself "
                                   f"would count its training data twice; give each part once"), [], [])
            if not stat.S_ISREG(st.st_mode):  # (a FIFO would block: not opened here)
                raise OSError
            digest = hashlib.sha256()
            with open(path, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    digest.update(block)
        except (OSError, ValueError):
            keys.append((-1, b""))
            continue
        keys.append((st.st_size, digest.digest()))
        first = digests.setdefault(keys[-1], i)
        if first != i:
            warnings.append(f"textnb: warning: {path}: the same content as {paths[first]}: its counts are added "
                            f"twice (merge a copy of a part only if that part was really trained twice)")
    return None, warnings, sorted(range(len(paths)), key=lambda i: (keys[i], i))


def _read_part(path):
    """The model file ``path`` as merge adds it up: a text model of a count model as its nodes
    (:class:`~textnb.text.nodes.CountTextModel`), a table model with a kernel as its kernels:
    no scikit-learn; other models are built as load builds them. A text model of APNBC, of
    lazy rules (with or without APNBC) or of a wrapper textnb train writes (--weighting,
    --select, --calibrate, --model auto) that the scorers read (checked as load checks it)
    stays its nodes (a :class:`~textnb.core.model_io.ModelNode`): it is refused as the
    estimator would be."""
    from textnb.core.model_io import build, read_nodes
    from textnb.semi_naive.lbr_text_io import lazy_model
    from textnb.text.nodes import CountTextModel, adjusted_text_model, wrapped_text_model

    root = read_nodes(path)
    model = CountTextModel.from_root(root)
    if model is None:
        nodes = (adjusted_text_model(root) is not None or lazy_model(root) is not None
                 or wrapped_text_model(root) is not None)
        model = root if nodes else build(root, path, kernel=True)
    return model


#: what merge keeps of a part once it is added up: its own refusals (a text model of a
#: wrapper, a multi-label model, a model that merges with nothing), its kind (``count``: a
#: count text model read from its nodes, ``count_kind`` its count model's), its fastText
#: label prefix, its classes and its vocabulary's pruning options (a count text model's)
_Part = collections.namedtuple("_Part", "path refusals kind count count_kind prefix labels pruning")


def _summary(path, model):
    """The :data:`_Part` of ``model``, read from ``path``."""
    from textnb.core.model_io import ModelNode
    from textnb.text.nodes import CountTextModel

    if isinstance(model, ModelNode):
        return _Part(path, (_text_refusal(path, model.state["model_"].kind), None, None), None, False, None, None, [],
                     None)
    if isinstance(model, CountTextModel):
        return _Part(path, (None, None, None), "TextClassifier", True, model.kind, model.label_prefix,
                     label_names(model), model.pruning())
    refusals = (None, _multilabel_refusal(path), None) if _multilabel(model) else (None, None, _refusal(path, model))
    return _Part(path, refusals, kind_of(model), False, None, None, label_names(model), None)


def _refusal_of(parts):
    """The first refusal of merging ``parts`` (:data:`_Part`, in the order given) as one line,
    or None: every part's own reasons first, those of one phase of all parts before the next
    (a model that merges with nothing, said so before any difference of kinds: found by a user
    trial, an LBR model second was 'a Discretized model', first 'an LBR model cannot be
    merged'), then a kind, a count model or a fastText label prefix that differs, each named
    against the first part that has one."""
    from textnb.io.fasttext import DEFAULT_LABEL_PREFIX

    for phase in range(3):
        refusal = next((part.refusals[phase] for part in parts if part.refusals[phase]), None)
        if refusal:
            return refusal
    first = parts[0]
    for part in parts[1:]:  # the one kind check, before any estimator is built
        if part.kind != first.kind:
            return f"{part.path}: cannot merge {a_kind(part.kind)} model into {first.path}, {a_kind(first.kind)} one"
    counts = [part for part in parts if part.count]
    for part in counts[1:]:  # another --model: said in its words, with what to do
        if part.count_kind != counts[0].count_kind:
            return (f"{part.path}: cannot merge into {counts[0].path}: their models differ ({part.path}: "
                    f"{count_model_option(part.count_kind)}; {counts[0].path}: "
                    f"{count_model_option(counts[0].count_kind)}); train the parts with the same --model")
    prefixes = [part for part in counts if part.prefix not in (None, DEFAULT_LABEL_PREFIX)]
    for part in prefixes[1:]:  # (a part without one takes the others'; checked here to name both files)
        if part.prefix != prefixes[0].prefix:
            return (f"{part.path}: cannot merge into {first.path}: their fastText label prefixes differ "
                    f"({part.path}: --label-prefix {short_repr(part.prefix)}; {prefixes[0].path}: --label-prefix "
                    f"{short_repr(prefixes[0].prefix)}); train the parts from files whose labels start with "
                    f"the same prefix")
    return None


def _first_refusal(paths):
    """The refusal of merging ``paths`` that comes first (a file that cannot be read raises
    its ModelFileError, the first in the order given), as one line, or None: what a merge
    refused when it read every part before adding any, with one part in memory at a time
    (said when the streaming merge meets a refusal, so that the line does not depend on the
    order of addition). Count text models beside other text models are built as estimators,
    which may refuse them (a text model of a wrapper)."""
    from textnb.core.model_io import build

    parts = [_summary(path, _read_part(path)) for path in paths]
    refusal = _refusal_of(parts)
    if refusal is None and any(part.count for part in parts) and not all(part.count for part in parts):
        estimators = (_refusal(part.path, build(_read_part(part.path).root, part.path)) for part in parts if part.count)
        refusal = next((line for line in estimators if line), None)
    return refusal


def _add(merged, part):
    """``merged.merge(part)``; returns the library's warnings that the merge is not exact
    (:class:`~textnb.core.errors.InexactMergeWarning`, said once the whole merge goes ahead:
    a refusal is its one line); any other warning is shown as it comes."""
    import warnings

    from textnb.core.errors import InexactMergeWarning

    caught = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", InexactMergeWarning)
            merged.merge(part)
    finally:
        for w in caught:
            if not issubclass(w.category, InexactMergeWarning):
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return [str(w.message) for w in caught if issubclass(w.category, InexactMergeWarning)]


def _stream(paths, order, err, estimators=False):
    """Add up the parts ``paths`` in ``order``, holding the running sum and one part: each part
    is read, checked against those before it (:func:`_refusal_of`), added and dropped.
    Returns ``(merged, parts, inexact)``: the merged model, each part's :data:`_Part` (by its
    position in ``paths``) and the words of the library's warnings that the merge is not
    exact; None when a count text model read from its nodes meets another text model (with
    ``estimators``, every text model is then built as an estimator, as ``load`` builds it).
    Raises the first refusal met, in the order of addition."""
    from textnb.core.model_io import build

    parts, merged, inexact = {}, None, []
    with Progress("merging", total=len(paths), stream=err, unit="model") as bar:
        for done, i in enumerate(order, 1):
            path = paths[i]
            part = _read_part(path)
            parts[i] = _summary(path, part)
            refusal = _refusal_of([parts[j] for j in order[:done]])
            if refusal:
                raise InputError(refusal)
            if parts[i].count != parts[order[0]].count and not estimators:
                return None
            if estimators and parts[i].count:
                part = build(part.root, path)
                refusal = _refusal(path, part)
                if refusal:
                    raise InputError(refusal)
            if merged is None:
                merged = part  # (added up into the first, as a merge of all parts read at once was)
            else:
                try:
                    inexact += [text for text in _add(merged, part) if text not in inexact]
                except (SettingsDiffer, ValueError) as exc:
                    raise _merge_refusal(exc, paths, parts[i].kind, part, merged, order[0], i) from None
            del part
            bar(done)
    return merged, parts, inexact


def run(args, out, err):
    from textnb.core.model_io import output_target

    if len(args.models) < 2:
        raise InputError(f"merge adds two models or more (given: {args.models[0]}); to copy a model, copy its file")
    # -o naming a part (it would be replaced by the merge), a FIFO, device or folder at -o, a missing
    # folder: refused before any work
    output_target(args.output, inputs=args.models)
    paths = args.models
    same, warnings, order = _same_files(paths)  # (the warnings printed once the merge goes ahead)
    if same is not None:  # after the parts' own refusals, as a merge that read every part first said them
        refusal = _first_refusal(paths)
        raise InputError(refusal) if refusal else same
    # the parts added up in the order of their bytes (_same_files), whatever the order given, one
    # at a time (the peak memory of two parts and the sum, not of all parts); a refusal met on
    # the way is said as if every part were read first, the same line for any order of addition
    try:
        streamed = _stream(paths, order, err)
        merged, parts, inexact = streamed or _stream(paths, order, err, estimators=True)
    except TextnbError:
        refusal = _first_refusal(paths)
        if refusal is None:
            raise
        raise InputError(refusal) from None
    parts = [parts[i] for i in range(len(paths))]
    warnings += [f"textnb: warning: {paths[0]}: {flag_words(text)}" for text in inexact]
    pruned = next((part for part in parts if part.pruning), None) if streamed else None
    if pruned is not None:
        warnings.append(f"textnb: warning: {pruned.path}: trained with {', '.join(pruned.pruning)}: the merged model "
                        f"is not the model trained on all the parts (the pruning needs the whole corpus; its "
                        f"vocabulary is the parts' union)")
    first = parts[0].labels
    for part in parts[1:]:
        theirs = part.labels
        if set(theirs) != set(first):  # (the same classes in another order: the settings say so below)
            only_here = sorted(set(first) - set(theirs))
            only_there = sorted(set(theirs) - set(first))
            warnings.append(f"textnb: warning: {part.path}: its classes differ from {paths[0]}'s "
                            f"(only in {part.path}: {', '.join(only_there) or 'none'}; only in {paths[0]}: "
                            f"{', '.join(only_here) or 'none'}); a class missing from a part counts no documents there")
    save_model_file(merged, args.output, err)
    for line in warnings:
        write_line(err, line)
    print(one_line(f"merged {len(paths)} models -> {args.output}"), file=out)
    return 0
