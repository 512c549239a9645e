"""SpamAssassin's spamd protocol (SPAMC/1.5) in front of a textnb spam model.

``textnb serve MODEL --spamd ADDRESS`` lets mail servers and ``spamc`` (Exim's ``spam``
ACL condition, Postfix through ``spamc``, milters) use a textnb model as they use
spamd. The wire format is :mod:`textnb.apps.protocol`'s; every verdict is
:func:`textnb.apps.verdict.message_verdict`'s, the cold ``spamfilter``'s answer.

Methods (one request per connection, as spamd):

* ``CHECK``: ``Spam: True|False ; <score> / 5.0``. The score is
  ``5 + (log-odds - logit(spam cut-off)) / ln 10``: 5.0 exactly at the spam cut-off, one
  point per factor of 10 in the odds (:func:`textnb.apps.protocol.spamd_score`). An
  *unsure* message is ``False``.
* ``SYMBOLS``: the one rule hit, ``TEXTNB_SPAM``, ``TEXTNB_HAM`` or ``TEXTNB_UNSURE``.
* ``REPORT`` / ``REPORT_IFSPAM``: a "Content analysis details" report (for
  ``REPORT_IFSPAM`` only when spam; its ``Spam:`` line says ``Yes``/``No``).
* ``PROCESS``: the message with the ``X-TextNB-*`` headers added at the end of its header
  block (earlier ones removed), every other byte as sent: ``spamfilter -p``'s output
  (:func:`textnb.apps.filtering.add_headers` with the same ``max_bytes``: a header longer
  than it gets them before the last field read); ``HEADERS``: the same, up to and
  including the empty line that ends the header block.
* ``PING`` (``PONG``), ``SKIP`` (nothing).
* ``TELL`` (only with ``allow_tell``, as spamd's ``--allow-tell``): ``Message-class:
  spam|ham`` with ``Set: local`` learns the message, ``Remove: local`` forgets it. The
  update is :func:`textnb.apps.filtering.update_model`'s (the same lock and atomic
  replace as ``spamfilter --register-*``). As SpamAssassin's Bayes store, the daemon
  remembers which messages it learned as what, in ``<model>.learned`` (a SHA-256 of the
  message without its ``X-TextNB-*`` fields, its class and the model file it was learned
  into, one line appended per TELL, the journal rewritten without superseded lines when
  they pile up; a file copied or moved over the model starts a new one): learning a
  message again as the same class does nothing, as the other class moves it, and
  ``Remove`` (``spamc -L forget``, which sends no class) forgets it as the class it was
  learned as; a message the journal does not list is not forgotten (no ``DidRemove``).
  The journal is the model's (:func:`textnb.apps.filtering.read_journal`):
  ``spamfilter --train-*`` starts it with the messages trained on and
  ``--register-*`` / ``--unregister-*`` keep it, so it lists those too when it is
  complete.
  ``remote`` (reporting to external services) is never done.

Errors: a malformed or unterminated request line or header, a bad or mismatched
``Content-length`` (fewer bytes than it says, or more: see
:meth:`SpamdHandler._more_input`; two that differ) get
``SPAMD/1.0 76 Bad header line: ...`` (EX_PROTOCOL); a message over the size limit
``65`` (EX_DATAERR); an unknown user when unknown users are refused ``67`` (EX_NOUSER);
TELL when not allowed or a model that cannot be used ``69`` (EX_UNAVAILABLE); a request
not all there ``timeout`` seconds after the connection (a deadline for the whole request,
not per read: :class:`RequestDeadline`) ``79`` (EX_TIMEOUT); a request cut by the daemon
stopping ``69`` (EX_UNAVAILABLE, "stopping"); then the connection is closed. The daemon goes on.

**Per-user models** (:class:`UserModels`, ``--user-models TEMPLATE``): the request's
``User:`` header selects the model file ``TEMPLATE`` with ``%u`` replaced by the name
(``%%`` is a ``%``), as spamd's ``-u`` / SpamAssassin's per-user Bayes. Names with a
path separator, a NUL, a leading dot (so ``.`` and ``..``) or over 255 bytes are refused
(EX_NOUSER), and so are names whose model file would be named as a file textnb keeps
beside a model (``carol.learned`` with ``DIR/%u``: carol's journal;
:func:`textnb.apps.filtering.side_file`), or one of whose such files would be the served
model. A user without a model file gets the served model (``unknown_user =
"fallback"``) or EX_NOUSER (``"refuse"``); a TELL for such a user under ``fallback``
that changes what the user is served (learning; forgetting a message the served model's
journal lists) starts the user's model as a copy of the served one with that journal
(:func:`_copy_model`), so it learns and forgets as the served model would. A user model
file that does not load answers 69, logged once per version of the file. A user whose model path is the
served model's file (``spam`` for ``DIR/%u.tnb`` serving ``DIR/spam.tnb``) is a user
without a file whose TELL is refused (EX_UNAVAILABLE): one user's name never changes the
model the others fall back to. Models are loaded when first asked
for, reloaded when their file is replaced, and at most ``max_users`` are held, their model
files at most ``max_bytes`` in all (the least recently used is dropped first).
"""

