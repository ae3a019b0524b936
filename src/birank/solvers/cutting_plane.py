"""1-slack cutting-plane solver for the all-pairs hinge-loss RankSVM.

``RankSVM(loss="hinge")`` uses :func:`birank.solvers.newton.hinge_by_smoothing`
(far fewer passes when ``C * n_pairs`` is large); this solver is the SVMperf-style
alternative, exact with the same kind of certified stopping rule, kept for
comparison and for small problems.

Problem (Joachims 2006, "Training linear SVMs in linear time", OP 2 for the
ROC-area loss, without the 1/n scaling)::

    min_w  P(w) = 1/2 |w|^2 + C * sum_{(i,j): y_i > y_j, same group}
                     c_ij * max(0, 1 - w.(x_i - x_j)),      c_ij = sw_i * sw_j

written as ``min 1/2|w|^2 + C xi`` s.t. ``xi >= b_c - w.a_c`` for every subset c
of pairs, with ``a_c = sum_{p in c} c_p z_p`` and ``b_c = sum_{p in c} c_p``.
The most violated constraint at w takes c = the active pairs (margin < 1); its
coefficients are weighted *counts* of active partners per row, found by the
same sorted sweep as the squared-hinge solver (``loss_kind=1``), so
``a = -X' grad_s`` and ``b = loss(w) + w.a``, in O(N log N + nnz).

Each iteration adds that plane and solves the dual QP over the working set
exactly (SMO on a scaled simplex, :mod:`birank._kernels.pair_sweep_qp`).
Stopping rule: the dual value of the working-set QP is a lower bound on the
optimum P* (weak duality holds for any feasible alpha), and every evaluated w
gives an upper bound, so we stop when

    (min_t P(w_t) - dual) <= tol * min_t P(w_t),

a certified relative optimality gap, and return the best w seen. Planes whose
multiplier stayed 0 for ``max_age`` iterations are dropped (as SVMperf does).
"""

from __future__ import annotations

import numpy as np

from .._kernels.pair_sweep_qp import simplex_qp_smo
from .newton import _rmatvec

__all__ = ["cutting_plane"]


def _hinge_at(obj, s):
    """Pair hinge loss at scores s, and d loss / d s (kept in ``obj.grad_s``)."""
    return obj.loss_at_scores(s)


def _line_search(obj, w, s, d, u, max_eval=16, rtol=1e-6):
    """argmin_{t >= 0} P(w + t d) for the convex piecewise-quadratic hinge objective.

    P'(t) = w.d + t |d|^2 + C grad_s(s + t u) . u is non-decreasing; it is
    bracketed by doubling and its sign change located by Illinois regula falsi
    (each evaluation is one sort and one sweep, u = X d precomputed), to a
    relative bracket width ``rtol``: the line search only speeds the method up,
    the stopping certificate does not depend on it.
    Returns t and the loss at w + t d.
    """
    C = obj.C
    wd, dd = float(w @ d), float(d @ d)

    def deriv(t):
        loss = _hinge_at(obj, s + t * u)
        return wd + t * dd + C * float(obj.grad_s @ u), loss

    g0, loss0 = deriv(0.0)
    if g0 >= 0.0:
        return 0.0, loss0
    lo, glo = 0.0, g0
    hi = 1.0
    ghi, _ = deriv(hi)
    n_eval = 2
    while ghi < 0.0 and n_eval < max_eval:
        lo, glo = hi, ghi
        hi *= 2.0
        ghi, _ = deriv(hi)
        n_eval += 1
    side = 0
    while n_eval < max_eval and hi - lo > rtol * hi:
        tm = (lo * ghi - hi * glo) / (ghi - glo)
        if not lo < tm < hi:
            tm = 0.5 * (lo + hi)
        gm, _ = deriv(tm)
        n_eval += 1
        if gm == 0.0:
            lo = hi = tm
            break
        if gm < 0.0:
            lo, glo = tm, gm
            if side == -1:
                ghi *= 0.5
            side = -1
        else:
            hi, ghi = tm, gm
            if side == 1:
                glo *= 0.5
            side = 1
    # the minimizer lies in [lo, hi]; evaluate both ends, keep the better
    best_t, best_f = 0.0, np.inf
    for t in (lo, hi):
        loss = _hinge_at(obj, s + t * u)
        f = 0.5 * (float(w @ w) + 2 * t * wd + t * t * dd) + C * loss
        if f < best_f:
            best_t, best_f = t, f
    return best_t, best_f


