"""Listing a folder of documents or mail, and reading a file it names: only a regular
file, at most a cap.

Standard library only (the mail filters' fast path imports this).
"""

import errno
import io
import os

from textnb.core.errors import InputError
from textnb.core.regular import NotRegularFile, folders_above, open_regular_stat

__all__ = ["BATCH_BYTES", "BOM", "DEFAULT_LABEL_PREFIX", "MAILBOX_STARTS", "MAILDIR_PARTS", "PipeReader", "Prefixed", "first_bytes", "bounded_runs", "cut_text", "decode_cut", "document_head", "head_limit", "file_identity", "folder_files", "names_a_descriptor",
           "is_device", "is_maildir", "is_named_pipe", "noting_empty_folder", "open_regular_binary", "read_regular_file", "refuse_device",
           "read_rest", "regular_reader", "source_batches", "spill_input", "spill_stream"]

#: a UTF-8 byte-order mark (what Windows editors put before a file's text)
BOM = b"\xef\xbb\xbf"

#: what a mailbox file may start with (:func:`textnb.io.mailread.file_messages` looks further
#: only at a file that does): an mbox ``From`` line, a UTF-8 byte-order mark or blank lines
#: before it, an MMDF mailbox's ``^A^A^A^A`` line, a Babyl (Emacs RMAIL) file's first line
MAILBOX_STARTS = (b"From ", BOM, b"\n", b"\r", b" ", b"\t", b"\x01\x01\x01\x01", b"BABYL OPTIONS:")

_CHUNK = 1 << 16

#: fastText's default ``-label`` prefix (``__label__spam``): taken off a label wherever one is read, a
#: fastText file's label words (:mod:`textnb.io.fasttext`) and a TSV/CSV label column's labels
#: (:func:`textnb.io.corpus.table_label`) alike
DEFAULT_LABEL_PREFIX = "__label__"

#: The most text one batch of documents holds, besides its number of documents: a batch
#: ends with the document that brings its bytes (a str's characters) to this. Tokenising a
#: batch holds some 20 times its text in arrays, and a command has a few batches in
#: flight, so a corpus of long documents (thousands of 1 MB files) is read in batches of
#: a few documents, in the memory a corpus of short ones takes; the documents of a batch
#: of short ones (20 Newsgroups' 2,000, 4 MB) are not affected. The results do not
#: depend on where batches end.
BATCH_BYTES = 8 << 20
#: Largest cap on the bytes read of one document or message (``--max-bytes``, the socket's
#: ``max_bytes=``): the one bound of every place a user sets it.
MAX_BYTES_CAP = 4 * 1024**3


def file_identity(path, stat_result=None):
    """``(device, inode, size, mtime ns)`` of the file ``path`` (or of ``stat_result``):
    what tells a file replaced, grown or rewritten from the one read before; None when it
    cannot be stat'ed. The one identity of the served model's reload and of a corpus read
    in two passes."""
    if stat_result is None:
        try:
            stat_result = os.stat(path)
        except OSError:
            return None
    st = stat_result
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


