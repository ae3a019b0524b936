"""Reproduction of Donmez & Carbonell, "Active Sampling for Rank Learning via Optimizing the AUC".

Protocol (section 3.1): per training query an initial labeled set of 1 relevant
and 10 non-relevant random documents; each round every strategy selects
``l = 5`` unlabeled documents per query, they are labeled (an oracle reading
the true labels) and the ranker is retrained on all labeled documents (one
linear RankSVM over the within-query pairs); AUC, MAP and NDCG@10 on the test
queries after every round; 20 rounds; averaged over the folds. Reported: the
curves of Fig. 3 (PNG), the significance ordering of Table 1 (two-sided paired
t-test over the operating range, i.e. over every (split, round >= 1) pair) and
the per-iteration time of Table 2 (training + ranking + selection).

LETOR TD2003/TD2004 are not available here (``birank.datasets.fetch_letor``
reads them for real use). We run on what is: OHSUMED (LETOR 3.0, ~152
documents per query, the paper's protocol unchanged; relevant = label >= 1,
and a variant with only "definitely relevant" = 2, closer to TD's skew),
MQ2008 (LETOR 4.0, ~19 documents per query), lambdarank-train (LightGBM's
example, ~15 per query, split by query 80/20 per seed) and tfranking_toy
(~4 per query). Queries that small cannot take 11 initial documents and 20
rounds of 5, so their protocol is scaled down (see :data:`DATASETS`; the values
used are written into the JSON and the report).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from .._progress import make_progress
from ..datasets import letor_fold_parts
from ._report import markdown_table, new_figure, run_metadata, save_figure, write_json, write_text
from .donmez_published import PROTOCOL, SIGNIFICANCE, TABLE1, TABLE2_TD2003

__all__ = ["add_arguments", "run", "DATASETS", "METHODS", "significance_order",
           "paired_tests"]

METHODS = ("lossmin", "entropy", "uncertain", "diverse", "random")
LABELS = {"lossmin": "LossMin", "entropy": "Entropy", "uncertain": "Uncertain",
          "diverse": "Diverse", "random": "Random"}
METRICS = (("auc", "AUC"), ("map", "MAP"), ("ndcg", "NDCG@10"))


def _spec(layout, files, threshold, n_rel, n_nonrel, per_query, rounds, note, n_features=None,
          letor=None):
    return {"layout": layout, "files": files, "letor": letor, "relevance_threshold": threshold,
            "initial_relevant": n_rel, "initial_nonrelevant": n_nonrel,
            "per_query": per_query, "rounds": rounds, "note": note, "n_features": n_features}


#: name -> how its splits are built and the protocol used on it
DATASETS = {
    "OHSUMED": _spec("partitions", [f"OHSUMED/QueryLevelNorm/Fold{k}/test.txt"
                                    for k in range(1, 6)], 1, 1, 10, 5, 20,
                     "LETOR 3.0 folds (fetch_letor's): test P_k, train P_k+1..P_k+3 "
                     "(validation P_k-1 unused); relevant = 1 or 2; the paper's protocol", 45,
                     "OHSUMED"),
    "OHSUMED-rel2": _spec("partitions", [f"OHSUMED/QueryLevelNorm/Fold{k}/test.txt"
                                         for k in range(1, 6)], 2, 1, 10, 5, 20,
                          "as OHSUMED, but relevant = 2 only (14% relevant)", 45, "OHSUMED"),
    "MQ2008": _spec("mq", [f"MQ2008/S{k}.txt" for k in range(1, 6)], 1, 1, 4, 1, 10,
                    "LETOR 4.0 folds (readme.txt): train S_k..S_k+2, test S_k+4; relevant = "
                    "1 or 2; scaled protocol (queries hold ~19 documents)", 46, "MQ2008"),
    "lambdarank-train": _spec("query-split", ["lambdarank-train/rank.train"], 3, 1, 3, 1, 10,
                              "80/20 split by query per seed; relevant = 3 or 4 (10%); "
                              "scaled protocol (queries hold ~15 documents)", 300),
    "tfranking_toy": _spec("train-test", ["tfranking_toy/train.txt", "tfranking_toy/test.txt"],
                           1, 1, 1, 1, 2, "given train/test, new initial set per seed; "
                           "scaled protocol (queries hold ~4 documents)", 136),
}


# ---------------------------------------------------------------------------------------
# data

def _load(path, n_features):
    from ..datasets import load_svmlight

    return load_svmlight(path, n_features, query_id=True, duplicates="last")


def _splits(name, data_dir, n_seeds, quick):
    """Yield (label, seed, X, y, g, Xt, yt, gt); nothing if the files are missing."""
    spec = DATASETS[name]
    paths = [Path(data_dir) / f for f in spec["files"]]
    if not all(p.exists() for p in paths):
        return
    d = spec["n_features"]
    layout = spec["layout"]
    if layout in ("partitions", "mq"):
        parts = [_load(p, d) for p in paths]
        folds = [0] if quick else range(5)
        for k in folds:
            train = letor_fold_parts(spec["letor"], k + 1, "train")
            test = letor_fold_parts(spec["letor"], k + 1, "test")[0]
            X, y, g = _stack([parts[j] for j in train])
            Xt, yt, gt = parts[test]
            for seed in range(n_seeds):
                yield f"fold{k + 1}" + (f"-seed{seed}" if n_seeds > 1 else ""), seed, \
                    X, y, g, Xt, yt, gt
    elif layout == "query-split":
        X, y, g = _load(paths[0], d)
        for seed in range(n_seeds):
            q = np.unique(g)
            test_q = np.random.default_rng(1000 + seed).permutation(q)[: int(round(0.2 * len(q)))]
            te = np.isin(g, test_q)
            yield f"seed{seed}", seed, X[~te], y[~te], g[~te], X[te], y[te], g[te]
    else:
        X, y, g = _load(paths[0], d)
        Xt, yt, gt = _load(paths[1], d)
        for seed in range(n_seeds):
            yield f"seed{seed}", seed, X, y, g, Xt, yt, gt


def _stack(parts):
    import scipy.sparse as sp

    return (sp.vstack([p[0] for p in parts]).tocsr(), np.concatenate([p[1] for p in parts]),
            np.concatenate([p[2] for p in parts]))


# ---------------------------------------------------------------------------------------
# statistics

def _nanmean(values, axis=None):
    """Mean ignoring NaN (undefined metrics); NaN, without a warning, when all are NaN."""
    v = np.asarray(values, dtype=float)
    n = np.sum(np.isfinite(v), axis=axis)
    total = np.nansum(v, axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, total / np.maximum(n, 1), np.nan)

def paired_tests(values, a, b):
    """Two-sided paired t-test of method ``a`` against ``b`` on matched values.

    ``values[m]`` is a 1-D array over the operating range (every split and round
    >= 1, in the same order for every method). Returns (mean difference a - b,
    p-value); p = 1 when the differences are all equal (no variation to test).
    """
    from scipy import stats

    da, db = np.asarray(values[a], float), np.asarray(values[b], float)
    ok = np.isfinite(da) & np.isfinite(db)
    diff = da[ok] - db[ok]
    if diff.size < 2 or np.all(diff == diff[0]):
        return float(diff.mean()) if diff.size else float("nan"), 1.0
    return float(diff.mean()), float(stats.ttest_rel(da[ok], db[ok]).pvalue)


def _relation(mean_diff, p):
    if p < 0.01:
        return ">>"
    if p < 0.05:
        return ">"
    return "~"


def significance_order(values, methods):
    """Table 1's line: methods by decreasing mean, neighbours joined by >>, > or ~.

    Examples
    --------
    >>> v = {"a": np.array([3.0, 4, 5, 6]), "b": np.array([1.0, 2, 3, 4.5])}
    >>> significance_order(v, ["b", "a"])
    'a >> b'
    """
    order = sorted(methods, key=lambda m: -np.nan_to_num(_nanmean(values[m]), nan=-np.inf))
    name = LABELS.get
    out = name(order[0], order[0])
    for hi, lo in zip(order, order[1:]):
        out += f" {_relation(*paired_tests(values, hi, lo))} {name(lo, lo)}"
    return out


# ---------------------------------------------------------------------------------------
# run

def warm_up(methods):
    """Compile every strategy's kernels once, so no round's timing pays numba's compilation."""
    from ..active_learning import ActiveRankLearner

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    g = np.repeat([0, 1], 20)
    y = (X[:, 0] > 0.5).astype(float)
    for m in methods:
        ActiveRankLearner(strategy=m, per_query=2, random_state=0).simulate(
            X, y, g, X, y, g, n_rounds=1, n_initial_nonrelevant=3)


