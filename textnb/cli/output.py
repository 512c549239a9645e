"""What every program of the package writes: tab-separated fields and strict JSON; the
model file of ``train`` and ``merge`` (:func:`save_model_file`).

One helper for each, shared by ``textnb``, ``spamfilter`` and ``topicfilter``, so that a
file name or a label can never forge columns or lines in any of them, and ``--json``
never holds the non-JSON tokens ``NaN`` / ``Infinity``. Standard library only (the cold
``spamfilter`` path imports it).
"""

import json

from textnb.cli.streams import cell, one_line, tolerant
from textnb.core.errors import counted, figure_text  # (the core's rules, for the messages of every layer)
from textnb.core.errors import json_values as finite  # (the one JSON rule: textnb serve's too)

__all__ = ["a_kind", "amount", "cell", "counted", "print_summary", "skipped_line", "display_width", "dumps", "explanation_text", "figure_text", "finite",
           "flag_words", "name_column", "one_line", "proba_text", "save_model_file", "terms_text", "tolerant"]

#: how the library's messages name a parameter beside its flag (``class_name / --class``: a
#: library user passes the one, a user of the command line the other) -> the flag alone,
#: which is what the command line says (:func:`flag_words`)
_PARAMETER_AND_FLAG = (("class_name / --class", "--class"), ("--class (class_name=)", "--class"),
                       ("drop= / --ignore", "--ignore"), ("nominal= / --nominal-columns", "--nominal-columns"),
                       ("header=False / --no-header", "--no-header"), ("min_labels / --min-labels", "--min-labels"),
                       ("min_labels=0 (--min-labels 0)", "--min-labels 0"),
                       # TabularNB's merge refusals (textnb merge): the interval fit is --interval-fit
                       ("train with fit, or use interval_fit='theorem1'",
                        "train on the whole data, or train every part with --interval-fit theorem1"),
                       ("interval_fit='censored'", "--interval-fit censored"),
                       ("interval_fit='theorem1'", "--interval-fit theorem1"),
                       ("different interval_fit", "different --interval-fit"),
                       # an inexact merge's warning (DiscriminativeNB's inexact_merge)
                       ("MultinomialNB, BernoulliNB or ComplementNB / --model", "--model"))

def print_summary(summary, as_json, out, *, read, details, name, seconds, counts="per_class", note=""):
    """Print what ``textnb train`` did (a text or a table model, single- or multi-label) and
    return 0: ``as_json``: ``summary`` as one JSON object; else ``read READ from SOURCE[NOTE]:
    NAME N, ...`` (``summary[counts]``, each class's or label's number), the ``details`` lines
    (None: no line), the model's ``name`` and file, and the ``seconds`` taken."""
    if as_json:
        print(dumps(summary), file=out)
        return 0
    listing = ", ".join(f"{cell(c)} {n}" for c, n in summary[counts].items())  # (a label's TAB or newline escaped)
    print(one_line(f"read {read} from {summary['source']}{note}: {listing}"), file=out)
    for line in details:
        if line is not None:
            print(one_line(line), file=out)
    print(one_line(f"model: {name} -> {summary['model']}"), file=out)
    print(f"seconds: {seconds:.2f}", file=out)
    return 0


def skipped_line(n, empty=0):
    """The line of ``train``, ``evaluate`` and their multi-label forms on the ``n`` documents
    left out, ``empty`` of them empty messages of an mbox file (the rest binary files or
    messages): ``skipped 2 binary files and 1 empty message``."""
    parts = [counted(n - empty, "binary file") if n > empty else None, counted(empty, "empty message") if empty else None]
    return "skipped " + " and ".join(p for p in parts if p)


def flag_words(text):
    """A library message (an error, a warning) as the command line says it: a parameter
    named beside its flag (``choose another with class_name / --class``, ``drop= /
    --ignore``) named by the flag alone, the option the user typed. The library's own
    messages keep both names for its users."""
    for words, flag in _PARAMETER_AND_FLAG:
        text = text.replace(words, flag)
    return text


