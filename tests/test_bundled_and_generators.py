"""Bundled datasets (against the statistics published with them) and the data generators."""

import os

import numpy as np
import pytest
import scipy.sparse as sp

from birank import datasets
from birank.datasets import (
    BUNDLED,
    load_a9a,
    load_bundled,
    load_diabetes,
    load_german_numer,
    load_heart,
    load_housing,
    load_ionosphere,
    load_tfranking_toy,
    load_w1a,
    make_linear_ranking,
    make_sparse_bipartite,
)
from birank.datasets import _bundled
from birank.metrics import pairwise_accuracy, roc_auc

# rows, columns, nnz and label counts as published with each file (LIBSVM pages and the
# SOURCE notes shipped in birank/datasets/data/SOURCE.md)
EXPECTED = {
    load_heart: ((270, 13), 3378, {-1: 150, 1: 120}),
    load_german_numer: ((1000, 24), 17989, {1: 700, -1: 300}),
    load_ionosphere: ((351, 34), 10551, {1: 225, -1: 126}),
    load_diabetes: ((768, 8), 5381, {1: 500, -1: 268}),
    load_w1a: ((2477, 300), 28410, {-1: 2405, 1: 72}),
    load_a9a: ((32561, 123), 451592, {-1: 24720, 1: 7841}),
}


@pytest.mark.parametrize("loader", list(EXPECTED), ids=lambda f: f.__name__)
def test_bundled_binary_sets_match_published_statistics(loader):
    shape, nnz, counts = EXPECTED[loader]
    X, y = loader()
    assert sp.isspmatrix_csr(X) and X.dtype == np.float64 and y.dtype == np.float64
    assert X.shape == shape and X.nnz == nnz
    values, cnt = np.unique(y, return_counts=True)
    assert dict(zip(values.tolist(), cnt.tolist())) == counts


def test_a9a_test_subset_has_same_width():
    X, y = load_a9a(subset="test")
    assert X.shape == (16281, 123) and X.nnz == 225732
    assert int((y == 1).sum()) == 3846 and int((y == -1).sum()) == 12435
    with pytest.raises(ValueError, match="subset must be 'train' or 'test'"):
        load_a9a(subset="val")


def test_housing_real_labels():
    X, y = load_housing()
    assert X.shape == (506, 13) and X.nnz == 6578
    assert len(np.unique(y)) == 229 and y.min() == 5.0 and y.max() == 50.0
    assert y.mean() == pytest.approx(22.5328, abs=1e-4)


def test_tfranking_toy_groups():
    X, y, g = load_tfranking_toy()
    assert X.shape == (119, 136)
    assert len(np.unique(g)) == 27
    values, cnt = np.unique(y, return_counts=True)
    assert dict(zip(values.tolist(), cnt.tolist())) == {0: 43, 1: 35, 2: 41}


def test_bundle_is_small_and_documented():
    data = os.path.join(os.path.dirname(_bundled.__file__), "data")
    total = sum(os.path.getsize(os.path.join(data, f)) for f in os.listdir(data))
    assert total < 2 * 1024 * 1024
    note = open(os.path.join(data, "SOURCE.md")).read()
    for name, spec in BUNDLED.items():
        assert spec[0] in note, f"{spec[0]} missing from SOURCE.md"
    with pytest.raises(ValueError, match="unknown bundled dataset"):
        load_bundled("iris")


# ----------------------------------------------------------------- make_linear_ranking
def test_make_linear_ranking_follows_lin_jan_lin():
    X, y, w = make_linear_ranking(4000, n_features=6, noise=0.5, random_state=3)
    assert X.shape == (4000, 6) and y.shape == (4000,) and w.shape == (6,)
    assert X.min() >= -1 and X.max() <= 1 and np.abs(w).max() <= 1
    resid = y - X @ w
    assert resid.var() == pytest.approx(0.5, rel=0.1)  # noise is the variance
    X0, y0, w0 = make_linear_ranking(300, n_features=4, noise=0.0, random_state=1)
    assert pairwise_accuracy(y0, X0 @ w0) == 1.0
    a = make_linear_ranking(50, n_features=3, random_state=9)
    b = make_linear_ranking(50, n_features=3, random_state=9)
    assert all(np.array_equal(u, v) for u, v in zip(a, b))
    with pytest.raises(ValueError, match="noise must be"):
        make_linear_ranking(10, n_features=2, noise=-1)
    with pytest.raises(ValueError, match="n_samples must be an int"):
        make_linear_ranking(0, n_features=2)