def run_dataset(name, args, report, step, total):
    from ..active_learning import ActiveRankLearner

    spec = DATASETS[name]
    rounds = min(spec["rounds"], 3) if args.quick else spec["rounds"]
    n_seeds = args.seeds if args.seeds is not None else (
        1 if spec["layout"] in ("partitions", "mq") else 5)
    if args.quick:
        n_seeds = 1
    rec = {"protocol": {k: spec[k] for k in ("relevance_threshold", "initial_relevant",
                                             "initial_nonrelevant", "per_query", "note")},
           "splits": [], "runs": {m: [] for m in args.methods}}
    rec["protocol"]["rounds"] = rounds
    for label, seed, X, y, g, Xt, yt, gt in _splits(name, args.data_dir, n_seeds, args.quick):
        rec["splits"].append({"split": label, "n_train": int(X.shape[0]),
                              "n_train_queries": int(np.unique(g).shape[0]),
                              "n_test": int(Xt.shape[0]),
                              "n_test_queries": int(np.unique(gt).shape[0]),
                              "relevant_fraction_train": float(
                                  np.mean(y >= spec["relevance_threshold"]))})
        for m in args.methods:
            learner = ActiveRankLearner(strategy=m, per_query=spec["per_query"],
                                        relevance_threshold=spec["relevance_threshold"],
                                        random_state=args.seed + seed)
            res = learner.simulate(X, y, g, Xt, yt, gt, n_rounds=rounds,
                                   n_initial_relevant=spec["initial_relevant"],
                                   n_initial_nonrelevant=spec["initial_nonrelevant"])
            rec["runs"][m].append({k: res[k] for k in ("auc", "map", "ndcg", "n_labeled",
                                                        "train_s", "rank_s", "select_s",
                                                        "round_s")}
                                  | {"oracle_reads": res["oracle_reads"]})
            step += 1
            report(step, total, f"{name} {label} {m}")
    return rec, step


