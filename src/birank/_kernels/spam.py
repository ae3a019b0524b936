"""SPAM: stochastic proximal AUC maximization (Natole, Ying, Lyu, ICML 2018).

The square-loss AUC risk equals a saddle-point problem (Natole et al. eq. (3),
after Ying et al. 2016) with, for an example ``(x, y)`` and ``p = P(y = 1)``::

    F(w, a, b, alpha; x, y) = (1 - p)(w.x - a)^2 [y=1] + p (w.x - b)^2 [y=-1]
                              + 2 (1 + alpha)(p w.x [y=-1] - (1 - p) w.x [y=1])
                              - p (1 - p) alpha^2

whose inner optimum is ``a = w.m_+``, ``b = w.m_-``, ``alpha = w.(m_- - m_+)``
(class means ``m``; Natole et al. eq. (4)). Algorithm 1 of the paper::

    a_t, b_t, alpha_t from w_t              (p, m_+, m_- running estimates here)
    w' = w_t - eta_t grad_w F(w_t, a_t, b_t, alpha_t; x_t, y_t)
    w_{t+1} = prox_{eta_t Omega}(w')

    grad_w F = 2 (1 - p)(w.x - a) x - 2 (1 + alpha)(1 - p) x      (y = +1)
             = 2 p (w.x - b) x + 2 (1 + alpha) p x                 (y = -1)

with ``Omega = beta/2 |w|^2`` (SPAM-L2: ``prox = w' / (1 + eta beta)``) or
``beta1 |w|_1 + beta/2 |w|^2`` (SPAM-NET: soft-threshold by ``eta beta1``,
then divide by ``1 + eta beta``). The paper estimates ``p`` and the class
means from the data; here they are the running (weighted) estimates over the
rows seen so far, the arriving row included, so that one pass is online.
Step ``eta_t = eta / t^power_t``, capped (our addition, not in the paper) at
the inverse curvature of the row's square loss along ``x`` for fixed
``a, b, alpha``: ``s eta_t 2 (1 - p) |x|^2 <= 1`` (``y = +1``; ``2 p |x|^2``
for ``y = -1``, ``s`` the row weight). A larger step overshoots the row's own
minimum and, for rows of norm >> 1 (e.g. |x| ~ 10 with the default eta), makes
``w`` oscillate and grow: the paper's analysis assumes bounded rows and a small
enough eta. On rows of norm ~1 the cap is inactive.

Cost per instance. The means, the inner products ``a = w.m_+`` and ``b = w.m_-``
and the prox are dense, O(d) written as above. SPAM-L2 keeps them O(nnz) of
the row (:func:`_spam_l2_pass`): ``w`` and each mean are a scale times a
stored vector, so the mean's decay and the prox's shrinkage are one multiply,
and the stored vectors' inner products move by the row's sparse updates. At
2^20 features and 2x10^4 rows of 20 non-zeros the pass took 26 s written
densely. SPAM-NET's soft threshold touches every coordinate, so it stays dense
(:func:`_spam_dense_pass`).
"""

import numpy as np
from numba import njit

from .sparse_rows import row_axpy, row_dot_w, rows_dot

#: a scale below this is folded into its stored vector (one O(d) pass), so that the
#: stored values never grow toward overflow as the scale shrinks
_RESCALE_BELOW = 1e-100


@njit(cache=True)
def spam_pass(X, y01, sw, t0, t1, w, counts, means, scales, dots, step, eta, power_t, beta,
              beta1):
    """Rows ``t0 .. t1-1`` in order; the state ``w``, ``counts``, ``means``, ``scales``,
    ``dots`` updated in place.

    ``w`` and the class means are ``scales[0] * w`` and ``scales[1 + k] * means[k]``,
    ``dots[k] = w . means[k]`` of the stored vectors (:func:`_spam_l2_pass`; all 1 and
    the plain vectors' products after :func:`_spam_dense_pass`). ``step`` counts the
    rows of non-zero weight before; the new count is returned. SPAM-L2
    (``beta1 == 0``) in O(nnz) a row, SPAM-NET in O(d) (module docstring).
    """
    if beta1 > 0.0:
        return _spam_dense_pass(X, y01, sw, t0, t1, w, counts, means, scales, dots, step, eta,
                                power_t, beta, beta1)
    return _spam_l2_pass(X, y01, sw, t0, t1, w, counts, means, scales, dots, step, eta,
                         power_t, beta)


@njit(cache=True, inline="always")
def _count_row(counts, k, s):
    """Row of class k and weight s counted; its share ``f = s / count`` of the class."""
    counts[k] += s
    return s / counts[k]


@njit(cache=True, inline="always")
def _step_size(X, t, s, k, p, step, eta, power_t):
    """``eta_t = eta / step^power_t``, capped at the row's inverse curvature (module
    docstring)."""
    eta_t = eta / step ** power_t
    curvature = 2.0 * s * ((1.0 - p) if k == 1 else p) * rows_dot(X, t, t)
    if eta_t * curvature > 1.0:  # stability cap (see the module docstring)
        eta_t = 1.0 / curvature
    return eta_t


