"""birank: large-scale bipartite ranking without enumerating pairs.

Public estimators (all scikit-learn compatible, dense or CSR input):

- :class:`RankSVM` -- exact all-pairs linear RankSVM (binary, graded or real labels, groups)
- :class:`ActiveRankSVM` -- shen-lin active sampling of pairs and pseudo-pairs (ASRankSVM/ASCRC)
- :class:`WeightedSVM` -- point-wise class-weighted linear SVM (shen-lin WSVM)
- :class:`CombinedRanking` -- CRR, SGD mixing pair and point steps (Sculley 2010)
- :class:`BBR`, :class:`LCBR` -- pairwise squared loss from all / sampled pair moments
- :class:`PrunedRankSVM` -- lin-jan-lin Closest / Pruned RankSVM (chosen pairs), linear or RBF

Metrics live in :mod:`birank.metrics`, data in :mod:`birank.datasets`.
"""

__version__ = "0.1.0.dev0"

from .batch.active_ranksvm import ActiveRankSVM
from .batch.bbr import BBR, LCBR
from .batch.combined_ranking import CombinedRanking
from .batch.pruned_ranksvm import PrunedRankSVM
from .batch.ranksvm import RankSVM
from .batch.weighted_svm import WeightedSVM

__all__ = ["RankSVM", "ActiveRankSVM", "WeightedSVM", "CombinedRanking", "BBR", "LCBR",
           "PrunedRankSVM"]
