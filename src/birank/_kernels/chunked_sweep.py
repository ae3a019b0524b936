"""The two-label pair sweeps and the radix argsort over fixed chunks, for threads.

The sequential kernels (:mod:`.pair_sweep`, :mod:`.radix_sort`) carry running
sums along the whole score order, one row after the other. Here the positions
``0 .. n`` are cut into chunks of ``2^shift`` positions (the last one shorter,
possibly empty), fixed by ``n`` alone, and each kernel works on a run of
chunks, so that threads can share a sweep:

* a first pass per chunk gathers the rows' weights (and scores) and sums each
  chunk's lower-label rows (weight, weighted score, weighted square) and
  upper-label rows (weight, weighted score);
* the offsets (the sums of the chunks after / before each one) are formed in a
  fixed order by the caller;
* a second pass per chunk runs the sweep of :func:`.pair_sweep._binary_loss_grad`
  on its own positions, its running sums started at the offset of the chunk
  its pointer starts in plus that chunk's rows from the pointer on.

Every sum is formed in an order fixed by the chunks, never by the threads, so
the result is the same bits for any number of threads (it differs from the
sequential kernels' in the last bits: another summation order). The active
pairs are decided by the same comparisons (``s_k > s_i - theta``,
``s_k - theta >= s_j``), so the active set is the same as theirs.

The radix argsort is :func:`.radix_sort._radix_argsort` in its packed layout
(float32 keys with the rows, then the gather of the sorted scores, which the
threads share) with per-chunk digit counts: each chunk scatters its keys to
the positions its counts give, in input order, so the sort stays stable and its
result is the one stable order.
"""

import numpy as np
from numba import njit

from .losses import SQUARED_HINGE
from .pair_sweep import add_lower, lower_pass, upper_pass
from .radix_sort import _RADIX, _key32, pack_key, unpack_row

__all__ = ["chunk_count", "chunk_totals", "chunk_loss_grad", "chunk_diag_rows",
           "chunk_hess_prefix", "chunk_hess_out", "radix_keys", "radix_count", "radix_scatter",
           "radix_rows", "TOTALS", "MARK_SHIFT"]

#: the first pass keeps the chunk-local sums every 2^MARK_SHIFT positions (the kernels'
#: ``mark_shift``), so that a pointer's starting sums take at most that many rows to
#: complete, not half a chunk
MARK_SHIFT = 8

#: columns of the per-chunk totals: lower-label weight, weighted score, weighted
#: square; upper-label weight, weighted score
TOTALS = 5


def chunk_count(n, shift):
    """Number of chunks of ``2^shift`` positions over ``0 .. n`` (the last may be
    empty, so that position n falls in a chunk too)."""
    return (n >> shift) + 1


@njit(cache=True, nogil=True, inline="always")
def _bounds(c, shift, n):
    c0 = c << shift
    return min(c0, n), min(c0 + (1 << shift), n)


