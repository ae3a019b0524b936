"""Fitting birank estimators on dask arrays (see :func:`fit`)."""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator
from sklearn.utils import check_array
from sklearn.utils.validation import check_is_fitted

from .._linalg import dot, matvec, rmatvec, sq_rmatvec
from .._progress import make_progress
from .._validation import as_csr_or_dense, check_random_state, encode_binary, validate_params
from ..base import reset_fitted, set_two_class_output
from ..batch.active_ranksvm import ActiveRankSVM
from ..batch.bbr import BBR, LCBR, AUTO_DENSE_MAX_FEATURES
from ..batch.ranksvm import RankSVM
from ..solvers.pair_moments import (
    ClassGram,
    ClassMoments,
    GramPairsOperator,
    SecondMomentOperator,
    all_pairs_moments,
    densify_pays,
    draw_pairs,
    pair_rows,
    sampled_pair_sums,
    update_class_moments,
)
from ._check import check_known_rows, checked_rows, check_n_features
from ._engine import DaskEngine, as_dask_rows
from ._ranksvm import fit_ranksvm

if TYPE_CHECKING:
    from typing import Any

    from dask.array import Array as DaskArray

    from .._typing import ArrayLike, EstimatorT, FloatArray, MatrixLike
    from ..base import LinearScorerMixin

__all__ = ["fit", "decision_function", "DaskAllPairsOperator"]


# ----------------------------------------------------------------- shared steps
def _check_y_block(y):
    # as the in-memory check of y (NaN / infinity named), per block when it is computed
    return check_array(y, ensure_2d=False, dtype=None, input_name="y", ensure_min_samples=0)


def _prepare(est, X, y):
    """Checked row-chunked dask X, y in {0, 1} (int8, same row chunks) and the two classes.

    X's blocks are validated lazily (:mod:`._check`); y's two values are found by
    one pass (its unique values per block), with the in-memory messages.
    """
    Xc = checked_rows(est, X)
    y = check_known_rows(as_dask_rows(y, name="y"), "y")
    if y.ndim != 1 or Xc.shape[0] != y.shape[0]:
        raise ValueError(f"y must be 1-D with one label per row of X ({Xc.shape[0]} rows); "
                         f"got shape {y.shape}: X and y are not row-aligned.")
    # (a tuple of chunks per axis: a bare tuple would be read as one block size for all)
    y = y.map_blocks(_check_y_block, dtype=y.dtype).rechunk((Xc.chunks[0],))
    values = np.unique(y.map_blocks(np.unique, dtype=y.dtype).compute())
    classes, _ = encode_binary(values)  # the in-memory messages for one or > 2 classes
    y01 = (y == classes[1]).astype(np.int8)
    return Xc, y01, classes


def _scores_block(X, coef):
    return matvec(X, coef)


