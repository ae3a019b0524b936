"""Warm-startable kernel dual CD over a growing pool of pairs (lin-jan-lin, RBF kernel).

The kernel-space sibling of :class:`birank.solvers.dual_cd.PairDualCD`: the
same pool idea (a pair is two row indices ``(a, b)`` with a weight ``C_p`` and a
dual variable ``alpha_p``; new pairs start at ``alpha_p = 0``, so :meth:`solve`
after :meth:`add_rows` is a warm start), but the rows are ``phi(x_a) - phi(x_b)``
in the feature space of a point kernel, so ``Q_pq = K_ia - K_ib - K_ja + K_jb``.
No l x l pair matrix exists: the kernel :func:`birank._kernels.kernel_dual_cd.kernel_dual_cd`
keeps the scores of the m distinct points of the pool and reads point-kernel
columns, from an m x m cache when ``8 m^2`` bytes fit in ``cache_size``
megabytes, otherwise computed on the fly (RBF only).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._kernels.kernel_dual_cd import (kernel_dual_cd_run, mirror_upper, pair_diag,
                                       rbf_from_gram)
from .._linalg import dot
from .._validation import check_random_state, draw_seed
from ._passes import Passes
from ._result import SolverResult

__all__ = ["KernelPairDualCD", "point_kernel", "rbf_gamma"]

_MB = 2**20


def rbf_gamma(X, gamma):
    """``gamma='scale'`` as scikit-learn's SVC: ``1 / (n_features * X.var())`` (1 if var is 0)."""
    if not isinstance(gamma, str):
        return float(gamma)
    if sp.issparse(X):
        n_cells = X.shape[0] * X.shape[1]
        mean = X.sum() / n_cells
        var = X.multiply(X).sum() / n_cells - mean * mean
    else:
        var = X.var()
    return 1.0 / (X.shape[1] * var) if var > 0 else 1.0


def _dense(X):
    return X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)


def point_kernel(A, B, kernel, gamma):
    """Point-kernel matrix ``k(a_u, b_v)`` of two dense or CSR row sets: ``'linear'`` or ``'rbf'``."""
    A, B = _dense(A), _dense(B)
    G = np.ascontiguousarray(A @ B.T)  # A @ A.T (same rows) is exactly symmetric
    if kernel == "linear":
        return G
    rbf_from_gram(G, (A * A).sum(1), (B * B).sum(1), float(gamma))
    return G


