"""``textnb serve``: a text model loaded once, answering over a Unix socket, HTTP and spamd.

A mail filter that starts Python, imports numpy and reads a model for every message
pays for all of it per message; the daemon pays once. :class:`Server` loads a model
file (any textnb text model: :class:`~textnb.TextClassifier` and the other models
that classify strings; a table model is refused) and answers until it is stopped
(``textnb serve`` stops on SIGTERM or SIGINT: in-flight requests are finished,
connections waiting for a request are closed, the socket files are removed; SIGHUP
reads the model files again and goes on; a signal the caller ignores stays ignored). Every transport answers a message with the
one verdict of :func:`textnb.apps.verdict.message_verdict`; the wire formats are
:mod:`textnb.apps.protocol`'s; SpamAssassin's spamd protocol is :mod:`textnb.apps.spamd`
(``spamd=``, ``textnb serve --spamd``).

**Unix socket** (``socket_path``; created mode ``0600`` unless ``socket_mode`` says
otherwise, e.g. ``0660`` for a mail system's group). One request per line, the body
length-prefixed; a connection may carry several requests:

* ``SPAM <n> [spam_cutoff=<p>] [ham_cutoff=<p>] [max_bytes=<n>] [headers=1]`` (words
  separated by ASCII white space, as the clients write them) then ``n`` raw message bytes: the spam verdict of the message, exactly as the cold
  ``spamfilter`` computes it (:class:`textnb.apps.filtering.SpamFilter`, the same defaults).
  Reply ``OK <exit code> <label> <score> <log-odds> <m>`` then ``m`` bytes: with
  ``headers=1`` the message with its ``X-TextNB-*`` headers added
  (:func:`textnb.apps.filtering.add_headers`), else nothing (``m`` = 0). The client is
  :mod:`textnb.apps.spamclient` (``spamfilter --socket PATH``).
* ``CLASSIFY <n>`` then ``n`` bytes of JSON, as for HTTP below; reply ``OK <m>`` then
  ``m`` bytes of JSON.
* ``PING``: reply ``OK textnb``.
* Any error: reply ``ERR <one line>``; a malformed line or a body over the limit also
  closes the connection (the rest of it cannot be trusted). The daemon goes on.

**HTTP** (``http=(host, port)``; ``textnb serve --http PORT`` binds 127.0.0.1): ``POST
/classify`` with ``{"texts": [...]}`` answers ``{"classes": [...], "labels": [...],
"probabilities": [[...], ...], "log_odds": [[...], ...]}`` (one row per text, one
column per class; log-odds ``log P(c|x) - log P(not c|x)`` keep their resolution
where probabilities round to 0 or 1); each text is cut at the model's ``--max-bytes``
(UTF-8 bytes) as ``predict --lines`` and training cut a line, and read as ``predict --lines``
reads it (:func:`textnb.io.fasttext.line_texts`: the words of the model's fastText label prefix
left out, as labels; for a spam model, a header-less message as spamfilter reads one:
:func:`textnb.apps.filtering.as_messages`). With ``"mail": true`` each text is a raw
message (read as ``topicfilter --mail`` reads its file, :func:`textnb.apps.filtering.mail_features`:
the first ``textnb.io.mail.DEFAULT_MAX_BYTES`` bytes parsed as mail for a model that is not a spam model,
what spamfilter feeds a spam model) and, for a spam model, ``"verdicts"`` is
added (``spam_cutoff`` / ``ham_cutoff`` may be given: the verdict's label, ``spam``, ``ham``
or ``unsure``, is what a mail client reads) and each message's row is its verdict's (one
score per message: the spam class's P(spam) and log-odds; the other classes share the rest
as the model shares it; ``"labels"`` the row's most probable class, no cut-off). A request
of no texts is answered with the keys of
any other answer of that request, each list empty. ``"top": K`` and / or ``"threshold": P``
rank each text's labels as ``textnb predict --top K --threshold P`` does
(:func:`textnb.evaluation.topk.best_labels_of_rows`, the same checks: K from 1 to 10^6 or -1
for every label, P from 0 to 1; only K: the K most probable, only P: every label of
probability >= P): ``"labels"`` is then one list per text, most probable first (refused with
``"mail": true`` on a spam model, whose messages get one verdict each).

A **multi-label model** (``textnb train`` on a corpus of label sets) is answered as ``textnb
predict`` answers it: ``"labels"`` is one list per text, the labels its decision rule assigns
(:func:`textnb.meta.labelsets.assigned_labels`, most probable first; a PCut model decides over
the request's texts, as predict over its input) or, with ``"top"`` / ``"threshold"``, those
ranked; ``"probabilities"`` and ``"log_odds"`` are each label's own
(:func:`textnb.meta.labelsets.label_probabilities` of the log-odds: the floats ``predict
--proba`` prints; the default ``--method copy`` model's are shares of one distribution). ``GET
/model`` says ``"multilabel": true`` for it. The socket's ``SPAM`` request and spamd answer one
verdict per message and refuse such a model (``CLASSIFY`` answers it as HTTP does).
``GET /model`` describes the served model. Errors: ``{"error": "..."}`` with status 400 (bad request), 404, 405,
411 (no Content-Length), 413 (over ``max_request``).

**Limits.** A request body is at most ``max_request`` bytes (default 16 MiB); at most
``max_clients`` connections are served at once (more wait to be accepted); a whole
request must arrive within ``timeout`` seconds of its first byte (a deadline, not a limit
per read: :class:`textnb.apps.spamd.RequestDeadline`), else it is answered ``ERR timeout:
...`` (HTTP: 408) and the connection closed, and a connection idle for ``timeout``
seconds between requests is closed; a ``CLASSIFY`` / ``/classify``
request holds at most ``max_texts`` texts and ``max_tokens`` words in all (a body of more strings or
other values than that allows is refused before it is parsed: :func:`_json`). The served
default model caches token weights for known tokens only (bounded by its vocabulary).
So memory is bounded by the configuration (``scripts/serve_load.py``). The model is
read-only, so requests run in threads without locks.

**Reloading.** Before each request the model file is ``stat``-ed (one system call);
when its device, inode, size or modification time changed (a registration by another
process replaces it with :func:`os.replace`), it is loaded again, whole and checked,
and only then swapped in. A file that does not load (truncated, not a model, written
in place by a foreign tool; with ``spamd``, a model that is not a spam model, as at
start) is not served: the old model stays, the error is logged and is ``GET /model``'s
``last_error``; the file is tried again when it changes again. A file that is gone is
reported so (once, and at every SIGHUP); the loaded model goes on being served.
"""

import errno
import http.server
import json
import os
import re
import selectors
import signal
import socket
import socketserver
import stat
import sys
import tempfile
import threading
import time

