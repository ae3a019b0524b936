"""Online learners: instances per second, compiled kernels vs plain NumPy doing the same updates.

Two streams, one pass each, rows in the given order:

* a9a (bundled, 32,561 rows, 123 features, about 14 non-zeros a row);
* a sparse stream of 10^6 features (``make_sparse_bipartite``: 20,000 rows,
  20 non-zeros a row, 10 % positives). It measures speed only: each column
  occurs in 0.4 rows on average, so no learner ranks its test rows (AUC ~0.55).

For every online learner in ``birank.online`` (CBR, CBR-diag, OAM_seq,
OAM_gra, AdaOAM, and those of the other online modules when they are present:
OPAUC, OnlineUniExp, SPAM, PGD) it prints the instances per second of ``fit``
over the whole stream (median of ``--repeat`` runs, after one compiling run),
and, for the learners with a plain-NumPy reference (``tests/oracles_online.py``:
the same updates, one NumPy step per pair, sparse rows handled on the union of
the two supports), both rates on the first ``--ref-rows`` rows and their ratio
(the speedup), with the largest weight difference as a check that the updates
are the same. The goal: CBR-diag with buffers of 50 passes over a9a
in under 0.25 s.

Usage: ``python benchmarks/bench_online.py [--quick] [--repeat 5] [--ref-rows 1000]``
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

from _timing import median_time, wall_and_cpu  # (benchmarks/_timing.py)

import birank.online as online
from birank.datasets import load_a9a, make_sparse_bipartite

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from oracles_online import adaoam_reference, reference_stream  # noqa: E402


def learners():
    """(name, factory, reference or None, max features or None)."""
    out = [
        # (the reference's eta is CBR's confidence: the same value on both sides)
        ("CBR-diag FIFO", lambda: online.CBR(covariance="diag", buffer="fifo", C=0.1,
                                             confidence=0.7),
         lambda X, y, n: reference_stream("cbr-diag", X, y, C=0.1, eta=0.7, n_rows=n)[0], None),
        ("CBR-diag RS", lambda: online.CBR(covariance="diag", buffer="reservoir", C=0.1,
                                           confidence=0.7, random_state=0), None, None),
        ("CBR full FIFO", lambda: online.CBR(covariance="full", buffer="fifo", C=0.1,
                                             confidence=0.7),
         lambda X, y, n: reference_stream("cbr-full", X, y, C=0.1, eta=0.7, n_rows=n)[0], 1000),
        ("OAM_seq", lambda: online.OAM(variant="seq", buffer="fifo", C=0.01),
         lambda X, y, n: reference_stream("oam-seq", X, y, C=0.01, n_rows=n)[0], None),
        ("OAM_gra", lambda: online.OAM(variant="gra", buffer="fifo", C=0.001),
         lambda X, y, n: reference_stream("oam-gra", X, y, C=0.001, n_rows=n)[0], None),
        ("AdaOAM", lambda: online.AdaOAM(eta0=0.05),
         lambda X, y, n: adaoam_reference(X, y, learning_rate=0.05, n_rows=n), 1000),
    ]
    # the other online learners, when this build has them (no NumPy reference here)
    for name in ("OPAUC", "OnlineUniExp", "SPAM", "PGD"):
        cls = getattr(online, name, None)
        if cls is not None:
            limit = 1000 if name == "OPAUC" else None
            out.append((name, cls, None, limit))
    return out


def run_stream(label, X, y, repeat, ref_rows, Xt=None, yt=None):
    n = X.shape[0]
    print(f"\n## {label}: {n} rows x {X.shape[1]} features, one pass\n")
    print("| learner | fit s | fit CPU s | inst/s | test AUC | prefix rows | inst/s (kernel) | "
          "inst/s (NumPy) | speedup | max |dw| |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    results = {}
    for name, make, reference, limit in learners():
        if limit is not None and X.shape[1] > limit:
            print(f"| {name} | n/a (limited to {limit} features) | | | | | | | | |")
            continue
        make().fit(X[:200], y[:200])                    # compile
        seconds, cpu, _ = wall_and_cpu(lambda: make().fit(X, y), repeat)
        model = make().fit(X, y)
        auc = f"{model.score(Xt, yt):.4f}" if Xt is not None else "-"
        row = f"| {name} | {seconds:.3f} | {cpu:.3f} | {n / seconds:,.0f} | {auc} |"
        results[name] = (seconds, cpu)
        if reference is None:
            print(row + " | | | | |")
            continue
        m = min(ref_rows, n)
        ours = median_time(lambda: make().fit(X[:m], y[:m]), repeat)[0]
        t0 = time.perf_counter()
        w_ref = reference(X[:m], (y[:m] == model.classes_[1]).astype(np.int8), m)
        ref_seconds = time.perf_counter() - t0
        diff = np.abs(make().fit(X[:m], y[:m]).coef_ - w_ref).max()
        print(row + f" {m} | {m / ours:,.0f} | {m / ref_seconds:,.0f} | "
                    f"{ref_seconds / ours:,.0f}x | {diff:.1e} |")
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="3 repeats, 300 reference rows, a 5,000-row sparse stream")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--ref-rows", type=int, default=1000)
    args = parser.parse_args(argv)
    repeat, ref_rows, n_sparse = args.repeat, args.ref_rows, 20_000
    if args.quick:
        repeat, ref_rows, n_sparse = 3, 300, 5_000
    X, y = load_a9a()
    Xt, yt = load_a9a(subset="test")
    a9a = run_stream("a9a", X, y, repeat, ref_rows, Xt, yt)
    Xs, ys = make_sparse_bipartite(n_sparse + 5000, n_features=10**6, nnz_per_row=20,
                                   random_state=0)[:2]
    run_stream("sparse stream (make_sparse_bipartite)", Xs[:n_sparse], ys[:n_sparse], repeat,
               min(ref_rows, 300), Xs[n_sparse:], ys[n_sparse:])
    wall, cpu = a9a["CBR-diag FIFO"]
    with open("/proc/loadavg") as fh:
        load = fh.read().split()[0]
    print(f"\nGoal: CBR-diag, buffers of 50, one pass over a9a in < 0.25 s: {wall:.3f} s wall, "
          f"{cpu:.3f} s CPU ({'met' if wall < 0.25 else 'NOT met'} in wall time on this run; "
          f"load average {load} on {os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
