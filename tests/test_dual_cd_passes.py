"""Dual CD's passes split over calls (birank.solvers._passes): the same bits as one call.

The kernels carry everything from one pass to the next (random stream, visit order with
the shrunk rows last, active-set size, last pass's projected-gradient extremes, pass
count) between calls, so a run in calls of 1 or 3 passes, as ``verbose`` makes them,
gives the alphas, w, pass count and gap of the run in one call, bit for bit.
"""

import numpy as np
import pytest
import scipy.sparse as sp

import birank.solvers._passes as passes_module
from birank._kernels.dual_cd import dual_cd_points_run, dual_cd_run
from birank._kernels.dual_cd_logistic import dual_cd_logistic_run
from birank._kernels.kernel_dual_cd import kernel_dual_cd_run
from birank._kernels.sparse_rows import split_rows
from birank._validation import draw_seed
from birank.solvers._passes import Passes
from birank.solvers.dual_cd import PairDualCD
from birank.solvers.kernel_dual_cd import KernelPairDualCD
from birank.solvers.pair_pool import PairPool

from dual_cd_calls import one_call

#: passes per call: 1, 3 and all of them (one call)
CHUNKS = [1, 3, None]


def _data(layout, n=60, d=8, seed=0):
    rng = np.random.default_rng(seed)
    dense = sp.random(n, d, density=0.4, random_state=seed).toarray()
    dense[n - 1] = 0.0  # an empty row
    if layout == "csr of ones":
        dense[dense != 0.0] = 1.0
    X = dense if layout == "dense" else sp.csr_matrix(dense)
    y01 = rng.integers(0, 2, n)
    C = rng.uniform(0.1, 3.0, n)
    return X, y01, C


def _pairs(y01, k):
    """``k`` (positive, negative) pairs (fewer when there are not as many)."""
    pos, neg = np.flatnonzero(y01 == 1), np.flatnonzero(y01 == 0)
    a, b = np.repeat(pos, neg.size), np.tile(neg, pos.size)
    pick = np.random.default_rng(1).permutation(a.size)[:k]
    return a[pick], b[pick]


def _pool(X, y01, C, kind, fit_threshold):
    """A pool of pseudo-pairs (the point kernel) or of pairs and pseudo-pairs (the pair
    kernel, which pair_rows and compact_rows also run)."""
    n = X.shape[0]
    a = np.where(y01 == 1, np.arange(n), -1)
    b = np.where(y01 == 1, -1, np.arange(n))
    if kind == "points":
        pool = PairPool(X, fit_threshold=fit_threshold)
        pool.add_rows(a, b, C)
        assert pool._points_only
        return pool
    storage = {"pairs": {}, "pair rows": {"pair_rows": True},
               "compact rows": {"compact_rows": True}}[kind]
    pool = PairPool(X, fit_threshold=fit_threshold, **storage)
    pool.add_rows(*_pairs(y01, 80), 1.0)
    pool.add_rows(a[:20], b[:20], C[:20])
    assert not pool._points_only
    return pool


def _in_chunks(pool, squared, seed, tol, max_iter, shrinking, chunk):
    """``(n_iter, gap, w, alpha)`` of the passes in calls of ``chunk`` passes (None: one)."""
    w = np.zeros(pool.state_size)
    passes = Passes(seed, pool.n_rows)
    calls = 0
    while not passes.done and passes.n_iter < max_iter:
        until = max_iter if chunk is None else min(passes.n_iter + chunk, max_iter)
        pool.cd_run(w, squared, tol, shrinking, passes, until)
        calls += 1
    if chunk == 1:
        assert calls == passes.n_iter
    return passes.n_iter, passes.gap, w, pool.alpha_.copy()


def _assert_same(runs):
    for it, gap, w, alpha in runs[1:]:
        assert it == runs[0][0]
        assert np.array_equal(np.float64(gap), np.float64(runs[0][1]), equal_nan=True)
        assert np.array_equal(w, runs[0][2])
        assert np.array_equal(alpha, runs[0][3])


#: the kinds and layouts also run without the JIT (``-m kernel``): each kind and each
#: layout once, which keeps that run short (all of them run compiled)
_NO_JIT_TOO = {("points", "dense"), ("pairs", "csr"), ("pair rows", "csr of ones"),
               ("compact rows", "csr")}