@njit(cache=True, nogil=True)
def chunk_totals(s, rows, bw, ss, mw, gather_scores, gather_signs, shift, c_from, c_to, tot,
                 marks, mark_shift):
    """First pass over chunks ``c_from .. c_to - 1``: ``mw = bw[rows]`` when
    ``gather_signs`` (else the sort left them there), ``ss = s[rows]`` when
    ``gather_scores``, each chunk's sums (:data:`TOTALS`)
    and, every ``2^mark_shift`` positions p, the chunk-local sums the second pass
    starts its pointers from: ``marks[p >> mark_shift]`` = the lower-label sums
    over p .. chunk end (columns 0-2) and the upper-label sums over chunk start
    .. p - 1 (columns 3-4)."""
    n = rows.shape[0]
    every = (1 << mark_shift) - 1
    for c in range(c_from, c_to):
        c0, c1 = _bounds(c, shift, n)
        m = c1 - c0
        uw = 0.0
        u1 = 0.0
        rows_c, ss_c, mw_c = rows[c0:c1], ss[c0:c1], mw[c0:c1]
        for t in range(m):
            if (c0 + t) & every == 0:
                k = np.uint64((c0 + t) >> mark_shift)
                marks[k, 3] = uw
                marks[k, 4] = u1
            if gather_scores or gather_signs:
                j = np.uint64(rows_c[t])
                if gather_scores:
                    ss_c[t] = s[j]
                if gather_signs:
                    mw_c[t] = bw[j]
            b = max(mw_c[t], 0.0)
            uw += b
            u1 += b * ss_c[t]
        if c == n >> shift and n & every == 0:  # the mark at position n
            marks[n >> mark_shift, 3] = uw
            marks[n >> mark_shift, 4] = u1
        lw = 0.0
        l1 = 0.0
        l2 = 0.0
        for r in range(m):  # backward over the chunk (in cache): suffix sums
            t = np.uint64(m - 1 - r)
            lw, l1, l2 = add_lower(mw_c, ss_c, t, lw, l1, l2)
            if (c0 + np.int64(t)) & every == 0:
                k = np.uint64((c0 + np.int64(t)) >> mark_shift)
                marks[k, 0] = lw
                marks[k, 1] = l1
                marks[k, 2] = l2
        tot[c, 0] = lw
        tot[c, 1] = l1
        tot[c, 2] = l2
        tot[c, 3] = uw
        tot[c, 4] = u1


@njit(cache=True, nogil=True, inline="always")
def _first_above(ss, thr, hi):
    """First position p < hi with ``ss[p] > thr`` (hi if none): ss ascending."""
    lo = 0
    while lo < hi:
        mid = (lo + hi) >> 1
        if ss[mid] > thr:
            hi = mid
        else:
            lo = mid + 1
    return lo


@njit(cache=True, nogil=True, inline="always")
def _first_reaching(ss, sj, theta, lo, n):
    """First position p >= lo with ``ss[p] - theta >= sj`` (n if none)."""
    hi = n
    while lo < hi:
        mid = (lo + hi) >> 1
        if ss[mid] - theta >= sj:
            hi = mid
        else:
            lo = mid + 1
    return lo


@njit(cache=True, nogil=True)
def chunk_loss_grad(ss, mw, rows, shift, c_from, c_to, off, marks, mark_shift, theta,
                    loss_kind, grad_s, gs, ds, hi, lo, loss_c):
    """Second pass over chunks ``c_from .. c_to - 1``: the sweep of each chunk's rows.

    ``off[c]``: the lower-label sums (columns 0-2) of the chunks after c and
    the upper-label sums (columns 3-4) of the chunks before c. Writes each
    row's score gradient (by row; ``gs``: the same in sorted order), ``ds`` (the
    diagonal in sorted order),
    the pointers ``hi`` / ``lo`` and the chunk's loss ``loss_c[c]``.
    """
    n = rows.shape[0]
    every = (1 << mark_shift) - 1
    sq = loss_kind == SQUARED_HINGE
    for c in range(c_from, c_to):
        c0, c1 = _bounds(c, shift, n)
        if c0 == c1:
            loss_c[c] = 0.0
            continue
        # upper rows, descending; the pointer starts where the chunk's last row needs
        # it, its sums at the offset of the chunk it is in plus that chunk's lower
        # rows from the chunk's end down to the pointer
        # (searched over all positions: with |s| >= 2^53, s - theta == s and the
        # pointer may lie beyond the chunk)
        ptr = np.uint64(_first_above(ss, ss[c1 - 1] - theta, n))
        k = np.int64(ptr) >> shift
        W = off[k, 0]
        S1 = off[k, 1]
        S2 = off[k, 2]
        # from the first mark at or above the pointer inside its chunk (or the chunk's end)
        kend = min((k + 1) << shift, n)
        top = min(((np.int64(ptr) + every) >> mark_shift) << mark_shift, kend)
        if top < kend:
            W += marks[top >> mark_shift, 0]
            S1 += marks[top >> mark_shift, 1]
            S2 += marks[top >> mark_shift, 2]
        for r in range(top - np.int64(ptr)):
            W, S1, S2 = add_lower(mw, ss, np.uint64(top - 1 - r), W, S1, S2)
        loss = upper_pass(ss, mw, c0, c1, ptr, W, S1, S2, theta, sq, gs, ds, hi, 0)[0]
        loss_c[c] = loss
        # lower rows, ascending; the pointer's sums: the upper rows of the chunks
        # before its chunk plus that chunk's upper rows from its start to the pointer
        q = _first_reaching(ss, ss[c0], theta, 0, n)
        k = q >> shift
        bottom = (q >> mark_shift) << mark_shift  # the last mark at or below q (a chunk
        W = off[k, 3] + marks[q >> mark_shift, 3]  # start is a mark)
        S1 = off[k, 4] + marks[q >> mark_shift, 4]
        for r in range(q - bottom):
            p = np.uint64(bottom + r)
            b = max(mw[p], 0.0)
            W += b
            S1 += b * ss[p]
        lower_pass(ss, mw, rows, c0, c1, np.uint64(q), W, S1, theta, sq, gs, ds, lo, 0, grad_s)


