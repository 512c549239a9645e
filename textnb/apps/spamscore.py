"""Spam scoring in the manner of bogofilter and SpamBayes, as a pure-numpy estimator.

Two parts:

* :func:`message_tokens` (defined in :mod:`textnb.io.mailtokens`, the one mail reader,
  which needs no numpy; re-exported here): the distinct tokens of a raw message, header
  fields prefixed by their name (``subject:cheap``, ``from:example.com``,
  ``rcvd:mx1.example.com``, ``hname:<field>``), MIME structure (``ctype:``, ``charset:``,
  ``cte:``, ``attach:``), link hosts (``url:<host>``) and the words of the decoded text
  parts. Every token is listed once (word presence).

* :class:`SpamScorer`: per-class message counts of each token (document frequencies),
  from which three scorings are computed:

  ``method="fisher"`` (the default; bogofilter's and SpamBayes's)
      Graham's token probability ``p(w) = (b/n_s) / (b/n_s + g/n_h)`` (``b``, ``g``: spam
      and ham messages holding ``w``), shrunk towards ``robx`` with strength ``robs``
      (Robinson 2003): ``f(w) = (robs * robx + n * p(w)) / (robs + n)``, ``n = b + g``.
      Only tokens with ``|f(w) - 1/2| >= min_dev`` are used (the minimum-deviation
      filter), at most ``max_tokens`` of the most extreme ones. Fisher's method combines
      them: ``S = 1 - Q(-2 sum ln(1 - f), 2n)``, ``H = 1 - Q(-2 sum ln f, 2n)`` with ``Q``
      the chi-square survival function, and the indicator is ``I = (1 + S - H) / 2``.
      The spam log-odds reported is ``log I - log(1 - I)``, computed in log space from
      the exact finite series of the even-degree chi-square distribution, so it keeps
      its resolution where ``I`` rounds to 0 or 1.
  ``method="geometric"``
      Robinson's geometric-mean combining of the same ``f(w)``:
      ``P = 1 - (prod (1 - f))^(1/n)``, ``Q = 1 - (prod f)^(1/n)``, score ``P / (P + Q)``;
      log-odds ``log P - log Q``.
  ``method="multinomial"``
      Multinomial naive Bayes on Boolean attributes (Metsis, Androutsopoulos &
      Paliouras 2006): ``log P(c) + sum_w log P(w | c)`` over the distinct tokens of the
      message, ``P(w | c) = (df_c(w) + alpha) / (sum_w' df_c(w') + alpha |V|)``;
      ``length_norm=True`` divides the token sum by the square root of the number of
      known tokens, a number ``p`` in [0, 1] by its ``p``-th power (``1``: the mean token
      weight): a length normalisation that keeps long messages from saturating.

Prediction is a numpy computation on the fitted arrays (``vocabulary_``,
``feature_count_``, ``class_count_``); no scikit-learn or scipy is imported by this
module. For ``method="multinomial"`` :mod:`textnb.apps.spamlite` computes the same
log-odds, float for float, without numpy (the spam filter's fast path).

References
----------
P. Graham, "A plan for spam", 2002; "Better Bayesian filtering", 2003.
G. Robinson, "A statistical approach to the spam problem", Linux Journal 107, 2003.
V. Metsis, I. Androutsopoulos, G. Paliouras, "Spam filtering with naive Bayes - which
naive Bayes?", CEAS 2006.
R. A. Fisher, "Statistical methods for research workers", 1925 (combining p-values).
"""

import math

import numpy as np

from textnb.core.errors import InputError
from textnb.core.labels import label_names
from textnb.core.model_io import register
from textnb.core.model_schema import MAX_ALPHA, MAX_COUNT, MAX_DIM, Array, Bool, Choice, Classes, Float, Int, OneOf, Optional

from textnb.apps.spamlite import (LiteScorer, compact_weights, encode_compact, fisher_log_odds, length_divisor,
                                  log_chi2_even_1, robinson_weight)
from textnb.io.mailtokens import Tokens, message_tokens  # noqa: F401 (the tokenizer's home before)
from textnb.naive_bayes.kernels import all_or_nothing
from textnb.naive_bayes.scoring import partial_fit_classes

__all__ = ["SpamScorer", "message_tokens", "log_chi2_even"]

