"""Numba kernels behind :mod:`birank.metrics` (sorted sweeps, Fenwick trees).

Every kernel receives arrays already sorted / ranked by the numpy driver in
``birank/metrics.py`` and trusts them.
"""

import numpy as np
from numba import njit


@njit(cache=True)
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


@njit(cache=True)
def average_precision_per_query(rel, q_start, blocks):
    """AP of each query; rows sorted by (query, score descending).

    ``q_start`` (n_queries + 1) delimits queries; ``blocks`` (sorted, ending in
    n) delimits runs of equal score inside a query (every query start is also a
    block start). Tied rows enter the ranking together (as in
    ``sklearn.metrics.average_precision_score``): after each block, AP gains
    (relevant in block / R) * (relevant so far / rows so far). A query with no
    relevant row gets NaN.
    """
    n_q = q_start.shape[0] - 1
    out = np.empty(n_q)
    b = 0
    for q in range(n_q):
        a = q_start[q]
        e = q_start[q + 1]
        n_rel = 0
        for t in range(a, e):
            n_rel += rel[t]
        if n_rel == 0:
            out[q] = np.nan
            while blocks[b] < e:
                b += 1
            continue
        tp = 0
        ap = 0.0
        while blocks[b] < e:
            bs = blocks[b]
            be = blocks[b + 1]
            tp_block = 0
            for t in range(bs, be):
                tp_block += rel[t]
            tp += tp_block
            if tp_block > 0:
                ap += (tp_block / n_rel) * (tp / (be - a))
            b += 1
        out[q] = ap
    return out


@njit(cache=True)
def ndcg_per_query(gain_by_score, gain_ideal, q_start, blocks, cum_discount):
    """NDCG of each query with tie-averaged gains.

    ``gain_by_score``: gains with rows sorted by (query, score descending);
    ``gain_ideal``: gains sorted by (query, gain descending); ``cum_discount[p]``
    is the sum of the (cut-off) discounts of positions 0..p-1. A tie block over
    positions [a, b) contributes mean(gain) * sum of the discounts of [a, b),
    which is the expected DCG over every order of the tied rows. A query with
    ideal DCG 0 gets NaN.
    """
    n_q = q_start.shape[0] - 1
    out = np.empty(n_q)
    b = 0
    for q in range(n_q):
        a = q_start[q]
        e = q_start[q + 1]
        idcg = 0.0
        for t in range(a, e):
            p = t - a
            idcg += gain_ideal[t] * (cum_discount[p + 1] - cum_discount[p])
        dcg = 0.0
        while blocks[b] < e:
            bs = blocks[b]
            be = blocks[b + 1]
            g = 0.0
            for t in range(bs, be):
                g += gain_by_score[t]
            dcg += g / (be - bs) * (cum_discount[be - a] - cum_discount[bs - a])
            b += 1
        out[q] = dcg / idcg if idcg > 0 else np.nan
    return out


@njit(cache=True)
def best_cut_sorted(sp, sn):
    """Best-accuracy cut from the ascending scores of the positives and negatives.

    Predicting positive for ``score > t``, the number right is
    ``#(sp > t) + #(sn <= t)``; it only changes at data values, so one merge of
    the two sorted arrays visits every candidate. Among equally good cuts the
    highest is kept. Returns ``(threshold, n_correct)``; the threshold lies
    halfway between the chosen value and the next larger one.
    """
    n_pos, n_neg = sp.shape[0], sn.shape[0]
    best = n_pos  # t below every score: all predicted positive
    have_u = False
    best_u = 0.0
    i = 0
    j = 0
    while i < n_pos or j < n_neg:
        if j >= n_neg or (i < n_pos and sp[i] <= sn[j]):
            u = sp[i]
        else:
            u = sn[j]
        while i < n_pos and sp[i] <= u:
            i += 1
        while j < n_neg and sn[j] <= u:
            j += 1
        correct = (n_pos - i) + j
        if correct >= best:
            best = correct
            best_u = u
            have_u = True
    if not have_u:
        lo = np.inf
        if n_pos:
            lo = sp[0]
        if n_neg and sn[0] < lo:
            lo = sn[0]
        return lo - 1.0, best
    # next distinct value above best_u
    nxt = np.inf
    k = np.searchsorted(sp, best_u, side="right")
    if k < n_pos:
        nxt = sp[k]
    k = np.searchsorted(sn, best_u, side="right")
    if k < n_neg and sn[k] < nxt:
        nxt = sn[k]
    if nxt == np.inf:
        return best_u + 1.0, best
    return 0.5 * (best_u + nxt), best
