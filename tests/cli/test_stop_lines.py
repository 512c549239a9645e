"""The one line and the exit status each program gives when an exception ends it: the
same exceptions fed to ``textnb`` (its table of stops), ``spamfilter`` and ``topicfilter``
(their shared :func:`textnb.cli.filterbase.say_failure`): one :func:`textnb.cli.filterbase.stop_message`
for the stops that are neither an input error nor a bug (the filters said ``internal error:
OverflowError: ...`` where textnb said ``a number is too large (...)``)."""

import errno
import io

import pytest

import textnb.cli.mailfilters
import textnb.cli.topicfilter
import textnb.io.corpus
from textnb.cli.commands import main
from textnb.core.errors import InputError
from textnb.core.signals import Terminated


def _raising(exc):
    def raise_it(*args, **kwargs):
        raise exc

    return raise_it


# (exception, textnb's line and status, the mail filters' line after "PROG: ")
CASES = [
    (lambda: InputError("x.txt: not a model"), ("textnb: error: x.txt: not a model", 1), "x.txt: not a model"),
    (lambda: OSError(errno.ENOENT, "No such file or directory", "x.txt"),
     ("textnb: error: x.txt: No such file or directory", 1), "x.txt: No such file or directory"),
    (lambda: Terminated(15), ("textnb: terminated by signal 15", 143), "terminated by signal 15"),
    (lambda: KeyboardInterrupt(), ("textnb: interrupted", 130), "interrupted"),
    (lambda: OverflowError("int too large"), ("textnb: error: a number is too large (int too large)", 1),
     "a number is too large (int too large)"),
    (lambda: RecursionError("deep"), ("textnb: error: input nested too deeply", 1),
     "input nested too deeply"),
    (lambda: MemoryError(),
     ("textnb: error: out of memory (try a smaller --ngram, --bins, --max-features or --max-bytes)", 1),
     "out of memory (try a smaller --max-bytes)"),
    (lambda: RuntimeError("boom"),
     ("textnb: internal error: RuntimeError: boom (a bug in textnb; run with TEXTNB_DEBUG=1 for the traceback)", 70),
     "internal error: RuntimeError: boom"),
]


@pytest.mark.parametrize("make, textnb_says, filter_says", CASES)
def test_textnb_says_one_line(monkeypatch, make, textnb_says, filter_says):
    monkeypatch.delenv("TEXTNB_DEBUG")  # (the suite's setting: a bug would raise)
    monkeypatch.setattr(textnb.io.corpus, "read_once", _raising(make()))
    out, err = io.StringIO(), io.StringIO()
    code = main(["inspect", "model.tnb"], stdout=out, stderr=err)
    assert (err.getvalue(), code) == (textnb_says[0] + "\n", textnb_says[1])


@pytest.mark.parametrize("make, textnb_says, filter_says", CASES)
def test_spamfilter_says_one_line(monkeypatch, make, textnb_says, filter_says):
    monkeypatch.setattr(textnb.cli.mailfilters, "_fast_spam_args", _raising(make()))
    err = io.StringIO()
    code = textnb.cli.mailfilters.filter_main([], stdin=io.BytesIO(b""), stdout=io.BytesIO(), stderr=err)
    assert (err.getvalue(), code) == (f"spamfilter: {filter_says}\n", 130 if filter_says == "interrupted" else 3)


@pytest.mark.parametrize("make, textnb_says, filter_says", CASES)
def test_topicfilter_says_one_line(monkeypatch, make, textnb_says, filter_says):
    monkeypatch.setattr(textnb.cli.topicfilter, "full_library", _raising(make()))
    err = io.StringIO()
    code = textnb.cli.topicfilter.topic_main(["model.tnb", "x.txt"], stdout=io.StringIO(), stderr=err)
    assert (err.getvalue(), code) == (f"topicfilter: {filter_says}\n", 130 if filter_says == "interrupted" else 1)


def test_memory_errors_name_the_option_that_lowers_them(monkeypatch):
    # one rule (textnb.cli.filterbase.out_of_memory) for the three programs: each names its options
    # (topicfilter said "internal error: MemoryError: ", spamfilter "out of memory (lower --max-bytes)")
    monkeypatch.setattr(textnb.io.corpus, "read_once", _raising(MemoryError()))
    err = io.StringIO()
    assert main(["inspect", "model.tnb"], stdout=io.StringIO(), stderr=err) == 1
    assert err.getvalue() == ("textnb: error: out of memory (try a smaller --ngram, --bins, --max-features or "
                              "--max-bytes)\n")
    monkeypatch.setattr(textnb.cli.mailfilters, "_fast_spam_args", _raising(MemoryError()))
    err = io.StringIO()
    assert textnb.cli.mailfilters.filter_main([], stdin=io.BytesIO(b""), stdout=io.BytesIO(), stderr=err) == 3
    assert err.getvalue() == "spamfilter: out of memory (try a smaller --max-bytes)\n"
    monkeypatch.setattr(textnb.cli.topicfilter, "full_library", _raising(MemoryError()))
    err = io.StringIO()
    assert textnb.cli.topicfilter.topic_main(["model.tnb", "x.txt"], stdout=io.StringIO(), stderr=err) == 1
    assert err.getvalue() == "topicfilter: out of memory (try a smaller --max-bytes)\n"
