"""Numba kernels behind :mod:`birank.metrics` (sorted sweeps, Fenwick trees).

Every kernel receives arrays already sorted / ranked by the numpy driver in
``birank/metrics.py`` and trusts them.
"""

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)  # (threads split pieces at once: metrics.roc_auc's n_jobs)
def split_classes(s, mask, out, p0, p1):
    """The scores of rows ``p0 .. p1-1`` into ``out[p0:p1]``: the positive class's
    (``mask``) from the front, the others from the back (in reverse order: both
    are sorted next); returns the number of positives.

    Without a branch on the class (mixed at random, it would mispredict): every
    score goes to the next free slot at the front and at the back, and only one
    of the two moves on. A free slot written is written again later; at the last
    row the two are the same slot.
    """
    a = p0
    b = p1 - 1
    for p in range(p0, p1):
        x = s[p]
        out[a] = x
        out[b] = x
        m = np.int64(mask[p])
        a += m
        b -= 1 - m
    return a - p0


@njit(cache=True, nogil=True)  # (threads merge pieces at once: metrics.roc_auc's n_jobs)
def merge_count_ties(pos_sorted, neg_sorted):
    """Twice the Mann-Whitney U: sum over positives of (#neg below) * 2 + (#neg tied).

    Both inputs sorted ascending. One linear merge; the result is an exact int64.
    """
    n_neg = neg_sorted.shape[0]
    lo = 0  # first negative >= current positive score
    hi = 0  # first negative > current positive score
    total = 0
    for i in range(pos_sorted.shape[0]):
        s = pos_sorted[i]
        while lo < n_neg and neg_sorted[lo] < s:
            lo += 1
        if hi < lo:
            hi = lo
        while hi < n_neg and neg_sorted[hi] <= s:
            hi += 1
        total += lo + hi
    return total


@njit(cache=True, nogil=True)  # (threads sign parts at once: metrics.roc_auc's n_jobs)
def signed_weights(mask, w, rows, p0, p1):
    """``rows[p] = w[p]`` where ``mask[p]`` (the positive class), else ``-w[p]``, for
    ``p0 <= p < p1``: numpy's ``where(mask, w, -w)`` in one pass, in parts."""
    for p in range(p0, p1):
        x = w[p]
        rows[p] = x if mask[p] else -x


@njit(cache=True, nogil=True)  # (threads sum pieces at once: metrics.roc_auc's n_jobs)
def weighted_tie_pieces(order, ss, rows, starts, signed, out, k0, k1):
    """The weighted Mann-Whitney sums of the pieces ``k0 .. k1-1`` of the sorted scores.

    Piece k covers the sorted positions ``starts[k] .. starts[k+1]-1`` (rows
    ``order``, scores ``ss`` ascending), each piece a run of whole tie blocks.
    ``out[k] = (N, P, L)``: the piece's negative weight N, positive weight P, and
    ``L = sum over its tie blocks of pos_b (neg below the block in the piece +
    neg_b / 2)``. The AUC's numerator is then ``sum_k L_k + P_k (N_0 + .. +
    N_{k-1})``.

    ``rows``: each row's weight, negated for the negative class
    (:func:`signed_weights`). They are first gathered in sorted order (``signed``:
    scratch of n entries), one random load a row in a loop of independent loads
    (signing there instead, from the class mask and the weights, two random loads
    a row, made the kernel 1.2-1.4x slower at 10^7 rows: scratch A/B); the pass over
    the tie blocks then reads them in order, without a branch on the class (mixed
    at random, it would mispredict).
    """
    for k in range(k0, k1):
        t = starts[k]
        end = starts[k + 1]
        for p in range(t, end):
            signed[p] = rows[order[p]]
        below = 0.0
        total = 0.0
        loss = 0.0
        while t < end:
            v = ss[t]
            pb = 0.0
            nb = 0.0
            while t < end and ss[t] == v:
                x = signed[t]
                pb += max(x, 0.0)
                nb += max(-x, 0.0)
                t += 1
            loss += pb * (below + 0.5 * nb)
            total += pb
            below += nb
        out[k, 0] = below
        out[k, 1] = total
        out[k, 2] = loss


@njit(cache=True)
def concordant_weight(order, block_start, yrank, gstart, w, n_ranks):
    """Weighted count of strictly concordant pairs within groups.

    ``order`` visits rows by (group, score); ``block_start`` marks where a new
    (group, score) tie block begins (length n+1, last entry n). For a row i it
    adds ``w_i * sum(w_j)`` over earlier rows j of the same group with a strictly
    smaller score and a strictly smaller label rank. A Fenwick tree over label
    ranks (1-based; ranks of one group are contiguous starting at ``gstart``)
    gives the sums; a whole tie block is queried before any of it is inserted,
    so tied scores never count as concordant.
    """
    tree = np.zeros(n_ranks + 1)
    total = 0.0
    for b in range(block_start.shape[0] - 1):
        a = block_start[b]
        e = block_start[b + 1]
        for t in range(a, e):
            i = order[t]
            # prefix(yrank - 1) - prefix(gstart - 1)
            acc = 0.0
            k = yrank[i] - 1
            while k > 0:
                acc += tree[k]
                k -= k & (-k)
            k = gstart[i] - 1
            while k > 0:
                acc -= tree[k]
                k -= k & (-k)
            total += w[i] * acc
        for t in range(a, e):
            i = order[t]
            k = yrank[i]
            while k <= n_ranks:
                tree[k] += w[i]
                k += k & (-k)
    return total


