"""The command line as a new user meets it: counts said in the right number, unknown
flags, ``--proba`` beside ``--top``, table files by name and content, options that do not
go together (ROWS of the s23-cli round)."""

import json
import os

import pytest

from conftest import cli, one_error_line


def _corpus(root, binaries):
    for label, docs in {"spam": ["cheap pills now", "win a cheap prize", "free pills offer"],
                        "ham": ["lunch at noon", "meeting at noon today", "see you at lunch"]}.items():
        (root / label).mkdir(parents=True)
        for i, doc in enumerate(docs):
            (root / label / f"{label}{i}.txt").write_text(doc)
    for i in range(binaries):
        (root / "spam" / f"blob{i}.bin").write_bytes(b"x\0y")
    return root


@pytest.mark.parametrize("binaries, said", [(1, "skipped 1 binary file\n"), (2, "skipped 2 binary files\n")])
def test_skipped_binary_files_are_counted_in_the_right_number(tmp_path, binaries, said):
    """train (single- and multi-label) said 'skipped 1 binary files'."""
    corpus = _corpus(tmp_path / "c", binaries)
    for extra in ([], ["--multilabel"]):
        code, out, err = cli("train", corpus, "-o", tmp_path / "m.tnb", *extra)
        assert code == 0, err
        assert said in out, (extra, out)


def _usage_error(capsys, *argv):
    from textnb.cli.commands import main

    code = main([str(a) for a in argv])
    return code, capsys.readouterr().err


def test_an_unknown_flag_is_named_with_a_suggestion_only_for_a_near_miss(capsys):
    """`predict MODEL --bogus` said 'did you mean: --bogus -> --rows?' (the names' shared
    `--` made them look alike); misspellings keep their suggestion, abbreviations work."""
    code, err = _usage_error(capsys, "predict", "m.tnb", "--bogus")
    assert code == 2 and err.splitlines()[0] == "textnb predict: error: unrecognized arguments: --bogus", err
    assert "did you mean" not in err and len(err.strip().splitlines()) == 2
    for wrong, right in (("--probaa", "--proba"), ("--jsno", "--json"), ("--threshhold", "--threshold")):
        code, err = _usage_error(capsys, "predict", "m.tnb", wrong)
        assert code == 2 and f"(did you mean: {wrong} -> {right}?)" in err, err
    code, err = _usage_error(capsys, "train", "c", "--modle", "nb")
    assert code == 2 and "did you mean: --modle -> --model" in err
    code, err = _usage_error(capsys, "train", "c", "--zzzz-frobnicate")
    assert code == 2 and "did you mean" not in err


def test_abbreviated_flags_still_work(tmp_path):
    """argparse's unique prefixes (`--prob` for --proba) are untouched by the suggestions."""
    corpus = _corpus(tmp_path / "c", 0)
    assert cli("train", corpus, "-o", tmp_path / "m.tnb")[0] == 0
    doc = tmp_path / "d.txt"
    doc.write_text("cheap pills")
    code, out, err = cli("predict", tmp_path / "m.tnb", doc, "--prob")
    assert code == 0 and "spam=" in out and "ham=" in out, err


def test_proba_with_top_gives_each_ranked_label_its_probability(tmp_path):
    """`predict MODEL FILES --proba --top K`: each of the K labels with its probability, the
    one --proba prints for it (text) and the --json keys of --top (label, proba, log_odds)."""
    corpus = _corpus(tmp_path / "c", 0)
    assert cli("train", corpus, "-o", tmp_path / "m.tnb")[0] == 0
    doc = tmp_path / "d.txt"
    doc.write_text("cheap pills")
    _, full, _ = cli("predict", tmp_path / "m.tnb", doc, "--proba")
    proba = dict(kv.split("=") for kv in full.rstrip("\n").split("\t")[2:])
    for k in (1, 2):
        code, out, err = cli("predict", tmp_path / "m.tnb", doc, "--proba", "--top", k)
        assert code == 0, err
        fields = out.rstrip("\n").split("\t")
        assert fields[0] == str(doc) and len(fields) == 1 + k, out
        for field in fields[1:]:
            label, p = field.split(" ")
            assert proba[label] == p, (field, proba)
        assert fields[1].split(" ")[0] == full.split("\t")[1]  # the top label is the prediction
        code, out, err = cli("predict", tmp_path / "m.tnb", doc, "--proba", "--top", k, "--json")
        labels = json.loads(out)["labels"]
        assert code == 0 and len(labels) == k and all(set(e) == {"label", "proba", "log_odds"} for e in labels)
        assert [f"{e['proba']:.6g}" for e in labels] == [proba[e["label"]] for e in labels]


