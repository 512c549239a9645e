"""Term weighting for text models: log tf, idf, document-length normalisation, binary.

Rennie et al. (2003, §4) show that three transforms of the raw counts close much of the
gap between naive Bayes and an SVM on text:

* **sublinear tf** ``x ← log(1 + x)`` (§4.1): word occurrences are bursty, a heavy
  tailed distribution that the multinomial under-predicts; the log makes the counts
  fit it;
* **idf** ``x ← x · idf_w`` (§4.2): words that occur in many documents carry little
  information; ``idf_w`` is computed from the document frequency ``df_w`` and the
  number of documents ``n``;
* **length normalisation** ``x ← x / ‖x‖₂`` (§4.3): long documents would otherwise
  dominate the parameter estimates (the bursts of one long document add up).

:class:`TermWeighting` is a scikit-learn transformer over the count matrices of
:class:`textnb.Vectorizer`, so it goes in a :class:`sklearn.pipeline.Pipeline` in front
of any textnb model. Its only fitted state is ``n_documents_`` and
``document_frequency_``, sums over the documents, so it can be trained in chunks
(:meth:`TermWeighting.partial_fit`) and on shards (:meth:`TermWeighting.merge`) like
the models.
"""

import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted, check_non_negative, validate_data

from textnb.core.errors import ParameterError
from textnb.core.model_io import register
from textnb.core.model_schema import Bool, Choice, MayBeAbsent, Optional, Reals
from textnb.core.wrapping import checked_merge
from textnb.text.tokenize import TOKEN_PATTERN
from textnb.text.vectorizer import Vectorizer
from textnb.naive_bayes.base import DeclaredTags
from textnb.naive_bayes.kernels import all_or_nothing, takes_defaults
from textnb.text.wrappers import (IDF, WEIGHTING_DEFAULTS, WEIGHTING_PARAMS, WEIGHTING_STATE, document_frequency,
                                  idf_weights, weigh_cells)

__all__ = ["TermWeighting", "TfidfVectorizer"]


@register
class TermWeighting(DeclaredTags, TransformerMixin, BaseEstimator):
    """Weight term counts as Rennie et al. (2003, §4): log tf, idf, length norm.

    Its names are textnb's, and two of its formulas differ from scikit-learn's
    ``TfidfTransformer`` under similar names (``sublinear_tf`` is ``log(1 + x)``, not
    ``1 + log(x)``; ``idf="plain"`` is ``log(n / df)``, not ``log(n / df) + 1``): for
    scikit-learn's, use :class:`TfidfVectorizer` (docs/sklearn_parity.md).

    The steps run in this order: ``binary`` (counts clipped to 1), ``sublinear_tf``
    (``log(1 + x)``), ``idf`` (times ``idf_w``), ``length_norm`` (each row divided by
    its Euclidean norm). Rows stay sparse; a zero row stays zero.

    Parameters
    ----------
    sublinear_tf : bool, default=True
        Replace each count x by ``log(1 + x)`` (Rennie et al. §4.1).
    idf : {"smooth", "plain"} or None, default="smooth"
        Inverse document frequency (§4.2). ``"smooth"``: ``log((1 + n) / (1 + df_w)) + 1``
        (scikit-learn's default: every term keeps a positive weight, terms unseen in
        training get the largest); ``"plain"``: ``log(n / df_w)`` (the paper's formula;
        a term in every document gets weight 0; unseen terms get ``log n``);
        None: no idf.
    length_norm : bool, default=True
        Divide each document's weights by their Euclidean norm (§4.3).
    binary : bool, default=False
        Clip counts to 1 first (presence / absence).

    Attributes
    ----------
    n_documents_ : float
        Documents seen by ``fit`` / ``partial_fit`` / ``merge``.
    document_frequency_ : ndarray of shape (n_features,)
        Number of those documents in which each term occurs.
    idf_ : ndarray of shape (n_features,)
        The idf weights (all ones when ``idf=None``).
    n_features_in_ : int

    References
    ----------
    J. D. M. Rennie, L. Shih, J. Teevan, D. R. Karger (2003). Tackling the poor
    assumptions of naive Bayes text classifiers. ICML, §4.

    Examples
    --------
    >>> from textnb.text.weighting import TermWeighting
    >>> w = TermWeighting(idf=None).fit([[3, 0], [1, 1]])
    >>> w.transform([[3, 0], [1, 1]]).toarray().round(3).tolist()
    [[1.0, 0.0], [0.707, 0.707]]
    """

    _param_schema = WEIGHTING_PARAMS
    _state_schema = WEIGHTING_STATE

    @takes_defaults(WEIGHTING_DEFAULTS)
    def __init__(self, *, sublinear_tf, idf, length_norm, binary):
        self.sublinear_tf = sublinear_tf
        self.idf = idf
        self.length_norm = length_norm
        self.binary = binary

    _tags = {"input_tags.sparse": True, "input_tags.positive_only": True, "requires_fit": True}

    def _check_params(self):
        if self.idf not in IDF:
            raise ValueError(f"idf must be 'smooth', 'plain' or None; got {self.idf!r}")

    def _validate(self, X, reset):
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=reset)
        X = sp.csr_matrix(X)
        if not np.all(np.isfinite(X.data)):
            raise ValueError("Input X contains NaN or infinity (TermWeighting).")
        check_non_negative(X, "TermWeighting (input X)")
        return X

    @all_or_nothing
    def fit(self, X, y=None):
        """Count the document frequencies of a (sparse) count matrix; returns self."""
        self._check_params()
        X = self._validate(X, reset=True)
        self.n_documents_ = 0.0
        self.document_frequency_ = np.zeros(X.shape[1])
        self._add(X)
        return self

    @all_or_nothing
    def partial_fit(self, X, y=None):
        """Add the document frequencies of another batch (same columns)."""
        if not hasattr(self, "document_frequency_"):
            return self.fit(X)
        self._check_params()
        self._add(self._validate(X, reset=False))
        return self

    def _add(self, X):
        self.n_documents_ += float(X.shape[0])
        self.document_frequency_ += document_frequency(X.data, X.indices, X.shape[1])
        self._update()

    @checked_merge
    def merge(self, other):
        """Add the document frequencies of ``other`` (same columns): shards -> whole."""
        check_is_fitted(self)
        check_is_fitted(other)
        if other.document_frequency_.shape != self.document_frequency_.shape:
            raise ValueError(
                f"cannot merge weightings over {other.document_frequency_.shape[0]} and "
                f"{self.document_frequency_.shape[0]} terms"
            )
        self.n_documents_ += other.n_documents_
        self.document_frequency_ = self.document_frequency_ + other.document_frequency_
        self._update()
        return self

    def fit_counts(self, n_documents, document_frequency):
        """Fit from precomputed sums (e.g. the per-term df of a streamed corpus)."""
        self._check_params()
        self.n_documents_ = float(n_documents)
        self.document_frequency_ = np.array(document_frequency, dtype=np.float64)
        self.n_features_in_ = self.document_frequency_.shape[0]
        self._update()
        return self

    def _update(self):
        self.idf_ = idf_weights(self.n_documents_, self.document_frequency_, self.idf)

    def transform(self, X):
        """The weighted matrix (CSR, float64), same shape as X."""
        check_is_fitted(self)
        self._check_params()
        X = self._validate(X, reset=False).copy()
        X.sum_duplicates()
        X.data = weigh_cells(X.data, X.indices, X.indptr, self.idf_ if self.idf is not None else None,
                             binary=self.binary, sublinear_tf=self.sublinear_tf, length_norm=self.length_norm)
        return X

    def get_feature_names_out(self, input_features=None):
        """Same features as the input (one weight per term)."""
        check_is_fitted(self)
        if input_features is not None:
            return np.asarray(input_features, dtype=object)
        if hasattr(self, "feature_names_in_"):
            return self.feature_names_in_
        return np.array([f"x{i}" for i in range(self.n_features_in_)], dtype=object)


