"""Online bipartite rankers: one row at a time, ``partial_fit`` on chunks of a stream.

- :class:`CBR` -- confidence-weighted bipartite ranking, full or diagonal covariance
  (khalid-ray-chitsaz), with reservoir or FIFO buffers.
- :class:`OAM` -- online AUC maximization, OAM_seq / OAM_gra (Zhao et al. 2011).
- :class:`AdaOAM` -- OPAUC's one-pass gradient with AdaGrad steps (Ding et al. 2015).

Every learner derives from :class:`birank.online._stream.StreamRanker`.
"""

from .adaoam import AdaOAM
from .cbr import CBR
from .oam import OAM

__all__ = ["CBR", "OAM", "AdaOAM"]
