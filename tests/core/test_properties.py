"""Property-based tests (hypothesis) for every model, and fuzzing of every reader.

For each estimator in :data:`SPECS` (every model of the package):

* probabilities are finite and every row sums to 1;
* the model does not depend on the order of the training rows;
* ``partial_fit`` in any chunking equals ``fit`` (models that have it);
* ``merge`` of models fitted on two parts equals ``fit`` on the union (models that have it);
* save -> load gives *exactly* the same predictions and probabilities.

And for every reader of untrusted input (tokenizer, corpus reader, ARFF / CSV readers,
mail parser, uncertain-cell parser): arbitrary Unicode or bytes never raise anything
but :class:`textnb.core.errors.InputError` (a one-line message), or nothing at all.

Example counts are small and ``deadline=None`` so the suite stays fast and free of
timing flakiness; ``derandomize=True`` keeps CI runs reproducible.
"""

import warnings
from dataclasses import dataclass, field

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import textnb
from textnb.core.errors import InputError
from textnb.naive_bayes.discrete import BernoulliNB, MultinomialNB
from textnb.io.tables import Attribute
from textnb.io import mail as _mail
from textnb.io import uncertain as _uncertain
from textnb.naive_bayes.complement import ComplementNB
from textnb.naive_bayes.tabular import TabularNB
from textnb.semi_naive.apnbc import APNBC
from textnb.semi_naive.bayesnet import TAN, BayesNetClassifier
from textnb.semi_naive.lbr import LBR
from textnb.semi_naive.lbr_text import LazyTextNB

FAST = settings(max_examples=8, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])
FUZZ = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

N_NOMINAL_VALUES = 3
WORDS = ["cheap", "pills", "meeting", "noon", "free", "offer", "report", "lunch", "win", "data"]


# --------------------------------------------------------------------------- estimators
@dataclass
class Spec:
    """How to build one estimator and what data and operations it takes."""

    name: str
    make: object  # (n_features) -> unfitted estimator
    data: str  # "counts", "nominal", "numeric", "docs"
    partial_fit: bool = False
    merge: bool = False
    fit_kwargs: object = None  # (n_features) -> dict of extra fit arguments
    extra: dict = field(default_factory=dict)


def _nominal_attributes(d):
    return tuple(Attribute(f"a{j}", "nominal", [f"v{k}" for k in range(N_NOMINAL_VALUES)]) for j in range(d))


SPECS = [
    Spec("MultinomialNB", lambda d: MultinomialNB(), "counts", partial_fit=True, merge=True),
    Spec("MultinomialNB-m", lambda d: MultinomialNB(m=2.0), "counts", partial_fit=True, merge=True),
    Spec("BernoulliNB", lambda d: BernoulliNB(), "counts", partial_fit=True, merge=True),
    Spec("TabularNB-gaussian", lambda d: TabularNB(), "numeric", partial_fit=True, merge=True),
    Spec("TabularNB-kde", lambda d: TabularNB(numeric="kde"), "numeric", partial_fit=True, merge=True),
    Spec("TabularNB-nominal", lambda d: TabularNB(attributes=_nominal_attributes(d)), "nominal",
         partial_fit=True, merge=True),
    Spec("TabularNB-eq4", lambda d: TabularNB(attributes=_nominal_attributes(d), nominal="eq4"), "nominal",
         partial_fit=True, merge=True),
    Spec("TextClassifier", lambda d: textnb.TextClassifier(model=MultinomialNB()), "docs", partial_fit=True,
         merge=True),
    # the default DiscriminativeNB: its passes make partial_fit and merge differ from fit (README)
    # (its passes score in single precision: another row order changes the 7th digit)
    Spec("TextClassifier-default", lambda d: textnb.TextClassifier(), "docs", extra={"rtol": 1e-5}),
    Spec("DiscriminativeNB", lambda d: textnb.DiscriminativeNB(), "counts", extra={"rtol": 1e-5}),
    Spec("TextClassifier-bernoulli", lambda d: textnb.TextClassifier(model=BernoulliNB()), "docs",
         partial_fit=True, merge=True),
]

# every model (an import error fails the file, never shrinks the list)
SPECS += [
    Spec("ComplementNB", lambda d: ComplementNB(), "counts", partial_fit=True, merge=True),
    Spec("APNBC", lambda d: APNBC(MultinomialNB()), "counts"),
    Spec("LBR", lambda d: LBR(), "nominal", fit_kwargs=lambda d: {"attributes": list(_nominal_attributes(d))}),
    Spec("LazyTextNB", lambda d: LazyTextNB(min_df=1, n_screen=20, max_candidates=5), "counts"),
    Spec("TAN", lambda d: TAN(attributes=_nominal_attributes(d)), "nominal"),
    Spec("BayesNetClassifier", lambda d: BayesNetClassifier(attributes=_nominal_attributes(d)), "nominal"),
]

