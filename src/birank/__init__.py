"""birank: large-scale bipartite ranking without enumerating pairs.

Public estimators (all scikit-learn compatible, dense or CSR input):

- :class:`RankSVM` -- exact all-pairs linear RankSVM (binary, graded or real labels, groups)
- :class:`ActiveRankSVM` -- shen-lin active sampling of pairs and pseudo-pairs (ASRankSVM/ASCRC)
- :class:`WeightedSVM` -- point-wise class-weighted linear SVM (shen-lin WSVM)
- :class:`CombinedRanking` -- CRR, SGD mixing pair and point steps (Sculley 2010)
- :class:`BBR`, :class:`LCBR` -- pairwise squared loss from all / sampled pair moments
- :class:`ActiveRankLearner` -- active learning to rank per query (donmez-carbonell LossMin)
- :class:`CBR` -- online confidence-weighted bipartite ranking (khalid-ray-chitsaz), ``partial_fit``
- :class:`OAM`, :class:`AdaOAM` -- online AUC maximization (Zhao et al. 2011; Ding et al. 2015)
- :class:`OPAUC` (and OPAUCr), :class:`OnlineUniExp`, :class:`SPAM`, :class:`PGD` -- online AUC learners
- :class:`PrunedRankSVM` -- lin-jan-lin Closest / Pruned RankSVM (chosen pairs), linear or RBF

Metrics live in :mod:`birank.metrics`, data in :mod:`birank.datasets`.

The estimators are imported on first use (PEP 562 ``__getattr__``), so that
``import birank`` -- and with it the ``birank`` command's ``--help`` -- does
not pay for numpy, scikit-learn and numba until a model is needed.
"""

from __future__ import annotations

# typing.TYPE_CHECKING without importing typing (milliseconds of every CLI start); type
# checkers treat a name TYPE_CHECKING as true
TYPE_CHECKING = False

__version__ = "0.1.0.dev0"

# public name -> module that defines it (relative to this package); add new
# estimators here (an eager ``from .x import Y`` line would make every CLI start slow)
_LAZY = {
    "RankSVM": ".batch.ranksvm",
    "ActiveRankSVM": ".batch.active_ranksvm",
    "WeightedSVM": ".batch.weighted_svm",
    "CombinedRanking": ".batch.combined_ranking",
    "BBR": ".batch.bbr",
    "LCBR": ".batch.bbr",
    "PrunedRankSVM": ".batch.pruned_ranksvm",
    "CBR": ".online.cbr",
    "OAM": ".online.oam",
    "AdaOAM": ".online.adaoam",
    "OPAUC": ".online.opauc",
    "OnlineUniExp": ".online.uniexp",
    "SPAM": ".online.spam",
    "PGD": ".online.pgd",
    "ActiveRankLearner": ".active_learning.learner",
}

# a literal list (the keys of _LAZY, tests/test_typing.py checks): type checkers read it as
# the names birank exports; with ``list(_LAZY)`` mypy --strict refused ``from birank import
# RankSVM`` ("does not explicitly export")
__all__ = ["RankSVM", "ActiveRankSVM", "WeightedSVM", "CombinedRanking", "BBR", "LCBR",
           "PrunedRankSVM", "CBR", "OAM", "AdaOAM", "OPAUC", "OnlineUniExp", "SPAM", "PGD",
           "ActiveRankLearner"]

if TYPE_CHECKING:  # what type checkers see; at run time __getattr__ imports on first use
    from typing import Any

    from .active_learning.learner import ActiveRankLearner
    from .batch.active_ranksvm import ActiveRankSVM
    from .batch.bbr import BBR, LCBR
    from .batch.combined_ranking import CombinedRanking
    from .batch.pruned_ranksvm import PrunedRankSVM
    from .batch.ranksvm import RankSVM
    from .batch.weighted_svm import WeightedSVM
    from .online.adaoam import AdaOAM
    from .online.cbr import CBR
    from .online.oam import OAM
    from .online.opauc import OPAUC
    from .online.pgd import PGD
    from .online.spam import SPAM
    from .online.uniexp import OnlineUniExp
del TYPE_CHECKING


def __getattr__(name: str) -> Any:
    import importlib

    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    try:  # birank.metrics etc. without an explicit import of the submodule
        return importlib.import_module(f".{name}", __name__)
    except ModuleNotFoundError as exc:
        if exc.name != f"{__name__}.{name}":
            raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
