"""Trust-region subproblem: KKT conditions, hard case, singular H, eigh == CG."""

import numpy as np
import pytest

from birank.solvers.ball_quadratic import (
    conjugate_gradient,
    solve_ball_quadratic,
    solve_ball_quadratic_cg,
    solve_ball_quadratic_eigh,
    solve_ball_quadratic_lanczos,
)


def _kkt(H, g, radius, res, tol=1e-8):
    """Assert the optimality conditions of min 1/2 w'Hw - g'w s.t. |w| <= radius."""
    w, lam = res.w, res.lam
    scale = max(np.linalg.norm(g), 1.0)
    assert lam >= 0
    assert np.linalg.norm((H + lam * np.eye(len(g))) @ w - g) <= tol * scale
    assert np.linalg.norm(w) <= radius * (1 + 1e-10)
    assert lam * (radius - np.linalg.norm(w)) <= tol * scale * max(radius, 1.0)
    assert np.linalg.eigvalsh(H + lam * np.eye(len(g)))[0] >= -1e-9 * np.abs(H).max()


def _q(H, g, w):
    return 0.5 * w @ H @ w - g @ w


def _no_better_point(H, g, radius, w, rng, n=2000):
    """Brute-force check: random feasible points (and small perturbations) never beat w."""
    d = len(g)
    v = rng.normal(size=(n, d))
    v *= (radius * rng.random(n) ** (1 / d) / np.linalg.norm(v, axis=1))[:, None]
    pert = w + 1e-3 * radius * rng.normal(size=(n, d))
    nrm = np.linalg.norm(pert, axis=1)
    pert[nrm > radius] *= (radius / nrm[nrm > radius])[:, None]
    qw = _q(H, g, w)
    for P in (v, pert):
        qs = 0.5 * np.einsum("ij,jk,ik->i", P, H, P) - P @ g
        assert qs.min() >= qw - 1e-10 * max(1.0, abs(qw))


def _psd(rng, d, rank=None):
    A = rng.normal(size=(rank or d, d))
    return A.T @ A / d


@pytest.mark.parametrize("radius", [0.05, 0.5, 5.0, 1e3])
def test_eigh_kkt_positive_definite(rng, radius):
    H, g = _psd(rng, 6), rng.normal(size=6)
    res = solve_ball_quadratic_eigh(H, g, radius)
    _kkt(H, g, radius, res)
    _no_better_point(H, g, radius, res.w, rng)
    unconstrained = np.linalg.solve(H, g)
    if np.linalg.norm(unconstrained) <= radius:
        assert res.lam == 0 and res.case == "interior"
        np.testing.assert_allclose(res.w, unconstrained, rtol=1e-10, atol=1e-12)
    else:
        assert res.lam > 0 and abs(np.linalg.norm(res.w) - radius) <= 1e-12 * radius


@pytest.mark.parametrize("radius", [0.05, 1.0, 1e4])
def test_eigh_singular_psd_g_in_range(rng, radius):
    # H of rank 3 in 6-D, g in its range: bounded below, minimum-norm interior solution
    H = _psd(rng, 6, rank=3)
    g = H @ rng.normal(size=6)
    res = solve_ball_quadratic_eigh(H, g, radius)
    _kkt(H, g, radius, res)
    _no_better_point(H, g, radius, res.w, rng)
    pinv_w = np.linalg.pinv(H) @ g
    if np.linalg.norm(pinv_w) <= radius:
        np.testing.assert_allclose(res.w, pinv_w, rtol=1e-8, atol=1e-10)


def test_eigh_singular_psd_g_outside_range(rng):
    # g has a component on the null space: unbounded without the ball -> boundary
    H = _psd(rng, 5, rank=2)
    g = rng.normal(size=5)
    res = solve_ball_quadratic_eigh(H, g, 2.0)
    assert res.case == "boundary"
    _kkt(H, g, 2.0, res)
    _no_better_point(H, g, 2.0, res.w, rng)


def test_eigh_indefinite_and_hard_case(rng):
    Q, _ = np.linalg.qr(rng.normal(size=(4, 4)))
    evals = np.array([-1.0, 0.5, 2.0, 3.0])
    H = Q @ np.diag(evals) @ Q.T
    # easy indefinite case
    g = rng.normal(size=4)
    res = solve_ball_quadratic_eigh(H, g, 1.5)
    _kkt(H, g, 1.5, res)
    _no_better_point(H, g, 1.5, res.w, rng)
    # hard case: g orthogonal to the bottom eigenvector, w(-lambda_min) inside the ball
    g_hard = Q[:, 1:] @ np.array([0.1, 0.1, 0.1])
    res = solve_ball_quadratic_eigh(H, g_hard, 2.0)
    assert res.case == "hard"
    assert res.lam == pytest.approx(1.0, abs=1e-12)
    assert np.linalg.norm(res.w) == pytest.approx(2.0, rel=1e-12)
    _kkt(H, g_hard, 2.0, res)
    _no_better_point(H, g_hard, 2.0, res.w, rng)


def test_eigh_unconstrained_is_min_norm(rng):
    H = _psd(rng, 6, rank=4)
    g = H @ rng.normal(size=6)
    res = solve_ball_quadratic_eigh(H, g, None)
    np.testing.assert_allclose(res.w, np.linalg.pinv(H) @ g, rtol=1e-8, atol=1e-10)
    with pytest.raises(ValueError, match="semidefinite"):
        solve_ball_quadratic_eigh(-np.eye(3), np.ones(3), None)