#: Known bugs found by these tests, in modules this test file does not own: the
#: property is marked xfail(strict=True) for that model until the fix lands (then the
#: XPASS fails and the entry must be removed).
KNOWN_BUGS = {
    # (LazyTextNB's empty-subset bincount, found here, is fixed in textnb/lbr_text.py)
}


def _params(specs):
    out = []
    for s in specs:
        marks = [pytest.mark.xfail(strict=True, reason=KNOWN_BUGS[s.name])] if s.name in KNOWN_BUGS else []
        out.append(pytest.param(s, id=s.name, marks=marks))
    return out


PARTIAL = [s for s in SPECS if s.partial_fit]
MERGE = [s for s in SPECS if s.merge]


# --------------------------------------------------------------------------- data
@st.composite
def datasets(draw, kind):
    """(X_train, y_train, X_test) of the kind a model takes; every class appears twice."""
    n_classes = draw(st.integers(2, 3))
    n_extra = draw(st.integers(0, 14))
    classes = [f"c{k}" for k in range(n_classes)]
    y = classes * 2 + [classes[draw(st.integers(0, n_classes - 1))] for _ in range(n_extra)]
    n = len(y)
    d = draw(st.integers(1, 4))
    n_test = 5

    def cells(count):
        if kind == "counts":
            return [draw(st.integers(0, 4)) for _ in range(count)]
        if kind == "nominal":
            return [draw(st.one_of(st.integers(0, N_NOMINAL_VALUES - 1), st.just(float("nan"))))
                    for _ in range(count)]
        if kind == "numeric":
            return [draw(st.one_of(st.floats(-1e3, 1e3, allow_nan=False).map(lambda x: round(x, 3)),
                                   st.just(float("nan")))) for _ in range(count)]
        raise AssertionError(kind)

    if kind == "docs":
        def doc():
            return " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=6)))

        X = [doc() for _ in range(n)]  # no empty document: any part has a vocabulary
        X_test = [doc() for _ in range(n_test)] + ["unseen words only zzz"]
        return X, np.array(y), X_test
    X = np.array(cells(n * d), dtype=np.float64).reshape(n, d)
    X_test = np.array(cells(n_test * d), dtype=np.float64).reshape(n_test, d)
    if kind == "counts" and X.sum() == 0:
        X[0, 0] = 1.0
    return X, np.array(y), X_test


def _fit(spec, X, y):
    d = 1 if spec.data == "docs" else X.shape[1]
    est = spec.make(d)
    kw = spec.fit_kwargs(d) if spec.fit_kwargs else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X, y, **kw)


def _take(X, rows):
    return [X[i] for i in rows] if isinstance(X, list) else X[rows]


def _proba(model, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.predict_proba(X)


def _close(a, b, rtol=1e-7):
    np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-10)


# --------------------------------------------------------------------------- properties
@pytest.mark.slow
@pytest.mark.parametrize("spec", _params(SPECS))
def test_probabilities_are_finite_and_sum_to_one(spec):
    @FAST
    @given(datasets(spec.data))
    def check(data):
        X, y, X_test = data
        model = _fit(spec, X, y)
        p = _proba(model, X_test)
        assert p.shape == (len(X_test), len(model.classes_))
        assert np.all(np.isfinite(p)) and np.all(p >= 0)
        np.testing.assert_allclose(p.sum(axis=1), 1.0, atol=1e-9)
        lp = model.predict_log_proba(X_test) if hasattr(model, "predict_log_proba") else np.log(p)
        assert not np.any(np.isnan(lp))
        assert set(model.predict(X_test)) <= set(model.classes_)

    check()


@pytest.mark.slow
@pytest.mark.parametrize("spec", _params(SPECS))
def test_invariant_to_row_order(spec):
    @FAST
    @given(datasets(spec.data), st.randoms(use_true_random=False))
    def check(data, rnd):
        X, y, X_test = data
        order = list(range(len(y)))
        rnd.shuffle(order)
        a = _fit(spec, X, y)
        b = _fit(spec, _take(X, order), y[order])
        _close(_proba(a, X_test), _proba(b, X_test), spec.extra.get("rtol", 1e-7))

    check()


