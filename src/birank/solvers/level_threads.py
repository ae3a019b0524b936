"""RankSVM's many-label sweeps of one group on threads, the same bits.

With graded or real-valued labels, a fit spends its time in the loss sweep over
the label digits (:func:`birank._kernels.pair_sweep.sweep_loss_grad`) and in
the Hessian product's replay of its active pairs (:func:`birank._kernels.
pair_sweep.sweep_hess_vec`). :class:`LevelSweeps` runs both on ``n_jobs``
threads for a problem of one group (the kernels of
:mod:`birank._kernels.level_replay`):

* level 0, one node: the passes "hi" and "lo" at once, each with its own tree,
  "lo" into separate sums added afterwards (the addition the serial sweeps
  make in place, so the same bits);
* the loss sweep's counting sort of level 0 into the next level, over chunks
  of positions: each chunk counts its digits, the places follow in chunk order
  within each digit (the stable order of one pass), then each chunk moves its
  rows;
* each digit level below: its nodes, split at node boundaries into runs of about
  equal rows. The nodes are the rows sharing their label's higher digits, so
  they do not move with the scores: the runs are fixed when the labels are.
  Each node's loss is summed on its own and the nodes' sums are added in
  position order, as the serial sweep does;
* the row gathers and scatters, over equal runs of positions.

Every row's sum is the serial sweeps', so neither the loss sweep nor the
product depends on ``n_jobs``.
"""

from __future__ import annotations

import numpy as np

from .._kernels.level_replay import (add_pairs, add_rows, count_digits, gather_rows,
                                     loss_gather, loss_nodes, loss_pass, loss_scatter,
                                     move_rows, replay_nodes, replay_pass, scatter_rows,
                                     split_chunk)
from .._kernels.pair_sweep import LV_HI, LV_LABEL, LV_LO, LV_ROW, LV_SRC, _digit_bits
from .._parallel import Threads, bound_runs
from .._chunked_sort import ChunkedSort, digit_chunk_starts

__all__ = ["LevelSweeps"]


