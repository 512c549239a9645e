"""What a fitted model holds, as data: class counts, sizes, the most informative terms."""

import numpy as np
from sklearn.utils.validation import check_is_fitted

__all__ = ["informative_terms", "describe_mixed", "describe_text_classifier"]


def informative_terms(classifier, top=10):
    """The ``top`` terms per class with the largest log-odds ``log θ_cw − log θ_¬c,w``.

    ``θ_¬c,w`` is estimated from the pooled counts of all other classes with the
    model's own smoothing, so the score says how much more likely the term is in
    documents of class c than elsewhere (NLTK's "most informative features", one list
    per class). Returns ``{class: [(term, log_odds), ...]}``.
    """
    check_is_fitted(classifier)
    model = getattr(classifier.model_, "estimator_", classifier.model_)  # inside APNBC / wrappers
    terms = np.array(list(classifier.vectorizer_.vocabulary_), dtype=object)
    fc = model.feature_count_
    if not hasattr(model, "feature_log_prob_") or fc.shape[1] == 0:
        return {str(c): [] for c in model.classes_}
    alpha = max(float(getattr(model, "alpha", 1.0) or 1e-10), 1e-10)
    total = fc.sum(axis=0)
    out = {}
    for i, c in enumerate(model.classes_):
        rest = total - fc[i]
        own = np.log(fc[i] + alpha) - np.log(fc[i].sum() + alpha * fc.shape[1])
        other = np.log(rest + alpha) - np.log(rest.sum() + alpha * fc.shape[1])
        score = own - other
        k = min(top, len(score))
        idx = np.argpartition(-score, k - 1)[:k] if k else np.array([], dtype=int)
        idx = idx[np.lexsort((terms[idx].astype(str), -score[idx]))]
        out[str(c)] = [(str(terms[j]), float(score[j])) for j in idx]
    return out


def describe_text_classifier(classifier, top=10):
    """A JSON-ready summary of a fitted :class:`~textnb.TextClassifier`.

    Looks through wrappers (APNBC, calibration, pipelines, smoothing search) to the
    count model for class counts and informative terms.
    """
    from textnb.explain import informative_terms as wrapped_informative_terms
    from textnb.explain import unwrap

    check_is_fitted(classifier)
    model = getattr(classifier.model_, "estimator_", classifier.model_)
    if not hasattr(model, "class_count_"):
        model = unwrap(classifier.model_)[1]
    terms = (wrapped_informative_terms(classifier, top) if hasattr(model, "feature_count_")
             else {str(c): [] for c in classifier.classes_})
    return {
        "kind": "text",
        "model": type(classifier.model_).__name__,
        "params": {k: v for k, v in model.get_params(deep=False).items() if not hasattr(v, "get_params")},
        "tokenizer": classifier.vectorizer_.get_params(),
        "classes": [str(c) for c in model.classes_],
        "class_count": {str(c): float(n) for c, n in zip(model.classes_, getattr(model, "class_count_", []))},
        "vocabulary_size": len(classifier.vectorizer_.vocabulary_),
        "informative_terms": terms,
    }


def describe_mixed(model, top=10):
    """:meth:`textnb.mixed.MixedNB.describe` plus, for every text attribute, its most
    informative terms per class (:func:`informative_terms` of its word model)."""
    check_is_fitted(model)
    info = model.describe()
    texts = iter(model.text_models_)
    for a in info["attributes"]:
        if a["kind"] == "text":
            a["informative_terms"] = informative_terms(next(texts), top)
    return info
