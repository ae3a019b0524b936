"""Online bipartite rankers: one row at a time, ``partial_fit`` on chunks of a stream.

- :class:`CBR` -- confidence-weighted bipartite ranking, full or diagonal covariance
  (khalid-ray-chitsaz), with reservoir or FIFO buffers.
- :class:`OAM` -- online AUC maximization, OAM_seq / OAM_gra (Zhao et al. 2011).
- :class:`AdaOAM` -- OPAUC's one-pass gradient with AdaGrad steps (Ding et al. 2015).
- :class:`OPAUC` -- one-pass AUC, square loss, class covariances (``rank=tau``: OPAUCr).
- :class:`OnlineUniExp` -- online class-weighted univariate exponential loss.
- :class:`SPAM` -- stochastic proximal AUC maximization (saddle form of the square loss).
- :class:`PGD` -- online pairwise gradient descent against buffered earlier rows.

Every learner derives from :class:`birank.online._stream.StreamRanker`.
"""

from .adaoam import AdaOAM
from .cbr import CBR
from .oam import OAM
from .opauc import OPAUC
from .pgd import PGD
from .spam import SPAM
from .uniexp import OnlineUniExp

__all__ = ["CBR", "OAM", "AdaOAM", "OPAUC", "OnlineUniExp", "SPAM", "PGD"]