from textnb.io import mail
from textnb.io.corpus import model_max_bytes
from textnb.io.fasttext import line_texts, stored_label_prefix
from textnb.io.files import MAX_BYTES_CAP, file_identity
from textnb.core.errors import InputError, ModelFileError, TextnbError, json_values, lone_surrogate, missing_reason, not_text
from textnb.core.wrapping import reads_documents
from textnb.apps import protocol
from textnb.apps.spamd import (DEFAULT_MAX_USER_BYTES, DEFAULT_MAX_USERS, DeadlineReading, SpamdHandler,
                               StreamHandler, UserModels, parse_address, shown_address, shown_user)
from textnb.apps.spamlite import DEFAULT_HAM_CUTOFF, DEFAULT_SPAM_CUTOFF, check_cutoffs
from textnb.apps.filtering import as_messages, mail_features, takes_messages
from textnb.apps.verdict import classify_mail, is_spam_model, message_verdict
from textnb.text.scorer import load_for_prediction
from textnb.meta.labelsets import assigned_labels, label_log_odds, label_probabilities, multilabel_model
from textnb.evaluation.topk import MAX_K, best_labels_of_rows, check_threshold, check_top, label_names, proba_and_odds

__all__ = ["DEFAULT_MAX_REQUEST", "DEFAULT_MAX_CLIENTS", "DEFAULT_TIMEOUT", "DEFAULT_MAX_TEXTS", "DEFAULT_MAX_TOKENS",
           "MAX_SOCKET_PATH", "ModelHolder", "Server", "classify_texts", "classify_mail", "run"]

DEFAULT_MAX_REQUEST = 16 * 1024 * 1024
DEFAULT_MAX_CLIENTS = 32
DEFAULT_TIMEOUT = 30.0
_MAX_LINE = protocol.MAX_LINE
_MAX_DRAIN = 256 * 1024 * 1024


def _load_text_model(path):
    """Load ``path`` as ``textnb predict`` does (:func:`textnb.text.scorer.load_for_prediction`:
    the linear scorer of a text model, else a kernel or the estimator) and check that the
    model classifies texts: a table model (which has ``predict_proba`` too) is refused, at
    start and when swapped in at the served path."""
    model = load_for_prediction(path)
    if multilabel_model(model) is not None:  # a text model of label sets: answered as predict answers it
        return model
    if getattr(model, "multilabel_", False):  # (a MultiLabelNB saved alone: it scores count rows)
        raise ModelFileError(f"{path}: not a classifier of texts (a multi-label {type(model).__name__} of count "
                             "rows, without its vectorizer)")
    if not (hasattr(model, "predict_proba") and hasattr(model, "classes_")):
        raise ModelFileError(f"{path}: not a classifier of texts ({type(model).__name__})")
    if reads_documents(model):
        return model
    try:
        tags = model.__sklearn_tags__()
        takes_text = bool(tags.input_tags.string)
    except Exception:  # not a scikit-learn estimator: ask the model itself
        takes_text = None
    if takes_text is None or not takes_text:
        try:
            model.predict_proba(["textnb serve probe"])
            takes_text = True
        except Exception:
            takes_text = False
    if not takes_text:
        raise ModelFileError(f"{path}: not a classifier of texts ({type(model).__name__} classifies table rows)")
    return model


def _load_spam_model(path):
    """:func:`_load_text_model`, and a spam model (classes ``ham`` and ``spam``), as
    ``--spamd`` needs: at start and when a file replaces the served one."""
    model = _load_text_model(path)
    if multilabel_model(model) is not None:
        raise ModelFileError(f"{path}: --spamd needs a spam model (classes 'ham' and 'spam'); this one is "
                             "multi-label (a set of labels per text, where spamd answers one verdict per message)")
    if not is_spam_model(model):
        classes = label_names(model)
        raise ModelFileError(f"{path}: --spamd needs a spam model (classes 'ham' and 'spam'); "
                             f"this one has {classes}")
    return model


class ModelHolder:
    """The served model, reloaded when its file is replaced (see the module docstring).

    Parameters
    ----------
    path : path
        The model file (a symbolic link is followed at every check).
    loader : callable, optional
        ``loader(path) -> model``; raises :class:`~textnb.TextnbError` for a bad file.
    log : callable, optional
        Called with one line when the model is reloaded or a reload fails.
    """

    def __init__(self, path, *, loader=None, log=None):
        self.path = os.fspath(path)
        self._loader = loader or _load_text_model
        self._log = log or (lambda message: None)
        self._lock = threading.Lock()
        self.reloads = 0
        self.last_error = None
        key = self._key_now()
        if key is None:
            raise ModelFileError(f"{self.path}: {missing_reason(self.path, 'model file')}")
        self._model = self._loader(self.path)
        self._key = self._served = key  # the file last looked at, the file being served
        self.loaded_at = time.time()

    def _key_now(self):
        return file_identity(self.path)

    def get(self, *, force=False):
        """The current model: the file is reloaded first if it was replaced (or ``force``).

        A file that is gone leaves the loaded model served; that is logged and kept in
        :attr:`last_error` the first time it is seen (and at every ``force``)."""
        key = self._key_now()
        if key is None:  # gone: keep serving, and say so once (and at every SIGHUP)
            if force or self._key is not None:
                with self._lock:
                    if force or self._key is not None:
                        self._key = None  # noticed: a file there again is loaded
                        loaded = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.loaded_at))
                        self.last_error = (f"{self.path}: {missing_reason(self.path, 'model file')}; "
                                           f"still serving the model loaded at {loaded}")
                        self._log(self.last_error)
            return self._model
        if key == self._key and not force:  # unchanged: keep serving
            return self._model
        with self._lock:
            if key != self._key or force:
                self._key = key  # a file that fails is retried only when it changes again
                try:
                    model = self._loader(self.path)
                except (TextnbError, OSError, MemoryError) as exc:
                    self.last_error = protocol.failure_text(exc, self.path)
                    self._log(f"{self.path}: not reloaded, still serving the previous model ({self.last_error})")
                else:
                    self._model, self.loaded_at, self._served = model, time.time(), key
                    self.reloads += 1
                    self.last_error = None
                    self._log(f"{self.path}: reloaded")
            return self._model


    def open_served(self):
        """The model file being served, open for reading (a replaced file is loaded first);
        an OSError naming it when the file there is not the one served (a replacement that
        failed to load, or none): what is copied from it must be what answers."""
        self.get()
        f = open(self.path, "rb")
        st = os.fstat(f.fileno())
        if file_identity(self.path, st) != self._served:
            f.close()
            why = f"it failed to load: {self.last_error}" if self.last_error else "it changed"
            raise OSError(errno.ESTALE, f"not the model being served ({why})", self.path)
        return f


# -- the work, independent of the transport --------------------------------------------
def _rows(matrix):
    return [[float(v) for v in row] for row in matrix]  # (strict JSON at the reply: core.errors.json_values)


