"""``textnb inspect``: describe a saved model (classes, counts, informative terms, structure)."""

import sys

from textnb.cli.argtypes import file_name
from textnb.cli.options import add_model_command, multilabel_model, top
from textnb.cli.output import a_kind, amount, counted, dumps, terms_kind, terms_text
from textnb.cli.streams import cell, one_line
from textnb.core.errors import InputError
from textnb.core.labels import label_names
from textnb.core.registry import kind_of as _kind
from textnb.core.wrapping import chain, find
from textnb.evaluation.plots import MAX_PLOTTED_CLASSES, MAX_PLOTTED_TERMS
from textnb.io.fasttext import DEFAULT_LABEL_PREFIX, stored_label_prefix
from textnb.io.pictures import plot_target

__all__ = ["DEFAULT_TOP", "add_parser", "run"]

#: the informative terms (or a table model's values) listed per class without ``--top``
DEFAULT_TOP = 10


def add_parser(sub):
    p = add_model_command(sub, "inspect", help="describe a saved model")
    p.add_argument("--top", type=top, metavar="N",
                   help=f"informative terms per class, or a table model's values per class in its text view "
                        f"(default {DEFAULT_TOP}; {top.range}; refused where a table model lists neither: tan, bn, "
                        f"aode, numeric attributes only, or --json, which lists every value, without text attributes)")
    p.add_argument("--json", action="store_true", help="print the description as one JSON object")
    p.add_argument("--plot", metavar="FILE.png", type=file_name,
                   help="draw a TAN tree / Bayesian network, or a text model's most informative terms (of its first "
                        f"{MAX_PLOTTED_CLASSES} classes, at most {MAX_PLOTTED_TERMS} a class), as a PNG (or SVG, PDF, "
                        "JPEG: by the name's suffix)")
    p.set_defaults(handler=run)
    return p


def _settings(params):
    """``k=v, ...`` of a model's settings, as scikit-learn writes an estimator's."""
    return ", ".join(f"{k}={v!r}" for k, v in sorted(params.items()))


