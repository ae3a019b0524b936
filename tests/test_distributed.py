"""birank.distributed on a 2-worker LocalCluster: every result equals the in-memory one."""

import numpy as np
import pytest
import scipy.sparse as sp

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

from birank import (BBR, CBR, LCBR, OAM, ActiveRankSVM, AdaOAM,  # noqa: E402
                    CombinedRanking, RankSVM)
from birank import distributed as bd  # noqa: E402
from birank.datasets import make_sparse_bipartite  # noqa: E402
from birank.metrics import pairwise_accuracy, roc_auc  # noqa: E402


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                       protocol="tcp://", host="127.0.0.1",
                                       dashboard_address=":0")
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


@pytest.fixture(scope="module")
def dense_data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1000, 6))
    y = (X @ rng.normal(size=6) + rng.normal(size=1000) > 0.5).astype(np.int64)
    return X, y


@pytest.fixture(scope="module")
def sparse_data():
    X, y, _ = make_sparse_bipartite(1200, n_features=300, nnz_per_row=8, pos_fraction=0.3,
                                    random_state=1)
    return X, y


def _dask(X, y, rows=250):
    if sp.issparse(X):
        Xd = da.from_array(X, chunks=(rows, X.shape[1]), asarray=False)
    else:
        Xd = da.from_array(X, chunks=(rows, X.shape[1]))
    return Xd, da.from_array(np.asarray(y), chunks=rows)


def test_roc_auc_equals_in_memory_with_ties(client):
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, size=3001)
    s = np.round(rng.normal(size=3001), 1)  # many ties, also across blocks
    got = bd.roc_auc(da.from_array(y, chunks=700), da.from_array(s, chunks=500))
    assert abs(got - roc_auc(y, s)) < 1e-12


def test_pairwise_accuracy_equals_in_memory_graded(client):
    rng = np.random.default_rng(3)
    y = rng.integers(0, 4, size=2000).astype(float)
    s = np.round(y + rng.normal(size=2000), 1)
    got = bd.pairwise_accuracy(da.from_array(y, chunks=450), da.from_array(s, chunks=450))
    assert abs(got - pairwise_accuracy(y, s)) < 1e-12


@pytest.mark.parametrize("radius", [None, 0.5])
def test_bbr_dense_eigh_equals_in_memory(client, dense_data, radius):
    X, y = dense_data
    ref = BBR(radius=radius).fit(X, y)
    got = bd.fit(BBR(radius=radius), *_dask(X, y))
    np.testing.assert_allclose(got.coef_, ref.coef_, rtol=0, atol=1e-10 * np.abs(ref.coef_).max())
    assert got.n_pairs_ == ref.n_pairs_
    assert abs(got.intercept_ - ref.intercept_) < 1e-10


@pytest.mark.parametrize("radius", [None, 0.3])
def test_bbr_sparse_cg_equals_in_memory(client, sparse_data, radius):
    X, y = sparse_data
    ref = BBR(radius=radius, solver="cg").fit(X, y)
    got = bd.fit(BBR(radius=radius, solver="cg"), *_dask(X, y))
    np.testing.assert_allclose(got.coef_, ref.coef_, rtol=0, atol=1e-10 * np.abs(ref.coef_).max())
    assert got.classes_.tolist() == ref.classes_.tolist()


@pytest.mark.parametrize("solver", ["eigh", "cg"])
def test_lcbr_same_seed_same_model(client, sparse_data, solver):
    X, y = sparse_data
    ref = LCBR(n_pairs=700, radius=1.0, solver=solver, random_state=5).fit(X, y)
    got = bd.fit(LCBR(n_pairs=700, radius=1.0, solver=solver, random_state=5), *_dask(X, y))
    np.testing.assert_array_equal(got.coef_, ref.coef_)
    assert got.intercept_ == ref.intercept_


def test_decision_function_by_blocks(client, sparse_data):
    X, y = sparse_data
    model = BBR(radius=1.0).fit(X, y)
    s = bd.decision_function(model, _dask(X, y)[0])
    np.testing.assert_array_equal(s.compute(), model.decision_function(X))


