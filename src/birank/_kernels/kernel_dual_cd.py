"""Dual coordinate descent for kernel RankSVM over a pool of pairs (lin-jan-lin eq. (1) dual).

Problem (lin-jan-lin section III-A, dual of eq. (1); squared hinge as in
LIBLINEAR's L2-loss dual)::

    min_alpha 1/2 alpha' (Q + D) alpha - e' alpha,   0 <= alpha_p <= U_p
    Q_pq = K_ia - K_ib - K_ja + K_jb   for pairs p = (i, j), q = (a, b)

    hinge:          U_p = C_p,   D_pp = 0
    squared hinge:  U_p = inf,   D_pp = 1 / (2 C_p)

``Q`` is never formed. The pairs only enter through the point coefficients
``coef_u = sum_{p: i_p = u} alpha_p - sum_{p: j_p = u} alpha_p`` (the model is
``f(x) = sum_u coef_u k(x_u, x)``, lin-jan-lin: w = sum_p alpha_p X_p), and the
kernel keeps the scores ``f_u = sum_v K_uv coef_v`` of the m distinct points of
the pool up to date: the gradient of pair p is ``f_i - f_j - 1 + D_pp alpha_p``
(O(1)) and a step delta on alpha_p costs ``f += delta (K[:, i] - K[:, j])``
(O(m)). Points are local ids ``0 .. m-1``.

The kernel column comes from a cached m x m matrix ``K`` (``cached=True``) or is
computed on the fly from the dense points ``P`` (m x d, RBF with ``gamma``) when
the matrix would not fit; both give the same values.
"""

import numpy as np
from numba import njit

from .dual_cd import CNT_DONE, CNT_IT, PG_GAP, _new_alpha, _projected_gradient
from .sparse_rows import rng_int


@njit(cache=True, inline="always")
def _rbf(sq_u, sq_v, dot, gamma):
    """``exp(-gamma |u - v|^2)`` from the squared norms and the dot product (the
    expanded distance, clipped at 0 against rounding)."""
    dist = sq_u + sq_v - 2.0 * dot
    if dist < 0.0:
        dist = 0.0
    return np.exp(-gamma * dist)


@njit(cache=True, inline="always")
def _rbf_column(P, sq, gamma, a, out):
    m, d = P.shape
    for u in range(m):
        dot = 0.0
        for k in range(d):
            dot += P[u, k] * P[a, k]
        out[u] = _rbf(sq[u], sq[a], dot, gamma)


@njit(cache=True)
def rbf_from_gram(G, sq_a, sq_b, gamma):
    """In place, ``G[u, v] = exp(-gamma max(sq_a[u] + sq_b[v] - 2 G[u, v], 0))``: the RBF
    kernel from the Gram matrix ``A B'`` and the squared row norms, in one pass over G
    (NumPy's expression allocates three m x n temporaries; at 5000 x 5000 they cost
    four times the product)."""
    m, n = G.shape
    for u in range(m):
        for v in range(n):
            G[u, v] = _rbf(sq_a[u], sq_b[v], G[u, v], gamma)


@njit(cache=True)
def mirror_upper(K):
    """In place, ``K[v, u] = K[u, v]`` for u < v: exactly symmetric."""
    m = K.shape[0]
    for u in range(m):
        for v in range(u + 1, m):
            K[v, u] = K[u, v]


@njit(cache=True)
def pair_diag(K, P, sq, gamma, cached, ab, start, stop, qd):
    """``Q_pp = K_ii + K_jj - 2 K_ij`` for pool rows ``start <= p < stop`` (clipped at 0)."""
    for p in range(start, stop):
        i, j = ab[p, 0], ab[p, 1]
        if cached:
            q = K[i, i] + K[j, j] - 2.0 * K[i, j]
        else:
            dot = 0.0
            for k in range(P.shape[1]):
                dot += P[i, k] * P[j, k]
            q = 2.0 - 2.0 * _rbf(sq[i], sq[j], dot, gamma)
        qd[p] = max(q, 0.0)


@njit(cache=True)
def kernel_dual_cd_run(K, P, sq, gamma, cached, ab, C, qd, alpha, coef, f, n_rows, squared,
                       tol, state, perm, counts, pgc, until):
    """Random-permutation dual CD (Hsieh et al. 2008, Algorithm 1) on kernel pair rows,
    from the state ``state, perm, counts, pgc`` of :func:`.dual_cd.start_passes` (its
    ``rng``, its ``index``, which each pass shuffles further, its ``counts`` and ``pg``;
    no shrinking) until pass ``until`` (a total) or the stopping rule; the state is
    left after the last pass run.

    Updates ``alpha``, ``coef`` and ``f`` in place. Stops when the spread of the
    projected gradient ``PGmax - PGmin`` over a pass is at most ``tol``
    (LIBSVM's and LIBLINEAR's rule); ``pgc[PG_GAP]`` holds the last pass's spread
    (its caller sets it to inf before the first pass).
    """
    m = f.shape[0]
    ki = np.empty(m)
    kj = np.empty(m)
    spread = pgc[PG_GAP]
    it = counts[CNT_IT]
    done = counts[CNT_DONE] != 0
    while it < until and not done:
        it += 1
        for k in range(n_rows - 1, 0, -1):
            r = rng_int(state, k + 1)
            perm[k], perm[r] = perm[r], perm[k]
        pg_max = -np.inf
        pg_min = np.inf
        for t in range(n_rows):
            p = perm[t]
            i, j = ab[p, 0], ab[p, 1]
            dpp = 0.5 / C[p] if squared else 0.0
            upper = np.inf if squared else C[p]
            a_old = alpha[p]
            g = f[i] - f[j] - 1.0 + dpp * a_old
            # the linear solver's step (no shrinking here): projected gradient, then
            # the clipped minimizer, which moves a zero pair vector (x_i == x_j in
            # feature space, hinge) to the bound its gradient points at
            pg, _ = _projected_gradient(g, a_old, upper, np.inf, -np.inf, False)
            pg_max = max(pg_max, pg)
            pg_min = min(pg_min, pg)
            if abs(pg) <= 1e-12:
                continue
            a_new = _new_alpha(g, a_old, upper, qd[p] + dpp)
            delta = a_new - a_old
            if delta == 0.0:
                continue
            alpha[p] = a_new
            coef[i] += delta
            coef[j] -= delta
            if cached:
                # K is symmetric: read rows i and j (contiguous) rather than columns,
                # whose stride of m doubles made every read a cache miss
                Ki, Kj = K[i], K[j]
                for u in range(m):
                    f[u] += delta * (Ki[u] - Kj[u])
            else:
                _rbf_column(P, sq, gamma, i, ki)
                _rbf_column(P, sq, gamma, j, kj)
                for u in range(m):
                    f[u] += delta * (ki[u] - kj[u])
        if n_rows == 0:
            spread = 0.0
            done = True
            break
        spread = pg_max - pg_min
        done = spread <= tol
    counts[CNT_IT] = it
    counts[CNT_DONE] = 1 if done else 0
    pgc[PG_GAP] = spread
