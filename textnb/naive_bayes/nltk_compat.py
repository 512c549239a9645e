"""NLTK's classifier interface on textnb's tabular engine (``textnb.nltk``).

:class:`NaiveBayesClassifier` is a drop-in for ``nltk.classify.NaiveBayesClassifier``
(NLTK 3.x, ``nltk/classify/naivebayes.py``): the same ``train(labeled_featuresets,
estimator=...)`` classmethod, ``classify``, ``classify_many``, ``prob_classify``,
``prob_classify_many``, ``labels``, ``most_informative_features`` and
``show_most_informative_features``, with NLTK's numbers. Each feature name is a nominal
attribute of a :class:`textnb.naive_bayes.tabular.TabularNB` (its values: every value the
feature took in training, in order of first appearance), fitted with
``nominal="additive"`` and ``alpha`` the estimator's ``γ``:

* ``P(label) = (n_c + γ) / (n + C γ)`` and ``P(f = v | label) = (n_cv + γ) / (n_c + V γ)``,
  ``V`` the number of values of ``f``: NLTK's ``LidstoneProbDist`` family,
  ``ELEProbDist`` (``γ = 0.5``, NLTK's default), ``LaplaceProbDist`` (``γ = 1``),
  ``LidstoneProbDist`` (any ``γ``) and ``MLEProbDist`` (``γ = 0``).
* Missing features are treated as NLTK treats them: a feature absent from a training
  featureset counts as the value ``None`` (so ``None`` is one of its values); a feature
  absent from a featureset being classified, or one never seen in training, is left
  out of the product; a value never seen in training gets the zero-count probability
  ``γ / (n_c + V γ)``.
* With ``γ = 0`` a label whose probability is 0 for some feature value has posterior 0;
  when that is every label, the posterior is uniform (NLTK's ``-1e300`` stand-in for
  ``log 0`` has the same effect).

Training and classifying cost the (feature, value) pairs the featuresets hold, as NLTK's
own implementation: :meth:`NaiveBayesClassifier.train` counts each pair in its label, and a
feature's ``None`` in a label as the label's featuresets less those that have the feature,
then fits the engine from these counts
(:meth:`~textnb.naive_bayes.tabular_kernel.TabularKernel.fit_counts`); classifying adds the
log probabilities of the pairs given to the log prior, read from the engine's table. A bag
of words (``{w: True for w in words}``, NLTK's most common feature style) over tens of
thousands of distinct words costs what its words cost.

Feature values may be any hashable objects, labels too (``most_informative_features``
and ``show_most_informative_features`` sort feature names, values and labels as NLTK
does, so there they must be comparable, as in NLTK).

NLTK itself is not imported unless an NLTK estimator class is passed (importing NLTK
takes seconds), nor is scikit-learn before a classifier is trained (the engine is a
scikit-learn estimator), and NLTK is an optional dependency (``pip install 'textnb[nltk]'``): every
estimator given by name or number works without it; :meth:`NaiveBayesClassifier.prob_classify` returns a :class:`ProbDist`
with NLTK's ``ProbDistI`` reading interface (``prob``, ``logprob`` in base 2 as NLTK's,
``max``, ``samples``).

References
----------
Bird, Klein & Loper, *Natural Language Processing with Python* (O'Reilly 2009), ch. 6.1
and 6.5 (naive Bayes classifiers, the "most informative features" ratio).
"""

import math
import sys
from array import array
from collections.abc import Mapping

import numpy as np

from textnb.core.attributes import Attribute
from textnb.core.logspace import log_proba_from_jll
from textnb.core.stats import CountTable

__all__ = ["AdditiveProbDist", "NaiveBayesClassifier", "ProbDist", "estimator_gamma"]

_LN2 = math.log(2.0)
_NAMED = {"ele": 0.5, "expected-likelihood": 0.5, "laplace": 1.0, "mle": 0.0}


