"""Fixed-capacity instance buffers (one per class) for buffer-based online AUC learners.

A buffer holds up to ``M`` rows, each stored sparse in a slot of a
``(M, W)`` index array and a ``(M, W)`` value array, with its length in
``nnz[slot]``. ``meta`` holds three int64 counters:

``meta[0]``  rows stored (``<= M``);
``meta[1]``  rows of this class offered so far (the stream count);
``meta[2]``  FIFO only: the slot holding the oldest row (next to be replaced).

Policies (khalid-ray-chitsaz section 3.2; Zhao et al. 2011, "Online AUC
maximization", Alg. 1):

* FIFO: append while there is room, then overwrite the oldest row.
* Reservoir sampling, Vitter's (1985) algorithm R: the k-th row offered is
  appended while ``k <= M``; later it replaces a uniform slot with probability
  ``M / k``. (khalid-ray-chitsaz print the probability as ``M / |B|``, which is
  1 once the buffer is full; Vitter's ``M / k`` keeps every row seen so far in
  the buffer with the same probability ``M / k``, which is what makes it a
  uniform sample of the stream.) With ``j`` uniform in ``[0, k)``, the row
  enters slot ``j`` when ``j < M``: one draw decides both.

The random numbers come from the xorshift128 state of ``sparse_rows`` kept by
the caller, so a stream split into chunks draws exactly the same numbers as the
whole stream.
"""

import numpy as np
from numba import njit

from .sparse_rows import rng_next

RESERVOIR = 0
FIFO = 1


@njit(cache=True, inline="always")
def uniform_below(rng_state, k):
    """A uniform integer in ``[0, k)`` from 53 random bits (two xorshift words)."""
    hi = rng_next(rng_state) >> 11            # 21 bits
    lo = rng_next(rng_state)                  # 32 bits
    u = (hi * 4294967296.0 + lo) / 9007199254740992.0   # in [0, 1), 53 bits
    j = np.int64(u * k)
    return j if j < k else k - 1


@njit(cache=True)
def buffer_offer(buf_idx, buf_val, buf_nnz, meta, row_idx, row_val, start, end, policy,
                 rng_state):
    """Offer the row ``row_idx/row_val[start:end]`` to the buffer; return its slot or -1.

    The caller guarantees ``end - start <= buf_idx.shape[1]``.
    """
    capacity = buf_idx.shape[0]
    meta[1] += 1
    if capacity == 0:
        return -1
    if meta[0] < capacity:
        slot = meta[0]
        meta[0] += 1
    elif policy == FIFO:
        slot = meta[2]
        meta[2] = (slot + 1) % capacity
    else:
        slot = uniform_below(rng_state, meta[1])
        if slot >= capacity:
            return -1
    n = end - start
    for k in range(n):
        buf_idx[slot, k] = row_idx[start + k]
        buf_val[slot, k] = row_val[start + k]
    buf_nnz[slot] = n
    return slot
