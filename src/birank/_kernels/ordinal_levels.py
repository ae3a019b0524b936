"""Ordinal pairs listed level by level: lin-jan-lin's order-closest pairs (section III-A).

Rows are sorted by (group, y) as :class:`birank.pairs.OrdinalPairs` sorts them;
``run_id[p]`` is the global index of the run of equal labels holding sorted
position ``p`` and ``rank[p]`` its distinct-label rank inside the group
(0 = lowest label). A level-r pair is ``(p, q)`` with ``rank[p] - rank[q] = r``
in the same group, so the partners of ``p`` at level r are exactly the
positions of run ``run_id[p] - r``: one contiguous block, whose pair ids in
the OrdinalPairs numbering are ``offsets[p] + (q - group_start[p])``.

Order "from order-closest to farthest": level 1 first, then level 2, ...;
inside a level by upper position p, then lower position q (both ascending).
"""

import numpy as np
from numba import njit


@njit(cache=True)
def ordinal_runs(ys, gs, index):
    """Bookkeeping of :class:`birank.pairs.OrdinalPairs` from labels and group ids in
    sorted order, in one pass and without temporaries (indices of dtype ``index``).

    Returns ``offsets`` (int64, pair id of each row's first partner; the last entry
    is the number of pairs), ``group_start`` (first position of the row's group),
    ``run_id`` (global run of equal labels), ``run_begin`` (first position of each
    run; the run ends where the next begins) and ``rank`` (distinct-label rank
    inside the group).
    """
    n = ys.shape[0]
    offsets = np.empty(n + 1, dtype=np.int64)
    group_start = np.empty(n, dtype=index)
    run_id = np.empty(n, dtype=index)
    rank = np.empty(n, dtype=index)
    n_runs = 0
    for p in range(n):
        if p == 0 or gs[p] != gs[p - 1] or ys[p] != ys[p - 1]:
            n_runs += 1
    run_begin = np.empty(n_runs + 1, dtype=index)
    offsets[0] = 0
    g0 = 0  # start of the current group
    r0 = 0  # start of the current run
    run = -1
    first_run = 0
    for p in range(n):
        new_group = p == 0 or gs[p] != gs[p - 1]
        if new_group:
            g0 = p
        if new_group or ys[p] != ys[p - 1]:
            r0 = p
            run += 1
            run_begin[run] = p
            if new_group:
                first_run = run
        group_start[p] = g0
        run_id[p] = run
        rank[p] = run - first_run
        offsets[p + 1] = offsets[p] + (r0 - g0)  # partners: the group's rows below the run
    run_begin[n_runs] = n
    return offsets, group_start, run_id, run_begin, rank


@njit(cache=True)
def closest_pair_ids(n_take, rank, run_id, run_begin, offsets, group_start):
    """The first ``n_take`` pair ids in level order, and their levels.

    O(N) per level visited plus O(n_take); the caller checks that
    ``n_take`` does not exceed the number of pairs.
    """
    n = rank.shape[0]
    ids = np.empty(n_take, dtype=np.int64)
    levels = np.empty(n_take, dtype=np.int64)
    count = 0
    r = 1
    while count < n_take:
        seen = False
        for p in range(n):
            if rank[p] < r:
                continue
            seen = True
            run = run_id[p] - r
            base = offsets[p] - group_start[p]
            for q in range(run_begin[run], run_begin[run + 1]):
                if count == n_take:
                    break
                ids[count] = base + q
                levels[count] = r
                count += 1
            if count == n_take:
                break
        if not seen:
            break
        r += 1
    return ids[:count], levels[:count]


