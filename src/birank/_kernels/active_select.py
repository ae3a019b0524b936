"""Hard active-sampling selection over positive x negative pairs (shen-lin section 3.3).

The hard strategies want the ``n_take`` unchosen pairs with the lowest value of

    closeness   |s_i - s_j|           (shen-lin eq. (3))
    correctness -[1 - (s_i - s_j)]_+  (shen-lin eq. (4))

without enumerating the ``n_pos * n_neg`` pairs. Each positive ``i`` is a
sorted stream of pairs over the negatives sorted by score; a binary heap merges
the streams (a k-way merge) and pops pairs in increasing order of their key:
O(N log N) for the sorts, done by the numpy driver, and
O((n_take + n_chosen) log n_pos) for the merge.

Order and ties: pairs are ranked by ``(key, pair_id)`` with pair id
``i_pos * n_neg + j_neg`` (the numbering of ``birank.pairs.BipartitePairs``).
Correctness is a non-increasing function of the margin ``d = s_i - s_j``, so
ranking by ``(d, id)`` ranks by correctness and breaks its ties (all pairs with
``d >= 1`` have correctness 0) by the margin, then the id. Closeness ranks by
``(|d|, id)``.

Streams (negatives sorted by ``(s, j)`` ascending = ``asc`` and by ``(-s, j)``
ascending = ``desc``, so equal scores keep increasing ids in both):

    mode 0 (closeness): two streams per positive: ``asc`` from the first
        negative with ``s_j >= s_i`` (key ``s_j - s_i``) and ``desc`` from the
        first negative with ``s_j < s_i`` (key ``s_i - s_j``);
    mode 1 (correctness): one stream per positive over ``desc`` from the top
        (key ``s_i - s_j``).
"""

import numpy as np
from numba import njit


@njit(cache=True)
def _less(k1, i1, k2, i2):
    return k1 < k2 or (k1 == k2 and i1 < i2)


@njit(cache=True)
def _sift_down(hk, hid, hst, hpos, start, m):
    root = start
    while True:
        child = 2 * root + 1
        if child >= m:
            return
        if child + 1 < m and _less(hk[child + 1], hid[child + 1], hk[child], hid[child]):
            child += 1
        if _less(hk[child], hid[child], hk[root], hid[root]):
            hk[root], hk[child] = hk[child], hk[root]
            hid[root], hid[child] = hid[child], hid[root]
            hst[root], hst[child] = hst[child], hst[root]
            hpos[root], hpos[child] = hpos[child], hpos[root]
            root = child
        else:
            return


@njit(cache=True)
def _is_chosen(chosen, pid):
    n = chosen.shape[0]
    if n == 0:
        return False
    lo = 0
    hi = n
    while lo < hi:  # first index with chosen[idx] >= pid
        mid = (lo + hi) // 2
        if chosen[mid] < pid:
            lo = mid + 1
        else:
            hi = mid
    return lo < n and chosen[lo] == pid


@njit(cache=True)
def _entry(mode, stream, pos, s_pos, s_neg, asc, desc, n_neg):
    """Key and pair id of position ``pos`` of ``stream``."""
    if mode == 0:
        i = stream // 2
        if stream % 2 == 0:
            j = asc[pos]
            key = s_neg[j] - s_pos[i]
        else:
            j = desc[pos]
            key = s_pos[i] - s_neg[j]
    else:
        i = stream
        j = desc[pos]
        key = s_pos[i] - s_neg[j]
    return key, np.int64(i) * n_neg + j


@njit(cache=True)
def hard_select_pairs(s_pos, s_neg, asc, desc, start, mode, n_take, chosen):
    """The ``n_take`` smallest unchosen pairs by ``(key, id)``.

    Parameters
    ----------
    s_pos, s_neg : float64 arrays
        Scores of the positives and of the negatives (in pair-numbering order).
    asc, desc : int64 arrays
        Negatives ordered by ``(s, j)`` and by ``(-s, j)``.
    start : int64 array
        Start position of every stream (length ``2 n_pos`` in mode 0, ``n_pos``
        in mode 1).
    mode : int
        0 closeness, 1 correctness (margin).
    n_take : int
    chosen : int64 array, sorted
        Pair ids to skip.

    Returns
    -------
    ids : int64 array of length <= n_take, in increasing ``(key, id)`` order
    keys : float64 array (``|d|`` in mode 0, ``d`` in mode 1)
    """
    n_neg = s_neg.shape[0]
    n_streams = start.shape[0]
    hk = np.empty(n_streams)
    hid = np.empty(n_streams, dtype=np.int64)
    hst = np.empty(n_streams, dtype=np.int64)
    hpos = np.empty(n_streams, dtype=np.int64)
    m = 0
    for st in range(n_streams):
        pos = start[st]
        if pos < n_neg:
            key, pid = _entry(mode, st, pos, s_pos, s_neg, asc, desc, n_neg)
            hk[m] = key
            hid[m] = pid
            hst[m] = st
            hpos[m] = pos
            m += 1
    for root in range(m // 2 - 1, -1, -1):
        _sift_down(hk, hid, hst, hpos, root, m)
    out_ids = np.empty(n_take, dtype=np.int64)
    out_keys = np.empty(n_take)
    k = 0
    while k < n_take and m > 0:
        if not _is_chosen(chosen, hid[0]):
            out_ids[k] = hid[0]
            out_keys[k] = hk[0]
            k += 1
        pos = hpos[0] + 1
        if pos < n_neg:
            key, pid = _entry(mode, hst[0], pos, s_pos, s_neg, asc, desc, n_neg)
            hk[0] = key
            hid[0] = pid
            hpos[0] = pos
        else:
            m -= 1
            hk[0] = hk[m]
            hid[0] = hid[m]
            hst[0] = hst[m]
            hpos[0] = hpos[m]
        _sift_down(hk, hid, hst, hpos, 0, m)
    return out_ids[:k], out_keys[:k]