#: Texts in one ``/classify`` or ``CLASSIFY`` request (``Server(max_texts=...)``, ``--max-texts``).
DEFAULT_MAX_TEXTS = 10_000
#: Word runs (``\\w+``, an upper bound of what a tokenizer makes of them) in all texts of one request.
DEFAULT_MAX_TOKENS = 2_000_000
_WORD_RUN = re.compile(r"\w+")


def _count_words(texts, limit):
    """Word runs in ``texts``, counted up to just over ``limit`` (constant memory)."""
    n = 0
    for t in texts:
        for _ in _WORD_RUN.finditer(t):
            n += 1
            if n > limit:
                return n
    return n


def _message_bytes(texts):
    """The raw messages of ``"mail": true`` texts: UTF-8, a message's bytes that are not
    UTF-8 sent as ``\\udc80``-``\\udcff`` (surrogateescape). Any other lone surrogate is
    no character and no byte: an InputError naming the text."""
    out = []
    for i, t in enumerate(texts):
        try:
            out.append(t.encode("utf-8", "surrogateescape"))
        except UnicodeEncodeError as exc:
            raise InputError(f"texts[{i}]: {not_text(t, exc.start)} (a message's bytes that are not UTF-8 are sent "
                             "as \\udc80-\\udcff)") from None
    return out


def _plain_texts(texts):
    """``texts``, plain texts (not messages), each checked to be text: a lone surrogate
    (:func:`~textnb.core.errors.lone_surrogate`) is an InputError naming the text, the rule
    of every reader (a JSON Lines row holding one is refused so; *was*: scored here, less the
    surrogate, and refused only in a message)."""
    for i, t in enumerate(texts):
        at = lone_surrogate(t)
        if at is not None:
            raise InputError(f"texts[{i}]: {not_text(t, at)}")
    return texts


def classify_texts(model, request, *, max_texts=DEFAULT_MAX_TEXTS, max_tokens=DEFAULT_MAX_TOKENS):
    """Answer a ``/classify`` request (a dict) with a JSON-ready dict; InputError if malformed
    or over ``max_texts`` texts / ``max_tokens`` word runs.

    A multi-label model's ``"labels"`` are a list per text (its decision rule's labels, most
    probable first), its ``"probabilities"`` / ``"log_odds"`` each label's own, the numbers
    ``textnb predict`` prints for it; ``"top"`` / ``"threshold"`` rank any model's labels as
    ``predict --top`` / ``--threshold`` does (``"labels"`` then a list per text).

    With ``"mail": true`` and a spam model, every message gets one verdict
    (:func:`textnb.apps.verdict.message_verdict`, the cold ``spamfilter``'s) and its row of
    ``probabilities`` / ``log_odds`` and its ``labels`` entry are that verdict's (P(spam),
    the spam log-odds, the other classes sharing the rest as the model shares it; the label
    is the most probable class of that row, :func:`_verdict_rows`), so one message has one score;
    ``"spam_cutoff"`` / ``"ham_cutoff"`` set that verdict's cut-offs, as the socket's ``SPAM``
    options do, and are refused (InputError) where no verdict is made (without ``"mail":
    true``, or for a model that is not a spam model); their order (the ham cut-off not above the
    spam one, the other at its default when one is given) is checked before any message, so
    a request of no texts is refused as the socket's ``SPAM`` refuses it. An empty message
    (:func:`textnb.io.mailread.is_empty_message`) is refused with ``"mail": true``.
    """
    if not isinstance(request, dict):
        raise InputError('the request must be a JSON object {"texts": [...]}')
    texts = request.get("texts")
    if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
        raise InputError('"texts" must be a list of strings')
    unknown = sorted(set(request) - {"texts", "mail", "spam_cutoff", "ham_cutoff", "top", "threshold"})
    if unknown:
        raise InputError(f"unknown request field(s): {', '.join(unknown)}")
    top = _top(request["top"]) if "top" in request else None
    threshold = _threshold(request["threshold"]) if "threshold" in request else None
    ranked = top is not None or threshold is not None
    as_mail = request.get("mail", False)
    if not isinstance(as_mail, bool):
        raise InputError('"mail" must be true or false')
    if max_texts is not None and len(texts) > max_texts:
        raise InputError(f"{len(texts)} texts in one request is over the limit of {max_texts} "
                         "(textnb serve --max-texts)")
    if max_tokens is not None and _count_words(texts, max_tokens) > max_tokens:
        raise InputError(f"the texts hold over {max_tokens} words in all, over the limit "
                         "(textnb serve --max-tokens)")
    multi = multilabel_model(model)  # (a model of label sets: its labels and scores, as textnb predict's)
    spam = as_mail and multi is None and is_spam_model(model)
    if ranked and spam:
        raise InputError('"top" and "threshold" rank the labels of each text; with "mail": true a spam model gives '
                         'each message one verdict')
    kwargs = {k: _cutoff(request[k], k) for k in ("spam_cutoff", "ham_cutoff") if k in request}
    if kwargs and not spam:  # (they make a spam verdict: anything else would drop them without a word)
        names = " and ".join(f'"{k}"' for k in kwargs)
        verb = "apply" if len(kwargs) > 1 else "applies"
        raise InputError(f'{names} {verb} only with "mail": true (each text a message, given a verdict)'
                         if multi is None and is_spam_model(model) else
                         f"{names} {verb} only to a spam model's verdicts; the served model is not a spam "
                         "model (classes ham and spam)" + ("" if multi is None else ": it is multi-label"))
    if kwargs:  # their order too, before any message is read (as the socket's SPAM checks them first)
        check_cutoffs(kwargs.get("spam_cutoff", DEFAULT_SPAM_CUTOFF), kwargs.get("ham_cutoff", DEFAULT_HAM_CUTOFF))
    classes = label_names(model)  # (as textnb predict names them: the str of each class)
    # (an answer of no texts has the keys of any other: "verdicts" for a spam verdict, "log_odds" where
    # the model gives them; it had "log_odds" where no other answer did, and no "verdicts")
    out = {"classes": classes, "labels": [], "probabilities": []}
    if spam or multi is not None or hasattr(model, "predict_log_odds"):
        out["log_odds"] = []
    if spam:
        raw = _message_bytes(texts)
        verdicts = [message_verdict(model, m, source=f"texts[{i}]", **kwargs) for i, m in enumerate(raw)]
        shares = _not_spam_shares(model, raw, classes.index("spam")) if len(classes) > 2 and raw else None
        return _verdict_rows(out, classes, verdicts, shares)
    if not texts:
        return out
    if as_mail:  # each a message file as topicfilter --mail reads it (its first mail.DEFAULT_MAX_BYTES bytes):
        # filtering.mail_features, the one rule of both (a spam model's messages get their verdict above)
        raw = _message_bytes(texts)
        for i, m in enumerate(raw):
            mail.refuse_empty_message(f"texts[{i}]", m)  # (as every path refuses it: mail.is_empty_message)
        texts = [mail_features(model, m, mail.DEFAULT_MAX_BYTES) for m in raw]
    else:  # each text read as predict --lines reads a line (io.fasttext.line_texts: its fastText label words,
        # those of the model's prefix, left out; cut where the model's training cut a document), and for a
        # spamfilter model of rendered messages read as the header-less message predict --lines reads (it was
        # fed the raw text, a score no other path gave the line; and the label words, which predict drops)
        messages = takes_messages(model)
        texts = line_texts(texts if messages else _plain_texts(texts), stored_label_prefix(model), model_max_bytes(model))
        texts = as_messages(model, _message_bytes(texts) if messages else texts)  # (a lone
        # surrogate refused as with "mail": true, naming the text: found by a user trial, the codec's words)
    if multi is not None:  # each label's own probability; the labels of the decision rule, or ranked
        lo = label_log_odds(model, texts)
        proba = label_probabilities(lo)
        chosen = (best_labels_of_rows(proba, lo, top, threshold) if ranked
                  else assigned_labels(lo, multi.decision_from_log_odds(lo)))
        out["labels"] = [[classes[int(k)] for k in row] for row in chosen]
        out["probabilities"], out["log_odds"] = _rows(proba), _rows(lo)
        return out
    if ranked:  # a single-label model's labels ranked as textnb predict --top / --threshold ranks them
        proba, odds = proba_and_odds(model, texts)
        out["labels"] = [[classes[int(k)] for k in row] for row in best_labels_of_rows(proba, odds, top, threshold)]
        out["probabilities"] = _rows(proba)
        if "log_odds" in out:
            out["log_odds"] = _rows(odds)
        return out
    proba = model.predict_proba(texts)
    out["probabilities"] = _rows(proba)
    out["labels"] = [classes[int(i)] for i in proba.argmax(axis=1)]
    if "log_odds" in out:
        out["log_odds"] = _rows(model.predict_log_odds(texts))
    return out


