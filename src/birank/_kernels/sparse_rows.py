"""Row primitives on a dense or CSR matrix X, and a small reproducible RNG.

Every kernel that walks rows of X receives the same five arguments::

    sparse, Xd, data, indices, indptr

``sparse`` is a bool; when it is False the rows live in the C-contiguous
float64 array ``Xd`` and the three CSR arrays are dummies, otherwise ``Xd`` is
a dummy ``(0, 0)`` array and the rows live in the CSR arrays (sorted indices).
One compiled kernel therefore serves both layouts; the branch costs one
predictable test per row. ``xargs(X)`` in :mod:`birank.solvers.dual_cd`
builds these five arguments.

A row index of ``-1`` stands for the origin (the zero vector), so a pair
``(a, b)`` is ``z = x_a - x_b`` and the pseudo-pairs of shen-lin section 3.4 are
``(k, -1)`` and ``(-1, k)``.

The four primitives follow LIBLINEAR's sparse operators: squared norm, dot of
two rows (a sparse merge), ``w . x_a`` and ``w += c x_a``.

Random numbers: ``rng_init(seed)`` and ``rng_next(state)`` implement
Marsaglia's xorshift128 on 32-bit words held in int64, so the stream is the
same bit for bit whether the kernels are compiled or run as plain Python
(``NUMBA_DISABLE_JIT=1``).
"""

import numpy as np
from numba import njit

_M32 = 0xFFFFFFFF


# ---------------------------------------------------------------- rows of X
@njit(cache=True, inline="always")
def row_dot_w(sparse, Xd, data, indices, indptr, w, a):
    """``w . x_a`` (0 for the origin ``a = -1``)."""
    if a < 0:
        return 0.0
    s = 0.0
    if sparse:
        for k in range(indptr[a], indptr[a + 1]):
            s += w[indices[k]] * data[k]
    else:
        for j in range(Xd.shape[1]):
            s += w[j] * Xd[a, j]
    return s


@njit(cache=True, inline="always")
def row_axpy(sparse, Xd, data, indices, indptr, w, c, a):
    """``w += c * x_a`` (nothing for the origin)."""
    if a < 0:
        return
    if sparse:
        for k in range(indptr[a], indptr[a + 1]):
            w[indices[k]] += c * data[k]
    else:
        for j in range(Xd.shape[1]):
            w[j] += c * Xd[a, j]


@njit(cache=True, inline="always")
def row_sqnorms(sparse, Xd, data, indices, indptr, n_rows):
    """``|x_k|^2`` for every row."""
    out = np.zeros(n_rows)
    for i in range(n_rows):
        s = 0.0
        if sparse:
            for k in range(indptr[i], indptr[i + 1]):
                s += data[k] * data[k]
        else:
            for j in range(Xd.shape[1]):
                s += Xd[i, j] * Xd[i, j]
        out[i] = s
    return out


@njit(cache=True, inline="always")
def rows_dot(sparse, Xd, data, indices, indptr, a, b):
    """``x_a . x_b`` by a merge of the two sorted index lists (0 if either is -1)."""
    if a < 0 or b < 0:
        return 0.0
    s = 0.0
    if sparse:
        i, iend = indptr[a], indptr[a + 1]
        j, jend = indptr[b], indptr[b + 1]
        while i < iend and j < jend:
            ci, cj = indices[i], indices[j]
            if ci == cj:
                s += data[i] * data[j]
                i += 1
                j += 1
            elif ci < cj:
                i += 1
            else:
                j += 1
    else:
        for k in range(Xd.shape[1]):
            s += Xd[a, k] * Xd[b, k]
    return s


@njit(cache=True, inline="always")
def pair_dot_w(sparse, Xd, data, indices, indptr, w, a, b):
    """``w . (x_a - x_b)``."""
    return (row_dot_w(sparse, Xd, data, indices, indptr, w, a)
            - row_dot_w(sparse, Xd, data, indices, indptr, w, b))


@njit(cache=True, inline="always")
def pair_axpy(sparse, Xd, data, indices, indptr, w, c, a, b):
    """``w += c * (x_a - x_b)``."""
    row_axpy(sparse, Xd, data, indices, indptr, w, c, a)
    row_axpy(sparse, Xd, data, indices, indptr, w, -c, b)


@njit(cache=True, inline="always")
def pair_sqnorm(sparse, Xd, data, indices, indptr, sqnorms, a, b):
    """``|x_a - x_b|^2 = |x_a|^2 + |x_b|^2 - 2 x_a.x_b`` (row norms precomputed).

    Clipped at 0: for (nearly) equal rows the difference of sums can round
    slightly below zero.
    """
    q = 0.0
    if a >= 0:
        q += sqnorms[a]
    if b >= 0:
        q += sqnorms[b]
    if a >= 0 and b >= 0:
        q -= 2.0 * rows_dot(sparse, Xd, data, indices, indptr, a, b)
    return q if q > 0.0 else 0.0


# ------------------------------------------------------------------ the RNG
@njit(cache=True, inline="always")
def rng_init(seed):
    """State (4 int64 holding 32-bit words) of xorshift128 from a non-negative seed."""
    state = np.empty(4, dtype=np.int64)
    s = seed & 0x3FFFFFFFFFFFFFFF
    # spread the seed with an odd-multiplier LCG on 31-bit chunks (no overflow)
    lo = s & _M32
    hi = (s >> 32) & _M32
    state[0] = (lo ^ 0x12345678) & _M32
    state[1] = (hi ^ 0x9E3779B9) & _M32
    state[2] = ((lo * 69069 + 1) ^ 0x6C078965) & _M32
    state[3] = ((hi * 69069 + 12345) ^ 0x2545F491) & _M32
    if state[0] == 0 and state[1] == 0 and state[2] == 0 and state[3] == 0:
        state[0] = 1
    for _ in range(16):  # let the seed bits mix
        rng_next(state)
    return state


@njit(cache=True, inline="always")
def rng_next(state):
    """Next 32-bit unsigned value (as int64) of xorshift128 (Marsaglia 2003)."""
    t = state[3]
    s = state[0]
    state[3] = state[2]
    state[2] = state[1]
    state[1] = s
    t ^= (t << 11) & _M32
    t ^= t >> 8
    t = t ^ s ^ (s >> 19)
    state[0] = t
    return t


@njit(cache=True, inline="always")
def rng_int(state, n):
    """Uniform int in ``[0, n)`` for ``0 < n < 2**31`` (multiply-shift, bias < n / 2**32)."""
    return (rng_next(state) * n) >> 32


@njit(cache=True, inline="always")
def rng_uniform(state):
    """Uniform float in ``[0, 1)`` with 32 random bits."""
    return rng_next(state) * 2.3283064365386963e-10  # 2**-32