@njit(cache=True, inline="always")
def _coefficient(k, p, wx, a, b):
    """The row's gradient ``grad_w F = coef x`` (module docstring; alpha = b - a,
    Natole et al. eq. (4))."""
    alpha = b - a
    if k == 1:
        return 2.0 * (1.0 - p) * (wx - a) - 2.0 * (1.0 + alpha) * (1.0 - p)
    return 2.0 * p * (wx - b) + 2.0 * (1.0 + alpha) * p


@njit(cache=True)
def _spam_l2_pass(X, y01, sw, t0, t1, w, counts, means, scales, dots, step, eta, power_t, beta):
    """:func:`spam_pass` for SPAM-L2 in O(nnz) a row.

    ``w = sc_w * W`` and ``m_k = sc[k] * M_k`` with ``W``, ``M_k`` stored in ``w`` and
    ``means`` (``scales = (sc_w, sc[0], sc[1])``): the mean's update
    ``m_k <- (1 - f) m_k + f x`` is ``sc[k] *= 1 - f`` and ``M_k += (f / sc[k]) x``,
    the prox ``w <- w / (1 + eta beta)`` is ``sc_w /= 1 + eta beta``. ``dots[k] =
    W . M_k`` follows every sparse update (``W . x`` and ``x . M_k`` read the row only)
    and is recomputed from the vectors at every ``max(64, d / 8)``-th row of the
    stream, so its rounding does not build up. The scales and products are kept
    between calls, and every fold is at a row fixed by the stream: chunks given to
    ``partial_fit`` end on the bits of one ``fit``.
    """
    d = w.shape[0]
    refresh = max(64, d >> 3)
    for t in range(t0, t1):
        s = sw[t]
        if s == 0.0:
            continue
        step += 1
        k = y01[t]
        f = _count_row(counts, k, s)
        keep = 1.0 - f
        if keep * scales[1 + k] < _RESCALE_BELOW:  # the class's first row (f = 1)
            _fold(means[k], scales[1 + k] * keep)
            dots[k] = _dense_dot(w, means[k])
            scales[1 + k] = 1.0
        else:
            scales[1 + k] *= keep
        add = f / scales[1 + k]
        Wx = row_dot_w(X, w, t)
        row_axpy(X, means[k], add, t)  # m_k <- (1 - f) m_k + f x
        dots[k] += add * Wx
        p = counts[1] / (counts[0] + counts[1])
        sc_w = scales[0]
        coef = _coefficient(k, p, sc_w * Wx, sc_w * scales[2] * dots[1],
                            sc_w * scales[1] * dots[0])
        eta_t = _step_size(X, t, s, k, p, step, eta, power_t)
        move = -eta_t * s * coef / sc_w  # w <- w - eta_t s coef x
        row_axpy(X, w, move, t)
        dots[0] += move * row_dot_w(X, means[0], t)
        dots[1] += move * row_dot_w(X, means[1], t)
        scales[0] = sc_w / (1.0 + eta_t * beta)  # prox of beta/2 |w|^2
        if scales[0] < _RESCALE_BELOW or step % refresh == 0:
            _fold(w, scales[0])
            scales[0] = 1.0
            for c in range(2):
                dots[c] = _dense_dot(w, means[c])
    return step


@njit(cache=True, inline="always")
def _dense_dot(u, v):
    """``u . v`` of two dense vectors, in index order."""
    out = 0.0
    for j in range(u.shape[0]):
        out += u[j] * v[j]
    return out


@njit(cache=True, inline="always")
def _fold(v, scale):
    """``v *= scale`` (nothing for 1)."""
    if scale != 1.0:
        for j in range(v.shape[0]):
            v[j] *= scale


@njit(cache=True)
def _spam_dense_pass(X, y01, sw, t0, t1, w, counts, means, scales, dots, step, eta, power_t,
                     beta, beta1):
    """:func:`spam_pass` written densely, O(d) a row: SPAM-NET's soft threshold. Works on
    the plain vectors (folds the scales first) and leaves them so, with their products
    in ``dots``."""
    for c in range(3):
        _fold(w if c == 0 else means[c - 1], scales[c])
        scales[c] = 1.0
    for t in range(t0, t1):
        s = sw[t]
        if s == 0.0:
            continue
        step += 1
        k = y01[t]
        f = _count_row(counts, k, s)
        _fold(means[k], 1.0 - f)
        row_axpy(X, means[k], f, t)  # m_k <- m_k + f (x - m_k)
        p = counts[1] / (counts[0] + counts[1])
        coef = _coefficient(k, p, row_dot_w(X, w, t), _dense_dot(w, means[1]),
                            _dense_dot(w, means[0]))
        eta_t = _step_size(X, t, s, k, p, step, eta, power_t)
        row_axpy(X, w, -eta_t * s * coef, t)
        shrink = 1.0 / (1.0 + eta_t * beta)
        thr = eta_t * beta1  # prox of beta1 |w|_1 + beta/2 |w|^2: soft threshold, shrink
        for j in range(w.shape[0]):
            v = w[j]
            if v > thr:
                v -= thr
            elif v < -thr:
                v += thr
            else:
                v = 0.0
            w[j] = v * shrink
    for c in range(2):
        dots[c] = _dense_dot(w, means[c])
    return step
