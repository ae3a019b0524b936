"""The point-wise dual CD kernel against the generic pair-row kernel, per pass.

A pool of pseudo-pairs only (WeightedSVM's, CalibratedThreshold's) runs
``_kernels.dual_cd.dual_cd_points``; any other pool runs ``dual_cd``. Both give
the same alphas and w bit for bit (tests/test_dual_cd.py), so the ratio is the
whole effect of the point kernel: no per-step dispatch on the row kind, and
loads issued ahead of the random visit order. Each row below solves the same
pool from zero with both kernels, alternating, for ``--passes`` passes at a
tolerance no pass meets, on ``make_classification`` data (half the features
informative, 5% of the labels flipped) as dense rows, CSR rows, and CSR rows
whose values are all 1 (``ones``: 1 where the dense value is positive; the point kernel
reads no values, the generic one reads them). Prints the
median time per pass of each kernel, their ratio, and whether w is the same bits.

Usage: python benchmarks/bench_point_kernel.py [--shapes 1e5x100 1e6x20 1e5x20]
       [--layouts dense csr ones] [--passes 20] [--repeat 5]
"""

import argparse
import time

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import make_classification

from birank._kernels.dual_cd import dual_cd, dual_cd_points
from birank.solvers.pair_pool import PairPool


def pool_of(X, y01):
    """The pool WeightedSVM builds: row k as (k, -1) or (-1, k), cost 1."""
    n = y01.shape[0]
    k = np.arange(n)
    pool = PairPool(X)
    pool.add_rows(np.where(y01 == 1, k, -1), np.where(y01 == 1, -1, k), np.ones(n))
    return pool


def timed(kernel, rows, pool, passes):
    """CPU seconds per pass of ``kernel`` (given the rows argument and whatever precedes w)
    from alpha = 0, and the w it reached."""
    w = np.zeros(pool.state_size)
    rf = pool._rf.copy()
    t0 = time.process_time()
    it, _ = kernel(*rows, w, pool._abk, rf, pool.n_rows, False, False, 7, 0.0, passes, True)
    return (time.process_time() - t0) / it, w


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shapes", nargs="+", default=["1e5x100", "1e6x20", "1e5x20"])
    ap.add_argument("--layouts", nargs="+", default=["dense", "csr", "ones"],
                    choices=["dense", "csr", "ones"])
    ap.add_argument("--passes", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    print("time per pass, medians of alternating runs; ratio = point kernel / generic kernel")
    for shape in args.shapes:
        n, d = (int(float(v)) for v in shape.split("x"))
        X, y = make_classification(n_samples=n, n_features=d, n_informative=d // 2,
                                   flip_y=0.05, random_state=0)
        y01 = y.astype(np.int64)
        for layout in args.layouts:
            if layout == "dense":
                Xl = X
            elif layout == "csr":
                Xl = sp.csr_matrix(X)
            else:
                Xl = sp.csr_matrix((X > 0).astype(np.float64))
            pool = pool_of(Xl, y01)
            generic_rows = (pool._xa,)
            # (dense, data, indices, indptr, whether the values are all 1)
            point_rows = ((pool._xa, None, None, None, False) if layout == "dense" else
                          (None, *pool._xa, layout == "ones"))
            runs = {"generic": [], "point": []}
            for rep in range(args.repeat + 1):  # (the first round compiles or loads)
                tg, wg = timed(dual_cd, generic_rows, pool, args.passes)
                tp, wp = timed(dual_cd_points, point_rows, pool, args.passes)
                if rep:
                    runs["generic"].append(tg)
                    runs["point"].append(tp)
            g, p = np.median(runs["generic"]), np.median(runs["point"])
            print(f"{n:>9,} x {d:<4} {layout:>5}: generic {g * 1e3:7.2f} ms  point "
                  f"{p * 1e3:7.2f} ms  ratio {p / g:.2f}  same w: {np.array_equal(wg, wp)}",
                  flush=True)


if __name__ == "__main__":
    main()
