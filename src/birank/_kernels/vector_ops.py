"""Arithmetic on row-length vectors (scores) for the Newton solvers, in parts.

Each kernel works on rows ``p0 .. p1-1``, without the GIL: the solver runs the
parts on its products' threads, where numpy would make temporaries of every row
on one thread. Each entry is computed alone, in the operations and order numpy
uses for the expression it replaces, so the bits do not depend on the parts.
"""

from numba import njit

__all__ = ["add_scaled", "multiply", "squared_hinge_rows"]


@njit(cache=True, nogil=True)
def add_scaled(out, x, a, y, p0, p1):
    """``out[p] = x[p] + a y[p]`` for ``p0 <= p < p1`` (``x`` empty: ``0.0 + a y[p]``, the
    bits of adding to zeros); ``out`` may be ``x``."""
    if x.shape[0] == 0:
        for p in range(p0, p1):
            out[p] = 0.0 + a * y[p]
    else:
        for p in range(p0, p1):
            out[p] = x[p] + a * y[p]


@njit(cache=True, nogil=True)
def multiply(out, x, y, p0, p1):
    """``out[p] = x[p] y[p]`` for ``p0 <= p < p1``."""
    for p in range(p0, p1):
        out[p] = x[p] * y[p]


@njit(cache=True, nogil=True)
def squared_hinge_rows(s, cost, theta, r, grad_s, diag, p0, p1):
    """The squared hinge of weighted rows at scores ``s``, for ``p0 <= p < p1``:
    ``r = max(theta - s, 0)`` (NaN kept, as ``np.maximum``), the score gradient
    ``grad_s = (-2 cost) r`` and the generalized Hessian's diagonal ``diag = 2 cost``
    where ``r > 0``, else 0."""
    for p in range(p0, p1):
        t = theta - s[p]
        rp = t if (t >= 0.0 or t != t) else 0.0
        c = cost[p]
        r[p] = rp
        grad_s[p] = (-2.0 * c) * rp
        diag[p] = 2.0 * c if rp > 0.0 else 0.0
