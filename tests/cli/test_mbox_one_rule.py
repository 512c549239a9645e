"""An mbox file read by one rule on every path: ``textnb train`` / ``evaluate`` of a corpus
folder read an mbox file in a class folder as ONE document, where ``predict``, ``topicfilter``
and ``spamfilter --batch`` split it (``FILE:N``); a binary message of an mbox; the messages of
an mbox in a pipe copied out by ``topicfilter``, which were cut at ``--max-bytes``."""

import json
import os
import threading

from conftest import SMS_TSV, cli, one_error_line, run_spamfilter, run_topicfilter, watchdog

FROM = "From alice@example.com Sat Jan  1 00:00:00 2000\n"


def _msg(body):
    return f"{FROM}Subject: note\n\n{body}\n\n"


SPAM_BOX = (_msg("WINNER free prize cash call now") + _msg("claim your free cash award today")
            + f"{FROM}\n\n" + _msg("free bin\0ary cash") + _msg("cheap pills offer now winner"))


def _corpus(root):
    (root / "spam").mkdir(parents=True)
    (root / "ham").mkdir()
    (root / "spam" / "box.mbox").write_text(SPAM_BOX)
    (root / "spam" / "one.txt").write_text("free cash now")
    for i, text in enumerate(["lunch tomorrow at noon", "the meeting notes", "see you at the plan", "call me"]):
        (root / "ham" / f"{i}.txt").write_text(text)
    (root / "ham" / "x.bin").write_bytes(b"\0\1\2 binary")
    return root


def test_train_and_evaluate_read_an_mbox_in_a_class_folder_as_its_messages(tmp_path):
    """train counts each message of the mbox as a document of its folder's class (5 messages:
    3 learnt, the empty one and the binary one skipped and counted, as predict reports them),
    whatever the trainer (streamed, estimator, lazy rules, threads); evaluate reads them so too,
    the messages of one file in one fold; predict splits the same file into the same messages."""
    corpus = _corpus(tmp_path / "c")
    for extra in ([], ["--model", "auto"], ["--lazy", "lbr"], ["--jobs", "2"]):
        rc, out, err = cli("train", corpus, "-o", tmp_path / "m.tnb", "--json", *extra)
        assert rc == 0, err
        summary = json.loads(out)
        assert (summary["documents"], summary["per_class"], summary["skipped_binary"]) == \
            (8, {"ham": 4, "spam": 4}, 3), extra
    rc, out, _ = cli("train", corpus, "-o", tmp_path / "m.tnb")
    assert "read 8 documents" in out and "skipped 2 binary files and 1 empty message" in out
    rc, out, err = cli("evaluate", corpus, "--cv", "2", "--json")
    assert rc == 0, err
    report = json.loads(out)
    assert (report["n"], report["skipped_binary"], report["skipped_empty"]) == (8, 3, 1)
    rc, out, err = cli("evaluate", corpus, "--cv", "2")
    assert "skipped 2 binary files and 1 empty message" in out  # (the line train prints)
    rc, out, err = cli("predict", tmp_path / "m.tnb", corpus / "spam" / "box.mbox")
    box = str(corpus / "spam" / "box.mbox")
    assert [line.split("\t")[0] for line in out.splitlines()] == [f"{box}:1", f"{box}:2", f"{box}:5"]
    assert f"{box}:3: empty message, skipped" in err and f"{box}:4: binary file, skipped" in err


def test_a_file_of_one_message_and_a_maildir_are_still_one_document_each(tmp_path):
    """An mbox file of one message is one document (the file as it is); a Maildir's file
    that starts like an mbox is one message, never split (told by its folder, not by opening)."""
    corpus = _corpus(tmp_path / "c")
    (corpus / "spam" / "box.mbox").write_text(_msg("WINNER free prize cash call now"))
    for part in ("new", "cur", "tmp"):
        (corpus / "ham" / "md" / part).mkdir(parents=True)
    (corpus / "ham" / "md" / "cur" / "1.msg").write_text(_msg("lunch") + _msg("notes"))
    rc, out, err = cli("train", corpus, "-o", tmp_path / "m.tnb", "--json")
    assert rc == 0, err
    assert json.loads(out)["per_class"] == {"ham": 5, "spam": 2}


