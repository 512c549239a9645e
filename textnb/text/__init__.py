"""Text features and the text classifier: tokenizer, vectorizer, term weighting and selection,
streaming counts, Dask training.

Names are imported on first use (PEP 562), so importing one module of this package does
not import the others.
"""

from textnb.core.lazy import lazy_exports

_EXPORTS = {
    "Analyzer": "textnb.text.tokenize",
    "SelectTerms": "textnb.text.selection",
    "TOKEN_PATTERN": "textnb.text.tokenize",
    "TermKeys": "textnb.text.ascii_tokens",
    "TermWeighting": "textnb.text.weighting",
    "TextClassifier": "textnb.text.classifier",
    "Vectorizer": "textnb.text.vectorizer",
    "ascii_term_ids": "textnb.text.ascii_tokens",
    "batch_term_ids": "textnb.text.tokenize",
    "connect": "textnb.text.distributed",
    "count_batch": "textnb.text.tokenize",
    "count_shard": "textnb.text.counting",
    "csr_counts": "textnb.text.tokenize",
    "fit_bag": "textnb.text.distributed",
    "growing_vocabulary": "textnb.text.tokenize",
    "inherited": "textnb.text.counting",
    "map_ordered": "textnb.text.distributed",
    "regex_tokenize": "textnb.text.tokenize",
    "score_batch": "textnb.text.counting",
    "supports": "textnb.text.ascii_tokens",
    "term_ids": "textnb.text.counting",
    "term_scores": "textnb.text.selection",
    "to_text": "textnb.text.classifier",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(_EXPORTS)
