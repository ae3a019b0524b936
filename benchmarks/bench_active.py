"""ActiveRankSVM fit time against the number of rows, beside exact RankSVM and LinearSVC.

The claim (shen-lin section 4.3): with soft sampling the cost of active
sampling depends on the budget B and the batch size b, not on the data size.
Here soft sampling scores only the rows of the drawn candidates, so a fit does
O(B) solver work plus O(nnz) validation and one O(nnz) pass (scores, then a
bucketed O(N) search) for the prediction threshold; exact RankSVM and
LinearSVC do O(nnz) work per iteration.

Usage::

    python benchmarks/bench_active.py                       # 1e5, 1e6, 1e7 rows
    python benchmarks/bench_active.py --sizes 1e4 1e5       # small run
    python benchmarks/bench_active.py --a9a PATH/a9a        # + a9a

    python benchmarks/bench_active.py --rounds --data-home PATH  # AUC check

Prints fit seconds (median over ``--seeds`` pools), test AUC (mean +- std) and
the ratios ``RankSVM / ActiveRankSVM`` and
``LinearSVC / ActiveRankSVM`` measured in this process, for the defaults
(one solver pass in each intermediate round) and for the paper's setting
(``round_tol=None, round_max_iter=None``: every round solved to ``tol``).
The a9a comparison runs when ``--a9a`` names a folder; without the a9a files in
it, the copy bundled with birank is used.

``--rounds`` instead compares the test AUC of the two settings on the
shen-lin data sets (``--seeds`` pools, first two CV folds where there is no test set),
the evidence behind the default. ``--small`` does the same on the bundled
german.numer (5 half splits x 2 pools), where the pool is degenerate (8000
pairs over 24 features) and the last round is finished by Newton, and prints
the pool objective with and without that finish.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from birank import ActiveRankSVM
from birank.datasets import load_svmlight, make_sparse_bipartite
from birank.metrics import roc_auc


#: every round solved to tol, as in the paper
PAPER_ROUNDS = {"round_tol": None, "round_max_iter": None}


def _ranksvm_class():
    try:
        from birank.batch.ranksvm import RankSVM
    except ImportError:
        return None
    return RankSVM


def _timed(fit):
    t0 = time.perf_counter()
    model = fit()
    return model, time.perf_counter() - t0


def _linearsvc(X, y, C):
    from sklearn.svm import LinearSVC

    return LinearSVC(C=C, fit_intercept=False).fit(X, y)


def bench_sizes(sizes, n_features, nnz, n_test, budget, C, skip_exact_above, seeds):
    RankSVM = _ranksvm_class()
    rows = []
    for n in sizes:
        X, y, _ = make_sparse_bipartite(n + n_test, n_features=n_features, nnz_per_row=nnz,
                                        random_state=0)
        Xtr, ytr, Xte, yte = X[:n], y[:n], X[n:], y[n:]
        n_pos = int(ytr.sum())
        n_pairs = n_pos * (n - n_pos)
        # several pools: the AUC of one active fit varies with its random pool
        fits = [_timed(lambda: ActiveRankSVM(budget=budget, C=C, random_state=seed)
                       .fit(Xtr, ytr)) for seed in range(seeds)]
        aucs = [roc_auc(yte, m.decision_function(Xte)) for m, _ in fits]
        act = fits[0][0]
        row = {"n": n, "active_s": float(np.median([t for _, t in fits])),
               "active_auc": float(np.mean(aucs)), "active_auc_std": float(np.std(aucs)),
               "active_select_s": sum(h["select_seconds"] for h in act.history_),
               "active_solve_s": sum(h["solve_seconds"] for h in act.history_)}
        # every round solved to tol, as the paper does (the default loosens the others)
        fast, t_fast = _timed(lambda: ActiveRankSVM(budget=budget, C=C, **PAPER_ROUNDS,
                                                    random_state=0).fit(Xtr, ytr))
        row.update(fast_s=t_fast, fast_auc=roc_auc(yte, fast.decision_function(Xte)))
        if RankSVM is not None and n <= skip_exact_above:
            # per-pair cost B C / (N+ N-): the costs sum to B C, as for the active pool
            rk, t_rk = _timed(lambda: RankSVM(C=budget * C / n_pairs, loss="squared_hinge")
                              .fit(Xtr, ytr))
            row.update(ranksvm_s=t_rk, ranksvm_auc=roc_auc(yte, rk.decision_function(Xte)))
        if n <= skip_exact_above:
            svc, t_svc = _timed(lambda: _linearsvc(Xtr, ytr, C))
            row.update(linearsvc_s=t_svc,
                       linearsvc_auc=roc_auc(yte, Xte @ svc.coef_.ravel()))
        rows.append(row)
        _print_row(row)
    return rows


def _fmt(v, spec):
    return "n/a" if v is None else format(v, spec)


def _print_row(r):
    ratio_rk = r.get("ranksvm_s") and r["ranksvm_s"] / r["active_s"]
    ratio_svc = r.get("linearsvc_s") and r["linearsvc_s"] / r["active_s"]
    ratio_fast = r.get("ranksvm_s") and r["ranksvm_s"] / r["fast_s"]
    print(f"{r['n']:>10d}  active {r['active_s']:7.2f}s (select {r['active_select_s']:.2f}s, "
          f"solve {r['active_solve_s']:.2f}s) auc {r['active_auc']:.4f} +- "
          f"{r['active_auc_std']:.4f} | active(paper rounds) "
          f"{r['fast_s']:6.2f}s auc {r['fast_auc']:.4f} | "
          f"RankSVM {_fmt(r.get('ranksvm_s'), '7.2f')}s auc {_fmt(r.get('ranksvm_auc'), '.4f')}"
          f" | LinearSVC {_fmt(r.get('linearsvc_s'), '7.2f')}s auc "
          f"{_fmt(r.get('linearsvc_auc'), '.4f')} | RankSVM/active "
          f"{_fmt(ratio_rk, '.1f')}x, LinearSVC/active {_fmt(ratio_svc, '.2f')}x, "
          f"RankSVM/active(paper rounds) {_fmt(ratio_fast, '.1f')}x", flush=True)


def bench_a9a(path, budget, C, repeats):
    path = Path(path)
    if (path / "a9a").exists() and (path / "a9a.t").exists():
        X, y = load_svmlight(path / "a9a", n_features=123)
        Xt, yt = load_svmlight(path / "a9a.t", n_features=123)
    else:  # the copy bundled with the package
        from birank.datasets import load_a9a

        X, y = load_a9a()
        Xt, yt = load_a9a(subset="test")
    t_act, t_fast, t_svc = [], [], []
    for r in range(repeats):
        m, t = _timed(lambda: ActiveRankSVM(budget=budget, C=C, random_state=r).fit(X, y))
        t_act.append(t)
        mf, t = _timed(lambda: ActiveRankSVM(budget=budget, C=C, **PAPER_ROUNDS,
                                             random_state=r).fit(X, y))
        t_fast.append(t)
        s, t = _timed(lambda: _linearsvc(X, y, C))
        t_svc.append(t)
    auc = roc_auc(yt, m.decision_function(Xt))
    print(f"a9a: ActiveRankSVM soft-correct B={budget} median {np.median(t_act):.3f}s "
          f"(test AUC {auc:.4f}); LinearSVC(C={C}) median {np.median(t_svc):.3f}s "
          f"(test AUC {roc_auc(yt, Xt @ s.coef_.ravel()):.4f}); "
          f"LinearSVC/active = {np.median(t_svc) / np.median(t_act):.2f}x; paper rounds: "
          f"{np.median(t_fast):.3f}s (test AUC {roc_auc(yt, mf.decision_function(Xt)):.4f}), "
          f"LinearSVC/active = {np.median(t_svc) / np.median(t_fast):.2f}x")


def bench_rounds(data_home, datasets, seeds, budget, C):
    """Test AUC (mean +- std) and median fit time of the default against the paper's rounds."""
    import warnings

    from birank.experiments.shen_lin import SPECS, load_splits

    settings = {"default (1 pass/round)": {}, "paper (tol every round)": PAPER_ROUNDS}
    for name in datasets:
        _, splits = load_splits(SPECS[name], data_home=data_home, max_folds=2)
        res = {k: ([], []) for k in settings}
        for Xtr, ytr, Xte, yte in splits:
            for seed in range(seeds):
                for key, kw in settings.items():
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        m, t = _timed(lambda: ActiveRankSVM(budget=budget, C=C, random_state=seed,
                                                            **kw).fit(Xtr, ytr))
                    res[key][0].append(roc_auc(yte, m.decision_function(Xte)))
                    res[key][1].append(t)
        print(f"{name:8s} " + " | ".join(
            f"{k}: AUC {np.mean(a):.4f} +- {np.std(a):.4f}, {np.median(t):.3f}s"
            for k, (a, t) in res.items()), flush=True)


