"""Primal truncated Newton for the point-wise weighted squared-hinge SVM.

``min_w 1/2 |w|^2 + sum_i c_i max(0, 1 - y_i w.x_i)^2`` (y_i in {-1, +1}) is
:class:`~birank.solvers.newton.RowsObjective` on the rows ``z_i = y_i x_i``,
solved by :func:`~birank.solvers.newton.newton_cg` (line-search truncated
Newton with a diagonal preconditioner; LIBLINEAR's ``-s 2`` is the
trust-region variant of the same method, Lin, Weng & Keerthi 2008). With a
bias, ``z_i`` gets the coordinate ``y_i`` and the bias is penalized like a
weight (``b^2 / 2``), the same problem as the dual solver's threshold
coordinate (eq. (8), ``b = -theta``).

Dual coordinate descent needs many passes on this loss when C is not small
(a9a, balanced weights: 1000 passes, 1.1 s). Newton stops at
``|grad| <= 1e-3 tol |grad(0)|`` (1e-4 at the default tol 0.1; LIBLINEAR
``-s 2`` stops at ``0.01 min(N+, N-) / N`` of it, looser): 5 iterations on
a9a, 9 on w8a, each below LIBLINEAR's objective at its defaults (1e-3 gave
a higher one on w8a), see the ``curves`` of ``benchmarks/bench_references.py``.
The Hessian product reads the rows with a positive loss alone
(``_kernels.pair_sweep_ops.csr_rows_gram_matvec``), and on binary features,
where every row of Z is all +1 or all -1, not their values either (the same
bits: ``signed_unit_rows``).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._linalg import RowOperator, matvec, rmatvec
from .._parallel import resolve_n_jobs
from .newton import RowsObjective, newton_cg

__all__ = ["solve_point_squared_hinge", "NEWTON_TOL_SCALE"]

#: Newton stops at ``|grad| <= NEWTON_TOL_SCALE * tol * |grad(0)|`` for the
#: estimator's ``tol`` (the dual solver's projected-gradient tolerance, default
#: 0.1, documented as "objective within about 1e-3 relative"): at 1e-4 the
#: relative gradient leaves the objective within 2e-6 of the optimum on a9a and w8a
NEWTON_TOL_SCALE = 1e-3


def signed_rows(X, y01, fit_intercept):
    """``z_i = y_i x_i`` (and the coordinate ``y_i`` with a bias); CSR shares X's indices,
    a dense X is not copied (:class:`SignedRows`)."""
    ys = np.where(y01 > 0, 1.0, -1.0)
    if sp.issparse(X):
        X = X.tocsr()
        data = X.data * np.repeat(ys, np.diff(X.indptr))
        Z = sp.csr_matrix((data, X.indices, X.indptr), shape=X.shape)
        if fit_intercept:
            Z = sp.hstack([Z, sp.csr_matrix(ys[:, None])], format="csr")
        return Z
    return SignedRows(np.asarray(X), ys, fit_intercept)


class SignedRows(RowOperator):
    """The rows ``z_i = y_i x_i`` (and the coordinate ``y_i`` with a bias) of a dense X,
    through products with X itself: no signed copy of X (nor a float64 one of a
    float32 X, :func:`birank._linalg.matvec`).

    The signs are +-1, so ``y_i (x_i . v)`` and ``x_ij (y_i u_i)`` are the products
    of the signed rows to the bit; without a bias the products, and the fit, are
    those of the signed copy bit for bit (a bias column sums in another order).
    """

    def __init__(self, X, ys, fit_intercept):
        self.X, self.ys, self.fit_intercept = X, ys, bool(fit_intercept)
        self.shape = (X.shape[0], X.shape[1] + self.fit_intercept)

    def __getitem__(self, rows):
        """The operator of some of the rows (a copy of those rows of X)."""
        return SignedRows(self.X[rows], self.ys[rows], self.fit_intercept)

    def matvec(self, v):
        d = self.X.shape[1]
        s = matvec(self.X, v[:d])
        if self.fit_intercept:
            s += v[d]
        s *= self.ys
        return s

    def rmatvec(self, u):
        t = self.ys * u
        g = rmatvec(self.X, t)
        return np.append(g, t.sum()) if self.fit_intercept else g

    def sq_rmatvec(self, u):
        from .newton import _sq_rmatvec

        q = _sq_rmatvec(self.X, u)  # (y_i x_ij)^2 = x_ij^2
        return np.append(q, u.sum()) if self.fit_intercept else q


def solve_point_squared_hinge(X, y01, cost, *, fit_intercept=False, tol=0.1, max_iter=1000,
                              n_jobs=None, report=None):
    """Weighted point-wise squared-hinge SVM by primal Newton.

    Parameters
    ----------
    X : ndarray or CSR matrix of shape (n, d)
    y01 : ndarray of shape (n,), 1 for the positive class, 0 for the negative.
    cost : ndarray of shape (n,), ``c_i >= 0`` (class weight times sample weight).
    fit_intercept : bool
        Learn a bias b (penalized by ``b^2 / 2``); the score is ``w.x + b``.
    tol, max_iter : stopping rule ``|grad| <= NEWTON_TOL_SCALE tol |grad(0)|``, iterations.
    n_jobs : int or None
        Threads for the products with a sparse X (fixed row blocks: the same
        coefficients for every value).
    report : callable or None
        ``report(step, total, message)`` after every Newton iteration, as
        :func:`~birank.solvers.newton.newton_cg`'s.

    Returns
    -------
    SolverResult
        ``coef`` = w (without the bias), ``intercept`` = b, ``objective``.
    """
    Z = signed_rows(X, y01, fit_intercept)
    keep = np.flatnonzero(cost > 0)
    if keep.shape[0] < Z.shape[0]:
        Z, cost = Z[keep], cost[keep]
    res = newton_cg(RowsObjective(Z, np.ascontiguousarray(cost, dtype=np.float64),
                                  n_jobs=resolve_n_jobs(n_jobs)),
                    np.zeros(Z.shape[1]), tol=NEWTON_TOL_SCALE * tol, max_iter=max_iter,
                    report=report)
    if fit_intercept:
        res.intercept = float(res.coef[-1])
        res.coef = res.coef[:-1].copy()
    return res
