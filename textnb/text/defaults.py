"""The parameter defaults of the text pipeline's own estimators, written once.

:class:`~textnb.text.vectorizer.Vectorizer` and :class:`~textnb.text.classifier.TextClassifier`
take their ``__init__`` defaults from here (:func:`textnb.naive_bayes.kernels.takes_defaults`),
and the scikit-learn-free trainer and scorer (:mod:`textnb.text.training`,
:mod:`textnb.text.scorer`) read them without importing those estimators. The count
models' defaults are their kernels' (:mod:`textnb.naive_bayes.kernels`).
"""

from types import MappingProxyType

from textnb.io.corpus import MAX_DOCUMENT_BYTES
from textnb.text.tokenize import TOKEN_PATTERN

__all__ = ["TEXT_CLASSIFIER_DEFAULTS", "VECTORIZER_DEFAULTS"]

VECTORIZER_DEFAULTS = MappingProxyType({
    "input": "content", "encoding": "utf-8", "decode_error": "strict", "strip_accents": None, "lowercase": True,
    "preprocessor": None, "tokenizer": None, "stop_words": None, "token_pattern": TOKEN_PATTERN,
    "ngram_range": (1, 1), "analyzer": "word", "max_df": 1.0, "min_df": 1, "max_features": None,
    "vocabulary": None, "binary": False, "dtype": "int64", "stemmer": None,
})

TEXT_CLASSIFIER_DEFAULTS = MappingProxyType({
    "vectorizer": None, "model": None, "n_jobs": None, "batch_size": 2000, "max_bytes": MAX_DOCUMENT_BYTES,
})