def run(args, out, err):
    from textnb.core.model_io import build, read_nodes
    from textnb.evaluation.explain import apnbc_weights, describe_text_classifier, describe_text_file, model_chain

    if args.plot:  # (a name that cannot be written, or no matplotlib: said before the model is read)
        plot_target(args.plot, inputs=[args.model])
    top_given = args.top is not None  # (refused for a table model that lists nothing it caps: _refuse_top)
    if not top_given:
        args.top = DEFAULT_TOP
    from textnb.text.scorer import prediction_model, text_model_root

    root = text_model_root(read_nodes(args.model), args.model)  # a text model as its readers take it
    if root.kind == "SpamScorer":  # a spam filter's model: its messages, tokens and their weights
        return _inspect_spam(args, build(root, args.model, kernel=True), out)
    predicted = prediction_model(root, args.model)  # every check predict makes: a file it refuses is refused here too
    info = describe_text_file(root, top=args.top)  # a count text model (or APNBC of one): from its nodes
    weights = info.get("apnbc_weights") if info is not None else None
    if info is None:
        # a multi-label model as predict reads it (its file's scorer: no scikit-learn; or the estimators, which
        # read a file the scorer does not); a table model with a kernel: no scikit-learn
        model = predicted if multilabel_model(predicted) is not None else build(root, args.model, kernel=True)
        if multilabel_model(model) is not None:
            if args.plot:
                raise InputError(f"{args.model}: --plot draws a text model's terms or a tan / bn structure, "
                                 f"not a multi-label model")
            return _inspect_multilabel(args, model, root, out)
        text = sys.modules.get("textnb.text.classifier")  # loaded with any text model
        if text is None or not isinstance(model, text.TextClassifier):
            return _inspect_table(args, model, out, top_given)
        info = describe_text_classifier(model, top=args.top)
        weights = apnbc_weights(model.model_)
        if weights:
            info["apnbc_weights"] = weights
    info["label_prefix"] = stored_label_prefix(root)  # (what it reads fastText files by: a merged model's too)
    wrappers, inner = model_chain(root)  # what is around the model: the wrappers' and steps' own settings
    if wrappers and inner is not None:
        info["wrappers"], info["inner_model"] = wrappers, {"kind": inner.kind, "params": dict(sorted(inner.params.items()))}
    if _cut_at(root) is not None:
        info["max_bytes"] = _cut_at(root)
    if args.plot:
        if not any((info.get("informative_terms") or {}).values()):
            raise InputError(f"{args.model}: --plot draws informative terms, which {a_kind(info['model'])} model "
                             f"does not have")
        from textnb.evaluation.plots import plot_informative_terms

        plot_informative_terms(info["informative_terms"], args.plot,  # (at most MAX_PLOTTED_TERMS a class)
                               title=f"most informative terms (log-odds, top {min(args.top, MAX_PLOTTED_TERMS)})")
        info["plot"] = args.plot
    if args.json:
        print(dumps(info), file=out)
        return 0
    settings = ", ".join(f"{k}={v!r}" for k, v in sorted(info["params"].items()))
    if "wrappers" in info:  # each wrapper or step with its own settings, then the model inside with its own
        inner = info["inner_model"]
        parts = [f"{w['kind']}({_settings(w['params'])}) {'then' if 'step' in w else 'around'}" for w in info["wrappers"]]
        print(f"model: {' '.join(parts)} {inner['kind']}({_settings(inner['params'])})", file=out)
    else:
        print(f"model: {info['model']}({settings})", file=out)  # (as scikit-learn writes an estimator)
    _print_cut(info, out)
    if "event_model" in info:
        print(f"event model: {info['event_model']} (alpha {info['alpha']:g}; "
              f"{'chosen by cross-validation' if info['params'].get('event_model') == 'auto' else 'given'})",
              file=out)
    if "step" in info or "ratios" in info:  # DiscriminativeNB's choices by document length
        from textnb.core.dfe import RATIO_RULE, STEP_RULE

        for key, name, rule, value in (("step", "pass weight", STEP_RULE, lambda v: f"{v:g}"),
                                       ("ratios", "log-count ratios", RATIO_RULE, lambda v: "yes" if v else "no")):
            if key in info:
                how = f"chosen: {rule}" if info["params"].get(key) == "auto" else "given"
                print(f"{name}: {value(info[key])} ({how})", file=out)
    _print_calibration(info, out)
    if "calibration_scale" in info:
        inside = "; the model inside, before calibration" if "calibration" in info else ""
        how = ("the merged models' temperatures, averaged by their documents" if info.get("calibration_merged")
               else "one temperature fitted on held-out training documents")
        print(f"{'temperature' if inside else 'calibration'}: scores times {info['calibration_scale']:.4g} "
              f"({how}{inside})", file=out)
    if "residual_strength" in info:
        strength = info["residual_strength"]
        over = {"presence": " and the terms' presence (a second weight matrix)",
                "features": " (folded into the weights)"}.get(info.get("residual_over"), "")
        print(f"residual: a logistic layer over the calibrated scores{over}, fitted on held-out training documents ("
              + ("the average of the merged models' layers" if strength is None else
                 f"L2 strength {strength:g}, chosen by cross-validation") + ")", file=out)
    if "input" in info:  # a spamfilter model: what its documents are
        print("documents: messages, read as spamfilter reads them ("
              + {"mail-tokens": "the mail reader's tokens, as the fisher kind counts them",
                 "mail": "rendered by spam_text"}.get(info["input"], info["input"]) + ")", file=out)
    _print_label_prefix(info, out)
    print(f"classes: {len(info['classes'])}", file=out)
    for c, n in zip(info["classes"], info["class_count"]):
        print(f"  {cell(c)}: {counted(float(n), 'document')}", file=out)
    selected = f" ({info['selected_terms']} selected for the model)" if "selected_terms" in info else ""
    print(f"vocabulary: {counted(info['vocabulary_size'], 'term')}{terms_kind(info.get('tokenizer') or {})}{selected}",
          file=out)
    if not any(info["informative_terms"].values()):  # (a lazy model: a naive Bayes per document classified)
        print(f"most informative terms: none ({info['model']} holds no weights of its own)", file=out)
    else:
        print(f"most informative terms (log-odds against the other classes, top {args.top}):", file=out)
    for c, terms in info["informative_terms"].items():
        if terms:
            print(f"  {cell(c)}: " + terms_text(terms), file=out)
    _print_weights(weights, out)
    if args.plot:
        print(one_line(f"informative terms plot: {args.plot}"), file=out)
    return 0


