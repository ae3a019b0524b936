"""PrunedRankSVM fit time: closest S, closest S + random S and total pairs, linear and RBF.

Data: ``x`` uniform in [-1, 1]^10, ``y = w.x + 0.5 * noise`` (lin-jan-lin's
artificial data, section III-B). For every N the three fits run in this
process, one after the other (median of ``--repeats``), and the ratios
``total / closest`` and ``total / pruned`` are printed beside the pair
counts. Total pairs: the exact O(N log N)-per-pass RankSVM (linear) and the
primal kernel Newton over all N(N-1)/2 pairs with K in memory (RBF).
The goal: RBF total pairs at N = 3,000 (space_ga's size) in under
30 s here.

A second table (``--vs-liblinear``, on by default) puts the linear chosen-pairs
solve against LIBLINEAR (scikit-learn's ``LinearSVC``, dual CD) on the same
problem: the closest S + random S pairs materialized as rows ``x_a - x_b``
(half of them negated with label -1, which leaves the problem unchanged; no
intercept), squared hinge, the same C; both objectives are printed.

Usage::

    python benchmarks/bench_pruned.py              # linear 1e3 1e4 1e5, RBF 1e3 3e3 5e3
    python benchmarks/bench_pruned.py --quick      # linear 1e3 1e4, RBF 1e3, vs LinearSVC 1e4
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

from _timing import median_time  # (benchmarks/_timing.py)
from sklearn.exceptions import ConvergenceWarning

from birank import PrunedRankSVM


W_TRUE = np.random.default_rng(0).uniform(-1, 1, 10)


def _data(n, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, W_TRUE.size))
    return X, X @ W_TRUE + 0.5 * rng.normal(size=n)


def _time(est, X, y, repeats):
    """Median fit time of ``est`` (convergence warnings silenced), and ``est``."""
    def fit():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            est.fit(X, y)

    return median_time(fit, repeats)[0], est


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--linear", nargs="*", type=float, default=[1e3, 1e4, 1e5])
    parser.add_argument("--rbf", nargs="*", type=float, default=[1e3, 3e3, 5e3])
    parser.add_argument("--C", type=float, default=1.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--loss", choices=["squared_hinge", "hinge"], default="squared_hinge",
                        help="loss of every fit (default: squared hinge, the L2 loss of "
                             "Kuo, Lee & Lin's kernel Newton; hinge smooths in stages and "
                             "is much slower for RBF total pairs)")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--vs-liblinear", nargs="*", type=float, default=[1e4, 1e5],
                        help="N of the PrunedRankSVM vs LinearSVC table (none: skip it)")
    args = parser.parse_args(argv)
    if args.quick:
        args.linear, args.rbf, args.repeats = [1e3, 1e4], [1e3], 1
        args.vs_liblinear = [n for n in args.vs_liblinear if n <= 1e4]
    warm_X, warm_y = _data(50)
    for kernel in ("linear", "rbf"):  # compile the kernels outside the timings
        for nc in (None, "all"):
            _time(PrunedRankSVM(n_closest=nc, kernel=kernel, loss=args.loss, random_state=0),
                  warm_X, warm_y, 1)
    print(f"loss={args.loss} C={args.C}")
    print(f"{'kernel':6} {'N':>7} | {'closest s':>9} {'pruned s':>9} {'total s':>9} | "
          f"{'pairs S':>7} {'S+S':>7} {'total':>12} | {'tot/clo':>7} {'tot/pru':>7} | "
          f"test acc closest / pruned / total")
    for kernel, sizes in (("linear", args.linear), ("rbf", args.rbf)):
        for n in sizes:
            n = int(n)
            X, y = _data(n, seed=1)
            Xt, yt = _data(2000, seed=2)
            common = dict(kernel=kernel, C=args.C, loss=args.loss, random_state=0)
            repeats = args.repeats if n <= 10**4 else 1
            t_c, m_c = _time(PrunedRankSVM(n_random=0, **common), X, y, repeats)
            t_p, m_p = _time(PrunedRankSVM(**common), X, y, repeats)
            t_t, m_t = _time(PrunedRankSVM(n_closest="all", **common), X, y,
                             repeats if kernel == "linear" else 1)
            accs = " / ".join(f"{m.score(Xt, yt):.4f}" for m in (m_c, m_p, m_t))
            print(f"{kernel:6} {n:>7} | {t_c:9.3f} {t_p:9.3f} {t_t:9.3f} | "
                  f"{m_c.n_pairs_:>7} {m_p.n_pairs_:>7} {m_t.n_pairs_:>12} | "
                  f"{t_t / t_c:7.2f} {t_t / t_p:7.2f} | {accs}", flush=True)
    if args.vs_liblinear:
        _vs_liblinear([int(n) for n in args.vs_liblinear], args.C)


def _pair_objective(w, Z, C):
    xi = np.maximum(0.0, 1.0 - Z @ w)
    return 0.5 * w @ w + C * xi @ xi


def _vs_liblinear(sizes, C):
    """Linear closest S + random S: PrunedRankSVM (solver='auto') against LinearSVC."""
    from sklearn.svm import LinearSVC

    print(f"\nlinear closest S + random S, squared hinge, C={C}: PrunedRankSVM (auto) vs "
          "LinearSVC on the materialized pairs")
    print(f"{'N':>7} {'pairs':>7} | {'birank s':>8} {'solver':>7} {'LinearSVC s':>11} "
          f"{'ratio':>6} | objective birank / LinearSVC")
    for n in sizes:
        X, y = _data(n, seed=1)
        t_b, model = _time(PrunedRankSVM(C=C, loss="squared_hinge", random_state=0), X, y, 1)
        a, b = model.pairs_
        sign = np.where(np.arange(a.size) % 2 == 0, 1.0, -1.0)
        Z = X[a] - X[b]
        svc = LinearSVC(C=C, loss="squared_hinge", dual=True, fit_intercept=False,
                        tol=1e-4, max_iter=100000)
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            svc.fit(Z * sign[:, None], sign)
        t_s = time.perf_counter() - t0
        print(f"{n:>7} {a.size:>7} | {t_b:8.3f} {model.final_solver_:>7} {t_s:11.3f} "
              f"{t_b / t_s:6.3f} | {_pair_objective(model.coef_, Z, C):.6f} / "
              f"{_pair_objective(svc.coef_.ravel(), Z, C):.6f}", flush=True)


if __name__ == "__main__":
    main()
