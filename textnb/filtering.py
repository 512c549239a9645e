"""Filtering: spam verdicts with two cut-offs, safe incremental model updates, routing.

The spam side works like bogofilter: a message gets a spam log-odds (for the default
model, :class:`textnb.spamscore.SpamScorer`, a length-normalised one) and one of three
verdicts,

* ``spam`` when ``P(spam) = 1 / (1 + exp(-log_odds))`` is at least ``spam_cutoff``
  (default :data:`DEFAULT_SPAM_CUTOFF`, 0.9999),
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

import argparse
import contextlib
import fcntl
import math
import os
import shutil
import sys
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

import numpy as np

from textnb import mail
from textnb.argtypes import bounded
from textnb.errors import InputError, ModelFileError, TextnbError

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
    "new_spam_model",
    "spam_text",
    "model_lock",
    "train_model",
    "update_model",
    "add_headers",
    "Route",
    "plan_routes",
    "apply_route",
    "filter_main",
    "topic_main",
]

SPAM, HAM, UNSURE = "spam", "ham", "unsure"
CLASSES = (HAM, SPAM)
#: The lowest spam cut-off that held the pooled out-of-fold ham false positives of the
#: default kind at or below 0.05 % on each corpus (``scripts/bench_spam.py --select``).
DEFAULT_SPAM_CUTOFF = 0.9999
DEFAULT_HAM_CUTOFF = 0.45
#: Exit status of ``spamfilter`` for each verdict (bogofilter's), and for an error.
EXIT_CODES = {SPAM: 0, HAM: 1, UNSURE: 2}
EXIT_ERROR = 3
HEADER_PREFIX = b"X-TextNB-"
MODEL_KINDS = {"multinomial": "MultinomialNB", "bernoulli": "BernoulliNB", "complement": "ComplementNB",
               "boolean": "SpamScorer", "fisher": "SpamScorer", "geometric": "SpamScorer"}
#: :class:`textnb.spamscore.SpamScorer` settings of the kinds fed raw mail tokens:
#: ``boolean`` = multinomial NB on Boolean attributes (Metsis et al. 2006), length-normalised;
#: ``fisher`` = bogofilter's Robinson-Fisher; ``geometric`` = Robinson's geometric mean.
SPAM_KINDS = {"boolean": {"method": "multinomial", "alpha": 0.01, "length_norm": True},
              "fisher": {"method": "fisher"}, "geometric": {"method": "geometric"}}
#: The kind of a new spam model (``--kind``), chosen by ``scripts/bench_spam.py --select``:
#: the best average over SpamAssassin, CSDMC2010 and SMS of 5-fold cross-validation inside
#: each training part, among the scorings whose ham false positives can be held at
#: 0.05 % by a cut-off (docs/spam.md).
DEFAULT_KIND = "boolean"
_BATCH = 500


# -- verdicts ---------------------------------------------------------------------------
def _logit(p):
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
    if log_odds >= _logit(spam_cutoff):
        return SPAM
    if log_odds <= _logit(ham_cutoff):
        return HAM
    return UNSURE


@dataclass(frozen=True)
class Verdict:
    """The outcome for one message: ``label`` (spam / ham / unsure), ``score`` =
    P(spam), ``log_odds`` = log P(spam) - log P(ham) (keeps its resolution)."""

    label: str
    score: float
    log_odds: float


def default_model_path(name="spam.tnb", environ=None):
    """``$XDG_DATA_HOME/textnb/<name>``, else ``~/.local/share/textnb/<name>``."""
    environ = os.environ if environ is None else environ
    base = environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "textnb" / name


#: Smoothing of the default spam model, chosen by 5-fold cross-validation on the training
#: half of the SpamAssassin split (``scripts/bench_spam.py --select``, docs/spam.md).
DEFAULT_SPAM_ALPHA = 0.001
#: Whether the spam model sees all header fields (see :func:`textnb.mail.message_text`).
SPAM_ALL_HEADERS = True


def spam_text(data, max_bytes=mail.DEFAULT_MAX_BYTES):
    """What a spam model sees of a message: :func:`textnb.mail.message_text` with every
    token once (``unique=True``) and ``all_headers`` = :data:`SPAM_ALL_HEADERS`."""
    return mail.message_text(data, max_bytes=max_bytes, all_headers=SPAM_ALL_HEADERS, unique=True)


def new_spam_model(kind=DEFAULT_KIND, *, alpha=None, vectorizer=None):
    """An unfitted spam model.

    ``kind``: ``boolean`` (default), ``fisher`` or ``geometric``: a
    :class:`textnb.spamscore.SpamScorer` with :data:`SPAM_KINDS` settings, fed
    :func:`textnb.spamscore.message_tokens` (``alpha`` and ``vectorizer`` do not apply); ``multinomial`` (``alpha`` = :data:`DEFAULT_SPAM_ALPHA`; fed
    :func:`spam_text`, so this is multinomial NB over word presence), ``bernoulli``
    or ``complement``: a :class:`~textnb.TextClassifier`; ``alpha`` None keeps each default.
    """
    import textnb

    if kind in SPAM_KINDS:
        from textnb.spamscore import SpamScorer

        return SpamScorer(**SPAM_KINDS[kind])

    cls_name = MODEL_KINDS.get(kind)
    cls = getattr(textnb, cls_name, None) if cls_name else None
    if cls is None:
        raise InputError(f"unknown or unavailable model kind {kind!r}; choose from "
                         f"{', '.join(k for k, v in MODEL_KINDS.items() if hasattr(textnb, v))}")
    if alpha is None and kind == "multinomial":
        alpha = DEFAULT_SPAM_ALPHA
    model = cls() if alpha is None else cls(alpha=alpha)
    return textnb.TextClassifier(vectorizer=vectorizer, model=model)


def _reads_raw_mail(model):
    """True for models fed :func:`textnb.spamscore.message_tokens` (not :func:`spam_text`)."""
    return type(model).__name__ == "SpamScorer"


def _features(model, data, max_bytes):
    """What ``model`` is fed for one raw message."""
    if _reads_raw_mail(model):
        from textnb.spamscore import message_tokens

        return message_tokens(data, max_bytes)
    return spam_text(data, max_bytes)


def _check_spam_model(model, path):
    classes = [str(c) for c in getattr(model, "classes_", [])]
    if SPAM not in classes or not hasattr(model, "predict_log_odds"):
        raise ModelFileError(f"{path}: not a spam model (classes {classes}; need 'ham' and 'spam')")
    return classes.index(SPAM)


class SpamFilter:
    """A fitted spam model with its two cut-offs.

    Parameters
    ----------
    model : TextClassifier
        Fitted, with a class ``'spam'`` (the other classes count as ham).
    spam_cutoff, ham_cutoff : float
        Probabilities; see the module docstring.
    max_bytes : int
        Bytes of each message that are parsed (:data:`textnb.mail.DEFAULT_MAX_BYTES`).
    """

    def __init__(self, model, *, spam_cutoff=DEFAULT_SPAM_CUTOFF, ham_cutoff=DEFAULT_HAM_CUTOFF,
                 max_bytes=mail.DEFAULT_MAX_BYTES, source="model"):
        check_cutoffs(spam_cutoff, ham_cutoff)
        self.model = model
        self.spam_cutoff, self.ham_cutoff = spam_cutoff, ham_cutoff
        self.max_bytes = max_bytes
        self._spam = _check_spam_model(model, source)

    @classmethod
    def load(cls, path, **kwargs):
        """Read a model file (raises :class:`ModelFileError` with a one-line message)."""
        import textnb

        return cls(textnb.load(path), source=os.fspath(path), **kwargs)

    def log_odds_texts(self, texts):
        """Spam log-odds of message texts (as made by :func:`spam_text`)."""
        texts = list(texts)
        if not texts:
            return np.zeros(0)
        return self.model.predict_log_odds(texts)[:, self._spam]

    def log_odds(self, messages):
        """Spam log-odds of raw messages (bytes)."""
        return self.log_odds_texts(_features(self.model, m, self.max_bytes) for m in messages)

    def verdicts_from_log_odds(self, log_odds):
        return [Verdict(verdict_of(lo, self.spam_cutoff, self.ham_cutoff), _expit(float(lo)), float(lo))
                for lo in log_odds]

    def classify(self, messages):
        """A :class:`Verdict` for each raw message (bytes)."""
        return self.verdicts_from_log_odds(self.log_odds(messages))

    def classify_stream(self, pairs, batch_size=_BATCH):
        """``(source, Verdict)`` for each ``(source, bytes)`` pair, in batches."""
        it = iter(pairs)
        while True:
            batch = list(islice(it, batch_size))
            if not batch:
                return
            verdicts = self.classify([data for _, data in batch])
            yield from zip((s for s, _ in batch), verdicts)


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


# -- model updates under a lock -----------------------------------------------------
@contextlib.contextmanager
def model_lock(model_path):
    """Hold an exclusive ``fcntl.flock`` on ``<model_path>.lock`` (created if needed)."""
    lock_path = os.fspath(model_path) + ".lock"
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
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


def _prepare_folder(model_path):
    folder = os.path.dirname(os.path.abspath(os.fspath(model_path)))
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as exc:
        raise InputError(f"{folder}: cannot create folder ({exc.strerror or exc})") from None


def _messages(paths, max_bytes, stdin=None):
    """Raw messages of each path ('-' = one message from ``stdin``, a binary stream)."""
    for p in paths:
        if os.fspath(p) == "-":
            stream = stdin if stdin is not None else sys.stdin.buffer
            data, _ = mail.read_capped(stream, max_bytes)
            yield data
        else:
            for _, data in mail.iter_messages(p, max_bytes=max_bytes):
                yield data


def _learn(model, pairs, max_bytes, method, progress=None):
    """Feed ``(label, message bytes)`` pairs in batches to ``model.partial_fit``/``forget``."""
    it = iter(pairs)
    done = 0
    while True:
        batch = list(islice(it, _BATCH))
        if not batch:
            return done
        texts = [_features(model, data, max_bytes) for _, data in batch]
        labels = [label for label, _ in batch]
        with np.errstate(divide="ignore"):  # log 0 = -inf for a class with no counts yet
            if method == "forget":
                try:
                    model.forget(texts, labels)
                except ValueError as exc:
                    raise InputError(f"cannot unregister: {exc}") from None
            else:
                model.partial_fit(texts, labels, classes=list(CLASSES))
        done += len(batch)
        if progress is not None:
            progress(done)


def train_model(model_path, spam_paths, ham_paths, *, kind=DEFAULT_KIND, alpha=None, vectorizer=None,
                max_bytes=mail.DEFAULT_MAX_BYTES, progress=None):
    """Train a new spam model from mail (files, folders, mbox, Maildir) and write it.

    Replaces any model at ``model_path`` (under the lock, atomically). Messages are
    streamed in batches, so memory does not grow with the number of messages.
    Returns ``{'spam': n, 'ham': n}``.
    """
    model = new_spam_model(kind, alpha=alpha, vectorizer=vectorizer)
    counts = {}

    def pairs(label, paths):
        for data in _messages(paths, max_bytes):
            counts[label] = counts.get(label, 0) + 1
            yield label, data

    def both():
        yield from pairs(SPAM, spam_paths)
        yield from pairs(HAM, ham_paths)

    _learn(model, both(), max_bytes, "partial_fit", progress)
    for label in CLASSES:
        if not counts.get(label):
            raise InputError(f"no {label} messages to train on")
    _prepare_folder(model_path)
    with model_lock(model_path):
        model.save(model_path)
    return {SPAM: counts[SPAM], HAM: counts[HAM]}


def update_model(model_path, *, register=(), unregister=(), create=True, kind=DEFAULT_KIND,
                 alpha=None, max_bytes=mail.DEFAULT_MAX_BYTES):
    """Register / unregister messages in a model file, under the lock, atomically.

    Parameters
    ----------
    model_path : path
    register, unregister : iterable of (label, message bytes)
        Messages to learn and to forget (``label`` is 'spam' or 'ham'); unregistering
        is applied first.
    create : bool
        Start a new model (of ``kind``, with ``alpha``) when the file does not exist.

    Returns
    -------
    dict
        ``{'registered': n, 'unregistered': n}``.
    """
    import textnb

    register, unregister = list(register), list(unregister)
    for label, _ in register + unregister:
        if label not in CLASSES:
            raise InputError(f"unknown label {label!r}; use 'spam' or 'ham'")
    _prepare_folder(model_path)
    with model_lock(model_path):
        if os.path.exists(model_path):
            model = textnb.load(model_path)
            _check_spam_model(model, os.fspath(model_path))
        elif unregister:
            raise ModelFileError(f"{model_path}: no such model file (nothing to unregister from)")
        elif create:
            model = new_spam_model(kind, alpha=alpha)
        else:
            raise ModelFileError(f"{model_path}: no such model file")
        n_forgot = _learn(model, unregister, max_bytes, "forget")
        n_learnt = _learn(model, register, max_bytes, "partial_fit")
        model.save(model_path)
    return {"registered": n_learnt, "unregistered": n_forgot}


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


def _folder_name(label):
    name = str(label).replace(os.sep, "_").replace("\0", "_").strip()
    if name in ("", ".", ".."):
        name = "_" + name
    return name


def _fresh_name(folder, name, taken):
    stem, ext = os.path.splitext(name)
    if stem == "" or name.startswith("."):
        stem, ext = name, ""
    candidate, n = name, 0
    while True:
        full = os.path.join(folder, candidate)
        if full not in taken and not os.path.lexists(full):
            taken.add(full)
            return full
        n += 1
        candidate = f"{stem}-{n}{ext}"


def _documents(paths, mail_mode, max_bytes):
    """(source, path or None, bytes or None, is_mail) for each input document."""
    for p in paths:
        p = os.fspath(p)
        if not os.path.exists(p):
            raise InputError(f"{p}: no such file or folder")
        if mail.is_maildir(p) or (os.path.isfile(p) and mail.is_mbox(p)) or (mail_mode and os.path.isdir(p)):
            for source, data in mail.iter_messages(p, max_bytes=max_bytes):
                in_file = os.path.isfile(source)
                yield source, (source if in_file else None), data, True
        elif os.path.isdir(p):
            for root, dirs, files in os.walk(p):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(files):
                    if not name.startswith("."):
                        full = os.path.join(root, name)
                        if mail.is_mbox(full):
                            for source, data in mail.iter_messages(full, max_bytes=max_bytes):
                                yield source, (source if os.path.isfile(source) else None), data, True
                        else:
                            yield full, full, None, mail_mode
        else:
            yield p, p, None, mail_mode


def plan_routes(model, paths, out, *, threshold=0.5, mail_mode=False, max_bytes=mail.DEFAULT_MAX_BYTES,
                on_error=None):
    """Classify documents and choose where each goes (nothing is written).

    Parameters
    ----------
    model : TextClassifier
        Fitted.
    paths : list of path
        Files, folders, mbox files or Maildir folders. Messages of mbox files and
        Maildirs are parsed as mail; other files are read as plain documents (the way
        ``TextClassifier`` reads files), or as mail with ``mail_mode``.
    out : path
        Output folder; each document goes to ``out/<label>/`` or ``out/unsorted/``.
    threshold : float
        Below this confidence (largest class probability) a document is unsorted.
    on_error : callable, optional
        Called with a one-line message for a document that cannot be read (binary,
        unreadable); without it, the InputError is raised.

    Yields
    ------
    Route
    """
    if not 0.0 <= threshold <= 1.0:
        raise InputError(f"the threshold must be between 0 and 1; got {threshold}")
    taken = set()
    classes = [str(c) for c in model.classes_]
    it = _documents(paths, mail_mode, max_bytes)
    while True:
        batch = list(islice(it, _BATCH))
        if not batch:
            return
        docs, kept = [], []
        for source, path, data, is_mail in batch:
            try:
                if is_mail:
                    if data is None:
                        data = mail._read_file(path, max_bytes)
                    docs.append(mail.message_text(data, max_bytes=max_bytes))
                else:
                    docs.append(_plain_text(path, model))
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
                name = os.path.basename(path)
            else:  # a message inside an mbox: <mbox name>-<n>.eml
                base, _, number = source.rpartition(":")
                name = f"{os.path.basename(base)}-{number}.eml"
            yield Route(source, label, conf, _fresh_name(folder, name, taken), path,
                        None if path is not None else data)


def _plain_text(path, model):
    from textnb.corpus import to_text

    text = to_text(Path(path), getattr(model, "max_bytes", mail.DEFAULT_MAX_BYTES))
    if text is None:
        raise InputError(f"{path}: binary file, not a text document")
    return text


def apply_route(route, *, move=False):
    """Copy (or with ``move``, move) the document to ``route.destination``.

    The destination name is claimed with ``O_CREAT | O_EXCL`` first, so an existing
    file is never overwritten, even by a concurrent run: if the name was taken in the
    meantime the next free name is used. Returns the final destination.
    """
    folder = os.path.dirname(route.destination)
    os.makedirs(folder, exist_ok=True)
    dest = route.destination
    while True:
        try:
            fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            break
        except FileExistsError:
            dest = _fresh_name(folder, os.path.basename(route.destination), set())
    try:
        if route.path is None:
            with os.fdopen(fd, "wb") as f:
                f.write(route.data)
            return dest
        if move:
            os.close(fd)
            try:
                os.rename(route.path, dest)  # replaces only our own empty placeholder
                return dest
            except OSError:
                pass
            fd = os.open(dest, os.O_WRONLY | os.O_TRUNC)
        with os.fdopen(fd, "wb") as f, open(route.path, "rb") as src:
            shutil.copyfileobj(src, f)
        shutil.copystat(route.path, dest)
        if move:
            os.unlink(route.path)
        return dest
    except OSError as exc:
        if route.path is None or os.path.exists(route.path):  # the source is intact: drop the partial copy
            with contextlib.suppress(OSError):
                os.unlink(dest)
        raise InputError(f"{route.source}: cannot write {dest} ({exc.strerror or exc})") from None


# -- command line ---------------------------------------------------------------------
_probability = bounded(float, low=0.0, high=1.0)


def _size(text):
    units = {"k": 1024, "m": 1024**2, "g": 1024**3}
    t = text.strip().lower().rstrip("b")
    mult = units.get(t[-1:], 1)
    try:
        v = int(float(t[:-1] if t[-1:] in units else t) * mult)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (e.g. 10M)") from None
    if v <= 0:
        raise argparse.ArgumentTypeError(f"must be positive: {text}")
    return v


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so errors map to our exit codes."""

    def error(self, message):
        raise InputError(f"{message} (see --help)")


