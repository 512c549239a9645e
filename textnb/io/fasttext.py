"""fastText's labelled text files: one document per line, its labels as prefixed words.

A line such as ``__label__spam __label__promo Buy cheap pills now`` is a document with
the labels ``spam`` and ``promo`` (the prefix is stripped; fastText's ``-label`` option,
``label_prefix`` here, changes it). As fastText's ``Dictionary::getLine`` reads it:

* words are separated by ASCII white space (space, TAB, CR, VT, FF); a word that starts
  with the prefix is a label wherever it stands in the line, every other word is text;
* a line without a label is not a training or test example (fastText skips it; it is
  counted in :attr:`FastTextCorpus.unlabeled` and reported by ``train`` and ``evaluate``),
  blank lines skipped and not counted;
* a label given twice on one line is one label of the document (its label set, for
  training), and counted twice by ``test``, as fastText's meter counts it
  (:meth:`FastTextCorpus.gold_labels`); a word that is the prefix alone is an error (an
  empty label).

A file whose lines carry one label each is an ordinary single-label corpus
(:meth:`FastTextCorpus.single_label`, an :class:`textnb.io.corpus.Corpus`); one label set
per line with several labels somewhere is a multi-label corpus
(:attr:`FastTextCorpus.multilabel`). Files are read and decoded as the other corpus
files (:func:`textnb.io.corpus.decode_bytes`; a NUL byte in the first 8 KiB: binary,
refused); a line's text longer than ``max_bytes`` bytes (UTF-8) is cut there, its labels read first.

Reference: Joulin, Grave, Bojanowski & Mikolov, "Bag of Tricks for Efficient Text
Classification" (EACL 2017); the file format of fastText's ``supervised``, ``test`` and
``predict`` commands (``src/dictionary.cc``).
"""

import os
import re
from dataclasses import dataclass, field

from textnb.core.errors import STDIN_NAME, InputError, NoLabelledLine, counted, empty_input
from textnb.core.wrapping import keep_in_vectorizer, kept_in_vectorizer
from textnb.io.corpus import (MAX_DOCUMENT_BYTES, Corpus, Rereadable, binary_refusal, check_unchanged, decode_bytes, is_binary,
                              spilled_pipe)
from textnb.io.files import DEFAULT_LABEL_PREFIX, cut_text, file_identity, open_regular_binary, read_regular_file

__all__ = [
    "DEFAULT_LABEL_PREFIX",
    "FastTextCorpus",
    "LineTexts",
    "is_fasttext_file",
    "is_fasttext_text",
    "parse_line",
    "read_fasttext",
    "line_documents",
    "line_texts",
    "strip_labels",
    "unlabeled_line",
    "store_label_prefix",
    "stored_label_prefix",
]

_SNIFF = 8192
#: fastText's word separators within a line (``Dictionary::readWord``; the newline ends the line)
WORD_SEPARATORS = " \t\r\v\f"
_SPACE = re.compile(f"[{WORD_SEPARATORS}]+")
_SEPARATORS_AS_SPACE = str.maketrans(WORD_SEPARATORS[1:], " " * len(WORD_SEPARATORS[1:]))


@dataclass
class FastTextCorpus:
    """The labelled lines of a fastText file.

    ``documents`` the texts (label words removed, words joined by one space),
    ``labels`` a tuple of labels per document (in order of appearance), ``lines`` the
    1-based line number of each document, ``unlabeled`` the number of non-blank lines
    without a label (skipped).
    """

    source: str
    documents: list
    labels: list
    lines: list
    unlabeled: int = 0
    label_prefix: str = DEFAULT_LABEL_PREFIX
    ids: list = field(default_factory=list)
    #: ``{document index: {label: times}}`` for the lines that give a label more than once
    #: (``labels`` holds it once): what fastText's ``test`` counts (:meth:`gold_labels`)
    repeats: dict = field(default_factory=dict)

    def __post_init__(self):
        if not self.ids:
            self.ids = [f"{self.source}:{n}" for n in self.lines]

    def __len__(self):
        return len(self.documents)

    @property
    def multilabel(self):
        """Whether some line carries several labels."""
        return any(len(labs) > 1 for labs in self.labels)

    @property
    def label_names(self):
        return sorted({lab for labs in self.labels for lab in labs})

    def gold_labels(self):
        """Each document's labels as its line gives them, a label given twice there twice
        (``__label__a __label__a text``: ``("a", "a")``): the true labels fastText's
        ``test`` counts (its ``Meter::log`` adds ``labels.size()``, repeats included, to
        the labels to recall). :attr:`labels` holds each once (a label set, for training)."""
        if not self.repeats:
            return list(self.labels)
        return [labs if i not in self.repeats else
                tuple(lab for lab in labs for _ in range(self.repeats[i].get(lab, 1)))
                for i, labs in enumerate(self.labels)]

    def single_label(self):
        """The corpus as a :class:`textnb.io.corpus.Corpus` (one label per document).

        Raises InputError naming the first line with several labels.
        """
        for n, labs in zip(self.lines, self.labels):
            if len(labs) != 1:
                raise InputError(f"{self.source}:{n}: {len(labs)} labels on one line (a multi-label corpus)")
        documents = self.documents if isinstance(self.documents, LineTexts) else list(self.documents)
        return Corpus(source=self.source, documents=documents, labels=[labs[0] for labs in self.labels],
                      unlabeled=self.unlabeled)


