"""``textnb.io.pictures``: what every picture (``--plot``) is drawn with; the names a picture
draws (classes, labels, terms, attributes) as the fonts at hand draw them (``Lettering``):
with an installed font that has their characters, else as their numbers, said in one line
(found by a hunt, session 49: Chinese class names were boxes, and a warning line each
character)."""

import json
import warnings

import pytest

from conftest import cli
from textnb.core.errors import DataWarning

matplotlib = pytest.importorskip("matplotlib")

#: characters of no font matplotlib brings (DejaVu, STIX): Chinese
CHINESE = ["体育", "新闻", "经济"]
#: characters DejaVu Sans lacks and matplotlib's STIXGeneral has
STIX_ONLY = "\u1d81\u1d84"


@pytest.fixture(autouse=True)
def bundled_fonts(monkeypatch):
    """The fonts matplotlib brings, alone: a machine with a Chinese font installed draws
    Chinese names with it (the tests of that path take STIX_ONLY names)."""
    from matplotlib import font_manager

    bundled = [e for e in font_manager.fontManager.ttflist if e.fname.startswith(matplotlib.get_data_path())]
    monkeypatch.setattr(font_manager.fontManager, "ttflist", bundled)


def _warning_lines(err):
    lines = err.splitlines()
    assert all(line.startswith("textnb: warning: ") for line in lines), err
    return lines


def test_names_no_font_draws_are_numbered_and_said_in_one_line(tmp_path):
    """``evaluate --plot`` (single- and multi-label), ``inspect --plot`` of a text model and
    of a TAN: each name no installed font draws is drawn as its number, ``#N`` (as the
    text outputs number the classes, labels, terms, nodes), and stderr has one line for the
    picture, naming the names and how they are numbered (was: boxes, and a warning line for
    each character, 6 to 19 of them)."""
    corpus = tmp_path / "c"
    for i, name in enumerate(CHINESE):
        (corpus / name).mkdir(parents=True)
        for f in range(6):
            (corpus / name / f"{f}.txt").write_text(f"w{i} 词{i} w{i}{f} common")
    multilabel = tmp_path / "ml.jsonl"
    multilabel.write_text("".join(json.dumps({"labels": ["体育", "q"] if i % 2 else ["新闻"],
                                              "text": f"w{i % 2} x{i} common"}) + "\n" for i in range(12)))
    table = tmp_path / "t.csv"
    table.write_text("温度,风,cls\n" + "".join(f"{'高' if i % 2 else '低'},{i % 3},{'是' if i % 3 else '否'}\n"
                                               for i in range(20)))
    text, tan = tmp_path / "m.tnb", tmp_path / "tan.tnb"
    assert cli("train", corpus, "--model", "multinomial", "-o", text)[0] == 0
    assert cli("train", table, "--model", "tan", "--nominal-columns", "风", "-o", tan)[0] == 0
    expected = {
        "e.png": (["evaluate", corpus, "--model", "multinomial", "--cv", 2],
                  "the class names '体育' (#0), '新闻' (#1), '经济' (#2); each is drawn as #N, a class by its row "
                  "in the report's confusion matrix (from 0)"),
        "ml.png": (["evaluate", multilabel, "--multilabel", "--cv", 2],
                   "the label names '体育' (#1), '新闻' (#2); each is drawn as #N, a label by its row in the "
                   "report's per-label table (from 0)"),
        "i.png": (["inspect", text], "the class names '体育' (#0), '新闻' (#1), '经济' (#2) and 3 terms; each is "
                                     "drawn as #N, a class by its place in inspect's list (from 0); a term by its "
                                     "place in its class's list (from 1)"),
        "t.png": (["inspect", tan], "the attribute names '温度' (#0), '风' (#1); each is drawn as #N, a node by "
                                    "its line in inspect's parent lists (from 0)"),
    }
    for name, (argv, said) in expected.items():
        picture = tmp_path / name
        rc, out, err = cli(*argv, "--plot", picture)
        assert rc == 0 and picture.stat().st_size > 0, err
        assert _warning_lines(err) == [f"textnb: warning: {picture}: no installed font draws {said}"]


