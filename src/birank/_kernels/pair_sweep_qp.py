"""Dual QP of the 1-slack cutting-plane RankSVM (small, dense), solved by SMO.

    max_alpha  alpha . b - 1/2 alpha' G alpha
    s.t.       alpha >= 0,  sum(alpha) <= C

(Joachims 2006, "Training linear SVMs in linear time", the dual of OP 2 over the
working set of cutting planes; here without the 1/n scaling since our loss is
a sum over pairs.) Index 0 is a slack plane with a = 0, b = 0, so the
constraint becomes ``sum(alpha) == C``: a scaled simplex, on which the
pairwise (SMO) step between the coordinate of largest and smallest gradient
among the non-zero ones is exact.
"""

import numpy as np
from numba import njit

__all__ = ["simplex_qp_smo"]


@njit(cache=True)
def simplex_qp_smo(G, b, alpha, m, eps, max_iter):
    """Maximize ``alpha.b - 1/2 alpha'G alpha`` on ``{alpha >= 0, sum = C}`` in place.

    Parameters
    ----------
    G : float64[cap, cap]  Gram matrix; only the leading ``m x m`` block is used.
    b : float64[cap]
    alpha : float64[cap]  feasible start (sum = C), updated in place.
    m : int  number of planes in use (including the slack plane 0).
    eps : float  stop when max gradient - min gradient over the support <= eps.
    max_iter : int

    Returns
    -------
    n_iter : int
    """
    grad = np.empty(m)
    for k in range(m):
        acc = b[k]
        for l in range(m):
            acc -= G[k, l] * alpha[l]
        grad[k] = acc
    it = 0
    while it < max_iter:
        i = 0
        gi = grad[0]
        for k in range(1, m):
            if grad[k] > gi:
                gi = grad[k]
                i = k
        j = -1
        gj = np.inf
        for k in range(m):
            if alpha[k] > 0.0 and grad[k] < gj:
                gj = grad[k]
                j = k
        if j < 0 or gi - gj <= eps or i == j:
            break
        curv = G[i, i] + G[j, j] - 2.0 * G[i, j]
        if curv <= 0.0:
            delta = alpha[j]
        else:
            delta = (gi - gj) / curv
            if delta > alpha[j]:
                delta = alpha[j]
        alpha[i] += delta
        alpha[j] -= delta
        if alpha[j] < 0.0:
            alpha[j] = 0.0
        for k in range(m):
            grad[k] -= delta * (G[k, i] - G[k, j])
        it += 1
    return it
