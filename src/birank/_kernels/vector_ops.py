"""Arithmetic on row-length vectors (scores) for the Newton solvers, in parts.

``x + a y`` over rows ``p0 .. p1-1``, without the GIL: the solver runs the parts
on its products' threads and writes into a buffer it keeps, where numpy would
make two temporaries of every row on one thread. Each entry is computed alone
(as numpy does: ``a y`` rounded, then added), so the bits do not depend on the
parts.
"""

from numba import njit

__all__ = ["add_scaled"]


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
