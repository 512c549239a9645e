import os
from pathlib import Path

import pytest

from conftest import cli
from textnb import InputError, open_corpus
from textnb.io.corpus import decode_bytes, iter_input_documents, read_document


def make_folder(root, spec):
    for label, docs in spec.items():
        d = root / label
        d.mkdir(parents=True, exist_ok=True)
        for name, data in docs.items():
            (d / name).write_bytes(data if isinstance(data, bytes) else data.encode())
    return root


def test_folder_per_class(tmp_path):
    make_folder(tmp_path / "c", {"ham": {"1": "hi", "2": "yo"}, "spam": {"1": "buy"}})
    (tmp_path / "c" / "ham" / ".hidden").write_text("x")
    (tmp_path / "c" / "ham" / "sub").mkdir()
    (tmp_path / "c" / "ham" / "sub" / "3").write_text("nested")
    c = open_corpus(tmp_path / "c")
    assert c.class_counts() == {"ham": 3, "spam": 1}
    assert c.test is None


def test_train_test_split_folders(tmp_path):
    make_folder(tmp_path / "c" / "train", {"a": {"1": "x y"}, "b": {"1": "z"}})
    make_folder(tmp_path / "c" / "test", {"a": {"9": "x"}, "b": {"9": "z z"}})
    c = open_corpus(tmp_path / "c")
    assert c.class_counts() == {"a": 1, "b": 1}
    assert c.test.class_counts() == {"a": 1, "b": 1}


def test_headerless_tsv_and_csv_with_header(tmp_path):
    tsv = tmp_path / "sms.tsv"
    tsv.write_text("ham\thello there\nspam\tWIN\tnow\n")
    c = open_corpus(tsv)
    assert c.labels == ["ham", "spam"] and c.documents == ["hello there", "WIN\tnow"]
    csvf = tmp_path / "d.csv"
    csvf.write_text('id,text,category\n1,"a, quoted text",x\n2,plain,y\n')
    c = open_corpus(csvf)
    assert c.labels == ["x", "y"] and c.documents == ["a, quoted text", "plain"]
    c = open_corpus(csvf, label_column="1", text_column="text")
    assert c.labels == ["1", "2"]


def test_a_tsv_corpus_whose_first_label_comes_once_is_not_taken_for_a_header(tmp_path):
    """The header rule (one for CSV and TSV) asks the first row's second cell to be a name:
    a corpus's first document, its label unique among the rows below, is still a document;
    a TSV whose rows all have the same three or more cells is a table, as the same CSV is."""
    from textnb.core.errors import NotATextCorpus

    tsv = tmp_path / "c.tsv"
    tsv.write_text("spam\twin\tcash now\nham\tsee you\nham\tok\tthen\tbye\n")
    c = open_corpus(tsv)
    assert c.labels == ["spam", "ham", "ham"] and c.documents[0] == "win\tcash now"
    for name, sep in (("t.tsv", "\t"), ("t.csv", ",")):
        table = tmp_path / name
        table.write_text(sep.join("anc") + "\n" + sep.join("p1x") + "\n" + sep.join("q2y") + "\n")
        with pytest.raises((NotATextCorpus, InputError)):
            open_corpus(table)


@pytest.mark.parametrize("rows", [
    ["ham\thello", "spam\tbuy now", "spam,ham\tx", "spam\tcheap pills", "spam\twin cash"],
    ["spam,ham\tx", "spam\tbuy now", "ham\thello", "ham\thi there", "spam\tcheap pills"],
])
def test_a_headerless_tsv_whose_first_label_is_in_a_label_list_below_is_a_corpus(tmp_path, rows):
    """A 5-row ``label<TAB>text`` file whose first row has a one-word text and a label that
    comes back only inside a label list below (``ham`` in ``spam,ham``), or is a list of the
    labels below, was taken for a table's header (``textnb train`` read 4 rows of a table);
    its first cell is a label: the file is a text corpus. A table's header stays one."""
    from textnb.core.errors import NotATextCorpus

    tsv = tmp_path / "c.tsv"
    tsv.write_text("\n".join(rows) + "\n")
    with pytest.warns(Warning, match="holds a comma"):
        c = open_corpus(tsv)
    assert c.labels == [r.split("\t")[0] for r in rows] and c.documents == [r.split("\t")[1] for r in rows]
    for sep in ("\t", ","):  # (a header above repeating class values is still a table's)
        table = tmp_path / f"t{len(sep)}.{'tsv' if sep == chr(9) else 'csv'}"
        table.write_text("".join(f"{a}{sep}{b}\n" for a, b in
                                 [("colour", "size"), ("red", "small"), ("red", "big"), ("blue", "small")]))
        with pytest.raises(NotATextCorpus, match="is a header"):
            open_corpus(table)


def test_table_errors_are_one_line_with_the_file(tmp_path):
    empty = tmp_path / "empty.tsv"
    empty.write_text("")
    with pytest.raises(InputError, match="empty.tsv: empty file"):
        open_corpus(empty)
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b,c\n1,2,3\n")
    with pytest.raises(InputError, match="label and text columns"):
        open_corpus(bad)
    with pytest.raises(InputError, match="no text column 'body'"):
        open_corpus(bad, label_column="a", text_column="body")


