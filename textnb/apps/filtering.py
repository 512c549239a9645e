"""Filtering: spam verdicts with two cut-offs, safe incremental model updates, routing.

The spam side works like bogofilter: a message gets a spam log-odds (for the default
model, :class:`textnb.apps.spamscore.SpamScorer`, a length-normalised one) and one of three
verdicts,

* ``spam`` when ``P(spam) = 1 / (1 + exp(-log_odds))`` is at least ``spam_cutoff``
  (default :data:`DEFAULT_SPAM_CUTOFF`, 0.999),
* ``ham`` when it is at most ``ham_cutoff`` (default 0.45, bogofilter's),
* ``unsure`` in between (set both cut-offs equal for two verdicts only).

The comparison is made on the log-odds against ``logit(cutoff)``, never on the rounded
probability, so a score of ``1 - 1e-30`` still orders correctly against ``1 - 1e-20``;
the score printed by ``--batch`` and in ``X-TextNB-Score`` is the log-odds itself at
full precision (:func:`score_text`). The defaults were chosen on three corpora by
``scripts/bench_spam.py --select`` (docs/spam.md).

Model files are updated (:func:`update_model`, :func:`train_model`) under an exclusive
:func:`fcntl.flock` on a lock file next to the model (``<model>.lock``): the model is
read, changed and written to a temporary file that replaces the old one with
:func:`os.replace`. Concurrent registrations from several processes are serialised
and none is lost; readers never need the lock, since they always see a whole file.

The topic side (:func:`plan_routes`, :func:`apply_route`) sends each document to
``OUT/<predicted label>/`` (or ``OUT/unsorted/`` below a confidence threshold) under
a fresh name, copying unless asked to move, never overwriting.

The library does not print; :func:`filter_main` and :func:`topic_main` are the
command-line front ends used by ``scripts/spamfilter`` and ``scripts/topicfilter``.
"""

import contextlib
import errno
import fcntl
import hashlib
import io
import itertools
import os
import shutil
import stat
import re
import sys
import warnings
import tempfile
from dataclasses import dataclass
from functools import partial
from itertools import chain, islice
from pathlib import Path

import numpy as np

from textnb.core.errors import (DataWarning, InputError, ModelFileError, TextnbError, check_input, input_name,
                                lone_surrogate, missing_reason, not_a_folder, os_error_text)
from textnb.core.labels import label_names
from textnb.core.model_io import (JOURNAL_SUFFIX, LOCK_SUFFIX, atomic_write, before_replace, cannot_write_in,
                                  is_temporary_name, load, model_class, new_file_mode, output_target, refuse_folder,
                                  refuse_input_as_output, registrations_use, save, side_files_base, staged_write)
from textnb.core.regular import open_regular
from textnb.core.signals import HeldSignals
from textnb.io import mail
from textnb.io.corpus import Rereadable
from textnb.io.mailread import _lf, _strip_from_line
from textnb.io.files import names_a_descriptor, noting_empty_folder, refuse_device
from textnb.text.scorer import load_for_prediction, reads_mail
from textnb.apps.spamlite import (  # noqa: F401 (the verdict rules live on the numpy-free path)
    _BATCH,
    DEFAULT_HAM_CUTOFF,
    DEFAULT_KIND,
    DEFAULT_SPAM_ALPHA,
    MODEL_KINDS,
    SPAM_KINDS,
    DEFAULT_SPAM_CUTOFF,
    EXIT_CODES,
    EXIT_ERROR,
    HAM,
    HEADER_PREFIX,
    SPAM,
    UNSURE,
    Verdict,
    _drop_own_headers,
    _expit,
    StreamClassifier,
    logit,
    add_headers,
    remove_headers,
    check_cutoffs,
    pack_features,
    score_text,
    unpack_features,
    verdict_headers,
    verdict_of,
)

CLASSES = (HAM, SPAM)

__all__ = [
    "SPAM",
    "HAM",
    "UNSURE",
    "DEFAULT_SPAM_CUTOFF",
    "DEFAULT_HAM_CUTOFF",
    "EXIT_CODES",
    "EXIT_ERROR",
    "Verdict",
    "SpamFilter",
    "verdict_of",
    "default_model_path",
    "default_model_folder",
    "new_spam_model",
    "Mailboxes",
    "spam_text",
    "token_text",
    "learns_in_batches",
    "features_of_paths",
    "message_batches",
    "as_messages",
    "model_lock",
    "replace_model",
    "side_file",
    "train_model",
    "update_model",
    "add_headers",
    "remove_headers",
    "Route",
    "plan_routes",
    "apply_route",
    "is_spam_model",
    "mail_features",
]

def default_model_path(name="spam.tnb", environ=None):
    """``$XDG_DATA_HOME/textnb/<name>``, else ``~/.local/share/textnb/<name>``."""
    return default_model_folder(environ) / name


def default_model_folder(environ=None):
    """``$XDG_DATA_HOME/textnb``, else ``~/.local/share/textnb``: the filters' own folder,
    the only one they create."""
    environ = os.environ if environ is None else environ
    base = environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "textnb"


#: Whether the spam model sees all header fields (see :func:`textnb.io.mail.message_text`).
SPAM_ALL_HEADERS = True


def spam_text(data, max_bytes=mail.DEFAULT_MAX_BYTES):
    """What a spam model sees of a message: :func:`textnb.io.mail.message_text` with every
    token once (``unique=True``) and ``all_headers`` = :data:`SPAM_ALL_HEADERS`."""
    return mail.message_text(data, max_bytes=max_bytes, all_headers=SPAM_ALL_HEADERS, unique=True)


def token_text(data, max_bytes=mail.DEFAULT_MAX_BYTES):
    """What a spam model of ``--kind discriminative`` sees of a message: the one mail
    reader's tokens, those the SpamScorer kinds count
    (:func:`textnb.apps.spamscore.message_tokens`: ``subject:cheap``, ``rcvd:mx1.example.com``,
    each once), joined by spaces for :data:`TOKEN_VECTORIZER` (a token holds no white space).
    Measured against :func:`spam_text` for that model (docs/spam.md, session 42):
    SpamAssassin's 1 - AUC 0.022 -> 0.013 %, SpamAssassin -> CSDMC2010 4.19 -> 0.09 %."""
    from textnb.apps.spamscore import message_tokens

    return " ".join(message_tokens(data, max_bytes))


#: The vectorizer of a ``--kind discriminative`` model's :func:`token_text`: each token a term,
#: as it is (the reader lowercases what it should)
TOKEN_VECTORIZER = {"token_pattern": r"\S+", "lowercase": False}
#: The ``input_`` of a new spamfilter model of each TextClassifier kind (:func:`_mark_mail`)
_INPUT_OF_KIND = {"discriminative": "mail-tokens"}


def _kind_vectorizer(kind, vectorizer):
    """The vectorizer a new spam model of ``kind`` is given: ``vectorizer``, else for a kind
    that reads :func:`token_text` the parameters :data:`TOKEN_VECTORIZER` (None: the
    TextClassifier's default). The one rule of :func:`new_spam_model` and :func:`_fitted_at_once`."""
    if vectorizer is None and _INPUT_OF_KIND.get(kind) == "mail-tokens":
        return dict(TOKEN_VECTORIZER)
    return vectorizer


def new_spam_model(kind=DEFAULT_KIND, *, alpha=None, vectorizer=None):
    """An unfitted spam model.

    ``kind``: ``fisher`` (default), ``boolean`` or ``geometric``: a
    :class:`textnb.apps.spamscore.SpamScorer` with :data:`SPAM_KINDS` settings, fed
    :func:`textnb.apps.spamscore.message_tokens` (``alpha`` and ``vectorizer`` do not apply); ``multinomial`` (``alpha`` = :data:`DEFAULT_SPAM_ALPHA`; fed
    :func:`spam_text`, so this is multinomial NB over word presence), ``bernoulli``,
    ``complement`` or ``discriminative`` (the documents' default model, DiscriminativeNB:
    trained on all its messages at once, :func:`learns_in_batches`): a
    :class:`~textnb.TextClassifier`; ``alpha`` None keeps each default.
    """
    if kind in SPAM_KINDS:
        from textnb.apps.spamscore import SpamScorer

        return SpamScorer(**SPAM_KINDS[kind])
    from textnb.text.classifier import TextClassifier  # the estimators import scikit-learn: only when training

    cls = model_class(MODEL_KINDS[kind]) if kind in MODEL_KINDS else None
    if cls is None:
        raise InputError(f"unknown or unavailable model kind {kind!r}; choose from "
                         f"{', '.join(k for k, v in MODEL_KINDS.items() if model_class(v))}")
    if alpha is None and kind == "multinomial":
        alpha = DEFAULT_SPAM_ALPHA
    # the command line's rule for --alpha: below 1e-10 raised to it, in textnb train's words
    floored = {"force_alpha": False} if "force_alpha" in cls().get_params() else {}
    if alpha is not None:
        from textnb.meta.registry import floor_alpha

        alpha = floor_alpha(alpha)
    model = cls() if alpha is None else cls(alpha=alpha, **floored)
    vectorizer = _kind_vectorizer(kind, vectorizer)
    if isinstance(vectorizer, dict):
        from textnb.text.vectorizer import Vectorizer

        vectorizer = Vectorizer(**vectorizer)
    return TextClassifier(vectorizer=vectorizer, model=model)


def _mark_mail(model, kind):
    """Record in a new :class:`~textnb.TextClassifier` spam model of ``kind`` (before it
    learns, and again after a ``fit``) that its documents are rendered messages: by
    :func:`spam_text` (``input_ = "mail"``), or for ``discriminative`` by :func:`token_text`
    (``"mail-tokens"``), so that this module feeds it those (:func:`_features`) and ``textnb
    predict`` reads its inputs as this module does. A SpamScorer reads raw mail by its kind.
    A model without the mark (``textnb train`` on a folder of mail files) reads plain
    documents, also when messages are registered into it."""
    if not _reads_raw_mail(model):
        model.input_ = _INPUT_OF_KIND.get(kind, "mail")


def learns_in_batches(model):
    """Whether the spam ``model`` (an estimator, or the name of a kind of :data:`MODEL_KINDS`)
    learns its training messages a batch at a time as well as all at once (its
    ``partial_fit`` over batches gives ``fit``'s model): every spam model of sums (SpamScorer,
    MultinomialNB, BernoulliNB, ComplementNB). A DiscriminativeNB, whose kernel keeps the
    documents' rows (:attr:`textnb.naive_bayes.kernels.CountKernel.rows`), scores each batch
    under the model of the batches before it: one of 500 spam, then one of ham, would not
    give its ``fit`` on all of them, so it is trained on all its messages at once and made by
    training only (:func:`train_model`); it can then register more (each batch's passes:
    online learning) but not forget one. Asked of a kind, nothing heavier than the kernels
    is imported."""
    from textnb.naive_bayes.kernels import KERNELS

    name = MODEL_KINDS.get(model) if isinstance(model, str) else type(getattr(model, "model", model)).__name__
    kernel = KERNELS.get(name)
    return kernel is None or not kernel.rows


