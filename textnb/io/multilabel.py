"""Multi-label corpora: documents (paths) and their label sets, read from a folder.

Layouts read by :func:`read_multilabel_corpus`:

* a label file, one line per document: ``docid<TAB>label1,label2`` (``docid`` the
  path of the document relative to the corpus folder, or to its ``train/`` or ``test/``
  part, with or without its extension; an empty label list is allowed; blank lines and
  lines starting with ``#`` skipped). The file may list documents that are not in the
  folder (a label file shared by the train and test parts): they are counted, not read;
* one folder per label, a document in the folder of each of its labels:
  ``corpus/grain/0001.txt`` and ``corpus/wheat/0001.txt`` are one document when their
  bytes are equal; files of the same name with different bytes are an error, or
  separate documents with ``same_name="separate"``.

A folder with ``train/`` and ``test/`` parts is read as the two parts of an official split
(``MultiLabelCorpus.test``). The models are in :mod:`textnb.meta.multilabel` (which
re-exports these names); reading imports neither scikit-learn nor scipy.
"""

import os
from dataclasses import dataclass, field
from pathlib import Path

from textnb.core.errors import InputError, ParameterError, check_input, counted, input_name
from textnb.io.corpus import _class_folders, _walk_files, folder_label, read_small_text
from textnb.io.files import read_regular_file

__all__ = ["MultiLabelCorpus", "json_label_lists", "read_json_multilabel", "read_label_file", "read_multilabel_corpus",
           "split_labels"]


@dataclass
class MultiLabelCorpus:
    """Documents (paths) and their label sets, in parallel lists.

    ``ids`` are the document ids (relative paths, or the label file's ids), ``labels``
    tuples of str (sorted), ``label_names`` every label that occurs, sorted. What the
    reader left out is counted: ``unlisted`` (files the label file has no line for),
    ``not_found`` (ids of the label file with no file in this folder, nor in the other
    part of a split folder: documents of another part, such as a dev part, or missing). ``test`` is the test part of a split folder.
    """

    source: str
    ids: list
    documents: list
    labels: list
    unlisted: list = field(default_factory=list)
    not_found: list = field(default_factory=list)
    test: "MultiLabelCorpus | None" = None
    #: lines of a fastText file left out because they carry no label
    unlabeled: int = 0

    @property
    def label_names(self):
        return sorted({lab for labs in self.labels for lab in labs})

    def __len__(self):
        return len(self.documents)

    def label_counts(self):
        counts = {}
        for labs in self.labels:
            for lab in labs:
                counts[lab] = counts.get(lab, 0) + 1
        return dict(sorted(counts.items()))


