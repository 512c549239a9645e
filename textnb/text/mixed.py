"""Naive Bayes over mixed tables: nominal, numeric, uncertain and text attributes in one model.

A record with a text attribute (a mail's subject and body beside its sender domain and
size; a product's title beside its price) is classified by one naive Bayes,

    log P(c | x) = log P(c) + Σ_k log P(x_k | c) + Σ_t log P(d_t | c) + const,

where ``x_k`` are the table's other attributes, each with :class:`~textnb.naive_bayes.tabular.TabularNB`'s
estimator (Witten & Frank, *Data Mining* §4.2; ``../shared/design/algorithms.md`` §1),
and ``d_t`` is the document in text attribute ``t``, a bag of words under the
multinomial event model ``log P(d | c) = Σ_w n_w log θ_cw`` (McCallum & Nigam 1998, "A
comparison of event models for naive Bayes text classification"; the Bernoulli model
on request). Every text attribute has its own vocabulary and its own word
probabilities: the word "free" in a subject and in a body are different features. The
class prior is counted once, and the independence assumption now also treats the
text attributes as independent of the others given the class.

This is a thin composite: a fitted :class:`~textnb.naive_bayes.tabular.TabularNB` over the
non-text columns and one :class:`~textnb.text.classifier.TextClassifier` (a
:class:`~textnb.text.vectorizer.Vectorizer` and a :class:`~textnb.naive_bayes.discrete.MultinomialNB`) per
text attribute; their per-class log-likelihood terms are added, their own class priors
left out. All the state is sums (counts, moments, kernel centres), so ``fit``,
``partial_fit`` (text vocabularies grow), :meth:`MixedNB.merge` and model files agree
exactly, as they do for the parts.

Input: ``X`` is a 2-D array of dtype object (a table from :func:`textnb.io.tables.read_table`
with text attributes), one column per attribute (uncertain ones span several, as in
TabularNB): a text cell is a ``str`` (None, NaN or ``""``: an empty document, which
adds nothing to a multinomial term), every other cell the float of TabularNB's
convention (a nominal value index, a number, NaN for missing).
"""

import numpy as np
from sklearn.base import clone
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from textnb.naive_bayes.base import BaseNB, check_partial_fit_labels, partial_fit_classes
from textnb.text.classifier import TextClassifier
from textnb.core.errors import InputError
from textnb.core.model_io import register
from textnb.core.stats import CountTable, merge_aligned
from textnb.core.model_schema import check_params, FEATURE_NAMES, N_FEATURES, Any, Attributes, Classes, Counts, ListOf, Model, Optional
from textnb.naive_bayes.discrete import BernoulliNB, MultinomialNB
from textnb.io.tables import TEXT, Attribute
from textnb.naive_bayes.tabular import TabularNB
from textnb.text.vectorizer import Vectorizer
from textnb.io.uncertain import UNCERTAIN_KINDS, column_slices

__all__ = ["MixedNB"]

_TABULAR_PARAMS = ("nominal", "alpha", "m", "numeric", "bins", "var_smoothing", "class_prior", "interval_fit")
_KINDS = ("nominal", "numeric", TEXT) + UNCERTAIN_KINDS


def _is_missing(v):
    return v is None or (isinstance(v, float) and v != v)