class _Rendered:
    """A spam model of a kind fitted at once (:func:`learns_in_batches`) while its messages are
    read: only how they are rendered (``input_``, :func:`_features`), so that training one
    builds no estimator (nor imports scikit-learn): the kernels fit it
    (:func:`_fitted_at_once`)."""

    def __init__(self, kind, alpha, vectorizer):
        self.kind, self.alpha, self.vectorizer = kind, alpha, vectorizer
        self.input_ = _INPUT_OF_KIND.get(kind, "mail")


def _fitted_at_once(rendered, texts, labels):
    """The model file's tree of a spam model of the kind of ``rendered`` (:class:`_Rendered`)
    fitted on its rendered messages ``texts`` with ``labels``: what
    ``new_spam_model(kind).fit(texts, labels)`` saves, byte for byte, with its mark
    (``input_``), computed as ``textnb train`` computes it
    (:func:`textnb.text.training.train_text_model`: no estimator, no scikit-learn; a bounded
    sample of the documents' rows kept for the passes)."""
    from textnb.meta.registry import floor_alpha
    from textnb.text.training import train_text_model

    vectorizer = _kind_vectorizer(rendered.kind, rendered.vectorizer)
    if vectorizer is not None and not isinstance(vectorizer, dict):
        vectorizer = vectorizer.get_params(deep=False)
    root, _ = train_text_model(texts, np.asarray(labels), vectorizer=vectorizer,
                               model=(MODEL_KINDS[rendered.kind], {} if rendered.alpha is None else
                                      {"alpha": floor_alpha(rendered.alpha)}),
                               given_vectorizer=vectorizer is not None)
    root.state["input_"] = rendered.input_
    return root


class _SpilledTexts(Rereadable):
    """The rendered training messages of a spam model fitted at once (:func:`_fitted_at_once`),
    written to an anonymous temporary file as they come and read from it each time they are
    iterated, as a streamed corpus file is (:class:`~textnb.io.corpus.RowTexts`): memory holds
    a batch of them, not the mail (found by a memory trial: ``--kind discriminative`` kept
    every message's tokens, 393 / 559 / 1,035 MB for a mailbox 1 / 4 / 16 times over). A
    rendering is one line (:func:`token_text`'s tokens hold no white space; a line end in
    any other is written as a space, which every kind's tokenizer splits on alike)."""

    def __init__(self):
        self._file, self._n = tempfile.TemporaryFile(), 0

    def append(self, text):
        self._file.write(text.replace("\n", " ").encode("utf-8", "surrogatepass") + b"\n")
        self._n += 1

    def __len__(self):
        return self._n

    def __iter__(self):
        self._file.flush()
        self._file.seek(0)
        for line in self._file:
            yield line[:-1].decode("utf-8", "surrogatepass")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._file.close()


def _reads_raw_mail(model):
    """True for models fed :func:`textnb.apps.spamscore.message_tokens` (not :func:`spam_text`)."""
    return type(model).__name__ == "SpamScorer"


def _features(model, data, max_bytes):
    """What ``model`` is fed for one raw message: a SpamScorer its tokens, a spamfilter model
    of rendered messages (:func:`_mark_mail`) :func:`spam_text` or :func:`token_text`, any
    other text model (``textnb train`` on a folder of mail files, say) the text ``textnb
    predict`` reads from the message's file (:func:`textnb.io.corpus.document_text`, cut
    where that model cuts a document, or at ``max_bytes`` if sooner), so every path gives a
    message the same score."""
    if _reads_raw_mail(model):
        from textnb.apps.spamscore import message_tokens

        return message_tokens(data, max_bytes)
    if reads_mail(model):
        return (token_text if model.input_ == "mail-tokens" else spam_text)(data, max_bytes)
    return _document_text(model, data, max_bytes)


def is_spam_model(model):
    """Whether ``model`` gives spam verdicts: a class ``'spam'`` and ``predict_log_odds`` (a
    spamfilter model, or a text model ``textnb train`` made of folders spam/ and ham/): what
    spamfilter, the daemon's verdicts and :func:`mail_features` ask."""
    return SPAM in label_names(model) and hasattr(model, "predict_log_odds")


def mail_features(model, data, max_bytes=mail.DEFAULT_MAX_BYTES):
    """What ``model`` reads of one raw message parsed as mail (``topicfilter --mail``, the
    daemon's ``"mail": true``): the one rule of both. A spam model (:func:`is_spam_model`) is fed
    what spamfilter feeds it (:func:`_features`: for a plain text model the text ``textnb predict``
    reads of the message's file), so a message has one score from every mail tool; any other
    model gets :func:`textnb.io.mail.message_text` of its first ``max_bytes`` bytes."""
    from textnb.meta.labelsets import multilabel_model

    if is_spam_model(model) and multilabel_model(model) is None:  # (a model of label sets gets no verdict)
        return _features(model, data, max_bytes)
    return mail.message_text(data, max_bytes=max_bytes)


def _document_text(model, data, max_bytes):
    """:func:`_features` of a model of plain documents. A message that looks binary (a NUL
    byte in its first 8 KiB, which ``textnb predict`` skips as a file) is decoded all the
    same: a mail filter gives every message a verdict. A model whose vectorizer was given
    its own encoding reads the message in it, as ``predict`` reads a file; a message that
    does not decode in it (``decode_error='strict'``) is read by the guess, for the same
    reason."""
    from textnb.io.corpus import decode_bytes, document_text, model_max_bytes
    from textnb.io.files import document_head
    from textnb.text.tokenize import model_decoding

    def text(decode):
        read = document_text(data, limit, decode)
        return read if read is not None else decode_bytes(*document_head(data, limit), limit,
                                                          None if decode is True else decode)

    limit = min(max_bytes, model_max_bytes(model))
    try:
        return text(model_decoding(model))
    except UnicodeDecodeError:
        return text(True)  # (the guess never fails)


def _check_spam_model(model, path, learning=False):
    """The position of the class 'spam' in ``model`` (read from ``path``), or a one-line
    ModelFileError: not a spam model (:func:`is_spam_model`: a class 'spam', the others counting
    as ham); ``learning`` (``--register-*``, ``--unregister-*``, spamd's TELL): also not one of
    the classes 'ham' and 'spam' alone, the two a registration counts a message as (found by a
    session-52 fuzz: a model of classes 'spam' and 'xam' classified, and its registration stopped
    on ``internal error: ValueError: classes=['ham', 'spam'] is not the same as on last call``)."""
    classes = label_names(model)
    if not is_spam_model(model):
        from textnb.meta.labelsets import multilabel_model

        if multilabel_model(model) is not None:  # (its labels may well be ham and spam)
            raise ModelFileError(f"{path}: a multi-label model (a set of labels per text), not a spam model: a spam "
                                 "verdict is one label per message")
        raise ModelFileError(f"{path}: not a spam model (classes {classes}; need a class 'spam', the others "
                             "counting as ham)")
    if learning and sorted(classes) != sorted(CLASSES):
        raise ModelFileError(f"{path}: a model of the classes {classes} classifies mail (the classes other than "
                             f"'spam' count as ham) but learns only as a model of 'ham' and 'spam': train one with "
                             f"--train-spam / --train-ham to register messages")
    return classes.index(SPAM)


class SpamFilter(StreamClassifier):
    """A fitted spam model with its two cut-offs.

    Parameters
    ----------
    model : TextClassifier
        Fitted, with a class ``'spam'`` (the other classes count as ham).
    spam_cutoff, ham_cutoff : float
        Probabilities; see the module docstring.
    max_bytes : int
        Bytes of each message that are parsed (:data:`textnb.io.mail.DEFAULT_MAX_BYTES`).
    """

    def __init__(self, model, *, spam_cutoff=DEFAULT_SPAM_CUTOFF, ham_cutoff=DEFAULT_HAM_CUTOFF,
                 max_bytes=mail.DEFAULT_MAX_BYTES, source="model"):
        check_cutoffs(spam_cutoff, ham_cutoff)
        self.model = model
        self.spam_cutoff, self.ham_cutoff = spam_cutoff, ham_cutoff
        self.max_bytes = max_bytes
        self.source = source
        self._spam = _check_spam_model(model, source)

    @classmethod
    def load(cls, path, **kwargs):
        """Read a model file (raises :class:`ModelFileError` with a one-line message).

        A linear text model is read into a :class:`~textnb.text.scorer.TextScorer`, so
        classifying imports no scikit-learn.
        """
        return cls(load_for_prediction(path), source=os.fspath(path), **kwargs)

    def log_odds_texts(self, texts):
        """Spam log-odds of what the model is fed for messages (:func:`_features`)."""
        texts = list(texts)
        if not texts:
            return np.zeros(0)
        return self.model.predict_log_odds(texts)[:, self._spam]

    def log_odds(self, messages):
        """Spam log-odds of raw messages (bytes). An empty message (white space only, or
        only mbox ``From`` lines: :func:`textnb.io.mailread.is_empty_message`) raises
        :class:`~textnb.core.errors.InputError` ``"messages[I]: empty message"`` (I its
        index), as every command refuses it (``SOURCE: empty message``); nothing is
        scored."""
        messages = [mail.refuse_empty_message(f"messages[{i}]", m) for i, m in enumerate(messages)]
        return self.log_odds_texts(_features(self.model, m, self.max_bytes) for m in messages)

    def verdicts_from_log_odds(self, log_odds):
        if any(lo != lo for lo in log_odds):  # NaN: never printed, never read as a verdict
            raise ModelFileError(f"{self.source}: the model gives NaN scores (its parameters are inconsistent)")
        return [Verdict(verdict_of(lo, self.spam_cutoff, self.ham_cutoff), _expit(float(lo)), float(lo))
                for lo in log_odds]

    def classify(self, messages):
        """A :class:`Verdict` for each raw message (bytes); InputError for an empty one
        (:meth:`log_odds`)."""
        return self.verdicts_from_log_odds(self.log_odds(messages))


# -- model updates under a lock -----------------------------------------------------
#: The files kept beside a model file ``<model>`` end in :data:`LOCK_SUFFIX`, its lock file
#: (:func:`model_lock`), and :data:`JOURNAL_SUFFIX`, the daemon's journal
#: (:func:`journal_path`), whose lock is ``<model>.learned.lock`` (both of
#: :mod:`textnb.core.model_io`, which ``textnb train -o`` asks); this is the prefix of the
#: temporary copy of the served model that starts a user's model
#: (:func:`textnb.apps.spamd._copy_model`). See :func:`side_file`.
COPY_PREFIX = ".tnb"


@contextlib.contextmanager
def model_lock(model_path, *, follow=True):
    """Hold an exclusive ``fcntl.flock`` on ``<model_path>.lock`` (created if needed).

    A symbolic link is followed first: the lock sits next to the real model file, so
    registrations through a link and through the real path are serialised too.
    ``follow=False`` (the daemon's journal, which must not be a link): ``model_path`` is
    taken as it is and a lock file that is a link is refused, so no file is created
    where a link points.
    """
    path = os.fspath(model_path)
    if follow:
        refuse_folder(path)  # (no lock file left beside a folder given as the model)
    lock_path = (side_files_base(path) if follow else path) + LOCK_SUFFIX
    flags = os.O_RDWR | os.O_CREAT | (0 if follow else getattr(os, "O_NOFOLLOW", 0))
    try:
        fd = os.open(lock_path, flags, 0o644)
    except OSError as exc:
        raise InputError(f"{lock_path}: cannot create lock file ({exc.strerror or exc})") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)


