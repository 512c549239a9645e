"""read_table, CSV reading, query encoding and DataFrames (textnb.io.tables, textnb.io.csvtable)."""

from pathlib import Path

import numpy as np
import pytest

from textnb.core.errors import InputError
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
    with pytest.raises(InputError, match="cannot drop unknown"):
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
    assert t.attributes[1].values == ["red", "blue"]
    np.testing.assert_array_equal(t.X, [[30, 0, 1.5], [np.nan, 1, np.nan], [41, np.nan, 2]])
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
    with pytest.raises(InputError, match="unknown table format"):
        read_table(_file(tmp_path, "d.xls", "x"))


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
    X = encode_like([["rainy", "66", 1], ["fog", "?", None], {"o": "sunny", "t": 3.5}], atts)
    np.testing.assert_array_equal(X, [[1, 66, 1], [np.nan, np.nan, np.nan], [0, 3.5, np.nan]])
    with pytest.raises(InputError, match="row 1: value 'hot'"):
        encode_like([["sunny", "hot", "0"]], atts)
    with pytest.raises(InputError, match="row 1 has 2 values"):
        encode_like([["sunny", "1"]], atts)


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
