"""Online pairwise gradient descent (Boissier, Lyu, Ying, Zhou, AISTATS 2016).

Boissier et al. (eq. (2)) study the online pairwise learning rule::

    w_{t+1} = w_t - (eta_t / (t - 1)) sum_{j < t} grad l(w_t; z_t, z_j),   eta_t = eta t^-theta

For bipartite ranking a pair of two same-class examples has no loss, so the
sum runs over the earlier examples of the opposite class. Keeping all of them
costs O(t) per step; as the buffer methods of the same literature (Zhao et al.
2011, Kar et al. 2013) do, the earlier examples are the last ``buffer_size``
of each class (FIFO), and the sum is averaged over the opposite buffer::

    w <- (1 - eta_t lam) w - (eta_t s / |B_o|) sum_{x' in B_o} l'(m) sgn (x_t - x')
    m = sgn w.(x_t - x'),  sgn = +1 for a positive x_t

with ``l`` the hinge ``max(0, 1-m)``, squared hinge ``max(0, 1-m)^2`` or square
loss ``(1-m)^2``. All margins are taken at ``w_t`` before the step. The
arriving example then enters its own class buffer (oldest one out). No step is
taken while the opposite buffer is empty. Buffers hold rows as sparse slots
(``idx, val, nnz``), so dense and CSR rows are stored alike.
"""

from numba import njit

from .sparse_rows import n_rows_of, row_axpy, row_dot_w
from .stream_rows import row_to_slot

HINGE = 0
SQUARED_HINGE = 1
SQUARE = 2


@njit(cache=True, inline="always")
def _neg_dloss(loss, m):
    """``-d l / d m`` at margin m."""
    if loss == HINGE:
        return 1.0 if m < 1.0 else 0.0
    r = 1.0 - m
    if loss == SQUARED_HINGE:
        return 2.0 * r if r > 0.0 else 0.0
    return 2.0 * r


@njit(cache=True)
def pgd_pass(X, y01, sw, w, t0, eta, power_t, lam, loss,
             buf_idx, buf_val, buf_nnz, buf_len, buf_pos, coefs):
    """One pass in row order; ``w`` and the buffers are updated in place.

    Parameters
    ----------
    buf_idx : int64 (2, M, cap); buf_val : float64 (2, M, cap); buf_nnz : int64 (2, M)
        Class buffers (0 = negative, 1 = positive); ``cap`` >= the nnz of any row.
    buf_len, buf_pos : int64 (2,), fill level and next FIFO slot per class.
    coefs : float64 (M,), work array.

    Returns the step counter after the pass.
    """
    n = n_rows_of(X)
    d = w.shape[0]
    M = buf_nnz.shape[1]
    step = t0
    for t in range(n):
        s = sw[t]
        if s == 0.0:
            continue
        step += 1
        k = y01[t]
        o = 1 - k
        L = buf_len[o]
        if L > 0:
            sgn = 1.0 if k == 1 else -1.0
            eta_t = eta / step ** power_t
            wx = row_dot_w(X, w, t)
            total = 0.0
            for b in range(L):
                wb = 0.0
                for q in range(buf_nnz[o, b]):
                    wb += w[buf_idx[o, b, q]] * buf_val[o, b, q]
                g = _neg_dloss(loss, sgn * (wx - wb))
                coefs[b] = g
                total += g
            if lam > 0.0:
                shrink = 1.0 - eta_t * lam
                for j in range(d):
                    w[j] *= shrink
            step_c = eta_t * s * sgn / L
            row_axpy(X, w, step_c * total, t)
            for b in range(L):
                c = -step_c * coefs[b]
                if c != 0.0:
                    for q in range(buf_nnz[o, b]):
                        w[buf_idx[o, b, q]] += c * buf_val[o, b, q]
        slot = buf_pos[k]
        buf_nnz[k, slot] = row_to_slot(X, t, buf_idx[k, slot], buf_val[k, slot])
        buf_pos[k] = (slot + 1) % M
        if buf_len[k] < M:
            buf_len[k] += 1
    return step
