"""The benchmarks page's figures, drawn at build time from the parsed latest runs.

Each function takes what ``generate.py`` already parsed for the page's tables (the
regex matches of the latest run of a ``benchmarks/results/<script>.txt``) and writes
one PNG. An empty or incomplete input raises ``ValueError`` saying what is missing:
the page reports it as a build warning naming the file (fatal under ``-W``) instead
of drawing an empty figure.
"""

from __future__ import annotations

import numpy as np


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")  # build time: never a window, whatever MPLBACKEND says
    import matplotlib.pyplot as plt

    return plt


def _save(fig, path):
    # no "Software" stamp: the same results give the same bytes
    fig.savefig(path, dpi=110, bbox_inches="tight", metadata={"Software": None})
    fig.clf()
    import matplotlib.pyplot as plt

    plt.close(fig)


def references(latest, path):
    """birank / tool wall time, one horizontal bar per comparison (``_latest_references``)."""
    if not latest:
        raise ValueError("no comparison line")
    plt = _pyplot()
    names = list(latest)
    ratios = np.array([float(latest[n][1]["r"]) for n in names])
    dates = sorted({latest[n][0][:10] for n in names})
    fig, ax = plt.subplots(figsize=(9, 0.42 * len(names) + 1.4))
    y = np.arange(len(names))[::-1]  # the table's first row on top
    ax.barh(y, ratios, color="#3b75af", height=0.6)
    ax.set_xscale("log")
    low = min(ratios.min(), 1.0) / 2.5
    ax.set_xlim(low, max(ratios.max(), 1.0) * 6.0)  # room for the labels
    ticks = [t for t in (0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10) if low <= t <= ax.get_xlim()[1]]
    ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
    ax.minorticks_off()
    ax.axvline(1.0, color="black", lw=1)
    ax.text(1.0, len(names) - 0.35, " tool's time", va="bottom", ha="left", fontsize=9)
    # beside each ratio, what each side reached: a time ratio means little without it
    # (an objective far below the tool's, e.g. a tool stopped at its pass cap)
    for yi, r, name in zip(y, ratios, names):
        m = latest[name][1]
        b, o = float(m["ob"]), float(m["ot"])
        reached = (f"objective {b / o:.4g}x" if m["kind"] == "objective"
                   else f"AUC {b:.4f} vs {o:.4f}")
        ax.text(r * 1.06, yi, f"{r:.2f}x  ({reached})", va="center", fontsize=8,
                bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.5})
    ax.set_yticks(y, names, fontsize=8)
    ax.set_ylim(-0.6, len(names) + 0.2)
    ax.set_xlabel("birank's wall time / the tool's (log scale); in brackets, birank's "
                  "objective / the tool's (below 1: more accurate)")
    ax.set_title(f"birank against the C/C++ tools: lower is better (runs of {', '.join(dates)})",
                 fontsize=10)
    _save(fig, path)


def scale(ranksvm_sizes, active_sizes, path):
    """Fit seconds against rows, log-log, one panel per data set (each run's own data:
    the two benchmarks generate different features): RankSVM and LinearSVC
    (``_ranksvm``'s sizes) with an N log N guide through RankSVM's first point;
    ActiveRankSVM beside the exact RankSVM of the same run (``_active``'s sizes)."""
    if len(ranksvm_sizes) < 2 or len(active_sizes) < 2:
        raise ValueError("fewer than two sizes "
                         f"(RankSVM: {len(ranksvm_sizes)}, ActiveRankSVM: {len(active_sizes)})")
    plt = _pyplot()
    n = np.array([float(m["n"]) for m in ranksvm_sizes])
    n_active = np.array([float(m["n"]) for m in active_sizes])
    fig, (left, right) = plt.subplots(1, 2, figsize=(9.6, 4.0), sharey=True)
    for ax, x, sizes, lines in (
            (left, n, ranksvm_sizes, (("RankSVM (exact)", "rk", "o-"),
                                      ("LinearSVC", "svc", "s-"))),
            (right, n_active, active_sizes, (("RankSVM (exact)", "rk", "o-"),
                                             ("ActiveRankSVM", "s", "^-")))):
        for label, key, style in lines:
            ax.plot(x, [float(m[key]) for m in sizes], style, label=label)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("training rows N")
        ax.grid(True, which="major", alpha=0.3)
    grid = np.geomspace(n.min(), n.max(), 50)
    first = float(ranksvm_sizes[0]["rk"])
    left.plot(grid, first * grid * np.log(grid) / (n[0] * np.log(n[0])), ":", color="gray",
              label="∝ N log N")
    left.set_ylabel("fit seconds (wall)")
    left.set_title("RankSVM and LinearSVC (bench_ranksvm)", fontsize=10)
    right.set_title("ActiveRankSVM and RankSVM (bench_active)", fontsize=10)
    for ax in (left, right):
        ax.legend(fontsize=8)
    _save(fig, path)


def metrics(auc, path):
    """roc_auc against scikit-learn's roc_auc_score: seconds per N, unweighted and weighted
    (``_metrics``'s lines), grouped bars, log y."""
    groups = []
    for m in auc:
        rows = f"N = $10^{{{np.log10(float(m['n'])):.0f}}}$"
        groups.append((rows, float(m["b"]), float(m["s"])))
        if m["wb"]:
            groups.append((rows + "\nweighted", float(m["wb"]), float(m["ws"])))
    if not groups:
        raise ValueError("no roc_auc line")
    plt = _pyplot()
    x = np.arange(len(groups))
    width = 0.38
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    for offset, i, label, color in ((-width / 2, 1, "birank roc_auc", "#3b75af"),
                                    (width / 2, 2, "sklearn roc_auc_score", "#e1812c")):
        values = [g[i] for g in groups]
        ax.bar(x + offset, values, width, label=label, color=color)
        for xi, v in zip(x + offset, values):
            ax.text(xi, v * 1.08, f"{v:.3g} s", ha="center", va="bottom", fontsize=8)
    ax.set_yscale("log")
    top = max(max(g[1], g[2]) for g in groups)
    bottom = min(min(g[1], g[2]) for g in groups)
    ax.set_ylim(bottom / 3, top * 4)
    ax.set_xticks(x, [g[0] for g in groups], fontsize=9)
    ax.set_ylabel("seconds (wall, log scale)")
    ax.set_title("roc_auc against scikit-learn: lower is better", fontsize=10)
    ax.legend(fontsize=8, loc="upper left")
    _save(fig, path)
