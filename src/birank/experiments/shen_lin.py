"""Reproduction of Shen & Lin (2014): active sampling of pairs and points.

``birank reproduce shen-lin [--datasets a9a letter ...] [--data-dir DIR] [--quick]``

Protocol (section 4): C = 0.1, b = 100, B = 8000; Random / Soft-Close /
Soft-Correct / Hard-Close / Hard-Correct (ASRankSVM, gamma = 1) averaged over
``--pools`` initial pools (10 in the paper); test AUC where the data set has a
test set, else 5-fold cross-validation AUC (per pool, the mean over folds; the
spread reported is over pools). Baselines, all weighted so that the costs sum
to ``C * B`` (section 4.1):

- WSVM: :class:`birank.WeightedSVM` with ``budget=B`` (``C+ = B/(2N+) C``,
  ``C- = B/(2N-) C``);
- ERankSVM: exact all-pairs hinge RankSVM with per-pair cost ``B C / (N+ N-)``.
  The paper runs SVMperf with ``C_perf = B/100 * C``; SVMperf measures the
  ROC loss in percent of the N+ N- pairs, so its per-pair cost is
  ``C_perf * 100 / (N+ N-) = B C / (N+ N-)``: the same problem, and the
  "costs sum to C B" rule of section 4.1;
- CRR: :class:`birank.CombinedRanking` (sofia-ml's combined ranking, SGD)
  with ``lambda = 1 / (B C)``.

Outputs (``--output``, default ``docs/results``): ``shen-lin.md`` (Tables 4, 6,
2, 3 and optionally 7 beside the published numbers), ``shen-lin.json`` (every
number, per pool and split), ``shen-lin-fig5.png`` (AUC vs |L*|),
``shen-lin-fig6.png`` (rejected draws per accepted item vs |L*|) and
``shen-lin-fig2.png`` (larger budgets).

Data sets: a table of specs below (files under ``--data-dir``, positive class,
test file / hold-out / CV, scaling); any LIBSVM file works with
``--train PATH [--test PATH] --positive-class K``.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from .._progress import make_progress
from .._registry import estimator_class
from . import shen_lin_published as pub
from ._report import (format_mean_std, markdown_table, new_figure, run_metadata,
                      save_figure, write_json, write_text)

__all__ = ["SPECS", "DatasetSpec", "add_arguments", "run", "load_splits"]


@dataclass(frozen=True)
class DatasetSpec:
    """Where a data set lives and how the paper evaluates it."""

    name: str
    train: tuple  # files (relative to --data-dir) concatenated into the data
    test: tuple = ()  # test files; empty -> holdout or CV
    positive: float = 1.0  # label value of the positive class (others: negative)
    holdout: int = 0  # rows held out at random as test set (when there is no test file)
    scale: bool = False  # svm-scale to [-1, 1] per feature, fitted on the training part
    note: str = ""


SPECS = {
    "a9a": DatasetSpec("a9a", ("a9a/a9a",), ("a9a/a9a.t",),
                       note="as in the paper (test AUC on a9a.t)"),
    "letter": DatasetSpec("letter", ("letter/letter.scale", "letter/letter.scale.t"),
                          note="class 1 vs rest; the 15000 + 5000 rows joined, 5-fold CV "
                               "as in the paper (20000 rows)"),
    "w8a": DatasetSpec("w8a", ("w8a/w8a",),
                       note="not in the paper; 5-fold CV (w8a.t not available)"),
    "bank": DatasetSpec("bank", ("bank/bank.libsvm",), scale=True,
                        note="UCI bank-additional-full (41188 rows, 20 inputs one-hot "
                             "encoded), not the paper's bank-full (45211 rows, 16 inputs): "
                             "numbers are not comparable; svm-scaled; 5-fold CV"),
    "shuttle": DatasetSpec("shuttle", ("shuttle/shuttle.libsvm",), holdout=14500, scale=True,
                           note="class 1 vs rest; the file joins train and test (58000 "
                                "rows): 14500 random rows (seed 0) held out as the test "
                                "set, like the 43500/14500 split of the paper; svm-scaled"),
}

ACTIVE = ("Random", "Soft-Close", "Soft-Correct", "Hard-Close", "Hard-Correct")
STRATEGY = {"Random": "random", "Soft-Close": "soft-close", "Soft-Correct": "soft-correct",
            "Hard-Close": "hard-close", "Hard-Correct": "hard-correct"}
GAMMAS = ("uniform", 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


# --------------------------------------------------------------------------- data
def _load_files(paths):
    from ..datasets import load_svmlight

    parts = [load_svmlight(p) for p in paths]
    d = max(X.shape[1] for X, _ in parts)
    Xs = [sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], d)) for X, _ in parts]
    return sp.vstack(Xs, format="csr"), np.concatenate([y for _, y in parts])


def _svm_scale(Xtr, Xte):
    """Scale every feature to [-1, 1] with the training min/max (LIBSVM's svm-scale)."""
    Xtr = Xtr.toarray() if sp.issparse(Xtr) else Xtr
    Xte = Xte.toarray() if sp.issparse(Xte) else Xte
    lo, hi = Xtr.min(axis=0), Xtr.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    f = lambda X: np.where(hi > lo, 2.0 * (X - lo) / span - 1.0, 0.0)  # noqa: E731
    return np.ascontiguousarray(f(Xtr)), np.ascontiguousarray(f(Xte))


def load_splits(spec, data_dir, n_folds=5, max_folds=None):
    """``(info, [(X_train, y_train, X_test, y_test), ...])`` with y in {0, 1}."""
    data_dir = Path(data_dir)
    paths = [data_dir / p if not Path(p).is_absolute() else Path(p) for p in spec.train]
    for p in paths:
        if not p.exists():
            raise FileNotFoundError(f"data set {spec.name!r}: file {p} not found "
                                    "(give --data-dir or --train).")
    X, y = _load_files(paths)
    y01 = (y == spec.positive).astype(np.int8)
    if spec.test:
        tpaths = [data_dir / p if not Path(p).is_absolute() else Path(p) for p in spec.test]
        Xt, yt = _load_files(tpaths)
        d = max(X.shape[1], Xt.shape[1])
        X = sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], d))
        Xt = sp.csr_matrix((Xt.data, Xt.indices, Xt.indptr), shape=(Xt.shape[0], d))
        splits = [(X, y01, Xt, (yt == spec.positive).astype(np.int8))]
        mode = "test"
    elif spec.holdout:
        rng = np.random.default_rng(0)
        perm = rng.permutation(X.shape[0])
        te, tr = perm[:spec.holdout], perm[spec.holdout:]
        splits = [(X[tr], y01[tr], X[te], y01[te])]
        mode = f"holdout {spec.holdout}"
    else:
        from sklearn.model_selection import StratifiedKFold

        skf = StratifiedKFold(n_folds, shuffle=True, random_state=0)
        splits = [(X[tr], y01[tr], X[te], y01[te]) for tr, te in skf.split(np.zeros(len(y01)),
                                                                            y01)]
        mode = f"{n_folds}-fold CV"
        if max_folds:
            splits = splits[:max_folds]
            mode += f" (first {max_folds} fold{'s' if max_folds > 1 else ''})"
    if spec.scale:
        scaled = []
        for Xa, ya, Xb, yb in splits:
            Xa, Xb = _svm_scale(Xa, Xb)
            scaled.append((Xa, ya, Xb, yb))
        splits = scaled
    n_pos = int(splits[0][1].sum())
    info = {"rows": int(X.shape[0]) + (int(splits[0][2].shape[0]) if spec.test else 0),
            "train_rows": int(splits[0][0].shape[0]), "features": int(X.shape[1]),
            "positive": n_pos, "negative": int(len(splits[0][1]) - n_pos), "evaluation": mode,
            "note": spec.note}
    return info, splits


