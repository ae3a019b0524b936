"""Products of a dense C-contiguous float32 matrix with float64 vectors, no copy of it.

numpy computes ``X @ v`` for float32 ``X`` and float64 ``v`` by casting all of
X to a float64 temporary first (as large as X twice over, on every product).
These loops read the float32 rows as they are, one pass over X, and
accumulate in float64: each product of a float32 entry with a float64 number
is formed in float64 (exact for the entry), so the results are as accurate as
numpy's products of the upcast matrix. ``X' u`` adds the rows of X, scaled,
into a float64 d-vector (contiguous rows, X streamed once, in blocks of :data:`BLOCK` rows summed
apart, then in groups of blocks; rows with ``u_i =
0`` are skipped), ``X v`` takes a float64 dot product per row. An F-ordered X
is the C-ordered ``X.T``: :func:`birank._linalg.matvec` swaps the two.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["f32_matvec", "f32_rmatvec", "dense_sq_rmatvec"]

#: rows summed into a partial vector, and partial vectors into a group's, before
#: a group is added to the result (three-level summation: the rounding error of a
#: column sum grows with ``2 BLOCK + n / BLOCK**2`` terms, not n)
BLOCK = 64


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def f32_matvec(X, v, out):
    """``out = X v`` for a C-contiguous 2-D X (float32), float64 v and out."""
    n, d = X.shape
    for i in range(n):
        acc = 0.0
        for j in range(d):
            acc += np.float64(X[i, j]) * v[j]
        out[i] = acc
    return out


@njit(cache=True, nogil=True, inline="always")
def _scaled_row_sums(X, u, out, square):
    """``out = sum_i u_i x_i`` (``square``: ``u_i x_i o x_i``, the square in float64) over
    the rows of a C-contiguous X in row order: rows summed into a block's vector,
    blocks into a group's, groups into ``out`` (``square`` is a constant of each
    caller, so the branch compiles away)."""
    n, d = X.shape
    out[:] = 0.0
    part, mid = np.empty(d), np.zeros(d)
    for start in range(0, n, BLOCK):  # three-level sums: rows, blocks, groups of blocks
        part[:] = 0.0
        for i in range(start, min(start + BLOCK, n)):
            ui = u[i]
            if ui != 0.0:
                for j in range(d):
                    x = np.float64(X[i, j])
                    part[j] += ui * (x * x if square else x)
        for j in range(d):
            mid[j] += part[j]
        if (start // BLOCK) % BLOCK == BLOCK - 1 or start + BLOCK >= n:
            for j in range(d):
                out[j] += mid[j]
                mid[j] = 0.0
    return out


@njit(cache=True, nogil=True)
def f32_rmatvec(X, u, out):
    """``out = X' u``: the rows of a C-contiguous X, scaled by u, summed in row order
    by blocks and groups of blocks."""
    return _scaled_row_sums(X, u, out, False)


@njit(cache=True, nogil=True)
def dense_sq_rmatvec(X, u, out):
    """``out = (X o X)' u`` of a C-contiguous X (float32 or float64), no square of X:
    ``u_i x_ij^2`` (the square in float64) summed as in :func:`f32_rmatvec`."""
    return _scaled_row_sums(X, u, out, True)