def unlabeled_line(n, rows=False):
    """What ``train`` and ``evaluate`` print for ``n`` lines left out without a label
    (``rows``: rows of a table left out for an unknown class)."""
    if rows:
        return f"skipped {counted(n, 'row')} without a known class"
    return f"skipped {counted(n, 'line')} without a label"


def parse_line(line, label_prefix=DEFAULT_LABEL_PREFIX):
    """``(labels, text)`` of one line: the label words without their prefix (a tuple,
    first appearance order, no repeats) and the other words joined by one space.

    Raises ValueError for a word that is the prefix alone.

    The usual line, its labels first, is read with string operations on the whole line
    (its separators made single spaces, the leading label words taken off); a line with
    a label word further on is read word by word (:func:`_parse_words`): the same result.
    """
    text = _single_spaced(line)
    labels, pos, n = [], 0, len(label_prefix)
    while text.startswith(label_prefix, pos):
        end = text.find(" ", pos)
        end = len(text) if end < 0 else end
        label = text[pos + n:end]
        if not label:
            raise ValueError(f"empty label (the word {text[pos:end]!r} is the label prefix alone)")
        if label not in labels:
            labels.append(label)
        pos = end + 1
    rest = text[pos:] if pos < len(text) else ""
    if rest.startswith(label_prefix) or " " + label_prefix in rest:  # a label word further on
        return _parse_words(line, label_prefix)
    return tuple(labels), rest


def _single_spaced(line):
    """``line`` with every run of fastText's separators one space, none at either end.
    A line that is already so (most are) is returned as it is: a few substring tests
    instead of the regular expression's pass over every character."""
    other = "\t" in line or "\r" in line or "\v" in line or "\f" in line
    if other or "  " in line or line.startswith(" ") or line.endswith(" "):
        # (the separators made spaces, the empty words between runs of them dropped: _SPACE.sub(" ", line)
        # .strip(" "), in about half the time over a long text, where most of the time went)
        return " ".join(filter(None, (line.translate(_SEPARATORS_AS_SPACE) if other else line).split(" ")))
    return line


def _parse_words(line, label_prefix):
    """:func:`parse_line` word by word (a line with label words anywhere)."""
    labels, words = [], []
    for word in _SPACE.split(line):
        if not word:
            continue
        if word.startswith(label_prefix):
            label = word[len(label_prefix):]
            if not label:
                raise ValueError(f"empty label (the word {word!r} is the label prefix alone)")
            if label not in labels:
                labels.append(label)
        else:
            words.append(word)
    return tuple(labels), " ".join(words)


def _check_prefix(label_prefix):
    if not isinstance(label_prefix, str) or not label_prefix or _SPACE.search(label_prefix) or "\n" in label_prefix:
        raise InputError(f"label prefix {label_prefix!r}: expected a non-empty word without white space")
    return label_prefix


def _first_line(text):
    for line in text.split("\n"):
        if line.strip():
            return line
    return ""


def is_fasttext_text(text, label_prefix=DEFAULT_LABEL_PREFIX):
    """Whether the first non-blank line of ``text`` starts with the label prefix."""
    return _first_line(text).lstrip(" \t\r\v\f").startswith(_check_prefix(label_prefix))


def strip_labels(lines, label_prefix=DEFAULT_LABEL_PREFIX):
    """The text of each line without its label words, as fastText's ``predict`` reads a
    labelled line; one text per line, blank lines included."""
    _check_prefix(label_prefix)
    return [_unlabelled_text(line, label_prefix) for line in lines]