def decision_function(estimator: LinearScorerMixin, X: DaskArray | MatrixLike) -> DaskArray:
    """Scores of a fitted linear ranker on a dask array, block by block (``map_blocks``).

    Returns a lazy 1-D dask array; nothing is gathered. X is checked as in
    memory: a wrong feature count at once, NaN or infinity in a block when
    that block is computed (the in-memory messages).

    Parameters
    ----------
    estimator : fitted linear birank estimator
        Anything with ``coef_`` and ``intercept_`` (RankSVM, BBR, LCBR, ...).
    X : dask array or array-like of shape (n_samples, n_features)
        Dense or scipy.sparse blocks; an in-memory X is wrapped as one block.

    Returns
    -------
    scores : dask array of shape (n_samples,)
        ``X @ coef_ + intercept_`` (the estimator's ``decision_function``),
        lazy, with X's row chunks.

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
    check_is_fitted(estimator, "coef_")
    Xc = checked_rows(estimator, X)
    check_n_features(estimator, Xc.shape[1])
    coef = np.asarray(estimator.coef_, dtype=np.float64)
    intercept = float(estimator.intercept_)
    return DaskEngine.map_rows(lambda b: _scores_block(b, coef) + intercept, Xc)


def _fit_from_moments(est, X, y01, classes, mu, sigma, n_pairs, report):
    """The estimator's public moment hook, then its decision cut and sigmoid.

    These need every training score once: N float64 values (8 bytes a row)
    are gathered, not the rows.
    """
    report(1, 3, "solving the ball-constrained quadratic")
    est.fit_moments(mu, sigma, classes=classes, n_pairs=n_pairs)
    report(2, 3, f"training scores for the decision cut ({len(X.chunks[0])} blocks)")
    scores = DaskEngine.map_rows(lambda b: _scores_block(b, est.coef_), X).compute()
    set_two_class_output(est, scores, y01.compute())
    report(3, 3, "done")
    return est


# ------------------------------------------------------------------ BBR (exact)
def _class_moments_block(X, y01, d):
    pos, neg = ClassMoments(d), ClassMoments(d)
    return update_class_moments(pos, neg, X, np.asarray(y01))


def _merge_class_moments(a, b):
    for mine, other in zip(a, b):
        mine.merge(other.n, other.mean, other.m2)
    return a


def _class_rows(X, y01, label):
    return np.flatnonzero(np.asarray(y01) == label)


def _class_stats_block(X, y01):
    """Per class (positive, negative): count, sum of rows, and for the storage rule of
    :class:`~birank.solvers.pair_moments.ClassGram` the nnz and the sum of squared nnz."""
    out = []
    for label in (1, 0):
        rows = _class_rows(X, y01, label)
        per_row = (np.diff(X.indptr)[rows] if sp.issparse(X)
                   else np.full(rows.shape[0], X.shape[1]))
        u = np.zeros(X.shape[0])
        u[rows] = 1.0
        out.append(np.array([rows.shape[0], per_row.sum(dtype=np.int64),
                             (per_row.astype(np.int64) ** 2).sum()], dtype=np.int64))
        out.append(rmatvec(X, u))
    return tuple(out)


def _class_gram_block(X, y01):
    out = []
    for label in (1, 0):
        Z = X[_class_rows(X, y01, label)].astype(np.float64)
        out.append((Z.T @ Z).tocsr() if sp.issparse(Z) else Z.T @ Z)
    return tuple(out)


def _gram_block(X, y01, v, n1, n0):
    c = np.where(np.asarray(y01) != 0, 1.0 / n1, 1.0 / n0)
    return rmatvec(X, c * matvec(X, v))


def _sq_block(X, y01, n1, n0):
    c = np.where(np.asarray(y01) != 0, 1.0 / n1, 1.0 / n0)
    return sq_rmatvec(X, c)


def _folds(d, nnz, sq):
    """ClassGram's rule: the rows are summed into a Gram matrix when that cannot be larger."""
    return min(d * d, sq) <= nnz


