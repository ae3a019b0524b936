"""The stream loop of the buffer-based learners (CBR, CBR-diag, OAM_seq, OAM_gra).

khalid-ray-chitsaz Alg. 1 (the same frame as Zhao et al. 2011's OAM): for each
arriving row x_t of label y, weight ``C_t`` from the number of rows of the other
class seen so far, offer x_t to its own class's buffer, then take one step per
row x stored in the other class's buffer on the pair ``z = x_t - x`` (Alg. 2).
Rows are CSR slices; buffers are those of :mod:`birank._kernels.buffers`.

Sparse pairs without merging. x_t is scattered once into a position map of
length d (cleared again after the row), through which each pair z is built in
O(nnz(x_t) + nnz(x)). For CBR-diag and OAM_seq x_t's values also go into a
dense work vector, so that the quantities a pair step first needs -- the margin
``mu.z = mu.x_t - mu.x`` and ``z' diag(g) z = q_t + q_x - 2 sum g x_t x`` (or
``|z|^2``) -- cost O(nnz(x)) gathers per buffered row. Only a pair with a
(possibly) positive loss builds z explicitly and takes the exact step. The
screen keeps a pair unless its loss is below ``-1e-12`` times its scale, so a
rounding difference between the two ways of computing the margin can never
drop a step.
"""

import math

import numpy as np
from numba import njit

from .buffers import buffer_offer
from .cw_updates import scw_diag_step, scw_full_step
from .feature_budget import admit, truncate
from .oam_updates import oam_gra_step, oam_seq_step

CBR_DIAG = 0
CBR_FULL = 1
OAM_SEQ = 2
OAM_GRA = 3

_SCREEN = 1e-12


@njit(cache=True, inline="always")
def _row_sums(w, g, data, indices, start, end):
    """``w.x`` and ``x' diag(g) x`` of a CSR row."""
    m = 0.0
    q = 0.0
    for k in range(start, end):
        j = indices[k]
        v = data[k]
        m += w[j] * v
        q += g[j] * v * v
    return m, q


@njit(cache=True, inline="always")
def _pair_into(indices, data, start, nt, row_idx, row_val, row_nnz, where, out_idx, out_val):
    """z = x_t - x into ``out``: x_t's entries, then x's, merged through the position map.

    ``where[j]`` is the position of coordinate j in x_t (-1 if absent). Entries
    that cancel stay as exact zeros (they change nothing in a step).
    """
    for k in range(nt):
        out_idx[k] = indices[start + k]
        out_val[k] = data[start + k]
    nz = nt
    for k in range(row_nnz):
        j = row_idx[k]
        p = where[j]
        if p >= 0:
            out_val[p] -= row_val[k]
        else:
            out_idx[nz] = j
            out_val[nz] = -row_val[k]
            nz += 1
    return nz


@njit(cache=True)
def _next_candidate(b_idx, b_val, b_nnz, s0, n_stored, w, g, xd, mt, qt, y, phi, weighted):
    """First buffered row from ``s0`` on whose pair with x_t may have a positive loss.

    x_t is in ``xd`` (dense), ``mt = w.x_t`` and ``qt = x_t' diag(g) x_t``; for each
    row x, ``w.x``, ``x' diag(g) x`` and ``x' diag(g) x_t`` cost O(nnz(x)) gathers.
    Returns ``n_stored`` when there is none.
    """
    for s in range(s0, n_stored):
        mb = 0.0
        qb = 0.0
        cross = 0.0
        for k in range(b_nnz[s]):
            j = b_idx[s, k]
            v = b_val[s, k]
            gv = g[j] * v
            mb += w[j] * v
            qb += gv * v
            cross += gv * xd[j]
        m = y * (mt - mb)
        q = qt + qb - 2.0 * cross
        if q < 0.0:
            q = 0.0
        if weighted:
            root = phi * math.sqrt(q)
            loss = root - m
            scale = root + abs(m)
        else:
            loss = 1.0 - m
            scale = 1.0 + abs(m)
        if loss >= -_SCREEN * scale:
            return s
    return n_stored