def _refuse_model_target(model_path, mail_paths):
    """Before any lock file is made (found by a user trial: a FIFO given as the model was
    refused, its ``.lock`` and ``.learned.lock`` files left beside it): the model file is
    a regular file or to be made (:func:`~textnb.core.model_io.output_target`: not a FIFO,
    a device, a folder; not one of the mail ``mail_paths``), and not inside a folder of them,
    where it, its journal and its lock files would be read as mail by the next training
    (they were: ``1.txt.learned.lock: empty message``)."""
    refuse_folder(os.fspath(model_path))
    # (the mailboxes named as files: the model is none of them; a mail folder: the rule below, which knows
    # what the mail reader reads of it, a hidden file or one beside a Maildir's new/ and cur/ never)
    files = [p for p in mail_paths if p != "-" and not os.path.isdir(p)]
    if os.path.lexists(model_path):
        output_target(model_path, files)
    else:  # (a model to make: its folder is _prepare_folder's, which makes the filters' own)
        refuse_input_as_output(model_path, files)
    model = os.path.realpath(os.fspath(model_path))
    for path in mail_paths:
        if path != "-" and os.path.isdir(path):
            folder = os.path.realpath(path).rstrip(os.sep) + os.sep
            below = model[len(folder):].split(os.sep) if model.startswith(folder) else None
            if below and not any(part.startswith(".") for part in below) and _read_as_mail(folder, below):
                raise InputError(f"{os.fspath(model_path)}: is inside the mail folder {os.fspath(path)}; the model, "
                                 "its journal and its lock files would be read as mail: write it elsewhere")


def _read_as_mail(folder, below):
    """Whether the mail reader, walking the folder ``folder`` (ending in a separator), reads
    the file at the path parts ``below`` it: any file of a plain folder, a Maildir's only in
    its ``new/`` and ``cur/`` (a model beside them, ``~/Maildir/spam.tnb``, is never mail).
    Hidden names are the caller's (never read)."""
    here = folder.rstrip(os.sep)
    for k, part in enumerate(below):
        if mail.is_maildir(here):
            return below[k] in ("new", "cur") and len(below) > k + 1
        here = os.path.join(here, part)
    return True


def _prepare_folder(model_path):
    """The folder of ``model_path`` must exist; the filters' own folder
    (:func:`default_model_folder`) is created when missing, any other is a one-line
    error (a mistyped ``--model`` does not make folders)."""
    folder = os.path.dirname(os.path.abspath(os.fspath(model_path)))
    if os.path.isdir(folder):
        return
    if folder != os.path.abspath(default_model_folder()):  # (the words of every writer: textnb train -o's too)
        why = not_a_folder(os.path.dirname(os.fspath(model_path))) or f"no such folder: {folder}"
        raise InputError(f"{os.fspath(model_path)}: cannot write ({why})")
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as exc:
        raise InputError(f"{folder}: cannot create folder ({exc.strerror or exc})") from None


class Mailboxes:
    """Labelled mail named by path, for :func:`update_model`: the messages of each
    ``(label, paths)`` group, in order, read and tokenised as :func:`train_model` reads
    its mail (:func:`textnb.io.mailread.map_messages`: by helper processes too, as they
    are taken, so memory does not grow with a mailbox); a path ``-`` is ``stdin_data``,
    the one message read from stdin (it may stand in several groups)."""

    def __init__(self, groups, stdin_data=None):
        self.groups = [(label, [os.fspath(p) for p in paths]) for label, paths in groups]
        if stdin_data is None and any("-" in paths for _, paths in self.groups):
            raise ValueError("a path '-' stands for stdin_data, which is not given")
        self.stdin_data = stdin_data

    def __bool__(self):
        return any(paths for _, paths in self.groups)


def features_of_paths(model, paths, max_bytes, n_jobs=None, stdin=None, on_error=None, digests=False,
                      on_warning=None):
    """What ``model`` is fed for each message of ``paths`` ('-' = one message from
    ``stdin``, by default this process's), in order, the files read and tokenised in
    forked processes too (:func:`textnb.io.mailread.map_messages`; the features are the
    same). ``on_error``: as :func:`~textnb.io.mailread.map_messages` takes it (a message
    that cannot be read, e.g. empty, is reported to it and left out), ``on_warning`` too (a
    helper process that failed; its messages are read here). Yields ``(source,
    features)``, with ``digests`` ``(source, features, digest)`` (:func:`message_digest`)."""
    if stdin is None:
        paths = list(paths)
        if any(os.fspath(path) == "-" for path in paths):
            from textnb.io.corpus import stdin_stream

            stdin_stream()  # (closed, <&-: 'stdin: standard input is closed', not '-: no such file or folder')
        stdin = getattr(sys.stdin, "buffer", None)
    if not digests:
        for source, features in mail.map_messages(paths, partial(_features_list, model, max_bytes),
                                                  max_bytes=max_bytes, n_jobs=n_jobs, pack=pack_features,
                                                  unpack=unpack_features, stdin=stdin, on_error=on_error,
                                                  on_warning=on_warning):
            yield input_name(source), features
        return
    for source, (features, digest) in mail.map_messages(paths, partial(_features_digest_list, model, max_bytes),
                                                        max_bytes=max_bytes, n_jobs=n_jobs, pack=_pack_digested,
                                                        unpack=_unpack_digested, stdin=stdin, on_error=on_error,
                                                        on_warning=on_warning):
        yield input_name(source), features, digest


def _features_digest_list(model, max_bytes, messages):
    return [(_features(model, data, max_bytes), digest_key(data)) for data in messages]


def _pack_digested(values):
    return pack_features([f for f, _ in values]), [d for _, d in values]


def _unpack_digested(packed):
    return list(zip(unpack_features(packed[0]), packed[1]))


def message_batches(model, paths, max_bytes=None, size=1000, on_error=None):
    """``(sources, texts)`` lists of the messages of ``paths`` (files, folders, mbox,
    Maildir, ``-``) as ``spamfilter --batch`` reads and renders them for ``model``
    (:func:`features_of_paths`: the same sources, the same texts, the same messages left
    out and reported to ``on_error``), ``size`` at a time; ``max_bytes`` None: the mail
    reader's default."""
    from textnb.io.files import source_batches

    return source_batches(features_of_paths(model, paths, max_bytes or mail.DEFAULT_MAX_BYTES, n_jobs=1,
                                            on_error=on_error), size)


def as_messages(model, texts, max_bytes=None):
    """``texts`` (lines or rows of a file, the daemon's texts) as a spam ``model`` reads them:
    each a message (a header-less text) rendered for it by :func:`_features` (a spamfilter
    model of rendered messages: :func:`spam_text`; a SpamScorer: its tokens, not the
    whitespace-split words a string is to it); unchanged for any other model."""
    if not takes_messages(model):
        return texts
    limit = max_bytes or mail.DEFAULT_MAX_BYTES
    return [_features(model, t.encode("utf-8", "surrogateescape") if isinstance(t, str) else t, limit)
            for t in texts]


def takes_messages(model):
    """Whether ``model`` reads its texts as messages (:func:`as_messages`: a spamfilter model
    of rendered messages, or a SpamScorer)."""
    return reads_mail(model) or _reads_raw_mail(model)


def _labelled_features(model, items, max_bytes, n_jobs, on_warning=None):
    """``(label, features, source, digest)`` for :func:`update_model`'s ``register`` /
    ``unregister``: ``(label, bytes)`` pairs (the source "the message"), or
    :class:`Mailboxes`; a label other than 'spam' and 'ham' raises InputError where it is
    met."""
    if isinstance(items, Mailboxes):
        for label, paths in items.groups:
            _check_label(label)
            stdin = io.BytesIO(items.stdin_data or b"")
            for source, features, digest in features_of_paths(model, paths, max_bytes, n_jobs, stdin, digests=True,
                                                              on_warning=on_warning):
                yield label, features, source, digest
        return
    for label, data in items:
        _check_label(label)
        yield label, _features(model, data, max_bytes), "the message", digest_key(data)


def _check_label(label):
    if label not in CLASSES:
        raise InputError(f"unknown label {label!r}; use 'spam' or 'ham'")


def _features_list(model, max_bytes, messages):
    return [_features(model, data, max_bytes) for data in messages]


def _learn(model, triples, method, progress=None):
    """Feed ``(label, features, source, digest)`` tuples (:func:`_features`) in batches to
    ``model.partial_fit``/``forget``; a message that cannot be forgotten (never counted)
    is one InputError naming its source, the model left as it was."""
    it = iter(triples)
    done = 0
    while True:
        batch = list(islice(it, _BATCH))
        if not batch:
            return done
        texts = [features for _, features, _, _ in batch]
        labels = [label for label, _, _, _ in batch]
        with np.errstate(divide="ignore"):  # log 0 = -inf for a class with no counts yet
            if method == "forget":
                try:
                    model.forget(texts, labels)
                except ValueError as exc:
                    raise InputError(f"{_first_uncounted(model, batch) or 'these messages'}: cannot unregister "
                                     f"as {labels[0] if len(set(labels)) == 1 else 'spam / ham'}: {exc}") from None
            else:
                with warnings.catch_warnings():
                    # (a registration is a batch of a few messages: the library's advice to give
                    # partial_fit batches of 50 means nothing to a spamfilter user, who would read it
                    # on every run; the spam verdict reads the log-odds against the cut-offs)
                    warnings.filterwarnings("ignore", message=r"DiscriminativeNB: a partial_fit batch of fewer than")
                    model.partial_fit(texts, labels, classes=list(CLASSES))
        done += len(batch)
        if progress is not None:
            progress(done)


def _first_uncounted(model, batch):
    """The source of the first message of ``batch`` that ``model`` cannot forget (each
    forgotten in turn from a copy), or None (only the batch as a whole cannot be)."""
    import copy

    scratch = copy.deepcopy(model)
    for label, features, source, _ in batch:
        try:
            scratch.forget([features], [label])
        except ValueError:
            return source
    return None