# --------------------------------------------------------------------------- methods
def _optional(name):
    """A baseline estimator class (paper name), or None when not in this install."""
    return estimator_class({"ERankSVM": "RankSVM", "CRR": "CombinedRanking"}[name],
                           missing_ok=True)


def _make(method, cfg, seed, n_pos, n_neg):
    """The estimator behind a table column, configured as in section 4.1."""
    from ..batch.active_ranksvm import ActiveRankSVM
    from ..batch.weighted_svm import WeightedSVM

    B, b, C = cfg["budget"], cfg["batch_size"], cfg["C"]
    if method == "WSVM":
        return WeightedSVM(C=C, budget=B, tol=0.1, random_state=seed)
    if method == "ERankSVM":
        cls = _optional("ERankSVM")
        return None if cls is None else cls(C=B * C / (n_pos * n_neg), loss="hinge")
    if method == "CRR":
        cls = _optional("CRR")
        return None if cls is None else cls(alpha=1.0 / (B * C), random_state=seed)
    base, _, variant = method.partition(" ")
    kw = {"strategy": STRATEGY[base]}
    if variant == "no-bc":
        kw["bias_correction"] = False
    elif variant.startswith("g="):
        g, _, thr = variant[2:].partition("-")
        kw["pair_weight"] = g if g == "uniform" else float(g)  # shen-lin's gamma
        kw["fit_intercept"] = thr == "thres"  # CRC-threshold
    # every round solved to tol, as the paper's LIBLINEAR runs were
    return ActiveRankSVM(budget=B, batch_size=b, C=C, round_tol=None, round_max_iter=None,
                         random_state=seed, **kw)


