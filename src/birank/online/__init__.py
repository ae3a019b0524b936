"""Online (one instance at a time) bipartite rankers, all with ``partial_fit``."""

from .opauc import OPAUC

__all__ = ["OPAUC"]
