"""Quadratic over a Euclidean ball: the trust-region subproblem, solved exactly.

    minimize   q(w) = 1/2 w'Hw - g'w     subject to   |w| <= radius

(gultekin-paisley Alg. 1 and 2, line 10, with H = Sigma, g = mu). A point w is
optimal iff, for some lambda >= 0 (Moré & Sorensen 1983; Nocedal & Wright Thm 4.1):

    (H + lambda I) w = g,   H + lambda I positive semidefinite,
    |w| <= radius,          lambda (radius - |w|) = 0.

If the unconstrained minimizer has norm <= radius it is the answer (lambda = 0);
otherwise lambda > 0 solves the secular equation |w(lambda)| = radius with
``w(lambda) = (H + lambda I)^{-1} g``. We find it with a safeguarded Newton
iteration on ``psi(lambda) = 1/|w(lambda)| - 1/radius``, which is increasing and
concave for lambda > -lambda_min(H), so Newton converges monotonically from the
left; a bracket [lo, hi] with bisection guards against rounding or inexact solves.

Back ends:

* :func:`solve_ball_quadratic_eigh` (small D): eigendecomposition; any symmetric H,
  including singular and indefinite H and the *hard case* (g orthogonal to the
  eigenspace of lambda_min and the boundary not reachable by ``w(lambda)``), where
  a multiple of the bottom eigenvector is added to reach the sphere.
* :func:`solve_ball_quadratic_lanczos` (large D): H given only as a
  matrix-vector product and assumed positive semidefinite (true for pair second
  moments); one Lanczos sequence on K(H, g) serves every lambda (GLTR).
* :func:`solve_ball_quadratic_cg`: the same operator; conjugate gradients without
  the ball, Lanczos with it, or (Jacobi preconditioner, or a basis too large
  for memory) the secular Newton iteration with two CG solves per step.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from .._linalg import dot, norm
from ._result import SolverResult

__all__ = ["solve_ball_quadratic", "solve_ball_quadratic_eigh", "solve_ball_quadratic_cg",
           "solve_ball_quadratic_lanczos", "conjugate_gradient", "BallQuadraticResult",
           "LANCZOS_MAX_ENTRIES"]


_SMALL_EIGH = 512
_CONTROLLER: list = []  # the one ThreadpoolController, made on first use


def _blas_controller():
    if not _CONTROLLER:
        from threadpoolctl import ThreadpoolController

        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0]


def _check_radius(radius):
    # float() first: np.isfinite refuses a Python int beyond int64 (radius=2**70 is valid)
    if radius is not None and not (np.isfinite(float(radius)) and radius > 0):
        raise ValueError(f"radius must be a float > 0 or None; got {radius!r}.")


class BallQuadraticResult(SolverResult):
    """A :class:`SolverResult` with the multiplier ``lam``, the case label and CG iterations.

    ``coef`` (also ``w``) is the solution, ``n_iter`` the secular Newton steps.
    """

    def __init__(self, w, lam, n_iter, case, cg_iter=0):
        super().__init__(w, n_iter, True)
        self.lam, self.case, self.cg_iter = lam, case, cg_iter

    w = property(lambda self: self.coef)

    def __repr__(self):
        return (f"BallQuadraticResult(|w|={norm(self.w):.6g}, lam={self.lam:.6g}, "
                f"n_iter={self.n_iter}, case={self.case!r})")


def _secular_newton(norm_and_slope, lo, hi, radius, lam0, rtol, max_iter, lam_atol=0.0):
    """Root of psi(lam) = 1/|w(lam)| - 1/radius on (lo, hi] by safeguarded Newton.

    ``norm_and_slope(lam)`` returns ``(|w|, w'(H + lam I)^{-1} w)``; then
    ``psi' = w'(H + lam I)^{-1} w / |w|^3`` and the Newton step is
    ``lam += (|w| - radius)/radius * |w|^2 / (w'(H + lam I)^{-1} w)`` (Moré-Sorensen).
    A Newton point outside the bracket is replaced by bisection, or by ``hi / 10``
    while ``lo`` is 0 (the root can be orders of magnitude below the first ``hi``).
    With inexact solves, a step smaller than ``lam_atol`` ends the iteration: it
    would change the linear system by less than the solver's tolerance.
    """
    lam = lam0
    it = 0
    for it in range(1, max_iter + 1):
        nrm, slope = norm_and_slope(lam)
        if abs(nrm - radius) <= rtol * radius:
            return lam, it, True
        if nrm > radius:
            lo = lam
        else:
            hi = lam
        if hi - lo <= 4 * np.finfo(float).eps * max(hi, 1.0):
            return lam, it, True
        step = (nrm - radius) / radius * nrm * nrm / slope if slope > 0 else np.inf
        if abs(step) <= lam_atol:
            return lam, it, True
        new = lam + step
        if not (lo < new < hi) or not np.isfinite(new):
            new = 0.1 * hi if lo == 0.0 else 0.5 * (lo + hi)
        lam = new
    return lam, it, False


def solve_ball_quadratic_eigh(H, g, radius, *, ridge=0.0, rtol=1e-14, max_iter=200):
    """Exact trust-region subproblem by eigendecomposition (small D).

    Parameters
    ----------
    H : ndarray of shape (D, D), symmetric
    g : ndarray of shape (D,)
    radius : float or None
        ``None``: unconstrained; H must then be positive semidefinite and the
        minimizer ``(H + ridge I)^{-1} g`` over the numerically nonzero
        eigenvalues is returned.
    ridge : float
        Added to H only when ``radius is None``.

    Returns
    -------
    BallQuadraticResult
    """
    _check_radius(radius)
    H = np.asarray(H, dtype=np.float64)
    g = np.asarray(g, dtype=np.float64)
    if 32 < H.shape[0] <= _SMALL_EIGH:
        # mid-size eigenproblems: one BLAS thread is as fast and immune to
        # oversubscription on a busy machine (OpenBLAS does not thread tiny ones)
        with _blas_controller().limit(limits=1, user_api="blas"):
            evals, Q = np.linalg.eigh(0.5 * (H + H.T))
    else:
        evals, Q = np.linalg.eigh(0.5 * (H + H.T))
    return _solve_in_eigenbasis(evals, Q, g, radius, ridge, rtol, max_iter)


def _solve_in_eigenbasis(evals, Q, g, radius, ridge=0.0, rtol=1e-14, max_iter=200):
    """:func:`solve_ball_quadratic_eigh` given ``H = Q diag(evals) Q'`` (ascending evals)."""
    gt = Q.T @ g
    d = evals.shape[0]
    gnorm = norm(g)
    scale = max(float(np.max(np.abs(evals))) if d else 0.0, np.finfo(float).tiny)
    tiny = 10.0 * d * np.finfo(float).eps * scale
    evals = np.where(np.abs(evals) <= tiny, 0.0, evals)
    lam_min = float(evals[0]) if d else 0.0
    # components of g on the eigenspace of the bottom eigenvalue decide the hard case
    bottom = evals <= lam_min + tiny
    g_bottom = norm(gt[bottom])
    g_orth_bottom = g_bottom <= 1e-10 * max(gnorm, np.finfo(float).tiny)
    if gnorm == 0.0:
        return BallQuadraticResult(np.zeros(d), max(0.0, -lam_min), 0, "zero-gradient")

    def w_of(lam, drop_bottom=False):
        den = evals + lam
        coef = np.zeros(d)
        ok = den > tiny
        if drop_bottom:
            ok &= ~bottom
        coef[ok] = gt[ok] / den[ok]
        return coef

    if radius is None:
        # H is positive semidefinite by construction (a second moment), but it is
        # formed as a difference of moments, whose rounding can leave eigenvalues a
        # little below 0 (LCBR on two rows: -1.8e-12). Only a negative eigenvalue
        # beyond sqrt(eps) relative to the largest one means an indefinite H.
        psd_tol = max(tiny, np.sqrt(np.finfo(float).eps) * scale)
        if lam_min < -psd_tol:
            raise ValueError("radius=None needs a positive semidefinite H; "
                             f"lambda_min(H) = {lam_min:.3g} is below -{psd_tol:.3g} "
                             "(sqrt(eps) times the largest |eigenvalue|).")
        # zero eigenvalues: g has no component there (mu in range(Sigma)); drop rounding
        coef = w_of(ridge) if ridge > 0 else w_of(0.0)
        coef[evals <= 0.0] = 0.0
        return BallQuadraticResult(Q @ coef, float(ridge), 0, "unconstrained")

    # interior: H positive semidefinite and g reachable with |H^+ g| <= radius
    if lam_min > 0 or (lam_min == 0 and g_orth_bottom):
        coef = w_of(0.0)
        coef[evals <= 0.0] = 0.0
        if norm(coef) <= radius:
            return BallQuadraticResult(Q @ coef, 0.0, 0, "interior")
    lo = max(0.0, -lam_min)
    if g_orth_bottom:
        coef = w_of(lo, drop_bottom=True)
        nrm = norm(coef)
        if nrm <= radius:
            # hard case: lam = -lambda_min, move along the bottom eigenvector to the sphere
            tau = np.sqrt(max(radius * radius - nrm * nrm, 0.0))
            k = int(np.flatnonzero(bottom)[0])
            coef[k] += tau
            return BallQuadraticResult(Q @ coef, lo, 0, "hard")
        gt_use = np.where(bottom, 0.0, gt)
    else:
        gt_use = gt

    def norm_and_slope(lam):
        den = evals + lam
        c = np.where(den > 0, gt_use / np.where(den > 0, den, 1.0), 0.0)
        return norm(c), float(np.sum(c * c / np.where(den > 0, den, np.inf)))

    hi = gnorm / radius - lam_min
    hi = max(hi, lo)
    lam, it, ok = _secular_newton(norm_and_slope, lo, hi, radius, hi, rtol, max_iter)
    if not ok:
        warnings.warn(f"ball-constrained quadratic: secular Newton did not converge in "
                      f"{max_iter} iterations.", ConvergenceWarning, stacklevel=2)
    den = evals + lam
    coef = np.where(den > 0, gt_use / np.where(den > 0, den, 1.0), 0.0)
    return BallQuadraticResult(Q @ coef, float(lam), it, "boundary")


def conjugate_gradient(matvec, b, *, shift=0.0, x0=None, atol=0.0, max_iter=1000,
                       radius=None, diag=None):
    """Solve ``(A + shift I) x = b`` for symmetric positive (semi)definite A by CG.

    Stops when ``|r| <= atol``. With ``diag`` (the diagonal of A) the iteration is
    Jacobi-preconditioned by ``diag + shift``. Without a preconditioner, with
    ``radius`` set and ``x0`` zero, it also stops as soon as ``|x_k| > radius``: plain
    CG iterates started at zero grow monotonically in norm (Steihaug 1983), so the
    solution is then known to lie outside the ball.

    Returns
    -------
    x, n_iter, status : status is "converged", "outside" or "max_iter".
    """
    x = np.zeros_like(b) if x0 is None else np.array(x0, dtype=np.float64)
    r = b - (matvec(x) + shift * x) if x0 is not None else b.copy()
    if norm(r) <= atol:
        return x, 0, "converged"
    minv = None if diag is None else 1.0 / (diag + shift)
    watch = radius is not None and x0 is None and minv is None
    zv = r if minv is None else minv * r
    p = zv.copy()
    rz = dot(r, zv)
    for k in range(1, max_iter + 1):
        Ap = matvec(p) + shift * p
        pAp = dot(p, Ap)
        if pAp <= 0:
            ok = norm(r) <= max(atol, 1e-300)
            return x, k, "converged" if ok else "max_iter"
        alpha = rz / pAp
        x += alpha * p
        if watch and dot(x, x) > radius * radius:
            return x, k, "outside"
        r -= alpha * Ap
        if norm(r) <= atol:
            return x, k, "converged"
        zv = r if minv is None else minv * r
        rz_new = dot(r, zv)
        p = zv + (rz_new / rz) * p
        rz = rz_new
    return x, max_iter, "max_iter"


def _tridiag_residual(alpha, beta, lam, gnorm):
    """``beta_{m} |e_m'h|`` for ``(T_m + lam I) h = gnorm e_1`` (T_m: diagonal alpha,
    off-diagonal beta[1:m]); inf when the shifted matrix is singular."""
    from scipy.linalg import solve_banded

    m = alpha.shape[0]
    ab = np.zeros((3, m))
    ab[0, 1:] = beta[1:m]
    ab[1] = alpha + lam
    ab[2, :-1] = beta[1:m]
    rhs = np.zeros(m)
    rhs[0] = gnorm
    try:
        h = solve_banded((1, 1), ab, rhs, check_finite=False)
    except np.linalg.LinAlgError:
        return np.inf
    return beta[m] * abs(h[-1])


#: the Lanczos basis of :func:`solve_ball_quadratic_lanczos` may hold at most
#: this many float64 entries (256 MB); beyond it the secular-CG method is used
LANCZOS_MAX_ENTRIES = 2**25


def solve_ball_quadratic_lanczos(matvec, g, radius, *, tol=1e-10, max_iter=1000):
    """Trust-region subproblem on the Krylov space of (H, g), one Lanczos sequence for all lambda.

    The generalized Lanczos trust-region method (Gould, Lucidi, Roma & Toint
    1999, "Solving the trust-region subproblem using the Lanczos method",
    Algorithm 5.1; Conn, Gould & Toint 2000, Sec. 7.5.4): with the orthonormal
    Lanczos basis Q_k of ``K_k(H, g)`` (q_1 = g / |g|) and the tridiagonal
    ``T_k = Q_k' H Q_k``, the subproblem restricted to ``w = Q_k h`` is

        minimize 1/2 h'T_k h - |g| e_1'h   subject to   |h| <= radius,

        which is solved exactly by :func:`_solve_in_eigenbasis` on the
        eigendecomposition of ``T_k`` (k x k). Every shift lambda shares this one
    Krylov space, so the secular equation costs no matrix-vector products,
    where :func:`solve_ball_quadratic_cg` needs two CG solves per Newton step.
    The residual of the KKT system in the full space is known without forming
    w: ``|(H + lambda I) Q_k h - g| = beta_{k+1} |e_k'h|`` (GLRT Thm 5.8), so the
    iteration stops when it is ``<= tol |g|``, the same test as the CG path.
    The basis is fully reorthogonalized (classical Gram-Schmidt, twice), so it
    stays orthonormal in floating point and, for D features, the iteration ends
    after at most D steps with the exact solution (up to rounding).

    Returns
    -------
    BallQuadraticResult or None
        None when the basis would exceed :data:`LANCZOS_MAX_ENTRIES`
        (``min(max_iter, D) + 1`` vectors of length D); the caller then falls back.
    """
    from scipy.linalg import eigh_tridiagonal

    g = np.asarray(g, dtype=np.float64)
    d = g.shape[0]
    gnorm = norm(g)
    if gnorm == 0.0:
        return BallQuadraticResult(np.zeros(d), 0.0, 0, "zero-gradient")
    kmax = min(max_iter, d)
    if (kmax + 1) * d > LANCZOS_MAX_ENTRIES:
        return None
    atol = tol * gnorm
    basis = np.empty((kmax + 1, d))
    alpha = np.empty(kmax)
    beta = np.empty(kmax + 1)  # beta[k] couples basis rows k-1 and k
    basis[0] = g / gnorm
    beta[0] = 0.0
    hnorm = 0.0  # running estimate of |H| (largest |alpha| + |beta| seen)
    next_check = 1
    h = lam = None
    m = 0
    converged = False
    for k in range(kmax):
        q = basis[k]
        v = np.asarray(matvec(q), dtype=np.float64).reshape(-1)
        alpha[k] = dot(q, v)
        v = v - alpha[k] * q
        if k > 0:
            v -= beta[k] * basis[k - 1]
        for _ in range(2):  # full reorthogonalization against q_0 .. q_k
            v -= basis[:k + 1].T @ (basis[:k + 1] @ v)
        beta[k + 1] = norm(v)
        hnorm = max(hnorm, abs(alpha[k]) + beta[k] + beta[k + 1])
        m = k + 1
        # beta ~ 0: K_m is an invariant subspace of H, the restricted solution is exact
        breakdown = beta[k + 1] <= 1e-14 * max(hnorm, np.finfo(float).tiny)
        # cheap test first: the residual at the last multiplier, one O(m) tridiagonal solve
        near = lam is not None and _tridiag_residual(alpha[:m], beta[:m + 1], lam,
                                                     gnorm) <= 10.0 * atol
        if breakdown or near or m >= next_check or m == kmax:
            evals, S = eigh_tridiagonal(alpha[:m], beta[1:m])
            gs = np.zeros(m)
            gs[0] = gnorm
            res = _solve_in_eigenbasis(evals, S, gs, radius)
            h, lam = res.w, res.lam
            if breakdown or beta[k + 1] * abs(h[-1]) <= atol:
                converged = True
                break
            next_check = m + max(1, m // 4)
        if m < kmax:
            basis[m] = v / beta[k + 1]
    if not converged:
        warnings.warn(f"ball-constrained quadratic: Lanczos did not reach tol={tol} in "
                      f"{m} iterations; increase max_iter.", ConvergenceWarning, stacklevel=3)
    w = basis[:m].T @ h
    case = "interior" if lam == 0.0 else "boundary"
    nw = norm(w)
    if radius is not None and nw > radius:
        w *= radius / nw  # rounding only: |h| <= radius and the basis is orthonormal
    return BallQuadraticResult(w, float(lam), 0, case, m)


def solve_ball_quadratic_cg(matvec, g, radius, *, ridge=0.0, tol=1e-10, max_iter=1000,
                            rtol=1e-12, max_newton=100, diag=None, lanczos=True):
    """Trust-region subproblem with H positive semidefinite given as ``matvec``.

    CG solves stop at residual ``tol * |g|``. Unconstrained (``radius=None``):
    ``(H + ridge I) w = g``. Otherwise, without a preconditioner and with
    ``lanczos`` (the default), :func:`solve_ball_quadratic_lanczos` solves it on
    one Krylov sequence (same residual test). Else (a Jacobi ``diag`` changes
    the norm the Lanczos method works in; or its basis would not fit in
    memory) the interior solution is tried first (CG from zero, abandoned as
    soon as its iterate leaves the ball), then the secular equation is solved by
    safeguarded Newton in lambda, two CG solves per step, warm-started from the
    previous lambda's solution.

    Returns
    -------
    BallQuadraticResult
    """
    _check_radius(radius)
    g = np.asarray(g, dtype=np.float64)
    gnorm = norm(g)
    d = g.shape[0]
    if gnorm == 0.0:
        return BallQuadraticResult(np.zeros(d), 0.0, 0, "zero-gradient")
    atol = tol * gnorm
    total_cg = 0
    if radius is None:
        w, k, status = conjugate_gradient(matvec, g, shift=ridge, atol=atol, max_iter=max_iter,
                                          diag=diag)
        if status != "converged":
            warnings.warn(f"conjugate gradient did not reach tol={tol} in {max_iter} "
                          "iterations; increase max_iter or radius regularization.",
                          ConvergenceWarning, stacklevel=2)
        return BallQuadraticResult(w, float(ridge), 0, "unconstrained", k)
    if diag is None and lanczos:
        res = solve_ball_quadratic_lanczos(matvec, g, radius, tol=tol, max_iter=max_iter)
        if res is not None:
            return res
    w, k, status = conjugate_gradient(matvec, g, atol=atol, max_iter=max_iter, radius=radius,
                                      diag=diag)
    total_cg += k
    if status == "converged" and norm(w) <= radius:
        return BallQuadraticResult(w, 0.0, 0, "interior", total_cg)

    state = {"w": None, "lam": None, "q": None}

    def norm_and_slope(lam):
        nonlocal total_cg
        wl, k1, _ = conjugate_gradient(matvec, g, shift=lam, x0=state["w"], atol=atol,
                                       max_iter=max_iter, diag=diag)
        # the slope only steers Newton (the stopping test uses |w| alone), so
        # q = (H + lam I)^{-1} w is solved loosely, warm-started from the last q
        nw = norm(wl)
        q, k2, _ = conjugate_gradient(matvec, wl, shift=lam, x0=state["q"],
                                      atol=1e-6 * max(nw, np.finfo(float).tiny),
                                      max_iter=max_iter, diag=diag)
        total_cg += k1 + k2
        state["w"], state["lam"], state["q"] = wl, lam, q
        return nw, dot(wl, q)

    hi = gnorm / radius  # |w(lam)| <= |g| / lam for H >= 0
    lam, it, ok = _secular_newton(norm_and_slope, 0.0, hi, radius, hi, rtol, max_newton,
                                  lam_atol=atol / radius)
    if state["lam"] != lam:
        norm_and_slope(lam)
    if not ok:
        warnings.warn(f"ball-constrained quadratic: secular Newton did not converge in "
                      f"{max_newton} iterations.", ConvergenceWarning, stacklevel=2)
    w = state["w"]
    nw = norm(w)
    if nw > radius:
        # inexact CG can leave |w| a hair above the radius; pull it onto the sphere
        # (changes the KKT residual by (|w| - radius)/|w| * |g|, below tolerance)
        w = w * (radius / nw)
    return BallQuadraticResult(w, float(lam), it, "boundary", total_cg)


def solve_ball_quadratic(H, g, radius, **kwargs):
    """Dispatch: ndarray H -> :func:`solve_ball_quadratic_eigh`; operator -> CG.

    CG runs unpreconditioned by default: started at zero with g in range(H) its
    iterates stay in range(H), so for singular H it returns the minimum-norm
    solution, as the eigendecomposition does (a Jacobi preconditioner, ``diag=``,
    gives up that property; on a9a it saved under half the iterations).
    """
    if isinstance(H, np.ndarray):
        kw = {k: v for k, v in kwargs.items() if k in ("ridge", "rtol")}
        return solve_ball_quadratic_eigh(H, g, radius, **kw)
    return solve_ball_quadratic_cg(H.matvec, g, radius, **kwargs)
