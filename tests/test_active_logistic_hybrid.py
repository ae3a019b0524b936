"""Logistic-loss dual CD (Yu, Huang & Lin 2011) and soft-hybrid sampling (shen-lin future work)."""

import numpy as np
import pytest
import scipy.optimize as so
import scipy.sparse as sp

from birank import ActiveRankSVM
from birank._kernels.dual_cd_logistic import logistic_coordinate
from birank.batch._active_sampling import acceptance_probability
from birank.solvers.dual_cd import PairDualCD


def _explicit_rows(X, a, b, fit_threshold):
    """The pair rows z_p as a dense matrix (the brute-force side)."""
    Z = X[a] - np.where(b[:, None] >= 0, X[np.maximum(b, 0)], 0.0)
    Z = np.where(a[:, None] >= 0, Z, -X[np.maximum(b, 0)])
    if fit_threshold:
        t = np.where(b < 0, -1.0, np.where(a < 0, 1.0, 0.0))
        Z = np.hstack([Z, t[:, None]])
    return Z


def _scipy_logistic(Z, C):
    f = lambda w: 0.5 * w @ w + C @ np.logaddexp(0.0, -Z @ w)  # noqa: E731
    g = lambda w: w - Z.T @ (C * 0.5 * (1.0 - np.tanh(0.5 * (Z @ w))))  # noqa: E731
    r = so.minimize(f, np.zeros(Z.shape[1]), jac=g, method="L-BFGS-B",
                    options={"gtol": 1e-12, "ftol": 1e-15, "maxiter": 10000})
    return r.x, r.fun


@pytest.mark.parametrize("fit_threshold", [False, True])
@pytest.mark.parametrize("sparse", [False, True])
def test_logistic_dual_cd_reaches_the_scipy_optimum(fit_threshold, sparse):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(25, 4))
    a = rng.integers(0, 25, 40)
    b = rng.integers(-1, 25, 40)
    b[b == a] = -1
    a[:5] = -1  # rows (-1, k): the origin above a point
    b[:5] = rng.integers(0, 25, 5)
    C = rng.uniform(0.1, 3.0, 40)
    solver = PairDualCD(sp.csr_matrix(X) if sparse else X, loss="logistic", tol=1e-9,
                        max_iter=10000, fit_threshold=fit_threshold, random_state=0)
    solver.add_rows(a, b, C)
    assert solver.solve()
    w_ref, f_ref = _scipy_logistic(_explicit_rows(X, a, b, fit_threshold), C)
    w = solver.w if fit_threshold else solver.w[:-1]
    np.testing.assert_allclose(w, w_ref, atol=1e-6)
    assert abs(solver.primal_objective() - f_ref) < 1e-8
    # strong duality: the dual value of Yu, Huang & Lin eq. (10) meets the primal
    assert abs(solver.dual_objective() - f_ref) < 1e-8
    # and w = sum alpha z with every alpha strictly inside (0, C)
    assert np.all(solver.alpha_ > 0) and np.all(solver.alpha_ < C)


def test_logistic_warm_start_after_new_rows_and_rescaled_costs():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(30, 3))
    a, b = rng.integers(0, 15, 30), rng.integers(15, 30, 30)
    solver = PairDualCD(X, loss="logistic", tol=1e-9, max_iter=10000, random_state=0)
    solver.add_rows(a[:10], b[:10], np.ones(10))
    solver.solve()
    solver.add_rows(a[10:], b[10:], np.ones(20))
    solver.scale_weights(0.5)  # as ActiveRankSVM's bias-corrected costs change
    assert solver.solve()
    w_ref, _ = _scipy_logistic(_explicit_rows(X, a, b, False), 0.5 * np.ones(30))
    np.testing.assert_allclose(solver.coef_, w_ref, atol=1e-6)


@pytest.mark.parametrize("Q,b,C", [(0.0, 3.0, 1.0), (2.0, -40.0, 0.5), (1e3, 5.0, 2.0),
                                   (0.5, 60.0, 1e-3), (4.0, 0.0, 1.0)])
def test_coordinate_newton_matches_scipy_scalar_minimum(Q, b, C):
    g = lambda x: 0.5 * Q * x * x + b * x + x * np.log(x) + (C - x) * np.log(C - x)  # noqa
    ref = so.minimize_scalar(g, bounds=(1e-300, C * (1 - 1e-16)), method="bounded",
                             options={"xatol": 1e-14})
    x = logistic_coordinate(Q, b, C, min(1e-3 * C, 1e-8))
    assert 0.0 < x < C
    assert g(x) <= g(ref.x) + 1e-12


def test_soft_hybrid_is_the_product_and_rejects_far_violations():
    m = np.linspace(-20, 20, 401)
    hyb = acceptance_probability(m, "soft-hybrid")
    np.testing.assert_allclose(
        hyb, acceptance_probability(m, "soft-close") * acceptance_probability(m, "soft-correct"),
        rtol=1e-12, atol=1e-300)
    # the point of the hybrid: a pair far on the wrong side (a likely noisy pair) is
    # almost never accepted, where soft-correct accepts it almost surely
    assert acceptance_probability(-10.0, "soft-correct") > 0.99
    assert acceptance_probability(-10.0, "soft-hybrid") < 1e-4
    assert np.all(hyb[m >= 1.0] == 0.0)
    assert m[np.argmax(hyb)] < 1.0 and m[np.argmax(hyb)] > -1.0


def test_active_ranksvm_logistic_solves_its_chosen_pool():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 5))
    y = (X @ [1.0, -1.0, 0.5, 0.0, 2.0] + rng.normal(size=400) > 0.5).astype(int)
    for strategy in ("soft-hybrid", "soft-correct"):
        m = ActiveRankSVM(budget=300, batch_size=50, strategy=strategy, loss="logistic",
                          tol=1e-6, random_state=0).fit(X, y)
        pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
        ids = m.chosen_ids_
        a, b = pos[ids // neg.size], neg[ids % neg.size]
        w_ref, _ = _scipy_logistic(X[a] - X[b], m.chosen_weights_)
        np.testing.assert_allclose(m.coef_, w_ref, atol=1e-4)
        assert m.score(X, y) > 0.85


def test_soft_hybrid_same_seed_same_model():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] + rng.normal(size=300) > 0).astype(int)
    fits = [ActiveRankSVM(budget=200, batch_size=40, strategy="soft-hybrid", loss="logistic",
                          random_state=7).fit(X, y) for _ in range(2)]
    assert np.array_equal(fits[0].coef_, fits[1].coef_)
    assert np.array_equal(fits[0].chosen_ids_, fits[1].chosen_ids_)