@pytest.mark.parametrize("kind, layout", [
    pytest.param(kind, layout, marks=[pytest.mark.kernel] if (kind, layout) in _NO_JIT_TOO
                 else [])
    for kind in ("points", "pairs", "pair rows", "compact rows")
    for layout in ("dense", "csr", "csr of ones")
    if not (kind == "pair rows" and layout == "dense")])  # (ignored for dense X: "pairs")
@pytest.mark.parametrize("squared", [False, True], ids=["hinge", "squared_hinge"])
@pytest.mark.parametrize("shrinking", [False, True], ids=["no-shrinking", "shrinking"])
@pytest.mark.parametrize("tol, max_iter", [(1e-3, 400), (1e-9, 25)],
                         ids=["converges", "max_iter"])
def test_passes_in_calls_of_1_3_all_same_bits(kind, layout, squared, shrinking, tol, max_iter):
    X, y01, C = _data(layout)
    fit_threshold = layout != "dense"  # both, across the layouts
    runs = [_in_chunks(_pool(X, y01, C, kind, fit_threshold), squared, 7, tol, max_iter,
                       shrinking, chunk) for chunk in CHUNKS]
    # the kernel called once on its own (start_passes, then one run to max_iter), not
    # through the pool
    pool = _pool(X, y01, C, kind, fit_threshold)
    w = np.zeros(pool.state_size)
    if kind == "points":
        it, gap = one_call(dual_cd_points_run,
                           (*split_rows(pool._xa), layout == "csr of ones", w, pool._abk,
                            pool._rf, pool.n_rows, squared, pool._kthr, tol, shrinking),
                           7, pool.n_rows, max_iter)
    else:
        it, gap = one_call(dual_cd_run, (pool._xa, w, pool._abk, pool._rf, pool.n_rows, squared,
                                         pool._kthr, tol, shrinking), 7, pool.n_rows, max_iter)
    runs.append((it, gap, w, pool.alpha_.copy()))
    _assert_same(runs)
    converged = runs[0][0] < max_iter
    assert converged == (tol == 1e-3)  # both stopping paths are exercised
    if shrinking and converged:
        assert runs[0][1] <= tol


@pytest.mark.kernel
@pytest.mark.parametrize("layout", ["dense", "csr"])
@pytest.mark.parametrize("tol, max_iter", [(1e-4, 300), (1e-12, 9)])
def test_logistic_passes_in_calls_same_bits(layout, tol, max_iter):
    X, y01, C = _data(layout)
    runs = []
    for chunk in CHUNKS:
        pool = _pool(X, y01, C, "pairs", True)
        w = np.zeros(pool.state_size)
        passes = Passes(5, pool.n_rows)
        while not passes.done and passes.n_iter < max_iter:
            pool.cd_run_logistic(w, tol, passes, max_iter if chunk is None
                                 else min(passes.n_iter + chunk, max_iter))
        runs.append((passes.n_iter, passes.gap, w, pool.alpha_.copy()))
    pool = _pool(X, y01, C, "pairs", True)
    w = np.zeros(pool.state_size)
    it, gap = one_call(dual_cd_logistic_run, (pool._xa, w, pool._abk, pool._rf, pool.n_rows,
                                              pool._kthr, tol), 5, pool.n_rows, max_iter)
    runs.append((it, gap, w, pool.alpha_.copy()))
    _assert_same(runs)


