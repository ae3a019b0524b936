"""CPU time against wall time of every estimator's default fit (``n_jobs=None``: one core).

An estimator asked for no threads should use one core: CPU time equal to wall
time. OpenBLAS breaks that without a trace in the code: a dot product of two
long float vectors (``np.dot``, ``a @ b``, ``np.linalg.norm``) runs on all its
threads, and their workers then spin on the other cores for a while, waiting
for more work, through whatever single-threaded kernel comes next. Each fit
here is timed in wall-clock and process CPU time; the ratio CPU / wall is 1.0
for a fit that keeps to one core and up to the number of cores for one whose
BLAS workers spin all along. The reference, in the same process and the same
rounds: the same fit under ``threadpool_limits(1)`` (every BLAS and OpenMP pool
capped at one thread), whose wall time says whether the extra threads bought
anything. Workers woken at the end of a fit spin after it has returned, while
the caller does something else: "idle after" is the CPU time the process uses
in the 0.2 s after the fit, while the caller sleeps (0 for a clean fit; it was
about 100 ms for the online learners, whose last step took a BLAS dot).

Data (generated, no files): ``make_sparse_bipartite`` with binary labels at
123 features (a9a's width) and at 2^20 features (hashed text, ads: vectors of
the feature space are long), and with real-valued labels (``y + 0.5 U(0, 1)``,
RankSVM's many-label sweeps). After the idle window, a fit starts with no
worker left spinning by the fit before (OpenBLAS's timeout is about 0.1 s).

Usage::

    python benchmarks/bench_cpu_wall.py [--rows 20000] [--repeat 3] [--only RankSVM ...]
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
from threadpoolctl import threadpool_limits

import birank
from birank.datasets import make_sparse_bipartite

#: estimators whose default fit is quadratic or slow in the rows: a tenth of them
SLOW = {"PrunedRankSVM": 10, "CBR": 10}
#: not a fit on (X, y): it queries an oracle
SKIP = {"ActiveRankLearner"}


def timed(fit, limit):
    """``(wall, CPU, CPU in the 0.2 s after)`` of one fit."""
    with threadpool_limits(limit):
        t0, c0 = time.perf_counter(), time.process_time()
        fit()
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        c1 = time.process_time()
        time.sleep(0.2)
        return wall, cpu, time.process_time() - c1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=float, default=2e4)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", nargs="*", default=None)
    args = ap.parse_args()
    n = int(args.rows)
    rng = np.random.default_rng(1)
    sets = []
    for d in (123, 1 << 20):
        X, y, _ = make_sparse_bipartite(n, n_features=d, nnz_per_row=20, random_state=0)
        sets.append((f"binary, {d} features", X, (y > 0).astype(int)))
    X, y, _ = make_sparse_bipartite(n, n_features=10_000, nnz_per_row=20, random_state=0)
    sets.append(("real-valued, 10^4 features", X, y + 0.5 * rng.random(n)))
    names = args.only or [m for m in birank.__all__ if m not in SKIP]
    print(f"{n:,} rows; medians of {args.repeat}; {os.cpu_count()} cores; "
          f"load average {os.getloadavg()[0]:.1f}; ratio = CPU / wall (1.0: one core)")
    worst, most_idle = 1.0, 0.0
    for label, X, y in sets:
        real = label.startswith("real")
        print(label)
        for name in names:
            cls = getattr(birank, name)
            if real and name != "RankSVM":
                continue  # (the others take two classes)
            cut = SLOW.get(name, 1)
            Xn, yn = X[: X.shape[0] // cut], y[: X.shape[0] // cut]
            kw = {"random_state": 0} if "random_state" in cls().get_params() else {}

            def fit(cls=cls, kw=kw, Xn=Xn, yn=yn):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    cls(**kw).fit(Xn, yn)

            try:
                fit()  # compiled or loaded once, not timed
            except ValueError as e:  # (CBR's full covariance refuses 2^20 features)
                print(f"  {name:16s} refuses this data: {str(e).split(';')[0]}")
                continue
            free, capped = [], []
            for _ in range(args.repeat):
                free.append(timed(fit, None))
                capped.append(timed(fit, 1))
            w, c, idle = np.median(free, axis=0)
            wc, cc, _ = np.median(capped, axis=0)
            worst = max(worst, c / w)
            most_idle = max(most_idle, idle)
            print(f"  {name:16s} wall {w * 1e3:8.1f} ms  CPU {c * 1e3:8.1f} ms  ratio {c / w:4.2f}"
                  f"  idle after {idle * 1e3:5.1f} ms"
                  f"   | pools capped at 1: wall {wc * 1e3:8.1f} ms  ratio {cc / wc:4.2f}"
                  f"  (wall / capped {w / wc:4.2f})", flush=True)
    print(f"largest CPU / wall: {worst:.2f}; most CPU in the 0.2 s after a fit: "
          f"{most_idle * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
