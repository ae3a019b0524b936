"""CSR products ``X v``, ``X' u`` and ``(X o X)' u`` over row blocks, without the GIL.

The one compiled copy of these products: ``birank._linalg`` runs them on all
rows at once (one block), :class:`birank._parallel.BlockedProducts` on fixed
blocks on threads. float32 data are read as they are and multiplied in
float64 (no float64 copy of X), and ``X' u`` skips the rows where ``u`` is 0
(the inactive rows of a squared-hinge Hessian product).

``data`` may be None: every stored value is 1 (0/1 indicator features: bag of
words, one-hot columns, a9a and w8a), and the values are not read
(:func:`birank._kernels.sparse_rows.stored`; multiplying by 1.0 is exact, so the
same bits): ``X v`` at 0.65x and ``X' u`` at 0.72x the time at 10^6 rows of 20
entries (``benchmarks/bench_indicator.py``).

Indices are read as unsigned (``np.uint64``): numba then drops the
negative-index wraparound test it adds to every signed index, which made
these loops 35% slower than scipy's; with it they match or beat scipy.

``X v`` writes each block's rows (no reduction: any thread count gives the
same bits). ``X' u`` gives one partial vector per block, summed afterwards in
block order, so the result depends on the blocks (fixed by X), never on how
many threads ran them.
"""

import numpy as np
from numba import njit

from .sparse_rows import stored

__all__ = ["csr_matvec_block", "csr_rmatvec_block", "csr_grad_diag_block", "sum_partials",
           "mark_used_columns"]


@njit(cache=True, nogil=True)
def csr_matvec_block(data, indices, indptr, v, out, r0, r1):
    """``out[r0:r1] = X[r0:r1] v``."""
    for i in range(r0, r1):
        s = 0.0
        for p in range(np.uint64(indptr[i]), np.uint64(indptr[i + 1])):
            s += stored(data, p) * v[np.uint64(indices[p])]
        out[i] = s


@njit(cache=True, nogil=True)
def csr_rmatvec_block(data, indices, indptr, u, out, r0, r1, squared=False):
    """``out = X[r0:r1]' u[r0:r1]``, or ``(X o X)[r0:r1]' u[r0:r1]`` (out is overwritten)."""
    out[:] = 0.0
    for i in range(r0, r1):
        ui = u[i]
        if ui != 0.0:
            for p in range(np.uint64(indptr[i]), np.uint64(indptr[i + 1])):
                x = np.float64(stored(data, p))  # float32 data: the square in float64 too
                out[np.uint64(indices[p])] += (x * x if squared else x) * ui


@njit(cache=True, nogil=True)
def csr_grad_diag_block(data, indices, indptr, u, D, out, r0, r1, with_mean):
    """``out[:, 0] = X' u``, ``out[:, 1] = X' D`` (``with_mean``, else 0) and
    ``out[:, 2] = (X o X)' D`` over rows ``r0 .. r1 - 1``, in one pass over them.

    A Newton step needs the gradient's ``X' grad_s`` and its diagonal
    preconditioner's sums over the active degrees D at the same point: three
    products that read X three times, here once (0.57x the time of the three,
    ``benchmarks/bench_fused_products.py``). Each column sums the
    same terms in the same order as :func:`csr_rmatvec_block`, so the same bits:
    a row where u (or D) is 0 adds zeros to that column, which leave a sum that
    started at +0.0 unchanged; ``x * x`` is formed before it multiplies D, as there.
    """
    out[:] = 0.0
    for i in range(r0, r1):
        ui = u[i]
        di = D[i]
        if ui != 0.0 or di != 0.0:
            for p in range(np.uint64(indptr[i]), np.uint64(indptr[i + 1])):
                x = np.float64(stored(data, p))  # float32 data: the square in float64 too
                j = np.uint64(indices[p])
                out[j, 0] += x * ui
                if with_mean:
                    out[j, 1] += x * di
                out[j, 2] += (x * x) * di


@njit(cache=True, nogil=True)
def sum_partials(partials, out, c0, c1):
    """``out[c0:c1] = sum_k partials[k, c0:c1]``, k ascending (a fixed order)."""
    for c in range(c0, c1):
        out[c] = partials[0, c]
    for k in range(1, partials.shape[0]):
        for c in range(c0, c1):
            out[c] += partials[k, c]


@njit(cache=True, nogil=True)
def mark_used_columns(indices, used, p0, p1):
    """``used[j] = True`` for every column index j stored in ``indices[p0:p1]``.

    One read of the indices as they are (numpy's ``bincount`` or a fancy-index
    assignment first copies int32 indices to int64: 80 ms at 2e7 entries); parts
    on threads mark their own ``used`` rows, then or-ed.
    """
    for p in range(p0, p1):
        used[np.uint64(indices[p])] = True