ARFF = ("% weather\n@relation r\n@attribute outlook {sunny,rainy}\n@attribute play {yes,no}\n@data\n"
        "sunny,no\nrainy,yes\nsunny,no\nrainy,yes\nsunny,yes\n")
CSV = "outlook,temp,play\nsunny,hot,no\nrainy,cool,yes\nsunny,cool,yes\nrainy,hot,no\n"
CORPUS = "label\ttext\nspam\tcheap pills now\nham\tlunch at noon\nspam\twin a prize\nham\tsee you soon\n"


@pytest.mark.parametrize("name", ["data.dat", "iris.data", "weather.table"])
def test_a_table_of_another_name_is_read_by_its_content_as_a_corpus_is(tmp_path, name):
    """`train data.dat` of an ARFF or CSV table was `unknown table format '.dat'` while a
    TSV text corpus named so was read: any name but a spreadsheet, binary or compressed
    format's is now read by its content, as a name without an extension is."""
    for text, read in ((ARFF, "read 5 rows"), (CSV, "read 4 rows"), (CORPUS, "read 4 documents")):
        path = tmp_path / name
        path.write_text(text)
        code, out, err = cli("train", path, "-o", tmp_path / "m.tnb")
        assert code == 0 and out.startswith(f"{read} from {path}"), (text[:10], out, err)
        if text is not CORPUS:
            code, out, err = cli("predict", tmp_path / "m.tnb", path)
            assert code == 0 and out.startswith(f"{path}:1\t"), (out, err)
            code, out, err = cli("evaluate", path, "--cv", "2", "--json")
            assert code == 0, err


def test_a_spreadsheet_or_compressed_table_is_refused_in_one_line_by_its_name(tmp_path):
    """A binary `.xlsx` given to train said `binary file, not a TSV/CSV corpus`; now, as for
    any command that reads it as a table, one line naming the file and what is read."""
    sheet = tmp_path / "book.xlsx"
    sheet.write_bytes(b"PK\x03\x04\x14\x00\x00\x00" + bytes(100))
    model = tmp_path / "m.tnb"
    (tmp_path / "w.arff").write_text(ARFF)
    assert cli("train", tmp_path / "w.arff", "-o", model)[0] == 0
    for argv in (["train", sheet, "-o", tmp_path / "x.tnb"], ["evaluate", sheet], ["predict", model, sheet],
                 ["train", sheet, "--class", "play", "-o", tmp_path / "x.tnb"]):
        code, out, err = cli(*argv)
        assert code == 1, (argv, err)
        one_error_line(err, f"{sheet}: unknown table format '.xlsx'", "ARFF, CSV or TSV text", ".csv")
    corpus = tmp_path / "corpus.xls"  # (a TSV text corpus is still read whatever its name)
    corpus.write_text(CORPUS)
    code, out, err = cli("train", corpus, "-o", tmp_path / "c.tnb")
    assert code == 0 and out.startswith(f"read 4 documents from {corpus}"), err


def test_adjust_and_calibrate_are_refused_at_argument_time(tmp_path):
    """`train TABLE --adjust --calibrate ...` was refused only after the data was read (a
    missing PATH said `cannot read`), in words that did not name the flag given; now one
    line naming the flags, before PATH is opened, for train and evaluate, tables and
    documents; --help says so. Each alone trains."""
    table = tmp_path / "w.arff"
    table.write_text(ARFF)
    for command in (["train", "-o", tmp_path / "m.tnb"], ["evaluate"]):
        for path in (table, tmp_path / "missing.arff"):
            code, out, err = cli(command[0], path, *command[1:], "--adjust", "--calibrate", "sigmoid")
            assert code == 1
            one_error_line(err, "--adjust does not go with --calibrate", "joint log probabilities")
    code, out, err = cli("train", tmp_path / "missing.tsv", "--adjust", "--select", "chi2:5", "--calibrate", "isotonic")
    one_error_line(err, "--adjust does not go with --calibrate or --select")
    for flag in (["--adjust"], ["--calibrate", "sigmoid"]):
        code, out, err = cli("train", table, "-o", tmp_path / "m.tnb", *flag)
        assert code == 0, (flag, err)
    from textnb.cli.commands import build_parser

    helps = {a.dest: a.help for a in build_parser()._subparsers._group_actions[0].choices["train"]._actions}
    assert "not with --calibrate" in helps["adjust"] and "not with --adjust" in helps["calibrate"]


