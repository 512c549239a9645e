"""What a user trial of `textnb train` on folder corpora as users lay them out, and of
`textnb merge`, found (session 26): folders a split corpus leaves unread, empty class
folders and a missing multi-label folder are said."""

import warnings

from conftest import cli, one_error_line


def _write(folder, texts):
    folder.mkdir(parents=True, exist_ok=True)
    for i, text in enumerate(texts):
        (folder / f"{i}.txt").write_text(text)


def test_a_class_named_train_holding_subfolders_beside_other_classes_is_said(tmp_path):
    """A class folder `train/` whose documents sit in subfolders, beside classes `car` and
    `bus`, made the corpus a split one: the model learned the classes '2020' and 'old' and
    left `car` and `bus` out, exit 0, without a word."""
    c = tmp_path / "c"
    for name in ("car", "bus"):
        _write(c / name, [f"{name} wheels road {i}" for i in range(3)])
    _write(c / "train" / "2020", [f"rail track {i}" for i in range(3)])
    _write(c / "train" / "old", [f"rail steam {i}" for i in range(3)])
    rc, out, err = cli("train", c, "-o", tmp_path / "m.tnb")
    assert rc == 0, err
    assert "read 6 documents" in out  # (the layout's meaning is kept: train/ is the training part)
    assert "warning:" in err and "the folders 'bus', 'car' beside train/ are not read" in err, err
    # a split corpus whose test/ holds files but no class folders: the test part is not read
    s = tmp_path / "s"
    _write(s / "train" / "a", ["alpha beta", "alpha gamma"])
    _write(s / "train" / "b", ["delta eps", "delta zeta"])
    _write(s / "test", ["alpha beta"])
    from textnb import open_corpus
    from textnb.core.errors import DataWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        corpus = open_corpus(s)
    assert corpus.test is None
    assert any(w.category is DataWarning and "test/ holds no class folders" in str(w.message) for w in caught)
    # a plain split corpus says nothing
    p = tmp_path / "p"
    for part in ("train", "test"):
        _write(p / part / "a", ["alpha beta", "alpha gamma"])
        _write(p / part / "b", ["delta eps", "delta zeta"])
    rc, out, err = cli("evaluate", p)
    assert rc == 0 and "warning" not in err, err


def test_an_empty_class_folder_is_said_not_dropped_in_silence(tmp_path):
    """A class folder holding no files was left out of the classes without a word (a class
    folder of binary files only is an error); the model could never predict it."""
    c = tmp_path / "c"
    _write(c / "ham", ["meeting lunch", "project meeting"])
    _write(c / "spam", ["cheap offer", "win money"])
    (c / "empty").mkdir()
    (c / "also" / "sub").mkdir(parents=True)  # (a folder of empty folders holds no files either)
    rc, out, err = cli("train", c, "-o", tmp_path / "m.tnb", "--json")
    assert rc == 0, err
    assert "class folders 'also', 'empty' hold no files; not read as classes" in err, err
    assert err.count("\n") == 1


def test_a_missing_multilabel_folder_is_called_missing(tmp_path):
    """`train nothere --labels L` said `nothere: not a folder`, as for a file, where every
    other PATH says `no such file or folder`."""
    (tmp_path / "l.tsv").write_text("a\tx\n")
    rc, out, err = cli("train", tmp_path / "nothere", "--labels", tmp_path / "l.tsv", "-o", tmp_path / "m.tnb")
    assert rc == 1 and one_error_line(err, "nothere: no such folder"), err
    (tmp_path / "f.txt").write_text("x\n")
    rc, out, err = cli("train", tmp_path / "f.txt", "--multilabel", "-o", tmp_path / "m.tnb")
    # a file that is no multi-label format is said so (session 49; was 'not a folder')
    assert rc == 1 and one_error_line(err, "f.txt: not a multi-label corpus ("), err


