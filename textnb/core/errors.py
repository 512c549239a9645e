"""The errors a user of textnb sees.

Every problem with the user's input (a file, a flag, a model file) is raised as a
:class:`TextnbError` subclass whose message is one line naming the file and the problem.
The command line prints that line and exits with status 1; library users catch it.
"""

import math
import numbers
import os

from textnb.core.signals import os_error_text  # noqa: F401 (re-exported: what every program says of an OSError)

__all__ = ["TextnbError", "InputError", "RowError", "NotATextCorpus", "ModelGivenAsData", "NoLabelledLine", "DataError", "EmptyVocabulary", "TooFewObjects",
           "ParameterError", "SettingsDiffer", "SingleStringError", "StructureError",
           "refuse_single_string", "ModelFileError", "DataWarning", "InexactMergeWarning", "short_repr", "missing_reason",
           "missing_input", "check_input", "file_kind", "what_is", "not_a_folder",
           "empty_input", "input_name", "STDIN_NAME", "counted", "figure_text", "unknown_to_leave_out", "os_error_text",
           "unicode_text", "lone_surrogate", "not_text", "json_values", "FLOAT_MAX"]


class TextnbError(Exception):
    """Base class of the errors textnb reports to its users as one line."""


class InputError(TextnbError, ValueError):
    """A corpus, table or document that cannot be read or used."""


class RowError(InputError):
    """A row of a TSV/CSV or JSON Lines file that cannot be read or used: ``PATH:LINE:
    DETAIL``, LINE the file's line where the row starts (a quoted CSV cell may span lines);
    ``row``, when known, its number among the file's data rows (from 1; the header and blank
    lines not counted), by which ``textnb predict`` names the row's prediction
    (:meth:`by_row`)."""

    def __init__(self, path, line, detail, row=None):
        super().__init__(f"{path}:{line}: {detail}")
        self.path, self.line, self.detail, self.row = path, line, detail, row

    def by_row(self):
        """The error as ``predict`` says it, naming the row as its prediction is named:
        ``PATH:ROW (line N): DETAIL`` (``PATH:ROW: DETAIL`` where N is ROW); a line that is no
        data row (a header) or whose row is not known, ``PATH (line N): DETAIL``."""
        if self.row is None:
            return InputError(f"{self.path} (line {self.line}): {self.detail}")
        line = "" if self.line == self.row else f" (line {self.line})"
        return InputError(f"{self.path}:{self.row}{line}: {self.detail}")


class NotATextCorpus(InputError):
    """A CSV/TSV file without recognisable label and text columns: as a corpus of
    documents it cannot be read, but it may be a table of attributes."""


class ModelGivenAsData(InputError):
    """A textnb model file given where data is read (a corpus, a table, a fastText file):
    ``PATH: a textnb model file, not a TSV/CSV corpus``; ``path`` names it, so that the
    command line can say how a model is used."""

    def __init__(self, message, path):
        super().__init__(message)
        self.path = path


class NoLabelledLine(InputError):
    """A labelled fastText file read for training or testing that has no line with a label
    (``PATH: no line has a label ...``), or no line at all (``PATH: empty file``):
    :func:`textnb.io.fasttext.read_fasttext` with ``need_label``. fastText's ``model.test``
    counts such a file as ``(0, nan, nan)``, as :meth:`textnb.fasttext.FastTextModel.test` does."""


class DataError(InputError):
    """A problem of the training data as a whole, not of one file or row (no term left
    to learn, a class too small for a calibration): the command line says it of the
    corpus it read (:func:`textnb.cli.options.naming_the_corpus`)."""


class EmptyVocabulary(DataError):
    """Every term of the documents was filtered out (empty documents, only stop words, or
    ``min_df`` / ``max_df`` pruning everything): scikit-learn's "empty vocabulary"."""

    def __init__(self, message=None):
        super().__init__(message or "empty vocabulary: every token was filtered out; the documents may be empty "
                                    "or only contain stop words, or min_df / max_df prune everything")


