"""What a ``textnb`` process pays for before it works: the worker count without joblib,
the allocator setting without a subprocess, and the modules ``train`` / ``predict`` import.

Whole-process speed is measured by ``scripts/bench_text.py`` (docs/bench_text.md); these
tests pin the behaviour that speed depends on, with no timing in them.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SMS = REPO / "corpora" / "sms_spam" / "SMSSpamCollection.tsv"
ENV = dict(os.environ, PYTHONPATH=str(REPO), OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")


def _python(code, *args):
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=ENV,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_effective_jobs_without_joblib_matches_joblib():
    """The count of worker processes is joblib's, computed before joblib is imported."""
    out = _python(
        "import sys\n"
        "from textnb.core.workers import effective_jobs\n"
        "ns = (None, 1, 2, 3, 7, -1, -2, -3, -64)\n"
        "ours = [effective_jobs(n) for n in ns]\n"
        "assert 'joblib' not in sys.modules\n"
        "from joblib import effective_n_jobs\n"
        "theirs = [max(1, effective_n_jobs(1 if n is None else n)) for n in ns]\n"
        "assert ours == theirs, (ours, theirs)\n"
        "assert [effective_jobs(n) for n in ns] == theirs  # joblib's own answer once it is imported\n"
        "try:\n"
        "    effective_jobs(0)\n"
        "except ValueError:\n"
        "    print('ok')\n")
    assert out.strip() == "ok"


def test_keep_freed_memory_starts_no_process():
    """Setting the allocator's thresholds finds glibc in the interpreter itself: no
    ``ldconfig`` or compiler subprocess (which ``ctypes.util.find_library`` runs)."""
    out = _python(
        "import subprocess, resource\n"
        "calls = []\n"
        "real = subprocess.Popen.__init__\n"
        "def spy(self, *a, **k):\n"
        "    calls.append(a)\n"
        "    return real(self, *a, **k)\n"
        "subprocess.Popen.__init__ = spy\n"
        "from textnb.core.workers import keep_freed_memory\n"
        "print(keep_freed_memory(), len(calls), resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime)\n")
    applied, n_calls, child_cpu = out.split()
    if sys.platform.startswith("linux"):
        assert applied == "True"
    assert n_calls == "0" and float(child_cpu) == 0.0


@pytest.mark.skipif(not SMS.exists(), reason="bundled SMS corpus missing")
def test_train_and_predict_import_neither_joblib_nor_sklearn(tmp_path):
    """``textnb train`` (default model, forked workers) and ``textnb predict`` of a
    document: neither imports joblib, scikit-learn, scipy or numpy.ma (``np.unique`` without
    indices imports it: 7-24 ms of CPU): predict of one document or of a
    file of thousands and train alike multiply by scipy.sparse's compiled products, loaded
    alone (:class:`textnb.core.csr.CSR`, :func:`textnb.core.csr.kernels`)."""
    code = (
        "import sys, io\n"
        "from textnb.cli.commands import main\n"
        "rc = main(sys.argv[1:], stdout=io.StringIO(), stderr=io.StringIO())\n"
        "print(rc, *sorted(m for m in ('joblib', 'sklearn', 'scipy', 'numpy.ma') if m in sys.modules))\n")
    model = tmp_path / "m.tnb"
    doc = tmp_path / "doc.txt"
    doc.write_text("Free entry in 2 a wkly comp to win FA Cup final tkts, text FA to 87121 now")
    assert _python(code, "train", str(SMS), "-o", str(model)).split() == ["0"]
    assert _python(code, "predict", str(model), str(doc)).split() == ["0"]
    assert _python(code, "predict", str(model), str(SMS)).split() == ["0"]  # 5,574 rows


def test_the_program_freezes_its_objects_before_exiting_and_a_caller_keeps_its_collector():
    """``main()`` run as the program (arguments from sys.argv) freezes the objects left
    out of the garbage collector as it returns (the shutdown's collections are then
    skipped); called with arguments, as a program embedding it does, it leaves the
    collector as it was."""
    code = (
        "import gc, io, sys\n"
        "from textnb.cli.commands import main\n"
        "rc = main(['--version'], stdout=io.StringIO(), stderr=io.StringIO())\n"
        "embedded = gc.get_freeze_count()\n"
        "sys.argv = ['textnb', '--version']\n"
        "rc = main()\n"
        "print(rc, embedded, gc.get_freeze_count() > 0)\n")
    assert _python(code).splitlines()[-1].split() == ["0", "0", "True"]


