"""JSON Lines text corpora: one JSON object a line, a label field and a text field.

What Hugging Face ``datasets`` (``Dataset.to_json``, whatever the file's name) and pandas
(``DataFrame.to_json(orient="records", lines=True)``) write, and what most text datasets are
published as. Such a file is read as the rows of a TSV/CSV corpus are
(:func:`textnb.io.corpus.iter_rows`): the fields of its first object are the header, whose
label and text columns are found by the same names (``label``, ``class``, ... and
``text``, ``message``, ...) or named by ``--label-column`` / ``--text-column``; every later
object is a row of the values of those fields (a field it lacks: an empty cell). So
training, evaluation, prediction and the streaming of a large file are those of a TSV
corpus, line for line.

* A string is the cell as it is; a number or ``true`` / ``false`` its JSON text (``1``,
  ``0.5``, ``true``); ``null`` an empty cell. A list or an object in the text field is an
  error naming the line; in a field not read it is not looked at.
* **Multi-label**: a file whose first object's label field holds a list (``"labels":
  ["joy", "love"]``, or the label numbers of ``datasets``' multi-label sets) is a
  multi-label corpus (:func:`textnb.io.multilabel.read_json_multilabel`), read whole by
  ``train`` and ``evaluate`` as a multi-label fastText file is: each line's list its label
  set (a string, a number: a set of one; ``[]`` or ``null``: none). In a single-label
  corpus a list in the label field is an error naming the line; ``predict`` does not count
  such a line in its accuracy.
* A line is decoded as a document is (UTF-8, else Windows-1252, else Latin-1); blank lines
  are skipped; a line that is not a JSON object is an error naming it, and so is one whose
  strings hold a lone surrogate (a ``\ud800`` escape without its pair: no character, which
  strict JSON parsers refuse and ``textnb serve`` refuses in a text), in any field.
* A line holds one document, so it is read whole, up to :func:`line_cap` bytes (a text of
  ``max_bytes``, escaped: a longer line is an error naming it).
* Tables (attributes of other types) are not read from JSON: ARFF or CSV
  (:func:`textnb.io.corpus.json_refusal` says how to convert).
"""

import json

from textnb.core.errors import RowError, lone_surrogate, not_text
from textnb.io.files import BOM, read_regular_file

__all__ = ["JSON_LINES_EXTENSIONS", "FIRST_LINE_MOST", "check_json_cells", "first_object", "is_json_lines", "is_listed",
           "json_fields", "json_not_text", "json_head", "json_rows", "head_of", "label_set", "line_cap"]

#: names of JSON Lines files (read by their name whatever their first line)
JSON_LINES_EXTENSIONS = (".jsonl", ".ndjson")


def _first_line(head):
    """The first non-blank line of ``head`` (bytes), without its line end and a UTF-8 BOM."""
    for line in head.removeprefix(BOM).split(b"\n"):
        if line.strip():
            return line.strip()
    return b""


#: The most bytes read to find a file's first line whole when it starts like a JSON object
#: (``{``): a JSON Lines file's first document may be long, and its kind is told by that line.
FIRST_LINE_MOST = 64 << 20


def _cut_object_line(head):
    """Whether the first non-blank line of ``head`` (bytes) starts like a JSON object and
    does not end within it (more of the input is needed to tell whether it is one)."""
    start = len(head) - len(head.removeprefix(BOM).lstrip(b" \t\r\n\v\f"))
    return head[start:start + 1] == b"{" and b"\n" not in head[start:]


def json_head(head, read_first=None):
    """``head`` (the first bytes of an input) long enough to tell its kind: when its first
    non-blank line starts like a JSON object and does not end within it, ``read_first(n)``
    (the input's first ``n`` bytes, fewer at its end) is read with ``n`` doubling until that
    line ends, the input ends or :data:`FIRST_LINE_MOST` bytes are read. So
    :func:`is_json_lines`, :func:`first_object` and :func:`json_fields` see the first object
    whole whatever its length (a first document of over 8 KiB was cut there, the file not
    told JSON Lines and read as CSV: its JSON syntax made classes and terms; found by a
    user trial). ``read_first`` None: ``head`` is all there is."""
    head = bytes(head)
    while read_first is not None and _cut_object_line(head) and len(head) < FIRST_LINE_MOST:
        more = bytes(read_first(min(max(2 * len(head), 1 << 16), FIRST_LINE_MOST)))
        if len(more) <= len(head):
            break
        head = more
    return head