def _fit_one(est, Xtr, ytr, Xte, yte, curve):
    from ..metrics import roc_auc

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.process_time()
        if type(est).__name__ == "ActiveRankSVM":
            est.fit(Xtr, ytr, eval_set=(Xte, yte) if curve else None)
        else:
            est.fit(Xtr, ytr)
        cpu = time.process_time() - t0
    out = {"auc": float(roc_auc(yte, est.decision_function(Xte))), "seconds": cpu}
    if hasattr(est, "history_"):
        h = est.history_
        # the fit's own clock, without the per-round evaluation of eval_set
        out["seconds"] = float(h[-1]["seconds"])
        out["select_seconds"] = float(sum(e["select_seconds"] for e in h))
        if curve:
            out["curve"] = {"n_chosen": [e["n_chosen"] for e in h],
                            "auc": [e.get("auc") for e in h],
                            "rejections": [e["rejections"] for e in h]}
    return out


def _run_dataset(name, spec, args, cfg, methods, report):
    info, splits = load_splits(spec, args.data_dir, max_folds=cfg["max_folds"])
    res = {"info": info, "methods": {}}
    jobs = []
    for m in methods:
        if m in ("WSVM", "ERankSVM", "CRR"):
            seeds = [0]
        elif m.startswith("Hard"):
            seeds = list(range(cfg["hard_pools"]))
        elif " g=" in m:
            seeds = list(range(cfg["gamma_pools"]))
        else:
            seeds = list(range(cfg["pools"]))
        jobs += [(m, s) for s in seeds]
    total = len(jobs) * len(splits)
    step = 0
    for m, seed in jobs:
        entry = res["methods"].setdefault(m, {"auc_splits": [], "seconds_splits": [],
                                              "select_seconds_splits": [], "curves": []})
        aucs, secs, sels = [], [], []
        for k, (Xtr, ytr, Xte, yte) in enumerate(splits):
            n_pos = int(ytr.sum())
            est = _make(m, cfg, seed, n_pos, len(ytr) - n_pos)
            step += 1
            if est is None:
                entry["unavailable"] = True
                continue
            curve = cfg["curves"] and (m in ("Random", "Soft-Close", "Soft-Correct")
                                       or m.startswith("Hard")) and k == 0
            r = _fit_one(est, Xtr, ytr, Xte, yte, curve)
            aucs.append(r["auc"])
            secs.append(r["seconds"])
            sels.append(r.get("select_seconds", 0.0))
            if "curve" in r:
                entry["curves"].append(r["curve"])
            report(step, total, f"{name}: {m} pool {seed} split {k} auc={r['auc']:.4f} "
                                f"{r['seconds']:.2f}s")
        if aucs:
            entry["auc_splits"].append(aucs)
            entry["seconds_splits"].append(secs)
            entry["select_seconds_splits"].append(sels)
    for m, entry in res["methods"].items():
        # one value per pool: the mean over the splits (test set: one split)
        entry["auc"] = [float(np.mean(a)) for a in entry["auc_splits"]]
        entry["seconds"] = [float(np.mean(s)) for s in entry["seconds_splits"]]
        entry["select_seconds"] = [float(np.mean(s)) for s in entry["select_seconds_splits"]]
    return res


def _large_budget(name, spec, args, cfg, report):
    """Fig. 2: AUC vs |L*| up to a large budget, soft strategies, one pool, first split."""
    from ..batch.active_ranksvm import ActiveRankSVM

    _, splits = load_splits(spec, args.data_dir, max_folds=1)
    Xtr, ytr, Xte, yte = splits[0]
    out = {}
    for m in ("Soft-Close", "Soft-Correct"):
        est = ActiveRankSVM(budget=cfg["large_budget"], batch_size=cfg["large_batch"],
                            C=cfg["C"], strategy=STRATEGY[m], round_tol=None,
                            round_max_iter=None, random_state=0)
        r = _fit_one(est, Xtr, ytr, Xte, yte, True)
        out[m] = {"seconds": r["seconds"], "auc": r["auc"], "curve": r["curve"]}
        report(0, None, f"{name}: large budget {m} auc={r['auc']:.4f} {r['seconds']:.1f}s")
    return out


