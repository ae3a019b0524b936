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

from .._parallel import resolve_n_jobs
from .newton import RowsObjective, newton_cg

__all__ = ["solve_point_squared_hinge", "NEWTON_TOL_SCALE"]

#: Newton stops at ``|grad| <= NEWTON_TOL_SCALE * tol * |grad(0)|`` for the
#: estimator's ``tol`` (the dual solver's projected-gradient tolerance, default
#: 0.1, documented as "objective within about 1e-3 relative"): at 1e-4 the
#: relative gradient leaves the objective within 2e-6 of the optimum on a9a and w8a
NEWTON_TOL_SCALE = 1e-3


def signed_rows(X, y01, fit_intercept):
    """``z_i = y_i x_i`` (and the coordinate ``y_i`` with a bias); CSR shares X's indices."""
    ys = np.where(y01 > 0, 1.0, -1.0)
    if sp.issparse(X):
        X = X.tocsr()
        data = X.data * np.repeat(ys, np.diff(X.indptr))
        Z = sp.csr_matrix((data, X.indices, X.indptr), shape=X.shape)
        if fit_intercept:
            Z = sp.hstack([Z, sp.csr_matrix(ys[:, None])], format="csr")
        return Z
    Z = np.asarray(X, dtype=np.float64) * ys[:, None]
    return np.hstack([Z, ys[:, None]]) if fit_intercept else Z


def solve_point_squared_hinge(X, y01, cost, *, fit_intercept=False, tol=0.1, max_iter=1000,
                              n_jobs=None):
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
                    np.zeros(Z.shape[1]), tol=NEWTON_TOL_SCALE * tol, max_iter=max_iter)
    if fit_intercept:
        res.intercept = float(res.coef[-1])
        res.coef = res.coef[:-1].copy()
    return res
