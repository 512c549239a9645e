"""The spam filter's numpy-free path: textnb.apps.spamlite, textnb.io.mailtokens, textnb.io.mailread.

What is checked: the fast tokenizer gives exactly the tokens its regular expressions
define; LiteFilter gives the very floats (and so the same printed bytes) as the numpy
SpamFilter; it reads only files it fully understands and leaves every other file, broken
or of another kind, to the full loader; the common command lines are parsed as argparse
parses them; the batch and one-message paths import no numpy.
"""

import math
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from textnb.apps.filtering import SpamFilter, new_spam_model, train_model
from textnb.apps.spamlite import LiteFilter, Verdict, score_text
from textnb.cli.mailfilters import _fast_spam_args, _spam_parser, filter_main
from textnb.io import mailtokens as mt
from textnb.core.errors import InputError
from textnb.io.mailread import iter_messages

REPO = Path(__file__).resolve().parents[2]

SPAM_MSGS = [
    b"From: Deals <win@cheap.example>\nSubject: =?utf-8?q?Cheap_pills?= now!!\nContent-Type: text/html\n\n"
    b"<html><a href='http://pills.example/buy'>BUY</a> cheap pills, viagra... 100% free-offer</html>\n",
    b"From: promo@cheap.example\nSubject: You won $1,000,000\n\nClick now to claim your prize - don't wait.\n",
    b"Subject: re: offer\nContent-Type: multipart/alternative; boundary=xx\n\n--xx\nContent-Type: text/plain\n\n"
    b"cheap offer inside\n--xx\nContent-Type: text/plain; charset=latin-1\nContent-Transfer-Encoding: base64\n\n"
    b"Y2hlYXAgb2ZmZXIg6WzoduhzCg==\n--xx--\n",
]
HAM_MSGS = [
    b"From: Alice <alice@work.example>\nTo: bob@work.example\nSubject: Meeting agenda\n\n"
    b"Hi Bob,\nthe agenda for tomorrow's meeting is attached. -- Alice\n",
    b"From: bob@work.example\nSubject: Re: Meeting agenda\nReceived: from mx1.work.example by mx2\n"
    b"  (folded line); Tue, 1 Dec 2026\n\nThanks, see you at the meeting. Notes at 10:30.\n",
    b"hello, no header at all: just lunch plans for friday e.g. pizza & co.\n",
]


@pytest.fixture()
def trained(tmp_path):
    return _train(tmp_path)


def _train(tmp_path, kind=None):
    spam, ham = tmp_path / "spam", tmp_path / "ham"
    spam.mkdir()
    ham.mkdir()
    for folder, msgs in ((spam, SPAM_MSGS), (ham, HAM_MSGS)):
        for i, m in enumerate(msgs):
            (folder / f"{i}.eml").write_bytes(m)
    model = tmp_path / "spam.tnb"
    train_model(model, [spam], [ham], **({"kind": kind} if kind else {}))
    test = tmp_path / "test"
    test.mkdir()
    rng = random.Random(0)
    pool = SPAM_MSGS + HAM_MSGS
    for i in range(20):  # new mixtures of the training messages' lines
        a, b = rng.sample(pool, 2)
        (test / f"{i:02d}.eml").write_bytes(a.split(b"\n\n", 1)[0] + b"\n\n" + b.split(b"\n\n", 1)[-1])
    return model, test


# -- the tokenizer is its regular expressions -------------------------------------------
def _reference_split(text):
    """The header rule written with patterns, line by line: fields (``_FIELD``) and their
    continuation lines up to a blank line (dropped) or the first other line (kept); without
    a blank line or a mail field, the first ``Name:value`` line of a field that is not
    mail's ends it."""
    import re

    if not _opens_header(text):
        return [], text, True
    fields, lines, k = [], text.split("\n"), 0
    loose = None
    while k < len(lines):
        line = lines[k]
        if k == len(lines) - 1 and not line:  # after the last line's end: not a blank line
            break
        if re.fullmatch(r"[ \t]*", line):
            if loose is None or any(mt._known_field(name) for name, _ in fields):
                return fields, "\n".join(lines[k + 1:]), True
            break
        if line[0] in " \t":
            if fields:
                fields[-1] = (fields[-1][0], fields[-1][1] + " " + line.lstrip(" \t"))
        elif mt._FIELD.match(line) and not line.split(":", 1)[1].startswith("//"):  # (a link is not a field)
            name, value = line.split(":", 1)
            if loose is None and not (re.match(r"[^:]*:(?:[ \t]|$)", line) or mt._known_field(name.lower())):
                loose = (len(fields), k)
            fields.append((name.lower(), value.lstrip(" \t")))
        else:
            break
        k += 1
    if loose is not None:  # no blank line: "Name:value" of a field that is not mail's is the body's
        fields, k = fields[:loose[0]], loose[1]
    return _mail_or_text(fields, "\n".join(lines[k:]) if k < len(lines) else "", text)


def _opens_header(text):
    """The first line opens a header: ``_FIRST_FIELD`` with a blank after the colon, or
    with a mail field's name and a value right after the colon."""
    first = mt._FIRST_FIELD.match(text)
    return bool(first) and (first.group(2) is not None or (mt._known_field(first.group(1).lower())
                                                           and text[first.end():first.end() + 1] not in ("", "\n")))


def _mail_or_text(fields, body, text):
    """Without a blank line the header extends over mail fields only."""
    import re

    known = [i for i, (name, _) in enumerate(fields) if mt._known_field(name)]
    if not known:
        return [], text, True
    last = known[-1]
    if last + 1 == len(fields):
        return fields, body, False
    # the body starts at the line of the field after the last mail field
    starts = [m.start() for m in re.finditer(r"(?m)^[!-9;-~]+:", text)]
    return fields[:last + 1], text[starts[last + 1]:], False


_ALPHABET = st.sampled_from(list("ab:Z- \t\r\n.'$_=;!~<>/\x00\x7f\xa0\xb5\xb2\xe9\u0130\u2028x") + ["Subject: ", "\n\n", "\r\n "])


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(st.lists(_ALPHABET, max_size=40).map("".join))
def test_pieces_are_the_word_pattern(text):
    text = text.lower()
    assert [w for w in mt._pieces(text) if len(w) > 1] == mt._WORD.findall(text)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(st.lists(_ALPHABET, max_size=40).map("".join), st.booleans())
def test_header_split_is_the_field_patterns(text, with_field):
    text = mt._lf((("A: " + text) if with_field else text).encode("latin-1", "replace"))
    assert mt._split_message(text) == _reference_split(text)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)) | st.sampled_from(list("'.-$_ ")), max_size=30))
def test_pieces_of_any_text_are_the_word_pattern(text):
    assert [w for w in mt._pieces(text) if len(w) > 1] == mt._WORD.findall(text)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from([":", "/", "://", "a", ".", " ", "\n", "\x85", "=", "?", "'", '"', "<", "#", "\u2028"]),
                max_size=20).map("".join))
