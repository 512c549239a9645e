"""Reading: text corpora, tables (ARFF, CSV/TSV, pandas), uncertain cells, mail. Never imports a model.

Names are imported on first use (PEP 562), so importing one module of this package does
not import the others.
"""

from textnb.core.lazy import lazy_exports

_EXPORTS = {
    "ArffData": "textnb.io.arff",
    "Attribute": "textnb.io.tables",
    "CellError": "textnb.io.uncertain",
    "Corpus": "textnb.io.corpus",
    "DEFAULT_MAX_BYTES": "textnb.io.mail",
    "MAX_DOCUMENT_BYTES": "textnb.io.corpus",
    "MISSING": "textnb.io.csvtable",
    "PROBABILITY_TOLERANCE": "textnb.io.uncertain",
    "Table": "textnb.io.tables",
    "UNCERTAIN_KINDS": "textnb.io.uncertain",
    "UNCERTAIN_NOMINAL": "textnb.io.uncertain",
    "UNCERTAIN_NUMERIC": "textnb.io.uncertain",
    "attribute_width": "textnb.io.uncertain",
    "cell_kind": "textnb.io.uncertain",
    "check_uncertain_block": "textnb.io.uncertain",
    "column_slices": "textnb.io.uncertain",
    "decode_bytes": "textnb.io.corpus",
    "encode_like": "textnb.io.tables",
    "format_cell": "textnb.io.uncertain",
    "format_distribution": "textnb.io.uncertain",
    "format_interval": "textnb.io.uncertain",
    "has_uncertain": "textnb.io.uncertain",
    "html_to_text": "textnb.io.mail",
    "is_binary": "textnb.io.corpus",
    "is_maildir": "textnb.io.mail",
    "is_mbox": "textnb.io.mail",
    "is_uncertain": "textnb.io.uncertain",
    "iter_input_documents": "textnb.io.corpus",
    "iter_messages": "textnb.io.mail",
    "log_interval_mass": "textnb.io.uncertain",
    "make_uncertain": "textnb.io.uncertain",
    "message_text": "textnb.io.mail",
    "open_corpus": "textnb.io.corpus",
    "parse_distribution": "textnb.io.uncertain",
    "parse_interval": "textnb.io.uncertain",
    "parse_uncertain_column": "textnb.io.uncertain",
    "read_arff": "textnb.io.arff",
    "read_bytes": "textnb.io.corpus",
    "read_capped": "textnb.io.mail",
    "read_csv": "textnb.io.csvtable",
    "read_document": "textnb.io.corpus",
    "read_table": "textnb.io.tables",
    "table_from_frame": "textnb.io.tables",
    "to_certain": "textnb.io.uncertain",
    "to_text": "textnb.io.corpus",
    "to_tokenizable": "textnb.io.corpus",
    "write_arff": "textnb.io.arff",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(_EXPORTS)