def head_of(path, data=None, size=8192):
    """The first ``size`` bytes of the file ``path`` (``data``: its content, read already: a
    pipe), and more to its first line's end when that line starts like a JSON object
    (:func:`json_head`): what every reader tells a file's kind by. A problem reading the
    file is the :class:`~textnb.core.errors.InputError` of
    :func:`~textnb.io.files.read_regular_file`."""
    if data is not None:
        return json_head(data[:size], lambda n: data[:n])
    return json_head(read_regular_file(path, size), lambda n: read_regular_file(path, n))


def _object(line):
    """The JSON object of one line (bytes or str), or None when it is not one."""
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def is_json_lines(path, head):
    """Whether the file ``path`` whose first bytes are ``head`` is JSON Lines: named ``.jsonl``
    or ``.ndjson``, or whose first non-blank line is a JSON object (``{...}`` on one line:
    what ``datasets`` writes named ``.json``). A JSON array, or an object spread over lines,
    is not (:func:`textnb.io.corpus.json_refusal` refuses it)."""
    if str(path).lower().endswith(JSON_LINES_EXTENSIONS):
        return True
    first = _first_line(head)
    return first[:1] == b"{" and first[-1:] == b"}" and _object(first) is not None


def first_object(head):
    """The first object of the JSON Lines text ``head`` (bytes: its first line whole), or None."""
    return _object(_first_line(head))


def json_fields(head):
    """The field names of the first object of the JSON Lines text ``head`` (bytes), in their
    order (the header a TSV file would have), or ``[]``."""
    obj = first_object(head)
    return [str(k) for k in obj] if obj else []


def line_cap(max_bytes):
    """The longest line read (bytes): a text of ``max_bytes`` bytes written with JSON's
    escapes (``\\uXXXX``: 6 bytes for a character), plus 1 MiB for the other fields."""
    return 6 * int(max_bytes) + (1 << 20)


class _JsonValue(str):
    """A list or an object of a line: its JSON text, and the ``value`` itself."""

    __slots__ = ("value",)

    @property
    def kind(self):
        return "list" if isinstance(self.value, list) else "object"


class _Absent(str):
    """The cell of a field an object lacks: an empty string, told from an empty value
    (:func:`check_json_cells` refuses it where the row's text should be)."""


_ABSENT = _Absent("")


def _cell(value):
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, (list, dict)):
        cell = _JsonValue(json.dumps(value, ensure_ascii=False))
        cell.value = value
        return cell
    return json.dumps(value)


def json_rows(path, raw, cap, decode):
    """``(line, cells)`` of the JSON Lines binary stream ``raw`` (``path`` names it), as
    :func:`textnb.io.corpus.checked_rows` gives a CSV file's: first the header (the first
    object's fields, at its line), then one row per object, its values in the header's
    order. ``decode``: bytes -> str (a document's decoding). A
    :class:`~textnb.core.errors.RowError` naming the line for a line that is not a JSON
    object or is longer than ``cap`` bytes, and for a first object without fields."""
    header, n = None, 0
    while True:
        line = raw.readline(cap + 1)
        if not line:
            return
        n += 1
        if len(line) > cap:
            raise RowError(path, n, f"a line of more than {cap} bytes (a JSON Lines file holds one document a line; "
                                    f"--max-bytes raises the limit)")
        text = decode(line)
        if n == 1:
            text = text.lstrip("\ufeff")
        if not text.strip():
            continue
        obj = _object(text)
        if obj is None:
            raise RowError(path, n, "not a JSON object (a JSON Lines file holds one object a line)")
        if "\\ud" in text or "\\uD" in text:  # (only an escape makes one: decoded bytes never do)
            _refuse_surrogates(path, n, obj)
        if header is None:
            if not obj:
                raise RowError(path, n, "an object without fields (its fields are the corpus's header: a label and a "
                                        "text field)")
            header = list(obj)
            yield n, [str(k) for k in header]
        yield n, [_cell(obj[k]) if k in obj else _ABSENT for k in header]


