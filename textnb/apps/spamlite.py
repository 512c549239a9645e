"""The spam filter's fast path: verdicts, headers, and the default model scored without numpy.

A mail filter runs as one short process per message (or per folder), so what it imports
is most of its cost. This module needs only the standard library's core modules and
:mod:`textnb.io.mailtokens` (the one mail reader); it holds

* the verdict rules shared by every spam path (:func:`verdict_of`, :class:`Verdict`,
  the default cut-offs, the exit codes, :func:`add_headers`, :func:`score_text`;
  :mod:`textnb.apps.filtering` re-exports them);
* :class:`LiteFilter`: a :class:`textnb.apps.spamscore.SpamScorer` model of the default
  method (Robinson-Fisher, as bogofilter) or of Boolean multinomial naive Bayes (Metsis,
  Androutsopoulos & Paliouras 2006) read from its ``.tnb`` file and scored in plain
  Python. Its log-odds are the very floats :meth:`SpamScorer.decision_function`
  computes: the same per-token weights (``math.log`` in both, :func:`compact_weights`),
  summed in the same order; for Fisher's method ``SpamScorer`` calls this module's
  :func:`fisher_log_odds` itself.

:meth:`LiteFilter.load` reads the model's compact form: the per-token weights that
:meth:`textnb.apps.spamscore.SpamScorer.save` writes in front of the model's ZIP archive
(:mod:`textnb.core.compact`; layout in :func:`encode_compact`), read with ``struct`` and
``memoryview`` alone, the frame's sizes and CRC-32, its binding to the archive behind it
(the size and CRC-32 of the archive it was written with; its header's format version and
model kind checked as the full reader checks them) and every weight checked. For any other file (another model kind, a compact form in front of another
archive, a file written before the compact form existed, a broken one; a file of the
earlier frame, whose one CRC-32 over compact form and archive stands for the binding, is
read with the same header check) it
returns None and the caller uses the one model reader
(:meth:`textnb.apps.filtering.SpamFilter.load` through :func:`textnb.core.model_io.load`),
which reads other model kinds and reports each problem in its one-line form: so this path
never changes what is said about a file, only how fast the default model is served (but for
a file forged on purpose, the compact form of one model with its binding rewritten for
another's archive, which it cannot tell without recomputing the weights: :mod:`textnb.core.compact`).

References
----------
G. Robinson, "A statistical approach to the spam problem", Linux Journal 107, 2003.
V. Metsis, I. Androutsopoulos, G. Paliouras, "Spam filtering with naive Bayes - which
naive Bayes?", CEAS 2006.
"""

import math
import os
import struct
import sys
from itertools import islice

from textnb.core.errors import InputError
from textnb.io.mailread import DEFAULT_MAX_BYTES, map_messages, refuse_empty_message

try:  # the C functions themselves: functools and operator import collections & co. first
    from _functools import reduce
    from _operator import add
except ImportError:  # pragma: no cover - not CPython
    from functools import reduce
    from operator import add
from textnb.core.compact import read_payload
from textnb.io.mailread import _bare_cr_lines
from textnb.io.mailtokens import Tokens, _after_line_breaks, _strip_from_line, header_end, message_tokens

__all__ = [
    "SPAM", "HAM", "UNSURE", "DEFAULT_SPAM_CUTOFF", "DEFAULT_HAM_CUTOFF", "EXIT_CODES", "EXIT_ERROR",
    "Verdict", "verdict_of", "check_cutoffs", "score_text", "proba_text", "verdict_headers", "add_headers",
    "LiteFilter", "LiteScorer", "StreamClassifier", "logit", "default_model_file", "compact_payload",
    "pack_features", "unpack_features",
]

SPAM, HAM, UNSURE = "spam", "ham", "unsure"
#: The lowest spam cut-off that held the pooled out-of-fold ham false positives of the
#: default kind at or below 0.05 % on each corpus and format (``scripts/bench_spam.py
#: --accuracy --select``).
DEFAULT_SPAM_CUTOFF = 0.999
DEFAULT_HAM_CUTOFF = 0.45
#: Exit status of ``spamfilter`` for each verdict (bogofilter's), and for an error.
EXIT_CODES = {SPAM: 0, HAM: 1, UNSURE: 2}
EXIT_ERROR = 3
HEADER_PREFIX = b"X-TextNB-"
MODEL_KINDS = {"multinomial": "MultinomialNB", "bernoulli": "BernoulliNB", "complement": "ComplementNB",
               "discriminative": "DiscriminativeNB",
               "boolean": "SpamScorer", "fisher": "SpamScorer", "geometric": "SpamScorer"}