def test_parts_trained_with_another_model_are_refused_in_the_options_words(tmp_path):
    """Parts of --model multinomial and complement (or the default) were refused with `cannot
    merge a ComplementNB model into a MultinomialNB`, no option named and nothing to do, where
    every other difference names both files' options."""
    rows = [("spam", "cheap offer now"), ("ham", "meeting at noon"), ("spam", "win money"), ("ham", "lunch today")]
    (tmp_path / "a.tsv").write_text("".join(f"{a}\t{b}\n" for a, b in rows))
    for name, model in (("m", ["--model", "multinomial"]), ("c", ["--model", "complement"]), ("d", [])):
        assert cli("train", tmp_path / "a.tsv", "-o", tmp_path / f"{name}.tnb", *model)[0] == 0
    rc, out, err = cli("merge", tmp_path / "m.tnb", tmp_path / "c.tnb", "-o", tmp_path / "x.tnb")
    assert rc == 1 and one_error_line(err, "c.tnb: cannot merge into", "m.tnb: their models differ",
                                      "c.tnb: --model complement", "m.tnb: --model multinomial",
                                      "train the parts with the same --model"), err
    rc, out, err = cli("merge", tmp_path / "d.tnb", tmp_path / "m.tnb", "-o", tmp_path / "x.tnb")
    assert rc == 1 and one_error_line(err, "d.tnb: the default model (DiscriminativeNB)", "same --model"), err
    assert not (tmp_path / "x.tnb").exists()


def test_a_fasttext_file_whose_first_line_has_its_label_further_on_says_to_give_fasttext(tmp_path):
    """fastText takes a label word anywhere on a line; a file whose first line does not start
    with one is read as a one-column table, refused with 'only the class attribute ...;
    nothing to learn from' and no word of --fasttext, which reads it."""
    f = tmp_path / "f.txt"
    f.write_text("hello __label__spam cheap offer\n__label__ham meeting noon\ncheap __label__spam win\n"
                 "__label__ham lunch\n")
    rc, out, err = cli("train", f, "-o", tmp_path / "m.tnb")
    assert rc == 1 and one_error_line(err, "nothing to learn from", "give --fasttext"), err
    assert cli("train", f, "--fasttext", "-o", tmp_path / "m.tnb")[0] == 0
    (tmp_path / "one.txt").write_text("alpha\nbeta\ngamma\n")  # no label word: no fastText hint
    rc, out, err = cli("train", tmp_path / "one.txt", "-o", tmp_path / "m.tnb")
    assert rc == 1 and "fastText" not in err and one_error_line(err, "nothing to learn from"), err
    # but what a text corpus is: a file of text alone (a mail message, a document) was taken for one
    one_error_line(err, "a text corpus is a folder of one sub-folder per class", "a TSV/CSV file of a label and a "
                   "text column: a file of text alone is one document, to predict")


def test_merge_keeps_the_fasttext_label_prefix_of_its_parts(tmp_path):
    """`textnb merge` of parts trained on fastText files with `--label-prefix '#'` wrote a model
    without the prefix (`textnb test MERGED FILE`: `no line has a label (words starting with
    '__label__')`); `TextClassifier.merge` kept the first part's, so merge(a, b) and merge(b, a)
    differed. Parts with two different prefixes are refused."""
    import pytest

    from textnb import load
    from textnb.core.errors import SettingsDiffer

    lines = {"h1": ["#spam cheap offer now", "#ham meeting tomorrow"], "h2": ["#spam win money", "#ham lunch time"],
             "u": ["__label__spam cheap deal", "__label__ham noon lunch"], "at": ["@spam cheap", "@ham noon"]}
    prefix = {"h1": "#", "h2": "#", "u": None, "at": "@"}
    for name, text in lines.items():
        (tmp_path / f"{name}.txt").write_text("\n".join(text) + "\n")
        flags = ["--label-prefix", prefix[name]] if prefix[name] else []
        assert cli("train", tmp_path / f"{name}.txt", "-o", tmp_path / f"{name}.tnb", "--model", "multinomial",
                   *flags)[0] == 0
    assert cli("merge", tmp_path / "h1.tnb", tmp_path / "h2.tnb", "-o", tmp_path / "m.tnb")[0] == 0
    rc, out, err = cli("test", tmp_path / "m.tnb", tmp_path / "h2.txt")
    assert rc == 0 and out.splitlines()[0] == "N\t2", err
    for order in (("u", "h1"), ("h1", "u")):  # a part without a prefix takes the other's, in either order
        assert cli("merge", *(tmp_path / f"{n}.tnb" for n in order), "-o", tmp_path / f"{''.join(order)}.tnb")[0] == 0
    assert (tmp_path / "uh1.tnb").read_bytes() == (tmp_path / "h1u.tnb").read_bytes()
    assert cli("test", tmp_path / "uh1.tnb", tmp_path / "h2.txt")[0] == 0
    rc, out, err = cli("merge", tmp_path / "u.tnb", tmp_path / "h1.tnb", tmp_path / "at.tnb", "-o", tmp_path / "x.tnb")
    assert rc == 1 and one_error_line(err, "fastText label prefixes differ", "at.tnb: --label-prefix '@'",
                                      "h1.tnb: --label-prefix '#'"), err
    # the library: the estimator's merge keeps the prefix either part keeps, refuses two
    a, b = load(tmp_path / "u.tnb"), load(tmp_path / "h1.tnb")
    assert a.merge(b).vectorizer_.label_prefix_ == "#"
    with pytest.raises(SettingsDiffer, match="label prefixes differ"):
        load(tmp_path / "h1.tnb").merge(load(tmp_path / "at.tnb"))


