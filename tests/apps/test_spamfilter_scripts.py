"""The spamfilter and topicfilter command lines (in-process, plus a few real script runs)."""

import base64
import io
import math
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

import textnb
from textnb.apps.filtering import EXIT_ERROR
from textnb.cli.mailfilters import filter_main
from textnb.cli.topicfilter import topic_main

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = REPO / "scripts"
SPAM_WORDS = "viagra cheap offer winner prize casino pills discount".split()
HAM_WORDS = "meeting project schedule report review agenda budget minutes".split()


def mail(words, rng, n=12):
    body = " ".join(rng.choice(words) for _ in range(n))
    subject = " ".join(rng.choice(words) for _ in range(3))
    return f"From: x@example.com\nSubject: {subject}\n\n{body}\n".encode()


def run(argv, stdin=b""):
    out, err = io.BytesIO(), io.StringIO()
    code = filter_main(argv, stdin=io.BytesIO(stdin), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    rng = random.Random(0)
    root = tmp_path_factory.mktemp("cli")
    for label, words in (("spam", SPAM_WORDS), ("ham", HAM_WORDS)):
        (root / label).mkdir()
        for i in range(25):
            (root / label / f"{i}.eml").write_bytes(mail(words, rng))
    model = root / "spam.tnb"
    code, _, err = run(["-m", str(model), "--train-spam", str(root / "spam"), "--train-ham", str(root / "ham")])
    assert code == 0, err
    assert "25 spam and 25 ham" in err
    return root, model


def test_exit_codes_are_verdicts(trained):
    root, model = trained
    rng = random.Random(1)
    assert run(["-m", str(model)], mail(SPAM_WORDS, rng))[0] == 0
    assert run(["-m", str(model)], mail(HAM_WORDS, rng))[0] == 1
    # everything is unsure when the unsure zone is (0, 1)
    assert run(["-m", str(model), "--spam-cutoff", "1", "--ham-cutoff", "0"], b"Subject: zzz\n\nqqq\n")[0] == 2


@pytest.mark.parametrize("kind", ["multinomial", "complement", "discriminative"])
def test_alpha_below_the_floor_is_one_warning_line_in_textnb_train_s_words(trained, tmp_path, kind):
    """``--alpha 0`` with a smoothed kind: spamfilter printed the estimator's UserWarning as
    Python shows it (its file, line number and source line; "use force_alpha=True", a library
    parameter), and for ``discriminative`` nothing; now one line in textnb train's words (the
    rule both apply, ``textnb.meta.registry.floor_alpha``), and the model uses 1e-10."""
    root, _ = trained
    model = tmp_path / f"{kind}.tnb"
    code, _, err = run(["-m", str(model), "--kind", kind, "--alpha", "0", "--train-spam", str(root / "spam"),
                        "--train-ham", str(root / "ham")])
    assert code == 0, err
    warnings = [line for line in err.splitlines() if "warning" in line.lower()]
    assert warnings == ["spamfilter: warning: --alpha 0 is raised to 1e-10 for a count model (a term unseen in a "
                        "class would make its probability 0)"], err
    assert "UserWarning" not in err and ".py:" not in err
    assert textnb.load(model).model_.get_params()["alpha"] == 1e-10


def test_the_discriminative_kind_on_the_command_line(trained, tmp_path):
    """``--kind discriminative``: trained from spam and ham at once (the documents' default
    model over the mail reader's tokens), it classifies and adds its headers as any kind,
    registers a message, and refuses in one line (exit 3, the model file as it was) what it
    cannot do: forget a message, or be created by a first registration."""
    root, _ = trained
    model = tmp_path / "d.tnb"
    code, _, err = run(["-m", str(model), "--kind", "discriminative", "--train-spam", str(root / "spam"),
                        "--train-ham", str(root / "ham")])
    assert code == 0 and "25 spam and 25 ham" in err, err
    assert textnb.load(model).input_ == "mail-tokens"
    # textnb inspect says what its documents are (an added --json key, "input"), from the file
    # and from the estimator alike; a model of plain documents has none
    import json

    from textnb.cli.commands import main
    from textnb.evaluation.explain import describe_text_classifier

    out = io.StringIO()
    assert main(["inspect", str(model), "--json"], stdout=out, stderr=io.StringIO()) == 0
    assert json.loads(out.getvalue())["input"] == "mail-tokens"
    assert describe_text_classifier(textnb.load(model))["input"] == "mail-tokens"
    out = io.StringIO()
    assert main(["inspect", str(model)], stdout=out, stderr=io.StringIO()) == 0
    assert "documents: messages, read as spamfilter reads them (the mail reader's tokens" in out.getvalue()
    plain = textnb.TextClassifier().fit(["cheap pills now", "lunch at noon"] * 30, ["spam", "ham"] * 30)
    assert "input" not in describe_text_classifier(plain)
    rng = random.Random(3)
    assert run(["-m", str(model)], mail(SPAM_WORDS, rng))[0] == 0
    assert run(["-m", str(model)], mail(HAM_WORDS, rng))[0] == 1
    code, out, _ = run(["-m", str(model), "-p"], mail(SPAM_WORDS, rng))
    assert code == 0 and b"X-TextNB-Class: spam" in out
    message = mail(HAM_WORDS + ["zzfreshword"], rng)
    assert run(["-m", str(model), "--register-ham"], message)[0] == 0
    before = model.read_bytes()
    code, out, err = run(["-m", str(model), "--unregister-ham"], message)
    assert code == EXIT_ERROR and out == b"" and err.count("\n") == 1
    assert "cannot unregister as ham: forget needs a model of plain sums" in err
    assert model.read_bytes() == before
    code, _, err = run(["-m", str(tmp_path / "new.tnb"), "--kind", "discriminative", "--register-spam"],
                       mail(SPAM_WORDS, rng))
    assert code == EXIT_ERROR and err.count("\n") == 1
    assert "a discriminative model is made from spam and ham together: train it first" in err
    assert not any(p.name.startswith("new.tnb") for p in tmp_path.iterdir())  # (no lock file either)


def test_passthrough_adds_headers_and_keeps_the_message(trained):
    _, model = trained
    msg = mail(SPAM_WORDS, random.Random(2))
    code, out, _ = run(["-m", str(model), "-p"], msg)
    assert code == 0
    head, body = out.split(b"\n\n", 1)
    assert b"\nX-TextNB-Class: spam\nX-TextNB-Score: " in head and b"\nX-TextNB-Log-Odds: " in head
    fields = dict(line.split(": ", 1) for line in head.decode().splitlines() if line.startswith("X-TextNB-"))
    # the score is the log-odds at full precision: it never saturates at 1.000000
    assert float(fields["X-TextNB-Score"]) > 0
    assert round(float(fields["X-TextNB-Score"]), 4) == float(fields["X-TextNB-Log-Odds"])
    assert msg.split(b"\n\n", 1)[1] == body
    code, out, _ = run(["-m", str(model), "-p", "-e"], mail(HAM_WORDS, random.Random(3)))
    assert code == 0 and b"X-TextNB-Class: ham" in out


def test_batch_lines(trained, tmp_path):
    root, model = trained
    box = tmp_path / "box"
    rng = random.Random(4)
    box.write_bytes(b"".join(b"From a@b Mon Jan  1 00:00:00 2024\n" + mail(w, rng) + b"\n"
                             for w in (SPAM_WORDS, HAM_WORDS)))
    code, out, err = run(["-m", str(model), "--batch", str(box), str(root / "ham" / "0.eml"), "--log-odds"])
    assert code == 0, err
    lines = [line.split("\t") for line in out.decode().splitlines()]
    assert [(s, v) for s, v, _, _ in lines] == [(f"{box}:1", "spam"), (f"{box}:2", "ham"),
                                                (str(root / "ham" / "0.eml"), "ham")]
    # the score column is the log-odds (full precision), the fourth column P(spam)
    assert all(float(p) == pytest.approx(1 / (1 + math.exp(-float(score)))) for _, _, score, p in lines)
    assert float(lines[0][2]) > 0 > float(lines[1][2])



def test_bare_cr_mail_with_from_lines_passthrough_and_batch(trained, tmp_path):
    """Bare-CR line ends (old Mac): ``-p`` on a message starting with an mbox From line put
    the fields after the body (the whole message was the From line) and scored no token;
    ``--batch`` on an mbox file of such lines saw one message."""
    root, model = trained
    rng = random.Random(5)
    spam, ham = mail(SPAM_WORDS, rng).replace(b"\n", b"\r"), mail(HAM_WORDS, rng).replace(b"\n", b"\r")
    from_line = b"From a@b Mon Jan  1 00:00:00 2024\r"
    code, out, _ = run(["-m", str(model), "-p"], from_line + spam)
    assert code == 0
    head, body = out.split(b"\r\r", 1)
    assert head.startswith(from_line + b"From: x@example.com\r") and head.endswith(b"\rX-TextNB-Log-Odds: "
                                                                                   + head.rsplit(b" ", 1)[1])
    assert b"\rX-TextNB-Class: spam\r" in head and body == spam.split(b"\r\r", 1)[1]
    box = tmp_path / "mac.mbox"
    box.write_bytes(from_line + spam + b"\r" + from_line + ham)
    code, out, err = run(["-m", str(model), "--batch", str(box)])
    assert code == 0, err
    assert [line.split("\t")[:2] for line in out.decode().splitlines()] == [[f"{box}:1", "spam"], [f"{box}:2", "ham"]]



def test_name_value_fields_passthrough(trained):
    """``Name:value`` fields (no blank after the colon, RFC 5322): ``-p`` removes forged
    X-TextNB-* fields after such a line and adds its own at the end of the header; a first
    line ``From:x@example.com`` is the header's, not the body's."""
    _, model = trained
    msg = mail(SPAM_WORDS, random.Random(6)).replace(b"From: ", b"From:", 1)
    head, body = msg.split(b"\n\n", 1)
    forged = head + b"\nFoo:bar\nX-TextNB-Class: ham\nX-TextNB-Score: -9\n\n" + body
    code, out, _ = run(["-m", str(model), "-p"], forged)
    assert code == 0
    assert out.split(b"\n\n", 1) == [head + b"\nFoo:bar\nX-TextNB-Class: spam\nX-TextNB-Score: "
                                      + out.split(b"X-TextNB-Score: ")[1].split(b"\n\n")[0], body]
    code, out, _ = run(["-m", str(model), "-p"], msg)
    assert code == 0 and out.startswith(head + b"\nX-TextNB-Class: spam\n") and out.endswith(b"\n\n" + body)


def test_batch_log_odds_adds_the_probability_not_a_copy(trained, tmp_path):
    """``--batch --log-odds`` printed the score column's log-odds again, rounded, as a
    fourth column. Now the score column is unchanged and the fourth is P(spam) at full
    precision (bogofilter -b's spamicity): the two numbers of the daemon's OK reply and of
    the library's Verdict, and the -p header's score is the third column."""
    from textnb.apps.filtering import SpamFilter
    from textnb.apps.protocol import parse_spam_reply, spam_reply

    root, model = trained
    paths = [str(root / "spam" / "0.eml"), str(root / "ham" / "0.eml")]
    plain = [line.split("\t") for line in run(["-m", str(model), "--batch", *paths])[1].decode().splitlines()]
    code, out, err = run(["-m", str(model), "--batch", *paths, "--log-odds"])
    assert code == 0, err
    lines = [line.split("\t") for line in out.decode().splitlines()]
    assert [row[:3] for row in lines] == plain  # the first three columns as without the flag
    verdicts = SpamFilter.load(model).classify([Path(p).read_bytes() for p in paths])
    for (source, label, score, proba), path, v in zip(lines, paths, verdicts):
        assert (source, label) == (path, v.label)
        assert float(score) == v.log_odds and float(proba) == v.score  # full precision, both
        assert float(proba) != round(float(score), 4) and 0.0 <= float(proba) <= 1.0
        _, _, reply_score, reply_log_odds, _ = parse_spam_reply(spam_reply(0, v).split(b"\n")[0])
        assert (float(proba), float(score)) == (float(reply_score), float(reply_log_odds))
        head = run(["-m", str(model), "-p"], Path(path).read_bytes())[1].split(b"\n\n")[0].decode()
        assert f"X-TextNB-Score: {score}" in head.splitlines()


def test_register_from_stdin_and_paths(trained, tmp_path):
    root, model = trained
    path = tmp_path / "m.tnb"
    path.write_bytes(model.read_bytes())
    before = textnb.load(path).class_count_.tolist()
    msg = b"Subject: hello\n\nunusualword\n"
    assert run(["-m", str(path), "--register-spam"], msg)[0] == 0
    assert run(["-m", str(path), "--register-ham", str(root / "ham" / "1.eml"), str(root / "ham" / "2.eml")])[0] == 0
    assert textnb.load(path).class_count_.tolist() == [before[0] + 2, before[1] + 1]
    assert run(["-m", str(path), "--unregister-spam", "--register-ham"], msg)[0] == 0
    assert textnb.load(path).class_count_.tolist() == [before[0] + 3, before[1]]
    code, _, err = run(["-m", str(path), "--unregister-spam"], b"Subject: never\n\nneverseen\n")
    assert code == EXIT_ERROR and "cannot unregister" in err


@pytest.mark.parametrize("argv,stdin,expect", [
    (["-m", "/nonexistent/spam.tnb"], b"Subject: x\n\ny\n", "no such model file"),
    (["--spam-cutoff", "0.3", "--ham-cutoff", "0.6"], b"x", "above the spam cut-off"),
    (["--spam-cutoff", "2"], b"x", ">= 0.0 and <= 1.0"),
    (["--batch", "/x", "--train-spam", "/y"], b"", "choose one of"),
    (["--train-spam", "/y"], b"", "needs both"),
    (["--bogus"], b"", "unrecognized arguments"),
])
def test_errors_are_one_line(trained, argv, stdin, expect):
    _, model = trained
    if "-m" not in argv:
        argv = ["-m", str(model)] + argv
    code, _, err = run(argv, stdin)
    assert code == EXIT_ERROR
    assert expect in err and err.count("\n") == 1 and "Traceback" not in err


def test_empty_message_rejected_but_passthrough_keeps_it(trained):
    _, model = trained
    code, out, err = run(["-m", str(model)], b"")
    assert code == EXIT_ERROR and "empty message" in err
    code, out, err = run(["-m", "/nonexistent.tnb", "-p"], b"Subject: keep me\n\nbody\n")
    assert code == EXIT_ERROR and out == b"Subject: keep me\n\nbody\n"


@pytest.mark.parametrize("argv", [
    ["-m", "/nonexistent.tnb", "-p", "--batch", "HAM"],  # an error of the run (no model)
    ["-p", "-m", "/nonexistent.tnb", "-B", "HAM"],
    ["--passthrough", "-m", "/nonexistent.tnb", "--batch=HAM"],
    ["-m", "/nonexistent.tnb", "-p", "--bat", "HAM"],  # (argparse's abbreviation)
    ["-p", "--batch", "HAM", "--bogus"],  # an error of the arguments
    ["-p", "--batch", "HAM", "--spam-cutoff", "7"],
    ["-m", "MODEL", "-p", "--batch", "HAM", "--train-spam", "HAM"],  # two modes
    ["--socket", "/nonexistent/sock", "-p", "--batch", "HAM"],  # the daemon client: --batch is refused
    ["--socket", "/nonexistent/sock", "-pe", "-B", "HAM"],
])
def test_an_error_with_batch_never_copies_stdin_to_stdout(trained, argv):
    """``-p`` has no effect with ``--batch`` (a warning says so): the batch's stdout is its
    verdict lines. An error of the run or of the arguments copied whatever was on stdin to
    stdout, as ``-p`` does to keep one message (session 28); now stdout stays empty."""
    root, model = trained
    argv = [str(root / "ham") if a == "HAM" else str(model) if a == "MODEL" else a for a in argv]
    stdin = b"Subject: not for stdout\n\nbody\n"
    code, out, err = run(argv, stdin)
    assert code == EXIT_ERROR and out == b"", err
    assert "Traceback" not in err and err.splitlines()[-1].startswith("spamfilter: ")


def test_asks_batch_reads_argv_as_argparse_will():
    from textnb.apps.spamclient import asks_batch

    for argv in (["-B", "x"], ["--batch", "x"], ["--b", "x"], ["--batch=x"], ["-pB", "x"], ["-Bx"], ["-peB"]):
        assert asks_batch(argv), argv
    for argv in (["-p"], ["-mB"], ["-m", "x", "-j", "2"], ["--batches"], ["--", "x"], ["-pmB"], ["--socket=-B"]):
        assert not asks_batch(argv), argv


MALFORMED = {
    "broken boundary": b"Content-Type: multipart/mixed; boundary=\"B\"\n\n--C\nContent-Type: text/plain\n\ncheap\n",
    "bad base64": b"Content-Transfer-Encoding: base64\n\n" + base64.b64encode(b"cheap pills")[:-2] + b"*!\n",
    "unknown charset": b"Content-Type: text/plain; charset=x-klingon\n\ncheap \xff\xfe pills\n",
    "8-bit headers": b"Subject: \xe9\xe8 cheap \xff\nFrom: \xc3\xa9 <@>\n\npills\n",
    "binary garbage": bytes(random.Random(5).randrange(256) for _ in range(5000)),
    "nul bytes": b"\x00" * 300,
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_mail_is_classified(trained, name):
    _, model = trained
    code, out, err = run(["-m", str(model), "-p"], MALFORMED[name])
    assert code in (0, 1, 2), err
    assert b"X-TextNB-Class: " in out and err == ""


@pytest.mark.slow
def test_50mb_attachment_passthrough(trained):
    _, model = trained
    head = (b"Subject: cheap pills\nContent-Type: multipart/mixed; boundary=B\n\n--B\n"
            b"Content-Type: text/plain\n\nviagra offer\n--B\nContent-Type: application/octet-stream\n"
            b"Content-Disposition: attachment; filename=big.bin\nContent-Transfer-Encoding: base64\n\n")
    msg = head + b"QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFB\n" * 720_000 + b"--B--\n"
    assert len(msg) > 50 * 1024 * 1024
    code, out, err = run(["-m", str(model), "-p"], msg)
    assert code == 0, err
    assert len(out) == len(msg) + out.index(b"\n\n") - msg.index(b"\n\n")
    assert out.endswith(msg[-1000:])


@pytest.mark.parametrize("extra, warnings", [
    (["--log-odds"], ["--log-odds has no effect without --batch"]),
    (["-e"], ["-e has no effect without -p"]),
    (["--exit-zero"], ["-e has no effect without -p"]),
    (["-j", "2"], ["-j has no effect without --batch, --train-* or --register-*"]),
    (["--alpha", "0.5"], ["--alpha has no effect without --train-* or --register-*"]),
    (["--kind", "multinomial"], ["--kind has no effect without --train-* or --register-*"]),
    (["--log-odds", "-e", "-p"], ["--log-odds has no effect without --batch"]),
])
def test_an_option_the_mode_leaves_unused_is_one_warning_line_and_changes_nothing(trained, extra, warnings):
    """spamfilter took options it does not use without a word (--log-odds without --batch, -e
    without -p, --alpha of a kind it does not smooth, ...; session 28). Refusing them would
    stop a procmail recipe's delivery, so each is one warning line on stderr (procmail's log),
    and the exit status and output are those of the command without it."""
    root, model = trained
    msg = (root / "spam" / "3.eml").read_bytes()
    plain = [a for a in extra if a not in ("--log-odds", "-e", "--exit-zero", "-j", "2", "--alpha", "0.5", "--kind",
                                           "multinomial")]
    want = run(["-m", str(model), *plain], msg)
    got = run(["-m", str(model), *extra], msg)
    assert got[:2] == want[:2] and want[2] == ""
    assert got[2] == "".join(f"spamfilter: warning: {w}\n" for w in warnings)


@pytest.mark.parametrize("mode, extra, warnings", [
    ("batch", ["-p", "-e"], ["-e has no effect with --batch", "-p has no effect with --batch"]),
    ("batch", ["-j", "1"], []),
    ("batch", ["--log-odds"], []),
    ("train", ["--alpha", "0.5"], ["--alpha has no effect with --kind fisher (it smooths the multinomial, bernoulli, "
                                   "complement and discriminative kinds)"]),
    ("train", ["--kind", "multinomial", "--alpha", "0.5"], []),
    ("train", ["--spam-cutoff", "0.9"], ["--spam-cutoff has no effect with --train-*"]),
    ("register", ["-e", "-p", "--ham-cutoff", "0.1"], ["-e has no effect with --register-spam",
                                                       "--ham-cutoff has no effect with --register-spam"]),
    ("register", ["--kind", "multinomial", "--alpha", "0.5"],
     ["--kind has no effect with --register-spam into a model that exists (it keeps its own; they set up a new one)",
      "--alpha has no effect with --register-spam into a model that exists (it keeps its own; they set up a new one)"]),
    ("register-new", ["--kind", "multinomial", "--alpha", "0.5"], []),
])
def test_options_unused_by_the_other_modes_are_warned_of_too(trained, tmp_path, mode, extra, warnings):
    root, _ = trained
    model = tmp_path / "m.tnb"
    msg = (root / "spam" / "3.eml").read_bytes()
    if mode not in ("train", "register-new"):
        assert run(["-m", str(model), "--train-spam", str(root / "spam"), "--train-ham", str(root / "ham")])[0] == 0
    argv = {"batch": ["--batch", str(root / "ham")], "register": ["--register-spam"],
            "register-new": ["--register-spam"],
            "train": ["--train-spam", str(root / "spam"), "--train-ham", str(root / "ham")]}[mode]
    code, _, err = run(["-m", str(model), *argv, *extra], msg)
    assert code == 0
    lines = [line for line in err.splitlines() if "warning" in line]
    assert lines == [f"spamfilter: warning: {w}" for w in warnings]


# -- topicfilter --------------------------------------------------------------------
def test_topicfilter_dry_run_then_real(tmp_path):
    clf = textnb.TextClassifier().fit(["cheap pills casino"] * 3 + ["meeting agenda budget"] * 3,
                                      ["shop"] * 3 + ["work"] * 3)
    clf.save(tmp_path / "t.tnb")
    src = tmp_path / "docs"
    src.mkdir()
    (src / "1.txt").write_text("cheap casino")
    (src / "2.txt").write_text("budget meeting")
    out, err = io.StringIO(), io.StringIO()
    argv = ["-m", str(tmp_path / "t.tnb"), "-o", str(tmp_path / "out"), "--uncalibrated", str(src)]
    assert topic_main(argv + ["--dry-run"], stdout=out, stderr=err) == 0
    plan = [line.split("\t") for line in out.getvalue().splitlines()]
    assert [(os.path.basename(s), label) for s, label, _, _ in plan] == [("1.txt", "shop"), ("2.txt", "work")]
    assert not (tmp_path / "out").exists()
    assert topic_main(argv, stdout=io.StringIO(), stderr=err) == 0
    assert (tmp_path / "out" / "shop" / "1.txt").exists() and (src / "1.txt").exists()
    err = io.StringIO()
    assert topic_main(["-m", str(tmp_path / "nope.tnb"), "-o", "x", str(src)], stdout=io.StringIO(), stderr=err) == 1
    assert "no such model file" in err.getvalue() and err.getvalue().count("\n") == 1


@pytest.mark.parametrize("move", [False, True])
def test_a_file_of_one_message_is_named_file_by_topicfilter_as_by_spamfilter_batch(trained, tmp_path, move):
    """A file holding one message with an mbox From line first (every SpamAssassin file):
    ``spamfilter --batch`` and ``textnb predict`` name it ``FILE`` and read it whole
    (io.mailread._one_or_many, docs/spam.md); topicfilter named it ``FILE:1``, copied it out
    as ``FILE-1.eml`` without its From line, and never moved it (session 28). Now ``FILE``,
    routed as the file it is; an mbox of two messages is still ``FILE:N``, copied out."""
    from textnb.cli.commands import main as textnb_main

    root, model = trained
    one = tmp_path / "one.mbox"
    data = b"From a@b.example Mon Jan  1 00:00:00 2024\nSubject: cheap pills\n\ncasino prize offer winner\n"
    one.write_bytes(data)
    two = tmp_path / "two.mbox"
    two.write_bytes(data + b"\n" + data)
    code, out, err = run(["-m", str(model), "--batch", str(one), str(two)])
    assert code == 0, err
    batch = [line.split(b"\t")[0].decode() for line in out.splitlines()]
    assert batch == [str(one), f"{two}:1", f"{two}:2"]
    counts = tmp_path / "counts.tnb"  # (textnb predict reads a count model's mail as spamfilter does)
    assert run(["-m", str(counts), "--kind", "multinomial", "--train-spam", str(root / "spam"), "--train-ham",
                str(root / "ham")])[0] == 0
    predicted = io.StringIO()
    assert textnb_main(["predict", str(counts), str(one), str(two)], stdout=predicted) == 0
    assert [line.split("\t")[0] for line in predicted.getvalue().splitlines()] == batch
    clf = textnb.TextClassifier().fit(["cheap pills casino"] * 3 + ["meeting agenda budget"] * 3,
                                      ["shop"] * 3 + ["work"] * 3)
    clf.save(tmp_path / "t.tnb")
    routed, err = io.StringIO(), io.StringIO()
    argv = ["-m", str(tmp_path / "t.tnb"), "-o", str(tmp_path / "out"), "--uncalibrated", str(one), str(two)]
    assert topic_main(argv + (["--move"] if move else []), stdout=routed, stderr=err) == 0, err.getvalue()
    plan = [line.split("\t") for line in routed.getvalue().splitlines()]
    assert [s for s, *_ in plan] == batch
    assert [os.path.basename(d) for *_, d in plan] == ["one.mbox", "two.mbox-1.eml", "two.mbox-2.eml"]
    assert (tmp_path / "out" / "shop" / "one.mbox").read_bytes() == data  # (the file as it is)
    assert one.exists() != move and two.exists()


# -- the scripts themselves (a few subprocess runs: each pays Python's start-up) ----------
def test_script_runs(trained):
    root, model = trained
    for name in ("spamfilter", "topicfilter"):
        assert os.access(SCRIPTS / name, os.X_OK)
    msg = (root / "spam" / "3.eml").read_bytes()
    r = subprocess.run([sys.executable, str(SCRIPTS / "spamfilter"), "-m", str(model), "-p"],
                       input=msg, capture_output=True, timeout=120)
    assert r.returncode == 0 and b"X-TextNB-Class: spam" in r.stdout, r.stderr


def test_help(capsys):
    for main in (topic_main, filter_main):
        with pytest.raises(SystemExit) as exc:
            main(["--help"])
        assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "unsorted" in out and "--register-spam" in out
