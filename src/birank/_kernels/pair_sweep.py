"""All-pairs RankSVM loss, gradient and Hessian-vector product by sorted sweeps.

The pairs are (i, j) with ``y_i > y_j`` inside one group (segment); a pair has
weight ``w_i * w_j`` (sample weights) and margin ``d = s_i - s_j`` where
``s = X @ w``. A pair is *active* when ``s_j > s_i - 1.0`` (i.e. ``1 - d > 0``; the
margin 1 is the parameter ``theta`` of :func:`sweep_loss_grad`,
evaluated exactly in this form everywhere, so every sweep and the brute-force
oracle agree on the active set even for ties).

Per segment ``[a, b)`` of ``order`` (rows of one group, ascending score):

* pass "hi" walks rows i by descending score; a pointer inserts every row j
  with ``s_j > s_i - 1``; the inserted rows with a lower label give the
  weighted count W, sum S1 and sum of squares S2 of the active lower partners
  of i. Loss of i: ``w_i * (W a^2 + 2 a S1 + S2)`` with ``a = 1 - s_i``.
* pass "lo" walks rows j by ascending score, inserting every k with
  ``s_k - 1 < s_j``; the inserted rows with a higher label give the active
  higher partners of j.

With two labels "lower" is one class: suffix and prefix sums in score order
(Chapelle & Keerthi 2010). With K > 2 labels Lee & Lin (2014, "Large-scale
linear RankSVM") keep the inserted rows in an order-statistic tree over label
ranks, O(log K) random accesses per row. Here, up to 2^17 labels, the label
rank is one digit and a Fenwick tree over it stays in the caches: one level,
the two-pass sweep above. With more labels the ranks are split into digits of
at most 10 bits and each pair is counted at the first digit where its labels
differ, inside the group of rows sharing the higher digits; every level is
the two-pass sweep with a small Fenwick tree over the digit values, on rows
kept in score order by a stable counting sort per level
(:func:`_radix_levels`): ``ceil(log2(K) / 10)`` levels, the row arrays read
sequentially.

The pointer positions and label masks (two labels) or each level's row order,
digits and pointer positions (more labels, the ``levels`` cache) are kept so
the Hessian-vector product (generalized Hessian with the active set fixed at
the current w) replays the same sweep with ``u = X v`` in place of the scores,
over the same active pairs.

``loss_kind``: a code of :mod:`.losses`, ``SQUARED_HINGE`` or ``HINGE`` (for the
hinge the coefficients are weighted counts, as in the 1-slack cutting plane of
Joachims 2006).

Positions, row ids and tree nodes computed at run time are read as unsigned
(``np.uint64``) throughout: numba then adds no negative-index test to the access
(a third of the two-label sweep's time; the many-label loss sweep took 0.79-0.87x
at 10^6 real-valued rows, and ``benchmarks/bench_limit.py``'s ratios fell by 8-10%:
docs/results/solvers.md). A variable holds one kind or the other, never both:
numba would unify int64 and uint64 to float64.
"""

import numpy as np
from numba import njit

from .index import index_dtype
from .losses import SQUARED_HINGE

__all__ = [
    "sweep_loss_grad",
    "sweep_hess_vec",
    "sweep_loss_grad_binary",
    "sweep_hess_vec_binary",
    "count_pairs",
    "level_cache",
    "binary_signed_weights",
    "two_label_diag_rows",
    "WORK_ROWS",
]


@njit(cache=True, inline="always")
def _upper_row(loss_kind, i, wi, W, S1, S2, ai, grad_s, diag):
    """Upper-label row i against its active lower partners j; returns its loss.

    With ``a_i = theta - s_i`` and the partners' weight sums ``W = sum w_j``,
    ``S1 = sum w_j s_j``, ``S2 = sum w_j s_j^2``: squared hinge
    ``sum_j w_j (a_i + s_j)^2 = W a^2 + 2 a S1 + S2`` (DESIGN math notes),
    hinge ``W a + S1``; its score gradient and Hessian diagonal are added.
    """
    if loss_kind == SQUARED_HINGE:
        grad_s[i] -= 2.0 * wi * (W * ai + S1)
        diag[i] += 2.0 * wi * W
        return wi * (W * ai * ai + 2.0 * ai * S1 + S2)
    grad_s[i] -= wi * W
    diag[i] += wi * W
    return wi * (W * ai + S1)


@njit(cache=True, inline="always")
def _lower_row(loss_kind, j, wj, W, S1, bj, grad_s, diag):
    """Lower-label row j (``b_j = theta + s_j``) against its active upper partners k.

    Only the gradient side (the loss was counted from the upper rows):
    ``d/ds_j sum_k w_k w_j (theta - s_k + s_j)^2 = 2 w_j (W b_j - S1)`` with
    ``W = sum w_k``, ``S1 = sum w_k s_k``; hinge ``w_j W``.
    """
    if loss_kind == SQUARED_HINGE:
        grad_s[j] += 2.0 * wj * (W * bj - S1)
        diag[j] += 2.0 * wj * W
    else:
        grad_s[j] += wj * W
        diag[j] += wj * W


@njit(cache=True, inline="always")
def two_label_upper(sq, wi, W, S1, S2, ai):
    """Upper-label row of a two-label sweep (``wi > 0``, partners' sums W, S1, S2,
    ``ai = theta - s_i``): ``(score gradient, loss, diagonal)``."""
    if sq:
        return (-2.0 * wi * (W * ai + S1), wi * (W * ai * ai + 2.0 * ai * S1 + S2),
                2.0 * wi * W)
    return -wi * W, wi * (W * ai + S1), wi * W


@njit(cache=True, inline="always")
def two_label_lower(sq, wj, W, S1, bj):
    """Lower-label row (``wj >= 0``, upper partners' sums W, S1, ``bj = theta + s_j``):
    ``(score gradient, diagonal)``, both 0 for a zero weight."""
    if wj > 0.0:
        if sq:
            return 2.0 * wj * (W * bj - S1), 2.0 * wj * W
        return wj * W, wj * W
    return 0.0, 0.0


@njit(cache=True, inline="always")
def add_lower(mw, ss, p, W, S1, S2):
    """The running sums of lower-label rows (weight ``-mw`` where negative) with row p."""
    a = max(-mw[p], 0.0)
    x = ss[p]
    return W + a, S1 + a * x, S2 + a * x * x


