"""The stream loop of the buffer-based learners (CBR, CBR-diag, OAM_seq, OAM_gra).

khalid-ray-chitsaz Alg. 1 (the same frame as Zhao et al. 2011's OAM): for each
arriving row x_t of label y, weight ``C_t`` from the number of rows of the other
class seen so far, offer x_t to its own class's buffer, then take one step per
row x stored in the other class's buffer on the pair ``z = x_t - x`` (Alg. 2).
Rows are CSR slices; buffers are those of :mod:`birank._kernels.buffers`.
"""

from numba import njit

from .buffers import buffer_offer, diff_into
from .cw_updates import scw_diag_step, scw_full_step
from .oam_updates import oam_gra_step, oam_seq_step

CBR_DIAG = 0
CBR_FULL = 1
OAM_SEQ = 2
OAM_GRA = 3


@njit(cache=True)
def buffered_stream(method, data, indices, indptr, y01, weight, t0, t1, w, g, sigma,
                    pos_idx, pos_val, pos_nnz, pos_meta, neg_idx, neg_val, neg_nnz, neg_meta,
                    policy, rng_state, C, phi, scratch_idx, scratch_val, scratch_a, scratch_d):
    """Learn from rows ``t0 .. t1-1``; rows of weight 0 are skipped entirely.

    ``w`` is the mean (CBR) or the weight vector (OAM); ``g`` the diagonal
    covariance (CBR-diag); ``sigma`` the full covariance (CBR). Scratch arrays
    hold a pair (``nnz(x_t) + buffer width`` entries) and, for CBR, a d-vector.
    """
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
        for s in range(n_stored):
            nz = diff_into(indices, data, start, end, o_idx[s], o_val[s], o_nnz[s],
                           scratch_idx, scratch_val)
            if nz == 0:
                continue
            if method == CBR_DIAG:
                scw_diag_step(w, g, scratch_idx, scratch_val, scratch_a, nz, y, Ct, phi)
            elif method == CBR_FULL:
                scw_full_step(w, sigma, scratch_idx, scratch_val, nz, y, Ct, phi, scratch_d)
            else:
                oam_seq_step(w, scratch_idx, scratch_val, nz, y, Ct)


@njit(cache=True)
def max_row_nnz(indptr, t0, t1):
    """Largest number of stored entries of a row in ``t0 .. t1-1``."""
    best = 0
    for t in range(t0, t1):
        n = indptr[t + 1] - indptr[t]
        if n > best:
            best = n
    return best