@njit(cache=True, nogil=True)
def chunk_diag_rows(rows, ds, shift, c_from, c_to, diag):
    """``diag[rows[t]] = ds[t]`` over the positions of chunks ``c_from .. c_to - 1``: the
    diagonal the sweep kept in sorted order, put in row order."""
    n = rows.shape[0]
    for c in range(c_from, c_to):
        c0, c1 = _bounds(c, shift, n)
        for t in range(c0, c1):
            diag[np.uint64(rows[t])] = ds[t]


@njit(cache=True, nogil=True)
def chunk_hess_prefix(u, rows, mw, shift, c_from, c_to, uo, cu, cl, tot):
    """Hessian product, first pass: ``uo = u[rows]``, per chunk the local suffix sums of
    the lower rows' ``w u`` (``cu``, inclusive) and prefix sums of the upper rows'
    (``cl``, exclusive), and the chunk totals (``tot[c] = lower, upper``). The
    chunk position n falls in also writes it (``cu[n] = 0``, ``cl[n]`` its total)."""
    n = rows.shape[0]
    for c in range(c_from, c_to):
        c0, c1 = _bounds(c, shift, n)
        m = c1 - c0
        rows_c, mw_c, uo_c, cu_c, cl_c = rows[c0:c1], mw[c0:c1], uo[c0:c1], cu[c0:c1], cl[c0:c1]
        acc = 0.0
        for t in range(m):
            x = u[np.uint64(rows_c[t])]
            uo_c[t] = x
            cl_c[t] = acc
            acc += max(mw_c[t], 0.0) * x
        tot[c, 1] = acc
        if c == n >> shift:  # the chunk position n falls in (the empty last one, or not)
            cl[n] = acc
            cu[n] = 0.0
        acc = 0.0
        for r in range(m):
            t = np.uint64(m - 1 - r)
            acc += max(-mw_c[t], 0.0) * uo_c[t]
            cu_c[t] = acc
        tot[c, 0] = acc


