"""birank: large-scale bipartite ranking without enumerating pairs."""

__version__ = "0.1.0.dev0"

__all__ = []

from .batch.bbr import BBR, LCBR  # noqa: E402

__all__ += ["BBR", "LCBR"]

from .batch.weighted_svm import WeightedSVM  # noqa: E402

__all__ += ["WeightedSVM"]

from .batch.active_ranksvm import ActiveRankSVM  # noqa: E402

__all__ += ["ActiveRankSVM"]

from .batch.combined_ranking import CombinedRanking  # noqa: E402

__all__ += ["CombinedRanking"]

from .batch.ranksvm import RankSVM  # noqa: E402

__all__ += ["RankSVM"]
