"""Online (one instance at a time) bipartite rankers, all with ``partial_fit``."""

from .opauc import OPAUC
from .pgd import PGD
from .spam import SPAM
from .uniexp import OnlineUniExp

__all__ = ["OPAUC", "OnlineUniExp", "SPAM", "PGD"]
