"""fastText's Python habits: ``from textnb.fasttext import train_supervised, load_model``.

A façade (outside the layers, as :mod:`textnb.nltk`) over the text models and
:mod:`textnb.io.fasttext`, for code written against the ``fasttext`` package::

    model = train_supervised(input="train.txt", wordNgrams=2)
    model.predict("which city is the capital", k=2)   # (('__label__LOC', ...), array([...]))
    model.test("valid.txt")                            # (N, P@1, R@1)
    model.test_label("valid.txt")                      # {'__label__LOC': {'precision': ..., ...}}
    model.save_model("model.tnb")                      # textnb predict / textnb test read it
    model = load_model("model.tnb")

What is the same as fastText: the file format (one document per line, its labels as
``__label__`` words anywhere in it, read by :func:`textnb.io.fasttext.read_fasttext`, as the
command line reads it); ``predict``'s arguments and results (labels with their prefix,
most probable first, ``k = -1`` for every label, ``threshold`` on the probability, a list of
texts for a list); ``test``'s ``(N, precision, recall)``, counted as fastText's meter
(:func:`textnb.evaluation.topk.precision_recall_at_k`, what ``textnb test`` prints, a label
given twice on a line counted twice); ``test_label``'s ``{label: {"precision", "recall",
"f1score"}}``;
``labels`` / ``words`` (most frequent first, as fastText's dictionary, where the counts are
known; ``words`` single words only, without fastText's ``</s>``: :meth:`FastTextModel.get_words`);
``get_word_id``, ``get_label_id``, ``get_line`` and :func:`tokenize`. What is not: the model is
naive Bayes (the model ``textnb train FILE`` fits: the default text model,
:class:`~textnb.naive_bayes.discriminative.DiscriminativeNB`; a file with several labels on
a line gives :class:`~textnb.meta.multilabel.MultiLabelNB` over it; ``loss="ova"`` one model
per label, ``MultiLabelNB(method="ovr")``), so fastText's embedding and SGD parameters
(``lr``, ``dim``, ``epoch``, ...) have nothing to set: they are accepted, as fastText's names,
and a warning names them once; it has no word vectors (:class:`NoWordVectors`) and nothing to
quantize (``quantize(cutoff=N)`` keeps its N most informative terms). ``wordNgrams``, given,
is the word n-gram order (:class:`~textnb.text.vectorizer.Vectorizer`'s ``ngram_range=(1,
wordNgrams)``), ``thread`` the worker count.
"""

import re
import warnings

import numpy as np

from textnb.core.errors import TextnbError
from textnb.core.wrapping import text_vectorizer
from textnb.io.fasttext import WORD_SEPARATORS

__all__ = ["FastTextModel", "NoWordVectors", "load_model", "tokenize", "train_supervised"]

#: fastText's loss names (its ``loss_name`` enum: any other is its ``ValueError("Unrecognized loss
#: name")``). ``"ova"`` :func:`train_supervised` maps to one model per label; the others choose how
#: fastText trains its embeddings' output layer, which a naive Bayes model has none of.
LOSSES = ("ns", "hs", "softmax", "ova")
#: fastText's training parameters that configure its embeddings and SGD: naive Bayes has none
#: (``loss``: all but ``"ova"``; the warning says so of it in its own words).
_NO_MEANING = ("lr", "dim", "ws", "epoch", "neg", "loss", "bucket", "lrUpdateRate", "t",
               "pretrainedVectors", "autotuneValidationFile", "autotuneMetric", "autotunePredictions",
               "autotuneDuration", "autotuneModelSize")
#: fastText's parameters whose request textnb meets as it is, accepted without a word: ``verbose``
#: (fastText's progress lines: textnb's training prints nothing, what ``verbose=0`` asks) and
#: ``seed`` (fastText's random generator: textnb's training has none, the same model every run)
_MET = ("verbose", "seed")
#: fastText's parameters of its dictionary that textnb's vocabulary has no counterpart of, and why
#: (each named in :func:`train_supervised`'s one warning).
_NO_COUNTERPART = {
    "minCount": "minCount keeps fastText's words seen at least minCount times in the file; textnb cannot cut its "
                "vocabulary by a term's count (its min_df counts the documents a term is in)",
    "minCountLabel": "minCountLabel drops fastText's rarer labels; textnb keeps every label of the file",
    "minn": "minn, maxn set fastText's subword (character n-gram) vectors; a naive Bayes word model has none",
}
_NO_COUNTERPART["maxn"] = _NO_COUNTERPART["minn"]


