"""Issue 18, flags: every numeric flag of every program has a documented range, checked
when the arguments are parsed, and inside what a model file may hold.

* every flag that takes a value with a type (all numeric ones) carries its range as text
  and quotes it in its ``--help`` (found by walking the parsers, so a new flag joins);
* for each flag, the extreme accepted values parse and the first rejected values on each
  side are a usage error naming the flag (``textnb``: exit 2, one ``error:`` line);
* ``textnb train`` at each extreme value writes a model that loads and predicts (the
  ranges are the model schema's or inside it), or -- where the data cannot give what is
  asked (a minimum document frequency of 2**40) -- exits 1 with one line and no model.
"""

import argparse
import io
import json
import math
import os
import sys

import numpy as np
import pytest

import textnb
from textnb.cli import argtypes, main
from textnb.cli.commands import build_parser
from textnb.cli.mailfilters import _spam_parser, filter_main
from textnb.cli.topicfilter import _topic_parser, topic_main
from textnb.core import model_schema
from textnb.core.errors import InputError
from conftest import tiny_mail

DOCS = ["cheap pills now", "meeting at noon", "cheap cheap offer", "lunch at noon",
        "win cheap money", "team lunch report"]
LABELS = ["spam", "ham", "spam", "ham", "spam", "ham"]
HIGH_JOBS, CPUS = min(argtypes.JOBS_PER_CPU * argtypes.cpu_count(), argtypes.MAX_JOBS), min(argtypes.cpu_count(), 64)
T = model_schema.MAX_DIM  # 2**40


def _after(x):
    return math.nextafter(x, math.inf)


def _before(x):
    return math.nextafter(x, -math.inf)


# --------------------------------------------------------------------------- every flag, from the parsers
def _parsers():
    parser = build_parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield f"textnb {name}", sub
    yield "spamfilter", _spam_parser()
    yield "topicfilter", _topic_parser()


#: flags whose type is not numeric (a list of names)
NOT_NUMERIC = {"--ignore", "--nominal-columns", "--output", "--plot"}  # (names, not numbers)


def _typed_flags():
    for prog, parser in _parsers():
        for action in parser._actions:
            if action.type is not None and action.option_strings:
                yield prog, action


def test_every_typed_flag_quotes_its_range_in_its_help():
    seen = set()
    for prog, action in _typed_flags():
        flag = action.option_strings[-1] if action.option_strings[-1].startswith("--") else action.option_strings[0]
        seen.add(flag)
        if flag in NOT_NUMERIC:
            continue
        assert action.type not in (int, float), f"{prog} {flag}: a bare {action.type.__name__} has no range"
        text = getattr(action.type, "range", None)
        assert text, f"{prog} {flag}: its type declares no range"
        assert text in (action.help or ""), f"{prog} {flag}: the help does not state the range {text!r}"
    # the flags of issue 18 are all among them (the walk really finds them)
    assert {"--top", "--max-features", "--min-df", "--max-df", "--bins", "--ngram", "--jobs", "--max-bytes",
            "--alpha", "--m", "--cv", "--repeat", "--seed", "--threshold", "--significance", "--select",
            "--scheduler", "--timeout", "--max-request", "--max-clients", "--socket-mode", "--http",
            "--spam-cutoff", "--ham-cutoff"} <= seen


def test_ranges_are_inside_the_model_schema():
    """What train may write, the schema accepts (the bounds come from the same constants)."""
    assert argtypes.MAX_ALPHA <= model_schema.MAX_ALPHA
    assert argtypes.MAX_NGRAM <= model_schema.MAX_NGRAM
    assert argtypes.MAX_TERMS <= model_schema.MAX_DIM
    assert argtypes.MAX_BINS <= 10**6  # TabularNB / DiscretizedNB "bins": Int(1, 10**6)
    assert argtypes.MAX_BYTES <= 2**40  # TextClassifier "max_bytes": Int(1, 2**40)
    assert HIGH_JOBS <= 256 and CPUS <= 64  # N_JOBS: Int(-64, 256)


