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
  computes: the same per-token weights (``math.log`` in both), summed in the same order;
  for Fisher's method ``SpamScorer`` calls this module's :func:`fisher_log_odds` itself.

:meth:`LiteFilter.load` reads only files it fully understands: a model file written by
:func:`textnb.core.model_io.save` for a multinomial or Fisher ``SpamScorer``, every member stored,
CRC-32 and SHA-256 checked, the ``.npy`` headers in the exact form numpy writes, every
parameter and count inside the bounds the full loader enforces (or tighter). For any
other file, including every broken one, it returns None and the caller uses the full
loader (:meth:`textnb.apps.filtering.SpamFilter.load`), which reads other model kinds
and reports each problem in its one-line form: so this path never changes what is
accepted, refused or said, only how fast the default model is served.

References
----------
G. Robinson, "A statistical approach to the spam problem", Linux Journal 107, 2003.
V. Metsis, I. Androutsopoulos, G. Paliouras, "Spam filtering with naive Bayes - which
naive Bayes?", CEAS 2006.
"""

import binascii
import math
import os
import stat
import struct
import sys
from itertools import islice

from textnb.io.mailread import DEFAULT_MAX_BYTES

try:  # the C functions themselves: functools and operator import collections & co. first
    from _functools import reduce
    from _operator import add
except ImportError:  # pragma: no cover - not CPython
    from functools import reduce
    from operator import add
try:  # CPython's own SHA-256: hashlib would load OpenSSL first (same digests)
    from _sha256 import sha256 as _sha256
except ImportError:  # pragma: no cover - other Pythons, 3.12+ (_sha2)
    from hashlib import sha256 as _sha256
from textnb.io.mailtokens import message_tokens

__all__ = [
    "SPAM", "HAM", "UNSURE", "DEFAULT_SPAM_CUTOFF", "DEFAULT_HAM_CUTOFF", "EXIT_CODES", "EXIT_ERROR",
    "Verdict", "verdict_of", "check_cutoffs", "score_text", "verdict_headers", "add_headers",
    "LiteFilter", "LiteScorer", "StreamClassifier", "logit", "default_model_file",
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
    from textnb.core.errors import InputError

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
def _header_end(data):
    """(index of the blank line ending the header block, line ending) or (None, ending)."""
    crlf = data.find(b"\r\n\r\n")
    lf = data.find(b"\n\n")
    if lf >= 0 and (crlf < 0 or lf < crlf):
        return lf + 1, b"\n"
    if crlf >= 0:
        return crlf + 2, b"\r\n"
    return None, (b"\r\n" if b"\r\n" in data[:4096] else b"\n")


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


def verdict_headers(verdict, eol=b"\n"):
    """The header lines added to a classified message."""
    return eol.join([
        b"X-TextNB-Class: " + verdict.label.encode(),
        b"X-TextNB-Score: " + score_text(verdict).encode(),
        b"X-TextNB-Log-Odds: " + f"{verdict.log_odds:.4f}".encode(),
    ]) + eol


def add_headers(head, verdict):
    """``head`` (the start of a message, bytes) with the verdict headers added.

    They go at the end of the header block (earlier X-TextNB-* fields are removed);
    when no header block ends within ``head``, at its very start (after an mbox
    ``From`` line). The rest of the message is untouched.
    """
    end, eol = _header_end(head)
    lines = verdict_headers(verdict, eol)
    if end is None:
        if head.startswith(b"From ") and b"\n" in head:
            first, rest = head.split(b"\n", 1)
            return first + b"\n" + lines + rest
        return lines + head
    return _drop_own_headers(head[:end]) + lines + head[end:]


# -- the default model without numpy ------------------------------------------------------
#: Largest model file this path reads (bigger ones go to the full loader).
MAX_LITE_BYTES = 1 << 30
_MAX_LITE_HEADER = 64 * 1024
_PARAMS = ("alpha", "length_norm", "max_tokens", "method", "min_dev", "robs", "robx")
_STATE = ("class_count_", "classes_", "feature_count_", "tokens_utf8_")
#: Arrays bigger than this (in all) are hashed by OpenSSL (``_hashlib``: loading it costs
#: about what CPython's own SHA-256 takes for 1 MB; it is several times faster per byte).
_OPENSSL_FROM = 1 << 20
_MAX_COUNT = 2**53
_MAX_ALPHA = 1e12


class _Unusable(Exception):
    """The file is not one this path reads (the full loader decides what it is)."""


def _number(v, lo, hi, lo_open=False):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise _Unusable
    if v < lo or v > hi or (lo_open and v == lo):
        raise _Unusable


def _members(raw):
    """``{name: bytes}`` of a ZIP archive whose members are all stored (CRC-32 checked)."""
    end = raw.rfind(b"PK\x05\x06", max(0, len(raw) - 22 - 65535))
    if end < 0 or len(raw) - end < 22:
        raise _Unusable
    disk, cd_disk, n_here, n_total, cd_size, cd_offset, _ = struct.unpack_from("<4H2LH", raw, end + 4)
    if disk or cd_disk or n_here != n_total or cd_offset + cd_size > end or n_total > 64:
        raise _Unusable
    out, pos = {}, cd_offset
    for _ in range(n_total):
        if raw[pos:pos + 4] != b"PK\x01\x02":
            raise _Unusable
        (flags, method, crc, csize, usize, n_name, n_extra, n_comment, offset) = (
            struct.unpack_from("<4x4x2H4x3L3H8xL", raw, pos))
        raw_name = raw[pos + 46:pos + 46 + n_name]
        name = raw_name.decode("utf-8")
        pos += 46 + n_name + n_extra + n_comment
        # what zipfile refuses is refused here too (or stricter: the full loader then decides):
        # no flag but UTF-8 names / data descriptor, stored, and a local header that repeats
        # the central one's flags, method and name (issue 30.5)
        if method != 0 or flags & ~0x808 or csize != usize or raw[offset:offset + 4] != b"PK\x03\x04":
            raise _Unusable
        l_flags, l_method = struct.unpack_from("<2H", raw, offset + 6)
        l_name, l_extra = struct.unpack_from("<2H", raw, offset + 26)
        if (l_flags, l_method) != (flags, method) or raw[offset + 30:offset + 30 + l_name] != raw_name:
            raise _Unusable
        start = offset + 30 + l_name + l_extra
        data = raw[start:start + usize]
        if len(data) != usize or binascii.crc32(data) != crc or name in out:
            raise _Unusable
        out[name] = data
    return out


def _npy(data, descr, ndim):
    """``(shape, payload)`` of one ``.npy`` member in numpy's own version-1.0 form: the
    header ``{'descr': '<descr>', 'fortran_order': False, 'shape': (N,), }`` (``(N, M)``
    for 2 dimensions), padded with spaces to the length the preamble gives, ending in a
    newline; read with byte-string methods."""
    if data[:8] != b"\x93NUMPY\x01\x00" or len(data) < 10:
        raise _Unusable
    end = 10 + int.from_bytes(data[8:10], "little")
    head = data[10:end]
    prefix = b"{'descr': '" + descr.encode("ascii") + b"', 'fortran_order': False, 'shape': ("
    if len(data) < end or not head.startswith(prefix) or head[-1:] != b"\n":
        raise _Unusable
    dims = head[len(prefix):-1].rstrip(b" ")
    if not dims.endswith(b"), }"):
        raise _Unusable
    dims = dims[:-4]
    if ndim == 1:
        numbers = [dims[:-1]] if dims[-1:] == b"," else []
    else:
        numbers = dims.split(b", ")
    if len(numbers) != ndim or not all(n.isdigit() and n.isascii() for n in numbers):
        raise _Unusable
    return tuple(int(n) for n in numbers), data[end:]


_JSON_SPACE = " \t\n\r"
_JSON_WORDS = {"true": True, "false": False, "null": None}
_JSON_NUMBER = frozenset("0123456789+-.eE")


def _json_value(s, i):
    """(value, index after it) of the JSON value at ``s[i]`` (no whitespace before it)."""
    c = s[i:i + 1]
    if c == '"':
        j = s.find('"', i + 1)
        text = s[i + 1:j]
        if j < 0 or "\\" in text or not text.isprintable():  # escapes, control characters: json's
            raise _Unusable
        return text, j + 1
    if c == "{":
        out = {}
        i = _json_skip(s, i + 1)
        if s[i:i + 1] == "}":
            return out, i + 1
        while True:
            if s[i:i + 1] != '"':
                raise _Unusable
            key, i = _json_value(s, i)
            i = _json_skip(s, i)
            if s[i:i + 1] != ":":
                raise _Unusable
            out[key], i = _json_value(s, _json_skip(s, i + 1))
            i = _json_skip(s, i)
            c = s[i:i + 1]
            if c == "}":
                return out, i + 1
            if c != ",":
                raise _Unusable
            i = _json_skip(s, i + 1)
    if c == "[":
        out = []
        i = _json_skip(s, i + 1)
        if s[i:i + 1] == "]":
            return out, i + 1
        while True:
            value, i = _json_value(s, i)
            out.append(value)
            i = _json_skip(s, i)
            c = s[i:i + 1]
            if c == "]":
                return out, i + 1
            if c != ",":
                raise _Unusable
            i = _json_skip(s, i + 1)
    for word, value in _JSON_WORDS.items():
        if s.startswith(word, i):
            return value, i + len(word)
    j = i
    while s[j:j + 1] in _JSON_NUMBER and j < len(s):
        j += 1
    return _json_number(s[i:j]), j


def _json_number(t):
    """int or float of a JSON number written in ASCII digits, as json.loads gives it."""
    n, i = len(t), 1 if t[:1] == "-" else 0
    j = i
    while j < n and "0" <= t[j] <= "9":
        j += 1
    if j == i or (t[i] == "0" and j > i + 1):
        raise _Unusable
    real = False
    if j < n and t[j] == ".":
        k = j + 1
        while k < n and "0" <= t[k] <= "9":
            k += 1
        if k == j + 1:
            raise _Unusable
        j, real = k, True
    if j < n and t[j] in "eE":
        k = j + 2 if t[j + 1:j + 2] in ("+", "-") else j + 1
        m = k
        while m < n and "0" <= t[m] <= "9":
            m += 1
        if m == k:
            raise _Unusable
        j, real = m, True
    if j != n:
        raise _Unusable
    return float(t) if real else int(t)


def _json_skip(s, i):
    n = len(s)
    while i < n and s[i] in _JSON_SPACE:
        i += 1
    return i


def _json_loads(text):
    """``json.loads(text)`` for the JSON a model file's header is written in (no string
    escapes, ASCII digits), without importing json (and re); anything else is handed to
    json.loads itself, so the result is always json's."""
    try:
        value, i = _json_value(text, _json_skip(text, 0))
        if _json_skip(text, i) != len(text):
            raise _Unusable
        return value
    except (_Unusable, IndexError, ValueError, RecursionError):
        import json

        return json.loads(text)