import contextlib
import errno
import io
import os
import re
import select
import shutil
import socket
import socketserver
import stat
import tempfile
import threading
import time
from collections import OrderedDict

from textnb.apps import protocol
from textnb.apps.filtering import (COPY_PREFIX, JOURNAL_SUFFIX, LOCK_SUFFIX, add_headers, digest_key, journal_path,
                                   listed, model_identity, model_lock, open_journal, side_file, update_model)
from textnb.apps.filtering import _journal_lines, _journal_state, compact_journal
from textnb.apps.filtering import append_journal_line as _append_journal_line, read_journal as _read_journal
from textnb.apps.filtering import write_journal as _write_journal
from textnb.apps.protocol import ProtocolError
from textnb.apps.verdict import message_verdict, spamd_fields, spamd_report, spamd_symbol
from textnb.core.errors import InputError, TextnbError
from textnb.core.model_io import new_file_mode
from textnb.io.files import file_identity
from textnb.io.mailread import is_empty_message

__all__ = ["UserModels", "SpamdHandler", "check_user_name", "shown_user", "parse_address", "shown_address", "DEFAULT_MAX_USERS",
           "DEFAULT_MAX_USER_BYTES"]

DEFAULT_MAX_USERS = 64
#: Model file bytes of the per-user models held at once (the least recently used go first).
DEFAULT_MAX_USER_BYTES = 1 << 30
_MAX_USER = 255
#: The longest ending the daemon adds to a user's model file name (its journal's lock file).
_LONGEST_SUFFIX = (JOURNAL_SUFFIX + LOCK_SUFFIX).encode()
_MAX_DRAIN = 64 * 1024 * 1024
_BLANK_LINE = re.compile(rb"\r?\n\r?\n")
#: Seconds the daemon waits, after a body of ``Content-length`` bytes, for bytes beyond it:
#: none, as spamd (a client's extra bytes are those already sent with the body; a client that
#: keeps its side open and sends nothing more is answered at once, as one that half-closed it).
EXTRA_INPUT_WAIT = 0.0


def parse_address(text):
    """``'PORT'`` -> ``('tcp', ('127.0.0.1', PORT))``, ``'HOST:PORT'`` -> ``('tcp', (HOST, PORT))``,
    anything with a ``/`` -> ``('unix', path)``. InputError otherwise."""
    text = str(text)
    if "/" in text:
        return "unix", text
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = "127.0.0.1", text
    host = host.strip("[]") or "127.0.0.1"
    try:
        number = int(port)
        if not 0 <= number <= 65535:
            raise ValueError
    except ValueError:
        raise InputError(f"{text}: not a port, HOST:PORT or socket path (a path needs a '/': ./spamd.sock)") \
            from None
    return "tcp", (host, number)


