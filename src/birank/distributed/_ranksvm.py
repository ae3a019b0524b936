"""Exact all-pairs RankSVM on Dask: the in-memory Newton solver on a distributed X.

The pair loss depends on X only through the scores ``s = X w``, so the
sort-and-sweep of :mod:`birank._kernels.pair_sweep` needs 8 bytes a row, not
the rows. The fit calls the same
:func:`~birank.solvers.all_pairs.solve_all_pairs` as ``RankSVM.fit`` with X
replaced by a :class:`~birank.distributed._operator.DaskRowOperator`: the same
:func:`~birank.solvers.newton.newton_cg` (squared hinge) or
:func:`~birank.solvers.newton.hinge_by_smoothing` (hinge), every Newton
iteration, line search, CG step and stopping test is the in-memory one; only
the products with X run on the workers (scores out by ``map``; ``X' c`` in by
a tree sum of per-block D-vectors). The labels, query ids, weights and the
per-row sweep state live on the driver (``docs/distributed.md``).
"""

from __future__ import annotations

import time

import numpy as np

from .._progress import Progress, make_progress
from .._validation import check_groups, check_sample_weight, validate_params
from ..batch.ranksvm import encode_rank_labels, store_all_pairs_fit
from ..solvers.all_pairs import solve_all_pairs
from ._check import check_known_rows, checked_rows
from ._operator import DaskRowOperator

__all__ = ["fit_ranksvm"]


def _gather(a, n, name):
    """A per-row array (numpy or dask) brought to the driver, checked to have n rows."""
    if a is None:
        return None
    if hasattr(a, "compute") and hasattr(a, "chunks"):
        a = check_known_rows(a, name).compute()
    a = np.asarray(a)
    if a.ndim == 2 and a.shape[1] == 1 and name == "y":
        a = a.ravel()
    if a.ndim == 0 and name == "sample_weight":
        return a  # a scalar weight: broadcast by check_sample_weight
    if a.ndim != 1 or a.shape[0] != n:
        raise ValueError(f"{name} must be 1-D with one entry per row of X ({n} rows); got "
                         f"shape {a.shape}: X and {name} are not row-aligned.")
    return a


def _reporter(est, op):
    """The in-memory progress line plus elapsed time and bytes moved since the last line."""
    if not est.verbose:
        return make_progress(False)
    inner = Progress(f"distributed RankSVM({est.loss})", min_interval=0.0)
    last = {"bytes": 0, "products": 0, "t": time.perf_counter()}

    def report(step, total=None, message=""):
        now = time.perf_counter()
        inner(step, total, f"{message} moved={(op.bytes_moved - last['bytes']) / 1e6:.2f}MB "
                           f"products={op.n_products - last['products']} "
                           f"iter={now - last['t']:.2f}s")
        last.update(bytes=op.bytes_moved, products=op.n_products, t=now)

    report.close = inner.close  # (the caller ends the line after the solve)
    return report


def fit_ranksvm(est, X, y, groups=None, sample_weight=None, split_every=8):
    """Fit ``est`` (a RankSVM) on dask X exactly as ``est.fit`` does in memory.

    Returns ``(est, stats)``: ``stats`` counts the products with X and the
    payload bytes they moved."""
    validate_params(est)
    Xc = checked_rows(est, X)
    n, d = (int(k) for k in Xc.shape)
    y_rank = encode_rank_labels(est, _gather(y, n, "y"))
    groups = check_groups(_gather(groups, n, "groups"), n)
    sw = check_sample_weight(_gather(sample_weight, n, "sample_weight"), n, y=y_rank)
    op = DaskRowOperator(Xc, split_every=split_every)
    est.n_features_in_ = d
    report = _reporter(est, op)
    # the one entry point RankSVM.fit calls, with X's products on the blocks
    res = solve_all_pairs(op, y_rank, groups=groups, sample_weight=sw, C=est.C,
                          loss=est.loss, tol=est.tol, max_iter=est.max_iter, report=report)
    report.close()
    # what RankSVM.fit keeps, with the training scores computed on the blocks
    store_all_pairs_fit(est, res, y_rank, op.matvec, groups=groups, sample_weight=sw)
    # what the fit moved between driver and workers (docs/distributed.md)
    stats = {"bytes_moved": int(op.bytes_moved), "n_products": int(op.n_products),
             "n_iter": int(res.n_iter), "n_blocks": op.n_blocks}
    return est, stats

