"""``n_jobs`` (scikit-learn's convention) and thread-parallel products with X.

``n_jobs=None`` means 1 unless a joblib ``parallel_config`` says otherwise,
``-1`` all usable cores, ``-2`` all but one, and so on
(``joblib.effective_n_jobs``), capped at the cores this process may run on.
The work is split into blocks fixed by the data alone (never by ``n_jobs``)
and every reduction sums the blocks in block order, so a result is the same
bit for bit for every ``n_jobs``. The kernels release the GIL, so plain
threads run them in parallel without copying X.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.sparse as sp

from ._kernels.blocked_products import (csr_grad_diag_block, csr_matvec_block, csr_rmatvec_block,
                                       sum_partials)
from ._kernels.value_scan import finite_magnitude
from ._linalg import split_grad_diag

__all__ = ["effective_n_jobs", "even_runs", "bound_runs", "Threads", "BlockedProducts",
           "scan_values"]


def effective_n_jobs(n_jobs):
    """Number of threads for ``n_jobs`` (scikit-learn / joblib meaning), at least 1."""
    from joblib import effective_n_jobs as _joblib_n_jobs

    k = int(_joblib_n_jobs(n_jobs))
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(k, cores))


def resolve_n_jobs(n_jobs):
    """``n_jobs`` as the solvers and products take it: an int (the fixed-block paths, the
    same bits for every value), or None (the one-thread kernels).

    None stays None unless a joblib ``parallel_config`` / ``parallel_backend`` asks for
    more than one job: then its count, as scikit-learn reads None. (The fixed-block
    paths are slower on one thread than the one-thread kernels, hence None's own path.)
    """
    if n_jobs is not None:
        return n_jobs
    from joblib import effective_n_jobs as _joblib_n_jobs

    k = int(_joblib_n_jobs(None))
    return k if k > 1 else None


#: rows of a block are chosen so a block holds at least this many stored entries
MIN_BLOCK_NNZ = 1 << 18
#: at most this many blocks (partial vectors of X' u)
MAX_BLOCKS = 64


#: tasks per thread of a parallel phase (runs of consecutive blocks or chunks, taken from
#: one shared list as the threads finish): more runs even out the threads' finish when
#: one starts late or runs slower, at a few microseconds of hand-over each.
#: ``benchmarks/bench_threads.py --tasks 2 6`` (RankSVM's two-thread fit at 10^6 rows):
#: 0.99x the time with 6 against 2 (medians of 21, alternating), 0.97x in a scratch
#: run of the same; the sums do not depend on it
TASKS_PER_THREAD = 6


def _run_jobs(fn, jobs):
    for job in jobs:
        fn(*job)


def even_runs(count, k):
    """``(start, stop)`` of ``min(k, count)`` consecutive runs (at least one) that cover
    ``range(count)``, their lengths differing by at most one."""
    k = max(1, min(count, k))
    cuts = [(count * t) // k for t in range(k + 1)]
    return [(cuts[t], cuts[t + 1]) for t in range(k)]


def bound_runs(bounds, count):
    """At most ``count`` runs ``(i, j)`` of consecutive pieces, whose edges are ``bounds``
    (``K + 1`` ascending, from 0 to the total): cut at the first edge at or after each
    ``t / count`` of the total, every run holding at least one row (empty pieces at the
    end join the last run); they cover the pieces in order. No run for a total of 0."""
    n = int(bounds[-1]) if len(bounds) else 0
    cuts = [0]
    for t in range(1, count):
        i = int(np.searchsorted(bounds, (n * t) // count))  # the first edge there or after
        if bounds[i] > bounds[cuts[-1]]:
            cuts.append(i)
    if n > bounds[cuts[-1]]:
        cuts.append(len(bounds) - 1)
    elif len(cuts) > 1:
        cuts[-1] = len(bounds) - 1
    return list(zip(cuts[:-1], cuts[1:]))


def row_blocks(indptr, n_features):
    """Row bounds of blocks of about equal nnz; their number depends on X only.

    Enough blocks to share among threads, but no more than keep the partial
    vectors of ``X' u`` (one of ``n_features`` a block) under an eighth of X's
    stored entries.
    """
    n = indptr.shape[0] - 1
    nnz = int(indptr[-1])
    k = min(MAX_BLOCKS, max(1, nnz // MIN_BLOCK_NNZ), max(1, nnz // (8 * max(n_features, 1))))
    # (targets in indptr's dtype: int64 targets would make numpy copy an int32 indptr)
    targets = ((np.arange(1, k) * nnz) // k).astype(indptr.dtype)
    cuts = np.searchsorted(indptr, targets, side="left")
    bounds = np.unique(np.concatenate(([0], cuts, [n]))).astype(np.int64)
    return bounds


class Threads:
    """``n_jobs`` threads (none for one) that run a list of calls and wait for all.

    The calling thread works too (a pool of ``n_jobs - 1`` workers): every
    thread takes the next call from one shared list until none is left, so the
    calls are balanced among the threads as they finish, and the caller does
    not sit idle waiting for a worker to wake up.
    """

    def __init__(self, n_jobs=None):
        self._pool = None  # (set first: __del__ reads it if effective_n_jobs raises)
        self.n = effective_n_jobs(n_jobs)
        self._pool = ThreadPoolExecutor(self.n - 1) if self.n > 1 else None

    def run(self, fn, arg_lists):
        """``fn(*args)`` for every ``args`` of ``arg_lists``, on the threads."""
        if self._pool is None or len(arg_lists) < 2:
            for args in arg_lists:
                fn(*args)
            return
        calls = iter(arg_lists)  # a list iterator hands each item out once (GIL)

        def drain():
            for args in calls:
                fn(*args)

        helpers = [self._pool.submit(drain) for _ in range(min(self.n, len(arg_lists)) - 1)]
        try:
            drain()
        finally:
            for f in helpers:
                f.result()

    def run_in_runs(self, fn, jobs):
        """``fn(*job)`` for every job, handed over as a few runs of consecutive jobs.

        A task costs tens of microseconds to hand over; 64 of them per product took
        the two-thread speed-up of X v + X' u at 10^6 rows from about 1.7 to 1.5
        (bench_threads.py). The jobs, hence the bits, do not change.
        """
        self.run(_run_jobs, [(fn, jobs[a:b]) for a, b in self.ranges(len(jobs))])

    def ranges(self, count):
        """``(start, stop)`` of :data:`TASKS_PER_THREAD` runs a thread over ``range(count)``;
        one run when there is one thread (nothing to balance)."""
        return even_runs(count, 1 if self.n == 1 else TASKS_PER_THREAD * self.n)

    def close(self):
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

    def __del__(self):
        self.close()


#: values below which :func:`scan_values` reads in one part, on the calling thread
SCAN_THREADS_MIN = 1 << 21


def scan_values(data, n_jobs=None):
    """``(finite, top)`` of a 1-D array: whether every value is finite, and the largest
    ``|value|`` among those that are not NaN (0.0 for none).

    One pass (:func:`birank._kernels.value_scan.finite_magnitude`), in parts on
    ``n_jobs`` threads for large arrays; both answers are exact whatever the parts.
    """
    n = data.shape[0]
    threads = Threads(n_jobs if n >= SCAN_THREADS_MIN else 1)
    try:
        parts = threads.ranges(n)
        out = np.empty((len(parts), 2))
        threads.run(finite_magnitude, [(data, out, k, p0, p1)
                                       for k, (p0, p1) in enumerate(parts)])
    finally:
        threads.close()
    return not bool(np.isnan(out[:, 0]).any()), float(out[:, 1].max())


class BlockedProducts:
    """``X v`` and ``X' u`` of a CSR matrix over fixed row blocks on ``n_jobs`` threads.

    The same numbers for every ``n_jobs`` (see the module docstring).
    """

    def __init__(self, X, n_jobs=None, *, indicator=False):
        if not (sp.issparse(X) and X.format == "csr"):
            raise TypeError("BlockedProducts takes a CSR matrix")
        self.X = X
        # indicator: every stored value is 1 (the caller checked), and none is read
        self.data = None if indicator else X.data
        self.bounds = row_blocks(X.indptr, X.shape[1])
        self.n_blocks = self.bounds.shape[0] - 1
        self.partials = np.empty((self.n_blocks, X.shape[1]))
        self.partials3 = None  # (n_blocks, n_features, 3): grad_diag's, when first used
        self.threads = Threads(n_jobs if self.n_blocks > 1 else 1)
        self.n_threads = self.threads.n

    def _run(self, fn, jobs):
        self.threads.run_in_runs(fn, jobs)

    def matvec(self, v):
        X = self.X
        v = np.ascontiguousarray(v, dtype=np.float64).reshape(-1)
        out = np.empty(X.shape[0])
        b = self.bounds
        self._run(csr_matvec_block, [(self.data, X.indices, X.indptr, v, out, b[k], b[k + 1])
                                     for k in range(self.n_blocks)])
        return out

    def rmatvec(self, u, squared=False):
        """``X' u`` (``squared``: ``(X o X)' u``, X's entries squared)."""
        X = self.X
        u = np.ascontiguousarray(u, dtype=np.float64).reshape(-1)
        b, P = self.bounds, self.partials
        self._run(csr_rmatvec_block, [(self.data, X.indices, X.indptr, u, P[k], b[k],
                                       b[k + 1], squared) for k in range(self.n_blocks)])
        d = X.shape[1]
        out = np.empty(d)
        step = max(1, -(-d // self.n_threads))  # (no column: no run, and no zero step)
        self._run(sum_partials, [(P, out, c, min(c + step, d)) for c in range(0, d, step)])
        return out

    def grad_diag(self, u, D, with_mean=True):
        """``(X' u, X' D, (X o X)' D)`` in one pass over X
        (:func:`birank._linalg.grad_diag_rmatvec`, here over the blocks, each sum
        in block order as :meth:`rmatvec`'s: the same bits as the three products)."""
        X = self.X
        u = np.ascontiguousarray(u, dtype=np.float64).reshape(-1)
        D = np.ascontiguousarray(D, dtype=np.float64).reshape(-1)
        d = X.shape[1]
        if self.partials3 is None:  # three columns a block, made at the first call; the
            # single products' partials then live in its first third (never used at once)
            scratch = np.empty(self.n_blocks * d * 3)
            self.partials3 = scratch.reshape(self.n_blocks, d, 3)
            self.partials = scratch[:self.n_blocks * d].reshape(self.n_blocks, d)
        b, P = self.bounds, self.partials3
        self._run(csr_grad_diag_block, [(self.data, X.indices, X.indptr, u, D, P[k], b[k],
                                         b[k + 1], with_mean) for k in range(self.n_blocks)])
        flat = P.reshape(self.n_blocks, 3 * d)
        out = np.empty(3 * d)
        step = max(1, -(-3 * d // self.n_threads))
        self._run(sum_partials, [(flat, out, c, min(c + step, 3 * d))
                                 for c in range(0, 3 * d, step)])
        return split_grad_diag(out.reshape(d, 3), with_mean)

    def close(self):
        self.threads.close()
