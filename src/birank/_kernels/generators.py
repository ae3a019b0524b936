"""Numba kernels for the data generators (imports only numpy, numba, math).

Random numbers come from L'Ecuyer's MRG32k3a combined recursive generator,
written with int64 arithmetic that never overflows (products stay below
2**53), so it gives the same stream compiled and as plain Python
(``NUMBA_DISABLE_JIT=1``). Every block of rows restarts the generator from its
own seed, which makes the output independent of how rows are chunked.
"""

import math

import numpy as np
from numba import njit

M1 = 4294967087
M2 = 4294944443
A12 = 1403580
A13N = 810728
A21 = 527612
A23N = 1370589


@njit(cache=True)
def mrg_next(st):
    """Advance the 6-int64 state ``st`` in place; return a uniform in (0, 1)."""
    p1 = (A12 * st[1] - A13N * st[0]) % M1
    st[0] = st[1]
    st[1] = st[2]
    st[2] = p1
    p2 = (A21 * st[5] - A23N * st[3]) % M2
    st[3] = st[4]
    st[4] = st[5]
    st[5] = p2
    d = p1 - p2
    if d <= 0:
        d += M1
    return d / (M1 + 1.0)


@njit(cache=True)
def fill_sparse_bipartite(seeds, block_size, first_block, n_rows_total, nnz, w,
                          pos_fraction, shift, noise, indices, data, y):
    """Fill rows of blocks ``first_block, first_block+1, ...`` into the output slices.

    ``indices``/``data`` hold ``nnz`` entries per row for the rows being filled
    (starting at row ``first_block * block_size``), ``y`` one label per row.
    Row i: ``y_i ~ Bernoulli(pos_fraction)``; ``nnz`` distinct column indices
    drawn uniformly (rejection), sorted; value
    ``x_ij = shift * (2 y_i - 1) * w_j + noise * N(0, 1)``.
    """
    n_features = w.shape[0]
    n_rows = y.shape[0]
    st = np.empty(6, dtype=np.int64)
    row0 = first_block * block_size
    r = 0
    b = first_block
    while r < n_rows and row0 + r < n_rows_total:
        for k in range(6):
            st[k] = seeds[b, k]
        stop = min(r + block_size, n_rows)
        while r < stop:
            lab = 1 if mrg_next(st) < pos_fraction else 0
            y[r] = lab
            sign = 2.0 * lab - 1.0
            base = r * nnz
            filled = 0
            while filled < nnz:
                j = int(mrg_next(st) * n_features)
                if j >= n_features:
                    j = n_features - 1
                dup = False
                for t in range(filled):
                    if indices[base + t] == j:
                        dup = True
                        break
                if dup:
                    continue
                # insertion keeps the row sorted
                t = filled
                while t > 0 and indices[base + t - 1] > j:
                    indices[base + t] = indices[base + t - 1]
                    t -= 1
                indices[base + t] = j
                filled += 1
            # Box-Muller gives two independent normals per pair of uniforms
            for t in range(0, nnz, 2):
                rad = math.sqrt(-2.0 * math.log(mrg_next(st)))
                ang = 2.0 * math.pi * mrg_next(st)
                j = indices[base + t]
                data[base + t] = shift * sign * w[j] + noise * rad * math.cos(ang)
                if t + 1 < nnz:
                    j = indices[base + t + 1]
                    data[base + t + 1] = shift * sign * w[j] + noise * rad * math.sin(ang)
            r += 1
        b += 1
    return b