def train_model(model_path, spam_paths, ham_paths, *, kind=DEFAULT_KIND, alpha=None, vectorizer=None,
                max_bytes=mail.DEFAULT_MAX_BYTES, progress=None, n_jobs=None, on_warning=None):
    """Train a new spam model from mail (files, folders, mbox, Maildir) and write it.

    Replaces any model at ``model_path`` (under the lock, atomically) and its journal
    (:func:`journal_path`) by one listing the messages trained on (:func:`write_journal`,
    complete; none when a message is given twice, which the model counts twice). Messages are
    streamed in batches, so memory does not grow with the number of messages (a kind fitted
    at once, :func:`learns_in_batches`: ``discriminative``, writes every message's tokens to a
    temporary file, :class:`_SpilledTexts`, then fits as ``textnb train`` does on them); they are
    read and tokenised by ``n_jobs`` processes (:func:`textnb.io.mailread.map_messages`:
    None is this one plus one per idle CPU; the model is the same; a helper that fails is
    reported to ``on_warning`` and its messages read here).
    Returns ``{'spam': n, 'ham': n}``.
    """
    spam_paths, ham_paths = list(spam_paths), list(ham_paths)
    _refuse_model_target(model_path, spam_paths + ham_paths)  # a mailbox given as the model, a FIFO, ...
    _prepare_folder(model_path)  # (before the mail is read: a missing folder was said once it was trained)
    if not os.path.lexists(model_path):  # (a folder it cannot write in, too; an existing model's: checked above)
        output_target(model_path)
    at_once = not learns_in_batches(kind)
    if at_once:  # (no estimator until every message is read: the kernels fit it)
        model = _Rendered(kind, alpha, vectorizer)
    else:
        model = new_spam_model(kind, alpha=alpha, vectorizer=vectorizer)
        _mark_mail(model, kind)  # (before it is fed: its documents are rendered messages, _features)
    counts, learned = {}, {}  # learned: digest -> label, for the journal

    def pairs(label, paths):
        for source, features, digest in features_of_paths(model, paths, max_bytes, n_jobs, digests=True,
                                                          on_warning=on_warning):
            counts[label] = counts.get(label, 0) + 1
            learned[digest.partition(" ")[0]] = label
            yield label, features, source, digest

    def both():
        yield from pairs(SPAM, spam_paths)
        yield from pairs(HAM, ham_paths)

    if at_once:  # (every message's rendering written to a temporary file: read again to fit)
        texts, labels = _SpilledTexts(), []
        for label, features, _, _ in both():
            texts.append(features)
            labels.append(label)
            if progress is not None and len(labels) % _BATCH == 0:  # (as _learn reports its batches)
                progress(len(labels))
    else:
        _learn(model, both(), "partial_fit", progress)
    for label in CLASSES:
        if not counts.get(label):
            raise InputError(f"no {label} messages to train on")
    if at_once:
        with texts:
            model = _fitted_at_once(model, texts, labels)
        if progress is not None:
            progress(len(labels))
    with _locked(model_path, start=True) as journal:
        # the journal starts anew with the model: what it was trained on, once each (with a
        # message given twice, the model's counts are not one per message: no journal then);
        # checked as a registration checks it (no link followed, a regular file) before the
        # model changes, its temporary file written before the model's replace
        _save_with_journal(partial(_save_model, model, model_path), journal,
                           lambda: (learned, True) if sum(counts.values()) == len(learned) else None,
                           model_path=model_path, on_warning=on_warning)
    return {SPAM: counts[SPAM], HAM: counts[HAM]}


def replace_model(model_path, model, *, on_warning=None):
    """Save ``model`` (a fitted estimator, or a model tree) over the model file at
    ``model_path`` as :func:`train_model` replaces a model, when registrations use it: its
    lock file or its journal is there (:func:`model_lock`, :func:`journal_path`); else it is
    saved as any file is, no lock file made beside it. ``textnb train`` and ``textnb
    merge`` save their ``-o`` so.

    The locks a registration and the daemon's TELL take are held (:func:`_locked`), so an
    update running meanwhile is not lost under the new model nor written over it: it is
    done before the replace (and replaced) or after it (into the new model). The journal
    is removed with the replace (:func:`_save_with_journal`, whose failure after the replace
    is said to ``on_warning``): the new model's messages are not known by their digests, so
    the next registration starts a journal anew, as after a model copied over it. A model
    that no registration has used yet gets no lock: a first one that starts while it is
    replaced may still write its update of the old model over the new one. (Until session 51
    neither lock was taken: a registration's update of the old model could replace the new
    one.)"""
    if not registrations_use(model_path):
        return _save_model(model, model_path)
    with _locked(model_path) as journal:
        if journal is None:  # (a lock file, no journal: nothing to remove with the replace)
            return _save_model(model, model_path)
        _save_with_journal(partial(_save_model, model, model_path), journal, lambda: None, model_path=model_path,
                           on_warning=on_warning)


def _save_model(model, model_path, hook=None):
    """Save ``model`` to ``model_path`` (``hook``: :func:`textnb.core.model_io.before_replace`'s)."""
    with before_replace(model_path, hook) if hook is not None else contextlib.nullcontext():
        if hasattr(model, "save"):  # an estimator (its own checks: a storable cv, a fitted scorer)
            model.save(model_path)
        else:  # the tree of a model fitted at once (_fitted_at_once)
            save(model, model_path)


@contextlib.contextmanager
def _locked(model_path, journal=True, start=False):
    """Hold the model's lock and, before it (the order the daemon's TELL takes them), the
    lock of its journal when it has one (``journal``; no lock file is made for a
    journal that does not exist unless ``start``: a new model starts its journal). Yields
    the journal's path, or None."""
    if start:
        refuse_folder(os.fspath(model_path))  # (no journal lock file left beside a folder given as the model)
    path = journal_path(model_path) if journal else None
    if path is None or not (start or os.path.lexists(path)):
        with model_lock(model_path):
            yield None
        return
    with model_lock(path, follow=False), model_lock(model_path):
        yield path


def journal_path(model_path):
    """Where the daemon's TELL journal of the model at ``model_path`` is (the messages it
    learned and forgot, :mod:`textnb.apps.spamd`): next to the real model file
    (:func:`~textnb.core.model_io.side_files_base`: named by the user's path, as errors name it, unless that is a
    symbolic link). A model trained anew (:func:`train_model`) starts without one."""
    return side_files_base(model_path) + JOURNAL_SUFFIX


def side_file(name):
    """What a file named ``name`` would be among the files textnb keeps beside a model file
    (one line's words, for an error message), or None.

    ``<model>.lock`` (:func:`model_lock`), ``<model>.learned`` (:func:`journal_path`) and
    its lock ``<model>.learned.lock``; the temporary files made in a model's folder, all
    hidden: a save's ``.tmp-<name>.<random>.part`` and the write check's
    ``.textnb-probe-<random>`` (:func:`textnb.core.model_io.is_temporary_name`), a
    per-user model's copy ``.tnb<random>`` (:data:`COPY_PREFIX`). A model of such a name
    would be written over, locked, or swept away as another model's (the daemon refuses a
    user name that makes one: :meth:`textnb.apps.spamd.UserModels.path`)."""
    if name.endswith(LOCK_SUFFIX):
        return f"a model's lock file, <model>{LOCK_SUFFIX} or <model>{JOURNAL_SUFFIX}{LOCK_SUFFIX}"
    if name.endswith(JOURNAL_SUFFIX):
        return f"a model's journal, <model>{JOURNAL_SUFFIX}"
    if is_temporary_name(name) or name.startswith(COPY_PREFIX):
        return f"a temporary file of a model's folder, .tmp-*.part, .textnb-probe-* or {COPY_PREFIX}*"
    return None


def update_model(model_path, *, register=(), unregister=(), create=True, kind=DEFAULT_KIND,
                 alpha=None, max_bytes=mail.DEFAULT_MAX_BYTES, n_jobs=None, journal=True, on_warning=None, hook=None):
    """Register / unregister messages in a model file, under the lock, atomically.

    Parameters
    ----------
    model_path : path
    register, unregister : iterable of (label, message bytes), or Mailboxes
        Messages to learn and to forget (``label`` is 'spam' or 'ham'); unregistering
        is applied first. They are taken a batch at a time, under the lock (an error on
        the way leaves the model file as it was); the mail of :class:`Mailboxes` is read
        and tokenised by ``n_jobs`` processes (as :func:`train_model`'s; a helper that fails
        is reported to ``on_warning``).
    create : bool
        Start a new model (of ``kind``, with ``alpha``) when the file does not exist.
    journal : bool
        Keep the model's journal (:func:`journal_path`; a new model starts one that lists
        every message, a model without one, e.g. trained by an earlier textnb, one that does
        not, as TELL starts it) with it: the journal's lock is taken first, as TELL takes it. A journal that
        lists every message the model counts (:func:`read_journal`'s ``complete``) is
        checked and kept: a message to unregister must be listed as its label, one to
        register must not be listed (else an InputError naming it, the model unchanged),
        and the changes are recorded. In any other journal the counts alone decide what may
        be unregistered, and the changes are recorded too (a registered message listed, an
        unregistered one no longer), with the new file's identity (:func:`model_identity`),
        so the daemon knows the model was learned into, not replaced, and its TELL finds
        what ``--register-*`` / ``--unregister-*`` did; a journal of another model file (one
        copied or moved over the model) starts anew, as TELL starts it. False: the caller
        (TELL) holds that lock and records the change (``hook``: called with the new model
        file's ``os.stat`` before it replaces the model, :func:`textnb.core.model_io.before_replace`,
        so the change is recorded first and a crash between the two loses nothing).

        The journal's lines of an update are appended before the new model file replaces
        the model, naming that file (:func:`read_journal` reads a journal whose model file
        never replaced the model without them), and a new journal (of a new model) is
        written to its temporary file before the model is replaced: a crash or failure
        between the writes never leaves a journal that lists what the model does not
        count, nor loses what it listed. Once the model is replaced the update has
        happened: the journal's rewrite that may follow (:func:`compact_journal`) is said to
        ``on_warning`` when it fails, not raised, and the stop signals are held from the
        journal's lines to the end of the update, so a stop that comes once the model is
        replaced lets it finish and return (:class:`~textnb.core.signals.HeldSignals`; until
        session 51 a SIGTERM during the rewrite made ``spamfilter`` exit 3 though the model
        counted the message, and a retry counted it twice).

    Returns
    -------
    dict
        ``{'registered': n, 'unregistered': n}``.
    """
    if isinstance(unregister, Mailboxes):
        first = unregister or None  # (is there any? a model that does not exist cannot forget)
    else:
        unregister = iter(unregister)
        first = next(unregister, None)
        if first is not None:
            unregister = chain([first], unregister)
    _refuse_model_target(model_path, [p for items in (register, unregister) if isinstance(items, Mailboxes)
                                      for _, paths in items.groups for p in paths])
    if not os.path.lexists(model_path):
        _refuse_missing(model_path, first, create, kind)  # (before any lock file is made; again under the lock)
    _prepare_folder(model_path)
    if not os.path.lexists(model_path):  # (a folder it cannot write in: said before the mail is read; an
        output_target(model_path)  # existing model's: by _refuse_model_target)
    new = journal and create and not os.path.lexists(model_path)  # a new model starts its journal
    # a model without one (trained by an earlier textnb) starts one too, not complete, as TELL starts it
    with _locked(model_path, journal, start=new or (journal and os.path.lexists(model_path))) as journal_file:
        # ledger: digest -> label of every message the model counts, when its journal lists them
        if journal_file is None:
            return _update_locked(model_path, register, unregister, first, create, kind, alpha, max_bytes, n_jobs,
                                  on_warning=on_warning, hook=hook)
        if new and not os.path.lexists(model_path):  # (still: not made by another meanwhile)
            ledger, changes, counts = {}, [], []

            def save_model(hook):
                counts.append(_update_locked(model_path, register, unregister, first, create, kind, alpha, max_bytes,
                                             n_jobs, ledger, changes, on_warning=on_warning, hook=hook))

            _save_with_journal(save_model, journal_file, lambda: (ledger, None not in changes), model_path=model_path,
                               on_warning=on_warning)
            return counts[0]
        started = not os.path.lexists(journal_file)
        fd = open_journal(journal_file)  # (before the model changes: a journal it cannot write stops it)
        held, replaced = HeldSignals(), []
        try:
            fd, seen, lines, complete = _journal_for_update(fd, journal_file, model_path)
            changes, noted = [], []

            def note(st):  # the new model file complete, before it replaces the model: its lines appended
                held.hold()  # (to the end of the update: a stop once the model is replaced lets it finish)
                lost = complete and None in changes  # (a message counted twice: no longer complete)
                noted.append((model_identity(None, st), lost))
                append_journal_line(fd, _journal_lines([c for c in changes if c is not None], noted[0][0], lost),
                                    journal_file)

            counts = _update_locked(model_path, register, unregister, first, create, kind, alpha, max_bytes, n_jobs,
                                    seen, changes, checked=complete, on_warning=on_warning, hook=note)
            replaced.append(True)
            now, lost = noted[0]
            # the model replaced, its lines noted: a crash from here loses nothing, a failed rewrite is a warning
            compact_journal(journal_file, seen, lines, [c for c in changes if c is not None], now,
                            complete=complete and not lost, force=lost, model_path=model_path, on_warning=on_warning)
        except BaseException:
            if started and not os.fstat(fd).st_size:  # (nothing recorded: no journal left where there was none)
                os.unlink(journal_file)
            raise
        finally:
            os.close(fd)
            held.release(saved=bool(replaced))  # (not replaced: a stop that waited acts now)
        return counts