class SpilledInput:
    """The content of a pipe (standard input, ``<(...)``, a FIFO) written to a file of its
    own in the temporary folder (``TMPDIR``; ``.textnb-pipe-*``, mode 0600), so that a corpus that came
    through a pipe is read again for its texts as a corpus file is (``path``), instead of
    kept in memory while a model trains (:func:`spill_input`). The file is removed when
    this object is collected, or when the process ends; one a killed process left (SIGKILL,
    the OOM killer: nothing of it runs) is removed by the next spill once it is a minute old,
    as a killed save's temporary file is (its lock, held while it is in use, is free:
    :func:`textnb.core.model_io.remove_stale_files`; found by a user trial: 342 MB hidden in
    ``/tmp`` for each killed ``cat big.tsv | textnb train -``)."""

    PREFIX = ".textnb-pipe-"

    def __init__(self, data, rest=None):
        import tempfile
        import weakref

        from textnb.core.model_io import remove_stale_files, try_lock

        remove_stale_files(tempfile.gettempdir(), self.PREFIX)
        fd, self.path = tempfile.mkstemp(prefix=self.PREFIX)
        try:
            lock = os.open(self.path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            lock = None
        if lock is not None:
            try_lock(lock)  # (held until this object goes: the file is in use)
        # (removed by this process only: a forked worker that exits normally leaves it)
        self._remove = weakref.finalize(self, _remove_file, self.path, os.getpid(), lock)
        try:
            piece = data
            try:
                _write_all(fd, piece)
                while rest is not None and (piece := _read_chunk(rest)):  # (as it comes: never held whole)
                    _write_all(fd, piece)
            except OSError as exc:
                if rest is None or not hasattr(exc, "written"):
                    raise
                written = os.pread(fd, os.fstat(fd).st_size, 0)  # (what the file took, read back)
                raise _WriteFailed(exc, written + bytes(piece[exc.written:])) from None
            finally:
                os.close(fd)
        except BaseException:  # (no space left, an interrupt: no file left behind)
            self._remove()
            raise
        #: what tells the file rewritten between two passes (:func:`file_identity`)
        self.identity = file_identity(self.path)
        self.size = self.identity[2] if self.identity is not None else len(data)

    # The content, read as bytes are by the readers that tell a pipe's format from its first
    # bytes (``data[:8192]``) or read it whole (``bytes(data)``: a table, read whole anyway);
    # the streaming readers of a corpus read the file itself (:attr:`path`).
    def __len__(self):
        return self.size

    def __getitem__(self, index):
        if not isinstance(index, slice):
            raise TypeError("a spilled pipe's content is read by slices")
        start, stop, step = index.indices(self.size)
        if step != 1:
            raise TypeError("a spilled pipe's content is read by contiguous slices")
        with open(self.path, "rb") as f:
            f.seek(start)
            return f.read(max(0, stop - start))

    def __bytes__(self):
        with open(self.path, "rb") as f:
            return f.read()

    def close(self):
        """Remove the file now."""
        self._remove()

    def __repr__(self):
        return f"SpilledInput({self.path!r})"


def _remove_file(path, owner, lock=None):
    if os.getpid() != owner:
        return
    try:
        os.unlink(path)
    except OSError:
        pass
    if lock is not None:
        try:
            os.close(lock)
        except OSError:
            pass


def spill_input(data):
    """A :class:`SpilledInput` holding ``data`` (the bytes of a pipe, read whole), or None
    when the temporary folder cannot take it (no space, not writable: the caller keeps the
    texts in memory, as it did before)."""
    try:
        return SpilledInput(data)
    except OSError:
        return None


class _WriteFailed(OSError):
    """A write of a pipe's copy failed (:class:`SpilledInput`): ``content`` is everything read
    of the pipe so far (a pipe's bytes are read once: none is lost)."""

    def __init__(self, error, content):
        super().__init__(error.errno, error.strerror)
        self.content = content


def _write_all(fd, data):
    """Write ``data`` to the descriptor ``fd``; the number of its bytes written when a write
    fails (an OSError, ``written`` set on it)."""
    view, done = memoryview(data), 0
    while done < len(view):
        try:
            done += os.write(fd, view[done:])
        except OSError as exc:
            exc.written = done
            raise


def _read_chunk(stream):
    """The next chunk of the pipe ``stream``; an OSError reading it is marked so (``reading``):
    a failed read of the input, not of the temporary file (:func:`spill_stream`)."""
    try:
        return stream.read(_PIPE_CHUNK)
    except OSError as exc:
        exc.reading = True
        raise


def spill_stream(first, stream):
    """The content of a pipe, ``first`` (its bytes read so far) and the rest of the binary
    ``stream``, in a :class:`SpilledInput` written as it comes, so that a pipe larger than
    memory is never held whole (``cat big.tsv | textnb train -``); when the temporary folder
    cannot take it (no space, not writable), the content read whole into bytes instead, as
    before, nothing of it lost (what the file took is read back from it)."""
    try:
        return SpilledInput(first, rest=stream)
    except _WriteFailed as failed:
        return read_rest(stream, failed.content)
    except OSError as exc:
        if getattr(exc, "reading", False):  # (the pipe itself failed: its reader reports it)
            raise
        return read_rest(stream, first)  # (no temporary file: nothing of the rest read yet)


def bounded_runs(items, size, measure=None):
    """Lists of consecutive ``items`` (read as the lists are asked for), each of at most
    ``size`` of them and, with ``measure``, ending with the item whose ``measure(item)``
    brings the list's total to :data:`BATCH_BYTES`: the one rule every batch of documents
    or messages is cut by (:func:`source_batches`, :func:`textnb.text.training.batches`,
    :func:`textnb.text.tokenize.text_parts`, :func:`textnb.text.counting.text_spans`)."""
    run, total = [], 0
    for item in items:
        run.append(item)
        if measure is not None:
            total += measure(item)
        if len(run) >= size or total >= BATCH_BYTES:
            yield run
            run, total = [], 0
    if run:
        yield run


def source_batches(pairs, size=1000, measure=None):
    """``(sources, items)`` lists of at most ``size`` of the ``(source, item)`` ``pairs``,
    in order (what predicting a stream of documents or messages works on). ``measure``:
    a batch also ends once the ``measure(item)`` of its items reach :data:`BATCH_BYTES`
    (``len`` for texts)."""
    for run in bounded_runs(pairs, size, None if measure is None else (lambda pair: measure(pair[1]))):
        sources, items = zip(*run)
        yield list(sources), list(items)


def read_regular_file(path, max_bytes=None, *, what=None):
    """The bytes of the regular file ``path``, the first ``max_bytes`` of them (None: all).

    The file is opened without blocking (a FIFO opens at once) and checked with ``fstat``
    on the open descriptor, so a device, FIFO, socket or folder (or a link to one) is
    refused before anything is read; the read is sized by ``fstat``, so a small file costs
    one ``read`` and never a ``max_bytes`` buffer (a file that grew meanwhile is read on in
    64 KiB steps up to the cap). Every problem is one :class:`~textnb.core.errors.InputError`
    naming the file (and ``what`` it is, e.g. ``"a stop-word list"``, when given).
    """
    fd, st = _open_regular_fd(path, what)
    what = f" {what}" if what else ""
    try:
        chunks, total = [], 0
        while max_bytes is None or total < max_bytes:
            want = st.st_size + 1 - total if total <= st.st_size else _CHUNK
            if max_bytes is not None:
                want = min(want, max_bytes - total)
            chunk = os.read(fd, want)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if len(chunk) < want and total <= st.st_size:  # a short read of a regular file: its end
                break
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)
    except OSError as exc:
        raise InputError(f"{path}: cannot read{what} ({exc.strerror or exc})") from None
    finally:
        os.close(fd)