@pytest.mark.parametrize("radius", [None, 0.02, 0.3, 1e3])
@pytest.mark.parametrize("rank", [None, 5])
def test_cg_equals_eigh(rng, radius, rank):
    H = _psd(rng, 12, rank=rank)
    g = H @ rng.normal(size=12) if rank else rng.normal(size=12)
    a = solve_ball_quadratic_eigh(H, g, radius, ridge=0.0)
    b = solve_ball_quadratic_cg(lambda v: H @ v, g, radius, ridge=0.0, tol=1e-13,
                                max_iter=500)
    np.testing.assert_allclose(b.w, a.w, rtol=1e-8, atol=1e-9 * np.linalg.norm(a.w))
    assert b.lam == pytest.approx(a.lam, rel=1e-7, abs=1e-10)
    if radius is not None:
        _kkt(H, g, radius, b)


def test_dispatch_and_zero_gradient(rng):
    H = _psd(rng, 4)
    from scipy.sparse.linalg import aslinearoperator

    a = solve_ball_quadratic(H, np.ones(4), 0.1)
    b = solve_ball_quadratic(aslinearoperator(H), np.ones(4), 0.1, tol=1e-13)
    np.testing.assert_allclose(a.w, b.w, atol=1e-10)
    z = solve_ball_quadratic(H, np.zeros(4), 1.0)
    assert np.all(z.w == 0)


def test_conjugate_gradient_solves_and_reports_outside(rng):
    H = _psd(rng, 8) + 0.1 * np.eye(8)
    b = rng.normal(size=8)
    x, k, status = conjugate_gradient(lambda v: H @ v, b, shift=0.5, atol=1e-13)
    assert status == "converged"
    np.testing.assert_allclose((H + 0.5 * np.eye(8)) @ x, b, atol=1e-12)
    big = np.linalg.norm(np.linalg.solve(H, b))
    x, k, status = conjugate_gradient(lambda v: H @ v, b, atol=1e-13, radius=0.5 * big)
    assert status == "outside" and np.linalg.norm(x) > 0.5 * big


def test_jacobi_preconditioned_cg_matches(rng):
    H = _psd(rng, 10) * np.logspace(0, 3, 10)[:, None] ** 0.5
    H = H @ H.T / 10 + 0.01 * np.eye(10)
    g = rng.normal(size=10)
    for radius in (None, 1e-3, 1e3):
        a = solve_ball_quadratic_eigh(H, g, radius)
        b = solve_ball_quadratic_cg(lambda v: H @ v, g, radius, tol=1e-13, diag=np.diag(H))
        np.testing.assert_allclose(b.w, a.w, rtol=1e-7, atol=1e-9 * np.linalg.norm(a.w))


@pytest.mark.parametrize("radius", [0.0, -1.0, np.inf, np.nan])
def test_bad_radius(radius):
    with pytest.raises(ValueError, match="radius"):
        solve_ball_quadratic_eigh(np.eye(2), np.ones(2), radius)
    with pytest.raises(ValueError, match="radius"):
        solve_ball_quadratic_cg(lambda v: v, np.ones(2), radius)


@pytest.mark.parametrize("radius", [0.02, 0.3, 1e3])
@pytest.mark.parametrize("rank", [None, 5])
def test_lanczos_equals_eigh(rng, radius, rank):
    H = _psd(rng, 30, rank=rank)
    g = H @ rng.normal(size=30) if rank else rng.normal(size=30)
    a = solve_ball_quadratic_eigh(H, g, radius)
    b = solve_ball_quadratic_lanczos(lambda v: H @ v, g, radius, tol=1e-13)
    np.testing.assert_allclose(b.w, a.w, rtol=0, atol=1e-9 * np.linalg.norm(a.w))
    assert b.lam == pytest.approx(a.lam, rel=1e-7, abs=1e-10)
    assert b.cg_iter <= 30  # one Krylov sequence: at most D products
    _kkt(H, g, radius, b)
    _no_better_point(H, g, radius, b.w, rng, n=500)


def test_lanczos_fewer_products_than_secular_cg(rng):
    # ill-conditioned H with the ball active: the secular CG method pays two CG
    # solves per Newton step, Lanczos one Krylov sequence for every lambda
    d = 80
    Q, _ = np.linalg.qr(rng.normal(size=(d, d)))
    H = (Q * np.logspace(-4, 1, d)) @ Q.T
    g = rng.normal(size=d)
    count = {"n": 0}

    def mv(v):
        count["n"] += 1
        return H @ v

    a = solve_ball_quadratic_eigh(H, g, 1.0)
    lz = solve_ball_quadratic_lanczos(mv, g, 1.0, tol=1e-10)
    n_lanczos, count["n"] = count["n"], 0
    cg = solve_ball_quadratic_cg(mv, g, 1.0, tol=1e-10, lanczos=False)
    n_cg = count["n"]
    np.testing.assert_allclose(lz.w, a.w, atol=1e-7)
    np.testing.assert_allclose(cg.w, a.w, atol=1e-6)
    assert n_lanczos == lz.cg_iter <= d
    assert n_lanczos < n_cg


def test_lanczos_declines_oversized_basis(monkeypatch):
    import birank.solvers.ball_quadratic as bq

    monkeypatch.setattr(bq, "LANCZOS_MAX_ENTRIES", 10)
    assert bq.solve_ball_quadratic_lanczos(lambda v: v, np.ones(5), 1.0) is None
    # the CG entry point then falls back to the secular method and still solves it
    res = bq.solve_ball_quadratic_cg(lambda v: v, np.ones(5), 1.0, tol=1e-12)
    np.testing.assert_allclose(res.w, np.ones(5) / np.sqrt(5), atol=1e-10)