def train_supervised(input, *, label="__label__", wordNgrams=None, thread=None, **fasttext_params):
    """Train on the labelled fastText file ``input``, as ``fasttext.train_supervised`` does.

    Parameters
    ----------
    input : str or Path
        The training file.
    label : str, default="__label__"
        The label prefix (fastText's ``-label``).
    wordNgrams : int, default=None
        Word n-grams up to this order are features (``Vectorizer(ngram_range=(1,
        wordNgrams))``). None (not given): textnb's default text pipeline, the model ``textnb
        train FILE`` fits (short texts: words and the word bigrams of two documents or more,
        :func:`textnb.text.training.default_vectorizer`; else words).
    thread : int, default=None
        Worker threads (None: the default model's choice).
    **fasttext_params
        fastText's other parameter names (see the module docstring). ``loss="ova"`` (fastText's
        one-vs-all loss: a probability of its own per label) trains one binary model per label,
        :class:`~textnb.meta.multilabel.MultiLabelNB` ``(method="ovr")`` (``textnb train
        --method ovr``); ``"ns"``, ``"hs"`` and ``"softmax"`` choose how fastText trains its
        embeddings, which naive Bayes has none of: they change nothing, and the warning says so;
        any other loss is a ValueError, as in fastText. ``verbose`` and ``seed`` are accepted
        silently (textnb's training prints nothing and draws no random numbers: every run fits
        the same model). The other parameters are accepted and named in one warning; any other
        name is a TypeError, as in fastText.

    Raises
    ------
    ValueError
        ``loss`` is not one of fastText's ``"ns"``, ``"hs"``, ``"softmax"``, ``"ova"``, or
        ``wordNgrams`` is not an integer >= 1.
    TypeError
        A parameter name that fastText's ``train_supervised`` does not have.

    Returns
    -------
    FastTextModel
    """
    from textnb.io.fasttext import read_fasttext

    unknown = sorted(set(fasttext_params) - set(_NO_MEANING) - set(_NO_COUNTERPART) - set(_MET))
    if unknown:
        raise TypeError(f"train_supervised() got unexpected keyword argument(s) {', '.join(map(repr, unknown))}")
    loss = fasttext_params.get("loss", "softmax")
    if not (isinstance(loss, str) and loss in LOSSES):  # (fastText: ValueError("Unrecognized loss name"))
        raise ValueError(f"loss must be one of {', '.join(map(repr, LOSSES))} (fastText's loss names); "
                         f"got {loss!r}")
    ova = loss == "ova"
    _warn_ignored([name for name in fasttext_params if not (name == "loss" and ova) and name not in _MET], loss=loss)
    if wordNgrams is not None and (isinstance(wordNgrams, bool) or not isinstance(wordNgrams, (int, np.integer))
                                   or wordNgrams < 1):
        raise ValueError(f"wordNgrams must be an integer >= 1; got {wordNgrams!r}")
    corpus = read_fasttext(input, label_prefix=label)
    from textnb.text.vectorizer import Vectorizer

    from textnb.text.classifier import TextClassifier

    vectorizer = None if wordNgrams is None else Vectorizer(ngram_range=(1, int(wordNgrams)))
    documents = list(corpus.documents)
    if corpus.multilabel or ova:  # (ova: every label a model of its own, a single-label file's too)
        from textnb.meta.multilabel import MultiLabelNB

        model = TextClassifier(vectorizer=vectorizer, model=MultiLabelNB(method="ovr" if ova else "copy"),
                               n_jobs=thread)
        model.fit(documents, [tuple(labs) for labs in corpus.labels])
    else:
        from textnb.naive_bayes.discriminative import DiscriminativeNB
        from textnb.text.training import default_vectorizer

        if vectorizer is None:  # the default pipeline's vectorizer, named as textnb train's model file names it
            vectorizer = Vectorizer(**default_vectorizer(documents)[0])
        model = TextClassifier(vectorizer=vectorizer, model=DiscriminativeNB(), n_jobs=thread)
        model.fit(documents, [labs[0] for labs in corpus.labels])
    from textnb.io.fasttext import store_label_prefix

    # fastText's model keeps its label prefix and its words' counts: so does the model file
    fitted = model.vectorizer_
    fitted.term_counts_ = np.asarray(fitted.transform(documents).sum(axis=0), dtype=np.float64).ravel()
    return FastTextModel(store_label_prefix(model, label), label_prefix=label)


