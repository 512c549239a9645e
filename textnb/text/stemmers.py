"""English stemmers of textnb's own: Porter (1980) and Snowball English ("Porter2").

``--stem porter`` and ``--stem snowball`` (the vectorizer's ``stemmer`` parameter) stem
every word with :func:`porter_stem` or :func:`snowball_stem`. Both give, word for word, the
stems of the NLTK stemmers textnb used before (``nltk.stem.porter.PorterStemmer()`` in its
default ``NLTK_EXTENSIONS`` mode, and ``nltk.stem.snowball.SnowballStemmer("english")``
without ``ignore_stopwords``), so model files trained with either are unchanged; they need
only the standard library (importing NLTK's stemmers runs NLTK's package ``__init__``, which
imports scikit-learn and scipy). ``scripts/experiments/stem_parity.py`` compares them with
NLTK's on every distinct token of the corpora.

References
----------
.. [1] M. F. Porter, "An algorithm for suffix stripping", *Program* 14(3), 130-137, 1980.
.. [2] M. F. Porter, "The English (Porter2) stemming algorithm",
       https://snowballstem.org/algorithms/english/stemmer.html
"""

import re

__all__ = ["STEMMERS", "porter_stem", "snowball_stem"]


def _index_by_last_letter(rules):
    """``{last letter: rules ending in it, in their order}`` for a first-match suffix table.

    A word can only end in suffixes that end in its own last letter, so trying just that
    group, in the table's order, finds the same first match as trying the whole table.
    """
    index = {}
    for rule in rules:
        index.setdefault(rule[0][-1], []).append(rule)
    return {letter: tuple(group) for letter, group in index.items()}


def _first_rule(index, word):
    """The first rule of ``index`` whose suffix ends ``word``, or None."""
    for rule in index.get(word[-1:], ()):
        if word.endswith(rule[0]):
            return rule
    return None


# ---------------------------------------------------------------------------------------------
# Porter (1980), with the extensions NLTK's PorterStemmer applies in its default mode
# ---------------------------------------------------------------------------------------------

#: Porter's consonant/vowel classes of ASCII characters: a, e, i, o, u are vowels, y is
#: resolved from its left neighbour, anything else (digits, '_', ...) is a consonant
_PORTER_CLASS = {code: "c" for code in range(128)}
_PORTER_CLASS.update({ord(vowel): "v" for vowel in "aeiou"})
_PORTER_CLASS[ord("y")] = "y"
_PORTER_VOWELS = frozenset("aeiou")

#: Words stemmed by table (NLTK's irregular forms), before any rule; a word is looked up
#: after lowercasing
_PORTER_IRREGULAR = {
    "sky": "sky", "skies": "sky", "dying": "die", "lying": "lie", "tying": "tie", "news": "news",
    "innings": "inning", "inning": "inning", "outings": "outing", "outing": "outing",
    "cannings": "canning", "canning": "canning", "howe": "howe", "proceed": "proceed",
    "exceed": "exceed", "succeed": "succeed",
}


def _porter_classes(word):
    """Porter's class of each letter of ``word``: a string of 'c' (consonant) and 'v' (vowel).

    A letter is a consonant unless it is a, e, i, o, u, or a y that follows a consonant
    (a y that starts the word or follows a vowel is a consonant) [1]_. The class of a letter
    depends only on the letters before it, so the classes of a prefix of ``word`` are the
    same prefix of these.
    """
    if word.isascii():
        classes = word.translate(_PORTER_CLASS)
    else:
        classes = "".join(["v" if letter in _PORTER_VOWELS else "y" if letter == "y" else "c"
                           for letter in word])
    if "y" not in classes:
        return classes
    resolved = []
    previous = "v"  # a y that starts the word is a consonant, as after a vowel
    for cls in classes:
        if cls == "y":
            cls = "c" if previous == "v" else "v"
        resolved.append(cls)
        previous = cls
    return "".join(resolved)


def _measure(classes):
    """Porter's measure m of a word part, from its classes: the number of VC sequences in
    ``[C](VC){m}[V]`` [1]_."""
    return classes.count("vc")