#: :class:`textnb.apps.spamscore.SpamScorer` settings of the kinds fed raw mail tokens:
#: ``fisher`` = Robinson-Fisher combining (bogofilter's method, with a minimum deviation
#: of 0.05 instead of bogofilter's 0.375);
#: ``boolean`` = multinomial NB on Boolean attributes (Metsis et al. 2006), length-normalised;
#: ``geometric`` = Robinson's geometric mean.
SPAM_KINDS = {"fisher": {"method": "fisher", "min_dev": 0.05},
              "boolean": {"method": "multinomial", "alpha": 0.01, "length_norm": True},
              "geometric": {"method": "geometric"}}
#: The kind of a new spam model (``--kind``), chosen by ``scripts/bench_spam.py --accuracy
#: --select``: 5-fold cross-validation inside the training parts of SpamAssassin, CSDMC2010
#: and SMS in every format, and across the two mail corpora (training parts only); the
#: scoring at least as good as bogofilter (trained on the same folds) on both spam recall at
#: ham FP <= 0.5 % and 1 - ROC AUC in the most sets, among those whose ham false positives a
#: cut-off holds at 0.05 % (docs/spam.md).
DEFAULT_KIND = "fisher"


#: Smoothing of the default spam model, chosen by 5-fold cross-validation on the training
#: half of the SpamAssassin split (``scripts/bench_spam.py --select``, docs/spam.md).
DEFAULT_SPAM_ALPHA = 0.001
_BATCH = 500


# -- verdicts ---------------------------------------------------------------------------
def logit(p):
    """``log(p / (1 - p))``, +-inf at 1 and 0: the log-odds of a probability (a cut-off)."""
    if p <= 0.0:
        return -math.inf
    if p >= 1.0:
        return math.inf
    return math.log(p) - math.log1p(-p)


def _expit(lo):
    """P(spam) of a log-odds (math only: no scipy import on the mail path)."""
    if lo >= 0:
        return 1.0 / (1.0 + math.exp(-lo))
    e = math.exp(lo)
    return e / (1.0 + e)


def check_cutoffs(spam_cutoff, ham_cutoff):
    """Raise InputError unless ``0 <= ham_cutoff <= spam_cutoff <= 1``."""

    for name, v in (("spam cut-off", spam_cutoff), ("ham cut-off", ham_cutoff)):
        if not (isinstance(v, (int, float)) and 0.0 <= v <= 1.0):
            raise InputError(f"the {name} must be a probability between 0 and 1; got {v!r}")
    if ham_cutoff > spam_cutoff:
        raise InputError(f"the ham cut-off {ham_cutoff} is above the spam cut-off {spam_cutoff}")


def verdict_of(log_odds, spam_cutoff=DEFAULT_SPAM_CUTOFF, ham_cutoff=DEFAULT_HAM_CUTOFF):
    """``'spam'``, ``'ham'`` or ``'unsure'`` for a spam log-odds and two cut-offs."""
    if log_odds >= logit(spam_cutoff):
        return SPAM
    if log_odds <= logit(ham_cutoff):
        return HAM
    return UNSURE


class Verdict:
    """The outcome for one message: ``label`` (spam / ham / unsure), ``score`` =
    P(spam), ``log_odds`` = log P(spam) - log P(ham) (keeps its resolution).

    Immutable, compared and hashed by its three fields (a frozen dataclass, written out:
    :mod:`dataclasses` imports :mod:`inspect`, which costs a fast start)."""

    __slots__ = ("label", "score", "log_odds")

    def __init__(self, label, score, log_odds):
        object.__setattr__(self, "label", label)
        object.__setattr__(self, "score", score)
        object.__setattr__(self, "log_odds", log_odds)

    def __setattr__(self, name, value):
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name):
        raise AttributeError(f"cannot delete field {name!r}")

    def _fields(self):
        return (self.label, self.score, self.log_odds)

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self):
        return hash(self._fields())

    def __repr__(self):
        return f"Verdict(label={self.label!r}, score={self.score!r}, log_odds={self.log_odds!r})"


def default_model_file(name="spam.tnb", environ=None):
    """``$XDG_DATA_HOME/textnb/<name>``, else ``~/.local/share/textnb/<name>``, as a string."""
    environ = os.environ if environ is None else environ
    base = environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(base, "textnb", name)