def _journal_for_update(fd, path, model_path):
    """``(fd, digest -> label, lines, complete)`` of the journal at ``path``, open as ``fd``,
    for an update of the model at ``model_path`` (its locks held): a journal of another
    model file (one copied or moved over the model, as TELL reads it) starts anew, and one
    whose last lines name a model file that never replaced the model (a crash between the
    two: :func:`read_journal`) is rewritten without them, before the model changes (the
    journal then names the model as it is, and ``fd`` is the rewritten one's)."""
    now = model_identity(model_path)
    seen, lines, identity, complete, undone = _journal_state(path, now)
    replaced = identity is not None and identity != now
    if replaced:
        seen, complete = {}, False
    complete = complete and identity is not None
    if replaced or undone:
        write_journal(path, seen, now, complete=complete)
        os.close(fd)
        fd = open_journal(path)
        lines = len(seen) + 1 + complete
    return fd, seen, lines, complete


def _ledgered(items, ledger, method, journal, changes, checked=True):
    """``items`` (:func:`_labelled_features`' tuples) checked against and entered into
    ``ledger`` (digest -> label of the messages the model counts, once each: its
    journal's; None: not known), each change appended to ``changes``: a message to forget
    must be listed as its label (else an InputError naming it). A message to learn that is
    listed already is counted again, as always, but the ledger can no longer list the
    model's messages: ``changes`` gets ``None`` (the journal is then written without its
    :data:`_JOURNAL_ALL` line, and the counts alone decide from then on).

    Not ``checked`` (a journal that does not list every message the model counts: the
    counts decide what may be forgotten), the changes are entered all the same, so that
    the daemon's TELL, which reads the same journal, finds a registered message listed
    and an unregistered one gone (a message forgotten as a class it is not listed as
    leaves the listing as it was)."""
    for item in items:
        if ledger is not None:
            label, _, source, key = item
            digest, before = listed(ledger, key)
            if method == "forget":
                if before != label:
                    if not checked:
                        yield item
                        continue
                    was = "never registered" if before is None else f"registered as {before}, not {label}"
                    raise InputError(f"{source}: cannot unregister as {label}: {was} ({journal} lists the "
                                     "messages this model counts)")
                del ledger[digest]
                changes.append((digest, None))
            else:
                if before is not None:
                    changes.append(None)
                ledger[digest] = label
                changes.append((digest, label))
        yield item


def _update_locked(model_path, register, unregister, first, create, kind, alpha, max_bytes, n_jobs, ledger=None,
                   changes=None, checked=True, on_warning=None, hook=None):
    """:func:`update_model`'s work, its locks held (``ledger``, ``checked``: :func:`_ledgered`'s;
    ``hook``: called before the model file is replaced, :func:`textnb.core.model_io.before_replace`)."""
    if os.path.exists(model_path):
        model = load(model_path)
        _check_spam_model(model, os.fspath(model_path), learning=True)
    else:
        _refuse_missing(model_path, first, create, kind)
        model = new_spam_model(kind, alpha=alpha)
        _mark_mail(model, kind)  # (a model of another's making keeps what it reads: _features)
    journal = journal_path(model_path)
    n_forgot = _learn(model, _ledgered(_labelled_features(model, unregister, max_bytes, n_jobs, on_warning), ledger,
                                       "forget", journal, changes, checked), "forget")
    n_learnt = _learn(model, _ledgered(_labelled_features(model, register, max_bytes, n_jobs, on_warning), ledger,
                                       "learn", journal, changes, checked), "partial_fit")
    if not (n_learnt or n_forgot):  # (a new model with nothing learnt would not save)
        raise InputError("no messages found to register")
    _save_model(model, model_path, hook)
    return {"registered": n_learnt, "unregistered": n_forgot}


def _refuse_missing(model_path, first, create, kind):
    """Raise, for an update of the missing model ``model_path``, unless it may create one:
    ModelFileError with a message to unregister (``first``) or without ``create``;
    InputError for a ``kind`` fitted at once (:func:`learns_in_batches`: its first batch
    would be one class's messages). :func:`update_model` asks before it takes the locks (no
    lock file is left by a refused update) and again under them."""
    if first is not None:
        raise ModelFileError(f"{model_path}: {missing_reason(model_path, 'model file')} (nothing to unregister from)")
    if not create:
        raise ModelFileError(f"{model_path}: {missing_reason(model_path, 'model file')}")
    if not learns_in_batches(kind):
        raise InputError(f"a {kind} model is made from spam and ham together: train it first "
                         f"(--train-spam and --train-ham), then register messages into it")


def model_identity(model_path, stat_result=None):
    """The identity of the model file at ``model_path`` (or of ``stat_result``, a file's
    ``os.stat``) as the journal records it (``"<inode>:<size>:<mtime ns>"`` of the real
    file; None when it is missing): every textnb write makes a new one, and so does a file
    copied or moved over the model."""
    st = stat_result
    if st is None:
        try:
            st = os.stat(model_path)
        except OSError:
            return None
    return f"{st.st_ino}:{st.st_size}:{st.st_mtime_ns}"


def open_journal(path):
    """A descriptor for appending to the TELL journal at ``path`` (created if missing); an
    ``OSError`` when it is a symbolic link or not a regular file (opened before the model
    is changed, so a journal that cannot be written leaves the model as it was)."""
    return open_regular(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, follow=False)


def message_digest(data):
    """The journal's name of a raw message: the SHA-256 of it as a message, whatever
    mailbox it was saved in: without its ``X-TextNB-*`` fields and its mbox ``From`` lines
    (an mbox reader drops them: the message of a file that starts with one, and the same
    message read out of an mbox, are one), its body's quoted ``>From`` lines unquoted (an
    mbox writer's quoting, mboxo or mboxrd), its line ends as LF (as the mail reader ends
    lines: CRLF, and a bare CR in a text of bare-CR lines), and its end one line end
    however many it had (none: a file without a final newline, which an mbox writer ends;
    two: the blank separator line an mbox keeps after its last message). Found by user
    trials: a message registered from its mbox, or from its file, was 'never registered'
    when unregistered as its client saved it. A journal written before lists the message
    by :func:`_mbox_digest` or :func:`_earlier_digest` (:func:`digest_key`)."""
    return _sha256(_message_text(data).rstrip("\r\n") + "\n")


def _message_text(data):
    """The text :func:`message_digest` hashes, its end as the message had it (one
    character per byte: the bytes, line ends as LF)."""
    text = _lf(_strip_from_line(remove_headers(data)))
    if ">" in text:
        import re

        text = re.sub(r"(?m)^>+(?=From )", "", text)
    return text


def _sha256(text):
    return hashlib.sha256(text.encode("latin-1")).hexdigest()


def _mbox_digest(data):
    """The journal's name of a raw message from 2026-12-07 to session 48
    (:func:`message_digest` before it read the message's end as one line end)."""
    return _sha256(_message_text(data))


def _earlier_digest(data):
    """The journal's name of a raw message before :func:`message_digest` read it as a
    message (textnb 0.1.0 up to 2026-12-07): its bytes without the ``X-TextNB-*`` fields,
    every CR a line end. A journal written then lists its messages so."""
    data = remove_headers(data)
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return hashlib.sha256(data).hexdigest()


def digest_key(data):
    """:func:`message_digest` of ``data``, then, where they differ, the digests a journal
    written before that rule lists the message by (:func:`_mbox_digest`,
    :func:`_earlier_digest`), space separated: what the readers hand :func:`listed` (a str:
    it crosses the helpers' pipes as one)."""
    text = _message_text(data)  # (read once: the two digests of it differ by its end alone)
    digests = [_sha256(text.rstrip("\r\n") + "\n"), _sha256(text), _earlier_digest(data)]
    return " ".join(dict.fromkeys(digests))


def listed(seen, key):
    """``(digest, label)``: the digest by which the journal ``seen`` (digest -> label) lists
    the message of ``key`` (:func:`digest_key`: the first digest listed of its digests), and
    its label; ``(its digest, None)`` for a message it does not list."""
    digest, *earlier = key.split(" ")
    if digest not in seen:
        for other in earlier:
            if other in seen:
                return other, seen[other]
    return digest, seen.get(digest)


#: The journal is rewritten without its superseded lines once it has this many lines more
#: than it has messages learned (and more than twice as many): between those rewrites an
#: update appends its lines instead of rewriting the whole journal.
JOURNAL_SLACK = 1024
#: A journal's line saying it lists every message its model counts, once each (it began
#: with the model: :func:`train_model`, or a registration that made the model file).
_JOURNAL_ALL = "* all"
#: A journal's line saying that from there on it no longer lists every message (an update
#: counted a message twice), written with that update's lines before its model is replaced.
_JOURNAL_SOME = "* some"


def read_journal(path, model_id=None):
    """``(digest -> class, number of lines, model identity, complete)`` of the journal at
    ``path``: one line per message learned, ``<sha256> spam|ham <identity>``, and forgotten,
    ``<sha256> - <identity>``, the last line of a digest winning; the last identity read
    (of such a line, or of an ``@ <identity>`` line that ``spamfilter --register-*`` into a
    model whose journal is not complete, or a rewrite, writes) is the model file the
    journal was last learned into (:func:`model_identity`; None in a journal without
    one); ``complete``: whether it has the :data:`_JOURNAL_ALL` line and no
    :data:`_JOURNAL_SOME` line after it (it lists every message the model counts:
    :func:`update_model` then refuses to forget a message it does not list). A line that
    is not of that form (a write cut short by a crash) is skipped.

    An update appends its lines, naming the new model file, before that file replaces the
    model (:func:`textnb.core.model_io.before_replace`), so a crash between the two leaves
    a journal that names it: with ``model_id``, the identity of the model file there now,
    a journal whose last lines name another file while the lines before them name this
    one is read without those last lines (the update whose model was never written) and
    names ``model_id``. :func:`_journal_state` also tells whether that was so.
    """
    return _journal_state(path, model_id)[:4]


