"""One message, one verdict: the answer every transport of the daemon gives.

``textnb serve`` answers for a message over three transports: its own protocol
(``spamfilter --socket``), HTTP (``POST /classify`` with ``"mail": true``) and
SpamAssassin's spamd protocol (``spamc``). Each calls :func:`message_verdict` once per
message, so the label, the score and the log-odds of a message come from one scorer and
equal the cold ``spamfilter``'s (``tests/apps/test_serve.py``, ``tests/apps/test_spamd.py``).
:func:`spamd_fields` and :func:`spamd_report` put that one verdict in spamd's terms.

The verdict rules themselves (cut-offs, exit codes, headers) are those of
:mod:`textnb.apps.spamlite`; the scoring is :class:`textnb.apps.spamlite.LiteScorer` for
the multinomial and Fisher models (the floats of ``SpamScorer.decision_function`` bit for bit) and
:class:`textnb.apps.filtering.SpamFilter` for every other spam model.

**Memory.** A served :class:`LiteScorer` keeps the weights of the tokens it has looked
up; here only the tokens the model knows are kept, so the cache is bounded by the
model's vocabulary whatever the traffic (a token the model never saw costs one
dictionary look-up per occurrence and is not stored).
"""

import threading
import weakref

from textnb.apps.filtering import EXIT_CODES, SPAM, SpamFilter, add_headers
from textnb.apps.protocol import SPAMD_THRESHOLD, spamd_score, spamd_score_text
from textnb.apps.spamlite import DEFAULT_SPAM_CUTOFF, LiteFilter, LiteScorer, logit, score_text
from textnb.core.errors import InputError

__all__ = ["message_verdict", "classify_mail", "spamd_fields", "spamd_report", "spamd_symbol", "is_spam_model"]

_LITE = weakref.WeakKeyDictionary()
_LITE_LOCK = threading.Lock()
_NONE = object()
#: token weights a served scorer may cache when its cache is not the known-tokens-only one
_MAX_CACHED = 1 << 20


def is_spam_model(model):
    """Whether ``model`` gives spam verdicts (a class ``'spam'`` and ``predict_log_odds``)."""
    return SPAM in [str(c) for c in getattr(model, "classes_", [])] and hasattr(model, "predict_log_odds")


class _KnownWeights(dict):
    """Token -> weight for the tokens the model knows; unknown tokens are not stored."""

    __slots__ = ("scorer",)

    def __missing__(self, token):
        j = self.scorer.index.get(token)
        if j is None:
            return None
        w = self[token] = self.scorer.weight(j)
        return w


def _lite_scorer(model):
    """A LiteScorer over the very counts of ``model`` when it is a spam model of the default
    kind (a multinomial ``SpamScorer`` of classes ham and spam), else None; built once per
    loaded model object (held while the model is)."""
    with _LITE_LOCK:
        try:
            scorer = _LITE.get(model, _NONE)
        except TypeError:  # not weak-referenceable: no cache, the full path
            return None
        if scorer is not _NONE:
            return scorer
        scorer = None
        if type(model).__name__ == "SpamScorer" and getattr(model, "method", None) in ("multinomial", "fisher") \
                and [str(c) for c in getattr(model, "classes_", [])] == ["ham", "spam"]:
            vocab = model.vocabulary_.tolist()
            counts = model.feature_count_
            scorer = LiteScorer(dict(zip(vocab, range(len(vocab)))), counts[0].tolist(), counts[1].tolist(),
                                tuple(int(c) for c in model.class_count_), float(model.alpha),
                                model._norm(), method=model.method, robs=float(model.robs),
                                robx=float(model.robx), min_dev=float(model.min_dev),
                                max_tokens=None if model.max_tokens is None else int(model.max_tokens))
            if hasattr(scorer, "_weights") and hasattr(scorer, "index") and hasattr(scorer, "weight"):
                weights = _KnownWeights()
                weights.scorer = scorer
                scorer._weights = weights
        _LITE[model] = scorer
        return scorer


def _kwargs(spam_cutoff, ham_cutoff, max_bytes):
    kwargs = {"spam_cutoff": spam_cutoff, "ham_cutoff": ham_cutoff, "max_bytes": max_bytes}
    return {k: v for k, v in kwargs.items() if v is not None}


def message_verdict(model, data, *, spam_cutoff=None, ham_cutoff=None, max_bytes=None):
    """The :class:`~textnb.apps.spamlite.Verdict` of one raw message (bytes), exactly as the
    cold ``spamfilter`` gives it (the same defaults for what is None).

    Raises InputError for an empty message, ModelFileError for a model that is not a
    spam model or that gives NaN.
    """
    kwargs = _kwargs(spam_cutoff, ham_cutoff, max_bytes)
    sf = SpamFilter(model, source="the served model", **kwargs)  # checks the model and the cut-offs
    if not data.strip():
        raise InputError("stdin: empty message")
    lite = _lite_scorer(model)
    verdict = LiteFilter(lite, **kwargs).classify([data])[0] if lite is not None else None
    cache = getattr(lite, "_weights", None)
    if cache is not None and not isinstance(cache, _KnownWeights) and len(cache) > _MAX_CACHED:
        cache.clear()  # a scorer whose cache could not be made known-tokens-only: bounded by count
    if verdict is None or verdict.log_odds != verdict.log_odds:  # NaN: the numpy path says why
        verdict = sf.classify([data])[0]
    return verdict


def classify_mail(model, data, *, spam_cutoff=None, ham_cutoff=None, max_bytes=None, headers=False):
    """``(exit_code, verdict, head)`` for one raw message: ``head`` is ``data`` with the
    verdict headers added when ``headers`` (else b"")."""
    verdict = message_verdict(model, data, spam_cutoff=spam_cutoff, ham_cutoff=ham_cutoff, max_bytes=max_bytes)
    return EXIT_CODES[verdict.label], verdict, (add_headers(data, verdict) if headers else b"")


def spamd_fields(verdict, spam_cutoff=None):
    """``(is_spam, score text, threshold text)`` of the ``Spam:`` line for ``verdict``.

    ``is_spam`` is the verdict being spam (unsure and ham are not); the score is
    :func:`textnb.apps.protocol.spamd_score` of the log-odds with the spam cut-off
    (default :data:`~textnb.apps.spamlite.DEFAULT_SPAM_CUTOFF`) at the threshold 5.0.
    """
    cutoff = DEFAULT_SPAM_CUTOFF if spam_cutoff is None else spam_cutoff
    is_spam = verdict.label == SPAM
    score = spamd_score(float(verdict.log_odds), logit(cutoff))
    return is_spam, spamd_score_text(score, is_spam), f"{SPAMD_THRESHOLD:.1f}"


def spamd_symbol(verdict):
    """The one "test" a textnb verdict hits, for SYMBOLS and REPORT: ``TEXTNB_SPAM``,
    ``TEXTNB_HAM`` or ``TEXTNB_UNSURE``."""
    return "TEXTNB_" + verdict.label.upper()


def spamd_report(verdict, spam_cutoff=None):
    """The REPORT text: SpamAssassin's "Content analysis details" layout, one rule line."""
    _, score, threshold = spamd_fields(verdict, spam_cutoff)
    return (f"Content analysis details:   ({score} points, {threshold} required)\r\n\r\n"
            " pts rule name              description\r\n"
            "---- ---------------------- --------------------------------------------------\r\n"
            f"{score:>4} {spamd_symbol(verdict):<22} textnb naive Bayes: {verdict.label}, "
            f"P(spam) {verdict.score:.6g}, log-odds {score_text(verdict)}\r\n")
