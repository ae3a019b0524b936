"""The faster paths equal their plain references (numpy sorts, scipy products, loops)."""

import numpy as np
import pytest
import scipy.sparse as sp

from birank._kernels.metrics import best_cut_buckets
from birank._kernels.radix_sort import (LONG_RUN, SHORT_RUN, argsort_scores, radix_scratch,
                                        sort_by_segment, sort_values)
from birank import _parallel as parallel
from birank._parallel import BlockedProducts, effective_n_jobs, row_blocks
from birank.metrics import best_accuracy_threshold
from birank.solvers.newton import PairObjective, dense_if_dense_in_fact


def _scores(kind, n, rng):
    if kind == "normal":
        return rng.normal(size=n)
    if kind == "ties":  # many equal values, signed zeros
        s = np.round(rng.normal(size=n), 1)
        s[::5] = -0.0
        return s
    if kind == "close":  # closer than float32 resolves: the 64-bit fallback
        return 1.0 + 1e-12 * rng.normal(size=n)
    if kind == "near":  # small runs that tie as float32 only: the insertion pass moves rows
        return np.round(rng.normal(size=n), 4) + 1e-10 * rng.normal(size=n)
    return np.r_[rng.normal(size=max(n - 3, 0)), 1e300, -1e300, 5e-324][:n]  # "extreme"


@pytest.mark.kernel
# the float32 key of +-1e300 is +-inf by design (monotone, then the 64-bit fallback orders
# them); only numpy, when the kernel runs as Python (NUMBA_DISABLE_JIT), warns about the cast
@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")
@pytest.mark.parametrize("kind", ["normal", "ties", "near", "close", "extreme"])
@pytest.mark.parametrize("n", [0, 1, 5, 3000, 70000])  # the radix kernel at every size
# both layouts of the passes: float32 keys packed with the rows (then a gather of the
# sorted scores), float64 keys moved with the rows (the sorted scores read off them)
@pytest.mark.parametrize("records", [False, True])
def test_radix_argsort_equals_numpy_stable_argsort(kind, n, records):
    rng = np.random.default_rng(n)
    s = _scores(kind, n, rng)
    if kind == "normal" and n > 5:
        s[[1, 3]] = -0.0, 0.0  # equal keys for equal numbers: the input order kept
    order = np.empty(n, dtype=np.int64)
    argsort_scores(s, order, radix_scratch(n, records=records))
    np.testing.assert_array_equal(order, np.argsort(s, kind="stable"))
    # the sorted scores handed to the sweep, on every path (numpy, radix, 64-bit fallback)
    sorted_out = np.full(n, np.nan)
    argsort_scores(s, order, radix_scratch(n, records=records), sorted_out=sorted_out)
    np.testing.assert_array_equal(order, np.argsort(s, kind="stable"))
    np.testing.assert_array_equal(sorted_out, s[order])


@pytest.mark.kernel
@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")
@pytest.mark.parametrize("kind", ["normal", "ties", "near", "close", "extreme", "runs"])
@pytest.mark.parametrize("n", [0, 1, 5, 3000])  # 3000: runs of every length class
def test_sort_values_equals_numpy_sort_also_in_place(kind, n):
    # "close": one run of equal upper 32 key bits (the lower bits' radix passes);
    # "runs": a few hundred values each on a handful of such runs (numpy's sort of a run)
    rng = np.random.default_rng(n + 1)
    if kind == "runs":
        s = rng.choice([-2.0, 0.5, 3.0, 7.0], size=n) * (1.0 + 1e-12 * rng.normal(size=n))
    else:
        s = _scores(kind, n, rng)
    out = np.full(n, np.nan)
    sort_values(s, out, np.empty(n, dtype=np.uint64))
    np.testing.assert_array_equal(out, np.sort(s))
    assert not np.any(np.signbit(out[out == 0.0]))  # -0.0 comes out as 0.0
    same = s.copy()
    sort_values(same, same, np.empty(n, dtype=np.uint64))
    np.testing.assert_array_equal(same, out)
    if kind in ("close", "runs") and n >= 3000:  # the run paths these kinds are for
        high = out.view(np.uint64) >> np.uint64(32)
        longest = max(np.unique(high, return_counts=True)[1])
        assert (longest >= LONG_RUN) if kind == "close" else (SHORT_RUN < longest < LONG_RUN)


@pytest.mark.kernel
def test_sort_by_segment_keeps_score_order_inside_each_group():
    rng = np.random.default_rng(1)
    n = 5000
    s = np.round(rng.normal(size=n), 2)
    gid = rng.integers(0, 7, n)
    seg = np.concatenate(([0], np.cumsum(np.bincount(gid, minlength=7)))).astype(np.int64)
    order_all = np.empty(n, dtype=np.int64)
    argsort_scores(s, order_all, radix_scratch(n))
    order = np.empty(n, dtype=np.int64)
    sort_by_segment(order_all, gid, seg, order)
    for g in range(7):
        rows = np.flatnonzero(gid == g)
        np.testing.assert_array_equal(order[seg[g]:seg[g + 1]],
                                      rows[np.argsort(s[rows], kind="stable")])


@pytest.mark.kernel
@pytest.mark.parametrize("seed", range(12))
def test_bucket_cut_kernel_equals_sorted_cut(seed):
    # the kernel serves large inputs only; here it is checked on every kind of small one
    rng = np.random.default_rng(seed)
    n = int(rng.integers(100, 4000))
    kind = seed % 4
    s = [rng.normal(size=n), rng.integers(0, 30, n).astype(float),
         np.r_[rng.normal(size=n - 2), 1e12, -1e12], np.full(n, 0.5)][kind]
    y = (rng.random(n) < 0.3) | (s > 1.5)
    thr, correct = best_cut_buckets(np.ascontiguousarray(s, dtype=np.float64), y)
    ref_thr, ref_acc = best_accuracy_threshold(y, s, sample_weight=np.ones(n))
    assert (float(thr), correct / n) == (ref_thr, ref_acc)


