"""PairDualCD, WeightedSVM and CombinedRanking on a9a against in-process references.

``pairs`` (default): PairDualCD on random a9a pairs versus LIBLINEAR
(LinearSVC) on the explicit pair vectors. Both solve the same problem, ``min 1/2|w|^2 + C sum_p loss(1 - w.(x_a - x_b))``
on ``--n-pairs`` uniformly drawn (positive, negative) pairs: LinearSVC gets the
materialized pair vectors (each as +z and -z with half the weight, as
LIBLINEAR needs two classes), PairDualCD gets the index pairs only. Prints
fit times, objectives and the time ratio, and a warm-start line (solve, add
10% more pairs, solve again) as ActiveRankSVM uses it.

``wsvm``: WeightedSVM versus LinearSVC(fit_intercept=False) with the same
per-point weights (sample_weight), same loss and tol: objectives and time ratio.

``crr``: CombinedRanking (lambda 1e-4, 10^6 steps, as the sofia-ml reference
run) versus scikit-learn's SGDClassifier with the same lambda and about the
same number of (point-wise) steps: test AUC on a9a.t and fit-time ratio.

Usage: python benchmarks/bench_dual_cd.py [pairs|wsvm|crr|all] --data PATH/a9a/a9a
"""

import argparse
import time
import warnings

import numpy as np

from _timing import best_time  # (benchmarks/_timing.py)
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC

from birank.solvers.dual_cd import PairDualCD



def objective(Z, w, C, loss, weights=None):
    xi = np.maximum(0.0, 1.0 - Z @ w)
    xi = xi**2 if loss == "squared_hinge" else xi
    return 0.5 * w @ w + C * (xi.sum() if weights is None else weights @ xi)


def load_a9a_file(path):
    X, y = load_svmlight_file(path, n_features=123)
    X = sp.csr_matrix((X.data, X.indices.astype(np.int32), X.indptr.astype(np.int32)),
                      shape=X.shape)
    X.sort_indices()
    return X, y


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", nargs="?", default="pairs", choices=["pairs", "wsvm", "crr", "all"])
    ap.add_argument("--data", required=True, metavar="PATH", help="the a9a LIBSVM file")
    ap.add_argument("--n-pairs", type=int, default=8000)
    ap.add_argument("--C", type=float, default=0.1)
    ap.add_argument("--tol", type=float, default=0.1)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    X, y = load_a9a_file(args.data)
    if args.what in ("wsvm", "all"):
        bench_wsvm(X, y, args)
    if args.what in ("crr", "all"):
        bench_crr(X, y, args)
    if args.what in ("pairs", "all"):
        bench_pairs(X, y, args)


def bench_wsvm(X, y, args):
    from birank import WeightedSVM

    print(f"WeightedSVM vs LinearSVC on a9a ({X.shape[0]} rows), C=1, tol={args.tol}")
    WeightedSVM(C=0.01).fit(X[:200], y[:200])  # JIT warm-up
    y_pm = np.where(y > 0, 1.0, -1.0)
    for loss in ("hinge", "squared_hinge"):
        for cw in (None, "balanced"):
            def ours():
                return WeightedSVM(C=1.0, class_weight=cw, loss=loss, tol=args.tol,
                                   random_state=args.seed).fit(X, y)
            t_ours, est = best_time(ours, args.repeat)
            C_point = est.class_C_[(y > 0).astype(int)]

            def ref():
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    return LinearSVC(C=1.0, loss=loss, fit_intercept=False, dual=True,
                                     tol=args.tol, random_state=args.seed).fit(
                                         X, y, sample_weight=C_point)
            t_ref, svc = best_time(ref, args.repeat)
            o_ref = objective(X.multiply(y_pm[:, None]).tocsr(), svc.coef_.ravel(), 1.0,
                              loss, C_point)
            print(f"  {loss:14s} class_weight={str(cw):9s} WeightedSVM {t_ours:6.3f} s "
                  f"({est.n_iter_} iter, obj {est.objective_:.4f}) | LinearSVC {t_ref:6.3f} s"
                  f" (obj {o_ref:.4f}) | obj rel diff {(est.objective_ - o_ref) / o_ref:+.2e}"
                  f" | time ratio {t_ours / t_ref:.2f}")


