"""Class buffers: FIFO keeps the newest rows, reservoir sampling keeps a uniform sample."""

import numpy as np
import pytest

from birank._kernels.buffers import FIFO, RESERVOIR, buffer_offer, uniform_below
from birank._kernels.sparse_rows import rng_init
from birank.online._buffers import PairBuffers


def _offer_stream(n, capacity, policy, seed):
    """Offer rows 0..n-1 (row i = e_i) to one buffer; return the stored row ids by slot."""
    idx = np.zeros((capacity, 1), dtype=np.int64)
    val = np.zeros((capacity, 1))
    nnz = np.zeros(capacity, dtype=np.int64)
    meta = np.zeros(3, dtype=np.int64)
    rng = rng_init(seed)
    one = np.ones(1)
    for i in range(n):
        buffer_offer(idx, val, nnz, meta, np.array([i]), one, 0, 1, policy, rng)
    assert meta[1] == n and meta[0] == min(n, capacity)
    return idx[:meta[0], 0].copy()


@pytest.mark.kernel
def test_fifo_keeps_the_newest_rows_in_a_ring():
    assert _offer_stream(3, 5, FIFO, 0).tolist() == [0, 1, 2]
    assert _offer_stream(12, 5, FIFO, 0).tolist() == [10, 11, 7, 8, 9]


@pytest.mark.kernel
def test_reservoir_fills_first_then_keeps_distinct_rows():
    assert _offer_stream(4, 6, RESERVOIR, 1).tolist() == [0, 1, 2, 3]
    kept = _offer_stream(500, 6, RESERVOIR, 1)
    assert len(set(kept.tolist())) == 6


def test_reservoir_inclusion_probability_is_capacity_over_stream_length():
    # Vitter's algorithm R: after n offers every row is kept with probability M / n.
    # Over R independent seeds the count of runs keeping row i is Binomial(R, M/n);
    # allow 5 binomial standard deviations per row (for 60 rows, a false alarm has
    # probability < 60 * 6e-7), and check the total exactly.
    n, M, R = 60, 6, 3000
    counts = np.zeros(n)
    for seed in range(R):
        counts[_offer_stream(n, M, RESERVOIR, seed)] += 1
    p = M / n
    std = np.sqrt(R * p * (1 - p))
    assert counts.sum() == R * M
    assert np.abs(counts - R * p).max() < 5 * std
    # early and late rows alike (a biased sampler would favour one end)
    assert abs(counts[:n // 2].sum() - counts[n // 2:].sum()) < 5 * np.sqrt(2 * R * M / 4)


@pytest.mark.kernel
def test_uniform_below_stays_in_range():
    rng = rng_init(3)
    draws = np.array([uniform_below(rng, 7) for _ in range(2000)])
    assert draws.min() == 0 and draws.max() == 6
    assert np.abs(np.bincount(draws) - 2000 / 7).max() < 5 * np.sqrt(2000 / 7)


def test_pair_buffers_grow_and_return_their_rows():
    buffers = PairBuffers(3, "fifo", seed=0)
    buffers.reserve(2)
    args = buffers.kernel_args()
    pos = args[:4]
    buffer_offer(*pos, np.array([0, 5]), np.array([1.0, 2.0]), 0, 2, FIFO, buffers.rng_state)
    buffers.reserve(4)                                       # keeps what is stored
    pos = buffers.kernel_args()[:4]
    buffer_offer(*pos, np.array([1, 2, 3, 6]), np.ones(4), 0, 4, FIFO, buffers.rng_state)
    rows = buffers.rows(1, 7).toarray()
    np.testing.assert_array_equal(rows, [[1, 0, 0, 0, 0, 2, 0], [0, 1, 1, 1, 0, 0, 1]])
    assert buffers.seen(1) == 2 and buffers.seen(0) == 0
