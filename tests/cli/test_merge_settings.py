"""``textnb merge`` of models whose settings differ, and the reasons of its refusals."""

import io
import shutil
from pathlib import Path

import pytest

from conftest import REPO, SMS_TSV, cli, one_error_line, tiny_mail, tsv

WEATHER = REPO / "corpora" / "weather.nominal.arff"

ROWS = [("spam", "cheap pills now"), ("ham", "meeting at noon"), ("spam", "cheap offer pills"),
        ("ham", "lunch at noon"), ("spam", "buy cheap now"), ("ham", "noon meeting moved")]


@pytest.mark.parametrize("model, same, other, setting", [
    ("multinomial", [], ["--alpha", "0.01"], "alpha"),
    ("bernoulli", [], ["--uniform-prior"], "fit_prior"),
    ("bernoulli", ["--alpha", "0.5"], ["--alpha", "2"], "alpha"),
    ("complement", [], ["--norm"], "norm"),
    ("multinomial", [], ["--m", "3"], "m"),
    ("multinomial", [], ["--ngram", "2"], "ngram_range"),
    ("multinomial", [], ["--binary"], "binary"),
    ("multinomial", [], ["--min-df", "2"], "min_df"),
    ("multinomial", [], ["--stop-words", "english"], "stop_words"),
    ("multinomial", [], ["--max-bytes", "1000"], "max_bytes"),
])
def test_merge_refuses_text_models_whose_settings_differ(tmp_path, model, same, other, setting):
    """The merged model took the first file's settings, so ``merge a b`` and ``merge b a``
    gave different models (the determinism docs say they give the same bytes): refused in
    one line naming both files and the setting, either way round, no output written."""
    data = tsv(tmp_path / "d.tsv", ROWS)
    a, b = tmp_path / "a.tnb", tmp_path / "b.tnb"
    assert cli("train", data, "--model", model, *same, "-o", a)[0] == 0
    assert cli("train", data, "--model", model, *same, *other, "-o", b)[0] == 0
    for first, second in ((a, b), (b, a)):
        rc, out, err = cli("merge", first, second, "-o", tmp_path / "m.tnb")
        assert rc == 1 and out == "" and not (tmp_path / "m.tnb").exists()
        line = err.strip().splitlines()[-1]
        one_error_line(line, f"{second}: cannot merge into {first}", "settings differ", f"({setting} is ",
                       f"in {second}", f"in {first}")
        # what to do names the option that sets it (was: 'train the parts with the same options')
        flag = next(word for word in other if word.startswith("--"))
        assert f"train the parts with the same {flag} (" in line or \
            f"train both parts with {flag} or both without it (" in line, line
        # and each file's value as the option spells it (was: the library's values only)
        assert f"{b}: {' '.join(other)}" in line and line.endswith(")"), line


def test_option_spelling_says_what_the_command_line_gives_and_nothing_else():
    """The merge refusal's option words: a value no option gives (a library model's) is None."""
    from textnb.meta.registry import option_spelling

    assert option_spelling("ngram_range", (1, 3)) == "--ngram 3"
    assert option_spelling("ngram_range", (2, 3)) is None
    assert option_spelling("binary", True) == "--binary" and option_spelling("binary", False) == "no --binary"
    assert option_spelling("lowercase", False) == "--no-lowercase"
    assert option_spelling("lowercase", True) == "no --no-lowercase"
    assert option_spelling("fit_prior", False) == "--uniform-prior"
    assert option_spelling("stop_words", None) == "no --stop-words"
    assert option_spelling("stop_words", ["a", "b"]) == "a --stop-words file of 2 words"
    assert option_spelling("alpha", 0.25) == "--alpha 0.25" and option_spelling("min_df", 0.5) == "--min-df 0.5"
    assert option_spelling("class_prior", [0.5, 0.5]) is None and option_spelling("verbose", 1) is None


