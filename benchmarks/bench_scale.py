"""Scale: fit time and peak memory against N, the big one-machine runs, Dask vs in-memory.

Every fit runs in a fresh subprocess that generates its data
(``make_sparse_bipartite``, optionally cast to float32), reads its resident
memory, resets the kernel's peak-RSS mark (``/proc/self/clear_refs``), fits,
and reports the peak resident memory *above* the data (``extra``) next to the
size of X (data + indices + indptr of the training rows). The goal
is ``(size of X + extra) / size of X < 2``. A held-out block of rows (same
planted ranker) gives the test AUC. Training and test rows are zero-copy views
of one generated matrix.

Usage::

    # growth: N = 10^4 .. --max-n, every estimator, table + exponents + PNG
    python benchmarks/bench_scale.py growth --max-n 1e6 [--quick]
    # one machine, big data (run ONE at a time): 10^7 x 10^6 x 50 and url-shaped
    python benchmarks/bench_scale.py big --dataset sparse1e7 --dtype float32
    python benchmarks/bench_scale.py big --dataset url --dtype float32
    # Dask (LocalCluster, 2 workers) against in-memory on the same data
    python benchmarks/bench_scale.py dask --n 1e6

Outputs go to ``--out`` (default ``docs/results/scale``): JSON per mode, a
markdown table, and ``scale-growth.png``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent

#: datasets of the big runs: (n_samples, n_features, nnz_per_row)
BIG = {"sparse1e7": (10**7, 10**6, 50), "url": (2_400_000, 3_200_000, 115)}
TEST_ROWS = 200_000


def estimator(name, n):
    """The estimator settings used at every N (budgets fixed, solvers capped)."""
    from birank import (BBR, CBR, LCBR, OAM, ActiveRankSVM, AdaOAM, CombinedRanking,
                        PrunedRankSVM, RankSVM, WeightedSVM)

    return {
        "RankSVM": lambda: RankSVM(C=1.0, tol=1e-3, max_iter=30),
        "ActiveRankSVM": lambda: ActiveRankSVM(budget=8000, random_state=0),
        "WeightedSVM": lambda: WeightedSVM(C=1.0, class_weight="balanced", max_iter=10,
                                           random_state=0),
        "CombinedRanking": lambda: CombinedRanking(max_iter=10**6, random_state=0),
        # closest N - 1 + random N - 1 pairs (binary labels: N - 1 level-1 pairs drawn)
        "PrunedRankSVM": lambda: PrunedRankSVM(max_iter=20, random_state=0),
        "BBR": lambda: BBR(radius=None, solver="cg", max_iter=50),
        "LCBR": lambda: LCBR(n_pairs=100_000, radius=None, solver="cg", max_iter=50,
                             random_state=0),
        # its cost follows S, not N: the same with S growing with N
        "LCBR-S=N/10": lambda: LCBR(n_pairs=max(n // 10, 1000), radius=None, solver="cg",
                                    max_iter=50, random_state=0),
        # the streaming (online) use of BBR: partial_fit on chunks of 10^5 rows
        "BBR-stream": lambda: BBR(radius=None, solver="cg", max_iter=50),
        # online learners: one pass over the rows
        "CBR-diag": lambda: CBR(covariance="diag", random_state=0),
        "OAM": lambda: OAM(random_state=0),
        "AdaOAM": lambda: AdaOAM(random_state=0),
    }[name]()


ESTIMATORS = ["RankSVM", "ActiveRankSVM", "WeightedSVM", "CombinedRanking", "BBR", "LCBR",
              "LCBR-S=N/10", "BBR-stream", "CBR-diag", "OAM", "AdaOAM"]


# ------------------------------------------------------------------ memory marks
def _status():
    out = {}
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(("VmRSS", "VmHWM")):
                key, val = line.split(":")
                out[key] = int(val.split()[0]) * 1024
    return out


def _reset_peak():
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")


def _nbytes(X):
    return int(X.data.nbytes + X.indices.nbytes + X.indptr.nbytes)


def _split_views(X, y, n_train):
    """Rows [0, n_train) and [n_train, N) of a CSR matrix without copying data/indices."""
    import scipy.sparse as sp

    k = int(X.indptr[n_train])
    tr = sp.csr_matrix((X.data[:k], X.indices[:k], X.indptr[:n_train + 1]),
                       shape=(n_train, X.shape[1]), copy=False)
    te = sp.csr_matrix((X.data[k:], X.indices[k:], X.indptr[n_train:] - k),
                       shape=(X.shape[0] - n_train, X.shape[1]), copy=False)
    tr.has_sorted_indices = te.has_sorted_indices = True
    return tr, y[:n_train], te, y[n_train:]


def run_one(name, n, d, nnz, dtype, test_rows, seed=0):
    """Generate, fit ``name`` once, return a dict of measurements (in this process)."""
    import warnings

    from birank.datasets import make_sparse_bipartite
    from birank.metrics import roc_auc

    t0 = time.perf_counter()
    X, y, _ = make_sparse_bipartite(n + test_rows, n_features=d, nnz_per_row=nnz, random_state=seed)
    if dtype == "float32":
        X.data = X.data.astype(np.float32)
    gen_s = time.perf_counter() - t0
    Xtr, ytr, Xte, yte = _split_views(X, y, n)
    float(Xtr.data.sum())  # every page of X resident before the mark
    est = estimator(name, n)
    rss0 = _status()["VmRSS"]
    _reset_peak()
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name == "BBR-stream":
            step = 100_000
            for k in range(0, n, step):
                stop = min(n, k + step)
                kk, ks = int(Xtr.indptr[k]), int(Xtr.indptr[stop])
                import scipy.sparse as sp

                part = sp.csr_matrix((Xtr.data[kk:ks], Xtr.indices[kk:ks],
                                      Xtr.indptr[k:stop + 1] - kk),
                                     shape=(stop - k, d), copy=False)
                est.partial_fit(part, ytr[k:stop], classes=[0, 1])
        else:
            est.fit(Xtr, ytr)
    fit_s = time.perf_counter() - t0
    peak = _status()["VmHWM"]
    xb = _nbytes(Xtr)
    auc = roc_auc(yte, est.decision_function(Xte)) if test_rows else float("nan")
    out = {"estimator": name, "n": n, "d": d, "nnz_per_row": nnz, "dtype": dtype,
           "gen_s": gen_s, "fit_s": fit_s, "x_bytes": xb, "extra_bytes": int(peak - rss0),
           "peak_over_x": (xb + max(0, peak - rss0)) / xb, "test_auc": float(auc)}
    if name == "ActiveRankSVM":
        # the budget-bound part (sampling rounds and solves, history_'s clock): the
        # rest of fit is O(nnz) (input validation, scoring every row for the threshold)
        out["active_s"] = float(est.history_[-1]["seconds"])
    return out


def run_auc(n, seed=0):
    """Time of the exact AUC on N scores (the metric's own growth)."""
    from birank.metrics import roc_auc

    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.1
    s = rng.normal(size=n) + y
    best = np.inf
    for _ in range(3):
        t0 = time.perf_counter()
        roc_auc(y, s)
        best = min(best, time.perf_counter() - t0)
    return {"estimator": "roc_auc", "n": n, "fit_s": best}


def subprocess_one(args_list):
    cmd = [sys.executable, str(Path(__file__).resolve()), "_one", *map(str, args_list)]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        return {"error": res.stderr[-2000:], "args": args_list}
    return json.loads(res.stdout.strip().splitlines()[-1])


# ------------------------------------------------------------------------ growth
def growth_exponent(ns, ts):
    ns, ts = np.asarray(ns, float), np.asarray(ts, float)
    ok = ts > 0
    if ok.sum() < 2:
        return float("nan")
    return float(np.polyfit(np.log(ns[ok]), np.log(ts[ok]), 1)[0])


def cmd_growth(opts):
    max_n = int(float(opts.max_n))
    ns = [n for n in (10**4, 10**5, 10**6, 10**7) if n <= max_n]
    if opts.ns:  # only these sizes are measured; the other rows of growth.json stay
        ns = [int(float(n)) for n in opts.ns]
    d, nnz = (1000, 20)
    names = opts.estimators or ESTIMATORS
    out = Path(opts.out)
    old = json.loads((out / "growth.json").read_text()) if (out / "growth.json").exists() else []
    redo = {(name, n) for name in [*names, "roc_auc"] for n in ns}
    rows = [r for r in old if (r.get("estimator"), r.get("n")) not in redo]
    names = [*dict.fromkeys([r["estimator"] for r in rows if r["estimator"] != "roc_auc"]
                            + list(names))]
    ns = sorted({r["n"] for r in rows} | set(ns))
    for name in opts.estimators or ESTIMATORS:
        for n in ns:
            if (name, n) not in redo:
                continue
            r = subprocess_one([name, n, d, nnz, opts.dtype, 0])
            r.setdefault("estimator", name)
            r.setdefault("n", n)
            rows.append(r)
            print(json.dumps(r), flush=True)
    for n in ns:
        if ("roc_auc", n) in redo:
            rows.append(run_auc(n))
    growth_table(rows, names, ns, out)


def growth_table(rows, names, ns, out):
    """growth.json, growth.md (with exponents) and scale-growth.png from measured rows."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "growth.json").write_text(json.dumps(rows, indent=1))
    lines = ["| method | " + " | ".join(f"N={n:.0e} fit s (peak/X)" for n in ns)
             + " | exponent, all N | exponent, N >= 1e5 |", "|---|" + "---:|" * (len(ns) + 2)]
    fig_data = {}
    derived = []
    for name in names:  # budget-bound part of a fit as its own row, under the fit's
        part = [{"estimator": f"{name}: sampling + solver", "n": r["n"], "fit_s": r["active_s"]}
                for r in rows if r.get("estimator") == name and "active_s" in r]
        if part:
            derived.append((name, part))
    for name, part in derived:
        names = [*names[:names.index(name) + 1], part[0]["estimator"],
                 *names[names.index(name) + 1:]]
        rows = [*rows, *part]
    for name in [*names, "roc_auc"]:
        rs = [r for r in rows if r.get("estimator") == name and "fit_s" in r]
        by_n = {r["n"]: r for r in rs}
        cells = []
        for n in ns:
            r = by_n.get(n)
            if r is None:
                cells.append("-")
            elif "peak_over_x" in r:
                cells.append(f"{r['fit_s']:.3g} ({r['peak_over_x']:.2f})")
            else:
                cells.append(f"{r['fit_s']:.3g}")
        k = growth_exponent([r["n"] for r in rs], [r["fit_s"] for r in rs])
        # above 1e5 rows the fixed costs (imports, compiled-kernel loading) are small
        big = [r for r in rs if r["n"] >= 10**5]
        k5 = growth_exponent([r["n"] for r in big], [r["fit_s"] for r in big])
        fig_data[name] = ([r["n"] for r in rs], [r["fit_s"] for r in rs])
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {k:.2f} | {k5:.2f} |")
    table = "\n".join(lines)
    print(table)
    (out / "growth.md").write_text(table + "\n")
    _plot(fig_data, out / "scale-growth.png")


def _plot(fig_data, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for name, (ns, ts) in fig_data.items():
        if ns:
            ax.loglog(ns, ts, marker="o", label=name)
    ax.set_xlabel("N (training rows)")
    ax.set_ylabel("fit time (s)")
    ax.set_title("birank fit time against N (sparse, 1000 features, 20 nnz/row)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


# --------------------------------------------------------------------------- big
#: the big runs cap the iterative solvers (CPU shared by many processes here)
BIG_SETTINGS = {
    "RankSVM": {"max_iter": 10},
    "WeightedSVM": {"max_iter": 5},
    "PrunedRankSVM": {"max_iter": 20},
    "BBR": {"max_iter": 20},
    "LCBR": {"max_iter": 20},
}


def cmd_big(opts):
    """All estimators in this process on one generated matrix; peak RSS reset before each fit."""
    import warnings

    from birank.datasets import make_sparse_bipartite
    from birank.metrics import roc_auc

    n, d, nnz = BIG[opts.dataset]
    names = opts.estimators or ["ActiveRankSVM", "CombinedRanking", "LCBR", "BBR",
                                "WeightedSVM", "RankSVM"]
    out = Path(opts.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"big-{opts.dataset}-{opts.dtype}.json"
    # rows of estimators not re-run this time are kept
    rows = [r for r in (json.loads(path.read_text()) if path.exists() else [])
            if r.get("estimator") not in names]
    t0 = time.perf_counter()
    X, y, _ = make_sparse_bipartite(n + TEST_ROWS, n_features=d, nnz_per_row=nnz, random_state=0)
    if opts.dtype == "float32":
        X.data = X.data.astype(np.float32)
    gen_s = time.perf_counter() - t0
    Xtr, ytr, Xte, yte = _split_views(X, y, n)
    float(Xtr.data.sum())
    xb = _nbytes(Xtr)
    print(json.dumps({"dataset": opts.dataset, "gen_s": gen_s, "x_bytes": xb}), flush=True)
    for name in names:
        est = estimator(name, n).set_params(**BIG_SETTINGS.get(name, {}))
        rss0 = _status()["VmRSS"]
        _reset_peak()
        t1 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(Xtr, ytr)
        fit_s = time.perf_counter() - t1
        extra = max(0, _status()["VmHWM"] - rss0)
        auc = roc_auc(yte, est.decision_function(Xte))
        r = {"estimator": name, "params": {k: v for k, v in est.get_params().items()
                                           if k in ("C", "budget", "n_pairs", "n_iter",
                                                    "max_iter", "tol", "solver", "radius")},
             "n": n, "d": d, "nnz_per_row": nnz, "dtype": opts.dtype, "gen_s": gen_s,
             "fit_s": fit_s, "x_bytes": xb, "rss_before": rss0, "extra_bytes": int(extra),
             "peak_over_x": (xb + extra) / xb, "test_auc": float(auc)}
        rows.append(r)
        path.write_text(json.dumps(rows, indent=1))
        print(json.dumps(r), flush=True)
        del est


# -------------------------------------------------------------------------- dask
def cmd_dask(opts):
    import dask.array as da
    import distributed

    from birank import BBR, LCBR
    from birank import distributed as bd
    from birank.datasets import make_sparse_bipartite
    from birank.metrics import roc_auc

    n = int(float(opts.n))
    X, y, _ = make_sparse_bipartite(n, n_features=1000, nnz_per_row=20, random_state=0)
    rows = max(1, n // 8)
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                       protocol="tcp://", host="127.0.0.1",
                                       dashboard_address=":0")
    client = distributed.Client(cluster)
    Xd = da.from_array(X, chunks=(rows, X.shape[1]), asarray=False).persist()
    yd = da.from_array(y, chunks=rows).persist()
    s = np.asarray(X @ np.ones(X.shape[1]))
    sd = da.from_array(s, chunks=rows).persist()
    cases = [
        ("BBR eigh", lambda: BBR(solver="eigh").fit(X, y),
         lambda: bd.fit(BBR(solver="eigh"), Xd, yd)),
        ("BBR cg", lambda: BBR(solver="cg", max_iter=50).fit(X, y),
         lambda: bd.fit(BBR(solver="cg", max_iter=50), Xd, yd)),
        ("LCBR S=1e5 eigh", lambda: LCBR(n_pairs=10**5, solver="eigh", random_state=0).fit(X, y),
         lambda: bd.fit(LCBR(n_pairs=10**5, solver="eigh", random_state=0), Xd, yd)),
        ("roc_auc", lambda: roc_auc(y, s), lambda: bd.roc_auc(yd, sd)),
    ]
    results = []
    for label, mem, dsk in cases:
        t = {}
        for kind, f in (("memory", mem), ("dask", dsk)):
            times = []
            for _ in range(opts.repeat):
                t0 = time.perf_counter()
                f()
                times.append(time.perf_counter() - t0)
            t[kind] = float(np.median(times))
        results.append({"case": label, "n": n, "memory_s": t["memory"], "dask_s": t["dask"],
                        "ratio": t["dask"] / t["memory"]})
        print(json.dumps(results[-1]), flush=True)
    client.close()
    cluster.close()
    out = Path(opts.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "dask.json").write_text(json.dumps(results, indent=1))


def cmd_table(opts):
    """Rebuild the growth table from the JSON lines of growth logs (``--logs``)."""
    rows = {}
    for log in opts.logs:
        for line in Path(log).read_text().splitlines():
            if line.startswith("{"):
                r = json.loads(line)
                rows[(r["estimator"], r["n"])] = r
    rows = list(rows.values())
    ns = sorted({r["n"] for r in rows})
    names = list(dict.fromkeys(r["estimator"] for r in rows))
    rows += [run_auc(n) for n in ns]
    growth_table(rows, names, ns, Path(opts.out))


def cmd_report(opts):
    """docs/results/scale.md from the JSON files of the other modes."""
    out = Path(opts.out)
    lines = ["# Scale: one machine, big data; Dask against in-memory", "",
             "Produced by `benchmarks/bench_scale.py` (commands below), on a 2-core machine",
             "shared with other jobs (load average above 10 during the runs: times are",
             "pessimistic, compare ratios within a table). Memory: `extra` is the peak",
             "resident memory of the fit above the resident memory just before it (which",
             "includes X); `peak/X` = (size of X + extra) / size of X, the goal is < 2.",
             "Size of X = data + indices + indptr of the training rows. Test AUC on",
             f"{TEST_ROWS:,} held-out rows of the same planted ranker.", ""]
    for ds in BIG:
        for dtype in ("float32", "float64"):
            path = out / f"big-{ds}-{dtype}.json"
            if not path.exists():
                continue
            n, d, nnz = BIG[ds]
            lines += [f"## {ds}: {n:,} rows, {d:,} features, {nnz} non-zeros a row, {dtype}",
                      "", f"`python benchmarks/bench_scale.py big --dataset {ds} --dtype {dtype}`",
                      "", "| estimator | settings | fit s | size of X GB | extra GB | peak/X "
                      "| test AUC |", "|---|---|---:|---:|---:|---:|---:|"]
            for r in json.loads(path.read_text()):
                if "fit_s" not in r:
                    continue
                lines.append(f"| {r['estimator']} | {r.get('params', '')} | {r['fit_s']:.1f} | "
                             f"{r['x_bytes'] / 1e9:.2f} | {r['extra_bytes'] / 1e9:.2f} | "
                             f"{r['peak_over_x']:.2f} | {r['test_auc']:.4f} |")
            lines.append("")
    g = out / "growth.md"
    if g.exists():
        lines += ["## Growth with N", "",
                  "`python benchmarks/bench_scale.py growth --max-n 1e6`, then",
                  "`... growth --max-n 1e6 --estimators BBR CombinedRanking CBR-diag OAM AdaOAM`",
                  "(after the CombinedRanking copy fix; AdaOAM stopped at 1e6), merged by",
                  "`... table --logs docs/results/scale/growth.log docs/results/scale/growth2.log`",
                  "(sparse, 1000 features,",
                  "20 non-zeros a row, float32; one subprocess per fit; cell: fit seconds",
                  "(peak/X)); exponent = slope of log time on log N. Plot:",
                  "[scale/scale-growth.png](scale/scale-growth.png).", "",
                  g.read_text(), ""]
    dk = out / "dask.json"
    if dk.exists():
        lines += ["## Dask (LocalCluster, 2 workers, threads) against in-memory", "",
                  "`python benchmarks/bench_scale.py dask --n 1e6` (median of 3)", "",
                  "| case | N | in-memory s | Dask s | Dask / memory |", "|---|---:|---:|---:|---:|"]
        for r in json.loads(dk.read_text()):
            lines.append(f"| {r['case']} | {r['n']:,} | {r['memory_s']:.3f} | {r['dask_s']:.3f} | "
                         f"{r['ratio']:.2f} |")
        lines.append("")
    target = Path(opts.target)  # (the report is written there; --out is only read)
    extra = out / "notes.md"
    if extra.exists():
        lines += [extra.read_text()]
    target.write_text("\n".join(lines) + "\n")
    print(target.read_text())


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "_one":
        name, n, d, nnz, dtype, test_rows = argv[1:7]
        print(json.dumps(run_one(name, int(n), int(d), int(nnz), dtype, int(test_rows))))
        return
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("mode", choices=["growth", "big", "dask", "report", "table"])
    p.add_argument("--max-n", default="1e6")
    p.add_argument("--quick", action="store_true", help="growth up to N=1e5 only")
    p.add_argument("--ns", nargs="*", help="growth: measure only these N (e.g. 1e7), keep "
                   "the other rows of growth.json")
    p.add_argument("--dataset", choices=sorted(BIG), default="url")
    p.add_argument("--dtype", choices=["float64", "float32"], default="float32")
    p.add_argument("--estimators", nargs="*")
    p.add_argument("--n", default="1e6")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--logs", nargs="*", default=[], help="table: growth logs to merge")
    p.add_argument("--out", default=str(HERE.parent / "docs" / "results" / "scale"),
                   help="folder of the JSON results (written by growth/big/dask, read by "
                        "report)")
    p.add_argument("--target", default=str(HERE.parent / "docs" / "results" / "scale.md"),
                   help="report: the markdown file written")
    opts = p.parse_args(argv)
    if opts.quick:
        opts.max_n = "1e5"
    {"growth": cmd_growth, "big": cmd_big, "dask": cmd_dask,
     "report": cmd_report, "table": cmd_table}[opts.mode](opts)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