@njit(cache=True)
def buffered_stream(method, data, indices, indptr, y01, weight, t0, t1, w, g, sigma,
                    pos_idx, pos_val, pos_nnz, pos_meta, neg_idx, neg_val, neg_nnz, neg_meta,
                    policy, rng_state, C, phi, scratch_idx, scratch_val, scratch_a, scratch_d,
                    budget, support, in_support, supp_meta):
    """Learn from rows ``t0 .. t1-1``; rows of weight 0 are skipped entirely.

    ``budget > 0`` (CBR-diag's ``feature_budget``) truncates ``w`` after each
    row to its ``budget`` largest coordinates (:mod:`.feature_budget`); the
    support lives in ``support[:supp_meta[0]]`` / ``in_support`` (``support``
    holds ``budget`` + the row's and the other buffer's stored entries).

    ``w`` is the mean (CBR) or the weight vector (OAM); ``g`` the diagonal
    covariance (CBR-diag; all ones for OAM, whose screen needs ``|z|^2``);
    ``sigma`` the full covariance (CBR). The pair scratch arrays need
    ``nnz(x_t) + buffer width`` entries; ``scratch_d`` (length d) is the full
    step's ``Sigma z``, or for CBR-diag and OAM_seq the dense copy of x_t (all
    zeros between rows).
    """
    where = np.full(w.shape[0], -1, dtype=np.int64)
    screen = method == CBR_DIAG or method == OAM_SEQ
    weighted = method == CBR_DIAG
    for t in range(t0, t1):
        wt = weight[t]
        if wt == 0.0:
            continue
        start = indptr[t]
        end = indptr[t + 1]
        if y01[t] != 0:
            y = 1.0
            buffer_offer(pos_idx, pos_val, pos_nnz, pos_meta, indices, data, start, end,
                         policy, rng_state)
            o_idx, o_val, o_nnz, o_meta = neg_idx, neg_val, neg_nnz, neg_meta
        else:
            y = -1.0
            buffer_offer(neg_idx, neg_val, neg_nnz, neg_meta, indices, data, start, end,
                         policy, rng_state)
            o_idx, o_val, o_nnz, o_meta = pos_idx, pos_val, pos_nnz, pos_meta
        n_stored = o_meta[0]
        if n_stored == 0:
            continue
        # C_t = C max(1, N_t / M), N_t rows of the other class seen so far (Zhao et al.
        # 2011). khalid-ray-chitsaz Alg. 1 prints |B_t| / M, which never exceeds 1.
        ratio = o_meta[1] / o_idx.shape[0]
        Ct = C * wt * (ratio if ratio > 1.0 else 1.0)
        if method == OAM_GRA:
            oam_gra_step(w, data, indices, start, end, o_idx, o_val, o_nnz, n_stored, y, Ct)
            continue
        # scatter x_t (position map; for CBR-diag and OAM_seq also its values, to
        # screen each pair by O(nnz(x)) gathers)
        nt = end - start
        for k in range(nt):
            j = indices[start + k]
            where[j] = k
            if screen:
                scratch_d[j] = data[start + k]
        mt = qt = 0.0
        if screen:
            mt, qt = _row_sums(w, g, data, indices, start, end)
        if method == CBR_FULL:
            for s in range(n_stored):
                nz = _pair_into(indices, data, start, nt, o_idx[s], o_val[s], o_nnz[s], where,
                                scratch_idx, scratch_val)
                scw_full_step(w, sigma, scratch_idx, scratch_val, nz, y, Ct, phi, scratch_d)
            s = n_stored
        else:
            s = _next_candidate(o_idx, o_val, o_nnz, 0, n_stored, w, g, scratch_d, mt, qt, y,
                                phi, weighted)
        while s < n_stored:
            nz = _pair_into(indices, data, start, nt, o_idx[s], o_val[s], o_nnz[s], where,
                            scratch_idx, scratch_val)
            if weighted:
                step = scw_diag_step(w, g, scratch_idx, scratch_val, scratch_a, nz, y, Ct, phi)
                if budget > 0 and step > 0.0:  # only a step's pair can gain non-zeros
                    supp_meta[0] = admit(w, scratch_idx, nz, in_support, support, supp_meta[0])
            else:
                step = oam_seq_step(w, scratch_idx, scratch_val, nz, y, Ct)
            if step > 0.0:
                mt, qt = _row_sums(w, g, data, indices, start, end)
            s = _next_candidate(o_idx, o_val, o_nnz, s + 1, n_stored, w, g, scratch_d, mt, qt,
                                y, phi, weighted)
        if budget > 0:  # OFS truncation (Wang et al. 2014) after the row's steps
            supp_meta[0] = truncate(w, in_support, support, supp_meta[0], budget)
        for k in range(start, end):
            where[indices[k]] = -1
            if screen:
                scratch_d[indices[k]] = 0.0


@njit(cache=True)
def max_row_nnz(indptr, t0, t1):
    """Largest number of stored entries of a row in ``t0 .. t1-1``."""
    best = 0
    for t in range(t0, t1):
        n = indptr[t + 1] - indptr[t]
        if n > best:
            best = n
    return best
