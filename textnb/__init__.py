"""textnb: naive Bayes for text and tabular data, in log space, on one statistics core.

The public names below are imported on first use (PEP 562), so ``import textnb`` and a
mail filter that needs only the text models do not pay for importing every model.
"""

import importlib as _importlib

__version__ = "0.1.0"

#: public name -> module that defines it
_PUBLIC = {
    "APNBC": "textnb.apnbc",
    "Attribute": "textnb.tables",
    "BayesNetClassifier": "textnb.bayesnet",
    "BernoulliNB": "textnb.naive_bayes",
    "CalibratedNB": "textnb.calibration",
    "ComplementNB": "textnb.complement",
    "Discretized": "textnb.discretized",
    "EqualFrequencyDiscretizer": "textnb.discretize",
    "EqualWidthDiscretizer": "textnb.discretize",
    "InputError": "textnb.errors",
    "LBR": "textnb.lbr",
    "LazyTextNB": "textnb.lbr_text",
    "MDLDiscretizer": "textnb.discretize",
    "ModelFileError": "textnb.errors",
    "MultiLabelNB": "textnb.multilabel",
    "MultinomialNB": "textnb.naive_bayes",
    "SelectTerms": "textnb.feature_selection",
    "SmoothingCV": "textnb.smoothing",
    "TAN": "textnb.bayesnet",
    "Table": "textnb.tables",
    "TabularNB": "textnb.tabular",
    "TermWeighting": "textnb.weighting",
    "TextClassifier": "textnb.classifier",
    "TextnbError": "textnb.errors",
    "Vectorizer": "textnb.text",
    "encode_like": "textnb.tables",
    "explain": "textnb.explain",
    "load": "textnb.model_io",
    "open_corpus": "textnb.corpus",
    "read_multilabel_corpus": "textnb.multilabel",
    "read_structure": "textnb.bayesnet",
    "read_table": "textnb.tables",
    "table_from_frame": "textnb.tables",
}

#: model class name (as written in model files) -> module that registers it
MODEL_MODULES = {name: module for name, module in _PUBLIC.items() if name[0].isupper()
                 and module not in ("textnb.errors", "textnb.tables", "textnb.discretize")}
MODEL_MODULES["Pipeline"] = "textnb.smoothing"  # sklearn Pipelines of textnb steps

__all__ = sorted(_PUBLIC)


def __getattr__(name):
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'textnb' has no attribute {name!r}")
    value = getattr(_importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_PUBLIC))