def _top(value):
    """A request's ``"top"``: ``textnb predict --top``'s rule (:func:`textnb.evaluation.topk.check_top`:
    a whole number from 1 to 10^6, or -1 for every label), given as a JSON number."""
    try:
        return check_top(value)
    except ValueError:
        raise InputError(f'"top" must be a whole number >= 1 and <= {MAX_K}, or -1 for every label; '
                         f"got {value!r}") from None


def _threshold(value):
    """A request's ``"threshold"``: ``textnb predict --threshold``'s rule
    (:func:`textnb.evaluation.topk.check_threshold`: a probability from 0 to 1), given as a JSON number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f'"threshold" must be a number >= 0 and <= 1; got {value!r}')
    try:
        return check_threshold(value)
    except ValueError:
        raise InputError(f'"threshold" must be a number >= 0 and <= 1; got {value!r}') from None


def _not_spam_shares(model, raw, spam):
    """Each class but spam's share of P(not spam) for the messages ``raw`` of a spam model of
    more than two classes, in log space: ``log P(c | x) - log P(not spam | x)`` by the model's
    own probabilities of what its verdicts read of them
    (:func:`~textnb.apps.filtering.mail_features`), one row per message, the classes in order
    without spam (a share that rounds to 0 keeps its resolution). (A message the model gives
    no P(not spam) at all, shares of nothing: even.)"""
    import numpy as np

    from textnb.core.logspace import log_proba_from_jll

    logp = np.asarray(model.predict_log_proba([mail_features(model, m) for m in raw]), dtype=np.float64)
    shares = log_proba_from_jll(np.delete(logp, spam, axis=1))
    nothing = np.isnan(shares).any(axis=1, keepdims=True)  # (a row of only -inf: NaN)
    return np.where(nothing, -np.log(shares.shape[1]), shares)


def _verdict_rows(out, classes, verdicts, log_shares=None):
    """Fill ``out`` from one verdict per message: the spam class gets P(spam) and the spam
    log-odds, the verdict's; the other class of a two-class model the rest, and those of a
    model of more classes the rest shared as the model shares it (``log_shares``:
    :func:`_not_spam_shares`). The other classes' numbers are computed in log space from the
    verdict's log-odds ``l``: ``log P(not spam) = -log(1 + e^l)``, so where P(spam) rounds to
    1 they keep their resolution, as the log-odds of ``textnb predict`` and of a request
    without ``"mail"`` do (their log-odds: log P(c) - log P(not c),
    :func:`textnb.core.logspace.log_odds`). ``labels`` is the class of highest probability
    of that row (of two classes: spam when the log-odds is above 0), never a cut-off's."""
    import numpy as np

    from textnb.core.logspace import expit, log_odds

    spam = classes.index("spam")
    for i, v in enumerate(verdicts):
        p, lo = float(v.score), float(v.log_odds)
        if len(classes) == 2:
            probs = [p if j == spam else float(expit(-lo)) for j in range(2)]
            los = [lo if j == spam else -lo for j in range(2)]
            best = spam if lo > 0 else 1 - spam
        else:
            shares = np.zeros(len(classes) - 1) if log_shares is None else log_shares[i]
            # log P(c | x) of each class: the verdict's split of spam / not spam, the model's of the rest
            logp = np.insert(-np.logaddexp(0.0, lo) + shares, spam, -np.logaddexp(0.0, -lo))
            probs = [p if j == spam else float(q) for j, q in enumerate(np.exp(logp))]
            los = [lo if j == spam else float(q) for j, q in enumerate(log_odds(logp[None, :])[0])]
            best = max(range(len(classes)), key=probs.__getitem__)  # (the first of equals, as predict's argmax)
        out["probabilities"].append(probs)
        out["log_odds"].append(los)
        out["labels"].append(out["classes"][best])
    out["verdicts"] = [{"label": v.label, "score": float(v.score), "log_odds": float(v.log_odds)}
                       for v in verdicts]
    return out


def _cutoff(value, name):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
        raise InputError(f"{name} must be a probability between 0 and 1; got {value!r}")
    return float(value)


