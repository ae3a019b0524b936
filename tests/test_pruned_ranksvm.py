"""PrunedRankSVM: sklearn API, all pairs = total pairs, groups, reproducibility, errors."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from birank import PrunedRankSVM, RankSVM
from oracles_pairs import all_pairs, pair_objective


def _data(seed, n=40, d=4):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, d))
    X[rng.random(X.shape) < 0.2] = 0.0
    y = np.round(X @ rng.normal(size=d) + 0.3 * rng.normal(size=n), 2)
    return X, y




def test_all_pairs_selected_equals_total_pairs_ranksvm_linear(layout):
    X, y = _data(0)
    n_pairs = len(all_pairs(y)[0])
    C = 0.5
    chosen = PrunedRankSVM(n_closest=n_pairs, n_random=0, C=C, tol=1e-8, max_iter=100000,
                           random_state=0).fit(layout(X), y)
    total = RankSVM(C=C, loss="hinge", tol=1e-7).fit(layout(X), y)
    assert chosen.n_pairs_ == chosen.n_total_pairs_ == total.n_pairs_ == n_pairs
    f_chosen = pair_objective(chosen.coef_, X, y, C, loss="hinge")
    f_total = pair_objective(total.coef_, X, y, C, loss="hinge")
    assert f_chosen == pytest.approx(f_total, rel=1e-6)
    np.testing.assert_allclose(chosen.coef_, total.coef_, atol=1e-3)
    via_all = PrunedRankSVM(n_closest="all", C=C, tol=1e-7).fit(layout(X), y)
    np.testing.assert_array_equal(via_all.coef_, total.coef_)


def test_all_pairs_selected_equals_total_pairs_rbf(layout):
    X, y = _data(1)
    n_pairs = len(all_pairs(y)[0])
    kw = dict(kernel="rbf", gamma=0.7, C=0.5)
    chosen = PrunedRankSVM(n_closest=n_pairs, n_random=0, tol=1e-8, max_iter=100000,
                           random_state=0, **kw).fit(layout(X), y)
    total = PrunedRankSVM(n_closest="all", tol=1e-7, **kw).fit(layout(X), y)
    assert total.n_pairs_ == chosen.n_pairs_ == n_pairs
    np.testing.assert_allclose(chosen.decision_function(layout(X)),
                               total.decision_function(layout(X)), atol=1e-4)


def test_closest_plus_random_counts_and_alpha_order():
    X, y = _data(2, n=60)
    model = PrunedRankSVM(n_closest=30, n_random=20, random_state=0).fit(X, y)
    assert (model.n_closest_, model.n_random_, model.n_pairs_) == (30, 20, 50)
    a, b = model.pairs_
    assert np.all(y[a] > y[b]) and model.pair_dual_coef_.shape == (50,)
    assert len(set(zip(a.tolist(), b.tolist()))) == 50
    default = PrunedRankSVM(random_state=0).fit(X, y)
    n_level1 = default.n_closest_
    assert default.n_random_ == n_level1 and n_level1 >= len(np.unique(y)) - 1
    closest_only = PrunedRankSVM(n_random=0, random_state=0).fit(X, y)
    assert closest_only.n_pairs_ == n_level1


def test_groups_make_pairs_only_within_a_query():
    X, y = _data(3, n=50)
    groups = np.repeat([0, 1, 2, 3, 4], 10)
    for kernel in ("linear", "rbf"):
        model = PrunedRankSVM(kernel=kernel, n_random=30, random_state=0).fit(X, y, groups=groups)
        a, b = model.pairs_
        assert np.all(groups[a] == groups[b])
        assert model.n_total_pairs_ == len(all_pairs(y, groups)[0])
    with pytest.raises(ValueError, match=r"one query id per sample \(50\); got shape \(3,\)"):
        PrunedRankSVM().fit(X, y, groups=[0, 1, 2])


def test_no_pair_warning_looks_inside_each_group():
    X, _ = _data(5, n=12)
    groups = np.repeat([0, 1, 2], 4)
    y = groups.astype(float)  # labels differ across groups only: no pair within one
    with pytest.warns(UserWarning, match="no pair of rows has different labels within a group"):
        model = PrunedRankSVM().fit(X, y, groups=groups)
    np.testing.assert_array_equal(model.coef_, 0.0)
    y[5] += 1.0  # one group now has two labels: pairs, no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        model = PrunedRankSVM().fit(X, y, groups=groups)
    assert model.n_total_pairs_ == 3


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_same_random_state_is_bit_identical_and_dense_equals_csr(kernel):
    X, y = _data(4)
    m1 = PrunedRankSVM(kernel=kernel, random_state=7).fit(X, y)
    m2 = PrunedRankSVM(kernel=kernel, random_state=7).fit(X, y)
    m3 = PrunedRankSVM(kernel=kernel, random_state=7).fit(sp.csr_matrix(X), y)
    np.testing.assert_array_equal(m1.decision_function(X), m2.decision_function(X))
    np.testing.assert_array_equal(m1.pairs_[0], m3.pairs_[0])
    np.testing.assert_allclose(m1.decision_function(X), m3.decision_function(sp.csr_matrix(X)),
                               atol=1e-8)


def test_bad_input_is_a_clear_error_and_input_is_not_mutated():
    X, y = _data(5)
    X0, y0 = X.copy(), y.copy()
    PrunedRankSVM(kernel="rbf", random_state=0).fit(X, y)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)
    with pytest.raises(ValueError, match="n_closest"):
        PrunedRankSVM(n_closest="some").fit(X, y)
    with pytest.raises(ValueError, match="n_random"):
        PrunedRankSVM(n_random=-1).fit(X, y)
    with pytest.raises(ValueError, match="kernel"):
        PrunedRankSVM(kernel="poly").fit(X, y)
    with pytest.raises(ValueError, match="gamma"):
        PrunedRankSVM(gamma=0.0).fit(X, y)
    with pytest.raises(ValueError, match="numeric"):
        PrunedRankSVM().fit(X, np.array(["a", "b"] * 20))
    with pytest.raises(ValueError, match="memory|N <="):
        PrunedRankSVM(n_closest="all", kernel="rbf", cache_size=1e-3).fit(X, y)


def _few_features(seed):
    """300 rows over 4 features, 30% zeros: many pairs over few features."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(300, 4))
    X[rng.random(X.shape) < 0.3] = 0.0
    return X, X @ [1.0, -1.0, 0.5, 0.2] + 0.3 * rng.normal(size=300)


