"""textnb.apps.spamscore: Robinson-Fisher / geometric / Boolean multinomial scoring and the mail tokenizer."""

import base64
import math
import subprocess
import sys

import numpy as np
import pytest
from scipy.stats import chi2

import textnb
from textnb.core.errors import InputError, ModelFileError
from textnb.apps.spamscore import SpamScorer, log_chi2_even, message_tokens

SPAM = [["cheap", "pills", "viagra", "offer"], ["cheap", "offer", "click", "now"], ["viagra", "click", "win"]]
HAM = [["meeting", "tomorrow", "agenda"], ["agenda", "notes", "offer"], ["lunch", "meeting", "notes"]]
X = SPAM + HAM
Y = ["spam"] * 3 + ["ham"] * 3


# -- chi-square in log space ---------------------------------------------------------------
@pytest.mark.parametrize("x,k", [(1.0, 1), (10.0, 5), (50.0, 30), (200.0, 100), (1000.0, 600), (3.0, 50),
                                 (400.0, 3), (2.0, 1)])
def test_log_chi2_even_matches_scipy(x, k):
    lp, lq = log_chi2_even(np.array([x]), np.array([k]))
    assert lp[0] == pytest.approx(chi2.logcdf(x, 2 * k), rel=1e-9, abs=1e-12)
    assert lq[0] == pytest.approx(chi2.logsf(x, 2 * k), rel=1e-9, abs=1e-12)


def test_log_chi2_even_keeps_resolution_where_scipy_underflows():
    lp, lq = log_chi2_even(np.array([5000.0, 6000.0]), np.array([100, 100]))
    assert np.all(np.isfinite(lq)) and lq[1] < lq[0] < -1000  # Q = exp(-2084...) still ordered
    assert np.all(lp == 0.0)


# -- the three scorings against direct formulas --------------------------------------------
def robinson_f(model, tok):
    j = model.vocabulary_.tolist().index(tok)
    g, b = model.feature_count_[:, j]
    n_h, n_s = model.class_count_
    p = (b / n_s) / (b / n_s + g / n_h)
    return (model.robs * model.robx + (g + b) * p) / (model.robs + g + b)


def test_fisher_is_bogofilters_formula():
    m = SpamScorer(min_dev=0.0).fit(X, Y)
    doc = ["cheap", "click", "agenda", "unknownword"]
    f = [robinson_f(m, t) for t in doc[:3]]
    n = len(f)
    s = 1 - chi2.sf(-2 * sum(math.log(1 - v) for v in f), 2 * n)
    h = 1 - chi2.sf(-2 * sum(math.log(v) for v in f), 2 * n)
    indicator = (1 + s - h) / 2
    assert m.decision_function([doc])[0] == pytest.approx(math.log(indicator / (1 - indicator)), rel=1e-9)
    assert m.predict_proba([doc])[0, 1] == pytest.approx(indicator, rel=1e-9)


def test_geometric_is_robinsons_formula():
    m = SpamScorer(method="geometric", min_dev=0.0).fit(X, Y)
    doc = ["cheap", "notes", "lunch"]
    f = np.array([robinson_f(m, t) for t in doc])
    p = 1 - np.prod(1 - f) ** (1 / 3)
    q = 1 - np.prod(f) ** (1 / 3)
    assert m.decision_function([doc])[0] == pytest.approx(math.log(p / q), rel=1e-9)


def test_multinomial_on_boolean_attributes():
    m = SpamScorer(method="multinomial", alpha=0.5).fit(X, Y)
    vocab = m.vocabulary_.tolist()
    doc = ["cheap", "cheap", "meeting", "nowhere"]  # repeated: counted once; unknown: ignored
    df = m.feature_count_.astype(float)
    logp = np.log(df + 0.5) - np.log(df.sum(axis=1, keepdims=True) + 0.5 * len(vocab))
    j = [vocab.index("cheap"), vocab.index("meeting")]
    expected = (logp[1, j] - logp[0, j]).sum() + math.log(3 / 3)
    assert m.decision_function([doc])[0] == pytest.approx(expected)
    norm = SpamScorer(method="multinomial", alpha=0.5, length_norm=True).fit(X, Y)
    assert norm.decision_function([doc])[0] == pytest.approx(expected / math.sqrt(2))