# -- Unix socket ---------------------------------------------------------------------
class _Bounded:
    """socketserver mix-in: a thread per connection, at most ``max_clients`` at once over
    all the server's listeners."""

    daemon_threads = False
    block_on_close = True  # server_close() waits for in-flight requests
    request_queue_size = 128  # listen backlog: clients beyond max_clients wait here

    def _init_bounded(self, owner):
        self.owner = owner
        self._slots = owner._slots  # one cap over every listener
        # a non-blocking listener: when a connection the poll reported is gone by the time
        # it is accepted, accept() raises (socketserver skips it) instead of blocking the
        # serving thread, and with it stop(), until the next client comes
        self.socket.setblocking(False)
        self._wake = socket.socketpair()  # shutdown() writes a byte: the poll returns at once
        self._wake[0].setblocking(False)
        self._stop_asked = False
        self._loop_done = threading.Event()

    def serve_forever(self, poll_interval=0.5):
        """socketserver's loop, which shutdown() ends at once (a byte on the wake socket
        pair ends the poll) instead of at the poll's next timeout."""
        self._loop_done.clear()
        try:
            with _Selector() as selector:
                selector.register(self, selectors.EVENT_READ)
                selector.register(self._wake[0], selectors.EVENT_READ)
                while not self._stop_asked:
                    ready = selector.select(poll_interval)
                    if self._stop_asked:
                        break
                    if any(key.fileobj is self for key, _ in ready):
                        self._handle_request_noblock()
                    if any(key.fileobj is self._wake[0] for key, _ in ready):
                        try:
                            self._wake[0].recv(64)
                        except OSError:
                            pass
                    self.service_actions()
        finally:
            self._stop_asked = False
            self._loop_done.set()

    def shutdown(self):
        """End serve_forever() (running in another thread) and wait until it has."""
        self._stop_asked = True
        try:
            self._wake[1].send(b"\0")
        except OSError:
            pass
        self._loop_done.wait()

    def server_close(self):
        super().server_close()
        for s in getattr(self, "_wake", ()):
            s.close()

    def get_request(self):
        request, address = self.socket.accept()
        request.setblocking(True)  # the connection itself is read and written blocking
        return request, address

    def process_request(self, request, client_address):
        while not self._slots.acquire(timeout=0.2):
            if self.owner.stopping:
                self.shutdown_request(request)
                return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request, client_address):
        self.owner._track(request, True)
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.owner._track(request, False)
            self._slots.release()

    def handle_error(self, request, client_address):  # one line, never a traceback
        exc = sys.exc_info()[1]
        self.owner.log(f"client error: {type(exc).__name__}: {exc}")


_Selector = getattr(selectors, "PollSelector", selectors.SelectSelector)  # (socketserver's choice)


class _UnixServer(_Bounded, socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    pass


class _TCPServer(_Bounded, socketserver.ThreadingMixIn, socketserver.TCPServer):
    allow_reuse_address = True


class _HTTPServer(_Bounded, socketserver.ThreadingMixIn, http.server.HTTPServer):
    pass


class _Reply(Exception):
    """Reply ERR and close the connection."""


def _options(words):
    opts = {}
    for word in words:
        key, eq, value = word.partition("=")
        if not eq:
            raise InputError(f"malformed option {word!r} (expected key=value)")
        if key in opts:  # (the command line refuses a flag given twice with two values no more than this)
            raise InputError(f"option {key} given twice")
        try:
            if key in ("spam_cutoff", "ham_cutoff"):
                opts[key] = _cutoff(float(value), key)
            elif key == "max_bytes":
                opts[key] = protocol.parse_length(value)  # (ASCII digits, as every byte count)
                if not opts[key] or opts[key] > MAX_BYTES_CAP:  # (spamfilter --max-bytes's bounds: 1 to 4G)
                    raise ValueError
            elif key == "headers":
                if value not in ("0", "1"):  # (headers=yes read as off, without a word)
                    raise ValueError
                opts[key] = value == "1"
            else:
                raise InputError(f"unknown option {key!r}")
        except InputError:
            raise
        except ValueError:
            raise InputError(f"bad value for {key}: {value!r}") from None
    return opts


class _MailHandler(StreamHandler):
    """The daemon's own protocol (``spamfilter --socket``): requests until the client ends."""

    at_first_byte = True  # (several requests per connection: each its own deadline)

    def handle(self):
        owner = self.server.owner
        try:
            while not owner.stopping:
                self.reader.start(at_first_byte=True)
                line = self.rfile.readline(_MAX_LINE + 1)
                if not line:
                    return
                try:
                    if not line.endswith(b"\n"):
                        raise _Reply(f"request line over {_MAX_LINE} bytes or unterminated")
                    # words cut at ASCII white space, as the clients write and read them (bytes.split);
                    # str.split also cut at 0x1C-0x1F ('SPAM\x1c5' was SPAM 5)
                    self._answer(owner, [word.decode("ascii", "replace") for word in line.split()])
                except _Reply as exc:
                    self._send(protocol.error_reply(exc))
                    self._drain(min(owner.timeout, 10.0), _MAX_DRAIN)
                    return
        except TimeoutError:
            if self.reader.started:  # a request begun and not all there by its deadline
                try:
                    self._send(protocol.error_reply(_timeout_text(owner)))
                except OSError:
                    pass
            return
        except OSError:  # the client went away
            return

    def _body(self, owner, words):
        n = protocol.parse_length(words[1]) if len(words) > 1 else None
        if n is None:
            raise _Reply(f"{words[0]}: expected a byte count")
        if n > owner.max_request:
            raise _Reply(f"request of {n} bytes is over the limit of {owner.max_request} bytes "
                         "(textnb serve --max-request)")
        body = self.rfile.read(n)
        if len(body) < n:  # (a client that half-closed its side still reads the answer: ERR, as spamd's
            # Content-length mismatch; one gone altogether gets nothing, the send failing quietly)
            raise _Reply(f"{words[0]}: the request ended after {len(body)} of its {n} bytes")
        return n, body

    def _answer(self, owner, words):
        if not words:
            raise _Reply("empty request line")
        command = words[0]
        if command == "PING":
            self._send(b"OK textnb\n")
            return
        if command not in ("SPAM", "CLASSIFY"):
            raise _Reply(f"unknown request {command[:40]!r} (SPAM, CLASSIFY or PING)")
        _, body = self._body(owner, words)
        try:
            model = owner.holder.get()
            if command == "SPAM":
                if multilabel_model(model) is not None:  # (the reply has room for one label, not a set)
                    raise InputError("the served model is multi-label: SPAM's reply holds one verdict, not a set of "
                                     "labels (send CLASSIFY, or POST /classify over HTTP)")
                # (the client read the message from its stdin, and prints this error)
                code, v, head = classify_mail(model, body, source="stdin", **_options(words[2:]))
                self._send(protocol.spam_reply(code, v, head))
            else:
                reply = json.dumps(json_values(classify_texts(model, _json(body, owner), max_texts=owner.max_texts,
                                                                  max_tokens=owner.max_tokens)),
                                   allow_nan=False).encode()
                self._send(f"OK {len(reply)}\n".encode() + reply)
        except (TextnbError, ValueError) as exc:
            self._send(protocol.error_reply(exc))
        except MemoryError:
            self._send(protocol.error_reply("out of memory"))
        except OSError:
            raise
        except Exception as exc:  # a bad request never takes the daemon down
            self._send(protocol.error_reply(f"internal error: {type(exc).__name__}: {exc}"))


def _timeout_text(owner):
    return f"timeout: the request did not arrive within {owner.timeout:g} seconds (textnb serve --timeout)"


def _json(body, owner=None):
    """The request's JSON; a body holding more strings, or more values of any kind, than
    ``owner.max_texts`` allows is refused before it is parsed (parsing it would cost far
    more memory than its size: a 16 MiB body of empty lists, ``[[],[],...]``, was 400 MiB
    of lists before its answer ``"texts" must be a list of strings``).

    Its strings are counted by their quotes less the escaped ones (``\\"``, a quote inside a
    text: a text quoting a dialogue, an HTML mail's attributes, was refused as ``over N
    strings``); a quote after an escaped backslash (``"a\\\\"``) is counted out too, so at
    most twice the limit are parsed (the limit itself is checked on the parsed texts). Its
    other values by the bytes outside the strings that open a container or follow a value
    (``[``, ``{``, ``,``: every value but the first of a container follows a comma), at most
    the limit and a few fields (a request's other fields). So what is parsed is of the order
    of the body's size, and so is this count (a few copies of the body, each freed in turn)."""
    limit = None if owner is None else owner.max_texts
    if limit is not None and body.count(b'"') - body.count(b'\\"') > 2 * limit + 16:
        raise InputError(f"over {limit} strings in one request (textnb serve --max-texts)")
    if limit is not None:
        # without its escapes (backslash pairs first, then escaped quotes: in valid JSON a backslash
        # is an escape's), a body's quotes open and close its strings: every other part is outside them
        outside = body.replace(b"\\\\", b"").replace(b'\\"', b"").split(b'"')[::2]
        if sum(p.count(b",") + p.count(b"[") + p.count(b"{") for p in outside) > limit + 16:
            raise InputError(f"over {limit} values in one request (textnb serve --max-texts)")
        del outside
    try:
        return json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"the request is not valid JSON ({exc})") from None
    except RecursionError:
        raise InputError("the request is not valid JSON (nested too deeply)") from None