def line_texts(lines, label_prefix, max_bytes):
    """The documents ``textnb predict --lines`` reads from ``lines`` (str, without their line
    ends): each line without its label words (:func:`strip_labels`, fastText's ``predict``),
    cut at ``max_bytes`` bytes as :func:`read_fasttext` cuts a line's text
    (:func:`textnb.io.files.cut_text`). The one rule of :func:`line_documents` and of the texts
    ``textnb serve`` is sent (``/classify``, ``CLASSIFY``), so both give a line one answer."""
    return [cut_text(line, max_bytes) for line in strip_labels(lines, label_prefix)]


def _unlabelled_text(line, label_prefix):
    """The words of ``line`` but its label words, joined by one space (as :func:`read_fasttext`
    reads a labelled line's text); a line that holds no label word is its text as it is, as a
    document file or a TSV row is (found by a user trial: ``predict --lines`` single-spaced
    every line before cutting it at ``--max-bytes``, so more words fitted than in the same text
    given as a file)."""
    if label_prefix not in line:
        return line
    text = _single_spaced(line)
    return " ".join(w for w in text.split(" ") if not w.startswith(label_prefix))


def is_fasttext_file(path, label_prefix=DEFAULT_LABEL_PREFIX, data=None):
    """Whether ``path`` is a regular file whose first non-blank line starts with the
    label prefix (fastText's layout; ``__label__spam some text``), whatever its name. False
    for folders, unreadable and binary files (their readers report those). ``data``: the
    content of ``path`` already read (a pipe, :func:`textnb.io.corpus.read_piped`), whose
    first line is looked at instead."""
    _check_prefix(label_prefix)
    path = os.fspath(path)
    if data is not None:
        head = bytes(data[:_SNIFF])
        return not is_binary(head) and is_fasttext_text(decode_bytes(head), label_prefix)
    try:
        if not os.path.isfile(path):
            return False
        head = read_regular_file(path, _SNIFF)
    except InputError:
        return False
    if is_binary(head):
        return False
    return is_fasttext_text(decode_bytes(head), label_prefix)


def read_fasttext(path, *, data=None, label_prefix=DEFAULT_LABEL_PREFIX, max_bytes=MAX_DOCUMENT_BYTES,
                  need_label=True, stream=False):
    """Read a fastText file (see the module docstring).

    Parameters
    ----------
    path : str or Path
        The file (with ``data``: only the name used in messages, e.g. ``"stdin"``).
    data : bytes or str, default=None
        The content, when it does not come from ``path``.
    label_prefix : str, default="__label__"
        fastText's ``-label``.
    max_bytes : int
        Bytes of a line's text kept (UTF-8; its labels are read from the whole line as
        read; the text is cut as a long document file is, :func:`textnb.io.files.cut_text`).
    need_label : bool, default=True
        True (training, testing): lines without a label are skipped; raise
        :class:`~textnb.core.errors.NoLabelledLine` when no line has one (or there is none). False (prediction): every non-blank line is a document,
        ``labels`` an empty tuple where it has none.
    stream : bool, default=False
        The documents a :class:`LineTexts`, read from the file again each time they are
        iterated (training: memory does not grow with the file); the labels and line
        numbers are read by a first pass. For a file, and for ``data`` (a pipe's bytes) over
        :data:`textnb.io.corpus.STREAM_ROWS_BYTES`, written to a temporary file first
        (:func:`textnb.io.corpus.spilled_pipe`); smaller ``data`` keeps its texts.

    Each line is decoded as a document file is (:func:`textnb.io.corpus.decode_bytes`).

    Returns
    -------
    FastTextCorpus
    """
    label_prefix = _check_prefix(label_prefix)
    path = os.fspath(path)
    documents, labels, lines, unlabeled, repeats = [], [], [], 0, {}
    identity = file_identity(path) if stream and data is None and os.path.isfile(path) else None
    # a pipe's content (``data``) is read once, its texts kept, unless it is over the bound of a
    # corpus file's rows kept (STREAM_ROWS_BYTES): then it is written to a temporary file, read
    # as a file is (spill_input)
    spilled = spilled_pipe(data, stream)
    if spilled is not None:
        identity = spilled.identity
    texts = identity is None  # (streamed: the first pass reads the labels only)
    lines_of = _labelled_lines(path, data, label_prefix, max_bytes, texts=texts) if spilled is None \
        else _labelled_lines(path, None, label_prefix, max_bytes, texts=texts, source=spilled.path)
    for n, labs, text, times in lines_of:
        if not labs:
            if text is None:
                continue
            if need_label:
                unlabeled += 1
                continue
        if texts:
            documents.append(text)
        if times:
            repeats[len(labels)] = times
        labels.append(labs)
        lines.append(n)
    if not labels:
        if need_label and unlabeled:
            raise NoLabelledLine(f"{path}: no line has a label (words starting with {label_prefix!r})")
        raise (NoLabelledLine if need_label else InputError)(empty_input(path))  # (no line that is not blank)
    if identity is not None:
        documents = LineTexts(path, len(labels), label_prefix=label_prefix, max_bytes=max_bytes,
                              need_label=need_label, identity=identity, source=spilled)
    return FastTextCorpus(source=path, documents=documents, labels=labels, lines=lines, unlabeled=unlabeled,
                          label_prefix=label_prefix, repeats=repeats)