# --------------------------------------------------------------------------- accepted / first rejected
#: (program, flag, accepted values, first rejected values)
RANGES = [
    ("train", "--max-features", ["1", str(T)], ["0", str(T + 1), "99999999999999999999", "1.5"]),
    ("train", "--min-df", ["0", str(T), "0.0", "1.0"], ["-1", str(T + 1), "-0.1", repr(_after(1.0)), "nan"]),
    ("train", "--max-df", ["0", str(T), "0.5"], ["-1", str(T + 1), "1.5", "inf"]),
    ("train", "--select", ["chi2:1", f"ig:{T}", "df:7"], ["chi2:0", f"chi2:{T + 1}", "svm:5", "chi2:", "chi2:-1"]),
    ("train", "--alpha", ["0", "1e6"], ["-1e-300", repr(_after(1e6)), "1e308", "nan", "inf"]),
    ("train", "--m", ["0", "1e6"], ["-1", repr(_after(1e6)), "1e300"]),
    ("train", "--bins", ["1", "10000"], ["0", "10001", "1e9"]),
    ("train", "--ngram", ["1", "20"], ["0", "21", "3000"]),
    ("train", "--jobs", ["1", str(HIGH_JOBS), "-1", str(-CPUS)], ["0", str(HIGH_JOBS + 1), str(-CPUS - 1), "10000"]),
    ("train", "--max-bytes", ["1", str(4 * 1024**3)], ["0", str(4 * 1024**3 + 1), "1e23", "inf"]),
    ("train", "--significance", ["5e-324", "1"], ["0", repr(_after(1.0)), "nan"]),
    ("train", "--scheduler", ["local:1", f"local:{HIGH_JOBS}", "tcp://127.0.0.1:8786", "127.0.0.1:8786"],
     ["local:0", f"local:{HIGH_JOBS + 1}", "local:10000", "local:x", "foo", "tcp://localhost", "http://127.0.0.1:1",
      "tcp://127.0.0.1:0"]),
    ("evaluate", "--cv", ["2", "10000"], ["1", "10001"]),
    ("evaluate", "--repeat", ["1", "1000"], ["0", "1001"]),
    ("evaluate", "--seed", ["0", str(2**32 - 1)], ["-1", str(2**32)]),
    ("evaluate", "--max-features", [str(T)], [str(T + 1)]),
    ("predict", "--top", ["1", "1000000"], ["0", "1000001", "99999999999999999999"]),
    ("predict", "--threshold", ["0", "5e-324", "1"], [repr(_before(0.0)), repr(_after(1.0)), "nan"]),
    ("predict", "--max-bytes", ["1", str(4 * 1024**3)], ["0", str(4 * 1024**3 + 1)]),
    ("inspect", "--top", ["1", "1000000"], ["0", "1000001"]),
    ("serve", "--max-clients", ["1", "1024"], ["0", "1025"]),
    ("serve", "--timeout", ["5e-324", "3600"], ["0", repr(_after(3600.0)), "inf"]),
    ("serve", "--max-request", ["1", "4G"], ["0", str(4 * 1024**3 + 1), "5G", "inf"]),
    ("serve", "--socket-mode", ["000", "777"], ["1000", "-1", "8"]),
    ("serve", "--http", ["0", "65535", "127.0.0.1:8080"], ["-1", "65536", "host:"]),
    ("spamfilter", "--spam-cutoff", ["0", "1"], [repr(_before(0.0)), repr(_after(1.0)), "nan"]),
    ("spamfilter", "--ham-cutoff", ["0", "1"], [repr(_before(0.0)), repr(_after(1.0))]),
    ("spamfilter", "--alpha", ["0", "1e6"], [repr(_before(0.0)), repr(_after(1e6)), "nan"]),
    ("spamfilter", "--max-bytes", ["1", "4G", str(4 * 1024**3)], ["0", str(4 * 1024**3 + 1), "5G", "inf", "1e23"]),
    ("topicfilter", "--threshold", ["0", "1"], [repr(_before(0.0)), repr(_after(1.0))]),
    ("topicfilter", "--max-bytes", ["1", "4G"], ["0", "5G"]),
]
_POSITIONAL = {"train": ["c.tsv"], "evaluate": ["c.tsv"], "predict": ["m.tnb", "x.txt"], "inspect": ["m.tnb"],
               "serve": ["m.tnb"]}
