"""Row primitives on a dense or CSR matrix X, and a small reproducible RNG.

Kernels take the rows of X as one argument ``X`` that is either

* a C-contiguous float64 2-D array (dense rows), or
* a tuple ``(data, indices, indptr)`` of a CSR matrix with sorted indices, or
* ``(None, indices, indptr)``: a CSR matrix whose stored values are all 1
  (indicator features: a9a, w8a, bags of words; ``kernel_rows(X, indicator=True)``).
  :func:`row_dot_w` and :func:`row_axpy` then read no values (:func:`stored` is the
  constant 1.0): ``w_j * 1.0`` is ``w_j`` exactly, so the results are the same bit
  for bit, with a third less memory read per row (the values are 8 of the 12 bytes
  of an entry).

The primitives below are dispatched on that type at compile time
(``numba.extending.overload``), so one kernel source serves both layouts and
each compiled specialization contains only its own loops. Under
``NUMBA_DISABLE_JIT=1`` the plain-Python bodies run and branch on the type
instead. ``birank._validation.kernel_rows(X)`` builds the argument.

A row index of ``-1`` stands for the origin (the zero vector), so a pair
``(a, b)`` is ``z = x_a - x_b`` and the pseudo-pairs of shen-lin section 3.4 are
``(k, -1)`` and ``(-1, k)``.

The primitives follow LIBLINEAR's sparse operators: ``w . x_a``, ``w += c x_a``,
the dot of two rows (a sparse merge) and squared norms.

Numba's on-disk cache of a kernel is keyed on the kernel's own source file,
not on this one; the test session clears the kernels' cache whenever any
kernel source changed (``tests/conftest.py``, docs/architecture.md), so the
kernels that inline these primitives are recompiled.

Random numbers: ``rng_init(seed)`` and ``rng_next(state)`` implement
Marsaglia's xorshift128 on 32-bit words held in int64, so the stream is the
same bit for bit whether the kernels are compiled or run as plain Python.
"""

import numpy as np
from numba import njit, types
from numba.extending import overload

_M32 = 0xFFFFFFFF


# ------------------------------------------------- layout-dispatched primitives
def row_dot_w(X, w, a):
    """``w . x_a`` (0 for the origin ``a = -1``)."""
    if a < 0:
        return 0.0
    s = 0.0
    if isinstance(X, tuple):
        data, indices, indptr = X
        for k in range(indptr[a], indptr[a + 1]):
            s += w[indices[k]] * stored(data, k)
    else:
        for j in range(X.shape[1]):
            s += w[j] * X[a, j]
    return s


def row_axpy(X, w, c, a):
    """``w += c * x_a`` (nothing for the origin)."""
    if a < 0:
        return
    if isinstance(X, tuple):
        data, indices, indptr = X
        for k in range(indptr[a], indptr[a + 1]):
            w[indices[k]] += c * stored(data, k)
    else:
        for j in range(X.shape[1]):
            w[j] += c * X[a, j]


def rows_dot(X, a, b):
    """``x_a . x_b``, by a merge of the two sorted index lists for CSR (0 if either is -1)."""
    if a < 0 or b < 0:
        return 0.0
    s = 0.0
    if isinstance(X, tuple):
        data, indices, indptr = X
        i, iend = indptr[a], indptr[a + 1]
        j, jend = indptr[b], indptr[b + 1]
        while i < iend and j < jend:
            ci, cj = indices[i], indices[j]
            if ci == cj:
                s += np.float64(data[i]) * data[j]  # float32 X: product in float64
                i += 1
                j += 1
            elif ci < cj:
                i += 1
            else:
                j += 1
    else:
        for k in range(X.shape[1]):
            s += np.float64(X[a, k]) * X[b, k]
    return s


def n_rows_of(X):
    """Number of rows."""
    if isinstance(X, tuple):
        return X[2].shape[0] - 1
    return X.shape[0]


def split_rows(X):
    """``(dense, data, indices, indptr)``: the rows argument as dense rows or CSR arrays,
    None for the layout it is not. A kernel that takes them as arguments can test a
    layout by ``is not None`` alone, one condition a line: numba then drops the other
    layout's branches when it compiles, so its loops read the rows in place (calling
    :func:`row_dot_w` once a step cost up to a third of dual CD's pass, see
    ``_kernels.dual_cd.dual_cd_run``). :func:`split_row_dot` and :func:`split_row_axpy`
    are such loops; a kernel with more per-row work of its own (``dual_cd_points_run``)
    writes them out."""
    if isinstance(X, tuple):
        return None, X[0], X[1], X[2]
    return X, None, None, None