def test_the_remedy_spells_two_close_numbers_apart(tmp_path):
    """Found by a user trial: the remedy printed both parts' --alpha 0.5000001 and 0.5 as
    '--alpha 0.5' (':g', six digits), contradicting the line's start."""
    from textnb.meta.registry import option_spelling

    assert option_spelling("alpha", 0.5000001) == "--alpha 0.5000001"
    assert option_spelling("max_df", 0.3333334) == "--max-df 0.3333334"
    assert option_spelling("alpha", 0.5) == "--alpha 0.5" and option_spelling("alpha", 1e-10) == "--alpha 1e-10"
    rows = SMS_TSV.read_text(encoding="utf-8").splitlines()
    (tmp_path / "a.tsv").write_text("\n".join(rows[:300]) + "\n", encoding="utf-8")
    (tmp_path / "b.tsv").write_text("\n".join(rows[300:600]) + "\n", encoding="utf-8")
    for part, alpha in (("a", "0.5"), ("b", "0.5000001")):
        rc, _, err = cli("train", tmp_path / f"{part}.tsv", "--model", "multinomial", "--alpha", alpha,
                         "-o", tmp_path / f"{part}.tnb")
        assert rc == 0, err
    rc, _, err = cli("merge", tmp_path / "a.tnb", tmp_path / "b.tnb", "-o", tmp_path / "m.tnb")
    assert rc == 1 and "--alpha 0.5000001;" in err and "--alpha 0.5)" in err, err


def test_merge_of_text_models_with_the_same_settings_is_symmetric(tmp_path):
    """Settings equal (and ``--jobs``, which is not a setting, different): merged either
    way round, the same bytes."""
    a = tsv(tmp_path / "a.tsv", ROWS[:3])
    b = tsv(tmp_path / "b.tsv", ROWS[3:])
    assert cli("train", a, "--model", "bernoulli", "--uniform-prior", "--alpha", "0.5", "--jobs", "1",
               "-o", tmp_path / "a.tnb")[0] == 0
    assert cli("train", b, "--model", "bernoulli", "--uniform-prior", "--alpha", "0.5", "--jobs", "2",
               "-o", tmp_path / "b.tnb")[0] == 0
    assert cli("merge", tmp_path / "a.tnb", tmp_path / "b.tnb", "-o", tmp_path / "ab.tnb") == (
        0, f"merged 2 models -> {tmp_path / 'ab.tnb'}\n", "")
    assert cli("merge", tmp_path / "b.tnb", tmp_path / "a.tnb", "-o", tmp_path / "ba.tnb")[0] == 0
    assert (tmp_path / "ab.tnb").read_bytes() == (tmp_path / "ba.tnb").read_bytes()


@pytest.mark.parametrize("model", ["multinomial", "bernoulli", "complement"])
def test_a_part_given_the_default_alpha_merges_with_one_given_none(tmp_path, model):
    """``--alpha 1`` (the count models' default, given) changes no estimate: its part merges
    with one trained without it, either way round, the same predictions (*was*: refused,
    'force_alpha is False in b.tnb, True in a.tnb', a setting no option sets). An alpha below
    the floor, where ``force_alpha`` decides, is still compared."""
    from textnb.core.errors import SettingsDiffer
    from textnb.core.model_schema import check_same_settings

    a = tsv(tmp_path / "a.tsv", ROWS[:3])
    b = tsv(tmp_path / "b.tsv", ROWS[3:])
    assert cli("train", a, "--model", model, "-o", tmp_path / "a.tnb")[0] == 0
    assert cli("train", b, "--model", model, "--alpha", "1", "-o", tmp_path / "b.tnb")[0] == 0
    for first, second in (("a", "b"), ("b", "a")):
        code, out, err = cli("merge", tmp_path / f"{first}.tnb", tmp_path / f"{second}.tnb",
                             "-o", tmp_path / f"{first}{second}.tnb")
        assert code == 0, err
    both = tsv(tmp_path / "all.tsv", ROWS)
    predictions = [cli("predict", tmp_path / f"{m}.tnb", both, "--proba")[1] for m in ("ab", "ba")]
    assert predictions[0] == predictions[1] and predictions[0].count("\n") == len(ROWS)
    assert check_same_settings({"alpha": 1.0, "force_alpha": True}, {"alpha": 1.0, "force_alpha": False}) is None
    with pytest.raises(SettingsDiffer, match="force_alpha"):
        check_same_settings({"alpha": 0.0, "force_alpha": True}, {"alpha": 0.0, "force_alpha": False})


def _older_file(path, out, key):
    """``path``'s model written as a file of an older textnb that did not record ``key`` (a
    parameter or state field of any node)."""
    from textnb.core.model_io import ModelNode, read_nodes, save

    def drop(node):
        if isinstance(node, ModelNode):
            return ModelNode(node.kind, {k: drop(v) for k, v in node.params.items() if k != key},
                             {k: drop(v) for k, v in node.state.items() if k != key})
        if isinstance(node, (list, tuple)):
            return type(node)(drop(v) for v in node)
        return node

    save(drop(read_nodes(path)), out, check=False)
    return out