def test_min_dev_ignores_neutral_tokens_and_max_tokens_keeps_the_extreme_ones():
    m = SpamScorer().fit(X, Y)  # 'offer': 2 spam, 1 ham -> f near 0.5: ignored at min_dev 0.375
    assert m.decision_function([["offer"]])[0] == 0.0
    assert m.decision_function([["offer", "viagra"]])[0] == m.decision_function([["viagra"]])[0]
    few = SpamScorer(max_tokens=1, min_dev=0.0).fit(X, Y)
    one = SpamScorer(min_dev=0.0).fit(X, Y)
    # of 'offer' (near 0.5) and 'viagra' (extreme), only 'viagra' is used
    assert few.decision_function([["offer", "viagra"]])[0] == pytest.approx(one.decision_function([["viagra"]])[0])


def test_no_saturation_long_messages_keep_their_order():
    rng = np.random.default_rng(0)
    spam_words = [f"s{i}" for i in range(400)]
    ham_words = [f"h{i}" for i in range(400)]
    docs = [list(rng.choice(spam_words, 60)) for _ in range(50)] + [list(rng.choice(ham_words, 60)) for _ in range(50)]
    m = SpamScorer().fit(docs, ["spam"] * 50 + ["ham"] * 50)
    lo = m.decision_function([spam_words[:100], spam_words[:200], spam_words[:400]])
    assert np.all(np.isfinite(lo)) and lo[0] < lo[1] < lo[2]
    assert m.predict_proba([spam_words[:100]])[0, 1] == 1.0  # the probability has saturated, the log-odds not


# -- counting ----------------------------------------------------------------------------------
def test_partial_fit_and_forget_are_exact():
    whole = SpamScorer().fit(X, Y)
    parts = SpamScorer().partial_fit(X[:2], Y[:2], classes=["ham", "spam"]).partial_fit(X[2:], Y[2:])
    doc = [["cheap", "agenda", "win"]]
    assert parts.decision_function(doc)[0] == pytest.approx(whole.decision_function(doc)[0])
    parts.partial_fit([["brandnew", "cheap"]], ["ham"]).forget([["brandnew", "cheap"]], ["ham"])
    assert parts.decision_function(doc)[0] == pytest.approx(whole.decision_function(doc)[0])
    with pytest.raises(ValueError):
        parts.forget([["neverseen"]], ["spam"])
    with pytest.raises(ValueError):
        SpamScorer().fit(X, Y).forget([["cheap"]] * 5, ["spam"] * 5)  # more than were counted
    with pytest.raises(InputError, match="two classes"):
        SpamScorer().fit(X, ["a", "b", "c"] * 2)
    with pytest.raises(InputError, match="unknown labels"):
        SpamScorer().fit(X, Y).partial_fit([["x"]], ["other"])


def test_later_partial_fit_calls_must_repeat_the_classes_unchanged():
    """Found by a library hunt: ``partial_fit`` read ``classes`` on the first call only (as
    TextClassifier's did), so other classes on a later call were accepted silently; now
    the rule of every model (``partial_fit_classes``, scikit-learn's)."""
    parts = SpamScorer().partial_fit(X, Y, classes=["ham", "spam"]).partial_fit(X, Y, classes=["spam", "ham"])
    for other in (["ham"], ["eggs", "ham", "spam"]):
        with pytest.raises(ValueError, match=r"is not the same as on last call to partial_fit, was: \['ham', 'spam'\]"):
            parts.partial_fit(X, Y, classes=other)
    assert parts.class_count_.tolist() == SpamScorer().fit(X + X, Y + Y).class_count_.tolist()


@pytest.mark.parametrize("method", ["fisher", "geometric", "multinomial"])
def test_forgetting_messages_gives_the_model_never_taught_them(method):
    """Found by a user trial: tokens only the forgotten messages had stayed in the vocabulary
    at zero counts, and the multinomial scoring (spamfilter --kind boolean) still weighed them
    and counted them in its smoothing: a message of the SMS corpus went from ham 0.9997 to
    spam. They now leave the vocabulary, as TextClassifier.forget's terms do."""
    first = [["cheap", "pills", "win"], ["lunch", "agenda"], ["win", "prize", "now"], ["agenda", "noon"]]
    more = [["zebra", "cheap", "offer"], ["noon", "quokka"]]
    labels = ["spam", "ham", "spam", "ham"]
    fresh = SpamScorer(method=method, min_dev=0.0).fit(first, labels)
    taught = SpamScorer(method=method, min_dev=0.0).fit(first + more, labels + ["spam", "ham"])
    taught.forget(more, ["spam", "ham"])
    assert sorted(taught.vocabulary_) == sorted(fresh.vocabulary_)
    docs = first + more + [["zebra", "quokka", "noon"], ["offer", "win"]]
    assert taught.decision_function(docs) == pytest.approx(fresh.decision_function(docs), rel=1e-12, abs=1e-12)
    with pytest.raises(ValueError, match="no token would be left"):
        SpamScorer(method=method).fit(first, labels).forget(first, labels)