def _int64s(data, shape):
    """The little-endian int64 values of ``data`` as a sequence (a memoryview: the array
    module would import collections.abc & co. first)."""
    if len(data) != 8 * math.prod(shape):
        raise _Unusable
    if sys.byteorder == "little":
        return memoryview(data).cast("q")
    from array import array  # pragma: no cover - big-endian machines

    a = array("q")  # pragma: no cover
    a.frombytes(data)  # pragma: no cover
    a.byteswap()  # pragma: no cover
    return a  # pragma: no cover


def _read_lite(path, max_bytes):
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > min(max_bytes, MAX_LITE_BYTES):
            raise _Unusable
        chunks, size = [], 0
        while size <= st.st_size:
            chunk = os.read(fd, st.st_size + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        raw = b"".join(chunks)
    finally:
        os.close(fd)
    members = _members(raw)
    head = members.get("header.json")
    if head is None or len(head) > _MAX_LITE_HEADER:
        raise _Unusable
    header = _json_loads(head.decode("utf-8"))
    if not isinstance(header, dict) or header.get("format") != "textnb-model" or type(header.get("version")) is not int \
            or header["version"] != 1:
        raise _Unusable
    node, declared = header.get("model"), header.get("arrays")
    if not isinstance(node, dict) or node.get("kind") != "SpamScorer" or not isinstance(declared, dict) \
            or set(node) != {"kind", "params", "state"}:
        raise _Unusable
    params, state = node["params"], node["state"]
    if not isinstance(params, dict) or sorted(params) != list(_PARAMS) or params["method"] not in ("multinomial", "fisher") \
            or not isinstance(state, dict) or sorted(state) != list(_STATE):
        raise _Unusable
    _number(params["alpha"], 0.0, _MAX_ALPHA, lo_open=True)
    _number(params["robs"], 0.0, 1e6)
    _number(params["robx"], 0.0, 1.0)
    _number(params["min_dev"], 0.0, 0.4999999999)
    norm = params["length_norm"]
    if not (type(norm) is bool or (type(norm) in (int, float) and 0 <= norm <= 1)) or not (
            params["max_tokens"] is None or (type(params["max_tokens"]) is int and 1 <= params["max_tokens"] <= 2**40)):
        raise _Unusable
    refs = {}
    for key in _STATE:
        ref = state[key]
        if not isinstance(ref, dict) or set(ref) != {"$array"} or not isinstance(ref["$array"], str):
            raise _Unusable
        refs[key] = ref["$array"]
    if len(set(refs.values())) != 4 or set(declared) != set(refs.values()) or len(members) != 5:
        raise _Unusable
    arrays = {}
    sha256 = _sha256
    if sum(len(members.get(f"arrays/{name}.npy", b"")) for name in refs.values()) > _OPENSSL_FROM:
        try:
            from _hashlib import openssl_sha256 as sha256
        except ImportError:  # pragma: no cover - Python without OpenSSL
            pass
    for key, name in refs.items():
        meta, data = declared[name], members.get(f"arrays/{name}.npy")
        if not isinstance(meta, dict) or data is None or meta.get("nbytes") != len(data) \
                or sha256(data).hexdigest() != meta.get("sha256"):
            raise _Unusable
        arrays[key] = data
    shape, payload = _npy(arrays["classes_"], "<U4", 1)
    if shape != (2,) or payload.decode("utf-32-le").replace("\0", " ") != "ham spam":
        raise _Unusable
    shape, payload = _npy(arrays["feature_count_"], "<i8", 2)
    if shape[0] != 2:
        raise _Unusable
    counts = _int64s(payload, shape)
    # no count is negative: the top byte of every little-endian int64 is below 0x80
    negative = not payload[7::8].isascii()
    n_tokens = shape[1]
    c_shape, class_count = _npy(arrays["class_count_"], "<i8", 1)
    class_count = _int64s(class_count, c_shape)
    if c_shape != (2,) or min(class_count) < 0 or max(class_count) > _MAX_COUNT:
        raise _Unusable
    ham, spam = counts[:n_tokens], counts[n_tokens:]
    if n_tokens and (negative or max(ham) > class_count[0] or max(spam) > class_count[1]):
        raise _Unusable
    t_shape, text = _npy(arrays["tokens_utf8_"], "|u1", 1)
    if t_shape != (len(text),):
        raise _Unusable
    vocab = text.decode("utf-8", "surrogatepass").split("\n") if n_tokens else []
    index = dict(zip(vocab, range(len(vocab))))
    if len(vocab) != n_tokens or len(index) != n_tokens:
        raise _Unusable
    return LiteScorer(index, ham, spam, tuple(class_count), float(params["alpha"]), params["length_norm"],
                      method=params["method"], robs=float(params["robs"]), robx=float(params["robx"]),
                      min_dev=float(params["min_dev"]), max_tokens=params["max_tokens"])


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


class _Weights(dict):
    """Token -> weight, computed on first look-up (None for a token the model never saw)."""

    __slots__ = ("scorer",)

    def __missing__(self, token):
        j = self.scorer.index.get(token)
        w = self[token] = None if j is None else self.scorer.weight(j)
        return w


def _log_poisson_tail(m, log_m, k, upper):
    """``log sum m^i / i!`` over ``i < k`` (``upper`` False) or ``i >= k`` (True), for the
    side whose terms fall away from ``i = k - 1`` (below, ``m >= k``) or ``i = k`` (above,
    ``m < k``): from that largest term outwards, each term the one before times ``i / m``
    or ``m / i``, until the terms are below 1e-20 of the sum (or ``i`` reaches 0)."""
    i = k if upper else k - 1
    log_first = i * log_m - math.lgamma(i + 1.0)
    total, t = 1.0, 1.0
    if upper:
        while True:
            i += 1
            t *= m / i
            total += t
            if t < 1e-20 * total:
                break
    else:
        while i > 0:
            t *= i / m
            i -= 1
            total += t
            if t < 1e-20 * total:
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


def fisher_log_odds(weights, min_dev, max_tokens=None):
    """Spam log-odds of Fisher's combining (bogofilter, SpamBayes) over one message's token
    weights (:func:`robinson_weight`, in the message's token order): the tokens with
    ``|f - 1/2| >= min_dev`` (at most ``max_tokens`` of them, the most extreme first),
    ``S = P(chi2_2n <= -2 sum ln(1 - f))``, ``H = P(chi2_2n <= -2 sum ln f)``,
    ``I = (1 + S - H) / 2``; returns ``log I - log(1 - I)`` computed in log space. The one
    implementation of this scoring: :class:`textnb.apps.spamscore.SpamScorer` calls it too."""
    used = [w for w in weights if w[2] >= min_dev]
    if max_tokens is not None and len(used) > max_tokens:
        used = sorted(used, key=lambda w: -w[2])[:max_tokens]  # stable: ties keep their order
    n = len(used)
    if not n:
        return 0.0
    sum_ln_f = reduce(add, [w[0] for w in used], 0.0)
    sum_ln_1mf = reduce(add, [w[1] for w in used], 0.0)
    lp_s, lq_s = log_chi2_even_1(-2.0 * sum_ln_1mf, n)
    lp_h, lq_h = log_chi2_even_1(-2.0 * sum_ln_f, n)
    # I = (Q_h + P_s) / 2 and 1 - I = (P_h + Q_s) / 2
    return _logaddexp(lq_h, lp_s) - _logaddexp(lp_h, lq_s)


class LiteScorer:
    """The log-odds of :class:`textnb.apps.spamscore.SpamScorer` (``method="multinomial"``
    or ``"fisher"``) from its counts, in plain Python.

    Multinomial, per token ``w``: ``log((b_w + alpha) / (B + alpha V)) - log((g_w + alpha) /
    (G + alpha V))`` (``b``, ``g``: spam and ham messages holding ``w``; ``B``, ``G`` their
    sums; ``V`` the vocabulary size), computed when a token is first met; a message's
    log-odds is the sum over its distinct known tokens, in their order (one addition after
    the other, as numpy's ``bincount`` adds them), divided by :func:`length_divisor` of the
    number of known tokens (``sqrt`` for ``length_norm=True``), plus the log prior ratio.
    Metsis, Androutsopoulos & Paliouras (2006).

    Fisher: per token :func:`robinson_weight`, per message :func:`fisher_log_odds` (the
    functions ``SpamScorer`` itself uses).
    """

    def __init__(self, index, ham, spam, class_count, alpha, length_norm, *, method="multinomial",
                 robs=0.0178, robx=0.52, min_dev=0.375, max_tokens=None):
        self.index, self.ham, self.spam = index, ham, spam
        self.alpha, self.length_norm = alpha, length_norm
        self.method, self.robs, self.robx, self.min_dev, self.max_tokens = method, robs, robx, min_dev, max_tokens
        v = len(index)
        self._log_b = math.log(float(sum(spam)) + alpha * v)
        self._log_g = math.log(float(sum(ham)) + alpha * v)
        n_h, n_s = float(class_count[0]), float(class_count[1])
        self._n_h, self._n_s = n_h, n_s
        self.prior = math.log(n_s) - math.log(n_h) if n_s and n_h else (math.inf if n_s else -math.inf)
        self._weights = _Weights()
        self._weights.scorer = self

    def weight(self, j):
        """Token number ``j``'s weight: its log-likelihood ratio (multinomial) or
        :func:`robinson_weight` (fisher)."""
        if self.method == "fisher":
            return robinson_weight(float(self.spam[j]), float(self.ham[j]), self._n_s, self._n_h, self.robs, self.robx)
        a = self.alpha
        return (math.log(self.spam[j] + a) - self._log_b) - (math.log(self.ham[j] + a) - self._log_g)

    def log_odds(self, tokens):
        """Spam log-odds of one message's distinct tokens."""
        known = [w for w in map(self._weights.__getitem__, tokens) if w is not None]
        if self.method == "fisher":
            return fisher_log_odds(known, self.min_dev, self.max_tokens)
        total = reduce(add, known, 0.0)  # left to right, never a compensated sum
        if self.length_norm is not False and self.length_norm != 0:
            total = total / length_divisor(len(known), self.length_norm)
        return total + self.prior


class StreamClassifier:
    """``classify_stream`` over a ``classify(messages)``: what every spam filter class shares."""

    def classify_stream(self, pairs, batch_size=_BATCH):
        """``(source, Verdict)`` for each ``(source, bytes)`` pair, classified in batches."""
        it = iter(pairs)
        while True:
            batch = list(islice(it, batch_size))
            if not batch:
                return
            yield from zip((s for s, _ in batch), self.classify([data for _, data in batch]))


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
        try:
            scorer = _read_lite(os.fspath(path), max_model_bytes)
        except (_Unusable, OSError, ValueError, TypeError, KeyError, IndexError, OverflowError, MemoryError,
                struct.error, UnicodeError, RecursionError):
            return None
        return cls(scorer, **kwargs)

    def verdict(self, log_odds):
        label = SPAM if log_odds >= self._spam_at else (HAM if log_odds <= self._ham_at else UNSURE)
        return Verdict(label, _expit(log_odds), log_odds)

    def classify(self, messages):
        """A :class:`Verdict` for each raw message (bytes)."""
        score, max_bytes = self.scorer.log_odds, self.max_bytes
        return [self.verdict(score(message_tokens(m, max_bytes))) for m in messages]
