"""The exact Dask metrics against the in-memory ones, same process, same data.

For each number of blocks, ``--block-rows`` rows a block of labels and scores
are generated once; ``birank.distributed.roc_auc`` and ``pairwise_accuracy``
run on them as dask arrays on a LocalCluster of ``--workers`` worker processes
(one thread each), and ``birank.metrics.roc_auc`` / ``pairwise_accuracy`` on
the same arrays in memory (the reference). Prints the medians of
``--repeat`` wall-clock runs of each, their ratio, and whether the two results
are the same float (they must be: the distributed metrics are an exact sample
sort, module ``birank.distributed._metrics``).

Labels: ``binary`` (two values, ties in score), ``graded`` (five grades) or
``real`` (all distinct: the second shuffle by label buckets).

The ratio is what the distributed metric costs over gathering the two columns
(8 bytes a row each) and computing in memory: scheduler round trips and the
shuffle's ``about 2 B^1.5`` tasks for ``B`` blocks. The distributed metric is
for data that does not fit the driver; it is not expected to be faster.

Usage::

    python benchmarks/bench_distributed_metrics.py [--blocks 4 16 64] [--block-rows 10000]
                                                   [--labels binary graded real]
                                                   [--workers 2] [--repeat 3] [--quick]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import time

import numpy as np

from _timing import median_time  # (benchmarks/_timing.py)


def _data(n, labels, seed=0):
    rng = np.random.default_rng(seed)
    if labels == "binary":
        y = rng.integers(0, 2, n).astype(np.float64)
        s = np.round(rng.standard_normal(n) + 0.5 * y, 2)  # ties in score
    elif labels == "graded":
        y = rng.integers(0, 5, n).astype(np.float64)
        s = rng.standard_normal(n) + 0.3 * y
    else:
        y = rng.random(n)
        s = rng.standard_normal(n) + y
    return y, s


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--blocks", type=int, nargs="+", default=[4, 16, 64])
    ap.add_argument("--block-rows", type=int, default=10_000)
    ap.add_argument("--labels", nargs="+", default=["binary", "graded", "real"],
                    choices=["binary", "graded", "real"])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="4 and 8 blocks of 2,000 rows, once")
    args = ap.parse_args(argv)
    if args.quick:
        args.blocks, args.block_rows, args.repeat = [4, 8], 2_000, 1

    import dask.array as da
    from distributed import Client, LocalCluster, wait

    from birank import distributed as bd
    from birank import metrics

    tree = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True, cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip()
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}; tree {tree or '?'}; "
          f"LocalCluster of {args.workers} worker processes x 1 thread; "
          f"blocks of {args.block_rows:,} rows; medians of {args.repeat} wall-clock runs")
    with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster):
        for labels in args.labels:  # warm the workers' imports and both sides' kernels
            y, s = _data(4 * args.block_rows, labels, seed=1)
            yd = da.from_array(y, chunks=args.block_rows)
            sd = da.from_array(s, chunks=args.block_rows)
            bd.pairwise_accuracy(yd, sd), metrics.pairwise_accuracy(y, s)
            if labels == "binary":
                bd.roc_auc(yd, sd), metrics.roc_auc(y, s)
        print(f"{'labels':>7} {'blocks':>6} {'rows':>10}  {'metric':<18} {'dask s':>8} "
              f"{'memory s':>9} {'ratio':>7}  same float")
        bad = 0
        for labels in args.labels:
            for nb in args.blocks:
                n = nb * args.block_rows
                y, s = _data(n, labels)
                # the blocks already on the workers, as for data loaded with Dask (not
                # shipped inside every metric's task graph)
                yd = da.from_array(y, chunks=args.block_rows).persist()
                sd = da.from_array(s, chunks=args.block_rows).persist()
                wait([yd, sd])
                pairs = [("pairwise_accuracy", bd.pairwise_accuracy, metrics.pairwise_accuracy)]
                if labels == "binary":
                    pairs.insert(0, ("roc_auc", bd.roc_auc, metrics.roc_auc))
                for name, dist_fn, mem_fn in pairs:
                    td, got = median_time(lambda f=dist_fn: f(yd, sd), args.repeat)
                    tm, want = median_time(lambda f=mem_fn: f(y, s), args.repeat)
                    same = got == want
                    bad += not same
                    print(f"{labels:>7} {nb:>6} {n:>10,}  {name:<18} {td:8.3f} {tm:9.4f} "
                          f"{td / tm:7.1f}  {same} ({got:.12f})", flush=True)
    if bad:
        raise SystemExit(f"{bad} distributed result(s) differ from the in-memory metric")


if __name__ == "__main__":
    main()
