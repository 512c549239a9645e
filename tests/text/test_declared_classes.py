"""A class declared in ``classes=`` (``partial_fit``, or the trainer's ``classes`` as a mixed
table's declared class values give them) that no document has gets probability 0 with
every text model kind, as scikit-learn's MultinomialNB gives it (its ``fit_prior``
prior of such a class is 0): the default DiscriminativeNB and ComplementNB, whose scores
leave the class prior out (Rennie et al. 2003), included, in the estimator and in the
model file's scorer alike."""

import numpy as np
import pytest
from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB

from textnb.core.model_io import load
from textnb.meta.registry import MODELS, ModelOptions, make_text_classifier, streaming_model
from textnb.text.scorer import scorer_from_file

DOCS = ["buy cheap pills now", "cheap pills offer", "win cash now", "meeting at noon", "lunch at noon today",
        "see you at the meeting", "cheap lunch offer", "project meeting today"] * 4
LABELS = ["spam", "spam", "spam", "ham", "ham", "ham", "spam", "ham"] * 4
CLASSES = ["ham", "spam", "unseen"]
TEXT_KINDS = sorted(name for name, spec in MODELS.items() if spec.input == "documents")
QUERIES = ["cheap pills", "meeting today", "unknown words only", ""]


def test_scikit_learns_multinomial_nb_gives_a_declared_empty_class_probability_0():
    X = np.array([[2, 0], [0, 3], [1, 1]])
    model = SkMultinomialNB().partial_fit(X, ["a", "b", "a"], classes=["a", "b", "c"])
    assert model.predict_proba([[1, 1]])[0, 2] == 0.0


@pytest.mark.parametrize("kind", TEXT_KINDS)
def test_a_declared_class_without_documents_has_probability_0_with_every_text_kind(kind, tmp_path):
    opts = ModelOptions(model=kind)
    if MODELS[kind].partial_fit:
        model = make_text_classifier(opts).partial_fit(DOCS, LABELS, classes=CLASSES)
        proba = model.predict_proba(QUERIES)
        assert list(model.classes_) == CLASSES
        assert np.all(proba[:, 2] == 0.0) and np.allclose(proba.sum(axis=1), 1.0), proba
        assert "unseen" not in model.predict(QUERIES)
        model.save(tmp_path / "m.tnb")
    else:  # (--model auto: SmoothingCV, fitted by the trainer, which takes declared classes)
        from textnb.core.model_io import save
        from textnb.text.training import train_text_model

        vectorizer, spec, _ = streaming_model(opts, steps=True)
        root, _ = train_text_model(DOCS, LABELS, vectorizer=vectorizer, model=spec, classes=np.array(CLASSES))
        save(root, tmp_path / "m.tnb")
    loaded = load(tmp_path / "m.tnb")
    assert list(loaded.classes_) == CLASSES and np.all(loaded.predict_proba(QUERIES)[:, 2] == 0.0)
    scorer = scorer_from_file(tmp_path / "m.tnb")  # (the fast path of predict and serve)
    if scorer is not None:
        assert np.all(np.exp(scorer.predict_log_proba(QUERIES))[:, 2] == 0.0)