@register
class MixedNB(BaseNB):
    """Naive Bayes over tables whose attributes may be text: one prior, one model file.

    The non-text attributes are modelled exactly as by :class:`~textnb.naive_bayes.tabular.TabularNB`
    (same parameters), each text attribute by its own bag of words and multinomial
    (or Bernoulli) word probabilities (McCallum & Nigam 1998); the per-class terms are
    summed with one class prior, computed from the class counts with TabularNB's rule.
    Without text attributes the model gives exactly TabularNB's predictions.

    Parameters
    ----------
    attributes : sequence of Attribute, default=None
        Column types, as for TabularNB, plus kind ``"text"`` (``tuple(table.attributes)``
        of a table read with text columns). None: every column numeric.
    nominal, alpha, m, numeric, bins, var_smoothing, class_prior, interval_fit
        The non-text attributes' estimators and the class prior, exactly as
        :class:`~textnb.naive_bayes.tabular.TabularNB`'s parameters of the same names.
    vectorizer : Vectorizer or dict of {str: Vectorizer}, default=None
        Tokenizer settings of the text attributes: one template for all of them, or
        one per attribute name (attributes not named get ``Vectorizer()``, the text
        model's default). Each text attribute gets its own fitted copy.
    text_model : MultinomialNB or BernoulliNB, or dict of {str: estimator}, default=None
        Word model of the text attributes (default ``MultinomialNB()``, the text
        model's default), one template or one per attribute name. Its class prior is
        not used (``fit_prior`` is set to False in the fitted copies): the model's one
        prior is the tabular rule above.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
        Summed sample weight per class.
    class_log_prior_ : ndarray of shape (n_classes,)
    attributes_ : list of Attribute
        All attributes, text ones included, in column order.
    tabular_ : TabularNB or None
        The fitted model of the non-text attributes (None when every attribute is text).
    text_models_ : list of TextClassifier
        One fitted vectorizer + word model per text attribute, in column order.
    n_features_in_ : int

    Examples
    --------
    >>> from textnb.io.tables import Attribute
    >>> from textnb.text.mixed import MixedNB
    >>> atts = (Attribute("subject", "text"), Attribute("size", "numeric"))
    >>> X = [["cheap pills now", 30.0], ["meeting at noon", 12.0],
    ...      ["cheap watches", 28.0], ["noon lunch", 11.0]]
    >>> model = MixedNB(attributes=atts).fit(X, ["spam", "ham", "spam", "ham"])
    >>> model.predict([["cheap lunch pills", float("nan")]]).tolist()
    ['spam']
    """

    _param_schema = {**TabularNB._param_schema, "vectorizer": Any(), "text_model": Any()}
    _state_schema = {
        "classes_": Classes(),
        "class_count_": Counts(("n_classes",)),
        "attributes_": Attributes(length=None),
        "n_features_in_": N_FEATURES,
        "tabular_": Optional(Model(("TabularNB",), dims={"classes_": "n_classes"}, equal={"classes_": "classes_"})),
        "text_models_": ListOf(Model(("TextClassifier",), dims={"classes_": "n_classes"},
                                     equal={"classes_": "classes_"})),
        "feature_names_in_": FEATURE_NAMES,
    }

    def __init__(
        self,
        *,
        attributes=None,
        nominal="additive",
        alpha=1.0,
        m=2.0,
        numeric="gaussian",
        bins=10,
        var_smoothing=1e-9,
        class_prior=None,
        interval_fit="censored",
        vectorizer=None,
        text_model=None,
    ):
        self.attributes = attributes
        self.nominal = nominal
        self.alpha = alpha
        self.m = m
        self.numeric = numeric
        self.bins = bins
        self.var_smoothing = var_smoothing
        self.class_prior = class_prior
        self.interval_fit = interval_fit
        self.vectorizer = vectorizer
        self.text_model = text_model

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    # -- parts ----------------------------------------------------------------------
    def _tabular_template(self):
        return TabularNB(**{k: getattr(self, k) for k in _TABULAR_PARAMS})

    def _per_attribute(self, param, name, default):
        value = getattr(self, param)
        if isinstance(value, dict):
            unknown = sorted(set(value) - {a.name for a in self.attributes_ if a.kind == TEXT})
            if unknown:
                raise ValueError(f"{param} names {unknown}, which are not text attributes")
            value = value.get(name)
        return clone(value) if value is not None else default

    def _new_text_model(self, name):
        vec = self._per_attribute("vectorizer", name, Vectorizer())
        if not isinstance(vec, Vectorizer):
            raise ValueError(f"vectorizer of text attribute {name!r} must be a textnb Vectorizer; got {vec!r}")
        model = self._per_attribute("text_model", name, MultinomialNB())
        if type(model) not in (MultinomialNB, BernoulliNB):
            raise ValueError(
                f"text_model of text attribute {name!r} must be a MultinomialNB or BernoulliNB "
                f"(a likelihood of the document given the class); got {type(model).__name__}"
            )
        model.set_params(fit_prior=False, class_prior=None)  # the one prior is the model's
        return TextClassifier(vectorizer=vec, model=model, n_jobs=1)

    def _resolve_attributes(self, n_features):
        if self.attributes is None:
            names = getattr(self, "feature_names_in_", None)
            names = [str(n) for n in names] if names is not None else [f"x{j}" for j in range(n_features)]
            return [Attribute(n, "numeric", []) for n in names]
        out = []
        for a in self.attributes:
            if not isinstance(a, Attribute):
                raise ValueError(f"attributes must hold textnb.io.tables.Attribute objects; got {a!r}")
            if a.kind not in _KINDS:
                raise ValueError(f"attribute {a.name!r} has kind {a.kind!r}; expected one of {_KINDS}")
            out.append(Attribute(a.name, a.kind, list(a.values)))
        names = [a.name for a in out]
        if len(set(names)) != len(names):
            raise ValueError("attribute names must be unique")
        width = column_slices(out)[-1].stop if out else 0
        if width != n_features:
            raise ValueError(
                f"attributes describe {width} columns ({len(out)} attributes) but X has {n_features}"
            )
        return out

    def _text_positions(self):
        return [j for j, a in enumerate(self.attributes_) if a.kind == TEXT]

    def _tabular_attributes(self):
        return [a for a in self.attributes_ if a.kind != TEXT]

    # -- input ----------------------------------------------------------------------
    def _validate(self, X, y=None, reset=True):
        if isinstance(X, (list, tuple)):
            X = np.array(X, dtype=object)
            if X.ndim == 1 and len(X) and isinstance(X[0], (list, tuple)):
                raise ValueError("X rows have different lengths")
        kw = dict(dtype=None, ensure_all_finite=False, reset=reset)
        if y is None:
            return validate_data(self, X, **kw), None
        return validate_data(self, X, y, **kw)

    def _split(self, X):
        """``(X_tabular float64 or None, [documents per text attribute])``."""
        sl = column_slices(self.attributes_)
        docs, cols = [], []
        for j, a in enumerate(self.attributes_):
            if a.kind == TEXT:
                docs.append(self._documents(X[:, sl[j].start], a))
            else:
                cols.extend(range(sl[j].start, sl[j].stop))
        if not cols:
            return None, docs
        block = X[:, cols]
        if block.dtype.kind in "fiub":
            return block.astype(np.float64), docs
        try:
            return block.astype(np.float64), docs
        except ValueError:
            pass
        # name the first cell that is not a number (a text cell in a numeric column, say)
        owner = [j for j, a in enumerate(self.attributes_) if a.kind != TEXT for _ in range(sl[j].stop - sl[j].start)]
        for c in range(block.shape[1]):
            for i, v in enumerate(block[:, c]):
                try:
                    float(v)
                except (TypeError, ValueError):
                    a = self.attributes_[owner[c]]
                    raise ValueError(
                        f"row {i + 1}: cell {v!r} of {a.kind} attribute {a.name!r} is not a number"
                        + (" (a nominal cell holds the index of its value)" if a.kind == "nominal" else "")
                    ) from None
        raise ValueError("X holds cells that are not numbers")  # pragma: no cover

    @staticmethod
    def _documents(col, attribute):
        out = []
        for i, v in enumerate(col):
            if _is_missing(v):
                out.append("")
            elif isinstance(v, str):
                out.append(v)
            elif isinstance(v, bytes):
                out.append(v.decode("utf-8", "replace"))
            else:
                raise ValueError(
                    f"row {i + 1}: cell {v!r} of text attribute {attribute.name!r} is not a string"
                )
        return out

    # -- fitting ----------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Fit from ``X`` (object array, text cells str) and class labels ``y``; returns self."""
        check_params(self._tabular_template())
        X, y = self._validate(X, y, reset=True)
        check_classification_targets(y)
        self.attributes_ = self._resolve_attributes(X.shape[1])
        X_tab, docs = self._split(X)
        classes, y_index = np.unique(y, return_inverse=True)
        w = TabularNB._check_weight(sample_weight, X.shape[0])
        tabular = None
        if X_tab is not None:
            tabular = self._tabular_template().set_params(attributes=tuple(self._tabular_attributes()))
            tabular.fit(X_tab, y, sample_weight=sample_weight)
        texts = []
        for j, d in zip(self._text_positions(), docs):
            name = self.attributes_[j].name
            clf = self._new_text_model(name)
            with _naming(name):
                clf.fit(d, y, sample_weight=sample_weight)
            texts.append(clf)
        self.classes_ = classes
        self.class_count_ = np.bincount(y_index, weights=w, minlength=len(classes)).astype(np.float64)
        self.tabular_, self.text_models_ = tabular, texts
        self._update()
        return self

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add a batch; ``classes`` is required on the first call. Text vocabularies grow
        (new words get columns); ``min_df`` / ``max_df`` / ``max_features`` apply in
        ``fit`` only, as for :class:`~textnb.text.classifier.TextClassifier`."""
        all_classes, first = partial_fit_classes(self, classes)
        check_params(self._tabular_template())
        X, y = self._validate(X, y, reset=first)
        check_classification_targets(y)
        attributes = self._resolve_attributes(X.shape[1]) if first else self.attributes_
        check_partial_fit_labels(y, all_classes)
        w = TabularNB._check_weight(sample_weight, X.shape[0])
        self.attributes_ = attributes
        X_tab, docs = self._split(X)
        if first:
            tabular = None
            if X_tab is not None:
                tabular = self._tabular_template().set_params(attributes=tuple(self._tabular_attributes()))
            texts = [self._new_text_model(self.attributes_[j].name) for j in self._text_positions()]
        else:
            tabular, texts = self.tabular_, self.text_models_
        if tabular is not None:
            tabular.partial_fit(X_tab, y, classes=all_classes, sample_weight=sample_weight)
        for j, clf, d in zip(self._text_positions(), texts, docs):
            with _naming(self.attributes_[j].name):
                clf.partial_fit(d, y, classes=all_classes, sample_weight=sample_weight)
        y_index = np.searchsorted(all_classes, y)
        counts = np.bincount(y_index, weights=w, minlength=len(all_classes)).astype(np.float64)
        self.classes_ = all_classes
        self.class_count_ = counts if first else self.class_count_ + counts
        self.tabular_, self.text_models_ = tabular, texts
        self._update()
        return self

    def _update(self):
        self.class_log_prior_ = self._tabular_template()._class_log_prior(self.class_count_)

    def merge(self, other):
        """Add the statistics of ``other`` (same parameters and attributes) into this model.

        Training on two parts and merging gives the model trained on the whole (text
        vocabularies are united; without ``min_df`` / ``max_df`` / ``max_features``
        pruning, which needs the whole data). Classes are aligned by name.
        """
        check_is_fitted(self)
        check_is_fitted(other)
        if type(other) is not type(self):
            raise ValueError(f"cannot merge a {type(other).__name__} into a {type(self).__name__}")
        if other.attributes_ != self.attributes_:
            raise ValueError("cannot merge MixedNB models with different attributes")
        if self.tabular_ is not None:
            self.tabular_.merge(other.tabular_)
        for j, mine, theirs in zip(self._text_positions(), self.text_models_, other.text_models_):
            with _naming(self.attributes_[j].name):
                mine.merge(theirs)
        classes, table = merge_aligned(
            [(m.classes_, CountTable.from_arrays(m.class_count_, np.zeros((len(m.classes_), 0)))) for m in (self, other)])
        self.classes_, self.class_count_ = classes, table.class_count
        self._update()
        return self

    # -- prediction ---------------------------------------------------------------------
    def _check_X(self, X):
        X, _ = self._validate(X, reset=False)
        return self._split(X)

    def _joint_log_likelihood(self, parts):
        terms = self._terms(parts)
        return self.class_log_prior_[None, :] + sum(terms.values())

    def _terms(self, parts, per_attribute=False):
        """Per-class log-likelihood terms (no prior): ``{name: (n_samples, n_classes)}``.

        ``"<tabular>"`` holds the sum over the non-text attributes, unless
        ``per_attribute``: then each of them has its own entry (the difference made by
        leaving the attribute out, which is exactly its term: naive Bayes adds them).
        """
        X_tab, docs = parts
        n = len(docs[0]) if docs else X_tab.shape[0]
        out = {}
        if self.tabular_ is not None:
            tab = self.tabular_
            full = tab._joint_log_likelihood(tab._check_X(X_tab)) - tab.class_log_prior_
            if not per_attribute:
                out["<tabular>"] = full
            else:
                sl = column_slices(tab.attributes_)
                for j, a in enumerate(tab.attributes_):
                    Xm = X_tab.copy()
                    Xm[:, sl[j]] = np.nan
                    out[a.name] = full - (tab._joint_log_likelihood(Xm) - tab.class_log_prior_)
        for j, clf, d in zip(self._text_positions(), self.text_models_, docs):
            out[self.attributes_[j].name] = self._text_term(clf, d)
        if not out:
            out["<none>"] = np.zeros((n, len(self.classes_)))
        return out

    @staticmethod
    def _text_term(clf, documents):
        """``log P(d | c)`` of the word model (its own, constant, prior taken out)."""
        return clf.predict_joint_log_proba(documents) - clf.model_.class_log_prior_

    def predict_attribute_terms(self, X):
        """Each attribute's per-class log-likelihood term, for explanations.

        Returns ``(prior, terms)``: ``class_log_prior_`` and a dict mapping every
        attribute name to an array (n_samples, n_classes); ``prior + Σ terms`` is
        :meth:`predict_joint_log_proba`. A missing value's term is 0.
        """
        check_is_fitted(self)
        return self.class_log_prior_.copy(), self._terms(self._check_X(X), per_attribute=True)

    # -- inspection, model files -----------------------------------------------------------
    def describe(self):
        """The fitted model as plain data (JSON-serialisable), for ``textnb inspect``.

        As :meth:`TabularNB.describe`, with the text attributes among ``attributes``
        (in column order): ``{"name", "kind": "text", "model": "multinomial" or
        "bernoulli", "vocabulary_size", "tokenizer"}``.
        """
        check_is_fitted(self)
        tab = self.tabular_.describe()["attributes"] if self.tabular_ is not None else []
        tab = iter(tab)
        texts = iter(self.text_models_)
        atts = []
        for a in self.attributes_:
            if a.kind != TEXT:
                atts.append(next(tab))
                continue
            clf = next(texts)
            atts.append({
                "name": a.name,
                "kind": TEXT,
                "model": "bernoulli" if isinstance(clf.model_, BernoulliNB) else "multinomial",
                "vocabulary_size": len(clf.vectorizer_.vocabulary_),
                "tokenizer": {k: v for k, v in clf.vectorizer_.get_params().items()
                              if isinstance(v, (str, int, float, bool, type(None), tuple, list))},
            })
        return {
            "model": "MixedNB",
            "classes": [str(c) for c in self.classes_],
            "class_count": self.class_count_.tolist(),
            "class_prior": np.exp(self.class_log_prior_).tolist(),
            "nominal": self.nominal,
            "numeric": self.numeric,
            "attributes": atts,
        }

    def _get_state(self):
        state = {
            "classes_": self.classes_,
            "class_count_": self.class_count_,
            "attributes_": list(self.attributes_),
            "n_features_in_": self.n_features_in_,
            "tabular_": self.tabular_,
            "text_models_": list(self.text_models_),
        }
        if hasattr(self, "feature_names_in_"):
            state["feature_names_in_"] = self.feature_names_in_
        return state

    def _set_state(self, state):
        for k, v in state.items():
            setattr(self, k, v)
        self.attributes_ = [
            a if isinstance(a, Attribute) else Attribute(a["name"], a["kind"], list(a["values"]))
            for a in self.attributes_
        ]
        for a in self.attributes_:
            if a.kind not in _KINDS:
                raise ValueError(f"attribute {a.name!r} has unknown kind {a.kind!r}")
        self.classes_ = np.asarray(self.classes_)
        self.class_count_ = np.array(self.class_count_, dtype=np.float64)
        n_classes = self.classes_.shape[0]
        if self.classes_.ndim != 1 or self.class_count_.shape != (n_classes,):
            raise ValueError(f"class counts of shape {self.class_count_.shape} do not fit {n_classes} classes")
        if not np.all(np.isfinite(self.class_count_)) or self.class_count_.min(initial=0) < 0:
            raise ValueError("class counts must be finite and non-negative")
        width = column_slices(self.attributes_)[-1].stop if self.attributes_ else 0
        if int(self.n_features_in_) != width:
            raise ValueError(f"n_features_in_ is {self.n_features_in_} but the attributes span {width} columns")
        tab_atts = self._tabular_attributes()
        if (self.tabular_ is None) != (not tab_atts):
            raise ValueError("the tabular part does not match the non-text attributes")
        if self.tabular_ is not None:
            if not isinstance(self.tabular_, TabularNB) or self.tabular_.attributes_ != tab_atts:
                raise ValueError("the tabular part's attributes differ from the model's non-text attributes")
            if not np.array_equal(np.asarray(self.tabular_.classes_), self.classes_):
                raise ValueError("the tabular part's classes differ from the model's")
        self.text_models_ = list(self.text_models_)
        n_text = len(self._text_positions())
        if len(self.text_models_) != n_text:
            raise ValueError(f"{len(self.text_models_)} text models for {n_text} text attributes")
        for clf in self.text_models_:
            if not isinstance(clf, TextClassifier) or type(clf.model_) not in (MultinomialNB, BernoulliNB):
                raise ValueError("a text part is not a TextClassifier with a MultinomialNB or BernoulliNB")
            if not np.array_equal(np.asarray(clf.classes_), self.classes_):
                raise ValueError("a text part's classes differ from the model's")
        self._update()


class _naming:
    """Prefix errors raised while a text attribute is fitted with the attribute's name."""

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        if isinstance(exc, InputError):
            raise InputError(f"text attribute {self.name!r}: {exc}") from None
        return False
