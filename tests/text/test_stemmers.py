"""textnb's Porter and Snowball English stemmers: fixed stems (no NLTK needed), the same stems
as NLTK's on the bundled corpus and on random words (when NLTK is installed), and ``--stem``
without NLTK, scikit-learn or scipy."""

import pickle
import random
import subprocess
import sys
from pathlib import Path

import pytest

from textnb.text.stemmers import STEMMERS, porter_stem, snowball_stem
from textnb.text.tokenize import Analyzer, regex_tokenize

REPO = Path(__file__).resolve().parents[2]

#: (word, Porter stem, Snowball stem): the examples of Porter (1980) and of the Snowball English
#: definition, NLTK's extensions and exception lists, y, apostrophes, digits, case, unicode and
#: NLTK's quirks ('ab*ded'); the stems are those NLTK 3.10's stemmers give
STEMS = [
    ('caresses', 'caress', 'caress'),
    ('ponies', 'poni', 'poni'),
    ('ties', 'tie', 'tie'),
    ('caress', 'caress', 'caress'),
    ('cats', 'cat', 'cat'),
    ('feed', 'feed', 'feed'),
    ('agreed', 'agre', 'agre'),
    ('plastered', 'plaster', 'plaster'),
    ('bled', 'bled', 'bled'),
    ('motoring', 'motor', 'motor'),
    ('sing', 'sing', 'sing'),
    ('conflated', 'conflat', 'conflat'),
    ('troubled', 'troubl', 'troubl'),
    ('sized', 'size', 'size'),
    ('hopping', 'hop', 'hop'),
    ('tanned', 'tan', 'tan'),
    ('falling', 'fall', 'fall'),
    ('hissing', 'hiss', 'hiss'),
    ('fizzed', 'fizz', 'fizz'),
    ('failing', 'fail', 'fail'),
    ('filing', 'file', 'file'),
    ('happy', 'happi', 'happi'),
    ('sky', 'sky', 'sky'),
    ('relational', 'relat', 'relat'),
    ('conditional', 'condit', 'condit'),
    ('rational', 'ration', 'ration'),
    ('valenci', 'valenc', 'valenc'),
    ('hesitanci', 'hesit', 'hesit'),
    ('digitizer', 'digit', 'digit'),
    ('conformabli', 'conform', 'conform'),
    ('radicalli', 'radic', 'radic'),
    ('differentli', 'differ', 'differ'),
    ('vileli', 'vile', 'vile'),
    ('analogousli', 'analog', 'analog'),
    ('vietnamization', 'vietnam', 'vietnam'),
    ('predication', 'predic', 'predic'),
    ('operator', 'oper', 'oper'),
    ('feudalism', 'feudal', 'feudal'),
    ('decisiveness', 'decis', 'decis'),
    ('hopefulness', 'hope', 'hope'),
    ('callousness', 'callous', 'callous'),
    ('formaliti', 'formal', 'formal'),
    ('sensitiviti', 'sensit', 'sensit'),
    ('sensibiliti', 'sensibl', 'sensibl'),
    ('triplicate', 'triplic', 'triplic'),
    ('formative', 'form', 'format'),
    ('formalize', 'formal', 'formal'),
    ('electriciti', 'electr', 'electr'),
    ('electrical', 'electr', 'electr'),
    ('hopeful', 'hope', 'hope'),
    ('goodness', 'good', 'good'),
    ('revival', 'reviv', 'reviv'),
    ('allowance', 'allow', 'allow'),
    ('inference', 'infer', 'infer'),
    ('airliner', 'airlin', 'airlin'),
    ('gyroscopic', 'gyroscop', 'gyroscop'),
    ('adjustable', 'adjust', 'adjust'),
    ('defensible', 'defens', 'defens'),
    ('irritant', 'irrit', 'irrit'),
    ('replacement', 'replac', 'replac'),
    ('adjustment', 'adjust', 'adjust'),
    ('dependent', 'depend', 'depend'),
    ('adoption', 'adopt', 'adopt'),
    ('homologou', 'homolog', 'homologou'),
    ('communism', 'commun', 'communism'),
    ('activate', 'activ', 'activ'),
    ('angulariti', 'angular', 'angular'),
    ('homologous', 'homolog', 'homolog'),
    ('effective', 'effect', 'effect'),
    ('bowdlerize', 'bowdler', 'bowdler'),
    ('probate', 'probat', 'probat'),
    ('rate', 'rate', 'rate'),
    ('cease', 'ceas', 'ceas'),
    ('controlling', 'control', 'control'),
    ('roll', 'roll', 'roll'),
    ('generously', 'gener', 'generous'),
    ('generalizations', 'gener', 'general'),
    ('dying', 'die', 'die'),
    ('lying', 'lie', 'lie'),
    ('skies', 'sky', 'sky'),
    ('news', 'news', 'news'),
    ('innings', 'inning', 'inning'),
    ('proceeding', 'proceed', 'proceed'),
    ('exceeded', 'exceed', 'exceed'),
    ('dies', 'die', 'die'),
    ('died', 'die', 'die'),
    ('flies', 'fli', 'fli'),
    ('spied', 'spi', 'spi'),
    ('enjoy', 'enjoy', 'enjoy'),
    ('spy', 'spi', 'spi'),
    ('fly', 'fli', 'fli'),
    ('try', 'tri', 'tri'),
    ('archaeology', 'archaeolog', 'archaeolog'),
    ('geology', 'geolog', 'geolog'),
    ('fully', 'fulli', 'fulli'),
    ('hopefully', 'hope', 'hope'),
    ('yelling', 'yell', 'yell'),
    ('sayings', 'say', 'say'),
    ('yyyy', 'yyyi', 'yyyi'),
    ('crying', 'cri', 'cri'),
    ("cry's", "cry'", 'cri'),
    ("o'clock", "o'clock", "o'clock"),
    ("don't", "don't", "don't"),
    ('’tis', '’ti', 'tis'),
    ('naïve', 'naïv', 'naïv'),
    ('café', 'café', 'café'),
    ('résumé', 'résumé', 'résumé'),
    ('1990s', '1990', '1990s'),
    ('mp3s', 'mp3', 'mp3s'),
    ('__init__', '__init__', '__init__'),
    ('a', 'a', 'a'),
    ('at', 'at', 'at'),
    ('is', 'is', 'is'),
    ('us', 'us', 'us'),
    ('gas', 'ga', 'gas'),
    ('this', 'thi', 'this'),
    ('ugly', 'ugli', 'ugli'),
    ('early', 'earli', 'earli'),
    ('only', 'onli', 'onli'),
    ('singly', 'singli', 'singl'),
    ('gently', 'gentli', 'gentl'),
    ('idly', 'idli', 'idl'),
    ('atlas', 'atla', 'atlas'),
    ('cosmos', 'cosmo', 'cosmos'),
    ('bias', 'bia', 'bias'),
    ('andes', 'and', 'andes'),
    ('herrings', 'her', 'herring'),
    ('arsenal', 'arsen', 'arsenal'),
    ('community', 'commun', 'communiti'),
    ('consignment', 'consign', 'consign'),
    ('knightly', 'knightli', 'knight'),
    ('kneeling', 'kneel', 'kneel'),
    ('succeed', 'succeed', 'succeed'),
    ('succeeding', 'succeed', 'succeed'),
    ('abated', 'abat', 'abat'),
    ('abilities', 'abil', 'abil'),
    ('skis', 'ski', 'ski'),
    ('Running', 'run', 'run'),
    ('CONNECTIONS', 'connect', 'connect'),
    ('İs', 'i̇s', 'i̇'),
    ('syzygy', 'syzygi', 'syzygi'),
    ('toy', 'toy', 'toy'),
    ('oed', 'o', 'o'),
    ('ab*ded', 'abd', 'ab*d'),
]