@pytest.mark.kernel
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("bad", ["none", "nan_first", "nan_last", "inf", "-inf", "nan_and_inf",
                                 "all_nan", "zeros", "empty"])
def test_value_scan_equals_numpy_in_any_parts(bad, dtype, monkeypatch):
    """check_values' one pass: finite and the largest |x| of the non-NaN values, as numpy's
    three passes say, whether read in one part or in parts on two threads."""
    monkeypatch.setattr(parallel, "SCAN_THREADS_MIN", 64)  # parts on small data
    rng = np.random.default_rng(5)
    a = (rng.normal(size=5000) * 10.0 ** rng.integers(-30, 30, 5000)).astype(dtype)
    where = {"nan_first": [(0, np.nan)], "nan_last": [(4999, np.nan)], "inf": [(2500, np.inf)],
             "-inf": [(17, -np.inf)], "nan_and_inf": [(3, np.nan), (4000, -np.inf)]}
    for i, v in where.get(bad, []):
        a[i] = v
    a = {"all_nan": np.full(5000, np.nan, dtype=dtype), "zeros": np.zeros(5000, dtype=dtype),
         "empty": np.zeros(0, dtype=dtype)}.get(bad, a)
    finite = bool(np.isfinite(a).all())
    kept = np.abs(a[~np.isnan(a)])
    top = float(kept.max()) if kept.size else 0.0
    for n_jobs in (None, 1, 2):
        assert parallel.scan_values(a, n_jobs) == (finite, top)


@pytest.mark.kernel
def test_score_vector_kernels_give_numpys_bits_in_any_parts():
    """The Newton loops' passes over rows (trial scores, the rows' squared hinge, its
    Hessian's diagonal times u) equal the numpy expressions they replace, bit for bit,
    whether run whole or in parts; NaN, infinities and -0.0 included."""
    from birank._kernels.vector_ops import add_scaled, multiply, squared_hinge_rows

    rng = np.random.default_rng(8)
    n = 1001
    s = rng.normal(size=n) * 2.0
    s[:6] = [np.nan, np.inf, -np.inf, 1.0, -0.0, 1.0 + 1e-16]
    y = rng.normal(size=n)
    cost = rng.random(n) + 0.5
    ref_r = np.maximum(1.0 - s, 0.0)
    ref = {"sum": s + 0.3 * y, "zero": 0.0 + 0.3 * y, "r": ref_r,
           "g": -2.0 * cost * ref_r, "d": np.where(ref_r > 0.0, 2.0 * cost, 0.0),
           "r2": ref_r * ref_r}
    for cuts in ([0, n], [0, 1, 500, 501, n]):
        got = {k: np.full(n, 7.0) for k in ref}
        for p0, p1 in zip(cuts[:-1], cuts[1:]):
            add_scaled(got["sum"], s, 0.3, y, p0, p1)
            add_scaled(got["zero"], np.empty(0), 0.3, y, p0, p1)
            squared_hinge_rows(s, cost, 1.0, got["r"], got["g"], got["d"], p0, p1)
            multiply(got["r2"], got["r"], got["r"], p0, p1)
        for k in ref:
            np.testing.assert_array_equal(got[k].view(np.int64), ref[k].view(np.int64),
                                          err_msg=k)


