"""Exact all-pairs linear RankSVM: the one entry point estimators call.

:func:`solve_all_pairs` builds the objectives the chosen loss needs (the hinge's
Huber smoothing takes two squared-hinge objectives on the same data), solves,
and returns a :class:`~birank.solvers._result.SolverResult` with ``n_pairs``
and, for the hinge, the certified ``lower_bound``.

Columns of a sparse X with no stored entry are dropped before solving and get
weight 0: their gradient is ``w_j`` alone (the loss does not depend on them), so
the optimum has ``w_j = 0``, and every vector operation of the Newton and CG
iterations then costs O(used columns) instead of O(n_features) (200 rows over
10^6 features: see ``benchmarks/bench_wide_sparse.py``).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._kernels.blocked_products import mark_used_columns
from .._kernels.losses import SQUARED_HINGE, loss_code
from .._parallel import Threads, even_runs, resolve_n_jobs
from .newton import PairObjective, hinge_by_smoothing, newton_cg

__all__ = ["solve_all_pairs", "used_columns"]

#: drop unused columns when at most this fraction of them holds an entry (else the
#: re-indexed copy of X's indices is not worth it)
USED_FRACTION = 0.5
#: from this many stored entries the used columns are marked by a kernel (numpy's
#: bincount first copies int32 indices to int64: 80 ms at 2e7 entries); below, numpy
#: (a first fit compiles nothing for it)
USED_SCAN_KERNEL_NNZ = 1 << 22


def used_columns(X, n_jobs=None):
    """``(X restricted to its used columns, their indices)``, or ``(X, None)``.

    Only for a CSR X whose used columns are at most :data:`USED_FRACTION` of
    them; the restricted matrix shares ``data`` and ``indptr`` with X (the
    column map is monotone, so its indices stay sorted). ``n_jobs``: threads
    that mark the columns of parts of the stored entries.
    """
    if not sp.issparse(X) or X.shape[1] == 0:
        return X, None
    if X.nnz >= USED_SCAN_KERNEL_NNZ:
        threads = Threads(n_jobs)
        try:
            # O(nnz), no sort, no copy of the indices: each part marks its own row
            parts = even_runs(X.nnz, threads.n)
            used = np.zeros((len(parts), X.shape[1]), dtype=np.bool_)
            threads.run(mark_used_columns, [(X.indices, used[t], p0, p1)
                                            for t, (p0, p1) in enumerate(parts)])
        finally:
            threads.close()
        cols = np.flatnonzero(used.any(axis=0))
    else:  # small X: numpy's count (a copy of the indices), no kernel to compile
        cols = np.flatnonzero(np.bincount(X.indices, minlength=X.shape[1]))
    if cols.shape[0] > USED_FRACTION * X.shape[1]:
        return X, None
    indices = np.searchsorted(cols, X.indices).astype(X.indices.dtype, copy=False)
    Xc = sp.csr_matrix((X.data, indices, X.indptr), shape=(X.shape[0], cols.shape[0]),
                       copy=False)
    Xc.has_canonical_format = True  # (X was canonical: the map keeps rows sorted)
    return Xc, cols


def solve_all_pairs(X, y, *, groups=None, sample_weight=None, C=1.0, loss="squared_hinge",
                    tol=1e-4, max_iter=1000, report=None, n_jobs=None):
    """``min_w 1/2 |w|^2 + C sum_{y_i > y_j} c_ij loss(1 - w.(x_i - x_j))`` over all pairs.

    Parameters
    ----------
    X : ndarray, canonical CSR matrix, or a row operator with ``@`` and ``.T @``
        (see :class:`~birank.solvers.newton.PairObjective`).
    y : ndarray of float64
        Relevance (two values or graded).
    groups, sample_weight : ndarray or None
        Pairs only inside a group; ``c_ij = sample_weight[i] sample_weight[j]``.
    loss : {"squared_hinge", "hinge"}
        Squared hinge: :func:`~birank.solvers.newton.newton_cg` to ``|grad| <= tol
        |grad(0)|``. Hinge: :func:`~birank.solvers.newton.hinge_by_smoothing` to a
        certified relative duality gap ``<= tol``.
    n_jobs : int or None
        Threads for the products with a CSR X (:mod:`birank._parallel`; the
        same coefficients for every value); None: the one-thread kernels, unless a
        joblib ``parallel_config`` asks for more jobs (:func:`birank._parallel.resolve_n_jobs`).

    Returns
    -------
    SolverResult
        ``coef`` of length ``n_features``, ``n_pairs``, ``lower_bound`` (NaN for
        the squared hinge), ``reason`` when not converged.
    """
    d = X.shape[1]
    n_jobs = resolve_n_jobs(n_jobs)  # (a joblib context's count for None)
    Xs, cols = used_columns(X, n_jobs)
    obj = PairObjective(Xs, y, groups, sample_weight, C=C, n_jobs=n_jobs)
    w0 = np.zeros(Xs.shape[1])
    if loss_code(loss) == SQUARED_HINGE:
        res = newton_cg(obj, w0, tol=tol, max_iter=max_iter, report=report)
    else:
        # the Huber objective is a difference of two squared hinges (margins 1 and
        # 1 - delta), each with its own sort state
        obj2 = PairObjective(Xs, y, groups, sample_weight, C=C, n_jobs=n_jobs)
        res = hinge_by_smoothing(obj, obj2, C, tol=tol, max_iter=max_iter, report=report,
                                 w0=w0)
    res.n_pairs = int(obj.n_pairs)
    if cols is not None:
        coef = np.zeros(d)
        coef[cols] = res.coef
        res.coef = coef
    return res
