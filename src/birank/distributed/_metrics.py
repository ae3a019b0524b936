"""Exact AUC and pairwise accuracy over dask arrays of scores, without gathering them.

A distributed sample sort. Each block sends ``B`` regular samples of its sorted
scores (and labels); ``B - 1`` splitters drawn from them cut the scores into
buckets: the open intervals between splitters and the splitters themselves, so
that a score's bucket is a function of the score alone (equal scores share a
bucket). Per block, the rows are counted per (label bucket, score bucket) and
the rows of each interval bucket are shuffled to one task per bucket. Pairs in
different score buckets are ordered by their buckets: their concordant counts
are 2-D prefix sums of the summed counts (with at most ``max(32, B)`` distinct
labels every label is a splitter; with more, the labels are bucketed too and
the pairs inside an interval label bucket are counted in its task). Pairs
inside a point bucket are tied; inside an interval bucket they are counted by
:mod:`birank.metrics` in that bucket's task. Every count is an exact integer
(Python ints, int64 below 2**63), so the value equals the in-memory metric bit
for bit.

Cost: ``O(N log N)`` work (two sorts of each block, one of each bucket), about
``2 B^1.5`` small shuffle tasks (two stages); a task holds one block or one
interval bucket, at most about twice the largest block (regular sampling:
``(B + B) * n_max / (B + 1)`` rows); the driver holds the ``O(B^2)`` samples
and (label bucket, score bucket) counts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import metrics as _metrics
from ._engine import DaskEngine, as_dask_rows

if TYPE_CHECKING:
    from dask.array import Array as DaskArray

    from .._typing import ArrayLike

__all__ = ["roc_auc", "pairwise_accuracy"]


def _stack(y, s):
    return np.stack([np.asarray(y, dtype=np.float64), np.asarray(s, dtype=np.float64)], axis=1)


def _labels_and_scores(y_true, y_score):
    import dask.array as da

    y = as_dask_rows(y_true, name="y_true")
    s = as_dask_rows(y_score, name="y_score")
    if y.shape != s.shape or y.ndim != 1:
        raise ValueError(f"y_true and y_score must be 1-D of the same length; got {y.shape} "
                         f"and {s.shape}.")
    s = s.rechunk(y.chunks).map_blocks(_check_score_block, dtype=s.dtype)
    return da.map_blocks(_stack, y, s, new_axis=1, dtype=np.float64,
                         chunks=(y.chunks[0], (2,)))


def _check_score_block(s, block_info=None):
    # as the in-memory check (birank.metrics), naming the index in the whole array
    bad = ~np.isfinite(np.asarray(s, dtype=np.float64))
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        start = block_info[0]["array-location"][0][0] if block_info else 0
        raise ValueError(f"y_score contains NaN or infinite values (at index {start + k}: "
                         f"{float(s[k])!r}).")
    return s


def _regular_sample(v, m):
    # m values of sorted v at evenly spaced ranks (all of v if it is shorter): between two
    # consecutive sampled ranks lie at most ceil(n / (m + 1)) values
    n = v.shape[0]
    if n <= m:
        return v
    return v[(np.arange(1, m + 1) * n) // (m + 1)]


def _block_sample(ys, m, cap, check_labels):
    # per block: its distinct labels (None if more than cap), regular samples of its
    # sorted labels and sorted scores
    y, s = ys[:, 0], ys[:, 1]
    if check_labels and not np.isfinite(y).all():  # (as birank.metrics)
        raise ValueError("y_true contains NaN or infinite values.")
    u = np.unique(y)
    if cap is not None and u.shape[0] > cap:
        u = None
    return u, _regular_sample(np.sort(y), m), _regular_sample(np.sort(s), m)


def _merge_samples(a, b, cap):
    u = None if a[0] is None or b[0] is None else np.union1d(a[0], b[0])
    if u is not None and cap is not None and u.shape[0] > cap:
        u = None
    return u, np.concatenate([a[1], b[1]]), np.concatenate([a[2], b[2]])


def _splitters(sample, k):
    # k - 1 values of the sorted sample at evenly spaced ranks, distinct: with m samples a
    # block and k = B, a bucket between two of them holds at most ~2 n_max rows
    if sample.shape[0] == 0 or k <= 1:
        return np.empty(0)
    v = np.sort(sample)
    return np.unique(v[(np.arange(1, k) * v.shape[0]) // k])


def _bucket(v, cuts):
    # bucket 2i: cuts[i-1] < v < cuts[i]; bucket 2i + 1: v == cuts[i] -- a function of v
    # alone, increasing in v (equal values share a bucket)
    i = np.searchsorted(cuts, v, side="left")
    hit = np.zeros(v.shape[0], dtype=bool)
    inside = i < cuts.shape[0]
    hit[inside] = cuts[i[inside]] == v[inside]
    return 2 * i + hit


def _pieces(rows, bucket, n_buckets):
    # the rows of each even (interval) bucket 0, 2, ..., 2 (n_buckets - 1)
    order = np.argsort(bucket, kind="stable")
    sb = bucket[order]
    lo = np.searchsorted(sb, 2 * np.arange(n_buckets), side="left")
    hi = np.searchsorted(sb, 2 * np.arange(n_buckets), side="right")
    return [rows[order[a:b]] for a, b in zip(lo, hi)]


def _split_block(ys, s_cuts, y_cuts, label_pieces):
    # the (label bucket, score bucket) counts of a block, and its rows of each interval
    # score bucket (label, score) and, if label_pieces, of each interval label bucket
    # (label, score bucket). Without label_pieces every label is a splitter, and the
    # label bucket stands for the label (an order-preserving code, finite)
    y, s = ys[:, 0], ys[:, 1]
    sb = _bucket(s, s_cuts)
    lb = _bucket(y, y_cuts)
    nsb = 2 * s_cuts.shape[0] + 1
    codes, counts = np.unique(lb * nsb + sb, return_counts=True)
    rows = ys if label_pieces else np.stack([lb.astype(np.float64), s], axis=1)
    pieces = _pieces(rows, sb, s_cuts.shape[0] + 1)
    if label_pieces:
        pieces += _pieces(np.stack([y, sb.astype(np.float64)], axis=1), lb, y_cuts.shape[0] + 1)
    return (codes.astype(np.int64), counts.astype(np.int64)), pieces


def _add_counts(a, b):
    codes, inv = np.unique(np.concatenate([a[0], b[0]]), return_inverse=True)
    counts = np.zeros(codes.shape[0], dtype=np.int64)
    np.add.at(counts, inv.reshape(-1), np.concatenate([a[1], b[1]]))
    return codes, counts


def _counts(y, s):
    conc, tied, total = _metrics._pair_counts(y, s, None, None)  # exact integers
    return int(conc), int(tied), int(total)


def _bucket_counts(b, *pieces, n_score):
    # [concordant, tied, total, tied in point score buckets] of one gathered bucket
    rows = np.concatenate(pieces) if pieces else np.empty((0, 2))
    if rows.shape[0] == 0:
        return np.zeros(4, dtype=np.int64)
    y, v = rows[:, 0], rows[:, 1]
    if b < n_score:  # an interval score bucket: its pairs, by score
        conc, tied, _ = _counts(y, v)
        return np.array([conc, tied, 0, 0], dtype=np.int64)
    # an interval label bucket, v the score bucket: its pairs ordered by score bucket
    # (y_i > y_j, sb_i > sb_j), its pairs with different labels, and those of them tied
    # in a point score bucket (odd bucket number)
    conc, _, total = _counts(y, v)
    point = (v % 2) == 1
    tied_point = _counts(y[point], v[point])[1] if point.any() else 0
    return np.array([conc, 0, total, tied_point], dtype=np.int64)


def _draw_samples(ys, engine, cap, check_labels):
    """(distinct labels or None above ``cap``, label sample, score sample, k) of ys.

    ``B`` regular samples of each block's sorted labels and scores (``O(B^2)``
    values in all) and ``k = B`` buckets.
    """
    k = max(ys.numblocks[0], 1)
    u, y_sample, s_sample = engine.map_combine(
        _block_sample, lambda a, b: _merge_samples(a, b, cap), ys,
        args=(k, cap, check_labels))
    return u, y_sample, s_sample, k


def _sample_sort_counts(ys, engine, s_cuts, y_cuts, label_pieces):
    """Exact (concordant, tied, total, rows per label splitter) pair counts of ys, as ints.

    ys holds [label, score] rows. A sample sort: the scores are cut into
    buckets by the splitters ``s_cuts`` (an open interval between two
    splitters, or a splitter itself, so that equal scores share a bucket), the
    labels by ``y_cuts``. Pairs in different score buckets are ordered by their
    buckets: with the counts C[label bucket, score bucket] (summed over blocks),
    their concordant pairs across label buckets are a 2-D prefix sum; those
    inside an interval label bucket (only if ``label_pieces``; else every label
    is a splitter) are counted in one task holding that bucket's (label, score
    bucket) rows. Pairs inside a point score bucket are tied; inside an interval
    score bucket they are counted in one task holding its rows
    (:mod:`birank.metrics`' exact counts).
    """
    n_score = s_cuts.shape[0] + 1
    n_label = y_cuts.shape[0] + 1 if label_pieces else 0
    from functools import partial

    (codes, counts), per_bucket = engine.map_buckets(
        _split_block, _add_counts, partial(_bucket_counts, n_score=n_score), ys,
        n_buckets=n_score + n_label, args=(s_cuts, y_cuts, label_pieces))
    nsb, nlb = 2 * s_cuts.shape[0] + 1, 2 * y_cuts.shape[0] + 1
    C = np.zeros(nlb * nsb, dtype=np.int64)
    C[codes] = counts
    C = C.reshape(nlb, nsb)
    inner = np.sum(per_bucket, axis=0, dtype=np.int64) if per_bucket else np.zeros(4, np.int64)
    # pairs in different label buckets (different labels) and different score buckets
    below = C.cumsum(axis=0).cumsum(axis=1)  # rows with label bucket <= l, score bucket <= s
    conc = int((C[1:, 1:] * below[:-1, :-1]).sum()) + int(inner[0])
    rows, cols = C.sum(axis=1), C.sum(axis=0)
    n = int(rows.sum())
    total = (n * n - int((rows * rows).sum())) // 2 + int(inner[2])
    # tied: inside interval score buckets (counted there), and inside point score buckets
    # between label buckets (from C) or inside an interval label bucket (counted there)
    pc = C[:, 1::2]
    tied = (int((cols[1::2] ** 2).sum()) - int((pc * pc).sum())) // 2 + int(inner[1]) \
        + int(inner[3])
    return conc, tied, total, rows[1::2]


def roc_auc(y_true: DaskArray | ArrayLike, y_score: DaskArray | ArrayLike, *,
            engine: DaskEngine | None = None) -> float:
    """Exact ROC AUC (ties 1/2) of dask arrays of labels and scores.

    Equals :func:`birank.metrics.roc_auc` on the gathered arrays; the larger of
    the two label values is the positive class.

    Cost: a sample sort (see the module): ``O(N log N)`` work, each task holding
    one block or one score bucket (about two blocks), the driver ``O(B^2)``
    samples and counts for ``B`` blocks. ``benchmarks/bench_distributed_metrics.py``
    (blocks already on two worker processes): 64 blocks of 10^4 rows take 1.5 s,
    about 50x the in-memory metric on the gathered columns; the cost is the
    scheduler's, so use it where the columns do not fit the driver.

    Parameters
    ----------
    y_true, y_score : dask arrays (or array-likes) of shape (n_samples,)
    engine : DaskEngine, default=None

    Returns
    -------
    auc : float

    Examples
    --------
    >>> import numpy as np, dask.array as da
    >>> from birank.distributed import roc_auc
    >>> y = da.from_array(np.array([0, 1, 1, 0]), chunks=2)
    >>> s = da.from_array(np.array([0.2, 0.9, 0.2, 0.1]), chunks=2)
    >>> roc_auc(y, s)
    0.875
    """
    engine = engine or DaskEngine()
    ys = _labels_and_scores(y_true, y_score)
    labels, _, s_sample, k = _draw_samples(ys, engine, None, False)
    if np.isnan(labels).any():  # (as the in-memory roc_auc)
        raise ValueError("y_true contains NaN.")
    if labels.shape[0] != 2:
        raise ValueError(f"y_true must hold exactly two label values; got {labels.shape[0]}.")
    conc, tied, _, (n_neg, n_pos) = _sample_sort_counts(ys, engine, _splitters(s_sample, k),
                                                        labels, False)
    u2 = 2 * conc + tied  # over (positive, negative) pairs: 2 x ordered + tied, exact
    return float(u2 / (2.0 * int(n_pos) * int(n_neg)))


def pairwise_accuracy(y_true: DaskArray | ArrayLike, y_score: DaskArray | ArrayLike, *,
                      engine: DaskEngine | None = None) -> float:
    """Exact pairwise accuracy (ties in score 1/2) of dask arrays, graded labels allowed.

    Equals :func:`birank.metrics.pairwise_accuracy` (without groups or weights)
    on the gathered arrays.

    Cost: as :func:`roc_auc`, ``O(N log N)``; with more than ``max(32, B)``
    distinct labels, the labels are bucketed too (a second shuffle of the rows).

    Parameters
    ----------
    y_true : dask array (or array-like) of shape (n_samples,)
        Real-valued or graded labels (higher ranks higher).
    y_score : dask array (or array-like) of shape (n_samples,)
        Scores, finite.
    engine : DaskEngine, default=None

    Returns
    -------
    accuracy : float
        The share of pairs with ``y_i > y_j`` that the scores order the same
        way (a tie in score counts 1/2).

    Examples
    --------
    >>> import numpy as np, dask.array as da
    >>> from birank.distributed import pairwise_accuracy
    >>> y = da.from_array(np.array([2.0, 1.0, 0.0, 1.0]), chunks=2)
    >>> s = da.from_array(np.array([0.9, 0.5, 0.1, 0.7]), chunks=2)
    >>> pairwise_accuracy(y, s)
    1.0
    """
    engine = engine or DaskEngine()
    ys = _labels_and_scores(y_true, y_score)
    cap = max(32, ys.numblocks[0])
    labels, y_sample, s_sample, k = _draw_samples(ys, engine, cap, True)
    label_pieces = labels is None  # (else every label is a splitter)
    y_cuts = _splitters(y_sample, k) if label_pieces else labels
    conc, tied, total, _ = _sample_sort_counts(ys, engine, _splitters(s_sample, k), y_cuts,
                                               label_pieces)
    if total == 0:
        raise ValueError("y_true has a single value: there is no pair to compare.")
    return float((float(conc) + 0.5 * float(tied)) / float(total))
