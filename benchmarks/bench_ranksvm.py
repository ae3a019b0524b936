"""Exact all-pairs RankSVM: speed on a9a and on large planted sparse data.

Prints, for each data set, RankSVM's fit time, Newton iterations, CG steps,
time per Newton iteration, and scikit-learn's LinearSVC (point-wise, C=1) on
the same data as the reference run in the same process; for the synthetic
sizes also the growth ratio between consecutive sizes next to the N log N
ratio.

    .venv/bin/python benchmarks/bench_ranksvm.py                 # a9a + 1e5,1e6,1e7
    .venv/bin/python benchmarks/bench_ranksvm.py --sizes 1e5,1e6 # quicker

On a9a, C=1 and the objective is compared with liblinear-ranksvm ``train -s 8
-c 1`` (54954596.45, ../shared/reference/README.md). On the synthetic data
(``birank.datasets.make_sparse_bipartite``) C is ``N / n_pairs`` (``1 / N``
for the real-valued labels of ``--real``) so the total pair-loss weight stays
comparable to a point-wise SVM's C=1 on N rows (a fixed C would make the problem
ever harder as the pairs grow ~ N^2). ``--reference-w FILE`` (liblinear-ranksvm's
weights on a9a at C=1, one per line) also prints our objective at that w.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
LIBLINEAR_RANKSVM_OBJ = 54954596.45  # ../shared/reference/README.md
LIBLINEAR_RANKSVM_AUC = 0.9021


def _int32_csr(X):
    import scipy.sparse as sp

    X = X.tocsr()
    return sp.csr_matrix((X.data, X.indices.astype(np.int32), X.indptr.astype(np.int32)),
                         shape=X.shape)


def _timed_fit(make, X, y):
    model = make()
    t0 = time.perf_counter()
    model.fit(X, y)
    return model, time.perf_counter() - t0


def _linearsvc(X, y):
    from sklearn.svm import LinearSVC

    return _timed_fit(lambda: LinearSVC(C=1.0), X, y)


def _ranksvm_stats(model, seconds):
    return (f"fit {seconds:7.3f} s  Newton its {model.n_iter_:3d}  "
            f"{seconds / max(model.n_iter_, 1):7.4f} s/it  objective {model.objective_:.10g}")


def bench_a9a(data_home, repeat, ref_w=None):
    from sklearn.datasets import load_svmlight_file

    from birank import RankSVM
    from birank.metrics import roc_auc

    from _data import data_file

    X, y = load_svmlight_file(str(data_file(data_home, "a9a/a9a")), n_features=123)
    Xt, yt = load_svmlight_file(str(data_file(data_home, "a9a/a9a.t")), n_features=123)
    X, Xt = _int32_csr(X), _int32_csr(Xt)
    print(f"== a9a: {X.shape[0]} x {X.shape[1]}, nnz {X.nnz}")
    best_r = best_l = math.inf
    for _ in range(repeat):
        model, t_r = _timed_fit(lambda: RankSVM(C=1.0), X, y)
        best_r = min(best_r, t_r)
        svc, t_l = _linearsvc(X, y)
        best_l = min(best_l, t_l)
    auc = roc_auc(yt == 1, model.decision_function(Xt))
    print(f"RankSVM(C=1)  {_ranksvm_stats(model, best_r)}  pairs {model.n_pairs_}")
    print(f"  objective / liblinear-ranksvm's {LIBLINEAR_RANKSVM_OBJ}: "
          f"{model.objective_ / LIBLINEAR_RANKSVM_OBJ:.6f} (must be <= 1.0001)")
    print(f"  test AUC {auc:.5f} (liblinear-ranksvm {LIBLINEAR_RANKSVM_AUC})")
    if ref_w is None:
        print("  (no --reference-w: liblinear-ranksvm's w not evaluated)")
    else:
        from birank.solvers.newton import PairObjective

        w_ref = np.loadtxt(ref_w)
        f_ref = PairObjective(X, (y > 0).astype(float), C=1.0).fun_grad(w_ref)[0]
        print(f"  our objective code at liblinear-ranksvm's w: {f_ref:.10g}")
    print(f"LinearSVC(C=1) fit {best_l:7.3f} s  test AUC "
          f"{roc_auc(yt == 1, svc.decision_function(Xt)):.5f}")
    print(f"RankSVM / LinearSVC fit time: {best_r / best_l:.2f} (goal <= 1.5; best of {repeat})")
    # hinge loss (Huber smoothing + Newton, certified gap tol=1e-4), at C=1 and at
    # the C that SVMperf's `-c 1` / `-c 100` (ROC area, loss in percent of swapped
    # pairs) roughly correspond to: C = 100 c / n_pairs
    for c_perf, ref in [(None, "no reference run"), (1.0, "SVMperf -c 1: 0.41 s, AUC 0.901863"),
                        (100.0, "SVMperf -c 100: 3.79 s, AUC 0.902208")]:
        C = 1.0 if c_perf is None else 100.0 * c_perf / model.n_pairs_
        hinge, t_h = _timed_fit(lambda: RankSVM(C=C, loss="hinge"), X, y)
        print(f"RankSVM(hinge, C={C:.3g}) fit {t_h:7.3f} s  Newton its {hinge.n_iter_}  "
              f"objective {hinge.objective_:.10g}  test AUC "
              f"{roc_auc(yt == 1, hinge.decision_function(Xt)):.5f}  ({ref})")


def bench_synthetic(sizes, n_features, nnz, linearsvc_max, real_labels=False):
    from birank import RankSVM
    from birank.datasets import make_sparse_bipartite

    rows = []
    for n in sizes:
        t0 = time.perf_counter()
        X, y, w_true = make_sparse_bipartite(n, n_features=n_features, nnz_per_row=nnz,
                                             random_state=0)
        t_gen = time.perf_counter() - t0
        n_pos = int(y.sum())
        n_pairs = n_pos * (n - n_pos)
        C = n / n_pairs
        print(f"== make_sparse_bipartite N={n:.0e}: {n} x {n_features}, nnz {X.nnz}, "
              f"pairs {n_pairs:.3e}, C={C:.3e} (generated in {t_gen:.1f} s)", flush=True)
        model, t_r = _timed_fit(lambda: RankSVM(C=C), X, y)
        print(f"RankSVM   {_ranksvm_stats(model, t_r)}", flush=True)
        t_l = math.nan
        if n <= linearsvc_max:
            _, t_l = _linearsvc(X, y)
            print(f"LinearSVC fit {t_l:7.3f} s   RankSVM / LinearSVC {t_r / t_l:.2f}", flush=True)
        if real_labels:
            y_real = X @ w_true + np.random.default_rng(0).normal(size=n)
            m_real, t_real = _timed_fit(lambda: RankSVM(C=1.0 / n), X, y_real)
            print(f"RankSVM real-valued y (Fenwick sweep), C=1/N: "
                  f"{_ranksvm_stats(m_real, t_real)}", flush=True)
        rows.append((n, t_r, t_r / max(model.n_iter_, 1), t_l))
        del X, y, model, w_true
    if len(rows) > 1:
        print("== growth between sizes (N log N ratio for reference)")
        for (n1, r1, i1, l1), (n2, r2, i2, l2) in zip(rows, rows[1:]):
            nlogn = (n2 * math.log(n2)) / (n1 * math.log(n1))
            print(f"N {n1:.0e} -> {n2:.0e}: RankSVM fit x{r2 / r1:.2f}, per Newton it "
                  f"x{i2 / i1:.2f}, LinearSVC x{l2 / l1:.2f}, N log N x{nlogn:.2f}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data-home", type=Path, default=REPO.parent / "shared" / "data")
    p.add_argument("--sizes", default="1e5,1e6,1e7",
                   help="comma-separated synthetic sizes (empty: skip)")
    p.add_argument("--n-features", type=int, default=10_000)
    p.add_argument("--nnz-per-row", type=int, default=20)
    p.add_argument("--repeat", type=int, default=3, help="a9a fits (best time is kept)")
    p.add_argument("--skip-a9a", action="store_true")
    p.add_argument("--real", action="store_true",
                   help="also fit real-valued labels y = x.w_true + noise on the synthetic data")
    p.add_argument("--linearsvc-max", type=float, default=1e7,
                   help="largest N on which LinearSVC is also timed")
    p.add_argument("--reference-w", type=Path, default=None, metavar="FILE",
                   help="liblinear-ranksvm's a9a weights at C=1 (e.g. "
                        "../shared/reference/a9a-ranksvm-C1-w.txt): our objective at them")
    args = p.parse_args(argv)

    # compile the kernels outside the timings
    from birank import RankSVM

    rng = np.random.default_rng(0)
    Xw = rng.normal(size=(50, 3))
    RankSVM().fit(Xw, rng.integers(0, 2, 50))
    RankSVM().fit(Xw, rng.normal(size=50))
    import scipy.sparse as sp
    RankSVM().fit(sp.csr_matrix(Xw), rng.integers(0, 2, 50))

    if not args.skip_a9a:
        bench_a9a(args.data_home, args.repeat, args.reference_w)
    sizes = [int(float(s)) for s in args.sizes.split(",") if s.strip()]
    if sizes:
        bench_synthetic(sizes, args.n_features, args.nnz_per_row, args.linearsvc_max,
                        args.real)


if __name__ == "__main__":
    main()
