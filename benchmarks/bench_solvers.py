"""Each solver against the tool a user would pick instead, in one run.

Prints four comparisons, each as a time ratio beside its reference and the
objective gap:

1. ``WeightedSVM`` vs LIBLINEAR (scikit-learn's ``LinearSVC``, dual CD, same
   class weights as ``sample_weight``, same loss and tol), in-process, on a9a,
   w8a and a ``make_sparse_bipartite`` set (10^6 rows; ``--quick``: 10^5).
2. ``RankSVM`` on real-valued labels vs binary labels on the same rows: time
   per Newton iteration (goal <= 2x), and the a9a binary fit against
   liblinear-ranksvm ``-s 8`` (0.17-0.20 s, reference README; objective
   54954596.45). liblinear-ranksvm is not installed here, so its time is the
   published figure scaled by the machine factor below.
3. ``RankSVM(loss='hinge')`` vs SVMperf on a9a at C_perf = 1, 10, 100, 1000
   (``C = 100 C_perf / n_pairs``), certified duality gap, test AUC beside
   SVMperf's; SVMperf's times are the reference README's, scaled.
4. ``BBR(radius=1, solver='cg')`` on a9a (the ball is active) vs the
   eigendecomposition solution (max |w difference|), with the in-process
   secular-CG method (two CG solves per Newton step, the old path) and the
   Lanczos method on the implicit operator beside it.

Machine factor: the reference README's times come from another 2-core machine.
Every run here also times ``LinearSVC(C=1)`` on a9a (0.19 s there) and scales
the published times by ``t_here / 0.19`` before taking a ratio.

    python benchmarks/bench_solvers.py --data-home PATH          # full
    python benchmarks/bench_solvers.py --data-home PATH --quick  # 10^5 rows
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np

from _timing import median_time  # (benchmarks/_timing.py)
import scipy.sparse as sp

REPO = Path(__file__).resolve().parents[1]
LINEARSVC_A9A_REF = 0.19  # s, LinearSVC(C=1) on a9a, reference README
LIBLINEAR_RANKSVM = (0.17, 0.20, 54954596.45)  # s, s, objective (-s 8 -c 1 on a9a)
SVMPERF = {1: (0.55, 0.901863), 10: (1.53, 0.902364), 100: (5.06, 0.902208),
           1000: (12.85, 0.901746)}  # C_perf: (train s, test AUC), reference README
A9A_PAIRS = 193_829_520


def _csr32(X):
    X = sp.csr_matrix(X, dtype=np.float64)
    X.sort_indices()
    return sp.csr_matrix((X.data, X.indices.astype(np.int32), X.indptr.astype(np.int32)),
                         shape=X.shape)


def _load(data_home, name, test=False, n_features=None):
    from sklearn.datasets import load_svmlight_file

    from _data import data_file

    path = data_file(data_home, f"{name}/{name}" + (".t" if test else ""))
    X, y = load_svmlight_file(str(path), n_features=n_features)
    return _csr32(X), y


def machine_factor(X, y, repeat):
    from sklearn.svm import LinearSVC

    t, _ = median_time(lambda: LinearSVC(C=1.0).fit(X, y), repeat)
    print(f"machine factor: LinearSVC(C=1) on a9a {t:.3f} s here / {LINEARSVC_A9A_REF} s "
          f"in the reference README = {t / LINEARSVC_A9A_REF:.2f}")
    return t / LINEARSVC_A9A_REF


# ----------------------------------------------------------------- 1. WeightedSVM
def _wsvm_objective(X, y01, w, C_point, loss):
    m = np.where(y01 == 1, 1.0, -1.0) * (X @ w)
    xi = np.maximum(0.0, 1.0 - m)
    return 0.5 * float(w @ w) + float(C_point @ (xi * xi if loss == "squared_hinge" else xi))


def bench_wsvm(sets, repeat, tol, losses=("hinge", "squared_hinge")):
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import LinearSVC

    from birank import WeightedSVM

    print("\n== 1. WeightedSVM vs LinearSVC (LIBLINEAR dual CD), C=1, class_weight='balanced', "
          f"tol={tol}; random_state = 0..{repeat - 1} for both (the number of passes to tol "
          "depends on the coordinate order), medians over the seeds")
    WeightedSVM(C=0.1).fit(sets[0][1][:200], sets[0][2][:200])  # loads the compiled kernels
    for name, X, y in sets:
        y01 = (y > 0).astype(int)
        for loss in losses:
            rows = []
            for seed in range(repeat):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    t0 = time.perf_counter()
                    est = WeightedSVM(C=1.0, class_weight="balanced", loss=loss, tol=tol,
                                      random_state=seed).fit(X, y)
                    t_ours = time.perf_counter() - t0
                    C_point = est.class_C_[y01]
                    t0 = time.perf_counter()
                    svc = LinearSVC(C=1.0, loss=loss, fit_intercept=False, dual=True, tol=tol,
                                    random_state=seed).fit(X, y, sample_weight=C_point)
                    t_ref = time.perf_counter() - t0
                o_ours = _wsvm_objective(X, y01, est.coef_, C_point, loss)
                o_ref = _wsvm_objective(X, y01, svc.coef_.ravel(), C_point, loss)
                rows.append((t_ours, est.n_iter_, t_ref, int(np.max(svc.n_iter_)),
                             (o_ours - o_ref) / o_ref))
            t_ours, it_ours, t_ref, it_ref, gap = np.median(np.array(rows), axis=0)
            print(f"  {name:10s} {loss:13s} WeightedSVM {t_ours:7.3f} s ({it_ours:.0f} passes) | "
                  f"LinearSVC {t_ref:7.3f} s ({it_ref:.0f} passes) | "
                  f"time ratio {t_ours / t_ref:5.2f} (goal <= 1.0; per pass "
                  f"{(t_ours / it_ours) / (t_ref / it_ref):4.2f}) | objective "
                  f"(ours - ref) / ref {gap:+.2e}", flush=True)


# --------------------------------------------------------- 2. real-valued RankSVM
def bench_real(n, a9a, housing, factor, repeat):
    from birank import RankSVM
    from birank.datasets import make_sparse_bipartite

    print(f"\n== 2. RankSVM, real-valued vs binary labels (make_sparse_bipartite N={n:.0e}, "
          "10^4 features, 20 nnz/row)")
    X, y, w_true = make_sparse_bipartite(n, n_features=10_000, nnz_per_row=20, random_state=0)
    X = _csr32(X)
    y_real = X @ w_true + np.random.default_rng(0).normal(size=n)
    n_pos = int(y.sum())
    RankSVM().fit(X[:2000], y[:2000])  # load both compiled paths before timing
    RankSVM().fit(X[:2000], y_real[:2000])
    rows, models = {}, {}
    cases = [("binary", y, n / (n_pos * (n - n_pos))), ("real", y_real, 1.0 / n)]
    times = {name: [] for name, _, _ in cases}
    for _ in range(repeat):  # the two fits alternate, so that drift hits both alike
        for name, yy, C in cases:
            t0 = time.perf_counter()
            models[name] = RankSVM(C=C).fit(X, yy)
            times[name].append(time.perf_counter() - t0)
    for name, _, _ in cases:
        m, t = models[name], float(np.median(times[name]))
        rows[name] = t / m.n_iter_
        print(f"  {name:6s} labels: fit {t:7.2f} s (median of {repeat}), {m.n_iter_} Newton its, "
              f"{t / m.n_iter_:.3f} s/it, objective {m.objective_:.10g}")
    print(f"  real / binary time per Newton iteration: {rows['real'] / rows['binary']:.2f} "
          "(goal <= 2)")
    Xa, ya = a9a
    t, m = median_time(lambda: RankSVM(C=1.0).fit(Xa, ya), repeat)
    lo, hi, obj = LIBLINEAR_RANKSVM
    print(f"  a9a binary C=1: {t:.3f} s, objective {m.objective_:.10g} = "
          f"{m.objective_ / obj:.6f} x liblinear-ranksvm's; liblinear-ranksvm -s 8 published "
          f"{lo}-{hi} s x factor = {lo * factor:.3f}-{hi * factor:.3f} s here -> ratio "
          f"{t / (hi * factor):.2f}-{t / (lo * factor):.2f}")
    Xh, yh = housing
    t, m = median_time(lambda: RankSVM(C=1.0).fit(Xh, yh), max(repeat, 5))
    print(f"  housing (real labels, {Xh.shape[0]} rows): {t * 1e3:.1f} ms, {m.n_iter_} Newton "
          f"its, {m.n_pairs_} pairs, objective {m.objective_:.10g} (no liblinear-ranksvm run "
          "to compare: not installed, no published housing time)")


# ------------------------------------------------------------------ 3. hinge
def bench_hinge(a9a, a9a_test, factor):
    from birank import RankSVM
    from birank.metrics import roc_auc

    print("\n== 3. RankSVM(loss='hinge') vs SVMperf on a9a, C = 100 C_perf / n_pairs, "
          "certified relative duality gap <= tol = 1e-4")
    X, y = a9a
    Xt, yt = a9a_test
    RankSVM(loss="hinge").fit(X[:300], y[:300])  # JIT warm-up
    for c_perf, (t_ref, auc_ref) in SVMPERF.items():
        C = 100.0 * c_perf / A9A_PAIRS
        t, m = median_time(lambda: RankSVM(C=C, loss="hinge").fit(X, y), 1)
        gap = (m.objective_ - m.lower_bound_) / m.objective_
        auc = roc_auc(yt > 0, m.decision_function(Xt))
        print(f"  C_perf={c_perf:5g}: {t:6.3f} s ({m.n_iter_} Newton its), gap {gap:.2e}, "
              f"AUC {auc:.6f} | SVMperf {t_ref} s x factor = {t_ref * factor:6.3f} s, AUC "
              f"{auc_ref} | ratio {t / (t_ref * factor):.3f} (goal <= 0.5)")


# --------------------------------------------------------------------- 4. BBR
def bench_bbr(a9a, repeat):
    from birank import BBR
    from birank.solvers.ball_quadratic import solve_ball_quadratic_cg

    print("\n== 4. BBR(radius=1) on a9a, ball active: solver='cg' vs the eigh solution")
    X, y = a9a
    BBR(radius=1.0, solver="cg").fit(X[:200], y[:200])
    BBR(radius=1.0, solver="eigh").fit(X[:200], y[:200])
    t_e, ref = median_time(lambda: BBR(radius=1.0, solver="eigh").fit(X, y), repeat)
    t_c, m = median_time(lambda: BBR(radius=1.0, solver="cg").fit(X, y), repeat)
    diff = float(np.max(np.abs(m.coef_ - ref.coef_)))
    print(f"  solver='cg'  : {t_c:.3f} s (goal < 0.1 s), max |w - w_eigh| {diff:.1e} "
          f"(goal <= 1e-8), Sigma formed: {m.pair_second_moment_.dense_ is not None}; "
          f"solver='eigh' {t_e:.3f} s")
    op = m.pair_second_moment_
    op.dense_ = None  # the implicit operator: the two iterative methods side by side
    for name, lanczos in (("Lanczos, implicit Sigma", True),
                          ("secular CG, implicit Sigma (before)", False)):
        t, res = median_time(lambda lz=lanczos: solve_ball_quadratic_cg(
            op.matvec, op.mu, 1.0, tol=1e-10, max_iter=1000, lanczos=lz), 1)
        d = float(np.max(np.abs(res.w - ref.coef_)))
        print(f"  {name:37s}: {t:.3f} s, {res.cg_iter} products, max |w - w_eigh| {d:.1e}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data-home", type=Path, default=REPO.parent / "shared" / "data")
    p.add_argument("--quick", action="store_true", help="10^5 synthetic rows instead of 10^6")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--big-repeat", type=int, default=1,
                   help="seeds for the 10^6-row WeightedSVM / LinearSVC comparison (0: skip it)")
    p.add_argument("--tol", type=float, default=0.1, help="WeightedSVM / LinearSVC tol")
    p.add_argument("--loss", nargs="+", default=["hinge", "squared_hinge"],
                   choices=["hinge", "squared_hinge"], help="comparison 1: the losses")
    p.add_argument("--synth-only", action="store_true",
                   help="comparison 1: only the make_sparse_bipartite set")
    p.add_argument("--only", default="1234", help="which comparisons to run, e.g. 34")
    args = p.parse_args(argv)
    n = 10**5 if args.quick else 10**6

    a9a = _load(args.data_home, "a9a", n_features=123)
    a9a_test = _load(args.data_home, "a9a", test=True, n_features=123)
    factor = machine_factor(*a9a, args.repeat)
    if "1" in args.only:
        from birank.datasets import make_sparse_bipartite

        Xs, ys, _ = make_sparse_bipartite(n, n_features=10_000, nnz_per_row=20, random_state=1)
        sets = [("a9a", *a9a), ("w8a", *_load(args.data_home, "w8a", n_features=300))]
        if not args.synth_only:
            bench_wsvm(sets, args.repeat, args.tol, args.loss)
        # the 10^6-row fits run 1000 passes (minutes each): --big-repeat seeds (0: skip)
        if args.big_repeat > 0:
            bench_wsvm([(f"synth {n:.0e}", _csr32(Xs), ys)], args.big_repeat, args.tol,
                       args.loss)
    if "2" in args.only:
        from birank.datasets import load_housing

        Xh, yh = load_housing()
        bench_real(n, a9a, (Xh, yh), factor, args.repeat)
    if "3" in args.only:
        bench_hinge(a9a, a9a_test, factor)
    if "4" in args.only:
        bench_bbr(a9a, args.repeat)
    print("\nat the end:")
    machine_factor(*a9a, args.repeat)


if __name__ == "__main__":
    main()
