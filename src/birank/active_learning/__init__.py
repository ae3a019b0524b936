"""Pool-based active learning to rank (donmez-carbonell 2009): LossMin and four baselines.

- :class:`ActiveRankLearner` -- the query / teach loop and :meth:`~ActiveRankLearner.simulate`
- :class:`LabelOracle` -- simulated labeler that counts every label read
- :mod:`~birank.active_learning.strategies` -- per-document informativeness of each strategy
- :mod:`~birank.active_learning.threshold` -- rank threshold (Fig. 2) and calibration (eq. 8)
"""

from .learner import DIVERSE_FOLDS, ActiveRankLearner, query_metrics
from .oracle import LabelOracle
from .strategies import (
    STRATEGIES,
    diverse_scores,
    entropy_scores,
    lossmin_multilevel_scores,
    lossmin_scores,
    random_scores,
    select_per_query,
    uncertain_scores,
    within_query_ranks,
)
from .threshold import calibrated_posterior, rank_thresholds, sigmoid_posterior, sort_pool

__all__ = [
    "ActiveRankLearner",
    "DIVERSE_FOLDS",
    "LabelOracle",
    "STRATEGIES",
    "calibrated_posterior",
    "diverse_scores",
    "entropy_scores",
    "lossmin_multilevel_scores",
    "lossmin_scores",
    "query_metrics",
    "random_scores",
    "rank_thresholds",
    "select_per_query",
    "sigmoid_posterior",
    "sort_pool",
    "uncertain_scores",
    "within_query_ranks",
]
