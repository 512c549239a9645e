"""Which module defines each model kind: the one table a new model is registered in.

Standard library only, so importing the package (a mail client, say) costs nothing.
"""

__all__ = ["KERNEL_MODULES", "MODEL_MODULES", "SCORER_MODULES", "kernel_class", "kind_of"]

#: model kind (class name, as written in model files) -> the module that defines and
#: registers it. Adding a model kind is one line here (plus its module and CLI choice).
MODEL_MODULES = {
    "APNBC": "textnb.semi_naive.apnbc",
    "AODE": "textnb.semi_naive.aode",
    "BayesNetClassifier": "textnb.semi_naive.bayesnet",
    "BernoulliNB": "textnb.naive_bayes.discrete",
    "CalibratedNB": "textnb.meta.calibration",
    "CategoricalNB": "textnb.naive_bayes.categorical",
    "ComplementNB": "textnb.naive_bayes.complement",
    "Discretized": "textnb.naive_bayes.discretized",
    "DiscriminativeNB": "textnb.naive_bayes.discriminative",
    "GaussianNB": "textnb.naive_bayes.gaussian",
    "LBR": "textnb.semi_naive.lbr",
    "LazyTextNB": "textnb.semi_naive.lbr_text",
    "MixedNB": "textnb.text.mixed",
    "MultiLabelNB": "textnb.meta.multilabel",
    "MultinomialNB": "textnb.naive_bayes.discrete",
    "SelectTerms": "textnb.text.selection",
    "SmoothingCV": "textnb.meta.smoothing",
    "SpamScorer": "textnb.apps.spamscore",
    "TAN": "textnb.semi_naive.bayesnet",
    "TabularNB": "textnb.naive_bayes.tabular",
    "TermWeighting": "textnb.text.weighting",
    "TfidfVectorizer": "textnb.text.weighting",
    "TextClassifier": "textnb.text.classifier",
    "Vectorizer": "textnb.text.vectorizer",
    "Pipeline": "textnb.meta.smoothing",  # scikit-learn Pipelines of textnb steps
}

#: model kind -> the parameters added after files of that kind were written, each with the
#: value that reproduces what such a file did: a file without the parameter is read with
#: it (:class:`textnb.core.model_io.read_nodes`, for every reader: the estimators, the
#: scorers, inspect, merge), not with today's constructor default. ``MultiLabelNB``'s
#: ``min_labels`` (default 1 since commit 15cf45f): the files of round 2 decide with none, and
#: read with 1 they gave a label to documents they left without one (found by a trial of
#: old model files, session 51).
PARAMS_ADDED = {
    "MultiLabelNB": {"min_labels": 0},
}

#: model kind -> (module, class) of its kernel: the model without scikit-learn, which
#: ``textnb train`` fits and ``textnb predict`` scores with (same model file, same scores;
#: :func:`textnb.core.model_io.build` with ``kernel=True``)
KERNEL_MODULES = {
    "APNBC": ("textnb.semi_naive.apnbc_kernel", "APNBCKernel"),
    "AODE": ("textnb.semi_naive.aode_kernel", "AODEKernel"),
    "BayesNetClassifier": ("textnb.semi_naive.bayesnet_kernel", "BayesNetKernel"),
    "Discretized": ("textnb.naive_bayes.discretized_kernel", "DiscretizedKernel"),
    "LBR": ("textnb.semi_naive.lbr_kernel", "LBRKernel"),
    "LazyTextNB": ("textnb.semi_naive.lbr_text_kernel", "LazyTextKernel"),
    "MixedNB": ("textnb.text.mixed_kernel", "MixedKernel"),
    "TAN": ("textnb.semi_naive.bayesnet_kernel", "TANKernel"),
    "TabularNB": ("textnb.naive_bayes.tabular_kernel", "TabularKernel"),
}

#: kind of a ``TextClassifier``'s model -> (module, function): ``function(root)`` gives the
#: scorer of documents for the read model tree ``root`` (no scikit-learn), or None when it
#: cannot read it (the estimator is then loaded); consulted by
#: :func:`textnb.text.scorer.load_for_prediction` after the linear models' scorer
SCORER_MODULES = {
    "LazyTextNB": ("textnb.semi_naive.lbr_text_io", "lazy_text_scorer"),
    "MultiLabelNB": ("textnb.meta.multilabel_training", "scorer_from_tree"),
    "APNBC": ("textnb.semi_naive.lbr_text_io", "lazy_text_scorer"),  # around a LazyTextNB (else None)
}


def kernel_class(kind):
    """The kernel class of the model kind ``kind`` (:data:`KERNEL_MODULES`), its module
    imported on first use; a lower layer reaches a higher layer's kernel through it (the
    text trainer and scorer, :class:`~textnb.semi_naive.apnbc_kernel.APNBCKernel`). Raises
    KeyError for a kind without a kernel."""
    import importlib

    module, name = KERNEL_MODULES[kind]
    return getattr(importlib.import_module(module), name)


def kind_of(model):
    """The kind a model file names ``model`` by: a kernel's ``kind`` (its estimator's class
    name), else its class name."""
    cls = type(model)
    if (cls.__module__, cls.__name__) in KERNEL_MODULES.values():
        return model.kind
    return cls.__name__
