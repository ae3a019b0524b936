"""Soft confidence-weighted (SCW-I) steps on one pair ``z = x_t - x``, full and diagonal.

khalid-ray-chitsaz eq. (5)/(6): with the Gaussian ranker N(mu, Sigma),

    min_{mu, Sigma}  KL(N(mu, Sigma) || N(mu_t, Sigma_t)) + C l(mu, Sigma),
    l = max(0, phi sqrt(z' Sigma z) - y mu.z),     phi = Phi^{-1}(eta) > 0.

Derivation (both variants; Wang, Zhao & Hoi 2012, "Exact soft confidence-weighted
learning", after Crammer et al.'s CW). Write Sigma = Y^2 (Y the square root, a
bijection on positive definite matrices): the loss becomes
``phi |Y z| - y mu.z``, convex in (mu, Y), and so is the KL, hence the KKT
conditions with a multiplier alpha in [0, C] on the loss are sufficient:

    mu = mu_t + alpha y Sigma_t z                                   (stationarity in mu)
    Sigma^{-1} = Sigma_t^{-1} + (alpha phi / s) z z',  s = sqrt(z' Sigma z)   (in Y)

and alpha = 0 if the loss is already 0, alpha = C if the loss stays positive at
alpha = C, else the loss is exactly 0 at the solution:  m + alpha v = phi s(alpha),
with m = y mu_t.z and v = z' Sigma_t z (y mu.z = m + alpha v by the first line).

Full covariance. Sherman-Morrison on the second line gives
``Sigma = Sigma_t - beta Sigma_t z z' Sigma_t`` with ``beta = c / (1 + c v)``,
``c = alpha phi / s``, and ``s^2 = z'Sigma z = v / (1 + c v)``, i.e.
``s^2 + alpha phi v s - v = 0``:  s = (-alpha v phi + sqrt(alpha^2 v^2 phi^2 + 4 v)) / 2,
which is sqrt(u) of SCW. So beta = alpha phi / (sqrt(u) + v alpha phi): SCW-I's
formula. khalid-ray-chitsaz Prop. 1 prints beta = alpha phi / sqrt(u + v alpha phi),
a typo (it is not c / (1 + c v); the numerical test compares with a generic
optimizer). Solving m + alpha v = phi s for alpha gives SCW's closed form
alpha = (-m psi + sqrt(m^2 phi^4 / 4 + v phi^2 zeta)) / (v zeta), psi = 1 + phi^2/2,
zeta = 1 + phi^2, clipped to [0, C] (SCW-I; Prop. 1's alpha is this one).

Diagonal covariance (eq. (6), Sigma = diag(g) restricted to diagonal matrices).
The same conditions hold coordinate-wise in the standard deviations sigma_i:
``1/g_i' = 1/g_i + (alpha phi / s) z_i^2`` and ``mu' = mu + alpha y g z``, where now
``s^2 = sum_i a_i s / (s + alpha phi a_i)``, ``a_i = g_i z_i^2``, i.e.
``s = sum_i a_i / (s + alpha phi a_i)`` -- no closed form unless z has one
non-zero (then it is the full formula). So alpha is the root of the increasing
concave function  F(alpha) = p/phi - sum_i a_i / (p/phi + alpha phi a_i),
p = m + alpha v  (s = p / phi substituted), found by Newton from the full
formula's alpha, which is a lower bound (a_i <= v makes s_diag >= s_full for
every alpha); when alpha is clipped at C, s solves the concave increasing
``s - sum_i a_i / (s + C phi a_i) = 0``, again by Newton from the full-formula s.
khalid-ray-chitsaz Prop. 2 (``mu + alpha y z / G``, ``G + beta z^2``,
``v = sum z_i^2 / (G_i + C)``) mixes the precision form of the update with the
covariance form of v and borrows AdaGrad's smoothing; the update here is the
exact minimizer of eq. (6), checked against a generic optimizer in the tests.
Each step touches only the coordinates of z: O(nnz(z)) per Newton iteration.
"""

import math

from numba import njit

_NEWTON_MAX = 50
_NEWTON_RTOL = 1e-15


@njit(cache=True, inline="always")
def scw_alpha(m, v, phi, C):
    """SCW-I alpha = min(C, max(0, ...)) of the full-covariance step (Wang et al. 2012)."""
    if v <= 0.0:
        return 0.0
    psi = 1.0 + 0.5 * phi * phi
    zeta = 1.0 + phi * phi
    a = (-m * psi + math.sqrt(m * m * phi ** 4 / 4.0 + v * phi * phi * zeta)) / (v * zeta)
    if a <= 0.0:
        return 0.0
    return a if a < C else C