def _drawn_figure(monkeypatch, draw):
    """The figure ``draw()`` (a textnb picture) saves, and the warnings it gives."""
    from textnb.core import model_io

    figures = []
    monkeypatch.setattr(model_io, "write_picture", lambda fig, path, dpi=110: figures.append(fig))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        draw()
    return figures[0], [str(w.message) for w in caught]


def test_a_name_an_installed_font_draws_is_drawn_with_it(tmp_path, monkeypatch):
    """A class name whose characters matplotlib's default font lacks and another installed
    font has (STIXGeneral) is drawn as it is, with that font after the default one; no
    warning; matplotlib's settings are as before the picture."""
    from textnb.evaluation.plots import plot_confusion_matrix

    families = list(matplotlib.rcParams["font.family"])
    names = [STIX_ONLY, "plain"]
    fig, said = _drawn_figure(monkeypatch, lambda: plot_confusion_matrix([[2, 0], [1, 3]], names, tmp_path / "p.png"))
    ticks = fig.axes[0].get_xticklabels()
    assert [t.get_text() for t in ticks] == names and said == []
    assert "STIXGeneral" in ticks[0].get_fontfamily()
    assert list(matplotlib.rcParams["font.family"]) == families


def test_a_picture_of_names_no_font_draws_draws_their_numbers(tmp_path, monkeypatch):
    """The library's picture itself: the ticks of such names are their numbers, the others
    as they are; one DataWarning, and none of matplotlib's (one a character)."""
    from textnb.evaluation.plots import plot_confusion_matrix

    names = ["ham", CHINESE[0], "spam"]
    fig, said = _drawn_figure(monkeypatch, lambda: plot_confusion_matrix(
        [[1, 0, 0], [0, 1, 0], [0, 0, 1]], names, tmp_path / "p.png"))
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["ham", "#1", "spam"]
    assert said == [f"{tmp_path / 'p.png'}: no installed font draws the class name '体育' (#1); each is drawn as "
                    "#N, a class by its row in the report's confusion matrix (from 0)"]


def test_the_warning_lists_a_few_names_and_counts_the_rest():
    from textnb.io.pictures import Lettering

    with matplotlib.rc_context():
        letters = Lettering("p.png")
        shown = letters.names([f"名{i}" for i in range(9)], "label name", "a label by its row (from 0)")
    assert shown == [f"#{i}" for i in range(9)]
    assert letters.warning() == ("p.png: no installed font draws the label names '名0' (#0), '名1' (#1), '名2' (#2), "
                                 "'名3' (#3), '名4' (#4), '名5' (#5) and 3 more; each is drawn as #N, a label by its "
                                 "row (from 0)")
    with pytest.warns(DataWarning):
        letters.warn()


def test_an_svg_or_pdf_picture_is_the_same_bytes_at_every_run(tmp_path):
    """Found by a determinism hunt (session 52): ``--plot`` as SVG or PDF held the time it was
    drawn (``<dc:date>``, ``/CreationDate``), so one report gave other bytes at every run (a
    PNG did not)."""
    import time

    pytest.importorskip("matplotlib")
    from conftest import cli

    rows = tmp_path / "s.tsv"
    rows.write_text("".join(f"{'spam' if i % 2 else 'ham'}\t{'win cash prize' if i % 2 else 'see you at lunch'} {i}\n"
                            for i in range(40)))
    for suffix in ("svg", "pdf"):
        first, second = tmp_path / f"a.{suffix}", tmp_path / f"b.{suffix}"
        assert cli("evaluate", rows, "--cv", 2, "--plot", first)[0] == 0
        time.sleep(1.1)
        assert cli("evaluate", rows, "--cv", 2, "--plot", second)[0] == 0
        assert first.read_bytes() == second.read_bytes(), suffix
