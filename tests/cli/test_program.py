"""The programs' process settings (textnb.cli.program): BLAS threads asked for once, the
user's choice kept, numpy not imported before the setting."""

import contextlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from textnb.cli.program import one_blas_thread

ROOT = Path(__file__).resolve().parents[2]


def test_one_blas_thread_when_the_user_chose_none():
    env = {"PATH": "/bin"}
    one_blas_thread(env)
    assert env["OPENBLAS_NUM_THREADS"] == "1" and env["MKL_NUM_THREADS"] == "1"


@pytest.mark.parametrize("name", ["OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS",
                                  "MKL_NUM_THREADS"])
def test_the_users_choice_stands(name):
    env = {name: "4"}
    one_blas_thread(env)
    assert env == {name: "4"}


def _child(code, **extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    env.update(extra)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)


def test_the_entry_point_sets_it_before_numpy_loads():
    # the console script's target and `python -m textnb` run textnb.cli.program.main: numpy
    # must not be imported before it has set the variable, and the command must see it
    code = ("import sys, os\n"
            "import textnb.cli.program as p\n"
            "assert 'numpy' not in sys.modules, 'numpy imported before the setting'\n"
            "import textnb.cli.commands as c\n"
            "seen = []\n"
            "c.main = lambda: seen.append(os.environ.get('OPENBLAS_NUM_THREADS')) or 0\n"
            "assert p.main() == 0 and seen == ['1'], seen\n")
    done = _child(code)
    assert done.returncode == 0, done.stderr
    done = _child(code.replace("['1']", "['3']"), OPENBLAS_NUM_THREADS="3")
    assert done.returncode == 0, done.stderr


def test_console_scripts_and_module_run_the_entry_point():
    setup = (ROOT / "setup.py").read_text()
    assert '"textnb": "textnb.cli.program:main"' in setup
    assert "textnb.cli.program import main" in (ROOT / "textnb" / "__main__.py").read_text()


def test_numpy_extras_wait_until_used():
    """After prepare_process, importing scipy.sparse (as the commands do) leaves numpy's
    f2py and testing unexecuted (f2py pulls in charset_normalizer), and each still works
    at its first use; numpy itself is not imported by prepare_process."""
    code = ("import sys\n"
            "import textnb.cli.program as p\n"
            "p.prepare_process()\n"
            "assert 'numpy' not in sys.modules\n"
            "import scipy.sparse, numpy as np\n"
            "x = scipy.sparse.csr_matrix(np.eye(3)) @ np.ones(3)\n"
            "assert 'charset_normalizer' not in sys.modules and 'unittest' not in sys.modules, 'extras executed'\n"
            "assert not any(type(f).__name__ == '_DeferNumpyExtras' for f in sys.meta_path)\n"
            "np.testing.assert_array_equal(x, np.ones(3))\n"
            "from numpy.testing import assert_allclose\n"
            "assert_allclose(np.polynomial.polynomial.polyval(2.0, [1.0, 1.0]), 3.0)\n"
            "assert callable(np.f2py.run_main)\n")
    done = _child(code)
    assert done.returncode == 0, done.stderr