def test_a_binary_message_is_read_as_a_binary_file_on_every_path(tmp_path):
    """A binary message of an mbox (a NUL in its first 8 KiB, or UTF-16) is what a binary file
    is on each path: predict and topicfilter skip and report both, in the same words;
    spamfilter --batch gives both a verdict (a mail filter gives every message one: row 88)."""
    model = tmp_path / "sms.tnb"
    assert cli("train", SMS_TSV, "-o", model)[0] == 0
    (tmp_path / "bin.eml").write_bytes(b"Subject: x\n\nabc\0def")
    utf16 = "Subject: x\n\nhello there".encode("utf-16")
    (tmp_path / "box.mbox").write_bytes((_msg("lunch tomorrow") + _msg("free\0cash")).encode()
                                        + FROM.encode() + utf16 + b"\n\n" + _msg("notes").encode())
    box, single = tmp_path / "box.mbox", tmp_path / "bin.eml"
    rc, out, err = cli("predict", model, single, box)
    assert rc == 1
    assert f"{single}: binary file, skipped" in err and f"{box}:2: binary file, skipped" in err
    assert f"{box}:3: UTF-16 text (convert it to UTF-8), skipped" in err
    rc, out, err = run_topicfilter(["-m", model, "-o", tmp_path / "out", "-n", single, box])
    assert rc == 1
    assert f"{single}: binary file, not a text document" in err and f"{box}:2: binary file, not a text document" in err
    rc, out, err = run_spamfilter(["-m", model, "--batch", single, box])
    sources = [line.split("\t")[0] for line in out.splitlines()]
    assert sources == [str(single)] + [f"{box}:{n}" for n in (1, 2, 3, 4)], err


def test_topicfilter_copies_the_messages_of_an_mbox_pipe_whole_as_of_a_file(tmp_path):
    """topicfilter copied each message of an mbox FILE whole but those of an mbox in a pipe cut
    at --max-bytes (a mail filter lost the rest of the mail); now both are copied whole (each
    scored on its first --max-bytes), byte for byte the same."""
    model = tmp_path / "sms.tnb"
    assert cli("train", SMS_TSV, "-o", model)[0] == 0
    data = (_msg("WINNER free prize cash call now " * 300) + _msg("see you at lunch")
            + _msg("meeting notes " * 500)).encode()
    (tmp_path / "big.mbox").write_bytes(data)
    rc, out_file, err = run_topicfilter(["-m", model, "-o", tmp_path / "o1", "--max-bytes", "1024",
                                         "--uncalibrated", tmp_path / "big.mbox"])
    assert (rc, err) == (0, "")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(data), daemon=True)
    writer.start()
    with watchdog(60):
        rc, out_pipe, err = run_topicfilter(["-m", model, "-o", tmp_path / "o2", "--max-bytes", "1024",
                                             "--uncalibrated", fifo])
    writer.join(timeout=30)
    assert (rc, err) == (0, "")

    def copied(folder):
        return sorted((p.parent.name, p.read_bytes()) for p in folder.rglob("*.eml"))

    got = copied(tmp_path / "o2")
    assert got == copied(tmp_path / "o1") and len(got) == 3
    assert max(len(b) for _, b in got) > 9000  # (over the cap: whole)
    assert [line.split("\t")[1:3] for line in out_pipe.splitlines()] == \
        [line.split("\t")[1:3] for line in out_file.splitlines()]


def test_a_multilabel_corpus_reads_an_mbox_as_its_messages_with_the_file_s_labels(tmp_path):
    """``train --multilabel`` of label folders reads an mbox file as training does (its
    messages, each with the labels of the file: the same bytes in two label folders), the
    empty and the binary message skipped and counted, as single-label training counts them."""
    root = tmp_path / "ml"
    for label in ("offers", "money", "plans"):
        (root / label).mkdir(parents=True)
    for label in ("offers", "money"):
        (root / label / "box.mbox").write_text(SPAM_BOX)
    for i, text in enumerate(["lunch tomorrow at noon", "the meeting notes", "see you at the plan"]):
        (root / "plans" / f"{i}.txt").write_text(text)
    (root / "money" / "m.txt").write_text("cash in the bank")
    rc, out, err = cli("train", root, "--multilabel", "-o", tmp_path / "m.tnb", "--json")
    assert rc == 0, err
    summary = json.loads(out)
    assert summary["documents"] == 7 and summary["skipped_binary"] == 2
    assert summary["per_label"] == {"money": 4, "offers": 3, "plans": 3}
    rc, out, err = cli("train", root, "--multilabel", "-o", tmp_path / "m.tnb")
    assert "skipped 1 binary file and 1 empty message" in out
    rc, out, err = cli("evaluate", root, "--multilabel", "--cv", "2")
    assert rc == 0, err
    assert "on 7 documents" in out and "skipped 1 binary file and 1 empty message" in out


