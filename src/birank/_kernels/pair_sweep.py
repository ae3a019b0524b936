"""All-pairs RankSVM loss, gradient and Hessian-vector product by sorted sweeps.

The pairs are (i, j) with ``y_i > y_j`` inside one group (segment); a pair has
weight ``w_i * w_j`` (sample weights) and margin ``d = s_i - s_j`` where
``s = X @ w``. A pair is *active* when ``s_j > s_i - 1.0`` (i.e. ``1 - d > 0``; the
margin 1 is the parameter ``theta`` of :func:`sweep_loss_grad`,
evaluated exactly in this form everywhere, so every sweep and the brute-force
oracle agree on the active set even for ties).

Per segment ``[a, b)`` of ``order`` (rows of one group, ascending score):

* pass "hi" walks rows i by descending score; a pointer inserts every row j
  with ``s_j > s_i - 1`` into a Fenwick tree over the label rank ``lab``; the
  prefix over label ranks ``< lab[i]`` gives the weighted count W, sum S1 and
  sum of squares S2 of the active lower partners of i (Lee & Lin 2014,
  "Large-scale linear RankSVM", order-statistic trees; with two labels this is
  the prefix-sum sweep of Chapelle & Keerthi 2010). Loss of i:
  ``w_i * (W a^2 + 2 a S1 + S2)`` with ``a = 1 - s_i``.
* pass "lo" walks rows j by ascending score, inserting every k with
  ``s_k - 1 < s_j``; the prefix over the reversed label rank ``labr`` (labels
  ``> y_j``) gives the active higher partners of j.

Both passes cost O(n log K) for K distinct labels in the segment. The pointer
positions are recorded so the Hessian-vector product (generalized Hessian with
the active set fixed at the current w) replays the same sweep with ``u = X v``
in place of the scores, without comparing scores again.

``loss_kind``: a code of :mod:`.losses`, ``SQUARED_HINGE`` or ``HINGE`` (for the
hinge the coefficients are weighted counts, as in the 1-slack cutting plane of
Joachims 2006).
"""

import numpy as np
from numba import njit

from .losses import SQUARED_HINGE