# -- HTTP -----------------------------------------------------------------------------
class _HTTPHandler(DeadlineReading, http.server.BaseHTTPRequestHandler):
    server_version = "textnb-serve"
    protocol_version = "HTTP/1.1"
    at_first_byte = True  # (keep-alive: each request its own deadline)

    def handle_one_request(self):
        """One request, which must all arrive by its deadline (:class:`DeadlineReading`):
        one that has begun and is not all there gets 408 and the connection is closed (an
        idle connection is closed without a word, as the standard library closes it)."""
        self.reader.start(at_first_byte=True)
        self.request_version, self.requestline = self.default_request_version, ""  # (until one is read)
        super().handle_one_request()  # (which ends the connection on a timeout)
        if self.reader.timed_out and self.reader.started:
            try:
                self.send_error(408, _timeout_text(self.server.owner))
            except OSError:
                pass

    def log_message(self, format, *args):  # noqa: A002 - the stdlib's name
        pass

    def _reply(self, status, obj, close=False):
        data = json.dumps(json_values(obj), allow_nan=False).encode()  # (a class name that is not UTF-8: \xNN; +-inf)
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(data)
        if close and status != 408:  # (the request's body is unread; a client too slow gets no more time)
            self._drain(min(self.server.owner.timeout, 10.0), _MAX_DRAIN)

    def send_error(self, code, message=None, explain=None):
        """Errors the standard library answers itself (a request line it cannot parse,
        501 for a method this server has no ``do_`` for, 414, 431) as JSON too, as every
        other reply of this endpoint (its HTML page before)."""
        if getattr(self, "request_version", None) == "HTTP/0.9":  # a request line it could not read
            self.request_version = "HTTP/1.0"  # (a status line and headers all the same)
        if code == 501 and getattr(self, "command", None):
            code, message = 405, f"method {self.command[:20]} not allowed: use POST /classify or GET /model"
        self._reply(code, {"error": message or http.HTTPStatus(code).phrase}, close=True)

    def _announces_body(self):
        """Whether the request says a body follows (a Content-Length other than 0, or a
        Transfer-Encoding): one this handler does not read. Its reply then closes the
        connection (after reading the body away, :meth:`_reply`): on a kept-alive
        connection the unread body was read as the next request (a GET with a body)."""
        length = self.headers.get("Content-Length")
        return self.headers.get("Transfer-Encoding") is not None or (
            length is not None and length.strip(" \t") != "0")

    def do_GET(self):
        owner = self.server.owner
        close = self._announces_body()
        if self.path == "/model":
            model = owner.holder.get()
            # the model file's kind (a scorer or kernel says which it reads), else the class
            kind = getattr(type(model), "kind", None) or type(model).__name__
            described = {"path": owner.holder.path, "kind": kind, "classes": label_names(model),
                         "loaded_at": owner.holder.loaded_at, "reloads": owner.holder.reloads,
                         "last_error": owner.holder.last_error}
            if multilabel_model(model) is not None:  # (its answers' "labels" are lists: said here too)
                described["multilabel"] = True
            self._reply(200, described, close=close)
        elif self.path == "/classify":
            self._reply(405, {"error": "use POST /classify"}, close=close)
        else:
            self._reply(404, {"error": f"no such endpoint {self.path[:100]!r} (POST /classify, GET /model)"},
                        close=close)

    def do_POST(self):
        owner = self.server.owner
        if self.path == "/model":
            self._reply(405, {"error": "use GET /model"}, close=True)
            return
        if self.path != "/classify":
            self._reply(404, {"error": f"no such endpoint {self.path[:100]!r} (POST /classify, GET /model)"},
                        close=True)
            return
        if self.headers.get("Transfer-Encoding") is not None:  # (RFC 9112 6.1: not understood, 501, and close:
            # with a Content-Length beside it, the rest of a chunked body was read as a next request)
            self._reply(501, {"error": "Transfer-Encoding is not supported: send the body with a Content-Length"},
                        close=True)
            return
        if len(self.headers.get_all("Content-Length") or ()) > 1:  # (request smuggling's way in)
            self._reply(400, {"error": "more than one Content-Length"}, close=True)
            return
        length = self.headers.get("Content-Length")
        if length is None:
            self._reply(411, {"error": "a Content-Length is required"}, close=True)
            return
        n = protocol.parse_length(length.strip(" \t"))  # (white space around a field value is no part of it)
        if n is None:
            self._reply(400, {"error": f"bad Content-Length {length[:40]!r}"}, close=True)
            return
        if n > owner.max_request:
            self._reply(413, {"error": f"request of {n} bytes is over the limit of {owner.max_request} "
                                       "bytes (textnb serve --max-request)"}, close=True)
            return
        body = self.rfile.read(n)
        if len(body) < n:  # (as the socket's and spamd's short requests are answered)
            try:
                self._reply(400, {"error": f"the request body ended after {len(body)} of its {n} bytes "
                                           "(Content-Length)"}, close=True)
            except OSError:  # (the client gone altogether)
                self.close_connection = True
            return
        try:
            self._reply(200, classify_texts(owner.holder.get(), _json(body, owner), max_texts=owner.max_texts,
                                            max_tokens=owner.max_tokens))
        except (TextnbError, ValueError) as exc:
            self._reply(400, {"error": protocol.one_line(exc)[:1000]})
        except MemoryError:
            self._reply(500, {"error": "out of memory"})
        except OSError:
            raise
        except Exception as exc:  # a bad request never takes the daemon down
            self._reply(500, {"error": f"internal error: {type(exc).__name__}: {protocol.one_line(exc)[:1000]}"})


