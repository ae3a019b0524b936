"""Scale-out on Dask: exact pair-moment rankers, metrics and scoring over row blocks.

Everything here is written as map (per row block: statistics) / combine (a
tree of merges) / finalize (a small solve on one process); see
:mod:`birank.distributed._engine`. Install with ``pip install 'birank[dask]'``.

=====================  =====================================================
``fit``                RankSVM exact (Newton on the driver, X's products on the
                       blocks), BBR exact, LCBR same pairs, ActiveRankSVM on a
                       uniform sample of rows, online learners sequential
                       over blocks
``decision_function``  scores via ``map_blocks`` (lazy)
``roc_auc``            exact, block-pair counts merged (no gather)
``pairwise_accuracy``  exact, graded labels, block-pair counts merged
=====================  =====================================================
"""

from ._engine import DaskEngine, as_dask_rows
from ._operator import DaskRowOperator
from ._fit import DaskAllPairsOperator, decision_function, fit
from ._metrics import pairwise_accuracy, roc_auc

__all__ = ["DaskEngine", "as_dask_rows", "fit", "decision_function", "DaskAllPairsOperator",
           "DaskRowOperator",
           "roc_auc", "pairwise_accuracy"]