__all__ = [
    "sort_segments",
    "sweep_loss_grad",
    "sweep_hess_vec",
    "count_pairs",
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


@njit(cache=True)
def _fen_clear(tree, k):
    for r in range(k + 1):
        for q in range(tree.shape[1]):
            tree[r, q] = 0.0


@njit(cache=True)
def _fen_add(tree, k, pos, v0, v1, v2, nq):
    # Fenwick tree over label ranks 0..k-1 (stored 1-based)
    r = pos + 1
    while r <= k:
        tree[r, 0] += v0
        if nq > 1:
            tree[r, 1] += v1
        if nq > 2:
            tree[r, 2] += v2
        r += r & (-r)


@njit(cache=True)
def _fen_prefix(tree, pos, out, nq):
    # sum over label ranks 0..pos-1
    for q in range(nq):
        out[q] = 0.0
    r = pos
    while r > 0:
        for q in range(nq):
            out[q] += tree[r, q]
        r -= r & (-r)


@njit(cache=True)
def _fen1_add(tree1, k, pos, v):
    # one-quantity Fenwick tree (contiguous), label ranks 0..k-1 stored 1-based
    r = pos + 1
    while r <= k:
        tree1[r] += v
        r += r & (-r)


@njit(cache=True)
def _fen1_prefix(tree1, pos):
    acc = 0.0
    r = pos
    while r > 0:
        acc += tree1[r]
        r -= r & (-r)
    return acc


@njit(cache=True)
def sort_segments(s, members, seg, order):
    """``order[a:b]`` = rows ``members[a:b]`` sorted by ascending ``s``, per segment.

    ``seg`` holds segment boundaries (length n_segments + 1).
    """
    nseg = seg.shape[0] - 1
    for g in range(nseg):
        a = seg[g]
        b = seg[g + 1]
        m = b - a
        if m == 0:
            continue
        tmp = np.empty(m)
        for t in range(m):
            tmp[t] = s[members[a + t]]
        idx = np.argsort(tmp, kind="mergesort")
        for t in range(m):
            order[a + t] = members[a + idx[t]]


@njit(cache=True)
def _binary_loss_grad(s, order, a, b, lab, sw, loss_kind, grad_s, diag, ptr_hi, ptr_lo,
                      work, theta):
    # Two labels: the Fenwick tree reduces to suffix sums over the lower label
    # (pass "hi") and prefix sums over the upper label (pass "lo") in score
    # order (Chapelle & Keerthi 2010). One gather into sorted order, then
    # sequential pointer walks and branch-free sums, then one scatter.
    cw = work[0]
    c1 = work[1]
    c2 = work[2]
    m0 = work[3]  # weight of the row at sorted position t if it has the lower label
    m1 = work[4]  # ... if it has the upper label (kept for the Hessian replay)
    ss = work[5]  # scores in sorted order
    for t in range(a, b):
        j = order[t]
        ss[t] = s[j]
        m1[t] = sw[j] * lab[j]
        m0[t] = sw[j] - m1[t]
    ptr = b
    for t in range(b - 1, a - 1, -1):
        thr = ss[t] - theta
        while ptr > a and ss[ptr - 1] > thr:
            ptr -= 1
        ptr_hi[t] = ptr
    ptr = a
    for t in range(a, b):
        sj = ss[t]
        while ptr < b and ss[ptr] - theta < sj:
            ptr += 1
        ptr_lo[t] = ptr
    # suffix sums over positions >= t of the lower-label rows
    cw[b] = 0.0
    c1[b] = 0.0
    c2[b] = 0.0
    for t in range(b - 1, a - 1, -1):
        m = m0[t]
        sj = ss[t]
        cw[t] = cw[t + 1] + m
        c1[t] = c1[t + 1] + m * sj
        c2[t] = c2[t + 1] + m * sj * sj
    loss = 0.0
    # upper-label rows against their active lower partners (suffix from ptr_hi)
    for t in range(a, b):
        wi = m1[t]
        if wi == 0.0:
            continue
        i = order[t]
        p = ptr_hi[t]
        loss += _upper_row(loss_kind, i, wi, cw[p], c1[p], c2[p], theta - ss[t], grad_s, diag)
    # prefix sums over positions < t of the upper-label rows (stored at t)
    cw[a] = 0.0
    c1[a] = 0.0
    for t in range(a, b):
        m = m1[t]
        cw[t + 1] = cw[t] + m
        c1[t + 1] = c1[t] + m * ss[t]
    for t in range(a, b):
        wj = m0[t]
        if wj == 0.0:
            continue
        j = order[t]
        p = ptr_lo[t]
        _lower_row(loss_kind, j, wj, cw[p], c1[p], theta + ss[t], grad_s, diag)
    return loss


@njit(cache=True)
def _binary_hess_vec(u, order, a, b, ptr_hi, ptr_lo, out, work):
    # replay with u: masks m0/m1 in sorted order were stored by the loss sweep
    cu = work[0]
    cl = work[1]
    uo = work[2]
    m0 = work[3]
    m1 = work[4]
    for t in range(a, b):
        uo[t] = u[order[t]]
    cu[b] = 0.0
    for t in range(b - 1, a - 1, -1):
        cu[t] = cu[t + 1] + m0[t] * uo[t]
    cl[a] = 0.0
    for t in range(a, b):
        cl[t + 1] = cl[t] + m1[t] * uo[t]
    for t in range(a, b):
        out[order[t]] -= 2.0 * (m1[t] * cu[ptr_hi[t]] + m0[t] * cl[ptr_lo[t]])


@njit(cache=True)
def sweep_loss_grad(s, order, seg, lab, labr, nlab, sw, loss_kind,
                    grad_s, diag, ptr_hi, ptr_lo, tree, acc, work, theta=1.0):
    """Loss over all active pairs, its gradient w.r.t. the scores, and sweep state.

    Parameters
    ----------
    s : float64[n]  scores.
    order : int[n]  rows sorted by ascending score within each segment.
    seg : int[n_seg + 1]  segment boundaries in ``order``.
    lab, labr : int[n]  label rank within the segment (0 = lowest label) and
        its reverse ``nlab[g] - 1 - lab``.
    nlab : int[n_seg]  number of distinct labels per segment.
    sw : float64[n]  sample weights.
    loss_kind : ``losses.SQUARED_HINGE`` or ``losses.HINGE``.
    grad_s : float64[n]  out, d loss / d s.
    diag : float64[n]  out, per row 2 w_p (A_p + B_p) (weighted active partner
        counts; squared hinge) or w_p (A_p + B_p) (hinge).
    ptr_hi, ptr_lo : int[n]  out, pointer positions for the Hessian replay.
    tree : float64[K_max + 1, 3], acc : float64[3], work : float64[6, n + 1]
        work arrays.
    theta : float, default 1.0
        Margin: a pair is active when ``s_j > s_i - theta`` and its loss is
        ``(theta - d)^2`` or ``theta - d`` (theta = 1 is RankSVM; the hinge
        solver also uses smaller ones, see solvers/huber.py).

    Returns
    -------
    loss : float
    """
    n = s.shape[0]
    for p in range(n):
        grad_s[p] = 0.0
        diag[p] = 0.0
    loss = 0.0
    nseg = seg.shape[0] - 1
    nq_hi = 3 if loss_kind == SQUARED_HINGE else 2
    for g in range(nseg):
        a = seg[g]
        b = seg[g + 1]
        k = nlab[g]
        if k < 2:
            for t in range(a, b):
                ptr_hi[t] = b
                ptr_lo[t] = a
            continue
        if k == 2:
            loss += _binary_loss_grad(s, order, a, b, lab, sw, loss_kind,
                                      grad_s, diag, ptr_hi, ptr_lo, work, theta)
            continue
        # pass "hi": row i against its active lower-labelled partners j
        ss = work[5]  # scores in sorted order (sequential pointer walks)
        for t in range(a, b):
            ss[t] = s[order[t]]
        _fen_clear(tree, k)
        ptr = b
        for t in range(b - 1, a - 1, -1):
            i = order[t]
            thr = ss[t] - theta
            while ptr > a:
                j = order[ptr - 1]
                if ss[ptr - 1] > thr:
                    ptr -= 1
                    wj = sw[j]
                    sj = s[j]
                    _fen_add(tree, k, lab[j], wj, wj * sj, wj * sj * sj, nq_hi)
                else:
                    break
            ptr_hi[t] = ptr
            if lab[i] == 0:
                continue
            _fen_prefix(tree, lab[i], acc, nq_hi)
            W = acc[0]
            if W == 0.0:
                continue
            loss += _upper_row(loss_kind, i, sw[i], W, acc[1], acc[2], theta - s[i], grad_s,
                               diag)
        # pass "lo": row j against its active higher-labelled partners k
        _fen_clear(tree, k)
        ptr = a
        for t in range(a, b):
            j = order[t]
            sj = s[j]
            while ptr < b:
                kk = order[ptr]
                if ss[ptr] - theta < sj:
                    wk = sw[kk]
                    _fen_add(tree, k, labr[kk], wk, wk * s[kk], 0.0, 2)
                    ptr += 1
                else:
                    break
            ptr_lo[t] = ptr
            if labr[j] == 0:
                continue
            _fen_prefix(tree, labr[j], acc, 2)
            W = acc[0]
            if W == 0.0:
                continue
            wj = sw[j]
            _lower_row(loss_kind, j, wj, W, acc[1], theta + sj, grad_s, diag)
    return loss


@njit(cache=True)
def sweep_hess_vec(u, order, seg, lab, labr, nlab, sw, diag, ptr_hi, ptr_lo,
                   out, tree, acc, work):
    """Generalized Hessian (w.r.t. the scores) times ``u``, active set of the last sweep.

    ``out[p] = diag[p] u_p - 2 w_p (sum_{active lower j} w_j u_j
    + sum_{active higher k} w_k u_k)``, i.e. the Laplacian of the active pair
    graph with pair weights ``2 w_i w_j`` applied to ``u``.
    """
    n = u.shape[0]
    for p in range(n):
        out[p] = diag[p] * u[p]
    nseg = seg.shape[0] - 1
    for g in range(nseg):
        a = seg[g]
        b = seg[g + 1]
        k = nlab[g]
        if k < 2:
            continue
        if k == 2:
            _binary_hess_vec(u, order, a, b, ptr_hi, ptr_lo, out, work)
            continue
        tree1 = work[0]  # k + 1 <= n + 1 entries
        wu = work[1]  # w_p u_p in sorted order
        for t in range(a, b):
            p = order[t]
            wu[t] = sw[p] * u[p]
        for r in range(k + 1):
            tree1[r] = 0.0
        ptr = b
        for t in range(b - 1, a - 1, -1):
            i = order[t]
            stop = ptr_hi[t]
            while ptr > stop:
                ptr -= 1
                _fen1_add(tree1, k, lab[order[ptr]], wu[ptr])
            if lab[i] == 0:
                continue
            out[i] -= 2.0 * sw[i] * _fen1_prefix(tree1, lab[i])
        for r in range(k + 1):
            tree1[r] = 0.0
        ptr = a
        for t in range(a, b):
            j = order[t]
            stop = ptr_lo[t]
            while ptr < stop:
                _fen1_add(tree1, k, labr[order[ptr]], wu[ptr])
                ptr += 1
            if labr[j] == 0:
                continue
            out[j] -= 2.0 * sw[j] * _fen1_prefix(tree1, labr[j])


@njit(cache=True)
def count_pairs(members, seg, lab, nlab, sw):
    """Number of pairs (unweighted, int64) and total pair weight, per segment sums.

    Within a segment with label counts n_r: pairs = ((sum n_r)^2 - sum n_r^2) / 2;
    weights likewise with sums of sample weights.
    """
    npairs = 0
    wpairs = 0.0
    nseg = seg.shape[0] - 1
    kmax = 1
    for g in range(nseg):
        if nlab[g] > kmax:
            kmax = nlab[g]
    cnt = np.zeros(kmax, dtype=np.int64)
    wsum = np.zeros(kmax)
    for g in range(nseg):
        a = seg[g]
        b = seg[g + 1]
        k = nlab[g]
        for r in range(k):
            cnt[r] = 0
            wsum[r] = 0.0
        tot = 0
        wtot = 0.0
        for t in range(a, b):
            p = members[t]
            cnt[lab[p]] += 1
            wsum[lab[p]] += sw[p]
        sq = 0
        wsq = 0.0
        for r in range(k):
            tot += cnt[r]
            wtot += wsum[r]
            sq += cnt[r] * cnt[r]
            wsq += wsum[r] * wsum[r]
        npairs += (tot * tot - sq) // 2
        wpairs += 0.5 * (wtot * wtot - wsq)
    return npairs, wpairs