def _spam_parser():
    p = _Parser(
        prog="spamfilter",
        description="Classify mail as spam / ham / unsure with a textnb model (bogofilter-style). "
                    "Without a mode option: read one message from stdin; the exit status is the "
                    "verdict (0 spam, 1 ham, 2 unsure, 3 error).",
    )
    p.add_argument("--model", "-m", metavar="FILE",
                   help="model file (default: $XDG_DATA_HOME/textnb/spam.tnb or "
                        "~/.local/share/textnb/spam.tnb)")
    p.add_argument("--passthrough", "-p", action="store_true",
                   help="write the message to stdout with X-TextNB-Class/-Score/-Log-Odds headers added")
    p.add_argument("--exit-zero", "-e", action="store_true",
                   help="with -p: exit 0 whatever the verdict (3 still means error)")
    p.add_argument("--spam-cutoff", type=_probability, default=DEFAULT_SPAM_CUTOFF, metavar="P",
                   help=f"P(spam) at or above which a message is spam (default {DEFAULT_SPAM_CUTOFF})")
    p.add_argument("--ham-cutoff", type=_probability, default=DEFAULT_HAM_CUTOFF, metavar="P",
                   help=f"P(spam) at or below which a message is ham (default {DEFAULT_HAM_CUTOFF}); "
                        "between the two: unsure")
    p.add_argument("--max-bytes", type=_size, default=mail.DEFAULT_MAX_BYTES, metavar="SIZE",
                   help="bytes of each message that are read (default 10M); the rest is skipped")
    p.add_argument("--batch", "-B", nargs="+", metavar="PATH",
                   help="classify every message of these files / folders / mbox / Maildir; print "
                        "source<TAB>verdict<TAB>score per message (score: the spam log-odds, full "
                        "precision)")
    p.add_argument("--log-odds", action="store_true",
                   help="with --batch: add the spam log-odds as a fourth column")
    p.add_argument("--train-spam", nargs="+", metavar="PATH", help="spam to train a new model on")
    p.add_argument("--train-ham", nargs="+", metavar="PATH", help="ham to train a new model on")
    p.add_argument("--kind", default=DEFAULT_KIND, choices=sorted(MODEL_KINDS),
                   help=f"model for --train and for a model created by --register-* (default {DEFAULT_KIND})")
    p.add_argument("--alpha", type=float, default=None, metavar="A",
                   help=f"smoothing of a new multinomial/bernoulli/complement model (default "
                        f"{DEFAULT_SPAM_ALPHA} for multinomial)")
    for op in ("register-spam", "register-ham", "unregister-spam", "unregister-ham"):
        p.add_argument(f"--{op}", nargs="*", metavar="PATH",
                       help=f"{op.replace('-', ' ')}: messages from PATHs, or one from stdin")
    return p