class TooFewObjects(DataError):
    """A class with fewer objects than a cross-validated step needs (out-of-fold scores
    for a calibration); ``label`` is the class (as the labels given); ``need``: what the
    step needs, said of a label of a multi-label model (None: a calibration's)."""

    def __init__(self, message, label=None, need=None):
        super().__init__(message)
        self.label = label
        self.need = need


class SingleStringError(TypeError, ValueError):
    """A single string given where an iterable of documents is expected (a TypeError,
    and a ValueError as scikit-learn raises)."""


def refuse_single_string(documents):
    """Raise :class:`SingleStringError` when ``documents`` is one str or bytes (an iterable
    of its characters is never what was meant): every estimator and scorer of documents."""
    if isinstance(documents, (str, bytes)):
        raise SingleStringError("Iterable over raw text documents expected, string object received; wrap it in "
                                "a list")


class ParameterError(TextnbError, ValueError):
    """A parameter value a model, tokenizer or option cannot take (a ValueError, as
    scikit-learn's parameter errors are). ``parameter``: the parameter's name, when the
    message begins with it (the command line then says the option that sets it)."""

    def __init__(self, *args, parameter=None):
        super().__init__(*args)
        self.parameter = parameter


class SettingsDiffer(ParameterError):
    """Two fitted models that cannot be merged because a setting differs (``alpha``,
    ``fit_prior``, a tokenizer option, ...): their merge would take one model's setting
    and drop the other's, so ``merge(a, b)`` and ``merge(b, a)`` would differ.

    ``what`` names the settings (``"settings"``, ``"tokenizer settings"``, a
    :data:`CHOSEN_EVENT_MODELS`, :data:`CHOSEN_PASS_WEIGHTS`, :data:`CHOSEN_RATIOS`, :data:`CUT_POINTS`), ``setting`` the parameter (or the
    attribute), ``values`` its value in this model and in the other one (so the command line
    can name the files and say what to do there); ``remedy``, when given, what to do (in the
    library's words) ends the message.
    """

    def __init__(self, what, setting, mine, theirs, remedy=None):
        super().__init__(f"cannot merge models whose {what} differ ({setting}: {short_repr(mine)} in this "
                         f"model, {short_repr(theirs)} in the other)" + (f"; {remedy}" if remedy else ""))
        self.what, self.setting, self.values = what, setting, (mine, theirs)


#: :attr:`SettingsDiffer.what` of DiscriminativeNB parts whose event model or smoothing
#: (chosen on each part's documents) differ
CHOSEN_EVENT_MODELS = "chosen event models"
#: :attr:`SettingsDiffer.what` of DiscriminativeNB parts whose pass weight (``step="auto"``,
#: chosen on each part's documents: :func:`textnb.core.dfe.pass_step`) differs
CHOSEN_PASS_WEIGHTS = "chosen pass weights"
#: :attr:`SettingsDiffer.what` of DiscriminativeNB parts of which one takes the log-count ratios
#: and the other not (``ratios="auto"``, chosen on each part's documents:
#: :func:`textnb.core.dfe.uses_ratios`)
CHOSEN_RATIOS = "chosen log-count ratios"
#: :attr:`SettingsDiffer.what` of table models whose numeric attributes' cut points (chosen
#: on each part's rows) differ
CUT_POINTS = "numeric attributes' cut points"


class StructureError(InputError):
    """A Bayesian network's structure (``{node: parents}``, a ``--structure`` file) that does not
    fit the data: an unknown node or parent, a node its own parent, a parent listed twice, a
    cycle, a class node named like an attribute, a CPT too large. The library says what is
    wrong with the structure; the command line names the structure file in that one line
    (:func:`textnb.cli.options.structure_errors`), never the data file."""


class ModelFileError(TextnbError, ValueError):
    """A model file that is missing, truncated, corrupted, foreign or too new."""