# -- message headers ----------------------------------------------------------------
def _drop_own_headers(block):
    """Remove X-TextNB-* fields (with their continuation lines) from a header block."""
    out, dropping = [], False
    for line in block.splitlines(keepends=True):
        if line[:1] in (b" ", b"\t") and dropping:
            continue
        dropping = line[: len(HEADER_PREFIX)].lower() == HEADER_PREFIX.lower()
        if not dropping:
            out.append(line)
    return b"".join(out)


def score_text(verdict):
    """The score printed by ``--batch`` and in ``X-TextNB-Score``: the spam log-odds as the
    shortest decimal that reads back to the same float, so sorting on it orders messages
    exactly as the log-odds do (a probability would round to 1.000000 for confident spam)."""
    return repr(float(verdict.log_odds))


def proba_text(verdict):
    """P(spam) as ``--batch --log-odds`` prints it beside :func:`score_text`'s log-odds (the
    two numbers of the daemon's reply, :func:`textnb.apps.protocol.spam_reply`): the
    shortest decimal that reads back to the same float (bogofilter's ``-b`` column is this
    probability, its spamicity)."""
    return repr(float(verdict.score))


def verdict_headers(verdict, eol=b"\n"):
    """The header lines added to a classified message."""
    return eol.join([
        b"X-TextNB-Class: " + verdict.label.encode(),
        b"X-TextNB-Score: " + score_text(verdict).encode(),
        b"X-TextNB-Log-Odds: " + f"{verdict.log_odds:.4f}".encode(),
    ]) + eol


def add_headers(head, verdict, max_bytes=None):
    """``head`` (a message or its start, bytes) with the verdict headers added.

    They go at the end of the header block as the mail reader finds it in the first
    ``max_bytes`` bytes, what the verdict read (None: :data:`DEFAULT_MAX_BYTES`, as
    ``spamfilter``'s ``--max-bytes``; the bytes past it are copied unchanged)
    (:func:`textnb.io.mailtokens.header_end`: a blank line or the first line that is not
    a header field ends it), earlier X-TextNB-* fields removed (:func:`remove_headers`);
    a message without a header gets them, then a blank line, at its very start (after
    an mbox ``From`` line). When the header runs to the end of what was read (a message cut
    by ``max_bytes`` inside its header, or one of header fields only), they go before its
    last field, which may continue past the cut: never into a line. Read again, the
    result gives the same tokens. The rest of the message is untouched.

    The one placement of ``spamfilter -p`` (which reads the first ``max_bytes`` and copies
    the rest as it comes), the daemon's ``SPAM ... headers=1`` and spamd's ``PROCESS`` and
    ``HEADERS`` (which hold the whole message: spamd put the fields at the end of a header
    longer than ``max_bytes``, where ``-p`` puts them before the last field it read).
    """
    limit = DEFAULT_MAX_BYTES if max_bytes is None else max_bytes
    if len(head) > limit:
        return add_headers(head[:limit], verdict, limit) + head[limit:]
    end, eol, _ = header_end(head)
    if end is not None and b"x-textnb-" in head[:end].lower():  # (earlier fields: the header read again)
        head = remove_headers(head)
        end, eol, _ = header_end(head)
    lines = verdict_headers(verdict, eol)
    start = len(head) - len(_strip_from_line(head))
    if end is None:
        return head[:start] + lines + eol + head[start:]
    if end == len(head):
        # the header runs to the end of what was read (a header-only message, or one cut
        # by max_bytes inside its header): its last field may go on past the cut, so the
        # fields go before that field's first line, never into a line
        end -= len(_last_field(head[start:end]))
    return head[:end] + lines + head[end:]


def _last_field(block):
    """The last field of a header ``block`` (its first line and continuation lines; its
    lines end as the mail reader ends them: a bare CR in a line of LF text is no end)."""
    if _bare_cr_lines(block[:4096]):
        lines = block.splitlines(keepends=True)
    else:
        lines = [line + b"\n" for line in block.split(b"\n")]
        lines[-1] = lines[-1][:-1]
        if not lines[-1]:
            lines.pop()
    k = len(lines) - 1
    while k > 0 and lines[k][:1] in (b" ", b"\t"):
        k -= 1
    return b"".join(lines[k:])


