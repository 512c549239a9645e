"""From text to counts: the tokenizer, the vocabulary and scipy CSR count matrices.

With the same settings the :class:`Vectorizer` produces exactly the vocabulary and the
counts of scikit-learn's ``CountVectorizer`` (default token pattern ``(?u)\\b\\w\\w+\\b``,
lowercase, English stop words removed before n-grams are formed, ``min_df`` /
``max_df`` / ``max_features`` applied in sklearn's order), plus optional stemming with
textnb's Porter or Snowball English stemmers (:mod:`textnb.text.stemmers`, NLTK's stems).

Speed comes from keeping per-token work in C: tokens are found by ``re.findall``,
filtered with ``itertools.filterfalse(stop_words.__contains__, ...)``, stemmed through
a dict cache whose ``__missing__`` calls the stemmer once per distinct word, and
mapped to column numbers with ``map(vocabulary.__getitem__, ...)`` over a whole batch;
counting is one sparse-matrix construction per batch.
"""


import warnings
from collections.abc import Mapping
from operator import itemgetter

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_array

from textnb.core.model_io import register
from textnb.core.errors import ParameterError, SingleStringError, refuse_single_string  # noqa: F401 (SingleStringError: its old home)
from textnb.naive_bayes.base import DeclaredTags
from textnb.naive_bayes.kernels import all_or_nothing, takes_defaults
from textnb.text.defaults import VECTORIZER_DEFAULTS, VECTORIZER_PARAMS, VECTORIZER_STATE
from textnb.text.tokenize import (  # noqa: F401  (re-exported: the public home of the tokenizer)
    decode_terms,
    encode_terms,
    TOKEN_PATTERN,
    Analyzer,
    Decoder,
    analyzer_from_params,
    check_stop_words,
    Preprocessor,
    TermKeys,
    compile_token_pattern,
    stop_word_set,
    strip_accents_ascii,
    strip_accents_unicode,
    batch_term_ids,
    count_batch,
    csr_counts,
    growing_vocabulary,
    regex_tokenize,
)
from textnb.text.training import (check_vocabulary_params, finish_counts, learn_counts,  # noqa: F401
                                  prune_mask)  # (prune_mask: its old home)

__all__ = ["TOKEN_PATTERN", "Analyzer", "Vectorizer", "analyzer_from_params", "regex_tokenize",
           "strip_accents_ascii", "strip_accents_unicode"]



