"""From text to counts: the tokenizer, the vocabulary and scipy CSR count matrices.

With the same settings the :class:`Vectorizer` produces exactly the vocabulary and the
counts of scikit-learn's ``CountVectorizer`` (default token pattern ``(?u)\\b\\w\\w+\\b``,
lowercase, English stop words removed before n-grams are formed, ``min_df`` /
``max_df`` / ``max_features`` applied in sklearn's order), plus optional stemming with
nltk's Porter or Snowball stemmers (which need no downloaded data).

Speed comes from keeping per-token work in C: tokens are found by ``re.findall``,
filtered with ``itertools.filterfalse(stop_words.__contains__, ...)``, stemmed through
a dict cache whose ``__missing__`` calls the stemmer once per distinct word, and
mapped to column numbers with ``map(vocabulary.__getitem__, ...)`` over a whole batch;
counting is one sparse-matrix construction per batch.
"""


import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from textnb.core.model_io import register
from textnb.core.errors import InputError
from textnb.text.tokenize import (  # noqa: F401  (re-exported: the public home of the tokenizer)
    decode_terms,
    encode_terms,
    TOKEN_PATTERN,
    Analyzer,
    TermKeys,
    batch_term_ids,
    count_batch,
    csr_counts,
    growing_vocabulary,
    regex_tokenize,
)
from textnb.core.model_schema import (MAX_DIM, Array, Bool, Choice, Float, Int, ListOf, MayBeAbsent, NgramRange,
                                      OneOf, Optional, Pattern, Str)
from textnb.text.training import check_vocabulary_params, prune_mask  # noqa: F401  (prune_mask: old home)

__all__ = ["TOKEN_PATTERN", "Analyzer", "Vectorizer", "regex_tokenize"]

def _check_documents(raw_documents):
    if isinstance(raw_documents, (str, bytes)):
        raise TypeError(
            "expected an iterable of documents, got a single string; wrap it in a list"
        )


@register
class Vectorizer(TransformerMixin, BaseEstimator):
    """Bag of words: a vocabulary and CSR count matrices, like sklearn's CountVectorizer.

    Parameters
    ----------
    lowercase : bool, default=True
    token_pattern : str, default=r"(?u)\\b\\w\\w+\\b"
        Regular expression for a token (Unicode-aware).
    stop_words : {'english'} or list of str or None, default=None
        Removed before stemming and n-grams ('english' is scikit-learn's list).
    stemmer : {'porter', 'snowball'} or None, default=None
        nltk stemmer applied to every token.
    ngram_range : tuple (min_n, max_n), default=(1, 1)
        Word n-grams, as in scikit-learn.
    min_df, max_df : int or float, default=1 and 1.0
        Keep terms in at least ``min_df`` and at most ``max_df`` documents (a float is
        a fraction of the documents).
    max_features : int or None, default=None
        Keep the most frequent terms only.
    binary : bool, default=False
        Counts clipped to 1.

    Attributes
    ----------
    vocabulary_ : dict
        term -> column (alphabetical order, as scikit-learn).
    """

    _DF = OneOf(Int(0, MAX_DIM), Float(0.0, 1.0))
    _param_schema = {
        "lowercase": Bool(), "token_pattern": Pattern(),
        "stop_words": Optional(OneOf(Choice("english"), ListOf(Str(1000)))),
        "stemmer": Optional(Choice("porter", "snowball")), "ngram_range": NgramRange(),
        "min_df": _DF, "max_df": _DF, "max_features": Optional(Int(1, MAX_DIM)), "binary": Bool(),
    }
    _state_schema = {  # the vocabulary as UTF-8 bytes and offsets (or, in old files, "terms")
        "terms_utf8": MayBeAbsent(Array("u", ("n_bytes",))),
        "terms_offsets": MayBeAbsent(Array("iu", ("n_terms+1",), lo=0, hi=MAX_DIM)),
        "terms": MayBeAbsent(Array("U", ("n_terms",))),
    }

    def __init__(self, *, lowercase=True, token_pattern=TOKEN_PATTERN, stop_words=None,
                 stemmer=None, ngram_range=(1, 1), min_df=1, max_df=1.0, max_features=None,
                 binary=False):
        self.lowercase = lowercase
        self.token_pattern = token_pattern
        self.stop_words = stop_words
        self.stemmer = stemmer
        self.ngram_range = ngram_range
        self.min_df = min_df
        self.max_df = max_df
        self.max_features = max_features
        self.binary = binary

    def __sklearn_tags__(self):
        # raw documents in, as scikit-learn's text vectorizers declare it (the numeric
        # estimator checks do not apply; tests/test_sklearn_cases.py checks the rest)
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.two_d_array = False
        return tags

    def build_analyzer(self):
        """The document -> terms function these settings describe."""
        return Analyzer(
            lowercase=self.lowercase,
            token_pattern=self.token_pattern,
            stop_words=self.stop_words,
            stemmer=self.stemmer,
            ngram_range=tuple(self.ngram_range),
        )

    def _check_params(self):
        check_vocabulary_params(self.min_df, self.max_df, self.max_features)

    def fit(self, raw_documents, y=None):
        """Learn the vocabulary; returns self."""
        self.fit_transform(raw_documents)
        return self

    def fit_transform(self, raw_documents, y=None):
        """Learn the vocabulary and return the (n_documents, n_terms) CSR counts."""
        _check_documents(raw_documents)
        self._check_params()
        analyzer = self.build_analyzer()
        vocab = TermKeys()
        docs = list(raw_documents)
        X = count_batch(docs, analyzer, vocab, grow=True)
        terms = np.array(vocab.terms(), dtype=object)
        order = vocab.sorted_columns()
        X = X[:, order]
        terms = terms[order]
        if self.binary:  # scikit-learn clips to 1 first: max_features then ranks by df
            X.data[:] = 1
        df = np.bincount(X.indices, minlength=X.shape[1])
        tf = np.asarray(X.sum(axis=0)).ravel()
        mask = prune_mask(df, tf, len(docs), min_df=self.min_df, max_df=self.max_df,
                          max_features=self.max_features)
        if not mask.any():
            raise InputError(
                "empty vocabulary: every token was filtered out; the documents may be empty "
                "or only contain stop words, or min_df / max_df prune everything"
            )
        self._set_terms(terms[mask])
        X = X[:, np.where(mask)[0]].tocsr()
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
        X.sort_indices()
        if self.binary:
            X.data[:] = 1
        return X

    def transform(self, raw_documents):
        """CSR counts of documents under the fitted vocabulary (unknown terms dropped)."""
        check_is_fitted(self, "vocabulary_")
        _check_documents(raw_documents)
        docs = list(raw_documents)
        return self._finish(count_batch(docs, self._analyzer(), self._term_index(), grow=False))

    def _analyzer(self):
        an = getattr(self, "_cached_analyzer", None)
        if an is None:
            an = self._cached_analyzer = self.build_analyzer()
        return an

    def get_feature_names_out(self, input_features=None):
        """The terms, in column order."""
        check_is_fitted(self, "vocabulary_")
        return np.array(self._terms, dtype=object)

    # -- model files: the vocabulary in column order, as UTF-8 bytes and offsets -------
    def _get_state(self):
        return encode_terms(self._terms)

    def _set_state(self, state):
        self._set_terms(decode_terms(state))