def _operating_range(rec, metric):
    """method -> values at rounds 1..R of every split, concatenated in split order."""
    return {m: np.concatenate([np.asarray(r[metric][1:], float) for r in runs])
            for m, runs in rec["runs"].items() if runs}


def summarize(rec):
    methods = [m for m, runs in rec["runs"].items() if runs]
    out = {"mean_curves": {}, "table1": {}, "lossmin_vs": {}, "operating_range_mean": {}}
    for metric, _ in METRICS:
        curves = {m: _nanmean([r[metric] for r in rec["runs"][m]], axis=0) for m in methods}
        out["mean_curves"][metric] = curves
        vals = _operating_range(rec, metric)
        out["operating_range_mean"][metric] = {m: float(_nanmean(vals[m])) for m in methods}
        out["table1"][metric] = significance_order(vals, methods)
        if "lossmin" in methods:
            out["lossmin_vs"][metric] = {
                m: dict(zip(("mean_diff", "p"), paired_tests(vals, "lossmin", m)))
                for m in methods if m != "lossmin"}
    out["round_s"] = {m: np.mean([r["round_s"] for r in rec["runs"][m]], axis=0)
                      for m in methods}
    out["select_s"] = {m: np.mean([r["select_s"] for r in rec["runs"][m]], axis=0)
                       for m in methods}
    return out


