"""No copy of the whole data: ActiveRankLearner.query, query_metrics, the buffered
online learners on dense X, and BBR's class scatters -- the same results as before."""

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

import birank.online._buffers as buffers_mod
import birank.solvers.pair_moments as pm
from birank import BBR, CBR, OAM, PGD, ActiveRankLearner, AdaOAM
from birank._validation import group_codes
from birank.active_learning import STRATEGIES, query_metrics
from birank.datasets import make_sparse_bipartite
from birank.metrics import roc_auc


# ----------------------------------------------------------------- ActiveRankLearner
class _SubsetScoring(ActiveRankLearner):
    """The former query(): the labeled and unlabeled rows copied out and scored apart."""

    def _scores(self, X, estimator="main"):
        if X is not self.X_pool_:
            return super()._scores(X, estimator)
        out = np.empty(X.shape[0])
        for rows in (np.flatnonzero(self.labeled_mask_), np.flatnonzero(~self.labeled_mask_)):
            if rows.size:
                out[rows] = super()._scores(X[rows], estimator)
        return out


def _pool(n=600, dense=False, n_features=30, per_group=100):
    X, y, _ = make_sparse_bipartite(n, n_features=n_features, nnz_per_row=8, random_state=3)
    y = np.where(y > 0, np.random.default_rng(0).integers(1, 3, n), 0)  # graded 0 / 1 / 2
    return (X.toarray() if dense else X), y, np.arange(n) // per_group


@pytest.mark.parametrize("dense", [False, True])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_query_selects_the_rows_of_subset_scoring(strategy, dense):
    X, y, g = _pool(dense=dense)
    seed = np.arange(0, X.shape[0], 7)
    picks = []
    for cls in (ActiveRankLearner, _SubsetScoring):
        learner = cls(strategy=strategy, per_query=2, random_state=5)
        learner.teach(seed, y[seed], X_pool=X, groups=g)
        rounds = []
        for _ in range(3):
            q = learner.query()
            rounds.append(q)
            learner.teach(q, y[q])
        picks.append(rounds)
    for new, old in zip(*picks):
        np.testing.assert_array_equal(new, old)


@pytest.mark.parametrize("strategy", ["lossmin", "diverse"])
def test_query_does_not_copy_the_pool(strategy):
    X, y, g = _pool(n=10000, dense=True, n_features=200, per_group=500)  # 16 MB
    learner = ActiveRankLearner(strategy=strategy, random_state=0)
    seed = np.arange(0, X.shape[0], 50)
    learner.teach(seed, y[seed], X_pool=X, groups=g)
    learner.refit()
    tracemalloc.start()
    try:
        learner.query()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < X.nbytes / 2


# ----------------------------------------------------------------------- query_metrics
def _auc_per_query_loop(y, s, groups, threshold=1.0):
    """The former per-query loop of query_metrics."""
    g = group_codes(groups, y.shape[0])
    rel = (y >= threshold).astype(np.int8)
    order = np.argsort(g, kind="stable")
    bounds = np.flatnonzero(np.diff(g[order])) + 1
    aucs = [roc_auc(rel[ix], s[ix]) for ix in np.split(order, bounds)
            if 0 < rel[ix].sum() < ix.shape[0]]
    return float(np.mean(aucs)) if aucs else float("nan")


def test_query_metrics_auc_equals_the_per_query_loop():
    rng = np.random.default_rng(0)
    for _ in range(200):
        n = int(rng.integers(1, 300))
        y = rng.integers(0, 3, n).astype(float)
        s = np.round(rng.standard_normal(n), 1)  # many ties
        g = rng.integers(0, int(rng.integers(1, 40)), n)  # single-class queries too
        threshold = float(rng.choice([1.0, 2.0]))
        got = query_metrics(y, s, g, relevance_threshold=threshold)["auc"]
        want = _auc_per_query_loop(y, s, g, threshold)
        assert got == want or (np.isnan(got) and np.isnan(want))
    # string query ids; one class over all rows: NaN
    y, s = np.array([0, 1, 1, 0, 2]), np.array([0.1, 0.4, 0.4, 0.3, 0.0])
    ids = np.array(["b", "a", "b", "a", "a"])
    assert query_metrics(y, s, ids)["auc"] == _auc_per_query_loop(y, s, ids)
    assert np.isnan(query_metrics([0, 0, 0], [1.0, 2.0, 3.0], [0, 0, 1])["auc"])
    assert np.isnan(query_metrics([1, 2, 1], [1.0, 2.0, 3.0], [0, 0, 1])["auc"])