def test_empty_and_missing_corpora(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        open_corpus(tmp_path / "nope")
    (tmp_path / "flat").mkdir()
    (tmp_path / "flat" / "doc.txt").write_text("x")
    with pytest.raises(InputError, match="no class folders"):
        open_corpus(tmp_path / "flat")
    (tmp_path / "hollow" / "a").mkdir(parents=True)
    with pytest.raises(InputError, match="empty corpus"):
        open_corpus(tmp_path / "hollow")


def test_symlink_loop_does_not_trap_the_reader(tmp_path):
    make_folder(tmp_path / "c", {"a": {"1": "x"}, "b": {"1": "y"}})
    os.symlink(tmp_path / "c" / "a", tmp_path / "c" / "a" / "loop")
    c = open_corpus(tmp_path / "c")
    assert c.class_counts() == {"a": 1, "b": 1}


def test_decoding_policy():
    assert decode_bytes("naïve".encode("utf-8")) == "naïve"
    assert decode_bytes(b"\xef\xbb\xbfbom") == "bom"
    assert decode_bytes("café €5".encode("cp1252")) == "café €5"
    assert decode_bytes(b"\x81\x8d") == "\x81\x8d"  # undefined in cp1252: Latin-1


def test_binary_and_truncation(tmp_path):
    (tmp_path / "bin").write_bytes(b"abc\x00def")
    assert read_document(tmp_path / "bin") is None
    (tmp_path / "big").write_bytes(b"word " * 1000)
    assert read_document(tmp_path / "big", max_bytes=10) == "word word "


def test_unreadable_file_is_a_one_line_error(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root can read any file")
    p = tmp_path / "secret"
    p.write_text("x")
    p.chmod(0)
    with pytest.raises(InputError, match="cannot read"):
        read_document(p)


def test_input_documents_from_files_folders_and_stdin(tmp_path):
    import io

    make_folder(tmp_path / "in", {"x": {"1": "one", "2": b"\x00bin"}})
    got = list(iter_input_documents([str(tmp_path / "in"), "-"], stdin=io.BytesIO(b"from stdin")))
    assert got[0][1] == "one" and got[1][1] is None and got[2] == ("stdin", "from stdin")
    with pytest.raises(InputError, match="no such file"):
        list(iter_input_documents([str(tmp_path / "missing")]))


@pytest.mark.parametrize("spelling", ["{}", "{}/", "{}//", "./{}"])
def test_folder_documents_are_the_paths_of_their_files(tmp_path, monkeypatch, spelling):
    """A folder corpus lists each file as ``Path`` of its path, sub-folders included, however
    the corpus folder is spelt (the Paths are built from the class folder's)."""
    from pathlib import Path

    for label, rel in [("a", "1.txt"), ("a", "sub/2.txt"), ("a", "sub/deeper/3.txt"), ("b", "4.txt")]:
        f = tmp_path / "c" / label / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(f"text of {rel}")
    monkeypatch.chdir(tmp_path)
    corpus = open_corpus(spelling.format("c"))
    assert all(type(d) is type(Path()) for d in corpus.documents)
    assert [str(d) for d in corpus.documents] == ["c/a/1.txt", "c/a/sub/2.txt", "c/a/sub/deeper/3.txt", "c/b/4.txt"]
    assert corpus.documents == [Path(str(d)) for d in corpus.documents]
    assert corpus.labels == ["a", "a", "a", "b"]


def test_a_csv_row_with_cells_beyond_the_header_is_an_error_naming_its_line(tmp_path):
    """An unquoted comma in a CSV text splits it: the rest was dropped without a word
    (TSV, which has no quoting, keeps TABs after the last column in the text). Training
    and prediction (read at once or as they stream) say the same."""
    from textnb.io.corpus import iter_rows, read_rows

    (tmp_path / "r.csv").write_text('label,text\nham,hello there\nspam,free money,EXTRA\nham,ok\n')
    (tmp_path / "r.tsv").write_text("label\ttext\nham\thello there\nspam\tfree money\tEXTRA\nham\tok\n")
    for read in (lambda p: open_corpus(p), lambda p: read_rows(p), lambda p: list(iter_rows(p))):
        with pytest.raises(InputError, match=r"r\.csv:3: row has 3 cells, expected 2 \(quote a text"):
            read(str(tmp_path / "r.csv"))
    assert open_corpus(str(tmp_path / "r.tsv")).documents[1] == "free money\tEXTRA"
    (tmp_path / "q.csv").write_text('label,text\nham,hello there\nspam,"free money, EXTRA"\n')
    assert open_corpus(str(tmp_path / "q.csv")).documents == ["hello there", "free money, EXTRA"]


@pytest.mark.parametrize("name", ["s.csv", "s.tsv"])
def test_a_short_row_is_named_by_its_line_in_the_file(tmp_path, name):
    """Blank lines and quoted fields over several lines count: the line given is the
    row's first line in the file (blank rows used to be left out of the count)."""
    from textnb.io.corpus import iter_rows, read_rows

    sep = "," if name.endswith("csv") else "\t"
    quoted = '"two\nlines"' if sep == "," else "two lines"
    (tmp_path / name).write_text(f"label{sep}text\n\n\nham{sep}hello there\n\nham{sep}{quoted}\nspam\nham{sep}ok\n")
    where = 8 if sep == "," else 7
    for read in (lambda p: open_corpus(p), lambda p: read_rows(p), lambda p: list(iter_rows(p))):
        with pytest.raises(InputError, match=rf"{name}:{where}: row has 1 cell, expected at least 2"):
            read(str(tmp_path / name))


@pytest.mark.parametrize("text", ["café crème café crème café crème thé", "Привет мир, как дела сегодня",
                                  "数据 科学 机器 学习 模型", "naïve Bayes — señor 😀 emoji"])
def test_a_document_cut_inside_a_character_keeps_its_words(tmp_path, text):
    """--max-bytes cutting a UTF-8 character in two loses that character only: the rest is
    read as the UTF-8 it is (the whole text was read as Windows-1252 before: 'cafÃ©'), on
    every path that cuts a document (files, bytes given to the estimators, stdin)."""
    from pathlib import Path

    from textnb.io.corpus import to_tokenizable

    data = text.encode("utf-8")
    path = tmp_path / "doc.txt"
    path.write_bytes(data)
    for n in range(1, len(data) + 1):
        whole = data[:n].decode("utf-8", "ignore")
        assert read_document(path, n) == whole, n
        got = to_tokenizable(Path(path), n)
        assert (got.decode() if isinstance(got, bytes) else got) == whole, n
        assert to_tokenizable(data, n) in (whole, whole.encode())
    # a file that is not UTF-8 (Windows-1252) and not cut is still read as Windows-1252
    assert decode_bytes("crème brûlée".encode("cp1252")) == "crème brûlée"
    assert decode_bytes(b"caf\xe9") == "café" and decode_bytes(b"caf\xe9", cut=True) == "caf"


def test_a_class_folder_or_training_part_given_as_a_link_is_read(tmp_path):
    """A class folder that is a symbolic link was left out without a word (and a linked
    train/ part made test/ a class: 'only one class')."""
    elsewhere = tmp_path / "elsewhere"
    for label in ("a", "b"):
        (elsewhere / label).mkdir(parents=True)
        (elsewhere / label / "1.txt").write_text(f"{label} words here")
    corpus = tmp_path / "c"
    (corpus / "a").mkdir(parents=True)
    (corpus / "a" / "2.txt").write_text("more a words")
    (corpus / "b").symlink_to(elsewhere / "b")
    (corpus / "broken").symlink_to(tmp_path / "nowhere")
    c = open_corpus(corpus)
    assert sorted(c.labels) == ["a", "b"]
    split = tmp_path / "split"
    (split / "test" / "a").mkdir(parents=True)
    (split / "test" / "a" / "t.txt").write_text("a test")
    (split / "train").symlink_to(elsewhere)
    c = open_corpus(split)
    assert sorted(c.labels) == ["a", "b"] and c.test is not None and c.test.labels == ["a"]


def test_a_tsv_corpus_for_training_is_streamed_from_its_file(tmp_path, monkeypatch):
    """Training read a TSV/CSV corpus whole (the text, its rows and a list of documents:
    about six times the file, 2.1 GB for a 341 MB file); streamed, its documents are read
    from the file on each pass, in the order and with the words of the list (a file over
    ``STREAM_ROWS_BYTES``: here every file)."""
    import warnings

    from textnb.io import corpus as corpus_module
    from textnb.io.corpus import RowTexts

    monkeypatch.setattr(corpus_module, "STREAM_ROWS_BYTES", 0)

    rows = [("spam" if i % 3 == 0 else "ham", f"text number {i} with words é{i}") for i in range(5000)]
    path = tmp_path / "c.tsv"
    path.write_text("".join(f"{a}\t{b}\n" for a, b in rows), encoding="utf-8")
    whole = open_corpus(path)
    streamed = open_corpus(path, stream=True)
    assert isinstance(streamed.documents, RowTexts) and len(streamed.documents) == 5000
    assert streamed.labels == whole.labels == [a for a, _ in rows]
    assert list(streamed.documents) == list(streamed.documents) == whole.documents == [b for _, b in rows]
    with open(path, "a", encoding="utf-8") as f:
        f.write("ham\tone row more\n")
    with pytest.raises(InputError, match="changed while it was read"):
        list(streamed.documents)
    extra = tmp_path / "x.csv"
    extra.write_text("size,body,class\n" + "".join(f"{i},word{i % 7} other,c{i % 2}\n" for i in range(3000)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        corpus = open_corpus(extra, stream=True)
        assert len(list(corpus.documents)) == 3000
    assert [str(w.message) for w in caught].count(str(caught[0].message)) == 1 and "'size' not read" in str(caught[0].message)


def test_a_streamed_corpus_is_read_once_from_a_pipe_and_refused_when_replaced(tmp_path, monkeypatch):
    """Streaming reopened the path for its second pass: a FIFO hung, a process substitution
    was 'empty'; and a file replaced between the passes (another of as many rows) gave a
    model of the old labels and the new texts without a word."""
    import threading

    from textnb.io import corpus as corpus_module
    from textnb.io.corpus import RowTexts

    monkeypatch.setattr(corpus_module, "STREAM_ROWS_BYTES", 0)  # (every file streamed)

    rows = "".join(f"{'spam' if i % 2 else 'ham'}\tword{i} other{i % 5}\n" for i in range(500))
    fifo = tmp_path / "f.tsv"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_text(rows))
    writer.start()
    corpus = open_corpus(fifo, stream=True)
    writer.join()
    assert isinstance(corpus.documents, list) and len(corpus.documents) == 500
    path = tmp_path / "c.tsv"
    path.write_text(rows)
    streamed = open_corpus(path, stream=True)
    assert isinstance(streamed.documents, RowTexts)
    other = tmp_path / "other.tsv"
    other.write_text("".join(reversed(rows.splitlines(keepends=True))))
    os.replace(other, path)
    with pytest.raises(InputError, match="changed while it was read"):
        list(streamed.documents)


@pytest.mark.parametrize("name", ["c.csv", "c.jsonl"])
def test_a_corpus_file_under_the_stream_bound_is_read_once_for_training(tmp_path, monkeypatch, name):
    """A TSV/CSV or JSON Lines corpus of at most ``STREAM_ROWS_BYTES`` is read once for
    training, its texts kept (20 Newsgroups' 22 MB CSV file: a second pass over its rows was
    a quarter of the training time); a larger one is streamed. Both give the model of the
    other, byte for byte."""
    import json

    from textnb.io import corpus as corpus_module
    from textnb.io.corpus import RowTexts

    rows = [("spam" if i % 3 == 0 else "ham", f"text number {i}, with words é{i} and \"quotes\"") for i in range(3000)]
    path = tmp_path / name
    if name.endswith(".csv"):
        path.write_text("label,text\n" + "".join(f'{a},"{b.replace(chr(34), chr(34) * 2)}"\n' for a, b in rows),
                        encoding="utf-8")
    else:
        path.write_text("".join(json.dumps({"label": a, "text": b}) + "\n" for a, b in rows), encoding="utf-8")
    passes = []
    real = corpus_module.iter_rows

    def counted(*args, **kwargs):
        passes.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(corpus_module, "iter_rows", counted)
    kept = open_corpus(path, stream=True)
    assert isinstance(kept.documents, list) and kept.documents == [b for _, b in rows] and len(passes) == 1
    rc, _, err = cli("train", path, "-o", tmp_path / "once.tnb")
    assert rc == 0, err
    monkeypatch.setattr(corpus_module, "STREAM_ROWS_BYTES", path.stat().st_size - 1)
    streamed = open_corpus(path, stream=True)
    assert isinstance(streamed.documents, RowTexts) and list(streamed.documents) == kept.documents
    rc, _, err = cli("train", path, "-o", tmp_path / "twice.tnb")
    assert rc == 0, err
    assert (tmp_path / "once.tnb").read_bytes() == (tmp_path / "twice.tnb").read_bytes()


def test_a_headerless_tsv_keeps_every_tab_of_its_text_whatever_its_first_row(tmp_path):
    """A first row with a TAB in its text made every row's text its first field only."""
    (tmp_path / "e.tsv").write_text("ham\thello\tthere\nspam\twin\tcash\tnow\nham\tx y\n")
    assert open_corpus(tmp_path / "e.tsv").documents == ["hello\tthere", "win\tcash\tnow", "x y"]


def test_a_byte_order_mark_is_dropped_from_every_user_file(tmp_path):
    """A UTF-8 BOM (Windows editors write one) glued to the first entry of a side file:
    the first stop word was '\\ufeffcheap', the first label-file id never matched, a
    structure file was no JSON. The row readers (TSV/CSV corpora and tables, ARFF,
    fastText) drop it too, so a header's first column keeps its name."""
    from textnb.io.arff import read_arff
    from textnb.io.fasttext import read_fasttext
    from textnb.io.multilabel import read_label_file
    from textnb.io.tables import read_table
    from textnb.io.corpus import read_word_list
    from textnb.semi_naive.bayesnet_kernel import read_structure

    bom = b"\xef\xbb\xbf"
    (tmp_path / "sw.txt").write_bytes(bom + b"cheap\npills\n")
    assert read_word_list(tmp_path / "sw.txt") == ["cheap", "pills"]
    (tmp_path / "labels.tsv").write_bytes(bom + b"d1\tgrain\nd2\toil\n")
    assert read_label_file(tmp_path / "labels.tsv") == {"d1": ("grain",), "d2": ("oil",)}
    (tmp_path / "s.json").write_bytes(bom + b'{"parents": {"a": []}, "class": "class"}')
    assert read_structure(tmp_path / "s.json")["parents"] == {"a": []}
    (tmp_path / "t.csv").write_bytes(bom + b"class,size\nyes,1\nno,2\nyes,1.5\nno,2.5\n")
    assert read_table(tmp_path / "t.csv", class_name="class").class_attribute.name == "class"
    (tmp_path / "t.arff").write_bytes(bom + b"@relation r\n@attribute a {x,y}\n@attribute c {p,q}\n@data\nx,p\ny,q\n")
    assert [a.name for a in read_arff(tmp_path / "t.arff").attributes] == ["a", "c"]
    (tmp_path / "c.tsv").write_bytes(bom + b"label\ttext\nspam\tcheap pills\nham\tlunch\n")
    assert open_corpus(tmp_path / "c.tsv").labels == ["spam", "ham"]
    (tmp_path / "f.ft").write_bytes(bom + b"__label__a cheap pills\n__label__b lunch\n")
    assert read_fasttext(tmp_path / "f.ft").labels == [("a",), ("b",)]


def test_folder_corpus_paths_are_the_paths_of_their_names(tmp_path):
    """A folder corpus's documents are the Paths of their file names, built without parsing
    each name again for the files right in a class folder (_child_path) and by ``/`` below:
    equal (and hashing equal) to ``Path(name)``, with the same parts, name and parent."""
    for rel in ("a/1.txt", "a/x.y.z", "a/sub/2.txt", "a/sub/deeper/3", "b/.4", "b/5"):
        f = tmp_path / "c" / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text("words " + rel)
    corpus = open_corpus(str(tmp_path / "c"))
    names = sorted(str(d) for d in corpus.documents)
    assert names == sorted(str(tmp_path / "c" / r) for r in ("a/1.txt", "a/x.y.z", "a/sub/2.txt", "a/sub/deeper/3",
                                                             "b/5"))
    for doc in corpus.documents:
        plain = Path(str(doc))
        assert isinstance(doc, Path) and doc == plain and hash(doc) == hash(plain)
        assert (doc.parts, doc.name, doc.parent, doc.suffix) == (plain.parts, plain.name, plain.parent, plain.suffix)
        assert doc.read_text().startswith("words ")


class _LongRowStream:
    """A TSV (or CSV) read as a stream: ``head`` bytes, then a row ``row`` (``ham<TAB>``) and
    ``n`` bytes of text made as it is read (the test holds none of it), ``unit`` repeated,
    then ``tail``."""

    def __init__(self, head, n, tail, row=b"ham\t", unit=b"word "):
        self.parts, self.n, self.done = [head, row], n, 0
        self.tail, self.unit = tail, unit

    def read(self, size=-1):
        if self.parts:
            return self.parts.pop(0)
        if self.done < self.n:
            k = min(self.n - self.done, 1 << 16, size if size and size > 0 else 1 << 16)
            start = self.done % len(self.unit)
            self.done += k
            return (self.unit * (k // len(self.unit) + 2))[start:start + k]
        out, self.tail = self.tail, b""
        return out

    def close(self):
        pass


@pytest.mark.parametrize("max_bytes", [1000, 100_000])
def test_a_tsv_row_longer_than_memory_needs_is_read_a_block_at_a_time(max_bytes):
    """A TSV corpus's row is cut at --max-bytes without being held whole: a 200 MB row of
    a training TSV took 1.6 GB (the line read, decoded, split and joined), whatever
    --max-bytes (found by a user trial, session 27; fastText lines were cut as read)."""
    import tracemalloc

    from textnb.io.corpus import iter_rows

    n = 40 << 20
    stream = _LongRowStream(b"spam\tfirst row\n", n, b"\tmore text\nham\tlast row\n")
    tracemalloc.start()
    try:
        rows = [r for docs, labels in iter_rows("long.tsv", stream=stream, max_bytes=max_bytes, need_label=True)
                for r in zip(docs, labels)]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [label for _, label in rows] == ["spam", "ham", "ham"]
    assert rows[1][0] == ("word " * (max_bytes // 5 + 1))[:max_bytes] and rows[2][0] == "last row"
    assert peak < 8 << 20, peak  # (the row is 40 MB)


_UNIT = b"word " * 19 + b"word\n"  # (a CSV quoted field of lines of 100 bytes)


@pytest.mark.parametrize("name, stream", [
    ("long.tsv", lambda: _LongRowStream(b"spam\tfirst row\n", 40 << 20, b"\tmore text\nham\tlast row\n")),
    ("long.csv", lambda: _LongRowStream(b"spam,first row\n", 40 << 20, b'"\nham,last row\n', row=b'ham,"')),
    ("lines.csv", lambda: _LongRowStream(b"spam,first row\n", 40 << 20, b'"\nham,last row\n', row=b'ham,"',
                                         unit=_UNIT)),
])
def test_a_csv_field_longer_than_memory_needs_is_read_a_block_at_a_time_as_tsv(name, stream):
    """A CSV corpus's field is cut at --max-bytes without being held whole, as a TSV's: a
    quoted field of 40 MB (on one line, or on 400,000 lines) was read whole by the csv module
    (the TSV rows only were read a block at a time, session 27): the same documents, the
    same line numbers after it (session 28)."""
    import tracemalloc

    from textnb.io.corpus import iter_rows

    max_bytes = 1000
    unit = (_UNIT if name == "lines.csv" else b"word ").decode()
    tracemalloc.start()
    try:
        rows = [r for docs, labels in iter_rows(name, stream=stream(), max_bytes=max_bytes, need_label=True)
                for r in zip(docs, labels)]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [label for _, label in rows] == ["spam", "ham", "ham"]
    assert rows[1][0] == (unit * (max_bytes // len(unit) + 1))[:max_bytes] and rows[2][0] == "last row"
    assert peak < 8 << 20, peak  # (the row is 40 MB)


@pytest.mark.parametrize("delimiter", ["\t", ","])
def test_a_cut_row_keeps_its_fields_quotes_and_line_numbers(tmp_path, delimiter):
    """TSV and CSV rows cut by one rule: every field kept to its first max(--max-bytes + 8,
    64 KiB) bytes of text at a character's start, a CSV field's doubled quotes counted as
    the one character of text they are, the rows after it read as they are (numbered as
    in the file: a row too short names its line)."""
    from textnb.io.corpus import iter_rows

    from textnb.io.files import cut_text

    quoted = delimiter == ","
    text = 'say ""é€𝄞"" ' * 20_000 if quoted else "é€𝄞 " * 40_000  # (past the 64 KiB block)
    plain = text.replace('""', '"')
    lines = "\n" * 3 if quoted else ""  # (a CSV quoted field's lines are its text)
    cell = f'"{text}{lines}"' if quoted else text
    path = tmp_path / ("c.csv" if quoted else "c.tsv")
    more = "".join(f"ham{delimiter}row {i}\n" for i in range(50))  # (the layout is decided on 50 rows)
    path.write_bytes(f"spam{delimiter}first row\nham{delimiter}{cell}\nham{delimiter}last\n{more}short\n".encode())
    for max_bytes in (70_003, 1 << 20):
        with pytest.raises(InputError) as error:
            [r for docs, labels in iter_rows(path, max_bytes=max_bytes, need_label=True) for r in zip(docs, labels)]
        assert str(error.value) == f"{path}:{57 if quoted else 54}: row has 1 cell, expected at least 2"
    path.write_bytes(path.read_bytes().replace(b"short\n", b""))
    for max_bytes in (70_003, 1 << 20):
        rows = [r for docs, labels in iter_rows(path, max_bytes=max_bytes, need_label=True) for r in zip(docs, labels)]
        assert rows[:3] == [("first row", "spam"), (cut_text(plain + lines, max_bytes), "ham"), ("last", "ham")]
        assert len(rows) == 53


def test_a_huge_csv_field_never_closed_is_the_same_one_line():
    """A CSV quoted field never closed, of any length: the one line naming where it starts,
    read in bounded memory (the csv module held all of it, 40 MB, to say so)."""
    import tracemalloc

    from textnb.io.corpus import iter_rows

    stream = _LongRowStream(b"spam,first row\n", 40 << 20, b"", row=b'ham,"', unit=_UNIT)
    tracemalloc.start()
    try:
        with pytest.raises(InputError, match=r"^open.csv:2: a quoted field is never closed"):
            list(iter_rows("open.csv", stream=stream, max_bytes=1000, need_label=True))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20, peak


def test_a_cut_tsv_row_keeps_its_label_and_its_characters(tmp_path):
    """The cut at the row's block size keeps every field and never splits a UTF-8 character:
    the documents are those of the whole line, cut at --max-bytes."""
    from textnb.io.corpus import iter_rows

    from textnb.io.files import cut_text

    text = "é€𝄞 " * 40_000  # (10 bytes each, past the 64 KiB block: its cut falls inside characters)
    path = tmp_path / "c.tsv"
    path.write_bytes(f"text\tlabel\n{text}\tham\nshort\tspam\n".encode())
    for max_bytes in (70_003, 1 << 20):
        rows = [r for docs, labels in iter_rows(path, max_bytes=max_bytes, need_label=True) for r in zip(docs, labels)]
        assert rows == [(cut_text(text, max_bytes), "ham"), ("short", "spam")]


@pytest.mark.parametrize("seed", range(6))
def test_csv_fields_of_many_lines_read_as_each_line_decoded_alone(tmp_path, seed):
    """A CSV corpus whose quoted fields span lines (a mail's body in a cell) is read with the
    lines inside a field taken together (one search of the read-ahead for the next quote,
    one decoding: 20 Newsgroups as CSV, 522,932 lines, 3.5 -> 1.1 s in the row reader,
    session 37); the documents and line numbers are those of every line decoded alone
    (UTF-8, else Windows-1252: a Windows-1252 line among UTF-8 ones, a byte-order mark
    starting a line inside a field) and parsed by the csv module, whatever the lines, the
    doubled quotes, CRLF line ends and the read-ahead's boundaries."""
    import csv
    import random

    from textnb.io.corpus import iter_rows

    rng = random.Random(seed)
    words = ["word", "é€", '""quoted""', "𝄞", "x" * 300, ",", "\t"]
    crlf = seed % 2 == 1
    end = b"\r\n" if crlf else b"\n"
    rows = [b"label,text"]
    for i in range(300):
        lines = []
        for _ in range(rng.choice([1, 2, 5, 40, 400])):
            line = " ".join(rng.choice(words) for _ in range(rng.randint(0, 12))).encode()
            pick = rng.random()
            if pick < 0.02:
                line = "caf\xe9 \u201ccp1252\u201d".encode("cp1252")  # (not UTF-8: this line alone is Windows-1252)
            elif pick < 0.03:
                line = b"\xef\xbb\xbf" + line  # (a byte-order mark starting a line: dropped, as from any line)
            lines.append(line)
        rows.append(b"ham" if i % 3 else b"spam")
        rows[-1] += b',"' + end.join(lines) + b'"'
    data = end.join(rows) + end
    path = tmp_path / "c.csv"
    path.write_bytes(data + b"short" + end)
    text = "".join(decode_bytes(line) for line in data.splitlines(keepends=True))
    reference = list(csv.reader(text.splitlines(keepends=True)[1:], strict=True))
    with pytest.raises(InputError) as error:
        [r for docs, labels in iter_rows(path, need_label=True) for r in zip(docs, labels)]
    short_line = data.count(b"\n") + 1
    assert str(error.value) == f"{path}:{short_line}: row has 1 cell, expected at least 2"
    path.write_bytes(data)
    got = [r for docs, labels in iter_rows(path, need_label=True, size=7) for r in zip(docs, labels)]
    assert got == [(t, lab) for lab, t in reference]


_DELIMITED_ROWS = [("spam", "win money now, call"), ("ham", "see you at lunch; ok"), ("spam", "free prize | claim now"),
                   ("ham", "meeting moved\nto monday"), ("spam", 'a "quoted" prize'), ("ham", "plain words")]


def _delimited(delimiter):
    """The rows above as a CSV file with ``delimiter`` and a ``label``/``text`` header, each
    text that holds the delimiter, a quote or a line end quoted (as the csv module writes it)."""
    import csv
    import io as _io

    out = _io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\n")
    writer.writerow(["label", "text"])
    writer.writerows(_DELIMITED_ROWS)
    return out.getvalue()


@pytest.mark.parametrize("name", ["rows.txt", "rows.csv", "rows"])
@pytest.mark.parametrize("delimiter", [",", ";", "|"])
def test_a_corpus_with_semicolons_or_bars_is_read_as_the_comma_file(tmp_path, name, delimiter):
    """A ``label;text`` (or ``label|text``) file, as spreadsheets write CSV where the decimal
    mark is a comma, is the corpus its comma file is. Its header was one cell to the corpus
    reader (a comma or a TAB only), so the file went to the table reader, which sniffed the
    semicolon: ``textnb train`` fitted a table model whose classes were the texts, exit 0."""
    path = tmp_path / name
    path.write_text(_delimited(delimiter))
    corpus = open_corpus(path)
    assert list(corpus.labels) == [label for label, _ in _DELIMITED_ROWS]
    assert list(corpus.documents) == [text for _, text in _DELIMITED_ROWS]
    rc, out, err = cli("train", path, "-o", tmp_path / f"{name}.tnb")
    assert rc == 0 and "model: DiscriminativeNB" in out + err and "ham 3, spam 3" in out + err


def test_a_semicolon_corpus_trains_the_model_of_its_tsv_file(tmp_path):
    """The same model file, byte for byte, from the semicolon file and the TSV file; the
    columns named (``--label-column``, ``--text-column``) are found in the semicolon header
    (they were not: ``no label column 'label' (columns: label;text)``); ``predict --rows``
    reads it too."""
    semi, tsv = tmp_path / "c.txt", tmp_path / "c.tsv"
    semi.write_text(_delimited(";"))
    tsv.write_text("label\ttext\n" + "".join(f"{label}\t{text.replace(chr(10), ' ')}\n"
                                              for label, text in _DELIMITED_ROWS))
    semi.write_text(semi.read_text().replace("moved\nto", "moved to"))
    for path, out in ((semi, "semi.tnb"), (tsv, "tsv.tnb")):
        rc, _, err = cli("train", path, "--label-column", "label", "--text-column", "text", "-o", tmp_path / out)
        assert rc == 0, err
    assert (tmp_path / "semi.tnb").read_bytes() == (tmp_path / "tsv.tnb").read_bytes()
    rc, out, err = cli("predict", tmp_path / "semi.tnb", "--rows", semi)
    assert rc == 0 and "of 6 rows with a label column" in out + err


def test_a_headerless_comma_corpus_whose_texts_hold_semicolons_stays_a_comma_file(tmp_path):
    """The first delimiter that cuts the first line wins, a comma first: a headerless comma
    corpus whose texts hold semicolons is read with commas; a row of a semicolon file with
    a semicolon left unquoted in its text is an error that names it."""
    path = tmp_path / "plain.txt"
    path.write_text("spam,win; money\nham,see you; soon\nspam,free; prize\nham,lunch; ok\n")
    corpus = open_corpus(path)
    assert list(corpus.labels) == ["spam", "ham", "spam", "ham"] and corpus.documents[0] == "win; money"
    path.write_text("label;text\nspam;win money\nham;see you; soon\n")
    with pytest.raises(InputError, match=r"plain.txt:3: row has 3 cells, expected 2 \(quote a text that holds a "
                                         r"semicolon\)"):
        open_corpus(path)


def test_a_headerless_semicolon_corpus_whose_texts_hold_commas_stays_a_semicolon_file(tmp_path):
    """Found by a user trial: a headerless ``label;text`` file whose first text holds a comma
    was read with commas (the first of the delimiters that cut the first line), its classes
    ``ham;see you at noon``. When several cut it, the one that cuts the first lines alike
    wins, of several the one met first in the first line (the label's)."""
    path = tmp_path / "semi.csv"
    path.write_text("ham;see you at noon, ok\nspam;free prize, call now\nham;lunch, then home\nspam;win, win, win\n")
    corpus = open_corpus(path)
    assert list(corpus.labels) == ["ham", "spam", "ham", "spam"] and corpus.documents[3] == "win, win, win"
    path.write_text("ham;see you at noon, ok\nspam;free prize, call now\n")  # (the same commas in each: the first met)
    assert list(open_corpus(path).labels) == ["ham", "spam"]
    more = tmp_path / "more.csv"
    more.write_text(path.read_text() * 10)
    rc, out, err = cli("train", more, "-o", tmp_path / "m.tnb")
    assert rc == 0 and "ham 10, spam 10" in out + err, out + err


@pytest.mark.parametrize("delimiter", ["\t", ";"])
def test_the_delimiter_is_read_from_the_first_line_that_is_not_blank(tmp_path, delimiter):
    """A corpus file that starts with a blank line (the rows skip it): its delimiter is its
    header's, not the blank line's (a TSV named ``.txt`` was read with commas and refused)."""
    path = tmp_path / "c.txt"
    path.write_text(f"\n\nlabel{delimiter}text\nspam{delimiter}win money now\nham{delimiter}see you at lunch\n")
    corpus = open_corpus(path)
    assert list(corpus.labels) == ["spam", "ham"] and list(corpus.documents) == ["win money now", "see you at lunch"]


def _bind(source, target):
    """Bind-mount ``source`` at ``target`` (a folder), or skip (it takes root and a mount)."""
    import subprocess

    if os.geteuid() != 0 or subprocess.run(["mount", "--bind", str(source), str(target)],
                                           capture_output=True).returncode != 0:
        pytest.skip("cannot bind-mount here (it takes root)")


def test_a_folder_bind_mounted_below_itself_is_walked_once_and_never_written_over(tmp_path):
    """A corpus folder bind-mounted inside one of its class folders: every other class's
    documents were read again and learnt under that class (174 documents of 87); its files
    reached through another bind mount of the folder could be written over by ``-o`` (the
    paths do not show it is the input). A folder met again (by device and inode, or one above
    the folder walked) is left out as a looping link is; an output whose folder is the input
    folder under another name is refused."""
    import subprocess

    corpus = tmp_path / "c"
    for label in ("ham", "spam"):
        (corpus / label).mkdir(parents=True)
        for i in range(4):
            (corpus / label / f"{i}.txt").write_text(f"{label} words number {i} here")
    loop = corpus / "spam" / "loop"
    loop.mkdir()
    _bind(corpus, loop)
    try:
        listed = open_corpus(corpus)
        assert sorted(listed.labels) == ["ham"] * 4 + ["spam"] * 4 and len(listed.skipped) == 1
    finally:
        subprocess.run(["umount", str(loop)], capture_output=True)
    loop.rmdir()
    other = tmp_path / "other"
    other.mkdir()
    _bind(corpus, other)
    try:
        rc, out, err = cli("train", corpus, "-o", other / "ham" / "0.txt")
        assert rc == 1 and "is a file of the input folder" in out + err
        assert (corpus / "ham" / "0.txt").read_text() == "ham words number 0 here"
    finally:
        subprocess.run(["umount", str(other)], capture_output=True)


def test_a_label_is_read_without_surrounding_blanks_from_every_container(tmp_path):
    """Class folders, TSV/CSV rows, JSON Lines (single- and multi-label), label folders and a
    label file read ``" lead"`` and ``"trail "`` alike, as ``lead`` and ``trail``: a model of
    the folders scored the rows of the same corpus at accuracy 0 (its classes kept the
    blanks, the rows' did not), and a multi-label model's printed labels did not read back."""
    import json

    from textnb.io.multilabel import read_json_multilabel, read_multilabel_corpus

    rows = [(" lead", "money bank profit"), ("trail ", "football match goal")] * 3
    folders = tmp_path / "folders"
    for i, (label, text) in enumerate(rows):
        (folders / label).mkdir(parents=True, exist_ok=True)
        (folders / label / f"{i}.txt").write_text(text)
    (tmp_path / "c.csv").write_text("label,text\n" + "".join(f'"{lab}",{t}\n' for lab, t in rows))
    (tmp_path / "c.jsonl").write_text("".join(json.dumps({"label": lab, "text": t}) + "\n" for lab, t in rows))
    for source in (folders, tmp_path / "c.csv", tmp_path / "c.jsonl"):
        assert sorted(set(open_corpus(source).labels)) == ["lead", "trail"], source
    (tmp_path / "m.jsonl").write_text("".join(json.dumps({"labels": [lab, " x "], "text": t}) + "\n"
                                              for lab, t in rows))
    assert set(read_json_multilabel(tmp_path / "m.jsonl").labels) == {("lead", "x"), ("trail", "x")}
    assert set(read_multilabel_corpus(folders).labels) == {("lead",), ("trail",)}
    (tmp_path / "labels.tsv").write_text("".join(f"{i}.txt\t{lab},x\n" for i, (lab, _) in enumerate(rows)))
    docs = tmp_path / "docs"
    docs.mkdir()
    for i, (_, text) in enumerate(rows):
        (docs / f"{i}.txt").write_text(text)
    assert set(read_multilabel_corpus(docs, label_file=tmp_path / "labels.tsv").labels) == \
        {("lead", "x"), ("trail", "x")}


def test_a_class_folder_named_by_blanks_alone_is_refused(tmp_path):
    for name in ("spam", "  "):
        (tmp_path / name).mkdir()
        (tmp_path / name / "a.txt").write_text("some text here")
    with pytest.raises(InputError, match="class folder whose name is blank"):
        open_corpus(tmp_path)
    code, out, err = cli("train", str(tmp_path), "-o", str(tmp_path / "m.tnb"))
    assert code != 0 and len(err.strip().splitlines()) == 1 and "blank" in err and "Traceback" not in err


def test_a_class_folders_name_is_read_as_utf8_whatever_the_locale(tmp_path):
    """Found by a determinism hunt (session 52): in a locale whose file-system encoding is
    not UTF-8 (Latin-1, or ASCII with ``PYTHONUTF8=0``), a class folder ``kötü`` was the
    class ``kÃ¶tÃ¼`` (or ``k\\udcc3\\udcb6t...``), another class than the TSV of the same rows
    trained, and the model file another. Its name's bytes are read as UTF-8, as a file's text."""
    import subprocess
    import sys

    for label, words in (("kötü", "bad awful terrible"), ("iyi", "good nice lovely")):
        (tmp_path / "c" / label).mkdir(parents=True)
        for i in range(3):
            (tmp_path / "c" / label / f"{i}.txt").write_text(f"{words} {i}\n")
    env = {**os.environ, "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0", "LC_ALL": "C"}
    code = ("import sys, textnb; assert sys.getfilesystemencoding() == 'ascii'; "
            "print(ascii(sorted(set(textnb.open_corpus(sys.argv[1]).labels))))")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "c")], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ascii(["iyi", "kötü"])
    assert sorted(set(open_corpus(tmp_path / "c").labels)) == ["iyi", "kötü"]
