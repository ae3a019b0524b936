"""``birank demo``: every available ranker on a bundled dataset -> table + PNG."""

from __future__ import annotations

import sys
import time
from pathlib import Path


def register(subparsers):
    p = subparsers.add_parser(
        "demo", help="benchmark every ranker on a bundled dataset",
        description="Fit every available ranker (and scikit-learn's LinearSVC as the "
                    "point-wise reference) on a bundled dataset; print test AUC and fit "
                    "seconds; write results.md, results.json and comparison.png.")
    p.add_argument("--dataset", default="a9a", choices=["a9a", "german.numer", "heart",
                                                       "ionosphere", "diabetes"],
                   help="bundled dataset (a9a uses its official test split; the others a "
                        "stratified 70/30 split)")
    p.add_argument("--models", nargs="+", default=None, help="subset of model names")
    p.add_argument("--output", default="birank_demo", help="folder for the table and PNG")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=run)


def load_split(name, seed):
    from .. import datasets

    if name == "a9a":
        X, y = datasets.load_a9a(subset="train")
        Xt, yt = datasets.load_a9a(subset="test")
        return X, y, Xt, yt
    loader = getattr(datasets, "load_" + name.replace(".", "_"))
    X, y = loader()
    return _split(X, y, seed)


def _split(X, y, seed):
    from sklearn.model_selection import train_test_split

    X, Xt, y, yt = train_test_split(X, y, test_size=0.3, stratify=y, random_state=seed)
    return X, y, Xt, yt


def run(args):
    from .._registry import MODELS, available_models, make_model
    from ..experiments._report import (markdown_table, new_figure, run_metadata, save_figure,
                                       write_json, write_text)
    from ..metrics import roc_auc

    names = args.models or available_models()
    for name in names:
        if name not in MODELS:
            from . import UserError

            raise UserError(f"unknown model {name!r}; choose from {', '.join(MODELS)}")
    X, y, Xt, yt = load_split(args.dataset, args.seed)
    print(f"birank demo: {args.dataset}, train {X.shape[0]} x {X.shape[1]}, test "
          f"{Xt.shape[0]} rows", file=sys.stderr)

    rows = []

    def bench(label, description, est):
        est.fit(X, y)  # first fit compiles the numba kernels (cached on disk afterwards)
        t0 = time.perf_counter()
        est.fit(X, y)
        seconds = time.perf_counter() - t0
        scores = est.decision_function(Xt)
        auc = roc_auc(yt, scores)
        rows.append({"method": label, "test_auc": auc, "fit_seconds": seconds,
                     "description": description})
        print(f"  {label:<14} AUC {auc:.4f}  {seconds:7.3f}s", file=sys.stderr)

    from sklearn.svm import LinearSVC

    bench("LinearSVC", "scikit-learn point-wise linear SVM (reference)",
          LinearSVC(C=1.0, fit_intercept=True))
    for name in names:
        est = make_model(name)
        if "random_state" in est.get_params():
            est.set_params(random_state=args.seed)
        bench(name, MODELS[name][2], est)

    out = Path(args.output)
    table = markdown_table(["method", "test AUC", "fit seconds", "what"],
                           [[r["method"], f"{r['test_auc']:.4f}", f"{r['fit_seconds']:.3f}",
                             r["description"]] for r in rows], align=["l", "r", "r", "l"])
    print(table)
    write_text(out / "results.md", f"# birank demo on {args.dataset}\n\n" + table)
    write_json(out / "results.json", {"dataset": args.dataset, "results": rows,
                                      "meta": run_metadata()})
    fig, (ax1, ax2) = new_figure(2, ncols=2, size=3.6)
    labels = [r["method"] for r in rows]
    aucs = [r["test_auc"] for r in rows]
    ax1.barh(labels, aucs, color="tab:blue")
    lo = min(aucs)
    ax1.set_xlim(max(0.0, lo - 0.02), min(1.0, max(aucs) + 0.012))
    for k, v in enumerate(aucs):
        ax1.text(v, k, f" {v:.4f}", va="center", fontsize=8)
    ax1.set_xlabel("test AUC")
    ax1.invert_yaxis()
    secs = [r["fit_seconds"] for r in rows]
    ax2.barh(labels, secs, color="tab:orange")
    for k, v in enumerate(secs):
        ax2.text(v, k, f" {v:.3g}s", va="center", fontsize=8)
    ax2.set_xscale("log")
    ax2.set_xlabel("fit seconds (log)")
    ax2.invert_yaxis()
    ax2.set_yticklabels([])
    fig.suptitle(f"birank demo: {args.dataset}")
    png = save_figure(fig, out / "comparison.png")
    print(f"wrote {out / 'results.md'} and {png}", file=sys.stderr)
    return 0