def _journal_state(path, model_id=None):
    """:func:`read_journal`'s tuple and whether its last lines were dropped (an update
    whose model file never replaced the model ``model_id``: the journal is to be rewritten
    before anything is appended to it)."""
    seen, lines, identity, complete = {}, 0, None, False
    before, undo, complete_before = None, {}, False  # (the last run of lines naming `identity`)
    try:
        fd = open_regular(path, os.O_RDONLY, follow=False)
    except FileNotFoundError:
        return seen, lines, identity, complete, False

    def name(new):
        nonlocal identity, before, undo, complete_before
        if new != identity:
            before, undo, complete_before, identity = identity, {}, complete, new

    with os.fdopen(fd, "rb") as f:
        for line in f:
            lines += 1
            text = line.decode("ascii", "replace").strip()
            if text in (_JOURNAL_ALL, _JOURNAL_SOME):
                complete = text == _JOURNAL_ALL
                continue
            digest, label, *rest = text.split() + ["", ""]
            if digest == "@":
                name(label)
                continue
            if len(digest) != 64:
                continue
            if rest[0]:
                name(rest[0])
            if label in ("spam", "ham", "-"):
                undo.setdefault(digest, seen.get(digest))
            if label in ("spam", "ham"):
                seen[digest] = label
            elif label == "-":
                seen.pop(digest, None)
    undone = model_id is not None and identity not in (None, model_id) and before == model_id
    if undone:  # (the last update's lines: its model file never replaced this one)
        for digest, label in undo.items():
            if label is None:
                seen.pop(digest, None)
            else:
                seen[digest] = label
        identity, complete = before, complete_before
    return seen, lines, identity, complete, undone


def write_journal(path, seen, identity, complete=False, mode=None):
    """Replace the journal at ``path`` by one line per message in ``seen``, the model's
    ``identity`` and, when ``complete``, the :data:`_JOURNAL_ALL` line (the caller holds its
    lock, and a journal that is there has been opened with :func:`open_journal`, so it is a
    regular file; a symbolic link is refused, never followed). Written as a model file is
    (:func:`textnb.core.model_io.atomic_write`): atomically, its mode ``mode``, else the
    replaced journal's, else ``0666 & ~umask``, its owner kept, an error naming it (it was
    0644 whatever the umask, a ``chmod 600`` undone, and a full disk said ``stdout: No space
    left on device``)."""
    atomic_write(path, _journal_writer(seen, identity, complete), mode=mode, follow=False)


def _journal_writer(seen, identity, complete):
    """The ``write(fileobj)`` of a journal of ``seen`` (:func:`write_journal`)."""
    head = f"{_JOURNAL_ALL}\n" if complete else ""
    data = (head + "".join(f"{d} {c}\n" for d, c in seen.items()) + f"@ {identity}\n").encode("ascii")
    return lambda f: f.write(data)


def compact_journal(path, seen, lines, changes, identity, complete=False, *, model_path, force=False,
                    on_warning=None):
    """After an update of the model ``model_path`` whose ``changes`` were appended to the
    journal at ``path`` (:func:`append_journal_line`; it then read as ``seen``, already
    updated, in ``lines`` lines, the changes' not counted) and whose model file ``identity``
    has replaced the model: the journal rewritten from ``seen`` (``complete``: with the
    :data:`_JOURNAL_ALL` line) when the superseded lines pass :data:`JOURNAL_SLACK`, or
    ``force``. The one post-replace step of ``spamfilter --register-*`` and TELL.

    The update has happened, and the journal, its lines appended, reads as the model
    already: a rewrite that fails (a full disk) leaves it so (its superseded lines kept; a
    later update rewrites it) and is said to ``on_warning`` (None: a
    :class:`~textnb.core.errors.DataWarning`), not raised. It was raised as the update's
    failure: ``spamfilter`` exited 3 though the model counted the message, so a retry
    counted it twice."""
    if not (force or _to_compact(lines, changes, seen)):
        return
    try:
        write_journal(path, seen, identity, complete=complete)
    except (OSError, TextnbError) as exc:
        why = os_error_text(exc, None) if isinstance(exc, OSError) else str(exc)
        _warn(on_warning, f"{model_path}: updated, and recorded in its journal; rewriting the journal without its "
                          f"superseded lines failed ({why}): they are kept")


def _to_compact(lines, changes, seen):
    """Whether a journal of ``lines`` lines, with ``changes`` appended, is to be rewritten
    from ``seen`` (:data:`JOURNAL_SLACK`)."""
    return lines + len(changes) > 2 * len(seen) + JOURNAL_SLACK


def _journal_lines(changes, identity, lost=False):
    """The journal's lines (one str) of ``changes`` into the model file ``identity``: one
    per change, or ``@ <identity>`` for none, then :data:`_JOURNAL_SOME` when the update
    counted a message twice (``lost``)."""
    lines = [f"{digest} {label or '-'} {identity}" for digest, label in changes] or [f"@ {identity}"]
    return "\n".join(lines + ([_JOURNAL_SOME] if lost else []))


def _check_journal(path):
    """Refuse (the OSError of :func:`open_journal`) a journal at ``path`` that is a symbolic
    link or not a regular file; a missing one is fine (none is made)."""
    try:
        os.close(open_regular(path, os.O_RDONLY, follow=False))
    except FileNotFoundError:
        pass


def _save_with_journal(save_model, journal, listing, *, model_path, on_warning=None):
    """Write a model and a new journal at ``journal`` together: ``save_model(hook)`` saves
    the model within :func:`textnb.core.model_io.before_replace`'s hook ``hook``, which
    writes the journal's temporary file (of ``listing()``: ``(seen, complete)``, or None
    for no journal) naming the new model file; the model is replaced, then the journal (or
    the journal removed). A failure before the model's replace (the journal's write, a
    full disk) changes neither; the stop signals are held from the journal's temporary
    file to its replace (one that came once the model was replaced lets the run finish:
    :class:`~textnb.core.signals.HeldSignals`).

    Once the model ``model_path`` is replaced the model is written: the journal's replace
    (or removal) that fails is said to ``on_warning`` (None: a
    :class:`~textnb.core.errors.DataWarning`), not raised, as :func:`compact_journal`'s
    rewrite; the journal left names another model file (or there is none), so the next
    registration starts it anew (until session 51 it was raised: ``spamfilter --train-*`` exited 3
    with the new model in place)."""
    _check_journal(journal)  # (a link or a FIFO: refused before the model changes)
    with contextlib.ExitStack() as stack:
        held, replace, done = HeldSignals(), [], []

        def hook(st):
            held.hold()  # (released after the journal's own hold: the stack's last callback)
            stack.callback(lambda: held.release(saved=bool(done)))
            got = listing()
            if got is not None:
                seen, complete = got
                writer = _journal_writer(seen, model_identity(None, st), complete)
                replace.append(stack.enter_context(staged_write(journal, writer, follow=False)))

        save_model(hook)
        done.append(True)  # (the model replaced: a stop held from here on came after the save)
        try:
            if replace:
                replace[0]()
            else:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(journal)
        except OSError as exc:
            what = "replacing" if replace else "removing"
            _warn(on_warning, f"{model_path}: written; {what} its journal failed ({os_error_text(exc, journal)}): "
                              "the next registration starts the journal anew, not listing the messages the model was "
                              "written with")


def _warn(on_warning, message):
    """Say ``message`` (a step after a model's replace that failed: the update stands) to
    ``on_warning``, or as a :class:`~textnb.core.errors.DataWarning` when it is None."""
    if on_warning is not None:
        on_warning(message)
    else:
        warnings.warn(message, DataWarning, stacklevel=3)


def append_journal_line(fd, line, path):
    """Append ``line`` (str, without its line end) to the journal at ``path``, open as
    ``fd``, on a line of its own (a line cut short by a crash must not swallow it), and
    sync it. A write that fails (a full disk) is taken back, the journal cut to its size
    before (a part of a line whose model-file field was cut would name another model file),
    and its OSError names ``path`` (it was said as ``stdout: No space left on device``: the
    write of a descriptor names no file)."""
    data = f"{line}\n".encode("ascii")
    size = os.fstat(fd).st_size
    if size and os.pread(fd, 1, size - 1) != b"\n":
        data = b"\n" + data
    try:
        while data:  # (a short write: the rest, or the error that cut it)
            data = data[os.write(fd, data):]
        os.fsync(fd)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.ftruncate(fd, size)
        if exc.filename is not None or exc.errno is None:
            raise
        raise OSError(exc.errno, exc.strerror, os.fspath(path)) from None


# -- topic routing ----------------------------------------------------------------------
@dataclass
class Route:
    """Where one document goes: ``label`` (or 'unsorted'), its confidence (the
    largest class probability) and ``destination`` (a fresh path under OUT).
    ``path`` is the source file (None for a message inside an mbox, whose bytes are
    in ``data``)."""

    source: str
    label: str
    confidence: float
    destination: str
    path: str = None
    data: bytes = None


#: a lone surrogate that is not a byte kept by ``surrogateescape`` (\udc80-\udcff): no character, no file name's byte
_NOT_A_BYTE = re.compile("[\ud800-\udc7f\udd00-\udfff]")


def _folder_name(label):
    """The folder of OUT a class's documents go to: its name, a path separator or NUL as
    ``_``, a lone surrogate other than a byte kept by ``surrogateescape`` (a label a library
    caller gave a model) as its escape ``\\ud800``, as the standard output writes it
    (:data:`textnb.apps.spamclient.SURROGATES`; *was*: an internal error)."""
    name = str(label).replace(os.sep, "_").replace("\0", "_").strip()
    if lone_surrogate(name) is not None:
        name = _NOT_A_BYTE.sub(lambda m: f"\\u{ord(m.group()):04x}", name)
    if name in ("", ".", ".."):
        name = "_" + name
    return name


def _check_folders(classes, threshold):
    """InputError when two classes would share a folder of OUT (``a/b`` and ``a_b``), or a
    class would share ``unsorted`` with the documents below a threshold: their documents
    could not be told apart."""
    seen = {"unsorted": None} if threshold > 0 else {}
    for c in classes:
        folder = _folder_name(c)
        if folder in seen:
            other = "the documents below the threshold" if seen[folder] is None else f"class {seen[folder]!r}"
            hint = " (or route with -t 0)" if seen[folder] is None else ""
            raise InputError(f"class {c!r} would share the folder {folder!r} with {other}; rename one of them{hint}")
        seen[folder] = c


def _fresh_name(folder, name, taken, tag="", ext=None):
    """A path in ``folder`` that no file has and ``taken`` does not hold (added to it): the
    file name ``name`` with ``tag`` before its extension (``ext`` given: ``name`` is the stem
    and ``ext`` the extension; a message of an mbox: ``<mbox name>``, ``-N``, ``.eml``), else
    with ``-1``, ``-2``, ... after that, every candidate, the first too, fitted to the 255 bytes
    of a file name (:func:`_fit_name`: found by a user trial, an mbox named with 250 bytes
    had messages that could never be routed, 'File name too long')."""
    for full in _names(folder, name, tag, ext):
        if full not in taken and not os.path.lexists(full):
            taken.add(full)
            return full