def _ends_cvc(stem, classes):
    """Porter's condition \\*o: ``stem`` ends consonant-vowel-consonant, the last not w, x or y
    (NLTK's extension: also a two-letter stem vowel-consonant)."""
    if len(stem) >= 3:
        return classes.endswith("cvc") and stem[-1] not in "wxy"
    return len(stem) == 2 and classes == "vc"


def _porter_step1a(word):
    """Plurals: SSES -> SS, IES -> I (IE for a four-letter word, NLTK), SS -> SS, S -> ."""
    if word.endswith("s"):
        if word.endswith("ies"):
            return word[:-3] + "ie" if len(word) == 4 else word[:-2]
        if word.endswith("sses"):
            return word[:-2]
        if not word.endswith("ss"):
            return word[:-1]
    return word


def _porter_step1b(word):
    """Past tenses and gerunds: (m>0) EED -> EE, (*v*) ED ->, (*v*) ING ->, then the tidying of
    a stripped stem (AT -> ATE, BL -> BLE, IZ -> IZE, a double consonant but l, s, z -> single,
    (m=1 and *o) -> E). NLTK first maps IED to IE (four-letter word) or I."""
    if word.endswith("ed"):
        if word.endswith("ied"):
            return word[:-3] + ("ie" if len(word) == 4 else "i")
        if word.endswith("eed"):
            return word[:-1] if _measure(_porter_classes(word[:-3])) > 0 else word
        stem = word[:-2]
    elif word.endswith("ing"):
        stem = word[:-3]
    else:
        return word
    classes = _porter_classes(stem)
    if "v" not in classes:
        return word
    if stem.endswith(("at", "bl", "iz")):
        return stem + "e"
    if len(stem) >= 2 and stem[-1] == stem[-2] and classes[-1] == "c":
        return stem[:-1] if stem[-1] not in "lsz" else stem
    if stem.endswith("*d"):
        # NLTK reads its rule table's marker for "ends in a double consonant" ("*d") as a
        # literal suffix too when the stem does not end in one: a stem ending "*d" loses its '*'
        return stem[:-2] + "d"
    if _measure(classes) == 1 and _ends_cvc(stem, classes):
        return stem + "e"
    return stem


def _porter_step1c(word):
    """Y -> I after a consonant that is not the word's only letter (NLTK's rule; Porter's
    condition is (*v*))."""
    if word.endswith("y") and len(word) > 2 and _porter_classes(word[:-1])[-1] == "c":
        return word[:-1] + "i"
    return word


#: Step 2, (m>0) SUFFIX -> REPLACEMENT, the first suffix that ends the word decides (BLI -> BLE
#: and FULLI -> FUL are Porter's later changes kept by NLTK; LOGI -> LOG is NLTK's, tested on
#: the measure of the stem with its L, as if the suffix were OGI)
_PORTER_STEP2 = _index_by_last_letter([
    ("ational", "ate"), ("tional", "tion"), ("enci", "ence"), ("anci", "ance"), ("izer", "ize"),
    ("bli", "ble"), ("alli", "al"), ("entli", "ent"), ("eli", "e"), ("ousli", "ous"),
    ("ization", "ize"), ("ation", "ate"), ("ator", "ate"), ("alism", "al"), ("iveness", "ive"),
    ("fulness", "ful"), ("ousness", "ous"), ("aliti", "al"), ("iviti", "ive"), ("biliti", "ble"),
    ("fulli", "ful"), ("logi", "log"),
])

#: Step 3, (m>0) SUFFIX -> REPLACEMENT
_PORTER_STEP3 = _index_by_last_letter([
    ("icate", "ic"), ("ative", ""), ("alize", "al"), ("iciti", "ic"), ("ical", "ic"), ("ful", ""),
    ("ness", ""),
])

