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
left out. The model is :class:`textnb.text.mixed_kernel.MixedKernel` (no scikit-learn:
what ``textnb train`` / ``predict`` / ``evaluate`` use); :class:`MixedNB` is its
scikit-learn adapter (input validation, tags, ``partial_fit``), whose text parts are
the ``TextClassifier`` estimators of the nodes the one text trainer fits. All the state is sums (counts, moments, kernel centres), so ``fit``,
``partial_fit`` (text vocabularies grow), :meth:`MixedNB.merge` and model files agree
exactly, as they do for the parts.

Input: ``X`` is a 2-D array of dtype object (a table from :func:`textnb.io.tables.read_table`
with text attributes), one column per attribute (uncertain ones span several, as in
TabularNB): a text cell is a ``str`` (None, NaN or ``""``: an empty document, which
adds nothing to a multinomial term), every other cell the float of TabularNB's
convention (a nominal value index, a number, NaN for missing).
"""

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from textnb.core.model_io import build, register
from textnb.core.model_schema import check_params
from textnb.io.frames import encodable, encode_frame, is_frame, with_values_of
from textnb.naive_bayes.base import BaseNB, check_partial_fit_labels, partial_fit_classes
from textnb.naive_bayes.scoring import class_positions
from textnb.naive_bayes.discrete import BernoulliNB, MultinomialNB
from textnb.naive_bayes.kernels import takes_defaults
from textnb.naive_bayes.tabular import TabularNB
from textnb.text.classifier import TextClassifier
from textnb.text.mixed_kernel import MixedKernel, _naming
from textnb.text.vectorizer import Vectorizer

__all__ = ["MixedNB"]


def _check_sorted_classes(classes, y, what):
    """ValueError when the text parts of ``what`` (whose classes are sorted labels: a
    ``TextClassifier`` fitted on ``y``, or given ``classes`` on a first ``partial_fit``)
    would not have the model's ``classes`` (declared ``class_values``) in their order."""
    want = np.asarray(classes)
    got = np.unique(want if y is None else np.asarray(y))
    if not np.array_equal(want, got):
        raise ValueError(f"class_values {want.tolist()} are not the sorted classes of the training rows "
                         f"({got.tolist()}), which {what} gives a text attribute's model; use fit with "
                         "count vectorizers, or leave class_values out")


