"""ARFF reading and writing (textnb.io.arff)."""

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
