"""Row helpers of the streaming AUC kernels (OPAUC, SPAM, PGD, OnlineUniExp).

* ``row_into(X, a, out)``: write row ``a`` of a dense or CSR matrix into a dense
  vector (the previous non-zeros of a CSR row are cleared by ``row_clear``).
* ``row_outer_add(X, a, Z, r, c)``: the rank-one update ``Z += c x_a r'``.
* ``row_mark_features(X, a, seen, n, marked)``: grow a list of features seen.
* ``row_outer_self_add(X, a, M, c)``: ``M += c x_a x_a'``.
* ``rng_normal(state)``: a standard normal draw (Box-Muller) from the
  xorshift128 state of :mod:`.sparse_rows`, the same bit for bit with and
  without the JIT.
"""

import math

from numba import njit, types
from numba.extending import overload

from .sparse_rows import rng_uniform


def row_into(X, a, out):
    """``out[:] = x_a`` (``out`` is assumed zero outside the row's non-zeros for CSR)."""
    if isinstance(X, tuple):
        data, indices, indptr = X
        for k in range(indptr[a], indptr[a + 1]):
            out[indices[k]] = data[k]
    else:
        for j in range(X.shape[1]):
            out[j] = X[a, j]


def row_clear(X, a, out):
    """Undo :func:`row_into` for CSR (zero the row's coordinates); nothing for dense."""
    if isinstance(X, tuple):
        data, indices, indptr = X
        for k in range(indptr[a], indptr[a + 1]):
            out[indices[k]] = 0.0


def row_outer_add(X, a, Z, r, c):
    """``Z += c x_a r'`` (Z is d x tau): O(nnz(x_a) tau)."""
    if isinstance(X, tuple):
        data, indices, indptr = X
        for k in range(indptr[a], indptr[a + 1]):
            v = c * data[k]
            Z[indices[k], :] += v * r
    else:
        for j in range(X.shape[1]):
            v = c * X[a, j]
            if v != 0.0:
                Z[j, :] += v * r


def row_outer_self_add(X, a, M, c):
    """``M += c x_a x_a'`` (d x d): O(nnz(x_a)^2)."""
    if isinstance(X, tuple):
        data, indices, indptr = X
        for p in range(indptr[a], indptr[a + 1]):
            v = c * data[p]
            for q in range(indptr[a], indptr[a + 1]):
                M[indices[p], indices[q]] += v * data[q]
    else:
        for i in range(X.shape[1]):
            v = c * X[a, i]
            if v != 0.0:
                for j in range(X.shape[1]):
                    M[i, j] += v * X[a, j]


def row_mark_features(X, a, seen, n_seen, marked):
    """Append the non-zero features of row ``a`` not yet ``marked`` to ``seen``; new length."""
    if isinstance(X, tuple):
        data, indices, indptr = X
        for k in range(indptr[a], indptr[a + 1]):
            j = indices[k]
            if data[k] != 0.0 and not marked[j]:
                marked[j] = True
                seen[n_seen] = j
                n_seen += 1
    else:
        for j in range(X.shape[1]):
            if X[a, j] != 0.0 and not marked[j]:
                marked[j] = True
                seen[n_seen] = j
                n_seen += 1
    return n_seen


@overload(row_into)
def _row_into_ov(X, a, out):
    if isinstance(X, types.BaseTuple):
        def sparse_impl(X, a, out):
            data, indices, indptr = X
            for k in range(indptr[a], indptr[a + 1]):
                out[indices[k]] = data[k]
        return sparse_impl

    def dense_impl(X, a, out):
        for j in range(X.shape[1]):
            out[j] = X[a, j]
    return dense_impl


@overload(row_clear)
def _row_clear_ov(X, a, out):
    if isinstance(X, types.BaseTuple):
        def sparse_impl(X, a, out):
            data, indices, indptr = X
            for k in range(indptr[a], indptr[a + 1]):
                out[indices[k]] = 0.0
        return sparse_impl

    def dense_impl(X, a, out):
        return
    return dense_impl


@njit(cache=True, inline="always")
def rng_normal(state):
    """One N(0, 1) draw by Box-Muller from two uniforms (the cosine branch only)."""
    u1 = rng_uniform(state)
    u2 = rng_uniform(state)
    if u1 < 1e-300:  # log(0): the uniform has 32 bits, so u1 is 0 with prob. 2**-32
        u1 = 1e-300
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)


@overload(row_outer_add)
def _row_outer_add_ov(X, a, Z, r, c):
    if isinstance(X, types.BaseTuple):
        def sparse_impl(X, a, Z, r, c):
            data, indices, indptr = X
            tau = r.shape[0]
            for k in range(indptr[a], indptr[a + 1]):
                v = c * data[k]
                j = indices[k]
                for q in range(tau):
                    Z[j, q] += v * r[q]
        return sparse_impl

    def dense_impl(X, a, Z, r, c):
        tau = r.shape[0]
        for j in range(X.shape[1]):
            v = c * X[a, j]
            if v != 0.0:
                for q in range(tau):
                    Z[j, q] += v * r[q]
    return dense_impl


@overload(row_outer_self_add)
def _row_outer_self_add_ov(X, a, M, c):
    if isinstance(X, types.BaseTuple):
        def sparse_impl(X, a, M, c):
            data, indices, indptr = X
            for p in range(indptr[a], indptr[a + 1]):
                v = c * data[p]
                i = indices[p]
                for q in range(indptr[a], indptr[a + 1]):
                    M[i, indices[q]] += v * data[q]
        return sparse_impl

    def dense_impl(X, a, M, c):
        d = X.shape[1]
        for i in range(d):
            v = c * X[a, i]
            if v != 0.0:
                for j in range(d):
                    M[i, j] += v * X[a, j]
    return dense_impl


@overload(row_mark_features)
def _row_mark_features_ov(X, a, seen, n_seen, marked):
    if isinstance(X, types.BaseTuple):
        def sparse_impl(X, a, seen, n_seen, marked):
            data, indices, indptr = X
            for k in range(indptr[a], indptr[a + 1]):
                j = indices[k]
                if data[k] != 0.0 and not marked[j]:
                    marked[j] = True
                    seen[n_seen] = j
                    n_seen += 1
            return n_seen
        return sparse_impl

    def dense_impl(X, a, seen, n_seen, marked):
        for j in range(X.shape[1]):
            if X[a, j] != 0.0 and not marked[j]:
                marked[j] = True
                seen[n_seen] = j
                n_seen += 1
        return n_seen
    return dense_impl