def read_label_file(path):
    """Read ``docid<TAB>label1,label2`` lines into ``{docid: (labels...)}``.

    Raises InputError (``path:line: problem``) for a line without a TAB, an empty
    document id or a document id given twice; the file is read by
    :func:`textnb.io.corpus.read_small_text` (a regular file of at most 64 MiB: a FIFO
    or a device is refused, never read).
    """
    path = os.fspath(path)
    out = {}
    text = read_small_text(path, what="label file")
    path = input_name(path)  # (messages: ``-`` is stdin)
    for n, line in enumerate(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if "\t" not in line:
            raise InputError(f"{path}:{n}: expected 'docid<TAB>label1,label2'; no TAB in the line")
        doc, labels = line.split("\t", 1)
        doc = doc.strip()
        if not doc:
            raise InputError(f"{path}:{n}: empty document id")
        if doc in out:
            raise InputError(f"{path}:{n}: document {doc!r} is listed twice")
        out[doc] = tuple(sorted({lab.strip() for lab in split_labels(labels) if lab.strip()}))
    return out


def split_labels(field):
    """The labels of a label file's field, split at each comma that is not escaped: ``\\,`` is
    a comma inside a label and ``\\\\`` a backslash, as ``predict`` writes a label holding
    them (:func:`textnb.cli.streams.label_list`), so its output reads back as the labels it
    printed; any other backslash is kept as written (``C:\\temp``). Found by a user trial: a
    label ``a,b`` written ``a\\,b`` was read as the labels ``a\\`` and ``b``, silently."""
    if "\\" not in field:
        return field.split(",")
    out, piece, i, n = [], [], 0, len(field)
    while i < n:
        c = field[i]
        if c == "\\" and i + 1 < n and field[i + 1] in ",\\":
            piece.append(field[i + 1])
            i += 2
            continue
        if c == ",":
            out.append("".join(piece))
            piece = []
        else:
            piece.append(c)
        i += 1
    out.append("".join(piece))
    return out


def _plain_id(doc):
    """A document id written with a leading ``./`` (as ``find .`` prints paths), ``.`` or empty
    steps (``a/./b``, ``a//b``) or Windows separators (``a\\b``), as the path under the folder
    that the ids of its files are (ids with ``..`` steps are left as written)."""
    import posixpath

    plain = doc.replace("\\", "/")
    if ".." in plain.split("/"):
        return doc
    return doc if plain.startswith("/") else posixpath.normpath(plain)


def _split_parts(path):
    """``(train, test)`` folders of a folder with ``train/`` and ``test/`` parts, else None."""
    train, test = os.path.join(path, "train"), os.path.join(path, "test")
    if os.path.isdir(train) and os.path.isdir(test):
        return train, test
    return None


def _from_label_file(folder, table, label_file, prefix, strict):
    """The documents of ``folder`` that ``table`` lists (ids relative to ``folder``, or
    to its parent with ``prefix``), in file order."""
    folder = os.fspath(folder)
    # the label file's path relative to the folder (it is left out when it lies inside)
    skip = (None if os.fspath(label_file) == "-" else  # (standard input is no file of the folder)
            Path(os.path.relpath(os.path.abspath(os.fspath(label_file)), os.path.abspath(folder))).as_posix())
    root = os.path.join(folder, "")
    files, keys = [], {}
    for f in _walk_files(folder):
        rel = f[len(root):] if f.startswith(root) else os.path.relpath(f, folder)  # (the walk's paths start so)
        if os.sep != "/":
            rel = Path(rel).as_posix()
        if rel == skip:
            continue
        files.append(rel)
        stem = rel.rsplit(".", 1)[0] if "." in os.path.basename(rel) else rel
        for key in (rel, stem) + ((prefix + rel, prefix + stem) if prefix else ()):
            keys.setdefault(key, rel)
    ids, documents, labels, used = [], [], [], set()
    not_found = []
    for doc, labs in table.items():
        rel = keys.get(doc)
        if rel is None:  # an id as `find .` writes it (./a.txt), or with a/./b, a//b, a\b in it
            rel = keys.get(_plain_id(doc))
        if rel is None or rel in used:
            not_found.append(doc)
            continue
        used.add(rel)
        ids.append(doc)
        documents.append(Path(folder, rel))
        labels.append(labs)
    unlisted = [rel for rel in files if rel not in used]
    if strict and unlisted:
        raise InputError(f"{input_name(label_file)}: {counted(len(unlisted), 'file')} of {folder} "
                         f"ha{'ve' if len(unlisted) > 1 else 's'} no line (first: {unlisted[0]}); --strict")
    return ids, documents, labels, unlisted, not_found


def _from_label_folders(folder, same_name):
    """One folder per label: the same relative path in several label folders is one
    document when the files' bytes are equal."""
    labels_of, paths_of = {}, {}
    for label_dir in _class_folders(folder):
        label = folder_label(label_dir)
        for f in _walk_files(label_dir):
            rel = Path(os.path.relpath(f, label_dir)).as_posix()
            paths_of.setdefault(rel, []).append(Path(f))
            labels_of.setdefault(rel, []).append(label)
    if not paths_of:
        raise InputError(f"{folder}: no documents (expected one folder per label: {folder}/<label>/<files>)")
    ids, documents, labels = [], [], []
    for rel in sorted(paths_of):
        paths, labs = paths_of[rel], labels_of[rel]
        groups = [[paths[0], [labs[0]]]]  # files of equal bytes, with their labels
        if len(paths) > 1:
            first = _content(paths[0])
            contents = [first]
            for p, lab in zip(paths[1:], labs[1:]):
                data = _content(p)
                for g, c in zip(groups, contents):
                    if c == data:
                        g[1].append(lab)
                        break
                else:
                    if same_name != "separate":
                        raise InputError(
                            f"{groups[0][0]} and {p}: same name in two label folders but different "
                            f"contents (one document with two labels must be the same file in each "
                            f"label's folder; --separate-documents reads them as separate documents)")
                    groups.append([p, [lab]])
                    contents.append(data)
        for k, (p, glabs) in enumerate(groups):
            ids.append(rel if len(groups) == 1 else f"{glabs[0]}/{rel}")
            documents.append(p)
            labels.append(tuple(sorted(set(glabs))))
    return ids, documents, labels


def _content(path):
    return read_regular_file(path)  # (one InputError line naming the file: not regular, unreadable)


def json_label_lists(path, head, label_column=None):
    """Whether the JSON Lines file ``path`` (its first bytes ``head``, its first line whole)
    is a multi-label corpus: its first object's label field (``label_column``, else the
    first of the label names a TSV corpus's header is read by) holds a list
    (:mod:`textnb.io.jsonlines`)."""
    from textnb.io.corpus import _LABEL_NAMES, _pick_column
    from textnb.io.jsonlines import first_object, is_json_lines

    obj = first_object(head) if is_json_lines(path, head) else None
    if not obj:
        return False
    header = [str(k) for k in obj]
    try:
        li = _pick_column(header, label_column, _LABEL_NAMES, "label", path)
    except InputError:
        return False  # (the single-label reader says it)
    return li is not None and isinstance(list(obj.values())[li], list)


def read_json_multilabel(path, *, label_column=None, text_column=None, max_bytes=None, data=None):
    """The :class:`MultiLabelCorpus` of a JSON Lines file whose label field holds lists
    (:func:`json_label_lists`; ``data``: its content, read already): read by the one row
    reader (:func:`textnb.io.corpus.iter_rows`, ``label_sets``), each row's label set its
    list's items (:func:`textnb.io.jsonlines.label_set`), ids ``PATH:ROW``."""
    import io as _io

    from textnb.io.corpus import MAX_DOCUMENT_BYTES, iter_rows

    documents, labels = [], []
    stream = None if data is None else _io.BytesIO(bytes(data))
    for docs, labs in iter_rows(path, stream=stream, label_column=label_column, text_column=text_column,
                                max_bytes=max_bytes or MAX_DOCUMENT_BYTES, need_label=True, label_sets=True):
        documents += docs
        labels += labs
    name = input_name(path)
    return MultiLabelCorpus(source=name, ids=[f"{name}:{k}" for k in range(1, len(documents) + 1)],
                            documents=documents, labels=labels)


def read_multilabel_corpus(path, *, label_file=None, strict=False, same_name="error", test=True):
    """List a multi-label corpus: a folder with a label file, or one folder per label.

    Parameters
    ----------
    path : str or Path
        The corpus folder. When it holds ``train/`` and ``test/`` parts (an official
        split), the result is the training part with the test part in ``.test``.
    label_file : str or Path, default=None
        ``docid<TAB>labels`` file; document ids are paths relative to the folder (or to
        its part), with or without the file extension. Ids with no file in the folder
        (the other part's documents, or missing ones) are counted in ``not_found``;
        files with no line in ``unlisted`` and left out. When None, ``path`` (or each
        part) holds one folder per label.
    strict : bool, default=False
        Raise InputError for a file with no line or an id with no file (in neither part).
    same_name : {"error", "separate"}, default="error"
        One folder per label: files with the same relative path in several label folders
        are one document when their bytes are equal; when they differ, ``"error"``
        raises InputError naming two of them, ``"separate"`` reads them as separate
        documents.
    test : bool, default=True
        Also list the test part of a split folder.

    Returns
    -------
    MultiLabelCorpus
    """
    path = os.fspath(path)
    check_input(path, "folder")
    if same_name not in ("error", "separate"):
        raise ParameterError(f"same_name must be 'error' or 'separate'; got {same_name!r}")
    parts = _split_parts(path)
    folders = [parts[0], parts[1]] if parts else [path]
    if parts and not test:
        folders = folders[:1]
    out = []
    if label_file is not None:
        table = read_label_file(label_file)
        found = set()
        for folder in folders:
            prefix = os.path.basename(folder) + "/" if parts else ""
            ids, documents, labels, unlisted, not_found = _from_label_file(folder, table, label_file, prefix, strict)
            found.update(ids)
            out.append(MultiLabelCorpus(source=path if folder == folders[0] else folder, ids=ids,
                                        documents=documents, labels=labels, unlisted=unlisted,
                                        not_found=not_found))
        if len(out) == 2:  # an id of the other part is not missing
            for part, other in ((out[0], out[1]), (out[1], out[0])):
                theirs = set(other.ids)
                part.not_found = [i for i in part.not_found if i not in theirs]
        elif parts:  # the test part, not listed: its ids are not missing either
            prefix = os.path.basename(parts[1]) + "/"
            theirs = set(_from_label_file(parts[1], table, label_file, prefix, False)[0])
            out[0].not_found = [i for i in out[0].not_found if i not in theirs]
            found.update(theirs)
        if strict:
            missing = [i for i in table if i not in found]
            if missing:
                raise InputError(f"{input_name(label_file)}: {counted(len(missing), 'document id')} "
                                 f"with no file in {path} (first: {missing[0]}); --strict")
        if not out[0].ids:
            raise InputError(f"{input_name(label_file)}: lists none of the documents in {folders[0]}")
    else:
        for folder in folders:
            ids, documents, labels = _from_label_folders(folder, same_name)
            out.append(MultiLabelCorpus(source=path if folder == folders[0] else folder, ids=ids,
                                        documents=documents, labels=labels))
    corpus = out[0]
    corpus.test = out[1] if len(out) > 1 else None
    return corpus