@pytest.mark.parametrize("binaries, said", [(1, "skipped 1 binary file\n"), (2, "skipped 2 binary files\n")])
def test_evaluate_says_the_binary_files_it_skipped_as_train_does(tmp_path, binaries, said):
    """`evaluate CORPUS` (single- and multi-label) left binary files out in silence (only
    --json had `skipped_binary`), while train said how many."""
    corpus = _corpus(tmp_path / "c", binaries)
    for extra in ([], ["--multilabel"]):
        code, out, err = cli("evaluate", corpus, "--cv", "2", *extra)
        assert code == 0, err
        assert said in out, (extra, out)
        code, out, err = cli("evaluate", corpus, "--cv", "2", "--json", *extra)
        assert json.loads(out)["skipped_binary"] == binaries


def test_predict_of_a_headerless_text_file_points_to_lines(tmp_path):
    """`predict MODEL plain.tsv` (documents one per line, no header) said to name the label
    and text columns, as if prediction needed labels; now it says the text column will do,
    or --lines reads the file a document per line (which then works)."""
    corpus = _corpus(tmp_path / "c", 0)
    assert cli("train", corpus, "-o", tmp_path / "m.tnb")[0] == 0
    plain = tmp_path / "plain.tsv"
    plain.write_text("cheap pills now\nlunch at noon\n")
    code, out, err = cli("predict", tmp_path / "m.tnb", plain)
    assert code == 1
    line = one_error_line(err, f"{plain}: cannot find the label and text columns", "--lines FILE",
                          "label too for an accuracy")
    assert "--label-column" not in line
    code, out, err = cli("predict", tmp_path / "m.tnb", "--lines", plain)
    assert code == 0 and [r.split("\t")[1] for r in out.splitlines()] == ["spam", "ham"], err


def test_an_output_in_a_missing_folder_is_refused_before_the_work(tmp_path, monkeypatch):
    """`train ... -o nodir/m.tnb`, `evaluate/inspect --plot nodir/p.png`, `merge -o nodir/...`
    trained, evaluated or merged first, then failed to write (the work lost); now one line
    before any is done (the fit is never called)."""
    import textnb.cli.train
    import textnb.io.inputs

    table = tmp_path / "w.arff"
    table.write_text(ARFF)
    assert cli("train", table, "-o", tmp_path / "m.tnb")[0] == 0
    assert cli("train", table, "-o", tmp_path / "n.tnb", "--model", "tan")[0] == 0
    assert cli("train", table, "-o", tmp_path / "o.tnb")[0] == 0

    def no_work(*args, **kwargs):
        raise AssertionError("the data was read before the output was checked")

    monkeypatch.setattr(textnb.io.inputs, "load_input", no_work)
    monkeypatch.setattr(textnb.cli.train, "fit_weighted", no_work)
    missing = tmp_path / "nodir"
    for argv, out in ((["train", table, "-o", missing / "m.tnb"], missing / "m.tnb"),
                      (["evaluate", table, "--plot", missing / "p.png"], missing / "p.png"),
                      (["inspect", tmp_path / "n.tnb", "--plot", missing / "t.png"], missing / "t.png"),
                      (["merge", tmp_path / "m.tnb", tmp_path / "o.tnb", "-o", missing / "x.tnb"], missing / "x.tnb")):
        code, _, err = cli(*argv)
        assert code == 1, (argv, err)
        one_error_line(err, f"{out}: cannot write (no such folder: {missing})")
    assert not missing.exists()


def test_predict_accuracy_of_a_table_names_the_missing_class_value(tmp_path):
    """`predict TABLE_MODEL rows.csv` with a row of no class: the accuracy line said
    '(3 of 3 rows with a class value; 1 row without a label not counted)'."""
    rows = tmp_path / "rows.csv"
    rows.write_text("a,b,cls\nx,p,yes\ny,q,no\nx,q,yes\ny,p,\n")
    assert cli("train", rows, "-o", tmp_path / "m.tnb")[0] == 0
    code, out, err = cli("predict", tmp_path / "m.tnb", rows)
    assert code == 0 and len(out.splitlines()) == 4
    assert "(3 of 3 rows with a class value; 1 row without a class value not counted)" in err, err


def test_inspect_writes_the_model_as_scikit_learn_writes_an_estimator(tmp_path):
    """``textnb inspect``'s first line: ``model: MultinomialNB(alpha=1.0, ...)``, the
    settings in scikit-learn's repr form (it printed ``MultinomialNB {'alpha': 1.0, ...}``,
    a Python dict)."""
    corpus = _corpus(tmp_path / "c", 0)
    for extra, name in (([], "DiscriminativeNB"), (["--model", "multinomial"], "MultinomialNB")):
        code, _, err = cli("train", corpus, "-o", tmp_path / "m.tnb", *extra)
        assert code == 0, err
        code, out, err = cli("inspect", tmp_path / "m.tnb")
        first = out.splitlines()[0]
        assert code == 0 and first.startswith(f"model: {name}(") and first.endswith(")"), first
        assert "{" not in first and "alpha=" in first
        code, out, _ = cli("inspect", tmp_path / "m.tnb", "--json")
        assert code == 0 and isinstance(json.loads(out)["params"], dict)  # (--json unchanged)