def test_a_large_mbox_is_counted_a_batch_at_a_time_with_the_file_s_label(tmp_path, monkeypatch):
    """An mbox of more than a batch of text is counted in parts (``text.counting.count_parts``,
    ``text_spans``: the rule of ``io.files.bounded_runs``), each message with the file's
    class and weight, so memory stays that of a batch of files: the model file is byte for
    byte the one of a single batch, with the default model's rows and the summed one's, with
    one counting thread or several, or counted by ``count_shard`` (``--stem``: the path of
    worker processes and Dask), and the empty and binary messages are counted once."""
    import textnb.io.files as files
    import textnb.text.counting as counting_module

    sizes = []  # the texts of each batch counted

    def counting(read, *args):
        sizes.append(len(read[0]))
        return count_read(read, *args)

    count_read = counting_module.count_read
    monkeypatch.setattr(counting_module, "count_read", counting)  # (count_parts': the threads', count_shard's)
    corpus = _corpus(tmp_path / "c")
    words = ["prize", "cash", "offer", "winner", "claim", "award", "free", "bonus"]
    (corpus / "spam" / "box.mbox").write_text(
        SPAM_BOX + "".join(_msg(" ".join(words[(i + k) % 8] for k in range(6 + i % 5))) for i in range(120)))
    for i in range(30):
        (corpus / "ham" / f"n{i}.txt").write_text(f"meeting notes lunch plan number {i}")
    for extra in ([], ["--model", "multinomial"], ["--jobs", "2"], ["--jobs", "1"], ["--stem", "porter", "--jobs", "1"]):
        monkeypatch.setattr(files, "BATCH_BYTES", 8 << 20)
        rc, out, err = cli("train", corpus, "-o", tmp_path / "one.tnb", "--json", *extra)
        assert rc == 0, err
        whole = json.loads(out)
        monkeypatch.setattr(files, "BATCH_BYTES", 400)  # (parts of 200 characters: many parts, many batches)
        sizes.clear()
        rc, out, err = cli("train", corpus, "-o", tmp_path / "parts.tnb", "--json", *extra)
        assert rc == 0, err
        assert max(sizes) <= 20 and sum(sizes) == 158  # (never the mbox's 124 messages in one batch)
        parts = json.loads(out)
        assert (parts["documents"], parts["per_class"], parts["skipped_binary"]) == \
            (whole["documents"], whole["per_class"], whole["skipped_binary"]) == (158, {"ham": 34, "spam": 124}, 3)
        assert (tmp_path / "parts.tnb").read_bytes() == (tmp_path / "one.tnb").read_bytes(), extra


def test_an_mbox_longer_than_max_bytes_is_read_a_piece_at_a_time_as_it_is_counted(tmp_path, monkeypatch):
    """An mbox file longer than ``--max-bytes`` is not held whole while it is counted
    (``io.corpus.MessageStream``: its messages read from the file a piece of
    ``io.files.BATCH_BYTES`` at a time, ``text.counting.read_items`` for the counting threads,
    ``sized_items`` for worker processes): the first messages are counted before the last ones
    are read. Its model is the one of the same messages as files of their own (the summed
    model's byte for byte, the default's probabilities to 1e-9), with the same counts."""
    import numpy as np

    import textnb
    import textnb.io.corpus as corpus_module
    import textnb.io.files as files
    import textnb.text.counting as counting_module

    events = []
    count_read, message_document = counting_module.count_read, corpus_module.message_document

    def counting(read, *args):
        if any((t if isinstance(t, str) else t.decode()).startswith("Subject") for t in read[0]):
            events.append("count")  # (a batch of messages, not of the ham files)
        return count_read(read, *args)

    def reading(name, *args):
        events.append("read")
        return message_document(name, *args)

    monkeypatch.setattr(counting_module, "count_read", counting)
    monkeypatch.setattr(corpus_module, "message_document", reading)
    words = ["prize", "cash", "offer", "winner", "claim", "award", "free", "bonus"]
    bodies = [" ".join(words[(i + k) % 8] for k in range(6 + i % 5)) for i in range(150)]
    box = tmp_path / "box" / "spam" / "all.mbox"
    split = tmp_path / "files" / "spam"
    for root in (tmp_path / "box", tmp_path / "files"):
        (root / "ham").mkdir(parents=True)
        for i in range(30):
            (root / "ham" / f"n{i}.txt").write_text(f"meeting notes lunch plan number {i}\n")
    box.parent.mkdir()
    split.mkdir()
    box.write_text("".join(_msg(body) for body in bodies) + f"{FROM}\n\n")  # (and an empty message)
    for i, body in enumerate(bodies):
        (split / f"m{i:03d}.txt").write_text(f"Subject: note\n\n{body}\n")
    monkeypatch.setattr(files, "BATCH_BYTES", 600)  # (pieces of about 10 messages)
    for extra in ([], ["--model", "multinomial"], ["--jobs", "2"], ["--stem", "porter", "--jobs", "1"],
                  ["--stem", "porter", "--jobs", "2"]):
        models = {}
        for name in ("box", "files"):
            events.clear()
            rc, out, err = cli("train", tmp_path / name, "-o", tmp_path / f"{name}.tnb", "--json",
                               "--max-bytes", "4000", *extra)
            assert rc == 0, err
            summary = json.loads(out)
            assert (summary["documents"], summary["per_class"]) == (180, {"ham": 30, "spam": 150}), extra
            models[name] = tmp_path / f"{name}.tnb"
            if name == "box":
                assert summary["skipped_binary"] == 1  # (the empty message)
                reads = [k for k, e in enumerate(events) if e == "read"]
                assert len(reads) == 151, extra  # (read here: by the counting's reader, or for the workers)
                if extra != ["--stem", "porter", "--jobs", "2"]:  # (forked workers count out of sight)
                    assert events.index("count") < reads[-1], extra
        if "multinomial" in extra:
            assert models["box"].read_bytes() == models["files"].read_bytes()
        texts = ["free cash prize now", "lunch meeting plan", "claim your award"]
        probabilities = [textnb.load(models[name]).predict_proba(texts) for name in ("box", "files")]
        np.testing.assert_allclose(*probabilities, rtol=0, atol=1e-9)