def _labelled_lines(path, data, label_prefix, max_bytes, texts=True, source=None):
    """``(line number, labels, text, repeats)`` of each line of the file ``path`` (or of
    ``data``; or of the file ``source``, which ``path`` then names), read line by line,
    each decoded as a document is and cut at ``max_bytes`` characters; ``text`` None for a
    blank line (``texts=False``: ``""`` for every other line, its words not joined: the
    labels alone are read); ``repeats`` ``{label: times}`` of the labels the line gives
    more than once, else None (:func:`_label_repeats`)."""
    if data is not None:
        if isinstance(data, (bytes, bytearray)):
            if is_binary(bytes(data[:_SNIFF])):
                raise binary_refusal(path, bytes(data[:_SNIFF]), "a fastText file")
            if b"\n" not in data and _cr_inside(bytes(data)):
                raise _mac_line_ends(path)
            raw_lines = (line + b"\n" for line in bytes(data).split(b"\n"))
        else:
            if "\n" not in data and _cr_inside(data):
                raise _mac_line_ends(path)
            raw_lines = (line + "\n" for line in data.split("\n"))
        yield from _parsed(path, raw_lines, label_prefix, max_bytes, texts)
        return
    try:
        with open_regular_binary(path if source is None else source) as f:
            head = f.peek(_SNIFF)[:_SNIFF]
            if is_binary(head):
                raise binary_refusal(path, head, "a fastText file")
            yield from _parsed(path, _lf_ended(_bounded_lines(f, max_bytes), path), label_prefix, max_bytes, texts)
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None


def _parsed(path, raw_lines, label_prefix, max_bytes, texts=True):
    for n, raw in enumerate(raw_lines, start=1):
        line = raw if isinstance(raw, str) else decode_bytes(raw)
        if line.endswith("\n"):
            line = line[:-1]
        try:  # the labels of the line as read (any place in it), then its text cut at max_bytes
            if texts:
                labs, text = parse_line(line, label_prefix)
                text = cut_text(text, max_bytes)
            else:
                labs, text = _line_labels(line, label_prefix), ""
        except ValueError as exc:
            raise InputError(f"{path}:{n}: {exc}") from None
        yield n, labs, (None if not labs and not line.strip(" \t\r\v\f") else text), \
            (_label_repeats(line, label_prefix) if labs and line.count(label_prefix) > len(labs) else None)


def _label_repeats(line, label_prefix):
    """``{label: times}`` of the labels that ``line`` gives more than once (None: none
    does). Called only when the prefix occurs more often than the line has labels."""
    times = {}
    for word in _SPACE.split(line):
        if len(word) > len(label_prefix) and word.startswith(label_prefix):
            label = word[len(label_prefix):]
            times[label] = times.get(label, 0) + 1
    return {lab: t for lab, t in times.items() if t > 1} or None


_WORD_REST = re.compile(r"[^ \t\r\v\f]*")


def _line_labels(line, label_prefix):
    """The labels :func:`parse_line` finds in ``line`` (the same tuple, the same error),
    by searching the line for the prefix instead of splitting it into words."""
    labels = []
    i = line.find(label_prefix)
    while i >= 0:
        if i == 0 or line[i - 1] in " \t\r\v\f":
            end = _WORD_REST.match(line, i + len(label_prefix)).end()
            label = line[i + len(label_prefix):end]
            if not label:
                parse_line(line, label_prefix)  # (raises its error)
            if label not in labels:
                labels.append(label)
            i = line.find(label_prefix, end)
        else:
            i = line.find(label_prefix, i + 1)
    return tuple(labels)


