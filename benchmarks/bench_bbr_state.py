"""BBR(solver='cg') state and speed: per-class Gram matrices against keeping the rows.

Since the move onto OnlineRankerMixin, ``BBR(solver="cg")`` sums each chunk into
per-class sparse Gram matrices ``X_c'X_c`` instead of keeping every chunk, except
where a Gram matrix would hold more numbers than the rows (high-dimensional text),
where the rows are kept. This script streams a data set in chunks and prints,
for each:

- the stored numbers of that state (``ClassGram.stored``, both classes) against
  the rows the old state kept (nnz of X), as a ratio;
- the time of ``fit`` against a reference in the same process that keeps the
  rows and applies Sigma as ``X_c'(X_c v)`` (the previous implementation,
  rebuilt here), median of ``--repeat`` runs, as a ratio;
- the largest coefficient difference between the two.

Usage::

    python benchmarks/bench_bbr_state.py --data-home PATH [--quick] [--repeat 3]
        [--only a9a w8a farm-ads]
"""

from __future__ import annotations

import argparse
import os

import numpy as np

from _timing import rounds  # (benchmarks/_timing.py)
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator

from birank import BBR
from birank.datasets import load_svmlight
from birank.solvers.ball_quadratic import solve_ball_quadratic
from birank.solvers.pair_moments import ClassGram

from _data import data_file  # (benchmarks/_data.py)


class _RowsOperator(LinearOperator):
    """The previous state: every row kept, ``Sigma v`` from ``X_c'(X_c v)``."""

    def __init__(self, X1, X0):
        self.X1, self.X0 = X1, X0
        self.m1 = np.asarray(X1.mean(axis=0)).ravel()
        self.m0 = np.asarray(X0.mean(axis=0)).ravel()
        self.mu = self.m1 - self.m0
        d = X1.shape[1]
        super().__init__(dtype=np.float64, shape=(d, d))

    def _matvec(self, v):
        v = np.asarray(v).ravel()
        out = np.asarray(self.X1.T @ (self.X1 @ v)).ravel() / self.X1.shape[0] \
            - self.m1 * (self.m1 @ v)
        out += np.asarray(self.X0.T @ (self.X0 @ v)).ravel() / self.X0.shape[0] \
            - self.m0 * (self.m0 @ v)
        return out + self.mu * (self.mu @ v)

    def trace(self):
        t = self.X1.multiply(self.X1).sum() / self.X1.shape[0] - self.m1 @ self.m1
        t += self.X0.multiply(self.X0).sum() / self.X0.shape[0] - self.m0 @ self.m0
        return float(t + self.mu @ self.mu)


def reference_fit(X, y, radius, tol):
    op = _RowsOperator(X[y == 1], X[y == 0])
    ridge = 1e-10 * max(op.trace(), np.finfo(float).tiny) / X.shape[1]
    return solve_ball_quadratic(op, op.mu, radius, ridge=ridge, tol=tol).coef


def data_sets(data_home, quick):
    X, y = load_svmlight(data_file(data_home, "a9a/a9a"))[:2]
    yield "a9a", X, (y > 0).astype(int)
    X, y = load_svmlight(data_file(data_home, "w8a/w8a"))[:2]
    if quick:
        X, y = X[:10000], y[:10000]
    yield "w8a", X, (y > 0).astype(int)
    path = os.path.join(data_home, "farm-ads", "X_raw.npz")
    if os.path.exists(path):
        X = sp.load_npz(path).tocsr().astype(np.float64)
        y = np.load(os.path.join(data_home, "farm-ads", "y_raw.npy"))
        if quick:
            X, y = X[:1000], y[:1000]
        yield "farm-ads", X, (y > 0).astype(int)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-home", required=True)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--chunks", type=int, default=10)
    parser.add_argument("--only", nargs="+", help="data sets to run (a9a, w8a, farm-ads)")
    args = parser.parse_args(argv)
    radius, tol = 1.0, 1e-10
    print(f"BBR(solver='cg', radius={radius}, tol={tol}); state after streaming "
          f"{args.chunks} chunks; times: median of {args.repeat}, interleaved")
    for name, X, y in data_sets(args.data_home, args.quick):
        if args.only and name not in args.only:
            continue
        X.sort_indices()
        # the state BBR(solver="cg").partial_fit accumulates over the chunks (without
        # the re-solve after each chunk, which does not change it)
        grams = {1: ClassGram(X.shape[1]), 0: ClassGram(X.shape[1])}
        for idx in np.array_split(np.arange(X.shape[0]), args.chunks):
            for label, gram in grams.items():
                gram.add(X[idx][y[idx] == label])
        gram_nnz = sum(g.stored for g in grams.values())
        (t_new, t_ref), (model, w_ref) = rounds(
            [lambda: BBR(radius=radius, solver="cg", tol=tol).fit(X, y),
             lambda: reference_fit(X, y, radius, tol)], args.repeat)
        t_new, t_ref = float(np.median(t_new)), float(np.median(t_ref))
        diff = float(np.max(np.abs(model.coef_ - w_ref)))
        print(f"{name:9s} N={X.shape[0]:6d} D={X.shape[1]:6d} | state nnz {gram_nnz:10d} "
              f"vs rows nnz {X.nnz:10d} (ratio {gram_nnz / X.nnz:8.3f}) | fit {t_new:7.3f} s vs "
              f"rows {t_ref:7.3f} s (ratio {t_new / t_ref:6.3f}) | max |coef diff| {diff:.2e}",
              flush=True)


if __name__ == "__main__":
    main()