class KernelPairDualCD:
    """Dual CD for ``min 1/2 |w|^2 + sum_p C_p loss(1 - w.(phi(x_a) - phi(x_b)))``.

    Parameters
    ----------
    X : ndarray or CSR matrix of shape (n_samples, n_features)
        Only the rows that pairs use are copied (dense) into the pool.
    kernel : {'rbf', 'linear'}, default='rbf'
    gamma : float, default=1.0
        RBF width: ``k(x, x') = exp(-gamma |x - x'|^2)``.
    loss : {'hinge', 'squared_hinge'}, default='hinge'
    tol : float, default=1e-3
        Stop when the projected-gradient spread of a pass is at most ``tol``.
    max_iter : int, default=1000
        Passes over the pool per :meth:`solve`.
    cache_size : float, default=1024
        Megabytes for the m x m point-kernel cache over the m distinct points of
        the pool. Beyond it RBF columns are recomputed at every step (O(m d)
        instead of O(m)); the linear kernel requires the cache.
    random_state : None, int or numpy Generator

    Attributes
    ----------
    alpha_ : ndarray of shape (n_rows,)
    point_index_ : ndarray of shape (m,)
        Row of X of every local point, in the order points entered the pool.
    point_coef_ : ndarray of shape (m,)
        Expansion coefficient of every point: ``f(x) = sum_u coef_u k(x_u, x)``.
    n_iter_ : int

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [2.0]])
    >>> solver = KernelPairDualCD(X, kernel="linear", tol=1e-10, random_state=0)
    >>> solver.add_rows([1, 2], [0, 1], C=[10.0, 10.0])
    >>> solver.solve()
    True
    >>> solver.decision_function(X).round(6).tolist()   # w = 1
    [0.0, 1.0, 2.0]
    """

    def __init__(self, X, *, kernel="rbf", gamma=1.0, loss="hinge", tol=1e-3, max_iter=1000,
                 cache_size=1024.0, random_state=None):
        if kernel not in ("rbf", "linear"):
            raise ValueError(f"kernel must be 'rbf' or 'linear'; got {kernel!r}.")
        if loss not in ("hinge", "squared_hinge"):
            raise ValueError(f"loss must be 'hinge' or 'squared_hinge'; got {loss!r}.")
        self.X = X
        self.kernel = kernel
        self.gamma = float(gamma)
        self.loss = loss
        self.tol = float(tol)
        self.max_iter = int(max_iter)
        self.cache_size = float(cache_size)
        self._rng = check_random_state(random_state)
        self._local_of = np.full(X.shape[0], -1, dtype=np.int64)
        self.point_index_ = np.empty(0, dtype=np.int64)
        self._P = np.empty((0, X.shape[1]))
        self._sq = np.empty(0)
        self._K = np.empty((0, 0))
        self._cached = True
        self.point_coef_ = np.empty(0)
        self._f = np.empty(0)
        self._ab = np.empty((0, 2), dtype=np.int64)
        self._C = np.empty(0)
        self._qd = np.empty(0)
        self.alpha_ = np.empty(0)
        self.n_iter_ = 0
        self.pg_gap_ = np.inf
        self.converged_ = False

    @property
    def n_rows(self):
        return self._ab.shape[0]

    def _add_points(self, rows):
        """Give new global rows local ids; grow the cache (or drop it) and the scores."""
        rows = np.unique(rows)
        new = rows[self._local_of[rows] < 0]
        if new.size == 0:
            return
        m0 = self.point_index_.size
        m = m0 + new.size
        self._local_of[new] = np.arange(m0, m)
        self.point_index_ = np.concatenate((self.point_index_, new))
        Pn = _dense(self.X[new])
        self._P = np.ascontiguousarray(np.vstack((self._P, Pn)))
        self._sq = (self._P * self._P).sum(1)
        fits = 8.0 * m * m <= self.cache_size * _MB
        if not fits and self.kernel == "linear":
            raise ValueError(f"the linear point-kernel cache of {m} points needs "
                             f"{8 * m * m / _MB:.0f} MB > cache_size={self.cache_size:g}; "
                             "use PairDualCD for the linear kernel.")
        if fits:
            # the pool only grows, so a pool that fits now was cached before
            Knew = point_kernel(self._P[m0:], self._P, self.kernel, self.gamma)
            if m0 == 0:  # the first points: the product is the cache (no 8 m^2 B copy)
                K = Knew
            else:
                K = np.empty((m, m))
                K[:m0, :m0] = self._K
                K[m0:, :] = Knew
                K[:m0, m0:] = Knew[:, :m0].T
            # exactly symmetric (the new block's two triangles come from one product, which
            # need not be symmetric to the last bit): the CD kernel reads rows for columns
            mirror_upper(K[m0:, m0:])
            self._K = K
            f_new = Knew[:, :m0] @ self.point_coef_ if m0 else np.zeros(new.size)
        else:
            self._K = np.empty((0, 0))
            self._cached = False
            f_new = point_kernel(Pn, self._P[:m0], self.kernel, self.gamma) @ self.point_coef_
        self._f = np.concatenate((self._f, f_new))
        self.point_coef_ = np.concatenate((self.point_coef_, np.zeros(new.size)))

    def add_rows(self, a, b, C):
        """Append pairs ``(a, b)`` (rows of X; ``a`` should rank above ``b``) with weights ``C > 0``."""
        a = np.asarray(a, dtype=np.int64).reshape(-1)
        b = np.asarray(b, dtype=np.int64).reshape(-1)
        if a.shape != b.shape:
            raise ValueError(f"a and b must have the same length; got {a.size} and {b.size}.")
        C = np.broadcast_to(np.asarray(C, dtype=np.float64), a.shape).copy()
        if not np.all(np.isfinite(C) & (C > 0)):
            raise ValueError("C must be finite and > 0 for every pair.")
        n = self.X.shape[0]
        if a.size and (min(a.min(), b.min()) < 0 or max(a.max(), b.max()) >= n):
            raise ValueError(f"pair rows must lie in [0, {n}).")
        if a.size == 0:
            return
        self._add_points(np.concatenate((a, b)))
        start = self.n_rows
        ab = np.stack((self._local_of[a], self._local_of[b]), axis=1)
        self._ab = np.ascontiguousarray(np.vstack((self._ab, ab)))
        self._C = np.concatenate((self._C, C))
        self.alpha_ = np.concatenate((self.alpha_, np.zeros(a.size)))
        self._qd = np.concatenate((self._qd, np.zeros(a.size)))
        pair_diag(self._K, self._P, self._sq, self.gamma, self._cached, self._ab, start,
                  self.n_rows, self._qd)

    def solve(self, tol=None, max_iter=None, report=None):
        """Dual CD from the current alpha (a warm start), as :meth:`birank.solvers.dual_cd.DualCD.solve`.

        ``tol`` / ``max_iter`` default to the constructor's. Returns whether the
        stopping rule was met; no warning is raised here (the caller decides).
        ``report(step, total, message)`` (a reporter of :mod:`birank._progress`), if
        given, is called before the passes (step 0), between them (the passes run so
        far, the projected-gradient spread against ``tol``) about once a second or
        after every pass when a pass takes longer, and after them (step = the passes
        run); the passes then run in calls of the compiled kernel of about half a
        second each (:mod:`birank.solvers._passes`), without ``report`` in one call,
        with the same bits either way.
        """
        tol = self.tol if tol is None else float(tol)
        max_iter = self.max_iter if max_iter is None else int(max_iter)
        if report is not None:
            cache = ("cached" if self._cached
                     else "not cached: columns recomputed at every step")
            report(0, None, f"kernel dual CD over {self.n_rows} pairs of "
                            f"{self.point_index_.size} points (kernel {cache}): at most "
                            f"{max_iter} passes, tol={tol:g}")
        passes = Passes(draw_seed(self._rng), self.n_rows, gap=np.inf)
        squared = self.loss == "squared_hinge"

        def step(until):
            kernel_dual_cd_run(self._K, self._P, self._sq, self.gamma, self._cached, self._ab,
                               self._C, self._qd, self.alpha_, self.point_coef_, self._f,
                               self.n_rows, squared, tol, passes.rng, passes.index,
                               passes.counts, passes.pg, until)

        def line(p):
            return (f"kernel dual CD pass {p.n_iter}: projected-gradient spread "
                    f"{p.gap:.3g} > tol={tol:g}")

        passes.run(step, max_iter, report, line)
        n_iter, gap = passes.n_iter, passes.gap
        self.n_iter_, self.pg_gap_ = n_iter, gap
        self.converged_ = not (n_iter >= max_iter and gap > tol)
        if report is not None:
            report(self.n_iter_, None,
                   f"kernel dual CD: {self.n_iter_} passes, projected-gradient spread "
                   f"{self.pg_gap_:.3g} {'<=' if self.converged_ else '>'} tol={tol:g}")
        return self.converged_

    def result(self):
        """The state after the last :meth:`solve` as a :class:`SolverResult` (``coef`` = the
        point coefficients, in the order of ``point_index_``)."""
        return SolverResult(self.point_coef_.copy(), self.n_iter_, self.converged_,
                            self.primal_objective(), lower_bound=self.dual_objective(),
                            info={"pg_gap": self.pg_gap_})

    def not_converged_message(self, name, max_iter, tol):
        """The sentence a caller puts in its ConvergenceWarning after a failed :meth:`solve`."""
        return (f"{name} did not converge in max_iter={max_iter} passes (projected-gradient "
                f"spread {self.pg_gap_:.3g} > tol={tol:g}); increase max_iter or tol.")

    # ------------------------------------------------------------ read-outs
    def support(self):
        """``(rows of X, coefficients)`` of the points with a non-zero coefficient."""
        keep = self.point_coef_ != 0.0
        return self.point_index_[keep], self.point_coef_[keep].copy()

    def decision_function(self, X):
        rows, coef = self.support()
        if rows.size == 0:
            return np.zeros(X.shape[0])
        return point_kernel(X, self._P[self._local_of[rows]], self.kernel, self.gamma) @ coef

    def margins(self):
        """``f(x_a) - f(x_b)`` of every pair."""
        return self._f[self._ab[:, 0]] - self._f[self._ab[:, 1]]

    def primal_objective(self):
        c = self.point_coef_
        xi = np.maximum(0.0, 1.0 - self.margins())
        if self.loss == "squared_hinge":
            xi = xi * xi
        return 0.5 * dot(c, self._f) + dot(self._C, xi)

    def dual_objective(self):
        al = self.alpha_
        val = al.sum() - 0.5 * dot(self.point_coef_, self._f)
        if self.loss == "squared_hinge":
            val -= float(np.sum(al * al * (0.25 / self._C)))
        return float(val)