def test_merge_of_a_file_an_older_textnb_wrote_says_to_train_it_again(tmp_path):
    """Files written before textnb recorded an ARFF's class values, or before spamfilter marked
    its models' input, merged with today's files of the same data: the refusal says the older
    file may be the cause and to train it again (*was*: 'one part was trained on a file that
    declares its class values ...' of two parts trained on one ARFF file, and 'train the parts
    with the same options' of a spam model, whose input no option sets)."""
    a = tmp_path / "a.tnb"
    assert cli("train", WEATHER, "--model", "nb", "-o", a)[0] == 0
    old = _older_file(a, tmp_path / "old.tnb", "class_values")
    rc, out, err = cli("merge", old, a, "-o", tmp_path / "m.tnb")
    assert rc == 1 and not (tmp_path / "m.tnb").exists()
    one_error_line(err, "class_values is", "or written by an older textnb, which did not record them",
                   "train both from the same kind of file with this textnb")
    spam, ham = tiny_mail(tmp_path)
    model = tmp_path / "s.tnb"
    code = __import__("textnb.cli.mailcli", fromlist=["spamfilter"]).spamfilter(
        ["-m", str(model), "--kind", "multinomial", "--train-spam", str(spam), "--train-ham", str(ham)])
    assert code == 0
    old = _older_file(model, tmp_path / "old_spam.tnb", "input_")
    rc, out, err = cli("merge", old, model, "-o", tmp_path / "m2.tnb")
    assert rc == 1 and not (tmp_path / "m2.tnb").exists()
    one_error_line(err, "input_ is", "a model spamfilter wrote before textnb marked what its models read",
                   "train that part again with spamfilter --train-*")


@pytest.mark.parametrize("model, other, setting", [
    ("nb", ["--alpha", "0.5"], "alpha"),
    ("nb", ["--nominal", "m-estimate"], "nominal"),
    ("aode", ["--m", "2"], "m"),
])
def test_merge_refuses_table_models_whose_settings_differ(tmp_path, model, other, setting):
    """TabularNB and AODE files had the same gap (the first file's alpha / m won)."""
    weather = WEATHER
    a, b = tmp_path / "a.tnb", tmp_path / "b.tnb"
    assert cli("train", weather, "--model", model, "-o", a)[0] == 0
    assert cli("train", weather, "--model", model, *other, "-o", b)[0] == 0
    rc, out, err = cli("merge", a, b, "-o", tmp_path / "m.tnb")
    assert rc == 1 and not (tmp_path / "m.tnb").exists()
    one_error_line(err, f"{b}: cannot merge into {a}", "settings differ", f"({setting} is ")
    shutil.copyfile(a, tmp_path / "a2.tnb")  # (the same file twice is refused)
    assert cli("merge", a, tmp_path / "a2.tnb", "-o", tmp_path / "m.tnb")[0] == 0  # the same settings still merge


def test_merge_of_a_spam_model_gives_the_true_reason(tmp_path):
    """A spam model was refused as if 'its structure is learned from all the data' (its token
    counts are learned one message at a time): the line says how spam models are combined."""
    from textnb.cli.mailfilters import filter_main

    spam, ham = tiny_mail(tmp_path)
    model = tmp_path / "spam.tnb"
    assert filter_main(["-m", str(model), "--train-spam", str(spam), "--train-ham", str(ham)],
                       stdin=io.BytesIO(), stdout=io.BytesIO(), stderr=io.StringIO()) == 0
    rc, out, err = cli("merge", model, model, "-o", tmp_path / "m.tnb")
    assert rc == 1 and not (tmp_path / "m.tnb").exists()
    line = one_error_line(err, f"{model}: ", "cannot be merged", "--register-spam", "--register-ham")
    assert "structure" not in line


@pytest.mark.parametrize("options, fragments", [
    (["--model", "tan"], ["a TAN model cannot be merged", "tree of attribute dependencies"]),
    (["--lazy", "lbr"], ["an LBR model cannot be merged", "training rows"]),
    (["--adjust"], ["an APNBC model cannot be merged", "class weights"]),
    (["--calibrate", "sigmoid"], ["a CalibratedNB model cannot be merged", "out-of-fold scores"]),
])
def test_merge_refusals_of_table_models_say_what_is_learned_from_all_the_data(tmp_path, options, fragments):
    """Every model without a merge was refused with 'its structure is learned from all the
    data'; each now gives the reason its class declares."""
    model = tmp_path / "t.tnb"
    assert cli("train", WEATHER, *options, "-o", model)[0] == 0
    rc, out, err = cli("merge", model, model, "-o", tmp_path / "m.tnb")
    assert rc == 1
    line = one_error_line(err, *fragments)
    assert "structure is learned" not in line