def cutting_plane(obj, n_features, tol=1e-4, max_iter=1000, report=None, max_age=50,
                  mu=0.1):
    """Minimize the hinge pair objective ``obj`` (a ``PairObjective`` with loss_kind=1).

    OCAS variant (Franc & Sonnenburg 2008): besides the cutting-plane model
    minimizer w_c, keep the best point w_b, move it by an exact line search
    towards w_c, and add the next plane at ``(1 - mu) w_b + mu w_c``.

    Returns
    -------
    w, f, n_iter, converged, info (dict: lower bound, gap, planes)
    """
    C = obj.C
    cap = 16
    A = np.zeros((cap, n_features))  # row 0 is the slack plane a = 0, b = 0
    b = np.zeros(cap)
    G = np.zeros((cap, cap))
    alpha = np.zeros(cap)
    alpha[0] = C
    age = np.zeros(cap, dtype=np.int64)
    m = 1
    w_b = np.zeros(n_features)
    s_b = obj.scores(w_b)
    loss = _hinge_at(obj, s_b)
    f_b = C * loss
    w_cut = w_b
    dual = 0.0
    rel_gap = 1.0 if f_b > 0 else 0.0
    converged = rel_gap <= tol
    n_iter = 0
    while not converged and n_iter < max_iter:
        n_iter += 1
        # most violated constraint at w_cut: a = sum over active pairs of c_p z_p
        # (obj holds the sweep at w_cut)
        a_new = -_rmatvec(obj.X, obj.grad_s)
        b_new = loss + float(w_cut @ a_new)
        # drop planes unused for max_age iterations (never the slack plane 0)
        keep = np.ones(m, dtype=bool)
        keep[1:] = age[1:m] < max_age
        if not keep.all():
            idx = np.flatnonzero(keep)
            k = idx.size
            A[:k] = A[idx]
            b[:k] = b[idx]
            G[:k, :k] = G[np.ix_(idx, idx)]
            alpha[:k] = alpha[idx]
            age[:k] = age[idx]
            alpha[k:] = 0.0
            m = k
        if m == cap:
            cap *= 2
            A = np.vstack([A, np.zeros_like(A)])
            b = np.concatenate([b, np.zeros_like(b)])
            G2 = np.zeros((cap, cap))
            G2[:m, :m] = G[:m, :m]
            G = G2
            alpha = np.concatenate([alpha, np.zeros_like(alpha)])
            age = np.concatenate([age, np.zeros_like(age)])
        A[m] = a_new
        b[m] = b_new
        col = A[:m + 1] @ a_new
        G[m, :m + 1] = col
        G[:m + 1, m] = col
        alpha[m] = 0.0
        age[m] = 0
        m += 1
        # solve the working-set dual QP; precision well below the stopping gap.
        # The iteration cap only affects speed: the lower bound below is the
        # dual value of the alpha actually reached, valid for any feasible alpha.
        eps = 1e-3 * tol * max(f_b, 1e-300) / C
        simplex_qp_smo(G, b, alpha, m, eps, 200 * m + 1000)
        w_c = alpha[:m] @ A[:m]
        dual = max(dual, float(alpha[:m] @ b[:m]) - 0.5 * float(w_c @ w_c))
        age[:m] = np.where(alpha[:m] > 0.0, 0, age[:m] + 1)
        # best point: exact line search from w_b towards w_c
        dvec = w_c - w_b
        u = obj.scores(dvec)
        t, f_t = _line_search(obj, w_b, s_b, dvec, u)
        if f_t < f_b:
            w_b = w_b + t * dvec
            s_b = s_b + t * u
            f_b = f_t
        rel_gap = (f_b - dual) / f_b if f_b > 0.0 else 0.0
        if report is not None:
            report(n_iter, None, f"P={f_b:.10g} lower={dual:.10g} gap={rel_gap:.2e} "
                                 f"planes={m - 1}")
        if rel_gap <= tol:
            converged = True
            break
        w_cut = (1.0 - mu) * w_b + mu * w_c
        loss = _hinge_at(obj, obj.scores(w_cut))
    return w_b, f_b, n_iter, converged, {"lower_bound": dual, "gap": rel_gap, "planes": m - 1}
