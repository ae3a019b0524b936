"""float32 input stays float32 (no copy of X) and gives the model of its float64 copy."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator

from birank import BBR, LCBR, ActiveRankSVM, CombinedRanking, RankSVM, WeightedSVM
from birank._linalg import matvec, rmatvec, sq_rmatvec
from birank._validation import check_X
from birank.datasets import make_sparse_bipartite


@pytest.fixture(scope="module")
def data():
    X, y, _ = make_sparse_bipartite(1500, 400, 8, pos_fraction=0.3, random_state=0)
    X32 = X.astype(np.float32)
    return X32, X32.astype(np.float64), y


def test_check_X_keeps_float32_without_copy(data):
    X32 = data[0]

    class Probe(BaseEstimator):
        pass

    got = check_X(Probe(), X32, reset=True)
    assert got.dtype == np.float32 and np.shares_memory(got.data, X32.data)
    dense = X32[:50].toarray()
    got = check_X(Probe(), dense, reset=True)
    assert got.dtype == np.float32 and np.shares_memory(got, dense)


@pytest.mark.kernel
def test_products_of_float32_equal_float64(data):
    X32, X64, _ = data
    rng = np.random.default_rng(1)
    v, u = rng.normal(size=X32.shape[1]), rng.normal(size=X32.shape[0])
    np.testing.assert_allclose(matvec(X32, v), X64 @ v, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(rmatvec(X32, u), X64.T @ u, rtol=1e-13, atol=1e-12)
    np.testing.assert_allclose(sq_rmatvec(X32, u), X64.multiply(X64).T @ u, rtol=1e-12,
                               atol=1e-12)


@pytest.mark.parametrize("make", [
    lambda: RankSVM(C=1.0),
    lambda: ActiveRankSVM(budget=400, random_state=0),
    lambda: WeightedSVM(random_state=0),
    lambda: CombinedRanking(n_iter=3000, random_state=0),
    lambda: BBR(radius=1.0, solver="cg"),
    lambda: BBR(radius=1.0, solver="eigh"),
    lambda: LCBR(n_pairs=500, radius=1.0, solver="cg", random_state=0),
], ids=["RankSVM", "ActiveRankSVM", "WeightedSVM", "CRR", "BBR-cg", "BBR-eigh", "LCBR-cg"])
def test_float32_fit_equals_float64_copy(data, make):
    X32, X64, y = data
    a, b = make().fit(X32, y), make().fit(X64, y)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-9, atol=1e-12 * np.abs(b.coef_).max())
    assert a.coef_.dtype == np.float64
    assert X32.dtype == np.float32  # the user's matrix is untouched
