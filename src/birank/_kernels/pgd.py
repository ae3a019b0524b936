"""Online pairwise gradient descent (Boissier, Lyu, Ying, Zhou, AISTATS 2016).

Boissier et al. (eq. (2)) study the online pairwise learning rule::

    w_{t+1} = w_t - (eta_t / (t - 1)) sum_{j < t} grad l(w_t; z_t, z_j),   eta_t = eta t^-theta

For bipartite ranking a pair of two same-class examples has no loss, so the
sum runs over the earlier examples of the opposite class. Keeping all of them
costs O(t) per step; as the buffer methods of the same literature (Zhao et al.
2011, Kar et al. 2013) do, the earlier examples are the last ``buffer_size``
of each class (FIFO, or a reservoir sample), and the sum is averaged over the
opposite buffer::

    w <- (1 - eta_t lam) w - (eta_t s / |B_o|) sum_{x' in B_o} l'(m) sgn (x_t - x')
    m = sgn w.(x_t - x'),  sgn = +1 for a positive x_t

with ``l`` the hinge ``max(0, 1-m)``, squared hinge ``max(0, 1-m)^2`` or square
loss ``(1-m)^2``. All margins are taken at ``w_t`` before the step. The
arriving example then enters its own class buffer (oldest one out). No step is
taken while the opposite buffer is empty. The buffers are the shared class
buffers of :mod:`.buffers` (rows stored sparse).
"""

from numba import njit

from .buffers import buffer_offer
from .losses import HINGE, SQUARE, SQUARED_HINGE
from .sgd import _dloss

__all__ = ["HINGE", "SQUARED_HINGE", "SQUARE", "pgd_stream"]


@njit(cache=True, inline="always")
def _neg_dloss(loss, m):
    """``-d l / d m`` at margin m (hinge and squared hinge as in :mod:`.sgd`)."""
    if loss == SQUARE:
        return 2.0 * (1.0 - m)
    return _dloss(loss, m)


@njit(cache=True)
def pgd_stream(data, indices, indptr, y01, weight, t0, t1, w, step, eta, power_t, lam, loss,
               pos_idx, pos_val, pos_nnz, pos_meta, neg_idx, neg_val, neg_nnz, neg_meta,
               policy, rng_state, coefs):
    """Rows ``t0 .. t1-1`` of a CSR matrix in order; ``w`` and the buffers updated in place.

    Buffers are those of :mod:`.buffers` (``policy`` FIFO or reservoir);
    ``coefs`` is a work array of the buffer capacity. ``step`` counts the rows
    of non-zero weight before; the new count is returned.
    """
    d = w.shape[0]
    for t in range(t0, t1):
        s = weight[t]
        if s == 0.0:
            continue
        step += 1
        start = indptr[t]
        end = indptr[t + 1]
        if y01[t] != 0:
            sgn = 1.0
            o_idx, o_val, o_nnz, o_meta = neg_idx, neg_val, neg_nnz, neg_meta
        else:
            sgn = -1.0
            o_idx, o_val, o_nnz, o_meta = pos_idx, pos_val, pos_nnz, pos_meta
        L = o_meta[0]
        if L > 0:
            eta_t = eta / step ** power_t
            wx = 0.0
            for p in range(start, end):
                wx += w[indices[p]] * data[p]
            total = 0.0
            for b in range(L):  # every margin at w_t, before the step
                wb = 0.0
                for q in range(o_nnz[b]):
                    wb += w[o_idx[b, q]] * o_val[b, q]
                g = _neg_dloss(loss, sgn * (wx - wb))
                coefs[b] = g
                total += g
            if lam > 0.0:
                shrink = 1.0 - eta_t * lam
                for j in range(d):
                    w[j] *= shrink
            c = eta_t * s * sgn / L
            for p in range(start, end):
                w[indices[p]] += c * total * data[p]
            for b in range(L):
                cb = -c * coefs[b]
                if cb != 0.0:
                    for q in range(o_nnz[b]):
                        w[o_idx[b, q]] += cb * o_val[b, q]
        # then the arriving row enters its own class buffer
        if sgn > 0.0:
            buffer_offer(pos_idx, pos_val, pos_nnz, pos_meta, indices, data, start, end,
                         policy, rng_state)
        else:
            buffer_offer(neg_idx, neg_val, neg_nnz, neg_meta, indices, data, start, end,
                         policy, rng_state)
    return step