# ------------------------------------------------------------- buffered online learners
ONLINE = [OAM(random_state=0), OAM(buffer="fifo", random_state=1), CBR(random_state=0),
          CBR(covariance="diag", random_state=0), PGD(random_state=0),
          PGD(buffer="reservoir", shuffle=True, random_state=2), AdaOAM(random_state=0)]


@pytest.mark.parametrize("est", ONLINE, ids=lambda e: repr(e))
def test_dense_rows_in_blocks_learn_the_model_of_csr(est, monkeypatch):
    X, y, _ = make_sparse_bipartite(700, n_features=25, nnz_per_row=6, random_state=4)
    monkeypatch.setattr(buffers_mod, "DENSE_BLOCK_BYTES", 25 * 8 * 13)  # blocks of 13 rows
    a = est.__class__(**est.get_params()).fit(X.toarray(), y)
    b = est.__class__(**est.get_params()).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    c = est.__class__(**est.get_params())
    for part in np.array_split(np.arange(700), 3):
        c.partial_fit(X.toarray()[part], y[part], classes=[0, 1])
    d = est.__class__(**est.get_params())
    for part in np.array_split(np.arange(700), 3):
        d.partial_fit(X[part], y[part], classes=[0, 1])
    np.testing.assert_array_equal(c.coef_, d.coef_)


@pytest.mark.parametrize("cls", [OAM, PGD, AdaOAM])
def test_dense_fit_holds_no_csr_copy_of_x(cls, monkeypatch):
    monkeypatch.setattr(buffers_mod, "DENSE_BLOCK_BYTES", 1 << 19)
    X, y, _ = make_sparse_bipartite(40000, n_features=50, nnz_per_row=25, random_state=0)
    X = X.toarray()  # 16 MB, half zeros: a CSR copy (and its COO) ~ 1.5 X
    cls(random_state=0).fit(X[:500], y[:500])  # (compile first)
    tracemalloc.start()
    try:
        cls(random_state=0).fit(X, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < X.nbytes / 2


# --------------------------------------------------------------------- BBR's scatters
@pytest.mark.parametrize("mode", ["weighted-csr", "weighted-dense", "dense"])
def test_bbr_scatter_in_row_blocks(mode, monkeypatch):
    X, y, _ = make_sparse_bipartite(900, n_features=40, nnz_per_row=9, random_state=6)
    w = np.random.default_rng(0).uniform(0.5, 1.5, 900) if "weighted" in mode else None
    if "dense" in mode:
        X = X.toarray()
    one = BBR().fit(X, y, sample_weight=w).coef_
    monkeypatch.setattr(pm, "SCATTER_BLOCK_BYTES", 2000)  # blocks of a few rows
    blocks = BBR().fit(X, y, sample_weight=w).coef_
    np.testing.assert_allclose(blocks, one, rtol=1e-10, atol=1e-12 * np.abs(one).max())


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_class_moments_in_row_blocks_equal_one_shot(sparse, weighted, monkeypatch):
    rng = np.random.default_rng(1)
    Xd = rng.standard_normal((300, 35)) * (rng.random((300, 35)) < 0.3) + 5.0 * (
        rng.random((300, 35)) < 0.1)
    rows = np.sort(rng.choice(300, 170, replace=False)).astype(np.int64)
    w = rng.uniform(0.2, 2.0, 170) if weighted else np.ones(170)
    X = sp.csr_matrix(Xd) if sparse else Xd
    monkeypatch.setattr(pm, "SCATTER_BLOCK_BYTES", 1500)
    assert len(pm._row_blocks(X, rows)) > 3
    m = pm.ClassMoments(35).update(X, rows, w if weighted else None)
    mean = (Xd[rows] * w[:, None]).sum(axis=0) / w.sum()
    Xc = Xd[rows] - mean
    np.testing.assert_allclose(m.n, w.sum())
    np.testing.assert_allclose(m.mean, mean, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(m.m2, (Xc * w[:, None]).T @ Xc, rtol=1e-10, atol=1e-10)
