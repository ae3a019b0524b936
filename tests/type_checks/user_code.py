"""User code that type checkers must accept as written (``make test`` runs mypy on it,
with the re-export rule of ``mypy --strict`` for the package: ``implicit_reexport =
false`` on ``birank``). Not a test module: nothing here runs."""

from __future__ import annotations

import birank
from birank import BBR, ActiveRankSVM, RankSVM
from birank.datasets import load_a9a, load_bundled
from birank.metrics import roc_auc


def readme_example() -> list[float]:
    X, y = load_a9a(subset="train")
    Xt, yt = load_a9a(subset="test")
    aucs = []
    for model in (RankSVM(C=1.0), ActiveRankSVM(budget=8000, random_state=0),
                  BBR(radius=1.0)):
        aucs.append(roc_auc(yt, model.fit(X, y).decision_function(Xt)))
    return aucs


def bundled_shapes(name: str) -> tuple[int, int]:
    X, y = load_bundled("heart")  # two values for a file without query ids
    Xq, yq, groups = load_bundled("tfranking_toy")  # three with them
    model = birank.RankSVM().fit(Xq, yq, groups=groups)
    any_file = load_bundled(name)  # either, for a name known only at run time
    return X.shape[0] + int(model.coef_.shape[0]), len(any_file)