def remove_headers(data):
    """``data`` without the X-TextNB-* fields (and their continuation lines) of its header
    block: what :func:`add_headers` added, so that a message that had no header gets its
    text back (the header of our fields alone and its blank line go). The one rule the
    filters and the daemon's learning (its message digests) share."""
    end, _, separated = header_end(data)
    if end is None or b"x-textnb-" not in data[:end].lower():
        return data
    start = len(data) - len(_strip_from_line(data))
    block = data[:start] + _drop_own_headers(data[start:end])
    if len(block) == start and separated:  # only our fields: a message without a header
        return block + data[_after_line_breaks(data, 1, end):]
    return block + data[end:]


# -- the default model without numpy ------------------------------------------------------
#: Largest model file this path reads (bigger ones go to the full loader).
MAX_LITE_BYTES = 1 << 30
#: The spam model's compact form (the payload of :mod:`textnb.core.compact`): this header,
#: then the per-token weight arrays (float64, little-endian, ``n_arrays`` of ``n_tokens``
#: each), then the tokens as UTF-8 separated by newlines. Fields: tag, method (0
#: multinomial, 1 fisher), number of arrays, 0, number of tokens, bytes of token text,
#: ``max_tokens`` (0: none), ``length_norm`` (0: none; 0.5 is ``True``), log prior ratio
#: (multinomial), 0.
_COMPACT = struct.Struct("<8sBBHLQQQdd8x")
_COMPACT_TAG = b"spam/1\0\0"
#: The model kind whose compact form this is (:class:`textnb.apps.spamscore.SpamScorer`'s): a
#: compact form in front of an archive of another kind is not read (:func:`compact_payload`)
COMPACT_KIND = "SpamScorer"
_METHOD_CODES = {"multinomial": 0, "fisher": 1}
#: Most tokens a compact form may list (about what a model file of MAX_LITE_BYTES holds).
_MAX_TOKENS_FIELD = 2**40


def compact_weights(method, tokens, spam, ham, class_count, *, alpha, robs, robx, min_dev):
    """``(tokens, weights)`` of a spam model's compact form, from its counts (``spam``,
    ``ham``: messages of each class holding each of ``tokens``; ``class_count``: ham and
    spam messages): for ``"fisher"`` the tokens with ``|f - 1/2| >= min_dev`` (the only
    ones Fisher's method uses) and their :func:`robinson_weight` as three lists (ln f,
    ln(1 - f), |f - 1/2|); for ``"multinomial"`` every token and its log-likelihood
    ratio ``(log(b + alpha) - log(B + alpha V)) - (log(g + alpha) - log(G + alpha V))``,
    ``math.log`` token by token (the floats :class:`textnb.apps.spamscore.SpamScorer`
    computes). Tokens keep the order given."""
    n_h, n_s = float(class_count[0]), float(class_count[1])
    if method == "fisher":
        kept, ln_f, ln_1mf, dev = [], [], [], []
        for t, b, g in zip(tokens, spam, ham):
            w = robinson_weight(float(b), float(g), n_s, n_h, robs, robx)
            if w[2] >= min_dev:
                kept.append(t)
                ln_f.append(w[0])
                ln_1mf.append(w[1])
                dev.append(w[2])
        return kept, (ln_f, ln_1mf, dev)
    v, log = len(tokens), math.log
    log_b = log(float(sum(spam)) + alpha * v)
    log_g = log(float(sum(ham)) + alpha * v)
    return list(tokens), ([(log(b + alpha) - log_b) - (log(g + alpha) - log_g) for b, g in zip(spam, ham)],)


def encode_compact(scorer):
    """The compact form of a :class:`LiteScorer` (bytes; :func:`decode_compact` reads it)."""
    tokens = scorer.tokens
    text = "\n".join(tokens).encode("utf-8", "surrogatepass")
    arrays = b"".join(struct.pack(f"<{len(a)}d", *a) for a in scorer.weights)
    norm = 0.0 if scorer.length_norm is False else 0.5 if scorer.length_norm is True else float(scorer.length_norm)
    head = _COMPACT.pack(_COMPACT_TAG, _METHOD_CODES[scorer.method], len(scorer.weights), 0, 0, len(tokens),
                         len(text), scorer.max_tokens or 0, norm, scorer.prior)
    return head + arrays + text


class _Unusable(Exception):
    """The compact form is not one this path reads (the full loader decides what it is)."""


