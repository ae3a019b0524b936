"""birank.distributed.roc_auc / pairwise_accuracy (a sample sort) equal the in-memory metrics.

Bit for bit, on random data with ties, many and uneven blocks, empty blocks,
graded and real-valued labels; the same errors as in memory.
"""

import numpy as np
import pytest

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")

from birank import distributed as bd  # noqa: E402
from birank import metrics  # noqa: E402
from birank.distributed import _metrics as dm  # noqa: E402


@pytest.fixture(autouse=True)
def _sync():
    with dask.config.set(scheduler="synchronous"):
        yield


def _random_chunks(rng, n, n_blocks):
    cuts = np.sort(rng.integers(0, n + 1, n_blocks - 1))  # uneven, some empty
    return (tuple(np.diff(np.concatenate([[0], cuts, [n]])).tolist()),)


def _labels(rng, kind, n):
    if kind == "binary":
        return rng.integers(0, 2, n)
    if kind == "graded":
        return rng.integers(0, 5, n).astype(float)
    if kind == "rounded":  # many distinct labels, with ties
        return np.round(rng.normal(size=n), 1)
    return rng.normal(size=n)  # real-valued, all distinct


def _scores(rng, n, tied):
    return rng.integers(0, 7, n).astype(float) if tied else rng.normal(size=n)


@pytest.mark.parametrize("kind", ["binary", "graded", "rounded", "real"])
@pytest.mark.parametrize("tied", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_equal_bit_for_bit_to_in_memory(kind, tied, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 1500))
    chunks = _random_chunks(rng, n, int(rng.integers(1, 40)))
    y, s = _labels(rng, kind, n), _scores(rng, n, tied)
    yd, sd = da.from_array(y, chunks=chunks), da.from_array(s, chunks=chunks)
    for dist, mem in ((bd.pairwise_accuracy, metrics.pairwise_accuracy),
                      (bd.roc_auc, metrics.roc_auc)):
        try:
            expected = mem(y, s)
        except ValueError:
            with pytest.raises(ValueError):
                dist(yd, sd)
            continue
        assert dist(yd, sd) == expected  # the same float


def test_label_buckets_are_gathered_for_many_labels(monkeypatch):
    # more distinct labels than max(32, B): the labels are sampled too, and the pairs
    # inside an interval label bucket are counted in its task
    seen = []
    real = dm._sample_sort_counts
    monkeypatch.setattr(dm, "_sample_sort_counts",
                        lambda *a: seen.append(a[4]) or real(*a))
    rng = np.random.default_rng(7)
    y, s = np.round(rng.normal(size=3000), 2), np.round(rng.normal(size=3000), 1)
    chunks = _random_chunks(rng, 3000, 12)
    got = bd.pairwise_accuracy(da.from_array(y, chunks=chunks), da.from_array(s, chunks=chunks))
    assert seen == [True]
    assert got == metrics.pairwise_accuracy(y, s)


def test_all_scores_tied_and_one_block_per_row():
    y = np.array([0, 1, 1, 0, 2, 2, 1.0])
    s = np.full(7, 0.5)
    for chunks in (1, 3, 7):
        yd, sd = da.from_array(y, chunks=chunks), da.from_array(s, chunks=chunks)
        assert bd.pairwise_accuracy(yd, sd) == metrics.pairwise_accuracy(y, s) == 0.5
    yb = (y > 0).astype(int)
    assert bd.roc_auc(da.from_array(yb, chunks=2), da.from_array(s, chunks=2)) == 0.5


def test_buckets_hold_about_two_blocks():
    # the regular sample bounds an interval bucket by ~2 n_max rows, ties included
    rng = np.random.default_rng(3)
    n_blocks, rows = 16, 500
    s = np.round(rng.normal(size=n_blocks * rows), 2)
    ys = np.stack([rng.integers(0, 2, s.shape[0]).astype(float), s], axis=1)
    samples = [dm._regular_sample(np.sort(b[:, 1]), n_blocks) for b in np.split(ys, n_blocks)]
    cuts = dm._splitters(np.concatenate(samples), n_blocks)
    b = dm._bucket(s, cuts)
    interval = np.bincount(b[b % 2 == 0])
    assert interval.max() <= 2 * rows + 2 * n_blocks
    assert np.array_equal(np.sort(b), b[np.argsort(s, kind="stable")])  # increasing in s


@pytest.mark.parametrize("y, message", [
    (np.zeros(10), "y_true has a single value"),
    (np.where(np.arange(10) == 3, np.nan, 1.0), "y_true contains NaN or infinite values"),
])
def test_pairwise_accuracy_errors(y, message):
    with pytest.raises(ValueError, match=message):
        bd.pairwise_accuracy(da.from_array(y, chunks=3), da.from_array(np.arange(10.0), chunks=3))


@pytest.mark.parametrize("y, message", [
    (np.zeros(10), "exactly two label values; got 1"),
    (np.arange(10) % 3, "exactly two label values; got 3"),
    (np.where(np.arange(10) == 3, np.nan, np.arange(10) % 2), "y_true contains NaN"),
])
def test_roc_auc_errors(y, message):
    with pytest.raises(ValueError, match=message):
        bd.roc_auc(da.from_array(y, chunks=3), da.from_array(np.arange(10.0), chunks=3))


def test_empty_input_is_refused():
    e = np.empty(0)
    with pytest.raises(ValueError):
        bd.roc_auc(da.from_array(e, chunks=1), da.from_array(e, chunks=1))
    with pytest.raises(ValueError):
        bd.pairwise_accuracy(da.from_array(e, chunks=1), da.from_array(e, chunks=1))