def test_strings_are_split_on_whitespace():
    a = SpamScorer().fit([" ".join(d) for d in X], Y)
    b = SpamScorer().fit(X, Y)
    assert a.decision_function(["cheap agenda"])[0] == b.decision_function([["cheap", "agenda"]])[0]


def test_bad_parameters_are_one_line_errors():
    for params in ({"method": "graham"}, {"min_dev": 0.5}, {"robx": 2.0}, {"alpha": 0.0}, {"max_tokens": 0}):
        with pytest.raises(InputError):
            SpamScorer(**params).fit(X, Y)


# -- model files ---------------------------------------------------------------------------------
def test_save_load_round_trip_and_same_bytes(tmp_path):
    m = SpamScorer(method="geometric", min_dev=0.2).fit(X, Y)
    m.save(tmp_path / "a.tnb")
    back = textnb.load(tmp_path / "a.tnb")
    assert isinstance(back, SpamScorer) and back.get_params() == m.get_params()
    docs = [["cheap", "agenda"], ["win", "notes", "zzz"]]
    assert np.array_equal(back.decision_function(docs), m.decision_function(docs))
    # the same counts learnt in another order give the same file
    order = [5, 0, 3, 1, 4, 2]
    SpamScorer(method="geometric", min_dev=0.2).fit([X[i] for i in order], [Y[i] for i in order]).save(
        tmp_path / "b.tnb")
    assert (tmp_path / "a.tnb").read_bytes() == (tmp_path / "b.tnb").read_bytes()
    # and it keeps learning after loading
    back.partial_fit([["fresh"]], ["spam"])
    assert "fresh" in back.vocabulary_.tolist()


def test_inconsistent_state_is_a_model_file_error(tmp_path):
    import json
    import zipfile

    SpamScorer().fit(X, Y).save(tmp_path / "a.tnb")
    with zipfile.ZipFile(tmp_path / "a.tnb") as z:
        members = {n: z.read(n) for n in z.namelist()}

    def crafted(change):
        header = json.loads(members["header.json"])
        change(header["model"])
        with zipfile.ZipFile(tmp_path / "b.tnb", "w", zipfile.ZIP_STORED) as z:
            for n, d in members.items():
                z.writestr(n, json.dumps(header).encode() if n == "header.json" else d)
        with pytest.raises(ModelFileError):
            textnb.load(tmp_path / "b.tnb")

    crafted(lambda node: node["params"].update(nonsense=1))
    crafted(lambda node: node["state"].update(class_count_=node["state"]["tokens_utf8_"]))
    crafted(lambda node: node["state"].update(feature_count_=node["state"]["class_count_"]))


def test_prediction_imports_neither_scikit_learn_nor_scipy(tmp_path):
    SpamScorer().fit(X, Y).save(tmp_path / "m.tnb")
    code = ("import sys, textnb; m = textnb.load(sys.argv[1]); "
            "from textnb.apps.spamscore import message_tokens; "
            "m.decision_function([message_tokens(b'Subject: cheap\\n\\nviagra now')]); "
            "bad = [k for k in sys.modules if k.split('.')[0] in ('sklearn', 'scipy')]; "
            "sys.exit(1 if bad else 0)")
    r = subprocess.run([sys.executable, "-c", code, str(tmp_path / "m.tnb")], capture_output=True)
    assert r.returncode == 0, r.stderr.decode()


# -- the tokenizer ------------------------------------------------------------------------------
def test_header_tokens_are_prefixed_and_decoded():
    msg = (b"Received: from mx.example.org (1.2.3.4) by here; Mon, 1 Jan 2024 00:00:00 +0000\n"
           b"From: Bob <bob@example.com>\nSubject: =?utf-8?b?" + base64.b64encode("Günstig kaufen".encode())
           + b"?=\nList-Id: <python-list.python.org>\nDate: Mon, 1 Jan 2024\n\nHello World\n")
    toks = message_tokens(msg)
    for t in ("rcvd:mx.example.org", "from:example.com", "subject:günstig", "list-id:python-list.python.org",
              "hname:list-id", "received:1", "ctype:text/plain", "hello", "world"):
        assert t in toks
    assert not any(t.startswith("date:") for t in toks) and len(toks) == len(set(toks))
    assert not any("2024" in t for t in toks if t.startswith("rcvd:"))  # the date after ';' is left out


