"""RankSVM's pair loss for one group of two labels, ranked against thresholds.

:class:`TwoLabelSweep` runs the kernels of :mod:`birank._kernels.threshold_sweep`:
it sorts only the upper rows' thresholds ``s_i - theta`` and ranks every lower
row among them, instead of sorting all scores. The per-row passes over the
lower rows run on threads (``n_jobs``, scikit-learn's meaning), in parts that
write separate rows; the sums by rank and the upper rows run in row order as
one task beside them. So the results are the same bits for every ``n_jobs``.
"""

from __future__ import annotations

import numpy as np

from .._kernels.radix_sort import argsort_scores, radix_scratch
from .._kernels.threshold_sweep import (SPARE, bucket_count, bucket_table, hess_lower,
                                        hess_upper, hess_upper_prefix, lower_ranks, lower_rows,
                                        lower_sums, upper_ranks, upper_rows, upper_thresholds)
from .._parallel import Threads

__all__ = ["TwoLabelSweep", "TWO_LABEL_THREADS_MIN"]

#: rows from which the per-row passes run on ``n_jobs`` threads; below, each pass is
#: too short for the hand-over (a scratch A/B of a loss and a Hessian product, one
#: thread / two, medians of 15: 2^17 rows 1.00x / 0.75x the time, 2^18 rows 1.32x /
#: 1.20x, 2^20 rows 1.51x / 1.59x). The bits do not depend on it
TWO_LABEL_THREADS_MIN = 1 << 18


class TwoLabelSweep:
    """Loss, score gradient, diagonal and Hessian product of the two-label pair loss.

    Parameters
    ----------
    upper : ndarray of shape (n,), bool
        The rows of the upper label.
    sample_weight : ndarray of shape (n,), float64
        Row weights (a pair's weight is the product).
    unit : bool
        Every weight is 1 (the passes then read none).
    n_jobs : int or None
        Threads for the per-row passes, from :data:`TWO_LABEL_THREADS_MIN` rows; the
        results do not depend on it.
    """

    def __init__(self, upper, sample_weight, unit, n_jobs=None):
        self.up = np.flatnonzero(upper).astype(np.int64, copy=False)
        self.lo = np.flatnonzero(~upper).astype(np.int64, copy=False)
        self.unit = bool(unit)
        self.uw = np.empty(0) if unit else sample_weight[self.up]
        self.lw = np.empty(0) if unit else sample_weight[self.lo]
        nu, nl = self.up.shape[0], self.lo.shape[0]
        self.n_pairs = nu * nl  # (every upper row with every lower one)
        index = np.int32 if nu < np.iinfo(np.int32).max else np.int64
        self.su = np.empty(nu)  # the upper rows' scores, row order
        self.T = np.empty(nu)  # thresholds in row order, then sorted (Ts, Tord)
        # the sorted thresholds, then SPARE +inf that the ranks' comparisons may read
        self.Tp = np.full(nu + SPARE, np.inf)
        self.Ts = self.Tp[:nu]  # (the sort writes them there)
        self.Tord = np.empty(nu, dtype=np.int64)
        self.scratch = radix_scratch(nu)
        self.tab = np.empty(bucket_count(nu) + 2, dtype=index)
        self.k_of = np.empty(nl, dtype=index)  # each lower row's rank among the thresholds
        self.c_up = np.empty(nu, dtype=np.int64)  # first rank of each upper row's threshold
        self.gu = np.empty(nu)  # upper rows' gradient, diagonal, w u: row order
        self.du = np.empty(nu)
        self.uu = np.empty(nu)
        self.acc = np.empty((nu + 2, 3))
        self.pre = np.empty((nu + 1, 2))
        self.hacc = np.empty(nu + 2)
        self.hpre = np.empty(nu + 1)
        self.loss = 0.0  # the last loss_grad's (set by its upper-rows task)
        # (one thread: no pool, the calls run in turn)
        self.threads = Threads(n_jobs if nu + nl >= TWO_LABEL_THREADS_MIN else 1)
        self.parts = self.threads.ranges(nl)

    def _each(self, fn, *args, first=None):
        """``fn(*args, q0, q1)`` for every part of the lower rows, on the threads;
        ``first``: a call ``(f, *a)`` handed out before them (the serial work that runs
        beside the parts)."""
        calls = [(fn, *args, q0, q1) for q0, q1 in self.parts]
        if first is not None:
            calls.insert(0, first)
        self.threads.run(_call, calls)

    def _upper_side(self, s, theta, loss_kind, grad_s, diag):
        """The sums by rank, then the upper rows (one task; its loss kept)."""
        lower_sums(s, self.lo, self.lw, self.unit, self.k_of, self.acc)
        self.loss = upper_rows(self.su, self.up, self.uw, self.unit, self.Tord, self.c_up,
                               self.acc, theta, loss_kind, self.gu, self.du, grad_s, diag)

    def loss_grad(self, s, loss_kind, theta, grad_s, diag):
        """The pair loss at scores ``s``; writes every row's score gradient and
        Hessian diagonal (row order) and keeps the active pairs for
        :meth:`hess_vec`."""
        upper_thresholds(s, self.up, theta, self.su, self.T)
        argsort_scores(self.T, self.Tord, self.scratch, sorted_out=self.Ts)
        lo, scale = bucket_table(self.Ts, self.tab)
        # the upper rows' first ranks and prefix sums read only the sorted thresholds:
        # one task beside the lower rows' ranks
        self._each(lower_ranks, s, self.lo, self.Tp, self.tab, lo, scale, self.k_of,
                   first=(upper_ranks, self.su, self.uw, self.unit, self.Ts, self.Tord,
                          self.c_up, self.pre))
        # the lower rows read only the ranks and the upper rows' prefix sums: they run
        # beside the sums by rank and the upper rows, which write the other rows
        self._each(lower_rows, s, self.lo, self.lw, self.unit, self.k_of, self.pre, theta,
                   loss_kind, grad_s, diag,
                   first=(self._upper_side, s, theta, loss_kind, grad_s, diag))
        return self.loss

    def hess_vec(self, u, diag, out):
        """``out`` = the generalized Hessian (w.r.t. the scores) times u, over the
        active pairs of the last :meth:`loss_grad` (``diag``: its diagonal)."""
        hess_upper_prefix(u, self.up, self.uw, self.unit, self.Tord, self.uu, self.hpre)
        self._each(hess_lower, u, self.lo, self.lw, self.unit, self.k_of, self.hpre, diag, out,
                   first=(hess_upper, u, self.up, self.uw, self.lo, self.lw, self.unit,
                          self.k_of, self.c_up, diag, self.hacc, out))
        return out


def _call(fn, *args):
    fn(*args)