class DataWarning(UserWarning):
    """Input that is used, but probably not as meant (e.g. a numeric attribute given to
    a model that learned it as nominal); one line naming the file and the problem. The
    command line prints it as ``textnb: warning: ...``."""


class InexactMergeWarning(DataWarning):
    """A merge of models whose result is not the model trained on all their data (their
    ``merge`` is not a sum of counts: DiscriminativeNB's), warned by the merge itself
    (:func:`textnb.core.wrapping.checked_merge`); ``textnb merge`` says it once, naming the
    first part."""


def short_repr(value):
    """``repr(value)`` on one line, at most 80 characters (for one-line error messages)."""
    text = " ".join(repr(value).split())
    return text if len(text) <= 80 else text[:77] + "..."


def counted(n, noun, plural=None):
    """``n`` and ``noun`` agreeing in number, as every count the messages and programs say:
    ``1 binary file``, ``2 binary files``, ``0 binary files`` (``plural``: when it is not
    ``noun + "s"``). A float count prints as ``:g`` (``1.5 documents``). The one rule for
    the library's messages and the command line's (:func:`textnb.cli.output.counted`)."""
    text = f"{n:g}" if isinstance(n, float) else str(n)
    return f"{text} {noun if n == 1 else plural or noun + 's'}"


def figure_text(x, decimals=4):
    """A figure of an evaluation (accuracy, F1, AUC, a loss) as the text reports and the pictures print it:
    ``decimals`` places, or as many as it takes (up to 12) not to read ``1`` for a figure
    below 1 or ``0`` for one above 0 (found by a user trial: 20,000 right of 20,001 printed
    ``accuracy  1.0000``, the ``--json`` of the same run 0.99995; a rule that rounding never
    turns into a wrong figure, as :func:`proba_text`'s for probabilities)."""
    x = float(x)
    text = f"{x:.{decimals}f}"
    while decimals < 12 and ((x < 1.0 and float(text) == 1.0) or (x > 0.0 and float(text) == 0.0)):
        decimals += 1
        text = f"{x:.{decimals}f}"
    return text


#: what messages call standard input given as ``-`` (a PATH, a side file), so it cannot be
#: taken for a file named ``-``: ``stdin``, the name ``predict`` and ``test`` print in their
#: source column (``stdin:3``), one name in every message and output
STDIN_NAME = "stdin"

#: the names standard input goes by in messages: ``-`` (a PATH, said :data:`STDIN_NAME`),
#: :data:`STDIN_NAME` and ``/dev/stdin`` (named by the user)
STDIN_NAMES = ("-", STDIN_NAME, "/dev/stdin")


def input_name(path):
    """The name messages give the input ``path``: :data:`STDIN_NAME` for ``-`` (standard
    input), else ``path`` as given. The one place that chooses it: every reader that
    names an input read from ``-`` (its rows, its lines, its emptiness) asks here."""
    path = os.fspath(path)
    return STDIN_NAME if path == "-" else path


def lone_surrogate(text):
    """Where the first lone surrogate (U+D800-U+DFFF) of the str ``text`` is, or None: a
    code point that is no character and has no UTF-8 bytes, which a JSON ``\\ud800``
    escape without its pair, a UTF-7 text or a library caller's str may hold. The one test
    of every reader of text that can meet one (:func:`not_text` says it): JSON Lines rows,
    ``textnb serve``'s texts, the mail reader's decoding (such a decoding falls back as one
    that fails does)."""
    if text.isascii():
        return None
    try:  # (UTF-8 encodes every code point but these: no pattern module on the mail tools' fast path)
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return exc.start
    return None


def not_text(text, at):
    """The words every reader refusing a lone surrogate says: ``'\\ud800' at character 5 is
    a lone surrogate, not text`` (``at``: :func:`lone_surrogate` of ``text``)."""
    return f"{text[at]!r} at character {at} is a lone surrogate, not text"