def _warn_ignored(names, loss=None):
    """One UserWarning naming fastText's parameters ``names`` that textnb ignores, and why
    (``loss``: the value of ``loss`` when it is among them, ``"ns"``, ``"hs"`` or ``"softmax"``)."""
    if not names:
        return
    sgd = sorted(n for n in names if n in _NO_MEANING and n != "loss")
    reasons = [f"{', '.join(sgd)} set fastText's embeddings and SGD; a naive Bayes model has none"] if sgd else []
    if "loss" in names:
        reasons.append(f"loss={loss!r} chooses how fastText trains its embeddings (ns, hs, softmax), which a naive "
                       "Bayes model has none of (loss='ova' trains one model per label)")
    reasons += list(dict.fromkeys(_NO_COUNTERPART[n] for n in sorted(names) if n in _NO_COUNTERPART))
    warnings.warn(f"textnb.fasttext: {'; '.join(reasons)}; so {'it is' if len(names) == 1 else 'they are'} "
                  "ignored", UserWarning, stacklevel=3)


def load_model(path, *, label=None):
    """A model saved by :meth:`FastTextModel.save_model` or ``textnb train`` (a text model).

    ``label``: the label prefix; None: the one the model was trained with, as fastText's
    model file keeps it (``__label__`` for a model that keeps none)."""
    from textnb.core.errors import ModelFileError
    from textnb.core.model_io import load

    estimator = load(path)
    if text_vectorizer(estimator) is None and not _takes_text(estimator):  # (as fastText's reads its own models)
        raise ModelFileError(f"{path}: a {type(estimator).__name__} model, not a text model; textnb.fasttext reads "
                             f"the models train_supervised and textnb train on text write (load it with textnb.load)")
    return FastTextModel(estimator, label_prefix=label)


def _fitted_key(estimator):
    """What a scorer made of ``estimator`` stands for: the estimator and its fitted model and
    vectorizer objects (a ``fit`` makes new ones), held (so none is reused) and compared by
    identity (:func:`_same`)."""
    return estimator, getattr(estimator, "model_", None), getattr(estimator, "vectorizer_", None)


def _same(key, other):
    return other is not None and all(a is b for a, b in zip(key, other))


def _lean_scorer(estimator):
    """The scorer ``textnb predict`` would read ``estimator``'s model file with
    (:func:`textnb.text.scorer.tree_scorer`), made from the model in memory; None for a model
    without one, or one no model file holds (a callable analyzer)."""
    from textnb.core.errors import TextnbError
    from textnb.core.model_io import model_tree
    from textnb.text.scorer import text_model_root, tree_scorer

    try:
        return tree_scorer(text_model_root(model_tree(estimator)))
    except (TextnbError, TypeError):  # (what save refuses; a shape the command line does not read)
        return None


def _takes_text(estimator):
    """True for a model that reads documents (scikit-learn's ``string`` input tag: a
    CalibratedNB or APNBC around a TextClassifier)."""
    from sklearn.utils import get_tags

    try:
        return bool(get_tags(estimator).input_tags.string)
    except (AttributeError, TypeError, ValueError):
        return False


def _label_counts(estimator):
    """``{label: training documents}`` of a text model, from what its file keeps (a
    multi-label model's ``train_support_``, the default model's ``class_documents_``, a
    count model's ``class_count_``), None when it keeps none."""
    from textnb.core.labels import label_names

    model = getattr(estimator, "model_", None)
    if model is None and hasattr(estimator, "steps"):
        model = estimator.steps[-1][1]
    for name in ("train_support_", "class_documents_", "class_count_"):
        counts = getattr(model, name, None)
        if counts is not None:
            classes = label_names(estimator)
            if len(counts) == len(classes):
                return {c: int(round(float(n))) for c, n in zip(classes, counts)}
    return None