@st.composite
def cut_points(draw, n):
    k = draw(st.integers(0, min(4, n - 1)))
    return sorted(draw(st.lists(st.integers(1, n - 1), min_size=k, max_size=k, unique=True)))


@pytest.mark.parametrize("spec", _params(PARTIAL))
def test_partial_fit_in_any_chunking_equals_fit(spec):
    @FAST
    @given(st.data())
    def check(data):
        X, y, X_test = data.draw(datasets(spec.data))
        cuts = data.draw(cut_points(len(y)))
        whole = _fit(spec, X, y)
        d = 1 if spec.data == "docs" else X.shape[1]
        parts = spec.make(d)
        classes = np.unique(y)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for lo, hi in zip([0] + cuts, cuts + [len(y)]):
                rows = list(range(lo, hi))
                parts.partial_fit(_take(X, rows), y[rows], classes=classes)
        _close(_proba(whole, X_test), _proba(parts, X_test))
        assert list(whole.predict(X_test)) == list(parts.predict(X_test)) or np.allclose(
            _proba(whole, X_test).max(axis=1), 0.5)

    check()


@pytest.mark.parametrize("spec", _params(MERGE))
def test_merge_equals_fit_on_the_union(spec):
    @FAST
    @given(st.data())
    def check(data):
        X, y, X_test = data.draw(datasets(spec.data))
        cut = data.draw(st.integers(1, len(y) - 1))
        first, second = list(range(cut)), list(range(cut, len(y)))
        # every part must be fittable on its own: keep at least one of each class in each
        # part for models that need all classes (they align classes by name anyway)
        whole = _fit(spec, X, y)
        a = _fit(spec, _take(X, first), y[first])
        b = _fit(spec, _take(X, second), y[second])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            merged = a.merge(b)
        assert list(merged.classes_) == list(whole.classes_)
        _close(_proba(whole, X_test), _proba(merged, X_test))

    check()