#: Step 4, (m>1) SUFFIX -> (ION only after S or T)
_PORTER_STEP4 = _index_by_last_letter([
    ("al", ""), ("ance", ""), ("ence", ""), ("er", ""), ("ic", ""), ("able", ""), ("ible", ""),
    ("ant", ""), ("ement", ""), ("ment", ""), ("ent", ""), ("ion", ""), ("ou", ""), ("ism", ""),
    ("ate", ""), ("iti", ""), ("ous", ""), ("ive", ""), ("ize", ""),
])


def _porter_step2(word):
    """Double suffixes to single ones, (m>0). NLTK tries ALLI -> AL first and, when it applies,
    runs this step again on the result."""
    if word.endswith("alli") and _measure(_porter_classes(word[:-4])) > 0:
        return _porter_step2(word[:-2])
    rule = _first_rule(_PORTER_STEP2, word)
    if rule is None:
        return word
    suffix, replacement = rule
    stem = word[:-len(suffix)]
    tested = word[:-3] if suffix == "logi" else stem
    return stem + replacement if _measure(_porter_classes(tested)) > 0 else word


def _porter_step3(word):
    """-IC-, -FULL, -NESS etc., (m>0)."""
    rule = _first_rule(_PORTER_STEP3, word)
    if rule is None:
        return word
    suffix, replacement = rule
    stem = word[:-len(suffix)]
    return stem + replacement if _measure(_porter_classes(stem)) > 0 else word


def _porter_step4(word):
    """Suffixes removed from a stem of measure above 1 (ION only after S or T)."""
    rule = _first_rule(_PORTER_STEP4, word)
    if rule is None:
        return word
    stem = word[:-len(rule[0])]
    if _measure(_porter_classes(stem)) > 1 and (rule[0] != "ion" or stem[-1] in "st"):
        return stem
    return word


def _porter_step5(word):
    """Step 5a, (m>1) E -> and (m=1 and not *o) E ->; step 5b, (m>1 and *d and *L) -> single
    letter."""
    if word.endswith("e"):
        stem = word[:-1]
        classes = _porter_classes(stem)
        m = _measure(classes)
        if m > 1 or (m == 1 and not _ends_cvc(stem, classes)):
            word = stem
    if word.endswith("ll") and _measure(_porter_classes(word[:-1])) > 1:
        return word[:-1]
    return word


def porter_stem(word):
    """The Porter stem of ``word``, as NLTK's ``PorterStemmer().stem`` gives it.

    The algorithm of Porter (1980) [1]_ in the variant NLTK uses by default
    (``NLTK_EXTENSIONS``): Porter's own later changes (BLI -> BLE, FULLI -> FUL, words of one
    or two letters left alone) and NLTK's (a table of irregular forms, IES / IED of a
    four-letter word -> IE, Y -> I only after a consonant that is not the word's only letter,
    ALLI -> AL first, LOGI -> LOG, a two-letter stem vowel-consonant counting as \\*o).

    Parameters
    ----------
    word : str
        A word; lowercased first (whether it is short is decided on its length as given).

    Returns
    -------
    str
        The irregular form of NLTK's table, the lowercased word of one or two letters, or
        the word after Porter's steps 1a to 5.

    Examples
    --------
    >>> [porter_stem(w) for w in ("caresses", "ponies", "relational", "generalizations")]
    ['caress', 'poni', 'relat', 'gener']
    """
    stem = word.lower()
    irregular = _PORTER_IRREGULAR.get(stem)
    if irregular is not None:
        return irregular
    if len(word) <= 2:  # the length before lowercasing, as NLTK's
        return stem
    stem = _porter_step1c(_porter_step1b(_porter_step1a(stem)))
    return _porter_step5(_porter_step4(_porter_step3(_porter_step2(stem))))


# ---------------------------------------------------------------------------------------------
# Snowball English (Porter2), as NLTK's EnglishStemmer implements it
# ---------------------------------------------------------------------------------------------

