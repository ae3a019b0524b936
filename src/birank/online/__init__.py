"""Online bipartite rankers: one row at a time, ``partial_fit`` on chunks of a stream.

- :class:`CBR` -- confidence-weighted bipartite ranking, full or diagonal covariance
  (khalid-ray-chitsaz), with reservoir or FIFO buffers.

Every learner derives from :class:`birank.online._stream.StreamRanker`.
"""

from .cbr import CBR

__all__ = ["CBR"]