def test_training_progress_moves_while_a_large_mbox_is_read(tmp_path, monkeypatch):
    """A large mbox file is one listed document, read a piece at a time: each piece counts its
    share of the file (``io.corpus.MessageStream.pieces``, Fractions that sum to exactly 1), so
    the progress training reports moves while the file is read (fractions of a document, two
    decimals) and ends on the whole number of documents; every message is learnt once."""
    from pathlib import Path

    import numpy as np

    import textnb.io.files as files
    from textnb.text.defaults import VECTORIZER_DEFAULTS
    from textnb.text.tokenize import analyzer_from_params
    from textnb.text.training import count_documents

    box = tmp_path / "all.mbox"
    box.write_text("".join(_msg(f"message number {i} about prize cash offer {i % 7}") for i in range(300)))
    (tmp_path / "one.txt").write_text("lunch meeting notes")
    monkeypatch.setattr(files, "BATCH_BYTES", 500)
    analyzer = analyzer_from_params(dict(VECTORIZER_DEFAULTS))
    for jobs in (1, 2):
        seen = []
        acc = count_documents([Path(box), Path(tmp_path / "one.txt")], np.array([0, 1]), np.ones(2), 2, analyzer,
                              max_bytes=2000, progress=seen.append, n_jobs=jobs)
        assert acc.class_count.tolist() == [300.0, 1.0]
        partial = [v for v in seen if 0 < v < 1]
        assert len(partial) > 5 and partial == sorted(partial) and all(round(v, 2) == v for v in partial)
        assert seen[-1] == 2 and type(seen[-1]) is int and seen == sorted(seen), seen[-3:]


def _sms_mbox_corpus(root, files_per_class, limit=1200):
    """The bundled SMS collection's first ``limit`` messages as mail, each class's in
    ``files_per_class`` mbox files (a ``From `` at the start of a text quoted, as mboxrd does)."""
    rows = [line.split("\t", 1) for line in SMS_TSV.read_text(encoding="utf-8").splitlines()[:limit]]
    for label in ("spam", "ham"):
        texts = [text for lab, text in rows if lab == label]
        (root / label).mkdir(parents=True)
        for k in range(files_per_class):
            part = texts[k::files_per_class]
            (root / label / f"{label}{k}.mbox").write_text(
                "".join(_msg((">" if t.startswith("From ") else "") + t) for t in part), encoding="utf-8")
    return root