class DaskAllPairsOperator(LinearOperator):
    """Sigma_N over all pairs of a dask array, applied by a map over blocks + tree sum.

    The same algebra as :class:`birank.solvers.pair_moments.GramPairsOperator`
    (``X1'(X1 v)/N1 + X0'(X0 v)/N0 - m1 m1'v - m0 m0'v + mu mu'v``), with one
    distributed pass over the blocks per product; only D-vectors travel.
    ``stats``: the per-class counts, sums and nnz of one pass (else computed).

    Parameters
    ----------
    X : dask array of shape (n_samples, n_features)
        Chunked by rows only, checked blocks (dense or CSR).
    y01 : dask array of shape (n_samples,) in {0, 1}
        With X's row chunks; 1 is the positive class.
    engine : DaskEngine
        Runs the per-block products and their tree sum.
    stats : tuple, default=None
        The per-class statistics of one pass over the blocks, as
        ``engine.map_combine(_class_stats_block, ...)`` returns them
        (``birank.distributed.fit`` passes the ones it already has); None
        computes them (one pass).

    Examples
    --------
    >>> import numpy as np, dask.array as da
    >>> from birank.distributed import DaskAllPairsOperator, DaskEngine
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 1.0], [0.0, 0.0]])
    >>> y01 = np.array([1, 0, 1, 0], dtype=np.int8)
    >>> op = DaskAllPairsOperator(da.from_array(X, chunks=(2, 2)),
    ...                           da.from_array(y01, chunks=2), engine=DaskEngine())
    >>> op.shape, op.n1, op.n0
    ((2, 2), 2, 2)
    >>> Z = np.array([X[i] - X[j] for i in (0, 2) for j in (1, 3)])  # the 4 pair vectors
    >>> v = np.array([1.0, -1.0])
    >>> bool(np.allclose(op.matvec(v), Z.T @ Z @ v / len(Z)))
    True
    """

    def __init__(self, X: DaskArray, y01: DaskArray, *, engine: DaskEngine,
                 stats: tuple[Any, ...] | None = None) -> None:
        self.X, self.y01, self.engine = X, y01, engine
        if stats is None:
            stats = engine.map_combine(_class_stats_block, _add, X, y01)
        (n1, self.nnz1, self.sq1), s1, (n0, self.nnz0, self.sq0), s0 = (
            (stats[0][0], stats[0][1], stats[0][2]), stats[1],
            (stats[2][0], stats[2][1], stats[2][2]), stats[3])
        self.n1, self.n0 = int(n1), int(n0)
        self.dense_ = None  # Sigma_N itself, once formed by densify_if_cheaper
        d = X.shape[1]
        if self.n1 and self.n0:
            self.m1, self.m0 = s1 / self.n1, s0 / self.n0
            self.mu = self.m1 - self.m0
        super().__init__(dtype=np.float64, shape=(d, d))

    def densify_if_cheaper(self, n_products: int, max_entries: int) -> bool:
        """Form Sigma_N on the cluster when the in-memory fit would form it.

        The in-memory rule (:meth:`GramPairsOperator.densify_if_cheaper`) on the
        storage ``fit`` would have: per class its Gram matrix (where
        :class:`ClassGram` folds the rows: at most ``min(D^2, sum nnz^2)``
        numbers, the bound used here) or its rows. When it forms Sigma, Sigma is
        formed here too, by the tree of per-block class moments of
        ``solver="eigh"`` (D x D numbers per block), and solved exactly.

        Parameters
        ----------
        n_products : int
            The implicit products the solver would need at most.
        max_entries : int
            The largest Sigma (D x D entries) that may be formed.

        Returns
        -------
        formed : bool
            Whether Sigma was formed (then held in ``dense_`` and used by every
            product).
        """
        d = self.shape[0]
        if d * d > max_entries:
            return False
        stored, block_sq = 0, 0
        for nnz, sq in ((self.nnz1, self.sq1), (self.nnz0, self.sq0)):
            if _folds(d, nnz, sq):
                stored += min(d * d, sq)
            else:
                stored, block_sq = stored + nnz, block_sq + sq
        if not densify_pays(d, n_products, stored, block_sq):
            return False
        pos, neg = self.engine.map_combine(_class_moments_block, _merge_class_moments,
                                           self.X, self.y01, args=(d,))
        self.dense_ = all_pairs_moments(pos, neg)[1]
        return True

    def _matvec(self, v):
        v = np.asarray(v, dtype=np.float64).ravel()
        if self.dense_ is not None:
            return self.dense_ @ v
        out = self.engine.map_combine(_gram_block, np.add, self.X, self.y01,
                                      args=(v, self.n1, self.n0))
        out = out - (self.m1 * dot(self.m1, v) + self.m0 * dot(self.m0, v))
        return out + self.mu * dot(self.mu, v)

    def _rmatvec(self, v):
        return self._matvec(v)

    def diagonal(self) -> FloatArray:
        d = self.engine.map_combine(_sq_block, np.add, self.X, self.y01,
                                    args=(self.n1, self.n0))
        return d - self.m1 ** 2 - self.m0 ** 2 + self.mu ** 2

    def trace(self) -> float:
        return float(self.diagonal().sum())


def _add(a, b):
    return tuple(u + v for u, v in zip(a, b))


def _solver(est, d):
    """As the in-memory fit: "eigh" up to AUTO_DENSE_MAX_FEATURES features, else "cg"."""
    if est.solver == "auto":
        return "eigh" if d <= AUTO_DENSE_MAX_FEATURES else "cg"
    return est.solver


def _fit_bbr(est, X, y01, classes, engine, report):
    d = X.shape[1]
    report(0, 3, f"pair moments over {len(X.chunks[0])} blocks")
    if _solver(est, d) == "eigh":
        # map: per-block class count, mean, centred scatter; combine: Chan's merge
        pos, neg = engine.map_combine(_class_moments_block, _merge_class_moments, X, y01,
                                      args=(d,))
        mu, sigma = all_pairs_moments(pos, neg)
        return _fit_from_moments(est, X, y01, classes, mu, sigma, int(pos.n) * int(neg.n),
                                 report)
    stats = engine.map_combine(_class_stats_block, _add, X, y01)
    (n1, nnz1, sq1), s1, (n0, nnz0, sq0), s0 = stats
    if _folds(d, nnz1, sq1) and _folds(d, nnz0, sq0):
        # the state fit keeps: each class's Gram matrix (no larger than its rows), here
        # summed over the blocks; then the very operator (and densify rule) of fit
        g1, g0 = engine.map_combine(_class_gram_block, _add, X, y01)
        op = GramPairsOperator(ClassGram.from_gram(int(n1), s1, g1),
                               ClassGram.from_gram(int(n0), s0, g0))
    else:  # rows too many to sum into Gram matrices: they stay in their blocks
        op = DaskAllPairsOperator(X, y01, engine=engine, stats=stats)
    return _fit_from_moments(est, X, y01, classes, op.mu, op, int(n1) * int(n0), report)


