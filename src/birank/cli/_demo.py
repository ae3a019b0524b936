"""``birank demo``: three problems that show what birank is for -> table + PNG.

1. The bundled a9a (32,561 x 123 sparse, train/test split as published): fit
   CPU seconds of the exact all-pairs RankSVM and the active-sampling
   ASRankSVM next to scikit-learn's point-wise LinearSVC and LogisticRegression
   (RankSVM and the references at the same C=1, ASRankSVM at the paper's
   defaults), test AUC beside each bar. The caption is computed from the
   measurements: which birank method reaches the fastest reference's AUC
   (+-0.005) in how much of its time, and which method has the best AUC.
   (On the generated imbalanced sets of ``make_sparse_bipartite`` the
   point-wise losses are well specified: up to 10^6 rows birank is not ahead
   of them there, so they are not the demo.)
2. Graded labels in queries whose overall level differs: RankSVM with per-query
   pairs against a point-wise regression (scikit-learn's Ridge) on NDCG@10.
3. A stream: online AUC maximizers learn chunk by chunk in bounded memory;
   test AUC after each chunk, next to a batch LinearSVC fitted on every row.

Each method runs on the label type it is for; axes start at chance (AUC 0.5) or
0 (NDCG), the references are drawn grey and hatched or dashed. Every fit runs
on one thread (BLAS and OpenMP limited), so the CPU seconds compare equal
resources and no method is charged for another's idle worker threads.
"""

from __future__ import annotations

import math
import os
import sys
import time
from pathlib import Path