def _names(folder, name, tag="", ext=None):
    """The paths :func:`_fresh_name` tries, in its order (endless)."""
    if ext is not None:
        stem = name
    else:
        stem, ext = os.path.splitext(name)
        if stem == "" or name.startswith("."):
            stem, ext = name, ""
    for n in itertools.count():
        yield os.path.join(folder, _fit_name(stem, f"{tag}-{n}" if n else tag, ext))


def _fit_name(stem, tag, ext):
    """``stem + tag + ext`` within :data:`_NAME_MAX` bytes: the stem shortened first (whole
    characters, its first one kept), then the extension cut at its end (a 253-byte extension
    had no room for ``-1``: found by a user trial, such a file routed once could never be
    routed again); a name's bytes that are not UTF-8 (\\udc80-\\udcff) are kept as they are
    (found by a user trial: 'caf\\xe9.txt' routed twice became 'caf-1.txt')."""
    room = _NAME_MAX - _name_bytes(tag)
    if _name_bytes(stem) + _name_bytes(ext) > room:
        first = stem[:1] or "x"
        ext = _cut_name(ext, room - _name_bytes(first))
        stem = _cut_name(stem, room - _name_bytes(ext)) or first
    return f"{stem}{tag}{ext}"


def _name_bytes(text):
    """Bytes of ``text`` in a file name."""
    return len(text.encode("utf-8", "surrogateescape"))


def _cut_name(text, size):
    """The longest start of ``text`` (whole characters) of at most ``size`` bytes in a file name."""
    kept, used = [], 0
    for ch in text:
        used += _name_bytes(ch)
        if used > size:
            break
        kept.append(ch)
    return "".join(kept)


#: bytes of a file name (Linux, macOS)
_NAME_MAX = 255


def _under(path, folder_real):
    """Whether ``path`` is ``folder_real`` (a real path) or inside it."""
    real = os.path.realpath(path)
    return real == folder_real or real.startswith(folder_real.rstrip(os.sep) + os.sep)


def _documents(paths, mail_mode, max_bytes, out=None, on_error=None, on_warning=None):
    """(source, path or None, bytes or None) for each input document, the files listed as
    the mail reader lists them (:func:`textnb.io.mailread.message_files`: folders
    recursively, hidden and special files skipped, a Maildir's messages, links outside a
    folder reported); nothing inside the output folder ``out`` (when an input folder holds
    it, its earlier routes are not routed again). An mbox file is split as every command
    splits one (:func:`textnb.io.mailread.file_messages`: a file of one message is that
    file, ``FILE``; the messages of one of several ``FILE:N``, their bytes given, an empty
    one refused); a pipe named in ``paths`` (:func:`textnb.io.mailread.is_named_pipe`) is
    read once, its bytes given; any other document is given by its path (bytes None), read
    later (with ``mail_mode``: read now, as a message, its bytes given too). A file that cannot
    be read goes to ``on_error`` (None: raised). A file listed twice (a folder and a file
    in it, a link to it) is read once, under its first name that is not a symbolic link (the
    name ``--move`` moves: the links to it are left alone), else its first name. A folder of ``paths`` that lists no file is said to
    ``on_warning`` (:func:`~textnb.io.files.noting_empty_folder`)."""
    out_real = os.path.realpath(out) if out is not None else None

    def refuse(message):
        if on_error is None:
            raise InputError(message)
        on_error(message)

    # every PATH listed first (names only), then each document read once, under one of its names (a file
    # listed twice was routed again: copied twice, or moved and then missing): the first of its names that
    # is not a symbolic link, else its first name. A link listed before its file was what --move took: the
    # link deleted and the file left, routed again by the next run (found by a user trial)
    listed, chosen = [], {}
    for p in paths:
        p = os.fspath(p)
        refuse_device(p)  # (the one rule of every reader of a PATH)
        if out_real is not None and _under(p, out_real):  # (named: said, not skipped without a word)
            refuse(f"{p}: the output folder or inside it; not routed")
            continue
        for file, whole in noting_empty_folder(p, mail.message_files(p, on_error), on_warning):
            if out_real is not None and _under(file, out_real):
                continue
            link = os.path.islink(file)
            try:
                st = os.stat(file)
            except OSError:  # (the reader says why)
                key = None
            else:
                key = (st.st_dev, st.st_ino)
                before = chosen.get(key)
                if before is None or (listed[before][3] and not link):
                    chosen[key] = len(listed)
            listed.append((file, whole, key, link))
    for i, (file, whole, key, _) in enumerate(listed):
        if key is not None and chosen[key] != i:
            continue
        try:
            if whole is mail.PIPE:  # a pipe named (a folder's FIFOs are skipped), read once: its bytes routed
                # each message whole, as an mbox file's below (what is copied out is never cut: a mail
                # filter loses no mail); scoring reads its first max_bytes, as a file's
                for source, data in mail.read_messages(file, None, whole=whole):  # (an mbox in it split)
                    if mail.is_empty_message(data):
                        refuse(f"{source}: empty message")
                        continue
                    yield source, None, data
                continue
            box = None if whole else mail.mailbox_format(file)
            if box == "babyl":
                mail.refuse_babyl(file)
            if box is not None:  # an mbox or MMDF file: each message whole (it is copied out), one at a time
                messages = mail._mbox_in_pieces(file, None)
                first, second = next(messages, None), next(messages, None)
                if second is None:
                    # a file of one message is that message, named FILE, read and routed as the file it
                    # is, From line and all, as on every path that reads mail (io.mailread._one_or_many):
                    # it was FILE:1 here, copied out as FILE-1.eml, and never moved
                    if first is None or mail.is_empty_message(first[1]):
                        raise InputError(f"{file}: empty message")
                    yield file, file, None
                    continue
                for source, data in itertools.chain((first, second), messages):
                    if mail.is_empty_message(data):  # (refused in its place; the later messages read on)
                        refuse(f"{source}: empty message")
                        continue
                    yield source, None, data
                continue
            if mail_mode:  # read as mail now (an empty message refused, as the mail reader refuses it)
                yield from ((source, file, data) for source, data in mail.read_messages(file, max_bytes, whole=True))
                continue
            yield file, file, None
        except InputError as exc:
            if on_error is None:
                raise
            on_error(str(exc))


def plan_routes(model, paths, out, *, threshold=0.5, mail_mode=False, max_bytes=mail.DEFAULT_MAX_BYTES,
                on_error=None, document_bytes=None, on_warning=None, dry_run=False, move=False):
    """Classify documents and choose where each goes (no document is written).

    Parameters
    ----------
    model : TextClassifier
        Fitted.
    paths : list of path
        Files, folders, mbox files, Maildir folders or pipes (read once, their documents
        copied out). An mbox is split as every command splits one
        (:func:`textnb.io.mailread.file_messages`). A plain text model reads every
        document (a file, a Maildir message, a message of an mbox) as ``textnb predict``
        reads it (its bytes decoded as ``TextClassifier`` decodes a file), or parsed as
        mail with ``mail_mode``, as the daemon's ``"mail": true`` reads it (:func:`mail_features`:
        :func:`textnb.io.mail.message_text`, or what spamfilter feeds a spam model); a spamfilter model
        always as mail (:func:`_features`). A file listed twice (a folder and a file in
        it, a link to it) is routed once.
    out : path
        Output folder (made when missing; anything else than a folder there is an
        InputError before a document is read); each document goes to ``out/<label>/``
        or ``out/unsorted/``. When an input folder holds it, nothing inside it is read
        (earlier routes are not routed, renamed or moved again).
    threshold : float
        Below this confidence (largest class probability) a document is unsorted.
    on_error : callable, optional
        Called with a one-line message for a document that cannot be read (binary,
        unreadable); without it, the InputError is raised.
    on_warning : callable, optional
        Called with the one line for a folder of ``paths`` that holds no document
        (``PATH: no documents in this folder``); None: a DataWarning.
    document_bytes : int, optional
        Bytes read of a plain document (``textnb predict --max-bytes``); None: where the
        model cuts its documents (its ``max_bytes``, else 16 MiB), as ``textnb predict``
        without ``--max-bytes``.

    dry_run : bool
        A plan that is not carried out (``topicfilter --dry-run``): that OUT can be written
        is checked without making a file there (:func:`_check_writable`), so nothing at all
        is written (a probe file was made and removed in OUT, its times changed).
    move : bool
        The routes are moves (``topicfilter --move``): a file an earlier move put in the
        folder it is routed to before it was cut (:func:`_moved_before`) is routed to that
        name, where :func:`apply_route` finishes the move (a dry run showed the next free
        name, ``a-1.txt``, for a document the run then reported at its ``a.txt``).

    Yields
    ------
    Route
    """
    if not 0.0 <= threshold <= 1.0:
        raise InputError(f"the threshold must be between 0 and 1; got {threshold}")
    for p in paths:  # before anything is routed (a missing one stopped the run halfway)
        check_input(p)
    if os.path.lexists(out) and not os.path.isdir(out):  # (each document failed on its own, and one went unsaid)
        raise InputError(f"{os.fspath(out)}: cannot route documents into it: not a folder")
    taken = set()
    classes = label_names(model)
    _check_folders(classes, threshold)
    _check_writable(out, classes + ["unsorted"], probe=not dry_run)
    # one rule for what the model reads of a document, on every path: a spamfilter model of rendered
    # messages every document as a message, rendered as spamfilter and textnb predict render it (_features:
    # spam_text); a plain text model the document's text as textnb predict, spamfilter --batch and serve read
    # it (a message of an mbox: its bytes, as a file), or with --mail (mail_mode) mail_features, what serve's
    # "mail": true reads (it got message_text for every message of an mbox or Maildir, and for a file of one
    # message that starts with a From line, where the other paths read the text)
    from textnb.io.corpus import model_max_bytes

    as_mail = mail_mode or reads_mail(model)
    # cut where textnb predict cuts a document (io.corpus.model_max_bytes: --max-bytes, else where training
    # cut, a multi-label model's limit included), worked out once
    limit = model_max_bytes(model, document_bytes)
    it = _documents(paths, as_mail, max_bytes, out, on_error, on_warning)
    while True:
        batch = list(islice(it, _BATCH))
        if not batch:
            return
        docs, kept = [], []
        for source, path, data in batch:
            try:
                if as_mail:
                    if data is None:
                        data = mail._read_file(path, max_bytes)
                    docs.append(mail_features(model, data, max_bytes))
                else:
                    docs.append(_plain_text(path if data is None else data, model, limit, source))
            except InputError as exc:
                if on_error is None:
                    raise
                on_error(str(exc))
                continue
            kept.append((source, path, data))
        if not docs:
            continue
        proba = model.predict_proba(docs)
        best = np.argmax(proba, axis=1)
        for (source, path, data), j, row in zip(kept, best, proba):
            conf = float(row[j])
            label = classes[j] if conf >= threshold else "unsorted"
            folder = os.path.join(os.fspath(out), _folder_name(label))
            if path is not None:
                earlier = _moved_before(path, folder) if move and not names_a_descriptor(path) \
                    and not os.path.islink(path) else None
                destination = earlier if earlier is not None else _fresh_name(folder, os.path.basename(path), taken)
            elif _is_file_source(source, paths):  # a pipe read whole: its name
                destination = _fresh_name(folder, os.path.basename(source), taken)
            else:  # a message inside an mbox: <mbox name>-<n>.eml
                base, _, number = source.rpartition(":")
                destination = _fresh_name(folder, os.path.basename(base), taken, f"-{number}", ".eml")
            yield Route(source, label, conf, destination, path, None if path is not None else data)


