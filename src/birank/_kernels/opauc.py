"""OPAUC: one-pass AUC optimization with the square loss (Gao, Jin, Zhu, Zhou, ICML 2013).

For an arriving instance ``x_t`` of class ``k`` (opposite class ``o``), with
``T_o``, ``c_o``, ``S_o`` the weighted count, mean and (biased, 1/T) covariance
of the class-``o`` instances seen so far, the loss of Gao et al. eq. (3) is the
mean pairwise square loss ``1/2 (1 - sgn w.(x_t - x_j))^2`` over them, and its
gradient (Gao et al. eq. (5); sgn = +1 for a positive x_t, -1 for a negative)::

    g = lam w - sgn (x_t - c_o) + ((x_t - c_o).w) (x_t - c_o) + S_o w
    w <- w - eta g                                   (Algorithm 1, constant step)

The class-``k`` statistics are updated first (Algorithm 1 lines 4-6), with a
row weight ``s`` counting as ``s`` copies. Algorithm 1 writes them as running
updates ``c_k <- c_k + (x_t - c_k)/T_k``, ``G_k <- G_k + (x_t x_t' - G_k)/T_k
+ c_old c_old' - c_k c_k'``; the full kernel keeps the equivalent sums
``sum s x`` and ``sum s x x'`` instead (see :func:`opauc_full_pass`).
Typo in Algorithm 1: the printed covariance update does not give the
covariance. With the second moment ``E_T = E_{T-1} + (x x' - E_{T-1})/T`` and
``G = E - c c'``, ``G_T = G_{T-1} + (x x' - G_{T-1})/T + (1 - 1/T) c_old c_old'
- c_T c_T'``: the ``c_old c_old'`` term needs the factor ``(T-1)/T``. The sums
give the exact covariance (tests/test_opauc.py checks both statements).
No step is taken while the opposite class is empty (no pair exists yet), as in
the authors' code.

The low-rank variant (OPAUCr, Gao et al. section 3.2, Algorithm 2) replaces
``S_o`` by a sketch: every instance draws ``r_t ~ N(0, I/tau)``; per class
``Z <- Z + x_t r_t'`` (d x tau) and ``rbar`` (running mean of r)::

    S_o w ~ Z_o (Z_o' w) / T_o - (c_o.w) |rbar_o|^2 c_o

(the centring term exactly as the authors' Matlab ``OPAUCr.m`` applies it;
since ``E|rbar|^2 = 1/T`` it is small, and OPAUCr in effect uses the sketched
second moment ``E[x x']`` rather than the covariance).
A row weight s enters the sketch as ``sqrt(s) x_t r_t'`` so that ``Z Z'``
estimates the weighted second moment.
"""

import math

from numba import njit

from .sparse_rows import row_axpy, row_dot_w
from .stream_rows import (rng_normal, row_clear, row_into, row_mark_features, row_outer_add,
                          row_outer_self_add)


@njit(cache=True)
def opauc_full_pass(X, y01, sw, t0, t1, w, counts, sums, moments, eta, lam, x, z, g):
    """Rows ``t0 .. t1-1`` of ``X`` in order (full covariance); updates state in place.

    The class statistics are kept as sums, which is the same as Algorithm 1's
    running updates: ``sums[k] = sum s x`` (so ``c_k = sums[k] / T_k``) and
    ``moments[k] = sum s x x'`` (so ``S_k = moments[k] / T_k - c_k c_k'``), whose
    update costs O(nnz(x)^2) for a sparse row. ``S_o w`` is then
    ``moments[o] w / T_o - c_o (c_o.w)``: one d x d product per instance, done as
    a sum of rows of the symmetric matrix (contiguous, vectorizable).

    Parameters
    ----------
    X : dense array or CSR tuple (:mod:`.sparse_rows`)
    y01 : int8 array, 1 = positive
    sw : float64 array, row weights (0 = skip the row)
    w : float64 (d,), weights
    counts : float64 (2,), weighted counts per class (0 = negative, 1 = positive)
    sums : float64 (2, d); moments : float64 (2, d, d)
    x, z, g : float64 (d,) work arrays, ``x`` all zeros on entry
    """
    d = w.shape[0]
    for t in range(t0, t1):
        s = sw[t]
        if s == 0.0:
            continue
        k = y01[t]
        o = 1 - k
        row_into(X, t, x)
        # Gao et al. Algorithm 1: statistics of the arriving class (as sums)
        counts[k] += s
        row_axpy(X, sums[k], s, t)
        row_outer_self_add(X, t, moments[k], s)
        if counts[o] > 0.0:
            sgn = 1.0 if k == 1 else -1.0
            inv_t = 1.0 / counts[o]
            so = sums[o]
            cw = 0.0
            for j in range(d):
                cw += so[j] * w[j]
            cw *= inv_t
            zw = row_dot_w(X, w, t) - cw
            # g <- moments[o] w  (symmetric: sum_i w_i row_i)
            for j in range(d):
                g[j] = 0.0
            Mo = moments[o]
            for i in range(d):
                wi = w[i]
                if wi != 0.0:
                    for j in range(d):
                        g[j] += wi * Mo[i, j]
            # Gao et al. eq. (5): g = lam w - sgn z + (z.w) z + S_o w, z = x - c_o
            for j in range(d):
                cj = so[j] * inv_t
                zj = x[j] - cj
                sow = g[j] * inv_t - cj * cw
                g[j] = lam * w[j] - sgn * s * zj + s * (zw * zj + sow)
            for j in range(d):
                w[j] -= eta * g[j]
        row_clear(X, t, x)