def estimator_gamma(estimator):
    """The additive constant ``γ`` of an estimator given as NLTK's ``train`` takes it.

    Parameters
    ----------
    estimator : None, str, float or callable
        None: ``ELEProbDist`` (0.5, NLTK's default); ``"ele"``, ``"laplace"``, ``"mle"``;
        a number ``γ >= 0`` (Lidstone); or a callable ``estimator(freqdist, bins=B)``
        returning an NLTK ``ProbDistI`` (``ELEProbDist``, ``LaplaceProbDist``,
        ``MLEProbDist``, ``lambda fd, bins=None: LidstoneProbDist(fd, 0.1, bins)``), whose
        ``γ`` is read from its probabilities on a small frequency distribution.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        For an estimator that is not additive smoothing (Witten-Bell, Good-Turing, ...).
    ImportError
        For a callable estimator when NLTK is not installed.
    """
    if estimator is None:
        return 0.5
    if isinstance(estimator, str):
        try:
            return _NAMED[estimator.lower()]
        except KeyError:
            raise ValueError(f"unknown estimator {estimator!r}; expected one of {sorted(_NAMED)}") from None
    if isinstance(estimator, (int, float, np.integer, np.floating)) and not isinstance(estimator, bool):
        gamma = float(estimator)
        if not (gamma >= 0 and math.isfinite(gamma)):
            raise ValueError(f"estimator gamma must be a finite number >= 0; got {estimator!r}")
        return gamma
    if not callable(estimator):
        raise ValueError(f"estimator must be None, a name, a number or an NLTK ProbDist class; got {estimator!r}")
    try:
        from nltk.probability import FreqDist, LidstoneProbDist  # an NLTK estimator: NLTK is loaded
    except ImportError:
        raise ImportError(f"estimator {getattr(estimator, '__name__', estimator)!r} is read as an NLTK ProbDist "
                          f"class, which needs NLTK, and NLTK is not installed: pip install 'textnb[nltk]', or "
                          f"give the estimator by name ({', '.join(map(repr, sorted(_NAMED)))}) or as a number") from None

    # counts a=2, b=1 and bins=3: P(c) = γ / (3 + 3γ) for an additive estimator
    dist = estimator(FreqDist({"a": 2, "b": 1}), bins=3)
    p_unseen, p_a = float(dist.prob("c")), float(dist.prob("a"))
    if isinstance(dist, LidstoneProbDist):  # ELE, Laplace, Lidstone: γ as given, not as probed
        gamma = float(dist._gamma)
    else:
        gamma = 3 * p_unseen / (1 - 3 * p_unseen) if p_unseen < 1 / 3 else math.inf
    if not (math.isfinite(gamma) and gamma >= 0
            and math.isclose(p_a, (2 + gamma) / (3 + 3 * gamma), rel_tol=1e-9, abs_tol=1e-15)):
        name = getattr(estimator, "__name__", repr(estimator))
        raise ValueError(
            f"estimator {name} is not additive smoothing ((count + gamma) / (N + bins * gamma)); "
            "textnb's NaiveBayesClassifier supports ELEProbDist, LaplaceProbDist, LidstoneProbDist "
            "and MLEProbDist"
        )
    return gamma


class ProbDist:
    """A discrete distribution over labels with NLTK's ``ProbDistI`` reading interface.

    Parameters
    ----------
    log2_probs : dict
        Label -> base-2 log probability (normalised), in the classifier's label order.
    """

    SUM_TO_ONE = True

    def __init__(self, log2_probs):
        self._log2 = dict(log2_probs)

    def prob(self, sample):
        """``P(sample)`` (0 for a sample that is not a label)."""
        lp = self._log2.get(sample)
        return 0.0 if lp is None else 2.0 ** lp

    def logprob(self, sample):
        """``log2 P(sample)`` (NLTK's logs are base 2); ``-inf`` for probability 0."""
        lp = self._log2.get(sample)
        return -math.inf if lp is None else lp

    def max(self):
        """The most probable label; among equals the largest label, as NLTK's
        ``max((p, label))`` (labels that do not compare: the first in label order)."""
        try:
            return max((lp, label) for label, lp in self._log2.items())[1]
        except TypeError:
            return max(self._log2, key=self._log2.get)

    def samples(self):
        """The labels, in the classifier's order."""
        return list(self._log2)

    def discount(self):
        return 0.0

    def generate(self, random_state=None):
        """A sample drawn from the distribution over :meth:`samples` (``random_state``: None,
        int or Generator)."""
        rng = np.random.default_rng(random_state)
        samples = list(self.samples())
        p = np.array([self.prob(s) for s in samples])
        return samples[int(rng.choice(len(samples), p=p / p.sum()))]

    def __repr__(self):
        return f"<ProbDist with {len(self._log2)} samples>"


