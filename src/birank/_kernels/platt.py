"""Numba kernels behind :mod:`birank._calibration`: Platt's log-loss and its derivatives,
and the passes that prepare its rows.

One pass over the scores gives everything a Newton step on Platt's two
unknowns needs (Lin, Lin & Weng 2007, Algorithm 1), instead of a dozen numpy
passes with temporaries: calibration runs after every fit, on every training
row (10^7 rows for the big active-sampling fits). The rows are read as the
caller holds them: the scores ``s`` with a centre and a scale
(``u = (s - center) inv_scale``), the positive-class mask with Platt's two
targets, and the weights: one per row, or an empty array and a weight per
class (``w_pos``, ``w_neg``: 1 and 1 without weights), so no scaled copy,
target array or array of ones is made. Every pass runs over fixed blocks of rows,
without the GIL, so blocks can run on threads; the caller combines the
blocks' results in block order (the same bits for any number of threads).
"""

import math

import numpy as np
from numba import njit


@njit(cache=True, nogil=True, inline="always")
def _weight(w, unit, is_pos, w_pos, w_neg, i):
    """Row i's weight: ``w[i]``, or with ``w`` empty (``unit``) its class's weight."""
    if unit:
        return w_pos if is_pos else w_neg
    return w[i]


@njit(cache=True, nogil=True, inline="always")
def _add_derivatives(g_a, g_b, h_aa, h_ab, h_bb, wi, p, t, u):
    """The running gradient and Hessian in ``(a, b)`` with a row of weight ``wi``,
    sigmoid ``p``, target ``t`` and scaled score ``u`` added."""
    r = wi * (p - t)
    d = wi * p * (1.0 - p)
    return g_a + r * u, g_b + r, h_aa + d * u * u, h_ab + d * u, h_bb + d


#: rows per product of the factors ``1 + e^-|z|`` in :func:`platt_block_sums` (class
#: weights): each factor is in (1, 2], so the product stays below 2^256 (no overflow)
#: and its rounding (at most 256 roundings of 2^-53) is that of summing 256 logs
LOG_CHUNK = 256


@njit(cache=True, nogil=True, inline="always")
def _class_weighted_sums(s, pos, w_pos, w_neg, center, inv_scale, t_pos, t_neg, a, b, i0, i1):
    """:func:`platt_block_sums` over rows ``i0 .. i1-1`` weighted by class.

    ``log(1 + e^-|z|)`` is summed per class as the log of a product over
    ``LOG_CHUNK`` rows, one ``log`` per chunk instead of a ``log1p`` a row: a
    pass takes 0.48x the time of the same weights given per row
    (``benchmarks/bench_overheads.py``, 5x10^4 scores)."""
    f = 0.0
    g_a = 0.0
    g_b = 0.0
    h_aa = 0.0
    h_ab = 0.0
    h_bb = 0.0
    log_pos = 0.0
    log_neg = 0.0
    for c0 in range(i0, i1, LOG_CHUNK):
        prod_pos = 1.0
        prod_neg = 1.0
        for i in range(c0, min(i1, c0 + LOG_CHUNK)):
            u = (s[i] - center) * inv_scale
            is_pos = pos[i]
            t = t_pos if is_pos else t_neg
            wi = w_pos if is_pos else w_neg
            z = a * u + b
            e = math.exp(-abs(z))
            one_e = 1.0 + e
            prod_pos *= one_e if is_pos else 1.0
            prod_neg *= 1.0 if is_pos else one_e
            q = 1.0 / one_e
            p = q if z > 0.0 else e * q
            f += wi * (max(z, 0.0) - t * z)
            g_a, g_b, h_aa, h_ab, h_bb = _add_derivatives(g_a, g_b, h_aa, h_ab, h_bb, wi, p,
                                                          t, u)
        log_pos += math.log(prod_pos)
        log_neg += math.log(prod_neg)
    return f + w_pos * log_pos + w_neg * log_neg, g_a, g_b, h_aa, h_ab, h_bb


@njit(cache=True, nogil=True, inline="always")
def _row_weighted_sums(s, pos, w, center, inv_scale, t_pos, t_neg, a, b, i0, i1):
    """:func:`platt_block_sums` over rows ``i0 .. i1-1`` with a weight per row."""
    f = 0.0
    g_a = 0.0
    g_b = 0.0
    h_aa = 0.0
    h_ab = 0.0
    h_bb = 0.0
    for i in range(i0, i1):
        u = (s[i] - center) * inv_scale
        t = t_pos if pos[i] else t_neg
        z = a * u + b
        e = math.exp(-abs(z))
        q = 1.0 / (1.0 + e)
        softplus = max(z, 0.0) + math.log1p(e)
        p = q if z > 0.0 else e * q
        wi = w[i]
        f += wi * (softplus - t * z)
        g_a, g_b, h_aa, h_ab, h_bb = _add_derivatives(g_a, g_b, h_aa, h_ab, h_bb, wi, p, t, u)
    return f, g_a, g_b, h_aa, h_ab, h_bb


