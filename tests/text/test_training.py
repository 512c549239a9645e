"""``textnb train`` fits count models without building estimators: the same file, no scikit-learn."""

import subprocess
import sys

import numpy as np
import pytest

from textnb.naive_bayes.discriminative import DiscriminativeNB
from textnb import BernoulliNB, ComplementNB, MultinomialNB, TextClassifier, Vectorizer
from textnb.cli.commands import main
from textnb.io.corpus import open_corpus

from conftest import CORPORA, cli, quick_first

SMS = CORPORA / "sms_spam" / "SMSSpamCollection.tsv"

CASES = [
    # (no option: these short texts get their bigrams, the model file recording that Vectorizer as given)
    ([], TextClassifier(vectorizer=Vectorizer(ngram_range=(1, 2), min_df=2), model=DiscriminativeNB())),
    (["--ngram", "1"], TextClassifier(vectorizer=Vectorizer(), model=DiscriminativeNB())),
    (["--alpha", "0.1", "--ngram", "2"], TextClassifier(vectorizer=Vectorizer(ngram_range=(1, 2)),
                                                       model=DiscriminativeNB(alpha=0.1))),
    (["--model", "multinomial"], TextClassifier(vectorizer=Vectorizer(), model=MultinomialNB())),
    (["--model", "discriminative", "--min-df", "2", "--jobs", "1"],
     TextClassifier(vectorizer=Vectorizer(min_df=2), model=DiscriminativeNB(n_jobs=1))),
    (["--model", "bernoulli", "--stop-words", "english", "--min-df", "2"],
     TextClassifier(vectorizer=Vectorizer(stop_words="english", min_df=2), model=BernoulliNB())),
    (["--model", "complement", "--norm", "--uniform-prior", "--no-lowercase"],
     TextClassifier(vectorizer=Vectorizer(lowercase=False), model=ComplementNB(norm=True, fit_prior=False))),
    (["--m", "3", "--max-features", "500", "--max-df", "0.5"],
     TextClassifier(vectorizer=Vectorizer(max_features=500, max_df=0.5), model=MultinomialNB(m=3.0))),
]


@pytest.mark.slow
@pytest.mark.parametrize("flags,estimator", CASES, ids=lambda c: " ".join(c) if isinstance(c, list) else None)
def test_cli_training_writes_the_estimators_model_file(flags, estimator, tmp_path):
    assert main(["train", str(SMS), "-o", str(tmp_path / "cli.tnb"), *flags]) == 0
    corpus = open_corpus(SMS)
    estimator.fit(corpus.documents, corpus.labels).save(tmp_path / "lib.tnb")
    assert (tmp_path / "cli.tnb").read_bytes() == (tmp_path / "lib.tnb").read_bytes()


