"""Reading and writing ARFF files (Weka's Attribute-Relation File Format).

Supported: ``@relation``, ``@attribute`` with nominal ``{a, b, 'c d'}``, ``numeric``,
``real``, ``integer`` (also the old ``integer [a,b]`` range form), ``@data`` rows in
dense or sparse ``{i v, ...}`` form, ``?`` for a missing value, ``%`` comments
(outside quotes), single- or double-quoted names and values with backslash escapes,
CRLF line ends and tab-separated header fields. Keywords are case-insensitive. Values are
separated by commas; a row that does not read so is read as Weka's ArffLoader reads it,
its values separated by any run of whitespace and commas (``1<TAB>x<TAB>p``, ``{0 1 2 p}``).
A number is what :func:`textnb.io.numbers.parse_number` reads (not ``1_000``).
``string`` attributes are text attributes (kind ``"text"``, a document per cell: ``X``
is then of dtype object, a missing ``?`` cell or a string attribute absent from a
sparse row is None, an empty document; :class:`textnb.text.mixed.MixedNB` learns from them).
``date`` and ``relational`` attributes are rejected with an
:class:`~textnb.core.errors.InputError` (naive Bayes has no estimator for them); a trailing
instance weight ``{w}`` (Weka 3.7+) is read into ``weights``.

Uncertain values (:mod:`textnb.io.uncertain`): a *quoted* data cell ``'[3.1,4.2]'`` in a
numeric column is an interval, ``'{red:0.7,blue:0.3}'`` (or double-quoted) in a nominal
column a distribution over the declared values; a column with such a cell is read as
``"uncertain-numeric"`` / ``"uncertain-nominal"`` and spans several ``X`` columns
(its plain cells are certain values). :func:`write_arff` writes them back the same way.

Every syntax error is one line, ``path:line: problem``.
"""

import io
import math
import re

import numpy as np

from textnb.core.errors import InputError, RowError
from textnb.core.attributes import MAX_COLUMNS, Attribute, repeated
from textnb.core.model_io import atomic_write
from textnb.core.model_schema import MAX_COUNT
from textnb.io.corpus import read_piped, read_text_file
from textnb.io.files import open_regular_binary
from textnb.io.numbers import parse_number
from textnb.io.uncertain import (
    UNCERTAIN_NOMINAL,
    UNCERTAIN_NUMERIC,
    CellError,
    cell_kind,
    column_slices,
    format_cell,
    parse_uncertain_column,
)

__all__ = ["ArffData", "read_arff", "write_arff"]

_NUMERIC_KINDS = {"numeric", "real", "integer"}
_WEIGHT = re.compile(r"^(.*?)[,\s]+\{([^{}]*)\}\s*$", re.S)  # "values, {w}" or "values {w}" (as Weka 3.7 reads it)
_INDEX = re.compile(r"[+-]?[0-9]+")


class ArffData:
    """The parsed content of an ARFF file.

    Attributes
    ----------
    relation : str
    attributes : list of Attribute
        Every declared attribute, in file order (the class is one of them); a column
        with uncertain cells is ``"uncertain-numeric"`` / ``"uncertain-nominal"``.
    X : ndarray of shape (n_rows, n_x_columns)
        Tabular convention: nominal value index or number; NaN = missing; uncertain
        attributes span several columns (:func:`textnb.io.uncertain.column_slices`).
    weights : ndarray of shape (n_rows,)
        Instance weights (1 unless the file gives ``{w}``).
    skipped : list of str
        The date and relational attributes read as placeholders (``read_arff``'s
        ``skip``): numeric columns of NaN, for the caller to leave out.
    """

    def __init__(self, relation, attributes, X, weights, skipped=()):
        self.relation = relation
        self.attributes = attributes
        self.X = X
        self.weights = weights
        self.skipped = list(skipped)