def bench_small():
    """german.numer: the two round settings, and the Newton finish of a degenerate pool."""
    import warnings

    import birank.solvers.dual_cd as dual_cd_solver
    from birank.batch._active_sampling import JointSpace
    from birank.datasets import load_german_numer

    X, y = load_german_numer()
    settings = {"default (1 pass/round)": {}, "paper (tol every round)": PAPER_ROUNDS}
    for key, kw in settings.items():
        aucs, times, newton = [], [], 0
        for split in range(5):
            perm = np.random.default_rng(split).permutation(len(y))
            tr, te = perm[: len(y) // 2], perm[len(y) // 2:]
            for seed in range(2):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    m, t = _timed(lambda: ActiveRankSVM(random_state=seed, **kw)
                                  .fit(X[tr], y[tr]))
                aucs.append(roc_auc(y[te], m.decision_function(X[te])))
                times.append(t)
                newton += m.final_solver_ == "newton"
        print(f"german.numer half splits, {key}: AUC {np.mean(aucs):.4f} +- {np.std(aucs):.4f}, "
              f"median {np.median(times):.2f}s, last round finished by Newton in "
              f"{newton}/{len(aucs)} fits", flush=True)
    # the whole set, one pool: the objective dual CD leaves, and the Newton finish.
    # Dense X, as in the recorded runs; MAX_POOL_MATRIX = 0 switches the finish off.
    X = X.toarray() if hasattr(X, "toarray") else X
    fits = {}
    for label, cap in (("dual CD alone (1000 passes)", 0),
                       ("with the Newton finish", dual_cd_solver.MAX_POOL_MATRIX)):
        saved = dual_cd_solver.MAX_POOL_MATRIX
        dual_cd_solver.MAX_POOL_MATRIX = cap  # 0: the finish is never allowed
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fits[label] = _timed(lambda: ActiveRankSVM(random_state=0).fit(X, y))
        finally:
            dual_cd_solver.MAX_POOL_MATRIX = saved
    m0 = fits["dual CD alone (1000 passes)"][0]
    a, b = JointSpace((y == m0.classes_[1]).astype(int), 1.0).decode(m0.chosen_ids_)
    Z = X[a] - X[b]
    for label, (m, t) in fits.items():
        assert np.array_equal(m.chosen_ids_, m0.chosen_ids_)  # same pool, same costs
        obj = 0.5 * m.coef_ @ m.coef_ + m.chosen_weights_ @ np.maximum(0.0, 1.0 - Z @ m.coef_)
        print(f"german.numer, one pool of {Z.shape[0]} pairs, {label}: pool objective {obj:.1f}, "
              f"fit {t:.2f}s ({m.final_solver_})")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", nargs="*", type=float, default=[1e5, 1e6, 1e7],
                   help="synthetic data sizes (none: a9a only)")
    p.add_argument("--features", type=int, default=200)
    p.add_argument("--nnz", type=int, default=20)
    p.add_argument("--test-rows", type=int, default=100_000)
    p.add_argument("--budget", type=int, default=8000)
    p.add_argument("--C", type=float, default=0.1)
    p.add_argument("--skip-exact-above", type=float, default=1e7,
                   help="do not run RankSVM / LinearSVC above this many rows")
    p.add_argument("--a9a", default="",
                   help="folder with a9a and a9a.t (default '': skip the a9a comparison)")
    p.add_argument("--repeats", type=int, default=5, help="a9a repeats (median)")
    p.add_argument("--rounds", action="store_true",
                   help="compare the AUC of the default and the paper's rounds instead")
    p.add_argument("--small", action="store_true",
                   help="german.numer: round settings and the Newton finish instead")
    p.add_argument("--data-home", default=None, metavar="PATH",
                   help="folder holding the LIBSVM data sets (needed with --rounds)")
    p.add_argument("--datasets", nargs="+", default=["a9a", "w8a", "letter", "bank", "shuttle"])
    p.add_argument("--seeds", type=int, default=3,
                   help="ActiveRankSVM pools per size (median time, mean +- std AUC)")
    args = p.parse_args(argv)
    if args.rounds:
        if args.data_home is None:
            p.error("--rounds needs --data-home PATH")
        bench_rounds(args.data_home, args.datasets, args.seeds, args.budget, args.C)
        return
    if args.small:
        bench_small()
        return
    # compile the kernels before timing anything
    Xw, yw, _ = make_sparse_bipartite(2000, n_features=50, nnz_per_row=5, random_state=1)
    ActiveRankSVM(budget=300, random_state=0).fit(Xw, yw)
    RankSVM = _ranksvm_class()
    if RankSVM is not None:
        RankSVM(C=0.1, loss="squared_hinge").fit(Xw, yw)
    else:
        print("RankSVM: birank.batch.ranksvm not available in this install; column n/a")
    if args.a9a:
        bench_a9a(args.a9a, args.budget, args.C, args.repeats)
    bench_sizes([int(s) for s in args.sizes], args.features, args.nnz, args.test_rows,
                args.budget, args.C, args.skip_exact_above, args.seeds)


if __name__ == "__main__":
    main()