_SNOWBALL_VOWELS = frozenset("aeiouy")  # a consonant y is written Y, which is not a vowel
#: Apostrophe-like characters read as "'"
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201b": "'"})
#: A vowel followed by a non-vowel: the region R1 (R2) starts after the first one in the word
#: (in R1)
_REGION_START = re.compile("[aeiouy][^aeiouy]")
_DOUBLES = ("bb", "dd", "ff", "gg", "mm", "nn", "pp", "rr", "tt")
_LI_ENDINGS = frozenset("cdeghkmnrt")

#: Exceptional forms, looked up before any rule (the definition's exceptions, with the
#: inflected forms of its post-step-1a list given as NLTK gives them)
_SNOWBALL_SPECIAL = {
    "skis": "ski", "skies": "sky", "dying": "die", "lying": "lie", "tying": "tie", "idly": "idl",
    "gently": "gentl", "ugly": "ugli", "early": "earli", "only": "onli", "singly": "singl",
    "sky": "sky", "news": "news", "howe": "howe", "atlas": "atlas", "cosmos": "cosmos",
    "bias": "bias", "andes": "andes",
    **{form: base for base in ("inning", "outing", "canning", "herring", "earring")
       for form in (base, base + "s")},
    **{form: base for base in ("proceed", "exceed", "succeed")
       for form in (base, base + "s", base + "ed", base + "ing")},
}

# Actions on a suffix found in R1 (steps 2 and 3): ("cut", n) drops its last n letters;
# ("replace", new, r2) puts ``new`` in its place and leaves R2 of length r2 when R2 did not hold
# the whole suffix; ("swap_last", letter) changes only the last letter, and the regions keep
# their lengths; ("cut_after", n, letters) drops n letters when the letter before the suffix
# is one of ``letters``; ("cut_in_r2", n) drops n letters when the suffix is in R2 too.
_SNOWBALL_STEP2 = (
    ("ization", ("replace", "ize", 0)), ("ational", ("replace", "ate", 1)),
    ("fulness", ("cut", 4)), ("ousness", ("replace", "ous", 0)), ("iveness", ("replace", "ive", 1)),
    ("tional", ("cut", 2)), ("biliti", ("replace", "ble", 0)), ("lessli", ("cut", 2)),
    ("entli", ("cut", 2)), ("ation", ("replace", "ate", 1)), ("alism", ("replace", "al", 0)),
    ("aliti", ("replace", "al", 0)), ("ousli", ("replace", "ous", 0)), ("iviti", ("replace", "ive", 1)),
    ("fulli", ("cut", 2)), ("enci", ("swap_last", "e")), ("anci", ("swap_last", "e")),
    ("abli", ("swap_last", "e")), ("izer", ("replace", "ize", 0)), ("ator", ("replace", "ate", 1)),
    ("alli", ("replace", "al", 0)), ("bli", ("replace", "ble", 0)), ("ogi", ("cut_after", 1, "l")),
    ("li", ("cut_after", 2, _LI_ENDINGS)),
)
_SNOWBALL_STEP3 = (
    ("ational", ("replace", "ate", 0)), ("tional", ("cut", 2)), ("alize", ("cut", 3)),
    ("icate", ("replace", "ic", 0)), ("iciti", ("replace", "ic", 0)), ("ative", ("cut_in_r2", 5)),
    ("ical", ("replace", "ic", 0)), ("ness", ("cut", 4)), ("ful", ("cut", 3)),
)
_SNOWBALL_STEP2_INDEX = _index_by_last_letter(_SNOWBALL_STEP2)
_SNOWBALL_STEP3_INDEX = _index_by_last_letter(_SNOWBALL_STEP3)
#: Step 4: suffixes deleted when in R2 (ION only after S or T), longest first
_SNOWBALL_STEP4_INDEX = _index_by_last_letter([(suffix,) for suffix in (
    "ement", "ance", "ence", "able", "ible", "ment", "ant", "ent", "ism", "ate", "iti", "ous", "ive",
    "ize", "ion", "al", "er", "ic")])


