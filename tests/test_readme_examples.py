"""Every ```python block of the README runs as written (in a scratch folder that sees
the repository's corpora/)."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BLOCKS = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), flags=re.S)


def test_readme_has_python_examples():
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_python_example_runs(code, tmp_path, monkeypatch):
    (tmp_path / "corpora").symlink_to(ROOT / "corpora")
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "README.md", "exec"), {"__name__": "readme_example"})


def test_readme_structure_examples(tmp_path):
    import json

    import numpy as np

    from textnb import BayesNetClassifier, read_structure
    from textnb.io.tables import Attribute

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    example = re.search(r"A structure file is JSON:\s*`(\{.*?\})`;", text, flags=re.S).group(1)
    assert "`{}` is naive Bayes" in text
    names = ["FamilyHistory", "Smoker", "Emphysema", "Dyspnea"]
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(80, 4)).astype(float)
    y = np.where(X[:, 1] + rng.random(80) > 1.0, "yes", "no")
    attrs = [Attribute(n, "nominal", ["0", "1"]) for n in names]
    models = {}
    for name, doc in (("example", example), ("empty", "{}")):
        path = tmp_path / f"{name}.json"
        path.write_text(doc)
        s = read_structure(path)
        models[name] = BayesNetClassifier(parents=s["parents"], class_name=s["class"] or "LungCancer",
                                          attributes=attrs).fit(X, y)
    assert set(models["example"].structure_["Dyspnea"]) == {"LungCancer", "Emphysema"}
    naive = BayesNetClassifier(attributes=attrs).fit(X, y)
    assert np.allclose(models["empty"].predict_proba(X), naive.predict_proba(X))
    json.loads(example)
