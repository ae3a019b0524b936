"""Exact all-pairs kernel RankSVM in the primal over the kernel expansion f = K beta.

Problem (Kuo, Lee & Lin 2014, "Large-scale kernel RankSVM", SDM, eq. (4)-(5);
lin-jan-lin eq. (1) with ``w = sum_u beta_u phi(x_u)``)::

    min_beta  F(beta) = 1/2 beta' K beta + C * sum_{(i,j): y_i > y_j} loss(1 - (s_i - s_j)),
    s = K beta

over all ordinal pairs (within groups). The pair loss, its score gradient
``g = dL/ds`` and the generalized Hessian ``H`` of L in the scores come from the
O(N log N) sorted / Fenwick sweeps of :class:`birank.solvers.newton.PairObjective`
applied to ``s = K beta``; so

    grad F = K (beta + C g),    Hess F = K + C K H K.

Truncated Newton: the direction solves ``(K + C K H K) d = -K (beta + C g)``.
We run conjugate gradients on the equivalent system ``(I + C H K) d = -(beta + C g)``,
whose operator is self-adjoint in the K inner product ``<u, v>_K = u' K v``
(preconditioned CG of the first system with preconditioner K; K^{-1} is never
needed since every residual is K times a known vector). One K matvec per CG
step, ``K d`` comes out of CG for free for the line search. Stopping rule as
LIBLINEAR's: ``|grad F|_{K^-1} <= tol * |grad F(0)|_{K^-1}`` with
``|K r|_{K^-1} = sqrt(r' K r)``.

Hinge loss: Huber smoothing of width delta = 1, 0.1, ... (as
:func:`birank.solvers.newton.hinge_by_smoothing`; the smoothed loss is the
difference of the squared hinges at margins 1 and 1 - delta over 2 delta),
stopped by a certified relative duality gap.

K is held in memory (N x N float64): ``max_memory`` megabytes bound it, with a
clear error beyond (default 1024 MB: N <= 11,585).
"""

from __future__ import annotations

import numpy as np

from .._kernels.losses import HINGE
from .._linalg import dot
from ._result import SolverResult
from .newton import PairObjective

__all__ = ["KernelPairObjective", "kernel_newton", "solve_kernel_ranksvm", "check_kernel_memory"]

_MB = 2**20


def check_kernel_memory(n, max_memory):
    """Raise a ValueError when an n x n float64 kernel matrix exceeds ``max_memory`` MB."""
    need = 8.0 * n * n / _MB
    if need > max_memory:
        n_max = int(np.sqrt(max_memory * _MB / 8.0))
        raise ValueError(
            f"total-pairs kernel RankSVM holds the {n} x {n} kernel matrix in memory "
            f"({need:.0f} MB) but the limit is {max_memory:g} MB (N <= {n_max}); raise "
            "the memory limit or select pairs (n_closest / n_random).")


class _SquaredHingeScores:
    """All-pairs squared hinge in score space at margin theta (a PairObjective's sweeps)."""

    def __init__(self, y, groups, theta=1.0):
        n = y.shape[0]
        self.sweep = PairObjective(np.empty((n, 0)), y, groups, None, theta=theta)
        self.n_pairs = self.sweep.n_pairs

    def loss_at_scores(self, s):
        loss = self.sweep.loss_at_scores(s)
        self.grad_s = self.sweep.grad_s
        return loss

    def hess_scores(self, u):
        return self.sweep.hess_scores(u)


