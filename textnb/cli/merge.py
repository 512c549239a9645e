"""``textnb merge``: add up models trained on parts of a corpus."""

import sys

from textnb.cli.argtypes import file_name
from textnb.cli.options import multilabel_model
from textnb.cli.output import a_kind
from textnb.core.errors import CHOSEN_EVENT_MODELS, CHOSEN_PASS_WEIGHTS, CHOSEN_RATIOS, CUT_POINTS, InputError, SettingsDiffer, short_repr
from textnb.core.labels import label_names
from textnb.core.registry import kind_of
from textnb.core.wrapping import find, merge_refusal, merges_exactly
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
    if exc.setting != "class_values":
        return "train the parts with the same options"
    mine, theirs = exc.values
    if mine is None or theirs is None:
        return ("one part was trained on a file that declares its class values (an ARFF header) and the other on "
                "one that does not (CSV/TSV: the sorted labels); train both from the same kind of file")
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


def _merge_refusal(exc, paths, kind, models, merged, first, i):
    """The one line of ``merged``'s refusal ``exc`` (SettingsDiffer, or ValueError: the models'
    own, features differ) to add the part ``i`` (``merged``: the part ``first``, the first in the
    order of addition, and those added to it, all of its settings), naming the two files as
    given: the later one into the earlier, in the earlier one's words (when that is ``i``, its
    refusal of ``merged``: a refusal comes before any change)."""
    into, path = first, i
    if i < first:
        try:
            models[i].merge(merged)
        except (SettingsDiffer, ValueError) as again:
            exc, into, path = again, i, first
    into, path = paths[into], paths[path]
    if not isinstance(exc, SettingsDiffer):
        return InputError(f"{path}: cannot merge into {into}: {exc}")
    mine, theirs = (short_repr(v) for v in exc.values)  # a setting differs: both files' values, named
    return InputError(f"{path}: cannot merge into {into}: their {exc.what} differ ({exc.setting} is {theirs} in "
                      f"{path}, {mine} in {into}); "
                      f"{_remedy(exc, kind, path, into, getattr(models[first], 'kind', None) == 'DiscriminativeNB')}")


def _same_files(paths):
    """Refuse a model file given twice (the same file by device and inode: a path twice, a link
    to it, ``./a.tnb`` and ``a.tnb``), whose counts the merge would double; returns the
    warnings (one line each) for two files with the same content (a digest of their bytes): a
    copy of a part, counted twice, unless the parts really are two equal ones; and the order
    the parts are added up in, by that digest: the merged file does not depend on the order
    the files are given in (the sums are floats, whose ``(a + b) + c`` need not be
    ``(a + c) + b``, and two Gaussian moments' merge is not symmetric either)."""
    import hashlib
    import os

    seen, digests, keys, warnings = {}, {}, [], []
    for i, path in enumerate(paths):
        st = os.stat(path)  # (read already: it exists)
        first = seen.setdefault((st.st_dev, st.st_ino), i)
        if first != i:
            raise InputError(f"{path}: the same model file as {paths[first]}: merging a file with itself would count "
                             f"its training data twice; give each part once")
        digest = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
        keys.append((st.st_size, digest.digest()))
        first = digests.setdefault(keys[-1], i)
        if first != i:
            warnings.append(f"textnb: warning: {path}: the same content as {paths[first]}: its counts are added "
                            f"twice (merge a copy of a part only if that part was really trained twice)")
    return warnings, sorted(range(len(paths)), key=lambda i: (keys[i], i))