@njit(cache=True, nogil=True)
def chunk_hess_out(rows, mw, ds, uo, cu, cl, hi, lo, shift, c_from, c_to, off, out):
    """Hessian product, second pass: ``out[row] = diag u - 2 w (sum of the active
    partners' w u)``, the sums read at the pointers as local sums plus their chunk's
    offset (``off[k] = lower rows after chunk k, upper rows before it``)."""
    n = rows.shape[0]
    for c in range(c_from, c_to):
        c0, c1 = _bounds(c, shift, n)
        rows_c, mw_c, ds_c, uo_c = rows[c0:c1], mw[c0:c1], ds[c0:c1], uo[c0:c1]
        hi_c, lo_c = hi[c0:c1], lo[c0:c1]
        for t in range(c1 - c0):
            mt = mw_c[t]
            h = np.uint64(hi_c[t])
            q = np.uint64(lo_c[t])
            below = off[h >> np.uint64(shift), 0] + cu[h]
            above = off[q >> np.uint64(shift), 1] + cl[q]
            out[np.uint64(rows_c[t])] = ds_c[t] * uo_c[t] - 2.0 * (
                max(mt, 0.0) * below + max(-mt, 0.0) * above)


@njit(cache=True, nogil=True)
def radix_keys(s, keys, shift, c_from, c_to, counts, upper):
    """The packed keys of :func:`.radix_sort._radix_argsort` (its packed layout:
    float32 key high, row low, and ``upper``'s flag in bit 31 when ``upper`` is
    not empty) of the rows of chunks ``c_from .. c_to - 1``, and each chunk's
    counts of the lowest digit (``counts[c]``)."""
    n = s.shape[0]
    low = np.uint32(_RADIX - 1)
    tagged = upper.shape[0] > 0
    for c in range(c_from, c_to):
        c0, c1 = _bounds(c, shift, n)
        cnt = counts[c]
        cnt[:] = 0
        s_c, keys_c = s[c0:c1], keys[c0:c1]
        for i in range(c1 - c0):
            k = _key32(s_c[i])
            keys_c[i] = pack_key(k, c0 + i, tagged and upper[c0 + i] != 0)
            cnt[k & low] += 1


@njit(cache=True, nogil=True)
def radix_count(src, digit_shift, shift, c_from, c_to, counts):
    """Each chunk's counts of one digit of the packed keys."""
    n = src.shape[0]
    sh = np.uint64(digit_shift)
    mask = np.uint64(_RADIX - 1)
    for c in range(c_from, c_to):
        c0, c1 = _bounds(c, shift, n)
        cnt = counts[c]
        cnt[:] = 0
        src_c = src[c0:c1]
        for i in range(c1 - c0):
            cnt[(src_c[i] >> sh) & mask] += 1


@njit(cache=True, nogil=True)
def radix_scatter(src, dst, digit_shift, shift, c_from, c_to, start):
    """Stable scatter of chunks' keys by one digit: ``start[c, e]`` is where chunk c's
    first key of digit e goes (all chunks' keys of smaller digits, and chunk c's
    predecessors' keys of digit e, come first)."""
    n = src.shape[0]
    sh = np.uint64(digit_shift)
    mask = np.uint64(_RADIX - 1)
    for c in range(c_from, c_to):
        c0, c1 = _bounds(c, shift, n)
        pos = start[c]
        src_c = src[c0:c1]
        for i in range(c1 - c0):
            x = src_c[i]
            e = (x >> sh) & mask
            p = np.uint64(pos[e])
            pos[e] += 1
            dst[p] = x
        # (pos is this chunk's own row of start: no other chunk writes it)


@njit(cache=True, nogil=True)
def radix_rows(src, s, order, ss, shift, c_from, c_to, signs):
    """``order`` = the row ids of the sorted packed keys and ``ss = s[order]``; with
    ``signs`` not empty, the keys carry a flag in bit 31 (:func:`radix_keys`) and
    ``signs`` gets +1.0 / -1.0 by it."""
    n = src.shape[0]
    tagged = signs.shape[0] > 0
    for c in range(c_from, c_to):
        c0, c1 = _bounds(c, shift, n)
        src_c, order_c, ss_c = src[c0:c1], order[c0:c1], ss[c0:c1]
        for i in range(c1 - c0):
            r, sign = unpack_row(src_c[i], tagged)
            order_c[i] = r
            ss_c[i] = s[r]
            if tagged:
                signs[c0 + i] = sign