def unicode_text(text):
    r"""``text`` as valid Unicode, for JSON: a name holding bytes that are not UTF-8 (a file
    or class name read from the file system, those bytes kept as the lone surrogates
    ``\udc80``-``\udcff`` of ``surrogateescape``) with each such byte written ``\xNN``, as
    the error messages on stderr write it (``backslashreplace``); any other lone surrogate
    ``\udNNN``. JSON's ``"\udcff"`` escape of a lone surrogate is no character: strict
    parsers refuse it (orjson, I-JSON), others (jq) turn it into U+FFFD, losing the byte.
    Valid text is returned as it is."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    out = []
    for ch in text:
        code = ord(ch)
        if 0xDC80 <= code <= 0xDCFF:
            out.append(f"\\x{code - 0xDC00:02x}")
        elif 0xD800 <= code <= 0xDFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    return "".join(out)


#: what strict JSON writes for +-inf (JSON has no infinity): the largest float, which keeps the order
FLOAT_MAX = 1.7976931348623157e308


def json_values(obj):
    """``obj`` (dicts, lists, tuples of JSON values, numpy scalars) as strict JSON takes it:
    +-inf as +-1.8e308 (:data:`FLOAT_MAX`: the order is kept), NaN as null (JSON has no NaN),
    numpy scalars as Python numbers, every string (dict keys too) valid Unicode
    (:func:`unicode_text`). The one rule of every JSON the package writes: ``--json`` of
    every command (:func:`textnb.cli.output.dumps`) and ``textnb serve``'s answers (which
    wrote ``null`` for an infinite log-odds where ``predict --json`` wrote -1.8e308)."""
    if isinstance(obj, dict):
        return {(unicode_text(k) if isinstance(k, str) else k): json_values(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_values(v) for v in obj]
    if isinstance(obj, str):
        return unicode_text(obj)
    if obj is None or isinstance(obj, bool):
        return obj
    if isinstance(obj, numbers.Integral):  # numpy integers too
        return int(obj)
    if isinstance(obj, numbers.Real):  # numpy floats too
        v = float(obj)
        if math.isnan(v):
            return None
        return v if not math.isinf(v) else (FLOAT_MAX if v > 0 else -FLOAT_MAX)
    return obj


def empty_input(path):
    """The one line for an input with nothing in it: ``PATH: empty file``, and for standard
    input, whichever name it came by, ``stdin: standard input is empty`` (:data:`STDIN_NAME`;
    ``/dev/stdin`` keeps the name it was given), as ``stdin: standard input is closed``
    reads."""
    path = os.fspath(path)
    if path in STDIN_NAMES:
        return f"{path if path == '/dev/stdin' else STDIN_NAME}: standard input is empty"
    return f"{path}: empty file"


def unknown_to_leave_out(path, unknown, names):
    """The one InputError for attributes to leave out (``drop=``, ``--ignore``) that the
    table at ``path`` does not have, as an unknown ``class_name`` is said: ``PATH: no
    attribute named 'idx' to leave out (drop= / --ignore); attributes: id, text, label``
    (the command line names the flag alone)."""
    quoted = ", ".join(repr(str(name)) for name in unknown)
    noun = "attribute" if len(unknown) == 1 else "attributes"
    return InputError(f"{path}: no {noun} named {quoted} to leave out (drop= / --ignore); "
                      f"attributes: {', '.join(map(str, names))}")


def missing_reason(path, what):
    """Why the path ``path``, which ``os.path.exists`` says is not there, cannot be
    opened: ``"no such WHAT"``, or for a symbolic link the reason its target cannot be
    reached (a link that loops, or leads to nothing), so that it is not called missing."""
    import errno
    import os

    if os.path.islink(path):
        try:
            os.stat(path)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                return f"cannot read {what} (a symbolic link that loops: {exc.strerror})"
        return f"no such {what} (a symbolic link to {os.readlink(path)!r}, which does not exist)"
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ENOTDIR:  # (found by a user trial: 'a.tnb/' said to be missing where a.tnb is)
            return f"cannot read {what} (Not a directory: the path goes on past a file, or ends in /)"
    return f"no such {what}"


def file_kind(mode):
    """What a file of ``st_mode`` ``mode`` is, in the messages' words: ``a folder``, ``a
    file`` (a regular one), ``a FIFO``, ``a socket``, ``a character device``, ``a block
    device``."""
    import stat

    for test, words in ((stat.S_ISDIR, "a folder"), (stat.S_ISREG, "a file"), (stat.S_ISFIFO, "a FIFO"),
                        (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
                        (stat.S_ISBLK, "a block device")):
        if test(mode):
            return words
    return "a special file"


def what_is(path):
    """What the file system holds at ``path``, in words (:func:`file_kind`); a symbolic link
    said with what it leads to: ``a symbolic link to a character device (/dev/null)``, ``a
    symbolic link to nothing``, ``a symbolic link that loops``. None when nothing is there."""
    import errno

    try:
        st = os.lstat(path)
    except OSError:
        return None
    if not os.path.islink(path):
        return file_kind(st.st_mode)
    try:
        target = file_kind(os.stat(path).st_mode)
    except OSError as exc:
        return "a symbolic link that loops" if exc.errno == errno.ELOOP else "a symbolic link to nothing"
    return f"a symbolic link to {target} ({os.readlink(path)})"


def not_a_folder(folder):
    """Why no file can be made in ``folder``, which is no folder (None when it is one): ``X
    is a file, not a folder`` of the first of its folders from the top that is not one
    (``notes.txt`` of ``notes.txt/sub``; a FIFO, a device, a link to one or to nothing said
    so, :func:`what_is`), else ``no such folder: FOLDER``. The one wording of every writer
    of a file into a folder that is not there: ``-o``, ``--plot``, ``spamfilter -m``,
    ``topicfilter``'s ``OUT/<label>``."""
    folder = os.fspath(folder) or os.curdir
    if os.path.isdir(folder):
        return None
    parts, head = [], folder
    while head and head not in parts:  # (its folders, the deepest first: notes.txt/a/b, notes.txt/a, notes.txt)
        parts.append(head)
        head = os.path.dirname(head.rstrip(os.sep)) if head.rstrip(os.sep) else ""
    for part in reversed(parts):
        if os.path.isdir(part):
            continue
        what = what_is(part)
        if what is not None:
            return f"{part} is {what}, not a folder"
        break
    return f"no such folder: {folder}"