# ----------------------------------------------------------------- LCBR (sampled)
def _fit_lcbr(est, X, y01, classes, engine, report):
    solver = _solver(est, X.shape[1])
    report(0, 3, f"drawing {int(est.n_pairs)} pairs, gathering their rows")
    y = y01.compute()  # one byte a row; the pair draw needs the class of every row
    rng = check_random_state(est.random_state)  # as LCBR's own first chunk draws
    pos = np.flatnonzero(y == 1).astype(np.int64)
    neg = np.flatnonzero(y == 0).astype(np.int64)
    a, b = draw_pairs(rng, pos, neg, int(est.n_pairs))  # gultekin-paisley Alg. 2, l. 4
    # gather only the rows of the sampled pairs; renumber the pairs into them
    rows = np.unique(np.concatenate([a, b]))
    R = as_csr_or_dense(engine.take_rows(X, rows))
    a_loc, b_loc = np.searchsorted(rows, a), np.searchsorted(rows, b)
    S = a.shape[0]
    if solver == "eigh":  # gultekin-paisley Alg. 2, lines 5-6
        sz, szz = sampled_pair_sums(R, a_loc, b_loc)
        mu, sigma = sz / S, szz / S
    else:
        gram = ClassGram(X.shape[1])  # the Gram matrix (or rows) of the sampled z_s
        gram.add(pair_rows(R, a_loc, b_loc))
        sigma = SecondMomentOperator(gram)
        mu = sigma.mu
    return _fit_from_moments(est, X, y01, classes, mu, sigma, S, report)


# ---------------------------------------------- ActiveRankSVM (a sample of rows)
def _fit_active(est, X, y01, classes, engine, max_samples):
    n = X.shape[0]
    rng = check_random_state(est.random_state)
    m = min(n, int(max_samples))
    rows = np.sort(rng.choice(n, size=m, replace=False))
    R = engine.take_rows(X, rows)
    yr = y01.compute()[rows]
    est.fit(R, classes[yr.astype(np.intp)])
    est.sampled_rows_ = rows
    return est


# --------------------------------------------------------------- online learners
def _fit_sequential(est, X, y, classes):
    """``partial_fit`` block after block, in order (the model visits each block once)."""
    from dask import compute

    # forget any earlier fit the one way the estimators do (their declared private state)
    reset_fitted(est, private=getattr(est, "_online_private_state", ()))
    bx, by = DaskEngine.blocks(X, y)
    # verbose: one progress line over the blocks ("block i of n"), not the estimator's own
    # full bar for every block's partial_fit (quiet meanwhile; its setting is restored)
    verbose = est.get_params().get("verbose", False)
    n_blocks = sum(1 for rows in X.chunks[0] if rows)
    report = make_progress(verbose, f"distributed {type(est).__name__}", min_interval=0.0)
    if verbose:
        est.set_params(verbose=False)
    try:
        i = 0
        for xb, yb, rows in zip(bx, by, X.chunks[0]):
            if rows == 0:  # an empty block: partial_fit takes one row or more
                continue
            xb, yb = compute(xb, yb)
            est.partial_fit(xb, yb, classes=classes)
            i += 1
            report(i, n_blocks, f"block {i} of {n_blocks} ({rows} rows)")
    finally:
        report.close()
        if verbose:
            est.set_params(verbose=verbose)
    return est