def _tokens(text, path, lineno, separators=",", *, weka=False):
    """Split ``text`` at ``separators`` outside quotes; returns (tokens, quoted flags).

    Whitespace around tokens is dropped; ``%`` outside quotes starts a comment. ``weka``:
    split as Weka's ARFF reader does, at every run of commas and whitespace (any character up
    to the space), so ``1<TAB>x<TAB>p`` and ``1,,x , p`` are three values.
    """
    tokens, quoted = [], []
    buf, in_quote, was_quoted = [], None, False
    i, n = 0, len(text)
    if weka:
        separators = separators + "".join(map(chr, range(33)))
    while i < n:
        ch = text[i]
        if in_quote:
            if ch == "\\" and i + 1 < n:
                nxt = text[i + 1]
                buf.append({"n": "\n", "t": "\t", "r": "\r"}.get(nxt, nxt))
                i += 2
                continue
            if ch == in_quote:
                in_quote = None
            else:
                buf.append(ch)
        elif ch in "'\"":
            if "".join(buf).strip():
                raise InputError(f"{path}:{lineno}: quote inside an unquoted value")
            buf, in_quote, was_quoted = [], ch, True
        elif ch in separators:
            if not weka or was_quoted or buf:  # (Weka: a run of separators is one)
                tokens.append("".join(buf) if was_quoted else "".join(buf).strip())
                quoted.append(was_quoted)
            buf, was_quoted = [], False
        elif ch == "%":
            break
        elif was_quoted:
            if not ch.isspace():
                raise InputError(f"{path}:{lineno}: text after a closing quote")
        else:
            buf.append(ch)
        i += 1
    if in_quote:
        raise InputError(f"{path}:{lineno}: unterminated quote")
    if not weka or was_quoted or buf:
        tokens.append("".join(buf) if was_quoted else "".join(buf).strip())
        quoted.append(was_quoted)
    return tokens, quoted


def _sparse_entries(text, path, lineno):
    """The ``index value`` entries of a sparse row, split at commas outside quotes
    (values still quoted: ``0 'win money'``)."""
    entries, start, in_quote, i, n = [], 0, None, 0, len(text)
    while i < n:
        ch = text[i]
        if in_quote:
            if ch == "\\":
                i += 1
            elif ch == in_quote:
                in_quote = None
        elif ch in "'\"":
            in_quote = ch
        elif ch == ",":
            entries.append(text[start:i].strip())
            start = i + 1
        i += 1
    if in_quote:
        raise InputError(f"{path}:{lineno}: unterminated quote")
    entries.append(text[start:].strip())
    return entries


def _sparse_cells(body, n_att, path, lineno):
    """``(index, value, quoted)`` of each entry of a sparse row's ``body`` (without its braces):
    ``index value`` entries separated by commas (an unquoted value may hold spaces: ``0 sunny
    day``), or, when that reading fails or gives a value holding whitespace, as Weka reads the
    row if it reads so: indices and values separated by any run of whitespace and commas
    (``{0 1<TAB>2 p}``, ``{0 'a b' 2 n}``)."""
    try:
        cells, error = _comma_sparse_cells(body, n_att, path, lineno), None
    except InputError as exc:
        cells, error = [], exc
    if error is not None or any(not q and len(v.split()) > 1 for _, v, q in cells):
        try:
            toks, quoted = _tokens(body, path, lineno, weka=True)
        except InputError:
            toks, quoted = [None], [False]
        index = [_index(t, n_att) if t is not None and not q else None for t, q in zip(toks[0::2], quoted[0::2])]
        if len(toks) % 2 == 0 and None not in index:
            return _once(list(zip(index, toks[1::2], quoted[1::2])), path, lineno)
    if error is not None:
        raise error
    return _once(cells, path, lineno)


def _once(cells, path, lineno):
    """``cells``, refused when two give the same index (Weka refuses such a row too: its
    indices must ascend; any order is read here, but a second value for an attribute
    would silently replace the first)."""
    if len({j for j, _, _ in cells}) < len(cells):
        seen = set()
        j = next(j for j, _, _ in cells if j in seen or seen.add(j))
        raise InputError(f"{path}:{lineno}: sparse index {j} given twice (one value an attribute)")
    return cells


def _comma_sparse_cells(body, n_att, path, lineno):
    entries = _sparse_entries(body, path, lineno)
    if entries == [""]:
        return []
    out = []
    for tok in entries:
        parts = tok.split(None, 1)
        if len(parts) != 2:
            raise InputError(f"{path}:{lineno}: sparse entry {tok!r} is not 'index value'")
        j = _index(parts[0], n_att)
        if j is None:
            if _index(parts[0], None) is None:
                raise InputError(f"{path}:{lineno}: sparse index {parts[0]!r} is not an integer")
            raise InputError(f"{path}:{lineno}: sparse index {int(parts[0])} out of range 0..{n_att - 1}")
        v = parts[1].strip()
        vq = v[:1] in "'\""
        if vq:
            v = _tokens(v, path, lineno)[0][0]
        out.append((j, v, vq))
    return out