def a_kind(kind):
    """``kind`` with its indefinite article, as the messages name a model: 'a TAN', 'an
    AODE', 'an APNBC', 'an LBR' (by the sound of the first letter as the names are read:
    an acronym's letters by their names)."""
    vowel = "AEIOUFHLMNRSX" if kind.isupper() else "AEIOU"
    return f"{'an' if kind[:1].upper() in vowel else 'a'} {kind}"


def dumps(obj):
    """Strict JSON (never the non-JSON tokens NaN / Infinity, nor a lone surrogate: see
    :func:`finite`, the core's :func:`textnb.core.errors.json_values`)."""
    return json.dumps(finite(obj), allow_nan=False)


#: the widest a name column of a text table gets (terminal columns); a longer name is cut
#: in the middle, its start and end kept around an ellipsis (:func:`name_column`)
NAME_COLUMN_MAX = 40


def display_width(text):
    """The terminal columns ``text`` takes: 2 for an East Asian wide or full-width
    character, 0 for a combining mark or a format character, 1 for any other (a byte that
    is not UTF-8, written back as itself, shows as one replacement character)."""
    if text.isascii():
        return len(text)
    import unicodedata

    width = 0
    for ch in text:
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


def _cut_middle(text, width):
    """``text`` cut to ``width`` columns: its start and its end around ``…``."""
    room = width - 1
    head_room, tail_room = (room + 1) // 2, room // 2
    head, used = [], 0
    for ch in text:
        w = display_width(ch)
        if used + w > head_room:
            break
        head.append(ch)
        used += w
    tail, used = [], 0
    for ch in reversed(text):
        w = display_width(ch)
        if used + w > tail_room:
            break
        tail.append(ch)
        used += w
    return "".join(head) + "\u2026" + "".join(reversed(tail))


def name_column(names, *, header, floor=8, limit=NAME_COLUMN_MAX):
    """The left column of a text table of names (classes, labels): ``(header, cells)``
    padded to one width in terminal columns (:func:`display_width`, so wide characters
    line up), at least ``floor`` and the header's, at most ``limit``: a longer name is cut
    in the middle around an ellipsis (``--json`` keeps the whole names). Each name is
    escaped as a field of tab-separated output is (:func:`cell`: a TAB or newline in a
    name cannot break the table)."""
    shown = [cell(name) for name in names]
    width = min(max([floor, display_width(header), *map(display_width, shown)]), max(limit, display_width(header)))
    shown = [_cut_middle(s, width) if display_width(s) > width else s for s in shown]
    return header + " " * (width - display_width(header)), [s + " " * (width - display_width(s)) for s in shown]


def amount(v, sign=True):
    """A log-odds (a contribution, a margin, an informative term's weight) as the text
    outputs write it, ``predict --explain``'s and ``inspect``'s alike: two decimals, or three
    significant digits when it is under 0.01 and not 0 (the weights of ``--model complement
    --norm`` are about 1e-4: found by a user trial, every contribution and margin read
    ``+0.00``); never a negative zero (``inspect`` wrote ``-0.00``). ``sign``: ``+`` before a
    positive one."""
    v = float(v) + 0.0  # (-0.0 + 0.0 is 0.0)
    if v != 0 and abs(v) < 0.01:
        return f"{v:+.3g}" if sign else f"{v:.3g}"
    return f"{v:+.2f}" if sign else f"{v:.2f}"


def terms_text(pairs, sign=False):
    """Informative terms ``[(term, log_odds), ...]`` as ``inspect`` lists them: ``term
    (log-odds), ...``, each term escaped as a field is (:func:`cell`: a TAB, newline or ESC
    in a term read with ``--token-pattern '\\S+'`` neither forges a line nor reaches the
    terminal, as in ``predict --explain``) and each log-odds as :func:`amount` writes it."""
    return ", ".join(f"{cell(t)} ({amount(v, sign)})" for t, v in pairs)