class LineTexts(Rereadable):
    """The texts of a fastText file's labelled lines (its unlabelled ones too, without
    ``need_label``), in order, read from the file each time they are iterated
    (:func:`read_fasttext` with ``stream=True``): in memory one line at a time.
    ``len()`` is their number; a file whose lines changed in number meanwhile is an
    InputError. ``source``: the :class:`~textnb.io.files.SpilledInput` of a pipe's content,
    read instead of ``path``, which then only names it (kept while these texts are)."""

    def __init__(self, path, n, *, label_prefix=DEFAULT_LABEL_PREFIX, max_bytes=MAX_DOCUMENT_BYTES, need_label=True,
                 identity=None, source=None):
        self.path, self.n, self.source = os.fspath(path), n, source
        self._file = self.path if source is None else source.path
        self.identity = file_identity(self._file) if identity is None else identity
        self._how = (label_prefix, max_bytes)
        self._need_label = need_label

    def __len__(self):
        return self.n

    def __iter__(self):
        seen = 0
        check_unchanged(self._file, self.identity, "its labels were read from another file", self.path)
        for _, labs, text, _ in _labelled_lines(self.path, None, *self._how, source=self.source and self.source.path):
            if text is None or (self._need_label and not labs):
                continue
            seen += 1
            if seen > self.n:
                break
            yield text
        if seen != self.n:
            raise InputError(f"{self.path}: changed while it was read ({seen} documents, were {self.n})")
        check_unchanged(self._file, self.identity, "its lines were rewritten meanwhile", self.path)

    def __repr__(self):
        return f"LineTexts({self.path!r}, {self.n} lines)"


#: bytes of a line read at least, whatever ``max_bytes`` (its labels are read from them)
_LINE_FLOOR = 1 << 20


def _mac_line_ends(name):
    """The one line for a stream whose lines end with CR alone (classic Mac line ends, no LF
    anywhere), as the TSV/CSV reader says it (:func:`textnb.io.corpus.checked_rows`): read
    by LF, its lines would be one document."""
    return InputError(f"{name}: lines end with CR alone (classic Mac line ends), which this reader does not "
                      f"take for a line end (the whole file would be one line); convert the file's line ends "
                      f"to LF or CRLF")


def _cr_inside(raw):
    """Whether the line ``raw`` (bytes or str) holds a CR before its end (CRs ending it aside)."""
    cr = b"\r" if isinstance(raw, bytes) else "\r"
    return cr in raw.rstrip(b"\r\n" if isinstance(raw, bytes) else "\r\n")


def _lf_ended(raw_lines, name):
    """The lines of ``raw_lines`` as they come, refused (:func:`_mac_line_ends`) when the
    first one is the whole stream, without an LF, and holds a CR inside: a file of classic
    Mac line ends, whose lines LF would read as one (a first line cut at the length limit,
    or one ended by LF, is read as it is)."""
    lines = iter(raw_lines)
    first = next(lines, None)
    if first is None:
        return
    if not first.endswith(b"\n" if isinstance(first, bytes) else "\n") and _cr_inside(first):
        second = next(lines, None)
        if second is None:
            raise _mac_line_ends(name)
        yield first
        yield second
    else:
        yield first
    yield from lines


def _bounded_lines(stream, max_bytes):
    """The lines of ``stream`` (binary, or text), each with its line end, as they come;
    of a line longer than ``4 * max_bytes + 1`` bytes (what ``max_bytes`` characters of
    UTF-8 can take) or 1 MiB, whichever is more, only that much is read and the rest
    skipped, so memory holds at most that much of any line."""
    limit = max(4 * max_bytes + 1, _LINE_FLOOR)  # (labels may stand anywhere: a small cap would cut them)
    while True:
        raw = stream.readline(limit)
        if not raw:
            return
        end = b"\n" if isinstance(raw, bytes) else "\n"
        if len(raw) >= limit and not raw.endswith(end):
            while True:  # the rest of a line longer than any document kept
                rest = stream.readline(1 << 16)
                if not rest or rest.endswith(end):
                    break
        yield raw


