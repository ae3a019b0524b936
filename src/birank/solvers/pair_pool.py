"""A growing pool of pair rows: their costs C_p, dual variables and storage.

A row is two indices into X (``-1`` = the origin), ``z_p = x[a_p] - x[b_p]``,
plus, with ``fit_threshold``, one extra coordinate (shen-lin section 3.5,
eq. (8)). The pool only stores and reads rows: it knows nothing of losses or
stopping rules. :class:`birank.solvers.dual_cd.DualCD` runs dual coordinate
descent over it; the estimators (WeightedSVM, ActiveRankSVM) add rows and
costs. A pool of B rows stores ``O(B)`` numbers (plus, with ``pair_rows`` or
``compact_rows``, the nonzeros of the rows it uses), never a row of X per pair.

The pool side of the driver contract (what a future pool with another row
type, e.g. kernel rows, provides):

- ``n_rows``, ``state_size`` (length of the primal vector ``w`` the driver keeps);
- ``_rf``: the ``(n_rows, 3)`` table of ``(C_p, Q_pp, alpha_p)`` (columns
  ``RF_C``, ``RF_Q``, ``RF_ALPHA``);
- ``cd_run(w, squared, tol, shrinking, passes, until)``: the passes from the state
  ``passes`` (a :class:`birank.solvers._passes.Passes`) up to pass ``until``, the
  state left after the last (``cd_run_logistic(w, tol, passes, until)`` for
  ``loss='logistic'``);
- ``margins(w)``, ``rebuild_w(w)``, ``update_w(w, rows, delta)``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._kernels.dual_cd import (
    RF_ALPHA,
    RF_C,
    all_ones,
    dual_cd_points_run,
    dual_cd_run,
    gather_csr_rows,
    map_local_rows,
    merge_pair_rows,
    pair_margins,
    pair_q,
    rebuild_w,
    update_w,
)
from .._kernels.dual_cd_logistic import dual_cd_logistic_run
from .._kernels.index import index_dtype
from .._kernels.sparse_rows import split_rows
from .._validation import as_csr_or_dense, kernel_rows

__all__ = ["PairPool", "check_costs"]


def check_costs(C, n, name="C"):
    """``C`` as a float64 array of ``n`` finite costs > 0.

    A single cost comes back as a read-only broadcast view (no O(n) array: the
    pool copies the costs into its own rows anyway).
    """
    C = np.asarray(C, dtype=np.float64).reshape(-1)
    if C.shape[0] != n and C.shape[0] != 1:
        raise ValueError(f"{name} has {C.shape[0]} entries; expected {n}.")
    if not np.all(np.isfinite(C)) or np.any(C <= 0):
        bad = C[~(np.isfinite(C) & (C > 0))][0]
        raise ValueError(f"{name} must be finite and > 0 for every row; got {bad!r}.")
    return np.broadcast_to(C, (n,)) if C.shape[0] != n else C


def _check_rows(a, b, n_samples):
    a = np.asarray(a).reshape(-1)
    b = np.asarray(b).reshape(-1)
    if a.shape != b.shape:
        raise ValueError(f"a and b must have the same length; got {a.shape[0]} and "
                         f"{b.shape[0]}.")
    if a.size and not (np.issubdtype(a.dtype, np.integer) and np.issubdtype(b.dtype, np.integer)):
        raise TypeError("a and b must be integer row indices.")
    # int32 and int64 rows pass without a copy (O(pairs) memory); others become int64
    if a.dtype not in (np.int32, np.int64):
        a = a.astype(np.int64)
    if b.dtype not in (np.int32, np.int64):
        b = b.astype(np.int64)
    if a.size:
        for name, v in (("a", a), ("b", b)):
            if v.min() < -1 or v.max() >= n_samples:
                raise ValueError(f"{name} holds row indices outside "
                                 f"[-1, {n_samples}): [{v.min()}, {v.max()}].")
        if np.any((a == -1) & (b == -1)):
            raise ValueError("a row (-1, -1) is the zero vector; it is not a pair.")
    return a, b


def _gather_rows(X, rows):
    """Rows ``X[rows]`` as float64 (dense or CSR as X), a zero row where ``rows`` is -1."""
    rows = np.asarray(rows, dtype=np.int64)
    keep = rows >= 0
    dtype = np.result_type(X.dtype, np.float64)
    if sp.issparse(X):
        part = X[rows[keep]]
        counts = np.zeros(rows.shape[0], dtype=np.int64)
        counts[keep] = np.diff(part.indptr)
        indptr = np.zeros(rows.shape[0] + 1, dtype=np.int64)
        np.cumsum(counts, out=indptr[1:])
        return sp.csr_matrix((part.data.astype(dtype, copy=False), part.indices, indptr),
                             shape=(rows.shape[0], X.shape[1]))
    out = np.zeros((rows.shape[0], X.shape[1]), dtype=dtype)
    out[keep] = X[rows[keep]]
    return out


class PairPool:
    """Rows ``z_p = x[a_p] - x[b_p]`` (+ threshold coordinate), their costs and duals.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features) or CSR matrix
        Float64; converted once to C-contiguous / sorted CSR if needed.
    fit_threshold : bool, default=False
        Every row gets one extra coordinate (shen-lin eq. (8), extended vector
        ``[-1; x]``): -1 for ``(k, -1)``, +1 for ``(-1, k)``, 0 for real pairs.
    compact_rows : bool, default=False
        Keep a private contiguous copy of the rows of X that the pool uses
        (gathered as rows are added) and run the kernels on it. Same
        arithmetic on the same values, so the same result bit for bit, but a
        pool of B pairs then touches at most 2B rows packed together instead
        of rows scattered over all of X: on large X (10^6+ rows) most
        coordinate steps otherwise miss the cache. Worth it when the pool uses
        a small part of X (ActiveRankSVM); wasteful when it uses all of it.
    pair_rows : bool, default=False
        With CSR X: store every row of the pool as its own merged sparse
        vector ``z_p`` (entries that cancel dropped; the threshold coordinate
        of eq. (8) as an explicit column), so that a coordinate step reads one
        short row instead of two. About twice as fast per step on a9a pairs;
        costs ``nnz(x_a) + nnz(x_b)`` stored entries per row. Ignored for
        dense X. Results equal the default storage up to rounding.

    Attributes
    ----------
    n_rows : int
    state_size : int
        ``n_features + 1``: the length of ``w`` (the last entry is theta).
    C_, alpha_ : ndarray of shape (n_rows,)
        Costs and dual variables (views), in the order the rows were added.
    rows_ : tuple of two ndarrays of shape (n_rows,)
        ``(a, b)`` of the rows (views).

    Examples
    --------
    >>> import numpy as np
    >>> pool = PairPool(np.array([[1.0, 0.0], [0.0, 1.0]]))
    >>> pool.add_rows([0, 0], [1, -1], C=[1.0, 0.5])   # a pair and a pseudo-pair
    >>> pool.n_rows, pool.C_.tolist()
    (2, [1.0, 0.5])
    >>> pool.margins(np.array([2.0, 1.0, 0.0])).tolist()   # w . z_p
    [1.0, 2.0]
    """

    def __init__(self, X, *, fit_threshold=False, compact_rows=False, pair_rows=False):
        if not (sp.issparse(X) or isinstance(X, np.ndarray)) or X.ndim != 2:
            raise TypeError("X must be a 2-D numpy array or a scipy.sparse CSR matrix; "
                            f"got {type(X).__name__}.")
        X = as_csr_or_dense(X)  # (an already canonical X is kept as is, no O(nnz) pass)
        self.X = X
        self.fit_threshold = bool(fit_threshold)
        self.n_samples, self.n_features = X.shape
        self.state_size = self.n_features + 1
        self.compact_rows = bool(compact_rows)
        self.pair_rows = bool(pair_rows) and sp.issparse(X)
        # the kernels' threshold flag: with pair_rows t_p is a stored column of z_p
        self._kthr = self.fit_threshold and not self.pair_rows
        if self.pair_rows:
            self.compact_rows = False
        elif self.compact_rows:
            # local id of each global row (-1: not copied yet), allocated at the first add
            self._local_of = None
            self._n_local = 0
        if self.pair_rows or (self.compact_rows and sp.issparse(X)):
            # private CSR copy: the rows of X the pool uses, or the pair vectors
            self._cdata = np.empty(16)
            self._cind = np.empty(16, dtype=X.indices.dtype)
            self._cptr = np.zeros(17, dtype=np.int64)
            self._csr_rows = 0
            self._xa = (self._cdata, self._cind, self._cptr)
        elif self.compact_rows:
            self._xa = np.empty((16, self.n_features))
        else:
            self._xa = kernel_rows(X)
        self.n_rows = 0
        self._points_only = not self.pair_rows and not self.compact_rows
        self._binary = None  # all stored values of CSR X equal 1 (point kernel; lazy)
        cap = 16
        # (a_p, b_p); int32 below 2^31 rows of X: 8 bytes a pair instead of 16 (a pool of
        # O(N) pairs, PrunedRankSVM's, is then smaller than X)
        self._ab = np.empty((cap, 2), dtype=index_dtype(self.n_samples))
        # rows as the kernels index them: local ids with compact_rows (< n_samples), the
        # pool row itself with pair_rows (int64: the pool may outgrow 2^31 rows)
        self._abk = (np.empty((cap, 2), dtype=np.int64) if self.pair_rows
                     else np.empty_like(self._ab) if self.compact_rows else self._ab)
        self._rf = np.empty((cap, 3), dtype=np.float64)  # (C_p, Q_pp, alpha_p)

    # --------------------------------------------------------------- growth
    def _grow(self, need):
        cap = self._ab.shape[0]
        if need <= cap:
            return
        new_cap = max(need, 2 * cap)  # amortized O(1) appends
        own_abk = self.compact_rows or self.pair_rows
        for name in ("_ab", "_rf") + (("_abk",) if own_abk else ()):
            old = getattr(self, name)
            arr = np.empty((new_cap, old.shape[1]), dtype=old.dtype)
            arr[: self.n_rows] = old[: self.n_rows]
            setattr(self, name, arr)
        if not own_abk:
            self._abk = self._ab

    def _local_rows(self, rows):
        """Local ids of global rows (``-1`` stays ``-1``); new rows are copied in."""
        if self._local_of is None:
            # one int per row of X (int32 when it fits): the only O(n_samples) state
            self._local_of = np.full(self.n_samples, -1, dtype=index_dtype(self.n_samples))
        new_rows = np.empty(rows.size, dtype=np.int64)
        out, n_new = map_local_rows(rows, self._local_of, self._n_local, new_rows)
        g = new_rows[:n_new]
        if n_new:
            start = self._n_local
            stop = start + n_new
            if sp.issparse(self.X):
                indptr = self.X.indptr
                self._reserve_csr(stop, int((indptr[g + 1] - indptr[g]).sum()))
                gather_csr_rows(self.X.data, self.X.indices, indptr, g, self._cdata,
                                self._cind, self._cptr, start)
            else:
                if stop > self._xa.shape[0]:
                    arr = np.empty((max(stop, 2 * self._xa.shape[0]), self.n_features))
                    arr[:start] = self._xa[:start]
                    self._xa = arr
                self._xa[start:stop] = self.X[g]
            self._n_local = stop
        return out

    def _reserve_csr(self, n_rows, n_new_entries):
        """Room in the private CSR copy for ``n_rows`` rows and ``n_new_entries`` more entries."""
        nnz = int(self._cptr[self._csr_rows]) + n_new_entries
        if n_rows + 1 > self._cptr.size or nnz > self._cdata.size:
            cap_r = max(n_rows + 1, 2 * self._cptr.size)  # doubling: amortized O(1) appends
            cap_n = max(nnz, 2 * self._cdata.size)
            for name, cap in (("_cdata", cap_n), ("_cind", cap_n), ("_cptr", cap_r)):
                old = getattr(self, name)
                arr = np.zeros(cap, dtype=old.dtype)
                arr[: old.size] = old
                setattr(self, name, arr)
            self._xa = (self._cdata, self._cind, self._cptr)
        self._csr_rows = n_rows

    def threshold_coefs(self, a, b):
        """Threshold coordinate of rows (a, b): shen-lin eq. (8), -1 for (k, -1), +1 for
        (-1, k), 0 for real pairs and without ``fit_threshold`` (the kernels' ``tcoef``)."""
        if not self.fit_threshold:
            return np.zeros(a.size)
        return np.where(b < 0, -1.0, np.where(a < 0, 1.0, 0.0))

    def _add_pair_rows(self, a, b, start):
        """Store ``z = x_a - x_b`` (+ the eq. (8) threshold column) as pool rows ``start...``."""
        stop = start + a.size
        indptr = self.X.indptr
        lens = np.where(a >= 0, indptr[a + 1] - indptr[a], 0) + np.where(
            b >= 0, indptr[b + 1] - indptr[b], 0)
        self._reserve_csr(stop, int(lens.sum()) + a.size)
        t = self.threshold_coefs(a, b)
        merge_pair_rows(self.X.data, self.X.indices, indptr, a, b, t, self.n_features,
                        self._cdata, self._cind, self._cptr, start)
        self._abk[start:stop, 0] = np.arange(start, stop)
        self._abk[start:stop, 1] = -1

    def add_rows(self, a, b, C, check=True):
        """Append rows ``z = x[a] - x[b]`` (``-1`` = origin) with costs ``C > 0``.

        Their dual variables start at 0, so a ``w = sum_p alpha_p z_p`` kept
        by a driver is unchanged: the next solve is a warm start.
        ``check=False`` skips the validation of the arguments, for callers
        that build them (int32 or int64 arrays of valid rows, C finite and > 0).
        """
        if check:
            a, b = _check_rows(a, b, self.n_samples)
            C = check_costs(C, a.shape[0])
        n_new = a.shape[0]
        if n_new == 0:
            return
        start, stop = self.n_rows, self.n_rows + n_new
        self._grow(stop)
        self._ab[start:stop, 0] = a
        self._ab[start:stop, 1] = b
        # pseudo-pairs only (each row has the origin on one side) so far?
        self._points_only = self._points_only and bool(np.all((a < 0) | (b < 0)))
        if self.pair_rows:
            self._add_pair_rows(a, b, start)
        elif self.compact_rows:
            self._abk[start:stop] = self._local_rows(np.stack((a, b), axis=1))
        self._rf[start:stop, RF_C] = C
        self._rf[start:stop, RF_ALPHA] = 0.0
        # Q_pp, with the threshold coordinate of shen-lin eq. (8) when fit_threshold
        pair_q(self._xa, self._abk, self._rf, start, stop, self._kthr)
        self.n_rows = stop

    # ------------------------------------------------- the driver's operations
    def cd_run(self, w, squared, tol, shrinking, passes, until):
        """The passes from the state ``passes`` (:class:`~birank.solvers._passes.Passes`)
        up to pass ``until`` (a total) or the stopping rule; ``passes`` is left after the
        last. Any split of the passes into calls gives the same bits as one call."""
        if self._points_only:  # only pseudo-pairs: the point-wise kernel (same results)
            dense, data, indices, indptr = split_rows(self._xa)
            if self._binary is None:  # X is not copied nor changed by the pool: check once
                self._binary = data is not None and bool(all_ones(data))
            dual_cd_points_run(dense, data, indices, indptr, self._binary, w, self._abk,
                               self._rf, self.n_rows, squared, self._kthr, tol, shrinking,
                               passes.rng, passes.index, passes.counts, passes.pg, until)
        else:
            dual_cd_run(self._xa, w, self._abk, self._rf, self.n_rows, squared, self._kthr,
                        tol, shrinking, passes.rng, passes.index, passes.counts, passes.pg,
                        until)

    def cd_run_logistic(self, w, tol, passes, until):
        """:meth:`cd_run` for the logistic loss (Yu, Huang & Lin 2011; no shrinking)."""
        dual_cd_logistic_run(self._xa, w, self._abk, self._rf, self.n_rows, self._kthr, tol,
                             passes.rng, passes.index, passes.counts, passes.pg, until)

    def margins(self, w):
        """``w . z_p`` for every row (including the threshold coordinate)."""
        return pair_margins(self._xa, w, self._abk, self.n_rows, self._kthr)

    def rebuild_w(self, w):
        """Overwrite ``w`` with ``sum_p alpha_p z_p``."""
        rebuild_w(self._xa, w, self._abk, self._rf, self.n_rows, self._kthr)

    def update_w(self, w, rows, delta):
        """``w += sum_k delta_k z_{rows_k}``."""
        update_w(self._xa, w, self._abk, rows, delta, self._kthr)

    # ------------------------------------------------------------ read-outs
    @property
    def alpha_(self):
        return self._rf[: self.n_rows, RF_ALPHA]

    @property
    def C_(self):
        return self._rf[: self.n_rows, RF_C]

    @property
    def rows_(self):
        """``(a, b)`` of the rows in the pool (views)."""
        return self._ab[: self.n_rows, 0], self._ab[: self.n_rows, 1]

    def pool_matrix_size(self):
        """Numbers :meth:`pool_matrix` would store (an upper bound for CSR rows).

        Dense: ``n_rows * (n_features + 1)``; CSR: ``nnz(x_a) + nnz(x_b) + 1`` per
        row (entries that cancel are not subtracted). Lets a caller decide
        whether forming the matrix fits its memory budget, in O(n_rows).
        """
        n, d = self.n_rows, self.n_features
        if not sp.issparse(self.X):
            return n * (d + 1)
        if self.pair_rows:
            return int(self._cptr[n])
        indptr = self.X.indptr
        total = n
        for col in (0, 1):
            r = self._ab[:n, col]
            r = r[r >= 0]
            total += int(np.sum(indptr[r + 1] - indptr[r], dtype=np.int64))
        return total

    def pool_matrix(self):
        """The rows ``z_p`` as a matrix of shape (n_rows, n_features + 1).

        The last column is the threshold coordinate (zero without
        ``fit_threshold``), so ``pool_matrix() @ w`` are the margins. CSR for
        CSR input (with ``pair_rows`` the stored rows themselves), dense for
        dense input.
        """
        n, d = self.n_rows, self.n_features
        if self.pair_rows:
            nnz = int(self._cptr[n])
            return sp.csr_matrix((self._cdata[:nnz].copy(), self._cind[:nnz].copy(),
                                  self._cptr[: n + 1].copy()), shape=(n, d + 1))
        a, b = self.rows_
        t = self.threshold_coefs(a, b)
        # only the rows a, b are gathered (row -1: the origin), O(n_rows d), not a copy
        # of X; float64 as the former vstack with a float64 zero row made it
        if sp.issparse(self.X):
            diff = _gather_rows(self.X, a) - _gather_rows(self.X, b)
            return sp.hstack((diff, sp.csr_matrix(t[:, None]))).tocsr()
        return np.hstack((_gather_rows(self.X, a) - _gather_rows(self.X, b), t[:, None]))