def _index(text, n_att):
    """The sparse index ``text`` writes (ASCII digits), or None: not one, or outside 0..n_att-1."""
    if not _INDEX.fullmatch(text):
        return None
    j = int(text)
    return j if n_att is None or 0 <= j < n_att else None


def _strip_comment(line):
    """The line without a ``%`` comment that is outside quotes."""
    if "%" not in line:
        return line
    in_quote, escaped = None, False
    for i, ch in enumerate(line):
        if in_quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == in_quote:
                in_quote = None
        elif ch in "'\"":
            in_quote = ch
        elif ch == "%":
            return line[:i]
    return line


def _split_name(rest, path, lineno):
    """Split ``name type...`` of an @attribute line: the (possibly quoted) name first."""
    rest = rest.strip()
    if not rest:
        raise InputError(f"{path}:{lineno}: @attribute without a name")
    if rest[0] in "'\"":
        q = rest[0]
        i, buf = 1, []
        while i < len(rest):
            ch = rest[i]
            if ch == "\\" and i + 1 < len(rest):
                buf.append(rest[i + 1])
                i += 2
                continue
            if ch == q:
                return "".join(buf), rest[i + 1 :].strip()
            buf.append(ch)
            i += 1
        raise InputError(f"{path}:{lineno}: unterminated quote in attribute name")
    m = re.match(r"(\S+?)(?=\s|\{|$)(.*)", rest, re.S)
    return m.group(1), m.group(2).strip()


def _parse_attribute(rest, path, lineno, skip=None):
    name, spec = _split_name(rest, path, lineno)
    if not spec:
        raise InputError(f"{path}:{lineno}: attribute {name!r} has no type")
    if spec.startswith("{"):
        if not spec.rstrip().endswith("}"):
            raise InputError(f"{path}:{lineno}: nominal attribute {name!r}: missing '}}'")
        values, _ = _tokens(spec.strip()[1:-1], path, lineno)
        if values == [""]:
            raise InputError(f"{path}:{lineno}: nominal attribute {name!r} declares no values")
        if any(v == "" for v in values):
            raise InputError(f"{path}:{lineno}: nominal attribute {name!r} has an empty value")
        if dup := repeated(values):
            raise InputError(f"{path}:{lineno}: nominal attribute {name!r} repeats value(s) {dup}")
        return Attribute(name, "nominal", values)
    kind = spec.split()[0].lower()
    kind = re.match(r"[a-z]*", kind).group(0)
    if kind in _NUMERIC_KINDS:
        tail = spec[len(kind):].strip()
        if tail and not re.fullmatch(r"[\[\(].*[\]\)]", tail):
            raise InputError(f"{path}:{lineno}: attribute {name!r}: cannot read type {spec!r}")
        return Attribute(name, "numeric", [])
    if kind == "string":
        if spec.strip().lower() != "string":
            raise InputError(f"{path}:{lineno}: attribute {name!r}: cannot read type {spec!r}")
        return Attribute(name, "text", [])
    if kind in ("date", "relational"):
        if skip is not None and skip(name):
            return Attribute(name, kind, [])  # a placeholder, left out by the caller
        raise InputError(
            f"{path}:{lineno}: attribute {name!r} is of type {kind}, which naive Bayes "
            f"cannot use; leave it out (drop= / --ignore {name}) or make it nominal"
        )
    raise InputError(f"{path}:{lineno}: attribute {name!r} has unknown type {spec!r}")


def _number(tok, path, lineno, name):
    try:
        x = parse_number(tok)
    except ValueError:
        raise InputError(
            f"{path}:{lineno}: value {tok!r} of numeric attribute {name!r} is not a number"
        ) from None
    if not math.isfinite(x):
        raise InputError(f"{path}:{lineno}: value {tok!r} of attribute {name!r} is not finite")
    return x


def is_arff_text(text):
    """Whether ``text`` (a file's start, str) is ARFF: its first line that is neither blank
    nor a ``%`` comment starts with ``@relation`` (any case), the declaration Weka's loader
    reads first. How a table whose name tells no format (``/dev/stdin``, a pipe) is known."""
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("%"):
            return line[:9].lower() == "@relation"
    return False


