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

Metrics live in :mod:`birank.metrics`, data in :mod:`birank.datasets`.
"""

__version__ = "0.1.0.dev0"

from .batch.active_ranksvm import ActiveRankSVM
from .batch.bbr import BBR, LCBR
from .batch.combined_ranking import CombinedRanking
from .batch.ranksvm import RankSVM
from .batch.weighted_svm import WeightedSVM
from .active_learning.learner import ActiveRankLearner

from .online.adaoam import AdaOAM
from .online.cbr import CBR
from .online.oam import OAM
from .online.opauc import OPAUC
from .online.pgd import PGD
from .online.spam import SPAM
from .online.uniexp import OnlineUniExp

__all__ = ["RankSVM", "ActiveRankSVM", "WeightedSVM", "CombinedRanking", "BBR", "LCBR"]
__all__ += ["CBR", "OAM", "AdaOAM"]
__all__ += ["OPAUC", "OnlineUniExp", "SPAM", "PGD"]
__all__ += ["ActiveRankLearner"]