@register
class MixedNB(MixedKernel, BaseNB):
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
    nominal, alpha, m, numeric, bins, var_smoothing, class_prior, interval_fit, class_values
        The non-text attributes' estimators, the class prior and the declared classes
        (kept, in their order, by the text attributes' models too), exactly as
        :class:`~textnb.naive_bayes.tabular.TabularNB`'s parameters of the same names.
        Declared classes in an order other than the sorted one, or that the training
        rows lack, need ``fit`` and count vectorizers (``partial_fit`` and a
        ``TfidfVectorizer`` part order their classes as the rows give them: a
        ValueError says so).
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
    classes_, class_count_, class_log_prior_
        As in :class:`~textnb.naive_bayes.tabular.TabularNB` (the one prior of the text and
        the other attributes).
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

    _tabular_class = TabularNB
    _vectorizer_kinds = ("Vectorizer", "TfidfVectorizer")

    @takes_defaults(MixedKernel)
    def __init__(self, *, attributes, nominal, alpha, m, numeric, bins, var_smoothing, class_prior, interval_fit,
                 class_values, vectorizer, text_model):
        # the kernel's __init__ stores them (scikit-learn's rule: nothing else)
        super().__init__(attributes=attributes, nominal=nominal, alpha=alpha, m=m, numeric=numeric, bins=bins,
                         var_smoothing=var_smoothing, class_prior=class_prior, interval_fit=interval_fit,
                         class_values=class_values, vectorizer=vectorizer, text_model=text_model)

    _tags = {"input_tags.allow_nan": True}
    save = BaseNB.save

    # -- the estimator's side, where the kernel has its own ---------------------------------
    def _validate(self, X, y=None, reset=True):
        if isinstance(X, (list, tuple)):
            X = np.array(X, dtype=object)
            if X.ndim == 1 and len(X) and isinstance(X[0], (list, tuple)):
                raise ValueError("X rows have different lengths")
        kw = dict(dtype=None, ensure_all_finite=False, reset=reset)
        if y is None:
            return validate_data(self, X, **kw), None
        X, y = validate_data(self, X, y, **kw)
        check_classification_targets(y)
        return X, y

    def _text_part(self, node):
        """The ``TextClassifier`` estimator of the text trainer's node (as ``load`` builds it)."""
        return build(node, "<text attribute>")

    def _new_text_model(self, name):
        vectorizer, (kind, params) = self._text_settings(name)
        template = self._per_attribute("vectorizer", name)
        model = {"MultinomialNB": MultinomialNB, "BernoulliNB": BernoulliNB}[kind](**params)
        return TextClassifier(vectorizer=type(template)(**vectorizer) if isinstance(template, Vectorizer)
                              else Vectorizer(**vectorizer), model=model, n_jobs=1)

    def _fit_text(self, name, documents, y, sample_weight, classes):
        if type(self._per_attribute("vectorizer", name)).__name__ == "TfidfVectorizer":
            _check_sorted_classes(classes, y, f"a TfidfVectorizer (text attribute {name!r})")
            with _naming(name):  # not a count vectorizer, so not the text trainer's: the estimator fits it
                return self._new_text_model(name).fit(documents, y, sample_weight=sample_weight)
        return super()._fit_text(name, documents, y, sample_weight, classes)

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add a batch; ``classes`` is required on the first call. Text vocabularies grow
        (new words get columns); ``min_df`` / ``max_df`` / ``max_features`` apply in
        ``fit`` only, as for :class:`~textnb.text.classifier.TextClassifier`. A DataFrame's
        later batch adds new nominal values, also to a column the first batch had no known
        value of, as TabularNB's ``partial_fit``."""
        all_classes, first = partial_fit_classes(self, classes)
        if first and any(getattr(a, "is_text", False) for a in self.attributes or ()):
            _check_sorted_classes(all_classes, None, "partial_fit")
        check_params(self._tabular_template())
        if first or not is_frame(X):
            X, frame = self._frame_in(X, first=True, batch=True) if first else (X, None)
        else:  # a later batch: new values widen attributes a DataFrame gave (as TabularNB); declared ones refuse them
            if self.attributes is None:
                self._widen(with_values_of(X, self.attributes_))
            X, frame = (encode_frame(X, self.attributes_, unknown="error") if encodable(self.attributes_) else X), None
        X, y = self._validate(X, y, reset=first)
        attributes = self._resolve_attributes(X.shape[1], frame) if first else self.attributes_
        check_partial_fit_labels(y, all_classes)
        w = TabularNB._check_weight(sample_weight, X.shape[0])
        self.attributes_ = attributes
        X_tab, docs = self._split(X)
        if first:
            tabular = None
            if X_tab is not None:
                tabular = self._tabular_template(attributes=tuple(self._tabular_attributes()))
            texts = [self._new_text_model(self.attributes_[j].name) for j in self._text_positions()]
        else:
            tabular, texts = self.tabular_, self.text_models_
        if tabular is not None:
            tabular.partial_fit(X_tab, y, classes=all_classes, sample_weight=sample_weight)
        for j, clf, d in zip(self._text_positions(), texts, docs):
            with _naming(self.attributes_[j].name):
                clf.partial_fit(d, y, classes=all_classes, sample_weight=sample_weight)
        y_index = class_positions(all_classes, y)
        counts = np.bincount(y_index, weights=w, minlength=len(all_classes)).astype(np.float64)
        self.classes_ = all_classes
        self.class_count_ = counts if first else self.class_count_ + counts
        self.tabular_, self.text_models_ = tabular, texts
        self._update()
        return self

    def _widen(self, attributes):
        """Take ``attributes``: ``attributes_`` with a later batch's new nominal values added;
        the tabular part's count blocks grow by zero columns (TabularNB's :meth:`_widen
        <textnb.naive_bayes.tabular_kernel.TabularKernel._widen>`)."""
        if attributes is self.attributes_:
            return
        self.attributes_ = list(attributes)
        if self.tabular_ is not None:
            tabular = tuple(self._tabular_attributes())
            self.tabular_._widen(list(tabular))
            self.tabular_.attributes = tabular

    def merge(self, other):
        check_is_fitted(self)
        check_is_fitted(other)
        return super().merge(other)

    merge.__doc__ = MixedKernel.merge.__doc__