_CASES = [(prog, flag, value, ok) for prog, flag, good, bad in RANGES
          for value, ok in [(v, True) for v in good] + [(v, False) for v in bad]]


def _parse(prog, flag, value):
    """Parse ``flag value`` as ``prog`` would; (accepted, error text)."""
    if prog in ("spamfilter", "topicfilter"):
        parser = _spam_parser() if prog == "spamfilter" else _topic_parser()
        base = ["-m", "m.tnb"] + (["-o", "out", "x"] if prog == "topicfilter" else [])
        try:
            parser.parse_args(base + [flag, value])
        except InputError as exc:
            return False, str(exc)
        return True, ""
    err = io.StringIO()
    stderr, sys.stderr = sys.stderr, err
    try:
        build_parser().parse_args([prog, *_POSITIONAL[prog], flag, value])
    except SystemExit as exc:
        assert exc.code == 2
        return False, err.getvalue()
    finally:
        sys.stderr = stderr
    return True, ""


@pytest.mark.parametrize("prog,flag,value,ok", _CASES, ids=[f"{p} {f} {v}" for p, f, v, _ in _CASES])
def test_extremes_parse_and_the_first_rejected_values_are_usage_errors(prog, flag, value, ok):
    accepted, err = _parse(prog, flag, value)
    assert accepted == ok, (prog, flag, value, err)
    if not ok:
        lines = [line for line in err.splitlines() if "error" in line or prog in ("spamfilter", "topicfilter")]
        assert len(lines) == 1 and flag in lines[0], err
        assert "Traceback" not in err


def test_a_rejected_flag_is_exit_2_before_any_work(tmp_path, capsys):
    (tmp_path / "c.tsv").write_text("label\ttext\n" + "".join(f"{a}\t{b}\n" for a, b in zip(LABELS, DOCS)))
    rc = main(["train", str(tmp_path / "c.tsv"), "-o", str(tmp_path / "m.tnb"), "--max-features",
               "99999999999999999999"])
    err = capsys.readouterr().err
    assert rc == 2 and not (tmp_path / "m.tnb").exists()
    assert [line for line in err.splitlines() if "error:" in line] == [
        "textnb train: error: argument --max-features: expected a whole number >= 1 and <= 1099511627776, "
        "got '99999999999999999999'"]


def test_mail_tools_refuse_a_flag_with_exit_3_and_topicfilter_with_one_line(tmp_path):
    err = io.StringIO()
    rc = filter_main(["-m", str(tmp_path / "s.tnb"), "--spam-cutoff", "1.5"], stdin=io.BytesIO(b"Subject: x\n\nhi\n"),
                     stdout=io.BytesIO(), stderr=err)
    assert rc == 3 and err.getvalue().count("\n") == 1 and "--spam-cutoff" in err.getvalue()
    out, err = io.StringIO(), io.StringIO()
    rc = topic_main(["-m", str(tmp_path / "m.tnb"), "-o", str(tmp_path / "o"), str(tmp_path), "--max-bytes", "5G"],
                    stdout=out, stderr=err)
    assert rc != 0 and err.getvalue().count("\n") == 1 and "--max-bytes" in err.getvalue() and out.getvalue() == ""