#: Top bytes (the sign and the exponent's high bits) of the little-endian doubles that a
#: compact form's weights may have: every such double is finite, and within (-2**17, 0]
#: (``_NEGATIVE``: Fisher's ln f and ln(1 - f), which :func:`robinson_weight` keeps in
#: [-20.8, -1e-9]), within [0, 2) (``_SMALL``: Fisher's |f - 1/2| <= 1/2), or within
#: (-2**17, 2**17) (``_BOUNDED``: multinomial log-likelihood ratios, which smoothing keeps to
#: tens). A NaN or an infinity has top byte 0x7F or 0xFF, outside all three.
_NEGATIVE = bytes(range(0x80, 0xC1))
_SMALL = bytes(range(0x00, 0x40))
_BOUNDED = bytes(range(0x00, 0x41)) + _NEGATIVE


def _doubles_within(payload, start, n, top_bytes):
    """Raise _Unusable unless each of the ``n`` little-endian doubles at ``payload[start:]``
    has its top byte in ``top_bytes`` (the ranges above). One strided slice of the top bytes
    and one ``translate`` that deletes the allowed ones: no float is made (checking the
    floats one by one took a quarter of a large model's load)."""
    if payload[start + 7:start + 8 * n:8].translate(None, top_bytes):
        raise _Unusable


def decode_compact(payload):
    """The :class:`LiteScorer` of a compact form written by :func:`encode_compact`, every
    size, count and weight checked (raises _Unusable, or a ValueError/UnicodeError on
    bytes that are not such a form)."""
    if sys.byteorder != "little" or len(payload) < _COMPACT.size:
        raise _Unusable  # a big-endian machine reads the archive (the full loader)
    tag, method, n_arrays, _, _, n, n_text, max_tokens, norm, prior = _COMPACT.unpack_from(payload)
    fisher = method == 1
    if tag != _COMPACT_TAG or method not in (0, 1) or n > _MAX_TOKENS_FIELD or max_tokens > _MAX_TOKENS_FIELD \
            or n_arrays != (3 if fisher else 1) or _COMPACT.size + 8 * n_arrays * n + n_text != len(payload) \
            or not 0.0 <= norm <= 1.0 or prior != prior or (fisher and (norm or prior)) \
            or (not fisher and max_tokens):
        raise _Unusable
    view = memoryview(payload)
    start = _COMPACT.size
    weights = tuple(view[start + 8 * n * k:start + 8 * n * (k + 1)].cast("d") for k in range(n_arrays))
    if fisher:  # ln f, ln(1 - f) for f in [1e-9, 1 - 1e-9]; |f - 1/2| <= 1/2
        _doubles_within(payload, start, 2 * n, _NEGATIVE)
        if max_tokens:  # |f - 1/2| ranks the tokens only under max_tokens (else never read)
            _doubles_within(payload, start + 16 * n, n, _SMALL)
    else:
        _doubles_within(payload, start, n, _BOUNDED)
    text = str(view[start + 8 * n_arrays * n:], "utf-8", "surrogatepass")
    vocab = text.split("\n") if n else []
    if len(vocab) != n or (n == 0 and text):
        raise _Unusable
    scorer = LiteScorer(vocab, weights, method="fisher" if fisher else "multinomial", max_tokens=max_tokens or None,
                      length_norm=False if norm == 0.0 else norm, prior=prior)
    if len(scorer) != n:  # a token listed twice
        raise _Unusable
    return scorer


def length_divisor(n_known, length_norm):
    """What the multinomial token sum of a message with ``n_known`` known tokens is divided
    by: 1 without ``length_norm``; ``sqrt(n)`` for ``True`` (or 0.5); ``n`` for 1; else
    ``n ** length_norm`` (``n`` at least 1). The one definition both scorers use
    (:class:`textnb.apps.spamscore.SpamScorer` maps it over its documents), so their
    floats are the same."""
    if length_norm is False or length_norm == 0:
        return 1.0
    n = float(max(n_known, 1))
    if length_norm is True or length_norm == 0.5:
        return math.sqrt(n)
    if length_norm == 1:
        return n
    return n ** float(length_norm)


#: a term below this share of a sum leaves it unchanged (under half an ulp)
_NEGLIGIBLE = 2.0 ** -54