class _Regions:
    """A word with the lengths of its regions R1 and R2 (each a suffix of the word) [2]_.

    The regions shrink and grow with the word as NLTK's ``EnglishStemmer`` lets them: a cut
    shortens each by up to its length; a replaced suffix is replaced in a region that held
    all of it, and otherwise leaves the region empty (or, after some step 2 rules, the
    one-letter region "e").
    """

    __slots__ = ("word", "r1", "r2")

    def __init__(self, word, r1, r2):
        self.word, self.r1, self.r2 = word, r1, r2

    def cut(self, n):
        self.word = self.word[:-n]
        self.r1 = max(self.r1 - n, 0)
        self.r2 = max(self.r2 - n, 0)

    def replace(self, suffix, new, r1_else=0, r2_else=0):
        n, grow = len(suffix), len(new) - len(suffix)
        self.word = self.word[:-n] + new
        self.r1 = self.r1 + grow if self.r1 >= n else r1_else
        self.r2 = self.r2 + grow if self.r2 >= n else r2_else


def _snowball_regions(word):
    """R1 and R2 of ``word`` as lengths [2]_ (R1 of gener-, commun-, arsen- words starts after
    that prefix)."""
    if word.startswith(("gener", "arsen")):
        start1 = 5
    elif word.startswith("commun"):
        start1 = 6
    else:
        found = _REGION_START.search(word)
        start1 = found.end() if found else len(word)
    found = _REGION_START.search(word, start1)
    start2 = found.end() if found else len(word)
    return len(word) - start1, len(word) - start2


def _mark_consonant_y(word):
    """Write Y for a y that starts the word or follows a vowel (a consonant y)."""
    letters = list(word)
    if letters[0] == "y":
        letters[0] = "Y"
    for i in range(1, len(letters)):
        if letters[i] == "y" and letters[i - 1] in _SNOWBALL_VOWELS:
            letters[i] = "Y"
    return "".join(letters)


def _snowball_step1a(w):
    """SSES -> SS; IED, IES -> I (IE after a single letter); US, SS unchanged; S deleted when a
    vowel comes before the letter before it."""
    word = w.word
    if not word.endswith(("s", "d")):
        return
    if word.endswith("sses"):
        w.cut(2)
    elif word.endswith(("ied", "ies")):
        w.cut(2 if len(word) > 4 else 1)
    elif word.endswith("s") and not word.endswith(("us", "ss")):
        if not _SNOWBALL_VOWELS.isdisjoint(word[:-2]):
            w.cut(1)


def _snowball_step1b(w):
    """EED, EEDLY -> EE in R1; ED, EDLY, ING, INGLY deleted after a vowel, then AT, BL, IZ + E,
    a double consonant undoubled, or a short word + E."""
    word = w.word
    if word[-1:] not in ("d", "g", "y"):
        return
    for suffix in ("eedly", "ingly", "edly", "eed", "ing", "ed"):
        if word.endswith(suffix):
            break
    else:
        return
    if suffix in ("eed", "eedly"):
        if w.r1 >= len(suffix):
            w.replace(suffix, "ee")
        return
    if _SNOWBALL_VOWELS.isdisjoint(word[:-len(suffix)]):
        return
    w.cut(len(suffix))
    word = w.word
    if word.endswith(("at", "bl", "iz")):
        # NLTK: R1 always takes the e, R2 only in a word of six letters or an R1 of three
        w.word = word + "e"
        w.r1 += 1
        if len(w.word) > 5 or w.r1 >= 3:
            w.r2 += 1
    elif word.endswith(_DOUBLES):
        w.cut(1)
    elif w.r1 == 0 and _is_short_end(word):
        w.word = word + "e"
        if w.r2:
            w.r2 += 1


def _is_short_end(word):
    """``word`` ends in a short syllable (a vowel between non-vowels, the last not w, x or Y; or
    a two-letter word vowel, non-vowel), the test of a short word once R1 is known empty."""
    vowels = _SNOWBALL_VOWELS
    if len(word) >= 3:
        return (word[-1] not in vowels and word[-1] not in "wxY" and word[-2] in vowels
                and word[-3] not in vowels)
    return len(word) == 2 and word[0] in vowels and word[1] not in vowels


