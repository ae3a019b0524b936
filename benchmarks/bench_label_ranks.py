"""Label ranks of a RankSVM fit: against the numpy rank passes and numpy's lexsort.

A graded or real-valued RankSVM fit first ranks the labels inside each group
(``birank.solvers.newton.label_ranks``: the pair sweeps count a pair at the
first digit where the ranks differ). It sorts the rows by group, then label
(from ``RADIX_MIN`` rows by the scores' radix argsort of the labels and a
counting sort by group), then ranks them in one kernel pass
(``birank._kernels.labels.ranks_in_order``; with one group the sort hands the
labels over in order). Two references, run alternately in the same process:
the same sort followed by the rank computation in numpy passes that the kernel
replaced (kept here, :func:`numpy_ranks`), and numpy's ``lexsort((y, groups))``
followed by those passes (the path before the radix sort). A second line per
case times the two rank computations alone on one order. All must give the
same ranks and counts (checked).

Data: all-distinct real-valued labels ``y + 0.5 U(0, 1)`` as in
``bench_limit.py``, in one group and in groups of about 100 rows (a query id).
Medians of CPU time; ratio = label_ranks / reference (below 1 is faster).

Usage::

    python benchmarks/bench_label_ranks.py [--rows 1e5 1e6] [--repeat 7]
"""

from __future__ import annotations

import argparse
import os

import numpy as np
from _timing import CPU, medians


def numpy_ranks(y, gid, o, n_groups):
    """The ranks from ``o`` (rows by group, then label) in numpy passes: the reference."""
    n = y.shape[0]
    ys, gs = y[o], gid[o]
    new_group = np.ones(n, dtype=bool)
    new_group[1:] = gs[1:] != gs[:-1]
    new_label = new_group.copy()
    new_label[1:] |= ys[1:] != ys[:-1]
    rank = np.cumsum(new_label) - 1
    first_rank = np.maximum.accumulate(np.where(new_group, rank, 0))
    lab = np.empty(n, dtype=np.int64)
    lab[o] = rank - first_rank
    nlab = np.bincount(gs[new_label], minlength=n_groups).astype(np.int64)
    return lab, nlab


def kernel_ranks(y, gid, o, n_groups):
    """The library's rank pass from the same order (its one-group path reads the labels
    in order from the sort; here they are gathered, as for several groups)."""
    from birank._kernels.labels import ranks_in_order

    lab = np.empty(y.shape[0], dtype=np.int64)
    nlab = np.empty(n_groups, dtype=np.int64)
    ranks_in_order(y[o], gid[o], o, lab, nlab)
    return lab, nlab


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=float, nargs="+", default=[1e5, 1e6])
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args(argv)

    from birank.solvers.newton import _by_group_then_label, label_ranks

    def passes_ranks(y, gid, n_groups):  # the same sort, the numpy passes
        return numpy_ranks(y, gid, _by_group_then_label(y, gid, n_groups), n_groups)

    def lexsort_ranks(y, gid, n_groups):
        return numpy_ranks(y, gid, np.lexsort((y, gid)), n_groups)

    print(f"load average {os.getloadavg()[0]:.1f}; medians of {args.repeat} alternating runs "
          "(CPU time); ratio = label_ranks / reference")
    for rows in args.rows:
        n = int(rows)
        rng = np.random.default_rng(1)
        y = rng.integers(0, 2, n) + 0.5 * rng.random(n)
        for name, n_groups in (("one group", 1), ("groups of ~100", max(1, n // 100))):
            gid = (np.zeros(n, dtype=np.int64) if n_groups == 1
                   else rng.integers(0, n_groups, n).astype(np.int64))
            new = label_ranks(y, gid, n_groups)
            same = all(all(np.array_equal(a, b) for a, b in zip(new, ref(y, gid, n_groups)))
                       for ref in (passes_ranks, lexsort_ranks))
            t_new, t_pass, t_lex = medians(
                [lambda: label_ranks(y, gid, n_groups), lambda: passes_ranks(y, gid, n_groups),
                 lambda: lexsort_ranks(y, gid, n_groups)], args.repeat, clock=CPU)
            print(f"{n:>10,d} rows, {name:>15}: label_ranks {t_new * 1e3:6.1f} ms; radix sort + "
                  f"numpy passes {t_pass * 1e3:6.1f} ms: ratio {t_new / t_pass:4.2f}; lexsort + "
                  f"numpy passes {t_lex * 1e3:6.1f} ms: ratio {t_new / t_lex:4.2f}; same ranks: "
                  f"{same}", flush=True)
            o = np.lexsort((y, gid))
            same_pass = all(np.array_equal(a, b) for a, b in zip(
                kernel_ranks(y, gid, o, n_groups), numpy_ranks(y, gid, o, n_groups)))
            t_k, t_np = medians([lambda: kernel_ranks(y, gid, o, n_groups),
                                 lambda: numpy_ranks(y, gid, o, n_groups)], args.repeat, clock=CPU)
            print(f"{'':>10}  the ranks alone from one order: kernel {t_k * 1e3:6.1f} ms, numpy "
                  f"passes {t_np * 1e3:6.1f} ms: ratio {t_k / t_np:4.2f}; same ranks: {same_pass}",
                  flush=True)
            if not (same and same_pass):
                raise SystemExit("the ranks differ")


if __name__ == "__main__":
    main()