def bench_crr(X, y, args):
    from sklearn.linear_model import SGDClassifier

    from birank import CombinedRanking
    from birank.metrics import roc_auc

    Xt, yt = load_a9a_file(args.data + ".t")
    print("CombinedRanking (alpha=1e-4, 10^6 steps) on a9a, test AUC on a9a.t; "
          "sofia-ml combined-ranking reference: AUC 0.898626 in 0.20 s (its own machine)")
    CombinedRanking(max_iter=1000, random_state=0).fit(X[:500], y[:500])  # JIT warm-up
    CombinedRanking(max_iter=1000, random_state=0).fit(X[:500].toarray(), y[:500])
    epochs = int(np.ceil(1e6 / X.shape[0]))
    for seed in range(args.repeat):
        t0 = time.perf_counter()
        est = CombinedRanking(alpha=1e-4, max_iter=10**6, random_state=seed).fit(X, y)
        t_ours = time.perf_counter() - t0
        t0 = time.perf_counter()
        sgd = SGDClassifier(alpha=1e-4, max_iter=epochs, tol=None, random_state=seed).fit(X, y)
        t_ref = time.perf_counter() - t0
        print(f"  seed {seed}: CombinedRanking AUC {est.score(Xt, yt):.5f} fit {t_ours:.3f} s"
              f" | SGDClassifier ({epochs} epochs) AUC "
              f"{roc_auc(yt, sgd.decision_function(Xt)):.5f} fit {t_ref:.3f} s"
              f" | time ratio {t_ours / t_ref:.2f}")


def bench_pairs(X, y, args):
    rng = np.random.default_rng(args.seed)
    pos, neg = np.flatnonzero(y > 0), np.flatnonzero(y <= 0)
    a = pos[rng.integers(0, pos.size, args.n_pairs)]
    b = neg[rng.integers(0, neg.size, args.n_pairs)]
    print(f"a9a: {X.shape[0]} rows, {X.shape[1]} features; {args.n_pairs} random pairs, "
          f"C={args.C}, tol={args.tol}")

    # JIT warm-up outside the timings
    warm = PairDualCD(X, random_state=0)
    warm.add_rows(a[:10], b[:10], args.C)
    warm.solve()

    for loss in ("hinge", "squared_hinge"):
        def ours():
            s = PairDualCD(X, loss=loss, tol=args.tol, random_state=args.seed)
            s.add_rows(a, b, args.C)
            s.solve()
            return s

        def ref():
            Z = X[a] - X[b]  # materializing is part of the reference's cost
            Z2 = sp.vstack([Z, -Z]).tocsr()
            y2 = np.r_[np.ones(Z.shape[0]), -np.ones(Z.shape[0])]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                # sample_weight C/2 on +z and -z = weight C on z
                svc = LinearSVC(C=args.C / 2, loss=loss, fit_intercept=False, tol=args.tol,
                                dual=True, max_iter=1000, random_state=args.seed).fit(Z2, y2)
            return svc, Z

        t_ours, s = best_time(ours, args.repeat)
        t_ref, (svc, Z) = best_time(ref, args.repeat)
        o_ours = objective(Z, s.coef_, args.C, loss)
        o_ref = objective(Z, svc.coef_.ravel(), args.C, loss)
        print(f"{loss:14s} PairDualCD {t_ours*1e3:8.2f} ms ({s.n_iter_} iter, obj {o_ours:.6f})"
              f" | LinearSVC on explicit pairs {t_ref*1e3:8.2f} ms (obj {o_ref:.6f})"
              f" | time ratio ours/LinearSVC = {t_ours / t_ref:.3f}")

        # warm start: 90% of the pairs, then the last 10% added
        cut = int(0.9 * args.n_pairs)

        def incremental():
            s = PairDualCD(X, loss=loss, tol=args.tol, random_state=args.seed)
            s.add_rows(a[:cut], b[:cut], args.C)
            s.solve()
            t0 = time.perf_counter()
            s.add_rows(a[cut:], b[cut:], args.C)
            s.solve()
            return time.perf_counter() - t0, s

        t_inc, (t_last, s2) = best_time(incremental, args.repeat)
        print(f"{'':14s} warm start after adding 10%: {t_last*1e3:.2f} ms, {s2.n_iter_} iter"
              f" (obj {objective(Z, s2.coef_, args.C, loss):.6f}); cold solve of all "
              f"{t_ours*1e3:.2f} ms, {s.n_iter_} iter")


if __name__ == "__main__":
    main()