@njit(cache=True, inline="always")
def upper_pass(ss, mw, t0, t1, ptr, W, S1, S2, theta, sq, gs, ds, hi, base):
    """Upper-label rows at positions ``t1 - 1`` down to ``t0``, in sorted-order views:
    the pointer ``ptr`` (unsigned; the first position scoring above ``s_t - theta``)
    moves down, adding each lower row it passes to the running sums W, S1, S2.
    Writes ``hi[t] = base + ptr`` and, in sorted order, each upper row's score
    gradient (``gs``) and diagonal (``ds``; :func:`two_label_diag_rows` puts it in
    row order when asked); returns ``(loss, ptr, W, S1, S2)``."""
    one = np.uint64(1)
    loss = 0.0
    for r in range(t1 - t0):
        t = np.uint64(t1 - 1 - r)
        si = ss[t]
        thr = si - theta
        while ptr > 0 and ss[ptr - one] > thr:
            ptr -= one
            W, S1, S2 = add_lower(mw, ss, ptr, W, S1, S2)
        hi[t] = base + np.int64(ptr)
        wi = mw[t]
        if wi > 0.0:
            gs[t], li, ds[t] = two_label_upper(sq, wi, W, S1, S2, theta - si)
            loss += li
    return loss, ptr, W, S1, S2


@njit(cache=True, inline="always")
def lower_pass(ss, mw, rows, t0, t1, ptr, W, S1, theta, sq, gs, ds, lo, base, grad_s):
    """Lower-label rows at positions ``t0 .. t1 - 1``: the pointer (the first position
    whose score minus theta reaches ``s_t``) moves up, adding each upper row it passes
    to W, S1. Writes ``lo[t] = base + ptr``, the lower rows' ``gs`` and ``ds``; then
    every row's score gradient ``grad_s[rows[t]] = gs[t]``.

    The scatter by row id is a loop of its own: inside the pass, random stores
    made it 10-14% slower at 10^6 rows (scratch A/B, same bits)."""
    one = np.uint64(1)
    end = np.uint64(ss.shape[0])
    for r in range(t1 - t0):
        t = np.uint64(t0 + r)
        sj = ss[t]
        while ptr < end and not ss[ptr] - theta >= sj:
            wk = max(mw[ptr], 0.0)
            W += wk
            S1 += wk * ss[ptr]
            ptr += one
        lo[t] = base + np.int64(ptr)
        wj = -mw[t]
        if wj >= 0.0:  # (upper rows were written by the upper pass)
            gs[t], ds[t] = two_label_lower(sq, wj, W, S1, theta + sj)
    for r in range(t1 - t0):
        t = np.uint64(t0 + r)
        grad_s[np.uint64(rows[t])] = gs[t]


@njit(cache=True)
def _binary_loss_grad(s, order, a, b, bw, loss_kind, grad_s, ptr_hi, ptr_lo, work,
                      theta, scores_sorted):
    # Two labels: the label classes reduce to suffix sums over the lower label
    # (upper rows) and prefix sums over the upper label (lower rows) in score
    # order (Chapelle & Keerthi 2010). One gather into sorted order, then two
    # passes, each carrying its running sums along with its pointer instead of
    # storing them: the upper rows by descending score, the pointer "hi" moving
    # down and adding each lower row it passes (the same additions, in the same
    # order, as a suffix-sum array read at the pointer), and the lower rows by
    # ascending score with the pointer "lo" adding upper rows. Every row's
    # gradient is written once, in sorted order, then scattered by row in a loop of
    # its own (no zeroing pass); the diagonal only in sorted order
    # (the Hessian product reads it there; the preconditioner's row-order copy is
    # scattered once per Newton step by two_label_diag_rows, not at every loss
    # evaluation: a random write a row less, 14-18% of this sweep at 10^6 rows).
    # ``bw``: the row's weight, negated for the lower label (one gather instead
    # of label and weight). Loops run over views of the segment from 0 and
    # indices computed at run time are read as unsigned: numba then adds no
    # negative-index test (a third of this sweep's time).
    m = b - a
    mw = work[3, a:b]  # signed weight in sorted order (kept for the Hessian replay)
    ds = work[4, a:b]  # the diagonal in sorted order (kept for the Hessian replay)
    ss = work[5, a:b]  # scores in sorted order
    rows = order[a:b]
    hi = ptr_hi[a:b]
    lo = ptr_lo[a:b]
    sq = loss_kind == SQUARED_HINGE
    if not scores_sorted:
        for t in range(m):
            j = np.uint64(rows[t])
            ss[t] = s[j]
            mw[t] = bw[j]
    else:  # the sort left s[order] in ss
        for t in range(m):
            mw[t] = bw[np.uint64(rows[t])]
    # upper rows i against their active lower partners, the positions from "hi"
    # (first position with a score above s_i - theta) on; then lower rows j against
    # their active upper partners, the positions before "lo" (first position whose
    # score minus theta reaches s_j)
    gs = work[2, a:b]  # the score gradient in sorted order (scattered by lower_pass)
    loss = upper_pass(ss, mw, 0, m, np.uint64(m), 0.0, 0.0, 0.0, theta, sq, gs, ds, hi, a)[0]
    lower_pass(ss, mw, rows, 0, m, np.uint64(0), 0.0, 0.0, theta, sq, gs, ds, lo, a, grad_s)
    return loss


@njit(cache=True)
def _binary_hess_vec(u, order, a, b, ptr_hi, ptr_lo, out, work):
    # replay with u: the signed weights and the diagonal in sorted order were
    # stored by the loss sweep, so each row's entry of ``out`` is written once,
    # with no read of ``out`` or ``diag`` by row id (segment views from 0 and
    # unsigned computed indices, as there)
    m = b - a
    cu = work[0, a:b + 1]
    cl = work[1, a:b + 1]
    uo = work[2, a:b]
    mw = work[3, a:b]
    ds = work[4, a:b]
    rows = order[a:b]
    hi = ptr_hi[a:b]
    lo = ptr_lo[a:b]
    cl[0] = 0.0  # prefix sums over the upper rows, with the gather
    for t in range(m):
        x = u[np.uint64(rows[t])]
        uo[t] = x
        cl[t + 1] = cl[t] + max(mw[t], 0.0) * x
    cu[m] = 0.0  # suffix sums over the lower rows
    one = np.uint64(1)
    for r in range(m):
        t = np.uint64(m - 1 - r)
        cu[t] = cu[t + one] + max(-mw[t], 0.0) * uo[t]
    for t in range(m):
        mt = mw[t]
        out[np.uint64(rows[t])] = ds[t] * uo[t] - 2.0 * (
            max(mt, 0.0) * cu[np.uint64(hi[t] - a)] + max(-mt, 0.0) * cl[np.uint64(lo[t] - a)])