def test_merge_of_one_model_is_refused(tmp_path):
    """'merged 1 models' was written for a single model."""
    (tmp_path / "a.tsv").write_text("spam\tcheap pills now\nham\tlunch at noon\n" * 3)
    assert cli("train", tmp_path / "a.tsv", "--model", "multinomial", "-o", tmp_path / "a.tnb")[0] == 0
    rc, out, err = cli("merge", tmp_path / "a.tnb", "-o", tmp_path / "x.tnb")
    assert rc == 1 and one_error_line(err, "merge adds two models or more") and not (tmp_path / "x.tnb").exists()


def test_parts_whose_headers_declare_the_classes_differently_get_a_remedy_and_no_false_warning(tmp_path):
    """Two ARFF parts whose headers list the class values in another order, or an ARFF part
    and a CSV part: one line saying what differs and what to do, and no warning that their
    classes differ while listing none (the trial of today's paths: 'only in b.tnb: none;
    only in a.tnb: none', then 'train the parts with the same options', which no option does)."""
    head = "@relation t\n@attribute a {x,y}\n@attribute class {%s}\n@data\n"
    (tmp_path / "a.arff").write_text(head % "yes,no" + "x,yes\ny,no\nx,yes\ny,no\n")
    (tmp_path / "b.arff").write_text(head % "no,yes" + "x,yes\ny,no\ny,yes\n")
    (tmp_path / "c.csv").write_text("a,class\nx,yes\ny,no\ny,yes\nx,no\n")
    for name in ("a.arff", "b.arff", "c.csv"):
        assert cli("train", tmp_path / name, "-o", tmp_path / (name[0] + ".tnb"))[0] == 0
    for other, remedy in (("b.tnb", "the same class values in another order: list them in the same order in both "
                                    "ARFF headers"),
                          ("c.tnb", "train both from the same kind of file")):
        code, out, err = cli("merge", tmp_path / "a.tnb", tmp_path / other, "-o", tmp_path / "m.tnb")
        assert code == 1 and "warning" not in err
        one_error_line(err, f"{other}: cannot merge into", "class_values", remedy)
        assert not (tmp_path / "m.tnb").exists()


def test_every_form_of_a_multi_label_model_is_refused_for_being_multi_label(tmp_path):
    """A multi-label model saved as textnb train saves it (a Pipeline) and as
    ``TextClassifier(model=MultiLabelNB())`` (textnb.fasttext's save_model): merge says it is
    multi-label, for either file, in either order and beside a single-label model (it said
    'a text model of MultiLabelNB ... train with --model discriminative', or that the two
    files' kinds differ)."""
    from textnb.fasttext import train_supervised

    lines = ["__label__a __label__b cheap pills", "__label__a free prize", "__label__b lunch today",
             "__label__a __label__b cheap lunch", "__label__b see you", "__label__a win cash"] * 5
    ft = tmp_path / "m.txt"
    ft.write_text("\n".join(lines) + "\n")
    pipe, wrapped, single = tmp_path / "p.tnb", tmp_path / "w.tnb", tmp_path / "s.tnb"
    assert cli("train", ft, "-o", pipe)[0] == 0
    train_supervised(input=str(ft)).save_model(wrapped)
    assert cli("train", REPO / "corpora" / "sms_spam" / "SMSSpamCollection.tsv", "-o", single)[0] == 0
    for first, second in ((pipe, wrapped), (wrapped, pipe), (wrapped, wrapped), (wrapped, single), (single, wrapped)):
        code, _, err = cli("merge", first, second, "-o", tmp_path / "x.tnb")
        assert code == 1 and "a multi-label model cannot be merged" in err, (first, second, err)
        assert not (tmp_path / "x.tnb").exists()


