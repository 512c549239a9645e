"""Text features and the text classifier: tokenizer, vectorizer, term weighting and selection,
streaming counts, Dask training.

Names are imported on first use (:mod:`textnb.core.lazy`).
"""

from textnb.core.lazy import lazy_exports

_EXPORTS = {  # defining module -> the names it exports
    "textnb.text.ascii_tokens": ("TermKeys", "ascii_term_ids", "supports"),
    "textnb.text.classifier": ("TextClassifier", "to_text"),
    "textnb.text.counting": ("count_parts", "count_read", "count_shard", "inherited", "read_batch", "read_items",
                              "score_batch", "sized_items", "term_ids"),
    "textnb.text.distributed": ("connect", "fit_bag", "map_ordered"),
    "textnb.text.selection": ("SelectTerms", "term_scores"),
    "textnb.text.tokenize": (
        "Analyzer", "TOKEN_PATTERN", "batch_term_ids", "count_batch", "csr_counts", "growing_vocabulary",
        "regex_tokenize", "strip_accents_ascii", "strip_accents_unicode"
    ),
    "textnb.text.vectorizer": ("Vectorizer",),
    "textnb.text.weighting": ("TermWeighting", "TfidfVectorizer"),
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(n for names in _EXPORTS.values() for n in names)
