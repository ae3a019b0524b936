"""Exact all-pairs RankSVM on a Dask LocalCluster against the in-memory fit, same process.

For each size, ``make_sparse_bipartite`` rows (sparse, ``--nnz`` non-zeros a
row) are generated once, fitted in memory by ``RankSVM().fit`` (the reference),
then scattered in ``--blocks`` row blocks to a LocalCluster of ``--workers``
worker processes and fitted by ``birank.distributed.fit``. Prints both fit
times and their ratio, in wall-clock and in CPU seconds (the in-memory
process's CPU against the driver's plus the workers'; a loaded machine distorts
CPU time less), the Newton iterations of each (equal: the same solver), the
largest coefficient difference relative to the largest coefficient, and what
the distributed fit moved: payload bytes in total, per Newton iteration and
per product with X (``engine.last_fit_stats``; see docs/distributed.md).

Usage::

    nice -n 10 python benchmarks/bench_distributed.py --rows 1000000 10000000
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def _scatter_blocks(client, X, y, n_blocks):
    """X, y as dask arrays whose row blocks already sit on the workers (no graph copy)."""
    import dask.array as da
    import scipy.sparse as sp

    bounds = np.linspace(0, X.shape[0], n_blocks + 1).astype(np.int64)
    parts = [X[bounds[k]:bounds[k + 1]] for k in range(n_blocks)]
    futures = client.scatter(parts)
    meta = sp.csr_matrix((0, X.shape[1]))
    blocks = [da.from_delayed(f, shape=(int(bounds[k + 1] - bounds[k]), X.shape[1]),
                              dtype=X.dtype, meta=meta) for k, f in enumerate(futures)]
    Xd = da.concatenate(blocks, axis=0)
    yd = da.from_array(y, chunks=(tuple(np.diff(bounds).tolist()),))
    return Xd, yd


def _workers_cpu(client):
    """CPU seconds used so far by all the worker processes."""
    return sum(client.run(time.process_time).values())


def run(n, args, client):
    import birank.distributed as bd
    from birank import RankSVM
    from birank.datasets import make_sparse_bipartite

    X, y, _ = make_sparse_bipartite(n, n_features=args.features, nnz_per_row=args.nnz,
                                    random_state=0)
    make = lambda: RankSVM(C=args.C, tol=args.tol, max_iter=args.max_iter)  # noqa: E731
    t0, c0 = time.perf_counter(), time.process_time()
    ref = make().fit(X, y)
    t_mem, c_mem = time.perf_counter() - t0, time.process_time() - c0
    Xd, yd = _scatter_blocks(client, X, y, args.blocks)
    engine = bd.DaskEngine()
    t0, c0, w0 = time.perf_counter(), time.process_time(), _workers_cpu(client)
    got = bd.fit(make(), Xd, yd, engine=engine)
    t_dist = time.perf_counter() - t0
    # CPU of the driver (with the LocalCluster's scheduler, which runs in this process)
    # plus that of the worker processes
    c_dist = time.process_time() - c0 + _workers_cpu(client) - w0
    stats = engine.last_fit_stats
    diff = float(np.abs(got.coef_ - ref.coef_).max() / np.abs(ref.coef_).max())
    per_iter = stats["bytes_moved"] / max(stats["n_iter"], 1)
    print(f"{n:>10d} {args.blocks:>6d} {args.workers:>7d} {t_mem:9.2f} {t_dist:9.2f} "
          f"{t_dist / t_mem:6.2f} {c_mem:9.2f} {c_dist:10.2f} {c_dist / c_mem:6.2f} "
          f"{ref.n_iter_:>6d} {got.n_iter_:>6d} {diff:10.1e} "
          f"{stats['n_products']:>8d} {stats['bytes_moved'] / 1e9:9.3f} {per_iter / 1e6:10.1f} "
          f"{stats['bytes_moved'] / stats['n_products'] / n:10.2f}", flush=True)
    del X, Xd, ref, got


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, nargs="+", default=[1_000_000])
    p.add_argument("--features", type=int, default=10_000)
    p.add_argument("--nnz", type=int, default=20)
    p.add_argument("--blocks", type=int, default=8)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--C", type=float, default=1.0)
    p.add_argument("--tol", type=float, default=1e-3)
    p.add_argument("--max-iter", type=int, default=30)
    args = p.parse_args(argv)
    import distributed

    cluster = distributed.LocalCluster(n_workers=args.workers, threads_per_worker=1,
                                       processes=True, host="127.0.0.1",
                                       dashboard_address=":0", memory_limit=0)
    with distributed.Client(cluster) as client:
        print("      rows blocks workers  memory_s    dask_s  ratio mem_cpu_s dask_cpu_s  ratio"
              " it_mem it_dsk  max_dcoef products  moved_GB  MB/newton B/row/prod")
        for n in args.rows:
            run(n, args, client)
    cluster.close()


if __name__ == "__main__":
    main()