def line_documents(stream, *, max_bytes=MAX_DOCUMENT_BYTES, label_prefix=None, size=1000, name=STDIN_NAME,
                   with_labels=False, codec=None):
    """The documents of ``stream``, one per line, in lists of at most ``size`` (memory
    holds one list, whatever the input's size): fastText's ``predict`` input.

    Each line (ended by LF alone, as :func:`read_fasttext` reads them) is decoded as a
    document file is (:func:`textnb.io.corpus.decode_bytes`), without its line end. The
    lines of a fastText file (``label_prefix`` given, or a first non-blank line starting
    with ``__label__``) come without their label words, as fastText's ``predict`` reads
    them; each text is then cut at ``max_bytes`` bytes as :func:`read_fasttext` cuts a
    line's text (:func:`textnb.io.files.cut_text`; a longer line is not read past what
    that takes). A stream whose first 8 KiB hold a NUL byte is refused as a binary file
    (InputError naming ``name``), as every other reader of documents refuses it.
    ``with_labels``: ``(texts, labels)`` lists instead, ``labels`` each line's tuple of
    labels (:func:`parse_line`'s; empty for a line without one, or a file that is not
    fastText's). ``codec``: the ``(encoding, errors)`` of a model whose vectorizer decodes
    its documents with its own (:func:`textnb.text.tokenize.model_decoding`), each line
    decoded so, as the model's document files are; a line it does not decode is an
    InputError naming ``name:LINE``.
    """
    head = stream.peek(_SNIFF)[:_SNIFF] if hasattr(stream, "peek") else b""
    if isinstance(head, bytes) and is_binary(head):
        raise binary_refusal(name, head, "a text file of one document per line")
    strip = None  # decided on the first chunk: a fastText file's labels are dropped
    done = 0  # lines before the chunk (for the line number of an empty label)

    def labels_of(line, prefix, n):
        try:
            return _line_labels(line, prefix)
        except ValueError as exc:  # (the prefix alone: the one line read_fasttext says)
            raise InputError(f"{name}:{n}: {exc}") from None

    def cleaned(chunk):
        nonlocal strip, done
        if strip is None:
            strip = label_prefix is not None or is_fasttext_text("\n".join(chunk)[:8192])
        prefix = label_prefix or DEFAULT_LABEL_PREFIX
        texts = line_texts(chunk, prefix, max_bytes) if strip else [cut_text(line, max_bytes) for line in chunk]
        first, done = done, done + len(chunk)
        if not with_labels:
            return texts
        return texts, [labels_of(line, prefix, first + i + 1) if strip else () for i, line in enumerate(chunk)]

    chunk = []
    for raw in _lf_ended(_bounded_lines(stream, max_bytes), name):
        try:
            text = raw if isinstance(raw, str) else decode_bytes(raw, codec=codec)
        except UnicodeDecodeError as exc:  # (the model's own strict encoding)
            from textnb.io.corpus import undecodable_reason

            raise InputError(f"{name}:{done + len(chunk) + 1}: {undecodable_reason(exc, codec)}") from None
        # one line: LF ends it, as read_fasttext; a CR before it is the line end's (CRLF), not text, as a
        # TSV row's (found by a user trial: --lines kept it, a token 'now\r' the model had never seen)
        text = text[:-1] if text.endswith("\n") else text
        chunk.append(text[:-1] if text.endswith("\r") else text)
        if len(chunk) >= size:
            yield cleaned(chunk)
            chunk = []
    if chunk:
        yield cleaned(chunk)


def store_label_prefix(model, label_prefix):
    """Keep ``label_prefix``, the prefix of the fastText file the text ``model`` (a fitted
    estimator or model-file node) was trained on, in its vectorizer's state, so that its file
    holds it as fastText's model holds its ``-label`` (the default ``__label__`` is not
    written: a file without it reads as ``__label__``). Returns ``model``."""
    if label_prefix is None or label_prefix == DEFAULT_LABEL_PREFIX:
        return model
    return keep_in_vectorizer(model, "label_prefix", _check_prefix(label_prefix))


def stored_label_prefix(model):
    """The label prefix a text ``model`` (a fitted estimator, a model-file node, or the scorer
    :func:`textnb.text.scorer.load_for_prediction` reads) was trained with
    (:func:`store_label_prefix`), ``__label__`` when it keeps none (older files, other inputs)."""
    kept = getattr(model, "label_prefix", None)  # (a model file's scorer: read from its file)
    if isinstance(kept, str) and kept:
        return kept
    return kept_in_vectorizer(model, "label_prefix") or DEFAULT_LABEL_PREFIX
