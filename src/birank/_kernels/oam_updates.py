"""OAM pair steps (Zhao, Jin, Yang & Hoi 2011, "Online AUC maximization", ICML).

For an arriving x_t of label y (+1 / -1) and the buffer B of the other class, OAM
takes the hinge loss of each pair ``z = x_t - x``, ``l = max(0, 1 - y w.z)``,
weighted by ``C_t = C max(1, N_t / M)`` (N_t rows of the other class seen so far,
M the buffer capacity: each buffered row stands for N_t / M of them).

* OAM_seq (their sequential update): one passive-aggressive PA-I step per
  buffered row in turn, ``w += min(C_t, l / |z|^2) y z`` (Crammer et al. 2006).
* OAM_gra (their gradient update): one gradient step on the summed loss at
  w_t, ``w += C_t y sum_{x in B: y w_t.z < 1} z``.
"""

from numba import njit


@njit(cache=True, inline="always")
def oam_seq_step(w, z_idx, z_val, nz, y, C):
    """PA-I step of OAM_seq on one pair; returns the step size tau."""
    margin = 0.0
    sq = 0.0
    for k in range(nz):
        margin += w[z_idx[k]] * z_val[k]
        sq += z_val[k] * z_val[k]
    loss = 1.0 - y * margin
    if loss <= 0.0 or sq <= 0.0:
        return 0.0
    tau = loss / sq
    if tau > C:
        tau = C
    ty = tau * y
    for k in range(nz):
        w[z_idx[k]] += ty * z_val[k]
    return tau


@njit(cache=True)
def oam_gra_step(w, data, indices, start, end, buf_idx, buf_val, buf_nnz, n_stored, y, C):
    """OAM_gra on x_t = ``data/indices[start:end]`` against the stored rows; returns #active.

    Margins are all taken at w_t (w.z = w.x_t - w.x), then
    ``w += C y (n_active x_t - sum of the active x)``: O(nnz) per buffered row.
    """
    wx = 0.0
    for k in range(start, end):
        wx += w[indices[k]] * data[k]
    n_active = 0
    # first pass: which rows are active at w_t (their step must not see the others)
    active = buf_nnz[:n_stored] < 0          # all False, same length
    for s in range(n_stored):
        wb = 0.0
        for k in range(buf_nnz[s]):
            wb += w[buf_idx[s, k]] * buf_val[s, k]
        if y * (wx - wb) < 1.0:
            active[s] = True
            n_active += 1
    if n_active == 0:
        return 0
    cy = C * y
    for s in range(n_stored):
        if active[s]:
            for k in range(buf_nnz[s]):
                w[buf_idx[s, k]] -= cy * buf_val[s, k]
    c = cy * n_active
    for k in range(start, end):
        w[indices[k]] += c * data[k]
    return n_active