def test_active_ranksvm_sampled_rows(client, sparse_data):
    X, y = sparse_data
    Xd, yd = _dask(X, y)
    got = bd.fit(ActiveRankSVM(budget=300, random_state=0), Xd, yd, max_samples=600)
    rows = got.sampled_rows_
    assert rows.shape == (600,) and np.all(np.diff(rows) > 0)
    ref = ActiveRankSVM(budget=300, random_state=0).fit(X[rows], y[rows])
    np.testing.assert_array_equal(got.coef_, ref.coef_)


@pytest.mark.parametrize("make", [lambda: BBR(radius=1.0),
                                  lambda: LCBR(n_pairs=200, radius=1.0, random_state=0),
                                  lambda: CombinedRanking(max_iter=500, random_state=0),
                                  lambda: CBR(covariance="diag", random_state=0),
                                  lambda: OAM(random_state=0),
                                  lambda: AdaOAM(random_state=0)],
                         ids=["BBR", "LCBR", "CRR", "CBR", "OAM", "AdaOAM"])
def test_sequential_blocks_and_dask_ml_incremental(client, dense_data, make):
    from dask_ml.wrappers import Incremental

    X, y = dense_data
    Xd, yd = _dask(X, y)
    ref = make()
    for k in range(0, X.shape[0], 250):
        ref.partial_fit(X[k:k + 250], y[k:k + 250], classes=[0, 1])
    # shuffle_blocks=False: dask-ml visits the blocks in a random order by default
    inc = Incremental(make(), shuffle_blocks=False).fit(Xd, yd, classes=[0, 1])
    fitted = [inc.estimator_]
    if not isinstance(ref, (BBR, LCBR)):  # bd.fit fits those on all pairs / one draw
        fitted.append(bd.fit(make(), Xd, yd))
    for got in fitted:
        if isinstance(ref, BBR):  # exact: equal up to BLAS rounding of the block moments
            np.testing.assert_allclose(got.coef_, ref.coef_, rtol=1e-10, atol=0)
        else:  # sampled: same seed, same model
            np.testing.assert_array_equal(got.coef_, ref.coef_)


@pytest.mark.parametrize("data", ["dense_data", "sparse_data"])
@pytest.mark.parametrize("radius", [None, 0.3])
def test_bbr_cg_takes_the_in_memory_decision(client, request, data, radius):
    """solver="cg" on Dask forms Sigma exactly where the in-memory fit
    does (its ClassGram storage rule and cost rule), so the two agree to rounding."""
    X, y = request.getfixturevalue(data)
    ref = BBR(radius=radius, solver="cg").fit(X, y)
    got = bd.fit(BBR(radius=radius, solver="cg"), *_dask(X, y))
    formed = [getattr(m.pair_second_moment_, "dense_", None) is not None for m in (ref, got)]
    assert formed[0] == formed[1]
    assert formed[0] == (radius is not None and data == "dense_data")
    np.testing.assert_allclose(got.coef_, ref.coef_, rtol=0, atol=1e-11 * np.abs(ref.coef_).max())


def test_fit_moments_is_the_fit_on_those_moments(dense_data):
    from birank.solvers.pair_moments import ClassMoments, all_pairs_moments, update_class_moments

    X, y = dense_data
    pos, neg = update_class_moments(ClassMoments(6), ClassMoments(6), X, y.astype(np.int8))
    mu, sigma = all_pairs_moments(pos, neg)
    ref = BBR(radius=0.5).fit(X, y)
    got = BBR(radius=0.5).fit_moments(mu, sigma, classes=[0, 1], n_pairs=ref.n_pairs_)
    np.testing.assert_allclose(got.coef_, ref.coef_, rtol=1e-12)
    assert got.n_features_in_ == 6 and got.classes_.tolist() == [0, 1]
    with pytest.raises(ValueError, match="fit_moments"):
        got.partial_fit(X, y)
    with pytest.raises(ValueError, match="shape"):
        BBR().fit_moments(mu, sigma[:5, :5], classes=[0, 1], n_pairs=1)


