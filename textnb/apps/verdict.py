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

**Memory.** A served :class:`LiteScorer` holds one weight per token of the model (three
for Fisher's method), built when the model is loaded; the traffic adds nothing to it.
"""

import threading
import weakref

from textnb.apps.filtering import EXIT_CODES, SPAM, SpamFilter, add_headers, is_spam_model
from textnb.apps.protocol import SPAMD_THRESHOLD, spamd_score, spamd_score_text
from textnb.apps.spamlite import DEFAULT_SPAM_CUTOFF, LiteFilter, logit, score_text
from textnb.core.errors import InputError
from textnb.io.mailread import refuse_empty_message

__all__ = ["message_verdict", "classify_mail", "spamd_fields", "spamd_report", "spamd_symbol", "is_spam_model"]

_LITE = weakref.WeakKeyDictionary()
_LITE_LOCK = threading.Lock()
_NONE = object()


def _lite_scorer(model):
    """The :class:`LiteScorer` of ``model`` when it is a spam model of the default kinds (a
    multinomial or Fisher ``SpamScorer`` of classes ham and spam: its
    :meth:`~textnb.apps.spamscore.SpamScorer.lite_scorer`, the weights its compact form
    holds), else None; built once per loaded model object (held while the model is)."""
    with _LITE_LOCK:
        try:
            scorer = _LITE.get(model, _NONE)
        except TypeError:  # not weak-referenceable: no cache, the full path
            return None
        if scorer is not _NONE:
            return scorer
        scorer = None
        if callable(getattr(model, "lite_scorer", None)) and hasattr(model, "classes_"):
            try:
                scorer = model.lite_scorer()
            except InputError:  # parameters the model refuses: the full path says so
                scorer = None
        _LITE[model] = scorer
        return scorer


def _kwargs(spam_cutoff, ham_cutoff, max_bytes):
    kwargs = {"spam_cutoff": spam_cutoff, "ham_cutoff": ham_cutoff, "max_bytes": max_bytes}
    return {k: v for k, v in kwargs.items() if v is not None}


def message_verdict(model, data, *, spam_cutoff=None, ham_cutoff=None, max_bytes=None, source=None):
    """The :class:`~textnb.apps.spamlite.Verdict` of one raw message (bytes), exactly as the
    cold ``spamfilter`` gives it (the same defaults for what is None).

    Raises InputError for an empty message (:func:`textnb.io.mailread.is_empty_message`:
    white space only, or only mbox From lines; ``"SOURCE: empty message"``, ``source``
    naming it where the request holds several), ModelFileError for a model that is not
    a spam model or that gives NaN.
    """
    kwargs = _kwargs(spam_cutoff, ham_cutoff, max_bytes)
    sf = SpamFilter(model, source="the served model", **kwargs)  # checks the model and the cut-offs
    refuse_empty_message(source or None, data)
    lite = _lite_scorer(model)
    verdict = LiteFilter(lite, **kwargs).classify([data])[0] if lite is not None else None
    if verdict is None or verdict.log_odds != verdict.log_odds:  # NaN: the numpy path says why
        verdict = sf.classify([data])[0]
    return verdict


def classify_mail(model, data, *, spam_cutoff=None, ham_cutoff=None, max_bytes=None, headers=False, source=None):
    """``(exit_code, verdict, head)`` for one raw message: ``head`` is ``data`` with the
    verdict headers added when ``headers`` (else b""), where ``spamfilter -p`` adds them
    (:func:`~textnb.apps.spamlite.add_headers`: within the first ``max_bytes``)."""
    verdict = message_verdict(model, data, spam_cutoff=spam_cutoff, ham_cutoff=ham_cutoff, max_bytes=max_bytes,
                              source=source)
    return EXIT_CODES[verdict.label], verdict, (add_headers(data, verdict, max_bytes) if headers else b"")


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