def explanation_text(info):
    """One line for an entry of :func:`textnb.evaluation.explain.explain_rows`: a rule as it
    is; the attributes (and the terms of text attributes) or the terms that moved the decision."""
    if isinstance(info, str):
        return info
    if "attributes" in info:
        parts = []
        for a in info["attributes"]:
            if a["kind"] == "text":
                terms = ", ".join(f"{t['term']} {amount(t['contribution'])}" for t in a["for"] + a["against"])
                parts.append(f"{a['name']} {amount(a['contribution'])} [{terms}]")
            else:
                parts.append(f"{a['name']}={a['value']} {amount(a['contribution'])}")
        body = "; ".join(parts)
    else:
        body = ", ".join(f"{t['term']} {amount(t['contribution'])}" for t in info["for"] + info["against"])
    against = (f"; the scores favour {info['runner_up']}, the calibrated probabilities chose this label"
               if info["margin"] < 0 else "")
    none = ("the terms it knows weigh the same for both classes" if info.get("known_terms") else
            "no term the model knows")
    return (f"vs {info['runner_up']} by {amount(info['margin'], sign=False)} (prior {amount(info['prior'])}{against}): "
            f"{body or none}")


def proba_text(p, threshold=None):
    """A probability as the text outputs print it: 6 significant digits (as fastText's
    ``predict-prob``), or as many as it takes not to read ``1`` for one below 1 (a
    spam score of 1 - 3e-8 is ``0.99999997``: it is below ``--threshold 0.99999999``);
    a tiny one keeps its digits (``3.37095e-08``, not ``0.000000``). With ``threshold``
    (the one the output was decided by), as many as it takes to read on the side of it the
    probability is on (found by a user trial: topicfilter printed ``0.997767`` of a document
    it had left unsorted for ``-t 0.997767``, its confidence 0.99776685)."""
    p = float(p)
    text = f"{p:.6g}"
    digits = 6
    while digits < 17 and ((text == "1" and p < 1.0)
                           or (threshold is not None and (float(text) >= threshold) != (p >= threshold))):
        digits += 1
        text = f"{p:.{digits}g}"
    return text


def terms_kind(tokenizer):
    """What a vectorizer's terms are (``tokenizer``: its parameters) when not words alone, or
    cut by a document frequency, in words: `` (words and word bigrams, each in 2 training
    documents or more)``; '' otherwise (``textnb train``'s and ``textnb inspect``'s
    vocabulary line)."""
    low, high = tuple(tokenizer.get("ngram_range") or (1, 1))
    parts = []
    if (low, high) == (1, 2):
        parts.append("words and word bigrams")
    elif (low, high) != (1, 1):
        parts.append(f"word n-grams of {low} to {high} words" if low != high else f"word {low}-grams")
    min_df = tokenizer.get("min_df", 1)
    if isinstance(min_df, int) and not isinstance(min_df, bool) and min_df > 1:
        parts.append(f"each in {min_df} training documents or more")
    elif isinstance(min_df, float) and 0.0 < min_df < 1.0:
        parts.append(f"each in {min_df:.4g} of the training documents or more")
    return f" ({', '.join(parts)})" if parts else ""


def save_model_file(model, path, err):
    """Save ``model`` (a fitted estimator, or a model tree) to the model file ``path`` that
    ``train`` and ``merge`` write (``-o``): a file there already is replaced as
    ``spamfilter --train-*`` replaces one (:func:`textnb.apps.filtering.replace_model`: under
    the locks of the mail filters' registrations when they use it, its journal removed; a
    failure after the replace is one ``textnb: warning:`` line on ``err``); a new one is
    saved as it is (the mail filters' module is not imported for it, nor for a file no
    registration uses: :func:`~textnb.core.model_io.registrations_use`)."""
    from textnb.core.model_io import registrations_use, save

    if registrations_use(path):
        from textnb.apps.filtering import replace_model
        from textnb.cli.progress import write_line

        return replace_model(path, model, on_warning=lambda message: write_line(err, f"textnb: warning: {message}"))

    return model.save(path) if hasattr(model, "save") else save(model, path)
