"""birank: large-scale bipartite ranking without enumerating pairs.

Public estimators (all scikit-learn compatible, dense or CSR input):

- :class:`RankSVM` -- exact all-pairs linear RankSVM (binary, graded or real labels, groups)
- :class:`ActiveRankSVM` -- shen-lin active sampling of pairs and pseudo-pairs (ASRankSVM/ASCRC)
- :class:`WeightedSVM` -- point-wise class-weighted linear SVM (shen-lin WSVM)
- :class:`CombinedRanking` -- CRR, SGD mixing pair and point steps (Sculley 2010)
- :class:`BBR`, :class:`LCBR` -- pairwise squared loss from all / sampled pair moments
- :class:`CBR` -- online confidence-weighted bipartite ranking (khalid-ray-chitsaz), ``partial_fit``
- :class:`OAM`, :class:`AdaOAM` -- online AUC maximization (Zhao et al. 2011; Ding et al. 2015)

Metrics live in :mod:`birank.metrics`, data in :mod:`birank.datasets`.
"""

__version__ = "0.1.0.dev0"

from .batch.active_ranksvm import ActiveRankSVM
from .batch.bbr import BBR, LCBR
from .batch.combined_ranking import CombinedRanking
from .batch.ranksvm import RankSVM
from .batch.weighted_svm import WeightedSVM
from .online.adaoam import AdaOAM
from .online.cbr import CBR
from .online.oam import OAM

__all__ = ["RankSVM", "ActiveRankSVM", "WeightedSVM", "CombinedRanking", "BBR", "LCBR"]
__all__ += ["CBR", "OAM", "AdaOAM"]
