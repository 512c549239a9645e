"""textnb: naive Bayes for text and tabular data, in log space, on one statistics core."""

__version__ = "0.1.0"

from textnb.errors import InputError, ModelFileError, TextnbError
from textnb.model_io import load
from textnb.naive_bayes import BernoulliNB, MultinomialNB

__all__ = [
    "BernoulliNB",
    "InputError",
    "ModelFileError",
    "MultinomialNB",
    "TextnbError",
    "load",
]