# -- chi-square in log space -------------------------------------------------------------
def log_chi2_even(x, k):
    """``(log P, log Q)`` of the chi-square distribution with ``2k`` degrees of freedom at ``x``.

    ``P`` is the CDF, ``Q = 1 - P`` the survival function, element by element
    (:func:`textnb.apps.spamlite.log_chi2_even_1`: both from the exact Poisson series
    ``Q = exp(-x/2) sum_{i<k} (x/2)^i / i!``, so neither rounds to 0 or 1). ``k >= 1``
    (integers), ``x >= 0``.
    """
    x = np.asarray(x, dtype=np.float64).tolist()
    k = np.asarray(k, dtype=np.int64).tolist()
    pairs = [log_chi2_even_1(a, int(n)) for a, n in zip(x, k)]
    return (np.array([p for p, _ in pairs], dtype=np.float64).reshape(len(x)),
            np.array([q for _, q in pairs], dtype=np.float64).reshape(len(x)))


# -- the estimator -------------------------------------------------------------------------
_METHODS = ("fisher", "geometric", "multinomial")


def _labels(y):
    """``y`` as a one-dimensional array of labels, of their own type (str, int, bool: what
    ``predict`` gives back, as scikit-learn's classifiers do)."""
    y = np.asarray(y)
    if y.ndim != 1:
        raise InputError(f"the labels must be one label per message; got shape {y.shape}")
    return y


def _unique_tokens(doc):
    if type(doc) is Tokens:
        return doc
    return dict.fromkeys(doc.split() if isinstance(doc, str) else doc)


