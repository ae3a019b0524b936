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
enough eta. On rows of norm ~1 the cap is inactive. O(d) per instance (the
means and the prox are dense).
"""

from numba import njit

from .sparse_rows import row_axpy, row_dot_w, rows_dot


@njit(cache=True)
def spam_pass(X, y01, sw, t0, t1, w, counts, means, step, eta, power_t, beta, beta1):
    """Rows ``t0 .. t1-1`` in order; ``w``, ``counts``, ``means`` updated in place.

    ``step`` counts the rows of non-zero weight before; the new count is returned.
    """
    d = w.shape[0]
    for t in range(t0, t1):
        s = sw[t]
        if s == 0.0:
            continue
        step += 1
        k = y01[t]
        counts[k] += s
        f = s / counts[k]
        c = means[k]
        for j in range(d):
            c[j] *= 1.0 - f
        row_axpy(X, c, f, t)  # c <- c + f (x - c)
        p = counts[1] / (counts[0] + counts[1])
        a = 0.0
        b = 0.0
        for j in range(d):
            a += w[j] * means[1, j]
            b += w[j] * means[0, j]
        alpha = b - a  # Natole et al. eq. (4): alpha(w) = w.(m_- - m_+)
        wx = row_dot_w(X, w, t)
        if k == 1:
            coef = 2.0 * (1.0 - p) * (wx - a) - 2.0 * (1.0 + alpha) * (1.0 - p)
        else:
            coef = 2.0 * p * (wx - b) + 2.0 * (1.0 + alpha) * p
        eta_t = eta / step ** power_t
        curvature = 2.0 * s * ((1.0 - p) if k == 1 else p) * rows_dot(X, t, t)
        if eta_t * curvature > 1.0:  # stability cap (see the module docstring)
            eta_t = 1.0 / curvature
        row_axpy(X, w, -eta_t * s * coef, t)
        shrink = 1.0 / (1.0 + eta_t * beta)
        if beta1 > 0.0:
            thr = eta_t * beta1
            for j in range(d):
                v = w[j]
                if v > thr:
                    v -= thr
                elif v < -thr:
                    v += thr
                else:
                    v = 0.0
                w[j] = v * shrink
        elif shrink != 1.0:
            for j in range(d):
                w[j] *= shrink
    return step