# ----------------------------------------------------------------- make_sparse_bipartite
def _check_rows(X, n_features, nnz):
    assert X.shape[1] == n_features
    assert np.all(np.diff(X.indptr) == nnz)
    for i in range(X.shape[0]):
        row = X.indices[X.indptr[i]:X.indptr[i + 1]]
        assert np.all(np.diff(row) > 0) and row.min() >= 0 and row.max() < n_features


@pytest.mark.kernel
def test_sparse_bipartite_small_kernel():
    X, y, w = make_sparse_bipartite(300, n_features=12, nnz_per_row=5, pos_fraction=0.4,
                                    random_state=0, chunk_size=100)
    _check_rows(X, 12, 5)
    assert set(np.unique(y).tolist()) == {0, 1} and y.dtype == np.int8
    # nnz_per_row == n_features: every column in every row
    X, y, w = make_sparse_bipartite(20, n_features=4, nnz_per_row=4, random_state=1)
    assert np.all(X.indices.reshape(20, 4) == np.arange(4))


def test_sparse_bipartite_independent_of_chunk_size_and_reproducible():
    kw = dict(n_samples=10_000, n_features=300, nnz_per_row=8, random_state=5)
    X1, y1, w1 = make_sparse_bipartite(chunk_size=1, **kw)
    X2, y2, w2 = make_sparse_bipartite(chunk_size=4096 * 2, **kw)
    X3, y3, w3 = make_sparse_bipartite(chunk_size=10**7, **kw)
    for X, y, w in ((X2, y2, w2), (X3, y3, w3)):
        assert (X != X1).nnz == 0 and np.array_equal(y, y1) and np.array_equal(w, w1)
    X4, y4, _ = make_sparse_bipartite(**{**kw, "random_state": 6})
    assert (X4 != X1).nnz > 0
    _check_rows(X1, 300, 8)


def test_sparse_bipartite_statistics_and_bayes_optimal_ranker():
    from sklearn.linear_model import LogisticRegression

    X, y, w = make_sparse_bipartite(60_000, n_features=50, nnz_per_row=10, pos_fraction=0.25,
                                    class_sep=0.7, random_state=2)
    assert y.mean() == pytest.approx(0.25, abs=0.01)
    # values: mean shift +-class_sep/sqrt(nnz) * w_j, unit noise
    Xd = X.tocoo()
    sign = np.where(y[Xd.row] == 1, 1.0, -1.0)
    resid = Xd.data - sign * 0.7 / np.sqrt(10) * w[Xd.col]
    assert resid.std() == pytest.approx(1.0, abs=0.01) and abs(resid.mean()) < 0.01
    # the planted ranker is at least as good as a ranker fitted to half the data
    tr, te = slice(0, 30_000), slice(30_000, None)
    lr = LogisticRegression(C=10.0, max_iter=500).fit(X[tr], y[tr])
    auc_true = roc_auc(y[te], X[te] @ w)
    auc_fit = roc_auc(y[te], lr.decision_function(X[te]))
    assert auc_fit <= auc_true + 1e-3
    assert auc_true > 0.8


def test_sparse_bipartite_errors():
    with pytest.raises(ValueError, match="nnz_per_row must be <= n_features"):
        make_sparse_bipartite(10, n_features=5, nnz_per_row=6)
    with pytest.raises(ValueError, match="pos_fraction"):
        make_sparse_bipartite(10, n_features=5, nnz_per_row=2, pos_fraction=1.0)
    with pytest.raises(ValueError, match="chunk_size"):
        make_sparse_bipartite(10, n_features=5, nnz_per_row=2, chunk_size=0)


def test_public_names():
    for name in datasets.__all__:
        assert hasattr(datasets, name)