# --------------------------------------------------------------------------- analysis
def _ttest_greater(a, b):
    """p-value of the right-tail Welch t-test mean(a) > mean(b) (1.0 when undefined)."""
    from scipy import stats

    a, b = np.asarray(a, float), np.asarray(b, float)
    if len(a) < 2 or len(b) < 2:
        return float("nan")
    if np.std(a) == 0 and np.std(b) == 0:
        return 0.0 if a.mean() > b.mean() else 1.0
    with warnings.catch_warnings():  # nearly equal samples: scipy warns, p is still fine
        warnings.simplefilter("ignore", RuntimeWarning)
        p = stats.ttest_ind(a, b, equal_var=False, alternative="greater").pvalue
    return 1.0 if np.isnan(p) else float(p)


def _win_loss_tie(a, b, level=0.05):
    pa, pb = _ttest_greater(a, b), _ttest_greater(b, a)
    if np.isnan(pa):
        return "tie"
    return "win" if pa < level else "loss" if pb < level else "tie"


def _fmt(values, digits=4):
    return format_mean_std(values, digits) if values else "n/a"


def _paper4(name, col):
    row = pub.TABLE4.get(name)
    if row is None:
        return "—"
    v = row[pub.TABLE4_COLUMNS.index(col)]
    return f"{v[0]:.4f} ± {v[1]:.4f}" if isinstance(v, tuple) else f"{v:.4f}"