class _HuberScores:
    """Huber-smoothed pair hinge: (L_1 - L_{1-delta}) / (2 delta), one sort for both sweeps."""

    def __init__(self, y, groups, delta):
        n = y.shape[0]
        self.o1 = PairObjective(np.empty((n, 0)), y, groups, None)
        self.o2 = PairObjective(np.empty((n, 0)), y, groups, None)
        self.o2.order = self.o1.order
        self.n_pairs = self.o1.n_pairs
        self.set_delta(delta)

    def set_delta(self, delta):
        self.delta = float(delta)
        self.o2.theta = 1.0 - self.delta

    def loss_at_scores(self, s):
        l1 = self.o1.loss_at_scores(s)
        l2 = self.o2.sweep_sorted(s)
        self.grad_s = (self.o1.grad_s - self.o2.grad_s) / (2.0 * self.delta)
        return (l1 - l2) / (2.0 * self.delta)

    def hess_scores(self, u):
        h = self.o1.hess_scores(u).copy()
        h -= self.o2.hess_scores(u)
        return h / (2.0 * self.delta)

    def certificate(self, K, beta, s, C):
        """Hinge primal P(beta) and the dual value of a feasible alpha built from it.

        alpha_p = C clip((1 - d_p) / delta, 0, 1) is feasible for the hinge dual;
        its point coefficients are ``a = -C (g_1 - g_{1-delta}) / (2 delta)`` and
        ``sum_p alpha_p = C / delta (H_1 - H_{1-delta})`` (hinge sums), so
        ``D = sum alpha - 1/2 a' K a <= P* <= P(beta)``.
        """
        self.loss_at_scores(s)
        a = -C * self.grad_s
        h1 = self.o1.sweep_sorted(s, loss_kind=HINGE)
        h2 = self.o2.sweep_sorted(s, loss_kind=HINGE)
        dual = (C / self.delta) * (h1 - h2) - 0.5 * dot(a, K @ a)
        primal = 0.5 * dot(beta, s) + C * h1
        self.loss_at_scores(s)
        return primal, dual


class KernelPairObjective:
    """F(beta), its gradient and Hessian-vector products (squared hinge), for tests and Newton.

    Parameters
    ----------
    K : ndarray of shape (n, n), the point-kernel matrix of the training rows.
    y : ndarray of shape (n,); groups : ndarray of shape (n,) or None; C : float.
    """

    def __init__(self, K, y, groups=None, C=1.0):
        self.K = K
        self.C = float(C)
        self.scores_loss = _SquaredHingeScores(np.asarray(y, dtype=np.float64), groups)
        self.n_pairs = self.scores_loss.n_pairs

    def fun_grad(self, beta):
        s = self.K @ beta
        loss = self.scores_loss.loss_at_scores(s)
        f = 0.5 * dot(beta, s) + self.C * loss
        return f, self.K @ (beta + self.C * self.scores_loss.grad_s)

    def hess_vec(self, v):
        """``(K + C K H K) v`` with the active set of the last :meth:`fun_grad`."""
        u = self.K @ v
        return u + self.C * (self.K @ self.scores_loss.hess_scores(u))


def _k_cg(K, hess_scores, C, r, Kr, rtol, max_cg):
    """CG in the K inner product for ``(I + C H K) d = -r``; returns d, K d, iterations."""
    d = np.zeros_like(r)
    Kd = np.zeros_like(r)
    rho, Krho = -r, -Kr
    p, Kp = rho.copy(), Krho.copy()
    rr = dot(rho, Krho)
    it = 0
    while it < max_cg and np.sqrt(max(rr, 0.0)) > rtol:
        Ap = p + C * hess_scores(Kp)
        pAp = dot(Kp, Ap)  # p' K A p
        if pAp <= 0.0:
            break
        step = rr / pAp
        d += step * p
        Kd += step * Kp
        rho = rho - step * Ap
        Krho = Krho - step * (K @ Ap)
        rr_new = dot(rho, Krho)
        p = rho + (rr_new / rr) * p
        Kp = Krho + (rr_new / rr) * Kp
        rr = rr_new
        it += 1
    return d, Kd, it