def stored(data, k):
    """Stored value k of a CSR rows argument: 1.0 for indicator rows (``data`` is None).

    Compiled, the None case is a constant, so no value is loaded, and the
    multiplication by it folds away (``x * 1.0`` is ``x`` exactly).
    """
    return 1.0 if data is None else data[k]


@njit(cache=True, inline="always")
def split_row_dot(dense, data, indices, indptr, w, r):
    """``w . x_r`` (``r >= 0``) of the rows as :func:`split_rows` gives them: the loop of
    the layout present (numba drops the other when it compiles), indices read unsigned
    (no negative-index test), the same sum as :func:`row_dot_w`."""
    s = 0.0
    if dense is not None:
        for j in range(dense.shape[1]):
            s += w[j] * dense[r, j]
    if indptr is not None:
        for q in range(np.uint64(indptr[r]), np.uint64(indptr[r + 1])):
            s += w[np.uint64(indices[q])] * stored(data, q)
    return s


@njit(cache=True, inline="always")
def split_row_axpy(dense, data, indices, indptr, w, c, r):
    """``w += c x_r`` (``r >= 0``), as :func:`split_row_dot` reads the row."""
    if dense is not None:
        for j in range(dense.shape[1]):
            w[j] += c * dense[r, j]
    if indptr is not None:
        for q in range(np.uint64(indptr[r]), np.uint64(indptr[r + 1])):
            w[np.uint64(indices[q])] += c * stored(data, q)


@overload(split_rows)
def _split_rows_ov(X):
    if isinstance(X, types.BaseTuple):
        return lambda X: (None, X[0], X[1], X[2])
    return lambda X: (X, None, None, None)


@overload(stored)
def _stored_ov(data, k):
    if isinstance(data, types.NoneType):
        return lambda data, k: 1.0
    return lambda data, k: data[k]


@overload(row_dot_w)
def _row_dot_w_ov(X, w, a):
    if isinstance(X, types.BaseTuple):
        def sparse_impl(X, w, a):
            if a < 0:
                return 0.0
            data, indices, indptr = X
            s = 0.0
            for k in range(indptr[a], indptr[a + 1]):
                # unsigned index: numba then adds no negative-index test
                s += w[np.uint64(indices[k])] * stored(data, k)
            return s
        return sparse_impl

    def dense_impl(X, w, a):
        if a < 0:
            return 0.0
        s = 0.0
        for j in range(X.shape[1]):
            s += w[j] * X[a, j]
        return s
    return dense_impl


@overload(row_axpy)
def _row_axpy_ov(X, w, c, a):
    if isinstance(X, types.BaseTuple):
        def sparse_impl(X, w, c, a):
            if a < 0:
                return
            data, indices, indptr = X
            for k in range(indptr[a], indptr[a + 1]):
                w[np.uint64(indices[k])] += c * stored(data, k)
        return sparse_impl

    def dense_impl(X, w, c, a):
        if a < 0:
            return
        for j in range(X.shape[1]):
            w[j] += c * X[a, j]
    return dense_impl


@overload(rows_dot)
def _rows_dot_ov(X, a, b):
    if isinstance(X, types.BaseTuple):
        def sparse_impl(X, a, b):
            if a < 0 or b < 0:
                return 0.0
            data, indices, indptr = X
            s = 0.0
            i, iend = indptr[a], indptr[a + 1]
            j, jend = indptr[b], indptr[b + 1]
            while i < iend and j < jend:
                ci, cj = indices[i], indices[j]
                if ci == cj:
                    s += np.float64(data[i]) * data[j]  # float32 X: product in float64
                    i += 1
                    j += 1
                elif ci < cj:
                    i += 1
                else:
                    j += 1
            return s
        return sparse_impl

    def dense_impl(X, a, b):
        if a < 0 or b < 0:
            return 0.0
        s = 0.0
        for k in range(X.shape[1]):
            s += np.float64(X[a, k]) * X[b, k]
        return s
    return dense_impl


@overload(n_rows_of)
def _n_rows_of_ov(X):
    if isinstance(X, types.BaseTuple):
        return lambda X: X[2].shape[0] - 1
    return lambda X: X.shape[0]