def _open_regular_fd(path, what=None):
    """``(fd, stat_result)`` of the regular file ``path`` (:func:`open_regular_stat`: opened
    without blocking, checked on the descriptor); every problem one InputError naming it."""
    what = f" {what}" if what else ""
    try:
        return open_regular_stat(path)
    except NotRegularFile as exc:
        if exc.folder:
            raise InputError(f"{path}: cannot read{what} (Is a directory)") from None
        raise InputError(f"{path}:{what + ' is' if what else ''} not a regular file (a FIFO, socket or device)") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read{what} ({exc.strerror or exc})") from None


class _RegularRaw(io.FileIO):
    """A descriptor of :func:`open_regular_stat` (``O_NONBLOCK`` kept) read as a raw file: a
    read that would block (a file such as ``/proc/kmsg``, which honours the flag) is an
    OSError (EAGAIN), not a None that a buffered reader would hand on, nor a wait for ever."""

    def readinto(self, b):
        return _would_block(super().readinto(b))

    def read(self, size=-1):
        return _would_block(super().read(size))

    def readall(self):
        return _would_block(super().readall())


def _would_block(result):
    if result is None:
        raise OSError(errno.EAGAIN, os.strerror(errno.EAGAIN))
    return result


def open_regular_binary(path, *, what=None):
    """A buffered binary file object reading the regular file ``path``: the one way a reader
    of rows (TSV/CSV corpora and tables, ARFF, fastText files) opens a file by name, with
    :func:`read_regular_file`'s checks and messages (a FIFO, socket, device or folder is one
    InputError naming it, never a blocked open or read). A read error later is an OSError."""
    return regular_reader(_open_regular_fd(path, what)[0])


