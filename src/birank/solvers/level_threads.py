"""RankSVM's many-label Hessian product of one group on threads, the same bits.

With graded or real-valued labels, conjugate gradients spends its time in the
Hessian product's replay of the active pairs (:func:`birank._kernels.pair_sweep.
sweep_hess_vec`). :class:`LevelHessian` runs it on ``n_jobs`` threads for a
problem of one group (the kernels of :mod:`birank._kernels.level_replay`):

* level 0, one node: the passes "hi" and "lo" at once, each with its own tree,
  "lo" into a separate sum added afterwards (the addition the serial replay
  makes in place, so the same bits);
* each digit level below: its nodes, split at node boundaries into runs of about
  equal rows. The nodes are the rows sharing their label's higher digits, so
  they do not move with the scores: the runs are fixed when the labels are;
* the row gathers and scatters, over equal runs of positions.

Every row's sum is the serial replay's, so the product does not depend on
``n_jobs``.
"""

from __future__ import annotations

import numpy as np

from .._kernels.level_replay import (add_rows, gather_rows, move_rows, replay_nodes,
                                     replay_pass, scatter_rows)
from .._kernels.pair_sweep import LV_HI, LV_LABEL, LV_LO, LV_ROW, LV_SRC, _digit_bits
from .._parallel import Threads

__all__ = ["LevelHessian"]


def _node_runs(lab, shift, count):
    """``count`` runs of positions of one digit level, cut at node boundaries.

    A node at the level whose digit starts at bit ``shift`` holds the rows whose
    labels agree above it (``lab >> shift``), in that order of ``lab >> shift``.
    """
    sizes = np.bincount(lab >> shift)
    ends = np.cumsum(sizes)
    n = int(ends[-1]) if len(ends) else 0
    cuts = [0]
    for t in range(1, count):
        # the first node boundary at or after t/count of the rows
        c = int(ends[np.searchsorted(ends, (n * t) // count)]) if n else 0
        if c > cuts[-1]:
            cuts.append(c)
    if n > cuts[-1]:
        cuts.append(n)
    return list(zip(cuts[:-1], cuts[1:]))


class LevelHessian:
    """The many-label Hessian replay of one group of n rows on threads.

    Parameters
    ----------
    lab : int64 array of shape (n,)
        Label ranks (``newton.label_ranks``).
    nlab : int
        Number of distinct labels (more than two).
    n_jobs : int
        Threads (scikit-learn's meaning); the results do not depend on it.
    """

    def __init__(self, lab, nlab, n_jobs):
        self.n = n = int(lab.shape[0])
        self.nlab = int(nlab)
        self.threads = Threads(n_jobs)
        self.levels, self.bits = _digit_bits(self.nlab)
        count = self.threads.n * 2
        self.rows = self.threads.ranges(n)  # runs of positions
        # the runs of nodes of each level below the first
        self.node_runs = [_node_runs(lab, self.bits * (self.levels - level), count)
                          for level in range(1, self.levels)]
        self.val = np.empty((2, n))
        self.tot = np.empty((2, n))
        self.lo = np.empty(n)

    def hess(self, u, levels, sw, unit, out):
        """``out[p] -= 2 w_p sum_{active partners q} w_q u_q`` (``out`` holds ``diag u``),
        as :func:`birank._kernels.pair_sweep.sweep_hess_vec` for this group."""
        run = self.threads.run
        n = self.n
        val, tot = self.val[0], self.tot[0]
        run(gather_rows, [(a, b, levels[0, LV_ROW], u, sw, unit, val, tot)
                          for a, b in self.rows])
        self.lo[:] = 0.0
        shift = self.bits * (self.levels - 1)  # the top digit
        lab0 = levels[0, LV_LABEL]
        run(replay_pass, [(0, n, lab0, shift, self.bits, levels[0, LV_HI], val, tot, True),
                          (0, n, lab0, shift, self.bits, levels[0, LV_LO], val, self.lo,
                           False)])
        run(add_rows, [(a, b, tot, self.lo) for a, b in self.rows])
        for level in range(1, self.levels):
            val_up, tot_up = val, tot
            val, tot = self.val[level % 2], self.tot[level % 2]
            run(move_rows, [(a, b, levels[level, LV_SRC], val_up, tot_up, val, tot)
                            for a, b in self.rows])
            shift = self.bits * (self.levels - 1 - level)
            run(replay_nodes, [(a, b, levels[level, LV_LABEL], shift, self.bits,
                                levels[level, LV_HI], levels[level, LV_LO], val, tot)
                               for a, b in self.node_runs[level - 1]])
        rows = levels[self.levels - 1, LV_ROW]
        run(scatter_rows, [(a, b, rows, sw, unit, tot, out) for a, b in self.rows])

    def close(self):
        self.threads.close()
