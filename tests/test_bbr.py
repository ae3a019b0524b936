"""BBR / LCBR: pair moments equal brute force, solvers agree, streams, sklearn API."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import NotFittedError

import birank.batch.bbr as bbr_module
from birank._kernels import pair_moments as K
from birank._validation import check_random_state
from birank.base import decision_cut
from birank.batch.bbr import BBR, LCBR
from birank.solvers.ball_quadratic import solve_ball_quadratic_eigh
from birank.solvers.pair_moments import draw_pairs, naive_pair_moments


def _data(rng, n=30, d=5, density=0.5, offset=0.0):
    X = rng.normal(size=(n, d)) + offset
    X[rng.random((n, d)) > density] = 0.0
    y = (X[:, 0] - X[:, 1] + rng.normal(size=n) > 0).astype(int)
    y[:2] = [0, 1]
    return X, y


def _brute_pairs(X, a, b):
    """mu and Sigma over explicit pairs z = x_a - x_b, materialized (tiny data only)."""
    X = X.toarray() if sp.issparse(X) else X
    Z = X[a] - X[b]
    return Z.mean(axis=0), Z.T @ Z / len(a)


def _all_pairs(y):
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    return np.repeat(pos, len(neg)), np.tile(neg, len(pos))


# --- kernels against materialized pairs (also run without JIT) -------------------------

@pytest.mark.kernel
def test_naive_kernels_equal_materialized_pairs(rng):
    X, y = _data(rng, n=12, d=4)
    mu, sig = _brute_pairs(X, *_all_pairs(y))
    pos = np.flatnonzero(y == 1).astype(np.int64)
    neg = np.flatnonzero(y == 0).astype(np.int64)
    m1, s1 = K.naive_pair_moments_dense(X, pos, neg)
    Xs = sp.csr_matrix(X)
    m2, s2 = K.naive_pair_moments_csr(Xs.data, Xs.indices, Xs.indptr, 4, pos, neg)
    for m, s in ((m1, s1), (m2, s2)):
        np.testing.assert_allclose(m, mu, atol=1e-13)
        np.testing.assert_allclose(s, sig, atol=1e-12)


@pytest.mark.kernel
def test_sampled_kernels_and_class_scatter(rng):
    X, y = _data(rng, n=12, d=4)
    a = rng.integers(0, 12, size=25).astype(np.int64)
    b = rng.integers(0, 12, size=25).astype(np.int64)
    Z = X[a] - X[b]
    Xs = sp.csr_matrix(X)
    for sz, szz in (K.sampled_pair_sums_dense(X, a, b),
                    K.sampled_pair_sums_csr(Xs.data, Xs.indices, Xs.indptr, 4, a, b)):
        np.testing.assert_allclose(sz, Z.sum(axis=0), atol=1e-12)
        np.testing.assert_allclose(szz, Z.T @ Z, atol=1e-12)
    rows = np.array([0, 3, 5, 11], dtype=np.int64)
    sx, sxx = K.class_scatter_csr(Xs.data, Xs.indices, Xs.indptr, 4, rows)
    np.testing.assert_allclose(sx, X[rows].sum(axis=0), atol=1e-13)
    np.testing.assert_allclose(sxx, X[rows].T @ X[rows], atol=1e-12)


@pytest.mark.kernel
def test_two_class_moments_kernel(rng):
    X, y = _data(rng, n=15, d=3, offset=2.0)
    counts, means, m2 = K.two_class_moments_dense(X, y.astype(np.int8))
    for c in (0, 1):
        Xc = X[y == c]
        assert counts[c] == len(Xc)
        np.testing.assert_allclose(means[c], Xc.mean(axis=0), atol=1e-13)
        R = Xc - Xc.mean(axis=0)
        np.testing.assert_allclose(m2[c], R.T @ R, atol=1e-12)


# --- BBR: moments and solution equal Algorithm 1 as printed ---------------------------

@pytest.mark.parametrize("offset", [0.0, 3.0])
@pytest.mark.parametrize("radius", [None, 0.05, 10.0])
@pytest.mark.parametrize("d", [6, 40])
def test_bbr_equals_naive_all_pairs(rng, layout, radius, offset, d):
    X, y = _data(rng, n=40, d=d, offset=offset)
    X = layout(X)
    model = BBR(radius=radius, solver="eigh").fit(X, y)
    mu, sig = naive_pair_moments(sp.csr_matrix(X) if sp.issparse(X) else X, y)
    np.testing.assert_allclose(model.pair_mean_, mu, rtol=0, atol=1e-10)
    np.testing.assert_allclose(model.pair_second_moment_, sig, rtol=0, atol=1e-10)
    ridge = 1e-10 * np.trace(sig) / d
    w = solve_ball_quadratic_eigh(sig, mu, radius, ridge=ridge).w
    np.testing.assert_allclose(model.coef_, w, rtol=0, atol=1e-10)
    assert model.n_pairs_ == int(y.sum()) * int((1 - y).sum())
    # the intercept is only the classification cut: predict == decision_function > 0
    scores = model.decision_function(X)
    np.testing.assert_array_equal(model.predict(X), (scores > 0).astype(int))


@pytest.mark.parametrize("radius", [None, 0.05, 10.0])
def test_bbr_implicit_equals_dense(rng, layout, radius):
    X, y = _data(rng, n=60, d=8, density=0.3)
    X = layout(X)
    dense = BBR(radius=radius, solver="eigh").fit(X, y)
    implicit = BBR(radius=radius, solver="cg", tol=1e-13).fit(X, y)
    v = rng.normal(size=8)
    np.testing.assert_allclose(implicit.pair_second_moment_ @ v,
                               dense.pair_second_moment_ @ v, atol=1e-12)
    np.testing.assert_allclose(implicit.pair_mean_, dense.pair_mean_, atol=1e-14)
    assert implicit.pair_second_moment_.trace() == pytest.approx(
        np.trace(dense.pair_second_moment_), rel=1e-12)
    np.testing.assert_allclose(implicit.pair_second_moment_.diagonal(),
                               np.diag(dense.pair_second_moment_), atol=1e-12)
    np.testing.assert_allclose(implicit.coef_, dense.coef_, rtol=0,
                               atol=1e-9 * max(1.0, np.linalg.norm(dense.coef_)))
    assert implicit.lambda_ == pytest.approx(dense.lambda_, rel=1e-7, abs=1e-12)


@pytest.mark.parametrize("solver", ["eigh", "cg"])
def test_bbr_constrained_solution_satisfies_kkt(rng, layout, solver):
    X, y = _data(rng, n=50, d=7)
    X = layout(X)
    mu, sig = naive_pair_moments(X, y)
    radius = 0.3 * np.linalg.norm(np.linalg.lstsq(sig, mu, rcond=None)[0])
    m = BBR(radius=radius, solver=solver, tol=1e-13).fit(X, y)
    w, lam = m.coef_, m.lambda_
    assert lam > 0
    assert np.linalg.norm((sig + lam * np.eye(7)) @ w - mu) <= 1e-8
    assert abs(np.linalg.norm(w) - radius) <= 1e-8 * radius
    # inactive constraint: lambda = 0, gradient zero
    m = BBR(radius=100 * radius, solver=solver, tol=1e-13).fit(X, y)
    assert m.lambda_ == 0.0
    assert np.linalg.norm(sig @ m.coef_ - mu) <= 1e-8


@pytest.mark.parametrize("solver", ["eigh", "cg"])
def test_bbr_partial_fit_equals_fit(rng, layout, solver):
    X, y = _data(rng, n=90, d=6, offset=1.0)
    y[30:45] = 1  # a chunk with one class only
    X = layout(X)
    full = BBR(radius=0.2, solver=solver, tol=1e-13).fit(X, y)
    stream = BBR(radius=0.2, solver=solver, tol=1e-13)
    for lo, hi in ((0, 30), (30, 45), (45, 90)):
        stream.partial_fit(X[lo:hi], y[lo:hi], classes=[0, 1])
    np.testing.assert_allclose(stream.coef_, full.coef_, rtol=0, atol=1e-10)
    assert stream.n_pairs_ == full.n_pairs_
    if solver == "eigh":
        np.testing.assert_allclose(stream.pair_second_moment_, full.pair_second_moment_,
                                   atol=1e-12)


def test_bbr_phi_risk_equals_mean_pair_loss(rng, layout):
    X, y = _data(rng, n=30, d=4)
    m = BBR(radius=0.5).fit(layout(X), y)
    a, b = _all_pairs(y)
    loss = 0.5 * (1 - (X[a] - X[b]) @ m.coef_) ** 2
    assert m.phi_risk(layout(X), y) == pytest.approx(loss.mean(), rel=1e-12)


def test_bbr_labels_and_scores():
    rng = np.random.default_rng(3)
    X, y = _data(rng, n=80, d=4)
    labels = np.where(y == 1, "yes", "no")
    m = BBR().fit(X, labels)
    m01 = BBR().fit(X, y)
    np.testing.assert_allclose(m.coef_, m01.coef_)
    assert list(m.classes_) == ["no", "yes"]
    assert set(m.predict(X)) <= {"no", "yes"}
    assert 0.5 < m.score(X, labels) <= 1.0


# --- LCBR: sampled moments equal brute force over the same pairs ------------------------

@pytest.mark.parametrize("solver", ["eigh", "cg"])
def test_lcbr_reproducible_and_equals_brute_force(rng, layout, solver):
    X, y = _data(rng, n=40, d=5)
    X = layout(X)
    m1 = LCBR(n_pairs=300, radius=0.5, solver=solver, random_state=7, tol=1e-13).fit(X, y)
    m2 = LCBR(n_pairs=300, radius=0.5, solver=solver, random_state=7, tol=1e-13).fit(X, y)
    np.testing.assert_array_equal(m1.coef_, m2.coef_)
    m3 = LCBR(n_pairs=300, radius=0.5, solver=solver, random_state=8).fit(X, y)
    assert not np.array_equal(m1.coef_, m3.coef_)
    # redraw the same pairs from the same seed and accumulate them by brute force
    pos = np.flatnonzero(y == 1).astype(np.int64)
    neg = np.flatnonzero(y == 0).astype(np.int64)
    a, b = draw_pairs(check_random_state(7), pos, neg, 300)
    mu, sig = _brute_pairs(X, a, b)
    np.testing.assert_allclose(m1.pair_mean_, mu, atol=1e-12)
    sig_hat = m1.pair_second_moment_
    if not isinstance(sig_hat, np.ndarray):
        np.testing.assert_allclose(sig_hat.diagonal(), np.diag(sig), atol=1e-12)
        assert sig_hat.trace() == pytest.approx(np.trace(sig), rel=1e-12)
        sig_hat = sig_hat @ np.eye(5)
    np.testing.assert_allclose(sig_hat, sig, atol=1e-12)
    w = solve_ball_quadratic_eigh(sig, mu, 0.5).w
    np.testing.assert_allclose(m1.coef_, w, atol=1e-9)
    assert m1.n_pairs_ == 300


def test_lcbr_partial_fit_samples_within_chunks(rng, layout):
    X, y = _data(rng, n=60, d=4)
    X = layout(X)
    m = LCBR(n_pairs=100, random_state=3)
    rs = check_random_state(3)
    A, B = [], []
    for lo, hi in ((0, 20), (20, 60)):
        m.partial_fit(X[lo:hi], y[lo:hi], classes=[0, 1])
        yy = y[lo:hi]
        a, b = draw_pairs(rs, np.flatnonzero(yy == 1).astype(np.int64),
                          np.flatnonzero(yy == 0).astype(np.int64), 100)
        A.append(a + lo)
        B.append(b + lo)
    mu, sig = _brute_pairs(X, np.concatenate(A), np.concatenate(B))
    np.testing.assert_allclose(m.pair_mean_, mu, atol=1e-12)
    np.testing.assert_allclose(m.pair_second_moment_, sig, atol=1e-12)
    assert m.n_pairs_ == 200


def test_lcbr_approaches_bbr(rng):
    X, y = _data(rng, n=200, d=4, density=1.0)
    exact = BBR().fit(X, y)
    approx = LCBR(n_pairs=200_000, random_state=0).fit(X, y)
    assert np.linalg.norm(approx.coef_ - exact.coef_) < 0.05 * np.linalg.norm(exact.coef_)


# --- errors ---------------------------------------------------------------------------

@pytest.mark.parametrize("est, match", [
    (BBR(radius=-1.0), "radius"), (BBR(radius=0.0), "radius"), (BBR(solver="qr"), "solver"),
    (LCBR(n_pairs=0), "n_pairs"), (LCBR(random_state="x"), "random_state"),
    (BBR(tol=0), "tol"), (BBR(max_iter=0), "max_iter"),
])
def test_bad_parameters(est, match):
    X, y = _data(np.random.default_rng(0))
    with pytest.raises(ValueError, match=match):
        est.fit(X, y)


def test_bad_labels():
    X, y = _data(np.random.default_rng(0))
    with pytest.raises(ValueError, match="two"):
        BBR().fit(X, np.arange(len(y)) % 3)
    with pytest.raises(ValueError, match="classes"):
        BBR().partial_fit(X[y == 1], y[y == 1])
    m = BBR().partial_fit(X, y, classes=[0, 1])
    with pytest.raises(ValueError, match="not in classes_"):
        m.partial_fit(X, y + 5)
    with pytest.raises(ValueError, match="differs"):
        m.partial_fit(X, y, classes=[1, 2])


def test_single_class_first_chunk_gives_zero_model(rng):
    X, y = _data(rng)
    m = BBR().partial_fit(X[y == 1], y[y == 1], classes=[0, 1])
    assert np.all(m.coef_ == 0) and m.n_pairs_ == 0
    m.partial_fit(X[y == 0], y[y == 0])
    np.testing.assert_allclose(m.coef_, BBR().fit(X, y).coef_, atol=1e-10)




@pytest.mark.parametrize("radius", [None, 0.1, 10.0])
def test_singular_sigma_min_norm_and_solvers_agree(rng, radius):
    # duplicated, constant and empty columns make Sigma singular; mu stays in its range
    X = rng.normal(size=(60, 5))
    X = np.hstack([X, X[:, :1], np.ones((60, 1)), np.zeros((60, 1))])
    y = (X[:, 0] + rng.normal(size=60) > 0).astype(int)
    a = BBR(radius=radius).fit(X, y)
    b = BBR(radius=radius, solver="cg", tol=1e-13).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(b.coef_, a.coef_, atol=1e-10)
    assert a.coef_[0] == pytest.approx(a.coef_[5], abs=1e-12)  # minimum norm splits evenly
    assert abs(a.coef_[6]) < 1e-12 and a.coef_[7] == 0.0
    # fewer sampled pairs than features: Sigma_S of rank <= 3
    c = LCBR(n_pairs=3, radius=radius, random_state=0).fit(X, y)
    d = LCBR(n_pairs=3, radius=radius, random_state=0, solver="cg", tol=1e-13).fit(X, y)
    np.testing.assert_allclose(d.coef_, c.coef_, atol=1e-10)


# --- one online base, bounded state, sample weights ---------------------------------------

def test_bbr_and_lcbr_use_the_online_mixin():
    from birank.base import OnlineRankerMixin

    assert issubclass(BBR, OnlineRankerMixin) and issubclass(LCBR, OnlineRankerMixin)
    assert not hasattr(bbr_module, "_encode_chunk")


@pytest.mark.parametrize("solver", ["eigh", "cg"])
def test_stream_state_is_bounded_by_features_not_rows(rng, solver):
    X, y = _data(rng, n=400, d=6)
    Xs = sp.csr_matrix(X)
    stream = BBR(solver=solver)
    seen = {"pos": 0, "neg": 0}
    for lo in range(0, 400, 40):
        stream.partial_fit(Xs[lo:lo + 40], y[lo:lo + 40], classes=[0, 1])
        st = stream._state
        arrays = [v for c in ("pos", "neg") for v in vars(st[c]).values()
                  if isinstance(v, np.ndarray) or sp.issparse(v)]
        assert all(v.shape[0] <= 6 for v in arrays)  # D or D x D
        if solver == "cg":
            for c, label in (("pos", 1), ("neg", 0)):
                seen[c] += Xs[lo:lo + 40][y[lo:lo + 40] == label].nnz
                g = st[c]
                # rows stay only while fewer than D^2 numbers; never more than the rows seen
                assert g._block_nnz < 6 * 6
                assert g.stored <= min(seen[c], 2 * 6 * 6)
    if solver == "cg":
        assert seen["pos"] + seen["neg"] > 10 * 2 * 6 * 6  # so the bound is not the rows
    np.testing.assert_allclose(stream.coef_, BBR(solver=solver).fit(Xs, y).coef_, atol=1e-9)
    lcbr = LCBR(n_pairs=50, solver="cg", random_state=0)
    for lo in range(0, 400, 40):
        lcbr.partial_fit(Xs[lo:lo + 40], y[lo:lo + 40], classes=[0, 1])
    assert lcbr._state["gram"].G.shape == (6, 6) and set(lcbr._state) == {"n", "gram"}


@pytest.mark.parametrize("solver", ["eigh", "cg"])
def test_bbr_integer_weights_equal_repeated_rows(rng, layout, solver):
    X, y = _data(rng, n=40, d=4)
    w = rng.integers(0, 4, size=40)
    w[:2] = 1  # both classes keep a row
    rep = np.repeat(np.arange(40), w)
    a = BBR(radius=0.7, solver=solver, tol=1e-13).fit(layout(X), y, sample_weight=w)
    b = BBR(radius=0.7, solver=solver, tol=1e-13).fit(layout(X[rep]), y[rep])
    np.testing.assert_allclose(a.coef_, b.coef_, atol=1e-10)
    np.testing.assert_allclose(a.pair_mean_, b.pair_mean_, atol=1e-12)
    assert a.n_pairs_ == b.n_pairs_
    assert a.intercept_ == pytest.approx(b.intercept_, abs=1e-10)


def test_lcbr_weighted_draws_follow_the_weights(rng):
    from birank.solvers.pair_moments import draw_weighted_pairs

    pos, neg = np.array([0, 1, 2]), np.array([3, 4])
    a, b = draw_weighted_pairs(np.random.default_rng(0), pos, neg, np.array([1.0, 0.0, 3.0]),
                               np.array([2.0, 2.0]), 40000)
    np.testing.assert_allclose(np.bincount(a, minlength=3) / a.size, [0.25, 0.0, 0.75], atol=0.01)
    np.testing.assert_allclose(np.bincount(b, minlength=5)[3:] / b.size, [0.5, 0.5], atol=0.01)
    X, y = _data(rng, n=60, d=3)
    w = np.where(np.arange(60) % 2 == 0, 1.0, 0.0)
    w[:2] = 1.0
    m = LCBR(n_pairs=500, random_state=0).fit(X, y, sample_weight=w)
    keep = w > 0
    ref = LCBR(n_pairs=500, random_state=0).fit(X[keep], y[keep])
    assert m.n_pairs_ == 500
    # zero weights drop rows; the same rows remain, drawn by a different rule (inverse CDF)
    assert np.linalg.norm(m.coef_ - ref.coef_) < 0.5 * np.linalg.norm(ref.coef_)


def test_bad_sample_weight_leaves_no_half_state(rng):
    X, y = _data(rng)
    m = BBR()
    with pytest.raises(ValueError, match="sample_weight"):
        m.partial_fit(X, y, sample_weight=-np.ones(len(y)))
    assert not hasattr(m, "classes_")
    m.partial_fit(X, y)  # the failed call did not count as the first one
    assert m.n_pairs_ > 0


def test_class_gram_keeps_rows_where_a_gram_matrix_would_be_larger(rng):
    """High-dimensional sparse rows (text): the rows are kept, the products are the same."""
    from birank.solvers.pair_moments import ClassGram

    d = 3000
    X = sp.random(60, d, density=0.02, random_state=1, format="csr")
    kept, folded = ClassGram(d), ClassGram(d)
    w = rng.uniform(0.5, 2.0, 60)
    for lo in range(0, 60, 20):
        kept.add(X[lo:lo + 20], w[lo:lo + 20])
    folded.add(X, w)
    folded._fold()
    assert len(kept.blocks) == 3 and kept.G is None
    assert kept.stored == X.nnz < folded.stored  # the Gram matrix would hold more numbers
    v = rng.normal(size=d)
    ref = X.T @ (w * (X @ v))
    np.testing.assert_allclose(kept.matvec(v), ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(folded.matvec(v), ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(kept.diagonal(), X.multiply(X).T @ w, rtol=1e-12)
    np.testing.assert_allclose(kept.s, X.T @ w, rtol=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("d", [3000, 5])  # rows kept (high D) / folded at once (low D)
def test_class_gram_rows_in_place_equal_copied_rows(rng, weighted, d):
    """ClassGram.add(X, rows=...) reads X's rows in place; every product equals the copy's."""
    from birank.solvers.pair_moments import ClassGram, RowSubset

    X = sp.random(200, d, density=0.02 if d > 100 else 0.6, random_state=2, format="csr",
                  dtype=np.float32)
    rows = np.sort(rng.choice(200, 120, replace=False))
    w = rng.uniform(0.5, 2.0, rows.size) if weighted else None
    ref, view = ClassGram(d), ClassGram(d)
    ref.add(X[rows], w)
    RowSubset.SLICE, old = 7, RowSubset.SLICE  # folding goes slice by slice
    try:
        view.add(X, w, rows=rows)
        if d > 100:
            assert isinstance(view.blocks[0], RowSubset)
            assert np.shares_memory(view.blocks[0].X.data, X.data)  # not a copy
            assert view.stored == ref.stored == X[rows].nnz
        else:
            assert view.G is not None and not view.blocks  # folded into G
        dense_view = view.dense()
    finally:
        RowSubset.SLICE = old
    v = rng.normal(size=d)
    ww = np.ones(rows.size) if w is None else w
    Xr = X[rows].astype(np.float64)
    np.testing.assert_allclose(view.matvec(v), Xr.T @ (ww * (Xr @ v)), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(view.diagonal(), Xr.multiply(Xr).T @ ww, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(view.s, ref.s, rtol=1e-12, atol=1e-12)
    assert view.n == pytest.approx(ref.n, rel=1e-15)
    np.testing.assert_allclose(dense_view, ref.dense(), rtol=1e-10, atol=1e-10)


def test_bbr_fit_reads_sparse_rows_in_place_partial_fit_copies(rng):
    from birank.solvers.pair_moments import RowSubset

    n, d = 150, 3000
    X = sp.random(n, d, density=0.01, random_state=5, format="csr")
    y = (np.asarray(X[:, :1500].sum(axis=1)).ravel() > np.asarray(X[:, 1500:].sum(axis=1))
         .ravel()).astype(int)
    fitted = BBR(solver="cg").fit(X, y)
    blocks = fitted._state["pos"].blocks + fitted._state["neg"].blocks
    assert blocks and all(isinstance(B, RowSubset) and np.shares_memory(B.X.data, X.data)
                          for B in blocks)
    chunked = BBR(solver="cg")
    for lo in range(0, n, 50):
        chunked.partial_fit(X[lo:lo + 50], y[lo:lo + 50], classes=[0, 1])
    blocks = chunked._state["pos"].blocks + chunked._state["neg"].blocks
    assert blocks and not any(isinstance(B, RowSubset) for B in blocks)
    np.testing.assert_allclose(fitted.coef_, chunked.coef_, rtol=1e-8,
                               atol=1e-10 * np.linalg.norm(fitted.coef_))


def test_bbr_lanczos_on_implicit_sigma_equals_eigh(rng):
    # many features, few entries per row: forming Sigma would cost more than the
    # Lanczos products, so the implicit operator is kept and solved by Lanczos
    n, d = 120, 400
    X = sp.random(n, d, density=0.02, random_state=3, format="csr") * 3.0
    y = (np.asarray(X[:, :200].sum(axis=1)).ravel() + 0.3 * rng.normal(size=n)
         > np.asarray(X[:, 200:].sum(axis=1)).ravel()).astype(int)
    assert 10 < y.sum() < n - 10
    exact = BBR(radius=0.5, solver="eigh").fit(X, y)
    lz = BBR(radius=0.5, solver="cg", tol=1e-12).fit(X, y)
    assert lz.pair_second_moment_.dense_ is None
    assert 1 <= lz.n_iter_ <= d
    assert exact.lambda_ > 0  # the ball is active
    np.testing.assert_allclose(lz.coef_, exact.coef_, rtol=0,
                               atol=1e-8 * np.linalg.norm(exact.coef_))
    assert lz.lambda_ == pytest.approx(exact.lambda_, rel=1e-7)


def test_bbr_cg_forms_sigma_when_cheaper(rng):
    X, y = _data(rng, n=400, d=6, density=0.5)
    X = sp.csr_matrix(X)
    model = BBR(radius=0.05, solver="cg").fit(X, y)
    assert model.pair_second_moment_.dense_ is not None
    exact = BBR(radius=0.05, solver="eigh").fit(X, y)
    np.testing.assert_allclose(model.pair_second_moment_.dense_, exact.pair_second_moment_,
                               atol=1e-12)
    np.testing.assert_allclose(model.coef_, exact.coef_, rtol=0, atol=1e-12)


@pytest.mark.kernel
def test_csr_gram_matvec_and_scatter_kernels(rng):
    from birank._kernels.pair_sweep_ops import csr_gram_matvec

    X = sp.random(30, 9, density=0.4, random_state=1, format="csr")
    v = rng.normal(size=9)
    out = np.ones(9)
    csr_gram_matvec(X.data, X.indices, X.indptr, v, out)
    np.testing.assert_allclose(out, 1.0 + X.T @ (X @ v), atol=1e-12)
    # non-canonical CSR (a repeated column in a row) in the one-triangle scatter
    data = np.array([1.0, 2.0, 3.0, 0.5])
    ind = np.array([2, 0, 2, 1])
    ptr = np.array([0, 3, 4])
    Xd = sp.csr_matrix((data, ind, ptr), shape=(2, 3)).toarray()
    sx, sxx = K.class_scatter_csr(data, ind, ptr, 3, np.array([0, 1], dtype=np.int64))
    np.testing.assert_allclose(sx, Xd.sum(axis=0), atol=1e-12)
    np.testing.assert_allclose(sxx, Xd.T @ Xd, atol=1e-12)


def test_fit_moments_names_a_missing_second_moment():
    with pytest.raises(ValueError, match="pair_second_moment is None"):
        BBR().fit_moments(np.ones(3), None, classes=[0, 1], n_pairs=1)


@pytest.mark.parametrize("cls", [BBR, LCBR])
def test_fit_moments_predicts_at_zero_and_says_why_it_has_no_proba(rng, cls):
    # fit_moments gets moments, not scores: no calibrated cut, no sigmoid. predict is
    # the documented cut at 0; predict_proba names the reason (before: sklearn's
    # generic "not fitted yet"), also after an earlier fit's sigmoid on the same object
    X, y = _data(rng, n=60, d=4, offset=2.0)
    ref = cls(random_state=0) if cls is LCBR else cls()
    ref.fit(X, y)
    est = cls(random_state=0) if cls is LCBR else cls()
    for model in (est, ref):
        model.fit_moments(ref.pair_mean_, ref.pair_second_moment_, classes=[0, 1],
                          n_pairs=ref.n_pairs_)
        assert model.intercept_ == 0.0 and not hasattr(model, "probability_")
        np.testing.assert_array_equal(model.predict(X), np.where(X @ model.coef_ > 0, 1, 0))
        for method in (model.predict_proba, model.predict_log_proba):
            with pytest.raises(NotFittedError, match="fit_moments.*no training scores"):
                method(X)
    # the cut the docstring gives is fit's; fit calibrates again
    fitted = cls(random_state=0) if cls is LCBR else cls()
    fitted.fit(X, y)
    est.intercept_ = -decision_cut(X @ est.coef_, y == est.classes_[1])
    np.testing.assert_allclose(est.intercept_, fitted.intercept_, rtol=0, atol=1e-12)
    assert est.fit(X, y).predict_proba(X).shape == (60, 2)


@pytest.mark.parametrize("cls", [BBR, LCBR])
def test_phi_risk_checks_its_labels(cls):
    """Fails on the old main: one class gave NaN with five RuntimeWarnings, a short y an
    IndexError from a boolean mask, a label not in classes_ counted as negative."""
    X, y = _data(np.random.default_rng(0), n=40)
    est = (cls(random_state=0) if cls is LCBR else cls()).fit(X, y)
    assert np.isfinite(est.phi_risk(X, y))
    with pytest.raises(ValueError, match="one class only.*both classes"):
        est.phi_risk(X, np.ones(40, int))
    with pytest.raises(ValueError, match="X has 40 rows but y has 39 labels"):
        est.phi_risk(X, y[:-1])
    with pytest.raises(ValueError, match=r"label\(s\) \[2\] not in classes_"):
        est.phi_risk(X, y + 1)
    with pytest.raises(NotFittedError):
        cls().phi_risk(X, y)


def _moments(cls):
    X, y = _data(np.random.default_rng(1), n=60, d=4)
    ref = (cls(random_state=0) if cls is LCBR else cls()).fit(X, y)
    return ref, ref.pair_mean_, np.asarray(ref.pair_second_moment_)


@pytest.mark.parametrize("cls", [BBR, LCBR])
def test_fit_moments_validates_the_moments(cls):
    """Fails on the old main: NaN in mu gave all-NaN coef_ silently, a NaN Sigma coef_ = 0,
    a sparse Sigma "no attribute 'matvec'", a list "no attribute 'shape'"."""
    ref, mu, S = _moments(cls)
    est = cls(random_state=0) if cls is LCBR else cls()
    bad_mu, bad_S = mu.copy(), S.copy()
    bad_mu[2], bad_S[1, 1] = np.nan, np.nan
    cases = [
        ((bad_mu, S), r"pair_mean contains NaN or infinite values \(first at index 2\)"),
        ((mu, bad_S), "pair_second_moment contains NaN"),
        ((mu, sp.csr_matrix(bad_S)), "pair_second_moment contains NaN"),
        ((mu[:, None], S), r"pair_mean must be 1-D.*shape \(4, 1\)"),
        ((mu, S[:3, :3]), r"shape \(4, 4\) to match pair_mean; got \(3, 3\)"),
        ((mu + 1j, S), "pair_mean is complex"),
        ((mu, "S"), "must be an array of numbers, a scipy sparse matrix or a LinearOperator"),
        ((["a"] * 4, S), "pair_mean must hold numbers"),
    ]
    for (m, s), message in cases:
        with pytest.raises(ValueError, match=message):
            est.fit_moments(m, s, classes=[0, 1], n_pairs=10)
    for n_pairs in (np.nan, -1, "10", True):
        with pytest.raises(ValueError, match="n_pairs must be a finite number >= 0"):
            est.fit_moments(mu, S, classes=[0, 1], n_pairs=n_pairs)
    # what the docstring accepts: an array, a nested list, a sparse matrix (formed as an
    # array up to AUTO_DENSE_MAX_FEATURES, an operator above), the same model from each
    want = est.fit_moments(mu, S, classes=[0, 1], n_pairs=10).coef_.copy()
    for m, s in ((list(mu), S.tolist()), (mu, sp.csr_matrix(S))):
        np.testing.assert_array_equal(est.fit_moments(m, s, classes=[0, 1], n_pairs=10).coef_,
                                      want)
    np.testing.assert_allclose(want, ref.coef_, rtol=1e-10, atol=1e-12)


def test_fit_moments_takes_a_wide_sparse_sigma_as_an_operator(monkeypatch):
    ref, mu, S = _moments(BBR)
    monkeypatch.setattr(bbr_module, "AUTO_DENSE_MAX_FEATURES", 2)
    for radius in (None, 0.5):
        est = BBR(radius=radius, tol=1e-12).fit_moments(mu, sp.csr_matrix(S), classes=[0, 1],
                                                       n_pairs=10)
        assert not isinstance(est.pair_second_moment_, np.ndarray)
        dense = BBR(radius=radius).fit_moments(mu, S, classes=[0, 1], n_pairs=10)
        np.testing.assert_allclose(est.coef_, dense.coef_, rtol=1e-6, atol=1e-8)


def test_fit_moments_names_an_operator_with_nan_or_without_trace():
    from scipy.sparse.linalg import aslinearoperator

    _, mu, S = _moments(BBR)
    with pytest.raises(ValueError, match=r"operator without trace\(\), which radius=None "
                                         r"needs"):
        BBR().fit_moments(mu, aslinearoperator(S), classes=[0, 1], n_pairs=10)
    bad = S.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="non-finite weights: pair_second_moment holds NaN"):
        BBR(radius=1.0).fit_moments(mu, aslinearoperator(bad), classes=[0, 1], n_pairs=10)
