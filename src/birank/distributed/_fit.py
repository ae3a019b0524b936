"""Fitting birank estimators on dask arrays (see :func:`fit`)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator

from .._linalg import matvec, rmatvec, sq_rmatvec
from .._validation import check_random_state, validate_params
from ..metrics import best_accuracy_threshold
from ..batch.active_ranksvm import ActiveRankSVM
from ..batch.bbr import BBR, LCBR, AUTO_DENSE_MAX_FEATURES
from ..batch.ranksvm import RankSVM
from ..solvers.pair_moments import (
    ClassGram,
    ClassMoments,
    all_pairs_moments,
    draw_pairs,
    pair_rows,
    sampled_pair_sums,
    update_class_moments,
)
from ._engine import DaskEngine, as_dask_rows

__all__ = ["fit", "decision_function", "DaskAllPairsOperator"]


# ----------------------------------------------------------------- shared steps
def _as_float_block(X):
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        return X if X.dtype in (np.float32, np.float64) else X.astype(np.float64)
    X = np.asarray(X)
    return X if X.dtype in (np.float32, np.float64) else X.astype(np.float64)


def _prepare(est, X, y):
    """Row-chunked dask X, y; ``classes_``, ``n_features_in_`` and y in {0, 1}."""
    X = as_dask_rows(X, "X")
    y = as_dask_rows(y, "y")
    if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.shape[0]:
        raise ValueError(f"X must be 2-D and y 1-D with as many rows; got X {X.shape}, "
                         f"y {y.shape}.")
    y = y.rechunk(X.chunks[0])
    classes = np.unique(y.map_blocks(np.unique, dtype=y.dtype).compute())
    if classes.shape[0] != 2:
        raise ValueError(f"y must hold exactly two label values for bipartite ranking; got "
                         f"{classes.shape[0]}.")
    est.classes_ = classes
    est.n_features_in_ = int(X.shape[1])
    y01 = (y == classes[1]).astype(np.int8)
    return X, y01


def _scores_block(X, coef):
    return matvec(_as_float_block(X), coef)


def decision_function(estimator, X):
    """Scores of a fitted linear ranker on a dask array, block by block (``map_blocks``).

    Returns a lazy 1-D dask array; nothing is gathered.

    Examples
    --------
    >>> import numpy as np, dask.array as da
    >>> from birank import BBR
    >>> from birank.distributed import decision_function
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 1.0], [0.0, 0.0]])
    >>> model = BBR().fit(X, [1, 0, 1, 0])
    >>> s = decision_function(model, da.from_array(X, chunks=(2, 2)))
    >>> bool(np.allclose(s.compute(), model.decision_function(X)))
    True
    """
    X = as_dask_rows(X, "X")
    coef = np.asarray(estimator.coef_, dtype=np.float64)
    intercept = float(estimator.intercept_)
    return DaskEngine.map_rows(lambda b: _scores_block(b, coef) + intercept, X)


def _set_threshold(est, X, y01):
    """``intercept_`` = minus the best-accuracy cut, as the in-memory fit.

    Needs every training score once: N float64 values (8 bytes a row) are
    gathered, not the rows.
    """
    scores = DaskEngine.map_rows(lambda b: _scores_block(b, est.coef_), X).compute()
    cut, _ = best_accuracy_threshold(y01.compute(), scores)
    est.intercept_ = -cut


# ------------------------------------------------------------------ BBR (exact)
def _class_moments_block(X, y01, d):
    pos, neg = ClassMoments(d), ClassMoments(d)
    return update_class_moments(pos, neg, _as_float_block(X), np.asarray(y01))


def _merge_class_moments(a, b):
    for mine, other in zip(a, b):
        mine.merge(other.n, other.mean, other.m2)
    return a


def _class_sums_block(X, y01):
    X = _as_float_block(X)
    pos = (np.asarray(y01) != 0).astype(np.float64)
    return np.int64(pos.sum()), pos.shape[0], rmatvec(X, pos), rmatvec(X, 1.0 - pos)


def _add(a, b):
    return tuple(u + v for u, v in zip(a, b))


def _gram_block(X, y01, v, n1, n0):
    X = _as_float_block(X)
    c = np.where(np.asarray(y01) != 0, 1.0 / n1, 1.0 / n0)
    return rmatvec(X, c * matvec(X, v))


def _sq_block(X, y01, n1, n0):
    X = _as_float_block(X)
    c = np.where(np.asarray(y01) != 0, 1.0 / n1, 1.0 / n0)
    return sq_rmatvec(X, c)


class DaskAllPairsOperator(LinearOperator):
    """Sigma_N over all pairs of a dask array, applied by a map over blocks + tree sum.

    The same algebra as :class:`birank.solvers.pair_moments.AllPairsOperator`
    (``X1'(X1 v)/N1 + X0'(X0 v)/N0 - m1 m1'v - m0 m0'v + mu mu'v``), with one
    distributed pass over the blocks per product; only D-vectors travel.
    """

    def __init__(self, X, y01, engine):
        self.X, self.y01, self.engine = X, y01, engine
        n1, n, s1, s0 = engine.map_combine(_class_sums_block, _add, X, y01)
        self.n1, self.n0 = int(n1), int(n - n1)
        d = X.shape[1]
        if self.n1 and self.n0:
            self.m1, self.m0 = s1 / self.n1, s0 / self.n0
            self.mu = self.m1 - self.m0
        super().__init__(dtype=np.float64, shape=(d, d))

    def _matvec(self, v):
        v = np.asarray(v, dtype=np.float64).ravel()
        out = self.engine.map_combine(_gram_block, np.add, self.X, self.y01,
                                      args=(v, self.n1, self.n0))
        out = out - (self.m1 * (self.m1 @ v) + self.m0 * (self.m0 @ v))
        return out + self.mu * (self.mu @ v)

    def _rmatvec(self, v):
        return self._matvec(v)

    def diagonal(self):
        d = self.engine.map_combine(_sq_block, np.add, self.X, self.y01,
                                    args=(self.n1, self.n0))
        return d - self.m1 ** 2 - self.m0 ** 2 + self.mu ** 2

    def trace(self):
        return float(self.diagonal().sum())


def _pick_solver(est, d):
    """As the in-memory fit: "eigh" up to AUTO_DENSE_MAX_FEATURES features, else "cg"."""
    solver = est.solver
    if solver == "auto":
        solver = "eigh" if d <= AUTO_DENSE_MAX_FEATURES else "cg"
    est._solver_used = solver
    return solver


def _fit_bbr(est, X, y01, engine):
    d = X.shape[1]
    solver = _pick_solver(est, d)
    if solver == "eigh":
        # map: per-block class count, mean, centred scatter; combine: Chan's merge
        pos, neg = engine.map_combine(_class_moments_block, _merge_class_moments, X, y01,
                                      args=(d,))
        est.n_pairs_ = int(pos.n) * int(neg.n)
        moments = all_pairs_moments(pos, neg) if pos.n and neg.n else (None, None)
    else:
        op = DaskAllPairsOperator(X, y01, engine)
        est.n_pairs_ = op.n1 * op.n0
        moments = (op.mu, op) if op.n1 and op.n0 else (None, None)
    est._solve(moments)
    _set_threshold(est, X, y01)
    return est


# ----------------------------------------------------------------- LCBR (sampled)
def _fit_lcbr(est, X, y01, engine):
    solver = _pick_solver(est, X.shape[1])
    y = y01.compute()  # one byte a row; the pair draw needs the class of every row
    rng = check_random_state(est.random_state)
    est._rng = rng
    pos = np.flatnonzero(y == 1).astype(np.int64)
    neg = np.flatnonzero(y == 0).astype(np.int64)
    if pos.size == 0 or neg.size == 0:
        est.n_pairs_ = 0
        est._solve((None, None))
        return est
    a, b = draw_pairs(rng, pos, neg, int(est.n_pairs))  # gultekin-paisley Alg. 2, l. 4
    # gather only the rows of the sampled pairs; renumber the pairs into them
    rows = np.unique(np.concatenate([a, b]))
    R = _as_float_block(engine.take_rows(X, rows))
    a_loc, b_loc = np.searchsorted(rows, a), np.searchsorted(rows, b)
    S = a.shape[0]
    est.n_pairs_ = S
    if solver == "eigh":
        sz, szz = sampled_pair_sums(R, a_loc, b_loc)
        est._state = {"n": S, "sz": sz, "szz": szz}
    else:
        gram = ClassGram(X.shape[1])  # the Gram matrix (or rows) of the sampled z_s
        gram.add(pair_rows(R, a_loc, b_loc))
        est._state = {"n": S, "gram": gram}
    est._solve()
    _set_threshold(est, X, y01)
    return est


# ------------------------------------------------- ActiveRankSVM (candidate pool)
def _fit_active(est, X, y01, engine, pool_size):
    n = X.shape[0]
    rng = check_random_state(est.random_state)
    m = min(n, int(pool_size))
    rows = np.sort(rng.choice(n, size=m, replace=False))
    R = engine.take_rows(X, rows)
    yr = y01.compute()[rows]
    classes = est.classes_
    est.fit(R, classes[yr.astype(np.intp)])
    est.pool_rows_ = rows
    return est


# --------------------------------------------------------------- online learners
def _fit_sequential(est, X, y, classes):
    """``partial_fit`` block after block, in order (the model visits each block once)."""
    from dask import compute

    if hasattr(est, "_reset_online_state"):
        est._reset_online_state()
    else:
        for attr in ("classes_", "coef_", "_state"):
            if hasattr(est, attr):
                delattr(est, attr)
    bx, by = DaskEngine.blocks(X, y)
    for xb, yb in zip(bx, by):
        xb, yb = compute(xb, yb)
        est.partial_fit(xb, yb, classes=classes)
    return est


def fit(estimator, X, y, *, pool_size=200_000, engine=None):
    """Fit a birank estimator on dask arrays, distributing what can be distributed.

    * :class:`~birank.BBR`: exact; per-block class moments merged by a tree
      (``solver="eigh"``) or the pair covariance applied block-wise inside
      conjugate gradients (``"cg"``). Equals the in-memory fit.
    * :class:`~birank.LCBR`: the pairs are drawn as in memory (same seed, same
      pairs), then only their rows are gathered. Equals the in-memory fit.
    * :class:`~birank.ActiveRankSVM`: a uniform candidate pool of
      ``pool_size`` rows is drawn with ``random_state``, gathered, and the
      rounds run in memory on it (``pool_rows_`` lists the rows). Equals
      ``estimator.fit(X[pool_rows_], y[pool_rows_])``.
    * any estimator with ``partial_fit`` (CombinedRanking, the online
      learners): sequential over the blocks in order, as
      ``dask_ml.wrappers.Incremental`` does. Equals in-memory ``partial_fit``
      over the same blocks.
    * :class:`~birank.RankSVM`: not distributed (see the README, "Scaling out").

    The labels (one byte a row) and, for the score threshold of BBR/LCBR, the
    training scores (8 bytes a row) are gathered; the rows of X are not,
    except the rows LCBR samples and ActiveRankSVM's pool.

    Parameters
    ----------
    estimator : birank estimator (unfitted or fitted; it is refitted)
    X : dask array of shape (n_samples, n_features), dense or scipy.sparse blocks
    y : dask array of shape (n_samples,)
    pool_size : int, default=200_000
        ActiveRankSVM only: rows in the candidate pool.
    engine : DaskEngine, default=None

    Returns
    -------
    estimator

    Examples
    --------
    >>> import numpy as np, dask.array as da
    >>> from birank import BBR
    >>> from birank.distributed import fit
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 3)); y = (X[:, 0] + rng.normal(size=400) > 0).astype(int)
    >>> model = fit(BBR(radius=1.0), da.from_array(X, chunks=(100, 3)), da.from_array(y, chunks=100))
    >>> bool(np.allclose(model.coef_, BBR(radius=1.0).fit(X, y).coef_, atol=1e-10))
    True
    """
    engine = engine or DaskEngine()
    if isinstance(estimator, RankSVM):
        raise NotImplementedError(
            "RankSVM is not distributed: its exact all-pairs loss needs a global sort of "
            "the scores at every Newton step. Fit it on one machine (10^7 rows fit in "
            "memory), or use BBR (exact, distributed) or ActiveRankSVM (candidate pool).")
    validate_params(estimator)
    if isinstance(estimator, (BBR, LCBR)):
        Xd, y01 = _prepare(estimator, X, y)
        return (_fit_bbr if isinstance(estimator, BBR) else _fit_lcbr)(estimator, Xd, y01,
                                                                        engine)
    if isinstance(estimator, ActiveRankSVM):
        Xd, y01 = _prepare(estimator, X, y)
        return _fit_active(estimator, Xd, y01, engine, pool_size)
    if hasattr(estimator, "partial_fit"):
        Xd = as_dask_rows(X, "X")
        yd = as_dask_rows(y, "y").rechunk(Xd.chunks[0])
        classes = np.unique(yd.map_blocks(np.unique, dtype=yd.dtype).compute())
        return _fit_sequential(estimator, Xd, yd, classes)
    raise TypeError(f"birank.distributed.fit does not know {type(estimator).__name__}; "
                    "it needs BBR, LCBR, ActiveRankSVM or an estimator with partial_fit.")
