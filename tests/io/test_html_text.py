"""html_text's two readings (textnb.io.mailtokens): simple tags in bulk from a split of a
window of the document, every other construct one step at a time on the whole document.
Whatever the window, the result is the same, and the work stays linear."""

import random

import pytest

from conftest import watchdog
from textnb.io import mailtokens as mt

DOCUMENTS = [
    "",
    "plain text, no tag",
    '<p>Hi <b>there</b><br>you &amp; me</p>',
    '<a href="http://Spam.Example.com/x">click</a><img src="http://img.example.org/a.gif" alt="pic">',
    '<head><title>T</title></head><script>var a="<p>no";</script><style>p{}</style>body',
    '<!-- comment --><a title="say>hi" x=3D"4=\n">link</a> 1 < 2 <3',
    "<!--#rotate> open comment",
    "</=\ni>gone</ p>",
    "&am<b>p; x&amp<br>y &#65<i>z",  # a reference cut by a tag is no reference
    "<TITLE>skipped <P>still a break</TITLE><TD ALT=kept>cell",
    '<html><body bgcolor="#fff"><table><tr><td><font face="arial">a</font></td></tr></table>'
    '<form action="https://form.example.net/go"><input value="x"></form></body></html>',
    "<a<b>c</a>d<a x='>'>e</a>",
    "<script>never closed <b>x</b>",
    "<style>p{}</STYLE >after<script src=http://s.example.com/a.js></script>z",
    "<!DOCTYPE html><?xml x?><!----><!--->--><b>t</b>",
    "x" * 300 + "<b>" + "y" * 300 + "</b><!-- " + "<i>" * 50 + " -->" + "<p>" * 40 + "end",
    "<a><!>" * 100 + "<p>&amp;</p>" * 20 + "<!-- x -->" * 50 + "tail",  # dense in other constructs, then not
]

PIECES = ["<", ">", "<a>", "</a>", "<b href='http://x.example/'>", "<img src=http://i.example/p alt=hi>",
          "<!--", "-->", "<!", "<!>", "<?", "</", "<script>", "</script>", "<title>", "</title>", "<head>",
          "</head>", "<p>", "<br/>", "<td title=\"t>d\">", "&amp;", "&am", "p;", "\"", "'", "=", "x", " ",
          "word", "\n", "<a <a", "<p x=\"", "<style>", "</style >", "<TD>", "<Img>"]


def fuzz_documents(n, seed=26):
    rng = random.Random(seed)
    return ["".join(rng.choice(PIECES) for _ in range(rng.randint(1, 60))) for _ in range(n)]


def read_with_window(monkeypatch, window, src, dense=1 << 30):
    monkeypatch.setattr(mt, "_HTML_WINDOW", window)
    monkeypatch.setattr(mt, "_HTML_DENSE", dense)
    with watchdog(60):
        return mt.html_text(src)


@pytest.mark.parametrize(("window", "dense"), [(2, 32), (3, 32), (5, 1), (17, 2), (64, 32), (1 << 16, 1),
                                               (1 << 16, 2), (1 << 16, 32)])
def test_any_window_reads_as_the_step_by_step_reading(monkeypatch, window, dense):
    """A window of 2 characters sends every construct to the step reading (the bulk
    never holds a whole tag); other sizes cut tags and texts anywhere, and a low
    ``dense`` sends the rest of a window to the step reading early: all read alike."""
    for src in DOCUMENTS + fuzz_documents(400):
        expected = read_with_window(monkeypatch, 2, src)
        assert read_with_window(monkeypatch, window, src, dense) == expected, src


def test_known_readings():
    # (the same as the step-by-step reading of before, html.parser's rules)
    assert mt.html_text(DOCUMENTS[8])[0] == "&amp; x&\ny Az"
    assert mt.html_text(DOCUMENTS[9])[0] == "\n kept \ncell"
    text, hosts, images, capped = mt.html_text(DOCUMENTS[10])  # (</td>, </tr>, </table>, <form>, </form>)
    assert text == "\n\n\na\n\n\n\n\n" and hosts == ["form.example.net"] and images == 0 and not capped
    assert mt.html_text(DOCUMENTS[13]) == ("afterz", ["s.example.com"], 0, False)