@pytest.mark.kernel
@pytest.mark.parametrize("cache_size", [64.0, 1e-4], ids=["cached", "not-cached"])
@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_kernel_passes_in_calls_same_bits(cache_size, loss, monkeypatch):
    X, y01, _ = _data("dense", n=40)
    a, b = _pairs(y01, 50)

    def solve(chunk):
        def run(self, step, max_iter, report=None, line=None):
            while not self.done and self.n_iter < max_iter:
                step(max_iter if chunk is None else min(self.n_iter + chunk, max_iter))

        monkeypatch.setattr(Passes, "run", run)
        s = KernelPairDualCD(X, gamma=0.7, loss=loss, tol=1e-6, max_iter=60,
                             cache_size=cache_size, random_state=3)
        s.add_rows(a, b, 2.0)
        s.solve()
        return s.n_iter_, s.pg_gap_, s.point_coef_.copy(), s.alpha_.copy()

    runs = [solve(chunk) for chunk in CHUNKS]
    monkeypatch.undo()
    s = KernelPairDualCD(X, gamma=0.7, loss=loss, tol=1e-6, max_iter=60, cache_size=cache_size,
                         random_state=3)
    s.add_rows(a, b, 2.0)
    seed = draw_seed(s._rng)  # (the seed solve draws)
    it, gap = one_call(kernel_dual_cd_run,
                       (s._K, s._P, s._sq, s.gamma, s._cached, s._ab, s._C, s._qd, s.alpha_,
                        s.point_coef_, s._f, s.n_rows, loss == "squared_hinge", 1e-6),
                       seed, s.n_rows, 60, gap0=np.inf)
    runs.append((it, gap, s.point_coef_.copy(), s.alpha_.copy()))
    _assert_same(runs)


@pytest.fixture
def report_every_call(monkeypatch):
    """With a reporter: a line after every call, the calls kept at one pass."""
    monkeypatch.setattr(passes_module, "REPORT_SECONDS", 0.0)
    monkeypatch.setattr(passes_module, "CALL_SECONDS", 0.0)


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge", "logistic"])
@pytest.mark.parametrize("layout", ["dense", "csr"])
def test_solve_reports_between_passes_same_bits(loss, layout, report_every_call):
    X, y01, C = _data(layout)
    lines = []

    def report(step, total, message):
        lines.append((step, message))

    out = []
    for rep in (None, report):
        s = PairDualCD(X, loss=loss, fit_threshold=True, tol=1e-5, max_iter=200, random_state=2)
        s.add_rows(*_pairs(y01, 70), C[:1])
        s.solve(report=rep)
        out.append((s.n_iter_, s.pg_gap_, s.w.copy(), s.alpha_.copy()))
    _assert_same(out)
    n_iter = out[0][0]
    assert n_iter > 3
    # the start, one line per pass but the last (calls of one pass), the end
    assert [step for step, _ in lines] == list(range(n_iter)) + [n_iter]
    assert lines[1][1].startswith("dual CD pass 1: projected-gradient spread ")
    assert "> tol=1e-05" in lines[1][1]
    assert ("rows active" in lines[1][1]) == (loss != "logistic")
    assert lines[-1][1].startswith(f"dual CD: {n_iter} passes")


def test_verbose_calls_grow_and_are_one_without_a_reporter(monkeypatch):
    X, y01, C = _data("csr", n=400)
    calls = []
    run = PairPool.cd_run

    def spy(self, w, squared, tol, shrinking, passes, until):
        calls.append(until - passes.n_iter)
        return run(self, w, squared, tol, shrinking, passes, until)

    monkeypatch.setattr(PairPool, "cd_run", spy)
    monkeypatch.setattr(passes_module, "CALL_SECONDS", 10.0)  # (every call doubles)
    for rep in (None, lambda *a: None):
        s = PairDualCD(X, tol=1e-12, max_iter=100, random_state=0)
        s.add_rows(*_pairs(y01, 20), 1.0)
        s.add_rows(np.arange(400), -np.ones(400, dtype=int), C)
        calls.clear()
        s.solve(report=rep)
        if rep is None:
            assert calls == [100]  # one call for all the passes
        else:
            assert calls == [1, 2, 4, 8, 16, 32, 37]  # doubled up to max_iter


def test_weighted_svm_verbose_reports_passes(capfd, monkeypatch):
    from birank import WeightedSVM

    monkeypatch.setattr(passes_module, "REPORT_SECONDS", 0.0)
    X, y01, _ = _data("csr", n=300)
    quiet = WeightedSVM(tol=1e-4, random_state=0).fit(X, y01)
    assert capfd.readouterr().err == ""
    loud = WeightedSVM(tol=1e-4, random_state=0, verbose=True).fit(X, y01)
    err = capfd.readouterr().err
    assert np.array_equal(quiet.coef_, loud.coef_) and quiet.n_iter_ == loud.n_iter_
    assert "dual CD pass " in err and "rows active" in err
    assert err.count("\n") >= 3