def _print_label_prefix(info, out):
    """The label prefix a text model reads fastText files by, when it is not the default."""
    prefix = info.get("label_prefix")
    if prefix is not None and prefix != DEFAULT_LABEL_PREFIX:
        print(f"labels in fastText files: words starting with {prefix!r} (not {DEFAULT_LABEL_PREFIX!r})", file=out)


def _print_calibration(info, out):
    """The ``--calibrate`` map of a calibrated model, which gives its probabilities."""
    if "calibration" in info:
        print(f"calibration: {info['calibration']}, fitted on out-of-fold log-odds (gives the probabilities)",
              file=out)


def _print_weights(weights, out):
    if weights:
        print("APNBC class weights (probability scale; log):", file=out)
        for c, w in weights.items():
            print(f"  {cell(c)}: {w['weight']:.6g} ({w['log_weight']:.4f})", file=out)


def _inspect_network(args, outer, model, weights, out, top_given=False):
    """A TAN or Bayesian network ``model`` (``outer`` itself, or inside APNBC: then with its
    class ``weights``); ``top_given``: ``--top`` was given, which a network leaves unused."""
    from textnb.evaluation.explain import calibration_method

    name = _name(outer, model, _kind(model))
    if top_given:  # (before a picture is drawn)
        _refuse_top(args, name)
    if args.plot:
        model.plot_structure(args.plot)
    method = calibration_method(outer)
    described = model.describe()  # (the keys of every table model's description, the structure's)
    classes, class_count = described["classes"], described["class_count"]  # (the class node's: rows, or weights)
    if args.json:
        info = {"model": name, "classes": classes, "class_count": class_count, "structure": described["structure"],
                "plot": args.plot, "class_prior": described["class_prior"], "attributes": described["attributes"]}
        if method is not None:
            info["calibration"] = method
        if weights:
            info["apnbc_weights"] = weights
        print(dumps(info), file=out)
        return 0
    print(f"model: {name}", file=out)
    _print_calibration({"calibration": method} if method is not None else {}, out)
    print("classes: " + ", ".join(f"{cell(c)} ({n:g})" for c, n in zip(classes, class_count)), file=out)  # (as nb's)
    print(model.structure_text(name=cell), file=out)  # (an attribute's TAB or newline escaped)
    _print_weights(weights, out)
    if args.plot:
        print(one_line(f"structure plot: {args.plot}"), file=out)
    return 0


def _name(model, inner, name):
    """What inspect calls ``model``, in its text view and ``--json`` alike: ``name`` (that of
    ``inner``, the model described) inside the wrappers around it, 'APNBC(TabularNB)',
    'CalibratedNB(TAN)'."""
    for wrapper in reversed(_wrappers(model, inner)):
        name = f"{wrapper}({name})"
    return name


def _wrappers(model, inner):
    """The kinds of the models around ``inner`` in ``model``'s chain, outermost first (not
    Discretized, which ``inner``'s description names)."""
    names = []
    for m in chain(model):
        if m is inner:
            break
        if _kind(m) != "Discretized":
            names.append(_kind(m))
    return names


