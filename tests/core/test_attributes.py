"""core.attributes helpers."""

from textnb.core.attributes import repeated


def test_repeated_names_sorted_once_each():
    assert repeated([]) == []
    assert repeated(["a", "b", "c"]) == []
    assert repeated(["b", "a", "b", "c", "a", "b"]) == ["a", "b"]
    assert repeated(["x"] * 100_000 + ["y"]) == ["x"]