@pytest.mark.parametrize("extra, banned", [
    ([], ("sklearn",)),  # the default DiscriminativeNB: its passes use scipy.sparse products
    (["--model", "multinomial"], ("sklearn", "scipy")),  # a count model: per-class sums only
])
def test_train_imports_no_scikit_learn(tmp_path, extra, banned):
    probe = ("import sys\nfrom textnb.cli.commands import main\n"
             f"rc = main(['train', {str(SMS)!r}, '-o', {str(tmp_path / 'm.tnb')!r}, *{extra!r}])\n"
             f"print(rc, sorted(m for m in sys.modules if m.split('.')[0] in {banned!r}))\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "0 []"


def test_numpy_tokenizer_counts_in_threads_with_the_same_sums(monkeypatch):
    """The default analyzer (numpy's tokenizer, which releases the GIL) counts in threads
    of the calling process: no worker process is started, and the sums, vocabulary and
    rows are those of one job."""
    import numpy as np

    import concurrent.futures
    from textnb.text.tokenize import analyzer_from_params
    from textnb.text.defaults import VECTORIZER_DEFAULTS
    from textnb.text.training import count_documents

    def no_processes(*args, **kwargs):
        raise AssertionError("a worker process was started")

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", no_processes)
    docs = [f"doc {i} word{i % 37} and word{i % 11} again" for i in range(1200)]
    y = np.arange(1200) % 3
    analyzer = analyzer_from_params(VECTORIZER_DEFAULTS)
    one, two = (count_documents(docs, y, np.ones(1200), 3, analyzer, n_jobs=n, batch_size=100, rows=True)
                for n in (1, 2))
    assert one.terms() == two.terms()
    assert np.array_equal(one.tf_total, two.tf_total) and np.array_equal(one.df_total, two.df_total)
    for a, b in zip(one.row_matrix(np.arange(len(one.terms()))), two.row_matrix(np.arange(len(two.terms())))):
        if hasattr(a, "nnz"):  # (textnb.core.csr.CSR: the same arrays)
            assert all(np.array_equal(getattr(a, k), getattr(b, k)) for k in ("data", "indices", "indptr"))
        else:
            assert np.array_equal(a, b)



def test_threads_count_what_the_calling_thread_read(tmp_path, monkeypatch):
    """Counting in threads from files: the calling thread reads every file (a thread
    reading files waits for the GIL at each system call, which cost a third more CPU time
    on 20 Newsgroups), the threads only count; the result is one job's, binary files and
    an unreadable one reported as with one job."""
    import threading

    import numpy as np

    import textnb.io.corpus as corpus
    from textnb.core.errors import InputError
    from textnb.text.tokenize import analyzer_from_params
    from textnb.text.defaults import VECTORIZER_DEFAULTS
    from textnb.text.training import count_documents

    paths = []
    for i in range(600):
        path = tmp_path / f"{i}.txt"
        path.write_bytes(b"\x00\x01binary" if i % 97 == 5 else f"doc {i} word{i % 37} and w{i % 11}".encode())
        paths.append(path)
    readers = set()
    read_bytes = corpus.read_bytes

    def recorded(path, max_bytes=corpus.MAX_DOCUMENT_BYTES):
        readers.add(threading.get_ident())
        return read_bytes(path, max_bytes)

    monkeypatch.setattr(corpus, "read_bytes", recorded)
    y = np.arange(600) % 3
    analyzer = analyzer_from_params(VECTORIZER_DEFAULTS)
    one, two = (count_documents(paths, y, np.ones(600), 3, analyzer, n_jobs=n, batch_size=50, rows=True)
                for n in (1, 2))
    assert readers == {threading.get_ident()}
    assert one.terms() == two.terms() and one.skipped == two.skipped and len(one.skipped) == 7
    assert np.array_equal(one.tf_total, two.tf_total) and np.array_equal(one.df_total, two.df_total)
    paths[300].unlink()
    with pytest.raises(InputError, match="300.txt: cannot read"):
        count_documents(paths, y, np.ones(600), 3, analyzer, n_jobs=2, batch_size=50, rows=True)


WRAPPED = [
    ["--binary"],
    ["--binary", "--model", "multinomial", "--max-features", "300"],
    ["--binary", "--model", "bernoulli"],
    ["--select", "chi2:400"],
    ["--select", "ig:300", "--model", "multinomial"],
    ["--select", "df:500", "--model", "complement", "--norm"],
    ["--weighting"],
    ["--weighting", "--model", "complement", "--min-df", "2"],  # (bernoulli: refused, it keeps presence)
    ["--select", "chi2:500", "--weighting", "--model", "complement"],
    ["--select", "ig:200", "--weighting", "--binary", "--ngram", "2"],
    ["--model", "auto"],
    ["--model", "auto", "--binary", "--stop-words", "english"],
    ["--calibrate", "sigmoid"],
    ["--calibrate", "sigmoid", "--model", "multinomial", "--select", "chi2:300", "--weighting"],
    ["--calibrate", "sigmoid", "--model", "auto"],
    ["--calibrate", "sigmoid", "--model", "complement", "--binary"],
    ["--calibrate", "isotonic"],
    ["--calibrate", "isotonic", "--model", "auto"],
    ["--calibrate", "isotonic", "--model", "bernoulli", "--select", "ig:300"],
    ["--calibrate", "sigmoid", "--model", "multinomial", "--min-df", "2"],
    ["--calibrate", "isotonic", "--model", "auto", "--max-features", "300"],
    ["--calibrate", "sigmoid", "--min-df", "2", "--binary"],
]


@pytest.fixture(scope="module")
def sms_part(tmp_path_factory):
    path = tmp_path_factory.mktemp("sms") / "part.tsv"
    path.write_text("".join(SMS.read_text(encoding="utf-8").splitlines(keepends=True)[:2000]), encoding="utf-8")
    return path


@pytest.mark.parametrize("flags", quick_first(WRAPPED, keep=3), ids=" ".join)
def test_wrapped_models_train_without_estimators_to_the_estimators_file(flags, sms_part, tmp_path, monkeypatch):
    """--binary / --select / --weighting / --model auto / --calibrate: train_text_model writes the file (and prints the
    summary) the estimators write, byte for byte."""
    import io

    import textnb.meta.registry as registry

    out = io.StringIO()
    assert main(["train", str(sms_part), "-o", str(tmp_path / "kernel.tnb"), *flags], stdout=out) == 0
    assert registry.streaming_model(registry.ModelOptions.from_namespace(_namespace(flags)), steps=True) is not None
    with monkeypatch.context() as m:  # the estimators' path, as before
        m.setattr(registry, "streaming_model", lambda opts, **kw: None)
        expected = io.StringIO()
        assert main(["train", str(sms_part), "-o", str(tmp_path / "estimator.tnb"), *flags], stdout=expected) == 0
    assert (tmp_path / "kernel.tnb").read_bytes() == (tmp_path / "estimator.tnb").read_bytes()

    def summary(text):
        return [line.replace("estimator.tnb", "kernel.tnb") for line in text.splitlines()
                if not line.startswith("seconds")]

    assert summary(out.getvalue()) == summary(expected.getvalue())


@pytest.mark.parametrize("flags,vectorizer", [([], {}), (["--binary"], {"binary": True}),
                                              (["--min-df", "2", "--max-features", "400"],
                                               {"min_df": 2, "max_features": 400})], ids=str)
def test_model_auto_scores_each_fold_on_its_own_vocabulary(flags, vectorizer, sms_part, tmp_path):
    """--model auto (and TextClassifier(model=SmoothingCV())) scores every m with each fold's vocabulary and
    document frequencies learnt from its training part: the CV scores it stores are those of the library's
    document path, SmoothingCV(Pipeline([Vectorizer, TermWeighting, MultinomialNB])), which fits every step per
    fold (they were scored on all the documents' vocabulary and idf: SMS m=300 0.9856, per fold 0.9873)."""
    from sklearn.pipeline import make_pipeline

    import textnb
    from textnb.meta.smoothing import SmoothingCV
    from textnb.text.weighting import TermWeighting

    assert main(["train", str(sms_part), "-o", str(tmp_path / "auto.tnb"), "--model", "auto", *flags]) == 0
    stored = textnb.load(tmp_path / "auto.tnb").model_.cv_results_
    corpus = open_corpus(sms_part)
    docs, labels = list(corpus.documents), list(corpus.labels)
    per_fold = SmoothingCV(make_pipeline(Vectorizer(**vectorizer), TermWeighting(), MultinomialNB()),
                           cv=10).fit(docs, labels)  # (textnb train's folds)
    assert [v for _, v in stored] == [v for _, v in per_fold.cv_results_]
    library = TextClassifier(vectorizer=Vectorizer(**vectorizer), model=SmoothingCV(cv=10)).fit(docs, labels)
    assert library.model_.cv_results_ == stored


def _namespace(flags):
    from textnb.cli.commands import build_parser

    return build_parser().parse_args(["train", "x.tsv", *flags])


@pytest.mark.parametrize("flags", [["--binary"], ["--model", "auto"], ["--calibrate", "sigmoid", "--select", "ig:300"],
                                   # the quick subset: test_evaluate_text_kernels trains these wrappers in its folds
                                   pytest.param(["--select", "chi2:300", "--weighting", "--model", "multinomial"],
                                                marks=pytest.mark.slow)])
def test_wrapped_training_imports_no_scikit_learn(flags, sms_part, tmp_path):
    probe = ("import sys\nfrom textnb.cli.commands import main\n"
             f"rc = main(['train', {str(sms_part)!r}, '-o', {str(tmp_path / 'm.tnb')!r}, *{flags!r}])\n"
             "print(rc, sorted(m for m in sys.modules if m.split('.')[0] == 'sklearn'))\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "0 []"


@pytest.mark.parametrize("values", ["counts", "large", "fractions"])
def test_rows_are_sorted_as_scipy_sorts_them(values):
    """The rows' cells sorted by column within each row (counts packed under the cell
    numbers, or an argsort for values that do not pack): scipy's sorted matrix exactly."""
    import numpy as np
    import scipy.sparse as sp

    from textnb.text.training import _sort_rows

    rng = np.random.default_rng(3)
    n_rows, n_cols = 300, 5000
    lengths = rng.integers(0, 60, size=n_rows)
    lengths[[0, 7]] = 0
    indices = np.concatenate([rng.choice(n_cols, size=k, replace=False) for k in lengths]).astype(np.int64)
    data = {"counts": rng.integers(1, 40, size=indices.size).astype(np.float64),
            "large": rng.integers(1, 1 << 30, size=indices.size).astype(np.float64),
            "fractions": rng.random(indices.size)}[values]
    indptr = np.concatenate(([0], np.cumsum(lengths)))
    expected = sp.csr_matrix((data.copy(), indices.copy(), indptr), shape=(n_rows, n_cols))
    expected.sort_indices()
    _sort_rows(indices, data, indptr, n_cols)
    np.testing.assert_array_equal(indices, expected.indices)
    np.testing.assert_array_equal(data, expected.data)


def test_dropped_documents_sums_over_their_cells_are_the_tables_floats():
    """The row sample's dropped sums, kept over the (class, term) cells the documents touch
    (dfe.class_cell_sums) and added block by block (_add_cells): the floats of the dense
    (classes x terms) tables the scipy product gives, added as tables add, bit for bit."""
    import numpy as np
    import scipy.sparse as sp

    from textnb.core.dfe import FAMILIES, class_cell_sums, class_sums, doc_features
    from textnb.text.training import _add_cells

    rng = np.random.default_rng(5)
    n_classes, n_cols = 7, 3000
    table = {f: np.zeros((n_classes, n_cols)) for f in FAMILIES}
    cells, totals = np.zeros(0, dtype=np.int64), [np.zeros(0) for _ in FAMILIES]
    for block in range(4):
        n_rows = int(rng.integers(1, 200))
        lengths = rng.integers(0, 80, size=n_rows)
        indices = np.concatenate([np.sort(rng.choice(n_cols // (block + 1), size=k, replace=False))
                                  for k in lengths]).astype(np.int32)
        indptr = np.concatenate(([0], np.cumsum(lengths)))
        counts = rng.integers(1, 30, size=indices.size).astype(np.float64)
        y = rng.integers(0, n_classes, size=n_rows)
        w = rng.random(n_rows) * 3
        w[::5] = 1.0
        values = [doc_features(f, counts, indptr) for f in FAMILIES]
        touched, sums = class_cell_sums(indices, indptr, y, n_classes, w, values)
        assert np.all(np.diff(touched) > 0)
        for f, v, s in zip(FAMILIES, values, sums):
            dense = class_sums(sp.csr_matrix((v, indices, indptr), shape=(n_rows, n_cols)), y, n_classes, w)[0]
            np.testing.assert_array_equal(dense.T.reshape(-1)[touched], s)  # cell = column * n_classes + class
            assert not dense.T.reshape(-1)[np.setdiff1d(np.arange(dense.size), touched)].any()
            table[f] += dense
        cells, totals = _add_cells(cells, totals, touched, sums)
    for f, total in zip(FAMILIES, totals):
        expected = table[f].T.reshape(-1)
        np.testing.assert_array_equal(expected[cells], total)
        assert not np.delete(expected, cells).any()


def test_batches_end_at_their_document_count_or_their_bytes(monkeypatch):
    """A batch ends after ``size`` documents or with the document that brings its text to
    BATCH_BYTES (a corpus of long documents is read a few documents at a time)."""
    import numpy as np

    from textnb.io import files
    from textnb.io.files import source_batches
    from textnb.text.training import batches

    monkeypatch.setattr(files, "BATCH_BYTES", 10)
    docs = ["a" * n for n in (5, 4, 1, 20, 1, 1, 3, 3, 3)]
    y = np.arange(len(docs))
    got = [(list(map(len, b)), yi.tolist()) for b, yi, _ in batches(docs, y, np.ones(len(docs)), 3, len)]
    assert got == [([5, 4, 1], [0, 1, 2]), ([20], [3]), ([1, 1, 3], [4, 5, 6]), ([3, 3], [7, 8])]
    assert [len(b) for b, _, _ in batches(docs, y, np.ones(len(docs)), 4)] == [4, 4, 1]  # no measure: counts
    pairs = [(f"s{i}", d) for i, d in enumerate(docs)]
    assert [[len(t) for t in texts] for _, texts in source_batches(pairs, 3, len)] == [
        [5, 4, 1], [20], [1, 1, 3], [3, 3]]


def test_long_documents_are_counted_in_parts_with_the_same_model(tmp_path, monkeypatch):
    """Training, the Vectorizer, evaluation's counts and prediction read and tokenise long
    documents a budget of text at a time (files.BATCH_BYTES): the model file, the count
    matrices and the predictions are those of one batch, the reading stops at each batch's
    last document, and the batches have the budget's size."""
    import numpy as np

    from textnb.evaluation.evaluate import vectorize_all
    from textnb.io import files
    from textnb.text import counting

    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(400)]
    for cls in ("a", "b"):
        (tmp_path / "c" / cls).mkdir(parents=True)
        for i in range(12):
            text = " ".join(rng.choice(words[:300] if cls == "a" else words[100:], 2000))
            (tmp_path / "c" / cls / f"{i}.txt").write_text(text)
    texts = [p.read_text() for p in sorted((tmp_path / "c").rglob("*.txt"))]
    whole = tmp_path / "whole.tnb"
    assert cli("train", tmp_path / "c", "-o", whole)[0] == 0
    vec = Vectorizer(min_df=2).fit(texts)
    X_whole, X_all = vec.transform(texts), vectorize_all(texts, {})[0]
    predicted = TextClassifier().fit(texts, [0] * 12 + [1] * 12).predict_proba(texts)

    sizes = []
    count_read = counting.count_read

    def recorded(read, *args):
        sizes.append(sum(map(len, read[0])))
        return count_read(read, *args)

    monkeypatch.setattr(files, "BATCH_BYTES", 30_000)  # a document is about 10,000 bytes: 3 or 4 a batch
    monkeypatch.setattr(counting, "count_read", recorded)  # (count_parts calls it for the threads)
    parts = tmp_path / "parts.tnb"
    assert cli("train", tmp_path / "c", "-o", parts, "--jobs", "2")[0] == 0
    assert parts.read_bytes() == whole.read_bytes()
    longest = max(map(len, texts))
    assert len(sizes) >= 5 and sum(sizes) == sum(map(len, texts))
    assert all(30_000 <= s < 30_000 + longest for s in sizes[:-1])
    vec2 = Vectorizer(min_df=2).fit(texts)
    assert vec2.get_feature_names_out().tolist() == vec.get_feature_names_out().tolist()
    for a, b in ((vec2.transform(texts), X_whole), (vectorize_all(texts, {})[0], X_all)):
        assert a.shape == b.shape and (a != b).nnz == 0 and a.indices.dtype == b.indices.dtype
    assert np.array_equal(TextClassifier().fit(texts, [0] * 12 + [1] * 12).predict_proba(texts), predicted)


def test_few_listed_documents_of_many_batches_are_counted_in_parallel(tmp_path, monkeypatch):
    """A corpus of fewer listed documents than four batches' is counted in one thread
    unless its documents make at least four batches (``parallel_if_long``: two
    large mbox files' messages, long files); the model is the same either way."""
    import numpy as np

    from textnb.core.workers import parallel_if_long
    from textnb.io import files
    from textnb.text import training

    jobs = []
    ordered_map = training.ordered_map

    def recorded(func, tasks, n_jobs, **kw):
        jobs.append(n_jobs)
        return ordered_map(func, tasks, n_jobs, **kw)

    monkeypatch.setattr(training, "ordered_map", recorded)
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(400)]
    for cls in ("a", "b"):
        (tmp_path / "c" / cls).mkdir(parents=True)
        for i in range(6):
            (tmp_path / "c" / cls / f"{i}.txt").write_text(" ".join(rng.choice(words, 1500)))
    models = []
    for batch_bytes in (8 << 20, 20_000):  # one batch; a batch of about two documents: six batches
        monkeypatch.setattr(files, "BATCH_BYTES", batch_bytes)
        jobs.clear()
        models.append(tmp_path / f"{batch_bytes}.tnb")
        assert cli("train", tmp_path / "c", "-o", models[-1], "--jobs", "2", "--model", "multinomial")[0] == 0
        assert jobs == ([1] if batch_bytes > 20_000 else [2])
    assert models[0].read_bytes() == models[1].read_bytes()
    assert list(parallel_if_long(iter(range(3)), 2)[0]) == [0, 1, 2]
    assert parallel_if_long(iter(range(3)), 2)[1] == 1
    assert parallel_if_long(iter(range(5)), 2)[1] == 2


def test_the_row_sample_is_the_first_documents_in_key_order_whatever_the_batches():
    """DiscriminativeNB's bounded row sample keeps the documents first in the order of their
    content keys (copies by their position) up to the bound, whatever the batches: a
    document added after a sample had dropped one, while the cells stayed under the bound,
    was kept whatever its key (word bigrams on the SMS collection, 5,000 cells: 203
    documents kept with batches of 500, 202 with batches of 1,700, and other sums)."""
    from textnb.core.dfe import content_keys, sample_rows
    from textnb.text.training import count_documents

    corpus = open_corpus(CORPORA / "sms_spam" / "SMSSpamCollection.tsv")
    docs, y = list(corpus.documents), np.asarray(corpus.labels)
    yi = np.unique(y, return_inverse=True)[1]
    analyzer = Vectorizer(ngram_range=(1, 2)).build_analyzer()
    every = count_documents(docs, yi, np.ones(len(y)), 2, analyzer, rows=True, batch_size=6000, n_jobs=1)
    ys, _, lengths, _, _, _, hashes, _ = every._rows()
    expected = sorted(hashes[sample_rows(lengths, content_keys(hashes, ys, 0), 5000)].tolist())
    kept = []
    for batch_size in (300, 500, 1700):
        acc = count_documents(docs, yi, np.ones(len(y)), 2, analyzer, rows=True, batch_size=batch_size,
                              max_row_nnz=5000, n_jobs=1)
        cols = np.arange(len(acc.vocab))
        dropped = acc.dropped_sums(cols)
        X, _, _ = acc.row_matrix(cols)
        kept.append((sorted(acc._rows()[6].tolist()), X.nnz, next(iter(dropped.values()))[1].sum()))
    assert all(k == (expected, kept[0][1], len(y) - len(expected)) for k in kept), [k[1:] for k in kept]