def register(subparsers):
    p = subparsers.add_parser(
        "demo", help="what birank is for, on three problems (under a minute)",
        description="Three problems: the bundled a9a (exact and active RankSVM vs "
                    "scikit-learn's LinearSVC and LogisticRegression, fit CPU time and "
                    "test AUC), generated graded labels in queries (RankSVM with per-query pairs vs "
                    "point-wise Ridge) and a stream (online AUC maximizers). Prints a table; "
                    "writes results.md, results.json and comparison.png to OUTPUT.")
    p.add_argument("--output", default="birank_demo",
                   help="folder for the table and PNG (default: birank_demo)")
    p.add_argument("--force", action="store_true",
                   help="overwrite results.md, results.json and comparison.png in OUTPUT")
    p.add_argument("--seed", type=int, default=0, help="data and model seed (default: 0)")
    p.add_argument("--scale", type=float, default=1.0,
                   help="fraction of the generated data sizes, for a quick look; below 1 the "
                        "a9a fits are timed once, not five times (default: 1)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(func=run)


def _say(args, text):
    if not args.quiet:
        print(text, file=sys.stderr, flush=True)


def _timed(fit):
    """(CPU seconds of this process, wall seconds) of one call of ``fit``."""
    c0, t0 = time.process_time(), time.perf_counter()
    fit()
    return time.process_time() - c0, time.perf_counter() - t0


def a9a(args):
    """Panel 1 rows: fit CPU seconds and test AUC on the bundled a9a (train / test split).

    Same rows for every method; the exact RankSVM and the scikit-learn
    references at the same ``C=1``, ActiveRankSVM at its documented (paper)
    defaults. Each method is fitted once untimed (kernel compilation, first-call
    costs), then ``repeats`` rounds fit every method once in turn (so a burst of
    load on a shared machine hits all of them alike); the median is reported.
    """
    import statistics
    import warnings

    from sklearn.linear_model import LogisticRegression
    from sklearn.svm import LinearSVC

    from .._registry import make_model
    from ..datasets import load_a9a
    from ..metrics import roc_auc

    X, y = load_a9a(subset="train")
    Xt, yt = load_a9a(subset="test")
    repeats = 5 if args.scale >= 1 else 1
    methods = [("ranksvm", "pairwise (birank)", lambda: make_model("ranksvm")),
               ("active", "pairwise (birank)",
                lambda: make_model("active", random_state=args.seed)),
               ("LinearSVC", "reference (scikit-learn)",
                lambda: LinearSVC(C=1.0, random_state=args.seed)),
               ("LogisticRegression", "reference (scikit-learn)",
                lambda: LogisticRegression(C=1.0, max_iter=1000))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _, _, make in methods:
            make().fit(X, y)  # untimed: compiles (or loads) the kernels this fit uses
    times = {name: [] for name, _, _ in methods}
    fitted = {}
    for _ in range(repeats):
        for name, _, make in methods:
            est = fitted[name] = make()
            times[name].append(_timed(lambda: est.fit(X, y)))
    rows = []
    for name, group, _ in methods:
        cpu = statistics.median(c for c, _ in times[name])
        wall = statistics.median(w for _, w in times[name])
        auc = roc_auc(yt, fitted[name].decision_function(Xt))
        rows.append({"panel": "a9a", "method": name, "group": group, "metric": "AUC",
                     "value": auc, "fit_seconds": cpu, "wall_seconds": wall,
                     "repeats": repeats})
        _say(args, f"  a9a         {name:<18} AUC {auc:.4f}  {cpu:6.2f}s CPU  {wall:6.2f}s wall")
    return rows, X.shape


def _verdict(rows):
    """Caption for panel 1 from the measured rows (never a claim the numbers do not make)."""
    best = max(rows, key=lambda r: r["value"])
    # within 0.005 AUC of the best counts as "the same AUC": a9a's test set has 16,281
    # rows, and the AUC's standard error on it is about 0.003
    good = [r for r in rows if r["value"] >= best["value"] - 0.005]
    ours = [r for r in good if not r["group"].startswith("reference")]
    refs = [r for r in good if r["group"].startswith("reference")]
    if not ours:
        return "birank is not ahead here: no birank method is within 0.005\nof the best AUC."
    a = min(ours, key=lambda r: r["fit_seconds"])
    if not refs:
        return f"Only birank ({a['method']}) is within 0.005 of the best AUC."
    b = min(refs, key=lambda r: r["fit_seconds"])
    ratio = b["fit_seconds"] / max(a["fit_seconds"], 1e-9)
    pair = (f"{a['method']} {a['fit_seconds']:.2f}s vs {b['method']} "
            f"{b['fit_seconds']:.2f}s")
    if ratio > 1.2:
        head = (f"birank ahead: {pair} CPU\n({1 / ratio:.2f}x the time) to the same AUC "
                f"(+-0.005): {a['value']:.4f} vs {b['value']:.4f}.")
    else:
        head = f"birank is not ahead here: {pair} CPU\nat the same AUC (+-0.005)."
    if best["group"].startswith("reference") and best is not b:
        head += (f"\nBest AUC: {best['method']} {best['value']:.4f} "
                 f"(+{best['value'] - a['value']:.4f}) in {best['fit_seconds']:.2f}s.")
    elif best["group"].startswith("reference") and best["value"] > a["value"]:
        head += f"\n{best['method']} has the best AUC (+{best['value'] - a['value']:.4f})."
    return head


def _time_bars(ax, rows):
    """Fit CPU seconds from 0, birank first, each group sorted by time; test AUC at the
    bar's end; references grey and hatched, the fastest one's time a dotted line."""
    order = ["pairwise (birank)", "reference (scikit-learn)"]
    rows = sorted(rows, key=lambda r: (order.index(r["group"]), r["fit_seconds"]))
    hi = max(r["fit_seconds"] for r in rows)
    for k, r in enumerate(rows):
        ref = r["group"].startswith("reference")
        ax.barh(k, r["fit_seconds"], color=_COLORS[r["group"]],
                hatch="//" if ref else None, edgecolor="0.3" if ref else None)
        ax.text(r["fit_seconds"], k, f" {r['fit_seconds']:.2f}s, AUC {r['value']:.4f}",
                va="center", fontsize=7, zorder=3,
                bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.5})
    ref_t = min(r["fit_seconds"] for r in rows if r["group"].startswith("reference"))
    ax.axvline(ref_t, color="0.4", ls=":", lw=1, zorder=1)
    ax.set_yticks(range(len(rows)),
                  [r["method"] + (" (ref.)" if r["group"].startswith("reference") else "")
                   for r in rows], fontsize=8)
    ax.set_xlim(0, 2.1 * hi)
    ax.invert_yaxis()
    n = rows[0].get("repeats", 1)
    ax.set_xlabel(f"fit CPU seconds (median of {n})" if n > 1 else "fit CPU seconds")


def graded(args):
    """Panel 2 rows: NDCG@10 on queries with graded labels and query-level shifts."""
    import numpy as np
    from sklearn.linear_model import Ridge

    from .._registry import make_model
    from ..metrics import ndcg_at_k

    rng = np.random.default_rng(args.seed)
    n_q, per_q, d = max(20, int(160 * args.scale)), 25, 15
    w = rng.normal(size=d)
    g = np.repeat(np.arange(n_q), per_q)
    # each query has its own feature offset (a query-level effect, e.g. its length): it
    # moves every document of the query alike, so it says nothing about the order inside
    shift = rng.normal(scale=3.0, size=(n_q, d))[g]
    X = rng.normal(size=(n_q * per_q, d)) + shift
    latent = (X - shift) @ w + 0.5 * rng.normal(size=g.shape[0])
    # grades 0..4 by within-query quantiles: the top 4% get 4, ...
    ranks = np.argsort(np.argsort(latent.reshape(n_q, per_q), axis=1), axis=1).reshape(-1)
    y = np.digitize(ranks / per_q, [0.5, 0.75, 0.9, 0.96]).astype(float)
    train = g < n_q // 2
    rows = []
    methods = [("ranksvm, per-query pairs", "pairwise (birank)", make_model("ranksvm"), True),
               ("ranksvm, pairs across queries", "pairwise (birank)", make_model("ranksvm"),
                False),
               ("Ridge", "reference (scikit-learn)", Ridge(alpha=1.0), False)]
    few = g < 2  # compile (or load) the kernels on two queries first, as in panel 1
    for _, group, est, pairs in methods:
        if not group.startswith("reference"):
            est.fit(X[few], y[few], **({"groups": g[few]} if pairs else {}))
    for name, group, est, pairs in methods:
        kw = {"groups": g[train]} if pairs else {}
        seconds, wall = _timed(lambda: est.fit(X[train], y[train], **kw))
        s = est.decision_function(X[~train]) if hasattr(est, "decision_function") \
            else est.predict(X[~train])
        val = ndcg_at_k(y[~train], s, g[~train], k=10)
        rows.append({"panel": "graded", "method": name, "group": group, "metric": "NDCG@10",
                     "value": val, "fit_seconds": seconds, "wall_seconds": wall})
        _say(args, f"  graded      {name:<30} NDCG@10 {val:.4f}  {seconds:6.2f}s")
    return rows


def stream(args):
    """Panel 3: test AUC of online learners after each chunk of a stream."""
    from sklearn.svm import LinearSVC

    from .._registry import make_model
    from ..datasets import make_sparse_bipartite
    from ..metrics import roc_auc

    n = max(6000, int(30_000 * args.scale))
    X, y, _ = make_sparse_bipartite(n + n // 5, n_features=500, nnz_per_row=20, pos_fraction=0.1,
                                    class_sep=1.5, random_state=args.seed + 1)
    Xt, yt = X[n:], y[n:]
    X, y = X[:n], y[:n]
    chunk = n // 15
    curves, rows = {}, []
    for name in ("oam", "opauc", "spam"):
        # a throwaway learner compiles (or loads) the kernels first, as in panel 1
        make_model(name).partial_fit(X[:chunk], y[:chunk], classes=[0, 1])
        est = make_model(name, random_state=args.seed) if "random_state" in \
            make_model(name).get_params() else make_model(name)
        points, c0, t0 = [], time.process_time(), time.perf_counter()
        for start in range(0, X.shape[0], chunk):
            est.partial_fit(X[start:start + chunk], y[start:start + chunk], classes=[0, 1])
            points.append((start + chunk, roc_auc(yt, est.decision_function(Xt))))
        seconds, wall = time.process_time() - c0, time.perf_counter() - t0
        curves[name] = points
        rows.append({"panel": "stream", "method": name, "group": "online (birank)",
                     "metric": "AUC", "value": points[-1][1], "fit_seconds": seconds,
                     "wall_seconds": wall})
        _say(args, f"  stream      {name:<10} AUC {points[-1][1]:.4f}  {seconds:6.2f}s")
    ref = LinearSVC(C=1.0, random_state=args.seed)
    seconds, wall = _timed(lambda: ref.fit(X, y))
    auc = roc_auc(yt, ref.decision_function(Xt))
    rows.append({"panel": "stream", "method": "LinearSVC (all rows)",
                 "group": "reference (scikit-learn)", "metric": "AUC", "value": auc,
                 "fit_seconds": seconds, "wall_seconds": wall})
    return rows, curves, auc


_COLORS = {"pairwise (birank)": "tab:blue", "point-wise (birank)": "tab:cyan",
           "online (birank)": "tab:orange", "reference (scikit-learn)": "0.6"}


def _bars(ax, rows, lo, hi, xlabel):
    """Horizontal bars grouped by kind (birank first), sorted by value inside a group."""
    order = ["pairwise (birank)", "point-wise (birank)", "online (birank)",
             "reference (scikit-learn)"]
    rows = sorted(rows, key=lambda r: (order.index(r["group"]), -r["value"]))
    labels = [f"{r['method']}  ({r['fit_seconds']:.2g}s)" for r in rows]
    for k, r in enumerate(rows):
        ref = r["group"].startswith("reference")
        ax.barh(k, r["value"] - lo, left=lo, color=_COLORS[r["group"]],
                hatch="//" if ref else None, edgecolor="0.3" if ref else None)
        ax.text(r["value"], k, f" {r['value']:.3f}", va="center", fontsize=8)
    ax.set_yticks(range(len(rows)), labels, fontsize=8)
    ax.set_xlim(lo, hi)
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)