def _report_markdown(results, cfg, large):
    tables = set(cfg.get("tables") or ("2", "3", "4", "6", "7"))
    lines = ["# Shen & Lin (2014) reproduced: active sampling of pairs and points\n",
             f"Settings: C = {cfg['C']}, b = {cfg['batch_size']}, B = {cfg['budget']}, "
             + (f"gamma = 1 (ASRankSVM); {cfg['pools']} initial pools for Random / Soft-*, "
                f"{cfg['hard_pools']} for Hard-*" if tables & {"2", "3", "4", "6"} else
                f"each gamma with and without CRC-threshold, {cfg['gamma_pools']} initial "
                "pools per setting and split")
             + f"; every round solved to tol. Produced by `birank reproduce shen-lin` "
             f"({'--quick' if cfg['quick'] else 'full protocol'}). Each row 'ours' is this "
             "library, 'paper' the published number (— where the paper has no such data "
             "set). Times are seconds of one single-threaded fit on a shared 2-core machine "
             "(the paper's machine differs; compare ratios, not values).\n"]
    lines.append("## Data sets\n")
    rows = [[n, r["info"]["train_rows"], r["info"]["features"], r["info"]["positive"],
             r["info"]["negative"], r["info"]["evaluation"], r["info"]["note"]]
            for n, r in results.items()]
    lines.append(markdown_table(["data", "train rows", "dim", "pos", "neg", "AUC on", "note"],
                                rows, ["l", "r", "r", "r", "r", "l", "l"]))
    # Table 4
    if "4" in tables:
        cols = [c for c in pub.TABLE4_COLUMNS]
        lines.append("\n## Table 4: AUC (mean ± std over pools) at |L*| = B\n")
        rows = []
        for n, r in results.items():
            ms = r["methods"]
            rows.append([f"{n} (ours)"] + [
                "n/a" if ms.get(c, {}).get("unavailable") or not ms.get(c, {}).get("auc")
                else _fmt(ms[c]["auc"]) for c in cols])
            rows.append([f"{n} (paper)"] + [_paper4(n, c) for c in cols])
        lines.append(markdown_table(["data"] + cols, rows))
        # Table 5-like summary: soft-correct against the others
        lines.append("\n### Soft-Correct against the others (right-tail Welch t-test, 95%)\n")
        rows = []
        for n, r in results.items():
            ms = r["methods"]
            sc = ms.get("Soft-Correct", {}).get("auc", [])
            row = [n]
            for c in ("WSVM", "ERankSVM", "CRR", "Random", "Soft-Close"):
                other = ms.get(c, {}).get("auc", [])
                if not sc or not other:
                    row.append("n/a")
                    continue
                if len(other) == 1:  # deterministic baseline: one-sample test
                    from scipy import stats
                    p = float(stats.ttest_1samp(sc, other[0], alternative="greater").pvalue) \
                        if np.std(sc) > 0 else (0.0 if np.mean(sc) > other[0] else 1.0)
                    q = float(stats.ttest_1samp(sc, other[0], alternative="less").pvalue) \
                        if np.std(sc) > 0 else (0.0 if np.mean(sc) < other[0] else 1.0)
                    row.append("win" if p < 0.05 else "loss" if q < 0.05 else "tie")
                else:
                    row.append(_win_loss_tie(sc, other))
            rows.append(row)
        lines.append(markdown_table(["data", "vs WSVM", "vs ERankSVM", "vs CRR", "vs Random",
                                     "vs Soft-Close"], rows))

    # Table 6
    if "6" in tables:
        cols6 = list(pub.TABLE6_COLUMNS)
        lines.append("\n## Table 6: fit time in seconds (mean over pools; Hard-* selection time "
                     "in brackets)\n")
        rows = []
        for n, r in results.items():
            ms = r["methods"]
            row = [f"{n} (ours)"]
            for c in cols6:
                e = ms.get(c, {})
                if not e.get("seconds"):
                    row.append("n/a")
                    continue
                cell = f"{np.mean(e['seconds']):.3g}"
                if c.startswith("Hard"):
                    cell += f" ({np.mean(e['select_seconds']):.3g})"
                row.append(cell)
            rows.append(row)
            p = pub.TABLE6.get(n)
            rows.append([f"{n} (paper)"] + ([f"{v:.3g}" for v in p] if p else ["—"] * len(cols6)))
        lines.append(markdown_table(["data"] + cols6, rows))

    # Table 2
    if "2" in tables:
        lines.append("\n## Table 2: soft versus hard (Welch t-test, 95%: win/loss/tie of soft)\n")
        counts = {}
        rows = []
        for kind in ("Close", "Correct"):
            c = {"win": 0, "loss": 0, "tie": 0}
            per = []
            for n, r in results.items():
                ms = r["methods"]
                s, h = ms.get(f"Soft-{kind}", {}).get("auc"), ms.get(f"Hard-{kind}", {}).get("auc")
                if s and h:
                    o = _win_loss_tie(s, h)
                    c[o] += 1
                    per.append(f"{n}: {o} ({np.mean(s):.4f} vs {np.mean(h):.4f})")
            counts[kind] = c
            pw = pub.TABLE2[kind.lower()]
            rows.append([f"Soft vs Hard ({kind})", f"{c['win']}/{c['loss']}/{c['tie']}",
                         f"{pw[0]}/{pw[1]}/{pw[2]}", ", ".join(per)])
        lines.append(markdown_table(["", "ours", "paper (13 data sets)", "per data set"], rows,
                                    ["l", "c", "c", "l"]))

    # Table 3
    if "3" in tables:
        lines.append("\n## Table 3: benefit of bias correction, AUC(with) − AUC(without)\n")
        rows = []
        for kind in ("Close", "Correct"):
            for n, r in results.items():
                ms = r["methods"]
                on, off = ms.get(f"Soft-{kind}", {}).get("auc"), ms.get(f"Soft-{kind} no-bc",
                                                                          {}).get("auc")
                if on and off:
                    paper = pub.TABLE3[kind.lower()].get(n)
                    rows.append([f"Soft-{kind}", n, f"{np.mean(on) - np.mean(off):+.4e}",
                                 _win_loss_tie(on, off),
                                 "—" if paper is None else f"{paper:+.4e}"])
        if rows:
            lines.append(markdown_table(["strategy", "data", "ours", "t-test (with vs without)",
                                         "paper"], rows, ["l", "l", "r", "c", "r"]))

    # Table 7
    if any(any(" g=" in m for m in r["methods"]) for r in results.values()):
        lines.append("\n## Table 7: best gamma (settings not significantly worse than the "
                     "best, Welch t-test 95%; '-thres' = CRC-threshold)\n")
        rows = []
        for n, r in results.items():
            row = [n]
            for kind in ("Soft-Close", "Soft-Correct"):
                cand = {m.split(" g=")[1]: e["auc"] for m, e in r["methods"].items()
                        if m.startswith(kind + " g=") and e.get("auc")}
                if not cand:
                    row.append("n/a")
                    continue
                best = max(cand, key=lambda k: np.mean(cand[k]))
                keep = [k for k in cand if k == best or not _ttest_greater(cand[best], cand[k])
                        < 0.05]
                row.append(", ".join(sorted(keep, key=lambda k: -np.mean(cand[k])))
                           + f" ({np.mean(cand[best]):.4f})")
            p = pub.TABLE7.get(n, ("—", "—"))
            rows.append(row + list(p))
        lines.append(markdown_table(["data", "Soft-Close (ours)", "Soft-Correct (ours)",
                                     "Soft-Close (paper)", "Soft-Correct (paper)"], rows))
    if large:
        # B from the curves themselves: a --merge run may carry another config
        big_b = max(max(e["curve"]["n_chosen"]) for d in large.values() for e in d.values())
        lines.append(f"\n## Fig. 2: larger budget (B = {big_b}, b = "
                     f"{cfg['large_batch']}, one pool, first split)\n")
        rows = []
        for n, d in large.items():
            for m, e in d.items():
                c = e["curve"]
                at8 = [a for k, a in zip(c["n_chosen"], c["auc"]) if k <= 8000]
                rows.append([n, m, f"{at8[-1]:.4f}" if at8 else "n/a", f"{e['auc']:.4f}",
                             f"{e['seconds']:.1f}"])
        lines.append(markdown_table(["data", "strategy", "AUC at 8000", "AUC at B",
                                     "seconds"], rows))
    if tables & {"2", "3", "4", "6"}:
        lines.append("\nFigures: `shen-lin-fig5.png` (AUC vs |L*|), `shen-lin-fig6.png` "
                     "(rejected draws per accepted item vs |L*|), `shen-lin-fig2.png` (larger "
                     "budget).\n")
    return "\n".join(lines)