def test_evaluate_deals_the_messages_of_a_class_held_by_one_mbox_file_one_by_one(tmp_path):
    """A corpus of one mbox file per class (spam.mbox, ham.mbox: real SMS messages): held out
    by file, every fold's model would lack the class it tests, and every message was scored
    wrong (accuracy 0.0000); the messages of such a file are dealt to the folds one by one and
    the report says so (``groups_note``, and the protocol line). With two files per class the
    messages of a file still share a fold, and nothing is said."""
    corpus = _sms_mbox_corpus(tmp_path / "one", 1)
    rc, out, err = cli("evaluate", corpus, "--cv", "5", "--json")
    assert rc == 0, err
    report = json.loads(out)
    assert report["n"] == 1200 and report["accuracy"] > 0.95 and report["log_loss"] < 0.2
    assert "classes 'ham', 'spam' each have all their messages in one mbox file" in report["groups_note"]
    rc, out, err = cli("evaluate", corpus, "--cv", "5")
    first = out.splitlines()[0]
    assert first.startswith("5-fold cross-validation x 1 (classes 'ham', 'spam' each have all their messages in one "
                            "mbox file: dealt to the folds one by one"), first
    corpus = _sms_mbox_corpus(tmp_path / "two", 2)
    for folds, seed in ((3, 0), (3, 1), (3, 3), (5, 0), (5, 2)):  # (before, seed 0 of 3 folds: 0.0000)
        rc, out, err = cli("evaluate", corpus, "--cv", folds, "--seed", seed, "--json")
        assert rc == 0, err
        report = json.loads(out)
        assert "groups_note" not in report and "log_loss_omitted" not in report, (folds, seed)
        assert report["accuracy"] > 0.9, (folds, seed)
        if folds == 5:  # four files fill four folds at most: the report says how many ran (it said 5)
            assert report["folds"] <= 4 and report["folds_note"].startswith(f"{report['folds']} of the 5 folds asked "
                                                                          f"for: the messages of an mbox file share")


def test_evaluate_keeps_each_files_messages_in_one_fold_and_every_class_in_every_folds_training(tmp_path):
    """Two mbox files per class: each file's messages are held out together (by the library's
    folds: no file on both sides of a split), and no fold holds out every file of a class
    (two files of a class that fell in one fold left its model without the class: with 3
    folds and seed 0 every message was scored wrong); --multilabel's folds alike."""
    import numpy as np

    from textnb.core.folds import class_wide_groups, kfold_groups, stratified_kfold

    y = np.repeat(["ham", "spam"], [40, 20])
    files = np.repeat([0, 1, 2, 3], [25, 15, 12, 8])  # two files of each class
    for seed in range(20):
        for k in (2, 3, 5):
            codes, whole = class_wide_groups(y, files)
            assert whole == []
            for train, test in stratified_kfold(y, k, seed, groups=codes, spread=True):
                assert not set(files[train]) & set(files[test])
                assert set(y[train]) == {"ham", "spam"}
            Y = np.stack([y == "ham", y == "spam"], axis=1).astype(int)
            for train, test in kfold_groups(len(y), k, seed, codes, spread=Y):
                assert not set(files[train]) & set(files[test])
                assert Y[train].sum(axis=0).all()  # every label learnt
    corpus = _sms_mbox_corpus(tmp_path / "ml", 2)
    for seed in (0, 1, 2):
        rc, out, err = cli("evaluate", corpus, "--multilabel", "--cv", "3", "--seed", seed, "--json")
        assert rc == 0, err
        report = json.loads(out)
        assert report["micro_f1"] > 0.9, seed
        assert report["folds"] == 3 or report["folds_note"].startswith(f"{report['folds']} of the 3 folds asked for")


def test_a_folder_of_mbox_files_without_class_folders_says_where_they_go(tmp_path):
    """``corpus/spam.mbox`` and ``corpus/ham.mbox`` (a class per file, as sa-learn and
    bogofilter take them): train and evaluate refuse the folder in one line that says to
    put each file in a folder named by its class; that layout then reads."""
    corpus = _sms_mbox_corpus(tmp_path / "boxes", 1)
    flat = tmp_path / "flat"
    flat.mkdir()
    for label in ("spam", "ham"):
        (corpus / label / f"{label}0.mbox").rename(flat / f"{label}0.mbox")
    (flat / "notes.txt").write_text("not mail")
    for command in (("train", flat, "-o", tmp_path / "m.tnb"), ("evaluate", flat)):
        rc, out, err = cli(*command)
        assert rc == 1 and out == ""
        line = one_error_line(err, f"{flat}: no class folders", "holds mbox files (ham0.mbox, spam0.mbox): put each in "
                              f"a folder named by its class ({flat / 'ham0' / 'ham0.mbox'})", "spamfilter --train-spam")
        assert "notes.txt" not in line
    empty = tmp_path / "empty"
    empty.mkdir()
    rc, out, err = cli("train", empty, "-o", tmp_path / "m.tnb")
    assert one_error_line(err, f"{empty}: no class folders (expected").endswith("<label>/<files>)")