# --------------------------------------------------------------------------- train at the extremes: the model loads
@pytest.fixture(scope="module")
def data(tmp_path_factory):
    folder = tmp_path_factory.mktemp("flags")
    (folder / "c.tsv").write_text("label\ttext\n" + "".join(f"{a}\t{b}\n" for a, b in zip(LABELS, DOCS)))
    rows = ["@relation t", "@attribute x numeric", "@attribute c {a,b}", "@attribute k {p,q}", "@data"]
    rng = np.random.default_rng(0)
    rows += [f"{rng.normal(i % 2, 1):.3f},{'ab'[i % 2]},{'pq'[i % 2]}" for i in range(24)]
    (folder / "t.arff").write_text("\n".join(rows) + "\n")
    return folder


TRAIN_EXTREMES = [
    ("c.tsv", ["--max-features", str(T)]),
    ("c.tsv", ["--max-features", "1"]),
    ("c.tsv", ["--max-df", str(T)]),
    ("c.tsv", ["--min-df", "0", "--max-df", "1.0"]),
    ("c.tsv", ["--min-df", "0.0"]),
    ("c.tsv", ["--select", f"chi2:{T}"]),
    ("c.tsv", ["--alpha", "0"]),
    ("c.tsv", ["--alpha", "1e6"]),
    ("c.tsv", ["--alpha", "1e6", "--model", "bernoulli"]),
    ("c.tsv", ["--alpha", "1e6", "--model", "complement", "--norm"]),
    ("c.tsv", ["--alpha", "1e6", "--lazy", "lbr"]),
    ("c.tsv", ["--alpha", "1e6", "--calibrate", "sigmoid"]),
    ("c.tsv", ["--m", "1e6"]),
    ("c.tsv", ["--ngram", "20"]),
    ("c.tsv", ["--max-bytes", "1", "--token-pattern", r"(?u)\b\w+\b"]),  # one-letter terms: 1 byte holds one
    ("c.tsv", ["--max-bytes", str(4 * 1024**3)]),
    ("c.tsv", ["--jobs", str(HIGH_JOBS)]),
    ("c.tsv", ["--jobs", str(-CPUS)]),
    ("c.tsv", ["--adjust", "--significance", "1"]),
    ("c.tsv", ["--adjust", "--significance", "5e-324"]),
    ("t.arff", ["--alpha", "1e6"]),
    ("t.arff", ["--alpha", "0"]),
    ("t.arff", ["--alpha", "1e6", "--model", "tan"]),
    ("t.arff", ["--m", "0", "--nominal", "m-estimate"]),
    ("t.arff", ["--m", "1e6", "--nominal", "m-estimate"]),
    ("t.arff", ["--numeric", "equal-width", "--bins", "10000"]),
    ("t.arff", ["--numeric", "equal-frequency", "--bins", "10000"]),
    ("t.arff", ["--numeric", "equal-width", "--bins", "1"]),
    ("t.arff", ["--alpha", "1e6", "--lazy", "lbr"]),
]


@pytest.mark.parametrize("source,flags", TRAIN_EXTREMES, ids=[f"{s} {' '.join(f)}" for s, f in TRAIN_EXTREMES])
def test_a_model_trained_at_an_extreme_value_loads_and_predicts(data, tmp_path, source, flags):
    model = tmp_path / "m.tnb"
    out, err = io.StringIO(), io.StringIO()
    rc = main(["train", str(data / source), "-o", str(model), "--json", *flags], stdout=out, stderr=err)
    assert rc == 0, err.getvalue()
    loaded = textnb.load(model)  # the schema accepts what train wrote
    rc, out, err = _run(["predict", str(model), str(data / source), "--json", "--proba"])
    assert rc == 0, err
    for line in out.splitlines():
        rec = json.loads(line, parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}"))
        assert rec["label"] in [str(c) for c in loaded.classes_]
        assert all(np.isfinite(list(rec["proba"].values())))


def _run(args):
    out, err = io.StringIO(), io.StringIO()
    rc = main(args, stdout=out, stderr=err)
    return rc, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("flags", [["--min-df", str(T)], ["--m", "0"], ["--max-bytes", "1"], ["--alpha", "0", "--lazy", "lbr"]])