def regular_reader(fd):
    """A buffered binary file object reading the descriptor ``fd`` of
    :func:`~textnb.core.regular.open_regular_stat` (closed with it; closed now on failure):
    a read that would block is an OSError (EAGAIN)."""
    try:
        raw = _RegularRaw(fd, "rb", closefd=True)
    except BaseException:
        os.close(fd)
        raise
    return io.BufferedReader(raw)


def folder_files(top, *, on_unlistable, on_loop=None, follow=None, subfolder=None):
    """The files below the folder ``top``, in ``os.walk(top)``'s order, as ``(path, whole)``
    pairs: the one folder walk of the corpus readers and the mail reader.

    Each folder's files sorted by name, then its subfolders sorted by name, depth first;
    hidden names (a leading dot) skipped and links to folders not descended, as
    ``os.walk(top, followlinks=False)``. One ``scandir`` per folder and no ``stat`` per
    regular file (the entry's type tells, except behind a link). A FIFO, socket or device,
    or a link to one, is left out (opening it could block); a broken link is listed
    (reading it reports it). Pairs are read lazily: a folder is listed when reached.

    Parameters
    ----------
    top : str
        The folder.
    on_unlistable : callable
        ``on_unlistable(path, message)`` for a folder that cannot be listed (``message``:
        ``"<path>: cannot list folder (<reason>)"``): raise to stop, or return to go on
        without it.
    on_loop : callable, optional
        ``on_loop(path)`` for a link that loops (ELOOP: it can never be read), which is
        then left out; without it such a link is listed like a broken one. Also for a
        folder walked already, or above ``top`` (the same device and inode: a folder
        bind-mounted below itself), which is left out either way.
    follow : callable, optional
        ``follow(path) -> bool`` for a link to a file: whether it is listed (the mail
        reader does not list a link leading outside the folder).
    subfolder : callable, optional
        ``subfolder(path)``: an iterable of ``(path, whole)`` pairs standing for the
        subfolder ``path`` (a Maildir read as one), or None to walk it.

    Yields
    ------
    path : str
    whole : bool
        False for a file found by walking; a ``subfolder`` pair's own value otherwise.
    """
    pending = [os.fspath(top)]
    walked = folders_above(pending[0])  # (device, inode) of each folder walked or above: one met again loops
    while pending:
        root = pending.pop()
        if not isinstance(root, str):  # a subfolder read another way
            yield from root
            continue
        try:
            st = os.stat(root)
        except OSError:
            pass  # (the listing says why)
        else:
            if (st.st_dev, st.st_ino) in walked:  # a loop (a folder bind-mounted below itself: its
                # files were read twice, learnt under both classes); left out as a looping link is
                if on_loop is not None:
                    on_loop(root)
                continue
            walked.add((st.st_dev, st.st_ino))
        try:
            with os.scandir(root) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            on_unlistable(root, f"{root}: cannot list folder ({exc.strerror or exc})")
            continue
        subdirs = []
        for entry in entries:
            if entry.name.startswith("."):
                continue
            try:
                is_dir = entry.is_dir()  # follows a link, as os.walk sorts entries
            except OSError:
                is_dir = False
            if is_dir:
                if not entry.is_symlink():
                    subdirs.append(entry.path)
                continue
            path = entry.path
            try:
                regular = entry.is_file()
            except OSError:
                regular = False
            if not regular:
                try:
                    os.stat(path)
                    continue  # a FIFO, socket or device, or a link to one
                except OSError as exc:
                    if exc.errno == errno.ELOOP and on_loop is not None:
                        on_loop(path)
                        continue
            if follow is not None and entry.is_symlink() and not follow(path):
                continue
            yield path, False
        # the subfolders after this folder's files, depth first in name order
        for sub in reversed(subdirs):
            inner = subfolder(sub) if subfolder is not None else None
            pending.append(sub if inner is None else inner)