def rewrite_report(json_path, output=None, stem=None):
    """Re-create the markdown and figures of an earlier run from its JSON (no refitting)."""
    import json

    json_path = Path(json_path)
    data = json.loads(json_path.read_text())
    out = Path(output) if output else json_path.parent
    stem = stem or json_path.name[:-len(".json")]
    md = _report_markdown(data["datasets"], data["config"], data.get("large_budget") or {})
    write_text(out / f"{stem}.md", md)
    _plots(data["datasets"], data.get("large_budget") or {}, out, data["config"], stem)
    return md


def _mean_curve(curves, key):
    if not curves:
        return None, None
    n = min(len(c["n_chosen"]) for c in curves)
    x = np.asarray(curves[0]["n_chosen"][:n], float)
    y = np.array([[np.nan if v is None else v for v in c[key][:n]] for c in curves], float)
    return x, np.nanmean(y, axis=0)


def _plots(results, large, out_dir, cfg, stem="shen-lin"):
    names = [n for n in results if any(e.get("curves") for e in results[n]["methods"].values())]
    paths = []
    if not names:  # e.g. a Table 7 run: no curves to draw
        return paths
    fig, axes = new_figure(len(names))
    for ax, n in zip(axes, names):
        ms = results[n]["methods"]
        for m in ("Random", "Soft-Close", "Soft-Correct", "Hard-Close", "Hard-Correct"):
            x, y = _mean_curve(ms.get(m, {}).get("curves", []), "auc")
            if x is not None:
                ax.plot(x, y, label=m, lw=1.2, ls="--" if m.startswith("Hard") else "-")
        for m, c in (("WSVM", "k"), ("ERankSVM", "r"), ("CRR", "g")):
            if ms.get(m, {}).get("auc"):
                ax.axhline(np.mean(ms[m]["auc"]), color=c, lw=0.8, ls=":", label=m)
        ax.set_title(n)
        ax.set_xlabel("|L*|")
        ax.set_ylabel("AUC")
        lo = [np.nanmin(_mean_curve(ms[m]["curves"], "auc")[1][5:])
              for m in ("Soft-Close", "Soft-Correct", "Random") if ms.get(m, {}).get("curves")]
        hi = [np.nanmax(_mean_curve(ms[m]["curves"], "auc")[1])
              for m in ms if ms[m].get("curves")]
        if lo and hi:
            ax.set_ylim(min(lo) - 0.002, max(hi) + 0.002)
    axes[0].legend(fontsize=6)
    paths.append(save_figure(fig, Path(out_dir) / f"{stem}-fig5.png"))
    fig, axes = new_figure(len(names))
    for ax, n in zip(axes, names):
        ms = results[n]["methods"]
        for m in ("Soft-Close", "Soft-Correct"):
            x, y = _mean_curve(ms.get(m, {}).get("curves", []), "rejections")
            if x is not None:
                ax.plot(x[1:], y[1:] / cfg["batch_size"], label=m)
        ax.set_yscale("symlog")
        ax.set_title(n)
        ax.set_xlabel("|L*|")
        ax.set_ylabel("rejected draws per accepted item")
    axes[0].legend(fontsize=7)
    paths.append(save_figure(fig, Path(out_dir) / f"{stem}-fig6.png"))
    if large:
        fig, axes = new_figure(len(large))
        for ax, (n, d) in zip(axes, large.items()):
            for m, e in d.items():
                c = e["curve"]
                ax.plot(c["n_chosen"], c["auc"], label=m)
            ms = results.get(n, {}).get("methods", {})
            for m, col in (("WSVM", "k"), ("ERankSVM", "r")):
                if ms.get(m, {}).get("auc"):
                    ax.axhline(np.mean(ms[m]["auc"]), color=col, lw=0.8, ls=":", label=m)
            ax.set_title(n)
            ax.set_xlabel("|L*|")
            ax.set_ylabel("AUC")
        axes[0].legend(fontsize=7)
        paths.append(save_figure(fig, Path(out_dir) / f"{stem}-fig2.png"))
    return paths