@njit(cache=True, inline="always")
def scw_sqrt_u(alpha, v, phi):
    """s = sqrt(z' Sigma_{t+1} z) of the full step: root of s^2 + alpha phi v s - v = 0."""
    b = alpha * v * phi
    return 0.5 * (-b + math.sqrt(b * b + 4.0 * v))


@njit(cache=True)
def scw_full_step(mu, sigma, z_idx, z_val, nz, y, C, phi, sz):
    """One SCW-I step on ``N(mu, Sigma)`` (dense d x d) for the sparse pair z; returns alpha.

    ``sz`` is scratch of length d (it ends holding Sigma_t z).
    """
    d = mu.shape[0]
    for i in range(d):
        sz[i] = 0.0
    m = 0.0
    for k in range(nz):
        j = z_idx[k]
        zj = z_val[k]
        m += mu[j] * zj
        for i in range(d):           # Sigma symmetric: row j is column j
            sz[i] += sigma[j, i] * zj
    m *= y
    v = 0.0
    for k in range(nz):
        v += sz[z_idx[k]] * z_val[k]
    if v <= 0.0 or phi * math.sqrt(v) - m <= 0.0:
        return 0.0                   # loss already zero: (mu_t, Sigma_t) is optimal
    alpha = scw_alpha(m, v, phi, C)
    if alpha <= 0.0:
        return 0.0
    s = scw_sqrt_u(alpha, v, phi)
    beta = alpha * phi / (s + v * alpha * phi)   # SCW-I beta; Prop. 1's sqrt(u + v a phi) is a typo
    ay = alpha * y
    for i in range(d):
        mu[i] += ay * sz[i]          # Prop. 1: mu + alpha y Sigma z
    for i in range(d):
        ci = beta * sz[i]
        for j in range(i, d):        # Sigma - beta (Sigma z)(Sigma z)', kept exactly symmetric
            val = sigma[i, j] - ci * sz[j]
            sigma[i, j] = val
            sigma[j, i] = val
    return alpha


@njit(cache=True, inline="always")
def _diag_F(alpha, m, v, phi, z_a, nz):
    """F(alpha) and F'(alpha) of the diagonal step (module docstring)."""
    p = (m + alpha * v) / phi
    dp = v / phi
    f = p
    df = dp
    for k in range(nz):
        a = z_a[k]
        q = p + alpha * phi * a
        f -= a / q
        df += a * (dp + phi * a) / (q * q)
    return f, df


@njit(cache=True, inline="always")
def _diag_s_at(alpha, phi, z_a, nz, s):
    """Root of s - sum a_i / (s + alpha phi a_i), by Newton from a point left of it."""
    for _ in range(_NEWTON_MAX):
        f = s
        df = 1.0
        for k in range(nz):
            a = z_a[k]
            q = s + alpha * phi * a
            f -= a / q
            df += a / (q * q)
        step = f / df
        s -= step
        if abs(step) <= _NEWTON_RTOL * s:
            break
    return s


@njit(cache=True)
def scw_diag_step(mu, g, z_idx, z_val, z_a, nz, y, C, phi):
    """One exact SCW-I step of eq. (6) on ``N(mu, diag(g))`` for the sparse pair z; returns alpha.

    ``z_a`` is scratch of length >= nz. O(nnz(z)) per Newton iteration.
    """
    m = 0.0
    v = 0.0
    for k in range(nz):
        j = z_idx[k]
        zj = z_val[k]
        m += mu[j] * zj
        a = g[j] * zj * zj
        z_a[k] = a
        v += a
    m *= y
    if v <= 0.0 or phi * math.sqrt(v) - m <= 0.0:
        return 0.0
    lo = scw_alpha(m, v, phi, math.inf)          # full-formula root: a lower bound
    if lo >= C:
        alpha = C
    else:
        fC, _ = _diag_F(C, m, v, phi, z_a, nz)
        if fC <= 0.0:
            alpha = C
        else:
            alpha = lo
            for _ in range(_NEWTON_MAX):       # concave increasing F: monotone from the left
                f, df = _diag_F(alpha, m, v, phi, z_a, nz)
                step = f / df
                alpha -= step
                if alpha >= C:
                    alpha = C
                    break
                if abs(step) <= _NEWTON_RTOL * alpha:
                    break
    if alpha <= 0.0:
        return 0.0
    if alpha < C:
        s = (m + alpha * v) / phi                 # the loss is exactly 0: phi s = m + alpha v
    else:
        s = _diag_s_at(alpha, phi, z_a, nz, scw_sqrt_u(alpha, v, phi))
    ay = alpha * y
    c = alpha * phi
    for k in range(nz):
        j = z_idx[k]
        gj = g[j]
        mu[j] += ay * gj * z_val[k]                 # mu + alpha y diag(g) z
        g[j] = gj * s / (s + c * z_a[k])            # 1/g' = 1/g + (alpha phi / s) z_j^2
    return alpha
