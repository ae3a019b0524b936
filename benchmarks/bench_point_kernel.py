"""Dual CD's kernels against in-process references, per pass, on dense and CSR rows.

``points`` (default): a pool of pseudo-pairs only (WeightedSVM's, CalibratedThreshold's)
runs ``_kernels.dual_cd.dual_cd_points_run``; any other pool runs ``dual_cd_run``. Both give the
same alphas and w bit for bit (tests/test_dual_cd.py), so the ratio point kernel /
generic kernel is the whole effect of the point kernel: no per-step dispatch on the row
kind, and loads issued ahead of the random visit order.

``pairs``: a pool of 2 x 10^5 (positive, negative) pairs runs ``dual_cd_run``, whose loops
read the rows in place, one loop per layout; the reference is the same passes calling
the row primitives of ``_kernels.sparse_rows`` (``row_dot_w``, ``pair_axpy``) once or
twice a step, as the pair kernel did before. Same bits; the ratio is the cost of those calls.

Each row solves the same pool from zero with both kernels, alternating, for
``--passes`` passes at a tolerance no pass meets, on ``make_classification`` data
(half the features informative, 5% of the labels flipped) as dense rows, CSR rows, and
CSR rows whose values are all 1 (``ones``: 1 where the dense value is positive; the
point kernel reads no values, the others read them). Prints the median time per pass
of each, their ratio, and whether w is the same bits.

``--a9a PATH`` adds a9a (123 indicator features, 32,561 rows) to the shapes.

Usage: python benchmarks/bench_point_kernel.py [points|pairs|all]
       [--shapes 1e5x100 1e6x20 1e5x20] [--layouts dense csr ones] [--a9a PATH/a9a]
       [--passes 20] [--repeat 5]
"""

import argparse
import time

import numpy as np
import scipy.sparse as sp
from numba import njit
from sklearn.datasets import make_classification

from birank._kernels.dual_cd import (_after_pass, _new_alpha, _projected_gradient, CNT_IT,
                                     dual_cd_points_run, dual_cd_run, PG_GAP, start_passes,
                                     tcoef, RF_ALPHA, RF_C, RF_Q)
from birank._kernels.sparse_rows import (pair_axpy, rng_init, rng_shuffle, row_dot_w,
                                         split_rows)
from birank.solvers.pair_pool import PairPool


def one_call(run):
    """The ``*_run`` kernel ``run`` as one call of all the passes from a fresh state, with
    the signature of :func:`primitive_dual_cd` (the rows arguments first)."""
    def kernel(*args):
        *head, seed, tol, max_iter, shrinking = args
        rng, index, counts, pg = start_passes(seed, args[-7])  # (n_rows)
        run(*head, tol, shrinking, rng, index, counts, pg, max_iter)
        return counts[CNT_IT], pg[PG_GAP]
    return kernel


dual_cd = one_call(dual_cd_run)
dual_cd_points = one_call(dual_cd_points_run)


@njit  # (compiled in the first, untimed round)
def primitive_dual_cd(X, w, ab, rf, n_rows, squared, fit_threshold, seed, tol, max_iter,
                      shrinking):
    """``dual_cd``'s passes with the rows read through the row primitives (the reference:
    ``dual_cd`` as it was, line for line)."""
    state = rng_init(seed)
    index = np.empty(n_rows, dtype=np.int64)
    for i in range(n_rows):
        index[i] = i
    active_size = n_rows
    PGmax_old = np.inf
    PGmin_old = -np.inf
    last = w.shape[0] - 1
    it = 0
    gap = 0.0
    while it < max_iter:
        PGmax_new = -np.inf
        PGmin_new = np.inf
        rng_shuffle(index, active_size, state)
        s = 0
        while s < active_size:
            p = index[s]
            ap = ab[p, 0]
            bp = ab[p, 1]
            Cp = rf[p, RF_C]
            alpha_p = rf[p, RF_ALPHA]
            tp = tcoef(ap, bp, fit_threshold)
            if squared:
                U = np.inf
                Dp = 0.5 / Cp
            else:
                U = Cp
                Dp = 0.0
            if bp < 0:
                G = row_dot_w(X, w, ap)
            elif ap < 0:
                G = -row_dot_w(X, w, bp)
            else:
                G = row_dot_w(X, w, ap) - row_dot_w(X, w, bp)
            G += tp * w[last] - 1.0 + Dp * alpha_p
            PG, shrink = _projected_gradient(G, alpha_p, U, PGmax_old, PGmin_old, shrinking)
            if shrink:
                active_size -= 1
                index[s], index[active_size] = index[active_size], p
                continue
            if PG > PGmax_new:
                PGmax_new = PG
            if PG < PGmin_new:
                PGmin_new = PG
            if abs(PG) > 1e-12:
                new = _new_alpha(G, alpha_p, U, rf[p, RF_Q] + Dp)
                rf[p, RF_ALPHA] = new
                d = new - alpha_p
                if d != 0.0:
                    pair_axpy(X, w, d, ap, bp)
                    w[last] += d * tp
            s += 1
        it += 1
        done, active_size, PGmax_old, PGmin_old, gap = _after_pass(
            PGmax_new, PGmin_new, active_size, n_rows, tol)
        if done:
            break
    return it, gap


