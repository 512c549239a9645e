"""``scripts/bench_spam.py`` writes each of its blocks between its own markers of the spam
document: a speed run without ``--online`` leaves the last online evaluation in place (it
used to delete it, since the online table sat inside the speed block)."""

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "bench_spam.py"


def _script():
    spec = importlib.util.spec_from_file_location("bench_spam", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_speed_run_keeps_the_online_block(tmp_path):
    bench = _script()
    doc = tmp_path / "spam.md"
    doc.write_text("# Spam\n\n<!-- bench:start -->\nold speed\n<!-- bench:end -->\n"
                   "<!-- online:start -->\nold online\n<!-- online:end -->\n\nafter\n")
    bench.write_doc("new speed\n", path=doc, marker="bench")
    text = doc.read_text()
    assert "new speed" in text and "old speed" not in text
    assert "old online" in text and text.rstrip().endswith("after")
    online = bench.render_online([{"name": "SMS", "n": 3, "curves": {"textnb": {"roca": 0.5, "errors": 1}}}],
                                 1.0, " --online")
    bench.write_doc(online, path=doc, marker="online")
    text = doc.read_text()
    assert "old online" not in text and "| SMS (first 3) | 0.500 (1 err) |" in text and "new speed" in text