def fit(estimator: EstimatorT, X: DaskArray | MatrixLike, y: DaskArray | ArrayLike, *,
        groups: DaskArray | ArrayLike | None = None,
        sample_weight: DaskArray | ArrayLike | None = None, max_samples: int = 200_000,
        engine: DaskEngine | None = None) -> EstimatorT:
    """Fit a birank estimator on dask arrays, distributing what can be distributed.

    * :class:`~birank.RankSVM`: exact all-pairs RankSVM (both losses, binary
      or graded / real-valued labels, ``groups``, ``sample_weight``). The
      in-memory Newton solver runs on the driver with X's products done on
      the blocks (scores out, ``X' c`` in by a tree sum): the same iterations
      and stopping rule as ``RankSVM().fit`` (``docs/distributed.md``).
      ``engine.last_fit_stats`` then holds the products and bytes moved.
    * :class:`~birank.BBR`: exact; per-block class moments merged by a tree
      (``solver="eigh"``); with ``"cg"`` the class Gram matrices summed over
      the blocks where ``fit`` would fold its rows into them (then the same
      operator and the same decision to form Sigma as in memory), else the
      pair covariance applied block-wise. Fitted through
      :meth:`~birank.BBR.fit_moments`. Equals the in-memory fit.
    * :class:`~birank.LCBR`: the pairs are drawn as in memory (same seed, same
      pairs), then only their rows are gathered. Equals the in-memory fit.
    * :class:`~birank.ActiveRankSVM`: ``max_samples`` rows are drawn
      uniformly without replacement with ``random_state``, gathered, and the
      rounds run in memory on them (``sampled_rows_`` lists the rows). Equals
      ``estimator.fit(X[sampled_rows_], y[sampled_rows_])``.
    * any estimator with ``partial_fit`` (CombinedRanking, the online
      learners): sequential over the blocks in order, as
      ``dask_ml.wrappers.Incremental`` does. Equals in-memory ``partial_fit``
      over the same blocks.

    The labels (one byte a row) and, for the score threshold of BBR/LCBR and
    every RankSVM Newton step, the scores (8 bytes a row) are gathered; the
    rows of X are not, except the rows LCBR and ActiveRankSVM sample.
    X's blocks are checked as in memory (NaN, infinity: the same messages)
    when they are first computed.

    Parameters
    ----------
    estimator : birank estimator (unfitted or fitted; it is refitted)
    X : dask array of shape (n_samples, n_features), dense or scipy.sparse blocks
    y : dask array of shape (n_samples,)
    groups : dask array or array-like of shape (n_samples,), default=None
        RankSVM only: query ids (pairs within a query only).
    sample_weight : dask array or array-like of shape (n_samples,), default=None
        RankSVM only: row weights (pair weight = product).
    max_samples : int, default=200_000
        ActiveRankSVM only: the number of rows drawn (all rows if there are
        fewer), as scikit-learn's ``max_samples`` of bagging; the estimator
        gets ``sampled_rows_``, their sorted indices.
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
    >>> Xd, yd = da.from_array(X, chunks=(100, 3)), da.from_array(y, chunks=100)
    >>> model = fit(BBR(radius=1.0), Xd, yd)
    >>> bool(np.allclose(model.coef_, BBR(radius=1.0).fit(X, y).coef_, atol=1e-10))
    True
    >>> from birank import RankSVM
    >>> model = fit(RankSVM(C=0.1), Xd, yd)  # the in-memory Newton iterations
    >>> bool(np.allclose(model.coef_, RankSVM(C=0.1).fit(X, y).coef_, rtol=1e-10))
    True
    """
    engine = engine or DaskEngine()
    if isinstance(estimator, RankSVM):
        est, engine.last_fit_stats = fit_ranksvm(estimator, X, y, groups, sample_weight,
                                                 split_every=engine.split_every)
        return est
    if groups is not None or sample_weight is not None:
        raise TypeError(f"birank.distributed.fit takes groups and sample_weight for RankSVM "
                        f"only; got them for {type(estimator).__name__}.")
    validate_params(estimator)
    if isinstance(estimator, ActiveRankSVM) and (
            isinstance(max_samples, bool) or not isinstance(max_samples, numbers.Integral)
            or max_samples < 1):
        raise ValueError(f"max_samples must be an int >= 1 (the rows drawn for "
                         f"ActiveRankSVM); got {max_samples!r}.")
    if isinstance(estimator, (BBR, LCBR, ActiveRankSVM)):
        Xd, y01, classes = _prepare(estimator, X, y)
        if isinstance(estimator, (BBR, LCBR)):  # verbose: as in memory, steps of the fit
            fit_moments = _fit_bbr if isinstance(estimator, BBR) else _fit_lcbr
            with make_progress(estimator.verbose, f"distributed {type(estimator).__name__}",
                               min_interval=0.0) as report:
                return fit_moments(estimator, Xd, y01, classes, engine, report)
        return _fit_active(estimator, Xd, y01, classes, engine, max_samples)
    if hasattr(estimator, "partial_fit"):
        Xd = checked_rows(estimator, X)
        yd = check_known_rows(as_dask_rows(y, name="y"), "y")
        if yd.ndim != 1 or yd.shape[0] != Xd.shape[0]:
            raise ValueError(f"y must be 1-D with one label per row of X ({Xd.shape[0]} rows); "
                             f"got shape {yd.shape}: X and y are not row-aligned.")
        yd = yd.rechunk((Xd.chunks[0],))
        classes = np.unique(yd.map_blocks(np.unique, dtype=yd.dtype).compute())
        return _fit_sequential(estimator, Xd, yd, classes)
    raise TypeError(f"birank.distributed.fit does not know {type(estimator).__name__}; "
                    "it needs RankSVM, BBR, LCBR, ActiveRankSVM or an estimator with "
                    "partial_fit.")
