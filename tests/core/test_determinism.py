"""Determinism: the same input and options give a byte-identical model file.

Whatever ``--jobs`` says (worker processes count batches in any order of completion),
whatever the batch size, in a fresh process with another hash seed (set and dict order),
and whichever order models are merged in.
"""

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import textnb
import textnb.text.training
from textnb.cli.commands import main

REPO = Path(__file__).resolve().parents[2]
SMS = REPO / "corpora" / "sms_spam" / "SMSSpamCollection.tsv"

needs_sms = pytest.mark.skipif(not SMS.exists(), reason="bundled SMS corpus missing")


def digest(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def train(path, out, *flags):
    assert main(["train", str(path), "-o", str(out), *map(str, flags)], stdout=open(os.devnull, "w")) == 0
    return digest(out)


@pytest.mark.slow
@needs_sms
@pytest.mark.parametrize("flags", [[], ["--model", "bernoulli", "--ngram", "2", "--stop-words", "english"],
                                   ["--min-df", "2", "--max-features", "500", "--stem", "porter"]],
                         ids=["default", "bernoulli-bigrams", "pruned-stemmed"])
def test_jobs_do_not_change_the_model_file(tmp_path, monkeypatch, flags):
    # the SMS corpus has 5,574 documents; lower the threshold so --jobs 2 really uses processes
    monkeypatch.setattr(textnb.text.training, "_MIN_PARALLEL_DOCUMENTS", 100)
    one = train(SMS, tmp_path / "j1.tnb", "--jobs", "1", *flags)
    two = train(SMS, tmp_path / "j2.tnb", "--jobs", "2", *flags)
    assert one == two


@needs_sms
def test_processes_are_really_used_and_batch_size_does_not_matter(tmp_path, monkeypatch):
    from textnb.io.corpus import open_corpus

    monkeypatch.setattr(textnb.text.training, "_MIN_PARALLEL_DOCUMENTS", 100)
    corpus = open_corpus(SMS)
    seen = set()

    def progress(done):
        seen.add(done)

    digests = set()
    for n_jobs, batch in [(1, 2000), (2, 333), (2, 2000), (1, 97)]:
        clf = textnb.TextClassifier(n_jobs=n_jobs, batch_size=batch).fit(corpus.documents, corpus.labels,
                                                                         progress=progress)
        clf.save(tmp_path / "m.tnb")
        digests.add(digest(tmp_path / "m.tnb"))
    assert len(digests) == 1
    assert 333 in seen  # batches of 333 really ran


@pytest.mark.slow
def test_ten_thousand_files_with_jobs_1_and_2(tmp_path, monkeypatch):
    """The CLI on a corpus of 10,000 small files read by worker processes (the threshold,
    30,000 documents by default, lowered so that --jobs 2 uses processes)."""
    monkeypatch.setattr(textnb.text.training, "_MIN_PARALLEL_DOCUMENTS", 5_000)
    root = tmp_path / "corpus"
    words = ["cheap", "pills", "offer", "meeting", "noon", "lunch", "report", "win", "free", "data"]
    for label in ("spam", "ham"):
        (root / label).mkdir(parents=True)
    for i in range(10_000):
        label = "spam" if i % 3 else "ham"
        text = " ".join(words[(i * k) % len(words)] for k in range(1, 6)) + f" doc{i % 97}"
        (root / label / f"{i:05d}.txt").write_text(text)
    assert train(root, tmp_path / "j1.tnb", "--jobs", "1") == train(root, tmp_path / "j2.tnb", "--jobs", "2")


@pytest.mark.slow
@needs_sms
def test_fresh_processes_with_other_hash_seeds(tmp_path):
    digests = set()
    for seed in ("0", "12345"):
        out = tmp_path / f"m{seed}.tnb"
        subprocess.run([sys.executable, "-m", "textnb", "train", str(SMS), "-o", str(out), "--jobs", "1",
                        "--ngram", "2"], check=True, capture_output=True, cwd=str(REPO),
                       env=dict(os.environ, PYTHONPATH=str(REPO), PYTHONHASHSEED=seed))
        digests.add(digest(out))
    assert len(digests) == 1


WEATHER = """@relation weather
@attribute outlook {sunny,overcast,rainy}
@attribute temperature numeric
@attribute humidity numeric
@attribute windy {TRUE,FALSE}
@attribute play {yes,no}
@data
sunny,85,85,FALSE,no
sunny,80,90,TRUE,no
overcast,83,86,FALSE,yes
rainy,70,96,FALSE,yes
rainy,68,80,FALSE,yes
rainy,65,70,TRUE,no
overcast,64,65,TRUE,yes
sunny,72,95,FALSE,no
sunny,69,70,FALSE,yes
rainy,75,80,FALSE,yes
sunny,75,70,TRUE,yes
overcast,72,90,TRUE,yes
overcast,81,75,FALSE,yes
rainy,71,91,TRUE,no
"""


@pytest.mark.parametrize("numeric", ["gaussian", "kde", "mdl"])
def test_table_models_are_deterministic(tmp_path, numeric):
    arff = tmp_path / "weather.arff"
    arff.write_text(WEATHER)
    assert train(arff, tmp_path / "a.tnb", "--numeric", numeric) == train(arff, tmp_path / "b.tnb", "--numeric", numeric)


@needs_sms
def test_merge_order_does_not_change_the_file(tmp_path):
    from textnb.io.corpus import open_corpus

    corpus = open_corpus(SMS)
    half = len(corpus) // 2
    a = textnb.TextClassifier().fit(corpus.documents[:half], corpus.labels[:half])
    b = textnb.TextClassifier().fit(corpus.documents[half:], corpus.labels[half:])
    a.save(tmp_path / "a.tnb")
    b.save(tmp_path / "b.tnb")
    out = open(os.devnull, "w")
    assert main(["merge", str(tmp_path / "a.tnb"), str(tmp_path / "b.tnb"), "-o", str(tmp_path / "ab.tnb")], stdout=out) == 0
    assert main(["merge", str(tmp_path / "b.tnb"), str(tmp_path / "a.tnb"), "-o", str(tmp_path / "ba.tnb")], stdout=out) == 0
    assert digest(tmp_path / "ab.tnb") == digest(tmp_path / "ba.tnb")


@needs_sms
@pytest.mark.parametrize("flags", [[], ["--model", "multinomial"]], ids=["default", "multinomial"])
def test_merge_of_three_parts_gives_one_file_in_every_order(tmp_path, flags):
    """``merge A B C`` added the parts up in the order given: the default model's counts are
    floats, and ``(a + b) + c`` is not ``(a + c) + b`` to the last bit, so the six orders gave
    three different files. Now the parts are added up in one order (by their bytes)."""
    import itertools

    lines = SMS.read_bytes().splitlines(keepends=True)
    parts = []
    for k in range(3):
        (tmp_path / f"{k}.tsv").write_bytes(b"".join(lines[k::3]))
        parts.append(tmp_path / f"{k}.tnb")
        train(tmp_path / f"{k}.tsv", parts[-1], "--jobs", "1", *flags)
    out = open(os.devnull, "w")
    digests = set()
    for order in itertools.permutations(parts):
        merged = tmp_path / ("m" + "".join(p.stem for p in order) + ".tnb")
        assert main(["merge", *map(str, order), "-o", str(merged)], stdout=out, stderr=out) == 0
        digests.add(digest(merged))
    assert len(digests) == 1


def test_merge_of_table_models_with_numeric_attributes_gives_one_file_in_either_order(tmp_path):
    """Two TabularNB parts with Gaussian numeric attributes: their moments' merge is not
    symmetric in the last bits (``mean_a + (mean_b - mean_a) n_b / n``), so ``merge a b`` and
    ``merge b a`` gave different files."""
    rng = np.random.default_rng(0)  # (the data of seed 1 happen to merge alike both ways)
    parts = []
    for k in range(2):
        classes = rng.integers(3, size=60)
        rows = "".join(f"{rng.normal(c, 1.3):.7f},{rng.normal(-c, 0.7) * 1e3:.5f},c{c}\n" for c in classes)
        (tmp_path / f"{k}.csv").write_text("x,y,class\n" + rows)
        parts.append(tmp_path / f"{k}.tnb")
        train(tmp_path / f"{k}.csv", parts[-1])
    out = open(os.devnull, "w")
    for name, order in (("ab", parts), ("ba", parts[::-1])):
        assert main(["merge", *map(str, order), "-o", str(tmp_path / f"{name}.tnb")], stdout=out, stderr=out) == 0
    assert digest(tmp_path / "ab.tnb") == digest(tmp_path / "ba.tnb")