def test_the_programs_prepare_their_process():
    code = ("import sys\n"
            "import textnb.cli.program as p\n"
            "import textnb.cli.commands as c\n"
            "c.main = lambda: 0\n"
            "assert p.main() == 0\n"
            "assert any(type(f).__name__ == '_DeferNumpyExtras' for f in sys.meta_path)\n"
            "from textnb.cli import mailcli\n"
            "sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != '_DeferNumpyExtras']\n"
            "mailcli._arguments('spamfilter', None)\n"
            "assert any(type(f).__name__ == '_DeferNumpyExtras' for f in sys.meta_path)\n")
    done = _child(code)
    assert done.returncode == 0, done.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_standard_output_is_named_stdout_by_every_program(tmp_path):
    """Session 26's trial: ``> /dev/full`` said 'textnb: error: No space left on device' (no
    name) and 'spamfilter: i/o: ...' / 'topicfilter: i/o: ...'; each program names what it
    could not write, as it names every file."""
    from textnb.core.errors import os_error_text

    repo = Path(__file__).resolve().parents[2]
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.txt").write_text("free prize call now")
    model = tmp_path / "m.tnb"
    sms = repo / "corpora" / "sms_spam" / "SMSSpamCollection.tsv"
    assert subprocess.run([sys.executable, "-m", "textnb", "train", str(sms), "-o", str(model)],
                          capture_output=True).returncode == 0
    spam = tmp_path / "s.tnb"
    (tmp_path / "ham").mkdir()
    (tmp_path / "ham" / "1").write_bytes(b"Subject: lunch\n\nsee you at noon\n")
    (tmp_path / "spam").mkdir()
    (tmp_path / "spam" / "1").write_bytes(b"Subject: prize\n\nfree cash now\n")
    assert subprocess.run([sys.executable, str(repo / "scripts" / "spamfilter"), "-m", str(spam), "--train-spam",
                           str(tmp_path / "spam"), "--train-ham", str(tmp_path / "ham")],
                          capture_output=True).returncode == 0
    runs = [([sys.executable, "-m", "textnb", "predict", str(model), str(tmp_path / "in")],
             "textnb: error: stdout: "),
            ([sys.executable, str(repo / "scripts" / "spamfilter"), "-m", str(spam), "--batch", str(tmp_path / "in")],
             "spamfilter: stdout: "),
            ([sys.executable, str(repo / "scripts" / "topicfilter"), "--model", str(model), "--uncalibrated",
              "--out", str(tmp_path / "out"), str(tmp_path / "in")], "topicfilter: stdout: ")]
    for argv, start in runs:
        with open("/dev/full", "w") as full:
            r = subprocess.run(argv, stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
        assert r.returncode != 0 and r.stderr.startswith(start) and r.stderr.count("\n") == 1, r.stderr
    assert os_error_text(OSError(2, "No such file or directory", "x.tnb")) == "x.tnb: No such file or directory"
    assert os_error_text(OSError(5, "Input/output error")) == "i/o: Input/output error"
    assert os_error_text(OSError(5, "Input/output error"), None) == "Input/output error"


@pytest.mark.parametrize("signame, line, status", [("SIGINT", "textnb: interrupted", 130),
                                                   ("SIGTERM", "textnb: terminated by signal 15", 143),
                                                   ("SIGHUP", "textnb: terminated by signal 1", 129)])
def test_a_signal_while_the_commands_are_imported_is_one_line(signame, line, status):
    # Ctrl-C (or SIGTERM) in the first tenths of a second, while numpy and the commands are
    # still being imported, ended with a traceback of the import (and, for SIGTERM, exit 1):
    # the signal is sent here by the import of textnb.cli.commands itself, as a user's would
    # come then
    code = ("import os, signal, sys\n"
            "class Finder:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name == 'textnb.cli.commands':\n"
            f"            os.kill(os.getpid(), signal.{signame})\n"
            "        return None\n"
            "sys.meta_path.insert(0, Finder())\n"
            "from textnb.cli.program import main\n"
            "raise SystemExit(main())\n")
    done = _child(code)
    assert done.stderr == line + "\n"
    assert done.returncode == status


_LOST_IN_AN_IMPORT = """
import os, signal, sys, time, weakref

module, how = sys.argv[1:3]

def ctrl_c():
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(0.5)  # (the handler runs in here)

class Finder:
    def find_spec(self, name, path=None, target=None):
        if name != module:
            return None
        sys.meta_path.remove(self)
        if how == "dropped":  # in a callback whose exceptions Python prints and drops (importlib's module lock's)
            class Lock:
                pass
            lock = Lock()
            ref = weakref.ref(lock, lambda ref: ctrl_c())
            del lock
            return None
        try:
            ctrl_c()
        except KeyboardInterrupt as exc:
            if how == "chained":  # numpy: raise ImportError(msg) from exc
                raise ImportError("Importing the numpy C-extensions failed") from exc
            stop = exc
        if how == "masked":  # C code (PyCapsule_Import) replaced the interrupt: nothing of it is kept
            raise ImportError('PyCapsule_Import could not import module "datetime"')
        return None  # "swallowed": an optional import's fallback took it for a missing module

sys.meta_path.insert(0, Finder())
from textnb.cli.program import main
sys.argv = ["textnb", *sys.argv[3:]]
raise SystemExit(main())
"""


@pytest.mark.parametrize("how", ["masked", "chained", "swallowed", "dropped"])
@pytest.mark.parametrize("module", ["textnb.cli.evaluate", "textnb.text.training"])
def test_a_ctrl_c_an_import_lost_is_still_one_line_and_130(tmp_path, module, how):
    """Session 44's user trial, Ctrl-C in the first 0.2 s of ``textnb train``: numpy's import
    turned the KeyboardInterrupt into its 50-line ImportError ("Importing the numpy
    C-extensions failed", exit 1), or importlib's module-lock callback printed "Exception
    ignored in: <function _get_module_lock.<locals>.cb>" and dropped it (the training went on,
    saved its model, exit 0). Here the Ctrl-C comes as a module is imported, while the
    commands are imported (textnb.cli.evaluate) or during the command (textnb.text.training),
    and the import loses it: replaced by an ImportError with or without the interrupt in its
    chain, taken by a fallback, or dropped in a callback. Each is one line, 130, no model."""
    corpus = tmp_path / "c.tsv"
    corpus.write_text("spam\tcheap pills now\nham\tlunch at noon\nspam\twin cash\nham\tsee you\n")
    model = tmp_path / "m.tnb"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", _LOST_IN_AN_IMPORT, module, how, "train", str(corpus), "-o",
                           str(model)], capture_output=True, text=True, env=env, timeout=120)
    assert (done.returncode, done.stderr) == (130, "textnb: interrupted\n")
    assert not model.exists()