def _word_columns(vectorizer, terms):
    """The columns of ``terms`` (the vocabulary of ``vectorizer``) that are single words: every
    column of a word vectorizer of unigrams (or of an analyzer of its own, whose terms textnb
    cannot tell apart); with word n-grams (``ngram_range`` up to 2 or more) the terms without
    the space that joins an n-gram's words; none for character n-grams (an integer array)."""
    analyzer = getattr(vectorizer, "analyzer", "word")
    if isinstance(analyzer, str) and analyzer != "word":  # ('char', 'char_wb': no word is a feature)
        return np.zeros(0, dtype=np.intp)
    min_n, max_n = getattr(vectorizer, "ngram_range", (1, 1))
    if callable(analyzer) or max_n <= 1:
        return np.arange(len(terms), dtype=np.intp)
    if min_n > 1:
        return np.zeros(0, dtype=np.intp)
    return np.flatnonzero([" " not in str(t) for t in terms]).astype(np.intp)


class FastTextModel:
    """A fitted text model with fastText's reading interface (see the module docstring).

    ``estimator``: the textnb text model (a TextClassifier, of a MultiLabelNB for a
    multi-label file; or a Pipeline of a Vectorizer and a model), as :func:`textnb.load`
    returns it.
    """

    def __init__(self, estimator, *, label_prefix=None):
        from textnb.io.fasttext import stored_label_prefix

        self.estimator = estimator
        self.label_prefix = stored_label_prefix(estimator) if label_prefix is None else label_prefix
        self._counted = None  # (the estimator's fitted key, its documents per label): _counts
        self._lean = None  # (the estimator, what scores it, its labels, where a text is cut): _scoring
        self._positions = {}  # {"words" / "labels": (fitted key, label prefix, {item: position})}: _ids

    def _scoring(self):
        """``(scorer, labels, max_bytes)``: what :meth:`predict` scores a text with, the labels
        of its columns and where a text is cut (where ``textnb predict --lines`` cuts a line).
        The scorer is the one ``textnb predict`` reads the model's file with
        (:func:`textnb.text.scorer.tree_scorer` of :func:`textnb.core.model_io.model_tree`:
        one pass of tokenising and products, no input validation), the same floats as the
        estimator's ``predict_proba`` and log-odds; the estimator itself for a model it does
        not read. Made once, again when :attr:`estimator` is replaced or fitted again (its
        fitted model and vectorizer are new objects: ``model.estimator.fit(...)``)."""
        key = _fitted_key(self.estimator)
        if self._lean is None or not _same(key, self._lean[0]):
            from textnb.io.corpus import model_max_bytes

            estimator = self.estimator
            self._lean = (key, _lean_scorer(estimator) or estimator, self._classes(), model_max_bytes(estimator))
        return self._lean[1:]

    @property
    def _counts(self):
        """The documents of each label (:func:`_label_counts`), made once for the estimator as
        fitted (:func:`_fitted_key`)."""
        key = _fitted_key(self.estimator)
        if self._counted is None or not _same(key, self._counted[0]):
            self._counted = (key, _label_counts(self.estimator))
        return self._counted[1]

    def _classes(self):
        from textnb.core.labels import label_names

        return label_names(self.estimator)

    def get_labels(self, include_freq=False, on_unicode_error="strict"):
        """The labels with their prefix, most frequent in training first (fastText's
        order, ties in the model's order); ``include_freq``: and their training counts
        (documents of each label, as the model file keeps them). ``on_unicode_error`` is
        fastText's, accepted (the labels are str already)."""
        classes = self._classes()
        if self._counts is not None:
            classes = sorted(classes, key=lambda c: -self._counts[c])
        labels = [self.label_prefix + c for c in classes]
        if not include_freq:
            return labels
        if self._counts is None:
            raise ValueError(f"a {type(self.estimator).__name__} keeps no document count per label")
        return labels, np.array([self._counts[c] for c in classes], dtype=np.int64)

    @property
    def labels(self):
        return self.get_labels()

    def get_words(self, include_freq=False, on_unicode_error="strict"):
        """The vocabulary's words, as fastText's ``get_words`` lists its dictionary's words:
        single words only (with ``wordNgrams`` > 1 the model's word n-grams are features too,
        as fastText's hashed n-gram buckets, and are not listed, as fastText lists none; a
        model of character n-grams has no words: an empty list), most frequent in the
        training documents first (fastText's dictionary is sorted by count, descending), ties
        in the model's (alphabetical) column order; ``include_freq``: and each word's
        occurrences, in the same order. No ``</s>``: fastText counts an end-of-line word on
        every line, which textnb's tokenizer does not make (no feature of the model stands
        for it). The words are the model's tokens (lower-cased, as its vectorizer reads a
        text), the counts those :func:`train_supervised` keeps in the model (and its file); a
        model trained by ``textnb train`` keeps none: its words in the model's column order,
        and ``include_freq`` is a ValueError. ``on_unicode_error`` is fastText's, accepted (the
        words are str already)."""
        vectorizer = text_vectorizer(self.estimator)
        terms = vectorizer.get_feature_names_out()
        columns = _word_columns(vectorizer, terms)
        words = [str(terms[j]) for j in columns]
        counts = getattr(vectorizer, "term_counts_", None)
        if counts is None or len(counts) != len(terms):
            if include_freq:
                raise ValueError("this model keeps no word counts (a model trained by "
                                 "textnb.fasttext.train_supervised keeps them)")
            return words
        counts = np.rint(np.asarray(counts, dtype=np.float64)[columns]).astype(np.int64)
        order = np.argsort(-counts, kind="stable")  # (ties: the column order)
        words = [words[j] for j in order]
        return (words, counts[order]) if include_freq else words

    @property
    def words(self):
        return self.get_words()

    def predict(self, text, k=1, threshold=0.0, on_unicode_error="strict"):
        """``(labels, probabilities)`` of one text (a str), or lists of them for a list of
        texts: the ``k`` most probable labels (-1: all) whose probability is at least
        ``threshold`` (a probability in [0, 1], checked as :meth:`test` checks it), most
        probable first, as fastText's ``predict``. A text holding a
        newline is refused, as fastText refuses it (one line at a time).
        ``on_unicode_error`` is fastText's, accepted (the texts are str already)."""
        one = isinstance(text, str)
        if not one and isinstance(text, (bytes, bytearray)):
            raise TypeError(f"predict takes a str or a list of str; got {type(text).__name__} (decode it first)")
        if not one and not hasattr(text, "__iter__"):
            raise TypeError(f"predict takes a str or a list of str; got {type(text).__name__}")
        texts = [text] if one else list(text)
        for t in texts:
            if not isinstance(t, str):
                raise TypeError(f"predict takes a str or a list of str; got {type(t).__name__}")
            if "\n" in t:
                raise ValueError("predict processes one line at a time (remove '\\n')")
        from textnb.evaluation.topk import best_labels, check_k, check_threshold, proba_and_odds
        from textnb.io.files import cut_text

        k = check_k(k)
        threshold = check_threshold(threshold)
        scorer, classes, limit = self._scoring()
        texts = [cut_text(t, limit) for t in texts]  # (each text cut where textnb predict --lines cuts a line's)
        # the model's predict_proba and log-odds, ranked by the rule of textnb predict --top /
        # --threshold and of test: the labels and probabilities textnb predict prints
        proba, odds = proba_and_odds(scorer, texts) if texts else (np.empty((0, len(classes))),) * 2
        labels, probas = [], []
        for p, ties in zip(np.asarray(proba, dtype=np.float64), np.asarray(odds, dtype=np.float64)):
            kept = best_labels(p, k, threshold, ties=ties)
            labels.append(tuple(self.label_prefix + classes[j] for j in kept))
            probas.append(p[kept])
        return (labels[0], probas[0]) if one else ([list(labs) for labs in labels], probas)

    def test(self, path, k=1, threshold=0.0):
        """``(N, precision at k, recall at k)`` on the labelled fastText file ``path``,
        counted as fastText's ``test`` (and ``textnb test``) count them; a file with no
        labelled line (or none at all) is ``(0, nan, nan)``, as fastText's (``textnb test``
        says it has no label)."""
        from textnb.core.errors import NoLabelledLine
        from textnb.evaluation.topk import fasttext_test

        try:
            r = fasttext_test(self.estimator, path, k=k, threshold=threshold, label_prefix=self.label_prefix)
        except NoLabelledLine:
            return 0, float("nan"), float("nan")
        return r["n"], r["precision"], r["recall"]

    def test_label(self, path, k=1, threshold=0.0):
        """Each label's precision, recall and F1 at ``k`` on the labelled fastText file
        ``path``, as fastText's ``test_label`` returns them: ``{label: {"precision": p,
        "recall": r, "f1score": f}}`` for every label of the model (with its prefix, in
        :meth:`get_labels` order), counted as :meth:`test` counts (a label given twice on
        a line is two labels to recall); NaN where a label was never predicted (precision)
        or is never a true label (recall), as fastText's meter (every one of them NaN for a
        file with no labelled line)."""
        from textnb.core.errors import NoLabelledLine
        from textnb.evaluation.topk import fasttext_test_label

        try:
            scores = fasttext_test_label(self.estimator, path, k=k, threshold=threshold,
                                         label_prefix=self.label_prefix)
        except NoLabelledLine:
            scores = dict.fromkeys(self._classes(), dict.fromkeys(("precision", "recall", "f1score"), float("nan")))
        return {label: dict(scores[label[len(self.label_prefix):]]) for label in self.get_labels()}

    def get_word_id(self, word):
        """The position of ``word`` in :meth:`get_words` (fastText's word id), -1 when the model
        has no such word, as fastText's. The words are the model's tokens as :meth:`get_words`
        lists them (lower-cased: ``"what"``, not ``"What"``)."""
        return self._ids("words", self.get_words).get(word, -1)

    def get_label_id(self, label):
        """The position of ``label`` (with its prefix) in :meth:`get_labels`, -1 when the model
        has no such label, as fastText's."""
        return self._ids("labels", self.get_labels).get(label, -1)

    def _ids(self, name, listed):
        """``{item: position}`` of ``listed()``, made once for the current estimator and prefix."""
        cached, key = self._positions.get(name), _fitted_key(self.estimator)
        if cached is None or not _same(key, cached[0]) or cached[1] != self.label_prefix:
            cached = self._positions[name] = (key, self.label_prefix, {w: i for i, w in enumerate(listed())})
        return cached[2]

    def get_line(self, text, on_unicode_error="strict"):
        """fastText's ``get_line``: ``(words, labels)`` of one line (a list of lines: lists of
        each): its words as fastText reads them (:func:`tokenize`: split on white space,
        as written), then fastText's end-of-line word ``</s>``; the words starting with the
        label prefix are its labels, those of the model (fastText's dictionary leaves an
        unknown label out of both). A text holding a newline is refused, as fastText refuses
        it. ``on_unicode_error`` is fastText's, accepted (the texts are str already)."""
        if isinstance(text, list):
            lines = [self.get_line(t) for t in text]
            return [w for w, _ in lines], [labs for _, labs in lines]
        if not isinstance(text, str):
            raise TypeError(f"get_line takes a str or a list of str; got {type(text).__name__}")
        if "\n" in text:
            raise ValueError("get_line processes one line at a time (remove '\\n')")
        known = self._ids("labels", self.get_labels)
        words, labels = [], []
        for word in tokenize(text):
            if not word.startswith(self.label_prefix):
                words.append(word)
            elif word in known:
                labels.append(word)
        return words + [END_OF_LINE], labels

    def is_quantized(self):
        """False: a naive Bayes model has no embeddings to product-quantize (:meth:`quantize`
        with ``cutoff`` drops terms; the model it leaves is not quantized either)."""
        return False

    def quantize(self, input=None, qout=False, cutoff=0, retrain=False, epoch=None, lr=None, thread=None,
                 verbose=None, dsub=2, qnorm=False):
        """fastText's ``quantize`` shrinks a model by product-quantizing its embeddings, keeping
        the ``cutoff`` words and n-grams of largest norm. A naive Bayes model has no embeddings
        to quantize: with ``cutoff`` N > 0 it keeps the N terms (words and word n-grams) of
        largest information gain (Yang & Pedersen's measure, ``textnb train --select ig``'s, of
        the model's per-class counts: :func:`textnb.text.nodes.term_goodness`) and drops the
        others (:func:`textnb.text.nodes.keep_terms`: the vocabulary and the count models'
        arrays over the terms; a dropped term reads as a word the model does not know), so
        :meth:`save_model` writes a smaller file (docs/fasttext.md measures its size and
        accuracy); a ``cutoff`` at least the vocabulary's size keeps every term. ``cutoff=0``
        (fastText's default): one warning that there is nothing to quantize, the model
        unchanged. ``qout``, ``retrain``, ``epoch``, ``lr``, ``dsub``, ``qnorm`` set the
        quantization and its retraining: given, they are named in one warning and ignored
        (``input``, ``thread``, ``verbose``: nothing to read or run). A text model other than
        a count model, or a MultiLabelNB of count models, is refused with a ParameterError."""
        from textnb.core.errors import ParameterError

        if isinstance(cutoff, bool) or not isinstance(cutoff, (int, np.integer)) or cutoff < 0:
            raise ValueError(f"cutoff must be an integer >= 0; got {cutoff!r}")
        given = [name for name, value, default in (("qout", qout, False), ("retrain", retrain, False),
                                                   ("epoch", epoch, None), ("lr", lr, None), ("dsub", dsub, 2),
                                                   ("qnorm", qnorm, False)) if value != default]
        if given:
            warnings.warn(f"textnb.fasttext: quantize: {', '.join(given)} set fastText's product quantization and "
                          "its retraining; a naive Bayes model has neither, so they are ignored", UserWarning,
                          stacklevel=2)
        if cutoff == 0:
            warnings.warn("textnb.fasttext: quantize: a naive Bayes model has no embeddings to quantize; the model "
                          "is unchanged (cutoff=N keeps its N most informative terms)", UserWarning, stacklevel=2)
            return
        from textnb.core.model_io import build, model_tree
        from textnb.text.nodes import keep_terms, term_goodness

        try:
            root = model_tree(self.estimator)
            goodness = term_goodness(root)
            if cutoff >= len(goodness):
                return
            keep = np.sort(np.argsort(-goodness, kind="stable")[:int(cutoff)])  # (ties: the column order)
            pruned = keep_terms(root, keep)
        except (ValueError, TypeError) as exc:
            raise ParameterError(f"quantize(cutoff={cutoff}) drops the terms of a count text model, not this model: "
                                 f"{exc}") from None
        self.estimator = build(pruned, "the quantized model")  # (checked as load checks a file)

    def save_model(self, path):
        """Write the model file (``textnb predict`` and ``textnb test`` read it)."""
        from textnb.core.model_io import save

        save(self.estimator, path)


