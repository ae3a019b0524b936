"""Dense products without copies of X: float32 loops, (X o X)' D, signed rows, column means."""

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

import birank
from birank import _linalg
from birank._kernels.sparse_rows import row_sqnorms  # noqa: F401  (compiled before tracing)
from birank.base import _row_size
from birank.solvers.newton import RowsObjective, _sq_rmatvec, newton_cg
from birank.solvers.point_newton import SignedRows, signed_rows


def _data(n=3000, d=37, seed=1):
    r = np.random.default_rng(seed)
    X = r.standard_normal((n, d))
    return X, r.standard_normal(d), r.standard_normal(n)


@pytest.mark.parametrize("order", ["C", "F"])
def test_float32_products_match_float64_products_of_the_same_data(order):
    X, v, u = _data()
    u[::3] = 0.0
    X32 = np.asarray(X.astype(np.float32), order=order)
    X64 = X32.astype(np.float64)
    np.testing.assert_allclose(_linalg.matvec(X32, v), X64 @ v, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(_linalg.rmatvec(X32, u), X64.T @ u, rtol=1e-12, atol=1e-12)
    D = np.abs(u)
    np.testing.assert_allclose(_linalg.sq_rmatvec(X32, D), D @ X64 ** 2, rtol=1e-12)
    np.testing.assert_allclose(_sq_rmatvec(X32, D), D @ X64 ** 2, rtol=1e-12)


def test_float64_dense_products_are_numpys_bits():
    X, v, u = _data()
    assert np.array_equal(_linalg.matvec(X, v), X @ v)
    assert np.array_equal(_linalg.rmatvec(X, u), X.T @ u)
    assert np.array_equal(_linalg.sq_rmatvec(X, np.abs(u)),
                          np.einsum("ij,ij,i->j", X, X, np.abs(u)))


def test_float32_products_copy_nothing():
    X, v, u = _data(20000, 100)
    X32 = X.astype(np.float32)
    for f in (lambda: _linalg.matvec(X32, v), lambda: _linalg.rmatvec(X32, u),
              lambda: _linalg.sq_rmatvec(X32, np.abs(u)), lambda: _sq_rmatvec(X32, np.abs(u)),
              lambda: _sq_rmatvec(X, np.abs(u))):
        f()
        tracemalloc.start()
        try:
            f()
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < X32.nbytes / 8


def test_newton_sq_rmatvec_values():
    X, _, u = _data()
    D = np.abs(u)
    np.testing.assert_allclose(_sq_rmatvec(X, D), D @ X ** 2, rtol=1e-13)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_fit_on_dense_float32_allocates_less_than_half_of_x(dtype):
    r = np.random.default_rng(0)
    X = r.standard_normal((20000, 200)).astype(dtype)
    y = (X[:, 0] + r.standard_normal(20000) > 1).astype(int)
    for est in (birank.RankSVM(), birank.WeightedSVM(loss="squared_hinge")):
        est.fit(X[:500], y[:500])  # imports and compilation
        tracemalloc.start()
        try:
            est.fit(X, y)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        # the solver's vectors (about 25 of n float64) and less than half of X
        assert peak < 25 * 8 * X.shape[0] + X.nbytes / 2, (type(est).__name__, peak)


def _signed_copy(X, y01, fit_intercept):
    ys = np.where(y01 > 0, 1.0, -1.0)
    Z = np.asarray(X, dtype=np.float64) * ys[:, None]
    return np.hstack([Z, ys[:, None]]) if fit_intercept else Z


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_signed_rows_operator_is_the_signed_copy(fit_intercept):
    X, v, u = _data()
    y01 = (X[:, 0] + u > 0).astype(int)
    Z = _signed_copy(X, y01, fit_intercept)
    op = signed_rows(X, y01, fit_intercept)
    assert isinstance(op, SignedRows) and op.shape == Z.shape
    w = np.r_[v, 0.3] if fit_intercept else v
    D = np.abs(u)
    exact = np.array_equal if not fit_intercept else (
        lambda a, b: np.allclose(a, b, rtol=1e-13, atol=1e-13))
    assert exact(_linalg.matvec(op, w), Z @ w)
    assert exact(_linalg.rmatvec(op, u), Z.T @ u)
    assert exact(_linalg.sq_rmatvec(op, D), _sq_rmatvec(Z, D))
    cost = np.abs(u) + 0.1
    a = newton_cg(RowsObjective(Z, cost), np.zeros(Z.shape[1]), tol=1e-6).coef
    b = newton_cg(RowsObjective(op, cost), np.zeros(Z.shape[1]), tol=1e-6).coef
    if fit_intercept:  # the bias column sums in another order
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    else:
        assert np.array_equal(a, b)
    keep = np.flatnonzero(cost > 0.5)
    np.testing.assert_allclose(_linalg.matvec(op[keep], w), _linalg.matvec(op, w)[keep],
                               rtol=1e-13, atol=1e-13)


def test_row_size_column_means_are_scipys_bits_without_a_copy():
    r = np.random.default_rng(3)
    X = sp.random(5000, 40, density=0.2, format="csr", random_state=4)
    X.data[:] = r.standard_normal(X.nnz)
    n = X.shape[0]
    assert np.array_equal(_linalg.rmatvec(X, np.full(n, 1.0 / n)),
                          np.asarray(X.mean(axis=0)).ravel())
    _row_size(X, "spread")
    tracemalloc.start()
    try:
        _row_size(X, "spread")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < (X.data.nbytes + X.indices.nbytes) / 2