@pytest.mark.kernel
@pytest.mark.parametrize("n_features", [7, 3000])
def test_blocked_products_same_bits_for_any_n_jobs_and_equal_scipy(n_features):
    rng = np.random.default_rng(3)
    X = sp.random(20000, n_features, density=min(1.0, 30 / n_features), format="csr",
                  random_state=4)
    v = rng.normal(size=n_features)
    u = rng.normal(size=20000)
    one, two = BlockedProducts(X, n_jobs=1), BlockedProducts(X, n_jobs=2)
    np.testing.assert_array_equal(one.matvec(v), two.matvec(v))
    np.testing.assert_array_equal(one.rmatvec(u), two.rmatvec(u))
    np.testing.assert_allclose(one.matvec(v), X @ v, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(one.rmatvec(u), X.T @ u, rtol=1e-11, atol=1e-11)


@pytest.mark.kernel
def test_indicator_products_read_no_values_and_give_the_same_bits():
    # 0/1 features: X v, X' u and (X o X)' u without the values equal the ones that read
    # them, bit for bit, on one block and on threads; a value other than 1 is not indicator
    from birank._linalg import is_indicator, matvec, rmatvec, sq_rmatvec

    rng = np.random.default_rng(8)
    X = sp.random(30000, 400, density=0.03, format="csr", random_state=9)
    X.data[:] = 1.0
    v, u = rng.normal(size=400), rng.normal(size=30000)
    u[::3] = 0.0  # rows the transposed product skips
    assert is_indicator(X)
    for k in (None, 2):
        np.testing.assert_array_equal(matvec(X, v, k, indicator=True), matvec(X, v, k))
    np.testing.assert_array_equal(rmatvec(X, u, indicator=True), rmatvec(X, u))
    np.testing.assert_array_equal(sq_rmatvec(X, u, indicator=True), sq_rmatvec(X, u))
    plain, fast = BlockedProducts(X, n_jobs=2), BlockedProducts(X, n_jobs=2, indicator=True)
    np.testing.assert_array_equal(fast.matvec(v), plain.matvec(v))
    np.testing.assert_array_equal(fast.rmatvec(u), plain.rmatvec(u))
    np.testing.assert_array_equal(fast.rmatvec(u, squared=True), plain.rmatvec(u, squared=True))
    np.testing.assert_allclose(fast.rmatvec(u), X.T @ u, rtol=1e-12, atol=1e-12)
    X.data[17] = 2.0
    assert not is_indicator(X)
    assert not is_indicator(X.toarray()) and not is_indicator(sp.csr_matrix((3, 4)))


def test_ranksvm_on_indicator_features_same_coefficients_as_reading_the_values(monkeypatch):
    # RankSVM's objectives take the indicator products on 0/1 features (checked once);
    # forcing the value-reading products gives the same coefficients bit for bit
    import birank.solvers.newton as newton
    from birank import RankSVM
    from birank.datasets import make_sparse_bipartite

    X, y, _ = make_sparse_bipartite(3000, n_features=300, nnz_per_row=12, random_state=2)
    X.data[:] = 1.0
    yr = y + 0.5 * np.random.default_rng(0).random(y.shape[0])
    obj = PairObjective(X, y.astype(np.float64))
    assert obj.indicator
    fits = {}
    for forced in (False, True):
        if forced:
            monkeypatch.setattr(newton, "is_indicator", lambda X: False)
        fits[forced] = [RankSVM(C=1e-3, **kw).fit(X, labels).coef_
                        for kw in ({}, {"n_jobs": 2}, {"loss": "hinge"}) for labels in (y, yr)]
    for a, b in zip(fits[False], fits[True]):
        np.testing.assert_array_equal(a, b)


@pytest.mark.kernel
def test_one_pass_gradient_and_diagonal_products_equal_the_three_products():
    # X' u, X' D and (X o X)' D in one pass over X: the same bits as the three products,
    # on one block and on threads, for float64, float32, 0/1 values and int64 pointers,
    # with rows where u or D (or both) are 0, as after a sweep
    from birank._linalg import grad_diag_rmatvec, rmatvec, sq_rmatvec

    rng = np.random.default_rng(10)
    X = sp.random(30000, 300, density=0.04, format="csr", random_state=11)
    X.data -= 0.5  # signed values
    u, D = rng.normal(size=30000), rng.random(30000)
    u[::3] = 0.0
    D[::5] = 0.0
    ones = X.copy()
    ones.data[:] = 1.0
    wide = X.copy()
    wide.indptr = wide.indptr.astype(np.int64)
    wide.indices = wide.indices.astype(np.int64)
    for M, indicator in ((X, False), (X.astype(np.float32), False), (ones, True), (wide, False)):
        ref = (rmatvec(M, u), rmatvec(M, D), sq_rmatvec(M, D))
        got = grad_diag_rmatvec(M, u, D, indicator=indicator)
        for a, b in zip(got, ref):
            np.testing.assert_array_equal(a, b)
        G, none, Q = grad_diag_rmatvec(M, u, D, with_mean=False, indicator=indicator)
        assert none is None
        np.testing.assert_array_equal(G, ref[0])
        np.testing.assert_array_equal(Q, ref[2])
    np.testing.assert_allclose(ref[2], (X.multiply(X)).T @ D, rtol=1e-12)
    for k in (1, 2):
        P = BlockedProducts(X, n_jobs=k)
        ref = (P.rmatvec(u), P.rmatvec(D), P.rmatvec(D, squared=True))
        for a, b in zip(P.grad_diag(u, D), ref):
            np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(P.rmatvec(u), ref[0])  # its scratch is shared
    with pytest.raises(TypeError, match="CSR"):
        grad_diag_rmatvec(X.toarray(), u, D)


@pytest.mark.parametrize("kind", ["ranksvm", "hinge", "groups", "rows"])
def test_newton_with_one_pass_products_gives_the_same_bits_as_three(kind, monkeypatch):
    # the objectives' grad_and_diag reads X once where the gradient and the
    # preconditioner read it three times (two for the rows' objective): same models
    import birank.solvers.newton as newton
    from birank import RankSVM, WeightedSVM
    from birank.datasets import make_sparse_bipartite

    X, y, _ = make_sparse_bipartite(4000, n_features=300, nnz_per_row=12, random_state=3)
    groups = np.arange(4000) // 40
    graded = y + np.random.default_rng(1).integers(0, 3, 4000)
    fit = {"ranksvm": lambda k: RankSVM(C=1e-3, n_jobs=k).fit(X, y),
           "hinge": lambda k: RankSVM(C=1e-3, loss="hinge", n_jobs=k).fit(X, y),
           "groups": lambda k: RankSVM(C=1e-3, n_jobs=k).fit(X, graded, groups=groups),
           "rows": lambda k: WeightedSVM(loss="squared_hinge", solver="newton",
                                         n_jobs=k).fit(X, y)}[kind]
    calls = []
    fused = newton._Products.grad_diag_rmv

    def counted(self, u, D, with_mean=True):
        calls.append(with_mean)
        return fused(self, u, D, with_mean)

    def three(self, u, D, with_mean=True):
        return self.rmv(u), (self.rmv(D) if with_mean else None), self.sq_rmv(D)

    monkeypatch.setattr(newton._Products, "grad_diag_rmv", counted)
    one_pass = [fit(k) for k in (None, 2)]
    assert calls and all(c == (kind != "rows") for c in calls)
    monkeypatch.setattr(newton._Products, "grad_diag_rmv", three)
    for a, k in zip(one_pass, (None, 2)):
        b = fit(k)
        np.testing.assert_array_equal(a.coef_, b.coef_)
        assert a.n_iter_ == b.n_iter_


@pytest.mark.parametrize("kind", ["squared", "hinge", "rows_threads"])
def test_cg_sums_the_direction_scores_without_a_product(kind, monkeypatch):
    # conjugate gradients sums the X p of its steps into X d (equal to a product to
    # rounding), so a Newton iteration makes one product with X fewer: the objective
    # forms X v for its CG steps and the initial scores alone
    import birank.solvers.newton as newton
    from birank.datasets import make_sparse_bipartite

    X, y, _ = make_sparse_bipartite(3000, n_features=200, nnz_per_row=10, random_state=4)
    y = y.astype(np.float64)
    if kind == "squared":
        obj = PairObjective(X, y, C=1e-2)
    elif kind == "hinge":
        obj = newton.HuberPairObjective(PairObjective(X, y), PairObjective(X, y), 1e-2, 0.1)
    else:  # the rows objective on row blocks forms X v (one block alone reads active rows)
        Z = X.multiply(np.where(y > 0, 1.0, -1.0)[:, None]).tocsr()
        obj = newton.RowsObjective(Z, np.ones(3000), C=1e-2, n_jobs=1)
    w = 0.3 * np.random.default_rng(0).normal(size=X.shape[1])
    obj.fun_grad(w)
    g, M = obj.grad_and_diag(w)
    d, steps, xd = newton._cg(obj.hess_vec_scores, g, 1e-8 * np.linalg.norm(g), 50, M)
    assert steps > 1
    np.testing.assert_allclose(xd, obj.scores(d), rtol=1e-10, atol=1e-12 * np.abs(xd).max())
    mv = []
    kept = newton._Products.mv
    monkeypatch.setattr(newton._Products, "mv", lambda self, v: mv.append(1) or kept(self, v))
    res = newton.newton_cg(obj, np.zeros(X.shape[1]), tol=1e-6)
    assert res.converged and len(mv) == 1 + res.info["cg"]


def test_row_blocks_depend_on_the_matrix_only():
    X = sp.random(50000, 40, density=0.5, format="csr", random_state=0)
    b = row_blocks(X.indptr, X.shape[1])
    assert b[0] == 0 and b[-1] == X.shape[0] and np.all(np.diff(b) > 0)
    assert effective_n_jobs(None) == 1 and effective_n_jobs(1) == 1
    assert effective_n_jobs(-1) >= 1


def test_dense_in_fact_matrix_gives_the_same_pair_objective():
    rng = np.random.default_rng(5)
    Xd = rng.normal(size=(400, 6))
    Xd[rng.random(Xd.shape) < 0.1] = 0.0  # 90% stored: dense in fact
    X = sp.csr_matrix(Xd)
    assert isinstance(dense_if_dense_in_fact(X), np.ndarray)
    sparse_X = sp.csr_matrix(np.where(rng.random((400, 6)) < 0.5, Xd, 0.0))
    assert dense_if_dense_in_fact(sparse_X) is sparse_X
    y = rng.integers(0, 3, 400).astype(float)
    w = rng.normal(size=6)
    f_dense, g_dense, _ = PairObjective(X, y).fun_grad(w)
    f_ref, g_ref, _ = PairObjective(Xd, y).fun_grad(w)
    assert f_dense == pytest.approx(f_ref, rel=1e-13)
    np.testing.assert_allclose(g_dense, g_ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("loss", ["squared_hinge", "hinge"])
@pytest.mark.parametrize("y", [[0.0, 1.0, 0.0, 1.0], [0.1, 0.5, 0.2, 0.9]])
def test_threads_fit_a_csr_matrix_without_entries(loss, y):
    # every column unused, so the products run over no column at all: w = 0 on threads as
    # on one (the sums' split over the threads once had a zero step there)
    from birank import RankSVM, WeightedSVM

    X, y = sp.csr_matrix((4, 3)), np.asarray(y)
    one = RankSVM(C=0.1, loss=loss).fit(X, y)
    two = RankSVM(C=0.1, loss=loss, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(two.coef_, np.zeros(3))
    np.testing.assert_array_equal(two.coef_, one.coef_)
    wsvm = WeightedSVM(loss="squared_hinge", solver="newton", n_jobs=2).fit(X, y > 0.3)
    np.testing.assert_array_equal(wsvm.coef_, np.zeros(3))


@pytest.mark.parametrize("loss", ["squared_hinge", "hinge"])
def test_ranksvm_same_coefficients_for_one_and_two_jobs(loss, monkeypatch):
    import birank._calibration
    import birank.solvers.two_label_sweep as two_label_sweep
    from birank import RankSVM

    # the two-label sweep's passes on threads at this size too (below their threshold)
    monkeypatch.setattr(two_label_sweep, "TWO_LABEL_THREADS_MIN", 0)

    rng = np.random.default_rng(7)
    X = sp.random(30000, 50, density=0.2, format="csr", random_state=8)
    y = (X @ rng.normal(size=50) + rng.normal(size=30000) > 0).astype(float)
    one = RankSVM(C=1e-4, loss=loss, n_jobs=1).fit(X, y)
    two = RankSVM(C=1e-4, loss=loss, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(one.coef_, two.coef_)
    # the calibration's passes over blocks of rows on threads (blocks of 1024 here)
    monkeypatch.setattr(birank._calibration, "PLATT_BLOCK", 1024)
    cal = [RankSVM(C=1e-4, loss=loss, n_jobs=k).fit(X, y) for k in (1, 2)]
    assert cal[0].intercept_ == cal[1].intercept_
    np.testing.assert_array_equal(cal[0].probability_, cal[1].probability_)
    assert cal[0].intercept_ == pytest.approx(one.intercept_, rel=1e-9, abs=1e-12)
    np.testing.assert_allclose(cal[0].probability_, one.probability_, rtol=1e-9)
    ref = RankSVM(C=1e-4, loss=loss).fit(X, y)  # scipy's products: same optimum
    assert one.objective_ == pytest.approx(ref.objective_, rel=1e-6)


@pytest.mark.parametrize("kind", ["normal", pytest.param("ties", marks=pytest.mark.kernel),
                                  "close", "extreme"])
def test_two_label_ranks_equal_the_sorted_sweep_on_large_data(monkeypatch, kind):
    # one group of two labels (threshold_sweep, no sort of every row) against the sorted
    # two-label sweep (pair_sweep, kept for groups) on the same scores, from RADIX_MIN
    # rows on: the same active pairs, hence the same diagonal with unit weights (sums of
    # whole numbers); loss, gradient and Hessian product to rounding (another order of
    # summation); and the same bits on two threads (forced below their threshold)
    import birank.solvers.two_label_sweep as two_label_sweep

    monkeypatch.setattr(two_label_sweep, "TWO_LABEL_THREADS_MIN", 0)
    from birank._kernels.losses import SQUARED_HINGE
    from birank._kernels.pair_sweep import (binary_signed_weights, sweep_hess_vec_binary,
                                            sweep_loss_grad_binary, two_label_diag_rows)
    from birank._kernels.radix_sort import RADIX_MIN

    rng = np.random.default_rng(12)
    n = RADIX_MIN + 77
    y = (rng.random(n) < 0.3).astype(float)
    s = _scores(kind, n, rng)
    u = rng.normal(size=n)
    for sw in (None, rng.uniform(0.5, 2.0, n)):
        w = np.ones(n) if sw is None else sw
        order = np.argsort(s, kind="stable")
        seg, nlab = np.array([0, n]), np.array([2])
        grad, diag, hi, lo = np.empty(n), np.empty(n), np.empty(n, np.int64), np.empty(n,
                                                                                  np.int64)
        work = np.zeros((7, n + 1))
        ref = sweep_loss_grad_binary(s, order, seg, nlab, binary_signed_weights(y != 0, w),
                                     SQUARED_HINGE, grad, diag, hi, lo, work, 1.0)
        two_label_diag_rows(order, seg, nlab, work, diag)
        hv = np.empty(n)
        sweep_hess_vec_binary(u, order, seg, nlab, diag, hi, lo, hv, work)
        got = []
        for n_jobs in (None, 2):
            obj = PairObjective(np.zeros((n, 1)), y, sample_weight=sw, n_jobs=n_jobs)
            assert obj.two_label is not None
            assert obj.two_label.threads.n == (2 if n_jobs == 2 else 1)
            got.append((obj.loss_at_scores(s), obj.grad_s.copy(), obj.diag.copy(),
                        obj.hess_scores(u).copy()))
        assert got[0][0] == got[1][0] or (np.isinf(got[0][0]) and got[0][0] == got[1][0])
        for a, b in zip(got[0][1:], got[1][1:]):
            np.testing.assert_array_equal(a, b)
        loss, g, d, h = got[0]
        assert loss == pytest.approx(ref, rel=1e-12) or (np.isinf(loss) and loss == ref)
        if sw is None:
            np.testing.assert_array_equal(d, diag)
        for a, b in ((g, grad), (d, diag), (h, hv)):
            if np.all(np.isfinite(b)):
                assert np.max(np.abs(a - b)) <= 1e-12 * max(1.0, float(np.max(np.abs(b))))


@pytest.mark.kernel
def test_large_grouped_objective_sorts_like_lexsort():
    # from RADIX_MIN rows on: one radix argsort, then a counting sort by group
    from birank._kernels.radix_sort import RADIX_MIN

    rng = np.random.default_rng(11)
    n = RADIX_MIN + 123
    X = rng.normal(size=(n, 2))
    y = rng.integers(0, 2, n).astype(float)
    groups = rng.integers(0, 50, n)
    obj = PairObjective(X, y, groups)
    s = np.round(X @ np.array([1.0, -0.5]), 2)  # ties
    obj.loss_at_scores(s)
    _, gid = np.unique(groups, return_inverse=True)
    np.testing.assert_array_equal(obj.order, np.lexsort((s, gid)))


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_weighted_svm_newton_reaches_the_dual_cd_optimum(fit_intercept):
    from birank import WeightedSVM

    rng = np.random.default_rng(12)
    X = rng.normal(size=(600, 8))
    y = (X[:, 0] + 0.5 * rng.normal(size=600) > 0.8).astype(float)
    sw = rng.uniform(0.5, 2.0, 600)
    kw = dict(C=0.5, loss="squared_hinge", fit_intercept=fit_intercept)
    newton = WeightedSVM(solver="newton", tol=1e-4, **kw).fit(X, y, sample_weight=sw)
    dual = WeightedSVM(solver="dual_cd", tol=1e-8, max_iter=100000, random_state=0,
                       **kw).fit(X, y, sample_weight=sw)
    assert newton.objective_ == pytest.approx(dual.objective_, rel=1e-9)
    np.testing.assert_allclose(newton.coef_, dual.coef_, atol=1e-5)
    assert newton.intercept_ == pytest.approx(dual.intercept_, abs=1e-5)
    # the objective it reports is the primal at its coef_ (brute force)
    ys = np.where(y > 0, 1.0, -1.0)
    c = newton.class_C_[(y > 0).astype(int)] * sw
    b = newton.intercept_ if fit_intercept else 0.0
    xi = np.maximum(1.0 - ys * (X @ newton.coef_ + b), 0.0)
    assert newton.objective_ == pytest.approx(
        0.5 * newton.coef_ @ newton.coef_ + 0.5 * b * b + c @ (xi * xi), rel=1e-12)
    with pytest.raises(ValueError, match="squared hinge"):
        WeightedSVM(solver="newton", loss="hinge").fit(X, y)


@pytest.mark.kernel
def test_rows_objective_csr_products_equal_dense_brute_force():
    # the compiled CSR paths (X v, X' u without a transpose object; the Hessian
    # product over the active rows alone) against dense numpy on the same matrix
    from birank.solvers.newton import RowsObjective

    rng = np.random.default_rng(5)
    Z = sp.random(300, 40, density=0.2, random_state=rng, format="csr")
    Z.data = rng.normal(size=Z.nnz)
    cost = rng.uniform(0.5, 2.0, 300)
    w, v = rng.normal(size=40), rng.normal(size=40)
    obj = RowsObjective(Z, cost, C=0.7)
    f, g, _ = obj.fun_grad(w)
    Zd = Z.toarray()
    r = np.maximum(1.0 - Zd @ w, 0.0)
    assert 0 < np.count_nonzero(r) < 300  # some rows active, some not
    assert f == pytest.approx(0.5 * w @ w + 0.7 * cost @ (r * r), rel=1e-12)
    np.testing.assert_allclose(g, w - 0.7 * Zd.T @ (2.0 * cost * r), rtol=1e-12, atol=1e-12)
    D = np.where(r > 0, 2.0 * cost, 0.0)
    np.testing.assert_allclose(obj.hess_vec(v), v + 0.7 * Zd.T @ (D * (Zd @ v)),
                               rtol=1e-12, atol=1e-12)
    obj.fun_grad(-w)  # a new active set: the kept active rows follow it
    r = np.maximum(1.0 + Zd @ w, 0.0)
    D = np.where(r > 0, 2.0 * cost, 0.0)
    np.testing.assert_allclose(obj.hess_vec(v), v + 0.7 * Zd.T @ (D * (Zd @ v)),
                               rtol=1e-12, atol=1e-12)


@pytest.mark.kernel
def test_unit_rows_hessian_product_equals_the_one_reading_values():
    # rows of binary features times a label (+-1 per row): the product that does not
    # read the values gives the same bits as the one that does, and both equal dense numpy
    from birank._kernels.pair_sweep_ops import csr_rows_gram_matvec, signed_unit_rows
    from birank.solvers.newton import RowsObjective

    rng = np.random.default_rng(6)
    X = sp.random(400, 50, density=0.15, random_state=rng, format="csr")
    X.data[:] = 1.0
    Z = sp.csr_matrix(X.multiply(rng.choice([-1.0, 1.0], 400)[:, None]))
    Z.sort_indices()
    assert signed_unit_rows(Z.data, Z.indptr)
    rows = np.flatnonzero(rng.random(400) < 0.6)
    weights = rng.uniform(0.1, 3.0, rows.shape[0])
    v = rng.normal(size=50)
    for wts in (weights, np.empty(0)):
        read = csr_rows_gram_matvec(Z.data, Z.indices, Z.indptr, rows, wts, v, np.zeros(50))
        unread = csr_rows_gram_matvec(None, Z.indices, Z.indptr, rows, wts, v, np.zeros(50))
        np.testing.assert_array_equal(unread, read)
        Zr = Z[rows].toarray()
        dense = Zr.T @ ((wts if wts.size else 1.0) * (Zr @ v))
        np.testing.assert_allclose(unread, dense, rtol=1e-12, atol=1e-12)
    # not unit rows: a value other than +-1, or both signs in one row
    for value, where in ((2.0, 7), (-1.0, Z.indptr[3])):
        bad = Z.copy()
        bad.data[where] = value if value != -1.0 else -bad.data[where]
        assert not signed_unit_rows(bad.data, bad.indptr)
    # the objective takes the unread path on unit rows, with the same Hessian product
    cost = rng.uniform(0.5, 2.0, 400)
    w = 0.3 * rng.normal(size=50)
    fast, plain = RowsObjective(Z, cost, C=0.7), RowsObjective(Z, cost, C=0.7)
    plain._unit_rows = False
    fast.fun_grad(w)
    plain.fun_grad(w)
    np.testing.assert_array_equal(fast.hess_vec(v), plain.hess_vec(v))
    assert fast._unit_rows is True


def test_weighted_svm_newton_csr_equals_dense():
    from birank import WeightedSVM

    rng = np.random.default_rng(13)
    X = sp.random(500, 30, density=0.3, random_state=rng, format="csr")
    y = (X @ rng.normal(size=30) + 0.3 * rng.normal(size=500) > 0).astype(float)
    kw = dict(C=0.5, loss="squared_hinge", solver="newton", tol=1e-4)
    a = WeightedSVM(**kw).fit(X, y)
    b = WeightedSVM(**kw).fit(X.toarray(), y)
    assert a.objective_ == pytest.approx(b.objective_, rel=1e-12)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-9, atol=1e-12)


def test_weighted_svm_newton_same_coefficients_for_one_and_two_jobs():
    from birank import WeightedSVM

    rng = np.random.default_rng(9)
    X = sp.random(30000, 50, density=0.2, format="csr", random_state=10)
    y = (X @ rng.normal(size=50) + rng.normal(size=30000) > 0).astype(int)
    kw = dict(loss="squared_hinge", solver="newton", tol=1e-3)
    one = WeightedSVM(n_jobs=1, **kw).fit(X, y)
    two = WeightedSVM(n_jobs=2, **kw).fit(X, y)
    np.testing.assert_array_equal(one.coef_, two.coef_)
    ref = WeightedSVM(**kw).fit(X, y)  # one thread, active rows only: the same optimum
    assert one.objective_ == pytest.approx(ref.objective_, rel=1e-7)


def test_roc_auc_same_value_for_any_n_jobs_and_equal_bruteforce_counts():
    from birank import metrics

    rng = np.random.default_rng(11)
    n = metrics.KERNEL_MIN_ROWS + 1001  # the threaded path's threshold
    y = rng.random(n) < 0.3
    s = np.round(rng.normal(size=n), 2)  # heavy ties
    one, two, three = (metrics.roc_auc(y, s, n_jobs=k) for k in (1, 2, 3))
    assert one == two == three == metrics.roc_auc(y, s)
    # the count over pieces split by class equals the serial one on sorted classes
    u2 = metrics._twice_mann_whitney(np.sort(s[y]), np.sort(s[~y]))
    for k in (1, 2, 3):
        assert metrics._twice_mann_whitney_pieces(s, y, k) == (u2, y.sum(), (~y).sum())
    for m in (0, 1, 2, 5, 40):  # small pieces, some of one class or empty: brute force
        small = rng.random(m) < 0.5
        ss = np.round(rng.normal(size=m), 1)
        brute = round(sum((a > b) * 2 + (a == b) for a in ss[small] for b in ss[~small]))
        for k in (1, 2, 3):
            assert metrics._twice_mann_whitney_pieces(ss, small, k) == (
                brute, small.sum(), (~small).sum())


@pytest.mark.kernel
def test_weighted_roc_auc_over_pieces_equals_bruteforce_for_any_n_jobs(monkeypatch):
    # the weighted AUC's pass over pieces of whole tie blocks (forced on small data,
    # pieces of 7 sorted positions, so that cuts land inside tie blocks and a block
    # spans several pieces): brute force over every pair, the same value for every
    # n_jobs, all scores tied exactly 1/2, a class of zero weight refused
    from birank import metrics

    monkeypatch.setattr(metrics, "KERNEL_MIN_ROWS", 0)
    monkeypatch.setattr(metrics, "WEIGHTED_PIECE", 7)
    rng = np.random.default_rng(17)
    for n, decimals in ((2, 1), (50, 0), (300, 1), (301, 3)):
        y = rng.random(n) < 0.4
        y[:2] = [True, False]
        s = np.round(rng.normal(size=n), decimals)
        w = rng.uniform(0.0, 2.0, n)
        w[:2] = 1.0
        pos, neg = np.flatnonzero(y), np.flatnonzero(~y)
        brute = sum(w[i] * w[j] * ((s[i] > s[j]) + 0.5 * (s[i] == s[j]))
                    for i in pos for j in neg) / (w[pos].sum() * w[neg].sum())
        got = [metrics.roc_auc(y, s, sample_weight=w, n_jobs=k) for k in (1, 2, 3)]
        assert got[0] == got[1] == got[2]
        assert abs(got[0] - brute) <= 1e-12
    y = rng.random(100) < 0.5
    assert metrics.roc_auc(y, np.zeros(100), sample_weight=rng.uniform(0.5, 2, 100),
                           n_jobs=2) == 0.5
    with pytest.raises(ValueError, match="zero total weight to the positive class"):
        metrics.roc_auc(y, rng.normal(size=100), sample_weight=np.where(y, 0.0, 1.0))


def test_weighted_roc_auc_sorts_over_chunks_on_threads_to_the_same_value(monkeypatch):
    # from RADIX_MIN rows the weighted AUC's sort runs over chunks on the threads
    # (ChunkedSort, chunks of 2^9 here: many, and tie blocks across their edges; one
    # thread sorts sequentially): the same value for every n_jobs, and the numpy
    # tie-block sums' value to rounding
    from birank import metrics
    from birank._chunked_sort import ChunkedSort
    from birank._kernels.radix_sort import RADIX_MIN
    from birank._parallel import effective_n_jobs

    calls = []

    class Recorded(ChunkedSort):
        def __init__(self, n, n_jobs=None, shift=9, threads=None):
            calls.append(threads.n)
            super().__init__(n, n_jobs, 9, threads)

    monkeypatch.setattr("birank._chunked_sort.ChunkedSort", Recorded)
    monkeypatch.setattr(metrics, "KERNEL_MIN_ROWS", 0)
    rng = np.random.default_rng(23)
    n = RADIX_MIN + 77
    y = rng.random(n) < 0.3
    s = np.round(rng.normal(size=n), 2)  # about 800 distinct values: long tie blocks
    w = rng.uniform(0.0, 2.0, n)
    got = [metrics.roc_auc(y, s, sample_weight=w, n_jobs=k) for k in (1, 2, 3)]
    assert calls == [k for k in map(effective_n_jobs, (2, 3)) if k > 1]  # (not on one)
    assert got[0] == got[1] == got[2]
    monkeypatch.setattr(metrics, "KERNEL_MIN_ROWS", 2 * n)  # the numpy path
    assert abs(metrics.roc_auc(y, s, sample_weight=w) - got[0]) <= 1e-12


@pytest.mark.kernel
@pytest.mark.parametrize("share", [0.0, 0.1, 0.5, 1.0])  # of the positive class
def test_split_classes_puts_each_class_at_its_end(share):
    from birank._kernels.metrics import split_classes

    rng = np.random.default_rng(int(10 * share))
    s = rng.normal(size=1000)
    mask = rng.random(1000) < share
    out = np.full(1000, np.nan)
    for p0, p1 in ((0, 1000), (0, 0), (3, 4), (100, 600)):
        a = split_classes(s, mask, out, p0, p1)
        assert a == mask[p0:p1].sum()
        np.testing.assert_array_equal(out[p0:p0 + a], s[p0:p1][mask[p0:p1]])
        np.testing.assert_array_equal(out[p0 + a:p1], s[p0:p1][~mask[p0:p1]][::-1])


@pytest.mark.kernel
@pytest.mark.parametrize("projection", [False, True])
def test_indicator_rows_give_the_same_sgd_bits(projection):
    """0/1 features passed as ``(None, indices, indptr)`` (the values not read) give the
    CRR SGD the same weights bit for bit as the full CSR rows, and the row primitives the
    same dot and update."""
    from numba import njit

    from birank._kernels.sgd import crr_sgd
    from birank._kernels.sparse_rows import rng_init, row_axpy, row_dot_w
    from birank._validation import kernel_rows

    rng = np.random.default_rng(12)
    X = sp.random(400, 60, density=0.1, format="csr", random_state=13)
    X.data[:] = 1.0
    y01 = (X @ rng.normal(size=60) > 0.3).astype(int)
    ind, full = kernel_rows(X, indicator=True), kernel_rows(X)
    assert ind[0] is None and full[0] is X.data
    assert kernel_rows(X * 2.0, indicator=True)[0] is not None  # other values: read
    y_pm = np.where(y01 == 1, 1.0, -1.0)
    pos, neg = np.flatnonzero(y01 == 1), np.flatnonzero(y01 == 0)
    out = []
    for xa in (ind, full):
        w = np.zeros(61)
        n_rank = crr_sgd(xa, y_pm, np.ones(400), pos, neg, w, 0.1, 0, 5000, 0.5, 1,
                         projection, True, rng_init(7))
        out.append((w, n_rank))
    np.testing.assert_array_equal(out[0][0], out[1][0])
    assert out[0][1] == out[1][1] and 0 < np.abs(out[0][0]).sum() < np.inf

    @njit
    def dot_then_axpy(xa, w, a):
        d = row_dot_w(xa, w, a)
        row_axpy(xa, w, 0.5, a)
        return d

    v = rng.normal(size=60)
    w1, w2 = v.copy(), v.copy()
    for a in range(0, 400, 37):
        assert dot_then_axpy(ind, w1, a) == dot_then_axpy(full, w2, a)
    np.testing.assert_array_equal(w1, w2)


@pytest.mark.parametrize("kind", ["normal", pytest.param("ties", marks=pytest.mark.kernel),
                                  "near", "close", "extreme"])
def test_chunked_argsort_equals_the_sequential_one(kind):
    # from RADIX_MIN rows on, n_jobs given (the many-label sweeps on threads): the radix
    # sort by per-chunk digit counts on threads is the one stable order, in both layouts
    # (float32 keys packed with the rows; float64 keys with the rows beside them, which
    # the scratch gives from RECORDS_MIN rows)
    from birank._kernels.radix_sort import RADIX_MIN
    from birank._chunked_sort import ChunkedSort

    rng = np.random.default_rng(5)
    n = RADIX_MIN + 77
    s = _scores(kind, n, rng)
    for records in (False, True):
        for n_jobs, shift in ((1, 14), (2, 14), (2, 9)):
            order, ss = np.empty(n, dtype=np.int64), np.empty(n)
            scratch = radix_scratch(n, records=records)
            ChunkedSort(n, n_jobs, shift).argsort(s, order, scratch, ss)
            np.testing.assert_array_equal(order, np.argsort(s, kind="stable"))
            np.testing.assert_array_equal(ss, s[order])


@pytest.mark.kernel
def test_chunked_argsort_fixes_a_tie_across_a_chunk_boundary():
    # float32 keys equal, float64 scores in the other order, at the sorted positions 511 and
    # 512: the first chunk of 2^9 ends and the next begins between them, and no chunk holds
    # a descent of its own; the insertion pass must still run
    from birank._kernels.radix_sort import RADIX_MIN
    from birank._chunked_sort import ChunkedSort

    n = RADIX_MIN + 77
    s = np.arange(n, dtype=np.float64)
    s[511], s[512] = 511.5 + 1e-9, 511.5
    assert np.float32(s[511]) == np.float32(s[512])
    for n_jobs, records in ((1, False), (2, False), (2, True)):
        order, ss = np.empty(n, dtype=np.int64), np.empty(n)
        ChunkedSort(n, n_jobs, 9).argsort(s, order, radix_scratch(n, records=records), ss)
        np.testing.assert_array_equal(order, np.argsort(s, kind="stable"))
        np.testing.assert_array_equal(ss, np.sort(s))


@pytest.mark.parametrize("n", [500, 70_000])  # numpy's lexsort; the radix sorts (>= RADIX_MIN)
@pytest.mark.parametrize("kind", ["binary", "constant", "graded", "grouped", "real",
                                  "real_grouped"])
def test_label_ranks_equal_dense_ranks_per_group(kind, n):
    # the two-label shortcut (no sort) and the general path against scipy's dense ranks
    from scipy.stats import rankdata

    from birank._kernels.radix_sort import RADIX_MIN
    from birank.solvers.newton import label_ranks

    assert n == 500 or n >= RADIX_MIN
    rng = np.random.default_rng(13)
    # real-valued: ties, -0.0 beside 0.0, and values float32 cannot tell apart
    real = np.round(rng.normal(size=n), 4)
    real[:40] = np.array([0.0, -0.0, 1.0, 1.0 + 2.0**-40] * 10)
    y = {"binary": np.where(rng.random(n) < 0.3, 2.5, -1.0), "constant": np.full(n, 4.0),
         "graded": rng.integers(0, 5, n) * 0.5, "grouped": rng.integers(0, 4, n) * 1.0,
         "real": real, "real_grouped": real}[kind]
    # groups 0, 1 and 3: group 2 is empty
    gid = (rng.choice([0, 1, 3], n) if kind in ("grouped", "real_grouped")
           else np.zeros(n, dtype=np.int64))
    n_groups = int(gid.max()) + 1
    lab, nlab = label_ranks(y, gid, n_groups)
    assert lab.dtype == np.int64 and nlab.dtype == np.int64 and nlab.shape == (n_groups,)
    for g in range(n_groups):
        rows = gid == g
        np.testing.assert_array_equal(lab[rows], rankdata(y[rows], method="dense") - 1)
        assert nlab[g] == np.unique(y[rows]).shape[0]


def test_used_columns_kernel_scan_equals_numpy_count(monkeypatch):
    from birank.solvers import all_pairs

    X = sp.random(300, 5000, density=0.002, format="csr", random_state=14)
    Xn, cols_numpy = all_pairs.used_columns(X)
    monkeypatch.setattr(all_pairs, "USED_SCAN_KERNEL_NNZ", 0)
    Xk, cols_kernel = all_pairs.used_columns(X)
    np.testing.assert_array_equal(cols_kernel, cols_numpy)
    np.testing.assert_array_equal(cols_kernel, np.unique(X.indices))
    np.testing.assert_array_equal(Xk.toarray(), X.toarray()[:, cols_kernel])
    for n_jobs in (1, 2, 3):  # parts of the entries on threads, each marking its own row
        np.testing.assert_array_equal(all_pairs.used_columns(X, n_jobs)[1], cols_numpy)


@pytest.mark.parametrize("y", [[3, 1, 3, 1, 1], [True, False, True], [0.5, -2.0, 0.5],
                               [2**60, 2**60 + 1, 2**60], [1, 2, 3, 1], [4, 4, 4]])
def test_two_label_encoding_without_a_sort_equals_numpys_unique(y):
    from birank import RankSVM
    from birank.batch.ranksvm import encode_rank_labels

    y = np.asarray(y)
    est = RankSVM()
    codes = encode_rank_labels(est, y)
    values, inverse = np.unique(y, return_inverse=True)
    if len(values) == 2:
        np.testing.assert_array_equal(est.classes_, values)
        assert est.classes_.dtype == values.dtype
        np.testing.assert_array_equal(codes, inverse.astype(np.float64))
    else:
        assert not hasattr(est, "classes_")
        np.testing.assert_array_equal(codes, y.astype(np.float64))