def _log_poisson_tail(m, log_m, k, upper):
    """``log sum m^i / i!`` over ``i < k`` (``upper`` False) or ``i >= k`` (True), for the
    side whose terms fall away from ``i = k - 1`` (below, ``m >= k``) or ``i = k`` (above,
    ``m < k``): from that largest term outwards, each term the one before times ``i / m``
    or ``m / i``, until a term is below ``2**-54`` of the sum (or ``i`` reaches 0). The
    terms only fall from there, and a term below ``2**-54`` of the sum is below half a
    unit in the last place of it, so adding it (or any later term) rounds back to the same
    sum: stopping there gives the very float the series to any smaller cut-off gives."""
    i = k if upper else k - 1
    log_first = i * log_m - math.lgamma(i + 1.0)
    total, t = 1.0, 1.0
    if upper:
        while True:
            i += 1
            t *= m / i
            total += t
            if t < _NEGLIGIBLE * total:
                break
    else:
        while i > 0:
            t *= i / m
            i -= 1
            total += t
            if t < _NEGLIGIBLE * total:
                break
    return log_first + math.log(total)


def log_chi2_even_1(x, k):
    """``(log P, log Q)`` of the chi-square distribution with ``2k`` degrees of freedom at
    ``x >= 0`` (``P`` the CDF, ``Q = 1 - P``, ``k >= 1``). With ``m = x / 2``, the smaller of
    the two is its exact Poisson series (``Q = exp(-m) sum_{i<k} m^i / i!`` when ``m >= k``,
    ``P = exp(-m) sum_{i>=k} m^i / i!`` otherwise), the larger ``log1p(-exp(smaller))``, so
    neither rounds to 0 or 1."""
    m = x / 2.0
    if m <= 0.0:
        return -math.inf, 0.0
    log_m = math.log(m)
    if m >= k:
        log_q = min(_log_poisson_tail(m, log_m, k, False) - m, 0.0)
        return (math.log1p(-math.exp(log_q)) if log_q < 0.0 else -math.inf), log_q
    log_p = min(_log_poisson_tail(m, log_m, k, True) - m, 0.0)
    return log_p, (math.log1p(-math.exp(log_p)) if log_p < 0.0 else -math.inf)


def _logaddexp(a, b):
    top = a if a > b else b
    if top == -math.inf:
        return top
    return top + math.log1p(math.exp(-abs(a - b)))


def robinson_weight(b, g, n_s, n_h, robs, robx):
    """``(ln f, ln(1 - f), |f - 1/2|)`` of a token held by ``b`` spam and ``g`` ham
    messages out of ``n_s`` and ``n_h`` (floats): Graham's ``p = (b/n_s) / (b/n_s + g/n_h)``
    shrunk towards ``robx`` with strength ``robs`` (Robinson), kept within [1e-9, 1 - 1e-9]."""
    n = b + g
    if n > 0.0:
        p = b * n_h / (b * n_h + g * n_s) if n_h and n_s else robx
        f = (robs * robx + n * p) / (robs + n)
    else:
        f = robx
    f = min(max(f, 1e-9), 1.0 - 1e-9)
    return math.log(f), math.log1p(-f), abs(f - 0.5)


def fisher_log_odds(ids, ln_f, ln_1mf, dev, min_dev=None, max_tokens=None):
    """Spam log-odds of Fisher's combining (bogofilter, SpamBayes) of one message: ``ids``
    are the positions of its known tokens (in the message's order) in the per-token weights
    ``ln_f``, ``ln_1mf``, ``dev`` (:func:`robinson_weight`). The tokens with ``dev >=
    min_dev`` (None: ``ids`` holds only such tokens) are used, at most ``max_tokens`` of
    them, the most extreme first; ``S = P(chi2_2n <= -2 sum ln(1 - f))``, ``H = P(chi2_2n
    <= -2 sum ln f)``, ``I = (1 + S - H) / 2``; returns ``log I - log(1 - I)`` computed in
    log space. The one implementation of this scoring: :class:`LiteScorer` and
    :class:`textnb.apps.spamscore.SpamScorer` both call it."""
    if min_dev is not None:
        ids = [j for j in ids if dev[j] >= min_dev]
    if max_tokens is not None and len(ids) > max_tokens:
        ids = sorted(ids, key=dev.__getitem__, reverse=True)[:max_tokens]  # stable: ties keep their order
    return fisher_from_sums(len(ids), reduce(add, map(ln_f.__getitem__, ids), 0.0),
                            reduce(add, map(ln_1mf.__getitem__, ids), 0.0))


