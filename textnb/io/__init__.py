"""Reading: text corpora, tables (ARFF, CSV/TSV, pandas), uncertain cells, mail; and what the
pictures of ``--plot`` are drawn with (:mod:`textnb.io.pictures`). Never imports a model.

Names are imported on first use (:mod:`textnb.core.lazy`).
"""

from textnb.core.lazy import lazy_exports

_EXPORTS = {  # defining module -> the names it exports
    "textnb.io.arff": ("ArffData", "read_arff", "write_arff"),
    "textnb.io.corpus": (
        "Corpus", "MAX_DOCUMENT_BYTES", "decode_bytes", "document_text", "is_binary", "iter_input_documents",
        "open_corpus", "read_bytes", "read_document", "to_text", "to_tokenizable"
    ),
    "textnb.io.csvtable": ("MISSING", "read_csv"),
    "textnb.io.mail": (
        "DEFAULT_MAX_BYTES", "html_to_text", "is_maildir", "is_mbox", "iter_messages", "message_text", "read_capped"
    ),
    "textnb.io.tables": ("Attribute", "Table", "encode_like", "read_table", "table_from_frame"),
    "textnb.io.uncertain": (
        "CellError", "PROBABILITY_TOLERANCE", "UNCERTAIN_KINDS", "UNCERTAIN_NOMINAL", "UNCERTAIN_NUMERIC",
        "attribute_width", "cell_kind", "check_uncertain_block", "column_slices", "format_cell",
        "format_distribution", "format_interval", "has_uncertain", "is_uncertain", "log_interval_mass",
        "make_uncertain", "parse_distribution", "parse_interval", "parse_uncertain_column", "to_certain"
    ),
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(n for names in _EXPORTS.values() for n in names)
