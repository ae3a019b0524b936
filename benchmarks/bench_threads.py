"""``n_jobs=1`` against ``n_jobs=2``: products with X, RankSVM, WeightedSVM, ``roc_auc``.

On ``make_sparse_bipartite(10**6, n_features=10**4, nnz_per_row=20)`` (``--rows``): the
products ``X v`` + ``X' u`` over fixed row blocks (:class:`birank._parallel.BlockedProducts`),
``RankSVM(C=1e-6, n_jobs=...)``'s fit and WeightedSVM's squared-hinge Newton fit;
then ``roc_auc`` on ``--auc-rows`` (10^7) random scores with ties. Each is run
alternately with one and two threads in one process (wall-clock medians; the
speed-up is n_jobs=1 time / n_jobs=2 time, the median over the rounds of each
round's ratio, with the ratio of the median times beside it: the two runs of a
round meet the same load from the machine's other work, which drifts between
rounds), checking that both give the same bits. The target: >= 1.6 on 2 cores for the products and RankSVM's fit. The
load average is printed: on a shared machine the second core is often busy
with other work, which caps the speed-up whatever the code does.

The memory ceiling: the products read X's stored entries once each (12 bytes
an entry) and do two flops per entry, so they are bound by memory bandwidth,
which two cores share. The line "reading X" times one plain pass over
``X.data`` and ``X.indices`` (a sum, nothing else) on one and two threads, in
the same alternation: its speed-up is what the memory system gives two
threads on this machine, and "products at n_jobs=2 / reading X on two
threads" says how close the products come to it.

Parallel in RankSVM's fit: the check of X's values (finite, largest magnitude:
:func:`birank._parallel.scan_values`), the scan of its used columns, the
products, Newton's sums of score vectors (trial scores, the direction's scores:
:class:`birank.solvers.newton.ScoreVectors`), (one group, two labels) the
per-row passes over the lower rows of the threshold ranks (:mod:`birank.solvers.
two_label_sweep`: their ranks, their gradient, their part of the Hessian
product; the sums over them stay on one thread), and the probability
calibration's passes over the
training scores (fixed blocks of rows); (one group, graded or real-valued
labels) the sort, the loss sweep and the Hessian product's replay of the pairs
(:mod:`birank.solvers.level_threads`: level 0's two passes at once, its counting
sort over chunks, then the nodes of each digit level), each timed on its own on
all-distinct real-valued labels ``y + 0.5 U(0, 1)``, then RankSVM's whole fit on
them; (query ids) each group's sort, the loss sweep and the Hessian product over
runs of whole groups (:mod:`birank.solvers.group_threads`), timed on RankSVM's
fit with 10^4 groups of 100 rows and graded labels 0-4. Not parallel (one thread
whatever n_jobs): scikit-learn's other input checks, the label ranks and the
rest of the solver's setup, WeightedSVM's dual coordinate descent (the hinge),
the weighted ``roc_auc``'s sort (its pass over the sorted rows is on the threads,
timed on the same scores with uniform weights).

``--tasks A B`` instead times only RankSVM's ``n_jobs=2`` fit with ``A`` and with ``B``
tasks a thread per parallel phase (:data:`birank._parallel.TASKS_PER_THREAD`: runs of
consecutive blocks or chunks a thread takes from the shared list; more tasks even out
the threads' finish, at a few microseconds of hand-over each), alternating which goes
first, and prints the medians, their ratio and whether the coefficients are the same
bits (the blocks and chunks, hence the sums, do not depend on it).

Usage::

    python benchmarks/bench_threads.py [--rows 1e6] [--auc-rows 1e7] [--repeat 5]
    python benchmarks/bench_threads.py --tasks 2 6 [--repeat 21]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from _timing import rounds  # (benchmarks/_timing.py)
from numba import njit


@njit(nogil=True)
def _read(data, indices, lo, hi):
    """One pass over X's stored entries (the memory traffic of a product, no product)."""
    s = 0.0
    k = 0
    for p in range(lo, hi):
        s += data[p]
        k += indices[p]
    return s + k


def _one_against_two(run, repeat):
    """``run(1)`` and ``run(2)`` alternately: (median time 1, median time 2, last results,
    the two runs' times round by round, for :func:`_speedup`)."""
    (t1, t2), (o1, o2) = rounds([lambda: run(1), lambda: run(2)], repeat)
    return float(np.median(t1)), float(np.median(t2)), o1, o2, (t1, t2)


def _speedup(pair, target=None):
    """``n_jobs=1`` time / ``n_jobs=2`` time from ``pair = (t1, t2)``, their times over
    the same rounds: the median of each round's ratio (the two runs of a round are next
    to each other, so they meet the same load from the machine's other work; that load
    drifts between rounds), the ratio of the median times beside it, and the target's
    verdict."""
    t1, t2 = pair
    sp = float(np.median(t1 / t2))
    text = f"speed-up {sp:.2f}x (ratio of the medians {np.median(t1) / np.median(t2):.2f}x)"
    if target is not None:
        text += f" (target >= {target}: {'met' if sp >= target else 'MISSED'})"
    return text