def test_mime_parts_are_decoded():
    html = "<html><script>var hidden=1</script><p>Caf&eacute; <a href='http://Shop.Example.net/x'>buy</a>" \
           "<img src=x></p></html>"
    msg = ("Subject: x\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"BB\"\n\npreamble\n"
           "--BB\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n\n"
           + base64.b64encode("naïve plain".encode()).decode() + "\n"
           "--BB\nContent-Type: text/html; charset=iso-8859-1\nContent-Transfer-Encoding: quoted-printable\n\n"
           + html.replace("=", "=3D") + "\n"
           "--BB\nContent-Type: application/pdf; name=\"invoice.pdf\"\nContent-Transfer-Encoding: base64\n\n"
           "JVBERi0xLjQKJcfs\n--BB--\nepilogue words\n").encode()
    toks = message_tokens(msg)
    for t in ("ctype:multipart/mixed", "cte:base64", "charset:utf-8", "naïve", "plain", "café", "buy",
              "url:shop.example.net", "html:img1", "attach:invoice.pdf", "ctype:application/pdf"):
        assert t in toks, t
    assert "hidden" not in toks and "preamble" not in toks and "epilogue" not in toks


def test_tokenizer_never_raises_and_caps_size():
    rng = np.random.default_rng(0)
    for n in (0, 1, 100, 5000):
        message_tokens(rng.integers(0, 256, n, dtype=np.uint8).tobytes())
    broken = b"Content-Type: multipart/mixed; boundary=\"X\"\nContent-Transfer-Encoding: base64\n\n--X\n" \
             b"Content-Transfer-Encoding: base64\n\n!!!not base64@@@\n"
    assert "ctype:multipart/mixed" in message_tokens(broken)
    assert "mimedefect:noboundary" in message_tokens(b"Content-Type: multipart/mixed\n\nhello there\n")
    big = b"Subject: x\n\n" + b"word " * 1000
    assert "textnb:truncated" in message_tokens(big, max_bytes=100)
    assert message_tokens(b"Hi:) see you at noon")[:1] != ["hname:hi"]  # a plain text is not a header


def test_long_runs_become_skip_tokens():
    toks = message_tokens(b"Subject: x\n\n" + b"a" * 95 + b" short\n")
    assert "skip:a90" in toks and "short" in toks


@pytest.mark.parametrize("labels", [[1, 0], [True, False], ["spam", "ham"]])
def test_labels_come_back_as_given(labels, tmp_path):
    """Found by a user trial: every label was turned into a str (predict of a model fitted on
    0 / 1 said '1'), so ``predict(X) == y`` never held for int or bool labels."""
    docs = [["cheap", "win"], ["lunch", "noon"]] * 3
    y = np.array(labels * 3)
    m = SpamScorer().fit(docs, y)
    assert m.classes_.dtype == np.unique(y).dtype
    assert (m.predict(docs) == y).all() and m.score(docs, y) == 1.0
    m.save(tmp_path / "m.tnb")
    assert (textnb.load(tmp_path / "m.tnb").predict(docs) == y).all()


def test_scikit_learn_tools_take_the_spam_scorer():
    from sklearn.base import clone, is_classifier
    from sklearn.model_selection import GridSearchCV, cross_val_score

    docs = [" ".join(d) for d in X] * 3
    y = list(Y) * 3
    assert is_classifier(SpamScorer()) and clone(SpamScorer(method="geometric")).method == "geometric"
    assert cross_val_score(SpamScorer(), docs, y, cv=3).shape == (3,)
    search = GridSearchCV(SpamScorer(), {"method": ["fisher", "multinomial"]}, cv=3).fit(docs, y)
    assert search.best_params_["method"] in ("fisher", "multinomial")


@pytest.mark.parametrize("call", ["predict", "predict_proba", "predict_log_odds", "decision_function", "score",
                                  "token_log_odds", "informative_tokens", "lite_scorer", "save"])
def test_every_method_before_fit_says_the_scorer_is_not_fitted(call, tmp_path):
    """``SpamScorer().predict(...)`` raised AttributeError (``classes_``, read before the
    decision that checks it), as did the methods that read the counts without it."""
    args = {"predict": (["free money"],), "predict_proba": (["free money"],), "predict_log_odds": (["free money"],),
            "decision_function": (["free money"],), "score": (["free money"], ["spam"]), "token_log_odds": (),
            "informative_tokens": (), "lite_scorer": (), "save": (tmp_path / "m.tnb",)}[call]
    with pytest.raises(InputError, match="^the spam scorer is not fitted$"):
        getattr(SpamScorer(), call)(*args)
    assert not (tmp_path / "m.tnb").exists()