def point_pool(X, y01):
    """The pool WeightedSVM builds: row k as (k, -1) or (-1, k), cost 1."""
    n = y01.shape[0]
    k = np.arange(n)
    pool = PairPool(X)
    pool.add_rows(np.where(y01 == 1, k, -1), np.where(y01 == 1, -1, k), np.ones(n))
    return pool


def pair_pool(X, y01, n_pairs=200_000):
    """Uniformly drawn (positive, negative) pairs, cost 0.01 (ActiveRankSVM's kind of pool)."""
    rng = np.random.default_rng(0)
    pool = PairPool(X)
    pool.add_rows(rng.choice(np.flatnonzero(y01 == 1), n_pairs),
                  rng.choice(np.flatnonzero(y01 == 0), n_pairs), np.full(n_pairs, 0.01))
    return pool


def timed(kernel, rows, pool, passes):
    """CPU seconds per pass of ``kernel`` (given the rows arguments) from alpha = 0, and
    the w it reached."""
    w = np.zeros(pool.state_size)
    rf = pool._rf.copy()
    t0 = time.process_time()
    it, _ = kernel(*rows, w, pool._abk, rf, pool.n_rows, False, False, 7, 0.0, passes, True)
    return (time.process_time() - t0) / it, w


def compare(label, ref, new, pool, args):
    """Alternating runs of the reference ``(name, kernel, rows)`` and the new one."""
    runs = {ref[0]: [], new[0]: []}
    for rep in range(args.repeat + 1):  # (the first round compiles or loads)
        tr, wr = timed(ref[1], ref[2], pool, args.passes)
        tn, wn = timed(new[1], new[2], pool, args.passes)
        if rep:
            runs[ref[0]].append(tr)
            runs[new[0]].append(tn)
    r, n = np.median(runs[ref[0]]), np.median(runs[new[0]])
    print(f"{label}: {ref[0]} {r * 1e3:7.2f} ms  {new[0]} {n * 1e3:7.2f} ms  ratio "
          f"{n / r:.2f}  same w: {np.array_equal(wr, wn)}", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", nargs="?", default="points", choices=["points", "pairs", "all"])
    ap.add_argument("--shapes", nargs="+", default=["1e5x100", "1e6x20", "1e5x20"])
    ap.add_argument("--layouts", nargs="+", default=["dense", "csr", "ones"],
                    choices=["dense", "csr", "ones"])
    ap.add_argument("--a9a", metavar="PATH", help="the a9a LIBSVM file: one more shape")
    ap.add_argument("--passes", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    print("time per pass, medians of alternating runs; ratio = new / reference")
    for shape in args.shapes + (["a9a"] if args.a9a else []):
        if shape == "a9a":  # its own values (all 1): as CSR of ones
            from sklearn.datasets import load_svmlight_file
            Xa, ya = load_svmlight_file(args.a9a, n_features=123)
            sets = [("a9a", "ones", sp.csr_matrix(Xa), (ya > 0).astype(np.int64))]
        else:
            n, d = (int(float(v)) for v in shape.split("x"))
            X, y = make_classification(n_samples=n, n_features=d, n_informative=d // 2,
                                       flip_y=0.05, random_state=0)
            sets = [(f"{n:>9,} x {d:<4}", layout,
                     {"dense": X, "csr": sp.csr_matrix(X),
                      "ones": sp.csr_matrix((X > 0).astype(np.float64))}[layout],
                     y.astype(np.int64)) for layout in args.layouts]
        for name, layout, Xl, y01 in sets:
            label = f"{name} {layout:>5}"
            if args.what in ("points", "all"):
                pool = point_pool(Xl, y01)
                compare(f"points {label}", ("generic", dual_cd, (pool._xa,)),
                        ("point", dual_cd_points, (*split_rows(pool._xa), layout == "ones")),
                        pool, args)
            if args.what in ("pairs", "all"):
                pool = pair_pool(Xl, y01)
                compare(f"pairs  {label}", ("primitives", primitive_dual_cd, (pool._xa,)),
                        ("dual_cd", dual_cd, (pool._xa,)), pool, args)


if __name__ == "__main__":
    main()