def read_arff(path, *, encoding=None, data=None, skip=None):
    """Read an ARFF file into an :class:`ArffData` (all attributes, class included).

    ``encoding`` None: each line UTF-8, else Windows-1252, else Latin-1, as a text corpus's
    rows are decoded (:func:`textnb.io.corpus.decode_lines`; Weka 3.6 declares no encoding
    and reads a file in the platform's); a codec name: the file must be text in it.
    ``data`` (bytes or str): the content, when it was read already (a pipe: ``path`` then
    only names it). ``skip`` (a collection of attribute names, or a predicate on a name):
    the date and relational attributes it names are passed over, cells unread (a
    relational one's inner declarations too), as numeric columns of NaN listed in
    ``skipped``, for the caller to leave out (``--ignore``, as Weka's ``Remove``); any
    other date or relational attribute is an error.

    Raises
    ------
    InputError
        On any syntax error (``path:line: problem``), an unreadable file, a file
        without attributes, or an undeclared nominal value.
    """
    path = str(path)
    if data is None and encoding is not None:  # (a pipe: read once, here; without an encoding, as a table's text)
        data = read_piped(path)
    if data is not None and encoding is not None and isinstance(data, (bytes, bytearray)):
        try:
            lines = bytes(data).decode("utf-8-sig" if encoding.lower().replace("_", "-") in ("utf-8", "utf8")
                                       else encoding).splitlines()
        except UnicodeDecodeError as exc:
            raise InputError(f"{path}: not {encoding} text ({exc.reason} at byte {exc.start})") from None
    elif encoding is None or data is not None:  # (a UTF-8 byte-order mark dropped, as the CSV reader does)
        lines = read_text_file(path, "an ARFF file", data=data).splitlines()
    else:
        try:
            codec = "utf-8-sig" if encoding.lower().replace("_", "-") in ("utf-8", "utf8") else encoding
            with io.TextIOWrapper(open_regular_binary(path), encoding=codec, errors="strict", newline=None) as f:
                lines = f.read().splitlines()
        except OSError as exc:
            raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
        except UnicodeDecodeError as exc:
            raise InputError(f"{path}: not {encoding} text ({exc.reason} at byte {exc.start})") from None

    if skip is not None and not callable(skip):
        skip = frozenset([skip] if isinstance(skip, str) else skip).__contains__
    relation, attributes = "", []
    lineno, n_lines = 0, len(lines)
    in_data = False
    while lineno < n_lines:
        raw = lines[lineno]
        lineno += 1
        line = _strip_comment(raw).strip()
        if not line:
            continue
        if line[0] != "@":
            raise InputError(f"{path}:{lineno}: expected @relation, @attribute or @data, got {line[:40]!r}")
        keyword = re.match(r"@[A-Za-z]+", line).group(0)
        rest = line[len(keyword):]
        kw = keyword.lower()
        if kw == "@relation":
            relation = _split_name(rest, path, lineno)[0] if rest.strip() else ""
        elif kw == "@attribute":
            if len(attributes) == MAX_COLUMNS:
                raise InputError(f"{path}:{lineno}: over {MAX_COLUMNS} attributes, the limit")
            attributes.append(_parse_attribute(rest, path, lineno, skip))
            if attributes[-1].kind == "relational":
                lineno = _skip_relational(lines, lineno, attributes[-1].name, path)
        elif kw == "@data":
            in_data = True
            break
        else:
            raise InputError(f"{path}:{lineno}: unknown keyword {keyword!r}")
    if not attributes:
        raise InputError(f"{path}: no @attribute declarations (empty or not an ARFF file)")
    if not in_data:
        raise InputError(f"{path}: no @data section")
    if dup := repeated([a.name for a in attributes]):
        raise InputError(f"{path}: attribute name(s) {dup} declared twice")
    skipped = [a.name for a in attributes if a.kind in ("date", "relational")]
    passed = [a.kind in ("date", "relational") for a in attributes]
    attributes = [Attribute(a.name, "numeric", []) if p else a for a, p in zip(attributes, passed)]

    n_att = len(attributes)
    index = [
        {v: float(i) for i, v in enumerate(a.values)} if a.is_nominal else None for a in attributes
    ]
    text = [a.kind == "text" for a in attributes]
    rows, weights = [], []
    total = 0.0  # of the weights so far: at most MAX_COUNT, what a model's counts may sum to
    nan = float("nan")
    uncertain = {}  # column -> {row: (text, line)}

    def cell(j, tok, quoted, ln):
        if passed[j]:
            return nan
        if tok == "?" and not quoted:
            return None if text[j] else nan
        if text[j]:
            return tok
        a = attributes[j]
        if quoted and tok[:1] in "[{" and cell_kind(tok) and not (index[j] is not None and tok in index[j]):
            uncertain.setdefault(j, {})[len(rows)] = (tok, ln)
            return nan
        if index[j] is not None:
            try:
                return index[j][tok]
            except KeyError:
                raise InputError(
                    f"{path}:{ln}: value {tok!r} is not declared for nominal attribute {a.name!r}"
                ) from None
        return _number(tok, path, ln, a.name)

    try:
        while lineno < n_lines:
            raw = lines[lineno]
            lineno += 1
            # (a comment off first: its text is no weight ``{w}`` and no sparse row's end, as Weka reads it)
            line = _strip_comment(raw).strip()
            if not line:
                continue
            if (kw := re.match(r"@(attribute|relation|data)(?=\s|$)", line, re.I)) and not (
                    index[0] is not None and kw.group(0) in index[0]):  # (not a declared value of the first)
                raise InputError(f"{path}:{lineno}: {kw.group(0)} after @data (declarations come before it)")
            weight = 1.0
            m = _WEIGHT.match(line)
            if m and (not line.startswith("{") or m.group(1).rstrip().endswith("}")):
                weight = _number(m.group(2).strip(), path, lineno, "instance weight")
                if weight < 0:
                    raise InputError(f"{path}:{lineno}: value {m.group(2).strip()!r} of attribute 'instance weight' is "
                                     "negative; an instance weight is a number >= 0")
                line = m.group(1).strip()
            total += weight
            if total > MAX_COUNT:
                raise InputError(f"{path}:{lineno}: the instance weights sum to {total:g} by this row, over "
                                 f"{MAX_COUNT:g} (2**53, the largest count a model holds); scale them down")
            if line.startswith("{"):
                if not line.endswith("}"):
                    raise InputError(f"{path}:{lineno}: sparse row without closing '}}'")
                row = [0.0] * n_att
                for j, a in enumerate(attributes):  # absent = 0, i.e. the first nominal value
                    if a.is_nominal and not a.values:
                        row[j] = nan
                    elif text[j]:
                        row[j] = None  # absent text: an empty document
                for j, v, vq in _sparse_cells(line[1:-1], n_att, path, lineno):
                    row[j] = cell(j, v, vq, lineno)
            else:
                error = None
                if "'" in line or '"' in line or "%" in line:
                    try:
                        toks, quoted = _tokens(line, path, lineno)
                    except InputError as exc:  # ('1<TAB>'x'': Weka's reading may still read it)
                        toks, quoted, error = [], [], exc
                else:
                    toks = [t.strip() for t in line.split(",")]
                    quoted = [False] * len(toks)
                if len(toks) != n_att:
                    if toks == [""]:
                        continue  # a line holding only a comment
                    # as Weka reads a row: values separated by any run of whitespace and commas
                    try:
                        weka = _tokens(line, path, lineno, weka=True)
                    except InputError:
                        weka = [], []
                    if len(weka[0]) != n_att:
                        raise error or InputError(f"{path}:{lineno}: {len(toks)} values, expected {n_att}")
                    toks, quoted = weka
                row = [cell(j, t, q, lineno) for j, (t, q) in enumerate(zip(toks, quoted))]
            rows.append(row)
            weights.append(weight)
    except RowError:
        raise
    except InputError as exc:  # (about the row of line ``lineno``: named by both numbers, as a CSV row is)
        where = f"{path}:{lineno}: "
        if not str(exc).startswith(where):
            raise
        raise RowError(path, lineno, str(exc)[len(where):], len(rows) + 1) from None
    if any(text):
        X = np.empty((len(rows), n_att), dtype=object)
        for i, row in enumerate(rows):
            X[i] = row
    else:
        X = np.array(rows, dtype=np.float64).reshape(len(rows), n_att)
    if uncertain:
        attributes, X = _uncertain_columns(path, attributes, X, uncertain)
    return ArffData(relation, attributes, X, np.array(weights, dtype=np.float64), skipped)