def _err(stream, prog, message):
    stream.write(f"{prog}: {message}\n")
    stream.flush()


def filter_main(argv=None, *, stdin=None, stdout=None, stderr=None):
    """``spamfilter`` command line; returns the exit status (0 spam, 1 ham, 2 unsure, 3 error).

    ``stdin``/``stdout`` are binary streams, ``stderr`` a text stream (defaults: the
    process's). Training, registering and batch mode exit 0 on success, 3 on error.
    """
    stdin = stdin if stdin is not None else sys.stdin.buffer
    stdout = stdout if stdout is not None else sys.stdout.buffer
    stderr = stderr if stderr is not None else sys.stderr
    head = None
    argv = list(sys.argv[1:] if argv is None else argv)
    passthrough = "-p" in argv or "--passthrough" in argv
    try:
        args = _spam_parser().parse_args(argv)
        passthrough = args.passthrough
        check_cutoffs(args.spam_cutoff, args.ham_cutoff)
        model_path = args.model or default_model_path()
        ops = {op: getattr(args, op.replace("-", "_")) for op in
               ("register_spam", "register_ham", "unregister_spam", "unregister_ham")}
        ops = {k: v for k, v in ops.items() if v is not None}
        training = args.train_spam is not None or args.train_ham is not None
        modes = sum([bool(ops), training, args.batch is not None])
        if modes > 1:
            raise InputError("choose one of --batch, --train-*, --register-*/--unregister-*")
        if training:
            if not args.train_spam or not args.train_ham:
                raise InputError("training needs both --train-spam PATH and --train-ham PATH")
            counts = train_model(model_path, args.train_spam, args.train_ham, kind=args.kind,
                                 alpha=args.alpha, max_bytes=args.max_bytes)
            _err(stderr, "spamfilter", f"trained {model_path} on {counts[SPAM]} spam and "
                                       f"{counts[HAM]} ham messages")
            return 0
        if ops:
            return _register(ops, model_path, args, stdin, stderr)
        if args.batch is None:  # read first: in -p mode the message must survive any error
            head = stdin.read(args.max_bytes)
        sf = SpamFilter.load(model_path, spam_cutoff=args.spam_cutoff, ham_cutoff=args.ham_cutoff,
                             max_bytes=args.max_bytes)
        if args.batch is not None:
            return _batch(sf, args, stdin, stdout)
        if not head.strip():
            raise InputError("stdin: empty message")
        v = sf.classify([head])[0]
        if passthrough:
            stdout.write(add_headers(head, v))
            shutil.copyfileobj(stdin, stdout)
            stdout.flush()
            return 0 if args.exit_zero else EXIT_CODES[v.label]
        mail.read_capped(stdin, 0)  # drain: the sender is not cut off
        return EXIT_CODES[v.label]
    except TextnbError as exc:
        _err(stderr, "spamfilter", str(exc))
    except OSError as exc:
        _err(stderr, "spamfilter", f"{getattr(exc, 'filename', None) or 'i/o'}: {exc.strerror or exc}")
    except MemoryError:
        _err(stderr, "spamfilter", "out of memory (lower --max-bytes)")
    except Exception as exc:  # a mail filter must not die with a traceback
        _err(stderr, "spamfilter", f"internal error: {type(exc).__name__}: {exc}")
    if passthrough:  # never lose the message
        with contextlib.suppress(OSError):
            stdout.write(head if head is not None else b"")
            shutil.copyfileobj(stdin, stdout)
            stdout.flush()
    return EXIT_ERROR