def shown_address(host, port):
    """A TCP listening address as it is written to be used again (by :func:`parse_address`, a
    URL, curl): ``HOST:PORT``, an IPv6 host in brackets (``[::1]:8080``; ``::1:8080`` is no
    address a client reads)."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def shown_user(user):
    r"""``user`` as the daemon's error lines and log name it: the name's bytes (as sent in
    ``User:``; a byte that is not UTF-8 is kept by surrogateescape) quoted as Python writes
    bytes: printable ASCII as it is, a quote or backslash escaped, every other byte
    ``\xNN``, as :func:`textnb.apps.protocol.spamd_error` writes a control byte. The first 40
    bytes, ``...`` after the quote when there are more: ``'bob'``, ``'jos\xc3\xa9'``,
    ``'\xff\xfe..'``. So the name is the file's, byte for byte, whatever the reader's
    encoding, and no byte of it can break the line."""
    try:
        data = user.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # (another lone surrogate: a library caller's name, never a header's)
        data = user.encode("utf-8", "backslashreplace")
    return repr(data[:40])[1:] + ("..." if len(data) > 40 else "")


def check_user_name(name):
    """Raise InputError unless ``name`` may be put into a per-user model path."""
    if not name or "/" in name or "\\" in name or "\0" in name or name.startswith(".") \
            or len(name.encode("utf-8", "surrogateescape")) > _MAX_USER:
        raise InputError(f"user name {shown_user(name)} not allowed in a model path")
    return name


class UserModels:
    """The per-user model files of a ``--user-models TEMPLATE`` (see the module docstring).

    Parameters
    ----------
    template : str
        A path holding ``%u`` (the user name).
    unknown_user : {'fallback', 'refuse'}
    holder_factory : callable
        ``holder_factory(path) -> holder`` with ``get()`` (a :class:`textnb.apps.serve.ModelHolder`).
    max_users : int
        Models held at once.
    max_bytes : int
        Model file bytes of the models held at once.
    served_path : path, optional
        The served model's file: a user whose model path is that file (``spam`` for
        ``DIR/%u.tnb`` serving ``DIR/spam.tnb``) has no model of their own (see
        :meth:`is_served`).
    log : callable, optional
        Called with one line when a user's model file does not load (once for each
        version of the file: not again at every request until it is replaced).
    """

    def __init__(self, template, *, unknown_user="fallback", holder_factory, max_users=DEFAULT_MAX_USERS,
                 max_bytes=DEFAULT_MAX_USER_BYTES, served_path=None, log=None):
        if "%u" not in template.replace("%%", ""):
            raise InputError(f"{template}: a per-user model template needs %u (e.g. DIR/%u.tnb)")
        if unknown_user not in ("fallback", "refuse"):
            raise InputError(f"unknown_user must be 'fallback' or 'refuse'; got {unknown_user!r}")
        self.template, self.unknown_user = template, unknown_user
        self._factory, self.max_users, self.max_bytes = holder_factory, max_users, max_bytes
        self.served_path = None if served_path is None else os.fspath(served_path)
        self._served_side = self.served_path is not None and any(
            side_file(os.path.basename(p)) is not None for p in (self.served_path, os.path.realpath(self.served_path)))
        self._holders = OrderedDict()  # user -> (holder, size of its model file when loaded)
        self._failed = OrderedDict()  # user -> file identity of the model file that did not load (logged)
        self._log = log or (lambda message: None)
        self._lock = threading.Lock()

    def path(self, user):
        """The model file of ``user`` (after checking the name: InputError when it is not
        allowed, when a name of the path would be longer than a file name may be, the
        model's journal lock, ``<file>.learned.lock``, included, or when the path would be
        a file textnb keeps beside another model, :func:`~textnb.apps.filtering.side_file`:
        with ``DIR/%u``, ``carol.learned`` is carol's journal, which carol's first TELL wrote
        over that user's model; or, the other way, when one of those files of the user's
        model would be the served model's file)."""
        check_user_name(user)
        path = self.template.replace("%%", "\0").replace("%u", user).replace("\0", "%")
        names = os.fsencode(path).split(b"/")
        if max(len(name) for name in names[:-1] + [names[-1] + _LONGEST_SUFFIX]) > _MAX_USER:
            raise InputError(f"user name {shown_user(user)} not allowed in a model path (a file name of its model "
                             f"would be over {_MAX_USER} bytes)")
        kind = side_file(os.path.basename(path))
        if kind is not None:
            raise InputError(f"user name {shown_user(user)} not allowed in a model path (its model file would be "
                             f"named as {kind}: a file textnb keeps beside a model)")
        if self._served_side:  # (the served file named as a model's journal or lock: it may be a user's)
            journal = journal_path(path)
            for side in (os.path.realpath(path) + LOCK_SUFFIX, journal, journal + LOCK_SUFFIX):
                if self.is_served(side):
                    raise InputError(f"user name {shown_user(user)} not allowed in a model path (a file kept "
                                     f"beside its model, {side}, would be the served model)")
        return path

    def is_served(self, path):
        """Whether ``path`` is the served model's file: the same path once resolved, or
        the same file (device and inode). Such a user's requests are served the served
        model, as a user without a file, and their TELL is refused: the model every other
        user falls back to is never changed through one user's name."""
        if self.served_path is None:
            return False
        if os.path.realpath(path) == os.path.realpath(self.served_path):
            return True
        try:
            mine, served = os.stat(path), os.stat(self.served_path)
        except OSError:
            return False
        return (mine.st_dev, mine.st_ino) == (served.st_dev, served.st_ino)

    def served_file_user(self):
        """A user name the template maps to the served model's file (``'spam'`` for
        ``/var/lib/textnb/%u.tnb`` serving ``/var/lib/textnb/spam.tnb``), else None;
        the daemon warns of it when it starts."""
        if self.served_path is None:
            return None
        literal = [part.replace("\0", "%") for part in self.template.replace("%%", "\0").split("%u")]
        folder, slash, rest = literal[0].rpartition("/")  # the folders before the first %u: resolved too
        folder = (folder or "/") if slash else "."
        firsts = {literal[0]} | {os.path.join(resolve(folder), rest) for resolve in (os.path.abspath, os.path.realpath)}
        served = {self.served_path, os.path.abspath(self.served_path), os.path.realpath(self.served_path)}
        for first in firsts:
            pattern = re.escape(first) + "(?P<u>[^/]+)" + "(?P=u)".join(re.escape(part) for part in literal[1:])
            for target in served:
                m = re.fullmatch(pattern, target)
                if m is not None:
                    try:
                        self.path(m.group("u"))  # (a name refused, as one naming a model's journal, is no user)
                    except InputError:
                        continue
                    return m.group("u")
        return None

    def holder(self, user):
        """The holder of ``user``'s model, or None when the user has no model file."""
        path = self.path(user)
        with self._lock:
            entry = self._holders.get(user)
            if entry is not None:
                self._holders.move_to_end(user)
        if entry is not None:
            if os.path.exists(path):
                return entry[0]
            with self._lock:
                self._holders.pop(user, None)
            return None
        try:
            st = os.stat(path)
        except OSError:
            return None
        try:
            h = self._factory(path)  # loads outside the lock: other users are not held up
        except (TextnbError, OSError, MemoryError) as exc:
            self._note_failure(user, path, st, exc)
            raise
        size = st.st_size
        with self._lock:
            self._failed.pop(user, None)
            self._holders[user] = (h, size)
            self._holders.move_to_end(user)
            while len(self._holders) > 1 and (len(self._holders) > self.max_users or self.held_bytes() > self.max_bytes):
                self._holders.popitem(last=False)
        return h

    def _note_failure(self, user, path, st, exc):
        """Log that ``user``'s model file ``path`` (``st``: its stat) did not load, once for
        that version of the file."""
        key = file_identity(path, st)
        with self._lock:
            if self._failed.get(user) == key:
                return
            self._failed[user] = key
            self._failed.move_to_end(user)
            while len(self._failed) > self.max_users:
                self._failed.popitem(last=False)
        text = protocol.failure_text(exc, path)
        self._log(f"spamd: user {shown_user(user)}: {text}; the user's requests are answered 69 (Service Unavailable) "
                  "until the file is replaced")

    def held_bytes(self):
        """The model file sizes of the users held (a measure of the memory they take)."""
        return sum(size for _, size in self._holders.values())

    def held_users(self):
        with self._lock:
            return list(self._holders)

    def clear(self):
        with self._lock:
            self._holders.clear()


def _copy_model(holder, dest, digest, set_class=None):
    """Start ``dest``, a user's model, as a copy of the model ``holder`` serves, with what
    that model's journal lists, for a TELL of the message of ``digest`` (a :func:`~textnb.apps.filtering.digest_key`; learned as
    ``set_class``; None: forgotten).

    The served model's journal comes with the copy when it is that model's (its identity
    is the file copied; read under its lock, which every writer of it holds): the copy
    counts what the served model counts, and its journal lists the same messages, so a
    message the served model learned is not learned again and can be forgotten. Without
    one (or one of another file) the copy starts a journal of its own, as before. The
    copy is made under the lock of the user's journal, then the served one's (the order
    ``tell`` takes them: a journal's lock before any model's), the model linked into
    place (never replacing an existing file), then its journal written (the model removed
    again when that fails). An OSError when the file at the served path is not the model
    served, or the user's journal is not a regular file.

    Returns
    -------
    (bool, tuple or None)
        Whether the TELL changes the copy (False: the served model's journal lists the
        message as ``set_class``, or a message to forget is not listed; nothing is made,
        the user goes on with the served model), and the ``(st_dev, st_ino)`` of the file
        made (None when nothing was made, or another request made it first).
    """
    journal = journal_path(dest)
    if not os.path.lexists(dest) and _served_lists(holder, digest, set_class):
        return False, None  # (nothing to do: no lock file made for a user name that changes nothing)
    with model_lock(journal, follow=False):
        if os.path.lexists(dest):  # made meanwhile: TELL goes on with it
            return True, None
        fd, tmp = tempfile.mkstemp(prefix=COPY_PREFIX, dir=os.path.dirname(os.path.abspath(dest)))
        try:
            with os.fdopen(fd, "wb") as f:
                seen, complete, served_mode = _copy_served(holder, f)
                before = listed(seen, digest)[1]
                if (before is None) if set_class is None else (before == set_class):
                    return False, None
                f.flush()
                os.fsync(f.fileno())
            # a new file's mode (0666 & ~umask), no wider than the served model's: a private model's
            # copies stay private (they were 0644 whatever the umask and the served file's mode); and
            # the daemon's to write: a read-only served model's copy is learned into (a file the process
            # may not write is never replaced, model_io.output_target)
            mode = (new_file_mode(dest) & served_mode) | stat.S_IWUSR
            os.chmod(tmp, mode)
            st = os.stat(tmp)
            os.close(open_journal(journal))  # (a journal that is a link or not a file: refused, nothing made)
            try:
                os.link(tmp, dest)
            except FileExistsError:
                return True, None
            made = st.st_dev, st.st_ino
            try:
                _write_journal(journal, seen, model_identity(dest, st), complete=complete, mode=mode)
            except BaseException:
                _remove_copy(dest, made, locked=True)
                raise
            return True, made
        finally:
            os.unlink(tmp)


@contextlib.contextmanager
def _served_journal(holder):
    """The path of the journal of the model ``holder`` serves, its lock held for the block
    when the journal exists (no lock file made for a model without one), as every writer of
    it holds it; a lock file that cannot be made (a folder the daemon may not write, where
    no writer can hold it either) is read without."""
    served_journal = journal_path(holder.path)
    with contextlib.ExitStack() as stack:
        if os.path.lexists(served_journal):
            try:
                stack.enter_context(model_lock(served_journal, follow=False))
            except InputError:
                pass
        yield served_journal


def _served_lists(holder, digest, set_class):
    """Whether the served model's journal already says what a TELL of ``digest`` would
    make of a copy of it (learned as ``set_class``, or, for None, not listed): then the
    TELL changes nothing and no copy is needed (:func:`_copy_model` checks it again, under
    the locks, before it copies)."""
    with _served_journal(holder) as served_journal:
        now = model_identity(holder.path)
        seen, _, identity, _ = _read_journal(served_journal, now)
        if identity is None or identity != now:
            seen = {}
    before = listed(seen, digest)[1]
    return before is None if set_class is None else before == set_class


def _copy_served(holder, out):
    """Copy the model file ``holder`` serves into the file ``out``; returns ``(digest ->
    class, complete, mode)``, the first two of its journal when the journal is that file's (else ``({},
    False)``), read under the journal's lock when it has one (a lock file that cannot be
    made, in a folder the daemon may not write: no writer can hold it either)."""
    with _served_journal(holder) as served_journal, holder.open_served() as src:
        st = os.fstat(src.fileno())
        seen, _, identity, complete = _read_journal(served_journal, model_identity(holder.path, st))
        if identity is None or identity != model_identity(holder.path, st):
            seen, complete = {}, False
        shutil.copyfileobj(src, out, 1 << 20)
    return seen, complete, stat.S_IMODE(st.st_mode)


def _remove_copy(path, made, *, locked=False):
    """Remove the user model ``path`` that a refused first TELL started (``made``: its
    ``(st_dev, st_ino)``), unless another file has taken its place, and the journal
    started with it (one that names the copy, or no model: what :func:`_copy_model`
    left when writing it failed): a user without a model of their own goes on with the
    served one, and no ``.learned`` is left beside no model. Under the journal's lock
    (``locked``: the caller holds it); best effort, as the TELL is refused anyway."""
    journal = journal_path(path)
    try:
        with contextlib.nullcontext() if locked else model_lock(journal, follow=False):
            st = os.lstat(path)
            if (st.st_dev, st.st_ino) != made:
                return
            identity = _read_journal(journal, model_identity(path, st))[2]
            os.unlink(path)
            if identity is None or identity == model_identity(path, st):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(journal)
    except (OSError, TextnbError):
        pass


def tell(model_path, data, *, set_class=None, remove=False, max_bytes=None, on_warning=None):
    """Learn (``set_class``) or forget (``remove``) one message in ``model_path``, exactly
    once (see the module docstring). Returns True when the model changed. Once the model is
    replaced the TELL has happened: a failure of the journal's rewrite that may follow is
    said to ``on_warning`` (:func:`~textnb.apps.filtering.compact_journal`), not raised."""
    journal = journal_path(model_path)
    kwargs = {} if max_bytes is None else {"max_bytes": max_bytes}
    with model_lock(journal, follow=False):  # then update_model takes the model's own lock: always in this order
        now = model_identity(model_path)
        seen, lines, identity, complete, undone = _journal_state(journal, now)
        replaced = identity is not None and identity != now
        if replaced:  # a file copied or moved over the model: what the journal says was learned into another
            seen, complete = {}, False
        digest, before = listed(seen, digest_key(data))
        if (before is None) if remove else (before == set_class):
            return False
        existed = os.path.lexists(journal)
        fd = open_journal(journal)
        try:
            if replaced or undone:  # (started anew, or without the lines of a model never written: first)
                _write_journal(journal, seen, now, complete=complete)
                os.close(fd)
                fd = open_journal(journal)
                lines = len(seen) + 1 + bool(complete)
            change, noted = (digest, None if remove else set_class), []

            def note(st):  # the new model file complete, before it replaces the model: the change noted
                noted.append(model_identity(None, st))
                _append_journal_line(fd, _journal_lines([change], noted[0]), journal)

            if remove:
                update_model(model_path, unregister=[(before, data)], create=False, journal=False, hook=note,
                             **kwargs)
                del seen[digest]
            else:
                unregister = [] if before is None else [(before, data)]
                update_model(model_path, register=[(set_class, data)], unregister=unregister, create=False,
                             journal=False, hook=note, **kwargs)
                seen[digest] = set_class
            compact_journal(journal, seen, lines, [change], noted[0], complete=complete, model_path=model_path,
                            on_warning=on_warning)
        except BaseException:
            # a TELL refused (a damaged model file, a message it cannot forget) leaves no journal where
            # there was none (found by a user trial: an empty MODEL.learned stayed), as update_model's own
            if not existed and not os.fstat(fd).st_size:
                with contextlib.suppress(OSError):
                    os.unlink(journal)
            raise
        finally:
            os.close(fd)
        return True


# -- the handler ----------------------------------------------------------------------------
class _Refuse(Exception):
    def __init__(self, status, text):
        super().__init__(text)
        self.status, self.text = status, text


class RequestDeadline(io.RawIOBase):
    """The reading side of a daemon connection: every read of a request ends by one
    deadline, so a client that sends a byte now and then (slowloris) cannot hold a
    connection and its thread past ``timeout`` seconds per request.

    Each read waits at most until the deadline (the socket's timeout is set to the time
    left before each receive) and raises TimeoutError once it has passed. :meth:`start`
    begins a request: its deadline is ``timeout`` seconds from now, or (``at_first_byte``,
    for protocols with several requests per connection) from the first byte of it that
    arrives, the wait for that byte being one read of at most ``timeout`` seconds (an idle
    connection). A non-blocking socket (a peek) is read without a wait, as
    :class:`socket.SocketIO` reads it.

    Parameters
    ----------
    sock : socket.socket
    timeout : float
        Seconds a whole request may take to arrive.
    """

    def __init__(self, sock, timeout):
        super().__init__()
        self._sock, self.timeout = sock, timeout
        self.deadline = None  # time.monotonic() by which the request must have arrived; None: not yet begun
        self.started = False  # whether bytes of the request have arrived
        self.timed_out = False  # whether a read of the request ran out of time
        self._at_first_byte = False

    def readable(self):
        return True

    def fileno(self):
        return self._sock.fileno()

    def start(self, *, at_first_byte=False):
        """Begin a request (see the class docstring)."""
        self.started, self.timed_out, self._at_first_byte = False, False, at_first_byte
        self.deadline = None if at_first_byte else time.monotonic() + self.timeout

    def readinto(self, b):
        if self._sock.gettimeout() != 0.0:  # (0: a non-blocking peek, never a wait)
            if self.deadline is None:
                self._sock.settimeout(self.timeout)
            else:
                left = self.deadline - time.monotonic()
                if left <= 0:
                    self.timed_out = True
                    raise TimeoutError(f"the request did not arrive within {self.timeout:g} seconds")
                self._sock.settimeout(left)
        try:
            n = self._sock.recv_into(b)
        except BlockingIOError:
            return None
        except TimeoutError:
            self.timed_out = True
            raise
        if n:
            if self._at_first_byte and self.deadline is None:
                self.deadline = time.monotonic() + self.timeout
            self.started = True
        return n


class DeadlineReading:
    """Mix-in of the daemon's connection handlers (:class:`socketserver.StreamRequestHandler`
    and :class:`http.server.BaseHTTPRequestHandler` subclasses; ``self.server.owner`` is the
    :class:`~textnb.apps.serve.Server`): ``self.rfile`` reads through a
    :class:`RequestDeadline` of the server's ``timeout`` (``self.reader``), the first
    request's deadline begun at the connection (:meth:`RequestDeadline.start`)."""

    at_first_byte = False

    def setup(self):
        self.timeout = self.server.owner.timeout
        super().setup()
        self.rfile.close()  # (the socket's own reader: replaced, the socket stays open)
        self.reader = RequestDeadline(self.connection, self.timeout)
        self.rfile = io.BufferedReader(self.reader)
        self.reader.start(at_first_byte=self.at_first_byte)

    def _drain(self, seconds, limit):
        """After an error answer that ends the connection: end the writing side (the client
        sees the end of the answer), then read (and drop) what the client still sends, at
        most ``limit`` bytes for at most ``seconds`` (less when the daemon stops), so that
        closing does not reset the connection before the client has read the answer. A
        client that sends its whole request before it reads (urllib, http.client, a spamc
        with a large message) would otherwise fail writing, with a broken pipe or a reset,
        and never see the answer. One drain for every transport (spamd, the socket
        protocol, HTTP)."""
        owner = self.server.owner
        try:
            self.request.shutdown(socket.SHUT_WR)
            self.reader.deadline = time.monotonic() + seconds
            left = limit
            while left > 0 and not owner.stopping:
                chunk = self.rfile.read1(min(left, 1 << 16))
                if not chunk:
                    return
                left -= len(chunk)
        except OSError:  # (TimeoutError too: the drain's time is up) the client went away
            return


class StreamHandler(DeadlineReading, socketserver.StreamRequestHandler):
    """A connection of the daemon: its per-request deadline (:class:`DeadlineReading`) and
    one write-and-flush, shared by the spamd handler here and the daemon's own protocol
    (``serve._MailHandler``)."""

    def _send(self, data):
        self.wfile.write(data)
        self.wfile.flush()


class SpamdHandler(StreamHandler):
    """One spamd request per connection."""

    def _line(self):
        line = self.rfile.readline(protocol.MAX_LINE + 1)
        if line and not line.endswith(b"\n"):
            if len(line) > protocol.MAX_LINE:
                raise ProtocolError(f"(line over {protocol.MAX_LINE} bytes)")
            raise ProtocolError(f"(unterminated line: end of input after {len(line)} bytes, before the line end)")
        return line

    def handle(self):
        owner = self.server.owner
        try:
            try:
                self._handle(owner)
            except ProtocolError as exc:
                if owner.stopping:  # the request was cut by the daemon stopping, not by the client
                    self._send(protocol.spamd_error("EX_UNAVAILABLE", "Service Unavailable: textnb serve is "
                                                                      "stopping; the request was not read whole"))
                    return
                self._send(protocol.spamd_error(exc.status, f"Bad header line: {exc}"))
                self._drain(min(owner.timeout, 5.0), _MAX_DRAIN)
            except _Refuse as exc:
                self._send(protocol.spamd_error(exc.status, exc.text))
                self._drain(min(owner.timeout, 5.0), _MAX_DRAIN)
            except TimeoutError:
                self._send(protocol.spamd_error("EX_TIMEOUT", f"Timeout: ({owner.timeout:g} second socket "
                                                              "timeout reading input from client)"))
            except OSError:
                return
            except MemoryError:
                self._send(protocol.spamd_error("EX_OSERR", "Service Unavailable: out of memory"))
            except Exception as exc:  # a bad request never takes the daemon down
                owner.log(f"spamd: internal error: {type(exc).__name__}: {exc}")
                self._send(protocol.spamd_error("EX_SOFTWARE", f"internal error: {type(exc).__name__}: {exc}"))
        except OSError:  # the client went away
            return


    def _handle(self, owner):
        first = self._line()
        if not first:
            raise ProtocolError("(closed before headers)")
        method, version = protocol.parse_spamd_request_line(first)
        headers = {}
        # spamd reads headers after PING / SKIP from protocol 1.5 on, after the others from 1.1 on
        if (version >= 1.5 if method in ("PING", "SKIP") else version > 1.0) or method == "TELL":
            for _ in range(protocol.MAX_HEADER_LINES + 1):
                line = self._line()
                if not line:
                    raise ProtocolError("(EOF during headers)")
                if line in (b"\r\n", b"\n"):
                    break
                protocol.parse_spamd_header(line, headers)
            else:
                raise ProtocolError("(too many headers)")
        if method == "PING":
            self._send(b"SPAMD/1.5 0 PONG\r\n")
            return
        if method == "SKIP":
            return
        if method == "TELL" and not owner.allow_tell:
            raise _Refuse("EX_UNAVAILABLE", "Service Unavailable: TELL commands are not enabled, "
                                            "start textnb serve with --allow-tell")
        data = self._body(owner, headers.get("content_length"))
        model_path, holder = self._model_for(owner, headers.get("user"), method)
        if method == "TELL":
            self._tell(owner, model_path, headers, data)
            return
        try:
            verdict = message_verdict(holder.get(), data, **owner.mail_options)
        except InputError as exc:
            raise _Refuse("EX_DATAERR", f"Bad message: {exc}") from None
        except TextnbError as exc:
            raise _Refuse("EX_UNAVAILABLE", f"Service Unavailable: {exc}") from None
        self._answer(method, version, verdict, data, owner.mail_options)

    def _body(self, owner, length):
        limit = owner.max_request
        if length is None:  # spamd reads to the end when no Content-length is sent
            data = self.rfile.read(limit + 1)
            if len(data) > limit:
                raise _Refuse("EX_DATAERR", f"Bad message: over the limit of {limit} bytes "
                                            "(textnb serve --max-request)")
            return data
        if length > limit:
            raise _Refuse("EX_DATAERR", f"Bad message: {length} bytes is over the limit of {limit} bytes "
                                        "(textnb serve --max-request)")
        data = self.rfile.read(length)
        if len(data) != length:
            raise ProtocolError(f"(Content-Length mismatch: Expected {length} bytes, got {len(data)} bytes)")
        if self._more_input():
            raise ProtocolError(f"(Content-Length mismatch: Expected {length} bytes, got more)")
        return data

    def _more_input(self):
        """Whether the client sent more than its ``Content-length`` said: bytes already
        read ahead or waiting in the socket (:data:`EXTRA_INPUT_WAIT`: no wait for more)."""
        sock = self.request
        timeout = sock.gettimeout()
        try:
            sock.setblocking(False)  # peek: the bytes read ahead, else what the socket holds, never a wait
            if self.rfile.peek(1):
                return True
            ready, _, _ = select.select([sock], [], [], EXTRA_INPUT_WAIT)
            return bool(ready) and bool(self.rfile.peek(1))  # (ready with nothing: the end of input)
        except OSError:
            return False
        finally:
            try:
                sock.settimeout(timeout)
            except OSError:
                pass

    def _model_for(self, owner, user, method):
        """``(model path, holder)`` that serves ``user`` for ``method``."""
        users = owner.user_models
        if users is None or user is None:
            return owner.holder.path, owner.holder
        try:
            path = users.path(user)
            served = users.is_served(path)  # the model every user falls back to: never theirs
            holder = None if served else users.holder(user)
        except InputError as exc:
            raise _Refuse("EX_NOUSER", f"Unknown user: {exc}") from None
        except (TextnbError, OSError) as exc:
            raise _Refuse("EX_UNAVAILABLE", f"Service Unavailable: user {shown_user(user)}: "
                                            f"{protocol.failure_text(exc, path)}") from None
        if served and method == "TELL":
            text = (f"user {shown_user(user)}: the user's model path {path} is the served model, which every user "
                    "without a model of their own is served; not learning into it")
            owner.log(f"spamd: TELL refused: {text}")
            raise _Refuse("EX_UNAVAILABLE", f"Service Unavailable: {text}")
        if holder is not None:
            return path, holder
        if users.unknown_user == "refuse":
            why = " (the user's model path is the served model)" if served else ""
            raise _Refuse("EX_NOUSER", f"Unknown user: no model for user {shown_user(user)}{why}")
        return path, owner.holder  # TELL starts the user's own model from a copy of this one

    def _tell(self, owner, model_path, headers, data):
        set_, remove = headers.get("set", set()), headers.get("remove", set())
        if "local" in set_ and "local" in remove:
            raise ProtocolError("Unable to set local and remove local in the same operation.")
        if "local" in set_ and "message_class" not in headers:
            raise ProtocolError("(Set: local needs a Message-class header)")
        if is_empty_message(data):
            raise _Refuse("EX_DATAERR", "Bad message: empty message")
        changed, made = False, None
        try:
            if os.path.islink(model_path) and not os.path.exists(model_path):
                raise OSError(errno.ENOENT, "a symbolic link to a missing file; not followed", model_path)
            if not os.path.exists(model_path):  # the user is served the served model: TELL starts a copy of it
                needed = False
                if "local" in set_ or "local" in remove:
                    needed, made = _copy_model(owner.holder, model_path, digest_key(data),
                                               headers["message_class"] if "local" in set_ else None)
                if not needed:  # nothing that changes the served model's copy: none is made
                    self._send(protocol.spamd_reply([]))
                    return
            options = {"max_bytes": owner.mail_options.get("max_bytes"),  # (a warning: the TELL was done)
                       "on_warning": lambda message: owner.log(f"spamd: TELL warning: {message}")}
            if "local" in set_:
                changed = tell(model_path, data, set_class=headers["message_class"], **options)
            elif "local" in remove:
                changed = tell(model_path, data, remove=True, **options)
        except (TextnbError, OSError) as exc:  # (an OSError names its file: the model, the journal, a lock)
            if made is not None:
                _remove_copy(model_path, made)
            text = protocol.failure_text(exc, model_path)
            owner.log(f"spamd: TELL refused: {text}")
            raise _Refuse("EX_UNAVAILABLE", f"Service Unavailable: {text}") from None
        extra = []
        if changed:
            extra.append(("DidSet" if "local" in set_ else "DidRemove", "local"))
            owner.log(f"spamd: TELL {'set ' + headers['message_class'] if 'local' in set_ else 'remove'} "
                      f"in {model_path}")
        self._send(protocol.spamd_reply(extra))

    def _answer(self, method, version, verdict, data, options):
        spam_cutoff = options.get("spam_cutoff")
        is_spam, score, threshold = spamd_fields(verdict, spam_cutoff)
        word = ("Yes" if is_spam else "No") if method == "REPORT_IFSPAM" else ("True" if is_spam else "False")
        spam_line = ("Spam", f"{word} ; {score} / {threshold}")
        if method in ("PROCESS", "HEADERS"):
            out = add_headers(data, verdict, options.get("max_bytes"))  # (the cold -p's placement, its cut's)
            if method == "HEADERS":
                out = _header_block(out)
            if version >= 1.3:
                self._send(protocol.spamd_reply([("Content-length", len(out)), spam_line], out))
            elif version >= 1.2:
                self._send(protocol.spamd_reply([("Content-length", len(out))], out))
            else:
                self._send(b"SPAMD/1.0 0 EX_OK\r\n" + out)
            return
        if method == "CHECK":
            self._send(protocol.spamd_reply([spam_line]))
            return
        if method == "SYMBOLS":
            body = spamd_symbol(verdict) + ("\r\n" if version < 1.3 else "")
        elif method == "REPORT" or is_spam:
            body = spamd_report(verdict, spam_cutoff)
        else:
            body = ""
        body = body.encode("ascii")
        if version >= 1.3:
            self._send(protocol.spamd_reply([("Content-length", len(body)), spam_line], body))
        else:
            self._send(b"SPAMD/1.1 0 EX_OK\r\n" + f"Spam: {spam_line[1]}\r\n\r\n".encode() + body)


def _header_block(message):
    """The message up to and including the empty line ending its header block (spamd's HEADERS)."""
    m = _BLANK_LINE.search(message)
    return message if m is None else message[:m.end()]
