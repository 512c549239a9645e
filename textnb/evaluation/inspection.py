"""The most informative terms of a count model (log-odds of a term in a class against the rest).

:func:`textnb.evaluation.explain.describe_text_classifier` builds on it.
"""

import numpy as np

from textnb.core.estimates import bernoulli_log_prob, multinomial_log_prob
from textnb.core.labels import label_names

__all__ = ["informative_terms", "term_log_odds"]


def informative_terms(classifier, top=10):
    """The ``top`` terms per class with the largest log-odds ``log θ_cw − log θ_¬c,w``.

    ``θ_¬c,w`` is estimated from the pooled counts of all other classes with the
    model's own smoothing, so the score says how much more likely the term is in
    documents of class c than elsewhere (NLTK's "most informative features", one list
    per class). ``θ`` is the model's kind of term probability: a share of the class's term
    occurrences, or for a Bernoulli event model (``BernoulliNB``, ``DiscriminativeNB``'s
    ``bernoulli``) the share of the class's documents that hold the term,
    ``(N_cw + α) / (N_c + 2α)``; with ``m`` (the m-estimate) instead of α when the model has
    one. Returns ``{class: [(term, log_odds), ...]}``.
    """
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(classifier)
    model = getattr(classifier.model_, "estimator_", classifier.model_)  # inside APNBC / wrappers
    return term_log_odds(model, list(classifier.vectorizer_.vocabulary_), top)


def term_log_odds(model, terms, top=10):
    """:func:`informative_terms` of a fitted count model (an estimator, or anything with its
    fitted attributes: ``classes_``, ``feature_count_``, ``feature_log_prob_`` or ``coef_``,
    ``alpha_`` or ``alpha``) whose columns are the vocabulary ``terms`` (numpy only)."""
    terms = np.array(terms, dtype=object)
    fc = model.feature_count_
    if not (hasattr(model, "feature_log_prob_") or hasattr(model, "coef_")) or fc.shape[1] == 0:
        return {c: [] for c in label_names(model)}
    # DiscriminativeNB: its learned sums (document features, pass weights included), its smoothing
    alpha = getattr(model, "alpha_", None)
    alpha = max(float((alpha if alpha is not None else getattr(model, "alpha", 1.0)) or 1e-10), 1e-10)
    m = getattr(model, "m", None)  # the m-estimate, when the model smooths with it instead of alpha
    total = fc.sum(axis=0)
    # a Bernoulli event model's term probability is per document: its class's documents (the
    # model's class_count_, pass weights included), as the model estimates it
    documents = np.asarray(model.class_count_, dtype=np.float64) if _bernoulli(model) else None
    out = {}
    for i, c in enumerate(model.classes_):
        # the class against the pooled other classes, estimated by the model's own estimator (the
        # m-estimate's background is the same: that of all the counts)
        pair = np.vstack([fc[i], total - fc[i]])
        if documents is None:
            log_prob = multinomial_log_prob(pair, alpha, m)
        else:
            log_prob = bernoulli_log_prob(pair, [documents[i], documents.sum() - documents[i]], alpha, m)[0]
        score = log_prob[0] - log_prob[1]
        k = min(top, len(score))
        # every term tied with the k-th score, then the first k by score and name: the top k are
        # the start of the top k + 1 (argpartition kept an arbitrary one of a tie at the cut)
        idx = np.flatnonzero(score >= -np.partition(-score, k - 1)[k - 1]) if k else np.array([], dtype=int)
        idx = idx[np.lexsort((terms[idx].astype(str), -score[idx]))][:k]
        out[str(c)] = [(str(terms[j]), float(score[j])) for j in idx]
    return out


def _bernoulli(model):
    """Whether the count model's term probabilities are of presence per document: a
    BernoulliNB (its ``binarize``), or a DiscriminativeNB whose event model is Bernoulli."""
    return hasattr(model, "binarize") or getattr(model, "event_model_", None) == "bernoulli"
