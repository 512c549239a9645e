"""The kernel of :class:`~textnb.text.mixed.MixedNB`: naive Bayes over tables with text attributes, without scikit-learn.

:class:`MixedKernel` is the model -- its parameters and defaults (written once,
:data:`MixedKernel.defaults`), what a model file may hold, the fitted parts, the scoring
and the model-file state. It is a thin composite:

* the non-text attributes: a :class:`~textnb.naive_bayes.tabular_kernel.TabularKernel`
  (TabularNB's model, the same parameters);
* each text attribute: a :class:`TextPart`, one count text model (a vectorizer and a
  multinomial or Bernoulli word model, its own class prior left out), fitted by the one
  text trainer (:func:`textnb.text.training.train_text_model`, which writes the
  ``TextClassifier`` node of the model file) and scored by the one text scorer
  (:class:`textnb.text.scorer.TextScorer` of that node, documents in blocks of
  :data:`BLOCK`);
* one class prior, from the class counts with TabularNB's rule.

The model and its maths are described in :mod:`textnb.text.mixed`; the estimator
:class:`~textnb.text.mixed.MixedNB` is the scikit-learn adapter of this kernel (input
validation, tags, ``partial_fit``; its text parts are ``TextClassifier`` estimators built
from the same nodes), and both write the same model file, byte for byte. ``textnb
train`` / ``evaluate`` on a table with text attributes fit this kernel, ``textnb
predict`` builds it from the file (:meth:`MixedKernel.from_tree`), and ``textnb inspect``,
``predict --explain`` and ``merge`` read its parts' nodes (:class:`TextPart`); none imports
scikit-learn.
"""

from types import MappingProxyType

import numpy as np

from textnb.core.errors import InputError
from textnb.core.labels import label_names
from textnb.core.model_io import ModelNode, build
from textnb.core.model_schema import (FEATURE_NAMES, N_FEATURES, Any, Attributes, Classes, Counts, ListOf, Model,
                                      Optional, check_declared, check_params)
from textnb.core.stats import CountTable, merge_aligned
from textnb.core.wrapping import checked_merge
from textnb.io.tables import TEXT, Attribute
from textnb.io.uncertain import UNCERTAIN_KINDS, column_slices
from textnb.naive_bayes.kernels import KERNELS, TableKernel, all_or_nothing
from textnb.naive_bayes.scoring import check_class_labels, check_n_features, fit_classes
from textnb.naive_bayes.tabular_kernel import TabularKernel, merged_attributes

__all__ = ["BLOCK", "MixedKernel", "TextPart", "text_term"]

#: documents a text part scores at once
BLOCK = 2000
_TABULAR_PARAMS = ("nominal", "alpha", "m", "numeric", "bins", "var_smoothing", "class_prior", "interval_fit",
                   "class_values")
_KINDS = ("nominal", "numeric", TEXT) + UNCERTAIN_KINDS
_WORD_MODELS = ("MultinomialNB", "BernoulliNB")


def _is_missing(v):
    return v is None or (isinstance(v, float) and v != v)


