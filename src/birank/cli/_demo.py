"""``birank demo``: three generated problems that show what birank is for -> table + PNG.

1. Imbalanced binary data (0.2% positives, 300,000 training rows): fit seconds
   against test AUC of the exact all-pairs RankSVM and the active-sampling
   ASRankSVM next to scikit-learn's point-wise LinearSVC and LogisticRegression,
   with the Bayes-optimal AUC of the generator marked (no ranker can beat it).
   The caption is computed from the measurements; on this generator the
   point-wise losses are well specified and birank is not ahead of them.
2. Graded labels in queries whose overall level differs: RankSVM with per-query
   pairs against a point-wise regression (scikit-learn's Ridge) on NDCG@10.
3. A stream: online AUC maximizers learn chunk by chunk in bounded memory;
   test AUC after each chunk, next to a batch LinearSVC fitted on every row.

Each method runs on the label type it is for; axes start at chance (AUC 0.5) or
0 (NDCG), the references are drawn grey and hatched or dashed.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path


def register(subparsers):
    p = subparsers.add_parser(
        "demo", help="what birank is for, on three generated problems (under a minute)",
        description="Three generated problems: imbalanced binary data (exact and active "
                    "RankSVM vs scikit-learn's LinearSVC and LogisticRegression, fit time "
                    "and AUC), graded labels in queries (RankSVM with per-query pairs vs "
                    "point-wise Ridge) and a stream (online AUC maximizers). Prints a table; "
                    "writes results.md, results.json and comparison.png to OUTPUT.")
    p.add_argument("--output", default="birank_demo",
                   help="folder for the table and PNG (default: birank_demo)")
    p.add_argument("--seed", type=int, default=0, help="data and model seed (default: 0)")
    p.add_argument("--scale", type=float, default=1.0,
                   help="fraction of the default data sizes, for a quick look (default: 1)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(func=run)


def _say(args, text):
    if not args.quiet:
        print(text, file=sys.stderr, flush=True)


def _timed(fit):
    t0 = time.perf_counter()
    fit()
    return time.perf_counter() - t0


def imbalanced(args):
    """Panel 1 rows: test AUC and fit seconds on a larger 0.2%-positive sparse set.

    Every method is fitted once at its default ``C`` on the same rows; the
    exact RankSVM uses all positive-negative pairs without forming them.
    """
    from sklearn.linear_model import LogisticRegression
    from sklearn.svm import LinearSVC

    from .._registry import make_model
    from ..metrics import roc_auc

    n = max(20_000, int(300_000 * args.scale))
    X, y, w_true = _sparse(n + n // 4, args.seed)
    Xt, yt = X[n:], y[n:]
    X, y = X[:n], y[:n]
    rows = []
    bayes = roc_auc(yt, Xt @ w_true)
    methods = [("ranksvm", "pairwise (birank)", make_model("ranksvm")),
               ("active", "pairwise (birank)", make_model("active", random_state=args.seed)),
               ("LinearSVC", "reference (scikit-learn)",
                LinearSVC(C=1.0, random_state=args.seed)),
               ("LogisticRegression", "reference (scikit-learn)",
                LogisticRegression(C=1.0, max_iter=1000))]
    # compile (or load from numba's cache) the kernels on a small slice first, so that the
    # timings below measure fitting, not a first run's one-time compilation
    import warnings

    import numpy as np

    few = np.concatenate((np.flatnonzero(y == 1)[:20], np.flatnonzero(y != 1)[:200]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _, group, est in methods:
            if not group.startswith("reference"):
                est.fit(X[few], y[few])
    for name, group, est in methods:
        seconds = _timed(lambda: est.fit(X, y))
        auc = roc_auc(yt, est.decision_function(Xt))
        rows.append({"panel": "imbalanced", "method": name, "group": group, "metric": "AUC",
                     "value": auc, "fit_seconds": seconds})
        _say(args, f"  imbalanced  {name:<18} AUC {auc:.4f}  {seconds:6.2f}s")
    return rows, bayes, X.shape


def _sparse(n, seed):
    from ..datasets import make_sparse_bipartite

    return make_sparse_bipartite(n, 300, 15, pos_fraction=0.002, class_sep=1.0,
                                 random_state=seed)


def _verdict(rows):
    """Caption for panel 1 from the measured rows (never a claim the numbers do not make)."""
    best = max(r["value"] for r in rows)
    # within 0.005 AUC of the best counts as "as good": the test set has few positives
    good = [r for r in rows if r["value"] >= best - 0.005]
    ours = [r for r in good if not r["group"].startswith("reference")]
    refs = [r for r in good if r["group"].startswith("reference")]
    if not ours:
        return ("birank is not ahead here: no birank method is within 0.005\nof the best "
                "AUC. Dashed: best possible AUC.")
    a = min(ours, key=lambda r: r["fit_seconds"])
    if not refs:
        return (f"Only birank ({a['method']}) is within 0.005 of the best AUC.\n"
                "Dashed: best possible AUC.")
    b = min(refs, key=lambda r: r["fit_seconds"])
    ratio = b["fit_seconds"] / max(a["fit_seconds"], 1e-9)
    pair = (f"{a['method']} {a['fit_seconds']:.2f}s vs {b['method']} "
            f"{b['fit_seconds']:.2f}s")
    if ratio > 1.2:
        head = f"birank ahead: {pair} at the same AUC (+-0.005)."
    else:
        head = (f"birank is not ahead here: {pair}\nat the same AUC (+-0.005); the point-"
                "wise losses fit this\ngenerator well.")
    return head + " Dashed: best possible AUC."


def _scatter(ax, rows, bayes):
    """Fit seconds (from 0) against test AUC (from chance); references are grey squares."""
    for k, r in enumerate(sorted(rows, key=lambda r: r["fit_seconds"])):
        ref = r["group"].startswith("reference")
        ax.scatter(r["fit_seconds"], r["value"], color=_COLORS[r["group"]],
                   marker="s" if ref else "o", edgecolor="0.2", zorder=3)
        ax.annotate(r["method"] + (" (ref.)" if ref else ""), (r["fit_seconds"], r["value"]),
                    xytext=(0, 8 if k % 2 == 0 else -14), textcoords="offset points",
                    fontsize=7, ha="center")
    ax.axhline(bayes, color="k", ls="--", lw=1)
    ax.set_ylim(0.5, 1.0)
    ax.set_xlim(0, 1.15 * max(r["fit_seconds"] for r in rows) + 0.05)
    ax.set_xlabel("fit seconds (wall time, kernels compiled)")
    ax.set_ylabel("test AUC (0.5 = chance)")


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
        seconds = _timed(lambda: est.fit(X[train], y[train], **kw))
        s = est.decision_function(X[~train]) if hasattr(est, "decision_function") \
            else est.predict(X[~train])
        val = ndcg_at_k(y[~train], s, g[~train], k=10)
        rows.append({"panel": "graded", "method": name, "group": group, "metric": "NDCG@10",
                     "value": val, "fit_seconds": seconds})
        _say(args, f"  graded      {name:<30} NDCG@10 {val:.4f}  {seconds:6.2f}s")
    return rows


def stream(args):
    """Panel 3: test AUC of online learners after each chunk of a stream."""
    from sklearn.svm import LinearSVC

    from .._registry import make_model
    from ..datasets import make_sparse_bipartite
    from ..metrics import roc_auc

    n = max(6000, int(30_000 * args.scale))
    X, y, _ = make_sparse_bipartite(n + n // 5, 500, 20, pos_fraction=0.1, class_sep=1.5,
                                    random_state=args.seed + 1)
    Xt, yt = X[n:], y[n:]
    X, y = X[:n], y[:n]
    chunk = n // 15
    curves, rows = {}, []
    for name in ("oam", "opauc", "spam"):
        # a throwaway learner compiles (or loads) the kernels first, as in panel 1
        make_model(name).partial_fit(X[:chunk], y[:chunk], classes=[0, 1])
        est = make_model(name, random_state=args.seed) if "random_state" in \
            make_model(name).get_params() else make_model(name)
        points, t0 = [], time.perf_counter()
        for start in range(0, X.shape[0], chunk):
            est.partial_fit(X[start:start + chunk], y[start:start + chunk], classes=[0, 1])
            points.append((start + chunk, roc_auc(yt, est.decision_function(Xt))))
        seconds = time.perf_counter() - t0
        curves[name] = points
        rows.append({"panel": "stream", "method": name, "group": "online (birank)",
                     "metric": "AUC", "value": points[-1][1], "fit_seconds": seconds})
        _say(args, f"  stream      {name:<10} AUC {points[-1][1]:.4f}  {seconds:6.2f}s")
    ref = LinearSVC(C=1.0, random_state=args.seed)
    seconds = _timed(lambda: ref.fit(X, y))
    auc = roc_auc(yt, ref.decision_function(Xt))
    rows.append({"panel": "stream", "method": "LinearSVC (all rows)",
                 "group": "reference (scikit-learn)", "metric": "AUC", "value": auc,
                 "fit_seconds": seconds})
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


def run(args):
    from ..experiments._report import (markdown_table, new_figure, run_metadata, save_figure,
                                       write_json, write_text)

    t_start = time.perf_counter()
    _say(args, "birank demo: three generated problems (fit seconds exclude the one-time "
               "kernel compilation of a first run)")
    rows1, bayes, shape1 = imbalanced(args)
    rows2 = graded(args)
    rows3, curves, ref_auc = stream(args)
    X_rows = max(p[-1][0] for p in curves.values())
    n_test_q = max(20, int(160 * args.scale)) // 2
    rows = rows1 + rows2 + rows3
    out = Path(args.output)
    table = markdown_table(
        ["panel", "method", "kind", "metric", "value", "fit seconds"],
        [[r["panel"], r["method"], r["group"], r["metric"], f"{r['value']:.4f}",
          f"{r['fit_seconds']:.3f}"] for r in rows],
        align=["l", "l", "l", "l", "r", "r"])
    print(table)
    note = (f"\nBayes-optimal AUC of the imbalanced set: {bayes:.4f} (the generator's planted "
            "scorer; no ranker can do better in expectation).\n")
    print(note)
    write_text(out / "results.md", "# birank demo\n\n" + table + "\n" + note)
    write_json(out / "results.json", {"results": rows, "bayes_auc_imbalanced": bayes,
                                      "meta": run_metadata()})
    fig, axes = new_figure(3, ncols=3, size=3.6)
    ax1, ax2, ax3 = axes[:3]
    _scatter(ax1, rows1, bayes)
    ax1.set_title(f"1. Imbalanced (0.2% positives), {shape1[0]} x {shape1[1]}\nsparse: "
                  "fit time against test AUC", fontsize=9)
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
        _verdict(rows1),
        "Per-query pairs ignore each query's level;\na point-wise regression has to fit it.",
        "Each chunk is seen once; the dashed line is\na batch fit on every row at once."]
    for ax, cap in zip((ax1, ax2, ax3), captions):
        ax.text(0.0, -0.30, cap, transform=ax.transAxes, fontsize=7, va="top", color="0.25")
    from matplotlib.patches import Patch

    shown = {r["group"] for r in rows} - {"online (birank)"}
    fig.legend(handles=[Patch(color=c, label=k) for k, c in _COLORS.items() if k in shown],
               loc="lower center", ncol=3, fontsize=7, frameon=False)
    fig.suptitle("birank demo: what pairwise and online AUC learners are for", fontsize=10)
    png = save_figure(fig, out / "comparison.png")
    _say(args, f"wrote {out / 'results.md'} and {png} in {time.perf_counter() - t_start:.0f}s")
    return 0
