"""Graded and real-valued labels: one wide level of the pair sweeps against levels of 10 bits.

With more than two labels, RankSVM's loss sweep counts a pair at the first digit
where the label ranks differ (``birank._kernels.pair_sweep``). Up to
``ONE_LEVEL_MAX_BITS`` (17) bits of label rank the ranks are one digit and the
sweeps have one level; before, they were split into digits of at most 10 bits,
so 2^11-2^17 labels took two levels. The reference, run alternately in the
same process on the same objective data, is that split: ``PairObjective(...,
one_level_max_bits=10)``. Both must give the same loss, gradient and Hessian
product to rounding (checked: relative 1e-12).

Data: ``make_sparse_bipartite(n, n_features=10**4, nnz_per_row=20)`` as in
``bench_limit.py``, labels
``y * K + U{0 .. K-1}`` (2K grades) and the all-distinct real-valued ``y + 0.5
U(0, 1)``. Ratios of the bare products ``X v + X' u`` (as bench_limit), and
one level / two levels (below 1 is faster). Medians of CPU time.

Usage::

    python benchmarks/bench_label_levels.py [--rows 1e5 1e6] [--repeat 7]
        [--grade-bits 11 14 17] [--one-level-max-bits 17]

``--grade-bits``: the labels ``y * K + U{0 .. K-1}`` with ``2K = 2^bits`` grades
(the real-valued labels are always added). ``--one-level-max-bits``: the new
layout's cut-off (``PairObjective(one_level_max_bits=...)``); above 17 it shows
where one level stops paying (e.g. ``--rows 1e6 --grade-bits 18 19 20
--one-level-max-bits 20``).
"""

from __future__ import annotations

import argparse
import os

import numpy as np
from _timing import CPU, medians


def _rel(a, b):
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=float, nargs="+", default=[1e5, 1e6])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--grade-bits", type=int, nargs="+", default=[11, 14, 17])
    ap.add_argument("--one-level-max-bits", type=int, default=None)
    args = ap.parse_args(argv)

    from birank._kernels.pair_sweep import MAX_DIGIT_BITS, ONE_LEVEL_MAX_BITS, _digit_bits
    from birank.datasets import make_sparse_bipartite
    from birank.solvers.newton import PairObjective

    wide = ONE_LEVEL_MAX_BITS if args.one_level_max_bits is None else args.one_level_max_bits
    print(f"load average {os.getloadavg()[0]:.1f}; medians of {args.repeat} alternating runs "
          "(CPU time); x bare = ratio of X v + X'u; new / old = one level up to "
          f"{wide} bits / levels of {MAX_DIGIT_BITS} bits")
    for rows in args.rows:
        n = int(rows)
        X, y, _ = make_sparse_bipartite(n, n_features=10_000, nnz_per_row=20, random_state=0)
        X = X.tocsr()
        rng = np.random.default_rng(2)
        w = rng.normal(size=X.shape[1]) / np.sqrt(20)
        v = rng.normal(size=X.shape[1])
        u = rng.normal(size=n)
        labels = {f"{2 * k} grades": y.astype(np.int64) * k
                  + np.random.default_rng(1).integers(0, k, n)
                  for k in (1 << (b - 1) for b in args.grade_bits)}
        labels["real-valued"] = y + 0.5 * np.random.default_rng(1).random(n)
        for name, yy in labels.items():
            yy = np.asarray(yy, dtype=np.float64)
            new = PairObjective(X, yy, C=1.0, one_level_max_bits=wide)
            old = PairObjective(X, yy, C=1.0, one_level_max_bits=MAX_DIGIT_BITS)
            got = []
            for obj in (new, old):
                f, g, _ = obj.fun_grad(w)
                got.append((f, g.copy(), obj.hess_vec(v).copy()))
            err = max(abs(got[0][0] - got[1][0]) / abs(got[1][0]), _rel(got[0][1], got[1][1]),
                      _rel(got[0][2], got[1][2]))
            t = medians([lambda: (X @ v, X.T @ u),
                         lambda: new.fun_grad(w), lambda: old.fun_grad(w),
                         lambda: new.hess_vec(v), lambda: old.hess_vec(v)], args.repeat,
                        clock=CPU)
            tb = t[0]
            L_new = _digit_bits(int(new.nlab[0]), len(new.levels))
            L_old = _digit_bits(int(old.nlab[0]), len(old.levels))
            print(f"{n:>10,d} rows, {name:>13} ({int(new.nlab[0]):,d} labels; {L_new[0]} x "
                  f"{L_new[1]} bits vs {L_old[0]} x {L_old[1]}): loss+grad {t[1] / tb:4.2f} vs "
                  f"{t[2] / tb:4.2f} x bare = {t[1] / t[2]:4.2f}; Hv {t[3] / tb:4.2f} vs "
                  f"{t[4] / tb:4.2f} = {t[3] / t[4]:4.2f}; largest relative difference "
                  f"{err:.1e}", flush=True)
            if err > 1e-12:
                raise SystemExit("the two layouts disagree")


if __name__ == "__main__":
    main()
