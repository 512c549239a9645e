"""``textnb serve`` answers a text with the labels ``textnb predict --lines`` prints for it: the
texts are read by one rule (``textnb.io.fasttext.line_texts``: the model's fastText label words
left out, the text cut at its ``--max-bytes``) and the labels named by one rule
(``textnb.evaluation.topk.label_names``), over HTTP and the socket's ``CLASSIFY``."""

import json
import socket

import pytest

import textnb
from conftest import cli, post
from textnb.apps.serve import Server

SPORT = "goal match team coach players score"
TECH = "laptop software servers cloud processor code"
#: the texts sent to both: label words of the model's prefix ('#' or '__label__') at the start, in
#: the middle, repeated; runs of spaces and TABs; words of neither class
TEXTS = ["{p}tech {p}tech {p}tech goal", "{p}sport laptop software", "goal  match\t{p}tech team",
         "{p}tech", "servers cloud", "nothing known here", "{p}sport {p}tech coach code"]


def _fasttext_file(path, prefix, multilabel=False):
    lines = []
    for i in range(8):
        lines.append(f"{prefix}sport {SPORT} {i} tech" if i % 4 == 0 else f"{prefix}sport {SPORT} {i}")
        lines.append(f"{prefix}tech {TECH} {i} tech tech")
        if multilabel:
            lines.append(f"{prefix}sport {prefix}tech {SPORT} {TECH}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    root = tmp_path_factory.mktemp("labels")
    made = {}
    for name, prefix, multi in (("hash", "#", False), ("default", "__label__", False), ("hash-multi", "#", True)):
        data = _fasttext_file(root / f"{name}.txt", prefix, multi)
        made[name] = (root / f"{name}.tnb", prefix)
        rc, _, err = cli("train", data, "--label-prefix", prefix, "-o", made[name][0])
        assert rc == 0, err
    docs = [f"{SPORT} {i}" for i in range(6)] + [f"{TECH} tech {i}" for i in range(6)]
    for name, labels in (("int", [0] * 6 + [1] * 6), ("bool", [True] * 6 + [False] * 6)):
        textnb.TextClassifier().fit(docs, labels).save(root / f"{name}.tnb")
        made[name] = (root / f"{name}.tnb", "__label__")
    return made


def _classify_over_socket(path, request):
    body = json.dumps(request).encode()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(30)
        s.connect(str(path))
        s.sendall(b"CLASSIFY %d\n" % len(body) + body)
        s.shutdown(socket.SHUT_WR)
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    head, _, rest = data.partition(b"\n")
    assert head.startswith(b"OK "), data
    return json.loads(rest)


@pytest.mark.parametrize("name", ["hash", "default", "hash-multi", "int", "bool"])
def test_serve_answers_the_labels_predict_prints(models, tmp_path, name):
    """The same model and texts: ``predict --lines`` and ``serve`` (HTTP ``/classify`` and the
    socket's ``CLASSIFY``) give the same labels, ranked (``--top -1`` / ``"top": -1``) with the same
    probabilities. *Was*: the daemon fed each text as it came, with its label words ('#tech #tech
    #tech goal' a tech text where predict read 'goal', a sport one), and named an integer or boolean
    class by a JSON number or boolean where predict printed ``"0"``, ``"True"``; and ``predict`` of a
    multi-label model trained with ``--label-prefix '#'`` read its lines' '#' words as text (it asked
    for the model's prefix of single-label models only)."""
    import tempfile

    model, prefix = models[name]
    texts = [t.format(p=prefix) for t in TEXTS]
    lines = tmp_path / "lines.txt"
    lines.write_text("\n".join(texts) + "\n", encoding="utf-8")
    rc, out, err = cli("predict", model, "--lines", lines, "--json")
    assert rc == 0, err
    plain = [json.loads(line) for line in out.splitlines()]
    plain = [rec["labels"] if "labels" in rec else rec["label"] for rec in plain]
    rc, out, err = cli("predict", model, "--lines", lines, "--json", "--top", "-1")
    assert rc == 0, err
    ranked = [[(lab["label"], lab["proba"]) for lab in json.loads(line)["labels"]] for line in out.splitlines()]
    with tempfile.TemporaryDirectory(prefix="tnbl") as folder:  # (AF_UNIX paths are short: not under tmp_path)
        _serve_and_compare(model, folder + "/s", texts, prefix, plain, ranked)
    if name == "hash":  # (the label words decide: read by the daemon, '#tech #tech #tech goal' was tech)
        assert plain[0] == "sport"


def _serve_and_compare(model, sock, texts, prefix, plain, ranked):
    """The daemon's answers over HTTP and its socket: ``predict``'s labels (``plain``) and
    ranked probabilities (``ranked``), whether or not the texts hold the label words."""
    from conftest import watchdog

    with watchdog(120), Server(model, socket_path=sock, http=("127.0.0.1", 0)) as server:
        port = server.http_address[1]
        for ask in (lambda req: post(port, req)[1], lambda req: _classify_over_socket(sock, req)):
            answer = ask({"texts": texts})
            assert answer["labels"] == plain
            assert all(isinstance(c, str) for c in answer["classes"])
            answer = ask({"texts": texts, "top": -1})
            classes = answer["classes"]
            got = [[(lab, row[classes.index(lab)]) for lab in labs]
                   for labs, row in zip(answer["labels"], answer["probabilities"])]
            assert got == ranked
        # the label words are not read, by either: the texts without them, as a hand strips them, answer alike
        stripped = [" ".join(w for w in t.split() if not w.startswith(prefix)) for t in texts]
        assert post(port, {"texts": stripped})[1]["labels"] == plain
        status, described = _get_model(port)
        assert status == 200 and described["classes"] == classes


def _get_model(port):
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", "/model")
        r = conn.getresponse()
        return r.status, json.loads(r.read())
    finally:
        conn.close()