#: fastText's end-of-line word (``Dictionary::EOS``): what its tokenizer reads a newline as
END_OF_LINE = "</s>"
#: a newline, or a run of characters that are not fastText's word separators (ASCII space,
#: newline, TAB, CR, VT, FF and NUL: ``Dictionary::readWord``)
_FASTTEXT_WORD = re.compile(f"\n|[^\n\0{WORD_SEPARATORS}]+")


def tokenize(text):
    """fastText's ``fasttext.tokenize(text)``: the words of ``text`` as fastText reads them
    (``Dictionary::readWord``), as written: split on ASCII white space (space, TAB, CR, VT,
    FF) and NUL, each newline the word ``</s>``. (A model's features are its vectorizer's
    tokens, lower-cased and cut by its token pattern: :meth:`FastTextModel.get_words`.)"""
    if not isinstance(text, str):
        raise TypeError(f"tokenize takes a str; got {type(text).__name__}")
    return [END_OF_LINE if word == "\n" else word for word in _FASTTEXT_WORD.findall(text)]


class NoWordVectors(TextnbError):
    """A fastText method of word vectors (``get_word_vector``, ``get_dimension``, ...) asked of a
    naive Bayes model, which has none."""


def _no_word_vectors(name):
    def method(self, *args, **kwargs):
        raise NoWordVectors(f"{name}: a naive Bayes model has no word vectors (fastText's embeddings); a "
                            f"textnb.fasttext model has labels, words and their probabilities")

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"fastText's ``{name}``: raises :class:`NoWordVectors` (a naive Bayes model has no word vectors)."
    return method


for _name in ("get_dimension", "get_word_vector", "get_sentence_vector", "get_input_vector", "get_input_matrix",
              "get_output_matrix", "get_nearest_neighbors", "get_analogies", "get_subwords", "get_subword_id",
              "set_matrices"):
    setattr(FastTextModel, _name, _no_word_vectors(_name))
del _name