# -- the server -----------------------------------------------------------------------
def _claim_socket_path(path):
    """Make room for a new socket at ``path``: remove a stale socket, refuse anything else."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(st.st_mode):
        raise InputError(f"{path}: exists and is not a socket; not replacing it")
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.settimeout(1.0)
        probe.connect(path)
    except (ConnectionRefusedError, FileNotFoundError):
        os.unlink(path)  # stale: nobody listens
        return
    except OSError as exc:
        raise InputError(f"{path}: cannot check the existing socket ({exc.strerror or exc})") from None
    finally:
        probe.close()
    raise InputError(f"{path}: a server is already listening there")


def is_loopback(host):
    """Whether a listening address is reachable from this machine only."""
    return host == "localhost" or host == "::1" or host.startswith("127.")


#: Longest path an AF_UNIX socket can be bound or reached at (``sun_path`` less its NUL).
MAX_SOCKET_PATH = 107


def _check_socket_path(path):
    if len(os.fsencode(path)) > MAX_SOCKET_PATH:
        raise InputError(f"{path}: socket path of {len(os.fsencode(path))} bytes is over the system's limit of "
                         f"{MAX_SOCKET_PATH} (use a shorter path)")


class Server:
    """Serve a model file over a Unix socket, HTTP and/or spamd (see the module docstring).

    Parameters
    ----------
    model_path : path
    socket_path : path, optional
        Unix socket to create (a stale socket there is replaced; any other file is not).
    http : (host, port), optional
        Address to listen on for HTTP (port 0: any free port; see :attr:`http_address`).
    spamd : str or (host, port), optional
        Where to speak SpamAssassin's spamd protocol (:mod:`textnb.apps.spamd`): a Unix
        socket path, or a TCP address (port 0: any free port; see :attr:`spamd_address`).
    socket_mode : int
        Permissions of the socket files (default ``0o600``: only their owner may connect).
    max_request, max_clients, timeout : see the module docstring.
    max_texts, max_tokens : int
        Per-request limits of ``CLASSIFY`` / ``POST /classify`` (texts; word runs in all texts).
    user_models : str, optional
        ``DIR/%u.tnb``: per-user models for spamd requests (:class:`textnb.apps.spamd.UserModels`).
    unknown_user : {'fallback', 'refuse'}
        A spamd user without a model file: the served model, or EX_NOUSER.
    allow_tell : bool
        Let spamd clients learn (TELL), as spamd's ``--allow-tell``.
    max_users, max_user_bytes : int
        Per-user models held in memory at once, and the total size of their model files.
    log : callable, optional
        Receives one line per event (reloads, failed reloads, client errors), as
        :func:`textnb.apps.protocol.one_line` writes it.

    Use :meth:`start` and :meth:`stop` (or ``with Server(...) as s:``); :func:`run`
    serves until a signal.
    """

    def __init__(self, model_path, *, socket_path=None, http=None, spamd=None, socket_mode=0o600,
                 max_request=DEFAULT_MAX_REQUEST, max_clients=DEFAULT_MAX_CLIENTS, timeout=DEFAULT_TIMEOUT,
                 max_texts=DEFAULT_MAX_TEXTS, max_tokens=DEFAULT_MAX_TOKENS, user_models=None,
                 unknown_user="fallback", allow_tell=False, max_users=None, max_user_bytes=DEFAULT_MAX_USER_BYTES,
                 log=None):
        if socket_path is None and http is None and spamd is None:
            raise InputError("nothing to listen on: give a socket path, an HTTP address and/or a spamd address")
        self.model_path = os.fspath(model_path)
        self.socket_path = None if socket_path is None else os.fspath(socket_path)
        self.http = http
        self.spamd = spamd
        self.socket_mode = socket_mode
        self.max_request, self.max_clients, self.timeout = max_request, max_clients, timeout
        self.max_texts, self.max_tokens = max_texts, max_tokens
        self.user_models_template, self.unknown_user = user_models, unknown_user
        self.allow_tell, self.max_users, self.max_user_bytes = allow_tell, max_users, max_user_bytes
        self.mail_options = {}
        sink = log or (lambda message: None)
        # each event one line, whatever a client sent that it quotes (a user's name, a model path made of it)
        self.log = lambda message: sink(protocol.one_line(message))
        self.holder = None
        self.user_models = None
        self.stopping = False
        self._servers, self._threads, self._unix_sockets = [], [], []
        self._conns, self._conns_lock = set(), threading.Lock()
        self._slots = threading.BoundedSemaphore(max_clients)
        self._spamd_path = None
        for path in (self.socket_path, spamd if isinstance(spamd, str) and "/" in spamd else None):
            if path is not None:
                _check_socket_path(path)

    @property
    def http_address(self):
        """``(host, port)`` the HTTP server listens on (after :meth:`start`)."""
        for s in self._servers:
            if isinstance(s, _HTTPServer):
                return s.server_address[:2]
        return None

    @property
    def spamd_address(self):
        """``(host, port)`` or the socket path the spamd server listens on (after :meth:`start`)."""
        for s in self._servers:
            if getattr(s, "spamd", False):
                return s.server_address[:2] if isinstance(s, _TCPServer) else self._spamd_path
        return None

    def _track(self, conn, add):
        with self._conns_lock:
            (self._conns.add if add else self._conns.discard)(conn)
            if add and self.stopping:  # accepted while stopping: after stop()'s sweep, so end it here
                try:
                    conn.shutdown(socket.SHUT_RD)
                except OSError:
                    pass

    def start(self):
        """Load the model and start listening (in background threads); returns self."""
        # with spamd, the check of the model is the loader's: at start, and for every file
        # that replaces the served one or a user's (a failing one is not swapped in)
        loader = _load_spam_model if self.spamd is not None else _load_text_model
        self.holder = ModelHolder(self.model_path, loader=loader, log=self.log)
        if self.user_models_template is not None:
            self.user_models = UserModels(self.user_models_template, unknown_user=self.unknown_user,
                                          holder_factory=lambda p: ModelHolder(p, loader=loader, log=self.log),
                                          max_users=self.max_users or DEFAULT_MAX_USERS,
                                          max_bytes=self.max_user_bytes, served_path=self.model_path,
                                          log=self.log)
            user = self.user_models.served_file_user()
            if user is not None:
                self.log(f"--user-models {self.user_models_template}: user {shown_user(user)} maps to the served model "
                         f"{self.model_path}; that user is served the served model and TELL for them is refused")
        try:
            if self.socket_path is not None:
                self._servers.append(self._bind_unix(self.socket_path, _MailHandler))
            if self.http is not None:
                self._servers.append(self._bind_tcp(_HTTPServer, self.http, _HTTPHandler))
            if self.spamd is not None:
                kind, where = (("tcp", self.spamd) if isinstance(self.spamd, tuple) else parse_address(self.spamd))
                if kind == "unix":
                    _check_socket_path(where)
                    srv = self._bind_unix(where, SpamdHandler)
                    self._spamd_path = where
                else:
                    srv = self._bind_tcp(_TCPServer, where, SpamdHandler)
                srv.spamd = True
                self._servers.append(srv)
        except BaseException:
            self.stop()
            raise
        for srv in self._servers:  # (HTTP as spamd: neither authenticates its clients; the port bound, not 0)
            if srv.socket.family != socket.AF_UNIX and not is_loopback(srv.server_address[0]):
                self.log(f"{'spamd' if getattr(srv, 'spamd', False) else 'HTTP'} on "
                         f"{shown_address(*srv.server_address[:2])} is reachable beyond this machine and its clients "
                         "are not authenticated (restrict it with a firewall)")
        for srv in self._servers:
            t = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.2},
                                 name=f"textnb-serve-{type(srv).__name__}", daemon=True)
            t.start()
            self._threads.append(t)
        return self

    def reload(self):
        """Read the served model file again now (SIGHUP) and forget the per-user models
        (read again when next asked for). A file that does not load is not served."""
        if self.holder is not None:
            self.holder.get(force=True)
        if self.user_models is not None:
            self.user_models.clear()
        self.log(f"{self.model_path}: reload requested")

    def _bind_tcp(self, server_class, address, handler):
        """A ``server_class`` listening on ``address`` (``(host, port)``) for ``handler``,
        bounded by this server's limits; InputError naming the address when it cannot listen."""
        host, port = address
        if ":" in host:  # an IPv6 address (``[::1]:PORT``, :func:`textnb.apps.spamd.parse_address`): its family
            server_class = type(server_class.__name__, (server_class,), {"address_family": socket.AF_INET6})
        try:
            srv = server_class((host, port), handler, bind_and_activate=True)
        except OSError as exc:
            raise InputError(f"{shown_address(host, port)}: cannot listen ({exc.strerror or exc})") from None
        srv._init_bounded(self)
        return srv

    def _bind_unix(self, path, handler):
        _check_socket_path(path)
        _claim_socket_path(path)
        # bind in a private (0700) folder next to the target, set the mode, then link the
        # socket into place: it never exists at PATH with wider permissions, and an
        # existing file at PATH is never replaced (link fails instead)
        folder = os.path.dirname(os.path.abspath(path))
        try:
            private = tempfile.mkdtemp(prefix=".tnb", dir=folder)
        except OSError as exc:
            raise InputError(f"{path}: cannot create the socket ({exc.strerror or exc})") from None
        tmp = os.path.join(private, "s")
        try:
            try:
                srv = _UnixServer(tmp, handler, bind_and_activate=True)
            except OSError as exc:
                raise InputError(f"{path}: cannot create the socket ({exc.strerror or exc})") from None
            srv._init_bounded(self)
            try:
                os.chmod(tmp, self.socket_mode)
                os.link(tmp, path)
            except OSError as exc:
                srv.server_close()
                raise InputError(f"{path}: cannot create the socket ({exc.strerror or exc})") from None
            self._unix_sockets.append((path, os.lstat(path).st_ino))
            return srv
        finally:
            for p in (tmp, private):
                try:
                    (os.unlink if p == tmp else os.rmdir)(p)
                except OSError:
                    pass

    def stop(self):
        """Stop listening, finish in-flight requests, remove the socket files.

        Connections waiting for a request (idle clients) are ended at once, and each
        listener's loop is woken at once, so stopping takes the time of the requests being
        answered."""
        self.stopping = True
        for srv, t in zip(self._servers, self._threads):
            srv.shutdown()
            t.join()
        with self._conns_lock:  # wakes a handler blocked reading: it sees the end of its input
            for conn in self._conns:
                try:
                    conn.shutdown(socket.SHUT_RD)
                except OSError:
                    pass
        for srv in self._servers:
            srv.server_close()
        self._servers, self._threads = [], []
        for path, ino in self._unix_sockets:
            try:
                if os.lstat(path).st_ino == ino:  # ours, not a successor's
                    os.unlink(path)
            except OSError:
                pass
        self._unix_sockets = []

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def run(server, *, signals=None, ready=None, reload_signals=None):
    """Start ``server`` and serve until one of ``signals`` (default SIGTERM, SIGINT) arrives.

    ``reload_signals`` (default SIGHUP) make the server read its model files again
    (:meth:`Server.reload`) and go on, as daemons conventionally do. A signal ignored when it
    is called (``nohup``'s SIGHUP, the SIGINT of a background job started by a script) stays
    ignored, as in every textnb program (:func:`textnb.core.signals.ignored`). Must be called from
    the main thread. ``ready(server)`` is called once it listens. Returns the number of
    the signal that stopped it; the server is stopped cleanly (in-flight requests
    finished, idle connections closed, socket files removed) before returning.

    The handlers in place before are put back, except in a program whose stop signals are
    answered once (``textnb serve``: :func:`textnb.core.signals.answers_once`): there the
    signal that stops the server leaves SIGINT, SIGTERM and SIGHUP ignored
    (:func:`textnb.core.signals.ignore_stop_signals`), so that a second Ctrl-C while the
    server stops or once it has stopped is the same request (it raised KeyboardInterrupt
    in the program's handler put back: a second line ``textnb: interrupted`` after
    ``stopped``, exit 130 after a SIGTERM's stop, or a death by SIGINT at exit).
    """
    from textnb.core.signals import answers_once, ignore_stop_signals, ignored

    signals = (signal.SIGTERM, signal.SIGINT) if signals is None else signals
    reload_signals = (signal.SIGHUP,) if reload_signals is None else reload_signals
    got, reloads = [], []
    wake = threading.Event()
    once = answers_once()

    def handler(signum, frame):
        if once:
            ignore_stop_signals()  # (the program is stopping: a second signal is the same request)
        got.append(signum)
        wake.set()

    def reload_handler(signum, frame):
        reloads.append(signum)
        wake.set()

    # a signal the caller ignores stays ignored (core.signals.ignored: nohup's SIGHUP, the SIGINT of a
    # script's background job), the rule of every textnb program: it stopped or reloaded the server
    previous = {s: signal.signal(s, handler) for s in signals if not ignored(s)}
    previous.update({s: signal.signal(s, reload_handler) for s in reload_signals if not ignored(s)})
    try:
        server.start()
        if ready is not None:
            ready(server)
        while not got:
            wake.wait(0.5)
            wake.clear()
            while reloads and not got:
                reloads.pop()
                server.reload()
    finally:
        try:
            server.stop()
        finally:
            if not (once and got):  # (stopped by a signal in a program: the three stay ignored)
                for s, h in previous.items():
                    signal.signal(s, h)
    return got[0] if got else None