def test_block_elements_keep_words_apart_and_inline_ones_do_not():
    """The words on the two sides of a block element's start or end tag stay two words, as a
    browser shows them (``<th>alpha</th><th>beta</th>`` read ``alphabeta``; a country list
    of ``<option>``s was one word of 2,000 letters); across an inline element they run on."""
    def words(src):
        return mt.html_text(src)[0].split()

    for src in ("<div>alpha</div>beta", "<p>alpha</p>beta", "<td>alpha</td>beta", "<th>alpha</th><th>beta</th>",
                "<ul><li>alpha</li></ul>beta", "alpha<hr>beta", "<h4>alpha</h4>beta", "alpha<center>beta</center>",
                "<select><option>alpha<option>beta</select>", "alpha<blockquote>beta</blockquote>",
                "<dl><dt>alpha</dt><dd>beta</dd></dl>", "<pre>alpha</pre>beta"):
        assert words(src) == ["alpha", "beta"], src
        assert words(src.upper().replace("ALPHA", "alpha").replace("BETA", "beta")) == ["alpha", "beta"], src
    for src in ("<b>al</b>pha", "al<font color=red>pha</font>", "<span>al</span>pha", "al<a href=x>pha</a>"):
        assert words(src) == ["alpha"], src
    assert words("<p>Country:<select><option value=al>Albania<option value=dz>Algeria</select>") == \
        ["Country:", "Albania", "Algeria"]


def test_without_links_the_same_but_hosts(monkeypatch):
    for src in DOCUMENTS + fuzz_documents(200):
        text, hosts, images, capped = mt.html_text(src)
        assert mt._html_text(src, False) == (text, [], images, capped), src


def test_the_tag_cap_in_bulk_and_step_by_step(monkeypatch):
    src = "<b>x</b><!---->" * (mt.MAX_HTML_TAGS // 3 + 10) + "tail"
    for window, dense in ((2, 32), (1 << 16, 32), (1 << 16, 1 << 30)):
        text, _, _, capped = read_with_window(monkeypatch, window, src, dense)
        assert capped and "tail" not in text and text.count("x") == mt.MAX_HTML_TAGS // 3 + 1


class _CountingSplit:
    """NEXT_TAG with its split counted (characters split)."""

    def __init__(self, pattern):
        self.pattern, self.chars = pattern, 0

    def split(self, text):
        self.chars += len(text)
        return self.pattern.split(text)

    def search(self, *args):
        return self.pattern.search(*args)


@pytest.mark.parametrize("unit", ["<", "<a>", "<!>", "<a><!>", "x<a>x<!--y-->", "<a ", "<!-->", "</", "<a<a>",
                                  "<script><b>", "<p x=\""])
def test_each_character_is_split_a_bounded_number_of_times(monkeypatch, unit):
    counting = _CountingSplit(mt._P.NEXT_TAG)
    monkeypatch.setattr(mt._P, "NEXT_TAG", counting)
    src = unit * (300_000 // len(unit)) + "<b>tail</b>"
    with watchdog(60):
        mt.html_text(src)
    assert counting.chars <= 3 * len(src) + 2 * mt._HTML_WINDOW, counting.chars / len(src)


def test_link_hosts_by_either_reading_are_the_url_pattern(monkeypatch):
    """``_link_hosts`` scans with string methods until the URL pattern is compiled, then uses
    it: both give the pattern's findall (also under tests/apps/test_spamlite.py, slow)."""
    import re

    url = re.compile(mt._SOURCES["URL"])
    rng = random.Random(30)
    pieces = [":", "/", "://", "a", "b.c", ".", " ", "\n", "\x85", "=", "?", "'", '"', "<", "#", "\u2028", "é"]
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 30))) for _ in range(2000)]
    monkeypatch.delattr(mt._P, "URL", raising=False)  # not compiled: the string scan
    assert [mt._link_hosts(t) for t in texts] == [url.findall(t) for t in texts]
    assert "URL" not in vars(mt._P)
    mt._P.URL  # noqa: B018 - compiled: the pattern
    assert [mt._link_hosts(t) for t in texts] == [url.findall(t) for t in texts]