def test_a_path_that_goes_on_past_a_file_is_not_called_missing(tmp_path, sms_tsv):
    """Found by a user trial: ``textnb inspect a.tnb/`` (and merge, predict, train,
    spamfilter -m) said 'no such model file' of a file that is there; the system's reason
    is 'Not a directory'."""
    from textnb.core.errors import missing_reason

    rc, _, err = cli("train", sms_tsv, "--model", "multinomial", "-o", tmp_path / "a.tnb")
    assert rc == 0, err
    for command in (["inspect", f"{tmp_path / 'a.tnb'}/"], ["predict", f"{tmp_path / 'a.tnb'}/", sms_tsv],
                    ["merge", f"{tmp_path / 'a.tnb'}/", tmp_path / "a.tnb", "-o", tmp_path / "m.tnb"],
                    ["train", f"{sms_tsv}/", "-o", tmp_path / "b.tnb"]):
        rc, _, err = cli(*command)
        assert rc == 1 and "Not a directory" in err and "no such" not in err, (command, err)
    assert missing_reason(str(tmp_path / "a.tnb" / "x"), "file").startswith("cannot read file (Not a directory")
    assert missing_reason(str(tmp_path / "nothing"), "file") == "no such file"


def test_a_file_where_an_output_folder_should_be_is_said_alike_by_every_writer(tmp_path, sms_tsv):
    """Found by a user trial (session 49): ``spamfilter -m notes.txt/sf.tnb --train-spam ...``
    with notes.txt a file said ``.../notes.txt: no such folder (for the model ...)``, where
    ``textnb train -o notes.txt/m.tnb`` said ``cannot write (Not a directory)``: one wording
    now, naming the file above (core.errors.not_a_folder), for every writer."""
    from conftest import run_spamfilter, tiny_mail

    notes = tmp_path / "notes.txt"
    notes.write_text("hi\n")
    spam, ham = tiny_mail(tmp_path)
    for target, above in ((notes / "m.tnb", f"{notes} is a file, not a folder"),
                          (notes / "sub" / "m.tnb", f"{notes} is a file, not a folder"),
                          (tmp_path / "nothere" / "m.tnb", f"no such folder: {tmp_path / 'nothere'}")):
        said = f"{target}: cannot write ({above})"
        rc, _, err = cli("train", sms_tsv, "--model", "multinomial", "-o", target)
        assert rc == 1 and one_error_line(err) == f"textnb: error: {said}", err
        png = target.with_suffix(".png")
        rc, _, err = cli("evaluate", sms_tsv, "--cv", "2", "--plot", png)
        assert rc == 1 and one_error_line(err) == f"textnb: error: {png}: cannot write ({above})", err
        for argv in (["--train-spam", spam, "--train-ham", ham], ["--register-spam", spam]):
            rc, _, err = run_spamfilter(["-m", target, *argv])
            assert (rc, err) == (3, f"spamfilter: {said}\n"), argv
    rc, _, err = cli("train", sms_tsv, "-o", "/dev/null/m.tnb")
    assert one_error_line(err) == "textnb: error: /dev/null/m.tnb: cannot write (/dev/null is a character device, " \
                                  "not a folder)"
    assert notes.read_text() == "hi\n" and sorted(os.listdir(tmp_path)) == ["ham", "notes.txt", "spam"]


def test_a_model_parameter_refused_is_named_by_its_option(tmp_path):
    """Found by a user trial: ``train --model tan --alpha 0`` said ``alpha must be a finite
    number in (0, 1e+12]; got 0.0``, the library's parameter, not the option given."""
    table = tmp_path / "t.csv"
    table.write_text("a,b,class\n1,x,p\n2,y,q\n1,y,p\n3,x,q\n")
    rc, _, err = cli("train", table, "--model", "tan", "--alpha", "0", "-o", tmp_path / "m.tnb")
    assert rc == 1 and one_error_line(err) and "error: --alpha must be above 0 for this model; got 0" in err, err
    assert not (tmp_path / "m.tnb").exists()
    # found by a user trial: '--m 0' said '--m must be None or a finite number in (0, 1e+12]'
    # (the library's None and bound; the option takes 0 to 1e+06), and the help promised 0 to
    # every table model
    for model in ("tan", "aode"):
        rc, _, err = cli("train", table, "--model", model, "--m", "0", "-o", tmp_path / "m.tnb")
        assert rc == 1 and one_error_line(err) and "error: --m must be above 0 for this model; got 0" in err, err
    from textnb.cli import commands

    assert "document models, tan, bn and aode: above 0" in " ".join(commands._parser().format_help().split()) \
        or any("document models, tan, bn and aode: above 0" in " ".join(a.help.split())
               for sub in commands._parser()._subparsers._group_actions[0].choices.values() for a in sub._actions
               if a.help and "m-estimate" in a.help)