def plot_dataset(name, rec, summ, path):
    fig, axes = new_figure(3, ncols=3, size=3.2)
    for ax, (metric, title) in zip(axes, METRICS):
        for m, curve in summ["mean_curves"][metric].items():
            ax.plot(np.arange(len(curve)), curve, "o-" if m == "lossmin" else ".-", ms=3,
                    label=LABELS[m], lw=2 if m == "lossmin" else 1)
        ax.set(title=f"{name}: {title}", xlabel="iteration", ylabel=title)
        ax.legend(fontsize=7)
    return save_figure(fig, path)


def _fmt_p(p):
    return "n/a" if not np.isfinite(p) else (f"{p:.1e}" if p < 1e-3 else f"{p:.3f}")


def _verdict(summ):
    lines = []
    for metric, title in METRICS:
        vs = summ["lossmin_vs"].get(metric)
        if not vs:
            continue
        better = [LABELS[m] for m, d in vs.items() if d["mean_diff"] > 0 and d["p"] < 0.05]
        worse = [LABELS[m] for m, d in vs.items() if d["mean_diff"] < 0 and d["p"] < 0.05]
        tied = [LABELS[m] for m in vs if LABELS[m] not in better + worse]
        rank = sorted(summ["operating_range_mean"][metric].items(), key=lambda kv: -kv[1])
        pos = [m for m, _ in rank].index("lossmin") + 1
        lines.append(f"- {title}: LossMin is #{pos} of {len(rank)} by operating-range mean; "
                     f"significantly better (p < 0.05) than {', '.join(better) or 'none'}; "
                     f"significantly worse than {', '.join(worse) or 'none'}; "
                     f"indistinguishable from {', '.join(tied) or 'none'}.")
    return "\n".join(lines) + "\n"


def _overview(res):
    """One row per data set: LossMin against Random and against the best other strategy."""
    rows = []
    for name, rec in res["datasets"].items():
        summ = rec["summary"]
        vs = summ["lossmin_vs"]
        if not vs:
            continue
        row = [name]
        for metric, _ in METRICS:
            means = summ["operating_range_mean"][metric]
            best = max((m for m in means if m != "lossmin"), key=lambda m: means[m])
            rnd = vs[metric].get("random")
            row.append(f"{means['lossmin']:.4f}")
            row.append("n/a" if rnd is None else
                       f"{rnd['mean_diff']:+.4f} (p {_fmt_p(rnd['p'])})")
            row.append(f"{LABELS[best]} {vs[metric][best]['mean_diff']:+.4f} "
                       f"(p {_fmt_p(vs[metric][best]['p'])})")
        rows.append(row)
    if not rows:
        return []
    head = ["data set"]
    for _, title in METRICS:
        head += [f"LossMin {title}", "− Random", "− best other"]
    return ["\n## Overview\n",
            "Operating-range means of LossMin and its paired differences (two-sided paired "
            "t-test over every split × round ≥ 1) to Random and to the best other strategy "
            "by mean:\n", markdown_table(head, rows)]


