"""Label scans: the common binary case without a sort of all labels (``np.unique``), and
each row's label rank in one pass over a sorted order."""

import numpy as np
from numba import njit


def scannable(y):
    """Whether :func:`two_values` takes ``y``: a 1-D integer, float32 or float64 array
    (numba has no float16 or long double; those take the sorting path)."""
    return y.ndim == 1 and (y.dtype.kind in "iu" or y.dtype in (np.float32, np.float64))


@njit(cache=True)
def two_values(y):
    """Distinct values of ``y`` if there are at most two, in one pass.

    Returns ``(k, v0, v1)``: ``k`` distinct values (0, 1 or 2) with
    ``v0 < v1`` the ones found, or ``k = 3`` as soon as a third value turns
    up, or ``k = -1`` on NaN (left to the general path to report).
    """
    k = 0
    v0 = y[0] if y.shape[0] else 0
    v1 = v0
    for i in range(y.shape[0]):
        v = y[i]
        if v != v:
            return -1, v0, v1
        if k == 0:
            v0 = v
            k = 1
        elif v != v0:
            if k == 1:
                v1 = v
                k = 2
            elif v != v1:
                return 3, v0, v1
    if k == 2 and v1 < v0:
        return 2, v1, v0
    return k, v0, v1


@njit(cache=True)
def ranks_in_order(ys, gs, order, lab, nlab):
    """Dense label ranks from ``order``, the rows by group then label (stable sort).

    ``ys[t]``, ``gs[t]``: the label and group of the row at position t of ``order``
    (``gs`` empty: one group). Writes ``lab[order[t]]``, the row's rank among its
    group's distinct labels (0 = lowest; equal labels, -0.0 and 0.0 included, share
    one), and ``nlab[g]``, group g's number of distinct labels (0 for a group without
    rows). One pass: a rank moves up where the label changes and restarts where the
    group does (from one order at 10^6 rows 0.65x the time of the numpy passes it
    replaces, serial in every fit of many labels: benchmarks/bench_label_ranks.py).
    """
    nlab[:] = 0
    grouped = gs.shape[0] > 0
    rank = 0
    prev_g = -1
    prev_y = 0.0
    for t in range(order.shape[0]):
        g = gs[t] if grouped else 0
        v = ys[t]
        if g != prev_g:
            rank = 0
            prev_g = g
        elif v != prev_y:
            rank += 1
        prev_y = v
        lab[np.uint64(order[t])] = rank
        nlab[np.uint64(g)] = rank + 1