def test_a_refused_merge_prints_only_its_error_and_warnings_come_when_it_goes_ahead(tmp_path):
    """Default (DiscriminativeNB) parts with other classes and another --ngram: the warnings
    ('do not merge exactly', 'its classes differ') came before the refusal; now the refusal is
    its one line, and the warnings are printed when the merge goes ahead."""
    a = tsv(tmp_path / "a.tsv", ROWS)
    b = tsv(tmp_path / "b.tsv", [("other" if label == "ham" else label, text) for label, text in ROWS])
    assert cli("train", a, "-o", tmp_path / "a.tnb")[0] == 0
    assert cli("train", b, "--ngram", "2", "-o", tmp_path / "b2.tnb")[0] == 0
    assert cli("train", b, "-o", tmp_path / "b.tnb")[0] == 0
    rc, out, err = cli("merge", tmp_path / "a.tnb", tmp_path / "b2.tnb", "-o", tmp_path / "m.tnb")
    assert rc == 1 and out == "" and not (tmp_path / "m.tnb").exists()
    one_error_line(err, "cannot merge into", "ngram_range")
    rc, out, err = cli("merge", tmp_path / "a.tnb", tmp_path / "b.tnb", "-o", tmp_path / "m.tnb")
    assert rc == 0 and (tmp_path / "m.tnb").exists()
    lines = err.splitlines()
    assert len(lines) == 2 and all(line.startswith("textnb: warning: ") for line in lines), err
    assert "do not merge exactly" in lines[0] and "its classes differ" in lines[1]


def test_a_model_file_given_twice_is_refused_and_a_copy_warns(tmp_path):
    """``merge a.tnb a.tnb`` silently doubled every count: the same file (the same path, another
    spelling of it, a link to it) is refused in one line, nothing written; two files with the
    same content are merged (two equal parts may be meant) with one warning line."""
    data = tsv(tmp_path / "d.tsv", ROWS)
    a = tmp_path / "a.tnb"
    assert cli("train", data, "--model", "multinomial", "-o", a)[0] == 0
    (tmp_path / "sub").mkdir()
    (tmp_path / "link.tnb").symlink_to(a)
    for second in (a, tmp_path / "sub" / ".." / "a.tnb", tmp_path / "link.tnb"):
        rc, out, err = cli("merge", a, second, "-o", tmp_path / "m.tnb")
        assert rc == 1 and out == "" and not (tmp_path / "m.tnb").exists()
        one_error_line(err, f"{second}: the same model file as {a}", "twice")
    shutil.copyfile(a, tmp_path / "copy.tnb")
    rc, out, err = cli("merge", a, tmp_path / "copy.tnb", "-o", tmp_path / "m.tnb")
    assert rc == 0 and (tmp_path / "m.tnb").exists()
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"textnb: warning: {tmp_path / 'copy.tnb'}: the same content as {a}")


def test_default_parts_that_chose_other_event_models_are_refused_with_the_remedy(tmp_path):
    """Two default (DiscriminativeNB) parts, one whose documents make it choose the complement
    event model (term frequencies tell the classes apart) and one the Bernoulli one (SMS
    messages): the refusal said 'cannot merge a bernoulli (alpha 0.1) DiscriminativeNB into a
    complement (alpha 1.0) one' and nothing of what to do; it names both choices and the
    options that merge (textnb train has no option fixing the event model)."""
    words = ["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta"]
    rows = [(label, " ".join(words + ["alpha"] * (8 if label == "spam" else 1) + ["beta"] * (1 if label == "spam" else 8)))
            for label in ("spam", "ham") * 30]
    tsv(tmp_path / "freq.tsv", rows)
    (tmp_path / "sms.tsv").write_text("".join(SMS_TSV.read_text(encoding="utf-8").splitlines(keepends=True)[:40]))
    for name in ("freq", "sms"):
        assert cli("train", tmp_path / f"{name}.tsv", "-o", tmp_path / f"{name}.tnb")[0] == 0
    rc, out, err = cli("merge", tmp_path / "freq.tnb", tmp_path / "sms.tnb", "-o", tmp_path / "m.tnb")
    assert rc == 1 and out == "" and not (tmp_path / "m.tnb").exists()
    one_error_line(err, f"{tmp_path / 'sms.tnb'}: cannot merge into {tmp_path / 'freq.tnb'}",
                   "their chosen event models differ (event_model is 'bernoulli' in ", "'complement' in ",
                   "chooses its event model on each part's documents",
                   "train every part with the same --model multinomial, bernoulli or complement")