def test_link_hosts_are_the_url_pattern(text):
    want = mt._URL.findall(text)
    compiled = vars(mt._P).pop("URL", None)  # not compiled: _link_hosts scans with string methods
    try:
        assert mt._link_hosts(text) == want
    finally:
        if compiled is not None:
            mt._P.URL = compiled


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(st.sampled_from(["From a@b Tue Dec  1 10:00:00 2026", "From x  Mon 3 Jan 1:05", "From me: 1:2 x", "From a b 12:3"]),
       st.integers(0, 40), st.sampled_from(["", "\n", " tail\n"]))
def test_from_line_pretest_never_hides_an_mbox_line(line, cut, tail):
    from textnb.io import mailread

    data = (line[:cut] + tail).encode()
    if mailread._FROM_LINE.match(data):
        assert mailread._has_time(data)


def test_token_table_is_the_word_class():
    import re

    word_char = re.compile(r"(?u)[\w$'.\-]")
    assert mt._TOKEN_TABLE == bytes(i if word_char.match(chr(i)) else 0x20 for i in range(256))


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(st.lists(_ALPHABET, max_size=40).map("".join))
def test_stripped_runs_are_the_lead_and_trail_substitutions(text):
    raw = b" " + text.encode("latin-1", "replace").translate(mt._TOKEN_TABLE) + b" "
    expected = mt._TRAIL.sub(b" ", mt._LEAD.sub(b" ", raw)).decode("latin-1").split()
    assert mt._strip_ends(raw.decode("latin-1").split()) == expected
    assert mt._starts_with_field(text) == _opens_header(text)


_MIME = st.sampled_from(["--", "-", "b", "B", "x", ".", "*", "+", " ", "\t", "\r", "\n", "\r\n", "--b", "--b--"])


@pytest.mark.slow
@settings(max_examples=600, deadline=None)
@given(st.lists(_MIME, max_size=30).map("".join), st.lists(_MIME, min_size=1, max_size=3).map("".join))
def test_part_split_is_the_delimiter_pattern(body, boundary):
    import re

    delimiter = re.compile(r"(?m)^--" + re.escape(boundary) + r"(--)?[ \t]*\r?$")
    assert mt._split_parts(body, boundary) == delimiter.split(body)


def test_folder_walk_is_os_walks(tmp_path):
    """iter_messages over a folder: os.walk's order and choices (hidden, links, FIFOs, a
    Maildir inside, an mbox inside, an unreadable file reported)."""
    from textnb.io.mailread import is_maildir, is_special, read_messages

    root = tmp_path / "mail"
    (root / "b" / "deep").mkdir(parents=True)
    (root / "a").mkdir()
    (root / ".hidden").mkdir()
    for rel, data in [("z.eml", HAM_MSGS[0]), ("a/1", SPAM_MSGS[1]), ("b/deep/x", b"text only\n"), ("b/2", b""),
                      (".dot", b"hidden\n"), (".hidden/y", b"in a hidden folder\n"), ("m.mbox",
                      b"From a@b Tue Dec  1 10:00:00 2026\nSubject: one\n\nbody\n\n"
                      b"From c@d Tue Dec  1 11:00:00 2026\nSubject: two\n\nbody two\n")]:
        (root / rel).write_bytes(data)
    for sub in ("cur", "new", "tmp"):
        (root / "md" / sub).mkdir(parents=True)
    (root / "md" / "new" / "n1").write_bytes(SPAM_MSGS[0])
    os.mkfifo(root / "fifo")
    (root / "link").symlink_to(root / "z.eml")
    (root / "dirlink").symlink_to(root / "a")
    (root / "broken").symlink_to(root / "nowhere")
    (root / "fifolink").symlink_to(root / "fifo")

    def reference(path):
        for top, dirs, files in os.walk(path):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            if is_maildir(top):
                dirs[:] = []
                yield from iter_messages(top)
                continue
            for name in sorted(files):
                full = os.path.join(top, name)
                if not name.startswith(".") and not is_special(full):
                    try:
                        yield from read_messages(full, 10 * 1024 * 1024)
                    except Exception as exc:
                        yield "ERROR", str(exc).encode()

    errors = []
    got = list(iter_messages(root, on_error=errors.append)) + [("ERROR", e.encode()) for e in errors]
    expected = list(reference(str(root)))
    assert sorted(got) == sorted(expected) and [s for s, _ in got if s != "ERROR"] == \
        [s for s, _ in expected if s != "ERROR"]
    assert len(errors) == 2 and "broken" in errors[0] and errors[1].endswith("b/2: empty message")


def test_one_letter_words_are_not_tokens():
    toks = mt.message_tokens(b"Subject: a b cd\n\nx y zz - .q. 'w' e.g.\n")
    assert "zz" in toks and "e.g" in toks and "subject:cd" in toks
    assert not [t for t in toks if len(t) == 1] and "subject:a" not in toks


# -- the same floats as the numpy scorer --------------------------------------------------
@pytest.mark.parametrize("kind", ["fisher", "boolean"])
def test_lite_filter_gives_the_numpy_filters_verdicts_bit_for_bit(tmp_path, kind):
    model, test = _train(tmp_path, kind)
    data = [d for _, d in iter_messages(test)] + SPAM_MSGS + HAM_MSGS + [b"Subject: \n\nnothing known"]
    for cut in ({}, {"spam_cutoff": 0.9, "ham_cutoff": 0.2}):
        lite = LiteFilter.load(model, **cut)
        assert lite is not None
        full = SpamFilter.load(model, **cut)
        a, b = lite.classify(data), full.classify(data)
        assert a == b
        assert [score_text(v) for v in a] == [score_text(v) for v in b]
    assert len({v.label for v in a}) > 1


@pytest.mark.parametrize("params", [{"method": "fisher", "min_dev": 0.05, "max_tokens": 150},
                                    {"method": "fisher"}, {"method": "fisher", "min_dev": 0.0},
                                    {"method": "multinomial", "alpha": 0.01, "length_norm": True},
                                    {"method": "multinomial", "alpha": 0.1, "length_norm": 1},
                                    {"method": "multinomial", "alpha": 0.1, "length_norm": 0.75}])
def test_lite_scorer_is_the_numpy_scorer_on_real_messages(tmp_path, params):
    """The SMS collection bundled in corpora/: the first 3,000 texts train, the rest are
    scored by both scorers, every float equal."""
    from conftest import SMS_TSV

    from textnb.apps.spamscore import SpamScorer

    rows = [line.split("\t", 1) for line in SMS_TSV.read_text(encoding="utf-8").splitlines() if "\t" in line]
    tokens = [mt.message_tokens(text.encode()) for _, text in rows]
    labels = [label for label, _ in rows]
    model = SpamScorer(**params).fit(tokens[:3000], labels[:3000])
    model.save(tmp_path / "m.tnb")
    lite = LiteFilter.load(tmp_path / "m.tnb")
    assert lite is not None
    expected = model.decision_function(tokens[3000:]).tolist()
    assert [lite.scorer.log_odds(t) for t in tokens[3000:]] == expected
    assert len({round(v, 6) for v in expected}) > 100  # real, distinct scores