class AdditiveProbDist(ProbDist):
    """``P(sample) = (c + γ) / (N + B γ)`` of counts, with the reading interface of NLTK's
    ``LidstoneProbDist`` family (``ELEProbDist``, ``LaplaceProbDist``; ``MLEProbDist`` for
    ``γ = 0``), the floats computed as NLTK computes them: what
    :attr:`NaiveBayesClassifier._label_probdist` and ``_feature_probdist`` hold.

    Parameters
    ----------
    counts : dict
        Sample -> count, the samples with a count above 0 (:meth:`samples`), in order.
    bins : int
        ``B``, the number of possible samples (a sample not in ``counts`` has count 0).
    gamma : float
        ``γ``.
    """

    SUM_TO_ONE = False

    def __init__(self, counts, bins, gamma):
        self._counts = dict(counts)
        self._bins, self._gamma = bins, float(gamma)
        self._divisor = sum(self._counts.values()) + bins * self._gamma
        if self._divisor == 0:  # no count and γ = 0: every probability 0 (NLTK's rule)
            self._gamma, self._divisor = 0.0, 1.0

    def prob(self, sample):
        """``(c + γ) / (N + B γ)``, ``c`` the count of ``sample`` (0 for one not counted)."""
        return (self._counts.get(sample, 0.0) + self._gamma) / self._divisor

    def logprob(self, sample):
        """``log2 P(sample)`` (as NLTK's ``ProbDistI`` computes it); ``-inf`` for probability 0."""
        p = self.prob(sample)
        return math.log(p, 2) if p > 0 else -math.inf

    def max(self):
        """The sample of the largest count (the first of them), as NLTK's ``FreqDist.max``."""
        return max(self._counts, key=self._counts.get)

    def samples(self):
        """The samples with a count above 0, in order."""
        return list(self._counts)

    def discount(self):
        """The probability mass moved to unseen samples, ``B γ / (N + B γ)``."""
        return self._bins * self._gamma / self._divisor

    def __repr__(self):
        return f"<AdditiveProbDist based on {sum(self._counts.values()):g} samples>"


def _register_with_nltk():
    """Make :class:`ProbDist` (and so :class:`AdditiveProbDist`) a virtual subclass of NLTK's
    ``ProbDistI`` (an ABC), so that ``isinstance(dist, ProbDistI)`` holds, once NLTK has been
    imported by someone (never imported here for it)."""
    module = sys.modules.get("nltk.probability")
    base = getattr(module, "ProbDistI", None)
    if base is not None and not issubclass(ProbDist, base):
        base.register(ProbDist)


def _feature_items(featureset):
    """The ``(name, value)`` pairs of one feature dict; a featureset that is not a mapping
    (a string, a list of words) is a ``TypeError`` saying so, in training and classifying."""
    items = getattr(featureset, "items", None)
    if not callable(items):
        raise TypeError(f"a featureset must be a dict of feature name -> value; got "
                        f"{type(featureset).__name__} {featureset!r:.60}")
    return items()


class _FeatureProbDists(Mapping):
    """:attr:`NaiveBayesClassifier._feature_probdist`: ``(label, fname) -> AdditiveProbDist``
    of the value counts of feature ``fname`` in ``label`` (its samples: the values counted
    there, in the feature's value order; ``B``: the feature's number of values), read from the
    classifier's model when asked for."""

    def __init__(self, classifier):
        self._classifier = classifier
        self._label_index = {label: ci for ci, label in enumerate(classifier._labels)}

    def __getitem__(self, key):
        try:
            label, name = key
        except (TypeError, ValueError):
            raise KeyError(key) from None
        ci, entry = self._label_index.get(label), self._classifier._features.get(name)
        if ci is None or entry is None:
            raise KeyError(key)
        j, values = entry
        counts = self._classifier._block(j)[ci].tolist()
        return AdditiveProbDist(((v, c) for v, c in zip(values, counts) if c > 0), len(values),
                                self._classifier._gamma)

    def __iter__(self):
        return ((label, name) for label in self._label_index for name in self._classifier._features)

    def __len__(self):
        return len(self._label_index) * len(self._classifier._features)


