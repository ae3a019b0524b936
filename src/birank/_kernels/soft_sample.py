"""Soft active sampling (shen-lin Algorithm 2) as one compiled loop per round.

The joint set D* is numbered as in ``birank.pairs.UnionPairs``: ids
``[0, n_pair)`` are the (positive, negative) pairs ``(pos[i // n_neg],
neg[i % n_neg])``, ids ``n_pair + k`` the pseudo-pairs of point ``k``:
``(k, -1)`` when it is positive, ``(-1, k)`` when negative. The margin of an
item is ``s_a - s_b`` with ``s_r = w . x_r + intercept`` and the origin scored 0
(the intercept, ``-theta`` of CRC-threshold, cancels in real pairs).

Only the rows of drawn candidates are scored, so a round costs O(draws), not
O(n_samples): late in training soft-correct rejects many draws per accepted
item, and each of them is a few dozen flops here.

The kernels take the rows argument of :mod:`.sparse_rows` (dense, CSR, or CSR of
0/1 values without them) and split it once (:func:`.sparse_rows.split_rows`), so
that the scoring reads the rows in a loop of its own layout instead of through
the layout-dispatched :func:`.sparse_rows.row_dot_w`. ``ActiveRankSVM`` passes a
CSR X of 0/1 values without them (checked once per fit, when X is small against
the budget: ``INDICATOR_ROWS_PER_BUDGET``), so the values are not read.
``benchmarks/bench_soft_sample.py`` replays the sampling rounds of a fit: 0.59-0.75x
the time of the loop before on a9a and w8a, the same draws bit for bit.
"""

import numpy as np
from numba import njit

from .id_set import new_table, slot
from .sparse_rows import rng_init, rng_next, rng_uniform, split_row_dot, split_rows

#: strategy codes of :func:`accept_p`
RANDOM, SOFT_CLOSE, SOFT_CORRECT, SOFT_HYBRID = 0, 1, 2, 3


@njit(cache=True, inline="always")
def accept_p(m, code):
    """Acceptance probability of an item with margin ``m`` (shen-lin section 3.3).

    soft-close ``2 / (1 + exp(|m|))`` and soft-correct ``1 - 2 / (1 + exp([1 - m]_+))``
    are evaluated as ``1 - tanh(|m| / 2)`` and ``tanh([1 - m]_+ / 2)``: the same
    functions, but without overflow of ``exp`` for large margins.
    """
    if code == SOFT_CLOSE:
        return 1.0 - np.tanh(0.5 * abs(m))  # shen-lin eq. (3) through the sigmoid of 3.3
    if code == SOFT_CORRECT:
        h = 1.0 - m
        return np.tanh(0.5 * h) if h > 0.0 else 0.0  # shen-lin eq. (4)
    if code == SOFT_HYBRID:
        # the product of the two: a violated pair (m < 1) is wanted as soft-correct
        # wants it, but one far on the wrong side (large |m|, likely a noisy pair,
        # shen-lin section 5: "combining the benefits ... to be more noise-tolerant")
        # is rejected as soft-close rejects it
        h = 1.0 - m
        return (1.0 - np.tanh(0.5 * abs(m))) * np.tanh(0.5 * h) if h > 0.0 else 0.0
    return 1.0


@njit(cache=True)
def accept_p_array(margins, code):
    """:func:`accept_p` of each margin."""
    out = np.empty(margins.shape[0])
    for k in range(margins.shape[0]):
        out[k] = accept_p(margins[k], code)
    return out


@njit(cache=True, inline="always")
def _score(dense, data, indices, indptr, w, intercept, r):
    """``w . x_r + intercept``, 0 for the origin ``r = -1``; the rows split as
    :func:`.sparse_rows.split_rows` gives them."""
    if r < 0:
        return 0.0
    return split_row_dot(dense, data, indices, indptr, w, r) + intercept