def _inspect_table(args, model, out, top_given=False):
    from textnb.evaluation.explain import apnbc_weights, calibration_method

    weights = apnbc_weights(model)
    network = find(model, lambda m: hasattr(m, "structure_"))  # itself, or inside APNBC
    if network is not None:
        return _inspect_network(args, model, network, weights, out, top_given)
    inner = find(model, lambda m: hasattr(m, "describe"))  # inside APNBC, Discretized, ...
    if inner is None:
        raise InputError(f"{args.model}: cannot inspect {a_kind(_kind(model))} model")
    if hasattr(inner, "text_models_"):
        from textnb.evaluation.explain import describe_mixed

        info = describe_mixed(inner, top=args.top)
    else:
        info = inner.describe()
    info["model"] = _name(model, inner, info.get("model", _kind(inner)))  # APNBC(...), CalibratedNB(...)
    if args.plot:  # (named as the 'model:' line names it: LBR, not the Discretized wrapper it is read through)
        raise InputError(f"{args.model}: --plot draws the structure of a tan or bn model or a text model's "
                         f"informative terms; {a_kind(info['model'])} model has neither")
    if top_given:  # what --top caps: a text attribute's informative terms; in the text view, a nominal one's values
        attributes = info.get("attributes", [])
        terms = any(a.get("kind") == "text" for a in attributes)
        _refuse_top(args, info["model"], terms, terms or any("probabilities" in a or "counts" in a for a in attributes))
    method = calibration_method(model)
    if method is not None:
        info["calibration"] = method
    if weights:
        info["apnbc_weights"] = weights
    if args.json:
        print(dumps(info), file=out)
        return 0
    print(f"model: {info['model']}", file=out)
    _print_calibration(info, out)
    classes = info["classes"]
    print("classes: " + ", ".join(f"{cell(c)} ({n:g})" for c, n in zip(classes, info["class_count"])), file=out)
    if "nb_loo_errors" in info:  # a lazy model: its training objects, and what a rule must improve on
        print(f"training objects: {info['n_train']}; naive Bayes leave-one-out errors: {info['nb_loo_errors']} "
              f"(a rule is built per object classified; alpha {info['alpha']:g}, at least {info['min_errors']} "
              f"errors to grow, sign test at {info['significance']:g})", file=out)
    for a in info.get("attributes", []):
        if a.get("model") == "gaussian":
            detail = "; ".join(f"{cell(c)}: mean {a['mean'][c]:.4g} sd {a['std'][c]:.4g}" for c in classes)
        elif a.get("kind") == "text":
            detail = f"{counted(a['vocabulary_size'], 'term')}; most informative (log-odds, top {args.top}): " + "; ".join(
                f"{cell(c)}: " + terms_text(a["informative_terms"][c]) for c in classes)
        elif "probabilities" in a:
            detail = "; ".join(f"{cell(c)}: " + _values_line(a["values"], a["probabilities"][c], args.top)
                               for c in classes)
        elif "counts" in a:
            detail = "; ".join(f"{cell(c)}: " + _values_line(a["values"], a["counts"][c], args.top)
                               for c in classes)
            detail += f"; missing {a['missing']}; leave-one-out errors as the only rule attribute {a['loo_errors']}"
        else:  # (the model says it all: said once, AODE's attributes were printed twice)
            print(f"  {cell(a['name'])} [{a.get('model') or a['kind']}]", file=out)
            continue
        print(f"  {cell(a['name'])} [{a['kind']}, {a.get('model', '')}] {detail}", file=out)
    _print_weights(weights, out)
    return 0


def _refuse_top(args, name, in_json=False, in_text=False):
    """One line for a ``--top`` given where the description of the model ``name`` lists
    nothing it caps: ``in_json`` / ``in_text``, whether its ``--json`` / its text view lists
    something (informative terms, a nominal attribute's values: not a network's structure,
    AODE's super-parents, numeric attributes; ``--json`` lists every value). An option a run
    would leave unused is refused, as train's and evaluate's are."""
    if in_json if args.json else in_text:
        return
    if args.json and in_text:
        raise InputError(f"{args.model}: --top goes with a text model's informative terms or a table model's values "
                         f"per class in its text view; --json lists every value of {a_kind(name)} model, so it would "
                         f"be left unused")
    raise InputError(f"{args.model}: --top goes with a text model's informative terms or a table model's values per "
                     f"class; {a_kind(name)} model lists neither, so it would be left unused")


