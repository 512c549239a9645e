"""ARFF reading and writing (textnb.io.arff)."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from textnb.io.arff import read_arff, write_arff
from textnb.core.errors import InputError
from textnb.io.tables import Attribute

SHARED = Path(__file__).resolve().parents[3] / "shared"
UCI = SHARED / "datasets" / "uci"
REPO = Path(__file__).resolve().parents[2]


def _write(tmp_path, text, name="t.arff", newline="\n"):
    p = tmp_path / name
    p.write_bytes(text.replace("\n", newline).encode("utf-8"))
    return p


def test_read_weather_nominal():
    d = read_arff(REPO / "corpora" / "weather.nominal.arff")
    assert d.relation == "weather.symbolic"
    assert [a.name for a in d.attributes] == ["outlook", "temperature", "humidity", "windy", "play"]
    assert d.attributes[0].values == ["sunny", "overcast", "rainy"]
    assert d.X.shape == (14, 5)
    assert d.X[0].tolist() == [0, 0, 0, 1, 1]  # sunny,hot,high,FALSE,no


def test_quotes_comments_crlf_tabs_ranges(tmp_path):
    text = (
        "% a comment\n"
        "@RELATION 'my rel'\n"
        "@attribute\t'a b'\t{'x y', \"it's\", 'q\\'s', plain}  % trailing comment\n"
        "@attribute n integer [1,10]\n"
        "@attribute r REAL\n"
        "@attribute c {yes,no}\n"
        "\n@data\n"
        "% data comment\n"
        "'x y',1,2.5,yes\n"
        "\"it's\",?,-3e2,no\n"
        "'q\\'s', 3 , ? ,yes % tail\n"
        "plain,4,0,?\n"
    )
    for nl in ("\n", "\r\n"):
        d = read_arff(_write(tmp_path, text, newline=nl))
        assert d.relation == "my rel"
        assert d.attributes[0].name == "a b"
        assert d.attributes[0].values == ["x y", "it's", "q's", "plain"]
        assert [a.kind for a in d.attributes] == ["nominal", "numeric", "numeric", "nominal"]
        np.testing.assert_array_equal(
            d.X,
            [[0, 1, 2.5, 0], [1, np.nan, -300, 1], [2, 3, np.nan, 0], [3, 4, 0, np.nan]],
        )


def test_sparse_rows_and_weights(tmp_path):
    text = (
        "@relation s\n@attribute a numeric\n@attribute b numeric\n@attribute c {p,q}\n@data\n"
        "{0 1.5, 2 q}\n{1 2}\n{}\n1,2,q,{3}\n{0 1, 2 q}, {0.5}\n"
    )
    d = read_arff(_write(tmp_path, text))
    np.testing.assert_array_equal(d.X, [[1.5, 0, 1], [0, 2, 0], [0, 0, 0], [1, 2, 1], [1, 0, 1]])
    np.testing.assert_array_equal(d.weights, [1, 1, 1, 3, 0.5])



def test_a_rows_trailing_comment_is_no_weight_and_no_sparse_end(tmp_path):
    """A ``%`` comment after a data row is dropped before its weight and its sparse ``}``
    are looked for, as Weka reads it: a comment ending in ``{5}`` was read as the row's
    weight, one ending in ``{ticket}`` refused as a weight that is not a number, and a
    weighted or sparse row followed by a comment refused."""
    head = "@relation r\n@attribute a numeric\n@attribute c {p,n}\n@data\n"
    d = read_arff(_write(tmp_path, head + "1,p\n2,n\n3,p % old weight {5}\n4,n % see {ticket}\n"))
    np.testing.assert_array_equal(d.weights, [1, 1, 1, 1])
    np.testing.assert_array_equal(d.X, [[1, 0], [2, 1], [3, 0], [4, 1]])
    d = read_arff(_write(tmp_path, head + "1,p, {2} % weighted\n{0 2, 1 n} % sparse\n{0 3} , {0.5}% both\n"))
    np.testing.assert_array_equal(d.weights, [2, 1, 0.5])
    np.testing.assert_array_equal(d.X, [[1, 0], [2, 1], [3, 0]])
    d = read_arff(_write(tmp_path, "@relation r\n@attribute s string\n@attribute c {p,n}\n@data\n'50% off {3}',p\n"))
    np.testing.assert_array_equal(d.weights, [1])  # (a % inside quotes is text)

@pytest.mark.parametrize(
    "text, line, fragment",
    [
        ("@relation r\n@attribute a numeric\n@data\n1\nx\n", 5, "not a number"),
        ("@relation r\n@attribute a {u,v}\n@data\nu\nw\n", 5, "not declared"),
        ("@relation r\n@attribute a {u,v}\n@attribute b numeric\n@data\nu,1\nu\n", 6, "1 values, expected 2"),
        ("@relation r\n@attribute a string x\n@data\n", 2, "cannot read type"),
        ("@relation r\n@attribute a date 'yyyy'\n@data\n", 2, "date"),
        ("@relation r\n@attribute a blob\n@data\n", 2, "unknown type"),
        ("@relation r\n@attribute a {u,v\n@data\n", 2, "missing '}'"),
        ("@relation r\n@attribute a {u,u}\n@data\n", 2, "repeats"),
        ("@relation r\n@attribute a {u,v}\n@data\n'u\n", 4, "unterminated quote"),
        ("@relation r\nhello\n", 2, "expected @relation"),
        ("@relation r\n@attribute a numeric\n@data\n{5 1}\n", 4, "out of range"),
        # a declaration after @data: was "value '@attribute b numeric' ... is not a number"
        ("@relation r\n@attribute a numeric\n@data\n1\n@attribute b numeric\n", 5, "@attribute after @data"),
        ("@relation r\n@attribute a {u,v}\n@data\nu\n@DATA\n", 5, "@DATA after @data"),
    ],
)
def test_syntax_errors_name_file_and_line(tmp_path, text, line, fragment):
    p = _write(tmp_path, text)
    with pytest.raises(InputError) as info:
        read_arff(p)
    msg = str(info.value)
    assert msg.startswith(f"{p}:{line}:"), msg
    assert fragment in msg
    assert "\n" not in msg


@pytest.mark.parametrize("text", ["", "% only a comment\n", "@relation r\n@attribute a numeric\n"])
def test_empty_or_headless_files(tmp_path, text):
    with pytest.raises(InputError, match="no @attribute|no @data"):
        read_arff(_write(tmp_path, text))


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="cannot read"):
        read_arff(tmp_path / "nope.arff")


def test_write_read_round_trip(tmp_path):
    atts = [
        Attribute("odd name, 'q'", "nominal", ["a b", "it's", "x%y", "{z}", "?"]),
        Attribute("num", "numeric", []),
    ]
    X = np.array([[0, 1.5], [1, np.nan], [2, -1e-7], [np.nan, 3.0], [3, 0.1 + 0.2], [4, 1e20]])
    p = tmp_path / "rt.arff"
    write_arff(p, atts, X)
    d = read_arff(p)
    assert d.attributes == atts
    np.testing.assert_array_equal(d.X, X)


@pytest.mark.slow
@pytest.mark.skipif(not UCI.is_dir(), reason="../shared/datasets/uci not available")
def test_every_uci_file_reads():
    files = sorted(UCI.glob("*.arff"))
    assert files
    for f in files:
        d = read_arff(f)
        assert d.X.shape[0] > 0 and d.X.shape[1] == len(d.attributes), f.name
    # cell counts of missing values as SOURCES.md reports them (Weka's own reader)
    assert int(np.isnan(read_arff(UCI / "colic.arff").X).sum()) == 1927
    assert int(np.isnan(read_arff(UCI / "breast-w.arff").X).sum()) == 16


def test_rows_separated_by_whitespace_read_as_weka_reads_them(tmp_path):
    """Weka 3.6's ArffLoader reads values separated by any run of whitespace and commas
    (``1<TAB>x<TAB>p``, ``1 x p``, ``1,,x , p``, a trailing comma; sparse ``{0 1<TAB>2 p}``):
    textnb read only commas ('1 values, expected 3'). The rows below are what
    ``java weka.core.converters.ArffLoader`` prints for them. A row that reads with commas
    still reads so (an unquoted value with spaces is one value, which Weka refuses), and a row
    neither way reads is refused as before (``1 x p q``, whose ``q`` Weka 3.6 drops)."""
    head = "@relation r\n@attribute a numeric\n@attribute c {x,y}\n@attribute class {p,n}\n@data\n"
    rows = ["1\tx\tp", "2  y   n", "1.5,,x,p", "2 ,y\tn", "3,x,p,", ",4 y n", "5\t'y'\tn % a comment",
            "{0 6\t1 y\t2 n}", "{0 7 2 n}", "{0 8, 1 y 2 n}"]
    d = read_arff(_write(tmp_path, head + "\n".join(rows) + "\n"))
    assert d.X.tolist() == [[1, 0, 0], [2, 1, 1], [1.5, 0, 0], [2, 1, 1], [3, 0, 0], [4, 1, 1], [5, 1, 1],
                            [6, 1, 1], [7, 0, 1], [8, 1, 1]]
    for bad, message in (("1,x", "6: 2 values, expected 3"), ("1 x", "6: 1 values, expected 3"),
                         ("1 x p q", "6: 1 values, expected 3"), ("{1_0 x}", "sparse index '1_0' is not an integer")):
        with pytest.raises(InputError, match=message):
            read_arff(_write(tmp_path, head + bad + "\n"))
    text = ("@relation r\n@attribute t string\n@attribute class {p,n}\n@data\n"
            "sunny day,n\n'a b'\tp\n{0 hello 1 n}\n{0 sunny day, 1 n}\n")
    d = read_arff(_write(tmp_path, text))
    assert d.X.tolist() == [["sunny day", 1.0], ["a b", 0.0], ["hello", 1.0], ["sunny day", 1.0]]


def test_an_instance_weight_after_whitespace_is_read_as_after_a_comma(tmp_path):
    """``x<TAB>p<TAB>{2}`` and ``{0 y, 1 p} {3}`` (whitespace before the weight, as Weka 3.7's
    tokenizer separates it) give the rows and weights of ``x,p,{2}`` and ``{0 y, 1 p}, {3}``
    (the weight was only seen after a comma: '1 values, expected 2')."""
    head = "@relation t\n@attribute a {x,y}\n@attribute class {p,n}\n@data\n"
    commas, spaces = tmp_path / "c.arff", tmp_path / "w.arff"
    commas.write_text(head + "x,p,{2}\ny,n\nx,n , {0.5}\n{0 y, 1 p}, {3}\n{0 y}\n")
    spaces.write_text(head + "x\tp\t{2}\ny n\nx n {0.5}\n{0 y, 1 p} {3}\n{0 y}\n")
    a, b = read_arff(commas), read_arff(spaces)
    assert list(a.weights) == list(b.weights) == [2.0, 1.0, 0.5, 3.0, 1.0]
    assert np.array_equal(a.X, b.X)


def test_a_sparse_row_giving_an_index_twice_is_refused_on_the_cli(tmp_path):
    """``{0 1, 0 9, 2 q}`` gives attribute 0 two values: the last silently won (the model's mean
    of ``a`` learned from 9, the 1 lost). Refused in one line naming the file and line, as Weka
    refuses it, in both readings of a sparse row (commas, or Weka's whitespace); rows in any
    order of distinct indices are still read."""
    head = "@relation t\n@attribute a numeric\n@attribute b {x,y}\n@attribute c {p,q}\n@data\n1,x,p\n5,y,q\n"
    for row in ("{0 1, 0 9, 2 q}", "{0 1 0 9 2 q}", "{2 q, 1 y, 2 p}"):
        path = _write(tmp_path, head + row + "\n")
        with pytest.raises(InputError, match=r":8: sparse index (0|2) given twice"):
            read_arff(path)
        done = subprocess.run([sys.executable, "-m", "textnb", "train", str(path), "-o", str(tmp_path / "m.tnb")],
                              capture_output=True, text=True)
        assert done.returncode != 0 and not (tmp_path / "m.tnb").exists()
        assert done.stderr.count("\n") == 1 and "sparse index" in done.stderr and str(path) in done.stderr
    d = read_arff(_write(tmp_path, head + "{2 q, 0 9}\n"))
    assert d.X.tolist()[-1] == [9.0, 0.0, 1.0]
