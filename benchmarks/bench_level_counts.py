"""``OrdinalPairs.level_counts`` against the per-row count it replaced, same process.

Level r of a group of runs of equal labels (sizes ``s_j``) holds
``sum_j s_j s_{j-r}`` pairs. The reference is the former kernel: for every
row, one step per level up to ``min(rank, max_level)`` (O(N max_level); all
levels of N distinct labels: N^2 / 2 steps), written out here. Both count all
levels of the same labels (``--rows`` labels, distinct but for ``--ties`` rows
sharing one value, and, on a second line, graded labels with 5 rows a value
but every fifth run of 7); the counts must be equal. Prints the times (best of
``--repeat``) and their ratio.

Usage::

    python benchmarks/bench_level_counts.py [--rows 20000 50000] [--ties 1000] [--repeat 3]
"""

from __future__ import annotations

import argparse

import numpy as np

from _timing import CPU, best_time  # (benchmarks/_timing.py)
from numba import njit

from birank.pairs import OrdinalPairs


@njit(cache=True)
def per_row_counts(rank, run_id, run_begin, max_level):
    """The former ``level_pair_counts``: O(N) per level."""
    counts = np.zeros(max_level + 1, dtype=np.int64)
    for p in range(rank.shape[0]):
        top = min(rank[p], max_level)
        for r in range(1, top + 1):
            run = run_id[p] - r
            counts[r] += run_begin[run + 1] - run_begin[run]
    return counts


def _labels(kind, n, ties, rng):
    if kind == "distinct":
        y = rng.permutation(n).astype(float)
        y[:ties] = y[0]
        return y
    sizes = np.where(np.arange(n // 5) % 5 == 4, 7, 5)  # runs of 5 rows, every fifth of 7
    return rng.permutation(np.repeat(np.arange(sizes.shape[0], dtype=float), sizes)[:n])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, nargs="+", default=[20_000, 50_000])
    ap.add_argument("--ties", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    small = OrdinalPairs(np.arange(5.0))
    small.level_counts(4)  # compile both before timing
    per_row_counts(small._rank, small._run_id, small._run_begin, 4)
    print("all levels of N labels; CPU seconds, best of", args.repeat)
    for kind in ("distinct", "graded"):
        for n in args.rows:
            y = _labels(kind, n, args.ties, rng)
            space = OrdinalPairs(y)
            top = int(space._rank.max())
            t_new, new = best_time(lambda: space.level_counts(top), args.repeat, clock=CPU)
            t_old, old = best_time(lambda: per_row_counts(space._rank, space._run_id,
                                                      space._run_begin, top), args.repeat,
                                   clock=CPU)
            equal = np.array_equal(new, old) and int(new.sum()) == space.n_pairs
            print(f"{kind:>8} N={n:>7,d} levels={top:>7,d}  level_counts {t_new * 1e3:8.2f} ms  "
                  f"per-row count {t_old * 1e3:9.1f} ms  ratio {t_new / t_old:.4f}  "
                  f"equal {equal}", flush=True)
            if not equal:
                raise SystemExit("the counts differ")


if __name__ == "__main__":
    main()