def test_label_file_ids_written_as_find_prints_them_are_found(tmp_path):
    """A --labels file made with `find . -type f` (`./s1.txt`), or with `a//b`, `a/./b` or
    Windows separators in an id, matched no file: every id 'not in the folder', every file
    unlisted, and a model of the other ids' labels only (exit 0, with a one-label warning)."""
    import json

    d = tmp_path / "d"
    (d / "sub").mkdir(parents=True)
    lines = []
    for i in range(6):
        (d / f"s{i}.txt").write_text(f"cheap offer money {i}")
        (d / "sub" / f"h{i}.txt").write_text(f"meeting project lunch {i}")
        lines += [f"./s{i}.txt\tspam", (f"./sub/./h{i}.txt" if i % 2 else f"sub\\h{i}") + "\tham"]
    (tmp_path / "l.tsv").write_text("\n".join(lines) + "\n")
    rc, out, err = cli("train", d, "--labels", tmp_path / "l.tsv", "-o", tmp_path / "m.tnb", "--json")
    assert rc == 0, err
    summary = json.loads(out)
    assert summary["documents"] == 12 and summary["per_label"] == {"ham": 6, "spam": 6}, summary
    assert summary["not_in_folder"] == 0 and summary["unlisted"] == 0 and "warning" not in err, err


def test_merged_fasttext_models_sum_their_word_counts(tmp_path):
    """`train_supervised` keeps each word's training occurrences (`get_words(include_freq=True)`);
    a merge kept the first part's counts for the merged vocabulary (`cheap` 2 where the parts
    saw it 2 + 1 times), and `textnb merge` dropped them."""
    from textnb.fasttext import load_model, train_supervised

    (tmp_path / "a.txt").write_text("__label__a cheap cheap offer\n__label__b lunch noon\n")
    (tmp_path / "b.txt").write_text("__label__a zebra cheap\n__label__b noon\n")
    a, b = train_supervised(str(tmp_path / "a.txt")), train_supervised(str(tmp_path / "b.txt"))
    a.save_model(str(tmp_path / "a.tnb"))
    b.save_model(str(tmp_path / "b.tnb"))
    want = (["cheap", "noon", "lunch", "offer", "zebra"], [3, 2, 1, 1, 1])  # (most frequent first, as fastText)
    merged = a.estimator.merge(b.estimator)
    words, counts = type(a)(merged).get_words(include_freq=True)
    assert (words, counts.tolist()) == want
    assert cli("merge", tmp_path / "a.tnb", tmp_path / "b.tnb", "-o", tmp_path / "m.tnb")[0] == 0
    words, counts = load_model(str(tmp_path / "m.tnb")).get_words(include_freq=True)
    assert (words, counts.tolist()) == want


def test_an_output_that_names_an_input_is_refused_by_every_command(tmp_path):
    """``textnb merge a.tnb b.tnb -o a.tnb`` replaced the input a.tnb with the merge (atomically,
    but the part was gone), where ``train X -o X`` was refused. One rule now, in one function
    (``core.model_io.output_target`` given the command's inputs): every -o/--output and --plot
    that names an input (itself, through a link, or a file of an input folder) is one line naming
    the file, exit 1, the input untouched."""
    corpus = tmp_path / "c.tsv"
    corpus.write_text("spam\tcheap pills\nham\tlunch at noon\nspam\tcheap offer\nham\tsee you at noon\n")
    other = tmp_path / "d.tsv"
    other.write_text("spam\twin cash now\nham\tthe meeting moved\n")
    a, b = tmp_path / "a.tnb", tmp_path / "b.tnb"
    for source, model in ((corpus, a), (other, b)):
        assert cli("train", source, "--model", "multinomial", "-o", model)[0] == 0
    link = tmp_path / "link.tnb"
    link.symlink_to(a)
    before = {p: p.read_bytes() for p in (a, b, corpus)}
    for args, named in ((["merge", a, b, "-o", a], a), (["merge", a, b, "-o", b], b),
                        (["merge", a, b, "--output", link], a), (["merge", link, b, "-o", a], link),
                        (["train", corpus, "-o", corpus], corpus),
                        (["evaluate", corpus, "--plot", corpus], corpus),
                        (["inspect", a, "--plot", a], a)):
        rc, out, err = cli(*args)
        assert rc == 1, (args, err)
        line = one_error_line(err, "is the same file as the input", "refusing to replace it", str(named))
        assert line.startswith(f"textnb: error: {args[-1]}: "), line
        assert out == ""
    assert {p: p.read_bytes() for p in before} == before
    rc, out, err = cli("merge", a, b, "-o", tmp_path / "m.tnb")  # a new file: merged as before
    assert rc == 0 and "merged 2 models" in out, err