def _values_line(values, probabilities, top):
    """``v=p`` for a nominal attribute's values in one class: all of them in their order
    when there are at most ``top``, else the ``top`` most probable and how many more (an
    attribute of 10^5 values would otherwise print a line of megabytes). Each value is
    escaped as a field is (:func:`cell`: a TAB or newline in a value forges no column or line)."""
    pairs = list(zip(values, probabilities))
    if len(pairs) > top:
        order = sorted(range(len(pairs)), key=lambda i: (-pairs[i][1], i))[:top]
        return " ".join(f"{cell(pairs[i][0])}={pairs[i][1]:.3g}" for i in order) + f" ... ({len(pairs) - top} more)"
    return " ".join(f"{cell(v)}={p:.3g}" for v, p in pairs)


def _inspect_spam(args, model, out):
    """A spam filter's model (``spamfilter --train-*``, ``--register-*``): its scoring, the
    messages of each class it learnt, its tokens (:func:`textnb.io.mailtokens.message_tokens`)
    and the ones that weigh most towards each class (:meth:`SpamScorer.informative_tokens
    <textnb.apps.spamscore.SpamScorer.informative_tokens>`), as ``bogoutil`` and ``sa-learn
    --dump`` show a word list."""
    terms = model.informative_tokens(args.top)
    info = {"kind": "spam", "model": "SpamScorer", "params": dict(sorted(model.get_params().items())),
            "classes": label_names(model), "class_count": [float(n) for n in model.class_count_],
            "vocabulary_size": len(model.vocabulary_),
            "informative_terms": {c: [[t, v] for t, v in pairs] for c, pairs in terms.items()}}
    if args.plot:
        if not any(terms.values()):
            raise InputError(f"{args.model}: --plot draws the most informative tokens, and this spam model has "
                             f"none (no message learnt in one of its classes)")
        from textnb.evaluation.plots import plot_informative_terms

        plot_informative_terms(terms, args.plot, title=f"most informative tokens (log-odds towards each class, top {min(args.top, MAX_PLOTTED_TERMS)})")
        info["plot"] = args.plot
    if args.json:
        print(dumps(info), file=out)
        return 0
    settings = ", ".join(f"{k}={v!r}" for k, v in info["params"].items())
    print(f"model: SpamScorer({settings}) (a spam filter's: spamfilter and textnb serve read it)", file=out)
    _print_label_prefix(info, out)
    print(f"classes: {len(info['classes'])}", file=out)
    for c, n in zip(info["classes"], info["class_count"]):
        print(f"  {cell(c)}: {counted(n, 'message')}", file=out)
    print(f"vocabulary: {counted(info['vocabulary_size'], 'token')} (words, header fields, MIME parts and link hosts, each "
          f"counted once per message)", file=out)
    weight = "log-likelihood ratio of its presence" if model.method == "multinomial" else \
        "Robinson's f(w) as log-odds; tokens within min_dev of 1/2 are not scored"
    print(f"most informative tokens (log-odds towards the class: {weight}; top {args.top}):", file=out)
    for c, pairs in terms.items():
        print(f"  {cell(c)}: " + (terms_text(pairs) or "none"), file=out)
    if args.plot:
        print(one_line(f"informative tokens plot: {args.plot}"), file=out)
    return 0


def _cut_at(root):
    """Where training cut each document (``train --max-bytes``), which predict cuts them at
    too; None at the default (found by a user trial: shown nowhere; a multi-label model's
    inspect did not show it either)."""
    from textnb.core.wrapping import stored_max_bytes
    from textnb.io.corpus import MAX_DOCUMENT_BYTES

    max_bytes = root.params.get("max_bytes") or stored_max_bytes(root)
    return int(max_bytes) if max_bytes and int(max_bytes) != MAX_DOCUMENT_BYTES else None


def _print_cut(info, out):
    if "max_bytes" in info:
        print(f"documents cut at: {info['max_bytes']} bytes (train --max-bytes; predict cuts them there too)", file=out)