def _message(call):
    with pytest.raises(ValueError) as err:
        call()
    return str(err.value)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
@pytest.mark.parametrize("make", [lambda: BBR(radius=1.0), lambda: LCBR(n_pairs=50, random_state=0),
                                  lambda: RankSVM()], ids=["BBR", "LCBR", "RankSVM"])
def test_nan_inf_in_a_block_gives_the_in_memory_message(client, dense_data, bad, make):
    """NaN / inf in one dask block, the in-memory message (not LinAlgError)."""
    X, y = dense_data
    X = X.copy()
    X[777, 2] = bad  # in the fourth block only
    want = _message(lambda: make().fit(X, y))
    assert "NaN" in want or "infinity" in want
    assert _message(lambda: bd.fit(make(), *_dask(X, y))) == want


def test_decision_function_checks_blocks_and_feature_count(client, dense_data):
    """decision_function on NaN X and on the wrong width, as in memory."""
    X, y = dense_data
    model = RankSVM(C=0.1).fit(X, y)
    bad = X.copy()
    bad[10, 0] = np.nan
    lazy = bd.decision_function(model, _dask(bad, y)[0])  # lazy: nothing checked yet
    assert _message(lazy.compute) == _message(lambda: model.decision_function(bad))
    narrow = X[:, :5]
    assert (_message(lambda: bd.decision_function(model, _dask(narrow, y)[0]))
            == _message(lambda: model.decision_function(narrow)))


def test_misaligned_labels_are_refused(client, dense_data):
    X, y = dense_data
    with pytest.raises(ValueError, match="not row-aligned"):
        bd.fit(BBR(), _dask(X, y)[0], da.from_array(y[:-1], chunks=250))
    with pytest.raises(TypeError, match="RankSVM only"):
        bd.fit(BBR(), *_dask(X, y), groups=np.zeros(len(y)))