def _snowball_suffix_step(w, index):
    """Steps 2 and 3: the longest suffix of the table that ends the word decides; its action
    is taken when R1 holds it."""
    rule = _first_rule(index, w.word)
    if rule is None or w.r1 < len(rule[0]):
        return
    suffix, action = rule
    kind = action[0]
    if kind == "replace":
        w.replace(suffix, action[1], r2_else=action[2])
    elif kind == "cut":
        w.cut(action[1])
    elif kind == "swap_last":
        w.replace(suffix[-1], action[1])
    elif kind == "cut_after":
        if w.word[-len(suffix) - 1] in action[2]:
            w.cut(action[1])
    elif w.r2 >= len(suffix):  # cut_in_r2
        w.cut(action[1])


def _snowball_step4(w):
    """Delete the longest suffix of the step 4 list when R2 holds it (ION only after S or T)."""
    rule = _first_rule(_SNOWBALL_STEP4_INDEX, w.word)
    if rule is None or w.r2 < len(rule[0]):
        return
    if rule[0] != "ion":
        w.cut(len(rule[0]))
    elif w.word[-4] in "st":
        w.cut(3)


def _snowball_step5(w):
    """Delete a final E in R2, or in R1 unless a short syllable precedes it; delete a final L
    in R2 after L."""
    word = w.word
    if w.r2 and word[-1] == "l" and word[-2] == "l":
        return word[:-1]
    if word.endswith("e"):
        if w.r2:
            return word[:-1]
        if w.r1 and len(word) >= 4 and (word[-2] in _SNOWBALL_VOWELS or word[-2] in "wxY"
                                        or word[-3] not in _SNOWBALL_VOWELS or word[-4] in _SNOWBALL_VOWELS):
            return word[:-1]
    return word


def snowball_stem(word):
    """The Snowball English stem of ``word``, as NLTK's ``SnowballStemmer("english").stem``.

    The English ("Porter2") algorithm of snowballstem.org [2]_ as NLTK implements it: words
    of one or two letters and a table of exceptional forms are returned as they are; the
    apostrophes ’ ‘ ‛ are read as ', a leading ' dropped; R1 and R2 are found once and then
    shortened and lengthened with the word in NLTK's way (see :class:`_Regions`).

    Parameters
    ----------
    word : str
        A word; lowercased first, then its apostrophes read as above.

    Returns
    -------
    str
        The lowercased word of one or two letters, the exceptional form of NLTK's table,
        or the word after steps 0 to 5 (a consonant ``y`` marked on the way is ``y`` again).

    Examples
    --------
    >>> [snowball_stem(w) for w in ("generously", "consignment", "dying", "cry's")]
    ['generous', 'consign', 'die', 'cri']
    """
    word = word.lower()
    if len(word) <= 2:
        return word
    special = _SNOWBALL_SPECIAL.get(word)
    if special is not None:
        return special
    if not word.isascii():
        word = word.translate(_APOSTROPHES)
    if word.startswith("'"):
        word = word[1:]
    if "y" in word:
        word = _mark_consonant_y(word)
    w = _Regions(word, *_snowball_regions(word))
    if "'" in word:  # step 0
        if word.endswith("'s'"):
            w.cut(3)
        elif word.endswith("'s"):
            w.cut(2)
        elif word.endswith("'"):
            w.cut(1)
    _snowball_step1a(w)
    _snowball_step1b(w)
    word = w.word
    if len(word) > 2 and word[-1] in "yY" and word[-2] not in _SNOWBALL_VOWELS:  # step 1c
        w.word = word[:-1] + "i"
    _snowball_suffix_step(w, _SNOWBALL_STEP2_INDEX)
    _snowball_suffix_step(w, _SNOWBALL_STEP3_INDEX)
    _snowball_step4(w)
    return _snowball_step5(w).replace("Y", "y")


#: The ``stemmer`` values of the vectorizer and their functions
STEMMERS = {"porter": porter_stem, "snowball": snowball_stem}