def fisher_from_sums(n, sum_ln_f, sum_ln_1mf):
    """Spam log-odds of Fisher's combining of ``n`` tokens from the sums of their ``ln f``
    and ``ln(1 - f)`` (0.0 for none): ``log I - log(1 - I)`` (:func:`fisher_log_odds`)."""
    if not n:
        return 0.0
    lp_s, lq_s = log_chi2_even_1(-2.0 * sum_ln_1mf, n)
    lp_h, lq_h = log_chi2_even_1(-2.0 * sum_ln_f, n)
    # I = (Q_h + P_s) / 2 and 1 - I = (P_h + Q_s) / 2
    return _logaddexp(lq_h, lp_s) - _logaddexp(lp_h, lq_s)


class LiteScorer:
    """The log-odds of :class:`textnb.apps.spamscore.SpamScorer` (``method="multinomial"``
    or ``"fisher"``) from its per-token weights (:func:`compact_weights`), in plain Python.

    ``tokens`` lists the tokens in the order of the ``weights`` sequences: for Fisher
    (ln f, ln(1 - f), |f - 1/2|) of the tokens that pass the model's ``min_dev``, scored
    by :func:`fisher_log_odds`; for multinomial the log-likelihood ratio of every token,
    summed over a message's distinct known tokens in their order (one addition after the
    other, as numpy's ``bincount`` adds them), divided by :func:`length_divisor` of the
    number of known tokens, plus ``prior`` (Metsis, Androutsopoulos & Paliouras 2006).

    A message is scored with one dictionary look-up per token: each token is mapped to its
    weight (multinomial) or to ``complex(ln f, ln(1 - f))`` (Fisher without
    ``max_tokens``), so one left-to-right sum of the complex numbers gives both of Fisher's
    sums, each the very float the two separate sums give (the real and imaginary parts of
    a complex addition are two float additions). With ``max_tokens`` the tokens are
    ranked by ``|f - 1/2|`` first, through their positions (:func:`fisher_log_odds`).
    """

    def __init__(self, tokens, weights, *, method="fisher", max_tokens=None, length_norm=False, prior=0.0):
        self.tokens, self.weights, self.method = tokens, weights, method
        self.max_tokens, self.length_norm, self.prior = max_tokens, length_norm, prior
        if method == "fisher" and max_tokens is not None:
            self._lookup = dict(zip(tokens, range(len(tokens))))
        elif method == "fisher":
            self._lookup = dict(zip(tokens, map(complex, weights[0], weights[1])))
        else:
            self._lookup = dict(zip(tokens, weights[0]))

    def __len__(self):
        """The number of distinct tokens (what the look-up holds; fewer than ``tokens``
        when a token is listed twice)."""
        return len(self._lookup)

    def log_odds(self, tokens):
        """Spam log-odds of one message's distinct tokens."""
        if self.method == "fisher" and self.max_tokens is None:
            # (a model's weight is never 0j, both logs being at most -1e-9: filter drops the unknown only)
            found = list(filter(None, map(self._lookup.get, tokens)))
            both = reduce(add, found, 0j)  # left to right, never compensated
            return fisher_from_sums(len(found), both.real, both.imag)
        found = [v for v in map(self._lookup.get, tokens) if v is not None]
        if self.method == "fisher":
            return fisher_log_odds(found, *self.weights, max_tokens=self.max_tokens)
        total = reduce(add, found, 0.0)  # left to right, never compensated
        if self.length_norm is not False and self.length_norm != 0:
            total = total / length_divisor(len(found), self.length_norm)
        return total + self.prior


class StreamClassifier:
    """``classify_stream`` over a ``classify(messages)``: what every spam filter class shares."""

    def classify_stream(self, pairs, batch_size=_BATCH):
        """``(source, Verdict)`` for each ``(source, bytes)`` pair, classified in batches.
        An empty message (:func:`textnb.io.mailread.is_empty_message`) raises InputError
        ``"SOURCE: empty message"`` where it is met, as every command refuses it."""
        it = iter(pairs)
        while True:
            batch = list(islice(it, batch_size))
            if not batch:
                return
            yield from zip((s for s, _ in batch),
                           self.classify([refuse_empty_message(s, data) for s, data in batch]))

    def classify_paths(self, paths, *, max_bytes=DEFAULT_MAX_BYTES, on_error=None, n_jobs=None, stdin=None,
                       on_warning=None):
        """``(source, Verdict)`` for each message of the files, folders, mbox files and
        Maildirs ``paths``, in :func:`textnb.io.mailread.iter_messages`'s order, with
        ``on_error`` called where that reading calls it; the files are read and classified
        in forked processes too (:func:`textnb.io.mailread.map_messages`: ``n_jobs``
        processes, None for this one plus one per idle CPU when there are enough files or
        a large mbox file, which is read in pieces).
        The verdicts, their order and the errors are the same however many processes
        compute them. Without ``on_error`` a path or file that cannot be read raises
        InputError. With ``stdin``, a path ``-`` is one message read from it. A helper
        process that fails is reported to ``on_warning`` (its messages are classified here)."""
        return map_messages(paths, self.classify, max_bytes=max_bytes, on_error=on_error, n_jobs=n_jobs,
                            pack=_pack, unpack=_unpack, stdin=stdin, on_warning=on_warning)


