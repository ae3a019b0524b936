"""RankSVM's sort and sweeps over many groups (query ids) on threads, the same bits.

With query ids the pairs live inside each group, so after the sort a group's
loss, gradient and Hessian product depend on its own rows alone.
:class:`GroupSweeps` runs, on ``n_jobs`` threads (the kernels of
:mod:`birank._kernels.group_sweeps`):

* the sort, each group's rows by ascending score (the order of the serial radix
  argsort of all scores and counting sort by group),
* the loss sweep and the Hessian product, each group's loss kept on its own and
  the losses added in the serial sweeps' order (the two-label groups, then the
  others),
* and the diagonal's move to row order,

each over runs of whole groups of about equal rows.

Every row's numbers are those of the serial sweeps, so neither the loss nor the
product depends on ``n_jobs``.
"""

from __future__ import annotations

import numpy as np

from .._kernels.group_sweeps import diag_rows_groups, hess_groups, loss_groups, sort_groups
from .._parallel import Threads, bound_runs

__all__ = ["GroupSweeps"]


class GroupSweeps:
    """The sort, loss sweep and Hessian product of RankSVM's pairs inside groups, on
    threads.

    Parameters
    ----------
    members : int64 array of shape (n,)
        The rows grouped by group, in row order within each.
    seg : int64 array of shape (G + 1,)
        Where each group's rows start in the sorted order
        (:func:`birank._lexsort.group_bounds`).
    nlab : int64 array of shape (G,)
        Distinct labels of each group.
    n_jobs : int or None
        Threads (scikit-learn's meaning); the results do not depend on it.
    """

    def __init__(self, members, seg, nlab, n_jobs=None):
        self.members, self.seg, self.nlab = members, seg, nlab
        self.threads = Threads(n_jobs)
        # runs (g0, g1) of whole groups of about equal rows, each of one row or more
        self.runs = bound_runs(seg, len(self.threads.ranges(int(seg[-1]))))
        # a run's two-label replay writes one position past its end (hess_groups):
        # every other run at a time, so that no two touching runs run together
        self.run_halves = (self.runs[0::2], self.runs[1::2])
        self.group_loss = np.empty(len(nlab))
        self.binary = np.flatnonzero(nlab == 2)
        self.many = np.flatnonzero(nlab > 2)

    def argsort(self, s, order, ss):
        """``order``: the rows by group, then by ascending score (ties in row order), and
        ``ss = s[order]``."""
        self.threads.run(sort_groups, [(s, self.members, self.seg, order, ss, g0, g1)
                                       for g0, g1 in self.runs])
        return order

    def loss_grad(self, s, order, lab, sw, bw, loss_kind, grad_s, diag, ptr_hi, ptr_lo, work,
                  levels, theta, unit_weights, scores_sorted):
        """The loss, as :func:`birank._kernels.pair_sweep.sweep_loss_grad` (the same
        arguments and outputs), the groups on the threads."""
        losses = self.group_loss
        self.threads.run(loss_groups, [
            (s, order, self.seg, lab, self.nlab, sw, bw, loss_kind, grad_s, diag, ptr_hi,
             ptr_lo, work, levels, theta, unit_weights, scores_sorted, losses, g0, g1)
            for g0, g1 in self.runs])
        # added one by one as the serial sweeps add them (cumsum is sequential)
        ordered = np.concatenate((losses[self.binary], losses[self.many]))
        return float(np.cumsum(ordered)[-1]) if ordered.size else 0.0

    def hess(self, u, order, sw, diag, ptr_hi, ptr_lo, out, work, levels, unit_weights):
        """``out``: the Hessian product, as :func:`birank._kernels.pair_sweep.sweep_hess_vec`."""
        for half in self.run_halves:
            self.threads.run(hess_groups, [(u, order, self.seg, self.nlab, sw, diag, ptr_hi,
                                            ptr_lo, out, work, levels, unit_weights, g0, g1)
                                           for g0, g1 in half])
        return out

    def diag_rows(self, order, work, diag):
        """The two-label groups' diagonal in row order, as
        :func:`birank._kernels.pair_sweep.two_label_diag_rows`."""
        self.threads.run(diag_rows_groups, [(order, self.seg, self.nlab, work, diag, g0, g1)
                                            for g0, g1 in self.runs])

    def close(self):
        self.threads.close()
