"""textnb: naive Bayes for text and tabular data, in log space, on one statistics core."""

__version__ = "0.1.0"

from textnb.errors import InputError, ModelFileError, TextnbError
from textnb.model_io import load
from textnb.naive_bayes import BernoulliNB, MultinomialNB
from textnb.text import Vectorizer
from textnb.classifier import TextClassifier
from textnb.corpus import open_corpus

__all__ = [
    "BernoulliNB",
    "InputError",
    "ModelFileError",
    "MultinomialNB",
    "TextClassifier",
    "TextnbError",
    "Vectorizer",
    "load",
    "open_corpus",
]
