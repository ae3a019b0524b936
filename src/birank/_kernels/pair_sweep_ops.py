"""Small CSR helpers for the pair solvers (no copies of X).

Row pointers and column indices are read as unsigned (``np.uint64``), as in
:mod:`.blocked_products`: numba then adds no negative-index wraparound test to
each access. The arithmetic is unchanged (the same bits); the Gram products took
0.43-0.64x the time on a9a's rows and 0.54-0.83x on 10^6 generated rows of 20
entries (``benchmarks/bench_gram.py``).
"""

import numpy as np
from numba import njit

from .sparse_rows import stored

__all__ = ["csr_gram_matvec", "csr_rows_gram_matvec", "csr_rows_sq_sum", "signed_unit_rows"]


@njit(cache=True)
def csr_gram_matvec(data, indices, indptr, v, out):
    """``out += X'(X v)`` for CSR ``X`` in one pass over the rows (no ``X v`` vector).

    Each row is read once: its dot product with v, then the same entries again
    (still in cache) scaled by it. Scipy's ``X.T @ (X @ v)`` reads X twice and
    transposes on the fly.
    """
    n = indptr.shape[0] - 1
    for i in range(n):
        lo = np.uint64(indptr[i])
        hi = np.uint64(indptr[i + 1])
        acc = 0.0
        for p in range(lo, hi):
            acc += data[p] * v[np.uint64(indices[p])]
        if acc != 0.0:
            for p in range(lo, hi):
                out[np.uint64(indices[p])] += data[p] * acc
    return out


@njit(cache=True)
def csr_rows_gram_matvec(data, indices, indptr, rows, weights, v, out):
    """``out += sum_k w_k x_r (x_r . v)`` over ``r = rows[k]``: :func:`csr_gram_matvec`
    on a subset of X's rows, read in place (``weights`` empty: every w_k = 1).

    ``data`` None: every value is 1 (:func:`.sparse_rows.stored`), or every row's
    values are all 1 or all -1 (:func:`signed_unit_rows`): a row of sign s gives
    ``x . v = s sum_p v_p`` and adds ``s (x . v) w = (sum_p v_p) w`` to each of its
    entries, and negation is exact in floating point, so leaving out both signs
    gives the same bits. The values are 8 of the 12 bytes an entry, and are then
    neither read nor multiplied.
    """
    weighted = weights.shape[0] > 0
    one = np.uint64(1)
    for k in range(rows.shape[0]):
        r = np.uint64(rows[k])
        lo = np.uint64(indptr[r])
        hi = np.uint64(indptr[r + one])
        acc = 0.0
        for p in range(lo, hi):
            acc += stored(data, p) * v[np.uint64(indices[p])]
        if weighted:
            acc *= weights[k]
        if acc != 0.0:
            for p in range(lo, hi):
                out[np.uint64(indices[p])] += stored(data, p) * acc
    return out


@njit(cache=True)
def signed_unit_rows(data, indptr):
    """True when the stored values of every row are all 1 or all -1.

    The point-wise SVM's rows ``z_i = y_i x_i`` of binary features (a9a, w8a,
    bag-of-words indicators) are such rows: :func:`csr_rows_gram_matvec` then
    need not read the values.
    """
    for i in range(indptr.shape[0] - 1):
        lo = indptr[i]
        hi = indptr[i + 1]
        if lo < hi:
            sign = data[lo]
            if sign != 1.0 and sign != -1.0:
                return False
            for p in range(lo + 1, hi):
                if data[p] != sign:
                    return False
    return True


@njit(cache=True)
def csr_rows_sq_sum(data, indices, indptr, rows, weights, out):
    """``out_j += sum_k w_k x_rj^2`` over ``r = rows[k]`` (float64 products of float32 data)."""
    weighted = weights.shape[0] > 0
    one = np.uint64(1)
    for k in range(rows.shape[0]):
        r = np.uint64(rows[k])
        wk = weights[k] if weighted else 1.0
        for p in range(np.uint64(indptr[r]), np.uint64(indptr[r + one])):
            x = np.float64(data[p])
            out[np.uint64(indices[p])] += wk * x * x
    return out
