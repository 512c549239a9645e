"""read_table, CSV reading, query encoding and DataFrames (textnb.io.tables, textnb.io.csvtable)."""

from pathlib import Path

import numpy as np
import pytest

from textnb.core.errors import DataWarning, InputError
from textnb.io.tables import Attribute, Table, encode_like, read_table, table_from_frame

REPO = Path(__file__).resolve().parents[2]
UCI = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "uci"
WEATHER = REPO / "corpora" / "weather.nominal.arff"


def _file(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_default_class_is_last():
    t = read_table(WEATHER)
    assert isinstance(t, Table)
    assert t.class_attribute.name == "play"
    assert t.attribute_names == ["outlook", "temperature", "humidity", "windy"]
    assert t.X.shape == (14, 4) and t.y.tolist().count("yes") == 9
    assert t.nominal_mask.tolist() == [True] * 4
    assert t.n_values.tolist() == [3, 3, 2, 2]


def test_class_name_and_drop():
    t = read_table(WEATHER, class_name="outlook", drop=["windy"])
    assert t.class_attribute.name == "outlook"
    assert t.attribute_names == ["temperature", "humidity", "play"]


def test_unknown_class_lists_names():
    with pytest.raises(InputError, match=r"no attribute named 'wind'; attributes: outlook, temperature"):
        read_table(WEATHER, class_name="wind")
    with pytest.raises(InputError, match=r"no attribute named 'nope' to leave out \(drop= / --ignore\); attributes: outlook"):
        read_table(WEATHER, drop="nope")


def test_numeric_class_rejected():
    with pytest.raises(InputError, match="is numeric"):
        read_table(REPO / "corpora" / "weather.numeric.arff", class_name="temperature")


def test_one_class_value(tmp_path):
    p = _file(tmp_path, "one.arff", "@relation r\n@attribute a numeric\n@attribute c {y,n}\n@data\n1,y\n2,y\n")
    with pytest.raises(InputError, match=r"only one value \('y'\)"):
        read_table(p)
    q = _file(tmp_path, "one.csv", "a,c\n1,y\n2,y\n")
    with pytest.raises(InputError, match="only one value"):
        read_table(q)


@pytest.mark.parametrize("name, text", [("e.csv", ""), ("e.csv", "a,c\n"), ("e.arff", ""),
                                        ("e.arff", "@relation r\n@attribute a numeric\n@attribute c {y,n}\n@data\n")])
def test_empty_files(tmp_path, name, text):
    p = _file(tmp_path, name, text)
    with pytest.raises(InputError) as info:
        read_table(p)
    assert str(p) in str(info.value) and "\n" not in str(info.value)


def test_rows_with_missing_class_are_dropped(tmp_path):
    p = _file(tmp_path, "m.arff", "@relation r\n@attribute a numeric\n@attribute c {y,n}\n@data\n1,y\n2,?\n3,n\n")
    t = read_table(p)
    assert t.y.tolist() == ["y", "n"] and t.X[:, 0].tolist() == [1, 3]


def test_csv_type_inference_and_missing(tmp_path):
    p = _file(tmp_path, "d.csv", "age,colour,score,label\n30,red,1.5,a\n,blue,?,b\n41,?,2,a\n")
    t = read_table(p)
    assert [a.kind for a in t.attributes] == ["numeric", "nominal", "numeric"]
    assert t.attributes[1].values == ["blue", "red"]  # (sorted: a CSV declares no order)
    np.testing.assert_array_equal(t.X, [[30, 1, 1.5], [np.nan, 0, np.nan], [41, np.nan, 2]])
    assert t.y.tolist() == ["a", "b", "a"]


def test_csv_numeric_looking_class_is_nominal(tmp_path):
    t = read_table(_file(tmp_path, "d.csv", "x,y\n1,0\n2,1\n"))
    assert t.class_attribute.kind == "nominal" and t.y.tolist() == ["0", "1"]


def test_tsv_and_types_override(tmp_path):
    p = _file(tmp_path, "d.tsv", "code\tv\tc\n1\t2.5\ty\n2\t3\tn\n")
    t = read_table(p, types={"code": "nominal"})
    assert t.attributes[0].kind == "nominal" and t.attributes[0].values == ["1", "2"]
    assert t.attributes[1].kind == "numeric"


def test_non_number_in_forced_numeric_column(tmp_path):
    p = _file(tmp_path, "d.csv", "a,b,c\n1,2,y\n3,oops,n\n")
    with pytest.raises(InputError) as info:
        read_table(p, types={"b": "numeric"})
    assert str(info.value) == f"{p}:3: value 'oops' in numeric column 'b' is not a number"


def test_unknown_extension(tmp_path):
    with pytest.raises(InputError, match="unknown table format '.xls'"):
        read_table(_file(tmp_path, "d.xls", "x"))


def test_a_table_named_without_an_extension_is_read_by_its_content(tmp_path):
    """``/dev/stdin``, a pipe, ``data``: ARFF when its first declaration is ``@relation``
    (after comments), else CSV / TSV, the delimiter sniffed (it was ``unknown table
    format``); content already read (a pipe's) is given as ``data``."""
    arff = "% a comment\n\n@RELATION r\n@attribute a {x,y}\n@attribute c {p,q}\n@data\nx,p\ny,q\n"
    t = read_table(_file(tmp_path, "weather", arff))
    assert t.class_attribute.name == "c" and t.classes == ("p", "q")
    t = read_table(_file(tmp_path, "sizes", "size\tclass\n1\tyes\n2\tno\n1.5\tyes\n"))
    assert [a.name for a in t.attributes] == ["size"] and list(t.y) == ["yes", "no", "yes"]
    t = read_table("/dev/stdin", data=b"colour,class\nred,yes\nblue,no\n")
    assert t.source == "/dev/stdin" and list(t.y) == ["yes", "no"]


def test_query_like_model_attributes(tmp_path):
    train = read_table(WEATHER)
    q = read_table(REPO / "corpora" / "weather.query.arff", like=train.attributes)
    assert q.y is None
    assert q.X.tolist() == [[0, 2, 0, 0]]
    # a CSV query with reordered columns, an unseen value and some labels
    p = _file(tmp_path, "q.csv", "windy,humidity,outlook,temperature,play\nTRUE,high,foggy,cool,?\nFALSE,normal,rainy,hot,yes\n")
    q = read_table(p, like=train.attributes)
    np.testing.assert_array_equal(q.X, [[np.nan, 2, 0, 0], [2, 0, 1, 1]])
    assert q.y.tolist() == [None, "yes"]


def test_query_without_class_column_and_missing_attribute(tmp_path):
    train = read_table(WEATHER)
    q = read_table(_file(tmp_path, "q.csv", "outlook,temperature,humidity,windy\nsunny,cool,high,TRUE\n"),
                   like=train.attributes)
    assert q.y is None and q.X.tolist() == [[0, 2, 0, 0]]
    with pytest.raises(InputError, match=r"lacks the model's attribute\(s\) \['windy'\]"):
        read_table(_file(tmp_path, "q2.csv", "outlook,temperature,humidity\nsunny,cool,high\n"),
                   like=train.attributes)


def test_query_numeric_mismatch(tmp_path):
    atts = [Attribute("t", "numeric", []), Attribute("k", "nominal", ["0", "1"])]
    p = _file(tmp_path, "q.arff", "@relation q\n@attribute t {hot}\n@attribute k numeric\n@data\nhot,1\n")
    with pytest.raises(InputError, match="not a number"):
        read_table(p, like=atts)
    p = _file(tmp_path, "q2.arff", "@relation q\n@attribute t numeric\n@attribute k numeric\n@data\n5,1\n3,7\n")
    np.testing.assert_array_equal(read_table(p, like=atts).X, [[5, 1], [3, np.nan]])


def test_encode_like_rows_and_dicts():
    atts = [Attribute("o", "nominal", ["sunny", "rainy"]), Attribute("t", "numeric", []),
            Attribute("b", "nominal", ["0", "1"])]
    with pytest.warns(DataWarning, match=r"'o': 1 cell with values the model never saw \('fog'\)"):
        X = encode_like([["rainy", "66", 1], ["fog", "?", None], {"o": "sunny", "t": 3.5}], atts)
    np.testing.assert_array_equal(X, [[1, 66, 1], [np.nan, np.nan, np.nan], [0, 3.5, np.nan]])
    with pytest.raises(InputError, match="row 1: value 'hot'"):
        encode_like([["sunny", "hot", "0"]], atts)
    with pytest.raises(InputError, match="row 1 has 2 values"):
        encode_like([["sunny", "1"]], atts)



def test_a_query_files_cells_are_read_by_the_rule_of_rows_and_frames(tmp_path):
    """A query file's nominal values meet the model's by the rule DataFrames and rows are read
    by (textnb.io.cells): ``true`` is the model's ``TRUE`` (pandas reads both as True), ``1.0`` its
    ``1``; the text ``1`` is no bool (missing, said); rows of the same cells read alike."""
    import warnings

    atts = [Attribute("windy", "nominal", ["TRUE", "FALSE"]), Attribute("n", "nominal", ["1", "2"]),
            Attribute("k", "nominal", ["1", "2"])]
    q = _file(tmp_path, "q.csv", "windy,n,k\ntrue,1.0,1\nFALSE,2,2\n1,3,x\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        X = read_table(q, like=atts).X
    np.testing.assert_array_equal(X, [[0, 0, 0], [1, 1, 1], [np.nan, np.nan, np.nan]])
    said = sorted(str(w.message) for w in caught)
    with pytest.warns(Warning) as rows_said:
        rows = encode_like([["true", 1.0, "1"], ["FALSE", 2, 2], ["1", 3, "x"]], atts)
    np.testing.assert_array_equal(rows, X)
    assert sorted(str(w.message).replace("<rows>", str(q)) for w in rows_said) == said == [f"{q}: attribute 'k': 1 cell with values the model never saw ('x') count as missing",
                    f"{q}: attribute 'n': 1 cell with values the model never saw ('3') count as missing",
                    f"{q}: attribute 'windy': 1 cell with values the model never saw ('1') count as missing"]

def test_table_from_frame():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({
        "num": [1.0, np.nan, 3.0, 4.0],
        "cat": pd.Categorical(["b", "a", None, "b"], categories=["a", "b"]),
        "obj": ["x", None, "y", "x"],
        "label": ["p", "q", "p", "q"],
    })
    t = table_from_frame(df)
    assert [a.kind for a in t.attributes] == ["numeric", "nominal", "nominal"]
    np.testing.assert_array_equal(t.X, [[1, 1, 0], [np.nan, 0, np.nan], [3, np.nan, 1], [4, 1, 0]])
    assert t.y.tolist() == ["p", "q", "p", "q"]
    with pytest.raises(InputError, match="no column named"):
        table_from_frame(df, class_name="zzz")


@pytest.mark.skipif(not UCI.is_dir(), reason="../shared/datasets/uci not available")
def test_class_first_sets_per_sources():
    t = read_table(UCI / "promoters.arff", class_name="class", drop="instance")
    assert t.X.shape == (106, 57) and set(t.y) == {"+", "-"}
    t = read_table(UCI / "wine.arff", class_name="class")
    assert t.X.shape == (178, 13)


# Python's float() reads these; Weka ("number expected, read Token[1_000]") and pandas do not.
NOT_NUMBERS = ["1_000", "\u0661\u0662", "\uff11\uff12"]  # digit groups, Arabic-Indic 12, fullwidth 12


@pytest.mark.parametrize("cell", NOT_NUMBERS)
def test_a_cell_python_reads_as_a_number_but_weka_and_pandas_do_not_is_no_number_on_any_table_path(tmp_path, cell):
    """One number parser (textnb.io.numbers) under CSV inference, ARFF numeric cells, forced-numeric
    and query columns, uncertain cells, nominal values matched to numbers and the headerless-file
    guess: ``1_000`` is not 1000 and ``١٢`` not 12 (a CSV column holding one is nominal)."""
    from textnb.io.numbers import is_number, parse_number

    assert not is_number(cell)
    with pytest.raises(ValueError):
        parse_number(cell)
    for ok in ("1", "-1.5e3", ".5", "5.", "+2", "1E5", " 3 ", "inf", "-Infinity", "nan"):
        assert is_number(ok) and parse_number(ok) == float(ok) or ok == "nan"
    # CSV: inferred nominal, as any other non-number makes a column
    t = read_table(_file(tmp_path, "u.csv", f"a,class\n1,y\n2,n\n{cell},n\n3,y\n"))
    assert t.attributes[0].kind == "nominal" and t.attributes[0].values == sorted(["1", "2", cell, "3"])
    with pytest.raises(InputError, match=f"u.csv:4: value '{cell}' in numeric column 'a' is not a number"):
        read_table(tmp_path / "u.csv", types={"a": "numeric"})
    # ARFF numeric attribute: the error a word gets
    arff = _file(tmp_path, "u.arff", f"@relation r\n@attribute a numeric\n@attribute class {{y,n}}\n@data\n"
                                     f"1,y\n2,n\n{cell},n\n")
    with pytest.raises(InputError, match=f"u.arff:7: value '{cell}' of numeric attribute 'a' is not a number"):
        read_table(arff)
    # uncertain cells: an interval bound, a certain value beside intervals, a probability
    with pytest.raises(InputError, match=f"interval bound '{cell}' is not a number"):
        read_table(_file(tmp_path, "i.csv", f'a,class\n"[1,{cell}]",y\n"[1,2]",n\n'))
    with pytest.raises(InputError, match=f"value '{cell}' is not a number"):
        read_table(_file(tmp_path, "c.csv", f'a,class\n{cell},y\n"[1,2]",n\n'))
    with pytest.raises(InputError, match=f"probability of 'x' '0.{cell}' is not a number|'0.{cell}'"):
        read_table(_file(tmp_path, "d.csv", f'a,class\n"{{x:0.{cell},y:0.5}}",y\n"{{x:1}}",n\n'))
    # a query against a numeric attribute: a raw row, and a file whose column is nominal
    model = read_table(_file(tmp_path, "m.csv", "a,class\n1,y\n2,n\n1000,n\n12,y\n"))
    with pytest.raises(InputError, match=f"value '{cell}' of numeric attribute 'a' is not a number"):
        encode_like([[cell]], model.attributes)
    q = _file(tmp_path, "q.arff", f"@relation r\n@attribute a {{1,{cell}}}\n@attribute class {{y,n}}\n@data\n1,y\n")
    with pytest.raises(InputError, match=f"value '{cell}' of attribute 'a' is not a number"):
        read_table(q, like=model.attributes)
    # a model's nominal value matched to a number of a numeric query column: none is 1000 / 12
    nominal = read_table(tmp_path / "u.csv")
    num = _file(tmp_path, "n.arff", "@relation r\n@attribute a numeric\n@attribute class {y,n}\n@data\n"
                                    "1000,y\n12,n\n1,y\n")
    with pytest.warns(Warning, match="2 of 3 match none"):
        assert np.isnan(read_table(num, like=nominal.attributes).X[:2, 0]).all()
    # a two-column CSV: numbers under a word make it a table's header; under '1_000' there is no number
    from textnb.core.errors import NotATextCorpus
    from textnb.io.corpus import open_corpus

    with pytest.raises(NotATextCorpus, match="is a header"):
        open_corpus(_file(tmp_path, "h.csv", "x,play\n1,yes\n2,no\n"))
    assert open_corpus(_file(tmp_path, "g.csv", f"x,play\n1,yes\n{cell},no\n")).labels == ["x", "1", cell]


def test_tables_and_mixed_tables_decode_each_line_as_a_text_corpus_does(tmp_path):
    """A Windows-1252 CSV read as a text corpus was read, but refused as a mixed table ('not
    utf-8 text (invalid continuation byte at byte 21)'), and so were Windows-1252 tables and
    ARFF files: every file of rows now decodes each line UTF-8, else Windows-1252, else
    Latin-1 (io.corpus.decode_lines), so a UTF-8 line beside a Windows-1252 one is kept as it is."""
    from textnb.io.corpus import open_corpus
    from textnb.io.csvtable import read_header

    rows = ["label,text,n", "spam,café win prize,1", "ham,naïve lunch,2", "spam,win win,1", "ham,lunch noon,3"]
    cp = _file(tmp_path, "l1.csv", "")
    cp.write_bytes("\n".join(rows).encode("cp1252") + b"\n")
    with pytest.warns(Warning, match="'n' not read"):
        corpus = open_corpus(cp)
    mixed = read_table(cp, class_name="label", types={"text": "text"})
    assert list(mixed.X[:, 0]) == list(corpus.documents) == ["café win prize", "naïve lunch", "win win", "lunch noon"]
    assert read_header(cp) == ["label", "text", "n"]
    # a UTF-8 file with one Windows-1252 line: the UTF-8 lines stay UTF-8 (not 'cafÃ©')
    mix = _file(tmp_path, "mix.csv", "")
    mix.write_bytes("a,class\ncafé,y\n".encode() + "crème,n\n".encode("cp1252") + "café,n\n".encode())
    assert read_table(mix).attributes[0].values == ["café", "crème"]
    arff = _file(tmp_path, "w.arff", "")
    arff.write_bytes("@relation r\n@attribute a {sünny,räiny}\n@attribute class {y,n}\n@data\n".encode("cp1252")
                     + "sünny,y\n".encode() + "räiny,n\n".encode("cp1252"))
    t = read_table(arff)
    assert t.attributes[0].values == ["sünny", "räiny"] and t.X[:, 0].tolist() == [0.0, 1.0]
    # an explicit encoding is still the file's only one
    from textnb.io.arff import read_arff
    from textnb.io.csvtable import read_csv

    with pytest.raises(InputError, match="not utf-8 text"):
        read_arff(arff, encoding="utf-8")
    with pytest.raises(InputError, match="not utf-8 text"):
        read_csv(cp, encoding="utf-8")


def test_date_and_relational_attributes_can_be_left_out(tmp_path):
    # `--ignore t` (Weka's Remove) on an ARFF file with a date or relational attribute:
    # the file was refused ("attribute 't' is of type date ...; remove it") however it was
    # left out
    text = """% dates and bags
@relation r
@attribute t date "yyyy-MM-dd HH:mm:ss"
@attribute bag relational
  @attribute f numeric
  @attribute inner relational
    @attribute g {u,v}
  @end inner
@end bag
@attribute a {p,q}
@attribute c {x,y}
@data
"2020-01-01 10:00:00","1,'u'\\n2,'v'",p,x
"2020-02-01 10:00:00","3,'v'",q,y
?,?,p,x
{0 "2020-03-01 00:00:00", 2 q, 3 y}
"""
    p = _file(tmp_path, "r.arff", text)
    with pytest.raises(InputError, match=r"attribute 't' is of type date.*--ignore t"):
        read_table(p)
    with pytest.raises(InputError, match=r"attribute 'bag' is of type relational.*--ignore bag"):
        read_table(p, drop="t")
    t = read_table(p, drop=["t", "bag"])
    assert t.attribute_names == ["a"]
    assert t.X.tolist() == [[0.0], [1.0], [0.0], [1.0]]
    assert t.y.tolist() == ["x", "y", "x", "y"]
    # a query file's date / relational columns that the model lacks are left out too
    q = read_table(p, like=t.attributes, classes=["x", "y"])
    assert q.X.tolist() == t.X.tolist() and q.y.tolist() == t.y.tolist()
    assert read_table(p, like=t.attributes, drop=["t"], class_name="c").y.tolist() == t.y.tolist()
    with pytest.raises(InputError, match="no '@end bag'"):
        read_table(_file(tmp_path, "e.arff", text.replace("@end bag\n", "")), drop=["t", "bag"])


def test_query_cannot_leave_out_a_model_attribute(tmp_path):
    # `predict --ignore windy` of a model that predicts from windy said the file
    # "lacks the model's attribute(s) ['windy']", which it has
    train = read_table(WEATHER)
    p = _file(tmp_path, "q.csv", "outlook,temperature,humidity,windy,id\nsunny,cool,high,TRUE,7\n")
    with pytest.raises(InputError, match=r"cannot leave out \(drop= / --ignore\) the model's attribute\(s\) "
                                         r"\['windy'\]: it predicts from them"):
        read_table(p, like=train.attributes, drop=["id", "windy"])
    assert read_table(p, like=train.attributes, drop="id").X.tolist() == [[0, 2, 0, 0]]


def test_a_column_of_numbers_but_for_a_few_NA_cells_is_said_to_be_read_as_nominal(tmp_path):
    """``NA`` (as pandas or R write a missing value) in a column of numbers makes it nominal,
    its numbers unordered values (the format's missing values are ``?`` and empty cells, as
    Weka's): kept, but said in one warning naming the file, the first such line and the
    texts (before: silently, a Gaussian attribute became 35 nominal values). Columns of
    words or codes, forced types and ``?`` cells say nothing."""
    import warnings

    rows = [f"{4 + i / 10},{'ab'[i % 2]},{i % 3},{'yn'[i % 2]}" for i in range(30)]
    rows[3] = "NA,b,0,y"
    path = tmp_path / "na.csv"
    path.write_text("x,w,k,class\n" + "\n".join(rows) + "\n")
    with pytest.warns(DataWarning) as caught:
        table = read_table(path)
    assert len(caught) == 1
    message = str(caught[0].message)
    assert message.startswith(f"{path}:5: column 'x' is read as nominal")
    assert "1 of its 30 known cells is not a number ('NA')" in message and "write ?" in message
    assert table.attributes[0].kind == "nominal"  # (the reading itself unchanged)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert read_table(path, types={"x": "nominal"}).attributes[0].kind == "nominal"
        path.write_text("x,w,k,class\n" + "\n".join(rows).replace("NA,", "?,") + "\n")
        assert read_table(path).attributes[0].kind == "numeric"
        codes = tmp_path / "codes.csv"  # codes of a letter and a digit, words with one number: nominal columns
        codes.write_text("x,w,class\na1,low,a\nb2,high,b\na1,7,a\nc3,low,b\n")
        assert [a.kind for a in read_table(codes).attributes] == ["nominal", "nominal"]


def test_the_NA_warning_has_no_size_or_share_limit(tmp_path):
    """The warning is said whenever most known cells are numbers (more than half, two at
    least), as README says it: a table of 12 rows with 2 ``NA`` cells (a sixth) said nothing
    (before: at least ten numbers and at most a tenth of the known cells), nor did 3 numbers
    beside one ``NA``."""
    cells = ["1", "2", "NA", "4", "5", "6", "7", "8", "9", "10", "11", "NA"]
    path = _file(tmp_path, "na.csv", "n,class\n" + "".join(f"{c},{'xy'[i % 2]}\n" for i, c in enumerate(cells)))
    with pytest.warns(DataWarning) as caught:
        assert read_table(path).attributes[0].kind == "nominal"
    assert [str(w.message) for w in caught] == [
        f"{path}:4: column 'n' is read as nominal, its numbers as unordered values, because 2 of its 12 known "
        "cells are not numbers ('NA'); if they mean missing, write ? or leave them empty"]
    few = _file(tmp_path, "few.csv", "x,class\n1,a\n2,b\n3,a\nNA,b\n")
    with pytest.warns(DataWarning, match=r"1 of its 4 known cells is not a number \('NA'\)"):
        read_table(few)


@pytest.mark.parametrize("name", ["w.csv", "w.txt"])
@pytest.mark.parametrize("delimiter", [";", "|", "\t"])
def test_a_table_of_semicolons_or_bars_is_the_comma_table(tmp_path, name, delimiter):
    """The table reader's delimiter is the corpus reader's (the first that cuts the first line:
    a TAB, else a comma, a semicolon, a bar): a ``.csv`` table of semicolons was read with
    commas, one column (``only the class attribute 'outlook;temperature;...'``)."""
    rows = ["outlook,temperature,windy,play", "sunny,85,FALSE,no", "overcast,83,FALSE,yes", "rainy,70,TRUE,yes",
            "rainy,65,TRUE,no"]
    comma = read_table(_file(tmp_path, "comma.csv", "\n".join(rows) + "\n"))
    other = read_table(_file(tmp_path, name, "\n".join(r.replace(",", delimiter) for r in rows) + "\n"))
    assert [a.name for a in other.attributes] == [a.name for a in comma.attributes]
    np.testing.assert_array_equal(other.X, comma.X)
    assert list(other.y) == list(comma.y)



def test_numbers_with_a_decimal_comma_in_a_semicolon_table_are_numeric(tmp_path):
    """A file of semicolons is what spreadsheets write where the decimal mark is a comma: a
    column of ``1,5`` cells (integers and missing cells among them) is numeric, the comma read
    as the point, in a training file and in a query file read against its model alike (before:
    nominal, each number a value of its own; a query file's cells refused as not numbers). A
    column that mixes ``1.5`` and ``1,5``, and a quoted ``"1,5"`` in a file of commas, stay
    as they were: nominal."""
    rows = [("1,5", "a"), ("1,7", "a"), ("-1,2e1", "a"), ("?", "b"), ("3", "b"), ("2,9", "b")]
    semi = read_table(_file(tmp_path, "semi.csv", "weight;class\n" + "".join(f"{w};{c}\n" for w, c in rows)))
    dots = read_table(_file(tmp_path, "dots.csv", "weight,class\n" + "".join(
        f"{w.replace(',', '.')},{c}\n" for w, c in rows)))
    assert semi.attributes[0].kind == "numeric" == dots.attributes[0].kind
    np.testing.assert_array_equal(semi.X, dots.X)
    assert semi.X[:3, 0].tolist() == [1.5, 1.7, -12.0]
    query = read_table(_file(tmp_path, "q.csv", "weight;class\n2,25;?\n4;?\n"), like=semi.attributes)
    assert query.X[:, 0].tolist() == [2.25, 4.0]
    mixed = read_table(_file(tmp_path, "mixed.csv", "weight;class\n1,5;a\n1.7;a\n2,5;b\n3,1;b\n"))
    assert mixed.attributes[0].kind == "nominal"
    quoted = read_table(_file(tmp_path, "quoted.csv", 'weight,class\n"1,5",a\n"1,7",a\n"2,5",b\n"3,1",b\n'))
    assert quoted.attributes[0].kind == "nominal" and quoted.attributes[0].values == ["1,5", "1,7", "2,5", "3,1"]


def test_a_decimal_comma_column_with_a_few_na_cells_is_said_nominal(tmp_path):
    """Found by a user trial: in a file of semicolons a column of decimal-comma numbers with
    one ``NA`` cell was nominal without a word, where the same column with decimal points is
    said to be nominal in the warning of a column of numbers but for a few cells."""
    path = tmp_path / "semi.csv"
    path.write_text("a;b;c\n1,5;x;yes\n-0,25e3;y;no\n2;x;yes\n3,75;y;no\nNA;x;yes\n")
    with pytest.warns(DataWarning, match=r"column 'a' is read as nominal.*1 of its 5 known cells is not a number \('NA'\)"):
        table = read_table(path)
    assert table.attributes[0].kind == "nominal"