class TextPart:
    """One fitted text attribute of a :class:`MixedKernel`: the ``TextClassifier`` node of
    the model file (vectorizer + word model), scored by its :class:`~textnb.text.scorer.TextScorer`.

    ``term(documents)`` is ``log P(d | c)``: the word model's joint log-likelihood with
    its own class prior taken out. What ``textnb inspect``, ``predict --explain`` and
    ``merge`` ask of a part (:meth:`word_model`, :meth:`document_counts`,
    :meth:`linear_weights`, :meth:`merge`) comes from the node too
    (:class:`~textnb.text.nodes.CountTextModel`, the scorer). A node the scorer does not
    read as a linear model (a BernoulliNB with ``alpha=0``) uses the estimator built from
    the node (:attr:`estimator`; scikit-learn imported then), as does a part that holds an
    estimator (:meth:`from_estimator`: the parts of the estimator ``MixedNB``); the two
    give the same answers.
    """

    def __init__(self, node):
        self._read(node)

    def _read(self, node):
        from textnb.text.nodes import CountTextModel
        from textnb.text.scorer import scorer_from_tree

        self._node, self._estimator, self._text = node, None, None
        self._scorer = scorer_from_tree(node)  # (checks the node as load does; None: not read)
        self.classes_ = np.asarray(node.state.get("classes_"))
        if self._scorer is not None:
            self._text = CountTextModel.from_root(node)  # (the word model: checked as load checks it)
            model = node.state["model_"]
            kernel = KERNELS[model.kind]
            params = kernel.params(model.params)
            self._prior = kernel.estimate(params, kernel.from_state(model.state))["class_log_prior_"]

    @classmethod
    def from_estimator(cls, estimator):
        """A part that holds a fitted ``TextClassifier`` (a merged one, or the estimator's part)."""
        if isinstance(estimator, TextPart):
            return estimator
        part = cls.__new__(cls)
        part._node, part._estimator, part._scorer, part._text = None, estimator, None, None
        part.classes_ = np.asarray(estimator.classes_)
        return part

    @property
    def estimator(self):
        """The fitted ``TextClassifier`` of the node (built on first use: scikit-learn)."""
        if self._estimator is None:
            self._estimator = build(self._node, "<text attribute>")  # checked as load checks it
        return self._estimator

    @property
    def vectorizer_(self):
        return self.estimator.vectorizer_

    @property
    def model_(self):
        return self.estimator.model_

    def word_model(self):
        """``(kind, fitted, terms, tokenizer)``: the word model's kind (``MultinomialNB`` or
        ``BernoulliNB``), its fitted attributes (``classes_``, ``feature_count_``, ...; what
        :func:`textnb.evaluation.inspection.term_log_odds` reads), the vocabulary in column
        order and every parameter of the vectorizer (sorted by name)."""
        if self._text is not None:
            from types import SimpleNamespace

            text = self._text
            return (text.kind, SimpleNamespace(**text.fitted()), text.terms(),
                    dict(sorted(text.vectorizer_params.items())))
        clf = self.estimator
        return type(clf.model_).__name__, clf.model_, list(clf.vectorizer_.vocabulary_), clf.vectorizer_.get_params()

    def document_counts(self, document):
        """The vectorizer's counts of one document (str) over the vocabulary, dense."""
        if self._text is not None:
            data, indices, _ = self._scorer._cells([document])
            counts = np.zeros(len(self._scorer.terms))
            counts[indices] = self._scorer.counted(data)
            return counts
        return self.estimator.vectorizer_.transform([document]).toarray().ravel()

    def linear_weights(self):
        """``(W, b, binarize)`` of the word model (its kernel's linear form), as
        :func:`textnb.evaluation.explain.linear_weights` gives them."""
        if self._text is not None:
            return np.ascontiguousarray(self._scorer._weights_t.T), self._scorer.bias, self._scorer.threshold
        form = self.estimator.model_.linear_form()
        return form.weights, form.bias, form.threshold

    def term(self, documents):
        """``log P(d | c)`` of each document, shape (n_documents, n_classes)."""
        if self._scorer is None:
            return text_term(self.estimator, documents)
        documents = list(documents)
        if not documents:
            return np.zeros((0, len(self.classes_)))
        blocks = [self._scorer.predict_joint_log_proba(documents[i:i + BLOCK])
                  for i in range(0, len(documents), BLOCK)]
        return np.concatenate(blocks) - self._prior

    def merge(self, other):
        """Add ``other``'s counts (:func:`textnb.text.nodes.merge_count_models`, which
        :meth:`TextClassifier.merge <textnb.text.classifier.TextClassifier.merge>` calls too):
        from the nodes when both parts are read from them, else by the estimators."""
        theirs = other._text if isinstance(other, TextPart) else None
        if self._text is not None and theirs is not None:
            self._read(self._text.merge(theirs).to_node())
            return self
        merged = self.estimator.merge(other.estimator if isinstance(other, TextPart) else other)
        self._node, self._scorer, self._estimator, self._text = None, None, merged, None
        self.classes_ = np.asarray(merged.classes_)
        return self

    def to_node(self):
        """What the model file holds for this part: the node, or the estimator."""
        return self._node if self._node is not None else self._estimator