@pytest.mark.parametrize("word, porter, snowball", STEMS)
def test_known_stems(word, porter, snowball):
    assert porter_stem(word) == porter
    assert snowball_stem(word) == snowball


def test_short_words_are_only_lowercased():
    for word in ["", "a", "Is", "US", "ü", "'s"]:
        assert porter_stem(word) == snowball_stem(word) == word.lower()


def test_long_runs_of_y_and_suffixes_take_linear_paths():
    # NLTK made these iterative after recursion and quadratic-time reports; they must simply work
    assert porter_stem("y" * 5000) == "y" * 4999 + "i"
    assert snowball_stem("y" * 5000) == "Y".lower() + "y" * 4998 + "i"
    assert porter_stem("ational" * 500).startswith("ational")


def _sample_words():
    words = set()
    sms = REPO / "corpora" / "sms_spam" / "SMSSpamCollection.tsv"
    words.update(regex_tokenize(sms.read_text(encoding="utf-8")))
    words.update(sms.read_text(encoding="utf-8").split()[:20000])
    rng = random.Random(7)
    letters = "aeiouyyllsstbdcngrmz'"
    endings = ["", "s", "ed", "ing", "ly", "ational", "izer", "alli", "logi", "ogi", "li", "bli", "enci",
               "iveness", "ative", "ement", "ion", "ll", "e", "eedly", "ied", "ies", "'s", "y"]
    for _ in range(20000):
        stem = "".join(rng.choice(letters) for _ in range(rng.randint(0, 7)))
        words.add(stem + rng.choice(endings) + rng.choice(endings))
    words.update(word for word, _, _ in STEMS)
    return sorted(words)