@pytest.mark.parametrize("last_size", ["big", "huge"])
def test_aode_parts_that_list_nominal_values_in_another_order_merge_into_the_whole_files_model(tmp_path, last_size):
    """``textnb train --model aode`` on o1.csv (red, then blue) and o2.csv (blue, then red;
    and with a size only o2 has) and ``textnb merge``: AODE added its value counts by position, a wrong
    model without a word (0.5/0.5 where the whole file's model says 0.714/0.286). The values
    are matched by name: either way round, the merged model predicts the whole file as the
    model trained on it does, the same labels and probabilities."""
    import numpy as np

    from textnb.core.model_io import load
    from textnb.io.tables import read_table

    one = ["red,big,yes", "blue,small,no", "red,small,yes", "blue,big,no", "red,big,yes", "red,small,yes"]
    two = ["blue,small,yes", "red,big,no", "blue,big,yes", "red,small,no", "blue,small,no", f"red,{last_size},yes"]
    for name, rows in (("o1", one), ("o2", two), ("whole", one + two)):
        (tmp_path / f"{name}.csv").write_text("colour,size,class\n" + "\n".join(rows) + "\n")
        assert cli("train", tmp_path / f"{name}.csv", "--model", "aode", "-o", tmp_path / f"{name}.tnb")[0] == 0
    whole = load(tmp_path / "whole.tnb")
    table = read_table(tmp_path / "whole.csv", like=whole.attributes)
    expected = cli("predict", tmp_path / "whole.tnb", tmp_path / "whole.csv", "--proba")
    for first, second in (("o1", "o2"), ("o2", "o1")):
        merged = tmp_path / f"{first}{second}.tnb"
        assert cli("merge", tmp_path / f"{first}.tnb", tmp_path / f"{second}.tnb", "-o", merged) == (
            0, f"merged 2 models -> {merged}\n", "")
        assert cli("predict", merged, tmp_path / "whole.csv", "--proba") == expected
        model = load(merged)
        query = read_table(tmp_path / "whole.csv", like=model.attributes)
        assert sorted(model.attributes[1].values) == sorted({"big", "small", last_size})
        assert np.array_equal(model.predict(query.X), whole.predict(table.X))
        assert np.allclose(model.predict_proba(query.X), whole.predict_proba(table.X), rtol=0, atol=1e-9)


def test_a_model_that_merges_with_nothing_is_named_so_in_either_order(tmp_path):
    """Found by a user trial: `merge A.tnb L.tnb` (a naive Bayes table model, then an LBR one)
    said 'cannot merge a Discretized model into A.tnb', an internal class; `merge L.tnb A.tnb`
    said the reason. The reason now comes first, in either order."""
    table = tmp_path / "t.csv"
    table.write_text("a,b,c\n1,x,p\n2,y,q\n3,x,q\n4,y,p\n5,x,p\n6,y,q\n")
    nb, lbr = tmp_path / "A.tnb", tmp_path / "L.tnb"
    assert cli("train", table, "-o", nb)[0] == 0
    assert cli("train", table, "--lazy", "lbr", "-o", lbr)[0] == 0
    for parts in ((nb, lbr), (lbr, nb)):
        rc, _, err = cli("merge", *parts, "-o", tmp_path / "M.tnb")
        assert rc == 1
        one_error_line(err, f"{lbr}: an LBR model cannot be merged (")
        assert not (tmp_path / "M.tnb").exists()


def test_the_inexact_merge_warning_is_the_librarys_in_the_command_lines_words(tmp_path):
    """``textnb merge`` of default (DiscriminativeNB) parts printed a warning of its own; it
    prints the library's (the merge warns, InexactMergeWarning), naming the first part, in
    the same words as before (the library's ``X / --model ...`` said by the flag alone)."""
    from textnb.cli import merge
    from textnb.cli.output import flag_words
    from textnb.naive_bayes.kernels import DISCRIMINATIVE

    tsv(tmp_path / "a.tsv", ROWS[:3]), tsv(tmp_path / "b.tsv", ROWS[3:])
    for name in ("a", "b"):
        assert cli("train", tmp_path / f"{name}.tsv", "-o", tmp_path / f"{name}.tnb")[0] == 0
    rc, _, err = cli("merge", tmp_path / "a.tnb", tmp_path / "b.tnb", "-o", tmp_path / "m.tnb")
    words = ("DiscriminativeNB models (the default) do not merge exactly: the result is not the model trained on all "
             "the parts (train with --model multinomial, bernoulli or complement for exact merges)")
    assert rc == 0 and err == f"textnb: warning: {tmp_path / 'a.tnb'}: {words}\n", err
    assert flag_words(DISCRIMINATIVE.inexact_merge) == words
    assert "do not merge exactly" not in Path(merge.__file__).read_text()  # (no second text of it)


