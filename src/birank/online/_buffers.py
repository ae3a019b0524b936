"""The two class buffers of the buffer-based online learners (CBR, OAM), as kernel arguments.

See :mod:`birank._kernels.buffers` for the layout and the policies. Rows are
stored sparse, so a buffer of ``buffer_size`` rows costs
``buffer_size * (widest row seen)`` entries whatever the number of features.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._kernels.buffers import FIFO, RESERVOIR
from .._kernels.sparse_rows import rng_init

__all__ = ["PairBuffers", "POLICIES"]

POLICIES = {"reservoir": RESERVOIR, "fifo": FIFO}


class PairBuffers:
    """A positive and a negative buffer of ``capacity`` rows each, and their RNG state.

    Parameters
    ----------
    capacity : int
        Rows per class buffer (M_+ = M_- = capacity).
    policy : {"reservoir", "fifo"}
    seed : int
        Seed of the xorshift128 stream used by reservoir sampling.
    """

    def __init__(self, capacity, policy, seed):
        self.capacity = int(capacity)
        self.policy = POLICIES[policy]
        self.seed = int(seed)
        self.rng_state = rng_init(self.seed)
        self.width = 0
        self.idx = [np.zeros((self.capacity, 0), dtype=np.int64) for _ in range(2)]
        self.val = [np.zeros((self.capacity, 0)) for _ in range(2)]
        self.nnz = [np.zeros(self.capacity, dtype=np.int64) for _ in range(2)]
        self.meta = [np.zeros(3, dtype=np.int64) for _ in range(2)]   # stored, seen, FIFO head

    def reserve(self, width):
        """Make room for rows of up to ``width`` stored entries."""
        if width <= self.width:
            return
        width = max(int(width), 2 * self.width)
        for c in range(2):
            idx = np.zeros((self.capacity, width), dtype=np.int64)
            val = np.zeros((self.capacity, width))
            idx[:, :self.width] = self.idx[c]
            val[:, :self.width] = self.val[c]
            self.idx[c], self.val[c] = idx, val
        self.width = width

    def kernel_args(self):
        """``pos_idx, pos_val, pos_nnz, pos_meta, neg_idx, neg_val, neg_nnz, neg_meta``."""
        return (self.idx[1], self.val[1], self.nnz[1], self.meta[1],
                self.idx[0], self.val[0], self.nnz[0], self.meta[0])

    def seen(self, label):
        """Rows of class ``label`` (1 positive, 0 negative) offered so far."""
        return int(self.meta[label][1])

    def rows(self, label, n_features):
        """The stored rows of class ``label`` as a CSR matrix, in slot order."""
        n = int(self.meta[label][0])
        counts = self.nnz[label][:n]
        indptr = np.concatenate(([0], np.cumsum(counts)))
        mask = np.arange(self.width)[None, :] < counts[:, None]
        return sp.csr_matrix((self.val[label][:n][mask], self.idx[label][:n][mask], indptr),
                             shape=(n, n_features))
