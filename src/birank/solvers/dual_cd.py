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

from .._kernels.dual_cd import RF_ALPHA, RF_C, dual_cd, pair_margins, pair_q, rebuild_w
from .._kernels.sparse_rows import row_sqnorms
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
                 shrinking=True, random_state=None):
        if loss not in ("hinge", "squared_hinge"):
            raise ValueError(f"loss must be 'hinge' or 'squared_hinge'; got {loss!r}.")
        if not (isinstance(tol, (int, float, np.floating)) and tol > 0 and np.isfinite(tol)):
            raise ValueError(f"tol must be a positive float; got {tol!r}.")
        if not (isinstance(max_iter, (int, np.integer)) and max_iter >= 1):
            raise ValueError(f"max_iter must be a positive int; got {max_iter!r}.")
        if not (sp.issparse(X) or isinstance(X, np.ndarray)) or X.ndim != 2:
            raise TypeError("X must be a 2-D numpy array or a scipy.sparse CSR matrix; "
                            f"got {type(X).__name__}.")
        self.X = as_csr_or_dense(X)
        self.loss = loss
        self.fit_threshold = bool(fit_threshold)
        self.tol = float(tol)
        self.max_iter = int(max_iter)
        self.shrinking = bool(shrinking)
        self._rng = check_random_state(random_state)
        self._xa = xargs(self.X)
        n_samples, n_features = self.X.shape
        self.n_samples = n_samples
        self.n_features = n_features
        self._sqnorms = row_sqnorms(self._xa)
        self.w = np.zeros(n_features + 1)  # last entry: theta
        self.n_rows = 0
        cap = 16
        self._ab = np.empty((cap, 2), dtype=np.int64)  # (a_p, b_p)
        self._rf = np.empty((cap, 3), dtype=np.float64)  # (C_p, Q_pp, alpha_p)
        self.n_iter_ = 0
        self.pg_gap_ = np.inf

    # ------------------------------------------------------------------ pool
    def _grow(self, need):
        cap = self._ab.shape[0]
        if need <= cap:
            return
        new_cap = max(need, 2 * cap)  # amortized O(1) appends
        for name in ("_ab", "_rf"):
            old = getattr(self, name)
            arr = np.empty((new_cap, old.shape[1]), dtype=old.dtype)
            arr[: self.n_rows] = old[: self.n_rows]
            setattr(self, name, arr)

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

    def add_rows(self, a, b, C):
        """Append rows ``z = x[a] - x[b]`` (``-1`` = origin) with weights ``C > 0``.

        Their dual variables start at 0, so ``w`` is unchanged: the next
        :meth:`solve` is a warm start from the current solution.
        """
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
        n_new = a.shape[0]
        C = self._check_C(C, n_new)
        if n_new == 0:
            return
        for name, v in (("a", a), ("b", b)):
            if v.min() < -1 or v.max() >= self.n_samples:
                raise ValueError(f"{name} holds row indices outside [-1, {self.n_samples}): "
                                 f"[{v.min()}, {v.max()}].")
        if np.any((a == -1) & (b == -1)):
            raise ValueError("a row (-1, -1) is the zero vector; it is not a pair.")
        start, stop = self.n_rows, self.n_rows + n_new
        self._grow(stop)
        self._ab[start:stop, 0] = a
        self._ab[start:stop, 1] = b
        self._rf[start:stop, RF_C] = C
        self._rf[start:stop, RF_ALPHA] = 0.0
        # Q_pp, with the threshold coordinate of shen-lin eq. (8) when fit_threshold
        pair_q(self._xa, self._sqnorms, self._ab, self._rf, start, stop, self.fit_threshold)
        self.n_rows = stop

    def set_weights(self, C):
        """New weights for all rows; alpha is clipped to ``[0, C]`` (hinge), w rebuilt.

        Q_pp does not depend on C, so this costs one pass over the pool rows
        (no merges); the next :meth:`solve` continues from the clipped alpha.
        """
        n = self.n_rows
        C = self._check_C(C, n)
        self._rf[:n, RF_C] = C
        if self.loss == "hinge":
            self._rf[:n, RF_ALPHA] = np.minimum(self._rf[:n, RF_ALPHA], C)
        rebuild_w(self._xa, self.w, self._ab, self._rf, n, self.fit_threshold)

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
        n_iter, gap = dual_cd(self._xa, self.w, self._ab, self._rf, self.n_rows,
                              self.loss == "squared_hinge", self.fit_threshold, seed,
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
        return pair_margins(self._xa, self.w, self._ab, self.n_rows, self.fit_threshold)

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
        rebuild_w(self._xa, w, self._ab, self._rf, self.n_rows, self.fit_threshold)
        val = al.sum() - 0.5 * w @ w
        if self.loss == "squared_hinge":
            val -= float(np.sum(al * al * (0.25 / self.C_)))  # D_pp alpha^2 / 2 = alpha^2 / (4C)
        return float(val)
