#!/usr/bin/env python3
"""Hostile mail against the bounded parser in ``textnb.io.mail`` (issue 18), and what the
bounded parser changes on real mail.

1. Time of :func:`textnb.io.mail.message_text` on the hostile shapes of issue 18 (75 KB of
   ``<a `` in an HTML part, 10^5 MIME parts, 10^5 Content-Type parameters, 1.5 x 10^5
   encoded words, 10^5 header fields, 1,000 nested multiparts), as microseconds per
   input byte, against the same figure on real mail in the same run (the SpamAssassin
   corpus, every message). The ratio is the "small constant" of the bound.
2. Agreement on the SpamAssassin corpus with the standard-library paths the module
   used before: ``email.policy.default`` and ``html.parser`` (kept here as a
   reference): how many messages give exactly the same text, and the time of each.

Run: ``python scripts/bench_mail_bounds.py [--corpus /work/corpora/spamassassin]``
(about 2 minutes on one core). Prints a Markdown table for ``docs/robustness.md``.
"""

import argparse
import os
import re
import sys
import time
from html.parser import HTMLParser
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import email.policy  # noqa: E402

from textnb.io import mail  # noqa: E402

SHAPES = {
    "75 KB of `<a ` in an HTML part": lambda: (
        b"Subject: x\nContent-Type: text/html\n\n<html><body>" + b"<a " * 25_000),
    "10^5 MIME parts": lambda: (
        b"Subject: x\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=BB\n\n"
        + b"--BB\nContent-Type: text/plain\n\nhello\n" * 100_000 + b"--BB--\n"),
    "10^5 Content-Type parameters": lambda: (
        ("Subject: x\nContent-Type: text/plain" + "".join(f"; p{i}=v{i}" for i in range(100_000))
         + "\n\nhello\n").encode()),
    "1.5 x 10^5 encoded words": lambda: (
        ("Subject: " + " ".join(["=?utf-8?q?hello?="] * 150_000) + "\n\nhello\n").encode()),
    "10^5 header fields": lambda: (
        b"".join(b"X-H%d: value %d\n" % (i, i) for i in range(100_000)) + b"\nhello\n"),
    "1,000 nested multiparts": lambda: (
        b"Subject: x\n" + b"".join(b"Content-Type: multipart/mixed; boundary=B%d\n\n--B%d\n" % (i, i)
                                   for i in range(1000)) + b"Content-Type: text/plain\n\nhello\n"),
    "10 MB of one-character lines": lambda: b"Subject: x\n\n" + b"a\n" * 5_000_000,
    # the worst shapes that stay just inside the caps
    "1,000 tiny MIME parts (at the cap)": lambda: (
        b"Subject: x\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=BB\n\n"
        + b"--BB\nContent-Type: text/plain\n\nhello\n" * 999 + b"--BB--\n"),
    "8 nested multiparts (at the cap) around 5 MB of short lines": lambda: (
        b"Subject: x\n" + b"".join(b"Content-Type: multipart/mixed; boundary=B%d\n\n--B%d\n" % (i, i)
                                   for i in range(8)) + b"Content-Type: text/plain\n\n" + b"a\n" * 2_500_000),
    "512 fields of 16 KiB, 100 encoded words each": lambda: b"".join(
        b"X-H%d: " % i + b" ".join([b"=?utf-8?q?w?= and"] * 100) + b" " + b"x" * (16_384 - 1_800) + b"\n"
        for i in range(512)) + b"\nhello\n",
    "50 KB of `<p x=\"` in HTML, closed": lambda: (
        b"Subject: x\nContent-Type: text/html\n\n" + b'<p x="' * 10_000 + b'">'),
}


class ReferenceHTML(HTMLParser):
    """The html.parser extractor textnb.io.mail used before issue 18 (quadratic on hostile HTML)."""

    _SKIP = frozenset({"script", "style", "head", "title"})
    _BLOCK = frozenset({"p", "br", "div", "tr", "td", "li", "h1", "h2", "h3", "table"})

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.text, self.tokens, self._skip = [], [], 0

    def handle_starttag(self, tag, attrs):
        if tag in self._SKIP:
            self._skip += 1
        elif tag in self._BLOCK:
            self.text.append("\n")
        for name, value in attrs:
            if value and name in ("href", "src", "action"):
                m = mail._URL_HOST.match(value)
                if m:
                    self.tokens.append("urlhost_" + mail._token(m.group(1)))
            elif value and name in ("alt", "title"):
                self.text.append(" " + value + " ")
        if tag == "img":
            self.tokens.append("html_img")

    def handle_endtag(self, tag):
        if tag in self._SKIP and self._skip:
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip:
            self.text.append(data)


def reference_html_to_text(html):
    p = ReferenceHTML()
    try:
        p.feed(html)
        p.close()
    except Exception:
        return re.sub(r"<[^>]*>", " ", html), p.tokens
    return "".join(p.text), p.tokens


def messages(root):
    for dirpath, _, files in sorted(os.walk(root)):
        for name in sorted(files):
            yield os.path.join(dirpath, name)


def timed(func, *args, **kwargs):
    t = time.perf_counter()
    out = func(*args, **kwargs)
    return out, time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default="/work/corpora/spamassassin")
    args = ap.parse_args()
    paths = list(messages(args.corpus))
    datas = [Path(p).read_bytes() for p in paths]
    total_bytes = sum(len(d) for d in datas)

    # 1. real mail, bounded parser
    texts, seconds = [], 0.0
    for d in datas:
        t, s = timed(mail.message_text, d)
        texts.append(t)
        seconds += s
    real_us = 1e6 * seconds / total_bytes
    print(f"real mail: {len(datas)} messages, {total_bytes / 1e6:.1f} MB, {seconds:.2f} s, "
          f"{real_us:.3f} us/byte\n")
    print("| hostile message | bytes | seconds | us/byte | x real mail |")
    print("|---|---|---|---|---|")
    for name, make in SHAPES.items():
        data = make()
        _, s = timed(mail.message_text, data, max_bytes=None)
        us = 1e6 * s / len(data)
        print(f"| {name} | {len(data):,} | {s:.2f} | {us:.3f} | {us / real_us:.1f} |")

    # 2. the stdlib paths as before (policy.default, html.parser)
    html_parts = [re.search(rb"(?i)content-type:\s*text/html", d) is not None for d in datas]
    saved = mail._POLICY, mail.html_to_text
    mail._POLICY, mail.html_to_text = email.policy.default, reference_html_to_text
    try:
        ref, ref_seconds = [], 0.0
        for d in datas:
            t, s = timed(mail.message_text, d)
            ref.append(t)
            ref_seconds += s
    finally:
        mail._POLICY, mail.html_to_text = saved
    same = sum(a == b for a, b in zip(texts, ref))
    same_tokens = sum(set(a.split()) == set(b.split()) for a, b in zip(texts, ref))
    n_html = sum(html_parts)
    same_html = sum(a == b for a, b, h in zip(texts, ref, html_parts) if h)
    print(f"\nSpamAssassin, {len(datas)} messages ({n_html} with an HTML part): identical text "
          f"{same} ({100 * same / len(datas):.2f} %), identical set of words {same_tokens} "
          f"({100 * same_tokens / len(datas):.2f} %); HTML messages identical {same_html} of {n_html}.")
    print(f"time: bounded parser {seconds:.2f} s, policy.default + html.parser {ref_seconds:.2f} s "
          f"({ref_seconds / seconds:.2f}x)")


if __name__ == "__main__":
    main()
