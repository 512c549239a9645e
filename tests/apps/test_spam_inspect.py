"""``textnb inspect`` of a spam filter's model: the messages it learnt, its tokens and the
ones that weigh most towards each class (it refused the file: "classify mail with
spamfilter"), on a model trained by ``spamfilter --train-*`` on the bundled SMS collection."""

import json
import math

import numpy as np
import pytest
from conftest import SMS_TSV, cli

FROM = "From sms@example.com Sat Jan  1 00:00:00 2000\n"


@pytest.fixture(scope="module")
def sms_spam_model(tmp_path_factory):
    """A spam model trained on the SMS collection's messages, each class's in one mbox file."""
    from textnb.apps.filtering import train_model

    root = tmp_path_factory.mktemp("sms_mail")
    rows = [line.split("\t", 1) for line in SMS_TSV.read_text(encoding="utf-8").splitlines()]
    boxes = {}
    for label in ("spam", "ham"):
        texts = [text for lab, text in rows if lab == label]
        boxes[label] = root / f"{label}.mbox"
        boxes[label].write_text("".join(f"{FROM}Subject: sms\n\n{'>' if t.startswith('From ') else ''}{t}\n\n"
                                        for t in texts), encoding="utf-8")
    model = root / "spam.tnb"
    counts = train_model(model, [boxes["spam"]], [boxes["ham"]], n_jobs=1)
    return model, counts


def test_inspect_describes_a_spam_model(sms_spam_model, tmp_path):
    from textnb.core.model_io import load

    path, counts = sms_spam_model
    rc, out, err = cli("inspect", path, "--top", "5")
    assert rc == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("model: SpamScorer(") and "method='fisher'" in lines[0]
    assert f"  ham: {counts['ham']} messages" in lines and f"  spam: {counts['spam']} messages" in lines
    model = load(path)
    assert f"vocabulary: {len(model.vocabulary_)} tokens" in out
    rc, out, err = cli("inspect", path, "--top", "5", "--json")
    info = json.loads(out)
    assert (info["kind"], info["model"], info["classes"]) == ("spam", "SpamScorer", ["ham", "spam"])
    assert info["class_count"] == [counts["ham"], counts["spam"]] == model.class_count_.tolist()
    assert info["params"] == model.get_params() and info["vocabulary_size"] == len(model.vocabulary_)
    index = {t: j for j, t in enumerate(model.vocabulary_)}
    n_h, n_s = (float(n) for n in model.class_count_)
    for k, label in enumerate(("ham", "spam")):
        pairs = info["informative_terms"][label]
        assert len(pairs) == 5 and [v for _, v in pairs] == sorted((v for _, v in pairs), reverse=True)
        for token, value in pairs:
            g, b = (float(x) for x in model.feature_count_[:, index[token]])
            assert (b > g * n_s / n_h) == (label == "spam")  # more often in its class's messages
            p = b * n_h / (b * n_h + g * n_s)  # Robinson's f(w), by hand
            f = (model.robs * model.robx + (b + g) * p) / (model.robs + b + g)
            assert value == pytest.approx((1 if label == "spam" else -1) * math.log(f / (1 - f)), rel=1e-9)
    # the text lists the same tokens, in the same order
    rc, out, _ = cli("inspect", path, "--top", "5")
    lines = out.splitlines()
    listing = lines[next(k for k, line in enumerate(lines) if line.startswith("most informative tokens")):]
    spam_line = next(line for line in listing if line.startswith("  spam: "))
    assert [t for t, _ in info["informative_terms"]["spam"]] == [part.rsplit(" (", 1)[0]
                                                                 for part in spam_line[8:].split(", ")]
    rc, out, err = cli("inspect", path, "--plot", tmp_path / "tokens.png")
    assert rc == 0 and (tmp_path / "tokens.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"informative tokens plot: {tmp_path / 'tokens.png'}" in out


def test_the_informative_tokens_are_the_weights_each_method_scores_with(sms_spam_model):
    """``informative_tokens`` ranks by ``token_log_odds``, what the model adds up: the tokens
    the fisher model leaves out (within min_dev of 1/2) are not listed; the multinomial
    method's are its log-likelihood ratios; a token listed for spam raises a message's
    spam log-odds under the multinomial method by exactly its value."""
    from textnb.core.model_io import load

    model = load(sms_spam_model[0])
    lo = model.token_log_odds()
    use = model._token_weights()["use"]
    listed = model.informative_tokens(len(lo))  # every token on its side
    index = {t: j for j, t in enumerate(model.vocabulary_)}
    assert all(use[index[t]] for pairs in listed.values() for t, _ in pairs)
    assert sum(map(len, listed.values())) == int(np.sum(use & (lo != 0)))
    model.set_params(method="multinomial")
    top = model.informative_tokens(3)["spam"]
    token, value = top[0]
    base = model.decision_function([["lunch"]])[0]
    assert model.decision_function([["lunch", token]])[0] - base == pytest.approx(value, rel=1e-9)


@pytest.mark.parametrize("kind", ["fisher", "discriminative"])
def test_a_utf7_mail_decoding_to_a_lone_surrogate_trains_and_inspects(tmp_path, kind):
    """An HTML mail in UTF-7 whose link host decodes to a lone surrogate (``+2AA-``): the
    reader decodes it as a wrong charset (UTF-8 here), so ``spamfilter --train-*`` writes a
    model of every kind that ``textnb inspect`` reads and prints (*was*: the discriminative
    kind stopped on an internal error, exit 3, and the Fisher model's ``inspect`` did, exit 70)."""
    from conftest import run_spamfilter

    for folder, data in (("spam", b'From: a@b.c\nSubject: hi\nContent-Type: text/html; charset=utf-7\n\n'
                                  b'<a href="http://+2AA-.example.com/">x</a> free money\n'),
                         ("ham", b"From: c@d.e\nSubject: lunch\n\nmeeting at noon\n")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "1.eml").write_bytes(data)
    model = tmp_path / "m.tnb"
    rc, _, err = run_spamfilter(["-m", model, "--kind", kind, "--train-spam", tmp_path / "spam",
                                 "--train-ham", tmp_path / "ham"])
    assert rc == 0, err
    rc, out, err = cli("inspect", model)
    assert rc == 0, err
    out.encode("utf-8")  # (no lone surrogate in what it prints)