@register
class SpamScorer:
    """Token-presence spam scorer: Robinson-Fisher, Robinson geometric mean, or
    multinomial naive Bayes on Boolean attributes (see the module docstring).

    Parameters
    ----------
    method : {'fisher', 'geometric', 'multinomial'}, default 'fisher'
    robs : float, default 0.0178
        Robinson's strength of the background belief ``robx`` (bogofilter's default).
    robx : float, default 0.52
        Probability assumed for a token with no counts.
    min_dev : float, default 0.375
        Tokens with ``|f(w) - 0.5| < min_dev`` are ignored (fisher, geometric).
    max_tokens : int or None, default None
        Use at most this many tokens, the most extreme ``f(w)`` first (SpamBayes's
        ``max_discriminators``); None: all that pass ``min_dev``.
    alpha : float, default 0.01
        Additive smoothing (multinomial).
    length_norm : bool or float in [0, 1], default False
        Multinomial: divide the token sum by ``n ** length_norm``, ``n`` the number of
        known tokens of the message: True is ``sqrt(n)`` (0.5), 1 the mean token weight,
        False or 0 no normalisation.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        Sorted labels; the log-odds are those of ``classes_[1]`` against ``classes_[0]``.
    vocabulary_ : ndarray of str (object)
        The tokens (new tokens are appended while training; model files store them sorted,
        as one UTF-8 array).
    feature_count_ : ndarray of shape (2, n_tokens), int64
        Messages of each class holding each token.
    class_count_ : ndarray of shape (2,), int64
        Messages of each class.

    Input documents are sequences of tokens (lists, or strings split on whitespace);
    a token is counted once per message however often it occurs.

    References
    ----------
    Robinson, G. (2003). A statistical approach to the spam problem. Linux Journal 107.
    Graham, P. (2002). A plan for spam.
    Metsis, V., Androutsopoulos, I., Paliouras, G. (2006). Spam filtering with naive
    Bayes - which naive Bayes? CEAS 2006.
    """

    #: capability (:mod:`textnb.core.wrapping`): why there is no ``merge`` (``textnb merge`` says it)
    merge_refusal = ("spam models are combined by registering messages: spamfilter --model FILE --register-spam "
                     "PATH... --register-ham PATH... adds them to one model")

    _param_schema = {
        "method": Choice("fisher", "geometric", "multinomial"), "robs": Float(0.0, 1e6),
        "robx": Float(0.0, 1.0), "min_dev": Float(0.0, 0.4999999999),
        "max_tokens": Optional(Int(1, MAX_DIM)), "alpha": Float(0.0, MAX_ALPHA, lo_open=True), "length_norm": OneOf(Bool(), Float(0.0, 1.0)),
    }
    _state_schema = {  # the token count is the number of newlines + 1; _set_state checks it
        "classes_": Classes(),
        "tokens_utf8_": Array("u", (None,)),
        "feature_count_": Array("iuf", ("n_classes", None), lo=0, hi=MAX_COUNT),
        "class_count_": Array("iuf", ("n_classes",), lo=0, hi=MAX_COUNT),
    }

    def __init__(self, *, method="fisher", robs=0.0178, robx=0.52, min_dev=0.375, max_tokens=None,
                 alpha=0.01, length_norm=False):
        self.method = method
        self.robs = robs
        self.robx = robx
        self.min_dev = min_dev
        self.max_tokens = max_tokens
        self.alpha = alpha
        self.length_norm = length_norm

    # scikit-learn's parameter protocol, without importing scikit-learn
    _PARAMS = ("method", "robs", "robx", "min_dev", "max_tokens", "alpha", "length_norm")

    def get_params(self, deep=True):
        return {k: getattr(self, k) for k in self._PARAMS}

    def set_params(self, **params):
        for k, v in params.items():
            if k not in self._PARAMS:
                raise ValueError(f"invalid parameter {k!r} for SpamScorer")
            setattr(self, k, v)
        return self

    def __repr__(self):
        changed = {k: v for k, v in self.get_params().items() if v != type(self)().get_params()[k]}
        return "SpamScorer(" + ", ".join(f"{k}={v!r}" for k, v in changed.items()) + ")"

    def __sklearn_is_fitted__(self):
        return hasattr(self, "classes_")

    #: (scikit-learn before its tags: ``is_classifier`` read this attribute)
    _estimator_type = "classifier"

    def __sklearn_tags__(self):
        """scikit-learn's tags of a classifier of raw messages (str or token lists), as
        ``is_classifier``, ``clone``, ``cross_val_score`` and the model-selection tools read
        them; scikit-learn is imported only here, when its own tools ask."""
        from sklearn.utils import ClassifierTags, InputTags, Tags, TargetTags

        return Tags(estimator_type="classifier", target_tags=TargetTags(required=True),
                    classifier_tags=ClassifierTags(multi_class=False),
                    input_tags=InputTags(one_d_array=True, two_d_array=False, string=True))

    def score(self, X, y):
        """The mean accuracy of :meth:`predict` on ``X`` against ``y`` (scikit-learn's
        ``ClassifierMixin.score``, which cross-validation calls when given no scoring)."""
        y = _labels(y)
        predicted = self.predict(X)
        if len(predicted) != len(y):
            raise InputError(f"{len(predicted)} documents but {len(y)} labels")
        return float(np.mean(predicted == y)) if len(y) else 0.0

    def _check_fitted(self):
        """InputError ``the spam scorer is not fitted`` before :meth:`fit` (every method that
        reads the counts; ``predict`` raised AttributeError)."""
        if not hasattr(self, "classes_"):
            raise InputError("the spam scorer is not fitted")

    def _check_params(self):
        if self.method not in _METHODS:
            raise InputError(f"unknown method {self.method!r}; choose from {', '.join(_METHODS)}")
        if not (0.0 <= self.robx <= 1.0) or not self.robs >= 0.0:
            raise InputError("robx must be in [0, 1] and robs >= 0")
        if not 0.0 <= self.min_dev < 0.5:
            raise InputError(f"min_dev must be in [0, 0.5); got {self.min_dev!r}")
        if self.max_tokens is not None and int(self.max_tokens) < 1:
            raise InputError(f"max_tokens must be a positive integer or None; got {self.max_tokens!r}")
        if not self.alpha > 0.0:
            raise InputError(f"alpha must be positive; got {self.alpha!r}")
        norm = self.length_norm
        if not isinstance(norm, (bool, np.bool_)) and not (
                isinstance(norm, (int, float, np.integer, np.floating)) and 0.0 <= norm <= 1.0):
            raise InputError(f"length_norm must be true, false or a number in [0, 1]; got {norm!r}")

    def _norm(self):
        """``length_norm`` as the bool or float :func:`~textnb.apps.spamlite.length_divisor` reads."""
        norm = self.length_norm
        return bool(norm) if isinstance(norm, (bool, np.bool_)) else float(norm)

    # -- counting --------------------------------------------------------------------------
    @all_or_nothing
    def fit(self, X, y):
        """Count token presence per class; returns self."""
        for k in ("classes_", "vocabulary_", "feature_count_", "class_count_", "_index", "_cache"):
            self.__dict__.pop(k, None)
        return self.partial_fit(X, y, classes=np.unique(_labels(y)))

    @all_or_nothing
    def partial_fit(self, X, y, classes=None):
        """Add messages to the counts (the first call needs ``classes``, two labels; later
        calls may repeat them, unchanged)."""
        self._update(X, y, classes, +1)
        return self

    def forget(self, X, y):
        """Remove messages that were added before (counts never go below zero)."""
        if not hasattr(self, "classes_"):
            raise ValueError("the model has no counts to forget from")
        self._update(X, y, None, -1)
        return self

    def _update(self, X, y, classes, sign):
        self._check_params()
        X = list(X)
        y = _labels(y)
        if len(X) != len(y):
            raise InputError(f"{len(X)} documents but {len(y)} labels")
        classes, first = partial_fit_classes(self, None if classes is None else _labels(classes))
        if first:
            if len(classes) != 2:
                raise InputError(f"a spam scorer needs exactly two classes; got {list(classes)}")
            self.classes_ = classes
            self.vocabulary_ = np.array([], dtype=object)
            self.feature_count_ = np.zeros((2, 0), dtype=np.int64)
            self.class_count_ = np.zeros(2, dtype=np.int64)
        unknown = ~np.isin(y, self.classes_)
        if unknown.any():
            raise InputError(f"unknown labels {sorted(set(y[unknown].tolist()), key=str)}; the model has "
                             f"{self.classes_.tolist()}")
        index = self._token_index()
        new = {}
        rows, cols = [], []
        for doc, label in zip(X, y):
            c = int(label == self.classes_[1])
            for tok in _unique_tokens(doc):
                j = index.get(tok)
                if j is None:
                    j = new.get(tok)
                    if j is None:
                        if sign < 0:
                            raise ValueError("cannot forget documents that were never learned "
                                             f"(token {tok!r} was never counted)")
                        if "\n" in tok or not tok:
                            raise InputError(f"a token may not be empty or hold a newline: {tok!r}")
                        j = new[tok] = len(index) + len(new)
                rows.append(c)
                cols.append(j)
        counts = self.feature_count_
        if new:  # new tokens are appended; the vocabulary is sorted when saved
            counts = np.concatenate([counts, np.zeros((2, len(new)), dtype=np.int64)], axis=1)
            self.vocabulary_ = np.concatenate([self.vocabulary_.astype(object), np.array(list(new), dtype=object)])
            index.update(new)
        else:
            counts = counts.copy()
        np.add.at(counts, (np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)), sign)
        docs = np.bincount((y == self.classes_[1]).astype(np.int64), minlength=2) * sign
        class_count = self.class_count_ + docs
        if (counts < 0).any() or (class_count < 0).any() or (counts > class_count[:, None]).any():
            raise ValueError("cannot forget documents that were never learned (counts would go negative)")
        if sign < 0:  # a token no remaining message has leaves the vocabulary, as in a fresh fit (the
            gone = ~counts.any(axis=0)  # multinomial scores a known token of no count, and counts the tokens)
            if gone.all():
                raise ValueError("cannot forget these messages: no token would be left in the model (an empty "
                                 "vocabulary, which a model file cannot hold); train a new model instead")
            if gone.any():
                counts = counts[:, ~gone]
                self.vocabulary_ = self.vocabulary_[~gone]
                self.__dict__.pop("_index", None)
        self.feature_count_ = counts
        self.class_count_ = class_count
        self.__dict__.pop("_cache", None)

    def _token_index(self):
        index = self.__dict__.get("_index")
        if index is None:
            index = self._index = dict(zip(self.vocabulary_.tolist(), range(len(self.vocabulary_))))
        return index

    # -- model files ---------------------------------------------------------------------
    def _get_state(self):
        # tokens sorted (the same counts always give the same file), stored as one UTF-8
        # byte array separated by newlines: a fixed-width string array would take the
        # longest token's width for every token
        tokens = self.vocabulary_.tolist()
        order = sorted(range(len(tokens)), key=tokens.__getitem__)
        joined = "\n".join(tokens[j] for j in order).encode("utf-8", "surrogatepass")
        return {"classes_": self.classes_, "tokens_utf8_": np.frombuffer(joined, dtype=np.uint8),
                "feature_count_": self.feature_count_[:, np.asarray(order, dtype=np.int64)],
                "class_count_": self.class_count_}

    def _set_state(self, state):
        classes = np.asarray(state["classes_"])
        if classes.dtype.kind in "SO":
            classes = classes.astype(str)
        raw = np.asarray(state["tokens_utf8_"])
        counts = np.asarray(state["feature_count_"])
        class_count = np.asarray(state["class_count_"])
        if raw.dtype != np.uint8 or raw.ndim != 1:
            raise ValueError("the token array is not UTF-8 bytes")
        text = raw.tobytes().decode("utf-8", "surrogatepass")
        vocab = text.split("\n") if counts.ndim == 2 and counts.shape[1] else []
        if not vocab:  # registering refuses it; a file holding one is crafted or damaged
            raise ValueError("empty vocabulary: the model holds no tokens")
        if classes.shape != (2,) or counts.shape != (2, len(vocab)) or class_count.shape != (2,) \
                or counts.dtype.kind not in "iu" or class_count.dtype.kind not in "iu":
            raise ValueError("arrays of inconsistent shapes or types")
        if (counts < 0).any() or (class_count < 0).any() or (counts > class_count[:, None]).any():
            raise ValueError("negative counts, or more messages per token than in its class")
        self.classes_ = classes
        self.vocabulary_ = np.array(vocab, dtype=object)
        if len(set(vocab)) != len(vocab):
            raise ValueError("the vocabulary lists a token twice")
        self.feature_count_ = counts.astype(np.int64)
        self.class_count_ = class_count.astype(np.int64)

    def save(self, path):
        """Write the fitted scorer to a ``.tnb`` model file (atomically, no pickle), with
        its compact form in front (:meth:`lite_scorer`; the spam filter's fast path reads it)."""
        from textnb.core.model_io import save

        self._check_fitted()
        save(self, path)

    def lite_scorer(self):
        """A :class:`~textnb.apps.spamlite.LiteScorer` of this fitted model (its per-token
        weights, :func:`~textnb.apps.spamlite.compact_weights`), which gives the very floats
        of :meth:`decision_function`; None for ``method="geometric"`` or classes other than
        ham and spam."""
        self._check_fitted()
        if self.method not in ("multinomial", "fisher") or label_names(self) != ["ham", "spam"]:
            return None
        self._check_params()
        tokens = self.vocabulary_.tolist()
        order = sorted(range(len(tokens)), key=tokens.__getitem__)  # the same counts, the same bytes
        counts = self.feature_count_[:, np.asarray(order, dtype=np.int64)].tolist()
        kept, weights = compact_weights(self.method, [tokens[j] for j in order], counts[1], counts[0],
                                        self.class_count_.tolist(), alpha=float(self.alpha), robs=float(self.robs),
                                        robx=float(self.robx), min_dev=float(self.min_dev))
        prior = 0.0
        if self.method == "multinomial":
            n_h, n_s = (float(v) for v in self.class_count_)
            prior = math.log(n_s) - math.log(n_h) if n_s and n_h else (math.inf if n_s else -math.inf)
        return LiteScorer(kept, weights, method=self.method,
                          max_tokens=None if self.max_tokens is None else int(self.max_tokens),
                          length_norm=self._norm() if self.method == "multinomial" else False, prior=prior)

    def _compact_form(self):
        """What :func:`textnb.core.model_io.save` writes in front of the archive: the
        :meth:`lite_scorer` encoded (:func:`~textnb.apps.spamlite.encode_compact`), or None."""
        scorer = self.lite_scorer() if hasattr(self, "classes_") else None
        return None if scorer is None else encode_compact(scorer)

    # -- scoring ---------------------------------------------------------------------------
    def _token_weights(self):
        """Per token: ln f, ln(1 - f), |f - 1/2| (Robinson), or the NB log-likelihood ratio."""
        cache = self.__dict__.get("_cache")
        key = self.get_params()
        if cache is not None and cache[0] == key:
            return cache[1]
        g = self.feature_count_[0].astype(np.float64)
        b = self.feature_count_[1].astype(np.float64)
        n_h, n_s = (float(v) for v in self.class_count_)
        if self.method == "multinomial":
            a, v = float(self.alpha), len(g)
            with np.errstate(divide="ignore"):
                prior = math.log(n_s) - math.log(n_h) if n_s and n_h else (math.inf if n_s else -math.inf)
            # the per-token weights are computed for the tokens scored (_multinomial_llr), so
            # scoring one message after each partial_fit costs its own tokens, not the vocabulary
            weights = {"log_b": math.log(b.sum() + a * v), "log_g": math.log(g.sum() + a * v), "prior": prior}
        else:
            n = g + b
            if n_h and n_s:
                with np.errstate(invalid="ignore", divide="ignore"):
                    p = b * n_h / (b * n_h + g * n_s)
                p = np.where(n > 0, p, self.robx)
            else:
                p = np.full(len(n), self.robx)
            f = (self.robs * self.robx + n * p) / (self.robs + n)
            f = np.clip(np.where(n > 0, f, self.robx), 1e-9, 1.0 - 1e-9)
            with np.errstate(divide="ignore"):
                weights = {"ln_f": np.log(f), "ln_1mf": np.log1p(-f), "dev": np.abs(f - 0.5)}
            weights["use"] = weights["dev"] >= self.min_dev
        self._cache = (key, weights)
        return weights

    def token_log_odds(self):
        """Each token's spam log-odds as this model weighs it, in ``vocabulary_``'s order:
        ``log f(w) - log(1 - f(w))`` of Robinson's token probability (fisher, geometric), or
        the log-likelihood ratio of its presence (multinomial: :meth:`_multinomial_llr`).
        What ``textnb inspect`` ranks the most informative tokens by."""
        self._check_fitted()
        w = self._token_weights()
        if self.method == "multinomial":
            return self._multinomial_llr(np.arange(len(self.vocabulary_)), w)
        return w["ln_f"] - w["ln_1mf"]

    def informative_tokens(self, top=10):
        """``{class: [(token, log-odds), ...]}``: the ``top`` tokens that weigh most towards
        each class (:meth:`token_log_odds`; for ``classes_[0]`` negated, so that each list
        reads as log-odds for its class), ties to the token more messages hold, then in
        the tokens' order; a fisher or geometric model's tokens within ``min_dev`` of 1/2,
        which it does not score, are left out. ``textnb inspect``'s list for a spam model."""
        lo = self.token_log_odds()
        held = self.feature_count_.sum(axis=0)
        tokens = np.asarray(self.vocabulary_, dtype=object)
        scored = np.ones(len(lo), dtype=bool) if self.method == "multinomial" else self._token_weights()["use"]
        out = {}
        for k, sign in ((0, -1.0), (1, 1.0)):
            mine = np.flatnonzero(scored & (sign * lo > 0))
            order = mine[np.lexsort((tokens[mine], -held[mine], -sign * lo[mine]))][:int(top)]
            out[str(self.classes_[k])] = [(str(tokens[j]), float(sign * lo[j])) for j in order]
        return out

    def _multinomial_llr(self, ids, w):
        """Log-likelihood ratio of each token id in ``ids``: ``(log(b + alpha) - log_b) -
        (log(g + alpha) - log_g)``, with ``math.log`` element by element (the very floats
        :mod:`textnb.apps.spamlite` computes; numpy's vectorised log may differ in the last
        bit), once per distinct id."""
        if not len(ids):
            return np.zeros(0)
        uniq, inverse = np.unique(ids, return_inverse=True)
        a = float(self.alpha)
        b = (self.feature_count_[1, uniq].astype(np.float64) + a).tolist()
        g = (self.feature_count_[0, uniq].astype(np.float64) + a).tolist()
        log_b = np.fromiter(map(math.log, b), dtype=np.float64, count=len(b))
        log_g = np.fromiter(map(math.log, g), dtype=np.float64, count=len(g))
        return ((log_b - w["log_b"]) - (log_g - w["log_g"]))[inverse]

    def _ids(self, X):
        """Token ids of known tokens of each document: (flat ids, document of each)."""
        index = self._token_index()
        ids, owner = [], []
        get = index.get
        for k, doc in enumerate(X):
            found = [j for j in map(get, _unique_tokens(doc)) if j is not None]
            ids.extend(found)
            owner.extend([k] * len(found))
        return np.asarray(ids, dtype=np.int64), np.asarray(owner, dtype=np.int64)

    def decision_function(self, X):
        """Spam log-odds ``log P(classes_[1]) - log P(classes_[0])`` of each document."""
        self._check_fitted()
        self._check_params()
        X = list(X)
        if not X:
            return np.zeros(0)
        ids, owner = self._ids(X)
        return self._score_ids(ids, owner, len(X))

    def _score_ids(self, ids, owner, n_docs):
        """Log-odds from the known-token ids of ``n_docs`` documents (``owner``: document of each)."""
        if self.method == "fisher":
            return self._fisher(ids, owner, n_docs)
        w = self._token_weights()
        if self.method == "multinomial":
            total = np.bincount(owner, weights=self._multinomial_llr(ids, w), minlength=n_docs)
            if self._norm() not in (False, 0.0):
                n = np.bincount(owner, minlength=n_docs).tolist()
                norm = self._norm()
                total = total / np.array([length_divisor(k, norm) for k in n], dtype=np.float64)
            return total + w["prior"]
        keep = w["use"][ids]
        ids, owner = ids[keep], owner[keep]
        if self.max_tokens is not None and len(ids):
            # the most extreme tokens of each document first; keep the first max_tokens
            order = np.lexsort((-w["dev"][ids], owner))
            ids, owner = ids[order], owner[order]
            starts = np.searchsorted(owner, owner, side="left")
            rank = np.arange(len(owner)) - starts
            keep = rank < int(self.max_tokens)
            ids, owner = ids[keep], owner[keep]
        n = np.bincount(owner, minlength=n_docs)
        sum_ln_f = np.bincount(owner, weights=w["ln_f"][ids], minlength=n_docs)
        sum_ln_1mf = np.bincount(owner, weights=w["ln_1mf"][ids], minlength=n_docs)
        out = np.zeros(n_docs)
        has = n > 0
        # geometric: P = 1 - (prod(1-f))^(1/n), Q = 1 - (prod f)^(1/n), log-odds log P - log Q
        with np.errstate(divide="ignore"):
            log_p = np.log(-np.expm1(sum_ln_1mf[has] / n[has]))
            log_q = np.log(-np.expm1(sum_ln_f[has] / n[has]))
        out[has] = log_p - log_q
        return out

    def _fisher(self, ids, owner, n_docs):
        """Fisher's combining, per document: :func:`~textnb.apps.spamlite.robinson_weight` of
        each known token, :func:`~textnb.apps.spamlite.fisher_log_odds` of the message (the
        functions the numpy-free scorer calls, so both give the same floats)."""
        uniq = np.unique(ids).tolist()
        n_h, n_s = (float(v) for v in self.class_count_)
        b = self.feature_count_[1, uniq].astype(np.float64).tolist()
        g = self.feature_count_[0, uniq].astype(np.float64).tolist()
        robs, robx = float(self.robs), float(self.robx)
        ln_f, ln_1mf, dev = (list(w) for w in zip(*[robinson_weight(bj, gj, n_s, n_h, robs, robx)
                                                      for bj, gj in zip(b, g)])) if uniq else ([], [], [])
        position = dict(zip(uniq, range(len(uniq))))
        docs = [[] for _ in range(n_docs)]
        for j, k in zip(ids.tolist(), owner.tolist()):
            docs[k].append(position[j])
        min_dev = float(self.min_dev)
        max_tokens = None if self.max_tokens is None else int(self.max_tokens)
        return np.array([fisher_log_odds(d, ln_f, ln_1mf, dev, min_dev, max_tokens) for d in docs], dtype=np.float64)

    def predict_log_odds(self, X):
        """Per-class log-odds, shape (n, 2): column 1 is the log-odds of ``classes_[1]``."""
        lo = self.decision_function(X)
        return np.column_stack([-lo, lo])

    def predict_proba(self, X):
        """P(c | x) of each class, the logistic of its log-odds (:meth:`predict_log_odds`): the
        less probable class keeps its resolution where the other rounds to 1 (``1 - P(spam)``
        was 0.0 for a P(ham) of 1e-22)."""
        lo = self.predict_log_odds(X)
        with np.errstate(over="ignore"):
            return 1.0 / (1.0 + np.exp(-lo))

    def predict(self, X):
        lo = self.decision_function(X)  # (first: it says when the scorer is not fitted)
        return self.classes_[(lo > 0).astype(int)]