def test_a_default_prefix_part_merged_with_another_prefix_reads_by_the_one_kept(tmp_path):
    """A part trained on `__label__` lines keeps no prefix (the default is not written, as a
    folder-trained model keeps none), so merged with a `--label-prefix '#'` part the model
    keeps `#`, in either order, without a refusal: the files cannot tell the two apart
    (session 44's user trial; the rule is the README's, merge section). Its `test` of the
    `__label__` file then says the prefix it reads by, and reads it given `--label-prefix`."""
    (tmp_path / "u.txt").write_text("__label__spam cheap deal now\n__label__ham noon lunch\n")
    (tmp_path / "h.txt").write_text("#spam win money\n#ham meeting tomorrow\n")
    assert cli("train", tmp_path / "u.txt", "--model", "multinomial", "-o", tmp_path / "u.tnb")[0] == 0
    assert cli("train", tmp_path / "h.txt", "--model", "multinomial", "--label-prefix", "#",
               "-o", tmp_path / "h.tnb")[0] == 0
    for order in (("u", "h"), ("h", "u")):
        rc, out, err = cli("merge", *(tmp_path / f"{n}.tnb" for n in order), "-o", tmp_path / f"{''.join(order)}.tnb")
        assert (rc, err) == (0, "")
    assert (tmp_path / "uh.tnb").read_bytes() == (tmp_path / "hu.tnb").read_bytes()
    rc, out, err = cli("test", tmp_path / "uh.tnb", tmp_path / "u.txt")
    assert rc == 1 and one_error_line(err, "no line has a label (words starting with '#')")
    rc, out, err = cli("test", tmp_path / "uh.tnb", tmp_path / "u.txt", "--label-prefix", "__label__")
    assert rc == 0 and out.splitlines()[0] == "N\t2", err


def test_inspect_says_a_merged_default_models_temperature_is_the_parts_average(tmp_path):
    """Found by a user trial: a merge of default models averages the parts' temperatures
    (weighted by their documents), and ``inspect`` said of it "one temperature fitted on
    held-out training documents"; a partial_fit after the merge fits one again."""
    import json

    from conftest import SMS_TSV

    rows = SMS_TSV.read_text(encoding="utf-8").splitlines()
    for name, part in (("a", rows[:600]), ("b", rows[600:1200])):
        (tmp_path / f"{name}.tsv").write_text("\n".join(part) + "\n", encoding="utf-8")
        rc, _, err = cli("train", tmp_path / f"{name}.tsv", "-o", tmp_path / f"{name}.tnb")
        assert rc == 0, err
    rc, _, err = cli("merge", tmp_path / "a.tnb", tmp_path / "b.tnb", "-o", tmp_path / "m.tnb")
    assert rc == 0, err
    for name, merged in (("a", False), ("m", True)):
        rc, out, err = cli("inspect", tmp_path / f"{name}.tnb")
        line = next(x for x in out.splitlines() if x.startswith("calibration:"))
        assert ("averaged by their documents" in line) is merged and ("fitted on held-out" in line) is not merged, line
        rc, out, err = cli("inspect", tmp_path / f"{name}.tnb", "--json")
        assert json.loads(out).get("calibration_merged", False) is merged
    import textnb

    model = textnb.load(tmp_path / "m.tnb")
    assert model.model_.scale_merged_ is True
    texts = [r.split("\t", 1)[1] for r in rows[1200:1300]]
    model.partial_fit(texts, [r.split("\t", 1)[0] for r in rows[1200:1300]])
    assert not hasattr(model.model_, "scale_merged_")