#: the subfolders of a Maildir that hold its messages, read in this order (not ``tmp``, whose
#: messages are being delivered): the one rule of every reader of a folder (the mail tools,
#: ``textnb predict``, a corpus's class folder: :func:`textnb.io.corpus._walk_pairs`)
MAILDIR_PARTS = ("new", "cur")


def is_maildir(path):
    """True for a folder with ``cur``/``new`` (and usually ``tmp``) subfolders (two stats of
    folders: no file of it is opened or stat'ed)."""
    return os.path.isdir(os.path.join(path, "cur")) and os.path.isdir(os.path.join(path, "new"))


def is_device(path):
    """Whether ``path`` is a character or block device or a socket (or a link to one):
    ``/dev/zero``, a terminal (``/dev/stdin`` read from one too), ``/dev/sda``."""
    import stat

    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISSOCK(mode)


def is_named_pipe(path):
    """Whether ``path`` (named by the user: not ``-``) is a pipe: a FIFO, a process
    substitution ``<(...)``, ``/dev/stdin`` fed by a pipe. Such a file, named on the command
    line, is read (once, as it comes: :func:`textnb.io.mailread.read_messages`, :func:`textnb.io.corpus.input_documents`) by every command that reads
    documents or mail, as ``textnb predict`` reads it; inside a folder only regular files
    are read (a FIFO there is skipped unopened). Only a file that a command replaces (a
    model file) must be regular. A device or socket is not a pipe (refused by name)."""
    if os.fspath(path) == "-":
        return False
    try:
        import stat

        return stat.S_ISFIFO(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False



def _descriptor_folder(folder):
    """Whether ``folder`` (a real path) is one whose entries are a process's open descriptors:
    Linux's ``/proc/(self|thread-self|PID)[/task/TID]/fd``, and ``/dev/fd`` where it is a
    folder of its own (without re: the batch path of text messages imports none)."""
    if folder == "/dev/fd":
        return True
    parts = folder.split("/")
    if len(parts) not in (4, 6) or parts[:2] != ["", "proc"] or parts[-1] != "fd":
        return False
    if not (parts[2] in ("self", "thread-self") or parts[2].isdigit()):
        return False
    return len(parts) == 4 or (parts[3] == "task" and parts[4].isdigit())


def names_a_descriptor(path):
    """Whether ``path`` (named by the user) names an open descriptor of the process, itself
    or through symbolic links: ``-``, standard input (``/dev/stdin``), ``/dev/fd/N``,
    ``/proc/self/fd/N``, whatever backs it (a pipe, a regular file the shell redirected). Such
    a name is the process's, not a document's: its document is read, never moved, the name
    never removed (found by a user trial: ``topicfilter --move ... /dev/stdin < FILE`` run as
    root removed the system's ``/dev/stdin``; for another user it failed, ``cannot move``)."""
    path = os.fspath(path)
    if path == "-":
        return True
    path = os.path.abspath(path)
    for _ in range(40):  # (the kernel's limit of links in a path: a loop of links ends here)
        parent = os.path.realpath(os.path.dirname(path))
        if _descriptor_folder(parent):
            return True
        try:
            target = os.readlink(path)
        except (OSError, ValueError):  # not a link (or not there)
            return False
        path = os.path.join(parent, target)
    return False


def refuse_device(path):
    """InputError ``PATH: not a regular file or a pipe (a socket or device)`` when ``path``,
    named by the user, is a device or socket (:func:`is_device`): the one rule of every
    command that reads documents, a corpus or mail (``/dev/zero`` would never end, a
    terminal would wait for typing); ``-`` (standard input) is read whatever it is."""
    if os.fspath(path) != "-" and is_device(path):
        raise InputError(f"{path}: not a regular file or a pipe (a socket or device)")


def noting_empty_folder(path, items, on_warning=None):
    """``items`` (what the input ``path``, named by the user, lists: its documents, its
    mail files), and when ``path`` is a folder that lists none at all, one warning line
    ``PATH: no documents in this folder`` to ``on_warning`` (None: a
    :class:`~textnb.core.errors.DataWarning`), after the listing. The one place
    ``predict``, ``topicfilter`` and ``spamfilter --batch`` say that a folder gave them
    nothing (they said nothing, and exited 0). A folder whose files are all skipped (binary,
    unreadable) lists them: each is said where it is read, and this says nothing."""
    listed = False
    for item in items:
        listed = True
        yield item
    if not listed and os.path.isdir(path):
        message = f"{os.fspath(path)}: no documents in this folder"
        if on_warning is not None:
            on_warning(message)
        else:
            import warnings

            from textnb.core.errors import DataWarning

            warnings.warn(message, DataWarning, stacklevel=2)


def cut_text(text, max_bytes):
    """``text`` (a TSV/CSV row's or a fastText line's document) cut where a file holding it
    in UTF-8 is cut by ``max_bytes``: its first ``max_bytes`` UTF-8 bytes, a character
    split there left out (:func:`decode_cut`'s rule), so ``--max-bytes`` means bytes in
    every container."""
    if len(text) * 4 <= max_bytes:  # (no character takes more than 4 bytes)
        return text
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= max_bytes:
        return text
    try:
        return decode_cut(data[:max_bytes], "utf-8", True)
    except UnicodeDecodeError:  # (a lone surrogate in the text)
        return data[:max_bytes].decode("utf-8", "ignore")


def head_limit(data, max_bytes):
    """How many of a document's first bytes, ``data``, hold its first ``max_bytes`` bytes of
    text (None: all): ``max_bytes``, and 3 besides when ``data`` starts with a UTF-8
    byte-order mark, which is not text (decoding drops it:
    :func:`textnb.io.corpus.decode_bytes`), so such a file is cut where the same text as a
    TSV/JSON Lines row or a str is (:func:`cut_text`) (found by a trial: ``--max-bytes 14``
    kept 11 bytes of such a file's text). A reader of a document reads ``max_bytes`` + 3
    bytes of it and keeps :func:`document_head`."""
    if max_bytes is None:
        return None
    return max_bytes + len(BOM) if data[:len(BOM)] == BOM else max_bytes


def document_head(data, max_bytes):
    """The bytes of ``data`` (a document's first ``max_bytes`` + 3 bytes at least, or all of
    it) that hold its first ``max_bytes`` bytes of text (:func:`head_limit`), and whether the
    document was cut there: ``(head, cut)``."""
    limit = head_limit(data, max_bytes)
    if limit is None:
        return bytes(data), False
    return bytes(data[:limit]), len(data) >= limit


#: what ``bytes.decode`` calls a multi-byte character cut short at the end of its bytes
#: (UTF-8; Shift-JIS, GB18030 and the other CJK codecs; UTF-16 and UTF-32)
_CUT_SHORT = frozenset({"unexpected end of data", "incomplete multibyte sequence", "truncated data"})


def decode_cut(data, encoding, cut, errors="strict"):
    """``data.decode(encoding, errors)``; ``cut``: ``data`` was cut at a byte limit
    (``max_bytes``), which may split a multi-byte character at its end: that character is
    left out and the rest decoded (not the whole text refused for one broken character at
    the cut). Raises UnicodeDecodeError as ``bytes.decode`` does otherwise. The one rule of
    the document reader (:func:`textnb.io.corpus.decode_bytes`, a Vectorizer's own encoding
    too) and the mail reader (:func:`textnb.io.mailread.decode_bytes`)."""
    try:
        return data.decode(encoding, errors)
    except UnicodeDecodeError as exc:
        if cut and exc.end == len(data) and exc.reason in _CUT_SHORT:
            return data[:exc.start].decode(encoding, errors)
        raise


class Prefixed(io.RawIOBase):
    """A binary stream that gives ``first`` (bytes already read, e.g. a pipe's first bytes
    sniffed) and then the rest of ``stream`` as it comes (``read1`` when it has one: a pipe's
    bytes as they arrive). ``close``: closing it closes ``stream``. ``keep``: the first
    ``keep`` bytes it gives are kept (None: all of them), :meth:`kept` (the one-message mbox
    of a pipe is its first bytes, as a file's is)."""

    def __init__(self, first, stream, *, close=False, keep=0):
        self._first, self._stream, self._close = memoryview(first), stream, close
        self._read = getattr(stream, "read1", stream.read)
        self._keep = keep
        self._kept = bytearray(first if keep is None else first[:keep])

    def close(self):
        if self._close and not self.closed:
            self._stream.close()
        super().close()

    def readable(self):
        return True

    def readinto(self, buf):
        if len(self._first):
            n = min(len(buf), len(self._first))
            buf[:n] = self._first[:n]
            self._first = self._first[n:]
            return n
        data = self._read(len(buf))
        buf[:len(data)] = data
        if self._keep is None:
            self._kept += data
        elif len(self._kept) < self._keep:
            self._kept += data[:self._keep - len(self._kept)]
        return len(data)

    def kept(self):
        """The first ``keep`` bytes given (fewer when the stream ended first)."""
        return bytes(self._kept)

    def forget(self):
        """Keep no more bytes (those kept are wanted no longer: memory stays bounded)."""
        self._keep, self._kept = 0, bytearray()


class PipeReader:
    """A buffered binary reader of a pipe, a socket or a terminal (``raw``, read by its
    ``read1``: the bytes as they come) that tells, without blocking, whether its next line has
    come (:meth:`line_ready`). The readers of lines and rows (``predict --lines -``, ``--rows
    -``, a FIFO) hand over what they have read when it has not, so that its answers are out
    while the input stalls (``tail -f``, a user typing) instead of once a batch of a thousand
    fills; where the input flows, the batches are as full as from a file. Its methods are those
    of :class:`io.BufferedReader` that the readers use (``readline``, ``read``, ``read1``,
    ``peek``), and :meth:`head`; it is the stream's only buffer (another under the readers
    would hide its lines from :meth:`line_ready`). ``close``: closing it closes ``raw``.
    :meth:`of` makes one for the streams that can stall."""

    #: Seconds a list's first line waits for more lines to come with it: a pipe that flows is
    #: read in full lists (a writer not yet scheduled is no stall: small lists cost their
    #: scoring's overhead, 5 % of ``cat big.txt | predict --lines -``), a stalled one's lines
    #: answered within it
    LINGER = 0.05

    def __init__(self, raw, close=False):
        self._raw, self._close, self.closed = raw, close, False
        self._read = getattr(raw, "read1", raw.read)
        self._fd = raw.fileno()
        self._buf, self._seen, self._eof = bytearray(), 0, False  # (_seen: the bytes looked through for a line end)
        self._since = None  # (when the list being read had its first line)

    @classmethod
    def of(cls, stream, close=False):
        """A :class:`PipeReader` of ``stream`` when it reads a pipe, a socket or a terminal,
        else None (a regular file never stalls; a stream without a descriptor: not told)."""
        import stat

        try:
            mode = os.fstat(stream.fileno()).st_mode
        except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
            return None
        return cls(stream, close) if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode) else None

    def _fill(self):
        """One read of what has come (blocking until something has, or the end)."""
        data = self._read(_CHUNK)
        if data:
            self._buf += data
        else:
            self._eof = True
        return bool(data)

    def line_ready(self):
        """Whether the next line can be read without waiting, asked after each line a reader
        lists: it is here whole, the input has ended, or bytes wait on the descriptor (a
        line's rest on its way counts as come), or come within :data:`LINGER` seconds of the
        list's first line. False ends the list."""
        import time

        now = time.monotonic()
        if self._since is None:
            self._since = now
        if self._eof or self._buf.find(b"\n", self._seen) >= 0:
            return True
        import select

        try:
            ready = bool(select.select([self._fd], [], [], max(0.0, self._since + self.LINGER - now))[0])
        except (OSError, ValueError):  # (a descriptor select cannot watch: as a file, never stalled)
            return True
        if not ready:
            self._since = None
        return ready

    def head(self, n):
        """The first ``n`` bytes to come (fewer at the end), waited for, not consumed: what the
        readers sniff a format from, as ``read(n)`` of a file gives it."""
        while len(self._buf) < n and not self._eof:
            self._fill()
        return bytes(self._buf[:n])

    def _take(self, n):
        data = bytes(self._buf[:n])
        del self._buf[:n]
        self._seen = 0
        return data

    def readline(self, limit=-1):
        while True:
            end = self._buf.find(b"\n", self._seen, None if limit < 0 else limit)
            if end >= 0:
                return self._take(end + 1)
            if 0 <= limit <= len(self._buf):
                return self._take(limit)
            self._seen = len(self._buf)
            if self._eof or not self._fill():
                return self._take(len(self._buf))

    def read(self, n=-1):
        while (n < 0 or len(self._buf) < n) and not self._eof:
            self._fill()
        return self._take(len(self._buf) if n < 0 else n)

    def read1(self, n=-1):
        if not self._buf and not self._eof:
            self._fill()
        return self._take(len(self._buf) if n < 0 else n)

    def peek(self, n=0):
        if not self._buf and not self._eof:
            self._fill()
        return bytes(self._buf)

    def readable(self):
        return True

    def close(self):
        if self._close and not self.closed:
            self._raw.close()
        self.closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def first_bytes(head, stream, max_bytes):
    """The first ``max_bytes`` bytes (None: all) of a pipe whose first bytes, ``head``, were
    read and whose rest comes from ``stream``: a pipe that holds one document is its first
    ``max_bytes``, as a file is; the rest is not read."""
    if max_bytes is not None and len(head) >= max_bytes:
        return head[:max_bytes]
    return read_rest(stream, head, max_bytes)


def read_rest(stream, first, limit=None):
    """``first`` and the rest of the binary ``stream`` (up to ``limit`` bytes in all, None:
    to its end), gathered in one growing buffer: a pipe of N bytes costs about N of memory,
    not the three times N of reading it whole, then joining it to ``first`` (on a 85 MB
    corpus: 255 MB). The one way every reader takes a pipe's rest."""
    buffer = io.BytesIO()
    buffer.write(first)
    left = None if limit is None else limit - len(first)
    while left is None or left > 0:
        chunk = stream.read(_PIPE_CHUNK if left is None else min(_PIPE_CHUNK, left))
        if not chunk:
            break
        buffer.write(chunk)
        if left is not None:
            left -= len(chunk)
    return buffer.getvalue()


#: bytes read at once from a pipe (:func:`read_rest`)
_PIPE_CHUNK = 1 << 20