@register
class Vectorizer(DeclaredTags, TransformerMixin, BaseEstimator, auto_wrap_output_keys=None):  # sparse out: no set_output
    """Bag of words: a vocabulary and CSR count matrices, scikit-learn's ``CountVectorizer``.

    The constructor, attributes and methods are ``CountVectorizer``'s, with the same
    output (vocabulary, column order, counts), plus ``stemmer``. The default word
    analysis of ASCII documents runs in numpy (:mod:`textnb.text.ascii_tokens`).

    Parameters
    ----------
    input : {'content', 'file', 'filename'}, default='content'
        What the documents are: the text (str, or bytes decoded with ``encoding``),
        file objects (``read()``), or file names.
    encoding : str, default='utf-8'
        Decodes bytes documents.
    decode_error : {'strict', 'ignore', 'replace'}, default='strict'
        What bytes that do not decode do (``bytes.decode``'s ``errors``).
    strip_accents : {'ascii', 'unicode'} or callable, default=None
        Remove accents after lowercasing (NFKD normalisation).
    lowercase : bool, default=True
    preprocessor : callable, default=None
        document -> document, replacing lowercasing and accent stripping.
    tokenizer : callable, default=None
        document -> tokens, replacing ``token_pattern`` (``analyzer='word'`` only).
    stop_words : {'english'} or list of str or None, default=None
        Removed before stemming and n-grams ('english' is scikit-learn's list). A
        list that the preprocessing and tokenizing would turn into other tokens draws
        scikit-learn's warning.
    token_pattern : str, default=r"(?u)\\b\\w\\w+\\b"
        Regular expression for a token (Unicode-aware; one capturing group at most).
    ngram_range : tuple (min_n, max_n), default=(1, 1)
        Word n-grams, or character n-grams for 'char' / 'char_wb'; ``max_n`` at most
        20 (:data:`textnb.core.model_schema.MAX_NGRAM`, what a model file may hold;
        scikit-learn has no bound).
    analyzer : {'word', 'char', 'char_wb'} or callable, default='word'
        Terms are words, character n-grams, character n-grams inside words (padded
        with a space), or what a callable (decoded document -> terms) returns.
    max_df, min_df : int or float, default=1.0 and 1
        Keep terms in at least ``min_df`` and at most ``max_df`` documents (a float is
        a fraction of the documents).
    max_features : int or None, default=None
        Keep the most frequent terms only.
    vocabulary : mapping or iterable of str, default=None
        A fixed vocabulary (term -> column, or terms in column order); ``fit`` then
        learns nothing and ``min_df`` / ``max_df`` / ``max_features`` are not used.
    binary : bool, default=False
        Counts clipped to 1.
    dtype : numpy dtype, default='int64'
        Type of the matrices' values.
    stemmer : {'porter', 'snowball'} or None, default=None
        Stemmer applied to every word (textnb's addition; after stop words):
        :func:`~textnb.text.stemmers.porter_stem` or :func:`~textnb.text.stemmers.snowball_stem`,
        the stems of NLTK's ``PorterStemmer`` and ``SnowballStemmer("english")``.

    Attributes
    ----------
    vocabulary_ : dict
        term -> column (alphabetical order, as scikit-learn, unless ``vocabulary``
        fixes it).
    fixed_vocabulary_ : bool
        True when ``vocabulary`` was given.

    Examples
    --------
    >>> from textnb import Vectorizer
    >>> v = Vectorizer(analyzer="char_wb", ngram_range=(2, 2))
    >>> v.fit_transform(["ab ba"]).toarray().tolist(), v.get_feature_names_out().tolist()
    ([[1, 1, 1, 1, 1, 1]], [' a', ' b', 'a ', 'ab', 'b ', 'ba'])
    """

    _param_schema = VECTORIZER_PARAMS
    _state_schema = VECTORIZER_STATE

    @takes_defaults(VECTORIZER_DEFAULTS)
    def __init__(self, *, input, encoding, decode_error, strip_accents, lowercase, preprocessor, tokenizer, stop_words,
                 token_pattern, ngram_range, analyzer, max_df, min_df, max_features, vocabulary, binary, dtype,
                 stemmer):
        self.input = input
        self.encoding = encoding
        self.decode_error = decode_error
        self.strip_accents = strip_accents
        self.lowercase = lowercase
        self.preprocessor = preprocessor
        self.tokenizer = tokenizer
        self.stop_words = stop_words
        self.token_pattern = token_pattern
        self.ngram_range = ngram_range
        self.analyzer = analyzer
        self.max_df = max_df
        self.min_df = min_df
        self.max_features = max_features
        self.vocabulary = vocabulary
        self.binary = binary
        self.dtype = dtype
        self.stemmer = stemmer

    # raw documents in, as scikit-learn's text vectorizers declare it (the numeric
    # estimator checks do not apply; tests/test_sklearn_cases.py checks the rest)
    _tags = {"input_tags.string": True, "input_tags.two_d_array": False}

    # -- the analysis, in scikit-learn's pieces ---------------------------------------
    def decode(self, doc):
        """``doc`` as a str: read (``input``) and decoded (``encoding``, ``decode_error``)."""
        return Decoder(self.input, self.encoding, self.decode_error)(doc)

    def build_preprocessor(self):
        """The document -> document function applied before tokenising."""
        if self.preprocessor is not None:
            return self.preprocessor
        return Preprocessor(self.lowercase, self.strip_accents)

    def build_tokenizer(self):
        """The document -> tokens function (``tokenizer``, or ``token_pattern``'s findall)."""
        if self.tokenizer is not None:
            return self.tokenizer
        return compile_token_pattern(self.token_pattern).findall

    def get_stop_words(self):
        """The effective stop words (a frozenset) or None."""
        if isinstance(self.stop_words, str) and self.stop_words != "english":
            raise ParameterError(f"not a built-in stop list: {self.stop_words}")
        return stop_word_set(self.stop_words)

    def _check_stop_words_consistency(self, stop_words, preprocess, tokenize):
        """Warn (once per stop list) when preprocessing and tokenizing the stop words
        gives tokens that are not stop words: they would not be removed
        (:func:`textnb.text.tokenize.check_stop_words`, the one check). Returns True
        (consistent), False, None (already checked) or "error" (the check could not run,
        e.g. a custom preprocessor), as scikit-learn's."""
        if id(self.stop_words) == getattr(self, "_stop_words_id", None):
            return None
        self._stop_words_id = id(self.stop_words)
        return check_stop_words(stop_words, preprocess, tokenize, stacklevel=3)

    def build_analyzer(self):
        """The document -> terms function these settings describe (a picklable
        :class:`textnb.text.tokenize.Analyzer`)."""
        if not callable(self.analyzer) and self.analyzer == "word":
            self._check_stop_words_consistency(self.get_stop_words(), self.build_preprocessor(),
                                               self.build_tokenizer())
        return analyzer_from_params(self.get_params(deep=False))

    def _analyzer(self):
        """:meth:`build_analyzer`, cached while the parameters stay the same objects."""
        params = self.get_params(deep=False)
        cached = self.__dict__.get("_cached_analyzer")
        if cached is not None and cached[0].keys() == params.keys() \
                and all(cached[0][k] is v for k, v in params.items()):
            return cached[1]
        analyzer = self.build_analyzer()
        self._cached_analyzer = (params, analyzer)
        return analyzer

    # -- checks -------------------------------------------------------------------------
    def _validate_ngram_range(self):
        min_n, max_n = self.ngram_range
        if min_n > max_n:
            raise ParameterError(f"Invalid value for ngram_range={self.ngram_range} "
                             "lower boundary larger than the upper boundary.")

    def _warn_for_unused_params(self):
        def warn(unused, why):
            warnings.warn(f"The parameter {unused!r} will not be used since {why}", UserWarning, stacklevel=4)

        if self.tokenizer is not None and self.token_pattern is not None:
            warn("token_pattern", "'tokenizer' is not None'")
        if self.preprocessor is not None and callable(self.analyzer):
            warn("preprocessor", "'analyzer' is callable'")
        if self.ngram_range is not None and tuple(self.ngram_range) != (1, 1) and callable(self.analyzer):
            warn("ngram_range", "'analyzer' is callable'")
        if callable(self.analyzer) or self.analyzer != "word":
            if self.stop_words is not None:
                warn("stop_words", "'analyzer' != 'word'")
            if self.token_pattern is not None and self.token_pattern != TOKEN_PATTERN:
                warn("token_pattern", "'analyzer' != 'word'")
            if self.tokenizer is not None:
                warn("tokenizer", "'analyzer' != 'word'")

    def _check_params(self):
        self._validate_ngram_range()
        check_vocabulary_params(self.min_df, self.max_df, self.max_features)

    def _validate_vocabulary(self):
        """Set ``fixed_vocabulary_`` (and, for a given ``vocabulary``, the vocabulary)."""
        vocabulary = self.vocabulary
        if vocabulary is None:
            self.fixed_vocabulary_ = False
            return
        if isinstance(vocabulary, set):
            vocabulary = sorted(vocabulary)
        if isinstance(vocabulary, Mapping):
            indices = set(vocabulary.values())
            if len(indices) != len(vocabulary):
                raise ParameterError("Vocabulary contains repeated indices.")
            for i in range(len(vocabulary)):
                if i not in indices:
                    raise ParameterError(f"Vocabulary of size {len(vocabulary)} doesn't contain index {i}.")
            terms = [t for t, _ in sorted(vocabulary.items(), key=itemgetter(1))]
        else:
            terms, seen = [], set()
            for t in vocabulary:
                if t in seen:
                    raise ParameterError(f"Duplicate term in vocabulary: {t!r}")
                seen.add(t)
                terms.append(t)
        if not terms:
            raise ParameterError("empty vocabulary passed to fit")
        self.fixed_vocabulary_ = True
        self._set_terms(terms)

    def _check_vocabulary(self):
        """Raise NotFittedError unless there is a vocabulary (fitted or given)."""
        if "_terms" not in self.__dict__:
            self._validate_vocabulary()
            if not self.fixed_vocabulary_:
                raise NotFittedError("Vocabulary not fitted or provided")
        if not self._terms:
            raise ValueError("Vocabulary is empty")

    # -- fitting and transforming ---------------------------------------------------------
    def fit(self, raw_documents, y=None):
        """Learn the vocabulary; returns self."""
        self.fit_transform(raw_documents)
        return self

    @all_or_nothing
    def fit_transform(self, raw_documents, y=None):
        """Learn the vocabulary and return the (n_documents, n_terms) CSR counts."""
        refuse_single_string(raw_documents)
        self._check_params()
        self._warn_for_unused_params()
        self.__dict__.pop("_terms", None)
        self._validate_vocabulary()
        analyzer = self._analyzer()
        docs = list(raw_documents)
        if self.fixed_vocabulary_:
            if self.lowercase and any(any(map(str.isupper, t)) for t in self._terms):
                warnings.warn("Upper case characters found in vocabulary while 'lowercase' is True. These "
                              "entries will not be matched with any documents", UserWarning, stacklevel=2)
            return self._finish(count_batch(docs, analyzer, self._term_index(), grow=False))
        X, terms = learn_counts(docs, analyzer, min_df=self.min_df, max_df=self.max_df,
                                max_features=self.max_features, binary=self.binary)
        self._set_terms(terms)
        return self._finish(X)

    def _set_terms(self, terms, *, checked=False):
        """Set the vocabulary: ``terms`` in column order (``checked``: all already str)."""
        terms = terms.tolist() if isinstance(terms, np.ndarray) else list(terms)
        if not checked and not all(map(str.__instancecheck__, terms)):
            terms = [str(t) for t in terms]
        self._terms = terms
        self._vocabulary = None  # the term -> column dict, built when first asked for
        self._cached_index = None

    def __sklearn_is_fitted__(self):
        return "_terms" in self.__dict__

    @property
    def vocabulary_(self):
        """term -> column (alphabetical order, as scikit-learn); built on first use."""
        terms = self.__dict__.get("_terms")
        if terms is None:
            raise AttributeError("'Vectorizer' object has no attribute 'vocabulary_' (not fitted)")
        vocabulary = self.__dict__.get("_vocabulary")
        if vocabulary is None:
            vocabulary = self._vocabulary = dict(zip(terms, range(len(terms))))
        return vocabulary

    @vocabulary_.setter
    def vocabulary_(self, vocabulary):
        self._set_terms([t for t, _ in sorted(vocabulary.items(), key=itemgetter(1))])

    def _keep_index(self, index):
        """Cache ``index`` (a TermKeys of exactly the terms, in column order)."""
        self._cached_index = (self._terms, index)

    def _term_index(self):
        """The fitted vocabulary as a :class:`textnb.text.ascii_tokens.TermKeys` (cached),
        the form tokenising looks terms up fastest in."""
        index = getattr(self, "_cached_index", None)
        if index is None or index[0] is not self._terms:
            index = self._cached_index = (self._terms, TermKeys(self._terms))
        return index[1]

    def _finish(self, X):
        return finish_counts(X, binary=self.binary, dtype=self.dtype)

    def _output(self, counts):
        """What :meth:`transform` returns for the raw count matrix of some documents
        (the step a caller that counts documents itself applies)."""
        return self._finish(counts)

    def _summed_counts(self):
        """True when a count model's sums are sums of :meth:`fit_transform`'s cells, which
        streamed documents give batch by batch: a learned vocabulary and no weighting
        (counts, or presence with ``binary``: :class:`~textnb.text.training.Accumulator`
        sums document frequencies then). Code that fits from streamed sums instead of the
        matrix asks (``TextClassifier.fit``, ``partial_fit``, ``forget``, ``fit_bag``)."""
        return type(self)._output is Vectorizer._output and self.vocabulary is None

    def transform(self, raw_documents):
        """CSR counts of documents under the fitted vocabulary (unknown terms dropped)."""
        refuse_single_string(raw_documents)
        self._check_vocabulary()
        docs = list(raw_documents)
        return self._output(count_batch(docs, self._analyzer(), self._term_index(), grow=False))

    def inverse_transform(self, X):
        """The terms of each row's non-zero columns: a list of arrays, one per row."""
        self._check_vocabulary()
        X = check_array(X, accept_sparse="csr")
        terms = np.array(self._terms)
        if sp.issparse(X):
            X = sp.csr_matrix(X)
            X.eliminate_zeros()
            return [terms[X.indices[X.indptr[i]:X.indptr[i + 1]]] for i in range(X.shape[0])]
        return [terms[np.flatnonzero(row)] for row in X]

    def get_feature_names_out(self, input_features=None):
        """The terms, in column order."""
        self._check_vocabulary()
        return np.array(self._terms, dtype=object)

    # -- model files: the vocabulary in column order, as UTF-8 bytes and offsets -------
    def _get_state(self):
        state = encode_terms(self._terms)
        if getattr(self, "label_prefix_", None) is not None:  # (textnb.io.fasttext.store_label_prefix)
            state["label_prefix"] = self.label_prefix_
        if getattr(self, "term_counts_", None) is not None:  # (textnb.fasttext.train_supervised)
            state["term_counts"] = np.asarray(self.term_counts_, dtype=np.float64)
        if getattr(self, "max_bytes_", None) is not None:  # (textnb.core.wrapping.store_max_bytes)
            state["max_bytes"] = int(self.max_bytes_)
        return state

    def _set_state(self, state):
        if "label_prefix" in state:
            self.label_prefix_ = state["label_prefix"]
        if "term_counts" in state:
            self.term_counts_ = np.asarray(state["term_counts"], dtype=np.float64)
        if "max_bytes" in state:
            self.max_bytes_ = int(state["max_bytes"])
        terms = decode_terms(state)
        if not len(terms):  # training refuses it; a file holding one is crafted or damaged
            raise ValueError("empty vocabulary: the model holds no terms")
        self._set_terms(terms)
        self.fixed_vocabulary_ = self.vocabulary is not None