def _is_file_source(source, paths):
    """Whether ``source`` names a PATH of ``paths`` itself (a pipe read whole), not a
    message ``FILE:N`` of it."""
    return source in {os.fspath(p) for p in paths}


def _plain_text(doc, model, limit, source=None):
    """The text a plain text model reads of a document, a file's path or a message's bytes
    (named ``source``), as ``textnb predict`` reads it, cut at ``limit`` bytes
    (:func:`textnb.io.corpus.model_max_bytes`, where textnb predict cuts it)."""
    from textnb.io.corpus import binary_document, binary_message, to_text, undecodable_reason
    from textnb.text.tokenize import model_decoding

    # (a vectorizer with its own encoding decodes the bytes, as the library's predict of a Path)
    doc = Path(doc) if not isinstance(doc, (bytes, bytearray)) else bytes(doc)
    decoding = model_decoding(model)
    try:
        text = to_text(doc, limit, decoding)
    except UnicodeDecodeError as exc:  # (its own strict encoding: left out, said so, as textnb predict does)
        raise InputError(f"{source or doc}: {undecodable_reason(exc, decoding)}") from None
    if text is None:  # (the library's line for it, which calls a UTF-16 text so, with the fix: it was "binary")
        if isinstance(doc, bytes):
            raise InputError(binary_message(source, doc[:8192], "a text document"))
        raise binary_document(doc)
    return text


def _check_writable(out, labels, probe=True):
    """InputError, before a document is read, when nothing can be routed into the folder
    ``out``: no file can be made in it, nor in a folder of one of ``labels`` there (a folder
    without write permission, a read-only file system: each document failed on its own, one
    line each). Without ``probe`` (a dry run) nothing is made to tell it
    (:func:`~textnb.core.model_io.cannot_write_in`)."""
    if not os.path.isdir(out):
        return  # (made when the first document is routed, its error then)
    why = cannot_write_in(out, probe)
    if why is None:
        return
    for label in labels:
        folder = os.path.join(os.fspath(out), _folder_name(label))
        if os.path.isdir(folder) and cannot_write_in(folder, probe) is None:
            return
    raise InputError(f"{os.fspath(out)}: cannot route documents into it ({why})")


def apply_route(route, *, move=False, placed=None):
    """Copy (or with ``move``, move) the document to ``route.destination``.

    The document is written whole into a hidden temporary file of the destination folder,
    then given its name by a hard link, which never replaces a file: if the name is taken
    (an existing file, even one a concurrent run made meanwhile) the next free name is used.
    So the destination name never holds a partial document, even after ``kill -9`` (found by
    a user trial: a 400 MB copy cut by it was left under its final name, 88-240 MB of it,
    and a rerun copied the document beside it; at worst a hidden ``.textnb-*`` file is left
    now). A move of a file is a hard link of the file itself and the removal of its source
    name (a copy across file systems). Returns the final destination. An interrupt (SIGINT,
    SIGTERM, SIGHUP) never cuts a step in two (:class:`~textnb.core.signals.HeldSignals`): it
    acts while bytes are copied (the temporary file removed, the source kept) or once the
    document is in place; so a document is always in its source or, whole, in OUT.
    ``placed(destination)`` is called once it is in place, before such an interrupt acts:
    what the caller reports of it (``topicfilter``'s line) is never lost to the interrupt
    (a document routed as Ctrl-C came was in OUT, or moved from its source, and not listed).
    """
    held = HeldSignals()
    held.hold()
    try:
        dest = _put(route, move, held)
        if placed is not None:  # (outside _put: an error of the caller's report is not one of the routing)
            placed(dest)
        return dest
    finally:
        held.release(saved=False)  # an interrupt that waited acts now, the document whole in one place


def _put(route, move, held):
    """:func:`apply_route`'s steps, the stop signals ``held`` (released while bytes are copied)."""
    folder = os.path.dirname(route.destination)
    # a message of an mbox is copied out; so is the document of standard input (/dev/stdin, /dev/fd/N), whatever
    # backs it: that name is the process's, never removed
    move = move and route.path is not None and not names_a_descriptor(route.path)
    tmp = None
    try:
        try:  # a label too long for a folder name, a read-only OUT: this document only
            os.makedirs(folder, exist_ok=True)
        except OSError as exc:
            why = exc.strerror or exc
            if exc.errno in (errno.EEXIST, errno.ENOTDIR) and not os.path.isdir(folder):  # (found by a user
                # trial: 'File exists' of a name that is free, OUT/<label> being a file, a FIFO, a link to nothing
                # or to a device: what it is said, as every writer says it)
                why = not_a_folder(folder)
            raise InputError(f"{route.source}: cannot write {_short(route.destination)} ({why})") from None
        if move and not os.path.islink(route.path):  # (a link: its target's bytes, below)
            dest = _moved_before(route.path, folder)
            if dest is not None:  # a move cut short (kill -9) between its link into OUT and the source's removal
                _unlink_source(route, dest)
                return dest
            try:
                dest = _link_fresh(route.path, route.destination, folder)
            except OSError:  # another file system, or one without hard links: copied, then removed
                pass
            else:
                _unlink_source(route, dest)
                return dest
        try:
            fd, tmp = tempfile.mkstemp(prefix=".textnb-", dir=folder)
        except OSError as exc:
            raise InputError(f"{route.source}: cannot write {_short(route.destination)} ({exc.strerror or exc})") \
                from None
        with os.fdopen(fd, "wb") as f:
            if route.path is None:
                f.write(route.data)
            else:
                try:
                    src = open(route.path, "rb")
                except OSError as exc:
                    raise InputError(f"{route.source}: cannot read ({exc.strerror or exc}); nothing written") \
                        from None
                with src:
                    held.release(saved=False)  # the copy may be interrupted: its temporary file is removed below
                    shutil.copyfileobj(src, f)
                    held.hold()
                    # the times and mode of the file read (its descriptor), not of what its name holds now: a
                    # source removed or replaced during the copy was reported as this copy's write error (found by
                    # a user trial: 'cannot write OUT/tech/huge.txt (No such file or directory)')
                    read = _file_stat(src.fileno())
        os.chmod(tmp, new_file_mode())  # (mkstemp's 0600: a new file's, 0666 & ~umask; a file's own mode below)
        if route.path is not None:
            _give_stat(tmp, *read)
        dest = _link_fresh(tmp, route.destination, folder)
        with contextlib.suppress(OSError):  # (before the source's removal: a run killed there leaves no hidden name)
            os.unlink(tmp)
        tmp = None
        if move:
            _unlink_source(route, dest)
        return dest
    except OSError as exc:
        raise InputError(f"{route.source}: cannot write {_short(route.destination)} ({exc.strerror or exc})") from None
    finally:
        if tmp is not None:  # the temporary file, linked or not: never left behind
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _file_stat(fd):
    """(``os.stat_result``, extended attributes) of the open file ``fd``: what
    :func:`_give_stat` gives a copy (as :func:`shutil.copystat`, from the file itself)."""
    attributes = {}
    if hasattr(os, "listxattr"):
        with contextlib.suppress(OSError):
            for name in os.listxattr(fd):
                with contextlib.suppress(OSError):
                    attributes[name] = os.getxattr(fd, name)
    return os.fstat(fd), attributes


def _give_stat(path, st, attributes):
    """Give the file ``path`` the mode, times and extended attributes of :func:`_file_stat`
    (an attribute the file system refuses is left out, as :func:`shutil.copystat` does)."""
    for name, value in attributes.items():
        with contextlib.suppress(OSError):
            os.setxattr(path, name, value)
    os.chmod(path, stat.S_IMODE(st.st_mode))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def _link_fresh(path, destination, folder):
    """Give the file ``path`` the name ``destination``, or the next free name beside it when
    it is taken (:func:`_fresh_name`), by a hard link (never replacing a file); the name."""
    dest = destination
    while True:
        try:
            os.link(path, dest, follow_symlinks=False)
            return dest
        except FileExistsError:
            dest = _fresh_name(folder, os.path.basename(destination), set())


def _moved_before(path, folder):
    """The name in ``folder`` (where the file ``path`` is routed) under which an earlier
    run already put the document it was moving, when that run was cut (``kill -9``, a
    crash) after the document's new name was made and before its source's name was
    removed; None for any other file. Found by a user trial: the document was then in both
    places, and the next run routed it again, ``a.txt`` and ``a-1.txt`` in OUT (one file).

    Such a name is one of those a run gives the file (:func:`_names`: its own name, then
    ``-1``, ``-2``, ... while they are taken), and holds the file itself (a move is a hard
    link), or, from another file system, its copy (a move there copies: the same size,
    modification time and bytes). Another hard link of the file under another name is not
    one (of ``c.txt`` and ``d.txt``, two names of one file, ``c.txt`` moved by an earlier run:
    ``d.txt`` is routed as the document it is, docs/spam.md)."""
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    for name in _names(folder, os.path.basename(path)):
        try:
            other = os.stat(name, follow_symlinks=False)
        except OSError:  # (the first free name: the run would give it this one; or a folder it cannot read)
            return None
        if (other.st_dev, other.st_ino) == (st.st_dev, st.st_ino):
            return name
        if other.st_dev != st.st_dev and stat.S_ISREG(other.st_mode) and (other.st_size, other.st_mtime_ns) == (
                st.st_size, st.st_mtime_ns) and _same_bytes(path, name):
            return name


def _same_bytes(path, other):
    """Whether the files ``path`` and ``other`` hold the same bytes (False when one cannot be read)."""
    try:
        with open(path, "rb") as a, open(other, "rb") as b:
            while True:
                x, y = a.read(1 << 20), b.read(1 << 20)
                if x != y:
                    return False
                if not x:
                    return True
    except OSError:
        return False


def _unlink_source(route, dest):
    """A move's last step: the source's name removed (the document is at ``dest``); when it
    cannot be, the copy at ``dest`` is removed and the source stays, said in one line. A
    source gone meanwhile (another run moved it, or it was removed) is not "left in place"
    (what was said, found by a user trial of two runs at once): when ``dest`` is a hard link
    of the document that has another name (the other run's, in OUT), ``dest`` is removed
    (the document once in OUT) and that is said; else ``dest`` is the document's only copy
    and stays, the move done."""
    try:
        os.unlink(route.path)
    except FileNotFoundError:
        with contextlib.suppress(OSError):
            if os.stat(dest).st_nlink > 1:
                os.unlink(dest)
                raise InputError(f"{route.source}: gone from its source as it was moved (another run may have moved "
                                 f"it: it is under another name); not routed again") from None
    except OSError as exc:  # the source stays: so does nothing else
        with contextlib.suppress(OSError):
            os.unlink(dest)
        raise InputError(f"{route.source}: cannot move ({exc.strerror or exc}); left in place") from None


def _short(path, limit=200):
    """A path for a one-line message: its middle elided when it is very long."""
    path = os.fspath(path)
    return path if len(path) <= limit else f"{path[:limit // 2]}...{path[-limit // 2:]}"
