"""birank against the C/C++ reference tools, alternating runs in one process.

For each comparison of the reference table (docs: benchmarks page) this runs the tool's command (through
``subprocess``: its whole run, reading included) and the birank fit on the
same data already in memory, alternately ``--repeat`` times, and prints the
medians of wall-clock and CPU time, the ratio birank / tool, and both models'
objective computed by one formula (birank's own objective classes, checked
against brute force in tests/) or, for the SGD tools, both test AUCs.

The tools are not part of birank: build them yourself from their public
sources (LIBLINEAR 2.50, liblinear-ranksvm 2.11, sofia-ml, SVMperf 3.00) and pass
where they are. A comparison whose tool is not given is
skipped.

Usage::

    python benchmarks/bench_references.py --data-home PATH \\
        [--ranksvm PATH/train] [--liblinear PATH/train] [--sofia PATH/sofia-ml] \\
        [--svmperf PATH/svm_perf_learn] \\
        [--tools DIR]  # DIR/ranksvm/train, DIR/liblinear/train, DIR/sofia/sofia-ml,
                       # DIR/svmperf/svm_perf_learn
        [--only a9a-ranksvm mq2008 svmperf wsvm sofia aucs curves dense] [--c-perf 1 10]
        [--repeat 3]

``curves`` (with --liblinear) prints WeightedSVM's objective against CPU time,
birank over a ladder of ``tol`` and LIBLINEAR over a ladder of ``-e``, for
the squared hinge (``-s 2``) and the hinge (``-s 3``, both with a pass cap
of 1000 for birank and the tool's own 300), on a9a and w8a, then for each
LIBLINEAR point the cheapest birank point at an equal or lower objective and
the CPU ratio: equal-objective comparisons read off the two curves rather than
one point each.

The hinge rows (``-s 3``) also time WeightedSVM at the tool's pass cap
(``max_iter=300``): LIBLINEAR 2.50 stops its dual solvers there, on w8a
before its own ``-e 0.1`` is met, while birank's default (1000 passes) runs on
to the tolerance (about 800 passes, a lower objective): the default row then
compares unequal work, the capped line equal pass budgets.

``dense`` (with --liblinear; not in the default set) runs the WeightedSVM rows of
``-s 2`` and ``-s 3`` on dense generated rows (10^5 x 100, ``make_classification``):
the tool reads every value from its file, birank takes the array.

``aucs`` runs each tool once at the settings of the docs' table of the tools on
a9a (liblinear-ranksvm ``-s 8 -c 1``, SVMperf ``-c 100 -l 10 -w 3``, sofia-ml's
combined ranking, LIBLINEAR ``-s 2 -c 1 -B 1``) and prints the test AUC on a9a.t of
its weights (ties counted 1/2, birank's ``roc_auc``) beside birank's counterpart's:
the page reads the tools' figures from these lines.

SVMperf's ``-c C_perf`` is RankSVM's hinge ``C = 100 C_perf / n_pairs`` (its
ROC-area loss is in percent of the pairs); both weight vectors are scored by
the same hinge pair objective.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from _data import data_file


#: the pass cap of LIBLINEAR 2.50's dual solvers (``solve_l2r_l1l2_svc``'s
#: ``max_iter=300``; its primal solvers stop at 1000 iterations)
LIBLINEAR_DUAL_PASSES = 300


def _children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_tool(cmd):
    t0, c0 = time.perf_counter(), _children_cpu()
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{cmd[0]} failed: {out.stderr or out.stdout}")
    return time.perf_counter() - t0, _children_cpu() - c0


def run_birank(fn):
    t0, c0 = time.perf_counter(), time.process_time()
    model = fn()
    return time.perf_counter() - t0, time.process_time() - c0, model


def alternate(tool_cmd, fit, repeat, solver=None, capped=None):
    """``(medians, model, capped_result)``: the medians (tool wall, tool CPU, birank
    wall, birank CPU[, solver wall, solver CPU]) and birank's last model;
    ``solver``: the estimator's solver call alone, timed too. ``capped``: another fit
    (at the tool's pass budget) timed in the same rounds; ``capped_result`` is its
    ``(median wall, median CPU, last model)``, or None without it."""
    fit()  # compile once: JIT time is not timed
    if solver is not None:
        solver()
    rows, model, capped_rows, capped_model = [], None, [], None
    for _ in range(repeat):
        tw, tc = run_tool(tool_cmd)
        bw, bc, model = run_birank(fit)
        row = [tw, tc, bw, bc]
        if solver is not None:
            row += list(run_birank(solver)[:2])
        rows.append(row)
        if capped is not None:
            cw, cc, capped_model = run_birank(capped)
            capped_rows.append((cw, cc))
    capped_result = None
    if capped is not None:
        cw, cc = np.median(np.array(capped_rows), axis=0)
        capped_result = (cw, cc, capped_model)
    return np.median(np.array(rows), axis=0), model, capped_result


def liblinear_w(path, n_features):
    """The weight vector of a LIBLINEAR model file (no bias term)."""
    lines = Path(path).read_text().splitlines()
    k = lines.index("w") + 1
    w = np.array([float(v.split()[0]) for v in lines[k:k + n_features] if v.strip()])
    out = np.zeros(n_features)
    out[:w.shape[0]] = w
    return out


def sofia_w(path, n_features):
    """sofia-ml's weights (its feature 0 is the bias slot, absent from the data)."""
    vals = np.array(Path(path).read_text().split(), dtype=float)
    out = np.zeros(n_features)
    k = min(n_features, vals.shape[0] - 1)
    out[:k] = vals[1:k + 1]
    return out


def report(name, med, obj_b, obj_t, what="objective"):
    tw, tc, bw, bc = med[:4]
    print(f"{name}: birank {bw:.3f} s wall / {bc:.3f} s CPU; tool {tw:.3f} s / {tc:.3f} s; "
          f"ratio wall {bw / tw:.2f}, CPU {bc / tc:.2f}; {what} birank {obj_b:.10g} vs tool "
          f"{obj_t:.10g} ({obj_b / obj_t:.6f}x)", flush=True)
    if len(med) > 4:
        sw, sc = med[4:]
        print(f"    solver alone (no input checks, no probability calibration): {sw:.3f} s "
              f"wall / {sc:.3f} s CPU; ratio wall {sw / tw:.2f}, CPU {sc / tc:.2f}", flush=True)


def svmperf_w(path, n_features):
    """SVMperf's linear model: the sum of alpha*y times each listed vector."""
    lines = Path(path).read_text().splitlines()
    k = next(i for i, line in enumerate(lines) if "threshold b" in line) + 1
    out = np.zeros(n_features)
    for line in lines[k:]:
        toks = line.split("#", 1)[0].split()
        if not toks:
            continue
        a = float(toks[0])
        for tok in toks[1:]:
            j, v = tok.split(":")
            if int(j) <= n_features:
                out[int(j) - 1] += a * float(v)
    return out


def pair_objective(X, y, w, C, groups=None, hinge=False):
    from birank._kernels.losses import HINGE, SQUARED_HINGE
    from birank.solvers.newton import PairObjective

    kind = HINGE if hinge else SQUARED_HINGE
    return PairObjective(X, y.astype(np.float64), groups, C=C, loss_kind=kind).fun_grad(w)[0]


def point_objective(X, y01, w, c_class, loss):
    """``1/2 |w|^2 + sum_i C_{y_i} loss(1 - y_i w.x_i)`` with y in {-1, +1}."""
    ys = np.where(y01 > 0, 1.0, -1.0)
    xi = np.maximum(1.0 - ys * (X @ w), 0.0)
    c = np.where(y01 > 0, c_class[1], c_class[0])
    return 0.5 * float(w @ w) + float(c @ (xi if loss == "hinge" else xi * xi))


def w8a_split(data, tmp):
    """w8a's first 75% under ``default_rng(0).permutation`` (no test file in the data)."""
    from sklearn.datasets import dump_svmlight_file, load_svmlight_file

    X, y = load_svmlight_file(str(data_file(data, "w8a/w8a")), n_features=300)
    perm = np.random.default_rng(0).permutation(X.shape[0])
    keep = perm[:int(0.75 * perm.shape[0])]
    X, y = X[keep], y[keep]
    path = tmp / "w8a.train"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    return X, y, path


def curves(args, X, y, a9a, tmp, model):
    """Objective against CPU time: birank's tol ladder beside LIBLINEAR's -e ladder."""
    import warnings

    from birank import WeightedSVM
    from birank.metrics import roc_auc

    ladders = {"squared_hinge": ("2", [1.0, 0.3, 0.1, 0.03, 0.01, 0.001, 1e-4],
                                 [1.0, 0.1, 0.01, 1e-3, 1e-4]),
               "hinge": ("3", [1.0, 0.5, 0.3, 0.2, 0.1, 0.03, 0.01],
                         [1.0, 0.3, 0.1, 0.03, 0.01])}
    Xw8, yw8, w8_path = w8a_split(args.data, tmp)
    for name, Xw, yw, path in (("a9a", X, y, a9a), ("w8a", Xw8, yw8, w8_path)):
        yw01 = (yw > 0).astype(np.float64)
        cw = WeightedSVM(C=1.0, random_state=0).fit(Xw, yw01).class_C_
        for loss, (s, b_tols, t_eps) in ladders.items():
            print(f"curve {name} {loss}: (CPU s, objective), medians of {args.repeat}", flush=True)
            ours = []
            for tol in b_tols:
                def fit():
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        return WeightedSVM(C=1.0, tol=tol, random_state=0, loss=loss,
                                           max_iter=1000).fit(Xw, yw01)
                fit()
                runs = [run_birank(fit) for _ in range(args.repeat)]
                m = runs[-1][2]
                t_b = float(np.median([r[1] for r in runs]))
                obj = point_objective(Xw, yw01, m.coef_, cw, loss)
                ours.append((tol, t_b, obj))
                print(f"    birank tol={tol:<6g} {t_b:7.3f} s  {obj:.8g}  "
                      f"({m.n_iter_} {'Newton its' if loss == 'squared_hinge' else 'passes'})",
                      flush=True)
            theirs = []
            for eps in t_eps:
                cmd = [str(args.liblinear), "-s", s, "-c", "1", "-e", repr(eps), "-w1",
                       repr(float(cw[1])), "-w-1", repr(float(cw[0])), str(path), str(model)]
                tc = float(np.median([run_tool(cmd)[1] for _ in range(args.repeat)]))
                w_t = liblinear_w(model, Xw.shape[1])
                if roc_auc(yw01, Xw @ w_t) < 0.5:
                    w_t = -w_t
                obj = point_objective(Xw, yw01, w_t, cw, loss)
                theirs.append((eps, tc, obj))
                print(f"    -s {s} -e {eps:<6g}   {tc:7.3f} s  {obj:.8g}  (whole run)",
                      flush=True)
            # at equal objective: for each tool point, birank's cheapest ladder point that
            # reaches the same objective or a lower one (read off the two curves)
            for eps, tc, obj_t in theirs:
                reached = [(t_b, tol, obj) for tol, t_b, obj in ours if obj <= obj_t]
                if not reached:
                    print(f"    equal objective, -e {eps:<6g}: no birank point reaches "
                          f"{obj_t:.8g} (best {min(o for _, _, o in ours):.8g})", flush=True)
                    continue
                t_b, tol, obj = min(reached)
                print(f"    equal objective, -e {eps:<6g}: birank tol={tol:g} {t_b:.3f} s "
                      f"({obj:.8g}) vs {tc:.3f} s ({obj_t:.8g}): CPU ratio {t_b / tc:.2f}",
                      flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-home", dest="data", type=Path, required=True,
                    help="folder holding a9a/, w8a/ and MQ2008/ (LIBSVM files), or "
                         "their downloads by `birank datasets fetch` / fetch_letor")
    ap.add_argument("--tools", type=Path)
    ap.add_argument("--ranksvm", type=Path)
    ap.add_argument("--liblinear", type=Path)
    ap.add_argument("--sofia", type=Path)
    ap.add_argument("--svmperf", type=Path)
    ap.add_argument("--only", nargs="+",
                    default=["a9a-ranksvm", "mq2008", "svmperf", "wsvm", "sofia", "aucs"])
    ap.add_argument("--c-perf", type=float, nargs="+", default=[1.0, 10.0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    if args.tools:
        args.ranksvm = args.ranksvm or args.tools / "ranksvm" / "train"
        args.liblinear = args.liblinear or args.tools / "liblinear" / "train"
        args.sofia = args.sofia or args.tools / "sofia" / "sofia-ml"
        args.svmperf = args.svmperf or args.tools / "svmperf" / "svm_perf_learn"
    import warnings

    from sklearn.datasets import load_svmlight_file, load_svmlight_files
    from sklearn.exceptions import ConvergenceWarning

    from birank import CombinedRanking, RankSVM, WeightedSVM
    from birank.metrics import roc_auc
    from birank.solvers.all_pairs import solve_all_pairs
    from birank.solvers.dual_cd import solve_point_dual_cd
    from birank.solvers.point_newton import solve_point_squared_hinge

    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; medians of "
          f"{args.repeat} alternating runs; ratio = birank / tool (the tool's whole run)")
    tmp = Path(tempfile.mkdtemp())
    a9a = data_file(args.data, "a9a/a9a")
    X, y = load_svmlight_file(str(a9a), n_features=123)
    y01 = (y > 0).astype(np.float64)
    model = tmp / "model"

    if "a9a-ranksvm" in args.only and args.ranksvm and args.ranksvm.exists():
        med, m, _ = alternate([str(args.ranksvm), "-s", "8", "-c", "1", str(a9a), str(model)],
                              lambda: RankSVM(C=1.0).fit(X, y01), args.repeat,
                              solver=lambda: solve_all_pairs(X, y01, C=1.0))
        w_t = liblinear_w(model, X.shape[1])
        report("(a) RankSVM a9a C=1 vs liblinear-ranksvm -s 8", med,
               pair_objective(X, y01, m.coef_, 1.0), pair_objective(X, y01, w_t, 1.0))
    else:
        print("(a) skipped:", _why_skipped(args, "a9a-ranksvm", args.ranksvm, "--ranksvm"))

    if "mq2008" in args.only and args.ranksvm and args.ranksvm.exists():
        parts = [data_file(args.data, f"MQ2008/S{k}.txt") for k in (1, 2, 3)]
        train = tmp / "mq2008.train"  # the tool reads no '#docid' comments
        with open(train, "w") as fh:
            for p in parts:
                for line in open(p):
                    fh.write(line.split("#", 1)[0].rstrip() + "\n")
        loaded = load_svmlight_files([str(p) for p in parts], query_id=True, n_features=46)
        Xq = sp.vstack(loaded[0::3]).tocsr()
        yq = np.concatenate(loaded[1::3])
        qid = np.concatenate(loaded[2::3])
        for tol in (1e-4, 1e-3):
            med, m, _ = alternate(
                [str(args.ranksvm), "-s", "8", "-c", "1", str(train), str(model)],
                lambda: RankSVM(C=1.0, tol=tol).fit(Xq, yq, groups=qid),
                args.repeat, solver=lambda: solve_all_pairs(
                    Xq, yq, groups=np.unique(qid, return_inverse=True)[1], C=1.0, tol=tol))
            w_t = liblinear_w(model, Xq.shape[1])
            report(f"(b) RankSVM MQ2008 S1-S3 qid C=1 tol={tol:g} vs liblinear-ranksvm", med,
                   pair_objective(Xq, yq, m.coef_, 1.0, qid),
                   pair_objective(Xq, yq, w_t, 1.0, qid))
    else:
        print("(b) MQ2008 skipped:", _why_skipped(args, "mq2008", args.ranksvm, "--ranksvm"))

    if "svmperf" in args.only and args.svmperf and args.svmperf.exists():
        n_pairs = int(y01.sum()) * int((1 - y01).sum())
        for c_perf in args.c_perf:
            C = 100.0 * c_perf / n_pairs
            med, m, _ = alternate([str(args.svmperf), "-c", repr(c_perf), "-l", "10", "-w", "3",
                                   str(a9a), str(model)],
                                  lambda: RankSVM(C=C, loss="hinge").fit(X, y01), args.repeat,
                                  solver=lambda: solve_all_pairs(X, y01, C=C, loss="hinge"))
            w_t = svmperf_w(model, X.shape[1])
            report(f"(c) RankSVM hinge a9a vs SVMperf -l 10 -w 3 C_perf={c_perf:g}", med,
                   pair_objective(X, y01, m.coef_, C, hinge=True),
                   pair_objective(X, y01, w_t, C, hinge=True))
    else:
        print("(c) SVMperf skipped:", _why_skipped(args, "svmperf", args.svmperf, "--svmperf"))

    if {"wsvm", "dense"} & set(args.only) and args.liblinear and args.liblinear.exists():
        from sklearn.datasets import dump_svmlight_file
        sets = []
        if "wsvm" in args.only:
            w8a_X, w8a_y = load_svmlight_file(str(data_file(args.data, "w8a/w8a")),
                                              n_features=300)
            perm = np.random.default_rng(0).permutation(w8a_X.shape[0])
            cut = int(0.75 * perm.shape[0])
            w8a_X, w8a_y = w8a_X[perm[:cut]], w8a_y[perm[:cut]]
            w8a_file = tmp / "w8a.train"
            dump_svmlight_file(w8a_X, w8a_y, str(w8a_file), zero_based=False)
            sets += [("a9a", X, y, a9a), ("w8a", w8a_X, w8a_y, w8a_file)]
        if "dense" in args.only:
            # dense rows (a tabular shape): 10^5 x 100, half the features informative,
            # 5% of the labels flipped; the tool reads the same values from a file
            from sklearn.datasets import make_classification
            Xd, yd = make_classification(n_samples=100_000, n_features=100, n_informative=50,
                                         flip_y=0.05, random_state=0)
            yd = np.where(yd > 0, 1.0, -1.0)
            dense_file = tmp / "dense.train"
            dump_svmlight_file(Xd, yd, str(dense_file), zero_based=False)
            sets += [("dense 1e5x100", Xd, yd, dense_file)]
        for name, Xw, yw, path in sets:
            yw01 = (yw > 0).astype(np.float64)
            with warnings.catch_warnings():  # (one pass: only its class_C_ is read)
                warnings.simplefilter("ignore", ConvergenceWarning)
                cls = WeightedSVM(C=1.0, class_weight="balanced", max_iter=1,
                                  random_state=0).fit(Xw, yw01)
            cw = cls.class_C_  # (C-, C+)
            solvers = (("squared_hinge", "2"), ("squared_hinge", "1"), ("hinge", "3"))
            # the dense set: -s 2 and -s 3 only (-s 1 is the squared hinge again)
            for loss, s in solvers[::2] if name.startswith("dense") else solvers:
                cmd = [str(args.liblinear), "-s", s, "-c", "1", "-w1", repr(float(cw[1])),
                       "-w-1", repr(float(cw[0]))]
                if s != "2":
                    cmd += ["-e", "0.1"]
                cost = cw[yw01.astype(np.int64)]
                # the solver timed alone too: the squared hinge's primal Newton
                # (solver='auto'), the hinge's dual CD (its pool built and solved)
                solver = ((lambda: solve_point_squared_hinge(Xw, yw01, cost, tol=0.1))
                          if loss == "squared_hinge" else
                          (lambda: solve_point_dual_cd(Xw, yw01, cost, tol=0.1,
                                                       random_state=0)))
                def wsvm(max_iter=1000, loss=loss, Xw=Xw, yw01=yw01):
                    return WeightedSVM(C=1.0, class_weight="balanced", tol=0.1,
                                       random_state=0, loss=loss,
                                       max_iter=max_iter).fit(Xw, yw01)

                def at_cap():
                    # the hinge's dual CD at LIBLINEAR 2.50's pass cap for its dual solvers
                    # (300; birank's default is 1000): where the tool stops at its cap,
                    # unconverged, this is the comparison at an equal pass budget (and
                    # birank does not converge there either: no warning for that)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", ConvergenceWarning)
                        return wsvm(LIBLINEAR_DUAL_PASSES)

                med, m, capped = alternate(cmd + [str(path), str(model)], wsvm, args.repeat,
                                           solver=solver,
                                           capped=at_cap if s == "3" else None)
                w_t = liblinear_w(model, Xw.shape[1])
                # LIBLINEAR labels its first-read class +1 in the model: orient w by AUC
                if roc_auc(yw01, Xw @ w_t) < 0.5:
                    w_t = -w_t
                obj_t = point_objective(Xw, yw01, w_t, cw, loss)
                report(f"(d) WeightedSVM {loss} {name} vs LIBLINEAR -s {s}", med,
                       point_objective(Xw, yw01, m.coef_, cw, loss), obj_t)
                if capped is not None:
                    kw, kc, mk = capped
                    obj_k = point_objective(Xw, yw01, mk.coef_, cw, loss)
                    print(f"    at the tool's pass cap (max_iter={LIBLINEAR_DUAL_PASSES}; "
                          f"birank's default fit took {m.n_iter_} passes, this one "
                          f"{mk.n_iter_}): {kw:.3f} s wall / {kc:.3f} s CPU; ratio wall "
                          f"{kw / med[0]:.2f}, CPU {kc / med[1]:.2f}; objective "
                          f"{obj_k:.10g} ({obj_k / obj_t:.6f}x the tool's)", flush=True)
    else:
        print("(d) WeightedSVM skipped:",
              _why_skipped(args, "wsvm", args.liblinear, "--liblinear"))

    if "curves" in args.only and args.liblinear and args.liblinear.exists():
        curves(args, X, y, a9a, tmp, model)
    elif "curves" in args.only:
        print("(curves) WeightedSVM objective against CPU time skipped:",
              _why_skipped(args, "curves", args.liblinear, "--liblinear"))

    if "sofia" in args.only and args.sofia and args.sofia.exists():
        Xt, yt = load_svmlight_file(str(data_file(args.data, "a9a/a9a.t")), n_features=123)
        for seed in (1,):
            cmd = [str(args.sofia), "--learner_type", "sgd-svm", "--loop_type", "roc",
                   "--lambda", "0.0001", "--iterations", "1000000", "--random_seed", str(seed),
                   "--training_file", str(a9a), "--model_out", str(model)]
            med, m, _ = alternate(cmd, lambda: CombinedRanking(alpha=1e-4, max_iter=1_000_000,
                                                               rank_probability=1.0,
                                                               random_state=seed).fit(X, y01),
                                  args.repeat)
            w_t = sofia_w(model, X.shape[1])
            report("(e) CombinedRanking(p=1) vs sofia-ml roc, a9a", med,
                   roc_auc(yt > 0, m.decision_function(Xt)), roc_auc(yt > 0, Xt @ w_t),
                   what="test AUC")
    else:
        print("(e) sofia-ml skipped:", _why_skipped(args, "sofia", args.sofia, "--sofia"))

    if "aucs" in args.only:
        test_aucs(args, X, y01, a9a, tmp)


def test_aucs(args, X, y01, a9a, tmp):
    """Section ``aucs``: each tool once at the docs' settings, and the test AUC on a9a.t
    of its weights beside that of birank's counterpart (one line each)."""
    from sklearn.datasets import load_svmlight_file

    from birank import CombinedRanking, RankSVM, WeightedSVM
    from birank.metrics import roc_auc

    Xt, yt = load_svmlight_file(str(data_file(args.data, "a9a/a9a.t")), n_features=X.shape[1])
    yt01 = yt > 0
    model = tmp / "auc-model"
    n_pairs = int(y01.sum()) * int((1 - y01).sum())
    d = X.shape[1]
    cases = [  # (tool path, its arguments, its weights, its name, birank's counterpart)
        (args.ranksvm, ["-s", "8", "-c", "1", str(a9a), str(model)], liblinear_w,
         "liblinear-ranksvm -s 8 -c 1", "RankSVM(C=1)", lambda: RankSVM(C=1.0)),
        (args.svmperf, ["-c", "100", "-l", "10", "-w", "3", str(a9a), str(model)], svmperf_w,
         "SVMperf -c 100 -l 10 -w 3", "RankSVM(loss='hinge', C=1e4 / n_pairs)",
         lambda: RankSVM(C=100.0 * 100.0 / n_pairs, loss="hinge")),
        (args.sofia, ["--learner_type", "sgd-svm", "--loop_type", "combined-ranking",
                      "--lambda", "0.0001", "--iterations", "1000000", "--random_seed", "1",
                      "--training_file", str(a9a), "--model_out", str(model)], sofia_w,
         "sofia-ml combined-ranking",
         "CombinedRanking(alpha=1e-4, max_iter=10**6, random_state=1)",
         lambda: CombinedRanking(alpha=1e-4, max_iter=1_000_000, rank_probability=0.5,
                                 random_state=1)),
        (args.liblinear, ["-s", "2", "-c", "1", "-B", "1", str(a9a), str(model)], liblinear_w,
         "LIBLINEAR -s 2 -c 1 -B 1", "WeightedSVM(C=1, random_state=0)",
         lambda: WeightedSVM(C=1.0, random_state=0)),
    ]
    for tool, cmd, weights, name, counterpart, make in cases:
        if tool is None or not tool.exists():
            print(f"(f) {name} skipped:", "no tool path" if tool is None else f"{tool} not found")
            continue
        subprocess.run([str(tool), *cmd], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        w_t = weights(model, d)  # (a bias, LIBLINEAR's -B 1, moves no AUC: left out)
        if roc_auc(y01, X @ w_t) < 0.5:  # LIBLINEAR's +1 is its first-read class
            w_t = -w_t
        auc_b = roc_auc(yt01, make().fit(X, y01).decision_function(Xt))
        print(f"(f) test AUC on a9a.t, {name}: tool {roc_auc(yt01, Xt @ w_t):.6f}; "
              f"birank {counterpart} {auc_b:.6f}", flush=True)


def _why_skipped(args, section, tool, flag):
    """Why a comparison did not run: not in ``--only``, or its tool not found."""
    if section not in args.only:
        return "not in --only"
    return f"no {flag}" if tool is None else f"{tool} not found"


if __name__ == "__main__":
    main()