def kernel_newton(K, score_loss, C, beta0, tol=1e-4, max_iter=100, gnorm0=None, max_cg=None,
                  report=None):
    """Minimize ``1/2 beta'K beta + C L(K beta)`` by truncated Newton with K-inner-product CG.

    ``score_loss`` has ``loss_at_scores(s)`` (keeping ``grad_s`` and the active set)
    and ``hess_scores(u)``. Returns ``beta, F, n_iter, converged, gnorm0``.
    """
    n = K.shape[0]
    max_cg = max_cg or max(50, n)
    beta = np.array(beta0, dtype=np.float64, copy=True)
    s = K @ beta
    if gnorm0 is None:
        score_loss.loss_at_scores(np.zeros(n))
        g0 = C * score_loss.grad_s
        gnorm0 = float(np.sqrt(max(dot(g0, K @ g0), 0.0)))
    loss = score_loss.loss_at_scores(s)
    f = 0.5 * dot(beta, s) + C * loss
    converged = False
    n_iter = 0
    for n_iter in range(max_iter + 1):
        gs = score_loss.grad_s
        r = beta + C * gs
        Kr = s + C * (K @ gs)
        gnorm = float(np.sqrt(max(dot(r, Kr), 0.0)))
        if gnorm <= tol * gnorm0 or gnorm0 == 0.0:
            converged = True
            break
        if n_iter == max_iter:
            break
        eta = min(0.1, np.sqrt(gnorm / gnorm0))
        d, Kd, ncg = _k_cg(K, score_loss.hess_scores, C, r, Kr, eta * gnorm, max_cg)
        gd = dot(d, Kr)  # grad' d = r' K d
        if gd >= 0.0:
            d, Kd, gd = -r, -Kr, -gnorm * gnorm
        bs, ds, dKd = dot(beta, s), dot(d, s), dot(d, Kd)
        step = 1.0
        while True:
            loss_t = score_loss.loss_at_scores(s + step * Kd)
            f_t = 0.5 * (bs + 2.0 * step * ds + step * step * dKd) + C * loss_t
            if f_t <= f + 1e-4 * step * gd or step < 1e-12:
                break
            step *= 0.5
        beta += step * d
        s += step * Kd
        f_old, f = f, f_t
        if report is not None:
            report(n_iter + 1, None, f"F={f:.10g} |g|={gnorm:.3e} cg={ncg} step={step:g}")
        if step < 1e-12 or f_old - f <= 1e-15 * abs(f):
            converged = gnorm <= 10 * tol * gnorm0
            break
    return beta, f, n_iter, converged, gnorm0


def solve_kernel_ranksvm(K, y, groups=None, C=1.0, loss="hinge", tol=1e-4, max_iter=1000,
                         report=None):
    """All-pairs kernel RankSVM as a :class:`SolverResult` (``coef`` = beta, ``n_pairs``
    and, for the hinge, the certified ``lower_bound``).

    ``'squared_hinge'``: :func:`kernel_newton` to ``tol``. ``'hinge'``: Huber
    smoothing delta = 1, 0.1, ..., each stage by :func:`kernel_newton` (tol 1e-6,
    warm-started), until the certified relative duality gap is at most ``tol``.
    """
    y = np.asarray(y, dtype=np.float64)
    n = K.shape[0]
    if loss == "squared_hinge":
        sl = _SquaredHingeScores(y, groups)
        beta, f, it, ok, _ = kernel_newton(K, sl, C, np.zeros(n), tol=tol, max_iter=max_iter,
                                           report=report)
        return SolverResult(beta, it, ok, f, n_pairs=int(sl.n_pairs),
                            reason="" if ok else "max_iter reached")
    hub = _HuberScores(y, groups, 1.0)
    beta = np.zeros(n)
    best_beta, best_p, best_d = beta, np.inf, -np.inf
    n_iter, delta, converged = 0, 1.0, False
    while n_iter < max_iter and delta >= 1e-12:
        hub.set_delta(delta)
        beta, _, it, _, _ = kernel_newton(K, hub, C, beta, tol=1e-6, max_iter=max_iter - n_iter)
        n_iter += it
        p, d = hub.certificate(K, beta, K @ beta, C)
        if p < best_p:
            best_beta, best_p = beta.copy(), p
        best_d = max(best_d, d)
        gap = (best_p - best_d) / best_p if best_p > 0 else 0.0
        if report is not None:
            report(n_iter, None, f"delta={delta:.1e} P={best_p:.10g} gap={gap:.2e}")
        if gap <= tol:
            converged = True
            break
        delta *= 0.1
    return SolverResult(best_beta, n_iter, converged, best_p, lower_bound=best_d,
                        n_pairs=int(hub.n_pairs),
                        reason="" if converged else "max_iter reached")
