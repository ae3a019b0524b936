"""``numpy.lexsort`` of float keys within groups, by stable radix passes on large inputs.

The per-query metrics rank rows by (query, score) and (query, label); numpy's
``lexsort`` makes one stable comparison sort per key through the previous keys'
order, about 350 ms for (score, query) at 10^6 rows. The same order comes from
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

__all__ = ["lexsort_groups", "LEXSORT_RADIX_MIN"]

#: rows from which :func:`lexsort_groups` takes the radix passes (below, numpy's
#: lexsort: the passes' fixed costs and the kernels' first compilation outweigh it)
LEXSORT_RADIX_MIN = 1 << 17


def lexsort_groups(keys: Sequence[NDArray[np.float64]], groups: NDArray[np.int64]
                   ) -> NDArray[np.int64]:
    """``np.lexsort((*keys, groups))``: the rows by group code, then by the last key, ...,
    then by the first; rows equal in all keep their order.

    ``keys``: finite float64 arrays (least significant first, as numpy's); ``groups``:
    int64 codes ``0 .. G-1``. Equal keys, -0.0 and 0.0 included, keep the order of
    the passes before, as in numpy's comparison sorts, so both give the same order.
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
    seg = np.zeros(int(codes.max()) + 2 if n else 1, dtype=np.int64)
    np.cumsum(np.bincount(codes), out=seg[1:])
    out = np.empty(n, dtype=np.int64)
    sort_by_segment(order, codes, seg, out)
    return out
