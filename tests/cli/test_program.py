"""The programs' process settings (textnb.cli.program): BLAS threads asked for once, the
user's choice kept, numpy not imported before the setting."""

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