def _surrogate_in(value):
    """``(text, at)`` of the first str in ``value`` (a JSON value: strings, lists and
    objects, keys included) holding a lone surrogate (:func:`~textnb.core.errors.lone_surrogate`), or None."""
    if isinstance(value, str):
        at = lone_surrogate(value)
        return None if at is None else (value, at)
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found = _surrogate_in(key) if isinstance(key, str) else None
        found = found or _surrogate_in(item)
        if found:
            return found
    return None


def json_not_text(obj):
    """What refuses the JSON object ``obj`` (a dict) of a user's file when a str of it holds a
    lone surrogate: ``field 'text': '\\ud800' at character 1 is a lone surrogate, not text
    (...)``, naming the first such field, or None. The one rule of every reader of a user's
    JSON: a JSON Lines row (:func:`json_rows`), a ``--structure`` file
    (:func:`textnb.semi_naive.bayesnet_kernel.read_structure`)."""
    for key, value in obj.items():
        found = _surrogate_in(key) or _surrogate_in(value)
        if found:
            return f"field {key!r}: {not_text(*found)} (JSON's \\ud800-\\udfff escapes make a character only in pairs)"
    return None


def _refuse_surrogates(path, line, obj):
    """The :class:`~textnb.core.errors.RowError` of a line whose object ``obj`` holds a lone
    surrogate, naming its field (:func:`json_not_text`; found by a user trial: ``"text":
    "x\\ud800y"`` read with ``--token-pattern '\\S+'``, and a label holding one, made terms and
    labels that no model file, terminal or pipe takes: an internal error, after the model was
    written)."""
    refusal = json_not_text(obj)
    if refusal is not None:
        raise RowError(path, line, refusal)


def check_json_cells(path, line, header, row, columns, number=None):
    """A :class:`~textnb.core.errors.RowError` when a cell of ``row`` (at ``line``; ``number``:
    its number among the data rows) in one of ``columns`` (indices; None skipped) holds a list
    or an object, or its object lacks the field: the label or text field a corpus reads."""
    for k in columns:
        if k is not None and row[k] is _ABSENT:  # (found by a user trial: read as an empty document)
            raise RowError(path, line, f"no field {header[k]!r} (the first object's fields are the corpus's columns)",
                           number)
        if k is not None and type(row[k]) is _JsonValue:
            what = row[k].kind
            hint = (" (a file whose first object's label field holds a list is read as a multi-label corpus)"
                    if what == "list" else "")
            raise RowError(path, line, f"field {header[k]!r} holds a JSON {what}, not a string or a number{hint}", number)


def is_listed(cell):
    """Whether a cell of :func:`json_rows` holds a JSON list."""
    return type(cell) is _JsonValue and cell.kind == "list"


def label_set(cell):
    """The labels of a multi-label corpus's label cell: a JSON list's items (strings without
    surrounding white space, as every container's labels: :func:`textnb.io.corpus.folder_label`;
    numbers and booleans as their JSON text; ``null`` items and empty or blank strings left
    out, as a label file's empty labels are: found by a user trial, ``["xx", ""]`` made a
    label named ``""``), a string or number a set of one, an empty cell none; sorted, each once."""
    if type(cell) is _JsonValue:
        items = cell.value
        if not isinstance(items, list) or any(isinstance(v, (list, dict)) for v in items):
            return None
        return tuple(sorted({v.strip() if isinstance(v, str) else json.dumps(v) for v in items
                             if v is not None and not (isinstance(v, str) and not v.strip())}))
    return (cell.strip(),) if cell.strip() else ()