def _skip_relational(lines, lineno, name, path):
    """The line number after the ``@end`` of relational attribute ``name`` whose
    declaration ends at line ``lineno`` (its inner declarations, nested relational
    ones too, passed over)."""
    depth, start = 1, lineno
    while lineno < len(lines):
        line = _strip_comment(lines[lineno]).strip()
        lineno += 1
        low = line.lower()
        if low.startswith("@end"):
            depth -= 1
            if depth == 0:
                return lineno
        elif low.startswith("@attribute") and re.search(r"\srelational\s*$", low):
            depth += 1
        elif low.startswith("@data"):
            break
    raise InputError(f"{path}:{start}: relational attribute {name!r} has no '@end {name}'")


def _uncertain_columns(path, attributes, X, uncertain):
    """Expand the columns holding uncertain cells into their ``X`` blocks."""
    atts, blocks = [], []
    for j, a in enumerate(attributes):
        if j not in uncertain:
            atts.append(a)
            blocks.append(X[:, j:j + 1])
            continue
        cells = list(X[:, j])
        lines = {}
        for i, (text, ln) in uncertain[j].items():
            cells[i] = text
            lines[i] = ln
        kind = UNCERTAIN_NOMINAL if a.is_nominal else UNCERTAIN_NUMERIC
        try:
            values, block = parse_uncertain_column(kind, cells, values=a.values if a.is_nominal else None)
        except CellError as exc:
            raise InputError(f"{path}:{lines.get(exc.index, '?')}: attribute {a.name!r}: {exc}") from None
        atts.append(Attribute(a.name, kind, values))
        blocks.append(block)
    return atts, np.hstack(blocks)


