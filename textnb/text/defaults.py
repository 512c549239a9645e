"""The parameter defaults of the text pipeline's own estimators, written once.

:class:`~textnb.text.vectorizer.Vectorizer` and :class:`~textnb.text.classifier.TextClassifier`
take their ``__init__`` defaults from here (:func:`textnb.naive_bayes.kernels.takes_defaults`),
and the scikit-learn-free trainer and scorer (:mod:`textnb.text.training`,
:mod:`textnb.text.scorer`) read them without importing those estimators. The count
models' defaults are their kernels' (:mod:`textnb.naive_bayes.kernels`).
"""

import codecs
from types import MappingProxyType

from textnb.core.model_schema import (MAX_DIM, N_JOBS, Array, Bool, Choice, Classes, Counts, DictOf, Float, Int, ListOf, MayBeAbsent,
                                      NgramRange, OneOf, Optional, Pattern, Str, When, _fail, _show)
from textnb.io.corpus import MAX_DOCUMENT_BYTES
from textnb.text.tokenize import TOKEN_PATTERN

__all__ = ["SHORT_TEXT_BYTES", "SHORT_TEXT_DOCUMENTS", "SHORT_TEXT_VECTORIZER", "TEXT_CLASSIFIER_DEFAULTS",
           "TEXT_CLASSIFIER_OWN_PARAMS", "TEXT_CLASSIFIER_OWN_STATE", "VECTORIZER_DEFAULTS", "VECTORIZER_PARAMS", "VECTORIZER_STATE"]

VECTORIZER_DEFAULTS = MappingProxyType({
    "input": "content", "encoding": "utf-8", "decode_error": "strict", "strip_accents": None, "lowercase": True,
    "preprocessor": None, "tokenizer": None, "stop_words": None, "token_pattern": TOKEN_PATTERN,
    "ngram_range": (1, 1), "analyzer": "word", "max_df": 1.0, "min_df": 1, "max_features": None,
    "vocabulary": None, "binary": False, "dtype": "int64", "stemmer": None,
})

#: The default pipeline's vectorizer for short texts (:func:`textnb.text.training.default_vectorizer`):
#: the default model (DiscriminativeNB) with no vectorizer given counts the words and word
#: bigrams of at least two training documents when its training documents are at least
#: ``SHORT_TEXT_DOCUMENTS`` and their median is under ``SHORT_TEXT_BYTES`` bytes: questions,
#: sentences and text messages, where the words alone miss most of what a pair of them says
#: (TREC QC 83.0 -> 87.4 %, rt-polarity 78.4 -> 78.7 %; docs/text_accuracy.md). The eight
#: visible corpora's medians are 48-112 bytes (short) or 1,178-5,219 (long: their words stay alone).
SHORT_TEXT_VECTORIZER = MappingProxyType({"ngram_range": (1, 2), "min_df": 2})
SHORT_TEXT_BYTES = 500
SHORT_TEXT_DOCUMENTS = 1000

TEXT_CLASSIFIER_DEFAULTS = MappingProxyType({
    "vectorizer": None, "model": None, "n_jobs": None, "batch_size": 2000, "max_bytes": MAX_DOCUMENT_BYTES,
})


#: codecs of domain names, not documents: their decoders take time quadratic in the bytes
#: (200 KB of ASCII bytes as "punycode": 3 s in predict)
_NOT_DOCUMENT_ENCODINGS = ("punycode", "idna")


class _Encoding(Str):
    """The name of a text encoding Python knows (model files), not one of
    :data:`_NOT_DOCUMENT_ENCODINGS`."""

    def check(self, value, ctx):
        super().check(value, ctx)
        try:
            info = codecs.lookup(value)
            known = info._is_text_encoding
        except LookupError:
            known = False
        if not known:
            _fail(f"{value!r} is not a text encoding")
        if info.name in _NOT_DOCUMENT_ENCODINGS:
            _fail(f"{value!r} is a codec of domain names, not a document encoding (its decoding time is quadratic)")


class _ContentInput(Choice):
    """``input="content"`` only: a model file's documents are the texts given to it.

    scikit-learn's ``"filename"`` and ``"file"`` would make predict open and read the
    paths (or objects) it is given as documents, so a model file could read any file the
    process can (``textnb predict`` of a line ``/etc/shadow``, ``textnb serve``).
    :func:`textnb.core.model_io.save` refuses to write such a model for the same reason.
    """

    def __init__(self):
        super().__init__("content")

    def check(self, value, ctx):
        if not (type(value) is str and value == "content"):
            _fail(f"{_show(value)} is not 'content' (a model file may not read its documents from files)")


#: what a Vectorizer node of a model file may hold (its estimator's schemas; the scorer checks them too)
_DF = OneOf(Int(0, MAX_DIM), Float(0.0, 1.0))
VECTORIZER_PARAMS = {
    "lowercase": Bool(),
    # words need a pattern in a file (no tokenizer callable can be stored there)
    "token_pattern": When("analyzer", "word", Pattern(), Optional(Pattern())),
    "stop_words": Optional(OneOf(Choice("english"), ListOf(Str(1000)))),
    "stemmer": Optional(Choice("porter", "snowball")), "ngram_range": NgramRange(),
    "min_df": _DF, "max_df": _DF, "max_features": Optional(Int(1, MAX_DIM)), "binary": Bool(),
    # scikit-learn's other parameters (callables cannot be stored in a model file)
    "input": _ContentInput(), "encoding": _Encoding(100),
    "decode_error": Choice("strict", "ignore", "replace"), "strip_accents": Optional(Choice("ascii", "unicode")),
    "preprocessor": Choice(None), "tokenizer": Choice(None), "analyzer": Choice("word", "char", "char_wb"),
    "vocabulary": Optional(OneOf(ListOf(Str(10_000)), DictOf(Str(10_000), Int(0, MAX_DIM)))),
    "dtype": Choice("int64", "int32", "int16", "int8", "uint8", "float64", "float32"),
}
VECTORIZER_STATE = {  # the vocabulary as UTF-8 bytes and offsets (or, in old files, "terms")
    "terms_utf8": MayBeAbsent(Array("u", ("n_bytes",))),
    "terms_offsets": MayBeAbsent(Array("iu", ("n_terms+1",), lo=0, hi=MAX_DIM)),
    "terms": MayBeAbsent(Array("U", ("n_terms",))),
    # the label prefix of the fastText file the model was trained on, when not "__label__"
    # (textnb.io.fasttext.stored_label_prefix; absent in older files: "__label__")
    "label_prefix": MayBeAbsent(Str(max_len=1000)),
    # each term's occurrences in the training documents (textnb.fasttext.train_supervised
    # keeps them, as fastText's dictionary, for get_words(include_freq=True))
    "term_counts": MayBeAbsent(Counts(("n_terms",))),
    # where training cut each document (train --max-bytes of a model whose file has no other place for
    # it, a multi-label Pipeline: textnb.core.wrapping.store_max_bytes; absent: 16 MiB)
    "max_bytes": MayBeAbsent(Int(1, 2**40)),
}

#: TextClassifier's parameters other than its two models (in its schema; the scorer checks them too)
TEXT_CLASSIFIER_OWN_PARAMS = {"max_bytes": Int(1, 2**40), "n_jobs": N_JOBS, "batch_size": Int(1, 10**7)}
#: TextClassifier's fitted state other than its two models (in its schema; the scorer checks it too)
TEXT_CLASSIFIER_OWN_STATE = {
    "classes_": Classes(),
    "input_": MayBeAbsent(Choice("mail", "mail-tokens")),  # a spamfilter model's documents: rendered messages
}