@njit(cache=True, inline="always")
def _dot4(a, b, n):
    """``a[:n] . b[:n]`` with four running sums (independent chains, ~4x faster than one)."""
    s0 = 0.0
    s1 = 0.0
    s2 = 0.0
    s3 = 0.0
    q = 0
    while q + 4 <= n:
        s0 += a[q] * b[q]
        s1 += a[q + 1] * b[q + 1]
        s2 += a[q + 2] * b[q + 2]
        s3 += a[q + 3] * b[q + 3]
        q += 4
    while q < n:
        s0 += a[q] * b[q]
        q += 1
    return (s0 + s1) + (s2 + s3)


@njit(cache=True)
def opauc_sketch_pass(X, y01, sw, t0, t1, w, counts, means, rmeans, sketch, eta, lam, state,
                      seen, n_seen, marked, r, u):
    """Rows ``t0 .. t1-1`` of OPAUCr (low-rank sketch of the covariances), state in place.

    Only the features a class has shown so far can be non-zero in its mean and
    in the rows of its sketch, so the sums over features run over that class's
    seen features (``seen[k, :n_seen[k]]``): exact, and O(|seen| tau) per row
    instead of O(d tau) on sparse data. The step, with every product taken at
    the old ``w`` (Algorithm 2; z = x_t - c_o, S_o w as in the module notes)::

        w <- (1 - eta lam) w - eta s (z.w - sgn) z - eta s S_o w

    Parameters
    ----------
    sketch : float64 (2, d, tau), the Z matrices; rmeans : float64 (2, tau)
    state : int64 (4,), xorshift128 state for the Gaussian sketch vectors
    seen : int64 (2, d); n_seen : int64 (2,); marked : bool (2, d)
        Per class, the features seen so far (list, length, membership).
    r, u : float64 (tau,) work arrays
    """
    d = w.shape[0]
    tau = r.shape[0]
    scale = 1.0 / math.sqrt(tau)
    for t in range(t0, t1):
        s = sw[t]
        if s == 0.0:
            continue
        k = y01[t]
        o = 1 - k
        # Gao et al. Algorithm 2: r_t ~ N(0, I / tau), drawn for every instance
        for q in range(tau):
            r[q] = rng_normal(state) * scale
        n_seen[k] = row_mark_features(X, t, seen[k], n_seen[k], marked[k])
        counts[k] += s
        f = s / counts[k]
        c = means[k]
        sk = seen[k]
        for p in range(n_seen[k]):
            c[sk[p]] *= 1.0 - f
        row_axpy(X, c, f, t)  # c_k <- c_k + f (x_t - c_k)
        rb = rmeans[k]
        for q in range(tau):
            rb[q] += f * (r[q] - rb[q])
        row_outer_add(X, t, sketch[k], r, math.sqrt(s))
        if counts[o] > 0.0:
            sgn = 1.0 if k == 1 else -1.0
            co = means[o]
            Zo = sketch[o]
            so = seen[o]
            m = n_seen[o]
            cw = 0.0
            for q in range(tau):
                u[q] = 0.0
            for p in range(m):
                j = so[p]
                wj = w[j]
                cw += co[j] * wj
                if wj != 0.0:
                    for q in range(tau):
                        u[q] += Zo[j, q] * wj
            zw = row_dot_w(X, w, t) - cw
            rbo = rmeans[o]
            rr = 0.0
            for q in range(tau):
                rr += rbo[q] * rbo[q]
            inv_t = 1.0 / counts[o]
            a = eta * s * (zw - sgn)
            if lam != 0.0:
                shrink = 1.0 - eta * lam
                for j in range(d):
                    w[j] *= shrink
            # Gao et al. eq. (5) with S_o w ~ Z_o Z_o' w / T_o - (c_o.w)|rbar_o|^2 c_o
            for p in range(m):
                j = so[p]
                sow = _dot4(Zo[j], u, tau) * inv_t - cw * rr * co[j]
                w[j] += a * co[j] - eta * s * sow
            row_axpy(X, w, -a, t)
    return 0