def _register(ops, model_path, args, stdin, stderr):
    stdin_data = None
    lists = {"register": [], "unregister": []}
    for op, paths in ops.items():
        kind, label = op.split("_")
        paths = paths or ["-"]
        for p in paths:
            if p == "-":
                if stdin_data is None:
                    stdin_data = mail.read_capped(stdin, args.max_bytes)[0]
                    if not stdin_data.strip():
                        raise InputError("stdin: empty message")
                lists[kind].append((label, stdin_data))
            else:
                lists[kind].extend((label, d) for d in _messages([p], args.max_bytes))
    done = update_model(model_path, register=lists["register"], unregister=lists["unregister"],
                        kind=args.kind, alpha=args.alpha, max_bytes=args.max_bytes)
    if not done["registered"] and not done["unregistered"]:
        raise InputError("no messages found to register")
    return 0


def _batch(sf, args, stdin, stdout):
    def pairs():
        for p in args.batch:
            if p == "-":
                yield "-", mail.read_capped(stdin, args.max_bytes)[0]
            else:
                yield from mail.iter_messages(p, max_bytes=args.max_bytes)

    for source, v in sf.classify_stream(pairs()):
        line = f"{source}\t{v.label}\t{score_text(v)}"
        if args.log_odds:
            line += f"\t{v.log_odds:.4f}"
        stdout.write((line + "\n").encode("utf-8", "surrogateescape"))
    stdout.flush()
    return 0