@njit(cache=True, inline="always")
def _rows_of(item, pos, neg, y01, n_pair):
    """``(a, b)`` of a D* item."""
    if item < n_pair:
        n_neg = neg.shape[0]
        return pos[item // n_neg], neg[item % n_neg]
    k = item - n_pair
    if y01[k]:
        return k, -1
    return -1, k


@njit(cache=True)
def item_margins(X, w, intercept, pos, neg, y01, n_pair, items):
    """``w . z`` of each item (scores only the rows the items use)."""
    dense, data, indices, indptr = split_rows(X)
    return _item_margins(dense, data, indices, indptr, w, intercept, pos, neg, y01, n_pair,
                         items)


@njit(cache=True)
def _item_margins(dense, data, indices, indptr, w, intercept, pos, neg, y01, n_pair, items):
    out = np.empty(items.shape[0])
    for t in range(items.shape[0]):
        a, b = _rows_of(items[t], pos, neg, y01, n_pair)
        out[t] = (_score(dense, data, indices, indptr, w, intercept, a)
                  - _score(dense, data, indices, indptr, w, intercept, b))
    return out


@njit(cache=True, inline="always")
def _rand_below(state, n):
    """Uniform int in ``[0, n)`` for ``0 < n <= 2**62``: 62 random bits, rejection for exactness."""
    limit = (1 << 62) - ((1 << 62) % n)
    while True:
        r = ((rng_next(state) & 0x3FFFFFFF) << 32) | rng_next(state)
        if r < limit:
            return r % n


#: candidates scored together: their row reads overlap in the memory system
_BLOCK = 32


@njit(cache=True)
def soft_sample(X, w, intercept, pos, neg, y01, n_pair, lo, hi, gamma, code, chosen,
                need, max_draws, seed):
    """Algorithm 2 of shen-lin, repeated until ``need`` items are accepted.

    Candidates are drawn uniformly from ids ``[lo, hi)``; a chosen one (in the
    id set ``chosen`` of :mod:`.id_set`) or one accepted earlier in this
    round is redrawn, as U* excludes it; any other is accepted with
    probability ``Gamma * p`` (Gamma = ``gamma`` for real pairs, ``1 - gamma``
    for pseudo-pairs, p from :func:`accept_p`) and otherwise counted as a
    rejection (shen-lin Fig. 6).

    Candidates are drawn and scored in blocks of ``_BLOCK`` before they are
    tested one by one: the same sequence of decisions, but the row reads of a
    block are independent, so their cache misses overlap instead of waiting
    behind each acceptance branch. At most one block's scores go unused.

    Returns
    -------
    ids, p : arrays of the accepted items and their p (without Gamma)
    n_rejected, n_drawn : int
        Rejected candidates of U*, and all candidates of U* tested.
    exhausted : bool
        ``max_draws`` draws (redraws included) were made before ``need`` were
        accepted.
    """
    dense, data, indices, indptr = split_rows(X)
    return _soft_sample(dense, data, indices, indptr, w, intercept, pos, neg, y01, n_pair, lo,
                        hi, gamma, code, chosen, need, max_draws, seed)


@njit(cache=True)
def _soft_sample(dense, data, indices, indptr, w, intercept, pos, neg, y01, n_pair, lo, hi,
                 gamma, code, chosen, need, max_draws, seed):
    state = rng_init(seed)
    ids = np.empty(need, dtype=np.int64)
    ps = np.empty(need)
    accepted = new_table(need)  # accepted this round
    cand = np.empty(_BLOCK, dtype=np.int64)
    marg = np.empty(_BLOCK)
    n = hi - lo
    got = 0
    n_rej = 0
    n_drawn = 0
    attempts = 0
    while got < need:
        k = 0
        while k < _BLOCK and attempts < max_draws:
            attempts += 1
            item = lo + _rand_below(state, n)
            if chosen[slot(chosen, item)] != item:
                cand[k] = item
                k += 1
        if k == 0:
            return ids[:got], ps[:got], n_rej, n_drawn, True
        for t in range(k):
            a, b = _rows_of(cand[t], pos, neg, y01, n_pair)
            marg[t] = (_score(dense, data, indices, indptr, w, intercept, a)
                       - _score(dense, data, indices, indptr, w, intercept, b))
        for t in range(k):
            item = cand[t]
            h = slot(accepted, item)
            if accepted[h] == item:
                continue
            n_drawn += 1
            p = accept_p(marg[t], code)
            big_gamma = gamma if item < n_pair else 1.0 - gamma
            if rng_uniform(state) < big_gamma * p:
                accepted[h] = item
                ids[got] = item
                ps[got] = p
                got += 1
                if got == need:
                    break
            else:
                n_rej += 1
    return ids, ps, n_rej, n_drawn, False


@njit(cache=True)
def soft_sample_listed(weight, need, max_draws, seed):
    """Algorithm 2 over an explicit list of unchosen items with acceptance ``weight``.

    Used when few items remain (drawing ids of D* would mostly hit chosen
    ones). Returns the positions accepted, the rejections, the candidates
    tried, and whether ``max_draws`` stopped it first.
    """
    state = rng_init(seed)
    n = weight.shape[0]
    taken = np.zeros(n, dtype=np.bool_)
    out = np.empty(need, dtype=np.int64)
    got = 0
    n_rej = 0
    n_drawn = 0
    while got < need:
        if n_drawn >= max_draws:
            return out[:got], n_rej, n_drawn, True
        k = _rand_below(state, n)
        if taken[k]:
            continue  # accepted earlier this round: not in U*
        n_drawn += 1
        if rng_uniform(state) < weight[k]:
            taken[k] = True
            out[got] = k
            got += 1
        else:
            n_rej += 1
    return out, n_rej, n_drawn, False


@njit(cache=True)
def item_rows(items, pos, neg, y01, n_pair):
    """``(a, b)`` row indices of D* items (``-1`` = origin)."""
    a = np.empty(items.shape[0], dtype=np.int64)
    b = np.empty(items.shape[0], dtype=np.int64)
    for t in range(items.shape[0]):
        a[t], b[t] = _rows_of(items[t], pos, neg, y01, n_pair)
    return a, b