def test_the_smoothing_help_gives_each_models_own_default():
    """Found by a user trial: ``--alpha``'s help said 'default 1.0', but the default model for
    documents (DiscriminativeNB, alpha None) takes 1 or 0.1 by the event model cross-validation
    chooses, and ``--alpha 1.0`` given changed the model (bernoulli, alpha 0.1 -> complement, alpha
    1); nb's m-estimate default (m 2) was not stated. The help now gives the defaults the models
    take, and spamfilter's ``--alpha`` those of its every kind."""
    from textnb.apps.spamlite import DEFAULT_SPAM_ALPHA
    from textnb.cli import commands
    from textnb.cli.mailfilters import _spam_parser
    from textnb.core.dfe import DEFAULT_ALPHA
    from textnb.core.registry import kernel_class
    from textnb.naive_bayes.kernels import KERNELS

    counts = [KERNELS[k].params({})["alpha"] for k in ("MultinomialNB", "BernoulliNB", "ComplementNB")]
    tables = [kernel_class(k).defaults["alpha"] for k in ("TabularNB", "MixedNB", "TAN", "BayesNetClassifier", "LBR",
                                                          "LazyTextNB")]
    assert set(counts + tables) == {1.0} and KERNELS["DiscriminativeNB"].params({})["alpha"] is None
    assert [kernel_class(k).defaults["m"] for k in ("TAN", "BayesNetClassifier", "AODE")] == [None] * 3  # (off)
    m = kernel_class("TabularNB").defaults["m"]
    assert kernel_class("MixedNB").defaults["m"] == m
    chosen = (f"takes {DEFAULT_ALPHA['complement']:g} for its complement event model and "
              f"{DEFAULT_ALPHA['bernoulli']:g} for Bernoulli as cross-validation chooses between them, "
              f"and a given --alpha for both")
    for command in ("train", "evaluate"):
        sub = commands._parser()._subparsers._group_actions[0].choices[command]
        helps = {a.dest: " ".join(a.help.split()) for a in sub._actions if a.help}
        assert helps["alpha"].startswith("additive smoothing (default 1; the default model for documents, "
                                         "discriminative, " + chosen), helps["alpha"]
        assert helps["m_estimate"].endswith(f"nb's --nominal m-estimate without --m takes m {m:g}")
    spam = " ".join(next(a for a in _spam_parser()._actions if a.dest == "alpha").help.split())
    assert f"(default {DEFAULT_SPAM_ALPHA:g} for multinomial, {counts[1]:g} for bernoulli and complement; " \
           f"discriminative {chosen};" in spam, spam


def test_a_file_that_is_no_multi_label_format_is_said_so_not_a_folder(tmp_path):
    """Found by a user trial: ``train c.tsv --multilabel`` and ``evaluate ml.ft --test c.tsv``
    said ``c.tsv: not a folder``; the same rows from a pipe were told what a multi-label
    corpus is. A file is told so too (an empty one: empty)."""
    table = tmp_path / "c.tsv"
    table.write_text("label\ttext\n" + "".join(f"a\tred apple {i}\nb\tblue sky {i}\n" for i in range(4)))
    ft = tmp_path / "ml.ft"
    ft.write_text("__label__a __label__b red apple\n__label__b blue sky\n__label__a red car\n__label__b blue sea\n")
    empty = tmp_path / "e.txt"
    empty.write_text("")
    for command in (("train", table, "--multilabel", "-o", tmp_path / "x.tnb"), ("evaluate", ft, "--test", table)):
        rc, _, err = cli(*command)
        assert rc == 1 and one_error_line(err) and f"{table}: not a multi-label corpus (" in err, err
        assert "not a folder" not in err and "TSV/CSV file holds one label a row" in err
    rc, _, err = cli("train", empty, "--multilabel", "-o", tmp_path / "x.tnb")
    assert rc == 1 and one_error_line(err) and f"{empty}: empty" in err, err
    assert not (tmp_path / "x.tnb").exists()