def test_python_m_textnb_exits_130_when_the_interrupt_ended_a_string_exec(tmp_path):
    # a Ctrl-C landing inside a library's exec() of a string (importing scipy runs one, scipy's
    # array_api_compat clone_module) is marked unhandled by CPython even once textnb has caught it
    # and printed "textnb: interrupted": `python -m textnb` then ended by SIGINT (-2, no status),
    # about one Ctrl-C in 15 at the end of `textnb train` of 20 Newsgroups (when training still
    # imported scipy.sparse; `evaluate` and the estimators do). Here the interrupt is raised in
    # such an exec, as a module the command imports is found
    (tmp_path / "sitecustomize.py").write_text(
        "import sys\n"
        "class Finder:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'textnb.text.training':\n"
        "            exec('raise KeyboardInterrupt')\n"
        "        return None\n"
        "sys.meta_path.insert(0, Finder())\n")
    corpus = tmp_path / "c.tsv"
    corpus.write_text("spam\tcheap pills now\nham\tlunch at noon\nspam\twin cash\nham\tsee you\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]))
    done = subprocess.run([sys.executable, "-m", "textnb", "train", str(corpus), "-o", str(tmp_path / "m.tnb")],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.stderr == "textnb: interrupted\n"
    assert done.returncode == 130
    assert not (tmp_path / "m.tnb").exists()


def test_the_finder_after_the_numpy_extras_one_is_still_asked_for_scipy():
    # the finder that waits for scipy's import removed itself from sys.meta_path while the
    # import system walked it, so the finder after it (an import hook put first) was skipped
    code = ("import sys\n"
            "seen = []\n"
            "class Hook:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        seen.append(name)\n"
            "        return None\n"
            "sys.meta_path.insert(0, Hook())\n"
            "from textnb.cli.program import defer_numpy_extras\n"
            "defer_numpy_extras()\n"
            "import scipy\n"
            "assert 'scipy' in seen, seen[:5]\n"
            "assert sys.meta_path[0].__class__.__name__ == 'Hook'\n")
    done = _child(code)
    assert done.returncode == 0, done.stderr


def _busy(pid):
    """The number of worker processes and of threads of process ``pid`` (Linux /proc)."""
    tasks = list(Path(f"/proc/{pid}/task").iterdir())
    return sum(len((t / "children").read_text().split()) for t in tasks), len(tasks)


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize("command", ["train", "evaluate", "predict"])
def test_ctrl_c_twice_while_the_workers_run_is_one_line_and_status_130(tmp_path, command):
    """Two Ctrl-Cs 30 ms apart (then one each millisecond, so that one lands in every step of the stop),
    sent to the process group as a terminal sends them, during ``train --jobs 2`` (worker processes),
    ``evaluate --jobs 2`` (threads) or ``predict --rows``: the second interrupt came while the
    workers were being reaped ("Exception ignored in: <generator object ordered_map ...>" and a
    traceback, or a second ``textnb: interrupted``) or once the interpreter had put the default
    handler back for its exit (the process killed by SIGINT, -2, no status). Now one line, 130,
    no traceback, no model written."""
    import signal
    import time

    from conftest import big_tsv

    corpus = big_tsv(tmp_path / "big.tsv")
    model = tmp_path / "m.tnb"
    env = dict(os.environ, PYTHONPATH=str(ROOT), OPENBLAS_NUM_THREADS="1")
    textnb = [sys.executable, "-m", "textnb"]
    if command == "predict":
        subprocess.run([*textnb, "train", str(corpus), "-o",
                        str(tmp_path / "p.tnb")], check=True, capture_output=True, env=env, timeout=120)
    rows = corpus
    if command == "predict":  # (its rows four times: predict is quick, and a run that ended before the
        rows = tmp_path / "rows.tsv"  # first Ctrl-C came exited 0, a CI run's flake)
        lines = corpus.read_bytes().splitlines(keepends=True)
        rows.write_bytes(lines[0] + b"".join(lines[1:]) * 4)
    argv = {"train": ["train", "--jobs", "2", "--stem", "porter", "-o", str(model), str(corpus)],
            "evaluate": ["evaluate", "--jobs", "2", "--cv", "5", "--stem", "porter", str(corpus)],
            "predict": ["predict", str(tmp_path / "p.tnb"), "--rows", str(rows)]}[command]
    proc = subprocess.Popen([*textnb, *argv], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            children, threads = _busy(proc.pid)
            if children >= 2 or threads >= 3 or (command == "predict" and "scipy" in
                                                 Path(f"/proc/{proc.pid}/maps").read_text()):
                break
            time.sleep(0.01)
        time.sleep(0.3)  # (the work under way)
        assert proc.poll() is None, proc.stderr.read()
        os.killpg(proc.pid, signal.SIGINT)
        time.sleep(0.03)
        while proc.poll() is None and time.monotonic() < deadline:  # (a Ctrl-C each ms: the stop's every step)
            time.sleep(0.001)
            try:
                os.killpg(proc.pid, signal.SIGINT)
            except ProcessLookupError:
                break
        err = proc.stderr.read()
        proc.wait(30)
        assert (proc.returncode, err) == (130, "textnb: interrupted\n")
        assert not model.exists()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(30)


_SECOND_CTRL_C = """
import atexit, os, signal, sys
from textnb.core import workers

in_order, reap = workers._in_order, workers._reap

def first(*args, **kwargs):
    for k, result in enumerate(in_order(*args, **kwargs)):
        if k == 1:
            os.kill(os.getpid(), signal.SIGINT)  # the Ctrl-C, the worker processes busy
        yield result

def second(pool):
    os.kill(os.getpid(), signal.SIGINT)  # a second one while they are being stopped
    return reap(pool)

workers._in_order, workers._reap = first, second
atexit.register(os.kill, os.getpid(), signal.SIGINT)  # and one as the interpreter exits
from textnb.cli.program import main
sys.argv = ["textnb", *sys.argv[1:]]
raise SystemExit(main())
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the worker processes are forked")
def test_a_second_ctrl_c_while_stopping_is_the_same_request(tmp_path):
    """The Ctrl-Cs of the test above at set points: one while ``train --jobs 2``'s workers are
    busy, a second as they are stopped (it was raised in the reaping: "Exception ignored in:
    <generator object ordered_map>" and a KeyboardInterrupt traceback after ``textnb:
    interrupted``), a third in the interpreter's exit (another traceback). Now the first one
    makes the program ignore the stop signals: one line, 130, no model."""
    corpus = tmp_path / "c.tsv"
    corpus.write_text("".join(f"{'spam' if i % 2 else 'ham'}\tword{i % 97} other{i % 13} text\n"
                              for i in range(10_000)))
    model = tmp_path / "m.tnb"
    env = dict(os.environ, PYTHONPATH=str(ROOT), OPENBLAS_NUM_THREADS="1")
    done = subprocess.run([sys.executable, "-c", _SECOND_CTRL_C, "train", "--jobs", "2", "-o", str(model),
                           str(corpus)], capture_output=True, text=True, env=env, timeout=120)
    assert (done.returncode, done.stderr) == (130, "textnb: interrupted\n")
    assert not model.exists()


def test_the_stop_signals_are_answered_once():
    """The program's handlers (textnb.core.signals.stop_on_signals): the first SIGINT raises
    KeyboardInterrupt and leaves SIGINT, SIGTERM and SIGHUP ignored; the first SIGTERM likewise
    (Terminated); a signal the caller ignored stays ignored; a library user's process keeps
    Python's handlers (only the program installs these)."""
    code = ("import signal, sys\n"
            "from textnb.core.signals import stop_on_signals\n"
            "from textnb.apps.spamclient import Terminated\n"
            "assert signal.getsignal(signal.SIGINT) is signal.default_int_handler\n"
            "if sys.argv[1] == 'ignored':\n"
            "    signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
            "stop_on_signals()\n"
            "try:\n"
            "    signal.raise_signal(getattr(signal, sys.argv[1] if sys.argv[1] != 'ignored' else 'SIGINT'))\n"
            "except (KeyboardInterrupt, Terminated) as exc:\n"
            "    print(type(exc).__name__)\n"
            "print(*(signal.getsignal(s) == signal.SIG_IGN for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)))\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    outputs = {}
    for case in ("SIGINT", "SIGTERM", "ignored"):
        done = subprocess.run([sys.executable, "-c", code, case], capture_output=True, text=True, env=env, timeout=60)
        assert done.returncode == 0, done.stderr
        outputs[case] = done.stdout
    assert outputs == {"SIGINT": "KeyboardInterrupt\nTrue True True\n", "SIGTERM": "Terminated\nTrue True True\n",
                       "ignored": "True False False\n"}


_SWALLOWED = """
import gc, os, signal, sys, time
from textnb.core.signals import stop_on_signals
from textnb.apps.spamclient import Terminated

stop_on_signals()
signum = getattr(signal, sys.argv[1])

class Dropped:
    def __del__(self):
        os.kill(os.getpid(), signum)
        time.sleep(0.5)  # (the handler runs in here)

def collector(phase, info):
    gc.callbacks.remove(collector)
    Dropped.__del__(None)

try:
    if sys.argv[2] == "del":
        Dropped()
    else:
        gc.callbacks.append(collector)
        gc.collect()
    for _ in range(1000):
        time.sleep(0.01)
    print("not stopped")
except (KeyboardInterrupt, Terminated) as exc:
    print(type(exc).__name__)
"""


@pytest.mark.parametrize("where", ["del", "collector"])
@pytest.mark.parametrize("signame", ["SIGINT", "SIGTERM"])
def test_a_stop_raised_where_python_drops_exceptions_is_raised_again(signame, where):
    """A stop signal handled in a ``__del__`` method or a callback of the garbage collector:
    Python printed its exception ("Exception ignored in", a KeyboardInterrupt traceback) and
    dropped it, and the program, ignoring the stop signals since the first, went on (a
    Ctrl-C in the gc callback of Dask's scheduler: tests/core/test_distributed.py). Now it is
    raised again where the program runs, nothing printed."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", _SWALLOWED, signame, where], capture_output=True, text=True,
                          env=env, timeout=60)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == ("KeyboardInterrupt\n" if signame == "SIGINT" else "Terminated\n")


_CTRL_C_AT_EXIT = """
import atexit, os, signal, sys
{main}
atexit.register(lambda: os.kill(os.getpid(), signal.{signame}))  # (a Ctrl-C or SIGTERM in the interpreter's exit)
code = run()
os.kill(os.getpid(), signal.{signame})  # (and one as the command returns: what the interpreter's exit may meet)
sys.exit(code)
"""


@pytest.mark.parametrize("signame", ["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("program", ["textnb", "spamfilter", "topicfilter"])
def test_a_ctrl_c_while_a_finished_run_exits_is_no_traceback(tmp_path, program, signame):
    """A Ctrl-C (or SIGTERM) that arrives once the command has finished, while the interpreter
    runs its ``atexit`` clean-up: the run's own exit status and output, no "Exception ignored in
    atexit callback" with a KeyboardInterrupt traceback (what it printed), no death by the signal
    without a word (what topicfilter did, status -15 / -2, found by a user trial: it had its own
    copy of the process conventions). The program ignores the stop signals once its command has
    returned (textnb.cli.program.main, textnb.apps.spamclient.process_main, which topicfilter
    runs in too)."""
    if program == "textnb":
        main = ("sys.argv = ['textnb', '--version']\n"
                "from textnb.cli.program import main as run")
    elif program == "spamfilter":
        main = ("from textnb.apps.spamclient import process_main\n"
                "def run():\n"
                "    return process_main([], lambda argv, stdin, stdout, stderr: (stdout.write(b'done\\n'), 0)[1])")
    else:  # (the command's work stood in for: the signal comes once topic_main has returned)
        main = ("from textnb.cli import mailcli, topicfilter\n"
                "topicfilter.topic_main = lambda argv, stdout, stderr: (stdout.write('done\\n'), 0)[1]\n"
                "def run():\n"
                "    return mailcli.topicfilter([])")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", _CTRL_C_AT_EXIT.format(main=main, signame=signame)],
                          capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "" and done.stdout.strip(), (done.stdout, done.stderr)
