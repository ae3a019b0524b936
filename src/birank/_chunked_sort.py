"""The radix argsort of n scores on threads, over chunks fixed by n.

:class:`ChunkedSort` runs the kernels of :mod:`birank._kernels.chunked_sort`
for RankSVM's many-label sweeps on threads
(:mod:`birank.solvers.level_threads`) and the weighted ROC AUC
(:func:`birank.metrics.roc_auc`). Each pass hands
every thread a few runs of consecutive chunks; between passes the digits'
places are summed in chunk order here. The result is the one stable order, the
same for every ``n_jobs`` (scikit-learn's meaning,
:func:`birank._parallel.effective_n_jobs`).
"""

from __future__ import annotations

import numpy as np

from ._kernels.chunked_sort import chunk_count, radix_count, radix_keys, radix_rows, radix_scatter
from ._kernels.radix_sort import _RADIX, RADIX_MIN, argsort_scores, argsort_scores64, fix_ties
from ._parallel import Threads

__all__ = ["ChunkedSort", "CHUNK_SHIFT", "digit_chunk_starts"]

#: chunks of 2^14 positions (128 KB of float64): about 60 at 10^6 rows, enough to
#: share between threads, few enough that the per-chunk start-up stays far below
#: 1% of a pass
CHUNK_SHIFT = 14


class ChunkedSort:
    """The sort of n scores over chunks of ``2^shift`` positions.

    Parameters
    ----------
    n : int
        Rows (positions).
    n_jobs : int or None
        Threads (scikit-learn's meaning); the results do not depend on it.
    shift : int
        log2 of the chunk length (tests use small ones on small data).
    threads : Threads or None
        A pool to run on instead of a new one of ``n_jobs`` threads.
    """

    def __init__(self, n, n_jobs=None, shift=CHUNK_SHIFT, threads=None):
        self.n = int(n)
        self.shift = int(shift)
        self.n_chunks = chunk_count(self.n, self.shift)
        self.threads = Threads(n_jobs) if threads is None else threads
        self.runs = self.threads.ranges(self.n_chunks)  # consecutive chunks a task
        self.counts = np.zeros((self.n_chunks, _RADIX), dtype=np.int64)

    def _each(self, fn, *args):
        """``fn(*args, c_from, c_to, *rest)`` for every run of chunks, on the threads."""
        head, tail = args[:-1], args[-1]
        self.threads.run(fn, [(*head, a, b, *tail) for a, b in self.runs])

    # -- sort --------------------------------------------------------------------
    def argsort(self, s, order, scratch, ss):
        """``order`` = stable ascending argsort of ``s`` and ``ss = s[order]``
        (:func:`birank._kernels.radix_sort.argsort_scores`' result)."""
        n = self.n
        if n < RADIX_MIN or n >= 1 << 32:  # the sequential sort
            return argsort_scores(s, order, scratch, sorted_out=ss)
        keys, keys2 = scratch[0], scratch[1]
        # the sequential sort's choice of layout: records (the float64 keys, their rows
        # beside them) when the scratch holds the rows, else packed (rows empty)
        rows, rows2 = scratch[4][0], scratch[4][1]
        if rows.shape[0] < n:
            rows = rows2 = rows[:0]
        counts = self.counts
        self._each(radix_keys, s, keys, rows, self.shift, (counts,))
        src, dst = keys, keys2
        for d in range(4):  # both layouts sort by the keys' upper 32 bits
            if d > 0:
                self._each(radix_count, src, 32 + 8 * d, self.shift, (counts,))
            total = counts.sum(axis=0)
            if np.any(total == n):  # a digit shared by every key moves nothing
                continue
            start = digit_chunk_starts(counts)
            self._each(radix_scatter, src, dst, rows, rows2, 32 + 8 * d, self.shift, (start,))
            src, dst = dst, src
            rows, rows2 = rows2, rows
        self._each(radix_rows, src, rows, s, order, ss, self.shift, ())
        if not fix_ties(order, ss, 4 * n):  # scores closer than float32 resolves
            argsort_scores64(s, order, scratch, sorted_out=ss)
        return order

    def close(self):
        self.threads.close()


def digit_chunk_starts(counts):
    """Where each chunk's keys of each digit go in a stable counting sort over chunks:
    ``counts[c, e]`` keys of digit e in chunk c; digits in order, and the chunks in
    order inside a digit (int64, C-contiguous, the shape of ``counts``)."""
    flat = counts.T.ravel()
    return np.ascontiguousarray((np.cumsum(flat) - flat).reshape(counts.shape[::-1]).T)