@pytest.mark.parametrize("data", ["dense_data", "sparse_data"])
def test_row_operator_products_equal_numpy(client, request, data):
    """The three products the Newton solver asks of a distributed X, against X in memory,
    and the payload the cost model counts (docs/distributed.md): 8 N + 8 B D a product."""
    from birank._linalg import matvec, rmatvec, sq_rmatvec

    X, y = request.getfixturevalue(data)
    op = bd.DaskRowOperator(_dask(X, y)[0])
    n, d = X.shape
    rng = np.random.default_rng(0)
    v, u = rng.normal(size=d), rng.normal(size=n)
    np.testing.assert_allclose(matvec(op, v), matvec(X, v), rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(rmatvec(op, u), rmatvec(X, u), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(sq_rmatvec(op, u), sq_rmatvec(X, u), rtol=1e-12, atol=1e-12)
    assert op.n_blocks == -(-n // 250) and op.n_products == 3
    assert op.bytes_moved == 3 * (8 * n + 8 * op.n_blocks * d)
    # a Newton step's gradient and preconditioner products in one round trip: the same
    # bits as the three products (u and D out, three D-vectors a block into the tree)
    D = np.abs(u)
    D[::4] = 0.0
    for with_mean in (True, False):
        G, m, q = op.grad_diag(u, D, with_mean=with_mean)
        np.testing.assert_array_equal(G, op.rmatvec(u))
        np.testing.assert_array_equal(q, op.sq_rmatvec(D))
        if with_mean:
            np.testing.assert_array_equal(m, op.rmatvec(D))
        else:
            assert m is None
    before = (op.n_products, op.bytes_moved)
    op.grad_diag(u, D)
    assert op.n_products == before[0] + 1
    assert op.bytes_moved == before[1] + 16 * n + 3 * 8 * op.n_blocks * d


UNEVEN = [(100, 37, 133, 480, 250), (400, 0, 350, 0, 250), (1,) * 20 + (980,)]


@pytest.mark.parametrize("chunks", UNEVEN, ids=["uneven", "empty", "tiny"])
@pytest.mark.parametrize("make", [lambda: BBR(radius=1.0), lambda: OAM(random_state=0)],
                         ids=["BBR", "OAM"])
def test_uneven_row_chunks_fit_as_even_ones(client, dense_data, chunks, make):
    """X chunked unevenly (empty and one-row blocks too), y as a numpy array or a dask
    array chunked otherwise: y follows X's row chunks, and the model is the one of
    partial_fit over those blocks in order (BBR: the fit on all the data)."""
    X, y = dense_data
    Xd = da.from_array(X, chunks=(chunks, X.shape[1]))
    ref = make()
    start = 0
    for size in chunks:
        if size:
            ref.partial_fit(X[start:start + size], y[start:start + size], classes=[0, 1])
        start += size
    for yd in (y, da.from_array(y, chunks=300)):
        got = bd.fit(make(), Xd, yd)
        np.testing.assert_allclose(got.coef_, ref.coef_, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("max_samples", [-5, 0, 2.5, True, "10"])
def test_max_samples_is_checked(client, dense_data, max_samples):
    with pytest.raises(ValueError, match="max_samples must be an int >= 1"):
        bd.fit(ActiveRankSVM(), *_dask(*dense_data), max_samples=max_samples)


@pytest.mark.parametrize("metric", [bd.roc_auc, bd.pairwise_accuracy])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_metrics_refuse_non_finite_scores(client, metric, bad):
    y = np.arange(600) % 2
    s = np.linspace(0.0, 1.0, 600)
    s[433] = bad  # in the third block
    with pytest.raises(ValueError, match=r"y_score contains NaN or infinite values \(at index 433"):
        metric(da.from_array(y, chunks=200), da.from_array(s, chunks=200))


def test_metrics_skip_empty_blocks(client):
    rng = np.random.default_rng(4)
    y = rng.integers(0, 3, size=500).astype(float)
    s = np.round(y + rng.normal(size=500), 1)
    chunks = ((200, 0, 300, 0),)
    yd, sd = da.from_array(y, chunks=chunks), da.from_array(s, chunks=chunks)
    assert abs(bd.pairwise_accuracy(yd, sd) - pairwise_accuracy(y, s)) < 1e-12
    yb = (y > 0).astype(int)
    assert abs(bd.roc_auc(da.from_array(yb, chunks=chunks), sd) - roc_auc(yb, s)) < 1e-12
    with pytest.raises(ValueError, match="y_true contains NaN"):
        bd.roc_auc(da.from_array(np.where(np.arange(500) == 7, np.nan, yb), chunks=chunks), sd)


@pytest.mark.parametrize("make", [lambda: BBR(radius=1.0, verbose=True),
                                  lambda: LCBR(radius=1.0, n_pairs=500, random_state=0,
                                               verbose=True)])
def test_verbose_moment_fits_report_their_steps(client, dense_data, make, capsys):
    # verbose was ignored on dask (in memory, BBR and LCBR report their steps)
    name = type(make()).__name__
    bd.fit(make(), *_dask(*dense_data))
    lines = [ln for ln in capsys.readouterr().err.splitlines() if f"distributed {name}" in ln]
    assert len(lines) == 4 and "(4 blocks)" in lines[2] and "3/3" in lines[-1]
    bd.fit(make().set_params(verbose=False), *_dask(*dense_data))
    assert capsys.readouterr().err == ""


def test_verbose_partial_fit_reports_blocks_not_a_bar_per_block(client, dense_data, capsys):
    est = CombinedRanking(max_iter=500, random_state=0, verbose=True)
    bd.fit(est, *_dask(*dense_data))
    lines = capsys.readouterr().err.splitlines()
    assert [ln.split("] ")[1].split()[0] for ln in lines] == ["1/4", "2/4", "3/4", "4/4"]
    assert all(f"block {i} of 4" in ln for i, ln in enumerate(lines, 1))
    assert all(ln.startswith("distributed CombinedRanking") for ln in lines)
    assert est.verbose is True  # its setting is restored