def _parts(tmp_path, n, model="multinomial"):
    """``n`` parts of the SMS collection trained with ``--model``, and the whole of them."""
    lines = SMS_TSV.read_text(encoding="utf-8").splitlines(keepends=True)[:60 * n]
    for i in range(n):
        (tmp_path / f"p{i}.tsv").write_text("".join(lines[i::n]), encoding="utf-8")
        assert cli("train", tmp_path / f"p{i}.tsv", "--model", model, "-o", tmp_path / f"p{i}.tnb")[0] == 0
    (tmp_path / "whole.tsv").write_text("".join(lines), encoding="utf-8")
    return [tmp_path / f"p{i}.tnb" for i in range(n)]


def test_merge_holds_the_sum_and_one_part_at_a_time(tmp_path, monkeypatch):
    """``textnb merge`` read every part, then added them up: its peak memory was the sum of
    the parts' (40 parts of a 5.4 MB model: 2.4 GB). It reads a part, adds it to the sum and
    drops it: when a part is read, no part read before it is held but the first (the sum);
    the merged model is the whole corpus's counts, the same bytes in any order given."""
    import weakref

    import numpy as np

    from textnb.cli import merge
    from textnb.core.model_io import load

    parts = _parts(tmp_path, 6)
    read, held = [], []
    real = merge._read_part

    def counted(path):
        held.append(sum(ref() is not None for ref in read[1:]))
        model = real(path)
        read.append(weakref.ref(model))
        return model

    monkeypatch.setattr(merge, "_read_part", counted)
    assert cli("merge", *parts, "-o", tmp_path / "m.tnb") == (0, f"merged 6 models -> {tmp_path / 'm.tnb'}\n", "")
    assert len(read) == 6 and held == [0] * 6
    assert cli("merge", *parts[::-1], "-o", tmp_path / "r.tnb")[0] == 0
    assert (tmp_path / "m.tnb").read_bytes() == (tmp_path / "r.tnb").read_bytes()
    assert cli("train", tmp_path / "whole.tsv", "--model", "multinomial", "-o", tmp_path / "w.tnb")[0] == 0
    merged, whole = load(tmp_path / "m.tnb"), load(tmp_path / "w.tnb")
    assert merged.vectorizer_.vocabulary_ == whole.vectorizer_.vocabulary_
    np.testing.assert_array_equal(merged.model_.feature_count_, whole.model_.feature_count_)


def test_a_refusal_met_while_adding_up_is_the_one_said_of_all_the_parts(tmp_path):
    """The parts are added up in the order of their bytes and a refusal is met on the way;
    the line said is the one of all the parts read first, in the order given (a part's own
    reason before a setting that differs, a file that cannot be read before both), whatever
    the order of addition."""
    parts = _parts(tmp_path, 3)
    sms = tmp_path / "p0.tsv"
    assert cli("train", sms, "--model", "multinomial", "--alpha", "0.5", "-o", tmp_path / "alpha.tnb")[0] == 0
    assert cli("train", WEATHER, "--model", "tan", "-o", tmp_path / "tan.tnb")[0] == 0
    for given in ([*parts, tmp_path / "alpha.tnb", tmp_path / "tan.tnb"],
                  [tmp_path / "tan.tnb", tmp_path / "alpha.tnb", *parts]):
        rc, out, err = cli("merge", *given, "-o", tmp_path / "m.tnb")
        assert rc == 1 and out == "" and not (tmp_path / "m.tnb").exists()
        one_error_line(err, f"{tmp_path / 'tan.tnb'}: a TAN model cannot be merged")
        rc, _, err = cli("merge", *given, tmp_path / "missing.tnb", "-o", tmp_path / "m.tnb")
        assert rc == 1
        one_error_line(err, f"{tmp_path / 'missing.tnb'}: ")
    rc, _, err = cli("merge", *parts, tmp_path / "alpha.tnb", "-o", tmp_path / "m.tnb")
    assert rc == 1
    one_error_line(err, "alpha.tnb: cannot merge into ", "(alpha is 0.5 in ")