def _markdown(res, files):
    lines = ["# Donmez & Carbonell — active sampling for rank learning (LossMin)\n",
             "Reproduction of *Active Sampling for Rank Learning via Optimizing the Area "
             "Under the ROC Curve* (ECIR 2009) by `birank reproduce donmez` (module "
             "`birank.experiments.donmez`). The paper's TD2003/TD2004 are not on this "
             "machine; the protocol of section 3.1 is run on the LETOR-style data that is. "
             "Ranker: `birank.RankSVM()` (exact all-pairs linear RankSVM, squared hinge, "
             "C = 1; the paper: SVMlight ranking mode, defaults), one model over the "
             "within-query pairs of all labeled documents. AUC = mean per-query AUC over "
             "test queries with both classes; MAP with the binary relevance; NDCG@10 "
             "with the graded labels (gain 2^label - 1).\n",
             f"Paper protocol: {PROTOCOL['initial_relevant_per_query']} relevant + "
             f"{PROTOCOL['initial_nonrelevant_per_query']} non-relevant initial documents "
             f"per query, {PROTOCOL['selected_per_query_per_round']} selected per query per "
             f"round, {PROTOCOL['rounds']} rounds, λ = {PROTOCOL['lambda']}.\n"]
    lines += _overview(res)
    for name, rec in res["datasets"].items():
        summ = rec["summary"]
        p = rec["protocol"]
        sp = rec["splits"]
        lines += [f"\n## {name}\n",
                  f"{p['note']}. Relevant: label ≥ {p['relevance_threshold']}; initial "
                  f"{p['initial_relevant']} + {p['initial_nonrelevant']} per query, "
                  f"{p['per_query']} per query per round, {p['rounds']} rounds; "
                  f"{len(sp)} split(s); per split {sp[0]['n_train_queries']} training "
                  f"queries ({sp[0]['n_train']} documents, "
                  f"{100 * sp[0]['relevant_fraction_train']:.1f}% relevant), "
                  f"{sp[0]['n_test_queries']} test queries.\n",
                  f"![curves]({rec['figure']})\n",
                  "\n**Table 1 analogue** (two-sided paired t-test over the operating range: "
                  "every split × round 1..R; >> p < 0.01, > p < 0.05, ~ not significant):\n"]
        rows = []
        for metric, title in METRICS:
            vs = summ["lossmin_vs"].get(metric, {})
            rows.append([title, summ["table1"][metric].replace("~", "≈").replace(">>", "≫")]
                        + [f"{d['mean_diff']:+.4f} (p {_fmt_p(d['p'])})" for d in vs.values()])
        others = [LABELS[m] for m in summ["lossmin_vs"].get("map", {})]
        lines.append(markdown_table(["metric", "order"] + [f"LossMin − {o}" for o in others],
                                    rows, align=["l", "l"] + ["r"] * len(others)))
        lines.append("\nMean over the operating range:\n")
        methods = list(summ["operating_range_mean"]["map"])
        lines.append(markdown_table(
            ["metric"] + [LABELS[m] for m in methods],
            [[t] + [f"{summ['operating_range_mean'][k][m]:.4f}" for m in methods]
             for k, t in METRICS]))
        lines.append("\nVerdict (from the tests above):\n\n" + _verdict(summ))
        its = [i for i in (0, 1, 2, 3, 4, 5, 10, 20) if i <= p["rounds"]]
        lines.append("\n**Table 2 analogue**: seconds per iteration (training + ranking + "
                     "selection; mean over splits) and MAP:\n")
        rows = [[str(i)] + [f"{summ['round_s'][m][i]:.3f}" for m in methods]
                + [f"{summ['mean_curves']['map'][m][i]:.3f}" for m in methods] for i in its]
        lines.append(markdown_table(["iter"] + [f"time {LABELS[m]}" for m in methods]
                                    + [f"MAP {LABELS[m]}" for m in methods], rows))
        sel = {m: 1e3 * float(np.mean(summ["select_s"][m][1:])) for m in methods}
        lines.append("\nSelection alone (ms per round, mean over rounds ≥ 1; Diverse "
                     "includes training its fold rankers): " +
                     ", ".join(f"{LABELS[m]} {v:.2f}" for m, v in sel.items()) + ".\n")
    lines += ["\n## Published (TD2003 / TD2004)\n",
              "Table 1 of the paper:\n",
              markdown_table(["metric", "dataset", "order"],
                             [[k, d, s] for k, per in TABLE1.items() for d, s in per.items()]),
              "\nTable 2 of the paper (TD2003; CPU seconds per iteration, MAP):\n",
              markdown_table(["iter"] + [f"time {LABELS[m]}" for m in
                                         ("lossmin", "entropy", "diverse", "uncertain")]
                             + [f"MAP {LABELS[m]}" for m in
                                ("lossmin", "entropy", "diverse", "uncertain")],
                             [[str(i)] + [f"{r['time'][m]:.3f}" for m in
                                          ("lossmin", "entropy", "diverse", "uncertain")]
                              + [f"{r['map'][m]:.3f}" for m in
                                 ("lossmin", "entropy", "diverse", "uncertain")]
                              for i, r in TABLE2_TD2003.items()]),
              f"\nSignificance of LossMin (section 3.2): TD2003 {SIGNIFICANCE['TD03']}; "
              f"TD2004 {SIGNIFICANCE['TD04']}.\n"]
    if res["missing"]:
        lines.append(f"\nNot found under the data directory (skipped): "
                     f"{', '.join(res['missing'])}.\n")
    lines.append("\nFiles: " + ", ".join(f"`{f}`" for f in files) + "\n")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------