def text_term(part, documents):
    """``log P(d | c)`` of a text part: a :class:`TextPart`, or a fitted ``TextClassifier``
    (the estimator's parts): its joint log-likelihood minus its word model's class prior."""
    if isinstance(part, TextPart):
        return part.term(documents)
    return part.predict_joint_log_proba(documents) - part.model_.class_log_prior_


def _templates_checked(node):
    """Whether the unfitted ``vectorizer`` and ``text_model`` nodes among ``node``'s
    parameters (one each, or dicts of them by attribute name) were checked here as
    :func:`~textnb.core.model_io.load` checks them (a Vectorizer's parameters against its
    schema: raises :class:`~textnb.core.errors.ModelFileError` for one load refuses); False
    for another kind, which the estimator (``construct(node)``) checks."""
    from textnb.text.defaults import VECTORIZER_PARAMS
    from textnb.text.scorer import known_template

    for key in ("vectorizer", "text_model"):
        value = node.params.get(key)
        for template in (value.values() if isinstance(value, dict) else [value]):
            if template is None:
                continue
            if not isinstance(template, ModelNode) or template.state:
                return False
            if template.kind == "Vectorizer":
                check_declared(template.kind, VECTORIZER_PARAMS, {}, template.params, {})
            elif not known_template(template):
                return False
    return True


def _template(value, what, name):
    """``(kind, params)`` of a template: a model-file node, an estimator, or None."""
    if value is None:
        return None
    if isinstance(value, ModelNode) and not value.state:
        return value.kind, dict(value.params)
    if hasattr(value, "get_params") and not isinstance(value, type):
        return type(value).__name__, value.get_params(deep=False)
    raise ValueError(f"{what} of text attribute {name!r} must be a textnb model; got {value!r}")