def test_a_token_pattern_is_said_as_a_shell_takes_it(tmp_path):
    """Found by a user trial: the refusal printed ``--token-pattern '\\\\S+'`` (a repr, every
    backslash doubled); typed as shown it is another pattern (a literal backslash), which
    trained on an empty vocabulary. Now shell-quoted: pasted back, it is the pattern."""
    import shlex
    import subprocess

    from textnb.meta.registry import option_spelling

    assert option_spelling("token_pattern", r"\S+") == r"--token-pattern '\S+'"
    assert option_spelling("token_pattern", "it's") == "--token-pattern 'it'\"'\"'s'"
    data = tsv(tmp_path / "d.tsv", ROWS)
    a, b = tmp_path / "a.tnb", tmp_path / "b.tnb"
    assert cli("train", data, "--model", "multinomial", "--token-pattern", r"[a-z]+\d*", "-o", a)[0] == 0
    assert cli("train", data, "--model", "multinomial", "-o", b)[0] == 0
    rc, _, err = cli("merge", a, b, "-o", tmp_path / "m.tnb")
    assert rc == 1
    said = err.split(f"{a}: --token-pattern ", 1)[1].split(";")[0].strip().removesuffix(")")
    echoed = subprocess.run(["sh", "-c", f"printf %s {said}"], capture_output=True, text=True).stdout
    assert echoed == r"[a-z]+\d*", (said, echoed)
    assert shlex.split(said) == [r"[a-z]+\d*"]


def _template_alpha(header):
    header["model"]["params"]["model"]["params"]["alpha"] = -1


@pytest.mark.parametrize("change", [
    _template_alpha,  # the unfitted template TextClassifier(model=...) keeps
    lambda h: h["model"]["params"]["model"]["params"].update(zzz_=1),
    lambda h: h["model"]["state"]["vectorizer_"]["state"].update(zzz_=1),
    lambda h: h["model"]["state"].update(zzz_=1),
    lambda h: h["model"]["state"].update(input_="bogus"),
    lambda h: h["model"]["params"].update(zzz=1),
], ids=["template alpha", "template field", "vectorizer state", "root state", "root input_", "root parameter"])
def test_merge_reads_its_parts_as_load_does(tmp_path, change):
    """Found by a model-file hunt (session 50): ``textnb merge`` read a text model of a count
    model from its nodes checking only the count model and the vocabulary, so it took a file
    every other reader refuses (its template's alpha -1, an unknown field in the vectorizer's
    state or a template's parameters) and wrote a merged model nothing could load; ``predict``
    and ``inspect`` took an unknown field in the root's state, or a bad ``input_``. Each now
    refuses the part in load's words, and nothing is written."""
    from conftest import read_model_file, write_model_file

    import textnb

    data = tsv(tmp_path / "a.tsv", ROWS)
    good, part = tmp_path / "good.tnb", tmp_path / "part.tnb"
    assert cli("train", data, "--model", "multinomial", "-o", good)[0] == 0
    assert cli("train", data, "--model", "multinomial", "-o", part)[0] == 0
    header, arrays = read_model_file(good)
    change(header)
    bad = tmp_path / "bad.tnb"
    write_model_file(bad, header, arrays)
    with pytest.raises(textnb.ModelFileError) as info:
        textnb.load(bad)
    line = f"textnb: error: {info.value}\n"
    for args in (("merge", "-o", tmp_path / "m.tnb", bad, part), ("merge", "-o", tmp_path / "m.tnb", part, bad),
                 ("inspect", bad), ("predict", bad, data)):
        assert cli(*args) == (1, "", line), args
    assert not (tmp_path / "m.tnb").exists()


def test_a_merged_text_model_load_would_refuse_is_not_written(tmp_path):
    """``save`` of a text model read from its nodes (what merge writes) checks it as load
    does, not only the file's bounds: a model whose counts load refuses is refused in load's
    words and not written."""
    import numpy as np

    import textnb
    from textnb.core.model_io import read_nodes
    from textnb.text.nodes import CountTextModel

    data = tsv(tmp_path / "a.tsv", ROWS)
    assert cli("train", data, "--model", "multinomial", "-o", tmp_path / "a.tnb")[0] == 0
    model = CountTextModel.from_root(read_nodes(tmp_path / "a.tnb"))
    model.state["feature_count_"] = np.full_like(model.state["feature_count_"], 2.0**60)  # over any count a file holds
    with pytest.raises(textnb.ModelFileError, match="feature_count_.*the model would not load, so it was not written"):
        model.save(tmp_path / "m.tnb")
    assert not (tmp_path / "m.tnb").exists()
