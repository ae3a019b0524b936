"""PairDualCD (dual CD on implicit pair rows) against brute force on materialized pairs."""

import warnings

import numpy as np
import pytest
import scipy.optimize
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC

from birank._kernels import sparse_rows
from birank.solvers.dual_cd import PairDualCD


# ----------------------------------------------------------------- helpers
def make_problem(rng, n=9, d=3, density=0.6, pseudo=True):
    """Tiny data, all (pos, neg) pairs plus (optionally) every pseudo-pair, random weights."""
    X = rng.normal(size=(n, d)) * (rng.random((n, d)) < density)
    X[0, 0] = 1.0  # no all-zero data
    y = np.zeros(n, dtype=int)
    y[rng.permutation(n)[: n // 2]] = 1
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    a = np.repeat(pos, neg.size)
    b = np.tile(neg, pos.size)
    if pseudo:
        a = np.r_[a, pos, -np.ones(neg.size, dtype=int)]
        b = np.r_[b, -np.ones(pos.size, dtype=int), neg]
    C = rng.uniform(0.2, 2.0, a.size)
    return X, a, b, C


def materialize(X, a, b, fit_threshold):
    """Explicit pair vectors z = x_a - x_b (row -1 = origin), extended by the threshold column."""
    Xd = X.toarray() if sp.issparse(X) else np.asarray(X)
    Xo = np.vstack([Xd, np.zeros((1, Xd.shape[1]))])  # index -1 -> last row = origin
    Z = Xo[a] - Xo[b]
    if fit_threshold:
        t = np.where(b == -1, -1.0, np.where(a == -1, 1.0, 0.0))
        Z = np.hstack([Z, t[:, None]])
    return Z


def reference_solution(Z, C, loss):
    """Brute force: the dual QP on the materialized rows by L-BFGS-B, w = Z' alpha."""
    Q = Z @ Z.T
    if loss == "squared_hinge":
        Q = Q + np.diag(0.5 / C)
        bounds = [(0, None)] * len(C)
    else:
        bounds = [(0, c) for c in C]

    def f(al):
        g = Q @ al - 1.0
        return 0.5 * al @ (Q @ al) - al.sum(), g

    res = scipy.optimize.minimize(f, np.zeros(len(C)), jac=True, method="L-BFGS-B",
                                  bounds=bounds,
                                  options={"ftol": 0, "gtol": 1e-13, "maxiter": 100000,
                                           "maxfun": 100000})
    return Z.T @ res.x


def primal(Z, C, w, loss):
    xi = np.maximum(0.0, 1.0 - Z @ w)
    if loss == "squared_hinge":
        xi = xi**2
    return 0.5 * w @ w + C @ xi


def full_w(solver):
    return np.r_[solver.coef_, -solver.intercept_]


# --------------------------------------------------------- brute force check
@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("fit_threshold", [False, True])
def test_solution_equals_bruteforce_qp(loss, fit_threshold, layout):
    rng = np.random.default_rng(3)
    X, a, b, C = make_problem(rng, n=14, d=4)
    solver = PairDualCD(layout(X), loss=loss, fit_threshold=fit_threshold, tol=1e-10,
                        max_iter=100000, random_state=0)
    solver.add_rows(a, b, C)
    solver.solve()
    Z = materialize(X, a, b, fit_threshold)
    w_ref = reference_solution(Z, C, loss)
    w = full_w(solver) if fit_threshold else solver.coef_
    np.testing.assert_allclose(w, w_ref, atol=1e-6)
    p, p_ref = primal(Z, C, w, loss), primal(Z, C, w_ref, loss)
    assert p <= p_ref * (1 + 1e-9)
    assert solver.primal_objective() == pytest.approx(p, rel=1e-12)
    if not fit_threshold:
        assert solver.intercept_ == 0.0


@pytest.mark.kernel
@pytest.mark.parametrize("loss,fit_threshold,sparse", [("hinge", True, False),
                                                       ("squared_hinge", False, True)])
def test_kernel_tiny_bruteforce(loss, fit_threshold, sparse):
    """Small enough to run as plain Python under NUMBA_DISABLE_JIT=1."""
    rng = np.random.default_rng(11)
    X, a, b, C = make_problem(rng, n=6, d=3)
    solver = PairDualCD(sp.csr_matrix(X) if sparse else X, loss=loss,
                        fit_threshold=fit_threshold, tol=1e-9, max_iter=20000, random_state=1)
    solver.add_rows(a, b, C)
    solver.solve()
    Z = materialize(X, a, b, fit_threshold)
    w = full_w(solver) if fit_threshold else solver.coef_
    np.testing.assert_allclose(w, reference_solution(Z, C, loss), atol=1e-6)
    # w is kept equal to sum_p alpha_p z_p throughout
    np.testing.assert_allclose(Z.T @ solver.alpha_, w, atol=1e-12)


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_objective_matches_linearsvc_on_explicit_pairs(loss):
    rng = np.random.default_rng(5)
    X, a, b, C = make_problem(rng, n=24, d=5, pseudo=False)
    Z = materialize(X, a, b, False)
    # LIBLINEAR needs two classes: each pair as +z and -z, each with half its weight
    Z2 = np.vstack([Z, -Z])
    y2 = np.r_[np.ones(len(Z)), -np.ones(len(Z))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        svc = LinearSVC(C=1.0, loss=loss, fit_intercept=False, tol=1e-10, max_iter=200000,
                        dual=True).fit(Z2, y2, sample_weight=np.r_[C, C] / 2)
    solver = PairDualCD(X, loss=loss, tol=1e-8, max_iter=100000, random_state=0)
    solver.add_rows(a, b, C)
    solver.solve()
    ref = primal(Z, C, svc.coef_.ravel(), loss)
    ours = solver.primal_objective()
    assert ours <= ref * (1 + 1e-6)
    assert ours == pytest.approx(ref, rel=1e-4)


def test_dense_and_csr_identical():
    rng = np.random.default_rng(2)
    X, a, b, C = make_problem(rng, n=20, d=6, density=0.4)
    out = []
    for Xl in (X, sp.csr_matrix(X)):
        s = PairDualCD(Xl, loss="hinge", fit_threshold=True, tol=1e-6, random_state=7)
        s.add_rows(a, b, C)
        s.solve()
        out.append((full_w(s), s.alpha_.copy(), s.n_iter_))
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(out[0][1], out[1][1], rtol=1e-12, atol=1e-14)
    assert out[0][2] == out[1][2]


# ------------------------------------------------------------- warm starts
def _medium(rng, n=300, d=20):
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    m = 3000
    a = pos[rng.integers(0, pos.size, m)]
    b = neg[rng.integers(0, neg.size, m)]
    return X, a, b


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_warm_start_after_add_rows(loss, layout):
    rng = np.random.default_rng(0)
    X, a, b = _medium(rng)
    C = np.full(a.size, 0.05)
    cut = 2700
    warm = PairDualCD(layout(X), loss=loss, tol=1e-4, max_iter=10000, random_state=0)
    warm.add_rows(a[:cut], b[:cut], C[:cut])
    warm.solve()
    w_before = warm.coef_.copy()
    warm.add_rows(a[cut:], b[cut:], C[cut:])
    np.testing.assert_array_equal(warm.coef_, w_before)  # new rows enter with alpha = 0
    assert np.all(warm.alpha_[cut:] == 0)
    warm.solve()
    cold = PairDualCD(layout(X), loss=loss, tol=1e-4, max_iter=10000, random_state=0)
    cold.add_rows(a, b, C)
    cold.solve()
    assert warm.n_iter_ < cold.n_iter_
    assert warm.primal_objective() == pytest.approx(cold.primal_objective(), rel=1e-5)
    np.testing.assert_allclose(warm.coef_, cold.coef_, atol=2e-3)


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_warm_start_after_set_weights(loss):
    rng = np.random.default_rng(1)
    X, a, b = _medium(rng)
    C1 = rng.uniform(0.02, 0.1, a.size)
    C2 = C1 * rng.uniform(0.5, 1.2, a.size)
    warm = PairDualCD(X, loss=loss, tol=1e-4, max_iter=10000, random_state=3)
    warm.add_rows(a, b, C1)
    warm.solve()
    warm.set_weights(C2)
    if loss == "hinge":
        assert np.all(warm.alpha_ <= C2) and np.all(warm.alpha_ >= 0)
    # w is rebuilt from the (clipped) alpha
    w_check = (X[a] - X[b]).T @ warm.alpha_
    np.testing.assert_allclose(warm.coef_, w_check, atol=1e-10)
    warm.solve()
    cold = PairDualCD(X, loss=loss, tol=1e-4, max_iter=10000, random_state=3)
    cold.add_rows(a, b, C2)
    cold.solve()
    assert warm.n_iter_ < cold.n_iter_
    assert warm.primal_objective() == pytest.approx(cold.primal_objective(), rel=1e-5)


@pytest.mark.parametrize("fit_threshold", [False, True])
@pytest.mark.parametrize("frac", [0.1, 0.9])
def test_set_weights_updates_w_incrementally_or_rebuilds(fit_threshold, frac, layout):
    # few clipped alphas: w += sum delta_p z_p; most clipped: full rebuild. Both equal w(alpha).
    rng = np.random.default_rng(7)
    X, a, b, C = make_problem(rng, n=12, d=4)
    X = layout(X)
    solver = PairDualCD(X, fit_threshold=fit_threshold, tol=1e-6, max_iter=10000,
                        random_state=0)
    solver.add_rows(a, b, C)
    solver.solve()
    alpha_old = solver.alpha_.copy()
    nz = np.flatnonzero(alpha_old > 0)
    assert nz.size >= 10
    shrink = rng.permutation(nz)[: max(1, int(frac * nz.size))]
    C2 = C.copy()
    C2[shrink] = 0.5 * alpha_old[shrink]
    solver.set_weights(C2)
    np.testing.assert_array_equal(solver.alpha_, np.minimum(alpha_old, C2))
    Z = materialize(X, a, b, fit_threshold)
    w_ref = np.r_[Z.T @ solver.alpha_, [] if fit_threshold else [0.0]]  # theta 0 unless fitted
    np.testing.assert_allclose(full_w(solver), w_ref, atol=1e-12)
    # growing every weight clips nothing and leaves w as it was
    w_before = full_w(solver).copy()
    solver.set_weights(2 * C2)
    np.testing.assert_array_equal(full_w(solver), w_before)


@pytest.mark.parametrize("fit_threshold", [False, True])
def test_compact_rows_gives_bit_identical_results(fit_threshold, layout):
    # the private copy of the used rows runs the same arithmetic on the same values
    rng = np.random.default_rng(5)
    X, a, b, C = make_problem(rng, n=40, d=6)
    X = layout(X)
    order = rng.permutation(a.size)
    a, b, C = a[order], b[order], C[order]
    solvers = [PairDualCD(X, fit_threshold=fit_threshold, tol=1e-3, compact_rows=c,
                          random_state=2) for c in (False, True)]
    for lo, hi in [(0, 7), (7, 8), (8, 60), (60, a.size)]:  # several batches: buffers grow
        for solver in solvers:
            solver.add_rows(a[lo:hi], b[lo:hi], C[lo:hi])
            solver.set_weights(np.r_[C[:lo] * 0.7, C[lo:hi]])
            solver.solve()
        np.testing.assert_array_equal(solvers[0].w, solvers[1].w)
        np.testing.assert_array_equal(solvers[0].alpha_, solvers[1].alpha_)
        np.testing.assert_array_equal(solvers[0].margins(), solvers[1].margins())
        np.testing.assert_array_equal(solvers[0].rows_[0], solvers[1].rows_[0])
    assert solvers[1].dual_objective() == solvers[0].dual_objective()


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("fit_threshold", [False, True])
def test_pair_rows_solve_the_same_problem(fit_threshold, loss):
    """Materialized z_p rows (CSR): same optimum, margins, Q and objectives as implicit pairs."""
    rng = np.random.default_rng(6)
    X, a, b, C = make_problem(rng, n=40, d=6)
    X[rng.random(X.shape) < 0.4] = 0.0
    X[3] = X[5]  # a pair whose entries all cancel: z = 0 (+ threshold)
    a = np.r_[a, 3]
    b = np.r_[b, 5]
    C = np.r_[C, 0.5]
    Xs = sp.csr_matrix(X)
    solvers = [PairDualCD(Xs, loss=loss, fit_threshold=fit_threshold, tol=1e-9,
                          max_iter=100000, pair_rows=pr, random_state=2) for pr in (False, True)]
    assert not solvers[0].pool.pair_rows and solvers[1].pool.pair_rows
    for lo, hi in [(0, 7), (7, 8), (8, 60), (60, a.size)]:  # several batches: buffers grow
        for solver in solvers:
            solver.add_rows(a[lo:hi], b[lo:hi], C[lo:hi])
            solver.scale_weights(0.9)
            solver.solve()
        np.testing.assert_allclose(solvers[1].pool._rf[:hi, 1], solvers[0].pool._rf[:hi, 1],
                                   rtol=1e-12,
                                   atol=1e-12)  # Q_pp
        np.testing.assert_allclose(solvers[1].coef_, solvers[0].coef_, atol=1e-6)
        assert solvers[1].intercept_ == pytest.approx(solvers[0].intercept_, abs=1e-6)
        np.testing.assert_allclose(solvers[1].margins(), solvers[0].margins(), atol=1e-6)
        for s_ in solvers:
            assert s_.primal_objective() == pytest.approx(s_.dual_objective(), rel=1e-7)
    # the stored rows are the merged differences, cancelled entries dropped
    stored = solvers[1].pool
    Z = sp.csr_matrix((stored._cdata, stored._cind, stored._cptr[: a.size + 1]),
                      shape=(a.size, X.shape[1] + 1))
    Xo = np.vstack((X, np.zeros(X.shape[1])))  # row -1: the origin
    want = Xo[a] - Xo[b]
    np.testing.assert_array_equal(Z.toarray()[:, :-1], want)
    t = np.where(b < 0, -1.0, np.where(a < 0, 1.0, 0.0)) if fit_threshold else 0.0
    np.testing.assert_array_equal(Z.toarray()[:, -1], t + np.zeros(a.size))
    assert Z.getrow(a.size - 1).nnz == 0  # a real pair (no threshold entry) that cancels
    assert np.all(Z.data != 0)


def test_scale_weights_scales_alpha_and_w():
    rng = np.random.default_rng(7)
    X, a, b, C = make_problem(rng, n=30, d=5)
    s = PairDualCD(X, tol=1e-6, random_state=0)
    s.add_rows(a, b, C)
    s.solve()
    w, alpha, Cs = s.w.copy(), s.alpha_.copy(), s.C_.copy()
    s.scale_weights(0.37)
    np.testing.assert_allclose(s.C_, 0.37 * Cs, rtol=1e-15)
    np.testing.assert_allclose(s.alpha_, 0.37 * alpha, rtol=1e-15)
    assert np.all(s.alpha_ <= s.C_)
    np.testing.assert_allclose(s.w, 0.37 * w, rtol=1e-14)
    w_from_alpha = np.zeros_like(s.w)
    s.pool.rebuild_w(w_from_alpha)
    np.testing.assert_allclose(s.w, w_from_alpha, rtol=1e-12, atol=1e-14)
    with pytest.raises(ValueError, match="kappa"):
        s.scale_weights(0.0)


def test_same_seed_same_w_and_shrinking_same_optimum():
    rng = np.random.default_rng(4)
    X, a, b = _medium(rng, n=200, d=10)
    runs = []
    for seed, shrinking in [(5, True), (5, True), (6, True), (5, False)]:
        s = PairDualCD(sp.csr_matrix(X), tol=1e-6, random_state=seed, shrinking=shrinking)
        s.add_rows(a, b, 0.1)
        s.solve()
        runs.append(s)
    np.testing.assert_array_equal(runs[0].coef_, runs[1].coef_)
    np.testing.assert_array_equal(runs[0].alpha_, runs[1].alpha_)
    assert not np.array_equal(runs[0].alpha_, runs[2].alpha_)  # a different order was used
    for other in runs[2:]:
        assert other.primal_objective() == pytest.approx(runs[0].primal_objective(), rel=1e-6)


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_duality_gap(loss):
    rng = np.random.default_rng(8)
    X, a, b = _medium(rng, n=150, d=8)
    s = PairDualCD(X, loss=loss, fit_threshold=True, tol=1e-2, random_state=0)
    s.add_rows(np.r_[a, a[:50]], np.r_[b, -np.ones(50, dtype=int)], 0.3)
    s.add_rows(-np.ones(20, dtype=int), b[:20], 0.2)
    p0, d0 = s.primal_objective(), s.dual_objective()
    assert p0 == pytest.approx(s.C_.sum()) and d0 == 0.0  # alpha = 0, w = 0
    s.solve()
    p1, d1 = s.primal_objective(), s.dual_objective()
    assert d1 <= p1 + 1e-9  # weak duality
    res = s.result()
    assert (res.objective, res.lower_bound, res.n_iter) == (p1, d1, s.n_iter_)
    np.testing.assert_array_equal(res.coef, s.w)
    assert res.intercept == s.intercept_ and res.converged == s.converged_
    assert (p1 - d1) / p1 < 1e-2
    s.tol, s.max_iter = 1e-8, 100000
    s.solve()
    p2, d2 = s.primal_objective(), s.dual_objective()
    assert d1 <= d2 + 1e-12  # dual CD only increases the dual objective
    assert (p2 - d2) / p2 < 1e-8


def test_non_convergence_is_returned_not_warned_and_bad_input():
    rng = np.random.default_rng(0)
    X, a, b = _medium(rng, n=100, d=5)
    s = PairDualCD(X, tol=1e-12, max_iter=2, random_state=0)
    s.add_rows(a, b, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the driver reports, the estimator warns
        assert s.solve() is False
    assert s.n_iter_ == 2 and s.pg_gap_ > 1e-12 and not s.converged_
    assert "max_iter=2" in s.not_converged_message("PairDualCD", 2, 1e-12)
    assert s.solve(tol=1e3, max_iter=5) is True  # solve's own tol / max_iter
    with pytest.raises(ValueError, match="tol"):
        s.solve(tol=0.0)
    with pytest.raises(ValueError, match="max_iter"):
        s.solve(max_iter=0)
    with pytest.raises(ValueError, match="C must be finite and > 0"):
        s.add_rows([0], [1], [0.0])
    with pytest.raises(ValueError, match="outside"):
        s.add_rows([0], [100], 1.0)
    with pytest.raises(ValueError, match="zero vector"):
        s.add_rows([-1], [-1], 1.0)
    with pytest.raises(ValueError, match="same length"):
        s.add_rows([0, 1], [2], 1.0)
    with pytest.raises(ValueError, match="expected"):
        s.set_weights(np.ones(3))
    with pytest.raises(TypeError, match="integer"):
        s.add_rows([0.5], [1.0], 1.0)
    with pytest.raises(ValueError, match="loss"):
        PairDualCD(X, loss="log")
    with pytest.raises(TypeError, match="X must be"):
        PairDualCD([[1.0, 2.0]])


def test_empty_pool_and_zero_rows():
    X = np.array([[1.0, 2.0], [1.0, 2.0], [0.0, 1.0]])
    s = PairDualCD(X, tol=1e-10, random_state=0)
    assert s.solve() and s.n_iter_ == 1 and s.n_rows == 0
    s.add_rows([0, 0], [1, 2], [1.0, 1.0])  # row 0 is z = 0: its alpha goes to its bound
    s.solve()
    assert s.alpha_[0] == 1.0
    assert s.primal_objective() == pytest.approx(s.dual_objective(), abs=1e-9)


# ------------------------------------------------------------ the primitives
@pytest.mark.kernel
def test_row_primitives_against_numpy(layout):
    rng = np.random.default_rng(9)
    X = rng.normal(size=(7, 5)) * (rng.random((7, 5)) < 0.5)
    from birank._validation import as_csr_or_dense, kernel_rows

    xa = kernel_rows(as_csr_or_dense(layout(X)))
    w = rng.normal(size=6)
    sq = sparse_rows.row_sqnorms(xa)
    np.testing.assert_allclose(sq, (X**2).sum(1))
    for i, j in [(0, 1), (2, 2), (3, -1), (-1, 4), (5, 6)]:
        xi = X[i] if i >= 0 else np.zeros(5)
        xj = X[j] if j >= 0 else np.zeros(5)
        assert sparse_rows.pair_dot_w(xa, w, i, j) == pytest.approx(w[:5] @ (xi - xj))
        # |x_i - x_j|^2 from the norms and the merge x_i . x_j
        assert sparse_rows.pair_sqnorm(xa, sq, i, j) == pytest.approx(((xi - xj) ** 2).sum(),
                                                                      abs=1e-12)
        w2 = w.copy()
        sparse_rows.pair_axpy(xa, w2, 0.7, i, j)
        np.testing.assert_allclose(w2[:5], w[:5] + 0.7 * (xi - xj))
        assert w2[5] == w[5]


@pytest.mark.kernel
def test_rng_is_xorshift128_and_in_range():
    state = sparse_rows.rng_init(12345)
    w, z, y, x = (int(v) for v in state)  # state[0] is the newest word, state[3] the oldest
    m = 0xFFFFFFFF
    for _ in range(200):  # Marsaglia's xorshift128 recurrence, in plain Python ints
        t = x ^ ((x << 11) & m)
        x, y, z = y, z, w
        w = (w ^ (w >> 19)) ^ (t ^ (t >> 8))
        assert sparse_rows.rng_next(state) == w
    draws = np.array([sparse_rows.rng_int(state, 7) for _ in range(2000)])
    assert draws.min() == 0 and draws.max() == 6
    assert np.all(np.abs(np.bincount(draws) / 2000 - 1 / 7) < 0.04)
    u = np.array([sparse_rows.rng_uniform(state) for _ in range(2000)])
    assert 0 <= u.min() and u.max() < 1 and abs(u.mean() - 0.5) < 0.03
    s1, s2 = sparse_rows.rng_init(1), sparse_rows.rng_init(2)
    assert [sparse_rows.rng_next(s1) for _ in range(3)] != [sparse_rows.rng_next(s2)
                                                            for _ in range(3)]


@pytest.mark.parametrize("fit_threshold", [False, True])
def test_pool_matrix_gives_the_margins(fit_threshold, layout):
    rng = np.random.default_rng(8)
    X, a, b, C = make_problem(rng, n=30, d=5)
    X = layout(X)
    for kw in ({}, {"compact_rows": True}, {"pair_rows": True}):
        s = PairDualCD(X, fit_threshold=fit_threshold, tol=0.1, random_state=0, **kw)
        s.add_rows(a, b, C)
        s.solve()
        Z = s.pool_matrix()
        assert Z.shape == (a.size, X.shape[1] + 1)
        np.testing.assert_allclose(np.asarray(Z @ s.w).ravel(), s.margins(), atol=1e-12)


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("fit_threshold", [False, True])
def test_newton_on_the_pool_matrix_matches_dual_cd(loss, fit_threshold):
    """solve_rows (primal Newton, certified gap for the hinge) reaches dual CD's optimum."""
    from birank.solvers.newton import solve_rows

    rng = np.random.default_rng(9)
    X, a, b, C = make_problem(rng, n=24, d=4)
    s = PairDualCD(sp.csr_matrix(X), loss=loss, fit_threshold=fit_threshold, tol=1e-10,
                   max_iter=200000, pair_rows=True, random_state=0)
    s.add_rows(a, b, C)
    s.solve()
    res = solve_rows(s.pool_matrix(), s.C_, loss, tol=1e-8, max_iter=5000)
    assert res.converged
    w = res.coef
    w_cd, ref = s.w.copy(), s.primal_objective()
    s.w[:] = w
    assert s.primal_objective() == pytest.approx(ref, rel=1e-7)
    # strong convexity: |w - w*|^2 / 2 <= f(w) - f(w*), so both are near the optimum
    assert np.linalg.norm(w - w_cd) <= 2 * np.sqrt(2e-7 * ref)


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_pool_and_driver_used_separately_equal_pairdualcd(loss, layout):
    """PairPool + DualCD (the pieces other solvers reuse) give PairDualCD's result bit for bit."""
    from birank.solvers.dual_cd import DualCD
    from birank.solvers.pair_pool import PairPool

    rng = np.random.default_rng(12)
    X, a, b, C = make_problem(rng, n=30, d=5)
    X = layout(X)
    one = PairDualCD(X, loss=loss, fit_threshold=True, tol=1e-3, pair_rows=True, random_state=4)
    pool = PairPool(X, fit_threshold=True, pair_rows=True)
    two = DualCD(pool, loss=loss, random_state=4)
    for lo, hi in [(0, 20), (20, a.size)]:
        for s in (one, two):
            s.add_rows(a[lo:hi], b[lo:hi], C[lo:hi])
            s.scale_weights(0.8)
            assert s.solve(1e-3, 1000)
    np.testing.assert_array_equal(one.w, two.w)
    np.testing.assert_array_equal(one.alpha_, pool.alpha_)
    assert two.pool is pool and pool.n_rows == a.size


def test_pair_pool_checks_its_rows():
    from birank.solvers.pair_pool import PairPool

    pool = PairPool(np.eye(3))
    with pytest.raises(ValueError, match="outside"):
        pool.add_rows([0], [3], 1.0)
    with pytest.raises(ValueError, match="C must be finite"):
        pool.add_rows([0], [1], -1.0)
    pool.add_rows([0, -1], [1, 2], [1.0, 2.0])
    np.testing.assert_array_equal(pool.pool_matrix(), [[1.0, -1.0, 0.0, 0.0],
                                                       [0.0, 0.0, -1.0, 0.0]])
    np.testing.assert_array_equal(pool.alpha_, [0.0, 0.0])


@pytest.mark.parametrize("layout", ["dense", "csr"])
@pytest.mark.parametrize("compact_rows", [False, True])
def test_row_index_width_does_not_change_the_solution(layout, compact_rows):
    # the pool stores (a, b) as int32 below 2^31 rows of X (half the memory of an
    # O(N) pool); rows given as int64, int32 or uint16 are the same pool, bit for bit
    rng = np.random.default_rng(5)
    X, a, b, C = make_problem(rng, n=12, d=4)
    X = sp.csr_matrix(X) if layout == "csr" else X
    sols = []
    for dt in (np.int64, np.int32, np.uint16):
        aa, bb = a.astype(dt), b.astype(dt)
        if dt == np.uint16:  # no -1 in an unsigned type: real pairs only
            keep = (a >= 0) & (b >= 0)
            aa, bb = a[keep].astype(dt), b[keep].astype(dt)
        solver = PairDualCD(X, tol=1e-10, max_iter=10_000, random_state=0,
                            compact_rows=compact_rows)
        solver.add_rows(aa, bb, C[: aa.size])
        assert solver.solve()
        ra, rb = solver.rows_
        assert ra.dtype == rb.dtype == np.int32
        np.testing.assert_array_equal(ra, aa.astype(np.int64))
        sols.append(solver.coef_.copy())
    np.testing.assert_array_equal(sols[0], sols[1])
    assert np.all(np.isfinite(sols[2]))


@pytest.mark.kernel
@pytest.mark.parametrize("squared", [False, True])
@pytest.mark.parametrize("fit_threshold", [False, True])
@pytest.mark.parametrize("rows", ["dense", "csr", "csr of ones"])
def test_point_kernel_equals_generic_kernel_bit_for_bit(squared, fit_threshold, rows):
    # a pool of pseudo-pairs runs dual_cd_points_run; it must reproduce the generic pair-row
    # kernel exactly (same random stream, same arithmetic) on dense rows, on CSR rows,
    # and when the values are all 1 and the point kernel skips reading them
    from birank._kernels.dual_cd import dual_cd_points_run, dual_cd_run
    from birank._kernels.sparse_rows import split_rows
    from birank.solvers._passes import Passes
    from birank.solvers.pair_pool import PairPool
    from dual_cd_calls import one_call

    rng = np.random.default_rng(4)
    dense = sp.random(80, 12, density=0.3, random_state=2).toarray()
    dense[79] = 0.0  # an empty last row: the kernel's look-ahead must not read past nnz
    if rows == "csr of ones":
        dense[dense != 0.0] = 1.0
    X = dense if rows == "dense" else sp.csr_matrix(dense)
    y01 = rng.integers(0, 2, 80)
    a = np.where(y01 == 1, np.arange(80), -1)
    b = np.where(y01 == 1, -1, np.arange(80))
    C = rng.uniform(0.1, 2.0, 80)
    outs = []
    for kernel in ("generic", "points", "pool"):
        pool = PairPool(X, fit_threshold=fit_threshold)
        pool.add_rows(a, b, C)
        assert pool._points_only
        w = np.zeros(pool.state_size)
        if kernel == "generic":
            it, gap = one_call(dual_cd_run, (pool._xa, w, pool._abk, pool._rf, pool.n_rows,
                                             squared, pool._kthr, 1e-6, True), 7, pool.n_rows, 50)
        elif kernel == "points":
            it, gap = one_call(dual_cd_points_run,
                               (*split_rows(pool._xa), rows == "csr of ones", w, pool._abk,
                                pool._rf, pool.n_rows, squared, pool._kthr, 1e-6, True),
                               7, pool.n_rows, 50)
        else:  # the pool picks the point kernel and detects the values all 1 itself
            passes = Passes(7, pool.n_rows)
            pool.cd_run(w, squared, 1e-6, True, passes, 50)
            it, gap = passes.n_iter, passes.gap
            assert pool._binary == (rows == "csr of ones")
        outs.append((it, gap, w, pool.alpha_.copy()))
    for out in outs[1:]:
        assert out[0] == outs[0][0] and out[1] == outs[0][1]
        np.testing.assert_array_equal(out[2], outs[0][2])
        np.testing.assert_array_equal(out[3], outs[0][3])
    # a real pair in the pool switches to the generic kernel
    pool = PairPool(X)
    pool.add_rows([0, 1], [2, -1], [1.0, 1.0])
    assert not pool._points_only


@pytest.mark.kernel
@pytest.mark.parametrize("fit_threshold", [False, True])
def test_point_kernel_on_dense_rows_of_no_features(fit_threshold):
    # the look-ahead reads no element of a row that has none; the result is the generic
    # kernel's (w is the threshold alone)
    from birank._kernels.dual_cd import dual_cd_run
    from birank.solvers._passes import Passes
    from birank.solvers.pair_pool import PairPool
    from dual_cd_calls import one_call

    X = np.zeros((6, 0))
    a = np.array([0, 1, 2, -1, -1, -1])
    b = np.array([-1, -1, -1, 3, 4, 5])
    outs = []
    for kernel in ("generic", "pool"):
        pool = PairPool(X, fit_threshold=fit_threshold)
        pool.add_rows(a, b, np.full(6, 0.5))
        w = np.zeros(pool.state_size)
        if kernel == "generic":
            one_call(dual_cd_run, (pool._xa, w, pool._abk, pool._rf, pool.n_rows, False,
                                   pool._kthr, 1e-6, True), 3, pool.n_rows, 20)
        else:
            pool.cd_run(w, False, 1e-6, True, Passes(3, pool.n_rows), 20)
        outs.append((w, pool.alpha_.copy()))
    np.testing.assert_array_equal(outs[0][0], outs[1][0])
    np.testing.assert_array_equal(outs[0][1], outs[1][1])
    assert np.all(outs[1][1] > 0.0)


@pytest.mark.kernel
@pytest.mark.parametrize("n", [1, 2, 17, 1000])
def test_rng_shuffle_is_fisher_yates_on_the_rng_int_stream(n):
    # the shuffle keeps the RNG words in registers; it must draw exactly what n calls
    # of rng_int draw, leave the state where they leave it, and give a permutation
    from birank._kernels.sparse_rows import rng_init, rng_int, rng_shuffle

    state_a, state_b = rng_init(11), rng_init(11)
    got = np.arange(n) * 3
    rng_shuffle(got, n, state_a)
    want = np.arange(n) * 3
    for i in range(n):
        j = i + rng_int(state_b, n - i)
        want[i], want[j] = want[j], want[i]
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(state_a, state_b)
    np.testing.assert_array_equal(np.sort(got), np.arange(n) * 3)