class MixedKernel(TableKernel):
    """The model of :class:`~textnb.text.mixed.MixedNB` without scikit-learn.

    Takes the same keyword parameters (``MixedKernel.defaults``; ``vectorizer`` and
    ``text_model`` as model-file nodes, ``ModelNode("Vectorizer", params, {})`` and
    ``ModelNode("MultinomialNB", params, {})``, or the estimators, or dicts of them by
    attribute name) and has the same fitted attributes, ``fit``, ``merge``, ``predict*``,
    ``predict_attribute_terms``, ``describe`` and model-file state (its ``tabular_`` is a
    :class:`~textnb.naive_bayes.tabular_kernel.TabularKernel`, its ``text_models_``
    :class:`TextPart` objects). The documentation of the parameters and of the model is
    the estimator's.
    """

    kind = "MixedNB"
    defaults = MappingProxyType({**TabularKernel.defaults, "vectorizer": None, "text_model": None})
    #: the text parts' templates are compared by their merge (tokenizer and model settings)
    merge_ignores = ("attributes", "vectorizer", "text_model")
    _param_schema = {**TabularKernel._param_schema, "vectorizer": Any(), "text_model": Any()}
    _state_schema = {
        "classes_": Classes(),
        "class_count_": Counts(("n_classes",)),
        "attributes_": Attributes(length=None),
        "n_features_in_": N_FEATURES,
        "tabular_": Optional(Model(("TabularNB", "TabularKernel"), dims={"classes_": "n_classes"},
                                   equal={"classes_": "classes_"})),
        "text_models_": ListOf(Model(("TextClassifier", "TextPart"), dims={"classes_": "n_classes"},
                                     equal={"classes_": "classes_"})),
        "feature_names_in_": FEATURE_NAMES,
    }
    #: the class of the tabular part (the estimator's: TabularNB)
    _tabular_class = TabularKernel
    #: the vectorizers of text parts (the estimator takes a TfidfVectorizer too)
    _vectorizer_kinds = ("Vectorizer",)

    # -- parts ----------------------------------------------------------------------
    def _tabular_template(self, **more):
        return self._tabular_class(**{k: getattr(self, k) for k in _TABULAR_PARAMS}, **more)

    def _per_attribute(self, param, name):
        value = getattr(self, param)
        if isinstance(value, dict):
            unknown = sorted(set(value) - {a.name for a in self.attributes_ if a.kind == TEXT})
            if unknown:
                raise ValueError(f"{param} names {unknown}, which are not text attributes")
            value = value.get(name)
        return value

    def _text_settings(self, name):
        """``(vectorizer params, (word model kind, params))`` of text attribute ``name``."""
        vec = _template(self._per_attribute("vectorizer", name), "vectorizer", name) or ("Vectorizer", {})
        if vec[0] not in self._vectorizer_kinds:
            raise ValueError(f"vectorizer of text attribute {name!r} must be a textnb Vectorizer; "
                             f"got {self._per_attribute('vectorizer', name)!r}")
        model = _template(self._per_attribute("text_model", name), "text_model", name) or ("MultinomialNB", {})
        if model[0] not in _WORD_MODELS:
            raise ValueError(
                f"text_model of text attribute {name!r} must be a MultinomialNB or BernoulliNB "
                f"(a likelihood of the document given the class); got {model[0]}"
            )
        # the one prior is the model's
        return vec[1], (model[0], {**model[1], "fit_prior": False, "class_prior": None})

    def _fit_text(self, name, documents, y, sample_weight, classes):
        """The fitted part of text attribute ``name``: the one text trainer's node, with
        ``classes`` (the model's, in its order: declared classes no document has included)."""
        from textnb.text.training import train_text_model

        vectorizer, model = self._text_settings(name)
        with _naming(name):
            node, _ = train_text_model(documents, y, vectorizer=vectorizer, model=model, n_jobs=1,
                                       sample_weight=sample_weight, classes=classes)
        return self._text_part(node)

    def _text_part(self, node):
        return TextPart(node)

    def _frame_in(self, X, *, first, batch=False):
        """A pandas DataFrame read as TabularNB reads it (:meth:`TabularKernel._frame_in
        <textnb.naive_bayes.tabular_kernel.TabularKernel._frame_in>`, :mod:`textnb.io.frames`:
        object, string, category and bool columns nominal, numbers numeric), and the
        attributes it declares when fitting without ``attributes`` (else None). With declared
        text attributes the frame is handed on as it is (text cells stay strings)."""
        return TabularKernel._frame_in(self, X, first=first, batch=batch)

    def _resolve_attributes(self, n_features, frame=None):
        if self.attributes is None and frame is not None:  # a DataFrame's columns
            return [Attribute(a.name, a.kind, list(a.values)) for a in frame]
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
        """``(X, y)``: ``X`` a 2-D array (object: text cells stay strings), ``n_features_in_``
        set (``reset``) or checked; numpy's checks (the estimator's are scikit-learn's)."""
        if isinstance(X, (list, tuple)):
            X = np.array(X, dtype=object)
            if X.ndim == 1 and len(X) and isinstance(X[0], (list, tuple)):
                raise ValueError("X rows have different lengths")
        X = np.asarray(X)
        if X.ndim != 2:
            raise ValueError(f"Expected a 2-D table (rows of attribute values); got an array of {X.ndim} dimensions")
        if X.shape[0] < 1:
            raise ValueError(f"Found a table with 0 rows (shape={X.shape}) while a minimum of 1 is required.")
        X = check_n_features(self, X, reset=reset)
        if y is None:
            return X, None
        y = np.asarray(y)
        if y.ndim != 1 or y.shape[0] != X.shape[0]:
            raise ValueError(f"y must hold one class label per row of X ({X.shape[0]}); got shape {y.shape}")
        check_class_labels(y)
        return X, y

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
        try:
            return block.astype(np.float64), docs
        except ValueError:  # (a TypeError, of a cell that is no number at all, is scikit-learn's to see)
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
    @all_or_nothing
    def fit(self, X, y, sample_weight=None):
        """Fit from ``X`` (object array, text cells str) and class labels ``y``; returns self."""
        check_params(self._tabular_template())
        X, frame = self._frame_in(X, first=True)
        X, y = self._validate(X, y, reset=True)
        self.attributes_ = self._resolve_attributes(X.shape[1], frame)
        X_tab, docs = self._split(X)
        classes, y_index = fit_classes(y, self.class_values)
        w = TabularKernel._check_weight(sample_weight, X.shape[0])
        tabular = None
        if X_tab is not None:
            tabular = self._tabular_template(attributes=tuple(self._tabular_attributes()))
            tabular.fit(X_tab, y, sample_weight=sample_weight)
        texts = [self._fit_text(self.attributes_[j].name, d, y, sample_weight, classes)
                 for j, d in zip(self._text_positions(), docs)]
        self.classes_ = classes
        self.class_count_ = np.bincount(y_index, weights=w, minlength=len(classes)).astype(np.float64)
        self.tabular_, self.text_models_ = tabular, texts
        self._update()
        return self

    def _update(self):
        self.class_log_prior_ = self._tabular_template()._class_log_prior(self.class_count_)

    @checked_merge
    def merge(self, other):
        """Add the statistics of ``other`` (same parameters and attributes) into this model.

        Training on two parts and merging gives the model trained on the whole (text
        vocabularies are united; without ``min_df`` / ``max_df`` / ``max_features``
        pruning, which needs the whole data). Classes are aligned by name, and so are the
        values of nominal attributes (:func:`~textnb.naive_bayes.tabular_kernel.merged_attributes`,
        TabularNB's alignment: a CSV part numbers its values in the order it meets them).
        """
        self._check_fitted()
        other._check_fitted()
        if type(other) is not type(self):
            raise ValueError(f"cannot merge a {type(other).__name__} into a {type(self).__name__}")
        attributes, _ = merged_attributes(self.attributes_, other.attributes_, "MixedNB")
        self._check_same_settings(other)
        if self.tabular_ is not None:
            self.tabular_.merge(other.tabular_)
        for j, mine, theirs in zip(self._text_positions(), self.text_models_, other.text_models_):
            with _naming(self.attributes_[j].name):
                mine.merge(theirs)
        classes, table = merge_aligned(
            [(m.classes_, CountTable.from_arrays(m.class_count_, np.zeros((len(m.classes_), 0)))) for m in (self, other)])
        self.classes_, self.class_count_ = classes, table.class_count
        self.attributes_ = attributes  # (the non-text ones are the tabular part's merged ones)
        self._update()
        return self

    # -- prediction ---------------------------------------------------------------------
    def _check_X(self, X):
        X, _ = self._frame_in(X, first=False)
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
        for j, part, d in zip(self._text_positions(), self.text_models_, docs):
            out[self.attributes_[j].name] = text_term(part, d)
        if not out:
            out["<none>"] = np.zeros((n, len(self.classes_)))
        return out

    def predict_attribute_terms(self, X):
        """Each attribute's per-class log-likelihood term, for explanations.

        Returns ``(prior, terms)``: ``class_log_prior_`` and a dict mapping every
        attribute name to an array (n_samples, n_classes); ``prior + Σ terms`` is
        :meth:`predict_joint_log_proba`. A missing value's term is 0.
        """
        self._check_fitted()
        return self.class_log_prior_.copy(), self._terms(self._check_X(X), per_attribute=True)

    # -- inspection, model files -----------------------------------------------------------
    def describe(self):
        """The fitted model as plain data (JSON-serialisable), for ``textnb inspect``.

        As :meth:`TabularNB.describe`, with the text attributes among ``attributes``
        (in column order): ``{"name", "kind": "text", "model": "multinomial" or
        "bernoulli", "vocabulary_size", "tokenizer"}``.
        """
        self._check_fitted()
        tab = iter(self.tabular_.describe()["attributes"] if self.tabular_ is not None else [])
        texts = iter(self.text_models_)
        atts = []
        for a in self.attributes_:
            if a.kind != TEXT:
                atts.append(next(tab))
                continue
            kind, _, terms, tokenizer = TextPart.from_estimator(next(texts)).word_model()
            atts.append({
                "name": a.name,
                "kind": TEXT,
                "model": "bernoulli" if kind == "BernoulliNB" else "multinomial",
                "vocabulary_size": len(terms),
                "tokenizer": {k: v for k, v in tokenizer.items()
                              if isinstance(v, (str, int, float, bool, type(None), tuple, list))},
            })
        return {
            "model": "MixedNB",
            "classes": label_names(self),
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

    def to_node(self):
        """The model file's node: the estimator's kind, parameters and state, the parts as
        their nodes (a template estimator among the parameters as it is)."""
        node = super().to_node()
        if node.state.get("tabular_") is not None:
            node.state["tabular_"] = node.state["tabular_"].to_node()
        node.state["text_models_"] = [p.to_node() if isinstance(p, TextPart) else p
                                      for p in node.state["text_models_"]]
        return node

    @classmethod
    def from_tree(cls, node, construct):
        """The kernel of a model file's ``MixedNB`` node whose inner nodes are not built yet
        (:func:`textnb.core.model_io.build` with ``kernel=True``): the tabular part's kernel
        (``construct(node, kernel=True)``), a :class:`TextPart` of each text node, checked
        as :func:`~textnb.core.model_io.load` checks the estimator. A text node the scorer
        does not read (inconsistent, or not linear) makes it the estimator
        (``construct(node)``), which reports or scores it as ``load`` does."""
        from textnb.core.model_io import instantiate

        if not _templates_checked(node):
            return construct(node)
        if not node.state:  # an unfitted template (APNBC's estimator parameter)
            return instantiate(cls, ModelNode(node.kind, dict(node.params), {}))
        texts = node.state.get("text_models_")
        if not isinstance(texts, list) or not all(isinstance(t, ModelNode) and t.kind == "TextClassifier"
                                                  for t in texts):
            return construct(node)
        parts = [TextPart(t) for t in texts]
        if any(p._scorer is None for p in parts):
            return construct(node)
        state = dict(node.state)
        tabular = state.get("tabular_")
        if tabular is not None:
            state["tabular_"] = construct(tabular, kernel=True)
        state["text_models_"] = parts
        return instantiate(cls, ModelNode(node.kind, dict(node.params), state))

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
            if not isinstance(self.tabular_, TabularKernel) or self.tabular_.attributes_ != tab_atts:
                raise ValueError("the tabular part's attributes differ from the model's non-text attributes")
            if not np.array_equal(np.asarray(self.tabular_.classes_), self.classes_):
                raise ValueError("the tabular part's classes differ from the model's")
        self.text_models_ = list(self.text_models_)
        n_text = len(self._text_positions())
        if len(self.text_models_) != n_text:
            raise ValueError(f"{len(self.text_models_)} text models for {n_text} text attributes")
        for part in self.text_models_:
            self._check_text_part(part)
            if not np.array_equal(np.asarray(part.classes_), self.classes_):
                raise ValueError("a text part's classes differ from the model's")
        self._update()

    @staticmethod
    def _check_text_part(part):
        if isinstance(part, TextPart):
            model = part.to_node().state["model_"] if part._node is not None else None
            kind = model.kind if model is not None else type(part.estimator.model_).__name__
        else:
            kind = type(getattr(part, "model_", None)).__name__ if type(part).__name__ == "TextClassifier" else None
        if kind not in _WORD_MODELS:
            raise ValueError("a text part is not a TextClassifier with a MultinomialNB or BernoulliNB")


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
