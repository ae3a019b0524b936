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
    X, y, _ = make_sparse_bipartite(1500, n_features=400, nnz_per_row=8, pos_fraction=0.3,
                                    random_state=0)
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


def test_canonical_csr_is_kept_and_its_index_order_checked_once(data, monkeypatch):
    # a canonical CSR (sorted indices, no duplicates) comes back as the same object:
    # scipy caches has_canonical_format on it, so a fit does not scan all nnz indices
    # again for every layer that validates X (two such scans were 20% of
    # ActiveRankSVM.fit at 10^7 rows)
    import scipy.sparse._compressed as compressed

    from birank._validation import as_csr_or_dense

    for X in data[:2]:
        X = X.copy()
        assert as_csr_or_dense(X) is as_csr_or_dense(X) is X
    calls = []
    prop = compressed._cs_matrix.has_canonical_format

    def counted(self):
        if not hasattr(self, "_has_canonical_format"):
            calls.append(1)
        return prop.fget(self)

    monkeypatch.setattr(compressed._cs_matrix, "has_canonical_format",
                        property(counted, prop.fset))
    X, y = data[0].copy(), data[2]
    ActiveRankSVM(budget=200, random_state=0).fit(X, y)
    assert len(calls) == 1
    # an unsorted CSR is sorted in a copy; the caller's matrix is left as it was
    U = sp.csr_matrix((X.data[::-1].copy(), X.indices[::-1].copy(), X.indptr.copy()),
                      shape=X.shape)
    rows = [U.indices[U.indptr[i]:U.indptr[i + 1]].copy() for i in range(3)]
    got = as_csr_or_dense(U)
    assert got is not U and got.has_sorted_indices and got.has_canonical_format
    assert all(np.array_equal(U.indices[U.indptr[i]:U.indptr[i + 1]], rows[i]) for i in range(3))


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
    lambda: CombinedRanking(max_iter=3000, random_state=0),
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
