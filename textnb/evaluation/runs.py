"""An evaluation run as ``textnb evaluate`` makes it: the protocol chosen from the data
(train/test when there is a test part, else seeded stratified K-fold cross-validation), the
documents read once, and one report.
"""

import dataclasses
import time

import numpy as np

from textnb.core.errors import InputError
from textnb.evaluation.evaluate import cross_validate, evaluate_split, vectorize_all
from textnb.io.corpus import MAX_DOCUMENT_BYTES
from textnb.io.inputs import check_binary_classes, check_classes, read_texts

__all__ = ["evaluate_documents", "evaluate_table"]


def _folds_protocol(report):
    notes = [report[k] for k in ("folds_note", "groups_note") if report.get(k)]
    report["protocol"] = f"{report['folds']}-fold cross-validation x {report['repeat']}" + (
        f" ({'; '.join(notes)})" if notes else "")
    return report


def evaluate_documents(corpus, classifier, *, test=None, cv=None, repeat=1, seed=0, max_bytes=None,
                       progress=None):
    """Evaluate ``classifier`` (an unfitted :class:`~textnb.text.classifier.TextClassifier`,
    or ``(vectorizer params, (kind, params))`` of a model in
    :data:`~textnb.evaluation.evaluate.KERNEL_FITTED`, as
    :func:`textnb.meta.registry.streaming_model` gives them: each fold is then fitted by
    the model's kernel, without scikit-learn; or ``(vectorizer params, kernel)``, an unfitted
    kernel copied for each fold, as for ``--lazy``) on ``corpus``: on ``test`` (a corpus) when
    given, else on the corpus's own test part unless ``cv`` is given, else by ``cv``-fold
    (default 10) cross-validation.

    Every document is tokenised once; each fold prunes the vocabulary with its training
    documents (:func:`~textnb.evaluation.evaluate.cross_validate`). Returns the report
    with ``protocol``, ``skipped_binary`` and ``seconds``.
    """
    from textnb.text.defaults import VECTORIZER_DEFAULTS  # (the text modules: documents only)
    from textnb.text.training import check_vocabulary_params, default_pipeline

    start = time.perf_counter()
    if isinstance(classifier, tuple):  # fitted fold by fold from the model's kernel
        vectorizer, model = classifier
        steps = model[2] if isinstance(model, tuple) and len(model) > 2 else ()
        default = not vectorizer and isinstance(model, tuple) and default_pipeline(model[0], steps)
        vectorizer = {**VECTORIZER_DEFAULTS, **vectorizer}
        check_vocabulary_params(vectorizer["min_df"], vectorizer["max_df"], vectorizer["max_features"])
    else:
        from textnb.naive_bayes.discriminative import DiscriminativeNB

        vectorizer, model = classifier.vectorizer, classifier.model
        default = vectorizer is None and (model is None or isinstance(model, DiscriminativeNB))
        if vectorizer is None:
            vectorizer = dict(VECTORIZER_DEFAULTS)
        if model is None:  # (TextClassifier's default model)
            model = DiscriminativeNB()
    check_classes(corpus)
    max_bytes = max_bytes or MAX_DOCUMENT_BYTES
    if test is None and cv is None:
        test = corpus.test
    texts, y, skipped, groups = read_texts(corpus, max_bytes)
    if default:  # the default pipeline: short texts get their word bigrams too, as training gives them
        # (decided on the documents learnt from: with cross-validation all of them, whose
        # sizes alone are looked at, never a label; the folds then prune on their training parts)
        from textnb.text.training import default_vectorizer

        vectorizer = {**vectorizer, **default_vectorizer(texts, max_bytes)[0]}
    if skipped or groups is not None:
        kept, n = np.unique(y, return_counts=True)
        check_binary_classes(corpus, dict(zip(kept.tolist(), n.tolist())))
    if test is not None:
        test_texts, y_test, skipped_test, _ = read_texts(test, max_bytes)
        if not test_texts:  # (a report on nothing read accuracy 0.0000 and exited 0)
            every = ("" if not skipped_test else " (its one file is binary)" if len(skipped_test) == 1
                     else f" (its {len(skipped_test)} files are all binary)")
            raise InputError(f"{test.source}: no test documents{every}: there is nothing to measure")
        X, terms = vectorize_all(texts + test_texts, vectorizer)
        n = len(texts)
        report = evaluate_split(X[:n], y, X[n:], y_test, model, vectorizer=vectorizer, terms=terms)
        report["protocol"] = "train/test"
        skipped.merge(skipped_test)
    else:
        X, terms = vectorize_all(texts, vectorizer)
        report = _folds_protocol(cross_validate(X, y, model, cv=cv, repeat=repeat, seed=seed,
                                                vectorizer=vectorizer, progress=progress, terms=terms,
                                                source=corpus.source, groups=groups))
    report["skipped_binary"] = len(skipped)
    if getattr(skipped, "empty", 0):  # (empty messages of an mbox file, among them: said apart, as train says)
        report["skipped_empty"] = skipped.empty
    unlabeled = corpus.unlabeled + (test.unlabeled if test is not None else 0)
    if unlabeled:  # fastText lines without a label
        report["skipped_unlabeled"] = unlabeled
    report["seconds"] = time.perf_counter() - start
    return report


def evaluate_table(table, model, *, test=None, cv=None, repeat=1, seed=0, progress=None):
    """Evaluate the unfitted table ``model`` on ``table``: on ``test`` (a table read
    ``like`` it) when given, else by ``cv``-fold (default 10) cross-validation.

    Instance weights (``Table.sample_weight``) count as in Weka's evaluation: every model
    is fitted with its training rows' weights, as ``textnb train`` fits it, and the figures
    weigh each test row by its own weight (:func:`~textnb.evaluation.evaluate.classification_report`).

    Rows of an unknown class (an empty cell, ARFF ``?``) are left out of the training table
    (:func:`textnb.io.tables.read_table`) and of ``test``, and counted: the report's
    ``skipped_unlabeled`` (when some were).
    """
    start = time.perf_counter()
    unlabeled = table.unlabeled  # rows of an unknown class: left out (read_table), counted
    if test is not None:
        known = np.array([v is not None for v in test.y], dtype=bool) if test.y is not None else None
        if test.class_attribute is None:  # (found by a user trial: a file without the column
            raise InputError(f"{test.source}: no class column {table.class_attribute.name!r} (the training "
                             "table's): there is nothing to measure")  # was said to have no known class
        if known is None or not known.any():
            raise InputError(f"{test.source}: no test row has a known class (column "
                             f"{table.class_attribute.name!r}): there is nothing to measure")
        if not known.all():  # as in training: rows of an unknown class are left out, and counted
            unlabeled += int((~known).sum())
            test = dataclasses.replace(test, X=test.X[known], y=test.y[known], sample_weight=(
                None if test.sample_weight is None else test.sample_weight[known]))
        if test.sample_weight is not None and not np.any(test.sample_weight > 0):
            raise InputError(f"{test.source}: every test row weighs 0 (instance weights): there is nothing to measure")
        report = evaluate_split(table.X, table.y, test.X, np.asarray(test.y, dtype=str), model,
                                sample_weight=table.sample_weight, test_weight=test.sample_weight)
        report["protocol"] = "train/test"
    else:
        report = _folds_protocol(cross_validate(table.X, table.y, model, cv=cv, repeat=repeat, seed=seed,
                                                progress=progress, source=table.source,
                                                sample_weight=table.sample_weight))
    if unlabeled:
        report["skipped_unlabeled"] = unlabeled
    report["seconds"] = time.perf_counter() - start
    return report
