"""A multi-label text model keeps ``train --max-bytes`` and cuts documents there, as a
single-label one does (session 30): its file scorer (MultiLabelScorer) had no ``max_bytes``, so
``predict`` and ``serve`` read whole documents a model trained on their first bytes."""

import pytest

from conftest import cli


@pytest.fixture
def trained(tmp_path):
    data = tmp_path / "ml.txt"
    rows = ["__label__a apple apple", "__label__b pear pear", "__label__a __label__c apple plum"] * 20
    data.write_text("\n".join(rows) + "\n")
    query = tmp_path / "q.txt"
    # its first 20 bytes say a; what follows them, b
    query.write_text("apple " + "x" * 20 + " pear pear pear pear pear pear pear pear\n")
    assert cli("train", data, "--max-bytes", "20", "-o", tmp_path / "cut.tnb")[0] == 0
    assert cli("train", data, "-o", tmp_path / "whole.tnb")[0] == 0
    return tmp_path, query


def test_predict_cuts_where_training_cut(trained):
    tmp_path, query = trained
    for args in (["--lines", query], [query]):
        rc, out, err = cli("predict", tmp_path / "cut.tnb", *args)
        assert rc == 0 and out.split("\t")[1].strip() == "a", (out, err)
        # --max-bytes given wins, as for a single-label model
        rc, out, err = cli("predict", tmp_path / "cut.tnb", *args, "--max-bytes", "1M")
        assert rc == 0 and out.split("\t")[1].strip() == "b", (out, err)
    # a model trained without --max-bytes (and a file written before it was kept) reads 16 MiB
    rc, out, _ = cli("predict", tmp_path / "whole.tnb", "--lines", query)
    assert rc == 0 and out.split("\t")[1].strip() == "b"


def test_serve_and_the_scorer_cut_where_training_cut(trained):
    from textnb.apps.serve import _load_text_model, classify_texts
    from textnb.core.model_io import read_nodes
    from textnb.meta.labelsets import label_log_odds

    tmp_path, query = trained
    text = query.read_text().strip()
    model = _load_text_model(tmp_path / "cut.tnb")
    assert model.max_bytes == 20
    assert classify_texts(model, {"texts": [text]})["labels"] == [["a"]]
    assert label_log_odds(model, [text]).argmax() == 0  # (the scorer given a text cuts it too)
    old = _load_text_model(tmp_path / "whole.tnb")
    assert old.max_bytes is None and classify_texts(old, {"texts": [text]})["labels"] == [["b"]]
    # without --max-bytes nothing is written: the file is the one written before
    vectorizer = read_nodes(tmp_path / "whole.tnb").params["steps"][0][1]
    assert "max_bytes" not in vectorizer.state