@njit(cache=True)
def level_pair_counts(rank, run_id, run_begin, max_level):
    """Number of pairs at each level ``1 .. max_level`` (index 0 unused).

    A group whose k runs of equal labels have sizes ``s_0 .. s_{k-1}`` (label
    order) holds ``sum_{j >= r} s_j s_{j-r}`` pairs at level r. With ``c`` the
    group's most common run size and ``s_j = c + t_j`` this is
    ``c^2 (k - r) + c (T[k] - T[r]) + c T[k - r] + sum_{j >= r} t_j t_{j-r}``,
    ``T`` the prefix sums of ``t``: O(1) per level but for the last sum, which
    runs over the pairs of runs of another size at most ``max_level`` apart.
    Cost: O(N + max_level) when few runs differ from their group's common size
    (distinct labels: every run has size 1), never more than the per-row count
    ``sum_p min(rank[p], max_level)`` plus O(N + max_level). ``run_id`` is unused
    (kept for the compiled signature).
    """
    counts = np.zeros(max_level + 1, dtype=np.int64)
    n_runs = run_begin.shape[0] - 1
    if n_runs <= 0 or max_level < 1:
        return counts
    size = np.empty(n_runs, dtype=np.int64)
    for j in range(n_runs):
        size[j] = run_begin[j + 1] - run_begin[j]
    tally = np.zeros(run_begin[n_runs] + 1, dtype=np.int64)  # runs of each size, per group
    prefix = np.empty(n_runs + 1, dtype=np.int64)
    other = np.empty(n_runs, dtype=np.int64)  # positions (in the group) of the other sizes
    j0 = 0
    while j0 < n_runs:
        j1 = j0 + 1  # the group's runs are j0 .. j1 - 1 (a group's first run has rank 0)
        while j1 < n_runs and rank[run_begin[j1]] != 0:
            j1 += 1
        k = j1 - j0
        c = size[j0]
        best = 0
        for j in range(j0, j1):
            tally[size[j]] += 1
            if tally[size[j]] > best:
                best = tally[size[j]]
                c = size[j]
        for j in range(j0, j1):
            tally[size[j]] = 0
        prefix[0] = 0
        m = 0
        for i in range(k):
            t = size[j0 + i] - c
            prefix[i + 1] = prefix[i] + t
            if t != 0:
                other[m] = i
                m += 1
        for r in range(1, min(k - 1, max_level) + 1):
            counts[r] += c * c * (k - r) + c * (prefix[k] - prefix[r]) + c * prefix[k - r]
        for u in range(m):
            iu = other[u]
            tu = size[j0 + iu] - c
            for v in range(u + 1, m):
                d = other[v] - iu
                if d > max_level:
                    break
                counts[d] += tu * (size[j0 + other[v]] - c)
        j0 = j1
    return counts


@njit(cache=True, inline="always")
def _upper_position(offsets, x):
    """Sorted position p of the upper row of pair id x: the last with ``offsets[p] <= x``."""
    lo = 0
    hi = offsets.shape[0] - 1  # offsets[lo] <= x < offsets[hi]
    while hi - lo > 1:
        mid = (lo + hi) >> 1
        if offsets[mid] <= x:
            lo = mid
        else:
            hi = mid
    return lo


@njit(cache=True)
def decode_ordinal_ids(ids, offsets, order, group_start):
    """Rows ``(a, b)`` of ordinal pair ids (:meth:`birank.pairs.OrdinalPairs.decode`).

    The upper row's sorted position p is the last with ``offsets[p] <= id``
    (binary search); the lower row is ``group_start[p] + id - offsets[p]``.
    Only the two outputs are allocated (a NumPy version makes five temporary
    arrays the size of ``ids``).
    """
    m = ids.shape[0]
    a = np.empty(m, dtype=order.dtype)  # int32 rows for fewer than 2^31 (half the memory)
    b = np.empty(m, dtype=order.dtype)
    for k in range(m):
        x = ids[k]
        p = _upper_position(offsets, x)
        a[k] = order[p]
        b[k] = order[group_start[p] + x - offsets[p]]
    return a, b


@njit(cache=True)
def ordinal_pair_levels(ids, offsets, group_start, rank):
    """Level of each pair id (:meth:`birank.pairs.OrdinalPairs.levels`): the
    distinct-label rank of the upper row's position minus the lower row's."""
    out = np.empty(ids.shape[0], dtype=np.int64)
    for k in range(ids.shape[0]):
        x = ids[k]
        p = _upper_position(offsets, x)
        out[k] = rank[p] - rank[group_start[p] + x - offsets[p]]
    return out
