"""RankSVM's sort and two-label sweeps on threads, over chunks fixed by n.

:class:`ChunkedSweep` runs the kernels of :mod:`birank._kernels.chunked_sweep`
for one group with two labels (the common binary problem): the radix argsort
of the scores, the loss / gradient sweep and the Hessian product. Each phase
hands every thread a few runs of consecutive chunks; between phases the chunk
offsets are summed in chunk order here. The chunks depend on n alone, so the
results are the same bits for every ``n_jobs`` (scikit-learn's meaning,
:func:`birank._parallel.effective_n_jobs`).
"""

from __future__ import annotations

import numpy as np

from .._kernels.chunked_sweep import (MARK_SHIFT, TOTALS, chunk_count, chunk_diag_rows,
                                      chunk_hess_out, chunk_hess_prefix, chunk_loss_grad,
                                      chunk_totals, radix_count, radix_keys, radix_rows,
                                      radix_scatter)
from .._kernels.radix_sort import (_NO_FLAGS, _NO_SIGNS, _RADIX, RADIX_MIN, argsort_scores,
                                   argsort_scores64, fix_ties, signs_by_gather)
from .._parallel import Threads

__all__ = ["ChunkedSweep", "CHUNK_SHIFT", "digit_chunk_starts"]

#: chunks of 2^14 positions (128 KB of float64): about 60 at 10^6 rows, enough to
#: share between threads, few enough that the per-chunk start-up (two binary
#: searches and one partial chunk per pass) stays far below 1% of a pass
CHUNK_SHIFT = 14