_LINE_BREAKS = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_SAFE = re.compile(r"[^\s,{}'\"%\\?]+")


def _quote(s):
    s = str(s)
    if _SAFE.fullmatch(s):
        return s
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _quote_text(s):
    """A string cell, always quoted (so ``?`` stays a string); newlines escaped, the
    other characters that end a line for :meth:`str.splitlines` replaced by a space."""
    s = str(s).replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n").replace("\r", "\\r")
    return "'" + _LINE_BREAKS.sub(" ", s) + "'"


def _format_number(x):
    return repr(float(x)) if not float(x).is_integer() else str(int(x)) if abs(x) < 1e15 else repr(float(x))


def write_arff(path, attributes, X, *, relation="textnb"):
    """Write rows in the tabular convention to an ARFF file (NaN -> ``?``).

    ``attributes`` lists every column of ``X`` (put the class among them, usually
    last); nominal cells are value indices. Values are quoted where needed, so
    :func:`read_arff` and Weka read the file back unchanged. Uncertain attributes are
    declared with their certain type and written as quoted ``'[L,R]'`` /
    ``'{v:p,...}'`` cells (which Weka cannot read). Text attributes are ``string``
    attributes (``X`` of dtype object: str cells, None for missing).
    """
    text = any(a.kind == "text" for a in attributes)
    X = np.asarray(X, dtype=object if text else np.float64)
    out = [f"@relation {_quote(relation)}", ""]
    for a in attributes:
        if a.kind == UNCERTAIN_NOMINAL:
            out.append(f"@attribute {_quote(a.name)} {{{','.join(_quote(v) for v in a.values)}}}")
        elif a.is_nominal:
            out.append(f"@attribute {_quote(a.name)} {{{','.join(_quote(v) for v in a.values)}}}")
        elif a.kind == "text":
            out.append(f"@attribute {_quote(a.name)} string")
        else:
            out.append(f"@attribute {_quote(a.name)} numeric")
    out += ["", "@data"]
    enc = [
        [_quote(v) for v in a.values] if a.is_nominal else None for a in attributes
    ]
    slices = column_slices(attributes)
    for row in X:
        cells = []
        for j, a in enumerate(attributes):
            if a.kind in (UNCERTAIN_NOMINAL, UNCERTAIN_NUMERIC):
                text = format_cell(a, row[slices[j]])
                cells.append(text if text == "?" else "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'")
                continue
            x = row[slices[j].start]
            if a.kind == "text":
                cells.append("?" if x is None else _quote_text(x))
                continue
            x = float(x)
            if np.isnan(x):
                cells.append("?")
            elif enc[j] is not None:
                cells.append(enc[j][int(x)])
            else:
                cells.append(_format_number(x))
        out.append(",".join(cells))
    data = ("\n".join(out) + "\n").encode("utf-8")
    atomic_write(path, lambda f: f.write(data))  # only a regular file is replaced, never half written