def _topic_parser():
    p = _Parser(
        prog="topicfilter",
        description="Route documents (files or mail) into OUT/<predicted label>/ with a textnb model; "
                    "documents whose confidence is below --threshold go to OUT/unsorted/. Copies "
                    "unless --move; never overwrites (a fresh name is chosen). Prints "
                    "source<TAB>label<TAB>confidence<TAB>destination per document.",
    )
    p.add_argument("--model", "-m", metavar="FILE", required=True, help="model file (.tnb)")
    p.add_argument("--out", "-o", metavar="OUT", required=True, help="output folder")
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="files, folders, mbox files or Maildir folders")
    p.add_argument("--threshold", "-t", type=_probability, default=0.5, metavar="P",
                   help="confidence (largest class probability) below which a document is "
                        "unsorted (default 0.5)")
    p.add_argument("--dry-run", "-n", action="store_true", help="print the plan, change nothing")
    p.add_argument("--move", action="store_true",
                   help="move files instead of copying (messages inside an mbox are always copied)")
    p.add_argument("--mail", action="store_true",
                   help="parse plain files as mail messages too (mbox and Maildir always are)")
    p.add_argument("--max-bytes", type=_size, default=mail.DEFAULT_MAX_BYTES, metavar="SIZE",
                   help="bytes of each message that are read (default 10M)")
    p.add_argument("--quiet", "-q", action="store_true", help="print nothing but errors")
    return p