class LevelSweeps:
    """The many-label loss sweep and Hessian replay of one group of n rows on threads.

    Parameters
    ----------
    lab : int64 array of shape (n,)
        Label ranks (``newton.label_ranks``).
    nlab : int
        Number of distinct labels (more than two).
    n_jobs : int
        Threads (scikit-learn's meaning); the results do not depend on it.
    n_levels : int
        Levels of the level cache the sweeps fill (``pair_sweep.level_cache``),
        which sets the digits.
    """

    def __init__(self, lab, nlab, n_jobs, n_levels):
        self.n = n = int(lab.shape[0])
        self.nlab = int(nlab)
        self.threads = Threads(n_jobs)
        self.levels, self.bits = _digit_bits(self.nlab, int(n_levels))
        count = self.threads.n * 2
        self.rows = self.threads.ranges(n)  # runs of positions
        # the runs of positions of each level below the first, cut at node boundaries,
        # and the first position of each node of two rows or more (the nodes whose loss
        # is summed). A node at the level whose digit starts at bit ``shift`` holds the
        # rows whose labels agree above it, in the order of ``lab >> shift``
        self.node_runs, self.node_starts = [], []
        for level in range(1, self.levels):
            sizes = np.bincount(lab >> (self.bits * (self.levels - level)))
            edges = np.concatenate(([0], np.cumsum(sizes)))
            self.node_runs.append([(int(edges[i]), int(edges[j]))
                                   for i, j in bound_runs(edges, count)])
            self.node_starts.append(edges[:-1][sizes > 1])
        self.val = np.empty((2, n))
        self.tot = np.empty((2, n))
        self.lo = np.empty(n)
        self.lo_pair = np.empty((2, n))  # level 0's pass "lo" of the loss sweep
        self.node_loss = np.empty(n)
        # the sort of the scores, over chunks on the same threads (the order of
        # argsort_scores: stable, a function of the scores alone)
        self.sorter = ChunkedSort(n, threads=self.threads)

    def argsort(self, s, order, scratch, ss):
        """``order`` = the stable ascending argsort of ``s``, ``ss = s[order]``."""
        return self.sorter.argsort(s, order, scratch, ss)

    def loss_grad(self, s, order, lab, sw, unit, loss_kind, theta, scores_sorted, grad_s, diag,
                  work, levels):
        """The loss and its score gradient and diagonal (into ``grad_s``, ``diag``), and
        the level cache, as :func:`birank._kernels.pair_sweep.sweep_loss_grad` for this
        group (``order``: its rows by ascending score)."""
        run = self.threads.run
        n, bits, L = self.n, self.bits, self.levels
        cs, ns = work[5, :n], work[6, :n]
        cw, nw = work[0, :n], work[1, :n]
        cg, ng = work[2, :n], work[3, :n]
        cd, nd = work[4, :n], work[7, :n]
        cg2, cd2 = self.lo_pair
        run(loss_gather, [(a, b, order, s, lab, sw, unit, scores_sorted, cs, cw, cg, cd,
                           levels[0, LV_ROW], levels[0, LV_LABEL], cg2, cd2)
                          for a, b in self.rows])
        shift = bits * (L - 1)
        cl = levels[0, LV_LABEL]
        run(loss_pass, [(0, n, cs, cw, cl, shift, bits, unit, theta, loss_kind, cg, cd,
                         levels[0, LV_HI], 0, True, self.node_loss),
                        (0, n, cs, cw, cl, shift, bits, unit, theta, loss_kind, cg2, cd2,
                         levels[0, LV_LO], 0, False, self.node_loss)])
        loss = 0.0 + float(self.node_loss[0])
        run(add_pairs, [(a, b, cg, cd, cg2, cd2) for a, b in self.rows])
        for level in range(1, L):
            if level == 1:  # level 0's one node to level 1 (the levels below: loss_nodes)
                self._split_level0(cl, shift, unit, cs, cw, cg, cd, levels[0, LV_ROW],
                                   (ns, nw, ng, nd, levels[1, LV_ROW], levels[1, LV_LABEL],
                                    levels[1, LV_SRC]))
            cs, ns = ns, cs
            cw, nw = nw, cw
            cg, ng = ng, cg
            cd, nd = nd, cd
            shift = bits * (L - 1 - level)
            cl = levels[level, LV_LABEL]
            split = level < L - 1
            nxt = levels[level + 1 if split else level]  # (written only with a split)
            run(loss_nodes, [(a, b, cs, cw, cl, shift, bits, unit, theta, loss_kind, cg, cd,
                              levels[level, LV_HI], levels[level, LV_LO], 0, self.node_loss,
                              split, levels[level, LV_ROW], ns, nw, ng, nd, nxt[LV_ROW],
                              nxt[LV_LABEL], nxt[LV_SRC])
                             for a, b in self.node_runs[level - 1]])
            # the nodes' sums added one by one in position order (cumsum is sequential)
            sums = self.node_loss[self.node_starts[level - 1]]
            loss = float(np.cumsum(np.concatenate(([loss], sums)))[-1])
        run(loss_scatter, [(a, b, levels[L - 1, LV_ROW], cg, cd, grad_s, diag)
                           for a, b in self.rows])
        return loss

    def _split_level0(self, cl, shift, unit, cs, cw, cg, cd, ci, nxt):
        """Level 0 (one node) to level 1 by a stable counting sort over chunks."""
        chunks = self.rows
        counts = np.empty((len(chunks), 1 << self.bits), dtype=np.int64)
        self.threads.run(count_digits, [(a, b, cl, shift, self.bits, counts[c])
                                        for c, (a, b) in enumerate(chunks)])
        starts = digit_chunk_starts(counts)
        ns, nw, ng, nd, ni, nl, lv_src = nxt
        self.threads.run(split_chunk, [(a, b, cl, shift, self.bits, unit, starts[c], cs, cw,
                                        cg, cd, ci, ns, nw, ng, nd, ni, nl, lv_src, 0)
                                       for c, (a, b) in enumerate(chunks)])

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
