"""What ``save``'s check (load's validation run before the atomic replace) costs.

Saves the same fitted models with ``check=True`` and with ``check=False`` in turn (the peer
measured in the same run), ``--repeat`` times each, and prints the median CPU time (user +
system, this process) of each and their ratio. Models: a spam model (SpamScorer, the
default ``spamfilter`` kind) of ``--tokens`` tokens, as ``--register-*`` saves it after
every message, and the default text model trained on the bundled SMS corpus.

    python scripts/bench_save_check.py [--tokens 300000] [--repeat 7]
"""

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402

import textnb  # noqa: E402
from textnb.apps.filtering import new_spam_model  # noqa: E402
from textnb.core.model_io import save  # noqa: E402


def cpu():
    return time.process_time()  # user + system CPU of this process, fine-grained


def spam_model(n_tokens):
    model = new_spam_model()
    model.classes_ = np.array(["ham", "spam"])
    model.vocabulary_ = np.array([f"tok{i}" for i in range(n_tokens)], dtype=object)
    rng = np.random.default_rng(0)
    model.class_count_ = np.array([5000, 5000])
    model.feature_count_ = rng.integers(0, 50, size=(2, n_tokens)).astype(np.int64)
    return model


def sms_model():
    rows = (REPO / "corpora" / "sms_spam" / "SMSSpamCollection.tsv").read_text(encoding="utf-8").splitlines()[1:]
    labels, texts = zip(*(r.split("\t", 1) for r in rows))
    return textnb.TextClassifier().fit(list(texts), list(labels))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokens", type=int, default=300_000)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    models = {f"SpamScorer, {args.tokens} tokens": spam_model(args.tokens), "TextClassifier (default), SMS": sms_model()}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "m.tnb"
        print("| model | save, checked (s CPU) | save, unchecked (s CPU) | ratio |")
        print("|---|---|---|---|")
        for name, model in models.items():
            times = {True: [], False: []}
            for _ in range(args.repeat):
                for check in (True, False):  # interleaved: both see the same machine load
                    t = cpu()
                    save(model, path, check=check)
                    times[check].append(cpu() - t)
            on, off = statistics.median(times[True]), statistics.median(times[False])
            print(f"| {name} | {on:.3f} | {off:.3f} | {on / off:.2f}x |")


if __name__ == "__main__":
    main()
