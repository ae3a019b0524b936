"""Memory-bounded paths: blocked RBF scoring of PrunedRankSVM, PairPool.pool_matrix gather."""

import numpy as np
import pytest
import scipy.sparse as sp

from birank import PrunedRankSVM
from birank.batch import pruned_ranksvm
from birank.solvers.kernel_dual_cd import point_kernel
from birank.solvers.pair_pool import PairPool


def _rbf_model(X, y):
    return PrunedRankSVM(kernel="rbf", gamma=0.5, C=1.0, random_state=0, max_iter=200).fit(X, y)


@pytest.mark.parametrize("sparse", [False, True])
def test_blocked_rbf_scores_equal_the_full_kernel_product(sparse, monkeypatch):
    rng = np.random.default_rng(3)
    X = rng.uniform(-1, 1, (300, 6))
    X[rng.random(X.shape) < 0.3] = 0.0
    y = X @ rng.normal(size=6) + 0.2 * rng.normal(size=300)
    Xf = sp.csr_matrix(X) if sparse else X
    model = _rbf_model(Xf, y)
    n_sv = model.dual_coef_.size
    assert n_sv > 10
    full = point_kernel(Xf, model.support_vectors_, "rbf", model.gamma_) @ model.dual_coef_
    one_block = model._expansion_scores(Xf)
    # a bound of ~7 rows per block: many blocks, and a ragged last one
    monkeypatch.setattr(pruned_ranksvm, "_SCORE_BLOCK_MB", 7 * 8 * n_sv / 2**20)
    blocked = model._expansion_scores(Xf)
    np.testing.assert_allclose(blocked, full, rtol=1e-12, atol=0)
    np.testing.assert_allclose(one_block, full, rtol=1e-12, atol=0)
    np.testing.assert_allclose(model.decision_function(Xf), full + model.intercept_,
                               rtol=1e-12, atol=1e-14)


def _old_pool_matrix(pool):
    """The former construction: X stacked with a zero row (row -1), then gathered."""
    n, d = pool.n_rows, pool.n_features
    a, b = pool.rows_
    t = pool.threshold_coefs(a, b)
    if sp.issparse(pool.X):
        Xo = sp.vstack((pool.X, sp.csr_matrix((1, d)))).tocsr()
        return sp.hstack((Xo[a] - Xo[b], sp.csr_matrix(t[:, None]))).tocsr()
    Xo = np.vstack((pool.X, np.zeros((1, d))))
    return np.hstack((Xo[a] - Xo[b], t[:, None]))


@pytest.mark.parametrize("fit_threshold", [False, True])
@pytest.mark.parametrize("kind", ["dense", "float32", "csr"])
def test_pool_matrix_equals_the_former_stacked_construction(kind, fit_threshold):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(25, 5))
    X[rng.random(X.shape) < 0.4] = 0.0
    X = {"dense": X, "float32": X.astype(np.float32), "csr": sp.csr_matrix(X)}[kind]
    a = rng.integers(-1, 25, 40)
    b = rng.integers(-1, 25, 40)
    b[a == -1] = np.maximum(b[a == -1], 0)  # not both the origin
    pool = PairPool(X, fit_threshold=fit_threshold)
    pool.add_rows(a, b, np.ones(40))
    new, old = pool.pool_matrix(), _old_pool_matrix(pool)
    assert type(new) is type(old) and new.dtype == old.dtype and new.shape == old.shape
    if sp.issparse(new):
        np.testing.assert_array_equal(new.indptr, old.indptr)
        np.testing.assert_array_equal(new.indices, old.indices)
        np.testing.assert_array_equal(new.data, old.data)
    else:
        np.testing.assert_array_equal(new, old)