class ChunkedSweep:
    """Sort and two-label sweeps of n rows over chunks of ``2^shift`` positions.

    Parameters
    ----------
    n : int
        Rows (positions).
    n_jobs : int or None
        Threads (scikit-learn's meaning); the results do not depend on it.
    shift, mark_shift : int
        log2 of the chunk length, and of the distance between the first pass's
        marks (at most ``shift``; tests use small ones on small data).
    threads : Threads or None
        A pool to run on instead of a new one of ``n_jobs`` threads.
    """

    def __init__(self, n, n_jobs=None, shift=CHUNK_SHIFT, mark_shift=MARK_SHIFT, threads=None):
        self.n = int(n)
        self.shift = int(shift)
        self.mark_shift = min(int(mark_shift), self.shift)
        self.n_chunks = chunk_count(self.n, self.shift)
        self.threads = Threads(n_jobs) if threads is None else threads
        self.runs = self.threads.ranges(self.n_chunks)  # consecutive chunks a task
        self.tot = np.zeros((self.n_chunks, TOTALS))
        self.off = np.zeros((self.n_chunks, TOTALS))
        self.loss_c = np.zeros(self.n_chunks)
        self.marks = np.zeros(((self.n >> self.mark_shift) + 1, TOTALS))
        self.counts = np.zeros((self.n_chunks, _RADIX), dtype=np.int64)

    def _each(self, fn, *args):
        """``fn(*args, c_from, c_to, *rest)`` for every run of chunks, on the threads."""
        head, tail = args[:-1], args[-1]
        self.threads.run(fn, [(*head, a, b, *tail) for a, b in self.runs])

    # -- sort --------------------------------------------------------------------
    def argsort(self, s, order, scratch, ss, upper=None, signs=None):
        """``order`` = stable ascending argsort of ``s``, ``ss = s[order]``, and with
        ``upper`` (0/1 per row) ``signs = where(upper[order], 1.0, -1.0)``
        (:func:`birank._kernels.radix_sort.argsort_scores`' result)."""
        n = self.n
        tagged = upper is not None
        if n < RADIX_MIN or n >= (1 << 31 if tagged else 1 << 32):  # the sequential sort
            return argsort_scores(s, order, scratch, sorted_out=ss, upper=upper,
                                  signs_out=signs)
        flags = upper if tagged else _NO_FLAGS
        signs_out = signs if tagged else _NO_SIGNS
        keys, keys2 = scratch[0], scratch[1]
        counts = self.counts
        self._each(radix_keys, s, keys, self.shift, (counts, flags))
        src, dst = keys, keys2
        for d in range(4):
            if d > 0:
                self._each(radix_count, src, 32 + 8 * d, self.shift, (counts,))
            total = counts.sum(axis=0)
            if np.any(total == n):  # a digit shared by every key moves nothing
                continue
            start = digit_chunk_starts(counts)
            self._each(radix_scatter, src, dst, 32 + 8 * d, self.shift, (start,))
            src, dst = dst, src
        self._each(radix_rows, src, s, order, ss, self.shift, (signs_out,))
        if not fix_ties(order, ss, 4 * n, signs_out):  # scores closer than float32 resolves
            argsort_scores64(s, order, scratch, sorted_out=ss)
            if tagged:
                signs_by_gather(upper, order, signs)
        return order

    # -- sweeps -----------------------------------------------------------------
    def loss_grad(self, s, order, bw, loss_kind, theta, grad_s, ptr_hi, ptr_lo, work,
                  scores_sorted, signs_sorted=False):
        """:func:`birank._kernels.pair_sweep.sweep_loss_grad_binary` for one group of
        two labels, the same work-array rows (3: signed weights, 4: diag, 5: scores
        in sorted order, kept for :meth:`hess_vec`; 2: the score gradient in
        sorted order); returns the loss. ``scores_sorted`` / ``signs_sorted``: the sort
        already wrote rows 5 / 3 (:meth:`argsort`), so they are not gathered."""
        n = self.n
        ss, mw, ds, gs = work[5, :n], work[3, :n], work[4, :n], work[2, :n]
        tot, off = self.tot, self.off
        self._each(chunk_totals, s, order, bw, ss, mw, not scores_sorted, not signs_sorted,
                   self.shift, (tot, self.marks, self.mark_shift))
        # lower-label sums of the chunks after each one, upper-label of those before
        off[:, :3] = _exclusive_suffix(tot[:, :3])
        off[:, 3:] = _exclusive_prefix(tot[:, 3:])
        self._each(chunk_loss_grad, ss, mw, order, self.shift,
                   (off, self.marks, self.mark_shift, float(theta), int(loss_kind), grad_s,
                    gs, ds, ptr_hi, ptr_lo, self.loss_c))
        return float(np.sum(self.loss_c))

    def diag_rows(self, order, work, diag):
        """``diag[order[t]] = work[4, t]``: the diagonal :meth:`loss_grad` kept in sorted
        order, put in row order (each entry assigned once: the same bits)."""
        self._each(chunk_diag_rows, order, work[4, :self.n], self.shift, (diag,))
        return diag

    def hess_vec(self, u, order, ptr_hi, ptr_lo, out, work):
        """:func:`birank._kernels.pair_sweep.sweep_hess_vec_binary` after :meth:`loss_grad`."""
        n = self.n
        cu, cl, uo = work[0], work[1], work[2, :n]
        mw, ds = work[3, :n], work[4, :n]
        tot, off = self.tot[:, :2], self.off[:, :2]
        self._each(chunk_hess_prefix, u, order, mw, self.shift, (uo, cu, cl, tot))
        off[:, 0] = _exclusive_suffix(tot[:, :1])[:, 0]
        off[:, 1] = _exclusive_prefix(tot[:, 1:2])[:, 0]
        self._each(chunk_hess_out, order, mw, ds, uo, cu, cl, ptr_hi, ptr_lo, self.shift,
                   (off, out))
        return out

    def close(self):
        self.threads.close()


def digit_chunk_starts(counts):
    """Where each chunk's keys of each digit go in a stable counting sort over chunks:
    ``counts[c, e]`` keys of digit e in chunk c; digits in order, and the chunks in
    order inside a digit (int64, C-contiguous, the shape of ``counts``)."""
    flat = counts.T.ravel()
    return np.ascontiguousarray((np.cumsum(flat) - flat).reshape(counts.shape[::-1]).T)


def _exclusive_prefix(t):
    """Row k: the sum of rows 0 .. k-1 (added in row order)."""
    out = np.zeros_like(t)
    np.cumsum(t[:-1], axis=0, out=out[1:])
    return out


def _exclusive_suffix(t):
    """Row k: the sum of rows k+1 .. (added from the last row back)."""
    return _exclusive_prefix(t[::-1])[::-1]