#: many-label segments: up to 2^ONE_LEVEL_MAX_BITS labels, the label rank is one
#: digit and the sweep has one level (its running sums, a Fenwick tree of up to
#: 2^17 rows of three columns, 3 MB, stay in the caches). Beyond, the ranks are
#: split into digits of at most MAX_DIGIT_BITS bits, one level of the sweep per
#: digit (most significant first), each with trees that stay in L1: 10^6 labels
#: take 2 levels of 10 bits. A level costs two pointer walks and, below the
#: first, a counting sort and a move of every row. benchmarks/bench_label_levels.py
#: at 10^6 rows, loss + gradient, one level / two: 0.64-0.91x from 2^11 to 2^17
#: labels, 0.91x at 2e5 labels, 0.95x at 3.4e5, then 1.64x at 5.2e5 and 2.40x at
#: 10^6 (``--one-level-max-bits 20``): the tree falls out of the caches. The cut
#: at 2^17 keeps a margin for machines with smaller caches.
#: With several levels the bits are spread evenly over them (:func:`_digit_bits`),
#: so a node of the last level holds on average at least as many rows as it has
#: digits (the labels are ranks of rows: K <= n), and resetting its sums is
#: O(rows).
MAX_DIGIT_BITS = 10
ONE_LEVEL_MAX_BITS = 17


@njit(cache=True)
def _digit_bits(k, n_levels):
    """``(levels, bits)`` for label ranks ``0 .. k-1`` in a level cache of ``n_levels``
    levels (:func:`level_cache`): ``levels * bits`` covers them. A cache of one level
    means every segment's ranks fit one digit; with more, a segment takes levels of
    at most ``MAX_DIGIT_BITS`` bits."""
    nb = 1
    while (1 << nb) < k:
        nb += 1
    if n_levels <= 1:
        return 1, nb
    L = (nb + MAX_DIGIT_BITS - 1) // MAX_DIGIT_BITS
    return L, (nb + L - 1) // L


@njit(cache=True, inline="always")
def _bit_length(k):
    """Number of bits of the non-negative integer k (0 for 0)."""
    nb = 0
    while (1 << nb) <= k:
        nb += 1
    return nb


# The walks over the trees of the digit levels run ``head`` steps unconditionally,
# then a loop that stops (:func:`_fen_head`). A walk's length depends on its digit,
# and a loop exiting on it mispredicts about once a walk; steps past the end cost a
# few instructions on cached slots instead. An insertion's steps past the last
# node land on spare slots after it (``size + 1 + k``, written, never read); a
# query's steps past node 0 add ``acc[0]``, which nothing writes, so the sums are
# the same bits as a walk that stops. A tree of ``size`` digits is
# ``size + 1 + _bit_length(size)`` rows long.
#: unconditional steps of a Fenwick walk over digits of up to ``FEN_HEAD_MAX_BITS``
#: bits: about the mean walk (bits / 2) plus two standard deviations, so the loop
#: after them rarely runs. Over wider digits every walk stops where it ends: there
#: the tree spills out of L2 and the extra steps cost more than the misprediction.
#: ``benchmarks/bench_limit.py --heads`` (the loss sweep's two passes, as a fraction
#: of full-length walks): 10-bit digits at 10^6 rows head 8 0.84-0.87, none 1.06;
#: 17 bits at 10^5 rows head 8 0.66-0.75, none 0.61-0.70. The cut between 13 and
#: 14 bits is from a scratch A/B of pass "hi" on random digits (ms, full / 8 /
#: none): 13 bits 3.61 / 3.21 / 3.32, 14 bits 4.05 / 3.54 / 3.47 (10^5 rows).
FEN_HEAD_STEPS = 8
FEN_HEAD_MAX_BITS = 13


@njit(cache=True, inline="always")
def _fen_head(bits):
    """Unconditional steps of the Fenwick walks over ``bits``-bit digits (see above)."""
    return min(FEN_HEAD_STEPS, bits + 1) if bits <= FEN_HEAD_MAX_BITS else 0


@njit(cache=True, inline="always")
def _fen_add(acc, size, head, d, v):
    """Add v to the running sum of digit d of the Fenwick tree ``acc`` (1-based):
    ``head`` unconditional steps, then the rest (``acc`` has ``size + 1 + head`` rows
    or more: the steps past node ``size`` land on the rows after it)."""
    i = d + 1
    for k in range(head):
        acc[i if i <= size else size + 1 + k] += v
        i += i & -i
    while i <= size:
        acc[i] += v
        i += i & -i


@njit(cache=True, inline="always")
def _fen_below(acc, head, d):
    """Sum of the running sums of the digits below d (``d < size``): ``head``
    unconditional steps (past node 0 they add ``acc[0]``, kept 0), then the rest."""
    out = 0.0
    i = d
    for _ in range(head):
        out += acc[i]
        i -= i & -i
    while i > 0:
        out += acc[i]
        i -= i & -i
    return out


@njit(cache=True, inline="always")
def _fen_add3(acc, size, head, d, v0, v1, v2, three=True):
    """:func:`_fen_add` on a tree of three columns (``acc[:, c]``), one walk for all
    (``three=False``: the first two; pass "lo" keeps no sum of squares)."""
    i = d + 1
    for k in range(head):
        j = np.uint64(i if i <= size else size + 1 + k)
        acc[j, 0] += v0
        acc[j, 1] += v1
        if three:
            acc[j, 2] += v2
        i += i & -i
    while i <= size:
        j = np.uint64(i)
        acc[j, 0] += v0
        acc[j, 1] += v1
        if three:
            acc[j, 2] += v2
        i += i & -i


@njit(cache=True, inline="always")
def _fen_below3(acc, head, d, three=True):
    """:func:`_fen_below` of the three columns at once (``three=False``: the first
    two, the third returned as 0)."""
    o0 = 0.0
    o1 = 0.0
    o2 = 0.0
    i = d
    for _ in range(head):
        j = np.uint64(i)
        o0 += acc[j, 0]
        o1 += acc[j, 1]
        if three:
            o2 += acc[j, 2]
        i -= i & -i
    while i > 0:
        j = np.uint64(i)
        o0 += acc[j, 0]
        o1 += acc[j, 1]
        if three:
            o2 += acc[j, 2]
        i -= i & -i
    return o0, o1, o2


@njit(cache=True, inline="always")
def _fen_rows(size):
    """Rows of a Fenwick tree of ``size`` digits, spare slots included."""
    return size + 1 + _bit_length(size)


#: channels of the level cache the loss sweep leaves for the Hessian product
#: (``levels[level, channel, position]``): row id, label rank, position of the row
#: at the level above (levels >= 1), and the "hi" and "lo" pointer positions
LV_ROW, LV_LABEL, LV_SRC, LV_HI, LV_LO = 0, 1, 2, 3, 4
LV_CHANNELS = 5