@pytest.mark.slow
@pytest.mark.parametrize("spec", _params(SPECS))
def test_save_load_gives_exactly_the_same_predictions(spec, tmp_path):
    path = tmp_path / "m.tnb"

    @FAST
    @given(datasets(spec.data))
    def check(data):
        X, y, X_test = data
        model = _fit(spec, X, y)
        model.save(path)
        back = textnb.load(path)
        assert type(back) is type(model)
        assert np.array_equal(model.predict(X_test), back.predict(X_test))
        assert np.array_equal(_proba(model, X_test), _proba(back, X_test))
        if hasattr(model, "predict_joint_log_proba"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                assert np.array_equal(model.predict_joint_log_proba(X_test),
                                      back.predict_joint_log_proba(X_test))

    check()


# --------------------------------------------------------------------------- fuzzing readers
_SMS = None


def _sms_model():
    global _SMS
    if _SMS is None:
        _SMS = textnb.TextClassifier().fit(["cheap pills now", "meeting at noon", "free offer"],
                                           ["spam", "ham", "spam"])
    return _SMS


@FUZZ
@given(st.text())
def test_tokenizer_and_prediction_never_crash_on_unicode(text):
    from textnb.text.vectorizer import Analyzer, Vectorizer

    for analyzer in (Analyzer(), Analyzer(stop_words="english", ngram_range=(1, 3)), Analyzer(stemmer="porter")):
        terms = analyzer(text)
        assert all(isinstance(t, str) and t for t in terms)
    try:
        X = Vectorizer().fit_transform([text, "zz " + text])
        assert X.shape[0] == 2
    except ValueError as exc:  # only possible answer: nothing to count
        assert "empty vocabulary" in str(exc)
    p = _sms_model().predict_proba([text])
    assert np.all(np.isfinite(p)) and np.isclose(p.sum(), 1.0)


@FUZZ
@given(st.binary())
def test_document_bytes_never_crash_the_corpus_reader(tmp_path, data):
    from textnb.io.corpus import to_text
    from textnb.io.corpus import decode_bytes, read_document

    path = tmp_path / "doc.txt"
    path.write_bytes(data)
    text = read_document(path)
    assert text is None or isinstance(text, str)
    assert isinstance(decode_bytes(data), str)
    assert to_text(data) == text
    if text is not None:
        assert np.all(np.isfinite(_sms_model().predict_proba([data])))


def _expect_input_error_only(fn, *args, **kwargs):
    """Run ``fn``: it may succeed or raise InputError with a one-line message; nothing else."""
    try:
        return fn(*args, **kwargs)
    except InputError as exc:
        message = str(exc)
        assert "\n" not in message and message, message
        return None


@FUZZ
@given(st.binary(max_size=400))
def test_tsv_corpus_bytes_give_a_corpus_or_an_input_error(tmp_path, data):
    from textnb.io.corpus import open_corpus

    path = tmp_path / "c.tsv"
    path.write_bytes(data)
    corpus = _expect_input_error_only(open_corpus, path)
    if corpus is not None:
        assert len(corpus.documents) == len(corpus.labels) > 0


_ARFF_PIECES = [
    "@relation r", "@RELATION 'a b'", "@attribute a {x,y}", "@attribute b numeric", "@attribute 'c d' {'p q',r}",
    "@attribute e real [0,1]", "@attribute s string", "@attribute n {}", "@attribute a {x,x}", "@data", "@DATA",
    "x,1", "y,2.5", "?,?", "x,1,{", "'x',3", "{0 y, 1 3}", "{1 2}", "{}", "x,1,{2}", "x,nan", "y,inf", "x, 1e400",
    "% comment", "", "x,'unterminated", "z,1", "{5 x}", "{0}", "\"y\",4", "\\", "x,1 % c", "{0 x,1 'a b'}",
    "@attribute 'unterminated {x}", "@attribute", "@foo bar", "x,1,2", ",",
]


@FUZZ
@given(st.lists(st.sampled_from(_ARFF_PIECES), max_size=12), st.binary(max_size=20))
def test_arff_bytes_give_a_table_or_an_input_error(tmp_path, lines, noise):
    from textnb.io.arff import read_arff
    from textnb.io.tables import read_table

    path = tmp_path / "t.arff"
    path.write_bytes("\n".join(lines).encode() + noise)
    data = _expect_input_error_only(read_arff, path)
    if data is not None:
        assert data.X.shape[1] == len(data.attributes)
    _expect_input_error_only(read_table, path)


_CSV_PIECES = ["a,b,class", "a,a,class", "x", "1,2,yes", "3,4,no", "1,?,yes", ",,", "nan,inf,no", "\"1,2\",3,yes",
               "\"[1,2]\",3,no", "\"[5,3]\",1,yes", "\"{p:0.5,q:0.5}\",1,no", "\"{p:2}\",1,yes", "a\tb\tclass",
               "1\t2\tyes", "\"unterminated,1,no", "1,2", "1,2,3,4", "", "\x00", "\ufeffa,b,class"]


@FUZZ
@given(st.lists(st.sampled_from(_CSV_PIECES), max_size=8), st.binary(max_size=20),
       st.sampled_from(["t.csv", "t.tsv", "t.txt"]))
def test_csv_bytes_give_a_table_or_an_input_error(tmp_path, lines, noise, name):
    from textnb.io.tables import read_table

    path = tmp_path / name
    path.write_bytes("\n".join(lines).encode() + noise)
    table = _expect_input_error_only(read_table, path)
    if table is not None:
        assert table.X.shape[0] == len(table.y)


@FUZZ
@given(st.one_of(st.binary(max_size=600),
                 st.lists(st.sampled_from([
                     b"From: a@b.c", b"Subject: =?utf-8?b?w6k=?=", b"Content-Type: multipart/mixed; boundary=x",
                     b"--x", b"--x--", b"Content-Transfer-Encoding: base64", b"Content-Transfer-Encoding: quoted-printable",
                     b"Content-Type: text/html; charset=bogus", b"", b"<a href='http://h/'>x</a><img>", b"=C3=A9=",
                     b"SGVsbG8=", b"!!!notbase64", b"\xff\xfe", b"Received: x", b"To: ,,,@", b"\x00"]),
                          max_size=15).map(b"\r\n".join)))
def test_mail_bytes_never_crash_the_message_parser(data):
    text = _mail.message_text(data)
    assert isinstance(text, str)
    assert isinstance(_mail.message_text(data, max_bytes=7), str)


@FUZZ
@given(st.one_of(st.text(max_size=30),
                 st.lists(st.sampled_from(["[", "]", "{", "}", ",", ":", "1", "-2.5", "nan", "inf", "a", "0.5",
                                           "1e400", " "]), max_size=10).map("".join)))
def test_uncertain_cells_parse_or_raise_value_error(text):
    for parse in (_uncertain.parse_interval, _uncertain.parse_distribution):
        try:
            parse(text)
        except ValueError as exc:
            assert "\n" not in str(exc)
