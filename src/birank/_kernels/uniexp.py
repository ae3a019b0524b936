"""Online univariate exponential loss (Kotlowski, Dembczynski, Huellermeier, ICML 2011).

Kotlowski et al. (section 3, Theorem 1) show that the balanced univariate
exponential loss ``sum_k (1 / n_{y_k}) exp(-y_k f(x_k))`` has the same
minimizer ranking as the pairwise exponential loss ``sum_(i,j) exp(-(f(x_i) -
f(x_j)))`` (the pairwise loss factorizes, ``exp(-f_i) exp(f_j)``). Online, the
class sizes are the running (weighted) counts ``T_+``, ``T_-`` and a stochastic
gradient step is taken on the arriving instance::

    rho_t = (T_+ + T_-) / (2 T_{y_t})              (weight 1/n_y, times n/2)
    w <- w + eta s rho_t exp(-y_t w.x_t) y_t x_t

The factor ``n/2`` keeps the average weight at 1 so that one learning rate
grid serves every class ratio; it changes no minimizer. The exponent is
capped at ``max_exponent`` so that a badly chosen rate cannot overflow to
inf/NaN (the step then grows no further). O(nnz(x_t)) per instance.
"""

import math

from numba import njit

from .sparse_rows import row_axpy, row_dot_w


@njit(cache=True)
def uniexp_pass(X, y01, sw, t0, t1, w, counts, eta, max_exponent):
    """Rows ``t0 .. t1-1`` of ``X`` in order; ``w`` and ``counts`` updated in place.

    Returns the number of steps whose exponent was capped (the caller warns)."""
    capped = 0
    for t in range(t0, t1):
        s = sw[t]
        if s == 0.0:
            continue
        k = y01[t]
        counts[k] += s
        rho = (counts[0] + counts[1]) / (2.0 * counts[k])
        sgn = 1.0 if k == 1 else -1.0
        expo = -sgn * row_dot_w(X, w, t)
        if expo > max_exponent:
            expo = max_exponent
            capped += 1
        row_axpy(X, w, eta * s * rho * math.exp(expo) * sgn, t)
    return capped