WEATHER = REPO / "corpora" / "weather.nominal.arff"
WEATHER_NUMERIC = REPO / "corpora" / "weather.numeric.arff"
_IMPORTS = (
    "import sys, io\n"
    "from textnb.cli.commands import main\n"
    "out = io.StringIO()\n"
    "rc = main(sys.argv[1:], stdout=out, stderr=io.StringIO())\n"
    "print(rc, *sorted(m for m in ('sklearn', 'scipy') if m in sys.modules))\n"
    "print(out.getvalue(), end='')\n")

_IMPORTS_EACH = (
    "import sys, io, json\n"
    "from textnb.cli.commands import main\n"
    "for argv in json.loads(sys.argv[1]):\n"
    "    rc = main(argv, stdout=io.StringIO(), stderr=io.StringIO())\n"
    "    print(rc, *sorted(m for m in ('sklearn', 'scipy') if m in sys.modules))\n")


@pytest.mark.skipif(not WEATHER.exists(), reason="bundled weather table missing")
def test_evaluate_aode_on_a_table_imports_neither_scipy_nor_sklearn(tmp_path):
    """``textnb evaluate --model aode`` on an ARFF table (and train / predict of the model):
    no scipy (its import is ~0.15 s of CPU, most of such a process on a small table) and no
    scikit-learn; the report is the usual one."""
    status, out = _python(_IMPORTS, "evaluate", str(WEATHER), "--model", "aode", "--cv", "3", "--json").split("\n", 1)
    assert status.split() == ["0"]
    assert '"n": 14' in out and '"protocol": "3-fold cross-validation x 1"' in out
    model = tmp_path / "w.tnb"
    assert _python(_IMPORTS, "train", str(WEATHER), "--model", "aode", "-o", str(model)).split("\n")[0].split() == ["0"]
    status, out = _python(_IMPORTS, "predict", str(model), str(WEATHER)).split("\n", 1)
    assert status.split() == ["0"] and len(out.splitlines()) == 14


@pytest.mark.slow
@pytest.mark.skipif(not WEATHER.exists(), reason="bundled weather tables missing")
@pytest.mark.parametrize("table, model", [
    (WEATHER, ["--model", "nb"]), (WEATHER_NUMERIC, []), (WEATHER_NUMERIC, ["--numeric", "mdl"]),
    (WEATHER_NUMERIC, ["--numeric", "kde"]), (WEATHER, ["--model", "tan"]), (WEATHER_NUMERIC, ["--model", "aode"]),
    (WEATHER, ["--lazy", "lbr"]), (WEATHER, ["--lazy", "hlbr"]), (WEATHER, ["--adjust"]),
    (WEATHER, ["--model", "aode", "--adjust"])])
def test_table_commands_import_neither_scipy_nor_sklearn(tmp_path, table, model):
    """evaluate, train, predict and inspect of every table model on a nominal or numeric
    table: numpy only (inspect of a discretised lazy model is refused, as before)."""
    path = tmp_path / "m.tnb"
    commands = (["evaluate", str(table), "--cv", "3", "--json", *model],
                ["train", str(table), "-o", str(path), *model],
                ["predict", str(path), str(table)], ["inspect", str(path)])
    # one fresh process runs the four in turn: a module is never unloaded, so one absent
    # after a command was imported by none of the commands up to it
    statuses = _python(_IMPORTS_EACH, json.dumps(commands)).splitlines()
    assert len(statuses) == len(commands), statuses
    for args, status in zip(commands, statuses):
        status = status.split()
        assert status == ["0"] or (args[0] == "inspect" and "--lazy" in model and status == ["1"]), (args, status)


def test_text_evaluate_still_works_and_builds_its_sparse_counts(tmp_path):
    """The documents' path of ``evaluate`` (the count matrix is a scipy CSR matrix) runs as
    before now that the evaluation module imports scipy only there."""
    tsv = tmp_path / "docs.tsv"
    rows = [("spam", "win cash prize now"), ("ham", "see you at lunch"), ("spam", "free prize claim now"),
            ("ham", "lunch at noon then"), ("spam", "cash now free win"), ("ham", "see you then at noon")] * 3
    tsv.write_text("".join(f"{label}\t{text}\n" for label, text in rows))
    status, out = _python(_IMPORTS, "evaluate", str(tsv), "--cv", "3", "--json").split("\n", 1)
    assert status.split() == ["0", "scipy"] and '"n": 18' in out and '"accuracy": 1.0' in out