def test_an_extreme_the_data_or_model_cannot_meet_is_one_line_and_no_model(data, tmp_path, flags):
    """Accepted by the parser, refused by the fit (exit 1, one line): nothing is written."""
    model = tmp_path / "m.tnb"
    rc, out, err = _run(["train", str(data / "c.tsv"), "-o", str(model), *flags])
    assert rc == 1 and not model.exists()
    assert err.count("\n") == 1 and err.startswith("textnb: error: ")


def test_evaluate_predict_inspect_at_their_extremes(data, tmp_path):
    model = tmp_path / "m.tnb"
    assert _run(["train", str(data / "c.tsv"), "-o", str(model)])[0] == 0
    rc, out, err = _run(["evaluate", str(data / "c.tsv"), "--cv", "2", "--seed", str(2**32 - 1), "--json"])
    assert rc == 0, err
    json.loads(out)
    rc, out, err = _run(["evaluate", str(data / "c.tsv"), "--cv", "10000"])  # more folds than documents
    assert rc == 1 and err.count("\n") == 1 and err.startswith("textnb: error: "), err
    lines = tmp_path / "lines.txt"
    lines.write_text("cheap pills\nlunch at noon\n")
    rc, out, err = _run(["predict", str(model), "--lines", str(lines), "--top", "1000000", "--threshold", "1",
                         "--json"])
    assert rc == 0, err
    assert all(isinstance(json.loads(line)["labels"], list) for line in out.splitlines())
    rc, out, err = _run(["predict", str(model), str(lines), "--explain", "--top", "1000000"])
    assert rc == 0, err
    rc, out, err = _run(["inspect", str(model), "--top", "1000000", "--json"])
    assert rc == 0, err
    json.loads(out)


def test_mail_tools_at_their_extremes(tmp_path):
    spam, ham = tiny_mail(tmp_path)
    model = tmp_path / "s.tnb"
    err = io.StringIO()
    rc = filter_main(["-m", str(model), "--kind", "multinomial", "--alpha", "1e6", "--max-bytes", "4G",
                      "--train-spam", str(spam), "--train-ham", str(ham)], stdin=io.BytesIO(), stdout=io.BytesIO(),
                     stderr=err)
    assert rc == 0, err.getvalue()
    textnb.load(model)
    out = io.BytesIO()
    rc = filter_main(["-m", str(model), "--spam-cutoff", "1", "--ham-cutoff", "0", "--max-bytes", "1",
                      "--batch", str(spam)], stdin=io.BytesIO(), stdout=out, stderr=io.StringIO())
    assert rc == 0 and len(out.getvalue().splitlines()) == 3
    assert all(line.split(b"\t")[1] == b"unsure" for line in out.getvalue().splitlines())
    text = tmp_path / "text.tnb"
    textnb.TextClassifier().fit(DOCS, LABELS).save(text)
    out = io.StringIO()
    rc = topic_main(["-m", str(text), "-o", str(tmp_path / "o"), "-n", "-t", "1", "--uncalibrated", "--max-bytes", "4G", str(spam)],
                    stdout=out, stderr=io.StringIO())
    assert rc == 0 and all(line.split("\t")[1] for line in out.getvalue().splitlines())
    assert not os.path.exists(tmp_path / "o")


# --------------------------------------------------------------------------- --jobs under a real process limit
def _processes_of(uid):
    n = 0
    for pid in os.listdir("/proc"):
        try:
            n += pid.isdigit() and os.stat(f"/proc/{pid}").st_uid == uid
        except OSError:
            pass
    return n


