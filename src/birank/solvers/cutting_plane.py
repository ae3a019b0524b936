"""1-slack cutting-plane solver for the all-pairs hinge-loss RankSVM.

Problem (Joachims 2006, "Training linear SVMs in linear time", OP 2 for the
ROC-area loss, without the 1/n scaling)::

    min_w  P(w) = 1/2 |w|^2 + C * sum_{(i,j): y_i > y_j, same group}
                     c_ij * max(0, 1 - w.(x_i - x_j)),      c_ij = sw_i * sw_j

written as ``min 1/2|w|^2 + C xi`` s.t. ``xi >= b_c - w.a_c`` for every subset c
of pairs, with ``a_c = sum_{p in c} c_p z_p`` and ``b_c = sum_{p in c} c_p``.
The most violated constraint at w takes c = the active pairs (margin < 1); its
coefficients are weighted *counts* of active partners per row, found by the
same sorted sweep as the squared-hinge solver (``loss_kind=1``), so
``a = -X' grad_s`` and ``b = loss(w) + w.a``, in O(N log N + nnz).

Each iteration adds that plane and solves the dual QP over the working set
exactly (SMO on a scaled simplex, :mod:`birank._kernels.pair_sweep_qp`).
Stopping rule: the dual value of the working-set QP is a lower bound on the
optimum P* (weak duality holds for any feasible alpha), and every evaluated w
gives an upper bound, so we stop when

    (min_t P(w_t) - dual) <= tol * min_t P(w_t),

a certified relative optimality gap, and return the best w seen. Planes whose
multiplier stayed 0 for ``max_age`` iterations are dropped (as SVMperf does).
"""

from __future__ import annotations

import numpy as np

from .._kernels.pair_sweep_qp import simplex_qp_smo
from .newton import _rmatvec

__all__ = ["cutting_plane"]


def cutting_plane(obj, n_features, tol=1e-4, max_iter=1000, report=None, max_age=50):
    """Minimize the hinge pair objective ``obj`` (a ``PairObjective`` with loss_kind=1).

    Returns
    -------
    w, f, n_iter, converged, info (dict: lower bound, gap, planes)
    """
    C = obj.C
    cap = 16
    A = np.zeros((cap, n_features))  # row 0 is the slack plane a = 0, b = 0
    b = np.zeros(cap)
    G = np.zeros((cap, cap))
    alpha = np.zeros(cap)
    alpha[0] = C
    age = np.zeros(cap, dtype=np.int64)
    m = 1
    w = np.zeros(n_features)
    best_w, best_f = w.copy(), np.inf
    dual = 0.0
    converged = False
    n_iter = 0
    for n_iter in range(1, max_iter + 1):
        loss = obj.loss_at_scores(obj.scores(w))
        f = 0.5 * float(w @ w) + C * loss
        if f < best_f:
            best_f, best_w = f, w.copy()
        gap = best_f - dual
        if report is not None:
            report(n_iter, None, f"P={best_f:.10g} lower={dual:.10g} gap={gap / best_f:.2e} "
                                 f"planes={m - 1}")
        if gap <= tol * best_f:
            converged = True
            break
        # most violated constraint at w: a = sum over active pairs of c_p z_p
        a_new = -_rmatvec(obj.X, obj.grad_s)
        b_new = loss + float(w @ a_new)
        # drop planes unused for max_age iterations (never the slack plane 0)
        keep = np.ones(m, dtype=bool)
        keep[1:] = age[1:m] < max_age
        if not keep.all():
            idx = np.flatnonzero(keep)
            k = idx.size
            A[:k] = A[idx]
            b[:k] = b[idx]
            G[:k, :k] = G[np.ix_(idx, idx)]
            alpha[:k] = alpha[idx]
            age[:k] = age[idx]
            alpha[k:] = 0.0
            m = k
        if m == cap:
            cap *= 2
            A = np.vstack([A, np.zeros_like(A)])
            b = np.concatenate([b, np.zeros_like(b)])
            G2 = np.zeros((cap, cap))
            G2[:m, :m] = G[:m, :m]
            G = G2
            alpha = np.concatenate([alpha, np.zeros_like(alpha)])
            age = np.concatenate([age, np.zeros_like(age)])
        A[m] = a_new
        b[m] = b_new
        col = A[:m + 1] @ a_new
        G[m, :m + 1] = col
        G[:m + 1, m] = col
        alpha[m] = 0.0
        age[m] = 0
        m += 1
        # solve the working-set dual QP; precision well below the stopping gap
        eps = 1e-3 * tol * max(best_f, 1e-300) / C
        for _ in range(100):
            it = simplex_qp_smo(G, b, alpha, m, eps, 100000)
            if it < 100000:
                break
        w = alpha[:m] @ A[:m]
        dual = float(alpha[:m] @ b[:m]) - 0.5 * float(w @ w)
        age[:m] = np.where(alpha[:m] > 0.0, 0, age[:m] + 1)
    return best_w, best_f, n_iter, converged, {"lower_bound": dual,
                                               "gap": (best_f - dual) / best_f,
                                               "planes": m - 1}