def topic_main(argv=None, *, stdout=None, stderr=None):
    """``topicfilter`` command line; returns 0 when every document was routed, 1 otherwise."""
    import textnb

    stdout = stdout if stdout is not None else sys.stdout
    stderr = stderr if stderr is not None else sys.stderr
    failed = 0

    def on_error(message):
        nonlocal failed
        failed += 1
        _err(stderr, "topicfilter", message)

    try:
        args = _topic_parser().parse_args(argv)
        model = textnb.load(args.model)
        if not hasattr(model, "predict_proba") or not hasattr(model, "vectorizer_"):
            raise ModelFileError(f"{args.model}: not a text model (a TextClassifier is needed)")
        for route in plan_routes(model, args.paths, args.out, threshold=args.threshold,
                                 mail_mode=args.mail, max_bytes=args.max_bytes, on_error=on_error):
            dest = route.destination
            if not args.dry_run:
                try:
                    dest = apply_route(route, move=args.move)
                except InputError as exc:
                    on_error(str(exc))
                    continue
            if not args.quiet:
                stdout.write(f"{route.source}\t{route.label}\t{route.confidence:.6f}\t{dest}\n")
        stdout.flush()
        return 1 if failed else 0
    except TextnbError as exc:
        _err(stderr, "topicfilter", str(exc))
    except OSError as exc:
        _err(stderr, "topicfilter", f"{getattr(exc, 'filename', None) or 'i/o'}: {exc.strerror or exc}")
    except Exception as exc:
        _err(stderr, "topicfilter", f"internal error: {type(exc).__name__}: {exc}")
    return 1