#: the dtypes TfidfVectorizer gives its matrices (others are converted to float64)
_FLOAT_DTYPES = (np.float64, np.float32, np.float16)


@register
class TfidfVectorizer(Vectorizer, auto_wrap_output_keys=None):  # sparse out: no set_output
    """Documents to tf-idf weighted matrices: scikit-learn's ``TfidfVectorizer``.

    :class:`~textnb.Vectorizer`'s counts (every parameter of scikit-learn's
    ``CountVectorizer``, plus ``stemmer``) weighted by scikit-learn's own
    ``TfidfTransformer``, so the formulas and parameter names are scikit-learn's:

    * ``sublinear_tf``: ``tf ← 1 + log(tf)`` (TermWeighting's ``sublinear_tf`` is
      ``log(1 + tf)``, Rennie et al.'s form, which keeps a count of 1 at ``log 2``);
    * ``use_idf`` with ``smooth_idf=True``: ``idf = log((1 + n) / (1 + df)) + 1``
      (TermWeighting's ``idf="smooth"``, the same); ``smooth_idf=False``:
      ``log(n / df) + 1`` (TermWeighting's ``idf="plain"`` is ``log(n / df)``, the
      paper's, which gives a term in every document the weight 0);
    * ``norm``: 'l2' (TermWeighting's ``length_norm=True``), 'l1' or None.

    Use :class:`TermWeighting` for the paper's transforms trained in chunks or on
    shards; use this class where code expects scikit-learn's.

    Parameters
    ----------
    norm : {'l1', 'l2'} or None, default='l2'
    use_idf : bool, default=True
    smooth_idf : bool, default=True
    sublinear_tf : bool, default=False
    dtype : numpy float dtype, default='float64'
    **others
        As :class:`~textnb.Vectorizer`.

    Attributes
    ----------
    vocabulary_ : dict
    fixed_vocabulary_ : bool
    idf_ : ndarray of shape (n_features,)
        The idf weights (when ``use_idf``).

    References
    ----------
    K. Sparck Jones (1972). A statistical interpretation of term specificity and its
    application in retrieval. Journal of Documentation 28(1), 11-21.

    Examples
    --------
    >>> from textnb import TfidfVectorizer
    >>> TfidfVectorizer().fit_transform(["a cat", "a dog", "cat cat"]).toarray().round(3).tolist()
    [[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]]
    """

    _param_schema = {**Vectorizer._param_schema, "norm": Optional(Choice("l1", "l2")), "use_idf": Bool(),
                     "smooth_idf": Bool(), "sublinear_tf": Bool(),
                     "dtype": Choice("float64", "float32", "float16")}
    _state_schema = {**Vectorizer._state_schema, "idf_": MayBeAbsent(Reals(("n_idf",), lo=0.0))}
    _tags = {"_skip_test": True}  # as scikit-learn's (its checks need numeric input)

    def __init__(self, *, input="content", encoding="utf-8", decode_error="strict", strip_accents=None,
                 lowercase=True, preprocessor=None, tokenizer=None, analyzer="word", stop_words=None,
                 token_pattern=TOKEN_PATTERN, ngram_range=(1, 1), max_df=1.0, min_df=1, max_features=None,
                 vocabulary=None, binary=False, dtype="float64", norm="l2", use_idf=True, smooth_idf=True,
                 sublinear_tf=False, stemmer=None):
        super().__init__(input=input, encoding=encoding, decode_error=decode_error, strip_accents=strip_accents,
                         lowercase=lowercase, preprocessor=preprocessor, tokenizer=tokenizer, analyzer=analyzer,
                         stop_words=stop_words, token_pattern=token_pattern, ngram_range=ngram_range, max_df=max_df,
                         min_df=min_df, max_features=max_features, vocabulary=vocabulary, binary=binary,
                         dtype=dtype, stemmer=stemmer)
        self.norm = norm
        self.use_idf = use_idf
        self.smooth_idf = smooth_idf
        self.sublinear_tf = sublinear_tf

    def _transformer(self):
        from sklearn.feature_extraction.text import TfidfTransformer

        return TfidfTransformer(norm=self.norm, use_idf=self.use_idf, smooth_idf=self.smooth_idf,
                                sublinear_tf=self.sublinear_tf)

    @property
    def idf_(self):
        """The idf weights, shape (n_features,) (only with ``use_idf``)."""
        if "_tfidf" not in self.__dict__:
            raise NotFittedError(f"{type(self).__name__} is not fitted yet. Call 'fit' with appropriate "
                                 "arguments before using this attribute.")
        return self._tfidf.idf_

    @idf_.setter
    def idf_(self, value):
        if not self.use_idf:
            raise ParameterError("`idf_` cannot be set when `user_idf=False`.")
        if "_tfidf" not in self.__dict__:
            self._tfidf = self._transformer()
        if "_terms" not in self.__dict__:
            self._validate_vocabulary()
        if "_terms" in self.__dict__ and len(self._terms) != len(value):
            raise ParameterError(f"idf length = {len(value)} must be equal to vocabulary size = {len(self._terms)}")
        self._tfidf.idf_ = value

    def __sklearn_is_fitted__(self):
        return "_tfidf" in self.__dict__ and "_terms" in self.__dict__

    def _check_params(self):
        super()._check_params()
        if self.dtype not in _FLOAT_DTYPES and self.dtype not in ("float64", "float32", "float16"):
            warnings.warn(f"Only {_FLOAT_DTYPES} 'dtype' should be used. {self.dtype} 'dtype' will be "
                          "converted to np.float64.", UserWarning)

    @all_or_nothing
    def fit(self, raw_documents, y=None):
        """Learn the vocabulary and the idf; returns self."""
        self.fit_transform(raw_documents)
        return self

    @all_or_nothing
    def fit_transform(self, raw_documents, y=None):
        """Learn the vocabulary and the idf; the tf-idf matrix (CSR)."""
        tfidf = self._transformer()
        X = super().fit_transform(raw_documents)
        self._tfidf = tfidf.fit(X)
        return tfidf.transform(X, copy=False)

    def _output(self, counts):
        return self._tfidf.transform(self._finish(counts), copy=False)

    def transform(self, raw_documents):
        """The tf-idf matrix (CSR) of documents under the fitted vocabulary and idf."""
        if not self.__sklearn_is_fitted__():
            raise NotFittedError("The TF-IDF vectorizer is not fitted")
        return super().transform(raw_documents)

    # -- model files: the vocabulary and the idf -------------------------------------
    def _get_state(self):
        state = super()._get_state()
        if self.use_idf:
            state["idf_"] = np.asarray(self._tfidf.idf_, dtype=np.float64)
        return state

    def _set_state(self, state):
        state = dict(state)
        idf = state.pop("idf_", None)
        super()._set_state(state)
        if self.use_idf and (idf is None or len(idf) != len(self._terms)):
            raise ValueError("the idf weights do not fit the vocabulary")
        tfidf = self._transformer().fit(sp.csr_matrix((1, len(self._terms))))
        if idf is not None:
            tfidf.idf_ = idf
        self._tfidf = tfidf
