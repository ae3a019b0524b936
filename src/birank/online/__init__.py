"""Online bipartite rankers: one row at a time, ``partial_fit`` on chunks of a stream.

- :class:`CBR` -- confidence-weighted bipartite ranking, full or diagonal covariance
  (khalid-ray-chitsaz), with reservoir or FIFO buffers.
- :class:`OPAUC` -- one-pass AUC, square loss, class covariances (``rank=tau``: OPAUCr).
- :class:`OnlineUniExp` -- online class-weighted univariate exponential loss.
- :class:`SPAM` -- stochastic proximal AUC maximization (saddle form of the square loss).
- :class:`PGD` -- online pairwise gradient descent against buffered earlier rows.

Every learner derives from :class:`birank.online._stream.StreamRanker`.
"""

from .cbr import CBR
from .opauc import OPAUC
from .pgd import PGD
from .spam import SPAM
from .uniexp import OnlineUniExp

__all__ = ["CBR", "OPAUC", "OnlineUniExp", "SPAM", "PGD"]
