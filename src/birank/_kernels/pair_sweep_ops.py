"""Small CSR helpers for the pair solvers (no copies of X)."""

from numba import njit

__all__ = ["csr_sq_rmatvec", "csr_gram_matvec"]


@njit(cache=True)
def csr_sq_rmatvec(data, indices, indptr, u, out):
    """``out = (X o X)' u`` for CSR ``X`` (elementwise square), without forming X o X."""
    for k in range(out.shape[0]):
        out[k] = 0.0
    n = indptr.shape[0] - 1
    for i in range(n):
        ui = u[i]
        if ui == 0.0:
            continue
        for p in range(indptr[i], indptr[i + 1]):
            v = data[p]
            out[indices[p]] += v * v * ui
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