# --------------------------------------------------------- composed primitives
@njit(cache=True, inline="always")
def csr_row_diff(data, indices, indptr, a, b, out_idx, out_val, n):
    """Write ``x_a - x_b`` of a CSR matrix as sparse entries at ``out[n:]``; return the new end.

    One merge of the two sorted index lists; row ``-1`` is the origin, and
    entries that cancel exactly are dropped. The buffers need room for
    ``nnz(x_a) + nnz(x_b)`` entries.
    """
    p = pe = q = qe = 0
    if a >= 0:
        p, pe = indptr[a], indptr[a + 1]
    if b >= 0:
        q, qe = indptr[b], indptr[b + 1]
    while p < pe or q < qe:
        if q >= qe or (p < pe and indices[p] < indices[q]):
            j = indices[p]
            v = np.float64(data[p])  # float32 X: differences in float64
            p += 1
        elif p >= pe or indices[q] < indices[p]:
            j = indices[q]
            v = -np.float64(data[q])
            q += 1
        else:
            j = indices[p]
            v = np.float64(data[p]) - data[q]
            p += 1
            q += 1
        if v != 0.0:
            out_idx[n] = j
            out_val[n] = v
            n += 1
    return n


@njit(cache=True)
def row_sqnorms(X):
    """``|x_k|^2`` for every row."""
    n = n_rows_of(X)
    out = np.empty(n)
    for i in range(n):
        out[i] = rows_dot(X, i, i)
    return out


# The pair primitives branch once on the kind of row (pseudo-pair or real pair)
# and call the row primitives only for rows that exist.
@njit(cache=True, inline="always")
def pair_dot_w(X, w, a, b):
    """``w . (x_a - x_b)``."""
    if b < 0:
        return row_dot_w(X, w, a)
    if a < 0:
        return -row_dot_w(X, w, b)
    return row_dot_w(X, w, a) - row_dot_w(X, w, b)


@njit(cache=True, inline="always")
def pair_axpy(X, w, c, a, b):
    """``w += c * (x_a - x_b)``."""
    if b < 0:
        row_axpy(X, w, c, a)
    elif a < 0:
        row_axpy(X, w, -c, b)
    else:
        row_axpy(X, w, c, a)
        row_axpy(X, w, -c, b)


@njit(cache=True, inline="always")
def pair_sqnorm(X, sqnorms, a, b):
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
        q -= 2.0 * rows_dot(X, a, b)
    return q if q > 0.0 else 0.0


# ------------------------------------------------------------------ the RNG
@njit(cache=True, inline="always")
def _xorshift_step(s0, s1, s2, s3):
    """One xorshift128 step (Marsaglia 2003) on the words newest-first: the new words."""
    t = s3
    t ^= (t << 11) & _M32
    t ^= t >> 8
    return t ^ s0 ^ (s0 >> 19), s0, s1, s2


@njit(cache=True, inline="always")
def rng_next(state):
    """Next 32-bit unsigned value (as int64) of xorshift128 (Marsaglia 2003).

    ``state[0]`` holds the newest word, ``state[3]`` the oldest.
    """
    state[0], state[1], state[2], state[3] = _xorshift_step(state[0], state[1], state[2],
                                                            state[3])
    return state[0]


@njit(cache=True, inline="always")
def rng_shuffle(index, n, state):
    """Fisher-Yates permutation of ``index[:n]``, drawing as :func:`rng_int` does.

    The same stream as n calls of :func:`rng_int`, with the four state words
    kept in local variables for the whole loop (written back at the end):
    the compiler cannot do that itself, as ``index`` might alias ``state``.
    """
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    for i in range(n):
        s0, s1, s2, s3 = _xorshift_step(s0, s1, s2, s3)
        j = i + ((s0 * (n - i)) >> 32)
        tmp = index[i]
        index[i] = index[j]
        index[j] = tmp
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3


@njit(cache=True)
def rng_init(seed):
    """State (4 int64 holding 32-bit words) of xorshift128 from a non-negative seed."""
    state = np.empty(4, dtype=np.int64)
    s = seed & 0x3FFFFFFFFFFFFFFF
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
def rng_int(state, n):
    """Uniform int in ``[0, n)`` for ``0 < n < 2**31`` (multiply-shift, bias < n / 2**32)."""
    return (rng_next(state) * n) >> 32


@njit(cache=True, inline="always")
def rng_uniform(state):
    """Uniform float in ``[0, 1)`` with 32 random bits."""
    return rng_next(state) * 2.3283064365386963e-10  # 2**-32