def _inspect_multilabel(args, model, root, out):
    """A multi-label text ``model`` read from the file ``root`` (its scorer,
    :class:`~textnb.meta.multilabel_training.MultiLabelScorer`, described from the fit it reads:
    no scikit-learn; or the loaded Pipeline, from its fitted MultiLabelNB): the same names of
    the same fitted attributes in either, the same description."""
    ml = multilabel_model(model)
    fit = getattr(ml, "fitted", None)
    if fit is not None:  # the file's fit (MultiLabelFit): its score models as model-file nodes
        ml, terms = fit, model.term_keys.terms()
    else:
        terms = list(model[0].vocabulary_)
    names = label_names(ml)
    info = {
        "model": "MultiLabelNB",
        "estimator": _base_kind(ml),
        "method": "copy" if getattr(ml, "estimators_", None) is None else "ovr",
        "strategy": getattr(ml, "strategy_", "scut"),
        "min_labels": int(ml.min_labels),
        "labels": names,
        "thresholds": [float(t) for t in ml.thresholds_],
        "constant": [int(c) for c in ml.constant_],
        "vocabulary_size": len(terms),
        "label_prefix": stored_label_prefix(root),
    }
    if _cut_at(root) is not None:
        info["max_bytes"] = _cut_at(root)
    for key, attr in (("fbr", "fbr_"), ("rank", "rank_")):
        if hasattr(ml, attr):
            info[key] = getattr(ml, attr)
    if getattr(ml, "train_support_", None) is not None:  # (absent from older files)
        info["train_support"] = [int(n) for n in ml.train_support_]
    from textnb.evaluation.explain import multilabel_informative_terms

    terms = multilabel_informative_terms(ml, terms, args.top)
    info["informative_terms"] = {k: [[t, v] for t, v in pairs] for k, pairs in terms.items()}
    if args.json:
        print(dumps(info), file=out)
        return 0
    rule = {"scutfbr": f"SCutFBR, a log-odds threshold per label (fallback below F1 {info.get('fbr', 0):g})",
            "scut": "SCut, a log-odds threshold per label", "rcut": f"RCut, the {info.get('rank')} best labels",
            "pcut": "PCut, each label to a share of the documents predicted together",
            "fixed": "one log-odds threshold"}[info["strategy"]]
    scores = "one model over the documents copied per label" if info["method"] == "copy" else "one-vs-rest"
    least = f"; at least {counted(ml.min_labels, 'label')} per document" if ml.min_labels else ""
    print(f"model: MultiLabelNB({info['estimator']}), {scores}; {rule}{least}", file=out)
    _print_cut(info, out)
    print(f"labels: {len(names)}", file=out)
    for name, t, c in zip(names, ml.thresholds_, ml.constant_):
        note = {1: " (every training document has it)", 0: " (no training document has it)"}.get(int(c), "")
        print(f"  {cell(name)}: threshold {_threshold_text(t)}{note}", file=out)
    print(f"vocabulary: {counted(info['vocabulary_size'], 'term')}", file=out)
    _print_label_prefix(info, out)
    if any(terms.values()):
        print(f"most informative terms (log-odds of the label against the others, top {args.top}):", file=out)
        for name, pairs in terms.items():
            print(f"  {cell(name)}: " + (", ".join(f"{cell(t)} {amount(v)}" for t, v in pairs) or "-"), file=out)
    return 0


def _base_kind(multilabel):
    """The kind of a multi-label model's score model (its ``estimator``; DiscriminativeNB, the
    default, for None): a MultiLabelNB's own, or that of the template node a file's fit keeps."""
    if not hasattr(multilabel, "template"):  # a MultiLabelNB
        return _kind(multilabel._base())
    return "DiscriminativeNB" if multilabel.template is None else multilabel.template.kind


def _threshold_text(t):
    """A label's log-odds threshold as ``inspect`` prints it: the sentinels of a label that
    no score passes or every score passes (+-1e300, :mod:`textnb.meta.labelsets`) as
    ``+inf`` / ``-inf`` with what they mean, a huge threshold in ``%g``, others to 4 places."""
    t = float(t)
    if t >= 1e300:
        return "+inf (no document passes it)"
    if t <= -1e300:
        return "-inf (every document passes it)"
    return f"{t:g}" if abs(t) >= 1e6 else f"{t:.4f}"