@njit(cache=True, inline="always")
def _node_end(lab, p, stop, sh):
    """End of the node starting at position p: rows sharing the label bits above ``sh``."""
    node = lab[p] >> sh
    one = np.uint64(1)
    q = np.uint64(p + 1)
    end = np.uint64(stop)
    while q < end and (lab[q] >> sh) == node:
        q += one
    return np.int64(q)


@njit(cache=True, inline="always")
def _level_gather(t0, t1, rows, s, lab, sw, unit, scores_sorted, cs, cw, cg, cd, ci, cl):
    """Positions ``t0 .. t1-1`` of level 0 of :func:`_radix_levels` (``rows``: the
    segment's rows in score order): score, weight, row id and label; the gradient
    and diagonal zeroed."""
    for t in range(np.uint64(t0), np.uint64(t1)):
        r = rows[t]
        ur = np.uint64(r)
        if not scores_sorted:
            cs[t] = s[ur]
        ci[t] = r
        cl[t] = lab[ur]
        if not unit:
            cw[t] = sw[ur]
        cg[t] = 0.0
        cd[t] = 0.0


@njit(cache=True, inline="always")
def _loss_hi(p, q, cs, cw, cl, shift, bits, unit, theta, loss_kind, cg, cd, lv_hi, a, acc,
             head=-1):
    """Pass "hi" of :func:`_radix_levels` over the node ``p .. q-1``: rows by
    descending score against their active partners with a lower digit (Fenwick
    tree ``acc``, three columns); writes the pointers ``lv_hi[t] = a + ptr``, adds
    the upper rows' gradient and diagonal, returns the node's loss. ``head``: the
    walks' unconditional steps (default :func:`_fen_head`; ``benchmarks/
    bench_limit.py --heads`` times others)."""
    mask = (1 << bits) - 1
    head = _fen_head(bits) if head < 0 else head
    # a tree over the node's digits only: the insertions stop at its largest digit,
    # and the queries (below a digit of the node) read the same nodes, with the
    # same sums, as in a tree over all 2^bits (at 10^5 real-valued rows 10^5 of the
    # 2^17 digits occur: the loss sweep took 0.97-0.99x the time, scratch A/B in
    # one process). Pass "lo" keeps all 2^bits: its reversed digits would move.
    size = 0
    for t in range(p, q):
        size = max(size, ((cl[t] >> shift) & mask) + 1)
    acc[:size + 1, :] = 0.0  # (the spare slots after it are written, never read)
    loss = 0.0
    one = np.uint64(1)
    first = np.uint64(p)
    ptr = np.uint64(q)
    for r in range(q - p):
        t = np.uint64(q - 1 - r)
        thr = cs[t] - theta
        while ptr > first and cs[ptr - one] > thr:
            ptr -= one
            wj = 1.0 if unit else cw[ptr]
            sj = cs[ptr]
            _fen_add3(acc, size, head, (cl[ptr] >> shift) & mask, wj, wj * sj,
                      wj * sj * sj)
        lv_hi[t] = a + np.int64(ptr)
        di = (cl[t] >> shift) & mask
        if di == 0:
            continue
        W, S1, S2 = _fen_below3(acc, head, di)
        if W != 0.0:
            wi = 1.0 if unit else cw[t]
            loss += _upper_row(loss_kind, t, wi, W, S1, S2, theta - cs[t], cg, cd)
    return loss


@njit(cache=True, inline="always")
def _loss_lo(p, q, cs, cw, cl, shift, bits, unit, theta, loss_kind, cg, cd, lv_lo, a, acc,
             head=-1):
    """Pass "lo": rows by ascending score against their active partners with a higher
    digit (the tree indexed by the reversed digit ``mask - d``, so "digits above d"
    is again a prefix: no difference of two large sums); adds the lower rows'
    gradient and diagonal."""
    radix = 1 << bits
    mask = radix - 1
    head = _fen_head(bits) if head < 0 else head
    acc[:, :] = 0.0
    one = np.uint64(1)
    end = np.uint64(q)
    ptr = np.uint64(p)
    for t in range(np.uint64(p), end):
        sj = cs[t]
        while ptr < end and cs[ptr] - theta < sj:
            wk = 1.0 if unit else cw[ptr]
            _fen_add3(acc, radix, head, mask - ((cl[ptr] >> shift) & mask), wk,
                      wk * cs[ptr], 0.0, False)
            ptr += one
        lv_lo[t] = a + np.int64(ptr)
        dj = mask - ((cl[t] >> shift) & mask)
        if dj == 0:
            continue
        W, S1, _ = _fen_below3(acc, head, dj, False)
        if W != 0.0:
            wj = 1.0 if unit else cw[t]
            _lower_row(loss_kind, t, wj, W, S1, theta + sj, cg, cd)


@njit(cache=True, inline="always")
def _loss_node(p, q, cs, cw, cl, shift, bits, unit, theta, loss_kind, cg, cd, lv_hi, lv_lo, a,
               acc, head=-1):
    """Both passes of the node ``p .. q-1`` (:func:`_loss_hi`, then :func:`_loss_lo`, with
    the walks' ``head``); returns the node's loss."""
    loss = _loss_hi(p, q, cs, cw, cl, shift, bits, unit, theta, loss_kind, cg, cd, lv_hi, a,
                    acc, head)
    _loss_lo(p, q, cs, cw, cl, shift, bits, unit, theta, loss_kind, cg, cd, lv_lo, a, acc, head)
    return loss


@njit(cache=True, inline="always")
def _digit_counts(t0, t1, cl, shift, bits, cnt):
    """``cnt[e]`` = rows at positions ``t0 .. t1-1`` whose digit is e."""
    mask = (1 << bits) - 1
    cnt[:] = 0
    for t in range(np.uint64(t0), np.uint64(t1)):
        cnt[np.uint64((cl[t] >> shift) & mask)] += 1


@njit(cache=True, inline="always")
def _digit_starts(p, q, cl, shift, bits, cnt):
    """``cnt[e]``: where the node ``p .. q-1``'s rows of digit e start at the next
    level (a stable counting sort by digit within the node)."""
    _digit_counts(p, q, cl, shift, bits, cnt)
    start = p
    for e in range(1 << bits):
        c = cnt[e]
        cnt[e] = start
        start += c


@njit(cache=True, inline="always")
def _split_rows(t0, t1, cl, shift, bits, unit, cnt, cs, cw, cg, cd, ci, ns, nw, ng, nd, ni, nl,
                lv_src, a):
    """Rows at positions ``t0 .. t1-1`` to their places at the next level (``cnt[e]``:
    the next place of digit e, advanced), with everything they carry; ``lv_src``
    keeps where each came from (``a +`` its position)."""
    mask = (1 << bits) - 1
    for t in range(np.uint64(t0), np.uint64(t1)):
        e = np.uint64((cl[t] >> shift) & mask)
        dst = cnt[e]
        cnt[e] = dst + 1
        ud = np.uint64(dst)
        lv_src[ud] = a + np.int64(t)
        ns[ud] = cs[t]
        ni[ud] = ci[t]
        nl[ud] = cl[t]
        if not unit:
            nw[ud] = cw[t]
        ng[ud] = cg[t]
        nd[ud] = cd[t]


