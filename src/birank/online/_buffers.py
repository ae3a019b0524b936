"""The two class buffers of the buffer-based online learners (CBR, OAM), as kernel arguments.

See :mod:`birank._kernels.buffers` for the layout and the policies. Rows are
stored sparse, so a buffer of ``buffer_size`` rows costs
``buffer_size * (widest row seen)`` entries whatever the number of features.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._kernels.buffered_stream import buffered_stream, max_row_nnz
from .._kernels.buffers import FIFO, RESERVOIR
from .._kernels.sparse_rows import rng_init
from .._validation import draw_seed, kernel_rows
from ._stream import StreamRanker

__all__ = ["PairBuffers", "POLICIES", "BufferedStreamRanker", "sparse_kernel_rows",
           "csr_blocks", "widest_row"]

POLICIES = {"reservoir": RESERVOIR, "fifo": FIFO}

#: dense rows converted to CSR at a time (about this many bytes of the dense block)
DENSE_BLOCK_BYTES = 4 << 20


def sparse_kernel_rows(X):
    """``kernel_rows(X, sparse=True)`` for a CSR X; a dense X is kept as it is and
    converted block by block (:func:`csr_blocks`) as the rows are learned, so that
    no CSR copy of the whole of X (nor its COO intermediate) is ever held."""
    return X if isinstance(X, np.ndarray) else kernel_rows(X, sparse=True)


def csr_blocks(rows, y01, weight, start, stop):
    """``(data, indices, indptr), y01, weight, t0, t1`` for rows ``start .. stop-1``:
    the kernel arguments as they are for CSR ``rows``, or one block of dense rows
    at a time converted to canonical CSR (the same entries as the whole of X
    converted at once: rows are independent)."""
    if not isinstance(rows, np.ndarray):
        yield rows, y01, weight, start, stop
        return
    step = max(1, DENSE_BLOCK_BYTES // max(1, rows.shape[1] * rows.itemsize))
    for b0 in range(start, stop, step):
        b1 = min(stop, b0 + step)
        yield (kernel_rows(rows[b0:b1], sparse=True), y01[b0:b1], weight[b0:b1], 0, b1 - b0)


def widest_row(rows, start, stop):
    """The most stored entries of a row in ``start .. stop-1`` (non-zeros of a dense row)."""
    if not isinstance(rows, np.ndarray):
        return int(max_row_nnz(rows[2], start, stop))
    step = max(1, DENSE_BLOCK_BYTES // max(1, rows.shape[1]))
    widest = 0
    for b0 in range(start, stop, step):
        block = rows[b0:min(stop, b0 + step)]
        if block.shape[0]:
            widest = max(widest, int(np.count_nonzero(block, axis=1).max()))
    return widest


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


class BufferedStreamRanker(StreamRanker):
    """Base of the buffer-based learners (CBR, OAM): state and the kernel call.

    Subclasses set ``_state`` with :meth:`_buffered_state` and give
    ``_kernel_method()`` (a code of :mod:`birank._kernels.buffered_stream`) and
    ``_phi()`` (CBR's confidence quantile; 0 for OAM).
    """

    def _buffered_state(self, n_features, g, sigma):
        """The weights, the covariance (``g`` diagonal, ``sigma`` full), the buffers."""
        return {"w": np.zeros(n_features), "g": g, "sigma": sigma,
                "buffers": PairBuffers(self.buffer_size, self.buffer, draw_seed(self._rng)),
                "scratch_d": np.zeros(n_features)}

    def _phi(self):
        return 0.0

    def _kernel_rows(self, X):
        return sparse_kernel_rows(X)

    def _learn(self, rows, y01, weight, start, stop):
        st = self._state
        buffers = st["buffers"]
        widest = widest_row(rows, start, stop)
        buffers.reserve(widest)
        room = widest + buffers.width
        budget = self._feature_budget()
        if budget:
            # the support of a truncated model: budget + one row + the other buffer
            need = budget + widest + buffers.capacity * buffers.width
            if st.get("support") is None:
                st["support"] = np.zeros(need, dtype=np.int64)
                st["in_support"] = np.zeros(st["w"].shape[0], dtype=np.bool_)
                st["supp_meta"] = np.zeros(1, dtype=np.int64)
            elif st["support"].shape[0] < need:
                grown = np.zeros(need, dtype=np.int64)
                grown[:st["support"].shape[0]] = st["support"]
                st["support"] = grown
            support, in_support, meta = st["support"], st["in_support"], st["supp_meta"]
        else:
            support = np.zeros(1, dtype=np.int64)
            in_support = np.zeros(1, dtype=np.bool_)
            meta = np.zeros(1, dtype=np.int64)
        scratch = np.empty(room, dtype=np.int64), np.empty(room), np.empty(room)
        for (data, indices, indptr), y_b, w_b, t0, t1 in csr_blocks(rows, y01, weight,
                                                                    start, stop):
            buffered_stream(
                self._kernel_method(), data, indices, indptr, y_b, w_b, t0, t1,
                st["w"], st["g"], st["sigma"], *buffers.kernel_args(), buffers.policy,
                buffers.rng_state, float(self.C), self._phi(), *scratch,
                st["scratch_d"], budget, support, in_support, meta)

    def _feature_budget(self):
        """Coordinates the model may keep non-zero (0: no limit); CBR-diag overrides."""
        return 0

    def _coef(self):
        return self._state["w"].copy()