def run(args, out, err):
    from textnb.core.model_io import ModelNode, build, output_target, read_nodes
    from textnb.io.fasttext import DEFAULT_LABEL_PREFIX
    from textnb.semi_naive.lbr_text_io import lazy_model
    from textnb.text.nodes import CountTextModel, adjusted_text_model, wrapped_text_model

    if len(args.models) < 2:
        raise InputError(f"merge adds two models or more (given: {args.models[0]}); to copy a model, copy its file")
    # -o naming a part (it would be replaced by the merge), a FIFO, device or folder at -o, a missing
    # folder: refused before any work
    output_target(args.output, inputs=args.models)
    # text models of count models add up from their nodes, table models with a kernel from
    # their kernels: no scikit-learn; other models are built as load builds them. A text
    # model of APNBC, of lazy rules (with or without APNBC) or of a wrapper textnb train
    # writes (--weighting, --select, --calibrate, --model auto) that the scorers read
    # (checked as load checks it) stays its nodes: it is refused below as the estimator
    # would be
    models = []
    for path in args.models:
        root = read_nodes(path)
        model = CountTextModel.from_root(root)
        if model is None:
            nodes = (adjusted_text_model(root) is not None or lazy_model(root) is not None
                     or wrapped_text_model(root) is not None)
            model = root if nodes else build(root, path, kernel=True)
        models.append(model)
    for path, model in zip(args.models, models):  # every file, not only the first (a second was a crash)
        if isinstance(model, ModelNode):
            raise InputError(_text_refusal(path, model.state["model_"].kind))
    for path, model in zip(args.models, models):  # the reason before any difference of kinds
        if not isinstance(model, CountTextModel) and _multilabel(model):
            raise InputError(_multilabel_refusal(path))
    for path, model in zip(args.models, models):  # a model that merges with nothing, said so before any difference of
        refusal = None if isinstance(model, CountTextModel) else _refusal(path, model)  # kinds (found by a user trial:
        if refusal:  # an LBR model second was 'a Discretized model', first 'an LBR model cannot be merged')
            raise InputError(refusal)
    kinds = ["TextClassifier" if isinstance(m, CountTextModel) else kind_of(m) for m in models]
    for path, kind in zip(args.models[1:], kinds[1:]):  # the one kind check, before any estimator is built
        if kind != kinds[0]:
            raise InputError(f"{path}: cannot merge {a_kind(kind)} model into {args.models[0]}, {a_kind(kinds[0])} one")
    counts = [(path, m) for path, m in zip(args.models, models) if isinstance(m, CountTextModel)]
    for path, m in counts[1:]:  # another --model: said in its words, with what to do
        if m.kind != counts[0][1].kind:
            raise InputError(f"{path}: cannot merge into {counts[0][0]}: their models differ ({path}: "
                             f"{count_model_option(m.kind)}; {counts[0][0]}: {count_model_option(counts[0][1].kind)}); "
                             f"train the parts with the same --model")
    prefixes = [(path, m.label_prefix) for path, m in counts if m.label_prefix not in (None, DEFAULT_LABEL_PREFIX)]
    for path, prefix in prefixes[1:]:  # (a part without one takes the others'; checked here to name both files)
        if prefix != prefixes[0][1]:
            raise InputError(f"{path}: cannot merge into {args.models[0]}: their fastText label prefixes differ "
                             f"({path}: --label-prefix {short_repr(prefix)}; {prefixes[0][0]}: --label-prefix "
                             f"{short_repr(prefixes[0][1])}); train the parts from files whose labels start with "
                             f"the same prefix")
    if not all(isinstance(m, CountTextModel) for m in models):  # with another text model: the estimators
        models = [build(m.root, path) if isinstance(m, CountTextModel) else m for m, path in zip(models, args.models)]
    for path, model in zip(args.models, models):
        refusal = _refusal(path, model)
        if refusal:
            raise InputError(refusal)
    warnings, order = _same_files(args.models)  # printed once the merge goes ahead: a refusal is its one line
    if not merges_exactly(models[0]):
        warnings.append(f"textnb: warning: {args.models[0]}: DiscriminativeNB models (the default) do not merge "
                        f"exactly: the result is not the model trained on all the parts (train with --model "
                        f"multinomial, bernoulli or complement for exact merges)")
    pruned = [(path, m.pruning()) for path, m in zip(args.models, models) if isinstance(m, CountTextModel)]
    if any(options for _, options in pruned):
        path, options = next((path, options) for path, options in pruned if options)
        warnings.append(f"textnb: warning: {path}: trained with {', '.join(options)}: the merged model is not the "
                        f"model trained on all the parts (the pruning needs the whole corpus; its vocabulary is the "
                        f"parts' union)")
    first = label_names(models[0])
    for path, other in zip(args.models[1:], models[1:]):
        theirs = label_names(other)
        if set(theirs) != set(first):  # (the same classes in another order: the settings say so below)
            only_here = sorted(set(first) - set(theirs))
            only_there = sorted(set(theirs) - set(first))
            warnings.append(f"textnb: warning: {path}: its classes differ from {args.models[0]}'s "
                            f"(only in {path}: {', '.join(only_there) or 'none'}; only in {args.models[0]}: "
                            f"{', '.join(only_here) or 'none'}); a class missing from a part counts no documents there")
    merged = models[order[0]]  # added up in the order of their bytes (_same_files), whatever the order given
    for i in order[1:]:
        try:
            merged.merge(models[i])
        except (SettingsDiffer, ValueError) as exc:
            raise _merge_refusal(exc, args.models, kinds[0], models, merged, order[0], i) from None
    merged.save(args.output)
    for line in warnings:
        print(line, file=err)
    print(f"merged {len(models)} models -> {args.output}", file=out)
    return 0