def _tasks(args):
    """RankSVM's n_jobs=2 fit with two values of TASKS_PER_THREAD, alternating."""
    import birank._parallel as parallel
    from birank import RankSVM
    from birank.datasets import make_sparse_bipartite

    X, y, _ = make_sparse_bipartite(int(args.rows), n_features=10_000, nnz_per_row=20,
                                    random_state=0)
    default = parallel.TASKS_PER_THREAD
    times = {k: [] for k in args.tasks}
    coefs = {}
    try:
        for r in range(args.repeat + 1):  # the first round compiles, untimed
            for k in (args.tasks if r % 2 else args.tasks[::-1]):
                parallel.TASKS_PER_THREAD = k
                t0 = time.perf_counter()
                coefs[k] = RankSVM(C=1e-6, n_jobs=2).fit(X, y).coef_
                if r:
                    times[k].append(time.perf_counter() - t0)
    finally:
        parallel.TASKS_PER_THREAD = default
    (a, ta), (b, tb) = ((k, float(np.median(times[k]))) for k in args.tasks)
    print(f"load average {os.getloadavg()[0]:.1f}; RankSVM(C=1e-6, n_jobs=2) fit, medians of "
          f"{args.repeat}: {a} tasks a thread {ta:.3f} s, {b} tasks a thread {tb:.3f} s: "
          f"ratio {tb / ta:.3f} (the library's default: {default}); same coefficients: "
          f"{coefs[a].tobytes() == coefs[b].tobytes()}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=float, default=1e6)
    ap.add_argument("--auc-rows", type=float, default=1e7)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--tasks", type=int, nargs=2, default=None, metavar=("A", "B"))
    args = ap.parse_args(argv)
    if args.tasks:
        return _tasks(args)
    from birank import RankSVM
    from birank._parallel import BlockedProducts
    from birank.datasets import make_sparse_bipartite

    n = int(args.rows)
    X, y, _ = make_sparse_bipartite(n, n_features=10_000, nnz_per_row=20, random_state=0)
    X = X.tocsr()
    rng = np.random.default_rng(1)
    v, u = rng.normal(size=X.shape[1]), rng.normal(size=n)
    p1, p2 = BlockedProducts(X, 1), BlockedProducts(X, 2)
    same = (np.array_equal(p1.matvec(v), p2.matvec(v))
            and np.array_equal(p1.rmatvec(u), p2.rmatvec(u)))
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; "
          f"{n:,d} rows, {p1.n_blocks} row blocks")
    from birank._parallel import Threads

    two = Threads(2)
    m = X.nnz

    def read_one():
        _read(X.data, X.indices, 0, m)

    def read_two():
        two.run(_read, [(X.data, X.indices, 0, m // 2), (X.data, X.indices, m // 2, m)])

    read_one()
    read_two()
    times = rounds(
        [read_one, read_two, lambda: (X @ v, X.T @ u), lambda: (p1.matvec(v), p1.rmatvec(u)),
         lambda: (p2.matvec(v), p2.rmatvec(u))], 3 * args.repeat)[0]
    two.close()
    r1, r2, t_scipy, t1, t2 = (float(np.median(t)) for t in times)
    print(f"reading X ({m * 12 / 1e6:.0f} MB): 1 thread {r1 * 1e3:.1f} ms, 2 threads "
          f"{r2 * 1e3:.1f} ms: {_speedup(times[0:2])} (the memory ceiling)", flush=True)
    print(f"products X v + X'u: scipy {t_scipy * 1e3:.1f} ms, n_jobs=1 {t1 * 1e3:.1f} ms, "
          f"n_jobs=2 {t2 * 1e3:.1f} ms: {_speedup(times[3:5], 1.6)}; same bits: {same}; "
          f"n_jobs=2 at {2 * r2 / t2:.2f} of two reads of X on two threads", flush=True)

    def fit(k):
        return RankSVM(C=1e-6, n_jobs=k).fit(X, y)

    fit(1)  # compile
    f1, f2, m1, m2, times = _one_against_two(fit, args.repeat)
    print(f"RankSVM(C=1e-6) fit: n_jobs=1 {f1:.2f} s, n_jobs=2 {f2:.2f} s: "
          f"{_speedup(times, 1.6)}; same coefficients: {np.array_equal(m1.coef_, m2.coef_)} (threshold and "
          f"probabilities: {m1.intercept_ == m2.intercept_ and np.array_equal(m1.probability_, m2.probability_)}); Newton iterations "
          f"{m1.n_iter_}", flush=True)
    # graded or real-valued labels, one group: the Hessian product's replay
    from birank.solvers.newton import PairObjective

    y_real = y + 0.5 * rng.random(n)
    w0 = rng.normal(size=X.shape[1]) / np.sqrt(20)
    objs = {k: PairObjective(X, y_real, C=1e-6, n_jobs=k) for k in (1, 2)}
    for o in objs.values():
        o.fun_grad(w0)
    s_real = objs[1].scores(w0)

    def loss(k):
        return objs[k].loss_at_scores(s_real), objs[k].grad_s.copy()

    l1, l2, lg1, lg2, times = _one_against_two(loss, args.repeat)
    print(f"RankSVM real-valued labels, sort + loss sweep: n_jobs=1 {l1 * 1e3:.1f} ms, "
          f"n_jobs=2 {l2 * 1e3:.1f} ms: {_speedup(times)}; same bits: "
          f"{lg1[0] == lg2[0] and np.array_equal(lg1[1], lg2[1])}", flush=True)
    u_real = objs[1].scores(rng.normal(size=X.shape[1]))
    h1, h2, hv1, hv2, times = _one_against_two(lambda k: objs[k].hess_scores(u_real).copy(),
                                            args.repeat)
    print(f"RankSVM real-valued labels, Hessian product's pair replay: n_jobs=1 "
          f"{h1 * 1e3:.1f} ms, n_jobs=2 {h2 * 1e3:.1f} ms: {_speedup(times)}; "
          f"same bits: {np.array_equal(hv1, hv2)}", flush=True)
    del objs

    def fit_real(k):
        return RankSVM(C=1e-6, n_jobs=k).fit(X, y_real)

    g1, g2, mr1, mr2, times = _one_against_two(fit_real, args.repeat)
    print(f"RankSVM(C=1e-6) fit, real-valued labels: n_jobs=1 {g1:.2f} s, n_jobs=2 "
          f"{g2:.2f} s: {_speedup(times)}; same coefficients: "
          f"{np.array_equal(mr1.coef_, mr2.coef_)}; Newton iterations {mr1.n_iter_}",
          flush=True)
    # query ids: groups of 100 rows with graded labels 0-4 (the sort, sweeps and
    # Hessian product over runs of whole groups, solvers/group_threads.py)
    groups = np.arange(n) // 100
    y_graded = np.clip(np.round(2.0 * y + 2.0 * rng.random(n)), 0, 4)

    def fit_groups(k):
        return RankSVM(C=1e-6, n_jobs=k).fit(X, y_graded, groups=groups)

    fit_groups(2)  # compile
    q1, q2, mq1, mq2, times = _one_against_two(fit_groups, args.repeat)
    print(f"RankSVM(C=1e-6) fit, {n // 100:,d} query ids of 100 rows, labels 0-4: n_jobs=1 "
          f"{q1:.2f} s, n_jobs=2 {q2:.2f} s: {_speedup(times)}; same coefficients: "
          f"{np.array_equal(mq1.coef_, mq2.coef_)}; Newton iterations {mq1.n_iter_}",
          flush=True)
    # the solver alone (the estimator's fit adds the input checks, single-threaded, and
    # the probability calibration)
    from birank.solvers.all_pairs import solve_all_pairs

    yf = y.astype(np.float64)
    s1, s2, r1, r2, times = _one_against_two(
        lambda k: solve_all_pairs(X, yf, C=1e-6, n_jobs=k), args.repeat)
    print(f"solve_all_pairs (RankSVM's solver): n_jobs=1 {s1:.2f} s, n_jobs=2 {s2:.2f} s: "
          f"{_speedup(times, 1.6)}; same coefficients: {np.array_equal(r1.coef, r2.coef)}", flush=True)
    from birank import WeightedSVM

    def wfit(k):
        return WeightedSVM(loss="squared_hinge", solver="newton", n_jobs=k).fit(X, y)

    wfit(1)  # compile
    w1, w2, v1, v2, times = _one_against_two(wfit, args.repeat)
    print(f"WeightedSVM(loss='squared_hinge') Newton fit: n_jobs=1 {w1:.2f} s, n_jobs=2 "
          f"{w2:.2f} s: {_speedup(times)}; same coefficients: "
          f"{np.array_equal(v1.coef_, v2.coef_)}; Newton iterations {v1.n_iter_}", flush=True)
    from birank.metrics import roc_auc

    m = int(args.auc_rows)
    ya = rng.random(m) < 0.3
    sa = np.round(rng.standard_normal(m), 4)  # ties
    roc_auc(ya[:300_000], sa[:300_000], n_jobs=2)  # compile
    a1, a2, auc1, auc2, times = _one_against_two(lambda k: roc_auc(ya, sa, n_jobs=k),
                                              args.repeat)
    print(f"roc_auc ({m:,d} rows): n_jobs=1 {a1 * 1e3:.0f} ms, n_jobs=2 {a2 * 1e3:.0f} ms: "
          f"{_speedup(times)}; same value: {auc1 == auc2}", flush=True)
    wa = rng.uniform(0.5, 2.0, m)
    roc_auc(ya[:300_000], sa[:300_000], sample_weight=wa[:300_000], n_jobs=2)  # compile
    b1, b2, wauc1, wauc2, times = _one_against_two(
        lambda k: roc_auc(ya, sa, sample_weight=wa, n_jobs=k), args.repeat)
    print(f"roc_auc weighted ({m:,d} rows): n_jobs=1 {b1 * 1e3:.0f} ms, n_jobs=2 "
          f"{b2 * 1e3:.0f} ms: {_speedup(times)}; same value: {wauc1 == wauc2}")


if __name__ == "__main__":
    main()