# command line

def add_arguments(parser):
    """Options of ``birank reproduce donmez``."""
    parser.add_argument("--output", default="docs/results",
                        help="folder for donmez*.json/.md/.png (default docs/results)")
    parser.add_argument("--data-dir", default="../shared/data",
                        help="folder holding OHSUMED/, MQ2008/, lambdarank-train/, "
                             "tfranking_toy/")
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS),
                        choices=list(DATASETS))
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=list(METHODS))
    parser.add_argument("--seeds", type=int, default=None,
                        help="initial sets per split (default: 1 per fold for fold data "
                             "sets, 5 for the others)")
    parser.add_argument("--quick", action="store_true",
                        help="first fold / one seed, at most 3 rounds (a smoke run)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    return parser


def run(args):
    """Run the reproduction; write JSON, markdown and PNG under ``args.output``."""
    if args.seeds is not None and args.seeds < 1:
        raise ValueError(f"--seeds must be >= 1; got {args.seeds}.")
    out_dir = Path(args.output)
    report = make_progress(not args.quiet, "donmez")
    suffix = "-quick" if args.quick else ""
    t0 = time.perf_counter()
    res = {"datasets": {}, "missing": []}
    files = []
    total = 0
    for name in args.datasets:
        n_splits = 1 if args.quick else (5 * (args.seeds or 1) if DATASETS[name]["layout"] in
                                         ("partitions", "mq") else (args.seeds or 5))
        total += n_splits * len(args.methods)
    step = 0
    warm_up(args.methods)
    for name in args.datasets:
        rec, step = run_dataset(name, args, report, step, total)
        if not rec["splits"]:
            res["missing"].append(name)
            continue
        rec["summary"] = summarize(rec)
        fig = f"donmez-fig3-{name}{suffix}.png"
        plot_dataset(name, rec, rec["summary"], out_dir / fig)
        rec["figure"] = fig
        files.append(fig)
        res["datasets"][name] = rec
    files += [f"donmez{suffix}.json", f"donmez{suffix}.md"]
    payload = {"paper": "donmez-carbonell", "published": {"table1": TABLE1,
                                                         "table2_td2003": TABLE2_TD2003,
                                                         "significance": SIGNIFICANCE,
                                                         "protocol": PROTOCOL},
               "metadata": run_metadata(), "elapsed_s": time.perf_counter() - t0,
               "args": {k: v for k, v in vars(args).items() if k != "func"}, **res}
    write_json(out_dir / f"donmez{suffix}.json", payload)
    write_text(out_dir / f"donmez{suffix}.md", _markdown(res, files))
    if not args.quiet:
        print(f"wrote {', '.join(str(out_dir / f) for f in files)}")
    return 0