@njit(cache=True, nogil=True)
def platt_block_sums(s, pos, w, w_pos, w_neg, center, inv_scale, t_pos, t_neg, a, b, block, out,
                     k0, k1):
    """``out[k] = (f, g_a, g_b, h_aa, h_ab, h_bb)`` over rows ``k block .. (k+1) block - 1``,
    for the blocks ``k0 <= k < k1``, at ``z = a u + b``, ``u = (s - center) inv_scale``.

    ``f = sum_i w_i (log(1 + e^z_i) - t_i z_i)`` (the weighted log-loss of
    ``sigmoid(z)`` against Platt's targets, ``t_pos`` where ``pos`` else ``t_neg``),
    its gradient and Hessian in ``(a, b)``. ``w`` empty: row i weighs ``w_pos``
    where ``pos`` else ``w_neg`` (no weights, or class weights).
    ``log(1 + e^z) = max(z, 0) + log1p(e^-|z|)`` and the sigmoid are evaluated
    without overflow and without a branch on the sign of z (which the scores'
    order makes a coin toss: 10% of the pass's time).
    """
    n = s.shape[0]
    for k in range(k0, k1):
        i0 = k * block
        i1 = min(n, (k + 1) * block)
        if w.shape[0] == 0:
            sums = _class_weighted_sums(s, pos, w_pos, w_neg, center, inv_scale, t_pos, t_neg,
                                        a, b, i0, i1)
        else:
            sums = _row_weighted_sums(s, pos, w, center, inv_scale, t_pos, t_neg, a, b, i0, i1)
        for c in range(6):
            out[k, c] = sums[c]


#: columns of :func:`platt_moments`' blocks
MOMENTS = 5


@njit(cache=True, nogil=True)
def platt_moments(s, pos, w, w_pos, w_neg, block, out, k0, k1):
    """``out[k] = (sum w over pos, sum w over not pos, sum w s, max s, min s)`` over the
    rows of block k, for ``k0 <= k < k1`` (``w`` empty: the class weights ``w_pos``,
    ``w_neg``; an empty block gives -inf and +inf for the extremes)."""
    n = s.shape[0]
    unit = w.shape[0] == 0
    for k in range(k0, k1):
        wp = 0.0
        wn = 0.0
        ws = 0.0
        hi = -np.inf
        lo = np.inf
        for i in range(k * block, min(n, (k + 1) * block)):
            wi = _weight(w, unit, pos[i], w_pos, w_neg, i)
            x = s[i]
            if pos[i]:
                wp += wi
            else:
                wn += wi
            ws += wi * x
            hi = max(hi, x)
            lo = min(lo, x)
        out[k, 0] = wp
        out[k, 1] = wn
        out[k, 2] = ws
        out[k, 3] = hi
        out[k, 4] = lo


@njit(cache=True, nogil=True)
def platt_spread(s, pos, w, w_pos, w_neg, center, big, t_pos, t_neg, block, out, k0, k1):
    """``out[k] = (sum w ((s - center) / big)^2, sum w (1/2 - t) (s - center))`` over
    block k: the weighted mean square of the centred scores, scaled by their
    largest magnitude ``big`` first (huge scores do not overflow), and the
    log-loss's derivative in the slope at slope 0 (times the scale). ``w`` empty:
    the class weights ``w_pos``, ``w_neg``."""
    n = s.shape[0]
    unit = w.shape[0] == 0
    for k in range(k0, k1):
        q = 0.0
        c = 0.0
        for i in range(k * block, min(n, (k + 1) * block)):
            wi = _weight(w, unit, pos[i], w_pos, w_neg, i)
            x = s[i] - center
            v = x / big
            q += wi * (v * v)
            c += wi * (0.5 - (t_pos if pos[i] else t_neg)) * x
        out[k, 0] = q
        out[k, 1] = c


@njit(cache=True, nogil=True)
def split_sides(s, pos, w, s_out, pos_out, w_out):
    """The rows with ``s < 0`` to the front of the outputs (in row order) and those with
    ``s > 0`` to the back (from the last slot down, in row order); ``w`` empty: no
    weights are copied. Returns ``(n_below, n_above)``; rows at 0 are left out."""
    n = s.shape[0]
    unit = w.shape[0] == 0
    lo = 0
    hi = n
    for i in range(n):
        x = s[i]
        if x < 0.0:
            j = lo
            lo += 1
        elif x > 0.0:
            hi -= 1
            j = hi
        else:
            continue
        s_out[j] = x
        pos_out[j] = pos[i]
        if not unit:
            w_out[j] = w[i]
    return lo, n - hi