@njit(cache=True, inline="always")
def _bucket(s, lo, scale, n_buckets):
    if scale == 0.0:  # one bucket; also avoids inf * 0 when s - lo overflows
        return 0
    b = int((s - lo) * scale)
    return b if b < n_buckets else n_buckets - 1


@njit(cache=True)
def _sort_with(v, lab):
    """Sort ``v`` ascending in place, moving ``lab`` along (order of ties: any).

    Insertion sort for short runs (a bucket holds about 8 values), heapsort
    beyond (O(m log m) in the worst case). Written out instead of ``np.argsort``:
    numba's generic sort took half of the first run's compile time.
    """
    m = v.shape[0]
    if m <= 16:
        for i in range(1, m):
            x = v[i]
            lx = lab[i]
            j = i - 1
            while j >= 0 and v[j] > x:
                v[j + 1] = v[j]
                lab[j + 1] = lab[j]
                j -= 1
            v[j + 1] = x
            lab[j + 1] = lx
        return
    for start in range(m // 2 - 1, -1, -1):
        _sift_down(v, lab, start, m)
    for end in range(m - 1, 0, -1):
        v[0], v[end] = v[end], v[0]
        lab[0], lab[end] = lab[end], lab[0]
        _sift_down(v, lab, 0, end)


@njit(cache=True)
def _sift_down(v, lab, root, end):
    while True:
        child = 2 * root + 1
        if child >= end:
            return
        if child + 1 < end and v[child + 1] > v[child]:
            child += 1
        if v[root] >= v[child]:
            return
        v[root], v[child] = v[child], v[root]
        lab[root], lab[child] = lab[child], lab[root]
        root = child


@njit(cache=True)
def best_cut_buckets(scores, y):
    """Best-accuracy cut in O(N) expected time: buckets, then exact work in a few of them.

    Predicting positive for ``score > t``, the number right is
    ``#(positives > t) + #(negatives <= t)``; it changes only at data values u
    (cut just above u), and among equally good cuts the highest is kept.
    Returns ``(threshold, n_correct)``, the threshold halfway between the
    chosen u and the next larger score (``min - 1`` when every row is best
    predicted positive, ``max + 1`` when u is the largest score).

    Scores go to ``K ~ N / 8`` equal-width buckets (a monotone map, so a cut
    between buckets is a cut between values). With ``A_b`` the count right at
    the cut just below bucket b, any cut inside b scores at most
    ``A_b + (negatives in b)``; only buckets whose bound reaches the best
    bucket-boundary count can hold the optimum (or a tie above it), and only
    their members are sorted. Finite scores required.
    """
    n = scores.shape[0]
    lo = np.inf
    hi = -np.inf
    n_pos = 0
    for i in range(n):
        v = scores[i]
        if v < lo:
            lo = v
        if v > hi:
            hi = v
        if y[i]:
            n_pos += 1
    n_buckets = max(1, min(n // 8, 1 << 20))
    span = hi - lo
    scale = n_buckets / span if (span > 0.0 and np.isfinite(span)) else 0.0
    if not np.isfinite(scale):  # a subnormal span: one bucket (then it is a plain sort)
        scale = 0.0
    cnt_p = np.zeros(n_buckets, dtype=np.int64)
    cnt_n = np.zeros(n_buckets, dtype=np.int64)
    for i in range(n):
        b = _bucket(scores[i], lo, scale, n_buckets)
        if y[i]:
            cnt_p[b] += 1
        else:
            cnt_n[b] += 1
    # A[b]: right at the cut just below bucket b (negatives below it + positives from b up)
    A = np.empty(n_buckets, dtype=np.int64)
    neg_below = 0
    pos_from = n_pos
    best_edge = n_pos  # the cut below everything: all predicted positive
    for b in range(n_buckets):
        A[b] = neg_below + pos_from
        neg_below += cnt_n[b]
        pos_from -= cnt_p[b]
        if cnt_p[b] + cnt_n[b] > 0 and neg_below + pos_from > best_edge:
            best_edge = neg_below + pos_from  # the cut at the bucket's largest value
    # members of the candidate buckets, grouped by bucket
    start = np.zeros(n_buckets + 1, dtype=np.int64)
    for b in range(n_buckets):
        keep = cnt_p[b] + cnt_n[b] > 0 and A[b] + cnt_n[b] >= best_edge
        start[b + 1] = start[b] + (cnt_p[b] + cnt_n[b] if keep else 0)
    fill = start[:-1].copy()
    vals = np.empty(start[n_buckets])
    labs = np.empty(start[n_buckets], dtype=np.bool_)
    for i in range(n):
        b = _bucket(scores[i], lo, scale, n_buckets)
        if start[b + 1] > start[b]:
            vals[fill[b]] = scores[i]
            labs[fill[b]] = y[i] != 0
            fill[b] += 1
    best = n_pos
    best_u = 0.0
    have_u = False
    for b in range(n_buckets):  # ascending buckets and values: '>=' keeps the highest tie
        s0, s1 = start[b], start[b + 1]
        if s1 == s0:
            continue
        seg = vals[s0:s1]
        lab = labs[s0:s1]
        _sort_with(seg, lab)
        c = A[b]
        k = 0
        while k < s1 - s0:
            u = seg[k]
            while k < s1 - s0 and seg[k] == u:
                c += -1 if lab[k] else 1
                k += 1
            if c >= best:
                best = c
                best_u = u
                have_u = True
    if not have_u:
        return lo - 1.0, best
    nxt = np.inf
    for i in range(n):
        if best_u < scores[i] < nxt:
            nxt = scores[i]
    if nxt == np.inf:
        return best_u + 1.0, best
    return 0.5 * (best_u + nxt), best
