"""Numba kernel behind :mod:`birank._calibration`: Platt's log-loss and its derivatives.

One pass over the scores gives everything a Newton step on Platt's two
unknowns needs (Lin, Lin & Weng 2007, Algorithm 1), instead of a dozen numpy
passes with temporaries: calibration runs after every fit, on every training
row (10^7 rows for the big active-sampling fits). The pass runs over fixed
blocks of rows, without the GIL, so blocks can run on threads; the caller adds
the blocks' sums in block order.
"""

import math

from numba import njit


@njit(cache=True, nogil=True)
def platt_block_sums(u, t, w, a, b, block, out, k0, k1):
    """``out[k] = (f, g_a, g_b, h_aa, h_ab, h_bb)`` over rows ``k block .. (k+1) block - 1``,
    for the blocks ``k0 <= k < k1``, at ``z = a u + b``.

    ``f = sum_i w_i (log(1 + e^z_i) - t_i z_i)`` (the weighted log-loss of
    ``sigmoid(z)`` against soft targets ``t``), its gradient and Hessian in
    ``(a, b)``. ``log(1 + e^z)`` and the sigmoid are evaluated without
    overflow for either sign of ``z``.
    """
    n = u.shape[0]
    for k in range(k0, k1):
        f = 0.0
        g_a = 0.0
        g_b = 0.0
        h_aa = 0.0
        h_ab = 0.0
        h_bb = 0.0
        for i in range(k * block, min(n, (k + 1) * block)):
            z = a * u[i] + b
            if z > 0.0:
                e = math.exp(-z)
                softplus = z + math.log1p(e)
                p = 1.0 / (1.0 + e)
            else:
                e = math.exp(z)
                softplus = math.log1p(e)
                p = e / (1.0 + e)
            wi = w[i]
            f += wi * (softplus - t[i] * z)
            r = wi * (p - t[i])
            d = wi * p * (1.0 - p)
            g_a += r * u[i]
            g_b += r
            h_aa += d * u[i] * u[i]
            h_ab += d * u[i]
            h_bb += d
        out[k, 0] = f
        out[k, 1] = g_a
        out[k, 2] = g_b
        out[k, 3] = h_aa
        out[k, 4] = h_ab
        out[k, 5] = h_bb