# --------------------------------------------------------------------------- CLI
def add_arguments(parser):
    """Options of ``birank reproduce shen-lin``."""
    parser.add_argument("--datasets", nargs="+", default=["a9a", "letter", "w8a", "bank",
                                                          "shuttle"],
                        help=f"data sets to run (known: {', '.join(SPECS)})")
    parser.add_argument("--data-dir", default="../shared/data",
                        help="folder holding the data set files (default: ../shared/data)")
    parser.add_argument("--train", help="any LIBSVM file to run instead of --datasets")
    parser.add_argument("--test", help="test file for --train (else 5-fold CV)")
    parser.add_argument("--positive-class", type=float, default=1.0,
                        help="label value of the positive class for --train (others negative)")
    parser.add_argument("--scale", action="store_true",
                        help="svm-scale the features of --train to [-1, 1]")
    parser.add_argument("--output", default="docs/results", help="output folder")
    parser.add_argument("--quick", action="store_true",
                        help="2 pools, 1 hard pool, first CV fold only, no Table 7 / Fig. 2")
    parser.add_argument("--pools", type=int, default=10, help="initial pools (paper: 10)")
    parser.add_argument("--hard-pools", type=int, default=5,
                        help="initial pools for the hard strategies")
    parser.add_argument("--folds", type=int, default=0,
                        help="run only the first K CV folds (0: all 5)")
    parser.add_argument("--budget", type=int, default=8000, help="B (paper: 8000)")
    parser.add_argument("--batch-size", type=int, default=100, help="b (paper: 100)")
    parser.add_argument("--C", type=float, default=0.1, help="C (paper: 0.1)")
    parser.add_argument("--tables", default="2,3,4,6",
                        help="comma-separated tables to produce among 2,3,4,6,7 "
                             "(7 = pair_weight sweep, shen-lin's gamma, 44 settings per pool)")
    # (--gamma-pools / --gammas: the names before pair_weight, still accepted)
    parser.add_argument("--pair-weight-pools", "--gamma-pools", dest="gamma_pools", type=int,
                        default=3, help="pools per setting in Table 7")
    parser.add_argument("--pair-weights", "--gammas", dest="gammas",
                        default=",".join(map(str, GAMMAS)),
                        help="pair weights (shen-lin's gamma) of Table 7")
    parser.add_argument("--large-budget", type=int, default=50000,
                        help="B for Fig. 2 (0 disables)")
    parser.add_argument("--large-batch-size", type=int, default=500, help="b for Fig. 2")
    parser.add_argument("--methods", nargs="+",
                        help="run only these table columns (e.g. ERankSVM); with --merge the "
                             "others come from earlier results")
    parser.add_argument("--merge", nargs="+", default=[],
                        help="earlier shen-lin JSON results whose methods fill in what this "
                             "run does not compute")
    parser.add_argument("--stem", default="shen-lin",
                        help="file name stem of the outputs (default: shen-lin)")
    parser.add_argument("--no-progress", action="store_true", help="do not show progress")


