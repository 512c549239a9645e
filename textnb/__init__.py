"""textnb: naive Bayes for text and tabular data, in log space, on one statistics core."""

__version__ = "0.1.0"

from textnb.errors import InputError, ModelFileError, TextnbError
from textnb.model_io import load
from textnb.naive_bayes import BernoulliNB, MultinomialNB
from textnb.text import Vectorizer
from textnb.classifier import TextClassifier
from textnb.corpus import open_corpus
from textnb.tables import Attribute, Table, encode_like, read_table, table_from_frame
from textnb.discretize import EqualFrequencyDiscretizer, EqualWidthDiscretizer, MDLDiscretizer
from textnb.tabular import TabularNB
from textnb.apnbc import APNBC
from textnb.bayesnet import TAN, BayesNetClassifier, read_structure
from textnb.lbr import LBR
from textnb.lbr_text import LazyTextNB
from textnb.discretized import Discretized
from textnb.complement import ComplementNB
from textnb.weighting import TermWeighting
from textnb.feature_selection import SelectTerms
from textnb.calibration import CalibratedNB
from textnb.multilabel import MultiLabelNB, read_multilabel_corpus
from textnb.smoothing import SmoothingCV
from textnb.explain import explain

__all__ = [
    "APNBC",
    "BayesNetClassifier",
    "CalibratedNB",
    "ComplementNB",
    "Discretized",
    "LBR",
    "LazyTextNB",
    "TAN",
    "read_structure",
    "Attribute",
    "BernoulliNB",
    "EqualFrequencyDiscretizer",
    "EqualWidthDiscretizer",
    "InputError",
    "MDLDiscretizer",
    "MultiLabelNB",
    "ModelFileError",
    "SelectTerms",
    "SmoothingCV",
    "MultinomialNB",
    "Table",
    "TabularNB",
    "TermWeighting",
    "TextClassifier",
    "TextnbError",
    "Vectorizer",
    "encode_like",
    "explain",
    "load",
    "open_corpus",
    "read_multilabel_corpus",
    "read_table",
    "table_from_frame",
]