@njit(cache=True, inline="always")
def _split_node(p, q, cl, shift, bits, unit, cnt, cs, cw, cg, cd, ci, ns, nw, ng, nd, ni, nl,
                lv_src, a):
    """The node ``p .. q-1``'s rows to the next level: a stable counting sort by digit
    (``cnt``: ``2^bits`` entries of scratch)."""
    _digit_starts(p, q, cl, shift, bits, cnt)
    _split_rows(p, q, cl, shift, bits, unit, cnt, cs, cw, cg, cd, ci, ns, nw, ng, nd, ni, nl,
                lv_src, a)


@njit(cache=True, inline="always")
def _level_scatter(t0, t1, ci, cg, cd, grad_s, diag):
    """Each row's gradient and diagonal to its row id (assigned: the caller does not
    zero them)."""
    for t in range(np.uint64(t0), np.uint64(t1)):
        r = np.uint64(ci[t])
        grad_s[r] = cg[t]
        diag[r] = cd[t]


@njit(cache=True)
def _radix_levels(order, a, b, s, lab, nlab, sw, unit, theta, loss_kind, grad_s, diag, work,
                  levels, scores_sorted):
    """All pairs of a many-label segment by label digits, in sequential passes.

    Two rows with ``lab_i > lab_j`` have label ranks whose digits (``bits``
    bits each, :func:`_digit_bits`) agree down to some level and then differ,
    with i's digit the larger: the pair is counted at that level, inside the
    *node* of rows sharing the higher digits. Each level keeps every node's
    rows contiguous and in score order (level 0 is ``order[a:b]``; the next
    level is a stable counting sort of each node by its digit), so the
    per-node work is the two-label sweep with ``2^bits`` digit classes: a
    pointer walk in score order inserts the active partners into a Fenwick
    tree of running sums over the digits, and row i reads the sum over the
    digits below (pass "hi") or above (pass "lo") its own. The row arrays
    are read sequentially (an order-statistic tree over label ranks jumps
    across the whole label range at every step); the cost is
    ``O(n bits + 2^bits)`` per node level, with one level up to
    ``2^ONE_LEVEL_MAX_BITS`` labels and ``L = ceil(log2(K) / 10)`` levels for
    more (``levels.shape[0]``, chosen by :func:`level_cache`).

    Adds the loss's score gradient and diagonal (squared hinge or hinge, as
    :func:`sweep_loss_grad`) and returns the loss. Leaves in
    ``levels[:, :, a:b]`` each level's row order, labels and pointer
    positions, so that the Hessian product replays the same active pairs
    without comparing scores or sorting again.

    ``unit``: every weight is 1 (``sw`` is not read). The weights are then not
    gathered nor carried from level to level (7% of the sweep at 10^6 rows);
    multiplying by 1.0 is exact, so the result is the same bit for bit.

    ``scores_sorted``: ``work[5, a:b]`` already holds ``s[order[a:b]]`` (the sort
    wrote it): one random read a row fewer.

    The loss is summed per node (from 0), the nodes' sums in position order, so
    that :class:`birank.solvers.level_threads.LevelSweeps` gets the same bits
    with the nodes on threads.
    """
    m = b - a
    # level arrays, carried along with the rows so that no level gathers by row id:
    # score, weight, the row's accumulated score gradient and diagonal (rows of
    # ``work``, swapped between levels), row id and label rank (kept per level in
    # ``levels``); all views of positions a..b-1
    cs, ns = work[5, a:b], work[6, a:b]
    cw, nw = work[0, a:b], work[1, a:b]
    cg, ng = work[2, a:b], work[3, a:b]
    cd, nd = work[4, a:b], work[7, a:b]
    _level_gather(0, m, order[a:b], s, lab, sw, unit, scores_sorted, cs, cw, cg, cd,
                  levels[0, LV_ROW, a:b], levels[0, LV_LABEL, a:b])
    L, bits = _digit_bits(nlab, levels.shape[0])
    radix = 1 << bits
    acc = np.empty((_fen_rows(radix), 3))  # Fenwick tree over the digits (passes zero it)
    cnt = np.zeros(radix if L > 1 else 0, dtype=np.int64)  # the counting sorts' scratch
    loss = 0.0
    for level in range(L):
        shift = bits * (L - 1 - level)
        ci = levels[level, LV_ROW, a:b]
        cl = levels[level, LV_LABEL, a:b]
        lv_hi = levels[level, LV_HI, a:b]
        lv_lo = levels[level, LV_LO, a:b]
        p = 0
        while p < m:
            q = _node_end(cl, p, m, shift + bits)
            if q - p > 1:
                loss += _loss_node(p, q, cs, cw, cl, shift, bits, unit, theta, loss_kind, cg,
                                   cd, lv_hi, lv_lo, a, acc)
            if level < L - 1:  # this node's children at the next level
                _split_node(p, q, cl, shift, bits, unit, cnt, cs, cw, cg, cd, ci, ns, nw, ng,
                            nd, levels[level + 1, LV_ROW, a:b],
                            levels[level + 1, LV_LABEL, a:b], levels[level + 1, LV_SRC, a:b], a)
            p = q
        if level < L - 1:
            cs, ns = ns, cs
            cw, nw = nw, cw
            cg, ng = ng, cg
            cd, nd = nd, cd
    _level_scatter(0, m, levels[L - 1, LV_ROW, a:b], cg, cd, grad_s, diag)
    return loss