class NaiveBayesClassifier:
    """Naive Bayes over feature dicts with NLTK's classifier interface.

    Build it with :meth:`train` (as NLTK's); the constructor takes a fitted engine.
    See the module docstring for the model and how missing features are read.

    Parameters
    ----------
    model : TabularNB
        Fitted on value codes, classes ``0 .. C-1`` (the indices of ``labels``).
    labels : list
        The labels, in order of first appearance in the training data.
    features : dict
        Feature name -> (column index, {value: code}), values in order of first appearance.
    gamma : float
        The estimator's additive constant (the model's ``alpha``).

    Attributes
    ----------
    model_ : TabularNB
        The fitted tabular engine.
    _label_probdist, _feature_probdist : AdditiveProbDist, mapping
        NLTK's classifier's own attributes, which tutorials read: ``P(label)``, and a
        read-only mapping ``(label, fname) -> P(fname = value | label)`` (read-only
        properties computed from ``model_``).

    Examples
    --------
    >>> from textnb.nltk import NaiveBayesClassifier
    >>> train = [({"last": "a", "len": 4}, "female"), ({"last": "k", "len": 4}, "male"),
    ...          ({"last": "a", "len": 5}, "female"), ({"last": "o", "len": 3}, "male")]
    >>> classifier = NaiveBayesClassifier.train(train)
    >>> classifier.classify({"last": "a"})
    'female'
    >>> round(classifier.prob_classify({"last": "k"}).prob("male"), 4)
    0.75
    """

    def __init__(self, model, labels, features, gamma):
        self.model_ = model
        self._labels = list(labels)
        self._features = dict(features)
        self._gamma = float(gamma)
        self._offsets = np.concatenate([[0], np.cumsum(model.n_values_)]).astype(np.intp)
        self._starts = self._offsets.tolist()  # (read per feature when classifying)

    # -- training ------------------------------------------------------------------------
    @classmethod
    def train(cls, labeled_featuresets, estimator=None):
        """Train on ``(featureset, label)`` pairs, as ``nltk.classify.NaiveBayesClassifier.train``.

        As NLTK's, at the cost of the (feature, value) pairs the featuresets hold: each pair
        is counted in its label, and a feature's ``None`` count in a label is the label's
        featuresets less those that have the feature; the model is fitted from these counts
        (:meth:`TabularNB.fit_counts <textnb.naive_bayes.tabular_kernel.TabularKernel.fit_counts>`),
        never from a table of featuresets x features.

        Parameters
        ----------
        labeled_featuresets : iterable of (dict, label)
            Feature dicts (name -> hashable value) with their labels.
        estimator : None, str, float or NLTK ProbDist class, default=None
            The smoothing (see :func:`estimator_gamma`); None is NLTK's ``ELEProbDist``.

        Returns
        -------
        NaiveBayesClassifier
        """
        from textnb.naive_bayes.tabular import TabularNB  # scikit-learn: not imported with textnb.nltk

        gamma = estimator_gamma(estimator)
        labels, label_index = [], {}
        features = {}  # name -> (column, {value: code}), values in order of first appearance
        y, sizes = [], array("q")
        pair_column, pair_code = array("q"), array("q")  # each (name, value) pair of each featureset
        for item in labeled_featuresets:
            try:
                featureset, label = item
            except (TypeError, ValueError):
                raise ValueError(f"labeled_featuresets must hold (featureset, label) pairs; got {item!r}") from None
            if label not in label_index:
                label_index[label] = len(labels)
                labels.append(label)
            y.append(label_index[label])
            before = len(pair_column)
            for name, value in _feature_items(featureset):
                entry = features.get(name)
                if entry is None:
                    entry = features[name] = (len(features), {})
                j, values = entry
                pair_column.append(j)
                pair_code.append(values.setdefault(value, len(values)))
            sizes.append(len(pair_column) - before)
        if not y:
            raise ValueError("labeled_featuresets is empty: nothing to train on")
        y = np.asarray(y, dtype=np.intp)
        rows = np.repeat(np.arange(y.size), np.frombuffer(sizes, dtype=np.int64))
        column = np.frombuffer(pair_column, dtype=np.int64)
        code = np.frombuffer(pair_code, dtype=np.int64)
        n_labels, width = len(labels), len(features)
        if features:
            # a feature missing from a training featureset has the value None (NLTK's rule): in
            # each label, as many as the label's featuresets less those that have the feature
            key = y[rows]
            key *= width
            key += column  # (in place: the pairs' arrays are the training's memory)
            present = np.bincount(key, minlength=n_labels * width).reshape(n_labels, width)
            del key
            missing = np.bincount(y, minlength=n_labels)[:, None] - present
            absent = np.flatnonzero(missing.any(axis=0))
            blocks = [values for _, values in features.values()]
            none = np.array([blocks[j].setdefault(None, len(blocks[j])) for j in absent], dtype=np.int64)
            atts = [Attribute(repr(name), "nominal", [repr(v) for v in values]) for name, values in zip(features, blocks)]
        else:
            # no feature at all: one constant attribute (P = 1 in every class) that every
            # featureset has, which leaves the prior alone
            atts = [Attribute("(none)", "nominal", ["(none)"])]
            rows, column, code = np.arange(y.size), np.zeros(y.size, dtype=np.int64), np.zeros(y.size, dtype=np.int64)
            absent = none = np.zeros(0, dtype=np.int64)
            missing = np.zeros((n_labels, 0))
        offsets = np.concatenate([[0], np.cumsum([len(a.values) for a in atts])]).astype(np.int64)
        cells = offsets[column]
        cells += code
        del column, code, pair_column, pair_code  # (freed before the count's own arrays)
        table = CountTable(n_labels, int(offsets[-1])).add_cells(rows, cells, None, y)
        table.feature_count[:, offsets[absent] + none] += missing[:, absent]
        model = TabularNB(attributes=atts, nominal="additive", alpha=gamma).fit_counts(
            np.arange(n_labels), table.class_count, table.feature_count)
        return cls(model, labels, features, gamma)

    # -- the ClassifierI interface -----------------------------------------------------------
    def labels(self):
        """The labels, in order of first appearance in the training data."""
        return list(self._labels)

    @property
    def _label_probdist(self):
        """``P(label)`` as NLTK's classifier holds it (tutorials read it): the estimator over
        the label counts, an :class:`AdditiveProbDist` whose samples are the labels."""
        _register_with_nltk()
        return AdditiveProbDist(zip(self._labels, self.model_.class_count_.tolist()), len(self._labels), self._gamma)

    @property
    def _feature_probdist(self):
        """``P(fname = fval | label)`` as NLTK's classifier holds it (tutorials read it): a
        read-only mapping ``(label, fname) -> AdditiveProbDist`` over the feature's values,
        for every label and feature (label by label), each made when it is read."""
        _register_with_nltk()
        return _FeatureProbDists(self)

    def classify(self, featureset):
        """The most probable label of one feature dict."""
        return self.prob_classify(featureset).max()

    def classify_many(self, featuresets):
        """:meth:`classify` of each feature dict, as a list."""
        return [dist.max() for dist in self.prob_classify_many(featuresets)]

    def prob_classify(self, featureset):
        """``P(label | featureset)`` as a :class:`ProbDist`."""
        return self.prob_classify_many([featureset])[0]

    def prob_classify_many(self, featuresets):
        """:meth:`prob_classify` of each feature dict, as a list."""
        log_post = self._log_posterior(list(featuresets))
        _register_with_nltk()
        return [ProbDist(zip(self._labels, (row / _LN2).tolist())) for row in log_post]

    def _log_posterior(self, featuresets):
        """Natural-log posteriors, shape (n, n_labels), columns in label order: the log prior
        plus, for each known feature of a featureset, ``log P(value | label)`` read from the
        model's table (:meth:`TabularKernel._joint_log_likelihood_of_cells
        <textnb.naive_bayes.tabular_kernel.TabularKernel._joint_log_likelihood_of_cells>`:
        the cost of the featuresets' pairs, not of every feature)."""
        n_labels = len(self._labels)
        if not featuresets:
            return np.empty((0, n_labels))
        model, gamma, features, starts = self.model_, self._gamma, self._features, self._starts
        cols = array("q")  # each known value: its column of the model's counts
        sizes = array("q")  # each featureset: its number of known values
        unseen = []  # (row, feature column) of values the feature never took in training
        for i, featureset in enumerate(featuresets):
            before = len(cols)
            for name, value in _feature_items(featureset):
                entry = features.get(name)
                if entry is None:
                    continue  # a feature never seen in training is ignored (NLTK)
                j, values = entry
                code = values.get(value)
                if code is None:
                    unseen.append((i, j))
                else:
                    cols.append(starts[j] + code)
            sizes.append(len(cols) - before)
        rows = np.repeat(np.arange(len(featuresets)), np.frombuffer(sizes, dtype=np.int64))
        cols = np.frombuffer(cols, dtype=np.int64).astype(np.intp)
        jll = model._joint_log_likelihood_of_cells(rows, cols, len(featuresets))
        if unseen:
            r, j = np.array(unseen).T
            with np.errstate(divide="ignore"):
                # the zero-count term of the engine's additive rule, γ / (n_c + V γ)
                term = np.log(gamma) - np.log(self._value_totals(j) + model.n_values_[j] * gamma)  # (C, m)
            np.add.at(jll, r, term.T)
        if gamma > 0:
            return log_proba_from_jll(jll)
        # relative frequencies: a zero probability is -inf (the engine floors it); with
        # every label at -inf the posterior is uniform, as NLTK's sum_logs makes it
        dead = np.zeros_like(jll, dtype=bool)
        np.logical_or.at(dead, rows, model.feature_count_[:, cols].T == 0)
        if unseen:
            dead[np.array(unseen)[:, 0]] = True
        jll[dead] = -np.inf
        out = np.empty_like(jll)
        alive = ~np.all(np.isneginf(jll), axis=1)
        out[~alive] = -math.log(n_labels)
        if alive.any():
            out[alive] = log_proba_from_jll(jll[alive])
        return out

    def _value_totals(self, j):
        """Training count of each of the features ``j`` (columns) in each label, shape
        (n_labels, len(j)): the sums of their blocks of the model's counts."""
        distinct, where = np.unique(j, return_inverse=True)
        return np.stack([self._block(k).sum(axis=1) for k in distinct.tolist()], axis=1)[:, where]

    def _block(self, j):
        """Value counts of feature column ``j``, shape (n_labels, n_values)."""
        return self.model_.feature_count_[:, self._offsets[j]:self._offsets[j + 1]]

    def _value_probs(self, j):
        """``P(value | label)`` of feature column ``j``: ``(n_cv + γ) / (n_c + V γ)``,
        computed as NLTK's ``LidstoneProbDist.prob`` computes it (bit for bit, so that
        ties in :meth:`most_informative_features` break the same way)."""
        N = self._block(j)
        den = N.sum(axis=1, keepdims=True) + N.shape[1] * self._gamma
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(den > 0, (N + self._gamma) / np.where(den > 0, den, 1.0), 0.0)

    # -- informative features -------------------------------------------------------------
    def most_informative_features(self, n=100):
        """The ``n`` feature ``(name, value)`` pairs with the largest ratio of
        ``P(name = value | label)`` between labels, as NLTK ranks them.

        As in NLTK, a pair's ratio is taken over the labels it occurred with in training
        (a pair seen with one label only has ratio 1), ties are broken by feature name,
        then by whether the value is None/False/True, then by ``str(value).lower()``.
        """
        ranked = getattr(self, "_ranked", None)
        if ranked is None:
            entries = []
            for name, (j, values) in self._features.items():
                probs, seen = self._value_probs(j), self._block(j) > 0
                for value, code in values.items():
                    p = probs[seen[:, code], code]
                    if p.size == 0 or p.min() == 0:
                        continue
                    entries.append(((name, value), p.min() / p.max()))
            entries.sort(key=lambda e: (e[1], e[0][0], e[0][1] in [None, False, True], str(e[0][1]).lower()))
            ranked = self._ranked = [feature for feature, _ in entries]
        return ranked[:n]

    def show_most_informative_features(self, n=10, file=None):
        """Print :meth:`most_informative_features` as NLTK does, with the ratio of the most
        to the least likely label (the one method that writes: to ``file``, default
        ``sys.stdout``)."""
        out = sys.stdout if file is None else file
        out.write("Most Informative Features\n")
        for name, value in self.most_informative_features(n):
            j, values = self._features[name]
            code = values[value]
            probs, seen = self._value_probs(j)[:, code], self._block(j)[:, code] > 0
            labels = sorted((ci for ci in range(len(self._labels)) if seen[ci]),
                            key=lambda ci: (-probs[ci], self._labels[ci]), reverse=True)
            if len(labels) == 1:
                continue
            l0, l1 = labels[0], labels[-1]
            ratio = "INF" if probs[l0] == 0 else "%8.1f" % (probs[l1] / probs[l0])
            out.write("%24s = %-14r %6s : %-6s = %s : 1.0\n"
                      % (name, value, ("%s" % self._labels[l1])[:6], ("%s" % self._labels[l0])[:6], ratio))

    def __repr__(self):
        return f"<NaiveBayesClassifier: {len(self._labels)} labels, {len(self._features)} features>"