def test_same_stems_as_nltk():
    pytest.importorskip("nltk")
    from nltk.stem.porter import PorterStemmer
    from nltk.stem.snowball import SnowballStemmer

    nltk_porter, nltk_snowball = PorterStemmer().stem, SnowballStemmer("english").stem
    words = _sample_words()
    assert len(words) > 25000
    assert [w for w in words if porter_stem(w) != nltk_porter(w)] == []
    assert [w for w in words if snowball_stem(w) != nltk_snowball(w)] == []


def test_analyzer_stems_with_textnb_stemmers_and_pickles():
    for name, stem in STEMMERS.items():
        analyzer = Analyzer(stemmer=name)
        terms = analyzer("Generously running ponies' relational connections")
        assert terms == [stem(t) for t in ["generously", "running", "ponies", "relational", "connections"]]
        assert pickle.loads(pickle.dumps(analyzer))("running ponies") == terms[1:3]


@pytest.mark.parametrize("stemmer", ["porter", "snowball"])
def test_stem_train_and_predict_load_no_nltk_or_scikit_learn(stemmer, tmp_path):
    """``--stem`` imported NLTK, whose package __init__ imports scikit-learn and scipy.stats."""
    lines = (REPO / "corpora" / "sms_spam" / "SMSSpamCollection.tsv").read_text(encoding="utf-8").splitlines()
    data, doc, model = tmp_path / "sms.tsv", tmp_path / "doc.txt", tmp_path / "m.tnb"
    data.write_text("\n".join(lines[:400]) + "\n", encoding="utf-8")
    doc.write_text("Free entry: win prizes, calling now\n", encoding="utf-8")
    heavy = "sorted(m for m in sys.modules if m.split('.')[0] in ('nltk', 'sklearn') or m.startswith('scipy.stats'))"
    commands = (["train", str(data), "--stem", stemmer, "-o", str(model)], ["predict", str(model), str(doc)])
    probe = ("import contextlib, io, sys\nfrom textnb.cli.commands import main\n"  # (one process: what each imported)
             f"for args in {commands!r}:\n"
             "    with contextlib.redirect_stdout(io.StringIO()):\n        rc = main(args)\n"
             f"    print(rc, {heavy})\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip().splitlines()[-2:] == ["0 []", "0 []"], (out.stdout, out.stderr)