def test_jobs_under_a_real_process_limit_reports_reaps_and_does_not_hang():
    """``ulimit -u``: the workers that cannot be forked are reported in one line, those
    that were are reaped, and the call returns (it hung holding 399 processes). Root
    ignores RLIMIT_NPROC, so as root the forked child first becomes ``nobody``; it
    imports nothing after that (``nobody`` may not read the interpreter's files)."""
    import multiprocessing
    import multiprocessing.popen_fork  # noqa: F401 - everything the child needs, imported before it forks
    import multiprocessing.queues  # noqa: F401
    import multiprocessing.synchronize  # noqa: F401
    import resource
    import signal
    import threading
    import time

    from textnb.core.errors import TextnbError
    from textnb.core.workers import effective_jobs, ordered_map

    if not hasattr(os, "fork") or threading.active_count() > 1:
        pytest.skip("needs fork in a single-threaded process")
    uid = os.geteuid()
    if uid == 0:
        import pwd

        try:
            nobody = pwd.getpwnam("nobody")
        except KeyError:
            pytest.skip("no user 'nobody' to drop to")
        uid, gid = nobody.pw_uid, nobody.pw_gid
    effective_jobs(8)
    list(ordered_map(abs, ((-i,) for i in range(3)), 2))  # warm: the pool's modules are loaded
    limit = _processes_of(uid) + 4  # this child and three workers
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: become the limited user, try 8 workers, report, exit
        os.close(r)
        try:
            if os.geteuid() == 0:
                os.setgid(gid)
                os.setuid(uid)
            resource.setrlimit(resource.RLIMIT_NPROC, (limit, limit))
            try:
                result = str(sum(ordered_map(abs, ((-i,) for i in range(200)), 8)))
            except TextnbError as exc:
                result = str(exc)
            result += f"|{len(multiprocessing.active_children())}"
        except BaseException as exc:  # noqa: BLE001 - reported to the parent
            result = f"ERROR {exc!r}"
        os.write(w, result.encode())
        os._exit(0)
    os.close(w)
    deadline = time.monotonic() + 120
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            pytest.fail("the call hung under the process limit")
        time.sleep(0.05)
    result = os.read(r, 65536).decode()
    os.close(r)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    message, _, children = result.rpartition("|")
    assert children == "0", result  # every worker that started was reaped
    if message == str(sum(range(200))):  # the limit let all 8 start (other processes ended meanwhile)
        pytest.skip("the process limit did not bite")
    assert message == "cannot start 8 worker processes (Resource temporarily unavailable); use fewer jobs", result


@pytest.mark.parametrize("flag,value", [("--spam-cutoff", repr(_after(1.0))), ("--ham-cutoff", "-0.1"),
                                        ("--spam-cutoff", "nan"), ("--max-bytes", "5G"), ("--max-bytes", "0")])
def test_the_daemon_client_checks_the_same_ranges(tmp_path, flag, value):
    """``spamfilter --socket`` parses its few options without argparse: the same ranges
    (cut-offs 0 to 1, --max-bytes 1 byte to 4G), exit 3, one line, before connecting."""
    err = io.StringIO()
    rc = filter_main(["--socket", str(tmp_path / "no.sock"), flag, value], stdin=io.BytesIO(b"Subject: x\n\nhi\n"),
                     stdout=io.BytesIO(), stderr=err)
    assert rc == 3 and err.getvalue().count("\n") == 1 and f"argument {flag}" in err.getvalue(), err.getvalue()


def test_predicts_top_and_threshold_are_the_rules_the_daemon_checks():
    """``textnb serve``'s ``"top"`` / ``"threshold"`` are checked by the library's rules
    (:func:`textnb.evaluation.topk.check_top`, :func:`~textnb.evaluation.topk.check_threshold`),
    which accept exactly the values ``predict --top`` / ``--threshold`` accept."""
    from textnb.cli.options import top_labels
    from textnb.evaluation import topk

    assert argtypes.MAX_TOP == topk.MAX_K

    def accepts(check, value):
        try:
            check(value)
        except (ValueError, argparse.ArgumentTypeError):
            return False
        return True

    for k in (-2, -1, 0, 1, 5, 10**6, 10**6 + 1):
        assert accepts(top_labels, str(k)) == accepts(topk.check_top, k), k
    for p in (-0.1, 0, 0.0, 0.5, 1, 1.0, 1.5, math.nan, math.inf, -math.inf):
        assert accepts(argtypes.threshold, str(p)) == accepts(topk.check_threshold, p), p