@njit(cache=True, inline="always")
def _pa_rows(bits):
    """Entries of the two-tier prefix sums over ``2^bits`` keys (:func:`_pa_add`)."""
    return (1 << (bits // 2)) + (1 << bits)


@njit(cache=True, inline="always")
def _pa_add(acc, bits, key, v, at=0):
    """Add v to key ``key`` of the two-tier prefix sums ``acc[at:]`` over ``2^bits`` keys.

    A key is a block (its high ``bits // 2`` bits) and an offset (the low bits).
    ``acc[c]``, c < nh = ``2^(bits // 2)``, sums the keys of the blocks below c;
    ``acc[nh + k]`` the keys below k in k's block. So an insertion adds v to
    the entries above its block and above its offset (two runs of about
    ``2^(bits/2)`` entries, with no carried dependence: vector adds), and
    :func:`_pa_below` reads two entries. The loops' trip counts are values at
    run time: LLVM then vectorizes them (with counts it can see, it unrolls
    them into scalar adds instead, numba's SLP vectorizer being off)."""
    lb = bits - bits // 2
    nh = 1 << (bits // 2)
    blk = key >> lb
    top = np.uint64(at)  # (unsigned: no negative-index test, so vectorized)
    for c in range(nh):
        acc[top + np.uint64(c)] += v if c > blk else 0.0
    base = top + np.uint64(nh + (blk << lb))
    off = key & ((1 << lb) - 1)
    for c in range(1 << lb):
        acc[base + np.uint64(c)] += v if c > off else 0.0


@njit(cache=True, inline="always")
def _pa_below(acc, bits, key, at=0):
    """Sum of the values added at the keys below ``key`` (:func:`_pa_add`)."""
    lb = bits - bits // 2
    return acc[np.uint64(at + (key >> lb))] + acc[np.uint64(at + (1 << (bits // 2)) + key)]


#: the Hessian replay keeps its running sums over a digit of up to PA_MAX_BITS bits
#: in one two-tier structure (:func:`_pa_add`); a wider digit (one level of up to
#: ONE_LEVEL_MAX_BITS bits) is cut into a high and a low part: two-tier sums over
#: the high part, and one two-tier structure over the low part per high value
#: (:func:`_acc_add`). An insertion then adds over four runs of at most 2^5
#: entries instead of two of up to 2^9, and a query reads four entries; at 17
#: bits the structures take 1.1 MB.
PA_MAX_BITS = 10


@njit(cache=True, inline="always")
def _pa_stride(bits):
    """:func:`_pa_rows` rounded up to whole 64-byte lines (8 entries)."""
    return (_pa_rows(bits) + 7) & ~7


@njit(cache=True, inline="always")
def _acc_rows(bits):
    """Entries of the replay's running sums over ``2^bits`` keys (:func:`_acc_add`)."""
    if bits <= PA_MAX_BITS:
        return _pa_rows(bits)
    lb = bits // 2
    return _pa_stride(bits - lb) + (_pa_stride(lb) << (bits - lb))


@njit(cache=True)
def _acc_empty(bits):
    """Room for :func:`_acc_rows` entries, 64-byte aligned: each insertion stores whole
    block rows with vector stores that the next one loads again, and a row split
    across cache lines made the insertions up to 1.8x slower (scratch, 10^6
    insertions and queries at 9 and 10 bits, by alignment)."""
    rows = _acc_rows(bits)
    raw = np.empty(rows + 8)
    skip = ((-raw.ctypes.data) % 64) // 8
    return raw[skip:skip + rows]


@njit(cache=True, inline="always")
def _acc_add(acc, bits, key, v):
    """Add v at ``key`` of the replay's running sums over ``2^bits`` keys: the two-tier
    sums up to ``PA_MAX_BITS`` bits; wider keys, the sums of the high part (the first
    ``_pa_stride(hb)`` entries) and those of the low part in the high value's block
    (each block 64-byte aligned; offsets into ``acc``, not views: 8% faster)."""
    if bits <= PA_MAX_BITS:
        _pa_add(acc, bits, key, v)
    else:
        lb = bits // 2
        hb = bits - lb
        h = key >> lb
        _pa_add(acc, hb, h, v)
        _pa_add(acc, lb, key & ((1 << lb) - 1), v, _pa_stride(hb) + h * _pa_stride(lb))


@njit(cache=True, inline="always")
def _acc_below(acc, bits, key):
    """Sum of the values added at the keys below ``key`` (:func:`_acc_add`)."""
    if bits <= PA_MAX_BITS:
        return _pa_below(acc, bits, key)
    lb = bits // 2
    hb = bits - lb
    h = key >> lb
    return _pa_below(acc, hb, h) + _pa_below(acc, lb, key & ((1 << lb) - 1),
                                             _pa_stride(hb) + h * _pa_stride(lb))


@njit(cache=True, inline="always")
def _replay_hi(p, q, lab, shift, mask, bits, lv_hi, val, tot, acc):
    """Pass "hi" of a digit level's node: ``tot[t]`` += the ``val`` of the active
    partners with a smaller digit (running sums ``acc``, :func:`_acc_add`)."""
    acc[:_acc_rows(bits)] = 0.0
    one = np.uint64(1)
    ptr = np.uint64(q)
    for r in range(q - p):
        t = np.uint64(q - 1 - r)
        stop = np.uint64(lv_hi[t])
        while ptr > stop:
            ptr -= one
            _acc_add(acc, bits, (lab[ptr] >> shift) & mask, val[ptr])
        tot[t] += _acc_below(acc, bits, (lab[t] >> shift) & mask)


@njit(cache=True, inline="always")
def _replay_lo(p, q, lab, shift, mask, bits, lv_lo, val, tot, acc):
    """Pass "lo": the active partners with a larger digit (keys ``mask - digit``)."""
    acc[:_acc_rows(bits)] = 0.0
    one = np.uint64(1)
    ptr = np.uint64(p)
    for t in range(np.uint64(p), np.uint64(q)):
        stop = np.uint64(lv_lo[t])
        while ptr < stop:
            _acc_add(acc, bits, mask - ((lab[ptr] >> shift) & mask), val[ptr])
            ptr += one
        tot[t] += _acc_below(acc, bits, mask - ((lab[t] >> shift) & mask))


@njit(cache=True, inline="always")
def _gather_wu(a, b, rows, u, sw, unit, val, tot):
    """``val[t] = w u`` of the row at position t (``unit``: w = 1, no gather), ``tot = 0``."""
    if unit:
        for t in range(np.uint64(a), np.uint64(b)):
            val[t] = u[np.uint64(rows[t])]
            tot[t] = 0.0
    else:
        for t in range(np.uint64(a), np.uint64(b)):
            r = np.uint64(rows[t])
            val[t] = sw[r] * u[r]
            tot[t] = 0.0


@njit(cache=True, inline="always")
def _scatter_wtot(a, b, rows, sw, unit, tot, out):
    """``out[row] -= 2 w tot`` for the row at each position (``unit``: w = 1)."""
    if unit:
        for t in range(np.uint64(a), np.uint64(b)):
            out[np.uint64(rows[t])] -= 2.0 * tot[t]
    else:
        for t in range(np.uint64(a), np.uint64(b)):
            r = np.uint64(rows[t])
            out[r] -= 2.0 * sw[r] * tot[t]


@njit(cache=True)
def _levels_hess_vec(a, b, nlab, levels, u, sw, unit, out, work, acc):
    """Hessian-vector product of a many-label segment from the loss sweep's level cache.

    ``out[p] -= 2 w_p sum_{active partners q} w_q u_q``: each level replays the
    two passes of :func:`_radix_levels` over its stored labels (digits and
    nodes) and pointer positions, so the active pairs are those of the last
    loss sweep (no score comparison, no counting sort). The running sums over
    the digits are two-tier prefix sums (:func:`_acc_add`, ``acc`` of
    ``_acc_rows(bits)`` entries) rather than the loss sweep's Fenwick trees: with
    one column an insertion is then a few vector adds and a query two reads
    (the replay 0.67x the Fenwick one at 10^6 real-valued rows, 0.8x at 10^5,
    scratch). A row's value and running sum move from level to level through
    the stored positions (``LV_SRC``, a gather from one contiguous run per
    digit), so rows are looked up by id only twice; the rows and levels are
    visited in the order of :func:`_radix_levels`.
    """
    L, bits = _digit_bits(nlab, levels.shape[0])
    val, val_up = work[0], work[1]  # w u of the row at each position: this level, above
    tot, tot_up = work[2], work[3]  # the row's sum of partners' w u so far
    _gather_wu(a, b, levels[0, LV_ROW], u, sw, unit, val, tot)
    for level in range(L):
        if level > 0:
            val, val_up = val_up, val
            tot, tot_up = tot_up, tot
            _move_level(a, b, levels[level, LV_SRC], val_up, tot_up, val, tot)
        _replay_level(a, b, levels[level, LV_LABEL], bits * (L - 1 - level), bits,
                      levels[level, LV_HI], levels[level, LV_LO], val, tot, acc)
    _scatter_wtot(a, b, levels[L - 1, LV_ROW], sw, unit, tot, out)


@njit(cache=True, inline="always")
def _move_level(a, b, src, val_up, tot_up, val, tot):
    """A row's value and running sum at positions ``a .. b-1`` of a digit level, from
    its position at the level above (``src``, the level cache's ``LV_SRC``)."""
    for t in range(np.uint64(a), np.uint64(b)):
        e = np.uint64(src[t])
        val[t] = val_up[e]
        tot[t] = tot_up[e]


@njit(cache=True, inline="always")
def _replay_level(a, b, lab, shift, bits, lv_hi, lv_lo, val, tot, acc):
    """Both passes of every node of a digit level (digit at bit ``shift``) at
    positions ``a .. b-1``, ``a`` and ``b`` at node boundaries (running sums ``acc``
    of ``_acc_rows(bits)`` entries)."""
    radix = 1 << bits
    mask = radix - 1
    p = a
    while p < b:
        q = _node_end(lab, p, b, shift + bits)
        if q - p > 1:
            _replay_hi(p, q, lab, shift, mask, bits, lv_hi, val, tot, acc)
            _replay_lo(p, q, lab, shift, mask, bits, lv_lo, val, tot, acc)
        p = q


@njit(cache=True)
def sweep_loss_grad(s, order, seg, lab, nlab, sw, bw, loss_kind,
                    grad_s, diag, ptr_hi, ptr_lo, work, levels, theta=1.0, unit_weights=False,
                    scores_sorted=False):
    """Loss over all active pairs, its gradient w.r.t. the scores, and sweep state.

    Parameters
    ----------
    s : float64[n]  scores.
    order : int[n]  rows sorted by ascending score within each segment.
    seg : int[n_seg + 1]  segment boundaries in ``order``.
    lab : int[n]  label rank within the segment (0 = lowest label).
    nlab : int[n_seg]  number of distinct labels per segment.
    sw : float64[n]  sample weights.
    bw : float64[n]  ``sw`` negated on the lower label of two-label segments
        (:func:`binary_signed_weights`; other rows are not read).
    loss_kind : ``losses.SQUARED_HINGE`` or ``losses.HINGE``.
    grad_s : float64[n]  out, d loss / d s.
    diag : float64[n]  out, per row 2 w_p (A_p + B_p) (weighted active partner
        counts; squared hinge) or w_p (A_p + B_p) (hinge), for the rows of the
        segments of one or more than two labels; the two-label segments keep it
        in sorted order (``work`` row 4) and :func:`two_label_diag_rows` writes
        their rows when it is needed.
    ptr_hi, ptr_lo : int[n]  out, pointer positions for the Hessian replay
        (two-label segments).
    work : float64[WORK_ROWS, n + 1]  work arrays (two-label segments keep their
        signed weights and their ``diag`` in sorted order in rows 3 and 4 for
        :func:`sweep_hess_vec`, and use row 2 for their score gradient in sorted
        order).
    levels : int[n_levels, LV_CHANNELS, n]  out, the level cache of the
        many-label segments for :func:`sweep_hess_vec` (:func:`level_cache`;
        ``n_levels`` sets the digits, :func:`_digit_bits`, and may be 0 when no
        segment has more than two labels).
    theta : float, default 1.0
        Margin: a pair is active when ``s_j > s_i - theta`` and its loss is
        ``(theta - d)^2`` or ``theta - d`` (theta = 1 is RankSVM; the hinge
        solver also uses smaller ones, see solvers/huber.py).
    unit_weights : bool, default False
        Every entry of ``sw`` is 1: the many-label sweep skips reading them
        (same result bit for bit, faster).
    scores_sorted : bool, default False
        ``work[5, :n]`` already holds ``s[order]`` (the sort's ``sorted_out``): the
        many-label sweep does not gather the scores.

    Returns
    -------
    loss : float
    """
    loss = sweep_loss_grad_binary(s, order, seg, nlab, bw, loss_kind, grad_s, diag, ptr_hi,
                                  ptr_lo, work, theta, scores_sorted)
    for g in range(seg.shape[0] - 1):
        k = nlab[g]
        if k > 2:
            loss += _radix_levels(order, seg[g], seg[g + 1], s, lab, k, sw, unit_weights, theta,
                                  loss_kind, grad_s, diag, work, levels, scores_sorted)
    return loss


@njit(cache=True, inline="always")
def one_label_segment(order, a, b, grad_s, diag, ptr_hi, ptr_lo):
    """A segment of one label (positions ``a .. b-1``): no pair, so its rows' gradient
    and diagonal are 0 and its pointers enclose nothing."""
    for t in range(a, b):
        ptr_hi[t] = b
        ptr_lo[t] = a
        grad_s[order[t]] = 0.0
        diag[order[t]] = 0.0


@njit(cache=True)
def sweep_loss_grad_binary(s, order, seg, nlab, bw, loss_kind, grad_s, diag, ptr_hi, ptr_lo,
                           work, theta=1.0, scores_sorted=False):
    """:func:`sweep_loss_grad` over the segments of at most two labels (the others are
    skipped). Compiled on its own, so that two-label problems never compile the
    many-label sweeps (a third of the first fit's compile time). (One group of two
    labels takes :mod:`.threshold_sweep` instead: no sort of every row.)

    ``scores_sorted``: ``work[5, :n]`` already holds ``s[order]`` (the sort's
    ``sorted_out``); the sweep then gathers only the weights."""
    # every row's gradient and diagonal is assigned by its segment's sweep
    loss = 0.0
    nseg = seg.shape[0] - 1
    for g in range(nseg):
        a = seg[g]
        b = seg[g + 1]
        k = nlab[g]
        if k < 2:
            one_label_segment(order, a, b, grad_s, diag, ptr_hi, ptr_lo)
        elif k == 2:
            loss += _binary_loss_grad(s, order, a, b, bw, loss_kind, grad_s, ptr_hi, ptr_lo,
                                      work, theta, scores_sorted)
    return loss


@njit(cache=True)
def sweep_hess_vec(u, order, seg, lab, nlab, sw, diag, ptr_hi, ptr_lo, out, work,
                   levels, unit_weights=False):
    """Generalized Hessian (w.r.t. the scores) times ``u``, active set of the last sweep.

    ``out[p] = diag[p] u_p - 2 w_p (sum_{active lower j} w_j u_j
    + sum_{active higher k} w_k u_k)``, i.e. the Laplacian of the active pair
    graph with pair weights ``2 w_i w_j`` applied to ``u``. The active pairs
    are read from what that sweep left: pointer positions and label masks
    (two labels), the level cache ``levels`` (more labels: a replay of the
    levels, :func:`_levels_hess_vec`).
    """
    sweep_hess_vec_binary(u, order, seg, nlab, diag, ptr_hi, ptr_lo, out, work)
    wide = 0  # the widest digit of the many-label segments
    for g in range(seg.shape[0] - 1):
        if nlab[g] > 2:
            wide = max(wide, _digit_bits(nlab[g], levels.shape[0])[1])
    acc = _acc_empty(wide)  # once: each segment uses a part
    for g in range(seg.shape[0] - 1):
        k = nlab[g]
        if k > 2:
            _levels_hess_vec(seg[g], seg[g + 1], k, levels, u, sw, unit_weights, out, work, acc)


@njit(cache=True)
def sweep_hess_vec_binary(u, order, seg, nlab, diag, ptr_hi, ptr_lo, out, work):
    """:func:`sweep_hess_vec` with the many-label segments left out (their ``out`` is
    ``diag u`` on return), after :func:`sweep_loss_grad_binary`."""
    nseg = seg.shape[0] - 1
    others = False
    for g in range(nseg):
        if nlab[g] != 2:
            others = True
            break
    if others:  # in row order, sequential; the two-label segments are assigned below
        for p in range(u.shape[0]):
            out[p] = diag[p] * u[p]
    for g in range(nseg):
        if nlab[g] == 2:
            _binary_hess_vec(u, order, seg[g], seg[g + 1], ptr_hi, ptr_lo, out, work)


@njit(cache=True)
def two_label_diag_rows(order, seg, nlab, work, diag):
    """``diag[order[t]] = work[4, t]`` over the two-label segments: the diagonal the
    last sweep kept in sorted order only, put in row order (the other segments'
    rows are written by their own sweeps)."""
    for g in range(seg.shape[0] - 1):
        if nlab[g] == 2:
            for t in range(seg[g], seg[g + 1]):
                diag[order[t]] = work[4, t]


#: rows of the ``work`` array of :func:`sweep_loss_grad` / :func:`sweep_hess_vec`
WORK_ROWS = 8


def binary_signed_weights(lab, sw):
    """``bw`` of :func:`sweep_loss_grad`: ``sw`` where ``lab`` is not 0, else ``-sw``."""
    return np.where(lab != 0, sw, -sw).astype(np.float64)


def level_cache(nlab, n, one_level_max_bits=ONE_LEVEL_MAX_BITS):
    """The ``levels`` array :func:`sweep_loss_grad` fills for segments of ``nlab`` labels.

    Its first dimension sets the sweeps' digits (:func:`_digit_bits`): one level
    when every segment's label ranks fit ``one_level_max_bits`` bits (the default,
    ``ONE_LEVEL_MAX_BITS``, is the measured crossover; a smaller value, e.g.
    ``MAX_DIGIT_BITS``, gives several levels on small data, for tests), else
    levels of at most ``MAX_DIGIT_BITS`` bits.

    Shape ``(n_levels, LV_CHANNELS, n)`` (``n_levels`` = 0 when no segment has
    more than two labels); int32 positions while they fit: 20 bytes a row a level (the per-call
    arrays they replace took 96).
    """
    kmax = int(np.max(nlab)) if len(nlab) else 0
    n_levels = 0
    if kmax > 2:  # one digit of all the rank's bits if they fit, else _digit_bits' levels
        n_levels = 1 if _digit_bits(kmax, 1)[1] <= one_level_max_bits else _digit_bits(kmax, 2)[0]
    return np.empty((n_levels, LV_CHANNELS, n), dtype=index_dtype(n))


def count_pairs(members, seg, lab, nlab):
    """Number of pairs (rows of different labels in one segment; int).

    Within a segment with label counts n_r: pairs = ((sum n_r)^2 - sum n_r^2) / 2.
    Counted once per fit, with numpy's ``bincount`` (not compiled: it would add to
    the first fit's time).
    """
    nseg = seg.shape[0] - 1
    if nseg <= 0 or members.shape[0] == 0:
        return 0
    if nseg == 1:  # every row, in any order: no gathers nor group arrays (30 -> 6 ms at 10^6)
        cnt = np.bincount(lab, minlength=int(nlab[0])).astype(np.int64)
        n = int(lab.shape[0])
        # (einsum, not np.dot: OpenBLAS runs a dot of this length on all its threads,
        # whose workers then spin on the other cores through the fit, birank._dots)
        return (n * n - int(np.einsum("i,i->", cnt, cnt))) // 2
    sizes = np.diff(seg)
    group = np.repeat(np.arange(nseg), sizes)  # segment of members[t]
    offset = np.concatenate(([0], np.cumsum(nlab)[:-1]))
    slot = offset[group] + lab[members]  # one slot per (segment, label)
    cnt = np.bincount(slot, minlength=int(np.sum(nlab))).astype(np.int64)
    tot = np.bincount(group, minlength=nseg).astype(np.int64)
    # each group's slots are consecutive, from offset[g]: exact int64 sums without
    # np.add.at (20 ms at 10^6 slots); an empty group has no slot and sums to 0
    sq = np.zeros(nseg, dtype=np.int64)
    has = nlab > 0
    if np.any(has):
        sq[has] = np.add.reduceat(cnt * cnt, offset[has])
    return int(np.sum((tot * tot - sq) // 2))
