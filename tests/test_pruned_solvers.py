"""Kernel pair dual CD and the all-pairs kernel Newton against brute force and each other."""

import warnings

import numpy as np
import pytest
from birank.solvers.dual_cd import PairDualCD
from birank.solvers.kernel_dual_cd import KernelPairDualCD, point_kernel, rbf_gamma
from birank.solvers.kernel_newton import (
    KernelPairObjective,
    check_kernel_memory,
    solve_kernel_ranksvm,
)
from oracles_pairs import all_pairs


def _data(seed, n=24, d=3, grouped=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.round(X @ rng.normal(size=d) + 0.5 * rng.normal(size=n), 1)  # some ties
    groups = rng.integers(0, 3, n) if grouped else None
    return X, y, groups


@pytest.mark.parametrize("grouped", [False, True])
def test_kernel_objective_gradient_hessian_equal_bruteforce(grouped):
    X, y, groups = _data(1, grouped=grouped)
    K = point_kernel(X, X, "rbf", 0.4)
    C = 0.8
    obj = KernelPairObjective(K, y, groups, C=C)
    I, J, _ = all_pairs(y, groups)
    assert obj.n_pairs == I.size
    rng = np.random.default_rng(2)
    for scale in (0.0, 0.3, 2.0):
        beta = scale * rng.normal(size=len(y))
        f, g = obj.fun_grad(beta)
        s = K @ beta
        xi = np.maximum(0.0, 1.0 - (s[I] - s[J]))
        f_ref = 0.5 * beta @ s + C * np.sum(xi ** 2)
        gs = np.zeros(len(y))
        np.add.at(gs, I, -2 * xi)
        np.add.at(gs, J, 2 * xi)
        assert abs(f - f_ref) <= 1e-10 * max(1.0, abs(f_ref))
        assert np.abs(g - (s + C * K @ gs)).max() <= 1e-10
        v = rng.normal(size=len(y))
        u = K @ v
        du = 2.0 * (u[I] - u[J]) * (xi > 0)
        hs = np.zeros(len(y))
        np.add.at(hs, I, du)
        np.add.at(hs, J, -du)
        assert np.abs(obj.hess_vec(v) - (u + C * K @ hs)).max() <= 1e-10


@pytest.mark.parametrize("loss", ["squared_hinge", "hinge"])
def test_kernel_newton_matches_kernel_dual_cd_on_all_pairs(loss):
    X, y, groups = _data(3, grouped=(loss == "hinge"))
    gamma, C = 0.5, 0.7
    K = point_kernel(X, X, "rbf", gamma)
    res = solve_kernel_ranksvm(K, y, groups, C=C, loss=loss,
                               tol=1e-10 if loss == "squared_hinge" else 1e-8)
    beta, F, n_pairs = res.coef, res.objective, res.n_pairs
    assert res.converged
    I, J, _ = all_pairs(y, groups)
    cd = KernelPairDualCD(X, gamma=gamma, loss=loss, tol=1e-9, max_iter=100000, random_state=0)
    cd.add_rows(I, J, C)
    assert cd.solve()
    assert n_pairs == I.size == cd.n_rows
    assert F == pytest.approx(cd.primal_objective(), rel=1e-7)
    assert cd.primal_objective() == pytest.approx(cd.dual_objective(), rel=1e-7)
    assert np.abs(K @ beta - cd.decision_function(X)).max() <= 1e-4


@pytest.mark.parametrize("loss", ["squared_hinge", "hinge"])
def test_kernel_dual_cd_with_linear_kernel_equals_pair_dual_cd(loss):
    X, y, _ = _data(5)
    I, J, _ = all_pairs(y)
    keep = np.arange(I.size) % 3 == 0
    lin = PairDualCD(X, loss=loss, tol=1e-10, max_iter=100000, random_state=0)
    ker = KernelPairDualCD(X, kernel="linear", loss=loss, tol=1e-10, max_iter=100000,
                           random_state=0)
    for solver in (lin, ker):
        solver.add_rows(I[keep], J[keep], 0.3)
        solver.solve()
    assert ker.primal_objective() == pytest.approx(lin.primal_objective(), rel=1e-9)
    np.testing.assert_allclose(ker.decision_function(X), X @ lin.coef_, atol=1e-6)
    rows, coef = ker.support()
    np.testing.assert_allclose(X[rows].T @ coef, lin.coef_, atol=1e-6)


def test_kernel_dual_cd_warm_start_and_uncached_columns():
    X, y, _ = _data(7, n=30)
    I, J, _ = all_pairs(y)
    half = I.size // 2
    full = KernelPairDualCD(X, gamma=0.3, tol=1e-10, max_iter=100000, random_state=1)
    full.add_rows(I, J, 1.0)
    full.solve()
    warm = KernelPairDualCD(X, gamma=0.3, tol=1e-10, max_iter=100000, random_state=1)
    warm.add_rows(I[:half], J[:half], 1.0)
    warm.solve()
    warm.add_rows(I[half:], J[half:], 1.0)  # new points and pairs, alpha kept
    warm.solve()
    assert warm.primal_objective() == pytest.approx(full.primal_objective(), rel=1e-8)
    # the grown cache is the kernel matrix of its points, symmetric to the last bit (the
    # CD kernel reads rows for columns)
    np.testing.assert_array_equal(warm._K, warm._K.T)
    np.testing.assert_allclose(warm._K, point_kernel(warm._P, warm._P, "rbf", 0.3),
                               rtol=0, atol=1e-14)
    tiny = KernelPairDualCD(X, gamma=0.3, tol=1e-10, max_iter=100000, cache_size=1e-3,
                            random_state=1)  # 30 x 30 does not fit: columns on the fly
    tiny.add_rows(I, J, 1.0)
    tiny.solve()
    assert not tiny._cached
    np.testing.assert_allclose(tiny.decision_function(X), full.decision_function(X),
                               atol=1e-6)


def test_kernel_dual_cd_validates_and_warns():
    X, y, _ = _data(9)
    cd = KernelPairDualCD(X, max_iter=1, tol=1e-12, random_state=0)
    with pytest.raises(ValueError, match="same length"):
        cd.add_rows([0, 1], [2], 1.0)
    with pytest.raises(ValueError, match="rows must lie"):
        cd.add_rows([0], [99], 1.0)
    with pytest.raises(ValueError, match="C must be finite"):
        cd.add_rows([0], [1], -1.0)
    I, J, _ = all_pairs(y)
    cd.add_rows(I, J, 100.0)
    assert cd.solve() is False and cd.result().converged is False
    assert "max_iter=1" in cd.not_converged_message("X", 1, 1e-12)
    with pytest.raises(ValueError, match="kernel must be"):
        KernelPairDualCD(X, kernel="poly")


def test_kernel_memory_limit_is_a_clear_error():
    check_kernel_memory(1000, 8.0)
    with pytest.raises(ValueError, match=r"N <= 1024"):
        check_kernel_memory(2000, 8.0)


def test_gamma_scale_matches_svc():
    from sklearn.svm import SVC
    import scipy.sparse as sp

    X, y, _ = _data(11)
    svc = SVC(gamma="scale").fit(X, y > np.median(y))
    assert rbf_gamma(X, "scale") == pytest.approx(svc._gamma, rel=1e-12)
    assert rbf_gamma(sp.csr_matrix(X), "scale") == pytest.approx(svc._gamma, rel=1e-10)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert rbf_gamma(np.zeros((3, 2)), "scale") == 1.0


@pytest.mark.kernel
def test_rbf_kernel_from_gram_equals_the_definition_and_is_symmetric():
    from birank._kernels.kernel_dual_cd import mirror_upper

    rng = np.random.default_rng(4)
    A, B = rng.normal(size=(9, 3)), rng.normal(size=(5, 3))
    direct = np.exp(-0.7 * ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1))
    np.testing.assert_allclose(point_kernel(A, B, "rbf", 0.7), direct, rtol=0, atol=1e-14)
    np.testing.assert_allclose(point_kernel(A, B, "linear", 0.7), A @ B.T, atol=1e-14)
    K = point_kernel(A, A, "rbf", 0.7)
    np.testing.assert_array_equal(K, K.T)
    np.testing.assert_allclose(np.diag(K), 1.0, rtol=0, atol=1e-14)
    M = rng.normal(size=(4, 4))
    upper = np.triu(M).copy()
    mirror_upper(M)
    np.testing.assert_array_equal(M, upper + np.triu(upper, 1).T)


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_duplicate_rows_at_adjacent_labels_converge_and_equal_the_linear_solver(loss, kernel):
    """Fails on the old main for the hinge: the kernel solver's copy of the coordinate
    step skipped a zero pair vector (x_i == x_j: Q_pp = 0) where the linear step moves
    alpha to the bound, and never converged (1000 passes at spread 1). Now the kernel
    solver uses the linear step; the oracle is PairDualCD on explicit features F with
    F F' = K (the kernel matrix), i.e. the same dual problem."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    X[1] = X[0]  # labels 0 and 1: the pair (1, 0) is a zero vector in any feature space
    y = np.arange(30.0)
    a, b = np.arange(1, 30), np.arange(0, 29)  # adjacent labels (lin-jan-lin's closest pairs)
    gamma = 0.5
    K = point_kernel(X, X, kernel, gamma)
    lam, V = np.linalg.eigh(K)
    F = V * np.sqrt(np.clip(lam, 0.0, None))  # F F' = K up to rounding
    ker = KernelPairDualCD(X, kernel=kernel, gamma=gamma, loss=loss, tol=1e-8,
                           max_iter=100000, random_state=0)
    lin = PairDualCD(F, loss=loss, tol=1e-8, max_iter=100000, random_state=0)
    for solver in (ker, lin):
        solver.add_rows(a, b, 1.0)
        assert solver.solve(), "did not converge"
    assert ker.n_iter_ < 1000
    assert ker.primal_objective() == pytest.approx(lin.primal_objective(), rel=1e-6)
    np.testing.assert_allclose(ker.decision_function(X), F @ lin.coef_, atol=1e-5)


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_pruned_rbf_with_duplicate_rows_converges(loss):
    """Fails on the old main (hinge): the issue's reproduction ran all 1000 passes at
    spread 1 and warned ConvergenceWarning."""
    from birank import PrunedRankSVM
    from sklearn.exceptions import ConvergenceWarning

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    X[1] = X[0]
    y = np.arange(60.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = PrunedRankSVM(kernel="rbf", loss=loss, random_state=0).fit(X, y)
    assert model.n_iter_ < 1000