@pytest.mark.parametrize("sparse", [False, True])
def test_newton_finish_only_when_the_pool_matrix_fits(monkeypatch, sparse):
    # a stalled dual CD over O(N) pairs is finished by Newton on the pool matrix only
    # when that matrix fits the budget, for sparse X too (2N pair rows are several X)
    import birank.solvers.dual_cd as dual_cd_solver_module
    from sklearn.exceptions import ConvergenceWarning

    X, y = _few_features(3)
    if sparse:
        X = sp.csr_matrix(X)
    kw = dict(n_closest=299, n_random=299, C=100.0, max_iter=25, solver="dual_cd",
              random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        assert PrunedRankSVM(**kw).fit(X, y).final_solver_ == "newton"
    monkeypatch.setattr(dual_cd_solver_module, "MAX_POOL_MATRIX", 100)
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        model = PrunedRankSVM(**kw).fit(X, y)
    assert model.final_solver_ == "dual_cd"


@pytest.mark.parametrize("sparse", [False, True])
def test_pool_matrix_size_bounds_the_pool_matrix(sparse):
    from birank.solvers.dual_cd import PairDualCD

    rng = np.random.default_rng(4)
    X = rng.normal(size=(40, 6))
    X[rng.random(X.shape) < 0.5] = 0.0
    if sparse:
        X = sp.csr_matrix(X)
    solver = PairDualCD(X)
    solver.add_rows(rng.integers(-1, 40, 50), rng.integers(0, 40, 50), 1.0)
    Z = solver.pool_matrix()
    stored = Z.nnz if sparse else Z.size
    if sparse:  # an upper bound (cancelling entries are dropped), exact without overlaps
        assert stored <= solver.pool_matrix_size() <= stored + 6 * 50 + 50
    else:
        assert solver.pool_matrix_size() == stored


def _pair_objective(model, X, loss):
    a, b = model.pairs_
    s = X @ model.coef_
    xi = np.maximum(0.0, 1.0 - (s[a] - s[b]))
    return 0.5 * model.coef_ @ model.coef_ + model.C * np.sum(xi * xi if loss ==
                                                               "squared_hinge" else xi)


@pytest.mark.parametrize("loss", ["squared_hinge", "hinge"])
@pytest.mark.parametrize("sparse", [False, True])
def test_newton_and_dual_cd_solve_the_same_problem_and_auto_picks_newton(loss, sparse):
    X, y = _few_features(5)
    Xf = sp.csr_matrix(X) if sparse else X
    kw = dict(C=2.0, loss=loss, tol=1e-6, max_iter=100000, random_state=0)
    newton = PrunedRankSVM(solver="newton", **kw).fit(Xf, y)
    cd = PrunedRankSVM(solver="dual_cd", **kw).fit(Xf, y)
    auto = PrunedRankSVM(**kw).fit(Xf, y)  # 598 pairs over 4 features
    assert newton.final_solver_ == "newton" and cd.final_solver_ == "dual_cd"
    assert newton.n_iter_ >= 1
    # auto: Newton first for the squared hinge, dual CD first for the hinge
    same = newton if loss == "squared_hinge" else cd
    assert auto.final_solver_ == same.final_solver_
    np.testing.assert_array_equal(auto.coef_, same.coef_)
    for m in (newton, cd):  # the same pairs (same random_state)
        np.testing.assert_array_equal(m.pairs_[0], auto.pairs_[0])
    f_newton, f_cd = _pair_objective(newton, X, loss), _pair_objective(cd, X, loss)
    assert f_newton == pytest.approx(f_cd, rel=1e-5)
    # pair_dual_coef_ after Newton is a dual point of coef_: in the box, and for the squared
    # hinge the KKT expansion w = sum_p alpha_p (x_a - x_b)
    a, b = newton.pairs_
    alpha = newton.pair_dual_coef_
    assert alpha.shape == a.shape and np.all(alpha >= 0)
    w_alpha = (X[a] - X[b]).T @ alpha
    if loss == "squared_hinge":
        # the primal gradient is w - sum_p alpha_p z_p; Newton stops at |grad| <= tol |grad(0)|
        grad0 = np.linalg.norm(2.0 * newton.C * (X[a] - X[b]).sum(axis=0))
        assert np.linalg.norm(w_alpha - newton.coef_) <= 1.01e-6 * grad0
    else:
        assert np.all(alpha <= newton.C)
        dual = alpha.sum() - 0.5 * w_alpha @ w_alpha
        assert dual <= f_newton * (1 + 1e-12)
        assert dual >= 0.99 * f_newton  # a lower bound near the optimum, not the certificate


def test_auto_keeps_dual_cd_when_features_outnumber_pairs_and_newton_limits():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(30, 50))
    y = X[:, 0] + 0.1 * rng.normal(size=30)
    model = PrunedRankSVM(n_random=0, C=1.0, random_state=0).fit(X, y)  # 29 pairs, 50 features
    assert model.n_pairs_ == 29 and model.final_solver_ == "dual_cd"
    with pytest.raises(ValueError, match="linear kernel"):
        PrunedRankSVM(kernel="rbf", solver="newton").fit(X, y)
    with pytest.raises(ValueError, match="solver"):
        PrunedRankSVM(solver="lbfgs").fit(X, y)


def test_newton_beyond_the_pool_matrix_budget_is_a_clear_error(monkeypatch):
    import birank.solvers.dual_cd as dual_cd_solver_module

    rng = np.random.default_rng(7)
    X = rng.normal(size=(60, 3))
    y = X[:, 0] + 0.1 * rng.normal(size=60)
    monkeypatch.setattr(dual_cd_solver_module, "MAX_POOL_MATRIX", 10)
    with pytest.raises(ValueError, match="MAX_POOL_MATRIX"):
        PrunedRankSVM(solver="newton").fit(X, y)
    assert PrunedRankSVM(C=1.0, random_state=0).fit(X, y).final_solver_ == "dual_cd"  # auto falls back
