"""Dual coordinate descent for the logistic loss on implicit pair rows.

Yu, Huang & Lin (2011), "Dual coordinate descent methods for logistic
regression and maximum entropy models", Machine Learning 85, section 3. Primal
(one row p per pair or pseudo-pair, as in :mod:`.dual_cd`)::

    min_w  1/2 |w|^2 + sum_p C_p log(1 + exp(-w . z_p))

Writing ``log(1 + e^-m) = max_{0 <= a <= 1} -a m - a log a - (1 - a) log(1 - a)``
for every row and minimizing over w (``w = sum_p alpha_p z_p``, ``alpha_p = C_p a_p``)
gives their dual (eq. (10) with y_i x_i -> z_p)::

    min_alpha  1/2 alpha' Q alpha + sum_p [alpha_p log alpha_p + (C_p - alpha_p) log(C_p - alpha_p)]
    0 < alpha_p < C_p,     primal optimum = -(dual optimum) + sum_p C_p log C_p

The one-variable sub-problem in ``a = alpha_p`` (their eq. (16)), with
``b = w . z_p - Q_pp alpha_p^old``::

    g'(a)  = Q_pp a + b + log(a / (C_p - a)),     g''(a) = Q_pp + C_p / (a (C_p - a))

is strictly convex with ``g'`` running from -inf to +inf on (0, C_p), so it has a
unique root; we find it by Newton's method with their safeguard (Algorithm 4): a
step that leaves (0, C_p) is replaced by moving the variable a factor ``XI`` of
the way to the bound it was heading for. A row whose alpha is still 0 (just
added to a pool) starts from ``min(INIT * C_p, 1e-8)`` inside the box (their
initial point); ``w`` receives the whole change from 0, so ``w = sum alpha z``
holds throughout. No shrinking: the optimum is interior.
"""

import numpy as np
from numba import njit

from .dual_cd import CNT_DONE, CNT_IT, PG_GAP, RF_ALPHA, RF_C, RF_Q, tcoef
from .sparse_rows import pair_axpy, pair_dot_w, rng_shuffle

#: Yu, Huang & Lin (2011), Algorithm 4: safeguard factor toward a bound
XI = 0.1
#: initial alpha / C of a new row (LIBLINEAR's solve_l2r_lr_dual uses 1e-3 and 1e-8)
INIT = 1e-3
#: inner Newton iterations per coordinate and their tolerance on |g'|
INNER_MAX = 100
INNER_TOL = 1e-10


@njit(cache=True, inline="always")
def _dlog(a, C):
    """``log(a / (C - a))`` for ``0 < a < C``."""
    return np.log(a) - np.log(C - a)


@njit(cache=True)
def _newton_low(Q, b, C, x):
    """Root of ``Q x + b + log(x / (C - x))`` lying in (0, C / 2], Newton from ``x``
    with the safeguard of Yu, Huang & Lin (2011), Algorithm 4."""
    for _ in range(INNER_MAX):
        g1 = Q * x + b + _dlog(x, C)
        if abs(g1) <= INNER_TOL:
            break
        new = x - g1 / (Q + C / (x * (C - x)))
        if new <= 0.0:
            new = XI * x
        elif new >= C:
            new = C - XI * (C - x)
        if new == x:
            break
        x = new
    return x


@njit(cache=True)
def logistic_coordinate(Q, b, C, a0):
    """Minimizer of ``1/2 Q a^2 + b a + a log a + (C - a) log(C - a)`` on (0, C).

    As Yu, Huang & Lin (2011, section 3.2) we solve for the variable nearer its
    bound: ``a`` when the root lies below C/2 (``g'(C/2) > 0``), otherwise
    ``x = C - a``, whose equation has the same form (``Q x - Q C - b +
    log(x / (C - x)) = 0``), so that a root within rounding of C is still found
    accurately. ``a0`` is the starting point. The result is kept at least one
    rounding step inside (0, C) so that both logarithms stay finite. Exposed
    for the tests (checked against scipy).
    """
    half = 0.5 * C
    lo = C * 1e-300 if C * 1e-300 > 0.0 else 5e-324
    if Q * half + b > 0.0:  # g'(C/2) > 0: root in (0, C/2)
        a = _newton_low(Q, b, C, min(max(a0, lo), half))
    else:
        x = _newton_low(Q, -Q * C - b, C, min(max(C - a0, lo), half))
        a = C - x
    hi = C * (1.0 - 2.3e-16)
    if a > hi:
        a = hi
    if a < lo:
        a = lo
    return a


@njit(cache=True)
def dual_cd_logistic_run(X, w, ab, rf, n_rows, fit_threshold, tol, state, index, counts, pg,
                         until):
    """Dual CD passes for the logistic loss (``w`` must equal sum_p alpha_p z_p on entry)
    from the state ``state, index, counts, pg`` of :func:`.dual_cd.start_passes`
    (``state`` is its ``rng``; no shrinking: the active count and the extremes are not
    used) until pass ``until`` (a total) or the stopping rule; the state is left after
    the last pass run, as :func:`.dual_cd.dual_cd_run` leaves it.

    Each pass visits the rows in a fresh random order. Stops when the dual
    gradient ``G_p = w . z_p + log(alpha_p / (C_p - alpha_p))`` (zero at the
    optimum, every alpha being interior) satisfies ``max(0, G) - min(0, G) <= tol``
    over a pass, the spread :mod:`.dual_cd` uses for the hinge losses.
    """
    last = w.shape[0] - 1
    it = counts[CNT_IT]
    gap = pg[PG_GAP]
    done = counts[CNT_DONE] != 0
    while it < until and not done:
        rng_shuffle(index, n_rows, state)
        Gmax = 0.0
        Gmin = 0.0
        for s in range(n_rows):
            p = index[s]
            ap = ab[p, 0]
            bp = ab[p, 1]
            Cp = rf[p, RF_C]
            Qp = rf[p, RF_Q]
            old = rf[p, RF_ALPHA]
            tp = tcoef(ap, bp, fit_threshold)
            m = pair_dot_w(X, w, ap, bp) + tp * w[last]
            if old <= 0.0:  # a new row: its gradient is -inf at 0, step inside first
                start = min(INIT * Cp, 1e-8)
                G = -np.inf
            else:
                start = old
                G = m + _dlog(old, Cp) if old < Cp else np.inf
            if G > Gmax:
                Gmax = G
            if G < Gmin:
                Gmin = G
            if abs(G) <= 1e-12:
                continue
            new = logistic_coordinate(Qp, m - Qp * old, Cp, start)
            rf[p, RF_ALPHA] = new
            d = new - old
            if d != 0.0:
                pair_axpy(X, w, d, ap, bp)
                w[last] += d * tp
        it += 1
        gap = Gmax - Gmin
        done = gap <= tol
    counts[CNT_IT] = it
    counts[CNT_DONE] = 1 if done else 0
    pg[PG_GAP] = gap