@pytest.mark.parametrize("kind", ["fisher", "boolean"])
def test_batch_output_is_the_numpy_filters(tmp_path, kind, capsysbinary):
    model, test = _train(tmp_path, kind)
    full = SpamFilter.load(model)
    expected = b"".join(f"{s}\t{v.label}\t{score_text(v)}\t{v.score!r}\n".encode()
                        for s, v in full.classify_stream(iter_messages(test)))
    assert filter_main(["-m", str(model), "--batch", str(test), "--log-odds"]) == 0
    assert capsysbinary.readouterr().out == expected


def test_other_kinds_and_broken_files_go_to_the_full_loader(tmp_path, trained):
    model, _ = trained
    geometric = tmp_path / "geometric.tnb"
    new_spam_model("geometric").fit([mt.message_tokens(m) for m in SPAM_MSGS + HAM_MSGS],
                                    ["spam"] * 3 + ["ham"] * 3).save(geometric)
    assert LiteFilter.load(geometric) is None
    raw = model.read_bytes()
    for name, data in [("truncated", raw[: len(raw) // 2]), ("empty", b""), ("text", b"not a model\n"),
                       ("flipped", raw[:len(raw) // 2] + bytes([raw[len(raw) // 2] ^ 1]) + raw[len(raw) // 2 + 1:])]:
        p = tmp_path / name
        p.write_bytes(data)
        assert LiteFilter.load(p) is None, name
    body = bytearray(raw)
    i = raw.index("ham".encode("utf-32-le"))  # a class name in the classes_ array: its checksum fails
    body[i] = ord("j")
    (tmp_path / "renamed").write_bytes(bytes(body))
    assert LiteFilter.load(tmp_path / "renamed") is None
    assert LiteFilter.load(tmp_path / "missing.tnb") is None
    os.mkfifo(tmp_path / "fifo")
    assert LiteFilter.load(tmp_path / "fifo") is None  # never opened for a blocking read


def _framed(path, block, header, arrays, rebind=False, extra=()):
    """A model file as save lays it out: ``block`` (a compact form and its binding, as read
    from a model file) framed in front of the archive of ``header`` and ``arrays``
    (``header.json`` first), the frame made for it: the compact form copied across;
    ``rebind``: its binding made for this archive (as a later textnb would write it);
    ``extra``: members ``(name, bytes)`` added at the end of the archive."""
    import hashlib
    import io
    import json
    import warnings
    import zipfile

    import numpy as np

    from textnb.core import compact

    header = json.loads(json.dumps(header))
    members = []
    for name, a in arrays.items():
        buf = io.BytesIO()
        np.save(buf, a, allow_pickle=False)
        header["arrays"][name] = {"sha256": hashlib.sha256(buf.getvalue()).hexdigest(), "nbytes": len(buf.getvalue())}
        members.append((f"arrays/{name}.npy", buf.getvalue()))
    head = json.dumps(header, sort_keys=True, separators=(",", ":")).encode()
    buf = io.BytesIO()
    buf.write(bytes(compact.FRAME.size) + block)
    with warnings.catch_warnings(), zipfile.ZipFile(buf, "w") as z:
        warnings.simplefilter("ignore")  # (zipfile warns of a name given twice)
        for name, data in [("header.json", head)] + members + list(extra):
            z.writestr(zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0)), data)
    archive = buf.getvalue()[compact.FRAME.size + len(block):]
    if rebind:
        block = compact.bind(block[:-compact.BINDING.size], archive)
    path.write_bytes(compact.frame(block, archive) + block + archive)
    return path


def _parts(path):
    """``(block, header, arrays)`` of a spam model file save wrote: what lies between its
    frame and its archive (the compact form and its binding), and its archive's contents."""
    from conftest import read_model_file
    from textnb.core import compact

    raw = path.read_bytes()
    n_block = compact.FRAME.unpack_from(raw)[1]
    return raw[compact.FRAME.size:compact.FRAME.size + n_block], *read_model_file(path)


def _spamfilter(*argv, stdin=b""):
    """``spamfilter ARGV`` in a fresh interpreter, as a mail filter runs it: (exit status, stdout, stderr)."""
    r = subprocess.run([sys.executable, "-S", str(REPO / "scripts" / "spamfilter"), *map(str, argv)], input=stdin,
                       capture_output=True, env={**os.environ, "PYTHONPATH": str(REPO)}, cwd=str(REPO))
    return r.returncode, r.stdout.decode(), r.stderr.decode()


def test_a_compact_form_is_read_only_with_the_archive_it_was_written_with(trained, tmp_path):
    """Found by a model-file hunt (session 50): the frame checked only its size and CRC-32,
    never relating the compact form to the archive behind it, so the compact form of a model
    in front of another archive (the spam and ham counts swapped, the frame's CRC recomputed)
    gave spamfilter the opposite verdicts of ``SpamFilter.load``, serve and inspect, which read
    the archive. The frame is bound to the header the compact form was written with: such a
    file is read by the full reader, whose verdicts spamfilter then gives."""
    from textnb.apps.spamlite import EXIT_CODES

    model, test = trained
    block, header, arrays = _parts(model)
    counts = header["model"]["state"]["feature_count_"]["$array"]
    swapped = _framed(tmp_path / "swapped.tnb", block, header, {**arrays, counts: arrays[counts][::-1].copy()})
    assert LiteFilter.load(swapped) is None and LiteFilter.load(model) is not None
    full = [f"{s}\t{v.label}\t{score_text(v)}" for s, v in SpamFilter.load(swapped).classify_stream(iter_messages(test))]
    own = [f"{s}\t{v.label}\t{score_text(v)}" for s, v in SpamFilter.load(model).classify_stream(iter_messages(test))]
    assert full != own
    assert _spamfilter("-m", swapped, "--batch", test) == (0, "\n".join(full) + "\n", "")
    verdict = SpamFilter.load(swapped).classify([SPAM_MSGS[0]])[0]
    rc, out, err = _spamfilter("-m", swapped, "-p", stdin=SPAM_MSGS[0])  # one message, as the archive says
    assert (rc, err) == (EXIT_CODES[verdict.label], "")
    assert f"X-TextNB-Class: {verdict.label}\nX-TextNB-Score: {score_text(verdict)}\n" in out


@pytest.mark.parametrize("other, rebind", [("version 99", False), ("version 99", True), ("table model", False),
                                           ("table model", True), ("two headers", False)])
def test_a_compact_form_in_front_of_an_archive_the_full_reader_refuses_is_not_read(trained, tmp_path, other, rebind):
    """Found by a model-file hunt (session 50): an archive whose header says "version": 99
    was refused by every reader ("model format version 99 is newer than this textnb reads
    (2); upgrade textnb") but spamfilter's fast path, which classified; an archive of a table
    model behind the spam model's compact form was classified too (and the archive given a
    second ``header.json``, which the full reader now refuses). The compact form's reader
    compares the archive with the one it was written with, and checks its header as the full
    reader does (format version, the model's kind), so spamfilter says what the full reader
    says, also for a compact form bound to that archive (``rebind``: as a later textnb would
    write it)."""
    import io

    from conftest import CORPORA, read_model_file
    from textnb.cli.commands import main
    from textnb.core.errors import TextnbError

    model, test = trained
    block, header, arrays = _parts(model)
    extra = ()
    if other == "version 99":
        header["version"] = 99
    elif other == "two headers":
        extra = [("header.json", b"{}")]
    else:
        table = tmp_path / "table.tnb"
        assert main(["train", str(CORPORA / "weather.nominal.arff"), "-o", str(table)], stdout=io.StringIO(),
                    stderr=io.StringIO()) == 0
        header, arrays = read_model_file(table)
    bad = _framed(tmp_path / "bad.tnb", block, header, arrays, rebind=rebind, extra=extra)
    assert LiteFilter.load(bad) is None
    with pytest.raises(TextnbError) as info:
        SpamFilter.load(bad)
    if other == "version 99":
        assert "model format version 99 is newer than this textnb reads (2); upgrade textnb" in str(info.value)
    for argv in (["-m", bad], ["-m", bad, "--batch", test]):
        assert _spamfilter(*argv) == (3, "", f"spamfilter: {info.value}\n"), argv


def _old_frame(path, payload, model, header=None):
    """``model``'s archive behind ``payload`` in the frame of an earlier version (magic
    ``TNBFAST1``: the payload alone between the frame and the archive, one CRC over both),
    its header replaced by ``header`` when given."""
    import binascii
    import io
    import json
    import zipfile

    from textnb.core import compact

    buf = io.BytesIO()
    buf.write(bytes(compact.FRAME.size) + payload)  # (the archive's offsets count from the start of the file)
    with zipfile.ZipFile(model) as z, zipfile.ZipFile(buf, "w") as out:
        for info in z.infolist():
            data = z.read(info)
            if info.filename == "header.json" and header is not None:
                data = json.dumps(header).encode()
            out.writestr(info, data)
    data = buf.getvalue()[compact.FRAME.size:]
    path.write_bytes(compact.FRAME.pack(b"TNBFAST1", len(payload), compact.FRAME.size + len(data),
                                        binascii.crc32(data)) + data)
    return path


def test_a_model_of_an_earlier_frame_keeps_its_fast_path(trained, tmp_path):
    """A spam model written before the compact form was bound to its archive (magic
    ``TNBFAST1``) is still read through its compact form, its header checked as the full
    reader checks it (a model saved by an earlier version keeps its speed: with the first
    binding such files went to the full reader, numpy and all), with the same verdicts; one
    whose header the full reader refuses (a version 99) is not read there; saving it again
    writes the bound form."""
    import json
    import zipfile

    from textnb.core import compact, model_io

    model, test = trained
    payload = _parts(model)[0][:-compact.BINDING.size]
    old = _old_frame(tmp_path / "old.tnb", payload, model)
    assert LiteFilter.load(old) is not None
    assert _spamfilter("-m", old, "--batch", test) == _spamfilter("-m", model, "--batch", test)
    with zipfile.ZipFile(model) as z:
        header = json.loads(z.read("header.json"))
    newer = _old_frame(tmp_path / "newer.tnb", payload, model, {**header, "version": 99})
    assert LiteFilter.load(newer) is None
    assert _spamfilter("-m", newer, "--batch", test)[0] == 3
    model_io.save(model_io.load(old), tmp_path / "again.tnb")
    assert (tmp_path / "again.tnb").read_bytes() == model.read_bytes()


def test_verdict_is_an_immutable_value():
    v = Verdict("spam", 0.99, 4.6)
    assert v == Verdict("spam", 0.99, 4.6) != Verdict("ham", 0.99, 4.6)
    assert hash(v) == hash(Verdict("spam", 0.99, 4.6))
    assert repr(v) == "Verdict(label='spam', score=0.99, log_odds=4.6)"
    with pytest.raises(AttributeError):
        v.label = "ham"


# -- command lines ------------------------------------------------------------------------
@pytest.mark.parametrize("argv", [
    ["-m", "M", "--batch", "a", "b"], ["--model", "M", "-B", "a", "--log-odds"], ["-p"], ["-p", "-e", "-m", "M"],
    ["--batch", "x", "-p", "--exit-zero"], ["--passthrough"], [], ["-j", "1", "-B", "a"], ["--jobs", "4", "-B", "a"],
])
def test_fast_arguments_are_argparses(argv):
    fast = _fast_spam_args(argv)
    assert fast is not None
    assert vars(fast) == vars(_spam_parser().parse_args(argv))


@pytest.mark.parametrize("argv", [
    ["--bat", "a"], ["-m", ""], ["--model=M"], ["-mM"], ["-pe"], ["-m", "a", "-m", "b"], ["--batch"], ["--batch", "-"],
    ["-m", "-x"], ["--spam-cutoff", "0.9"], ["-h"], ["stray"], ["--batch", "a", "--", "b"], ["-p", "-p"],
    ["-j", "0"], ["-j", "5"], ["-j", "-1"], ["-j", "02"], ["-j"], ["-j2"], ["-j", "1", "-j", "2"],
])
def test_other_arguments_go_to_argparse(argv):
    assert _fast_spam_args(argv) is None


# -- what the fast paths import -------------------------------------------------------------
@pytest.mark.parametrize("mode", ["batch", "one"])
def test_default_model_paths_import_no_numpy(trained, mode):
    model, test = trained
    argv = ["-m", str(model), "--batch", str(test)] if mode == "batch" else ["-m", str(model), "-p"]
    code = ("import sys; from textnb.cli.mailcli import spamfilter; rc = spamfilter(%r); "
            "heavy = [m for m in ('numpy', 'scipy', 'sklearn', 'email.parser', 'email.policy', 'argparse', 'zipfile') if m in sys.modules]; "
            "sys.stderr.write('HEAVY %%r RC %%d\\n' %% (heavy, rc))" % (argv,))
    r = subprocess.run([sys.executable, "-S", "-c", code], input=SPAM_MSGS[0], capture_output=True,
                       env={**os.environ, "PYTHONPATH": str(REPO)}, cwd=str(REPO))
    assert b"HEAVY [] RC" in r.stderr, r.stderr.decode(errors="replace")
    if mode == "one":
        assert b"X-TextNB-Class: " in r.stdout and r.stdout.endswith(SPAM_MSGS[0].split(b"\n\n", 1)[1])


def test_text_messages_and_the_client_import_no_pattern_machinery(trained, tmp_path):
    """A batch of header-less texts (SMS) runs without re, json, contextlib, collections,
    array (docs/spam.md, "Speed"); the daemon client imports seven modules of the package (the
    package, apps, the client, the wire format it shares with the daemon, and the stop-signal
    rule every textnb program shares, core.signals, with core's package and lazy loader)."""
    model, _ = trained
    texts = tmp_path / "texts"
    texts.mkdir()
    for i, t in enumerate(["Free entry: win cheap pills now!!", "From the office: see you at 10.30 - ok?",
                           "ok lar... joking wif u oni", "visit http://cheap.example/win \u2026 \u20ac100"]):
        (texts / f"{i}.txt").write_text(t + "\n", encoding="utf-8")
    code = ("import sys; from textnb.cli.mailcli import spamfilter; rc = spamfilter(%r); "
            "heavy = [m for m in ('re', 'json', 'contextlib', 'collections', 'array', 'numpy') if m in sys.modules]; "
            "sys.stderr.write('HEAVY %%r RC %%d\\n' %% (heavy, rc))" % (["-m", str(model), "--batch", str(texts)],))
    r = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True,
                       env={**os.environ, "PYTHONPATH": str(REPO)}, cwd=str(REPO))
    assert b"HEAVY [] RC 0" in r.stderr, r.stderr.decode(errors="replace")
    assert r.stdout.count(b"\n") == 4
    code = ("import sys; before = set(sys.modules); sys.argv = ['spamfilter', '--socket', %r]; "
            "exec(open(%r).read().replace('if __name__ == \"__main__\":', 'if False:'), "
            "{'__file__': %r, '__name__': 'script'}); "
            "sys.stderr.write('NEW %%r\\n' %% sorted(m for m in set(sys.modules) - before if 'textnb' in m or m == 'os'))"
            % (str(tmp_path / "sock"), str(REPO / "scripts" / "spamfilter"), str(REPO / "scripts" / "spamfilter")))
    r = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True,
                       env={**os.environ, "PYTHONPATH": str(REPO)}, cwd=str(REPO))
    assert (b"NEW ['textnb', 'textnb.apps', 'textnb.apps.protocol', 'textnb.apps.spamclient', 'textnb.core', "
            b"'textnb.core.lazy', 'textnb.core.signals']") in r.stderr, r.stderr.decode(errors="replace")


@pytest.mark.slow
@pytest.mark.parametrize("argv", [["--help"], ["--spam-cutoff", "0.9"]])
def test_script_without_site_reads_the_other_options_too(trained, argv):
    """scripts/spamfilter starts Python with -S: a command line that argparse reads (its
    argument types need numpy, an installed package) turns the site module on first."""
    model, _ = trained
    r = subprocess.run([sys.executable, "-S", str(REPO / "scripts" / "spamfilter"), *argv, "-m", str(model)],
                       input=SPAM_MSGS[0], capture_output=True, env={**os.environ, "PYTHONPATH": ""}, cwd=str(REPO))
    assert b"internal error" not in r.stderr, r.stderr.decode(errors="replace")
    assert (r.returncode, b"usage: spamfilter" in r.stdout) == (0, True) if argv == ["--help"] else r.returncode in (0, 1, 2)


@pytest.mark.slow
def test_the_numpy_free_reader_accepts_no_file_the_main_reader_refuses(trained, tmp_path):
    """Issue 30.5: every byte of the compact form's frame and header, of each member's
    local ZIP header and of the central directory changed in turn; whenever the
    numpy-free reader accepts the file, the main loader accepts it too and gives the same
    verdicts (the CRC-32s of the frame and of the binding cover the whole file, so it accepts none)."""
    import struct

    from textnb.core.compact import FRAME
    from textnb.core.errors import TextnbError

    model, test = trained
    raw = model.read_bytes()
    msgs = [p.read_bytes() for p in sorted(test.iterdir())][:5]
    want = [v.log_odds for v in LiteFilter.load(model).classify(msgs)]
    offsets = set(range(FRAME.size + 64))
    pos = 0
    while True:
        pos = raw.find(b"PK\x03\x04", pos)
        if pos < 0:
            break
        n_name, n_extra = struct.unpack_from("<2H", raw, pos + 26)
        offsets.update(range(pos + 4, pos + 30 + n_name + n_extra))
        pos += 4
    cd = raw.find(b"PK\x01\x02")
    offsets.update(range(cd + 4, min(cd + 80, len(raw))))
    accepted = 0
    for k in sorted(offsets):
        bad = bytearray(raw)
        bad[k] ^= 0x20
        path = tmp_path / "mutant.tnb"
        path.write_bytes(bytes(bad))
        lite = LiteFilter.load(path)
        if lite is None:
            continue
        accepted += 1
        try:
            full = SpamFilter.load(path)
        except (TextnbError, OSError) as exc:
            pytest.fail(f"byte {k}: the numpy-free reader accepts a file the main loader refuses ({exc})")
        assert [v.log_odds for v in lite.classify(msgs)] == want
        assert list(full.log_odds(msgs)) == pytest.approx(want, rel=1e-12, abs=1e-12)
    assert accepted < len(offsets)


def test_compact_form_is_in_front_of_the_archive(trained, tmp_path):
    """The spam model's file: the compact form, then the ZIP archive that zipfile (and so
    every model reader) reads as before; a file without the compact form (written before
    it existed) is read by the one model reader, with the same output."""
    import zipfile

    from textnb.core import model_io
    from textnb.core.compact import MAGIC

    model, test = trained
    raw = model.read_bytes()
    assert raw.startswith(MAGIC) and zipfile.is_zipfile(model)
    with zipfile.ZipFile(model) as z:
        assert z.testzip() is None and "header.json" in z.namelist()
    scorer = model_io.load(model)
    old = tmp_path / "old.tnb"
    with zipfile.ZipFile(model) as z, zipfile.ZipFile(old, "w") as out:  # the archive alone
        for info in z.infolist():
            out.writestr(info, z.read(info))
    assert LiteFilter.load(old) is None and LiteFilter.load(model) is not None
    assert model_io.load(old).get_params() == scorer.get_params()
    outs = []
    for path in (model, old):
        r = subprocess.run([sys.executable, "-S", str(REPO / "scripts" / "spamfilter"), "-m", str(path), "--batch",
                            str(test)], capture_output=True, env={**os.environ, "PYTHONPATH": str(REPO)}, cwd=str(REPO))
        assert r.returncode == 0, r.stderr
        outs.append(r.stdout)
    assert outs[0] == outs[1] and outs[0].count(b"\n") == len(list(test.iterdir()))
    scorer.save(tmp_path / "again.tnb")
    assert (tmp_path / "again.tnb").read_bytes() == raw  # the same model, the same bytes


# -- the batch shared with forked processes ------------------------------------------------
def _mixed_mail_folder(root, n=300):
    """A folder of ``n`` files (SMS texts and the test mixtures), with an mbox, a Maildir,
    a subfolder, a dangling link, a link outside the folder and an empty file among them."""
    from conftest import SMS_TSV

    texts = [line.split("\t", 1)[1] for line in SMS_TSV.read_text(encoding="utf-8").splitlines()[:n] if "\t" in line]
    pool = SPAM_MSGS + HAM_MSGS
    box = root / "box"
    (box / "sub").mkdir(parents=True)
    for i, text in enumerate(texts):
        (box / ("sub" if i % 3 == 0 else "") / f"{i:04d}.txt").write_bytes(
            pool[i % len(pool)] if i % 10 == 0 else text.encode())
    (box / "0100.mbox").write_bytes(b"".join(b"From a@b.example Tue Dec  1 10:00:00 2026\n" + m + b"\n" for m in pool))
    for sub in ("cur", "new", "tmp"):
        (box / "maildir" / sub).mkdir(parents=True)
    (box / "maildir" / "new" / "1.eml").write_bytes(SPAM_MSGS[0])
    (box / "0150.missing").symlink_to(root / "nowhere")
    outside = root / "outside.eml"
    outside.write_bytes(HAM_MSGS[0])
    (box / "0200.outside").symlink_to(outside)
    (box / "0250.empty").write_bytes(b"")
    return box


@pytest.mark.parametrize("kind", ["fisher", "boolean"])
def test_batch_paths_give_the_stream_readers_verdicts_and_errors_in_place(tmp_path, kind):
    """classify_paths (listing, chunks, forked helpers) against the one-at-a-time stream
    of iter_messages: the same (source, verdict) sequence, each error at the same place
    among them, for 1, 2 and 3 processes, with the numpy filter and the numpy-free one."""
    model, _ = _train(tmp_path, kind)
    box = _mixed_mail_folder(tmp_path)
    missing = tmp_path / "no-such-folder"
    for sf in (LiteFilter.load(model), SpamFilter.load(model)):
        events = []  # what iter_messages reads, each error where it reports it
        for path in (box, missing, box / "0100.mbox"):
            try:
                for pair in iter_messages(path, on_error=lambda e: events.append(("error", e))):
                    events.append(pair)
            except InputError as exc:  # the missing PATH itself
                events.append(("error", str(exc)))
        verdicts = iter(sf.classify([data for kind, data in events if kind != "error"]))
        expected = [e if e[0] == "error" else (e[0], next(verdicts)) for e in events]
        errors = [e for e in expected if e[0] == "error"]
        assert len(errors) == 4 and len(expected) > 300  # (the empty file is one)
        for n_jobs in (1, 2, 3, None):
            got = []
            got += sf.classify_paths([box, missing, box / "0100.mbox"], n_jobs=n_jobs,
                                     on_error=lambda e: got.append(("error", e)))
            assert got == expected


def test_spamfilter_batch_output_is_the_same_in_one_or_more_processes(tmp_path, capsysbinary):
    model, _ = _train(tmp_path)
    box = _mixed_mail_folder(tmp_path)
    outputs = set()
    for jobs in ("1", "2", "3"):
        stdin = __import__("io").BytesIO(HAM_MSGS[1])
        code = filter_main(["-m", str(model), "--log-odds", "-j", jobs, "--batch", str(box), "-", str(box / "sub")],
                           stdin=stdin)
        out = capsysbinary.readouterr()
        outputs.add((code, out.out, out.err))
    (code, out, err), = outputs
    assert code == 3 and out.count(b"\n") > 400 and b"-\tham\t" in out
    assert err.count(b"\n") == 3 and b"0150.missing" in err and b"0200.outside" in err
    assert b"0250.empty: empty message" in err


@pytest.mark.parametrize("kind", ["fisher", "multinomial"])
def test_training_from_folders_is_the_same_in_one_or_two_processes(tmp_path, monkeypatch, kind, forked_pids):
    """spamfilter --train-*: the folders are read and tokenised by map_messages (in a forked
    helper too): the model file is byte for byte the one process's."""
    from conftest import SMS_TSV

    from textnb.core import forkmap
    from textnb.io import mailread

    rows = [line.split("\t", 1) for line in SMS_TSV.read_text(encoding="utf-8").splitlines()[:600] if "\t" in line]
    for label in ("spam", "ham"):
        (tmp_path / label).mkdir()
    for i, (label, text) in enumerate(rows):
        (tmp_path / label / f"{i:04d}.txt").write_bytes(text.encode() if i % 7 else SPAM_MSGS[i % 3] + text.encode())
    assert len(list((tmp_path / "ham").iterdir())) >= 128  # enough files for a helper
    monkeypatch.setattr(forkmap, "cpu_count", lambda: 2)
    files = {}
    for spare in (0, 1):
        monkeypatch.setattr(mailread, "spare_cpus", lambda now=False, spare=spare: spare)
        files[spare] = tmp_path / f"m{spare}.tnb"
        counts = train_model(files[spare], [tmp_path / "spam"], [tmp_path / "ham"], kind=kind)
        assert bool(forked_pids) == bool(spare)  # a helper read the ham folder (the spam one is small)
    assert counts["spam"] + counts["ham"] == len(rows)
    assert files[0].read_bytes() == files[1].read_bytes()


@pytest.mark.parametrize("kind, unread", [("fisher", False), ("fisher", True), ("geometric", False)])
def test_batch_forks_its_helper_once_the_model_is_loaded(tmp_path, monkeypatch, capsysbinary, kind, unread,
                                                         forked_pids):
    """``--batch``: the model is loaded before any helper is forked, by the numpy-free
    path (the default model's compact form) or by the full loader (``unread``: the
    numpy-free path does not read the form after all; a model without one, geometric), so
    the one helper holds the model and sends verdicts; the lines are the numpy filter's,
    and the helper is reaped."""
    from textnb.cli import mailfilters
    from textnb.core import forkmap
    from textnb.io import mailread

    model, _ = _train(tmp_path, kind)
    box = _mixed_mail_folder(tmp_path)
    expected = []
    for source, v in SpamFilter.load(model).classify_paths([box], n_jobs=1, on_error=lambda e: None):
        expected.append(f"{source}\t{v.label}\t{score_text(v)}\t{v.score!r}\n".encode())
    monkeypatch.setattr(mailread, "spare_cpus", lambda now=False: 1)
    monkeypatch.setattr(forkmap, "cpu_count", lambda: 2)
    pids = forked_pids
    if unread:
        monkeypatch.setattr(LiteFilter, "from_payload", classmethod(lambda cls, payload, **kw: None))
    forked_at_load, load = [], mailfilters._load

    def recording_load(*args, **kwargs):
        sf = load(*args, **kwargs)
        forked_at_load.append(len(pids))
        assert isinstance(sf, LiteFilter) == (kind == "fisher" and not unread)
        return sf

    monkeypatch.setattr(mailfilters, "_load", recording_load)
    assert filter_main(["-m", str(model), "--log-odds", "--batch", str(box)]) == 3
    out = capsysbinary.readouterr()
    assert out.out == b"".join(expected) and out.err.count(b"\n") == 3
    assert forked_at_load == [0] and len(pids) == 1  # loaded, then one helper forked
    for pid in pids:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


def test_large_mbox_batch_and_training_are_the_same_in_one_or_more_processes(tmp_path, monkeypatch, capsysbinary,
                                                                             forked_pids):
    """An mbox file large enough to be read in pieces: ``--batch`` prints the same lines
    and ``--train-*`` writes the same model byte for byte with ``-j 1`` (one reader) as
    with helpers sharing its pieces."""
    from textnb.io import mailread

    model, _ = _train(tmp_path)
    spam_box, ham_box = tmp_path / "spam.mbox", tmp_path / "ham.mbox"
    for box, msgs in ((spam_box, SPAM_MSGS), (ham_box, HAM_MSGS)):
        box.write_bytes(b"".join(b"From a@b.example Tue Dec  1 10:00:00 2026\n" + msgs[i % len(msgs)]
                                 + b"\nline %d\n\n" % i for i in range(200)))
    (tmp_path / "all.mbox").write_bytes(spam_box.read_bytes() + ham_box.read_bytes())
    monkeypatch.setattr(mailread, "_PIECE_FROM", 1)
    monkeypatch.setattr(mailread, "_PIECE_BYTES", 4096)
    assert len(mailread._mbox_pieces(str(spam_box), spam_box.stat().st_size)) > 4
    outputs, models = set(), set()
    for jobs in ("1", "2", "3"):
        code = filter_main(["-m", str(model), "--log-odds", "-j", jobs, "--batch", str(tmp_path / "all.mbox")])
        out = capsysbinary.readouterr()
        outputs.add((code, out.out, out.err))
        trained = tmp_path / f"trained{jobs}.tnb"
        assert filter_main(["-m", str(trained), "-j", jobs, "--train-spam", str(spam_box),
                            "--train-ham", str(ham_box)]) == 0
        assert b"on 200 spam and 200 ham messages" in capsysbinary.readouterr().err
        models.add(trained.read_bytes())
    (code, out, err), = outputs
    assert code == 0 and out.count(b"\n") == 400 and out.startswith(f"{tmp_path / 'all.mbox'}:1\t".encode())
    assert len(models) == 1 and forked_pids


class _Writes(__import__("io").BytesIO):
    """A binary stdout that counts its writes; a terminal when ``tty``."""

    def __init__(self, tty):
        super().__init__()
        self.tty, self.writes = tty, 0

    def write(self, data):
        self.writes += 1
        return super().write(data)

    def isatty(self):
        return self.tty


def test_batch_writes_its_lines_in_blocks_except_on_a_terminal(tmp_path, monkeypatch):
    """Under PYTHONUNBUFFERED (or any unbuffered stdout) a line per write would be a system
    call per message: --batch writes blocks of lines itself, and one line at a time only
    to a terminal (where a person watches them come)."""
    monkeypatch.setenv("PYTHONUNBUFFERED", "1")
    model, _ = _train(tmp_path)
    box = _mixed_mail_folder(tmp_path)
    outputs = {}
    for tty in (False, True):
        out = _Writes(tty)
        assert filter_main(["-m", str(model), "-j", "1", "--batch", str(box)], stdout=out,
                           stderr=__import__("io").StringIO()) == 3
        outputs[tty] = out
    lines = outputs[False].getvalue().count(b"\n")
    assert lines > 300 and outputs[True].getvalue() == outputs[False].getvalue()
    assert outputs[False].writes <= -(-lines // 256) and outputs[True].writes == lines


@pytest.mark.parametrize("method, weights, max_tokens, usable", [
    ("fisher", ([-0.5, -20.7], [-1e-9, -3.0], [0.1, 0.4]), None, True),
    ("fisher", ([-0.5, float("nan")], [-1e-9, -3.0], [0.1, 0.4]), None, False),
    ("fisher", ([-0.5, -1.0], [float("-inf"), -3.0], [0.1, 0.4]), None, False),
    ("fisher", ([-0.5, 0.25], [-1e-9, -3.0], [0.1, 0.4]), None, False),  # ln f > 0: f > 1
    ("fisher", ([-0.5, -1e6], [-1e-9, -3.0], [0.1, 0.4]), None, False),
    ("fisher", ([-0.5, -1.0], [-1e-9, -3.0], [float("nan"), 0.4]), None, True),  # (|f - 1/2| never read)
    ("fisher", ([-0.5, -1.0], [-1e-9, -3.0], [float("nan"), 0.4]), 1, False),
    ("fisher", ([-0.5, -1.0], [-1e-9, -3.0], [-0.1, 0.4]), 1, False),
    ("fisher", ([-0.5, -1.0], [-1e-9, -3.0], [0.0, 0.5]), 1, True),
    ("multinomial", ([-30.0, 12.5],), None, True),
    ("multinomial", ([-30.0, float("inf")],), None, False),
    ("multinomial", ([-30.0, 1e6],), None, False),
    ("multinomial", ([-1e6, 0.0],), None, False),
])
def test_the_compact_form_s_weights_are_checked_before_use(method, weights, max_tokens, usable):
    """A compact form whose CRC was recomputed over crafted weights: a NaN, an infinity or
    a weight outside its bounds (for Fisher's ln f and ln(1 - f): negative and above -2**17;
    |f - 1/2| in [0, 2) when it ranks tokens; multinomial ratios within +-2**17) makes the
    numpy-free path step aside (the full loader decides), so no scoring loop ever sees
    one; weights in range load and score."""
    from textnb.apps.spamlite import LiteScorer, encode_compact

    scorer = LiteScorer(["a", "b"], weights, method=method, max_tokens=max_tokens)
    lite = LiteFilter.from_payload(bytearray(encode_compact(scorer)))
    assert (lite is not None) == usable
    if usable:
        assert lite.scorer.tokens == ["a", "b"]
        assert math.isfinite(lite.scorer.log_odds(["a", "b"]))


def _mboxrd(messages):
    """An mbox of ``messages`` as an mboxrd writer appends them: a From line each, and
    every line ``>*From `` of a message quoted with one more ``>`` (its own first From
    line too)."""
    import re

    return b"".join(b"From textnb@localhost Thu Jan  1 00:00:00 1970\n"
                    + re.sub(rb"(?m)^(>*From )", rb">\1", m) + b"\n" for m in messages)


@pytest.mark.parametrize("quotes", [b">", b">>"])
def test_a_quoted_from_line_at_the_start_of_a_message_is_dropped_as_the_unquoted_one(quotes):
    """A message file that starts with its mbox From line, appended to an mbox: the writer
    quotes that line (``>From ...``) and the mbox reader keeps the quote. It is dropped
    as the unquoted line is, so the header is read: before, ``>From ...`` was the first
    body line and the header fields body text (spam read as ham or unsure)."""
    for m in SPAM_MSGS + HAM_MSGS:
        filed = b"From win@cheap.example  Thu Aug 22 12:36:23 2002\n" + m
        quoted = quotes + filed
        assert mt.message_tokens(quoted) == mt.message_tokens(filed) == mt.message_tokens(m)
        assert mt.message_text(quoted) == mt.message_text(m)
        end, end_filed = mt.header_end(quoted)[0], mt.header_end(filed)[0]
        assert end == end_filed is None or end - len(quotes) == end_filed
    for text in (b">From here to there at 10:30\n", b"> From a@b.example Mon Jan  1 00:00:00 2024\nhi\n"):
        assert "from" in mt.message_tokens(text)  # (not a From line: text, as the unquoted one)


def test_files_and_the_mbox_they_were_appended_to_get_the_same_verdicts(tmp_path, capsysbinary):
    """``--batch`` over message files that start with their From line (as SpamAssassin's
    corpus) and over an mbox of the same files (mboxrd quoting): the same verdicts, in
    one process or more, and ``-p`` adds its fields to the message's own header."""
    model, _ = _train(tmp_path)
    folder = tmp_path / "files"
    folder.mkdir()
    messages = [b"From win@cheap.example  Thu Aug 22 12:36:23 2002\n" + m for m in SPAM_MSGS + HAM_MSGS]
    for i, m in enumerate(messages):
        (folder / f"{i}.eml").write_bytes(m)
    (tmp_path / "all.mbox").write_bytes(_mboxrd(messages))
    columns = {}
    for path in (folder, tmp_path / "all.mbox"):
        for jobs in ("1", "2"):
            assert filter_main(["-m", str(model), "-j", jobs, "--batch", str(path)]) == 0
            lines = capsysbinary.readouterr().out.splitlines()
            columns.setdefault(path, set()).add(tuple(line.split(b"\t", 1)[1] for line in lines))
    (by_file,), (by_mbox,) = columns.values()
    assert len(by_file) == len(messages) and by_mbox == by_file
    quoted = b">" + messages[0]
    assert filter_main(["-m", str(model), "-p"], stdin=__import__("io").BytesIO(quoted)) == 0
    out = capsysbinary.readouterr().out
    assert out.startswith(quoted.split(b"\n\n", 1)[0] + b"\nX-TextNB-Class: spam\n")


def _batch_whatever_the_jobs(capsysbinary, *argv):
    """``(exit status, stdout, stderr)`` of ``spamfilter ARGV`` with ``-j 1``, ``2`` and ``3``,
    checked to be the same bytes whatever the number of processes."""
    outputs = set()
    for jobs in ("1", "2", "3"):
        code = filter_main([*argv, "-j", jobs])
        out = capsysbinary.readouterr()
        outputs.add((code, out.out, out.err))
    (code, out, err), = outputs
    return code, out, err



def test_pieces_of_a_bare_cr_mbox_read_its_lf_messages_as_one_reader_does(tmp_path, monkeypatch, capsysbinary,
                                                                             forked_pids):
    """An old Mac mbox (its first lines end with a bare CR) holding messages with LF line
    ends too: one reader splits it at every From line (CR and LF ends alike, as the file's
    first line tells). A piece starting at a LF message was split as a LF file, its CR
    messages taken as one (a 1 MB such mbox: 6,799 lines with -j 1, 5,994 with -j 2). Each piece is
    now read with the file's line ends."""
    from textnb.io import mailread

    model, _ = _train(tmp_path)
    box = tmp_path / "mac.mbox"
    box.write_bytes(b"".join(
        (b"From a@b.example Tue Dec  1 10:00:00 2026\n" + msgs[i % 3] + b"\nline %d\n\n" % i).replace(
            b"\n", b"\r" if i // 20 % 2 == 0 else b"\n")
        for i, msgs in ((i, (SPAM_MSGS, HAM_MSGS)[i % 2]) for i in range(200))))
    monkeypatch.setattr(mailread, "_PIECE_FROM", 1)
    monkeypatch.setattr(mailread, "_PIECE_BYTES", 4096)
    pieces = mailread._mbox_pieces(str(box), box.stat().st_size)
    assert any(box.read_bytes()[start:start + 60].count(b"\n") for start, _ in pieces)  # a piece starts at a LF one
    code, out, err = _batch_whatever_the_jobs(capsysbinary, "-m", str(model), "--batch", str(box))
    assert code == 0 and out.count(b"\n") == 200 and forked_pids


def test_an_empty_message_of_an_mbox_is_reported_in_its_place_in_one_or_more_processes(tmp_path, monkeypatch,
                                                                                        capsysbinary, forked_pids):
    """A message of an mbox file that holds nothing but white space (a From line, then a
    blank line) is refused as an empty file is (``FILE:N: empty message``, exit 3 at the
    end), in its place, and the messages after it are read on and keep their numbers,
    also when the file is read in pieces and the empty message starts a piece or ends
    the file. Before, it was scored (``unsure 0.0``) and learnt."""
    from textnb.io import mailread

    model, _ = _train(tmp_path)
    from_line = b"From a@b.example Tue Dec  1 10:00:00 2026\n"
    box = tmp_path / "all.mbox"

    def write(empty):
        box.write_bytes(b"".join(from_line + (b" \n" if i in empty else (SPAM_MSGS + HAM_MSGS)[i % 6] + b"line %d\n" % i)
                                 + b"\n" for i in range(200)))
        return [start for start, _ in mailread._mbox_pieces(str(box), box.stat().st_size)]

    monkeypatch.setattr(mailread, "_PIECE_FROM", 1)
    monkeypatch.setattr(mailread, "_PIECE_BYTES", 2048)
    fourth = write({7, 8})[3]
    third = box.read_bytes().count(from_line, 0, fourth)  # the message that starts the fourth piece
    empty = {7, 8, third, third + 1, 199}
    assert write(empty)[3] == fourth == box.read_bytes().index(from_line + b" \n\n" + from_line + b" \n\n", 2048)
    code, out, err = _batch_whatever_the_jobs(capsysbinary, "-m", str(model), "--batch", str(box))
    assert code == 3 and forked_pids
    assert err.decode().splitlines() == [f"spamfilter: {box}:{i + 1}: empty message" for i in sorted(empty)]
    numbers = [int(line.split(b"\t")[0].rsplit(b":", 1)[1]) for line in out.splitlines()]
    assert numbers == [i + 1 for i in range(200) if i not in empty]
    assert filter_main(["-m", str(tmp_path / "new.tnb"), "--train-spam", str(box), "--train-ham", str(box)]) == 3
    assert f"{box}:8: empty message".encode() in capsysbinary.readouterr().err and not (tmp_path / "new.tnb").exists()


def _series_to_the_end(m, k, upper):
    """``log sum m^i / i!`` over ``i >= k`` or ``i < k`` as ``_log_poisson_tail`` adds it
    (from the term next to ``k`` outwards, each term the one before times ``m / i`` or
    ``i / m``), one term at a time, never stopped early: far past any term that matters."""
    i = k if upper else k - 1
    total = t = 1.0
    if upper:
        for j in range(i + 1, i + 4 * k + 2000):
            t *= m / j
            total += t
    else:
        for j in range(i, 0, -1):
            t *= j / m
            total += t
    return i * math.log(m) - math.lgamma(i + 1.0) + math.log(total)


@settings(max_examples=400, deadline=None)
@given(st.integers(1, 600), st.floats(-4.0, 4.0))
def test_the_chi_square_series_stops_where_later_terms_add_nothing(k, spread):
    # the series stops (four terms between two tests) at the float the whole series gives
    from textnb.apps.spamlite import _log_poisson_tail, log_chi2_even_1

    m = k * math.exp(spread)
    upper = m < k
    assert _log_poisson_tail(m, math.log(m), k, upper) == _series_to_the_end(m, k, upper)
    log_p, log_q = log_chi2_even_1(2.0 * m, k)
    assert log_p <= 0.0 and log_q <= 0.0
    assert math.isclose(math.exp(log_p) + math.exp(log_q), 1.0, rel_tol=1e-12)


def test_the_chi_square_tails_are_scipy_s():
    scipy_stats = pytest.importorskip("scipy.stats")
    from textnb.apps.spamlite import log_chi2_even_1

    for k in (1, 2, 3, 7, 10, 31, 100, 400):
        for x in (0.01, 0.5, 1.0, k / 2, k, 2.0 * k - 1, 2.0 * k, 2.0 * k + 3, 4.0 * k, 8.0 * k + 20):
            for ours, theirs in zip(log_chi2_even_1(x, k),
                                    (scipy_stats.chi2.logcdf(x, 2 * k), scipy_stats.chi2.logsf(x, 2 * k))):
                if theirs == -math.inf:  # below a double's range there: ours is still a number
                    assert -math.inf < ours < -708.0
                else:
                    assert math.isclose(ours, theirs, rel_tol=1e-9, abs_tol=1e-12)