def _pack(verdicts):  # (what a helper process sends: plain data)
    return [v._fields() for v in verdicts]


def _unpack(fields):
    return [Verdict(*f) for f in fields]


class LiteFilter(StreamClassifier):
    """:class:`textnb.apps.filtering.SpamFilter`'s classifying half for the default model,
    without numpy (see the module docstring); :meth:`load` returns None for any model
    file it does not read."""

    def __init__(self, scorer, *, spam_cutoff=DEFAULT_SPAM_CUTOFF, ham_cutoff=DEFAULT_HAM_CUTOFF,
                 max_bytes=DEFAULT_MAX_BYTES):
        check_cutoffs(spam_cutoff, ham_cutoff)
        self.scorer = scorer
        self.spam_cutoff, self.ham_cutoff = spam_cutoff, ham_cutoff
        self.max_bytes = max_bytes
        self._spam_at, self._ham_at = logit(spam_cutoff), logit(ham_cutoff)

    @classmethod
    def load(cls, path, *, max_model_bytes=MAX_LITE_BYTES, **kwargs):
        """A LiteFilter for the model file ``path``, or None when this path does not read it."""
        return cls.from_payload(compact_payload(path, max_model_bytes=max_model_bytes), **kwargs)

    @classmethod
    def from_payload(cls, payload, **kwargs):
        """A LiteFilter for a model file's compact form (:func:`compact_payload`), or None
        when there is none or this path does not read it."""
        if payload is None:
            return None
        try:
            scorer = decode_compact(payload)
        except (_Unusable, ValueError, TypeError, OverflowError, MemoryError, struct.error, UnicodeError):
            return None
        return cls(scorer, **kwargs)

    def verdict(self, log_odds):
        label = SPAM if log_odds >= self._spam_at else (HAM if log_odds <= self._ham_at else UNSURE)
        return Verdict(label, _expit(log_odds), log_odds)

    def classify(self, messages):
        """A :class:`Verdict` for each raw message (bytes). Up to 500 messages are
        tokenised, then scored, not one message after the other: the model's look-up then
        stays in the CPU's caches while it is read (in process, about 5 % less CPU time on
        the SpamAssassin and CSDMC2010 test folders, 10-15 % on SMS; docs/spam.md,
        "Session 25"). An empty message raises InputError ``"messages[I]: empty message"``
        (:func:`textnb.io.mailread.refuse_empty_message`: the test every command refuses one
        by; nothing is scored)."""
        score, verdict, max_bytes = self.scorer.log_odds, self.verdict, self.max_bytes
        out, it = [], iter(messages)
        while batch := list(islice(it, _BATCH)):
            tokens = [message_tokens(refuse_empty_message(f"messages[{len(out) + i}]", m), max_bytes)
                      for i, m in enumerate(batch)]
            out += [verdict(score(t)) for t in tokens]
        return out


def compact_payload(path, *, max_model_bytes=MAX_LITE_BYTES):
    """The compact form of the model file ``path``, checked (its size and CRC-32; written
    with the archive behind it, whose header the full loader reads, of a
    :data:`COMPACT_KIND` model: :func:`textnb.core.compact.read_payload`), or None (none, or
    the file cannot be read, or is not read here: the full loader reads it or reports why)."""
    try:
        return read_payload(os.fspath(path), max_model_bytes, COMPACT_KIND)
    except (OSError, ValueError, OverflowError, MemoryError, struct.error):
        return None


def pack_features(features):
    """What a helper process sends of a list of features (:func:`message_tokens`'
    ``Tokens``, or texts): plain lists and strings, which :mod:`marshal` writes."""
    return [f if isinstance(f, str) else list(f) for f in features]


def unpack_features(features):
    """:func:`pack_features`' list as it was (token lists as ``Tokens`` again)."""
    return [f if isinstance(f, str) else Tokens(f) for f in features]
