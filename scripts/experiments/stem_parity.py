"""textnb's stemmers against NLTK's, word by word, on every distinct token of the corpora.

``textnb.text.stemmers.porter_stem`` must equal ``nltk.stem.porter.PorterStemmer().stem``
and ``snowball_stem`` ``nltk.stem.snowball.SnowballStemmer("english").stem`` (the stemmers
textnb called before it had its own) on every word, so that ``--stem`` model files stay
byte-identical. This script collects words and compares:

* ``tokens``: the default tokenizer's output (lowercased, ``\\w\\w+``) on every file of the
  corpora given (default: every folder of ``/work/corpora`` and the repository's
  ``corpora/``), read as UTF-8 with replacement characters and as Latin-1;
* ``pieces``: the whitespace-separated pieces of the same text, as they are (case kept,
  punctuation, apostrophes, digits: what a custom ``token_pattern`` or ``lowercase=False``
  passes), at most 2,000,000 of them;
* ``edge``: every string of up to 3 letters over ``a e i o u y s l b t d c ' ’`` and digits,
  the words of the stemmers' exception lists with their inflections, and unicode words;
* ``random``: random strings (fixed seed) over letters that exercise the suffix rules.

Where NLTK raises, textnb's stemmer must raise the same exception type. Needs NLTK.

Usage::

    python scripts/experiments/stem_parity.py                  # everything; about 10 minutes
    python scripts/experiments/stem_parity.py --corpora corpora/sms_spam --random 20000

Prints one line a word set and stemmer (``equal`` of ``distinct``) and the first differences;
exits 1 when any differ.
"""

import argparse
import itertools
import os
import random
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from textnb.text.stemmers import porter_stem, snowball_stem  # noqa: E402
from textnb.text.tokenize import regex_tokenize  # noqa: E402

DEFAULT_CORPORA = sorted(str(p) for p in Path("/work/corpora").iterdir() if p.is_dir()) + [str(REPO / "corpora")]
MAX_PIECES = 2_000_000


def corpus_words(roots):
    """(tokens, pieces): distinct default tokens and whitespace pieces of every file under ``roots``."""
    tokens, pieces = set(), set()
    for root in roots:
        for folder, _, names in os.walk(root):
            for name in names:
                path = os.path.join(folder, name)
                if not os.path.isfile(path):
                    continue
                with open(path, "rb") as f:
                    data = f.read()
                for text in {data.decode("utf-8", "replace"), data.decode("latin-1")}:
                    tokens.update(regex_tokenize(text))
                    if len(pieces) < MAX_PIECES:
                        pieces.update(text.split())
    return tokens, pieces


def edge_words():
    """Short strings, exception lists with inflections, unicode and odd words."""
    alphabet = "aeiouyslbtdc'\u2019019"
    words = {"".join(p) for n in range(0, 4) for p in itertools.product(alphabet, repeat=n)}
    bases = ["sky", "skies", "skis", "dying", "lying", "tying", "news", "inning", "outing", "canning",
             "howe", "proceed", "exceed", "succeed", "idly", "gently", "ugly", "early", "only", "singly",
             "atlas", "cosmos", "bias", "andes", "herring", "earring", "generate", "general", "generously",
             "communism", "community", "arsenal", "arsenic", "dies", "died", "ties", "tied", "flies", "spied",
             "yell", "yyyy", "yyyyyyy", "say", "sayyid", "enjoy", "happy", "syzygy", "toy", "by"]
    for base in bases:
        for ending in ("", "s", "es", "ed", "ing", "ly", "'s", "'", "’s", "y", "ies", "ied"):
            words.update({base + ending, "'" + base + ending, base.capitalize() + ending, base.upper() + ending})
    words.update(["naïve", "café", "cafés", "résumé", "straße", "İstanbul", "ǅemal", "ﬁnding", "σoφία",
                  "привет", "日本語", "x*ding", "ab*ded", "co*dded", "ab*ding", "İİ", "İs", "Ǆ", "ﬀ", "k\u0301ing",
                  "running\u00ad", "o'clock", "rock'n'roll", "’tis", "‘cause", "don't", "can’t", "1990s",
                  "4th", "b2b", "mp3s", "__init__", "a_b_ing", "x" * 300, "y" * 301, "ational" * 30, "sses",
                  "ies", "eed", "ied", "ing", "ed", "ly", "s", "'s'", "''", "'''", "yy'", "\u2019\u2019s"])
    return words


def random_words(n, seed=0):
    rng = random.Random(seed)
    letters = "aeiouyyllsstbdcngrmpzwx'"
    suffixes = ["", "s", "es", "ed", "ing", "ly", "ational", "tional", "ization", "iveness", "fulness",
                "ousness", "aliti", "iviti", "biliti", "alli", "entli", "eli", "ousli", "enci", "anci",
                "abli", "bli", "logi", "ogi", "fulli", "lessli", "li", "icate", "ative", "alize", "iciti",
                "ical", "ful", "ness", "ement", "ment", "ent", "ion", "sion", "tion", "ism", "ate", "iti",
                "ous", "ive", "ize", "er", "ic", "able", "ible", "ant", "ance", "ence", "al", "e", "ll",
                "eedly", "ingly", "edly", "eed", "ied", "ies", "sses", "us", "ss", "y", "'s", "'s'", "'"]
    words = set()
    while len(words) < n:
        stem = "".join(rng.choice(letters) for _ in range(rng.randint(0, 8)))
        words.add(stem + "".join(rng.choice(suffixes) for _ in range(rng.randint(0, 3))))
    return words


def _outcome(stem, word):
    try:
        return stem(word)
    except Exception as exc:  # noqa: BLE001 - compared by type
        return type(exc)


def compare(name, words, ours, theirs, show=5):
    differ = []
    for word in words:
        a, b = _outcome(ours, word), _outcome(theirs, word)
        if a != b:
            differ.append((word, a, b))
    print(f"{name}: {len(words) - len(differ):,} of {len(words):,} distinct words equal", flush=True)
    for word, a, b in differ[:show]:
        print(f"    {word!r}: textnb {a!r}, nltk {b!r}")
    return len(differ)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", nargs="*", default=DEFAULT_CORPORA)
    parser.add_argument("--random", type=int, default=300_000, help="random words (default 300,000)")
    args = parser.parse_args(argv)

    from nltk.stem.porter import PorterStemmer
    from nltk.stem.snowball import SnowballStemmer

    nltk_porter, nltk_snowball = PorterStemmer().stem, SnowballStemmer("english").stem
    started = time.perf_counter()
    tokens, pieces = corpus_words(args.corpora)
    print(f"read {len(args.corpora)} corpora in {time.perf_counter() - started:.0f} s", flush=True)
    sets = {"tokens": tokens, "pieces": pieces - tokens, "edge": edge_words(), "random": random_words(args.random)}
    bad = 0
    for set_name, words in sets.items():
        words = sorted(words)
        bad += compare(f"porter   {set_name}", words, porter_stem, nltk_porter)
        bad += compare(f"snowball {set_name}", words, snowball_stem, nltk_snowball)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