def missing_input(path, kind="file or folder"):
    """The one :class:`InputError` for an input ``path`` that is not there: ``PATH: no such
    KIND`` (:func:`missing_reason`: a broken or looping link said so). ``kind`` is what the
    input may be: ``"file or folder"`` for a PATH that may be a folder (``predict``'s,
    ``topicfilter``'s and ``spamfilter``'s PATHs, a corpus), ``"file"`` for one read as a
    file (``--rows``, ``--lines``, ``test``'s FILE), ``"folder"``, or a side file's name
    (``"stop-word file"``); every reader of a named input words it here."""
    path = os.fspath(path)
    return InputError(f"{path}: {missing_reason(path, kind)}")


def check_input(path, kind="file or folder"):
    """Raise the one :class:`InputError` for an input ``path`` that cannot be ``kind``
    (:func:`missing_input`'s kinds): not there (:func:`missing_input`), a folder where a
    file is read (``PATH: a folder, not a file``), or something else where a folder is
    (``PATH: not a folder``). Standard input (``-``) is the caller's to tell apart."""
    path = os.fspath(path)
    if kind == "folder" and os.path.exists(path) and not os.path.isdir(path):
        raise InputError(f"{path}: not a folder")
    if kind not in ("folder", "file or folder") and os.path.isdir(path):
        raise InputError(f"{path}: a folder, not a {kind}")
    if not os.path.exists(path):
        raise missing_input(path, kind)
