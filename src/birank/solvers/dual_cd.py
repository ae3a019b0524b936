"""Warm-startable dual coordinate descent over a growing pool of pair rows.

The Python driver of :mod:`birank._kernels.dual_cd`. A row is two indices into
X (``-1`` = origin), so the pool stores ``O(n_rows)`` numbers and never a pair
vector. Used by :class:`birank.WeightedSVM` (pseudo-pairs), by ActiveRankSVM
(a pool grown by active sampling, warm-started after every batch) and by
tests as the brute-force all-pairs solver on tiny data.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from .._kernels.dual_cd import (
    RF_ALPHA,
    RF_C,
    dual_cd,
    gather_csr_rows,
    map_local_rows,
    merge_pair_rows,
    pair_margins,
    pair_q,
    rebuild_w,
    update_w,
)
from .._validation import as_csr_or_dense, check_random_state, draw_seed

__all__ = ["PairDualCD", "xargs"]

def xargs(X):
    """The rows argument of the kernels: the dense array, or ``(data, indices, indptr)``.

    X must already be a C-contiguous float64 ndarray or a CSR float64 matrix
    with sorted indices (see :func:`birank._validation.as_csr_or_dense`).
    """
    if sp.issparse(X):
        return (X.data, X.indices, X.indptr)
    return X


class PairDualCD:
    """Warm-startable dual CD for ``min_w 1/2|w|^2 + sum_p C_p loss(1 - w.z_p)``.

    ``z_p = x[a_p] - x[b_p]`` with row index ``-1`` meaning the origin; ``loss``
    is ``'hinge'`` (dual box ``0 <= alpha_p <= C_p``) or ``'squared_hinge'``
    (``alpha_p >= 0``, diagonal ``1/(2 C_p)``), as in Hsieh et al. (2008) and
    LIBLINEAR's ``solve_l2r_l1l2_svc``.

    With ``fit_threshold=True`` every row gets one extra coordinate (shen-lin
    section 3.5, eq. (8), extended vector ``[-1; x]``): -1 for ``(k, -1)``,
    +1 for ``(-1, k)`` and 0 for real pairs. Its weight theta is regularized
    with w (as LIBLINEAR does with its bias); ``intercept_ = -theta`` so that
    scores are ``X @ coef_ + intercept_``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features) or CSR matrix
        Float64; converted once to C-contiguous / sorted CSR if needed.
    loss : {'hinge', 'squared_hinge'}, default='hinge'
    fit_threshold : bool, default=False
    tol : float, default=0.1
        Stop when the spread of the projected gradient ``PGmax - PGmin`` is at
        most ``tol`` (LIBLINEAR's rule; its default for the dual solvers).
    max_iter : int, default=1000
        Outer iterations (passes over the active rows) per :meth:`solve`.
    shrinking : bool, default=True
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
    random_state : None, int or numpy Generator
        Each :meth:`solve` draws one kernel seed from it.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
        ``-theta`` with ``fit_threshold``, else 0.
    alpha_ : ndarray of shape (n_rows,)
        Dual variables of the rows, in the order they were added.
    n_rows : int
    n_iter_ : int
        Outer iterations of the last :meth:`solve`.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> solver = PairDualCD(X, tol=1e-8, random_state=0)
    >>> solver.add_rows([0, 2], [1, 1], C=[1.0, 1.0])   # x0 above x1, x2 above x1
    >>> n_iter = solver.solve()
    >>> solver.coef_.round(6).tolist()
    [1.0, 0.0]
    >>> bool(abs(solver.primal_objective() - solver.dual_objective()) < 1e-8)
    True
    """

    def __init__(self, X, *, loss="hinge", fit_threshold=False, tol=0.1, max_iter=1000,
                 shrinking=True, compact_rows=False, pair_rows=False, random_state=None):
        if loss not in ("hinge", "squared_hinge"):
            raise ValueError(f"loss must be 'hinge' or 'squared_hinge'; got {loss!r}.")
        if not (isinstance(tol, (int, float, np.floating)) and tol > 0 and np.isfinite(tol)):
            raise ValueError(f"tol must be a positive float; got {tol!r}.")
        if not (isinstance(max_iter, (int, np.integer)) and max_iter >= 1):
            raise ValueError(f"max_iter must be a positive int; got {max_iter!r}.")
        if not (sp.issparse(X) or isinstance(X, np.ndarray)) or X.ndim != 2:
            raise TypeError("X must be a 2-D numpy array or a scipy.sparse CSR matrix; "
                            f"got {type(X).__name__}.")
        if not (sp.issparse(X) and X.format == "csr" and X.dtype == np.float64
                and X.has_sorted_indices):
            X = as_csr_or_dense(X)  # (an already canonical CSR is kept: no O(nnz) pass)
        self.X = X
        self.loss = loss
        self.fit_threshold = bool(fit_threshold)
        self.tol = float(tol)
        self.max_iter = int(max_iter)
        self.shrinking = bool(shrinking)
        self._rng = check_random_state(random_state)
        n_samples, n_features = self.X.shape
        self.n_samples = n_samples
        self.n_features = n_features
        self.compact_rows = bool(compact_rows)
        self.pair_rows = bool(pair_rows) and sp.issparse(self.X)
        # the kernels' threshold flag: with pair_rows t_p is a stored column of z_p
        self._kthr = self.fit_threshold and not self.pair_rows
        if self.pair_rows:
            self.compact_rows = False
        elif self.compact_rows:
            # local id of each global row (-1: not copied yet), allocated at the first add
            self._local_of = None
            self._n_local = 0
        if self.pair_rows or (self.compact_rows and sp.issparse(self.X)):
            # private CSR copy: the rows of X the pool uses, or the pair vectors
            self._cdata = np.empty(16)
            self._cind = np.empty(16, dtype=self.X.indices.dtype)
            self._cptr = np.zeros(17, dtype=np.int64)
            self._csr_rows = 0
            self._xa = (self._cdata, self._cind, self._cptr)
        elif self.compact_rows:
            self._xa = np.empty((16, n_features))
        else:
            self._xa = xargs(self.X)
        self.w = np.zeros(n_features + 1)  # last entry: theta
        self.n_rows = 0
        cap = 16
        self._ab = np.empty((cap, 2), dtype=np.int64)  # (a_p, b_p)
        # rows as the kernels index them (local ids with compact_rows)
        self._abk = (np.empty_like(self._ab) if (self.compact_rows or self.pair_rows)
                     else self._ab)
        self._rf = np.empty((cap, 3), dtype=np.float64)  # (C_p, Q_pp, alpha_p)
        self.n_iter_ = 0
        self.pg_gap_ = np.inf

    # ------------------------------------------------------------------ pool
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
            dt = np.int32 if self.n_samples < 2**31 else np.int64
            self._local_of = np.full(self.n_samples, -1, dtype=dt)
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

    def _threshold_coefs(self, a, b):
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
        t = self._threshold_coefs(a, b)
        merge_pair_rows(self.X.data, self.X.indices, indptr, a, b, t, self.n_features,
                        self._cdata, self._cind, self._cptr, start)
        self._abk[start:stop, 0] = np.arange(start, stop)
        self._abk[start:stop, 1] = -1

    def _check_C(self, C, n, name="C"):
        C = np.asarray(C, dtype=np.float64).reshape(-1)
        if C.shape[0] == 1 and n != 1:
            C = np.full(n, C[0])
        if C.shape[0] != n:
            raise ValueError(f"{name} has {C.shape[0]} entries; expected {n}.")
        if not np.all(np.isfinite(C)) or np.any(C <= 0):
            bad = C[~(np.isfinite(C) & (C > 0))][0]
            raise ValueError(f"{name} must be finite and > 0 for every row; got {bad!r}.")
        return C

    def add_rows(self, a, b, C, check=True):
        """Append rows ``z = x[a] - x[b]`` (``-1`` = origin) with weights ``C > 0``.

        Their dual variables start at 0, so ``w`` is unchanged: the next
        :meth:`solve` is a warm start from the current solution.
        ``check=False`` skips the validation of the arguments, for callers
        that build them (int64 arrays of valid rows, C finite and > 0).
        """
        if check:
            a = np.asarray(a).reshape(-1)
            b = np.asarray(b).reshape(-1)
            if a.shape != b.shape:
                raise ValueError(f"a and b must have the same length; got {a.shape[0]} and "
                                 f"{b.shape[0]}.")
            if a.size and not (np.issubdtype(a.dtype, np.integer)
                               and np.issubdtype(b.dtype, np.integer)):
                raise TypeError("a and b must be integer row indices.")
            a = a.astype(np.int64)
            b = b.astype(np.int64)
            C = self._check_C(C, a.shape[0])
            if a.size:
                for name, v in (("a", a), ("b", b)):
                    if v.min() < -1 or v.max() >= self.n_samples:
                        raise ValueError(f"{name} holds row indices outside "
                                         f"[-1, {self.n_samples}): [{v.min()}, {v.max()}].")
                if np.any((a == -1) & (b == -1)):
                    raise ValueError("a row (-1, -1) is the zero vector; it is not a pair.")
        n_new = a.shape[0]
        if n_new == 0:
            return
        start, stop = self.n_rows, self.n_rows + n_new
        self._grow(stop)
        self._ab[start:stop, 0] = a
        self._ab[start:stop, 1] = b
        if self.pair_rows:
            self._add_pair_rows(a, b, start)
        elif self.compact_rows:
            self._abk[start:stop] = self._local_rows(np.stack((a, b), axis=1))
        self._rf[start:stop, RF_C] = C
        self._rf[start:stop, RF_ALPHA] = 0.0
        # Q_pp, with the threshold coordinate of shen-lin eq. (8) when fit_threshold
        pair_q(self._xa, self._abk, self._rf, start, stop, self._kthr)
        self.n_rows = stop

    def set_weights(self, C):
        """New weights for all rows; alpha is clipped to ``[0, C]`` (hinge), w updated.

        Q_pp does not depend on C, so no merges are needed; the next
        :meth:`solve` continues from the clipped alpha. ``w`` changes only by
        ``sum_p delta_p z_p`` over the clipped rows: when fewer than half of
        the rows with a non-zero alpha are clipped that sum is added to ``w``,
        otherwise ``w`` is rebuilt from all alphas (cheaper, and it also drops
        the rounding accumulated by the incremental updates of :meth:`solve`).
        """
        n = self.n_rows
        C = self._check_C(C, n)
        self._rf[:n, RF_C] = C
        if self.loss != "hinge":
            return  # alpha_p >= 0 only: w is unchanged
        alpha = self._rf[:n, RF_ALPHA]
        clipped = np.flatnonzero(alpha > C)
        if clipped.size == 0:
            return
        delta = C[clipped] - alpha[clipped]
        alpha[clipped] = C[clipped]
        if 2 * clipped.size < np.count_nonzero(alpha):
            update_w(self._xa, self.w, self._abk, clipped, delta, self._kthr)
        else:
            rebuild_w(self._xa, self.w, self._abk, self._rf, n, self._kthr)

    def scale_weights(self, kappa):
        """Multiply every weight ``C_p`` and every ``alpha_p`` by ``kappa > 0``; ``w`` follows.

        ``alpha <= C`` still holds exactly (rounding is monotone), and
        ``w = sum_p alpha_p z_p`` becomes ``kappa w``: O(n_rows + n_features),
        no row of X is read. ActiveRankSVM's bias-corrected weights
        (shen-lin 4.1) change by one common factor between rounds, so this is
        its warm start for the rows already in the pool.
        """
        kappa = float(kappa)
        if not (np.isfinite(kappa) and kappa > 0):
            raise ValueError(f"kappa must be finite and > 0; got {kappa!r}.")
        n = self.n_rows
        self._rf[:n, RF_C] *= kappa
        self._rf[:n, RF_ALPHA] *= kappa
        self.w *= kappa

    # ----------------------------------------------------------------- solve
    def solve(self):
        """Dual CD from the current alpha (a true warm start).

        Returns
        -------
        n_iter : int
            Outer iterations; a :class:`~sklearn.exceptions.ConvergenceWarning`
            is raised when ``max_iter`` is reached before the tolerance.
        """
        seed = draw_seed(self._rng)
        n_iter, gap = dual_cd(self._xa, self.w, self._abk, self._rf, self.n_rows,
                              self.loss == "squared_hinge", self._kthr, seed,
                              self.tol, self.max_iter, self.shrinking)
        self.n_iter_ = int(n_iter)
        self.pg_gap_ = float(gap)
        if n_iter >= self.max_iter and gap > self.tol:
            warnings.warn(
                f"PairDualCD did not converge in max_iter={self.max_iter} iterations "
                f"(projected-gradient spread {gap:.3g} > tol={self.tol:g}); increase "
                "max_iter or tol.", ConvergenceWarning, stacklevel=2)
        return self.n_iter_

    # ------------------------------------------------------------ read-outs
    @property
    def coef_(self):
        return self.w[:-1]

    @property
    def intercept_(self):
        return float(-self.w[-1])

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

    def margins(self):
        """``w . z_p`` for every row (including the threshold coordinate)."""
        return pair_margins(self._xa, self.w, self._abk, self.n_rows, self._kthr)

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
        t = self._threshold_coefs(a, b)
        if sp.issparse(self.X):
            Xo = sp.vstack((self.X, sp.csr_matrix((1, d)))).tocsr()  # row -1: the origin
            return sp.hstack((Xo[a] - Xo[b], sp.csr_matrix(t[:, None]))).tocsr()
        Xo = np.vstack((self.X, np.zeros((1, d))))
        return np.hstack((Xo[a] - Xo[b], t[:, None]))

    def primal_objective(self):
        """``1/2 (|w|^2 + theta^2) + sum_p C_p loss(1 - w.z_p)``."""
        xi = np.maximum(0.0, 1.0 - self.margins())
        if self.loss == "squared_hinge":
            xi = xi * xi
        return float(0.5 * self.w @ self.w + self.C_ @ xi)

    def dual_objective(self):
        """``sum alpha - 1/2 |w(alpha)|^2 - sum alpha^2 D_pp`` (equal to the primal at the optimum)."""
        al = self.alpha_
        w = np.zeros_like(self.w)
        rebuild_w(self._xa, w, self._abk, self._rf, self.n_rows, self._kthr)
        val = al.sum() - 0.5 * w @ w
        if self.loss == "squared_hinge":
            val -= float(np.sum(al * al * (0.25 / self.C_)))  # D_pp alpha^2 / 2 = alpha^2 / (4C)
        return float(val)