def _check_args(args):
    from ..exceptions import UserError

    for name in ("pools", "hard_pools", "gamma_pools", "budget", "batch_size"):
        if getattr(args, name) < 1:
            raise UserError(f"--{name.replace('_', '-')} must be >= 1; got {getattr(args, name)}.")
    if args.C <= 0:
        raise UserError(f"--C must be > 0; got {args.C}.")
    tables = {t.strip() for t in args.tables.split(",") if t.strip()}
    bad = tables - {"2", "3", "4", "6", "7"}
    if bad:
        raise UserError(f"--tables: unknown table(s) {', '.join(sorted(bad))}; "
                        "choose among 2,3,4,6,7.")
    if args.train is None:
        unknown = [d for d in args.datasets if d not in SPECS]
        if unknown:
            raise UserError(f"--datasets: unknown data set(s) {', '.join(unknown)}; known: "
                            f"{', '.join(SPECS)} (or give --train PATH).")
    return tables


def run(args):
    """Run the reproduction; returns 0."""
    tables = _check_args(args)
    quick = bool(args.quick)
    cfg = {"C": args.C, "budget": args.budget, "batch_size": args.batch_size,
           "pools": 2 if quick else args.pools, "hard_pools": 1 if quick else args.hard_pools,
           "gamma_pools": 1 if quick else args.gamma_pools,
           "max_folds": 1 if quick else (args.folds or None), "quick": quick,
           "curves": True, "large_budget": 0 if quick else args.large_budget,
           "large_batch": args.large_batch_size, "tables": sorted(tables)}
    if args.train is not None:
        specs = {Path(args.train).name: DatasetSpec(
            Path(args.train).name, (str(Path(args.train).resolve()),),
            (str(Path(args.test).resolve()),) if args.test else (), args.positive_class,
            scale=args.scale, note="user file")}
    else:
        specs = {d: SPECS[d] for d in args.datasets}
    methods = []
    if tables & {"2", "3", "4", "6"}:
        methods += ["WSVM", "ERankSVM", "CRR", "Random", "Soft-Close", "Soft-Correct"]
    else:  # Table 7 alone: no Fig. 2 either
        cfg["large_budget"] = 0
    if "6" in tables or "2" in tables:
        methods += ["Hard-Close", "Hard-Correct"]
    if "3" in tables:
        methods += ["Soft-Close no-bc", "Soft-Correct no-bc"]
    if "7" in tables and not quick:
        gammas = [g.strip() for g in args.gammas.split(",") if g.strip()]
        for kind in ("Soft-Close", "Soft-Correct"):
            for g in gammas:
                for thr in ("", "-thres"):
                    methods.append(f"{kind} g={g}{thr}")
    if args.methods:
        methods = [m for m in args.methods]
        cfg["large_budget"] = 0 if not set(methods) & {"Soft-Close", "Soft-Correct"} \
            else cfg["large_budget"]
    report = make_progress(not args.no_progress, "shen-lin")
    results, large = {}, {}
    t0 = time.perf_counter()
    out = Path(args.output)
    for name, spec in specs.items():
        results[name] = _run_dataset(name, spec, args, cfg, methods, report)
        if cfg["large_budget"]:
            large[name] = _large_budget(name, spec, args, cfg, report)
        # checkpoint after every data set: a long run interrupted keeps what it computed
        write_json(out / f"{args.stem}.partial.json",
                   {"config": cfg, "datasets": results, "large_budget": large})
    for path in args.merge:  # fill in methods computed by earlier runs
        import json

        old = json.loads(Path(path).read_text())
        for name, r in old["datasets"].items():
            if name not in results:
                results[name] = r
                continue
            for m, e in r["methods"].items():
                mine = results[name]["methods"].get(m)
                if mine is None or mine.get("unavailable") or not mine.get("auc"):
                    results[name]["methods"][m] = e
        for name, d in (old.get("large_budget") or {}).items():
            large.setdefault(name, d)
        for key in ("pools", "hard_pools", "quick", "max_folds"):
            cfg[key] = old["config"].get(key, cfg[key]) if args.methods else cfg[key]
    md = _report_markdown(results, cfg, large)
    write_text(out / f"{args.stem}.md", md)
    write_json(out / f"{args.stem}.json", {"config": cfg, "metadata": run_metadata(),
                                           "seconds": time.perf_counter() - t0,
                                           "datasets": results, "large_budget": large})
    _plots(results, large, out, cfg, args.stem)
    (out / f"{args.stem}.partial.json").unlink(missing_ok=True)
    print(md)
    return 0
