"""``numpy.lexsort`` of float keys within groups, by stable radix passes on large inputs.

The per-query metrics rank rows by (query, score) and (query, label), and RankSVM's
setup ranks the labels within each query; numpy's ``lexsort`` makes one stable
comparison sort per key through the previous keys' order, about 350 ms for
(score, query) at 10^6 rows. The same order comes from
least-significant-first stable passes: the radix argsort of each float key
(:func:`birank._kernels.radix_sort.argsort_scores`, O(n) a pass), read in the
order the previous passes left, then the stable counting sort by group
(:func:`birank._kernels.radix_sort.sort_by_segment`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ._typing import NDArray

__all__ = ["lexsort_groups", "rows_by_group", "group_bounds", "LEXSORT_RADIX_MIN"]

#: rows from which :func:`lexsort_groups` takes the radix passes (below, numpy's
#: lexsort, whose fixed costs are lower): ``radix_sort.RADIX_MIN``, where the solvers'
#: own sorts turn to the radix argsort (not imported here: it would load numba with
#: the metrics)
LEXSORT_RADIX_MIN = 1 << 16


def lexsort_groups(keys: Sequence[NDArray[np.float64]], groups: NDArray[np.int64],
                   seg: NDArray[np.int64] | None = None) -> NDArray[np.int64]:
    """``np.lexsort((*keys, groups))``: the rows by group code, then by the last key, ...,
    then by the first; rows equal in all keep their order.

    ``keys``: finite float64 arrays (least significant first, as numpy's); ``groups``:
    int64 codes ``0 .. G-1``; ``seg``: where each group starts in the result (G + 1
    bounds, from the group sizes), if the caller has them. Equal keys, -0.0 and 0.0
    included, keep the order of the passes before, as in numpy's comparison sorts, so
    both give the same order.
    """
    n = groups.shape[0]
    if n < LEXSORT_RADIX_MIN:
        return np.lexsort((*keys, groups))
    from ._kernels.radix_sort import argsort_scores, radix_scratch, sort_by_segment

    scratch = radix_scratch(n)
    step = np.empty(n, dtype=np.int64)
    order = None  # the passes so far (None: the rows in order)
    for key in keys:
        k = np.ascontiguousarray(key if order is None else key[order], dtype=np.float64)
        argsort_scores(k, step, scratch)
        order = step.copy() if order is None else order[step]
    if order is None:
        order = np.arange(n, dtype=np.int64)
    codes = np.ascontiguousarray(groups, dtype=np.int64)
    if seg is None:
        seg = group_bounds(codes)
    out = np.empty(n, dtype=np.int64)
    sort_by_segment(order, codes, seg, out)
    return out


def group_bounds(codes: NDArray[np.int64]) -> NDArray[np.int64]:
    """Where each group's rows start once grouped: ``G + 1`` bounds (int64) from the
    codes ``0 .. G-1``."""
    sizes = np.bincount(codes) if codes.shape[0] else np.zeros(0, dtype=np.int64)
    return np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)


def rows_by_group(codes: NDArray[np.int64], seg: NDArray[np.int64] | None = None
                  ) -> NDArray[np.int64]:
    """``np.argsort(codes, kind="stable")``: the rows grouped, in row order within each
    group. From :data:`LEXSORT_RADIX_MIN` rows one counting pass
    (:func:`birank._kernels.radix_sort.sort_by_segment` of the rows in order)."""
    n = codes.shape[0]
    if n < LEXSORT_RADIX_MIN:
        return np.argsort(codes, kind="stable").astype(np.int64)
    from ._kernels.radix_sort import sort_by_segment

    codes = np.ascontiguousarray(codes, dtype=np.int64)
    out = np.empty(n, dtype=np.int64)
    sort_by_segment(np.arange(n, dtype=np.int64), codes,
                    group_bounds(codes) if seg is None else seg, out)
    return out