#: what the demo writes into --output
OUTPUT_FILES = ("results.md", "results.json", "comparison.png")


def _check_demo_args(args):
    """--scale and --output refused before the minute of work, not after it."""
    from . import UserError

    if not (math.isfinite(args.scale) and args.scale > 0):
        raise UserError(f"--scale must be a positive number (a fraction of the data sizes); "
                        f"got {args.scale}")
    out = Path(args.output)
    if out.exists() and not out.is_dir():
        raise UserError(f"--output {out} is a file; give a folder for the demo's "
                        f"{', '.join(OUTPUT_FILES)}")
    clashes = [f for f in OUTPUT_FILES if (out / f).exists()]
    if clashes and not args.force:
        raise UserError(f"{out} already holds {', '.join(clashes)}; use --force to overwrite "
                        "them, or --output another folder")
    existing = next(p for p in (out, *out.absolute().parents) if p.exists())
    if not os.access(existing, os.W_OK):
        raise UserError(f"cannot write to {out}: {existing} is not writable")
    from ..experiments._report import check_plotting

    check_plotting("birank demo (its figure comparison.png)")  # not after the work


def run(args):
    from ..experiments._report import (markdown_table, new_figure, run_metadata, save_figure,
                                       write_json, write_text)

    _check_demo_args(args)

    # (imported here so that their BLAS and OpenMP are loaded before the limit below:
    # threadpoolctl limits the thread pools of the libraries already loaded)
    import scipy.linalg  # noqa: F401
    import sklearn.linear_model  # noqa: F401
    import sklearn.svm  # noqa: F401
    from threadpoolctl import threadpool_limits

    t_start = time.perf_counter()
    _say(args, "birank demo: three problems (fit seconds are CPU time on one thread and "
               "exclude the one-time kernel compilation of a first run)")
    # every method on one thread, BLAS and OpenMP included: equal resources, and no
    # worker left spinning by one method's fit is charged to the next one's CPU time
    with threadpool_limits(limits=1):  # BLAS and OpenMP (scikit-learn's loss kernels)
        rows1, shape1 = a9a(args)
        rows2 = graded(args)
        rows3, curves, ref_auc = stream(args)
    X_rows = max(p[-1][0] for p in curves.values())
    n_test_q = max(20, int(160 * args.scale)) // 2
    rows = rows1 + rows2 + rows3
    out = Path(args.output)
    table = markdown_table(
        ["panel", "method", "kind", "metric", "value", "fit CPU s", "fit wall s"],
        [[r["panel"], r["method"], r["group"], r["metric"], f"{r['value']:.4f}",
          f"{r['fit_seconds']:.3f}", f"{r['wall_seconds']:.3f}"] for r in rows],
        align=["l", "l", "l", "l", "r", "r", "r"])
    print(table)
    note = ("\nPanel 1 (a9a): " + _verdict(rows1).replace("\n", " ") + "\n")
    print(note)
    write_text(out / "results.md", "# birank demo\n\n" + table + "\n" + note)
    write_json(out / "results.json", {"results": rows, "meta": run_metadata()})
    fig, axes = new_figure(3, ncols=3, size=3.6)
    ax1, ax2, ax3 = axes[:3]
    _time_bars(ax1, rows1)
    ax1.set_title(f"1. a9a (bundled, {shape1[0]:,} x {shape1[1]} sparse):\n"
                  "fit time, test AUC at each bar", fontsize=9)
    _bars(ax2, rows2, 0.0, 1.0, "test NDCG@10 (0 to 1)")
    ax2.set_title(f"2. Graded labels in {n_test_q} test queries\nwith query-level shifts",
                  fontsize=9)
    for name, pts in curves.items():
        ax3.plot([p[0] for p in pts], [p[1] for p in pts], marker=".", label=name,
                 color=None)
    ax3.axhline(ref_auc, color="0.5", ls="--", lw=1, label="LinearSVC on all rows (ref.)")
    ax3.set_ylim(0.5, 1.0)
    ax3.set_xlabel(f"rows seen (chunks of {X_rows // 15})")
    ax3.set_ylabel("test AUC")
    ax3.legend(fontsize=7, loc="lower right")
    ax3.set_title("3. A stream: online learners,\none pass, bounded memory", fontsize=9)
    captions = [
        _verdict(rows1) + "\nDotted: the fastest reference's time.",
        "Per-query pairs ignore each query's level;\na point-wise regression has to fit it.",
        "Each chunk is seen once; the dashed line is\na batch fit on every row at once."]
    for ax, cap in zip((ax1, ax2, ax3), captions):
        ax.text(0.0, -0.36, cap, transform=ax.transAxes, fontsize=7, va="top", color="0.25")
    from matplotlib.patches import Patch

    shown = {r["group"] for r in rows} - {"online (birank)"}
    fig.legend(handles=[Patch(color=c, label=k) for k, c in _COLORS.items() if k in shown],
               loc="lower center", ncol=3, fontsize=7, frameon=False)
    fig.suptitle("birank demo: what pairwise and online AUC learners are for", fontsize=10)
    png = save_figure(fig, out / "comparison.png")
    _say(args, f"wrote {out / 'results.md'}, {out / 'results.json'} and {png} in "
               f"{time.perf_counter() - t_start:.0f}s")
    return 0
