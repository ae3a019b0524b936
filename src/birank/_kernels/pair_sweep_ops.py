"""Small CSR helpers for the pair solvers (no copies of X)."""

import numpy as np
from numba import njit

__all__ = ["csr_sq_rmatvec", "csr_gram_matvec", "csr_matvec", "csr_rmatvec",
           "csr_rows_gram_matvec", "csr_rows_sq_sum"]


@njit(cache=True)
def csr_sq_rmatvec(data, indices, indptr, u, out):
    """``out = (X o X)' u`` for CSR ``X`` (elementwise square), without forming X o X."""
    return _csr_rmatvec(data, indices, indptr, u, out, True)


@njit(cache=True)
def csr_matvec(data, indices, indptr, v, out):
    """``out = X v`` for CSR ``X``; float32 data are read as they are (no float64 copy)."""
    n = indptr.shape[0] - 1
    for i in range(n):
        s = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            s += data[p] * v[indices[p]]
        out[i] = s
    return out


@njit(cache=True)
def _csr_rmatvec(data, indices, indptr, u, out, squared):
    for k in range(out.shape[0]):
        out[k] = 0.0
    n = indptr.shape[0] - 1
    for i in range(n):
        ui = u[i]
        if ui == 0.0:
            continue
        for p in range(indptr[i], indptr[i + 1]):
            v = np.float64(data[p])  # float32 data: products in float64
            out[indices[p]] += (v * v if squared else v) * ui
    return out


@njit(cache=True)
def csr_gram_matvec(data, indices, indptr, v, out):
    """``out += X'(X v)`` for CSR ``X`` in one pass over the rows (no ``X v`` vector).

    Each row is read once: its dot product with v, then the same entries again
    (still in cache) scaled by it. Scipy's ``X.T @ (X @ v)`` reads X twice and
    transposes on the fly.
    """
    n = indptr.shape[0] - 1
    for i in range(n):
        lo = indptr[i]
        hi = indptr[i + 1]
        acc = 0.0
        for p in range(lo, hi):
            acc += data[p] * v[indices[p]]
        if acc != 0.0:
            for p in range(lo, hi):
                out[indices[p]] += data[p] * acc
    return out


def csr_rmatvec(data, indices, indptr, u, out):
    """``out = X' u`` for CSR ``X``; float32 data are read as they are (no float64 copy)."""
    return _csr_rmatvec(data, indices, indptr, u, out, False)


@njit(cache=True)
def csr_rows_gram_matvec(data, indices, indptr, rows, weights, v, out):
    """``out += sum_k w_k x_r (x_r . v)`` over ``r = rows[k]``: :func:`csr_gram_matvec`
    on a subset of X's rows, read in place (``weights`` empty: every w_k = 1)."""
    weighted = weights.shape[0] > 0
    for k in range(rows.shape[0]):
        r = rows[k]
        lo = indptr[r]
        hi = indptr[r + 1]
        acc = 0.0
        for p in range(lo, hi):
            acc += data[p] * v[indices[p]]
        if weighted:
            acc *= weights[k]
        if acc != 0.0:
            for p in range(lo, hi):
                out[indices[p]] += data[p] * acc
    return out


@njit(cache=True)
def csr_rows_sq_sum(data, indices, indptr, rows, weights, out):
    """``out_j += sum_k w_k x_rj^2`` over ``r = rows[k]`` (float64 products of float32 data)."""
    weighted = weights.shape[0] > 0
    for k in range(rows.shape[0]):
        r = rows[k]
        wk = weights[k] if weighted else 1.0
        for p in range(indptr[r], indptr[r + 1]):
            x = np.float64(data[p])
            out[indices[p]] += wk * x * x
    return out
