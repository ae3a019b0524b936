"""Numba kernels for pair moments of the pairwise squared loss (gultekin-paisley).

A pair is two row indices ``(a, b)`` of one matrix ``X``; its difference vector is
``z = x_a - x_b``. The kernels accumulate

    mu    = (1/P) sum_p z_p            (P pairs)
    Sigma = (1/P) sum_p z_p z_p'

either over *all* (positive, negative) pairs -- gultekin-paisley Algorithm 1 as
printed, O(N1 N0 D^2), kept only as a test oracle and speed reference -- or over an
explicit list of sampled pairs (Algorithm 2, O(S D^2) dense). The exact all-pairs
moments are computed elsewhere from per-class moments in O(N D^2); the only kernel
that path needs is :func:`class_scatter_csr`.

Dense X is a C-contiguous float64 array; CSR X is given as ``(data, indices,
indptr)`` with sorted column indices. Kernels import only numpy, numba and the
row primitives of :mod:`.sparse_rows`.
"""

import numpy as np
from numba import njit

from .sparse_rows import csr_row_diff


@njit(cache=True)
def naive_pair_moments_dense(X, pos_rows, neg_rows):
    """gultekin-paisley Algorithm 1, lines 1-8, exactly as printed (dense X).

    Returns ``(mu, Sigma)`` accumulated pair by pair with weight 1/(N1 N0).
    """
    n1 = pos_rows.shape[0]
    n0 = neg_rows.shape[0]
    d = X.shape[1]
    mu = np.zeros(d)
    sigma = np.zeros((d, d))
    z = np.empty(d)
    scale = 1.0 / (float(n1) * float(n0))
    for ii in range(n1):
        a = pos_rows[ii]
        for jj in range(n0):
            b = neg_rows[jj]
            for k in range(d):
                z[k] = np.float64(X[a, k]) - X[b, k]
            for k in range(d):
                mu[k] += scale * z[k]  # gultekin-paisley Alg. 1, line 5
                zk = scale * z[k]
                for m in range(d):
                    sigma[k, m] += zk * z[m]  # gultekin-paisley Alg. 1, line 6
    return mu, sigma


@njit(cache=True)
def _max_row_nnz(indptr):
    m = 0
    for i in range(indptr.shape[0] - 1):
        r = indptr[i + 1] - indptr[i]
        if r > m:
            m = r
    return m


@njit(cache=True)
def naive_pair_moments_csr(data, indices, indptr, n_features, pos_rows, neg_rows):
    """Algorithm 1 as printed for CSR X: every (positive, negative) pair, sparse merge."""
    n1 = pos_rows.shape[0]
    n0 = neg_rows.shape[0]
    d = n_features
    mu = np.zeros(d)
    sigma = np.zeros((d, d))
    width = 2 * _max_row_nnz(indptr)
    zi = np.empty(width, dtype=np.int64)
    zv = np.empty(width)
    scale = 1.0 / (float(n1) * float(n0))
    for ii in range(n1):
        for jj in range(n0):
            n = csr_row_diff(data, indices, indptr, pos_rows[ii], neg_rows[jj], zi, zv, 0)
            for k in range(n):
                mu[zi[k]] += scale * zv[k]  # gultekin-paisley Alg. 1, line 5
                vk = scale * zv[k]
                for m in range(n):
                    sigma[zi[k], zi[m]] += vk * zv[m]  # Alg. 1, line 6
    return mu, sigma


@njit(cache=True)
def sampled_pair_sums_dense(X, a_rows, b_rows):
    """Unnormalized sums over the listed pairs z_s = x[a_s] - x[b_s] (dense X).

    Returns ``(sum_z, sum_zz)``; gultekin-paisley Algorithm 2 lines 5-6 without the
    1/S factor, so chunks can be added before dividing by the total pair count.
    Only the upper triangle is accumulated, then mirrored.
    """
    s = a_rows.shape[0]
    d = X.shape[1]
    sz = np.zeros(d)
    szz = np.zeros((d, d))
    z = np.empty(d)
    for t in range(s):
        a = a_rows[t]
        b = b_rows[t]
        for k in range(d):
            z[k] = np.float64(X[a, k]) - X[b, k]
        for k in range(d):
            zk = z[k]
            sz[k] += zk
            for m in range(k, d):
                szz[k, m] += zk * z[m]
    for k in range(d):
        for m in range(k):
            szz[k, m] = szz[m, k]
    return sz, szz


@njit(cache=True)
def sampled_pair_sums_csr(data, indices, indptr, n_features, a_rows, b_rows):
    """Unnormalized sums over the listed pairs for CSR X (sparse merge per pair)."""
    s = a_rows.shape[0]
    d = n_features
    sz = np.zeros(d)
    szz = np.zeros((d, d))
    width = 2 * _max_row_nnz(indptr)
    zi = np.empty(width, dtype=np.int64)
    zv = np.empty(width)
    for t in range(s):
        n = csr_row_diff(data, indices, indptr, a_rows[t], b_rows[t], zi, zv, 0)
        for k in range(n):
            vk = zv[k]
            sz[zi[k]] += vk
            for m in range(n):
                szz[zi[k], zi[m]] += vk * zv[m]
    return sz, szz


@njit(cache=True)
def class_scatter_csr(data, indices, indptr, n_features, rows):
    """Raw per-class sums over ``rows`` of CSR X: ``(sum_x, sum_xx')``.

    O(sum of squared row nnz); the D x D result is only requested when the caller
    decided D is small enough to hold it.
    """
    d = n_features
    sx = np.zeros(d)
    sxx = np.zeros((d, d))
    for t in range(rows.shape[0]):
        r = rows[t]
        p0 = indptr[r]
        p1 = indptr[r + 1]
        for p in range(p0, p1):
            k = indices[p]
            v = np.float64(data[p])  # float32 X: products in float64
            sx[k] += v
            # one triangle per row pair (p, q >= p); the transpose is added below
            sxx[k, k] += v * v
            for q in range(p + 1, p1):
                j = indices[q]
                if j == k:  # a repeated column (non-canonical CSR): both orders, on the diagonal
                    sxx[k, k] += 2.0 * v * data[q]
                else:
                    sxx[k, j] += v * data[q]
    for k in range(d):
        for q in range(k + 1, d):
            both = sxx[k, q] + sxx[q, k]
            sxx[k, q] = both
            sxx[q, k] = both
    return sx, sxx


@njit(cache=True)
def two_class_moments_dense(X, y01):
    """Counts, means and centred scatters ``sum (x - m_c)(x - m_c)'`` of both classes.

    Two passes over dense X (means, then scatter), no row copies; O(N D^2). Used
    for small D, where it beats gathering each class and calling BLAS.
    Returns ``(counts (2,), means (2, D), scatters (2, D, D))`` indexed by label.
    """
    n, d = X.shape
    counts = np.zeros(2, dtype=np.int64)
    means = np.zeros((2, d))
    for i in range(n):
        c = 1 if y01[i] == 1 else 0
        counts[c] += 1
        for k in range(d):
            means[c, k] += X[i, k]
    for c in range(2):
        if counts[c] > 0:
            for k in range(d):
                means[c, k] /= counts[c]
    m2 = np.zeros((2, d, d))
    r = np.empty(d)
    for i in range(n):
        c = 1 if y01[i] == 1 else 0
        for k in range(d):
            r[k] = X[i, k] - means[c, k]
        for k in range(d):
            rk = r[k]
            for m in range(k, d):
                m2[c, k, m] += rk * r[m]
    for c in range(2):
        for k in range(d):
            for m in range(k):
                m2[c, k, m] = m2[c, m, k]
    return counts, means, m2
